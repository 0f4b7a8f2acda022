//! Answers are bounded in bytes like requests: a recall page stops early when the next item
//! would take the answer line past the line limit, a single large item is served alone, and
//! an item too large for any answer is refused when it is written.

// Helpers outside #[test] functions may panic too: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;

use crate::support::inproc::{Client, Era, REV_A, art};
use review_mcp::framing::MAX_LINE_BYTES;
use serde_json::{Value, json};

/// 10,000 entity ids of 256 characters, each made of `unit` repeated (after a distinct
/// prefix), the most `remember` accepts.
fn big_ids(unit: &str) -> Vec<String> {
    (0..10_000)
        .map(|i| {
            let mut id = format!("{i:05}");
            while id.chars().count() < 256 {
                id.push_str(unit);
            }
            id.chars().take(256).collect()
        })
        .collect()
}

/// Pages through `tool`, checking every answer line against the line limit. Returns the ids
/// served, page by page.
fn pages(c: &mut Client, tool: &str, key: &str, limit: u64) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"limit": limit});
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let resp = c.call(tool, args);
        let line = serde_json::to_string(&resp).unwrap();
        assert!(
            line.len() <= MAX_LINE_BYTES,
            "{tool}: an answer line of {} bytes",
            line.len()
        );
        let result = &resp["result"];
        assert!(result.get("isError").is_none(), "{tool}: {result}");
        let items = result["structuredContent"][key].as_array().unwrap();
        // The text copy is still the whole JSON.
        let text: Value =
            serde_json::from_str(result["content"][1]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structuredContent"]);
        out.push(
            items
                .iter()
                .map(|r| r["id"].as_str().unwrap().to_string())
                .collect(),
        );
        match result["structuredContent"].get("next_cursor") {
            Some(Value::String(next)) => cursor = Some(next.clone()),
            _ => break,
        }
    }
    out
}

fn each_once(pages: &[Vec<String>], ids: &[String]) {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for id in pages.iter().flatten() {
        *count.entry(id).or_default() += 1;
    }
    for id in ids {
        assert_eq!(count.get(id.as_str()), Some(&1), "{id}");
    }
    assert_eq!(count.len(), ids.len());
}

/// Regression (issue 12, item 8): ten accepted large records made one recall answer a line
/// of hundreds of MiB. A page now stops early in bytes, every answer line stays within the
/// line limit, and every record is still served exactly once.
#[test]
fn recall_of_large_records_pages_in_bytes_within_the_line_limit() {
    let mut c = Client::memory(Era::V2025_11_25);
    let ids_of = big_ids("x");
    let mut ids = Vec::new();
    for i in 0..6 {
        let out = c.ok(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": ids_of, "name": format!("big {i}")}),
        );
        ids.push(out["record"]["id"].as_str().unwrap().to_string());
    }
    let served = pages(&mut c, "recall", "records", 200);
    assert!(served.len() >= 2, "one page of {} records", served[0].len());
    assert!(served.iter().all(|p| !p.is_empty()));
    each_once(&served, &ids);
}

/// Records whose escaped copy nearly doubles them (quotes and backslashes), each near the
/// largest an answer holds, are served alone on their pages, once, within the line limit.
#[test]
fn recall_records_too_big_to_share_a_page_are_served_alone_once() {
    let mut c = Client::memory(Era::V2026_07_28);
    let mut ids = Vec::new();
    for name in ["big", "bigger"] {
        let out = c.ok(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": big_ids("\"\\"), "name": name}),
        );
        ids.push(out["record"]["id"].as_str().unwrap().to_string());
    }
    let small = c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": [], "name": "small"}),
    );
    ids.push(small["record"]["id"].as_str().unwrap().to_string());
    let served = pages(&mut c, "recall", "records", 50);
    // Newest first, each on a page of its own: a page stops at the answer bound (32 KB),
    // and each big record alone passes it.
    assert_eq!(
        served,
        [
            vec![ids[2].clone()],
            vec![ids[1].clone()],
            vec![ids[0].clone()]
        ]
    );
}

