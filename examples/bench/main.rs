//! The performance benchmark of issue 6: drives the release binary over real pipes, as an MCP
//! host would, and prints one table of figures next to their targets.
//!
//! Run: `cargo run --release --example bench` (options: `-- --help`). The example builds the
//! server binary first (`cargo build --release --bin review-mcp`) so it never measures a stale
//! one. Benchmarks print; nothing here fails because something is slow.
//!
//! How the database is grown: a seeding server runs on a copy of the database in tmpfs
//! (`/dev/shm`) and receives `tools/call` lines pipelined without waiting for each answer, so
//! seeding 100,000 records costs the engine's time, not 100,000 disk flushes. Every call is
//! still checked for success. The seeded file is then copied to the measurement directory (on
//! the real disk) and a fresh server measures there, one request at a time, as a host does.
//! The same measurements are repeated on a tmpfs copy: the difference between the two columns
//! is the price of the disk flush that `synchronous=FULL` pays on every write.
//!
//! Two kinds of extra row explain the recalls' figures: `limit 10` runs the same lookups with
//! a fifth of the answer to write, and `back to back` sends each request the moment the
//! previous answer is read, where the host-like rows first parse and check it (on these
//! machines a core left idle for a millisecond comes back with cold caches).

#![allow(clippy::print_stdout)] // the table on stdout is this program's output

mod against;
mod answers;
mod complete;
mod corpus;
mod durability;
mod journal;
mod notify;
mod request;
mod wire;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use corpus::Corpus;
use wire::{Server, Stats};

/// Command-line options.
struct Opts {
    bin: PathBuf,
    /// The measurement directory: on the disk a user's database would live on.
    dir: PathBuf,
    /// The tmpfs directory for seeding and the no-flush comparison.
    shm: PathBuf,
    sizes: Vec<usize>,
    calls: usize,
    runs: usize,
    page_target: usize,
    keep: bool,
    /// Another build to compare this one with (`--against`).
    against: Option<PathBuf>,
    /// A build of the previous version, for the write path before and after (`--journals`).
    journals: Option<PathBuf>,
    /// The idle span of the notification rows.
    idle: Duration,
    /// Only the notification rows.
    notify_only: bool,
    /// Only the answer sizes (`--answers`), beside an earlier build when one is given.
    answers: Option<Option<PathBuf>>,
}

