//! The transcript format: one JSON directive per line, parsed into the steps of a replay.

use serde_json::{Map, Value};

use super::versions::{self, VERSION_PLACEHOLDER};

/// The most bytes a whole transcript may send, all its `send` and `send_raw` directives
/// together, checked before anything is built (a bound per part alone would let a small file
/// of many `repeat` parts ask for gigabytes). Four lines over the 16 MiB line limit still fit.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

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
    /// A file that names the versions it runs under is refused here: it is several
    /// transcripts, one per version, see [`variants`](super::variants).
    pub fn parse(text: &str) -> Result<Transcript, TranscriptError> {
        parse_as(text, None)
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

/// Parses `text` as it runs under `version`: every [`VERSION_PLACEHOLDER`] in the strings of a
/// `send`, `send_raw` or `expect` is replaced by it before the directive is read, and the
/// `versions` directive (checked by [`versions::versions`]) is skipped. Without a version,
/// both the directive and the placeholder are errors.
pub(super) fn parse_as(text: &str, version: Option<&str>) -> Result<Transcript, TranscriptError> {
    let mut directives = Vec::new();
    let mut closed = false;
    let mut budget = MAX_INPUT_BYTES;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let fail = |message: String| TranscriptError { line, message };
        if raw.starts_with('\u{feff}') {
            return Err(fail(
                "starts with a byte order mark (U+FEFF, an editor's UTF-8 signature): save the \
                 transcript as UTF-8 without a BOM"
                    .into(),
            ));
        }
        let value: Value = serde_json::from_str(raw).map_err(|e| fail(format!("not JSON: {e}")))?;
        let Value::Object(mut obj) = value else {
            return Err(fail("a directive must be a JSON object".into()));
        };
        if obj.contains_key("versions") {
            if version.is_none() {
                return Err(fail(
                    "this transcript names the versions it runs under: it runs once per \
                     version (replay::variants), not as one transcript"
                        .into(),
                ));
            }
            continue;
        }
        for (key, value) in obj.iter_mut() {
            if matches!(key.as_str(), "comment" | "note") {
                continue;
            }
            match version {
                Some(v) => *value = versions::expand(value, v),
                None if versions::has_placeholder(value) => {
                    return Err(fail(format!(
                        "{VERSION_PLACEHOLDER} is used, but the transcript names no versions \
                         (a {{\"versions\": [...]}} directive)"
                    )));
                }
                None => {}
            }
        }
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

/// One directive object to a step; `None` for a comment.
fn parse_directive(obj: &Map<String, Value>, budget: &mut usize) -> Result<Option<Step>, String> {
    let keys: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "note")
        .collect();
    let [key] = keys.as_slice() else {
        return Err(format!(
            "a directive has exactly one of send, send_raw, expect, eof, comment, versions (plus an optional note); found {keys:?}"
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
    // A string is a list of that one part.
    let parts = match value {
        Value::String(_) => std::slice::from_ref(value),
        Value::Array(parts) => parts.as_slice(),
        _ => return Err("\"send_raw\" must be a string or a list of parts".into()),
    };
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
    if !digits.len().is_multiple_of(2) {
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
    fn parse_names_a_byte_order_mark_and_how_to_remove_it() {
        let e = Transcript::parse("\u{feff}{\"send\":{}}").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("byte order mark"), "{}", e.message);
    }

    #[test]
    fn parse_many_repeat_parts_over_the_total_bound_is_refused_before_building() {
        // 256 parts of 32 MiB: each part is far under the bound, the transcript is 8 GiB.
        let part = json!({"repeat": "x", "count": 32 * 1024 * 1024});
        let text = format!("{}\n", json!({"send_raw": vec![part; 256]}));
        let e = Transcript::parse(&text).unwrap_err();
        assert!(e.message.contains("more than 67108864 bytes in all"), "{e}");
        // The same across directives.
        let line = format!(
            "{}\n",
            json!({"send_raw": [{"repeat": "x", "count": 20 << 20}]})
        );
        let e = Transcript::parse(&line.repeat(4)).unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(Transcript::parse(&line.repeat(3)).is_ok());
    }
}
