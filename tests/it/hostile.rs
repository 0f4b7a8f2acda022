//! Hostile input: a table of bad lines, each with the exact answer expected and proof that the
//! server still serves afterwards; the same through the real binary with a 17 MB line; and a
//! deterministic 10,000-line stream of garbage, truncated JSON, wrong types, oversized lines,
//! notifications and valid requests through the binary.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, anyhow, bail, ensure};
use review_mcp::framing::{Frame, MAX_LINE_BYTES};
use review_mcp::server::{MAX_BATCH_LEN, Server};
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

use crate::support::{Rng, TempDir};

const PV: &str = "io.modelcontextprotocol/protocolVersion";
const CC: &str = "io.modelcontextprotocol/clientCapabilities";

fn initialize(id: i64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},
        "clientInfo":{"name":"hostile","version":"1"}}})
}

fn line(v: &Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

fn parse_error() -> Value {
    json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON text; send each message as one line of UTF-8 JSON"}})
}

/// -32700 for a request whose id could be read though its JSON could not.
fn unreadable(id: Value, reason: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"error":{"code":-32700,"message":format!(
        "Parse error: {reason}: the request holds a value that cannot be read (a lone UTF-16 surrogate in a string, a number out of range, or nesting 128 levels deep or more)")}})
}

fn invalid(id: Value, reason: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"error":{"code":-32600,"message":format!("Invalid Request: {reason}")}})
}

fn bad_id() -> Value {
    invalid(Value::Null, "\"id\" must be a string or an integer")
}

fn bad_version(id: Value) -> Value {
    invalid(id, "\"jsonrpc\" must be \"2.0\"")
}

fn bad_params(id: i64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"error":{"code":-32602,"message":"\"params\" must be an object"}})
}

fn not_found(id: Value, method: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"error":{"code":-32601,"message":format!("Method not found: {method}")}})
}

fn too_long() -> Value {
    invalid(
        Value::Null,
        &format!("the line is longer than the {MAX_LINE_BYTES} byte limit"),
    )
}

/// One row of the table: what is sent and every message expected back, exactly.
struct Case {
    name: &'static str,
    input: Frame,
    expected: Vec<Value>,
}

fn case(name: &'static str, bytes: impl Into<Vec<u8>>, expected: Vec<Value>) -> Case {
    Case {
        name,
        input: Frame::Line(bytes.into()),
        expected,
    }
}

fn nested(open: &str, close: &str, depth: usize) -> Vec<u8> {
    format!("{}{}", open.repeat(depth), close.repeat(depth)).into_bytes()
}

