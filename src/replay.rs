//! Transcript replay: feed recorded client lines to a server and compare what comes back.
//!
//! A transcript (format in `protocol-fixtures/README.md`) is JSON Lines, one directive per
//! line: `send` (a JSON message, written compactly plus `\n`), `send_raw` (exact bytes, for
//! malformed input: a string, or a list of parts with `hex` and `repeat` so a 17 MB line needs
//! no 17 MB file), `expect` (the next line the server must write, compared as JSON; the string
//! `"{{any}}"` matches any value), `eof` (close the server's input) and `comment`.
//!
//! The server is either this crate's own, in-process (a fresh [`Server`] over an in-memory
//! store per file, fed through the real [`LineReader`]), or any stdio command, started anew
//! for each file in a new empty working directory whose path replaces `{dir}` in the
//! command (so `review-mcp --db {dir}/r.db` gives every file a fresh database). After the last
//! directive the input is closed and the server must have written exactly the expected lines,
//! in order, and nothing else. The report names the first mismatch per file with the JSON
//! path of the differing value.

use std::cell::RefCell;
use std::io::{self, BufRead, BufReader, Cursor, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::framing::{Frame, LineReader};
use crate::server::Server;
use crate::service::Service;
use crate::store::Store;
use crate::version::Version;

/// The wildcard: an expected value equal to this string matches any value (but not an absent
/// member).
pub const ANY: &str = "{{any}}";

/// The most bytes a whole transcript may send, all its `send` and `send_raw` directives
/// together, checked before anything is built: a bound per part let a 25 KB transcript of
/// many `repeat` parts ask for 6 GiB. Four lines over the 16 MiB line limit still fit.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// How long an external server may take to write an expected line.
const LINE_TIMEOUT: Duration = Duration::from_secs(20);

/// How long an external server may take to exit once its input is closed.
const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// One step of a transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Bytes to write to the server, exactly as given.
    Send(Vec<u8>),
    /// The next line the server must write.
    Expect(Value),
    /// Close the server's input here.
    Eof,
}

/// A step and the transcript line it came from (1-based), for messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Directive {
    pub line: usize,
    pub step: Step,
}

/// A parsed transcript.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Transcript {
    pub directives: Vec<Directive>,
}

/// A transcript that cannot be read: which line and why.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for TranscriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "transcript line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TranscriptError {}

impl Transcript {
    /// Parses transcript text. Blank lines are skipped; every other line is one directive.
    pub fn parse(text: &str) -> Result<Transcript, TranscriptError> {
        let mut directives = Vec::new();
        let mut closed = false;
        let mut budget = MAX_INPUT_BYTES;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            if raw.trim().is_empty() {
                continue;
            }
            let fail = |message: String| TranscriptError { line, message };
            let value: Value =
                serde_json::from_str(raw).map_err(|e| fail(format!("not JSON: {e}")))?;
            let Value::Object(obj) = value else {
                return Err(fail("a directive must be a JSON object".into()));
            };
            let Some(step) = parse_directive(&obj, &mut budget).map_err(fail)? else {
                continue;
            };
            if closed && matches!(step, Step::Send(_) | Step::Eof) {
                return Err(fail("nothing can be sent after \"eof\"".into()));
            }
            closed |= step == Step::Eof;
            directives.push(Directive { line, step });
        }
        Ok(Transcript { directives })
    }

    /// The expected server lines, in order.
    pub fn expected(&self) -> Vec<(usize, &Value)> {
        self.directives
            .iter()
            .filter_map(|d| match &d.step {
                Step::Expect(v) => Some((d.line, v)),
                _ => None,
            })
            .collect()
    }

    /// Every byte sent before the input closes.
    pub fn input_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for d in &self.directives {
            match &d.step {
                Step::Send(bytes) => out.extend_from_slice(bytes),
                Step::Eof => break,
                Step::Expect(_) => {}
            }
        }
        out
    }
}

/// One directive object to a step; `None` for a comment.
fn parse_directive(obj: &Map<String, Value>, budget: &mut usize) -> Result<Option<Step>, String> {
    let keys: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "note")
        .collect();
    let [key] = keys.as_slice() else {
        return Err(format!(
            "a directive has exactly one of send, send_raw, expect, eof, comment (plus an optional note); found {keys:?}"
        ));
    };
    let value = obj.get(*key).unwrap_or(&Value::Null);
    match *key {
        "send" => {
            let mut bytes =
                serde_json::to_vec(value).map_err(|e| format!("cannot encode send: {e}"))?;
            bytes.push(b'\n');
            spend(budget, bytes.len())?;
            Ok(Some(Step::Send(bytes)))
        }
        "send_raw" => raw_bytes(value, budget).map(|b| Some(Step::Send(b))),
        "expect" => Ok(Some(Step::Expect(value.clone()))),
        "eof" if value == &Value::Bool(true) => Ok(Some(Step::Eof)),
        "eof" => Err("\"eof\" must be true".into()),
        "comment" => Ok(None),
        other => Err(format!("unknown directive {other:?}")),
    }
}

