//! JSON Schema fragments shared by the tools: the artifact, records, decisions, basis items
//! and the limits. Core dialect only (no `$schema`), so any client's validator reads them.

use serde_json::{Value, json};

use crate::review::{Judgement, Meaning, Source, State, Via};

/// `name`: characters.
pub const MAX_NAME: u64 = 200;
/// `note`, `summary`, `requirement`, `evidence`, `question`, `sourceDetail`: 64 KiB each,
/// counted in characters (what JSON Schema's `maxLength` counts).
pub const MAX_TEXT: u64 = 65_536;
pub const MAX_TAGS: u64 = 64;
pub const MAX_TAG: u64 = 64;
pub const MAX_ENTITIES: u64 = 10_000;
pub const MAX_ENTITY: u64 = 256;
pub const MAX_BASIS: u64 = 1_000;
/// `text` of a recall.
pub const MAX_QUERY: u64 = 1_000;
/// Limits the issue leaves open, chosen generously.
pub const MAX_SUBJECT: u64 = 1_000;
pub const MAX_DISPOSITION: u64 = 200;
pub const MAX_URI: u64 = 4_096;
pub const MAX_SHORT: u64 = 64;
pub const MAX_PAGE: u64 = 200;
/// The longest author name, in characters.
pub const MAX_AUTHOR: u64 = 200;
pub const DEFAULT_PAGE: u64 = 50;

pub const REVISION_PATTERN: &str = "^sha256:[0-9a-f]{64}$";

/// The `anyOf` branches of a nullable value: `ty` or `null`, one `type` each. A `type` array
/// (`["boolean", "null"]`) says the same in JSON Schema, but several model providers map tool
/// schemas onto a dialect with a single `type` per schema and reject or drop it (the MCP
/// Inspector's schema portability check warns about it: rule `type-union`), so no schema of
/// ours writes `type` as an array.
pub fn or_null(ty: &str) -> Value {
    json!([{"type": ty}, {"type": "null"}])
}

pub fn artifact_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "revision": {
                "type": "string",
                "pattern": REVISION_PATTERN
            },
            "format": {"type": "string", "enum": ["step"]},
            "uri": {
                "type": "string", "minLength": 1, "maxLength": MAX_URI,
                "description": "URI or file path."
            },
            "units": {"type": "string", "minLength": 1, "maxLength": MAX_SHORT}
        },
        "required": ["revision", "format"],
        "additionalProperties": false
    })
}

pub fn artifact_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "revision": {"type": "string"},
            "format": {"type": "string"},
            "uri": {"type": "string"},
            "units": {"type": "string"}
        },
        "required": ["revision", "format"]
    })
}

pub fn strings(max_items: u64, max_len: u64, description: &str) -> Value {
    json!({
        "type": "array",
        "items": {"type": "string", "minLength": 1, "maxLength": max_len},
        "maxItems": max_items,
        "description": description
    })
}

pub fn text(max: u64, description: &str) -> Value {
    if description.is_empty() {
        return json!({"type": "string", "maxLength": max});
    }
    json!({"type": "string", "maxLength": max, "description": description})
}

pub fn entity_id() -> Value {
    json!({
        "type": "string", "minLength": 1, "maxLength": MAX_ENTITY,
        "description": "Matched exactly, only at the artifact's revision."
    })
}

pub fn limit() -> Value {
    json!({
        "type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": DEFAULT_PAGE,
        "description": "Most items per page."
    })
}

pub fn cursor() -> Value {
    json!({
        "type": "string", "minLength": 1, "maxLength": 512,
        "description": "next_cursor of the previous page."
    })
}

pub fn query_text() -> Value {
    json!({
        "type": "string", "maxLength": MAX_QUERY,
        "description": "Words (prefixes), all must occur."
    })
}

pub fn record_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "kind": {"type": "string", "enum": ["feature", "note"]},
            "name": {"type": "string"},
            "note": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "entity_ids": {"type": "array", "items": {"type": "string"}},
            "id_scheme": {"type": "string"},
            "artifact": artifact_output(),
            "author": {"type": "string", "description": "Who recorded it, when the server that wrote it has an author set."},
            "created_at": {"type": "string"},
            "updated_at": {"type": "string"},
            "stale": {"anyOf": or_null("boolean"), "description": "true: written for another revision than the one supplied; null: no revision supplied."},
            "truncated": truncated_output()
        },
        "required": ["id", "kind", "tags", "entity_ids", "id_scheme", "artifact", "created_at", "updated_at", "stale"]
    })
}

/// `truncated`: on an item too large for one answer, what was cut to fit and where the whole
/// item is read (see `wire::fit_item`).
pub fn truncated_output() -> Value {
    json!({
        "type": "object",
        "description": "Only on an item cut to fit one answer: fields cut (cut strings end in …); whole: it entire, in parts.",
        "properties": {"fields": {"type": "array"}, "more_fields": {"type": "integer"}, "whole": {"type": "string"}},
        "required": ["fields", "whole"]
    })
}

