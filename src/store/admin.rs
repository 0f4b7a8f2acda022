//! Whole-store queries for resources and the command line: lookups by id, everything for a
//! revision, the list of revisions, export order, import, and the integrity check.

use rusqlite::{OptionalExtension, Transaction, params};

use super::decisions::{
    DECISION_COLS, decision_from_row, delete_decisions, load_basis, write_decision,
};
use super::records::{RECORD_COLS, delete_records, record_from_row, write_record};
use super::{SCHEMA_VERSION, Store, StoreError, next_seq};
use crate::review::{Decision, Kind, Record, is_revision};

/// One revision as `resources/list` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RevisionSummary {
    pub revision: String,
    pub records: u64,
    pub decisions: u64,
    /// The latest `updated_at` of anything at this revision.
    pub last_activity: String,
    /// The write counter of the latest write at this revision (orders the list).
    pub last_seq: i64,
}

/// What an import wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImportSummary {
    pub records: usize,
    pub decisions: usize,
}

fn decisions_with_basis(
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
    /// The schema version stored in the file.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

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

    /// Everything written for `revision` (whatever its uri), most recently updated first.
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

    /// Writes exported records and decisions in one transaction, keeping their ids and
    /// timestamps: an id already present is overwritten; a named feature (or a decision)
    /// whose key is held by another id replaces that one. All or nothing.
    pub fn import(
        &mut self,
        records: &[Record],
        decisions: &[Decision],
    ) -> Result<ImportSummary, StoreError> {
        for r in records {
            check_imported_record(r)?;
        }
        for (i, d) in decisions.iter().enumerate() {
            if !is_revision(&d.artifact.revision) {
                return Err(StoreError::Invalid(format!(
                    "decision {}: malformed revision {:?}",
                    d.id, d.artifact.revision
                )));
            }
            for (j, item) in d.basis.iter().enumerate() {
                item.check(j)
                    .map_err(|e| StoreError::Invalid(format!("decision {} (#{i}): {e}", d.id)))?;
            }
        }
        let tx = self.write()?;
        for r in records {
            let seq = next_seq(&tx)?;
            let by_id: Option<i64> = tx
                .prepare_cached("SELECT rid FROM records WHERE id = ?1")?
                .query_row([&r.id], |row| row.get(0))
                .optional()?;
            if let Some(name) = &r.name {
                let holders: Vec<i64> = tx
                    .prepare_cached(
                        "SELECT rid FROM records WHERE locator = ?1 AND name = ?2 AND id <> ?3",
                    )?
                    .query_map(params![r.artifact.locator(), name, r.id], |row| row.get(0))?
                    .collect::<Result<_, _>>()?;
                delete_records(&tx, &holders)?;
            }
            write_record(&tx, by_id, r, seq)?;
        }
        for d in decisions {
            let seq = next_seq(&tx)?;
            let by_id: Option<i64> = tx
                .prepare_cached("SELECT rid FROM decisions WHERE id = ?1")?
                .query_row([&d.id], |row| row.get(0))
                .optional()?;
            let holders: Vec<i64> = tx
                .prepare_cached(
                    "SELECT rid FROM decisions WHERE locator = ?1 AND subject = ?2 \
                     AND revision = ?3 AND id <> ?4",
                )?
                .query_map(
                    params![d.artifact.locator(), d.subject, d.artifact.revision, d.id],
                    |row| row.get(0),
                )?
                .collect::<Result<_, _>>()?;
            delete_decisions(&tx, &holders)?;
            write_decision(&tx, by_id, d, seq)?;
        }
        tx.commit()?;
        Ok(ImportSummary {
            records: records.len(),
            decisions: decisions.len(),
        })
    }

    /// SQLite's integrity and foreign-key checks plus the full-text indexes' own check.
    /// Returns the problems found (empty when the file is sound).
    pub fn check(&mut self) -> Result<Vec<String>, StoreError> {
        let mut problems = Vec::new();
        let version = self.schema_version()?;
        if version != SCHEMA_VERSION {
            problems.push(format!(
                "schema version {version}, expected {SCHEMA_VERSION}"
            ));
        }
        let tx = self.read()?;
        {
            let mut stmt = tx.prepare("PRAGMA integrity_check")?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
            for row in rows {
                let row = row?;
                if row != "ok" {
                    problems.push(format!("integrity: {row}"));
                }
            }
            let mut stmt = tx.prepare("PRAGMA foreign_key_check")?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
            for row in rows {
                problems.push(format!("foreign key violation in table {}", row?));
            }
        }
        drop(tx);
        for table in ["records_fts", "decisions_fts"] {
            let sql = format!("INSERT INTO {table} ({table}) VALUES ('integrity-check')");
            if let Err(e) = self.conn.execute(&sql, []) {
                problems.push(format!("{table}: {e}"));
            }
        }
        Ok(problems)
    }
}

fn check_imported_record(r: &Record) -> Result<(), StoreError> {
    if !is_revision(&r.artifact.revision) {
        return Err(StoreError::Invalid(format!(
            "record {}: malformed revision {:?}",
            r.id, r.artifact.revision
        )));
    }
    if (r.kind == Kind::Feature) != r.name.is_some() {
        return Err(StoreError::Invalid(format!(
            "record {}: a feature has a name and a note has none",
            r.id
        )));
    }
    Ok(())
}
