"""Drives review-mcp over stdio with the official Python MCP client and asserts on every answer.

Usage: python client.py --mode legacy|auto|2026-07-28 [--bulk no] -- SERVER_COMMAND [ARGS...]

The server inherits this process's environment, so the caller sets REVIEW_MCP_DB_PATH to a
fresh database. Exit 0 only when every check held and the client logged no warning or error
and raised no Python warning. The session logic mirrors scenario.mjs (keep the two in step);
the notification step last (scenario.json `notify`) mirrors client.mjs: it spawns
REVIEW_MCP_BIN (else the last word of the server command) as a second server process on the
same database, and names the notifications that process caused in INTEROP_FOREIGN, if set.
"""

import asyncio
import json
import logging
import os
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path
from urllib.parse import quote

import mcp.types
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types.version import LATEST_HANDSHAKE_VERSION
from mcp import Client, StdioServerParameters
from mcp.client import advertise
from mcp.client.stdio import stdio_client
from mcp.client.subscriptions import ResourcesListChanged, ResourceUpdated

HERE = Path(__file__).resolve().parent
MODERN = "2026-07-28"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
LIST = "notifications/resources/list_changed"
UPDATED = "notifications/resources/updated"
# The notifications to_transcript.py counts when a driver names the foreign ones.
COUNTED = (LIST, UPDATED, "notifications/message")


class Failure(Exception):
    pass


