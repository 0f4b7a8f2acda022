//! A basis item none of whose entity ids a carry could take (all left out of the map) has no
//! id at the new revision, and is not about the whole part. Found driving a bracket's review:
//! once the engineer judged such an item (the form, the card, the terminal, or a sync that
//! takes a verdict in), it lost its carried marker and the ids with it, and every reader said
//! "whole part": the report's Faces column, the Form 3's Reference Location (a requirement
//! about two holes claimed the whole part), the card and the JSON. The judged item now keeps
//! the ids it lost (`notCarried`, with their revision) until it is stated again.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::file_events::{run_cli as cli, succeeded as ok};
use crate::support::inproc::{Client, Era, art_uri, rev, ui_caps};
use review_mcp::store::Store;

const FILE: &str = "/work/bracket.step";

fn at(n: usize) -> Value {
    art_uri(&rev(n), FILE)
}

/// "sha256:000000000000…": the revision as the report and the card shorten it.
fn short(n: usize) -> String {
    format!("{}…", &rev(n)[..19])
}

/// Revision 1's "holes" decision: item 1 about the two holes (face:10, face:11), item 2 about
/// the plate (face:2); carried to revision 2 with only face:2 in the map.
fn carried_without_the_holes(c: &mut Client) {
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "holes", "disposition": "hold", "basis": [
            {"requirement": "Two holes Ø6.6 on 40 mm centres", "source": "drawing",
             "evidence": "measured 40.02", "state": "satisfied", "faces": ["face:10", "face:11"]},
            {"requirement": "Base plate 5.0 mm", "source": "drawing", "state": "satisfied",
             "faces": ["face:2"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "map": [{"from": "face:2", "to": "face:2"}]}),
    );
}

/// The host's form asking about item `index` of "holes" at revision `n` (2026-07-28:
/// `input_required`): the call's arguments and the sealed state its answer goes back with.
pub(crate) fn form_asked(c: &mut Client, n: usize, index: usize) -> (Value, Value) {
    let args = json!({"artifact": at(n), "subject": "holes", "items": [index]});
    let asked = c.request_declaring(
        "tools/call",
        json!({"name": "request_verdicts", "arguments": args.clone()}),
        form(),
    );
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    (args, asked["result"]["requestState"].clone())
}

/// The retry answering [`form_asked`]'s form: `judgement` on item `index`.
pub(crate) fn form_answered(
    c: &mut Client,
    (args, state): (Value, Value),
    index: usize,
    judgement: &str,
) -> Value {
    let answer =
        json!({"action": "accept", "content": {format!("item_{index:03}_judgement"): judgement}});
    c.request_declaring(
        "tools/call",
        json!({"name": "request_verdicts", "arguments": args,
               "inputResponses": {"verdicts": answer}, "requestState": state}),
        form(),
    )
}

fn form() -> Value {
    json!({"elicitation": {"form": {}}})
}

/// The engineer accepts item `index` of "holes" at revision `n` through the host's form.
pub(crate) fn by_form(c: &mut Client, n: usize, index: usize) {
    let asked = form_asked(c, n, index);
    let done = form_answered(c, asked, index, "accepted");
    assert_eq!(
        done["result"]["structuredContent"]["recorded"],
        json!([index]),
        "{done}"
    );
}

/// The engineer accepts item `index` of the decision `show_review` shows at revision `n`,
/// clicked in the review card.
fn in_card(c: &mut Client, n: usize, index: usize) {
    let shown = c.call("show_review", json!({"artifact": at(n), "detail": "full"}));
    let d = &shown["result"]["structuredContent"]["decisions"][0];
    let id = d["id"].as_str().unwrap();
    let proof = shown["result"]["_meta"]["review-mcp/card"]["proofs"][id].clone();
    c.ok(
        "record_verdict",
        json!({"decision_id": id, "index": index, "item_digest": d["basis"][index]["digest"],
               "judgement": "accepted", "card_proof": proof}),
    );
}

