//! The review's history as its readers ask for it: a page with when recording began and
//! whether what it covers began before (`review_history`, the history resource), one event
//! by id (an event too large for one answer, in parts), and each decision's latest changes
//! (the trail of the report and the review card). Each read is one transaction.

use rusqlite::{OptionalExtension, Transaction, params};

use super::history::{HistoryQuery, history_page, parse, scope, since};
use super::query::Clause;
use super::{Page, PageRequest, Store, StoreError};
use crate::review::history::Event;

/// A page of history and what a reader must be told with it.
#[derive(Debug)]
pub struct HistoryAnswer {
    pub page: Page<Event>,
    /// When this database began recording its history (nothing before was recorded).
    pub since: Option<String>,
    /// Whether a decision or record in scope began before `since`, so that its earlier
    /// changes were never recorded.
    pub earlier_unrecorded: bool,
    /// For one id: that nothing is known of it here (no event, no decision or record).
    pub unknown: bool,
    /// For one id of a stored feature or note: its `created_at` and `author` as the record
    /// holds them, since a record's creation is not an event (only its changes are).
    pub record_created: Option<(String, Option<String>)>,
}

/// A decision's latest changes, newest first, and how many it has in all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trail {
    pub events: Vec<Event>,
    pub total: u64,
    /// Whether the decision began before recording did (see [`HistoryAnswer`]).
    pub earlier_unrecorded: bool,
}

/// Whether a decision or record in scope began before `since`: one still stored that was
/// created before it, or one forgotten whose history has no beginning (created, arrived, or
/// carried in from another revision).
fn began_before(
    tx: &Transaction<'_>,
    q: &HistoryQuery,
    since: Option<&str>,
) -> Result<bool, StoreError> {
    let Some(since) = since else {
        // No beginning of recording known: nothing may be claimed complete.
        return Ok(true);
    };
    for table in ["decisions", "records"] {
        let mut c = scope(q, "id");
        c.add("created_at < ?", [Clause::text(since)]);
        // A decision whose history holds its creation (here or in the database it came
        // from, its events imported or synced with it) has every change recorded, however
        // old it is.
        let begun = match table {
            "decisions" => {
                " AND NOT EXISTS (SELECT 1 FROM events b WHERE b.of = decisions.id AND ( \
                 json_extract(b.body, '$.kind') = 'created' \
                 OR (json_extract(b.body, '$.kind') = 'carried' AND EXISTS ( \
                     SELECT 1 FROM json_each(b.body, '$.changes') \
                     WHERE json_extract(value, '$.field') = 'decision' \
                     AND json_extract(value, '$.from') IS NOT NULL))))"
            }
            _ => "",
        };
        let sql = format!(
            "SELECT EXISTS (SELECT 1 FROM {table} WHERE {}{begun})",
            c.joined()
        );
        let found: bool = tx.query_row(&sql, rusqlite::params_from_iter(c.params), |r| r.get(0))?;
        if found {
            return Ok(true);
        }
    }
    let (sql, c) = forgotten_unbegun(q);
    Ok(tx.query_row(&sql, rusqlite::params_from_iter(c.params), |r| r.get(0))?)
}

/// Whether an item of the scope was forgotten and its history has no beginning: its SQL and
/// parameters. A decision's end names its disposition; a carried feature's end names nothing
/// (`forget_feature`), and a feature's history never has a beginning (its creation is no
/// event: a stored one is judged by its `created_at`), so its end says nothing unrecorded.
/// An ending is an event that leaves no state (`after` NULL, as import and
/// `history::explained` take it), so the endings of a file or revision are searched in the
/// partial indexes of endings (schema version 19) and only they are read as JSON: asked of
/// every event of the scope, the `kind` in the body was parsed from every event on every
/// page (at 100,000 events of one file, 0.3 s a call, reading the whole table).
fn forgotten_unbegun(q: &HistoryQuery) -> (String, Clause) {
    let c = scope(q, "f.of");
    let sql = format!(
        "SELECT EXISTS (SELECT 1 FROM events f WHERE {} AND f.after IS NULL \
         AND json_extract(f.body, '$.kind') = 'forgotten' \
         AND json_array_length(f.body, '$.changes') > 0 \
         AND NOT EXISTS (SELECT 1 FROM events b WHERE b.of = f.of AND ( \
             json_extract(b.body, '$.kind') IN ('created', 'arrived') \
             OR (json_extract(b.body, '$.kind') = 'carried' AND EXISTS ( \
                 SELECT 1 FROM json_each(b.body, '$.changes') \
                 WHERE json_extract(value, '$.field') = 'decision' \
                 AND json_extract(value, '$.from') IS NOT NULL)))))",
        c.joined()
    );
    (sql, c)
}

