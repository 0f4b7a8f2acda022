//! Files older builds left, opened by this one: each is made here by SQL in the shape the
//! older build wrote it (no test builds an old binary), then used through the server.
//! Nothing may be lost or change meaning: every answer is the one the same data entered
//! fresh gets.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::client::Server;

const REV: &str = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const URI: &str = "file:///work/parts/bracket.step";
const T: &str = "2026-11-29T23:55:00.000Z";

/// Schema version 1 as the first builds wrote it (before 0.1): the kind index, full-text
/// indexes without prefix indexes, and their rows keyed by the row's `rid`, not its `seq`.
const V1_FIRST_BUILDS: &str = r#"
CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE records (
    rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('feature', 'note')), locator TEXT NOT NULL,
    name TEXT, note TEXT, tags TEXT NOT NULL, entity_ids TEXT NOT NULL,
    id_scheme TEXT NOT NULL, revision TEXT NOT NULL, format TEXT NOT NULL, uri TEXT,
    units TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    seq INTEGER NOT NULL UNIQUE,
    CHECK ((kind = 'feature') = (name IS NOT NULL))
);
CREATE UNIQUE INDEX records_feature_key ON records (locator, name) WHERE name IS NOT NULL;
CREATE INDEX records_locator_seq ON records (locator, seq);
CREATE INDEX records_revision_seq ON records (revision, seq);
CREATE INDEX records_kind_seq ON records (kind, seq);
CREATE TABLE record_entities (
    entity_id TEXT NOT NULL, revision TEXT NOT NULL, seq INTEGER NOT NULL,
    rid INTEGER NOT NULL REFERENCES records (rid) ON DELETE CASCADE,
    PRIMARY KEY (entity_id, revision, seq)
) WITHOUT ROWID;
CREATE INDEX record_entities_rid ON record_entities (rid);
CREATE TABLE record_tags (
    tag TEXT NOT NULL, seq INTEGER NOT NULL,
    rid INTEGER NOT NULL REFERENCES records (rid) ON DELETE CASCADE,
    PRIMARY KEY (tag, seq)
) WITHOUT ROWID;
CREATE INDEX record_tags_rid ON record_tags (rid);
CREATE VIRTUAL TABLE records_fts USING fts5 (
    name, note, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE decisions (
    rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, locator TEXT NOT NULL,
    subject TEXT NOT NULL, revision TEXT NOT NULL, format TEXT NOT NULL, uri TEXT,
    units TEXT, disposition TEXT NOT NULL, summary TEXT, created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL, seq INTEGER NOT NULL UNIQUE,
    UNIQUE (locator, subject, revision)
);
CREATE INDEX decisions_locator_seq ON decisions (locator, seq);
CREATE INDEX decisions_revision_seq ON decisions (revision, seq);
CREATE INDEX decisions_subject_seq ON decisions (subject, seq);
CREATE TABLE basis_items (
    decision_rid INTEGER NOT NULL REFERENCES decisions (rid) ON DELETE CASCADE,
    position INTEGER NOT NULL, requirement TEXT NOT NULL, source TEXT NOT NULL,
    source_detail TEXT, evidence TEXT, state TEXT NOT NULL, question TEXT,
    faces TEXT NOT NULL, verdict_judgement TEXT, verdict_reason TEXT,
    PRIMARY KEY (decision_rid, position)
) WITHOUT ROWID;
CREATE INDEX basis_items_state ON basis_items (state);
CREATE TABLE decision_faces (
    face TEXT NOT NULL, revision TEXT NOT NULL, seq INTEGER NOT NULL,
    rid INTEGER NOT NULL REFERENCES decisions (rid) ON DELETE CASCADE,
    PRIMARY KEY (face, revision, seq)
) WITHOUT ROWID;
CREATE INDEX decision_faces_rid ON decision_faces (rid);
CREATE TABLE decision_states (
    state TEXT NOT NULL, seq INTEGER NOT NULL,
    rid INTEGER NOT NULL REFERENCES decisions (rid) ON DELETE CASCADE,
    PRIMARY KEY (state, seq)
) WITHOUT ROWID;
CREATE INDEX decision_states_rid ON decision_states (rid);
CREATE VIRTUAL TABLE decisions_fts USING fts5 (
    subject, body, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
"#;

/// A review as the first builds stored it: the feature "mating face" remembered twice (row
/// id 1, its seq moved to 2 by the replacement), then a note (row id 2, seq 3), a decision
/// replaced once (row id 1, seq 5) and another (row id 2, seq 6). Full-text rows by row id.
fn first_builds_file(db: &Path) -> anyhow::Result<()> {
    let conn = rusqlite::Connection::open(db)?;
    conn.execute_batch(V1_FIRST_BUILDS)?;
    let rev = REV;
    let uri = URI;
    conn.execute_batch(&format!(
        "INSERT INTO counters VALUES ('seq', 6);
         INSERT INTO records VALUES
           (1, 'rec_0000000000000001', 'feature', '{uri}', 'mating face',
            'Mates with the housing flange', '[\"interface\"]', '[\"face:12\"]', 'opaque',
            '{rev}', 'step', '{uri}', 'mm', '{T}', '{T}', 2),
           (2, 'rec_0000000000000002', 'note', '{uri}', NULL,
            'Boss wall looks thin', '[\"wall\"]', '[\"face:3\"]', 'opaque',
            '{rev}', 'step', '{uri}', 'mm', '{T}', '{T}', 3);
         INSERT INTO record_entities VALUES ('face:12', '{rev}', 2, 1), ('face:3', '{rev}', 3, 2);
         INSERT INTO record_tags VALUES ('interface', 2, 1), ('wall', 3, 2);
         INSERT INTO records_fts (rowid, name, note) VALUES
           (1, 'mating face', 'Mates with the housing flange'), (2, NULL, 'Boss wall looks thin');
         INSERT INTO decisions VALUES
           (1, 'dec_0000000000000001', '{uri}', 'release', '{rev}', 'step', '{uri}', 'mm',
            'hold', 'Hold for the wall check', '{T}', '{T}', 5),
           (2, 'dec_0000000000000002', '{uri}', 'seal fit', '{rev}', 'step', '{uri}', 'mm',
            'release', 'Groove fits the o-ring', '{T}', '{T}', 6);
         INSERT INTO basis_items VALUES
           (1, 0, 'Wall at least 2 mm', 'shop-spec', NULL, NULL, 'unresolved',
            'Ask the supplier', '[\"face:3\"]', NULL, NULL),
           (2, 0, 'Groove depth per AS568', 'standard', NULL, 'measured 1.9', 'satisfied',
            NULL, '[]', 'accepted', NULL);
         INSERT INTO decision_faces VALUES ('face:3', '{rev}', 5, 1);
         INSERT INTO decision_states VALUES ('unresolved', 5, 1), ('satisfied', 6, 2);
         INSERT INTO decisions_fts (rowid, subject, body) VALUES
           (1, 'release', 'hold\nHold for the wall check\nWall at least 2 mm'),
           (2, 'seal fit', 'release\nGroove fits the o-ring\nGroove depth per AS568\nmeasured 1.9');
         PRAGMA application_id = 1381387587;
         PRAGMA user_version = 1;"
    ))?;
    Ok(())
}

fn found(answer: &Value, list: &str, key: &str) -> Vec<String> {
    answer[list]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|i| i[key].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// A text search of a file the first builds wrote finds what the words are in: their
/// full-text rows were keyed by row id, and the upgrade to schema version 2 keyed the records
/// by seq, so "boss" found the feature "mating face" and "housing" found nothing.
#[test]
fn first_builds_file_text_search_finds_the_right_items() -> anyhow::Result<()> {
    let tmp = TempDir::new("gen-fts")?;
    let db = tmp.join("review.db");
    first_builds_file(&db)?;
    let mut server = Server::start(&db)?;
    let cases = [
        ("boss", vec!["rec_0000000000000002"]),
        ("housing", vec!["rec_0000000000000001"]),
        ("mating", vec!["rec_0000000000000001"]),
    ];
    for (text, want) in cases {
        let got = server.call("recall", json!({ "text": text }))?.ok()?;
        assert_eq!(
            found(&got, "records", "id"),
            want,
            "recall text {text:?}: {got}"
        );
    }
    let cases = [
        ("wall", vec!["dec_0000000000000001"]),
        ("groove", vec!["dec_0000000000000002"]),
        ("measured", vec!["dec_0000000000000002"]),
    ];
    for (text, want) in cases {
        let got = server
            .call("recall_decisions", json!({ "text": text }))?
            .ok()?;
        assert_eq!(
            found(&got, "decisions", "id"),
            want,
            "recall_decisions text {text:?}: {got}"
        );
    }
    // A replacement after the upgrade leaves no full-text row of the old text behind.
    server
        .call(
            "remember",
            json!({ "artifact": { "revision": REV, "format": "step", "uri": URI },
                    "entity_ids": ["face:12"], "name": "mating face", "note": "Seats the bearing" }),
        )?
        .ok()?;
    let got = server.call("recall", json!({ "text": "housing" }))?.ok()?;
    assert_eq!(found(&got, "records", "id"), Vec::<String>::new(), "{got}");
    let got = server.call("recall", json!({ "text": "bearing" }))?.ok()?;
    assert_eq!(
        found(&got, "records", "id"),
        vec!["rec_0000000000000001"],
        "{got}"
    );
    server.close()?;
    Ok(())
}

/// A newer review-mcp that upgrades the file while this one still serves it (the host
/// restarted one server of two): this server's next call neither writes nor reads the file
/// as if it knew its schema; it says a newer version upgraded it, and the file is left as the
/// newer version made it. (What an older server does on this version's upgrade is up to
/// that older build.)
#[test]
fn a_file_upgraded_by_a_newer_version_meanwhile_is_refused_not_written() -> anyhow::Result<()> {
    use review_mcp::store::SCHEMA_VERSION;
    let tmp = TempDir::new("gen-newer")?;
    let db = tmp.join("review.db");
    let mut server = Server::start(&db)?;
    let art = json!({ "revision": REV, "format": "step", "uri": URI });
    server
        .call(
            "remember",
            json!({ "artifact": art, "entity_ids": [], "name": "kept", "note": "before" }),
        )?
        .ok()?;
    // The newer version's upgrade, as far as this build can tell: its schema version.
    let newer = rusqlite::Connection::open(&db)?;
    newer.pragma_update(None, "user_version", SCHEMA_VERSION + 1)?;
    let count = |conn: &rusqlite::Connection| -> rusqlite::Result<i64> {
        conn.query_row("SELECT count(*) FROM records", [], |r| r.get(0))
    };
    assert_eq!(count(&newer)?, 1);
    let write = server.call(
        "remember",
        json!({ "artifact": art, "entity_ids": [], "name": "new", "note": "after" }),
    )?;
    let read = server.call("recall", json!({}))?;
    for (what, answer) in [("remember", write), ("recall", read)] {
        match answer {
            crate::support::client::Answer::ToolError(text) => assert!(
                text.contains("newer review-mcp")
                    && text.contains(&format!("{}", SCHEMA_VERSION + 1)),
                "{what}: {text}"
            ),
            other => anyhow::bail!("{what} was answered from a newer file: {other:?}"),
        }
    }
    assert_eq!(count(&newer)?, 1);
    let version: i64 = newer.pragma_query_value(None, "user_version", |r| r.get(0))?;
    assert_eq!(version, SCHEMA_VERSION + 1);
    drop(newer);
    server.close()?;
    Ok(())
}

/// A server of the first builds still running on a file this version upgraded (two hosts,
/// two bundles) replaces a decision as it always did: the row keeps its row id and gets a new
/// seq, and its full-text row is deleted and written again under the row id, where this
/// version keys it by seq. A text search then finds the decision under no word, and `check`
/// answered "ok". It now names the full-text index out of step and what repairs it (an
/// export imported into a new file), which this test runs.
#[test]
fn a_full_text_index_written_by_the_first_builds_after_the_upgrade_fails_check()
-> anyhow::Result<()> {
    use crate::support::file_events::run_cli;
    let tmp = TempDir::new("gen-fts-check")?;
    let db = tmp.join("review.db");
    let mut server = Server::start(&db)?;
    let art = json!({ "revision": REV, "format": "step", "uri": URI });
    let basis = json!([{ "requirement": "Wall at least 2 mm", "source": "shop-spec",
                         "state": "satisfied" }]);
    server
        .call(
            "remember",
            json!({ "artifact": art, "entity_ids": ["face:3"], "note": "Boss wall looks thin" }),
        )?
        .ok()?;
    server
        .call(
            "remember_decision",
            json!({ "artifact": art, "subject": "wall", "disposition": "hold", "basis": basis }),
        )?
        .ok()?;
    server.close()?;
    let out = run_cli(&db, &["check"])?;
    assert!(out.status.success(), "{out:?}");

    // The first builds' replacement (store/decisions.rs of 9af688d), by SQL: its delete by
    // row id leaves this version's entry (under the old seq) as it was.
    let old = rusqlite::Connection::open(&db)?;
    old.execute_batch(
        "BEGIN;
         UPDATE counters SET value = value + 1 WHERE name = 'seq';
         UPDATE decisions SET disposition = 'release',
             seq = (SELECT value FROM counters WHERE name = 'seq');
         DELETE FROM decisions_fts WHERE rowid = (SELECT rid FROM decisions);
         INSERT INTO decisions_fts (rowid, subject, body)
             SELECT rid, subject, 'release' || char(10) || 'Wall at least 2 mm' FROM decisions;
         COMMIT;",
    )?;
    drop(old);
    let mut server = Server::start(&db)?;
    let got = server
        .call("recall_decisions", json!({ "text": "wall" }))?
        .ok()?;
    assert_eq!(
        found(&got, "decisions", "id"),
        Vec::<String>::new(),
        "{got}"
    );
    server.close()?;

    let out = run_cli(&db, &["check"])?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "check passed: {out:?}");
    assert!(
        err.contains("full-text index of decisions")
            && err.contains("1 decision without its entry")
            && err.contains("2 entries of no decision")
            && err.contains("import"),
        "{err}"
    );
    // Regression: the export it named was `review-mcp export -o FILE`, which run as given in
    // a shell without REVIEW_MCP_DB_PATH exports ./review-mcp.db, not this file.
    assert!(
        err.contains(&format!(
            "`review-mcp --db {} export -o FILE`",
            db.display()
        )),
        "the export command names the file checked: {err}"
    );
    assert!(!err.contains("full-text index of records"), "{err}");
    // Regression (review3): the summary told the user to put their last good copy in place
    // (losing what was written since) and to try `.recover`, advice for a damaged file; an
    // index out of step loses nothing, and its repair is the one the problem names.
    assert!(
        !err.contains("last good copy")
            && !err.contains(".recover")
            && err.contains("nothing is lost"),
        "{err}"
    );
    // Regression: `backup` copied the index as it is, failed the copy's check, and left the
    // copy in place, a file that fails `check`, beside a repair that named `--db PATH`.
    let copy = tmp.join("copy.db");
    let out = run_cli(&db, &["backup", &copy.to_string_lossy()])?;
    let backup_err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{backup_err}");
    assert!(!copy.exists(), "a backup failing its check was left");
    let left: Vec<_> = std::fs::read_dir(tmp.path())?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("copy.db"))
        .collect();
    assert!(left.is_empty(), "the copy's files were left: {left:?}");
    assert!(
        backup_err.contains("no backup was written")
            && backup_err.contains(&format!(
                "`review-mcp --db {} export -o FILE`",
                db.display()
            )),
        "{backup_err}"
    );

    // The repair it names: an export imported into a new file.
    let export = tmp.join("review.jsonl");
    let out = run_cli(&db, &["export", "-o", &export.to_string_lossy()])?;
    assert!(out.status.success(), "{out:?}");
    let fresh = tmp.join("fresh.db");
    let out = run_cli(&fresh, &["import", &export.to_string_lossy()])?;
    assert!(out.status.success(), "{out:?}");
    let out = run_cli(&fresh, &["check"])?;
    assert!(out.status.success(), "{out:?}");
    let mut server = Server::start(&fresh)?;
    for text in ["wall", "release"] {
        let got = server
            .call("recall_decisions", json!({ "text": text }))?
            .ok()?;
        assert_eq!(found(&got, "decisions", "subject"), vec!["wall"], "{got}");
    }
    server.close()?;
    Ok(())
}

/// `review-mcp export` on `db` by a process that cannot write its directory (as root: user
/// `nobody` through `setpriv`, since root writes anywhere).
#[cfg(unix)]
fn export_unable_to_write(db: &Path) -> anyhow::Result<std::process::Output> {
    export_unable_to_write_with(db, &[])
}

/// [`export_unable_to_write`] with these variables set in its environment.
#[cfg(unix)]
fn export_unable_to_write_with(
    db: &Path,
    vars: &[(&str, &std::ffi::OsStr)],
) -> anyhow::Result<std::process::Output> {
    use std::process::{Command, Stdio};
    let root = writes_read_only_directories(db.parent().unwrap_or(Path::new("/")));
    let mut cmd = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(crate::support::client::binary());
        c
    } else {
        Command::new(crate::support::client::binary())
    };
    Ok(cmd
        .arg("--db")
        .arg(db)
        .arg("export")
        .env("MCP_LOG_LEVEL", "warn")
        .envs(vars.iter().copied())
        .current_dir("/")
        .stdin(Stdio::null())
        .output()?)
}