fn table() -> Vec<Case> {
    let huge_string_id = "i".repeat(1 << 20);
    let long_method = "m".repeat(100_000);
    vec![
        case("not JSON", "hello, server", vec![parse_error()]),
        case(
            "truncated JSON",
            r#"{"jsonrpc":"2.0","id":1,"me"#,
            vec![parse_error()],
        ),
        case(
            "trailing comma",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping",}"#,
            vec![parse_error()],
        ),
        case(
            "two messages on one line",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} {"jsonrpc":"2.0","id":2,"method":"ping"}"#,
            vec![parse_error()],
        ),
        case(
            "invalid UTF-8 bytes",
            b"\xff\xfe\xfd".to_vec(),
            vec![parse_error()],
        ),
        case(
            "invalid UTF-8 inside a string",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\xc3\x28ng\"}".to_vec(),
            vec![parse_error()],
        ),
        case(
            "overlong UTF-8 encoding",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc0\xaf\"}".to_vec(),
            vec![parse_error()],
        ),
        // Valid JSON text that no value can hold, with its id still readable: the refusal
        // names the request, so the client's call does not wait for its timeout.
        case(
            "lone surrogate escape",
            r#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#,
            vec![unreadable(
                json!(1),
                "unexpected end of hex escape at line 1 column 41",
            )],
        ),
        Case {
            name: "line over the maximum length",
            input: Frame::TooLong { len: 17_000_000 },
            expected: vec![too_long()],
        },
        case(
            "10,000 levels of array nesting",
            nested("[", "]", 10_000),
            vec![parse_error()],
        ),
        case(
            "10,000 levels of object nesting",
            nested("{\"a\":", "}", 10_000),
            vec![parse_error()],
        ),
        case(
            "10,000 unclosed brackets",
            "[".repeat(10_000),
            vec![parse_error()],
        ),
        case(
            "nesting inside params (the id is still read)",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}}}}}"#,
                String::from_utf8_lossy(&nested("[", "]", 10_000))
            ),
            vec![unreadable(
                json!(1),
                "recursion limit exceeded at line 1 column 180",
            )],
        ),
        // The bound is serde_json's: 127 levels are read, 128 are not (the message and the
        // docs said "over 128", so a client kept to 128 levels was refused).
        case(
            "nesting 127 levels deep in all",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}}}}}"#,
                String::from_utf8_lossy(&nested("[", "]", 125))
            ),
            vec![json!({"jsonrpc":"2.0","id":1,"result":{}})],
        ),
        case(
            "nesting 128 levels deep in all",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}}}}}"#,
                String::from_utf8_lossy(&nested("[", "]", 126))
            ),
            vec![unreadable(
                json!(1),
                "recursion limit exceeded at line 1 column 180",
            )],
        ),
        case(
            "jsonrpc missing",
            line(&json!({"id":1,"method":"ping"})),
            vec![bad_version(json!(1))],
        ),
        case(
            "jsonrpc 1.0",
            line(&json!({"jsonrpc":"1.0","id":"a","method":"ping"})),
            vec![bad_version(json!("a"))],
        ),
        case(
            "jsonrpc as a number",
            line(&json!({"jsonrpc":2.0,"id":3,"method":"ping"})),
            vec![bad_version(json!(3))],
        ),
        case(
            "id a float",
            line(&json!({"jsonrpc":"2.0","id":1.5,"method":"ping"})),
            vec![bad_id()],
        ),
        // A number with no fractional part is an integer to the schema's RequestId (JSON
        // Schema's "integer"): it is answered under that id, never with id null.
        case(
            "id a whole float is echoed",
            r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
            vec![json!({"jsonrpc":"2.0","id":1.0,"result":{}})],
        ),
        case(
            "id in exponent form is echoed",
            r#"{"jsonrpc":"2.0","id":1e2,"method":"ping"}"#,
            vec![json!({"jsonrpc":"2.0","id":100.0,"result":{}})],
        ),
        case(
            "id minus zero is echoed",
            r#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#,
            vec![json!({"jsonrpc":"2.0","id":-0.0,"result":{}})],
        ),
        case(
            "id a whole float in a line whose JSON cannot be held",
            r#"{"jsonrpc":"2.0","id":2.0,"method":"\ud800"}"#,
            vec![unreadable(
                json!(2.0),
                "unexpected end of hex escape at line 1 column 43",
            )],
        ),
        case(
            "id an object",
            line(&json!({"jsonrpc":"2.0","id":{"n":1},"method":"ping"})),
            vec![bad_id()],
        ),
        case(
            "id an array",
            line(&json!({"jsonrpc":"2.0","id":[1],"method":"ping"})),
            vec![bad_id()],
        ),
        case(
            "id null",
            line(&json!({"jsonrpc":"2.0","id":null,"method":"ping"})),
            vec![bad_id()],
        ),
        case(
            "id true",
            line(&json!({"jsonrpc":"2.0","id":true,"method":"ping"})),
            vec![bad_id()],
        ),
        case(
            "id false",
            line(&json!({"jsonrpc":"2.0","id":false,"method":"ping"})),
            vec![bad_id()],
        ),
        case(
            "id beyond u64",
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#,
            vec![bad_id()],
        ),
        case(
            "id beyond i64 negative",
            r#"{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}"#,
            vec![bad_id()],
        ),
        case(
            "id with 400 digits",
            format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"ping"}}"#,
                "9".repeat(400)
            ),
            vec![parse_error()],
        ),
        case(
            "id u64 max is echoed",
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
            vec![json!({"jsonrpc":"2.0","id":18446744073709551615u64,"result":{}})],
        ),
        case(
            "id i64 min is echoed",
            r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}"#,
            vec![json!({"jsonrpc":"2.0","id":i64::MIN,"result":{}})],
        ),
        case(
            "a 1 MB string id is echoed",
            line(&json!({"jsonrpc":"2.0","id":huge_string_id,"method":"ping"})),
            vec![json!({"jsonrpc":"2.0","id":huge_string_id,"result":{}})],
        ),
        case(
            "batch array outside 2025-03-26",
            line(
                &json!([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]),
            ),
            vec![invalid(
                Value::Null,
                "batches are only accepted in a 2025-03-26 session",
            )],
        ),
        case(
            "empty array",
            "[]",
            vec![invalid(Value::Null, "empty batch")],
        ),
        case(
            "a bare number",
            "42",
            vec![invalid(Value::Null, "a JSON-RPC message must be an object")],
        ),
        case(
            "a bare string",
            "\"ping\"",
            vec![invalid(Value::Null, "a JSON-RPC message must be an object")],
        ),
        case(
            "null",
            "null",
            vec![invalid(Value::Null, "a JSON-RPC message must be an object")],
        ),
        case("empty object", "{}", vec![bad_version(Value::Null)]),
        case(
            "method a number",
            line(&json!({"jsonrpc":"2.0","id":4,"method":4})),
            vec![invalid(json!(4), "\"method\" must be a string")],
        ),
        case(
            "method missing",
            line(&json!({"jsonrpc":"2.0","id":5,"params":{}})),
            vec![invalid(json!(5), "a request needs a \"method\"")],
        ),
        case(
            "client result response",
            line(&json!({"jsonrpc":"2.0","id":1,"result":{}})),
            vec![],
        ),
        case(
            "client error response",
            line(&json!({"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}})),
            vec![],
        ),
        case(
            "client response with null id",
            line(&json!({"jsonrpc":"2.0","id":null,"result":{}})),
            vec![],
        ),
        case(
            "unknown method with id",
            line(&json!({"jsonrpc":"2.0","id":6,"method":"no/such"})),
            vec![not_found(json!(6), "no/such")],
        ),
        case(
            "unknown method without id",
            line(&json!({"jsonrpc":"2.0","method":"no/such"})),
            vec![],
        ),
        case(
            "a 100,000-byte method name (named by its first 100 characters)",
            line(&json!({"jsonrpc":"2.0","id":7,"method":long_method})),
            vec![not_found(json!(7), &format!("{}…", &long_method[..100]))],
        ),
        case(
            "params an array",
            line(&json!({"jsonrpc":"2.0","id":8,"method":"tools/list","params":[]})),
            vec![bad_params(8)],
        ),
        case(
            "params a string",
            line(&json!({"jsonrpc":"2.0","id":9,"method":"ping","params":"x"})),
            vec![bad_params(9)],
        ),
        case(
            "params a number",
            line(&json!({"jsonrpc":"2.0","id":10,"method":"prompts/list","params":1})),
            vec![bad_params(10)],
        ),
        case(
            "params a boolean",
            line(&json!({"jsonrpc":"2.0","id":11,"method":"resources/list","params":true})),
            vec![bad_params(11)],
        ),
        case(
            "modern params an array",
            line(
                &json!({"jsonrpc":"2.0","id":12,"method":"server/discover","params":[{"_meta":{PV:"2026-07-28",CC:{}}}]}),
            ),
            vec![bad_params(12)],
        ),
        case(
            "_meta not an object",
            line(&json!({"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"_meta":[PV]}})),
            vec![json!({"jsonrpc":"2.0","id":13,"result":{"tools":"{{any}}"}})],
        ),
        case(
            "raw NUL byte in a string",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\x00ng\"}".to_vec(),
            vec![parse_error()],
        ),
        case(
            "raw NUL byte between tokens",
            b"{\"jsonrpc\":\"2.0\",\x00\"id\":1,\"method\":\"ping\"}".to_vec(),
            vec![parse_error()],
        ),
        case("a line of NUL bytes", vec![0u8; 1000], vec![parse_error()]),
        case(
            "escaped NUL in the method",
            r#"{"jsonrpc":"2.0","id":14,"method":"ping\u0000"}"#,
            // Shown escaped, as every refusal shows what the client sent.
            vec![not_found(json!(14), "ping\\u{0}")],
        ),
        case(
            "right-to-left mark in the method",
            line(&json!({"jsonrpc":"2.0","id":15,"method":"\u{202e}gnip"})),
            vec![not_found(json!(15), "\\u{202e}gnip")],
        ),
        // RFC 8259 lets a parser ignore a byte order mark: as a parse error it got id null,
        // and the client waited for its answer until its own timeout. Only one is ignored.
        case(
            "byte order mark before the JSON",
            b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".to_vec(),
            vec![json!({"jsonrpc":"2.0","id":1,"result":{}})],
        ),
        case(
            "two byte order marks before the JSON",
            b"\xef\xbb\xbf\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".to_vec(),
            vec![parse_error()],
        ),
        case("whitespace only", " \t \r", vec![]),
        case(
            "a form feed is not JSON whitespace",
            "\x0c",
            vec![parse_error()],
        ),
        case(
            "a vertical tab is not JSON whitespace",
            " \x0b ",
            vec![parse_error()],
        ),
        case(
            "notification with wrong-typed params",
            line(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":7})),
            vec![],
        ),
        // Valid JSON text no value can hold, in a message that is never answered: a
        // notification (a JavaScript client's `reason` cut inside an emoji) or a response
        // answering no question of ours gets nothing back, as if it could be read.
        case(
            "notification holding a lone surrogate escape",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"stop \ud83d"}}"#,
            vec![],
        ),
        case(
            "notification nested over 128 levels",
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"x":{}}}}}"#,
                String::from_utf8_lossy(&nested("[", "]", 200))
            ),
            vec![],
        ),
        case(
            "client response holding a number out of range",
            r#"{"jsonrpc":"2.0","id":"not-asked","result":{"n":1e999}}"#,
            vec![],
        ),
        case(
            "client error response without an id holding a lone surrogate escape",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"\udc00"}}"#,
            vec![],
        ),
        case(
            "cancel naming an unknown request",
            line(
                &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}}),
            ),
            vec![],
        ),
    ]
}

