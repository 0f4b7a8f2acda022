//! The database file under what people do to files, through the real binary: replaced,
//! deleted, companions deleted, hard-linked, named like a URI, a FIFO or a device, stopped by
//! a signal, copied while servers write, locked by another process, never needed by the
//! handshake, read-only, and exported onto itself. The long versions of the file events run
//! in the stress command.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::client::{self, Answer, Server};
use crate::support::file_events::{self, check_ok, exported_names, run_cli, succeeded};
use crate::support::{TempDir, artifact, sha256_file, side};

fn art() -> Value {
    artifact("database-file", "/database-file/part.step")
}

fn remember(server: &mut Server, name: &str) -> anyhow::Result<Answer> {
    server.call(
        "remember",
        json!({"artifact": art(), "entity_ids": [], "name": name, "note": "n"}),
    )
}

fn stderr_of(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Makes the database `db` as a server leaves it: one record, "kept", written, then the
/// server stopped.
fn kept_by_a_server(db: &std::path::Path) -> anyhow::Result<()> {
    let mut server = Server::start(db)?;
    assert!(remember(&mut server, "kept")?.is_ok());
    server.close()?;
    Ok(())
}

/// A server on `db` that answered `writes` remembers (`before-0`, …) and then a recall,
/// answered once the last write's checkpoint is done: the file holds every write.
fn server_after_writes(db: &Path, writes: usize) -> anyhow::Result<Server> {
    let mut server = Server::start(db)?;
    for i in 0..writes {
        assert!(remember(&mut server, &format!("before-{i}"))?.is_ok());
    }
    assert!(server.call("recall", json!({"artifact": art()}))?.is_ok());
    Ok(server)
}

/// `args`' run failed (exit status 1) with a message `says` accepts.
fn assert_failed_saying(args: &[&str], out: &std::process::Output, says: impl Fn(&str) -> bool) {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(says(&err), "{args:?}: {err}");
}

#[test]
fn replaced_file_refuses_writes_and_leaves_the_restored_file_intact() -> anyhow::Result<()> {
    assert_eq!(file_events::replaced_while_serving(3, 4)?, 4);
    Ok(())
}

#[test]
fn deleted_file_refuses_writes_instead_of_acknowledging_them() -> anyhow::Result<()> {
    assert_eq!(file_events::deleted_while_serving(20)?, 20);
    Ok(())
}

#[test]
fn deleted_companion_files_lose_no_acknowledged_write() -> anyhow::Result<()> {
    assert_eq!(file_events::companions_deleted_while_serving(4, 5)?, 21);
    Ok(())
}

#[test]
fn hard_linked_file_is_refused_at_start_and_while_serving() -> anyhow::Result<()> {
    let message = file_events::hard_link()?;
    assert!(message.contains("hard links"), "{message}");
    Ok(())
}

#[test]
fn signal_after_an_answer_leaves_review_db_complete() -> anyhow::Result<()> {
    for signal in ["TERM", "INT", "HUP", "KILL"] {
        assert_eq!(file_events::stopped_by_signal(signal, 5)?, 5);
    }
    Ok(())
}

/// A path beginning with `file:` is a file of that name, never an SQLite URI: no write goes
/// to memory, and no other file is touched.
#[test]
fn file_colon_path_is_a_file_of_that_name() -> anyhow::Result<()> {
    let dir = TempDir::new("file-colon")?;
    // An application's database that `file:<abs path>` would name as a URI.
    let other = dir.join("other.db");
    {
        let conn = rusqlite::Connection::open(&other)?;
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")?;
    }
    let other_hash = sha256_file(&other)?;
    for name in [
        "file:review.db?mode=memory".to_string(),
        format!("file:{}", other.display()),
    ] {
        let mut cmd = client::command(Path::new(&name));
        cmd.current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn()?;
        let mut stdin = child.stdin.take().ok_or_else(|| anyhow::anyhow!("stdin"))?;
        let mut stdout = BufReader::new(child.stdout.take().ok_or_else(|| anyhow::anyhow!("o"))?);
        for line in client::handshake_lines() {
            writeln!(stdin, "{line}")?;
        }
        let call = client::tool_call_line(
            1,
            "remember",
            &json!({"artifact": art(), "entity_ids": [], "name": "kept", "note": "n"}),
        );
        writeln!(stdin, "{call}")?;
        stdin.flush()?;
        let mut line = String::new();
        stdout.read_line(&mut line)?; // initialize
        line.clear();
        stdout.read_line(&mut line)?;
        let answer = Answer::from_response(&serde_json::from_str(&line)?);
        assert!(answer.is_ok(), "{name}: {answer:?}");
        // The log and its index are files beside it, named after it, while the server runs.
        let file = dir.path().join(&name);
        for suffix in ["-wal", "-shm"] {
            assert!(
                side(&file, suffix).is_file(),
                "{name}{suffix} is not beside it"
            );
        }
        drop(stdin);
        assert!(child.wait()?.success());
        for suffix in ["-wal", "-shm"] {
            assert!(!side(&file, suffix).exists(), "{name}{suffix} was left");
        }
        assert!(
            file.is_file(),
            "{name} is not a file in the working directory"
        );
        assert_eq!(exported_names(&file)?, vec!["kept".to_string()], "{name}");
    }
    assert_eq!(
        sha256_file(&other)?,
        other_hash,
        "another file was modified"
    );
    Ok(())
}

/// A FIFO or a device as the database: refused with a message, nothing created beside it,
/// and nothing said about a schema upgrade.
#[test]
fn fifo_or_device_path_is_refused_and_nothing_is_created() -> anyhow::Result<()> {
    let dir = TempDir::new("fifo")?;
    let fifo = dir.join("review.db");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status()?;
    assert!(made.success());
    for (path, kind) in [(fifo.as_path(), "FIFO"), (Path::new("/dev/null"), "device")] {
        let out = client::command(path)
            .env("MCP_LOG_LEVEL", "info")
            .stdin(Stdio::null())
            .output()?;
        let err = stderr_of(&out);
        assert!(!out.status.success(), "{}: started", path.display());
        assert!(err.contains(kind), "{err}");
        assert!(!err.contains("upgraded"), "{err}");
        for suffix in ["-journal", "-wal", "-shm"] {
            assert!(!side(path, suffix).exists(), "{suffix} created");
        }
        // The read-only commands refuse it too.
        let out = run_cli(path, &["check"])?;
        assert!(!out.status.success() && stderr_of(&out).contains(kind));
    }
    let names: Vec<_> = std::fs::read_dir(dir.path())?.collect();
    assert_eq!(names.len(), 1, "files were created beside the FIFO");
    Ok(())
}

/// `cmd`'s output, or `None` when it had not ended after 10 s (then it is killed).
fn output_within_10s(
    mut cmd: std::process::Command,
) -> anyhow::Result<Option<std::process::Output>> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait()?.is_none() {
        if Instant::now() > deadline {
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Some(child.wait_with_output()?))
}

/// A FIFO, a directory or a symbolic link where the `-wal`, `-shm` or `-journal` goes
/// (planted, or left by a tool): the server hung at start on a FIFO `-wal` or `-journal`,
/// before anything was answered, and so did `check` and `export` on the `-wal`; the others
/// were refused at each call as "cannot open review.db for reading and writing … check that
/// the file and its directory are writable" or "the database file is read-only", which name
/// the wrong file. Each is now refused at once, naming the companion and what it is, and the
/// database and the planted file are left as they were.
#[test]
fn a_companion_that_is_not_a_file_is_refused_naming_it() -> anyhow::Result<()> {
    let dir = TempDir::new("companion-not-a-file")?;
    let db = dir.join("review.db");
    kept_by_a_server(&db)?;
    let digest = sha256_file(&db)?;
    std::fs::write(dir.join("target"), b"precious")?;
    for suffix in ["-wal", "-shm", "-journal"] {
        let planted = side(&db, suffix);
        let plant: [(&str, &dyn Fn() -> std::io::Result<()>); 3] = [
            ("FIFO", &|| {
                std::process::Command::new("mkfifo")
                    .arg(&planted)
                    .status()
                    .map(|_| ())
            }),
            ("directory", &|| std::fs::create_dir(&planted)),
            ("symbolic link", &|| {
                std::os::unix::fs::symlink(dir.join("target"), &planted)
            }),
        ];
        for (kind, make) in plant {
            make()?;
            assert!(
                std::fs::symlink_metadata(&planted).is_ok(),
                "{kind} not made"
            );
            let mut server = client::command(&db);
            server.env("MCP_LOG_LEVEL", "warn");
            for (what, cmd) in [
                ("serve", server),
                ("check", cli_command(&db, &["check"])),
                ("export", cli_command(&db, &["export"])),
            ] {
                let out = output_within_10s(cmd)?
                    .ok_or_else(|| anyhow::anyhow!("{what} hung on a {kind} as the {suffix}"))?;
                let err = stderr_of(&out);
                assert!(
                    !out.status.success(),
                    "{what} ran beside a {kind} {suffix}: {err}"
                );
                assert!(
                    err.contains(&format!("review.db{suffix}")) && err.contains(kind),
                    "{what}, {kind} {suffix}: {err}"
                );
            }
            if std::fs::symlink_metadata(&planted)?.is_dir() {
                std::fs::remove_dir(&planted)?;
            } else {
                std::fs::remove_file(&planted)?;
            }
            assert_eq!(
                sha256_file(&db)?,
                digest,
                "{kind} {suffix}: the database changed"
            );
        }
    }
    assert_eq!(std::fs::read(dir.join("target"))?, b"precious");
    assert_eq!(exported_names(&db)?, ["kept"]);
    Ok(())
}

/// The command `run_cli` runs, not yet run.
fn cli_command(db: &Path, args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(client::binary());
    cmd.arg("--db")
        .arg(db)
        .args(args)
        .env("MCP_LOG_LEVEL", "warn")
        .current_dir(std::env::temp_dir());
    cmd
}

/// Regression: a database that cannot be created (the host started the server in a
/// directory it cannot write, so the default `./review-mcp.db` fails) was refused with
/// "Storage error, nothing was written: cannot open /review-mcp.db: Permission denied (os
/// error 13)", and a path under a plain file with "cannot open …: Not a directory", neither
/// saying what to do. Both now say to point `REVIEW_MCP_DB_PATH` or `--db` at a file in a
/// directory this user can write. (`/proc` refuses a new directory even to root, as a
/// read-only directory refuses it to a user.)
#[test]
fn a_database_that_cannot_be_created_says_where_to_point_the_path() -> anyhow::Result<()> {
    let fix = "Point REVIEW_MCP_DB_PATH or --db at a file in a directory this user can write";
    let dir = TempDir::new("uncreatable")?;
    // Found at the first write.
    let db = Path::new("/proc/review-mcp-uncreatable/review.db");
    let mut server = Server::start_logging_to(db, &dir.join("stderr"))?;
    let answer = remember(&mut server, "mating surface")?;
    let Answer::ToolError(text) = answer else {
        anyhow::bail!("the write was not refused: {answer:?}");
    };
    assert!(text.contains("nothing was written"), "{text}");
    assert!(text.contains("cannot create the database"), "{text}");
    assert!(text.contains(fix), "{text}");
    assert!(server.close()?.success());
    // Found at start.
    std::fs::write(dir.join("plain-file"), "not a directory")?;
    let db = dir.join("plain-file/sub/review.db");
    let out = client::command(&db).stdin(Stdio::null()).output()?;
    let err = stderr_of(&out);
    assert!(!out.status.success(), "started: {err}");
    assert!(err.contains(fix), "{err}");
    Ok(())
}

/// Regression (docstruth): a server started on an empty file (`touch review.db`, a file a
/// server was stopped right after creating) made it a database at its first answer, with no
/// request that writes: a host's probe, a list or a read wrote the schema into it. It is
/// treated as the missing file is: reads find nothing and write nothing, and the first write
/// makes it the database.
#[test]
fn an_empty_file_is_written_by_the_first_write_only() -> anyhow::Result<()> {
    let dir = TempDir::new("empty-served")?;
    let db = dir.join("review.db");
    std::fs::write(&db, b"")?;
    let mut server = Server::start_logging_to(&db, &dir.join("stderr"))?;
    for method in ["ping", "tools/list", "resources/list"] {
        let r = server.request(method, json!({}))?;
        assert!(r.get("result").is_some(), "{method}: {r}");
    }
    let recalled = server.call("recall", json!({"artifact": art()}))?.ok()?;
    assert_eq!(recalled["records"], json!([]), "{recalled}");
    assert_eq!(std::fs::metadata(&db)?.len(), 0, "a read wrote the file");
    assert!(remember(&mut server, "first")?.is_ok());
    let recalled = server.call("recall", json!({"artifact": art()}))?.ok()?;
    assert_eq!(recalled["records"].as_array().map(Vec::len), Some(1));
    assert!(server.close()?.success());
    assert_eq!(exported_names(&db)?.len(), 1);
    Ok(())
}

/// `initialize`, `server/discover`, `ping` and every list answer without the database: a
/// process that only answers them creates and writes nothing.
#[test]
fn handshake_and_lists_create_no_file() -> anyhow::Result<()> {
    let dir = TempDir::new("no-db")?;
    let db = dir.join("sub/review.db");
    let modern_meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let mut server = Server::start_logging_to(&db, &dir.join("stderr"))?;
    for method in [
        "ping",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    ] {
        let r = server.request(method, json!({}))?;
        assert!(r.get("result").is_some(), "{method}: {r}");
    }
    let r = server.request("server/discover", json!({"_meta": modern_meta}))?;
    assert!(r.get("result").is_some(), "{r}");
    let r = server.request("resources/list", json!({"_meta": modern_meta}))?;
    assert_eq!(r["result"]["resources"], json!([]), "{r}");
    assert!(server.close()?.success());
    assert!(!dir.join("sub").exists(), "the handshake created files");
    Ok(())
}

/// Another process holds the file locked (SQLite's exclusive locking mode): the handshake is
/// answered at once, and the first tool call says the database is locked within the busy
/// timeout instead of waiting silently.
#[test]
fn locked_database_answers_the_handshake_and_reports_the_lock() -> anyhow::Result<()> {
    let dir = TempDir::new("locked")?;
    let db = dir.join("review.db");
    {
        let mut server = Server::start(&db)?;
        assert!(remember(&mut server, "before")?.is_ok());
        server.close()?;
    }
    let holder = rusqlite::Connection::open(&db)?;
    holder.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
    holder.execute_batch("BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS hold (x); COMMIT;")?;
    let started = Instant::now();
    let mut server = Server::start(&db)?;
    let handshake = started.elapsed();
    assert!(
        handshake < Duration::from_secs(3),
        "handshake took {handshake:?}"
    );
    // Regression: the handshake's look at the change counter (which does not wait for a
    // lock) was logged as a warning that the file "stayed locked by another process for more
    // than 5000 ms", milliseconds after the server started: a wait that never happened, and
    // nothing wrong (the next look tries again).
    let log = server.stderr();
    assert!(
        !log.contains("5000 ms") && !log.contains("\"level\":\"warn\""),
        "the handshake's look at a locked file was logged as a long wait: {log}"
    );
    let started = Instant::now();
    let answer = remember(&mut server, "during")?;
    let waited = started.elapsed();
    match answer {
        Answer::ToolError(text) => assert!(
            text.contains(&db.display().to_string())
                && text.contains("locked by another process")
                && text.contains("sqlite3"),
            "names the file and what holds such a lock: {text}"
        ),
        other => panic!("a write on a locked file was answered {other:?}"),
    }
    // The documented busy timeout is 5 s; the answer comes soon after it.
    assert!(waited < Duration::from_secs(12), "waited {waited:?}");
    drop(holder);
    assert!(remember(&mut server, "after")?.is_ok());
    server.close()?;
    Ok(())
}

/// A file 0.1 left in WAL mode, with the `-wal` a 0.1 server stopped by a signal left beside
/// it (its writes not yet in the main file), opens: the next open of anything (here
/// `export` on one copy, a server on another) applies the log first and keeps every record.
#[test]
fn wal_file_from_0_1_with_its_log_left_opens_and_keeps_its_records() -> anyhow::Result<()> {
    let dir = TempDir::new("wal-0-1")?;
    let db = dir.join("review.db");
    let mut store = review_mcp::store::Store::open_with(&db, review_mcp::store::Journal::Wal)?;
    let mut c = harness_store_write(&mut store)?;
    c.sort();
    // The writes are in the log only (nothing checkpointed them): copy both files as a
    // kill would have left them.
    let wal_len = std::fs::metadata(side(&db, "-wal"))?.len();
    assert!(wal_len > 0, "the writes are not in the log");
    for copy in ["export.db", "serve.db"] {
        std::fs::copy(&db, dir.join(copy))?;
        std::fs::copy(side(&db, "-wal"), side(&dir.join(copy), "-wal"))?;
    }
    drop(store);
    let exported = dir.join("export.db");
    assert_eq!(exported_names(&exported)?, c);
    assert!(
        !side(&exported, "-wal").exists(),
        "export left the log beside the file"
    );
    // The main file alone now holds them.
    let alone = dir.join("alone.db");
    std::fs::copy(&exported, &alone)?;
    assert_eq!(exported_names(&alone)?, c);

    let served = dir.join("serve.db");
    let mut server = Server::start(&served)?;
    assert!(remember(&mut server, "added")?.is_ok());
    server.close()?;
    assert!(!side(&served, "-wal").exists(), "the WAL is still there");
    c.push("added".into());
    c.sort();
    assert_eq!(exported_names(&served)?, c);
    Ok(())
}

/// A file of the previous version (the rollback journal, `journal_mode=PERSIST`, its inert
/// journal beside it) is switched to WAL by the first server and keeps its records; its
/// `-journal` goes. While another process holds a read transaction on it in rollback mode
/// the switch waits, and the call says why within the busy timeout.
#[test]
fn rollback_file_of_the_last_version_is_switched_to_wal() -> anyhow::Result<()> {
    let dir = TempDir::new("rollback-last")?;
    let db = dir.join("review.db");
    let mut store = review_mcp::store::Store::open_with(&db, review_mcp::store::Journal::Persist)?;
    let mut c = harness_store_write(&mut store)?;
    c.sort();
    drop(store);
    assert!(side(&db, "-journal").exists(), "no persistent journal");
    let header = std::fs::read(&db)?;
    assert_eq!(
        header.get(18..20),
        Some(&[1u8, 1][..]),
        "not in rollback mode"
    );
    let reader = rusqlite::Connection::open(&db)?;
    reader.execute_batch("BEGIN")?;
    reader.query_row("SELECT count(*) FROM records", [], |r| r.get::<_, i64>(0))?;
    let mut server = Server::start(&db)?;
    let started = Instant::now();
    match remember(&mut server, "blocked")? {
        Answer::ToolError(text) => {
            assert!(text.contains("switched to the write-ahead log"), "{text}")
        }
        other => panic!("switched while another process read: {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(12));
    reader.execute_batch("COMMIT")?;
    drop(reader);
    assert!(remember(&mut server, "added")?.is_ok());
    let header = std::fs::read(&db)?;
    assert_eq!(header.get(18..20), Some(&[2u8, 2][..]), "not in WAL mode");
    assert!(!side(&db, "-journal").exists(), "the old journal is left");
    server.close()?;
    c.push("added".into());
    c.sort();
    assert_eq!(exported_names(&db)?, c);
    Ok(())
}

/// Two features written through the library, as a 0.1 server would have.
fn harness_store_write(store: &mut review_mcp::store::Store) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for name in ["old-a", "old-b"] {
        let rec = review_mcp::store::NewRecord {
            artifact: serde_json::from_value(json!({
                "revision": art()["revision"], "format": "step", "uri": "file:///database-file/part.step"
            }))?,
            name: Some(name.into()),
            note: Some("n".into()),
            tags: vec![],
            entity_ids: vec![],
            id_scheme: "opaque".into(),
        };
        store.remember(&rec)?;
        names.push(name.to_string());
    }
    Ok(names)
}

/// `backup` while two servers write: the copy opens, passes `check`, and holds every write
/// answered before the backup started.
#[test]
fn backup_while_servers_write_is_complete_and_consistent() -> anyhow::Result<()> {
    let dir = TempDir::new("backup")?;
    let db = dir.join("review.db");
    let mut first = Server::start(&db)?;
    for i in 0..20 {
        assert!(remember(&mut first, &format!("early-{i}"))?.is_ok());
    }
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || -> anyhow::Result<usize> {
                let mut s = Server::start(&db)?;
                for i in 0..60 {
                    let a = remember(&mut s, &format!("w{w}-{i}"))?;
                    anyhow::ensure!(a.is_ok(), "{a:?}");
                }
                s.close()?;
                Ok(60)
            })
        })
        .collect();
    let copy = dir.join("copy.db");
    let out = run_cli(&db, &["backup", copy.to_str().unwrap_or_default()])?;
    assert!(out.status.success(), "{}", stderr_of(&out));
    for w in writers {
        assert_eq!(
            w.join().map_err(|_| anyhow::anyhow!("writer panicked"))??,
            60
        );
    }
    first.close()?;
    check_ok(&copy)?;
    let names = exported_names(&copy)?;
    for i in 0..20 {
        assert!(names.contains(&format!("early-{i}")), "early-{i} missing");
    }
    // A self-contained file: nothing beside it is needed.
    assert!(!side(&copy, "-wal").exists() && !side(&copy, "-journal").exists());
    // backup never overwrites.
    let again = run_cli(&db, &["backup", copy.to_str().unwrap_or_default()])?;
    assert!(!again.status.success() && stderr_of(&again).contains("exists"));
    Ok(())
}

