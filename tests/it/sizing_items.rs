//! A single item larger than the answer bound (issue 26): a record with a 40,000-character
//! note and 2,000 entity ids, a decision of 30 basis items with long evidence. Every tool and
//! resource answer, at default arguments and at full detail or the largest `limit`, stays
//! within the bound; the item is served cut to fit, says which fields lost how much, and
//! names where it is read whole (its parts, which join to the whole item).

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashSet;

use crate::support::inproc::{Client, ERAS, REV_A, REV_B, art_uri, ui_caps};
use serde_json::{Value, json};

const BOUND: usize = 32_000;
const URI: &str = "file:///work/huge.step";
/// Quotes and backslashes double when escaped; the text copy escapes them again.
const AWKWARD: &str = "say \"x\" \\ é ";

fn art() -> Value {
    art_uri(REV_A, URI)
}

fn huge_text(chars: usize) -> String {
    AWKWARD.chars().cycle().take(chars).collect()
}

struct Seeded {
    record: String,
    decision: String,
}

fn seed(c: &mut Client) -> Seeded {
    for i in 0..5 {
        c.ok(
            "remember",
            json!({"artifact": art(), "name": format!("small {i}"), "note": "ok", "entity_ids": [format!("face:{i}")]}),
        );
    }
    let ids: Vec<String> = (0..2_000)
        .map(|i| format!("face:{i}:{}", "x".repeat(40)))
        .collect();
    let resp = c.call(
        "remember",
        json!({"artifact": art(), "name": "huge", "note": huge_text(40_000),
               "tags": (0..64).map(|i| format!("{i}{}", "t".repeat(60))).collect::<Vec<_>>(),
               "entity_ids": ids}),
    );
    let record = announced(&resp, "record", "review://records/");
    let basis: Vec<Value> = (0..30)
        .map(|k| {
            let mut b = json!({"requirement": format!("requirement {k}: {}", huge_text(500)),
                "source": "drawing", "evidence": huge_text(3_000),
                "state": if k % 2 == 0 { "unresolved" } else { "satisfied" },
                "faces": [format!("face:{k}")]});
            if k % 2 == 0 {
                b["question"] = json!(huge_text(1_000));
            }
            b
        })
        .collect();
    let resp = c.call(
        "remember_decision",
        json!({"artifact": art(), "subject": "huge", "disposition": "hold",
               "summary": huge_text(10_000), "basis": basis}),
    );
    let decision = announced(&resp, "decision", "review://decisions/");
    c.ok(
        "remember_decision",
        json!({"artifact": art(), "subject": "small", "disposition": "accept",
               "basis": [{"requirement": "r", "source": "drawing", "state": "satisfied", "faces": []}]}),
    );
    Seeded { record, decision }
}

/// Checks an answer against the bound and returns its line's bytes.
fn bounded(what: &str, resp: &Value) -> usize {
    assert!(resp.get("error").is_none(), "{what}: {resp}");
    assert_ne!(resp["result"]["isError"], json!(true), "{what}: {resp}");
    let bytes = serde_json::to_string(resp).unwrap().len();
    assert!(bytes <= BOUND, "{what}: {bytes} bytes");
    bytes
}

/// The answer of a write whose item is too large: bounded, the item cut and saying so.
/// Returns the item's id.
fn announced(resp: &Value, member: &str, resource: &str) -> String {
    bounded(member, resp);
    let item = &resp["result"]["structuredContent"][member];
    let item = if item.is_null() {
        // Eras without structuredContent: the JSON text copy.
        let text = resp["result"]["content"][1]["text"].as_str().unwrap();
        serde_json::from_str::<Value>(text).unwrap()[member].clone()
    } else {
        item.clone()
    };
    let id = item["id"].as_str().unwrap().to_string();
    check_truncated(&item, &format!("{resource}{id}/part/1"));
    id
}

fn announced_decision(resp: &Value, whole: &str) {
    bounded("record_verdict", resp);
    let out = structured(resp);
    assert_eq!(out["verdict"]["judgement"], "accepted", "{out}");
    check_truncated(&out["decision"], whole);
}

fn check_truncated(item: &Value, whole: &str) {
    let t = &item["truncated"];
    assert_eq!(t["whole"], whole, "{item}");
    let fields = t["fields"].as_array().unwrap();
    assert!(!fields.is_empty(), "{t}");
    for f in fields {
        let field = f["field"].as_str().unwrap();
        assert!(field.starts_with('/'), "{f}");
        let cut = f
            .get("cut_bytes")
            .or_else(|| f.get("cut_items"))
            .unwrap()
            .as_u64()
            .unwrap();
        assert!(cut > 0, "{f}");
        if f.get("cut_bytes").is_some() {
            let s = item.pointer(field).unwrap().as_str().unwrap();
            assert!(s.ends_with('…'), "{field}");
        }
    }
}

