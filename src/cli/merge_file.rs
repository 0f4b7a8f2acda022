//! `review-mcp merge-file BASE OURS THEIRS`: the git merge driver of a synced folder. It
//! resolves two versions of one item file by the rule `sync` applies (`sync::merge`, with the
//! outranking rule of the tools: an assistant's verdict never replaces an engineer's, whichever
//! side changed), writes the result over OURS (atomically) and exits 0; a conflict is named on
//! stderr, as git shows a driver's messages, with every control character escaped. A file
//! that does not parse as an item (conflict markers, another file's text) is left to git: OURS
//! is untouched and the exit status is 1. The three inputs are read as sync reads a folder's
//! files: regular files only (never through a symbolic link, never a device or FIFO), each at
//! most `MAX_FILE_BYTES`.
//!
//! git gives an empty BASE when both sides added the file: the merge then has no base.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::anyhow;

use review_mcp::sync::Item;
use review_mcp::sync::merge::{Side, resolve};
use review_mcp::text::escape_controls;

use super::import_rules::Schemas;
use super::sync::{MAX_FILE_BYTES, parse_item, read_regular, replace_file, shown};

/// `review-mcp merge-file BASE OURS THEIRS`.
pub fn run(base: &Path, ours: &Path, theirs: &Path) -> anyhow::Result<ExitCode> {
    let schemas = Schemas::from_tools().map_err(|e| anyhow!("{e}"))?;
    let read = |path: &Path| -> anyhow::Result<Vec<u8>> {
        read_regular(path, MAX_FILE_BYTES).map_err(|why| anyhow!("{}: {why}", shown(path)))
    };
    let parse = |path: &Path, bytes: &[u8]| -> anyhow::Result<Item> {
        parse_item(bytes, &schemas).map_err(|e| {
            anyhow!(
                "{}: {}; the file is left to git to merge by hand",
                shown(path),
                escape_controls(&e)
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
    .map_err(|e| {
        anyhow!(
            "{}; the file is left to git to merge by hand",
            escape_controls(&e)
        )
    })?;
    replace_file(ours, &resolved.item.text())
        .map_err(|e| anyhow!("cannot write {}: {e}", shown(ours)))?;
    if let Some(c) = resolved.conflict {
        let _ = writeln!(
            std::io::stderr(),
            "review-mcp merge-file: conflict: {}",
            escape_controls(&c)
        );
    }
    Ok(ExitCode::SUCCESS)
}
