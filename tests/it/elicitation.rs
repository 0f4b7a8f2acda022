//! request_verdicts' waiting machinery in legacy sessions, through `Server::handle_line` and
//! the real loop (`Server::run`): the server's own `elicitation/create` request, other
//! requests served while it waits, the client's response matched by id, a cancelled wait,
//! the wait bound, the bound on pending questions, and the revisions that never ask. Also the
//! 2026-07-28 `requestState` seal, which a client must not be able to alter.

use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use review_mcp::server::Server;
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::host::{Host, the_ask};

const REV: &str = "sha256:5555555555555555555555555555555555555555555555555555555555555555";

fn artifact() -> Value {
    json!({"revision": REV, "format": "step", "uri": "file:///parts/elicit.step"})
}

fn server_with_wait(wait: Option<Duration>) -> Result<Server> {
    let mut service = Service::new(Store::open_in_memory()?);
    if let Some(wait) = wait {
        service.set_answer_wait(wait);
    }
    Ok(Server::new(service))
}

fn send(server: &mut Server, msg: &Value) -> Vec<Value> {
    server.handle_line(msg.to_string().as_bytes())
}

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    request(
        json!(id),
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

fn ask(id: u64) -> Value {
    call(
        id,
        "request_verdicts",
        json!({"artifact": artifact(), "subject": "thread depth"}),
    )
}

fn answer(ask_id: &str, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": ask_id, "result": result})
}

/// The text of `out`, which must be one answer, an `isError` result: the call refused.
fn refusal_text(out: &[Value]) -> Result<String> {
    ensure!(
        out.len() == 1 && out[0]["result"]["isError"] == json!(true),
        "not one refusal: {out:?}"
    );
    let text = out[0]["result"]["content"][0]["text"].as_str();
    Ok(text.context("a refusal without text")?.to_string())
}

fn accept() -> Value {
    json!({"action": "accept", "content": {"item_000_judgement": "accepted", "item_001_judgement": "rejected", "item_001_reason": "not at the boss"}})
}

/// A legacy session of `version` whose client declared `capabilities`, with one decision of
/// two basis items, none with a verdict.
fn session(server: &mut Server, version: &str, capabilities: Value) -> Result<()> {
    handshake(server, version, capabilities)?;
    send(server, &initialized());
    record_decision(server)
}

fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// `initialize` alone: the client has not said `notifications/initialized` yet.
fn handshake(server: &mut Server, version: &str, capabilities: Value) -> Result<()> {
    let out = send(
        server,
        &request(
            json!(0),
            "initialize",
            json!({"protocolVersion": version, "capabilities": capabilities,
                   "clientInfo": {"name": "elicitation-test", "version": "0"}}),
        ),
    );
    ensure!(
        out.len() == 1 && out[0]["result"]["protocolVersion"] == version,
        "initialize: {out:?}"
    );
    Ok(())
}

/// The decision of two basis items, none with a verdict, that the questions are about.
fn record_decision(server: &mut Server) -> Result<()> {
    let out = send(
        server,
        &call(
            1,
            "remember_decision",
            json!({"artifact": artifact(), "subject": "thread depth", "disposition": "hold",
                   "basis": [
                       {"requirement": "M6 depth 8 mm", "source": "drawing", "state": "satisfied"},
                       {"requirement": "Wall 2 mm", "source": "assistant-proposed", "state": "unresolved",
                        "question": "Is 1.8 mm fine?"}]}),
        ),
    );
    ensure!(
        out.first().is_some_and(|r| r["result"]["isError"] != true),
        "remember_decision: {out:?}"
    );
    Ok(())
}

fn form_session(server: &mut Server) -> Result<()> {
    session(server, "2025-11-25", json!({"elicitation": {"form": {}}}))
}

/// The judgements recall_decisions shows for the decision, in basis order (`None`: no verdict).
fn verdicts(server: &mut Server) -> Result<Vec<Option<(String, String)>>> {
    let out = send(
        server,
        &call(
            900,
            "recall_decisions",
            json!({"artifact": artifact(), "subject": "thread depth"}),
        ),
    );
    let answer = out
        .iter()
        .find(|m| m["id"] == 900)
        .context("no recall_decisions answer")?;
    // structuredContent from 2025-06-18 on; before, the JSON is one of the text blocks.
    let from_text = answer["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .filter_map(|t| serde_json::from_str::<Value>(t).ok())
        .find(|v| v.get("decisions").is_some());
    let json = match answer["result"].get("structuredContent") {
        Some(v) => v.clone(),
        None => from_text.context("no JSON text block")?,
    };
    let basis = json["decisions"][0]["basis"]
        .as_array()
        .context("no basis")?;
    Ok(basis
        .iter()
        .map(|b| {
            b.get("verdict").map(|v| {
                (
                    v["judgement"].as_str().unwrap_or_default().to_string(),
                    v["via"].as_str().unwrap_or_default().to_string(),
                )
            })
        })
        .collect())
}

fn is_list_changed(m: &Value) -> bool {
    m["method"] == "notifications/resources/list_changed"
}

/// Regression: a form asked for chosen items (`items: [1]`) while another item also awaits the
/// engineer told the engineer "(1 more item will be asked next.)", a promise that only the
/// assistant's next call keeps. The form now says how many more await the engineer's verdict
/// without promising when they are asked.
#[test]
fn a_form_of_chosen_items_counts_the_others_without_promising_to_ask_them() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let out = send(
        &mut s,
        &call(
            2,
            "request_verdicts",
            json!({"artifact": artifact(), "subject": "thread depth", "items": [1]}),
        ),
    );
    let message = out
        .first()
        .and_then(|m| m["params"]["message"].as_str())
        .context("no form")?;
    assert!(
        message.contains("(Not in this form: 1 more item awaiting your verdict.)")
            && !message.contains("asked next"),
        "{message}"
    );
    Ok(())
}

/// Found by enduser3 driving a real review: a verdict judges the item as stated, so the
/// engineer who agrees that an item is violated accepts it (the Form 3 says FAIL), and one who
/// rejects it says the item is wrong (INDETERMINATE); but the form only said "accept or reject
/// each item", and an engineer rejecting "Hole pitch 40 mm: violated, 35 mm measured" to
/// reject the part had the Form 3 call the violation disputed. A violated item's field says
/// what accepting it means; a satisfied one's says nothing more.
#[test]
fn a_violated_item_says_that_accepting_it_confirms_the_violation() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let out = send(
        &mut s,
        &call(
            2,
            "remember_decision",
            json!({"artifact": artifact(), "subject": "hole pattern", "disposition": "hold",
                   "basis": [
                       {"requirement": "Hole pitch 40 mm", "source": "drawing", "state": "violated",
                        "evidence": "find_holes: 35 mm"},
                       {"requirement": "Holes 8.5 mm", "source": "drawing", "state": "satisfied"}]}),
        ),
    );
    ensure!(
        out.first().is_some_and(|r| r["result"]["isError"] != true),
        "{out:?}"
    );
    let out = send(
        &mut s,
        &call(
            3,
            "request_verdicts",
            json!({"artifact": artifact(), "subject": "hole pattern"}),
        ),
    );
    let fields = &out.first().context("no form")?["params"]["requestedSchema"]["properties"];
    let about = |k: &str| {
        fields[k]["description"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let hint = "state: violated (accepting confirms the violation; reject only if the item is wrong as stated)";
    ensure!(
        about("item_000_judgement").contains(hint),
        "{}",
        about("item_000_judgement")
    );
    ensure!(
        !about("item_001_judgement").contains("accepting"),
        "{}",
        about("item_001_judgement")
    );
    Ok(())
}

/// Found by enduser3: the engineer answered a form of chosen items (`items`) while others
/// still awaited them, and the answer's line said only "Recorded the engineer's verdicts on
/// …: 1 accepted, 0 rejected (via elicitation)": `remaining` was in the structured content
/// alone, and a model reading the line took the decision as judged. The line says how many
/// items still await the engineer and the call that asks them.
#[test]
fn a_recorded_answer_says_how_many_items_still_await_the_engineer() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(
        &mut s,
        &call(
            2,
            "request_verdicts",
            json!({"artifact": artifact(), "subject": "thread depth", "items": [1]}),
        ),
    ))?;
    let out = send(
        &mut s,
        &answer(
            &asked,
            json!({"action": "accept", "content": {"item_001_judgement": "accepted"}}),
        ),
    );
    let result = &out.first().context("no answer")?["result"];
    ensure!(result["structuredContent"]["remaining"] == 1, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    ensure!(
        text.ends_with(
            " 1 more item awaits the engineer's verdict: request_verdicts without items asks it."
        ),
        "{text}"
    );
    Ok(())
}

#[test]
fn other_requests_are_served_while_questions_wait_and_each_answer_finds_its_call() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let first = the_ask(&send(&mut s, &ask(2)))?;
    assert_eq!(first, "review-mcp-ask-1");

    // While the call waits, every other request is answered at once, and only it.
    let out = send(&mut s, &request(json!(3), "ping", json!({})));
    assert_eq!(out, vec![json!({"jsonrpc": "2.0", "id": 3, "result": {}})]);
    let out = send(&mut s, &request(json!(4), "tools/list", json!({})));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], 4);
    assert!(
        out[0]["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    let out = send(&mut s, &call(5, "recall", json!({"artifact": artifact()})));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], 5);
    assert_eq!(
        verdicts(&mut s)?,
        vec![None, None],
        "written before any answer"
    );

    // A second question for another call; the answers come in the other order, and each
    // completes the call that asked it.
    let second = the_ask(&send(&mut s, &ask(6)))?;
    assert_eq!(second, "review-mcp-ask-2");
    let out = send(&mut s, &answer(&second, json!({"action": "decline"})));
    assert_eq!(
        out.len(),
        1,
        "a decline writes nothing, so no list_changed: {out:?}"
    );
    assert_eq!(out[0]["id"], 6);
    assert_eq!(out[0]["result"]["structuredContent"]["outcome"], "declined");
    assert_eq!(verdicts(&mut s)?, vec![None, None]);

    let out = send(&mut s, &answer(&first, accept()));
    assert_eq!(out[0]["id"], 2, "{out:?}");
    assert_eq!(out[0]["result"]["structuredContent"]["outcome"], "recorded");
    assert!(out.iter().skip(1).any(is_list_changed), "{out:?}");
    assert_eq!(
        verdicts(&mut s)?,
        vec![
            Some(("accepted".into(), "elicitation".into())),
            Some(("rejected".into(), "elicitation".into()))
        ]
    );
    Ok(())
}

#[test]
fn a_response_is_matched_by_the_servers_request_id_only() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    // Neither an unknown id nor the id of the client's own waiting call answers the question.
    for id in [json!("review-mcp-ask-9"), json!(2), json!("2"), json!(null)] {
        let out = send(
            &mut s,
            &json!({"jsonrpc": "2.0", "id": id, "result": accept()}),
        );
        assert!(
            out.is_empty(),
            "a response with id {id} was answered: {out:?}"
        );
    }
    let out = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": "review-mcp-ask-9", "error": {"code": -32603, "message": "x"}}),
    );
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(verdicts(&mut s)?, vec![None, None]);

    // The question still waits, and its own id answers it, once.
    let out = send(&mut s, &answer(&asked, accept()));
    assert_eq!(out[0]["id"], 2);
    assert_eq!(out[0]["result"]["structuredContent"]["outcome"], "recorded");
    let again = send(&mut s, &answer(&asked, json!({"action": "decline"})));
    assert!(
        again.is_empty(),
        "a second answer to one question: {again:?}"
    );
    Ok(())
}

