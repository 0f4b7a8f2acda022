//! Records and decisions outside the database, with every rule of the commands that move
//! them: `export` and `import` (the export line), and team review memory through git (`sync`'s
//! folder and three-way rule, `merge-file`). The server path never imports this module.
//!
//! A folder holds one file per item, `records/<id>.json` and `decisions/<id>.json`, each the
//! export line of that item (`{"record": {…}}` or `{"decision": {…}}`) pretty-printed, keys in
//! the struct's field order, with a final newline ([`Item::text`]), so that a change to one
//! item is a small readable diff and two engineers touching different items never touch the
//! same file.
//!
//! For each item the database remembers its *base*, the text of its file at the last sync of
//! that folder (one the folder's git repository never held is none: `run::forget_unheld_bases`).
//! [`classify`] compares the database's version, the folder's and the base by
//! the sha256 of their text; [`merge::resolve`] settles an item changed on both sides. This
//! module knows no SQL: `store::SyncTx` is the database side; the command line (`cli/sync.rs`,
//! `cli/import.rs`, `cli/merge_file.rs`) parses the arguments and prints what these files did.
//!
//! The review's history travels beside the items as append-only data, one file per event,
//! `history/<event id>.json`, outside the three-way rule: a sync takes the union of the
//! folder's events and the database's (`history.rs`).
//!
//! The files: `mod.rs` (items, their text, the per-item plan), `line.rs` (what an export line,
//! an item file and an event must be: the import rules), `import.rs` (an export file read back),
//! `merge.rs` (the rule for an item changed on both sides), `run.rs` (one sync, in order),
//! `folder.rs` (the folder's files read and written, `merge_files`), `apply.rs` (the plan
//! acted on, the journal), `owned.rs` (the lock, the id file and where a database last synced
//! the folder, the README, the test hook), `history.rs` (the history files read and the missing
//! ones found), `git.rs` (the repository's settings that would keep git from checking out or
//! committing the folder's files as sync writes them, asked of git; whether the repository
//! holds a base's text at all, `Objects`), `sides.rs` (what the merge driver reads of the two
//! commits git is merging), `new_database.rs` (a database a refused import or sync created,
//! removed again), `saved.rs` (the items a sync deletes from the database, named and saved
//! beside it to be imported back).

/// A [`Error`] from a message, as `format!` takes it.
macro_rules! fail {
    ($($arg:tt)*) => {
        $crate::sync::Error(format!($($arg)*))
    };
}

mod apply;
mod folder;
mod git;
mod history;
pub mod import;
pub mod line;
pub mod merge;
mod new_database;
mod owned;
mod run;
mod saved;
mod sides;

pub use folder::merge_files;
pub use run::{Counts, Outcome, run};
pub use saved::{bounded, saved_dir};

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::review::{Decision, Record};
use crate::store;

/// A record or a decision, serialised as its export line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Item {
    Record(Record),
    Decision(Decision),
}

/// Which of the two an item is: its folder (`records`, `decisions`) and its base's kind; as a
/// `usize`, its place in the counts of a sync (`[records, decisions]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ItemKind {
    Record,
    Decision,
}

impl ItemKind {
    pub const ALL: [ItemKind; 2] = [ItemKind::Record, ItemKind::Decision];

    /// The kind as the database's `sync_bases` table and messages spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::Record => store::RECORD,
            ItemKind::Decision => store::DECISION,
        }
    }

    pub fn parse(s: &str) -> Option<ItemKind> {
        match s {
            store::RECORD => Some(ItemKind::Record),
            store::DECISION => Some(ItemKind::Decision),
            _ => None,
        }
    }

    /// What two items of this kind share when they are one under two ids: their natural key.
    pub fn key_name(self) -> &'static str {
        match self {
            ItemKind::Record => "feature (locator and name)",
            ItemKind::Decision => "decision (locator, subject and revision)",
        }
    }

    /// The subfolder its files live in.
    pub fn dir(self) -> &'static str {
        match self {
            ItemKind::Record => "records",
            ItemKind::Decision => "decisions",
        }
    }
}

/// Why a sync, an import or a merge stopped: a message for the engineer, every part taken
/// from a file or the folder already escaped where it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::FileTooLarge {
            // EFBIG: the binary ignores SIGXFSZ, so a write past `ulimit -f` fails here (as
            // does one past the file system's own largest file).
            let (why, fix) = store::file::too_large();
            return Error(format!(
                "{e}: a file would be {why}. {fix} and run the command again"
            ));
        }
        Error(e.to_string())
    }
}

impl From<String> for Error {
    fn from(message: String) -> Self {
        Error(message)
    }
}