/// `export -o` or `backup` onto the database or one of its companion files is refused, and
/// the database is unchanged.
#[test]
fn export_onto_the_database_is_refused() -> anyhow::Result<()> {
    let dir = TempDir::new("export-self")?;
    let db = dir.join("review.db");
    kept_by_a_server(&db)?;
    let before = sha256_file(&db)?;
    let dotted = dir.path().join(".").join("review.db");
    for target in [
        db.clone(),
        dotted,
        side(&db, "-journal"),
        side(&db, "-wal"),
        side(&db, "-shm"),
    ] {
        let t = target.to_str().unwrap_or_default();
        let out = run_cli(&db, &["export", "-o", t])?;
        assert!(!out.status.success(), "export -o {t} ran");
        assert!(
            stderr_of(&out).contains("is the database"),
            "{}",
            stderr_of(&out)
        );
        let out = run_cli(&db, &["backup", t])?;
        assert!(!out.status.success(), "backup {t} ran");
    }
    assert_eq!(sha256_file(&db)?, before);
    assert_eq!(exported_names(&db)?, vec!["kept".to_string()]);
    Ok(())
}

/// The persistent journal is truncated back to its limit after a large write, so it does not
/// stay the size of the largest transaction.
#[test]
fn journal_shrinks_back_after_a_large_import() -> anyhow::Result<()> {
    let dir = TempDir::new("journal-size")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    assert!(remember(&mut server, "first")?.is_ok());
    server.close()?;
    // An import of ~12 MB of notes in one transaction.
    let export = dir.join("big.jsonl");
    let mut lines = String::new();
    let rev = art()["revision"].as_str().unwrap_or_default().to_string();
    for i in 0..200 {
        let rec = json!({"record": {
            "id": format!("rec_{:016x}", i + 1), "kind": "note", "note": "x".repeat(60_000),
            "tags": [], "entity_ids": [], "id_scheme": "opaque",
            "artifact": {"revision": rev, "format": "step"},
            "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}});
        lines.push_str(&rec.to_string());
        lines.push('\n');
    }
    std::fs::write(&export, lines)?;
    let out = run_cli(&db, &["import", export.to_str().unwrap_or_default()])?;
    assert!(out.status.success(), "{}", stderr_of(&out));
    let mut server = Server::start(&db)?;
    assert!(remember(&mut server, "second")?.is_ok());
    server.close()?;
    let journal = std::fs::metadata(side(&db, "-journal")).map_or(0, |m| m.len());
    assert!(journal <= 4 * 1024 * 1024, "journal is {journal} bytes");
    assert!(!side(&db, "-wal").exists());
    check_ok(&db)?;
    Ok(())
}

/// `export`, `check` and `backup` only read: they work on a file and directory made
/// immutable (`chattr +i`, which stops root too); `serve` refuses such a file at start.
#[test]
#[ignore = "needs root (mounts a tmpfs, chattr +i); .ci/run runs it with --ignored as root"]
fn read_only_file_can_be_exported_checked_and_backed_up() -> anyhow::Result<()> {
    let dir = TempDir::new("ro-commands")?;
    let data = dir.join("data");
    std::fs::create_dir(&data)?;
    let db = data.join("review.db");
    kept_by_a_server(&db)?;
    let before = sha256_file(&db)?;
    let paths = [db.clone(), data.clone()];
    let chattr = |flag: &str| {
        std::process::Command::new("chattr")
            .arg(flag)
            .args(&paths)
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    if !chattr("+i") {
        chattr("-i");
        anyhow::bail!("could not run: chattr +i failed (needs root on a file system with it)");
    }
    let copy = dir.join("copy.db");
    let results = (
        exported_names(&db),
        check_ok(&db),
        run_cli(&db, &["backup", copy.to_str().unwrap_or_default()]),
        run_cli(&db, &[]),
    );
    chattr("-i");
    assert_eq!(results.0?, vec!["kept".to_string()]);
    results.1?;
    let backup = results.2?;
    assert!(backup.status.success(), "{}", stderr_of(&backup));
    let serve = results.3?;
    assert!(!serve.status.success());
    assert!(
        stderr_of(&serve).contains("writable"),
        "{}",
        stderr_of(&serve)
    );
    assert_eq!(exported_names(&copy)?, vec!["kept".to_string()]);
    assert_eq!(sha256_file(&db)?, before);
    Ok(())
}

/// `export` and `check` of a file of an older schema version read an upgraded private copy
/// and leave the file itself untouched.
#[test]
fn read_only_commands_do_not_upgrade_an_older_file() -> anyhow::Result<()> {
    let dir = TempDir::new("ro-old")?;
    let db = dir.join("review.db");
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.execute_batch(OLD_V1)?;
    }
    let before = sha256_file(&db)?;
    check_ok(&db)?;
    assert_eq!(exported_names(&db)?, vec!["v1 feature".to_string()]);
    assert_eq!(
        sha256_file(&db)?,
        before,
        "a read-only command upgraded the file"
    );
    Ok(())
}

/// `backup` of a file of an older schema version is a copy of the file as it is, at its own
/// version, which the build that wrote it still opens; this build reads it as it reads the
/// file (the first server to open the copy upgrades it). Found by giving real older builds
/// (schema versions 7, 12 and 17) the backup this build took of their databases: each refused
/// it as written by a newer review-mcp, though the database it copied was still theirs, so a
/// user who took a backup with the new build before going back a version had none that the
/// old build could open.
#[test]
fn backup_of_an_older_file_is_of_that_version() -> anyhow::Result<()> {
    let dir = TempDir::new("backup-old")?;
    let db = dir.join("review.db");
    rusqlite::Connection::open(&db)?.execute_batch(OLD_V1)?;
    let before = sha256_file(&db)?;
    let copy = dir.join("copy.db");
    let copy_arg = copy.to_string_lossy().into_owned();
    let o = run_cli(&db, &["backup", &copy_arg])?;
    anyhow::ensure!(o.status.success(), "{}", stderr_of(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    anyhow::ensure!(
        said.contains("1 record, 0 decisions, integrity ok"),
        "{said}"
    );
    let version = |p: &Path| -> anyhow::Result<i64> {
        let c =
            rusqlite::Connection::open_with_flags(p, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        Ok(c.pragma_query_value(None, "user_version", |r| r.get(0))?)
    };
    assert_eq!(version(&copy)?, 1, "the copy is not of the file's version");
    assert_eq!(version(&db)?, 1);
    assert_eq!(
        sha256_file(&db)?,
        before,
        "backup changed the file it copied"
    );
    assert_eq!(exported_names(&copy)?, vec!["v1 feature".to_string()]);
    check_ok(&copy)?;
    Ok(())
}

/// `form3` of a revision with no decision, in a file of an older schema (read through an
/// upgraded private copy), names the file itself in its message, never the private copy,
/// which is gone once the command ends.
#[test]
fn form3_with_nothing_decided_names_the_older_file_not_its_private_copy() -> anyhow::Result<()> {
    let dir = TempDir::new("ro-old-form3")?;
    let db = dir.join("review.db");
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.execute_batch(OLD_V1)?;
    }
    let rev = format!("sha256:{}", "9".repeat(64));
    let o = run_cli(&db, &["form3", &rev])?;
    let err = String::from_utf8_lossy(&o.stderr);
    anyhow::ensure!(o.status.code() == Some(1), "{err}");
    anyhow::ensure!(
        err.contains(&format!(
            "no decision is recorded at {rev} in {}:",
            db.display()
        )),
        "{err}"
    );
    Ok(())
}

/// A schema-version-1 file with one feature, as review-mcp 0.1.0 wrote before schema 2.
const OLD_V1: &str = include_str!("../fixtures/schema_v1.sql");

/// The state a server killed in the middle of a commit leaves: the main file half-written and a
/// hot journal beside it, made by copying both files while a transaction that spilled pages
/// to the main file is still open. Returns the copy's path.
fn crash_state(db: &Path, into: &Path) -> anyhow::Result<std::path::PathBuf> {
    let conn = rusqlite::Connection::open(db)?;
    conn.pragma_update(None, "journal_mode", "PERSIST")?;
    conn.pragma_update(None, "cache_size", 2)?;
    conn.execute_batch(
        "BEGIN IMMEDIATE; CREATE TABLE junk (x); \
         WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 400) \
         INSERT INTO junk SELECT randomblob(3000) FROM c; \
         UPDATE records SET note = 'torn' ;",
    )?;
    let copy = into.join("review.db");
    std::fs::copy(db, &copy)?;
    std::fs::copy(side(db, "-journal"), side(&copy, "-journal"))?;
    conn.execute_batch("ROLLBACK")?;
    let journal = std::fs::read(side(&copy, "-journal"))?;
    anyhow::ensure!(
        journal.get(..8).is_some_and(|h| h.iter().any(|&b| b != 0)),
        "the copied journal is not hot"
    );
    Ok(copy)
}

/// A server killed mid-commit: the next start (and `check`, `export`, `backup`) rolls the
/// interrupted commit back and finds every acknowledged write.
#[test]
fn hot_journal_after_a_kill_mid_commit_is_recovered_at_the_next_start() -> anyhow::Result<()> {
    let dir = TempDir::new("hot-journal")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    for name in ["a", "b", "c"] {
        assert!(remember(&mut server, name)?.is_ok());
    }
    server.close()?;
    let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
    for (i, what) in ["serve", "check", "export"].iter().enumerate() {
        let sub = dir.join(&format!("crash-{i}"));
        std::fs::create_dir(&sub)?;
        let copy = crash_state(&db, &sub)?;
        match *what {
            "serve" => {
                let mut s = Server::start_logging_to(&copy, &sub.join("stderr"))?;
                assert!(remember(&mut s, "d")?.is_ok(), "{}", s.stderr());
                s.close()?;
                let mut want = names.clone();
                want.push("d".into());
                assert_eq!(exported_names(&copy)?, want);
            }
            "check" => check_ok(&copy)?,
            _ => assert_eq!(exported_names(&copy)?, names),
        }
        check_ok(&copy)?;
    }
    Ok(())
}

/// Regression (review of issue 11, item 3): `check` of a damaged file of an older schema
/// version checked only its upgraded private copy (which `VACUUM` had rebuilt whole) and said
/// ok. The file itself is checked now, and its own version is reported.
#[test]
fn check_of_damaged_older_file_reports_the_damage() -> anyhow::Result<()> {
    let dir = TempDir::new("ro-old-damaged")?;
    let db = dir.join("review.db");
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.execute_batch(OLD_V1)?;
    }
    let out = run_cli(&db, &["check"])?;
    assert!(out.status.success(), "{}", stderr_of(&out));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.contains("schema version 1 (a server upgrades it"),
        "{said}"
    );
    // The header's freelist count (bytes 36..40) says 7 pages where there are none.
    let mut bytes = std::fs::read(&db)?;
    bytes.splice(36..40, 7u32.to_be_bytes());
    std::fs::write(&db, bytes)?;
    let out = run_cli(&db, &["check"])?;
    assert!(!out.status.success(), "check said ok over a damaged file");
    assert!(stderr_of(&out).contains("Freelist"), "{}", stderr_of(&out));
    Ok(())
}

/// A `backup` copy is another database: it gets a cursor secret of its own, so a cursor the
/// original issued is refused by the copy (they diverge from the moment of the copy).
#[test]
fn backup_copy_refuses_the_original_s_cursors() -> anyhow::Result<()> {
    let dir = TempDir::new("backup-cursor")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    for name in ["a", "b", "c"] {
        assert!(remember(&mut server, name)?.is_ok());
    }
    let page = server
        .call("recall", json!({"artifact": art(), "limit": 1}))?
        .ok()?;
    let cursor = page["next_cursor"].as_str().unwrap_or_default().to_string();
    assert!(!cursor.is_empty());
    let next = json!({"artifact": art(), "limit": 1, "cursor": cursor});
    assert!(server.call("recall", next.clone())?.is_ok());
    server.close()?;
    let copy = dir.join("copy.db");
    let out = run_cli(&db, &["backup", copy.to_str().unwrap_or_default()])?;
    assert!(out.status.success(), "{}", stderr_of(&out));
    let mut on_copy = Server::start(&copy)?;
    match on_copy.call("recall", next)? {
        Answer::ToolError(text) => assert!(text.contains("Invalid cursor"), "{text}"),
        other => panic!("the copy accepted the original's cursor: {other:?}"),
    }
    on_copy.close()?;
    Ok(())
}

/// Regression (review of issue 11, item 1): the file replaced while a write waited for
/// another process's lock was answered "read-only; check its permissions". The identity is
/// checked again once the lock is held.
#[test]
fn file_replaced_during_the_lock_wait_is_reported_as_replaced() -> anyhow::Result<()> {
    let dir = TempDir::new("replace-in-wait")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    assert!(remember(&mut server, "before")?.is_ok());
    let copy = dir.join("copy.db");
    let out = run_cli(&db, &["backup", copy.to_str().unwrap_or_default()])?;
    assert!(out.status.success(), "{}", stderr_of(&out));
    let holder = rusqlite::Connection::open(&db)?;
    holder.execute_batch("BEGIN IMMEDIATE")?;
    server.send(&client::tool_call_line(
        99,
        "remember",
        &json!({"artifact": art(), "entity_ids": [], "name": "during", "note": "n"}),
    ))?;
    std::thread::sleep(Duration::from_millis(300));
    std::fs::rename(&copy, &db)?;
    std::thread::sleep(Duration::from_millis(300));
    holder.execute_batch("COMMIT")?;
    drop(holder);
    let answer = Answer::from_response(&server.receive()?);
    match answer {
        Answer::ToolError(text) => assert!(text.contains("was replaced"), "{text}"),
        other => panic!("answered {other:?}"),
    }
    server.close()?;
    assert_eq!(exported_names(&db)?, vec!["before".to_string()]);
    Ok(())
}

/// A session of a server on `db` logging at `info` to `log`.
fn start_at_info(db: &Path, log: &Path) -> anyhow::Result<Server> {
    let mut cmd = client::command(db);
    cmd.env("MCP_LOG_LEVEL", "info");
    Server::start_command(cmd, log)
}

/// The stderr lines of a server that speak of the schema.
fn schema_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.contains("schema"))
        .map(str::to_string)
        .collect()
}

/// Issue 23 ("Also"): a new database logged "database schema upgraded to version 1…8" (eight
/// lines) on a read-only session that creates no file, then eight more at the first write.
/// What happened is logged once, and only when a file was created or upgraded: nothing for
/// the reads, one line naming the version when the first write creates the file, nothing at
/// a later start, and one line from → to when an older file is upgraded.
#[test]
fn schema_setup_is_logged_once_and_only_when_a_file_is_created_or_upgraded() -> anyhow::Result<()> {
    let dir = TempDir::new("schema-log")?;
    let db = dir.join("review.db");
    let log = dir.join("stderr-1");
    let mut server = start_at_info(&db, &log)?;
    assert!(server.call("recall", json!({"artifact": art()}))?.is_ok());
    assert!(
        server
            .call("recall_decisions", json!({"artifact": art()}))?
            .is_ok()
    );
    assert!(!db.exists(), "the reads created the file");
    assert_eq!(schema_lines(&server.stderr()), Vec::<String>::new());
    assert!(remember(&mut server, "a")?.is_ok());
    assert!(remember(&mut server, "b")?.is_ok());
    assert!(server.close()?.success());
    let said = schema_lines(&std::fs::read_to_string(&log)?);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("created (schema version"), "{said:?}");

    let log = dir.join("stderr-2");
    let mut server = start_at_info(&db, &log)?;
    assert!(remember(&mut server, "c")?.is_ok());
    assert!(server.close()?.success());
    assert_eq!(
        schema_lines(&std::fs::read_to_string(&log)?),
        Vec::<String>::new()
    );

    let old = dir.join("old.db");
    rusqlite::Connection::open(&old)?.execute_batch(OLD_V1)?;
    let log = dir.join("stderr-3");
    let mut server = start_at_info(&old, &log)?;
    assert!(remember(&mut server, "d")?.is_ok());
    assert!(server.close()?.success());
    let said = schema_lines(&std::fs::read_to_string(&log)?);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("upgraded from version 1 to "), "{said:?}");
    Ok(())
}

