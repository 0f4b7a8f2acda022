#!/usr/bin/env bash
# Builds the MCP Bundle of review-mcp for this machine:
#   target/mcpb/review-mcp-<version>-<os>-<arch>.mcpb    (under $CARGO_TARGET_DIR when set)
# a zip of manifest.json, server/review-mcp (the release binary), README.md, LICENSE and
# THIRD_PARTY_NOTICES, that Claude Desktop and other MCPB hosts install with a double click.
#
#   bash packaging/build-mcpb.sh                       cargo build --release, then the bundle
#   bash packaging/build-mcpb.sh --bin PATH            bundle that binary (no cargo build)
#   bash packaging/build-mcpb.sh --manifest-only FILE  only write the manifest (from --bin or
#                                                      the release binary), no bundle
#   bash packaging/build-mcpb.sh --update-server-json  also write the version, download URL
#                                                      and fileSha256 of the bundle into
#                                                      server.json (a release does this)
#
# The manifest is packaging/manifest.template.json with the version from Cargo.toml, this
# platform, and the tools and prompts the binary itself answers to tools/list and prompts/list
# (packaging/mcpb.py). Needs bash and python3 (standard library only); no npm: the official
# `mcpb` CLI (packaging/package.json) validates and inspects the result in CI.
# THIRD_PARTY_NOTICES is the license and notice files of every crate compiled into the binary
# and SQLite's dedication (packaging/notices.py, from Cargo.lock and ~/.cargo/registry, offline;
# a crate with no license file stops the build, naming it and what to do).
# Prints the bundle's path, size and sha256 on the last line.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"

bin=""
manifest_only=""
update_server_json=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="${2:?--bin needs a path}"; shift 2 ;;
    --manifest-only) manifest_only="${2:?--manifest-only needs a file}"; shift 2 ;;
    --update-server-json) update_server_json=1; shift ;;
    -h | --help) sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-mcpb.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

# [package] is the first table of Cargo.toml, so its version is the first `version =` line.
version="$(sed -n 's/^version = "\([^"]*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
[ -n "$version" ] || { echo "build-mcpb.sh: no version in Cargo.toml" >&2; exit 1; }

# MCPB names platforms as Node's process.platform does (darwin, linux, win32).
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "build-mcpb.sh: unsupported OS $(uname -s) (Linux and macOS are)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x86_64 ;;
  arm64 | aarch64) arch=aarch64 ;;
  *) arch="$(uname -m)" ;;
esac

if [ -z "$bin" ]; then
  if [ -z "$manifest_only" ]; then
    (cd "$root" && cargo build --release --locked)
  fi
  bin="$target/release/review-mcp"
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
[ -x "$bin" ] || { echo "build-mcpb.sh: no executable at $bin" >&2; exit 1; }

# A stale binary would ship another version's tools under this version's name.
got="$("$bin" --version)"
case "$got" in
  *" $version") ;;
  *) echo "build-mcpb.sh: $bin says \"$got\", Cargo.toml says $version: rebuild it" >&2; exit 1 ;;
esac

make_manifest() {
  python3 "$here/mcpb.py" manifest --bin "$bin" --template "$here/manifest.template.json" \
    --version "$version" --platform "$os" --out "$1"
}

if [ -n "$manifest_only" ]; then
  make_manifest "$manifest_only"
  exit 0
fi

out_dir="$target/mcpb"
stage="$out_dir/stage"
bundle="$out_dir/review-mcp-$version-$os-$arch.mcpb"
rm -rf "$stage"
mkdir -p "$stage/server"
make_manifest "$stage/manifest.json"
cp "$bin" "$stage/server/review-mcp"
chmod 755 "$stage/server/review-mcp"
cp "$root/README.md" "$root/LICENSE" "$stage/"
python3 "$here/notices.py" --manifest-path "$root/Cargo.toml" --out "$stage/THIRD_PARTY_NOTICES"
chmod 644 "$stage/manifest.json" "$stage/README.md" "$stage/LICENSE" "$stage/THIRD_PARTY_NOTICES"
python3 "$here/mcpb.py" zip --stage "$stage" --out "$bundle"

if [ "$update_server_json" = 1 ]; then
  python3 "$here/mcpb.py" server-json --file "$root/server.json" --version "$version" \
    --bundle "$bundle"
fi

size="$(wc -c < "$bundle" | tr -d ' ')"
sha="$(python3 -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$bundle")"
echo "$bundle $size bytes sha256 $sha"
