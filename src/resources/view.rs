//! The revision view: what a revision resource shows, loaded within a byte budget and
//! shrunk until its text fits in one answer line.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::ResourceError;
use crate::review::artifact::ArtifactTable;
use crate::review::carry::VerdictAfterCarry;
use crate::review::{Decision, Record};
use crate::store::{DecisionQuery, PageRequest, RecordQuery, Store, Supersession, Trail};
use crate::tools::WholeOnce;
use crate::wire::{self, MAX_ANSWER_ITEMS_BYTES, PAGE_ITEMS_BUDGET};

/// At most this many records and decisions of a revision are inlined in one read; the rest
/// are counted, and `recall` pages through all of them.
const READ_CAP: usize = 500;
/// At most this many stale records or decisions per file are listed in a revision read.
const STALE_CAP: usize = 100;
/// What the items of one revision read may cost, counted as the answer bytes of their
/// compact JSON (see `wire::answer_bytes`): a quarter of the answer bound, so that the JSON
/// (escaped into the answer) and the Markdown report (escaped for the renderer) stay well
/// under it. [`fit`] checks the text itself anyway.
const VIEW_BUDGET: usize = MAX_ANSWER_ITEMS_BYTES / 4;

/// The latest changes of each decision the report and the review card show, one line each;
/// the rest are counted and named (`review_history` pages through all of them).
pub(super) const TRAIL_LINES: usize = 5;

/// What `text` costs the answer line once escaped into its JSON string.
pub(super) fn escaped_len(text: &str) -> usize {
    serde_json::to_string(text).map_or(usize::MAX, |s| s.len())
}

/// One item as a resource's text: compact JSON, as every JSON the server writes (indentation
/// was a third of the text, for a reader that is a model), cut to fit when it is larger than
/// the answer bound (see [`wire::fit_item`]), naming `whole`, where its parts are.
pub(super) fn item_text(v: Value, whole: &str) -> String {
    let compact = wire::to_json(&v).unwrap_or_default();
    if escaped_len(&compact) <= PAGE_ITEMS_BUDGET {
        return compact;
    }
    wire::to_json(&wire::fit_item(v, PAGE_ITEMS_BUDGET, whole)).unwrap_or_default()
}

/// The text `build` makes of the view, with the view's lists cut ([`RevisionView::shrink`]) until the text
/// fits in the answer bound (what is left out is counted in the view's `omitted`), then,
/// when `cut_items` and one item alone is too large, that item cut to fit (see
/// [`RevisionView::tighten`]). The caller checks the text: a Markdown report of one item too
/// large is cut by [`cut_text`].
pub(super) fn fit(
    view: &mut RevisionView,
    cut_items: bool,
    build: impl Fn(&RevisionView) -> String,
) -> String {
    loop {
        let text = build(view);
        let bytes = escaped_len(&text);
        if bytes <= PAGE_ITEMS_BUDGET
            || !(view.oversize(cut_items) || view.shrink(bytes) || (cut_items && view.tighten()))
        {
            return text;
        }
    }
}

/// `text` cut where it would pass the answer bound, ended by `note` (which says so).
pub(super) fn cut_text(mut text: String, note: &str) -> String {
    if escaped_len(&text) <= PAGE_ITEMS_BUDGET {
        return text;
    }
    let room = PAGE_ITEMS_BUDGET.saturating_sub(escaped_len(note) + 64);
    let mut spent = 0;
    let mut end = text.len();
    for (i, c) in text.char_indices() {
        spent += match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if u32::from(c) < 0x20 => 6,
            c => c.len_utf8(),
        };
        if spent > room {
            end = i;
            break;
        }
    }
    let cut = text.len() - end;
    text.truncate(end);
    text.push_str(&format!("\n\n{note} ({cut} bytes cut here.)\n"));
    text
}