fn holes_item(c: &mut Client, n: usize) -> Value {
    let got = c.ok(
        "recall_decisions",
        json!({"artifact": at(n), "subject": "holes"}),
    );
    got["decisions"][0]["basis"][0].clone()
}

fn report_row(c: &mut Client, n: usize) -> String {
    let report = c.read_text(&format!("review://revisions/{}/report", rev(n)));
    report
        .lines()
        .find(|l| l.starts_with("| 1 |"))
        .unwrap_or_else(|| panic!("{report}"))
        .to_string()
}

fn form3_row(c: &mut Client, n: usize) -> String {
    let csv = c.read_text(&format!("review://revisions/{}/form3.csv", rev(n)));
    csv.lines()
        .find(|l| l.contains("Two holes"))
        .unwrap_or_else(|| panic!("{csv}"))
        .to_string()
}

/// What every reader of revision 2 must say of the judged holes item: it lost face:10 and
/// face:11 of revision 1, never that it is about the whole part.
fn says_the_lost_ids_at_revision_2(c: &mut Client) {
    let row = report_row(c, 2);
    assert!(
        row.contains(&format!(
            "| none at this revision (face:10, face:11 of revision {} not carried) |",
            short(1)
        )),
        "{row}"
    );
    assert!(!row.contains("whole part"), "{row}");
    let row = form3_row(c, 2);
    assert!(
        row.contains(&format!(
            ",\"none at this revision (face:10, face:11 of revision {} not carried)\",",
            rev(1)
        )),
        "{row}"
    );
    assert!(!row.contains("whole part"), "{row}");
    let item = holes_item(c, 2);
    assert!(item["verdict"]["via"].is_string(), "judged: {item}");
    assert!(item.get("carried").is_none(), "{item}");
    assert_eq!(item["faces"], json!([]), "{item}");
    assert_eq!(
        item["notCarried"],
        json!({"ids": ["face:10", "face:11"], "of": rev(1)}),
        "{item}"
    );
}

#[test]
fn a_judged_item_whose_ids_were_not_carried_still_names_them_after_the_form() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), Era::V2026_07_28);
    carried_without_the_holes(&mut c);
    by_form(&mut c, 2, 0);
    says_the_lost_ids_at_revision_2(&mut c);
}

/// Asked about again by name (`request_verdicts` with `items`), the form names the ids too.
#[test]
fn the_form_asking_again_about_a_judged_item_names_the_ids_it_lost() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), Era::V2026_07_28);
    carried_without_the_holes(&mut c);
    by_form(&mut c, 2, 0);
    let asked = c.request_declaring(
        "tools/call",
        json!({"name": "request_verdicts",
               "arguments": {"artifact": at(2), "subject": "holes", "items": [0]}}),
        json!({"elicitation": {"form": {}}}),
    );
    let form = asked["result"]["inputRequests"]["verdicts"]["params"].to_string();
    assert!(
        form.contains(&format!(
            "faces: none at this revision (face:10, face:11 of revision {} not carried)",
            rev(1)
        )),
        "{form}"
    );
}

#[test]
fn a_judged_item_whose_ids_were_not_carried_still_names_them_after_the_card() {
    let mut c = Client::declaring(
        Store::open_in_memory().unwrap(),
        Era::V2026_07_28,
        ui_caps(),
    );
    carried_without_the_holes(&mut c);
    in_card(&mut c, 2, 0);
    says_the_lost_ids_at_revision_2(&mut c);
    // The card's own data names them too (its Faces cell reads `notCarried`).
    let shown = c.call("show_review", json!({"artifact": at(2), "detail": "full"}));
    let item = &shown["result"]["structuredContent"]["decisions"][0]["basis"][0];
    assert_eq!(
        item["notCarried"],
        json!({"ids": ["face:10", "face:11"], "of": rev(1)}),
        "{item}"
    );
}

