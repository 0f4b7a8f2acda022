//! Bounded cost through the real binary (issue 12): the memory and the error list of one
//! request line, listen streams, and the length of a log line. Peak memory is the process's
//! own high-water mark (`VmHWM` in `/proc/<pid>/status`), read after the answer arrived and
//! before the input is closed.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{Context, Result, anyhow, ensure};
use review_mcp::framing::MAX_LINE_BYTES;
use review_mcp::server::{MAX_LISTEN_ID_BYTES, MAX_LISTEN_STREAMS, Server};
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

use crate::support::TempDir;

const REV: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// The bound the issue sets for any line within the limit.
const MAX_PEAK_KB: u64 = 256 * 1024;

/// A running server, fed and read line by line.
struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    _dir: TempDir,
}

impl Running {
    fn start(tag: &str, log_level: &str) -> Result<Running> {
        let dir = TempDir::new(tag)?;
        let mut child = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
            .env("REVIEW_MCP_DB_PATH", dir.join("review.db"))
            .env("MCP_LOG_LEVEL", log_level)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("starting review-mcp")?;
        let stdin = child.stdin.take().ok_or_else(|| anyhow!("no stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
        Ok(Running {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            _dir: dir,
        })
    }

    fn send(&mut self, bytes: &[u8]) -> Result<()> {
        let stdin = self.stdin.as_mut().ok_or_else(|| anyhow!("input closed"))?;
        stdin.write_all(bytes)?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        Ok(())
    }

    fn answer(&mut self) -> Result<Value> {
        let mut line = String::new();
        self.stdout.read_line(&mut line)?;
        serde_json::from_str(&line).with_context(|| format!("not JSON: {line:.200}"))
    }

    fn call(&mut self, message: &Value) -> Result<Value> {
        self.send(message.to_string().as_bytes())?;
        self.answer()
    }

    /// The peak resident memory so far, in KiB.
    fn peak_kb(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .ok_or_else(|| anyhow!("no VmHWM in /proc status"))
    }

    /// Closes the input and returns what the server wrote on stderr.
    fn finish(mut self) -> Result<String> {
        drop(self.stdin.take());
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut err)?;
        }
        let status = self.child.wait()?;
        ensure!(status.success(), "exit status {status}");
        Ok(err)
    }
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":version,"capabilities":{},"clientInfo":{"name":"bounds","version":"1"}}})
}

/// A `tools/call` line of `prefix` + `unit` repeated + `suffix` of exactly `len` bytes or
/// just under (the repeated unit fills the room).
fn filled_line(prefix: &str, unit: &str, suffix: &str, len: usize) -> Vec<u8> {
    let room = len - prefix.len() - suffix.len() - unit.len();
    let mut line = String::with_capacity(len);
    line.push_str(prefix);
    line.push_str(&unit[1..]);
    line.push_str(&unit.repeat(room / unit.len()));
    line.push_str(suffix);
    line.into_bytes()
}

fn call_prefix(tool: &str, args_head: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{tool}","arguments":{{"artifact":{{"revision":"{REV}","format":"step"}},{args_head}"#
    )
}

fn tool_text(answer: &Value) -> Result<&str> {
    answer
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow!("no text in {answer:.300}"))
}

