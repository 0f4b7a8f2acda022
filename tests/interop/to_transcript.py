"""Converts a recorded session (tee.py's raw form) into a replay transcript (protocol-fixtures/README.md).

Usage: python to_transcript.py RECORDED.jsonl > TRANSCRIPT.jsonl
       python to_transcript.py --mark FOREIGN.json RECORDED.jsonl   (marks foreign lines in place)

Client lines become `send_raw` (byte for byte, newline added back); server lines become
`expect`, with "{{any}}" in place of what legitimately differs between two runs of the same
session: timestamps (`created_at`, `updated_at`, a verdict's `at`), server-generated ids (an `id` or `decision_id` member inside a
result), the server's version and instructions, the text blocks of successful tool results
(they repeat the structuredContent JSON, ids and timestamps included), resource contents'
text and the `description` of resources/list entries (they carry ids and times too), the
review card's proofs (`_meta["review-mcp/card"]`, keyed anew by each server process) and what
names the run's database path (a cancelled form's `other_channels`, an unanswered form's text,
the message of a -32021 that names the engineer's terminal command).

A request that names a server-generated id (e.g. `resources/read review://records/rec_...`)
cannot replay: the replayed server generates other ids and the format has no capture. Such a
request and its answer are left out, and a `comment` line says so.

Notifications caused by another process (the interop notification step has a second server
process write on the same database file) arrive whenever the session's server polls and
notices that write, and a replay against a fresh in-process server cannot bring them. The
client driver knows which they were: it writes FOREIGN.json, {"foreign": [FROM, TO]}, the
range of ordinals (0-based, counting only server notifications whose method is in COUNTED)
that arrived while it waited for them. `--mark` adds "foreign": true to those server lines of
the recording; converting leaves every line so marked out, with a `comment` saying so.
Everything else is kept in the recorded order.
"""

import json
import sys

ANY = "{{any}}"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
# The notifications a driver counts when it names the foreign ones (client.mjs, client.py).
COUNTED = ("notifications/resources/list_changed", "notifications/resources/updated", "notifications/message")


def wildcard_volatile(value, inside_result):
    """Replaces timestamps and generated ids in place; returns the generated ids it saw."""
    seen = set()
    if isinstance(value, dict):
        for k, v in value.items():
            # `history_since`: when the run's database began its history; an event's `after`:
            # a digest of the state it left, which holds verdict times.
            if k in ("created_at", "updated_at", "at", "history_since", "after") and isinstance(v, str):
                value[k] = ANY
            elif k == "other_channels" and isinstance(v, dict):
                # The terminal command names the run's database path.
                for part in ("note", "terminal"):
                    if part in v:
                        v[part] = ANY
            elif k in ("id", "decision_id", "of") and inside_result and isinstance(v, str):
                seen.add(v)
                value[k] = ANY
            else:
                seen |= wildcard_volatile(v, inside_result)
    elif isinstance(value, list):
        for v in value:
            seen |= wildcard_volatile(v, inside_result)
    return seen