/// Whether this process writes in `dir` although it is mode 555 (root does).
#[cfg(unix)]
fn writes_read_only_directories(dir: &Path) -> bool {
    let probe = dir.join(".write-probe");
    let wrote = std::fs::File::create(&probe).is_ok();
    let _ = std::fs::remove_file(&probe);
    wrote
}

/// The rollback version at work on `db` (written by the first builds): a write of the whole
/// file in one transaction, its journal holding every page as it was, interrupted before the
/// journal was reset (the connection is leaked, as a killed process leaves it). The file and
/// its hot journal are copied into the new folder `share`, which is returned.
#[cfg(unix)]
fn hot_journal_copy(db: &Path, share: &Path) -> anyhow::Result<PathBuf> {
    first_builds_file(db)?;
    {
        let conn = rusqlite::Connection::open(db)?;
        conn.execute_batch(
            "PRAGMA journal_mode = PERSIST; PRAGMA cache_size = 1;
             BEGIN; UPDATE records SET note = 'torn' ; UPDATE decisions SET summary = 'torn';",
        )?;
        // Spill the change into the file: the journal is hot from here.
        conn.execute_batch(
            "CREATE TABLE spill (x); INSERT INTO spill SELECT zeroblob(100000) FROM records;",
        )?;
        std::mem::forget(conn);
    }
    let mut journal = db.as_os_str().to_owned();
    journal.push("-journal");
    let journal = PathBuf::from(journal);
    anyhow::ensure!(journal.exists(), "no journal was left");
    std::fs::create_dir(share)?;
    std::fs::copy(db, share.join("review.db"))?;
    std::fs::copy(&journal, share.join("review.db-journal"))?;
    Ok(share.to_path_buf())
}

