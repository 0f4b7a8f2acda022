//! `record_verdict`: the review card's Accept and Reject buttons. App-only: a host that
//! declared the UI extension hides it from the model (`_meta.ui.visibility: ["app"]`), and
//! it is listed to no other client. What makes a call the engineer's click, in any host, is
//! the card's proof (`card_proof`): given to the card in `_meta` with the decisions it shows,
//! never to the model, and sent back with the click. A call without it writes nothing. So
//! what it records is the engineer's click (`via: "app"`), which outranks the assistant's
//! word as an answer to the host's form does.
//!
//! A click is bound to the item the engineer saw: the card sends back the item's `digest`
//! (given with every basis item in `show_review`'s and this tool's structured content), and
//! the verdict is written ([`Store::record_verdicts`], one write transaction) only while the
//! item at that index still says exactly that. Otherwise nothing is written and the refusal
//! says [`CHANGED`], which the card reads as "show the decision again".

use serde::Deserialize;
use serde_json::{Value, json};

use super::request_verdicts::MAX_REASON;
use super::schema as s;
use super::{ToolError, ToolOutput, ToolSpec, card_proof};
use crate::review::{Judgement, Verdict, Via};
use crate::store::{DecisionRef, Shown, Store, VerdictsOutcome};
use crate::text::{inline, quoted};
use crate::time;

pub const NAME: &str = "record_verdict";

/// How every refusal of a click the decision no longer matches begins (the card looks for
/// it, and then shows the decision again): stable wording, part of the tool's contract.
pub const CHANGED: &str = "The decision changed since the card showed it";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    decision_id: String,
    #[serde(deserialize_with = "index")]
    index: u64,
    item_digest: String,
    judgement: Judgement,
    reason: Option<String>,
    card_proof: Option<String>,
    /// The `at` of the verdict the card showed on the item ("" for none): a click replayed
    /// after it was recorded, or after a later verdict, then writes nothing.
    seen_verdict_at: Option<String>,
}

/// How the refusal of a call without the card's proof begins: stable wording.
pub const NOT_FROM_THE_CARD: &str =
    "record_verdict records a click in the review card only, and this call carries no card_proof";

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
        description: "The review card's Accept/Reject: the engineer's verdict on a basis item (via \"app\"), written only while the item is as the card showed it; else the refusal begins \"The decision changed since the card showed it\".",
        input_schema: json!({
            "type": "object",
            "properties": {
                "decision_id": {"type": "string", "minLength": 1, "maxLength": 200},
                "index": {"type": "integer", "minimum": 0, "maximum": s::MAX_BASIS - 1},
                "item_digest": {"type": "string", "minLength": 1, "maxLength": 64},
                "judgement": {"type": "string", "enum": Judgement::ALL},
                "reason": {"type": "string", "maxLength": MAX_REASON},
                "card_proof": {"type": "string", "maxLength": 64},
                "seen_verdict_at": {"type": "string", "maxLength": 64}
            },
            "required": ["decision_id", "index", "item_digest", "judgement"],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "index": {"type": "integer", "minimum": 0},
                "verdict": s::verdict_output(),
                "decision": s::card_decision_output()
            },
            "required": ["index", "verdict", "decision"]
        }),
        annotations: s::annotations("Record the engineer's verdict", false, false, true),
        ui: super::Ui::AppOnly,
        run: |store, args, _| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let index = usize::try_from(args.index).unwrap_or(usize::MAX);
    let verdict = Verdict {
        meaning: None,
        at: time::now(),
        author: store.author().map(str::to_string),
        judgement: args.judgement,
        reason: args.reason.filter(|r| !r.trim().is_empty()),
        via: Via::App,
    };
    let Some(proof) = args.card_proof.as_deref() else {
        return Err(ToolError::Invalid(format!(
            "{NOT_FROM_THE_CARD} (the proof the card is given with the decisions it shows, never the model). Nothing was written. The engineer gives verdicts through the card, the host's form (request_verdicts) or their terminal (review-mcp review); what they tell you in chat goes in remember_decision."
        )));
    };
    let changed = |why: String| {
        ToolError::Invalid(format!(
            "{why}. Nothing was written: show the decision again (show_review) and give the verdict on the item as it is now."
        ))
    };
    let gone = || {
        ToolError::Invalid(format!(
            "{CHANGED}: no decision {} (it was forgotten or replaced by another revision). Nothing was written: show the review again (show_review).",
            inline(&args.decision_id, 80)
        ))
    };
    let at = DecisionRef::Id(&args.decision_id);
    match store.find_decision(&at)? {
        Some(d)
            if card_proof::verify(&d, proof) && card_proof::items_shown(proof) > Some(index) =>
        {
            // Carried on since the card showed it (see `carried_on`).
            if d.superseded.is_some() {
                let forgotten = store
                    .unsaid_carried_on(&[d.id.as_str()], &[])?
                    .contains(&d.id);
                return Err(carried_on(store, &d, forgotten)?);
            }
        }
        Some(d) => {
            // The item clicked changed: say what it is now, as for any changed item. Else
            // another item changed, or the proof is not this decision's (made up, or from
            // before the server restarted).
            let why = match item_now(&d, index, &args.item_digest) {
                Some(now) => format!("{CHANGED}: {now} in {}", quoted(&d.subject, 60)),
                None => format!(
                    "{CHANGED}, or the card_proof is not the one the card was given for {} (its items changed, or the server restarted since)",
                    quoted(&d.subject, 60)
                ),
            };
            return Err(changed(why));
        }
        None => return Err(gone()),
    }
    let shown = match args.seen_verdict_at.as_deref() {
        Some(seen) => Shown::ItemAndVerdict(&args.item_digest, seen),
        None => Shown::Item(&args.item_digest),
    };
    let decision = match store.record_verdicts(&at, shown, &[(index, verdict.clone())])? {
        VerdictsOutcome::Recorded(d) => d,
        VerdictsOutcome::Changed(d) => {
            let now = item_now(&d, index, &args.item_digest)
                .or_else(|| verdict_now(&d, index, args.seen_verdict_at.as_deref()))
                .unwrap_or_else(|| {
                    format!(
                        "item {} is not the item you judged",
                        index.saturating_add(1)
                    )
                });
            let subject = quoted(&d.subject, 60);
            return Err(changed(format!("{CHANGED}: {now} in {subject}")));
        }
        VerdictsOutcome::Missing => return Err(gone()),
        // Carried on between the check above and the write (another process's carry).
        VerdictsOutcome::CarriedOn {
            decision,
            forgotten,
        } => return Err(carried_on(store, &decision, forgotten)?),
    };
    let requirement = decision
        .basis
        .get(index)
        .map(|b| quoted(&b.requirement, 60))
        .unwrap_or_else(|| quoted("", 0));
    let summary = format!(
        "The engineer {} basis[{index}] {requirement} of {} in the review card.",
        verdict.judgement.as_str(),
        quoted(&decision.subject, 60)
    );
    // What the card shows on each carried item: a verdict its earlier revision got after
    // the carry (given back with the decision, so a click on another item keeps it).
    let after = store.verdicts_after_carry(&decision)?;
    let mut card = decision.to_card_wire(None, &after);
    if let Value::Object(m) = &mut card {
        // The decision's trail, the verdict just recorded first (a read after the write).
        m.insert(
            "trail".into(),
            crate::resources::card_trail(store, &decision.id)?,
        );
    }
    let structured: Value = json!({
        "index": index,
        "verdict": verdict,
        "decision": card,
    });
    let meta = card_proof::meta_for(&json!({"decision": &structured["decision"]}));
    let mut out = ToolOutput::new(&structured, summary)?
        .fit_member("decision", crate::resources::DECISIONS)?;
    out.meta = meta;
    Ok(out)
}

