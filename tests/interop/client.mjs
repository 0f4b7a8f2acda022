// Drives review-mcp over stdio with an official MCP TypeScript client and asserts on every answer.
//
// Usage: node client.mjs --client sdk1|v2 --mode legacy|auto|2026-07-28 [--bulk no] -- SERVER_COMMAND [ARGS...]
//
// sdk1 = npm @modelcontextprotocol/sdk 1.x (legacy only); v2 = npm @modelcontextprotocol/client
// 2.x with `versionNegotiation`. The server inherits this process's environment, so the caller
// sets REVIEW_MCP_DB_PATH to a fresh database. Exit 0 only when every check held and neither the
// client nor Node printed any warning or error about the server's answers. The notification
// step last (scenario.json `notify`) spawns REVIEW_MCP_BIN (else the last word of the server
// command) as a second server process on the same database, and names the notifications that
// process caused in INTEROP_FOREIGN, if set (see to_transcript.py --mark).

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { ELICITATION_CAPABILITIES, elicitStep, installElicitation } from './elicit.mjs';
import { Scenario, substitute } from './scenario.mjs';

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
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const sleep = ms => new Promise(r => setTimeout(r, ms));
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
    const types = await import('@modelcontextprotocol/sdk/types.js');
    return {
      Client,
      StdioClientTransport,
      types,
      latestLegacy: types.LATEST_PROTOCOL_VERSION,
      // The 1.x SDK registers notification handlers by schema, the v2 client by method.
      notificationKey: {
        'notifications/resources/list_changed': types.ResourceListChangedNotificationSchema,
        'notifications/resources/updated': types.ResourceUpdatedNotificationSchema,
      },
    };
  }
  if (kind === 'v2') {
    const { Client, LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    return { Client, StdioClientTransport, types: null, latestLegacy: LATEST_PROTOCOL_VERSION, notificationKey: null };
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

/**
 * Wraps transport.onmessage so every message the server sends is seen here first (`seenAt`
 * holds the arrival time of each, performance.now() ms), and transport.send so every message
 * the client sends lands in `sent`.
 */
function observe(transport, seen, seenAt, sent) {
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: fn => {
      handler = fn && (message => {
        seen.push(message);
        seenAt.push(performance.now());
        fn(message);
      });
    },
  });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
}

/** Polls `pred` every 5 ms for up to `ms`; returns its first truthy value, or its last value. */
async function waitFor(pred, ms) {
  const end = performance.now() + ms;
  for (;;) {
    const v = pred();
    if (v || performance.now() >= end) return v;
    await sleep(5);
  }
}

/**
 * The second process of the notification step: the server binary itself (not the tee), on
 * the same database file (REVIEW_MCP_DB_PATH, inherited), driven with raw JSON lines:
 * initialize, notifications/initialized, tools/call remember, then its input is closed.
 * Returns the time (performance.now()) its tools/call answer was read.
 */
async function secondProcessWrite(bin, args) {
  const child = spawn(bin, [], { env: { ...process.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr = [];
  child.stderr.on('data', c => stderr.push(c.toString()));
  const exited = new Promise(resolve => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
    child.on('error', err => resolve({ error: err }));
  });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on('line', line => {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m && m.id !== undefined && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
  });
  const fail = what => {
    child.kill();
    throw new Error(`second process (${bin}): ${what}; its stderr: ${stderr.join('')}`);
  };
  const request = async (id, method, params) => {
    const answer = new Promise(resolve => waiting.set(id, resolve));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const got = await Promise.race([answer, exited.then(() => null), sleep(10_000).then(() => undefined)]);
    if (got === null) fail(`exited before answering ${method}`);
    if (got === undefined) fail(`no answer to ${method} within 10 s`);
    return got;
  };
  const init = await request(1, 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'review-mcp-interop-second-process', version: '1.0.0' },
  });
  if (!init.result) fail(`initialize failed: ${JSON.stringify(init)}`);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const answer = await request(2, 'tools/call', { name: 'remember', arguments: args });
  const answeredAt = performance.now();
  if (!answer.result || answer.result.isError) fail(`tools/call remember failed: ${JSON.stringify(answer)}`);
  child.stdin.end();
  const end = await Promise.race([exited, sleep(5_000).then(() => undefined)]);
  if (end === undefined) fail('did not exit within 5 s of its input closing');
  if (end.error || end.code !== 0) fail(`ended with ${JSON.stringify(end.error?.message ?? end)}`);
  return answeredAt;
}

