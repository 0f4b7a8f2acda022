//! The layers of `src/` as docs/architecture.md states them, read from the source: the
//! server path never imports `sync` or `replay`; the store imports nothing of the protocol;
//! the leaves import nothing of the crate; `cli/` parses arguments and prints, with no rule
//! of its own (no JSON, schema, hash or SQL crate: those are the library's).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`, with its path relative to `src/`.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The code of a file: its lines without `//` comments (doc comments name modules freely).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The crate's top-level modules a file's code names through `crate::` (`crate::x::…` and
/// `crate::{x, y::…}`).
fn crate_modules(text: &str) -> BTreeSet<String> {
    let code = code(text);
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut top = String::new();
            let mut names = Vec::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                if depth == 1 && (c.is_alphanumeric() || c == '_') {
                    top.push(c);
                } else if !top.is_empty() {
                    names.push(std::mem::take(&mut top));
                }
                // After `x::` inside the group, the rest of the path is not a top module.
                if c == ',' && depth == 1 {
                    names.push(String::from(","));
                }
            }
            if !top.is_empty() {
                names.push(top);
            }
            // The first name of each comma-separated part is the top module.
            let mut first = true;
            for n in names {
                if n == "," {
                    first = true;
                } else if first {
                    out.insert(n);
                    first = false;
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.insert(name);
        }
    }
    out
}

fn is_server_path(file: &str) -> bool {
    !(file.starts_with("sync/")
        || file.starts_with("replay/")
        || file == "terminal.rs"
        || file.starts_with("cli/")
        || ["cli.rs", "main.rs", "lib.rs"].contains(&file))
}

#[test]
fn crate_modules_reads_paths_and_groups() {
    let text = "use crate::a::b;\nuse crate::{c, d::{e, f}, g};\n// crate::h\nx = crate::i::j();";
    let want: BTreeSet<String> = ["a", "c", "d", "g", "i"].map(String::from).into();
    assert_eq!(crate_modules(text), want);
}

#[test]
fn server_path_never_imports_sync_or_replay() {
    let mut found = Vec::new();
    for (file, text) in sources() {
        if !is_server_path(&file) {
            continue;
        }
        for m in crate_modules(&text) {
            if m == "sync" || m == "replay" || m == "terminal" {
                found.push(format!("{file}: crate::{m}"));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn store_imports_nothing_of_the_protocol() {
    let allowed = ["store", "review", "time", "text"];
    let mut found = Vec::new();
    for (file, text) in sources() {
        if !file.starts_with("store/") {
            continue;
        }
        for m in crate_modules(&text) {
            if !allowed.contains(&m.as_str()) {
                found.push(format!("{file}: crate::{m}"));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn leaves_import_nothing_of_the_crate() {
    for (file, text) in sources() {
        if [
            "version.rs",
            "text.rs",
            "time.rs",
            "cursor.rs",
            "program.rs",
        ]
        .contains(&file.as_str())
        {
            let m = crate_modules(&text);
            assert!(m.is_empty(), "{file}: {m:?}");
        }
    }
}

/// The command line decides nothing: no JSON, schema, hash or SQL of its own, and nothing of
/// the library's internals (it reaches the library as `review_mcp::`).
#[test]
fn cli_holds_no_rule() {
    let mut found = Vec::new();
    for (file, text) in sources() {
        if !(file.starts_with("cli/") || file == "cli.rs" || file == "main.rs") {
            continue;
        }
        let code = code(&text);
        for word in [
            "serde_json::",
            "serde::",
            "jsonschema::",
            "sha2::",
            "rusqlite::",
        ] {
            if code.contains(word) {
                found.push(format!("{file}: {word}"));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