/// A record that no answer line could hold (control characters grow sixfold when escaped,
/// and the answer carries them twice) is refused when written, and nothing is written.
#[test]
fn remember_record_too_big_for_any_answer_refused_and_nothing_written() {
    let mut c = Client::memory(Era::V2025_11_25);
    let text = c.refused(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": big_ids("\u{1}"), "name": "huge"}),
    );
    assert!(text.contains("fit in one answer line"), "{text}");
    let all = c.ok("recall", json!({}));
    assert_eq!(all["records"], json!([]));
}

/// A basis no answer line could hold: 40 items of 65,000 control characters twice, which
/// grow sixfold when escaped.
fn too_big_basis() -> Vec<Value> {
    let long = "\u{1}".repeat(65_000);
    (0..40)
        .map(|i| {
            json!({"requirement": format!("{i} {long}"), "source": "drawing",
                   "evidence": long, "state": "satisfied"})
        })
        .collect()
}

/// A decision no answer line could hold is refused before its write commits: nothing is
/// stored, and a smaller one is then saved as usual.
#[test]
fn remember_decision_too_big_for_any_answer_refused_and_nothing_written() {
    let mut c = Client::memory(Era::V2025_11_25);
    let basis = too_big_basis();
    let text = c.refused(
        "remember_decision",
        json!({"artifact": art(REV_A), "subject": "huge", "disposition": "hold", "basis": basis}),
    );
    assert!(text.contains("decision \"huge\""), "{text}");
    assert!(text.contains("fit in one answer line"), "{text}");
    let all = c.ok("recall_decisions", json!({}));
    assert_eq!(all["decisions"], json!([]));
    c.ok(
        "remember_decision",
        json!({"artifact": art(REV_A), "subject": "huge", "disposition": "hold",
               "basis": [basis[0].clone()]}),
    );
}

/// Decisions page in bytes the same way.
#[test]
fn recall_decisions_of_large_decisions_pages_in_bytes_within_the_line_limit() {
    let mut c = Client::memory(Era::V2025_06_18);
    let long = "r".repeat(65_000);
    let basis: Vec<Value> = (0..40)
        .map(|i| {
            json!({"requirement": format!("{i} {long}"), "source": "drawing",
                   "evidence": long, "state": "satisfied"})
        })
        .collect();
    let mut ids = Vec::new();
    for i in 0..3 {
        let out = c.ok(
            "remember_decision",
            json!({"artifact": art(REV_A), "subject": format!("big {i}"),
                   "disposition": "hold", "basis": basis}),
        );
        ids.push(out["decision"]["id"].as_str().unwrap().to_string());
    }
    // In summary form (the default) the three share one page; at full detail each fills a
    // page of its own (tests/sizing_bounds.rs follows such pages).
    let served = pages(&mut c, "recall_decisions", "decisions", 200);
    assert_eq!(served.len(), 1, "{served:?}");
    each_once(&served, &ids);
}

/// Regression: the refusal of a decision too big for any answer named its subject in Rust's
/// debug form (`{:?}`): a Hindi subject's virama came out as `\u{94d}` and a Hangul filler (a
/// character drawn as a blank, `\u{3164}` in every other answer) raw, where every answer
/// quotes a subject ([`review_mcp::text::quoted`]).
#[test]
fn a_decision_too_big_for_any_answer_is_named_as_every_answer_quotes_it() {
    let mut c = Client::memory(Era::V2025_11_25);
    let subject = "bore \u{915}\u{94d}\u{937}\u{3164}";
    let basis = too_big_basis();
    let text = c.refused(
        "remember_decision",
        json!({"artifact": art(REV_A), "subject": subject, "disposition": "hold", "basis": basis}),
    );
    let named = format!(
        "decision {} would take",
        review_mcp::text::quoted(subject, 200)
    );
    assert!(text.contains(&named), "{text}");
    assert!(!text.contains('\u{3164}'), "{text}");
}