/// A fresh server with a 2025-11-25 session open.
fn initialized_server() -> Result<Server> {
    let mut server = Server::new(Service::new(Store::open_in_memory()?));
    let out = server.handle_line(&line(&initialize(0)));
    ensure!(
        out.len() == 1 && out[0].pointer("/result/protocolVersion") == Some(&json!("2025-11-25")),
        "initialize failed: {out:?}"
    );
    Ok(server)
}

/// Compares with the replay wildcard, so `"{{any}}"` can stand for a list that other work
/// fills in.
fn assert_answers(what: &str, got: &[Value], expected: &[Value]) -> Result<()> {
    ensure!(
        got.len() == expected.len(),
        "{what}: expected {} message(s), got {}: {}",
        expected.len(),
        got.len(),
        short(got)
    );
    for (g, e) in got.iter().zip(expected) {
        if let Some(d) = review_mcp::replay::first_difference(e, g) {
            bail!(
                "{what}: differs at {}: expected {}, got {}",
                d.path,
                d.expected,
                d.got
            );
        }
    }
    Ok(())
}

fn short(v: &[Value]) -> String {
    let s = serde_json::to_string(v).unwrap_or_default();
    s.chars().take(400).collect()
}

/// Proof that a server still serves: ping answers exactly {} and tools/list answers a list.
fn assert_still_serving(server: &mut Server, what: &str) -> Result<()> {
    let ping = server.handle_line(br#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#);
    assert_answers(
        &format!("{what}: ping afterwards"),
        &ping,
        &[json!({"jsonrpc":"2.0","id":"after","result":{}})],
    )?;
    let list = server.handle_line(br#"{"jsonrpc":"2.0","id":"list","method":"tools/list"}"#);
    ensure!(
        list.len() == 1
            && list[0]
                .pointer("/result/tools")
                .is_some_and(Value::is_array),
        "{what}: tools/list afterwards: {}",
        short(&list)
    );
    Ok(())
}

#[test]
fn hostile_each_bad_input_gets_its_exact_answer_and_serving_continues() -> Result<()> {
    let mut failures = Vec::new();
    for c in table() {
        let mut server = initialized_server()?;
        let got = server.handle_frame(c.input);
        let outcome = assert_answers(c.name, &got, &c.expected)
            .and_then(|()| assert_still_serving(&mut server, c.name));
        if let Err(e) = outcome {
            failures.push(e.to_string());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

#[test]
fn hostile_whole_table_in_one_session_keeps_the_session() -> Result<()> {
    let mut server = initialized_server()?;
    for c in table() {
        let got = server.handle_frame(c.input);
        assert_answers(c.name, &got, &c.expected)?;
    }
    assert_still_serving(&mut server, "after the whole table")?;
    let version = server.session().map(|s| s.version.as_str());
    assert_eq!(version, Some("2025-11-25"));
    Ok(())
}

#[test]
fn hostile_bad_input_before_any_session_is_answered_the_same() -> Result<()> {
    // Without initialize only ping is served, but every bad line still gets its answer.
    for c in table() {
        let mut server = Server::new(Service::new(Store::open_in_memory()?));
        let got = server.handle_frame(c.input);
        let expected: Vec<Value> = c
            .expected
            .iter()
            .filter(|e| e.get("result").is_none() || e.pointer("/result/tools").is_none())
            .cloned()
            .collect();
        if expected.len() == c.expected.len() {
            assert_answers(c.name, &got, &expected)?;
        } else {
            ensure!(got.len() == 1, "{}: {}", c.name, short(&got));
        }
        let ping = server.handle_line(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert_answers(
            c.name,
            &ping,
            &[json!({"jsonrpc":"2.0","id":1,"result":{}})],
        )?;
    }
    Ok(())
}

/// A fresh server with a 2025-03-26 session, the one revision with batches.
fn batch_session_server() -> Result<Server> {
    let mut server = Server::new(Service::new(Store::open_in_memory()?));
    let mut init = initialize(0);
    init["params"]["protocolVersion"] = json!("2025-03-26");
    let out = server.handle_line(&line(&init));
    ensure!(
        out.len() == 1 && out[0].pointer("/result/protocolVersion") == Some(&json!("2025-03-26")),
        "initialize failed: {out:?}"
    );
    Ok(server)
}

fn too_big_batch() -> Value {
    invalid(
        Value::Null,
        &format!("a batch may hold at most {MAX_BATCH_LEN} messages"),
    )
}

#[test]
fn hostile_batch_over_the_limit_is_one_error_and_serving_continues() -> Result<()> {
    let mut server = batch_session_server()?;
    // Two bytes of input per entry must not buy an answer each.
    let over = format!("[{}1]", "1,".repeat(MAX_BATCH_LEN));
    assert_answers(
        "over the limit",
        &server.handle_line(over.as_bytes()),
        &[too_big_batch()],
    )?;
    // Exactly the limit is a batch like any other.
    let pings: Vec<Value> = (0..MAX_BATCH_LEN)
        .map(|i| json!({"jsonrpc":"2.0","id":i,"method":"ping"}))
        .collect();
    let out = server.handle_line(&line(&Value::Array(pings)));
    ensure!(out.len() == 1, "one array expected");
    let answers = out[0].as_array().ok_or_else(|| anyhow!("not an array"))?;
    ensure!(answers.len() == MAX_BATCH_LEN, "{} answers", answers.len());
    ensure!(
        answers[MAX_BATCH_LEN - 1] == json!({"jsonrpc":"2.0","id":MAX_BATCH_LEN - 1,"result":{}})
    );
    // The modern era has no batches: an enveloped entry is refused with its id, and a listen
    // acknowledgement never lands inside the response array.
    let meta = json!({PV: "2026-07-28", CC: {}});
    let mixed = json!([
        {"jsonrpc":"2.0","id":"legacy","method":"ping"},
        {"jsonrpc":"2.0","id":"discover","method":"server/discover","params":{"_meta":meta}},
        {"jsonrpc":"2.0","id":"listen","method":"subscriptions/listen","params":{"notifications":{},"_meta":meta}},
    ]);
    let refused = |id: &str| invalid(json!(id), "2026-07-28 requests cannot be batched");
    assert_answers(
        "modern entries in a batch",
        &server.handle_line(&line(&mixed)),
        &[json!([
            {"jsonrpc":"2.0","id":"legacy","result":{}},
            refused("discover"),
            refused("listen"),
        ])],
    )?;
    assert_still_serving(&mut server, "after the batches")
}

/// A 2025-03-26 batch answer is one line, and it stays within the line limit like every other
/// answer: a thousand reads of the 30 KB card asked for 30 MB in one line (17.5 MB was
/// measured for 1,000 reads of a revision), more than the server itself accepts from a peer.
/// The members that would not fit are answered -32600 with their ids and not run, so a write
/// among them writes nothing.
#[test]
fn hostile_batch_answer_stays_within_the_line_limit_and_runs_nothing_it_cannot_answer() -> Result<()>
{
    let mut server = batch_session_server()?;
    let mut batch: Vec<Value> = (0..MAX_BATCH_LEN - 1)
        .map(|i| json!({"jsonrpc":"2.0","id":i,"method":"resources/read","params":{"uri":"ui://review-mcp/review-card"}}))
        .collect();
    let note = json!({"artifact": {"revision": format!("sha256:{}", "e".repeat(64)), "format": "step"}, "entity_ids": ["face:1"], "note": "late"});
    batch.push(json!({"jsonrpc":"2.0","id":"write","method":"tools/call","params":{"name":"remember","arguments":note}}));
    let mut out = Vec::new();
    server.serve_frame(Frame::Line(line(&Value::Array(batch))), &mut out)?;
    let text = String::from_utf8(out)?;
    let lines: Vec<&str> = text.lines().collect();
    ensure!(!lines.is_empty(), "no answer");
    ensure!(
        lines[0].len() <= MAX_LINE_BYTES,
        "the batch answer is {} bytes, over the {MAX_LINE_BYTES} byte line limit",
        lines[0].len()
    );
    let answers: Vec<Value> = serde_json::from_str(lines[0])?;
    ensure!(answers.len() == MAX_BATCH_LEN, "{} answers", answers.len());
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    ensure!(
        ids[0] == &json!(0) && ids[MAX_BATCH_LEN - 1] == &json!("write"),
        "out of order"
    );
    let served = answers
        .iter()
        .take_while(|a| a.get("result").is_some())
        .count();
    ensure!(served > 100, "only {served} reads answered");
    for a in &answers[served..] {
        ensure!(a["error"]["code"] == json!(-32600), "{a}");
        let message = a["error"]["message"].as_str().unwrap_or_default();
        ensure!(
            message.contains("not run") && message.contains("smaller batch"),
            "{message}"
        );
    }
    let recall = json!({"jsonrpc":"2.0","id":"recall","method":"tools/call","params":{"name":"recall","arguments":{"text":"late"}}});
    let got = server.handle_line(&line(&recall));
    // 2025-03-26 has no structuredContent: the JSON is the second text block.
    let records = got
        .first()
        .and_then(|g| g.pointer("/result/content/1/text"))
        .and_then(Value::as_str)
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
        .map(|v| v["records"].clone());
    ensure!(
        records == Some(json!([])),
        "the refused write was run: {got:?}"
    );
    assert_still_serving(&mut server, "after the large batch")
}

// ---------------------------------------------------------------------------------------
// Through the real binary.

/// What the binary wrote for the given input, and its exit status. The input is written
/// from another thread while stdout is drained here, so neither side can block the other.
fn run_binary(input: Vec<u8>, tag: &str) -> Result<(Vec<String>, std::process::ExitStatus)> {
    let dir = TempDir::new(tag)?;
    let mut child = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .env("REVIEW_MCP_DB_PATH", dir.join("review.db"))
        .env("MCP_LOG_LEVEL", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting review-mcp")?;
    let mut stdin = child.stdin.take().ok_or_else(|| anyhow!("no stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        stdin.write_all(&input)?;
        stdin.flush()
        // Dropping stdin closes it: EOF for the server.
    });
    let mut lines = Vec::new();
    for l in BufReader::new(stdout).lines() {
        lines.push(l.context("the server wrote a line that is not UTF-8")?);
    }
    writer
        .join()
        .map_err(|_| anyhow!("writer thread panicked"))?
        .context("writing to the server")?;
    let status = child.wait()?;
    Ok((lines, status))
}

fn parse_lines(lines: &[String]) -> Result<Vec<Value>> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).with_context(|| format!("not JSON: {l:.200}")))
        .collect()
}

#[test]
fn hostile_binary_survives_a_17_mb_line() -> Result<()> {
    let mut input = line(&initialize(0));
    input.push(b'\n');
    input.extend_from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#);
    input.extend(std::iter::repeat_n(b'x', 17_000_000));
    input.extend_from_slice(b"\"}}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n");
    let (lines, status) = run_binary(input, "17mb")?;
    let got = parse_lines(&lines)?;
    ensure!(got.len() == 4, "expected 4 lines, got {}", got.len());
    assert_answers(
        "oversized line",
        &got[1..3],
        &[too_long(), json!({"jsonrpc":"2.0","id":2,"result":{}})],
    )?;
    ensure!(got[3].pointer("/result/tools").is_some_and(Value::is_array));
    ensure!(status.success(), "exit status {status}");
    Ok(())
}

/// The amplification case at full size: a line just under the limit holding eight million
/// batch entries, in the one session that accepts batches.
#[test]
fn hostile_binary_answers_an_8_million_entry_batch_with_one_error() -> Result<()> {
    let mut init = initialize(0);
    init["params"]["protocolVersion"] = json!("2025-03-26");
    let mut input = line(&init);
    input.push(b'\n');
    input.push(b'[');
    input.extend("1,".repeat(8_000_000).into_bytes());
    input.extend_from_slice(b"1]\n");
    ensure!(
        input.len() < MAX_LINE_BYTES + 200,
        "the batch must fit the line limit"
    );
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    let (lines, status) = run_binary(input, "bigbatch")?;
    let got = parse_lines(&lines)?;
    ensure!(got.len() == 3, "expected 3 lines, got {}", got.len());
    assert_answers(
        "8 million entries",
        &got[1..],
        &[too_big_batch(), json!({"jsonrpc":"2.0","id":2,"result":{}})],
    )?;
    ensure!(status.success(), "exit status {status}");
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The 10,000-line stream.

/// What one generated line must produce.
#[derive(Debug, Clone, PartialEq)]
enum Want {
    /// Nothing (a notification, a client response, a blank line).
    Nothing,
    /// An error with this code and id.
    Error(i64, Value),
    /// A result for this id.
    Result(Value),
}

/// The deterministic hostile stream: `(line without newline, what it must produce)`.
fn hostile_stream(count: usize, oversized: usize) -> Vec<(Vec<u8>, Want)> {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut out = vec![(line(&initialize(0)), Want::Result(json!(0)))];
    let oversized_at: Vec<usize> = (1..=oversized)
        .map(|k| k * count / (oversized + 1))
        .collect();
    let mut next_id: i64 = 1;
    while out.len() < count {
        if oversized_at.contains(&out.len()) {
            let mut l = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#.to_vec();
            l.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES + 1));
            l.extend_from_slice(b"\"}}");
            out.push((l, Want::Error(-32600, Value::Null)));
            continue;
        }
        let id = next_id;
        next_id += 1;
        let valid = json!({"jsonrpc":"2.0","id":id,"method":"ping"});
        let entry = match rng.below(12) {
            // Garbage: random bytes (never a newline) behind a byte no JSON starts with.
            0 | 1 => {
                let n = 1 + rng.below(200);
                let mut l = vec![b'@'];
                l.extend(
                    (0..n)
                        .map(|_| (rng.next_u64() as u8).max(1))
                        .map(|b| if b == b'\n' { b'?' } else { b }),
                );
                (l, Want::Error(-32700, Value::Null))
            }
            // Truncated JSON: a valid request cut short (a prefix of an object never parses).
            2 | 3 => {
                let full = line(
                    &json!({"jsonrpc":"2.0","id":id,"method":"tools/list","params":{"cursor":"abc"}}),
                );
                let cut = 1 + rng.below(full.len() - 1);
                (full[..cut].to_vec(), Want::Error(-32700, Value::Null))
            }
            // Wrong types.
            4 | 5 => {
                let wrong = [
                    (
                        json!({"jsonrpc":2,"id":id,"method":"ping"}),
                        Want::Error(-32600, json!(id)),
                    ),
                    (
                        json!({"jsonrpc":"2.0","id":(id as f64) + 0.5,"method":"ping"}),
                        Want::Error(-32600, Value::Null),
                    ),
                    (
                        json!({"jsonrpc":"2.0","id":true,"method":"ping"}),
                        Want::Error(-32600, Value::Null),
                    ),
                    (
                        json!({"jsonrpc":"2.0","id":[id],"method":"ping"}),
                        Want::Error(-32600, Value::Null),
                    ),
                    (
                        json!({"jsonrpc":"2.0","id":id,"method":[1]}),
                        Want::Error(-32600, json!(id)),
                    ),
                    (
                        json!({"jsonrpc":"2.0","id":id,"method":"tools/list","params":[1]}),
                        Want::Error(-32602, json!(id)),
                    ),
                    (
                        json!({"jsonrpc":"2.0","id":id,"method":"ping","params":"s"}),
                        Want::Error(-32602, json!(id)),
                    ),
                    (json!([valid.clone()]), Want::Error(-32600, Value::Null)),
                    (json!([]), Want::Error(-32600, Value::Null)),
                    (json!(id), Want::Error(-32600, Value::Null)),
                    (
                        json!({"jsonrpc":"2.0","id":id,"method":"tools/list","params":{"cursor":{}}}),
                        Want::Error(-32602, json!(id)),
                    ),
                ];
                let (v, want) = rng.pick(&wrong).clone();
                (line(&v), want)
            }
            // Notifications and client responses: never answered.
            6 | 7 => {
                let silent = [
                    json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
                    json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id}}),
                    json!({"jsonrpc":"2.0","method":"notifications/progress","params":[1]}),
                    json!({"jsonrpc":"2.0","method":"tools/list"}),
                    json!({"jsonrpc":"2.0","method":"x/y","params":"garbage"}),
                    json!({"jsonrpc":"2.0","id":id,"result":{}}),
                    json!({"jsonrpc":"2.0","id":id,"error":{"code":1,"message":"m"}}),
                ];
                (line(rng.pick(&silent)), Want::Nothing)
            }
            8 => (b"   ".to_vec(), Want::Nothing),
            // Valid requests of both eras.
            _ => {
                let valid_requests = [
                    (valid.clone(), Want::Result(json!(id))),
                    (
                        json!({"jsonrpc":"2.0","id":id.to_string(),"method":"tools/list"}),
                        Want::Result(json!(id.to_string())),
                    ),
                    (
                        json!({"jsonrpc":"2.0","id":id,"method":"server/discover","params":{"_meta":{PV:"2026-07-28",CC:{}}}}),
                        Want::Result(json!(id)),
                    ),
                    (
                        json!({"jsonrpc":"2.0","id":id,"method":"no/such/method"}),
                        Want::Error(-32601, json!(id)),
                    ),
                    (
                        json!({"jsonrpc":"2.0","id":id,"method":"ping","params":{"_meta":{PV:"2026-07-28",CC:{}}}}),
                        Want::Error(-32601, json!(id)),
                    ),
                ];
                let (v, want) = rng.pick(&valid_requests).clone();
                (line(&v), want)
            }
        };
        out.push(entry);
    }
    out
}

