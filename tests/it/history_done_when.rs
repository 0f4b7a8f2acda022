//! Issue 28's Done-when over the history, in both eras: a decision replaced twice, verdicts
//! given and replaced through each channel (the form, the card, the engineer's terminal, the
//! assistant), carried to a new revision, forgotten; then `review_history` returns every event
//! in order with who, when, channel and meaning, the report and the card show the trail,
//! export → import → export is byte-identical, and two databases that each added events sync
//! to the union.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::file_events::run_cli;
use crate::support::host::Host;
use crate::support::pty::in_terminal;
use crate::support::{artifact, revision};

const URI: &str = "/parts/bracket.step";
const SUBJECT: &str = "bore";

fn item(requirement: &str, state: &str) -> Value {
    let mut item = json!({"requirement": requirement, "source": "drawing", "state": state});
    if state == "unresolved" {
        item["question"] = json!("which gauge?");
    }
    item
}

fn remember(h: &mut Host, disposition: &str, basis: Value) -> Result<Value> {
    let args = json!({"artifact": h.artifact, "subject": SUBJECT,
                      "disposition": disposition, "basis": basis});
    h.ok("remember_decision", args)
}

/// Every event of `args`' history, newest first, paging with the cursor.
fn history(h: &mut Host, args: Value) -> Result<Vec<Value>> {
    let mut events = Vec::new();
    let mut args = args;
    for _ in 0..100 {
        let page = h.ok("review_history", args.clone())?;
        events.extend(
            page["events"]
                .as_array()
                .with_context(|| format!("no events: {page}"))?
                .iter()
                .cloned(),
        );
        match page.get("next_cursor").and_then(Value::as_str) {
            Some(c) => args["cursor"] = json!(c),
            None => return Ok(events),
        }
    }
    anyhow::bail!("the history did not end within 100 pages")
}

