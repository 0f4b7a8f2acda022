//! The table shapes: an append-only list of migrations keyed on `user_version`, and the
//! `application_id` that marks a file as ours.

use std::path::Path;

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::StoreError;
use super::open::Found;

/// 'RVMC' in ASCII: recognises our files among other SQLite databases.
pub const APPLICATION_ID: i64 = 0x5256_4D43;

/// Append-only: migration `i` upgrades schema version `i` to `i + 1`. Never edit a shipped
/// entry; add a new one.
pub(super) const MIGRATIONS: &[&str] = &[V1, V2, V3, V4];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const V1: &str = r#"
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO counters (name, value) VALUES ('seq', 0);

CREATE TABLE records (
    rid        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL CHECK (kind IN ('feature', 'note')),
    locator    TEXT NOT NULL,
    name       TEXT,
    note       TEXT,
    tags       TEXT NOT NULL,
    entity_ids TEXT NOT NULL,
    id_scheme  TEXT NOT NULL,
    revision   TEXT NOT NULL,
    format     TEXT NOT NULL,
    uri        TEXT,
    units      TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    seq        INTEGER NOT NULL UNIQUE,
    CHECK ((kind = 'feature') = (name IS NOT NULL))
);
CREATE UNIQUE INDEX records_feature_key ON records (locator, name) WHERE name IS NOT NULL;
CREATE INDEX records_locator_seq ON records (locator, seq);
CREATE INDEX records_revision_seq ON records (revision, seq);
-- No index on kind: it halves the rows at best, and the seq order scan with LIMIT finds a
-- page of either kind at once; one index fewer is one page fewer written per remember.

-- Side tables carry the record's revision and seq so that an entity or tag filter is one
-- index range scan already in result order.
CREATE TABLE record_entities (
    entity_id TEXT NOT NULL,
    revision  TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    rid       INTEGER NOT NULL REFERENCES records (rid) ON DELETE CASCADE,
    PRIMARY KEY (entity_id, revision, seq)
) WITHOUT ROWID;
CREATE INDEX record_entities_rid ON record_entities (rid);

CREATE TABLE record_tags (
    tag TEXT NOT NULL,
    seq INTEGER NOT NULL,
    rid INTEGER NOT NULL REFERENCES records (rid) ON DELETE CASCADE,
    PRIMARY KEY (tag, seq)
) WITHOUT ROWID;
CREATE INDEX record_tags_rid ON record_tags (rid);

-- Contentless full-text indexes whose rowid is the row's seq (not its rid), so a text
-- search walks matches newest first and stops at the page size. Prefix indexes make a
-- `"word"*` query of 2 to 8 characters a plain doclist walk instead of a merge of every
-- matching term (about 3x faster at 100,000 records, for 15% more disk).
CREATE VIRTUAL TABLE records_fts USING fts5 (
    name, note,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8'
);

CREATE TABLE decisions (
    rid         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    locator     TEXT NOT NULL,
    subject     TEXT NOT NULL,
    revision    TEXT NOT NULL,
    format      TEXT NOT NULL,
    uri         TEXT,
    units       TEXT,
    disposition TEXT NOT NULL,
    summary     TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    seq         INTEGER NOT NULL UNIQUE,
    UNIQUE (locator, subject, revision)
);
CREATE INDEX decisions_locator_seq ON decisions (locator, seq);
CREATE INDEX decisions_revision_seq ON decisions (revision, seq);
CREATE INDEX decisions_subject_seq ON decisions (subject, seq);

CREATE TABLE basis_items (
    decision_rid      INTEGER NOT NULL REFERENCES decisions (rid) ON DELETE CASCADE,
    position          INTEGER NOT NULL,
    requirement       TEXT NOT NULL,
    source            TEXT NOT NULL,
    source_detail     TEXT,
    evidence          TEXT,
    state             TEXT NOT NULL,
    question          TEXT,
    faces             TEXT NOT NULL,
    verdict_judgement TEXT,
    verdict_reason    TEXT,
    PRIMARY KEY (decision_rid, position)
) WITHOUT ROWID;
CREATE INDEX basis_items_state ON basis_items (state);

