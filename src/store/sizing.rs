//! Counts that let a small answer say what it left out: the older decisions a current-only
//! recall skipped, and the other revisions where an entity id that matched nothing is known.

use rusqlite::types::Value as SqlValue;

use super::browse::RECORD_SAID_ON;
use super::decisions::{CURRENT_DECISION, decision_filters};
use super::query::Clause;
use super::records::{Driver, record_filters};
use super::search::{fts_words, match_all};
use super::{DecisionQuery, RecordQuery, Store, StoreError};

#[cfg(test)]
thread_local! {
    /// The SQLite virtual machine steps of the last count on this thread (0: none counted).
    static COUNT_STEPS: std::cell::Cell<i32> = const { std::cell::Cell::new(0) };
}

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
        self.count_matching(
            "decisions d",
            "decisions_fts",
            q.text.as_deref(),
            None,
            |c| {
                decision_filters(c, &all, true);
                c.add(&format!("NOT {CURRENT_DECISION}"), Vec::new());
            },
        )
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
        // Counting walks every record the query matches (at 50,000 records of which 45,000
        // hold the word, 40 ms of a recall by text's first page, and as much by a common
        // tag), and only the superseded copies among them count: where there is no copy at
        // all (nothing was ever carried) the partial indexes of the copies say so at once.
        let unless = "NOT EXISTS (SELECT 1 FROM records WHERE superseded IS NOT NULL)";
        self.count_matching(
            "records r",
            "records_fts",
            q.text.as_deref(),
            Some(unless),
            |c| {
                c.add("r.seq <= ?", [SqlValue::Integer(snapshot)]);
                record_filters(c, &all, "r.seq", Driver::Records);
                c.add(
                    &format!("r.superseded IS NOT NULL AND {RECORD_SAID_ON}"),
                    Vec::new(),
                );
                if let Some(rev) = &q.current_revision {
                    c.add("r.revision <> ?", [SqlValue::Text(rev.clone())]);
                }
            },
        )
    }

    /// How many rows of `table` (`"records r"` or `"decisions d"`, its alias the one the
    /// filters name) match `text` in `fts`, its full-text index, and what `filters` adds;
    /// none, without counting, when `none_if` (a condition on the database) holds.
    fn count_matching(
        &mut self,
        table: &str,
        fts: &str,
        text: Option<&str>,
        none_if: Option<&str>,
        filters: impl FnOnce(&mut Clause),
    ) -> Result<u64, StoreError> {
        let tx = self.read()?;
        #[cfg(test)]
        COUNT_STEPS.set(0);
        if let Some(none_if) = none_if
            && tx.query_row(&format!("SELECT {none_if}"), [], |r| r.get::<_, bool>(0))?
        {
            return Ok(0);
        }
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
        let mut stmt = tx.prepare(&sql)?;
        let n: i64 = stmt.query_row(rusqlite::params_from_iter(c.params), |r| r.get(0))?;
        #[cfg(test)]
        COUNT_STEPS.set(stmt.get_status(rusqlite::StatementStatus::VmStep));
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

    /// Regression (the largest valid inputs): the superseded copies a current-only recall
    /// left out were counted by walking every record the query matched, on every first page
    /// (at 50,000 records of which 45,000 hold the word, 40 ms of a recall by text, and as
    /// much by a common tag), also where nothing was ever carried. With no copy stored the
    /// count is not walked: it costs the same at 20 matches and at 400.
    #[test]
    fn superseded_copies_are_not_counted_by_walking_the_matches_where_there_is_none() {
        let mut s = Store::open_in_memory().unwrap();
        let q = RecordQuery {
            text: Some("bore".into()),
            current_only: true,
            ..RecordQuery::default()
        };
        let mut steps = Vec::new();
        for more in [20, 380] {
            for _ in 0..more {
                let mut r = note_at(&rev(1), Some("/parts/a.step".into()));
                r.note = Some("bore to H7".into());
                s.remember(&r).unwrap();
            }
            assert_eq!(s.count_superseded_records(&q, i64::MAX).unwrap(), 0);
            steps.push(COUNT_STEPS.get());
        }
        assert_eq!(
            steps[0], steps[1],
            "SQLite steps at 20 and 400 matches: {steps:?}"
        );
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
