//! `request_verdicts`: ask the engineer, through the host's form (elicitation), to accept or
//! reject basis items of one decision, and record the answers as the engineer's
//! (`via: "elicitation"`) in one transaction.
//!
//! The tool runs in two steps with nothing held between them: [`prepare`] reads the decision
//! and returns the [`Question`] (or a result when there is nothing to ask); the era adapter
//! puts it to the client (a server request in legacy sessions, an `input_required` result in
//! 2026-07-28) and [`finish`] takes the answer. A question names the decision by id and the
//! digest of the basis it showed: an answer to a basis that changed meanwhile writes nothing.
//!
//! The sealed `requestState` of the 2026-07-28 form is in `request_state.rs`.
//!
//! One form for all the items asked, not a form per item: the engineer sees the whole basis
//! of the decision at once, the answers are recorded together, and 2026-07-28 needs one
//! round trip. Each item is a required `item_<index>_judgement` (`accepted` / `rejected`) and
//! an optional `item_<index>_reason`, the index zero-padded (`item_007_judgement`); the flat
//! schema the revisions allow has no nesting. The keys sort in basis order, item by item: a
//! host shows the fields in the order received, and serde_json writes a map's keys sorted
//! (see [`Keys`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::schema::{self as s, MAX_SUBJECT};
use super::{ArtifactArg, Step, ToolError, ToolOutput, ToolSpec, short_rev};
use crate::review::carry::VerdictAfterCarry;
use crate::review::decision::DecisionWire;
use crate::review::{BasisItem, Decision, Judgement, Verdict, Via};
use crate::store::{CarryCheck, CarryRefusal, DecisionRef, Shown, Store, VerdictsOutcome};
use crate::text::{
    holds_a_semicolon, needs_quotes, one_line, prefix_chars, quoted, shell_word, shell_word_exact,
    uri_needs_quotes,
};
use crate::time;
use crate::version::Version;

pub const NAME: &str = "request_verdicts";

/// The most items one form asks: a form is read by a person.
pub const MAX_ASKED: usize = 20;

/// The longest reason the form takes, in characters.
pub const MAX_REASON: u64 = 2_000;

/// The form's first line: whose answers these are, in under 80 characters (a host that shows
/// one line of the message shows this one).
pub const FIRST_LINE: &str =
    "Your answers are recorded as your own verdicts; the assistant cannot edit them.";

/// How much of each field of an item the form shows, in characters.
const SHOWN: usize = 300;
/// How much of a requirement an item's title shows, in characters.
const TITLE_REQUIREMENT: usize = 80;
/// How much of a requirement longer than its title shows the description shows.
const REQUIREMENT_SHOWN: usize = 1000;
/// What the form may take as JSON (`elicitation/create` params; in 2026-07-28 the input
/// request, beside the sealed state in an answer within its 32,000-byte bound): the items
/// past it are left for the next form, and one item past it alone is shown shorter.
const FORM_BYTES: usize = 24_000;
/// The fewest characters of a field the form shows, however it is shortened.
const LEAST_SHOWN: usize = 20;

/// The key of the one input request of an `input_required` result.
pub const INPUT_KEY: &str = "verdicts";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    artifact: ArtifactArg,
    subject: String,
    #[serde(default, deserialize_with = "super::integers")]
    items: Option<Vec<u64>>,
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Ask the engineer for verdicts",
        description: "Ask the engineer in the host's form to accept or reject basis items of one decision, stored as theirs (via \"elicitation\"), outranking yours. \
`items`: basis indexes from 0 (default: any without their verdict, here or carried; at most 20). Decline or cancel writes nothing. Without a form, its answer names their terminal and the review card; failing those, record their words from chat with remember_decision.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "artifact": s::artifact_input(),
                "subject": {"type": "string", "minLength": 1, "maxLength": MAX_SUBJECT},
                "items": {
                    "type": "array",
                    "items": {"type": "integer", "minimum": 0, "maximum": s::MAX_BASIS - 1},
                    "minItems": 1,
                    "maxItems": MAX_ASKED,
                    "uniqueItems": true
                }
            },
            "required": ["artifact", "subject"],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "outcome": {
                    "type": "string",
                    "enum": Outcome::ALL,
                    "description": "recorded: the engineer answered, the verdicts are stored (decision: as it now stands); declined: the engineer refused, nothing was written; cancelled: the host closed the form unanswered (the engineer may not have seen it), nothing was written, see other_channels; nothing_to_ask: every item has an engineer verdict. Only recorded carries decision: the others changed nothing."
                },
                "decision": s::decision_output(),
                "asked": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                "recorded": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                "other_channels": {
                    "type": "object",
                    "properties": {
                        "note": {"type": "string"},
                        "card": {"type": "string"},
                        "terminal": {"type": "string"}
                    },
                    "required": ["note", "card", "terminal"]
                },
                "remaining": {"type": "integer", "minimum": 0, "description": "Items still without an engineer verdict that this form did not ask (call again for them)."}
            },
            "required": ["outcome", "asked", "recorded"]
        }),
        annotations: s::annotations("Ask the engineer for verdicts", false, false, false),
        ui: super::Ui::None,
        run: |store, args, _| prepare(store, super::parse(NAME, args)?),
    }
}

/// What became of a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Recorded,
    Declined,
    Cancelled,
    NothingToAsk,
}

impl Outcome {
    const ALL: [&'static str; 4] = ["recorded", "declined", "cancelled", "nothing_to_ask"];
}

/// A question put to the engineer: which decision, the basis it showed, which items. Small
/// and self-contained, so a 2026-07-28 client can carry it sealed in `requestState`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// The decision's id.
    pub decision: String,
    /// [`Decision::basis_digest`] when asked.
    pub digest: String,
    /// The basis indexes asked, ascending.
    pub items: Vec<usize>,
    /// Each item asked as the form showed it: (index,
    /// [`crate::review::BasisItem::judged_digest`]). An answer is recorded only on an item
    /// that still is what the engineer judged. Empty in a sealed state of an earlier build:
    /// then the whole basis must be unchanged ([`Question::digest`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shown: Vec<(usize, String)>,
    /// Unjudged items left out of this form (past [`MAX_ASKED`] or its bound, [`FORM_BYTES`]).
    pub remaining: usize,
    /// The form: `elicitation/create` params without `mode` (the adapter adds it where the
    /// revision has it). Not sealed: it is rebuilt from the decision on a retry.
    #[serde(skip)]
    pub form: Value,
}

impl Question {
    /// The `elicitation/create` params at `version`: the form, with `mode` where the
    /// revision has it.
    pub fn params(&self, version: Version) -> Value {
        let mut params = self.form.clone();
        if version.features().elicitation_mode
            && let Value::Object(m) = &mut params
        {
            m.insert("mode".into(), json!("form"));
        }
        params
    }
}

/// The engineer's answer to a form, as the client reported it.
#[derive(Debug, Clone, PartialEq)]
pub enum FormReply {
    Accept(Map<String, Value>),
    Decline,
    Cancel,
}

impl FormReply {
    /// Reads an `ElicitResult`; `None` when it is not one.
    pub fn read(result: &Value) -> Option<FormReply> {
        match result.get("action")?.as_str()? {
            "accept" => match result.get("content") {
                Some(Value::Object(m)) => Some(FormReply::Accept(m.clone())),
                None | Some(Value::Null) => Some(FormReply::Accept(Map::new())),
                Some(_) => None,
            },
            "decline" => Some(FormReply::Decline),
            "cancel" => Some(FormReply::Cancel),
            _ => None,
        }
    }
}

