//! Counts that let a small answer say what it left out: the older decisions a current-only
//! recall skipped, and the other revisions where an entity id that matched nothing is known.

use rusqlite::types::Value as SqlValue;

use super::browse::RECORD_SAID_ON;
use super::decisions::{CURRENT_DECISION, decision_filters};
use super::query::Clause;
use super::records::{Driver, record_filters};
use super::search::{fts_words, match_all};
use super::{DecisionQuery, RecordQuery, Store, StoreError};

/// Where an entity id is looked for at other revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityTable {
    /// Records' `entity_ids`.
    Records,
    /// Decisions' basis `faces`.
    Decisions,
}

impl Store {
    /// How many decisions match `q` but are not the newest of their subject on their file:
    /// what a current-only recall left out.
    pub fn count_older_decisions(&mut self, q: &DecisionQuery) -> Result<u64, StoreError> {
        let all = DecisionQuery {
            current_only: false,
            ..q.clone()
        };
        self.count_matching("decisions d", "decisions_fts", q.text.as_deref(), |c| {
            decision_filters(c, &all, true);
            c.add(&format!("NOT {CURRENT_DECISION}"), Vec::new());
        })
    }

    /// How many records match `q` (created by `snapshot`, the write counter of the page
    /// they were left out of) but are superseded copies a later copy still says: what a
    /// current-only recall left out (never one of the supplied revision).
    pub fn count_superseded_records(
        &mut self,
        q: &RecordQuery,
        snapshot: i64,
    ) -> Result<u64, StoreError> {
        let all = RecordQuery {
            current_only: false,
            ..q.clone()
        };
        self.count_matching("records r", "records_fts", q.text.as_deref(), |c| {
            c.add("r.seq <= ?", [SqlValue::Integer(snapshot)]);
            record_filters(c, &all, "r.seq", Driver::Records);
            c.add(
                &format!("r.superseded IS NOT NULL AND {RECORD_SAID_ON}"),
                Vec::new(),
            );
            if let Some(rev) = &q.current_revision {
                c.add("r.revision <> ?", [SqlValue::Text(rev.clone())]);
            }
        })
    }