/// The refusal of a click on `d`, carried on since the card showed it: a change like any
/// other (the card shows the review again), said as the terminal says it.
fn carried_on(
    store: &mut Store,
    d: &crate::review::Decision,
    forgotten: bool,
) -> Result<ToolError, ToolError> {
    let subject = quoted(&d.subject, 60);
    let to = d.superseded.as_ref().map_or("", |s| s.by.as_str());
    // Carried on again from there: where its review stands now, as the form names it.
    let (now, _) = store.stands_at(to, &d.subject)?;
    let by = if forgotten || now == to {
        inline(to, 80)
    } else {
        format!("{} and on to revision {}", inline(to, 80), inline(&now, 80))
    };
    Ok(ToolError::Invalid(format!(
        "{}. Nothing was written.",
        if forgotten {
            format!(
                "{CHANGED}: {subject} was carried to revision {by} (carry_forward) and forgotten there: no revision holds its review; state it again at the part's current revision (remember_decision), then judge it there"
            )
        } else {
            format!(
                "{CHANGED}: {subject} was carried to revision {by} (carry_forward): judge it there"
            )
        }
    )))
}

/// What verdict item `index` of `d` holds now, when it is not the one the card showed (`seen`:
/// its `at`, `""` for none): a click replayed after it was recorded, or after a later verdict.
fn verdict_now(d: &crate::review::Decision, index: usize, seen: Option<&str>) -> Option<String> {
    let seen = seen?;
    let b = d.basis.get(index)?;
    let now = b.verdict.as_ref().map_or("", |v| v.at.as_str());
    if now == seen {
        return None;
    }
    let n = index.saturating_add(1);
    Some(match &b.verdict {
        Some(v) => format!(
            "item {n} has a verdict the card did not show ({}{}, {}): this click was recorded already or came before it",
            v.judgement.as_str(),
            v.given_by(),
            inline(&v.at, 40)
        ),
        None => format!("item {n} has no verdict now, not the one the card showed"),
    })
}

/// What item `index` of `d` is now, when it is not the item of `digest` the card showed
/// (`None`: it still is).
fn item_now(d: &crate::review::Decision, index: usize, digest: &str) -> Option<String> {
    match d.basis.get(index) {
        Some(b) if b.digest() == digest => None,
        Some(b) => Some(format!(
            "item {} is now {} ({}), not the item you judged",
            index.saturating_add(1),
            quoted(&b.requirement, 60),
            b.state.as_str()
        )),
        None => Some(format!(
            "it has {} item{} now, so there is no item {}",
            d.basis.len(),
            if d.basis.len() == 1 { "" } else { "s" },
            index.saturating_add(1)
        )),
    }
}
