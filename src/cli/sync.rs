//! `review-mcp sync DIR [--dry-run]`: the folder DIR kept in step with the database by
//! `review_mcp::sync::run` (where the plan, the journal and the folder's rules are), and what
//! it did printed: the conflicts, the engineer verdicts taken from the folder, the plan of a
//! dry run, and the summary, every text of the folder with its control characters escaped.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use review_mcp::sync::{Counts, Outcome};
use review_mcp::text::escape_controls;

/// `review-mcp sync DIR [--dry-run]`.
pub fn run(db: &Path, dir: &Path, dry_run: bool) -> anyhow::Result<ExitCode> {
    let Outcome {
        new_folder,
        counts,
        plan,
    } = review_mcp::sync::run(db, dir, dry_run, &mut |folder| {
        eprintln!(
            "review-mcp sync: another sync of {} is running; waiting for it to finish",
            escape_controls(&folder.display().to_string())
        );
    })?;
    let mut out = io::stdout().lock();
    if new_folder {
        let dir = escape_controls(&dir.display().to_string()).into_owned();
        let _ = match dry_run {
            true => writeln!(
                out,
                "would make the folder {dir}: it does not exist (check its name)"
            ),
            false => writeln!(
                out,
                "made the folder {dir}: it did not exist (if the name is mistyped, delete it and sync the right one)"
            ),
        };
    }
    for c in &counts.conflicts {
        let _ = writeln!(out, "conflict: {}", escape_controls(c));
    }
    let arrived = match dry_run {
        true => "would take an engineer verdict from the folder",
        false => "engineer verdict from the folder",
    };
    for a in &counts.arrived {
        let _ = writeln!(out, "{arrived}: {}", escape_controls(a));
    }
    let arrived_event = match dry_run {
        true => "would take an engineer verdict event from the folder's history",
        false => "engineer verdict event from the folder's history",
    };
    for a in &counts.arrived_events {
        let _ = writeln!(out, "{arrived_event}: {}", escape_controls(a));
    }
    if dry_run {
        for line in &plan {
            let _ = writeln!(out, "would {}", escape_controls(line));
        }
    }
    summary(&counts, dry_run, &mut out);
    Ok(ExitCode::SUCCESS)
}

/// The one-line summary per kind of change.
fn summary(c: &Counts, dry_run: bool, out: &mut dyn Write) {
    let would = if dry_run { "would be " } else { "" };
    let mut line = |what: &str, n: [usize; 2], then: &str| {
        let (r, d) = (n[0], n[1]);
        let _ = writeln!(
            out,
            "{would}{what}: {} ({r} records, {d} decisions){then}",
            r + d
        );
    };
    line("written to the folder", c.written, "");
    line("imported into the database", c.imported, "");
    line(
        "deleted",
        c.deleted,
        &format!(
            ": {} from the folder, {} from the database",
            c.deleted_files[0] + c.deleted_files[1],
            c.deleted_items[0] + c.deleted_items[1]
        ),
    );
    let _ = writeln!(
        out,
        "history events: {} {would}written to the folder, {} {would}imported into the database",
        c.history_written, c.history_imported
    );
    let _ = writeln!(out, "conflicts: {}", c.conflicts.len());
    if !c.arrived.is_empty() {
        let _ = writeln!(
            out,
            "{would}taken from the folder: {} engineer verdicts (the folder is unsigned: \
             check in the pull request who gave each)",
            c.arrived.len()
        );
    }
    if !c.arrived_events.is_empty() {
        let _ = writeln!(
            out,
            "{would}taken from the folder's history: {} engineer verdict events (the folder is \
             unsigned: check in the pull request who gave each)",
            c.arrived_events.len()
        );
    }
    if dry_run {
        let _ = writeln!(out, "dry run: nothing was changed");
    }
}
