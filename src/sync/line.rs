//! What an export line must be to be read back, by `import` (a line of its file), `sync` (an
//! item file of the folder) and `merge-file` (the three versions git gives it): the record and
//! decision shapes of the tools' own schemas, then the domain rules (id form, revision,
//! format, normal uri, timestamps, naming, basis). One rule, one place: [`parse_item`]. An
//! export's event lines and the folder's history files are read by [`parse_export_line`] and
//! [`parse_event`]: an event is taken only sealed ([`check_event`]), never repaired.

use std::borrow::Cow;
use std::io::{self, Write};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Item, file_text};
use crate::bounds;
use crate::framing::MAX_LINE_BYTES;
use crate::review::history::Event;
use crate::review::{Artifact, Decision, Kind, Record, is_revision, normalise_uri};
use crate::store::{ExportItem, Store, StoreError};
use crate::{tools, wire};

/// The shapes an import line must have, built from the tools' own input schemas (the same
/// limits and enums `remember` and `remember_decision` enforce) plus the stored fields a tool
/// call does not send (`id`, `kind`, timestamps).
pub struct Schemas {
    record: (Value, jsonschema::Validator),
    decision: (Value, jsonschema::Validator),
}

impl Schemas {
    pub fn from_tools() -> Result<Schemas, String> {
        let catalog = tools::catalog();
        let input = |name: &str| -> Result<Map<String, Value>, String> {
            catalog
                .iter()
                .find(|t| t.name == name)
                .and_then(|t| t.input_schema.get("properties"))
                .and_then(Value::as_object)
                .cloned()
                .ok_or_else(|| format!("the {name} tool has no input schema"))
        };
        let pick =
            |from: &Map<String, Value>, keys: &[&str]| -> Result<Map<String, Value>, String> {
                keys.iter()
                    .map(|k| {
                        from.get(*k)
                            .cloned()
                            .map(|v| (k.to_string(), v))
                            .ok_or_else(|| format!("the tool schemas lack {k}"))
                    })
                    .collect()
            };
        let stored = |mut props: Map<String, Value>, id_prefix: &str| {
            props.insert(
                "id".into(),
                json!({"type": "string", "minLength": 1, "maxLength": 128,
                       "description": format!("e.g. {id_prefix}_3f9a0c1b2d4e5f60")}),
            );
            props.insert(
                "author".into(),
                json!({"type": "string", "minLength": 1, "maxLength": tools::schema::MAX_AUTHOR}),
            );
            props.insert("created_at".into(), json!({"type": "string"}));
            props.insert("updated_at".into(), json!({"type": "string"}));
            props
        };
        let mut record_props = stored(
            pick(
                &input("remember")?,
                &[
                    "artifact",
                    "entity_ids",
                    "id_scheme",
                    "name",
                    "note",
                    "tags",
                ],
            )?,
            "rec",
        );
        record_props.insert(
            "kind".into(),
            json!({"type": "string", "enum": ["feature", "note"]}),
        );
        // What `carry_forward` wrote: where a carried item came from, and the revision an
        // item's own was carried to. Lines without them (older exports) import as before.
        let mut verdict = tools::schema::basis_item_input()["properties"]["verdict"].clone();
        // A verdict's meaning (review or approval) is given in the engineer's terminal only,
        // never in tool arguments, but a line carries it.
        if let Some(Value::Object(props)) = verdict.get_mut("properties") {
            props.insert(
                "meaning".into(),
                json!({"type": "string", "enum": crate::review::Meaning::ALL}),
            );
        }
        let carried = carried_schema(&verdict);
        record_props.insert("carried".into(), carried.clone());
        record_props.insert("superseded".into(), superseded_schema());
        let record = json!({
            "type": "object",
            "properties": record_props,
            "required": ["id", "kind", "tags", "entity_ids", "id_scheme", "artifact", "created_at", "updated_at"],
            "additionalProperties": false
        });
        let mut decision_props = stored(
            pick(
                &input("remember_decision")?,
                &["artifact", "subject", "disposition", "summary", "basis"],
            )?,
            "dec",
        );
        if let Some(Value::Object(item)) = decision_props
            .get_mut("basis")
            .and_then(|b| b.get_mut("items"))
            .and_then(|i| i.get_mut("properties"))
        {
            item.insert("carried".into(), carried);
            item.insert("verdict".into(), verdict);
            // The ids a judged item lost to a carry (`review::NotCarried`). Lines without it
            // (older exports) import as before.
            item.insert("notCarried".into(), not_carried_schema());
        }
        let text = json!({"type": "string", "minLength": 1, "maxLength": 200});
        decision_props.insert(
            "carried".into(),
            json!({
                "type": "object",
                "properties": {
                    "change": {"type": "string", "maxLength": tools::schema::MAX_TEXT},
                    "disposition": {"type": "string", "maxLength": tools::schema::MAX_DISPOSITION},
                    "from": {"type": "string"},
                    "source": text
                },
                "required": ["disposition", "from", "source"],
                "additionalProperties": false
            }),
        );
        decision_props.insert("superseded".into(), superseded_schema());
        let decision = json!({
            "type": "object",
            "properties": decision_props,
            "required": ["id", "subject", "disposition", "basis", "artifact", "created_at", "updated_at"],
            "additionalProperties": false
        });
        let compile = |v: Value| {
            jsonschema::validator_for(&v)
                .map(|compiled| (v, compiled))
                .map_err(|e| e.to_string())
        };
        Ok(Schemas {
            record: compile(record)?,
            decision: compile(decision)?,
        })
    }

