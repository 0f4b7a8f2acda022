//! Transcript replay: feed recorded client lines to a server and compare what comes back.
//!
//! A transcript (format in `protocol-fixtures/README.md`) is JSON Lines, one directive per
//! line: `send` (a JSON message, written compactly plus `\n`), `send_raw` (exact bytes, for
//! malformed input: a string, or a list of parts with `hex` and `repeat` so a 17 MB line needs
//! no 17 MB file), `expect` (the next line the server must write, compared as JSON; the string
//! `"{{any}}"` matches any value), `eof` (close the server's input) and `comment`; and
//! `versions`, which makes the file one transcript per version named, with `{{version}}`
//! replaced by each in turn (see [`variants`]).
//!
//! The server is either this crate's own, in-process (a fresh
//! [`Server`](crate::server::Server) over an in-memory store per file, fed through the real
//! [`LineReader`](crate::framing::LineReader)), or any stdio command, started anew for each
//! file in a new empty working directory whose path replaces `{dir}` in the
//! command (so `review-mcp --db {dir}/r.db` gives every file a fresh database). After the last
//! directive the input is closed and the server must have written exactly the expected lines,
//! in order, and nothing else. The report names the first mismatch per file with the JSON
//! path of the differing value.

mod bless;
mod cursors;
mod diff;
mod format;
mod in_process;
mod process;
mod versions;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use bless::{BlessError, bless, bless_file};
use diff::short;
pub use diff::{Difference, first_difference};
pub use format::{Directive, MAX_INPUT_BYTES, Step, Transcript, TranscriptError};
pub use in_process::{Exchange, StartError, serve_in_process};
pub use process::DIR_PLACEHOLDER;
pub use versions::{VERSION_PLACEHOLDER, Variant, variants, versions};

/// The wildcard: an expected value equal to this string matches any value (but not an absent
/// member).
pub const ANY: &str = "{{any}}";

/// One line the server wrote: JSON, or the raw text when it was not JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Written {
    Json(Value),
    NotJson(String),
}

/// How one file fared.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Every expected line matched and nothing else was written.
    Match { lines: usize },
    /// The first mismatch, described for a person.
    Mismatch(String),
    /// The transcript could not be read or the server not started.
    Broken(String),
}

/// Replays one transcript file against the in-process server (`command` is `None`) or the
/// given stdio command line (run by the platform shell), once per version the file names
/// (once when it names none, see [`variants`]). Returns each run with its version; a file
/// that cannot be read or parsed is a single broken run without one.
pub fn replay_runs(command: Option<&str>, path: &Path) -> Vec<(Option<String>, Outcome)> {
    let runs = read_transcript(path).and_then(|text| variants(&text).map_err(|e| e.to_string()));
    match runs {
        Ok(runs) => runs
            .into_iter()
            .map(|v| (v.version, replay(command, &v.transcript)))
            .collect(),
        Err(why) => vec![(None, Outcome::Broken(why))],
    }
}