const HELP: &str = "\
usage: cargo run --release --example bench -- [options]
  --bin PATH      server binary (default: target/release/review-mcp, built first)
  --dir PATH      measurement directory on disk (default: target/bench-data)
  --shm PATH      tmpfs directory for seeding (default: /dev/shm/review-mcp-bench-<pid>)
  --sizes LIST    database sizes in records (default: 0,10000,100000)
  --calls N       calls per timed operation (default: 1000)
  --runs N        cold starts per era (default: 40)
  --keep          keep the databases afterwards
  --idle-secs N   the idle span of the notification rows (default: 60)
  --notify-only   only the notification rows (idle CPU, a remember with a subscriber)
  --answers       only the answer sizes over a heavy revision (bytes on the wire, bytes
                  per item, tools/list's model-visible size)
  --answers-before PATH  the same beside an earlier build (before and after)
  --against PATH  only compare this build with another server binary (an earlier
                  release), interleaved in one run, at the largest --sizes
  --journals PATH only the write path before and after, in one run on the --dir disk:
                  PATH is a build of the previous version (rollback journal), e.g.
                  `git worktree add /tmp/before 9be7d31 && cargo build --release` there";

fn main() -> Result<()> {
    let started = Instant::now();
    let opts = parse_args()?;
    fs::create_dir_all(&opts.dir).with_context(|| format!("creating {}", opts.dir.display()))?;
    fs::create_dir_all(&opts.shm).with_context(|| format!("creating {}", opts.shm.display()))?;
    if let Some(before) = &opts.journals {
        let run_dir = opts.dir.join("run");
        fs::create_dir_all(&run_dir)?;
        let result = durability::compare(&opts.bin, before, &run_dir, opts.calls)
            .map(|table| println!("{table}"));
        if !opts.keep {
            let _ = fs::remove_dir_all(&opts.shm);
            let _ = fs::remove_dir_all(&run_dir);
        }
        return result;
    }
    if let Some(before) = &opts.answers {
        let result = answers::table(&opts.bin, before.as_deref(), &opts.shm)
            .map(|table| println!("{table}"));
        if !opts.keep {
            let _ = fs::remove_dir_all(&opts.shm);
        }
        return result;
    }
    let result = match &opts.against {
        Some(other) => {
            let size = opts.sizes.last().copied().unwrap_or(10_000);
            against::compare(&opts.bin, other, &opts.shm, size, opts.calls, opts.runs)
                .map(|table| println!("{table}"))
        }
        None if opts.notify_only => notify::rows(&opts.bin, &opts.shm, opts.idle, opts.calls)
            .map(|table| println!("{table}")),
        None => run(&opts, started),
    };
    if !opts.keep {
        let _ = fs::remove_dir_all(&opts.shm);
        let _ = fs::remove_dir_all(opts.dir.join("run"));
    }
    result
}

fn parse_args() -> Result<Opts> {
    let exe = std::env::current_exe()?;
    // target/release/examples/bench -> target/release
    let release_dir = exe
        .parent()
        .and_then(Path::parent)
        .context("cannot locate the target directory from the example's path")?
        .to_path_buf();
    let mut opts = Opts {
        bin: release_dir.join("review-mcp"),
        dir: release_dir
            .parent()
            .unwrap_or(&release_dir)
            .join("bench-data"),
        shm: PathBuf::from(format!("/dev/shm/review-mcp-bench-{}", std::process::id())),
        sizes: vec![0, 10_000, 100_000],
        calls: 1000,
        runs: 40,
        page_target: 10_000,
        keep: false,
        against: None,
        journals: None,
        idle: Duration::from_secs(60),
        notify_only: false,
        answers: None,
    };
    let mut explicit_bin = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--bin" => {
                opts.bin = PathBuf::from(value()?);
                explicit_bin = true;
            }
            "--dir" => opts.dir = PathBuf::from(value()?),
            "--shm" => opts.shm = PathBuf::from(value()?),
            "--sizes" => {
                opts.sizes = value()?
                    .split(',')
                    .map(|s| s.trim().parse::<usize>())
                    .collect::<Result<_, _>>()
                    .context("--sizes takes numbers separated by commas")?;
                opts.sizes.sort_unstable();
            }
            "--calls" => opts.calls = value()?.parse()?,
            "--runs" => opts.runs = value()?.parse()?,
            "--keep" => opts.keep = true,
            "--against" => opts.against = Some(PathBuf::from(value()?)),
            "--journals" => opts.journals = Some(PathBuf::from(value()?)),
            "--idle-secs" => opts.idle = Duration::from_secs(value()?.parse()?),
            "--notify-only" => opts.notify_only = true,
            "--answers" => opts.answers = Some(None),
            "--answers-before" => opts.answers = Some(Some(PathBuf::from(value()?))),
            "-h" | "--help" => {
                println!("{HELP}");
                std::process::exit(0);
            }
            other => bail!("unknown option {other}\n{HELP}"),
        }
    }
    if !explicit_bin {
        build_server()?;
    }
    if !opts.bin.is_file() {
        bail!(
            "{} does not exist: run `cargo build --release` first",
            opts.bin.display()
        );
    }
    Ok(opts)
}

/// Builds the server binary so the figures are never those of a stale build. `cargo run`
/// sets `CARGO`; without it, the binary must already be there.
fn build_server() -> Result<()> {
    let Some(cargo) = std::env::var_os("CARGO") else {
        return Ok(());
    };
    let status = std::process::Command::new(cargo)
        .args(["build", "--release", "--quiet", "--bin", "review-mcp"])
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release --bin review-mcp failed");
    }
    Ok(())
}

/// One line of the final table.
struct Row {
    what: String,
    records: String,
    p50: String,
    p99: String,
    tmpfs: String,
    cpu: String,
    answer: String,
    target: String,
    verdict: String,
}

impl Row {
    fn new(what: impl Into<String>) -> Self {
        Row {
            what: what.into(),
            records: String::new(),
            p50: String::new(),
            p99: String::new(),
            tmpfs: String::new(),
            cpu: String::new(),
            answer: String::new(),
            target: String::new(),
            verdict: String::new(),
        }
    }
}

/// One operation at one size.
struct OpFigures {
    op: Op,
    /// Host-side round trips on disk.
    disk: Stats,
    /// Host-side round trips on tmpfs (writes only).
    tmpfs: Option<Stats>,
    /// The server's CPU per call in the tmpfs run.
    tmpfs_cpu: Option<Duration>,
    /// The server's own CPU time (user + system) per call, on disk: what remains when the
    /// machine's other load and the disk are taken away.
    cpu: Duration,
    /// The mean length of the answer line, in bytes.
    answer_bytes: usize,
}

