//! The reliability scenarios, each run at a scale: small in `cargo test`, large in the stress
//! command. Every scenario drives the real binary over pipes and fails (an `Err`) on the first
//! broken promise; on success it returns the figures it measured.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};

use super::client::{self, Answer, Server};
use super::{
    Rng, TempDir, artifact, basis, check_database, decision_summary, decision_write_index,
    record_write_index, sha256_file, torn_decision,
};

// ---------------------------------------------------------------------------------------------
// SIGKILL while writing
// ---------------------------------------------------------------------------------------------

pub struct KillScale {
    pub seed: u64,
    pub cycles: usize,
    /// Writes queued per cycle; the kill always comes before the last of them is answered.
    pub writes_per_cycle: usize,
    /// The kill lands after a random number of answers below this, plus up to 2 ms.
    pub max_answers_before_kill: usize,
}

#[derive(Debug, Default)]
pub struct KillFigures {
    pub cycles: usize,
    pub kills: usize,
    pub writes_sent: usize,
    pub writes_answered: usize,
    /// Decisions read back after restarts, each checked whole.
    pub decisions_checked: usize,
}

/// What one queued write is, so the verifier knows what to look for.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// A named feature in one of a few slots: later writes replace earlier ones.
    Named { slot: usize },
    /// An anonymous note: each one appends.
    Note,
    /// A decision with a subject of its own.
    Decision,
    /// A decision in one of a few subjects at one revision: later writes replace earlier ones.
    DecisionSlot { slot: usize },
}

struct Cycle {
    index: usize,
    artifact: Value,
    kinds: Vec<Kind>,
    /// Indices (into `kinds`) of the writes whose answer came back.
    answered: BTreeSet<usize>,
}

const SLOTS: usize = 4;

fn plan_cycle(rng: &mut Rng, index: usize, writes: usize) -> (Cycle, Vec<String>) {
    let artifact = artifact(
        &format!("kill-{index}"),
        &format!("/reliability/kill/cycle-{index}.step"),
    );
    let mut kinds = Vec::with_capacity(writes);
    let mut lines = Vec::with_capacity(writes);
    for w in 0..writes {
        let n = rng.below(7);
        let (kind, tool, args) = match rng.below(4) {
            0 => {
                let slot = rng.below(SLOTS);
                let args = json!({"artifact": artifact, "entity_ids": [format!("face:{w}")],
                    "name": format!("slot{slot}"), "note": format!("named write {w}"),
                    "tags": ["kill", format!("w{w}")]});
                (Kind::Named { slot }, "remember", args)
            }
            1 => {
                let args = json!({"artifact": artifact, "entity_ids": [format!("face:{w}"), "edge:1"],
                    "note": format!("note write {w}"), "tags": ["kill", format!("w{w}")]});
                (Kind::Note, "remember", args)
            }
            2 => {
                let args = json!({"artifact": artifact, "subject": format!("decision {w}"),
                    "disposition": "hold", "summary": decision_summary(w, n), "basis": basis(n)});
                (Kind::Decision, "remember_decision", args)
            }
            _ => {
                let slot = rng.below(SLOTS);
                let args = json!({"artifact": artifact, "subject": format!("slot{slot}"),
                    "disposition": "release", "summary": decision_summary(w, n), "basis": basis(n)});
                (Kind::DecisionSlot { slot }, "remember_decision", args)
            }
        };
        kinds.push(kind);
        // Request id = write index + 1 (0 is the handshake).
        lines.push(client::tool_call_line(w as u64 + 1, tool, &args));
    }
    (
        Cycle {
            index,
            artifact,
            kinds,
            answered: BTreeSet::new(),
        },
        lines,
    )
}

/// Starts a server, streams `lines` at it from one thread, reads answers on another, and
/// SIGKILLs it after `kill_after` answers plus `delay`. Returns every answer received.
fn write_until_killed(
    db: &Path,
    lines: Vec<String>,
    kill_after: usize,
    delay: Duration,
) -> anyhow::Result<Vec<(u64, Answer)>> {
    let stderr_path = client::stderr_path_for(db);
    let server = Server::spawn(db, &stderr_path)?;
    let (mut child, mut stdin, mut stdout) = server.into_parts()?;
    let (hold, held) = mpsc::channel::<()>();
    let writer = std::thread::spawn(move || {
        let mut all: Vec<String> = client::handshake_lines().to_vec();
        all.extend(lines);
        for line in all {
            // After the kill the pipe is broken: stop quietly.
            if stdin.write_all(line.as_bytes()).is_err() || stdin.write_all(b"\n").is_err() {
                return;
            }
            let _ = stdin.flush();
        }
        // Keep stdin open until the kill: EOF would end the server first.
        let _ = held.recv();
    });
    let (tx, rx) = mpsc::channel::<usize>();
    let reader = std::thread::spawn(move || -> anyhow::Result<Vec<(u64, Answer)>> {
        let mut answers = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            // A last line without its newline was cut by the kill: the client never got that
            // answer whole, so it does not count as received.
            if stdout.read_line(&mut line)? == 0 || !line.ends_with('\n') {
                return Ok(answers);
            }
            let response: Value = serde_json::from_str(&line)
                .with_context(|| format!("a line that is not JSON: {line:?}"))?;
            // What the session is told of its own writes: not an answer.
            if response.get("method").is_some() && response.get("id").is_none() {
                continue;
            }
            let id = response["id"]
                .as_u64()
                .context("an answer without an integer id")?;
            if id > 0 {
                answers.push((id, Answer::from_response(&response)));
                let _ = tx.send(answers.len());
            }
        }
    });
    let mut seen = 0;
    while seen < kill_after {
        match rx.recv() {
            Ok(n) => seen = n,
            Err(_) => break, // the reader ended: the server is gone already
        }
    }
    std::thread::sleep(delay);
    child.kill().context("SIGKILL")?;
    let status = child.wait()?;
    drop(hold);
    // Anything but our SIGKILL means the server died on its own (a crash).
    ensure!(
        status.signal() == Some(9),
        "the server was not running when the kill came: {status}; stderr: {}",
        std::fs::read_to_string(&stderr_path).unwrap_or_default()
    );
    let answers = reader
        .join()
        .map_err(|_| anyhow::anyhow!("reader thread panicked"))??;
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("writer thread panicked"))?;
    Ok(answers)
}

