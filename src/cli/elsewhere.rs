//! Where a part's review is when the revision a command was given holds none: `review` and
//! `form3` given the part's FILE (whose bytes, hashed, are a revision nothing was decided at:
//! the part changed since it was reviewed, or it was reviewed under another revision) name
//! the file's other revisions that hold a review, and the exact command for each, as
//! `show_review` names what is stale against a revision. The store says what is there
//! (`Store::file_revisions`); this file only words it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::output::shown;
use review_mcp::review::absolute_path_as_uri;
use review_mcp::store::Store;
use review_mcp::text::escape_controls;
use review_mcp::tools::request_verdicts::command_line;

/// At most this many revisions are named; the others are counted.
const SHOWN: usize = 5;

/// What `subcommand` says when no decision is recorded at `revision` in the database `db`:
/// given the part's `file`, that it is the file's revision as it is now and where the file's
/// review is ([`where_reviewed`]); given a revision, to check it and the database, or give the
/// file. Several lines, the last ending in a line break.
pub(super) fn nothing_decided(
    store: &mut Store,
    db: &Path,
    file: Option<&Path>,
    revision: &str,
    subcommand: &str,
) -> String {
    let shown_db = shown(&absolute_db(db));
    let rev = escape_controls(revision);
    match file {
        Some(file) => format!(
            "no decision is recorded at {rev}, the revision of {} as it is now, in {shown_db}.\n{}",
            shown(file),
            where_reviewed(store, db, file, revision, subcommand)
        ),
        None => format!(
            "no decision is recorded at {rev} in {shown_db}: check the revision and --db (give \
             the part's FILE instead, and the revisions its review is at are named)\n"
        ),
    }
}

/// The database's path as a command printed for the engineer to run names it: absolute, so
/// that it runs from any directory; the path given, never the store's (a read-only command
/// reads a database of an older schema through a private copy, which is gone after).
fn absolute_db(db: &Path) -> PathBuf {
    std::path::absolute(db).unwrap_or_else(|_| db.to_path_buf())
}

/// The stored URIs `file` may have been recorded under: its absolute path as given (what
/// `artifact_revision` and a typed uri store), and its path with every link resolved when
/// that differs (the part reached through a linked folder).
fn locators(file: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let paths = [
        std::path::absolute(file).ok(),
        std::fs::canonicalize(file).ok(),
    ];
    for uri in paths
        .into_iter()
        .flatten()
        .filter_map(|p| absolute_path_as_uri(&p).ok())
    {
        if !out.contains(&uri) {
            out.push(uri);
        }
    }
    out
}

/// The lines that follow "no decision is recorded at `revision`" when the command was given
/// the part's `file`: the file's other revisions with a review, newest first, each with the
/// command (`subcommand`, on the database `db`) that opens it, and what to do for the part as
/// it is now. Empty when the store cannot be read (the first line is said all the same).
pub(super) fn where_reviewed(
    store: &mut Store,
    db: &Path,
    file: &Path,
    revision: &str,
    subcommand: &str,
) -> String {
    let locators = locators(file);
    let Some(uri) = locators.first() else {
        return String::new();
    };
    let shown_uri = escape_controls(uri).into_owned();
    let Ok(found) = store.file_revisions(&locators, revision) else {
        return String::new();
    };
    let (decided, notes_only): (Vec<_>, Vec<_>) = found.iter().partition(|f| f.decisions > 0);
    let mut out = String::new();
    if decided.is_empty() {
        let _ = write!(
            out,
            "Nothing is decided for {shown_uri} at any other revision either"
        );
        if !notes_only.is_empty() {
            let records: u64 = notes_only.iter().map(|f| f.records).sum();
            let _ = write!(
                out,
                " ({records} note{} or feature{} at {} other revision{})",
                if records == 1 { "" } else { "s" },
                if records == 1 { "" } else { "s" },
                notes_only.len(),
                if notes_only.len() == 1 { "" } else { "s" },
            );
        }
        out.push_str(
            ". If it was reviewed under another path (a teammate's clone records its own), give \
             the revision it was reviewed at (sha256:…); else check --db.\n",
        );
        return out;
    }
    let _ = writeln!(
        out,
        "The review of {shown_uri} is at {} other revision{} (newest first):",
        decided.len(),
        if decided.len() == 1 { "" } else { "s" }
    );
    for f in decided.iter().take(SHOWN) {
        let mut what = format!(
            "{} decision{}",
            f.decisions,
            if f.decisions == 1 { "" } else { "s" }
        );
        let standing = f.decisions - f.carried_on;
        if standing > 0 {
            let _ = write!(
                what,
                ", {} item{} awaiting your verdict",
                f.open,
                if f.open == 1 { "" } else { "s" }
            );
        }
        if let (true, Some(to)) = (f.carried_on > 0, &f.carried_to) {
            let _ = write!(
                what,
                ", {} carried on to {}",
                if standing == 0 {
                    "all".to_string()
                } else {
                    f.carried_on.to_string()
                },
                escape_controls(to)
            );
            // A file reviewed under two paths, each carried on apart: the last carry's
            // revision is named, the others counted.
            let others = f.carried_to_revisions.saturating_sub(1);
            if others > 0 {
                let _ = write!(
                    what,
                    " (and {others} other revision{})",
                    if others == 1 { "" } else { "s" }
                );
            }
        }
        let _ = writeln!(
            out,
            "  {} (last changed {}): {what}",
            escape_controls(&f.revision),
            escape_controls(&f.last_activity)
        );
        // `review` judges a carried-on decision where it went, so no command for a revision
        // all carried on; `form3` shows any revision.
        if subcommand != "review" || standing > 0 {
            let _ = writeln!(
                out,
                "    {}",
                escape_controls(&command_line(
                    subcommand,
                    Some(&absolute_db(db)),
                    None,
                    Some(&f.revision)
                ))
            );
        }
    }
    if decided.len() > SHOWN {
        let _ = writeln!(
            out,
            "  … and {} more (recall_decisions with this uri lists them)",
            decided.len() - SHOWN
        );
    }
    if let Some(latest) = decided.first().filter(|f| f.carried_on < f.decisions) {
        let _ = writeln!(
            out,
            "If the part changed since it was reviewed, have the assistant carry the review to \
             its revision now (carry_forward from {} to {}), then run this command again.",
            escape_controls(&latest.revision),
            escape_controls(revision)
        );
    }
    out
}
