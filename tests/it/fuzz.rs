//! A deterministic mutation fuzzer over the transcript inputs.
//!
//! The client lines of every transcript in `protocol-fixtures/` are the seeds. Each case takes
//! one transcript's lines, mutates some of them (bit flips, interesting bytes, truncation,
//! deletion, duplication, splicing with other seeds, JSON type swaps, removed or added
//! members, batch wrapping, NUL and right-to-left marks, invalid UTF-8) and reorders,
//! duplicates or drops lines, then feeds them to a fresh in-process server through the real
//! line reader. On every frame three properties must hold:
//!
//! 1. the server did not panic (and answered no -32603, which is what a caught handler panic
//!    becomes);
//! 2. every message written is one valid JSON-RPC message (a response with exactly one of
//!    result and error, or a notification; a batch answer is a non-empty array of them) and
//!    encodes to a single line;
//! 3. every request-shaped line got exactly one answer carrying its id (or id null when the
//!    id is unreadable), and notifications and client responses got none. The one exception
//!    is `request_verdicts` in a legacy session that declared elicitation: its `tools/call`
//!    may be answered by the server's own `elicitation/create` request instead, and then the
//!    client's response to that request gets the call's answer, and a `notifications/cancelled`
//!    naming the call gets the withdrawal of the server's request. Before the session's client
//!    sent `notifications/initialized` that call gets nothing: its question is held, and put
//!    (the request written) when the notification comes.
//!
//! The seed is fixed and the run bounded by a case count, so a failure reproduces exactly;
//! `FUZZ_CASES` and `FUZZ_SEED` override them for longer runs. A short run through the binary
//! checks that it writes exactly what the in-process server writes for the same stream.

use std::io::{BufRead, BufReader, Cursor, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, anyhow, bail, ensure};
use review_mcp::framing::{Frame, LineReader};
use review_mcp::replay;
use review_mcp::server::{MAX_BATCH_LEN, Server};
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

use crate::support::{Rng, TempDir};

const DEFAULT_CASES: usize = 1200;
const DEFAULT_SEED: u64 = 0x5EED_F00D_CAFE_D00D;
const CASES_PER_SERVER: usize = 25;
/// Seed lines longer than this (the 17 MB line) are left out: they would only slow the run,
/// and the oversized path has its own tests.
const MAX_SEED_LINE: usize = 64 * 1024;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| {
            let v = v.trim();
            match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok(),
                None => v.parse().ok(),
            }
        })
        .unwrap_or(default)
}

/// The client lines of every transcript, one list per file.
fn seeds() -> Result<Vec<Vec<Vec<u8>>>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-fixtures");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().and_then(|e| e.to_str()) == Some("jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path)?;
        // A shared transcript seeds once per version it names.
        let runs =
            replay::variants(&text).with_context(|| format!("parsing {}", path.display()))?;
        for run in runs {
            let lines: Vec<Vec<u8>> = run
                .transcript
                .input_bytes()
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty() && l.len() <= MAX_SEED_LINE)
                .map(<[u8]>::to_vec)
                .collect();
            if !lines.is_empty() {
                out.push(lines);
            }
        }
    }
    ensure!(out.len() > 20, "too few seed transcripts: {}", out.len());
    Ok(out)
}

const INTERESTING: [u8; 16] = [
    0, 0xff, b'"', b'{', b'}', b'[', b']', b',', b':', b'\\', b'\n', b'\r', 0x80, 0xc3, 0x0c, b' ',
];

/// Values that stress type checks.
fn odd_value(rng: &mut Rng) -> Value {
    match rng.below(16) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(-1),
        3 => json!(1.5),
        4 => json!(1e300),
        5 => json!(u64::MAX),
        6 => json!(i64::MIN),
        7 => json!(""),
        8 => json!("x".repeat(rng.below(5000))),
        9 => json!([]),
        10 => json!({}),
        11 => json!("\u{202e}evil\u{0}"),
        12 => json!([1, "a", null, {"b": []}]),
        13 => json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                               "io.modelcontextprotocol/clientCapabilities": {}}}),
        14 => json!("2025-03-26"),
        _ => {
            let mut v = json!(0);
            for _ in 0..rng.below(120) {
                v = json!([v]);
            }
            v
        }
    }
}