/// A server of the rollback-journal version killed in the middle of a commit leaves a hot
/// journal; a copy of that folder on a read-only mount or in a directory this user cannot
/// write (a colleague's share, a backup) is still read by `export` as the file was before
/// the interrupted write (SQLite must roll the journal back first, which it cannot do there:
/// the command reads a private copy of both instead of refusing).
#[cfg(unix)]
#[test]
fn a_hot_journal_of_the_rollback_version_in_a_read_only_directory_is_read_rolled_back()
-> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("gen-hot")?;
    let dir = tmp.join("share");
    std::fs::create_dir(&dir)?;
    let db = dir.join("review.db");
    // Copied elsewhere (the writer's locks do not travel), then made read-only.
    let share = hot_journal_copy(&db, &tmp.join("copy"))?;
    for f in ["review.db", "review.db-journal"] {
        std::fs::set_permissions(share.join(f), std::fs::Permissions::from_mode(0o644))?;
    }
    std::fs::set_permissions(&share, std::fs::Permissions::from_mode(0o555))?;
    let before = std::fs::read(share.join("review.db"))?;
    let out = export_unable_to_write(&share.join("review.db"));
    std::fs::set_permissions(&share, std::fs::Permissions::from_mode(0o755))?;
    let out = out?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(out.status.success(), "export failed: {stderr}");
    anyhow::ensure!(
        !stdout.contains("torn"),
        "the interrupted write was read: {stdout}"
    );
    anyhow::ensure!(
        stdout.contains("Boss wall looks thin") && stdout.contains("Hold for the wall check"),
        "{stdout}"
    );
    anyhow::ensure!(
        std::fs::read(share.join("review.db"))? == before,
        "the read-only file changed"
    );
    Ok(())
}