pub fn basis_item_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "requirement": text(MAX_TEXT, "What has to hold, checkably."),
            "source": {"type": "string", "enum": Source::ALL, "description": "assistant-proposed for your own proposals."},
            "sourceDetail": text(MAX_TEXT, "Clause, note or document."),
            "evidence": text(MAX_TEXT, "The value as reported, quoted with its provenance; never invented."),
            "state": {"type": "string", "enum": State::ALL},
            "question": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "description": "What would settle it."},
            "faces": strings(MAX_ENTITIES, MAX_ENTITY, "Entity ids of this revision; none: the whole part."),
            "verdict": {
                "type": "object",
                "properties": {
                    "judgement": {"type": "string", "enum": Judgement::ALL},
                    "reason": text(MAX_TEXT, ""),
                    "via": {"type": "string", "enum": Via::ALL},
                    "at": {"type": "string", "maxLength": 64},
                    "author": {"type": "string", "maxLength": MAX_AUTHOR},
                    "meaning": {"type": "string", "enum": Meaning::ALL}
                },
                "required": ["judgement"],
                "additionalProperties": false,
                "description": "What the engineer said in chat, stored as relayed by you; via, at, author, meaning only as recalled."
            }
        },
        "required": ["requirement", "source", "state"],
        "additionalProperties": false,
        "allOf": [{
            "if": {"properties": {"state": {"enum": ["unresolved", "conflicting"]}}, "required": ["state"]},
            "then": {"required": ["question"]}
        }]
    })
}

pub fn decision_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "subject": {"type": "string"},
            "disposition": {"type": "string"},
            "summary": {"type": "string"},
            "basis": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "requirement": {"type": "string"},
                        "source": {"type": "string", "enum": Source::ALL},
                        "sourceDetail": {"type": "string"},
                        "evidence": {"type": "string"},
                        "state": {"type": "string", "enum": State::ALL},
                        "question": {"type": "string"},
                        "faces": {"type": "array", "items": {"type": "string"}},
                        "verdict": verdict_output(),
                        "carried": carried_output(),
                        "notCarried": not_carried_output()
                    },
                    "required": ["requirement", "source", "state", "faces"]
                }
            },
            "artifact": artifact_output(),
            "author": {"type": "string", "description": "Who last recorded it, when the server that wrote it has an author set."},
            "created_at": {"type": "string"},
            "updated_at": {"type": "string"},
            "stale": {"anyOf": or_null("boolean")},
            "truncated": truncated_output()
        },
        "required": ["id", "subject", "disposition", "basis", "artifact", "created_at", "updated_at", "stale"]
    })
}

/// A decision as the review card is given it (`show_review`, `record_verdict`): each basis
/// item also carries its `digest`, which the card sends back with a verdict.
pub fn card_decision_output() -> Value {
    let mut d = decision_output();
    let item = &mut d["properties"]["basis"]["items"];
    item["properties"]["digest"] = json!({
        "type": "string",
        "description": "What this item says (everything but its verdict), digested: record_verdict takes it as item_digest and records a verdict only while the item still says this."
    });
    if let Some(Value::Array(required)) = item.get_mut("required") {
        required.push(json!("digest"));
    }
    d["properties"]["trail"] = json!({
        "type": "object",
        "description": "Its latest changes, one line each, newest first; earlier: how many older ones review_history lists.",
        "properties": {
            "lines": {"type": "array", "items": {"type": "string"}},
            "earlier": {"type": "integer", "minimum": 0},
            "history": {"type": "string"},
            "not_recorded_before": {"type": "string"}
        },
        "required": ["lines"]
    });
    d
}

/// A carry marker (`review::Carried`) whose ids are each `ids` and whose verdict is `verdict`:
/// the shape answers give it (below) and an export line's (`sync::line`, stricter).
pub fn carried_shape(ids: &Value, verdict: Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            "changed": {"type": "array", "items": ids},
            "from": {"type": "string"},
            "ids_of": {"type": "string"},
            "state": {"type": "string", "enum": crate::review::CarryState::ALL},
            "unmapped": {"type": "array", "items": ids},
            "verdict": verdict
        },
        "required": ["from", "state"]
    })
}

/// The ids a judged basis item lost to a carry (`review::NotCarried`), as `ids` (an array).
pub fn not_carried_shape(ids: Value) -> Value {
    json!({
        "type": "object",
        "properties": {"ids": ids, "of": {"type": "string"}},
        "required": ["ids", "of"]
    })
}