/// JSON pointers of every node in `v` (bounded).
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    if out.len() > 500 {
        return;
    }
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                pointers(
                    child,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// A structural mutation of a line that parses as JSON; `None` when it does not.
fn mutate_json(line: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
    let mut v: Value = serde_json::from_slice(line).ok()?;
    match rng.below(6) {
        // Swap a node for a value of another type.
        0 | 1 => {
            let mut ptrs = Vec::new();
            pointers(&v, String::new(), &mut ptrs);
            let p = ptrs.get(rng.below(ptrs.len()))?.clone();
            let replacement = odd_value(rng);
            match v.pointer_mut(&p) {
                Some(slot) => *slot = replacement,
                None => return None,
            }
        }
        // Remove a member that matters.
        2 => {
            let key = ["id", "method", "jsonrpc", "params", "_meta"][rng.below(5)];
            if let Some(m) = v.as_object_mut() {
                m.remove(key);
            }
            if let Some(p) = v.get_mut("params").and_then(Value::as_object_mut) {
                p.remove(key);
            }
        }
        // Add or overwrite a member.
        3 => {
            let key = ["id", "method", "result", "error", "params", "jsonrpc"][rng.below(6)];
            let value = odd_value(rng);
            if let Some(m) = v.as_object_mut() {
                m.insert(key.to_string(), value);
            }
        }
        // Wrap into a batch, sometimes with company.
        4 => {
            let mut items = vec![v.clone()];
            for _ in 0..rng.below(3) {
                items.push(if rng.chance(50) {
                    v.clone()
                } else {
                    odd_value(rng)
                });
            }
            v = Value::Array(items);
        }
        // Put the envelope on, or a modern method in, so both eras are reached.
        _ => {
            if let Some(m) = v.as_object_mut() {
                let methods = [
                    "server/discover",
                    "subscriptions/listen",
                    "initialize",
                    "ping",
                    "tools/list",
                    "tools/call",
                    "resources/read",
                    "prompts/get",
                    "logging/setLevel",
                    "notifications/cancelled",
                ];
                m.insert("method".into(), json!(methods[rng.below(methods.len())]));
                if rng.chance(50) {
                    m.insert("params".into(), odd_value(rng));
                }
            }
        }
    }
    serde_json::to_vec(&v).ok()
}

/// One byte-level or structural mutation.
fn mutate(line: &[u8], all: &[Vec<Vec<u8>>], rng: &mut Rng) -> Vec<u8> {
    let mut l = line.to_vec();
    let len = l.len();
    match rng.below(10) {
        0 if len > 0 => {
            let i = rng.below(len);
            l[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            l[i] = INTERESTING[rng.below(INTERESTING.len())];
        }
        2 => l.truncate(rng.below(len + 1)),
        3 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(16)).min(len);
            l.drain(a..b);
        }
        4 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(64)).min(len);
            let piece = l[a..b].to_vec();
            let at = rng.below(len + 1);
            l.splice(at..at, piece);
        }
        5 => {
            let other_file = &all[rng.below(all.len())];
            let other = &other_file[rng.below(other_file.len())];
            let cut_a = rng.below(len + 1);
            let cut_b = rng.below(other.len() + 1);
            l.truncate(cut_a);
            l.extend_from_slice(&other[cut_b..]);
        }
        6 | 7 => {
            if let Some(m) = mutate_json(&l, rng) {
                l = m;
            }
        }
        8 => {
            // NUL, a right-to-left mark or invalid UTF-8 dropped somewhere (often a string).
            let junk: &[u8] = match rng.below(3) {
                0 => b"\x00",
                1 => "\u{202e}".as_bytes(),
                _ => b"\xc3\x28",
            };
            let at = rng.below(len + 1);
            l.splice(at..at, junk.iter().copied());
        }
        _ => {
            // Escaped control characters and deep nesting inside a string-valued spot.
            let at = rng.below(len + 1);
            let piece: &[u8] = if rng.chance(50) {
                b"\\u0000"
            } else {
                b"[[[[[[[[[[[[[[[[[[[["
            };
            l.splice(at..at, piece.iter().copied());
        }
    }
    l
}

/// One case: a seed transcript's lines with some mutated, duplicated, dropped or reordered.
fn make_case(all: &[Vec<Vec<u8>>], rng: &mut Rng) -> Vec<u8> {
    let mut lines = all[rng.below(all.len())].clone();
    for _ in 0..1 + rng.below(4) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(10) {
            0 => {
                let dup = lines[i].clone();
                lines.insert(rng.below(lines.len() + 1), dup);
            }
            1 if lines.len() > 1 => {
                lines.remove(i);
            }
            2 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            _ => lines[i] = mutate(&lines[i], all, rng),
        }
    }
    let mut bytes = Vec::new();
    for l in lines {
        bytes.extend_from_slice(&l);
        bytes.push(b'\n');
    }
    bytes
}

