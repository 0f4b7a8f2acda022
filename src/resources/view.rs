//! The revision view: what a revision resource shows, loaded within a byte budget and
//! shrunk until its text fits in one answer line.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::ResourceError;
use crate::review::artifact::ArtifactTable;
use crate::review::{Decision, Record};
use crate::store::{DecisionQuery, PageRequest, RecordQuery, Store, Supersession};
use crate::wire::{self, MAX_ANSWER_ITEMS_BYTES, PAGE_ITEMS_BUDGET};

/// At most this many records and decisions of a revision are inlined in one read; the rest
/// are counted, and `recall` pages through all of them.
const READ_CAP: usize = 500;
/// At most this many stale records or decisions per file are listed in a revision read.
const STALE_CAP: usize = 100;
/// What the items of one revision read may cost, counted as the answer bytes of their
/// compact JSON (see `wire::answer_bytes`): a quarter of the answer bound, so that the
/// pretty-printed JSON (indented, then escaped into the answer) and the Markdown report
/// (escaped for the renderer) stay well under it. [`fit`] checks the text itself anyway.
const VIEW_BUDGET: usize = MAX_ANSWER_ITEMS_BYTES / 4;

/// `v` as indented JSON.
pub(super) fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// What `text` costs the answer line once escaped into its JSON string.
fn escaped_len(text: &str) -> usize {
    serde_json::to_string(text).map_or(usize::MAX, |s| s.len())
}

/// One item, pretty-printed when that fits in an answer line, else compact (every stored
/// item fits compact: see `wire::check_item_fits`).
pub(super) fn pretty_within(v: &Value) -> String {
    let text = pretty(v);
    if escaped_len(&text) <= MAX_ANSWER_ITEMS_BYTES {
        return text;
    }
    serde_json::to_string(v).unwrap_or_default()
}

/// The text `build` makes of the view, with the view's newest items halved until the text
/// fits in the answer bound (what is left out is counted in the view's `omitted`).
pub(super) fn fit(view: &mut RevisionView, build: impl Fn(&RevisionView) -> String) -> String {
    loop {
        let text = build(view);
        if escaped_len(&text) <= PAGE_ITEMS_BUDGET || !view.shrink() {
            return text;
        }
    }
}

/// Everything a revision resource shows.
pub(super) struct RevisionView {
    pub(super) revision: String,
    pub(super) records: Vec<Record>,
    pub(super) decisions: Vec<Decision>,
    /// How many of the revision's records and decisions are not shown: cut by [`READ_CAP`],
    /// the byte budget or [`fit`].
    pub(super) omitted_records: usize,
    pub(super) omitted_decisions: usize,
    /// Written for the same files at other revisions: stale against this one.
    pub(super) stale_records: Vec<Record>,
    pub(super) stale_decisions: Vec<Decision>,
    /// The revisions carried to this one and the one it was carried to (`carry_forward`).
    pub(super) supersession: Supersession,
}

