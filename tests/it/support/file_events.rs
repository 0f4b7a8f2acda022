//! What people do to a database file while a server runs, through the real binary: replace
//! it (a restore with `mv`), delete it, delete its companion files, give it a second name,
//! stop the server with a signal. Each scenario returns what it counted, and fails at the
//! first broken promise: nothing acknowledged is lost, nothing is acknowledged into a file
//! nobody can see, and `check` never says ok over lost data.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};

use super::client::{self, Answer, Server};
use super::{TempDir, artifact};

/// The artifact every scenario writes for.
fn art() -> Value {
    artifact("file-events", "/file-events/part.step")
}

/// Writes `n` named features `<prefix>-<i>` and returns how many were acknowledged.
fn write_named(server: &mut Server, prefix: &str, n: usize) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for i in 0..n {
        let name = format!("{prefix}-{i}");
        server
            .call(
                "remember",
                json!({"artifact": art(), "entity_ids": [], "name": name, "note": "kept"}),
            )?
            .ok()
            .with_context(|| format!("writing {name}"))?;
        names.push(name);
    }
    Ok(names)
}

/// The names of every feature `review-mcp export` finds in `db` (read-only), sorted.
pub fn exported_names(db: &Path) -> anyhow::Result<Vec<String>> {
    let out = run_cli(db, &["export"])?;
    ensure!(
        out.status.success(),
        "export of {} failed: {}",
        db.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line)?;
        if let Some(n) = v["record"]["name"].as_str() {
            names.push(n.to_string());
        }
    }
    names.sort();
    Ok(names)
}

/// `review-mcp --db DB ARGS...`.
pub fn run_cli(db: &Path, args: &[&str]) -> anyhow::Result<std::process::Output> {
    let mut cmd = Command::new(client::binary());
    // `merge-file` opens no database, and refuses `--db`.
    if args.first() != Some(&"merge-file") {
        cmd.arg("--db").arg(db);
    }
    Ok(cmd
        .args(args)
        .env("MCP_LOG_LEVEL", "warn")
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .output()?)
}

