//! An export read back (`review-mcp import FILE`): every line validated, then written in one
//! transaction.
//!
//! Import first reads the whole file and validates every line (the record and decision shapes
//! of the tools' output schemas, then the domain rules: revision form, normalised uri,
//! feature/note naming, a `question` for unresolved and conflicting items, timestamp form),
//! keeping no line, only the keys the items write. One bad line refuses the whole file and
//! nothing is written. The store then reads the file again inside its one write transaction
//! (`Store::import_streamed`: the events, then the records, then the decisions, each line
//! parsed again by the same rules and written before the next is read, the bytes checked to
//! be those validated), so an import holds one line, not the file. It judges each line
//! against what the database holds *at that moment*, inside that transaction (so a server
//! writing the same file meanwhile is never overwritten by an older line), keyed naturally: a named feature by (locator, name), a note
//! by its id, a decision by (locator, subject, revision). Where a key is already held, the
//! line with the later `updated_at` wins and keeps its own id; an identical, older or equally
//! old line leaves the database unchanged. A line whose id is held by a row with another key
//! refuses the whole import. All or nothing, so importing the same file twice changes nothing
//! the second time.
//!
//! An `{"event":{…}}` line is an event of the review's history: refused (as any bad line,
//! naming it) when its id is not its content's (an edited event), else added unless the
//! database holds it already (a union: no event is changed or dropped). The events are added
//! before the items are judged, so an item written here whose state the events already tell
//! records nothing more; one they do not explain (an export from before the history) records
//! its own events with channel `import`, a decision new here as `arrived`. An export without
//! event lines imports as before.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::line::{Line, Schemas, parse_export_line};
use super::new_database::NewDatabase;
use super::{Item, MAX_REPORTED, Result, shown};
use crate::framing::{Frame, LineReader, MAX_LINE_BYTES};
use crate::review::history::Event;
use crate::review::{Decision, Record};
use crate::store::{ImportSource, ImportSummary, Store, StoreError};

/// What an import did: how many lines the file held, and what the store did with them.
#[derive(Debug)]
pub struct Imported {
    pub lines: usize,
    /// How many of the lines were events of the history (each kept once, never changed).
    pub events: usize,
    pub summary: ImportSummary,
    /// The file's lines dated ahead of this machine's clock ([`Checked::clock`]).
    pub clock: Vec<String>,
    /// One line for each event new to the database that says an engineer gave a verdict (the
    /// first [`crate::store::ENGINEER_VERDICTS_LISTED`], then a count), as `sync` lists them: anyone can
    /// write such an event, so each is shown for the reviewer.
    pub engineer_verdicts: Vec<String>,
}

/// Where an import reads its file: once to check every line, then again (from its start)
/// for each kind of line the write takes, so that no pass holds more than one line.
pub trait Reread {
    /// The file from its start, once more.
    fn open(&mut self) -> io::Result<Box<dyn Read + '_>>;
}

/// An import file: a regular file is read again from its start (through the descriptor
/// opened first, so a file renamed over it meanwhile is not read); anything else (a pipe,
/// `/dev/stdin`) can be read only once, so its bytes are copied as they are checked into an
/// unnamed temporary file that the write then reads.
enum InputFile {
    Regular(File),
    Once { input: Option<File>, copy: File },
}

impl InputFile {
    fn open(path: &Path) -> Result<InputFile> {
        let cannot_read = |e: io::Error| {
            fail!(
                "cannot read {}: {e}; check the path: import reads a file `review-mcp export` \
                 wrote",
                shown(path)
            )
        };
        let file = File::open(path).map_err(cannot_read)?;
        let meta = file.metadata().map_err(cannot_read)?;
        if meta.is_file() {
            if crate::store::file::starts_as_sqlite(&file) {
                return Err(fail!(
                    "{} is an SQLite database (a review-mcp database or its backup), not an \
                     export: import reads the JSON Lines `review-mcp export` writes, and \
                     nothing was written. To restore a backup, stop the servers and move it \
                     into place of the database; to merge it into this one, export it \
                     (`review-mcp --db {} export -o FILE`) and import FILE",
                    shown(path),
                    crate::text::shell_word(&path.to_string_lossy())
                ));
            }
            return Ok(InputFile::Regular(file));
        }
        // Opened on Unix, but never read: not a pipe to copy, and not "line 1".
        if meta.is_dir() {
            return Err(fail!(
                "{} is a directory: give the file `review-mcp export` wrote (export -o FILE), \
                 not its folder; nothing was written",
                shown(path)
            ));
        }
        let copy = unnamed_temporary().map_err(|e| {
            fail!(
                "{} can be read only once (a pipe), so import copies it to a temporary file \
                 as it checks it, and cannot make one in {}: {e}; set TMPDIR to a writable \
                 directory, or import from a file",
                shown(path),
                std::env::temp_dir().display()
            )
        })?;
        Ok(InputFile::Once {
            input: Some(file),
            copy,
        })
    }
}

