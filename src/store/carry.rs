//! `carry_forward`: the records and decisions of one revision of a file carried to its next
//! revision in one write transaction (the rules are `review::carry`'s), and what a revision
//! says of the revisions it superseded or was superseded by.

use std::collections::BTreeSet;

use rusqlite::{OptionalExtension, Transaction, params};

use super::browse::{
    DECISION_SAID_ON, RECORD_SAID_ON, REVISION_DECISIONS, REVISION_RECORDS, decisions_with_basis,
};
use super::codec::opt_json;
use super::decisions::created_last;
use super::decisions::rows::{DECISION_COLS, decision_from_row, load_basis, write_decision};
use super::page::next_seq;
use super::records::rows::{RECORD_COLS, record_from_row, supersede_record, write_record};
use super::{DecisionQuery, PageRequest, Store, StoreError, history};
use crate::review::carry::{EntityMap, VerdictAfterCarry, carried_artifact, quoted_at};
use crate::review::history::{
    Channel, Written, carried_events, carried_onto_events, record_carried_events,
};
use crate::review::{Artifact, BasisItem, Decision, DecisionCarried, Record, Superseded, id};
use crate::time;

/// What to carry: every record and decision at `from` (of `from`'s file, when it has a uri)
/// that no later revision superseded yet, to `to`.
#[derive(Debug, Clone)]
pub struct CarryPlan {
    pub from: Artifact,
    pub to: Artifact,
    pub map: EntityMap,
    pub change: Option<String>,
}

/// What one carry wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CarryOutcome {
    /// Everything at `from` was carried to `to` before: nothing written.
    pub already_carried: bool,
    /// Already carried, and nothing is recorded at `to` any more: what was carried there
    /// was forgotten since. Read in the carry's own transaction (read before it, a carry
    /// another server was making then read as forgotten).
    pub to_emptied: bool,
    /// The records now at `to`, with their markers.
    pub records: Vec<Record>,
    /// The decisions now at `to`, carried.
    pub decisions: Vec<Decision>,
    /// Items left where they were because they were already stated at `to` (a feature of the
    /// same name, a decision of the same subject): marked superseded, not carried.
    pub already_stated: usize,
}

/// The revisions around one revision: the ones carried to it, and the one it was carried to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Supersession {
    /// The revisions carried to this one, each with its `change`, oldest first.
    pub supersedes: Vec<(String, Option<String>)>,
    /// The revision this one was carried to, with its `change`.
    pub superseded_by: Option<(String, Option<String>)>,
}

impl Supersession {
    /// Whether the revision holds a review carried from an earlier one (a partial, delta
    /// review in AS9102 terms: what was carried is inherited or to re-verify).
    pub fn is_carried(&self) -> bool {
        !self.supersedes.is_empty()
    }
}

impl Store {
    /// Carries `plan.from` to `plan.to` (see [`CarryPlan`]) in one transaction, handing what it
    /// wrote to `answer` before the commit (an error from `answer` writes nothing).
    pub fn carry_forward_answered<T, E: From<StoreError>>(
        &mut self,
        plan: &CarryPlan,
        answer: impl FnOnce(&CarryOutcome) -> Result<T, E>,
    ) -> Result<T, E> {
        let author = self.author.clone();
        let tx = self.write()?;
        let outcome = carry_in(&tx, plan, author.as_deref())?;
        let answered = answer(&outcome)?;
        if !outcome.already_carried {
            tx.commit().map_err(StoreError::from)?;
        }
        Ok(answered)
    }

    /// The revisions carried to `revision` and the one it was carried to (see
    /// [`Supersession`]).
    pub fn supersession(&mut self, revision: &str) -> Result<Supersession, StoreError> {
        let tx = self.read()?;
        supersession_in(&tx, revision)
    }

    /// The first of the decisions `q` finds (at most `limit` read) that was not carried on,
    /// else the first one carried on and the revision it was carried to: its artifact, and
    /// that revision.
    pub fn live_or_carried(
        &mut self,
        q: &DecisionQuery,
        limit: usize,
    ) -> Result<Option<(Artifact, Option<String>)>, StoreError> {
        let mut found: Option<(Artifact, Option<String>)> = None;
        self.recall_decisions_each(q, PageRequest::first(limit), |d| {
            let by = d.superseded.as_ref().map(|s| s.by.clone());
            let live = by.is_none();
            if live || found.is_none() {
                found = Some((d.artifact.clone(), by));
            }
            !live
        })?;
        Ok(found)
    }

    /// The revision the review of `subject` carried to `by` stands at now, following later
    /// carries (at most 20), and the artifact of its decision there (`None`: none is found
    /// there). Every channel names this revision for a decision carried on: the form's
    /// refusal, the terminal, the review card, `show_review` and the report.
    pub fn stands_at(
        &mut self,
        by: &str,
        subject: &str,
    ) -> Result<(String, Option<Artifact>), StoreError> {
        /// The decisions of the subject read at each revision of the chain (one per file).
        const LOOKED_AT: usize = 50;
        let mut by = by.to_string();
        let mut at = None;
        for _ in 0..20 {
            let q = DecisionQuery {
                revision: Some(by.clone()),
                subject: Some(subject.to_string()),
                ..Default::default()
            };
            match self.live_or_carried(&q, LOOKED_AT)? {
                Some((_, Some(next))) if next != by => by = next,
                Some((a, None)) => {
                    at = Some(a);
                    break;
                }
                _ => break,
            }
        }
        Ok((by, at))
    }

    /// Which of the superseded decisions `decisions` and records `records` (ids) no later
    /// copy says any more (see [`DECISION_SAID_ON`], [`RECORD_SAID_ON`]): stale claims of
    /// their own, as `recall_decisions` lists them.
    pub fn unsaid_carried_on(
        &mut self,
        decisions: &[&str],
        records: &[&str],
    ) -> Result<BTreeSet<String>, StoreError> {
        let tx = self.read()?;
        let mut out = BTreeSet::new();
        for (ids, sql) in [
            (
                decisions,
                format!(
                    "SELECT EXISTS (SELECT 1 FROM decisions d WHERE d.id = ?1 \
                     AND d.superseded IS NOT NULL AND NOT {DECISION_SAID_ON})"
                ),
            ),
            (
                records,
                format!(
                    "SELECT EXISTS (SELECT 1 FROM records r WHERE r.id = ?1 \
                     AND r.superseded IS NOT NULL AND NOT {RECORD_SAID_ON})"
                ),
            ),
        ] {
            let mut stmt = tx.prepare_cached(&sql)?;
            for id in ids {
                if stmt.query_row([id], |r| r.get::<_, bool>(0))? {
                    out.insert((*id).to_string());
                }
            }
        }
        Ok(out)
    }

    /// The engineer's verdicts the carried items of `d` do not show (see
    /// [`VerdictAfterCarry`]): for each item carried (inherited or to re-verify), the item of
    /// the same requirement in the decision of its subject at the revision it was stated at
    /// (`carried.from`: the decision it was carried from, else its own file's), when that
    /// one holds an engineer's verdict other than the one the carry copied.
    pub fn verdicts_after_carry(
        &mut self,
        d: &Decision,
    ) -> Result<Vec<VerdictAfterCarry>, StoreError> {
        Ok(self
            .verdicts_after_carry_of(std::slice::from_ref(d))?
            .into_iter()
            .next()
            .unwrap_or_default())
    }