/// The legacy `elicitation/create` request puts the form's fields on the wire item by item:
/// `item_000_judgement`, `item_000_reason`, `item_001_judgement`, … (before, every
/// `judgement_<i>` came before every `reason_<i>`; see
/// `verdicts::the_forms_fields_reach_the_host_item_by_item_in_basis_order`).
#[test]
fn the_legacy_forms_fields_reach_the_host_item_by_item() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let mut wire = Vec::new();
    s.serve_frame(
        review_mcp::framing::Frame::Line(ask(2).to_string().into_bytes()),
        &mut wire,
    )?;
    let wire = String::from_utf8(wire)?;
    ensure!(wire.contains("\"method\":\"elicitation/create\""), "{wire}");
    let keys = [
        "item_000_judgement",
        "item_000_reason",
        "item_001_judgement",
        "item_001_reason",
    ];
    let places = keys
        .iter()
        .map(|k| {
            wire.find(&format!("\"{k}\":{{"))
                .context(format!("no {k}: {wire}"))
        })
        .collect::<Result<Vec<usize>>>()?;
    ensure!(
        places.windows(2).all(|w| w[0] < w[1]),
        "fields out of order: {keys:?} at {places:?}"
    );
    Ok(())
}

/// The form's keys of earlier builds (`judgement_<i>`, `reason_<i>`), in a legacy session: an
/// answer with them (a host that wrote the documented keys into its code) is recorded as it
/// was before, reason included; one mixing them with the form's keys is refused, naming one
/// of each, and writes nothing.
#[test]
fn an_answer_with_an_earlier_forms_keys_is_recorded_and_one_mixing_both_is_refused() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    let mixed = json!({"action": "accept", "content": {
        "item_000_judgement": "accepted", "judgement_1": "rejected", "reason_1": "not at the boss"}});
    let text = refusal_text(&send(&mut s, &answer(&asked, mixed)))?;
    ensure!(
        text.contains("such as \"item_000_judgement\"")
            && (text.contains("such as \"judgement_1\"") || text.contains("such as \"reason_1\""))
            && text.contains("nothing was written"),
        "{text}"
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);

    let asked = the_ask(&send(&mut s, &ask(3)))?;
    let earlier = json!({"action": "accept", "content": {
        "judgement_0": "accepted", "judgement_1": "rejected", "reason_1": "not at the boss"}});
    let out = send(&mut s, &answer(&asked, earlier));
    assert_eq!(out[0]["id"], 3, "{out:?}");
    assert_eq!(
        out[0]["result"]["structuredContent"]["outcome"], "recorded",
        "{out:?}"
    );
    assert_eq!(
        verdicts(&mut s)?,
        vec![
            Some(("accepted".into(), "elicitation".into())),
            Some(("rejected".into(), "elicitation".into()))
        ]
    );
    let reason =
        &out[0]["result"]["structuredContent"]["decision"]["basis"][1]["verdict"]["reason"];
    assert_eq!(reason, "not at the boss", "{out:?}");
    Ok(())
}

#[test]
fn a_client_error_response_answers_is_error_and_writes_nothing() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    let out = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": asked, "error": {"code": -32601, "message": "Method not found"}}),
    );
    let text = refusal_text(&out)?;
    assert_eq!(out[0]["id"], 2);
    assert!(
        text.contains("-32601") && text.contains("in chat"),
        "{text}"
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

/// A form answered with a huge value where a judgement goes: the refusal names the field and
/// quotes the start of the value, within the answer bound, not the whole value.
#[test]
fn a_judgement_of_any_length_is_refused_within_the_answer_bound() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    let huge = "\u{1}x".repeat(50_000);
    let out = send(
        &mut s,
        &answer(
            &asked,
            json!({"action": "accept", "content": {"item_000_judgement": huge, "item_001_judgement": "accepted"}}),
        ),
    );
    let text = refusal_text(&out)?;
    assert!(text.contains("item_000_judgement"), "{text}");
    let line = out[0].to_string().len();
    assert!(line < 2_000, "a {line}-byte refusal: {}", &text[..200]);
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

/// A host's answer to the form that cannot be read, though its id can (a reason holding a
/// lone UTF-16 surrogate escape, more JSON values than a line may hold), answers the call
/// that waited for it at once, `isError` and nothing written, instead of leaving it to the
/// wait bound; an unreadable response to no question of ours still answers nothing.
#[test]
fn an_unreadable_answer_to_the_form_ends_the_wait_at_once() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"{asked}","result":{{"action":"accept","content":{{"item_000_judgement":"accepted","item_001_judgement":"rejected","item_001_reason":"cut \ud83d"}}}}}}"#
    );
    let out = s.handle_line(line.as_bytes());
    let text = refusal_text(&out)?;
    assert_eq!(out[0]["id"], 2);
    assert!(text.contains("could not be read"), "{text}");
    let asked = the_ask(&send(&mut s, &ask(3)))?;
    let many = vec![0; 1 << 20];
    let huge = json!({"jsonrpc": "2.0", "id": asked, "result": {"action": "accept", "content": {"x": many}}});
    let out = send(&mut s, &huge);
    assert_eq!(out.len(), 1, "{}", out.len());
    assert_eq!(out[0]["id"], 3);
    assert_eq!(out[0]["result"]["isError"], true);
    assert!(
        s.handle_line(line.as_bytes())
            .iter()
            .all(|m| m["id"] != 2 && m["id"] != 3)
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

/// Regression: a response without `"jsonrpc": "2.0"` was answered -32600 carrying its id,
/// which is in the server's id space (`review-mcp-ask-N`), not the client's: the client got
/// an answer to a request it never sent, and the `tools/call` that waited for the form went on
/// waiting for the wait bound (600 s). Such a response is now never answered; one that names
/// a question of ours answers the call that waited, `isError`, nothing written.
#[test]
fn a_response_without_its_jsonrpc_version_is_not_answered_and_ends_the_wait() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    for stray in [
        json!({"id": "review-mcp-ask-9", "result": accept()}),
        json!({"jsonrpc": "1.0", "id": 7, "error": {"code": 1, "message": "x"}}),
        json!({"result": {}}),
    ] {
        let out = send(&mut s, &stray);
        assert!(out.is_empty(), "{stray} was answered: {out:?}");
    }
    let out = send(&mut s, &json!({"id": asked, "result": accept()}));
    let text = refusal_text(&out)?;
    assert_eq!(out[0]["id"], 2);
    assert!(text.contains("could not be read"), "{text}");
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    // A request without the version is still a request, refused with its id.
    let out = send(&mut s, &json!({"id": 3, "method": "ping"}));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 3);
    assert_eq!(out[0]["error"]["code"], -32600);
    Ok(())
}