/// The engineer's terminal (`review-mcp review`): the holes item, to re-verify, comes first.
#[test]
fn a_judged_item_whose_ids_were_not_carried_still_names_them_after_the_terminal() {
    let dir = TempDir::new("carry-lost-terminal").unwrap();
    let db = dir.join("r.db");
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    carried_without_the_holes(&mut c);
    let mut store = Store::open(&db).unwrap();
    let mut input = &b"a\n\n\n"[..];
    review_mcp::terminal::review(&mut store, &rev(2), &mut input, &mut Vec::new()).unwrap();
    assert_eq!(holes_item(&mut c, 2)["verdict"]["via"], "terminal");
    says_the_lost_ids_at_revision_2(&mut c);
}

/// Carried on to revision 3 (nothing changed, nothing unmapped): the judged item has no id
/// to map, so it was carried as a whole-part item, inherited. It is carried to re-verify,
/// naming the ids it lost (of revision 1), and judged again at 3 it keeps naming them.
#[test]
fn a_judged_item_carried_again_keeps_the_ids_it_lost() {
    let mut c = Client::declaring(
        Store::open_in_memory().unwrap(),
        Era::V2026_07_28,
        ui_caps(),
    );
    carried_without_the_holes(&mut c);
    in_card(&mut c, 2, 0);
    c.ok(
        "carry_forward",
        json!({"from": at(2), "to": at(3), "map": [{"from": "face:2", "to": "face:2"}]}),
    );
    let item = holes_item(&mut c, 3);
    assert_eq!(item["faces"], json!([]), "{item}");
    assert_eq!(item["carried"]["state"], "re-verify", "{item}");
    assert_eq!(item["carried"]["from"], rev(2), "{item}");
    assert_eq!(
        item["carried"]["unmapped"],
        json!(["face:10", "face:11"]),
        "{item}"
    );
    assert_eq!(item["carried"]["ids_of"], rev(1), "{item}");
    assert!(item.get("notCarried").is_none(), "{item}");
    // Carried on again, the ids are still revision 1's, not those of revision 2 (which the
    // row names as where the item was carried from): said, as once judged.
    let row = report_row(&mut c, 3);
    assert!(
        row.contains(&format!(
            "| none at this revision (face:10, face:11 of revision {} not carried) |",
            short(1)
        )),
        "{row}"
    );
    let row = form3_row(&mut c, 3);
    assert!(
        row.contains(&format!(
            ",\"none at this revision (face:10, face:11 of revision {} not carried)\",",
            rev(1)
        )),
        "{row}"
    );
    assert!(!row.contains("whole part"), "{row}");
    by_form(&mut c, 3, 0);
    let item = holes_item(&mut c, 3);
    assert_eq!(
        item["notCarried"],
        json!({"ids": ["face:10", "face:11"], "of": rev(1)}),
        "{item}"
    );
    let row = report_row(&mut c, 3);
    assert!(
        row.contains(&format!(
            "| none at this revision (face:10, face:11 of revision {} not carried) |",
            short(1)
        )),
        "{row}"
    );
}

/// Stated again (`remember_decision`): re-identified, it names its faces, or none.
#[test]
fn a_judged_item_stated_again_no_longer_names_the_ids_it_lost() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), Era::V2026_07_28);
    carried_without_the_holes(&mut c);
    by_form(&mut c, 2, 0);
    c.ok(
        "remember_decision",
        json!({"artifact": at(2), "subject": "holes", "disposition": "hold", "basis": [
            {"requirement": "Two holes Ø6.6 on 40 mm centres", "source": "drawing",
             "state": "satisfied", "faces": ["face:20", "face:21"]}]}),
    );
    let item = holes_item(&mut c, 2);
    assert!(item.get("notCarried").is_none(), "{item}");
    assert_eq!(item["faces"], json!(["face:20", "face:21"]), "{item}");
}

fn export(db: &Path) -> String {
    ok(cli(db, &["export"]).unwrap()).unwrap()
}