/** How many notifications of the kinds to_transcript.py counts (COUNTED) the session got so far. */
const COUNTED = new Set(['notifications/resources/list_changed', 'notifications/resources/updated', 'notifications/message']);
const counted = seen => seen.filter(m => m.id === undefined && COUNTED.has(m.method)).length;

/** The server binary for the second process: REVIEW_MCP_BIN, else the last word of the server command. */
function serverBinary(command, args) {
  return process.env.REVIEW_MCP_BIN || (args.length > 0 ? args[args.length - 1] : command);
}

/**
 * The notification step (scenario.json `notify`): a write by the session itself, then one by
 * a second server process on the same file, must each bring `list_changed` and `updated` for
 * the subscribed revision within `wait_ms`. Legacy sessions subscribe with resources/subscribe;
 * 2026-07-28 sessions open a subscriptions/listen stream with the client's `listen()` (the v2
 * client's own auto-opened stream carries resourcesListChanged). The v2 client's automatic
 * refetch on list_changed (ClientOptions.listChanged) must list the new revision.
 */
async function notifyStep(ctx) {
  const { kind, client, legacy, spec, seen, seenAt, sent, handled, refetches, bin, log } = ctx;
  const check = (cond, what) => {
    if (!cond) throw new Error(`notify: ${what}`);
  };
  const n = substitute(spec.notify, spec.vars);
  const uri = n.uri;
  const wait = n.wait_ms;
  const LIST = 'notifications/resources/list_changed';
  const UPDATED = 'notifications/resources/updated';
  // Where each kind of notification must come from: nowhere in particular (legacy), or the
  // listen stream that asked for it (2026-07-28).
  let listStream;
  let updatedStream;
  let subscription;
  if (legacy) {
    await client.subscribeResource({ uri });
  } else {
    check(kind === 'v2', `${kind} has no 2026-07-28 mode`);
    const auto = client.autoOpenedSubscription;
    check(auto !== undefined, 'the v2 client did not open a subscriptions/listen stream for its listChanged handlers');
    check(isDeepStrictEqual(auto.honoredFilter, { resourcesListChanged: true }),
      `auto-opened stream honoured ${JSON.stringify(auto.honoredFilter)}, expected {"resourcesListChanged":true}`);
    subscription = await client.listen({ resourceSubscriptions: [uri] });
    check(isDeepStrictEqual(subscription.honoredFilter, { resourceSubscriptions: [uri] }),
      `listen({resourceSubscriptions}) honoured ${JSON.stringify(subscription.honoredFilter)}`);
    const listens = sent.filter(m => m.method === 'subscriptions/listen');
    check(listens.length === 2, `expected 2 subscriptions/listen requests on the wire, saw ${listens.length}`);
    [listStream, updatedStream] = listens.map(m => m.id);
    // Each stream's acknowledgement carries exactly the honoured subset, tagged with its id.
    for (const [id, filter] of [[listStream, { resourcesListChanged: true }], [updatedStream, { resourceSubscriptions: [uri] }]]) {
      const ack = seen.find(m => m.method === 'notifications/subscriptions/acknowledged' && m.params?._meta?.[SUBSCRIPTION_ID] === id);
      check(ack !== undefined, `no notifications/subscriptions/acknowledged for listen ${id}`);
      check(isDeepStrictEqual(ack.params.notifications, filter), `listen ${id} acknowledged ${JSON.stringify(ack.params.notifications)}, expected ${JSON.stringify(filter)}`);
    }
  }

  // The first wire arrival of `method` (for `uri`) since `mark`, from the right stream.
  const arrival = (mark, method) => {
    for (let i = mark; i < seen.length; i++) {
      const m = seen[i];
      if (m.method !== method || (method === UPDATED && m.params?.uri !== uri)) continue;
      const stream = m.params?._meta?.[SUBSCRIPTION_ID];
      const want = legacy ? undefined : method === LIST ? listStream : updatedStream;
      check(stream === want, `${method} came with subscriptionId ${JSON.stringify(stream)}, expected ${JSON.stringify(want)}`);
      return seenAt[i];
    }
    return undefined;
  };
  // The client's own handler saw it: the registered `updated` handler; for list_changed the
  // 1.x SDK's handler, or the v2 client's listChanged refetch (debounced, so waited for below).
  const handledSince = (t, method) => handled.find(h => h.t >= t && h.method === method && (method === LIST || h.uri === uri));
  // mark: the index in `seen` to look from; from: the time to look from in `handled`; since:
  // the time the delays count from (and the wait of `wait_ms` starts).
  const expectBoth = async (mark, from, since, what) => {
    const got = await waitFor(() => {
      const l = arrival(mark, LIST);
      const u = arrival(mark, UPDATED);
      return l !== undefined && u !== undefined && { l, u };
    }, Math.max(0, since + wait - performance.now()));
    check(got, `${what}: within ${wait} ms expected ${LIST} (${arrival(mark, LIST) === undefined ? 'missing' : 'seen'}) and ${UPDATED} ${uri} (${arrival(mark, UPDATED) === undefined ? 'missing' : 'seen'})`);
    check(await waitFor(() => handledSince(from, UPDATED), 200), `${what}: the client's ${UPDATED} handler was not called`);
    if (kind === 'sdk1') check(await waitFor(() => handledSince(from, LIST), 200), `${what}: the client's ${LIST} handler was not called`);
    return { list: got.l - since, updated: got.u - since };
  };
  // The v2 client refetches resources/list by itself on list_changed (300 ms debounce).
  const expectRefetch = async (after, what) => {
    const r = await waitFor(() => refetches.find(f => f.t >= after && (f.error || f.uris.includes(uri))), 3000);
    check(r, `${what}: the v2 client's automatic refetch on list_changed did not happen within 3 s`);
    check(!r.error, `${what}: the v2 client's automatic refetch failed: ${r.error}`);
  };

  // 1. The session's own write on the new revision.
  let mark = seen.length;
  let since = performance.now();
  const r = await client.callTool({ name: 'remember', arguments: n.session_write });
  check(!r.isError, `session write: isError: ${JSON.stringify(r)}`);
  const own = await expectBoth(mark, since, since, 'session write');
  if (kind === 'v2') await expectRefetch(since + own.list, 'session write');

  // 2. A second server process writes on the same file; the session sends nothing meanwhile.
  // Which notifications it caused goes to INTEROP_FOREIGN (if set) for the recording: a
  // replay cannot bring them (see to_transcript.py --mark).
  // The delays count from the moment its answer was read (the session's notifications may even
  // come first: its server polls every ~200 ms, and this process reads both pipes in turn).
  mark = seen.length;
  const sentMark = sent.length;
  const foreignFrom = counted(seen);
  const spawnedAt = performance.now();
  const answeredAt = await secondProcessWrite(bin, n.second_write);
  const foreign = await expectBoth(mark, spawnedAt, answeredAt, 'second process write');
  const foreignTo = counted(seen);
  if (process.env.INTEROP_FOREIGN) writeFileSync(process.env.INTEROP_FOREIGN, `${JSON.stringify({ foreign: [foreignFrom, foreignTo] })}\n`);
  const during = sent.slice(sentMark).filter(m => m.method !== 'resources/list');
  check(during.length === 0, `the session sent ${during.map(m => m.method).join(', ')} while waiting for the second process's notifications`);
  if (kind === 'v2') await expectRefetch(answeredAt + foreign.list, 'second process write');

  // Done: stop the subscription (and, for v2 in 2026-07-28, its stream).
  if (legacy) await client.unsubscribeResource({ uri });
  else await subscription.close();
  const ms = x => `${Math.round(x)} ms`;
  log(`notify: session write -> list_changed ${ms(own.list)}, updated ${ms(own.updated)}; ` +
    `second process write -> list_changed ${ms(foreign.list)}, updated ${ms(foreign.updated)} after its answer` +
    (kind === 'v2' ? '; automatic refetch lists the new revision' : ''));
  return `notifications: own write ${ms(own.list)}/${ms(own.updated)}, second process ${ms(foreign.list)}/${ms(foreign.updated)} (list_changed/updated)`;
}

