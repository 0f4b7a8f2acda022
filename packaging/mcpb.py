#!/usr/bin/env python3
"""The JSON and zip work of build-mcpb.sh, in the standard library only (Python 3.8+).

    mcpb.py manifest --bin BIN --template T --version V --platform P --out FILE
        Writes the bundle's manifest.json: the template with its @VERSION@, @PLATFORM@,
        @TOOLS@ and @PROMPTS@ placeholders filled. Tools and prompts are what the binary
        itself answers to tools/list and prompts/list (nothing is hand-written), so the
        manifest cannot drift from the server it ships with.
    mcpb.py zip --stage DIR --out FILE
        Zips DIR into FILE reproducibly: sorted entries, fixed timestamps, Unix modes kept
        (the official `mcpb unpack` and Claude Desktop restore the executable bit from them).
    mcpb.py server-json --file server.json --version V --bundle FILE
        Writes the version, the release-asset URL and the fileSha256 of FILE into the mcpb
        package of server.json whose asset name has the same platform suffix.

A prompt's `text` in a manifest is one template with `${arguments.NAME}` placeholders. The
server's own text is taken from prompts/get with every argument given: each text argument is
passed as its placeholder, and `revision` (which must be sha256: + 64 hex) as a sentinel
digest that is then replaced by its placeholder. A host that fills the placeholders gets the
text the server answers for those arguments (values without JSON-special characters; the
server escapes a `uri` inside the artifact JSON it quotes). Hosts that call prompts/get get
the server's answer itself.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

SENTINEL_REVISION = "sha256:" + "0" * 64
# The handshake revision the hosts of today negotiate; the lists are the same in every era.
PROTOCOL_VERSION = "2025-11-25"


def rpc_lines(extra):
    lines = [
        {"jsonrpc": "2.0", "id": "init", "method": "initialize",
         "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                    "clientInfo": {"name": "build-mcpb", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    lines.extend(extra)
    return "".join(json.dumps(line) + "\n" for line in lines)


def ask(binary, requests):
    """Sends the handshake and `requests` to a fresh server; returns {id: result}.

    Runs in an empty temporary directory with the database pointed into it, and checks that
    nothing was created there: listing needs no database."""
    with tempfile.TemporaryDirectory(prefix="build-mcpb-") as tmp:
        env = dict(os.environ)
        env["REVIEW_MCP_DB_PATH"] = os.path.join(tmp, "review.db")
        env["MCP_LOG_LEVEL"] = "warn"
        proc = subprocess.run([binary], input=rpc_lines(requests), capture_output=True,
                              text=True, cwd=tmp, env=env, timeout=60)
        if proc.returncode != 0:
            sys.exit(f"mcpb.py: {binary} exited with {proc.returncode}: {proc.stderr}")
        left = os.listdir(tmp)
        if left:
            sys.exit(f"mcpb.py: listing created files: {left}")
    results = {}
    for line in proc.stdout.splitlines():
        message = json.loads(line)
        if "error" in message:
            sys.exit(f"mcpb.py: {message['id']}: {message['error']}")
        results[message["id"]] = message["result"]
    return results


def listed(binary):
    """Every tool and prompt, following nextCursor until it is absent."""
    tools, prompts = [], []
    for method, key, into in (("tools/list", "tools", tools), ("prompts/list", "prompts", prompts)):
        cursor = None
        while True:
            params = {"cursor": cursor} if cursor else {}
            result = ask(binary, [{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}])[1]
            into.extend(result[key])
            cursor = result.get("nextCursor")
            if not cursor:
                break
    return tools, prompts


def prompt_text(binary, prompt):
    args = {}
    for arg in prompt.get("arguments", []):
        name = arg["name"]
        args[name] = SENTINEL_REVISION if name == "revision" else "${arguments.%s}" % name
    result = ask(binary, [{"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                           "params": {"name": prompt["name"], "arguments": args}}])[1]
    texts = []
    for message in result["messages"]:
        content = message["content"]
        if content.get("type") != "text":
            sys.exit(f"mcpb.py: prompt {prompt['name']} has non-text content")
        texts.append(content["text"])
    return "\n\n".join(texts).replace(SENTINEL_REVISION, "${arguments.revision}")


def manifest(opts):
    tools, prompts = listed(opts.bin)
    with open(opts.template, encoding="utf-8") as f:
        out = json.load(f)
    if out["version"] != "@VERSION@" or out["tools"] != "@TOOLS@" or out["prompts"] != "@PROMPTS@":
        sys.exit("mcpb.py: the template lost a placeholder")
    out["version"] = opts.version
    out["compatibility"]["platforms"] = [opts.platform]
    out["tools"] = [{"name": t["name"], "description": t.get("description", "")} for t in tools]
    out["prompts"] = [
        {
            "name": p["name"],
            "description": p.get("description", ""),
            "arguments": [a["name"] for a in p.get("arguments", [])],
            "text": prompt_text(opts.bin, p),
        }
        for p in prompts
    ]
    with open(opts.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=2, ensure_ascii=False)
        f.write("\n")


def zip_stage(opts):
    entries = []
    for dirpath, dirnames, filenames in os.walk(opts.stage):
        dirnames.sort()
        for name in filenames:
            full = os.path.join(dirpath, name)
            entries.append((os.path.relpath(full, opts.stage).replace(os.sep, "/"), full))
    # manifest.json first, as the official packer's listing shows it; then by name.
    entries.sort(key=lambda e: (e[0] != "manifest.json", e[0]))
    tmp = opts.out + ".part"
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for arcname, full in entries:
            info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            mode = 0o755 if os.access(full, os.X_OK) else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.create_system = 3  # Unix, so readers honour the mode bits
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(full, "rb") as f:
                z.writestr(info, f.read())
    os.replace(tmp, opts.out)


def server_json(opts):
    with open(opts.file, encoding="utf-8") as f:
        doc = json.load(f)
    with open(opts.bundle, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    asset = os.path.basename(opts.bundle)
    suffix = re.sub(r"^review-mcp-[^-]+(-.*)$", r"\1", asset)
    base = doc["repository"]["url"].rstrip("/")
    url = f"{base}/releases/download/v{opts.version}/{asset}"
    doc["version"] = opts.version
    for package in doc.get("packages", []):
        if package.get("registryType") == "mcpb" and package["identifier"].endswith(suffix):
            package.update(identifier=url, version=opts.version, fileSha256=digest)
            break
    else:
        sys.exit(f"mcpb.py: server.json has no mcpb package for *{suffix}: add one first")
    with open(opts.file, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"server.json: version {opts.version}, {url}, sha256 {digest}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("manifest")
    for flag in ("--bin", "--template", "--version", "--platform", "--out"):
        m.add_argument(flag, required=True)
    z = sub.add_parser("zip")
    z.add_argument("--stage", required=True)
    z.add_argument("--out", required=True)
    s = sub.add_parser("server-json")
    for flag in ("--file", "--version", "--bundle"):
        s.add_argument(flag, required=True)
    opts = parser.parse_args()
    {"manifest": manifest, "zip": zip_stage, "server-json": server_json}[opts.command](opts)


if __name__ == "__main__":
    main()