impl RevisionView {
    /// The newest records and decisions of the revision, and what was written for the same
    /// files at other revisions, each list cut at its count cap and all of them together at
    /// [`VIEW_BUDGET`]: what is read is bounded in bytes, not only in rows (one record may be
    /// megabytes), and what is left out is counted.
    pub(super) fn load(store: &mut Store, revision: &str) -> Result<RevisionView, ResourceError> {
        let cur = Some(revision);
        let mut budget = VIEW_BUDGET;
        // The first item of the view is taken whatever it costs ([`fit`] decides).
        let mut take = |bytes: usize, first: bool| {
            if bytes > budget && !first {
                return false;
            }
            budget = budget.saturating_sub(bytes);
            true
        };
        let page = |limit| PageRequest {
            snapshot: None,
            after: None,
            limit,
        };
        let mut records = Vec::new();
        let rq = RecordQuery {
            revision: Some(revision.to_string()),
            ..RecordQuery::default()
        };
        store.recall_each(&rq, page(READ_CAP), |r| {
            let r = r.into_owned();
            let bytes = wire::answer_bytes(&r.wire(cur));
            if !take(bytes, records.is_empty()) {
                return false;
            }
            records.push(r);
            true
        })?;
        let mut decisions = Vec::new();
        let dq = DecisionQuery {
            revision: Some(revision.to_string()),
            ..DecisionQuery::default()
        };
        store.recall_decisions_each(&dq, page(READ_CAP), |d| {
            let bytes = wire::answer_bytes(&d.wire(cur));
            if !take(bytes, records.is_empty() && decisions.is_empty()) {
                return false;
            }
            decisions.push(d);
            true
        })?;
        if records.is_empty() && decisions.is_empty() {
            return Err(ResourceError::NotFound);
        }
        let (total_records, total_decisions) = store
            .revisions()?
            .into_iter()
            .find(|s| s.revision == revision)
            .map_or((0, 0), |s| (s.records, s.decisions));
        let uris: BTreeSet<String> = records
            .iter()
            .map(|r| &r.artifact)
            .chain(decisions.iter().map(|d| &d.artifact))
            .filter_map(|a| a.uri.clone())
            .collect();
        let mut stale_records = Vec::new();
        let mut stale_decisions = Vec::new();
        for uri in &uris {
            let q = RecordQuery {
                locator: Some(uri.clone()),
                ..RecordQuery::default()
            };
            store.recall_each(&q, page(STALE_CAP), |r| {
                // What was carried here is shown as carried (its copy at this revision), not
                // as a rival stale claim.
                if r.artifact.revision == revision
                    || r.superseded.as_ref().is_some_and(|s| s.by == revision)
                {
                    return true;
                }
                let r = r.into_owned();
                let bytes = wire::answer_bytes(&r.wire(cur));
                if !take(bytes, false) {
                    return false;
                }
                stale_records.push(r);
                true
            })?;
            let q = DecisionQuery {
                locator: Some(uri.clone()),
                ..DecisionQuery::default()
            };
            store.recall_decisions_each(&q, page(STALE_CAP), |d| {
                if d.artifact.revision == revision
                    || d.superseded.as_ref().is_some_and(|s| s.by == revision)
                {
                    return true;
                }
                let bytes = wire::answer_bytes(&d.wire(cur));
                if !take(bytes, false) {
                    return false;
                }
                stale_decisions.push(d);
                true
            })?;
        }
        // The worklist of a carried revision: what must be re-verified first, then what is
        // inherited, then what was stated at this revision (a stable sort: newest first
        // within each).
        records.sort_by_key(Record::worklist_rank);
        decisions.sort_by_key(Decision::worklist_rank);
        let supersession = store.supersession(revision)?;
        let omitted = |total: u64, shown: usize| {
            usize::try_from(total)
                .unwrap_or(usize::MAX)
                .saturating_sub(shown)
        };
        Ok(RevisionView {
            revision: revision.to_string(),
            omitted_records: omitted(total_records, records.len()),
            omitted_decisions: omitted(total_decisions, decisions.len()),
            records,
            decisions,
            stale_records,
            stale_decisions,
            supersession,
        })
    }

    /// Leaves out the later half of the largest list (stale items first), counting what the
    /// revision's own lists lose in `omitted`. False when there is nothing left to cut.
    fn shrink(&mut self) -> bool {
        if !self.stale_records.is_empty() || !self.stale_decisions.is_empty() {
            self.stale_records.truncate(self.stale_records.len() / 2);
            self.stale_decisions
                .truncate(self.stale_decisions.len() / 2);
            return true;
        }
        if self.records.len() + self.decisions.len() <= 1 {
            return false;
        }
        let (list_len, is_records) = if self.records.len() >= self.decisions.len() {
            (self.records.len(), true)
        } else {
            (self.decisions.len(), false)
        };
        let keep = list_len / 2;
        if is_records {
            self.omitted_records += self.records.len() - keep;
            self.records.truncate(keep);
        } else {
            self.omitted_decisions += self.decisions.len() - keep;
            self.decisions.truncate(keep);
        }
        true
    }

