//! `export` and `import`: every record and decision as JSON Lines, and back.
//!
//! The format, one JSON object per line and nothing else (no header, no timestamp of the
//! export itself, so that export -> import into an empty database -> export is
//! byte-identical):
//!
//! ```text
//! {"record":{"id":"rec_…","kind":"feature","name":"mating face",…,"created_at":…,"updated_at":…}}
//! {"decision":{"id":"dec_…","subject":"bore","disposition":"hold","basis":[…],…}}
//! ```
//!
//! Records come first, then decisions, each sorted by (`created_at`, `id`). Both keep their
//! `id` and `created_at` when they are replaced, so a replaced record changes its line in
//! place and two exports of one database over time diff cleanly in git.
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

use std::io::{BufRead, Write};

use serde_json::{Map, Value, json};

use review_mcp::bounds;
use review_mcp::framing::{Frame, LineReader, MAX_LINE_BYTES};
use review_mcp::review::{Artifact, Decision, Kind, Record, is_revision, normalise_uri};
use review_mcp::tools;

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
        let record = json!({
            "type": "object",
            "properties": record_props,
            "required": ["id", "kind", "tags", "entity_ids", "id_scheme", "artifact", "created_at", "updated_at"],
            "additionalProperties": false
        });
        let decision_props = stored(
            pick(
                &input("remember_decision")?,
                &["artifact", "subject", "disposition", "summary", "basis"],
            )?,
            "dec",
        );
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
                let msg = if e.message.chars().count() > 200 {
                    e.message.chars().take(200).chain(['…']).collect()
                } else {
                    e.message.clone()
                };
                format!("{key}{}: {msg}", e.path)
            })
            .collect();
        Err(format!("{}{}", errors.join("; "), found.left_out_text()))
    }
}

/// How many schema errors are reported for one bad line.
const MAX_LINE_ERRORS: usize = 3;

const SHAPE: &str = "expected {\"record\":{…}} or {\"decision\":{…}}";

/// One line of an export.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Record(Record),
    Decision(Decision),
}