/// A full-size line of failing array items (both shapes the issue measured) is refused with
/// its id, within the memory bound, and the server serves on.
#[test]
fn request_line_of_16_mib_failing_items_is_refused_within_256_mib() -> Result<()> {
    let lines = [
        filled_line(
            &call_prefix(
                "remember_decision",
                r#""subject":"s","disposition":"d","basis":["#,
            ),
            ",{}",
            "]}}}",
            MAX_LINE_BYTES,
        ),
        filled_line(
            &call_prefix("remember", r#""name":"n","entity_ids":["#),
            ",0",
            "]}}}",
            MAX_LINE_BYTES,
        ),
    ];
    for line in lines {
        let mut server = Running::start("16mib", "off")?;
        server.call(&initialize("2025-11-25"))?;
        ensure!(line.len() <= MAX_LINE_BYTES, "{} bytes", line.len());
        server.send(&line)?;
        let answer = server.answer()?;
        let peak = server.peak_kb()?;
        ensure!(answer["id"] == json!(7), "{answer}");
        ensure!(answer["error"]["code"] == json!(-32600), "{answer}");
        ensure!(
            answer.to_string().len() < 300,
            "a short refusal, not an error per item: {answer:.300}"
        );
        ensure!(peak <= MAX_PEAK_KB, "peak {peak} KiB for a 16 MiB line");
        let ping = server.call(&json!({"jsonrpc":"2.0","id":8,"method":"ping"}))?;
        ensure!(
            ping == json!({"jsonrpc":"2.0","id":8,"result":{}}),
            "{ping}"
        );
        server.finish()?;
    }
    Ok(())
}

/// Just under the value bound, every item fails the schema: the answer is a tool error that
/// lists five errors and counts the rest, found without building a million errors.
#[test]
fn request_line_of_a_million_failing_items_lists_five_errors_and_counts_the_rest() -> Result<()> {
    let mut server = Running::start("million", "off")?;
    server.call(&initialize("2025-11-25"))?;
    let items = vec!["0"; 1_000_000].join(",");
    let line = format!(
        "{}{items}]}}}}}}",
        call_prefix("remember", r#""name":"n","entity_ids":["#)
    );
    server.send(line.as_bytes())?;
    let answer = server.answer()?;
    let peak = server.peak_kb()?;
    ensure!(answer["result"]["isError"] == json!(true), "{answer:.300}");
    let text = tool_text(&answer)?;
    ensure!(text.contains("/entity_ids: [0,0,"), "{text}");
    ensure!(text.contains("has more than 10000 items"), "{text}");
    ensure!(text.matches("is not of type").count() == 4, "{text}");
    ensure!(text.contains("; and 9996 more errors."), "{text}");
    ensure!(text.len() < 2000, "{} bytes of errors", text.len());
    ensure!(peak <= MAX_PEAK_KB / 2, "peak {peak} KiB for a 2 MB line");
    server.finish()?;
    Ok(())
}

/// Items within every `maxItems` that each fail: the first error and "maybe more", not ten
/// million errors.
#[test]
fn request_nested_failing_items_within_limits_report_the_first_error() -> Result<()> {
    let mut server = Running::start("nested", "off")?;
    server.call(&initialize("2025-11-25"))?;
    let item = format!(
        r#"{{"requirement":"r","source":"drawing","state":"satisfied","faces":[{}]}}"#,
        vec!["0"; 10_000].join(",")
    );
    let line = format!(
        "{}{}]}}}}}}",
        call_prefix(
            "remember_decision",
            r#""subject":"s","disposition":"d","basis":["#
        ),
        vec![item; 100].join(",")
    );
    server.send(line.as_bytes())?;
    let answer = server.answer()?;
    let peak = server.peak_kb()?;
    let text = tool_text(&answer)?;
    ensure!(
        text.contains("/basis/0/faces/0: 0 is not of type \"string\"; and maybe more"),
        "{text}"
    );
    ensure!(peak <= MAX_PEAK_KB / 2, "peak {peak} KiB for a 2 MB line");
    server.finish()?;
    Ok(())
}

fn listen(id: Value) -> Vec<u8> {
    json!({"jsonrpc":"2.0","id":id,"method":"subscriptions/listen","params":{"notifications":{},
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                 "io.modelcontextprotocol/clientCapabilities":{}}}})
    .to_string()
    .into_bytes()
}

fn is_ack(answers: &[Value]) -> bool {
    matches!(answers, [a] if a["method"] == json!("notifications/subscriptions/acknowledged"))
}

fn server() -> Result<Server> {
    Ok(Server::new(Service::new(Store::open_in_memory()?)))
}

/// Streams past the cap are refused with an error to that request; cancelling one makes room.
#[test]
fn listen_streams_past_the_cap_are_refused_until_one_is_cancelled() -> Result<()> {
    let mut s = server()?;
    for i in 0..MAX_LISTEN_STREAMS {
        let got = s.handle_line(&listen(json!(i)));
        ensure!(is_ack(&got), "stream {i}: {got:?}");
    }
    let refused = s.handle_line(&listen(json!("one too many")));
    ensure!(
        matches!(refused.as_slice(), [e] if e["id"] == json!("one too many")
            && e["error"]["code"] == json!(-32600)
            && e["error"]["message"].as_str().is_some_and(|m| m.contains("at most 64"))),
        "{refused:?}"
    );
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled",
                        "params":{"requestId":3}});
    ensure!(s.handle_line(cancel.to_string().as_bytes()).is_empty());
    ensure!(is_ack(&s.handle_line(&listen(json!("room again")))));
    Ok(())
}

/// Regression: a second stream under the id of an open one was acknowledged, so every
/// notification went out twice and one cancellation closed both. Request ids are unique
/// among the requests in flight: the second is refused, and the id is free again once its
/// stream is cancelled.
#[test]
fn listen_under_the_id_of_an_open_stream_is_refused() -> Result<()> {
    let mut s = server()?;
    ensure!(is_ack(&s.handle_line(&listen(json!(7)))));
    let refused = s.handle_line(&listen(json!(7)));
    ensure!(
        matches!(refused.as_slice(), [e] if e["id"] == json!(7)
            && e["error"]["code"] == json!(-32600)
            && e["error"]["message"].as_str().is_some_and(|m| m.contains("already"))),
        "{refused:?}"
    );
    ensure!(is_ack(&s.handle_line(&listen(json!("7")))), "another id");
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled",
                        "params":{"requestId":7}});
    ensure!(s.handle_line(cancel.to_string().as_bytes()).is_empty());
    ensure!(is_ack(&s.handle_line(&listen(json!(7)))), "free again");
    Ok(())
}

