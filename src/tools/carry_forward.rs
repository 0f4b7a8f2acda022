//! `carry_forward`: carry the records and decisions of one revision of a file to its next
//! revision, in one transaction (the rules: `review::carry`; the write: `store/carry.rs`).

use serde::Deserialize;
use serde_json::{Value, json};

use super::schema::{self as s, MAX_ENTITIES, MAX_ENTITY, MAX_SHORT, MAX_URI};
use super::{ArtifactArg, ToolError, ToolOutput, ToolSpec, short_rev};
use crate::review::CarryState;
use crate::review::carry::EntityMap;
use crate::store::{CarryPlan, Store};
use crate::text::prefix_chars;
use crate::wire::{self, PAGE_ITEMS_BUDGET};

pub const NAME: &str = "carry_forward";

/// The longest `change` (characters): a change order and its reason in a line or two. It is
/// copied into every item of the superseded revision and shown beside each, so it is kept
/// as short as a decision's subject (the longest text, 65,536, made every item of both
/// revisions over the answer bound).
pub const MAX_CHANGE: u64 = 1_000;

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
        description: "Part revision changed: carry its review from `from` to `to` (artifacts; `change`: why), not start again. \
`map`: old to new entity ids, others unmapped; `changed`: old ids that changed. Items touching those (whole-part ones if any changed) become re-verify, the rest inherited; no verdict carries over.",
        input_schema: {
            // Kept to about 1 KB in front of the model: the limits (revision form, lengths)
            // are checked by `run` with a message each.
            // `units` is read too (as in remember); any other member is refused by name.
            let artifact = json!({
                "type": "object",
                "properties": {"revision": {"type": "string"}, "format": {"type": "string"}, "uri": {"type": "string"}},
                "required": ["revision", "format"]
            });
            let text = json!({"type": "string"});
            json!({
                "type": "object",
                "properties": {
                    "from": artifact,
                    "to": artifact,
                    "map": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"from": text, "to": text},
                        "required": ["from", "to"]
                    }},
                    "changed": {"type": "array", "items": text},
                    "change": text
                },
                "required": ["from", "to", "map"],
                "additionalProperties": false
            })
        },
        output_schema: json!({
            "type": "object",
            "properties": {
                "already_carried": {"type": "boolean"},
                "records": {"type": "object"},
                "decisions": {"type": "array"},
                "re_verify": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "changed": {"type": "array", "items": {"type": "string"}},
                        "unmapped": {"type": "array", "items": {"type": "string"}}
                    },
                    "description": "changed, unmapped: absent when empty (neither: the part changed)."
                }},
                "already_stated": {"type": "integer", "minimum": 1, "description": "Absent when none."},
                "omitted": {"type": "integer", "minimum": 1, "description": "re_verify entries left out; absent when none."}
            },
            "required": ["already_carried", "records", "decisions", "re_verify"]
        }),
        annotations: s::annotations("Carry the review to a new revision", false, false, true),
        ui: super::Ui::None,
        run: |store, args, _| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