/// Issue 23 ("Also", log what happened once): `export` (and every read-only command) on a
/// file of an older schema reads an upgraded private copy. It said so twice: once for the
/// copy's migration, naming a temporary file the user never sees, and once for the file
/// itself. One line now, naming the user's file; the file itself is not changed.
#[test]
fn a_read_only_command_on_an_older_file_says_what_it_does_once() -> anyhow::Result<()> {
    let dir = TempDir::new("older-file-export")?;
    let old = dir.join("old.db");
    rusqlite::Connection::open(&old)?.execute_batch(OLD_V1)?;
    let before = std::fs::read(&old)?;
    let out = std::process::Command::new(client::binary())
        .arg("--db")
        .arg(&old)
        .args(["export", "-o"])
        .arg(dir.join("out.jsonl"))
        .env("MCP_LOG_LEVEL", "info")
        .stdin(Stdio::null())
        .output()?;
    assert!(out.status.success(), "{out:?}");
    let said = schema_lines(&String::from_utf8_lossy(&out.stderr));
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains(&old.display().to_string()), "{said:?}");
    assert_eq!(
        std::fs::read(&old)?,
        before,
        "a read-only command changed the file"
    );
    Ok(())
}

/// A symbolic link as the database path (a chain of them, relative, and one whose file does
/// not exist yet) is the file it names, as SQLite sees it: the server writes (its `-wal` and
/// `-shm` are beside that file, not beside the link), the read-only commands read the writes
/// still in that log, `export -o` refuses that log, and a link re-pointed while the server
/// runs stops it like a replaced file.
#[test]
fn symlinked_database_is_the_file_it_names() -> anyhow::Result<()> {
    let dir = TempDir::new("symlink")?;
    std::fs::create_dir(dir.join("data"))?;
    let real = dir.join("data/review.db");
    let link = dir.join("link.db");
    let chain = dir.join("chain.db");
    std::os::unix::fs::symlink("data/review.db", &link)?;
    std::os::unix::fs::symlink("link.db", &chain)?;
    let mut server = Server::start(&chain)?;
    remember(&mut server, "first")?.ok()?;
    assert!(real.is_file(), "the file the link names was not created");
    // A reader's snapshot keeps the next writes in the log.
    let reader = rusqlite::Connection::open(&real)?;
    reader.execute_batch("BEGIN; SELECT count(*) FROM records;")?;
    for name in ["second", "third"] {
        remember(&mut server, name)?.ok()?;
    }
    for suffix in ["-wal", "-shm"] {
        assert!(!side(&chain, suffix).exists(), "{suffix} beside the link");
    }
    assert_eq!(exported_names(&chain)?, ["first", "second", "third"]);
    check_ok(&chain)?;
    let wal = side(&real, "-wal");
    let out = run_cli(&chain, &["export", "-o", wal.to_str().unwrap_or_default()])?;
    assert!(!out.status.success(), "export -o onto the log ran");
    assert!(
        stderr_of(&out).contains("is the database"),
        "{}",
        stderr_of(&out)
    );
    drop(reader);
    // The link made to name another file while the server runs.
    std::fs::copy(&real, dir.join("other.db"))?;
    std::fs::remove_file(&link)?;
    std::os::unix::fs::symlink("other.db", &link)?;
    match remember(&mut server, "fourth")? {
        Answer::ToolError(text) => assert!(text.contains("replaced"), "{text}"),
        other => panic!("a write through a re-pointed link: {other:?}"),
    }
    server.close()?;
    assert_eq!(exported_names(&real)?, ["first", "second", "third"]);
    Ok(())
}