/// A string, or an integer as the schema's `RequestId` counts one: a number without a
/// fraction (`1.0` too), within what a float holds exactly when it is not an i64 or u64.
fn is_valid_id(v: &Value) -> bool {
    v.is_string()
        || v.is_i64()
        || v.is_u64()
        || v.as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0)
}

/// Notifications and client responses are answered with nothing; everything else (garbage
/// included) with exactly one message. This is the spec's rule, computed without the server.
/// A response without `"jsonrpc": "2.0"` is not answered either: its id is the server's.
fn request_shaped(v: &Value) -> bool {
    let Some(obj) = v.as_object() else {
        return true;
    };
    let version_ok = obj.get("jsonrpc") == Some(&json!("2.0"));
    let notification = obj.get("method").is_some_and(Value::is_string) && !obj.contains_key("id");
    let response =
        !obj.contains_key("method") && (obj.contains_key("result") || obj.contains_key("error"));
    !((version_ok && notification) || response)
}

/// Whether two valid ids name one request: the same string, or numbers of one value (`1`,
/// `1.0` and `1e0` are one id; `-0.0` is 0).
fn same_id(a: &Value, b: &Value) -> bool {
    let integer = |v: &Value| {
        v.as_i64()
            .map(i128::from)
            .or_else(|| v.as_u64().map(i128::from))
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0)
                    .map(|f| f as i128)
            })
    };
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => integer(a).is_some() && integer(a) == integer(b),
        _ => a == b,
    }
}

/// The id an answer to `v` must carry.
fn answer_id(v: &Value) -> Value {
    match v.get("id") {
        Some(id) if is_valid_id(id) => id.clone(),
        _ => Value::Null,
    }
}

/// The one request the server sends of its own: `request_verdicts` asking a legacy client
/// that declared elicitation, with a string id of the server's.
const SERVER_REQUEST: &str = "elicitation/create";

/// The server's questions that wait for the client's response, in the order asked: the id of
/// the server's request (`None` while the question is held) and the id of the `tools/call`
/// that waits for it; and whether a question asked now is held (the session's client has not
/// sent `notifications/initialized`).
#[derive(Default, Clone)]
struct Asks(Vec<(Option<Value>, Value)>, bool);

/// The id of the server's request `out`, which no question waiting in `asks` has.
fn fresh_ask(asks: &Asks, out: &Value) -> Result<Value> {
    let ask = out["id"].clone();
    ensure!(
        asks.0.iter().all(|(a, _)| a.as_ref() != Some(&ask)),
        "the server's request id {ask} reused"
    );
    Ok(ask)
}

fn is_server_request(v: &Value) -> bool {
    v.get("method").is_some() && v.get("id").is_some()
}

/// Property 2 for one message.
fn check_message(v: &Value) -> Result<()> {
    let obj = v.as_object().ok_or_else(|| anyhow!("not an object"))?;
    ensure!(obj.get("jsonrpc") == Some(&json!("2.0")), "jsonrpc");
    if let Some(method) = obj.get("method") {
        ensure!(method.is_string(), "method not a string");
        if let Some(id) = obj.get("id") {
            ensure!(
                method == SERVER_REQUEST,
                "the server sent a request other than {SERVER_REQUEST}"
            );
            ensure!(
                id.as_str()
                    .is_some_and(|s| s.starts_with("review-mcp-ask-")),
                "the server's request id {id} is not one of its own"
            );
            ensure!(
                obj.get("params").is_some_and(Value::is_object),
                "the server's request without params"
            );
            ensure!(obj.len() == 4, "unexpected members in the server's request");
            return Ok(());
        }
        ensure!(
            obj.keys()
                .all(|k| ["jsonrpc", "method", "params"].contains(&k.as_str())),
            "unexpected members in a notification"
        );
        return Ok(());
    }
    let id = obj.get("id").ok_or_else(|| anyhow!("no id"))?;
    ensure!(is_valid_id(id) || id.is_null(), "bad id {id}");
    match (obj.get("result"), obj.get("error")) {
        (Some(r), None) => {
            ensure!(r.is_object(), "result not an object");
            ensure!(!id.is_null(), "result with id null");
        }
        (None, Some(e)) => {
            let code = e.get("code").and_then(Value::as_i64);
            ensure!(code.is_some(), "error code not an integer");
            ensure!(
                code != Some(-32603),
                "internal error (a caught panic?): {e}"
            );
            ensure!(
                e.get("message").is_some_and(Value::is_string),
                "error message not a string"
            );
        }
        _ => bail!("needs exactly one of result and error"),
    }
    ensure!(obj.len() == 3, "unexpected members");
    Ok(())
}

