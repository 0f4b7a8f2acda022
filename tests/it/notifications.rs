//! Change notifications through the real binary: a write by another process on the same file
//! reaches a watching client within a second, with no request of its own; an import is one
//! burst of notifications, not one per row; a client that never reads does not make the
//! server grow; a server with nobody to tell does not notice or poll.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use crate::support::TempDir;
use anyhow::{Context, Result, bail, ensure};
use serde_json::{Value, json};

const REV: &str = "sha256:3333333333333333333333333333333333333333333333333333333333333333";
const URI: &str = "file:///parts/notify.step";

/// A server process whose output lines arrive on a channel, so a test can wait with a
/// deadline.
struct Watched {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    next_id: u64,
}

impl Watched {
    fn spawn(db: &Path) -> Result<Watched> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
            .env("REVIEW_MCP_DB_PATH", db)
            .env("MCP_LOG_LEVEL", "off")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().context("stdin")?;
        let stdout = child.stdout.take().context("stdout")?;
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    return;
                };
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Ok(Watched {
            child,
            stdin,
            lines,
            next_id: 1,
        })
    }

    fn send(&mut self, message: &Value) -> Result<()> {
        writeln!(self.stdin, "{message}")?;
        self.stdin.flush()?;
        Ok(())
    }

    /// Sends a request and returns its answer; notifications read on the way are returned
    /// too, in order.
    fn request(&mut self, method: &str, params: Value) -> Result<(Value, Vec<Value>)> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let mut notes = Vec::new();
        loop {
            let v = self
                .lines
                .recv_timeout(Duration::from_secs(20))
                .context("no answer")?;
            if v.get("id") == Some(&json!(id)) {
                return Ok((v, notes));
            }
            notes.push(v);
        }
    }

    /// Every line written within `span`.
    fn lines_within(&self, span: Duration) -> Vec<Value> {
        let deadline = Instant::now() + span;
        let mut got = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(v) => got.push(v),
                Err(_) => break,
            }
        }
        got
    }

    /// Waits until notifications satisfying `done` have all arrived, or `limit` passes.
    fn wait_for(&self, limit: Duration, done: impl Fn(&[Value]) -> bool) -> (Vec<Value>, Duration) {
        let started = Instant::now();
        let mut got = Vec::new();
        while !done(&got) {
            let Some(left) = limit.checked_sub(started.elapsed()) else {
                break;
            };
            match self.lines.recv_timeout(left) {
                Ok(v) => got.push(v),
                Err(_) => break,
            }
        }
        (got, started.elapsed())
    }

    fn cpu_ticks(&self) -> Result<u64> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))?;
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
        let f: Vec<&str> = rest.split_whitespace().collect();
        let tick = |i: usize| -> Result<u64> { Ok(f.get(i).context("stat")?.parse()?) };
        Ok(tick(11)? + tick(12)?)
    }

    fn close(mut self) -> Result<()> {
        drop(self.stdin);
        let status = self.child.wait()?;
        ensure!(status.success(), "the server exited with {status}");
        Ok(())
    }
}

fn initialize(s: &mut Watched) -> Result<()> {
    s.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "notify-test", "version": "0"}}),
    )?;
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
}

