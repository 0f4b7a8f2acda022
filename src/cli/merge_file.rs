//! `review-mcp merge-file BASE OURS THEIRS [PATH]`: the git merge driver of a synced folder
//! (`review_mcp::sync::merge_files`). It exits 0 with the result written over OURS; a conflict
//! is named on stderr, as git shows a driver's messages, with every control character
//! escaped. A file that does not parse as an item is left to git: OURS is untouched and the
//! exit status is 1.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use review_mcp::sync::merge_files;
use review_mcp::text::escape_controls;

/// `review-mcp merge-file BASE OURS THEIRS [PATH]` (PATH: git's `%P`, for the messages).
pub fn run(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    name: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    if let Some(c) = merge_files(base, ours, theirs, name)? {
        let _ = writeln!(
            std::io::stderr(),
            "review-mcp merge-file: conflict: {}",
            escape_controls(&c)
        );
    }
    Ok(ExitCode::SUCCESS)
}
