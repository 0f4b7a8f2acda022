//! `remember_decision`: save the disposition reached about one revision and the basis items
//! it rests on; the same subject at the same revision replaces.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::schema::{self as s, MAX_BASIS, MAX_DISPOSITION, MAX_SUBJECT, MAX_TEXT};
use super::{ArtifactArg, Caller, ToolError, ToolOutput, ToolSpec, request_verdicts, short_rev};
use crate::review::decision::DecisionWire;
use crate::review::outrank::{KeptVerdict, Outranked, RemovedVerdict};
use crate::review::{BasisItem, Decision, State};
use crate::store::{NewDecision, Store};
use crate::text::{disposition, quoted};

pub const NAME: &str = "remember_decision";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    artifact: ArtifactArg,
    subject: String,
    disposition: String,
    summary: Option<String>,
    basis: Vec<BasisItem>,
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Remember a review decision",
        description: "Record a review's disposition about one exact revision (e.g. \"hold\") and its basis, one item per requirement-check; an unresolved or conflicting item needs a `question`. Give a `verdict` only if the engineer said it in chat (prefer request_verdicts). \
The engineer's own verdicts outrank yours: an unchanged requirement keeps its engineer verdict; the answer names what was kept or removed. \
The same (locator, subject, revision) replaces (replaced: true); another revision is a new decision beside the old.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "artifact": s::artifact_input(),
                "subject": {"type": "string", "minLength": 1, "maxLength": MAX_SUBJECT},
                "disposition": {"type": "string", "minLength": 1, "maxLength": MAX_DISPOSITION},
                "summary": s::text(MAX_TEXT, ""),
                "basis": {
                    "type": "array",
                    "items": s::basis_item_input(),
                    "maxItems": MAX_BASIS
                }
            },
            "required": ["artifact", "subject", "disposition", "basis"],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "decision": s::decision_output(),
                "replaced": {"type": "boolean"},
                "engineer_verdicts_kept": {
                    "type": "array",
                    "description": "The engineer's verdicts (via elicitation, app or terminal) kept because their requirement is unchanged; offered: the different verdict these arguments carried, which was not written.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "index": {"type": "integer", "minimum": 0},
                            "requirement": {"type": "string"},
                            "verdict": s::verdict_output(),
                            "offered": s::verdict_output()
                        },
                        "required": ["index", "requirement", "verdict"]
                    }
                },
                "engineer_verdicts_removed": {
                    "type": "array",
                    "description": "The engineer's verdicts whose basis items these arguments left out.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "requirement": {"type": "string"},
                            "verdict": s::verdict_output()
                        },
                        "required": ["requirement", "verdict"]
                    }
                }
            },
            "required": ["decision", "replaced"]
        }),
        annotations: s::annotations("Remember a review decision", false, true, true),
        ui: super::Ui::None,
        run: |store, args, caller| {
            run(store, super::parse(NAME, args)?, caller).map(super::Step::Done)
        },
    }
}

pub fn run(store: &mut Store, args: Args, caller: Caller) -> Result<ToolOutput, ToolError> {
    let artifact = args.artifact.normalise()?;
    // The engineer's terminal command, named when their verdict outranked the assistant's.
    let db = store.path().map(std::path::Path::to_path_buf);
    let author = store.author().map(str::to_string);
    crate::review::decision::check_stated(&args.subject, &args.disposition, &args.basis)?;
    // The evidence as given: an item whose stored evidence differs had it copied from the
    // carried item it replaces, kept as the earlier revision's (said in the summary).
    let given: Vec<Option<String>> = args.basis.iter().map(|b| b.evidence.clone()).collect();
    let new = NewDecision {
        artifact,
        subject: args.subject,
        disposition: args.disposition,
        summary: args.summary,
        basis: args.basis,
    };
    store.remember_decision_answered(
        &new,
        Some(&super::names_alike(&new.subject)),
        |decision, replaced, outranked, others| {
            let open = decision
                .basis
                .iter()
                .filter(|b| matches!(b.state, State::Unresolved | State::Conflicting))
                .count();
            // The open questions by that name (as show_review counts them), and none said
            // when there is none: "0 open" beside an "open" disposition or a violated item
            // read as a contradiction.
            let open = match open {
                0 => String::new(),
                1 => ", 1 open question".to_string(),
                n => format!(", {n} open questions"),
            };
            let summary = format!(
                "{} decision {} = {} ({}) on {}: {} basis item{}{open}.",
                if replaced { "Replaced" } else { "Saved" },
                quoted(&decision.subject, 60),
                disposition(&decision.disposition, 40),
                decision.id,
                short_rev(&decision.artifact.revision),
                decision.basis.len(),
                if decision.basis.len() == 1 { "" } else { "s" },
            );
            // Said only when a verdict of theirs outranked yours.
            let channels = || {
                let terminal = request_verdicts::terminal_command(
                    db.as_deref(),
                    author.as_deref(),
                    Some(&decision.artifact.revision),
                );
                request_verdicts::engineer_channels(caller, &terminal)
            };
            // Stated at a revision carried on: the decision stays superseded there.
            let carried_on = decision.superseded.as_ref().map_or(String::new(), |s| {
                format!(
                    " {} was carried on: this decision stays superseded; the review is at {}.",
                    short_rev(&decision.artifact.revision),
                    short_rev(&s.by)
                )
            });
            let summary = summary
                + &carried_on
                + &super::stated_alike_sentence(&decision.subject, others, "decision", "state")
                + &outranked_text(&outranked, channels)
                + &quoted_text(decision, &given);
            let current = Some(decision.artifact.revision.as_str());
            ToolOutput::new(
                &Saved {
                    decision: decision.wire(current),
                    engineer_verdicts_kept: &outranked.kept,
                    engineer_verdicts_removed: &outranked.removed,
                    replaced,
                },
                summary,
            )?
            .refuse_if_too_big(|| {
                format!("decision {}", crate::text::quoted(&decision.subject, 200))
            })?
            .fit_member("decision", crate::resources::DECISIONS)
        },
    )
}

