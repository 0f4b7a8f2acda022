//! The readers of the review's history (issue 28): `review_history`, the resource
//! `review://decisions/{id}/history`, and each decision's trail in the Markdown report and
//! the review card's data, over the wire in the legacy and the modern era; every answer
//! within the bound, however long the history.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use review_mcp::server::Server;
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

const REV: &str = "sha256:dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd";
const FILE: &str = "file:///work/history.step";
const BOUND: usize = 32_000;
const AUTHOR: &str = "Ada Lovelace";
/// A legacy era with the form (elicitation), and the modern one.
const ERAS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

fn artifact() -> Value {
    json!({"revision": REV, "format": "step", "uri": FILE})
}

/// A client of one era that declares the form and the review card, speaking to a server
/// whose author is [`AUTHOR`].
struct Host {
    server: Server,
    era: &'static str,
    id: i64,
    /// The length of the last answer line.
    last_bytes: usize,
}

fn caps() -> Value {
    json!({"elicitation": {"form": {}},
           "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

impl Host {
    fn new(era: &'static str) -> Host {
        let mut store = Store::open_in_memory().unwrap();
        store.set_author(Some(AUTHOR.into()));
        let mut h = Host {
            server: Server::new(Service::new(store)),
            era,
            id: 0,
            last_bytes: 0,
        };
        if era != "2026-07-28" {
            let out = h.send(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": era, "capabilities": caps(),
                "clientInfo": {"name": "history", "version": "1"}}}),
            );
            assert_eq!(out[0]["result"]["protocolVersion"], era);
            h.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        h
    }

    fn modern(&self) -> bool {
        self.era == "2026-07-28"
    }

    fn send(&mut self, msg: &Value) -> Vec<Value> {
        self.server.handle_line(msg.to_string().as_bytes())
    }

    /// The answer to request `id` among `out`, its line's length noted.
    fn answer_of(&mut self, out: Vec<Value>, id: &Value) -> Value {
        let a = out
            .into_iter()
            .find(|m| &m["id"] == id && m.get("method").is_none())
            .expect("an answer");
        self.last_bytes = serde_json::to_string(&a).unwrap().len();
        a
    }

    fn request(&mut self, method: &str, mut params: Value) -> Value {
        self.id += 1;
        if self.modern() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": caps()
            });
        }
        let msg = json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params});
        let out = self.send(&msg);
        self.answer_of(out, &json!(self.id))
    }

    /// A tool call that must succeed: its structured answer (the JSON text block before
    /// 2025-06-18's structuredContent is the same).
    fn ok(&mut self, tool: &str, args: Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(
            r.get("error").is_none() && r["result"]["isError"] != json!(true),
            "{tool}: {}",
            r.to_string().chars().take(2000).collect::<String>()
        );
        let _ = args;
        let text: Value =
            serde_json::from_str(r["result"]["content"][1]["text"].as_str().unwrap()).unwrap();
        if let Some(s) = r["result"].get("structuredContent") {
            assert_eq!(s, &text);
        }
        text
    }

    /// The one-line summary (first text block) of a call that must succeed.
    fn summary(&mut self, tool: &str, args: Value) -> String {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// `request_verdicts` answered by the engineer with `content`, in the era's way: the
    /// server's own `elicitation/create` (legacy) or the retry carrying the answer (modern).
    fn form(&mut self, args: Value, content: Value) -> Value {
        let answer = json!({"action": "accept", "content": content});
        if self.modern() {
            let asked = self.request(
                "tools/call",
                json!({"name": "request_verdicts", "arguments": args.clone()}),
            );
            assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
            let state = asked["result"]["requestState"].clone();
            return self.request(
                "tools/call",
                json!({"name": "request_verdicts", "arguments": args,
                       "inputResponses": {"verdicts": answer}, "requestState": state}),
            );
        }
        self.id += 1;
        let call_id = json!(self.id);
        let out = self.send(
            &json!({"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
            "params": {"name": "request_verdicts", "arguments": args}}),
        );
        let ask = out
            .iter()
            .find(|m| m["method"] == "elicitation/create")
            .expect("the form");
        let ask_id = ask["id"].clone();
        let out = self.send(&json!({"jsonrpc": "2.0", "id": ask_id, "result": answer}));
        self.answer_of(out, &call_id)
    }

    fn read(&mut self, uri: &str) -> String {
        let r = self.request("resources/read", json!({"uri": uri}));
        assert!(r.get("error").is_none(), "{uri}: {r}");
        r["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Every event `review_history` serves for `args`, following `next_cursor` with pages of
    /// `limit`, each answer within the bound.
    fn all_events(&mut self, args: Value, limit: u64) -> Vec<Value> {
        let mut events = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..10_000 {
            let mut a = args.clone();
            a["limit"] = json!(limit);
            if let Some(c) = &cursor {
                a["cursor"] = json!(c);
            }
            let page = self.ok("review_history", a);
            assert!(self.last_bytes <= BOUND, "{} bytes", self.last_bytes);
            events.extend(page["events"].as_array().unwrap().iter().cloned());
            match page.get("next_cursor") {
                Some(Value::String(c)) => cursor = Some(c.clone()),
                _ => return events,
            }
        }
        panic!("paging does not end");
    }
}

fn basis(first_state: &str) -> Value {
    let mut first = json!({"requirement": "Bore 12H7", "source": "drawing", "state": first_state});
    if first_state == "unresolved" {
        first["question"] = json!("Which reamer?");
    }
    json!([first, {"requirement": "Wall <b>2</b> mm | *thin*", "source": "assistant-proposed",
                   "state": "satisfied", "evidence": "measure: 2.4 mm"}])
}

fn remember(h: &mut Host, disposition: &str, summary: Option<&str>, first_state: &str) -> Value {
    let mut args = json!({"artifact": artifact(), "subject": "bore", "disposition": disposition,
                          "basis": basis(first_state)});
    if let Some(s) = summary {
        args["summary"] = json!(s);
    }
    h.ok("remember_decision", args)["decision"].clone()
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["kind"].as_str().unwrap()).collect()
}

#[test]
fn review_history_tells_every_change_newest_first_with_who_when_channel_and_meaning() {
    for era in ERAS {
        let mut h = Host::new(era);
        let d = remember(&mut h, "hold", None, "unresolved");
        let id = d["id"].as_str().unwrap().to_string();
        remember(&mut h, "release", None, "satisfied");
        remember(&mut h, "release", Some("reamed and measured"), "satisfied");
        let done = h.form(
            json!({"artifact": artifact(), "subject": "bore"}),
            json!({"judgement_0": "accepted", "judgement_1": "rejected",
                   "reason_1": "wall *under* 2 mm <script>"}),
        );
        assert!(
            done["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty()),
            "{era}: {done}"
        );

        // The report shows the trail and each verdict as an attestation.
        let report = h.read(&format!("review://revisions/{REV}/report"));
        assert!(report.contains("History, newest first:"), "{era}: {report}");
        assert!(
            report.contains("- replaced: disposition hold → release"),
            "{report}"
        );
        assert!(
            report.contains(&format!("{AUTHOR}, review (elicitation)")),
            "the engineer's verdict says its meaning: {report}"
        );
        assert!(
            report.contains(&format!("accepted by the engineer (form, {AUTHOR}), "))
                && report.contains("UTC, meaning review"),
            "name, time and meaning: {report}"
        );
        // Stored text cannot add Markdown or HTML of its own.
        let unescaped = report.replace("\\<", "");
        assert!(
            !unescaped.contains("<script>") && !report.contains(" *under* "),
            "{report}"
        );
        assert!(report.contains("\\<script>"), "{report}");

        // The card's data: the same trail, newest first.
        let card = h.ok(
            "show_review",
            json!({"artifact": artifact(), "detail": "full"}),
        );
        let trail = &card["decisions"][0]["trail"];
        let lines: Vec<&str> = trail["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        assert_eq!(lines.len(), 5, "{era}: every change so far: {trail}");
        assert!(
            lines[0].starts_with("verdict given: item 2 verdict none → rejected"),
            "{lines:?}"
        );
        assert!(
            lines[0].ends_with(&format!("{AUTHOR}, review (elicitation)")),
            "{lines:?}"
        );
        assert!(
            lines[2].starts_with("replaced: summary none → reamed"),
            "{lines:?}"
        );
        assert!(
            lines[4].starts_with("created: disposition none → hold"),
            "{lines:?}"
        );
        assert!(trail.get("earlier").is_none(), "{trail}");
        assert!(trail.get("not_recorded_before").is_none(), "{trail}");
        let v = &card["decisions"][0]["basis"][0]["verdict"];
        assert_eq!(
            (&v["via"], &v["author"]),
            (&json!("elicitation"), &json!(AUTHOR))
        );

        // Forgotten: the decision ends, its history stays.
        let gone = h.ok("forget", json!({"artifact": artifact(), "subject": "bore"}));
        assert_eq!(gone["deleted"], 1);

        let page = h.ok("review_history", json!({"id": id}));
        let events = page["events"].as_array().unwrap();
        assert_eq!(
            kinds(events),
            [
                "forgotten",
                "verdict_given",
                "verdict_given",
                "replaced",
                "replaced",
                "created"
            ],
            "{era}: {page}"
        );
        assert!(page.get("next_cursor").is_none());
        assert!(
            page["history_since"]
                .as_str()
                .is_some_and(|s| s.ends_with('Z'))
        );
        assert!(page.get("earlier_not_recorded").is_none(), "{page}");
        let mut last_at = "9".to_string();
        for e in events {
            assert_eq!(e["of"], json!(id));
            assert_eq!(e["author"], AUTHOR, "{e}");
            let at = e["at"].as_str().unwrap().to_string();
            assert!(at <= last_at, "newest first: {page}");
            last_at = at;
            let channel = if e["kind"] == "verdict_given" {
                "elicitation"
            } else {
                "assistant"
            };
            assert_eq!(e["channel"], channel, "{e}");
        }
        let rejected = &events[1];
        assert_eq!(rejected["changes"][0]["to"], "rejected", "{rejected}");
        assert_eq!(rejected["reason"], "wall *under* 2 mm <script>");
        assert!(rejected.get("meaning").is_none(), "absent: review");
        assert_eq!(
            events[3]["changes"],
            json!([{"field": "summary", "to": "reamed and measured"}])
        );
        let summary = h.summary("review_history", json!({"id": id}));
        assert!(summary.starts_with("6 recorded changes of "), "{summary}");
        assert!(summary.len() < 200, "short: {summary}");

        // Paged two at a time: each event once, in the same order.
        let paged = h.all_events(json!({"id": id}), 2);
        assert_eq!(&paged, events, "{era}");
        // By file and by revision: the same events (nothing else was written there).
        assert_eq!(&h.all_events(json!({"artifact": artifact()}), 50), events);
        let by_rev = h.all_events(json!({"artifact": {"revision": REV, "format": "step"}}), 3);
        assert_eq!(&by_rev, events);

        // The resource: the same answer, for the forgotten decision too.
        let res: Value =
            serde_json::from_str(&h.read(&format!("review://decisions/{id}/history"))).unwrap();
        assert_eq!(res, page, "{era}");
        let missing = h.request(
            "resources/read",
            json!({"uri": "review://decisions/dec_nothing/history"}),
        );
        assert!(missing.get("error").is_some(), "{missing}");

        // A cursor of another query is refused.
        let first = h.ok("review_history", json!({"id": id, "limit": 1}));
        let cursor = first["next_cursor"].as_str().unwrap();
        let r = h.request(
            "tools/call",
            json!({"name": "review_history", "arguments": {"artifact": artifact(), "cursor": cursor}}),
        );
        assert_eq!(r["result"]["isError"], true, "{r}");
    }
}

#[test]
fn review_history_is_listed_read_only_and_the_resource_template_completes() {
    for era in ERAS {
        let mut h = Host::new(era);
        let list = h.request("tools/list", json!({}));
        let tool = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "review_history")
            .cloned()
            .expect("listed");
        assert_eq!(tool["annotations"]["readOnlyHint"], true);
        assert_eq!(tool["annotations"]["destructiveHint"], false);
        let templates = h.request("resources/templates/list", json!({}));
        assert!(
            templates
                .to_string()
                .contains("review://decisions/{id}/history"),
            "{templates}"
        );
        let d = remember(&mut h, "hold", None, "unresolved");
        let id = d["id"].as_str().unwrap();
        let done = h.request(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "review://decisions/{id}/history"},
                   "argument": {"name": "id", "value": &id[..5]}}),
        );
        assert_eq!(
            done["result"]["completion"]["values"],
            json!([id]),
            "{era}: {done}"
        );
        // Neither or both of id and artifact: refused.
        let r = h.request(
            "tools/call",
            json!({"name": "review_history", "arguments": {}}),
        );
        assert!(
            r.get("error").is_some() || r["result"]["isError"] == true,
            "{r}"
        );
    }
}