/// `send_raw`: a string (its UTF-8 bytes, no newline added) or a list of parts, each a string,
/// `{"hex": "ff fe"}` or `{"repeat": "x", "count": 17000000}`.
/// Every part is charged to `budget` (what the transcript may still send) before it is built.
fn raw_bytes(value: &Value, budget: &mut usize) -> Result<Vec<u8>, String> {
    match value {
        Value::String(s) => {
            spend(budget, s.len())?;
            Ok(s.as_bytes().to_vec())
        }
        Value::Array(parts) => {
            let mut out = Vec::new();
            for part in parts {
                match part {
                    Value::String(s) => {
                        spend(budget, s.len())?;
                        out.extend_from_slice(s.as_bytes());
                    }
                    Value::Object(p) if p.len() == 1 && p.contains_key("hex") => {
                        let hex = p.get("hex").and_then(Value::as_str).unwrap_or_default();
                        spend(budget, hex.len() / 2)?;
                        out.extend(decode_hex(hex)?);
                    }
                    Value::Object(p)
                        if p.len() == 2 && p.contains_key("repeat") && p.contains_key("count") =>
                    {
                        let unit = p.get("repeat").and_then(Value::as_str).unwrap_or_default();
                        let count = p
                            .get("count")
                            .and_then(Value::as_u64)
                            .and_then(|c| usize::try_from(c).ok())
                            .ok_or("\"count\" must be a non-negative integer")?;
                        if unit.is_empty() {
                            return Err("\"repeat\" must be a non-empty string".into());
                        }
                        spend(budget, unit.len().saturating_mul(count))?;
                        out.extend_from_slice(unit.repeat(count).as_bytes());
                    }
                    other => return Err(format!("unknown send_raw part {other}")),
                }
            }
            Ok(out)
        }
        _ => Err("\"send_raw\" must be a string or a list of parts".into()),
    }
}

/// Charges `bytes` to what the transcript may still send.
fn spend(budget: &mut usize, bytes: usize) -> Result<(), String> {
    match budget.checked_sub(bytes) {
        Some(left) => {
            *budget = left;
            Ok(())
        }
        None => Err(format!(
            "the transcript would send more than {MAX_INPUT_BYTES} bytes in all (the bound \
             covers every send and send_raw together)"
        )),
    }
}

fn decode_hex(hex: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = hex
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| match b {
            b'0'..=b'9' => Ok(b - b'0'),
            b'a'..=b'f' => Ok(b - b'a' + 10),
            b'A'..=b'F' => Ok(b - b'A' + 10),
            _ => Err(format!("{:?} is not a hex digit", char::from(b))),
        })
        .collect::<Result<_, _>>()?;
    if digits.len() % 2 != 0 {
        return Err("odd number of hex digits".into());
    }
    Ok(digits
        .chunks_exact(2)
        .map(|pair| match pair {
            [high, low] => high * 16 + low,
            _ => 0,
        })
        .collect())
}

/// The smallest difference between an expected and an actual JSON value.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// JSON pointer of the differing value (`""` is the whole message).
    pub path: String,
    /// The expected value, or `(absent)`.
    pub expected: String,
    /// The actual value, or `(absent)`.
    pub got: String,
}

/// Compares `got` against `expected`, where [`ANY`] matches any value. Objects must have the
/// same members, arrays the same length; numbers compare as serde_json does (`1` is not `1.0`).
pub fn first_difference(expected: &Value, got: &Value) -> Option<Difference> {
    diff_at(expected, got, String::new())
}

fn diff_at(expected: &Value, got: &Value, path: String) -> Option<Difference> {
    if expected.as_str() == Some(ANY) {
        return None;
    }
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (k, ev) in e {
                let p = format!("{path}/{}", escape_pointer(k));
                match g.get(k) {
                    Some(gv) => {
                        if let Some(d) = diff_at(ev, gv, p) {
                            return Some(d);
                        }
                    }
                    None => return Some(difference(p, Some(ev), None)),
                }
            }
            g.iter()
                .find(|(k, _)| !e.contains_key(*k))
                .map(|(k, gv)| difference(format!("{path}/{}", escape_pointer(k)), None, Some(gv)))
        }
        (Value::Array(e), Value::Array(g)) => {
            for (i, (ev, gv)) in e.iter().zip(g).enumerate() {
                if let Some(d) = diff_at(ev, gv, format!("{path}/{i}")) {
                    return Some(d);
                }
            }
            match e.len().cmp(&g.len()) {
                std::cmp::Ordering::Equal => None,
                std::cmp::Ordering::Greater => {
                    let i = g.len();
                    Some(difference(format!("{path}/{i}"), e.get(i), None))
                }
                std::cmp::Ordering::Less => {
                    let i = e.len();
                    Some(difference(format!("{path}/{i}"), None, g.get(i)))
                }
            }
        }
        _ if expected == got => None,
        (Value::String(e), Value::String(g)) if mask_seals(e) == mask_seals(g) => None,
        _ => Some(difference(path, Some(expected), Some(got))),
    }
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn difference(path: String, expected: Option<&Value>, got: Option<&Value>) -> Difference {
    Difference {
        path,
        expected: expected.map_or_else(|| "(absent)".to_string(), short),
        got: got.map_or_else(|| "(absent)".to_string(), short),
    }
}

