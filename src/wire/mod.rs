//! The wire encoding, in one place: every byte of JSON the server writes is made here.
//!
//! The layers above hand this module typed values and get back opaque pieces:
//! - [`Encoded`]: a value's compact JSON (serde_json's) and its escaped copy;
//! - [`PageWriter`]: the items of a recall page, written one at a time within a byte budget;
//! - [`Payload`]: a result object whose members are values or raw JSON, which the
//!   JSON-RPC layer encodes into a response line ([`envelope`]).
//!
//! A tool answer carries its JSON twice (`structuredContent` and the text block that holds it
//! as a string), and a page of records is tens of kilobytes: built as a `serde_json::Value`
//! tree and encoded, it cost more than the query. So answers go from the rows straight to
//! text once, and the line is assembled in the buffer of its largest member.

mod envelope;
mod escape;
mod fit;
mod page;

use std::rc::Rc;

use serde::Serialize;
use serde_json::{Map, Value};

pub use envelope::{batch_line, error_line, message_line, result_line};
pub use escape::to_json;
use escape::{push_json_as_string_contents, quotes};
pub use fit::{fit_item, part};
pub use page::PageWriter;
/// Why a value could not be encoded.
pub type Error = serde_json::Error;

/// What the items of one answer (the records or decisions of a page, or the one a `remember`
/// returns) may cost in bytes: their JSON plus its escaped copy, both of which the answer
/// carries. The rest of the answer line (the envelope, the summary, `next_cursor`) fits in the
/// 64 KiB left over, so no answer line is longer than a request line may be
/// ([`crate::framing::MAX_LINE_BYTES`], 16 MiB). A page stops early when the next item would
/// pass it; a record or decision that alone would is refused before it is written (see
/// [`check_item_fits`]), so every item fits a page.
pub const MAX_ANSWER_ITEMS_BYTES: usize = crate::framing::MAX_LINE_BYTES - 64 * 1024;

/// The most bytes a tool or resource answer takes on the wire at default arguments, and a page
/// asked for with a larger `limit` or full detail still: the reader of every answer is a
/// model with a context window, and hosts warn at about 10,000 tokens of tool output.
pub const ANSWER_BOUND: usize = 32 * 1000;

/// What the items of one page (both copies, and the page's artifacts table) may cost within
/// [`ANSWER_BOUND`]: the rest (the envelope, `_meta`, the summary line, `next_cursor`) fits in
/// what is left.
pub const PAGE_ITEMS_BUDGET: usize = ANSWER_BOUND - 3 * 1024;

/// A value's compact JSON and the same JSON escaped as the inside of a JSON string: the two
/// copies a tool answer carries.
#[derive(Debug)]
pub struct Encoded {
    plain: String,
    quoted: String,
}

impl Encoded {
    /// Encodes `value` (a tool's structured answer).
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Result<Encoded, Error> {
        Ok(Encoded::from_json(to_json(value)?))
    }

    /// `plain`, compact JSON made by [`to_json`], with its escaped copy.
    fn from_json(plain: String) -> Encoded {
        let mut quoted = String::new();
        push_json_as_string_contents(&plain, &mut quoted);
        Encoded { plain, quoted }
    }

    /// What the answer that carries this value pays for it: its JSON and the escaped copy.
    pub fn answer_bytes(&self) -> usize {
        self.plain.len() + self.quoted.len()
    }

    /// The value encoded: for checks in debug builds and tests.
    pub fn to_value(&self) -> serde_json::Result<Value> {
        serde_json::from_str(&self.plain)
    }
}

/// What `value` costs an answer that carries it: its JSON and its escaped copy. A value that
/// cannot be encoded counts as too big for any answer.
pub fn answer_bytes<T: Serialize + ?Sized>(value: &T) -> usize {
    match to_json(value) {
        Ok(json) => 2 * json.len() + quotes(json.as_bytes()),
        Err(e) => {
            log::error!("a wire form could not be encoded: {e}");
            usize::MAX
        }
    }
}

