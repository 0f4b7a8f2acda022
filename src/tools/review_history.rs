//! `review_history`: the recorded changes of one decision (or record), or of every decision
//! and record of a file or revision, newest first, in pages bounded like every answer. The
//! answer says when this database began recording and whether what it covers began before:
//! earlier changes were never recorded, and none is invented.
//!
//! The same answer, for one decision, is the resource `review://decisions/{id}/history`
//! (see [`answer`]): its `next_cursor` pages on here.

use serde::Deserialize;
use serde_json::{Value, json};

use super::cursor::Pager;
use super::schema as s;
use super::{ArtifactArg, ToolError, ToolOutput, ToolSpec, WholeOnce};
use crate::review::history::{Channel, EventKind};
use crate::store::{HistoryQuery, Store};
use crate::wire::{self, PAGE_ITEMS_BUDGET};

pub const NAME: &str = "review_history";

/// Where an event too large for one answer is read whole (in parts: `{id}/part/{n}`).
pub const EVENTS: &str = "review://events/";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    id: Option<String>,
    artifact: Option<ArtifactArg>,
    #[serde(default, deserialize_with = "super::integer")]
    limit: Option<u64>,
    cursor: Option<String>,
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Review history",
        description: "Who changed what, when, through which channel: the recorded changes of a decision or record (`id`), or of `artifact` as in recall, newest first. Follow `next_cursor` with the same arguments.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "minLength": 1, "maxLength": 200},
                "artifact": s::artifact_input(),
                "limit": s::limit(),
                "cursor": s::cursor()
            },
            "oneOf": [{"required": ["id"]}, {"required": ["artifact"]}],
            "additionalProperties": false
        }),
        output_schema: output_schema(),
        annotations: s::annotations("Review history", true, false, true),
        ui: super::Ui::None,
        run: |store, args, _| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

fn output_schema() -> Value {
    let optional = |ty: &str| json!({"type": ty});
    json!({
        "type": "object",
        "properties": {
            "events": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "kind": {"type": "string", "enum": EventKind::ALL},
                    "of": {"type": "string", "description": "The decision or record id; absent in a page asked by id (it is that id)."},
                    "subject": {"type": "string"},
                    "at": {"type": "string"},
                    "author": {"type": "string", "description": "Who: a verdict's author, else the author of the server that wrote."},
                    "channel": {"type": "string", "enum": Channel::ALL},
                    "meaning": {"type": "string", "enum": crate::review::Meaning::ALL, "description": "What an engineer's verdict attests; absent: review."},
                    "reason": optional("string"),
                    "changes": {"type": "array", "items": {"type": "object", "properties": {
                        "field": {"type": "string"}, "index": {"type": "integer"},
                        "requirement": {"type": "string"}, "from": {"type": "string"}, "to": {"type": "string"}
                    }, "required": ["field"]}},
                    "artifact": {"type": "integer", "minimum": 0, "description": "The index of its file and revision in `artifacts`."},
                    "truncated": s::truncated_output()
                },
                "required": ["id", "kind", "at", "channel", "artifact"]
            }},
            "artifacts": {"type": "array", "description": "Every file and revision of the page once; an event's `artifact` is its index here.", "items": {
                "type": "object",
                "properties": {
                    "locator": {"type": "string", "description": "The file (its uri); absent for items recorded without one (their locator is the revision)."},
                    "revision": {"type": "string"}
                },
                "required": ["revision"]
            }},
            "history_since": {"type": "string", "description": "When this database began recording its history."},
            "earlier_not_recorded": {"type": "boolean", "description": "true: something in scope began before history_since; its earlier changes were not recorded."},
            "next_cursor": {"type": "string"}
        },
        "required": ["artifacts", "events"]
    })
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let query = match (&args.id, &args.artifact) {
        (Some(id), None) => HistoryQuery {
            of: Some(id.clone()),
            ..HistoryQuery::default()
        },
        (None, Some(a)) => {
            // With a `uri`: every revision of the file; without: that revision.
            let scope = super::RecallScope::of(Some(a), None, "")?;
            HistoryQuery {
                locator: scope.locator,
                revision: scope.revision,
                ..HistoryQuery::default()
            }
        }
        _ => {
            return Err(ToolError::Invalid(
                "review_history needs exactly one of id (a decision or record) or artifact (a file with its uri, or a revision)".into(),
            ));
        }
    };
    let (structured, mut summary, _) = answer(store, &query, args.cursor.as_deref(), args.limit)?;
    let empty = structured["events"].as_array().is_some_and(Vec::is_empty);
    if empty && args.cursor.is_none() && query.locator.is_some() {
        // Nothing at this file: the same bytes may be recorded under another path (the part
        // moved, or a teammate's clone keeps it elsewhere), as recall says.
        if let Some(a) = &args.artifact {
            let hint = other_files(store, &a.revision, query.locator.as_deref())?;
            if !hint.is_empty() {
                summary = format!("{}{hint}.", summary.trim_end_matches('.'));
            }
        }
    }
    ToolOutput::new(&structured, summary)
}