/// A value for the report, cut to a readable length.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 300 {
        return s;
    }
    let mut cut: String = s.chars().take(300).collect();
    cut.push_str("...");
    cut
}

/// One line the server wrote: JSON, or the raw text when it was not JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Written {
    Json(Value),
    NotJson(String),
}

/// What one input frame made the in-process server write.
#[derive(Debug)]
pub struct Exchange {
    /// The input line (empty for an oversized line, which was discarded unread).
    pub input: Vec<u8>,
    /// True when the line was over the limit.
    pub too_long: bool,
    /// The messages written in answer, in order.
    pub outputs: Vec<Value>,
    /// The legacy session's version after this frame, if one is open.
    pub session: Option<Version>,
}

/// A failure to start the in-process server.
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot start the server: {}", self.0)
    }
}

impl std::error::Error for StartError {}

/// Feeds the transcript's input to a fresh in-process server, frame by frame, through the
/// same line reader the binary uses, and returns what each frame produced.
///
/// Recall cursors are sealed with a secret of the database that issued them (see
/// `tools/cursor.rs`), so a fresh server answers a recorded session with other seals: an
/// expected cursor matches one whose position is the same (see [`mask_seals`]), and a cursor
/// in what the transcript sends that this server did not issue is replaced by the latest one
/// it issued at the same position, as a client sends back the cursor it was given.
pub fn serve_in_process(transcript: &Transcript) -> Result<Vec<Exchange>, StartError> {
    let store = Store::open_in_memory().map_err(|e| StartError(e.to_string()))?;
    let mut server = Server::new(Service::new(store));
    let issued = Rc::new(RefCell::new(Vec::<String>::new()));
    let input = SendReader {
        chunks: transcript
            .directives
            .iter()
            .map_while(|d| match &d.step {
                Step::Send(bytes) => Some(Some(bytes.clone())),
                Step::Expect(_) => Some(None),
                Step::Eof => None,
            })
            .flatten()
            .collect(),
        current: Cursor::new(Vec::new()),
        issued: Rc::clone(&issued),
    };
    let mut reader = LineReader::new(BufReader::new(input));
    let mut exchanges = Vec::new();
    loop {
        // Reading from memory cannot fail; treat a failure as the end of input.
        let frame = reader.next_frame().unwrap_or(Frame::Eof);
        let (input, too_long) = match &frame {
            Frame::Eof => return Ok(exchanges),
            Frame::Line(bytes) => (bytes.clone(), false),
            Frame::TooLong { .. } => (Vec::new(), true),
        };
        let outputs = server.handle_frame(frame);
        for out in &outputs {
            issued.borrow_mut().extend(cursors_in(out));
        }
        exchanges.push(Exchange {
            input,
            too_long,
            outputs,
            session: server.session().map(|s| s.version),
        });
    }
}

/// The transcript's sends, one at a time, each with the recorded cursors replaced by the ones
/// this server issued at the same positions. A send is taken only when the line reader needs more
/// bytes, that is after every line before it was answered, so the cursor it carries back
/// has been issued by then.
struct SendReader {
    chunks: std::collections::VecDeque<Vec<u8>>,
    current: Cursor<Vec<u8>>,
    issued: Rc<RefCell<Vec<String>>>,
}

impl Read for SendReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.current.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(mut chunk) = self.chunks.pop_front() else {
                return Ok(0);
            };
            let issued = self.issued.borrow();
            let recorded: Vec<String> = std::str::from_utf8(&chunk)
                .map(|text| {
                    seals(text)
                        .into_iter()
                        .filter_map(|(a, _, b)| text.get(a..b).map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            for old in recorded.iter().filter(|c| !issued.contains(c)) {
                let now = issued
                    .iter()
                    .rev()
                    .find(|i| mask_seals(i) == mask_seals(old));
                if let Some(now) = now {
                    chunk = replace_bytes(&chunk, old.as_bytes(), now.as_bytes());
                }
            }
            drop(issued);
            self.current = Cursor::new(chunk);
        }
    }
}