/// Regression: a response carrying both `result` and `error` is not JSON-RPC ("either the
/// result member or error member MUST be included, but not both"): the client's form may have
/// failed. The server took the `result` and recorded the engineer's verdicts from it (found by
/// the wire review with raw lines). It now ends the wait like any unreadable answer:
/// `isError`, nothing written.
#[test]
fn a_response_with_both_result_and_error_records_nothing_and_ends_the_wait() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    let out = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": asked, "result": accept(),
                "error": {"code": -32603, "message": "the form failed"}}),
    );
    let text = refusal_text(&out)?;
    assert_eq!(out[0]["id"], 2);
    assert!(
        text.contains("could not be read") && text.contains("both"),
        "{text}"
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    // One that answers no question of ours is not answered.
    let stray =
        json!({"jsonrpc": "2.0", "id": 77, "result": {}, "error": {"code": 1, "message": "x"}});
    assert!(send(&mut s, &stray).is_empty());
    Ok(())
}

/// Regression: the rule above took a response whose other member is null
/// (`"result": {...}, "error": null`, the JSON-RPC 1.0 shape some serialisers still write) as
/// having both, so the engineer's answer to the form was thrown away ("could not be read")
/// although nothing said the form failed; before the rule it was recorded. Found by the
/// adversarial read of the wire merge. A null member says nothing: the other is the answer.
#[test]
fn a_response_whose_other_member_is_null_is_the_answer() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    let out = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": asked, "result": accept(), "error": null}),
    );
    let answer = out
        .iter()
        .find(|m| m["id"] == 2)
        .context("no answer to the call")?;
    ensure!(answer["result"]["isError"] != json!(true), "{answer}");
    ensure!(
        verdicts(&mut s)? != vec![None, None],
        "the engineer's answer was not recorded"
    );
    // A null result beside an error: the host said the form failed, and nothing is written.
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(3)))?;
    let out = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": asked, "result": null,
                "error": {"code": -32603, "message": "the form failed"}}),
    );
    let text = refusal_text(&out)?;
    ensure!(text.contains("the form failed"), "{text}");
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

/// Regression: a request under the id of a call still waiting for the engineer's form was
/// served (found by the wire review with raw lines): a `ping` or a second `request_verdicts`
/// under id 2 was answered with id 2, so the client matched that answer to the call that
/// waits, the form's real answer came later under the same id, and `notifications/cancelled`
/// with `requestId: 2` could name either. Request ids are unique among the requests in
/// flight: it is refused (-32600, nothing run), and the id is free again once the call is
/// answered.
#[test]
fn a_request_under_the_id_of_a_waiting_call_is_refused_and_runs_nothing() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    for dup in [
        request(json!(2), "ping", json!({})),
        ask(2),
        request(json!(2.0), "ping", json!({})),
    ] {
        let out = send(&mut s, &dup);
        ensure!(
            matches!(out.as_slice(), [e] if e["id"] == dup["id"]
                && e["error"]["code"] == json!(-32600)
                && e["error"]["message"].as_str().is_some_and(|m| m.contains("in flight"))),
            "{dup}: {out:?}"
        );
    }
    let out = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "id": asked, "result": accept()}),
    );
    ensure!(
        out.iter().filter(|m| m["id"] == json!(2)).count() == 1,
        "{out:?}"
    );
    ensure!(
        out[0]["result"]["structuredContent"]["outcome"] == json!("recorded"),
        "{out:?}"
    );
    let out = send(&mut s, &request(json!(2), "ping", json!({})));
    ensure!(
        matches!(out.as_slice(), [r] if r["result"] == json!({})),
        "free again: {out:?}"
    );
    // A handshake under a waiting call's id is served: it ends every wait of the session.
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    the_ask(&send(&mut s, &ask(3)))?;
    let init = request(
        json!(3),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "again", "version": "1"}}),
    );
    let out = send(&mut s, &init);
    ensure!(
        out[0]["result"]["protocolVersion"] == json!("2025-11-25"),
        "{out:?}"
    );
    Ok(())
}

#[test]
fn no_question_is_put_before_the_client_says_initialized() -> Result<()> {
    // Every handshake revision: "The server SHOULD NOT send requests other than pings and
    // logging before receiving the initialized notification". A client that pipelines a call
    // after initialize has its question held, and put once it says initialized.
    let wait = Duration::from_millis(200);
    let mut s = server_with_wait(Some(wait))?;
    handshake(&mut s, "2025-11-25", json!({"elicitation": {"form": {}}}))?;
    record_decision(&mut s)?;
    let out = send(&mut s, &ask(2));
    assert!(
        out.is_empty(),
        "a request of the server's own before initialized: {out:?}"
    );
    let out = send(&mut s, &ask(3));
    assert!(out.is_empty(), "{out:?}");
    // A held call that is cancelled is never put, and there is no form to withdraw.
    let out = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}),
    );
    assert!(out.is_empty(), "{out:?}");
    let asked = the_ask(&send(&mut s, &initialized()))?;
    assert!(send(&mut s, &initialized()).is_empty(), "put once");
    let out = send(&mut s, &answer(&asked, accept()));
    assert_eq!(out[0]["id"], 2, "{out:?}");
    assert_eq!(out[0]["result"]["structuredContent"]["outcome"], "recorded");
    assert!(verdicts(&mut s)?.iter().all(Option::is_some));

    // A question held until its bound: its call is answered saying why, and no form that was
    // never put is withdrawn.
    let mut s = server_with_wait(Some(wait))?;
    handshake(&mut s, "2025-11-25", json!({"elicitation": {"form": {}}}))?;
    record_decision(&mut s)?;
    assert!(send(&mut s, &ask(4)).is_empty());
    let out: Vec<Value> = s
        .expire_questions(Instant::now() + wait * 2)
        .into_iter()
        .map(|m| serde_json::from_str(&m.into_line()))
        .collect::<Result<_, _>>()?;
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 4);
    assert_eq!(out[0]["result"]["isError"], true);
    assert!(
        out[0]["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("notifications/initialized")),
        "{out:?}"
    );
    Ok(())
}

#[test]
fn a_cancelled_wait_gets_no_answer_withdraws_the_form_and_writes_nothing() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    let other = the_ask(&send(&mut s, &ask(3)))?;

    // Cancelling a request that is not waiting withdraws nothing.
    let out = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 77}}),
    );
    assert!(out.is_empty(), "{out:?}");

    let out = send(
        &mut s,
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "stop"}}),
    );
    assert_eq!(
        out.len(),
        1,
        "exactly the withdrawal, no answer to the call: {out:?}"
    );
    assert_eq!(out[0]["method"], "notifications/cancelled");
    assert_eq!(out[0]["params"]["requestId"], json!(asked));
    assert!(out[0].get("id").is_none());

    // The engineer's late answer finds no question, and the other question still waits.
    assert!(send(&mut s, &answer(&asked, accept())).is_empty());
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    let out = send(&mut s, &answer(&other, json!({"action": "cancel"})));
    assert_eq!(out[0]["id"], 3);
    assert_eq!(
        out[0]["result"]["structuredContent"]["outcome"],
        "cancelled"
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

#[test]
fn the_wait_bound_answers_is_error_withdraws_and_writes_nothing() -> Result<()> {
    let wait = Duration::from_millis(200);
    let mut s = server_with_wait(Some(wait))?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    let start = Instant::now();
    assert!(
        s.expire_questions(start).is_empty(),
        "expired before its bound"
    );
    let out: Vec<Value> = s
        .expire_questions(start + wait + Duration::from_millis(50))
        .into_iter()
        .map(|m| serde_json::from_str(&m.into_line()).unwrap())
        .collect();
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0]["method"], "notifications/cancelled");
    assert_eq!(out[0]["params"]["requestId"], json!(asked));
    assert_eq!(out[1]["id"], 2);
    assert_eq!(out[1]["result"]["isError"], true);
    assert!(
        out[1]["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("did not answer the form within 200 ms")
                && t.contains("nothing was written")
                && t.contains("`review-mcp review")),
        "{out:?}"
    );
    // Once: a later look finds nothing, and the late answer answers nothing.
    assert!(s.expire_questions(Instant::now() + wait * 10).is_empty());
    assert!(send(&mut s, &answer(&asked, accept())).is_empty());
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

