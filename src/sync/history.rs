//! The review's history in a synced folder: one file per event, `history/<event id>.json`
//! (the event's export line `{"event":{…}}` pretty-printed, with a final newline). An event's
//! id is the digest of its content, so two engineers' events never share a file, a git merge
//! of two clones is the union of their histories by construction, and an edited file no
//! longer matches its name.
//!
//! History is append-only data, outside the three-way rule of the items: a sync adds to the
//! database every event of the folder it does not hold (before it writes any item, so an
//! item whose state the folder's events tell records nothing more), and writes to the folder
//! every event of the database the folder lacks (a deleted event file is written back). No
//! event is ever changed or dropped, on either side. A file that is not an event file (a
//! link, not a regular file, over [`MAX_FILE_BYTES`], a bad name, an edited or malformed
//! event) refuses the sync, named, as a bad item file does.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::folder::{
    HASH_THREADS, MAX_FILE_BYTES, MAX_READ_BYTES, cannot_list, misnamed, on_threads, read_regular,
};
use super::line::{event_text, parse_event};
use super::{Result, shown};
use crate::review::history::Event;
use crate::text::escape_controls;

/// The subfolder of the history files.
pub(super) const HISTORY_DIR: &str = "history";

/// The folder's history as read: the events of its files the database did not hold, the id
/// of every event file found sound, and the files refused.
#[derive(Debug, Default)]
pub(super) struct FolderHistory {
    /// The events the database did not hold (those it holds are checked, then not kept).
    pub(super) events: Vec<Event>,
    /// The id of every sound event file of the folder.
    pub(super) present: Vec<String>,
    pub(super) problems: Vec<String>,
    /// The bytes of the event files the database does not hold, counted against what one
    /// sync reads and holds ([`MAX_READ_BYTES`]): none is read when they come to more.
    pub(super) bytes: u64,
}

/// Whether `name` is an event file's name: `evt-` and 32 lowercase hex digits, `.json`.
fn event_id_of(name: &str) -> Option<&str> {
    let id = name.strip_suffix(".json")?;
    let hex = id.strip_prefix("evt-")?;
    (hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))).then_some(id)
}

/// Reads every file of `history/`: each must be a regular file (never a link, device or
/// FIFO, never read past [`MAX_FILE_BYTES`]) named by its event's id, holding a sealed event.
/// Hidden files (a temporary of an interrupted sync) are skipped unless they are links. A
/// folder without `history/` has no events. The events of `held` (the database's) are
/// checked like the others but not kept: only what is new is held in memory.
pub(super) fn read_history(folder: &Path, held: &HashSet<String>) -> Result<FolderHistory> {
    let mut out = FolderHistory::default();
    let dir = folder.join(HISTORY_DIR);
    let listing = match fs::read_dir(&dir) {
        Ok(l) => l,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(cannot_list(&dir, &e)),
    };
    let mut files = Vec::new();
    for entry in listing {
        let entry = entry.map_err(|e| fail!("cannot read {}: {e}", shown(&dir)))?;
        let path = entry.path();
        let link = entry.file_type().is_ok_and(|t| t.is_symlink());
        let name = entry.file_name();
        let name = name.to_str();
        if name == Some(super::owned::ATTRIBUTES_FILE) {
            out.problems.push(format!(
                "{}: {}",
                shown(&path),
                super::owned::NESTED_ATTRIBUTES
            ));
            continue;
        }
        if name.is_some_and(|n| n.starts_with('.')) && !link {
            continue;
        }
        match name.and_then(event_id_of) {
            Some(id) => {
                // The size the entry has now (a link's own): each file is bounded again as it
                // is read.
                if !held.contains(id) {
                    let len = entry.metadata().map_or(0, |m| m.len());
                    out.bytes = out.bytes.saturating_add(len);
                }
                files.push((path, id.to_string()));
            }
            None => out.problems.push(misnamed(
                &path,
                link,
                &format!("not a history file ({HISTORY_DIR}/<event id>.json)"),
            )),
        }
    }
    if out.bytes > MAX_READ_BYTES {
        // Too much to hold: refused (with the item files' problems), none read.
        return Ok(out);
    }
    // Read and checked on a few threads: a history holds more files than the items do.
    for read in on_threads(&files, HASH_THREADS, |part| read_files(part, held)) {
        let (events, present, problems) = read.unwrap_or_else(|| {
            (
                Vec::new(),
                Vec::new(),
                vec![format!("{}: a reader failed", shown(&dir))],
            )
        });
        out.events.extend(events);
        out.present.extend(present);
        out.problems.extend(problems);
    }
    // The order events arrive in a database: by time, then by their place in their write.
    out.events
        .sort_by(|a, b| (&a.at, a.step, &a.id).cmp(&(&b.at, b.step, &b.id)));
    Ok(out)
}