    /// Checks one line's JSON: `{"record":{…}}` or `{"decision":{…}}` in the tools' shapes.
    pub fn validate(&self, line: &Value) -> Result<(), String> {
        let (key, inner, validator) = match line.as_object() {
            Some(obj) if obj.len() == 1 => match (obj.get("record"), obj.get("decision")) {
                (Some(r), _) => ("record", r, &self.record),
                (_, Some(d)) => ("decision", d, &self.decision),
                _ => return Err(SHAPE.into()),
            },
            _ => return Err(SHAPE.into()),
        };
        // Bounded like a tool call's arguments: three errors at most, found without building
        // the error of every failing item.
        let (schema, validator) = validator;
        let found = bounds::schema_errors(validator, schema, inner, MAX_LINE_ERRORS);
        if found.is_empty() {
            return Ok(());
        }
        let errors: Vec<String> = found
            .errors
            .iter()
            .map(|e| {
                // Short even for a megabyte value, and the middle is cut, not the end:
                // jsonschema puts the value first and the rule last, and the rule is what
                // tells how to fix the line (as the tools' arguments are reported).
                let msg = crate::text::cut_middle(&e.message, 300);
                format!("{key}{}: {msg}", e.path)
            })
            .collect();
        Err(format!("{}{}", errors.join("; "), found.left_out_text()))
    }
}

/// A carried item's marker (`review::Carried`) in an export line: the answers' shape, each
/// id bounded as `faces` are, nothing else.
fn carried_schema(verdict: &Value) -> Value {
    let id = json!({"type": "string", "minLength": 1, "maxLength": tools::schema::MAX_ENTITY});
    let mut c = tools::schema::carried_shape(&id, verdict.clone());
    for list in ["changed", "unmapped"] {
        c["properties"][list]["maxItems"] = json!(tools::schema::MAX_ENTITIES);
    }
    c["additionalProperties"] = json!(false);
    c
}

/// The entity ids a judged basis item lost to a carry (`review::NotCarried`) in an export
/// line: at least one.
fn not_carried_schema() -> Value {
    let mut n = tools::schema::not_carried_shape(json!({"type": "array",
        "items": {"type": "string", "minLength": 1, "maxLength": tools::schema::MAX_ENTITY},
        "minItems": 1, "maxItems": tools::schema::MAX_ENTITIES}));
    n["additionalProperties"] = json!(false);
    n
}

/// What an item of a superseded revision says (`review::Superseded`) in an export line.
fn superseded_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "at": {"type": "string"},
            "by": {"type": "string"},
            "change": {"type": "string", "maxLength": tools::schema::MAX_TEXT}
        },
        "required": ["at", "by"],
        "additionalProperties": false
    })
}

/// The revisions and times `carry_forward` wrote into an item (`whose`: `record <id>`,
/// `decision <id>`), checked as the item's own.
fn check_lineage(
    whose: &str,
    from: Option<&str>,
    superseded: Option<&crate::review::Superseded>,
    verdict_at: Option<&str>,
) -> Result<(), String> {
    if let Some(from) = from {
        check_revision(whose, "carried.from", from)?;
    }
    if let Some(s) = superseded {
        check_revision(whose, "superseded.by", &s.by)?;
        check_time(whose, "superseded.at", &s.at)?;
    }
    match verdict_at {
        Some(at) => check_time(whose, "carried.verdict.at", at),
        None => Ok(()),
    }
}

/// A carried item's marker checked as the item's own: its revisions (`from`, and `ids_of`
/// when given) and the time of the verdict it carries.
fn check_carried(whose: &str, c: &crate::review::Carried) -> Result<(), String> {
    if let Some(of) = &c.ids_of {
        check_revision(whose, "carried.ids_of", of)?;
    }
    check_lineage(
        whose,
        Some(&c.from),
        None,
        c.verdict.as_ref().map(|v| v.at.as_str()),
    )
}

/// Refuses `value`, the `field` of `whose`, unless it is a revision.
fn check_revision(whose: &str, field: &str, value: &str) -> Result<(), String> {
    if is_revision(value) {
        return Ok(());
    }
    Err(format!(
        "{whose}: {field} {value:?} is not sha256: followed by 64 lowercase hex digits"
    ))
}

/// Refuses `value`, the `field` of `whose`, unless it is a timestamp.
fn check_time(whose: &str, field: &str, value: &str) -> Result<(), String> {
    if crate::time::is_timestamp(value) {
        return Ok(());
    }
    Err(format!("{whose}: {field} {value:?} is not a timestamp"))
}

/// How many schema errors are reported for one bad line.
const MAX_LINE_ERRORS: usize = 3;

const SHAPE: &str = "expected {\"record\":{…}} or {\"decision\":{…}}";

/// What an export line may be: an item, or an event of the history.
const LINE_SHAPE: &str = "expected {\"record\":{…}}, {\"decision\":{…}} or {\"event\":{…}}";

/// A line of an export: an item, or an event of the history.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Item(Box<Item>),
    Event(Box<Event>),
}

/// One line of an export file: `{"record":{…}}`, `{"decision":{…}}` (see [`parse_item`]) or
/// `{"event":{…}}` (see [`check_event`]).
pub fn parse_export_line(text: &str, schemas: &Schemas) -> Result<Line, String> {
    let value = read_value(text.as_bytes())?;
    match value
        .as_object()
        .filter(|o| o.len() == 1)
        .and_then(|o| o.get("event"))
    {
        Some(_) => event_of(value).map(|e| Line::Event(Box::new(e))),
        None => item_of(value, schemas)
            .map(|i| Line::Item(Box::new(i)))
            .map_err(|e| if e == SHAPE { LINE_SHAPE.into() } else { e }),
    }
}