/// The file moved while a server runs and a symbolic link left at its old path to where it
/// went ("I moved it into my synced folder"): the path still names the same file, but SQLite
/// keeps the `-wal` and `-shm` beside the file a link names, so a server started now on
/// either path uses others than this one's, and two logs on one file lose answered writes.
/// The running server refuses to go on; a server started on the file holds every write.
#[test]
fn file_moved_and_linked_back_while_serving_is_refused() -> anyhow::Result<()> {
    let dir = TempDir::new("moved-linked")?;
    std::fs::create_dir(dir.join("synced"))?;
    let db = dir.join("review.db");
    let moved = dir.join("synced/review.db");
    let mut server = server_after_writes(&db, 2)?;
    std::fs::rename(&db, &moved)?;
    std::os::unix::fs::symlink(&moved, &db)?;
    match remember(&mut server, "after-the-move")? {
        Answer::ToolError(text) => assert!(text.contains("symbolic link"), "{text}"),
        other => panic!("a write after the file moved under a link: {other:?}"),
    }
    let mut second = Server::start(&db)?;
    remember(&mut second, "second-server")?.ok()?;
    second.close()?;
    server.close()?;
    assert_eq!(
        exported_names(&moved)?,
        ["before-0", "before-1", "second-server"]
    );
    check_ok(&moved)?;
    Ok(())
}