    /// How many rows of `table` (`"records r"` or `"decisions d"`, its alias the one the
    /// filters name) match `text` in `fts`, its full-text index, and what `filters` adds.
    fn count_matching(
        &mut self,
        table: &str,
        fts: &str,
        text: Option<&str>,
        filters: impl FnOnce(&mut Clause),
    ) -> Result<u64, StoreError> {
        let tx = self.read()?;
        let alias = table.rsplit(' ').next().unwrap_or(table);
        let mut c = Clause::default();
        if let Some(text) = text {
            match match_all(&fts_words(text)) {
                Some(expr) => c.add(
                    &format!("{alias}.seq IN (SELECT rowid FROM {fts} WHERE {fts} MATCH ?)"),
                    [SqlValue::Text(expr)],
                ),
                None => return Ok(0),
            }
        }
        filters(&mut c);
        let sql = format!("SELECT count(*) FROM {table} WHERE {}", c.joined());
        let n: i64 = tx.query_row(&sql, rusqlite::params_from_iter(c.params), |r| r.get(0))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// At how many revisions other than `revision` the entity id `entity` is known (of the
    /// file `locator` when given, else of any file), in records or in decisions' faces.
    pub fn entity_elsewhere(
        &mut self,
        table: EntityTable,
        entity: &str,
        revision: &str,
        locator: Option<&str>,
    ) -> Result<u64, StoreError> {
        let (sql, params) = elsewhere_sql(table, entity, revision, locator);
        let tx = self.read()?;
        let n: i64 = tx.query_row(&sql, rusqlite::params_from_iter(params), |r| r.get(0))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}

/// The count of [`Store::entity_elsewhere`] and its parameters.
fn elsewhere_sql(
    table: EntityTable,
    entity: &str,
    revision: &str,
    locator: Option<&str>,
) -> (String, Vec<SqlValue>) {
    let mut c = Clause::default();
    let sql = match table {
        // Decisions' faces are keyed by face first: one range of the primary key.
        EntityTable::Decisions => {
            c.add("x.face = ?", [Clause::text(entity)]);
            c.add("x.revision <> ?", [Clause::text(revision)]);
            let on_file = if locator.is_some() {
                " AND m.locator = ?"
            } else {
                ""
            };
            c.add(
                &format!("EXISTS (SELECT 1 FROM decisions m WHERE m.rid = x.rid{on_file})"),
                locator.map(Clause::text),
            );
            "SELECT count(DISTINCT x.revision) FROM decision_faces x WHERE"
        }
        // Records' entity rows are keyed by revision first, so the scan is driven by the
        // revisions (of the file) the change log knows, each probed by its key: a scan
        // of every entity row took 7 ms at 20,000 records for each recall that missed.
        EntityTable::Records => {
            c.add("v.revision <> ?", [Clause::text(revision)]);
            if let Some(l) = locator {
                c.add("v.locator = ?", [Clause::text(l)]);
            }
            let on_file = if locator.is_some() {
                " AND m.locator = v.locator"
            } else {
                ""
            };
            c.add(
                &format!(
                    "EXISTS (SELECT 1 FROM record_entities x CROSS JOIN records m \
                     ON m.seq = x.seq WHERE x.revision = v.revision AND x.entity_id = ?{on_file})"
                ),
                [Clause::text(entity)],
            );
            "SELECT count(DISTINCT v.revision) FROM changes v WHERE"
        }
    };
    (format!("{sql} {}", c.joined()), c.params)
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::note_at;
    use super::*;

    fn rev(n: u8) -> String {
        format!("sha256:{}", format!("{n:02x}").repeat(32))
    }

    fn remember(store: &mut Store, n: u8, uri: &str, face: &str, name: Option<&str>) {
        let mut r = note_at(&rev(n), Some(uri.into()));
        r.entity_ids = vec![face.into()];
        r.name = name.map(str::to_string);
        store.remember(&r).unwrap();
    }

    #[test]
    fn entity_elsewhere_counts_other_revisions_of_the_file_or_of_any_file() {
        let mut s = Store::open_in_memory().unwrap();
        let (a, b) = ("/parts/a.step", "/parts/b.step");
        remember(&mut s, 1, a, "face:3", None);
        remember(&mut s, 2, a, "face:3", None);
        remember(&mut s, 2, a, "face:3", Some("twice at one revision"));
        // Revision 3 is at both files, face:3 only in b's record.
        remember(&mut s, 3, b, "face:3", None);
        remember(&mut s, 3, a, "face:9", None);
        // Known at revision 4 once, then forgotten.
        remember(&mut s, 4, a, "face:3", Some("gone"));
        assert_eq!(s.forget_feature(a, "gone", &rev(4)).unwrap(), 1);
        let count = |s: &mut Store, locator| {
            s.entity_elsewhere(EntityTable::Records, "face:3", &rev(1), locator)
                .unwrap()
        };
        assert_eq!(count(&mut s, Some(a)), 1);
        assert_eq!(count(&mut s, Some(b)), 1);
        assert_eq!(count(&mut s, None), 2);
        assert_eq!(
            s.entity_elsewhere(EntityTable::Records, "face:9", &rev(3), None)
                .unwrap(),
            0
        );
    }

    /// Regression: the records' count scanned every entity row (their key starts with the
    /// revision), 7 ms at 20,000 records on every recall by entity that found nothing.
    #[test]
    fn entity_elsewhere_probes_keys_instead_of_scanning_entity_rows() {
        let mut s = Store::open_in_memory().unwrap();
        remember(&mut s, 1, "/parts/a.step", "face:3", None);
        let conn = s.conn().unwrap();
        for table in [EntityTable::Records, EntityTable::Decisions] {
            for locator in [Some("/parts/a.step"), None] {
                let (sql, params) = elsewhere_sql(table, "face:3", &rev(2), locator);
                let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
                let plan: Vec<String> = stmt
                    .query_map(rusqlite::params_from_iter(params), |r| r.get(3))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                assert!(
                    !plan.iter().any(|step| step.starts_with("SCAN x")),
                    "{table:?} {locator:?}: {plan:?}"
                );
                assert!(
                    plan.iter().any(|step| step.starts_with("SEARCH x")),
                    "{table:?} {locator:?}: {plan:?}"
                );
            }
        }
    }
}