/// Figures that do not depend on the data.
struct Startup {
    init: Stats,
    /// `initialize` as the first line of a server whose database path does not exist yet.
    init_new: Stats,
    journal_disk: journal::JournalCost,
    journal_tmpfs: journal::JournalCost,
    discover: Stats,
    exits: Stats,
    tools_list: Stats,
    /// `ping` answers `{}` at once: the round trip of the pipes and the scheduler right now.
    ping: Stats,
    tool_count: usize,
}

/// Timed figures of one database size, on disk and on tmpfs.
struct SizeReport {
    size: usize,
    ops: Vec<OpFigures>,
    paging: Option<(usize, Duration)>,
    hwm: u64,
    bytes_per_record: f64,
    records_at_end: usize,
    exit: Duration,
    /// The disk's flush floor measured just before this size's disk run: it varies with what
    /// else the machine's disk is doing.
    floor: Duration,
    /// `completion/complete` (the disk run only).
    completions: Vec<complete::Figures>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    RememberNamed,
    RememberAnon,
    Decision,
    RecallEntity,
    RecallText,
    RecallTags,
    RecallDecisions,
    RecallTextSmall,
    RecallTagsSmall,
    RecallTextBackToBack,
    RecallTagsBackToBack,
}

/// The page size of the `limit 10` rows: the same lookups as the default page of 50, a fifth
/// of the answer, to show how much of a recall is the size of what it sends.
const SMALL_PAGE: u64 = 10;

const OPS: [Op; 11] = [
    Op::RememberNamed,
    Op::RememberAnon,
    Op::Decision,
    Op::RecallEntity,
    Op::RecallText,
    Op::RecallTags,
    Op::RecallDecisions,
    Op::RecallTextSmall,
    Op::RecallTagsSmall,
    Op::RecallTextBackToBack,
    Op::RecallTagsBackToBack,
];

impl Op {
    fn label(self) -> &'static str {
        match self {
            Op::RememberNamed => "remember (named)",
            Op::RememberAnon => "remember (anonymous)",
            Op::Decision => "remember_decision (10-item basis)",
            Op::RecallEntity => "recall by entity",
            Op::RecallText => "recall by text (FTS5)",
            Op::RecallTags => "recall by tags",
            Op::RecallDecisions => "recall_decisions by state",
            Op::RecallTextSmall => "recall by text, limit 10",
            Op::RecallTagsSmall => "recall by tags, limit 10",
            Op::RecallTextBackToBack => "recall by text, back to back",
            Op::RecallTagsBackToBack => "recall by tags, back to back",
        }
    }

    /// Call `k` of this operation at database size `size`.
    fn call(self, corpus: &Corpus, size: usize, k: usize) -> (&'static str, Value) {
        match self {
            Op::RememberNamed => corpus.remember_named(size, k),
            Op::RememberAnon => corpus.remember_anon(size, k),
            Op::Decision => corpus.decision(size, k),
            Op::RecallEntity => corpus.recall_entity(size, k),
            Op::RecallText | Op::RecallTextBackToBack => corpus.recall_text(k),
            Op::RecallTags | Op::RecallTagsBackToBack => corpus.recall_tags(k),
            Op::RecallDecisions => corpus.recall_decisions(k),
            Op::RecallTextSmall => with_limit(corpus.recall_text(k), SMALL_PAGE),
            Op::RecallTagsSmall => with_limit(corpus.recall_tags(k), SMALL_PAGE),
        }
    }

    /// Sent the moment the previous answer is read, instead of after the host-like pause
    /// in which the previous answer is parsed and checked (see `Server::calls_back_to_back`).
    fn is_back_to_back(self) -> bool {
        matches!(self, Op::RecallTextBackToBack | Op::RecallTagsBackToBack)
    }

    fn is_write(self) -> bool {
        matches!(self, Op::RememberNamed | Op::RememberAnon | Op::Decision)
    }

    /// The target for this operation at this size, in µs, if issue 6 sets one there.
    fn target_us(self, size: usize) -> Option<(f64, &'static str)> {
        match self {
            Op::RememberNamed | Op::RememberAnon => Some((400.0, "≤ 400 µs")),
            Op::RecallEntity | Op::RecallTags if size == 100_000 => Some((150.0, "≤ 150 µs")),
            Op::RecallText if size == 100_000 => Some((400.0, "≤ 400 µs")),
            _ => None,
        }
    }
}