fn replace_bytes(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() || from == to {
        return haystack.to_vec();
    }
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack.get(i..i + from.len()) == Some(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.extend(haystack.get(i).copied());
            i += 1;
        }
    }
    out
}

/// The sealed cursors in a string, in order: each as (start, end of its position part, end)
/// byte offsets. A cursor is `c2.<hex>.<hex>.<hex>.<32 hex>`; the last part is its seal.
fn seals(s: &str) -> Vec<(usize, usize, usize)> {
    let b = s.as_bytes();
    let hex_run = |from: usize| {
        b.get(from..).map_or(0, |rest| {
            rest.iter().take_while(|c| c.is_ascii_hexdigit()).count()
        })
    };
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(off) = s.get(at..).and_then(|rest| rest.find("c2.")) {
        let start = at + off;
        let mut i = start + 3;
        let mut ok = true;
        for _ in 0..3 {
            let n = hex_run(i);
            if n == 0 || b.get(i + n) != Some(&b'.') {
                ok = false;
                break;
            }
            i += n + 1;
        }
        if ok && hex_run(i) == 32 {
            found.push((start, i, i + 32));
            at = i + 32;
        } else {
            at = start + 3;
        }
    }
    found
}

/// `s` with the seal of every cursor in it blanked: two answers that hand out the same
/// positions compare equal whichever database sealed them.
pub fn mask_seals(s: &str) -> std::borrow::Cow<'_, str> {
    let found = seals(s);
    if found.is_empty() {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (_, seal_at, end) in found {
        out.push_str(s.get(last..seal_at).unwrap_or_default());
        out.push_str("(seal)");
        last = end;
    }
    out.push_str(s.get(last..).unwrap_or_default());
    std::borrow::Cow::Owned(out)
}

/// Every string in a JSON value, in document order.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Every cursor in the strings of a JSON value, in document order.
fn cursors_in(v: &Value) -> Vec<String> {
    let mut all = Vec::new();
    strings(v, &mut all);
    all.into_iter()
        .flat_map(|s| {
            seals(s)
                .into_iter()
                .filter_map(|(a, _, b)| s.get(a..b).map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Re-records a transcript's expectations from the in-process server, for when its answers
/// change on purpose (a new tool in `tools/list`). Every line but the `expect`s is kept as it
/// was (comments, notes, the exact `send` text); after each send come the lines the server now
/// writes for it. Where the old expectation at the same position had [`ANY`], the new one
/// keeps it, so volatile values stay wildcards. Returns the new text; review the diff before
/// committing it, since whatever the server says becomes the expectation.
pub fn bless(text: &str) -> Result<String, BlessError> {
    let transcript = Transcript::parse(text).map_err(BlessError::Transcript)?;
    let old: Vec<&Value> = transcript.expected().into_iter().map(|(_, v)| v).collect();
    let exchanges = serve_in_process(&transcript).map_err(BlessError::Start)?;

    // Frame k of the reader is the k-th newline-terminated segment of the input (plus a final
    // unterminated one, served at EOF), so the directive holding its newline produced it.
    let mut after_line: Vec<(usize, Vec<Value>)> = Vec::new();
    let mut frames = exchanges.into_iter().map(|x| x.outputs);
    let mut eof_line = None;
    let mut pending_partial = false;
    for d in &transcript.directives {
        match &d.step {
            Step::Send(bytes) => {
                let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
                let mut outputs = Vec::new();
                for _ in 0..newlines {
                    outputs.extend(frames.next().unwrap_or_default());
                }
                pending_partial = bytes.last().map_or(pending_partial, |&b| b != b'\n');
                after_line.push((d.line, outputs));
            }
            Step::Eof => {
                eof_line = Some(d.line);
                break;
            }
            Step::Expect(_) => {}
        }
    }
    // What is left is the unterminated last line, answered when the input closed.
    let rest: Vec<Value> = frames.flatten().collect();
    if pending_partial || !rest.is_empty() {
        let at = eof_line.unwrap_or(usize::MAX);
        after_line.push((at, rest));
    }

    let mut index = 0usize;
    let mut next_expect = |mut v: Value| -> Result<String, BlessError> {
        if let Some(o) = old.get(index) {
            keep_wildcards(o, &mut v);
        }
        index += 1;
        let mut m = Map::new();
        m.insert("expect".into(), v);
        serde_json::to_string(&Value::Object(m)).map_err(|e| BlessError::Encode(e.to_string()))
    };
    let mut out = String::new();
    let expect_lines: std::collections::BTreeSet<usize> = transcript
        .directives
        .iter()
        .filter(|d| matches!(d.step, Step::Expect(_)))
        .map(|d| d.line)
        .collect();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if expect_lines.contains(&line) {
            continue;
        }
        out.push_str(raw);
        out.push('\n');
        for (_, outputs) in after_line.iter().filter(|(l, _)| *l == line) {
            for v in outputs {
                out.push_str(&next_expect(v.clone())?);
                out.push('\n');
            }
        }
    }
    for (_, outputs) in after_line.iter().filter(|(l, _)| *l == usize::MAX) {
        for v in outputs {
            out.push_str(&next_expect(v.clone())?);
            out.push('\n');
        }
    }
    Ok(out)
}

/// Copies the wildcards of `old` into `new` where both have a value at the same place.
fn keep_wildcards(old: &Value, new: &mut Value) {
    if old.as_str() == Some(ANY) {
        *new = Value::String(ANY.to_string());
        return;
    }
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            for (k, nv) in n.iter_mut() {
                if let Some(ov) = o.get(k) {
                    keep_wildcards(ov, nv);
                }
            }
        }
        (Value::Array(o), Value::Array(n)) => {
            for (ov, nv) in o.iter().zip(n.iter_mut()) {
                keep_wildcards(ov, nv);
            }
        }
        _ => {}
    }
}

/// Why a transcript could not be blessed.
#[derive(Debug)]
pub enum BlessError {
    Transcript(TranscriptError),
    Start(StartError),
    Encode(String),
}

impl std::fmt::Display for BlessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlessError::Transcript(e) => e.fmt(f),
            BlessError::Start(e) => e.fmt(f),
            BlessError::Encode(m) => write!(f, "cannot encode an expectation: {m}"),
        }
    }
}