CREATE TABLE decision_faces (
    face     TEXT NOT NULL,
    revision TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    rid      INTEGER NOT NULL REFERENCES decisions (rid) ON DELETE CASCADE,
    PRIMARY KEY (face, revision, seq)
) WITHOUT ROWID;
CREATE INDEX decision_faces_rid ON decision_faces (rid);

CREATE TABLE decision_states (
    state TEXT NOT NULL,
    seq   INTEGER NOT NULL,
    rid   INTEGER NOT NULL REFERENCES decisions (rid) ON DELETE CASCADE,
    PRIMARY KEY (state, seq)
) WITHOUT ROWID;
CREATE INDEX decision_states_rid ON decision_states (rid);

CREATE VIRTUAL TABLE decisions_fts USING fts5 (
    subject, body,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8'
);
"#;

/// Records keyed by their seq, side tables without a row-id column.
///
/// A record's row id is its `seq` (a rewrite deletes the row and inserts it at its new seq),
/// so the full-text rowid and the side tables' seq lead straight to the row: the unique
/// index on `seq` goes, and with it a second B-tree descent per full-text match (a page read
/// per row once the table outgrows the page cache). The side tables lose their `rid` column,
/// its index and the cascade that needed it: a record's side rows are deleted by their keys,
/// read from the record's own lists. Together a `remember` writes about 4.7 pages fewer
/// (28 before, at 100,000 records). Side rows whose record is gone (only a hand-edited file
/// can have them) are harmless: every query joins them to `records`, and seqs are never
/// reused.
const V2: &str = r#"
CREATE TABLE records_v2 (
    seq        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL CHECK (kind IN ('feature', 'note')),
    locator    TEXT NOT NULL,
    name       TEXT,
    note       TEXT,
    tags       TEXT NOT NULL,
    entity_ids TEXT NOT NULL,
    id_scheme  TEXT NOT NULL,
    revision   TEXT NOT NULL,
    format     TEXT NOT NULL,
    uri        TEXT,
    units      TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK ((kind = 'feature') = (name IS NOT NULL))
);
INSERT INTO records_v2 (seq, id, kind, locator, name, note, tags, entity_ids, id_scheme,
    revision, format, uri, units, created_at, updated_at)
SELECT seq, id, kind, locator, name, note, tags, entity_ids, id_scheme,
    revision, format, uri, units, created_at, updated_at
FROM records ORDER BY seq;

-- Revision first: the entity rows of one revision (the one under review is written many
-- times in a row) share a few leaves instead of one leaf per entity id.
CREATE TABLE record_entities_v2 (
    revision  TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    PRIMARY KEY (revision, entity_id, seq)
) WITHOUT ROWID;
INSERT INTO record_entities_v2 (revision, entity_id, seq)
SELECT revision, entity_id, seq FROM record_entities ORDER BY revision, entity_id, seq;

CREATE TABLE record_tags_v2 (
    tag TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (tag, seq)
) WITHOUT ROWID;
INSERT INTO record_tags_v2 (tag, seq) SELECT tag, seq FROM record_tags ORDER BY tag, seq;

-- Children first: then dropping `records` has no foreign keys left to act on.
DROP TABLE record_entities;
DROP TABLE record_tags;
DROP TABLE records;
ALTER TABLE records_v2 RENAME TO records;
ALTER TABLE record_entities_v2 RENAME TO record_entities;
ALTER TABLE record_tags_v2 RENAME TO record_tags;
CREATE UNIQUE INDEX records_feature_key ON records (locator, name) WHERE name IS NOT NULL;
CREATE INDEX records_locator_seq ON records (locator, seq);
CREATE INDEX records_revision_seq ON records (revision, seq);
"#;