/// Checks one cycle against what a fresh server recalls: every answered write present, named
/// slots hold the last answered write or a later one, nothing doubled, no torn decision.
/// Returns how many decisions it checked.
fn verify_cycle(server: &mut Server, cycle: &Cycle) -> anyhow::Result<usize> {
    let c = cycle.index;
    let records = server.page_all(
        "recall",
        json!({"artifact": cycle.artifact, "limit": 200}),
        "records",
    )?;
    let decisions = server.page_all(
        "recall_decisions",
        json!({"artifact": cycle.artifact, "limit": 200, "detail": "full", "current_only": false}),
        "decisions",
    )?;

    let mut by_write: HashMap<usize, usize> = HashMap::new();
    let mut named: HashMap<String, Vec<usize>> = HashMap::new();
    for r in &records {
        let w = record_write_index(r).with_context(|| format!("cycle {c}: record {r}"))?;
        let kind = cycle
            .kinds
            .get(w)
            .with_context(|| format!("cycle {c}: unknown write {w}"))?;
        *by_write.entry(w).or_default() += 1;
        match (kind, r["name"].as_str()) {
            (Kind::Named { slot }, Some(name)) if name == format!("slot{slot}") => {
                named.entry(name.to_string()).or_default().push(w);
            }
            (Kind::Note, None) => {}
            _ => bail!("cycle {c}: record {r} does not match write {w} ({kind:?})"),
        }
    }
    if let Some((w, n)) = by_write.iter().find(|(_, n)| **n > 1) {
        bail!("cycle {c}: write {w} is present {n} times");
    }
    let mut subjects: HashMap<String, Vec<usize>> = HashMap::new();
    for d in &decisions {
        if let Some(why) = torn_decision(d) {
            bail!("cycle {c}: {why}");
        }
        let w = decision_write_index(d).with_context(|| format!("cycle {c}: decision {d}"))?;
        let subject = d["subject"].as_str().unwrap_or_default().to_string();
        match cycle.kinds.get(w) {
            Some(Kind::Decision) if subject == format!("decision {w}") => {}
            Some(Kind::DecisionSlot { slot }) if subject == format!("slot{slot}") => {}
            other => bail!("cycle {c}: decision {d} does not match write {w} ({other:?})"),
        }
        subjects.entry(subject).or_default().push(w);
    }
    if let Some((s, ws)) = subjects.iter().find(|(_, ws)| ws.len() > 1) {
        bail!(
            "cycle {c}: subject {s:?} has {} decisions at one revision: {ws:?}",
            ws.len()
        );
    }
    if let Some((s, ws)) = named.iter().find(|(_, ws)| ws.len() > 1) {
        bail!("cycle {c}: name {s:?} has {} rows: writes {ws:?}", ws.len());
    }

    // Every answered write must be there (or, for a slot, superseded by a later write).
    let mut last_answered_slot: BTreeMap<String, usize> = BTreeMap::new();
    for &w in &cycle.answered {
        match &cycle.kinds[w] {
            Kind::Note => {
                if by_write.get(&w) != Some(&1) {
                    bail!("cycle {c}: answered note write {w} is missing");
                }
            }
            Kind::Decision => {
                if !subjects.contains_key(&format!("decision {w}")) {
                    bail!("cycle {c}: answered decision write {w} is missing");
                }
            }
            Kind::Named { slot } => {
                last_answered_slot.insert(format!("name slot{slot}"), w);
            }
            Kind::DecisionSlot { slot } => {
                last_answered_slot.insert(format!("subject slot{slot}"), w);
            }
        }
    }
    for (key, &w) in &last_answered_slot {
        let (what, name) = key.split_once(' ').unwrap_or_default();
        let present = if what == "name" {
            named.get(name)
        } else {
            subjects.get(name)
        };
        match present.and_then(|ws| ws.first()) {
            Some(&p) if p >= w => {}
            Some(&p) => {
                bail!("cycle {c}: {key} holds write {p}, but write {w} was answered later");
            }
            None => {
                bail!("cycle {c}: {key} is missing; write {w} was answered");
            }
        }
    }
    Ok(decisions.len())
}

pub fn kill_while_writing(scale: &KillScale) -> anyhow::Result<KillFigures> {
    let dir = TempDir::new("kill")?;
    let db = dir.join("review.db");
    let mut rng = Rng::new(scale.seed);
    let mut figures = KillFigures::default();
    let mut cycles = Vec::new();
    for index in 0..scale.cycles {
        let (mut cycle, lines) = plan_cycle(&mut rng, index, scale.writes_per_cycle);
        let kill_after = rng.below(scale.max_answers_before_kill);
        let delay = Duration::from_micros(rng.below(2_000) as u64);
        let answers = write_until_killed(&db, lines, kill_after, delay)
            .with_context(|| format!("cycle {index} (seed {})", scale.seed))?;
        figures.kills += 1;
        figures.writes_sent += cycle.kinds.len();
        for (id, answer) in answers {
            let w = (id - 1) as usize;
            ensure!(
                answer.is_ok(),
                "cycle {index}: write {w} answered {answer:?} before the kill"
            );
            cycle.answered.insert(w);
        }
        figures.writes_answered += cycle.answered.len();

        // Restart on the same file and check this cycle.
        let mut server =
            Server::start(&db).with_context(|| format!("restart after kill {index}"))?;
        figures.decisions_checked += verify_cycle(&mut server, &cycle)?;
        let status = server.close()?;
        ensure!(status.success(), "verifying server exited with {status}");
        check_database(&db).with_context(|| format!("after kill {index}"))?;
        cycles.push(cycle);
        figures.cycles += 1;
    }
    // One last look at every cycle: later kills must not have damaged earlier writes.
    let mut server = Server::start(&db)?;
    for cycle in &cycles {
        verify_cycle(&mut server, cycle).context("final pass")?;
    }
    server.close()?;
    check_database(&db)?;
    Ok(figures)
}

