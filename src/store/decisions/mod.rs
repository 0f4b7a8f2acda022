//! Decisions: remember (replace at the same locator, subject and revision), recall with
//! keyset pages, forget.

pub(super) mod rows;

use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, Transaction, params};

use super::codec::dedup;
use super::history;
use super::page::{Segment, current_seq, next_seq, run_segments_into};
use super::query::Clause;
use super::search::{fts_words, match_all, match_column};
use super::{Page, PageRequest, Position, Store, StoreError};
use crate::review::history::{Channel, Written, decision_events};
use crate::review::outrank::{Outranked, label_copied_evidence, merge_verdicts};
use crate::review::{Artifact, BasisItem, CarryState, Decision, State, Via, id};
use crate::time;
use rows::{
    DECISION_COLS, DECISION_COLS_LEN, decision_from_row, delete_decisions, load_basis,
    load_decision, write_decision,
};

/// What `remember_decision` stores: the artifact already normalised, the basis checked.
#[derive(Debug, Clone)]
pub struct NewDecision {
    pub artifact: Artifact,
    pub subject: String,
    pub disposition: String,
    pub summary: Option<String>,
    pub basis: Vec<BasisItem>,
}

/// The filters of `recall_decisions`, ANDed. `face` is matched only at its revision.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecisionQuery {
    pub locator: Option<String>,
    pub revision: Option<String>,
    pub subject: Option<String>,
    /// Exact decision id.
    pub id: Option<String>,
    /// Exact face id (in basis `faces`), with the revision it belongs to.
    pub face: Option<(String, String)>,
    pub text: Option<String>,
    pub state: Option<State>,
    /// Decisions with at least one basis item whose verdict is in this state and, with
    /// `via`, came from there (both on the same item).
    pub verdict: Option<VerdictState>,
    pub via: Option<Via>,
    /// Only the newest decision of each subject on each file (locator).
    pub current_only: bool,
    /// Decisions with at least one basis item carried in this state.
    pub carried: Option<CarryState>,
}

/// A basis item's verdict state, as `recall_decisions` filters on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerdictState {
    /// No verdict yet.
    None,
    Accepted,
    Rejected,
}

crate::review::wire_names!(VerdictState {
    None => "none",
    Accepted => "accepted",
    Rejected => "rejected",
});

impl Store {
    /// Saves a decision: the same (locator, subject, revision) replaces, keeping id and
    /// `created_at`; another revision is a new decision and the old one stays.
    ///
    /// The engineer's verdicts outrank the arguments (see [`merge_verdicts`]): what was kept,
    /// refused or removed is returned with the decision.
    pub fn remember_decision(
        &mut self,
        new: &NewDecision,
    ) -> Result<(Decision, bool, Outranked), StoreError> {
        self.remember_decision_answered(new, None, |d, replaced, outranked, _| {
            Ok::<_, StoreError>((d.clone(), replaced, outranked))
        })
    }

    /// [`Store::remember_decision`], handing what it wrote to `answer` before the
    /// transaction commits (see [`Store::remember_answered`]), with, when its subject is new
    /// on its file, the other subjects there that `alike` keeps.
    pub fn remember_decision_answered<T, E: From<StoreError>>(
        &mut self,
        new: &NewDecision,
        alike: Option<&super::records::NamesAlike>,
        answer: impl FnOnce(&Decision, bool, Outranked, &[String]) -> Result<T, E>,
    ) -> Result<T, E> {
        let author = self.author.clone();
        let tx = self.write()?;
        let (decision, replaced, outranked) = remember_decision_in(&tx, author, new)?;
        let others = match alike {
            Some(alike) if !replaced => super::records::other_names(
                &tx,
                super::records::Names::Subjects,
                decision.artifact.locator(),
                &decision.subject,
                alike,
            )?,
            _ => Vec::new(),
        };
        let answered = answer(&decision, replaced, outranked, &others)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(answered)
    }

    /// One page of decisions matching `q`, newest first (with text: decisions whose subject
    /// holds every word first). "Newest" is the order of creation: a replaced decision keeps
    /// its seq, so paging is exact as for records (see `Store::recall_each`).
    pub fn recall_decisions(
        &mut self,
        q: &DecisionQuery,
        page: PageRequest,
    ) -> Result<Page<Decision>, StoreError> {
        let mut decisions = Vec::new();
        let page = self.recall_decisions_each(q, page, |d| {
            decisions.push(d);
            true
        })?;
        Ok(Page {
            items: decisions
                .into_iter()
                .zip(page.items)
                .map(|(d, ((), pos))| (d, pos))
                .collect(),
            snapshot: page.snapshot,
            more: page.more,
        })
    }

