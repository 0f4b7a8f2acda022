#!/usr/bin/env python3
"""Writes THIRD_PARTY_NOTICES: the notices of every crate compiled into review-mcp's binary.

    notices.py --out FILE [--manifest-path Cargo.toml] [--metadata JSON]

The crates are those `cargo metadata` (offline, for this machine's target) resolves from
review-mcp by normal dependencies: dev-dependencies and build-dependencies (and what only
they pull in) are left out, since nothing of them is linked. A procedural macro is listed (the
code it writes is in the binary), its own dependencies are not (the compiler runs them; none
of their code is linked). For each crate: its name, version, license expression, and every
license or notice file at the root of its source (LICENSE*, LICENCE*, COPYING*, UNLICENSE*,
COPYRIGHT*, NOTICE*, and its `license-file`), each distinct text printed once. Then SQLite's
public-domain dedication, read from the amalgamation libsqlite3-sys bundles.

A crate with no license file fails the build, naming it: add its license text (from its
repository) as packaging/licenses/<crate>-<version>/<file>, used when that version ships none
(a new version of the crate fails again, so its license is looked at again).
The output depends only on Cargo.lock and the sources, so two runs are byte-identical.
`--metadata` reads `cargo metadata --format-version 1` output from a file (for the tests).
Standard library only (Python 3.8+).
"""

import argparse
import html.parser
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OVERRIDES = os.path.join(HERE, "licenses")
PREFIXES = ("license", "licence", "copying", "unlicense", "copyright", "notice")


def fail(message):
    sys.exit(f"notices.py: {message}")


def host_triple():
    out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("host: "):
            return line[len("host: "):].strip()
    fail("rustc -vV names no host")


def metadata(manifest_path):
    cmd = ["cargo", "metadata", "--format-version", "1", "--locked", "--offline",
           "--filter-platform", host_triple(), "--manifest-path", manifest_path]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"{' '.join(cmd)} failed (fetch the dependencies once with `cargo fetch`):\n"
             f"{proc.stderr}")
    return json.loads(proc.stdout)


def linked_packages(meta):
    """The packages reached from the root by normal dependencies, without descending into
    a procedural macro's own dependencies."""
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    root = meta["resolve"]["root"]
    if root is None:
        fail("cargo metadata names no root package")
    seen = {root}
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid != root and is_proc_macro(packages[pid]):
            continue
        for dep in nodes[pid]["deps"]:
            if not any(k.get("kind") is None for k in dep["dep_kinds"]):
                continue
            if dep["pkg"] not in seen:
                seen.add(dep["pkg"])
                todo.append(dep["pkg"])
    seen.discard(root)
    found = [packages[pid] for pid in seen]
    found.sort(key=lambda p: (p["name"], version_key(p["version"]), p["version"]))
    return packages[root], found


def is_proc_macro(package):
    return any("proc-macro" in t["kind"] for t in package["targets"])


def version_key(version):
    core = version.split("+")[0].split("-")[0]
    return tuple(int(x) if x.isdigit() else 0 for x in core.split("."))


def license_files(package):
    """[(file name, text)] of the crate's license and notice files, sorted by name; None
    when it has none (neither in its source nor in packaging/licenses/<crate>-<version>/)."""
    src = os.path.dirname(package["manifest_path"])
    names = set()
    for entry in os.listdir(src):
        if entry.lower().startswith(PREFIXES) and os.path.isfile(os.path.join(src, entry)):
            names.add(entry)
    declared = package.get("license_file")
    if declared:
        path = os.path.normpath(os.path.join(src, declared))
        if not os.path.isfile(path):
            fail(f"crate {package['name']} {package['version']} declares license-file "
                 f"{declared}, which is not in its source {src}")
        names.add(os.path.relpath(path, src))
    base = src
    if not names:
        base = os.path.join(OVERRIDES, f"{package['name']}-{package['version']}")
        if os.path.isdir(base):
            names = {e for e in os.listdir(base) if os.path.isfile(os.path.join(base, e))}
    if not names:
        return None
    out = []
    for name in sorted(names):
        with open(os.path.join(base, name), "rb") as f:
            raw = f.read()
        text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
        if not text.strip():
            fail(f"crate {package['name']} {package['version']}: {name} is empty")
        out.append((name, text.rstrip("\n") + "\n"))
    return out