/// Regression: a request other than a listen under the id of an open stream was served
/// (found by the wire review): its answer carries that id, which in 2026-07-28 is the answer
/// that ends the stream, so the client took the stream as closed while the server kept it.
/// It is refused (-32600, nothing run) in either era.
#[test]
fn a_request_under_the_id_of_an_open_stream_is_refused() -> Result<()> {
    let mut s = server()?;
    ensure!(is_ack(&s.handle_line(&listen(json!(7)))));
    let modern = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let legacy = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
    for dup in [modern.clone(), legacy] {
        let refused = s.handle_line(dup.to_string().as_bytes());
        ensure!(
            matches!(refused.as_slice(), [e] if e["id"] == json!(7)
                && e["error"]["code"] == json!(-32600)
                && e["error"]["message"].as_str().is_some_and(|m| m.contains("in flight"))),
            "{dup}: {refused:?}"
        );
    }
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled",
                        "params":{"requestId":7}});
    ensure!(s.handle_line(cancel.to_string().as_bytes()).is_empty());
    let served = s.handle_line(modern.to_string().as_bytes());
    ensure!(
        matches!(served.as_slice(), [r] if r["result"]["tools"].is_array()),
        "{served:?}"
    );
    Ok(())
}

/// Regression: ids were compared as written, so a stream opened under `1.0` (a whole number
/// the schema's `RequestId` counts as the integer 1, and the server echoes as sent) was not
/// the stream of id `1`: a second listen under `1` was acknowledged (every notification went
/// out twice) and `notifications/cancelled` with `requestId: 1` left the stream open.
#[test]
fn a_whole_number_id_written_as_a_float_names_the_same_stream() -> Result<()> {
    let mut s = server()?;
    ensure!(is_ack(&s.handle_line(&listen(json!(1.0)))));
    for same in [json!(1), json!(1.0)] {
        let refused = s.handle_line(&listen(same.clone()));
        ensure!(
            matches!(refused.as_slice(), [e] if e["error"]["code"] == json!(-32600)
                && e["error"]["message"].as_str().is_some_and(|m| m.contains("already"))),
            "{same}: {refused:?}"
        );
    }
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled",
                        "params":{"requestId":1}});
    ensure!(s.handle_line(cancel.to_string().as_bytes()).is_empty());
    ensure!(is_ack(&s.handle_line(&listen(json!(1)))), "free again");
    ensure!(is_ack(&s.handle_line(&listen(json!(-0.0)))));
    ensure!(!is_ack(&s.handle_line(&listen(json!(0)))), "-0.0 is 0");
    Ok(())
}

/// A long string id is refused instead of kept for the life of the stream.
#[test]
fn listen_with_an_id_over_the_byte_bound_is_refused_not_kept() -> Result<()> {
    let mut s = server()?;
    let long = "i".repeat(MAX_LISTEN_ID_BYTES + 1);
    for _ in 0..(MAX_LISTEN_STREAMS + 1) {
        let got = s.handle_line(&listen(json!(long)));
        ensure!(
            matches!(got.as_slice(), [e] if e["id"] == json!(long)
                && e["error"]["code"] == json!(-32600)),
            "{:.300}",
            format!("{got:?}")
        );
    }
    // None of them was kept: a full set of streams still fits.
    for i in 0..MAX_LISTEN_STREAMS {
        ensure!(is_ack(&s.handle_line(&listen(json!(i)))), "stream {i}");
    }
    let exact = "j".repeat(MAX_LISTEN_ID_BYTES);
    ensure!(
        !is_ack(&s.handle_line(&listen(json!(exact)))),
        "the cap holds"
    );
    Ok(())
}

/// A 4 MiB protocol version and a 4 MiB notification method reach the logs cut, with a
/// marker, at the most verbose level.
#[test]
fn log_lines_quoting_client_values_of_megabytes_stay_short() -> Result<()> {
    let mut server = Running::start("logs", "debug")?;
    let huge = "9".repeat(4 << 20);
    let answer = server.call(
        &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":huge,"capabilities":{},"clientInfo":{"name":"bounds","version":"1"}}}),
    )?;
    ensure!(
        answer["result"]["protocolVersion"] == json!("2025-11-25"),
        "{answer:.300}"
    );
    server.send(
        json!({"jsonrpc":"2.0","method":huge})
            .to_string()
            .as_bytes(),
    )?;
    let ping = server.call(&json!({"jsonrpc":"2.0","id":1,"method":"ping"}))?;
    ensure!(ping["result"] == json!({}), "{ping}");
    let stderr = server.finish()?;
    let longest = stderr.lines().map(str::len).max().unwrap_or(0);
    ensure!(longest < 8192, "a {longest}-byte log line");
    let cut = format!("…[{} bytes cut]", huge.len() - 256);
    ensure!(
        stderr
            .lines()
            .any(|l| l.contains("client asked for protocol") && l.contains(&cut)),
        "{stderr:.2000}"
    );
    ensure!(
        stderr
            .lines()
            .any(|l| l.contains("notification 999") && l.contains(&cut)),
        "{stderr:.2000}"
    );
    Ok(())
}