/// Where the decision asked about is recorded when it is not at the artifact named: the
/// file's newest decision of that subject at another revision (the part changed, and the
/// review was not carried), else the same revision under another file (the part moved) or,
/// for an artifact without a uri, under its file. Empty when there is none.
fn recorded_elsewhere(
    store: &mut Store,
    artifact: &crate::review::Artifact,
    subject: &str,
) -> Result<String, ToolError> {
    let first = |store: &mut Store, q: &crate::store::DecisionQuery| {
        let mut found = None;
        store.recall_decisions_each(q, crate::store::PageRequest::first(1), |d| {
            found = Some(d);
            false
        })?;
        Ok::<_, ToolError>(found)
    };
    if let Some(uri) = artifact.uri.as_deref() {
        let of_file = crate::store::DecisionQuery {
            locator: Some(uri.to_string()),
            subject: Some(subject.to_string()),
            current_only: true,
            ..Default::default()
        };
        if let Some(d) = first(store, &of_file)? {
            let there = &d.artifact.revision;
            // A decision carried on is not one to carry again: its review went on elsewhere,
            // unless every copy was forgotten since (then it is the file's newest of its
            // subject, and only stating it again brings it here).
            if let Some(s) = &d.superseded {
                if store
                    .unsaid_carried_on(&[d.id.as_str()], &[])?
                    .contains(&d.id)
                {
                    return Ok(format!(
                        "; its decision at revision {there} of this file was carried on to revision {} and forgotten there: state it again at this revision with remember_decision, then ask again",
                        s.by
                    ));
                }
            } else {
                // The hint names carry_forward only where it would carry: never back to an
                // earlier revision of the review, nor into one carried on already.
                return Ok(match store.carry_check(&d.artifact, artifact)? {
                    CarryCheck::Carry | CarryCheck::AlreadyCarried => format!(
                        "; this file has it at revision {there}: the part changed? carry the review here with carry_forward (not a new decision), then ask again"
                    ),
                    CarryCheck::Refused(CarryRefusal::ToCarriedOn { by }) if by == *there => {
                        format!(
                            "; this file has it at revision {there}, to which this revision's review was carried: ask at revision {there}"
                        )
                    }
                    CarryCheck::Refused(CarryRefusal::ToCarriedOn { by }) => format!(
                        "; this file has it at revision {there}, and this revision's review was carried on to revision {by}: ask at revision {there}, or state the decision at this revision with remember_decision"
                    ),
                    CarryCheck::Refused(CarryRefusal::Earlier) => format!(
                        "; this file has it at revision {there}, a later revision of this review (carried from this one): ask at revision {there}"
                    ),
                    CarryCheck::Refused(_) => format!(
                        "; this file has it at revision {there}: ask at that revision, or state the decision at this revision with remember_decision"
                    ),
                });
            }
        }
    }
    // Every decision of the subject at this revision (one per file), not only the current
    // ones: one carried on, or one its file has at a later revision, is still recorded here.
    let of_revision = crate::store::DecisionQuery {
        revision: Some(artifact.revision.clone()),
        subject: Some(subject.to_string()),
        ..Default::default()
    };
    let Some((here, carried_to)) =
        store.live_or_carried(&of_revision, super::OTHER_FILES_LOOKED_AT)?
    else {
        return Ok(String::new());
    };
    let file = match here.uri.as_deref() {
        Some(file) if artifact.uri.is_none() => {
            format!("under the file {}", super::uri_to_call(file))
        }
        Some(file) => format!("under another file ({})", super::uri_to_call(file)),
        None => "without a uri".to_string(),
    };
    if let Some(by) = carried_to {
        return carried_on_clause(store, &file, &by, subject);
    }
    Ok(match here.uri {
        // Asked by revision alone: the revision's decisions recorded with a file are
        // found with that file's uri.
        Some(_) if artifact.uri.is_none() => {
            format!("; this revision has it {file}: ask with that uri")
        }
        Some(_) => format!(
            "; this revision has it {file}: the same bytes at another path? ask with that uri"
        ),
        // Recorded by revision only: its revision is no uri to ask with.
        None => {
            format!("; this revision has it {file}: ask with the artifact's revision and no uri")
        }
    })
}

/// The clause saying where a decision recorded `file` (at the revision asked about) went on
/// to: the revision its review was carried to, through every later carry, and the artifact to
/// ask with there.
fn carried_on_clause(
    store: &mut Store,
    file: &str,
    by: &str,
    subject: &str,
) -> Result<String, ToolError> {
    let (by, ask) = goes_on_at(store, by, subject)?;
    Ok(format!(
        "; this revision had it {file}, carried on to revision {by} (carry_forward): its review goes on there{ask}"
    ))
}

/// [`Store::stands_at`], and ": ask with artifact.revision … and uri …" naming the artifact of its
/// decision there (empty when none is found there).
fn goes_on_at(store: &mut Store, by: &str, subject: &str) -> Result<(String, String), ToolError> {
    let (by, at) = store.stands_at(by, subject)?;
    let ask = match at.map(|a| a.uri) {
        Some(Some(uri)) => format!(
            ": ask with artifact.revision {by} and uri {}",
            super::uri_to_call(&uri)
        ),
        Some(None) => format!(": ask with artifact.revision {by} and no uri"),
        None => String::new(),
    };
    Ok((by, ask))
}

/// The refusal of a question about `decision`, carried on to a later revision, or of an
/// answer to one it was carried on while the engineer answered (`forgotten`: its copy there
/// was forgotten since): where its review stands now and what to ask with.
fn carried_on_refusal(
    store: &mut Store,
    decision: &crate::review::Decision,
    forgotten: bool,
) -> Result<ToolError, ToolError> {
    let by = decision.superseded.as_ref().map_or("", |s| s.by.as_str());
    if forgotten {
        return Ok(ToolError::Invalid(crate::store::superseded_message(
            decision, by, true,
        )));
    }
    // Name one place to ask, once: the revision the review stands at now, through every
    // later carry (the revision it was carried to may be carried on in its turn, and an
    // ask there is refused too), with the artifact to ask with there, as the revision
    // alone does not find a decision recorded under a file.
    let (now, ask) = goes_on_at(store, by, &decision.subject)?;
    // The full revision is said once, where the model copies it into its next call.
    let on = if now == by {
        String::new()
    } else {
        format!(", and on to {} since", short_rev(&now))
    };
    let ask = if ask.is_empty() {
        format!(" (show_review or request_verdicts with artifact.revision {now})")
    } else {
        ask
    };
    Ok(ToolError::Invalid(format!(
        "decision {} at {} was carried to {} (carry_forward){on}: no verdict is given \
         here any more, and its items there say what was judged here. Its review stands at \
         revision {}{ask}; nothing was written",
        quoted(&decision.subject, 80),
        short_rev(&decision.artifact.revision),
        short_rev(by),
        short_rev(&now),
    )))
}