/// Regression (found by the fault pass): a file deleted by mistake (`rm`), or replaced by an
/// older copy moved over it, while a server runs still lives in that server, which holds it
/// open with every write it answered; the refusal said only "restart the server", and the
/// restart let the last copy go. It now gives the `cp` that copies it out first (seen
/// failing: the message had no `cp`). The copy holds every answered write and checks ok.
#[test]
fn a_deleted_or_replaced_file_can_be_copied_out_of_the_server_as_its_refusal_says()
-> anyhow::Result<()> {
    for replace in [false, true] {
        let dir = TempDir::new("held-open")?;
        let db = dir.join("review.db");
        let older = dir.join("older.db");
        let mut server = server_after_writes(&db, 2)?;
        succeeded(run_cli(&db, &["backup", &older.to_string_lossy()])?)?;
        assert!(remember(&mut server, "after-the-backup")?.is_ok());
        assert!(server.call("recall", json!({"artifact": art()}))?.is_ok());
        match replace {
            true => std::fs::rename(&older, &db)?,
            false => std::fs::remove_file(&db)?,
        }
        let text = match remember(&mut server, "refused")? {
            Answer::ToolError(text) => text,
            other => panic!("a write after the file went: {other:?}"),
        };
        let cp = text
            .split('`')
            .find(|part| part.starts_with("cp /proc/"))
            .unwrap_or_else(|| panic!("no cp in: {text}"));
        let copied = Command::new("sh").arg("-c").arg(cp).output()?;
        assert!(copied.status.success(), "{cp}: {copied:?}");
        // The copy is checked before it goes into place: from outside the server's PID
        // namespace /proc/PID names another process.
        assert!(
            text.split('`')
                .any(|part| part.starts_with("review-mcp --db ")
                    && part.ends_with("review.db.recovered check")),
            "no check of the copy in: {text}"
        );
        server.close()?;
        let rescued = dir.join("review.db.recovered");
        assert_eq!(
            exported_names(&rescued)?,
            ["after-the-backup", "before-0", "before-1"],
            "{text}"
        );
        check_ok(&rescued)?;
    }
    Ok(())
}

/// A path that names no file a server could use, a loop of symbolic links or a path ending
/// in a slash, is refused at start with a message naming it, and nothing is created.
#[test]
fn link_loop_and_trailing_slash_are_refused_at_start() -> anyhow::Result<()> {
    let dir = TempDir::new("symlink-loop")?;
    std::os::unix::fs::symlink("b.db", dir.join("a.db"))?;
    std::os::unix::fs::symlink("a.db", dir.join("b.db"))?;
    let slash = format!("{}/new.db/", dir.path().display());
    for (path, says) in [
        (dir.join("a.db"), "loop of symbolic links"),
        (Path::new(&slash).to_path_buf(), "ends in a slash"),
    ] {
        let out = client::command(&path).stdin(Stdio::null()).output()?;
        let err = stderr_of(&out);
        assert!(!out.status.success(), "{}: started", path.display());
        assert!(err.contains(says) && err.contains("--db"), "{err}");
        let out = run_cli(&path, &["check"])?;
        assert!(!out.status.success() && stderr_of(&out).contains(says));
    }
    let names: Vec<_> = std::fs::read_dir(dir.path())?.collect();
    assert_eq!(names.len(), 2, "files were created");
    Ok(())
}

/// `backup` of a database its owner made read-only (mode 0444), by that owner (as root, user
/// `nobody` through `setpriv`: root writes anywhere): the copy is written, checked, and
/// given the database's mode.
#[cfg(unix)]
#[test]
fn backup_of_a_read_only_file_by_its_owner() -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("ro-backup")?;
    let data = dir.join("data");
    std::fs::create_dir(&data)?;
    let db = data.join("review.db");
    kept_by_a_server(&db)?;
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444))?;
    // Only root (or a process that overrides permissions) opens a 0444 file for writing.
    let root = std::fs::OpenOptions::new().write(true).open(&db).is_ok();
    let copy = data.join("copy.db");
    let mut cmd = if root {
        for path in [&data, &db] {
            std::os::unix::fs::chown(path, Some(65534), Some(65534))?;
        }
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(client::binary());
        c
    } else {
        std::process::Command::new(client::binary())
    };
    let out = cmd
        .arg("--db")
        .arg(&db)
        .arg("backup")
        .arg(&copy)
        .env("MCP_LOG_LEVEL", "warn")
        .current_dir("/")
        .stdin(Stdio::null())
        .output()?;
    assert!(out.status.success(), "{}", stderr_of(&out));
    let mode = std::fs::metadata(&copy)?.permissions().mode() & 0o777;
    assert_eq!(mode, 0o444, "the copy's mode");
    assert_eq!(exported_names(&copy)?, vec!["kept".to_string()]);
    Ok(())
}

