//! The sync benchmark of issue 17: `review-mcp sync` on a folder of 10,000 items, from
//! nothing both ways, with nothing changed, and with one item changed on either side, each
//! with the process's peak resident memory.
//!
//! Run: `cargo run --release --example sync_bench` (options: `-- --help`). The release binary
//! is built first (when run through cargo) so a stale one is never measured. The times are
//! wall-clock times of the whole `review-mcp sync` process, as a person waits for it; the
//! memory is the process's own `VmHWM`, which sync logs from `/proc/self/status` as it ends.
//! The folder and databases live under `target/bench-data/sync` on the real disk, so every
//! file write pays its fsync. Benchmarks print; nothing here fails because something is slow.

#![allow(clippy::print_stdout)] // the table on stdout is this program's output

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use review_mcp::review::{
    Artifact, BasisItem, Decision, Judgement, Kind, Record, Source, State, Verdict, Via,
};
use review_mcp::store::Store;

const USAGE: &str = "\
Usage: cargo run --release --example sync_bench [-- OPTIONS]
  --bin PATH     the review-mcp binary (default: target/release/review-mcp, built first)
  --dir PATH     where the folder and databases go (default: target/bench-data/sync)
  --items N      how many items (default: 10000, half records, half decisions)";

fn main() -> Result<()> {
    let mut bin = PathBuf::from("target/release/review-mcp");
    let mut dir = PathBuf::from("target/bench-data/sync");
    let mut items = 10_000usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bin" => bin = args.next().context("--bin needs a PATH")?.into(),
            "--dir" => dir = args.next().context("--dir needs a PATH")?.into(),
            "--items" => items = args.next().context("--items needs N")?.parse()?,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => bail!("unknown argument {other}\n{USAGE}"),
        }
    }
    if let Some(cargo) = std::env::var_os("CARGO") {
        let status = Command::new(cargo)
            .args(["build", "--release", "--quiet", "--bin", "review-mcp"])
            .status()?;
        if !status.success() {
            bail!("cargo build failed");
        }
    }
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir)?;
    let folder = dir.join("review");
    let seeded = dir.join("seeded.db");
    let (records, decisions) = corpus(items);
    Store::open(&seeded)?.import(&records, &decisions)?;
    println!(
        "review-mcp sync, {items} items ({} records, {} decisions with 3 basis items)",
        records.len(),
        decisions.len()
    );
    println!("{:<58} {:>9} {:>12}  target", "run", "time", "peak memory");

    let first = dir.join("first.db");
    fs::copy(&seeded, &first)?;
    measure(
        &bin,
        &first,
        &folder,
        "database of 10,000 -> empty folder (from nothing)",
        "< 5 s",
    )?;
    let fresh = dir.join("fresh.db");
    measure(
        &bin,
        &fresh,
        &folder,
        "folder of 10,000 -> empty database (from nothing)",
        "< 5 s",
    )?;
    measure(&bin, &fresh, &folder, "nothing changed", "")?;

    // One item edited in the folder (a teammate's change after git pull).
    let file = folder
        .join("records")
        .join(format!("{}.json", records[0].id));
    let text = fs::read_to_string(&file)?
        .replace("\"note 0\"", "\"note 0, edited\"")
        .replace(&records[0].updated_at, "2026-02-01T00:00:00.000Z");
    fs::write(&file, text)?;
    measure(
        &bin,
        &fresh,
        &folder,
        "one item changed in the folder",
        "< 0.5 s",
    )?;

    // One item changed in the database (a server's write).
    let mut d = decisions[0].clone();
    d.disposition = "release".into();
    d.updated_at = "2026-02-02T00:00:00.000Z".into();
    Store::open(&fresh)?.import(&[], &[d])?;
    measure(
        &bin,
        &fresh,
        &folder,
        "one item changed in the database",
        "< 0.5 s",
    )?;
    println!("memory target: < 64 MiB");
    Ok(())
}

/// Runs one sync and prints its row.
fn measure(bin: &Path, db: &Path, folder: &Path, what: &str, target: &str) -> Result<()> {
    let started = Instant::now();
    let out = Command::new(bin)
        .arg("--db")
        .arg(db)
        .arg("sync")
        .arg(folder)
        .env("MCP_LOG_LEVEL", "info")
        .env("MCP_LOG_FORMAT", "json")
        .output()?;
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("sync failed: {stderr}");
    }
    let peak = stderr
        .lines()
        .filter(|l| l.contains("synced "))
        .find_map(|l| l.split("peak resident memory ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|kib| kib.parse::<f64>().ok())
        .map_or("?".to_string(), |kib| format!("{:.1} MiB", kib / 1024.0));
    println!(
        "{what:<58} {:>7.0} ms {peak:>12}  {target}",
        took.as_secs_f64() * 1000.0
    );
    Ok(())
}

const REV: &str = "sha256:5d41402abc4b2a76b9719d911017c592ae1b6a3f4a5b9d2c0e1f2a3b4c5d6e7f";
const T: &str = "2026-01-01T00:00:00.000Z";

fn artifact(i: usize) -> Artifact {
    Artifact {
        revision: REV.into(),
        format: "step".into(),
        uri: Some(format!("file:///work/parts/part-{}.step", i % 50)),
        units: None,
    }
}

/// Half records (features with a note and tags), half decisions with three basis items, one
/// of them with the engineer's verdict: items of a realistic size (0.6 to 1.5 KB a file).
fn corpus(items: usize) -> (Vec<Record>, Vec<Decision>) {
    let records = (0..items / 2)
        .map(|i| Record {
            author: None,
            carried: None,
            superseded: None,
            id: format!("rec_{i:016x}"),
            kind: Kind::Feature,
            name: Some(format!("feature {i}")),
            note: Some(format!("note {i}")),
            tags: vec!["bore".into(), format!("batch-{}", i % 10)],
            entity_ids: vec![format!("face:{i}")],
            id_scheme: "opaque".into(),
            artifact: artifact(i),
            created_at: T.into(),
            updated_at: T.into(),
        })
        .collect();
    let decisions = (0..items - items / 2)
        .map(|i| Decision {
            author: None,
            carried: None,
            superseded: None,
            id: format!("dec_{i:016x}"),
            subject: format!("subject {i}"),
            disposition: "hold".into(),
            summary: Some(format!("summary of decision {i}")),
            basis: (0..3)
                .map(|j| BasisItem {
                    carried: None,
                    not_carried: None,
                    requirement: format!("requirement {j} of decision {i}"),
                    source: Source::Drawing,
                    source_detail: None,
                    evidence: Some(format!("evidence {j}")),
                    state: State::Satisfied,
                    question: None,
                    faces: vec![format!("face:{j}")],
                    verdict: (j == 0).then(|| Verdict {
                        author: None,
                        at: T.into(),
                        judgement: Judgement::Accepted,
                        meaning: None,
                        reason: None,
                        via: Via::App,
                    }),
                })
                .collect(),
            artifact: artifact(i),
            created_at: T.into(),
            updated_at: T.into(),
        })
        .collect();
    (records, decisions)
}
