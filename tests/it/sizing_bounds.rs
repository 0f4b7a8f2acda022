//! Answers sized for the model that reads them (issue 26): every tool and resource answer at
//! default arguments stays within the answer bound over a heavy revision, in every era;
//! following cursors still serves every item exactly once; `tools/list` stays small.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashSet;

use crate::support::inproc::{Client, ERAS, REV_A, REV_B, art_uri, ui_caps};
use serde_json::{Value, json};

/// The bound of issue 26, in bytes of the answer line.
const BOUND: usize = 32_000;
/// Names, descriptions and input schemas of the tools of issue 26, together.
const TOOLS_BUDGET: usize = 12_000;
/// The tools `TOOLS_BUDGET` counts; every tool added since brings at most
/// [`ADDED_TOOL_MAX`] bytes.
const BUDGETED_TOOLS: [&str; 8] = [
    "remember",
    "recall",
    "remember_decision",
    "recall_decisions",
    "request_verdicts",
    "show_review",
    "record_verdict",
    "forget",
];
/// A tool added after issue 26 (issue 27: `artifact_revision`): about 1 KB, rules in
/// docs/tools.md and the prompts.
const ADDED_TOOL_MAX: usize = 1_000;
/// The same per tool on average: a tool added later brings 1,500 bytes more at most.
const PER_TOOL_AVERAGE: usize = 1_500;
/// And no one tool larger than this.
const PER_TOOL_MAX: usize = 3_000;
const URI: &str = "file:///work/heavy.step";
const DECISIONS: usize = 50;
const RECORDS: usize = 500;

