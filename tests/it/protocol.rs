//! The protocol surface as a demanding client or a hostile peer sees it, in both eras: what a
//! refusal echoes of the request, which era's rules a request is answered by when both share
//! one process, and how the URIs a client builds from the resource templates are read.

use anyhow::{Context, Result, ensure};
use review_mcp::server::Server;
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

const PV: &str = "io.modelcontextprotocol/protocolVersion";
const CC: &str = "io.modelcontextprotocol/clientCapabilities";

fn server() -> Result<Server> {
    Ok(Server::new(Service::new(Store::open_in_memory()?)))
}

fn send(server: &mut Server, msg: &Value) -> Vec<Value> {
    server.handle_line(msg.to_string().as_bytes())
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// `params` with the 2026-07-28 envelope added to its `_meta`.
fn enveloped(mut params: Value) -> Value {
    params["_meta"][PV] = json!("2026-07-28");
    params["_meta"][CC] = json!({});
    params
}

fn initialize(server: &mut Server, version: &str) -> Result<()> {
    let out = send(
        server,
        &request(
            0,
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
                   "clientInfo": {"name": "protocol-test", "version": "0"}}),
        ),
    );
    ensure!(
        out.first()
            .is_some_and(|a| a["result"]["protocolVersion"] == version),
        "initialize: {out:?}"
    );
    send(
        server,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    Ok(())
}

/// The one answer to request `id` among `out`.
fn answer(out: &[Value], id: u64) -> Result<&Value> {
    out.iter()
        .find(|m| m["id"] == id)
        .with_context(|| format!("no answer to {id} in {out:?}"))
}

/// A name, method, URI or version of a megabyte in a request is not echoed whole by its
/// refusal: every refusal is a short line in both eras, like those that already quote the
/// start of what they refuse (an unknown prompt argument, a completion reference).
#[test]
fn refusals_quote_the_start_of_a_huge_value_not_all_of_it() -> Result<()> {
    let huge = "\u{1}".repeat(200_000);
    let mut s = server()?;
    initialize(&mut s, "2025-11-25")?;
    let cases = [
        ("tools/call", json!({"name": huge, "arguments": {}})),
        ("prompts/get", json!({"name": huge})),
        (huge.as_str(), json!({})),
        (
            "resources/read",
            json!({"uri": format!("review://records/{huge}")}),
        ),
        ("resources/subscribe", json!({"uri": huge})),
    ];
    let mut id = 0;
    for modern in [false, true] {
        for (method, params) in &cases {
            if modern && method.starts_with("resources/subscribe") {
                continue;
            }
            id += 1;
            let params = if modern {
                enveloped(params.clone())
            } else {
                params.clone()
            };
            let out = send(&mut s, &request(id, method, params));
            let a = answer(&out, id)?;
            ensure!(a.get("error").is_some(), "{method}: {a}");
            let bytes = a.to_string().len();
            ensure!(
                bytes < 2_000,
                "{} {}: a {bytes}-byte refusal",
                if modern { "2026-07-28" } else { "2025-11-25" },
                &method[..method.len().min(20)]
            );
        }
    }
    id += 1;
    let out = send(
        &mut s,
        &request(id, "server/discover", json!({"_meta": {PV: huge, CC: {}}})),
    );
    let a = answer(&out, id)?;
    ensure!(a["error"]["code"] == -32022, "{a}");
    ensure!(
        a.to_string().len() < 2_000,
        "-32022 echoed {} bytes",
        a.to_string().len()
    );
    Ok(())
}

