//! An export read back (`review-mcp import FILE`): every line validated, then written in one
//! transaction.
//!
//! Import reads the whole file first and validates every line (the record and decision shapes
//! of the tools' output schemas, then the domain rules: revision form, normalised uri,
//! feature/note naming, a `question` for unresolved and conflicting items, timestamp form).
//! One bad line refuses the whole file and nothing is written. The valid lines then go to
//! `Store::import`, which judges each one against what the database holds *at that moment*,
//! inside its one write transaction (so a server writing the same file meanwhile is never
//! overwritten by an older line), keyed naturally: a named feature by (locator, name), a note
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
use std::io::{BufRead, BufReader};
use std::path::Path;

use super::line::{Line, Schemas, parse_export_line};
use super::new_database::NewDatabase;
use super::{Item, MAX_REPORTED, Result};
use crate::framing::{Frame, LineReader, MAX_LINE_BYTES};
use crate::review::history::Event;
use crate::review::{Decision, Record};
use crate::store::{ImportSummary, Store};

/// What an import did: how many lines the file held, and what the store did with them.
#[derive(Debug)]
pub struct Imported {
    pub lines: usize,
    /// How many of the lines were events of the history (each kept once, never changed).
    pub events: usize,
    pub summary: ImportSummary,
}

/// Validates every line of `file`, then lets the store judge and write them in one
/// transaction (into the database `db`).
pub fn import_file(db: &Path, file: &Path) -> Result<Imported> {
    let schemas = Schemas::from_tools()?;
    let input = File::open(file).map_err(|e| {
        fail!(
            "cannot read {}: {e}; check the path: import reads a file `review-mcp export` wrote",
            file.display()
        )
    })?;
    let lines = read_import(&mut BufReader::new(input), &schemas)
        .map_err(|e| fail!("{}: {e}", file.display()))?;
    let total = lines.len();
    let (records, decisions, events) = split(lines);
    let nothing_written = |e: crate::store::StoreError| {
        fail!(
            "{}: nothing was written to {}: {}",
            file.display(),
            db.display(),
            e.user_message()
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
        .import_with_history(&records, &decisions, &events)
        .map_err(nothing_written)?;
    if let Some(c) = created.as_mut() {
        c.keep();
    }
    // The log into the database file now, as a server does after each answer.
    if let Err(e) = store.checkpoint() {
        log::debug!("checkpoint after the import: {e}");
    }
    Ok(Imported {
        lines: total,
        events: events.len(),
        summary,
    })
}

/// Why an import file was refused: the first bad lines, each with its number.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportError {
    pub problems: Vec<String>,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the import file was refused and nothing was written:\n  {}",
            self.problems.join("\n  ")
        )
    }
}

impl std::error::Error for ImportError {}

/// Reads and validates every line of an import file: its shape against [`Schemas`], then the
/// domain rules.
pub fn read_import(
    input: &mut dyn BufRead,
    schemas: &Schemas,
) -> std::result::Result<Vec<Line>, ImportError> {
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    let mut bad = 0usize;
    let mut number = 0usize;
    // Lines are read with the server's own limit, so an import line costs what a request
    // line costs: at most 16 MiB read, and at most `MAX_LINE_VALUES` values parsed.
    let mut reader = LineReader::new(input);
    // The key each line writes (a feature's locator and name, a decision's locator, subject
    // and revision) and the line and id that wrote it first.
    let mut keys: HashMap<String, (usize, String)> = HashMap::new();
    loop {
        number += 1;
        let checked = match reader.next_frame() {
            Ok(Frame::Eof) => break,
            Ok(Frame::TooLong { len }) => Err(format!(
                "is {len} bytes long, over the {MAX_LINE_BYTES} byte limit of a line"
            )),
            Ok(Frame::Line(bytes)) => match String::from_utf8(bytes) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => parse_export_line(&text, schemas),
                Err(_) => Err(super::line::NOT_UTF8.to_string()),
            },
            Err(e) => {
                problems.push(format!("line {number}: cannot be read: {e}"));
                return Err(ImportError { problems });
            }
        };
        // Two lines of one file that write the same key with different ids: in an export
        // of an older version, two spellings of one file that are one locator now. Either
        // would silently replace the other, so the file is refused naming both.
        let checked = checked.and_then(|line| match line {
            Line::Event(_) => Ok(line),
            Line::Item(item) => match key_of(&item) {
                Some((key, id)) => match keys.get(&key) {
                    Some((first, held)) if *held != id => Err(format!(
                        "{id} writes the same {} as {held} on line {first} (their uris are one \
                         file once normalised); keep one of them, or rename one, and import \
                         again",
                        item.kind().key_name()
                    )),
                    _ => {
                        keys.insert(key, (number, id));
                        Ok(Line::Item(item))
                    }
                },
                None => Ok(Line::Item(item)),
            },
        });
        match checked {
            Ok(line) => lines.push(line),
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
    if problems.is_empty() {
        Ok(lines)
    } else {
        Err(ImportError { problems })
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
        assert!(
            e.problems[0].ends_with(&format!("over the {MAX_LINE_BYTES} byte limit of a line")),
            "{e}"
        );
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