/// The stdout of a command that must succeed (its output otherwise in the error).
pub fn succeeded(out: std::process::Output) -> anyhow::Result<String> {
    anyhow::ensure!(
        out.status.success(),
        "failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8(out.stdout)?)
}

/// `review-mcp check` on `db` succeeds.
pub fn check_ok(db: &Path) -> anyhow::Result<()> {
    let out = run_cli(db, &["check"])?;
    ensure!(
        out.status.success(),
        "check of {} failed: {}",
        db.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// No companion file of SQLite's that could be applied to `db` at the next open: no `-wal`
/// holding frames (an empty one, which a server stopped while refusing leaves, is inert),
/// and no journal with a live header (a zeroed persistent journal is inert).
fn no_foreign_journal(db: &Path) -> anyhow::Result<()> {
    let wal = super::side(db, "-wal");
    let wal_len = std::fs::metadata(&wal).map_or(0, |m| m.len());
    ensure!(
        wal_len == 0,
        "{} ({wal_len} bytes) was left beside the file",
        wal.display()
    );
    let journal = super::side(db, "-journal");
    if let Ok(bytes) = std::fs::read(&journal) {
        let header = bytes.get(..28).unwrap_or(&bytes);
        ensure!(
            header.iter().all(|&b| b == 0),
            "a hot journal was left beside {}",
            db.display()
        );
    }
    Ok(())
}

/// Writes are refused while the path does not name the server's file: the answer is an
/// `isError` that contains `expect`, and reads say the same.
fn expect_refused_writes(
    server: &mut Server,
    attempts: usize,
    expect: &str,
) -> anyhow::Result<usize> {
    for i in 0..attempts {
        let answer = server.call(
            "remember",
            json!({"artifact": art(), "entity_ids": [], "name": format!("lost-{i}"), "note": "x"}),
        )?;
        match answer {
            Answer::ToolError(text) if text.contains(expect) && text.contains("Restart") => {}
            other => bail!("write {i} after the change was answered {other:?}"),
        }
    }
    match server.call("recall", json!({"artifact": art()}))? {
        Answer::ToolError(text) if text.contains(expect) => Ok(attempts),
        other => bail!("a read after the change was answered {other:?}"),
    }
}

/// The file is replaced by an older copy (`mv backup review.db`) while a server runs: the
/// server refuses every later write, leaves nothing beside the restored file, and the restored
/// file holds exactly what the copy held.
pub fn replaced_while_serving(writes: usize, refused: usize) -> anyhow::Result<usize> {
    let dir = TempDir::new("replaced")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    let before = write_named(&mut server, "before", writes)?;
    let copy = dir.join("copy.db");
    let out = run_cli(&db, &["backup", copy.to_str().context("utf-8 path")?])?;
    ensure!(
        out.status.success(),
        "backup: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    write_named(&mut server, "after", writes)?;
    std::fs::rename(&copy, &db)?;
    let n = expect_refused_writes(&mut server, refused, "was replaced")?;
    let status = server.close()?;
    ensure!(status.success(), "server exited with {status}");
    no_foreign_journal(&db)?;
    check_ok(&db)?;
    ensure!(
        exported_names(&db)? == sorted(before),
        "the restored file does not hold exactly the copy"
    );
    // A new server uses the restored file.
    let mut server = Server::start(&db)?;
    write_named(&mut server, "again", 1)?;
    server.close()?;
    Ok(n)
}

/// The file is deleted while a server runs: every later write is refused, never acknowledged
/// and then lost.
pub fn deleted_while_serving(refused: usize) -> anyhow::Result<usize> {
    let dir = TempDir::new("deleted")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    write_named(&mut server, "before", 3)?;
    std::fs::remove_file(&db)?;
    let n = expect_refused_writes(&mut server, refused, "was deleted")?;
    let status = server.close()?;
    ensure!(status.success(), "server exited with {status}");
    ensure!(!db.exists(), "the deleted file came back");
    no_foreign_journal(&db)?;
    Ok(n)
}

/// Every companion file SQLite keeps beside the database is deleted while a server writes (a
/// cleanup script), one at a time or all together: the server sees its log or index gone and
/// refuses every later call (never acknowledging a write into a log nobody else can see); no
/// acknowledged write is lost, and `check` says ok over all of them. Each round ends with a
/// kill, not a clean exit, and the next round starts a new server on the same file.
pub fn companions_deleted_while_serving(rounds: usize, writes: usize) -> anyhow::Result<usize> {
    let dir = TempDir::new("companions")?;
    let db = dir.join("review.db");
    let mut acknowledged = Vec::new();
    let deletions: [&[&str]; 4] = [&["-wal"], &["-shm"], &["-wal", "-shm"], &["-journal"]];
    for round in 0..rounds {
        let mut server = Server::start(&db)?;
        acknowledged.extend(write_named(&mut server, &format!("r{round}"), writes)?);
        let deleted = deletions
            .get(round % deletions.len())
            .copied()
            .unwrap_or_default();
        for suffix in deleted {
            let _ = std::fs::remove_file(super::side(&db, suffix));
        }
        if deleted.contains(&"-wal") || deleted.contains(&"-shm") {
            expect_refused_writes(&mut server, 2, "was deleted or replaced")?;
        } else {
            // Nothing the server holds: it goes on writing.
            acknowledged.extend(write_named(&mut server, &format!("r{round}-more"), 1)?);
        }
        // Killed, not closed: nothing may depend on a clean exit.
        let (mut child, _stdin, _stdout) = server.into_parts()?;
        child.kill()?;
        child.wait()?;
    }
    check_ok(&db)?;
    let found = exported_names(&db)?;
    let missing: Vec<&String> = acknowledged.iter().filter(|n| !found.contains(n)).collect();
    ensure!(
        missing.is_empty() && found.len() == acknowledged.len(),
        "acknowledged writes are missing after the companions were deleted: {missing:?}"
    );
    Ok(acknowledged.len())
}

/// A second hard link: refused at start (naming the file and the links), and a link made
/// while a server runs stops its writes.
pub fn hard_link() -> anyhow::Result<String> {
    let dir = TempDir::new("hardlink")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    write_named(&mut server, "before", 2)?;
    let other = dir.join("other-name.db");
    std::fs::hard_link(&db, &other)?;
    expect_refused_writes(&mut server, 2, "second name")?;
    server.close()?;
    let out = client::command(&db)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    ensure!(!out.status.success(), "a server started on a linked file");
    ensure!(
        stderr.contains("hard links") && stderr.contains(&db.display().to_string()),
        "the refusal does not say why: {stderr}"
    );
    std::fs::remove_file(&other)?;
    ensure!(exported_names(&db)?.len() == 2, "records were lost");
    Ok(stderr.trim().lines().last().unwrap_or_default().to_string())
}

/// The server is stopped by `signal` (TERM, INT, HUP or KILL) once `review.db` alone holds
/// every write it answered, without closing stdin: the checkpoint that follows each answer
/// copies them there while the server waits for the next request (how soon is a figure of
/// the benchmark, not of this test: on a loaded machine the checkpoint's thread may wait its
/// turn). `review.db` copied alone after the signal (no `-wal` beside the copy) still holds
/// every write.
pub fn stopped_by_signal(signal: &str, writes: usize) -> anyhow::Result<usize> {
    let dir = TempDir::new("signal")?;
    let db = dir.join("review.db");
    let mut server = Server::start_command(
        client::command_taking(&db, signal),
        &client::stderr_path_for(&db),
    )?;
    let names = sorted(write_named(&mut server, signal, writes)?);
    let (mut child, stdin, _stdout) = server.into_parts()?;
    let alone = TempDir::new("signal-copy")?;
    let copy = alone.join("review.db");
    let holds_every_write = || -> anyhow::Result<bool> {
        std::fs::copy(&db, &copy)?;
        check_ok(&copy)?;
        Ok(exported_names(&copy)? == names)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    // A copy taken while the checkpoint writes may be torn: only the copy after the signal
    // must be sound.
    while !matches!(holds_every_write(), Ok(true)) {
        ensure!(
            std::time::Instant::now() < deadline,
            "review.db alone misses answered writes 10 s after the last answer (no checkpoint)"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()?;
    ensure!(status.success(), "kill -{signal} failed");
    // Should the signal still be ignored: fail saying so instead of waiting for ever.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while child.try_wait()?.is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!(
                "the server did not stop within 10 s of SIG{signal} (is the signal ignored, as under nohup?)"
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    drop(stdin);
    ensure!(
        holds_every_write()?,
        "review.db alone misses writes after SIG{signal}"
    );
    Ok(writes)
}