/// A 2026-07-28 request is served from its own `_meta` alone: in a process whose legacy
/// session set a log level, a refused enveloped call gets no `notifications/message` (the
/// revision sends none, and none without a `logLevel` in the request), while the same call
/// of the session still logs.
/// A model that misspells a tool (`recal`) learned only "Unknown tool: recal". The refusal now
/// names the tools it may call, in both eras, and never the card's own `record_verdict`.
#[test]
fn an_unknown_tool_is_refused_naming_the_tools() -> Result<()> {
    let mut s = server()?;
    initialize(&mut s, "2025-11-25")?;
    let params = json!({"name": "recal", "arguments": {}});
    for (id, params) in [(1, params.clone()), (2, enveloped(params))] {
        let out = send(&mut s, &request(id, "tools/call", params));
        let error = &answer(&out, id)?["error"];
        let message = error["message"].as_str().unwrap_or_default();
        ensure!(
            error["code"] == json!(-32602)
                && message.starts_with("Unknown tool: recal")
                && ["remember", "recall", "show_review", "review_history"]
                    .iter()
                    .all(|t| message.contains(t))
                && !message.contains("record_verdict"),
            "{error}"
        );
    }
    Ok(())
}

/// A misspelt prompt name is put right in the next request: `prompts/get` and a completion
/// of its argument both name the prompts there are.
#[test]
fn an_unknown_prompt_is_refused_naming_the_prompts() -> Result<()> {
    let mut s = server()?;
    initialize(&mut s, "2025-11-25")?;
    let get = json!({"name": "review_part", "arguments": {}});
    let complete = json!({"ref": {"type": "ref/prompt", "name": "review_part"},
        "argument": {"name": "revision", "value": ""}});
    let calls = [
        ("prompts/get", get.clone()),
        ("prompts/get", enveloped(get)),
        ("completion/complete", complete.clone()),
        ("completion/complete", enveloped(complete)),
    ];
    for (id, (method, params)) in (1..).zip(calls) {
        let out = send(&mut s, &request(id, method, params));
        let error = &answer(&out, id)?["error"];
        let message = error["message"].as_str().unwrap_or_default();
        ensure!(
            error["code"] == json!(-32602)
                && message.starts_with("Unknown prompt: review_part")
                && ["start_review", "record_decision", "resume_review"]
                    .iter()
                    .all(|p| message.contains(p)),
            "{method}: {error}"
        );
    }
    Ok(())
}

/// A method of the other era was refused "Method not found: ping" (or `logging/setLevel`,
/// `resources/subscribe`, `initialize` with the 2026-07-28 envelope; `server/discover` or
/// `subscriptions/listen` in a handshake session, or "the _meta envelope is missing" before
/// one), leaving a host that mixed the eras to guess what the server wanted. Each refusal
/// keeps its code and first words and now says what to send instead.
#[test]
fn a_method_of_the_other_era_is_refused_saying_what_to_send_instead() -> Result<()> {
    let mut s = server()?;
    let refusal = |s: &mut Server, id: u64, method: &str, params: Value| -> Result<(i64, String)> {
        let out = send(s, &request(id, method, params));
        let error = &answer(&out, id)?["error"];
        let code = error["code"].as_i64().context("no code")?;
        Ok((
            code,
            error["message"].as_str().unwrap_or_default().to_string(),
        ))
    };
    let discover = refusal(&mut s, 1, "server/discover", json!({}))?;
    ensure!(
        discover.0 == -32602
            && discover
                .1
                .starts_with("Invalid params: the _meta envelope is missing")
            && discover.1.contains(PV)
            && discover.1.contains(CC),
        "{discover:?}"
    );
    initialize(&mut s, "2025-11-25")?;
    for (id, method, says) in [
        (2, "server/discover", PV),
        (3, "subscriptions/listen", "resources/subscribe"),
    ] {
        let (code, message) = refusal(&mut s, id, method, json!({"notifications": {}}))?;
        ensure!(
            code == -32601
                && message.starts_with(&format!("Method not found: {method}"))
                && message.contains(says),
            "{method}: {message}"
        );
    }
    for (id, method, says) in [
        (4, "ping", "server/discover"),
        (5, "logging/setLevel", "io.modelcontextprotocol/logLevel"),
        (6, "resources/subscribe", "subscriptions/listen"),
        (7, "resources/unsubscribe", "cancel"),
        (8, "initialize", "server/discover"),
    ] {
        let params = enveloped(json!({"uri": "review://x", "level": "info"}));
        let (code, message) = refusal(&mut s, id, method, params)?;
        ensure!(
            code == -32601
                && message.starts_with(&format!("Method not found: {method}"))
                && message.contains(says),
            "{method}: {message}"
        );
    }
    Ok(())
}

