//! `--journals BEFORE`: the write path before (the rollback journal of the previous version)
//! and after (WAL, checkpointed after each answer), in one run on one disk.
//!
//! Printed: the durable-commit floor of each journal (the smallest `synchronous=FULL` commit on
//! this disk, by SQLite alone), a named `remember` through the pipe on each server (`BEFORE`, a
//! build of the previous version, and this build) interleaved in blocks so that drift of the
//! disk hits both alike (p50, p99 and the server's CPU per call: its user + system time), the
//! same write through the store alone in each journal, and how long this build's checkpoint
//! after an answer takes.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use review_mcp::store::{Journal, Store};

use crate::corpus::Corpus;
use crate::wire::{Server, Stats};
use crate::{fmt_dur, fs_type, remove_db};

/// Calls per block: the two servers take turns block by block.
const BLOCK: usize = 50;

/// The pause before each request of the host-like rows.
const IDLE: Duration = Duration::from_millis(5);

/// The whole comparison, as a table.
pub fn compare(this: &Path, before: &Path, dir: &Path, calls: usize) -> Result<String> {
    let corpus = Corpus::new();
    eprintln!("bench: the durable-commit floor of each journal...");
    let floors = [commit_floor(dir, "PERSIST")?, commit_floor(dir, "WAL")?];

    eprintln!("bench: {calls} named remembers on each server, interleaved in blocks of {BLOCK}...");
    let dbs = [dir.join("before.db"), dir.join("after.db")];
    let bins = [before, this];
    let mut servers = Vec::new();
    for (bin, db) in bins.iter().zip(&dbs) {
        remove_db(db);
        let mut s = Server::spawn(bin, db)?;
        s.initialize()?;
        // The first write creates the file: not measured.
        s.call("remember", corpus.remember_named(0, calls + 1).1)?;
        servers.push(s);
    }
    let mut times: [Vec<Duration>; 2] = Default::default();
    let mut cpu = [Duration::ZERO; 2];
    let mut k = 0;
    while k < calls {
        let end = (k + BLOCK).min(calls);
        let order = if (k / BLOCK).is_multiple_of(2) {
            [0, 1]
        } else {
            [1, 0]
        };
        for b in order {
            let server = &mut servers[b];
            let started = server.cpu_time()?;
            for i in k..end {
                let (tool, args) = corpus.remember_named(0, i);
                times[b].push(server.call(tool, args)?.0);
            }
            cpu[b] += server.cpu_time()?.saturating_sub(started);
        }
        k = end;
    }
    // As a host calls: a pause before each request (the checkpoint after the previous
    // answer runs in it), so the figure is the commit to the answer.
    let idle_calls = (calls / 3).max(BLOCK);
    eprintln!("bench: {idle_calls} more on each, {IDLE:?} after each answer...");
    let mut idle: [Vec<Duration>; 2] = Default::default();
    let mut k = 0;
    while k < idle_calls {
        let end = (k + BLOCK).min(idle_calls);
        let order = if (k / BLOCK).is_multiple_of(2) {
            [1, 0]
        } else {
            [0, 1]
        };
        for b in order {
            for i in k..end {
                let (tool, args) = corpus.remember_named(0, calls + 2 + i);
                std::thread::sleep(IDLE);
                idle[b].push(servers[b].call(tool, args)?.0);
            }
        }
        k = end;
    }
    for s in servers {
        s.close()?;
    }
    for db in &dbs {
        remove_db(db);
    }

    eprintln!("bench: the same write through the store alone, in each journal...");
    let store = store_only(dir, calls)?;

    let per_call = |d: Duration| d / u32::try_from(calls.max(1)).unwrap_or(u32::MAX);
    let [tb, ta] = times;
    let (tb, ta) = (Stats::new(tb), Stats::new(ta));
    let ratio =
        |b: Duration, a: Duration| format!("{:.2}x", b.as_secs_f64() / a.as_secs_f64().max(1e-9));
    let mut t = String::new();
    writeln!(
        t,
        "the write path before (rollback journal: {}) and after (WAL: this build), one run on {} ({}), {calls} calls per figure, load average {}",
        before.display(),
        dir.display(),
        fs_type(dir),
        crate::load_average()
    )?;
    writeln!(t)?;
    writeln!(
        t,
        "| measure | before: rollback journal | after: WAL | before/after |"
    )?;
    writeln!(t, "|---|---|---|---|")?;
    writeln!(
        t,
        "| durable-commit floor (SQLite alone, one row, synchronous=FULL, p50) | {} | {} | {} |",
        fmt_dur(floors[0]),
        fmt_dur(floors[1]),
        ratio(floors[0], floors[1])
    )?;
    writeln!(
        t,
        "| remember (named) through the pipe, back to back, p50 | {} | {} | {} |",
        fmt_dur(tb.p50()),
        fmt_dur(ta.p50()),
        ratio(tb.p50(), ta.p50())
    )?;
    writeln!(
        t,
        "| remember (named) through the pipe, back to back, p99 | {} | {} | {} |",
        fmt_dur(tb.p99()),
        fmt_dur(ta.p99()),
        ratio(tb.p99(), ta.p99())
    )?;
    let [ib, ia] = idle;
    let (ib, ia) = (Stats::new(ib), Stats::new(ia));
    writeln!(
        t,
        "| remember (named) through the pipe, {} ms pause before each (as a host), p50 | {} | {} | {} |",
        IDLE.as_millis(),
        fmt_dur(ib.p50()),
        fmt_dur(ia.p50()),
        ratio(ib.p50(), ia.p50())
    )?;
    writeln!(
        t,
        "| server CPU per remember (user + system, back to back) | {} | {} | {} |",
        fmt_dur(per_call(cpu[0])),
        fmt_dur(per_call(cpu[1])),
        ratio(per_call(cpu[0]), per_call(cpu[1]))
    )?;
    writeln!(
        t,
        "| remember (named), store only, commit to answer, p50 | {} | {} | {} |",
        fmt_dur(store.persist.p50()),
        fmt_dur(store.wal.p50()),
        ratio(store.persist.p50(), store.wal.p50())
    )?;
    writeln!(
        t,
        "| checkpoint after the answer (store, p50 / p99) | | {} / {} | |",
        fmt_dur(store.checkpoint.p50()),
        fmt_dur(store.checkpoint.p99())
    )?;
    Ok(t)
}