impl Reread for InputFile {
    fn open(&mut self) -> io::Result<Box<dyn Read + '_>> {
        match self {
            InputFile::Regular(file) => {
                file.seek(SeekFrom::Start(0))?;
                Ok(Box::new(&*file))
            }
            InputFile::Once { input, copy } => match input.take() {
                Some(input) => Ok(Box::new(Copied { input, copy })),
                None => {
                    copy.seek(SeekFrom::Start(0))?;
                    Ok(Box::new(&*copy))
                }
            },
        }
    }
}

/// A file in the temporary directory that no name reaches: removed as soon as it is made
/// (readable by its owner only meanwhile), it lives as long as its descriptor.
fn unnamed_temporary() -> io::Result<File> {
    let dir = std::env::temp_dir();
    let mut n = 0u32;
    loop {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let path = dir.join(format!(
            ".review-mcp-import-{}-{nanos:x}-{n}",
            std::process::id()
        ));
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create_new(true);
        // The review's lines go through it: its owner's only, as the database is.
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        match options.open(&path) {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// A read-once input copied, as it is read, into the file the write reads again.
struct Copied<'a> {
    input: File,
    copy: &'a mut File,
}

impl Read for Copied<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.read(buf)?;
        self.copy
            .write_all(&buf[..n])
            .map_err(|e| io::Error::new(e.kind(), CopyFailed(e)))?;
        Ok(n)
    }
}

/// Why the temporary copy of a read-once input could not be written (its directory is full,
/// say): not a fault of the file, so it is not reported as one of its lines.
#[derive(Debug)]
struct CopyFailed(io::Error);

impl std::fmt::Display for CopyFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for CopyFailed {}

/// A reader that hashes what it reads: the write checks that it reads the bytes that were
/// checked. It notes why the temporary copy failed, if it did.
struct Hashed<R> {
    inner: R,
    hash: Sha256,
    copy_failed: Option<String>,
}

impl<R: Read> Read for Hashed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).inspect_err(|e| {
            if let Some(c) = e.get_ref().and_then(|i| i.downcast_ref::<CopyFailed>()) {
                self.copy_failed = Some(c.to_string());
            }
        })?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

/// Validates every line of `file`, then lets the store judge and write them in one
/// transaction (into the database `db`).
pub fn import_file(db: &Path, file: &Path) -> Result<Imported> {
    let mut input = InputFile::open(file)?;
    import_from(db, file, &mut input)
}