/// Everything a revision resource shows.
#[derive(Default)]
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
    /// The trail of each of this revision's decisions, by id: its latest changes.
    pub(super) trails: BTreeMap<String, Trail>,
    /// When the database began recording its history.
    pub(super) history_since: Option<String>,
    /// The engineer's verdicts given at an earlier revision after its review was carried to
    /// this revision's decisions (`Store::verdicts_after_carry`), with each decision's id and
    /// subject.
    pub(super) after_carry: Vec<(String, String, VerdictAfterCarry)>,
    /// The ids of the decisions and records shown (this revision's and the stale ones)
    /// carried on to a later revision and forgotten there since
    /// (`Store::unsaid_carried_on`): no revision holds their review, and they are to be
    /// stated again, not judged where they were carried.
    pub(super) forgotten: BTreeSet<String>,
    /// For this revision's decisions carried on, then carried on again from the revision
    /// they went to: the revision their review stands at now, by id
    /// (`Store::stands_at`, which the form's refusal names too).
    pub(super) stands_at: BTreeMap<String, String>,
    /// What one item may cost an answer (see `wire::answer_bytes`) before it is cut to fit:
    /// no limit (`None`) until one item alone is too large for the answer (see
    /// [`Self::tighten`]).
    item_allowance: Option<usize>,
    /// No item left is too large for half the answer (see [`Self::oversize`]): the lists only
    /// shrink and the allowance only falls, so it is checked until it holds, then no more.
    no_oversize: bool,
}