/// The answer for one request-shaped value carries its id (an acknowledged listen carries it
/// as the subscription id).
fn check_answer_for(request: &Value, answer: &Value) -> Result<()> {
    let want = answer_id(request);
    let got = match answer.get("method") {
        Some(_) => answer
            .pointer("/params/_meta/io.modelcontextprotocol~1subscriptionId")
            .cloned()
            .unwrap_or(Value::Null),
        None => answer.get("id").cloned().unwrap_or(Value::Null),
    };
    ensure!(got == want, "answer id {got} for request id {want}");
    Ok(())
}

/// What a server tells a client on its own after answering a frame: what changed, and log
/// messages. These follow the frame's answers and are not answers.
const TOLD_AFTER: [&str; 3] = [
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/message",
];

fn is_told_after(v: &Value) -> bool {
    v.get("method")
        .and_then(Value::as_str)
        .is_some_and(|m| TOLD_AFTER.contains(&m))
}

/// Properties 2 and 3 for one frame with no question waiting (the oracle's own test).
fn check_frame(input: Option<&[u8]>, batches_allowed: bool, outputs: &[Value]) -> Result<()> {
    check_frame_asking(input, batches_allowed, outputs, &mut Asks::default())
}

/// Properties 2 and 3 for one frame: `input` is `None` for an oversized line. A `tools/call`
/// may be answered by the server's own `elicitation/create` instead (the call then waits in
/// `asks`); the client's response to that request is answered with the answer of the call,
/// and a `notifications/cancelled` naming the waiting call with the withdrawal of the
/// server's request (a notification naming it), nothing else.
fn check_frame_asking(
    input: Option<&[u8]>,
    batches_allowed: bool,
    outputs: &[Value],
    asks: &mut Asks,
) -> Result<()> {
    let answered = outputs.iter().take_while(|v| !is_told_after(v)).count();
    let (outputs, told) = outputs.split_at(answered);
    for note in told {
        ensure!(
            is_told_after(note),
            "an answer after the notifications of a change"
        );
        check_message(note)?;
    }
    for out in outputs {
        let text = serde_json::to_string(out)?;
        ensure!(!text.contains('\n'), "a message spans lines");
        match out {
            Value::Array(items) => {
                ensure!(!items.is_empty(), "an empty batch answer");
                for item in items {
                    check_message(item)?;
                    ensure!(
                        item.get("method").is_none(),
                        "a notification in a batch answer"
                    );
                }
            }
            single => check_message(single)?,
        }
    }
    let one_error = |code: i64| -> Result<()> {
        ensure!(outputs.len() == 1, "{} answers, expected 1", outputs.len());
        ensure!(
            outputs[0].pointer("/error/code") == Some(&json!(code))
                && outputs[0].get("id") == Some(&Value::Null),
            "expected error {code} with id null"
        );
        Ok(())
    };
    let Some(bytes) = input else {
        return one_error(-32600);
    };
    if bytes
        .iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    {
        ensure!(outputs.is_empty(), "a blank line was answered");
        return Ok(());
    }
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return unparsed(bytes, outputs, asks);
    };
    match &value {
        Value::Array(items)
            if items.is_empty() || !batches_allowed || items.len() > MAX_BATCH_LEN =>
        {
            one_error(-32600)
        }
        Value::Array(items) => {
            let requests: Vec<&Value> = items.iter().filter(|v| request_shaped(v)).collect();
            if requests.is_empty() {
                ensure!(outputs.is_empty(), "a batch of notifications was answered");
                return Ok(());
            }
            ensure!(outputs.len() == 1, "a batch needs one array answer");
            let answers = outputs[0]
                .as_array()
                .ok_or_else(|| anyhow!("a batch answered with a non-array"))?;
            ensure!(
                answers.len() == requests.len(),
                "{} answers for {} requests in the batch",
                answers.len(),
                requests.len()
            );
            for (req, ans) in requests.iter().zip(answers) {
                check_answer_for(req, ans)?;
            }
            Ok(())
        }
        single if request_shaped(single) => {
            // A new session: each call of the one it replaces that waits for the engineer is
            // answered after it, its question withdrawn first.
            let handshake = single.get("method") == Some(&json!("initialize"))
                && single
                    .pointer("/params/protocolVersion")
                    .is_some_and(Value::is_string);
            if handshake && outputs.first().is_some_and(|a| a.get("result").is_some()) {
                // A question put is withdrawn; a held one was never put.
                let ends: usize = asks
                    .0
                    .iter()
                    .map(|(ask, _)| 1 + usize::from(ask.is_some()))
                    .sum();
                ensure!(
                    outputs.len() == 1 + ends,
                    "{} messages after a new session, {} calls waited",
                    outputs.len(),
                    asks.0.len()
                );
                let mut ended = outputs[1..].iter();
                for (ask, call) in &asks.0 {
                    if let Some(ask) = ask {
                        let withdrawn = ended.next();
                        ensure!(
                            withdrawn.is_some_and(|w| w.get("method")
                                == Some(&json!("notifications/cancelled"))
                                && w.pointer("/params/requestId") == Some(ask)),
                            "the question {ask} of the replaced session is not withdrawn"
                        );
                    }
                    ensure!(
                        ended.next().is_some_and(|a| a.get("id") == Some(call)
                            && a.pointer("/result/isError") == Some(&json!(true))),
                        "the call {call} of the replaced session is not ended"
                    );
                }
                asks.0.clear();
                return check_answer_for(single, &outputs[0]);
            }
            if outputs.is_empty()
                && asks.1
                && single.get("method") == Some(&json!("tools/call"))
                && single.pointer("/params/name") == Some(&json!("request_verdicts"))
            {
                // Held until the client says it is initialized.
                let want = answer_id(single);
                ensure!(!want.is_null(), "a question for a call without a valid id");
                asks.0.push((None, want));
                return Ok(());
            }
            ensure!(outputs.len() == 1, "{} answers, expected 1", outputs.len());
            if is_server_request(&outputs[0]) {
                ensure!(
                    single.get("method") == Some(&json!("tools/call")),
                    "a question for a request that is not tools/call"
                );
                let want = answer_id(single);
                ensure!(!want.is_null(), "a question for a call without a valid id");
                let ask = fresh_ask(asks, &outputs[0])?;
                asks.0.push((Some(ask), want));
                return Ok(());
            }
            check_answer_for(single, &outputs[0])
        }
        other if other.get("method") == Some(&json!("notifications/initialized")) => {
            // The questions held for it are put, in the order asked.
            let held: Vec<usize> = (0..asks.0.len())
                .filter(|&i| asks.0[i].0.is_none())
                .collect();
            ensure!(
                outputs.len() == held.len(),
                "{} messages for {} held questions",
                outputs.len(),
                held.len()
            );
            for (i, out) in held.into_iter().zip(outputs) {
                ensure!(
                    is_server_request(out) && out.get("method") == Some(&json!(SERVER_REQUEST)),
                    "a held question is not put: {out}"
                );
                asks.0[i].0 = Some(fresh_ask(asks, out)?);
            }
            Ok(())
        }
        other => {
            let is_response = other.get("method").is_none();
            let waiting = if is_response {
                // The client's response to a question: the id of the server's request.
                other
                    .get("id")
                    .and_then(|id| asks.0.iter().position(|(a, _)| a.as_ref() == Some(id)))
            } else if other.get("method") == Some(&json!("notifications/cancelled")) {
                // The first question of the call it names (ids compare as the server reads them).
                other
                    .pointer("/params/requestId")
                    .filter(|id| is_valid_id(id))
                    .and_then(|id| asks.0.iter().position(|(_, c)| same_id(c, id)))
            } else {
                None
            };
            let Some(i) = waiting else {
                ensure!(
                    outputs.is_empty(),
                    "a notification or response was answered"
                );
                return Ok(());
            };
            let (ask, call) = asks.0.remove(i);
            let Some(ask) = ask else {
                // A held question was never put: nothing to withdraw.
                ensure!(outputs.is_empty(), "a cancelled held question was answered");
                return Ok(());
            };
            ensure!(outputs.len() == 1, "{} messages, expected 1", outputs.len());
            if is_response {
                ensure!(
                    outputs[0].get("method").is_none() && outputs[0].get("id") == Some(&call),
                    "the answer to a question is not the waiting call's ({call})"
                );
            } else {
                ensure!(
                    outputs[0].get("method") == Some(&json!("notifications/cancelled"))
                        && outputs[0].get("id").is_none()
                        && outputs[0].pointer("/params/requestId") == Some(&ask),
                    "a cancelled wait is not the withdrawal of {ask}"
                );
            }
            Ok(())
        }
    }
}