/// Step one: the question, or the answer when there is nothing to ask.
pub fn prepare(store: &mut Store, args: Args) -> Result<Step, ToolError> {
    let artifact = args.artifact.normalise()?;
    let at = DecisionRef::Key {
        locator: artifact.locator(),
        subject: &args.subject,
        revision: &artifact.revision,
    };
    let Some(decision) = store.find_decision(&at)? else {
        let elsewhere = recorded_elsewhere(store, &artifact, &args.subject)?;
        // Not elsewhere, but here under a subject a person reads as this one: name it.
        let alike = match elsewhere.is_empty() {
            true => super::named_alike_sentence(
                &args.subject,
                &store.decision_subjects(Some(artifact.locator()), super::NAMES_COMPARED)?,
                "ask about it",
            ),
            false => String::new(),
        };
        return Err(ToolError::Invalid(format!(
            "No decision {} at {} for this artifact{}.{alike}",
            quoted(&args.subject, 80),
            short_rev(&artifact.revision),
            if elsewhere.is_empty() {
                ": check the subject with recall_decisions, or record it with remember_decision first"
            } else {
                &elsewhere
            }
        )));
    };
    if decision.superseded.is_some() {
        let forgotten = store
            .unsaid_carried_on(&[decision.id.as_str()], &[])?
            .contains(&decision.id);
        return Err(carried_on_refusal(store, &decision, forgotten)?);
    }
    let (unjudged, after) = awaiting(store, &decision)?;
    let inherited = decision
        .basis
        .iter()
        .filter(|b| b.inherited_judged())
        .count();
    let (mut items, remaining) = match args.items {
        Some(asked) => {
            let n = decision.basis.len();
            let items = asked
                .into_iter()
                .map(|i| {
                    usize::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| {
                        ToolError::Invalid(format!(
                            "items: {i} is past the end of the basis of {}, which has {n} item{} (indexes from 0)",
                            quoted(&decision.subject, 80),
                            if n == 1 { "" } else { "s" }
                        ))
                    })
                })
                .collect::<Result<Vec<usize>, ToolError>>()?;
            let remaining = unjudged.iter().filter(|i| !items.contains(i)).count();
            (items, remaining)
        }
        None => {
            let remaining = unjudged.len().saturating_sub(MAX_ASKED);
            (unjudged.into_iter().take(MAX_ASKED).collect(), remaining)
        }
    };
    items.sort_unstable();
    items.dedup();
    if items.is_empty() {
        let mut summary = format!(
            "Nothing to ask: every basis item of {} already has the engineer's verdict",
            quoted(&decision.subject, 60)
        );
        if inherited > 0 {
            summary.push_str(&format!(
                " or is inherited from an earlier revision ({inherited}; name them in `items` to ask again)"
            ));
        }
        // The decision is not sent back: nothing changed, and the caller reads it there.
        summary.push_str(" (recall_decisions shows them).");
        return answer_without(Outcome::NothingToAsk, &[], 0, None, summary).map(Step::Done);
    }
    let (items, remaining, form) = fitted_form(&decision, items, remaining, &after, FORM_BYTES);
    Ok(Step::Ask(Question {
        decision: decision.id.clone(),
        digest: decision.basis_digest(),
        shown: items
            .iter()
            .filter_map(|&i| Some((i, decision.basis.get(i)?.judged_digest())))
            .collect(),
        items,
        remaining,
        form,
    }))
}

/// The items of `decision` that await the engineer's verdict, as `request_verdicts` without
/// `items` asks them ([`Decision::awaiting_engineer`]), and the engineer's verdicts given at
/// the earlier revision after its carry (a clone's, by sync).
fn awaiting(
    store: &mut Store,
    decision: &Decision,
) -> Result<(Vec<usize>, Vec<VerdictAfterCarry>), ToolError> {
    let after = store.verdicts_after_carry(decision)?;
    Ok((decision.awaiting_engineer(&after), after))
}

/// Whether no item of `d` awaits the engineer any more (they gave their verdicts by another
/// channel while a question was out): a refusal of that question then says nothing is left
/// to ask, as `request_verdicts` would, instead of sending the caller to ask again.
fn settled(store: &mut Store, d: &Decision) -> Result<bool, ToolError> {
    Ok(awaiting(store, d)?.0.is_empty())
}

/// How a refusal of a question about a decision whose every item was settled meanwhile ends.
const SETTLED: &str = "Every item now has the engineer's verdict, so nothing is left to ask (recall_decisions shows them)";

/// The form of `items` within `bound` bytes ([`FORM_BYTES`]): the items it asks (the first of `items`, at least
/// one), the unjudged items it leaves (`remaining` and those of `items` past the bound that
/// await the engineer: asked next), and the form. An item past the bound alone is shown with
/// each field halved until it fits (at least [`LEAST_SHOWN`] characters), every cut saying how
/// much it leaves out.
fn fitted_form(
    d: &Decision,
    mut items: Vec<usize>,
    mut remaining: usize,
    after: &[VerdictAfterCarry],
    bound: usize,
) -> (Vec<usize>, usize, Value) {
    let mut halved = 0;
    loop {
        let form = form(d, &items, remaining, after, halved);
        let bytes = crate::wire::to_json(&form).map_or(usize::MAX, |j| j.len());
        if bytes <= bound || (items.len() == 1 && SHOWN >> halved <= LEAST_SHOWN) {
            return (items, remaining, form);
        }
        if items.len() > 1 {
            // Left for the next form, while it awaits the engineer.
            if let Some(i) = items.pop() {
                remaining += usize::from(d.basis.get(i).is_some_and(BasisItem::awaits_engineer));
            }
        } else {
            halved += 1;
        }
    }
}

