//! Change notifications (issue 14): what an idle minute costs a server that watches for
//! changes, and what a subscriber costs a write.
//!
//! - Idle: a handshake session with a subscription (it polls for other processes' commits)
//!   and a 2026-07-28 process that has answered a request but holds no listen stream (it must
//!   do no periodic work at all), side by side for the same minute; the figure is the
//!   server's own CPU time over that minute.
//! - A remember with and without a subscriber: one session, rounds alternating between
//!   subscribed (`resources/subscribe` to the revision written, so every write is followed
//!   by `list_changed` and `updated`) and unsubscribed, on a database in tmpfs.

use std::fmt::Write as _;
use std::path::Path;
use std::thread;
use std::time::Duration;

use anyhow::Result;
use serde_json::{Value, json};

use crate::corpus::Corpus;
use crate::fmt_dur;
use crate::wire::{Server, Stats};

/// Rounds of the 2026-07-28 comparison (a stream is opened and cancelled per round).
const ROUNDS: usize = 20;

fn modern(params: Value) -> Value {
    let mut p = params;
    p["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    p
}

/// The rows of the notification section.
pub fn rows(bin: &Path, dir: &Path, idle: Duration, calls: usize) -> Result<String> {
    let corpus = Corpus::new();
    let db = dir.join("notify.db");
    let _ = std::fs::remove_file(&db);
    let mut out = String::new();
    writeln!(out, "change notifications (issue 14)")?;

    // Idle: both servers for the same span.
    let mut watching = Server::spawn(bin, &db)?;
    watching.initialize()?;
    let (tool, args) = corpus.remember_named(0, 0);
    let rev = args["artifact"]["revision"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    watching.call(tool, args)?;
    watching.round_trip_method(
        "resources/subscribe",
        json!({"uri": format!("review://revisions/{rev}")}),
    )?;
    let mut stateless = Server::spawn(bin, &db)?;
    stateless.round_trip_method("tools/list", modern(json!({})))?;
    let before = (watching.cpu_time()?, stateless.cpu_time()?);
    eprintln!("bench: {} s idle...", idle.as_secs());
    thread::sleep(idle);
    let used = (
        watching.cpu_time()?.saturating_sub(before.0),
        stateless.cpu_time()?.saturating_sub(before.1),
    );
    let share = |d: Duration| 100.0 * d.as_secs_f64() / idle.as_secs_f64();
    writeln!(
        out,
        "| idle {} s, handshake session with a subscription | {} CPU | {:.3}% of a core |",
        idle.as_secs(),
        fmt_dur(used.0),
        share(used.0)
    )?;
    writeln!(
        out,
        "| idle {} s, 2026-07-28 process, no listen stream | {} CPU | {:.3}% of a core |",
        idle.as_secs(),
        fmt_dur(used.1),
        share(used.1)
    )?;
    stateless.close()?;

    // A remember with and without a subscriber, alternating call by call in one session
    // (the subscribe and unsubscribe in between are not timed).
    let uri = format!("review://revisions/{rev}");
    let mut with = Vec::new();
    let mut without = Vec::new();
    let notified_before = watching.notifications();
    for k in 1..=calls {
        let subscribed = k % 2 == 0;
        let method = if subscribed {
            "resources/subscribe"
        } else {
            "resources/unsubscribe"
        };
        watching.round_trip_method(method, json!({"uri": uri}))?;
        let (tool, mut args) = corpus.remember_named(0, k);
        args["artifact"]["revision"] = json!(rev);
        let (t, _) = watching.call(tool, args)?;
        if subscribed {
            with.push(t)
        } else {
            without.push(t)
        }
    }
    let mut k = calls + 1;
    let notified = watching.notifications() - notified_before;
    watching.close()?;
    let (with, without) = (Stats::new(with), Stats::new(without));
    writeln!(
        out,
        "| remember p50, subscribed to its revision | {} | without a subscription {} | ratio {:.2} | {notified} notifications read |",
        fmt_dur(with.p50()),
        fmt_dur(without.p50()),
        with.p50().as_secs_f64() / without.p50().as_secs_f64().max(1e-9)
    )?;

    // The same for 2026-07-28 clients: a listen stream of the resource list only (what
    // Claude Code 2.1.328 opens), and one also subscribed to the revision; or no stream.
    for (what, filter) in [
        (
            "list changes (as Claude Code listens)",
            json!({"resourcesListChanged": true}),
        ),
        (
            "list changes and the revision",
            json!({"resourcesListChanged": true, "resourceSubscriptions": [uri]}),
        ),
    ] {
        let (with, without) = listen_rounds(bin, &db, &corpus, &rev, &filter, calls, &mut k)?;
        writeln!(
            out,
            "| remember p50 (2026-07-28), a stream listening to {what} | {} | no stream {} | ratio {:.2} |",
            fmt_dur(with.p50()),
            fmt_dur(without.p50()),
            with.p50().as_secs_f64() / without.p50().as_secs_f64().max(1e-9)
        )?;
    }
    let _ = std::fs::remove_file(&db);
    Ok(out)
}

/// Remembers on a 2026-07-28 server in rounds alternating between a listen stream with
/// `filter` open and none; the timings with and without.
fn listen_rounds(
    bin: &Path,
    db: &Path,
    corpus: &Corpus,
    rev: &str,
    filter: &Value,
    calls: usize,
    k: &mut usize,
) -> Result<(Stats, Stats)> {
    let mut s = Server::spawn(bin, db)?;
    let per_round = calls.div_ceil(ROUNDS);
    let mut with = Vec::new();
    let mut without = Vec::new();
    let listen_id = 9_000_000u64;
    for round in 0..ROUNDS {
        let listening = round % 2 == 0;
        if listening {
            let line = json!({"jsonrpc": "2.0", "id": listen_id, "method": "subscriptions/listen",
                "params": modern(json!({"notifications": filter}))});
            s.send(&format!("{line}\n"))?;
            s.read_until(
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\"",
            )?;
        }
        for _ in 0..per_round {
            let (tool, mut args) = corpus.remember_named(0, *k);
            args["artifact"]["revision"] = json!(rev);
            *k += 1;
            let (t, _) = s.round_trip_method(
                "tools/call",
                modern(json!({"name": tool, "arguments": args})),
            )?;
            if listening {
                with.push(t)
            } else {
                without.push(t)
            }
        }
        if listening {
            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": listen_id}});
            s.send(&format!("{cancel}\n"))?;
        }
    }
    s.close()?;
    Ok((Stats::new(with), Stats::new(without)))
}