/// [`import_file`] with the file read through `input` (`file` names it in messages): every
/// line validated in a first reading, which keeps only the keys the lines write; then, in
/// the store's one write transaction, the file read again for each kind of line, each line
/// written as it is read (`Store::import_streamed`). Memory is one line and the keys, not
/// the file.
pub fn import_from(db: &Path, file: &Path, input: &mut dyn Reread) -> Result<Imported> {
    let schemas = Schemas::from_tools()?;
    let cannot_read = |e: io::Error| {
        fail!(
            "cannot read {}: {e}; check the path: import reads a file `review-mcp export` wrote",
            shown(file)
        )
    };
    let (checked, digest) = {
        let mut hashed = Hashed {
            inner: input.open().map_err(cannot_read)?,
            hash: Sha256::new(),
            copy_failed: None,
        };
        let checked = read_import(&mut BufReader::new(&mut hashed), &schemas);
        if let Some(e) = hashed.copy_failed {
            return Err(fail!(
                "{} can be read only once (a pipe), so import copies it to a temporary file in \
                 {} as it checks it, and could not write that copy: {e}; nothing was written: \
                 set TMPDIR to a directory with room for the whole file, or import from a file",
                shown(file),
                std::env::temp_dir().display()
            ));
        }
        let checked = checked.map_err(|e| fail!("{}: {e}", shown(file)))?;
        (checked, hashed.hash.finalize())
    };
    let nothing_written = |e: StoreError| {
        fail!(
            "{}: nothing was written to {}: {}",
            shown(file),
            shown(db),
            e.of_file(Some(db)).user_message()
        )
    };
    // A refused import leaves no database it created (declared first: dropped last).
    let mut created = NewDatabase::before(db);
    let mut store = Store::open(db).map_err(nothing_written)?;
    if let Some(c) = created.as_mut() {
        c.opened();
    }
    // The counts come from the same transaction that wrote, so they describe what happened
    // even when a server wrote the database a moment before.
    let summary = store
        .import_streamed(&mut Again {
            input,
            schemas: &schemas,
            checked: &checked,
            digest: digest.into(),
        })
        .map_err(nothing_written)?;
    if let Some(c) = created.as_mut() {
        c.keep();
    }
    // The log into the database file now, as a server does after each answer.
    if let Err(e) = store.checkpoint() {
        log::debug!("checkpoint after the import: {e}");
    }
    Ok(Imported {
        lines: checked.lines,
        events: checked.events,
        clock: checked.clock,
        engineer_verdicts: verdicts_claimed(&summary),
        summary,
    })
}

/// The lines naming the engineer-verdict events an import added ([`Imported::engineer_verdicts`]).
fn verdicts_claimed(summary: &ImportSummary) -> Vec<String> {
    let mut lines: Vec<String> = summary
        .engineer_verdicts
        .iter()
        .map(|e| format!("event {}: {}", e.id, super::history::verdict_claimed(e)))
        .collect();
    if summary.engineer_verdicts_added > lines.len() {
        let more = summary.engineer_verdicts_added - lines.len();
        lines.push(format!("… and {more} more"));
    }
    lines
}

