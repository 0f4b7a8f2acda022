//! The folder side of a sync: its files scanned, read and hashed on threads of their own, and
//! written atomically (temporary name, fsync, rename) in parallel batches.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};

use review_mcp::sync::{Hash, Item, ItemKind, hash};

use super::super::import::{Line, parse_line};
use super::super::import_rules::Schemas;
use super::*;

/// Ids as `import` allows them, which are also safe file names.
pub(super) fn is_file_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

/// At most this many bad files are named; the rest are counted.
pub(super) const MAX_REPORTED: usize = 20;

/// How many threads hash the database's items.
pub(super) const HASH_THREADS: usize = 4;

/// One subfolder read: each item file's id and hash, and the names that are no item file.
pub(super) struct Scan {
    kind: ItemKind,
    files: Vec<(String, Hash)>,
    problems: Vec<String>,
}

/// Reads and hashes every file of one kind's subfolder. Hidden files (a temporary file of an
/// interrupted sync, `.gitkeep`) are skipped.
pub(super) fn scan(folder: &Path, kind: ItemKind) -> anyhow::Result<Scan> {
    let mut out = Scan {
        kind,
        files: Vec::new(),
        problems: Vec::new(),
    };
    let dir = folder.join(kind.dir());
    let listing = match fs::read_dir(&dir) {
        Ok(l) => l,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(anyhow!("cannot read {}: {e}", dir.display())),
    };
    for entry in listing {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            out.problems
                .push(format!("{}: not an item file (<id>.json)", path.display()));
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let Some(id) = name.strip_suffix(".json").filter(|id| is_file_id(id)) else {
            out.problems.push(format!(
                "{}: not an item file ({}/<id>.json)",
                path.display(),
                kind.dir()
            ));
            continue;
        };
        let bytes = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        out.files.push((id.to_string(), hash(&bytes)));
    }
    Ok(out)
}

/// Adds the scanned files to `entries`, validating each file that differs from both its base
/// and the database (read again: only the changed few are kept in memory).
pub(super) fn read_folder(
    folder: &Path,
    schemas: &Schemas,
    scanned: Vec<anyhow::Result<Scan>>,
    entries: &mut BTreeMap<(ItemKind, String), Entry>,
) -> anyhow::Result<()> {
    let mut problems = Vec::new();
    for scan in scanned {
        let scan = scan?;
        problems.extend(scan.problems);
        let kind = scan.kind;
        for (id, h) in scan.files {
            let path = file_of(folder, kind, &id);
            let e = entries.entry((kind, id)).or_default();
            let known = e.base == Some(h) || e.db.as_ref().is_some_and(|(d, _)| *d == h);
            let item = if known {
                None
            } else {
                let bytes =
                    fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
                let id = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_string();
                // The file may have changed since it was hashed: the hash follows the bytes
                // that are validated and imported.
                let h = hash(&bytes);
                match parse_file(&bytes, schemas, kind, &id) {
                    Ok(item) => {
                        e.file = Some((h, Some(item)));
                        continue;
                    }
                    Err(why) => {
                        problems.push(format!("{}: {why}", path.display()));
                        continue;
                    }
                }
            };
            e.file = Some((h, item));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let n = problems.len();
    problems.truncate(MAX_REPORTED);
    if n > MAX_REPORTED {
        problems.push(format!("… and {} more bad files", n - MAX_REPORTED));
    }
    Err(anyhow!(
        "the folder was refused and nothing was changed:\n  {}",
        problems.join("\n  ")
    ))
}

/// One item file, validated as an import line is, whose kind and id must match its place.
pub(super) fn parse_file(
    bytes: &[u8],
    schemas: &Schemas,
    kind: ItemKind,
    id: &str,
) -> Result<Item, String> {
    let item = parse_item(bytes, schemas)?;
    if item.kind() != kind || item.id() != id {
        return Err(format!(
            "holds {} {}, but its place names {} {id}",
            item.kind().as_str(),
            item.id(),
            kind.as_str()
        ));
    }
    Ok(item)
}

/// An item file's text, validated as an import line is.
pub(in crate::cli) fn parse_item(bytes: &[u8], schemas: &Schemas) -> Result<Item, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "is not UTF-8".to_string())?;
    Ok(match parse_line(text, schemas)? {
        Line::Record(r) => Item::Record(r),
        Line::Decision(d) => Item::Decision(d),
    })
}

pub(super) fn file_of(folder: &Path, kind: ItemKind, id: &str) -> PathBuf {
    folder.join(kind.dir()).join(format!("{id}.json"))
}

/// Writes `text` to `path` through a temporary file beside it, fsynced, renamed into place.
pub(super) fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow!("{}: no file name", path.display()))?;
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let written = (|| -> io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        super::owned::step("temporary written");
        fs::rename(&tmp, path)?;
        super::owned::step("file renamed into place");
        Ok(())
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        anyhow!("cannot write {}: {e}", path.display())
    })
}

/// Writes files, each atomically, on [`WRITE_THREADS`] threads.
pub(super) fn write_all(batch: &[(PathBuf, String)]) -> anyhow::Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    // Under the test hook, one at a time: each run of a scenario takes the same steps.
    let threads = if super::owned::hooked() {
        1
    } else {
        WRITE_THREADS
    };
    let chunk = batch.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let writers: Vec<_> = batch
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .try_for_each(|(path, text)| write_atomic(path, text))
                })
            })
            .collect();
        writers.into_iter().try_for_each(|w| {
            w.join()
                .unwrap_or_else(|_| Err(anyhow!("a file writer failed")))
        })
    })
}

pub(super) fn remove_file(path: &Path) -> anyhow::Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(anyhow!("cannot delete {}: {e}", path.display())),
    }
}
