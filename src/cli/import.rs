//! `review-mcp import FILE`: an export read back (`review_mcp::sync::import`, where the rules
//! are), and what it did reported on stdout.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use review_mcp::sync::import::import_file;
use review_mcp::text::counted;

use super::output::shown;

/// How to have such a statement live again: the carried feature stands where the carry took it
/// (a saved file of a sync's deletions brings a statement made anew there back this way too).
const LIVE_AGAIN: &str = "to have one live there again, forget the feature where it stands, \
                          then remember it at that revision";

/// What the report says of the lines kept as what an old revision says of a carried feature
/// (nothing when there were none, so the usual report is as it was).
fn stayed(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => format!(
            ", kept 1 as what the revision it states says of a feature a carry moved on from \
             there (its superseded copy; {LIVE_AGAIN})"
        ),
        n => format!(
            ", kept {n} as what the revisions they state say of features a carry moved on from \
             there (their superseded copies; {LIVE_AGAIN})"
        ),
    }
}

/// `review-mcp import FILE`: validate every line, then let the store judge and write them in
/// one transaction as it reads the file again, and report what it did on stdout.
pub fn run(db: &Path, file: &Path) -> anyhow::Result<ExitCode> {
    let done = import_file(db, file)?;
    let mut out = io::stdout().lock();
    let written = writeln!(
        out,
        "{}: {}: added {}, replaced {}, kept the database's {} (as held, or not later){}; history: {}, {} new",
        shown(file),
        counted(done.lines, "line"),
        done.summary.added,
        done.summary.replaced,
        done.summary.unchanged,
        stayed(done.summary.stayed),
        counted(done.events, "event"),
        done.summary.events_added
    )
    .and_then(|()| {
        done.engineer_verdicts.iter().try_for_each(|v| {
            let v = review_mcp::text::escape_controls(v);
            writeln!(out, "engineer verdict event from the file: {v}")
        })
    })
    .and_then(|()| {
        done.clock.iter().try_for_each(|c| {
            writeln!(out, "clock: {}", review_mcp::text::escape_controls(c))
        })
    })
    .and_then(|()| out.flush());
    crate::cli::finish_stdout(
        written,
        "the import's report",
        " (the import itself was done)",
    )
}