/// The `elicitation/create` params (without `mode`): a message that shows each item asked,
/// and the flat form, each field at most its characters halved `halved` times.
fn form(
    d: &Decision,
    items: &[usize],
    remaining: usize,
    after: &[VerdictAfterCarry],
    halved: u32,
) -> Value {
    let field = (SHOWN >> halved).max(LEAST_SHOWN);
    let requirement = (REQUIREMENT_SHOWN >> halved).max(LEAST_SHOWN);
    // The first line is what a host that shows one line shows: who the answers belong to
    // (under 80 characters). Each item's details are in its field (title and description)
    // only, never repeated here.
    // The subject quoted with its quotes escaped, and a disposition that could end early
    // quoted too: neither can name another part or revision.
    // A carried decision's says how many items are to re-verify, at its end: shown whole.
    let n = if d.carried.is_some() { 100 } else { 40 };
    let disposition = if needs_quotes(&d.disposition) {
        quoted(&folded(&d.disposition), n)
    } else {
        shown(&d.disposition, n)
    };
    let mut message = format!(
        "{FIRST_LINE}\nDecision {} ({disposition}) on {} at {}: accept or reject each item; a reason is optional.",
        quoted(&folded(&d.subject), 120),
        match d.artifact.uri.as_deref() {
            Some(uri) if uri_needs_quotes(uri) => quoted(&folded(uri), 120),
            uri => shown(uri.unwrap_or("the part"), 120),
        },
        short_rev(&d.artifact.revision)
    );
    if remaining > 0 {
        message.push_str(&format!(
            " (Not in this form: {remaining} more item{} awaiting your verdict.)",
            if remaining == 1 { "" } else { "s" }
        ));
    }
    // The decision's summary, what the engineer judges the items against ("Bore engagement
    // 5.0 mm is short"), as the terminal and the card show it: the model's words, labelled
    // and quoted on a line of their own, cut as the item's fields are, saying how much.
    // The count is of the line shown (its line breaks folded), not the stored.
    if let Some(summary) = d.summary.as_deref().map(folded) {
        message.push_str(&format!(
            "\nSummary: {}{}",
            quoted(&summary, field),
            crate::text::more_characters(&summary, field)
        ));
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for &i in items {
        let b = &d.basis[i];
        // The requirement is what the engineer judges: one the title cuts is shown here, at
        // up to REQUIREMENT_SHOWN characters (fewer in a form past FORM_BYTES), and every cut
        // says how much it leaves out.
        let mut about = String::new();
        if b.requirement.chars().count() > TITLE_REQUIREMENT {
            about.push_str(&format!(
                "requirement: {}; ",
                segment(&b.requirement, requirement)
            ));
        }
        // A carried item's state and evidence are the earlier revision's, not results of this
        // one: the form says first that it is carried (and why it is to re-verify), and labels
        // them "there", as the Form 3's comments do, so the engineer does not accept a result
        // of before the change as this revision's.
        let there = if let Some(c) = &b.carried {
            about.push_str(&format!("{}; ", shown(&c.describe(), field)));
            " there"
        } else {
            ""
        };
        about.push_str(&format!("source: {}", b.source.as_str()));
        if let Some(detail) = &b.source_detail {
            about.push_str(&format!(" ({})", segment(detail, field)));
        }
        about.push_str(&format!("; state{there}: {}", b.state.as_str()));
        if let Some(hint) = b.state.verdict_hint() {
            about.push_str(&format!(" ({hint})"));
        }
        if let Some(e) = &b.evidence {
            about.push_str(&format!("; evidence{there}: {}", segment(e, field)));
        }
        if let Some(q) = &b.question {
            about.push_str(&format!("; question: {}", segment(q, field)));
        }
        if !b.faces.is_empty() {
            let faces: Vec<&str> = b.faces.iter().take(10).map(String::as_str).collect();
            let faces = faces.join(", ");
            let faces = match holds_a_semicolon(&faces) {
                true => quoted(&folded(&faces), field),
                false => shown(&faces, field),
            };
            about.push_str(&format!("; faces: {faces}"));
        } else if let Some(n) = &b.not_carried {
            // Judged since a carry lost all its ids: not about the whole part.
            let label = crate::review::carry::entities_label(&[], &n.ids, Some(&n.of));
            about.push_str(&format!("; faces: {}", shown(&label, field)));
        }
        if let Some(v) = &b.verdict {
            // Who gave it, through which channel, and when: the engineer's own earlier
            // verdict reads as theirs, one the assistant relayed as relayed.
            about.push_str(&format!(
                "; so far: {}{}, {}",
                v.judgement.as_str(),
                shown(&v.given_by(), 120),
                when(&v.at)
            ));
        }
        if let Some(a) = after.iter().find(|a| a.index == i) {
            // Given at the earlier revision after the carry: the history above lacks it.
            about.push_str(&format!(
                "; after the carry, at revision {}: {}{}, {}",
                short_rev(&a.revision),
                a.verdict.judgement.as_str(),
                shown(&a.verdict.given_by(), 120),
                when(&a.verdict.at)
            ));
        }
        // Numbered from 1, as the report's table numbers the basis.
        let key = Keys::Padded.judgement(i);
        properties.insert(
            key.clone(),
            json!({
                "type": "string",
                "title": format!("Item {}: {}", i + 1, shown(&b.requirement, TITLE_REQUIREMENT)),
                "description": about,
                "enum": Judgement::ALL,
            }),
        );
        properties.insert(
            Keys::Padded.reason(i),
            json!({
                "type": "string",
                "title": format!("Item {} reason (optional)", i + 1),
                "maxLength": MAX_REASON,
            }),
        );
        required.push(Value::String(key));
    }
    json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": properties,
            "required": required,
        }
    })
}

/// When a verdict was given, as the form shows it: `2026-12-01 14:02 UTC` from the stored
/// RFC 3339 time (anything else as stored, on one line).
fn when(at: &str) -> String {
    match (at.get(..10), at.get(10..11), at.get(11..16)) {
        (Some(day), Some("T"), Some(time)) => format!("{day} {time} UTC"),
        _ => shown(at, 40),
    }
}

/// A stored string on one line of the form: its line breaks and tabs as spaces (a host shows a
/// description as prose), every other character kept, for [`shown`] and [`quoted`] to show a
/// control, bidirectional or invisible one as its escape. Not [`one_line`], which drops the
/// bidirectional controls: a requirement "Bore 12H7" with a right-to-left override then read as
/// plain "Bore 12H7" in the form the engineer judges, where every other reader shows it.
fn folded(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}' => ' ',
            c => c,
        })
        .collect()
}

/// A stored string as the form shows it: one line, at most `n` characters, its invisible
/// characters (a zero width space, tag characters spelling words) written as escapes
/// (`\u{200b}`), as the card, the terminal, the report and the Form 3 show them: the engineer
/// judges all the item says.
fn shown(s: &str, n: usize) -> String {
    crate::text::escape_controls(&prefix_chars(&folded(s), n)).into_owned()
}

/// [`shown`], followed, when it cuts, by how many characters it leaves out
/// (`… [25 more characters]`): a cut field of the item judged never reads as the whole.
fn counted(s: &str, n: usize) -> String {
    // Counted in the line shown (its line breaks folded), not the stored string.
    shown(s, n) + &crate::text::more_characters(&folded(s), n)
}

/// A stored field of the item as its segment of the description shows it: [`counted`], and
/// [`quoted`] (its quotes escaped) when it [`holds_a_semicolon`]: the description joins its
/// segments with `; `, so a bare one could go on as a segment of the form's own (`; so far:
/// accepted by the engineer …` on an item no one judged).
fn segment(s: &str, n: usize) -> String {
    if holds_a_semicolon(s) {
        let line = folded(s);
        quoted(&line, n) + &crate::text::more_characters(&line, n)
    } else {
        counted(s, n)
    }
}

/// The digits of the largest basis index a decision can have (`remember_decision` takes at
/// most [`s::MAX_BASIS`] items): every index in a key is zero-padded to it.
const INDEX_DIGITS: usize = digits(s::MAX_BASIS - 1);

/// The decimal digits of `n`.
const fn digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// The keys of an item's fields in a form's answer.
///
/// serde_json (built without `preserve_order`) writes a map's keys sorted by their bytes, and
/// a host shows the form's fields in the order received. This build's keys ([`Keys::Padded`],
/// `item_007_judgement`, `item_007_reason`) sort item by item in basis order, each judgement
/// beside its reason; an earlier build's ([`Keys::Earlier`], `judgement_7`, `reason_7`) sorted
/// every reason after every judgement and `judgement_10` before `judgement_2`. An answer with
/// the earlier keys (a host that wrote the documented keys into its code, a 2026-07-28 retry
/// of a form an earlier build sent) is read as before; one mixing both is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    Padded,
    Earlier,
}

impl Keys {
    fn judgement(self, i: usize) -> String {
        match self {
            Keys::Padded => format!("item_{i:0INDEX_DIGITS$}_judgement"),
            Keys::Earlier => format!("judgement_{i}"),
        }
    }

    fn reason(self, i: usize) -> String {
        match self {
            Keys::Padded => format!("item_{i:0INDEX_DIGITS$}_reason"),
            Keys::Earlier => format!("reason_{i}"),
        }
    }

