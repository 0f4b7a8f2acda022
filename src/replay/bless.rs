//! Re-recording a transcript's expectations from the in-process server.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::versions::{self, VERSION_PLACEHOLDER};
use super::{ANY, StartError, Step, TranscriptError, format, serve_in_process};

/// `review-mcp replay --bless FILE`: the transcript at `path` [`bless`]ed, written back only
/// when it changed. Whether it changed, or why it could not be blessed.
pub fn bless_file(path: &std::path::Path) -> Result<bool, String> {
    let text = super::read_transcript(path)?;
    let blessed = bless(&text).map_err(|e| e.to_string())?;
    if blessed == text {
        return Ok(false);
    }
    std::fs::write(path, blessed).map_err(|e| e.to_string())?;
    Ok(true)
}

/// Re-records a transcript's expectations from the in-process server, for when its answers
/// change on purpose (a new tool in `tools/list`). Every line but the `expect`s is kept as it
/// was (comments, notes, the exact `send` text); after each send come the lines the server now
/// writes for it. Where the old expectation of the same message (the next one answering the
/// same id, or a notification of the same method) had [`ANY`], the new one keeps it, so
/// volatile values stay wildcards. Returns the new text; review the diff before
/// committing it, since whatever the server says becomes the expectation.
///
/// A file that names several versions is blessed under each of them, and the version in
/// every new expectation is written back as [`VERSION_PLACEHOLDER`]. That is one file only
/// when every version now gets the same answers; when they differ the file is refused
/// ([`BlessError::VersionsDiffer`]) and has to be split into one file per answer.
pub fn bless(text: &str) -> Result<String, BlessError> {
    let named = versions::versions(text).map_err(BlessError::Transcript)?;
    let Some((first, others)) = named.split_first() else {
        return bless_as(text, None);
    };
    let blessed = bless_as(text, Some(first))?;
    for other in others {
        let again = bless_as(text, Some(other))?;
        if let Some(line) = first_different_line(&blessed, &again) {
            return Err(BlessError::VersionsDiffer {
                first: first.clone(),
                other: other.clone(),
                line,
            });
        }
    }
    Ok(blessed)
}

/// Every timestamp and every sealed `requestState` in a new expectation becomes [`ANY`]: the
/// time a record, decision or verdict was written differs on every run, and so does a
/// `requestState` (it holds an expiry; the replay compares and swaps them by their mask).
fn wildcard_timestamps(v: &mut Value) {
    match v {
        Value::String(s) if crate::time::is_timestamp(s) || super::cursors::is_request_state(s) => {
            *s = ANY.to_string()
        }
        Value::Array(a) => a.iter_mut().for_each(wildcard_timestamps),
        Value::Object(m) => m.values_mut().for_each(wildcard_timestamps),
        _ => {}
    }
}

/// The first line (1-based) where two texts differ, if they do.
fn first_different_line(a: &str, b: &str) -> Option<usize> {
    let (mut a, mut b) = (a.lines(), b.lines());
    let mut line = 0;
    loop {
        line += 1;
        match (a.next(), b.next()) {
            (None, None) => return None,
            (x, y) if x != y => return Some(line),
            _ => {}
        }
    }
}

/// [`bless`] for one run: the transcript as it runs under `version`, and the new expectations
/// with that version turned back into the placeholder.
fn bless_as(text: &str, version: Option<&str>) -> Result<String, BlessError> {
    let transcript = format::parse_as(text, version).map_err(BlessError::Transcript)?;
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
        // The old expectation this line stands for: the next one that answers the same id
        // (or, for a notification, has the same method), so a line the server now writes in
        // between (a notification) does not shift every later wildcard onto the wrong line.
        let same = |o: &&Value| o.get("id") == v.get("id") && o.get("method") == v.get("method");
        if let Some(at) = old.iter().skip(index).position(same) {
            if let Some(o) = old.get(index + at) {
                keep_wildcards(o, &mut v);
            }
            index += at + 1;
        }
        wildcard_timestamps(&mut v);
        if let Some(version) = version {
            let shared = versions::unexpand(&v, version);
            if versions::expand(&shared, version) != v {
                return Err(BlessError::Placeholder(version.to_string()));
            }
            v = shared;
        }
        let mut m = Map::new();
        m.insert("expect".into(), v);
        serde_json::to_string(&Value::Object(m)).map_err(|e| BlessError::Encode(e.to_string()))
    };
    let mut out = String::new();
    let expect_lines: BTreeSet<usize> = transcript
        .directives
        .iter()
        .filter(|d| matches!(d.step, Step::Expect(_)))
        .map(|d| d.line)
        .collect();
    // Each line kept, then what the server wrote after it; last, what it wrote at the end.
    let kept = text.lines().enumerate().map(|(i, raw)| (i + 1, Some(raw)));
    for (line, raw) in kept.chain([(usize::MAX, None)]) {
        if expect_lines.contains(&line) {
            continue;
        }
        if let Some(raw) = raw {
            out.push_str(raw);
            out.push('\n');
        }
        for (_, outputs) in after_line.iter().filter(|(l, _)| *l == line) {
            for v in outputs {
                out.push_str(&next_expect(v.clone())?);
                out.push('\n');
            }
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
    /// A shared transcript's versions now get different answers, first at this line of
    /// the blessed file.
    VersionsDiffer {
        first: String,
        other: String,
        line: usize,
    },
    /// The server wrote the placeholder itself under this version, so the answer cannot be
    /// written back into a shared file.
    Placeholder(String),
}

impl std::fmt::Display for BlessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BlessError::Transcript(e) => e.fmt(f),
            BlessError::Start(e) => e.fmt(f),
            BlessError::Encode(m) => write!(f, "cannot encode an expectation: {m}"),
            BlessError::VersionsDiffer { first, other, line } => write!(
                f,
                "not blessed: under {first} and {other} the server now answers differently \
                 (line {line} of the blessed file), so one file cannot hold both; split it \
                 into a file per answer, each naming its versions"
            ),
            BlessError::Placeholder(v) => write!(
                f,
                "not blessed: under {v} the server wrote {VERSION_PLACEHOLDER} itself, which a \
                 shared transcript cannot express"
            ),
        }
    }
}