/// `import` into a database another process keeps locked gives up after the busy timeout
/// saying so: which file was imported, into which database, that nothing was written and
/// to try again.
#[test]
fn import_into_a_locked_database_names_both_files_and_the_lock() -> anyhow::Result<()> {
    let dir = TempDir::new("import-locked")?;
    let db = dir.join("review.db");
    kept_by_a_server(&db)?;
    let export = dir.join("export.jsonl");
    std::fs::write(&export, run_cli(&db, &["export"])?.stdout)?;
    let lines = std::fs::read_to_string(&export)?.replace("\"kept\"", "\"added\"");
    let lines = lines.replace("rec_", "rec_0");
    std::fs::write(&export, lines)?;
    let locker = rusqlite::Connection::open(&db)?;
    locker.execute_batch("BEGIN IMMEDIATE")?;
    let out = run_cli(&db, &["import", export.to_str().unwrap_or_default()])?;
    drop(locker);
    let err = stderr_of(&out);
    assert!(!out.status.success(), "the import ran under the lock");
    for says in [
        export.display().to_string(),
        db.display().to_string(),
        "nothing was written".into(),
        "locked".into(),
        "try again".into(),
    ] {
        assert!(err.contains(&says), "{says:?} missing from: {err}");
    }
    assert_eq!(exported_names(&db)?, vec!["kept".to_string()]);
    Ok(())
}

/// A database of 40 features written by a server, then its records table's root page
/// overwritten: the file opens, and a query of the records finds it damaged.
fn damage_the_records_table(db: &Path) -> anyhow::Result<()> {
    damage_the_records(db, "AND name = 'records'")
}

/// Writes 40 records, then overwrites the first page of each table and index of the file
/// whose `sqlite_schema` row matches `which` (an `AND …` clause, or nothing for all).
fn damage_the_records(db: &Path, which: &str) -> anyhow::Result<()> {
    let mut server = Server::start(db)?;
    for i in 0..40 {
        assert!(remember(&mut server, &format!("feature {i}"))?.is_ok());
    }
    server.close()?;
    let (roots, page_size): (Vec<i64>, i64) = {
        let conn = rusqlite::Connection::open(db)?;
        let roots = conn
            .prepare(&format!(
                "SELECT rootpage FROM sqlite_schema WHERE rootpage > 1 {which}"
            ))?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        (
            roots,
            conn.pragma_query_value(None, "page_size", |r| r.get(0))?,
        )
    };
    let mut bytes = std::fs::read(db)?;
    for root in roots {
        let at = usize::try_from((root - 1) * page_size)?;
        bytes.splice(at..at + 8, [0x0d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    }
    std::fs::write(db, bytes)?;
    Ok(())
}

/// A damaged file (a page of the records table overwritten): `check` reports the damage as a
/// problem of that file, exit 1, and says what to do; `export` and `backup` refuse, naming
/// the database and that it is damaged (SQLite's own message names no file). The file's name
/// has a space: the `sqlite3` command `check` gives quotes it, so that it runs as printed.
#[test]
fn damaged_file_is_reported_with_its_name_and_what_to_do() -> anyhow::Result<()> {
    let dir = TempDir::new("damaged")?;
    let db = dir.join("the review.db");
    damage_the_records_table(&db)?;
    let name = db.display().to_string();
    let out = run_cli(&db, &["check"])?;
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{name}: integrity:"))
            && err.contains("backup")
            && err.contains(&format!("`sqlite3 '{name}' .recover`")),
        "{err}"
    );
    let copy = dir.join("copy.db");
    for args in [
        vec!["export"],
        vec!["backup", copy.to_str().unwrap_or_default()],
    ] {
        let out = run_cli(&db, &args)?;
        assert_failed_saying(&args, &out, |err| {
            err.contains(&format!("{name} is damaged"))
        });
    }
    assert!(!copy.exists(), "a backup of a damaged file was left");
    Ok(())
}

/// Regression (docstruth): a file that opens but is damaged further in said "run
/// `review-mcp check`", in a tool result and from `export`: run as written, in the user's
/// shell (no `REVIEW_MCP_DB_PATH`, another directory), that checks `./review-mcp.db` and
/// answers "there is no database". Every such message now gives the command for this file,
/// `review-mcp --db '<path>' check` (quoted: the name has a space), which reports the damage.
#[test]
fn damage_found_after_the_open_names_the_check_command_for_the_file() -> anyhow::Result<()> {
    let dir = TempDir::new("damaged-later")?;
    let db = dir.join("the review.db");
    damage_the_records_table(&db)?;
    let command = format!("review-mcp --db '{}' check", db.display());
    let mut server = Server::start(&db)?;
    match server.call("recall", json!({"artifact": art()}))? {
        Answer::ToolError(text) => assert!(text.contains(&command), "{text}"),
        other => panic!("a recall on a damaged file: {other:?}"),
    }
    server.close()?;
    let out = run_cli(&db, &["export"])?;
    assert_failed_saying(&["export"], &out, |err| err.contains(&command));
    // The command as given reports the damage of that very file.
    let out = run_cli(&db, &["check"])?;
    assert_failed_saying(&["check"], &out, |err| err.contains("integrity:"));
    Ok(())
}

/// Regression: a resource list or read, a completion or a subscription on a file damaged
/// after the open answered "Internal error", and `show_review` and `form3` said "run
/// `review-mcp --db PATH check` with its path", a path neither the model nor the host's user
/// knows. Each now names the file and gives the `check` command for it, as a tool result
/// does.
#[test]
fn damage_found_by_a_resource_read_or_completion_names_the_file() -> anyhow::Result<()> {
    let dir = TempDir::new("damaged-resource")?;
    let db = dir.join("the review.db");
    damage_the_records(&db, "")?;
    let command = format!("review-mcp --db '{}' check", db.display());
    let revision = art()["revision"].as_str().unwrap_or_default().to_string();
    let mut server = Server::start(&db)?;
    let requests = [
        ("resources/list", json!({})),
        (
            "resources/read",
            json!({"uri": format!("review://revisions/{revision}")}),
        ),
        (
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "review://revisions/{revision}"},
                "argument": {"name": "revision", "value": "sha256:"}
            }),
        ),
        (
            "resources/subscribe",
            json!({"uri": format!("review://revisions/{revision}")}),
        ),
    ];
    for (method, params) in requests {
        let r = server.request(method, params)?;
        let message = r["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(&command), "{method}: {r}");
    }
    // The tool and the command that read the review through the resource layer.
    match server.call("show_review", json!({"artifact": art()}))? {
        Answer::ToolError(text) => assert!(text.contains(&command), "{text}"),
        other => panic!("show_review on a damaged file: {other:?}"),
    }
    server.close()?;
    let out = run_cli(&db, &["form3", &revision])?;
    assert_failed_saying(&["form3"], &out, |err| err.contains(&command));
    Ok(())
}

/// A file too damaged to open (the schema table on page 1 overwritten): `check` reports it as
/// a problem of the file with what to do, and a server's tool call says the file is damaged
/// and to run `check`, not to check that it is writable.
#[test]
fn file_too_damaged_to_open_is_reported_as_damaged() -> anyhow::Result<()> {
    let dir = TempDir::new("damaged-open")?;
    let db = dir.join("review.db");
    kept_by_a_server(&db)?;
    let mut bytes = std::fs::read(&db)?;
    bytes.splice(100..108, [0x0d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    std::fs::write(&db, bytes)?;
    let name = db.display().to_string();
    let out = run_cli(&db, &["check"])?;
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{name}: integrity:")) && err.contains("backup"),
        "{err}"
    );
    let mut server = Server::start(&db)?;
    match server.call("recall", json!({"artifact": art()}))? {
        Answer::ToolError(text) => assert!(
            text.contains(&format!("{name} is damaged")) && text.contains("check"),
            "{text}"
        ),
        other => panic!("a recall on a damaged file: {other:?}"),
    }
    server.close()?;
    Ok(())
}

/// The database's directory renamed while a server runs: the path names no file any more, so
/// writes are refused saying the file was deleted or moved and to restart; the file in the
/// renamed directory keeps every answered write and passes `check`.
#[test]
fn directory_renamed_while_serving_refuses_writes_and_keeps_the_file() -> anyhow::Result<()> {
    let dir = TempDir::new("dir-renamed")?;
    std::fs::create_dir(dir.join("data"))?;
    let mut server = Server::start(&dir.join("data/review.db"))?;
    assert!(remember(&mut server, "kept")?.is_ok());
    std::fs::rename(dir.join("data"), dir.join("moved"))?;
    match remember(&mut server, "lost")? {
        Answer::ToolError(text) => assert!(
            text.contains("moved") && text.contains("Restart the server"),
            "{text}"
        ),
        other => panic!("a write after the directory moved: {other:?}"),
    }
    server.close()?;
    let moved = dir.join("moved/review.db");
    check_ok(&moved)?;
    assert_eq!(exported_names(&moved)?, vec!["kept".to_string()]);
    Ok(())
}

/// `backup` onto a full disk (another than the database's): it says the copy's disk is full,
/// not the database's, and leaves nothing on that disk.
#[test]
#[ignore = "needs root (mounts a tmpfs, chattr +i); .ci/run runs it with --ignored as root"]
fn backup_onto_a_full_disk_says_which_disk_and_leaves_nothing() -> anyhow::Result<()> {
    use crate::support::scenarios::{fill_disk, small_tmpfs};
    let dir = TempDir::new("backup-full")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    for i in 0..20 {
        assert!(remember(&mut server, &format!("feature {i}"))?.is_ok());
    }
    server.close()?;
    let (mnt, _unmount) = small_tmpfs(dir.path(), "256k")?
        .map_err(|why| anyhow::anyhow!("could not run: cannot mount a tmpfs: {why}"))?;
    fill_disk(&mnt)?;
    let target = mnt.join("copy.db");
    let out = run_cli(&db, &["backup", target.to_str().unwrap_or_default()])?;
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("cannot write the backup {}", target.display()))
            && err.contains("the disk it goes on is full")
            && !err.contains(&format!("{}: the disk is full", db.display())),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(&mnt)?
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n != "filler")
        .collect();
    assert!(left.is_empty(), "left on the full disk: {left:?}");
    Ok(())
}

