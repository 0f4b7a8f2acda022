// The review session of scenario.json, played through any client that offers list/call/read/get.
// client.py carries the same logic for the Python client; keep the two in step. (The branches on
// the negotiated revision are here only: the Python client always negotiates the latest one.)

import { isDeepStrictEqual } from 'node:util';

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Replaces ${name} in every string of a JSON value. */
export function substitute(value, vars) {
  if (typeof value === 'string') {
    const whole = /^\$\{(\w+)\}$/.exec(value);
    if (whole) {
      if (!(whole[1] in vars)) throw new Error(`scenario uses \${${whole[1]}} before it is known`);
      return vars[whole[1]];
    }
    return value.replace(/\$\{(\w+)\}/g, (_, k) => {
      if (!(k in vars)) throw new Error(`scenario uses \${${k}} before it is known`);
      return String(vars[k]);
    });
  }
  if (Array.isArray(value)) return value.map(v => substitute(v, vars));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

/** Returns the list of mismatches between `actual` and the pattern `expect` (see scenario.json). */
export function match(actual, expect, path = '$') {
  if (expect && typeof expect === 'object' && !Array.isArray(expect)) {
    if ('$type' in expect) {
      return typeOf(actual) === expect.$type ? [] : [`${path}: expected a ${expect.$type}, got ${JSON.stringify(actual)}`];
    }
    if ('$len' in expect || '$each' in expect) {
      if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
      const out = [];
      if ('$len' in expect && actual.length !== expect.$len) {
        out.push(`${path}: expected ${expect.$len} items, got ${actual.length}`);
      }
      if ('$each' in expect) actual.forEach((a, i) => out.push(...match(a, expect.$each, `${path}[${i}]`)));
      return out;
    }
    if (typeOf(actual) !== 'object') return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    const out = [];
    for (const [k, e] of Object.entries(expect)) {
      if (e && typeof e === 'object' && e.$absent) {
        if (k in actual) out.push(`${path}.${k}: expected absent, got ${JSON.stringify(actual[k])}`);
      } else if (!(k in actual)) {
        out.push(`${path}.${k}: missing`);
      } else {
        out.push(...match(actual[k], e, `${path}.${k}`));
      }
    }
    return out;
  }
  if (Array.isArray(expect)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    if (actual.length !== expect.length) return [`${path}: expected ${expect.length} items, got ${actual.length}`];
    return expect.flatMap((e, i) => match(actual[i], e, `${path}[${i}]`));
  }
  return isDeepStrictEqual(actual, expect) ? [] : [`${path}: expected ${JSON.stringify(expect)}, got ${JSON.stringify(actual)}`];
}

function dig(value, dotted) {
  return dotted.split('.').reduce((v, k) => (v == null ? undefined : v[k]), value);
}

function expandTemplate(template, values, vars) {
  return template.uriTemplate.replace(/\{(\w+)\}/g, (_, name) => {
    let v = values[name];
    if (v && typeof v === 'object') {
      const word = Object.keys(v).find(w => template.uriTemplate.includes(w));
      v = word === undefined ? undefined : v[word];
    }
    if (typeof v !== 'string') throw new Error(`no value for {${name}} in template ${template.uriTemplate}`);
    v = substitute(v, vars);
    return encodeURIComponent(v).replace(/%3A/g, ':');
  });
}

export class Scenario {
  /** bulk: run the steps marked `bulk` (false when recording, to keep recordings small). */
  constructor(spec, bulk = true) {
    this.spec = spec;
    this.bulk = bulk;
  }

  /**
   * api: { list(method, cursor), callTool(name, args), readResource(uri), getPrompt(name, args) }.
   * caps: the server's capabilities. Throws on the first failed check.
   */
  async run(api, caps, log) {
    const fail = msg => {
      throw new Error(msg);
    };
    const vars = { ...this.spec.vars };
    const listAll = async (method, key) => {
      const items = [];
      let cursor;
      for (let page = 0; ; page++) {
        if (page > 100) fail(`${method}: more than 100 pages`);
        const r = await api.list(method, cursor);
        if (!Array.isArray(r[key])) fail(`${method}: no ${key} array`);
        items.push(...r[key]);
        if (r.nextCursor === undefined || r.nextCursor === null) break;
        if (typeof r.nextCursor !== 'string') fail(`${method}: nextCursor is not a string`);
        cursor = r.nextCursor;
      }
      return items;
    };

    for (const cap of ['tools', 'prompts', 'resources']) {
      if (!caps[cap]) fail(`server capabilities lack ${cap}: ${JSON.stringify(caps)}`);
    }
    // A legacy session gets `ping` (hosts use it as a keep-alive) and, when the server
    // advertises logging, `logging/setLevel`, as hosts send it. Both are removed in 2026-07-28.
    if (api.legacy) {
      const pong = await api.ping();
      if (typeOf(pong) !== 'object') fail(`ping: result is not an object: ${JSON.stringify(pong)}`);
      if (caps.logging) await api.setLogLevel('debug');
    }
    const tools = await listAll('tools/list', 'tools');
    const prompts = await listAll('prompts/list', 'prompts');
    const templates = await listAll('resources/templates/list', 'resourceTemplates');
    log(`offered: ${tools.length} tools, ${prompts.length} prompts, ${templates.length} resource templates`);
    const names = new Set();
    for (const t of tools) {
      if (names.has(t.name)) fail(`tools/list: duplicate tool ${t.name}`);
      names.add(t.name);
      if (t.inputSchema?.type !== 'object') fail(`tool ${t.name}: inputSchema.type is not "object"`);
      if (t.outputSchema !== undefined && t.outputSchema.type !== 'object') fail(`tool ${t.name}: outputSchema.type is not "object"`);
      if (typeof t.description !== 'string' || t.description === '') fail(`tool ${t.name}: no description`);
    }
    // The elicitation step (elicit.mjs, run by client.mjs after this) covers its own tool.
    const covered = new Set([...this.spec.calls.map(c => c.tool), ...(this.spec.elicit ? [this.spec.elicit.tool] : [])]);
    for (const n of names) if (!covered.has(n)) fail(`tool ${n} is offered but scenario.json has no step for it`);

    // Tools: each step whose tool is offered.
    let calls = 0;
    // One tools/call: checks the result's shape and returns its structuredContent (or null for
    // an expected isError result).
    // What the negotiated revision changes (only the v2 client can offer revisions before
    // 2025-11-25): structuredContent exists from 2025-06-18 on; before 2025-11-25 an input-schema
    // failure is a JSON-RPC -32602 error rather than an isError result.
    const structured = api.version >= '2025-06-18';
    const schemaFailureIsResult = api.version >= '2025-11-25';
    const call = async (step, args) => {
      const mark = api.wireMark();
      let r;
      try {
        r = await api.callTool(step.tool, args);
      } catch (err) {
        calls++;
        const code = api.wireErrorCodeSince(mark);
        if (step.error !== undefined && !schemaFailureIsResult && code === -32602) return null;
        throw err;
      }
      calls++;
      const where = `tools/call ${step.tool} #${calls}`;
      const text = (r.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
      if (step.error !== undefined) {
        if (!schemaFailureIsResult) fail(`${where}: expected a -32602 error in ${api.version}, got ${JSON.stringify(r)}`);
        if (r.isError !== true) fail(`${where}: expected an isError result, got ${JSON.stringify(r)}`);
        if (!text.includes(step.error)) fail(`${where}: error text does not mention ${JSON.stringify(step.error)}: ${text}`);
        return null;
      }
      if (r.isError) fail(`${where}: isError: ${text}`);
      const parsed = (r.content ?? []).flatMap(c => {
        if (c.type !== 'text') return [];
        try {
          const v = JSON.parse(c.text);
          return typeOf(v) === 'object' ? [v] : [];
        } catch {
          return [];
        }
      });
      let sc = r.structuredContent;
      if (structured) {
        if (sc === undefined || typeOf(sc) !== 'object') fail(`${where}: no structuredContent object`);
        if (!parsed.some(v => isDeepStrictEqual(v, sc))) fail(`${where}: no text block carries the structuredContent JSON`);
      } else {
        if (sc !== undefined) fail(`${where}: structuredContent in ${api.version}, which has none`);
        if (parsed.length !== 1) fail(`${where}: expected one JSON text block, found ${parsed.length}`);
        sc = parsed[0];
      }
      return [sc, where];
    };
    for (const step of this.spec.calls) {
      if (!names.has(step.tool) || (step.bulk && !this.bulk)) continue;
      for (let i = 0; i < (step.repeat ?? 1); i++) {
        if (step.repeat !== undefined) {
          vars.i = i;
          vars.hex_i = i.toString(16).padStart(64, '0');
        }
        const args = substitute(step.args, vars);
        if (step.pages !== undefined) {
          // Follow next_cursor to the end; the pattern applies to all pages together.
          const items = [];
          let where;
          let cursor;
          for (let page = 0; ; page++) {
            if (page > 1000) fail(`${step.tool}: more than 1000 pages`);
            const [sc, w] = await call(step, cursor === undefined ? args : { ...args, cursor });
            where = w;
            if (!Array.isArray(sc[step.pages])) fail(`${where}: no ${step.pages} array`);
            items.push(...sc[step.pages]);
            if (sc.next_cursor === undefined || sc.next_cursor === null) break;
            if (typeof sc.next_cursor !== 'string') fail(`${where}: next_cursor is not a string`);
            cursor = sc.next_cursor;
          }
          const ids = items.map(x => x.id);
          if (new Set(ids).size !== ids.length) fail(`${where}: an item came back twice across pages`);
          const problems = match(items, substitute(step.expect, vars));
          if (problems.length) fail(`${where} (all pages): ${problems.join('; ')}`);
          continue;
        }
        const out = await call(step, args);
        if (out === null) continue;
        const [sc, where] = out;
        const problems = match(sc, substitute(step.expect, vars));
        if (problems.length) fail(`${where}: ${problems.join('; ')}\n  got ${JSON.stringify(sc)}`);
        for (const [name, path] of Object.entries(step.save ?? {})) vars[name] = dig(sc, path);
      }
    }
    log(`called tools: ${calls} calls over ${names.size} tools`);

    // Resources: every listed one, then every template filled with what the session wrote.
    const resources = await listAll('resources/list', 'resources');
    if (names.has('remember') && templates.length > 0 && resources.length === 0) {
      fail('resources/list is empty after records were written');
    }
    if (this.bulk && templates.length > 0 && names.has('remember') && resources.length !== this.spec.resources_total) {
      fail(`resources/list: ${resources.length} resources over all pages, expected ${this.spec.resources_total}`);
    }
    const uris = resources.map(r => r.uri);
    for (const t of templates) uris.push(expandTemplate(t, this.spec.template_vars, vars));
    const reads = Object.fromEntries(Object.entries(this.spec.reads).map(([u, c]) => [substitute(u, vars), c]));
    const seen = new Set();
    for (const uri of uris) {
      const r = await api.readResource(uri);
      const want = reads[uri];
      if (want !== undefined) {
        seen.add(uri);
        if (r.contents?.length !== 1) fail(`resources/read ${uri}: expected one content, got ${r.contents?.length}`);
        const c = r.contents[0];
        if (want.mimeType !== undefined && c.mimeType !== want.mimeType) fail(`resources/read ${uri}: mimeType ${c.mimeType}, expected ${want.mimeType}`);
        if (want.json !== undefined) {
          const problems = match(JSON.parse(c.text), substitute(want.json, vars));
          if (problems.length) fail(`resources/read ${uri}: ${problems.join('; ')}`);
        }
        for (const needle of want.contains ?? []) {
          if (!c.text.includes(needle)) fail(`resources/read ${uri}: text lacks ${JSON.stringify(needle)}`);
        }
      }
      if (!Array.isArray(r.contents) || r.contents.length === 0) fail(`resources/read ${uri}: no contents`);
      for (const c of r.contents) {
        if (typeof c.uri !== 'string') fail(`resources/read ${uri}: a content has no uri`);
        if (typeof c.text !== 'string' && typeof c.blob !== 'string') fail(`resources/read ${uri}: content without text or blob`);
        if (c.mimeType === 'application/json') {
          try {
            JSON.parse(c.text);
          } catch (e) {
            fail(`resources/read ${uri}: application/json content does not parse: ${e.message}`);
          }
        }
      }
    }
    if (templates.length > 0) {
      for (const uri of Object.keys(reads)) if (!seen.has(uri)) fail(`resources/read: ${uri} was never read`);
    }
    log(`read resources: ${resources.length} listed, ${templates.length} from templates`);

    // Prompts: once with the required arguments only, once with every argument.
    const argValues = this.spec.prompt_args;
    for (const p of prompts) {
      const declared = p.arguments ?? [];
      const value = a => substitute(argValues[a.name] ?? argValues.default, vars);
      const required = Object.fromEntries(declared.filter(a => a.required).map(a => [a.name, value(a)]));
      const all = Object.fromEntries(declared.map(a => [a.name, value(a)]));
      for (const args of [required, all]) {
        const r = await api.getPrompt(p.name, args);
        const where = `prompts/get ${p.name} ${JSON.stringify(Object.keys(args))}`;
        if (!Array.isArray(r.messages) || r.messages.length === 0) fail(`${where}: no messages`);
        for (const m of r.messages) {
          if (m.role !== 'user' && m.role !== 'assistant') fail(`${where}: role ${m.role}`);
          if (m.content?.type === 'text' && !m.content.text) fail(`${where}: empty text message`);
        }
      }
    }
    log(`got prompts: ${prompts.length}`);

    // Error answers, as each client surfaces them. Only for the features the server offers.
    const offered = { readResource: templates.length > 0, getPrompt: prompts.length > 0, callTool: names.size > 0 };
    let errors = 0;
    for (const e of this.spec.errors) {
      if (!offered[e.call]) continue;
      const want = api.legacy ? e.legacy : e.modern;
      let code;
      const mark = api.wireMark();
      try {
        if (e.call === 'readResource') await api.readResource(e.uri);
        else if (e.call === 'getPrompt') await api.getPrompt(e.name, e.arguments);
        else await api.callTool(e.name, e.arguments);
      } catch (err) {
        // The code as the server sent it: the v2 client re-maps a legacy -32002 to its
        // ResourceNotFoundError (code -32602), as the 2026-07-28 spec lets clients do.
        code = api.wireErrorCodeSince(mark);
        if (code !== want) fail(`${e.call} ${e.uri ?? e.name}: expected error ${want} on the wire, got ${code}: ${err?.message ?? err}`);
        errors++;
        continue;
      }
      fail(`${e.call} ${e.uri ?? e.name}: expected error ${want}, got a result`);
    }
    log(`error answers: ${errors}`);
    return `${calls} tool calls, ${uris.length} resource reads, ${2 * prompts.length} prompt gets, ${errors} error answers`;
  }
}