/// A file of an older schema version in WAL mode (0.1 wrote WAL) whose log still holds its
/// last writes, copied without its `-shm` to a place this user cannot write (a share, a
/// backup of the folder): `export` reads a private copy of both, and, the file being older,
/// an upgraded copy of that. The upgraded copy was refused ("the database file is
/// read-only"), as the copy of the log is read `query_only`.
#[cfg(unix)]
#[test]
fn an_older_file_with_its_log_and_no_index_in_a_read_only_directory_is_exported()
-> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("gen-oldlog")?;
    let db = tmp.join("review.db");
    first_builds_file(&db)?;
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")?;
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )?;
        conn.execute_batch("UPDATE records SET note = 'in the log' WHERE rid = 2;")?;
    }
    let wal = tmp.join("review.db-wal");
    anyhow::ensure!(std::fs::metadata(&wal)?.len() > 0, "no log was left");
    let share = tmp.join("copy");
    std::fs::create_dir(&share)?;
    std::fs::copy(&db, share.join("review.db"))?;
    std::fs::copy(&wal, share.join("review.db-wal"))?;
    for f in ["review.db", "review.db-wal"] {
        std::fs::set_permissions(share.join(f), std::fs::Permissions::from_mode(0o644))?;
    }
    std::fs::set_permissions(&share, std::fs::Permissions::from_mode(0o555))?;
    let out = export_unable_to_write(&share.join("review.db"));
    std::fs::set_permissions(&share, std::fs::Permissions::from_mode(0o755))?;
    let out = out?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(out.status.success(), "export failed: {stderr}");
    anyhow::ensure!(
        stdout.contains("in the log") && stdout.contains("Hold for the wall check"),
        "{stdout}"
    );
    Ok(())
}