class Recorder(logging.Handler):
    """Keeps every WARNING-or-worse record any logger (the client's included) emits."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records = []

    def emit(self, record):
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
        self.records.append(f"log {record.levelname} {record.name}: {text}")


def type_of(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def substitute(value, env):
    if isinstance(value, str):
        whole = re.fullmatch(r"\$\{(\w+)\}", value)
        if whole:
            if whole.group(1) not in env:
                raise Failure(f"scenario uses ${{{whole.group(1)}}} before it is known")
            return env[whole.group(1)]

        def one(m):
            if m.group(1) not in env:
                raise Failure(f"scenario uses ${{{m.group(1)}}} before it is known")
            return str(env[m.group(1)])

        return re.sub(r"\$\{(\w+)\}", one, value)
    if isinstance(value, list):
        return [substitute(v, env) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, env) for k, v in value.items()}
    return value


def same(a, b):
    """JSON equality (True is not 1 here, unlike Python's ==)."""
    return type_of(a) == type_of(b) and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def match(actual, expect, path="$"):
    """The mismatches between actual and the scenario.json pattern expect."""
    if isinstance(expect, dict):
        if "$type" in expect:
            return [] if type_of(actual) == expect["$type"] else [f"{path}: expected a {expect['$type']}, got {json.dumps(actual)}"]
        if "$len" in expect or "$each" in expect:
            if not isinstance(actual, list):
                return [f"{path}: expected an array, got {json.dumps(actual)}"]
            out = []
            if "$len" in expect and len(actual) != expect["$len"]:
                out.append(f"{path}: expected {expect['$len']} items, got {len(actual)}")
            if "$each" in expect:
                for i, a in enumerate(actual):
                    out += match(a, expect["$each"], f"{path}[{i}]")
            return out
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {json.dumps(actual)}"]
        out = []
        for k, e in expect.items():
            if isinstance(e, dict) and e.get("$absent"):
                if k in actual:
                    out.append(f"{path}.{k}: expected absent, got {json.dumps(actual[k])}")
            elif k not in actual:
                out.append(f"{path}.{k}: missing")
            else:
                out += match(actual[k], e, f"{path}.{k}")
        return out
    if isinstance(expect, list):
        if not isinstance(actual, list):
            return [f"{path}: expected an array, got {json.dumps(actual)}"]
        if len(actual) != len(expect):
            return [f"{path}: expected {len(expect)} items, got {len(actual)}"]
        out = []
        for i, e in enumerate(expect):
            out += match(actual[i], e, f"{path}[{i}]")
        return out
    return [] if same(actual, expect) else [f"{path}: expected {json.dumps(expect)}, got {json.dumps(actual)}"]


def dig(value, dotted):
    for k in dotted.split("."):
        value = value.get(k) if isinstance(value, dict) else None
    return value


def dump(model):
    """A result model as the JSON the server sent (wire names, explicit nulls kept)."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def expand_template(template, values, env):
    def one(m):
        v = values.get(m.group(1))
        if isinstance(v, dict):
            word = next((w for w in v if w in template), None)
            v = v.get(word) if word is not None else None
        if not isinstance(v, str):
            raise Failure(f"no value for {{{m.group(1)}}} in template {template}")
        return quote(substitute(v, env), safe=":")

    return re.sub(r"\{(\w+)\}", one, template)


async def run_scenario(client, spec, log, legacy, bulk):
    env = dict(spec["vars"])
    caps = dump(client.server_capabilities)

    async def list_all(fetch, key, method):
        items, cursor = [], None
        for _ in range(101):
            page = dump(await fetch(cursor=cursor))
            if not isinstance(page.get(key), list):
                raise Failure(f"{method}: no {key} array")
            items += page[key]
            cursor = page.get("nextCursor")
            if cursor is None:
                return items
            if not isinstance(cursor, str):
                raise Failure(f"{method}: nextCursor is not a string")
        raise Failure(f"{method}: more than 100 pages")

    # A pinned client synthesizes its discover result, so it knows no capabilities: list anyway
    # (the server serves every list method). Where the capabilities are known, they must say so.
    if caps:
        for cap in ("tools", "prompts", "resources"):
            if cap not in caps:
                raise Failure(f"server capabilities lack {cap}: {json.dumps(caps)}")
    # A legacy session gets `ping` (hosts use it as a keep-alive) and, when the server advertises
    # logging, `logging/setLevel`, as hosts send it. Both are removed in 2026-07-28 (the client's
    # deprecation warnings are about this script's calls, not the server's answers).
    if legacy:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.send_ping()
            if "logging" in caps:
                await client.set_logging_level("debug")
    tools = await list_all(client.list_tools, "tools", "tools/list")
    prompts = await list_all(client.list_prompts, "prompts", "prompts/list")
    templates = await list_all(client.list_resource_templates, "resourceTemplates", "resources/templates/list")
    log(f"offered: {len(tools)} tools, {len(prompts)} prompts, {len(templates)} resource templates")
    names = set()
    for t in tools:
        if t["name"] in names:
            raise Failure(f"tools/list: duplicate tool {t['name']}")
        names.add(t["name"])
        if t.get("inputSchema", {}).get("type") != "object":
            raise Failure(f"tool {t['name']}: inputSchema.type is not \"object\"")
        if "outputSchema" in t and t["outputSchema"].get("type") != "object":
            raise Failure(f"tool {t['name']}: outputSchema.type is not \"object\"")
        if not t.get("description"):
            raise Failure(f"tool {t['name']}: no description")
    # The elicitation step (elicit_step, run after this) covers its own tool.
    covered = {c["tool"] for c in spec["calls"]} | ({spec["elicit"]["tool"]} if "elicit" in spec else set())
    for n in sorted(names - covered):
        raise Failure(f"tool {n} is offered but scenario.json has no step for it")

    calls = 0

    async def call(step, args):
        """One tools/call: checks the result's shape; returns (structuredContent, where), or
        None for an expected isError result."""
        nonlocal calls
        r = dump(await client.call_tool(step["tool"], args))
        calls += 1
        where = f"tools/call {step['tool']} #{calls}"
        content = r.get("content", [])
        text = "\n".join(c.get("text", "") for c in content if c.get("type") == "text")
        if "error" in step:
            if r.get("isError") is not True:
                raise Failure(f"{where}: expected an isError result, got {json.dumps(r)}")
            if step["error"] not in text:
                raise Failure(f"{where}: error text does not mention {step['error']!r}: {text}")
            return None
        if r.get("isError"):
            raise Failure(f"{where}: isError: {text}")
        sc = r.get("structuredContent")
        if not isinstance(sc, dict):
            raise Failure(f"{where}: no structuredContent object")

        def mirrors(c):
            if c.get("type") != "text":
                return False
            try:
                return same(json.loads(c["text"]), sc)
            except ValueError:
                return False

        if not any(mirrors(c) for c in content):
            raise Failure(f"{where}: no text block carries the structuredContent JSON")
        return sc, where

    for step in spec["calls"]:
        if step["tool"] not in names or (step.get("bulk") and not bulk):
            continue
        for i in range(step.get("repeat", 1)):
            if "repeat" in step:
                env["i"] = i
                env["hex_i"] = format(i, "064x")
            args = substitute(step["args"], env)
            if "pages" in step:
                # Follow next_cursor to the end; the pattern applies to all pages together.
                items, cursor, where = [], None, ""
                for _ in range(1001):
                    sc, where = await call(step, args if cursor is None else {**args, "cursor": cursor})
                    if not isinstance(sc.get(step["pages"]), list):
                        raise Failure(f"{where}: no {step['pages']} array")
                    items += sc[step["pages"]]
                    cursor = sc.get("next_cursor")
                    if cursor is None:
                        break
                    if not isinstance(cursor, str):
                        raise Failure(f"{where}: next_cursor is not a string")
                else:
                    raise Failure(f"{step['tool']}: more than 1000 pages")
                ids = [x.get("id") for x in items]
                if len(set(ids)) != len(ids):
                    raise Failure(f"{where}: an item came back twice across pages")
                problems = match(items, substitute(step["expect"], env))
                if problems:
                    raise Failure(f"{where} (all pages): {'; '.join(problems)}")
                continue
            out = await call(step, args)
            if out is None:
                continue
            sc, where = out
            problems = match(sc, substitute(step["expect"], env))
            if problems:
                raise Failure(f"{where}: {'; '.join(problems)}\n  got {json.dumps(sc)}")
            for name, path in step.get("save", {}).items():
                env[name] = dig(sc, path)
    log(f"called tools: {calls} calls over {len(names)} tools")

    resources = await list_all(client.list_resources, "resources", "resources/list")
    if "remember" in names and templates and not resources:
        raise Failure("resources/list is empty after records were written")
    if bulk and templates and "remember" in names and len(resources) != spec["resources_total"]:
        raise Failure(f"resources/list: {len(resources)} resources over all pages, expected {spec['resources_total']}")
    uris = [r["uri"] for r in resources]
    uris += [expand_template(t["uriTemplate"], spec["template_vars"], env) for t in templates]
    reads = {substitute(u, env): c for u, c in spec["reads"].items()}
    seen = set()
    for uri in uris:
        r = dump(await client.read_resource(uri))
        want = reads.get(uri)
        if want is not None:
            seen.add(uri)
            contents = r.get("contents") or []
            if len(contents) != 1:
                raise Failure(f"resources/read {uri}: expected one content, got {len(contents)}")
            c = contents[0]
            if "mimeType" in want and c.get("mimeType") != want["mimeType"]:
                raise Failure(f"resources/read {uri}: mimeType {c.get('mimeType')}, expected {want['mimeType']}")
            if "json" in want:
                problems = match(json.loads(c["text"]), substitute(want["json"], env))
                if problems:
                    raise Failure(f"resources/read {uri}: {'; '.join(problems)}")
            for needle in want.get("contains", []):
                if needle not in c["text"]:
                    raise Failure(f"resources/read {uri}: text lacks {needle!r}")
        if not r.get("contents"):
            raise Failure(f"resources/read {uri}: no contents")
        for c in r["contents"]:
            if not isinstance(c.get("uri"), str):
                raise Failure(f"resources/read {uri}: a content has no uri")
            if not isinstance(c.get("text"), str) and not isinstance(c.get("blob"), str):
                raise Failure(f"resources/read {uri}: content without text or blob")
            if c.get("mimeType") == "application/json":
                try:
                    json.loads(c["text"])
                except ValueError as e:
                    raise Failure(f"resources/read {uri}: application/json content does not parse: {e}") from e
    if templates:
        for uri in reads:
            if uri not in seen:
                raise Failure(f"resources/read: {uri} was never read")
    log(f"read resources: {len(resources)} listed, {len(templates)} from templates")

    arg_values = spec["prompt_args"]
    for p in prompts:
        declared = p.get("arguments") or []

        def value(a):
            return substitute(arg_values.get(a["name"], arg_values["default"]), env)

        required = {a["name"]: value(a) for a in declared if a.get("required")}
        every = {a["name"]: value(a) for a in declared}
        for args in (required, every):
            r = dump(await client.get_prompt(p["name"], args))
            where = f"prompts/get {p['name']} {sorted(args)}"
            if not r.get("messages"):
                raise Failure(f"{where}: no messages")
            for m in r["messages"]:
                if m.get("role") not in ("user", "assistant"):
                    raise Failure(f"{where}: role {m.get('role')}")
                if m.get("content", {}).get("type") == "text" and not m["content"].get("text"):
                    raise Failure(f"{where}: empty text message")
    log(f"got prompts: {len(prompts)}")

    # Error answers, as the client surfaces them. Only for the features the server offers.
    offered = {"readResource": bool(templates), "getPrompt": bool(prompts), "callTool": bool(names)}
    errors = 0
    for e in spec["errors"]:
        if not offered[e["call"]]:
            continue
        want = e["legacy"] if legacy else e["modern"]
        what = f"{e['call']} {e.get('uri') or e['name']}"
        try:
            if e["call"] == "readResource":
                await client.read_resource(e["uri"], cache_mode="bypass")
            elif e["call"] == "getPrompt":
                await client.get_prompt(e["name"], e["arguments"])
            else:
                await client.call_tool(e["name"], e["arguments"])
        except MCPError as err:
            if err.code != want:
                raise Failure(f"{what}: expected error {want}, got {err.code}: {err.message}") from err
            errors += 1
            continue
        raise Failure(f"{what}: expected error {want}, got a result")
    log(f"error answers: {errors}")
    return f"{calls} tool calls, {len(uris)} resource reads, {2 * len(prompts)} prompt gets, {errors} error answers"


class ElicitationAnswers:
    """The elicitation callback: answers each request with the next queued answer (an ElicitResult
    as a dict) and keeps the params of every request it got."""

    def __init__(self):
        self.next = []
        self.asked = []

    async def __call__(self, context, params):
        self.asked.append(params)
        if not self.next:
            return mcp.types.ErrorData(code=mcp.types.INVALID_REQUEST, message="elicitation/create came when the step expected none")
        return mcp.types.ElicitResult.model_validate(self.next.pop(0))


async def elicit_step(client, spec, version, answers, binary, stderr_file, log):
    """request_verdicts through the client's elicitation callback; a second client without the
    callback (on the plain server binary, not the tee) must be refused."""
    e = substitute(spec["elicit"], spec["vars"])
    tool = e["tool"]
    modern = version == MODERN

    def fail(what):
        raise Failure(f"elicit: {what}")

    def text(r):
        return "\n".join(c.get("text", "") for c in r.get("content", []) if c.get("type") == "text")

    def sc_of(r, where):
        """The tool's structuredContent, which one text block must carry too."""
        if r.get("isError"):
            fail(f"{where}: isError: {text(r)}")
        sc = r.get("structuredContent")
        if not isinstance(sc, dict):
            fail(f"{where}: no structuredContent object")

        def mirrors(c):
            try:
                return c.get("type") == "text" and same(json.loads(c["text"]), sc)
            except ValueError:
                return False

        if not any(mirrors(c) for c in r.get("content", [])):
            fail(f"{where}: no text block carries the structuredContent JSON")
        return sc

    def expect(actual, pattern, where):
        problems = match(actual, pattern)
        if problems:
            fail(f"{where}: {'; '.join(problems)}\n  got {json.dumps(actual)}")

    def check_params(params, where):
        """The elicitation request as the callback got it (a parsed model: mode defaults to "form",
        so its absence cannot be seen here; both revisions the Python client speaks have it)."""
        if not isinstance(params, mcp.types.ElicitRequestFormParams):
            fail(f"{where}: not a form elicitation: {params!r}")
        if not params.message:
            fail(f"{where}: elicitation without a message")
        if where == "accept":
            expect(params.requested_schema, e["requested_schema"], f"{where}: requestedSchema")

    async def ask(args, answer, where):
        """One request_verdicts call, answered through the callback (answer None: not called)."""
        before = len(answers.asked)
        if answer is not None:
            answers.next.append(answer)
        r = dump(await client.call_tool(tool, args))
        got = len(answers.asked) - before
        if answers.next or got != (0 if answer is None else 1):
            fail(f"{where}: the elicitation callback was called {got} times")
        if answer is not None:
            check_params(answers.asked[-1], where)
        return r

    def expect_refusal(r, where):
        if not r.get("isError"):
            fail(f"{where}: expected an isError result, got {json.dumps(r)}")
        if e["refusal"] not in text(r):
            fail(f"{where}: the refusal does not mention {e['refusal']!r}: {text(r)}")

    summary = []
    # 1. Two basis items; the engineer accepts one and rejects the other.
    sc_of(dump(await client.call_tool("remember_decision", e["decision"])), "remember_decision")
    expect(sc_of(await ask(e["target"], e["accept"], "accept"), "accept"), e["expect_accept"], f"{tool} (accept)")
    expect(sc_of(await ask(e["target"], None, "again"), "again"), e["expect_again"], f"{tool} (again)")
    expect(sc_of(dump(await client.call_tool("recall_decisions", e["recall"])), "recall_decisions"), e["expect_recall"],
           "recall_decisions")
    for uri, want in e["reads"].items():
        uri = substitute(uri, spec["vars"])
        contents = dump(await client.read_resource(uri, cache_mode="bypass")).get("contents") or []
        if len(contents) != 1:
            fail(f"resources/read {uri}: expected one content, got {len(contents)}")
        c = contents[0]
        if c.get("mimeType") != want["mimeType"]:
            fail(f"resources/read {uri}: mimeType {c.get('mimeType')}")
        if "json" in want:
            expect(json.loads(c["text"]), want["json"], f"resources/read {uri}")
        for needle in want.get("contains", []):
            if needle not in c["text"]:
                fail(f"resources/read {uri}: text lacks {needle!r}")
    summary.append("accept recorded 2 verdicts")

    # 2. Answers that record nothing: an invalid judgement (no client checks the content against
    # requestedSchema: the server must), decline, cancel.
    sc_of(dump(await client.call_tool("remember_decision", e["second"])), "remember_decision (second)")
    for step in e["refused_answers"]:
        where = "invalid" if "error" in step else step["answer"]["action"]
        r = await ask(e["second_target"], step["answer"], where)
        if "error" in step:
            if not r.get("isError") or step["error"] not in text(r):
                fail(f"{where}: expected an isError result naming {step['error']}, got {json.dumps(r)}")
        else:
            expect(sc_of(r, where), step["expect"], f"{tool} ({where})")
        expect(sc_of(dump(await client.call_tool("recall_decisions", e["second_recall"])), "recall_decisions"),
               e["expect_unchanged"], f"recall_decisions after {where}")
    if modern:
        # The manual multi-round-trip path, once: the InputRequiredResult as the server sent it,
        # answered by hand (the callback is not involved), the requestState echoed.
        first = await client.session.call_tool(tool, e["second_target"], allow_input_required=True)
        if not isinstance(first, mcp.types.InputRequiredResult):
            fail(f"manual: expected an InputRequiredResult, got {first!r}")
        if list(first.input_requests or {}) != ["verdicts"] or not isinstance(first.request_state, str):
            fail(f"manual: inputRequests {list(first.input_requests or {})}, requestState {first.request_state!r}")
        req = first.input_requests["verdicts"]
        if not isinstance(req, mcp.types.ElicitRequest):
            fail(f"manual: inputRequests.verdicts is {req!r}")
        check_params(req.params, "manual")
        final = await client.session.call_tool(
            tool, e["second_target"], allow_input_required=True, request_state=first.request_state,
            input_responses={"verdicts": mcp.types.ElicitResult(action="decline")},
        )
        if not isinstance(final, mcp.types.CallToolResult):
            fail(f"manual retry: expected a CallToolResult, got {final!r}")
        expect(sc_of(dump(final), "manual retry"), e["refused_answers"][1]["expect"], f"{tool} (manual decline)")
    summary.append("invalid/decline/cancel wrote nothing" + ("; manual retry" if modern else ""))

    # 3. A client without the callback declares no elicitation capability.
    params = StdioServerParameters(command=binary, args=[], env=dict(os.environ))
    async with Client(stdio_client(params, errlog=stderr_file), mode="legacy" if not modern else client.mode,
                      client_info=mcp.types.Implementation(name="review-mcp-interop-python-no-elicitation",
                                                           version="1.0.0")) as bare:
        if modern:
            try:
                await bare.call_tool(tool, e["second_target"])
            except MCPError as err:
                data = err.data if isinstance(err.data, dict) else {}
                if err.code != -32021 or "elicitation" not in (data.get("requiredCapabilities") or {}):
                    fail(f"without the capability: error {err.code} {err.message} {json.dumps(err.data)}")
            else:
                fail("without the capability: expected a -32021 error, got a result")
        else:
            expect_refusal(dump(await bare.call_tool(tool, e["second_target"])), f"{tool} without the capability")
    summary.append("no capability: -32021" if modern else "no capability: isError")
    log(f"elicit: {'; '.join(summary)}")
    return f"elicitation: {', '.join(summary)}"


async def second_process_write(binary, arguments, stderr_file):
    """The second process of the notification step: the server binary itself (not the tee), on
    the same database file (REVIEW_MCP_DB_PATH, inherited), driven with raw JSON lines:
    initialize, notifications/initialized, tools/call remember, then its input is closed.
    Returns the time (time.perf_counter()) its tools/call answer was read."""
    proc = await asyncio.create_subprocess_exec(
        binary, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr_file, env=dict(os.environ)
    )

    async def request(rid, method, params):
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n").encode())
        await proc.stdin.drain()
        while True:
            try:
                line = await asyncio.wait_for(proc.stdout.readline(), timeout=10)
            except asyncio.TimeoutError:
                proc.kill()
                raise Failure(f"second process ({binary}): no answer to {method} within 10 s") from None
            if not line:
                raise Failure(f"second process ({binary}): exited before answering {method}")
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict) and msg.get("id") == rid:
                return msg

    init = await request(1, "initialize", {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "review-mcp-interop-second-process", "version": "1.0.0"},
    })
    if "result" not in init:
        raise Failure(f"second process: initialize failed: {json.dumps(init)}")
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    answer = await request(2, "tools/call", {"name": "remember", "arguments": arguments})
    answered_at = time.perf_counter()
    if "result" not in answer or answer["result"].get("isError"):
        raise Failure(f"second process: tools/call remember failed: {json.dumps(answer)}")
    proc.stdin.close()
    try:
        code = await asyncio.wait_for(proc.wait(), timeout=5)
    except asyncio.TimeoutError:
        proc.kill()
        raise Failure("second process: did not exit within 5 s of its input closing") from None
    if code != 0:
        raise Failure(f"second process: exited with {code}")
    return answered_at


