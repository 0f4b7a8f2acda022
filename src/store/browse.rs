//! Browsing the whole store, for resources and `export`: lookups by id, everything written
//! for a revision, the list of revisions with their counts and the uri a revision was last
//! written under, and every record and decision in export order.

use rusqlite::{OptionalExtension, Transaction, params};

use super::decisions::rows::{DECISION_COLS, decision_from_row, load_basis};
use super::records::rows::{RECORD_COLS, record_from_row};
use super::{Store, StoreError};
use crate::review::history::Event;
use crate::review::{Decision, Record, State};

/// What an export writes: every record, every decision, every event.
pub type Exported = (Vec<Record>, Vec<Decision>, Vec<Event>);

/// One item of an export, as [`Store::export_each`] hands them over.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportItem {
    Record(Record),
    Decision(Decision),
    Event(Event),
}

/// Whether the decision `d`, carried on from its revision (superseded), is still said by a
/// later copy: a newer decision of its subject on its file (its carried copy, or one stated
/// again), or one of its subject at the revision it was carried to (onto another file, or
/// already stated there). Newer as `recall_decisions` judges the current decision: by
/// `created_at`, which every clone holds alike (`seq`, the order a database received its
/// items in, differs after a sync), then the id. When every copy was forgotten, nothing says it any more: it is
/// again the file's newest decision of its subject (`recall_decisions` lists it), and a
/// stale claim like any other.
pub(super) const DECISION_SAID_ON: &str = "(EXISTS (SELECT 1 FROM decisions n \
     WHERE n.locator = d.locator AND n.subject = d.subject \
     AND (n.created_at > d.created_at OR (n.created_at = d.created_at AND n.id > d.id))) \
     OR EXISTS (SELECT 1 FROM decisions n \
     WHERE n.revision = json_extract(d.superseded, '$.by') AND n.subject = d.subject))";

/// [`DECISION_SAID_ON`] for a feature `r` (keyed by file and name): the feature as it stands
/// (not superseded), or a later superseded copy of it (carried on again: its `updated_at` is
/// the later carry's), or one of its name at the revision it was carried to. A superseded note has no key to find its copy by: it
/// is taken as said on. The feature as it stands is looked up first, in the feature key's
/// index (`records_feature_key`): the common case costs one search, not a scan of the file.
pub(super) const RECORD_SAID_ON: &str = "(r.name IS NULL \
     OR EXISTS (SELECT 1 FROM records n WHERE n.locator = r.locator AND n.name = r.name \
       AND n.name IS NOT NULL AND n.superseded IS NULL) \
     OR EXISTS (SELECT 1 FROM records n WHERE n.locator = r.locator AND n.name = r.name \
       AND n.id <> r.id AND n.superseded IS NOT NULL \
       AND (n.updated_at > r.updated_at OR (n.updated_at = r.updated_at AND n.id > r.id))) \
     OR EXISTS (SELECT 1 FROM records n \
       WHERE n.revision = json_extract(r.superseded, '$.by') AND n.name = r.name))";

/// A revision's review counted over everything stored ([`Store::revision_tallies`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RevisionTallies {
    /// Decisions at the revision.
    pub decisions: u64,
    /// Their basis items that are open questions (unresolved or conflicting).
    pub open_questions: u64,
    /// Records and decisions written for the same files (the uris of the revision's items)
    /// at other revisions, not carried to this one: stale against it.
    pub stale_records: u64,
    pub stale_decisions: u64,
    /// Of those, how many were carried on to a later revision whose every copy was
    /// forgotten since: no carry brings them here (their revision was carried already).
    pub stale_carried_on: u64,
}

/// What is recorded for one file at one revision ([`Store::file_revisions`]): where the
/// file's review is when the revision asked about holds none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRevision {
    pub revision: String,
    pub records: u64,
    pub decisions: u64,
    /// Of the decisions, how many were carried on to a later revision (judged there).
    pub carried_on: u64,
    /// The revision they were carried to: the last carry's, when several (by when it was
    /// carried, not by hash).
    pub carried_to: Option<String>,
    /// How many revisions they were carried to: more than one when the file's review was
    /// recorded under two paths (a linked folder) and each was carried on apart.
    pub carried_to_revisions: u64,
    /// Basis items of the decisions not carried on that await the engineer: no verdict, or
    /// only the assistant's.
    pub open: u64,
    /// The latest `updated_at` of what is recorded there.
    pub last_activity: String,
}