/// `share` made read-only as a colleague's share or a backup often is: every file in it
/// mode 444 (`chmod -R a-w`), the directory 555.
#[cfg(unix)]
fn write_protect(share: &Path, files: &[&str]) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for f in files {
        std::fs::set_permissions(share.join(f), std::fs::Permissions::from_mode(0o444))?;
    }
    std::fs::set_permissions(share, std::fs::Permissions::from_mode(0o555))?;
    Ok(())
}

/// The private copy of a file and its hot journal takes the files' mode 444 with it when
/// copied as they are: SQLite then opens the copy read-only and cannot roll it back, and
/// export failed with "cannot open ... for reading and writing" about the file itself. The
/// copy is this process's own file, readable and writable by its owner alone.
#[cfg(unix)]
#[test]
fn a_hot_journal_in_a_write_protected_share_of_write_protected_files_is_read_rolled_back()
-> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("gen-hot444")?;
    let db = tmp.join("review.db");
    let share = hot_journal_copy(&db, &tmp.join("copy"))?;
    write_protect(&share, &["review.db", "review.db-journal"])?;
    let out = export_unable_to_write(&share.join("review.db"));
    std::fs::set_permissions(&share, std::fs::Permissions::from_mode(0o755))?;
    let out = out?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(out.status.success(), "export failed: {stderr}");
    anyhow::ensure!(
        !stdout.contains("torn") && stdout.contains("Boss wall looks thin"),
        "{stdout}"
    );
    Ok(())
}