impl RevisionView {
    /// The newest records and decisions of the revision, and what was written for the same
    /// files at other revisions, each list cut at its count cap and all of them together at
    /// [`VIEW_BUDGET`]: what is read is bounded in bytes, not only in rows (one record may be
    /// megabytes), and what is left out is counted. With `subject`, only the decisions about
    /// it (this revision's and the stale ones) are read and counted: looked up as such, not
    /// picked out of the newest the view has room for.
    ///
    /// `file` (the `uri` a caller named with the revision, normalised) is one of the files
    /// whose other revisions are stale against this one, as the files of its own items are:
    /// a revision with nothing recorded yet (the part just changed) still shows what its file
    /// said at earlier revisions. Without it, a revision with nothing recorded is not found.
    pub(super) fn load(
        store: &mut Store,
        revision: &str,
        subject: Option<&str>,
        file: Option<&str>,
    ) -> Result<RevisionView, ResourceError> {
        let cur = Some(revision);
        let mut budget = VIEW_BUDGET;
        // The first item of each list is taken whatever it costs ([`fit`] decides), and the
        // decisions are read first: they are the review, and one record of megabytes (10,000
        // long entity ids) must not leave them out.
        let mut take = |bytes: usize, first: bool| {
            if bytes > budget && !first {
                return false;
            }
            budget = budget.saturating_sub(bytes);
            true
        };
        let mut decisions = Vec::new();
        let dq = DecisionQuery {
            revision: Some(revision.to_string()),
            subject: subject.map(str::to_string),
            ..DecisionQuery::default()
        };
        store.recall_decisions_each(&dq, PageRequest::first(READ_CAP), |d| {
            let bytes = wire::answer_bytes(&d.wire(cur));
            if !take(bytes, decisions.is_empty()) {
                return false;
            }
            decisions.push(d);
            true
        })?;
        let mut records = Vec::new();
        let rq = RecordQuery {
            revision: Some(revision.to_string()),
            ..RecordQuery::default()
        };
        store.recall_each(&rq, PageRequest::first(READ_CAP), |r| {
            let r = r.into_owned();
            let bytes = wire::answer_bytes(&r.wire(cur));
            if !take(bytes, records.is_empty()) {
                return false;
            }
            records.push(r);
            true
        })?;
        if records.is_empty() && decisions.is_empty() && file.is_none() {
            return Err(ResourceError::NotFound);
        }
        let (total_records, mut total_decisions) = store.revision_counts(revision)?;
        if subject.is_some() {
            total_decisions = store.revision_tallies(revision, subject, None)?.decisions;
        }
        let uris: BTreeSet<String> = records
            .iter()
            .map(|r| &r.artifact)
            .chain(decisions.iter().map(|d| &d.artifact))
            .filter_map(|a| a.uri.clone())
            .chain(file.map(str::to_string))
            .collect();
        let mut stale_records = Vec::new();
        let mut stale_decisions = Vec::new();
        // What was carried on from its revision (superseded) is not a claim of its own: the
        // copy it was carried to says it now, here (what was carried here, directly or
        // through earlier carries, is shown as carried) or at that later revision, listed
        // itself when stale. Listing both said the same claim twice. Unless every copy was
        // forgotten since: then nothing else says it, and it is stale like any other (the
        // store decides which: `Store::unsaid_carried_on`).
        let mut carried_on_records = Vec::new();
        let mut carried_on_decisions = Vec::new();
        for uri in &uris {
            // The copies a later copy still says are left out by the query (`recall`'s
            // `current_only`): read and set aside here, they took the rows of the cap.
            let q = RecordQuery {
                locator: Some(uri.clone()),
                current_only: true,
                ..RecordQuery::default()
            };
            store.recall_each(&q, PageRequest::first(STALE_CAP), |r| {
                if r.artifact.revision == revision {
                    return true;
                }
                let r = r.into_owned();
                if r.superseded.is_some() {
                    carried_on_records.push(r);
                    return true;
                }
                let bytes = wire::answer_bytes(&r.wire(cur));
                if !take(bytes, false) {
                    return false;
                }
                stale_records.push(r);
                true
            })?;
            let q = DecisionQuery {
                locator: Some(uri.clone()),
                subject: subject.map(str::to_string),
                ..DecisionQuery::default()
            };
            store.recall_decisions_each(&q, PageRequest::first(STALE_CAP), |d| {
                if d.artifact.revision == revision {
                    return true;
                }
                if d.superseded.is_some() {
                    carried_on_decisions.push(d);
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
        let unsaid = store.unsaid_carried_on(
            &carried_on_decisions
                .iter()
                .map(|d| d.id.as_str())
                .collect::<Vec<_>>(),
            &carried_on_records
                .iter()
                .map(|r| r.id.as_str())
                .collect::<Vec<_>>(),
        )?;
        for r in carried_on_records {
            if unsaid.contains(&r.id) && take(wire::answer_bytes(&r.wire(cur)), false) {
                stale_records.push(r);
            }
        }
        for d in carried_on_decisions {
            if unsaid.contains(&d.id) && take(wire::answer_bytes(&d.wire(cur)), false) {
                stale_decisions.push(d);
            }
        }
        // The worklist of a carried revision: what must be re-verified first, then what is
        // inherited, then what was stated at this revision (a stable sort: newest first
        // within each).
        records.sort_by_key(Record::worklist_rank);
        decisions.sort_by_key(Decision::worklist_rank);
        let mut forgotten = store.unsaid_carried_on(
            &decisions
                .iter()
                .filter(|d| d.superseded.is_some())
                .map(|d| d.id.as_str())
                .collect::<Vec<_>>(),
            &records
                .iter()
                .filter(|r| r.superseded.is_some())
                .map(|r| r.id.as_str())
                .collect::<Vec<_>>(),
        )?;
        forgotten.extend(unsaid);
        let mut stands_at = BTreeMap::new();
        for d in decisions.iter().filter(|d| !forgotten.contains(&d.id)) {
            if let Some(by) = d.superseded.as_ref().map(|s| s.by.as_str()) {
                let (now, _) = store.stands_at(by, &d.subject)?;
                if now != by {
                    stands_at.insert(d.id.clone(), now);
                }
            }
        }
        let supersession = store.supersession(revision)?;
        let ids: Vec<&str> = decisions.iter().map(|d| d.id.as_str()).collect();
        let (trails, history_since) = store.trails(&ids, TRAIL_LINES)?;
        let trails = ids.iter().map(|id| (*id).to_string()).zip(trails).collect();
        let carried: Vec<Decision> = decisions
            .iter()
            .filter(|d| d.basis.iter().any(|b| b.carried.is_some()))
            .cloned()
            .collect();
        let after_carry = carried
            .iter()
            .zip(store.verdicts_after_carry_of(&carried)?)
            .flat_map(|(d, after)| {
                after
                    .into_iter()
                    .map(|a| (d.id.clone(), d.subject.clone(), a))
            })
            .collect();
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
            trails,
            history_since,
            after_carry,
            forgotten,
            stands_at,
            item_allowance: None,
            no_oversize: false,
        })
    }

    /// Halves what one item may cost (from the whole answer's budget), for a view whose one
    /// item is too large: false when there is nothing left to cut.
    fn tighten(&mut self) -> bool {
        self.item_allowance = match self.item_allowance {
            None => Some(PAGE_ITEMS_BUDGET),
            Some(a) if a < 1024 => return false,
            Some(a) => Some(a / 2),
        };
        true
    }

    /// For a text that does not fit: an item larger than the whole answer (a record of
    /// 10,000 long entity ids) leaves the others no room, and [`Self::shrink`] cuts lists by
    /// count, so a list of many small items went down to one before the one large item was
    /// touched. With `cut_items` every item is then cut to half the answer at most (see
    /// [`Self::fitted`]); else such an item is left out, counted in `omitted` when it is the
    /// revision's own, unless it is all the view shows. False when there is none, or it was
    /// done.
    fn oversize(&mut self, cut_items: bool) -> bool {
        let half = PAGE_ITEMS_BUDGET / 2;
        if self.no_oversize || self.item_allowance.is_some_and(|a| a <= half) {
            return false;
        }
        let cur = Some(self.revision.as_str());
        let large_record = |r: &Record| wire::answer_bytes(&r.wire(cur)) > PAGE_ITEMS_BUDGET;
        let large_decision = |d: &Decision| wire::answer_bytes(&d.wire(cur)) > PAGE_ITEMS_BUDGET;
        let any = self
            .records
            .iter()
            .chain(&self.stale_records)
            .any(large_record)
            || self
                .decisions
                .iter()
                .chain(&self.stale_decisions)
                .any(large_decision);
        if !any {
            self.no_oversize = true;
            return false;
        }
        if cut_items {
            self.item_allowance = Some(half);
            return true;
        }
        let small = self
            .records
            .iter()
            .chain(&self.stale_records)
            .any(|r| !large_record(r))
            || self
                .decisions
                .iter()
                .chain(&self.stale_decisions)
                .any(|d| !large_decision(d));
        if !small {
            // All it shows: kept, for the caller to cut.
            self.no_oversize = true;
            return false;
        }
        let (records, decisions) = (self.records.len(), self.decisions.len());
        self.records.retain(|r| !large_record(r));
        self.decisions.retain(|d| !large_decision(d));
        self.stale_records.retain(|r| !large_record(r));
        self.stale_decisions.retain(|d| !large_decision(d));
        self.omitted_records += records - self.records.len();
        self.omitted_decisions += decisions - self.decisions.len();
        self.no_oversize = true;
        true
    }

    /// `v`, the wire form of item `id` read at `resource`, cut to the view's item allowance.
    fn fitted(&self, v: Value, resource: &str, id: &str) -> Value {
        let Some(allowance) = self.item_allowance else {
            return v;
        };
        wire::fit_item(v, allowance, &format!("{resource}{id}/part/1"))
    }

    /// Where the whole of each item shown is read, for a Markdown report cut short.
    pub(super) fn whole_items(&self) -> String {
        let records = self.records.iter().chain(&self.stale_records);
        let decisions = self.decisions.iter().chain(&self.stale_decisions);
        records
            .map(|r| format!("{}{}/part/1", super::RECORDS, r.id))
            .chain(decisions.map(|d| format!("{}{}/part/1", super::DECISIONS, d.id)))
            .take(5)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Leaves out the later items of the largest list (stale items first), counting what the
    /// revision's own lists lose in `omitted`, for a text of `bytes` that does not fit: the
    /// share of the list the answer bound has room for (a tenth less, for what does not
    /// shrink with it), at most all but one and at least half. Halving alone left as little as
    /// half the bound used (4 of 37 decisions in a 16 KB report). False when there is
    /// nothing left to cut.
    fn shrink(&mut self, bytes: usize) -> bool {
        let keep = |n: usize| {
            let share = n.saturating_mul(PAGE_ITEMS_BUDGET) / bytes.max(1) * 9 / 10;
            share.clamp(n / 2, n.saturating_sub(1))
        };
        if !self.stale_records.is_empty() || !self.stale_decisions.is_empty() {
            self.stale_records.truncate(keep(self.stale_records.len()));
            self.stale_decisions
                .truncate(keep(self.stale_decisions.len()));
            return true;
        }
        if self.records.len() + self.decisions.len() <= 1 {
            return false;
        }
        if self.records.len() >= self.decisions.len() {
            let kept = keep(self.records.len());
            self.omitted_records += self.records.len() - kept;
            self.records.truncate(kept);
        } else {
            let kept = keep(self.decisions.len());
            self.omitted_decisions += self.decisions.len() - kept;
            self.decisions.truncate(kept);
        }
        true
    }

    /// A view of nothing recorded: what `show_review` answers for a revision before its first
    /// write.
    pub(super) fn empty(revision: &str) -> RevisionView {
        RevisionView {
            revision: revision.to_string(),
            ..RevisionView::default()
        }
    }

    /// The review as `show_review` answers it: the revision resource's JSON, each basis item
    /// with the `digest` the review card's verdict buttons send back, plus the open questions
    /// (every unresolved or conflicting basis item of this revision's decisions, with the
    /// index the buttons send).
    pub(super) fn to_review(&self) -> Value {
        let mut v = self.to_json();
        let cur = Some(self.revision.as_str());
        let card = |list: &[Decision]| -> Vec<Value> {
            list.iter()
                .map(|d| {
                    let after: Vec<_> = self
                        .after_carry
                        .iter()
                        .filter(|(id, _, _)| *id == d.id)
                        .map(|(_, _, a)| a.clone())
                        .collect();
                    let mut v = d.to_card_wire(cur, &after);
                    // The card says it is to be stated again, not judged where it went; or,
                    // carried on again from there, where its review stands now.
                    if let Some(Value::Object(s)) = v.get_mut("superseded") {
                        if self.forgotten.contains(&d.id) {
                            s.insert("forgotten".into(), Value::Bool(true));
                        } else if let Some(now) = self.stands_at.get(&d.id) {
                            s.insert("stands_at".into(), Value::String(now.clone()));
                        }
                    }
                    if let (Some(t), Value::Object(m)) = (self.trails.get(&d.id), &mut v) {
                        m.insert(
                            "trail".into(),
                            trail_wire(t, &d.id, self.history_since.as_deref()),
                        );
                    }
                    self.fitted(v, super::DECISIONS, &d.id)
                })
                .collect()
        };
        let decisions = card(&self.decisions);
        // The open questions of the decisions as shown (a decision cut to fit says so).
        let open: Vec<Value> = decisions
            .iter()
            .flat_map(|d| {
                let basis = d.get("basis").and_then(Value::as_array);
                basis
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .filter_map(move |(i, b)| {
                        let state = b.get("state").and_then(Value::as_str)?;
                        let q = b.get("question").filter(|_| {
                            crate::review::State::parse(state).is_some_and(|s| s.needs_question())
                        })?;
                        Some(json!({
                            "decision_id": d.get("id"),
                            "subject": d.get("subject"),
                            "index": i,
                            "requirement": b.get("requirement"),
                            "state": state,
                            "question": q,
                        }))
                    })
            })
            .collect();
        // `to_json` is an object with these members.
        v["decisions"] = Value::Array(decisions);
        v["stale"]["decisions"] = Value::Array(card(&self.stale_decisions));
        v["open_questions"] = Value::Array(open);
        v
    }

    /// The review at full detail, its lists cut ([`Self::shrink`]) until it fits in the answer bound
    /// (a tool answer carries the structure and its text copy).
    pub(super) fn fit_review(&mut self) -> Value {
        loop {
            let review = self.to_review();
            let bytes = wire::answer_bytes(&review).saturating_add(card_proof_bytes(&review));
            if bytes <= PAGE_ITEMS_BUDGET
                || !(self.oversize(true) || self.shrink(bytes) || self.tighten())
            {
                return review;
            }
        }
    }

    /// The review in summary form: each decision (this revision's, then the stale ones) as
    /// a summary with its open questions, as many as fit in the answer bound, and how many
    /// records and decisions there are (and stale ones: `stale`, counted over everything
    /// stored); the Markdown report resource has the rest.
    pub(super) fn summary(&self, counts: (u64, u64), stale: (u64, u64)) -> Value {
        let cur = Some(self.revision.as_str());
        let mut table = ArtifactTable::default();
        let mut artifacts = Vec::new();
        // What does not shrink with the lists: the members around them and the carries
        // (`supersedes`, `superseded_by`, `worklist`).
        let mut carries = json!({});
        self.add_supersession(&mut carries);
        let mut spent = 1024 + wire::answer_bytes(&carries);
        let mut short_from = short_from(self, &carries);
        let mut lists = [Vec::new(), Vec::new()];
        let mut left_out = [0usize, 0usize];
        for (i, list) in [&self.decisions, &self.stale_decisions]
            .into_iter()
            .enumerate()
        {
            for d in list {
                let a = d.artifact.wire();
                let (index, entry) = table.find(
                    &a,
                    None,
                    d.superseded
                        .as_ref()
                        .map(crate::review::Superseded::page_ref),
                    cur,
                );
                let mut item = serde_json::to_value(d.summary_wire(index)).unwrap_or(Value::Null);
                // What the answer said before this decision, should it be left out.
                let said_before = short_from.clone();
                short_from.name_at(&mut item, "/carried/from");
                // One summary larger than half the answer is cut to fit, saying so.
                let whole = format!("{}{}/part/1", super::DECISIONS, d.id);
                let item = wire::fit_item(item, PAGE_ITEMS_BUDGET / 2, &whole);
                let mut bytes = wire::answer_bytes(&item);
                if let Some(e) = &entry {
                    bytes += wire::answer_bytes(e);
                }
                if spent + bytes > PAGE_ITEMS_BUDGET {
                    left_out[i] += 1;
                    short_from = said_before;
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
        let (stale_records, all_stale_decisions) = stale;
        let listed = u64::try_from(stale_decisions.len()).unwrap_or(u64::MAX);
        // Each thing said once: the revision at the top (not again in its own table entry),
        // each count in `counts`; `omitted` and `stale_decisions` only when they hold
        // something (the summary lists no records: `counts` has how many).
        for a in &mut artifacts {
            if let Some(entry) = a.as_object_mut()
                && entry.get("revision").and_then(Value::as_str) == cur
            {
                entry.remove("revision");
            }
        }
        let omitted: serde_json::Map<String, Value> = [
            (
                "decisions",
                u64::try_from(self.omitted_decisions + left_out[0]).unwrap_or(u64::MAX),
            ),
            (
                "stale_decisions",
                all_stale_decisions.saturating_sub(listed),
            ),
        ]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| (k.to_string(), json!(n)))
        .collect();
        let mut v = json!({
            "revision": self.revision,
            "detail": "summary",
            "report": format!("{}{}{}", super::REVISIONS, self.revision, super::REPORT_SUFFIX),
            "artifacts": artifacts,
            "decisions": decisions,
            "counts": {
                "records": records,
                "decisions": all_decisions,
                "stale_records": stale_records,
                "stale_decisions": all_stale_decisions,
            },
        });
        if !stale_decisions.is_empty() {
            v["stale_decisions"] = Value::Array(stale_decisions);
        }
        if !omitted.is_empty() {
            v["omitted"] = Value::Object(omitted);
        }
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
            "records": self.records.iter().map(|r| self.fitted(r.to_wire(cur), super::RECORDS, &r.id)).collect::<Vec<_>>(),
            "decisions": self.decisions.iter().map(|d| self.fitted(d.to_wire(cur), super::DECISIONS, &d.id)).collect::<Vec<_>>(),
            "omitted": {"records": self.omitted_records, "decisions": self.omitted_decisions},
            "stale": {
                "records": self.stale_records.iter().map(|r| self.fitted(r.to_wire(cur), super::RECORDS, &r.id)).collect::<Vec<_>>(),
                "decisions": self.stale_decisions.iter().map(|d| self.fitted(d.to_wire(cur), super::DECISIONS, &d.id)).collect::<Vec<_>>(),
            },
        });
        self.add_supersession(&mut v);
        if !self.after_carry.is_empty() {
            v["verdicts_after_carry"] = self
                .after_carry
                .iter()
                .take(super::AFTER_CARRY_LISTED)
                .map(|(id, _, a)| a.wire(id))
                .collect();
        }
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
                o.insert("change".into(), json!(change_shown(c)));
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
        // Inherited with the engineer's rejection at the earlier revision as its history: no
        // channel asks about it again, so the worklist says how many, or a model reading
        // "inherited" takes the disputed items as settled.
        let rejected = self
            .decisions
            .iter()
            .flat_map(|d| &d.basis)
            .filter(|b| {
                b.carried.as_ref().is_some_and(|c| {
                    c.state == crate::review::CarryState::Inherited
                        && c.verdict
                            .as_ref()
                            .is_some_and(|v| v.judgement == crate::review::Judgement::Rejected)
                })
            })
            .count();
        if let [re_verify, inherited, stated_here] = counts
            && re_verify + inherited > 0
        {
            let mut w =
                json!({"re_verify": re_verify, "inherited": inherited, "stated_here": stated_here});
            if rejected > 0
                && let Value::Object(o) = &mut w
            {
                o.insert("inherited_rejected".into(), json!(rejected));
            }
            m.insert("worklist".into(), w);
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

/// A carried decision's `carried.from` in the review's summary: every decision a carry
/// brought here names the revision it came from (five decisions said it five times, 71 bytes
/// each). The first decision that names it says it whole, the ones after by its short form
/// (see `WholeOnce`: no other revision of the answer may share that form), though the
/// summary's `supersedes` names it whole too: the answer's members are in the order of their
/// names, and `decisions` comes before `supersedes`, so a short form there would come before
/// any whole one.
fn short_from(review: &RevisionView, carries: &Value) -> WholeOnce {
    let mut every = vec![review.revision.clone()];
    every.extend(
        carries["superseded_by"]["revision"]
            .as_str()
            .map(str::to_string),
    );
    every.extend(
        carries["supersedes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["revision"].as_str())
            .map(str::to_string),
    );
    for d in review.decisions.iter().chain(&review.stale_decisions) {
        every.push(d.artifact.revision.clone());
        every.extend(d.carried.as_ref().map(|c| c.from.clone()));
    }
    WholeOnce::among(every)
}

/// What a review shows of a carry's `change`: its first 200 characters, fewer when they
/// would cost the answer more than 200 plain characters do (a control character is six bytes
/// escaped, seven in the text copy), so ten of them cannot crowd the review out of its bound.
fn change_shown(change: &str) -> String {
    const CHARS: usize = 200;
    let room = wire::answer_bytes(&"x".repeat(CHARS));
    let mut n = change.chars().count().min(CHARS);
    while n > 0 && wire::answer_bytes(&crate::text::prefix_chars(change, n)) > room {
        n = n * 3 / 4;
    }
    crate::text::prefix_chars(change, n)
}

/// A decision's trail as the review card is given it: `lines` (one per change, newest
/// first, see `Event::line`), `earlier` (how many older changes are not listed: read them
/// with `history`, the tool call that lists them), and `not_recorded_before` when the
/// decision began before the history did.
pub(super) fn trail_wire(t: &Trail, id: &str, since: Option<&str>) -> Value {
    let lines: Vec<String> = t.events.iter().map(|e| e.line()).collect();
    let earlier = t
        .total
        .saturating_sub(u64::try_from(lines.len()).unwrap_or(u64::MAX));
    let mut v = json!({"lines": lines});
    if earlier > 0 {
        v["earlier"] = json!(earlier);
        v["history"] = json!(format!("review_history {{\"id\": \"{id}\"}}"));
    }
    if t.earlier_unrecorded {
        v["not_recorded_before"] = json!(since.unwrap_or("this version"));
    }
    v
}

/// What the review card's proofs cost the answer that carries `review` (`show_review` puts
/// one per decision of the revision shown whole in its `_meta`, see `tools/card_proof.rs`): each entry is
/// `"<id>":"cp1.<n>.<32 hex>",` (`n` up to four digits), and the members around them.
fn card_proof_bytes(review: &Value) -> usize {
    let entries: usize = review
        .get("decisions")
        .into_iter()
        .filter_map(Value::as_array)
        .flatten()
        .filter(|d| d.get("basis").is_some_and(Value::is_array))
        .map(|d| d.get("id").and_then(Value::as_str).map_or(0, str::len) + 48)
        .sum();
    if entries == 0 { 0 } else { entries + 40 }
}
