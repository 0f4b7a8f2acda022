// The review session of scenario.json, played through any client that offers list/call/read/get.
// client.py carries the same logic for the Python client; keep the two in step.

import { isDeepStrictEqual } from 'node:util';

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Replaces ${name} in every string of a JSON value. */
function substitute(value, vars) {
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
  constructor(spec) {
    this.spec = spec;
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
    const covered = new Set(this.spec.calls.map(c => c.tool));
    for (const n of names) if (!covered.has(n)) fail(`tool ${n} is offered but scenario.json has no step for it`);

    // Tools: each step whose tool is offered.
    let calls = 0;
    for (const step of this.spec.calls) {
      if (!names.has(step.tool)) continue;
      const args = substitute(step.args, vars);
      const r = await api.callTool(step.tool, args);
      const where = `tools/call ${step.tool} #${calls + 1}`;
      const text = (r.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
      if (r.isError) fail(`${where}: isError: ${text}`);
      const sc = r.structuredContent;
      if (sc === undefined || typeOf(sc) !== 'object') fail(`${where}: no structuredContent object`);
      const mirrored = (r.content ?? []).some(c => {
        if (c.type !== 'text') return false;
        try {
          return isDeepStrictEqual(JSON.parse(c.text), sc);
        } catch {
          return false;
        }
      });
      if (!mirrored) fail(`${where}: no text block carries the structuredContent JSON`);
      const problems = match(sc, substitute(step.expect, vars));
      if (problems.length) fail(`${where}: ${problems.join('; ')}\n  got ${JSON.stringify(sc)}`);
      for (const [name, path] of Object.entries(step.save ?? {})) vars[name] = dig(sc, path);
      calls++;
    }
    log(`called tools: ${calls} calls over ${names.size} tools`);

    // Resources: every listed one, then every template filled with what the session wrote.
    const resources = await listAll('resources/list', 'resources');
    if (names.has('remember') && templates.length > 0 && resources.length === 0) {
      fail('resources/list is empty after records were written');
    }
    const uris = resources.map(r => r.uri);
    for (const t of templates) uris.push(expandTemplate(t, this.spec.template_vars, vars));
    for (const uri of uris) {
      const r = await api.readResource(uri);
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
    return `${calls} tool calls, ${uris.length} resource reads, ${2 * prompts.length} prompt gets`;
  }
}