/// Each event file of `files` (path, the id its name gives) read and checked: the events
/// not `held`, the ids of the sound files, the problems.
fn read_files(
    files: &[(PathBuf, String)],
    held: &HashSet<String>,
) -> (Vec<Event>, Vec<String>, Vec<String>) {
    let mut events = Vec::new();
    let mut present = Vec::new();
    let mut problems = Vec::new();
    for (path, id) in files {
        match read_regular(path, MAX_FILE_BYTES).and_then(|bytes| parse_event(&bytes)) {
            Ok(e) if e.id == *id => {
                present.push(e.id.clone());
                if !held.contains(id) {
                    events.push(e);
                }
            }
            Ok(e) => problems.push(format!(
                "{}: holds event {}, but its name is {id}: an event file is named by its \
                 event's id",
                shown(path),
                e.id
            )),
            Err(why) => problems.push(format!("{}: {}", shown(path), escape_controls(&why))),
        }
    }
    (events, present, problems)
}

/// The engineer's verdicts that the events of `events` whose ids are in `added` (new to the
/// database) say were given: one line each, naming the event's file, the decision, the
/// requirement, the judgement, the channel, the author and the meaning. The folder is
/// unsigned and an event's seal is a digest anyone can compute, so an event can claim any
/// engineer's verdict: like a verdict of an item file, each is listed for the reviewer.
pub(super) fn engineer_verdict_events(events: &[Event], added: &[String]) -> Vec<String> {
    let added: BTreeSet<&str> = added.iter().map(String::as_str).collect();
    events
        .iter()
        .filter(|e| added.contains(e.id.as_str()) && e.is_engineers_verdict())
        .map(|e| {
            let change = e.changes.iter().find(|c| c.field == "verdict");
            let requirement = change.and_then(|c| c.requirement.as_deref()).unwrap_or("");
            let judgement = change.and_then(|c| c.to.as_deref()).unwrap_or("none");
            let author = e
                .author
                .as_deref()
                .map_or(", no author named,".to_string(), |a| format!(" by {a}"));
            format!(
                "{HISTORY_DIR}/{}.json: decision {} {requirement:?}: {judgement} via {}{author} \
                 at {}{}",
                e.id,
                e.of,
                e.channel.as_str(),
                e.at,
                super::merge::as_approval(e.meaning)
            )
        })
        .collect()
}

/// One `clock:` line for each event of `events` that `added` (the ids new to the database)
/// holds and that is dated after `ahead` (this machine's clock and its slack, `now`): written
/// under a clock far ahead, or planted, such an event is the last word of its item's history
/// for every event recorded before its date (a `forgotten` dated 9999-12-31 ends a live
/// decision's history, and no later event can be dated after it), as an item file dated
/// ahead wins every merge; both are named, with the file to `git log`.
pub(super) fn events_ahead(
    events: &[Event],
    added: &[String],
    ahead: &str,
    now: &str,
) -> Vec<String> {
    let added: BTreeSet<&str> = added.iter().map(String::as_str).collect();
    events
        .iter()
        .filter(|e| added.contains(e.id.as_str()) && e.at.as_str() > ahead)
        .map(|e| {
            format!(
                "{HISTORY_DIR}/{}.json in the folder is dated {}, ahead of this machine's clock \
                 ({now}): the event `{}` of {} {}; the review's history lists it after every event \
                 recorded before that date; the clock that wrote it (or this one) is wrong, or \
                 the file was written by hand: have it checked (`git log -- \
                 {HISTORY_DIR}/{}.json` names who committed it)",
                e.id,
                e.at,
                e.kind.as_str(),
                crate::text::inline(&e.of, 80),
                crate::text::quoted(&e.subject, 80),
                e.id
            )
        })
        .collect()
}

/// The files of the events of `all` that `present` (the folder's ids) lacks: path and text.
pub(super) fn missing_files(
    folder: &Path,
    all: &[Event],
    present: &BTreeSet<&str>,
) -> Vec<(PathBuf, String)> {
    all.iter()
        .filter(|e| !present.contains(e.id.as_str()))
        .map(|e| {
            let path = folder.join(HISTORY_DIR).join(format!("{}.json", e.id));
            (path, event_text(e))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_event_id_names_a_history_file() {
        let id = format!("evt-{}", "0a".repeat(16));
        assert_eq!(event_id_of(&format!("{id}.json")), Some(id.as_str()));
        for bad in [
            format!("{id}.txt"),
            format!("evt-{}.json", "0A".repeat(16)),
            format!("evt-{}.json", "0a".repeat(15)),
            "dec_1.json".to_string(),
            format!("../{id}.json"),
        ] {
            assert_eq!(event_id_of(&bad), None, "{bad}");
        }
    }
}