#[test]
fn a_long_history_is_served_within_the_bound_and_whole() {
    let mut h = Host::new("2026-07-28");
    let long = "x\"<".repeat(600);
    let mut id = String::new();
    for n in 0..120 {
        let d = remember(
            &mut h,
            if n % 2 == 0 { "hold" } else { "release" },
            Some(&format!("{n} {long}")),
            if n % 2 == 0 {
                "unresolved"
            } else {
                "satisfied"
            },
        );
        id = d["id"].as_str().unwrap().to_string();
    }
    let first = h.ok("review_history", json!({"id": id, "limit": 200}));
    assert!(h.last_bytes <= BOUND, "{} bytes", h.last_bytes);
    assert!(
        first.get("next_cursor").is_some(),
        "cut by bytes, not by limit"
    );
    let events = h.all_events(json!({"id": id}), 200);
    assert_eq!(events.len(), 120);
    let mut ids: Vec<&str> = events.iter().map(|e| e["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 120, "each event once");
    let res = h.read(&format!("review://decisions/{id}/history"));
    assert!(h.last_bytes <= BOUND, "resource: {} bytes", h.last_bytes);
    assert!(res.contains("next_cursor"));
    // The report and the card name what is not listed.
    let report = h.read(&format!("review://revisions/{REV}/report"));
    assert!(h.last_bytes <= BOUND);
    assert!(
        report.contains("- 115 earlier changes: review\\_history with id"),
        "{report}"
    );

    // One event larger than an answer (a note's previous text) comes cut, naming where it is
    // whole, and is whole there.
    let note = |c: char| c.to_string().repeat(60_000);
    let rec = h.ok(
        "remember",
        json!({"artifact": artifact(), "name": "bore", "entity_ids": [], "note": note('a')}),
    )["record"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    h.ok(
        "remember",
        json!({"artifact": artifact(), "name": "bore", "entity_ids": [], "note": note('b')}),
    );
    let page = h.ok("review_history", json!({"id": rec}));
    assert!(h.last_bytes <= BOUND, "{} bytes", h.last_bytes);
    let e = &page["events"][0];
    assert_eq!(e["kind"], "text_replaced");
    let whole = e["truncated"]["whole"].as_str().unwrap().to_string();
    assert!(whole.starts_with("review://events/evt-"), "{whole}");
    let mut json = String::new();
    let mut uri = Some(whole);
    while let Some(u) = uri {
        let part: Value = serde_json::from_str(&h.read(&u)).unwrap();
        assert!(h.last_bytes <= BOUND);
        json.push_str(part["json"].as_str().unwrap());
        uri = part["next"].as_str().map(str::to_string);
    }
    let whole: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(whole["changes"][0]["from"], note('a'));
    assert_eq!(whole["id"], e["id"]);
}

/// A legacy session subscribed to a decision's history is told when the history grows: at a
/// replacement, and when the decision is forgotten (its history stays and grows).
#[test]
fn a_subscribed_history_is_announced_when_it_grows() {
    let mut h = Host::new("2025-11-25");
    let d = remember(&mut h, "hold", None, "unresolved");
    let uri = format!("review://decisions/{}/history", d["id"].as_str().unwrap());
    let sub = h.request("resources/subscribe", json!({"uri": uri}));
    assert!(sub.get("error").is_none(), "{sub}");
    let updated = |out: &[Value]| {
        out.iter().any(|m| {
            m["method"] == "notifications/resources/updated" && m["params"]["uri"] == json!(uri)
        })
    };
    let write = |h: &mut Host, tool: &str, args: Value| {
        h.id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": h.id, "method": "tools/call",
                         "params": {"name": tool, "arguments": args}});
        h.send(&msg)
    };
    let same = write(
        &mut h,
        "remember_decision",
        json!({"artifact": artifact(), "subject": "bore", "disposition": "hold",
               "basis": basis("unresolved")}),
    );
    assert!(
        !updated(&same),
        "nothing changed, nothing recorded: {same:?}"
    );
    let out = write(
        &mut h,
        "remember_decision",
        json!({"artifact": artifact(), "subject": "bore", "disposition": "release",
               "basis": basis("satisfied")}),
    );
    assert!(updated(&out), "{out:?}");
    let out = write(
        &mut h,
        "forget",
        json!({"artifact": artifact(), "subject": "bore"}),
    );
    assert!(updated(&out), "{out:?}");
}