    /// [`Store::recall_decisions`] handing each decision of the page, with its basis, to
    /// `each` in order as it is read. `each` returns false to refuse a decision because the
    /// page is full in bytes: the page then ends before it, with `more` set.
    pub fn recall_decisions_each(
        &mut self,
        q: &DecisionQuery,
        page: PageRequest,
        mut each: impl FnMut(Decision) -> bool,
    ) -> Result<Page<()>, StoreError> {
        let tx = self.read()?;
        let snapshot = match page.snapshot {
            Some(s) => s,
            None => current_seq(&tx)?,
        };
        let words = q.text.as_deref().map(fts_words);
        let text = match &words {
            Some(w) => match (match_all(w), match_column("subject", w)) {
                (Some(all), Some(subject)) => Some((all, subject)),
                _ => {
                    return Ok(Page {
                        items: Vec::new(),
                        snapshot,
                        more: false,
                    });
                }
            },
            None => None,
        };
        let mut segments: Vec<Segment> = Vec::new();
        match text {
            Some((all, subject)) => {
                // As for records: tier 0 (subject holds every word) then tier 1, each newest
                // first, walking the full-text index whose rowid is the decision's seq.
                let start_tier = page.after.map_or(0, |a| a.tier);
                for (tier, expr) in [
                    (0, subject.clone()),
                    (1, format!("({all}) NOT ({subject})")),
                ] {
                    if tier < start_tier {
                        continue;
                    }
                    let mut c = Clause::default();
                    c.add("f.decisions_fts MATCH ?", [SqlValue::Text(expr)]);
                    c.add("f.rowid <= ?", [SqlValue::Integer(snapshot)]);
                    if let Some(after) = page.after.filter(|a| a.tier == tier) {
                        c.add("f.rowid < ?", [SqlValue::Integer(after.seq)]);
                    }
                    decision_filters(&mut c, q, true);
                    let sql = format!(
                        "SELECT {DECISION_COLS}, {tier} AS tier FROM decisions_fts f \
                         CROSS JOIN decisions d ON d.seq = f.rowid WHERE {} \
                         ORDER BY f.rowid DESC LIMIT ?",
                        c.joined()
                    );
                    segments.push((sql, c.params));
                }
            }
            None => {
                let mut c = Clause::default();
                let (from, seq_col) = if let Some((face, rev)) = &q.face {
                    c.add(
                        "x.face = ? AND x.revision = ?",
                        [Clause::text(face), Clause::text(rev)],
                    );
                    (
                        "decision_faces x CROSS JOIN decisions d ON d.rid = x.rid",
                        "x.seq",
                    )
                } else if let Some(state) = q.state {
                    c.add("x.state = ?", [Clause::text(state.as_str())]);
                    (
                        "decision_states x CROSS JOIN decisions d ON d.rid = x.rid",
                        "x.seq",
                    )
                } else {
                    ("decisions d", "d.seq")
                };
                c.add(&format!("{seq_col} <= ?"), [SqlValue::Integer(snapshot)]);
                decision_filters(&mut c, q, false);
                if let Some(after) = page.after {
                    c.add(&format!("{seq_col} < ?"), [SqlValue::Integer(after.seq)]);
                }
                let sql = format!(
                    "SELECT {DECISION_COLS}, 1 AS tier FROM {from} WHERE {} \
                     ORDER BY {seq_col} DESC LIMIT ?",
                    c.joined()
                );
                segments.push((sql, c.params));
            }
        }
        // Each decision is read with its basis and handed on while its row is current, so
        // a page holds one decision at a time besides what `each` keeps. The row after the
        // page (`limit + 1`) only says whether more follow.
        let mut items = Vec::new();
        let mut seen = 0;
        let mut basis_error = None;
        let full = run_segments_into(&tx, segments, page.limit, &mut items, |row| {
            let (rid, mut decision, seq) = decision_from_row(row)?;
            let tier: i64 = row.get(DECISION_COLS_LEN)?;
            if seen < page.limit {
                match load_basis(&tx, rid) {
                    Ok(basis) => decision.basis = basis,
                    Err(e) => {
                        basis_error = Some(e);
                        return Ok(None);
                    }
                }
                if !each(decision) {
                    return Ok(None);
                }
            }
            seen += 1;
            Ok(Some(((), Position { tier, seq })))
        })?;
        if let Some(e) = basis_error {
            return Err(e);
        }
        let more = full || items.len() > page.limit;
        items.truncate(page.limit);
        Ok(Page {
            items,
            snapshot,
            more,
        })
    }

