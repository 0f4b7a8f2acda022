//! The review tools: their wire schemas and how each one runs against the store.
//!
//! The service layer validates arguments against `input_schema` before calling [`run`], so a
//! tool's code may rely on the schema's shape; domain rules the schema cannot express are
//! checked here and answered as [`ToolError::Invalid`]. Each tool lives in its own file:
//! its spec (schemas, annotations, description), its argument type, and its run function.

mod cursor;
mod forget;
mod recall;
mod recall_decisions;
mod remember;
mod remember_decision;
pub mod schema;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::review::json::{JsonOut, push_json_as_string_contents};
use crate::review::{Artifact, DomainError};
use crate::store::{Store, StoreError};

/// A tool as `tools/list` describes it.
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
    pub output_schema: Value,
    /// `ToolAnnotations` (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`).
    pub annotations: Value,
}

/// A successful call: the structured result, already encoded as compact JSON (a page of
/// records goes from the rows straight to text, never through a `Value` tree), and a
/// one-line summary a person can read.
#[derive(Debug)]
pub struct ToolOutput {
    pub structured: String,
    pub summary: String,
    /// `structured` escaped as the inside of a JSON string, when it was written alongside
    /// (a recall page: see `review::json`); otherwise the answer's text copy is escaped from
    /// `structured`.
    pub quoted: Option<String>,
}

impl ToolOutput {
    /// Encodes `structured` (an object) with its summary.
    fn new(structured: &impl Serialize, summary: String) -> Result<ToolOutput, ToolError> {
        let structured = serde_json::to_string(structured)
            .map_err(|e| ToolError::Internal(format!("could not encode the answer: {e}")))?;
        Ok(ToolOutput {
            structured,
            summary,
            quoted: None,
        })
    }
}

/// A failed call, answered as an `isError` result whose text says what to fix.
#[derive(Debug, PartialEq)]
pub enum ToolError {
    /// The arguments break a domain rule.
    Invalid(String),
    /// The database refused (full disk, read-only file, ...). Nothing was written.
    Storage(String),
    /// The server could not build its answer: a bug, reported rather than hidden.
    Internal(String),
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::Invalid(m) => f.write_str(m),
            ToolError::Storage(m) => write!(f, "Storage error, nothing was written: {m}"),
            ToolError::Internal(m) => write!(f, "Internal error: {m}"),
        }
    }
}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Invalid(m) => ToolError::Invalid(m),
            other => {
                log::error!("store: {other}");
                ToolError::Storage(other.user_message())
            }
        }
    }
}

impl From<DomainError> for ToolError {
    fn from(e: DomainError) -> Self {
        ToolError::Invalid(e.0)
    }
}

/// Every tool, in the order `tools/list` shows them.
pub fn catalog() -> Vec<ToolSpec> {
    vec![
        remember::spec(),
        recall::spec(),
        remember_decision::spec(),
        recall_decisions::spec(),
        forget::spec(),
    ]
}

/// Runs the named tool with arguments that already passed its input schema.
pub fn run(store: &mut Store, name: &str, args: &Value) -> Result<ToolOutput, ToolError> {
    match name {
        remember::NAME => remember::run(store, parse(name, args)?),
        recall::NAME => recall::run(store, parse(name, args)?),
        remember_decision::NAME => remember_decision::run(store, parse(name, args)?),
        recall_decisions::NAME => recall_decisions::run(store, parse(name, args)?),
        forget::NAME => forget::run(store, parse(name, args)?),
        _ => Err(ToolError::Invalid(format!("Unknown tool: {name}"))),
    }
}

/// Reads arguments into the tool's type. The schema has already accepted them, so a failure
/// here means the schema and the type disagree; the message still says what was wrong.
fn parse<T: DeserializeOwned>(tool: &str, args: &Value) -> Result<T, ToolError> {
    T::deserialize(args).map_err(|e| {
        ToolError::Invalid(format!(
            "Invalid arguments for tool {tool}: {e}. See the tool's inputSchema."
        ))
    })
}