/// Refuses an item (a record or decision, `what` naming it) that would cost an answer
/// `bytes` (see [`answer_bytes`]), more than [`MAX_ANSWER_ITEMS_BYTES`]: every item must fit
/// in a page of its own, inside the answer line limit. The tools check what they write, and
/// import and sync what they read, before it is committed.
pub fn check_item_fits(what: &str, bytes: usize) -> Result<(), String> {
    if bytes > MAX_ANSWER_ITEMS_BYTES {
        return Err(format!(
            "{what} would take {bytes} bytes in an answer, which carries its JSON twice \
             (structuredContent and the text copy; quotes, backslashes and control characters \
             grow when escaped): at most {MAX_ANSWER_ITEMS_BYTES} bytes fit in one answer line. \
             Split it over several, e.g. fewer entity ids or faces each. Nothing was written."
        ));
    }
    Ok(())
}

/// Compact JSON text made by this module: valid by construction, opaque to everyone else.
/// Owned while an answer is built (the response line is assembled in its buffer), shared once
/// it is kept (a memoised list), so a copy of it costs a reference count.
#[derive(Debug, Clone, PartialEq)]
pub struct Raw(RawText);

#[derive(Debug, Clone, PartialEq)]
enum RawText {
    Owned(String),
    Shared(Rc<str>),
}

impl Raw {
    fn owned(json: String) -> Raw {
        Raw(RawText::Owned(json))
    }

    fn as_str(&self) -> &str {
        match &self.0 {
            RawText::Owned(s) => s,
            RawText::Shared(s) => s,
        }
    }

    fn into_string(self) -> String {
        match self.0 {
            RawText::Owned(s) => s,
            RawText::Shared(s) => s.to_string(),
        }
    }

    fn share(self) -> Raw {
        match self.0 {
            RawText::Owned(s) => Raw(RawText::Shared(s.into())),
            shared @ RawText::Shared(_) => Raw(shared),
        }
    }
}

/// One member of a result object.
#[derive(Debug, Clone, PartialEq)]
pub enum Member {
    Value(Value),
    Raw(Raw),
}

/// A result object: members by name, written in sorted order of their names, as serde_json
/// writes every other object. `_meta` is kept apart as a value, so an adapter can add to it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Payload {
    members: Vec<(String, Member)>,
    meta: Option<Map<String, Value>>,
}

impl Payload {
    /// The members of `object`.
    pub fn from_map(mut object: Map<String, Value>) -> Payload {
        let meta = object.remove("_meta").map(|m| match m {
            Value::Object(m) => m,
            _ => Map::new(),
        });
        Payload {
            members: object
                .into_iter()
                .map(|(name, v)| (name, Member::Value(v)))
                .collect(),
            meta,
        }
    }

    /// Sets a member, replacing one of the same name.
    pub fn insert(&mut self, name: &str, value: Value) {
        if name == "_meta" {
            *self.meta_mut() = match value {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            return;
        }
        self.set(name, Member::Value(value));
    }

    fn set(&mut self, name: &str, member: Member) {
        match self.members.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = member,
            None => self.members.push((name.to_string(), member)),
        }
    }

    /// The result's `_meta` object, made empty if it was missing.
    pub fn meta_mut(&mut self) -> &mut Map<String, Value> {
        self.meta.get_or_insert_with(Map::new)
    }

    /// Every member, `_meta` included, in no particular order.
    fn into_members(self) -> Vec<(String, Member)> {
        let mut members = self.members;
        if let Some(meta) = self.meta {
            members.push(("_meta".to_string(), Member::Value(Value::Object(meta))));
        }
        members
    }

    /// The same result with every member encoded and shared: what a memo keeps, so that
    /// answering from it costs one copy of the text.
    pub fn shared(self) -> Payload {
        Payload {
            meta: self.meta,
            members: self
                .members
                .into_iter()
                .map(|(name, m)| {
                    let raw = match m {
                        Member::Raw(r) => r,
                        Member::Value(v) => Raw::owned(envelope::value_json(&v)),
                    };
                    (name, Member::Raw(raw.share()))
                })
                .collect(),
        }
    }
}