fn long(seed: usize, words: usize) -> String {
    (0..words)
        .map(|w| format!("w{}x{}", seed % 97, w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// 50 decisions of 10 items with long evidence and 500 records at REV_A, and an older
/// decision of ten of those subjects at REV_B.
fn seed(c: &mut Client) {
    for i in 0..RECORDS {
        c.ok(
            "remember",
            json!({"artifact": art_uri(REV_A, URI), "name": format!("feature {i}"),
                   "note": long(i, 8), "tags": ["heavy", format!("t{}", i % 7)],
                   "entity_ids": [format!("face:{i}"), format!("edge:{i}")], "id_scheme": "occt-topods-hash"}),
        );
    }
    for (rev, n) in [(REV_B, 10), (REV_A, DECISIONS)] {
        for i in 0..n {
            let basis: Vec<Value> = (0..10)
                .map(|k| {
                    let mut b = json!({"requirement": format!("requirement {k} of {i}: {}", long(k, 6)),
                        "source": "drawing", "evidence": long(i * 10 + k, 80),
                        "state": if k % 4 == 0 { "unresolved" } else { "satisfied" },
                        "faces": [format!("face:{k}")]});
                    if k % 4 == 0 {
                        b["question"] = json!(format!("question {k}: {}", long(k, 10)));
                    }
                    b
                })
                .collect();
            c.ok(
                "remember_decision",
                json!({"artifact": art_uri(rev, URI), "subject": format!("subject {i}"),
                       "disposition": "accept with conditions", "summary": long(i, 10), "basis": basis}),
            );
        }
    }
}

fn line_bytes(resp: &Value) -> usize {
    serde_json::to_string(resp).unwrap().len()
}

fn call_bytes(c: &mut Client, tool: &str, args: Value) -> (usize, Value) {
    let resp = c.call(tool, args.clone());
    assert!(resp.get("error").is_none(), "{tool} {args}: {resp}");
    assert_ne!(
        resp["result"]["isError"],
        json!(true),
        "{tool} {args}: {resp}"
    );
    (
        line_bytes(&resp),
        resp["result"]["structuredContent"].clone(),
    )
}

fn art() -> Value {
    art_uri(REV_A, URI)
}

#[test]
fn every_answer_at_default_arguments_fits_the_bound_in_every_era() {
    for era in ERAS {
        let mut c = Client::declaring(
            review_mcp::store::Store::open_in_memory().unwrap(),
            era,
            ui_caps(),
        );
        seed(&mut c);
        let decision = c.ok("recall_decisions", json!({"artifact": art(), "limit": 1}));
        let id = decision["decisions"][0]["id"].as_str().unwrap().to_string();
        let record = c.ok("recall", json!({"limit": 1}));
        let rid = record["records"][0]["id"].as_str().unwrap().to_string();
        let calls = [
            ("recall", json!({})),
            ("recall", json!({"artifact": art()})),
            ("recall", json!({"tags": ["heavy"]})),
            ("recall", json!({"text": "feature"})),
            ("recall", json!({"artifact": art(), "entity_id": "face:3"})),
            ("recall_decisions", json!({})),
            ("recall_decisions", json!({"artifact": art()})),
            (
                "recall_decisions",
                json!({"artifact": art(), "state": "unresolved"}),
            ),
            ("recall_decisions", json!({"text": "requirement"})),
            ("recall_decisions", json!({"subject": "subject 3"})),
            ("recall_decisions", json!({"decision_id": id})),
            (
                "recall_decisions",
                json!({"artifact": art(), "detail": "full", "limit": 200}),
            ),
            ("recall", json!({"limit": 200})),
            ("show_review", json!({"artifact": art()})),
            ("review_history", json!({"artifact": art()})),
            ("review_history", json!({"id": id, "limit": 200})),
            ("show_review", json!({"artifact": art(), "detail": "full"})),
            (
                "show_review",
                json!({"artifact": art(), "subject": "subject 3"}),
            ),
        ];
        for (tool, args) in calls {
            let (bytes, _) = call_bytes(&mut c, tool, args.clone());
            assert!(bytes <= BOUND, "{era:?} {tool} {args}: {bytes} bytes");
        }
        let mut uris = vec![
            format!("review://revisions/{REV_A}"),
            format!("review://revisions/{REV_A}/report"),
            format!("review://revisions/{REV_A}/form3.csv"),
            format!("review://revisions/{REV_B}"),
            format!("review://records/{rid}"),
            format!("review://decisions/{id}"),
            format!("review://decisions/{id}/history"),
            "ui://review-mcp/review-card".to_string(),
        ];
        let list = c.request("resources/list", json!({}));
        assert!(line_bytes(&list) <= BOUND);
        uris.extend(
            list["result"]["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["uri"].as_str().unwrap().to_string()),
        );
        for uri in uris {
            let resp = c.request("resources/read", json!({"uri": uri}));
            assert!(resp.get("error").is_none(), "{uri}: {resp}");
            let bytes = line_bytes(&resp);
            assert!(bytes <= BOUND, "{era:?} read {uri}: {bytes} bytes");
        }
        for method in ["prompts/list", "resources/templates/list"] {
            let resp = c.request(method, json!({}));
            assert!(line_bytes(&resp) <= BOUND, "{method}");
        }
    }
}

/// Follows `next_cursor` and returns every id served, checking each page against the bound.
fn follow(c: &mut Client, tool: &str, key: &str, args: Value) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1000 {
        let mut a = args.clone();
        if let Some(cur) = &cursor {
            a["cursor"] = json!(cur);
        }
        let (bytes, page) = call_bytes(c, tool, a);
        assert!(bytes <= BOUND, "{tool} page: {bytes} bytes");
        ids.extend(
            page[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["id"].as_str().unwrap().to_string()),
        );
        match page.get("next_cursor") {
            Some(Value::String(n)) => cursor = Some(n.clone()),
            _ => return ids,
        }
    }
    panic!("paging does not end");
}

#[test]
fn following_cursors_serves_every_item_exactly_once() {
    for era in ERAS {
        let mut c = Client::memory(era);
        seed(&mut c);
        for (tool, key, args, want) in [
            ("recall", "records", json!({}), RECORDS),
            ("recall", "records", json!({"limit": 200}), RECORDS),
            (
                "recall_decisions",
                "decisions",
                json!({"artifact": art()}),
                DECISIONS,
            ),
            (
                "recall_decisions",
                "decisions",
                json!({"artifact": art(), "detail": "full", "limit": 200}),
                DECISIONS,
            ),
            (
                "recall_decisions",
                "decisions",
                json!({"current_only": false}),
                DECISIONS + 10,
            ),
            ("recall_decisions", "decisions", json!({}), DECISIONS),
        ] {
            let ids = follow(&mut c, tool, key, args.clone());
            let unique: HashSet<&String> = ids.iter().collect();
            assert_eq!(unique.len(), ids.len(), "{tool} {args}: served twice");
            assert_eq!(ids.len(), want, "{era:?} {tool} {args}");
        }
    }
}

#[test]
fn a_record_page_says_each_artifact_once_and_stays_small() {
    let mut c = Client::memory(ERAS[2]);
    seed(&mut c);
    let page = c.ok("recall", json!({"artifact": art()}));
    let records = page["records"].as_array().unwrap();
    // 50 asked for; the page stops by bytes first (both copies of ~280 B records).
    assert!(records.len() >= 45, "{}", records.len());
    assert_eq!(page["artifacts"].as_array().unwrap().len(), 1);
    assert_eq!(page["artifacts"][0]["revision"], REV_A);
    assert_eq!(page["artifacts"][0]["stale"], false);
    assert_eq!(page["artifacts"][0]["id_scheme"], "occt-topods-hash");
    let per_record = serde_json::to_string(&page["records"]).unwrap().len() / records.len();
    // 489 B a record before (the artifact, about 170 B, in every record); 275 B with the
    // artifact, its staleness and the id scheme said once per page; at most 250 B with
    // nothing said twice: `kind` follows from `name`, `updated_at` from `created_at`.
    println!(
        "recall page: {} records, {per_record} bytes a record",
        records.len()
    );
    assert!(per_record <= 250, "{per_record} bytes a record");
    assert_eq!(records.len(), 50, "the whole page of 50 fits now");
    for r in records {
        assert_eq!(r["artifact"], 0);
        for field in ["id", "name", "note", "tags", "entity_ids", "created_at"] {
            assert!(r.get(field).is_some(), "{field} lost: {r}");
        }
        assert!(r.get("kind").is_none(), "kind is implied by name: {r}");
        assert!(r.get("updated_at").is_none(), "never replaced: {r}");
    }
    // No field lost: a note has no name (its kind), a replaced record says when.
    let name = records[0]["name"].as_str().unwrap().to_string();
    c.ok(
        "remember",
        json!({"artifact": art(), "name": name, "note": "again", "entity_ids": ["face:1"], "id_scheme": "occt-topods-hash"}),
    );
    c.ok(
        "remember",
        json!({"artifact": art(), "note": "a note", "entity_ids": [], "id_scheme": "occt-topods-hash"}),
    );
    let page = c.ok("recall", json!({"artifact": art(), "limit": 2}));
    let note = &page["records"][0];
    assert!(
        note.get("name").is_none() && note.get("kind").is_none(),
        "{note}"
    );
    let replaced = &page["records"]
        .as_array()
        .unwrap()
        .iter()
        .chain(
            c.ok("recall", json!({"text": "again"}))["records"]
                .as_array()
                .unwrap(),
        )
        .find(|r| r["name"] == json!(name))
        .cloned()
        .unwrap();
    let (created, updated) = (&replaced["created_at"], &replaced["updated_at"]);
    assert!(
        updated.as_str().unwrap() > created.as_str().unwrap(),
        "{replaced}"
    );
    // The full form (remember's answer, the record resource) still names the kind.
    let rid = note["id"].as_str().unwrap();
    let read = c.request(
        "resources/read",
        json!({"uri": format!("review://records/{rid}")}),
    );
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    let full: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        (&full["kind"], &full["updated_at"]),
        (&json!("note"), &full["created_at"])
    );
}

#[test]
fn decisions_answer_in_summary_form_current_only_and_say_what_is_elsewhere() {
    let mut c = Client::memory(ERAS[2]);
    seed(&mut c);
    let resp = c.call(
        "recall_decisions",
        json!({"artifact": {"revision": REV_B, "format": "step", "uri": URI}, "limit": 5}),
    );
    let page = &resp["result"]["structuredContent"];
    let d = &page["decisions"][0];
    assert!(d.get("basis").is_none(), "summary form by default: {d}");
    assert_eq!(d["items"], 10);
    assert_eq!(d["states"], json!({"satisfied": 7, "unresolved": 3}));
    assert_eq!(d["verdicts"], json!({"none": 10}));
    assert_eq!(d["open_questions"].as_array().unwrap().len(), 3);
    // The newest decision of each subject is at REV_A: stale against REV_B.
    let a = &page["artifacts"][d["artifact"].as_u64().unwrap() as usize];
    assert_eq!((&a["revision"], &a["stale"]), (&json!(REV_A), &json!(true)));
    let text = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("10 older decisions"), "{text}");
    // Current only: the ten subjects decided at both revisions come once, at REV_A.
    let all = follow(
        &mut c,
        "recall_decisions",
        "decisions",
        json!({"subject": "subject 3"}),
    );
    assert_eq!(all.len(), 1);
    let one = c.ok("recall_decisions", json!({"subject": "subject 3"}));
    assert_eq!(one["decisions"][0]["basis"].as_array().unwrap().len(), 10);
    // Full decisions of this size fill a page each: the byte bound holds, the cursor follows.
    let older = follow(
        &mut c,
        "recall_decisions",
        "decisions",
        json!({"subject": "subject 3", "current_only": false}),
    );
    assert_eq!(older.len(), 2);
    // face:3 is on decisions at both revisions; face:12 nowhere; a face known only at REV_A
    // asked at a third revision says where it is known.
    let rev_c = format!("sha256:{}", "c".repeat(64));
    let resp = c.call("recall_decisions", json!({"artifact": {"revision": rev_c, "format": "step", "uri": URI}, "entity_id": "face:3"}));
    let text = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("face:3 is known at 2 other revisions of this file"),
        "{text}"
    );
    let resp = c.call("recall", json!({"artifact": {"revision": rev_c, "format": "step", "uri": URI}, "entity_id": "face:3"}));
    let text = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("face:3 is known at 1 other revision of this file"),
        "{text}"
    );
}