/// How many events of `revision` are recorded under files other than `locator`, and which:
/// the summary's hint of recall, for a history asked of a file that has none.
fn other_files(
    store: &mut Store,
    revision: &str,
    locator: Option<&str>,
) -> Result<String, ToolError> {
    let looked_at = super::OTHER_FILES_LOOKED_AT;
    let query = HistoryQuery {
        revision: Some(revision.to_string()),
        ..HistoryQuery::default()
    };
    let (found, _, _) = answer(store, &query, None, Some(looked_at as u64))?;
    let mut other = super::OtherFiles::default();
    for e in found["events"].as_array().into_iter().flatten() {
        let at = e["artifact"].as_u64().and_then(|i| usize::try_from(i).ok());
        let entry = at.and_then(|i| found["artifacts"].get(i));
        // An item recorded without a uri is located by its revision (its entry has no
        // locator): under no file.
        let Some(l) = entry.map(|a| a["locator"].as_str()) else {
            continue;
        };
        if l.is_some() && l == locator {
            continue;
        }
        other.see(l.filter(|l| !l.starts_with("sha256:")), "");
    }
    let more = found.get("next_cursor").is_some();
    Ok(other.hint("recorded change", more))
}

/// Takes out of `event` what its reader does not need, or has already: the digest of the
/// state it left (`after`, for import and sync), its place among the events of its write
/// (`step`, which the page's order says), in a page asked by id that id (`of`), and of a
/// carry's `revision` change the side that is the event's own revision (its `artifacts`
/// entry says it). The whole event, with them, is `review://events/{id}/part/1`.
fn for_reader(event: &mut Value, by_id: bool) {
    if let Some(o) = event.as_object_mut() {
        o.remove("after");
        o.remove("step");
        if by_id {
            o.remove("of");
        }
    }
    own_revision_once(event);
}

/// A carry's `revision` change names both revisions, and one is where the event is (its
/// `revision`, said once in the page's `artifacts` table): the carried event on the new item
/// says `from` only, the one on the old item `to` only, as its `decision` change does. A
/// change without both sides, or with neither equal to the event's own (only an imported
/// event can), is left as it is.
fn own_revision_once(event: &mut Value) {
    if event["kind"] != json!(EventKind::Carried.as_str()) {
        return;
    }
    let own = event["revision"].clone();
    let Some(changes) = event.get_mut("changes").and_then(Value::as_array_mut) else {
        return;
    };
    for c in changes {
        let Some(c) = c.as_object_mut() else {
            continue;
        };
        if c.get("field") != Some(&json!("revision")) || c.contains_key("index") {
            continue;
        }
        let (Some(from), Some(to)) = (c.get("from"), c.get("to")) else {
            continue;
        };
        if from == to {
            continue;
        }
        if *to == own {
            c.remove("to");
        } else if *from == own {
            c.remove("from");
        }
    }
}

/// The revisions a page has said whole, for the carries of its events: a carry's other
/// revision is said whole once (see `WholeOnce`), the page's `artifacts` table first.
#[derive(Default)]
struct Said(WholeOnce);

impl Said {
    /// Names the revisions of `event`'s carry by `table` and what the page said before it;
    /// false when one would be said whole beside a short form the page wrote for its twin
    /// (see `WholeOnce::names_at`): the page ends before `event`.
    fn name(&mut self, event: &mut Value, table: &[&Value]) -> bool {
        if event["kind"] != json!(EventKind::Carried.as_str()) {
            return true;
        }
        table
            .iter()
            .filter_map(|a| a["revision"].as_str())
            .for_each(|r| self.0.says(r));
        let Some(changes) = event.get_mut("changes").and_then(Value::as_array_mut) else {
            return true;
        };
        changes
            .iter_mut()
            .filter(|c| c["field"] == json!("revision") && c.get("index").is_none())
            .all(|c| self.0.names_at(c, &["/from", "/to"]))
    }