    /// Which keys `key` is one of, whatever its index.
    fn of(key: &str) -> Option<Keys> {
        let index = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
        let padded = key.strip_prefix("item_").and_then(|k| {
            k.strip_suffix("_judgement")
                .or_else(|| k.strip_suffix("_reason"))
        });
        if padded.is_some_and(index) {
            return Some(Keys::Padded);
        }
        let earlier = key
            .strip_prefix("judgement_")
            .or_else(|| key.strip_prefix("reason_"));
        earlier.is_some_and(index).then_some(Keys::Earlier)
    }

    /// The keys an answer's `content` uses: an earlier build's when it holds any of theirs
    /// and none of this build's (else this build's); `Err` naming one of each when it
    /// holds both.
    fn in_answer(content: &Map<String, Value>) -> Result<Keys, (String, String)> {
        let first = |keys: Keys| content.keys().find(|k| Keys::of(k) == Some(keys));
        match (first(Keys::Padded), first(Keys::Earlier)) {
            (Some(padded), Some(earlier)) => Err((padded.clone(), earlier.clone())),
            (None, Some(_)) => Ok(Keys::Earlier),
            _ => Ok(Keys::Padded),
        }
    }
}

/// Step two: the engineer's answer. Writes only an accepted form that matches the question,
/// to a basis that is still the one asked about.
/// `caller`: what the host declared (the review card is named as this host's when it did).
pub fn finish(
    store: &mut Store,
    q: &Question,
    reply: FormReply,
    caller: super::Caller,
) -> Result<ToolOutput, ToolError> {
    let content = match reply {
        FormReply::Decline => {
            let summary = "The engineer declined the form (an explicit refusal): nothing was written. Do not record verdicts for them; ask again later or in chat.".to_string();
            return answer_without(Outcome::Declined, &q.items, q.remaining, None, summary);
        }
        FormReply::Cancel => {
            // A cancel is not the engineer's word: a host that never shows the form (`claude
            // -p`) cancels it by itself. Say so, and name the channels that do reach them.
            let found = store.find_decision(&DecisionRef::Id(&q.decision))?;
            let revision = found.as_ref().map(|d| d.artifact.revision.as_str());
            let other = OtherChannels::new(store.path(), store.author(), revision);
            let summary = format!(
                "The host closed the form without an answer (cancel): the engineer may not have been reached, since some hosts cancel a form they never show. Nothing was written; the items asked still await the engineer's verdict. Other channels of the engineer's own: in their terminal, {}; or {}. Do not record verdicts for them.",
                crate::text::code_span(&other.terminal),
                card_channel(caller.card)
            );
            let other = OtherChannels {
                note: summary.clone(),
                ..other
            };
            let other = found.is_some().then_some(&other);
            return answer_without(Outcome::Cancelled, &q.items, q.remaining, other, summary);
        }
        FormReply::Accept(content) => content,
    };
    let author = store.author().map(str::to_string);
    let verdicts = read_form(q, content, author)?;
    let seen = if q.shown.is_empty() {
        Shown::Basis(&q.digest)
    } else {
        Shown::Each(&q.shown)
    };
    match store.record_verdicts(&DecisionRef::Id(&q.decision), seen, &verdicts)? {
        VerdictsOutcome::Recorded(d) => {
            // Written: each verdict the decision now holds as given (an item changed while
            // the engineer answered keeps what it had).
            let (written, unwritten): (Vec<_>, Vec<_>) = verdicts
                .iter()
                .partition(|(i, v)| d.basis.get(*i).and_then(|b| b.verdict.as_ref()) == Some(v));
            let recorded: Vec<usize> = written.iter().map(|(i, _)| *i).collect();
            let accepted = written
                .iter()
                .filter(|(_, v)| v.judgement == Judgement::Accepted)
                .count();
            let mut summary = format!(
                "Recorded the engineer's verdicts on {}: {accepted} accepted, {} rejected (via elicitation).",
                quoted(&d.subject, 60),
                written.len() - accepted
            );
            let (held, unwritten): (Vec<_>, Vec<_>) =
                unwritten.into_iter().partition(|(i, v)| holds(&d, *i, v));
            summary.push_str(&already_held(&held));
            if !unwritten.is_empty() {
                summary.push_str(&format!(
                    " Not recorded, changed while the engineer was answering: {}. Ask about the item as it is now with request_verdicts (items: {:?}).",
                    answers_given(&unwritten),
                    unwritten.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
                ));
            }
            // What the form left out (`remaining`) is said in the line too: without it the
            // line read as the decision judged.
            if q.remaining > 0 {
                let (items, them) = match q.remaining {
                    1 => ("1 more item awaits".to_string(), "it"),
                    n => (format!("{n} more items await"), "them"),
                };
                summary.push_str(&format!(
                    " {items} the engineer's verdict: request_verdicts without items asks {them}."
                ));
            }
            answer(&d, &q.items, &recorded, q.remaining, summary)
        }
        VerdictsOutcome::Changed(d) if verdicts.iter().all(|(i, v)| holds(&d, *i, v)) => {
            // The same answer sent again (a 2026-07-28 retry repeated): it changed the items
            // it was sealed against, so it is not written twice, and it is not lost either.
            let summary = format!(
                "These answers of the engineer on {} were already recorded (the same answer was sent again): nothing new was written.",
                quoted(&d.subject, 60)
            );
            answer(&d, &q.items, &[], q.remaining, summary)
        }
        VerdictsOutcome::Changed(d) => {
            let (held, changed): (Vec<_>, Vec<_>) =
                verdicts.iter().partition(|(i, v)| holds(&d, *i, v));
            // A form of an earlier build was answered on the whole basis as shown.
            let why = if q.shown.is_empty() {
                "its basis is no longer the one shown"
            } else {
                "no item asked is still the one shown"
            };
            let next = match settled(store, &d)? {
                true => format!(
                    "{SETTLED}; where these answers differ from them, ask the engineer which stands."
                ),
                false => "Call request_verdicts again to ask about the basis as it is now.".into(),
            };
            Err(ToolError::Invalid(format!(
                "The decision changed while the engineer was answering ({why}), so nothing was written.{} The engineer's answers: {}. {next}",
                already_held(&held),
                answers_given(&changed)
            )))
        }
        VerdictsOutcome::Missing => Err(ToolError::Invalid(
            "The decision was forgotten while the engineer was answering: nothing was written."
                .into(),
        )),
        VerdictsOutcome::CarriedOn {
            decision,
            forgotten,
        } => Err(carried_on_refusal(store, &decision, forgotten)?),
    }
}

/// Whether item `i` of `d` holds the engineer's answer `v` as it was given: the same judgement
/// and reason, through the form, by the same author: the answer was recorded already.
fn holds(d: &Decision, i: usize, v: &Verdict) -> bool {
    d.basis
        .get(i)
        .and_then(|b| b.verdict.as_ref())
        .is_some_and(|held| {
            (
                &held.judgement,
                &held.reason,
                held.via,
                &held.author,
                held.meaning,
            ) == (&v.judgement, &v.reason, v.via, &v.author, v.meaning)
        })
}