#[test]
fn tools_list_puts_little_in_front_of_the_model() {
    let mut c = Client::declaring(
        review_mcp::store::Store::open_in_memory().unwrap(),
        ERAS[1],
        ui_caps(),
    );
    let list = c.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let mut total = 0;
    let mut budgeted = 0;
    for t in tools {
        let visible = json!({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]});
        let bytes = serde_json::to_string(&visible).unwrap().len();
        println!("{}: {bytes} bytes", t["name"]);
        total += bytes;
        let name = t["name"].as_str().unwrap();
        if BUDGETED_TOOLS.contains(&name) {
            budgeted += bytes;
        } else {
            assert!(bytes <= ADDED_TOOL_MAX, "{name}: {bytes} bytes");
        }
    }
    for t in tools {
        let visible = json!({"name": t["name"], "description": t["description"], "inputSchema": t["inputSchema"]});
        let bytes = serde_json::to_string(&visible).unwrap().len();
        assert!(bytes <= PER_TOOL_MAX, "{}: {bytes} bytes", t["name"]);
    }
    assert!(
        total <= PER_TOOL_AVERAGE * tools.len(),
        "{total} bytes for {} tools",
        tools.len()
    );
    println!("tools/list model-visible: {total} bytes");
    assert!(budgeted <= TOOLS_BUDGET, "{budgeted} bytes");
}