/// The text of the transcript file at `path`. Only a regular file is read: a FIFO, a device
/// or a directory is refused, named, without being opened (a FIFO nobody writes would keep the
/// run waiting for good). A file of blank lines only is refused too: it tests nothing, and
/// would pass as a match of 0 lines.
pub(crate) fn read_transcript(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if let Some(kind) = crate::review::hashing::kind_name(&meta.file_type()) {
        return Err(format!(
            "cannot read: it is {kind}, not a regular file: give the transcript's file"
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    if text.trim().is_empty() {
        return Err(
            "the file is empty: a transcript holds send and expect lines, one JSON \
                    object each (protocol-fixtures/README.md)"
                .into(),
        );
    }
    Ok(text)
}

/// [`replay_runs`] summed up: a match of all their lines when every run matched, else the
/// first run that did not, naming its version.
pub fn replay_file(command: Option<&str>, path: &Path) -> Outcome {
    let mut lines = 0;
    for (version, outcome) in replay_runs(command, path) {
        let under = version
            .map(|v| format!("under version {v}"))
            .unwrap_or_default();
        match outcome {
            Outcome::Match { lines: n } => lines += n,
            Outcome::Mismatch(why) if !under.is_empty() => {
                return Outcome::Mismatch(format!("  {under}:\n{why}"));
            }
            Outcome::Broken(why) if !under.is_empty() => {
                return Outcome::Broken(format!("{under}: {why}"));
            }
            failed => return failed,
        }
    }
    Outcome::Match { lines }
}

/// One run of a transcript.
fn replay(command: Option<&str>, transcript: &Transcript) -> Outcome {
    let run = match command {
        None => in_process::run(transcript).map_err(|e| e.to_string()),
        Some(cmd) => process::run(cmd, transcript).map_err(|e| format!("cannot run {cmd:?}: {e}")),
    };
    match run {
        Ok(run) => compare(transcript, &run),
        Err(why) => Outcome::Broken(why),
    }
}

/// Replays every file and writes one line per run (plus a diff for failures) to `out`: the
/// file, and the version it ran under when it names versions. Returns whether all matched.
/// The only error is a failure to write the report.
pub fn replay_files(
    command: Option<&str>,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> io::Result<bool> {
    let mut all = true;
    let mut count = 0usize;
    for path in files {
        for (version, outcome) in replay_runs(command, path) {
            count += 1;
            // Escaped as every name the commands print: a file name (or a version a
            // transcript names) cannot act on the terminal or print a line of its own.
            let name = match version {
                Some(v) => format!("{} under {}", crate::text::shown_path(path), {
                    crate::text::escape_controls(&v)
                }),
                None => crate::text::shown_path(path),
            };
            match outcome {
                Outcome::Match { lines } => writeln!(out, "ok   {name} ({lines} server lines)")?,
                Outcome::Mismatch(why) => {
                    all = false;
                    writeln!(out, "FAIL {name}\n{why}")?;
                }
                Outcome::Broken(why) => {
                    all = false;
                    writeln!(out, "FAIL {name}\n  {why}")?;
                }
            }
        }
    }
    let failed = if all { "all matched" } else { "some failed" };
    let runs = if count == files.len() {
        String::new()
    } else {
        format!(", {count} runs")
    };
    writeln!(out, "{} transcript(s){runs}: {failed}", files.len())?;
    out.flush()?;
    Ok(all)
}

/// What a server wrote, and how it ended when that matters (an external server that timed
/// out, did not exit, or exited with a failure status).
struct Run {
    written: Vec<Written>,
    ending: Option<String>,
}

/// A line the server wrote, as the report shows it.
fn shown(line: &Written) -> String {
    match line {
        Written::Json(v) => short(v),
        Written::NotJson(t) => short(&Value::String(t.clone())),
    }
}

fn compare(transcript: &Transcript, run: &Run) -> Outcome {
    let expected = transcript.expected();
    for (n, (line, exp)) in expected.iter().enumerate() {
        let which = format!(
            "  transcript line {line} (server line {}):",
            n.saturating_add(1)
        );
        match run.written.get(n) {
            None => {
                let why = run
                    .ending
                    .as_deref()
                    .unwrap_or("the server wrote nothing more");
                return Outcome::Mismatch(format!(
                    "{which} expected a line, but {why}\n    expected: {}",
                    short(exp)
                ));
            }
            Some(Written::NotJson(text)) => {
                return Outcome::Mismatch(format!(
                    "{which} the server wrote a line that is not JSON\n    expected: {}\n    got:      {}",
                    short(exp),
                    shown(&Written::NotJson(text.clone()))
                ));
            }
            Some(Written::Json(got)) => {
                if let Some(d) = first_difference(exp, got) {
                    let at = if d.path.is_empty() { "/" } else { &d.path };
                    return Outcome::Mismatch(format!(
                        "{which} differs at {at}\n    expected: {}\n    got:      {}\n    whole line: {}",
                        d.expected,
                        d.got,
                        short(got)
                    ));
                }
            }
        }
    }
    if let Some(extra) = run.written.get(expected.len()) {
        let text = shown(extra);
        return Outcome::Mismatch(format!(
            "  after the last expected line the server wrote {} more line(s), first:\n    got:      {text}",
            run.written.len() - expected.len()
        ));
    }
    if let Some(why) = &run.ending {
        return Outcome::Mismatch(format!("  all lines matched, but {why}"));
    }
    Outcome::Match {
        lines: expected.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compare_reports_missing_and_extra_lines() {
        let t = Transcript::parse("{\"expect\":1}\n{\"expect\":2}").unwrap();
        let run = |w: Vec<Value>| Run {
            written: w.into_iter().map(Written::Json).collect(),
            ending: None,
        };
        assert_eq!(
            compare(&t, &run(vec![json!(1), json!(2)])),
            Outcome::Match { lines: 2 }
        );
        let Outcome::Mismatch(m) = compare(&t, &run(vec![json!(1)])) else {
            panic!("missing line not reported")
        };
        assert!(m.contains("transcript line 2"), "{m}");
        let Outcome::Mismatch(m) = compare(&t, &run(vec![json!(1), json!(2), json!(3)])) else {
            panic!("extra line not reported")
        };
        assert!(m.contains("1 more line"), "{m}");
    }
}