/// The limits the input schema leaves out (to stay small in front of the model), each
/// refused with what to fix; nothing is written. Lengths are in characters, as JSON Schema's
/// `maxLength` counts them in the other tools (an id `remember` took can be mapped).
fn check_limits(args: &Args) -> Result<(), ToolError> {
    let too_long = |what: &str, len: usize, max: u64| -> Result<(), ToolError> {
        if u64::try_from(len).unwrap_or(u64::MAX) > max {
            return Err(ToolError::Invalid(format!(
                "{what} is {len} characters long, over its limit of {max}; nothing was written"
            )));
        }
        Ok(())
    };
    let chars = |s: Option<&str>| s.map_or(0, |s| s.chars().count());
    for (name, a) in [("from", &args.from), ("to", &args.to)] {
        too_long(&format!("{name}.uri"), chars(a.uri.as_deref()), MAX_URI)?;
        too_long(
            &format!("{name}.units"),
            chars(a.units.as_deref()),
            MAX_SHORT,
        )?;
    }
    for (what, n) in [("map", args.map.len()), ("changed", args.changed.len())] {
        if u64::try_from(n).unwrap_or(u64::MAX) > MAX_ENTITIES {
            return Err(ToolError::Invalid(format!(
                "{what} has {n} entries, over its limit of {MAX_ENTITIES}; nothing was written"
            )));
        }
    }
    for id in args
        .map
        .iter()
        .flat_map(|p| [&p.from, &p.to])
        .chain(&args.changed)
    {
        too_long("an entity id", chars(Some(id)), MAX_ENTITY)?;
    }
    too_long("change", chars(args.change.as_deref()), MAX_CHANGE)
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    check_limits(&args)?;
    // Its schema leaves the revision's form to `normalise`: a short form is said as the
    // other tools' schema refusal says it.
    for (name, a) in [("from", &args.from), ("to", &args.to)] {
        if let Some(why) = super::short_revision_refused(store, &a.revision) {
            return Err(ToolError::Invalid(format!("{name}.revision: {why}")));
        }
    }
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
        // The ids named are `from`'s, or (an item still to re-verify from an earlier carry,
        // which found nothing new here) those of the revision `ids_of` names.
        // Each list only when it names an id: an entry with neither is re-verified because the
        // part changed.
        let entry = |mut e: Value, c: &crate::review::Carried| {
            // An id an earlier release's marker names both changed and unmapped, once.
            let changed: Vec<String> = c
                .changed_and_carried()
                .into_iter()
                .map(str::to_string)
                .collect();
            for (key, list) in [("changed", &changed), ("unmapped", &c.unmapped)] {
                if !list.is_empty() {
                    e[key] = json!(ids(list));
                }
            }
            if (!c.changed.is_empty() || !c.unmapped.is_empty())
                && c.ids_revision() != plan.from.revision
            {
                e["ids_of"] = json!(c.ids_revision());
            }
            e
        };
        let entries = out
            .records
            .iter()
            .filter_map(|r| {
                let c = r.carried.as_ref().filter(|c| c.state == CarryState::Reverify)?;
                Some(entry(json!({"record": r.id}), c))
            })
            .chain(out.decisions.iter().flat_map(|d| {
                d.basis.iter().enumerate().filter_map(move |(i, b)| {
                    let c = b.carried.as_ref().filter(|c| c.state == CarryState::Reverify)?;
                    Some(entry(json!({"decision": d.id, "index": i}), c))
                })
            }));
        // Each entry kept while the answer so far stays within `bound`, else counted.
        let mut keep = |e: Value, bound: usize, list: &mut Vec<Value>| {
            let bytes = wire::answer_bytes(&e);
            if spent + bytes > bound {
                left_out += 1;
            } else {
                spent += bytes;
                list.push(e);
            }
        };
        for e in entries {
            keep(e, PAGE_ITEMS_BUDGET / 2, &mut re_verify);
        }
        ids_of_once(&mut re_verify, [&plan.from.revision, &plan.to.revision]);
        let mut decisions = Vec::new();
        for d in &out.decisions {
            let e = json!({
                "id": d.id,
                "subject": prefix_chars(&d.subject, 120),
                "source": d.carried.as_ref().map(|c| c.source.as_str()),
                "inherited": d.carried_count(CarryState::Inherited),
                "re_verify": d.carried_count(CarryState::Reverify),
            });
            keep(e, PAGE_ITEMS_BUDGET, &mut decisions);
        }
        // Not the call's own `from` and `to` again; a count only when it is not 0.
        let mut answer = json!({
            "already_carried": out.already_carried,
            "records": {"inherited": ri, "re_verify": rr},
            "decisions": decisions,
            "re_verify": re_verify,
        });
        for (key, n) in [("already_stated", out.already_stated), ("omitted", left_out)] {
            if n > 0 {
                answer[key] = json!(n);
            }
        }
        let mut summary = if out.already_carried && out.to_emptied {
            // What the carry wrote there was forgotten: saying "nothing changed" and how to
            // re-verify items that are not there would send the model looking for them.
            format!(
                "Already carried: {from} was carried to {to} before, and what was carried there was forgotten since (nothing is recorded at {to}); nothing changed: a revision is carried once. State the review at {to} again with remember and remember_decision.",
                from = short_rev(&plan.from.revision),
                to = short_rev(&plan.to.revision)
            )
        } else if out.already_carried {
            // A second call is often a corrected one (`changed` forgotten the first time):
            // say that its arguments were not applied, and what makes an item fresh.
            format!(
                "Already carried: {from} was carried to {to} before; nothing changed: this call's map and changed were not applied (a revision is carried once). An item that carry left inherited but that did change: state it again at {to} (remember, remember_decision) or ask the engineer with request_verdicts and its items; either makes it this revision's.",
                from = short_rev(&plan.from.revision),
                to = short_rev(&plan.to.revision)
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
        if out.already_stated > 0 {
            // Left as stated at `to`, their copies at `from` superseded: not carried, and the
            // model must know what it did not carry.
            summary.push_str(&format!(
                " {} already stated at {} (a feature of the same name, a decision of the same subject): left as stated there, not carried; their copies at {} are marked superseded.",
                out.already_stated,
                short_rev(&plan.to.revision),
                short_rev(&plan.from.revision)
            ));
        }
        ToolOutput::new(&answer, summary)
    })
}

