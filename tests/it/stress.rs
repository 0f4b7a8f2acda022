//! The stress run: the reliability scenarios at full size, with the figures printed for the
//! README. Ignored by `cargo test`; it runs with
//! `cargo test --release --test it stress:: -- --ignored --nocapture` (see tests/stress/README.md).
// This test's output is its report.
#![allow(clippy::print_stdout)]

use std::time::Instant;

use crate::support::file_events;
use crate::support::scenarios::{self, ConcurrencyScale, FaultOutcome, KillScale};

#[test]
#[ignore = "needs --release and about a minute: cargo test --release --test it stress:: -- --ignored --nocapture"]
fn full_size() -> anyhow::Result<()> {
    run()
}

fn seed() -> u64 {
    std::env::var("REVIEW_MCP_STRESS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_5EED)
}

fn run() -> anyhow::Result<()> {
    let seed = seed();
    println!(
        "review-mcp stress run (seed {seed}, binary {})",
        crate::support::client::binary().display()
    );

    let started = Instant::now();
    let k = scenarios::kill_while_writing(&KillScale {
        seed,
        cycles: 60,
        writes_per_cycle: 400,
        max_answers_before_kill: 300,
    })?;
    println!(
        "SIGKILL while writing: {} kills survived; {} writes queued, {} answered before the kill, \
         0 answered writes lost; {} decisions read back whole; integrity_check ok and no orphan \
         rows after every restart ({:.1} s)",
        k.kills,
        k.writes_sent,
        k.writes_answered,
        k.decisions_checked,
        started.elapsed().as_secs_f64()
    );

    let started = Instant::now();
    let scale = ConcurrencyScale {
        processes: 8,
        writes_per_process: 250,
        shared_names: 3,
        shared_writes_per_process: 25,
        read_every: 10,
        victims: 2,
        victim_kills: 10,
        seed,
    };
    let c = scenarios::concurrent_servers(&scale)?;
    println!(
        "Concurrent servers: {} server processes (+1 reader) on one file, {} writes answered, \
         {} present afterwards, {} errors answered; {} replacements of {} shared names kept one \
         row each; {} reads saw {} decisions, none half-written; meanwhile {} SIGKILLs of \
         other writing processes cost the others nothing and lost none of their {} answered \
         writes ({:.1} s)",
        c.processes,
        c.writes_answered,
        c.writes_present,
        c.errors,
        c.shared_replacements,
        scale.shared_names,
        c.reads,
        c.decisions_read,
        c.victim_kills,
        c.victim_writes_answered,
        started.elapsed().as_secs_f64()
    );

    let started = Instant::now();
    let (rounds, processes) = (30, 16);
    let n = scenarios::startup_race(rounds, processes)?;
    println!(
        "Started together on a new file: {rounds} rounds x {processes} processes, {n} started \
         and wrote, none refused ({:.1} s)",
        started.elapsed().as_secs_f64()
    );

    for r in scenarios::refused_files(seed)? {
        println!(
            "Refused at start, file unchanged: {} (exit {:?}): {}",
            r.case,
            r.exit_code,
            // The last line is the plain message; the lines before it are the same as logs.
            r.stderr.trim().lines().last().unwrap_or_default()
        );
    }

    let started = Instant::now();
    let rounds = 20;
    let (mut replaced, mut deleted, mut companions, mut signalled) = (0, 0, 0, 0);
    let mut link_message = String::new();
    for _ in 0..rounds {
        replaced += file_events::replaced_while_serving(20, 5)?;
        deleted += file_events::deleted_while_serving(20)?;
        companions += file_events::companions_deleted_while_serving(5, 10)?;
        link_message = file_events::hard_link()?;
        for signal in ["TERM", "INT", "HUP", "KILL"] {
            signalled += file_events::stopped_by_signal(signal, 10)?;
        }
    }
    println!(
        "File events, {rounds} rounds each ({:.1} s): replaced by an older copy while serving: {replaced} later writes refused, 0 acknowledged, the restored file intact and nothing left beside it; deleted while serving: {deleted} writes refused, 0 acknowledged; companion files (-wal, -shm, both, -journal) deleted while serving: later calls refused after -wal or -shm went, {companions} acknowledged writes, all present after SIGKILL, check ok; hard link: refused at start and while serving ({link_message:?}); SIGTERM/SIGINT/SIGHUP/SIGKILL 50 ms after an answer: {signalled} answered writes, all in a copy of review.db alone",
        started.elapsed().as_secs_f64()
    );

    let while_running = "writes answered isError, reads kept working, stored records intact";
    for (name, what, outcome) in [
        ("Disk full", while_running, scenarios::disk_full(20)?),
        (
            "Read-only directory",
            while_running,
            scenarios::read_only(20)?,
        ),
        (
            "Read-only database at start",
            "refused, file unchanged",
            scenarios::read_only_at_start()?,
        ),
    ] {
        match outcome {
            FaultOutcome::Ran {
                failed_writes: 0,
                message,
            } => println!("{name}: {what}: {message:?}"),
            FaultOutcome::Ran {
                failed_writes,
                message,
            } => println!("{name}: {failed_writes} {what}: {message:?}"),
            FaultOutcome::Skipped(why) => println!("{name}: SKIPPED: {why}"),
        }
    }
    Ok(())
}