// ---------------------------------------------------------------------------------------------
// Several servers on one file
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
pub struct ConcurrencyScale {
    pub processes: usize,
    pub writes_per_process: usize,
    /// Names every process replaces, on a locator of their own.
    pub shared_names: usize,
    pub shared_writes_per_process: usize,
    /// A read (recall_decisions + recall) after every this many writes.
    pub read_every: usize,
    /// Extra processes that stream writes of their own and are SIGKILLed mid-stream,
    /// `victim_kills` times each, while the others write: a host crashing must cost the
    /// others nothing (no error, no lock left behind).
    pub victims: usize,
    pub victim_kills: usize,
    pub seed: u64,
}

#[derive(Debug, Default)]
pub struct ConcurrencyFigures {
    pub processes: usize,
    pub writes_answered: usize,
    pub writes_present: usize,
    pub shared_replacements: usize,
    pub reads: usize,
    pub decisions_read: usize,
    pub errors: usize,
    pub victim_kills: usize,
    pub victim_writes_answered: usize,
}

/// One shared-name write as its writer saw it.
#[derive(Debug, Clone)]
struct SharedWrite {
    process: usize,
    seq: usize,
    name: String,
    note: String,
    replaced: bool,
    created_at: String,
}

#[derive(Default)]
struct WriterLog {
    answered: usize,
    errors: Vec<String>,
    reads: usize,
    decisions_read: usize,
    shared: Vec<SharedWrite>,
}

fn main_artifact() -> Value {
    artifact("concurrency-main", "/reliability/concurrency/main.step")
}

fn shared_artifact() -> Value {
    artifact("concurrency-shared", "/reliability/concurrency/shared.step")
}

/// Reads the newest decisions and checks each against its writer's promise.
fn read_decisions(server: &mut Server, limit: u64, log: &mut WriterLog) -> anyhow::Result<()> {
    let answer = server.call(
        "recall_decisions",
        json!({"artifact": main_artifact(), "limit": limit, "detail": "full", "current_only": false}),
    )?;
    log.reads += 1;
    match answer {
        Answer::Ok(page) => {
            for d in page["decisions"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                log.decisions_read += 1;
                if let Some(why) = torn_decision(d) {
                    bail!("a reader saw a half-written decision: {why}");
                }
            }
        }
        other => log.errors.push(format!("recall_decisions: {other:?}")),
    }
    Ok(())
}

fn run_writer(db: &Path, p: usize, scale: &ConcurrencyScale) -> anyhow::Result<WriterLog> {
    let mut server = Server::start(db)?;
    let mut log = WriterLog::default();
    let main = main_artifact();
    let shared = shared_artifact();
    let shared_every = (scale.writes_per_process / scale.shared_writes_per_process.max(1)).max(1);
    let mut shared_seq = 0;
    for w in 0..scale.writes_per_process {
        let (tool, args) = match w % 3 {
            0 => {
                let n = 1 + (w / 3) % 6;
                (
                    "remember_decision",
                    json!({"artifact": main, "subject": format!("p{p} decision {w}"),
                    "disposition": "hold", "summary": decision_summary(w, n), "basis": basis(n)}),
                )
            }
            1 => (
                "remember",
                json!({"artifact": main, "entity_ids": [format!("face:{w}")],
                "note": format!("p{p} note {w}"), "tags": [format!("p{p}"), format!("w{w}")]}),
            ),
            _ => (
                "remember",
                json!({"artifact": main, "entity_ids": [format!("face:{w}")],
                "name": format!("p{p} feature {w}"), "note": "unique name",
                "tags": [format!("p{p}"), format!("w{w}")]}),
            ),
        };
        match server.call(tool, args)? {
            Answer::Ok(_) => log.answered += 1,
            other => log.errors.push(format!("{tool} write {w}: {other:?}")),
        }
        if w % shared_every == 0 && shared_seq < scale.shared_writes_per_process {
            let name = format!("shared {}", (p + shared_seq) % scale.shared_names.max(1));
            let note = format!("p{p} seq {shared_seq}");
            let args = json!({"artifact": shared, "entity_ids": [], "name": name, "note": note});
            match server.call("remember", args)? {
                Answer::Ok(v) => log.shared.push(SharedWrite {
                    process: p,
                    seq: shared_seq,
                    name,
                    note,
                    replaced: v["replaced"] == json!(true),
                    created_at: v["record"]["created_at"]
                        .as_str()
                        .unwrap_or_default()
                        .into(),
                }),
                other => log
                    .errors
                    .push(format!("shared write {shared_seq}: {other:?}")),
            }
            shared_seq += 1;
        }
        if w % scale.read_every.max(1) == 0 {
            read_decisions(&mut server, 50, &mut log)?;
            match server.call("recall", json!({"artifact": main, "limit": 20}))? {
                Answer::Ok(_) => log.reads += 1,
                other => log.errors.push(format!("recall: {other:?}")),
            }
        }
    }
    let status = server.close()?;
    ensure!(status.success(), "writer {p} exited with {status}");
    Ok(log)
}

