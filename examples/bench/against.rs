//! `--against BIN`: this build beside another one (an earlier release), in the same run.
//!
//! Both servers are measured alike and interleaved, round by round (A then B, then B then
//! A), on copies of one seeded database in tmpfs, so a slow minute of a noisy machine falls
//! on both: the ratios are what to read, not the absolute figures. CPU per call is the
//! server's own user + system time, the steadiest figure on a shared machine.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use serde_json::json;

use crate::corpus::Corpus;
use crate::wire::{self, Server, Stats};
use crate::{Op, fmt_dur};

/// The operations compared: every kind of request a host sends during a review.
const COMPARED: [Op; 7] = [
    Op::RememberNamed,
    Op::Decision,
    Op::RecallEntity,
    Op::RecallText,
    Op::RecallTags,
    Op::RecallDecisions,
    Op::RecallTagsSmall,
];

/// Rounds per figure: each round measures a share of the calls on both servers.
const ROUNDS: usize = 6;

/// Timings of one operation on one server.
#[derive(Default)]
struct Side {
    times: Vec<Duration>,
    cpu: Duration,
    calls: u32,
}

impl Side {
    fn p50(&self) -> Duration {
        Stats::new(self.times.clone()).p50()
    }

    fn cpu_per_call(&self) -> Duration {
        self.cpu / self.calls.max(1)
    }
}

/// Measures `calls` calls of each operation, and cold starts, on both binaries, and returns
/// the table.
pub fn compare(
    this: &Path,
    other: &Path,
    dir: &Path,
    size: usize,
    calls: usize,
    runs: usize,
) -> Result<String> {
    let corpus = Corpus::new();
    let seed = dir.join("against-seed.db");
    let _ = fs::remove_file(&seed);
    eprintln!("bench: seeding {size} records for the comparison...");
    // Seeded by the other (older) build: this build upgrades an older file, never the reverse,
    // and does so at its warm-up call below, outside the figures.
    let mut s = Server::spawn(other, &seed)?;
    s.initialize()?;
    s.pipeline((0..size).map(|i| corpus.seed_call(i)).collect())?;
    s.close()?;
    let dbs = [dir.join("against-a.db"), dir.join("against-b.db")];
    for db in &dbs {
        fs::copy(&seed, db)?;
    }
    let bins = [this, other];
    let mut servers = Vec::new();
    for (bin, db) in bins.iter().zip(&dbs) {
        let mut s = Server::spawn(bin, db)?;
        s.initialize()?;
        s.call("recall", json!({"limit": 1}))?;
        servers.push(s);
    }
    let per_round = calls.div_ceil(ROUNDS);
    let mut sides: Vec<[Side; 2]> = COMPARED.iter().map(|_| Default::default()).collect();
    let mut lists: [Side; 2] = Default::default();
    eprintln!("bench: {ROUNDS} interleaved rounds of {per_round} calls per operation...");
    for round in 0..ROUNDS {
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for (op, side) in COMPARED.iter().zip(sides.iter_mut()) {
            for &b in &order {
                let (server, out) = (&mut servers[b], &mut side[b]);
                let before = server.cpu_time()?;
                for k in round * per_round..(round + 1) * per_round {
                    let (tool, args) = op.call(&corpus, size, k);
                    out.times.push(server.call(tool, args)?.0);
                }
                out.cpu += server.cpu_time()?.saturating_sub(before);
                out.calls += u32::try_from(per_round)?;
            }
        }
        for &b in &order {
            let (server, out) = (&mut servers[b], &mut lists[b]);
            let before = server.cpu_time()?;
            for _ in 0..per_round {
                out.times
                    .push(server.round_trip_method("tools/list", json!({}))?.0);
            }
            out.cpu += server.cpu_time()?.saturating_sub(before);
            out.calls += u32::try_from(per_round)?;
        }
    }
    for s in servers {
        s.close()?;
    }
    eprintln!("bench: interleaved cold starts...");
    let mut starts: [[Vec<Duration>; 2]; 2] = Default::default();
    let lines = [wire::initialize_line(1), wire::discover_line(1)];
    for run in 0..runs {
        let order = if run % 2 == 0 { [0, 1] } else { [1, 0] };
        for &b in &order {
            for (line, out) in lines.iter().zip(starts.iter_mut()) {
                out[b].push(Server::cold_start(bins[b], &dbs[b], line)?.0);
            }
        }
    }
    for db in dbs.iter().chain([&seed]) {
        let _ = fs::remove_file(db);
        let mut journal = db.as_os_str().to_owned();
        journal.push("-journal");
        let _ = fs::remove_file(journal);
    }

    let mut t = String::new();
    writeln!(
        t,
        "this build against {} on {size} records in tmpfs, {calls} calls per figure in {ROUNDS} interleaved rounds",
        other.display()
    )?;
    writeln!(
        t,
        "| operation | p50 this | p50 other | ratio | CPU/call this | CPU/call other | ratio |"
    )?;
    writeln!(t, "|---|---|---|---|---|---|---|")?;
    let mut row = |what: &str, a: &Side, b: &Side| -> Result<()> {
        writeln!(
            t,
            "| {what} | {} | {} | {} | {} | {} | {} |",
            fmt_dur(a.p50()),
            fmt_dur(b.p50()),
            ratio(a.p50(), b.p50()),
            fmt_dur(a.cpu_per_call()),
            fmt_dur(b.cpu_per_call()),
            ratio(a.cpu_per_call(), b.cpu_per_call()),
        )?;
        Ok(())
    };
    for (op, [a, b]) in COMPARED.iter().zip(&sides) {
        row(op.label(), a, b)?;
    }
    row("tools/list", &lists[0], &lists[1])?;
    for (what, [a, b]) in ["cold start, initialize", "cold start, server/discover"]
        .iter()
        .zip(starts)
    {
        let (a, b) = (Stats::new(a).p50(), Stats::new(b).p50());
        writeln!(
            t,
            "| {what} | {} | {} | {} | | | |",
            fmt_dur(a),
            fmt_dur(b),
            ratio(a, b)
        )?;
    }
    Ok(t)
}

fn ratio(a: Duration, b: Duration) -> String {
    if b.is_zero() {
        return "-".into();
    }
    format!("{:.2}", a.as_secs_f64() / b.as_secs_f64())
}
