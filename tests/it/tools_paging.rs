//! Keyset pagination of `recall` and `recall_decisions`: following `next_cursor` returns
//! every unchanged match exactly once and nothing twice, while records are created,
//! replaced and deleted between pages.

// Helpers outside #[test] functions may panic too: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};

use crate::support::inproc::{Client, ERAS, Era, REV_A, REV_B, art};
use serde_json::{Value, json};

/// Pages through `tool` with `filters`, calling `between(page_number, client)` after each
/// page. Returns the ids in the order served.
fn page_all(
    c: &mut Client,
    tool: &str,
    key: &str,
    filters: Value,
    limit: u64,
    mut between: impl FnMut(usize, &mut Client),
) -> Vec<String> {
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for page_no in 0.. {
        assert!(page_no < 1000, "paging does not end");
        let mut args = filters.clone();
        args["limit"] = json!(limit);
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let page = c.ok(tool, args);
        let items = page[key].as_array().expect("items");
        assert!(items.len() <= usize::try_from(limit).unwrap());
        seen.extend(items.iter().map(|r| r["id"].as_str().unwrap().to_string()));
        match page.get("next_cursor") {
            Some(Value::String(next)) => {
                assert!(!items.is_empty());
                cursor = Some(next.clone());
            }
            None => break,
            Some(other) => panic!("next_cursor must be a string or absent, got {other}"),
        }
        between(page_no, c);
    }
    seen
}

/// Every id of `originals` not in `changed` appears exactly once; no id appears twice.
fn assert_exactly_once(seen: &[String], originals: &[String], changed: &HashSet<String>) {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for id in seen {
        *count.entry(id).or_default() += 1;
    }
    let twice: Vec<_> = count.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "served twice: {twice:?}");
    let missing: Vec<_> = originals
        .iter()
        .filter(|id| !changed.contains(*id) && !count.contains_key(id.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "unchanged but never served: {missing:?}"
    );
}

/// 250 named features, every other one with "alpha" in its name, all with "alpha" in the
/// note and the tag "bulk". Returns the ids in creation order.
fn seed(c: &mut Client) -> Vec<String> {
    (0..250)
        .map(|i| {
            let name = if i % 2 == 0 {
                format!("alpha {i}")
            } else {
                format!("rec {i}")
            };
            let out = c.ok(
                "remember",
                json!({"artifact": art(REV_A), "entity_ids": [format!("face:{i}"), "face:all"],
                       "name": name, "note": "alpha common", "tags": ["bulk"]}),
            );
            out["record"]["id"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Between pages: three new matching records, two replacements (one already served, one
/// not yet: both leave the "unchanged" set), one deletion.
fn churn<'a>(
    ids: &'a [String],
    changed: &'a mut HashSet<String>,
) -> impl FnMut(usize, &mut Client) + 'a {
    move |page_no, c| {
        for k in 0..3 {
            c.ok(
                "remember",
                json!({"artifact": art(REV_A), "entity_ids": ["face:all"],
                       "name": format!("new alpha {page_no}-{k}"), "note": "alpha",
                       "tags": ["bulk"]}),
            );
        }
        for idx in [page_no * 7 % 250, 249 - (page_no * 11 % 250)] {
            let i = idx;
            let name = if i % 2 == 0 {
                format!("alpha {i}")
            } else {
                format!("rec {i}")
            };
            // A replacement also flips the text tier: the new name always has "alpha".
            let out = c.ok(
                "remember",
                json!({"artifact": art(REV_A), "entity_ids": [format!("face:{i}"), "face:all"],
                       "name": name, "note": format!("alpha replaced {page_no}"),
                       "tags": ["bulk"]}),
            );
            if out["replaced"] == json!(true) {
                changed.insert(ids[i].clone());
            }
        }
        let victim = (page_no * 13 + 5) % 250;
        let name = if victim % 2 == 0 {
            format!("alpha {victim}")
        } else {
            format!("rec {victim}")
        };
        c.ok("forget", json!({"artifact": art(REV_A), "name": name}));
        changed.insert(ids[victim].clone());
    }
}

#[test]
fn recall_250_records_pages_of_25_without_writes_complete_and_ordered() {
    let mut c = Client::memory(Era::V2025_11_25);
    let ids = seed(&mut c);
    let seen = page_all(&mut c, "recall", "records", json!({}), 25, |_, _| {});
    let mut newest_first = ids.clone();
    newest_first.reverse();
    assert_eq!(seen, newest_first);
}

#[test]
fn recall_pages_with_writes_between_serve_unchanged_records_exactly_once() {
    for (era, filters) in [
        (Era::V2025_11_25, json!({})),
        (Era::V2026_07_28, json!({"tags": ["bulk"]})),
        (
            Era::V2025_06_18,
            json!({"artifact": art(REV_A), "entity_id": "face:all"}),
        ),
        (Era::V2025_11_25, json!({"text": "alpha"})),
        (
            Era::V2026_07_28,
            json!({"text": "alpha", "tags": ["bulk"], "kind": "feature"}),
        ),
        (
            Era::V2025_11_25,
            json!({"artifact": art(REV_A), "tags": ["bulk"]}),
        ),
        (
            Era::V2026_07_28,
            json!({"artifact": art(REV_A), "entity_id": "face:all", "text": "alpha"}),
        ),
    ] {
        let mut c = Client::memory(era);
        let ids = seed(&mut c);
        let mut changed = HashSet::new();
        let seen = page_all(
            &mut c,
            "recall",
            "records",
            filters.clone(),
            25,
            churn(&ids, &mut changed),
        );
        assert!(seen.len() >= 200, "{filters}: {}", seen.len());
        assert_exactly_once(&seen, &ids, &changed);
    }
}

#[test]
fn recall_text_pages_name_matches_before_note_matches() {
    let mut c = Client::memory(Era::V2025_11_25);
    seed(&mut c);
    let mut tiers = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"text": "alpha", "limit": 30});
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let page = c.ok("recall", args);
        for r in page["records"].as_array().unwrap() {
            tiers.push(r["name"].as_str().unwrap().starts_with("alpha"));
        }
        match page.get("next_cursor") {
            Some(v) => cursor = Some(v.as_str().unwrap().to_string()),
            None => break,
        }
    }
    assert_eq!(tiers.len(), 250);
    assert!(tiers[..125].iter().all(|t| *t) && tiers[125..].iter().all(|t| !*t));
}