    /// Whether a table entry of `rev` would make a short form the page wrote name two
    /// revisions (the table comes before the events that wrote it).
    fn twinned_by(&self, rev: &str) -> bool {
        self.0.twinned_by(rev)
    }
}

/// Takes `event`'s `locator` and `revision` out of it (the page says each pair once, in its
/// `artifacts` table, and a locator that is the revision itself, an item recorded without a
/// uri, not at all): the index of their entry in `table`, and the entry to append when the
/// event is the first to name it.
fn where_in(event: &mut Value, table: &[Value]) -> (usize, Option<Value>) {
    let mut entry = json!({});
    for key in ["locator", "revision"] {
        if let Some(v) = event.as_object_mut().and_then(|o| o.remove(key)) {
            entry[key] = v;
        }
    }
    // No tool takes a uri longer than MAX_URI, but an imported or synced event's locator is
    // bounded by its line only: cut (the whole event is `review://events/{id}/part/1`), or
    // its entry alone takes the page and the event is cut to nothing, not even its id.
    let max = usize::try_from(super::schema::MAX_URI).unwrap_or(usize::MAX);
    if let Some(l) = entry["locator"].as_str()
        && l.chars().count() > max
    {
        entry["locator"] = json!(crate::text::prefix_chars(l, max));
    }
    if entry.get("locator") == entry.get("revision")
        && let Some(o) = entry.as_object_mut()
    {
        o.remove("locator");
    }
    match table.iter().position(|a| *a == entry) {
        Some(i) => (i, None),
        None => (table.len(), Some(entry)),
    }
}

/// The answer for `query`: the page (`artifacts`, `events`, `history_since`, `earlier_not_recorded`,
/// `next_cursor`) within the answer bound, its one-line summary, and whether `query`'s id
/// is unknown here (no event, no decision or record: what the resource answers not found).
pub fn answer(
    store: &mut Store,
    query: &HistoryQuery,
    cursor_arg: Option<&str>,
    limit: Option<u64>,
) -> Result<(Value, String, bool), ToolError> {
    let (pager, request) = Pager::open(store, NAME, query, cursor_arg, limit)?;
    let mut got = store.history_answer(query, request)?;
    // What the events may cost: their JSON and its escaped copy, as every page, with the
    // entries of the artifacts table they are the first to name.
    let mut spent = 0;
    let mut events = Vec::new();
    let mut artifacts: Vec<Value> = Vec::new();
    let mut taken = 0;
    // What the page said whole so far, and the short forms it wrote (see `Said`).
    let mut said = Said::default();
    for (e, _) in &got.page.items {
        let mut v = serde_json::to_value(e)
            .map_err(|e| ToolError::Internal(format!("could not encode an event: {e}")))?;
        for_reader(&mut v, query.of.is_some());
        let (index, entry) = where_in(&mut v, &artifacts);
        // A new entry whose revision reads as a short form the page already wrote would make
        // that form name two revisions: the page ends before it (only imported events can).
        if taken > 0
            && let Some(rev) = entry.as_ref().and_then(|a| a["revision"].as_str())
            && said.twinned_by(rev)
        {
            break;
        }
        let table: Vec<&Value> = artifacts.iter().chain(entry.as_ref()).collect();
        if !said.name(&mut v, &table) && taken > 0 {
            break;
        }
        let entry_bytes = entry.as_ref().map_or(0, |a| wire::answer_bytes(a) + 1);
        let mut bytes = wire::answer_bytes(&v) + 1 + entry_bytes;
        if spent + bytes > PAGE_ITEMS_BUDGET {
            if taken > 0 {
                break;
            }
            // One event alone larger than a page (a long note's previous text): cut to fit,
            // saying so and where it is whole.
            let whole = format!("{EVENTS}{}/part/1", e.id);
            v = wire::fit_item(v, PAGE_ITEMS_BUDGET.saturating_sub(entry_bytes), &whole);
            bytes = wire::answer_bytes(&v) + 1 + entry_bytes;
        }
        v["artifact"] = json!(index);
        spent += bytes;
        events.push(v);
        artifacts.extend(entry);
        taken += 1;
    }
    if taken < got.page.items.len() {
        got.page.items.truncate(taken);
        got.page.more = true;
    }
    // A revision the table came to hold after an event that names it: short there too (the
    // page, counted with it in full, only gets smaller).
    let table: Vec<&Value> = artifacts.iter().collect();
    let mut again = Said(said.0.written_only());
    for e in &mut events {
        // None can be refused now: the first naming ended the page before any that would be.
        again.name(e, &table);
    }
    let next = pager.next(&got.page);
    let n = events.len();
    let mut out = json!({"artifacts": artifacts, "events": events});
    if let Some(since) = &got.since {
        out["history_since"] = json!(since);
    }
    if got.earlier_unrecorded {
        out["earlier_not_recorded"] = json!(true);
    }
    if let Some(c) = &next {
        out["next_cursor"] = json!(c);
    }
    let what = match (&query.of, &query.locator, &query.revision) {
        (Some(id), _, _) => format!("of {}", crate::text::inline(id, 60)),
        (_, Some(uri), _) => format!("at {}", crate::text::locator(uri, 100)),
        (_, _, Some(rev)) => format!("at revision {}", super::short_rev(rev)),
        _ => String::new(),
    };
    let mut summary = format!(
        "{n} recorded change{} {what}, newest first",
        if n == 1 { "" } else { "s" }
    );
    if got.unknown {
        summary.push_str("; no decision or record with this id is known here");
    }
    // A feature's or note's creation is not an event: without this, a record's only event
    // (a carry) reads as when and by whom it was named.
    if let Some((created, author)) = &got.record_created {
        summary.push_str(&format!(
            "; a feature's or note's creation is not a recorded change: the record says created_at {}, author {}",
            crate::text::inline(created, 60),
            author
                .as_deref()
                .map_or("none".to_string(), |a| crate::text::who(a, 200))
        ));
    }
    // A decision carried here began as a copy of another: its changes before the carry are
    // that one's (the oldest event, on the last page, names it).
    if query.of.is_some()
        && next.is_none()
        && let Some(from) = events.last().and_then(carried_from)
    {
        summary.push_str(&format!(
            "; it was carried from {from}: review_history with id {from} gives its changes before"
        ));
    }
    if got.earlier_unrecorded {
        summary.push_str(&format!(
            "; changes before {} were not recorded",
            got.since.as_deref().unwrap_or("this version")
        ));
    }
    summary.push_str(if next.is_some() {
        "; more follow: call again with cursor set to next_cursor."
    } else {
        "."
    });
    Ok((out, summary, got.unknown))
}