fn modern(params: Value) -> Value {
    let mut p = params;
    p["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    p
}

fn remember_args(revision: &str, name: &str) -> Value {
    json!({"name": "remember", "arguments": {
        "artifact": {"revision": revision, "format": "step", "uri": URI},
        "name": name, "entity_ids": ["face:1"]}})
}

/// Another server process writes one record and exits.
fn write_from_another_process(db: &Path, revision: &str, name: &str) -> Result<()> {
    let mut other = Watched::spawn(db)?;
    initialize(&mut other)?;
    let (answer, _) = other.request("tools/call", remember_args(revision, name))?;
    ensure!(answer["result"]["isError"] != json!(true), "{answer}");
    other.close()
}

fn method(v: &Value) -> &str {
    v["method"].as_str().unwrap_or_default()
}

fn revision_uri() -> String {
    format!("review://revisions/{REV}")
}

/// Both notifications a subscribed revision's client must get after a write to it.
fn both_arrived(notes: &[Value]) -> bool {
    notes
        .iter()
        .any(|n| method(n) == "notifications/resources/list_changed")
        && notes.iter().any(|n| {
            method(n) == "notifications/resources/updated" && n["params"]["uri"] == revision_uri()
        })
}

#[test]
fn another_process_write_reaches_a_legacy_session_within_a_second() -> Result<()> {
    let dir = TempDir::new("notify-legacy")?;
    let db = dir.join("review.db");
    let mut watching = Watched::spawn(&db)?;
    initialize(&mut watching)?;
    watching.request("resources/subscribe", json!({"uri": revision_uri()}))?;
    write_from_another_process(&db, REV, "bore")?;
    let (notes, waited) = watching.wait_for(Duration::from_secs(3), both_arrived);
    ensure!(both_arrived(&notes), "after {waited:?}: {notes:?}");
    ensure!(waited < Duration::from_secs(1), "took {waited:?}");
    // Nothing arrives without a change, and nothing twice.
    let more = watching.lines_within(Duration::from_millis(700));
    ensure!(more.is_empty(), "{more:?}");
    watching.close()
}

#[test]
fn another_process_write_reaches_a_listen_stream_within_a_second() -> Result<()> {
    let dir = TempDir::new("notify-modern")?;
    let db = dir.join("review.db");
    let mut watching = Watched::spawn(&db)?;
    watching.send(
        &json!({"jsonrpc": "2.0", "id": "stream", "method": "subscriptions/listen",
        "params": modern(json!({"notifications": {
            "resourcesListChanged": true, "resourceSubscriptions": [revision_uri()]}}))}),
    )?;
    let (ack, _) = watching.wait_for(Duration::from_secs(5), |n| !n.is_empty());
    ensure!(
        ack.first().map(method) == Some("notifications/subscriptions/acknowledged"),
        "{ack:?}"
    );
    write_from_another_process(&db, REV, "bore")?;
    let (notes, waited) = watching.wait_for(Duration::from_secs(3), both_arrived);
    ensure!(both_arrived(&notes), "after {waited:?}: {notes:?}");
    ensure!(waited < Duration::from_secs(1), "took {waited:?}");
    for n in &notes {
        ensure!(
            n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "stream",
            "untagged: {n}"
        );
    }
    watching.close()
}

#[test]
fn an_import_by_another_process_is_one_burst_of_notifications() -> Result<()> {
    let dir = TempDir::new("notify-import")?;
    let db = dir.join("review.db");
    // An export of 500 records from a database of their own.
    let source = dir.join("source.db");
    let mut writer = Watched::spawn(&source)?;
    initialize(&mut writer)?;
    for i in 0..500 {
        writer.request("tools/call", remember_args(REV, &format!("feature-{i}")))?;
    }
    writer.close()?;
    let export = dir.join("export.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .args(["export", "--db"])
        .arg(&source)
        .arg("-o")
        .arg(&export)
        .output()?;
    ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let mut watching = Watched::spawn(&db)?;
    initialize(&mut watching)?;
    watching.request("resources/subscribe", json!({"uri": revision_uri()}))?;
    let out = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .args(["import", "--db"])
        .arg(&db)
        .arg(&export)
        .output()?;
    ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let notes = watching.lines_within(Duration::from_millis(1500));
    ensure!(both_arrived(&notes), "{notes:?}");
    // One transaction: one list_changed and one updated, not one per row.
    ensure!(notes.len() == 2, "{} notifications: {notes:?}", notes.len());
    watching.close()
}

#[test]
fn a_server_with_nobody_to_tell_stays_silent_and_idle() -> Result<()> {
    let dir = TempDir::new("notify-idle")?;
    let db = dir.join("review.db");
    let mut stateless = Watched::spawn(&db)?;
    let (answer, _) = stateless.request("tools/list", modern(json!({})))?;
    ensure!(answer.get("result").is_some(), "{answer}");
    let before = stateless.cpu_ticks()?;
    write_from_another_process(&db, REV, "bore")?;
    let lines = stateless.lines_within(Duration::from_millis(1500));
    ensure!(lines.is_empty(), "a process with no stream wrote {lines:?}");
    // No periodic work: a loop that woke would still use far less than this, a busy loop
    // far more. (Ticks are 10 ms.)
    let used = stateless.cpu_ticks()? - before;
    ensure!(used <= 5, "{used} CPU ticks in 1.5 s idle");
    stateless.close()
}

#[test]
fn a_client_that_never_reads_does_not_grow_the_server() -> Result<()> {
    let dir = TempDir::new("notify-unread")?;
    let db = dir.join("review.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .env("REVIEW_MCP_DB_PATH", &db)
        .env("MCP_LOG_LEVEL", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let mut stdout = child.stdout.take().context("stdout")?;
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "never-reads", "version": "0"}}})
    )?;
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
               "params": {"uri": revision_uri()}})
    )?;
    stdin.flush()?;
    // Another process writes a thousand times; this client reads nothing meanwhile.
    let mut other = Watched::spawn(&db)?;
    initialize(&mut other)?;
    for i in 0..1000 {
        other.request("tools/call", remember_args(REV, &format!("f{i}")))?;
    }
    other.close()?;
    thread::sleep(Duration::from_millis(600));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()))?;
    let rss_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .context("VmHWM")?;
    ensure!(rss_kib < 64 * 1024, "peak memory {rss_kib} KiB");
    // It still answers, and what it wrote is a few coalesced notifications per look.
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    )?;
    drop(stdin);
    let mut out = String::new();
    stdout.read_to_string(&mut out)?;
    let lines: Vec<Value> = out
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    ensure!(lines.iter().any(|l| l["id"] == 2), "no answer to the ping");
    let notes = lines.iter().filter(|l| l.get("id").is_none()).count();
    if notes > 200 {
        bail!("{notes} notifications for one writer's burst: not coalesced");
    }
    let status = child.wait()?;
    ensure!(status.success(), "{status}");
    Ok(())
}