pub fn concurrent_servers(scale: &ConcurrencyScale) -> anyhow::Result<ConcurrencyFigures> {
    let dir = TempDir::new("concurrency")?;
    let db = Arc::new(dir.join("review.db"));
    let done = Arc::new(AtomicBool::new(false));

    // A reader process of its own, re-reading the newest decisions for as long as anyone
    // writes. Every decision it sees must be whole.
    let reader = {
        let (db, done) = (Arc::clone(&db), Arc::clone(&done));
        std::thread::spawn(move || -> anyhow::Result<WriterLog> {
            let mut server = Server::start(&db)?;
            let mut log = WriterLog::default();
            while !done.load(Ordering::Acquire) || log.reads < 3 {
                read_decisions(&mut server, 200, &mut log)?;
            }
            server.close()?;
            Ok(log)
        })
    };
    let victims: Vec<_> = (0..scale.victims)
        .map(|v| {
            let db = Arc::clone(&db);
            let scale = *scale;
            std::thread::spawn(move || run_victim(&db, v, &scale))
        })
        .collect();
    let writers: Vec<_> = (0..scale.processes)
        .map(|p| {
            let db = Arc::clone(&db);
            let scale = *scale;
            std::thread::spawn(move || run_writer(&db, p, &scale))
        })
        .collect();
    let mut victim_cycles = Vec::new();
    for (v, handle) in victims.into_iter().enumerate() {
        let cycles = handle
            .join()
            .map_err(|_| anyhow::anyhow!("victim {v} panicked"))?
            .with_context(|| format!("victim {v}"))?;
        victim_cycles.extend(cycles);
    }
    let mut logs = Vec::new();
    let mut failure = None;
    for (p, w) in writers.into_iter().enumerate() {
        match w.join() {
            Ok(Ok(log)) => logs.push(log),
            Ok(Err(e)) => failure = failure.or(Some(e.context(format!("writer {p}")))),
            Err(_) => failure = failure.or(Some(anyhow::anyhow!("writer {p} panicked"))),
        }
    }
    done.store(true, Ordering::Release);
    let reader_log = reader
        .join()
        .map_err(|_| anyhow::anyhow!("reader panicked"))?
        .context("reader")?;
    if let Some(e) = failure {
        return Err(e);
    }

    let mut figures = ConcurrencyFigures {
        processes: scale.processes,
        reads: reader_log.reads,
        decisions_read: reader_log.decisions_read,
        errors: reader_log.errors.len(),
        ..Default::default()
    };
    figures.victim_kills = victim_cycles.len();
    figures.victim_writes_answered = victim_cycles.iter().map(|c| c.answered.len()).sum();
    let mut errors: Vec<String> = reader_log.errors;
    let mut shared: Vec<SharedWrite> = Vec::new();
    for log in logs {
        figures.writes_answered += log.answered;
        figures.reads += log.reads;
        figures.decisions_read += log.decisions_read;
        figures.errors += log.errors.len();
        figures.shared_replacements += log.shared.len();
        errors.extend(log.errors);
        shared.extend(log.shared);
    }
    ensure!(
        errors.is_empty(),
        "{} errors answered, first: {}",
        errors.len(),
        errors[0]
    );

    // Everything written is there, exactly once.
    let mut server = Server::start(&db)?;
    let records = server.page_all(
        "recall",
        json!({"artifact": main_artifact(), "limit": 200}),
        "records",
    )?;
    let decisions = server.page_all(
        "recall_decisions",
        json!({"artifact": main_artifact(), "limit": 200, "detail": "full", "current_only": false}),
        "decisions",
    )?;
    let mut keys = BTreeSet::new();
    for r in &records {
        let w = record_write_index(r).with_context(|| format!("record {r}"))?;
        let p = r["tags"]
            .as_array()
            .and_then(|t| {
                t.iter()
                    .filter_map(Value::as_str)
                    .find(|t| t.starts_with('p'))
            })
            .with_context(|| format!("record {r}"))?
            .to_string();
        ensure!(keys.insert(format!("{p} w{w}")), "record {p} w{w} twice");
    }
    for d in &decisions {
        if let Some(why) = torn_decision(d) {
            bail!("after the run: {why}");
        }
        let subject = d["subject"].as_str().unwrap_or_default().to_string();
        ensure!(keys.insert(subject.clone()), "decision {subject:?} twice");
    }
    figures.writes_present = keys.len();
    let expected = scale.processes * scale.writes_per_process;
    ensure!(
        figures.writes_present == expected && figures.writes_answered == expected,
        "{expected} writes made, {} answered, {} present",
        figures.writes_answered,
        figures.writes_present
    );

    // Shared names: one row each, holding some process's last write to it, created once.
    let rows = server.page_all(
        "recall",
        json!({"artifact": shared_artifact(), "limit": 200}),
        "records",
    )?;
    let mut by_name: BTreeMap<String, Vec<&SharedWrite>> = BTreeMap::new();
    for s in &shared {
        by_name.entry(s.name.clone()).or_default().push(s);
    }
    ensure!(
        rows.len() == by_name.len(),
        "{} rows for {} shared names: {rows:?}",
        rows.len(),
        by_name.len()
    );
    for row in &rows {
        let name = row["name"].as_str().context("shared row without a name")?;
        let writes = by_name
            .get(name)
            .with_context(|| format!("unexpected shared row {row}"))?;
        let firsts: Vec<_> = writes.iter().filter(|s| !s.replaced).collect();
        ensure!(
            firsts.len() == 1,
            "{name:?}: {} writes answered replaced=false (one writer would answer it once)",
            firsts.len()
        );
        ensure!(
            row["created_at"].as_str() == Some(firsts[0].created_at.as_str()),
            "{name:?}: created_at changed from {} to {}",
            firsts[0].created_at,
            row["created_at"]
        );
        // The row's value is the last write of one of the processes that wrote the name.
        let mut last_per_process: HashMap<usize, &SharedWrite> = HashMap::new();
        for s in writes {
            let e = last_per_process.entry(s.process).or_insert(s);
            if s.seq > e.seq {
                *e = s;
            }
        }
        let note = row["note"].as_str().unwrap_or_default();
        ensure!(
            last_per_process.values().any(|s| s.note == note),
            "{name:?} holds {note:?}, which is no process's last write to it"
        );
    }
    // What the killed processes were answered is there too.
    for cycle in &victim_cycles {
        verify_cycle(&mut server, cycle).context("a killed process's writes")?;
    }
    server.close()?;
    check_database(&db)?;
    Ok(figures)
}

