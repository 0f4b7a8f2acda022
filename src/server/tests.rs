//! The loop's own unit tests: the memo of static lists, per era and session version.

use super::*;
use crate::store::Store;
use serde_json::json;

fn server() -> Server {
    Server::new(Service::new(Store::open_in_memory().unwrap()))
}

fn answer(s: &mut Server, msg: &Value) -> String {
    let mut out = Vec::new();
    s.serve_frame(Frame::Line(msg.to_string().into_bytes()), &mut out)
        .unwrap();
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1);
    lines[0].to_string()
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

#[test]
fn memo_repeated_list_request_is_byte_identical_to_first_answer() {
    let mut s = server();
    answer(
        &mut s,
        &json!({"jsonrpc":"2.0","id":0,"method":"initialize",
                "params":{"protocolVersion":"2025-06-18","capabilities":{},
                          "clientInfo":{"name":"t","version":"0"}}}),
    );
    for method in ["tools/list", "prompts/list", "resources/templates/list"] {
        let legacy = |id: Value| json!({"jsonrpc":"2.0","id":id,"method":method});
        let modern = |id: Value| json!({"jsonrpc":"2.0","id":id,"method":method,"params":{"_meta":modern_meta()}});
        for build in [&legacy as &dyn Fn(Value) -> Value, &modern] {
            let first = answer(&mut s, &build(json!(1)));
            let again = answer(&mut s, &build(json!(1)));
            assert_eq!(first, again, "{method}");
            let other_id = answer(&mut s, &build(json!("x\"y")));
            let v: Value = serde_json::from_str(&other_id).unwrap();
            assert_eq!(v["id"], json!("x\"y"));
            assert_eq!(
                v["result"],
                serde_json::from_str::<Value>(&first).unwrap()["result"]
            );
        }
    }
}

#[test]
fn memo_is_kept_apart_per_era_and_session_version() {
    let mut s = server();
    let init = |v: &str| {
        json!({"jsonrpc":"2.0","id":0,"method":"initialize",
               "params":{"protocolVersion":v,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}})
    };
    let list = json!({"jsonrpc":"2.0","id":1,"method":"prompts/list"});
    // Before any session the legacy list is an error, and the error is not remembered.
    let before = answer(&mut s, &list);
    assert!(before.contains("\"error\""));
    answer(&mut s, &init("2025-06-18"));
    let titled = answer(&mut s, &list);
    assert!(titled.contains("\"result\""));
    let modern = answer(
        &mut s,
        &json!({"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{"_meta":modern_meta()}}),
    );
    assert!(modern.contains("resultType"));
    assert!(!titled.contains("resultType"));
    answer(&mut s, &init("2024-11-05"));
    let old = answer(&mut s, &list);
    let v: Value = serde_json::from_str(&old).unwrap();
    // 2024-11-05 predates titles: the 2025-06-18 answer must not be reused.
    for p in v["result"]["prompts"].as_array().unwrap() {
        assert!(p.get("title").is_none());
    }
}

#[test]
fn memo_bad_modern_envelope_is_answered_an_error_every_time() {
    let mut s = server();
    let bad = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion": "1999-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    for _ in 0..2 {
        assert!(answer(&mut s, &bad).contains("-32022"));
    }
}
