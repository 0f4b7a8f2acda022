//! The database file: persistence across restarts, two server processes writing one file,
//! the new file's permissions, refusal of foreign, newer and non-SQLite files (left
//! byte-for-byte untouched), and the store's whole-database queries.

// Helpers outside #[test] functions may panic too: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::support::inproc::{Client, Era, REV_A, REV_B, TempDir, art, art_uri};
use review_mcp::store::{APPLICATION_ID, SCHEMA_VERSION, Store, StoreError};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn digest(path: &Path) -> Vec<u8> {
    Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

/// Opening `path` must fail, name the file, and leave it byte-for-byte as it was.
fn assert_refused_untouched(path: &Path, expect: &str) -> StoreError {
    let before = digest(path);
    let len = std::fs::metadata(path).unwrap().len();
    let err = match Store::open(path) {
        Ok(_) => panic!("{} was opened", path.display()),
        Err(e) => e,
    };
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains(expect), "{msg}");
    assert!(msg.contains("untouched"), "{msg}");
    assert_eq!(digest(path), before, "{} changed", path.display());
    assert_eq!(std::fs::metadata(path).unwrap().len(), len);
    for suffix in ["-wal", "-journal"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        assert!(!Path::new(&side).exists(), "{suffix} left behind");
    }
    err
}

#[test]
fn store_file_records_survive_restart() {
    let dir = TempDir::new("restart").unwrap();
    let db = dir.join("review.db");
    {
        let mut c = Client::new(Store::open(&db).unwrap(), Era::V2025_11_25);
        c.ok(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": ["face:1"], "name": "kept"}),
        );
        c.ok(
            "remember_decision",
            json!({"artifact": art(REV_A), "subject": "s",
            "disposition": "hold", "basis": [{"requirement": "r", "source": "standard",
            "state": "satisfied"}]}),
        );
    }
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    let recs = c.ok(
        "recall",
        json!({"artifact": art(REV_A), "entity_id": "face:1"}),
    );
    assert_eq!(recs["records"][0]["name"], "kept");
    let decs = c.ok(
        "recall_decisions",
        json!({"text": "hold", "detail": "full"}),
    );
    assert_eq!(decs["decisions"][0]["basis"][0]["source"], "standard");
}

#[test]
fn store_new_file_parents_created_owner_only() {
    let dir = TempDir::new("create").unwrap();
    let db = dir.join("a/b %41/c #?/review.db");
    let mut store = Store::open(&db).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&db).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    drop(store);
    // Reopening (and migrating again) is harmless.
    for _ in 0..2 {
        let mut s = Store::open(&db).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    }
}

#[test]
fn store_foreign_sqlite_file_refused_untouched() {
    let dir = TempDir::new("foreign").unwrap();
    // Characters that mean something in a URI must not confuse the read-only look.
    let db = dir.join("other %41 #1?.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE inventory (sku TEXT); INSERT INTO inventory VALUES ('x');",
        )
        .unwrap();
    }
    assert_refused_untouched(&db, "another application");
    let db2 = dir.join("other-app.db");
    {
        let conn = rusqlite::Connection::open(&db2).unwrap();
        conn.pragma_update(None, "application_id", 0x1234_5678)
            .unwrap();
    }
    assert_refused_untouched(&db2, "another application");
}

#[test]
fn store_newer_schema_version_refused_untouched() {
    let dir = TempDir::new("newer").unwrap();
    let db = dir.join("review.db");
    drop(Store::open(&db).unwrap());
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let app: i64 = conn
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .unwrap();
        assert_eq!(app, APPLICATION_ID);
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
    }
    let err = assert_refused_untouched(&db, "newer review-mcp");
    assert!(err.to_string().contains("Upgrade review-mcp"), "{err}");
}

