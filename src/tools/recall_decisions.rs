//! `recall_decisions`: decisions newest first, each marked stale when it belongs to another
//! revision, in keyset pages.

use serde::Deserialize;
use serde_json::json;

use super::cursor;
use super::schema::{self as s, MAX_SUBJECT};
use super::{ArtifactArg, ToolError, ToolOutput, ToolSpec};
use crate::review::{State, Via};
use crate::store::{DecisionQuery, Store, VerdictState};
use crate::text::prefix_chars;
use crate::wire::{MAX_ANSWER_ITEMS_BYTES, PageWriter};

pub const NAME: &str = "recall_decisions";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    artifact: Option<ArtifactArg>,
    subject: Option<String>,
    entity_id: Option<String>,
    text: Option<String>,
    state: Option<State>,
    verdict: Option<VerdictState>,
    via: Option<Via>,
    #[serde(default, deserialize_with = "super::integer")]
    limit: Option<u64>,
    cursor: Option<String>,
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Recall review decisions",
        description: "Find decisions already reached, so a settled question is recalled rather than decided again. Filters are optional and combine with AND. \
`artifact` with `uri`: decisions for that file across revisions; without `uri`: decisions at that revision. Its `revision` is the current one: a decision made for another revision comes back stale: true, still carrying its own revision (stale: null when no artifact was given). \
`subject` matches exactly; `entity_id` (needs `artifact`) matches basis `faces` exactly, only in decisions of the supplied revision; `text` matches words in subject, disposition, summary, requirements and evidence (subject matches first); `state` keeps decisions with at least one basis item in that state (e.g. \"unresolved\" to find open questions). \
`verdict` (none, accepted, rejected) keeps decisions with at least one basis item in that verdict state, and `via` (elicitation: the engineer's form, app: the review card, assistant: relayed by you) with at least one verdict from there; given together they hold for the same item. What the engineer has not judged yet: {\"verdict\":\"none\"}, then {\"via\":\"assistant\"} for verdicts only relayed; ask with request_verdicts. \
Newest first, `limit` per page (default 50, max 200); follow `next_cursor` with the same filters until it is absent. \
Example: {\"artifact\":{\"revision\":\"sha256:<64 hex>\",\"format\":\"step\",\"uri\":\"/work/bracket.step\"},\"state\":\"unresolved\"}.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "artifact": s::artifact_input(),
                "subject": {"type": "string", "minLength": 1, "maxLength": MAX_SUBJECT, "description": "The exact subject."},
                "entity_id": s::entity_id(),
                "text": s::query_text(),
                "state": {"type": "string", "enum": State::ALL},
                "verdict": {"type": "string", "enum": VerdictState::ALL, "description": "none: an item without a verdict; accepted / rejected: an item with that judgement."},
                "via": {"type": "string", "enum": Via::ALL, "description": "An item whose verdict came from there: elicitation (the engineer's form), app (the review card), assistant (relayed in tool arguments)."},
                "limit": s::limit(),
                "cursor": s::cursor()
            },
            "allOf": [{"if": {"required": ["entity_id"]}, "then": {"required": ["artifact"]}}],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "decisions": {"type": "array", "items": s::decision_output()},
                "next_cursor": {"type": "string"}
            },
            "required": ["decisions"]
        }),
        annotations: s::annotations("Recall review decisions", true, false, true),
        ui: super::Ui::None,
        run: |store, args| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let scope = super::RecallScope::of(
        args.artifact.as_ref(),
        args.entity_id.as_deref(),
        "face ids",
    )?;
    if args.verdict == Some(VerdictState::None) && args.via.is_some() {
        return Err(ToolError::Invalid(
            "verdict \"none\" with via asks for an item without a verdict whose verdict came from somewhere: send one of them (verdict none: items not judged at all; via assistant: verdicts only relayed)".into(),
        ));
    }
    let current = scope.current;
    let query = DecisionQuery {
        locator: scope.locator,
        revision: scope.revision,
        face: scope.entity,
        subject: args.subject.clone(),
        text: args.text.clone(),
        state: args.state,
        verdict: args.verdict,
        via: args.via,
    };
    let fp = cursor::fingerprint(NAME, &query);
    let secret = store.cursor_secret()?;
    let request = cursor::page_request(
        &secret,
        &fp,
        args.cursor.as_deref(),
        args.limit.unwrap_or(s::DEFAULT_PAGE),
    )?;
    // A decision with a few basis items is 1 to 5 KB. A page ends early when the next
    // decision would take the answer past its byte bound.
    let mut decisions = PageWriter::with_room("decisions", request.limit, 2048);
    let mut firsts = Vec::new();
    let page = store.recall_decisions_each(&query, request, |d| {
        if !decisions.push_within(MAX_ANSWER_ITEMS_BYTES, &d.wire(current.as_deref())) {
            return false;
        }
        if firsts.len() < 3 {
            firsts.push(format!(
                "; \"{}\": {}",
                prefix_chars(&d.subject, 40),
                prefix_chars(&d.disposition, 20)
            ));
        }
        true
    })?;
    let next = cursor::next(&secret, &fp, &page);
    let n = page.items.len();
    let mut summary = format!("{n} decision{}", if n == 1 { "" } else { "s" });
    for first in &firsts {
        summary.push_str(first);
    }
    ToolOutput::page(decisions, next, summary)
}