/// A table of the file's own settings, and in it the secret that seals recall cursors: 32
/// random bytes from SQLite's generator, made once per file, so a cursor minted by one
/// database is refused by every other (see `tools::cursor`). A copy of the file keeps its
/// secret, and so accepts its cursors, which is right: it holds the same rows.
const V3: &str = r#"
CREATE TABLE meta (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (name, value) VALUES ('cursor_secret', randomblob(32));
"#;

/// Locators in the normal form of RFC 3986 §6.2.2 (`review::artifact::equivalent_form`):
/// no table changes, the stored uris are rewritten by [`renormalise_locators`], which
/// [`migrate`] runs right after this entry.
const V4: &str = "";

/// The schema version whose upgrade re-normalises stored locators.
const RENORMALISED_AT: usize = 4;

/// What [`renormalise_locators`] did, for the log.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Renormalised {
    /// Records and decisions whose uri changed spelling.
    pub records: usize,
    pub decisions: usize,
    /// Older features that collided with a newer one of the same name at the same file, kept
    /// as anonymous notes.
    pub features_to_notes: usize,
    /// Older decisions that collided with a newer one of the same subject and revision at the
    /// same file, kept under a subject that says so.
    pub decisions_renamed: usize,
    /// Stored uris that no longer parse (a hand-edited file), left as they were.
    pub unparsable: usize,
}

