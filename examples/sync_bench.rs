//! The sync benchmark of issue 17: `review-mcp sync` on a folder of 10,000 items, from
//! nothing both ways, with nothing changed, and with one item changed on either side, each
//! with the process's peak resident memory. Then features changed on both sides over a
//! carry, at two or three sizes so the growth shows as a ratio in one run (`--carried`): N
//! features of one file stated at revision 0 and synced to a second clone; the first clone
//! carries them on to revision 1 and edits each there, the second edits each at revision 0
//! (it has not seen the carry); the first syncs, then the second's sync (and `--dry-run`) is
//! timed, and `import` of the first's export into the second as it was before that sync.
//! With `--against OLD_BINARY` the same inputs (set up by the old binary) are measured with
//! both, each on copies, interleaved, so a noisy minute falls on both.
//!
//! Run: `cargo run --release --example sync_bench` (options: `-- --help`). The release binary
//! is built first (when run through cargo) so a stale one is never measured. The times are
//! wall-clock times of the whole `review-mcp sync` process, as a person waits for it; the
//! memory is the process's own `VmHWM`, which sync logs from `/proc/self/status` as it ends.
//! The folder and databases live under `target/bench-data/sync` on the real disk, so every
//! file write pays its fsync. Benchmarks print; nothing here fails because something is slow.

#![allow(clippy::print_stdout)] // the table on stdout is this program's output

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
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
  --items N      how many items (default: 10000, half records, half decisions)
  --carried LIST the sizes of the carried case, comma-separated (default: 750,1500,3000;
                 0 skips it)
  --only-carried skip the 10,000-item runs
  --against PATH an older review-mcp: the carried case is set up by it and measured with both";

fn main() -> Result<()> {
    let mut bin = PathBuf::from("target/release/review-mcp");
    let mut dir = PathBuf::from("target/bench-data/sync");
    let mut items = 10_000usize;
    let mut carried = vec![750usize, 1_500, 3_000];
    let mut only_carried = false;
    let mut against: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bin" => bin = args.next().context("--bin needs a PATH")?.into(),
            "--dir" => dir = args.next().context("--dir needs a PATH")?.into(),
            "--items" => items = args.next().context("--items needs N")?.parse()?,
            "--carried" => {
                carried = args
                    .next()
                    .context("--carried needs a LIST")?
                    .split(',')
                    .map(str::parse)
                    .filter(|n| *n != Ok(0))
                    .collect::<Result<_, _>>()?;
            }
            "--only-carried" => only_carried = true,
            "--against" => against = Some(args.next().context("--against needs a PATH")?.into()),
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
    if !only_carried {
        plain(&bin, &dir, items)?;
    }
    if !carried.is_empty() {
        println!();
        println!("features changed on both sides over a carry (revision 0 -> 1)");
        println!("{:<58} {:>9} {:>12}", "run", "time", "peak memory");
        for n in carried {
            carried_case(
                &bin,
                against.as_deref(),
                &dir.join(format!("carried-{n}")),
                n,
            )?;
        }
    }
    Ok(())
}

/// The runs of issue 17 on `items` items.
fn plain(bin: &Path, dir: &Path, items: usize) -> Result<()> {
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
        bin,
        &first,
        &folder,
        "database of 10,000 -> empty folder (from nothing)",
        "< 5 s",
    )?;
    let fresh = dir.join("fresh.db");
    measure(
        bin,
        &fresh,
        &folder,
        "folder of 10,000 -> empty database (from nothing)",
        "< 5 s",
    )?;
    measure(bin, &fresh, &folder, "nothing changed", "")?;

    // One item edited in the folder (a teammate's change after git pull).
    let file = folder
        .join("records")
        .join(format!("{}.json", records[0].id));
    let text = fs::read_to_string(&file)?
        .replace("\"note 0\"", "\"note 0, edited\"")
        .replace(&records[0].updated_at, "2026-02-01T00:00:00.000Z");
    fs::write(&file, text)?;
    measure(
        bin,
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
        bin,
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
    measure_run(
        bin,
        db,
        &["sync".as_ref(), folder.as_os_str()],
        what,
        target,
    )
}

/// Runs `review-mcp --db DB ARGS…` and prints its row (its time, and its peak memory when it
/// logs one).
fn measure_run(bin: &Path, db: &Path, args: &[&OsStr], what: &str, target: &str) -> Result<()> {
    let started = Instant::now();
    let out = Command::new(bin)
        .arg("--db")
        .arg(db)
        .args(args)
        .env("MCP_LOG_LEVEL", "info")
        .env("MCP_LOG_FORMAT", "json")
        .output()?;
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("{what} failed: {stderr}");
    }
    let peak = stderr
        .lines()
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

