//! Transcripts shared by several protocol versions: the `versions` directive and the
//! `{{version}}` placeholder.
//!
//! A file whose conversation is the same under several revisions names them once,
//! `{"versions": ["2025-06-18", "2025-11-25"]}`, before its first `send`, `expect` or `eof`,
//! and writes `{{version}}` where the revision goes. It runs once per named version: every
//! occurrence of the placeholder inside a JSON string (member names included) of a `send`,
//! `send_raw` or `expect` is replaced by that version before anything is sent or compared.
//! Comments and notes are not touched. A file that names no versions runs once, as written,
//! and may not use the placeholder.

use serde_json::{Map, Value};

use super::{Transcript, TranscriptError, format};

/// Where a shared transcript's version goes.
pub const VERSION_PLACEHOLDER: &str = "{{version}}";

/// One run of a transcript file.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// The version it runs under; `None` for a file that names no versions.
    pub version: Option<String>,
    /// The transcript with [`VERSION_PLACEHOLDER`] replaced by that version.
    pub transcript: Transcript,
}

/// The runs of a transcript file: one per version its `versions` directive names, in order,
/// or a single one (version `None`) when it has no such directive.
pub fn variants(text: &str) -> Result<Vec<Variant>, TranscriptError> {
    let versions = versions(text)?;
    let runs: Vec<Option<String>> = match versions.is_empty() {
        true => vec![None],
        false => versions.into_iter().map(Some).collect(),
    };
    runs.into_iter()
        .map(|version| {
            let transcript = format::parse_as(text, version.as_deref())?;
            Ok(Variant {
                version,
                transcript,
            })
        })
        .collect()
}

/// The versions a transcript's `versions` directive names, in order; empty when it has none.
/// The directive may come once, before the first `send`, `send_raw`, `expect` or `eof`, and
/// must name at least one version, each a distinct non-empty string without braces.
pub fn versions(text: &str) -> Result<Vec<String>, TranscriptError> {
    let mut found: Option<Vec<String>> = None;
    let mut started = false;
    for (i, raw) in text.lines().enumerate() {
        let fail = |message: &str| TranscriptError {
            line: i + 1,
            message: message.to_string(),
        };
        // Lines that are not directive objects are reported by the parser.
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(raw) else {
            started |= !raw.trim().is_empty();
            continue;
        };
        let Some(list) = obj.get("versions") else {
            started |= !obj.contains_key("comment");
            continue;
        };
        if obj.keys().any(|k| k != "versions" && k != "note") {
            return Err(fail(
                "a \"versions\" directive has no other member (but an optional note)",
            ));
        }
        if found.is_some() {
            return Err(fail("a transcript names its versions once"));
        }
        if started {
            return Err(fail(
                "\"versions\" comes before the first send, send_raw, expect or eof",
            ));
        }
        found = Some(version_list(list).map_err(|m| fail(&m))?);
    }
    Ok(found.unwrap_or_default())
}

fn version_list(list: &Value) -> Result<Vec<String>, String> {
    let Some(items) = list.as_array().filter(|a| !a.is_empty()) else {
        return Err("\"versions\" is a non-empty list of version strings".into());
    };
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let v = item.as_str().unwrap_or_default();
        if v.is_empty() || v.contains(['{', '}']) {
            return Err(format!(
                "{item} is not a version (a non-empty string without braces)"
            ));
        }
        if out.iter().any(|o| o == v) {
            return Err(format!("{v:?} is named twice"));
        }
        out.push(v.to_string());
    }
    Ok(out)
}

/// `value` with every [`VERSION_PLACEHOLDER`] in its strings replaced by `version`.
pub(super) fn expand(value: &Value, version: &str) -> Value {
    replace_in_strings(value, VERSION_PLACEHOLDER, version)
}

/// The reverse of [`expand`]: every occurrence of `version` in the strings of `value` becomes
/// [`VERSION_PLACEHOLDER`]. Used by `bless` to write a shared file back.
pub(super) fn unexpand(value: &Value, version: &str) -> Value {
    replace_in_strings(value, version, VERSION_PLACEHOLDER)
}