def sqlite_dedication(packages):
    """SQLite's version and public-domain dedication, from the sqlite3.h that
    libsqlite3-sys bundles (and compiles in with rusqlite's `bundled` feature)."""
    sys_crates = [p for p in packages if p["name"] == "libsqlite3-sys"]
    if not sys_crates:
        return None
    header = os.path.join(os.path.dirname(sys_crates[0]["manifest_path"]), "sqlite3", "sqlite3.h")
    try:
        with open(header, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail(f"cannot read SQLite's header {header} ({e}): is rusqlite still `bundled`?")
    version = None
    for line in lines:
        if line.startswith("#define SQLITE_VERSION "):
            version = line.split('"')[1]
            break
    start = next((i for i, l in enumerate(lines) if "The author disclaims copyright" in l), None)
    if version is None or start is None:
        fail(f"{header} has no SQLITE_VERSION or no dedication: read it and update notices.py")
    block = []
    for line in lines[start:]:
        if line.startswith("****"):
            break
        block.append(line[2:].strip() if line.startswith("**") else line.strip())
    while block and not block[-1]:
        block.pop()
    return version, "\n".join(block) + "\n"


class _Text(html.parser.HTMLParser):
    """The text of an HTML page: whitespace collapsed outside <pre>, a line per block."""

    BLOCKS = {"p", "h1", "h2", "h3", "h4", "li", "div", "pre", "details", "summary", "br",
              "title", "ul", "tr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.pre, self.skip = [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self.skip += 1
        if tag == "pre":
            self.pre += 1
        if tag in self.BLOCKS:
            self.parts.append("\n\n" if tag in ("p", "h1", "h2", "h3", "pre", "details") else "\n")
        if tag == "li":
            self.parts.append("- ")

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self.skip -= 1
        if tag == "pre":
            self.pre -= 1
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if self.skip:
            return
        if self.pre:
            self.parts.append(data)
        else:
            text = re.sub(r"\s+", " ", data)
            if not self.parts or self.parts[-1].endswith("\n"):
                text = text.lstrip()
            if text:
                self.parts.append(text)

    def text(self):
        lines = [line.rstrip() for line in "".join(self.parts).replace("\r\n", "\n").split("\n")]
        out = []
        for line in lines:
            if line or (out and out[-1]):
                out.append(line)
        while out and not out[-1]:
            out.pop()
        return "\n".join(out) + "\n"


def rust_std_notices():
    """The Rust standard library's own notices (it is linked into every Rust program), from
    the COPYRIGHT-library.html that the toolchain's rustc component installs."""
    rustc = os.environ.get("RUSTC", "rustc")
    sysroot = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True,
                             check=True).stdout.strip()
    version = subprocess.run([rustc, "--version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    path = os.path.join(sysroot, "share", "doc", "rust", "COPYRIGHT-library.html")
    try:
        with open(path, encoding="utf-8") as f:
            page = f.read()
    except OSError as e:
        fail(f"cannot read the Rust standard library's notices {path} ({e}): build with a "
             "rustup toolchain (its rustc component installs them), or set RUSTC to one")
    parser = _Text()
    parser.feed(page)
    parser.close()
    return version, parser.text()


def render(root, packages, std):
    texts = []  # distinct texts, in order of first use
    index = {}
    rows = []
    found = [(p, license_files(p)) for p in packages]
    missing = [p for p, files in found if files is None]
    if missing:
        lines = "".join(
            f"  {p['name']} {p['version']} ({p.get('license')}): nothing in "
            f"{os.path.dirname(p['manifest_path'])}\n" for p in missing)
        fail(f"no license file for {len(missing)} crate(s) compiled into the binary, whose "
             f"licenses require their notices in the bundle:\n{lines}"
             "For each, copy the license text(s) it names from its repository (at that "
             "version) into packaging/licenses/<crate>-<version>/ (LICENSE-MIT, LICENSE-APACHE, "
             "...) and say where it came from in packaging/licenses/README.md.")
    for p, files in found:
        refs = []
        for name, text in files:
            if text not in index:
                texts.append((text, []))
                index[text] = len(texts)
            n = index[text]
            texts[n - 1][1].append(f"{p['name']} {p['version']} ({name})")
            refs.append(f"{name} [text {n}]")
        rows.append((p, refs))

    sqlite = sqlite_dedication(packages)
    out = []
    out.append(f"Third-party notices for review-mcp {root['version']}\n")
    out.append("=" * 72 + "\n\n")
    out.append(
        "The review-mcp binary is built from its own code (MIT, see LICENSE), the\n"
        f"{len(packages)} Rust crates below, compiled into it"
        + (", SQLite, bundled in it" if sqlite else "")
        + (", and the Rust standard library" if std else "") + ".\n"
        + "Each crate is listed with its version, its license expression (as its Cargo.toml\n"
        "declares it) and the license and notice files of its source; the texts follow,\n"
        "each distinct text once. Where a crate offers a choice of licenses, review-mcp\n"
        "uses it under any of them, and all the texts it ships are reproduced.\n"
        "Generated by packaging/notices.py from Cargo.lock and the crates' sources.\n\n")
    out.append("Crates\n------\n\n")
    for p, refs in rows:
        out.append(f"{p['name']} {p['version']}\n")
        out.append(f"  license: {p.get('license') or 'see its license file'}\n")
        if is_proc_macro(p):
            out.append("  procedural macro: the compiler runs it; the code it writes is in the binary\n")
        if p.get("repository"):
            out.append(f"  repository: {p['repository']}\n")
        out.append(f"  files: {', '.join(refs)}\n\n")

    if sqlite:
        version, dedication = sqlite
        out.append("SQLite\n------\n\n")
        out.append(f"SQLite {version} (https://sqlite.org), compiled into the binary from the\n"
                   "amalgamation libsqlite3-sys bundles, is in the public domain. Its source says:\n\n")
        out.extend("    " + line + "\n" if line else "\n" for line in dedication.splitlines())
        out.append("\n")

    if std:
        rustc, notices = std
        out.append("The Rust standard library\n-------------------------\n\n")
        out.append(f"Linked into every Rust program; built with {rustc}. Its notices, as the\n"
                   "toolchain states them (share/doc/rust/COPYRIGHT-library.html):\n\n")
        out.append(notices)
        out.append("\n")

    out.append("License texts\n-------------\n")
    for n, (text, users) in enumerate(texts, 1):
        out.append("\n" + "-" * 72 + "\n")
        out.append(f"[text {n}] of {', '.join(users)}\n")
        out.append("-" * 72 + "\n\n")
        out.append(text)
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--manifest-path",
                        default=os.path.join(os.path.dirname(HERE), "Cargo.toml"))
    parser.add_argument("--metadata")
    opts = parser.parse_args()
    if opts.metadata:
        with open(opts.metadata, encoding="utf-8") as f:
            meta = json.load(f)
    else:
        meta = metadata(opts.manifest_path)
    root, packages = linked_packages(meta)
    std = None if opts.metadata else rust_std_notices()
    text = render(root, packages, std)
    tmp = opts.out + ".part"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, opts.out)


if __name__ == "__main__":
    main()