/// A kept engineer verdict as the summary names it: its item, requirement and verdict.
fn kept_named(k: &KeptVerdict) -> String {
    format!(
        "basis[{}] {} ({} {})",
        k.index,
        quoted(&k.requirement, 60),
        k.verdict.judgement.as_str(),
        k.verdict.via.as_str()
    )
}

/// What the summary says of the engineer's verdicts: those an offered verdict did not
/// replace, and those removed with their items, and the engineer's `channels` to change theirs.
/// Kept verdicts nobody contested are in the structured answer only.
fn outranked_text(o: &Outranked, channels: impl FnOnce() -> String) -> String {
    let mut text = String::new();
    let contested: Vec<&KeptVerdict> = o.kept.iter().filter(|k| k.offered.is_some()).collect();
    if !contested.is_empty() {
        text.push_str(" The engineer's verdict outranks yours, so it was kept on ");
        text.push_str(&listed(contested.iter().map(|k| kept_named(k))));
        text.push_str(&format!(
            "; your verdict was not written. Only the engineer changes it, {}.",
            channels()
        ));
    }
    // Kept on an item now stated otherwise: the engineer judged what it said before.
    let otherwise: Vec<&KeptVerdict> = o
        .kept
        .iter()
        .filter(|k| o.stated_otherwise.contains(&k.index))
        .collect();
    if !otherwise.is_empty() {
        text.push_str(" The engineer's verdict stays on ");
        text.push_str(&listed(otherwise.iter().map(|k| kept_named(k))));
        let items: Vec<String> = otherwise.iter().map(|k| k.index.to_string()).collect();
        text.push_str(&format!(
            ", given when the item's state or evidence read otherwise: they have not judged it as stated now, so ask them again (request_verdicts with \"items\": [{}], or the review card: the terminal asks only items without their verdict).",
            items.join(", ")
        ));
    }
    if !o.removed.is_empty() {
        text.push_str(" Removed with their items, the engineer's verdicts on ");
        text.push_str(&listed(o.removed.iter().map(|r| {
            format!(
                "{} ({} {})",
                quoted(&r.requirement, 60),
                r.verdict.judgement.as_str(),
                r.verdict.via.as_str()
            )
        })));
        text.push('.');
    }
    text
}

/// What the summary says of the items whose `given` evidence repeated the carried item's word
/// for word and was kept as the earlier revision's (`at revision …: …`): a value measured
/// again here in the same words would otherwise pass for the earlier one unsaid.
fn quoted_text(decision: &Decision, given: &[Option<String>]) -> String {
    let items: Vec<String> = decision
        .basis
        .iter()
        .zip(given)
        .enumerate()
        .filter(|(_, (b, given))| b.evidence != **given)
        .map(|(i, (b, _))| format!("basis[{i}] {}", quoted(&b.requirement, 60)))
        .collect();
    if items.is_empty() {
        return String::new();
    }
    format!(
        " The evidence of {} repeats the carried item's word for word, so it is kept as the earlier revision's (`at revision sha256:…: …`), not a result of this one; if it was measured again at this revision, state it again saying so (such as \"at this revision: …\").",
        listed(items.into_iter())
    )
}

/// At most five items, then how many more.
fn listed(items: impl Iterator<Item = String>) -> String {
    let all: Vec<String> = items.collect();
    let mut text = all.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if all.len() > 5 {
        text.push_str(&format!(" and {} more", all.len() - 5));
    }
    text
}

/// The answer: the decision as stored, whether it replaced an earlier one, and what became
/// of the engineer's verdicts (both lists present only when not empty).
#[derive(Serialize)]
struct Saved<'a> {
    decision: DecisionWire<'a>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    engineer_verdicts_kept: &'a [KeptVerdict],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    engineer_verdicts_removed: &'a [RemovedVerdict],
    replaced: bool,
}