/// Why an import file was refused: the first bad lines, each with its number.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError {
    pub problems: Vec<String>,
    /// Whether what a line holds was refused (not the reading of the file stopped): the
    /// message then says how to mend the lines, and that a file from a newer review-mcp
    /// needs that version, whose lines may hold what this build does not know.
    pub lines_refused: bool,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the import file was refused and nothing was written:\n  {}",
            self.problems.join("\n  ")
        )?;
        if self.lines_refused {
            write!(
                f,
                "\nfix or remove each line named, then import again; a field, line or event \
                 kind this review-mcp does not know may mean the file was written by a newer \
                 review-mcp: import it with that version or a later one"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for ImportError {}

/// What a line of an import file is, as the first reading found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Record,
    Decision,
    Event,
}

impl LineKind {
    fn of(line: &Line) -> LineKind {
        match line {
            Line::Event(_) => LineKind::Event,
            Line::Item(i) => match **i {
                Item::Record(_) => LineKind::Record,
                Item::Decision(_) => LineKind::Decision,
            },
        }
    }
}

/// A file every line of which is valid, as [`read_import`] read it: how many lines of each
/// kind, and the kind of each line (not blank) in runs, so the write parses only the lines
/// of the kind it is taking. An export is three runs.
#[derive(Debug, Default)]
pub struct Checked {
    /// The lines that are not blank.
    pub lines: usize,
    pub events: usize,
    runs: Vec<(LineKind, usize)>,
    /// One line for each item, engineer's verdict or event of the file dated more than
    /// five minutes ahead of this machine's clock (at most [`MAX_REPORTED`], then a count):
    /// written under a clock far ahead, or by hand, it wins every later comparison (the later
    /// edit, the later of two engineer verdicts) and ends its item's history for every event
    /// recorded before its date, as `sync` names such a file.
    pub clock: Vec<String>,
    ahead: usize,
}

impl Checked {
    fn push(&mut self, kind: LineKind) {
        self.lines += 1;
        if kind == LineKind::Event {
            self.events += 1;
        }
        match self.runs.last_mut() {
            Some((k, n)) if *k == kind => *n += 1,
            _ => self.runs.push((kind, 1)),
        }
    }

    /// Notes each date of `line` (number `n`) after `ahead`, this machine's clock and its
    /// slack.
    fn dated_ahead(&mut self, n: usize, line: &Line, ahead: &str) {
        let mut found = Vec::new();
        match line {
            Line::Event(e) if e.at.as_str() > ahead => found.push(format!(
                "the event `{}` of {} {} is dated {}; the review's history lists it after every \
                 event recorded before that date",
                e.kind.as_str(),
                crate::text::inline(&e.of, 80),
                crate::text::quoted(&e.subject, 80),
                e.at
            )),
            Line::Event(_) => {}
            Line::Item(item) => {
                if item.updated_at() > ahead {
                    found.push(format!(
                        "{} is dated {}; as the later edit wins, it would beat edits made after it",
                        item.describe(),
                        item.updated_at()
                    ));
                }
                if let Item::Decision(d) = &**item {
                    for b in &d.basis {
                        if let Some(v) = b.verdict.as_ref().filter(|v| v.at.as_str() > ahead) {
                            found.push(format!(
                                "the verdict of decision {} on {} ({} via {}) is dated {}; as the \
                                 later of two engineer verdicts wins, it would beat every verdict \
                                 given after it",
                                crate::text::inline(&d.id, 80),
                                crate::text::quoted(&b.requirement, 80),
                                v.judgement.as_str(),
                                v.via.as_str(),
                                v.at
                            ));
                        }
                    }
                }
            }
        }
        for f in found {
            self.ahead += 1;
            if self.clock.len() < MAX_REPORTED {
                self.clock.push(format!(
                    "line {n}: {f}; it is ahead of this machine's clock ({}): the clock that \
                     wrote it (or this one) is wrong, or the line was written by hand",
                    crate::time::now()
                ));
            }
        }
    }

    fn holds(&self, kind: LineKind) -> bool {
        self.runs.iter().any(|(k, _)| *k == kind)
    }
}

/// Reads and validates every line of an import file: its shape against [`Schemas`], then the
/// domain rules. Keeps no line: only the keys the items write (to refuse two lines of one key)
/// and the kind of each line.
pub fn read_import(
    input: &mut dyn BufRead,
    schemas: &Schemas,
) -> std::result::Result<Checked, ImportError> {
    let mut checked = Checked::default();
    let ahead =
        crate::time::format_millis(crate::time::now_millis() + super::apply::CLOCK_SLACK_MS);
    let mut problems = Vec::new();
    let mut bad = 0usize;
    let mut number = 0usize;
    // Lines are read with the server's own limit, so an import line costs what a request
    // line costs: at most 16 MiB read, and at most `MAX_LINE_VALUES` values parsed. A longer
    // line ends the reading there (the import is refused anyway): an input with no end and
    // no newline (`/dev/zero`) is not read, and copied, for ever.
    let mut reader = LineReader::stopping(input);
    // The key each line writes (a feature's locator and name, a decision's locator, subject
    // and revision), by its digest, and the line and id that wrote it first: about 80 bytes
    // an item, whatever its size.
    let mut keys: HashMap<[u8; 16], (usize, Box<str>)> = HashMap::new();
    loop {
        number += 1;
        let checked_line = match reader.next_frame() {
            Ok(Frame::Eof) => break,
            Ok(Frame::TooLong { .. }) => {
                bad += 1;
                problems.truncate(MAX_REPORTED - 1);
                problems.push(format!(
                    "line {number}: is longer than the {MAX_LINE_BYTES} byte limit of a line \
                     (the file was read no further)"
                ));
                break;
            }
            Ok(Frame::Line(bytes)) => match String::from_utf8(bytes) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => parse_export_line(&text, schemas),
                Err(_) => Err(super::line::NOT_UTF8.to_string()),
            },
            Err(e) => {
                problems.push(format!("line {number}: cannot be read: {e}"));
                return Err(ImportError {
                    problems,
                    lines_refused: false,
                });
            }
        };
        // Two lines of one file that write the same key with different ids: in an export
        // of an older version, two spellings of one file that are one locator now. Either
        // would silently replace the other, so the file is refused naming both.
        let checked_line = checked_line.and_then(|line| {
            let Line::Item(item) = &line else {
                return Ok(line);
            };
            let Some((key, id)) = key_of(item) else {
                return Ok(line);
            };
            let digest = Sha256::digest(key.as_bytes());
            let mut short = [0u8; 16];
            short.copy_from_slice(&digest[..16]);
            match keys.get(&short) {
                Some((first, held)) if **held != *id => Err(format!(
                    "{id} writes the same {} as {held} on line {first} (their uris are one \
                     file once normalised); keep one of them, or rename one, and import \
                     again",
                    item.kind().key_name()
                )),
                // The same id again: the later line is the one named from now on.
                _ => {
                    keys.insert(short, (number, id.into()));
                    Ok(line)
                }
            }
        });
        match checked_line {
            Ok(line) => {
                checked.dated_ahead(number, &line, &ahead);
                checked.push(LineKind::of(&line));
            }
            Err(why) => {
                bad += 1;
                if problems.len() < MAX_REPORTED {
                    problems.push(format!("line {number}: {why}"));
                }
            }
        }
    }
    if bad > problems.len() {
        problems.push(format!("… and {} more bad lines", bad - problems.len()));
    }
    if checked.ahead > checked.clock.len() {
        let more = checked.ahead - checked.clock.len();
        checked.clock.push(format!(
            "… and {more} more dates ahead of this machine's clock"
        ));
    }
    if problems.is_empty() {
        Ok(checked)
    } else {
        Err(ImportError {
            problems,
            lines_refused: true,
        })
    }
}