/// The carried case at `n` features (see the top of this file), in `dir`: set up by `against`
/// when given (else `bin`), measured with `bin` and `against`.
fn carried_case(bin: &Path, against: Option<&Path>, dir: &Path, n: usize) -> Result<()> {
    fs::create_dir_all(dir)?;
    let setup = against.unwrap_or(bin);
    let folder = dir.join("review");
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let at = |rev: &str| serde_json::json!({"revision": rev, "format": "step", "uri": URI});
    let feature = |rev: &str, i: usize, note: &str| {
        serde_json::json!({"artifact": at(rev), "name": format!("feature {i}"),
                           "entity_ids": [format!("face:{i}")], "note": note})
    };
    let stated: Vec<_> = (0..n)
        .map(|i| ("remember", feature(REV, i, &format!("note {i}"))))
        .collect();
    serve(setup, &one, &stated)?;
    sync(setup, &one, &folder)?;
    sync(setup, &two, &folder)?;
    let mut carried = vec![(
        "carry_forward",
        serde_json::json!({"from": at(REV), "to": at(REV_1), "map": []}),
    )];
    carried.extend((0..n).map(|i| ("remember", feature(REV_1, i, &format!("one's note {i}")))));
    serve(setup, &one, &carried)?;
    let edited: Vec<_> = (0..n)
        .map(|i| ("remember", feature(REV, i, &format!("two's note {i}"))))
        .collect();
    serve(setup, &two, &edited)?;
    sync(setup, &one, &folder)?;
    let export = dir.join("one.jsonl");
    let out = Command::new(setup)
        .arg("--db")
        .arg(&one)
        .arg("export")
        .arg("-o")
        .arg(&export)
        .output()?;
    if !out.status.success() {
        bail!("export failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let label = |what: &str| format!("{n} features: {what}");
    let folder_arg = folder.as_os_str();
    let mut builds = vec![("", bin)];
    if let Some(old) = against {
        builds.push((" (against)", old));
    }
    for (build, b) in builds {
        // Each build on copies of the same inputs: the database copied, the folder saved before
        // the sync and put back after it. The newer binary upgrades its copies as it opens them.
        let (db, imported) = (dir.join("two-run.db"), dir.join("two-import.db"));
        fs::copy(&two, &db)?;
        fs::copy(&two, &imported)?;
        let saved = dir.join("review-saved");
        let _ = fs::remove_dir_all(&saved);
        copy_dir(&folder, &saved)?;
        measure_run(
            b,
            &db,
            &["sync".as_ref(), "--dry-run".as_ref(), folder_arg],
            &label(&format!("sync --dry-run{build}")),
            "",
        )?;
        measure_run(
            b,
            &db,
            &["sync".as_ref(), folder_arg],
            &label(&format!("sync{build}")),
            "",
        )?;
        fs::remove_dir_all(&folder)?;
        fs::rename(&saved, &folder)?;
        measure_run(
            b,
            &imported,
            &["import".as_ref(), export.as_os_str()],
            &label(&format!("import of the other clone's export{build}")),
            "",
        )?;
        for f in [db, imported] {
            let _ = fs::remove_file(&f);
            let _ = fs::remove_dir_all(f.with_extension("db.sync-deleted"));
        }
    }
    Ok(())
}

/// Copies the folder `from` (its files and directories, recursively) to `to`.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// One `review-mcp sync` the benchmark does not time.
fn sync(bin: &Path, db: &Path, folder: &Path) -> Result<()> {
    let out = Command::new(bin)
        .arg("--db")
        .arg(db)
        .arg("sync")
        .arg(folder)
        .output()?;
    if !out.status.success() {
        bail!("sync failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// Runs a server on `db` and makes the tool calls `calls`, in order, over its pipes, as a host
/// would, one answer read before the next call is sent; any error fails.
fn serve(bin: &Path, db: &Path, calls: &[(&str, serde_json::Value)]) -> Result<()> {
    let mut child = Command::new(bin)
        .arg("--db")
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(fs::File::create(db.with_extension("log"))?))
        .spawn()?;
    let mut lines = vec![
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "sync_bench", "version": "0"}}})
        .to_string(),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ];
    lines.extend(calls.iter().enumerate().map(|(i, (tool, args))| {
        serde_json::json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                           "params": {"name": tool, "arguments": args}})
        .to_string()
    }));
    let mut stdin = child.stdin.take().context("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().context("no stdout")?).lines();
    for (i, l) in lines.iter().enumerate() {
        stdin.write_all(l.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        if i == 1 {
            continue; // the notification has no answer
        }
        let id = if i == 0 { 0 } else { i - 1 };
        // Notifications (resources changed) come between the answers.
        let v = loop {
            let line = stdout.next().context("the server stopped answering")??;
            let v: serde_json::Value = serde_json::from_str(&line)?;
            if v["id"] == id {
                break v;
            }
        };
        if v.get("error").is_some() || v["result"]["isError"] == true {
            bail!("a call failed: {v}");
        }
    }
    drop(stdin);
    child.wait()?;
    Ok(())
}

const URI: &str = "file:///work/parts/bracket.step";
const REV_1: &str = "sha256:8f14e45fceea167a5a36dedd4bea2543e2c1f4a9b7d3c5e6f708192a3b4c5d6e";
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