/// The first write creates the file and its missing parent directories usable by their owner
/// only (docs/database.md); a directory that was there keeps its mode.
#[cfg(unix)]
#[test]
fn new_file_and_its_new_directories_are_owner_only() -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("owner-only")?;
    let mode = |p: &Path| -> anyhow::Result<u32> {
        Ok(std::fs::metadata(p)?.permissions().mode() & 0o777)
    };
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
    let db = dir.join("a/b/review.db");
    let mut server = Server::start_logging_to(&db, &dir.join("server.stderr"))?;
    assert!(remember(&mut server, "kept")?.is_ok());
    server.close()?;
    assert_eq!(mode(&db)?, 0o600, "the file");
    for made in ["a", "a/b"] {
        assert_eq!(mode(&dir.join(made))?, 0o700, "{made}");
    }
    assert_eq!(
        mode(dir.path())?,
        0o755,
        "an existing directory was changed"
    );
    Ok(())
}

/// A process that holds the file in SQLite's exclusive locking mode (its log has no index on
/// disk): `check`, `export` and `backup` give up after the busy timeout saying the database
/// is locked, instead of reading a copy of files that process is writing (`check` said ok)
/// or calling the file read-only (`backup`).
#[test]
fn read_only_commands_under_an_exclusive_lock_say_locked() -> anyhow::Result<()> {
    let dir = TempDir::new("exclusive")?;
    let db = dir.join("review.db");
    kept_by_a_server(&db)?;
    let holder = rusqlite::Connection::open(&db)?;
    holder.execute_batch(
        "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; \
         UPDATE records SET note = 'being written'; COMMIT;",
    )?;
    let copy = dir.join("copy.db");
    let copy_arg = copy.display().to_string();
    let runs = [
        vec!["check"],
        vec!["export"],
        vec!["backup", copy_arg.as_str()],
    ];
    let outs = std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .iter()
            .map(|args| s.spawn(|| run_cli(&db, args)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| anyhow::anyhow!("a run panicked"))?)
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    drop(holder);
    for (args, out) in runs.iter().zip(outs) {
        assert_failed_saying(args, &out, |err| {
            err.contains(&db.display().to_string())
                && err.contains("locked by another process")
                // A server suspended mid-write holds the lock too (files found it missing).
                && err.contains("stopped mid-write by Ctrl-Z")
        });
    }
    assert!(!copy.exists(), "a backup was left");
    Ok(())
}

/// `check`, `export` and `backup` of an empty file (one a server was stopped right after
/// creating, or a `touch`): refused, saying it is empty and where to point instead; nothing
/// is written to it. A first `import` or `sync` killed before it wrote leaves such a file too
/// (the crash audit of the thirty-second session): the message, which said only that no
/// server had written to it, names them and says to run them again.
#[test]
fn read_only_commands_on_an_empty_file_say_what_to_do() -> anyhow::Result<()> {
    let dir = TempDir::new("empty-file")?;
    let db = dir.join("review.db");
    std::fs::write(&db, b"")?;
    let copy = dir.join("copy.db");
    for args in [
        vec!["check"],
        vec!["export"],
        vec!["backup", copy.to_str().unwrap_or_default()],
    ] {
        let out = run_cli(&db, &args)?;
        assert_failed_saying(&args, &out, |err| {
            err.contains("is empty")
                && err.contains("point --db")
                && err.contains("run that import or sync again")
        });
    }
    assert_eq!(std::fs::metadata(&db)?.len(), 0);
    assert!(!copy.exists());
    Ok(())
}

/// The file truncated in place while a server runs (`: > review.db`, `truncate`, a smaller
/// file copied onto it): the path still names the same inode, so the identity check passed
/// and the server went on answering writes (10 of 10, crash helper) into a file `check`
/// then called malformed, where none of them could be read back. A database file never
/// shrinks under review-mcp (no vacuum), so a file shorter than the server saw it is
/// refused, reads too, saying it was truncated, to run `check` and restore a good copy.
#[test]
fn file_truncated_while_serving_refuses_writes_instead_of_acknowledging_them() -> anyhow::Result<()>
{
    for (case, keep) in [("to nothing", 0.0), ("to half", 0.5)] {
        let dir = TempDir::new("truncated")?;
        let db = dir.join("review.db");
        let mut server = server_after_writes(&db, 5)?;
        let len = std::fs::metadata(&db)?.len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&db)?
            .set_len((len as f64 * keep) as u64)?;
        let refused = |answer: Answer| match answer {
            Answer::ToolError(text) => assert!(
                text.contains("truncated") && text.contains("check"),
                "{case}: {text}"
            ),
            other => panic!("{case}: a call after the file was truncated: {other:?}"),
        };
        refused(remember(&mut server, "after")?);
        refused(server.call("recall", json!({"artifact": art()}))?);
        server.close()?;
    }
    Ok(())
}

/// A `backup` or `export -o` killed while it wrote (a host's timeout, Ctrl-C, kill -9) left
/// its temporary file beside FILE for good: 32 of 41 such kills left `.FILE.PID-0.tmp`, a
/// backup's up to the database's size, with its `-journal` (crash helper). The next command
/// writing FILE removes them once nobody holds them and they are a minute old; a temporary
/// file still young, and every other name, stay.
#[test]
fn temporary_files_a_killed_backup_or_export_left_are_removed_by_the_next() -> anyhow::Result<()> {
    let dir = TempDir::new("killed-temps")?;
    let db = dir.join("review.db");
    kept_by_a_server(&db)?;
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let plant = |name: &str, old: bool| -> anyhow::Result<std::path::PathBuf> {
        let path = dir.join(name);
        let file = std::fs::File::create(&path)?;
        std::io::Write::write_all(&mut &file, b"partial copy")?;
        if old {
            file.set_modified(an_hour_ago)?;
        }
        Ok(path)
    };
    let (copy, export) = (dir.join("copy.db"), dir.join("out.jsonl"));
    let (copy, export) = (copy.to_string_lossy(), export.to_string_lossy());
    for (target, args) in [
        ("copy.db", vec!["backup", &copy]),
        ("out.jsonl", vec!["export", "-o", &export]),
    ] {
        let left = plant(&format!(".{target}.4194000-0.tmp"), true)?;
        let journal = plant(&format!(".{target}.4194000-0.tmp-journal"), true)?;
        let young = plant(&format!(".{target}.4194001-0.tmp"), false)?;
        let yours = plant(&format!(".{target}.notes.tmp"), true)?;
        // A killed backup's private folder, with its partial copy.
        let folder = dir.join(&format!(".{target}.4194002-0.tmp.d"));
        std::fs::create_dir(&folder)?;
        std::fs::write(folder.join(".copy.db.4194002-0.tmp"), b"partial copy")?;
        std::fs::File::open(&folder)?.set_modified(an_hour_ago)?;
        let out = run_cli(&db, &args)?;
        assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
        assert!(
            !left.exists() && !journal.exists(),
            "{args:?} left {left:?}"
        );
        assert!(young.exists() && yours.exists(), "{args:?}");
        assert!(!folder.exists(), "{args:?} left {folder:?}");
        assert!(dir.join(target).exists());
    }
    Ok(())
}

/// Regression: `review.db-wal` truncated while a server runs (`: > review.db-wal`, a cleanup
/// script "shrinking the log") while another process holds a read snapshot (a database
/// browser). The next write was answered: SQLite appended it after a hole where the log's
/// header and the begun commit had been, and the checkpoint the snapshot allowed copied that
/// hole (zeros) into the file's first page, so `review.db` was no SQLite file any more and
/// every record was unreachable. Each call is now refused, naming the log and what to do,
/// nothing is written, and once the servers are restarted the file opens with every record.
#[test]
fn log_truncated_while_serving_refuses_calls_and_keeps_the_file() -> anyhow::Result<()> {
    for keep in [0, 32, 100] {
        let dir = TempDir::new("log-truncated")?;
        let db = dir.join("review.db");
        let mut server = server_after_writes(&db, 3)?;
        let reader = rusqlite::Connection::open(&db)?;
        reader.execute_batch("BEGIN")?;
        let n: i64 = reader.query_row("SELECT count(*) FROM records", [], |r| r.get(0))?;
        assert_eq!(n, 3);
        std::fs::OpenOptions::new()
            .write(true)
            .open(side(&db, "-wal"))?
            .set_len(keep)?;
        let refused = |answer: Answer| match answer {
            Answer::ToolError(text) => assert!(
                text.contains("review.db-wal")
                    && text.contains("truncated")
                    && text.contains("Restart"),
                "{keep}: {text}"
            ),
            other => panic!("{keep}: a call after the log was truncated: {other:?}"),
        };
        refused(remember(&mut server, "after")?);
        refused(server.call("recall", json!({"artifact": art()}))?);
        reader.execute_batch("COMMIT")?;
        drop(reader);
        server.close()?;
        check_ok(&db)?;
        assert_eq!(exported_names(&db)?.len(), 3, "{keep}");
        let mut server = Server::start(&db)?;
        assert!(remember(&mut server, "restarted")?.is_ok(), "{keep}");
        server.close()?;
        assert_eq!(exported_names(&db)?.len(), 4, "{keep}");
    }
    Ok(())
}