impl Store {
    /// One page of the events matching `q` newest first (see [`Store::history`]), when this
    /// database began recording, and whether what `q` covers began before that: one read.
    pub fn history_answer(
        &mut self,
        q: &HistoryQuery,
        page: PageRequest,
    ) -> Result<HistoryAnswer, StoreError> {
        let tx = self.read()?;
        let page = history_page(&tx, q, page)?;
        let since = since(&tx)?;
        let earlier_unrecorded = began_before(&tx, q, since.as_deref())?;
        let unknown = match &q.of {
            Some(id) if page.items.is_empty() => {
                let stored: bool = tx
                    .prepare_cached(
                        "SELECT EXISTS (SELECT 1 FROM events WHERE of = ?1) \
                         OR EXISTS (SELECT 1 FROM decisions WHERE id = ?1) \
                         OR EXISTS (SELECT 1 FROM records WHERE id = ?1)",
                    )?
                    .query_row(params![id], |r| r.get(0))?;
                !stored
            }
            _ => false,
        };
        let record_created = match &q.of {
            Some(id) => tx
                .prepare_cached("SELECT created_at, author FROM records WHERE id = ?1")?
                .query_row(params![id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?,
            None => None,
        };
        Ok(HistoryAnswer {
            page,
            since,
            earlier_unrecorded,
            unknown,
            record_created,
        })
    }

    /// How many events item `of` has and the id of the newest: what changes whenever its
    /// history does (events are only ever added).
    pub fn history_mark(&mut self, of: &str) -> Result<(u64, Option<String>), StoreError> {
        let tx = self.read()?;
        let count: i64 = tx
            .prepare_cached("SELECT count(*) FROM events WHERE of = ?1")?
            .query_row(params![of], |r| r.get(0))?;
        let newest: Option<String> = tx
            .prepare_cached("SELECT id FROM events WHERE of = ?1 ORDER BY seq DESC LIMIT 1")?
            .query_row(params![of], |r| r.get(0))
            .optional()?;
        Ok((u64::try_from(count).unwrap_or(0), newest))
    }

    /// The event `id`, if this database has it.
    pub fn event(&mut self, id: &str) -> Result<Option<Event>, StoreError> {
        let tx = self.read()?;
        let body: Option<String> = tx
            .prepare_cached("SELECT body FROM events WHERE id = ?1")?
            .query_row(params![id], |r| r.get(0))
            .optional()?;
        body.map(|b| parse(&b)).transpose()
    }

    /// The trail of each decision of `ids`: its `per` latest events newest first, how many
    /// it has, and whether it began before recording did; with when recording began. One
    /// read.
    pub fn trails(
        &mut self,
        ids: &[&str],
        per: usize,
    ) -> Result<(Vec<Trail>, Option<String>), StoreError> {
        let tx = self.read()?;
        let since = since(&tx)?;
        let limit = i64::try_from(per).unwrap_or(i64::MAX);
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let bodies: Vec<String> = tx
                .prepare_cached(
                    "SELECT body FROM events WHERE of = ?1 ORDER BY at DESC, seq DESC LIMIT ?2",
                )?
                .query_map(params![id, limit], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            let total: i64 = tx
                .prepare_cached("SELECT count(*) FROM events WHERE of = ?1")?
                .query_row(params![id], |r| r.get(0))?;
            let q = HistoryQuery {
                of: Some((*id).to_string()),
                ..HistoryQuery::default()
            };
            out.push(Trail {
                events: bodies.iter().map(|b| parse(b)).collect::<Result<_, _>>()?,
                total: u64::try_from(total).unwrap_or(0),
                earlier_unrecorded: began_before(&tx, &q, since.as_deref())?,
            });
        }
        Ok((out, since))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewDecision;
    use crate::store::fixtures::{artifact, query_plan};

    fn bore(subject: &str) -> NewDecision {
        NewDecision {
            artifact: artifact(Some("file:///w/a.step")),
            subject: subject.into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![],
        }
    }

    /// Recording began after `bore` was created (as in a database upgraded to this version),
    /// and it arrived here without the event of its creation: its history says its earlier
    /// changes were not recorded, while one created since, and one forgotten whose history
    /// begins with its creation, say nothing of the kind.
    /// Regression (the largest valid inputs): whether a forgotten item of a file or revision
    /// began before recording did was asked of every event of it, each body parsed, on every
    /// `review_history` page (0.3 s a call at 100,000 events of one file). The endings are
    /// searched in their partial indexes.
    #[test]
    fn the_forgotten_of_a_file_or_revision_are_searched_among_its_endings_only() {
        let mut store = Store::open_in_memory().unwrap();
        let conn = store.conn().unwrap();
        for (q, index) in [
            (
                HistoryQuery {
                    locator: Some("file:///w/a.step".into()),
                    ..HistoryQuery::default()
                },
                "events_ended_locator",
            ),
            (
                HistoryQuery {
                    revision: Some(artifact(None).revision),
                    ..HistoryQuery::default()
                },
                "events_ended_revision",
            ),
        ] {
            let (sql, c) = forgotten_unbegun(&q);
            let steps = query_plan(conn, &sql, rusqlite::params_from_iter(c.params));
            assert!(
                steps
                    .iter()
                    .any(|s| s.starts_with(&format!("SEARCH f USING INDEX {index} ("))),
                "{steps:?}"
            );
        }
    }

    #[test]
    fn what_began_before_the_history_is_said_to_have_unrecorded_changes() {
        let mut store = Store::open_in_memory().unwrap();
        // `old` arrives without its history (an export from before it): its creation is no
        // event here.
        let (old, _, _) = Store::open_in_memory()
            .unwrap()
            .remember_decision(&bore("old"))
            .unwrap();
        store.import(&[], std::slice::from_ref(&old)).unwrap();
        let (gone, _, _) = store.remember_decision(&bore("gone")).unwrap();
        let key = gone.artifact.locator().to_string();
        store
            .forget_decision(&key, "gone", &gone.artifact.revision)
            .unwrap();
        let of = |id: &str| HistoryQuery {
            of: Some(id.to_string()),
            ..HistoryQuery::default()
        };
        let before = store
            .history_answer(&of(&old.id), PageRequest::first(10))
            .unwrap();
        assert!(!before.earlier_unrecorded, "{before:?}");
        {
            let tx = store.write().unwrap();
            tx.execute(
                "UPDATE counters SET value = value + 86400000 WHERE name = 'history_since'",
                [],
            )
            .unwrap();
            tx.commit().unwrap();
        }
        let got = store
            .history_answer(&of(&old.id), PageRequest::first(10))
            .unwrap();
        assert!(got.earlier_unrecorded, "{got:?}");
        assert!(got.since.as_deref() > Some(old.created_at.as_str()));
        let file = HistoryQuery {
            locator: Some(key.clone()),
            ..HistoryQuery::default()
        };
        assert!(
            store
                .history_answer(&file, PageRequest::first(10))
                .unwrap()
                .earlier_unrecorded
        );
        let gone_history = store
            .history_answer(&of(&gone.id), PageRequest::first(10))
            .unwrap();
        assert!(
            !gone_history.earlier_unrecorded,
            "it began with its creation"
        );
        assert_eq!(gone_history.page.items.len(), 2);
        let (trails, since) = store.trails(&[&old.id], 5).unwrap();
        assert_eq!(since, got.since);
        assert!(trails[0].earlier_unrecorded);
        assert_eq!(trails[0].total, 1);
        assert_eq!(
            store.event(&trails[0].events[0].id).unwrap().as_ref(),
            Some(&trails[0].events[0])
        );
        assert_eq!(store.event("evt-none").unwrap(), None);
    }
}