/// Regression (issue 14, review): a stream opened after the last one was cancelled was told
/// of writes made before it existed.
#[test]
fn a_new_stream_is_not_told_of_writes_made_before_it() -> Result<()> {
    let dir = TempDir::new("notify-new-stream")?;
    let db = dir.join("review.db");
    let mut watching = Watched::spawn(&db)?;
    let listen = |id: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": modern(json!({"notifications": {
                "resourcesListChanged": true, "resourceSubscriptions": [revision_uri()]}}))})
    };
    watching.send(&listen("s1"))?;
    let (ack, _) = watching.wait_for(Duration::from_secs(5), |n| !n.is_empty());
    ensure!(ack.len() == 1, "{ack:?}");
    watching.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "s1"}}),
    )?;
    write_from_another_process(&db, REV, "before the stream")?;
    let quiet = watching.lines_within(Duration::from_millis(500));
    ensure!(quiet.is_empty(), "a cancelled stream was told: {quiet:?}");
    watching.send(&listen("s2"))?;
    let after = watching.lines_within(Duration::from_millis(800));
    ensure!(
        after.len() == 1 && method(&after[0]) == "notifications/subscriptions/acknowledged",
        "a new stream was told of an earlier write: {after:?}"
    );
    watching.close()
}

/// Regression (issue 14, review): the poll for other processes' commits waited for a lock
/// another process held, and the server answered nothing meanwhile.
#[test]
fn a_lock_held_by_another_process_does_not_hold_up_answers() -> Result<()> {
    let dir = TempDir::new("notify-lock")?;
    let db = dir.join("review.db");
    let mut watching = Watched::spawn(&db)?;
    initialize(&mut watching)?;
    watching.request("tools/call", remember_args(REV, "made"))?;
    let holder = rusqlite::Connection::open(&db)?;
    holder.execute_batch(
        "UPDATE records SET note = 'changed' WHERE name = 'made'; BEGIN EXCLUSIVE;",
    )?;
    thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let (answer, _) = watching.request("ping", json!({}))?;
    let waited = started.elapsed();
    holder.execute_batch("COMMIT;")?;
    ensure!(answer["result"] == json!({}), "{answer}");
    ensure!(
        waited < Duration::from_secs(2),
        "a ping waited {waited:?} for the lock"
    );
    watching.close()
}

/// Regression (interop, WAL): another process's commit that changes no row of the review (a
/// `VACUUM`, a pragma, a checkpoint restarting the log) moved `data_version`, and the server
/// told its session "another process changed the review database" and resent list_changed:
/// at random, a second time after a real write. Only a change of the review is announced.
#[test]
fn another_process_commit_that_changes_no_review_row_is_not_announced() -> Result<()> {
    let dir = TempDir::new("notify-vacuum")?;
    let db = dir.join("review.db");
    let mut watching = Watched::spawn(&db)?;
    initialize(&mut watching)?;
    watching.request("logging/setLevel", json!({"level": "info"}))?;
    watching.request("resources/subscribe", json!({"uri": revision_uri()}))?;
    watching.request("tools/call", remember_args(REV, "made"))?;
    let _ = watching.lines_within(Duration::from_millis(700));
    let other = rusqlite::Connection::open(&db)?;
    other.execute_batch("PRAGMA user_version = 9; VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")?;
    drop(other);
    let lines = watching.lines_within(Duration::from_millis(1500));
    ensure!(
        lines.is_empty(),
        "announced a change of no review row: {lines:?}"
    );
    watching.close()
}

/// Regression (xproc): a server that had not opened the file yet (a host started while other
/// servers wrote) opened it with a write transaction, to see whether the schema needed an
/// upgrade, and the poll does not wait for a lock: while other processes kept the write lock
/// busy (three servers writing 500 calls each), its open failed at every poll and its client
/// was told of nothing until the writes stopped. A file at this version opens with a read.
#[test]
fn a_server_that_opens_the_file_while_others_write_is_told_of_their_writes() -> Result<()> {
    let dir = TempDir::new("notify-busy-open")?;
    let db = dir.join("review.db");
    write_from_another_process(&db, REV, "made")?;
    // Another process keeps the write lock, letting it go only between its commits.
    let writer = rusqlite::Connection::open(&db)?;
    writer.execute_batch("BEGIN IMMEDIATE")?;
    let mut watching = Watched::spawn(&db)?;
    initialize(&mut watching)?;
    watching.request("resources/subscribe", json!({"uri": revision_uri()}))?;
    let started = Instant::now();
    let mut notes = Vec::new();
    for i in 0..20 {
        writer.execute_batch(&format!(
            "UPDATE records SET note = 'change {i}' WHERE name = 'made'; COMMIT; BEGIN IMMEDIATE;"
        ))?;
        notes.extend(watching.lines_within(Duration::from_millis(100)));
        if both_arrived(&notes) {
            break;
        }
    }
    let waited = started.elapsed();
    writer.execute_batch("COMMIT")?;
    ensure!(both_arrived(&notes), "after {waited:?}: {notes:?}");
    ensure!(waited < Duration::from_secs(1), "took {waited:?}");
    watching.close()
}