    /// [`Store::verdicts_after_carry`] of each of `decisions`, in one read.
    pub fn verdicts_after_carry_of(
        &mut self,
        decisions: &[Decision],
    ) -> Result<Vec<Vec<VerdictAfterCarry>>, StoreError> {
        let tx = self.read()?;
        decisions.iter().map(|d| after_carry_in(&tx, d)).collect()
    }
}

fn after_carry_in(
    tx: &Transaction<'_>,
    d: &Decision,
) -> Result<Vec<VerdictAfterCarry>, StoreError> {
    let mut out = Vec::new();
    if d.basis.iter().all(|b| b.carried.is_none()) {
        return Ok(out);
    }
    // The decision it was carried from (of another file, when the carry moved it), else
    // the one of its subject on its own file: never another file's that shares the subject.
    let source = d.carried.as_ref().map(|c| c.source.as_str());
    // The decision stated at each revision items were carried from, read once.
    // (revision, (decision id, its basis) stated there, if any).
    type Stated = (String, Option<(String, Vec<BasisItem>)>);
    let mut stated: Vec<Stated> = Vec::new();
    for (index, b) in d.basis.iter().enumerate() {
        let Some(c) = &b.carried else { continue };
        if !stated.iter().any(|(rev, _)| *rev == c.from) {
            let row: Option<(i64, String)> = tx
                .prepare_cached(
                    "SELECT rid, id FROM decisions WHERE revision = ?1 AND subject = ?2 \
                     AND (id = ?4 OR locator = ?3) ORDER BY id = ?4 DESC LIMIT 1",
                )?
                .query_row(
                    params![c.from, d.subject, d.artifact.locator(), source],
                    |r| r.try_into(),
                )
                .optional()?;
            let found = match row {
                Some((rid, id)) => Some((id, load_basis(tx, rid)?)),
                None => None,
            };
            stated.push((c.from.clone(), found));
        }
        let Some((decision, basis)) = stated
            .iter()
            .find(|(rev, _)| *rev == c.from)
            .and_then(|(_, found)| found.as_ref())
        else {
            continue;
        };
        let given = basis
            .iter()
            .find(|s| s.requirement == b.requirement)
            .and_then(|s| s.verdict.as_ref())
            .filter(|v| v.via.is_engineer());
        let Some(v) = given else { continue };
        let known = c
            .verdict
            .as_ref()
            .is_some_and(|k| k.judgement == v.judgement && k.at == v.at);
        if !known {
            out.push(VerdictAfterCarry {
                index,
                revision: c.from.clone(),
                decision: decision.clone(),
                verdict: v.clone(),
            });
        }
    }
    Ok(out)
}

impl Store {
    /// `revision` and every revision whose items were carried to it, directly or through
    /// earlier carries (1 to 2, then 2 to 3: 3's lineage is 1, 2 and 3). An item superseded by
    /// one of them lives on in `revision`: not a stale claim against it.
    pub fn lineage(&mut self, revision: &str) -> Result<BTreeSet<String>, StoreError> {
        let tx = self.read()?;
        let revisions = tx
            .prepare_cached(&format!("WITH RECURSIVE {LINEAGE} SELECT rev FROM lineage"))?
            .query_map([revision], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(revisions)
    }
}

/// The common table `lineage(rev)` of [`Store::lineage`], for `?1` (after `WITH RECURSIVE`).
/// A carry links two revisions twice: the old items' `superseded.by` and the carried
/// decision's `carried.from`; either is enough (the old decision may have been forgotten).
/// `superseded IS NOT NULL` lets SQLite use the partial indexes on `superseded`'s `by`
/// (`records_superseded_by`, `decisions_superseded_by`): without it each step of the
/// recursion reads every record and decision.
pub(super) const LINEAGE: &str = "lineage(rev) AS (SELECT ?1 \
     UNION SELECT r.revision FROM records r JOIN lineage l \
       ON r.superseded IS NOT NULL AND json_extract(r.superseded, '$.by') = l.rev \
     UNION SELECT d.revision FROM decisions d JOIN lineage l \
       ON d.superseded IS NOT NULL AND json_extract(d.superseded, '$.by') = l.rev \
     UNION SELECT json_extract(d.carried, '$.from') FROM decisions d JOIN lineage l \
       ON d.revision = l.rev WHERE json_extract(d.carried, '$.from') IS NOT NULL)";

/// The (revision, superseded mark) of every record and decision carried to `?1`, through
/// the partial indexes on `superseded`'s `by` (see [`LINEAGE`]).
const CARRIED_TO: &str = "SELECT revision, superseded FROM records \
     WHERE superseded IS NOT NULL AND json_extract(superseded, '$.by') = ?1 \
     UNION SELECT revision, superseded FROM decisions \
     WHERE superseded IS NOT NULL AND json_extract(superseded, '$.by') = ?1";

pub(super) fn supersession_in(
    tx: &Transaction<'_>,
    revision: &str,
) -> Result<Supersession, StoreError> {
    let by: Option<String> = tx
        .prepare_cached(
            "SELECT superseded FROM records WHERE revision = ?1 AND superseded IS NOT NULL \
             UNION ALL SELECT superseded FROM decisions WHERE revision = ?1 \
             AND superseded IS NOT NULL LIMIT 1",
        )?
        .query_row([revision], |r| r.get(0))
        .optional()?;
    let superseded_by = by
        .and_then(|t| serde_json::from_str::<Superseded>(&t).ok())
        .map(|s| (s.by, s.change));
    // (when it was carried, revision, change): oldest first, as the field says.
    let mut carried: Vec<(String, String, Option<String>)> = Vec::new();
    let rows: Vec<(String, Option<String>)> = tx
        .prepare_cached(CARRIED_TO)?
        .query_map([revision], |r| r.try_into())?
        .collect::<Result<_, _>>()?;
    for (rev, text) in rows {
        let mark = text.and_then(|t| serde_json::from_str::<Superseded>(&t).ok());
        let (at, change) = mark.map_or((String::new(), None), |s| (s.at, s.change));
        if !carried.iter().any(|(_, r, _)| *r == rev) {
            carried.push((at, rev, change));
        }
    }
    // A decision carried here names its old revision too: the link that stays when every
    // item of that revision was forgotten since (the decision's creation is the carry's time).
    let decisions: Vec<(String, String, Option<String>)> = tx
        .prepare_cached(
            "SELECT min(created_at), json_extract(carried, '$.from') AS f, \
             CASE WHEN json_type(carried, '$.change') = 'text' \
               THEN json_extract(carried, '$.change') END \
             FROM decisions WHERE revision = ?1 AND json_type(carried, '$.from') = 'text' \
             GROUP BY f",
        )?
        .query_map([revision], |r| r.try_into())?
        .collect::<Result<_, _>>()?;
    for (at, from, change) in decisions {
        if !carried.iter().any(|(_, r, _)| *r == from) {
            carried.push((at, from, change));
        }
    }
    carried.sort();
    let supersedes = carried
        .into_iter()
        .map(|(_, rev, change)| (rev, change))
        .collect();
    Ok(Supersession {
        supersedes,
        superseded_by,
    })
}

/// The records and decisions at `from` (of `from`'s file, when it has a uri) a carry reads,
/// superseded or not, each with its row key.
type ItemsAt = (Vec<(Record, i64)>, Vec<(Decision, i64)>);

fn items_at(tx: &Transaction<'_>, from: &Artifact) -> Result<ItemsAt, StoreError> {
    let locator = from.uri.as_ref().map(|_| from.locator());
    let records: Vec<(Record, i64)> = tx
        .prepare_cached(&format!(
            "SELECT {RECORD_COLS} FROM records r WHERE r.revision = ?1 \
             AND (?2 IS NULL OR r.locator = ?2) ORDER BY r.seq"
        ))?
        .query_map(params![from.revision, locator], record_from_row)?
        .collect::<Result<_, _>>()?;
    let rows: Vec<(i64, Decision, i64)> = tx
        .prepare_cached(&format!(
            "SELECT {DECISION_COLS} FROM decisions d WHERE d.revision = ?1 \
             AND (?2 IS NULL OR d.locator = ?2) ORDER BY d.seq"
        ))?
        .query_map(params![from.revision, locator], decision_from_row)?
        .collect::<Result<_, _>>()?;
    let rids: Vec<i64> = rows.iter().map(|(rid, ..)| *rid).collect();
    let decisions: Vec<(Decision, i64)> = decisions_with_basis(tx, rows)?
        .into_iter()
        .zip(rids)
        .collect();
    Ok((records, decisions))
}

/// What a carry from one revision to another would do, judged before anything is written
/// ([`Store::carry_check`]): the one place its refusals are decided, so that a hint naming
/// `carry_forward` advises only a carry that is accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CarryCheck {
    /// It would carry.
    Carry,
    /// Everything at `from` was carried to `to` before: it would change nothing.
    AlreadyCarried,
    /// Refused, with the message saying why and what to do instead.
    Refused(CarryRefusal),
}