/// One carry marks every item of its revision alike (`superseded`: by, at, change), so a
/// page of that revision's records or decisions says it once, in the artifact's entry of its
/// table, not once per item (a page of a superseded revision spent a quarter of its bytes
/// restating the carry).
#[test]
fn a_page_of_a_superseded_revision_says_the_carry_once() {
    let mut c = Client::memory(ERAS[1]);
    for i in 0..20 {
        c.ok(
            "remember",
            json!({"artifact": art_uri(REV_A, URI), "name": format!("feature {i}"),
                   "note": "n", "entity_ids": [format!("face:{i}")], "id_scheme": "occt-topo"}),
        );
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(REV_A, URI), "subject": format!("subject {i}"),
                   "disposition": "hold",
                   "basis": [{"requirement": "r", "source": "drawing", "state": "satisfied"}]}),
        );
    }
    c.ok(
        "carry_forward",
        json!({"from": art_uri(REV_A, URI), "to": art_uri(REV_B, URI), "map": [],
               "change": "ECO-1: bore opened"}),
    );
    // Revision A alone (no uri): every item of the page is one it superseded.
    let a = json!({"revision": REV_A, "format": "step"});
    let pages = [
        (
            "records",
            c.ok("recall", json!({"artifact": a, "text": "feature"})),
        ),
        (
            "decisions",
            c.ok(
                "recall_decisions",
                json!({"artifact": a, "current_only": false}),
            ),
        ),
        (
            "decisions",
            c.ok(
                "recall_decisions",
                json!({"artifact": a, "current_only": false, "detail": "full"}),
            ),
        ),
    ];
    for (key, page) in pages {
        let items = page[key].as_array().unwrap();
        let at_a: Vec<&Value> = items
            .iter()
            .filter(|i| {
                let entry = &page["artifacts"][i["artifact"].as_u64().unwrap() as usize];
                entry["revision"] == REV_A
            })
            .collect();
        assert_eq!(at_a.len(), 20, "{page}");
        for item in &at_a {
            assert!(item.get("superseded").is_none(), "said per item: {item}");
            let entry = &page["artifacts"][item["artifact"].as_u64().unwrap() as usize];
            assert_eq!(entry["superseded"]["by"], REV_B, "{page}");
            assert_eq!(entry["superseded"]["change"], "ECO-1: bore opened");
        }
        let text = serde_json::to_string(&page).unwrap();
        assert_eq!(
            text.matches("ECO-1: bore opened").count(),
            1,
            "the carry said once: {text}"
        );
    }
    // The summary names where the mark is.
    let resp = c.call("recall", json!({"artifact": a, "text": "feature"}));
    let line = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(line.contains("artifact's superseded.by"), "{line}");
}