/// Regression: a write waiting out another program's write transaction (a `sqlite3` shell
/// after `BEGIN IMMEDIATE`) was answered "the database stayed locked by another process for
/// more than 5000 ms; try again", naming no file and nothing to look for, though retrying
/// cannot help while that program keeps its transaction open (and `sync` said only "database
/// error: database is locked"). Both name the file and what holds such a lock; the server
/// writes again once the lock is gone.
#[test]
fn a_write_under_another_programs_write_lock_names_the_file_and_what_holds_it() -> anyhow::Result<()>
{
    let dir = TempDir::new("write-locked")?;
    let db = dir.join("review.db");
    let mut server = server_after_writes(&db, 1)?;
    let holder = rusqlite::Connection::open(&db)?;
    holder.execute_batch("BEGIN IMMEDIATE")?;
    let folder = dir.join("folder");
    // `sync` runs beside the server's write, so the two wait out the busy timeout together.
    let out = std::thread::scope(|scope| -> anyhow::Result<std::process::Output> {
        let sync = scope.spawn(|| run_cli(&db, &["sync", &folder.to_string_lossy()]));
        let started = Instant::now();
        match remember(&mut server, "during")? {
            Answer::ToolError(text) => assert!(
                text.contains(&db.display().to_string())
                    && text.contains("locked by another process")
                    && text.contains("sqlite3"),
                "{text}"
            ),
            other => panic!("a write under another program's lock was answered {other:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(12));
        // Reads go on meanwhile.
        assert!(server.call("recall", json!({"artifact": art()}))?.is_ok());
        sync.join()
            .map_err(|_| anyhow::anyhow!("the sync thread panicked"))?
    })?;
    // `sync` said only "database error: database is locked".
    assert_failed_saying(&["sync"], &out, |err| {
        err.contains(&db.display().to_string()) && err.contains("sqlite3")
    });
    holder.execute_batch("ROLLBACK")?;
    drop(holder);
    assert!(remember(&mut server, "after")?.is_ok());
    server.close()?;
    assert_eq!(exported_names(&db)?.len(), 2);
    Ok(())
}

/// Regression (found by cliout): `--db /dev/stderr` with stderr a log file (as a host keeps
/// it) made the log the database: SQLite wrote its pages over the log lines and the log went
/// on writing into the database; `--db /dev/stdout` under `> out.jsonl` the same with the
/// answers. A database path that is the process's own standard output, error or input is
/// refused before anything is opened, naming the stream, and the file is left as it was.
#[cfg(unix)]
#[test]
fn a_database_path_that_is_the_process_s_own_stream_is_refused() -> anyhow::Result<()> {
    let dir = TempDir::new("db-own-stream")?;
    let write = format!(
        "{}\n{}\n",
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "remember",
               "arguments": {"artifact": artifact("own-stream", "/w/b.step"), "entity_ids": [], "name": "bore"}}})
    );
    for (db, args) in [
        ("/dev/stderr", vec![]),
        ("/dev/stdout", vec![]),
        ("/dev/stderr", vec!["check"]),
    ] {
        let (out, err) = (dir.join("out.txt"), dir.join("err.txt"));
        let mut child = cli_command(Path::new(db), &args)
            .env("MCP_LOG_LEVEL", "info")
            .stdin(Stdio::piped())
            .stdout(std::fs::File::create(&out)?)
            .stderr(std::fs::File::create(&err)?)
            .spawn()?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(write.as_bytes());
        }
        let status = child.wait()?;
        let (out, err) = (std::fs::read(&out)?, std::fs::read(&err)?);
        let text = String::from_utf8_lossy(&err);
        anyhow::ensure!(status.code() == Some(1), "{db} {args:?}: {status:?} {text}");
        let stream = if db == "/dev/stdout" {
            "standard output"
        } else {
            "standard error"
        };
        anyhow::ensure!(
            text.contains(&format!("{db} is this command's {stream}")),
            "{db} {args:?}: {text}"
        );
        for bytes in [&out, &err] {
            anyhow::ensure!(
                !bytes.starts_with(b"SQLite format 3"),
                "{db} {args:?}: a database was made"
            );
        }
        anyhow::ensure!(
            out.is_empty(),
            "{db} {args:?}: answered {}",
            String::from_utf8_lossy(&out)
        );
    }
    // `review-mcp --db review.db export >> review.db` (meant: review.jsonl): the export was
    // appended to the database it read.
    let db = dir.join("review.db");
    kept_by_a_server(&db)?;
    let before = std::fs::read(&db)?;
    let appended = std::fs::OpenOptions::new().append(true).open(&db)?;
    let out = cli_command(&db, &["export"]).stdout(appended).output()?;
    let text = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(
        out.status.code() == Some(1),
        "export >> the database: {text}"
    );
    anyhow::ensure!(text.contains("is this command's standard output"), "{text}");
    anyhow::ensure!(std::fs::read(&db)? == before, "the database changed");
    Ok(())
}

/// Regression (found by advcli): `review-mcp --db review.db export > review.db` (meant:
/// review.jsonl) is refused by the own-stream check, but the shell had emptied the database
/// for `>` before review-mcp started, and the refusal said only "nothing was opened": the
/// engineer, told nothing happened, went on with an empty file. The refusal now says the file
/// is empty, that the shell emptied it, and how to put the review back; nothing is made.
#[cfg(unix)]
#[test]
fn a_database_the_shell_emptied_for_stdout_is_said_to_be_empty() -> anyhow::Result<()> {
    let dir = TempDir::new("db-emptied")?;
    let db = dir.join("review.db");
    kept_by_a_server(&db)?;
    let out = cli_command(&db, &["export"])
        .stdout(std::fs::File::create(&db)?)
        .output()?;
    let text = String::from_utf8_lossy(&out.stderr);
    anyhow::ensure!(out.status.code() == Some(1), "{text}");
    for said in [
        "is this command's standard output",
        "is empty",
        "review-mcp backup",
    ] {
        anyhow::ensure!(text.contains(said), "{said:?} not in {text}");
    }
    anyhow::ensure!(std::fs::metadata(&db)?.len() == 0, "the file was written");
    Ok(())
}

/// Regression (found by cliout): `backup FILE` made its copy as `.FILE.PID-0.tmp` beside FILE,
/// and SQLite opened (and wrote, then deleted) `.FILE.PID-0.tmp-journal` there, a name anyone
/// who can write that directory (`/tmp`) can foresee from the process id: a file planted at it
/// was written and removed by the backup, and a planted hot journal would be rolled back into
/// the copy. The copy is now made inside a private directory (mode 0700) beside FILE, so
/// nothing at a name in FILE's directory but FILE itself is written, and the backup is whole.
#[cfg(unix)]
#[test]
fn backup_writes_no_file_planted_at_its_journal_s_name() -> anyhow::Result<()> {
    use std::os::unix::process::CommandExt;
    let dir = TempDir::new("backup-planted")?;
    let db = dir.join("review.db");
    kept_by_a_server(&db)?;
    let copy = dir.join("copy.db");
    // The command stops itself before it runs the binary, so its process id is known first
    // (the binary keeps it: exec).
    let child = std::process::Command::new("sh")
        .arg("-c")
        .arg("kill -STOP $$; exec \"$0\" \"$@\"")
        .arg(client::binary())
        .args([
            "--db".as_ref(),
            db.as_os_str(),
            "backup".as_ref(),
            copy.as_os_str(),
        ])
        .env("MCP_LOG_LEVEL", "warn")
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = child.id();
    let planted: Vec<_> = ["tmp-journal", "tmp-wal", "tmp-shm"]
        .iter()
        .map(|end| dir.join(&format!(".copy.db.{pid}-0.{end}")))
        .collect();
    for p in &planted {
        std::fs::write(p, b"planted by another user")?;
    }
    // Wait for the stop, then let it go on.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.split_whitespace().nth(2) == Some("T") || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let cont = std::process::Command::new("kill")
        .args(["-CONT", &pid.to_string()])
        .status()?;
    anyhow::ensure!(cont.success());
    let out = child.wait_with_output()?;
    anyhow::ensure!(out.status.success(), "{}", stderr_of(&out));
    for p in &planted {
        anyhow::ensure!(
            std::fs::read(p).ok().as_deref() == Some(&b"planted by another user"[..]),
            "{} was written or removed by the backup",
            p.display()
        );
    }
    check_ok(&copy)?;
    let left: Vec<_> = std::fs::read_dir(dir.path())?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".copy.db") && !n.starts_with(&format!(".copy.db.{pid}-0.tmp-")))
        .collect();
    anyhow::ensure!(left.is_empty(), "left beside the copy: {left:?}");
    Ok(())
}