/// Why a carry is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CarryRefusal {
    /// Nothing is recorded at `from`.
    Nothing,
    /// `from` was carried to another revision (`by`), and on from there to `latest` when
    /// that one was carried on too; `emptied` when nothing is left at the last of them (every
    /// copy forgotten), so carrying from that one is no way on either.
    CarriedElsewhere {
        by: String,
        latest: Option<String>,
        emptied: bool,
    },
    /// `from` holds the review of several files, and `to.uri` names one.
    ManyFiles(String),
    /// `to` was carried on to `by` already: its items, or its history when they were
    /// forgotten since.
    ToCarriedOn { by: String },
    /// `to` is a revision `from` was carried from, directly or through earlier carries.
    Earlier,
}

impl CarryRefusal {
    /// The refusal's message for a carry from `from` to `to` (it ends "nothing was written").
    pub fn message(&self, from: &Artifact, to: &Artifact) -> String {
        match self {
            CarryRefusal::Nothing => {
                let of = from
                    .uri
                    .as_deref()
                    .map(|u| format!(" of {u}"))
                    .unwrap_or_default();
                format!(
                    "nothing is recorded at revision {}{of}: check `from` (its revision, and its \
                     uri when given); nothing was written",
                    from.revision
                )
            }
            CarryRefusal::CarriedElsewhere {
                by,
                latest,
                emptied,
            } => {
                let (went, last) = match latest {
                    Some(l) => (format!("{by}, and on to revision {l} since"), l),
                    None => (by.clone(), by),
                };
                if *emptied {
                    format!(
                        "revision {} was already carried to revision {went}, and what was \
                         carried to revision {last} was forgotten since, so none of them can be \
                         carried to revision {}: state the review at revision {} again with \
                         remember and remember_decision; nothing was written",
                        from.revision, to.revision, to.revision
                    )
                } else {
                    format!(
                        "revision {} was already carried to revision {went}: carry from \
                         revision {last} instead; nothing was written",
                        from.revision
                    )
                }
            }
            CarryRefusal::ManyFiles(named) => format!(
                "revision {} holds the review of {named}, and to.uri names one: give from.uri \
                 to carry one file's review (or leave out to.uri: each item then stays in its \
                 own file); nothing was written",
                from.revision
            ),
            CarryRefusal::ToCarriedOn { by } => format!(
                "revision {} was carried to revision {by} already: carry to the latest revision \
                 instead; nothing was written",
                to.revision
            ),
            CarryRefusal::Earlier => format!(
                "revision {} is an earlier revision of this review: revision {} was carried from \
                 it, so its items would be inherited from themselves. Carry to the part's newest \
                 revision instead, or state the review at revision {} again with remember and \
                 remember_decision; nothing was written",
                to.revision, from.revision, to.revision
            ),
        }
    }
}

impl Store {
    /// Whether a carry from `from` to `to` goes backwards (into a revision carried on
    /// already, or one `from`'s review came from), without reading `from`'s items: what a
    /// hint needs to know before it names `carry_forward`.
    pub fn carry_direction(
        &mut self,
        from: &Artifact,
        to: &Artifact,
    ) -> Result<Option<CarryRefusal>, StoreError> {
        let tx = self.read()?;
        direction(&tx, from, to)
    }

    /// What a carry from `from` to `to` would do (see [`CarryCheck`]), read without writing.
    pub fn carry_check(
        &mut self,
        from: &Artifact,
        to: &Artifact,
    ) -> Result<CarryCheck, StoreError> {
        let tx = self.read()?;
        let (records, decisions) = items_at(&tx, from)?;
        check(&tx, from, to, &records, &decisions)
    }
}

/// The refusals of a carry from `from` to `to` of the items at `from` (see [`CarryCheck`]).
fn check(
    tx: &Transaction<'_>,
    from: &Artifact,
    to: &Artifact,
    records: &[(Record, i64)],
    decisions: &[(Decision, i64)],
) -> Result<CarryCheck, StoreError> {
    if records.is_empty() && decisions.is_empty() {
        return Ok(CarryCheck::Refused(CarryRefusal::Nothing));
    }
    let elsewhere = records
        .iter()
        .filter_map(|(r, _)| r.superseded.as_ref())
        .chain(decisions.iter().filter_map(|(d, _)| d.superseded.as_ref()))
        .find(|s| s.by != to.revision);
    if let Some(s) = elsewhere {
        let locator = from.uri.as_ref().map(|_| from.locator());
        let latest = carried_on_last(tx, &s.by, locator)?;
        let held: bool = tx
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM records WHERE revision = ?1) \
                 OR EXISTS (SELECT 1 FROM decisions WHERE revision = ?1)",
            )?
            .query_row([latest.as_ref().unwrap_or(&s.by)], |r| r.get(0))?;
        return Ok(CarryCheck::Refused(CarryRefusal::CarriedElsewhere {
            by: s.by.clone(),
            latest,
            emptied: !held,
        }));
    }
    let live_records = || records.iter().filter(|(r, _)| r.superseded.is_none());
    let live_decisions = || decisions.iter().filter(|(d, _)| d.superseded.is_none());
    if live_records().next().is_none() && live_decisions().next().is_none() {
        return Ok(CarryCheck::AlreadyCarried);
    }
    // Onto one file (`to.uri`) only the review of one file: the items of two files would
    // meet at one key (a feature's name, a decision's subject) and one file's would be
    // superseded as if the other's were its own. (Items recorded without a file join it.)
    if to.uri.is_some() {
        let mut files: Vec<&str> = Vec::new();
        for locator in live_records()
            .filter_map(|(r, _)| r.artifact.uri.as_deref())
            .chain(live_decisions().filter_map(|(d, _)| d.artifact.uri.as_deref()))
        {
            if !files.contains(&locator) {
                files.push(locator);
            }
        }
        if files.len() > 1 {
            files.sort_unstable();
            let named: Vec<String> = files.iter().take(3).map(|f| format!("{f:?}")).collect();
            let more = files.len().saturating_sub(3);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            return Ok(CarryCheck::Refused(CarryRefusal::ManyFiles(format!(
                "{} files ({}{more})",
                files.len(),
                named.join(", ")
            ))));
        }
    }
    Ok(match direction(tx, from, to)? {
        Some(why) => CarryCheck::Refused(why),
        None => CarryCheck::Carry,
    })
}