fn run(opts: &Opts, started: Instant) -> Result<()> {
    let run_dir = opts.dir.join("run");
    let _ = fs::remove_dir_all(&run_dir);
    fs::create_dir_all(&run_dir)?;
    let load_before = load_average();
    let floor = durability::commit_floor(&run_dir, "WAL")?;
    let shm_floor = durability::commit_floor(&opts.shm, "WAL")?;

    eprintln!("bench: cold starts ({} runs per era)...", opts.runs);
    let cold_db = run_dir.join("cold.db");
    let (init, discover, exits) = cold_starts(&opts.bin, &cold_db, opts.runs)?;
    let init_new = cold_starts_on_new_paths(&opts.bin, &run_dir, opts.runs)?;
    eprintln!("bench: the journal's cost, WAL against rollback, on disk and on tmpfs...");
    let journal_disk = journal::measure(&run_dir, opts.calls)?;
    let journal_tmpfs = journal::measure(&opts.shm, opts.calls)?;

    // tools/list does not depend on the data, so it is timed once, on the empty database.
    let (tools, tools_list, ping) = {
        let mut s = Server::spawn(&opts.bin, &cold_db)?;
        s.initialize()?;
        let names = s.tool_names()?;
        let mut times = Vec::with_capacity(opts.calls);
        let mut pings = Vec::with_capacity(opts.calls);
        for _ in 0..opts.calls {
            times.push(s.round_trip_method("tools/list", json!({}))?.0);
            pings.push(s.round_trip_method("ping", json!({}))?.0);
        }
        s.close()?;
        (names, Stats::new(times), Stats::new(pings))
    };
    let have_tools = [
        "remember",
        "recall",
        "remember_decision",
        "recall_decisions",
    ]
    .iter()
    .all(|t| tools.iter().any(|n| n == t));

    let corpus = Corpus::new();
    let mut reports = Vec::new();
    let mut seed_note = String::from("not run: the server has no review tools yet");
    if have_tools {
        let seed_db = opts.shm.join("seed.db");
        let mut seeded = 0usize;
        let mut seed_time = Duration::ZERO;
        for &size in &opts.sizes {
            if size > seeded {
                eprintln!("bench: seeding {seeded} -> {size} records on tmpfs...");
                let t = Instant::now();
                let mut s = Server::spawn(&opts.bin, &seed_db)?;
                s.initialize()?;
                let lines: Vec<String> = (seeded..size).map(|i| corpus.seed_call(i)).collect();
                s.pipeline(lines)?;
                s.close()?;
                seed_time += t.elapsed();
                seeded = size;
            }
            eprintln!("bench: measuring at {size} records...");
            let disk_db = run_dir.join(format!("bench-{size}.db"));
            let shm_db = opts.shm.join(format!("bench-{size}.db"));
            copy_db(&seed_db, &disk_db, size)?;
            copy_db(&seed_db, &shm_db, size)?;
            let floor = durability::commit_floor(&run_dir, "WAL")?;
            let mut on_disk = measure_size(opts, &corpus, &disk_db, size, OPS.len())?;
            on_disk.floor = floor;
            // Only the writes touch the flush; the reads are repeated nowhere.
            let on_tmpfs = measure_size(opts, &corpus, &shm_db, size, 3)?;
            reports.push(merge(on_disk, on_tmpfs));
            for db in [&disk_db, &shm_db] {
                remove_db(db);
            }
        }
        if seeded > 0 {
            seed_note = format!(
                "{seeded} records through the pipe (pipelined tools/call) in {:.1} s: {:.0} records/s",
                seed_time.as_secs_f64(),
                seeded as f64 / seed_time.as_secs_f64()
            );
        } else {
            seed_note = "none (only size 0 requested)".into();
        }
    }

    let startup = Startup {
        init,
        init_new,
        journal_disk,
        journal_tmpfs,
        discover,
        exits,
        tools_list,
        ping,
        tool_count: tools.len(),
    };
    let table = render(&startup, &reports, have_tools);
    println!("review-mcp benchmark: `cargo run --release --example bench`");
    println!(
        "machine: {} cores ({}), {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model(),
        kernel()
    );
    println!(
        "durability: every write is committed with SQLite synchronous=FULL in the write-ahead log before it is answered, and checkpointed into review.db after the answer"
    );
    println!(
        "database: {} ({}); the smallest durable SQLite commit there (WAL, appending: one sync) takes {} (p50; re-measured before each size as \"floor\"), in tmpfs {}",
        opts.dir.display(),
        fs_type(&opts.dir),
        fmt_dur(floor),
        fmt_dur(shm_floor)
    );
    println!("seeding: {seed_note}; 90% records (half named), 10% decisions (4-item basis)");
    println!(
        "latencies: one request at a time, spawn-to-answer or write-to-answer on the host side, {} calls per figure",
        opts.calls
    );
    println!();
    print!("{table}");
    println!();
    print!("{}", request::rows(&opts.bin, &opts.dir)?);
    println!();
    print!(
        "{}",
        notify::rows(&opts.bin, &opts.shm, opts.idle, opts.calls)?
    );
    println!();
    println!(
        "total benchmark time: {:.0} s; load average (1 min) {} at the start, {} at the end, on {} cores",
        started.elapsed().as_secs_f64(),
        load_before,
        load_average(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
    );
    Ok(())
}

/// Spawn-to-first-answer for `initialize` and for `server/discover`, and exit times.
fn cold_starts(bin: &Path, db: &Path, runs: usize) -> Result<(Stats, Stats, Stats)> {
    let init = wire::initialize_line(1);
    let discover = wire::discover_line(1);
    // The database exists (a server opens it at its first query, so a start alone would not
    // create it); one untimed start warms the page cache of the binary.
    let mut s = Server::spawn(bin, db)?;
    s.initialize()?;
    s.round_trip_method(
        "tools/call",
        json!({"name": "remember", "arguments": {
            "artifact": {"revision": format!("sha256:{}", "0".repeat(64)), "format": "step"},
            "entity_ids": [], "note": "makes the file"}}),
    )?;
    s.close()?;
    Server::cold_start(bin, db, &init)?;
    let mut init_t = Vec::new();
    let mut disc_t = Vec::new();
    let mut exits = Vec::new();
    for _ in 0..runs {
        for (line, out) in [(&init, &mut init_t), (&discover, &mut disc_t)] {
            let (first, exit) = Server::cold_start(bin, db, line)?;
            out.push(first);
            exits.push(exit);
        }
    }
    Ok((Stats::new(init_t), Stats::new(disc_t), Stats::new(exits)))
}

/// Spawn-to-first-answer for `initialize` on a database path that does not exist yet (a new
/// directory each run): the handshake needs no database, so it costs what a start on an
/// existing file costs.
fn cold_starts_on_new_paths(bin: &Path, dir: &Path, runs: usize) -> Result<Stats> {
    let init = wire::initialize_line(1);
    let mut times = Vec::new();
    for i in 0..runs {
        let db = dir.join(format!("new-{i}")).join("review.db");
        let (first, _) = Server::cold_start(bin, &db, &init)?;
        times.push(first);
    }
    Ok(Stats::new(times))
}

/// All timed operations at one database size (the first `op_count` of [`OPS`]), with a fresh
/// server on `db`.
fn measure_size(
    opts: &Opts,
    corpus: &Corpus,
    db: &Path,
    size: usize,
    op_count: usize,
) -> Result<SizeReport> {
    let mut s = Server::spawn(&opts.bin, db)?;
    s.initialize()?;
    let n = opts.calls;
    // Writes first, each one new (a fresh name, a new note, a new subject), so the recalls
    // below also see them, exactly as a growing review does.
    let mut ops = Vec::new();
    for op in OPS.into_iter().take(op_count) {
        let cpu_before = s.cpu_time()?;
        let mut times = Vec::with_capacity(n);
        let mut answer_bytes = 0;
        let calls = (0..n).map(|k| op.call(corpus, size, k));
        if op.is_back_to_back() {
            (times, answer_bytes) = s.calls_back_to_back(calls.collect())?;
        } else {
            for (tool, args) in calls {
                let (t, _) = s.call(tool, args)?;
                times.push(t);
                answer_bytes += s.last_line_len();
            }
        }
        let cpu = s.cpu_time()?.saturating_sub(cpu_before) / u32::try_from(n.max(1))?;
        ops.push(OpFigures {
            op,
            disk: Stats::new(times),
            tmpfs: None,
            tmpfs_cpu: None,
            cpu,
            answer_bytes: answer_bytes / n.max(1),
        });
    }
    let (paging, completions) = if op_count == OPS.len() {
        let completions = complete::measure(&mut s, n)?;
        (Some(page_through(&mut s, opts.page_target)?), completions)
    } else {
        (None, Vec::new())
    };
    let hwm = s.vm_hwm()?;
    let exit = s.close()?;
    let records_at_end = size + op_count.min(3) * n;
    let bytes = db_bytes(db);
    Ok(SizeReport {
        size,
        ops,
        paging,
        hwm,
        bytes_per_record: bytes as f64 / records_at_end as f64,
        records_at_end,
        exit,
        floor: Duration::ZERO,
        completions,
    })
}

/// `call` with its `limit` argument set.
fn with_limit((tool, mut args): (&'static str, Value), limit: u64) -> (&'static str, Value) {
    args["limit"] = json!(limit);
    (tool, args)
}

/// Follows `next_cursor` through the `sweep` tag (one record in ten) until it is absent or
/// `target` records were read; returns (records, time).
fn page_through(s: &mut Server, target: usize) -> Result<(usize, Duration)> {
    let mut cursor: Option<String> = None;
    let mut got = 0usize;
    let mut total = Duration::ZERO;
    loop {
        let mut args = json!({"tags": ["sweep"], "limit": 200});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let (t, out) = s.call("recall", args)?;
        total += t;
        got += out
            .get("records")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        cursor = out
            .get("next_cursor")
            .and_then(Value::as_str)
            .map(str::to_string);
        if cursor.is_none() || got >= target {
            return Ok((got, total));
        }
    }
}

/// Keeps the disk figures, and adds the tmpfs p50 of each operation next to them.
fn merge(mut disk: SizeReport, tmpfs: SizeReport) -> SizeReport {
    for figures in &mut disk.ops {
        let twin = tmpfs.ops.iter().find(|t| t.op == figures.op);
        figures.tmpfs = twin.map(|t| t.disk.clone());
        figures.tmpfs_cpu = twin.map(|t| t.cpu);
    }
    disk
}

fn render(startup: &Startup, reports: &[SizeReport], have_tools: bool) -> String {
    let mut rows = Vec::new();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let verdict = |ok: bool| if ok { "PASS" } else { "MISS" }.to_string();

    let Startup {
        init,
        init_new,
        journal_disk,
        journal_tmpfs,
        discover,
        exits,
        tools_list,
        ping,
        tool_count,
    } = startup;
    for (label, st) in [
        ("cold start: initialize", init),
        ("cold start: server/discover", discover),
    ] {
        let mut r = Row::new(label);
        r.p50 = fmt_dur(st.p50());
        r.p99 = format!("max {}", fmt_dur(st.max()));
        r.target = "≤ 3 ms".into();
        r.verdict = verdict(us(st.p50()) <= 3000.0);
        rows.push(r);
    }
    let mut r = Row::new("cold start: initialize, new path");
    r.p50 = fmt_dur(init_new.p50());
    r.p99 = format!("max {}", fmt_dur(init_new.max()));
    let ratio = init_new.p50().as_secs_f64() / init.p50().as_secs_f64();
    r.target = "≤ 1.5x existing".into();
    r.verdict = format!("{ratio:.2}x: {}", verdict(ratio <= 1.5));
    rows.push(r);
    for (label, cost) in [
        ("remember (named), store only, WAL (this version)", false),
        (
            "remember (named), store only, rollback journal (previous version)",
            true,
        ),
    ] {
        let pick = |c: &journal::JournalCost| {
            if cost {
                c.persist.clone()
            } else {
                c.wal.clone()
            }
        };
        let (d, t) = (pick(journal_disk), pick(journal_tmpfs));
        let mut r = Row::new(label);
        r.p50 = fmt_dur(d.p50());
        r.p99 = fmt_dur(d.p99());
        r.tmpfs = fmt_dur(t.p50());
        if cost {
            r.verdict = format!(
                "{} of WAL (tmpfs {})",
                journal::ratio(journal_disk),
                journal::ratio(journal_tmpfs)
            );
        }
        rows.push(r);
    }
    let mut r = Row::new("exit after stdin closes (empty db)");
    r.p50 = fmt_dur(exits.p50());
    r.p99 = format!("max {}", fmt_dur(exits.max()));
    r.target = "≤ 2 ms".into();
    r.verdict = verdict(us(exits.p50()) <= 2000.0);
    rows.push(r);
    let mut r = Row::new(format!("tools/list round trip ({tool_count} tools)"));
    r.p50 = fmt_dur(tools_list.p50());
    r.p99 = fmt_dur(tools_list.p99());
    r.target = "≤ 40 µs".into();
    r.verdict = verdict(us(tools_list.p50()) <= 40.0);
    rows.push(r);
    let mut r = Row::new("ping round trip (pipe + scheduler floor)");
    r.p50 = fmt_dur(ping.p50());
    r.p99 = fmt_dur(ping.p99());
    rows.push(r);

    if !have_tools || reports.is_empty() {
        let mut r = Row::new("review tools");
        r.p50 = "not measured: the server lists no review tools yet".into();
        rows.push(r);
    }

    let at0 = reports.iter().find(|r| r.size == 0);
    let at100k = reports.iter().find(|r| r.size == 100_000);
    for op in OPS {
        for rep in reports {
            let Some(OpFigures {
                disk: st,
                tmpfs: tmp,
                cpu,
                answer_bytes,
                ..
            }) = rep.ops.iter().find(|f| f.op == op)
            else {
                continue;
            };
            let mut r = Row::new(op.label());
            r.records = rep.size.to_string();
            r.p50 = fmt_dur(st.p50());
            r.p99 = fmt_dur(st.p99());
            r.tmpfs = tmp.as_ref().map(|t| fmt_dur(t.p50())).unwrap_or_default();
            r.cpu = fmt_dur(*cpu);
            r.answer = fmt_bytes(*answer_bytes);
            if let Some((limit, text)) = op.target_us(rep.size) {
                r.target = text.into();
                let disk_ok = us(st.p50()) <= limit;
                r.verdict = verdict(disk_ok);
                if op.is_write() && !disk_ok {
                    let cpu_ok = tmp.as_ref().is_some_and(|t| us(t.p50()) <= limit);
                    r.verdict = format!(
                        "MISS (floor {}); tmpfs {}",
                        fmt_dur(rep.floor),
                        verdict(cpu_ok)
                    );
                }
            }
            rows.push(r);
        }
        if matches!(op, Op::RememberNamed | Op::RememberAnon)
            && let (Some(a), Some(b)) = (at0, at100k)
        {
            let p = |rep: &SizeReport, tmpfs: bool| {
                rep.ops
                    .iter()
                    .find(|f| f.op == op)
                    .and_then(|f| {
                        if tmpfs {
                            f.tmpfs.clone()
                        } else {
                            Some(f.disk.clone())
                        }
                    })
                    .map_or(f64::NAN, |s| us(s.p50()))
            };
            let cpu = |rep: &SizeReport| {
                rep.ops
                    .iter()
                    .find(|f| f.op == op)
                    .and_then(|f| f.tmpfs_cpu)
                    .map_or(f64::NAN, us)
            };
            let ratio = p(b, false) / p(a, false);
            let ratio_tmp = p(b, true) / p(a, true);
            let ratio_cpu = cpu(b) / cpu(a);
            let mut r = Row::new(format!("  {} 100k/0 ratio", op.label()));
            r.p50 = format!("{ratio:.2}x");
            r.tmpfs = format!("{ratio_tmp:.2}x");
            r.cpu = format!("{ratio_cpu:.2}x (tmpfs)");
            r.target = "≤ 1.5x".into();
            // On disk both ends are bound by the flush, whose latency drifts with the
            // machine's other I/O (see each size's floor): only the tmpfs ratio says
            // whether the server slows down as the data grows.
            r.verdict = format!("tmpfs {} (disk: flush-bound)", verdict(ratio_tmp <= 1.5));
            rows.push(r);
        }
    }
    let completions: Vec<(usize, &[complete::Figures])> = reports
        .iter()
        .map(|r| (r.size, r.completions.as_slice()))
        .collect();
    rows.extend(complete::rows(&completions, fmt_dur));
    for rep in reports {
        if let Some((n, t)) = rep.paging {
            let mut r = Row::new(format!("paging next_cursor ({n} matches, 200/page)"));
            r.records = rep.size.to_string();
            r.p50 = format!("{:.0} records/s", n as f64 / t.as_secs_f64());
            r.p99 = format!("total {}", fmt_dur(t));
            rows.push(r);
        }
    }
    for rep in reports {
        let mut r = Row::new("peak resident memory (VmHWM)");
        r.records = rep.size.to_string();
        r.p50 = format!("{:.1} MiB", rep.hwm as f64 / 1024.0 / 1024.0);
        if rep.size == 100_000 {
            r.target = "≤ 16 MiB".into();
            r.verdict = verdict(rep.hwm <= 16 * 1024 * 1024);
        }
        rows.push(r);
    }
    for rep in reports {
        let mut r = Row::new("bytes on disk per record (db file)");
        r.records = rep.records_at_end.to_string();
        r.p50 = format!("{:.0} B", rep.bytes_per_record);
        rows.push(r);
    }
    for rep in reports {
        let mut r = Row::new("exit after stdin closes (after the run)");
        r.records = rep.records_at_end.to_string();
        r.p50 = fmt_dur(rep.exit);
        r.target = "≤ 2 ms".into();
        r.verdict = verdict(us(rep.exit) <= 2000.0);
        rows.push(r);
    }
    format_table(&rows)
}

/// An answer's size: bytes below 10 kB, kB above.
fn fmt_bytes(n: usize) -> String {
    if n < 10_000 {
        format!("{n} B")
    } else {
        format!("{:.1} kB", n as f64 / 1000.0)
    }
}

fn format_table(rows: &[Row]) -> String {
    let header = Row {
        what: "measure".into(),
        records: "records".into(),
        p50: "p50".into(),
        p99: "p99".into(),
        tmpfs: "p50 tmpfs".into(),
        cpu: "server CPU/call".into(),
        answer: "answer".into(),
        target: "target".into(),
        verdict: "verdict".into(),
    };
    let cells = |r: &Row| {
        [
            r.what.clone(),
            r.records.clone(),
            r.p50.clone(),
            r.p99.clone(),
            r.tmpfs.clone(),
            r.cpu.clone(),
            r.answer.clone(),
            r.target.clone(),
            r.verdict.clone(),
        ]
    };
    let all: Vec<[String; 9]> = std::iter::once(&header).chain(rows).map(cells).collect();
    let mut widths = [0usize; 9];
    for row in &all {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for (i, row) in all.iter().enumerate() {
        let mut line = String::from("|");
        for (c, w) in row.iter().zip(widths) {
            let pad = w - c.chars().count();
            let _ = write!(line, " {c}{} |", " ".repeat(pad));
        }
        out.push_str(&line);
        out.push('\n');
        if i == 0 {
            let mut sep = String::from("|");
            for w in widths {
                let _ = write!(sep, "{}|", "-".repeat(w + 2));
            }
            out.push_str(&sep);
            out.push('\n');
        }
    }
    out
}

fn fmt_dur(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.0} µs")
    } else if us < 1_000_000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

/// The load average of the last minute: the machine is shared, and every figure above it is
/// inflated by whatever else runs.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

fn wal_of(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push("-wal");
    PathBuf::from(s)
}

fn shm_of(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push("-shm");
    PathBuf::from(s)
}

/// Copies a closed database (and its WAL, if the server left one) to `to`.
fn copy_db(from: &Path, to: &Path, size: usize) -> Result<()> {
    remove_db(to);
    if size == 0 && !from.exists() {
        return Ok(());
    }
    fs::copy(from, to).with_context(|| format!("copying {}", from.display()))?;
    if wal_of(from).exists() {
        fs::copy(wal_of(from), wal_of(to))?;
    }
    Ok(())
}

fn remove_db(db: &Path) {
    let mut journal = db.as_os_str().to_owned();
    journal.push("-journal");
    for p in [
        db.to_path_buf(),
        wal_of(db),
        shm_of(db),
        PathBuf::from(journal),
    ] {
        let _ = fs::remove_file(p);
    }
}

fn db_bytes(db: &Path) -> u64 {
    [db.to_path_buf(), wal_of(db)]
        .iter()
        .filter_map(|p| fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

/// The filesystem type of the mount holding `dir`, from /proc/mounts.
fn fs_type(dir: &Path) -> String {
    let dir = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mounts = fs::read_to_string("/proc/mounts").unwrap_or_default();
    let mut best: Option<(usize, String)> = None;
    for line in mounts.lines() {
        let mut parts = line.split_whitespace();
        let (Some(_dev), Some(mnt), Some(ty)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if dir.starts_with(mnt) && best.as_ref().is_none_or(|(len, _)| mnt.len() > *len) {
            best = Some((mnt.len(), ty.to_string()));
        }
    }
    best.map_or_else(|| "unknown filesystem".into(), |(_, t)| t)
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn kernel() -> String {
    fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| format!("Linux {}", s.trim()))
        .unwrap_or_default()
}