def server_binary(command, args):
    """The server binary for the second process: REVIEW_MCP_BIN, else the last word of the server command."""
    return os.environ.get("REVIEW_MCP_BIN") or (args[-1] if args else command)


async def wait_for(pred, seconds):
    """Polls pred every 5 ms for up to `seconds`; returns its first truthy value, or its last value."""
    end = time.perf_counter() + seconds
    while True:
        v = pred()
        if v or time.perf_counter() >= end:
            return v
        await asyncio.sleep(0.005)


async def notify_step(client, spec, legacy, notes, binary, stderr_file, log):
    """The notification step (scenario.json `notify`), as client.mjs does it: the session's own
    write, then one by a second server process on the same file, must each bring list_changed
    and updated for the subscribed revision within wait_ms. `notes` is what message_handler
    received: (time, notification as on the wire). Legacy subscribes with subscribe_resource;
    2026-07-28 opens one stream with Client.listen(resources_list_changed=True,
    resource_subscriptions=[uri]), whose typed events must arrive too."""
    n = substitute(spec["notify"], spec["vars"])
    uri, wait = n["uri"], n["wait_ms"] / 1000

    def fail(what):
        raise Failure(f"notify: {what}")

    def counted():
        return sum(1 for _, m in notes if m.get("method") in COUNTED)

    stream = None
    events = []  # (time, event) from the listen stream's iterator (2026-07-28)

    def arrival(mark, method):
        for t, m in notes[mark:]:
            if m.get("method") != method or (method == UPDATED and m.get("params", {}).get("uri") != uri):
                continue
            sid = (m.get("params") or {}).get("_meta", {}).get(SUBSCRIPTION_ID)
            if sid != stream:
                fail(f"{method} came with subscriptionId {sid!r}, expected {stream!r}")
            return t
        return None

    async def expect_both(mark, start, since, what):
        got = await wait_for(lambda: arrival(mark, LIST) is not None and arrival(mark, UPDATED) is not None,
                             max(0.0, since + wait - time.perf_counter()))
        if not got:
            fail(f"{what}: within {n['wait_ms']} ms expected {LIST} ({'seen' if arrival(mark, LIST) else 'missing'}) "
                 f"and {UPDATED} {uri} ({'seen' if arrival(mark, UPDATED) else 'missing'})")
        if not legacy:
            # The typed events of Client.listen() came too.
            for kind, want in (("ResourcesListChanged", ResourcesListChanged()), ("ResourceUpdated", ResourceUpdated(uri=uri))):
                if not await wait_for(lambda: any(t >= start and e == want for t, e in events), 0.2):
                    fail(f"{what}: the listen stream's iterator yielded no {kind}")
        return (arrival(mark, LIST) - since) * 1000, (arrival(mark, UPDATED) - since) * 1000

    async def steps():
        mark, since = len(notes), time.perf_counter()
        r = dump(await client.call_tool("remember", n["session_write"]))
        if r.get("isError"):
            fail(f"session write: isError: {json.dumps(r)}")
        own = await expect_both(mark, since, since, "session write")
        # The second process; the session sends nothing while its notifications are awaited.
        # Which notifications it caused goes to INTEROP_FOREIGN (if set) for the recording: a
        # replay cannot bring them (see to_transcript.py --mark).
        mark, spawned = len(notes), time.perf_counter()
        foreign_from = counted()
        answered = await second_process_write(binary, n["second_write"], stderr_file)
        foreign = await expect_both(mark, spawned, answered, "second process write")
        if os.environ.get("INTEROP_FOREIGN"):
            Path(os.environ["INTEROP_FOREIGN"]).write_text(json.dumps({"foreign": [foreign_from, counted()]}) + "\n")
        return own, foreign

    if legacy:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await client.subscribe_resource(uri)
            own, foreign = await steps()
            await client.unsubscribe_resource(uri)
    else:
        async with client.listen(resources_list_changed=True, resource_subscriptions=[uri]) as sub:
            stream = sub.subscription_id
            honored = sub.honored.model_dump(mode="json", by_alias=True, exclude_none=True)
            want = {"resourcesListChanged": True, "resourceSubscriptions": [uri]}
            if honored != want:
                fail(f"listen honoured {json.dumps(honored)}, expected {json.dumps(want)}")

            async def consume():
                async for event in sub:
                    events.append((time.perf_counter(), event))

            consumer = asyncio.create_task(consume())
            try:
                own, foreign = await steps()
            finally:
                consumer.cancel()
        try:
            await consumer
        except asyncio.CancelledError:
            pass
    ms = lambda x: f"{round(x)} ms"  # noqa: E731
    log(f"notify: session write -> list_changed {ms(own[0])}, updated {ms(own[1])}; "
        f"second process write -> list_changed {ms(foreign[0])}, updated {ms(foreign[1])} after its answer")
    return f"notifications: own write {ms(own[0])}/{ms(own[1])}, second process {ms(foreign[0])}/{ms(foreign[1])} (list_changed/updated)"


