//! Browsing the whole store, for resources and `export`: lookups by id, everything written
//! for a revision, the list of revisions with their counts and the uri a revision was last
//! written under, and every record and decision in export order.

use rusqlite::{OptionalExtension, Transaction};

use super::decision_rows::{DECISION_COLS, decision_from_row, load_basis};
use super::record_rows::{RECORD_COLS, record_from_row};
use super::{Store, StoreError};
use crate::review::{Decision, Record};

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
}

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

impl Store {
    /// A record by its id.
    pub fn get_record(&mut self, id: &str) -> Result<Option<Record>, StoreError> {
        let tx = self.read()?;
        let r = tx
            .prepare_cached(&format!(
                "SELECT {RECORD_COLS} FROM records r WHERE r.id = ?1"
            ))?
            .query_row([id], record_from_row)
            .optional()?;
        Ok(r.map(|(rec, _)| rec))
    }

    /// A decision by its id, with its basis.
    pub fn get_decision(&mut self, id: &str) -> Result<Option<Decision>, StoreError> {
        let tx = self.read()?;
        let row = tx
            .prepare_cached(&format!(
                "SELECT {DECISION_COLS} FROM decisions d WHERE d.id = ?1"
            ))?
            .query_row([id], decision_from_row)
            .optional()?;
        let out = match row {
            Some(row) => decisions_with_basis(&tx, vec![row])?.pop(),
            None => None,
        };
        Ok(out)
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

    /// Every revision with its counts, most recent activity first.
    pub fn revisions(&mut self) -> Result<Vec<RevisionSummary>, StoreError> {
        let tx = self.read()?;
        let mut by_rev: std::collections::HashMap<String, RevisionSummary> = Default::default();
        for (table, is_record) in [("records", true), ("decisions", false)] {
            let sql = format!(
                "SELECT revision, count(*), max(seq), max(updated_at) FROM {table} GROUP BY revision"
            );
            let mut stmt = tx.prepare_cached(&sql)?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })?;
            for row in rows {
                let (revision, count, seq, updated) = row?;
                let e = by_rev.entry(revision.clone()).or_insert(RevisionSummary {
                    revision,
                    records: 0,
                    decisions: 0,
                    last_activity: String::new(),
                    last_seq: 0,
                });
                let count = u64::try_from(count).unwrap_or(0);
                if is_record {
                    e.records = count;
                } else {
                    e.decisions = count;
                }
                e.last_seq = e.last_seq.max(seq);
                if updated > e.last_activity {
                    e.last_activity = updated;
                }
            }
        }
        let mut out: Vec<RevisionSummary> = by_rev.into_values().collect();
        out.sort_by(|a, b| {
            b.last_seq
                .cmp(&a.last_seq)
                .then(a.revision.cmp(&b.revision))
        });
        Ok(out)
    }

    /// Every record, oldest write first (export order: re-importing keeps the order).
    pub fn all_records(&mut self) -> Result<Vec<Record>, StoreError> {
        let tx = self.read()?;
        let v = tx
            .prepare_cached(&format!(
                "SELECT {RECORD_COLS} FROM records r ORDER BY r.seq"
            ))?
            .query_map([], record_from_row)?
            .map(|r| r.map(|(rec, _)| rec))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(v)
    }

    /// Every decision with its basis, oldest write first.
    pub fn all_decisions(&mut self) -> Result<Vec<Decision>, StoreError> {
        let tx = self.read()?;
        let rows = tx
            .prepare_cached(&format!(
                "SELECT {DECISION_COLS} FROM decisions d ORDER BY d.seq"
            ))?
            .query_map([], decision_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        decisions_with_basis(&tx, rows)
    }

    /// The `uri` of the most recent record or decision at `revision` that has one.
    pub fn revision_uri(&mut self, revision: &str) -> Result<Option<String>, StoreError> {
        let tx = self.read()?;
        let mut best: Option<(i64, String)> = None;
        for sql in [
            "SELECT seq, uri FROM records WHERE revision = ?1 AND uri IS NOT NULL ORDER BY seq DESC LIMIT 1",
            "SELECT seq, uri FROM decisions WHERE revision = ?1 AND uri IS NOT NULL ORDER BY seq DESC LIMIT 1",
        ] {
            let row: Option<(i64, String)> = tx
                .prepare_cached(sql)?
                .query_row([revision], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            if let Some(row) = row {
                if best.as_ref().is_none_or(|b| row.0 > b.0) {
                    best = Some(row);
                }
            }
        }
        Ok(best.map(|(_, uri)| uri))
    }
}