/// What the summary says of answers the decision already held as given (recorded by the same
/// answer sent before), each item numbered from 1 as [`answers_given`] numbers the items
/// beside them: nothing when there are none.
fn already_held(held: &[&(usize, Verdict)]) -> String {
    let numbers: Vec<String> = held
        .iter()
        .map(|(i, _)| i.saturating_add(1).to_string())
        .collect();
    match numbers.as_slice() {
        [] => String::new(),
        [one] => format!(" Already recorded before (the same answer was sent again): item {one}."),
        _ => format!(
            " Already recorded before (the same answer was sent again): items {}.",
            numbers.join(", ")
        ),
    }
}

/// What the engineer answered in `reply` to `q`, as [`answers_given`] says it, when it is an
/// accepted form that matches the question: said by an answer that cannot record it.
pub fn answers_in(q: &Question, reply: &FormReply) -> Option<String> {
    let FormReply::Accept(content) = reply else {
        return None;
    };
    let verdicts = read_form(q, content.clone(), None).ok()?;
    Some(answers_given(&verdicts.iter().collect::<Vec<_>>()))
}

/// What the engineer answered on items whose answer was not recorded, so that their words
/// are not lost: `item 2 rejected ("not at the boss")`, each item numbered from 1 as the
/// form, the terminal, the card and every other answer number it, each reason quoted on one line and
/// clipped to 200 characters, and to its share of [`ANSWERS_GIVEN_BYTES`] as the answer's
/// JSON carries it (a reason of escaped or four-byte characters costs up to ten bytes a
/// character).
fn answers_given(unwritten: &[&(usize, Verdict)]) -> String {
    let share = ANSWERS_GIVEN_BYTES / unwritten.len().max(1);
    let each: Vec<String> = unwritten
        .iter()
        .map(|(i, v)| {
            let head = format!("item {} {}", i.saturating_add(1), v.judgement.as_str());
            match &v.reason {
                Some(r) => {
                    let room = share.saturating_sub(json_bytes(&head) + 4);
                    format!("{head} ({})", quoted_within(r, 200, room))
                }
                None => head,
            }
        })
        .collect();
    each.join(", ")
}

/// What the engineer's words quoted by [`answers_given`] may cost in the answer's JSON,
/// twenty items and more: the rest of the summary and the decision fit beside it in the
/// answer bound (see `ToolOutput::fit_member`).
const ANSWERS_GIVEN_BYTES: usize = 6_000;

/// `s` [`quoted`], at most `n` characters, and fewer while its JSON takes more than `bytes`
/// (at least the quotes and the mark of the cut).
fn quoted_within(s: &str, mut n: usize, bytes: usize) -> String {
    loop {
        let q = quoted(s, n);
        let cost = json_bytes(&q);
        if cost <= bytes || n == 0 {
            return q;
        }
        // Fewer characters in proportion, at least one fewer.
        n = (n * bytes / cost).min(n - 1);
    }
}

/// The bytes `s` takes as a JSON string.
fn json_bytes(s: &str) -> usize {
    crate::wire::to_json(s).map_or(usize::MAX, |j| j.len())
}

/// Reads an accepted form: a judgement for every item asked, an optional reason, nothing
/// else, all by this build's keys or all by an earlier build's ([`Keys`]).
fn read_form(
    q: &Question,
    mut content: Map<String, Value>,
    author: Option<String>,
) -> Result<Vec<(usize, Verdict)>, ToolError> {
    let refused = |why: String| {
        ToolError::Invalid(format!(
            "The engineer's answer does not match the form ({why}), so nothing was written. Call request_verdicts again."
        ))
    };
    let keys = Keys::in_answer(&content).map_err(|(padded, earlier)| {
        refused(format!(
            "it mixes the form's fields, such as {:?}, with an earlier form's, such as {:?}: an answer uses one form's fields only",
            prefix_chars(&padded, 60),
            prefix_chars(&earlier, 60)
        ))
    })?;
    let at = time::now();
    let mut verdicts = Vec::with_capacity(q.items.len());
    for &i in &q.items {
        let judgement = match content.remove(&keys.judgement(i)) {
            Some(Value::String(j)) => Judgement::parse(&j).ok_or_else(|| {
                // Quoted clipped, like a field the form did not ask: the host's value may
                // be of any length, the refusal stays one line.
                refused(format!(
                    "{} is {:?}, not accepted or rejected",
                    keys.judgement(i),
                    prefix_chars(&j, 60)
                ))
            })?,
            Some(_) => return Err(refused(format!("{} is not a string", keys.judgement(i)))),
            None => {
                // A field the form did not ask is named with it: the engineer's judgement
                // under another name (`item_1_judgement`) is not an unanswered item.
                let asked: std::collections::HashSet<String> = q
                    .items
                    .iter()
                    .flat_map(|&i| [keys.judgement(i), keys.reason(i)])
                    .collect();
                let stray = match content.keys().find(|k| !asked.contains(k.as_str())) {
                    Some(k) => format!(
                        "; it has a field {:?} the form did not ask",
                        prefix_chars(k, 60)
                    ),
                    None => String::new(),
                };
                return Err(refused(format!("{} is missing{stray}", keys.judgement(i))));
            }
        };
        let reason = match content.remove(&keys.reason(i)) {
            None | Some(Value::Null) => None,
            Some(Value::String(r)) if r.chars().count() as u64 > MAX_REASON => {
                return Err(refused(format!(
                    "{} is longer than {MAX_REASON} characters",
                    keys.reason(i)
                )));
            }
            Some(Value::String(r)) => Some(r.trim().to_string()).filter(|r| !r.is_empty()),
            Some(_) => return Err(refused(format!("{} is not a string", keys.reason(i)))),
        };
        verdicts.push((
            i,
            Verdict {
                meaning: None,
                at: at.clone(),
                author: author.clone(),
                judgement,
                reason,
                via: Via::Elicitation,
            },
        ));
    }
    if let Some(extra) = content.keys().next() {
        return Err(refused(format!(
            "it has a field {:?} the form did not ask",
            prefix_chars(extra, 60)
        )));
    }
    Ok(verdicts)
}

/// The answer for a client that cannot show a form (legacy sessions without elicitation):
/// the host did not declare its form mode (nothing, or `url` only), or the session's
/// revision has none (before 2025-06-18), in which case the host may well have declared it
/// and the assistant must not say otherwise.
pub fn without_elicitation(version: Version) -> String {
    let why = if version.features().elicitation {
        "This host did not declare form elicitation".to_string()
    } else {
        format!(
            "This session's protocol revision ({}) has no elicitation",
            version.as_str()
        )
    };
    format!(
        "{why}, so the engineer cannot be asked through a form here. Ask the engineer in chat for each verdict, then record their words with remember_decision (a verdict in its arguments is stored as relayed by you, via \"assistant\")."
    )
}

#[derive(Serialize)]
struct Answer<'a> {
    asked: &'a [usize],
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<DecisionWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    other_channels: Option<&'a OtherChannels>,
    outcome: Outcome,
    recorded: &'a [usize],
    #[serde(skip_serializing_if = "is_zero")]
    remaining: usize,
}

/// The engineer's other channels, named when the host cancelled the form: a host may pass
/// only the structured content to the model, so what the text says is here too.
#[derive(Debug, Clone, Serialize)]
pub struct OtherChannels {
    /// What happened and what to do, as the text block says it.
    pub note: String,
    /// The review card: where it renders and how it is shown.
    pub card: &'static str,
    /// The command line the engineer runs in their own terminal.
    pub terminal: String,
}