impl From<store::StoreError> for Error {
    fn from(e: store::StoreError) -> Self {
        // A write refused by the file-size limit is said as such ("disk I/O error" otherwise).
        if e.file_size_limit_met().is_some() {
            return Error(e.user_message());
        }
        Error(e.to_string())
    }
}

/// At most this many bad lines of an import, or bad files of a folder, are named; the rest
/// are counted.
const MAX_REPORTED: usize = 20;

/// The result of a step of a sync, an import or a merge.
pub type Result<T> = std::result::Result<T, Error>;

/// The sha256 of an item's file text.
pub type Hash = [u8; 32];

/// A path as sync's messages show it: control characters escaped, so a name made by a pulled
/// commit (or a folder named by a script) cannot fake a line of the message or act on the
/// terminal.
use crate::text::shown_path as shown;

/// The sha256 of `bytes`.
pub fn hash(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}

impl Item {
    pub fn kind(&self) -> ItemKind {
        match self {
            Item::Record(_) => ItemKind::Record,
            Item::Decision(_) => ItemKind::Decision,
        }
    }

    pub fn id(&self) -> &str {
        match self {
            Item::Record(r) => &r.id,
            Item::Decision(d) => &d.id,
        }
    }

    pub fn updated_at(&self) -> &str {
        match self {
            Item::Record(r) => &r.updated_at,
            Item::Decision(d) => &d.updated_at,
        }
    }

    pub fn created_at(&self) -> &str {
        match self {
            Item::Record(r) => &r.created_at,
            Item::Decision(d) => &d.created_at,
        }
    }

    /// The item as export and sync write it: a row an older version edited under a clock
    /// behind its `created_at` holds an `updated_at` before it, which import refuses; it is
    /// written as edited when it was created, so every line and file imports back.
    pub fn clamped(&self) -> Cow<'_, Item> {
        if self.updated_at() >= self.created_at() {
            return Cow::Borrowed(self);
        }
        let mut item = self.clone();
        match &mut item {
            Item::Record(r) => r.updated_at.clone_from(&r.created_at),
            Item::Decision(d) => d.updated_at.clone_from(&d.created_at),
        }
        Cow::Owned(item)
    }

    /// The item as its folder file holds it: the export line [`file_text`],
    /// [`clamped`](Item::clamped).
    pub fn text(&self) -> String {
        file_text(&*self.clamped())
    }

    /// Every record, then every decision.
    pub fn all(records: Vec<Record>, decisions: Vec<Decision>) -> Vec<Item> {
        records
            .into_iter()
            .map(Item::Record)
            .chain(decisions.into_iter().map(Item::Decision))
            .collect()
    }

    /// The sha256 of [`Item::text`].
    pub fn hash(&self) -> Hash {
        hash(self.text().as_bytes())
    }

    /// The item in one line for a reader of sync's output: its kind and id, what it is
    /// called and where (`record rec_… feature "bore" at file:///w/p.step`, `decision dec_…
    /// "bracket" = hold at …`), every stored string short and with its control characters
    /// escaped, quoted where it could be taken for the line's own words.
    pub fn describe(&self) -> String {
        use crate::text::{disposition, inline, quoted};
        match self {
            Item::Record(r) => {
                let what = match (&r.name, &r.note) {
                    (Some(name), _) => format!("feature {}", quoted(name, 80)),
                    (None, Some(note)) => format!("note {}", quoted(note, 60)),
                    (None, None) => "note".to_string(),
                };
                format!(
                    "record {} {what} at {}",
                    inline(&r.id, 80),
                    inline(r.artifact.locator(), 200)
                )
            }
            Item::Decision(d) => format!(
                "decision {} {} = {} at {}",
                inline(&d.id, 80),
                quoted(&d.subject, 80),
                disposition(&d.disposition, 60),
                inline(d.artifact.locator(), 200)
            ),
        }
    }
}

/// A line as a folder file holds it: pretty-printed (two-space indent, keys in field order)
/// with a final newline, and, as the export writes them, every character a terminal would
/// obey or a reader take for a line end that serde_json leaves raw (DEL, C1 controls, the
/// Unicode line and paragraph separators, the bidirectional controls) written as a `\u202e`
/// escape: the same value, but `git diff` or a pull request shows a note in the order it is
/// stored.
fn file_text(line: &impl Serialize) -> String {
    // Serialising plain structs of strings, enums and vectors cannot fail; an empty object
    // would be refused by the next sync rather than lose anything silently.
    let pretty = serde_json::to_string_pretty(line).unwrap_or_else(|_| "{}".into());
    let mut text = crate::text::escape_json_controls_but_newlines(&pretty).into_owned();
    text.push('\n');
    text
}

