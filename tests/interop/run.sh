#!/usr/bin/env bash
# Interop suite: drives the built review-mcp binary over stdio with the official MCP clients
# (npm @modelcontextprotocol/sdk 1.32.2, npm @modelcontextprotocol/client 2.4.0, PyPI mcp 2.3.0)
# in every negotiation mode, one fresh database per run. Installs the clients, pinned, into
# tests/interop/node_modules and tests/interop/.venv on first use (both gitignored).
#
#   bash tests/interop/run.sh            run every client and mode
#   bash tests/interop/run.sh --record   also re-record tests/interop/recorded/<client>-<mode>.jsonl
#   bash tests/interop/run.sh v2-auto    run only the named runs (names as printed)
#
# Environment:
#   INTEROP_PROFILE=release  build and drive the release binary (default: the debug binary,
#                            which `cargo test` has already built)
#   REVIEW_MCP_BIN=PATH      drive that binary instead of building one
#   MCP_SCHEMA_DIR=DIR       the official schemas (default ../shared/protocol/schema if present):
#                            every server line of every session is checked against them
#   INTEROP_VERBOSE=1        show each run's output, not only a failed one's
#   INTEROP_TEE=0            connect the clients directly (no tee: no schema check, no replay)
#   INTEROP_RECORD_DIR=DIR   where --record writes (default tests/interop/recorded)
# Prints one PASS/FAIL line per client+mode and closes with "N passed, M failed".
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

record=0
only=()
for arg in "$@"; do
  case "$arg" in
    --record) record=1 ;;
    -h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
    *) only+=("$arg") ;;
  esac
done

# The v2-legacy-<revision> runs make the v2 client offer an older revision in its initialize
# (supportedProtocolVersions), so that a real client reads the server's older result shapes.
runs=(sdk1-legacy v2-legacy v2-auto v2-2026-07-28 python-legacy python-auto python-2026-07-28
  v2-legacy-2025-06-18 v2-legacy-2025-03-26 v2-legacy-2024-11-05)