/// The revision `revision` (of the file `locator`, when given) was carried on to.
fn carried_on(
    tx: &Transaction<'_>,
    revision: &str,
    locator: Option<&str>,
) -> Result<Option<String>, StoreError> {
    let marked: Option<String> = tx
        .prepare_cached(
            "SELECT superseded FROM records WHERE revision = ?1 AND superseded IS NOT NULL \
             AND (?2 IS NULL OR locator = ?2) \
             UNION ALL SELECT superseded FROM decisions WHERE revision = ?1 \
             AND superseded IS NOT NULL AND (?2 IS NULL OR locator = ?2) LIMIT 1",
        )?
        .query_row(params![revision, locator], |r| r.get(0))
        .optional()?;
    Ok(marked
        .and_then(|t| serde_json::from_str::<Superseded>(&t).ok())
        .map(|s| s.by))
}

/// The last revision of the chain of carries from `revision` on, when it was carried on at
/// all: what a refusal names as the revision to carry from. A chain that comes back on
/// itself (only a hand-edited or forged database holds one) ends where it would repeat.
fn carried_on_last(
    tx: &Transaction<'_>,
    revision: &str,
    locator: Option<&str>,
) -> Result<Option<String>, StoreError> {
    let mut seen = BTreeSet::from([revision.to_string()]);
    let mut last = None;
    let mut at = revision.to_string();
    while let Some(next) = carried_on(tx, &at, locator)? {
        if !seen.insert(next.clone()) {
            break;
        }
        last = Some(next.clone());
        at = next;
    }
    Ok(last)
}

/// The refusals of a carry's direction (see [`Store::carry_direction`]).
fn direction(
    tx: &Transaction<'_>,
    from: &Artifact,
    to: &Artifact,
) -> Result<Option<CarryRefusal>, StoreError> {
    // A revision carried on already is behind `to`'s file history: carrying into it would
    // make it both superseded by and superseding the same revisions (its items say so; its
    // history, below, when they were forgotten since).
    let to_locator = to.uri.as_ref().map(|_| to.locator());
    if let Some(by) = carried_on(tx, &to.revision, to_locator)? {
        return Ok(Some(CarryRefusal::ToCarriedOn { by }));
    }
    // Nor into a revision `from` was carried from, directly or through earlier carries
    // (its items there forgotten since, or the check above would have seen them), nor into
    // the one an item of `from` is inherited from: its items would be inherited from
    // themselves.
    let from_locator = from.uri.as_ref().map(|_| from.locator());
    let earlier: bool = tx
        .prepare_cached(&format!(
            "WITH RECURSIVE {LINEAGE} SELECT EXISTS (SELECT 1 FROM lineage WHERE rev = ?2) \
             OR EXISTS (SELECT 1 FROM records WHERE revision = ?1 \
               AND (?3 IS NULL OR locator = ?3) AND superseded IS NULL \
               AND json_extract(carried, '$.from') = ?2) \
             OR EXISTS (SELECT 1 FROM decisions d JOIN basis_items b ON b.decision_rid = d.rid \
               WHERE d.revision = ?1 AND (?3 IS NULL OR d.locator = ?3) \
               AND d.superseded IS NULL AND json_extract(b.carried, '$.from') = ?2)"
        ))?
        .query_row(params![from.revision, to.revision, from_locator], |r| {
            r.get(0)
        })?;
    if earlier {
        return Ok(Some(CarryRefusal::Earlier));
    }
    // Carried on, as its history says, when every item it was carried with was forgotten
    // since (a decision's `carried` event stays: `forget` ends a decision, not its history).
    Ok(history::carried_on_to(tx, &to.revision, to_locator)?
        .map(|by| CarryRefusal::ToCarriedOn { by }))
}

