// Drives review-mcp over stdio with an official MCP TypeScript client and asserts on every answer.
//
// Usage: node client.mjs --client sdk1|v2 --mode legacy|auto|2026-07-28 [--bulk no] -- SERVER_COMMAND [ARGS...]
//
// sdk1 = npm @modelcontextprotocol/sdk 1.x (legacy only); v2 = npm @modelcontextprotocol/client
// 2.x with `versionNegotiation`. The server inherits this process's environment, so the caller
// sets REVIEW_MCP_DB_PATH to a fresh database. Exit 0 only when every check held and neither the
// client nor Node printed any warning or error about the server's answers.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Scenario } from './scenario.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const MODERN = '2026-07-28';

function parseArgs(argv) {
  const sep = argv.indexOf('--');
  if (sep < 0 || sep === argv.length - 1) throw new Error('usage: client.mjs --client C --mode M -- SERVER...');
  const opts = {};
  for (let i = 0; i < sep; i += 2) opts[argv[i].replace(/^--/, '')] = argv[i + 1];
  return { client: opts.client, mode: opts.mode, bulk: opts.bulk !== 'no', command: argv[sep + 1], args: argv.slice(sep + 2) };
}

// Everything the client or the runtime reports about the server's answers lands here; any entry
// fails the run. The clients report through console.warn/console.error, `onerror`, and Node's
// process warnings.
const problems = [];
for (const level of ['warn', 'error']) {
  const original = console[level].bind(console);
  console[level] = (...items) => {
    problems.push(`console.${level}: ${items.map(String).join(' ')}`);
    original(...items);
  };
}
process.on('warning', w => problems.push(`process warning: ${w.name}: ${w.message}`));

async function loadClient(kind) {
  if (kind === 'sdk1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/sdk/types.js');
    return { Client, StdioClientTransport, latestLegacy: LATEST_PROTOCOL_VERSION };
  }
  if (kind === 'v2') {
    const { Client, LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    return { Client, StdioClientTransport, latestLegacy: LATEST_PROTOCOL_VERSION };
  }
  throw new Error(`unknown client ${kind}`);
}

// `legacy-<revision>` is the v2 client in legacy mode offering an older 2025-era revision
// (`supportedProtocolVersions`), to drive the server's older result shapes with a real client.
function clientOptions(kind, mode) {
  if (kind !== 'v2') return {};
  if (mode.startsWith('legacy-')) {
    return { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: [mode.slice('legacy-'.length)] };
  }
  if (mode === 'legacy' || mode === 'auto') return { versionNegotiation: { mode } };
  return { versionNegotiation: { mode: { pin: mode } } };
}

/** Wraps transport.onmessage so every message the server sends is seen here first. */
function observe(transport, seen) {
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: fn => {
      handler = fn && (message => {
        seen.push(message);
        fn(message);
      });
    },
  });
}

async function main() {
  const { client: kind, mode, bulk, command, args } = parseArgs(process.argv.slice(2));
  if (kind === 'sdk1' && mode !== 'legacy') throw new Error('the 1.x SDK speaks the legacy era only');
  const { Client, StdioClientTransport, latestLegacy } = await loadClient(kind);
  const scenario = new Scenario(JSON.parse(readFileSync(join(here, 'scenario.json'), 'utf8')), bulk);

  const options = clientOptions(kind, mode);
  const legacy = mode === 'legacy' || mode.startsWith('legacy-');
  const client = new Client({ name: `review-mcp-interop-${kind}`, version: '1.0.0' }, options);
  client.onerror = e => problems.push(`client.onerror: ${e?.stack ?? e}`);

  const serverStderr = [];
  const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'pipe' });
  transport.stderr?.on('data', chunk => serverStderr.push(chunk.toString()));
  const seen = [];
  observe(transport, seen);

  const check = (cond, what) => {
    if (!cond) throw new Error(`check failed: ${what}`);
  };
  try {
    await client.connect(transport);

    // The era and version each mode must negotiate with a dual-era server.
    let version;
    if (kind === 'v2') {
      const era = client.getProtocolEra();
      version = client.getNegotiatedProtocolVersion();
      const wantEra = legacy ? 'legacy' : 'modern';
      check(era === wantEra, `era is ${era}, expected ${wantEra}`);
    } else {
      const init = seen.find(m => m.result && typeof m.result.protocolVersion === 'string');
      version = init?.result.protocolVersion;
    }
    const wantVersion = mode.startsWith('legacy-') ? mode.slice('legacy-'.length) : legacy ? latestLegacy : MODERN;
    check(version === wantVersion, `negotiated ${version}, expected ${wantVersion}`);
    const info = client.getServerVersion();
    check(info?.name === 'review-mcp', `serverInfo.name is ${JSON.stringify(info?.name)}`);
    const caps = client.getServerCapabilities() ?? {};
    console.log(`connected: ${kind} ${mode} -> ${version}, server ${info?.name} ${info?.version}`);

    const api = {
      list: async (method, cursor) => {
        const params = cursor === undefined ? undefined : { cursor };
        switch (method) {
          case 'tools/list': return client.listTools(params);
          case 'prompts/list': return client.listPrompts(params);
          case 'resources/list': return client.listResources(params);
          case 'resources/templates/list': return client.listResourceTemplates(params);
        }
        throw new Error(method);
      },
      callTool: (name, args) => client.callTool({ name, arguments: args }),
      readResource: uri => client.readResource({ uri }),
      getPrompt: (name, args) => client.getPrompt({ name, arguments: args }),
      setLogLevel: level => client.setLoggingLevel(level),
      ping: () => client.ping(),
      wireMark: () => seen.length,
      wireErrorCodeSince: mark => seen.slice(mark).find(m => m.error !== undefined)?.error.code,
      legacy,
      version,
    };
    const summary = await scenario.run(api, caps, msg => console.log(msg));
    console.log(`summary: ${version}; ${summary}`);
    await client.close();
  } catch (e) {
    problems.push(`error: ${e?.stack ?? e}`);
    try {
      await client.close();
    } catch {
      // Already failing; the close error adds nothing.
    }
  }
  // Let late notifications and stderr arrive before judging.
  await new Promise(r => setTimeout(r, 100));
  if (problems.length > 0) {
    process.stdout.write(`server stderr:\n${serverStderr.join('')}\n`);
    for (const p of problems) process.stdout.write(`PROBLEM: ${p}\n`);
    process.exit(1);
  }
  process.exit(0);
}

const deadline = setTimeout(() => {
  process.stdout.write('PROBLEM: timed out after 60 s\n');
  process.exit(1);
}, 60_000);
deadline.unref();

main().catch(e => {
  process.stdout.write(`PROBLEM: ${e?.stack ?? e}\n`);
  process.exit(1);
});