def loosen(msg, method):
    """The expectation for one server message; returns (expectation, generated ids in it)."""
    error = msg.get("error")
    if isinstance(error, dict) and "review-mcp review " in str(error.get("message", "")):
        # A request that cannot ask the engineer (-32021) names their terminal command, with
        # the run's database path (and the binary's, when it is on no PATH).
        error["message"] = ANY
    result = msg.get("result")
    if not isinstance(result, dict):
        return msg, set()
    ids = wildcard_volatile(result, True)
    # The ids also appear inside text (tool summaries, resource JSON): collect them from there.
    for block in result.get("content", []) if isinstance(result.get("content"), list) else []:
        if isinstance(block, dict) and block.get("type") == "text" and not result.get("isError"):
            try:
                ids |= wildcard_volatile(json.loads(block["text"]), True)
            except (ValueError, TypeError):
                pass
            block["text"] = ANY
        elif isinstance(block, dict) and "review-mcp review --db " in str(block.get("text", "")):
            # An unanswered form names the terminal command, with the run's database path (and
            # the binary's, when it is on no PATH).
            block["text"] = ANY
    for content in result.get("contents", []) if isinstance(result.get("contents"), list) else []:
        if isinstance(content, dict) and "text" in content:
            try:
                ids |= wildcard_volatile(json.loads(content["text"]), True)
            except (ValueError, TypeError):
                pass
            content["text"] = ANY
    if method == "resources/list":
        for r in result.get("resources", []):
            if isinstance(r, dict) and "description" in r:
                r["description"] = ANY
    info = result.get("serverInfo")
    if isinstance(info, dict) and "version" in info:
        info["version"] = ANY
    meta = result.get("_meta")
    if isinstance(meta, dict) and isinstance(meta.get(SERVER_INFO), dict) and "version" in meta[SERVER_INFO]:
        meta[SERVER_INFO]["version"] = ANY
    if isinstance(meta, dict) and "review-mcp/card" in meta:
        # The review card's proofs: under a key drawn anew by each server process.
        meta["review-mcp/card"] = ANY
    if "instructions" in result:
        result["instructions"] = ANY
    return msg, ids


def convert(lines, source):
    out = [{"comment": f"Recorded from a real client session ({source}) by tests/interop/run.sh --record; "
                       "converted by tests/interop/to_transcript.py."}]
    generated = set()
    methods = {}  # JSON-RPC id (as JSON) of a kept request -> method
    dropped = set()  # JSON-RPC ids (as JSON) of requests left out
    for line in lines:
        entry = json.loads(line)
        raw = entry["raw"]
        if entry["dir"] == "c2s":
            try:
                msg = json.loads(raw)
            except ValueError:
                msg = None
            if isinstance(msg, dict) and "id" in msg and any(g in raw for g in generated):
                dropped.add(json.dumps(msg["id"]))
                out.append({"comment": f"left out: {msg.get('method')} naming a server-generated id"})
                continue
            if isinstance(msg, dict) and "method" in msg and "id" in msg:
                methods[json.dumps(msg["id"])] = msg["method"]
            out.append({"send_raw": raw + "\n"})
        else:
            msg = json.loads(raw)
            if entry.get("foreign"):
                out.append({"comment": f"left out: {msg.get('method')} caused by another process's write on the "
                                       "same database file (a replay cannot bring it)"})
                continue
            key = json.dumps(msg.get("id")) if isinstance(msg, dict) else None
            if key in dropped:
                continue
            expect, ids = loosen(msg, methods.get(key))
            generated |= {i for i in ids if len(i) >= 8}
            out.append({"expect": expect})
    return out


def mark(lines, first, end):
    """The recording with "foreign": true on the counted server notifications first..end-1."""
    out, n = [], 0
    for line in lines:
        entry = json.loads(line)
        if entry["dir"] == "s2c":
            msg = json.loads(entry["raw"])
            if isinstance(msg, dict) and "id" not in msg and msg.get("method") in COUNTED:
                if first <= n < end:
                    entry["foreign"] = True
                n += 1
        out.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
    if n < end:
        raise SystemExit(f"to_transcript.py --mark: only {n} counted notifications, the foreign range ends at {end}")
    return out


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--mark":
        first, end = json.loads(open(sys.argv[2], encoding="utf-8").read())["foreign"]
        with open(sys.argv[3], encoding="utf-8", errors="surrogateescape") as f:
            lines = [line for line in f.read().splitlines() if line.strip()]
        marked = mark(lines, first, end)
        with open(sys.argv[3], "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("".join(line + "\n" for line in marked))
        return 0
    if len(sys.argv) != 2:
        print("usage: to_transcript.py RECORDED.jsonl | --mark FOREIGN.json RECORDED.jsonl", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    for directive in convert(lines, sys.argv[1].rsplit("/", 1)[-1]):
        print(json.dumps(directive, ensure_ascii=False, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