if [ ${#only[@]} -gt 0 ]; then
  for name in "${only[@]}"; do
    printf '%s\n' "${runs[@]}" | grep -qx "$name" || { echo "run.sh: no run named $name (${runs[*]})" >&2; exit 2; }
  done
  runs=("${only[@]}")
fi

for tool in node npm python3 cargo; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is required but not on PATH" >&2; exit 2; }
done
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "run.sh: Node.js >= 20 is required (@modelcontextprotocol/client 2.4.0), found $(node --version)" >&2
  exit 2
fi

# --- the binary -----------------------------------------------------------------------------
if [ -n "${REVIEW_MCP_BIN:-}" ]; then
  bin="$REVIEW_MCP_BIN"
else
  profile_flag=()
  [ "${INTEROP_PROFILE:-debug}" = release ] && profile_flag=(--release)
  echo "interop: cargo build ${profile_flag[*]:-}"
  bin="$(cargo build --locked ${profile_flag[@]+"${profile_flag[@]}"} --bin review-mcp --message-format=json-render-diagnostics |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])' | tail -n 1)"
fi
[ -x "$bin" ] || { echo "run.sh: no executable at '$bin'" >&2; exit 2; }

# --- the clients (installed once; reinstalled when the pinned lists change) -----------------
stamp_ok() { [ -f "$2" ] && cmp -s "$1" "$2"; }
if ! stamp_ok "$here/package-lock.json" "$here/node_modules/.interop-stamp"; then
  echo "interop: npm ci (pinned by tests/interop/package-lock.json)"
  start=$SECONDS
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$here/package-lock.json" "$here/node_modules/.interop-stamp"
  echo "interop: npm ci took $((SECONDS - start)) s"
fi
if ! stamp_ok "$here/requirements.txt" "$here/.venv/.interop-stamp"; then
  echo "interop: pip install (pinned by tests/interop/requirements.txt)"
  start=$SECONDS
  rm -rf "$here/.venv"
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet --disable-pip-version-check --require-virtualenv -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$here/.venv/.interop-stamp"
  echo "interop: pip install took $((SECONDS - start)) s"
fi
py="$here/.venv/bin/python"

# --- the runs -------------------------------------------------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/review-mcp-interop.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# The recordings stay beside this suite until the transcript test (tests/it/transcripts.rs), which
# refuses any file under protocol-fixtures/ that is not a replay-format transcript, takes them.
recorded="${INTEROP_RECORD_DIR:-$here/recorded}"
[ "$record" = 1 ] && mkdir -p "$recorded"

# The official schemas: .ci/run exports MCP_SCHEMA_DIR when ../shared is beside the checkout.
schema_dir="${MCP_SCHEMA_DIR:-}"
if [ -z "$schema_dir" ] && [ -d "$root/../shared/protocol/schema" ]; then
  schema_dir="$(cd "$root/../shared/protocol/schema" && pwd)"
fi
if [ -z "$schema_dir" ]; then
  echo "interop: MCP_SCHEMA_DIR is not set: server messages are not checked against schema.json"
elif [ "${INTEROP_TEE:-1}" = 0 ]; then
  echo "interop: INTEROP_TEE=0: server messages are not checked against schema.json"
fi

passed=0
failed=0
for name in "${runs[@]}"; do
  client="${name%%-*}"
  mode="${name#*-}"
  dir="$work/$name"
  mkdir -p "$dir"
  # Every run goes through the recording tee, so that each server line of a real session can be
  # checked against the official schema afterwards (INTEROP_TEE=0 connects the client directly).
  server=("$py" "$here/tee.py" "$dir/wire" "$bin")
  if [ "${INTEROP_TEE:-1}" = 0 ]; then
    server=("$bin")
  fi
  # Recording leaves out the scenario's bulk (paging) steps: the committed sessions stay small.
  bulk=yes
  [ "$record" = 1 ] && bulk=no
  case "$client" in
    python) cmd=("$py" "$here/client.py" --mode "$mode" --bulk "$bulk" -- "${server[@]}") ;;
    *) cmd=(node "$here/client.mjs" --client "$client" --mode "$mode" --bulk "$bulk" -- "${server[@]}") ;;
  esac
  start=$SECONDS
  # The clients kill their own runs at 60 s; the outer timeout only catches a wedged runtime.
  # REVIEW_MCP_BIN: the binary itself, which the notification step spawns as a second process
  # on the same database file (the clients get the tee as their server command).
  # INTEROP_FOREIGN: where the driver names the notifications that the second process caused.
  if (cd "$dir" && REVIEW_MCP_DB_PATH="$dir/review.db" REVIEW_MCP_BIN="$bin" INTEROP_FOREIGN="$dir/foreign.json" timeout 120 "${cmd[@]}" >"$dir/out.log" 2>&1 </dev/null); then
    status=PASS
    passed=$((passed + 1))
  else
    status=FAIL
    failed=$((failed + 1))
  fi
  shopt -s nullglob
  wires=("$dir"/wire.*.jsonl)
  shopt -u nullglob
  # The notifications caused by the second process's write cannot replay: mark them
  # ("foreign": true) in the session's recording (the last process spawned), so that
  # to_transcript.py leaves them out.
  if [ -f "$dir/foreign.json" ] && [ ${#wires[@]} -gt 0 ]; then
    if ! "$py" "$here/to_transcript.py" --mark "$dir/foreign.json" "${wires[${#wires[@]}-1]}" >>"$dir/out.log" 2>&1; then
      [ "$status" = PASS ] && { status=FAIL; passed=$((passed - 1)); failed=$((failed + 1)); }
    fi
  fi
  if [ "$status" = PASS ] && [ -n "$schema_dir" ] && [ ${#wires[@]} -gt 0 ]; then
    if ! "$py" "$here/schema_check.py" "$schema_dir" "${wires[@]}" >>"$dir/out.log" 2>&1; then
      status=FAIL
      passed=$((passed - 1))
      failed=$((failed + 1))
    fi
  fi
  # The session just recorded must replay against a fresh in-process server (`review-mcp replay`)
  # once converted to a transcript: the same requests get the same answers.
  if [ "$status" = PASS ] && [ ${#wires[@]} -gt 0 ]; then
    transcripts=()
    for w in "${wires[@]}"; do
      "$py" "$here/to_transcript.py" "$w" >"${w%.jsonl}.transcript"
      transcripts+=("${w%.jsonl}.transcript")
    done
    if ! MCP_LOG_LEVEL=off "$bin" replay "${transcripts[@]}" >>"$dir/out.log" 2>&1; then
      echo "replay of the converted session failed (above)" >>"$dir/out.log"
      status=FAIL
      passed=$((passed - 1))
      failed=$((failed + 1))
    fi
  fi
  summary="$(sed -n 's/^summary: //p' "$dir/out.log" | tail -n 1)"
  checked="$(sed -n 's/^schema: \([0-9]*\) server messages checked.*/\1/p' "$dir/out.log" | tail -n 1)"
  summary="$summary${checked:+; $checked server messages schema-valid}"
  echo "$status $name ($((SECONDS - start)) s)${summary:+: $summary}"
  if [ "$status" = FAIL ] || [ -n "${INTEROP_VERBOSE:-}" ]; then
    sed 's/^/    /' "$dir/out.log"
  fi
  if [ "$record" = 1 ]; then
    # One transcript per server process, in spawn order. A v2 client in a probing mode spawns a
    # throw-away sibling for `server/discover` first; that one is kept as <name>-probe.
    rm -f "$recorded/$name.jsonl" "$recorded/$name-probe.jsonl"
    if [ ${#wires[@]} -eq 1 ]; then
      cp "${wires[0]}" "$recorded/$name.jsonl"
    elif [ ${#wires[@]} -eq 2 ]; then
      cp "$dir/wire.0.jsonl" "$recorded/$name-probe.jsonl"
      cp "$dir/wire.1.jsonl" "$recorded/$name.jsonl"
    else
      echo "    (recording: ${#wires[@]} server processes, expected 1 or 2; nothing recorded)"
    fi
  fi
done

# The committed recordings (tests/interop/recorded) must still replay against this server: a
# changed answer means the server's behaviour changed; re-record on purpose with --record.
if [ ${#only[@]} -eq 0 ] && [ "$record" = 0 ]; then
  shopt -s nullglob
  committed=("$here"/recorded/*.jsonl)
  shopt -u nullglob
  if [ ${#committed[@]} -gt 0 ]; then
    mkdir -p "$work/recorded"
    transcripts=()
    for f in "${committed[@]}"; do
      t="$work/recorded/$(basename "$f")"
      "$py" "$here/to_transcript.py" "$f" >"$t"
      transcripts+=("$t")
    done
    if MCP_LOG_LEVEL=off "$bin" replay "${transcripts[@]}" >"$work/recorded/out.log" 2>&1; then
      passed=$((passed + 1))
      echo "PASS recorded-replay: ${#transcripts[@]} committed recordings replay"
    else
      failed=$((failed + 1))
      echo "FAIL recorded-replay (if the change is intended: bash tests/interop/run.sh --record)"
      sed 's/^/    /' "$work/recorded/out.log" | grep -v '^    ok ' | head -n 60
    fi
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