#[test]
fn a_new_initialize_ends_the_waits_of_the_session_it_replaces() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let old = the_ask(&send(&mut s, &ask(2)))?;
    // A 2025-03-26 session now: the old session's answer, even inside a batch, answers nothing
    // (it was once answered inside the batch answer, in the old session's result shape).
    let out = send(
        &mut s,
        &request(
            json!(10),
            "initialize",
            json!({"protocolVersion": "2025-03-26", "capabilities": {},
                   "clientInfo": {"name": "again", "version": "0"}}),
        ),
    );
    // The new session's answer, then the old call's: its form withdrawn, its call answered
    // isError (every request gets its one answer), nothing written.
    assert_eq!(out.len(), 3, "{out:?}");
    assert_eq!(out[0]["id"], 10);
    assert_eq!(out[1]["method"], "notifications/cancelled");
    assert_eq!(out[1]["params"]["requestId"], json!(old));
    assert_eq!(out[2]["id"], 2);
    assert_eq!(out[2]["result"]["isError"], true);
    assert!(
        out[2]["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("replaced the session")),
        "{out:?}"
    );
    let out = send(
        &mut s,
        &json!([
            answer(&old, accept()),
            request(json!(11), "ping", json!({}))
        ]),
    );
    assert_eq!(
        out,
        vec![json!([{"jsonrpc": "2.0", "id": 11, "result": {}}])],
        "only the ping is answered"
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    // And a new question never takes an old one's id: the old answer stays unmatched.
    form_session(&mut s)?;
    let new = the_ask(&send(&mut s, &ask(12)))?;
    assert_ne!(new, old);
    assert!(send(&mut s, &answer(&old, accept())).is_empty());
    let out = send(&mut s, &answer(&new, json!({"action": "decline"})));
    assert_eq!(out[0]["id"], 12);
    Ok(())
}

#[test]
fn at_most_sixteen_questions_wait_at_once() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let mut asks = Vec::new();
    for i in 0..16 {
        asks.push(the_ask(&send(&mut s, &ask(10 + i)))?);
    }
    let out = send(&mut s, &ask(40));
    let text = refusal_text(&out)?;
    assert_eq!(out[0]["id"], 40);
    assert!(text.contains("16 questions"), "{text}");
    // One answered makes room for one more.
    let out = send(&mut s, &answer(&asks[3], json!({"action": "decline"})));
    assert_eq!(out[0]["id"], 13);
    assert_eq!(the_ask(&send(&mut s, &ask(41)))?, "review-mcp-ask-17");
    let out = send(&mut s, &ask(42));
    assert_eq!(out[0]["result"]["isError"], true, "{out:?}");
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

#[test]
fn revisions_without_elicitation_never_ask_alone_or_in_a_batch() -> Result<()> {
    for version in ["2025-03-26", "2024-11-05"] {
        let mut s = server_with_wait(None)?;
        session(&mut s, version, json!({"elicitation": {"form": {}}}))?;
        let out = send(&mut s, &ask(2));
        let text = refusal_text(&out).context(version)?;
        assert_eq!(out[0]["id"], 2);
        // The host declared elicitation: the answer must not tell the assistant otherwise.
        assert!(
            text.contains(&format!("revision ({version}) has no elicitation"))
                && !text.contains("did not declare")
                && text.contains("in chat"),
            "{version}: {text}"
        );
        if version == "2025-03-26" {
            let out = send(
                &mut s,
                &json!([ask(3), request(json!(4), "ping", json!({})), ask(5)]),
            );
            assert_eq!(out.len(), 1, "one array: {out:?}");
            let items = out[0].as_array().context("not a batch answer")?;
            assert_eq!(items.len(), 3, "{items:?}");
            assert!(items.iter().all(|m| m.get("method").is_none()), "{items:?}");
            for (item, id) in items.iter().zip([3, 4, 5]) {
                assert_eq!(item["id"], id);
            }
            assert_eq!(items[0]["result"]["isError"], true);
            assert_eq!(items[2]["result"]["isError"], true);
        }
        assert_eq!(verdicts(&mut s)?, vec![None, None]);
    }
    Ok(())
}

/// The MCP Apps extension as a host declares it.
fn apps() -> Value {
    json!({"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}})
}

/// Regression: a host that declared the MCP Apps extension (it renders the review card) but
/// could not or did not show the form was told the card only "where the host renders MCP
/// Apps", as if it might not, after "ask in chat": the one channel sure to work there, and
/// the engineer's own, read as a maybe. Now every answer that names the engineer's channels
/// says the card is rendered by this host when the request declared the extension (in
/// `initialize`, or in the 2026-07-28 request itself), and stays conditional otherwise.
#[test]
fn a_host_that_declared_apps_is_told_it_renders_the_card() -> Result<()> {
    const SURE: &str = "the review card, which this host renders (call show_review";
    const MAYBE: &str = "the review card (show_review) where the host renders MCP Apps";
    for (caps, says, not) in [
        (json!({"extensions": apps()}), SURE, MAYBE),
        (json!({}), MAYBE, SURE),
    ] {
        // No form in this host: refused at once.
        let mut s = server_with_wait(None)?;
        session(&mut s, "2025-11-25", caps.clone())?;
        let t = refusal_text(&send(&mut s, &ask(2)))?;
        assert!(t.contains(says) && !t.contains(not), "{caps}: {t}");
        // The same declaration in a 2026-07-28 request, read from that request alone.
        let mut meta = modern_meta();
        meta["io.modelcontextprotocol/clientCapabilities"] = caps.clone();
        let out = send(&mut s, &modern_ask(3, json!({"_meta": meta})));
        let m = out[0]["error"]["message"].as_str().unwrap_or_default();
        assert!(
            out[0]["error"]["code"] == -32021 && m.contains(says) && !m.contains(not),
            "{caps}: {out:?}"
        );
        // A form the host cancelled.
        let mut with_form = caps.clone();
        with_form["elicitation"] = json!({"form": {}});
        let mut s = server_with_wait(None)?;
        session(&mut s, "2025-11-25", with_form.clone())?;
        let asked = the_ask(&send(&mut s, &ask(2)))?;
        let out = send(&mut s, &answer(&asked, json!({"action": "cancel"})));
        let t = out[0]["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(t.contains(says) && !t.contains(not), "{with_form}: {out:?}");
        let note = &out[0]["result"]["structuredContent"]["other_channels"]["note"];
        assert_eq!(note.as_str(), Some(t), "{out:?}");
    }
    Ok(())
}

#[test]
fn without_the_capability_a_legacy_session_is_refused_without_a_request() -> Result<()> {
    for caps in [
        json!({}),
        // A host declaring url mode only declared elicitation: it was told it had not
        // (found by the wire review); it has not declared the form mode this call needs.
        json!({"elicitation": {"url": {}}}),
        json!({"sampling": {}}),
    ] {
        let mut s = server_with_wait(None)?;
        session(&mut s, "2025-11-25", caps.clone())?;
        let out = send(&mut s, &ask(2));
        let t = refusal_text(&out).context(caps.to_string())?;
        assert!(
            t.contains("did not declare form elicitation")
                && t.contains("in chat")
                // Issue 28: a host without forms (Gemini CLI) is told the engineer's own
                // channels: the terminal command and the card.
                && t.contains("in their terminal, `review-mcp review")
                && t.contains("review card (show_review)")
                // The command names the decision's revision, ready to run (it said
                // FILE, a placeholder the assistant had to fill in).
                && t.contains(&format!("`review-mcp review {REV}`;"))
                && !t.contains("FILE"),
            "{caps}: {t}"
        );
    }
    // 2025-06-18 knows only forms: an empty elicitation capability is enough, and its request
    // has no mode.
    let mut s = server_with_wait(None)?;
    session(&mut s, "2025-06-18", json!({"elicitation": {}}))?;
    let out = send(&mut s, &ask(2));
    the_ask(&out)?;
    assert!(out[0]["params"].get("mode").is_none(), "{out:?}");
    Ok(())
}

const MODERN: &str = "2026-07-28";

fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": MODERN,
           "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}})
}

/// The sealed `requestState` of `out`, an `input_required` answer.
fn request_state(out: &[Value]) -> Result<String> {
    let state = out
        .first()
        .and_then(|m| m["result"]["requestState"].as_str());
    Ok(state.context("no requestState")?.to_string())
}

fn modern_ask(id: u64, extra: Value) -> Value {
    let mut params = json!({"name": "request_verdicts",
        "arguments": {"artifact": artifact(), "subject": "thread depth"}, "_meta": modern_meta()});
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    request(json!(id), "tools/call", params)
}

#[test]
fn an_altered_request_state_is_refused_and_writes_nothing() -> Result<()> {
    let mut s = server_with_wait(None)?;
    // The decision, written in a legacy session of the same process (the store is shared).
    form_session(&mut s)?;
    let out = send(&mut s, &modern_ask(2, json!({})));
    assert_eq!(out.len(), 1, "no server request in 2026-07-28: {out:?}");
    assert_eq!(out[0]["result"]["resultType"], "input_required");
    let state = request_state(&out)?;
    let (body, seal) = state.rsplit_once('.').context("no seal")?;
    let flip = |c: char| if c == '0' { '1' } else { '0' };
    let mut altered = Vec::new();
    // One character of the body, then one of the seal, then the seal of another token.
    let mut b: Vec<char> = body.chars().collect();
    let at = b.len() - 3;
    b[at] = flip(b[at]);
    altered.push(format!("{}.{seal}", b.iter().collect::<String>()));
    let mut z: Vec<char> = seal.chars().collect();
    z[0] = flip(z[0]);
    altered.push(format!("{body}.{}", z.iter().collect::<String>()));
    altered.push(format!("{body}.{}", "0".repeat(32)));
    for (i, bad) in altered.iter().enumerate() {
        let out = send(
            &mut s,
            &modern_ask(
                10 + i as u64,
                json!({"requestState": bad, "inputResponses": {"verdicts": accept()}}),
            ),
        );
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0]["error"]["code"], -32602, "{bad}: {out:?}");
    }
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    // The token as issued still works.
    let out = send(
        &mut s,
        &modern_ask(
            20,
            json!({"requestState": state, "inputResponses": {"verdicts": accept()}}),
        ),
    );
    assert_eq!(
        out[0]["result"]["structuredContent"]["outcome"], "recorded",
        "{out:?}"
    );
    assert_eq!(
        verdicts(&mut s)?,
        vec![
            Some(("accepted".into(), "elicitation".into())),
            Some(("rejected".into(), "elicitation".into()))
        ]
    );
    Ok(())
}

/// Input for `Server::run` that the test feeds line by line and closes by dropping its sender.
struct Lines {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    at: usize,
}

impl Read for Lines {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(out.len());
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Lines {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at == self.buf.len() {
            match self.rx.recv() {
                Ok(line) => {
                    self.buf = line;
                    self.at = 0;
                }
                Err(_) => return Ok(&[]),
            }
        }
        Ok(&self.buf[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

/// Output for `Server::run`: every line with the moment it was written.
#[derive(Clone, Default)]
struct Written(Arc<Mutex<Vec<(Instant, Value)>>>);

impl Written {
    fn lines(&self) -> Vec<(Instant, Value)> {
        self.0.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Write for Written {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        let mut lines = self.0.lock().map_err(|_| io::Error::other("poisoned"))?;
        for line in b.split(|c| *c == b'\n').filter(|l| !l.is_empty()) {
            lines.push((Instant::now(), serde_json::from_slice(line)?));
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_loop_ends_a_wait_at_its_bound_without_any_input() -> Result<()> {
    let wait = Duration::from_millis(300);
    let mut s = server_with_wait(Some(wait))?;
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let out = Written::default();
    let watched = out.clone();
    let input = Lines {
        rx,
        buf: Vec::new(),
        at: 0,
    };
    // The client: four lines, then nothing until the waiting call is answered (or 5 s), then
    // the input closes. The server's loop runs here, on this thread.
    let client = thread::spawn(move || -> Instant {
        for msg in [
            request(
                json!(0),
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
                       "clientInfo": {"name": "loop", "version": "0"}}),
            ),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            call(
                1,
                "remember_decision",
                json!({"artifact": artifact(), "subject": "thread depth", "disposition": "hold",
                       "basis": [{"requirement": "M6 depth 8 mm", "source": "drawing", "state": "satisfied"}]}),
            ),
            ask(2),
        ] {
            let _ = tx.send(format!("{msg}\n").into_bytes());
        }
        let sent = Instant::now();
        let deadline = sent + Duration::from_secs(5);
        while Instant::now() < deadline && !watched.lines().iter().any(|(_, m)| m["id"] == 2) {
            thread::sleep(Duration::from_millis(10));
        }
        drop(tx);
        sent
    });
    let mut sink = out.clone();
    s.run(input, &mut sink)?;
    let sent = client
        .join()
        .map_err(|_| anyhow::anyhow!("the client thread panicked"))?;
    let lines = out.lines();
    let msgs: Vec<&Value> = lines.iter().map(|(_, m)| m).collect();
    assert!(
        msgs.iter().any(|m| m["method"] == "elicitation/create"),
        "{msgs:?}"
    );
    let (at, answered) = lines
        .iter()
        .find(|(_, m)| m["id"] == 2)
        .context("the waiting call was never answered")?;
    let elapsed = at.duration_since(sent);
    assert!(
        elapsed + Duration::from_millis(20) >= wait,
        "answered after {elapsed:?}, before the bound"
    );
    assert!(
        elapsed < wait + Duration::from_secs(3),
        "answered only after {elapsed:?}"
    );
    assert_eq!(answered["result"]["isError"], true);
    assert!(
        msgs.iter().any(|m| m["method"] == "notifications/cancelled"
            && m["params"]["requestId"] == "review-mcp-ask-1"),
        "{msgs:?}"
    );
    Ok(())
}

#[test]
fn a_decision_forgotten_while_its_form_is_open_takes_no_answer() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    let out = send(
        &mut s,
        &call(
            3,
            "forget",
            json!({"artifact": artifact(), "subject": "thread depth"}),
        ),
    );
    assert_eq!(
        out[0]["result"]["structuredContent"]["deleted"], 1,
        "{out:?}"
    );
    let out = send(&mut s, &answer(&asked, accept()));
    assert_eq!(out.len(), 1, "an answer and nothing written: {out:?}");
    assert_eq!(out[0]["id"], 2);
    assert_eq!(out[0]["result"]["isError"], true, "{out:?}");
    // Nothing came back to life.
    let out = send(
        &mut s,
        &call(
            4,
            "recall_decisions",
            json!({"artifact": artifact(), "subject": "thread depth"}),
        ),
    );
    assert_eq!(
        out[0]["result"]["structuredContent"]["decisions"],
        json!([]),
        "{out:?}"
    );
    Ok(())
}

/// The decision as `session` wrote it, restated with `basis` (in 2026-07-28 with `meta`):
/// what an assistant's `remember_decision` does while the engineer's form is open.
fn restate(server: &mut Server, id: u64, meta: Option<Value>, basis: Value) -> Result<()> {
    let mut params = json!({"name": "remember_decision", "arguments": {
        "artifact": artifact(), "subject": "thread depth", "disposition": "hold",
        "basis": basis}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    let out = send(server, &request(json!(id), "tools/call", params));
    ensure!(
        out.first().is_some_and(|r| r["result"]["isError"] != true),
        "remember_decision: {out:?}"
    );
    Ok(())
}

/// [`restate`] with the second item's requirement changed.
fn change_the_second_item(server: &mut Server, id: u64, meta: Option<Value>) -> Result<()> {
    restate(
        server,
        id,
        meta,
        json!([
            {"requirement": "M6 depth 8 mm", "source": "drawing", "state": "satisfied"},
            {"requirement": "Wall 1.8 mm", "source": "assistant-proposed", "state": "unresolved",
             "question": "Is 1.6 mm fine?"}]),
    )
}

/// [`restate`] with both items changed.
fn change_every_item(server: &mut Server, id: u64, meta: Option<Value>) -> Result<()> {
    restate(
        server,
        id,
        meta,
        json!([
            {"requirement": "M6 depth 10 mm", "source": "drawing", "state": "satisfied"},
            {"requirement": "Wall 1.5 mm", "source": "drawing", "state": "violated"}]),
    )
}

/// The verdicts after the engineer's acceptance of the first item only was recorded.
fn first_accepted() -> Vec<Option<(String, String)>> {
    vec![Some(("accepted".into(), "elicitation".into())), None]
}

/// Regression: an item changed while the engineer answered the form refused every answer of
/// the form, the unchanged items' too, and the engineer's reasons were gone. Now each answer
/// stands or falls with its own item, as in the card and the terminal: the unchanged item's
/// verdict is recorded, the changed one's is not, and the answer says which and what the
/// engineer had said of it.
#[test]
fn an_item_changed_while_the_form_is_open_loses_only_its_own_answer() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    change_the_second_item(&mut s, 3, None)?;
    let out = send(&mut s, &answer(&asked, accept()));
    let result = &out
        .iter()
        .find(|m| m["id"] == 2)
        .context("no answer to the call")?["result"];
    assert_ne!(result["isError"], true, "{out:?}");
    let content = &result["structuredContent"];
    assert_eq!(content["outcome"], "recorded", "{out:?}");
    assert_eq!(content["asked"], json!([0, 1]));
    assert_eq!(content["recorded"], json!([0]));
    let text = result["content"][0]["text"].as_str().context("no text")?;
    assert!(
        text.contains("1 accepted, 0 rejected")
            && text.contains("Not recorded, changed while the engineer was answering")
            && text.contains("not at the boss"),
        "says what was recorded, what was not and the engineer's words: {text}"
    );
    // Regression: the second item, "Item 2" on the engineer's form, was named "item 1" (its
    // index), which is the first item everywhere else the model or the engineer reads.
    assert!(
        text.contains("item 2 rejected (\"not at the boss\")")
            && text.contains("with request_verdicts (items: [1])"),
        "numbers the item as the form did and gives the index to ask again: {text}"
    );
    assert_eq!(verdicts(&mut s)?, first_accepted());
    Ok(())
}

/// When every item asked changed, nothing is written, and the refusal still carries what the
/// engineer answered, so their words are not lost.
#[test]
fn a_form_whose_every_item_changed_writes_nothing_and_keeps_the_engineers_words() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let asked = the_ask(&send(&mut s, &ask(2)))?;
    change_every_item(&mut s, 3, None)?;
    let out = send(&mut s, &answer(&asked, accept()));
    let text = refusal_text(&out)?;
    assert!(
        text.contains("nothing was written")
            && text.contains("item 1 accepted")
            && text.contains("item 2 rejected (\"not at the boss\")"),
        "{text}"
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

/// The same in 2026-07-28, where the question comes back sealed in `requestState`: the
/// unchanged item is recorded, and the same retry sent again (a replay) writes nothing more.
#[test]
fn a_sealed_form_answered_after_an_item_changed_records_the_rest_once() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let out = send(&mut s, &modern_ask(2, json!({})));
    let state = request_state(&out)?;
    change_the_second_item(&mut s, 3, Some(modern_meta()))?;
    let retry = json!({"requestState": state, "inputResponses": {"verdicts": accept()}});
    let out = send(&mut s, &modern_ask(4, retry.clone()));
    assert_eq!(
        out[0]["result"]["structuredContent"]["recorded"],
        json!([0]),
        "{out:?}"
    );
    let first = verdicts(&mut s)?;
    assert_eq!(first, first_accepted());
    let history = |s: &mut Server| -> Result<usize> {
        let out = send(
            s,
            &call(
                901,
                "review_history",
                json!({"artifact": artifact(), "limit": 50}),
            ),
        );
        let events = out[0]["result"]["structuredContent"]["events"]
            .as_array()
            .context("no events")?;
        Ok(events.len())
    };
    let events = history(&mut s)?;
    let out = send(&mut s, &modern_ask(5, retry));
    assert_ne!(
        out[0]["result"]["structuredContent"]["outcome"], "recorded",
        "a replay is not recorded again: {out:?}"
    );
    let text = refusal_text(&out)?;
    assert!(
        text.contains("Already recorded before (the same answer was sent again): item 1.")
            && text.contains("The engineer's answers: item 2 "),
        "the replayed first item is not said to have changed, and is numbered from 1 as the \
         changed one beside it is: {text}"
    );
    assert_eq!(verdicts(&mut s)?, first);
    assert_eq!(history(&mut s)?, events, "the replay wrote no event");
    Ok(())
}

/// Regression: a 2026-07-28 retry (the engineer's answer in `inputResponses`, with its
/// `requestState`) sent without the `_meta` envelope in a process with a handshake session
/// was taken as a new call of that session: the engineer's answer was dropped without a word
/// and the form put to them again (or, without elicitation in the session, the model told to
/// ask in chat). It is now refused, -32602 saying to send the retry with its envelope, and
/// nothing is asked or written.
#[test]
fn a_sealed_retry_without_its_envelope_is_refused_saying_to_send_the_envelope() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let state = request_state(&send(&mut s, &modern_ask(2, json!({}))))?;
    let bare = request(
        json!(3),
        "tools/call",
        json!({"name": "request_verdicts",
               "arguments": {"artifact": artifact(), "subject": "thread depth"},
               "requestState": state, "inputResponses": {"verdicts": accept()}}),
    );
    let out = send(&mut s, &bare);
    ensure!(out.len() == 1, "asked nothing, wrote nothing: {out:?}");
    let message = out[0]["error"]["message"].as_str().unwrap_or_default();
    ensure!(
        out[0]["error"]["code"] == -32602
            && message.contains("requestState")
            && message.contains("io.modelcontextprotocol/protocolVersion"),
        "{out:?}"
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

/// Regression: a 2026-07-28 host that sent its retry twice (the stateless era lets a client
/// retry a request whose answer it lost) was told the second time that the decision had
/// changed while the engineer was answering, that nothing was written, and to ask again: the
/// engineer's verdicts, which the first retry recorded, read as lost. Now an answer the
/// decision already holds, word for word, is said to be recorded already, and nothing is
/// written twice.
#[test]
fn a_sealed_answer_sent_twice_is_recorded_once_and_said_to_be_recorded() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let state = request_state(&send(&mut s, &modern_ask(2, json!({}))))?;
    let retry = json!({"requestState": state, "inputResponses": {"verdicts": accept()}});
    let first = send(&mut s, &modern_ask(3, retry.clone()));
    assert_eq!(
        first[0]["result"]["structuredContent"]["recorded"],
        json!([0, 1]),
        "{first:?}"
    );
    let stored = verdicts(&mut s)?;
    let again = send(&mut s, &modern_ask(4, retry));
    let result = &again[0]["result"];
    assert_ne!(result["isError"], json!(true), "{again:?}");
    assert_eq!(
        result["structuredContent"]["outcome"], "recorded",
        "{again:?}"
    );
    assert_eq!(
        result["structuredContent"]["recorded"],
        json!([]),
        "nothing written twice"
    );
    let text = result["content"][0]["text"].as_str().context("no text")?;
    assert!(
        text.contains("already recorded") && !text.contains("changed"),
        "{text}"
    );
    assert_eq!(verdicts(&mut s)?, stored);
    Ok(())
}

/// Regression: a 2026-07-28 retry that came back without the answer (asked again) refused the
/// whole question when any item had changed, the unchanged ones too, where the answer itself
/// is judged item by item. Now it asks again about the items still as shown; the changed one
/// is left for the next call (`remaining`), and the answer to the new form records the rest.
#[test]
fn a_sealed_retry_without_the_answer_asks_again_about_the_unchanged_items() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let out = send(&mut s, &modern_ask(2, json!({})));
    let state = request_state(&out)?;
    change_the_second_item(&mut s, 3, Some(modern_meta()))?;
    let out = send(&mut s, &modern_ask(4, json!({"requestState": state})));
    let result = &out[0]["result"];
    assert_eq!(result["resultType"], "input_required", "{out:?}");
    let fields = &result["inputRequests"]["verdicts"]["params"]["requestedSchema"]["properties"];
    assert!(
        fields.get("item_000_judgement").is_some() && fields.get("item_001_judgement").is_none(),
        "asks about the unchanged item only: {fields}"
    );
    let again = request_state(&out)?;
    let retry = json!({"requestState": again,
                       "inputResponses": {"verdicts": {"action": "accept",
                           "content": {"item_000_judgement": "accepted"}}}});
    let out = send(&mut s, &modern_ask(5, retry));
    let content = &out[0]["result"]["structuredContent"];
    assert_eq!(content["outcome"], "recorded", "{out:?}");
    assert_eq!(
        (
            &content["asked"],
            &content["recorded"],
            &content["remaining"]
        ),
        (&json!([0]), &json!([0]), &json!(1)),
        "{out:?}"
    );
    assert_eq!(verdicts(&mut s)?, first_accepted());
    Ok(())
}

/// A retry without the answer after every item asked changed asks nothing: the question is
/// refused, as the answer to it would be, and nothing is written.
#[test]
fn a_sealed_retry_without_the_answer_after_every_item_changed_is_refused() -> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let out = send(&mut s, &modern_ask(2, json!({})));
    let state = request_state(&out)?;
    change_every_item(&mut s, 3, Some(modern_meta()))?;
    let out = send(&mut s, &modern_ask(4, json!({"requestState": state})));
    let text = refusal_text(&out)?;
    assert!(
        text.contains("no item asked is still the one shown") && text.contains("nothing"),
        "{text}"
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

#[test]
fn a_request_state_past_the_wait_bound_is_refused() -> Result<()> {
    let mut s = server_with_wait(Some(Duration::from_millis(100)))?;
    form_session(&mut s)?;
    let out = send(&mut s, &modern_ask(2, json!({})));
    let state = request_state(&out)?;
    thread::sleep(Duration::from_millis(250));
    let out = send(
        &mut s,
        &modern_ask(
            3,
            json!({"requestState": state, "inputResponses": {"verdicts": accept()}}),
        ),
    );
    assert_eq!(out[0]["error"]["code"], -32602, "{out:?}");
    // Regression: the refusal said only that the state expired, and the engineer's answers,
    // typed into a form the 2026-07-28 host kept open past the bound, were gone. They are now
    // in the refusal, as in every other answer that could not record them.
    let message = out[0]["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("expired")
            && message.contains(
                r#"The engineer's answers: item 1 accepted, item 2 rejected ("not at the boss")"#
            ),
        "{out:?}"
    );
    assert_eq!(verdicts(&mut s)?, vec![None, None]);
    Ok(())
}

/// The binary, with the wait bound from `REVIEW_MCP_ELICITATION_TIMEOUT`: nothing more is sent
/// after the question, and the call is answered at the bound, the form withdrawn.
#[test]
fn the_binary_ends_a_wait_at_the_bound_its_environment_sets() -> Result<()> {
    use std::io::BufReader;
    use std::process::{Command, Stdio};

    let dir = TempDir::new("elicitation")?;
    let mut child = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .env("REVIEW_MCP_DB_PATH", dir.join("review.db"))
        .env("REVIEW_MCP_ELICITATION_TIMEOUT", "1")
        .env("MCP_LOG_LEVEL", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdin = child.stdin.take().context("no stdin")?;
    let stdout = child.stdout.take().context("no stdout")?;
    let (tx, rx) = mpsc::channel::<(Instant, Value)>();
    let reader = thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line) {
                let _ = tx.send((Instant::now(), v));
            }
        }
    });
    let next = |within: Duration| rx.recv_timeout(within).ok();
    for msg in [
        request(
            json!(0),
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
                   "clientInfo": {"name": "binary", "version": "0"}}),
        ),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        call(
            1,
            "remember_decision",
            json!({"artifact": artifact(), "subject": "thread depth", "disposition": "hold",
                   "basis": [{"requirement": "M6 depth 8 mm", "source": "drawing", "state": "satisfied"}]}),
        ),
    ] {
        writeln!(stdin, "{msg}")?;
    }
    let mut seen = Vec::new();
    while !seen.iter().any(|m: &Value| m["id"] == 1) {
        seen.push(
            next(Duration::from_secs(10))
                .context("no answer to remember_decision")?
                .1,
        );
    }
    writeln!(stdin, "{}", ask(2))?;
    let (asked_at, asked) = loop {
        let (t, m) = next(Duration::from_secs(10)).context("no elicitation/create")?;
        if m["method"] == "elicitation/create" {
            break (t, m);
        }
    };
    let mut after = Vec::new();
    let answered_at = loop {
        let (t, m) = next(Duration::from_secs(120)).context("the wait never ended")?;
        let done = m["id"] == 2;
        after.push(m);
        if done {
            break t;
        }
    };
    // Ended by the 1 s bound, not the default of 600 s: the upper limit is far from both, so a
    // loaded machine does not fail it (it once took over 4 s at a load average of 7).
    let waited = answered_at.duration_since(asked_at);
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(120),
        "answered after {waited:?} with a 1 s bound"
    );
    assert!(
        after
            .iter()
            .any(|m| m["method"] == "notifications/cancelled"
                && m["params"]["requestId"] == asked["id"]),
        "{after:?}"
    );
    let answer = after.last().context("no answer")?;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("within 1 s")),
        "{answer}"
    );
    drop(stdin);
    let status = child.wait()?;
    let _ = reader.join();
    ensure!(status.success(), "the binary exited with {status}");
    Ok(())
}