/// The review card as the engineer's channel, as an answer names it: rendered by this host
/// when it declared the MCP Apps extension (`apps`), else only where a host renders apps (a
/// host may render the card without declaring it).
pub fn card_channel(apps: bool) -> &'static str {
    if apps {
        "the review card, which this host renders (call show_review; the engineer clicks Accept or Reject there)"
    } else {
        "the review card (show_review) where the host renders MCP Apps"
    }
}

/// The engineer's own channels in the host of `caller`, to change a verdict of theirs: the
/// host's form where it has one, the card, and their terminal (`terminal`, the command).
pub fn engineer_channels(caller: super::Caller, terminal: &str) -> String {
    let form = if caller.form {
        "request_verdicts (the host's form), "
    } else {
        ""
    };
    format!(
        "through {form}{} or their terminal ({})",
        card_channel(caller.card),
        crate::text::code_span(terminal)
    )
}

/// Where the review card reaches the engineer.
const CARD_CHANNEL: &str = "call show_review: hosts that render MCP Apps (Claude Desktop, claude.ai, VS Code) show the review card, where the engineer clicks Accept or Reject";

impl OtherChannels {
    /// The channels for the database at `db` (none: in memory), the server's `author` and
    /// `revision`.
    pub fn new(
        db: Option<&std::path::Path>,
        author: Option<&str>,
        revision: Option<&str>,
    ) -> OtherChannels {
        OtherChannels {
            note: String::new(),
            card: CARD_CHANNEL,
            terminal: terminal_command(db, author, revision),
        }
    }
}

/// `review-mcp review --db PATH --author NAME REVISION`, quoted for a POSIX shell, on one
/// line: the server's author (`--author`, the bundle's "Your name"), when it has one, so the
/// terminal records the engineer's verdicts under the name the card records them under.
pub fn terminal_command(
    db: Option<&std::path::Path>,
    author: Option<&str>,
    revision: Option<&str>,
) -> String {
    command_line("review", db, author, revision)
}

