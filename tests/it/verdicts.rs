//! The engineer's verdicts: asked through the host's form (`request_verdicts`, here in its
//! stateless 2026-07-28 form, whose two calls need no server memory), recorded with their
//! provenance, never overwritten or silently erased by the assistant, and found again by
//! `recall_decisions`' verdict filters, the revision resource and the report.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use review_mcp::server::Server;
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

const REV: &str = "sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc";

struct Modern {
    server: Server,
    id: i64,
}

fn artifact() -> Value {
    json!({"revision": REV, "format": "step", "uri": "/work/bracket.step"})
}

impl Modern {
    fn new() -> Modern {
        Modern::as_author(None)
    }

    /// A server whose author (`--author`) is `author`.
    fn as_author(author: Option<&str>) -> Modern {
        let mut store = Store::open_in_memory().unwrap();
        store.set_author(author.map(str::to_string));
        Modern {
            server: Server::new(Service::new(store)),
            id: 0,
        }
    }

    /// One request with the envelope declaring `caps`; the response.
    fn request(&mut self, method: &str, mut params: Value, caps: Value) -> Value {
        self.id += 1;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
        });
        let line = json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params});
        let out = self.server.handle_line(line.to_string().as_bytes());
        out.into_iter()
            .find(|m| m.get("id").is_some())
            .expect("an answer")
    }

    fn call(&mut self, tool: &str, args: Value, caps: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}), caps)
    }

    fn structured(&mut self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args, json!({}));
        assert_ne!(r["result"]["isError"], json!(true), "{r}");
        r["result"]["structuredContent"].clone()
    }

    /// request_verdicts's two calls: the question, then the retry carrying `answer`.
    fn ask_and_answer(&mut self, args: Value, answer: Value) -> Value {
        let asked = self.call("request_verdicts", args.clone(), form());
        assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
        let state = asked["result"]["requestState"].clone();
        self.request(
            "tools/call",
            json!({"name": "request_verdicts", "arguments": args,
                   "inputResponses": {"verdicts": answer}, "requestState": state}),
            form(),
        )
    }

    fn decision(&mut self) -> Value {
        let got = self.structured(
            "recall_decisions",
            json!({"artifact": artifact(), "subject": "bore"}),
        );
        got["decisions"][0].clone()
    }
}

fn form() -> Value {
    json!({"elicitation": {"form": {}}})
}

fn basis(verdict_on_first: Option<Value>) -> Value {
    let mut first = json!({"requirement": "Bore 12H7", "source": "drawing", "state": "unresolved",
                           "question": "Which reamer?"});
    if let Some(v) = verdict_on_first {
        first["verdict"] = v;
    }
    json!([
        first,
        {"requirement": "Wall at least 2 mm", "source": "assistant-proposed", "state": "satisfied",
         "evidence": "measure: 2.4 mm"},
        {"requirement": "Chamfer 0.5", "source": "drawing", "state": "satisfied"}
    ])
}

fn remember(c: &mut Modern, basis: Value) -> Value {
    c.structured(
        "remember_decision",
        json!({"artifact": artifact(), "subject": "bore", "disposition": "hold", "basis": basis}),
    )
}

fn ask_args() -> Value {
    json!({"artifact": artifact(), "subject": "bore"})
}