/// [`Store::file_revisions`]: `?1` the locators (a JSON array), `?2` the revision left out,
/// `?3` the assistant's `via`. Newest activity first (`seq` is one counter for both tables).
/// The revision carried to is the last carry's (by the time it was carried, `superseded.at`,
/// which every clone holds alike), not the highest hash; the last column counts them all.
const FILE_REVISIONS: &str = "WITH l(locator) AS (SELECT value FROM json_each(?1)), \
     per AS ( \
       SELECT d.revision, 0 AS records, 1 AS decisions, d.superseded IS NOT NULL AS carried_on, \
         json_extract(d.superseded, '$.by') AS carried_to, \
         json_extract(d.superseded, '$.at') AS carried_at, \
         CASE WHEN d.superseded IS NULL THEN (SELECT count(*) FROM basis_items b \
           WHERE b.decision_rid = d.rid AND (b.verdict_judgement IS NULL \
             OR b.verdict_via IS NULL OR b.verdict_via = ?3)) ELSE 0 END AS open, \
         d.updated_at AS at, d.seq \
       FROM decisions d WHERE d.locator IN (SELECT locator FROM l) AND d.revision <> ?2 \
       UNION ALL \
       SELECT r.revision, 1, 0, 0, NULL, NULL, 0, r.updated_at, r.seq \
       FROM records r WHERE r.locator IN (SELECT locator FROM l) AND r.revision <> ?2), \
     latest AS (SELECT *, first_value(carried_to) OVER (PARTITION BY revision \
       ORDER BY carried_to IS NULL, carried_at DESC, carried_to DESC) AS carried_last FROM per) \
     SELECT revision, sum(records), sum(decisions), sum(carried_on), max(carried_last), \
       sum(open), max(at), count(DISTINCT carried_to) \
     FROM latest GROUP BY revision ORDER BY max(seq) DESC";

/// One revision as `resources/list` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RevisionSummary {
    pub revision: String,
    pub records: u64,
    pub decisions: u64,
    /// The latest `updated_at` of anything at this revision.
    pub last_activity: String,
    /// The seq of the newest record or decision at this revision (orders the list).
    pub last_seq: i64,
    /// The `uri` of the newest record or decision at this revision that has one.
    pub uri: Option<String>,
}

/// One page of revisions for [`Store::revisions_page`]: `?1` the `last_seq` to stay below
/// (NULL: none), `?2` how many. Every revision is counted and ordered from the revision
/// indexes alone (`(revision, seq)` covers both); the rows themselves (their `updated_at`,
/// their `uri`) are read only for the revisions of the page.
const REVISIONS_PAGE: &str = "WITH per AS ( \
       SELECT revision, count(*) AS records, 0 AS decisions, max(seq) AS last_seq \
       FROM records GROUP BY revision \
       UNION ALL \
       SELECT revision, 0, count(*), max(seq) FROM decisions GROUP BY revision), \
     page AS ( \
       SELECT revision, sum(records) AS records, sum(decisions) AS decisions, \
              max(last_seq) AS last_seq \
       FROM per GROUP BY revision HAVING ?1 IS NULL OR max(last_seq) < ?1 \
       ORDER BY last_seq DESC, revision LIMIT ?2) \
     SELECT revision, records, decisions, last_seq, \
       (SELECT max(at) FROM ( \
          SELECT max(updated_at) AS at FROM records r WHERE r.revision = page.revision \
          UNION ALL \
          SELECT max(updated_at) FROM decisions d WHERE d.revision = page.revision)), \
       (SELECT uri FROM ( \
          SELECT seq, uri FROM records r WHERE r.revision = page.revision \
            AND uri IS NOT NULL \
          UNION ALL \
          SELECT seq, uri FROM decisions d WHERE d.revision = page.revision \
            AND uri IS NOT NULL) \
        ORDER BY seq DESC LIMIT 1) \
     FROM page ORDER BY last_seq DESC, revision";