/**
 * The UI-extension step (MCP Apps, the review card). The session itself declared nothing: its
 * tools/list has show_review with its `_meta.ui` link (a host may render the card without
 * declaring the extension) and no record_verdict, and a call of record_verdict without the
 * card's proof is an isError result that writes nothing. A second client of the same kind and
 * mode declares `extensions["io.modelcontextprotocol/ui"]` and connects to the binary
 * directly, on a database of its own (its writes stay out of the session's transcript): it
 * sees both links and the app-only tool, reads the card, and a record_verdict it sends with
 * the item's digest and the card's proof from show_review's `_meta` is recorded via "app";
 * one with another item's digest is refused.
 */
async function uiStep(ctx) {
  const { Client, StdioClientTransport, options, client, legacy, bin, log } = ctx;
  const check = (cond, what) => {
    if (!cond) throw new Error(`ui: ${what}`);
  };
  const APP = 'text/html;profile=mcp-app';
  // structuredContent from 2025-06-18 on; before, the same JSON is the second text block.
  const data = r => r.structuredContent ?? JSON.parse(r.content?.[1]?.text ?? 'null');
  const CARD = 'ui://review-mcp/review-card';
  const plain = await client.listTools();
  check(!plain.tools.some(t => t.name === 'record_verdict'), 'record_verdict listed to a client that declared no UI extension');
  check(plain.tools.find(t => t.name === 'show_review')?._meta?.ui?.resourceUri === CARD, 'show_review links no card for a client that declared no UI extension');
  const bare = await client.callTool({ name: 'record_verdict', arguments: { decision_id: 'dec_none', index: 0, item_digest: '0'.repeat(32), judgement: 'accepted' } });
  check(bare.isError === true && /carries no card_proof/.test(bare.content?.[0]?.text ?? ''), `record_verdict without the card's proof answered ${JSON.stringify(bare)}`);

  const declared = new Client(
    { name: 'review-mcp-interop-ui-host', version: '1.0.0' },
    { ...options, capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [APP] } } } },
  );
  const env = { ...process.env, REVIEW_MCP_DB_PATH: `${process.env.REVIEW_MCP_DB_PATH ?? 'review'}.ui.db` };
  await declared.connect(new StdioClientTransport({ command: bin, args: [], env, stderr: 'ignore' }));
  try {
    const listed = await declared.listTools();
    const show = listed.tools.find(t => t.name === 'show_review')?._meta?.ui;
    const record = listed.tools.find(t => t.name === 'record_verdict')?._meta?.ui;
    check(show?.resourceUri === CARD, `show_review _meta.ui is ${JSON.stringify(show)}`);
    check(record?.resourceUri === CARD && isDeepStrictEqual(record.visibility, ['app']), `record_verdict _meta.ui is ${JSON.stringify(record)}`);
    const card = await declared.readResource({ uri: CARD });
    check(card.contents[0]?.mimeType === APP && card.contents[0].text.startsWith('<!DOCTYPE html>'), 'the card is not an mcp-app HTML document');
    const artifact = { revision: `sha256:${'d'.repeat(64)}`, format: 'step', uri: '/work/ui.step' };
    const saved = await declared.callTool({ name: 'remember_decision', arguments: {
      artifact, subject: 'ui step', disposition: 'hold',
      basis: [{ requirement: 'Bore 12H7', source: 'drawing', state: 'unresolved', question: 'which reamer?' }],
    } });
    const id = data(saved).decision.id;
    const summary = await declared.callTool({ name: 'show_review', arguments: { artifact } });
    check(data(summary)?.decisions?.[0]?.open_questions?.length === 1, 'show_review lists the open question');
    // The card is given the summary and asks for the full review (the basis and its digests).
    const shown = await declared.callTool({ name: 'show_review', arguments: { artifact, detail: 'full' } });
    // The card sends back the digest show_review gave the item it showed.
    const digest = data(shown)?.decisions?.[0]?.basis?.[0]?.digest;
    check(typeof digest === 'string', `show_review gave no basis digest: ${JSON.stringify(data(shown))}`);
    // ... and the proof show_review gave the card in the result's _meta.
    const proof = shown._meta?.['review-mcp/card']?.proofs?.[id];
    check(typeof proof === 'string', `show_review gave no card proof: ${JSON.stringify(shown._meta)}`);
    const verdict = await declared.callTool({ name: 'record_verdict', arguments: { decision_id: id, index: 0, item_digest: digest, judgement: 'accepted', card_proof: proof } });
    check(!verdict.isError && data(verdict)?.verdict?.via === 'app', `record_verdict answered ${JSON.stringify(verdict)}`);
    // A click on an item that is not (or no longer) the one shown is refused, and writes nothing.
    const moved = await declared.callTool({ name: 'record_verdict', arguments: { decision_id: id, index: 0, item_digest: '0'.repeat(32), judgement: 'rejected', card_proof: proof } });
    check(moved.isError === true && moved.content?.[0]?.text?.startsWith('The decision changed since the card showed it'), `a click on another item answered ${JSON.stringify(moved)}`);
  } finally {
    await declared.close();
  }
  log('ui: undeclared sees the card link, not record_verdict, and a call without the proof is refused; declared sees both and records via app with the proof');
  return 'ui extension negotiated both ways';
}

