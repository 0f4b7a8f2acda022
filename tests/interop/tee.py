#!/usr/bin/env python3
"""Recording tee: stands in for the server command, relays stdio and logs every line.

Usage: tee.py OUT_PREFIX SERVER_COMMAND [ARGS...]

The client spawns this script as if it were the server. It starts the real server, copies
each line the client writes to the server's stdin and each line the server writes to the
client, and appends both to OUT_PREFIX.<n>.jsonl as {"dir":"c2s"|"s2c","raw":"<line>"}
objects, one per line, in the order the tee saw them. <n> counts the processes spawned with
the same prefix (the TypeScript v2 client spawns a throw-away sibling for its
`server/discover` probe), so every process gets its own transcript. The server's stderr is
passed through untouched. Lines are relayed byte for byte; `raw` holds the line without its
terminating newline (decoded as UTF-8, invalid bytes kept via surrogateescape).
"""

import json
import os
import subprocess
import sys
import threading


def open_next(prefix):
    """Create OUT_PREFIX.<n>.jsonl with the lowest free n (O_EXCL, so racing spawns differ)."""
    n = 0
    while True:
        path = f"{prefix}.{n}.jsonl"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            n += 1
            continue
        return os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape")


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: tee.py OUT_PREFIX SERVER_COMMAND [ARGS...]\n")
        return 2
    log = open_next(sys.argv[1])
    lock = threading.Lock()
    server = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def record(direction, line):
        raw = line[:-1] if line.endswith(b"\n") else line
        entry = {"dir": direction, "raw": raw.decode("utf-8", errors="surrogateescape")}
        with lock:
            log.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
            log.flush()

    def server_to_client():
        out = sys.stdout.buffer
        for line in iter(server.stdout.readline, b""):
            record("s2c", line)
            try:
                out.write(line)
                out.flush()
            except BrokenPipeError:
                break

    relay = threading.Thread(target=server_to_client, daemon=True)
    relay.start()
    try:
        for line in iter(sys.stdin.buffer.readline, b""):
            record("c2s", line)
            server.stdin.write(line)
            server.stdin.flush()
    except BrokenPipeError:
        pass
    finally:
        try:
            server.stdin.close()
        except BrokenPipeError:
            pass
    code = server.wait()
    relay.join(timeout=5)
    log.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