/// Issue 23, item 3: every verdict stores who gave it at the moment it was given (the
/// author of the server it came through), in every channel and both eras; a verdict it
/// replaces lends it nothing, and a verdict the outranking rule keeps keeps its own author.
#[test]
fn every_channel_stores_the_author_of_the_verdict_and_nothing_else() -> Result<()> {
    for legacy in [Some("2025-11-25"), Some("2025-06-18"), None] {
        let dir = TempDir::new("verdict-authors")?;
        let db = dir.join("review.db");
        let mut bob = Host::on(&db, Some("Bob"), legacy, artifact(), "thread depth")?;
        let mut ada = Host::on(&db, Some("Ada"), legacy, artifact(), "thread depth")?;
        let mut anonymous = Host::on(&db, None, legacy, artifact(), "thread depth")?;
        let item = |r: &str, v: Option<&str>| {
            let mut b = json!({"requirement": r, "source": "drawing", "state": "satisfied"});
            if let Some(j) = v {
                b["verdict"] = json!({"judgement": j});
            }
            b
        };
        let basis = |v: Option<&str>| {
            json!([
                item("M6 depth 8 mm", v),
                item("Wall 2 mm", v),
                item("Chamfer 0.5", v)
            ])
        };
        let remember = |h: &mut Host, v: Option<&str>| {
            h.ok(
                "remember_decision",
                json!({"artifact": artifact(), "subject": "thread depth",
                       "disposition": "hold", "basis": basis(v)}),
            )
        };
        let s = |j: &str, via: &str, a: Option<&str>| {
            Some((j.to_string(), via.to_string(), a.map(str::to_string)))
        };

        // The assistant of Bob's server relays three verdicts: Bob's.
        remember(&mut bob, Some("rejected"))?;
        let bobs = s("rejected", "assistant", Some("Bob"));
        assert_eq!(
            bob.stored()?,
            vec![bobs.clone(), bobs.clone(), bobs.clone()]
        );

        // Ada clicks item 0 in the card and answers the form for item 1: hers, each, and not
        // Bob's (the verdicts they replace lend them nothing), as the answers say too.
        let clicked = ada.click(0, "accepted")?;
        assert_eq!(clicked["verdict"]["author"], "Ada", "{legacy:?}");
        let answered = ada.form(&[1])?;
        assert_eq!(
            answered["decision"]["basis"][1]["verdict"]["author"], "Ada",
            "{legacy:?}"
        );
        assert_eq!(
            ada.stored()?,
            vec![
                s("accepted", "app", Some("Ada")),
                s("accepted", "elicitation", Some("Ada")),
                bobs.clone()
            ],
            "{legacy:?}"
        );

        // A server without an author: its engineer's verdict has none, not Ada's.
        anonymous.click(1, "rejected")?;
        anonymous.form(&[2])?;
        assert_eq!(
            anonymous.stored()?,
            vec![
                s("accepted", "app", Some("Ada")),
                s("rejected", "app", None),
                s("accepted", "elicitation", None)
            ],
            "{legacy:?}"
        );

        // Bob's assistant replaces the decision with other verdicts: the engineer's verdicts
        // are kept, each with its own author.
        let replaced = remember(&mut bob, Some("rejected"))?;
        assert_eq!(
            replaced["decision"]["basis"][0]["verdict"]["author"], "Ada",
            "{replaced}"
        );
        assert_eq!(
            bob.stored()?,
            vec![
                s("accepted", "app", Some("Ada")),
                s("rejected", "app", None),
                s("accepted", "elicitation", None)
            ],
            "{legacy:?}"
        );
    }
    Ok(())
}