#[test]
fn store_non_sqlite_files_refused_untouched() {
    let dir = TempDir::new("garbage").unwrap();
    let random = dir.join("random.db");
    let bytes: Vec<u8> = (0u32..8192)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&random, &bytes).unwrap();
    assert_refused_untouched(&random, "not a review-mcp database");

    let text = dir.join("notes.txt");
    std::fs::write(&text, "just some notes\n").unwrap();
    assert_refused_untouched(&text, "not a review-mcp database");

    // A real database cut short: first inside the header, then after page one.
    let good = dir.join("good.db");
    {
        let mut c = Client::new(Store::open(&good).unwrap(), Era::V2025_11_25);
        for i in 0..200 {
            c.ok("remember", json!({"artifact": art(REV_A), "entity_ids": [], "note": format!("n{i} {}", "x".repeat(200))}));
        }
    }
    let full = std::fs::read(&good).unwrap();
    assert!(full.len() > 8192);
    for (name, cut) in [("cut50.db", 50), ("cut4096.db", 4096)] {
        let p = dir.join(name);
        std::fs::write(&p, &full[..cut]).unwrap();
        assert_refused_untouched(&p, "not a review-mcp database");
    }
}

#[test]
fn store_cursor_from_one_server_works_on_another_sharing_the_file() {
    let dir = TempDir::new("cursor").unwrap();
    let db = dir.join("review.db");
    let mut a = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    for i in 0..5 {
        a.ok(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": [], "note": format!("n{i}")}),
        );
    }
    let first = a.ok("recall", json!({"limit": 3}));
    let cursor = first["next_cursor"].as_str().unwrap();
    let mut b = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    let rest = b.ok("recall", json!({"limit": 3, "cursor": cursor}));
    assert_eq!(rest["records"].as_array().unwrap().len(), 2);
    assert!(rest.get("next_cursor").is_none());
}

/// Runs the server binary on `db` with `lines` as input; returns its answers (the
/// notifications a session gets of changes are left out, as a host reads past them).
fn spawn_server(db: &Path, lines: Vec<String>) -> std::thread::JoinHandle<Vec<Value>> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .env("REVIEW_MCP_DB_PATH", db)
        .env("MCP_LOG_LEVEL", "error")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let writer = std::thread::spawn(move || {
        for l in lines {
            if writeln!(stdin, "{l}").is_err() {
                break;
            }
        }
    });
    std::thread::spawn(move || {
        let out: Vec<Value> = BufReader::new(stdout)
            .lines()
            .map(|l| serde_json::from_str::<Value>(&l.unwrap()).unwrap())
            .filter(|m| m.get("id").is_some())
            .collect();
        writer.join().unwrap();
        assert!(child.wait().unwrap().success());
        out
    })
}

fn call_line(id: usize, tool: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": args}})
    .to_string()
}

#[test]
fn store_two_server_processes_writing_one_file_lose_nothing() {
    let dir = TempDir::new("two-procs").unwrap();
    let db = dir.join("shared.db");
    // The file is new: both processes race to create and initialise it too.
    let per_process = 150;
    let handles: Vec<_> = ["p", "q"]
        .iter()
        .map(|who| {
            let mut lines = vec![
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": who, "version": "1"}}})
                .to_string(),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
            ];
            for i in 0..per_process {
                let args = if i % 3 == 0 {
                    json!({"artifact": art_uri(REV_A, "/w/p.step"), "entity_ids": ["face:1"],
                           "name": format!("shared {}", i % 10), "note": format!("{who}{i}")})
                } else {
                    json!({"artifact": art(REV_B), "entity_ids": ["face:2"],
                           "note": format!("{who} note {i}"), "tags": [*who]})
                };
                lines.push(call_line(i + 1, "remember", args));
            }
            lines.push(call_line(9999, "recall", json!({"limit": 1})));
            spawn_server(&db, lines)
        })
        .collect();
    let mut acknowledged_notes = 0;
    for h in handles {
        let out = h.join().unwrap();
        assert_eq!(out.len(), per_process + 2, "one answer per request");
        for msg in &out[1..] {
            assert!(msg.get("error").is_none(), "{msg}");
            assert_ne!(msg["result"]["isError"], json!(true), "{msg}");
            if msg["result"]["structuredContent"]["record"]["kind"] == "note" {
                acknowledged_notes += 1;
            }
        }
    }
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2025_11_25);
    let mut total = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"artifact": art(REV_B), "kind": "note", "limit": 200});
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let page = c.ok("recall", args);
        total += page["records"].as_array().unwrap().len();
        match page.get("next_cursor") {
            Some(v) => cursor = Some(v.as_str().unwrap().to_string()),
            None => break,
        }
    }
    assert_eq!(total, acknowledged_notes);
    assert_eq!(total, 2 * (per_process - per_process.div_ceil(3)));
    let shared = c.ok("recall", json!({"artifact": art_uri(REV_A, "/w/p.step")}));
    assert_eq!(shared["records"].as_array().unwrap().len(), 10);
    let mut store = Store::open(&db).unwrap();
    assert_eq!(store.check().unwrap(), Vec::<String>::new());
}