#[test]
fn recall_decisions_pages_with_writes_between_serve_unchanged_exactly_once() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let mut ids = Vec::new();
        for i in 0..60 {
            let out = c.ok(
                "remember_decision",
                json!({"artifact": art(REV_A), "subject": format!("subject {i}"),
                       "disposition": "hold", "basis": [{"requirement": "bore", "source": "drawing",
                       "state": "unresolved", "question": "which reamer", "faces": ["face:1"]}]}),
            );
            ids.push(out["decision"]["id"].as_str().unwrap().to_string());
        }
        let mut changed = HashSet::new();
        for filters in [
            json!({}),
            json!({"state": "unresolved"}),
            json!({"artifact": art(REV_A), "entity_id": "face:1"}),
            json!({"text": "bore subject"}),
        ] {
            let seen = page_all(
                &mut c,
                "recall_decisions",
                "decisions",
                filters,
                7,
                |p, c| {
                    let i = (p * 7) % 60;
                    let out = c.ok(
                        "remember_decision",
                        json!({"artifact": art(REV_A), "subject": format!("subject {i}"),
                           "disposition": "release", "basis": [{"requirement": "bore",
                           "source": "drawing", "state": "unresolved", "question": "q",
                           "faces": ["face:1"]}]}),
                    );
                    assert_eq!(out["replaced"], true);
                    changed.insert(ids[i].clone());
                    c.ok(
                        "remember_decision",
                        json!({"artifact": art(REV_B), "subject": format!("subject {i}"),
                           "disposition": "hold", "basis": []}),
                    );
                },
            );
            assert_exactly_once(&seen, &ids, &changed);
        }
    }
}

#[test]
fn recall_default_limit_is_50_and_last_page_has_no_cursor() {
    let mut c = Client::memory(Era::V2025_11_25);
    for i in 0..51 {
        c.ok(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": [], "note": format!("n{i}")}),
        );
    }
    let first = c.ok("recall", json!({}));
    assert_eq!(first["records"].as_array().unwrap().len(), 50);
    let cursor = first["next_cursor"].as_str().unwrap();
    let last = c.ok("recall", json!({"cursor": cursor}));
    assert_eq!(last["records"].as_array().unwrap().len(), 1);
    assert!(last.get("next_cursor").is_none());
    let exact = c.ok("recall", json!({"limit": 51}));
    assert!(exact.get("next_cursor").is_none());
}

/// Pages through `tool` like [`page_all`], returning the items served, each checked by
/// `check(item)` when its page arrives.
fn page_items(
    c: &mut Client,
    tool: &str,
    key: &str,
    filters: &Value,
    limit: u64,
    mut check: impl FnMut(&Value),
    mut between: impl FnMut(usize, &mut Client),
) -> Vec<String> {
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for page_no in 0.. {
        assert!(page_no < 1000, "paging does not end");
        let mut args = filters.clone();
        args["limit"] = json!(limit);
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let page = c.ok(tool, args);
        for item in page[key].as_array().expect("items") {
            check(item);
            seen.push(item["id"].as_str().unwrap().to_string());
        }
        match page.get("next_cursor") {
            Some(Value::String(next)) => cursor = Some(next.clone()),
            _ => break,
        }
        between(page_no, c);
    }
    seen
}