/// A decision of twenty unresolved items with long requirements, item `i`'s tagged `tag(i)`,
/// written in the session of `server`.
/// "thread depth" restated on hold with `basis`.
fn hold_with(server: &mut Server, id: u64, basis: Vec<Value>) -> Result<()> {
    let out = send(
        server,
        &call(
            id,
            "remember_decision",
            json!({"artifact": artifact(), "subject": "thread depth", "disposition": "hold",
                   "basis": basis}),
        ),
    );
    ensure!(
        out.first().is_some_and(|r| r["result"]["isError"] != true),
        "remember_decision: {out:?}"
    );
    Ok(())
}

fn twenty_items(server: &mut Server, id: u64, tag: impl Fn(usize) -> &'static str) -> Result<()> {
    let basis: Vec<Value> = (0..20)
        .map(|i| {
            json!({"requirement": format!("{} {i} {}", tag(i), "r".repeat(400)), "source": "drawing",
                   "state": "unresolved", "question": format!("Is {i} fine? {}", "q".repeat(300))})
        })
        .collect();
    hold_with(server, id, basis)
}

/// Every item of a twenty-item form rejected with a reason of the most characters a form
/// takes, each of which is escaped (or takes four bytes) where the answer quotes it.
fn twenty_long_answers(reason: &str) -> Value {
    let mut content = serde_json::Map::new();
    for i in 0..20 {
        content.insert(format!("item_{i:03}_judgement"), json!("rejected"));
        content.insert(format!("item_{i:03}_reason"), json!(reason.repeat(2_000)));
    }
    json!({"action": "accept", "content": content})
}