/// A process that streams writes and is SIGKILLed mid-stream, `victim_kills` times.
fn run_victim(db: &Path, v: usize, scale: &ConcurrencyScale) -> anyhow::Result<Vec<Cycle>> {
    let mut rng = Rng::new(scale.seed ^ (v as u64 + 1).wrapping_mul(0x9E37_79B9));
    let mut cycles = Vec::new();
    for round in 0..scale.victim_kills {
        let (mut cycle, lines) = plan_cycle(&mut rng, 1_000 * (v + 1) + round, 80);
        let kill_after = rng.below(60);
        let delay = Duration::from_micros(rng.below(2_000) as u64);
        for (id, answer) in write_until_killed(db, lines, kill_after, delay)? {
            let w = (id - 1) as usize;
            ensure!(answer.is_ok(), "victim {v} write {w} answered {answer:?}");
            cycle.answered.insert(w);
        }
        cycles.push(cycle);
    }
    Ok(cycles)
}

/// `processes` servers started at the same instant on a file that does not exist yet, each
/// writing once, `rounds` times: creating and initialising the file is a race they must all
/// win (no refusal, no error, every write present).
pub fn startup_race(rounds: usize, processes: usize) -> anyhow::Result<usize> {
    let mut started = 0;
    for round in 0..rounds {
        let dir = TempDir::new("startup-race")?;
        let db = Arc::new(dir.join("sub").join("review.db"));
        let barrier = Arc::new(std::sync::Barrier::new(processes));
        let handles: Vec<_> = (0..processes)
            .map(|p| {
                let (db, barrier) = (Arc::clone(&db), Arc::clone(&barrier));
                // Beside the directory the servers create, which does not exist yet.
                let log = dir.join(&format!("p{p}.stderr"));
                std::thread::spawn(move || -> anyhow::Result<()> {
                    barrier.wait();
                    let mut server = Server::start_logging_to(&db, &log)?;
                    let art = artifact("startup-race", "/reliability/startup-race.step");
                    server
                        .call(
                            "remember",
                            json!({"artifact": art, "entity_ids": [], "note": format!("p{p}")}),
                        )?
                        .ok()?;
                    let status = server.close()?;
                    ensure!(status.success(), "exited with {status}");
                    Ok(())
                })
            })
            .collect();
        for (p, h) in handles.into_iter().enumerate() {
            h.join()
                .map_err(|_| anyhow::anyhow!("process {p} panicked"))?
                .with_context(|| format!("round {round}, process {p}"))?;
            started += 1;
        }
        let mut server = Server::start(&db)?;
        let art = artifact("startup-race", "/reliability/startup-race.step");
        let rows = server.page_all("recall", json!({"artifact": art, "limit": 200}), "records")?;
        ensure!(
            rows.len() == processes,
            "round {round}: {} of {processes} writes present",
            rows.len()
        );
        server.close()?;
        check_database(&db)?;
    }
    Ok(started)
}

// ---------------------------------------------------------------------------------------------
// Files the server must refuse
// ---------------------------------------------------------------------------------------------

/// One refused file: what was done to it, and what the server said.
#[derive(Debug)]
pub struct Refusal {
    pub case: &'static str,
    pub exit_code: Option<i32>,
    pub stderr: String,
}

/// Creates a database through the server with a few records in it.
pub fn seed_database(db: &Path, records: usize) -> anyhow::Result<()> {
    let mut server = Server::start(db)?;
    let art = artifact("seed", "/reliability/seed.step");
    for i in 0..records {
        server
            .call(
                "remember",
                json!({"artifact": art, "entity_ids": [format!("face:{i}")],
                       "name": format!("feature {i}"), "note": "x".repeat(500)}),
            )?
            .ok()?;
    }
    let status = server.close()?;
    ensure!(status.success(), "seeding server exited with {status}");
    Ok(())
}

fn listing(dir: &Path) -> anyhow::Result<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    for e in std::fs::read_dir(dir)? {
        names.insert(e?.file_name().to_string_lossy().into_owned());
    }
    Ok(names)
}

/// Starts the server on `db` with no input and expects a refusal: a non-zero exit, stderr
/// naming the file, the file byte-for-byte as it was and no file added beside it.
fn expect_refusal(case: &'static str, db: &Path) -> anyhow::Result<Refusal> {
    let dir = db.parent().context("db has a parent")?;
    let before_hash = sha256_file(db)?;
    let before_list = listing(dir)?;
    let out = client::command(db)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    ensure!(
        !out.status.success(),
        "{case}: the server started on it (exit {}); stderr: {stderr}",
        out.status
    );
    ensure!(
        stderr.contains(&db.display().to_string()),
        "{case}: the refusal does not name the file {}: {stderr}",
        db.display()
    );
    ensure!(
        sha256_file(db)? == before_hash,
        "{case}: the file changed; stderr: {stderr}"
    );
    let after_list = listing(dir)?;
    ensure!(
        after_list == before_list,
        "{case}: files beside it changed: {before_list:?} -> {after_list:?}"
    );
    Ok(Refusal {
        case,
        exit_code: out.status.code(),
        stderr,
    })
}