/// Each revision an `ids_of` names is said whole once, in the first entry naming it, and by
/// its short form (`sha256:` and 12 hex digits, `…`) in the entries after: the items still to
/// re-verify from an earlier carry all name the same one or two revisions (a fifth of a
/// carry's answer said the same revision again). A short form another revision of the answer
/// or of the call (`call`: its `from` and `to`) shares stays whole. The answer was counted
/// with every one whole: it only gets smaller.
fn ids_of_once(entries: &mut [Value], call: [&String; 2]) {
    let named = entries
        .iter()
        .filter_map(|e| e["ids_of"].as_str().map(str::to_string))
        .chain(call.into_iter().cloned());
    let mut once = super::WholeOnce::among(named);
    for e in entries {
        once.name_at(e, "/ids_of");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::Artifact;
    use crate::store::{NewDecision, StoreError};
    use std::sync::mpsc;
    use std::time::Duration;

    fn at(c: char) -> Artifact {
        Artifact {
            revision: format!("sha256:{}", c.to_string().repeat(64)),
            format: "step".into(),
            uri: Some("file:///p.step".into()),
            units: None,
        }
    }

    /// Regression: two servers on one file carrying the same review at once. The one that
    /// came second looked whether `to` was empty before its write transaction, saw it empty
    /// (the other's carry not committed yet), then found the carry made and answered that
    /// what was carried to `to` "was forgotten since (nothing is recorded at …)": nothing
    /// was forgotten, and the model was told to state the whole review again.
    #[test]
    fn a_carry_made_meanwhile_by_another_server_is_not_said_forgotten() {
        let dir = std::env::temp_dir().join(format!("review-mcp-carry-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("review.db");
        let mut store = Store::open(&db).unwrap();
        store
            .remember_decision(&NewDecision {
                artifact: at('a'),
                subject: "bore".into(),
                disposition: "hold".into(),
                summary: None,
                basis: vec![],
            })
            .unwrap();
        let (inside, go_on) = (mpsc::channel(), mpsc::channel::<()>());
        let other = {
            let db = db.clone();
            let (inside, go_on) = (inside.0, go_on.1);
            std::thread::spawn(move || {
                let mut store = Store::open(&db).unwrap();
                let plan = CarryPlan {
                    from: at('a'),
                    to: at('b'),
                    map: EntityMap::default(),
                    change: None,
                };
                store
                    .carry_forward_answered(&plan, |_| {
                        // Written, not committed: the first server's call starts now.
                        inside.send(()).unwrap();
                        let _ = go_on.recv_timeout(Duration::from_millis(300));
                        Ok::<_, StoreError>(())
                    })
                    .unwrap();
            })
        };
        inside.1.recv().unwrap();
        let args: Args = super::super::parse(
            NAME,
            &serde_json::json!({"from": at('a'), "to": at('b'), "map": []}),
        )
        .unwrap();
        let answer = run(&mut store, args).unwrap();
        drop(go_on.0);
        other.join().unwrap();
        assert!(
            answer.summary.starts_with("Already carried") && !answer.summary.contains("forgotten"),
            "{}",
            answer.summary
        );
        drop(store);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