/// Reads an optional JSON Schema `integer`: JSON Schema counts any number with a zero
/// fractional part as an integer (`50`, `50.0`, `5e1`; Python writes floats so), and
/// whatever the input schema accepts the tool accepts. Range checks stay with the schema.
fn integer<'de, D>(d: D) -> Result<Option<u64>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(u) = n.as_u64() {
        return Ok(Some(u));
    }
    match n.as_f64() {
        // Exactly representable and in range: u64::MAX as f64 rounds up to 2^64, hence `<`.
        Some(f) if f.fract() == 0.0 && f >= 0.0 && f < u64::MAX as f64 => Ok(Some(f as u64)),
        _ => Err(serde::de::Error::custom(format!(
            "expected a non-negative integer, got {n}"
        ))),
    }
}

/// `artifact` as the caller sends it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArtifactArg {
    revision: String,
    format: String,
    uri: Option<String>,
    units: Option<String>,
}

impl ArtifactArg {
    /// Validates and normalises (a path becomes a `file:` URI, resolved against the
    /// server's working directory).
    fn normalise(&self) -> Result<Artifact, ToolError> {
        Ok(Artifact::from_input(
            &self.revision,
            &self.format,
            self.uri.as_deref(),
            self.units.as_deref(),
            || std::env::current_dir().ok(),
        )?)
    }
}

/// What the optional `artifact` and `entity_id` of both recalls select.
struct RecallScope {
    /// The supplied revision: records of any other are marked stale.
    current: Option<String>,
    /// With a `uri`: every revision of that file.
    locator: Option<String>,
    /// Without a `uri`: only that revision.
    revision: Option<String>,
    /// `(entity_id, revision)`: entity ids only mean something at the revision that made them.
    entity: Option<(String, String)>,
}

impl RecallScope {
    /// `ids` names the ids in the refusal of an `entity_id` without an artifact.
    fn of(
        artifact: Option<&ArtifactArg>,
        entity_id: Option<&str>,
        ids: &str,
    ) -> Result<RecallScope, ToolError> {
        let artifact = artifact.map(ArtifactArg::normalise).transpose()?;
        let current = artifact.as_ref().map(|a| a.revision.clone());
        let entity = match (entity_id, &current) {
            (Some(e), Some(rev)) => Some((e.to_string(), rev.clone())),
            (Some(_), None) => {
                return Err(ToolError::Invalid(format!(
                    "entity_id needs artifact: {ids} only mean something at one revision, so send the artifact whose revision produced the id"
                )));
            }
            (None, _) => None,
        };
        let (locator, revision) = match artifact {
            Some(a) => match a.uri {
                Some(uri) => (Some(uri), None),
                None => (None, Some(a.revision)),
            },
            None => (None, None),
        };
        Ok(RecallScope {
            current,
            locator,
            revision,
            entity,
        })
    }
}

/// The first `n` characters of `s`, for summaries.
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(n).collect();
        out.push('…');
        out
    }
}

/// `sha256:0123abcd…` for summaries.
fn short_rev(rev: &str) -> String {
    short(rev, 15)
}

/// The output of a recall page: `{<key>: items, next_cursor?}` (keys in sorted order, as in
/// every answer), and the summary ended by a hint to follow the cursor when more rows follow.
fn page_output(
    key: &'static str,
    items: JsonArray,
    next: Option<String>,
    mut summary: String,
) -> ToolOutput {
    summary.push_str(if next.is_some() {
        "; more follow: call again with next_cursor."
    } else {
        "."
    });
    // `{"next_cursor":..,"records":[..]}` or `{"decisions":[..],"next_cursor":..}`: the
    // other members go around the items in the items' own buffers. Both names are plain
    // identifiers, with nothing to escape.
    let (mut structured, mut quoted) = items.finish();
    let cursor = next.map(|c| format!("\"next_cursor\":{}", Value::String(c)));
    let mut head = format!("{{\"{key}\":");
    let mut tail = String::from("}");
    if let Some(c) = cursor {
        if key < "next_cursor" {
            tail.insert_str(0, &format!(",{c}"));
        } else {
            head.insert_str(1, &format!("{c},"));
        }
    }
    let around = |text: &mut String, head: &str, tail: &str| {
        text.reserve(head.len() + tail.len());
        text.insert_str(0, head);
        text.push_str(tail);
    };
    let escape = |json: &str| {
        let mut quoted = String::new();
        push_json_as_string_contents(json, &mut quoted);
        quoted
    };
    around(&mut quoted, &escape(&head), &escape(&tail));
    around(&mut structured, &head, &tail);
    ToolOutput {
        structured,
        summary,
        quoted: Some(quoted),
    }
}