/// Every case runs even when one fails, so a failure report lists them all.
pub fn refused_files(seed: u64) -> anyhow::Result<Vec<Refusal>> {
    let mut rng = Rng::new(seed);
    let mut refusals = Vec::new();
    let mut failures = Vec::new();
    let mut record = |r: anyhow::Result<Refusal>| match r {
        Ok(r) => refusals.push(r),
        Err(e) => failures.push(format!("{e:#}")),
    };

    // A file from a newer schema version: the server's own file, user_version raised, left
    // in WAL mode as a server leaves it.
    let newer = TempDir::new("newer")?;
    let db = newer.join("review.db");
    seed_database(&db, 3)?;
    {
        let conn = rusqlite::Connection::open(&db)?;
        let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        ensure!(v > 0, "the server left user_version at {v}");
        conn.pragma_update(None, "user_version", v + 1)?;
    }
    record(expect_refusal("newer schema version", &db));

    // Foreign SQLite files: a table of its own and no application_id (most SQLite files),
    // then another application's id on a WAL-mode file.
    let foreign = TempDir::new("foreign")?;
    let db = foreign.join("review.db");
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.execute_batch(
            "CREATE TABLE parts (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
             INSERT INTO parts (name) VALUES ('bracket'), ('flange');",
        )?;
    }
    record(expect_refusal(
        "foreign SQLite file (application_id 0)",
        &db,
    ));
    let foreign_wal = TempDir::new("foreign-wal")?;
    let db = foreign_wal.join("review.db");
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.execute_batch(
            "PRAGMA application_id = 1179535687;
             CREATE TABLE parts (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
             INSERT INTO parts (name) VALUES ('bracket'), ('flange');",
        )?;
    }
    record(expect_refusal(
        "foreign SQLite file (other application_id, WAL)",
        &db,
    ));

    // Truncated files: the server's own (in rollback-journal mode, so the file alone is the
    // whole database), cut inside its first page, then at half its length (header and
    // schema intact, data not).
    let truncated = TempDir::new("truncated")?;
    let db = truncated.join("review.db");
    seed_database(&db, 40)?;
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.pragma_update(None, "journal_mode", "DELETE")?;
    }
    let bytes = std::fs::read(&db)?;
    ensure!(
        bytes.len() > 8192,
        "seeded file is only {} bytes",
        bytes.len()
    );
    std::fs::write(&db, &bytes[..1000])?;
    record(expect_refusal("truncated file (first 1000 bytes)", &db));
    std::fs::write(&db, &bytes[..bytes.len() / 2])?;
    record(expect_refusal("truncated file (first half)", &db));

    // Random bytes.
    let random = TempDir::new("random")?;
    let db = random.join("review.db");
    std::fs::write(&db, rng.bytes(16 * 1024))?;
    record(expect_refusal("random bytes", &db));

    if !failures.is_empty() {
        bail!("{}", failures.join("\n"));
    }
    Ok(refusals)
}

// ---------------------------------------------------------------------------------------------
// Storage faults while serving
// ---------------------------------------------------------------------------------------------

/// Whether a fault scenario could run here, and what it saw.
#[derive(Debug)]
pub enum FaultOutcome {
    Ran {
        failed_writes: usize,
        message: String,
    },
    Skipped(String),
}

/// Runs a command; Ok(false) with its stderr when it fails.
fn try_cmd(program: &str, args: &[&str]) -> anyhow::Result<Result<(), String>> {
    let out = std::process::Command::new(program).args(args).output();
    Ok(match out {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "{program} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("{program}: {e}")),
    })
}

/// Writes `n` records that must survive the fault, returning their names.
fn write_keepers(server: &mut Server, art: &Value, n: usize) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for i in 0..n {
        let name = format!("keeper {i}");
        server
            .call(
                "remember",
                json!({"artifact": art, "entity_ids": [format!("face:{i}")], "name": name,
                       "note": format!("kept {i}"), "tags": ["keeper"]}),
            )?
            .ok()?;
        names.push(name);
    }
    Ok(names)
}

/// The keepers are all there, unchanged, and no failed write left a trace.
fn check_keepers(server: &mut Server, art: &Value, names: &[String]) -> anyhow::Result<()> {
    let rows = server.page_all("recall", json!({"artifact": art, "limit": 200}), "records")?;
    let got: BTreeSet<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    let want: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    ensure!(
        got == want,
        "after the fault the records are {got:?}, expected {want:?}"
    );
    for r in &rows {
        let i = r["name"]
            .as_str()
            .and_then(|n| n.strip_prefix("keeper "))
            .unwrap_or_default();
        ensure!(
            r["note"] == json!(format!("kept {i}")),
            "record damaged: {r}"
        );
    }
    Ok(())
}

/// Keeps trying big writes until the server refuses some; every answer must be a success or
/// an `isError` result (never a JSON-RPC error, never silence). Returns the refusals.
fn writes_under_fault(
    server: &mut Server,
    art: &Value,
    attempts: usize,
) -> anyhow::Result<Vec<String>> {
    let mut refused = Vec::new();
    for i in 0..attempts {
        let args = json!({"artifact": art, "entity_ids": [], "name": format!("doomed {i}"),
                          "note": "y".repeat(60_000)});
        match server.call("remember", args)? {
            Answer::Ok(_) => {}
            Answer::ToolError(text) => refused.push(text),
            Answer::RpcError(code, msg) => {
                bail!("write {i} under the fault answered JSON-RPC error {code}: {msg}")
            }
        }
    }
    Ok(refused)
}

/// Removes every record the fault scenario tried to write, so the keepers check can be exact.
fn forget_doomed(server: &mut Server, art: &Value, attempts: usize) -> anyhow::Result<()> {
    for i in 0..attempts {
        server
            .call(
                "forget",
                json!({"artifact": art, "name": format!("doomed {i}")}),
            )?
            .ok()?;
    }
    Ok(())
}

/// Unmounts on drop, so a failed test leaves no mount behind.
pub struct Mount(PathBuf);

