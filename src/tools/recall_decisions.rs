//! `recall_decisions`: decisions newest first, each marked stale when it belongs to another
//! revision, in keyset pages.

use serde::Deserialize;
use serde_json::json;

use super::cursor::Pager;
use super::schema::{self as s, MAX_SUBJECT};
use super::{ArtifactArg, ToolError, ToolOutput, ToolSpec};
use crate::review::artifact::ArtifactTable;
use crate::review::{CarryState, State, Via};
use crate::store::{DecisionQuery, EntityTable, PageRequest, Store, VerdictState};
use crate::text::{disposition, quoted};
use crate::wire::{PAGE_ITEMS_BUDGET, PageWriter};

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
    decision_id: Option<String>,
    current_only: Option<bool>,
    carried: Option<CarryState>,
    detail: Option<super::Detail>,
    #[serde(default, deserialize_with = "super::integer")]
    limit: Option<u64>,
    cursor: Option<String>,
}

/// What the ids `entity_id` filters by are called in a refusal.
pub(super) const IDS: &str = "face ids";

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Recall review decisions",
        description: "Find decisions already reached, so a settled question is recalled, not decided again. Optional filters, ANDed; `artifact` as in recall. \
By default the newest decision of each subject on each file (current_only: false for all), as a summary: basis counts per state and verdict, open questions. `detail` \"full\", `subject` or `decision_id` give the basis. \
`state`, `verdict` (none: not judged yet) and `via` keep decisions with such an item (verdict with via: the same item). Follow `next_cursor` with the same filters.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "artifact": s::artifact_input(),
                "subject": {"type": "string", "minLength": 1, "maxLength": MAX_SUBJECT},
                "entity_id": s::entity_id(),
                "text": s::query_text(),
                "state": {"type": "string", "enum": State::ALL},
                "verdict": {"type": "string", "enum": VerdictState::ALL},
                "via": {"type": "string", "enum": Via::ALL},
                "decision_id": {"type": "string", "minLength": 1, "maxLength": 200},
                "current_only": {"type": "boolean", "default": true},
                "carried": s::carried_filter(),
                "detail": s::detail(),
                "limit": s::limit(),
                "cursor": s::cursor()
            },
            "allOf": [{"if": {"required": ["entity_id"]}, "then": {"required": ["artifact"]}}],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "artifacts": s::page_artifacts(),
                "decisions": {"type": "array", "items": {"anyOf": [s::decision_summary_output(), s::decision_page_output()]}},
                "next_cursor": {"type": "string"}
            },
            "required": ["artifacts", "decisions"]
        }),
        annotations: s::annotations("Recall review decisions", true, false, true),
        ui: super::Ui::None,
        run: |store, args, _| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let scope = super::RecallScope::of(args.artifact.as_ref(), args.entity_id.as_deref(), IDS)?;
    if args.verdict == Some(VerdictState::None) && args.via.is_some() {
        return Err(ToolError::Invalid(
            "verdict \"none\" with via asks for an item without a verdict whose verdict came from somewhere: send one of them (verdict none: items not judged at all; via assistant: verdicts only relayed)".into(),
        ));
    }
    let current = scope.current;
    let full = match args.detail {
        Some(d) => d == super::Detail::Full,
        // Asked for one decision: its whole basis.
        None => args.subject.is_some() || args.decision_id.is_some(),
    };
    let query = DecisionQuery {
        locator: scope.locator,
        revision: scope.revision,
        face: scope.entity,
        subject: args.subject.clone(),
        id: args.decision_id.clone(),
        text: args.text.clone(),
        state: args.state,
        verdict: args.verdict,
        via: args.via,
        current_only: args.current_only.unwrap_or(true) && args.decision_id.is_none(),
        carried: args.carried,
    };
    let first_page = args.cursor.is_none();
    let filters = (&query, full);
    let (pager, request) = Pager::open(store, NAME, &filters, args.cursor.as_deref(), args.limit)?;
    // A decision's summary is 300 to 800 bytes, its full form 1 to 5 KB. A page ends early
    // when the next decision would take the answer past its byte bound.
    let room = if full { 2048 } else { 512 };
    let mut decisions = PageWriter::with_artifacts(
        "decisions",
        request.limit,
        room,
        crate::resources::DECISIONS,
    );
    let mut table = ArtifactTable::default();
    let mut firsts = Vec::new();
    let mut stale = 0;
    let current_rev = current.as_deref();
    // The carried decisions of the page: an engineer's verdict given at the earlier
    // revision after the carry (a clone's, by sync) is named beside them.
    let mut carried_here = Vec::new();
    let mut whole_once = super::WholeOnce::default();
    let mut summaries = 0usize;
    let page = store.recall_decisions_each(&query, request, |d| {
        let artifact = d.artifact.wire();
        let (index, entry) = table.find(
            &artifact,
            None,
            d.superseded
                .as_ref()
                .map(crate::review::Superseded::page_ref),
            current_rev,
        );
        let taken = if full {
            decisions.push_referring(PAGE_ITEMS_BUDGET, entry.as_ref(), &d.page_wire(index))
        } else {
            // Each revision whole once in the page: a carried decision's `from` said before
            // is short (see `WholeOnce`). A decision refused ends the page: what it said is
            // not read.
            if let Some(e) = &entry
                && !whole_once.said_in(&serde_json::to_value(e).unwrap_or(serde_json::Value::Null))
                && summaries > 0
            {
                return false;
            }
            let mut item =
                serde_json::to_value(d.summary_wire(index)).unwrap_or(serde_json::Value::Null);
            if !whole_once.names_at(&mut item, &["/carried/from"]) {
                return false;
            }
            let taken = decisions.push_referring(PAGE_ITEMS_BUDGET, entry.as_ref(), &item);
            summaries += usize::from(taken);
            taken
        };
        if !taken {
            return false;
        }
        if let Some(e) = &entry {
            table.keep(e);
        }
        stale += usize::from(current_rev.is_some_and(|c| c != d.artifact.revision));
        if d.basis.iter().any(|b| b.carried.is_some()) {
            carried_here.push(d.clone());
        }
        if firsts.len() < 3 {
            // A superseded decision's words wait for the page: whether its copy was
            // forgotten where it went is read after it (`unsaid_carried_on`).
            let state = match (&d.superseded, &d.carried) {
                (Some(s), _) => First::Superseded {
                    id: d.id.clone(),
                    by: super::short_rev(&s.by),
                },
                (None, Some(_)) => First::Said(format!(
                    " ({} to re-verify)",
                    d.carried_count(crate::review::CarryState::Reverify)
                )),
                (None, None) => First::Said(String::new()),
            };
            firsts.push((
                format!(
                    "; {}: {}",
                    quoted(&d.subject, 40),
                    disposition(d.shown_disposition(), 20)
                ),
                state,
            ));
        }
        true
    })?;
    let next = pager.next(&page);
    let n = page.items.len();
    let mut summary = format!("{n} decision{}", if n == 1 { "" } else { "s" });
    if !full && n > 0 {
        summary.push_str(" (summaries; detail \"full\" or a subject gives the basis)");
    }
    // A decision carried on whose every copy was forgotten since is listed because nothing
    // else says it: "superseded by" would send the reader to a revision that no longer
    // holds it, so its line says to state it again, as `show_review`'s does.
    let superseded: Vec<&str> = firsts
        .iter()
        .filter_map(|(_, s)| match s {
            First::Superseded { id, .. } => Some(id.as_str()),
            First::Said(_) => None,
        })
        .collect();
    let forgotten = if superseded.is_empty() {
        Default::default()
    } else {
        store.unsaid_carried_on(&superseded, &[])?
    };
    for (head, state) in &firsts {
        summary.push_str(head);
        match state {
            First::Said(s) => summary.push_str(s),
            First::Superseded { id, by } if forgotten.contains(id) => summary.push_str(&format!(
                " (carried on to {by} and forgotten there: state it again with remember_decision, or forget it at its own revision if no longer wanted)"
            )),
            First::Superseded { by, .. } => summary.push_str(&format!(" (superseded by {by})")),
        }
    }
    if stale > 0 {
        summary.push_str(&format!("; {stale} stale (made for another revision)"));
    }
    if first_page && query.current_only {
        let older = store.count_older_decisions(&query)?;
        if older > 0 {
            summary.push_str(&format!(
                "; {older} older decision{} of the same subjects not shown (current_only: false lists them)",
                if older == 1 { "" } else { "s" }
            ));
        }
    }
    if n == 0
        && first_page
        && let (Some((face, rev)), Some(a)) = (&query.face, args.artifact.as_ref())
    {
        let locator = query.locator.as_deref();
        let elsewhere = store.entity_elsewhere(EntityTable::Decisions, face, rev, locator)?;
        summary.push_str(&super::elsewhere_hint(face, elsewhere, a.uri.is_some()));
    }
    // Nothing at the file named: the same revision may be recorded under another path.
    if n == 0
        && first_page
        && let (Some(locator), Some(rev)) = (&query.locator, current_rev)
    {
        let elsewhere = DecisionQuery {
            locator: None,
            revision: Some(rev.to_string()),
            ..query.clone()
        };
        let mut other = super::OtherFiles::default();
        let limit = super::OTHER_FILES_LOOKED_AT;
        store.recall_decisions_each(&elsewhere, PageRequest::first(limit), |d| {
            other.see(d.artifact.uri.as_deref(), locator);
            true
        })?;
        summary.push_str(&other.hint("decision", other.found >= limit));
    }
    // No decision of that subject, but one a person reads as it (spelled otherwise): name it.
    if n == 0
        && first_page
        && let Some(subject) = &query.subject
    {
        let stored = store.decision_subjects(query.locator.as_deref(), super::NAMES_COMPARED)?;
        if let Some(alike) = super::named_alike(subject, &stored) {
            summary.push_str(&format!(
                "; no subject is exactly that, but named alike: {alike} (give that spelling)"
            ));
        }
    }
    let (after, said) = crate::resources::verdicts_after_carry(store, &carried_here)?;
    if !said.is_empty() {
        summary.push_str("; ");
        summary.push_str(&said);
    }
    let out = ToolOutput::page(decisions, next, summary)?;
    if after.is_empty() {
        return Ok(out);
    }
    out.with_member("verdicts_after_carry", serde_json::Value::Array(after))
}

/// How the line names one of the first decisions of the page, after its subject.
enum First {
    Said(String),
    /// Carried on to `by` (short): said once the page knows whether it was forgotten there.
    Superseded {
        id: String,
        by: String,
    },
}