/// A basis item's carry marker in answers: its verdict is shaped as the item's `verdict`,
/// which describes its fields.
fn carried_output() -> Value {
    carried_shape(
        &json!({"type": "string"}),
        json!({"type": "object", "required": ["judgement", "via", "at"]}),
    )
}

fn not_carried_output() -> Value {
    not_carried_shape(json!({"type": "array", "items": {"type": "string"}}))
}

/// A stored verdict with its provenance.
pub fn verdict_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "judgement": {"type": "string", "enum": Judgement::ALL},
            "reason": {"type": "string"},
            "via": {"type": "string", "enum": Via::ALL, "description": "elicitation: the engineer answered the host's form; app: the engineer clicked it in the review card; terminal: the engineer answered review-mcp review; assistant: relayed by the assistant in tool arguments (recorded, not proof)."},
            "meaning": {"type": "string", "enum": Meaning::ALL, "description": "What an engineer's verdict attests; absent: review."},
            "at": {"type": "string", "description": "When it was given (RFC 3339 UTC)."},
            "author": {"type": "string", "description": "Who recorded it: the author of the server it was given through, when one is set."}
        },
        "required": ["judgement", "via", "at"]
    })
}

/// Tool annotations; every tool works on the local database only.
pub fn annotations(title: &str, read_only: bool, destructive: bool, idempotent: bool) -> Value {
    json!({
        "title": title,
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": false
    })
}

/// The `artifacts` table of a page: each artifact once, with its staleness; items name theirs
/// by index.
pub fn page_artifacts() -> Value {
    let mut a = artifact_output();
    a["properties"]["stale"] = json!({"anyOf": or_null("boolean"), "description": "true: another revision than the one supplied; null: none supplied."});
    a["properties"]["id_scheme"] =
        json!({"type": "string", "description": "Of the records' entity ids."});
    if let Some(Value::Array(required)) = a.get_mut("required") {
        required.push(json!("stale"));
    }
    json!({"type": "array", "items": a, "description": "Every artifact of the page once; an item's `artifact` is its index here."})
}

/// The index of an item's artifact in its page's `artifacts` table.
fn artifact_index() -> Value {
    json!({"type": "integer", "minimum": 0})
}

/// A record in a `recall` page: the record with its artifact (and staleness) by index.
pub fn record_page_output() -> Value {
    let mut r = record_output();
    let props = &mut r["properties"];
    props["artifact"] = artifact_index();
    props["name"] = json!({"type": "string", "description": "A feature's name; a note has none (kind is implied)."});
    props["updated_at"] =
        json!({"type": "string", "description": "Absent while equal to created_at."});
    if let Value::Object(p) = props {
        p.remove("stale");
        p.remove("id_scheme");
        p.remove("kind");
    }
    r["required"] = json!(["id", "tags", "entity_ids", "artifact", "created_at"]);
    r
}

/// A decision in a `recall_decisions` page at full detail: its artifact by index.
pub fn decision_page_output() -> Value {
    let mut d = decision_output();
    d["properties"]["artifact"] = artifact_index();
    if let Value::Object(p) = &mut d["properties"] {
        p.remove("stale");
    }
    d["required"] = json!([
        "id",
        "subject",
        "disposition",
        "basis",
        "artifact",
        "created_at",
        "updated_at"
    ]);
    d
}

/// A decision in summary form: what a model decides with, without the basis itself.
pub fn decision_summary_output() -> Value {
    let counts =
        json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}});
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "subject": {"type": "string"},
            "disposition": {"type": "string", "description": "\"carried\": as carry_forward wrote it, not stated since (`carried` counts its items)."},
            "summary": {"type": "string"},
            "artifact": artifact_index(),
            "items": {"type": "integer", "minimum": 0, "description": "Basis items."},
            "states": counts.clone(),
            "verdicts": counts,
            "open_questions": {"type": "array", "items": open_question_output()},
            "author": {"type": "string"},
            "updated_at": {"type": "string"},
            "truncated": truncated_output()
        },
        "required": ["id", "subject", "disposition", "artifact", "items", "states", "verdicts", "open_questions", "updated_at"]
    })
}

/// An open question of a decision summary: the basis item's index, state and question.
pub fn open_question_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "index": {"type": "integer", "minimum": 0},
            "state": {"type": "string", "enum": [State::Unresolved.as_str(), State::Conflicting.as_str()]},
            "question": {"type": "string"}
        },
        "required": ["index", "state", "question"]
    })
}

/// `carried`: the worklist of a revision `carry_forward` wrote (items in that state).
pub fn carried_filter() -> Value {
    json!({"type": "string", "enum": crate::review::CarryState::ALL})
}

/// `detail`: the summary form by default, every field on request.
pub fn detail() -> Value {
    json!({"type": "string", "enum": ["summary", "full"], "default": "summary"})
}