impl std::error::Error for BlessError {}

#[cfg(test)]
mod tests {
    use super::super::cursors::seals;
    use super::super::{Outcome, Transcript, compare, in_process};
    use super::*;

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
        let run = in_process::run(&again).unwrap();
        assert_eq!(compare(&again, &run), Outcome::Match { lines: 4 });
        assert_eq!(bless(&blessed).unwrap(), blessed, "blessing is idempotent");
    }

    /// A recorded session that pages through a recall replays against a fresh server although
    /// that server seals its cursors with another secret: the recorded cursor matches the one
    /// issued at the same position, and the next page's request carries the issued one.
    /// Regression (issue 14): blessing a transcript after the server began writing a
    /// notification between two answers kept each old wildcard on the line at the same
    /// position, so every later answer lost its wildcards.
    #[test]
    fn bless_keeps_wildcards_on_the_answer_they_belong_to_when_a_line_is_inserted() {
        let rev = format!("sha256:{}", "cd".repeat(32));
        let text = format!(
            r#"{{"send":{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}}}
{{"expect":{{"id":0,"jsonrpc":"2.0","result":"{{{{any}}}}"}}}}
{{"send":{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"remember","arguments":{{"artifact":{{"revision":"{rev}","format":"step"}},"entity_ids":[],"note":"n"}}}}}}}}
{{"expect":{{"id":1,"jsonrpc":"2.0","result":"{{{{any}}}}"}}}}
{{"send":{{"jsonrpc":"2.0","id":2,"method":"ping"}}}}
{{"expect":{{"id":2,"jsonrpc":"2.0","result":"{{{{any}}}}"}}}}
"#
        );
        let blessed = bless(&text).unwrap();
        let lines: Vec<&str> = blessed.lines().collect();
        assert_eq!(
            lines[3],
            r#"{"expect":{"id":1,"jsonrpc":"2.0","result":"{{any}}"}}"#
        );
        assert!(
            lines[4].contains("notifications/resources/list_changed"),
            "{blessed}"
        );
        assert_eq!(
            lines[6],
            r#"{"expect":{"id":2,"jsonrpc":"2.0","result":"{{any}}"}}"#
        );
    }

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
        // The last answer that pages (notifications of the writes come between the answers).
        let cursor = t
            .expected()
            .iter()
            .rev()
            .find_map(|(_, v)| v["result"]["structuredContent"]["next_cursor"].as_str())
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
            .iter()
            .find(|(_, v)| v["id"] == 4)
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
        // Six answers and the list_changed notification after each of the three writes.
        assert_eq!(
            compare(&t, &in_process::run(&t).unwrap()),
            Outcome::Match { lines: 9 }
        );
        // A cursor at another position still differs.
        let moved = foreign_text.replace(&foreign, &foreign.replacen("c2.", "c2.1", 1));
        let t = Transcript::parse(&moved).unwrap();
        assert!(matches!(
            compare(&t, &in_process::run(&t).unwrap()),
            Outcome::Mismatch(_)
        ));
    }

    fn wildcard_volatile(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if matches!(k.as_str(), "id" | "created_at" | "updated_at" | "at") {
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

    const SHARED_HANDSHAKE: &str = r#"{"comment":"the handshake, shared"}
{"versions":["2025-06-18","2025-11-25"]}
{"send":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"{{version}}","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"expect":{"stale":true}}
{"send":{"jsonrpc":"2.0","id":1,"method":"ping"}}
"#;

    #[test]
    fn bless_writes_a_shared_transcript_back_with_the_placeholder() {
        let blessed = bless(SHARED_HANDSHAKE).unwrap();
        let lines: Vec<&str> = blessed.lines().collect();
        assert_eq!(
            lines[..3],
            SHARED_HANDSHAKE.lines().collect::<Vec<_>>()[..3]
        );
        assert!(
            lines[3].contains(r#""protocolVersion":"{{version}}""#),
            "{blessed}"
        );
        assert!(!lines[3].contains("2025-"), "{blessed}");
        assert_eq!(lines.len(), 6, "{blessed}");
        assert_eq!(bless(&blessed).unwrap(), blessed, "blessing is idempotent");
        for run in crate::replay::variants(&blessed).unwrap() {
            let t = run.transcript;
            assert!(
                matches!(
                    compare(&t, &in_process::run(&t).unwrap()),
                    Outcome::Match { .. }
                ),
                "{:?}",
                run.version
            );
        }
    }

    #[test]
    fn bless_refuses_a_shared_transcript_whose_versions_now_answer_differently() {
        // 2024-11-05 has no serverInfo.title: the answers differ.
        let text = SHARED_HANDSHAKE.replace("2025-06-18", "2024-11-05");
        let e = bless(&text).unwrap_err();
        assert!(
            matches!(&e, BlessError::VersionsDiffer { line: 4, .. }),
            "{e}"
        );
        assert!(e.to_string().contains("split it"), "{e}");
    }
}