/// A line serde_json cannot read: one -32700, with id null, or with the id the line names
/// when it is valid JSON text whose id can still be read (then its message says why); or,
/// when it is the client's response to a question that waits, the waiting call's `isError`
/// answer instead.
fn unparsed(bytes: &[u8], outputs: &[Value], asks: &mut Asks) -> Result<()> {
    ensure!(outputs.len() == 1, "{} answers, expected 1", outputs.len());
    let out = &outputs[0];
    let id = out.get("id").cloned().unwrap_or(Value::Null);
    let text = String::from_utf8_lossy(bytes);
    let named = |id: &Value| {
        let id = id.to_string();
        text.contains(&format!("\"id\":{id}")) || text.contains(&format!("\"id\": {id}"))
    };
    if out.get("result").is_some() {
        let i = asks
            .0
            .iter()
            .position(|(ask, call)| call == &id && ask.as_ref().is_some_and(named))
            .ok_or_else(|| anyhow!("a result for an unreadable line: {out}"))?;
        asks.0.remove(i);
        ensure!(
            out.pointer("/result/isError") == Some(&json!(true)),
            "an unreadable answer to a question recorded something: {out}"
        );
        return Ok(());
    }
    ensure!(
        out.pointer("/error/code") == Some(&json!(-32700)),
        "expected error -32700: {out}"
    );
    if !id.is_null() {
        ensure!(
            named(&id)
                && out
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .is_some_and(|m| m.starts_with("Parse error: ")),
            "a parse error names id {id}, which the line does not, or does not say why"
        );
    }
    Ok(())
}

