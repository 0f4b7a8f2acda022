//! `review-mcp export [-o FILE]`: every record and decision as JSON Lines.
//!
//! The format, one JSON object per line and nothing else (no header, no timestamp of the
//! export itself, so that export -> import into an empty database -> export is
//! byte-identical):
//!
//! ```text
//! {"record":{"id":"rec_…","kind":"feature","name":"mating face",…,"created_at":…,"updated_at":…}}
//! {"decision":{"id":"dec_…","subject":"bore","disposition":"hold","basis":[…],…}}
//! {"event":{"after":"…","at":…,"channel":"assistant","id":"evt-…","kind":"created",…}}
//! ```
//!
//! Records come first, then decisions, each sorted by (`created_at`, `id`), then the review's
//! history, every event as stored, oldest first (`Store::events`); the three are read in one
//! snapshot, so the events and the items they explain are of one moment. Both keep their
//! `id` and `created_at` when they are replaced, so a replaced record changes its line in
//! place and two exports of one database over time diff cleanly in git.

use std::io;
use std::path::Path;
use std::process::ExitCode;

use review_mcp::sync::line::{ExportError, export_from};
use review_mcp::text::counted;

use super::database::{open_existing, store_error};
use super::output::{refuse_output, write_beside};

/// `review-mcp export [-o FILE]`: JSON Lines on stdout, or into FILE through a temporary file
/// renamed into place, so a failed export never leaves a truncated backup behind.
pub fn run(db: &Path, output: Option<&Path>) -> anyhow::Result<ExitCode> {
    if let Some(path) = output {
        refuse_output(db, path)?;
    }
    let mut store = open_existing(db)?;
    // Read and written one item at a time: an export holds one item in memory.
    let Some(path) = output else {
        let mut out = io::BufWriter::new(io::stdout().lock());
        return match export_from(&mut store, &mut out) {
            Ok(_) => Ok(ExitCode::SUCCESS),
            Err(ExportError::Write(e)) => crate::cli::finish_stdout(Err(e), "the export", ""),
            Err(ExportError::Store(e)) => Err(store_error(db, e)),
        };
    };
    let (r, d, e) = write_beside(path, db, |file| {
        let mut out = io::BufWriter::new(file);
        let counts = match export_from(&mut store, &mut out) {
            Ok(counts) => counts,
            Err(ExportError::Write(e)) => return Err(e.into()),
            Err(ExportError::Store(e)) => return Err(store_error(db, e)),
        };
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        Ok(counts)
    })?;
    log::info!(
        "exported {}, {} and {} to {}",
        counted(r, "record"),
        counted(d, "decision"),
        counted(e, "history event"),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