/// Rewrites every stored uri (and the locator that is made of it) in its RFC 3986 normal
/// form, inside the upgrade's transaction. Where two rows then share a key, the newer (later
/// `updated_at`, then the later seq) keeps it and the older is kept under another: an older
/// named feature becomes an anonymous note whose text starts by saying which feature it was,
/// an older decision gets its subject suffixed. No row is dropped, and the upgrade logs at
/// warn what it did, with counts and ids.
pub(super) fn renormalise_locators(tx: &Transaction<'_>) -> Result<Renormalised, StoreError> {
    use crate::review::artifact::{equivalent_form, normalise_uri};
    let mut report = Renormalised::default();
    let normal = |uri: &str| -> Option<String> {
        // Stored uris were normalised by the url crate when written, so parsing them again
        // is harmless; `equivalent_form` adds what this version adds.
        match normalise_uri(uri, || None) {
            Ok(n) => Some(equivalent_form(&n)),
            Err(_) => {
                log::warn!("schema upgrade: stored uri {uri:?} does not parse; left as it was");
                None
            }
        }
    };

    // Records: (seq, id, name, note, uri, updated_at) of every row with a uri.
    type RecordRow = (i64, String, Option<String>, Option<String>, String, String);
    let rows: Vec<RecordRow> = tx
        .prepare("SELECT seq, id, name, note, uri, updated_at FROM records WHERE uri IS NOT NULL")?
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })?
        .collect::<Result<_, _>>()?;
    let mut moves = Vec::new();
    // (normal uri, name) -> the rows of features that will share it: (updated_at, seq, ...).
    let mut features: std::collections::HashMap<(String, String), Vec<(String, i64)>> =
        std::collections::HashMap::new();
    for (seq, _, name, _, uri, updated_at) in &rows {
        let Some(n) = normal(uri) else {
            report.unparsable += 1;
            continue;
        };
        if let Some(name) = name {
            features
                .entry((n.clone(), name.clone()))
                .or_default()
                .push((updated_at.clone(), *seq));
        }
        if &n != uri {
            moves.push((*seq, n));
        }
    }
    let by_seq: std::collections::HashMap<i64, &RecordRow> =
        rows.iter().map(|r| (r.0, r)).collect();
    for ((uri, name), mut holders) in features {
        if holders.len() < 2 {
            continue;
        }
        holders.sort();
        // The last is the newest: it keeps the name. The others become notes.
        holders.pop();
        for (_, seq) in holders {
            let Some((_, id, _, note, _, _)) = by_seq.get(&seq) else {
                continue;
            };
            let told = format!(
                "Formerly the feature {name:?}, kept as a note when a newer feature of that name at {uri} took its place (schema upgrade {RENORMALISED_AT})."
            );
            let text = match note {
                Some(n) if n.chars().count() + told.chars().count() < 65_536 => {
                    format!("{told}\n{n}")
                }
                Some(n) => n.clone(),
                None => told,
            };
            tx.execute("DELETE FROM records_fts WHERE rowid = ?1", [seq])?;
            tx.execute(
                "UPDATE records SET kind = 'note', name = NULL, note = ?2 WHERE seq = ?1",
                rusqlite::params![seq, text],
            )?;
            tx.execute(
                "INSERT INTO records_fts (rowid, name, note) VALUES (?1, NULL, ?2)",
                rusqlite::params![seq, text],
            )?;
            report.features_to_notes += 1;
            log::warn!(
                "schema upgrade: feature {name:?} ({id}) collides with a newer one at {uri}; kept as an anonymous note"
            );
        }
    }
    for (seq, uri) in &moves {
        tx.execute(
            "UPDATE records SET uri = ?2, locator = ?2 WHERE seq = ?1",
            rusqlite::params![seq, uri],
        )?;
    }
    report.records = moves.len();

    // Decisions: (rid, id, subject, revision, uri, updated_at, seq).
    type DecisionRow = (i64, String, String, String, String, String, i64);
    let rows: Vec<DecisionRow> = tx
        .prepare(
            "SELECT rid, id, subject, revision, uri, updated_at, seq FROM decisions \
             WHERE uri IS NOT NULL",
        )?
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })?
        .collect::<Result<_, _>>()?;
    let mut moves = Vec::new();
    // (normal uri, subject, revision) -> (updated_at, seq, rid) of the decisions sharing it.
    type Holders = Vec<(String, i64, i64)>;
    let mut keys: std::collections::HashMap<(String, String, String), Holders> =
        std::collections::HashMap::new();
    for (rid, _, subject, revision, uri, updated_at, seq) in &rows {
        let Some(n) = normal(uri) else {
            report.unparsable += 1;
            continue;
        };
        keys.entry((n.clone(), subject.clone(), revision.clone()))
            .or_default()
            .push((updated_at.clone(), *seq, *rid));
        if &n != uri {
            moves.push((*rid, n));
        }
    }
    let by_rid: std::collections::HashMap<i64, &DecisionRow> =
        rows.iter().map(|r| (r.0, r)).collect();
    for ((uri, subject, _), mut holders) in keys {
        if holders.len() < 2 {
            continue;
        }
        holders.sort();
        holders.pop();
        for (_, _, rid) in holders {
            let Some((_, id, ..)) = by_rid.get(&rid) else {
                continue;
            };
            // The subject stays within its 1,000-character limit, so an export still imports.
            let suffix = format!(" (older copy {id}, kept at schema upgrade {RENORMALISED_AT})");
            let keep = 1_000usize.saturating_sub(suffix.chars().count());
            let renamed: String = subject.chars().take(keep).chain(suffix.chars()).collect();
            tx.execute(
                "UPDATE decisions SET subject = ?2 WHERE rid = ?1",
                rusqlite::params![rid, renamed],
            )?;
            // The full-text row holds the subject. A contentless index cannot update one
            // column, so the row is written again whole, its body made as `write_decision`
            // makes it: disposition, summary, then each item's requirement and evidence.
            let (seq, disposition, summary): (i64, String, Option<String>) = tx.query_row(
                "SELECT seq, disposition, summary FROM decisions WHERE rid = ?1",
                [rid],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?;
            let mut body = vec![disposition];
            body.extend(summary);
            let items: Vec<(String, Option<String>)> = tx
                .prepare(
                    "SELECT requirement, evidence FROM basis_items WHERE decision_rid = ?1 \
                     ORDER BY position",
                )?
                .query_map([rid], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            for (requirement, evidence) in items {
                body.push(requirement);
                body.extend(evidence);
            }
            tx.execute("DELETE FROM decisions_fts WHERE rowid = ?1", [seq])?;
            tx.execute(
                "INSERT INTO decisions_fts (rowid, subject, body) VALUES (?1, ?2, ?3)",
                rusqlite::params![seq, renamed, body.join("\n")],
            )?;
            report.decisions_renamed += 1;
            log::warn!(
                "schema upgrade: decision {subject:?} ({id}) collides with a newer one at {uri}; kept as {renamed:?}"
            );
        }
    }
    for (rid, uri) in &moves {
        tx.execute(
            "UPDATE decisions SET uri = ?2, locator = ?2 WHERE rid = ?1",
            rusqlite::params![rid, uri],
        )?;
    }
    report.decisions = moves.len();
    Ok(report)
}

/// Decides from what a read-only look found whether the file may be opened for writing.
pub(super) fn classify(
    path: &Path,
    application_id: i64,
    version: i64,
    tables: i64,
) -> Result<Found, StoreError> {
    if application_id == APPLICATION_ID {
        if version > SCHEMA_VERSION {
            return Err(StoreError::Newer {
                path: path.to_path_buf(),
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        return Ok(Found::Ours(version));
    }
    if application_id == 0 && tables == 0 && version == 0 {
        return Ok(Found::Fresh);
    }
    Err(StoreError::Foreign {
        path: path.to_path_buf(),
        application_id,
    })
}

/// The application id, schema version and number of schema objects, read in one snapshot
/// (the caller's transaction, or one of its own).
pub(super) fn identify(conn: &Connection) -> rusqlite::Result<(i64, i64, i64)> {
    let tx = if conn.is_autocommit() {
        Some(conn.unchecked_transaction()?)
    } else {
        None
    };
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
    drop(tx);
    Ok((app, version, tables))
}

/// Brings the schema up to [`SCHEMA_VERSION`] in one write transaction. The checks are
/// repeated inside the transaction: another process may have initialised the file between
/// our read-only look and now.
pub(super) fn migrate(conn: &Connection, path: &Path) -> Result<(), StoreError> {
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
    for (i, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(start).unwrap_or(0))
    {
        tx.execute_batch(sql)?;
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
        log::info!("database schema upgraded to version {}", i + 1);
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.commit()?;
    // Copy the migration into the main file now (once per file and version) rather than at
    // the next auto-checkpoint, ~1000 pages later: until then the main file's header would
    // not show the file is ours, and every start would pay the full read-only inspection.
    // Best effort: a reader holding an older snapshot can make it partial, which is harmless.
    // An upgrade of an existing file rewrites whole tables (80 MB of WAL at 100,000
    // records), so it also truncates the WAL rather than leave it that size while the server
    // runs; a new file's few pages need no truncation (and no extra fsync at a first start).
    let sql = if start > 0 {
        "PRAGMA wal_checkpoint(TRUNCATE)"
    } else {
        "PRAGMA wal_checkpoint(PASSIVE)"
    };
    if let Err(e) = conn.query_row(sql, [], |_| Ok(())) {
        log::debug!("checkpoint after the migration of {}: {e}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrate_twice_is_harmless() {
        let conn = Connection::open_in_memory().unwrap();
        migrate(&conn, Path::new(":memory:")).unwrap();
        migrate(&conn, Path::new(":memory:")).unwrap();
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

    /// Regression (issue 12, item 3): a file written before locators were normalised per
    /// RFC 3986 upgrades with every uri in normal form; rows that then collide are all kept
    /// (the older feature as a note, the older decision renamed), and a second pass changes
    /// nothing.
    #[test]
    fn upgrade_renormalises_locators_and_keeps_colliding_rows() {
        use crate::review::{Artifact, Kind};
        use crate::store::{NewDecision, NewRecord, PageRequest, RecordQuery, Store};
        const REV: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        let at = |uri: &str| Artifact {
            revision: REV.into(),
            format: "step".into(),
            uri: Some(uri.into()),
            units: None,
        };
        let feature = |uri: &str, name: &str, note: &str| NewRecord {
            artifact: at(uri),
            name: Some(name.into()),
            note: Some(note.into()),
            tags: vec!["t".into()],
            entity_ids: vec!["face:1".into()],
            id_scheme: "opaque".into(),
        };
        let decision = |uri: &str, disposition: &str| NewDecision {
            artifact: at(uri),
            subject: "release".into(),
            disposition: disposition.into(),
            summary: Some("bore fit".into()),
            basis: vec![],
        };
        const NORMAL: &str = "file:///work/bracket.step";
        let mut store = Store::open_in_memory().unwrap();
        // Stored as earlier versions could store them: spellings the url crate kept.
        let (older, _) = store
            .remember(&feature(
                "file:///work/%62racket.step",
                "bore",
                "older note",
            ))
            .unwrap();
        let (newer, _) = store
            .remember(&feature(NORMAL, "bore", "newer note"))
            .unwrap();
        let (slot, _) = store
            .remember(&feature("file:///work/%62racket.step#face-3", "slot", "s"))
            .unwrap();
        let (old_dec, _) = store
            .remember_decision(&decision("file:///work/%62racket%2estep", "hold"))
            .unwrap();
        let (new_dec, _) = store
            .remember_decision(&decision(NORMAL, "release"))
            .unwrap();
        store
            .conn()
            .unwrap()
            .pragma_update(None, "user_version", 3)
            .unwrap();
        migrate(store.conn().unwrap(), Path::new(":memory:")).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);

        let bore = store.get_record(&newer.id).unwrap().unwrap();
        assert_eq!(
            (bore.kind, bore.artifact.uri.as_deref()),
            (Kind::Feature, Some(NORMAL))
        );
        let kept = store.get_record(&older.id).unwrap().unwrap();
        assert_eq!((kept.kind, kept.name.as_deref()), (Kind::Note, None));
        assert_eq!(kept.artifact.uri.as_deref(), Some(NORMAL));
        let note = kept.note.unwrap();
        assert!(
            note.starts_with("Formerly the feature \"bore\"") && note.ends_with("\nolder note"),
            "{note}"
        );
        let slot = store.get_record(&slot.id).unwrap().unwrap();
        assert_eq!(slot.artifact.uri.as_deref(), Some(NORMAL));
        let d = store.get_decision(&new_dec.id).unwrap().unwrap();
        assert_eq!(
            (d.subject.as_str(), d.artifact.uri.as_deref()),
            ("release", Some(NORMAL))
        );
        let renamed = store.get_decision(&old_dec.id).unwrap().unwrap();
        assert!(
            renamed.subject.starts_with("release (older copy dec_"),
            "{}",
            renamed.subject
        );
        assert_eq!(renamed.artifact.uri.as_deref(), Some(NORMAL));
        // The full-text rows follow: the note is found by its new text, not as a feature name.
        let first = PageRequest {
            snapshot: None,
            after: None,
            limit: 10,
        };
        let found = store
            .recall(
                &RecordQuery {
                    text: Some("formerly".into()),
                    ..RecordQuery::default()
                },
                first,
            )
            .unwrap();
        assert_eq!(found.items.len(), 1);
        let by_subject = store
            .recall_decisions(
                &crate::store::DecisionQuery {
                    text: Some("older copy".into()),
                    ..Default::default()
                },
                first,
            )
            .unwrap();
        assert_eq!(by_subject.items.len(), 1);
        assert!(store.check().unwrap().is_empty());

        // Twice is harmless: nothing left to respell or keep apart.
        migrate(store.conn().unwrap(), Path::new(":memory:")).unwrap();
        let tx = rusqlite::Transaction::new_unchecked(
            store.conn().unwrap(),
            TransactionBehavior::Deferred,
        )
        .unwrap();
        assert_eq!(renormalise_locators(&tx).unwrap(), Renormalised::default());
        drop(tx);
        let rows: i64 = store
            .conn()
            .unwrap()
            .query_row(
                "SELECT (SELECT count(*) FROM records) + (SELECT count(*) FROM decisions)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(rows, 5, "no row dropped");
    }

    #[test]
    fn classify_newer_and_foreign_refused() {
        let p = Path::new("x.db");
        assert!(matches!(
            classify(p, APPLICATION_ID, SCHEMA_VERSION + 1, 9),
            Err(StoreError::Newer { .. })
        ));
        assert!(matches!(
            classify(p, 0, 0, 3),
            Err(StoreError::Foreign { .. })
        ));
        assert!(matches!(
            classify(p, 7, 0, 0),
            Err(StoreError::Foreign { .. })
        ));
        assert!(matches!(classify(p, 0, 0, 0), Ok(Found::Fresh)));
    }
}