impl std::error::Error for BlessError {}

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
/// given stdio command line (run by the platform shell).
pub fn replay_file(command: Option<&str>, path: &Path) -> Outcome {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return Outcome::Broken(format!("cannot read: {e}")),
    };
    let transcript = match Transcript::parse(&text) {
        Ok(t) => t,
        Err(e) => return Outcome::Broken(e.to_string()),
    };
    let run = match command {
        None => match serve_in_process(&transcript) {
            Ok(exchanges) => Run {
                written: exchanges
                    .into_iter()
                    .flat_map(|x| x.outputs)
                    .map(Written::Json)
                    .collect(),
                ending: None,
            },
            Err(e) => return Outcome::Broken(e.to_string()),
        },
        Some(cmd) => match serve_command(cmd, &transcript) {
            Ok(run) => run,
            Err(e) => return Outcome::Broken(format!("cannot run {cmd:?}: {e}")),
        },
    };
    compare(&transcript, &run)
}

/// Replays every file and writes one line per file (plus a diff for failures) to `out`.
/// Returns whether all matched. The only error is a failure to write the report.
pub fn replay_files(
    command: Option<&str>,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> io::Result<bool> {
    let mut all = true;
    for path in files {
        match replay_file(command, path) {
            Outcome::Match { lines } => {
                writeln!(out, "ok   {} ({lines} server lines)", path.display())?;
            }
            Outcome::Mismatch(why) => {
                all = false;
                writeln!(out, "FAIL {}\n{why}", path.display())?;
            }
            Outcome::Broken(why) => {
                all = false;
                writeln!(out, "FAIL {}\n  {why}", path.display())?;
            }
        }
    }
    let failed = if all { "all matched" } else { "some failed" };
    writeln!(out, "{} transcript(s): {failed}", files.len())?;
    out.flush()?;
    Ok(all)
}

/// What a server wrote, and how it ended when that matters (an external server that timed
/// out, did not exit, or exited with a failure status).
struct Run {
    written: Vec<Written>,
    ending: Option<String>,
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
                    short(&Value::String(text.clone()))
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
        let text = match extra {
            Written::Json(v) => short(v),
            Written::NotJson(t) => short(&Value::String(t.clone())),
        };
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

/// The placeholder in a `--command` line for the transcript's own working directory.
pub const DIR_PLACEHOLDER: &str = "{dir}";

/// A new, empty directory for one transcript's server, removed when dropped. Every
/// transcript gets its own, so one that writes records cannot change what the next one
/// lists: `--command 'review-mcp --db {dir}/r.db'` replays each on a fresh database.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new() -> io::Result<WorkDir> {
        let base = std::env::temp_dir();
        let pid = std::process::id();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut last = io::Error::other("no directory name was free");
        for n in 0..100u32 {
            let path = base.join(format!("review-mcp-replay-{pid}-{nanos}-{n}"));
            // create_dir (not create_dir_all) fails on anything already there.
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(WorkDir(path)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }

    /// The path as one shell word: as it is when it needs no quoting, else single-quoted.
    fn shell_word(&self) -> String {
        let text = self.0.to_string_lossy();
        let plain = text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | ':'));
        if plain || cfg!(not(unix)) {
            text.into_owned()
        } else {
            format!("'{}'", text.replace('\'', "'\\''"))
        }
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.0) {
            log::warn!("cannot remove {}: {e}", self.0.display());
        }
    }
}