/// `review-mcp SUBCOMMAND --db PATH --author NAME REVISION` (`FILE` without a revision; no
/// `--author` without a name), quoted for a POSIX shell, on one line; the program named as
/// [`crate::program::invoked_as`] says (its path, when the shell would not find it by name).
pub fn command_line(
    subcommand: &str,
    db: Option<&std::path::Path>,
    author: Option<&str>,
    revision: Option<&str>,
) -> String {
    // By the name a shell finds, or by the path the host started this binary from.
    let mut cmd = format!(
        "{} {subcommand}",
        shell_word(&one_line(crate::program::invoked_as()))
    );
    if let Some(db) = db {
        cmd.push_str(" --db ");
        cmd.push_str(&shell_word_exact(&one_line(&db.to_string_lossy())));
    }
    if let Some(author) = author {
        cmd.push_str(" --author ");
        cmd.push_str(&shell_word_exact(&one_line(author)));
    }
    cmd.push(' ');
    match revision {
        Some(r) => cmd.push_str(&shell_word(&one_line(r))),
        None => cmd.push_str("FILE"),
    }
    cmd
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The answer of a form recorded: the decision as it now stands, with its new verdicts.
fn answer(
    d: &Decision,
    asked: &[usize],
    recorded: &[usize],
    remaining: usize,
    summary: String,
) -> Result<ToolOutput, ToolError> {
    ToolOutput::new(
        &Answer {
            asked,
            decision: Some(d.wire(Some(&d.artifact.revision))),
            other_channels: None,
            outcome: Outcome::Recorded,
            recorded,
            remaining,
        },
        summary,
    )?
    .fit_member("decision", crate::resources::DECISIONS)
}

/// The answer of a question that wrote nothing (declined, cancelled, nothing to ask): what
/// happened and what to do next, without the decision, which is as the caller asked about
/// it (`recall_decisions` reads it).
fn answer_without(
    outcome: Outcome,
    asked: &[usize],
    remaining: usize,
    other_channels: Option<&OtherChannels>,
    summary: String,
) -> Result<ToolOutput, ToolError> {
    ToolOutput::new(
        &Answer {
            asked,
            decision: None,
            other_channels,
            outcome,
            recorded: &[],
            remaining,
        },
        summary,
    )
}

/// Rebuilds the form of a sealed question (a retry that lacks the answer is asked again), by
/// the rule its answer is judged by ([`finish`]): the items asked that are still as shown are
/// asked again, and a changed one is left for the next call (counted in `remaining` while it
/// awaits the engineer); refused when none is. A state sealed by an earlier build (no
/// `shown`) is asked again only while the whole basis is as shown.
pub fn reask(store: &mut Store, q: Question) -> Result<Step, ToolError> {
    const AGAIN: &str = "Call request_verdicts again without requestState.";
    let next = |store: &mut Store, d: &Decision| -> Result<String, ToolError> {
        Ok(match settled(store, d)? {
            true => format!("{SETTLED}."),
            false => AGAIN.into(),
        })
    };
    let refused = |why: &str, next: &str| {
        Err(ToolError::Invalid(format!(
            "The decision changed since the engineer was asked ({why}), so nothing was written. {next}"
        )))
    };
    let Some(d) = store.find_decision(&DecisionRef::Id(&q.decision))? else {
        return refused("it was forgotten", AGAIN);
    };
    let q = if q.shown.is_empty() {
        if d.basis_digest() != q.digest {
            return refused("its basis is no longer the one shown", &next(store, &d)?);
        }
        q
    } else {
        let (shown, changed): (Vec<_>, Vec<_>) =
            q.shown.iter().cloned().partition(|(i, judged)| {
                d.basis
                    .get(*i)
                    .is_some_and(|b| b.judged_digest() == *judged)
            });
        if shown.is_empty() {
            return refused("no item asked is still the one shown", &next(store, &d)?);
        }
        let awaiting = changed
            .iter()
            .filter(|(i, _)| d.basis.get(*i).is_some_and(BasisItem::awaits_engineer))
            .count();
        Question {
            items: shown.iter().map(|(i, _)| *i).collect(),
            remaining: q.remaining + awaiting,
            shown,
            ..q
        }
    };
    let after = store.verdicts_after_carry(&d)?;
    let (items, remaining, form) =
        fitted_form(&d, q.items.clone(), q.remaining, &after, FORM_BYTES);
    let shown = q
        .shown
        .into_iter()
        .filter(|(i, _)| items.contains(i))
        .collect();
    Ok(Step::Ask(Question {
        items,
        remaining,
        shown,
        form,
        ..q
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::{Artifact, BasisItem};
    use crate::store::NewDecision;

    /// A decision "bore" of the items `requirements`, each awaiting the engineer.
    fn bore(store: &mut Store, requirements: &[&str]) {
        let artifact = Artifact {
            revision: format!("sha256:{}", "ab".repeat(32)),
            format: "step".into(),
            uri: None,
            units: None,
        };
        store
            .remember_decision(&NewDecision {
                artifact,
                subject: "bore".into(),
                disposition: "hold".into(),
                summary: None,
                basis: requirements.iter().map(|r| BasisItem::stated(r)).collect(),
            })
            .unwrap();
    }

    /// A form past its bound asks the first items that fit, leaves the others to the next
    /// (counted in `remaining`), and shows one item past it alone shorter, each field cut
    /// saying how much it leaves out.
    #[test]
    fn a_form_past_its_bound_asks_fewer_items_then_shows_one_shorter() {
        let mut store = Store::open_in_memory().unwrap();
        let long = "r".repeat(900);
        bore(&mut store, &[&long, &long, &long]);
        let (_, decisions, _) = store.export_all().unwrap();
        let d = &decisions[0];
        let bytes = |form: &Value| form.to_string().len();
        let (items, remaining, whole) = fitted_form(d, vec![0, 1, 2], 0, &[], usize::MAX);
        assert_eq!((items, remaining), (vec![0, 1, 2], 0));
        let one = bytes(&whole) / 3 + 200;
        let (items, remaining, form) = fitted_form(d, vec![0, 1, 2], 0, &[], one);
        assert_eq!((items, remaining), (vec![0], 2));
        assert!(bytes(&form) <= one, "{form}");
        assert!(
            form["message"]
                .as_str()
                .unwrap()
                .contains("(Not in this form: 2 more items")
        );
        let (items, _, form) = fitted_form(d, vec![0, 1, 2], 0, &[], 600);
        assert_eq!(items, vec![0]);
        let about = form["requestedSchema"]["properties"]["item_000_judgement"]["description"]
            .as_str()
            .unwrap();
        assert!(about.contains(" more characters]"), "{about}");
        assert!(bytes(&form) < bytes(&whole) / 3, "{form}");
    }

    /// The keys of every index a basis can have, sorted as serde_json writes a map's keys,
    /// come item by item in basis order, each judgement before its own reason; each is read
    /// back as this build's, and an earlier build's keys as theirs.
    #[test]
    fn the_keys_of_every_index_sort_in_basis_order() {
        let n = usize::try_from(s::MAX_BASIS).unwrap();
        let in_order: Vec<String> = (0..n)
            .flat_map(|i| [Keys::Padded.judgement(i), Keys::Padded.reason(i)])
            .collect();
        let mut sorted = in_order.clone();
        sorted.sort();
        assert_eq!(sorted, in_order);
        assert_eq!(in_order[0], "item_000_judgement");
        assert_eq!(in_order[2 * n - 1], "item_999_reason");
        for key in &in_order {
            assert_eq!(Keys::of(key), Some(Keys::Padded), "{key}");
        }
        for key in ["judgement_0", "reason_12", "judgement_999"] {
            assert_eq!(Keys::of(key), Some(Keys::Earlier), "{key}");
        }
        for key in [
            "extra",
            "judgement_",
            "item__judgement",
            "reason_1x",
            "item_001_note",
        ] {
            assert_eq!(Keys::of(key), None, "{key}");
        }
    }

    /// "bore" asked about its item 0, then restated with item 1 changed: the store, the
    /// question as this build seals it, and as an earlier build sealed it (no `shown`).
    fn item_0_asked_then_item_1_changed() -> (Store, Question, Question) {
        let mut store = Store::open_in_memory().unwrap();
        bore(&mut store, &["M6 depth 8 mm", "Wall 2 mm"]);
        let args: Args = serde_json::from_value(json!({
            "artifact": {"revision": format!("sha256:{}", "ab".repeat(32)), "format": "step"},
            "subject": "bore", "items": [0]}))
        .unwrap();
        let Step::Ask(q) = prepare(&mut store, args).unwrap() else {
            panic!("nothing asked");
        };
        let earlier = Question {
            shown: Vec::new(),
            ..q.clone()
        };
        bore(&mut store, &["M6 depth 8 mm", "Wall 1.8 mm"]);
        (store, q, earlier)
    }

    /// Regression: a state sealed by an earlier build (no `shown`) is answered only while the
    /// whole basis is as shown; refused because an item not asked changed, it said "no item
    /// asked is still the one shown", untrue of the item asked, which had not changed.
    #[test]
    fn an_earlier_builds_form_refused_for_the_basis_says_so() {
        let (mut store, _, earlier) = item_0_asked_then_item_1_changed();
        let mut content = Map::new();
        content.insert("judgement_0".into(), json!("accepted"));
        let Err(ToolError::Invalid(said)) = finish(
            &mut store,
            &earlier,
            FormReply::Accept(content),
            super::super::Caller::default(),
        ) else {
            panic!("recorded on a basis that changed");
        };
        assert!(
            said.contains("its basis is no longer the one shown")
                && !said.contains("no item asked is still the one shown")
                && said.contains("item 1 accepted"),
            "{said}"
        );
    }

    /// A question sealed by an earlier build (no `shown`), answered with that build's form's
    /// keys (`judgement_<i>`, `reason_<i>`), is recorded as that build recorded it; the same
    /// answer with one of this build's keys mixed in is refused and writes nothing.
    #[test]
    fn an_earlier_builds_state_answered_with_its_forms_keys_is_recorded() {
        let mut store = Store::open_in_memory().unwrap();
        bore(&mut store, &["M6 depth 8 mm", "Wall 2 mm"]);
        let args: Args = serde_json::from_value(json!({
            "artifact": {"revision": format!("sha256:{}", "ab".repeat(32)), "format": "step"},
            "subject": "bore"}))
        .unwrap();
        let Step::Ask(q) = prepare(&mut store, args).unwrap() else {
            panic!("nothing asked");
        };
        let earlier = Question {
            shown: Vec::new(),
            ..q
        };
        let answer = |content: Value| match content {
            Value::Object(m) => FormReply::Accept(m),
            _ => unreachable!(),
        };
        let caller = super::super::Caller::default();
        let mixed = json!({"judgement_0": "rejected", "item_001_judgement": "accepted"});
        let Err(ToolError::Invalid(said)) = finish(&mut store, &earlier, answer(mixed), caller)
        else {
            panic!("a mixed answer recorded");
        };
        assert!(said.contains("it mixes the form's fields"), "{said}");
        let old = json!({"judgement_0": "rejected", "reason_0": "reamer unknown",
                         "judgement_1": "accepted"});
        finish(&mut store, &earlier, answer(old), caller).unwrap();
        let (_, decisions, _) = store.export_all().unwrap();
        let verdicts: Vec<_> = decisions[0]
            .basis
            .iter()
            .map(|b| {
                b.verdict
                    .as_ref()
                    .map(|v| (v.judgement, v.reason.clone(), v.via))
            })
            .collect();
        assert_eq!(
            verdicts,
            vec![
                Some((
                    Judgement::Rejected,
                    Some("reamer unknown".to_string()),
                    Via::Elicitation
                )),
                Some((Judgement::Accepted, None, Via::Elicitation)),
            ]
        );
    }

    /// A state sealed by an earlier build (no `shown`), sent back without the answer, keeps
    /// that build's rule: asked again only while the whole basis is as shown, so an item not
    /// asked that changed refuses it. One of this build is asked again about the item asked.
    #[test]
    fn an_earlier_builds_state_asked_again_keeps_the_whole_basis_rule() {
        let (mut store, q, earlier) = item_0_asked_then_item_1_changed();
        let Err(ToolError::Invalid(said)) = reask(&mut store, earlier) else {
            panic!("asked again on a basis that changed");
        };
        assert!(
            said.contains("its basis is no longer the one shown"),
            "{said}"
        );
        let Ok(Step::Ask(again)) = reask(&mut store, q) else {
            panic!("this build's state not asked again");
        };
        assert_eq!((again.items, again.remaining), (vec![0], 1));
    }
}
