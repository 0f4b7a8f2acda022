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
//!
//! A file of an event the database holds whose bytes (CRLF line endings as LF) are the text
//! sync writes for that event, by the hash the database recorded when a sync last checked or
//! wrote it (`sync_event_files`), is that event: it is taken without being parsed and checked
//! again, so a sync with nothing new reads and hashes the history, and parses only what
//! changed. Any other file (new, edited, or of an event whose hash is not recorded yet) is
//! checked in full, as before.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::folder::{
    HASH_THREADS, MAX_FILE_BYTES, MAX_READ_BYTES, cannot_list, misnamed, on_threads, read_regular,
    text_hash,
};
use super::line::{event_text, parse_event};
use super::{Hash, Result, hash, shown};
use crate::review::history::Event;
use crate::text::escape_controls;

/// The subfolder of the history files.
pub(super) const HISTORY_DIR: &str = "history";

/// The events the database holds, by id, each with the hash of its history file's text when a
/// sync recorded it (`None`: not yet).
pub(super) type Held = HashMap<String, Option<Hash>>;

/// The folder's history as read: the events of its files the database did not hold, the id
/// of every event file found sound, the hashes to record, and the files refused.
#[derive(Debug, Default)]
pub(super) struct FolderHistory {
    /// The events the database did not hold (those it holds are checked, then not kept).
    pub(super) events: Vec<Event>,
    /// The id of every sound event file of the folder.
    pub(super) present: Vec<String>,
    /// The events of the files parsed and found sound whose file text's hash the database did
    /// not hold: each id with the hash of the text sync writes for it, to be recorded.
    pub(super) known: Vec<(String, Hash)>,
    /// How many files were parsed and checked (each other sound file held the text recorded
    /// for its event).
    pub(super) parsed: usize,
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
/// checked like the others but not kept (one whose file is the text whose hash `held`
/// records is taken as it is): only what is new is held in memory.
pub(super) fn read_history(folder: &Path, held: &Held) -> Result<FolderHistory> {
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
        if let Some(why) = name.and_then(super::owned::nested_git_file) {
            out.problems.push(format!("{}: {why}", shown(&path)));
            continue;
        }
        if name.is_some_and(|n| n.starts_with('.')) && !link {
            continue;
        }
        match name.and_then(event_id_of) {
            Some(id) => {
                // The size the entry has now (a link's own): each file is bounded again as it
                // is read.
                if !held.contains_key(id) {
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
        let read = read.unwrap_or_else(|| FolderHistory {
            problems: vec![format!("{}: a reader failed", shown(&dir))],
            ..FolderHistory::default()
        });
        out.events.extend(read.events);
        out.present.extend(read.present);
        out.known.extend(read.known);
        out.parsed += read.parsed;
        out.problems.extend(read.problems);
    }
    // The order events arrive in a database: by time, then by their place in their write.
    out.events
        .sort_by(|a, b| (&a.at, a.step, &a.id).cmp(&(&b.at, b.step, &b.id)));
    Ok(out)
}

/// Each event file of `files` (path, the id its name gives) read and checked (but a file of
/// a held event whose text is the one recorded): the events not `held`, the ids of the sound
/// files, the hashes to record, the problems (`bytes` left at 0).
fn read_files(files: &[(PathBuf, String)], held: &Held) -> FolderHistory {
    let mut out = FolderHistory::default();
    for (path, id) in files {
        let bytes = match read_regular(path, MAX_FILE_BYTES) {
            Ok(bytes) => bytes,
            Err(why) => {
                out.problems
                    .push(format!("{}: {}", shown(path), escape_controls(&why)));
                continue;
            }
        };
        let recorded = held.get(id).copied().flatten();
        if recorded.is_some_and(|h| text_hash(&bytes) == h) {
            out.present.push(id.clone());
            continue;
        }
        out.parsed += 1;
        match parse_event(&bytes) {
            Ok(e) if e.id == *id => {
                out.present.push(e.id.clone());
                let text = hash(event_text(&e).as_bytes());
                if recorded != Some(text) {
                    out.known.push((e.id.clone(), text));
                }
                if !held.contains_key(id) {
                    out.events.push(e);
                }
            }
            Ok(e) => out.problems.push(format!(
                "{}: holds event {}, but its name is {id}: an event file is named by its \
                 event's id",
                shown(path),
                e.id
            )),
            Err(why) => out
                .problems
                .push(format!("{}: {}", shown(path), escape_controls(&why))),
        }
    }
    out
}

/// The engineer's verdicts that the events of `events` whose ids are in `added` (new to the
/// database) say were given: one line each, naming the event's file, the decision, the
/// requirement, the judgement, the channel, the author and the meaning. The folder is
/// unsigned and an event's seal is a digest anyone can compute, so an event can claim any
/// engineer's verdict: like a verdict of an item file, each is listed for the reviewer.
/// One that says what a verdict this sync took from an item file says (`arrived`, listed
/// already) is not listed again.
pub(super) fn engineer_verdict_events(
    events: &[Event],
    added: &[String],
    arrived: &[super::merge::Arrived],
) -> Vec<String> {
    let added: BTreeSet<&str> = added.iter().map(String::as_str).collect();
    events
        .iter()
        .filter(|e| added.contains(e.id.as_str()) && e.is_engineers_verdict())
        .filter(|e| {
            !arrived
                .iter()
                .any(|a| Some(&a.said) == verdict_said(e).as_ref())
        })
        .map(|e| format!("{HISTORY_DIR}/{}.json: {}", e.id, verdict_claimed(e)))
        .collect()
}

/// What an engineer-verdict event says was given, as an item file's verdict says it
/// ([`super::merge::VerdictSaid`]).
fn verdict_said(e: &Event) -> Option<super::merge::VerdictSaid> {
    let change = e.changes.iter().find(|c| c.field == "verdict")?;
    Some((
        e.of.clone(),
        change.requirement.clone()?,
        change.to.clone()?,
        e.channel.as_str().to_string(),
        e.author.clone(),
    ))
}

/// What an engineer-verdict event says was given: the decision, the requirement, the
/// judgement, the channel, the author and the meaning (`sync` and `import` list each one new
/// to the database).
pub(crate) fn verdict_claimed(e: &Event) -> String {
    let change = e.changes.iter().find(|c| c.field == "verdict");
    let requirement = change.and_then(|c| c.requirement.as_deref()).unwrap_or("");
    let judgement = change.and_then(|c| c.to.as_deref()).unwrap_or("none");
    let author = e
        .author
        .as_deref()
        .map_or(", no author named,".to_string(), |a| {
            format!(
                " by {}",
                crate::text::who(a, crate::review::decision::AUTHOR_SHOWN)
            )
        });
    format!(
        "decision {} {}: {judgement} via {}{author} at {}{}",
        e.of,
        super::merge::shown(requirement),
        e.channel.as_str(),
        e.at,
        super::merge::as_approval(e.meaning)
    )
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
    use crate::review::history::{Channel, Written, record_events};
    use crate::store::fixtures::{T1, feature};

    /// Two sealed events of a feature: its note replaced, one way and the other.
    fn events() -> Vec<Event> {
        let how = Written {
            channel: Channel::Assistant,
            at: T1,
            author: Some("Ada"),
        };
        let old = feature("rec_a", "bore", T1);
        let mut new = old.clone();
        new.note = Some("edited".into());
        let mut events = record_events(&how, Some(&old), &new);
        events.extend(record_events(&how, Some(&new), &old));
        events
    }

    /// A history folder under the temporary directory, named `name`, holding `files`.
    fn folder(name: &str, files: &[(&str, &[u8])]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "review-mcp-history-unit-{name}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join(HISTORY_DIR)).unwrap();
        for (id, bytes) in files {
            fs::write(dir.join(HISTORY_DIR).join(format!("{id}.json")), bytes).unwrap();
        }
        dir
    }

    /// A held event's file whose bytes are the text recorded for it is taken without being
    /// parsed (CRLF endings too); one whose hash is not recorded yet is parsed, checked and its
    /// hash given to record; an edited file of a held event whose hash is recorded is still
    /// parsed and refused, named (an edit that keeps the same event is taken, as before); and
    /// a new event is parsed and kept.
    #[test]
    fn a_held_event_file_is_parsed_only_when_its_text_is_not_the_recorded_one() {
        let all = events();
        let (a, b) = (&all[0], &all[1]);
        let (text_a, text_b) = (event_text(a), event_text(b));
        let crlf = text_a.replace('\n', "\r\n");
        let edited = text_b.replacen("Ada", "Eve", 1);
        let respaced = text_b.replacen("{\n", "{ \n", 1);
        let recorded = |e: &Event, text: &str| (e.id.clone(), Some(hash(text.as_bytes())));
        let held_ab: Held = [recorded(a, &text_a), recorded(b, &text_b)].into();
        // The case, the two files' bytes, what the database holds, how many are parsed, and
        // whether the folder is sound.
        type Case<'a> = (&'a str, &'a [u8], &'a [u8], Held, usize, bool);
        let cases: Vec<Case> = vec![
            (
                "as written",
                text_a.as_bytes(),
                text_b.as_bytes(),
                held_ab.clone(),
                0,
                true,
            ),
            (
                "crlf",
                crlf.as_bytes(),
                text_b.as_bytes(),
                held_ab.clone(),
                0,
                true,
            ),
            (
                "edited",
                text_a.as_bytes(),
                edited.as_bytes(),
                held_ab.clone(),
                1,
                false,
            ),
            (
                "respaced",
                text_a.as_bytes(),
                respaced.as_bytes(),
                held_ab.clone(),
                1,
                true,
            ),
            (
                "not recorded",
                text_a.as_bytes(),
                text_b.as_bytes(),
                [recorded(a, &text_a), (b.id.clone(), None)].into(),
                1,
                true,
            ),
            (
                "new",
                text_a.as_bytes(),
                text_b.as_bytes(),
                [recorded(a, &text_a)].into(),
                1,
                true,
            ),
        ];
        for (case, bytes_a, bytes_b, held, parsed, sound) in cases {
            let dir = folder(case, &[(&a.id, bytes_a), (&b.id, bytes_b)]);
            let read = read_history(&dir, &held).unwrap();
            assert_eq!(read.parsed, parsed, "{case}");
            if !sound {
                assert_eq!(read.present, vec![a.id.clone()], "{case}");
                assert_eq!(read.problems.len(), 1, "{case}");
                assert!(
                    read.problems[0].contains(&b.id)
                        && read.problems[0].contains("its id is not its content's"),
                    "{case}: {:?}",
                    read.problems
                );
                fs::remove_dir_all(&dir).unwrap();
                continue;
            }
            assert!(read.problems.is_empty(), "{case}: {:?}", read.problems);
            let mut present = read.present.clone();
            present.sort();
            let mut want = vec![a.id.clone(), b.id.clone()];
            want.sort();
            assert_eq!(present, want, "{case}");
            let new: Vec<&str> = read.events.iter().map(|e| e.id.as_str()).collect();
            assert_eq!(
                new,
                (case == "new")
                    .then_some(b.id.as_str())
                    .into_iter()
                    .collect::<Vec<_>>(),
                "{case}"
            );
            let known: Vec<(String, Hash)> = match case {
                "not recorded" | "new" => vec![(b.id.clone(), hash(text_b.as_bytes()))],
                _ => Vec::new(),
            };
            assert_eq!(read.known, known, "{case}");
            fs::remove_dir_all(&dir).unwrap();
        }
    }

    /// The recorded hash only spares the parse: whatever bytes a held event's file holds (its
    /// text with its line endings, a lone CR, a BOM, another event's text, spaces changed …),
    /// a sync that has its text's hash recorded takes or refuses the file exactly as one that
    /// parses it does.
    #[test]
    fn a_recorded_hash_never_changes_what_a_held_event_file_is_taken_as() {
        let all = events();
        let (a, b) = (&all[0], &all[1]);
        let text = event_text(a);
        let mut variants: Vec<(&str, Vec<u8>)> = vec![
            ("as written", text.clone().into_bytes()),
            ("crlf", text.replace('\n', "\r\n").into_bytes()),
            ("crlf once", text.replacen('\n', "\r\n", 1).into_bytes()),
            ("cr cr lf", text.replacen('\n', "\r\r\n", 1).into_bytes()),
            ("lone cr", text.replace('\n', "\r").into_bytes()),
            ("cr at the end", format!("{text}\r").into_bytes()),
            ("cr first", format!("\r{text}").into_bytes()),
            ("no final newline", text.trim_end().as_bytes().to_vec()),
            ("bom", format!("\u{feff}{text}").into_bytes()),
            ("another event", event_text(b).into_bytes()),
            ("edited", text.replacen("Ada", "Eve", 1).into_bytes()),
            ("empty", Vec::new()),
        ];
        let mut nul = text.clone().into_bytes();
        nul.push(0);
        variants.push(("nul", nul));
        for (case, bytes) in variants {
            let taken = |recorded: Option<Hash>| {
                let dir = folder(
                    &format!("same-{}", case.replace(' ', "-")),
                    &[(&a.id, &bytes)],
                );
                let held: Held = [(a.id.clone(), recorded)].into();
                let read = read_history(&dir, &held).unwrap();
                fs::remove_dir_all(&dir).unwrap();
                (read.present, read.problems, read.events.len())
            };
            let parsed = taken(None);
            assert_eq!(taken(Some(hash(text.as_bytes()))), parsed, "{case}");
            // A raw CR is JSON's white space: read in full, only these are refused.
            let refused = ["bom", "another event", "edited", "empty", "nul"];
            assert_eq!(
                parsed.1.is_empty(),
                !refused.contains(&case),
                "{case}: {:?}",
                parsed.1
            );
        }
    }

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