/// Regression: the answers of items changed while the form was open are quoted in the
/// answer, 200 characters each, unbounded in bytes: twenty reasons of characters escaped as
/// `\u{202e}` (or of four-byte characters) took the answer past the bound, the refusal
/// when every item changed to ~37 KB, the recording of one of twenty past 32,000 bytes.
#[test]
fn the_engineers_words_on_changed_items_stay_within_the_answer_bound() -> Result<()> {
    const BOUND: usize = 32_000;
    for reason in ["\u{202e}", "\u{1F600}", "x"] {
        for changed in [20, 19] {
            let mut s = server_with_wait(None)?;
            form_session(&mut s)?;
            twenty_items(&mut s, 2, |_| "before")?;
            let asked = the_ask(&send(&mut s, &ask(3)))?;
            // Every item changes, or all but item 0.
            twenty_items(&mut s, 4, |i| {
                if i == 0 && changed == 19 {
                    "before"
                } else {
                    "after"
                }
            })?;
            let out = send(&mut s, &answer(&asked, twenty_long_answers(reason)));
            let reply = out
                .iter()
                .find(|m| m["id"] == 3)
                .context("no answer to the call")?;
            let bytes = reply.to_string().len();
            assert!(
                bytes <= BOUND,
                "{changed} changed, reasons of {reason:?}: a {bytes}-byte answer"
            );
            let text = reply["result"]["content"][0]["text"]
                .as_str()
                .context("no text")?;
            assert!(
                text.contains("item 19 rejected"),
                "every changed item is named: {text}"
            );
        }
    }
    Ok(())
}

