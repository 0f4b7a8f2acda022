//! `recall`: records by artifact, entity, free text or tags, each marked stale against the
//! supplied current revision, in keyset pages.

use serde::Deserialize;
use serde_json::json;

use super::cursor::Pager;
use super::schema::{self as s, MAX_TAG, MAX_TAGS};
use super::{ArtifactArg, ToolError, ToolOutput, ToolSpec};
use crate::review::artifact::ArtifactTable;
use crate::review::{CarryState, Kind};
use crate::store::{EntityTable, PageRequest, RecordQuery, Store};
use crate::text::quoted;
use crate::wire::{PAGE_ITEMS_BUDGET, PageWriter};

pub const NAME: &str = "recall";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    artifact: Option<ArtifactArg>,
    entity_id: Option<String>,
    text: Option<String>,
    tags: Option<Vec<String>>,
    kind: Option<Kind>,
    carried: Option<CarryState>,
    current_only: Option<bool>,
    #[serde(default, deserialize_with = "super::integer")]
    limit: Option<u64>,
    cursor: Option<String>,
}

/// What the ids `entity_id` filters by are called in a refusal.
pub(super) const IDS: &str = "entity ids";

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Recall features and notes",
        description: "Find what was remembered before asking the engineer again. Optional filters, ANDed. \
`artifact` with `uri`: that file at every revision; without: that revision. Its `revision` is the current one: the page's `artifacts` table marks other revisions stale: true (re-check them). \
Newest first; follow `next_cursor` with the same filters.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "artifact": s::artifact_input(),
                "entity_id": s::entity_id(),
                "text": s::query_text(),
                "tags": s::strings(MAX_TAGS, MAX_TAG, "All must be present."),
                "kind": {"type": "string", "enum": ["feature", "note"]},
                "carried": s::carried_filter(),
                "current_only": {"type": "boolean", "default": true},
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
                "records": {"type": "array", "items": s::record_page_output()},
                "next_cursor": {"type": "string", "description": "Present when more records follow."}
            },
            "required": ["artifacts", "records"]
        }),
        annotations: s::annotations("Recall features and notes", true, false, true),
        ui: super::Ui::None,
        run: |store, args, _| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

