//! Bringing a file's schema up to this build's version, in one write transaction that checks
//! again, under the write lock, that the file is ours. A file already at this version is
//! only read.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use super::inspect::{Found, classify, identify};
use super::renormalise::{RENORMALISED_AT, Renormalised, renormalise_locators};
use super::schema::{MIGRATIONS, TEXT_REINDEXED_AT, rebuild_text_indexes, upgrade};
use super::{APPLICATION_ID, SCHEMA_VERSION, StoreError};

/// Brings the schema up to [`SCHEMA_VERSION`] in one write transaction. The checks are
/// repeated inside the transaction: another process may have initialised the file between
/// our read-only look and now. `announce`: say in the log what happened to the file (not for
/// an in-memory database, nor for a private copy whose reader says so itself).
///
/// A file of this version is read, not locked: an open needs no write lock then, so a
/// process opening the file while others keep writing (a look that does not wait for the
/// lock, such as the poll for their commits) opens it at once.
pub(super) fn migrate(conn: &Connection, path: &Path, announce: bool) -> Result<(), StoreError> {
    if at_this_version(conn, path)? {
        return Ok(());
    }
    // IMMEDIATE: take the write lock first so two processes initialising one new file run
    // one after the other.
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    let (app, version, tables) = identify(&tx)?;
    let start = match classify(path, app, version, tables)? {
        Found::Fresh => 0,
        Found::Ours(v) => v,
    };
    if start == SCHEMA_VERSION {
        return Ok(());
    }
    for i in usize::try_from(start).unwrap_or(0)..MIGRATIONS.len() {
        upgrade(&tx, i)?;
        if i + 1 == TEXT_REINDEXED_AT {
            rebuild_text_indexes(&tx)?;
        }
        if i + 1 == RENORMALISED_AT {
            let r = renormalise_locators(&tx)?;
            if r != Renormalised::default() {
                log::warn!(
                    "schema upgrade: locators re-normalised (RFC 3986): {} records and {} decisions respelled, {} older features kept as notes, {} older decisions renamed, {} unparsable uris left as they were",
                    r.records,
                    r.decisions,
                    r.features_to_notes,
                    r.decisions_renamed,
                    r.unparsable
                );
            }
        }
        log::debug!("schema migration {} applied", i + 1);
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.commit()?;
    // Once, and only for a file: an in-memory database (a read-only session's scratch
    // before the first write, tests, dry runs) is set up, not upgraded.
    if announce {
        if start == 0 {
            log::info!(
                "database {} created (schema version {SCHEMA_VERSION})",
                path.display()
            );
        } else {
            log::info!(
                "database {} schema upgraded from version {start} to {SCHEMA_VERSION}",
                path.display()
            );
        }
    }
    // The connection's open checkpoints the migration into the main file right after
    // (see `open::connect`), so the main file's header shows the file is ours.
    Ok(())
}

/// Whether the file is ours and at [`SCHEMA_VERSION`], read in a read transaction. A file
/// that is not ours is refused here as it would be under the lock.
fn at_this_version(conn: &Connection, path: &Path) -> Result<bool, StoreError> {
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Deferred)?;
    let (app, version, tables) = identify(&tx)?;
    Ok(matches!(classify(path, app, version, tables)?, Found::Ours(v) if v == SCHEMA_VERSION))
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::super::fixtures::{REV, artifact, bore, side_rows};
    use super::super::{NewRecord, PageRequest, RecordQuery, Store};
    use super::*;

    /// A database in memory as a file of schema version `v` was: the first `v` upgrades run,
    /// its version and application id set.
    fn at_version(v: usize) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        let tx = conn.unchecked_transaction().unwrap();
        for i in 0..v {
            upgrade(&tx, i).unwrap();
        }
        tx.commit().unwrap();
        conn.pragma_update(None, "user_version", v as i64).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        conn
    }

    #[test]
    fn migrate_twice_is_harmless() {
        let conn = Connection::open_in_memory().unwrap();
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        let v: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let n: i64 = conn
            .query_row("SELECT value FROM counters WHERE name = 'seq'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(n, 0);
        let secrets: i64 = conn
            .query_row(
                "SELECT count(*) FROM meta WHERE name = 'cursor_secret' AND length(value) = 32",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(secrets, 1);
    }

    /// A version-1 file (row ids apart from seqs, side rows carrying them) upgrades to the
    /// current schema with every record, side row and full-text row still found, and a
    /// rewrite after the upgrade leaves no stale side row behind.
    #[test]
    fn v1_file_upgrades_and_keeps_its_records() {
        use crate::review::Kind;
        const T: &str = "2026-01-01T00:00:00.000Z";
        let conn = at_version(1);
        conn.execute_batch(&format!(
            "INSERT INTO records (rid, id, kind, locator, name, note, tags, entity_ids, \
                id_scheme, revision, format, uri, units, created_at, updated_at, seq) VALUES \
             (7, 'rec_a', 'feature', 'file:///p.step', 'bore', 'deep hole', '[\"a\",\"b\"]', \
                '[\"face:1\"]', 'opaque', '{REV}', 'step', 'file:///p.step', NULL, '{T}', '{T}', 3), \
             (5, 'rec_b', 'note', 'file:///p.step', NULL, 'bore chamfer', '[\"a\"]', \
                '[\"face:1\",\"face:2\"]', 'opaque', '{REV}', 'step', 'file:///p.step', NULL, '{T}', '{T}', 4); \
             INSERT INTO record_tags (tag, seq, rid) VALUES ('a', 3, 7), ('b', 3, 7), ('a', 4, 5); \
             INSERT INTO record_entities (entity_id, revision, seq, rid) VALUES \
                ('face:1', '{REV}', 3, 7), ('face:1', '{REV}', 4, 5), ('face:2', '{REV}', 4, 5); \
             INSERT INTO records_fts (rowid, name, note) VALUES (3, 'bore', 'deep hole'), \
                (4, NULL, 'bore chamfer'); \
             UPDATE counters SET value = 4 WHERE name = 'seq';"
        ))
        .unwrap();
        let mut store = Store::from_connection(conn).unwrap();
        migrate(
            store.conn().unwrap(),
            std::path::Path::new(":memory:"),
            false,
        )
        .unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        assert!(store.check().unwrap().is_empty());

        let ids = |store: &mut Store, q: RecordQuery| -> Vec<(String, i64)> {
            let page = store.recall(&q, PageRequest::first(10)).unwrap();
            page.items.into_iter().map(|(r, p)| (r.id, p.seq)).collect()
        };
        let tags = |t: &[&str]| RecordQuery {
            tags: t.iter().map(|t| t.to_string()).collect(),
            ..RecordQuery::default()
        };
        let entity = |e: &str| RecordQuery {
            entity: Some((e.into(), REV.into())),
            ..RecordQuery::default()
        };
        let text = |w: &str| RecordQuery {
            text: Some(w.into()),
            ..RecordQuery::default()
        };
        let both = vec![("rec_b".to_string(), 4), ("rec_a".to_string(), 3)];
        assert_eq!(ids(&mut store, tags(&["a"])), both);
        assert_eq!(ids(&mut store, tags(&["b"])), vec![("rec_a".into(), 3)]);
        assert_eq!(ids(&mut store, entity("face:1")), both);
        assert_eq!(ids(&mut store, entity("face:2")), vec![("rec_b".into(), 4)]);
        // The name holds the word: the feature first, then the note.
        assert_eq!(
            ids(&mut store, text("bore")),
            vec![("rec_a".to_string(), 3), ("rec_b".to_string(), 4)]
        );

        // Rewriting the feature keeps its seq, id and creation time, and replaces its old
        // tag, entity and text rows.
        let (r, replaced) = store
            .remember(&NewRecord {
                artifact: artifact(Some("file:///p.step")),
                name: Some("bore".into()),
                note: Some("through".into()),
                tags: vec!["c".into()],
                entity_ids: vec!["face:3".into()],
                id_scheme: "opaque".into(),
            })
            .unwrap();
        assert!(replaced);
        assert_eq!(
            (r.id.as_str(), r.kind, r.created_at.as_str()),
            ("rec_a", Kind::Feature, T)
        );
        assert_eq!(ids(&mut store, tags(&["b"])), vec![]);
        assert_eq!(ids(&mut store, tags(&["a"])), vec![("rec_b".into(), 4)]);
        assert_eq!(ids(&mut store, tags(&["c"])), vec![("rec_a".into(), 3)]);
        assert_eq!(ids(&mut store, entity("face:1")), vec![("rec_b".into(), 4)]);
        assert_eq!(ids(&mut store, entity("face:3")), vec![("rec_a".into(), 3)]);
        assert_eq!(ids(&mut store, text("deep")), vec![]);
        assert_eq!(ids(&mut store, text("through")), vec![("rec_a".into(), 3)]);
        assert_eq!(
            store.forget_feature("file:///p.step", "bore", REV).unwrap(),
            1
        );
        assert_eq!(ids(&mut store, tags(&["c"])), vec![]);
        assert_eq!(ids(&mut store, entity("face:3")), vec![]);
        assert_eq!(ids(&mut store, text("through")), vec![]);
        assert_eq!(store.forget_notes(REV, None, "face:2").unwrap(), 1);
        assert_eq!(ids(&mut store, tags(&["a"])), vec![]);
        assert_eq!(ids(&mut store, text("bore")), vec![]);
        assert_eq!(side_rows(&mut store), 0);
        assert!(store.check().unwrap().is_empty());
    }

    /// A schema-5 file (verdicts without provenance) upgrades with every verdict the
    /// assistant's, dated by its decision's last change; an item without a verdict stays
    /// without one.
    #[test]
    fn v5_verdicts_upgrade_as_the_assistants() {
        use crate::review::{Judgement, Via};
        let conn = at_version(5);
        conn.execute_batch(&format!(
            "INSERT INTO decisions (rid, id, locator, subject, revision, format, disposition, \
                created_at, updated_at, seq) VALUES \
             (1, 'dec_a', '{REV}', 'bore', '{REV}', 'step', 'hold', \
                '2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', 1); \
             INSERT INTO basis_items (decision_rid, position, requirement, source, state, faces, \
                verdict_judgement, verdict_reason) VALUES \
             (1, 0, 'Bore', 'drawing', 'satisfied', '[]', 'accepted', 'fine'), \
             (1, 1, 'Wall', 'drawing', 'satisfied', '[]', NULL, NULL); \
             INSERT INTO decisions_fts (rowid, subject, body) VALUES \
             (1, 'bore', 'hold' || char(10) || 'Bore' || char(10) || 'Wall');"
        ))
        .unwrap();
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        let mut store = Store::from_connection(conn).unwrap();
        let d = store.get_decision("dec_a").unwrap().unwrap();
        let v = d.basis[0].verdict.clone().unwrap();
        assert_eq!(
            (v.judgement, v.via, v.at.as_str(), v.reason.as_deref()),
            (
                Judgement::Accepted,
                Via::Assistant,
                "2026-01-02T00:00:00.000Z",
                Some("fine")
            )
        );
        assert_eq!(d.basis[1].verdict, None);
        assert!(store.check().unwrap().is_empty());
    }

    /// A schema-10 file (verdicts without a meaning: every file before `review-mcp review`)
    /// upgrades with its verdicts as they were, without a meaning, and then keeps the meaning
    /// an engineer gives.
    #[test]
    fn v10_verdicts_upgrade_without_a_meaning_and_take_one() {
        use super::super::NewDecision;
        use super::super::{DecisionRef, Shown, VerdictsOutcome};
        use crate::review::{BasisItem, Judgement, Meaning, Verdict, Via};
        let conn = Connection::open_in_memory().unwrap();
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        let mut store = Store::from_connection(conn).unwrap();
        let item = |r: &str| BasisItem {
            verdict: Some(Verdict::given(Judgement::Accepted, Via::Assistant)),
            ..BasisItem::stated(r)
        };
        let d = store
            .remember_decision(&NewDecision {
                artifact: artifact(None),
                subject: "bore".into(),
                disposition: "hold".into(),
                summary: None,
                basis: vec![item("Bore"), item("Wall")],
            })
            .unwrap()
            .0;
        // Back to what version 10 had: no meaning column.
        let conn = store.conn().unwrap();
        conn.execute_batch("ALTER TABLE basis_items DROP COLUMN verdict_meaning")
            .unwrap();
        conn.pragma_update(None, "user_version", 10).unwrap();
        migrate(conn, Path::new(":memory:"), false).unwrap();
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let back = store.get_decision(&d.id).unwrap().unwrap();
        assert_eq!(back.basis, d.basis, "verdicts upgrade as they were");
        assert_eq!(back.basis[0].verdict.as_ref().unwrap().meaning, None);
        let given = Verdict {
            at: crate::time::now(),
            author: Some("Ada".into()),
            judgement: Judgement::Rejected,
            meaning: Some(Meaning::Approval),
            reason: Some("wall too thin".into()),
            via: Via::Terminal,
        };
        let digest = back.basis[1].digest();
        let got = store
            .record_verdicts(
                &DecisionRef::Id(&d.id),
                Shown::Item(&digest),
                &[(1, given.clone())],
            )
            .unwrap();
        assert!(matches!(got, VerdictsOutcome::Recorded(_)), "{got:?}");
        let back = store.get_decision(&d.id).unwrap().unwrap();
        assert_eq!(back.basis[1].verdict.as_ref(), Some(&given));
        assert!(store.check().unwrap().is_empty());
    }

    /// Issue 28: a schema-11 file (decisions, no history) upgrades with an empty history that
    /// says when it began (nothing before it was recorded, and nothing is invented), and then
    /// records the changes made after.
    #[test]
    fn v11_file_upgrades_with_a_history_that_begins_at_the_upgrade() {
        use super::super::HistoryQuery;
        let conn = Connection::open_in_memory().unwrap();
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        let mut store = Store::from_connection(conn).unwrap();
        let mut new = bore("hold");
        store.remember_decision(&new).unwrap();
        // Back to what version 11 had: no history.
        let conn = store.conn().unwrap();
        conn.execute_batch("DROP TABLE events; DELETE FROM counters WHERE name = 'history_since';")
            .unwrap();
        conn.pragma_update(None, "user_version", 11).unwrap();
        // SQLite's `julianday('now')`, a double scaled to milliseconds and cut to an integer,
        // can come out a millisecond early: compared a second early, not at the second's start
        // (`before[..19]`), which failed when `before` fell on a whole second.
        let before = crate::time::format_millis(crate::time::now_millis() - 1000);
        migrate(conn, Path::new(":memory:"), false).unwrap();
        let since = store.history_since().unwrap().unwrap();
        assert!(since >= before, "{since} {before}");
        let page = |store: &mut Store| {
            store
                .history(&HistoryQuery::default(), PageRequest::first(10))
                .unwrap()
                .items
                .len()
        };
        assert_eq!(page(&mut store), 0, "no event is invented for the past");
        new.disposition = "release".into();
        store.remember_decision(&new).unwrap();
        assert_eq!(page(&mut store), 1);
        assert!(store.check().unwrap().is_empty());
    }

    /// A schema-16 file whose carried basis item lost all its ids (faces `[]`, face:10 and
    /// face:11 unmapped) upgrades to 17 with its items as they were, and the engineer's verdict
    /// on that item then keeps the ids it lost in the new `not_carried` column: before it, the
    /// verdict dropped them with the carried marker, and the item read "whole part".
    #[test]
    fn v16_file_upgrades_its_items_unchanged_and_a_verdict_keeps_the_lost_ids() {
        use super::super::{DecisionRef, Shown, VerdictsOutcome};
        use crate::review::{Judgement, Verdict, Via};
        const T: &str = "2026-01-01T00:00:00.000Z";
        let from = format!("sha256:{}", "a".repeat(64));
        let carried =
            format!(r#"{{"from":"{from}","state":"re-verify","unmapped":["face:10","face:11"]}}"#);
        let conn = at_version(16);
        conn.execute_batch(&format!(
            "INSERT INTO decisions (rid, id, locator, subject, revision, format, uri, disposition, \
                created_at, updated_at, seq) VALUES \
             (1, 'dec_a', 'file:///p.step', 'holes', '{REV}', 'step', 'file:///p.step', 'hold', \
                '{T}', '{T}', 1); \
             INSERT INTO basis_items (decision_rid, position, requirement, source, state, faces, \
                evidence, carried) VALUES \
             (1, 0, 'Two holes', 'drawing', 'satisfied', '[]', '40.02', '{carried}'), \
             (1, 1, 'Plate', 'drawing', 'satisfied', '[\"face:2\"]', NULL, NULL); \
             INSERT INTO decision_faces (face, revision, seq, rid) VALUES ('face:2', '{REV}', 1, 1); \
             INSERT INTO decision_states (state, seq, rid) VALUES ('satisfied', 1, 1); \
             INSERT INTO decisions_fts (rowid, subject, body) VALUES \
                (1, 'holes', 'hold' || char(10) || 'Two holes' || char(10) || '40.02' \
                 || char(10) || 'Plate'); \
             UPDATE counters SET value = 1 WHERE name = 'seq';"
        ))
        .unwrap();
        let basis_rows = |conn: &Connection| -> Vec<(String, Option<String>, Option<String>)> {
            conn.prepare(
                "SELECT requirement, faces, carried FROM basis_items ORDER BY decision_rid, position",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
        };
        let before = basis_rows(&conn);
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        assert_eq!(basis_rows(&conn), before, "items upgrade as they were");
        let lost: i64 = conn
            .query_row(
                "SELECT count(*) FROM basis_items WHERE not_carried IS NOT NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(lost, 0, "no item upgrades with ids kept");
        let mut store = Store::from_connection(conn).unwrap();
        assert!(store.check().unwrap().is_empty());
        let d = store.get_decision("dec_a").unwrap().unwrap();
        let digest = d.basis[0].digest();
        let given = Verdict {
            at: crate::time::now(),
            ..Verdict::given(Judgement::Accepted, Via::Terminal)
        };
        let got = store
            .record_verdicts(
                &DecisionRef::Id("dec_a"),
                Shown::Item(&digest),
                &[(0, given)],
            )
            .unwrap();
        assert!(matches!(got, VerdictsOutcome::Recorded(_)), "{got:?}");
        let kept: Option<String> = store
            .conn()
            .unwrap()
            .query_row(
                "SELECT not_carried FROM basis_items WHERE position = 0",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            kept,
            Some(format!(r#"{{"ids":["face:10","face:11"],"of":"{from}"}}"#))
        );
        assert!(store.check().unwrap().is_empty());
    }

    /// A schema-14 file that synced a folder upgrades to 15 keeping the folder's bases, with
    /// no place recorded for it yet (its next sync records one), and passes the check.
    #[test]
    fn v14_file_upgrades_keeping_sync_bases() {
        let conn = at_version(14);
        conn.execute_batch(
            "INSERT INTO sync_bases (folder, kind, id, hash, body) \
             VALUES ('0123456789abcdef', 'record', 'rec_a', x'00', '{}');",
        )
        .unwrap();
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(count("SELECT count(*) FROM sync_bases"), 1);
        assert_eq!(count("SELECT count(*) FROM sync_folders"), 0);
        let mut store = Store::from_connection(conn).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        assert!(store.check().unwrap().is_empty());
    }

    /// A schema-18 file upgrades to 19 with the partial indexes of the events that end an
    /// item (`events_ended_locator`, `events_ended_revision`); its events are kept.
    #[test]
    fn v18_file_upgrades_with_the_indexes_of_endings() {
        let conn = at_version(18);
        conn.execute_batch(
            "INSERT INTO events (id, at, step, of, locator, revision, after, body) \
             VALUES ('evt-a', '2026-12-01T10:00:00.000Z', 0, 'dec_a', 'sha256:0', \
                     'sha256:0', NULL, '{}');",
        )
        .unwrap();
        let indexes = |conn: &Connection| -> i64 {
            conn.query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' \
                 AND name IN ('events_ended_locator', 'events_ended_revision')",
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(indexes(&conn), 0);
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        assert_eq!(indexes(&conn), 2);
        let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(count("SELECT count(*) FROM events WHERE after IS NULL"), 1);
        let store = Store::from_connection(conn).unwrap();
        let mut store = store;
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    }

    /// A schema-17 file upgrades to 18 with the index of a feature's superseded copies by
    /// their key (`records_copy_key`, which `feature_copy`'s query names), and checks sound.
    #[test]
    fn v17_file_upgrades_with_the_copy_key_index() {
        let conn = at_version(17);
        let indexes = |conn: &Connection| -> i64 {
            conn.query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' \
                 AND name = 'records_copy_key'",
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(indexes(&conn), 0);
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        assert_eq!(indexes(&conn), 1);
        let mut store = Store::from_connection(conn).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        assert!(store.check().unwrap().is_empty());
    }

    /// Issue 27: a schema-9 file (features, a decision with the engineer's verdict) upgrades
    /// to 10 keeping everything, every item stated at its own revision; after the upgrade a
    /// carried feature and what its old revision said of it share a name, and a remember of
    /// that name still replaces the live one only.
    #[test]
    fn v9_file_upgrades_keeps_everything_and_carries() {
        use super::super::carry::CarryPlan;
        use crate::review::carry::EntityMap;
        use crate::review::{Artifact, Judgement, Via};
        const T: &str = "2026-01-01T00:00:00.000Z";
        let conn = at_version(9);
        conn.execute_batch(&format!(
            "INSERT INTO records (seq, id, kind, locator, name, note, tags, entity_ids, \
                id_scheme, revision, format, uri, units, created_at, updated_at, author) VALUES \
             (1, 'rec_a', 'feature', 'file:///p.step', 'bore', 'deep', '[]', '[\"face:1\"]', \
                'opaque', '{REV}', 'step', 'file:///p.step', NULL, '{T}', '{T}', 'Ada'); \
             INSERT INTO record_entities (revision, entity_id, seq) VALUES ('{REV}', 'face:1', 1); \
             INSERT INTO records_fts (rowid, name, note) VALUES (1, 'bore', 'deep'); \
             INSERT INTO decisions (rid, id, locator, subject, revision, format, uri, disposition, \
                created_at, updated_at, seq) VALUES \
             (1, 'dec_a', 'file:///p.step', 'bore', '{REV}', 'step', 'file:///p.step', 'hold', \
                '{T}', '{T}', 2); \
             INSERT INTO basis_items (decision_rid, position, requirement, source, state, faces, \
                verdict_judgement, verdict_via, verdict_at) VALUES \
             (1, 0, 'Bore', 'drawing', 'satisfied', '[\"face:1\"]', 'accepted', 'app', '{T}'); \
             INSERT INTO decision_faces (face, revision, seq, rid) VALUES ('face:1', '{REV}', 2, 1); \
             INSERT INTO decisions_fts (rowid, subject, body) VALUES (2, 'bore', 'hold'); \
             UPDATE counters SET value = 2 WHERE name = 'seq';"
        ))
        .unwrap();
        migrate(&conn, Path::new(":memory:"), false).unwrap();
        let mut store = Store::from_connection(conn).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        assert!(store.check().unwrap().is_empty());
        let r = store.get_record("rec_a").unwrap().unwrap();
        assert_eq!(
            (
                r.name.as_deref(),
                r.author.as_deref(),
                &r.carried,
                &r.superseded
            ),
            (Some("bore"), Some("Ada"), &None, &None)
        );
        let d = store.get_decision("dec_a").unwrap().unwrap();
        let v = d.basis[0].verdict.clone().unwrap();
        assert_eq!((v.judgement, v.via), (Judgement::Accepted, Via::App));
        assert_eq!(
            (&d.carried, &d.superseded, &d.basis[0].carried),
            (&None, &None, &None)
        );

        let to = Artifact {
            revision: format!("sha256:{}", "e".repeat(64)),
            ..artifact(Some("file:///p.step"))
        };
        let plan = CarryPlan {
            from: artifact(Some("file:///p.step")),
            to: to.clone(),
            map: EntityMap::new(&[("face:1".into(), "face:2".into())], &[]).unwrap(),
            change: None,
        };
        let out = store
            .carry_forward_answered(&plan, |o| Ok::<_, StoreError>(o.clone()))
            .unwrap();
        assert_eq!((out.records.len(), out.decisions.len()), (1, 1));
        assert_eq!(out.records[0].id, "rec_a", "the feature moves, its id kept");
        let named: i64 = store
            .conn()
            .unwrap()
            .query_row(
                "SELECT count(*) FROM records WHERE name = 'bore'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(named, 2, "the moved feature and what revision 1 said of it");
        let (again, replaced) = store
            .remember(&NewRecord {
                artifact: to,
                name: Some("bore".into()),
                note: Some("re-measured".into()),
                tags: vec![],
                entity_ids: vec!["face:2".into()],
                id_scheme: "opaque".into(),
            })
            .unwrap();
        assert!(replaced && again.id == "rec_a" && again.carried.is_none());
        assert!(store.check().unwrap().is_empty());
    }
}