/// Whether a string of `value` (member names included) contains the placeholder.
pub(super) fn has_placeholder(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains(VERSION_PLACEHOLDER),
        Value::Array(a) => a.iter().any(has_placeholder),
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| k.contains(VERSION_PLACEHOLDER) || has_placeholder(v)),
        _ => false,
    }
}

fn replace_in_strings(value: &Value, from: &str, to: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace(from, to)),
        Value::Array(a) => {
            Value::Array(a.iter().map(|x| replace_in_strings(x, from, to)).collect())
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.replace(from, to), replace_in_strings(v, from, to)))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Step;
    use serde_json::json;

    const SHARED: &str = r#"{"comment":"ping in two versions; 2025-06-18 in a comment stays"}
{"versions":["2025-06-18","2025-11-25"]}
{"send":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"{{version}}"}}}
{"send_raw":"{\"v\":\"{{version}}\"}\n","note":"{{version}} in a note stays"}
{"expect":{"result":{"protocolVersion":"{{version}}","serverInfo":"{{any}}","{{version}}":1}}}
"#;

    #[test]
    fn variants_run_once_per_version_with_the_placeholder_replaced() {
        let runs = variants(SHARED).unwrap();
        let names: Vec<_> = runs.iter().map(|r| r.version.as_deref()).collect();
        assert_eq!(names, [Some("2025-06-18"), Some("2025-11-25")]);
        let t = &runs[1].transcript;
        let sent = String::from_utf8(t.input_bytes()).unwrap();
        assert!(sent.contains(r#""protocolVersion":"2025-11-25""#), "{sent}");
        assert!(sent.ends_with("{\"v\":\"2025-11-25\"}\n"), "{sent}");
        assert!(!sent.contains("{{version}}"), "{sent}");
        let expected = json!({"result": {"protocolVersion": "2025-11-25", "serverInfo": "{{any}}", "2025-11-25": 1}});
        assert_eq!(t.expected(), vec![(5, &expected)]);
        assert!(matches!(t.directives[0].step, Step::Send(_)));
    }

    #[test]
    fn a_file_without_versions_runs_once_and_may_not_use_the_placeholder() {
        let plain = "{\"send\":{\"id\":1}}\n{\"expect\":{\"id\":1}}\n";
        let runs = variants(plain).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].version, None);
        assert_eq!(runs[0].transcript, Transcript::parse(plain).unwrap());
        let e = variants("{\"send\":{\"v\":\"{{version}}\"}}\n").unwrap_err();
        assert!(e.message.contains("names no versions"), "{e}");
        let e = Transcript::parse(SHARED).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
    }

    #[test]
    fn the_versions_directive_is_checked() {
        for (bad, line) in [
            ("{\"versions\":[]}", 1),
            ("{\"versions\":\"2025-06-18\"}", 1),
            ("{\"versions\":[\"a\",\"a\"]}", 1),
            ("{\"versions\":[\"{{any}}\"]}", 1),
            ("{\"versions\":[1]}", 1),
            ("{\"versions\":[\"a\"],\"send\":{}}", 1),
            ("{\"versions\":[\"a\"]}\n{\"versions\":[\"b\"]}", 2),
            ("{\"send\":{}}\n{\"versions\":[\"a\"]}", 2),
        ] {
            let e = variants(bad).unwrap_err();
            assert_eq!(e.line, line, "{bad}: {e}");
        }
        let ok = "{\"comment\":\"c\"}\n\n{\"versions\":[\"a\"],\"note\":\"n\"}\n{\"send\":{}}";
        assert_eq!(versions(ok).unwrap(), ["a"]);
    }

    #[test]
    fn unexpand_reverses_expand() {
        let v = json!({"a": ["{{version}} x", "{{any}}"], "{{version}}": 1});
        let e = expand(&v, "2025-03-26");
        assert_eq!(
            e,
            json!({"a": ["2025-03-26 x", "{{any}}"], "2025-03-26": 1})
        );
        assert!(!has_placeholder(&e) && has_placeholder(&v));
        assert_eq!(unexpand(&e, "2025-03-26"), v);
    }
}