#[test]
fn store_export_import_round_trip_keeps_ids_and_timestamps() {
    let mut src = Store::open_in_memory().unwrap();
    let new = review_mcp::store::NewRecord {
        artifact: review_mcp::review::Artifact {
            revision: REV_A.into(),
            format: "step".into(),
            uri: Some("file:///w/a.step".into()),
            units: Some("mm".into()),
        },
        name: Some("datum".into()),
        note: Some("mating".into()),
        tags: vec!["t".into()],
        entity_ids: vec!["face:1".into(), "face:1".into()],
        id_scheme: "occt".into(),
    };
    let (rec, replaced) = src.remember(&new).unwrap();
    assert!(!replaced);
    assert_eq!(rec.entity_ids, vec!["face:1".to_string()]);
    let records = src.all_records().unwrap();
    let decisions = src.all_decisions().unwrap();
    let json = serde_json::to_string(&records).unwrap();
    let back: Vec<review_mcp::review::Record> = serde_json::from_str(&json).unwrap();

    let mut dst = Store::open_in_memory().unwrap();
    let summary = dst.import(&back, &decisions).unwrap();
    assert_eq!(
        (summary.added, summary.replaced, summary.unchanged),
        (1, 0, 0)
    );
    assert_eq!(dst.all_records().unwrap(), records);
    assert_eq!(dst.get_record(&rec.id).unwrap(), Some(rec.clone()));
    // Importing twice changes nothing instead of duplicating.
    let again = dst.import(&back, &decisions).unwrap();
    assert_eq!((again.added, again.replaced, again.unchanged), (0, 0, 1));
    assert_eq!(dst.all_records().unwrap().len(), 1);
    assert_eq!(dst.check().unwrap(), Vec::<String>::new());
    // The imported record is searchable and keyed as before.
    let mut c = Client::new(dst, Era::V2025_11_25);
    let hit = c.ok("recall", json!({"text": "mating"}));
    assert_eq!(hit["records"][0]["id"], rec.id.as_str());
    let again = c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, "/w/a.step"),
        "entity_ids": [], "name": "datum"}),
    );
    assert_eq!(again["replaced"], true);
    assert_eq!(again["record"]["created_at"], rec.created_at.as_str());
}

#[test]
fn store_import_after_another_handle_writes_judges_the_new_state() {
    // Two connections to one file, as `review-mcp import` and a server would be: the importer
    // opens first, the server writes the key now, then the importer offers an older line.
    let dir = TempDir::new("import-race").unwrap();
    let db = dir.join("r.db");
    let mut importer = Store::open(&db).unwrap();
    let mut server = Store::open(&db).unwrap();
    let new = review_mcp::store::NewRecord {
        artifact: review_mcp::review::Artifact {
            revision: REV_A.into(),
            format: "step".into(),
            uri: Some("file:///w/a.step".into()),
            units: None,
        },
        name: Some("datum".into()),
        note: Some("server".into()),
        tags: vec![],
        entity_ids: vec![],
        id_scheme: "opaque".into(),
    };
    let (held, _) = server.remember(&new).unwrap();
    let mut older = held.clone();
    older.id = "rec_file".into();
    older.note = Some("file".into());
    older.updated_at = "2000-01-01T00:00:00.000Z".into();
    older.created_at = older.updated_at.clone();
    let s = importer.import(std::slice::from_ref(&older), &[]).unwrap();
    assert_eq!((s.added, s.replaced, s.unchanged), (0, 0, 1));
    assert_eq!(server.all_records().unwrap(), vec![held.clone()]);
    // A line later than the server's write does replace it, keeping its own id.
    let mut newer = older;
    newer.updated_at = "2999-01-01T00:00:00.000Z".into();
    let s = importer.import(std::slice::from_ref(&newer), &[]).unwrap();
    assert_eq!((s.added, s.replaced, s.unchanged), (0, 1, 0));
    assert_eq!(server.all_records().unwrap(), vec![newer]);
}

