//! Crashes, storage faults and several servers on one file, driven through the real binary at
//! a scale that keeps `cargo test` fast. The long versions of the same scenarios run with
//! `cargo test --release --test it stress:: -- --ignored --nocapture` (see tests/stress/README.md).

use crate::support::scenarios::{self, ConcurrencyScale, FaultOutcome, KillScale};

#[test]
fn server_killed_while_writing_keeps_every_answered_write() -> anyhow::Result<()> {
    let figures = scenarios::kill_while_writing(&KillScale {
        seed: 0x5EED_0001,
        cycles: 3,
        writes_per_cycle: 80,
        max_answers_before_kill: 60,
    })?;
    assert_eq!(figures.kills, 3);
    // The kills came mid-stream, with writes still queued.
    assert!(figures.writes_answered < figures.writes_sent);
    Ok(())
}

#[test]
fn servers_sharing_one_file_lose_nothing_and_show_no_torn_decision() -> anyhow::Result<()> {
    let scale = ConcurrencyScale {
        processes: 3,
        writes_per_process: 40,
        shared_names: 2,
        shared_writes_per_process: 6,
        read_every: 5,
        victims: 1,
        victim_kills: 2,
        seed: 0x5EED_0003,
    };
    let figures = scenarios::concurrent_servers(&scale)?;
    assert_eq!(figures.writes_present, 120);
    assert_eq!(figures.errors, 0);
    assert_eq!(figures.victim_kills, 2);
    Ok(())
}

#[test]
fn servers_started_together_on_a_new_file_all_start_and_write() -> anyhow::Result<()> {
    // Found a real race (a server starting while another initialised the file refused it
    // as foreign, 8 of 150 rounds of 16); this small version catches it only sometimes, the
    // stress command runs 30 rounds of 16.
    assert_eq!(scenarios::startup_race(4, 8)?, 32);
    Ok(())
}

#[test]
fn newer_foreign_truncated_or_random_file_is_refused_and_left_untouched() -> anyhow::Result<()> {
    let refusals = scenarios::refused_files(0x5EED_0002)?;
    assert_eq!(refusals.len(), 6);
    Ok(())
}

#[test]
#[ignore = "needs root (mounts a tmpfs, chattr +i); .ci/run runs it with --ignored as root"]
fn disk_full_answers_is_error_and_keeps_serving_reads() -> anyhow::Result<()> {
    match scenarios::disk_full(10)? {
        FaultOutcome::Ran { failed_writes, .. } => assert!(failed_writes > 0),
        FaultOutcome::Skipped(why) => anyhow::bail!("could not run: {why}"),
    }
    Ok(())
}

#[test]
#[ignore = "needs root (mounts a tmpfs, chattr +i); .ci/run runs it with --ignored as root"]
fn disk_full_at_start_reads_the_log_and_says_so_on_writes() -> anyhow::Result<()> {
    match scenarios::disk_full_at_start()? {
        FaultOutcome::Ran { failed_writes, .. } => assert_eq!(failed_writes, 1),
        FaultOutcome::Skipped(why) => anyhow::bail!("could not run: {why}"),
    }
    Ok(())
}

#[test]
#[ignore = "needs root (mounts a tmpfs, chattr +i); .ci/run runs it with --ignored as root"]
fn read_only_directory_answers_is_error_and_keeps_serving_reads() -> anyhow::Result<()> {
    match scenarios::read_only(3)? {
        FaultOutcome::Ran { failed_writes, .. } => assert_eq!(failed_writes, 3),
        FaultOutcome::Skipped(why) => anyhow::bail!("could not run: {why}"),
    }
    Ok(())
}

#[test]
#[ignore = "needs root (mounts a tmpfs, chattr +i); .ci/run runs it with --ignored as root"]
fn read_only_database_at_start_is_refused_naming_the_file() -> anyhow::Result<()> {
    match scenarios::read_only_at_start()? {
        FaultOutcome::Ran { message, .. } => assert!(message.contains("cannot open")),
        FaultOutcome::Skipped(why) => anyhow::bail!("could not run: {why}"),
    }
    Ok(())
}