/// The checked file read again for the store's write, one kind of line per reading, each
/// line parsed (by the same rules) only when it is of that kind and handed over at once.
/// The bytes are hashed as they are read: a file that changed since it was checked stops the
/// write, and the transaction, with nothing written.
struct Again<'a> {
    input: &'a mut dyn Reread,
    schemas: &'a Schemas,
    checked: &'a Checked,
    digest: [u8; 32],
}

/// Why the write stopped reading the file: it is no longer the file that was checked.
fn changed(why: &str) -> StoreError {
    StoreError::Invalid(format!(
        "the file changed while it was imported ({why}); import it again once nothing writes it"
    ))
}

/// [`changed`]: line `number` is not the line that was checked.
fn not_checked(number: usize) -> StoreError {
    changed(&format!("line {number} is not the line that was checked"))
}

impl Again<'_> {
    /// Hands each line of kind `kind` to `each`, in file order.
    fn each(
        &mut self,
        kind: LineKind,
        each: &mut dyn FnMut(Line) -> std::result::Result<(), StoreError>,
    ) -> std::result::Result<(), StoreError> {
        if !self.checked.holds(kind) {
            return Ok(());
        }
        let reading = self
            .input
            .open()
            .map_err(|e| changed(&format!("it cannot be read again: {e}")))?;
        let mut hashed = Hashed {
            inner: reading,
            hash: Sha256::new(),
            copy_failed: None,
        };
        let mut reader = LineReader::new(BufReader::new(&mut hashed));
        let mut runs = self.checked.runs.iter().copied();
        let mut run = runs.next();
        let mut number = 0usize;
        loop {
            number += 1;
            let bytes = match reader.next_frame() {
                Ok(Frame::Eof) => break,
                Ok(Frame::Line(bytes)) => bytes,
                Ok(Frame::TooLong { .. }) => return Err(not_checked(number)),
                Err(e) => {
                    return Err(changed(&format!("line {number} cannot be read: {e}")));
                }
            };
            let Ok(text) = String::from_utf8(bytes) else {
                return Err(not_checked(number));
            };
            if text.trim().is_empty() {
                continue;
            }
            let here = match run.as_mut() {
                Some((k, n)) if *n > 0 => {
                    *n -= 1;
                    *k
                }
                _ => {
                    return Err(changed(&format!(
                        "line {number} was not there when it was checked"
                    )));
                }
            };
            if run.is_some_and(|(_, n)| n == 0) {
                run = runs.next();
            }
            if here != kind {
                continue;
            }
            match parse_export_line(&text, self.schemas) {
                Ok(line) if LineKind::of(&line) == kind => each(line)?,
                _ => return Err(not_checked(number)),
            }
        }
        drop(reader);
        if run.is_some() || <[u8; 32]>::from(hashed.hash.finalize()) != self.digest {
            return Err(changed("its bytes are not those checked"));
        }
        Ok(())
    }
}