/// A successful tool result: the summary and the whole structured answer as text blocks (the
/// JSON copy is what the spec asks of a tool with an output schema, for clients that read only
/// `content`), then `structuredContent` where the version has it.
pub fn tool_result(summary: &str, structured: Encoded, with_structured_content: bool) -> Payload {
    let summary = envelope::value_json(&Value::String(summary.to_string()));
    // The response line is assembled in this buffer (see `envelope::result_line`): room
    // for `structuredContent` and the envelope too.
    let copies = if with_structured_content {
        structured.plain.len()
    } else {
        0
    };
    let capacity = summary.len() + structured.quoted.len() + copies + 256;
    let mut content = String::with_capacity(capacity);
    content.push_str("[{\"text\":");
    content.push_str(&summary);
    content.push_str(",\"type\":\"text\"},{\"text\":\"");
    content.push_str(&structured.quoted);
    content.push_str("\",\"type\":\"text\"}]");
    let mut payload = Payload::default();
    payload.set("content", Member::Raw(Raw::owned(content)));
    if with_structured_content {
        payload.set(
            "structuredContent",
            Member::Raw(Raw::owned(structured.plain)),
        );
    }
    payload
}

/// A failed tool call: its message as the one text block, with `isError`.
pub fn tool_error(message: &str) -> Payload {
    let mut payload = Payload::default();
    payload.insert(
        "content",
        serde_json::json!([{"type": "text", "text": message}]),
    );
    payload.insert("isError", Value::Bool(true));
    payload
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Structured answers that stress escaping.
    fn awkward_values() -> Vec<Value> {
        let controls: String = (0u8..0x20).map(char::from).collect();
        vec![
            json!({}),
            json!({"a": "plain", "n": 1, "f": -2.5e-7, "b": [true, false, null]}),
            json!({"q": "say \"hi\" \\ back\\\\slash", "c": controls}),
            json!({"u": "Größe ∅ 𝔸 \u{2028} \u{7f} \u{fffd}", "nested": {"k\"ey": ["\\\""]}}),
            json!({"nul": "a\u{0}b", "bell": "\u{7}"}),
        ]
    }

    /// The bytes are those of the equivalent value as the server writes every JSON
    /// ([`to_json`]: serde_json's, with DEL, C1, U+2028/9 and the bidirectional controls
    /// escaped, in `structuredContent` and in the text copy alike), and the same value.
    #[test]
    fn tool_result_is_the_bytes_of_the_equivalent_value() {
        for structured in awkward_values() {
            let text = to_json(&structured).unwrap();
            for with in [false, true] {
                let mut want = json!({"content": [
                    {"type": "text", "text": "sum \"mary\"\n"},
                    {"type": "text", "text": text},
                ]});
                if with {
                    want["structuredContent"] = structured.clone();
                }
                let encoded = Encoded::of(&structured).unwrap();
                let payload = tool_result("sum \"mary\"\n", encoded, with);
                let line = result_line(&json!(1), payload);
                let want = json!({"jsonrpc": "2.0", "id": 1, "result": want});
                assert_eq!(line, to_json(&want).unwrap());
                let got: Value = serde_json::from_str(&line).unwrap();
                assert_eq!(
                    got["result"]["structuredContent"],
                    want["result"]["structuredContent"]
                );
                let copy = got["result"]["content"][1]["text"].as_str().unwrap();
                assert_eq!(serde_json::from_str::<Value>(copy).unwrap(), structured);
                assert!(
                    !copy.chars().any(crate::text::is_control_like),
                    "the text copy holds a raw control: {copy:?}"
                );
            }
        }
    }

    #[test]
    fn payload_meta_and_shared_members_encode_like_values() {
        let results = [
            json!({}),
            json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}}),
            json!({"_meta": {"x": 1}, "content": [], "isError": true, "resultType": "old"}),
            json!({"_meta": "not an object", "z": 1}),
        ];
        for result in results {
            let Value::Object(m) = result.clone() else {
                continue;
            };
            let mut payload = Payload::from_map(m.clone());
            payload.insert("resultType", json!("complete"));
            payload.meta_mut().insert("k".into(), json!("v"));
            let mut want = m;
            want.insert("resultType".into(), json!("complete"));
            let meta = want.entry("_meta").or_insert(json!({}));
            if !meta.is_object() {
                *meta = json!({});
            }
            meta["k"] = json!("v");
            let want = json!({"jsonrpc": "2.0", "id": "i", "result": want});
            for p in [payload.clone(), payload.clone().shared()] {
                assert_eq!(result_line(&json!("i"), p), want.to_string());
            }
        }
    }
}