/// Feeds one case to `server`, frame by frame, checking every frame. Returns every message
/// written, in order.
fn run_case(server: &mut Server, asks: &mut Asks, bytes: &[u8]) -> Result<Vec<Value>> {
    let mut reader = LineReader::new(Cursor::new(bytes));
    let mut written = Vec::new();
    loop {
        let frame = reader.next_frame()?;
        let input = match &frame {
            Frame::Eof => return Ok(written),
            Frame::Line(l) => Some(l.clone()),
            Frame::TooLong { .. } => None,
        };
        let batches = server
            .session()
            .is_some_and(|s| s.version.accepts_batches());
        asks.1 = server.session().is_some_and(|s| !s.initialized);
        let outputs = catch_unwind(AssertUnwindSafe(|| server.handle_frame(frame)))
            .map_err(|_| anyhow!("the server panicked"))?;
        check_frame_asking(input.as_deref(), batches, &outputs, asks).with_context(|| {
            format!(
                "input {:.300} -> {:.600}",
                String::from_utf8_lossy(input.as_deref().unwrap_or(b"<oversized>")),
                serde_json::to_string(&outputs).unwrap_or_default()
            )
        })?;
        written.extend(outputs);
    }
}

fn fresh_server() -> Result<Server> {
    Ok(Server::new(Service::new(Store::open_in_memory()?)))
}