/// A tmpfs of `size` (such as `4m`) mounted at `dir/mnt`, unmounted when the guard drops;
/// `Err(why)` inside when this process may not mount.
pub fn small_tmpfs(dir: &Path, size: &str) -> anyhow::Result<Result<(PathBuf, Mount), String>> {
    let mnt = dir.join("mnt");
    std::fs::create_dir(&mnt)?;
    let mnt_str = mnt.display().to_string();
    let size = format!("size={size}");
    Ok(
        try_cmd("mount", &["-t", "tmpfs", "-o", &size, "tmpfs", &mnt_str])?
            .map(|()| (mnt.clone(), Mount(mnt))),
    )
}

/// Fills the file system that holds `dir` to its last byte with the file `dir/filler`.
pub fn fill_disk(dir: &Path) -> std::io::Result<PathBuf> {
    let filler = dir.join("filler");
    let mut f = std::fs::File::create(&filler)?;
    let block = vec![0u8; 4096];
    while f.write_all(&block).is_ok() {}
    while f.write_all(&block[..1]).is_ok() {}
    let _ = f.sync_all();
    Ok(filler)
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// A 4 MiB [`small_tmpfs`] in `dir` for a disk-full scenario, or its outcome when none can be
/// mounted: skipped, saying why.
fn tmpfs_4m(dir: &Path) -> anyhow::Result<Result<(PathBuf, Mount), FaultOutcome>> {
    Ok(small_tmpfs(dir, "4m")?
        .map_err(|why| FaultOutcome::Skipped(format!("cannot mount a small tmpfs: {why}"))))
}

/// The disk fills while the server runs: a 4 MiB tmpfs holds the database, then a filler file
/// takes the rest. Needs permission to mount; skipped (with the reason) without it.
pub fn disk_full(attempts: usize) -> anyhow::Result<FaultOutcome> {
    let dir = TempDir::new("diskfull")?;
    let (mnt, _mount) = match tmpfs_4m(dir.path())? {
        Ok(mounted) => mounted,
        Err(skipped) => return Ok(skipped),
    };
    let db = mnt.join("review.db");
    let art = artifact("disk-full", "/reliability/disk-full.step");
    let mut server = Server::start_logging_to(&db, &dir.join("server.stderr"))?;
    let keepers = write_keepers(&mut server, &art, 20)?;

    // Fill the file system to the last byte.
    let filler = fill_disk(&mnt)?;
    let refused = writes_under_fault(&mut server, &art, attempts)?;
    ensure!(
        !refused.is_empty(),
        "{attempts} writes of 60 kB on a full disk all succeeded"
    );
    let message = refused[0].clone();
    for text in &refused {
        let lower = text.to_lowercase();
        ensure!(
            lower.contains("full") || lower.contains("space"),
            "the refusal does not say the disk is full: {text}"
        );
    }
    // Reads still work while the disk is full, and nothing stored is damaged.
    server.request("ping", json!({}))?;
    check_keepers_ignoring_doomed(&mut server, &art, &keepers)?;

    // Space comes back: writing works again.
    std::fs::remove_file(&filler)?;
    forget_doomed(&mut server, &art, attempts)?;
    check_keepers(&mut server, &art, &keepers)?;
    let status = server.close()?;
    ensure!(status.success(), "server exited with {status}");
    check_database(&db)?;
    Ok(FaultOutcome::Ran {
        failed_writes: refused.len(),
        message,
    })
}

/// A server starts on a full disk beside a log that holds writes not yet in the file (a reader's
/// snapshot kept the checkpoint from copying them, then the server was killed): the log
/// cannot be copied into the file, which cannot grow, yet everything in it is read, a write
/// and an import say the disk is full (the import naming both files), and once space is free
/// again the file takes the log and writes work. Needs permission to mount.
pub fn disk_full_at_start() -> anyhow::Result<FaultOutcome> {
    let dir = TempDir::new("diskfull-start")?;
    let (mnt, _mount) = match tmpfs_4m(dir.path())? {
        Ok(mounted) => mounted,
        Err(skipped) => return Ok(skipped),
    };
    let db = mnt.join("review.db");
    let art = artifact("disk-full", "/reliability/disk-full-start.step");
    let mut server = Server::start_logging_to(&db, &dir.join("server.stderr"))?;
    let mut keepers = write_keepers(&mut server, &art, 5)?;
    let reader = rusqlite::Connection::open(&db)?;
    reader.execute_batch("BEGIN; SELECT count(*) FROM records;")?;
    for i in 0..5 {
        let name = format!("logged {i}");
        server
            .call(
                "remember",
                json!({"artifact": art, "entity_ids": [], "name": name,
                       "note": "z".repeat(60_000), "tags": ["keeper"]}),
            )?
            .ok()?;
        keepers.push(name);
    }
    // Stopped before the reader lets go, so that its retried checkpoint cannot copy the log,
    // then killed: the log and its index stay.
    let (mut child, _stdin, _stdout) = server.into_parts()?;
    let stopped = std::process::Command::new("kill")
        .args(["-STOP", &child.id().to_string()])
        .status()?;
    ensure!(stopped.success(), "kill -STOP failed");
    drop(reader);
    child.kill()?;
    child.wait()?;
    ensure!(
        std::fs::metadata(super::side(&db, "-wal"))?.len() > 0,
        "no log was left"
    );
    let filler = fill_disk(&mnt)?;
    let mut server = Server::start_logging_to(&db, &dir.join("server2.stderr"))?;
    check_keepers_ignoring_doomed(&mut server, &art, &keepers)?;
    let refused = writes_under_fault(&mut server, &art, 1)?;
    ensure!(
        refused.len() == 1 && refused[0].contains("disk is full"),
        "a write on the full disk: {refused:?}"
    );
    // An export of another database, with a record this one lacks.
    let other = dir.join("other.db");
    let mut writer = Server::start_logging_to(&other, &dir.join("other.stderr"))?;
    writes_under_fault(&mut writer, &art, 1)?;
    writer.close()?;
    let export = dir.join("export.jsonl");
    std::fs::write(
        &export,
        super::file_events::run_cli(&other, &["export"])?.stdout,
    )?;
    let import = super::file_events::run_cli(&db, &["import", &export.display().to_string()])?;
    let said = String::from_utf8_lossy(&import.stderr).into_owned();
    ensure!(
        !import.status.success()
            && said.contains("disk is full")
            && said.contains(&db.display().to_string()),
        "an import on the full disk: {said}"
    );
    std::fs::remove_file(&filler)?;
    forget_doomed(&mut server, &art, 1)?;
    let status = server.close()?;
    ensure!(status.success(), "server exited with {status}");
    check_database(&db)?;
    ensure!(
        !super::side(&db, "-wal").exists(),
        "the log was left once space was free"
    );
    Ok(FaultOutcome::Ran {
        failed_writes: refused.len(),
        message: said,
    })
}

/// [`check_keepers`] while some `doomed` writes may have succeeded before the fault bit.
fn check_keepers_ignoring_doomed(
    server: &mut Server,
    art: &Value,
    names: &[String],
) -> anyhow::Result<()> {
    let rows = server.page_all(
        "recall",
        json!({"artifact": art, "tags": ["keeper"], "limit": 200}),
        "records",
    )?;
    let got: BTreeSet<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    let want: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    ensure!(
        got == want,
        "during the fault the records are {got:?}, expected {want:?}"
    );
    Ok(())
}

/// Sets or clears the immutable attribute: the one "read-only" that holds against root, and
/// against files the server already has open.
fn chattr(flag: &str, paths: &[PathBuf]) -> anyhow::Result<Result<(), String>> {
    let mut args = vec![flag.to_string()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    try_cmd("chattr", &refs)
}

/// Clears the immutable attribute on drop, so the temp dir can be removed after a failure.
struct Immutable(Vec<PathBuf>);

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = chattr("-i", &self.0);
    }
}