/// Runs `command` through the platform shell with piped stdio, in a new empty working
/// directory (its path replaces every [`DIR_PLACEHOLDER`] in `command`), writes the
/// transcript's input and reads as many lines as it expects (each within [`LINE_TIMEOUT`]);
/// then closes the input and collects whatever else the server writes until it exits. The
/// directory is removed afterwards.
fn serve_command(command: &str, transcript: &Transcript) -> io::Result<Run> {
    let dir = WorkDir::new()?;
    let command = command.replace(DIR_PLACEHOLDER, &dir.shell_word());
    let mut child = shell(&command)
        .current_dir(&dir.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        return Err(io::Error::other("no stdio pipes"));
    };
    // A writer thread and a reader thread, so a server that answers while we are still
    // writing a long input can never deadlock us.
    let (to_writer, for_writer) = mpsc::channel::<Vec<u8>>();
    let writer = thread::spawn(move || write_all_chunks(stdin, &for_writer));
    let lines = spawn_line_reader(stdout);

    let mut input = Some(to_writer);
    let mut written = Vec::new();
    let mut ending = None;
    for d in &transcript.directives {
        match &d.step {
            Step::Send(bytes) => {
                if let Some(tx) = &input {
                    // A send error means the writer gave up (the server closed its input);
                    // the missing answers will show as the mismatch.
                    let _ = tx.send(bytes.clone());
                }
            }
            Step::Eof => input = None,
            Step::Expect(_) => match lines.recv_timeout(LINE_TIMEOUT) {
                Ok(line) => written.push(line),
                Err(RecvTimeoutError::Timeout) => {
                    ending = Some(format!(
                        "the server wrote nothing within {} s",
                        LINE_TIMEOUT.as_secs()
                    ));
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    ending = Some("the server closed its output".to_string());
                    break;
                }
            },
        }
    }
    drop(input);
    if ending.is_none() {
        // Input is closed: anything more the server writes is an extra line.
        loop {
            match lines.recv_timeout(EXIT_TIMEOUT) {
                Ok(line) => written.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    ending = Some(format!(
                        "the server kept its output open {} s after its input closed",
                        EXIT_TIMEOUT.as_secs()
                    ));
                    break;
                }
            }
        }
    }
    if ending.is_none() {
        ending = exit_problem(&mut child);
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = writer.join();
    Ok(Run { written, ending })
}

#[cfg(unix)]
fn shell(command: &str) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c").arg(command);
    c
}

#[cfg(not(unix))]
fn shell(command: &str) -> Command {
    let mut c = Command::new("cmd");
    c.arg("/C").arg(command);
    c
}

fn write_all_chunks(mut stdin: impl Write, chunks: &Receiver<Vec<u8>>) {
    for chunk in chunks {
        if stdin
            .write_all(&chunk)
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return;
        }
    }
}

fn spawn_line_reader(stdout: impl Read + Send + 'static) -> Receiver<Written> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || read_lines(BufReader::new(stdout), &tx));
    rx
}