    /// A view of nothing recorded: what `show_review` answers for a revision before its first
    /// write.
    pub(super) fn empty(revision: &str) -> RevisionView {
        RevisionView {
            revision: revision.to_string(),
            records: Vec::new(),
            decisions: Vec::new(),
            omitted_records: 0,
            omitted_decisions: 0,
            stale_records: Vec::new(),
            stale_decisions: Vec::new(),
            supersession: Supersession::default(),
        }
    }

    /// Keeps only the decisions (current and stale) about `subject`.
    pub(super) fn only_subject(&mut self, subject: &str) {
        self.decisions.retain(|d| d.subject == subject);
        self.stale_decisions.retain(|d| d.subject == subject);
    }

    /// The review as `show_review` answers it: the revision resource's JSON, each basis item
    /// with the `digest` the review card's verdict buttons send back, plus the open questions
    /// (every unresolved or conflicting basis item of this revision's decisions, with the
    /// index the buttons send).
    pub(super) fn to_review(&self) -> Value {
        let mut v = self.to_json();
        let cur = Some(self.revision.as_str());
        let card =
            |list: &[Decision]| -> Value { list.iter().map(|d| d.to_card_wire(cur)).collect() };
        if let Some(d) = v.get_mut("decisions") {
            *d = card(&self.decisions);
        }
        if let Some(d) = v.get_mut("stale").and_then(|s| s.get_mut("decisions")) {
            *d = card(&self.stale_decisions);
        }
        let open: Vec<Value> = self
            .decisions
            .iter()
            .flat_map(|d| {
                d.basis.iter().enumerate().filter_map(move |(i, b)| {
                    let q = b.question.as_deref().filter(|_| b.state.needs_question())?;
                    Some(json!({
                        "decision_id": d.id,
                        "subject": d.subject,
                        "index": i,
                        "requirement": b.requirement,
                        "state": b.state.as_str(),
                        "question": q,
                    }))
                })
            })
            .collect();
        if let Value::Object(m) = &mut v {
            m.insert("open_questions".into(), Value::Array(open));
        }
        v
    }

    /// The review at full detail, the newest items halved until it fits in the answer bound
    /// (a tool answer carries the structure and its text copy).
    pub(super) fn fit_review(&mut self) -> Value {
        loop {
            let review = self.to_review();
            let bytes = wire::answer_bytes(&review).saturating_add(card_proof_bytes(&review));
            if bytes <= PAGE_ITEMS_BUDGET || !self.shrink() {
                return review;
            }
        }
    }

    /// The review in summary form: each decision (this revision's, then the stale ones) as
    /// a summary with its open questions, as many as fit in the answer bound, and how many
    /// records and decisions there are; the Markdown report resource has the rest.
    pub(super) fn summary(&self, counts: (u64, u64)) -> Value {
        let cur = Some(self.revision.as_str());
        let mut table = ArtifactTable::default();
        let mut artifacts = Vec::new();
        let mut spent = 1024;
        let mut lists = [Vec::new(), Vec::new()];
        let mut left_out = [0usize, 0usize];
        for (i, list) in [&self.decisions, &self.stale_decisions]
            .into_iter()
            .enumerate()
        {
            for d in list {
                let a = d.artifact.wire();
                let (index, entry) = table.find(&a, None, cur);
                let item = serde_json::to_value(d.summary_wire(index)).unwrap_or(Value::Null);
                let mut bytes = wire::answer_bytes(&item);
                if let Some(e) = &entry {
                    bytes += wire::answer_bytes(e);
                }
                if spent + bytes > PAGE_ITEMS_BUDGET {
                    left_out[i] += 1;
                    continue;
                }
                spent += bytes;
                if let Some(e) = entry {
                    table.keep(&e);
                    artifacts.push(serde_json::to_value(e).unwrap_or(Value::Null));
                }
                if let Some(l) = lists.get_mut(i) {
                    l.push(item);
                }
            }
        }
        let [decisions, stale_decisions] = lists;
        let (records, all_decisions) = counts;
        let mut v = json!({
            "revision": self.revision,
            "detail": "summary",
            "report": format!("{}{}{}", super::REVISIONS, self.revision, super::REPORT_SUFFIX),
            "artifacts": artifacts,
            "decisions": decisions,
            "stale_decisions": stale_decisions,
            "counts": {
                "records": records,
                "decisions": all_decisions,
                "stale_records": self.stale_records.len(),
                "stale_decisions": self.stale_decisions.len(),
            },
            "omitted": {
                "records": records,
                "decisions": self.omitted_decisions + left_out[0],
                "stale_decisions": left_out[1],
            },
        });
        self.add_supersession(&mut v);
        v
    }

