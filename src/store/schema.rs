//! The table shapes: the append-only list of migrations keyed on `user_version` (the DDL
//! text of each schema version), and the `application_id` that marks a file as ours.

/// 'RVMC' in ASCII: recognises our files among other SQLite databases.
pub const APPLICATION_ID: i64 = 0x5256_4D43;

/// Append-only: migration `i` upgrades schema version `i` to `i + 1` (after the columns
/// [`COLUMNS_BEFORE`] lists for it). Never edit a shipped entry; add a new one.
pub(super) const MIGRATIONS: &[&str] = &[
    V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19,
];

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
/// read from the record's own lists. Together a `remember` writes several pages fewer. Side
/// rows whose record is gone (only a hand-edited file
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
/// no table changes, the stored uris are rewritten by
/// [`renormalise_locators`](super::renormalise::renormalise_locators), which
/// [`migrate`](super::migrate::migrate) runs right after this entry.
const V4: &str = "";

/// One trigger of the change journal (V5), as its text always was: after `$event` on
/// `$table`, the counter moves and each row image named (`OLD`, `NEW`) marks its (revision,
/// locator) changed at the counter's value.
macro_rules! change_trigger {
    ($table:literal, $event:literal, $name:literal, $($row:literal),+) => {
        concat!(
            "CREATE TRIGGER IF NOT EXISTS ", $table, "_", $name, "_change AFTER ", $event,
            " ON ", $table, " BEGIN\n",
            "    UPDATE counters SET value = value + 1 WHERE name = 'change';\n",
            $(
                "    INSERT OR REPLACE INTO changes (revision, locator, version)\n",
                "        VALUES (", $row, ".revision, ", $row, ".locator, ",
                "(SELECT value FROM counters WHERE name = 'change'));\n",
            )+
            "END;\n",
        )
    };
}

