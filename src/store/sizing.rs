//! Counts that let a small answer say what it left out: the older decisions a current-only
//! recall skipped, and the other revisions where an entity id that matched nothing is known.

use rusqlite::types::Value as SqlValue;

use super::decisions::{CURRENT_DECISION, decision_filters};
use super::query::Clause;
use super::search::{fts_words, match_all};
use super::{DecisionQuery, Store, StoreError};

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
        let tx = self.read()?;
        let all = DecisionQuery {
            current_only: false,
            ..q.clone()
        };
        let mut c = Clause::default();
        if let Some(text) = &q.text {
            match match_all(&fts_words(text)) {
                Some(expr) => c.add(
                    "d.seq IN (SELECT rowid FROM decisions_fts WHERE decisions_fts MATCH ?)",
                    [SqlValue::Text(expr)],
                ),
                None => return Ok(0),
            }
        }
        decision_filters(&mut c, &all, true);
        c.add(&format!("NOT {CURRENT_DECISION}"), Vec::new());
        let sql = format!("SELECT count(*) FROM decisions d WHERE {}", c.joined());
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
        let tx = self.read()?;
        // Records' side rows join by seq (schema 2 dropped their rid), decisions' by rid.
        let (side, id_col, main, key) = match table {
            EntityTable::Records => ("record_entities", "entity_id", "records", "seq"),
            EntityTable::Decisions => ("decision_faces", "face", "decisions", "rid"),
        };
        let mut c = Clause::default();
        c.add(&format!("x.{id_col} = ?"), [Clause::text(entity)]);
        c.add("x.revision <> ?", [Clause::text(revision)]);
        if let Some(l) = locator {
            c.add(
                &format!(
                    "EXISTS (SELECT 1 FROM {main} m WHERE m.{key} = x.{key} AND m.locator = ?)"
                ),
                [Clause::text(l)],
            );
        }
        let sql = format!(
            "SELECT count(DISTINCT x.revision) FROM {side} x \
             WHERE EXISTS (SELECT 1 FROM {main} m WHERE m.{key} = x.{key}) AND {}",
            c.joined()
        );
        let n: i64 = tx.query_row(&sql, rusqlite::params_from_iter(c.params), |r| r.get(0))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}