/// A history file's bytes (`{"event":{…}}`, pretty-printed), validated as an export's event
/// line is.
///
/// A sync takes a held event's file whose bytes hash to the value `sync_event_files` recorded
/// without calling this again. A change that makes this, [`check_event`] or [`event_text`]
/// refuse or write differently what they took before must empty that table in its migration
/// (docs/architecture.md), or files recorded under the old rules skip the new ones.
pub fn parse_event(bytes: &[u8]) -> Result<Event, String> {
    event_of(read_value(bytes)?)
}

/// An event's line, `{"event":{…}}` (keys in alphabetical order), as export writes it; a
/// history file is the same pretty-printed, with a final newline ([`event_text`]).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventLine<'a> {
    event: Cow<'a, Event>,
}

impl EventLine<'_> {
    fn of(e: &Event) -> EventLine<'_> {
        EventLine {
            event: Cow::Borrowed(e),
        }
    }
}

/// The text of an event's history file: its line pretty-printed with a final newline.
pub fn event_text(e: &Event) -> String {
    file_text(&EventLine::of(e))
}

fn event_of(value: Value) -> Result<Event, String> {
    let line: EventLine<'static> =
        serde_json::from_value(value).map_err(|e| format!("event: {e}"))?;
    let event = line.event.into_owned();
    check_event(&event)?;
    Ok(event)
}

/// What an event must be to be taken in: sealed (its `id` is the digest of its content: an
/// edited event is refused, never repaired), written at a timestamp, of an item id and a
/// revision of the forms import takes.
pub fn check_event(e: &Event) -> Result<(), String> {
    if !e.is_sealed() {
        return Err(format!(
            "event {:?}: its id is not its content's: the event was edited after it was \
             written, and an event is never changed; restore it as it was",
            e.id
        ));
    }
    let whose = format!("event {}", e.id);
    check_time(&whose, "at", &e.at)?;
    if e.of.is_empty() || !is_id_text(&e.of) {
        return Err(format!(
            "event {}: of {:?} is not an item id (ASCII letters, digits and _ - . :)",
            e.id, e.of
        ));
    }
    check_revision(&whose, "revision", &e.revision)?;
    // Taken in, an event is exported as one line: one larger than an import line would make
    // every export of the database one that import refuses. (An event file of a folder may
    // be up to twice that: it is pretty-printed.)
    let line = serde_json::to_string(&EventLine::of(e)).map_or(usize::MAX, |l| l.len());
    if line > MAX_LINE_BYTES {
        return Err(format!(
            "event {}: its export line would be {line} bytes, over the {MAX_LINE_BYTES} byte \
             limit of an import line, so no export of the database could be imported back; \
             no review-mcp writes an event this large: remove it",
            e.id
        ));
    }
    Ok(())
}

/// Why a line or file that is not UTF-8 is refused, and what to do.
pub const NOT_UTF8: &str = "is not UTF-8: export and sync write UTF-8; save the file as UTF-8 \
     (a file saved as UTF-16, as Windows PowerShell's `>` writes it, is not)";

/// A line's JSON (UTF-8), bounded in values as a request line is, with no key given twice in
/// one object.
fn read_value(bytes: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| NOT_UTF8.to_string())?;
    if text.starts_with('\u{feff}') {
        return Err(
            "starts with a byte order mark (U+FEFF, an editor's UTF-8 signature): save \
                    it as UTF-8 without a BOM, as export and sync write it"
                .into(),
        );
    }
    if bounds::count_values(text.as_bytes(), bounds::MAX_LINE_VALUES).values
        > bounds::MAX_LINE_VALUES
    {
        return Err(format!(
            "holds more than {} JSON values, the limit of a line",
            bounds::MAX_LINE_VALUES
        ));
    }
    match serde_json::from_str::<UniqueKeys>(text) {
        Ok(UniqueKeys(value)) => Ok(value),
        Err(e) if e.is_data() => Err(e.to_string()),
        Err(e) => Err(format!("not JSON: {e}")),
    }
}