/// A JSON array written one item at a time, as the items come (a recall serialises each
/// record while it is borrowed from its row), with its escaped copy for the answer's text
/// block written alongside (see `review::json`).
struct JsonArray {
    out: JsonOut,
}

impl JsonArray {
    /// An array with room for `items` items of about `bytes_each` bytes: a page of records is
    /// then written without the buffer growing (and being copied) a dozen times on the way.
    fn with_room(items: usize, bytes_each: usize) -> Self {
        let bytes = items.saturating_mul(bytes_each).saturating_add(2);
        let mut out = JsonOut::with_capacity(bytes);
        out.push_plain("[");
        JsonArray { out }
    }

    /// Appends an item that writes its own JSON.
    fn push_json(&mut self, write: impl FnOnce(&mut JsonOut)) {
        if self.out.plain.len() > 1 {
            self.out.push_plain(",");
        }
        write(&mut self.out);
    }

    /// Appends an item unless it would take the array (both copies) past `budget` bytes;
    /// the first item is always taken. Returns whether it was: a page ends at the first
    /// item refused (see [`MAX_ANSWER_ITEMS_BYTES`]).
    ///
    /// [`MAX_ANSWER_ITEMS_BYTES`]: crate::review::json::MAX_ANSWER_ITEMS_BYTES
    fn push_json_within(&mut self, budget: usize, write: impl FnOnce(&mut JsonOut)) -> bool {
        let (plain, quoted) = (self.out.plain.len(), self.out.quoted.len());
        let first = plain <= 1;
        self.push_json(write);
        if !first && self.out.plain.len() + self.out.quoted.len() > budget {
            self.out.plain.truncate(plain);
            self.out.quoted.truncate(quoted);
            return false;
        }
        true
    }

    /// The array as JSON text, and that text escaped as the inside of a JSON string.
    fn finish(mut self) -> (String, String) {
        self.out.push_plain("]");
        (self.out.plain, self.out.quoted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_output_keys_come_sorted_and_carry_the_escaped_copy() {
        for key in ["decisions", "records"] {
            for next in [None, Some("c1.\"x\\".to_string())] {
                for n in 0..3 {
                    let mut items = JsonArray::with_room(n, 16);
                    for i in 0..n {
                        items.push_json(|out| {
                            out.push_plain("{");
                            out.push_key(crate::review::json::key!(first "q"));
                            out.push_str(&format!("say \"{i}\"\n"));
                            out.push_plain("}");
                        });
                    }
                    let out = page_output(key, items, next.clone(), "s".into());
                    let items: Vec<Value> = (0..n)
                        .map(|i| serde_json::json!({"q": format!("say \"{i}\"\n")}))
                        .collect();
                    let mut want = serde_json::Map::new();
                    want.insert(key.into(), Value::Array(items));
                    if let Some(c) = &next {
                        want.insert("next_cursor".into(), Value::String(c.clone()));
                    }
                    assert_eq!(out.structured, Value::Object(want).to_string());
                    let as_string = Value::String(out.structured.clone()).to_string();
                    assert_eq!(
                        out.quoted.as_deref(),
                        Some(&as_string[1..as_string.len() - 1])
                    );
                }
            }
        }
    }
}