fn read_lines(mut reader: impl BufRead, tx: &Sender<Written>) {
    loop {
        let mut buf = Vec::new();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                }
                let line = match serde_json::from_slice(&buf) {
                    Ok(v) => Written::Json(v),
                    Err(_) => Written::NotJson(String::from_utf8_lossy(&buf).into_owned()),
                };
                if tx.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// After the output closed: the server must exit promptly and successfully.
fn exit_problem(child: &mut Child) -> Option<String> {
    let deadline = std::time::Instant::now() + EXIT_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return None,
            Ok(Some(status)) => return Some(format!("the server exited with {status}")),
            Ok(None) if std::time::Instant::now() < deadline => {
                thread::sleep(Duration::from_millis(10));
            }
            Ok(None) => {
                return Some(format!(
                    "the server did not exit within {} s of its input closing",
                    EXIT_TIMEOUT.as_secs()
                ));
            }
            Err(e) => return Some(format!("cannot wait for the server: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_send_appends_newline_and_raw_is_exact() {
        let t = Transcript::parse(
            "{\"send\":{\"a\":1}}\n\n{\"send_raw\":\"x\\r\\n\"}\n{\"comment\":\"hi\"}\n{\"send_raw\":[{\"hex\":\"ff FE\"},{\"repeat\":\"ab\",\"count\":3},\"\\n\"]}\n{\"expect\":{\"b\":2},\"note\":\"why\"}\n{\"eof\":true}\n",
        )
        .unwrap();
        assert_eq!(
            t.input_bytes(),
            b"{\"a\":1}\nx\r\n\xff\xfeababab\n".to_vec()
        );
        assert_eq!(t.expected(), vec![(6, &json!({"b": 2}))]);
        assert_eq!(t.directives.last().unwrap().step, Step::Eof);
    }

    #[test]
    fn parse_rejects_unknown_directives_and_sends_after_eof() {
        for bad in [
            "{\"sned\":1}",
            "{\"send\":1,\"expect\":2}",
            "[1]",
            "{\"eof\":false}",
            "{\"send_raw\":[{\"hex\":\"f\"}]}",
            "{\"send_raw\":[{\"repeat\":\"x\",\"count\":1000000000000}]}",
            "{\"eof\":true}\n{\"send\":{}}",
        ] {
            assert!(Transcript::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parse_many_repeat_parts_over_the_total_bound_is_refused_before_building() {
        // 256 parts of 32 MiB: each part is far under the bound, the transcript is 8 GiB.
        let part = format!("{{\"repeat\":\"x\",\"count\":{}}}", 32 * 1024 * 1024);
        let parts = vec![part; 256].join(",");
        let text = format!("{{\"send_raw\":[{parts}]}}\n");
        let e = Transcript::parse(&text).unwrap_err();
        assert!(e.message.contains("more than 67108864 bytes in all"), "{e}");
        // The same across directives.
        let line = format!(
            "{{\"send_raw\":[{{\"repeat\":\"x\",\"count\":{}}}]}}\n",
            20 << 20
        );
        let e = Transcript::parse(&line.repeat(4)).unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(Transcript::parse(&line.repeat(3)).is_ok());
    }

    #[test]
    fn difference_wildcard_matches_any_value_but_not_absence() {
        let exp = json!({"a": "{{any}}", "b": [1, {"c": "{{any}}"}]});
        assert_eq!(
            first_difference(&exp, &json!({"a": {"x": 1}, "b": [1, {"c": null}]})),
            None
        );
        let d = first_difference(&exp, &json!({"b": [1, {"c": 1}]})).unwrap();
        assert_eq!(d.path, "/a");
        assert_eq!(d.got, "(absent)");
    }

    #[test]
    fn difference_reports_path_of_smallest_change() {
        let d = first_difference(
            &json!({"result": {"list": [1, 2], "k/x": true}}),
            &json!({"result": {"list": [1, 3], "k/x": true}}),
        )
        .unwrap();
        assert_eq!(
            d,
            Difference {
                path: "/result/list/1".into(),
                expected: "2".into(),
                got: "3".into()
            }
        );
        let d = first_difference(&json!({"a": 1}), &json!({"a": 1, "z/": 2})).unwrap();
        assert_eq!((d.path.as_str(), d.expected.as_str()), ("/z~1", "(absent)"));
        let d = first_difference(&json!([1]), &json!([1, 2])).unwrap();
        assert_eq!(d.path, "/1");
        assert!(first_difference(&json!(1), &json!(1.0)).is_some());
    }

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

    #[test]
    fn bless_rewrites_expectations_keeps_comments_and_wildcards() {
        let text = r#"{"comment":"keep me"}
{"send":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"expect":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"1999-01-01","serverInfo":"{{any}}","instructions":"{{any}}","capabilities":{}}}}
{"send":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"send_raw":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n"}
{"send_raw":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"}
{"eof":true}
"#;
        let blessed = bless(text).unwrap();
        let lines: Vec<&str> = blessed.lines().collect();
        assert_eq!(lines[0], r#"{"comment":"keep me"}"#);
        assert!(lines[2].contains(r#""serverInfo":"{{any}}""#), "{blessed}");
        assert!(
            lines[2].contains(r#""protocolVersion":"2025-11-25""#),
            "{blessed}"
        );
        assert!(lines[5].contains(r#""id":1"#), "{blessed}");
        assert!(lines[6].contains("-32700"), "{blessed}");
        assert_eq!(lines[8], r#"{"eof":true}"#);
        assert!(lines[9].contains(r#""id":2"#), "{blessed}");
        assert_eq!(lines.len(), 10, "{blessed}");
        let again = Transcript::parse(&blessed).unwrap();
        let written = serve_in_process(&again)
            .unwrap()
            .into_iter()
            .flat_map(|e| e.outputs)
            .map(Written::Json)
            .collect();
        let run = Run {
            written,
            ending: None,
        };
        assert_eq!(compare(&again, &run), Outcome::Match { lines: 4 });
        assert_eq!(bless(&blessed).unwrap(), blessed, "blessing is idempotent");
    }

    #[test]
    fn in_process_replay_answers_ping_and_skips_notifications() {
        let t = Transcript::parse(
            r#"{"send":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"send":{"jsonrpc":"2.0","id":1,"method":"ping"}}
{"expect":{"jsonrpc":"2.0","id":1,"result":{}}}"#,
        )
        .unwrap();
        let x = serve_in_process(&t).unwrap();
        assert_eq!(x.len(), 2);
        assert!(x[0].outputs.is_empty());
        let written = x.into_iter().flat_map(|e| e.outputs).map(Written::Json);
        let run = Run {
            written: written.collect(),
            ending: None,
        };
        assert_eq!(compare(&t, &run), Outcome::Match { lines: 1 });
    }

    fn run_in_process(t: &Transcript) -> Run {
        let x = serve_in_process(t).unwrap();
        Run {
            written: x
                .into_iter()
                .flat_map(|e| e.outputs)
                .map(Written::Json)
                .collect(),
            ending: None,
        }
    }

    /// A recorded session that pages through a recall replays against a fresh server although
    /// that server seals its cursors with another secret: the recorded cursor matches the one
    /// issued at the same position, and the next page's request carries the issued one.
    #[test]
    fn in_process_replay_matches_cursors_sealed_by_another_database() {
        let rev = format!("sha256:{}", "ab".repeat(32));
        let mut text = String::from(
            r#"{"send":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}}
"#,
        );
        for i in 1..=3 {
            text.push_str(&format!(
                r#"{{"send":{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"remember","arguments":{{"artifact":{{"revision":"{rev}","format":"step"}},"entity_ids":[],"note":"n{i}"}}}}}}}}
"#
            ));
        }
        text.push_str(
            r#"{"send":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recall","arguments":{"limit":1}}}}
"#,
        );
        let blessed = bless(&text).unwrap();
        let t = Transcript::parse(&blessed).unwrap();
        let cursor = t
            .expected()
            .last()
            .and_then(|(_, v)| v["result"]["structuredContent"]["next_cursor"].as_str())
            .map(str::to_string)
            .unwrap();
        // The second page, as a client sends it: with the cursor it was given.
        let page2 = format!(
            r#"{{"send":{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"recall","arguments":{{"limit":1,"cursor":"{cursor}"}}}}}}}}
"#
        );
        // Ids, timestamps and the text copy change from run to run: wildcards, as in fixtures.
        let recorded: String = bless(&format!("{blessed}{page2}"))
            .unwrap()
            .lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                if let Some(sc) = v.pointer_mut("/expect/result/structuredContent") {
                    wildcard_volatile(sc);
                }
                if let Some(c) = v.pointer_mut("/expect/result/content") {
                    *c = Value::String(ANY.into());
                }
                format!("{v}\n")
            })
            .collect();
        // The recording as another database made it: the cursor it handed out and the one
        // the client sent back are the same foreign one. (Each bless ran a fresh server, so
        // the answer's cursor and the one in the send differ here.)
        let answered = Transcript::parse(&recorded)
            .unwrap()
            .expected()
            .get(4)
            .and_then(|(_, v)| v["result"]["structuredContent"]["next_cursor"].as_str())
            .map(str::to_string)
            .unwrap();
        let (_, seal_at, end) = seals(&cursor)[0];
        let foreign = format!("{}{}", &cursor[..seal_at], "0".repeat(end - seal_at));
        let foreign_text = recorded
            .replace(&cursor, &foreign)
            .replace(&answered, &foreign);
        assert!(foreign_text.contains(&foreign));
        let t = Transcript::parse(&foreign_text).unwrap();
        assert_eq!(
            compare(&t, &run_in_process(&t)),
            Outcome::Match { lines: 6 }
        );
        // A cursor at another position still differs.
        let moved = foreign_text.replace(&foreign, &foreign.replacen("c2.", "c2.1", 1));
        let t = Transcript::parse(&moved).unwrap();
        assert!(matches!(
            compare(&t, &run_in_process(&t)),
            Outcome::Mismatch(_)
        ));
    }

    fn wildcard_volatile(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if matches!(k.as_str(), "id" | "created_at" | "updated_at") {
                        *x = Value::String(ANY.into());
                    } else {
                        wildcard_volatile(x);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(wildcard_volatile),
            _ => {}
        }
    }

    #[test]
    fn mask_seals_blanks_only_whole_cursors() {
        let seal = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            mask_seals(&format!("x c2.3b.1.32.{seal} y")),
            "x c2.3b.1.32.(seal) y"
        );
        assert_eq!(mask_seals("c2.3b.1.32.0123"), "c2.3b.1.32.0123");
        assert_eq!(mask_seals("no cursor"), "no cursor");
    }
}