fn kinds(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn export(db: &Path, to: &Path) -> Result<Vec<u8>> {
    let out = run_cli(db, &["export", "-o", to.to_str().context("path")?])?;
    ensure!(out.status.success(), "export: {out:?}");
    Ok(std::fs::read(to)?)
}

/// The scenario in one era (`legacy`: a 2025 handshake version; `None`: 2026-07-28).
fn scenario(legacy: Option<&'static str>) -> Result<()> {
    let dir = TempDir::new("history-done-when")?;
    let db = dir.join("review.db");
    let seed = format!("history-{legacy:?}");
    let part = artifact(&seed, URI);
    let mut bob = Host::on(&db, Some("Bob"), legacy, part.clone(), SUBJECT)?;
    let mut ada = Host::on(&db, Some("Ada Lovelace"), legacy, part.clone(), SUBJECT)?;

    // Created, then replaced twice by the assistant.
    let basis = |s: &str| {
        json!([
            item("Bore 12H7", s),
            item("Chamfer 0.5", s),
            item("Thread M6", "unresolved")
        ])
    };
    let d = remember(&mut bob, "hold", basis("unresolved"))?;
    let id = d["decision"]["id"].as_str().context("id")?.to_string();
    remember(&mut bob, "release", basis("satisfied"))?;

    // The engineer: the form (item 0), the card (item 1), the terminal (item 2, an approval).
    ada.form(&[0])?;
    ada.click(1, "rejected")?;
    let (shown, ok) = in_terminal(
        &db,
        Some("Grace Hopper"),
        &revision(&seed),
        &["a", "measured on the CMM", "a"],
        "pty",
    )?;
    ensure!(ok, "{shown}");
    // A verdict replaced through the card (the form's accepted → rejected) and the assistant
    // replacing the decision a second time, offering its own verdict on item 1 (the engineer's
    // is kept) and one on a new item (the assistant's, given).
    ada.click(0, "rejected")?;
    let mut second = basis("satisfied");
    second[1]["verdict"] = json!({"judgement": "accepted"});
    second.as_array_mut().context("basis")?.push(
        json!({"requirement": "Deburr", "source": "drawing", "state": "satisfied",
                     "verdict": {"judgement": "accepted", "reason": "seen in the photo"}}),
    );
    remember(&mut bob, "release with deburr", second)?;

    // Carried to the next revision, then forgotten at its own.
    let next = artifact(&format!("{seed}-2"), URI);
    bob.ok(
        "carry_forward",
        json!({"from": part, "to": next, "map": [], "changed": []}),
    )?;
    let forgot = bob.ok("forget", json!({"artifact": part, "subject": SUBJECT}))?;
    ensure!(forgot.to_string().contains('1'), "{forgot}");

    // Every event, newest first, with who, when, channel and meaning.
    let events = history(&mut bob, json!({"id": id, "limit": 3}))?;
    let got = kinds(&events);
    let want = [
        "forgotten",
        "carried",
        "verdict_kept",
        "verdict_given",
        "replaced",
        "verdict_replaced",
        "verdict_given",
        "verdict_given",
        "verdict_given",
        "replaced",
        "created",
    ];
    ensure!(got == want, "{legacy:?}: {got:?}\n{events:#?}");
    let channel = |i: usize| {
        events[i]["channel"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let author = |i: usize| events[i]["author"].as_str().unwrap_or_default().to_string();
    ensure!(
        channel(5) == "app" && author(5) == "Ada Lovelace",
        "{:#}",
        events[5]
    );
    ensure!(
        channel(6) == "terminal"
            && author(6) == "Grace Hopper"
            && events[6]["meaning"] == "approval"
            && events[6]["reason"] == "measured on the CMM",
        "{:#}",
        events[6]
    );
    ensure!(channel(7) == "app", "{:#}", events[7]);
    ensure!(
        channel(8) == "elicitation" && author(8) == "Ada Lovelace",
        "{:#}",
        events[8]
    );
    ensure!(
        channel(3) == "assistant" && author(3) == "Bob",
        "{:#}",
        events[3]
    );
    ensure!(channel(2) == "assistant", "{:#}", events[2]);
    ensure!(
        events[9]["changes"][0]["from"] == "hold" && events[9]["changes"][0]["to"] == "release",
        "{:#}",
        events[9]
    );
    let times: Vec<&str> = events.iter().filter_map(|e| e["at"].as_str()).collect();
    ensure!(
        times.windows(2).all(|w| w[0] >= w[1]),
        "not newest first: {times:?}"
    );
    ensure!(
        events
            .iter()
            .all(|e| e["id"].as_str().is_some_and(|i| i.starts_with("evt-")))
    );

    // The card and the report show each decision's trail, one line per change: the carried
    // decision at the next revision begins with its carry; the report of the first revision
    // no longer lists the forgotten decision, whose history stays in review_history.
    let card = bob.ok("show_review", json!({"artifact": next, "detail": "full"}))?;
    let lines = card["decisions"][0]["trail"]["lines"]
        .as_array()
        .with_context(|| format!("no trail: {card}"))?;
    ensure!(
        lines.len() == 1
            && lines[0]
                .as_str()
                .is_some_and(|l| l.starts_with("carried: revision ")),
        "{lines:?}"
    );
    let report_uri = format!(
        "review://revisions/{}/report",
        next["revision"].as_str().context("rev")?
    );
    let out = bob.raw_request("resources/read", json!({"uri": report_uri}));
    let report = bob.answer_in(&out)?;
    let text = report["result"]["contents"][0]["text"]
        .as_str()
        .context("report")?;
    ensure!(
        text.contains("History, newest first") && text.contains("carried: revision "),
        "{text}"
    );
    // While it stood, the first revision's card showed the engineer's verdicts in the trail
    // with name, time and meaning: checked on the events themselves above; the trail's
    // lines are those events' lines.
    let line = events[6]["kind"].as_str().unwrap_or_default();
    ensure!(line == "verdict_given");

    // Export → import → export, byte-identical.
    let first = export(&db, &dir.join("one.jsonl"))?;
    let copy = dir.join("copy.db");
    let out = run_cli(
        &copy,
        &["import", dir.join("one.jsonl").to_str().context("path")?],
    )?;
    ensure!(out.status.success(), "import: {out:?}");
    let second = export(&copy, &dir.join("two.jsonl"))?;
    ensure!(first == second, "export → import → export differs");
    let text = String::from_utf8(first)?;
    let exported = text
        .lines()
        .filter(|l| l.starts_with("{\"event\":"))
        .count();
    ensure!(exported > want.len(), "{exported} events exported:\n{text}");
    Ok(())
}

#[test]
fn history_done_when_2025_11_25() -> Result<()> {
    scenario(Some("2025-11-25"))
}

#[test]
fn history_done_when_2026_07_28() -> Result<()> {
    scenario(None)
}

/// Two databases that each added events sync through one folder to the union of both.
#[test]
fn history_two_databases_sync_to_the_union() -> Result<()> {
    let dir = TempDir::new("history-union")?;
    let folder = dir.join("folder");
    let (a, b) = (dir.join("a.db"), dir.join("b.db"));
    let part = artifact("history-union", URI);
    let mut ann = Host::on(&a, Some("Ann"), Some("2025-11-25"), part.clone(), SUBJECT)?;
    remember(&mut ann, "hold", json!([item("Bore 12H7", "unresolved")]))?;
    let sync = |db: &Path| -> Result<()> {
        let out = run_cli(db, &["sync", folder.to_str().context("path")?])?;
        ensure!(out.status.success(), "sync: {out:?}");
        Ok(())
    };
    sync(&a)?;
    sync(&b)?;
    let mut ben = Host::on(&b, Some("Ben"), None, part.clone(), SUBJECT)?;
    // Each adds events of their own: Ann replaces the decision, Ben judges its item.
    remember(&mut ann, "release", json!([item("Bore 12H7", "satisfied")]))?;
    ben.form(&[0])?;
    let ids = |h: &mut Host| -> Result<BTreeSet<String>> {
        Ok(history(h, json!({"artifact": part.clone()}))?
            .iter()
            .filter_map(|e| e["id"].as_str().map(str::to_string))
            .collect())
    };
    let (only_a, only_b) = (ids(&mut ann)?, ids(&mut ben)?);
    ensure!(only_a != only_b);
    for db in [&a, &b, &a] {
        sync(db)?;
    }
    let (after_a, after_b) = (ids(&mut ann)?, ids(&mut ben)?);
    let union: BTreeSet<String> = only_a.union(&only_b).cloned().collect();
    ensure!(after_a.is_superset(&union), "{after_a:?} ⊉ {union:?}");
    ensure!(after_a == after_b, "{after_a:?} != {after_b:?}");
    Ok(())
}