/// The change journal: which revision and locator each write touched, in the order of one
/// counter (`change`), kept by triggers so that every process writing the file (a server, an
/// `import`) records its changes in the same transaction. A server tells its clients what
/// changed (`resources/list`, a subscribed resource) from it, whoever wrote. One row per
/// (revision, locator) pair ever written; the backfill gives existing pairs version 0. Every
/// statement may run twice (a test replays the upgrades on a current file).
const V5: &str = concat!(
    r#"
INSERT OR IGNORE INTO counters (name, value) VALUES ('change', 0);
CREATE TABLE IF NOT EXISTS changes (
    revision TEXT NOT NULL,
    locator  TEXT NOT NULL,
    version  INTEGER NOT NULL,
    PRIMARY KEY (revision, locator)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS changes_version ON changes (version);
CREATE INDEX IF NOT EXISTS changes_locator ON changes (locator);
INSERT OR IGNORE INTO changes (revision, locator, version)
    SELECT DISTINCT revision, locator, 0 FROM records
    UNION SELECT DISTINCT revision, locator, 0 FROM decisions;
"#,
    change_trigger!("records", "INSERT", "insert", "NEW"),
    change_trigger!("records", "UPDATE", "update", "OLD", "NEW"),
    change_trigger!("records", "DELETE", "delete", "OLD"),
    change_trigger!("decisions", "INSERT", "insert", "NEW"),
    change_trigger!("decisions", "UPDATE", "update", "OLD", "NEW"),
    change_trigger!("decisions", "DELETE", "delete", "OLD"),
);

/// Verdict provenance: where each verdict came from (`elicitation`, `app`, `assistant`) and
/// when it was given. A verdict stored before provenance existed was written in tool
/// arguments, so it is the assistant's, given no later than its decision's last change. The
/// index serves `recall_decisions`' verdict filters. The two columns are added first (see
/// [`COLUMNS_BEFORE`]).
const V6: &str = r#"
UPDATE basis_items SET verdict_via = 'assistant',
    verdict_at = (SELECT updated_at FROM decisions WHERE rid = basis_items.decision_rid)
    WHERE verdict_judgement IS NOT NULL AND verdict_via IS NULL;
CREATE INDEX IF NOT EXISTS basis_items_verdict
    ON basis_items (decision_rid, verdict_judgement, verdict_via);
"#;

/// The nullable TEXT columns an entry needs before it runs, by the schema version the entry
/// makes: (version, table, columns), each added unless it is there (SQLite has no
/// `ADD COLUMN IF NOT EXISTS`, and every step may run twice).
const COLUMNS_BEFORE: &[(usize, &str, &[&str])] = &[
    // Verdict provenance (V6).
    (6, "basis_items", &["verdict_via", "verdict_at"]),
    // The `author` columns of records, decisions and verdicts (V8).
    (8, "records", &["author"]),
    (8, "decisions", &["author"]),
    (8, "basis_items", &["verdict_author"]),
    // The columns of `carry_forward` (V10): `carried` (records, decisions, basis items: where
    // a carried item came from, JSON) and `superseded` (records, decisions: the revision an
    // item's revision was carried to, JSON).
    (10, "records", &["carried", "superseded"]),
    (10, "decisions", &["carried", "superseded"]),
    (10, "basis_items", &["carried"]),
    // The meaning of an engineer's verdict (V11).
    (11, "basis_items", &["verdict_meaning"]),
    // The entity ids a judged basis item lost to a carry (V17: JSON, NULL when none).
    (17, "basis_items", &["not_carried"]),
];

/// Upgrades schema version `i` to `i + 1`: the columns [`COLUMNS_BEFORE`] lists for it, then
/// migration `i`.
pub(super) fn upgrade(tx: &rusqlite::Transaction<'_>, i: usize) -> rusqlite::Result<()> {
    for (_, table, wanted) in COLUMNS_BEFORE.iter().filter(|(at, ..)| *at == i + 1) {
        add_text_columns(tx, table, wanted)?;
    }
    tx.execute_batch(MIGRATIONS.get(i).copied().unwrap_or(""))
}

/// Adds each nullable TEXT column `table` lacks. The names are this file's constants, never
/// input.
fn add_text_columns(
    tx: &rusqlite::Transaction<'_>,
    table: &str,
    wanted: &[&str],
) -> rusqlite::Result<()> {
    let columns: Vec<String> = tx
        .prepare("SELECT name FROM pragma_table_info(?1)")?
        .query_map([table], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for column in wanted {
        if !columns.iter().any(|c| c == column) {
            tx.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} TEXT"))?;
        }
    }
    Ok(())
}

/// Sync bases: per folder kept in step by `review-mcp sync`, what each item looked like at the
/// last sync (its canonical file text and that text's sha256), so a sync can tell which side
/// changed an item since (see `store/sync.rs`). The folder is its absolute path. Every
/// statement may run twice (a test replays the upgrades on a current file).
const V7: &str = r#"
CREATE TABLE IF NOT EXISTS sync_bases (
    folder TEXT NOT NULL,
    kind   TEXT NOT NULL CHECK (kind IN ('record', 'decision')),
    id     TEXT NOT NULL,
    hash   BLOB NOT NULL,
    body   TEXT NOT NULL,
    PRIMARY KEY (folder, kind, id)
);
"#;

/// Who wrote it: an optional `author` on records, decisions and verdicts (the
/// `REVIEW_MCP_AUTHOR` or `--author` of the server that wrote them). The columns are added first
/// (see [`COLUMNS_BEFORE`]); existing rows upgrade with no author.
const V8: &str = "";

/// The journal of a sync's folder writes (`store/sync.rs`): the files a committed sync still
/// has to bring to their bases (write the base's body, or delete the file when the item has no
/// base), each with the hash its file had when the sync planned (`prior`, NULL: absent) and the
/// run that owns the row. A sync killed after its commit leaves rows here; the next sync of
/// the folder finishes them. `folder` is the folder's id (the id file `.review-mcp-folder`
/// written at its first sync), as in `sync_bases` from this version on: bases still keyed by a
/// folder's absolute path (written before it) are re-keyed to its id at that folder's next
/// sync. Every statement may run twice.
const V9: &str = r#"
CREATE TABLE IF NOT EXISTS sync_pending (
    folder TEXT NOT NULL,
    kind   TEXT NOT NULL CHECK (kind IN ('record', 'decision')),
    id     TEXT NOT NULL,
    prior  BLOB,
    run    TEXT NOT NULL,
    PRIMARY KEY (folder, kind, id)
);
"#;

/// Carrying a review to the next revision (`carry_forward`): the columns are added first (see
/// [`COLUMNS_BEFORE`]); existing rows upgrade as stated at their own revision, superseded by
/// none. A named feature is unique per (locator, name) among the rows not superseded: when a
/// feature moves to the next revision, what the old revision said of it stays as a superseded
/// row. Every statement may run twice.
const V10: &str = r#"
DROP INDEX IF EXISTS records_feature_key;
CREATE UNIQUE INDEX IF NOT EXISTS records_feature_key ON records (locator, name)
    WHERE name IS NOT NULL AND superseded IS NULL;
CREATE INDEX IF NOT EXISTS records_superseded_by ON records (json_extract(superseded, '$.by'))
    WHERE superseded IS NOT NULL;
CREATE INDEX IF NOT EXISTS decisions_superseded_by
    ON decisions (json_extract(superseded, '$.by')) WHERE superseded IS NOT NULL;
"#;

/// The meaning of an engineer's verdict (review or approval, given in `review-mcp review`):
/// `basis_items.verdict_meaning`, added first (see [`COLUMNS_BEFORE`]); existing verdicts
/// upgrade without one (they read as reviews).
const V11: &str = "";

/// The review's history (see `crate::review::history`): one row per event, its wire form in
/// `body`, never updated nor deleted (the triggers refuse). `seq` is this database's order of
/// arrival: the reading order is (`at`, `seq`), and a history page's snapshot bounds `seq`. `history_since` is when this file began recording events (its creation,
/// or its upgrade to this version): nothing before it was recorded.
const V12: &str = r#"
CREATE TABLE IF NOT EXISTS events (
    seq      INTEGER PRIMARY KEY,
    id       TEXT NOT NULL UNIQUE,
    at       TEXT NOT NULL,
    step     INTEGER NOT NULL,
    of       TEXT NOT NULL,
    locator  TEXT NOT NULL,
    revision TEXT NOT NULL,
    after    TEXT,
    body     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_order ON events (at);
CREATE INDEX IF NOT EXISTS events_of ON events (of, at);
CREATE INDEX IF NOT EXISTS events_revision ON events (revision, at);
CREATE INDEX IF NOT EXISTS events_locator ON events (locator, at);
CREATE TRIGGER IF NOT EXISTS events_never_updated BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the review history is append-only: an event is never changed'); END;
CREATE TRIGGER IF NOT EXISTS events_never_deleted BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the review history is append-only: an event is never deleted'); END;
INSERT OR IGNORE INTO counters (name, value)
    VALUES ('history_since', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
"#;

/// The current decision of a subject on a file is the one created last (`created_at`, which
/// every clone of a review holds alike), then received last (`seq`): this index makes that
/// test (`decisions::CURRENT_DECISION`) a search of a covering index instead of a read of the
/// row of every revision of the subject on the file.
const V13: &str = r#"
CREATE INDEX IF NOT EXISTS decisions_current ON decisions (locator, subject, created_at, seq);
"#;

/// The current decision of a subject on a file is the one created last, then the one of the
/// greater id (`decisions::CURRENT_DECISION`: both alike in every clone, where the order of
/// arrival, `seq`, is not): this index, in place of version 13's, keeps that test a search of
/// a covering index.
const V14: &str = r#"
DROP INDEX IF EXISTS decisions_current;
CREATE INDEX IF NOT EXISTS decisions_newest ON decisions (locator, subject, created_at, id);
"#;

/// Where this database last synced each folder (`review-mcp sync`): per folder id, the
/// folder's canonical path and the database's own when it synced it, each as the system's
/// bytes. A sync of a folder whose id this database, at the same path, last synced at another
/// path that still holds that id (a second clone or `git worktree`, a copied folder) is
/// refused: synced in turn, each would delete from the database what the other lacks. A row
/// written under another database path is a copy's of the database (the database and its
/// folder copied together), and counts for nothing. Nothing is recorded for a folder until its
/// next sync. Every statement may run twice.
const V15: &str = r#"
CREATE TABLE IF NOT EXISTS sync_folders (
    folder   TEXT PRIMARY KEY,
    path     BLOB NOT NULL,
    database BLOB NOT NULL
) WITHOUT ROWID;
"#;

/// The history files a sync has checked (`review-mcp sync`): per event the database holds, the
/// sha256 of its history file's text as sync writes it (`history/<event id>.json`). A later
/// sync takes a file whose bytes (CRLF line endings as LF) hash to it as that event without
/// parsing and checking it again; any other file of the event is parsed and checked as
/// before. The text is the event's alone, whatever the folder: one row per event, written by
/// sync only (a server's event has none until a sync checks or writes its file). Every
/// statement may run twice.
const V16: &str = r#"
CREATE TABLE IF NOT EXISTS sync_event_files (
    id   TEXT PRIMARY KEY,
    hash BLOB NOT NULL
) WITHOUT ROWID;
"#;

/// The entity ids a basis item lost to a carry, kept once the engineer's verdict made it its
/// revision's own (`review::NotCarried`): `basis_items.not_carried`, JSON, added first (see
/// [`COLUMNS_BEFORE`]); existing items upgrade without one (NULL: as they read before).
const V17: &str = "";

/// Whether a revision was carried past for a feature: sync and import ask, of every statement
/// that meets a carried version of its feature, for the feature's superseded copy at the
/// statement's revision, found by (locator, name, revision) among the copies
/// (`records::rows::feature_copy`). Without this index each question read every record of the
/// revision: a sync of N features changed on both sides over a carry grew as N squared. It is
/// partial, so it holds only the copies. (The `carried` events asked with it are read once per
/// revision and file by the sync or import: `history::CarriedFrom`; an index on their JSON
/// would refuse a damaged event, which must stop a sync instead, naming it.) Every statement
/// may run twice.
const V18: &str = r#"
CREATE INDEX IF NOT EXISTS records_copy_key ON records (locator, name, revision, seq)
    WHERE superseded IS NOT NULL;
"#;

/// Whether what a history page covers began before recording did (`review_history`'s
/// `earlier_not_recorded`) asks for the items of its file or revision that were forgotten: the
/// endings (events that leave no state, `after` NULL) among the scope's events. Without these
/// indexes every `review_history` call by file or revision read every event of it (at 100,000
/// events of one file, the whole table: 70 to 300 ms a call, each page). They are partial, so
/// they hold only the endings. Every statement may run twice.
const V19: &str = r#"
CREATE INDEX IF NOT EXISTS events_ended_locator ON events (locator) WHERE after IS NULL;
CREATE INDEX IF NOT EXISTS events_ended_revision ON events (revision) WHERE after IS NULL;
"#;

/// The upgrade after which [`rebuild_text_indexes`] runs: schema version 2 keys records by
/// their `seq`, and so must their full-text rows be.
pub(super) const TEXT_REINDEXED_AT: usize = 2;

/// Both full-text indexes made again from the rows, as this build writes them: their rowid is
/// the row's `seq`, with V1's prefix indexes. The first builds (before 0.1) wrote schema
/// version 1 with the full-text rows keyed by each row's `rid`, which V2 does not change, so
/// a text search of such a file found other items, or none, after the upgrade; later
/// version-1 files are made again the same. A decision's text is what `write_decision`
/// indexes: subject; disposition, summary, then each item's requirement and evidence.
pub(super) fn rebuild_text_indexes(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    // In SQL, so that a damaged value (not text) is indexed as SQLite spells it instead of
    // stopping the upgrade.
    tx.execute_batch(
        r#"
DROP TABLE IF EXISTS records_fts;
DROP TABLE IF EXISTS decisions_fts;
CREATE VIRTUAL TABLE records_fts USING fts5 (
    name, note,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8'
);
CREATE VIRTUAL TABLE decisions_fts USING fts5 (
    subject, body,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6 7 8'
);
INSERT INTO records_fts (rowid, name, note) SELECT seq, name, note FROM records;
INSERT INTO decisions_fts (rowid, subject, body)
SELECT d.seq, d.subject,
    d.disposition || coalesce(char(10) || d.summary, '') || coalesce(char(10) || (
        SELECT group_concat(b.requirement || coalesce(char(10) || b.evidence, ''), char(10)
            ORDER BY b.position)
        FROM basis_items b WHERE b.decision_rid = d.rid), '')
FROM decisions d;
"#,
    )
}