/// A decision of twenty items whose every field the form shows is as long as the form shows
/// it, of `c` (a character escaped as `\u{200b}` takes nine bytes of JSON, a tag character
/// ten: one such item alone is past the form's bound).
fn twenty_full_items(server: &mut Server, id: u64, c: &str) -> Result<()> {
    let long = |n: usize| c.repeat(n);
    let basis: Vec<Value> = (0..20)
        .map(|i| {
            json!({"requirement": format!("{i} {}", long(1_200)), "source": "drawing",
                   "sourceDetail": long(400), "state": "unresolved", "evidence": long(400),
                   "question": long(400), "faces": (0..12).map(|f| format!("face:{f}{}", long(40))).collect::<Vec<_>>()})
        })
        .collect();
    hold_with(server, id, basis)
}

/// Regression: the form showed each of twenty items at up to 1,000 characters of requirement
/// and 300 of each other field, whatever they cost in bytes: a 2026-07-28 answer asking them
/// took 56 KB, past the answer bound, at default arguments. A form now asks the items that
/// fit its bound (the others are `remaining`, asked next) and shows a single item that
/// passes it alone shorter, every cut saying how much it leaves out.
#[test]
fn the_form_of_the_largest_items_stays_within_the_answer_bound() -> Result<()> {
    const BOUND: usize = 32_000;
    for c in ["x", "\u{200b}", "\u{1F600}", "\u{E0041}"] {
        let mut s = server_with_wait(None)?;
        form_session(&mut s)?;
        twenty_full_items(&mut s, 2, c)?;
        let out = send(&mut s, &modern_ask(3, json!({})));
        let result = &out[0]["result"];
        assert_eq!(result["resultType"], "input_required", "{c:?}: {out:?}");
        let bytes = out[0].to_string().len();
        assert!(bytes <= BOUND, "{c:?}: a {bytes}-byte answer");
        let params = &result["inputRequests"]["verdicts"]["params"];
        let asked = params["requestedSchema"]["required"]
            .as_array()
            .map_or(0, Vec::len);
        assert!(asked >= 1, "{c:?}: asks nothing: {params}");
        let message = params["message"].as_str().unwrap_or_default();
        if asked < 20 {
            let more = format!(
                "(Not in this form: {} more items awaiting your verdict.)",
                20 - asked
            );
            assert!(message.contains(&more), "{c:?}: {message}");
        }
        // The legacy form, a request of the server's: the same bound.
        let out = send(&mut s, &ask(4));
        let bytes = out[0].to_string().len();
        assert!(bytes <= BOUND, "{c:?}: a {bytes}-byte elicitation/create");
    }
    Ok(())
}

/// The engineer's click in the review card on item `index` of the decision (`judgement`),
/// through the legacy session: another channel of the engineer's own than the form.
fn in_card(server: &mut Server, id: u64, index: usize, judgement: &str) -> Result<()> {
    let shown = send(
        server,
        &call(
            id,
            "show_review",
            json!({"artifact": artifact(), "detail": "full"}),
        ),
    );
    let result = &shown.first().context("no show_review answer")?["result"];
    let d = &result["structuredContent"]["decisions"][0];
    let decision = d["id"].as_str().context("no decision id")?;
    let proof = &result["_meta"]["review-mcp/card"]["proofs"][decision];
    let out = send(
        server,
        &call(
            id + 1,
            "record_verdict",
            json!({"decision_id": decision, "index": index,
                   "item_digest": d["basis"][index]["digest"], "judgement": judgement,
                   "card_proof": proof}),
        ),
    );
    ensure!(
        out.first().is_some_and(|r| r["result"]["isError"] != true),
        "record_verdict: {out:?}"
    );
    Ok(())
}

/// Regression: a 2026-07-28 form answered after the engineer had settled every item asked in
/// the review card was refused (nothing written, rightly) with "call request_verdicts again",
/// which then had nothing to ask. The refusal now says every item has the engineer's verdict,
/// names the answers that differ, and sends to recall_decisions and the engineer; so does a
/// retry without the answer.
#[test]
fn a_sealed_form_answered_after_the_card_settled_every_item_says_nothing_is_left_to_ask()
-> Result<()> {
    let mut s = server_with_wait(None)?;
    form_session(&mut s)?;
    let state = request_state(&send(&mut s, &modern_ask(2, json!({}))))?;
    in_card(&mut s, 3, 0, "rejected")?;
    in_card(&mut s, 5, 1, "rejected")?;
    let settled = verdicts(&mut s)?;
    for (id, retry) in [
        (
            7,
            json!({"requestState": state, "inputResponses": {"verdicts": accept()}}),
        ),
        (8, json!({"requestState": state})),
    ] {
        let out = send(&mut s, &modern_ask(id, retry));
        let text = refusal_text(&out)?;
        assert!(
            !text.contains("Call request_verdicts again")
                && text.contains("nothing is left to ask")
                && text.contains("recall_decisions"),
            "{text}"
        );
        assert_eq!(verdicts(&mut s)?, settled, "nothing written");
    }
    Ok(())
}
