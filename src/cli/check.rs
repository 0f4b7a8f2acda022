//! `review-mcp check`: the database's integrity and schema version, as an exit status.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use review_mcp::store::{self, Store, StoreError};

use super::database::{counts, open_existing, require_existing, store_error};
use review_mcp::text::counted;

use super::output::shown;

/// `review-mcp check`: SQLite's integrity and foreign-key checks, the full-text indexes and
/// the schema version. Exit status 0 only when every check passes.
pub fn run(db: &Path) -> anyhow::Result<ExitCode> {
    require_existing(db)?;
    // The file itself is checked, as it is on disk; the counts come from what a server would
    // read (an older file through an upgraded private copy).
    let (version, problems) = match Store::check_in_place(db) {
        Ok((version, problems)) => (Some(version), problems),
        // Too damaged to open: that is the problem found.
        Err(StoreError::Damaged { source, .. }) => (None, vec![format!("integrity: {source}")]),
        Err(e) => return Err(store_error(db, e)),
    };
    if !problems.is_empty() {
        let version = version.map_or_else(String::new, |v| format!(" (schema version {v})"));
        let mut err = io::stderr().lock();
        for p in &problems {
            let _ = writeln!(
                err,
                "review-mcp: {}: {}",
                shown(db),
                review_mcp::text::escape_controls(p)
            );
        }
        if store::only_index_out_of_step(&problems) {
            let _ = writeln!(
                err,
                "review-mcp: {}: {} problem(s) found{version}, in the full-text index only: every item is whole and nothing is lost; the repair above makes a new file with every item indexed again",
                shown(db),
                problems.len()
            );
            return Ok(ExitCode::FAILURE);
        }
        let _ = writeln!(
            err,
            "review-mcp: {}: {} problem(s) found{version}. Keep a copy of the file as it is, stop the servers that use it, and put your last good copy in its place (a `review-mcp backup` file, or an export imported into a new file with `review-mcp --db NEW import FILE`); `sqlite3 {} .recover` may save what a damaged file still holds",
            shown(db),
            problems.len(),
            review_mcp::text::shell_word(&db.to_string_lossy())
        );
        return Ok(ExitCode::FAILURE);
    }
    let version = version.unwrap_or_default();
    let mut store = open_existing(db)?;
    let (records, decisions) = counts(db, &mut store)?;
    let upgrade = if version < store::SCHEMA_VERSION {
        format!(" (a server upgrades it to {})", store::SCHEMA_VERSION)
    } else {
        String::new()
    };
    let mut out = io::stdout().lock();
    let written = writeln!(
        out,
        "{}: ok: schema version {version}{upgrade}, integrity ok, {}, {}",
        shown(db),
        counted(records, "record"),
        counted(decisions, "decision")
    )
    .and_then(|()| out.flush());
    crate::cli::finish_stdout(
        written,
        "the check's report",
        " (the database passed its check)",
    )
}
