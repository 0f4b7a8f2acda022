"""Validates every server line of recorded sessions against the official schema.json of its revision.

Usage: python schema_check.py SCHEMA_DIR WIRE.jsonl...

Each WIRE file is one server process as tee.py recorded it ({"dir":"c2s"|"s2c","raw":...}).
A client line that carries the modern `_meta` envelope makes the answer to it a 2026-07-28
message; everything else belongs to the legacy session that `initialize` negotiated. A server
message is checked against the JSON-RPC envelope of its revision and, for a result, against the
result definition of the method it answers (`tools/list` -> ListToolsResult ...), the same
mapping tests/it/schema_validation.rs uses for the transcripts; a notification is checked against
the JSON-RPC envelope and the definition of its method (`notifications/resources/updated` ->
ResourceUpdatedNotification ...). A notification on a 2026-07-28 `subscriptions/listen` stream
(its `_meta` names the stream's subscriptionId, the listen request's id) belongs to the revision
of that listen request. Prints one line per problem; exit 1 if there is any.
"""

import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator, Draft7Validator

MODERN = "2026-07-28"
ENVELOPE_KEY = "io.modelcontextprotocol/protocolVersion"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
SKIP = {"ClientRequest", "ClientNotification", "ClientResult", "ServerRequest", "ServerNotification", "ServerResult"}


class Revision:
    def __init__(self, path):
        doc = json.loads(path.read_text())
        self.key = "$defs" if "$defs" in doc else "definitions"
        self.doc = doc
        self.defs = doc[self.key]
        self.cls = Draft202012Validator if "2020-12" in doc.get("$schema", "") else Draft7Validator
        self.result_defs = {}
        self.request_defs = {}
        self.notification_defs = {}
        self.error_defs = {}
        for name, d in self.defs.items():
            if name in SKIP:
                continue
            props = d.get("properties", {})
            method = props.get("method", {}).get("const")
            if method and name.endswith("Request") and f"{name[:-7]}Result" in self.defs:
                self.result_defs[method] = f"{name[:-7]}Result"
            if method and name.endswith("Request"):
                self.request_defs[method] = name
            if method and name.endswith("Notification"):
                self.notification_defs[method] = name
            for part in props.get("error", {}).get("allOf", []):
                code = part.get("properties", {}).get("code", {}).get("const")
                if isinstance(code, int):
                    self.error_defs[code] = name
        self.validators = {}

    def errors(self, name, instance):
        if name not in self.validators:
            schema = {"$schema": self.doc.get("$schema"), "$ref": f"#/{self.key}/{name}", self.key: self.defs}
            self.validators[name] = self.cls(schema)
        return [f"{name}{'/' + '/'.join(map(str, e.absolute_path)) if e.absolute_path else ''}: {e.message[:200]}"
                for e in self.validators[name].iter_errors(instance)]

    def check(self, msg, method):
        if "method" in msg and "id" not in msg:
            out = self.errors("JSONRPCNotification", msg)
            if msg["method"] in self.notification_defs:
                out += self.errors(self.notification_defs[msg["method"]], msg)
            return out
        if "method" in msg:
            # A server-to-client request (elicitation/create in legacy sessions): its definition too.
            out = self.errors("JSONRPCRequest", msg)
            if msg["method"] in self.request_defs:
                out += self.errors(self.request_defs[msg["method"]], msg)
            return out
        if "error" in msg:
            code = msg["error"].get("code") if isinstance(msg["error"], dict) else None
            name = self.error_defs.get(code) or (
                "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in self.defs else "JSONRPCError")
            return self.errors(name, msg)
        envelope = "JSONRPCResultResponse" if "JSONRPCResultResponse" in self.defs else "JSONRPCResponse"
        out = self.errors(envelope, msg)
        if method in self.result_defs:
            result = msg.get("result")
            name = self.result_defs[method]
            # 2026-07-28: tools/call (prompts/get, resources/read) may answer InputRequiredResult.
            if isinstance(result, dict) and result.get("resultType") == "input_required" and "InputRequiredResult" in self.defs:
                name = "InputRequiredResult"
                # Each request the client must fulfil, against its own definition (InputRequest is
                # an anyOf, which says little about which of its members failed).
                requests = result.get("inputRequests")
                for key, req in (requests.items() if isinstance(requests, dict) else []):
                    req_method = req.get("method") if isinstance(req, dict) else None
                    if req_method in self.request_defs:
                        out += [f"inputRequests/{key}: {e}" for e in self.errors(self.request_defs[req_method], req)]
            out += self.errors(name, result)
        return out


def main():
    if len(sys.argv) < 3:
        print("usage: schema_check.py SCHEMA_DIR WIRE.jsonl...", file=sys.stderr)
        return 2
    schema_dir = Path(sys.argv[1])
    revisions = {}

    def revision(v):
        if v not in revisions:
            path = schema_dir / v / "schema.json"
            if not path.is_file():
                return None
            revisions[v] = Revision(path)
        return revisions[v]

    problems = 0
    checked = 0
    for wire in sys.argv[2:]:
        pending = {}  # request id (as JSON) -> (method, version)
        listens = {}  # subscriptions/listen request id (as JSON) -> version
        legacy = None
        for n, line in enumerate(Path(wire).read_text().splitlines(), 1):
            entry = json.loads(line)
            try:
                msg = json.loads(entry["raw"])
            except ValueError:
                continue  # not JSON: nothing to validate (the server never sends such a line)
            if not isinstance(msg, dict):
                continue
            if entry["dir"] == "c2s":
                if "method" in msg and "id" in msg:
                    meta = (msg.get("params") or {}).get("_meta") or {}
                    version = meta.get(ENVELOPE_KEY) if isinstance(meta, dict) else None
                    if msg["method"] == "initialize" and "protocolVersion" in (msg.get("params") or {}):
                        version = None
                    pending[json.dumps(msg["id"])] = (msg["method"], version)
                    if msg["method"] == "subscriptions/listen":
                        listens[json.dumps(msg["id"])] = version
                continue
            key = json.dumps(msg.get("id"))
            method, version = pending.pop(key, (None, None))
            meta = (msg.get("params") or {}).get("_meta") if isinstance(msg.get("params"), dict) else None
            if "id" not in msg and isinstance(meta, dict) and SUBSCRIPTION_ID in meta:
                version = listens.get(json.dumps(meta[SUBSCRIPTION_ID]))
            if method == "initialize" and isinstance(msg.get("result"), dict):
                legacy = msg["result"].get("protocolVersion")
            version = version or legacy
            if version is None:
                print(f"{wire}:{n}: no revision known for this server message")
                problems += 1
                continue
            rev = revision(version)
            if rev is None:
                print(f"{wire}:{n}: no schema.json for revision {version}")
                problems += 1
                continue
            checked += 1
            for err in rev.check(msg, method):
                print(f"{wire}:{n}: {method or msg.get('method')} ({version}): {err}")
                problems += 1
    print(f"schema: {checked} server messages checked, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