/// One JSON-RPC response or notification as this server may write it.
fn check_wire_message(v: &Value) -> Result<()> {
    let obj = v.as_object().ok_or_else(|| anyhow!("not an object"))?;
    ensure!(
        obj.get("jsonrpc") == Some(&json!("2.0")),
        "jsonrpc is not \"2.0\""
    );
    if obj.contains_key("method") {
        ensure!(
            obj.get("method").is_some_and(Value::is_string),
            "method not a string"
        );
        ensure!(!obj.contains_key("id"), "the server sent a request");
        return Ok(());
    }
    let id = obj.get("id").ok_or_else(|| anyhow!("no id"))?;
    ensure!(
        id.is_string() || id.is_i64() || id.is_u64() || id.is_null(),
        "bad id {id}"
    );
    match (obj.get("result"), obj.get("error")) {
        (Some(r), None) => {
            ensure!(r.is_object(), "result is not an object");
            ensure!(!id.is_null(), "a result with id null");
        }
        (None, Some(e)) => {
            ensure!(e.get("code").is_some_and(Value::is_i64), "error code");
            ensure!(
                e.get("message").is_some_and(Value::is_string),
                "error message"
            );
        }
        _ => bail!("needs exactly one of result and error"),
    }
    ensure!(obj.len() == 3, "unexpected members");
    Ok(())
}