fn carry_in(
    tx: &Transaction<'_>,
    plan: &CarryPlan,
    author: Option<&str>,
) -> Result<CarryOutcome, StoreError> {
    let from = &plan.from;
    let to = &plan.to;
    let (records, decisions) = items_at(tx, from)?;
    match check(tx, from, to, &records, &decisions)? {
        CarryCheck::Carry => {}
        CarryCheck::AlreadyCarried => {
            let mut held = 0i64;
            for sql in [REVISION_RECORDS, REVISION_DECISIONS] {
                let n: i64 = tx
                    .prepare_cached(sql)?
                    .query_row([&to.revision], |r| r.get(0))?;
                held += n;
            }
            return Ok(CarryOutcome {
                already_carried: true,
                to_emptied: held == 0,
                ..CarryOutcome::default()
            });
        }
        CarryCheck::Refused(why) => return Err(StoreError::Invalid(why.message(from, to))),
    }
    let live_records: Vec<(Record, i64)> = records
        .into_iter()
        .filter(|(r, _)| r.superseded.is_none())
        .collect();
    let mut live_decisions: Vec<(Decision, i64)> = decisions
        .into_iter()
        .filter(|(d, _)| d.superseded.is_none())
        .collect();
    // Carried in the order they were stated in (the Form 3's, which numbers its
    // characteristics so), each copy dated after the one before: all dated `now`, they
    // were ordered by their new ids.
    live_decisions.sort_by(|(a, _), (b, _)| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
    let mut last_created: Option<String> = None;
    // Something of the part changed: a changed entity reported, or an entity of an item
    // that the map does not carry. Whole-part items are then re-verified.
    let map = &plan.map;
    let anything = map.anything_changed()
        || live_records
            .iter()
            .any(|(r, _)| !map.apply(&r.entity_ids).unmapped.is_empty())
        || live_decisions.iter().any(|(d, _)| {
            d.basis
                .iter()
                .any(|b| !map.apply(&b.faces).unmapped.is_empty())
        });
    let now = time::now();
    let superseded = Superseded {
        at: now.clone(),
        by: to.revision.clone(),
        change: plan.change.clone(),
    };
    let mut out = CarryOutcome::default();
    for (r, seq) in live_records {
        let (carried, ids) = map.carried(
            &r.entity_ids,
            &from.revision,
            r.carried.as_ref(),
            None,
            anything,
            None,
        );
        let updated = time::updated_after(now.clone(), std::cmp::max(&r.created_at, &r.updated_at));
        let old = Record {
            superseded: Some(superseded.clone()),
            updated_at: updated.clone(),
            ..r.clone()
        };
        let moved = Record {
            entity_ids: ids,
            artifact: carried_artifact(to, &r.artifact),
            carried: Some(carried),
            superseded: None,
            ..r.clone()
        };
        match &r.name {
            Some(name) => {
                // A feature is keyed by file and name: it moves to the new revision (its id
                // and place kept), and what the old revision said of it stays as a superseded
                // row of its own.
                let holder: Option<i64> = tx
                    .prepare_cached(
                        "SELECT seq FROM records WHERE locator = ?1 AND name = ?2 \
                         AND superseded IS NULL AND seq <> ?3",
                    )?
                    .query_row(params![moved.artifact.locator(), name, seq], |row| {
                        row.get(0)
                    })
                    .optional()?;
                if holder.is_some() {
                    // Already stated at the new file's key: that one is fresh, this one stays
                    // where it was, superseded.
                    supersede_record(tx, seq, &superseded, &updated)?;
                    out.already_stated += 1;
                    continue;
                }
                let snap_seq = next_seq(tx)?;
                let snapshot = Record {
                    id: free_id(
                        tx,
                        "rec",
                        &Record::snapshot_parts(&r.id, &from.revision),
                        snap_seq,
                    )?,
                    ..old
                };
                write_record(tx, None, &snapshot, snap_seq)?;
                let moved = Record {
                    updated_at: updated,
                    ..moved
                };
                write_record(tx, Some(seq), &moved, seq)?;
                // The carry's event on the feature, dated as its change: what says `from`
                // was carried past once its copy is forgotten and the feature stated again.
                let how = Written {
                    channel: Channel::Assistant,
                    at: &moved.updated_at,
                    author,
                };
                history::append(tx, &record_carried_events(&how, &r, &moved))?;
                out.records.push(moved);
            }
            None => {
                supersede_record(tx, seq, &superseded, &updated)?;
                let new_seq = next_seq(tx)?;
                let note = Record {
                    id: free_id(tx, "rec", &["carried", &r.id, &to.revision], new_seq)?,
                    created_at: now.clone(),
                    updated_at: now.clone(),
                    ..moved
                };
                write_record(tx, None, &note, new_seq)?;
                out.records.push(note);
            }
        }
    }
    for (d, rid) in live_decisions {
        let updated = time::updated_after(now.clone(), std::cmp::max(&d.created_at, &d.updated_at));
        tx.prepare_cached("UPDATE decisions SET superseded = ?1, updated_at = ?2 WHERE rid = ?3")?
            .execute(params![opt_json(Some(&superseded)), updated, rid])?;
        let artifact = carried_artifact(to, &d.artifact);
        let stated: Option<String> = tx
            .prepare_cached(
                "SELECT id FROM decisions WHERE locator = ?1 AND subject = ?2 AND revision = ?3",
            )?
            .query_row(params![artifact.locator(), d.subject, to.revision], |row| {
                row.get(0)
            })
            .optional()?;
        if let Some(stated) = stated {
            out.already_stated += 1;
            // Superseded by what the revision already says: the old decision's history
            // tells where it went, dated as its change.
            let how = Written {
                channel: Channel::Assistant,
                at: &updated,
                author,
            };
            history::append(tx, &carried_onto_events(&how, &d, &to.revision, &stated))?;
            continue;
        }
        let basis: Vec<BasisItem> = d
            .basis
            .iter()
            .map(|b| {
                let engineer = b.verdict.clone().filter(|v| v.via.is_engineer());
                let (carried, faces) = map.carried(
                    &b.faces,
                    &from.revision,
                    b.carried.as_ref(),
                    engineer,
                    anything,
                    b.not_carried.as_ref(),
                );
                BasisItem {
                    faces,
                    verdict: None,
                    carried: Some(carried),
                    // The ids it lost are in its new marker (`unmapped`, `ids_of`).
                    not_carried: None,
                    ..b.clone()
                }
            })
            .collect();
        let seq = next_seq(tx)?;
        let mut created = created_last(tx, artifact.locator(), &d.subject, now.clone())?;
        if let Some(last) = &last_created {
            created = time::updated_strictly_after(created, last);
        }
        last_created = Some(created.clone());
        let mut new = Decision {
            id: free_id(tx, "dec", &["carried", &d.id, &to.revision], seq)?,
            subject: d.subject.clone(),
            disposition: String::new(),
            // The old summary is the earlier revision's conclusion, like its disposition: said
            // with that revision (once: one carried on unchanged says it already).
            summary: match &d.carried {
                Some(_) => d.summary.clone(),
                None => d.summary.as_deref().map(|s| quoted_at(s, &from.revision)),
            },
            basis,
            artifact,
            author: d.author.clone(),
            carried: Some(DecisionCarried {
                change: plan.change.clone(),
                disposition: d.disposition.clone(),
                from: from.revision.clone(),
                source: d.id.clone(),
            }),
            superseded: None,
            created_at: created.clone(),
            updated_at: created,
        };
        new.disposition = new.carried_disposition(&from.revision);
        write_decision(tx, None, &new, seq)?;
        let how = Written {
            channel: Channel::Assistant,
            at: &new.created_at,
            author,
        };
        // The old decision's event is dated with its new `updated_at`, never before its last
        // change (a clock ahead of this one wrote it); the new decision's with its creation.
        let mut events = carried_events(&how, &d, &new);
        if let Some(first) = events.first_mut() {
            first.at.clone_from(&updated);
            *first = first.clone().sealed();
        }
        history::append(tx, &events)?;
        out.decisions.push(new);
    }
    Ok(out)
}

/// The id of an item `carry_forward` writes: derived from `parts` (see [`id::derive`]), so
/// that the same carry in two clones of a review writes the same ids; a fresh one in the rare
/// case that id is taken here (an item carried, moved back by a remember, carried again).
fn free_id(
    tx: &Transaction<'_>,
    prefix: &str,
    parts: &[&str],
    seq: i64,
) -> Result<String, StoreError> {
    let derived = id::derive(prefix, parts);
    let sql = if prefix == "dec" {
        "SELECT EXISTS (SELECT 1 FROM decisions WHERE id = ?1)"
    } else {
        "SELECT EXISTS (SELECT 1 FROM records WHERE id = ?1)"
    };
    let taken: bool = tx
        .prepare_cached(sql)?
        .query_row([&derived], |r| r.get(0))?;
    Ok(if taken {
        id::mint(prefix, seq)
    } else {
        derived
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::artifact;
    use super::super::{NewRecord, Store};
    use super::*;
    use crate::review::CarryState;

    fn at(n: u8) -> Artifact {
        Artifact {
            revision: format!("sha256:{}", format!("{n:x}").repeat(64)),
            ..artifact(Some("file:///p.step"))
        }
    }

    /// Remembers the feature `name` on `entity` at revision `n`.
    fn feature(store: &mut Store, n: u8, name: &str, entity: &str) {
        let new = NewRecord {
            artifact: at(n),
            name: Some(name.into()),
            note: None,
            tags: vec![],
            entity_ids: vec![entity.into()],
            id_scheme: "opaque".into(),
        };
        store.remember(&new).unwrap();
    }

    fn carry(store: &mut Store, from: u8, to: u8, pairs: &[(&str, &str)]) -> CarryOutcome {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let plan = CarryPlan {
            from: at(from),
            to: at(to),
            map: EntityMap::new(&pairs, &[]).unwrap(),
            change: Some(format!("change {to}")),
        };
        store
            .carry_forward_answered(&plan, |o| Ok::<_, StoreError>(o.clone()))
            .unwrap()
    }

    /// Carried twice: an item inherited both times still says the revision it was stated at,
    /// one to re-verify stays so even where all its ids map, and each revision knows the ones
    /// around it.
    #[test]
    fn carried_twice_keeps_the_origin_and_the_re_verify() {
        let mut store = Store::open_in_memory().unwrap();
        feature(&mut store, 1, "flange", "face:1");
        feature(&mut store, 1, "boss", "face:7");
        let first = carry(&mut store, 1, 2, &[("face:1", "face:11")]);
        assert_eq!(first.records.len(), 2);
        let second = carry(&mut store, 2, 3, &[("face:11", "face:21")]);
        let by = |o: &CarryOutcome, name: &str| {
            o.records
                .iter()
                .find(|r| r.name.as_deref() == Some(name))
                .and_then(|r| r.carried.clone())
                .unwrap()
        };
        let flange = by(&second, "flange");
        assert_eq!(
            (flange.state, flange.from),
            (CarryState::Inherited, at(1).revision)
        );
        let boss = by(&second, "boss");
        assert_eq!(boss.state, CarryState::Reverify, "still to re-verify");
        let s = store.supersession(&at(2).revision).unwrap();
        assert_eq!(
            s.supersedes,
            vec![(at(1).revision, Some("change 2".into()))]
        );
        assert_eq!(
            s.superseded_by,
            Some((at(3).revision, Some("change 3".into())))
        );
        assert!(s.is_carried());
        assert!(!store.supersession(&at(1).revision).unwrap().is_carried());
        assert_eq!(
            store.supersession(&at(1).revision).unwrap().superseded_by,
            Some((at(2).revision, Some("change 2".into())))
        );
    }

    /// A carry back to a revision that was itself carried on (1 -> 2, then 2 -> 1) is refused
    /// and writes nothing: revision 1 would say both that revision 2 superseded it and that it
    /// supersedes revision 2, and its items that they are inherited from revision 1 itself.
    #[test]
    fn the_revisions_carried_to_one_are_listed_oldest_first() {
        let mut store = Store::open_in_memory().unwrap();
        for n in [9, 1] {
            feature(&mut store, n, &format!("flange {n}"), "face:1");
        }
        // Revision 9 (whose hash sorts last) is carried first.
        carry(&mut store, 9, 5, &[("face:1", "face:1")]);
        std::thread::sleep(std::time::Duration::from_millis(5));
        carry(&mut store, 1, 5, &[("face:1", "face:1")]);
        let order: Vec<String> = store
            .supersession(&at(5).revision)
            .unwrap()
            .supersedes
            .into_iter()
            .map(|(rev, _)| rev)
            .collect();
        assert_eq!(order, vec![at(9).revision, at(1).revision]);
    }

    /// The decisions a carry writes keep the order of the ones they were carried from, the
    /// order the Form 3 numbers its characteristics in: all written in one millisecond, they
    /// were ordered by their ids, so "bore", the Form 3's characteristic 1 at revision 1, could
    /// be characteristic 7 at revision 2.
    #[test]
    fn carried_decisions_keep_the_order_they_were_stated_in() {
        let mut store = Store::open_in_memory().unwrap();
        let subjects = [
            "bore", "finish", "thread", "wall", "material", "flatness", "edge",
        ];
        for subject in subjects {
            store
                .remember_decision(&super::super::NewDecision {
                    artifact: at(1),
                    subject: subject.into(),
                    disposition: "hold".into(),
                    summary: None,
                    basis: vec![],
                })
                .unwrap();
            // Stated one after another, as tool calls are.
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let order = |store: &mut Store, n: u8| {
            let mut subjects = Vec::new();
            store
                .decisions_of_revision(&at(n).revision, |d| {
                    subjects.push(d.subject);
                    true
                })
                .unwrap();
            subjects
        };
        assert_eq!(order(&mut store, 1), subjects);
        carry(&mut store, 1, 2, &[]);
        assert_eq!(order(&mut store, 2), subjects, "carried once");
        carry(&mut store, 2, 3, &[]);
        assert_eq!(order(&mut store, 3), subjects, "carried twice");
    }

    /// Regression: a carried decision stated again with `remember_decision` whose items copy
    /// the carried evidence (the basis as `recall_decisions` gave it, the disposition
    /// changed) made that evidence this revision's: the Form 3 gave the earlier revision's
    /// "12.008" as a result of the new one, PASS, in a "Full FAI". Copied evidence keeps
    /// saying the revision it was quoted at, as it does when the engineer's verdict makes an
    /// item this revision's; evidence stated anew is the new revision's.
    #[test]
    fn evidence_copied_from_a_carried_item_stays_the_earlier_revisions() {
        use crate::review::BasisItem;
        use crate::review::carry::short_revision;
        let mut store = Store::open_in_memory().unwrap();
        let item = |requirement: &str, evidence: &str| BasisItem {
            evidence: Some(evidence.into()),
            ..BasisItem::stated(requirement)
        };
        let stated = |store: &mut Store, n: u8, basis: Vec<BasisItem>| {
            store
                .remember_decision(&super::super::NewDecision {
                    artifact: at(n),
                    subject: "bore".into(),
                    disposition: "release".into(),
                    summary: None,
                    basis,
                })
                .unwrap()
                .0
        };
        stated(
            &mut store,
            1,
            vec![item("Bore 12H7", "12.008"), item("Wall 2", "2.1")],
        );
        carry(&mut store, 1, 2, &[]);
        let again = stated(
            &mut store,
            2,
            vec![item("Bore 12H7", "12.008"), item("Wall 2", "2.05 at rev 2")],
        );
        let evidence: Vec<Option<&str>> =
            again.basis.iter().map(|b| b.evidence.as_deref()).collect();
        let there = format!("at revision {}: 12.008", short_revision(&at(1).revision));
        assert_eq!(evidence, vec![Some(there.as_str()), Some("2.05 at rev 2")]);
        assert!(
            again.basis.iter().all(|b| b.carried.is_none()),
            "stated here"
        );
    }

    #[test]
    fn a_carry_back_to_a_superseded_revision_is_refused() {
        let mut store = Store::open_in_memory().unwrap();
        feature(&mut store, 1, "flange", "face:1");
        carry(&mut store, 1, 2, &[("face:1", "face:11")]);
        let back = CarryPlan {
            from: at(2),
            to: at(1),
            map: EntityMap::new(&[("face:11".into(), "face:1".into())], &[]).unwrap(),
            change: None,
        };
        let e = store
            .carry_forward_answered(&back, |o| Ok::<_, StoreError>(o.clone()))
            .unwrap_err();
        assert!(e.to_string().contains("was carried to"), "{e}");
        assert!(
            store
                .supersession(&at(2).revision)
                .unwrap()
                .superseded_by
                .is_none()
        );
        assert!(!store.supersession(&at(1).revision).unwrap().is_carried());
    }

    /// Regression: after 1 → 2 → 3, a carry from 1 was told to "carry from" revision 2,
    /// which was refused in turn; it names revision 3, where the review went on to.
    #[test]
    fn a_carry_from_a_revision_carried_on_twice_names_the_last() {
        let mut store = Store::open_in_memory().unwrap();
        feature(&mut store, 1, "flange", "face:1");
        carry(&mut store, 1, 2, &[("face:1", "face:2")]);
        carry(&mut store, 2, 3, &[("face:2", "face:3")]);
        let again = CarryPlan {
            from: at(1),
            to: at(4),
            map: EntityMap::new(&[], &[]).unwrap(),
            change: None,
        };
        let e = store
            .carry_forward_answered(&again, |o| Ok::<_, StoreError>(o.clone()))
            .unwrap_err()
            .to_string();
        let (r2, r3) = (at(2).revision, at(3).revision);
        assert!(
            e.contains(&format!(
                "carried to revision {r2}, and on to revision {r3} since"
            )) && e.contains(&format!("carry from revision {r3} instead")),
            "{e}"
        );
        // The revision it names is one a carry is accepted from.
        let from3 = CarryPlan {
            from: at(3),
            ..again
        };
        store
            .carry_forward_answered(&from3, |o| Ok::<_, StoreError>(o.clone()))
            .unwrap();
    }

    /// The steps of `sql`'s query plan (EXPLAIN QUERY PLAN) with `revision` as `?1`.
    fn plan(store: &mut Store, sql: &str, revision: &str) -> Vec<String> {
        let conn = store.conn().unwrap();
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        stmt.query_map([revision], |r| r.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// Regression: the lineage's recursive step and the list of revisions carried to one
    /// compared `json_extract(superseded, '$.by')` without saying `superseded IS NOT NULL`,
    /// so SQLite could not use the partial indexes on that expression and read every record
    /// and decision once per revision of the chain (show_review of the 50th revision of a
    /// chain: 6 s at 100,000 records).
    #[test]
    fn lineage_and_supersession_search_the_superseded_indexes() {
        let mut store = Store::open_in_memory().unwrap();
        feature(&mut store, 1, "flange", "face:1");
        carry(&mut store, 1, 2, &[("face:1", "face:11")]);
        let lineage = format!("WITH RECURSIVE {LINEAGE} SELECT rev FROM lineage");
        for sql in [lineage.as_str(), CARRIED_TO] {
            let steps = plan(&mut store, sql, &at(2).revision);
            assert!(
                !steps
                    .iter()
                    .any(|s| ["SCAN r", "SCAN d", "SCAN records", "SCAN decisions"]
                        .iter()
                        .any(|scan| s == scan || s.starts_with(&format!("{scan} ")))),
                "{sql}: {steps:?}"
            );
            for index in ["records_superseded_by", "decisions_superseded_by"] {
                assert!(steps.iter().any(|s| s.contains(index)), "{sql}: {steps:?}");
            }
        }
        // Same answers through the indexes.
        assert_eq!(
            store.lineage(&at(2).revision).unwrap(),
            [at(1).revision, at(2).revision].into_iter().collect()
        );
    }

    /// The ids a carry writes are derived (the same carry in two clones writes the same
    /// ids); when one is taken (a feature carried, then moved back to the old revision, as a
    /// `remember` there did up to 0.1.0 and a database written then may still hold, carried
    /// again) a fresh one is used and the carry succeeds.
    #[test]
    fn a_feature_carried_again_gets_a_fresh_id_for_its_second_old_copy() {
        let mut store = Store::open_in_memory().unwrap();
        feature(&mut store, 1, "bore", "face:1");
        carry(&mut store, 1, 2, &[("face:1", "face:11")]);
        let (live, seq) = features(&mut store)
            .into_iter()
            .find(|(r, _)| r.superseded.is_none())
            .unwrap();
        let back = Record {
            artifact: at(1),
            entity_ids: vec!["face:1".into()],
            carried: None,
            ..live
        };
        let tx = store.write().unwrap();
        write_record(&tx, Some(seq), &back, seq).unwrap();
        tx.commit().unwrap();
        let again = carry(&mut store, 1, 2, &[("face:1", "face:11")]);
        assert_eq!(again.records.len(), 1);
    }

    /// Every feature of the file `p.step`, with its seq, in seq order.
    fn features(store: &mut Store) -> Vec<(Record, i64)> {
        let tx = store.read().unwrap();
        let mut stmt = tx
            .prepare(&format!(
                "SELECT {RECORD_COLS} FROM records r WHERE r.kind = 'feature' ORDER BY r.seq"
            ))
            .unwrap();
        stmt.query_map([], record_from_row)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// The feature as it stands (not superseded) and what revision `n` says of it.
    fn live_and_copy(store: &mut Store, n: u8) -> (Record, Option<Record>) {
        let all = features(store);
        let live = all.iter().find(|(r, _)| r.superseded.is_none()).unwrap();
        let copy = all
            .iter()
            .find(|(r, _)| r.superseded.is_some() && r.artifact.revision == at(n).revision);
        (live.0.clone(), copy.map(|(r, _)| r.clone()))
    }

    fn chamfer_at(n: u8, note: &str) -> NewRecord {
        NewRecord {
            artifact: at(n),
            name: Some("chamfer".into()),
            note: Some(note.into()),
            tags: vec![],
            entity_ids: vec![format!("face:{n}{n}")],
            id_scheme: "opaque".into(),
        }
    }

    /// A feature stated again at the revision a carry moved it on from, on the database that
    /// made the carry, updates what that revision says of it (its superseded copy, the id
    /// every clone derives) and leaves the carried feature where it is, as sync and import
    /// keep it against a clone that had not seen the carry. Before, `remember` moved the
    /// feature, its carried id and all, back to revision 1: revision 2 lost it.
    #[test]
    fn a_feature_stated_again_where_it_was_carried_from_updates_that_revisions_copy() {
        let mut store = Store::open_in_memory().unwrap();
        store.remember(&chamfer_at(1, "first")).unwrap();
        carry(&mut store, 1, 2, &[("face:11", "face:22")]);
        let (carried, copy) = live_and_copy(&mut store, 1);
        let copy = copy.unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let (saved, replaced) = store.remember(&chamfer_at(1, "again")).unwrap();
        assert!(replaced, "revision 1's copy was replaced");
        assert_eq!(saved.id, Record::snapshot_id(&carried.id, &at(1).revision));
        assert_eq!(saved.id, copy.id);
        assert_eq!(saved.artifact.revision, at(1).revision);
        assert_eq!(saved.superseded, copy.superseded, "still carried on to 2");
        assert_eq!(
            (saved.note.as_deref(), saved.entity_ids.clone()),
            (Some("again"), vec!["face:11".to_string()])
        );
        assert_eq!(saved.created_at, copy.created_at);
        assert!(saved.updated_at > copy.updated_at);
        let (live, held) = live_and_copy(&mut store, 1);
        assert_eq!(live, carried, "the carried feature is unchanged");
        assert_eq!(held, Some(saved));
        assert_eq!(features(&mut store).len(), 2);
    }

    /// Its copy forgotten (`forget` at revision 1), the feature stated again there gets a new
    /// copy under the derived id, as import writes it; the carried feature is unchanged.
    #[test]
    fn a_feature_stated_again_where_its_copy_was_forgotten_gets_a_new_copy() {
        let mut store = Store::open_in_memory().unwrap();
        store.remember(&chamfer_at(1, "first")).unwrap();
        carry(&mut store, 1, 2, &[("face:11", "face:22")]);
        let (carried, _) = live_and_copy(&mut store, 1);
        let gone = store
            .forget_feature("file:///p.step", "chamfer", &at(1).revision)
            .unwrap();
        assert_eq!(gone, 1);
        let (saved, replaced) = store.remember(&chamfer_at(1, "again")).unwrap();
        assert!(!replaced);
        assert_eq!(saved.id, Record::snapshot_id(&carried.id, &at(1).revision));
        assert_eq!(
            saved.superseded.as_ref().map(|s| s.by.as_str()),
            Some(at(2).revision.as_str())
        );
        let (live, held) = live_and_copy(&mut store, 1);
        assert_eq!(live, carried);
        assert_eq!(held, Some(saved));
    }

    /// Stated afresh at revision 2 (its carry mark gone) and its copy at revision 1
    /// forgotten, the feature stated again at 1 stays at 2: the carry's `carried` event says
    /// revision 1 was carried past, and the statement is a new copy there, as when the mark
    /// was still held. Before, nothing said so and `remember` moved the feature back to 1:
    /// revision 2 lost it.
    #[test]
    fn a_feature_stated_again_where_its_copy_was_forgotten_after_a_restatement_stays() {
        let mut store = Store::open_in_memory().unwrap();
        store.remember(&chamfer_at(1, "first")).unwrap();
        carry(&mut store, 1, 2, &[("face:11", "face:22")]);
        store.remember(&chamfer_at(2, "at two")).unwrap();
        let gone = store
            .forget_feature("file:///p.step", "chamfer", &at(1).revision)
            .unwrap();
        assert_eq!(gone, 1, "revision 1's copy went");
        let (fresh, copy) = live_and_copy(&mut store, 1);
        assert!(fresh.carried.is_none() && copy.is_none());
        let (saved, replaced) = store.remember(&chamfer_at(1, "one again")).unwrap();
        assert!(!replaced);
        assert_eq!(saved.id, Record::snapshot_id(&fresh.id, &at(1).revision));
        assert_eq!(
            saved.superseded.as_ref().map(|s| s.by.as_str()),
            Some(at(2).revision.as_str())
        );
        let (live, held) = live_and_copy(&mut store, 1);
        assert_eq!(live, fresh, "the feature stays at revision 2, unchanged");
        assert_eq!(held, Some(saved));
        assert_eq!(features(&mut store).len(), 2);
    }

    /// Carried from 1 to 2, forgotten at 2 and stated anew there (another id, never carried),
    /// its copy at 1 forgotten: stated again at 1, the feature stays at 2. Revision 1 was
    /// carried past for the file's feature of that name (the carry's `carried` event, found
    /// by the feature's key as its copy is), and the statement is a new copy there, as it
    /// replaces the copy while that is held. Before, the event was looked for by the
    /// feature's id, and the new feature was moved back to 1 (while `import` of the same
    /// statement, finding the copy by name, kept it at 2: an archive held another review).
    #[test]
    fn a_feature_stated_anew_after_a_carry_is_not_moved_back_once_the_copy_is_forgotten() {
        let mut store = Store::open_in_memory().unwrap();
        store.remember(&chamfer_at(1, "first")).unwrap();
        carry(&mut store, 1, 2, &[("face:11", "face:22")]);
        let forget = |store: &mut Store, n: u8| {
            store
                .forget_feature("file:///p.step", "chamfer", &at(n).revision)
                .unwrap()
        };
        assert_eq!(forget(&mut store, 2), 1, "the carried feature went");
        let (anew, _) = store.remember(&chamfer_at(2, "anew")).unwrap();
        assert_eq!(forget(&mut store, 1), 1, "revision 1's copy went");
        let (saved, replaced) = store.remember(&chamfer_at(1, "one again")).unwrap();
        assert!(!replaced);
        assert_eq!(saved.id, Record::snapshot_id(&anew.id, &at(1).revision));
        assert_eq!(
            saved.superseded.as_ref().map(|s| s.by.as_str()),
            Some(at(2).revision.as_str())
        );
        let (live, held) = live_and_copy(&mut store, 1);
        assert_eq!(live, anew, "the feature stays at revision 2, unchanged");
        assert_eq!(held, Some(saved));
    }

    /// Stated afresh at revision 2 (no longer carried), then carried on to 3: a statement at
    /// revision 1 or 2, both carried past, updates that revision's copy, never the feature.
    #[test]
    fn a_feature_stated_again_at_any_revision_carried_past_stays_where_it_stands() {
        let mut store = Store::open_in_memory().unwrap();
        store.remember(&chamfer_at(1, "first")).unwrap();
        carry(&mut store, 1, 2, &[("face:11", "face:22")]);
        store.remember(&chamfer_at(2, "at two")).unwrap();
        let (fresh, _) = live_and_copy(&mut store, 1);
        assert!(fresh.carried.is_none());
        let (saved, _) = store.remember(&chamfer_at(1, "one again")).unwrap();
        assert_eq!(saved.artifact.revision, at(1).revision);
        assert!(saved.superseded.is_some());
        assert_eq!(live_and_copy(&mut store, 1).0, fresh);
        carry(&mut store, 2, 3, &[("face:22", "face:33")]);
        let (onward, _) = live_and_copy(&mut store, 1);
        for n in [1, 2] {
            let (saved, replaced) = store.remember(&chamfer_at(n, "later")).unwrap();
            assert!(replaced);
            assert_eq!(saved.artifact.revision, at(n).revision);
            assert_eq!(
                saved.superseded.as_ref().map(|s| s.by.as_str()),
                Some(at(n + 1).revision.as_str())
            );
            let (live, held) = live_and_copy(&mut store, n);
            assert_eq!(live, onward, "revision {n}");
            assert_eq!(held, Some(saved));
        }
        assert_eq!(features(&mut store).len(), 3);
    }

    /// A decision stated again at a revision carried on stays superseded, as import and sync
    /// keep it: before, `remember_decision` there made revision 1 live again (a full Form 3,
    /// and carried a second time).
    #[test]
    fn a_decision_stated_again_at_a_revision_carried_on_stays_superseded() {
        let mut store = Store::open_in_memory().unwrap();
        let bore = |n: u8, disposition: &str| super::super::NewDecision {
            artifact: at(n),
            ..super::super::fixtures::bore(disposition)
        };
        store.remember_decision(&bore(1, "hold")).unwrap();
        carry(&mut store, 1, 2, &[]);
        let (d, replaced, _) = store.remember_decision(&bore(1, "release")).unwrap();
        assert!(replaced);
        assert_eq!(d.disposition, "release");
        assert_eq!(
            d.superseded.as_ref().map(|s| s.by.as_str()),
            Some(at(2).revision.as_str())
        );
        assert!(
            store
                .supersession(&at(1).revision)
                .unwrap()
                .superseded_by
                .is_some()
        );
        let mut at_one = Vec::new();
        store
            .decisions_of_revision(&at(1).revision, |d| {
                at_one.push(d.superseded.is_some());
                true
            })
            .unwrap();
        assert_eq!(at_one, vec![true]);
    }

    /// The copy of a note a carry leaves behind is marked superseded in place: its entity, tag
    /// and full-text rows stay as they are. Written again whole, a note of 10,000 long entity ids
    /// cost 20,000 index rows deleted and rewritten unchanged (200 such notes: 107 s in the
    /// release build). Counted in rows changed, which grew with the note's ids.
    #[test]
    fn the_copy_left_behind_is_marked_superseded_not_written_again() {
        let mut store = Store::open_in_memory().unwrap();
        let new = NewRecord {
            artifact: at(1),
            name: None,
            note: Some("the mating face".into()),
            tags: vec!["datum".into()],
            entity_ids: (0..2000).map(|i| format!("face:{i}")).collect(),
            id_scheme: "opaque".into(),
        };
        store.remember(&new).unwrap();
        let changes = |s: &Store| {
            s.conn
                .as_ref()
                .map_or(0, rusqlite::Connection::total_changes)
        };
        let before = changes(&store);
        let out = carry(&mut store, 1, 2, &[]);
        let changed = changes(&store) - before;
        assert_eq!(out.records.len(), 1);
        assert!(changed < 100, "{changed} rows changed by the carry");
        let conn = store.conn.as_ref().unwrap();
        let kept: i64 = conn
            .query_row(
                "SELECT count(*) FROM record_entities WHERE revision = ?1",
                [at(1).revision],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(kept, 2000, "the copy left behind keeps its entity rows");
        let found: i64 = conn
            .query_row(
                "SELECT count(*) FROM records_fts WHERE records_fts MATCH 'mating'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(found, 2, "both copies have their full-text row");
    }
}