    /// How many records and decisions the revision has (shown or not).
    pub(super) fn totals(&self) -> (u64, u64) {
        let n = |shown: usize, omitted: usize| u64::try_from(shown + omitted).unwrap_or(u64::MAX);
        (
            n(self.records.len(), self.omitted_records),
            n(self.decisions.len(), self.omitted_decisions),
        )
    }

    /// The revision resource as JSON, every item's `stale` judged against this revision.
    pub(super) fn to_json(&self) -> Value {
        let cur = Some(self.revision.as_str());
        let mut v = json!({
            "revision": self.revision,
            "records": self.records.iter().map(|r| r.to_wire(cur)).collect::<Vec<_>>(),
            "decisions": self.decisions.iter().map(|d| d.to_wire(cur)).collect::<Vec<_>>(),
            "omitted": {"records": self.omitted_records, "decisions": self.omitted_decisions},
            "stale": {
                "records": self.stale_records.iter().map(|r| r.to_wire(cur)).collect::<Vec<_>>(),
                "decisions": self.stale_decisions.iter().map(|d| d.to_wire(cur)).collect::<Vec<_>>(),
            },
        });
        self.add_supersession(&mut v);
        v
    }

    /// `supersedes` (the revisions carried to this one) and `superseded_by` (the revision this
    /// one was carried to), each with its `change`, when there are any.
    pub(super) fn add_supersession(&self, v: &mut Value) {
        let Value::Object(m) = v else {
            return;
        };
        let entry = |(rev, change): &(String, Option<String>)| {
            let mut e = json!({"revision": rev});
            if let (Some(c), Value::Object(o)) = (change, &mut e) {
                o.insert("change".into(), json!(crate::text::prefix_chars(c, 200)));
            }
            e
        };
        // The worklist of a carried revision, counted over what is shown: items (records and
        // basis items) to re-verify, inherited, and stated at this revision.
        let mut counts = [0usize; 3];
        let ranks = self.records.iter().map(Record::worklist_rank).chain(
            self.decisions
                .iter()
                .flat_map(|d| &d.basis)
                .map(|b| match b.carry_state() {
                    Some(crate::review::CarryState::Reverify) => 0,
                    Some(crate::review::CarryState::Inherited) => 1,
                    None => 2,
                }),
        );
        for rank in ranks {
            if let Some(c) = counts.get_mut(usize::from(rank)) {
                *c += 1;
            }
        }
        if let [re_verify, inherited, stated_here] = counts
            && re_verify + inherited > 0
        {
            m.insert(
                "worklist".into(),
                json!({"re_verify": re_verify, "inherited": inherited, "stated_here": stated_here}),
            );
        }
        let s = &self.supersession;
        if !s.supersedes.is_empty() {
            m.insert(
                "supersedes".into(),
                s.supersedes.iter().take(10).map(entry).collect(),
            );
        }
        if let Some(by) = &s.superseded_by {
            m.insert("superseded_by".into(), entry(by));
        }
    }
}

/// What the review card's proofs cost the answer that carries `review` (`show_review` puts
/// one per decision shown whole in its `_meta`, see `tools/card_proof.rs`): each entry is
/// `"<id>":"cp1.<32 hex>",`, and the members around them.
fn card_proof_bytes(review: &Value) -> usize {
    let lists = [
        review.get("decisions"),
        review.get("stale").and_then(|s| s.get("decisions")),
    ];
    let entries: usize = lists
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .filter(|d| d.get("basis").is_some_and(Value::is_array))
        .map(|d| d.get("id").and_then(Value::as_str).map_or(0, str::len) + 43)
        .sum();
    if entries == 0 { 0 } else { entries + 40 }
}