/// The database directory and its files become read-only while the server runs
/// (`chattr +i`: `chmod` does not stop root, and tests run as root in CI).
pub fn read_only(attempts: usize) -> anyhow::Result<FaultOutcome> {
    let dir = TempDir::new("readonly")?;
    let dbdir = dir.join("data");
    std::fs::create_dir(&dbdir)?;
    let db = dbdir.join("review.db");
    let art = artifact("read-only", "/reliability/read-only.step");
    let mut server = Server::start_logging_to(&db, &dir.join("server.stderr"))?;
    let keepers = write_keepers(&mut server, &art, 20)?;

    // Not the -shm file: SQLite maps it into memory, and a store into a mapped page of an
    // immutable file is SIGBUS, which no program survives. That is an artefact of the
    // attribute (a real read-only file system cannot be remounted under open files), not a
    // read-only database.
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dbdir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with("-shm"))
        .collect();
    paths.push(dbdir.clone());
    if let Err(why) = chattr("+i", &paths)? {
        let _ = chattr("-i", &paths);
        return Ok(FaultOutcome::Skipped(format!(
            "cannot make the files immutable: {why}"
        )));
    }
    let guard = Immutable(paths);
    let refused = writes_under_fault(&mut server, &art, attempts)?;
    ensure!(
        refused.len() == attempts,
        "{} of {attempts} writes succeeded on a read-only directory",
        attempts - refused.len()
    );
    let message = refused[0].clone();
    for text in &refused {
        let lower = text.to_lowercase();
        ensure!(
            lower.contains("read-only") && lower.contains("nothing was written"),
            "the refusal does not say the database cannot be written: {text}"
        );
    }
    server.request("ping", json!({}))?;
    check_keepers(&mut server, &art, &keepers)?;

    // Writable again: the server recovers without a restart.
    drop(guard);
    server
        .call(
            "remember",
            json!({"artifact": art, "entity_ids": [], "name": "after", "note": "writable again"}),
        )?
        .ok()
        .context("a write after the directory became writable again")?;
    server
        .call("forget", json!({"artifact": art, "name": "after"}))?
        .ok()?;
    check_keepers(&mut server, &art, &keepers)?;
    let status = server.close()?;
    ensure!(status.success(), "server exited with {status}");
    check_database(&db)?;
    Ok(FaultOutcome::Ran {
        failed_writes: refused.len(),
        message,
    })
}

/// The server starts on a database whose file and directory are already read-only: it
/// refuses with a message naming the file (SQLite alone says only "unable to open database
/// file"), and the file is unchanged.
pub fn read_only_at_start() -> anyhow::Result<FaultOutcome> {
    let dir = TempDir::new("readonly-start")?;
    let dbdir = dir.join("data");
    std::fs::create_dir(&dbdir)?;
    let db = dbdir.join("review.db");
    seed_database(&db, 3)?;
    let before = sha256_file(&db)?;
    let paths = vec![db.clone(), dbdir.clone()];
    if let Err(why) = chattr("+i", &paths)? {
        let _ = chattr("-i", &paths);
        return Ok(FaultOutcome::Skipped(format!(
            "cannot make the files immutable: {why}"
        )));
    }
    let guard = Immutable(paths);
    let out = client::command(&db)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()?;
    drop(guard);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    ensure!(!out.status.success(), "the server started: {stderr}");
    ensure!(
        stderr.contains(&db.display().to_string()) && stderr.contains("writable"),
        "the refusal does not name the file and what to check: {stderr}"
    );
    ensure!(sha256_file(&db)? == before, "the file changed");
    Ok(FaultOutcome::Ran {
        failed_writes: 0,
        message: stderr.trim().lines().last().unwrap_or_default().to_string(),
    })
}