/// `show_review`'s line counts every decision and record of the revision, but its structured
/// summary holds the decisions that fit the answer bound (and the full detail fewer): the line
/// said neither that some were left out nor where they are, so a model reading the line (the
/// hosts that pass only text) took the count for what it was given. It now says how many
/// are not in this answer and the call that pages through them.
#[test]
fn show_review_says_what_it_left_out_and_where_it_is() {
    let mut c = Client::memory(ERAS[1]);
    seed(&mut c);
    for detail in ["summary", "full"] {
        let resp = c.call("show_review", json!({"artifact": art(), "detail": detail}));
        let line = resp["result"]["content"][0]["text"].as_str().unwrap();
        let sc = &resp["result"]["structuredContent"];
        let left = sc["omitted"]["decisions"].as_u64().unwrap();
        assert!(left > 0, "the heavy review does not fit: {sc}");
        assert!(
            line.contains(&format!("{left} of {DECISIONS} decisions are not in this answer"))
                && line.contains("recall_decisions with this revision alone as its artifact (no uri) and current_only: false"),
            "{detail}: {line}"
        );
    }
    // The call the line names serves every decision of the revision, also once its review
    // was carried on (the file's current decisions are then the later revision's).
    let alone = json!({"revision": REV_A, "format": "step"});
    let hinted = json!({"artifact": alone, "current_only": false});
    assert_eq!(
        follow(&mut c, "recall_decisions", "decisions", hinted.clone()).len(),
        DECISIONS
    );
    let rev_c = format!("sha256:{}", "c".repeat(64));
    c.ok(
        "carry_forward",
        json!({"from": art(), "to": art_uri(&rev_c, URI), "map": []}),
    );
    let resp = c.call("show_review", json!({"artifact": art()}));
    let line = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        line.contains("current_only: false pages through them"),
        "{line}"
    );
    assert_eq!(
        follow(&mut c, "recall_decisions", "decisions", hinted).len(),
        DECISIONS
    );
    assert_eq!(
        follow(&mut c, "recall", "records", json!({"artifact": alone})).len(),
        RECORDS
    );
    // A review that fits says nothing of the kind.
    let mut small = Client::memory(ERAS[1]);
    small.ok(
        "remember_decision",
        json!({"artifact": art(), "subject": "s", "disposition": "hold",
               "basis": [{"requirement": "r", "source": "drawing", "state": "satisfied"}]}),
    );
    let resp = small.call("show_review", json!({"artifact": art()}));
    let line = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!line.contains("not in this answer"), "{line}");
}

