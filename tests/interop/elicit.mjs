// The elicitation step (scenario.json `elicit`) for the TypeScript drivers: request_verdicts
// asks the engineer through the host's form. client.mjs runs it between scenario.run() and
// notifyStep(); elicit_step in client.py carries the same logic for the Python client: keep
// the two in step.
//
// How each client does it (read from the installed packages):
// - capability: ClientOptions `capabilities: { elicitation: { form: {} } }`, before connect;
//   setRequestHandler('elicitation/create') throws unless it is declared.
// - handler: sdk1 `setRequestHandler(ElicitRequestSchema, h)`, v2 `setRequestHandler('elicitation/create', h)`.
//   Both validate the request (ElicitRequestSchema of the era) before and the ElicitResult after
//   the handler, and never check the content against requestedSchema.
// - legacy: the server's own `elicitation/create` request reaches the handler; its return value
//   is the JSON-RPC response. 2026-07-28 (v2 only): callTool() gets `input_required`, the client
//   dispatches inputRequests to the same handler and retries tools/call with inputResponses and
//   the requestState echoed (inputRequired.autoFulfill defaults to true); callTool() resolves
//   with the final result.

import { isDeepStrictEqual } from 'node:util';
import { match, substitute } from './scenario.mjs';

export const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const ELICITATION_CAPABILITIES = { elicitation: { form: {} } };

/**
 * The elicitation handler: answers each request with the next queued answer and keeps what it
 * was asked. `answers.next` is the queue the step fills before each call; `answers.asked` the
 * params of every request the handler got.
 */
export function elicitationHandler(answers) {
  return async request => {
    answers.asked.push(request.params);
    if (answers.next.length === 0) throw new Error('elicitation/create came when the step expected none');
    return answers.next.shift();
  };
}

/** Registers the handler (the capability must already be in the client's options). */
export function installElicitation(client, kind, types, answers) {
  client.setRequestHandler(kind === 'sdk1' ? types.ElicitRequestSchema : 'elicitation/create', elicitationHandler(answers));
}

/**
 * ctx: { kind, client, legacy, version, spec, seen, sent, answers, connectBare, log }
 *   seen/sent: every message on the session's wire (client.mjs observe());
 *   connectBare(): a second client of the same kind and mode WITHOUT the elicitation capability,
 *   on the plain server binary (not the tee: run.sh expects one or two recordings per run).
 * Returns a summary line.
 */