fn structured(resp: &Value) -> Value {
    let text = resp["result"]["content"][1]["text"].as_str().unwrap();
    serde_json::from_str(text).unwrap()
}

/// Reads the parts named by `whole` and returns the item they join to.
fn read_whole(c: &mut Client, whole: &str) -> Value {
    let mut json = String::new();
    let mut uri = whole.to_string();
    let mut seen = 0;
    loop {
        let resp = c.request("resources/read", json!({"uri": uri}));
        bounded(&uri, &resp);
        let doc: Value =
            serde_json::from_str(resp["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
        seen += 1;
        assert_eq!(doc["part"], seen);
        json.push_str(doc["json"].as_str().unwrap());
        match doc.get("next") {
            Some(Value::String(n)) => uri = n.clone(),
            _ => {
                assert_eq!(doc["parts"], seen);
                break;
            }
        }
    }
    serde_json::from_str(&json).unwrap()
}

#[test]
fn an_item_larger_than_the_bound_is_served_cut_and_says_where_it_is_whole() {
    for era in ERAS {
        let mut c = Client::declaring(
            review_mcp::store::Store::open_in_memory().unwrap(),
            era,
            ui_caps(),
        );
        let s = seed(&mut c);
        let record_whole = format!("review://records/{}/part/1", s.record);
        let decision_whole = format!("review://decisions/{}/part/1", s.decision);
        let calls = [
            ("recall", json!({})),
            ("recall", json!({"limit": 200})),
            ("recall", json!({"artifact": art()})),
            ("recall", json!({"text": "huge"})),
            ("recall", json!({"artifact": art(), "entity_id": "face:3"})),
            ("recall_decisions", json!({})),
            ("recall_decisions", json!({"detail": "full", "limit": 200})),
            (
                "recall_decisions",
                json!({"current_only": false, "limit": 200}),
            ),
            ("recall_decisions", json!({"subject": "huge"})),
            ("recall_decisions", json!({"decision_id": s.decision})),
            ("show_review", json!({"artifact": art()})),
            ("show_review", json!({"artifact": art(), "detail": "full"})),
            ("show_review", json!({"artifact": art(), "subject": "huge"})),
            (
                "show_review",
                json!({"artifact": art(), "subject": "huge", "detail": "full"}),
            ),
        ];
        let mut announced = 0;
        for (tool, args) in calls {
            let resp = c.call(tool, args.clone());
            bounded(&format!("{era:?} {tool} {args}"), &resp);
            let out = structured(&resp);
            let summary = resp["result"]["content"][0]["text"].as_str().unwrap();
            let first = out["records"].get(0).or_else(|| out["decisions"].get(0));
            if tool != "show_review" && first.is_some_and(|f| f.get("truncated").is_some()) {
                assert!(summary.contains("cut to fit"), "{summary}");
            }
            // Wherever the large items are served, they say they were cut.
            let mut items: Vec<&Value> = Vec::new();
            for key in ["records", "decisions", "stale_decisions"] {
                items.extend(out[key].as_array().into_iter().flatten());
            }
            for item in items {
                if item["id"] == json!(s.record) {
                    check_truncated(item, &record_whole);
                    announced += 1;
                }
                if item["id"] == json!(s.decision) {
                    check_truncated(item, &decision_whole);
                    announced += 1;
                }
            }
        }
        // recall twice, the decision's five recalls, and show_review at full detail (the
        // summary form counts it among its decisions too).
        assert!(announced >= 8, "{announced}");
        // The card's verdict on an item of the cut decision: the digest it was given (never
        // cut) is the item's, and the answer, with the decision, is bounded and cut too.
        let shown_resp = c.call(
            "show_review",
            json!({"artifact": art(), "subject": "huge", "detail": "full"}),
        );
        let shown = structured(&shown_resp);
        let digest = shown["decisions"][0]["basis"][0]["digest"].clone();
        // The card's proof of the decision, in the result's _meta (issue 28), cut or not.
        let proof =
            shown_resp["result"]["_meta"]["review-mcp/card"]["proofs"][s.decision.as_str()].clone();
        let resp = c.call(
            "record_verdict",
            json!({"decision_id": s.decision, "index": 0, "item_digest": digest, "judgement": "accepted",
                   "card_proof": proof}),
        );
        announced_decision(&resp, &decision_whole);
        // The paged tools serve every item once, the large ones cut.
        for (tool, key, args, want) in [
            ("recall", "records", json!({"limit": 200}), 6),
            (
                "recall_decisions",
                "decisions",
                json!({"detail": "full", "limit": 200}),
                2,
            ),
        ] {
            let mut ids = Vec::new();
            let mut a = args.clone();
            loop {
                let resp = c.call(tool, a.clone());
                bounded(tool, &resp);
                let page = structured(&resp);
                ids.extend(
                    page[key]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|i| i["id"].as_str().unwrap().to_string()),
                );
                match page.get("next_cursor") {
                    Some(n) => a["cursor"] = n.clone(),
                    None => break,
                }
            }
            let unique: HashSet<&String> = ids.iter().collect();
            assert_eq!((ids.len(), unique.len()), (want, want), "{tool}: {ids:?}");
        }
        // Every resource, and the parts, within the bound; the parts join to the whole item.
        // A revision whose one item is too large: its report is cut, its JSON cuts the item.
        let alone = c.ok(
            "remember",
            json!({"artifact": art_uri(REV_B, "file:///work/alone.step"), "note": huge_text(50_000),
                   "entity_ids": []}),
        );
        let alone = alone["record"]["id"].as_str().unwrap().to_string();
        let resp = c.request(
            "resources/read",
            json!({"uri": format!("review://revisions/{REV_B}/report")}),
        );
        bounded("report", &resp);
        let text = resp["result"]["contents"][0]["text"].as_str().unwrap();
        assert!(text.contains("This report is cut here"), "{text}");
        assert!(
            text.contains(&format!("review://records/{alone}/part/1")),
            "{text}"
        );
        let resp = c.request(
            "resources/read",
            json!({"uri": format!("review://revisions/{REV_B}")}),
        );
        bounded("revision", &resp);
        let text = resp["result"]["contents"][0]["text"].as_str().unwrap();
        let view: Value = serde_json::from_str(text).unwrap();
        check_truncated(
            &view["records"][0],
            &format!("review://records/{alone}/part/1"),
        );
        for uri in [
            format!("review://revisions/{REV_A}"),
            format!("review://revisions/{REV_A}/report"),
            format!("review://revisions/{REV_A}/form3.csv"),
            format!("review://records/{}", s.record),
            format!("review://decisions/{}", s.decision),
        ] {
            let resp = c.request("resources/read", json!({"uri": uri}));
            bounded(&uri, &resp);
            let text = resp["result"]["contents"][0]["text"].as_str().unwrap();
            if uri.contains("/records/") {
                check_truncated(&serde_json::from_str(text).unwrap(), &record_whole);
            } else if uri.contains("/decisions/") {
                check_truncated(&serde_json::from_str(text).unwrap(), &decision_whole);
            }
        }
        let record = read_whole(&mut c, &record_whole);
        assert_eq!(record["note"].as_str().unwrap(), huge_text(40_000));
        assert_eq!(record["entity_ids"].as_array().unwrap().len(), 2_000);
        assert_eq!(record["kind"], "feature");
        let decision = read_whole(&mut c, &decision_whole);
        assert_eq!(decision["basis"].as_array().unwrap().len(), 30);
        assert_eq!(
            decision["basis"][29]["evidence"].as_str().unwrap(),
            huge_text(3_000)
        );
        for uri in [
            format!("review://records/{}/part/0", s.record),
            format!("review://records/{}/part/999", s.record),
            format!("review://records/{}/part/x", s.record),
        ] {
            let resp = c.request("resources/read", json!({"uri": uri}));
            assert!(resp.get("error").is_some(), "{uri}: {resp}");
        }
    }
}

/// Long subjects and file URIs: a completion and a `resources/list` page stop early by bytes.
/// (50 revisions: fewer than the list's 60-page cap holds even at one a page, so the list
/// is whole; `resources::tests` checks the cap.)
#[test]
fn completions_and_the_resource_list_stop_by_bytes() {
    let mut c = Client::memory(ERAS[2]);
    for i in 0..50 {
        let rev = format!("sha256:{i:064x}");
        let uri = format!("file:///work/{i}{}.step", "p".repeat(4_000));
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(&rev, &uri), "subject": format!("s{i:03}{}", "q".repeat(990)),
                   "disposition": "hold", "basis": []}),
        );
    }
    let resp = c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "record_decision"},
               "argument": {"name": "subject", "value": "s"}}),
    );
    bounded("completion", &resp);
    let completion = &resp["result"]["completion"];
    assert_eq!(completion["hasMore"], true, "{completion}");
    assert!(completion["values"].as_array().unwrap().len() >= 10);
    let mut cursor: Option<Value> = None;
    let (mut served, mut pages) = (0, 0);
    loop {
        let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
        let resp = c.request("resources/list", params);
        bounded("resources/list", &resp);
        served += resp["result"]["resources"].as_array().unwrap().len();
        pages += 1;
        match resp["result"].get("nextCursor") {
            Some(n) => cursor = Some(n.clone()),
            None => break,
        }
    }
    assert_eq!(served, 50);
    assert!(
        pages > 1,
        "one page of 50 long entries did not stop by bytes"
    );
}