/// The same for a log without its index: the copy of a mode-444 file and log was opened
/// read-only, and export said "the database file is read-only; check its permissions" of a
/// file this user only ever reads.
#[cfg(unix)]
#[test]
fn a_log_in_a_write_protected_share_of_write_protected_files_is_exported() -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("gen-log444")?;
    let db = tmp.join("review.db");
    first_builds_file(&db)?;
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")?;
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )?;
        conn.execute_batch("UPDATE records SET note = 'in the log' WHERE rid = 2;")?;
    }
    let wal = tmp.join("review.db-wal");
    anyhow::ensure!(std::fs::metadata(&wal)?.len() > 0, "no log was left");
    let share = tmp.join("copy");
    std::fs::create_dir(&share)?;
    std::fs::copy(&db, share.join("review.db"))?;
    std::fs::copy(&wal, share.join("review.db-wal"))?;
    write_protect(&share, &["review.db", "review.db-wal"])?;
    let out = export_unable_to_write(&share.join("review.db"));
    std::fs::set_permissions(&share, std::fs::Permissions::from_mode(0o755))?;
    let out = out?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(out.status.success(), "export failed: {stderr}");
    anyhow::ensure!(stdout.contains("in the log"), "{stdout}");
    Ok(())
}

/// An older file is read through a private copy in the temporary directory: when that
/// cannot be made (TMPDIR names a missing directory, or one that is full), the command said
/// "cannot open <TMPDIR>/review-mcp-upgrade-…: No such file or directory; check the path",
/// or "<the database>: the disk is full" of a database on a disk with room to spare. It now
/// names the temporary directory and TMPDIR, and the database as unchanged.
#[cfg(unix)]
#[test]
fn an_older_file_whose_private_copy_cannot_be_made_says_to_point_tmpdir_elsewhere()
-> anyhow::Result<()> {
    let tmp = TempDir::new("gen-tmpdir")?;
    let db = tmp.join("review.db");
    first_builds_file(&db)?;
    let before = std::fs::read(&db)?;
    let missing = tmp.join("no-such-dir");
    let out = std::process::Command::new(crate::support::client::binary())
        .arg("--db")
        .arg(&db)
        .arg("export")
        .env("MCP_LOG_LEVEL", "warn")
        .env("TMPDIR", &missing)
        .stdin(std::process::Stdio::null())
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(!out.status.success(), "export succeeded");
    anyhow::ensure!(
        stderr.contains("TMPDIR")
            && stderr.contains(&missing.display().to_string())
            && stderr.contains("not changed"),
        "{stderr}"
    );
    anyhow::ensure!(std::fs::read(&db)? == before, "the file changed");
    Ok(())
}