/// Export -> import into another database, and a sync through a folder into a third: the
/// judged item keeps the ids it lost in each, and the exports agree.
#[test]
fn a_judged_items_lost_ids_survive_export_import_and_sync() {
    let dir = TempDir::new("carry-lost-transfer").unwrap();
    let a = dir.join("a.db");
    {
        let mut c = Client::new(Store::open(&a).unwrap(), Era::V2026_07_28);
        carried_without_the_holes(&mut c);
        by_form(&mut c, 2, 0);
    }
    let first = export(&a);
    assert!(
        first.contains("\"notCarried\":{\"ids\":[\"face:10\",\"face:11\"]"),
        "{first}"
    );
    let file = dir.join("a.jsonl");
    std::fs::write(&file, &first).unwrap();
    let b = dir.join("b.db");
    ok(cli(&b, &["import", &file.to_string_lossy()]).unwrap()).unwrap();
    let mut c = Client::new(Store::open(&b).unwrap(), Era::V2026_07_28);
    says_the_lost_ids_at_revision_2(&mut c);
    assert_eq!(export(&b), first, "export -> import -> export");
    let folder = dir.join("review");
    ok(cli(&a, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
    let d = dir.join("d.db");
    ok(cli(&d, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
    let mut c = Client::new(Store::open(&d).unwrap(), Era::V2026_07_28);
    says_the_lost_ids_at_revision_2(&mut c);
}

/// Two clones of the carried review through one folder; the engineer judges the holes item in
/// one and, later, the plate item in the other, whose version of the decision then wins the
/// merge and takes the holes verdict in (`judged_here` in sync's merge): both name the ids it
/// lost, and the clones converge.
#[test]
fn a_verdict_synced_into_a_clone_keeps_the_ids_it_lost() {
    let dir = TempDir::new("carry-lost-sync").unwrap();
    let a = dir.join("a.db");
    let b = dir.join("b.db");
    let folder = dir.join("review");
    {
        let mut c = Client::new(Store::open(&a).unwrap(), Era::V2026_07_28);
        carried_without_the_holes(&mut c);
    }
    ok(cli(&a, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
    ok(cli(&b, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
    {
        let mut c = Client::new(Store::open(&b).unwrap(), Era::V2026_07_28);
        by_form(&mut c, 2, 0);
    }
    {
        let mut c = Client::new(Store::open(&a).unwrap(), Era::V2026_07_28);
        let item = holes_item(&mut c, 2);
        assert!(
            item["carried"].is_object(),
            "not judged in this clone: {item}"
        );
        by_form(&mut c, 2, 1);
    }
    ok(cli(&b, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
    let said = ok(cli(&a, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
    ok(cli(&b, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
    for db in [&a, &b] {
        let mut c = Client::new(Store::open(db).unwrap(), Era::V2026_07_28);
        says_the_lost_ids_at_revision_2(&mut c);
    }
    assert_eq!(export(&a), export(&b), "the clones converge: {said}");
}

/// The two clones of [`a_verdict_synced_into_a_clone_keeps_the_ids_it_lost`], one of which
/// judges the holes item after the carry (it keeps the ids it lost as `notCarried`, beside the
/// engineer's verdict) while the other, which has not seen the verdict, states the decision
/// again at revision 2 (the holes re-identified, whole part, or left out), carries it on to
/// revision 3, or judges it too; in both orders of time. `import`, `sync` and `merge-file`
/// refuse a line with `notCarried` but no engineer's verdict, so a merge that made one would
/// stop every later sync: each sync and an export imported into an empty database succeed,
/// the clones converge, and every `notCarried` item they hold has the engineer's verdict.
#[test]
fn no_merge_of_a_judged_lost_item_with_another_clones_edit_leaves_not_carried_without_a_verdict() {
    let restate = |faces: Option<Value>| {
        move |c: &mut Client| {
            let mut basis = vec![
                json!({"requirement": "Base plate 5.0 mm", "source": "drawing",
                 "state": "satisfied", "faces": ["face:2"],
                 "verdict": {"judgement": "accepted"}}),
            ];
            if let Some(faces) = faces.clone() {
                basis.insert(
                    0,
                    json!({"requirement": "Two holes Ø6.6 on 40 mm centres", "source": "drawing",
                     "evidence": "measured 40.01", "state": "satisfied", "faces": faces,
                     "verdict": {"judgement": "accepted"}}),
                );
            }
            c.ok(
                "remember_decision",
                json!({"artifact": at(2), "subject": "holes", "disposition": "release",
                       "basis": basis}),
            );
        }
    };
    type Edit = Box<dyn Fn(&mut Client)>;
    let edits: Vec<(&str, Edit)> = vec![
        (
            "restated, the holes re-identified",
            Box::new(restate(Some(json!(["face:20", "face:21"])))),
        ),
        (
            "restated, the holes about the whole part",
            Box::new(restate(Some(json!([])))),
        ),
        ("restated without the holes", Box::new(restate(None))),
        (
            "carried on to revision 3",
            Box::new(|c: &mut Client| {
                c.ok(
                    "carry_forward",
                    json!({"from": at(2), "to": at(3), "map": [{"from": "face:2", "to": "face:2"}]}),
                );
            }),
        ),
        (
            "the plate judged",
            Box::new(|c: &mut Client| by_form(c, 2, 1)),
        ),
        (
            "the holes judged too",
            Box::new(|c: &mut Client| by_form(c, 2, 0)),
        ),
    ];
    for (what, edit) in &edits {
        for judged_first in [true, false] {
            let case = format!(
                "{what}, judged {}",
                if judged_first { "first" } else { "last" }
            );
            let dir = TempDir::new("carry-lost-merge").unwrap();
            let (a, b) = (dir.join("a.db"), dir.join("b.db"));
            let folder = dir.join("review");
            let sync = |db: &Path| {
                cli(db, &["sync", &folder.to_string_lossy()])
                    .map_err(|e| e.to_string())
                    .and_then(|o| ok(o).map_err(|e| e.to_string()))
                    .unwrap_or_else(|e| panic!("{case}: sync of {}: {e}", db.display()))
            };
            carried_without_the_holes(&mut Client::new(Store::open(&a).unwrap(), Era::V2026_07_28));
            sync(&a);
            sync(&b);
            let judge = || {
                by_form(
                    &mut Client::new(Store::open(&b).unwrap(), Era::V2026_07_28),
                    2,
                    0,
                )
            };
            let other = || edit(&mut Client::new(Store::open(&a).unwrap(), Era::V2026_07_28));
            if judged_first {
                judge();
                std::thread::sleep(std::time::Duration::from_millis(3));
                other();
            } else {
                other();
                std::thread::sleep(std::time::Duration::from_millis(3));
                judge();
            }
            for db in [&b, &a, &b, &a] {
                sync(db);
            }
            let (ea, eb) = (export(&a), export(&b));
            assert_eq!(ea, eb, "{case}: the clones converge");
            let file = dir.join("a.jsonl");
            std::fs::write(&file, &ea).unwrap();
            let fresh = dir.join("fresh.db");
            ok(cli(&fresh, &["import", &file.to_string_lossy()]).unwrap())
                .unwrap_or_else(|e| panic!("{case}: import: {e}\n{ea}"));
            let mut lost = 0;
            for l in ea.lines() {
                let l: Value = serde_json::from_str(l).unwrap();
                for item in l["decision"]["basis"].as_array().into_iter().flatten() {
                    if item.get("notCarried").is_some() {
                        lost += 1;
                        let via = item["verdict"]["via"].as_str().unwrap_or_default();
                        assert!(
                            ["elicitation", "app", "terminal"].contains(&via),
                            "{case}: notCarried without the engineer's verdict: {item}"
                        );
                    }
                }
            }
            // The verdict, the later edit, wins the merge: the judged holes item names the ids
            // it lost (at revision 2, marked superseded once carried on).
            assert!(judged_first || lost > 0, "{case}: no notCarried kept\n{ea}");
        }
    }
}