async def ui_step(client, mode, binary, stderr_file, log):
    """The UI-extension step (MCP Apps, the review card), as client.mjs's uiStep: the session
    declared nothing, so show_review has its `_meta.ui` link (a host may render the card without
    declaring the extension), record_verdict is not listed and its call without the card's
    proof is an isError result. A second client, same mode, advertises
    `io.modelcontextprotocol/ui` and talks to the binary directly on a database of its own (its
    writes stay out of the session's transcript): it sees both links, reads the card, and a
    record_verdict it sends with the item's digest and the card's proof from show_review's
    `_meta` is recorded via "app"; one with another item's digest is refused."""
    app, card = "text/html;profile=mcp-app", "ui://review-mcp/review-card"
    tools = dump(await client.list_tools(cache_mode="bypass"))["tools"]
    if any(t["name"] == "record_verdict" for t in tools):
        raise Failure("ui: record_verdict listed to a client that declared no UI extension")
    if not any(t["name"] == "show_review" and ((t.get("_meta") or {}).get("ui") or {}).get("resourceUri") == card for t in tools):
        raise Failure("ui: show_review links no card for a client that declared no UI extension")
    bare = dump(await client.call_tool("record_verdict", {"decision_id": "dec_none", "index": 0, "item_digest": "0" * 32, "judgement": "accepted"}))
    text = (bare.get("content") or [{}])[0].get("text", "")
    if not bare.get("isError") or "carries no card_proof" not in text:
        raise Failure(f"ui: record_verdict without the card's proof answered {bare!r}")

    env = dict(os.environ, REVIEW_MCP_DB_PATH=os.environ.get("REVIEW_MCP_DB_PATH", "review") + ".ui.db")
    async with Client(
        stdio_client(StdioServerParameters(command=binary, args=[], env=env), errlog=stderr_file),
        mode=mode,
        extensions=[advertise("io.modelcontextprotocol/ui", {"mimeTypes": [app]})],
        client_info=mcp.types.Implementation(name="review-mcp-interop-ui-host", version="1.0.0"),
    ) as host:
        listed = {t["name"]: t for t in dump(await host.list_tools(cache_mode="bypass"))["tools"]}
        show = (listed.get("show_review", {}).get("_meta") or {}).get("ui", {})
        record = (listed.get("record_verdict", {}).get("_meta") or {}).get("ui", {})
        if show.get("resourceUri") != card or record.get("resourceUri") != card or record.get("visibility") != ["app"]:
            raise Failure(f"ui: links are {show!r} and {record!r}")
        contents = dump(await host.read_resource(card))["contents"]
        if contents[0].get("mimeType") != app or not contents[0].get("text", "").startswith("<!DOCTYPE html>"):
            raise Failure("ui: the card is not an mcp-app HTML document")
        artifact = {"revision": "sha256:" + "d" * 64, "format": "step", "uri": "/work/ui.step"}
        saved = dump(await host.call_tool("remember_decision", {
            "artifact": artifact, "subject": "ui step", "disposition": "hold",
            "basis": [{"requirement": "Bore 12H7", "source": "drawing", "state": "unresolved", "question": "which reamer?"}],
        }))
        decision_id = saved["structuredContent"]["decision"]["id"]
        # The card sends back the digest show_review gave the item it showed.
        shown = dump(await host.call_tool("show_review", {"artifact": artifact, "detail": "full"}))
        digest = shown["structuredContent"]["decisions"][0]["basis"][0].get("digest")
        if not isinstance(digest, str):
            raise Failure(f"ui: show_review gave no basis digest: {shown!r}")
        # ... and the proof show_review gave the card in the result's _meta.
        proof = ((shown.get("_meta") or {}).get("review-mcp/card") or {}).get("proofs", {}).get(decision_id)
        if not isinstance(proof, str):
            raise Failure(f"ui: show_review gave no card proof: {shown.get('_meta')!r}")
        verdict = dump(await host.call_tool("record_verdict", {
            "decision_id": decision_id, "index": 0, "item_digest": digest, "judgement": "accepted",
            "card_proof": proof}))
        if verdict.get("isError") or verdict["structuredContent"]["verdict"]["via"] != "app":
            raise Failure(f"ui: record_verdict answered {verdict!r}")
        # A click on an item that is not (or no longer) the one shown is refused.
        moved = dump(await host.call_tool("record_verdict", {
            "decision_id": decision_id, "index": 0, "item_digest": "0" * 32, "judgement": "rejected",
            "card_proof": proof}))
        text = (moved.get("content") or [{}])[0].get("text", "")
        if not moved.get("isError") or not text.startswith("The decision changed since the card showed it"):
            raise Failure(f"ui: a click on another item answered {moved!r}")
    log("ui: undeclared sees the card link, not record_verdict, and a call without the proof is refused; declared sees both and records via app with the proof")
    return "ui extension negotiated both ways"