/// A revision resource that does not fit the answer bound leaves out its later items, but
/// halving the lists until the text fits left as little as half the bound used (a report of
/// 4 of 37 decisions in 16 KB of a 32 KB answer): the model was sent to page through what
/// one answer had room for. The lists are cut to the share the bound has room for.
#[test]
fn a_revision_resource_cut_to_fit_uses_most_of_the_bound() {
    // Reviews of a few more decisions than one answer holds, each stated twice (a trail).
    for n in [20, 24, 28, 32, 36, 40] {
        let mut c = Client::memory(ERAS[1]);
        for i in 0..n {
            let basis: Vec<Value> = (0..5)
                .map(|k| {
                    json!({"requirement": format!("wall {k} at least 2.5 mm"), "source": "drawing",
                                "evidence": format!("geometry.measure face:{k}: 2.{i} mm"),
                                "state": "satisfied", "faces": [format!("face:{k}")]})
                })
                .collect();
            for disposition in ["hold", "release"] {
                c.ok(
                    "remember_decision",
                    json!({"artifact": art(), "subject": format!("wall check {i}"),
                           "disposition": disposition, "summary": long(i, 12), "basis": basis}),
                );
            }
        }
        for suffix in ["", "/report"] {
            let uri = format!("review://revisions/{REV_A}{suffix}");
            let resp = c.request("resources/read", json!({"uri": uri}));
            let bytes = line_bytes(&resp);
            let text = resp["result"]["contents"][0]["text"].as_str().unwrap();
            println!("{n} decisions, {uri}: {bytes} bytes");
            assert!(bytes <= BOUND, "{uri}: {bytes}");
            let cut = if suffix.is_empty() {
                let v: Value = serde_json::from_str(text).unwrap();
                v["omitted"]["decisions"].as_u64().unwrap() > 0
            } else {
                text.contains("more not shown")
            };
            if !cut {
                continue;
            }
            assert!(
                bytes >= BOUND * 3 / 4,
                "{n} decisions, {uri}: only {bytes} of {BOUND} bytes used"
            );
        }
    }
}

/// A page's summary told the model to "call again with next_cursor", an argument no tool
/// has (a call with `next_cursor` is refused: "Additional properties are not allowed"): it
/// names the argument, `cursor`, and what to put in it, and following it pages on.
#[test]
fn a_page_summary_names_the_cursor_argument() {
    let mut c = Client::memory(ERAS[2]);
    for i in 0..2 {
        c.ok(
            "remember",
            json!({"artifact": art(), "name": format!("f{i}"), "entity_ids": []}),
        );
        c.ok(
            "remember_decision",
            json!({"artifact": art(), "subject": format!("s{i}"), "disposition": "hold",
                   "basis": [{"requirement": "r", "source": "drawing", "state": "satisfied"}]}),
        );
    }
    for tool in ["recall", "recall_decisions", "review_history"] {
        let args = json!({"artifact": art(), "limit": 1});
        let resp = c.call(tool, args.clone());
        let line = resp["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            line.ends_with("more follow: call again with cursor set to next_cursor."),
            "{tool}: {line}"
        );
        let mut next = args;
        next["cursor"] = resp["result"]["structuredContent"]["next_cursor"].clone();
        c.ok(tool, next);
    }
}