export async function elicitStep(ctx) {
  const { kind, client, legacy, version, spec, seen, sent, answers, connectBare, log } = ctx;
  const e = substitute(spec.elicit, spec.vars);
  const tool = e.tool;
  const check = (cond, what) => {
    if (!cond) throw new Error(`elicit: ${what}`);
  };
  const structured = version >= '2025-06-18';
  // The tool's JSON: structuredContent (from 2025-06-18 on; one text block must carry the same
  // JSON), else the one JSON text block.
  const json = (r, where) => {
    check(r.isError !== true, `${where}: isError: ${JSON.stringify(r.content)}`);
    const parsed = (r.content ?? []).flatMap(c => {
      if (c.type !== 'text') return [];
      try {
        return [JSON.parse(c.text)];
      } catch {
        return [];
      }
    });
    if (structured) {
      check(r.structuredContent && typeof r.structuredContent === 'object', `${where}: no structuredContent`);
      check(parsed.some(v => isDeepStrictEqual(v, r.structuredContent)), `${where}: no text block carries the structuredContent JSON`);
      return r.structuredContent;
    }
    check(parsed.length === 1, `${where}: expected one JSON text block, found ${parsed.length}`);
    return parsed[0];
  };
  const expectMatch = (actual, pattern, where) => {
    const problems = match(actual, pattern);
    check(problems.length === 0, `${where}: ${problems.join('; ')}\n  got ${JSON.stringify(actual)}`);
  };
  const call = (name, args, extra = {}) => client.callTool({ name, arguments: args, ...extra });
  const text = r => (r.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
  const expectRefusal = (r, where) => {
    check(r.isError === true, `${where}: expected an isError result, got ${JSON.stringify(r)}`);
    check(text(r).includes(e.refusal), `${where}: the refusal does not mention ${JSON.stringify(e.refusal)}: ${text(r)}`);
  };
  const errorOf = async promise => {
    try {
      await promise;
    } catch (err) {
      return err;
    }
    return undefined;
  };

  // One request_verdicts call answered with `answer` (undefined: the handler must not be called).
  // Checks what went over the wire for the era and returns the result.
  const ask = async (args, answer, where) => {
    const mark = seen.length;
    const sentMark = sent.length;
    const askedBefore = answers.asked.length;
    if (answer !== undefined) answers.next.push(answer);
    const r = await call(tool, args);
    check(answers.next.length === 0, `${where}: the elicitation handler was not called`);
    const got = answers.asked.length - askedBefore;
    check(got === (answer === undefined ? 0 : 1), `${where}: the handler was called ${got} times`);
    const serverRequests = seen.slice(mark).filter(m => m.method !== undefined && m.id !== undefined);
    const calls = sent.slice(sentMark).filter(m => m.method === 'tools/call');
    if (legacy) {
      // The server's own request, answered by the client before the tools/call answer.
      check(serverRequests.length === (answer === undefined ? 0 : 1),
        `${where}: expected ${answer === undefined ? 'no' : 'one'} server request, saw ${serverRequests.map(m => m.method).join(', ') || 'none'}`);
      check(calls.length === 1, `${where}: expected one tools/call, sent ${calls.length}`);
      if (answer !== undefined) {
        const req = serverRequests[0];
        check(req.method === 'elicitation/create', `${where}: the server sent ${req.method}`);
        checkParams(req.params, where);
        const response = sent.slice(sentMark).find(m => m.id === req.id && m.method === undefined);
        check(response?.result?.action === answer.action, `${where}: the client answered ${JSON.stringify(response)}`);
        const answeredAt = seen.findIndex((m, i) => i >= mark && m.id === calls[0].id);
        check(answeredAt > seen.indexOf(req), `${where}: tools/call was answered before the elicitation`);
      }
    } else {
      // No server-to-client request in 2026-07-28: input_required, then the client's retry.
      check(serverRequests.length === 0, `${where}: a server request in 2026-07-28: ${JSON.stringify(serverRequests[0])}`);
      check(calls.length === (answer === undefined ? 1 : 2), `${where}: expected ${answer === undefined ? 1 : 2} tools/call on the wire, sent ${calls.length}`);
      if (answer !== undefined) {
        const first = seen.find(m => m.id === calls[0].id && m.result !== undefined);
        check(first?.result?.resultType === 'input_required', `${where}: the first answer is not input_required: ${JSON.stringify(first)}`);
        const { inputRequests, requestState } = first.result;
        check(isDeepStrictEqual(Object.keys(inputRequests ?? {}), ['verdicts']), `${where}: inputRequests ${JSON.stringify(inputRequests)}`);
        check(inputRequests.verdicts.method === 'elicitation/create', `${where}: inputRequests.verdicts.method ${inputRequests.verdicts.method}`);
        check(typeof requestState === 'string' && requestState.length > 0, `${where}: no requestState`);
        checkParams(inputRequests.verdicts.params, where);
        const retry = calls[1].params;
        check(retry.name === tool && isDeepStrictEqual(retry.arguments, args), `${where}: the retry changed name or arguments`);
        check(retry.requestState === requestState, `${where}: the retry did not echo requestState`);
        check(retry.inputResponses?.verdicts?.action === answer.action, `${where}: the retry carries ${JSON.stringify(retry.inputResponses)}`);
        check(calls[1].id !== calls[0].id, `${where}: the retry reused the request id`);
      }
    }
    return r;
  };
  // The elicitation request's params, as the server sent them (not as the handler saw them:
  // both TypeScript clients fill in mode "form" on their parsed copy).
  const checkParams = (params, where) => {
    check(typeof params?.message === 'string' && params.message !== '', `${where}: elicitation without a message`);
    const wantMode = !legacy || version >= '2025-11-25';
    check(wantMode ? params.mode === 'form' : !('mode' in params), `${where}: mode ${JSON.stringify(params.mode)} in ${version}`);
    if (where === 'accept') expectMatch(params.requestedSchema, e.requested_schema, `${where}: requestedSchema`);
  };

  const summary = [];
  if (version < '2025-06-18') {
    // No elicitation before 2025-06-18: the server refuses even a client that declares it.
    json(await call('remember_decision', e.decision), 'remember_decision');
    const mark = seen.length;
    expectRefusal(await call(tool, e.target), `${tool} in ${version}`);
    check(!seen.slice(mark).some(m => m.method === 'elicitation/create'), `elicitation/create sent in ${version}`);
    log(`elicit: ${version} has no elicitation; refused`);
    return 'elicitation: refused (revision has none)';
  }

  // 1. A decision with two basis items; the engineer accepts one and rejects the other.
  json(await call('remember_decision', e.decision), 'remember_decision');
  const accepted = json(await ask(e.target, e.accept, 'accept'), 'accept');
  expectMatch(accepted, e.expect_accept, `${tool} (accept)`);
  // Nothing left to ask: the form is not shown again.
  expectMatch(json(await ask(e.target, undefined, 'again'), 'again'), e.expect_again, `${tool} (again)`);
  expectMatch(json(await call('recall_decisions', e.recall), 'recall_decisions'), e.expect_recall, 'recall_decisions');
  for (const [uri, want] of Object.entries(e.reads).map(([u, c]) => [substitute(u, spec.vars), c])) {
    const r = await client.readResource({ uri });
    check(r.contents?.length === 1, `resources/read ${uri}: expected one content`);
    const c = r.contents[0];
    check(c.mimeType === want.mimeType, `resources/read ${uri}: mimeType ${c.mimeType}`);
    if (want.json !== undefined) expectMatch(JSON.parse(c.text), want.json, `resources/read ${uri}`);
    for (const needle of want.contains ?? []) check(c.text.includes(needle), `resources/read ${uri}: text lacks ${JSON.stringify(needle)}`);
  }
  summary.push('accept recorded 2 verdicts');

  // 2. Answers that record nothing: an invalid judgement (the clients do not check the content
  // against requestedSchema, the server must), decline, cancel.
  json(await call('remember_decision', e.second), 'remember_decision (second)');
  for (const step of e.refused_answers) {
    const where = step.error !== undefined ? 'invalid' : step.answer.action;
    const r = await ask(e.second_target, step.answer, where);
    if (step.error !== undefined) {
      check(r.isError === true && text(r).includes(step.error), `${where}: expected an isError result naming ${step.error}, got ${JSON.stringify(r)}`);
    } else {
      expectMatch(json(r, where), step.expect, `${tool} (${where})`);
    }
    expectMatch(json(await call('recall_decisions', e.second_recall), 'recall_decisions'), e.expect_unchanged, `recall_decisions after ${where}`);
  }
  summary.push(`${e.refused_answers.map(s => (s.error !== undefined ? 'invalid' : s.answer.action)).join('/')} wrote nothing`);

  // 3. Without the capability.
  const refusedModern = err => {
    check(err !== undefined, 'without the capability: expected a -32021 error, got a result');
    check(err.code === -32021, `without the capability: error ${err.code}: ${err.message}`);
    check(err.data?.requiredCapabilities?.elicitation !== undefined,
      `without the capability: data.requiredCapabilities ${JSON.stringify(err.data)}`);
  };
  if (!legacy && kind === 'v2') {
    // The same session, this one request declaring no capabilities: the v2 client lets a
    // request's own _meta keys win over its envelope.
    const mark = seen.length;
    refusedModern(await errorOf(call(tool, e.second_target, { _meta: { [CLIENT_CAPABILITIES]: {} } })));
    const wire = seen.slice(mark).find(m => m.error !== undefined);
    check(wire?.error?.code === -32021, `without the capability (same session): on the wire ${JSON.stringify(wire)}`);
  }
  const bare = await connectBare();
  try {
    if (legacy) expectRefusal(await bare.callTool({ name: tool, arguments: e.second_target }), `${tool} without the capability`);
    else refusedModern(await errorOf(bare.callTool({ name: tool, arguments: e.second_target })));
  } finally {
    await bare.close();
  }
  summary.push(legacy ? 'no capability: isError' : 'no capability: -32021');
  log(`elicit: ${summary.join('; ')}`);
  return `elicitation: ${summary.join(', ')}`;
}