pub(super) const REVISION_RECORDS: &str = "SELECT count(*) FROM records WHERE revision = ?1";
pub(super) const REVISION_DECISIONS: &str = "SELECT count(*) FROM decisions WHERE revision = ?1";

pub(super) fn decisions_with_basis(
    tx: &Transaction<'_>,
    rows: Vec<(i64, Decision, i64)>,
) -> Result<Vec<Decision>, StoreError> {
    rows.into_iter()
        .map(|(rid, mut d, _)| {
            d.basis = load_basis(tx, rid)?;
            Ok(d)
        })
        .collect()
}

/// The export's order of the records: their keys only, each record then read by its key.
/// SQLite's sorter, given whole rows, held every one of them when each was larger than its
/// memory (records of 10,000 long entity ids): 1 GB of memory to export 200 such records.
const EXPORT_RECORDS: &str = "SELECT r.seq FROM records r ORDER BY r.created_at, r.id";
/// The export's order of the decisions, as [`EXPORT_RECORDS`].
const EXPORT_DECISIONS: &str = "SELECT d.rid FROM decisions d ORDER BY d.created_at, d.id";

/// Each row `by_key` reads for a key `order` returns, in that order, handed to `each`.
fn each_by_key<E: From<StoreError>>(
    tx: &Transaction<'_>,
    order: &str,
    by_key: &str,
    mut each: impl FnMut(&rusqlite::Row<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let mut order = tx.prepare_cached(order).map_err(StoreError::from)?;
    let mut keys = order.query([]).map_err(StoreError::from)?;
    let mut by_key = tx.prepare_cached(by_key).map_err(StoreError::from)?;
    while let Some(key) = keys.next().map_err(StoreError::from)? {
        let key: i64 = key.get(0).map_err(StoreError::from)?;
        let mut rows = by_key.query([key]).map_err(StoreError::from)?;
        if let Some(row) = rows.next().map_err(StoreError::from)? {
            each(row)?;
        }
    }
    Ok(())
}

impl Store {
    /// A record by its id.
    pub fn get_record(&mut self, id: &str) -> Result<Option<Record>, StoreError> {
        record_by_id(&self.read()?, id)
    }

    /// A decision by its id, with its basis.
    pub fn get_decision(&mut self, id: &str) -> Result<Option<Decision>, StoreError> {
        self.find_decision(&super::DecisionRef::Id(id))
    }

    /// Everything written for `revision` (whatever its uri), newest first.
    pub fn revision_contents(
        &mut self,
        revision: &str,
    ) -> Result<(Vec<Record>, Vec<Decision>), StoreError> {
        let tx = self.read()?;
        let records = tx
            .prepare_cached(&format!(
                "SELECT {RECORD_COLS} FROM records r WHERE r.revision = ?1 ORDER BY r.seq DESC"
            ))?
            .query_map([revision], record_from_row)?
            .map(|r| r.map(|(rec, _)| rec))
            .collect::<Result<Vec<_>, _>>()?;
        let rows = tx
            .prepare_cached(&format!(
                "SELECT {DECISION_COLS} FROM decisions d WHERE d.revision = ?1 ORDER BY d.seq DESC"
            ))?
            .query_map([revision], decision_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        let decisions = decisions_with_basis(&tx, rows)?;
        Ok((records, decisions))
    }

    /// Every decision at `revision` (whatever its file) with its basis, oldest first
    /// (`created_at`, then `id`: both survive a replacement, so the order is stable), each
    /// handed to `each` while it is read (one decision in memory at a time here), until
    /// `each` says stop. Returns whether anything (a record or a decision) is recorded at
    /// `revision`.
    pub fn decisions_of_revision(
        &mut self,
        revision: &str,
        mut each: impl FnMut(Decision) -> bool,
    ) -> Result<bool, StoreError> {
        let tx = self.read()?;
        let any_record: bool = tx
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM records WHERE revision = ?1)")?
            .query_row([revision], |r| r.get(0))?;
        let mut stmt = tx.prepare_cached(&format!(
            "SELECT {DECISION_COLS} FROM decisions d WHERE d.revision = ?1 \
             ORDER BY d.created_at, d.id"
        ))?;
        let mut rows = stmt.query([revision])?;
        let mut any_decision = false;
        while let Some(row) = rows.next()? {
            any_decision = true;
            let (rid, mut decision, _) = decision_from_row(row)?;
            decision.basis = load_basis(&tx, rid)?;
            if !each(decision) {
                break;
            }
        }
        Ok(any_record || any_decision)
    }

    /// What a revision's review counts over everything stored, not only what a view of it
    /// has room for (see [`RevisionTallies`]). With `subject`, the decisions (this
    /// revision's and the stale ones) are those about it.
    pub fn revision_tallies(
        &mut self,
        revision: &str,
        subject: Option<&str>,
        file: Option<&str>,
    ) -> Result<RevisionTallies, StoreError> {
        let tx = self.read()?;
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        // Four statements in one read: as scalar subqueries of one SELECT, SQLite evaluated
        // the file list again for every row (seconds on a revision of 6,000 items).
        let one = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<i64, StoreError> {
            Ok(tx.prepare_cached(sql)?.query_row(args, |r| r.get(0))?)
        };
        let decisions = one(
            "SELECT count(*) FROM decisions WHERE revision = ?1 AND (?2 IS NULL OR subject = ?2)",
            &[&revision, &subject],
        )?;
        let open = one(
            "SELECT count(*) FROM decisions d JOIN basis_items b ON b.decision_rid = d.rid \
             WHERE d.revision = ?1 AND (?2 IS NULL OR d.subject = ?2) AND b.state IN (?3, ?4)",
            &[
                &revision,
                &subject,
                &State::Unresolved.as_str(),
                &State::Conflicting.as_str(),
            ],
        )?;
        // The files of the revision's items (and `file`, the one the caller named with the
        // revision), and what was written for them at another revision and not carried on
        // from it: a carried item's claim is its copy's now (here, when carried here directly
        // or through earlier carries, or at the later revision, counted there).
        let files = "WITH files AS ( \
               SELECT uri FROM records WHERE revision = ?1 AND uri IS NOT NULL \
               UNION SELECT uri FROM decisions WHERE revision = ?1 AND uri IS NOT NULL \
                 AND (?2 IS NULL OR subject = ?2) \
               UNION SELECT ?3 WHERE ?3 IS NOT NULL) ";
        // What was carried on and no later copy says any more (every copy forgotten) is a
        // claim of its own again: counted, and how many of them (no carry brings it here).
        // (stale, of which carried on): one reading of the file's items each, the rule of a
        // later copy looked up only for the superseded ones.
        let two = |sql: &str| -> Result<(i64, i64), StoreError> {
            Ok(tx
                .prepare_cached(sql)?
                .query_row(params![revision, subject, file], |r| {
                    Ok((
                        r.get::<_, Option<i64>>(0)?.unwrap_or(0),
                        r.get::<_, Option<i64>>(1)?.unwrap_or(0),
                    ))
                })?)
        };
        let (own_records, carried_on_records) = two(&format!(
            "{files}SELECT sum(r.superseded IS NULL), \
             sum(r.superseded IS NOT NULL AND NOT {RECORD_SAID_ON}) FROM records r \
             WHERE r.locator IN (SELECT uri FROM files) AND r.revision <> ?1"
        ))?;
        let (own_decisions, carried_on_decisions) = two(&format!(
            "{files}SELECT sum(d.superseded IS NULL), \
             sum(d.superseded IS NOT NULL AND NOT {DECISION_SAID_ON}) FROM decisions d \
             WHERE d.locator IN (SELECT uri FROM files) AND d.revision <> ?1 \
             AND (?2 IS NULL OR d.subject = ?2)"
        ))?;
        let stale_carried_on = carried_on_records.saturating_add(carried_on_decisions);
        let stale_records = own_records.saturating_add(carried_on_records);
        let stale_decisions = own_decisions.saturating_add(carried_on_decisions);
        Ok(RevisionTallies {
            decisions: count(decisions),
            open_questions: count(open),
            stale_records: count(stale_records),
            stale_decisions: count(stale_decisions),
            stale_carried_on: count(stale_carried_on),
        })
    }

    /// Every other revision than `except` at which something is recorded for the file of
    /// one of `locators` (its stored `file:` URIs), newest activity first, with what is
    /// there: where a part's review is when its current revision holds none.
    pub fn file_revisions(
        &mut self,
        locators: &[String],
        except: &str,
    ) -> Result<Vec<FileRevision>, StoreError> {
        let tx = self.read()?;
        let locators = serde_json::Value::from(locators.to_vec()).to_string();
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        let mut stmt = tx.prepare_cached(FILE_REVISIONS)?;
        let rows = stmt.query_map(
            params![locators, except, crate::review::Via::Assistant.as_str()],
            |r| {
                Ok(FileRevision {
                    revision: r.get(0)?,
                    records: count(r.get(1)?),
                    decisions: count(r.get(2)?),
                    carried_on: count(r.get(3)?),
                    carried_to: r.get(4)?,
                    open: count(r.get(5)?),
                    last_activity: r.get(6)?,
                    carried_to_revisions: count(r.get(7)?),
                })
            },
        )?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// How many records and decisions are at `revision` (whatever their file): two counts
    /// on the revision indexes.
    pub fn revision_counts(&mut self, revision: &str) -> Result<(u64, u64), StoreError> {
        let tx = self.read()?;
        let count = |sql: &str| -> Result<u64, StoreError> {
            let n: i64 = tx
                .prepare_cached(sql)?
                .query_row([revision], |r| r.get(0))?;
            Ok(u64::try_from(n).unwrap_or(0))
        };
        Ok((count(REVISION_RECORDS)?, count(REVISION_DECISIONS)?))
    }

    /// How many records and decisions the database holds.
    pub fn totals(&mut self) -> Result<(u64, u64), StoreError> {
        let tx = self.read()?;
        let count = |sql: &str| -> Result<u64, StoreError> {
            let n: i64 = tx.prepare_cached(sql)?.query_row([], |r| r.get(0))?;
            Ok(u64::try_from(n).unwrap_or(0))
        };
        Ok((
            count("SELECT count(*) FROM records")?,
            count("SELECT count(*) FROM decisions")?,
        ))
    }

    /// Every revision with its counts, most recent activity first.
    pub fn revisions(&mut self) -> Result<Vec<RevisionSummary>, StoreError> {
        Ok(self.revisions_page(None, usize::MAX)?.0)
    }

    /// One page of [`Store::revisions`]: at most `limit` revisions whose `last_seq` is below
    /// `before` (all when `None`), and whether more follow. Paged in SQL: a page costs its own rows, not every revision's.
    /// A revision's `last_seq` is the seq of one item, so no two revisions share it, and a
    /// revision written to while a client pages moves to the front and is not served twice.
    pub fn revisions_page(
        &mut self,
        before: Option<i64>,
        limit: usize,
    ) -> Result<(Vec<RevisionSummary>, bool), StoreError> {
        let tx = self.read()?;
        let fetch = i64::try_from(limit.saturating_add(1)).unwrap_or(i64::MAX);
        let mut stmt = tx.prepare_cached(REVISIONS_PAGE)?;
        let rows = stmt.query_map(params![before, fetch], |r| {
            let count = |i| r.get::<_, i64>(i).map(|n| u64::try_from(n).unwrap_or(0));
            Ok(RevisionSummary {
                revision: r.get(0)?,
                records: count(1)?,
                decisions: count(2)?,
                last_seq: r.get(3)?,
                last_activity: r.get(4)?,
                uri: r.get(5)?,
            })
        })?;
        let mut page = rows.collect::<Result<Vec<_>, _>>()?;
        let more = page.len() > limit;
        page.truncate(limit);
        Ok((page, more))
    }

    /// Every record, oldest write first (export order: re-importing keeps the order).
    pub fn all_records(&mut self) -> Result<Vec<Record>, StoreError> {
        let tx = self.read()?;
        records_in_order(&tx)
    }

    /// What an export writes, read in one snapshot: every record and every decision (as
    /// [`Store::all_records`] and [`Store::all_decisions`]) and every event of the history,
    /// oldest first ([`Store::events`]).
    pub fn export_all(&mut self) -> Result<Exported, StoreError> {
        let tx = self.read()?;
        let records = records_in_order(&tx)?;
        let decisions = decisions_in_order(&tx)?;
        let events = super::history::all_events(&tx)?;
        Ok((records, decisions, events))
    }

    /// What an export writes, read in one snapshot as [`Store::export_all`] reads it, in the
    /// export's order (records, then decisions, each by `created_at` then `id`; then every
    /// event, oldest first), handed to `each` one at a time: the export of a large database holds
    /// one item in memory, not all of them. An error from `each` stops the reading.
    pub fn export_each<E: From<StoreError>>(
        &mut self,
        mut each: impl FnMut(ExportItem) -> Result<(), E>,
    ) -> Result<(), E> {
        let tx = self.read()?;
        let records = format!("SELECT {RECORD_COLS} FROM records r WHERE r.seq = ?1");
        each_by_key(&tx, EXPORT_RECORDS, &records, |row| {
            let (record, _) = record_from_row(row).map_err(StoreError::from)?;
            each(ExportItem::Record(record))
        })?;
        let decisions = format!("SELECT {DECISION_COLS} FROM decisions d WHERE d.rid = ?1");
        each_by_key(&tx, EXPORT_DECISIONS, &decisions, |row| {
            let (rid, mut decision, _) = decision_from_row(row).map_err(StoreError::from)?;
            decision.basis = load_basis(&tx, rid)?;
            each(ExportItem::Decision(decision))
        })?;
        super::history::each_event(&tx, |e| each(ExportItem::Event(e)))
    }

    /// Every decision with its basis, oldest write first.
    pub fn all_decisions(&mut self) -> Result<Vec<Decision>, StoreError> {
        let tx = self.read()?;
        decisions_in_order(&tx)
    }
}

/// A record by its id, in `tx`.
pub(super) fn record_by_id(tx: &Transaction<'_>, id: &str) -> Result<Option<Record>, StoreError> {
    let r = tx
        .prepare_cached(&format!(
            "SELECT {RECORD_COLS} FROM records r WHERE r.id = ?1"
        ))?
        .query_row([id], record_from_row)
        .optional()?;
    Ok(r.map(|(rec, _)| rec))
}

pub(super) fn records_in_order(tx: &Transaction<'_>) -> Result<Vec<Record>, StoreError> {
    Ok(tx
        .prepare_cached(&format!(
            "SELECT {RECORD_COLS} FROM records r ORDER BY r.seq"
        ))?
        .query_map([], record_from_row)?
        .map(|r| r.map(|(rec, _)| rec))
        .collect::<Result<Vec<_>, _>>()?)
}

pub(super) fn decisions_in_order(tx: &Transaction<'_>) -> Result<Vec<Decision>, StoreError> {
    let rows = tx
        .prepare_cached(&format!(
            "SELECT {DECISION_COLS} FROM decisions d ORDER BY d.seq"
        ))?
        .query_map([], decision_from_row)?
        .collect::<Result<Vec<_>, _>>()?;
    decisions_with_basis(tx, rows)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::artifact;
    use super::super::{NewDecision, NewRecord};
    use super::*;
    use crate::review::BasisItem;

    /// The steps of `sql`'s query plan with `args`.
    fn plan(store: &mut Store, sql: &str, args: &[&dyn rusqlite::ToSql]) -> Vec<String> {
        let conn = store.conn().unwrap();
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        stmt.query_map(args, |r| r.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn rev(n: u8) -> String {
        format!("sha256:{}", format!("{n:x}").repeat(64))
    }

    /// The export sorts keys, not items: each of its ordering statements reads one column,
    /// and every item is then read by that key, one at a time.
    #[test]
    fn the_export_sorts_keys_and_reads_each_item_by_its_key() {
        let mut store = two_revisions();
        let conn = store.conn().unwrap();
        for sql in [EXPORT_RECORDS, EXPORT_DECISIONS] {
            let columns = conn.prepare(sql).unwrap().column_count();
            assert_eq!(columns, 1, "{sql}");
        }
        // `export_all` reads in the order of writing; the export's is by creation, then id
        // (two items created in one millisecond keep the order of their ids).
        let (mut records, mut decisions, _) = store.export_all().unwrap();
        records.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
        decisions.sort_by(|a, b| (&a.created_at, &a.id).cmp(&(&b.created_at, &b.id)));
        let mut exported = (0, 0);
        store
            .export_each(|item| {
                match item {
                    ExportItem::Record(r) => {
                        assert_eq!(records.get(exported.0), Some(&r));
                        exported.0 += 1;
                    }
                    ExportItem::Decision(d) => {
                        assert_eq!(decisions.get(exported.1), Some(&d));
                        exported.1 += 1;
                    }
                    ExportItem::Event(_) => {}
                }
                Ok::<_, StoreError>(())
            })
            .unwrap();
        assert_eq!(exported, (records.len(), decisions.len()));
    }

    fn two_revisions() -> Store {
        let mut store = Store::open_in_memory().unwrap();
        for n in [1, 2] {
            let mut a = artifact(Some("file:///w/a.step"));
            a.revision = rev(n);
            store
                .remember(&NewRecord {
                    artifact: a.clone(),
                    name: None,
                    note: Some("n".into()),
                    tags: vec![],
                    entity_ids: vec![],
                    id_scheme: "opaque".into(),
                })
                .unwrap();
            store
                .remember_decision(&NewDecision {
                    artifact: a,
                    subject: "bore".into(),
                    disposition: "hold".into(),
                    summary: None,
                    basis: vec![],
                })
                .unwrap();
        }
        store
    }

    /// Where a file's review is: every other revision with what it holds, newest first;
    /// items awaiting the engineer are those without a verdict or with the assistant's only.
    #[test]
    fn file_revisions_lists_the_files_other_revisions_with_their_open_items() {
        use crate::review::{Judgement, Verdict, Via};
        let mut store = two_revisions();
        let item = |via: Option<Via>| BasisItem {
            verdict: via.map(|via| Verdict {
                at: "2026-01-01T00:00:00.000Z".into(),
                author: None,
                judgement: Judgement::Accepted,
                meaning: None,
                reason: None,
                via,
            }),
            ..BasisItem::stated(&format!("r {via:?}"))
        };
        let mut a = artifact(Some("file:///w/a.step"));
        a.revision = rev(3);
        let (wall, _, _) = store
            .remember_decision(&NewDecision {
                artifact: a,
                subject: "wall".into(),
                disposition: "hold".into(),
                summary: None,
                basis: vec![item(None), item(Some(Via::Assistant)), item(None)],
            })
            .unwrap();
        let judged = item(Some(Via::App)).verdict.unwrap();
        store
            .record_verdicts(
                &super::super::DecisionRef::Id(&wall.id),
                super::super::Shown::Basis(&wall.basis_digest()),
                &[(2, judged)],
            )
            .unwrap();
        // Another file's decision is not this file's review.
        let mut other = artifact(Some("file:///w/b.step"));
        other.revision = rev(4);
        store.remember_decision(&bore_on(other)).unwrap();
        let found = store
            .file_revisions(&["file:///w/a.step".to_string()], &rev(2))
            .unwrap();
        let got: Vec<(String, u64, u64, u64)> = found
            .iter()
            .map(|f| (f.revision.clone(), f.records, f.decisions, f.open))
            .collect();
        assert_eq!(got, [(rev(3), 0, 1, 2), (rev(1), 1, 1, 0)]);
        assert!(
            found
                .iter()
                .all(|f| f.carried_on == 0 && f.carried_to.is_none())
        );
        assert!(!found[0].last_activity.is_empty());
        assert!(
            store
                .file_revisions(&["file:///w/none.step".to_string()], &rev(2))
                .unwrap()
                .is_empty()
        );
    }

    /// Regression: a revision carried to two revisions (the part's review recorded under two
    /// paths of one file, a linked folder, each carried on) named the lexically highest
    /// revision it went to (`max`), not the one it was carried to last.
    #[test]
    fn file_revisions_names_the_latest_carry_not_the_highest_hash() {
        use super::super::carry::CarryPlan;
        use crate::review::carry::EntityMap;
        let mut store = Store::open_in_memory().unwrap();
        let paths = ["file:///w/a.step", "file:///link/a.step"];
        let at = |uri: &str, n: u8| {
            let mut a = artifact(Some(uri));
            a.revision = rev(n);
            a
        };
        for uri in paths {
            store.remember_decision(&bore_on(at(uri, 1))).unwrap();
        }
        // Carried to the higher hash first, then, later, to the lower one.
        for (uri, to) in [(paths[0], 9), (paths[1], 5)] {
            let plan = CarryPlan {
                from: at(uri, 1),
                to: at(uri, to),
                map: EntityMap::new(&[], &[]).unwrap(),
                change: None,
            };
            store
                .carry_forward_answered(&plan, |_| Ok::<_, StoreError>(()))
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let locators: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        let found = store.file_revisions(&locators, &rev(7)).unwrap();
        let first = found.iter().find(|f| f.revision == rev(1)).unwrap();
        assert_eq!((first.decisions, first.carried_on), (2, 2));
        assert_eq!(first.carried_to.as_deref(), Some(rev(5).as_str()));
        assert_eq!(first.carried_to_revisions, 2);
    }

    fn bore_on(artifact: crate::review::Artifact) -> NewDecision {
        NewDecision {
            artifact,
            subject: "bore".into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![],
        }
    }

    /// A revision's counts (the revision resources' totals) are two index searches, not the
    /// list of every revision they were picked out of (200 ms at 100,000 records).
    #[test]
    fn a_revisions_counts_search_its_index() {
        let mut store = two_revisions();
        for sql in [REVISION_RECORDS, REVISION_DECISIONS] {
            let steps = plan(&mut store, sql, &[&rev(1)]);
            assert!(
                steps.len() == 1 && steps[0].starts_with("SEARCH") && steps[0].contains("COVERING"),
                "{sql}: {steps:?}"
            );
        }
        assert_eq!(store.revision_counts(&rev(1)).unwrap(), (1, 1));
        assert_eq!(store.revision_counts(&rev(3)).unwrap(), (0, 0));
        assert_eq!(store.totals().unwrap(), (2, 2));
    }

    /// Regression: a page of `resources/list` read every record and decision row (their
    /// `updated_at`) to order the revisions, 200 ms for a page of 50 at 100,000 records.
    /// Only the revision indexes are walked for every revision; rows are read for the page.
    #[test]
    fn a_page_of_revisions_reads_rows_only_of_its_own_revisions() {
        let mut store = two_revisions();
        let steps = plan(&mut store, REVISIONS_PAGE, &[&None::<i64>, &50]);
        for step in &steps {
            if step.starts_with("SCAN records") || step.starts_with("SCAN decisions") {
                assert!(step.contains("COVERING INDEX"), "{step}: {steps:?}");
            }
        }
        let (page, more) = store.revisions_page(None, 1).unwrap();
        assert!(more);
        assert_eq!(
            (
                page[0].revision.as_str(),
                page[0].records,
                page[0].decisions
            ),
            (rev(2).as_str(), 1, 1)
        );
        assert_eq!(page[0].uri.as_deref(), Some("file:///w/a.step"));
        assert!(!page[0].last_activity.is_empty());
        let (rest, more) = store.revisions_page(Some(page[0].last_seq), 5).unwrap();
        assert!(!more);
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].revision, rev(1));
    }
}
