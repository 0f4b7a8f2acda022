#!/usr/bin/env bash
# The review card in a real browser: installs what the test needs on a fresh machine
# (Debian's chromium package when /usr/bin/chromium is missing; playwright-core and
# html-validate, pinned by tests/browser/package-lock.json, with `npm ci`: no browser download),
# builds the debug binary, and runs tests/browser/card.test.mjs with node's test runner.
#
#   bash tests/browser/run.sh                 screenshots (light, dark) into a temporary folder
#   bash tests/browser/run.sh --screenshots   ... into docs/card-light.png and docs/card-dark.png
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

chromium_bin="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium_bin" ]; then
  echo "browser: apt-get install chromium (Debian's package)"
  export DEBIAN_FRONTEND=noninteractive
  sudo=()
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then sudo=(sudo -E); fi
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq chromium >/dev/null
fi
[ -x "$chromium_bin" ] || { echo "run.sh: no Chromium at $chromium_bin" >&2; exit 2; }
"$chromium_bin" --version 2>/dev/null | grep -v unexpected || true

stamp="$here/node_modules/.browser-stamp"
if [ ! -f "$stamp" ] || ! cmp -s "$here/package-lock.json" "$stamp"; then
  echo "browser: npm ci (pinned by tests/browser/package-lock.json)"
  (cd "$here" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
  cp "$here/package-lock.json" "$stamp"
fi

if [ -z "${REVIEW_MCP_BIN:-}" ]; then
  cargo build --locked --bin review-mcp
  # Where cargo put it: $CARGO_TARGET_DIR when set (relative to this checkout, as cargo reads it).
  export REVIEW_MCP_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/review-mcp"
fi
export CHROMIUM="$chromium_bin"
if [ "${1:-}" = --screenshots ]; then
  shots="$root/docs"
else
  tmp_shots="$(mktemp -d)"
  trap 'rm -rf "$tmp_shots"' EXIT
  shots="$tmp_shots"
fi
CARD_SCREENSHOTS="$shots" node --test "$here/card.test.mjs"