async function main() {
  const { client: kind, mode, bulk, command, args } = parseArgs(process.argv.slice(2));
  if (kind === 'sdk1' && mode !== 'legacy') throw new Error('the 1.x SDK speaks the legacy era only');
  const { Client, StdioClientTransport, types, latestLegacy, notificationKey } = await loadClient(kind);
  const spec = JSON.parse(readFileSync(join(here, 'scenario.json'), 'utf8'));
  const scenario = new Scenario(spec, bulk);

  const options = clientOptions(kind, mode);
  const legacy = mode === 'legacy' || mode.startsWith('legacy-');
  // What the client's own notification handlers saw, and the v2 client's automatic refetches
  // of resources/list on list_changed (ClientOptions.listChanged; in 2026-07-28 it opens a
  // subscriptions/listen stream for them when it connects).
  const handled = [];
  const refetches = [];
  if (kind === 'v2') {
    options.listChanged = {
      resources: {
        onChanged: (error, items) => refetches.push({ t: performance.now(), error: error && String(error), uris: (items ?? []).map(x => x.uri) }),
      },
    };
  }
  // The elicitation capability (form mode), as hosts that can show a form declare it; the
  // handler answers request_verdicts' forms with what the elicitation step queued.
  options.capabilities = ELICITATION_CAPABILITIES;
  const client = new Client({ name: `review-mcp-interop-${kind}`, version: '1.0.0' }, options);
  client.onerror = e => problems.push(`client.onerror: ${e?.stack ?? e}`);
  const answers = { next: [], asked: [] };
  installElicitation(client, kind, types, answers);
  const onNotification = method => notification => {
    handled.push({ t: performance.now(), method, uri: notification.params?.uri });
  };
  // The v2 client's listChanged option owns the list_changed handler; the 1.x SDK gets one.
  const methods = ['notifications/resources/updated'];
  if (kind === 'sdk1') methods.push('notifications/resources/list_changed');
  for (const method of methods) {
    client.setNotificationHandler(notificationKey ? notificationKey[method] : method, onNotification(method));
  }

  const serverStderr = [];
  const transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'pipe' });
  transport.stderr?.on('data', chunk => serverStderr.push(chunk.toString()));
  const seen = [];
  const seenAt = [];
  const sent = [];
  observe(transport, seen, seenAt, sent);

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
    // A client of the same kind and mode without the elicitation capability, on the plain server
    // binary (not the tee: run.sh expects one or two recordings per run), same database file.
    const connectBare = async () => {
      const bare = new Client({ name: `review-mcp-interop-${kind}-no-elicitation`, version: '1.0.0' }, clientOptions(kind, mode));
      bare.onerror = e => problems.push(`client without elicitation: onerror: ${e?.stack ?? e}`);
      const t = new StdioClientTransport({ command: serverBinary(command, args), args: [], env: { ...process.env }, stderr: 'pipe' });
      t.stderr?.on('data', chunk => serverStderr.push(chunk.toString()));
      await bare.connect(t);
      return bare;
    };
    const elicited = spec.elicit === undefined ? 'elicitation: no step' : await elicitStep({
      kind, client, legacy, version, spec, seen, sent, answers, connectBare, log: msg => console.log(msg),
    });
    const notified = await notifyStep({
      kind, client, legacy, spec, seen, seenAt, sent, handled, refetches,
      bin: serverBinary(command, args), log: msg => console.log(msg),
    });
    const ui = await uiStep({
      Client, StdioClientTransport, options: clientOptions(kind, mode), client, legacy,
      bin: serverBinary(command, args), log: msg => console.log(msg),
    });
    console.log(`summary: ${version}; ${summary}; ${elicited}; ${notified}; ${ui}`);
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