#[test]
fn an_enveloped_request_gets_no_log_message_of_the_legacy_session() -> Result<()> {
    let mut s = server()?;
    initialize(&mut s, "2025-11-25")?;
    send(
        &mut s,
        &request(1, "logging/setLevel", json!({"level": "debug"})),
    );
    let refused = json!({"name": "remember", "arguments": {"artifact": {"revision": "bad", "format": "step"}}});
    let is_log = |m: &Value| m["method"] == "notifications/message";
    let out = send(
        &mut s,
        &request(2, "tools/call", enveloped(refused.clone())),
    );
    ensure!(answer(&out, 2)?["result"]["isError"] == true, "{out:?}");
    ensure!(
        !out.iter().any(is_log),
        "a 2026-07-28 call was logged to the legacy session: {out:?}"
    );
    let mut with_level = enveloped(refused.clone());
    with_level["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    let out = send(&mut s, &request(3, "tools/call", with_level));
    ensure!(!out.iter().any(is_log), "{out:?}");
    let out = send(&mut s, &request(4, "tools/call", refused));
    ensure!(
        out.iter().any(is_log),
        "the session's own refused call is logged: {out:?}"
    );
    Ok(())
}

/// A URI a client builds from a resource template the RFC 6570 way (the TypeScript SDK's
/// `UriTemplate.expand`, which hosts use) has the revision's `:` percent-encoded:
/// `review://revisions/sha256%3A…`. It names the same resource in every era: read, and in a
/// legacy session subscribed to, with the notification naming the URI as subscribed.
#[test]
fn template_uris_with_percent_encoded_values_name_the_same_resources() -> Result<()> {
    let rev = format!("sha256:{}", "7".repeat(64));
    let encoded = rev.replace(':', "%3A");
    let mut s = server()?;
    initialize(&mut s, "2025-11-25")?;
    let watched = format!("review://revisions/{}", rev.replace(':', "%3a"));
    let out = send(
        &mut s,
        &request(1, "resources/subscribe", json!({"uri": watched})),
    );
    ensure!(answer(&out, 1)?["result"] == json!({}), "{out:?}");
    let out = send(
        &mut s,
        &request(
            2,
            "tools/call",
            json!({"name": "remember", "arguments": {
                "artifact": {"revision": rev, "format": "step", "uri": "/parts/pct.step"},
                "entity_ids": ["face:1"], "name": "datum A", "note": "n"}}),
        ),
    );
    ensure!(answer(&out, 2)?["result"]["isError"] != true, "{out:?}");
    ensure!(
        out.iter()
            .any(|m| m["method"] == "notifications/resources/updated"
                && m["params"]["uri"] == json!(watched)),
        "no update for {watched}: {out:?}"
    );
    let mut id = 10;
    for suffix in ["", "/report", "/form3.csv"] {
        for modern in [false, true] {
            id += 1;
            let uri = format!("review://revisions/{encoded}{suffix}");
            let params = json!({"uri": uri});
            let params = if modern { enveloped(params) } else { params };
            let out = send(&mut s, &request(id, "resources/read", params));
            let a = answer(&out, id)?;
            let text = a["result"]["contents"][0]["text"]
                .as_str()
                .unwrap_or_default();
            ensure!(
                a["result"]["contents"][0]["uri"] == json!(uri) && text.contains(&rev[..20]),
                "{uri} (modern: {modern}): {a}"
            );
        }
    }
    // An escape that would change the URI's structure is not decoded: %2F is not a `/`.
    let out = send(
        &mut s,
        &request(
            30,
            "resources/read",
            json!({"uri": format!("review://revisions/{encoded}%2Freport")}),
        ),
    );
    ensure!(answer(&out, 30)?["error"]["code"] == -32002, "{out:?}");
    Ok(())
}

/// An un-enveloped `initialize` whose `protocolVersion` is missing or not a string is the
/// handshake with invalid params (-32602 saying what to send), before a session and in one,
/// not an unknown method; the session it would replace stays. With the 2026-07-28 envelope
/// and no `protocolVersion` it is the removed method (-32601), as conformance expects.
#[test]
fn an_initialize_without_a_string_version_is_invalid_params() -> Result<()> {
    let mut s = server()?;
    let bad = [
        json!({"capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        json!({"protocolVersion": 20_251_125, "capabilities": {}}),
        json!({"protocolVersion": null}),
    ];
    let mut id = 0;
    for session in [false, true] {
        if session {
            initialize(&mut s, "2025-06-18")?;
        }
        for params in &bad {
            id += 1;
            let out = send(&mut s, &request(id, "initialize", params.clone()));
            let e = &answer(&out, id)?["error"];
            ensure!(e["code"] == -32602, "{params}: {out:?}");
            ensure!(
                e["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("protocolVersion") && m.contains("2025-11-25")),
                "{e}"
            );
        }
        id += 1;
        let out = send(
            &mut s,
            &json!({"jsonrpc": "2.0", "id": id, "method": "initialize"}),
        );
        ensure!(answer(&out, id)?["error"]["code"] == -32602, "{out:?}");
    }
    // The session negotiated before is still the one served.
    let out = send(&mut s, &request(99, "tools/list", json!({})));
    ensure!(
        answer(&out, 99)?["result"]["tools"][0]
            .get("outputSchema")
            .is_some(),
        "{out:?}"
    );
    ensure!(
        s.session()
            .is_some_and(|x| x.version.as_str() == "2025-06-18"),
        "the session changed"
    );
    let out = send(
        &mut s,
        &request(100, "initialize", enveloped(json!({"capabilities": {}}))),
    );
    ensure!(answer(&out, 100)?["error"]["code"] == -32601, "{out:?}");
    Ok(())
}

/// A 2026-07-28 envelope key that is there but of the wrong type is named as such, with what
/// it must be, not reported missing.
#[test]
fn an_ill_typed_envelope_key_is_named_with_what_it_must_be() -> Result<()> {
    let mut s = server()?;
    let cases = [
        (
            json!({PV: 20_260_728, CC: {}}),
            PV,
            "must be a string, such as \"2026-07-28\"",
        ),
        (json!({PV: "2026-07-28", CC: []}), CC, "must be an object"),
        (json!({PV: "2026-07-28", CC: null}), CC, "must be an object"),
        (json!({CC: {}}), PV, "is missing"),
        (json!({PV: "2026-07-28"}), CC, "is missing"),
    ];
    for (i, (meta, key, says)) in cases.into_iter().enumerate() {
        let id = i as u64 + 1;
        let out = send(
            &mut s,
            &request(id, "server/discover", json!({"_meta": meta})),
        );
        let e = &answer(&out, id)?["error"];
        ensure!(e["code"] == -32602, "{meta}: {e}");
        let m = e["message"].as_str().unwrap_or_default();
        ensure!(m.contains(key) && m.contains(says), "{meta}: {m}");
    }
    Ok(())
}

/// A string cut inside an emoji by a JavaScript or Python client is sent as a lone UTF-16
/// surrogate escape (`"\ud83d"`), valid JSON text that no Rust string can hold; so is a
/// number out of range. The refusal names the request's id, in both eras, so the client's
/// call is answered at once instead of waiting for its timeout, and nothing is written.
#[test]
fn a_request_whose_json_cannot_be_held_is_refused_with_its_id() -> Result<()> {
    let mut s = server()?;
    initialize(&mut s, "2025-11-25")?;
    let rev = format!("sha256:{}", "6".repeat(64));
    let meta = format!(r#","_meta":{{"{PV}":"2026-07-28","{CC}":{{}}}}"#);
    for (id, era_meta) in [(1, ""), (2, meta.as_str())] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"remember","arguments":{{"artifact":{{"revision":"{rev}","format":"step"}},"entity_ids":[],"note":"flat \ud83d"}}{era_meta}}}}}"#
        );
        let out = s.handle_line(line.as_bytes());
        let a = answer(&out, id)?;
        ensure!(a["error"]["code"] == -32700, "{a}");
        ensure!(
            a["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("surrogate")),
            "{a}"
        );
    }
    let out = s.handle_line(br#"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"recall","arguments":{"limit":1e400}}}"#);
    ensure!(answer(&out, 0).is_err(), "{out:?}");
    ensure!(
        out.first()
            .is_some_and(|a| a["id"] == "big" && a["error"]["code"] == -32700),
        "{out:?}"
    );
    let out = send(
        &mut s,
        &request(
            3,
            "tools/call",
            json!({"name": "recall", "arguments": {"artifact": {"revision": rev, "format": "step"}}}),
        ),
    );
    ensure!(
        answer(&out, 3)?["result"]["structuredContent"]["records"] == json!([]),
        "something was written: {out:?}"
    );
    // Bytes that are not UTF-8 are not JSON text: id null, as before.
    let out = s.handle_line(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"pi\xc3\x28ng\"}");
    ensure!(
        out.first()
            .is_some_and(|a| a["id"].is_null() && a["error"]["code"] == -32700),
        "{out:?}"
    );
    Ok(())
}

/// A revision URI has two forms, plain and percent-encoded (`sha256%3A…`), naming one
/// resource. A legacy session holds one subscription per resource: an unsubscribe in either
/// form ends it, a second subscribe in the other form replaces it, and the one
/// `notifications/resources/updated` of a write names the URI of the latest subscribe (what
/// the client matches on).
#[test]
fn subscribe_and_unsubscribe_agree_on_both_forms_of_a_uri() -> Result<()> {
    let rev = format!("sha256:{}", "6".repeat(64));
    let plain = format!("review://revisions/{rev}");
    let encoded = format!("review://revisions/{}", rev.replace(':', "%3A"));
    let mut id = 0;
    let mut remember = |s: &mut Server| {
        id += 1;
        send(
            s,
            &request(
                100 + id,
                "tools/call",
                json!({"name": "remember", "arguments": {
                    "artifact": {"revision": rev, "format": "step", "uri": "/parts/forms.step"},
                    "entity_ids": ["face:1"], "name": format!("datum {id}"), "note": "n"}}),
            ),
        )
    };
    let updates = |out: &[Value]| -> Vec<Value> {
        out.iter()
            .filter(|m| m["method"] == "notifications/resources/updated")
            .map(|m| m["params"]["uri"].clone())
            .collect()
    };
    for (subscribed, other) in [(&plain, &encoded), (&encoded, &plain)] {
        let mut s = server()?;
        initialize(&mut s, "2025-11-25")?;
        let out = send(
            &mut s,
            &request(1, "resources/subscribe", json!({"uri": subscribed})),
        );
        ensure!(answer(&out, 1)?["result"] == json!({}), "{out:?}");
        let out = send(
            &mut s,
            &request(2, "resources/unsubscribe", json!({"uri": other})),
        );
        ensure!(answer(&out, 2)?["result"] == json!({}), "{out:?}");
        let out = remember(&mut s);
        ensure!(
            updates(&out).is_empty(),
            "subscribed as {subscribed}, unsubscribed as {other}, still told: {out:?}"
        );
        // Both forms subscribed: one subscription, named as last subscribed.
        for (n, uri) in [(3, subscribed), (4, other)] {
            let out = send(
                &mut s,
                &request(n, "resources/subscribe", json!({"uri": uri})),
            );
            ensure!(answer(&out, n)?["result"] == json!({}), "{out:?}");
        }
        let out = remember(&mut s);
        ensure!(
            updates(&out) == vec![json!(other)],
            "subscribed as {subscribed} then {other}: {out:?}"
        );
        let out = send(
            &mut s,
            &request(5, "resources/unsubscribe", json!({"uri": subscribed})),
        );
        ensure!(answer(&out, 5)?["result"] == json!({}), "{out:?}");
        let out = remember(&mut s);
        ensure!(
            updates(&out).is_empty(),
            "all unsubscribed, still told: {out:?}"
        );
    }
    Ok(())
}

/// `subscriptions/listen` requires `notifications` (a `SubscriptionFilter` object: boolean
/// flags and an array of string URIs) in the 2026-07-28 schema. Without it, or with it of
/// another type, the request is invalid params (-32602) naming the member, and no stream is
/// opened (no acknowledgement); a well-formed one is still acknowledged.
#[test]
fn a_listen_without_a_well_typed_notifications_member_is_invalid_params() -> Result<()> {
    let mut s = server()?;
    let bad = [
        json!({}),
        json!({"notifications": null}),
        json!({"notifications": true}),
        json!({"notifications": "resourcesListChanged"}),
        json!({"notifications": [{"resourcesListChanged": true}]}),
        json!({"notifications": {"resourcesListChanged": "yes"}}),
        json!({"notifications": {"toolsListChanged": 1}}),
        json!({"notifications": {"resourceSubscriptions": "review://revisions/x"}}),
        json!({"notifications": {"resourceSubscriptions": [1]}}),
    ];
    for (n, params) in bad.into_iter().enumerate() {
        let id = n as u64 + 1;
        let out = send(
            &mut s,
            &request(id, "subscriptions/listen", enveloped(params.clone())),
        );
        ensure!(out.len() == 1, "{params}: {out:?}");
        let e = &answer(&out, id)?["error"];
        ensure!(
            e["code"] == -32602
                && e["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("notifications")),
            "{params}: {out:?}"
        );
    }
    let out = send(
        &mut s,
        &request(
            50,
            "subscriptions/listen",
            enveloped(json!({"notifications": {}})),
        ),
    );
    ensure!(
        out.len() == 1 && out[0]["method"] == "notifications/subscriptions/acknowledged",
        "{out:?}"
    );
    Ok(())
}

/// `prompts/get` and `resources/read` take `inputResponses` (an object) and `requestState` (a
/// string) in the 2026-07-28 schema, as `tools/call` does; one of another type is invalid
/// params (-32602) naming the member, as it is for `tools/call`, not silently ignored.
#[test]
fn prompt_and_read_retry_members_of_the_wrong_type_are_invalid_params() -> Result<()> {
    let mut s = server()?;
    let rev = format!("sha256:{}", "5".repeat(64));
    let bases = [
        (
            "prompts/get",
            json!({"name": "resume_review", "arguments": {"revision": rev}}),
        ),
        (
            "resources/read",
            json!({"uri": "ui://review-mcp/review-card"}),
        ),
    ];
    let mut id = 0;
    for (method, base) in bases {
        for (member, value) in [
            ("requestState", json!(1)),
            ("requestState", json!({})),
            ("inputResponses", json!([])),
            ("inputResponses", json!("x")),
        ] {
            id += 1;
            let mut params = base.clone();
            params[member] = value.clone();
            let out = send(&mut s, &request(id, method, enveloped(params)));
            let e = &answer(&out, id)?["error"];
            ensure!(
                e["code"] == -32602 && e["message"].as_str().is_some_and(|m| m.contains(member)),
                "{method} with {member}: {value}: {out:?}"
            );
        }
        // Well typed, they are accepted (and mean nothing here).
        id += 1;
        let mut params = base.clone();
        params["requestState"] = json!("s");
        params["inputResponses"] = json!({});
        let out = send(&mut s, &request(id, method, enveloped(params)));
        ensure!(
            answer(&out, id)?.get("result").is_some(),
            "{method}: {out:?}"
        );
    }
    Ok(())
}
