//! `review-mcp sync DIR [--dry-run]`: the folder DIR kept in step with the database by
//! `review_mcp::sync::run` (where the plan, the journal and the folder's rules are), and what
//! it did printed: the conflicts, the engineer verdicts taken from the folder, the plan of a
//! dry run, and the summary, every text of the folder with its control characters escaped.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use review_mcp::sync::{Counts, Outcome, bounded};
use review_mcp::text::{counted, escape_controls, shell_word};

use super::output::shown;

/// `review-mcp sync DIR [--dry-run]`.
pub fn run(db: &Path, dir: &Path, dry_run: bool) -> anyhow::Result<ExitCode> {
    let Outcome {
        new_folder,
        moved_from,
        counts,
        plan,
        saved,
    } = review_mcp::sync::run(db, dir, dry_run, &mut |folder| {
        crate::cli::say(format_args!(
            "review-mcp sync: another sync of {} is running; waiting for it to finish\n",
            shown(folder)
        ));
    })?;
    // The report is made whole, then written: a stdout that cannot take it fails the command.
    let mut out: Vec<u8> = Vec::new();
    if new_folder {
        let dir = shown(dir);
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
    if let Some(old) = moved_from {
        let _ = writeln!(
            out,
            "{} the folder as moved from {}: this database last synced it there, and that \
             place no longer holds its id (moved, renamed or not mounted; if it is a copy on a \
             drive not mounted now, sync that copy with a database of its own)",
            if dry_run { "would sync" } else { "synced" },
            shown(&old)
        );
    }
    for c in bounded(&counts.clock, counts.clock.len()) {
        let _ = writeln!(out, "clock: {}", escape_controls(&c));
    }
    for c in &counts.conflicts {
        let _ = writeln!(out, "conflict: {}", escape_controls(c));
    }
    let arrived = match dry_run {
        true => "would take an engineer verdict from the folder",
        false => "engineer verdict from the folder",
    };
    for a in &counts.arrived {
        let _ = writeln!(out, "{arrived}: {}", escape_controls(&a.line));
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
    for file in &counts.restored {
        let _ = writeln!(
            out,
            "restored {} (merge-file set it aside: git paired its file with another item's as \
             a rename): commit it",
            escape_controls(file)
        );
    }
    for line in &counts.stale_kept {
        let _ = writeln!(out, "{}", escape_controls(line));
    }
    deletions(&counts, dry_run, &mut out);
    let meanwhile = &counts.changed_meanwhile;
    for file in bounded(meanwhile, meanwhile.len()) {
        let _ = writeln!(
            out,
            "changed while sync ran, left as it is: {}",
            escape_controls(&file)
        );
    }
    summary(&counts, dry_run, &mut out);
    if !meanwhile.is_empty() {
        let _ = writeln!(
            out,
            "{} files changed in the folder while sync ran (a git pull, an editor) and were \
             left as they are: run sync again to merge them with the database (nothing of \
             either is lost)",
            meanwhile.len()
        );
    }
    saved_note(db, &counts, saved.as_deref(), dry_run, &mut out);
    let mut stdout = io::stdout().lock();
    let written = stdout.write_all(&out).and_then(|()| stdout.flush());
    let after = match dry_run {
        true => " (nothing was changed)",
        false => " (the sync itself was done: the folder and the database are in step)",
    };
    crate::cli::finish_stdout(written, "the sync's report", after)
}

/// Each item deleted from the database and each file deleted from the folder, named (the
/// first few of each, then how many more).
fn deletions(c: &Counts, dry_run: bool, out: &mut dyn Write) {
    let would = if dry_run { "would be " } else { "" };
    let sides = [
        (
            "database",
            &c.removed_items,
            c.deleted_items[0] + c.deleted_items[1],
        ),
        (
            "folder",
            &c.removed_files,
            c.deleted_files[0] + c.deleted_files[1],
        ),
    ];
    for (side, named, total) in sides {
        for line in bounded(named, total) {
            let _ = writeln!(
                out,
                "{would}deleted from the {side}: {}",
                escape_controls(&line)
            );
        }
    }
}

/// Where the items deleted from the database (and the database versions conflicts replaced)
/// were saved, and the command that brings them back.
fn saved_note(db: &Path, c: &Counts, saved: Option<&Path>, dry_run: bool, out: &mut dyn Write) {
    let n = c.deleted_items[0] + c.deleted_items[1];
    let replaced = c.replaced_saved;
    if n + replaced == 0 {
        return;
    }
    let items = |k: usize| if k == 1 { "item" } else { "items" };
    let what = match (n, replaced) {
        (_, 0) => format!("the {n} {} deleted from the database", items(n)),
        (0, r) => format!(
            "the database's version of the {r} {} a conflict replaced",
            items(r)
        ),
        (n, r) => format!(
            "the {n} {} deleted from the database and the database's version of the {r} {} a \
             conflict replaced",
            items(n),
            items(r)
        ),
    };
    let db = std::path::absolute(db).unwrap_or_else(|_| db.to_path_buf());
    match (dry_run, saved) {
        (true, _) => {
            let dir = review_mcp::sync::saved_dir(&db);
            let _ = writeln!(
                out,
                "would save {what} in {}/ first (`review-mcp import` of that file brings them \
                 back)",
                shown(&dir)
            );
        }
        (false, Some(file)) if n == 0 && c.older_saved == 0 => {
            let _ = writeln!(
                out,
                "saved {what} in {} (to compare with the merge: import keeps the later version)",
                shown(file)
            );
        }
        (false, Some(file)) => {
            let unmeant = match (n, c.older_saved) {
                (_, 0) => {
                    "a deletion was not meant (a force-push, a `git reset`, a file deleted \
                           by hand)"
                }
                (0, _) => {
                    "the older folder version was not meant (a `git checkout`, `git \
                           stash` or `git reset` of a file sync wrote and no commit held)"
                }
                _ => {
                    "a deletion or an older folder version was not meant (a force-push, a \
                      `git checkout`, `git stash` or `git reset`, a file deleted by hand)"
                }
            };
            let _ = writeln!(
                out,
                "saved {what} in {}; if {unmeant}, bring them back with: review-mcp --db {} \
                 import {}, then sync again (where the database holds a later version, import \
                 keeps it: the file is there to compare)",
                shown(file),
                shell_word(&db.to_string_lossy()),
                shell_word(&file.to_string_lossy())
            );
        }
        (false, None) => {}
    }
}

/// The one-line summary per kind of change.
fn summary(c: &Counts, dry_run: bool, out: &mut dyn Write) {
    let would = if dry_run { "would be " } else { "" };
    let mut line = |what: &str, n: [usize; 2], then: &str| {
        let (r, d) = (n[0], n[1]);
        let _ = writeln!(
            out,
            "{would}{what}: {} ({}, {}){then}",
            r + d,
            counted(r, "record"),
            counted(d, "decision")
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
            "{would}taken from the folder: {} (the folder is unsigned: \
             check in the pull request who gave each)",
            count(c.arrived.len(), "engineer verdict")
        );
    }
    if !c.arrived_events.is_empty() {
        let _ = writeln!(
            out,
            "{would}taken from the folder's history: {} (the folder is \
             unsigned: check in the pull request who gave each)",
            count(c.arrived_events.len(), "engineer verdict event")
        );
    }
    if dry_run {
        let _ = writeln!(out, "dry run: nothing was changed");
    }
}

/// `n` and the noun, plural unless one: "1 engineer verdict", "2 engineer verdicts".
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