#[test]
fn store_revision_queries_count_and_order_by_activity() {
    let mut s = Store::open_in_memory().unwrap();
    let art = |rev: &str| review_mcp::review::Artifact {
        revision: rev.into(),
        format: "step".into(),
        uri: None,
        units: None,
    };
    let note = |rev: &str, text: &str| review_mcp::store::NewRecord {
        artifact: art(rev),
        name: None,
        note: Some(text.into()),
        tags: vec![],
        entity_ids: vec![],
        id_scheme: "opaque".into(),
    };
    s.remember(&note(REV_A, "one")).unwrap();
    s.remember(&note(REV_B, "two")).unwrap();
    let (d, _, _) = s
        .remember_decision(&review_mcp::store::NewDecision {
            artifact: art(REV_A),
            subject: "s".into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![],
        })
        .unwrap();
    let revs = s.revisions().unwrap();
    assert_eq!(revs.len(), 2);
    assert_eq!(revs[0].revision, REV_A);
    assert_eq!((revs[0].records, revs[0].decisions), (1, 1));
    assert_eq!((revs[1].records, revs[1].decisions), (1, 0));
    assert!(!revs[0].last_activity.is_empty());
    let (records, decisions) = s.revision_contents(REV_B).unwrap();
    assert_eq!(records.len(), 1);
    assert!(decisions.is_empty());
    assert_eq!(s.get_decision(&d.id).unwrap(), Some(d));
    assert_eq!(s.get_decision("dec_missing").unwrap(), None);
    assert_eq!(s.get_record("rec_missing").unwrap(), None);
}

#[test]
fn store_acknowledged_writes_survive_the_process_being_killed() {
    let dir = TempDir::new("kill").unwrap();
    let db = dir.join("review.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .env("REVIEW_MCP_DB_PATH", &db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "k", "version": "1"}}});
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let mut ids = Vec::new();
    for i in 1..=20 {
        let args = json!({"artifact": art(REV_A), "entity_ids": [], "note": format!("kept {i}")});
        writeln!(stdin, "{}", call_line(i, "remember", args)).unwrap();
        // The answer, past the notification of the previous write.
        let answer: Value = loop {
            line.clear();
            stdout.read_line(&mut line).unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v.get("id").is_some() {
                break v;
            }
        };
        ids.push(answer["result"]["structuredContent"]["record"]["id"].clone());
    }
    // SIGKILL right after the last answer: no clean shutdown, no final checkpoint.
    child.kill().unwrap();
    child.wait().unwrap();
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2025_11_25);
    let back = c.ok("recall", json!({"limit": 50}));
    let mut got: Vec<Value> = back["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    got.reverse();
    assert_eq!(got, ids);
}

fn side_file(db: &Path, suffix: &str) -> std::path::PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(suffix);
    s.into()
}

/// The user_version and application_id in the main file's header (offsets 60 and 68).
fn header_numbers(db: &Path) -> (i64, i64) {
    let bytes = std::fs::read(db).unwrap();
    let at = |i: usize| i64::from(i32::from_be_bytes(bytes[i..i + 4].try_into().unwrap()));
    (at(60), at(68))
}

