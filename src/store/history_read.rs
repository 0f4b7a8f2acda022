//! The review's history as its readers ask for it: a page with when recording began and
//! whether what it covers began before (`review_history`, the history resource), one event
//! by id (an event too large for one answer, in parts), and each decision's latest changes
//! (the trail of the report and the review card). Each read is one transaction.

use rusqlite::{OptionalExtension, Transaction, params};

use super::history::{HistoryQuery, history_page, parse, scope, since, twin_before};
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
    /// history does (events are only ever added), two small queries after every commit while
    /// a client watches it. It counts the events a reader is not shown too
    /// (`history::folded`): one arriving tells the watcher of a change it will not see, once.
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
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let (total, events) = shown(&tx, id, per)?;
            let q = HistoryQuery {
                of: Some((*id).to_string()),
                ..HistoryQuery::default()
            };
            out.push(Trail {
                events,
                total,
                earlier_unrecorded: began_before(&tx, &q, since.as_deref())?,
            });
        }
        Ok((out, since))
    }
}

/// The events of item `of` a reader is shown (all but those [`super::history::folded`] into
/// their twin): how many, and the `per` newest, newest first. A folded event has a twin of
/// the same time written before it: the count reads a body only where the index of the
/// item's events (`events_of`) holds an earlier event of the same millisecond and the
/// channel is a transfer (`import`, `sync`), so a history written one event per change reads
/// none.
fn shown(tx: &Transaction<'_>, of: &str, per: usize) -> Result<(u64, Vec<Event>), StoreError> {
    // Every event of its own millisecond (one per write, as most are): none can be folded,
    // and the count is the index's alone.
    let (all, times): (i64, i64) = tx
        .prepare_cached("SELECT count(*), count(DISTINCT at) FROM events WHERE of = ?1")?
        .query_row(params![of], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let mut hidden = 0;
    if all != times {
        let mut stmt = tx.prepare_cached(
            "SELECT e.seq, e.body FROM events e INDEXED BY events_of WHERE e.of = ?1 \
             AND CASE WHEN EXISTS (SELECT 1 FROM events t INDEXED BY events_of \
                 WHERE t.of = e.of AND t.at = e.at AND t.seq < e.seq) \
               THEN json_extract(e.body, '$.channel') IN ('import', 'sync') ELSE 0 END",
        )?;
        let mut rows = stmt.query(params![of])?;
        while let Some(row) = rows.next()? {
            let body: String = row.get(1)?;
            // The statement asked the index for an earlier event of the same millisecond.
            if twin_before(tx, &parse(&body)?, row.get(0)?)? {
                hidden += 1;
            }
        }
    }
    let q = HistoryQuery {
        of: Some(of.to_string()),
        ..HistoryQuery::default()
    };
    let newest = history_page(tx, &q, PageRequest::first(per))?.items;
    Ok((
        u64::try_from(all - hidden).unwrap_or(0),
        newest.into_iter().map(|(e, _)| e).collect(),
    ))
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

    /// The return of an item after its end recorded on two clones at once, by an import on
    /// one and a sync on the other: the same events (`arrived`, and a decision's verdicts)
    /// but for their channel, and both kept once the histories meet (an export holds both).
    /// Every reader shows the return once, in the channel this database recorded first: the
    /// page, the trail and its count. Events that differ in
    /// anything else, or whose other channel is no transfer (the assistant's), are all shown.
    #[test]
    fn a_return_recorded_by_import_and_by_sync_is_shown_once() {
        use crate::review::history::{Channel, Event};
        let (d, _, _) = Store::open_in_memory()
            .unwrap()
            .remember_decision(&bore("bore"))
            .unwrap();
        let mut arrived = Store::open_in_memory().unwrap();
        arrived.import(&[], std::slice::from_ref(&d)).unwrap();
        let by_import = arrived.events().unwrap();
        assert!(!by_import.is_empty());
        assert!(by_import.iter().all(|e| e.channel == Channel::Import));
        let with = |e: &Event, f: &dyn Fn(&mut Event)| {
            let mut e = e.clone();
            f(&mut e);
            e.sealed()
        };
        let by_sync: Vec<Event> = by_import
            .iter()
            .map(|e| with(e, &|e| e.channel = Channel::Sync))
            .collect();
        let of = HistoryQuery {
            of: Some(d.id.clone()),
            ..HistoryQuery::default()
        };
        let shown = |events: Vec<Event>| {
            let mut store = Store::open_in_memory().unwrap();
            store
                .import_with_history(&[], std::slice::from_ref(&d), &events)
                .unwrap();
            let held = store.events().unwrap().len();
            let page = store.history(&of, PageRequest::first(50)).unwrap();
            let (trails, _) = store.trails(&[d.id.as_str()], 50).unwrap();
            assert_eq!(trails[0].events.len() as u64, trails[0].total);
            assert_eq!(page.items.len() as u64, trails[0].total);
            let trail: Vec<&Event> = trails[0].events.iter().collect();
            assert_eq!(trail, page.items.iter().map(|(e, _)| e).collect::<Vec<_>>());
            (
                held,
                page.items.into_iter().map(|(e, _)| e).collect::<Vec<_>>(),
            )
        };
        let n = by_import.len();
        for (first, then) in [(&by_import, &by_sync), (&by_sync, &by_import)] {
            let (held, page) = shown([first.clone(), then.clone()].concat());
            assert_eq!(held, 2 * n, "both kept");
            assert_eq!(page.len(), n, "{page:?}");
            assert!(page.iter().all(|e| first.contains(e)), "the first recorded");
        }
        let another_author = |e: &mut Event| {
            e.channel = Channel::Sync;
            e.author = Some("someone else".into());
        };
        let no_transfer = |e: &mut Event| e.channel = Channel::Assistant;
        let others: [&dyn Fn(&mut Event); 2] = [&another_author, &no_transfer];
        for other in others {
            let twins: Vec<Event> = by_import.iter().map(|e| with(e, other)).collect();
            let (held, page) = shown([by_import.clone(), twins].concat());
            assert_eq!((held, page.len()), (2 * n, 2 * n));
        }
    }

    /// A page of the history that meets events it does not show
    /// ([`super::history::folded`]) reads on until it is full: 30 returns each recorded twice,
    /// paged 4 at a time, serve each return once, in order, and say there is more exactly
    /// while there is.
    #[test]
    fn a_page_that_meets_folded_events_is_filled_and_says_whether_more_follow() {
        use crate::review::history::{Channel, Event};
        let mut twins = Vec::new();
        for i in 0..30 {
            let (d, _, _) = Store::open_in_memory()
                .unwrap()
                .remember_decision(&bore(&format!("bore {i}")))
                .unwrap();
            let mut arrived = Store::open_in_memory().unwrap();
            arrived.import(&[], std::slice::from_ref(&d)).unwrap();
            for e in arrived.events().unwrap() {
                let sync = Event {
                    channel: Channel::Sync,
                    ..e.clone()
                }
                .sealed();
                twins.push((d.clone(), e, sync));
            }
        }
        let mut store = Store::open_in_memory().unwrap();
        for (d, import, sync) in &twins {
            store
                .import_with_history(
                    &[],
                    std::slice::from_ref(d),
                    &[import.clone(), sync.clone()],
                )
                .unwrap();
        }
        let q = HistoryQuery {
            locator: Some("file:///w/a.step".into()),
            ..HistoryQuery::default()
        };
        let mut served = Vec::new();
        let mut req = PageRequest::first(4);
        loop {
            let p = store.history(&q, req).unwrap();
            served.extend(p.items.iter().map(|(e, _)| e.id.clone()));
            if !p.more {
                assert!(!p.items.is_empty());
                break;
            }
            assert_eq!(p.items.len(), 4);
            req = crate::store::fixtures::next(4, &p);
        }
        let all = store.history(&q, PageRequest::first(1_000)).unwrap();
        let ids: Vec<String> = all.items.iter().map(|(e, _)| e.id.clone()).collect();
        assert_eq!(served, ids);
        assert_eq!(ids.len(), twins.len());
        assert!(twins.iter().all(|(_, import, _)| ids.contains(&import.id)));
    }
}