/// TMPDIR set but empty is no directory: the private copy went to the current directory
/// (`std::env::temp_dir` returns the empty path), where a killed command would leave a copy of
/// the review, and which a host's `/` does not let it write: export failed with "Permission
/// denied". It is made in /tmp, as with TMPDIR unset.
#[cfg(unix)]
#[test]
fn an_empty_tmpdir_makes_the_private_copy_in_tmp_not_the_current_directory() -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("gen-emptytmp")?;
    let share = tmp.join("share");
    std::fs::create_dir(&share)?;
    let db = share.join("review.db");
    first_builds_file(&db)?;
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644))?;
    std::fs::set_permissions(&share, std::fs::Permissions::from_mode(0o555))?;
    let out = export_unable_to_write_with(&db, &[("TMPDIR", std::ffi::OsStr::new(""))]);
    std::fs::set_permissions(&share, std::fs::Permissions::from_mode(0o755))?;
    let out = out?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(out.status.success(), "export failed: {stderr}");
    anyhow::ensure!(stdout.contains("Boss wall looks thin"), "{stdout}");
    Ok(())
}

/// A command killed while it reads a private copy (kill -9, a host's timeout, Ctrl-C) cannot
/// remove it: each such copy of the review stayed in TMPDIR for good, as big as the
/// database. The next command that makes a private copy removes those whose command is gone.
#[cfg(unix)]
#[test]
fn a_private_copy_left_by_a_killed_command_is_removed_by_the_next() -> anyhow::Result<()> {
    use std::process::{Command, Stdio};
    let tmp = TempDir::new("gen-killed")?;
    let temp = tmp.join("tmp");
    std::fs::create_dir(&temp)?;
    let db = tmp.join("review.db");
    first_builds_file(&db)?;
    {
        // Enough rows that the export fills the pipe nobody reads, and waits there.
        let conn = rusqlite::Connection::open(&db)?;
        conn.execute_batch(&format!(
            "WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
             INSERT INTO records SELECT i, printf('rec_%016x', i), 'note', '{URI}', NULL,
                 'a note long enough to fill a pipe buffer soon', '[]', '[]', 'opaque',
                 '{REV}', 'step', '{URI}', 'mm', '{T}', '{T}', i FROM n;
             UPDATE counters SET value = 3000 WHERE name = 'seq';"
        ))?;
    }
    let export = || {
        let mut c = Command::new(crate::support::client::binary());
        c.arg("--db")
            .arg(&db)
            .arg("export")
            .env("MCP_LOG_LEVEL", "warn")
            .env("TMPDIR", &temp)
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    let left = || -> anyhow::Result<Vec<String>> {
        Ok(std::fs::read_dir(&temp)?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect())
    };
    let mut killed = export().stdout(Stdio::piped()).spawn()?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while left()?.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    killed.kill()?;
    killed.wait()?;
    anyhow::ensure!(
        !left()?.is_empty(),
        "the killed export left no copy to find"
    );
    let out = export().stdout(Stdio::null()).status()?;
    anyhow::ensure!(out.success(), "the second export failed");
    let after = left()?;
    anyhow::ensure!(after.is_empty(), "left in TMPDIR: {after:?}");
    // A command still reading its copy keeps it while another runs and ends.
    let reading = export().stdout(Stdio::piped()).spawn()?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while left()?.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    anyhow::ensure!(export().stdout(Stdio::null()).status()?.success());
    let out = reading.wait_with_output()?;
    anyhow::ensure!(
        out.status.success()
            && String::from_utf8_lossy(&out.stdout).contains("rec_0000000000000bb8"),
        "the export still reading its copy failed"
    );
    let after = left()?;
    anyhow::ensure!(after.is_empty(), "left in TMPDIR: {after:?}");
    Ok(())
}