/// How often each id was served.
fn counts(seen: &[String]) -> HashMap<&str, usize> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for id in seen {
        *count.entry(id).or_default() += 1;
    }
    count
}

const URI: &str = "/work/paging.step";

/// Regression (issue 12, item 1): a named feature replaced between two pages moved above the
/// first page's snapshot and was served zero times. Now every record that matches throughout
/// is served exactly once, with its content as of the page that served it; records created
/// after the first page and deleted ones at most once. Every filter, replacements of rows
/// already served and not yet served.
#[test]
fn recall_replaced_between_pages_served_exactly_once_for_every_filter() {
    let uri = crate::support::inproc::art_uri(REV_A, URI);
    for filters in [
        json!({}),
        json!({"artifact": uri}),
        json!({"artifact": art(REV_A)}),
        json!({"artifact": uri, "entity_id": "face:all"}),
        json!({"text": "alpha"}),
        json!({"tags": ["bulk"]}),
        json!({"tags": ["bulk", "more"]}),
        json!({"kind": "feature"}),
        json!({"artifact": uri, "entity_id": "face:all", "text": "alpha", "tags": ["bulk"], "kind": "feature"}),
    ] {
        let mut c = Client::memory(Era::V2025_11_25);
        let remember = |c: &mut Client, i: usize, note: &str| -> String {
            // Every name holds "alpha" for half of them, the note always: both text tiers.
            let name = if i.is_multiple_of(2) {
                format!("alpha {i}")
            } else {
                format!("rec {i}")
            };
            let out = c.ok(
                "remember",
                json!({"artifact": uri, "entity_ids": [format!("face:{i}"), "face:all"],
                       "name": name, "note": note, "tags": ["bulk", "more"]}),
            );
            out["record"]["id"].as_str().unwrap().to_string()
        };
        let ids: Vec<String> = (0..120)
            .map(|i| remember(&mut c, i, "alpha first"))
            .collect();
        let notes: std::cell::RefCell<HashMap<String, String>> = std::cell::RefCell::new(
            ids.iter()
                .map(|id| (id.clone(), "alpha first".to_string()))
                .collect(),
        );
        let mut deleted = HashSet::new();
        let mut created = HashSet::new();
        let seen = page_items(
            &mut c,
            "recall",
            "records",
            &filters,
            11,
            |item| {
                let id = item["id"].as_str().unwrap();
                if let Some(want) = notes.borrow().get(id) {
                    assert_eq!(
                        item["note"].as_str(),
                        Some(want.as_str()),
                        "{filters}: {id}"
                    );
                }
            },
            |page_no, c| {
                // One row already served (from the top) and one not yet (from the bottom).
                for i in [page_no * 5 % 120, 119 - (page_no * 3 % 120)] {
                    if deleted.contains(&ids[i]) {
                        continue;
                    }
                    let note = format!("alpha replaced after page {page_no}");
                    let id = remember(c, i, &note);
                    assert_eq!(id, ids[i]);
                    notes.borrow_mut().insert(id, note);
                }
                let new_id = remember(c, 1000 + page_no, "alpha new");
                created.insert(new_id);
                let victim = 7 + page_no * 13 % 100;
                let name = if victim % 2 == 0 {
                    format!("alpha {victim}")
                } else {
                    format!("rec {victim}")
                };
                let out = c.ok("forget", json!({"artifact": uri, "name": name}));
                if out["deleted"] == json!(1) {
                    deleted.insert(ids[victim].clone());
                }
            },
        );
        let count = counts(&seen);
        for id in &ids {
            let n = count.get(id.as_str()).copied().unwrap_or(0);
            if deleted.contains(id) {
                assert!(n <= 1, "{filters}: deleted {id} served {n} times");
            } else {
                assert_eq!(n, 1, "{filters}: {id} served {n} times");
            }
        }
        for id in &created {
            assert!(
                count.get(id.as_str()).copied().unwrap_or(0) <= 1,
                "{filters}: new {id}"
            );
        }
        assert!(!deleted.is_empty());
    }
}