/// What a sync does with one item, from the hashes of its database version, folder version
/// and base (`None`: absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Both sides hold the same text (or neither holds it): only the base follows.
    InSync,
    /// Changed only in the database, or new there: written to the folder.
    ToFolder,
    /// Changed only in the folder, or new there: imported.
    ToDatabase,
    /// Deleted in the database, unchanged in the folder: the file is deleted.
    DeleteFile,
    /// Deleted in the folder, unchanged in the database: the item is deleted.
    DeleteItem,
    /// Deleted in the folder but changed in the database: kept, written back, reported.
    KeepDatabase,
    /// Deleted in the database but changed in the folder: kept, imported back, reported.
    KeepFolder,
    /// Changed on both sides (or new on both, differently): [`merge::resolve`], reported.
    Resolve,
}

/// The three-way rule of one item.
pub fn classify(db: Option<&Hash>, folder: Option<&Hash>, base: Option<&Hash>) -> Action {
    if db == folder {
        return Action::InSync;
    }
    let db_changed = db != base;
    let folder_changed = folder != base;
    match (db, folder) {
        (Some(_), Some(_)) if !folder_changed => Action::ToFolder,
        (Some(_), Some(_)) if !db_changed => Action::ToDatabase,
        (Some(_), Some(_)) => Action::Resolve,
        // Absent in the folder.
        (Some(_), None) if base.is_none() => Action::ToFolder,
        (Some(_), None) if db_changed => Action::KeepDatabase,
        (Some(_), None) => Action::DeleteItem,
        // Absent in the database.
        (None, Some(_)) if base.is_none() => Action::ToDatabase,
        (None, Some(_)) if folder_changed => Action::KeepFolder,
        (None, Some(_)) => Action::DeleteFile,
        // Unreachable: both absent is `db == folder`.
        (None, None) => Action::InSync,
    }
}

/// The README a synced folder carries, written by `review-mcp sync`.
pub const README: &str = "\
# Review memory

This folder is written by `review-mcp sync`: the design-review records and decisions of
this repository, one file per item (`records/<id>.json`, `decisions/<id>.json`), in the form
`review-mcp export` writes them, and the review's history, one file per event
(`history/<event id>.json`). An event's id is the digest of its content: events are only
ever added, two engineers' events never share a file, and an edited one is refused. Do not edit it by hand; record and edit through the
assistant, then run `review-mcp sync` on this folder before you commit and after you pull.
Commit `.review-mcp-folder` with it: it names this folder to every database that syncs it,
wherever the checkout lives.

Two engineers who change the same item make git stop on that file. Let review-mcp merge it
(once per clone):

    git config merge.review.driver \"review-mcp merge-file %O %A %B %P\"

The folder's own `.gitattributes`, written by sync, gives every file here to that driver,
wherever the folder is moved.
";

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (found by adv5): a write refused with `EFBIG` while this process has no
    /// file-size limit (the file system's own maximum: FAT32's 4 GiB a file) was reported as
    /// "larger than the file-size limit of this process (ulimit -f)", advising to raise a
    /// limit there is none of. It names the limit only when there is one.
    #[test]
    fn a_file_too_large_names_the_limit_only_when_there_is_one() {
        let said = Error::from(std::io::Error::from(std::io::ErrorKind::FileTooLarge)).0;
        match store::file::file_size_limit() {
            Some(limit) => assert!(
                said.contains(&format!("ulimit -f: {limit} bytes")),
                "{said}"
            ),
            None if cfg!(target_os = "linux") => {
                assert!(!said.contains("ulimit"), "{said}");
                assert!(said.contains("file system"), "{said}");
            }
            None => assert!(said.contains("ulimit -f"), "{said}"),
        }
    }

    #[test]
    fn classify_follows_the_three_way_rule() {
        let (a, b, c) = (hash(b"a"), hash(b"b"), hash(b"c"));
        let cases = [
            (Some(&a), Some(&a), Some(&b), Action::InSync),
            (None, None, Some(&a), Action::InSync),
            (Some(&b), Some(&a), Some(&a), Action::ToFolder),
            (Some(&a), Some(&b), Some(&a), Action::ToDatabase),
            (Some(&b), Some(&c), Some(&a), Action::Resolve),
            (Some(&b), Some(&c), None, Action::Resolve),
            (Some(&a), None, None, Action::ToFolder),
            (None, Some(&a), None, Action::ToDatabase),
            (None, Some(&a), Some(&a), Action::DeleteFile),
            (Some(&a), None, Some(&a), Action::DeleteItem),
            (Some(&b), None, Some(&a), Action::KeepDatabase),
            (None, Some(&b), Some(&a), Action::KeepFolder),
        ];
        for (db, folder, base, want) in cases {
            assert_eq!(
                classify(db, folder, base),
                want,
                "{db:?} {folder:?} {base:?}"
            );
        }
    }
}