async def run(mode, bulk, command, args, problems, stderr_file):
    spec = json.loads((HERE / "scenario.json").read_text())
    notes = []  # (time, notification as on the wire) for every notification message_handler gets

    async def on_message(message):
        if isinstance(message, Exception):
            problems.append(f"message_handler got an exception: {type(message).__name__}: {message}")
        else:
            notes.append((time.perf_counter(), message.model_dump(mode="json", by_alias=True, exclude_none=True)))

    # The elicitation callback: the client declares elicitation {form, url} because it has one.
    answers = ElicitationAnswers()
    params = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    async with Client(
        stdio_client(params, errlog=stderr_file),
        mode=mode,
        message_handler=on_message,
        # Modern connections: stamp the per-request `_meta` logLevel opt-in on every request.
        log_level="debug",
        elicitation_callback=answers,
        client_info=mcp.types.Implementation(name="review-mcp-interop-python", version="1.0.0"),
    ) as client:
        version = client.protocol_version
        want = LATEST_HANDSHAKE_VERSION if mode == "legacy" else MODERN
        if version != want:
            raise Failure(f"negotiated {version}, expected {want}")
        info = client.server_info
        if info is None and mode == MODERN:
            # A pinned client adopts a synthesized discover result without a probe, so the
            # server's identity is only on each result's _meta: take it from the first list.
            meta = dump(await client.list_tools(cache_mode="bypass")).get("_meta", {})
            info = mcp.types.Implementation.model_validate(meta.get("io.modelcontextprotocol/serverInfo", {}))
        if info is None or info.name != "review-mcp":
            raise Failure(f"serverInfo is {info!r}, expected name review-mcp")
        print(f"connected: python {mode} -> {version}, server {info.name} {info.version}", flush=True)
        summary = await run_scenario(client, spec, lambda m: print(m, flush=True), mode == "legacy", bulk)
        elicited = "elicitation: no step"
        if "elicit" in spec:
            elicited = await elicit_step(client, spec, version, answers, server_binary(command, args), stderr_file,
                                         lambda m: print(m, flush=True))
        notified = await notify_step(client, spec, mode == "legacy", notes, server_binary(command, args), stderr_file,
                                     lambda m: print(m, flush=True))
        ui = await ui_step(client, mode, server_binary(command, args), stderr_file, lambda m: print(m, flush=True))
        print(f"summary: {version}; {summary}; {elicited}; {notified}; {ui}", flush=True)


