//! `review-mcp merge-file BASE OURS THEIRS`: the git merge driver of a synced folder. It
//! resolves two versions of one item file by the rule `sync` applies (`sync::merge`), writes
//! the result over OURS (atomically) and exits 0; a conflict is named on stderr, as git shows
//! a driver's messages. A file that does not parse as an item (conflict markers, another
//! file's text) is left to git: OURS is untouched and the exit status is 1.
//!
//! git gives an empty BASE when both sides added the file: the merge then has no base.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, anyhow};

use review_mcp::sync::Item;
use review_mcp::sync::merge::{Side, resolve};

use super::import_rules::Schemas;
use super::sync::parse_item;

/// `review-mcp merge-file BASE OURS THEIRS`.
pub fn run(base: &Path, ours: &Path, theirs: &Path) -> anyhow::Result<ExitCode> {
    let schemas = Schemas::from_tools().map_err(|e| anyhow!("{e}"))?;
    let read = |path: &Path| -> anyhow::Result<Vec<u8>> {
        fs::read(path).with_context(|| format!("cannot read {}", path.display()))
    };
    let parse = |path: &Path, bytes: &[u8]| -> anyhow::Result<Item> {
        parse_item(bytes, &schemas).map_err(|e| {
            anyhow!(
                "{}: {e}; the file is left to git to merge by hand",
                path.display()
            )
        })
    };
    let base_bytes = read(base)?;
    let base_item = if base_bytes.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        Some(parse(base, &base_bytes)?)
    };
    let ours_item = parse(ours, &read(ours)?)?;
    let theirs_item = parse(theirs, &read(theirs)?)?;
    let resolved = resolve(
        base_item.as_ref(),
        Side {
            item: &ours_item,
            name: "ours",
        },
        Side {
            item: &theirs_item,
            name: "theirs",
        },
    )
    .map_err(|e| anyhow!("{e}; the file is left to git to merge by hand"))?;
    write_over(ours, &resolved.item.text())?;
    if let Some(c) = resolved.conflict {
        let _ = writeln!(std::io::stderr(), "review-mcp merge-file: conflict: {c}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Replaces `path` with `text` through a temporary file beside it, fsynced and renamed.
fn write_over(path: &Path, text: &str) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow!("{}: no file name", path.display()))?;
    let tmp = path.with_file_name(format!(".{name}.merge.tmp"));
    let written = (|| -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        anyhow!("cannot write {}: {e}", path.display())
    })
}