impl ImportSource for Again<'_> {
    fn events(
        &mut self,
        each: &mut dyn FnMut(Event) -> std::result::Result<(), StoreError>,
    ) -> std::result::Result<(), StoreError> {
        self.each(LineKind::Event, &mut |line| match line {
            Line::Event(e) => each(*e),
            Line::Item(_) => Ok(()),
        })
    }

    fn records(
        &mut self,
        each: &mut dyn FnMut(Record) -> std::result::Result<(), StoreError>,
    ) -> std::result::Result<(), StoreError> {
        self.each(LineKind::Record, &mut |line| match line {
            Line::Item(i) => match *i {
                Item::Record(r) => each(r),
                Item::Decision(_) => Ok(()),
            },
            Line::Event(_) => Ok(()),
        })
    }

    fn decisions(
        &mut self,
        each: &mut dyn FnMut(Decision) -> std::result::Result<(), StoreError>,
    ) -> std::result::Result<(), StoreError> {
        self.each(LineKind::Decision, &mut |line| match line {
            Line::Item(i) => match *i {
                Item::Decision(d) => each(d),
                Item::Record(_) => Ok(()),
            },
            Line::Event(_) => Ok(()),
        })
    }
}

/// The key a line writes, with its id: `None` for an anonymous note (every note is its own).
fn key_of(line: &Item) -> Option<(String, String)> {
    match line {
        // A superseded feature (what an old revision said of it) is keyed by its id.
        Item::Record(r) => r.name.as_ref().filter(|_| r.superseded.is_none()).map(|n| {
            (
                format!("r\u{0}{}\u{0}{n}", r.artifact.locator()),
                r.id.clone(),
            )
        }),
        Item::Decision(d) => Some((
            format!(
                "d\u{0}{}\u{0}{}\u{0}{}",
                d.artifact.locator(),
                d.subject,
                d.artifact.revision
            ),
            d.id.clone(),
        )),
    }
}