def describe(e):
    """One line per leaf exception, so a failure inside a task group says what it was."""
    if isinstance(e, BaseExceptionGroup):
        return "; ".join(describe(x) for x in e.exceptions)
    return f"{type(e).__name__}: {e}"


def main():
    argv = sys.argv[1:]
    sep = argv.index("--") if "--" in argv else -1
    opts = dict(zip(argv[0:sep:2], argv[1:sep:2])) if sep > 0 else {}
    if sep < 0 or sep % 2 or "--mode" not in opts or sep + 1 >= len(argv) or set(opts) - {"--mode", "--bulk"}:
        print("usage: client.py --mode legacy|auto|2026-07-28 [--bulk no] -- SERVER...", file=sys.stderr)
        return 2
    mode, bulk, command, args = opts["--mode"], opts.get("--bulk") != "no", argv[sep + 1], argv[sep + 2 :]
    recorder = Recorder()
    logging.getLogger().addHandler(recorder)
    problems = []
    with tempfile.TemporaryFile("w+") as stderr_file, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            asyncio.run(asyncio.wait_for(run(mode, bulk, command, args, problems, stderr_file), timeout=60))
        except Exception as e:  # every failure is reported the same way, with its type
            problems.append(f"error: {describe(e)}")
        problems += recorder.records
        problems += [f"warning {w.category.__name__}: {w.message}" for w in caught]
        if problems:
            stderr_file.seek(0)
            print(f"server stderr:\n{stderr_file.read()}")
            for p in problems:
                print(f"PROBLEM: {p}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