/// A JSON value whose objects never give one key twice. JSON readers disagree on which of
/// two counts (serde_json takes the last, others the first), so a file read in a pull request
/// could show one verdict while the line taken holds another: such a line is refused.
struct UniqueKeys(Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueKeysVisitor).map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // A finite float, as JSON text can only give.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(UniqueKeys(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "the key {key:?} is given twice in one object (readers differ on which \
                     counts: keep one)"
                )));
            }
            let UniqueKeys(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

fn item_of(mut value: Value, schemas: &Schemas) -> Result<Item, String> {
    schemas.validate(&value)?;
    if let Some(r) = value.get_mut("record").map(Value::take) {
        let mut r: Record = serde_json::from_value(r).map_err(|e| format!("record: {e}"))?;
        check_record(&mut r)?;
        Ok(Item::Record(r))
    } else if let Some(d) = value.get_mut("decision").map(Value::take) {
        let mut d: Decision = serde_json::from_value(d).map_err(|e| format!("decision: {e}"))?;
        check_decision(&mut d)?;
        Ok(Item::Decision(d))
    } else {
        Err(SHAPE.into())
    }
}

/// An item file's bytes (or a line's): `{"record":{…}}` or `{"decision":{…}}`, valid in shape
/// and by the domain rules.
pub fn parse_item(bytes: &[u8], schemas: &Schemas) -> Result<Item, String> {
    item_of(read_value(bytes)?, schemas)
}

/// Whether `id` keeps to the characters an imported id may hold: ASCII letters, digits and
/// `_ - . :` (an id is shown in answers and in the Markdown report, and names a file).
pub(super) fn is_id_text(id: &str) -> bool {
    id.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

fn check_common(
    what: &str,
    id: &str,
    artifact: &mut Artifact,
    created_at: &str,
    updated_at: &str,
) -> Result<(), String> {
    if id.trim().is_empty() {
        return Err(format!("{what} has an empty id"));
    }
    // The server writes ids like rec_3f9a0c1b2d4e5f60. An id is shown in answers and in the
    // Markdown report, so an imported one keeps to letters, digits and `_ - . :`.
    if !is_id_text(id) {
        return Err(format!(
            "{what} id {id:?} may hold only ASCII letters, digits and _ - . : (export writes \
             ids like rec_3f9a0c1b2d4e5f60)"
        ));
    }
    check_revision(
        &format!("{what} {id}"),
        "artifact.revision",
        &artifact.revision,
    )?;
    if artifact.format != "step" {
        return Err(format!(
            "{what} {id}: artifact.format {:?} is not \"step\"",
            artifact.format
        ));
    }
    if let Some(uri) = &artifact.uri {
        // Stored uris are in the normal form the tools give them. An export of an older
        // version may hold a spelling this version treats as the same file
        // (`file:///work/%62racket.step`): it is imported under its normal form, as the
        // upgrade of a database file does. A relative path (never exported) is refused: it
        // names no file without a working directory.
        match normalise_uri(uri, || None) {
            Ok(n) => artifact.uri = Some(n),
            _ => {
                return Err(format!(
                    "{what} {id}: artifact.uri {uri:?} is not a URI (export writes them \
                     normalised, e.g. file:///work/part.step)"
                ));
            }
        }
    }
    for (field, ts) in [("created_at", created_at), ("updated_at", updated_at)] {
        if !crate::time::is_timestamp(ts) {
            return Err(format!(
                "{what} {id}: {field} {ts:?} is not a real UTC date and time in the form \
                 2026-07-28T09:15:02.123Z"
            ));
        }
    }
    if updated_at < created_at {
        // An older version edited it under a clock set back (this version's export writes
        // such a row as edited when it was created): say what makes the line import.
        return Err(format!(
            "{what} {id}: updated_at {updated_at} is before created_at {created_at} (an edit \
             under a clock set back, as an older version could write it); set updated_at to \
             {created_at} and try again"
        ));
    }
    Ok(())
}

fn check_record(r: &mut Record) -> Result<(), String> {
    check_common(
        "record",
        &r.id,
        &mut r.artifact,
        &r.created_at,
        &r.updated_at,
    )?;
    let whose = format!("record {}", r.id);
    check_lineage(&whose, None, r.superseded.as_ref(), None)?;
    if let Some(c) = &r.carried {
        check_carried(&whose, c)?;
    }
    match (r.kind, &r.name) {
        (Kind::Feature, None) => Err(format!("record {}: a feature needs a name", r.id)),
        (Kind::Note, Some(_)) => Err(format!("record {}: a note has no name", r.id)),
        _ if r.name.is_none() && r.note.is_none() => {
            Err(format!("record {}: needs a name or a note", r.id))
        }
        _ => wire::check_item_fits(
            &format!("record {}", r.id),
            wire::answer_bytes(&r.wire(Some(&r.artifact.revision))),
        ),
    }
}

fn check_decision(d: &mut Decision) -> Result<(), String> {
    check_common(
        "decision",
        &d.id,
        &mut d.artifact,
        &d.created_at,
        &d.updated_at,
    )?;
    let whose = format!("decision {}", d.id);
    check_lineage(
        &whose,
        d.carried.as_ref().map(|c| c.from.as_str()),
        d.superseded.as_ref(),
        None,
    )?;
    for (i, item) in d.basis.iter().enumerate() {
        item.check(i).map_err(|e| format!("{whose}: {e}"))?;
        // A verdict given at this revision makes an item this revision's (every channel
        // clears the mark): an item with both would show this revision's verdict as an
        // earlier revision's history.
        if item.carried.is_some() && item.verdict.is_some() {
            return Err(format!(
                "{whose}: basis[{i}] has a verdict and is marked carried: a verdict given at this revision makes the item this revision's (an earlier revision's verdict belongs in carried.verdict)"
            ));
        }
        if let Some(c) = &item.carried {
            check_carried(&whose, c)?;
        }
        // The ids a judged item lost: only on an item without ids, judged (no longer
        // carried: a carried item names them in carried.unmapped).
        if let Some(n) = &item.not_carried {
            if item.carried.is_some() || !item.faces.is_empty() {
                // Said with how to mend the file: which of the two to keep.
                return Err(format!(
                    "{whose}: basis[{i}] has notCarried and {}: notCarried names the ids a judged item without faces lost to a carry; {}",
                    if item.carried.is_some() {
                        "is marked carried"
                    } else {
                        "faces"
                    },
                    if item.carried.is_some() {
                        "remove notCarried (a carried item names the ids it lost in carried.unmapped) or remove the carried mark (an item judged at this revision is no longer carried)"
                    } else {
                        "remove notCarried (the faces say what the item is about) or empty faces (the item lost every id it had)"
                    }
                ));
            }
            // Kept only beside the verdict that made the item its revision's, the engineer's:
            // without it the item would read as judged, its ids lost, with nothing judged.
            if !item.verdict.as_ref().is_some_and(|v| v.via.is_engineer()) {
                return Err(format!(
                    "{whose}: basis[{i}] has notCarried but no verdict of the engineer: notCarried names the ids a judged item without faces lost to a carry, kept beside the engineer's verdict; give back the engineer's verdict (via elicitation, app or terminal), or remove notCarried (and, for an item still to re-verify, mark it carried with those ids in carried.unmapped)"
                ));
            }
            check_revision(&whose, &format!("basis[{i}].notCarried.of"), &n.of)?;
        }
        if let Some(at) = item.verdict.as_ref().map(|v| v.at.as_str())
            && !at.is_empty()
            && !crate::time::is_timestamp(at)
        {
            return Err(format!(
                "{whose}: basis[{i}].verdict.at {at:?} is not a timestamp like 2026-01-02T03:04:05.678Z"
            ));
        }
    }
    // Lines written before provenance existed: their verdicts are the assistant's (the
    // default of `via`), given no later than the decision's last change.
    d.date_verdicts();
    // An item's faces are a set: stored once each, as `remember_decision` stores them. The
    // line is judged (and its events, whose `after` is the state stored, are made) in that
    // form, so the events a line arrives with tell what the database then holds.
    // The ids a carry names on it are kept as the line says (releases before 0.2 named an
    // id that could not be mapped both changed and unmapped): its events' `after` digests
    // that state, and an export of it exports byte for byte. Readers name each id once
    // (`Carried::changed_and_carried`).
    for item in &mut d.basis {
        let mut seen = std::collections::HashSet::new();
        item.faces.retain(|f| seen.insert(f.clone()));
    }
    wire::check_item_fits(
        &format!("decision {}", crate::text::quoted(&d.subject, 200)),
        wire::answer_bytes(&d.wire(Some(&d.artifact.revision))),
    )
}

/// Writes the export of `records` and `decisions` (in any order) to `out`, one line per
/// item (`{"record":{…}}` or `{"decision":{…}}`, the item serialised straight from its struct,
/// so the key order is the field order whatever serde_json features the build enables):
/// records first, then decisions, each sorted by (`created_at`, `id`), each
/// [`clamped`](Item::clamped) so that every line imports back; then the history, one
/// `{"event":{…}}` line per event in the order given (`Store::events`: oldest first).
/// Returns the two counts of items. The export itself streams ([`export_from`]); this whole
/// form is the reference its tests compare it with.
#[cfg(test)]
pub fn write_export(
    records: Vec<Record>,
    decisions: Vec<Decision>,
    events: &[Event],
    out: &mut dyn Write,
) -> io::Result<(usize, usize)> {
    let counts = (records.len(), decisions.len());
    let mut items = Item::all(records, decisions);
    items.sort_by(|a, b| {
        (a.kind(), a.created_at(), a.id()).cmp(&(b.kind(), b.created_at(), b.id()))
    });
    for item in &items {
        line(out, serde_json::to_string(&*item.clamped()))?;
    }
    // The history last, oldest first, each event as stored: an import adds the events
    // before it judges the items, so the order within the file does not matter to it.
    for e in events {
        line(out, serde_json::to_string(&EventLine::of(e)))?;
    }
    out.flush()?;
    Ok(counts)
}

/// One export line: the characters JSON leaves raw that a reader would take for a line end or
/// a terminal would obey written as escapes (text::escape_json_controls): the same values,
/// one line each wherever the file is read.
fn line(out: &mut dyn Write, json: serde_json::Result<String>) -> io::Result<()> {
    out.write_all(crate::text::escape_json_controls(&json?).as_bytes())?;
    out.write_all(b"\n")
}

/// What stopped [`export_from`]: reading the database, or writing the lines.
#[derive(Debug)]
pub enum ExportError {
    Store(StoreError),
    Write(io::Error),
}

impl From<StoreError> for ExportError {
    fn from(e: StoreError) -> Self {
        ExportError::Store(e)
    }
}

/// The export of `store` written to `out`, the bytes [`write_export`] writes from
/// `Store::export_all`, but read and written one item at a time (`Store::export_each`), so
/// an export holds one item in memory, not the whole database (1.5 GB for a 500 MB export
/// before). Returns the counts of records, decisions and history events written.
pub fn export_from(
    store: &mut Store,
    out: &mut dyn Write,
) -> Result<(usize, usize, usize), ExportError> {
    let mut counts = (0, 0, 0);
    store.export_each(|item| {
        let json = match item {
            ExportItem::Record(r) => {
                counts.0 += 1;
                serde_json::to_string(&*Item::Record(r).clamped())
            }
            ExportItem::Decision(d) => {
                counts.1 += 1;
                serde_json::to_string(&*Item::Decision(d).clamped())
            }
            ExportItem::Event(e) => {
                counts.2 += 1;
                serde_json::to_string(&EventLine::of(&e))
            }
        };
        line(out, json).map_err(ExportError::Write)
    })?;
    out.flush().map_err(ExportError::Write)?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::fixtures::{T1, T2, feature};

    /// A line an older version wrote under a clock set back (updated_at before created_at,
    /// which export no longer writes) is refused saying what makes it import; the refusal
    /// said only what was wrong.
    #[test]
    fn check_record_updated_before_created_says_how_to_fix_it() {
        let mut r = feature("rec_1", "bore", T1);
        r.created_at = T2.into();
        let e = check_record(&mut r).unwrap_err();
        assert!(
            e.contains("rec_1") && e.contains(&format!("set updated_at to {T2}")),
            "{e}"
        );
    }

    /// An export written before locators were normalised (`%62racket`, a fragment, a dot
    /// segment) still imports, under the normal form the tools now give the same file; a
    /// relative path is refused.
    #[test]
    fn check_record_old_uri_spelling_is_imported_normalised() {
        for old in [
            "file:///w/%62racket.step",
            "file:///w/./bracket.step#face-3",
            "FILE:///w/x/../bracket.step",
        ] {
            let mut r = feature("rec_1", "bore", T1);
            r.artifact.uri = Some(old.into());
            assert_eq!(check_record(&mut r), Ok(()), "{old}");
            assert_eq!(
                r.artifact.uri.as_deref(),
                Some("file:///w/bracket.step"),
                "{old}"
            );
        }
        let mut r = feature("rec_1", "bore", T1);
        r.artifact.uri = Some("relative/part.step".into());
        assert!(check_record(&mut r).unwrap_err().contains("is not a URI"));
    }

    #[test]
    fn check_record_id_with_markup_is_refused() {
        for bad in ["rec_1\n### APPROVED", "<!--", "a b", "rec`1`", "r|1"] {
            let e = check_record(&mut feature(bad, "bore", T1)).unwrap_err();
            assert!(e.contains("may hold only ASCII letters"), "{bad:?}: {e}");
        }
        for good in ["rec_3f9a0c1b2d4e5f60", "a", "dec-1.2:x"] {
            assert_eq!(
                check_record(&mut feature(good, "bore", T1)),
                Ok(()),
                "{good}"
            );
        }
    }

    /// A line whose record or decision no answer could carry (control characters grow
    /// sixfold in JSON and the answer carries it twice) is refused when it is read, as
    /// `remember` refuses it, so import and sync never store an item recall cannot serve.
    #[test]
    fn check_item_too_big_for_any_answer_is_refused() {
        let ids: Vec<String> = (0..3000)
            .map(|i| format!("{i}{}", "\u{1}".repeat(1000)))
            .collect();
        let mut r = feature("rec_1", "bore", T1);
        r.entity_ids = ids.clone();
        let e = check_record(&mut r).unwrap_err();
        assert!(e.contains("fit in one answer line"), "{e}");
        r.entity_ids.truncate(10);
        assert_eq!(check_record(&mut r), Ok(()));
        let mut d = decision(vec![]);
        d.summary = Some(ids.concat());
        let e = check_decision(&mut d).unwrap_err();
        assert!(e.contains("fit in one answer line"), "{e}");
        // Regression: the decision was named in Rust's debug form (`{:?}`), a Hindi subject's
        // virama as `\u{94d}` and a Hangul filler raw; now as every reader quotes it.
        d.subject = "bore \u{915}\u{94d}\u{937}\u{3164}".into();
        let e = check_decision(&mut d).unwrap_err();
        assert!(
            e.starts_with(&format!(
                "decision {} would take",
                crate::text::quoted(&d.subject, 200)
            )),
            "{e}"
        );
    }

    /// Decision `dec_1` on "bore", accepted at [`T2`], with this basis.
    fn decision(basis: Vec<crate::review::BasisItem>) -> Decision {
        crate::store::fixtures::decision("bore", T2, "accept", basis)
    }

    /// A basis item carrying a verdict of its own and a carried mark is refused: the verdict
    /// would be shown as an earlier revision's history (the adversarial review's one-sided
    /// sync case; no channel of this server writes such an item).
    /// `notCarried` (the ids a judged item lost to a carry) is taken on a judged item without
    /// faces, naming a revision, and through the line schema; refused beside `carried` or
    /// `faces`, or with an `of` that is no revision.
    #[test]
    fn check_decision_takes_not_carried_only_on_an_item_without_faces_or_marker() {
        let rev = format!("sha256:{}", "a".repeat(64));
        let item = |extra: Value| {
            let mut v = json!({"requirement": "Two holes", "source": "drawing",
                "state": "satisfied", "faces": [],
                "verdict": {"at": T2, "judgement": "accepted", "via": "app"},
                "notCarried": {"ids": ["face:10", "face:11"], "of": rev}});
            if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
                m.extend(e);
            }
            serde_json::from_value::<crate::review::BasisItem>(v).unwrap()
        };
        let mut d = decision(vec![item(json!({}))]);
        assert_eq!(check_decision(&mut d), Ok(()));
        let schemas = Schemas::from_tools().unwrap();
        let line = serde_json::to_value(json!({ "decision": &d })).unwrap();
        assert_eq!(schemas.validate(&line), Ok(()), "{line}");
        for (extra, said) in [
            (json!({"faces": ["face:20"]}), "has notCarried and faces"),
            (
                json!({"verdict": null, "carried": {"from": rev, "state": "re-verify"}}),
                "is marked carried",
            ),
            (
                json!({"notCarried": {"ids": ["face:10"], "of": "r1"}}),
                "notCarried.of \"r1\"",
            ),
        ] {
            d.basis = vec![item(extra)];
            let e = check_decision(&mut d).unwrap_err();
            assert!(e.contains(said), "{e}");
        }
    }

    /// A line with notCarried beside faces or a carried mark is refused saying how to mend
    /// it (which of the two to remove), where the refusal only said what notCarried is.
    #[test]
    fn a_refused_not_carried_says_how_to_mend_the_line() {
        let rev = format!("sha256:{}", "a".repeat(64));
        let item = |extra: Value| {
            let mut v = json!({"requirement": "Two holes", "source": "drawing",
                "state": "satisfied", "faces": [],
                "verdict": {"at": T2, "judgement": "accepted", "via": "app"},
                "notCarried": {"ids": ["face:10"], "of": rev}});
            if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
                m.extend(e);
            }
            serde_json::from_value::<crate::review::BasisItem>(v).unwrap()
        };
        let mut d = decision(vec![item(json!({"faces": ["face:20"]}))]);
        let e = check_decision(&mut d).unwrap_err();
        assert!(
            e.contains("remove notCarried (the faces say what the item is about) or empty faces"),
            "{e}"
        );
        d.basis = vec![item(
            json!({"verdict": null, "carried": {"from": rev, "state": "re-verify"}}),
        )];
        let e = check_decision(&mut d).unwrap_err();
        assert!(
            e.contains("remove notCarried (a carried item names the ids it lost in carried.unmapped) or remove the carried mark"),
            "{e}"
        );
    }

    #[test]
    fn check_decision_refuses_a_carried_item_with_a_verdict_of_its_own() {
        let rev = format!("sha256:{}", "a".repeat(64));
        let item = |verdict: bool| {
            let mut v = json!({"requirement": "Bore 10 H7", "source": "drawing",
                "state": "satisfied", "faces": [],
                "carried": {"from": rev, "state": "inherited"}});
            if verdict {
                v["verdict"] = json!({"at": T2, "judgement": "accepted", "via": "app"});
            }
            serde_json::from_value::<crate::review::BasisItem>(v).unwrap()
        };
        let mut d = decision(vec![item(false)]);
        assert_eq!(check_decision(&mut d), Ok(()));
        d.basis = vec![item(true)];
        let e = check_decision(&mut d).unwrap_err();
        assert!(e.contains("has a verdict and is marked carried"), "{e}");
    }

    #[test]
    fn schemas_refuse_over_limit_and_unknown_fields() {
        let s = Schemas::from_tools().unwrap();
        let mut r = serde_json::to_value(feature("a", "bore", T1)).unwrap();
        assert_eq!(s.validate(&json!({ "record": r.clone() })), Ok(()));
        r["name"] = json!("x".repeat(201));
        let e = s.validate(&json!({ "record": r })).unwrap_err();
        assert!(e.starts_with("record/name"), "{e}");
        assert!(s.validate(&json!({"record": {}, "decision": {}})).is_err());
        assert!(s.validate(&json!({"other": {}})).is_err());
    }

    /// A value far over its limit is named with the rule it breaks: jsonschema puts the
    /// value first and the rule last, so the middle of the message is cut, not its end (the
    /// tools' arguments are reported so too).
    #[test]
    fn schemas_name_the_rule_a_long_value_breaks() {
        let s = Schemas::from_tools().unwrap();
        let mut r = serde_json::to_value(feature("a", "bore", T1)).unwrap();
        r["name"] = json!("x".repeat(5000));
        let e = s.validate(&json!({ "record": r })).unwrap_err();
        assert!(e.contains("is longer than 200 characters"), "{e}");
        assert!(e.chars().count() < 400, "{e}");
    }

    fn event() -> Event {
        use crate::review::history::{Channel, Written, decision_events};
        let how = Written {
            channel: Channel::Assistant,
            at: T1,
            author: Some("Ada"),
        };
        decision_events(&how, None, Some(&decision(vec![])), &[]).remove(0)
    }

    #[test]
    fn an_event_line_reads_back_and_an_edited_one_is_refused() {
        let s = Schemas::from_tools().unwrap();
        let e = event();
        let line = serde_json::to_string(&json!({ "event": e })).unwrap();
        assert_eq!(
            parse_export_line(&line, &s),
            Ok(Line::Event(Box::new(e.clone())))
        );
        assert_eq!(parse_event(event_text(&e).as_bytes()), Ok(e.clone()));
        let edited = line.replace("\"author\":\"Ada\"", "\"author\":\"Eve\"");
        let why = parse_export_line(&edited, &s).unwrap_err();
        assert!(why.contains("its id is not its content's"), "{why}");
        let extra = line.replacen("{\"after\"", "{\"signed\":true,\"after\"", 1);
        let why = parse_export_line(&extra, &s).unwrap_err();
        assert!(why.contains("unknown field"), "{why}");
        let two = line.replacen("{\"event\":", "{\"other\":1,\"event\":", 1);
        assert!(parse_export_line(&two, &s).is_err());
        // An item line is still an item.
        let item = serde_json::to_string(&Item::Record(feature("a", "bore", T1))).unwrap();
        assert!(matches!(parse_export_line(&item, &s), Ok(Line::Item(_))));
    }

    /// Regression (docstruth): an export line of no known shape was refused as "expected
    /// {"record":{…}} or {"decision":{…}}", though every export holds `{"event":{…}}` lines
    /// too; a line of an export names all three. An item file of a synced folder (which is
    /// never an event) is still told the item shapes only.
    #[test]
    fn an_export_line_of_no_known_shape_names_the_event_line_too() {
        let s = Schemas::from_tools().unwrap();
        for line in [
            "{\"events\":{}}",
            "{\"other\":1}",
            "[]",
            "{\"record\":{},\"event\":{}}",
        ] {
            let why = parse_export_line(line, &s).unwrap_err();
            assert!(
                why.contains("{\"record\":{…}}, {\"decision\":{…}} or {\"event\":{…}}"),
                "{line}: {why}"
            );
        }
        let why = parse_item(b"{\"event\":{}}", &s).unwrap_err();
        assert!(!why.contains("event"), "{why}");
    }

    /// A key given twice in one object (at any depth) is refused: JSON readers disagree on
    /// which one counts, so the file a reviewer reads in a pull request could say one thing
    /// and the line taken another (`"via": "assistant"` shown, `"via": "app"` taken).
    #[test]
    fn a_key_given_twice_is_refused() {
        let s = Schemas::from_tools().unwrap();
        let line = serde_json::to_string(&Item::Record(feature("a", "bore", T1))).unwrap();
        assert!(parse_export_line(&line, &s).is_ok());
        for twice in [
            line.replacen(
                "\"name\":\"bore\"",
                "\"name\":\"bore\",\"name\":\"slot\"",
                1,
            ),
            line.replacen(
                "\"format\":\"step\"",
                "\"format\":\"step\",\"format\":\"step\"",
                1,
            ),
            line.replacen("{\"record\":", "{\"record\":{},\"record\":", 1),
        ] {
            assert_ne!(twice, line);
            let why = parse_export_line(&twice, &s).unwrap_err();
            assert!(
                why.contains("is given twice in one object"),
                "{twice}: {why}"
            );
        }
        let e = event();
        let text = event_text(&e).replacen("\"kind\"", "\"kind\": \"created\",\n    \"kind\"", 1);
        let why = parse_event(text.as_bytes()).unwrap_err();
        assert!(why.contains("\"kind\" is given twice"), "{why}");
    }

    /// A file saved with a byte order mark (an editor on Windows) is refused saying so, not
    /// as "expected value at line 1 column 1".
    #[test]
    fn a_byte_order_mark_is_named() {
        let s = Schemas::from_tools().unwrap();
        let line = serde_json::to_string(&Item::Record(feature("a", "bore", T1))).unwrap();
        let why = parse_export_line(&format!("\u{feff}{line}"), &s).unwrap_err();
        assert!(why.contains("byte order mark"), "{why}");
        assert!(why.contains("without"), "{why}");
    }

    /// A stored string cannot split an export line where a reader splits lines: Python's
    /// `str.splitlines` (and many editors) break at U+2028, U+2029 and U+0085, which JSON
    /// leaves raw, so a note holding a line separator and then a record's JSON read as two
    /// lines, the second a record the database never held; a C1 control or a bidirectional
    /// override acted on the terminal `export` prints to. They are written as `\uXXXX`, the
    /// same JSON value.
    #[test]
    fn write_export_escapes_line_separators_and_terminal_controls() {
        let forged = r#"{"kind":"record","id":"rec_forged","name":"approved"}"#;
        let mut r = feature("rec_1", "bore", T1);
        r.note = Some(format!(
            "x\u{2028}{forged}\u{2029}{forged}\u{85}{forged}\u{9b}2J\u{202e}\u{7f}"
        ));
        let mut out = Vec::new();
        write_export(vec![r.clone()], vec![], &[], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let raw: Vec<char> = text
            .chars()
            .filter(|&c| c != '\n' && crate::text::is_control_like(c))
            .collect();
        assert!(raw.is_empty(), "{raw:?} in {text}");
        let lines: Vec<&str> = text
            .split([
                '\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}',
                '\u{2029}',
            ])
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(lines.len(), 1, "{lines:#?}");
        let back: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(back["record"]["note"].as_str(), r.note.as_deref(), "{back}");
    }

    #[test]
    fn write_export_writes_the_events_last_in_the_order_given() {
        let e = event();
        let mut out = Vec::new();
        write_export(
            vec![feature("y", "early", T1)],
            vec![],
            std::slice::from_ref(&e),
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[1],
            serde_json::to_string(&json!({ "event": e })).unwrap()
        );
    }

    /// The export written one item at a time from the store is byte for byte the one
    /// written from everything read at once: same lines, same order (records, then
    /// decisions, by creation then id; then the events, oldest first).
    #[test]
    fn export_from_the_store_writes_what_write_export_writes() {
        use crate::store::fixtures::{REV, note_at};
        use crate::store::{NewDecision, Store};
        let mut store = Store::open_in_memory().unwrap();
        for n in 0..12 {
            let mut note = note_at(REV, Some(format!("file:///w/p{}.step", n % 3)));
            note.note = Some(format!("note {n}\u{2028}"));
            store.remember(&note).unwrap();
        }
        for (subject, disposition) in [("bore", "hold"), ("thread", "hold"), ("bore", "release")] {
            let d = NewDecision {
                artifact: note_at(REV, Some("file:///w/p0.step".into())).artifact,
                subject: subject.into(),
                disposition: disposition.into(),
                summary: None,
                basis: vec![],
            };
            store.remember_decision(&d).unwrap();
        }
        let (records, decisions, events) = store.export_all().unwrap();
        assert!(!events.is_empty());
        let mut all_at_once = Vec::new();
        write_export(records, decisions, &events, &mut all_at_once).unwrap();
        let mut streamed = Vec::new();
        let counts = export_from(&mut store, &mut streamed).unwrap();
        assert_eq!(counts, (12, 2, events.len()));
        assert_eq!(
            String::from_utf8(streamed).unwrap(),
            String::from_utf8(all_at_once).unwrap()
        );
    }

    #[test]
    fn write_export_orders_records_then_decisions_by_creation() {
        let mut late = feature("z", "late", T2);
        late.created_at = T2.into();
        let early = feature("y", "early", T1);
        let mut out = Vec::new();
        write_export(vec![late, early], vec![], &[], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let ids: Vec<&str> = text
            .lines()
            .map(|l| if l.contains("\"id\":\"y\"") { "y" } else { "z" })
            .collect();
        assert_eq!(ids, ["y", "z"]);
        assert!(text.starts_with("{\"record\":{\"id\":\"y\""));
    }
}