#[test]
fn store_server_that_wrote_and_exited_leaves_everything_readable() {
    let dir = TempDir::new("exit-wal").unwrap();
    let db = dir.join("review.db");
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ];
    for i in 0..20 {
        lines.push(call_line(
            i + 1,
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": [format!("face:{i}")],
                   "name": format!("kept {i}")}),
        ));
    }
    let out = spawn_server(&db, lines).join().unwrap();
    assert_eq!(out.len(), 21);
    // The last server to exit folds its WAL into the main file, so `review.db` alone is a
    // complete backup: a copy of just that file holds every acknowledged write.
    assert!(!side_file(&db, "-wal").exists(), "the WAL was left behind");
    let copy = dir.join("copy.db");
    std::fs::copy(&db, &copy).unwrap();
    let mut c = Client::new(Store::open(&copy).unwrap(), Era::V2025_11_25);
    let got = c.ok("recall", json!({"artifact": art(REV_A), "limit": 200}));
    assert_eq!(got["records"].as_array().unwrap().len(), 20);
    let check = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .args(["check"])
        .env("REVIEW_MCP_DB_PATH", &db)
        .output()
        .unwrap();
    assert!(check.status.success(), "{check:?}");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(said.contains("20 records"), "{said}");
    let export = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .args(["export"])
        .env("REVIEW_MCP_DB_PATH", &db)
        .output()
        .unwrap();
    assert!(export.status.success(), "{export:?}");
    assert_eq!(String::from_utf8_lossy(&export.stdout).lines().count(), 20);
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    let got = c.ok(
        "recall",
        json!({"artifact": art(REV_A), "entity_id": "face:19"}),
    );
    assert_eq!(got["records"][0]["name"], "kept 19");
}

#[test]
fn store_new_file_header_says_ours_after_the_first_open() {
    let dir = TempDir::new("header").unwrap();
    let db = dir.join("review.db");
    drop(Store::open(&db).unwrap());
    // The migration is copied into the main file at once, so later starts can recognise
    // the file from its header.
    assert_eq!(header_numbers(&db), (SCHEMA_VERSION, APPLICATION_ID));
    for _ in 0..2 {
        let mut s = Store::open(&db).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    }
}

/// A change committed only to the WAL, by a connection that does not checkpoint on close,
/// leaving the main file's header as it was.
fn commit_to_wal_only(db: &Path, sql: &str) {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )
    .unwrap();
    conn.execute_batch(sql).unwrap();
}

#[test]
fn store_stale_header_saying_ours_does_not_hide_a_newer_or_foreign_wal() {
    let dir = TempDir::new("stale-header").unwrap();
    for (name, sql, expect) in [
        (
            "newer.db",
            format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1),
            "newer review-mcp",
        ),
        (
            "foreign.db",
            "PRAGMA application_id = 305419896".to_string(),
            "another application",
        ),
    ] {
        let db = dir.join(name);
        // A file as 0.1 left it, in WAL mode.
        drop(Store::open_with(&db, review_mcp::store::Journal::Wal).unwrap());
        commit_to_wal_only(&db, &sql);
        // The header still says "ours, current version": only the WAL knows better.
        assert_eq!(header_numbers(&db), (SCHEMA_VERSION, APPLICATION_ID));
        let before = digest(&db);
        let err = match Store::open(&db) {
            Ok(_) => panic!("{name} was opened"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(expect), "{err}");
        assert!(err.contains("untouched"), "{err}");
        assert_eq!(digest(&db), before, "{name} changed");
    }
}

#[test]
fn store_many_short_lived_writers_keep_the_journal_bounded() {
    let dir = TempDir::new("wal-bound").unwrap();
    let db = dir.join("review.db");
    // Each open writes and closes (with no checkpoint after each write, as a server does:
    // only the checkpoint at close); the log must not grow (about 2,000 pages are written
    // in all).
    for p in 0..80 {
        let mut c = Client::new(Store::open(&db).unwrap(), Era::V2025_11_25);
        for i in 0..4 {
            c.ok(
                "remember",
                json!({"artifact": art(REV_A), "entity_ids": [format!("face:{p}")],
                       "name": format!("n{p}-{i}"), "note": "x".repeat(300), "tags": ["t"]}),
            );
        }
    }
    // The last close checkpointed and removed the log; nothing else journals.
    assert!(!side_file(&db, "-wal").exists(), "the WAL was left");
    assert!(
        !side_file(&db, "-journal").exists(),
        "a rollback journal was written"
    );
    let mut store = Store::open(&db).unwrap();
    assert_eq!(store.check().unwrap(), Vec::<String>::new());
    let mut c = Client::new(store, Era::V2025_11_25);
    let last = c.ok(
        "recall",
        json!({"artifact": art(REV_A), "entity_id": "face:79"}),
    );
    assert_eq!(last["records"].as_array().unwrap().len(), 4);
}