/// The p50 of the smallest durable SQLite write in `dir` in `mode` (`PERSIST` or `WAL`):
/// one 100-byte row per transaction, `synchronous=FULL`. In WAL mode the log is never
/// emptied here, so this is the append-only floor (one sync per commit).
pub fn commit_floor(dir: &Path, mode: &str) -> Result<Duration> {
    let path = dir.join("commit-probe.db");
    remove_db(&path);
    let times = {
        let conn = rusqlite::Connection::open(&path)?;
        conn.pragma_update_and_check(None, "journal_mode", mode, |r| r.get::<_, String>(0))?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch("CREATE TABLE t (x TEXT)")?;
        let row = "x".repeat(100);
        let mut times = Vec::new();
        for _ in 0..40 {
            let t = Instant::now();
            conn.execute_batch("BEGIN IMMEDIATE")?;
            conn.execute("INSERT INTO t (x) VALUES (?1)", [&row])?;
            conn.execute_batch("COMMIT")?;
            times.push(t.elapsed());
        }
        times
    };
    remove_db(&path);
    Ok(Stats::new(times).p50())
}

/// The store-only figures.
struct StoreOnly {
    persist: Stats,
    wal: Stats,
    checkpoint: Stats,
}

/// `calls` named remembers through the store in each journal, interleaved in blocks; in WAL
/// each is followed by the checkpoint a server runs after its answer, timed apart.
fn store_only(dir: &Path, calls: usize) -> Result<StoreOnly> {
    let wal_db = dir.join("store-wal.db");
    let persist_db = dir.join("store-persist.db");
    for db in [&wal_db, &persist_db] {
        remove_db(db);
    }
    let mut wal = Store::open_with(&wal_db, Journal::Wal)?;
    let mut persist = Store::open_with(&persist_db, Journal::Persist)?;
    let (mut tw, mut tp, mut tc) = (Vec::new(), Vec::new(), Vec::new());
    let mut k = 0;
    while k < calls {
        let end = (k + BLOCK).min(calls);
        for i in k..end {
            let rec = crate::journal::record(i);
            let t = Instant::now();
            persist.remember(&rec)?;
            tp.push(t.elapsed());
        }
        for i in k..end {
            let rec = crate::journal::record(i);
            let t = Instant::now();
            wal.remember(&rec)?;
            tw.push(t.elapsed());
            let t = Instant::now();
            wal.checkpoint()?;
            tc.push(t.elapsed());
        }
        k = end;
    }
    drop((wal, persist));
    for db in [&wal_db, &persist_db] {
        remove_db(db);
    }
    Ok(StoreOnly {
        persist: Stats::new(tp),
        wal: Stats::new(tw),
        checkpoint: Stats::new(tc),
    })
}