/// Splits validated lines into the records, decisions and events
/// [`Store::import_with_history`] takes, each in file order (the records and decisions never
/// share a key, so only the order within each matters).
pub fn split(lines: Vec<Line>) -> (Vec<Record>, Vec<Decision>, Vec<Event>) {
    let (mut records, mut decisions, mut events) = (Vec::new(), Vec::new(), Vec::new());
    for line in lines {
        match line {
            Line::Item(i) => match *i {
                Item::Record(r) => records.push(r),
                Item::Decision(d) => decisions.push(d),
            },
            Line::Event(e) => events.push(*e),
        }
    }
    (records, decisions, events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds;
    use crate::store::fixtures::{T1, T2, feature};

    #[test]
    fn split_keeps_file_order_within_each_kind() {
        let (r, d, e) = split(vec![
            Line::Item(Box::new(Item::Record(feature("a", "bore", T1)))),
            Line::Item(Box::new(Item::Record(feature("b", "slot", T2)))),
        ]);
        assert_eq!(
            r.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(d.is_empty() && e.is_empty());
    }

    fn import_line(entity_ids: &str) -> String {
        let line = serde_json::to_string(&Item::Record(feature("a", "bore", T1))).unwrap();
        let line = line.replace(
            "\"entity_ids\":[]",
            &format!("\"entity_ids\":[{entity_ids}]"),
        );
        format!("{line}\n")
    }

    #[test]
    fn read_import_line_of_a_million_failing_items_reports_three_errors() {
        let s = Schemas::from_tools().unwrap();
        let text = import_line(&vec!["0"; 1_000_000].join(","));
        let e = read_import(&mut text.as_bytes(), &s).unwrap_err();
        assert_eq!(e.problems.len(), 1, "{e}");
        let p = &e.problems[0];
        assert!(p.starts_with("line 1: record/entity_ids: [0,0,"), "{p}");
        assert_eq!(p.matches("is not of type").count(), 2, "{p}");
        assert!(p.ends_with("; and 9998 more errors"), "{p}");
        assert!(p.len() < 1000, "{p}");
    }

    #[test]
    fn read_import_line_over_the_value_or_byte_limit_is_refused_unparsed() {
        let s = Schemas::from_tools().unwrap();
        let many = import_line(&vec!["0"; 2_000_000].join(","));
        let e = read_import(&mut many.as_bytes(), &s).unwrap_err();
        assert_eq!(
            e.problems,
            [format!(
                "line 1: holds more than {} JSON values, the limit of a line",
                bounds::MAX_LINE_VALUES
            )]
        );
        let long = import_line(&format!("\"{}\"", "f".repeat(MAX_LINE_BYTES)));
        let e = read_import(&mut long.as_bytes(), &s).unwrap_err();
        assert_eq!(
            e.problems,
            [format!(
                "line 1: is longer than the {MAX_LINE_BYTES} byte limit of a line (the file was \
                 read no further)"
            )]
        );
    }

    /// Regression (files2): `import /dev/zero`, an input with no end and no newline, never
    /// ended: the line reader read the over-long line to its end, copying it (a pipe or
    /// device is copied to TMPDIR as it is checked) at about 100 MB/s. The reading now stops
    /// at the line's limit.
    #[test]
    fn read_import_of_an_input_with_no_end_stops_at_the_limit_of_a_line() {
        let s = Schemas::from_tools().unwrap();
        let mut endless = std::io::BufReader::new(std::io::repeat(b'0'));
        let e = read_import(&mut endless, &s).unwrap_err();
        assert_eq!(e.problems.len(), 1, "{e}");
        assert!(e.problems[0].starts_with("line 1: is longer than"), "{e}");
    }

    /// Regression (audit of the bounded import): a pipe whose temporary copy could not be
    /// written as it was checked (its directory full: ENOSPC on a small tmpfs) was reported
    /// as "the import file was refused ... line 31: cannot be read: No space left on device",
    /// blaming the file and saying nothing of the copy or of TMPDIR. Here the copy is a
    /// descriptor that refuses every write.
    #[test]
    fn a_temporary_copy_that_cannot_be_written_says_to_set_tmpdir() {
        let dir =
            std::env::temp_dir().join(format!("review-mcp-import-copy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("in.jsonl");
        let line = serde_json::to_string(&Item::Record(feature("a", "bore", T1))).unwrap();
        std::fs::write(&file, format!("{line}\n")).unwrap();
        let copy = dir.join("copy");
        std::fs::write(&copy, "").unwrap();
        let mut input = InputFile::Once {
            input: Some(File::open(&file).unwrap()),
            copy: File::open(&copy).unwrap(),
        };
        let db = dir.join("r.db");
        let e = import_from(&db, Path::new("/dev/stdin"), &mut input)
            .unwrap_err()
            .to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            e.contains("temporary") && e.contains("TMPDIR") && e.contains("nothing was written"),
            "{e}"
        );
        assert!(!e.contains("refused"), "{e}");
        assert!(!db.exists());
    }

    /// Regression (audit of the bounded import): the temporary copy of a piped import was
    /// created with mode 0666 (0644 after the usual umask) in a shared /tmp: between its
    /// creation and its removal anyone could open it and read, through that descriptor, every
    /// line of the review as the import copied it. It is now its owner's only, as the
    /// database is.
    #[cfg(unix)]
    #[test]
    fn the_temporary_copy_is_readable_by_its_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let file = unnamed_temporary().unwrap();
        let mode = file.metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
    }

    /// Regression (review of issue 12, item 3): two lines of an older export whose uris are
    /// one locator once normalised imported as one feature, the other silently lost.
    #[test]
    fn read_import_two_lines_of_one_key_are_refused_naming_both() {
        let s = Schemas::from_tools().unwrap();
        let mut a = feature("rec_a", "bore", T1);
        a.artifact.uri = Some("file:///w/%62racket.step".into());
        let mut b = feature("rec_b", "bore", T2);
        b.artifact.uri = Some("file:///w/bracket.step".into());
        let text: String = [a, b]
            .iter()
            .map(|r| serde_json::to_string(&Item::Record(r.clone())).unwrap() + "\n")
            .collect();
        let e = read_import(&mut text.as_bytes(), &s).unwrap_err();
        assert!(
            e.problems[0].contains("line 2") && e.problems[0].contains("rec_a"),
            "{e}"
        );
    }
}