/// `show_review` of a revision whose review was carried on counted its open questions
/// ("36 open questions") and said nothing of the carry in its line, though verdicts are
/// refused there and the work goes on at the later revision: a model given the line set
/// out to settle the old revision's questions. The line names the revision it went on to.
#[test]
fn show_review_of_a_revision_carried_on_says_where_its_review_goes_on() {
    let mut c = Client::memory(ERAS[1]);
    c.ok(
        "remember_decision",
        json!({"artifact": art(), "subject": "bore", "disposition": "hold",
               "basis": [{"requirement": "r", "source": "drawing", "state": "unresolved",
                          "question": "H7 or H8?"}]}),
    );
    let line = |c: &mut Client| {
        let resp = c.call("show_review", json!({"artifact": art()}));
        resp["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(!line(&mut c).contains("Superseded"));
    c.ok(
        "carry_forward",
        json!({"from": art(), "to": art_uri(REV_B, URI), "map": []}),
    );
    let text = line(&mut c);
    assert!(
        text.contains(&format!(
            "Superseded by revision {REV_B} (carry_forward): its review goes on there."
        )),
        "{text}"
    );
}

/// A revision can be carried on in part: the same bytes under two files, one carried on, or
/// an item recorded there after the carry. Its line said "Superseded by revision …: its
/// review goes on there" of the whole revision, and a model left the rest (its open
/// questions, where verdicts are still given) unreviewed. The line now says what went on.
#[test]
fn show_review_of_a_revision_carried_on_in_part_says_so() {
    let mut c = Client::memory(ERAS[1]);
    for file in ["/w/x.step", "/w/y.step"] {
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(REV_A, file), "subject": "bore", "disposition": "hold",
                   "basis": [{"requirement": "r", "source": "drawing", "state": "unresolved",
                              "question": "H7 or H8?"}]}),
        );
    }
    c.ok(
        "carry_forward",
        json!({"from": art_uri(REV_A, "/w/x.step"), "to": art_uri(REV_B, "/w/x.step"), "map": []}),
    );
    for detail in ["summary", "full"] {
        let resp = c.call(
            "show_review",
            json!({"artifact": art_uri(REV_A, "/w/y.step"), "detail": detail}),
        );
        let text = resp["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(&format!(
                "Carried on in part to revision {REV_B} (carry_forward): what was carried goes on there, the rest is reviewed here."
            )) && !text.contains("Superseded by"),
            "{text}"
        );
    }
}

/// A revision many revisions were carried to, each carry's `change` of control characters
/// (each escaped to six bytes, seven in the text copy): `show_review` listed up to ten
/// `supersedes` entries, 200 characters of change each, uncounted by the summary's budget,
/// so its answer was 53 KB, and at full detail the bound had no room left for any decision:
/// each was cut to a bare `{"truncated"}` and the answer failed its own output schema.
#[test]
fn show_review_of_a_revision_many_were_carried_to_stays_in_the_bound() {
    for era in ERAS {
        let mut c = Client::memory(era);
        for k in 0..12 {
            let file = format!("/w/x{k}.step");
            let from = art_uri(&format!("sha256:{k:064x}"), &file);
            c.ok(
                "remember_decision",
                json!({"artifact": from, "subject": format!("s{k}"), "disposition": "hold",
                       "basis": [{"requirement": "r", "source": "drawing", "state": "satisfied"}]}),
            );
            c.ok(
                "carry_forward",
                json!({"from": from, "to": art_uri(REV_B, &file), "map": [],
                       "change": "\u{1}".repeat(1000)}),
            );
        }
        for i in 0..200 {
            c.ok(
                "remember_decision",
                json!({"artifact": art_uri(REV_B, "/w/x0.step"), "subject": format!("t{i}"),
                       "disposition": "hold",
                       "basis": [{"requirement": "r", "source": "drawing", "state": "unresolved",
                                  "question": "q?"}]}),
            );
        }
        for detail in ["summary", "full"] {
            let resp = c.call(
                "show_review",
                json!({"artifact": art_uri(REV_B, "/w/x0.step"), "detail": detail}),
            );
            let bytes = line_bytes(&resp);
            assert!(bytes <= BOUND, "{era:?} {detail}: {bytes} bytes");
            let sc = &resp["result"]["structuredContent"];
            assert!(
                sc["decisions"]
                    .as_array()
                    .is_some_and(|d| !d.is_empty() && d.iter().all(|d| d["id"].is_string())),
                "{era:?} {detail}: {resp}"
            );
        }
    }
}