#[test]
fn hostile_binary_10000_line_stream_one_answer_per_request_none_for_notifications() -> Result<()> {
    let stream = hostile_stream(10_000, 2);
    let mut input = Vec::new();
    for (l, _) in &stream {
        input.extend_from_slice(l);
        input.push(b'\n');
    }
    // A final request proves the process is still alive and answering after all of it.
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":\"alive\",\"method\":\"ping\"}\n");
    let (lines, status) = run_binary(input, "stream")?;
    let wants: Vec<&Want> = stream
        .iter()
        .map(|(_, w)| w)
        .filter(|w| **w != Want::Nothing)
        .collect();
    let silent = stream.len() - wants.len();
    ensure!(
        lines.len() == wants.len() + 1,
        "{} lines in, {} request-shaped, {silent} silent: expected {} answers, got {}",
        stream.len(),
        wants.len(),
        wants.len() + 1,
        lines.len()
    );
    for (n, (text, want)) in lines.iter().zip(&wants).enumerate() {
        let v: Value =
            serde_json::from_str(text).with_context(|| format!("answer {n} is not JSON"))?;
        check_wire_message(&v).with_context(|| format!("answer {n}: {text:.300}"))?;
        let ok = match want {
            Want::Nothing => false,
            Want::Error(code, id) => {
                v.pointer("/error/code") == Some(&json!(code)) && v.get("id") == Some(id)
            }
            Want::Result(id) => v.get("result").is_some() && v.get("id") == Some(id),
        };
        ensure!(ok, "answer {n}: wanted {want:?}, got {text:.300}");
    }
    let last = lines.last().map(String::as_str).unwrap_or_default();
    ensure!(
        serde_json::from_str::<Value>(last).ok()
            == Some(json!({"jsonrpc":"2.0","id":"alive","result":{}})),
        "not alive at the end: {last:.300}"
    );
    ensure!(status.success(), "exit status {status}");
    // The stream really is mixed: every kind is present in quantity.
    let count = |f: &dyn Fn(&Want) -> bool| stream.iter().filter(|(_, w)| f(w)).count();
    ensure!(silent > 1000, "only {silent} silent lines");
    ensure!(count(&|w| matches!(w, Want::Error(-32700, _))) > 1000);
    ensure!(count(&|w| matches!(w, Want::Error(-32600, _))) > 200);
    ensure!(count(&|w| matches!(w, Want::Result(_))) > 1000);
    Ok(())
}

#[test]
fn hostile_stream_generator_is_deterministic() {
    let a = hostile_stream(300, 0);
    let b = hostile_stream(300, 0);
    assert_eq!(a, b);
    assert_eq!(a.len(), 300);
}