/// Writes the export of `records` and `decisions` (in any order) to `out`.
pub fn write_export(
    mut records: Vec<Record>,
    mut decisions: Vec<Decision>,
    out: &mut dyn Write,
) -> std::io::Result<(usize, usize)> {
    records.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
    decisions.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
    // A row an older version edited under a clock behind its `created_at` holds an
    // `updated_at` before it, which import refuses: export it as edited when it was created,
    // so every export imports back.
    for (created, updated) in records
        .iter_mut()
        .map(|r| (&r.created_at, &mut r.updated_at))
        .chain(
            decisions
                .iter_mut()
                .map(|d| (&d.created_at, &mut d.updated_at)),
        )
    {
        if *updated < *created {
            updated.clone_from(created);
        }
    }
    // Serialised straight from the structs, so the key order is the field order whatever
    // serde_json features the build enables.
    for r in &records {
        writeln!(out, "{{\"record\":{}}}", serde_json::to_string(r)?)?;
    }
    for d in &decisions {
        writeln!(out, "{{\"decision\":{}}}", serde_json::to_string(d)?)?;
    }
    out.flush()?;
    Ok((records.len(), decisions.len()))
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

/// At most this many bad lines are reported; the rest are counted.
const MAX_REPORTED: usize = 20;

/// Reads and validates every line of an import file: its shape against [`Schemas`], then the
/// domain rules.
pub fn read_import(input: &mut dyn BufRead, schemas: &Schemas) -> Result<Vec<Line>, ImportError> {
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    let mut bad = 0usize;
    let mut number = 0usize;
    // Lines are read with the server's own limit, so an import line costs what a request
    // line costs: at most 16 MiB read, and at most `MAX_LINE_VALUES` values parsed.
    let mut reader = LineReader::new(input);
    // The key each line writes (a feature's locator and name, a decision's locator, subject
    // and revision) and the line and id that wrote it first.
    let mut keys: std::collections::HashMap<String, (usize, String)> = Default::default();
    loop {
        number += 1;
        let checked = match reader.next_frame() {
            Ok(Frame::Eof) => break,
            Ok(Frame::TooLong { len }) => Err(format!(
                "is {len} bytes long, over the {MAX_LINE_BYTES} byte limit of a line"
            )),
            Ok(Frame::Line(bytes)) => match String::from_utf8(bytes) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => parse_line(&text, schemas),
                Err(_) => Err("is not UTF-8".to_string()),
            },
            Err(e) => {
                problems.push(format!("line {number}: cannot be read: {e}"));
                return Err(ImportError { problems });
            }
        };
        // Two lines of one file that write the same key with different ids: in an export
        // of an older version, two spellings of one file that are one locator now. Either
        // would silently replace the other, so the file is refused naming both.
        let checked = checked.and_then(|line| match key_of(&line) {
            Some((key, id)) => match keys.get(&key) {
                Some((first, held)) if *held != id => Err(format!(
                    "{id} writes the same {} as {held} on line {first} (their uris are one \
                     file once normalised); keep one of them, or rename one, and import again",
                    if matches!(line, Line::Record(_)) {
                        "feature (locator and name)"
                    } else {
                        "decision (locator, subject and revision)"
                    }
                )),
                _ => {
                    keys.insert(key, (number, id));
                    Ok(line)
                }
            },
            None => Ok(line),
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
fn key_of(line: &Line) -> Option<(String, String)> {
    match line {
        Line::Record(r) => r.name.as_ref().map(|n| {
            (
                format!("r\u{0}{}\u{0}{n}", r.artifact.locator()),
                r.id.clone(),
            )
        }),
        Line::Decision(d) => Some((
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

/// One line: `{"record":{…}}` or `{"decision":{…}}`, valid in shape and by the domain rules.
pub fn parse_line(text: &str, schemas: &Schemas) -> Result<Line, String> {
    if bounds::count_values(text.as_bytes(), bounds::MAX_LINE_VALUES).values
        > bounds::MAX_LINE_VALUES
    {
        return Err(format!(
            "holds more than {} JSON values, the limit of a line",
            bounds::MAX_LINE_VALUES
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    schemas.validate(&value)?;
    let Value::Object(mut obj) = value else {
        return Err(SHAPE.into());
    };
    if let Some(r) = obj.remove("record") {
        let mut r: Record = serde_json::from_value(r).map_err(|e| format!("record: {e}"))?;
        check_record(&mut r)?;
        Ok(Line::Record(r))
    } else if let Some(d) = obj.remove("decision") {
        let mut d: Decision = serde_json::from_value(d).map_err(|e| format!("decision: {e}"))?;
        check_decision(&mut d)?;
        Ok(Line::Decision(d))
    } else {
        Err(SHAPE.into())
    }
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
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
    {
        return Err(format!(
            "{what} id {id:?} may hold only ASCII letters, digits and _ - . : (export writes \
             ids like rec_3f9a0c1b2d4e5f60)"
        ));
    }
    if !is_revision(&artifact.revision) {
        return Err(format!(
            "{what} {id}: artifact.revision {:?} is not sha256: followed by 64 lowercase hex digits",
            artifact.revision
        ));
    }
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
        if !review_mcp::time::is_timestamp(ts) {
            return Err(format!(
                "{what} {id}: {field} {ts:?} is not a real UTC date and time in the form \
                 2026-07-28T09:15:02.123Z"
            ));
        }
    }
    if updated_at < created_at {
        return Err(format!("{what} {id}: updated_at is before created_at"));
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
    match (r.kind, &r.name) {
        (Kind::Feature, None) => Err(format!("record {}: a feature needs a name", r.id)),
        (Kind::Note, Some(_)) => Err(format!("record {}: a note has no name", r.id)),
        _ if r.name.is_none() && r.note.is_none() => {
            Err(format!("record {}: needs a name or a note", r.id))
        }
        _ => Ok(()),
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
    for (i, item) in d.basis.iter().enumerate() {
        item.check(i)
            .map_err(|e| format!("decision {}: {e}", d.id))?;
    }
    Ok(())
}

/// Splits validated lines into the records and decisions [`Store::import`] takes, each in
/// file order (the two never share a key, so only the order within each matters).
///
/// [`Store::import`]: review_mcp::store::Store::import
pub fn split(lines: Vec<Line>) -> (Vec<Record>, Vec<Decision>) {
    let mut records = Vec::new();
    let mut decisions = Vec::new();
    for line in lines {
        match line {
            Line::Record(r) => records.push(r),
            Line::Decision(d) => decisions.push(d),
        }
    }
    (records, decisions)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REV: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn feature(id: &str, name: &str, updated: &str) -> Record {
        Record {
            id: id.into(),
            kind: Kind::Feature,
            name: Some(name.into()),
            note: None,
            tags: vec![],
            entity_ids: vec![],
            id_scheme: "opaque".into(),
            artifact: Artifact {
                revision: REV.into(),
                format: "step".into(),
                uri: Some("file:///w/p.step".into()),
                units: None,
            },
            created_at: "2026-01-01T00:00:00.000Z".into(),
            updated_at: updated.into(),
        }
    }

    const T1: &str = "2026-01-01T00:00:00.000Z";
    const T2: &str = "2026-01-02T00:00:00.000Z";

    #[test]
    fn split_keeps_file_order_within_each_kind() {
        let (r, d) = split(vec![
            Line::Record(feature("a", "bore", T1)),
            Line::Record(feature("b", "slot", T2)),
        ]);
        assert_eq!(
            r.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(d.is_empty());
    }

    #[test]
    fn write_export_orders_records_then_decisions_by_creation() {
        let mut late = feature("z", "late", T2);
        late.created_at = T2.into();
        let early = feature("y", "early", T1);
        let mut out = Vec::new();
        write_export(vec![late, early], vec![], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let ids: Vec<&str> = text
            .lines()
            .map(|l| if l.contains("\"id\":\"y\"") { "y" } else { "z" })
            .collect();
        assert_eq!(ids, ["y", "z"]);
        assert!(text.starts_with("{\"record\":{\"id\":\"y\""));
    }

    fn import_line(entity_ids: &str) -> String {
        let r = serde_json::to_string(&feature("a", "bore", T1)).unwrap();
        let r = r.replace(
            "\"entity_ids\":[]",
            &format!("\"entity_ids\":[{entity_ids}]"),
        );
        format!("{{\"record\":{r}}}\n")
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
            .map(|r| format!("{{\"record\":{}}}\n", serde_json::to_string(r).unwrap()))
            .collect();
        let e = read_import(&mut text.as_bytes(), &s).unwrap_err();
        assert!(
            e.problems[0].contains("line 2") && e.problems[0].contains("rec_a"),
            "{e}"
        );
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
}