/// The decision an event says its item was carried from: a `carried` event's `decision`
/// change with a `from` (the new item's; the old item's names where it went, `to`).
fn carried_from(event: &Value) -> Option<String> {
    if event["kind"] != "carried" {
        return None;
    }
    event["changes"]
        .as_array()?
        .iter()
        .find(|c| c["field"] == "decision")
        .and_then(|c| c["from"].as_str())
        .map(|id| crate::text::inline(id, 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn carried(from: &str, to: &str) -> Value {
        json!({"kind": "carried", "changes": [{"field": "revision", "from": from, "to": to}]})
    }

    fn short(c: char) -> Value {
        json!(format!("sha256:{}…", c.to_string().repeat(12)))
    }

    /// A revision the table holds, or an earlier event said whole, is named short; one said
    /// the first time, or whose short form another revision the page said shares, whole.
    #[test]
    fn a_carry_names_a_revision_said_before_short_unless_ambiguous() {
        let a = format!("sha256:{}", "a".repeat(64));
        let b = format!("sha256:{}", "b".repeat(64));
        let twin = format!("sha256:{}{}", "b".repeat(12), "c".repeat(52));
        let d = format!("sha256:{}", "d".repeat(64));
        let table = [json!({"revision": a}), json!({"revision": b})];
        let table: Vec<&Value> = table.iter().collect();
        let mut said = Said::default();
        let mut events = [carried(&a, &d), carried(&d, &b)];
        for e in &mut events {
            assert!(said.name(e, &table));
        }
        assert_eq!(events[0]["changes"][0]["from"], short('a'));
        assert_eq!(
            events[0]["changes"][0]["to"],
            json!(d),
            "said the first time"
        );
        assert_eq!(events[1]["changes"][0]["from"], short('d'), "said before");
        assert_eq!(events[1]["changes"][0]["to"], short('b'));
        // b's short form is written: its twin said whole after it would make that form name
        // two revisions of the page, which ends before the event.
        assert!(said.twinned_by(&twin) && !said.twinned_by(&b));
        assert!(!said.name(&mut carried(&twin, &a), &table));
        // b's twin said first: b is whole after it.
        let mut first = Said::default();
        let mut events = [carried(&twin, &a), carried(&d, &b)];
        for e in &mut events {
            assert!(first.name(e, &table));
        }
        assert_eq!(events[0]["changes"][0]["from"], json!(twin));
        assert_eq!(events[1]["changes"][0]["to"], json!(b), "b's twin was said");
    }
}