#[test]
fn fuzz_mutated_transcripts_keep_the_three_properties() -> Result<()> {
    let cases = env_number("FUZZ_CASES", DEFAULT_CASES as u64) as usize;
    let seed = env_number("FUZZ_SEED", DEFAULT_SEED);
    let all = seeds()?;
    let mut rng = Rng::new(seed);
    let mut frames = 0usize;
    let mut answered = 0usize;
    // A fresh server (and database) every few cases: opening one costs more than a case, and
    // state carried between cases (a session, stored records) is more to fuzz, not less.
    let mut server = fresh_server()?;
    let mut asks = Asks::default();
    for n in 0..cases {
        if n % CASES_PER_SERVER == 0 {
            server = fresh_server()?;
            asks = Asks::default();
        }
        let case = make_case(&all, &mut rng);
        let written = run_case(&mut server, &mut asks, &case)
            .with_context(|| format!("case {n} of seed {seed:#x}"))?;
        frames += case.iter().filter(|&&b| b == b'\n').count();
        answered += written.len();
        // Still serving after whatever the case did.
        let ping = server.handle_line(br#"{"jsonrpc":"2.0","id":"fuzz-alive","method":"ping"}"#);
        ensure!(
            ping == vec![json!({"jsonrpc":"2.0","id":"fuzz-alive","result":{}})],
            "case {n}: not serving afterwards: {ping:?}"
        );
    }
    println!("fuzz: {cases} cases, {frames} lines, {answered} messages written, seed {seed:#x}");
    ensure!(
        answered > cases,
        "the fuzzer wrote too few messages to mean anything"
    );
    Ok(())
}

#[test]
fn fuzz_mutators_are_deterministic_and_change_their_input() -> Result<()> {
    let all = seeds()?;
    let a: Vec<Vec<u8>> = {
        let mut rng = Rng::new(7);
        (0..50).map(|_| make_case(&all, &mut rng)).collect()
    };
    let b: Vec<Vec<u8>> = {
        let mut rng = Rng::new(7);
        (0..50).map(|_| make_case(&all, &mut rng)).collect()
    };
    assert_eq!(a, b);
    let originals: Vec<Vec<u8>> = all
        .iter()
        .map(|lines| {
            let mut v = Vec::new();
            for l in lines {
                v.extend_from_slice(l);
                v.push(b'\n');
            }
            v
        })
        .collect();
    let changed = a.iter().filter(|c| !originals.contains(c)).count();
    assert!(
        changed > 40,
        "only {changed} of 50 cases differ from their seed"
    );
    Ok(())
}

/// The oracle itself, on hand-made frames: it must reject what the server must never do.
#[test]
fn fuzz_oracle_rejects_wrong_answers() {
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let ok = json!({"jsonrpc":"2.0","id":1,"result":{}});
    assert!(check_frame(Some(ping), false, std::slice::from_ref(&ok)).is_ok());
    assert!(
        check_frame(Some(ping), false, &[]).is_err(),
        "unanswered request"
    );
    assert!(check_frame(Some(ping), false, &[ok.clone(), ok.clone()]).is_err());
    let wrong_id = json!({"jsonrpc":"2.0","id":2,"result":{}});
    assert!(check_frame(Some(ping), false, &[wrong_id]).is_err());
    let both = json!({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}});
    assert!(check_frame(Some(ping), false, &[both]).is_err());
    let internal = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"m"}});
    assert!(check_frame(Some(ping), false, &[internal]).is_err());
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert!(
        check_frame(Some(note), false, std::slice::from_ref(&ok)).is_err(),
        "answered notification"
    );
    assert!(check_frame(Some(note), false, &[]).is_ok());
    let parse = json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON text; send each message as one line of UTF-8 JSON"}});
    assert!(check_frame(Some(b"{"), false, std::slice::from_ref(&parse)).is_ok());
    assert!(check_frame(Some(b"{"), false, &[ok]).is_err());
    assert!(
        check_frame(None, false, &[parse]).is_err(),
        "oversized needs -32600"
    );

    // The server's own request: only elicitation/create, only for a tools/call, and then the
    // client's response and a cancellation are answered exactly as the question requires.
    let call = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}}"#;
    let asked =
        json!({"jsonrpc":"2.0","id":"review-mcp-ask-1","method":"elicitation/create","params":{}});
    let sampling = json!({"jsonrpc":"2.0","id":"review-mcp-ask-1","method":"sampling/createMessage","params":{}});
    assert!(check_frame(Some(call), false, std::slice::from_ref(&sampling)).is_err());
    assert!(
        check_frame(Some(ping), false, std::slice::from_ref(&asked)).is_err(),
        "a question for a ping"
    );
    let mut asks = Asks::default();
    assert!(check_frame_asking(Some(call), false, std::slice::from_ref(&asked), &mut asks).is_ok());
    let response = br#"{"jsonrpc":"2.0","id":"review-mcp-ask-1","result":{"action":"decline"}}"#;
    let for_call = json!({"jsonrpc":"2.0","id":5,"result":{}});
    let for_other = json!({"jsonrpc":"2.0","id":6,"result":{}});
    assert!(
        check_frame_asking(
            Some(response),
            false,
            &[for_other],
            &mut Asks(asks.0.clone(), false)
        )
        .is_err()
    );
    assert!(
        check_frame_asking(Some(response), false, &[], &mut Asks(asks.0.clone(), false)).is_err()
    );
    let cancel =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#;
    let withdrawn = |id: &str| json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id}});
    assert!(
        check_frame_asking(
            Some(cancel),
            false,
            &[withdrawn("review-mcp-ask-2")],
            &mut Asks(asks.0.clone(), false)
        )
        .is_err()
    );
    assert!(
        check_frame_asking(
            Some(cancel),
            false,
            &[withdrawn("review-mcp-ask-1")],
            &mut Asks(asks.0.clone(), false)
        )
        .is_ok()
    );
    assert!(
        check_frame_asking(
            Some(response),
            false,
            std::slice::from_ref(&for_call),
            &mut asks
        )
        .is_ok()
    );
    assert!(
        check_frame_asking(Some(response), false, &[for_call], &mut asks).is_err(),
        "a question answered twice"
    );

    // Before the client says it is initialized a request_verdicts call may get nothing: held,
    // then put by notifications/initialized, and a cancelled held call withdraws nothing.
    let verdicts =
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"request_verdicts"}}"#;
    let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert!(
        check_frame_asking(Some(verdicts), false, &[], &mut Asks::default()).is_err(),
        "silence once the client is initialized"
    );
    assert!(
        check_frame_asking(Some(call), false, &[], &mut Asks(Vec::new(), true)).is_err(),
        "silence for another tool"
    );
    let mut held = Asks(Vec::new(), true);
    assert!(check_frame_asking(Some(verdicts), false, &[], &mut held).is_ok());
    let cancel_held =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
    assert!(check_frame_asking(Some(cancel_held), false, &[], &mut held.clone()).is_ok());
    assert!(check_frame_asking(Some(initialized), false, &[], &mut held.clone()).is_err());
    assert!(
        check_frame_asking(
            Some(initialized),
            false,
            std::slice::from_ref(&asked),
            &mut held
        )
        .is_ok()
    );
    assert_eq!(held.0, vec![(Some(json!("review-mcp-ask-1")), json!(7))]);
}

