//! `carry_forward`: carry the records and decisions of one revision of a file to its next
//! revision, in one transaction (the rules: `review::carry`; the write: `store/carry.rs`).

use serde::Deserialize;
use serde_json::{Value, json};

use super::schema::{self as s, MAX_ENTITIES, MAX_ENTITY, MAX_TEXT};
use super::{ArtifactArg, ToolError, ToolOutput, ToolSpec, short_rev};
use crate::review::CarryState;
use crate::review::carry::EntityMap;
use crate::store::{CarryPlan, Store};
use crate::text::prefix_chars;
use crate::wire::{self, PAGE_ITEMS_BUDGET};

pub const NAME: &str = "carry_forward";

/// At most this many entity ids are named per re-verify entry of the answer (recall with
/// `carried` gives every item whole).
const NAMED_IDS: usize = 8;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    from: ArtifactArg,
    to: ArtifactArg,
    map: Vec<Pair>,
    #[serde(default)]
    changed: Vec<String>,
    change: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pair {
    from: String,
    to: String,
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Carry the review to a new revision",
        description: "When the part's revision changes, carry its review from `from` to `to` (`change`: why), not start again. \
`map`: old to new entity ids (others: unmapped); `changed`: old ids that changed. Items touching either (whole-part ones if anything changed) become re-verify, the rest inherited; no verdict carries over.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "from": s::artifact_input(),
                "to": s::artifact_input(),
                "map": {
                    "type": "array", "maxItems": MAX_ENTITIES,
                    "items": {
                        "type": "object",
                        "properties": {
                            "from": {"type": "string", "maxLength": MAX_ENTITY},
                            "to": {"type": "string", "maxLength": MAX_ENTITY}
                        },
                        "required": ["from", "to"],
                        "additionalProperties": false
                    }
                },
                "changed": {"type": "array", "items": {"type": "string", "maxLength": MAX_ENTITY}, "maxItems": MAX_ENTITIES},
                "change": s::text(MAX_TEXT, "")
            },
            "required": ["from", "to", "map"],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "already_carried": {"type": "boolean"},
                "records": {"type": "object"},
                "decisions": {"type": "array"},
                "re_verify": {"type": "array"}
            },
            "required": ["already_carried", "records", "decisions", "re_verify"]
        }),
        annotations: s::annotations("Carry the review to a new revision", false, false, true),
        ui: super::Ui::None,
        run: |store, args| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let from = args.from.normalise()?;
    let to = args.to.normalise()?;
    if from.revision == to.revision {
        return Err(ToolError::Invalid(format!(
            "from and to are the same revision ({}): carry_forward carries a review to another \
             revision of the file; nothing was written",
            from.revision
        )));
    }
    let pairs: Vec<(String, String)> = args.map.into_iter().map(|p| (p.from, p.to)).collect();
    let map = EntityMap::new(&pairs, &args.changed)
        .map_err(|e| ToolError::Invalid(format!("{}; nothing was written", e.0)))?;
    let plan = CarryPlan {
        from,
        to,
        map,
        change: args.change.filter(|c| !c.trim().is_empty()),
    };
    store.carry_forward_answered(&plan, |out| {
        let count = |state: CarryState| {
            let records = out
                .records
                .iter()
                .filter(|r| r.carried.as_ref().is_some_and(|c| c.state == state))
                .count();
            let items: usize = out.decisions.iter().map(|d| d.carried_count(state)).sum();
            (records, items)
        };
        let (ri, bi) = count(CarryState::Inherited);
        let (rr, br) = count(CarryState::Reverify);
        // What must be re-verified, item by item, while the answer has room; the rest is
        // counted (recall and recall_decisions with carried "re-verify" page through all).
        let mut spent = 1024;
        let mut re_verify = Vec::new();
        let mut left_out = 0usize;
        let ids = |v: &[String]| -> Vec<String> {
            v.iter()
                .take(NAMED_IDS)
                .map(|s| prefix_chars(s, 64).to_string())
                .collect()
        };
        let entries = out
            .records
            .iter()
            .filter_map(|r| {
                let c = r.carried.as_ref().filter(|c| c.state == CarryState::Reverify)?;
                Some(json!({"record": r.id, "changed": ids(&c.changed), "unmapped": ids(&c.unmapped)}))
            })
            .chain(out.decisions.iter().flat_map(|d| {
                d.basis.iter().enumerate().filter_map(move |(i, b)| {
                    let c = b.carried.as_ref().filter(|c| c.state == CarryState::Reverify)?;
                    Some(json!({"decision": d.id, "index": i, "changed": ids(&c.changed), "unmapped": ids(&c.unmapped)}))
                })
            }));
        for e in entries {
            let bytes = wire::answer_bytes(&e);
            if spent + bytes > PAGE_ITEMS_BUDGET / 2 {
                left_out += 1;
                continue;
            }
            spent += bytes;
            re_verify.push(e);
        }
        let mut decisions = Vec::new();
        for d in &out.decisions {
            let e = json!({
                "id": d.id,
                "subject": prefix_chars(&d.subject, 120),
                "source": d.carried.as_ref().map(|c| c.source.as_str()),
                "inherited": d.carried_count(CarryState::Inherited),
                "re_verify": d.carried_count(CarryState::Reverify),
            });
            let bytes = wire::answer_bytes(&e);
            if spent + bytes > PAGE_ITEMS_BUDGET {
                left_out += 1;
                continue;
            }
            spent += bytes;
            decisions.push(e);
        }
        let mut answer = json!({
            "from": plan.from.revision,
            "to": plan.to.revision,
            "already_carried": out.already_carried,
            "records": {"inherited": ri, "re_verify": rr},
            "decisions": decisions,
            "re_verify": re_verify,
            "already_stated": out.already_stated,
        });
        if left_out > 0
            && let Value::Object(m) = &mut answer
        {
            m.insert("omitted".into(), json!(left_out));
        }
        let summary = if out.already_carried {
            format!(
                "Already carried: {} was carried to {} before; nothing changed.",
                short_rev(&plan.from.revision),
                short_rev(&plan.to.revision)
            )
        } else {
            format!(
                "Carried {} record{} and {} decision{} from {} to {}: {} item{} to re-verify, {} inherited (not re-verified); no verdict carried over. recall and recall_decisions with carried \"re-verify\" list the worklist.",
                out.records.len(),
                if out.records.len() == 1 { "" } else { "s" },
                out.decisions.len(),
                if out.decisions.len() == 1 { "" } else { "s" },
                short_rev(&plan.from.revision),
                short_rev(&plan.to.revision),
                rr + br,
                if rr + br == 1 { "" } else { "s" },
                ri + bi,
            )
        };
        ToolOutput::new(&answer, summary)
    })
}
