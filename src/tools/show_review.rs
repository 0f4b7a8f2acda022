//! `show_review`: a revision's whole review at a glance, for the engineer as much as for the
//! model. Its result renders in the review card (an MCP App) on hosts that show apps; for
//! every host its text is a one-line summary naming the Markdown report resource
//! (`review://revisions/{revision}/report`), and the summary as JSON.

use serde::Deserialize;
use serde_json::{Value, json};

use super::schema::{self as s, MAX_SUBJECT};
use super::{ArtifactArg, ToolError, ToolOutput, ToolSpec};
use crate::resources::{self, ResourceError};
use crate::review::State;
use crate::store::Store;

pub const NAME: &str = "show_review";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    artifact: ArtifactArg,
    subject: Option<String>,
    detail: Option<super::Detail>,
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Show the review",
        description: "Show the engineer the review of one part revision. Answers a summary: each decision's disposition, staleness, basis counts and open questions, how many records there are, and the `report` resource with the full Markdown review. \
On hosts that render MCP Apps the review card opens, where the engineer accepts or rejects basis items. `subject`: one decision; `detail` \"full\": every basis item.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "artifact": s::artifact_input(),
                "subject": {"type": "string", "minLength": 1, "maxLength": MAX_SUBJECT},
                "detail": s::detail()
            },
            "required": ["artifact"],
            "additionalProperties": false
        }),
        output_schema: review_output(),
        annotations: s::annotations("Show the review", true, false, true),
        ui: super::Ui::Card,
        run: |store, args, _| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

/// The review as `show_review` answers it (see [`resources::review`]).
pub fn review_output() -> Value {
    let list = |item: Value| json!({"type": "array", "items": item});
    // An entry at the revision reviewed leaves it out: `revision` says it once.
    let mut artifacts = s::page_artifacts();
    if let Some(Value::Array(required)) = artifacts["items"].get_mut("required") {
        required.retain(|k| k != "revision");
    }
    artifacts["items"]["properties"]["revision"]["description"] =
        json!("Absent: the revision reviewed (`revision`).");
    json!({
        "type": "object",
        "properties": {
            "revision": {"type": "string"},
            "detail": {"type": "string", "enum": ["summary"], "description": "Present in the summary form (the default); the review card asks for detail \"full\"."},
            "report": {"type": "string", "description": "The Markdown report resource of the revision."},
            "artifacts": artifacts,
            "decisions": list(json!({"anyOf": [s::card_decision_output(), s::decision_summary_output()]})),
            "stale_decisions": {"type": "array", "items": s::decision_summary_output(), "description": "Absent when none (counts.stale_decisions)."},
            "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
            "records": list(s::record_output()),
            "omitted": {
                "type": "object",
                "additionalProperties": {"type": "integer", "minimum": 0},
                "description": "How many of the revision's records and decisions did not fit in this answer (recall and recall_decisions page through all); the summary has it only when it left a decision out."
            },
            "stale": {
                "type": "object",
                "properties": {
                    "records": list(s::record_output()),
                    "decisions": list(s::card_decision_output())
                },
                "required": ["records", "decisions"],
                "description": "Written for the same files at other revisions: claims to re-check against this one."
            },
            "open_questions": list(json!({
                "type": "object",
                "properties": {
                    "decision_id": {"type": "string"},
                    "subject": {"type": "string"},
                    "index": {"type": "integer", "minimum": 0},
                    "requirement": {"type": "string"},
                    "state": {"type": "string", "enum": [State::Unresolved.as_str(), State::Conflicting.as_str()]},
                    "question": {"type": "string"}
                },
                "required": ["decision_id", "subject", "index", "requirement", "state", "question"]
            }))
        },
        "required": ["revision", "decisions"]
    })
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let a = args.artifact.normalise()?;
    let full = args.detail == Some(super::Detail::Full);
    let (review, report) = resources::review(
        store,
        &a.revision,
        a.uri.as_deref(),
        args.subject.as_deref(),
        full,
    )
    .map_err(|e| match e {
        ResourceError::Storage(m) => ToolError::Storage(m),
        ResourceError::Damaged(finding) => ToolError::Damaged(finding),
        ResourceError::Internal(m) => ToolError::Internal(m),
        ResourceError::NotFound | ResourceError::InvalidCursor => {
            ToolError::Internal("the review could not be read".into())
        }
    })?;
    // The card's proof of each decision shown whole, in `_meta`: the host gives it to the
    // card and not to the model (see `card_proof`).
    let meta = super::card_proof::meta_for(&review);
    let mut out = ToolOutput::new(&review, report)?;
    out.meta = meta;
    Ok(out)
}