#[test]
fn the_form_asks_every_item_without_an_engineer_verdict_and_records_the_answers_as_the_engineers() {
    let mut c = Modern::new();
    remember(&mut c, basis(Some(json!({"judgement": "accepted"}))));
    let asked = c.call("request_verdicts", ask_args(), form());
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required");
    assert!(result.get("ttlMs").is_none() && result.get("content").is_none());
    let params = &result["inputRequests"]["verdicts"]["params"];
    assert_eq!(
        result["inputRequests"]["verdicts"]["method"],
        "elicitation/create"
    );
    assert_eq!(params["mode"], "form");
    let schema = &params["requestedSchema"];
    assert_eq!(schema["type"], "object");
    // The assistant's relayed verdict on item 0 is not the engineer's: it is asked too.
    assert_eq!(
        schema["required"],
        json!([
            "item_000_judgement",
            "item_001_judgement",
            "item_002_judgement"
        ])
    );
    for (key, p) in schema["properties"].as_object().unwrap() {
        assert_eq!(p["type"], "string", "{key}: flat primitives only");
    }
    assert_eq!(
        schema["properties"]["item_001_judgement"]["enum"],
        json!(["accepted", "rejected"])
    );
    // Issue 28: the first line (all a one-line host shows) says whose answers these are, in
    // under 80 characters; each item's details are in its field only, never twice.
    let message = params["message"].as_str().unwrap();
    let first = message.lines().next().unwrap();
    assert!(first.chars().count() < 80, "{first}");
    assert!(first.contains("recorded as your own verdicts"), "{first}");
    let fields = schema["properties"].to_string();
    for shown in [
        "Bore 12H7",
        "Which reamer?",
        "measure: 2.4 mm",
        "assistant-proposed",
    ] {
        assert!(fields.contains(shown), "the form shows {shown}: {fields}");
        assert!(!message.contains(shown), "said twice: {message}");
    }

    let state = result["requestState"].clone();
    let done = c.request(
        "tools/call",
        json!({"name": "request_verdicts", "arguments": ask_args(), "requestState": state,
               "inputResponses": {"verdicts": {"action": "accept", "content": {
                   "item_000_judgement": "rejected", "item_000_reason": "reamer unknown",
                   "item_001_judgement": "accepted", "item_002_judgement": "accepted", "item_002_reason": "  "}}}}),
        form(),
    );
    let out = &done["result"]["structuredContent"];
    assert_eq!(out["outcome"], "recorded", "{done}");
    assert_eq!(out["recorded"], json!([0, 1, 2]));
    let d = c.decision();
    let v0 = &d["basis"][0]["verdict"];
    assert_eq!(
        (&v0["judgement"], &v0["via"], &v0["reason"]),
        (
            &json!("rejected"),
            &json!("elicitation"),
            &json!("reamer unknown")
        )
    );
    assert!(v0["at"].as_str().unwrap().ends_with('Z'));
    assert!(
        d["basis"][2]["verdict"].get("reason").is_none(),
        "a blank reason is none"
    );

    // Now nothing is left to ask.
    let again = c.call("request_verdicts", ask_args(), form());
    assert_eq!(
        again["result"]["structuredContent"]["outcome"], "nothing_to_ask",
        "{again}"
    );
    // The same answer replayed on the old state: the basis it showed is gone.
    let replay = c.request(
        "tools/call",
        json!({"name": "request_verdicts", "arguments": ask_args(), "requestState": state,
               "inputResponses": {"verdicts": {"action": "accept", "content": {
                   "item_000_judgement": "accepted", "item_001_judgement": "accepted", "item_002_judgement": "accepted"}}}}),
        form(),
    );
    assert_eq!(replay["result"]["isError"], json!(true), "{replay}");
    assert_eq!(c.decision()["basis"][0]["verdict"]["judgement"], "rejected");

    // The report and the revision resource show who gave it.
    let report = c.request(
        "resources/read",
        json!({"uri": format!("review://revisions/{REV}/report")}),
        json!({}),
    );
    let text = report["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("rejected by the engineer (form), "), "{text}");
    assert!(
        text.contains("3 given by the engineer, 0 relayed"),
        "{text}"
    );
    let view = c.request(
        "resources/read",
        json!({"uri": format!("review://revisions/{REV}")}),
        json!({}),
    );
    let view: Value =
        serde_json::from_str(view["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        view["decisions"][0]["basis"][0]["verdict"]["via"], "elicitation",
        "{view}"
    );
}

/// Regression: when `remember_decision` kept the engineer's verdict against the assistant's,
/// it told the model "Ask the engineer with request_verdicts to change it" in every host, also
/// one that shows no form (Gemini CLI declares no elicitation), where that call can only fail.
/// The summary now names the engineer's channels of the host that called: the form only where
/// the request declared it, the review card as this host's when it declared the MCP Apps
/// extension, and always their terminal, with the command ready to run.
#[test]
fn a_kept_engineer_verdict_names_the_channels_of_the_calling_host() {
    let mut c = Modern::as_author(Some("Ada"));
    remember(&mut c, basis(None));
    c.ask_and_answer(
        ask_args(),
        json!({"action": "accept", "content": {"item_000_judgement": "rejected", "item_001_judgement": "accepted", "item_002_judgement": "accepted"}}),
    );
    let apps = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    let mut both = apps.clone();
    both["elicitation"] = json!({"form": {}});
    for (caps, form, sure_card) in [
        (json!({}), false, false),
        (json!({"elicitation": {"url": {}}}), false, false),
        (form(), true, false),
        (apps, false, true),
        (both, true, true),
    ] {
        let offered = basis(Some(json!({"judgement": "accepted", "reason": "fine"})));
        let replaced = c.call(
            "remember_decision",
            json!({"artifact": artifact(), "subject": "bore", "disposition": "hold", "basis": offered}),
            caps.clone(),
        );
        let summary = replaced["result"]["content"][0]["text"].as_str().unwrap();
        assert!(summary.contains("outranks yours"), "{caps}: {summary}");
        assert_eq!(
            summary.contains("request_verdicts"),
            form,
            "{caps}: {summary}"
        );
        assert_eq!(
            summary.contains("the review card, which this host renders"),
            sure_card,
            "{caps}: {summary}"
        );
        assert!(
            summary.contains(&format!("review-mcp review --author Ada {REV}")),
            "{caps}: {summary}"
        );
    }
}

#[test]
fn an_assistant_replacement_keeps_the_engineers_verdicts_and_says_so() {
    let mut c = Modern::new();
    remember(&mut c, basis(None));
    let done = c.ask_and_answer(
        json!({"artifact": artifact(), "subject": "bore", "items": [0, 2]}),
        json!({"action": "accept", "content": {"item_000_judgement": "rejected", "item_002_judgement": "accepted"}}),
    );
    assert_eq!(
        done["result"]["structuredContent"]["recorded"],
        json!([0, 2])
    );

    // The assistant resends the basis: item 0 with its own verdict, item 2 left out.
    let replaced = c.call(
        "remember_decision",
        json!({"artifact": artifact(), "subject": "bore", "disposition": "release", "basis": [
            {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied",
             "verdict": {"judgement": "accepted", "reason": "looks fine"}},
            {"requirement": "Wall at least 2 mm", "source": "assistant-proposed", "state": "satisfied",
             "verdict": {"judgement": "accepted"}}
        ]}),
        json!({}),
    );
    let out = &replaced["result"]["structuredContent"];
    let kept = &out["engineer_verdicts_kept"][0];
    assert_eq!(kept["index"], 0);
    assert_eq!(kept["verdict"]["judgement"], "rejected");
    assert_eq!(kept["offered"]["judgement"], "accepted");
    assert_eq!(kept["offered"]["via"], "assistant");
    assert_eq!(
        out["engineer_verdicts_removed"][0]["requirement"],
        "Chamfer 0.5"
    );
    let summary = replaced["result"]["content"][0]["text"].as_str().unwrap();
    assert!(summary.contains("outranks yours"), "{summary}");
    assert!(summary.contains("Removed with their items"), "{summary}");
    let d = c.decision();
    assert_eq!(d["basis"][0]["verdict"]["via"], "elicitation");
    assert_eq!(d["basis"][0]["verdict"]["judgement"], "rejected");
    assert_eq!(d["basis"][1]["verdict"]["via"], "assistant");

    // Copying the recalled decision back unchanged keeps everything, claims included.
    let copy = c.call(
        "remember_decision",
        json!({"artifact": artifact(), "subject": "bore", "disposition": "release",
               "basis": d["basis"].clone()}),
        json!({}),
    );
    assert_ne!(copy["result"]["isError"], json!(true), "{copy}");
    assert_eq!(c.decision()["basis"], d["basis"]);

    // A verdict in arguments can never claim the engineer's channels.
    for via in ["elicitation", "app"] {
        let claim = c.call(
            "remember_decision",
            json!({"artifact": artifact(), "subject": "bore", "disposition": "release", "basis": [
                {"requirement": "Wall at least 2 mm", "source": "assistant-proposed",
                 "state": "satisfied", "verdict": {"judgement": "rejected", "via": via}}
            ]}),
            json!({}),
        );
        assert_eq!(claim["result"]["isError"], json!(true), "{claim}");
        assert_eq!(c.decision()["basis"], d["basis"], "nothing written");
    }
}

/// Issue 28: a host that never showed the form (`claude -p`) answers `cancel` by itself, so a
/// cancel does not say the engineer dismissed it: it says they may not have been reached and
/// names their other channels (the terminal command for this revision, the card), in the
/// structured content too (a host may pass only that to the model). A decline is the
/// engineer's explicit refusal and says so. Neither writes anything.
#[test]
fn a_cancelled_form_says_the_engineer_may_not_have_been_reached_and_names_the_other_channels() {
    let mut c = Modern::new();
    remember(&mut c, basis(None));
    let before = c.decision();
    let r = c.ask_and_answer(ask_args(), json!({"action": "cancel"}));
    let result = &r["result"];
    let text = result["content"][0]["text"].as_str().unwrap();
    let s = &result["structuredContent"];
    assert_eq!(s["outcome"], "cancelled");
    assert!(!text.contains("dismissed"), "{text}");
    assert!(text.contains("may not have been reached"), "{text}");
    let terminal = s["other_channels"]["terminal"].as_str().unwrap();
    assert_eq!(terminal, format!("review-mcp review {REV}"));
    assert!(text.contains(terminal), "{text}");
    assert!(
        s["other_channels"]["card"]
            .as_str()
            .unwrap()
            .contains("show_review")
    );
    assert_eq!(
        s["other_channels"]["note"], text,
        "the whole message, for the model"
    );
    assert_eq!(s["recorded"], json!([]));
    assert_eq!(
        s["asked"],
        json!([0, 1, 2]),
        "asked, and still awaiting the engineer"
    );
    assert_eq!(c.decision(), before, "nothing written");

    let r = c.ask_and_answer(ask_args(), json!({"action": "decline"}));
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(r["result"]["structuredContent"]["outcome"], "declined");
    assert!(
        text.contains("declined") && text.contains("explicit refusal"),
        "{text}"
    );
    assert!(
        r["result"]["structuredContent"]
            .get("other_channels")
            .is_none()
    );
    assert_eq!(c.decision(), before, "nothing written");
}

#[test]
fn declined_cancelled_or_mismatched_answers_write_nothing() {
    let mut c = Modern::new();
    remember(&mut c, basis(None));
    let before = c.decision();
    for (action, outcome) in [("decline", "declined"), ("cancel", "cancelled")] {
        let r = c.ask_and_answer(ask_args(), json!({"action": action}));
        assert_eq!(r["result"]["structuredContent"]["outcome"], outcome, "{r}");
        assert_ne!(r["result"]["isError"], json!(true));
        assert_eq!(r["result"]["structuredContent"]["recorded"], json!([]));
    }
    for content in [
        json!({"item_000_judgement": "maybe", "item_001_judgement": "accepted", "item_002_judgement": "accepted"}),
        json!({"item_000_judgement": "accepted", "item_001_judgement": "accepted"}),
        json!({"item_000_judgement": "accepted", "item_001_judgement": "accepted", "item_002_judgement": "accepted",
               "item_007_judgement": "accepted"}),
        json!({"item_000_judgement": true, "item_001_judgement": "accepted", "item_002_judgement": "accepted"}),
    ] {
        let r = c.ask_and_answer(ask_args(), json!({"action": "accept", "content": content}));
        assert_eq!(r["result"]["isError"], json!(true), "{content}: {r}");
    }
    assert_eq!(c.decision(), before);
}

#[test]
fn request_state_is_sealed_bound_to_its_call_and_the_capability_is_required() {
    let mut c = Modern::new();
    remember(&mut c, basis(None));
    // No elicitation declared in this request: -32021, naming the capability.
    let r = c.call("request_verdicts", ask_args(), json!({}));
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert!(r["error"]["data"]["requiredCapabilities"]["elicitation"].is_object());
    // Issue 28: a host without forms is told the engineer's own channels too.
    let m = r["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("`review-mcp review") && m.contains("review card"),
        "{m}"
    );
    // Ready to run: the decision's revision, not the placeholders `--db PATH FILE` (the
    // model cannot know PATH; the legacy answer already named it).
    let revision = ask_args()["artifact"]["revision"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        m.contains(&format!("`review-mcp review {revision}` in their terminal")),
        "{m}"
    );
    assert!(!m.contains("PATH") && !m.contains("FILE"), "{m}");
    let r = c.call(
        "request_verdicts",
        ask_args(),
        json!({"elicitation": {"url": {}}}),
    );
    assert_eq!(
        r["error"]["code"], -32021,
        "url mode only cannot show a form"
    );

    let asked = c.call("request_verdicts", ask_args(), form());
    let state = asked["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let answer = json!({"action": "accept", "content": {
        "item_000_judgement": "accepted", "item_001_judgement": "accepted", "item_002_judgement": "accepted"}});
    let retry = |c: &mut Modern, args: Value, state: &str| {
        c.request(
            "tools/call",
            json!({"name": "request_verdicts", "arguments": args, "requestState": state,
                   "inputResponses": {"verdicts": answer.clone()}}),
            form(),
        )
    };
    // One character changed anywhere: refused like a cursor.
    let mut tampered = state.clone().into_bytes();
    let at = tampered.len() / 2;
    tampered[at] = if tampered[at] == b'0' { b'1' } else { b'0' };
    let tampered = String::from_utf8(tampered).unwrap();
    for bad in [tampered.as_str(), "rv1.00.00", "", "c2.1.1.1.0"] {
        let r = retry(&mut c, ask_args(), bad);
        assert_eq!(r["error"]["code"], -32602, "{bad}: {r}");
    }
    // The state of one call does not answer another.
    let other = json!({"artifact": artifact(), "subject": "bore", "items": [1]});
    let r = retry(&mut c, other, &state);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // A state issued by another database is refused.
    let mut elsewhere = Modern::new();
    remember(&mut elsewhere, basis(None));
    let r = retry(&mut elsewhere, ask_args(), &state);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // A retry without the answer is asked again.
    let r = c.request(
        "tools/call",
        json!({"name": "request_verdicts", "arguments": ask_args(), "requestState": state,
               "inputResponses": {"other": {}}}),
        form(),
    );
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    // Nothing was written by any of it.
    assert!(c.decision()["basis"][0].get("verdict").is_none());
    // The genuine state still works.
    let r = retry(&mut c, ask_args(), &state);
    assert_eq!(
        r["result"]["structuredContent"]["outcome"], "recorded",
        "{r}"
    );
}

#[test]
fn recall_decisions_filters_on_verdict_state_and_provenance() {
    let mut c = Modern::new();
    let subjects = ["none", "relayed", "engineer"];
    for s in subjects {
        let verdict = (s == "relayed").then(|| json!({"judgement": "accepted"}));
        let mut b = json!([{"requirement": "Bore", "source": "drawing", "state": "satisfied"}]);
        if let Some(v) = verdict {
            b[0]["verdict"] = v;
        }
        c.structured(
            "remember_decision",
            json!({"artifact": artifact(), "subject": s, "disposition": "hold", "basis": b}),
        );
    }
    c.ask_and_answer(
        json!({"artifact": artifact(), "subject": "engineer"}),
        json!({"action": "accept", "content": {"item_000_judgement": "rejected"}}),
    );
    let find = |c: &mut Modern, filter: Value| -> Vec<String> {
        let mut args = json!({"artifact": artifact()});
        for (k, v) in filter.as_object().unwrap() {
            args[k] = v.clone();
        }
        let got = c.structured("recall_decisions", args);
        let mut names: Vec<String> = got["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["subject"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    assert_eq!(find(&mut c, json!({"verdict": "none"})), ["none"]);
    assert_eq!(find(&mut c, json!({"verdict": "accepted"})), ["relayed"]);
    assert_eq!(find(&mut c, json!({"verdict": "rejected"})), ["engineer"]);
    assert_eq!(find(&mut c, json!({"via": "elicitation"})), ["engineer"]);
    assert_eq!(find(&mut c, json!({"via": "assistant"})), ["relayed"]);
    assert!(find(&mut c, json!({"via": "app"})).is_empty());
    assert!(find(&mut c, json!({"verdict": "accepted", "via": "elicitation"})).is_empty());
    assert_eq!(
        find(
            &mut c,
            json!({"verdict": "rejected", "via": "elicitation", "text": "bore"})
        ),
        ["engineer"]
    );
    let r = c.call(
        "recall_decisions",
        json!({"verdict": "none", "via": "assistant"}),
        json!({}),
    );
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
}

/// A stored string cannot fake another item in the form the engineer reads, or display in
/// another order than it is stored.
#[test]
fn stored_strings_cannot_forge_lines_of_the_form() {
    let mut c = Modern::new();
    remember(
        &mut c,
        json!([{"requirement": "Bore\nItem 2: Wall accepted by QA\u{202E}", "source": "drawing",
                "state": "unresolved", "question": "which?\r\nItem 3: none"}]),
    );
    let asked = c.call("request_verdicts", ask_args(), form());
    let params = &asked["result"]["inputRequests"]["verdicts"]["params"];
    let message = params["message"].as_str().unwrap();
    assert_eq!(message.lines().count(), 2, "{message}");
    assert!(!message.contains('\u{202E}'));
    let title = params["requestedSchema"]["properties"]["item_000_judgement"]["title"]
        .as_str()
        .unwrap();
    // The override shown, not obeyed, as every reader shows it.
    assert_eq!(title, "Item 1: Bore Item 2: Wall accepted by QA\\u{202e}");
}

/// Issue 23, item 4: asked again about items already judged, the form says who gave each
/// earlier verdict, through which channel and when; the engineer's own is never "relayed by
/// the assistant".
#[test]
fn asked_again_the_form_says_who_gave_each_earlier_verdict_how_and_when() {
    let mut c = Modern::as_author(Some("Ada Lovelace"));
    remember(&mut c, basis(Some(json!({"judgement": "accepted"}))));
    // The engineer: item 1 through the form, item 2 in the review card.
    let one = json!({"artifact": artifact(), "subject": "bore", "items": [1]});
    let done = c.ask_and_answer(
        one,
        json!({"action": "accept", "content": {"item_001_judgement": "rejected"}}),
    );
    assert_eq!(done["result"]["structuredContent"]["outcome"], "recorded");
    let ui = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    let review = c.call(
        "show_review",
        json!({"artifact": artifact(), "detail": "full"}),
        ui.clone(),
    );
    let d = &review["result"]["structuredContent"]["decisions"][0];
    let card_proof =
        &review["result"]["_meta"]["review-mcp/card"]["proofs"][d["id"].as_str().unwrap()];
    let clicked = c.call(
        "record_verdict",
        json!({"decision_id": d["id"], "index": 2, "judgement": "accepted",
               "item_digest": d["basis"][2]["digest"], "card_proof": card_proof}),
        ui,
    );
    assert_ne!(clicked["result"]["isError"], json!(true), "{clicked}");

    let stored = c.decision();
    let when = |i: usize| {
        let at = stored["basis"][i]["verdict"]["at"]
            .as_str()
            .unwrap()
            .to_string();
        format!("{} {} UTC", &at[..10], &at[11..16])
    };
    let all = json!({"artifact": artifact(), "subject": "bore", "items": [0, 1, 2]});
    let asked = c.call("request_verdicts", all, form());
    let params = &asked["result"]["inputRequests"]["verdicts"]["params"];
    let about = |i: usize| {
        params["requestedSchema"]["properties"][format!("item_{i:03}_judgement")]["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let want = [
        format!(
            "so far: accepted, as relayed by the assistant of Ada Lovelace, {}",
            when(0)
        ),
        format!(
            "so far: rejected by the engineer (form, Ada Lovelace), {}",
            when(1)
        ),
        format!(
            "so far: accepted by the engineer (review card, Ada Lovelace), {}",
            when(2)
        ),
    ];
    let message = params["message"].as_str().unwrap();
    for (i, w) in want.iter().enumerate() {
        assert!(about(i).contains(w.as_str()), "item {i}: {}", about(i));
        assert!(
            !message.contains(w.as_str()),
            "said once, in the field: {message}"
        );
    }
    for i in [1, 2] {
        assert!(!about(i).contains("relayed"), "item {i}: {}", about(i));
    }
}

/// Regression: the form showed a requirement only in its title, cut at 80 characters with a
/// bare `…`, and a long evidence or question cut at 300 the same way: the engineer's verdict
/// was recorded as theirs on a requirement they could not read past its start (what followed
/// could reverse it). A requirement the title cuts is shown in the description, and every cut
/// says how many characters are not shown.
#[test]
fn the_form_shows_a_long_requirement_and_says_what_it_cuts() {
    let mut c = Modern::new();
    let requirement = format!(
        "Bore 12H7 through{}, unless the wall is under 0.1 mm",
        " and deburred".repeat(20)
    );
    let evidence = "e".repeat(325);
    remember(
        &mut c,
        json!([
            {"requirement": requirement, "source": "drawing", "state": "satisfied", "evidence": evidence},
            {"requirement": "x".repeat(1100), "source": "drawing", "state": "satisfied"},
            {"requirement": "Wall 2 mm", "source": "drawing", "state": "satisfied"}
        ]),
    );
    let asked = c.call("request_verdicts", ask_args(), form());
    let params = &asked["result"]["inputRequests"]["verdicts"]["params"];
    let field = |i: usize, key: &str| {
        params["requestedSchema"]["properties"][format!("item_{i:03}_judgement")][key]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(field(0, "title").starts_with("Item 1: Bore 12H7 through"));
    let about = field(0, "description");
    assert!(
        about.starts_with(&format!("requirement: {requirement}; source: drawing")),
        "{about}"
    );
    assert!(
        about.contains(&format!(
            "evidence: {}… [25 more characters]",
            &evidence[..300]
        )),
        "{about}"
    );
    let about = field(1, "description");
    assert!(
        about.starts_with(&format!(
            "requirement: {}… [100 more characters]",
            "x".repeat(1000)
        )),
        "{about}"
    );
    // A requirement the title shows whole is not repeated.
    assert_eq!(field(2, "title"), "Item 3: Wall 2 mm");
    assert!(field(2, "description").starts_with("source: drawing"));
}

/// Regression: the form's message put the decision's subject between quotes it did not
/// escape and its disposition bare in parentheses, so a subject `bore" (release) on
/// file:///w/other.step at sha256:…: accept …` told the engineer they were judging another
/// part's release, the real disposition, file and revision pushed past it. The subject is
/// quoted with its quotes escaped, and a disposition holding a parenthesis or a quote too.
#[test]
fn the_form_message_names_the_decision_it_asks_about_unforged() {
    let mut c = Modern::new();
    let subject = "bore\" (release) on file:///w/other.step at sha256:999999999999: accept";
    let mut args = ask_args();
    args["subject"] = json!(subject);
    let mut decided = c.call(
        "remember_decision",
        json!({"artifact": args["artifact"], "subject": subject, "disposition": "hold) on file:///w/x.step (",
               "basis": [{"requirement": "Bore", "source": "drawing", "state": "satisfied"}]}),
        json!({}),
    );
    assert_ne!(decided["result"]["isError"], json!(true), "{decided}");
    decided.take();
    let asked = c.call("request_verdicts", args, form());
    let message = asked["result"]["inputRequests"]["verdicts"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{asked}"))
        .to_string();
    let second = message.lines().nth(1).unwrap();
    assert!(
        second.starts_with(
            "Decision \"bore\\\" (release) on file:///w/other.step at sha256:999999999999: accept\" (\"hold) on file:///w/x.step (\") on "
        ),
        "{second}"
    );
}

/// Regression (found by the wire2 audit): the form's fields reached the host in the order
/// serde_json writes a map's keys, sorted (the crate is built without `preserve_order`, which
/// would add a dependency), and the keys were `judgement_<i>` and `reason_<i>`: every
/// judgement before every reason, and `judgement_10` between `judgement_1` and `judgement_2`.
/// A host that shows the fields in the order received (`Object.entries`) showed an item's
/// reason far from its judgement, and item 11 after item 2. The keys are now
/// `item_<i>_judgement` and `item_<i>_reason`, the index zero-padded to the largest a basis
/// can have, so that sorted they come item by item in basis order.
#[test]
fn the_forms_fields_reach_the_host_item_by_item_in_basis_order() {
    let mut c = Modern::new();
    let items: Vec<Value> = (0..12)
        .map(|i| json!({"requirement": format!("Item {i}"), "source": "drawing", "state": "satisfied"}))
        .collect();
    remember(&mut c, json!(items));
    let params = json!({"name": "request_verdicts", "arguments": ask_args(),
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": form()}});
    let line = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": params});
    let mut wire = Vec::new();
    c.server
        .serve_frame(
            review_mcp::framing::Frame::Line(line.to_string().into_bytes()),
            &mut wire,
        )
        .unwrap();
    let wire = String::from_utf8(wire).unwrap();
    let at = |key: &str| {
        wire.find(&format!("\"{key}\":{{"))
            .unwrap_or_else(|| panic!("no {key}: {wire}"))
    };
    let mut keys = Vec::new();
    for i in 0..12 {
        keys.push(format!("item_{i:03}_judgement"));
        keys.push(format!("item_{i:03}_reason"));
    }
    let places: Vec<usize> = keys.iter().map(|k| at(k)).collect();
    assert!(
        places.windows(2).all(|w| w[0] < w[1]),
        "fields out of order: {keys:?} at {places:?}"
    );
    // Each judgement's field holds its item's title: the key and the item shown agree.
    for i in [0, 2, 10, 11] {
        let field = &wire[at(&format!("item_{i:03}_judgement"))..];
        assert!(
            field[..field.find('}').unwrap()]
                .contains(&format!("\"title\":\"Item {}: Item {i}\"", i + 1)),
            "{field}"
        );
    }
}

/// The form's keys of earlier builds (`judgement_<i>`, `reason_<i>`): a 2026-07-28 retry
/// answering with them (a host that wrote the documented keys into its code, or the answer
/// to a form an earlier build sent) is recorded as it was before; one mixing them with the
/// form's keys is refused, naming one of each, and writes nothing.
#[test]
fn a_retry_with_an_earlier_forms_keys_is_recorded_and_one_mixing_both_is_refused() {
    let mut c = Modern::new();
    remember(&mut c, basis(None));
    let before = c.decision();
    for (content, padded, earlier) in [
        (
            json!({"item_000_judgement": "accepted", "judgement_1": "accepted", "judgement_2": "accepted"}),
            "item_000_judgement",
            "judgement_1",
        ),
        (
            json!({"item_000_judgement": "accepted", "item_001_judgement": "accepted",
                   "item_002_judgement": "accepted", "reason_2": "per the drawing"}),
            "item_000_judgement",
            "reason_2",
        ),
    ] {
        let r = c.ask_and_answer(ask_args(), json!({"action": "accept", "content": content}));
        assert_eq!(r["result"]["isError"], json!(true), "{content}: {r}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("such as \"{padded}\""))
                && text.contains(&format!("such as \"{earlier}\"")),
            "{text}"
        );
        assert!(text.contains("nothing was written"), "{text}");
    }
    assert_eq!(c.decision(), before, "nothing written");
    // An earlier form's keys, one missing: refused by the name the answer uses.
    let r = c.ask_and_answer(
        ask_args(),
        json!({"action": "accept", "content": {"judgement_0": "accepted", "judgement_2": "accepted"}}),
    );
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("judgement_1 is missing"), "{r}");
    assert_eq!(c.decision(), before, "nothing written");

    let r = c.ask_and_answer(
        ask_args(),
        json!({"action": "accept", "content": {
            "judgement_0": "rejected", "reason_0": "reamer unknown",
            "judgement_1": "accepted", "judgement_2": "accepted", "reason_2": "  "}}),
    );
    let out = &r["result"]["structuredContent"];
    assert_eq!(out["outcome"], "recorded", "{r}");
    assert_eq!(out["recorded"], json!([0, 1, 2]));
    let d = c.decision();
    let v0 = &d["basis"][0]["verdict"];
    assert_eq!(
        (&v0["judgement"], &v0["via"], &v0["reason"]),
        (
            &json!("rejected"),
            &json!("elicitation"),
            &json!("reamer unknown")
        )
    );
    assert_eq!(d["basis"][1]["verdict"]["judgement"], "accepted");
    assert!(
        d["basis"][2]["verdict"].get("reason").is_none(),
        "a blank reason is none"
    );
}

/// Regression: an answer whose keys were not the form's but close to them (the index
/// unpadded, `item_1_judgement`, or padded to four digits) was refused as "item_000_judgement
/// is missing": the engineer's judgements read as unanswered, and an assistant asking again
/// got the same answer from the same host. The refusal now also names the field the form did
/// not ask; nothing is written, as before.
#[test]
fn an_answer_with_near_miss_keys_is_refused_naming_the_field_it_has() {
    let mut c = Modern::new();
    remember(&mut c, basis(None));
    let before = c.decision();
    for (content, stray) in [
        (
            json!({"item_0_judgement": "accepted", "item_1_judgement": "accepted",
                   "item_2_judgement": "accepted"}),
            "item_0_judgement",
        ),
        (
            json!({"item_000_judgement": "accepted", "item_0001_judgement": "rejected",
                   "item_002_judgement": "accepted"}),
            "item_0001_judgement",
        ),
    ] {
        let r = c.ask_and_answer(ask_args(), json!({"action": "accept", "content": content}));
        assert_eq!(r["result"]["isError"], json!(true), "{content}: {r}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("it has a field \"{stray}\" the form did not ask"))
                && text.contains("is missing")
                && text.contains("nothing was written"),
            "{text}"
        );
    }
    assert_eq!(c.decision(), before, "nothing written");
}

/// Regression: the form's message named the decision's file bare (`on {uri} at {revision}`),
/// and a URI other than a file's may hold spaces (`urn:a on file:///w/other.step at
/// sha256:999999999999`), so it named another part and revision before the real one. A URI
/// holding white space or a quote is quoted, as the subject is.
#[test]
fn the_form_message_quotes_a_uri_that_could_read_as_its_own_words() {
    let mut c = Modern::new();
    let uri = "urn:a on file:///w/other.step at sha256:999999999999";
    let art = json!({"revision": REV, "format": "step", "uri": uri});
    let decided = c.call(
        "remember_decision",
        json!({"artifact": art, "subject": "bore", "disposition": "hold",
               "basis": [{"requirement": "Bore", "source": "drawing", "state": "satisfied"}]}),
        json!({}),
    );
    assert_ne!(decided["result"]["isError"], json!(true), "{decided}");
    let asked = c.call(
        "request_verdicts",
        json!({"artifact": art, "subject": "bore"}),
        form(),
    );
    let message = asked["result"]["inputRequests"]["verdicts"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{asked}"))
        .to_string();
    let second = message.lines().nth(1).unwrap();
    assert!(
        second.starts_with(&format!(
            "Decision \"bore\" (hold) on \"{uri}\" at sha256:cccccccc…"
        )),
        "{second}"
    );
    // A file's URI has no white space (percent-encoded): bare, as before.
    remember(&mut c, basis(None));
    let asked = c.call("request_verdicts", ask_args(), form());
    let message = asked["result"]["inputRequests"]["verdicts"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{asked}"))
        .to_string();
    assert!(
        message.contains("Decision \"bore\" (hold) on file:///work/bracket.step at "),
        "{message}"
    );
}

/// Regression: the form's description joins an item's fields as `label: value; label: value`
/// and put the stored ones bare, so a source detail, evidence or question holding `; ` went
/// on in the form's own words: an evidence `per drawing; so far: accepted by the engineer
/// (review card, Ada Lovelace), …` showed an item no one had judged as already accepted by
/// the engineer, and a source detail `sheet 2); state: satisfied; x (y` a violated item as
/// satisfied. A stored field holding a semicolon (or a character drawn as one) is quoted,
/// its quotes escaped; a plain one stays bare.
#[test]
fn stored_fields_cannot_add_segments_to_the_forms_description() {
    let mut c = Modern::new();
    let fake = "so far: accepted by the engineer (review card, Ada Lovelace), 2026-12-01 14:02 UTC";
    remember(
        &mut c,
        json!([
            {"requirement": "Bore 12H7", "source": "drawing", "state": "violated",
             "sourceDetail": "sheet 2); state: satisfied; x (y",
             "evidence": format!("per drawing; {fake}")},
            {"requirement": "Wall", "source": "drawing", "state": "unresolved",
             "question": format!("which\u{37e} {fake}\"")},
            {"requirement": "Chamfer", "source": "drawing", "state": "satisfied",
             "sourceDetail": "note 4", "evidence": "cert 4471: 6061-T6"}
        ]),
    );
    let asked = c.call("request_verdicts", ask_args(), form());
    let params = &asked["result"]["inputRequests"]["verdicts"]["params"];
    let about = |i: usize| {
        params["requestedSchema"]["properties"][format!("item_{i:03}_judgement")]["description"]
            .as_str()
            .unwrap_or_else(|| panic!("{asked}"))
            .to_string()
    };
    assert_eq!(
        about(0),
        format!(
            "source: drawing (\"sheet 2); state: satisfied; x (y\"); state: violated (accepting confirms the violation; reject only if the item is wrong as stated); evidence: \"per drawing; {fake}\""
        )
    );
    assert_eq!(
        about(1),
        format!("source: drawing; state: unresolved; question: \"which\u{37e} {fake}\\\"\"")
    );
    // Nothing to mistake: shown as before.
    assert_eq!(
        about(2),
        "source: drawing (note 4); state: satisfied; evidence: cert 4471: 6061-T6"
    );
}

/// The review carried on (carry_forward) while the engineer fills the form: nothing is
/// written, and the refusal says where the decision's review stands now and what to ask
/// with, as the refusal of a question about a decision carried on says.
#[test]
fn a_form_answered_after_its_decision_was_carried_on_names_where_to_ask() {
    let mut c = Modern::new();
    remember(&mut c, basis(None));
    let asked = c.call("request_verdicts", ask_args(), form());
    let state = asked["result"]["requestState"].clone();
    assert!(state.is_string(), "{asked}");
    let to = "sha256:dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd";
    let mut to_artifact = artifact();
    to_artifact["revision"] = json!(to);
    c.structured(
        "carry_forward",
        json!({"from": artifact(), "to": to_artifact, "map": []}),
    );
    let answer = json!({"action": "accept", "content": {
        "item_000_judgement": "accepted", "item_001_judgement": "accepted", "item_002_judgement": "rejected"}});
    let r = c.request(
        "tools/call",
        json!({"name": "request_verdicts", "arguments": ask_args(),
               "inputResponses": {"verdicts": answer}, "requestState": state}),
        form(),
    );
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("(carry_forward)"), "{text}");
    assert!(
        text.contains("Its review stands at revision sha256:dddddddd…")
            && text.contains(&format!(": ask with artifact.revision {to} and uri")),
        "{text}"
    );
    assert!(c.decision()["basis"][0].get("verdict").is_none());
}

/// An answer that wrote nothing (declined, cancelled, nothing to ask) says what happened and
/// what to do next, and does not send back the decision the caller asked about: it is
/// unchanged, and `recall_decisions` reads it. With it, each of these answers resent the
/// whole decision, in structuredContent and again in the text block.
#[test]
fn an_answer_that_wrote_nothing_does_not_resend_the_decision() {
    let mut c = Modern::new();
    remember(&mut c, basis(None));
    for action in ["decline", "cancel"] {
        let r = c.ask_and_answer(ask_args(), json!({"action": action}));
        let s = &r["result"]["structuredContent"];
        assert!(s.get("decision").is_none(), "{action}: {s}");
        let text = r["result"]["content"][1]["text"].as_str().unwrap();
        assert!(!text.contains("Wall at least 2 mm"), "{action}: {text}");
    }
    let all = json!({"item_000_judgement": "accepted", "item_001_judgement": "accepted",
                     "item_002_judgement": "rejected"});
    c.ask_and_answer(ask_args(), json!({"action": "accept", "content": all}));
    let r = c.call("request_verdicts", ask_args(), form());
    let s = &r["result"]["structuredContent"];
    assert_eq!(s["outcome"], "nothing_to_ask", "{r}");
    assert!(s.get("decision").is_none(), "{s}");
    let summary = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        summary.contains("recall_decisions"),
        "what to do next: {summary}"
    );
}

/// Reported by the second end-user walk: the engineer accepted "Hole 1 clears the rail bolt"
/// while it read `violated` (x = -20 mm); the assistant then measured again and restated the
/// decision with the item `satisfied` (x = -24 mm). The engineer's verdict was kept, as the
/// outranking rule says, but the answer's text said nothing (an uncontested kept verdict was
/// in the structured content only), so the record now shows the engineer accepting evidence
/// they never saw and nobody is told to ask them. The text names such an item and says to
/// ask the engineer again; a restatement that leaves the item as judged says nothing.
#[test]
fn a_kept_engineer_verdict_on_an_item_stated_otherwise_says_to_ask_them_again() {
    let mut c = Modern::new();
    remember(&mut c, basis(None));
    c.ask_and_answer(
        json!({"artifact": artifact(), "subject": "bore", "items": [1]}),
        json!({"action": "accept", "content": {"item_001_judgement": "accepted"}}),
    );
    let d = c.decision();
    let restate = |c: &mut Modern, basis: Value| {
        let r = c.call(
            "remember_decision",
            json!({"artifact": artifact(), "subject": "bore", "disposition": "hold", "basis": basis}),
            json!({}),
        );
        assert_ne!(r["result"]["isError"], json!(true), "{r}");
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let same = restate(&mut c, d["basis"].clone());
    assert!(!same.contains("ask them again"), "{same}");
    let mut measured = d["basis"].clone();
    measured[1]["evidence"] = json!("measure: 1.7 mm");
    measured[1]["state"] = json!("violated");
    let text = restate(&mut c, measured);
    assert!(text.contains("basis[1]"), "{text}");
    assert!(text.contains("ask them again"), "{text}");
    assert!(text.contains("\"items\": [1]"), "{text}");
    assert_eq!(c.decision()["basis"][1]["verdict"]["via"], "elicitation");
}