    /// The distinct subjects of the decisions at `locator` (any file when `None`; at any
    /// revision), at most `limit`: what a lookup by a subject that matched none is compared
    /// with (`text::alike`).
    pub fn decision_subjects(
        &mut self,
        locator: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let tx = self.read()?;
        let subjects = tx
            .prepare_cached(
                "SELECT DISTINCT subject FROM decisions WHERE ?1 IS NULL OR locator = ?1 LIMIT ?2",
            )?
            .query_map(
                params![locator, i64::try_from(limit).unwrap_or(i64::MAX)],
                |r| r.get::<_, String>(0),
            )?
            .collect::<Result<_, _>>()?;
        Ok(subjects)
    }

    /// Deletes the decision for `subject` at (`locator`, `revision`). Returns 0 or 1.
    pub fn forget_decision(
        &mut self,
        locator: &str,
        subject: &str,
        revision: &str,
    ) -> Result<usize, StoreError> {
        let author = self.author.clone();
        let tx = self.write()?;
        let rids: Vec<i64> = tx
            .prepare_cached(
                "SELECT rid FROM decisions WHERE locator = ?1 AND subject = ?2 AND revision = ?3",
            )?
            .query_map(params![locator, subject, revision], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        for rid in &rids {
            match load_decision(&tx, *rid) {
                Ok(Some(old)) => {
                    // Never before its last change, whatever the clock says: the history
                    // reads in time order.
                    let at = time::updated_after(time::now(), &old.updated_at);
                    let how = Written {
                        channel: Channel::Assistant,
                        at: &at,
                        author: author.as_deref(),
                    };
                    history::append(&tx, &decision_events(&how, Some(&old), None, &[]))?;
                }
                Ok(None) => {}
                // A row that no longer reads (a hand-edited file) is still forgotten.
                Err(StoreError::Sqlite(rusqlite::Error::FromSqlConversionFailure(..))) => {
                    log::warn!("a damaged decision was forgotten without a history event");
                }
                Err(e) => return Err(e),
            }
        }
        let n = delete_decisions(&tx, &rids)?;
        tx.commit()?;
        Ok(n)
    }
}

/// The write of [`Store::remember_decision`], inside `tx`, uncommitted.
fn remember_decision_in(
    tx: &Transaction<'_>,
    author: Option<String>,
    new: &NewDecision,
) -> Result<(Decision, bool, Outranked), StoreError> {
    let now = time::now();
    // With the replaced decision, the time its new `updated_at` may not precede (see
    // `Store::remember`).
    let existing: Option<(i64, i64, String, String, String)> = tx
        .prepare_cached(
            "SELECT rid, seq, id, created_at, max(created_at, updated_at) FROM decisions \
             WHERE locator = ?1 AND subject = ?2 AND revision = ?3",
        )?
        .query_row(
            params![new.artifact.locator(), new.subject, new.artifact.revision],
            |r| r.try_into(),
        )
        .optional()?;
    let replaced = existing.is_some();
    // A replacement keeps its seq (its place in the result order: see
    // `Store::recall_each`); only a new decision takes the next seq.
    let (rid, seq, id, created_at, not_before) = match existing {
        Some((rid, seq, id, created, not_before)) => (Some(rid), seq, id, created, not_before),
        None => {
            let seq = next_seq(tx)?;
            let created = created_last(tx, new.artifact.locator(), &new.subject, now.clone())?;
            (None, seq, id::mint("dec", seq), created.clone(), created)
        }
    };
    let mut basis: Vec<BasisItem> = new
        .basis
        .iter()
        .map(|b| BasisItem {
            faces: dedup(&b.faces),
            // Stated at this revision: fresh, whatever was carried here before, and
            // re-identified (its faces are what it is about now).
            carried: None,
            not_carried: None,
            ..b.clone()
        })
        .collect();
    let old = match rid {
        Some(rid) => load_decision(tx, rid)?,
        None => None,
    };
    let old_basis = old.as_ref().map(|o| o.basis.clone()).unwrap_or_default();
    label_copied_evidence(&old_basis, &mut basis);
    let outranked = merge_verdicts(&old_basis, &mut basis, &now, author.as_deref())
        .map_err(|e| StoreError::Invalid(e.0))?;
    let decision = Decision {
        id,
        subject: new.subject.clone(),
        disposition: new.disposition.clone(),
        summary: new.summary.clone(),
        basis,
        artifact: new.artifact.clone(),
        author,
        carried: None,
        // Stated again at a revision carried on: it stays carried on (superseded), as import
        // and sync keep it; the later revision holds the review.
        superseded: old.as_ref().and_then(|o| o.superseded.clone()),
        updated_at: time::updated_after(now, &not_before),
        created_at,
    };
    write_decision(tx, rid, &decision, seq)?;
    let how = Written {
        channel: Channel::Assistant,
        at: &decision.updated_at,
        author: decision.author.as_deref(),
    };
    history::append(
        tx,
        &decision_events(&how, old.as_ref(), Some(&decision), &outranked.kept),
    )?;
    Ok((decision, replaced, outranked))
}

/// The `created_at` of a new decision of `subject` on the file `locator`: `now`, or the
/// millisecond after the latest of its subject on its file when `now` is not later (a
/// decision synced from a clock ahead of this one, or one of the same millisecond), so the
/// decision stated last is the current one ([`CURRENT_DECISION`] orders by `created_at`),
/// here and in every clone that syncs it.
pub(in crate::store) fn created_last(
    tx: &Transaction<'_>,
    locator: &str,
    subject: &str,
    now: String,
) -> Result<String, StoreError> {
    let latest: Option<String> = tx
        .prepare_cached(
            "SELECT max(created_at) FROM decisions WHERE locator = ?1 AND subject = ?2",
        )?
        .query_row(params![locator, subject], |r| r.get(0))?;
    Ok(match latest {
        Some(latest) => time::updated_strictly_after(now, &latest),
        None => now,
    })
}

/// The condition that a decision `d` is the newest of its subject on its file: created
/// last (`created_at`, which every clone of a review holds alike; a replacement keeps it),
/// and of two created in the same millisecond the one of the greater id (also alike in
/// every clone; the order a database received them in, `seq`, is not). By `seq` alone, a
/// synced clone (which receives items in the order of their ids) took an older decision for
/// the current one. A search of the covering index `decisions_newest` (schema version 14).
pub(super) const CURRENT_DECISION: &str = "NOT EXISTS (SELECT 1 FROM decisions n \
     WHERE n.locator = d.locator AND n.subject = d.subject \
     AND (n.created_at > d.created_at OR (n.created_at = d.created_at AND n.id > d.id)))";

/// The filters other than the driving one (see [`DecisionQuery`]).
pub(super) fn decision_filters(c: &mut Clause, q: &DecisionQuery, text: bool) {
    if q.current_only {
        c.add(CURRENT_DECISION, Vec::new());
    }
    if let Some(l) = &q.locator {
        c.add("d.locator = ?", [Clause::text(l)]);
    }
    if let Some(rev) = &q.revision {
        c.add("d.revision = ?", [Clause::text(rev)]);
    }
    if let Some(s) = &q.subject {
        c.add("d.subject = ?", [Clause::text(s)]);
    }
    if let Some(id) = &q.id {
        c.add("d.id = ?", [Clause::text(id)]);
    }
    let face_drives = !text && q.face.is_some();
    if !face_drives && let Some((face, rev)) = &q.face {
        c.add(
            "EXISTS (SELECT 1 FROM decision_faces f WHERE f.face = ? AND f.revision = ? \
                 AND f.seq = d.seq)",
            [Clause::text(face), Clause::text(rev)],
        );
    }
    let mut verdict = Vec::new();
    let mut verdict_params = Vec::new();
    match q.verdict {
        Some(VerdictState::None) => verdict.push("b.verdict_judgement IS NULL"),
        Some(judged) => {
            verdict.push("b.verdict_judgement = ?");
            verdict_params.push(Clause::text(judged.as_str()));
        }
        None => {}
    }
    if let Some(via) = q.via {
        // Rows written before provenance existed were upgraded to 'assistant' (schema 6).
        verdict.push("b.verdict_judgement IS NOT NULL AND b.verdict_via = ?");
        verdict_params.push(Clause::text(via.as_str()));
    }
    if let Some(state) = q.carried {
        c.add(
            "EXISTS (SELECT 1 FROM basis_items b WHERE b.decision_rid = d.rid \
             AND json_extract(b.carried, '$.state') = ?)",
            [Clause::text(state.as_str())],
        );
    }
    if !verdict.is_empty() {
        c.add(
            &format!(
                "EXISTS (SELECT 1 FROM basis_items b WHERE b.decision_rid = d.rid AND {})",
                verdict.join(" AND ")
            ),
            verdict_params,
        );
    }
    if let Some(state) = q.state {
        let state_drives = !text && q.face.is_none();
        if !state_drives {
            c.add(
                "EXISTS (SELECT 1 FROM decision_states s WHERE s.state = ? AND s.seq = d.seq)",
                [Clause::text(state.as_str())],
            );
        }
        // An item carried from an earlier revision holds that revision's state, not this
        // one's: only an item stated at the decision's revision is in a state there (as the
        // summary's `states` counts), and `decision_states` holds every item's. Only a carried
        // decision holds carried items, so only its items are looked at.
        c.add(
            "(d.carried IS NULL OR EXISTS (SELECT 1 FROM basis_items b \
             WHERE b.decision_rid = d.rid AND b.state = ? AND b.carried IS NULL))",
            [Clause::text(state.as_str())],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::CURRENT_DECISION;
    use crate::store::Store;
    use crate::store::browse::DECISION_SAID_ON;

    /// Regression: of two decisions of one subject on one file created in the same
    /// millisecond (two clones, each dating its own after a decision synced from a clock
    /// ahead), the current one was the one this database received last (`seq`), so two
    /// clones holding the same two decisions each listed another. It is the same in every
    /// database that holds them, whatever order they arrived in.
    #[test]
    fn the_current_of_two_decisions_of_one_millisecond_is_the_same_in_every_clone() {
        use crate::review::{Artifact, BasisItem};
        use crate::store::{DecisionQuery, NewDecision, PageRequest};
        let at = |n: u8| Artifact {
            revision: format!("sha256:{}", format!("{n:x}").repeat(64)),
            format: "step".into(),
            uri: Some("file:///parts/bracket.step".into()),
            units: None,
        };
        let mut first = Store::open_in_memory().unwrap();
        let mut made = Vec::new();
        for n in [1, 2] {
            let new = NewDecision {
                artifact: at(n),
                subject: "bore".into(),
                disposition: "hold".into(),
                summary: None,
                basis: vec![BasisItem::stated("Bore 12H7")],
            };
            let mut d = first.remember_decision(&new).unwrap().0;
            d.created_at = "2030-01-01T00:00:00.001Z".into();
            d.updated_at = d.created_at.clone();
            made.push(d);
        }
        let current = |decisions: Vec<crate::review::Decision>| {
            let mut clone = Store::open_in_memory().unwrap();
            clone.import(&[], &decisions).unwrap();
            let q = DecisionQuery {
                current_only: true,
                ..Default::default()
            };
            let page = clone.recall_decisions(&q, PageRequest::first(10)).unwrap();
            let ids: Vec<String> = page.items.into_iter().map(|(d, _)| d.id).collect();
            ids
        };
        let one = current(made.clone());
        made.reverse();
        let other = current(made);
        assert_eq!(one.len(), 1, "{one:?}");
        assert_eq!(one, other);
    }

    /// Regression: ordering the current decision by `created_at` (then `seq`) instead of
    /// `seq` alone searched the (locator, subject, revision) key and read the row of every
    /// revision of the subject on the file for each decision tested: `recall_decisions` by
    /// state took 1.4 times as long (the benchmark, 10,000 records). Schema version 13's
    /// `decisions_current` made it a search of a covering index, no row read; version 14's
    /// `decisions_newest` keeps it one with the id as the tie-break.
    #[test]
    fn the_current_decision_is_searched_in_a_covering_index() {
        let mut store = Store::open_in_memory().unwrap();
        let conn = store.conn().unwrap();
        for condition in [CURRENT_DECISION, DECISION_SAID_ON] {
            let sql = format!("EXPLAIN QUERY PLAN SELECT 1 FROM decisions d WHERE {condition}");
            let mut stmt = conn.prepare(&sql).unwrap();
            let steps: Vec<String> = stmt
                .query_map([], |r| r.get(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(
                steps.iter().any(|s| s.starts_with(
                    "SEARCH n USING COVERING INDEX decisions_newest (locator=? AND subject=?"
                )),
                "{condition}: {steps:?}"
            );
        }
    }
}
