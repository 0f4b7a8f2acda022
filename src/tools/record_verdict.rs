//! `record_verdict`: the review card's Accept and Reject buttons. App-only: the host hides it
//! from the model (`_meta.ui.visibility: ["app"]`) and the service refuses it to a client
//! that did not declare the UI extension, so what it records is the engineer's click
//! (`via: "app"`), which outranks the assistant's word as an answer to the host's form does.
//!
//! One write transaction ([`Store::record_verdicts`] with no digest: a click judges the item
//! as the card shows it, and the card re-renders from the decision this answers).

use serde::Deserialize;
use serde_json::{Value, json};

use super::request_verdicts::MAX_REASON;
use super::schema as s;
use super::{ToolError, ToolOutput, ToolSpec};
use crate::review::{Judgement, Verdict, Via};
use crate::store::{DecisionRef, Store, VerdictsOutcome};
use crate::text::prefix_chars;
use crate::time;

pub const NAME: &str = "record_verdict";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    decision_id: String,
    #[serde(deserialize_with = "index")]
    index: u64,
    judgement: Judgement,
    reason: Option<String>,
}

/// A required JSON Schema `integer`, read as [`super::integer`] reads an optional one.
fn index<'de, D>(d: D) -> Result<u64, D::Error>
where
    D: serde::Deserializer<'de>,
{
    super::integer(d)?.ok_or_else(|| serde::de::Error::custom("expected an integer, got null"))
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Record the engineer's verdict",
        description: "The review card's Accept and Reject buttons: records the engineer's verdict on one basis item (via \"app\"). Only the review card calls it; it is refused to clients that do not render MCP Apps.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "decision_id": {"type": "string", "minLength": 1, "maxLength": 200, "description": "The decision's id, as show_review gave it."},
                "index": {"type": "integer", "minimum": 0, "maximum": s::MAX_BASIS - 1, "description": "The basis item's index, from 0."},
                "judgement": {"type": "string", "enum": Judgement::ALL},
                "reason": {"type": "string", "maxLength": MAX_REASON, "description": "Why, in the engineer's words (optional)."}
            },
            "required": ["decision_id", "index", "judgement"],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "index": {"type": "integer", "minimum": 0},
                "verdict": s::verdict_output(),
                "decision": s::decision_output()
            },
            "required": ["index", "verdict", "decision"]
        }),
        annotations: s::annotations("Record the engineer's verdict", false, false, true),
        ui: super::Ui::AppOnly,
        run: |store, args| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let index = usize::try_from(args.index).unwrap_or(usize::MAX);
    let verdict = Verdict {
        at: time::now(),
        author: store.author().map(str::to_string),
        judgement: args.judgement,
        reason: args.reason.filter(|r| !r.trim().is_empty()),
        via: Via::App,
    };
    let at = DecisionRef::Id(&args.decision_id);
    let decision = match store.record_verdicts(&at, None, &[(index, verdict.clone())])? {
        VerdictsOutcome::Recorded(d) => d,
        VerdictsOutcome::Changed(d) => {
            return Err(ToolError::Invalid(format!(
                "basis index {index} is past the end of decision {} ({} items): the decision changed since the card showed it; nothing was written, call show_review again",
                d.id,
                d.basis.len()
            )));
        }
        VerdictsOutcome::Missing => {
            return Err(ToolError::Invalid(format!(
                "no decision {}: it was forgotten since the card showed it; nothing was written, call show_review again",
                prefix_chars(&args.decision_id, 80)
            )));
        }
    };
    let requirement = decision
        .basis
        .get(index)
        .map(|b| prefix_chars(&b.requirement, 60))
        .unwrap_or_default();
    let summary = format!(
        "The engineer {} basis[{index}] \"{requirement}\" of \"{}\" in the review card.",
        verdict.judgement.as_str(),
        prefix_chars(&decision.subject, 60)
    );
    let structured: Value = json!({
        "index": index,
        "verdict": verdict,
        "decision": decision.to_wire(None),
    });
    ToolOutput::new(&structured, summary)
}