/// What two servers fed the same stream must agree on, leaving out what each generates for
/// itself (record ids, timestamps, cursors): the id, the kind of answer, the error code and
/// message, the members of a result.
fn skeleton(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(skeleton).collect()),
        _ => {
            let result_keys: Option<Vec<&String>> = v
                .get("result")
                .and_then(Value::as_object)
                .map(|r| r.keys().collect());
            json!({
                "id": v.get("id"),
                "method": v.get("method"),
                "error": v.get("error").map(without_database_path),
                "result": result_keys,
                "isError": v.pointer("/result/isError"),
            })
        }
    }
}

/// An error as the skeleton compares it: a message that names the engineer's terminal
/// command (-32021) holds the run's database path (`--db PATH`), which the in-process server
/// (in memory) has not; like ids and timestamps, it is left out.
fn without_database_path(e: &Value) -> Value {
    let mut e = e.clone();
    // The binary names itself by its path (it is on no PATH), the in-process server
    // `review-mcp`: the program is left out too.
    if let Some(m) = e.get("message").and_then(Value::as_str)
        && let Some(at) = m.find("review-mcp review --db ")
        && let Some(tick) = m[..at].rfind('`')
    {
        let from = at + "review-mcp review ".len();
        let path_end = m[from + "--db ".len()..]
            .find(' ')
            .map_or(m.len(), |i| from + "--db ".len() + i + 1);
        e["message"] = Value::String(format!(
            "{}`review-mcp review {}",
            &m[..tick],
            &m[path_end..]
        ));
    }
    e
}

/// A short run through the binary: 150 mutated cases as one stream. The binary must stay up,
/// write only valid lines, write what one in-process server writes for the same stream (up to
/// generated ids, timestamps and cursors), answer a final ping and exit 0 at EOF.
#[test]
fn fuzz_binary_writes_what_the_in_process_server_writes() -> Result<()> {
    let all = seeds()?;
    let mut rng = Rng::new(DEFAULT_SEED ^ 0xB1);
    let mut stream = Vec::new();
    for _ in 0..150 {
        stream.extend(make_case(&all, &mut rng));
    }
    stream.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":\"fuzz-alive\",\"method\":\"ping\"}\n");
    let mut server = fresh_server()?;
    let expected = run_case(&mut server, &mut Asks::default(), &stream)?;

    let dir = TempDir::new("binary")?;
    let mut child = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .env("REVIEW_MCP_DB_PATH", dir.join("review.db"))
        .env("MCP_LOG_LEVEL", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or_else(|| anyhow!("no stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
    let writer = std::thread::spawn(move || stdin.write_all(&stream));
    let mut got = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        let v: Value =
            serde_json::from_str(&line).with_context(|| format!("not JSON: {line:.300}"))?;
        got.push(v);
    }
    writer
        .join()
        .map_err(|_| anyhow!("writer panicked"))?
        .context("writing to the binary")?;
    let status = child.wait()?;
    ensure!(status.success(), "exit status {status}");
    ensure!(
        got.len() == expected.len(),
        "binary wrote {} messages, in-process {}",
        got.len(),
        expected.len()
    );
    for (n, (g, e)) in got.iter().zip(&expected).enumerate() {
        ensure!(
            skeleton(g) == skeleton(e),
            "message {n}: binary {g:.300} vs in-process {e:.300}"
        );
    }
    ensure!(
        got.last() == Some(&json!({"jsonrpc":"2.0","id":"fuzz-alive","result":{}})),
        "the binary did not answer the final ping"
    );
    Ok(())
}