/// At most this many revisions of stale records on a page are looked at for a carry to the
/// current one (the newest first: the one a carry would come from).
const CARRY_FROM_LOOKED_AT: usize = 5;

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let scope = super::RecallScope::of(args.artifact.as_ref(), args.entity_id.as_deref(), IDS)?;
    let current = scope.current;
    let query = RecordQuery {
        locator: scope.locator,
        revision: scope.revision,
        entity: scope.entity,
        text: args.text.clone(),
        tags: args.tags.clone().unwrap_or_default(),
        kind: args.kind,
        carried: args.carried,
        current_only: args.current_only.unwrap_or(true),
        current_revision: current.clone(),
    };
    let first_page = args.cursor.is_none();
    let (pager, request) = Pager::open(store, NAME, &query, args.cursor.as_deref(), args.limit)?;
    let current = current.as_deref();
    // A record's page form is 200 to 400 bytes with typical names, notes and lists; its
    // artifact is said once per page, in the `artifacts` table.
    let mut records =
        PageWriter::with_artifacts("records", request.limit, 320, crate::resources::RECORDS);
    let mut table = ArtifactTable::default();
    let mut firsts = Vec::new();
    let mut stale = 0;
    // The artifacts of the stale records not carried on, newest first: where a carry to the
    // current revision would come from.
    let mut carriable: Vec<crate::review::Artifact> = Vec::new();
    let mut superseded = 0;
    let mut re_verify = 0;
    let mut whole_once = super::WholeOnce::default();
    let mut taken = 0usize;
    // A page ends early when the next record would take the answer past its byte bound.
    let page = store.recall_each(&query, request, |r| {
        let is_stale = current.is_some_and(|c| c != r.artifact.revision);
        // The first names, each marked when it is a superseded copy (what an earlier
        // revision said of a feature carried on): the same name twice reads as two revisions.
        let first = (firsts.len() < 3).then(|| {
            (
                r.name.map(str::to_string).ok_or_else(|| r.id.to_string()),
                r.superseded.is_some(),
            )
        });
        let (index, entry) = table.find(
            &r.artifact,
            Some(r.id_scheme),
            r.superseded
                .as_ref()
                .map(crate::review::Superseded::page_ref),
            current,
        );
        // Each revision whole once in the page: a carried record's `from` said before is
        // short (see `WholeOnce`). A record refused ends the page: what it said is not read.
        if let Some(e) = &entry
            && !whole_once.said_in(&serde_json::to_value(e).unwrap_or(serde_json::Value::Null))
            && taken > 0
        {
            return false;
        }
        let mut item = serde_json::to_value(r.page_wire(index)).unwrap_or(serde_json::Value::Null);
        if !whole_once.names_at(&mut item, &["/carried/from", "/carried/ids_of"]) {
            return false;
        }
        if !records.push_referring(PAGE_ITEMS_BUDGET, entry.as_ref(), &item) {
            return false;
        }
        taken += 1;
        if let Some(e) = &entry {
            table.keep(e);
        }
        stale += usize::from(is_stale);
        if is_stale && r.superseded.is_none() {
            carriable.push(r.artifact.into_owned());
        }
        superseded += usize::from(r.superseded.is_some());
        re_verify += usize::from(
            r.carried
                .as_ref()
                .is_some_and(|c| c.state == CarryState::Reverify),
        );
        firsts.extend(first);
        true
    })?;
    let next = pager.next(&page);
    let n = page.items.len();
    let mut summary = format!("{n} record{}", if n == 1 { "" } else { "s" });
    // Two names a person reads as one ("Boré" composed and decomposed) are spelled so that
    // the difference shows, as a lookup that misses names them.
    let keys: Vec<Option<String>> = firsts
        .iter()
        .map(|(f, _)| f.as_ref().ok().map(|n| crate::text::alike_key(n)))
        .collect();
    for ((first, old), key) in firsts.iter().zip(&keys) {
        summary.push_str("; ");
        match first {
            Ok(name) if keys.iter().filter(|k| *k == key).count() > 1 => {
                summary.push_str(&crate::text::spelled(name, 40));
            }
            Ok(name) => summary.push_str(&quoted(name, 40)),
            Err(id) => summary.push_str(&format!("note {id}")),
        }
        if *old {
            summary.push_str(" (superseded)");
        }
    }
    if n > 3 {
        summary.push_str("; ...");
    }
    if stale > 0 {
        // Named only where a carry is possible (as `show_review` names it): not for records
        // carried on already, nor back to an earlier revision of the review.
        let carry = match current {
            Some(rev) => {
                crate::resources::carriable_to(store, &carriable, rev, CARRY_FROM_LOOKED_AT)?
            }
            None => false,
        };
        summary.push_str(&format!(
            "; {stale} stale (written for another revision{})",
            if carry {
                "; carry_forward carries a review here"
            } else {
                ""
            }
        ));
    }
    if re_verify > 0 {
        summary.push_str(&format!("; {re_verify} carried to re-verify"));
    }
    if superseded > 0 {
        summary.push_str(&format!(
            "; {superseded} superseded (their revision was carried to a later one: see their artifact's superseded.by)"
        ));
    }
    // What a carry superseded and a later copy still says, left out: said once, on the
    // first page, as recall_decisions says its older decisions.
    let left_out = match first_page && query.current_only {
        true => store.count_superseded_records(&query, page.snapshot)?,
        false => 0,
    };
    if left_out > 0 {
        summary.push_str(&format!(
            "; {left_out} superseded cop{} not shown (current_only: false lists them)",
            if left_out == 1 { "y" } else { "ies" }
        ));
    }
    // Matched, but left out: the hints for an empty answer below would say nothing matched.
    let first_page = first_page && left_out == 0;
    if n == 0
        && first_page
        && let (Some((entity, rev)), Some(a)) = (&query.entity, args.artifact.as_ref())
    {
        let locator = query.locator.as_deref();
        let elsewhere = store.entity_elsewhere(EntityTable::Records, entity, rev, locator)?;
        summary.push_str(&super::elsewhere_hint(entity, elsewhere, a.uri.is_some()));
    }
    // Nothing at the file named: the same revision may be recorded under another path.
    if n == 0
        && first_page
        && let (Some(locator), Some(rev)) = (&query.locator, current)
    {
        let elsewhere = RecordQuery {
            locator: None,
            revision: Some(rev.to_string()),
            ..query.clone()
        };
        let mut other = super::OtherFiles::default();
        let limit = super::OTHER_FILES_LOOKED_AT;
        store.recall_each(&elsewhere, PageRequest::first(limit), |r| {
            other.see(r.artifact.uri, locator);
            true
        })?;
        summary.push_str(&other.hint("record", other.found >= limit));
    }
    ToolOutput::page(records, next, summary)
}