/// Regression (issue 12, item 1), for decisions: a decision replaced between two pages is
/// served exactly once, with every filter.
#[test]
fn recall_decisions_replaced_between_pages_served_exactly_once_for_every_filter() {
    let uri = crate::support::inproc::art_uri(REV_A, URI);
    for filters in [
        json!({}),
        json!({"artifact": uri}),
        json!({"artifact": art(REV_A)}),
        json!({"subject": "subject 30"}),
        json!({"artifact": uri, "entity_id": "face:1"}),
        json!({"text": "bore"}),
        json!({"text": "subject"}),
        json!({"state": "unresolved"}),
        json!({"artifact": uri, "entity_id": "face:1", "text": "bore", "state": "unresolved"}),
    ] {
        let mut c = Client::memory(Era::V2026_07_28);
        let remember = |c: &mut Client, i: usize, disposition: &str| -> String {
            let out = c.ok(
                "remember_decision",
                json!({"artifact": uri, "subject": format!("subject {i}"),
                       "disposition": disposition, "basis": [{"requirement": "bore",
                       "source": "drawing", "state": "unresolved", "question": "which reamer",
                       "faces": ["face:1"]}]}),
            );
            out["decision"]["id"].as_str().unwrap().to_string()
        };
        let ids: Vec<String> = (0..60).map(|i| remember(&mut c, i, "hold")).collect();
        let dispositions: std::cell::RefCell<HashMap<String, String>> = std::cell::RefCell::new(
            ids.iter()
                .map(|id| (id.clone(), "hold".to_string()))
                .collect(),
        );
        let mut deleted = HashSet::new();
        let seen = page_items(
            &mut c,
            "recall_decisions",
            "decisions",
            &filters,
            7,
            |item| {
                let id = item["id"].as_str().unwrap();
                if let Some(want) = dispositions.borrow().get(id) {
                    assert_eq!(item["disposition"].as_str(), Some(want.as_str()), "{id}");
                }
            },
            |page_no, c| {
                for i in [page_no * 4 % 60, 59 - (page_no * 3 % 60), 30] {
                    if deleted.contains(&ids[i]) {
                        continue;
                    }
                    let disposition = format!("release {page_no}");
                    let id = remember(c, i, &disposition);
                    assert_eq!(id, ids[i]);
                    dispositions.borrow_mut().insert(id, disposition);
                }
                remember(c, 100 + page_no, "new");
                let victim = 5 + page_no * 11 % 50;
                if victim != 30 {
                    let out = c.ok(
                        "forget",
                        json!({"artifact": uri, "subject": format!("subject {victim}")}),
                    );
                    if out["deleted"] == json!(1) {
                        deleted.insert(ids[victim].clone());
                    }
                }
            },
        );
        let count = counts(&seen);
        let expected: Vec<&String> = if filters.get("subject").is_some() {
            vec![&ids[30]]
        } else {
            ids.iter().collect()
        };
        for id in expected {
            let n = count.get(id.as_str()).copied().unwrap_or(0);
            if deleted.contains(id) {
                assert!(n <= 1, "{filters}: deleted {id} served {n} times");
            } else {
                assert_eq!(n, 1, "{filters}: {id} served {n} times");
            }
        }
        assert!(count.values().all(|n| *n == 1), "{filters}: served twice");
    }
}

/// Regression (issue 12, item 2): a cursor minted by another database was accepted and served
/// part of a foreign result. It is now refused there exactly like an edited cursor, for both
/// recalls, while the database that issued it still accepts it.
#[test]
fn recall_cursor_from_another_database_refused_like_an_edited_one() {
    let mut one = Client::memory(Era::V2025_11_25);
    let mut other = Client::memory(Era::V2025_11_25);
    for c in [&mut one, &mut other] {
        for i in 0..5 {
            c.ok(
                "remember",
                json!({"artifact": art(REV_A), "entity_ids": [], "name": format!("n{i}")}),
            );
            c.ok(
                "remember_decision",
                json!({"artifact": art(REV_A), "subject": format!("s{i}"),
                       "disposition": "hold", "basis": []}),
            );
        }
    }
    for (tool, key) in [("recall", "records"), ("recall_decisions", "decisions")] {
        let first = one.ok(tool, json!({"limit": 2}));
        let cursor = first["next_cursor"].as_str().unwrap().to_string();
        let edited = {
            let mut b = cursor.clone().into_bytes();
            let last = b.len() - 1;
            b[last] = if b[last] == b'0' { b'1' } else { b'0' };
            String::from_utf8(b).unwrap()
        };
        let refused_edit = one.refused(tool, json!({"limit": 2, "cursor": edited}));
        let refused_foreign = other.refused(tool, json!({"limit": 2, "cursor": cursor}));
        assert!(
            refused_foreign.starts_with("Invalid cursor"),
            "{refused_foreign}"
        );
        assert_eq!(refused_foreign, refused_edit);
        let second = one.ok(tool, json!({"limit": 2, "cursor": cursor}));
        assert_eq!(second[key].as_array().unwrap().len(), 2);
    }
}
