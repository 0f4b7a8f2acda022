//! `review-mcp check`: the database's integrity and schema version, as an exit status.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::anyhow;

use review_mcp::store::{self, Store};

use super::database::{counts, open_existing, require_existing};

/// `review-mcp check`: SQLite's integrity and foreign-key checks, the full-text indexes and
/// the schema version. Exit status 0 only when every check passes.
pub fn run(db: &Path) -> anyhow::Result<ExitCode> {
    require_existing(db)?;
    // The file itself is checked, as it is on disk; the counts come from what a server would
    // read (an older file through an upgraded private copy).
    let (version, problems) = Store::check_in_place(db).map_err(|e| anyhow!("{e}"))?;
    if !problems.is_empty() {
        let mut err = io::stderr().lock();
        for p in &problems {
            let _ = writeln!(err, "review-mcp: {}: {p}", db.display());
        }
        let _ = writeln!(
            err,
            "review-mcp: {}: {} problem(s) found (schema version {version})",
            db.display(),
            problems.len()
        );
        return Ok(ExitCode::FAILURE);
    }
    let mut store = open_existing(db)?;
    let (records, decisions) = counts(&mut store)?;
    let upgrade = if version < store::SCHEMA_VERSION {
        format!(" (a server upgrades it to {})", store::SCHEMA_VERSION)
    } else {
        String::new()
    };
    let mut out = io::stdout().lock();
    let _ = writeln!(
        out,
        "{}: ok: schema version {version}{upgrade}, integrity ok, {records} records, {decisions} decisions",
        db.display()
    );
    Ok(ExitCode::SUCCESS)
}
