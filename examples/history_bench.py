#!/usr/bin/env python3
"""What the history readers cost, two builds side by side (docs/performance.md, "A return
recorded twice, shown once").

    python3 examples/history_bench.py OLD_BINARY NEW_BINARY [--dir /dev/shm/x] [--runs 3] [--calls 40]

Seeds three databases of one file with NEW_BINARY (20 decisions of 50 items, each rewritten 60
times): "assistant" (1,200 events written by the tools), "imported" (the same versions arrived
by `import`, channel import), "twins" (imported, and every event again in channel sync: the
worst case of the fold). Then times `show_review` (20 trails) and a `review_history` page of the
file on both builds, alternated --runs times, and prints the p50 of --calls calls of each run
and the ratio of the medians. Needs python3 and the sqlite3 command; nothing else.
"""
import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import time

REV = "sha256:" + "ab" * 32
ART = {"revision": REV, "format": "step", "uri": "/w/part.step"}


class Server:
    """One server over pipes, after the 2025-06-18 handshake."""

    def __init__(self, binary, db):
        self.p = subprocess.Popen([binary, "--db", db, "--author", "Ada"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                  bufsize=1)
        self.n = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "history_bench", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def request(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method,
                                       "params": params}) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit(f"the server closed its output during {method}")
            message = json.loads(line)
            if message.get("id") == self.n:
                return message, len(line)

    def call(self, tool, args):
        message, size = self.request("tools/call", {"name": tool, "arguments": args})
        if "result" not in message or message["result"].get("isError"):
            raise SystemExit(f"{tool} failed: {str(message)[:500]}")
        return size

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def decision(i, r):
    basis = [{"requirement": f"requirement {k} of {i}", "source": "drawing",
              "evidence": f"measured {r} {k}",
              "state": "satisfied" if (r + k) % 2 else "violated"} for k in range(50)]
    return {"artifact": ART, "subject": f"subject {i}",
            "disposition": "hold" if r % 2 else "release", "basis": basis}


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, check=True).stdout


def seed(binary, d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    assistant, imported, twins = (f"{d}/{n}.db" for n in ("assistant", "imported", "twins"))
    server = Server(binary, assistant)
    for r in range(60):
        for i in range(20):
            server.call("remember_decision", decision(i, r))
        # This round's versions, without their history, imported: channel `import`.
        lines = [line for line in run(binary, "--db", assistant, "export").splitlines()
                 if not line.startswith('{"event"')]
        with open(f"{d}/round.jsonl", "w") as f:
            f.write("\n".join(lines) + "\n")
        run(binary, "--db", imported, "import", f"{d}/round.jsonl")
    server.close()
    # Every import event again in channel `sync`, sealed as the server seals (sha256 of the
    # event with an empty id, its first 16 bytes in hex).
    lines = run(binary, "--db", imported, "export").splitlines()
    again = []
    for line in lines:
        message = json.loads(line)
        event = message.get("event")
        if event and event.get("channel") == "import":
            event.update(channel="sync", id="")
            body = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
            event["id"] = "evt-" + hashlib.sha256(body.encode()).hexdigest()[:32]
            again.append(json.dumps({"event": event}, separators=(",", ":"), ensure_ascii=False))
    with open(f"{d}/twins.jsonl", "w") as f:
        f.write("\n".join(lines + again) + "\n")
    run(binary, "--db", twins, "import", f"{d}/twins.jsonl")
    return assistant, imported, twins


def p50_ms(binary, db, tool, args, calls):
    server = Server(binary, db)
    server.call(tool, args)  # warm: the first read of the file
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        server.call(tool, args)
        times.append(time.perf_counter() - start)
    server.close()
    return statistics.median(times) * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--dir", default="/dev/shm/review-mcp-history-bench")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--calls", type=int, default=40)
    a = parser.parse_args()
    for db in seed(a.new, a.dir):
        counts = run("sqlite3", db, "SELECT count(*), sum(json_extract(body, '$.channel') "
                     "IN ('import', 'sync')) FROM events").strip()
        print(f"{os.path.basename(db)}: events (all|transfer) {counts}")
        for name, tool, args in [
            ("show_review detail full (20 trails)", "show_review", {"artifact": ART, "detail": "full"}),
            ("review_history of the file, limit 200", "review_history", {"artifact": ART, "limit": 200}),
        ]:
            times = {"old": [], "new": []}
            for _ in range(a.runs):
                for label, binary in (("old", a.old), ("new", a.new)):
                    times[label].append(p50_ms(binary, db, tool, args, a.calls))
            ratio = statistics.median(times["new"]) / statistics.median(times["old"])
            print(f"  {name}: old " + " ".join(f"{t:.1f}" for t in times["old"])
                  + " ms | new " + " ".join(f"{t:.1f}" for t in times["new"])
                  + f" ms | new/old {ratio:.2f}")
    load = os.getloadavg()[0]
    print(f"load average (1 min) at the end: {load:.2f}")


if __name__ == "__main__":
    main()
