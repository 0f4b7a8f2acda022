//! `notCarried` (the ids a judged basis item lost to a carry) holding hostile strings, and
//! many of them: every reader shows them as it shows `faces` and `carried.unmapped`, inert
//! and bounded.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::carry_lost::{by_form, form_answered, form_asked};
use crate::support::TempDir;
use crate::support::file_events::run_cli as cli;
use crate::support::inproc::{Client, Era, art_uri, rev};
use review_mcp::store::Store;

/// Everything a reader must not obey (as hostile_strings' EVIL, within an entity id's 256).
const EVIL: &str = "\u{1b}]0;pwn\u{7}\u{1b}[2J\rReview of FAKE\n| 9 | fake | row |\n=HYPERLINK(\"http://x\")\u{202e}gnp.exe\u{0}\t\u{9b}31m<script>x</script>\u{2028}\u{85}end";

const FILE: &str = "/work/bracket.step";

fn at(n: usize) -> Value {
    art_uri(&rev(n), FILE)
}

fn acting(text: &str) -> Option<char> {
    text.chars()
        .find(|&c| (c != '\n' && review_mcp::text::is_control_like(c)) || c == '\u{85}')
}

/// Revision 1's "holes" decision about `ids`, carried to revision 2 with none of them in the
/// map, then accepted there through the host's form: its notCarried names `ids`.
fn judged_after_losing(db: &std::path::Path, ids: &[String]) -> Client {
    let mut c = Client::new(Store::open(db).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "holes", "disposition": "hold", "basis": [
            {"requirement": "Two holes", "source": "drawing", "state": "satisfied", "faces": ids},
            {"requirement": "Base plate", "source": "drawing", "state": "satisfied",
             "faces": ["face:2"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "map": [{"from": "face:2", "to": "face:2"}]}),
    );
    by_form(&mut c, 2, 0);
    let got = c.ok(
        "recall_decisions",
        json!({"artifact": at(2), "subject": "holes"}),
    );
    let item = &got["decisions"][0]["basis"][0];
    assert!(
        item["notCarried"]["ids"].is_array(),
        "{}",
        &item.to_string()[..300]
    );
    c
}

/// What the database holds as item 0's notCarried is changed under the engineer (a sync or
/// an import that took a teammate's version): `ids` instead.
fn lost_ids_become(db: &std::path::Path, ids: &[&str]) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let v = json!({"ids": ids, "of": rev(1)}).to_string();
    let n = conn
        .execute(
            "UPDATE basis_items SET not_carried = ?1 WHERE not_carried IS NOT NULL",
            [v],
        )
        .unwrap();
    assert_eq!(n, 1);
}

/// The card's click carries the digest of the item it showed, which covers notCarried: an
/// item whose lost ids changed since is refused as changed, and nothing is recorded.
#[test]
fn a_click_on_an_item_whose_lost_ids_changed_since_is_refused() {
    let dir = TempDir::new("nc-digest-card").unwrap();
    let db = dir.join("r.db");
    let mut c = judged_after_losing(&db, &["face:10".to_string(), "face:11".to_string()]);
    let shown = c.call("show_review", json!({"artifact": at(2), "detail": "full"}));
    let d = &shown["result"]["structuredContent"]["decisions"][0];
    let id = d["id"].as_str().unwrap().to_string();
    let digest = d["basis"][0]["digest"].clone();
    let proof = shown["result"]["_meta"]["review-mcp/card"]["proofs"][&id].clone();
    lost_ids_become(&db, &["face:12"]);
    let got = c.call(
        "record_verdict",
        json!({"decision_id": id, "index": 0, "item_digest": digest,
               "judgement": "rejected", "card_proof": proof}),
    );
    let text = got.to_string();
    assert!(
        got["result"]["isError"] == json!(true) || got.get("error").is_some(),
        "{text}"
    );
    let item = c.ok(
        "recall_decisions",
        json!({"artifact": at(2), "subject": "holes"}),
    )["decisions"][0]["basis"][0]
        .clone();
    assert_eq!(item["verdict"]["judgement"], "accepted", "{item}");
    assert_eq!(item["notCarried"]["ids"], json!(["face:12"]), "{item}");
}

/// The form's sealed state names the digest of each item it asked about: an answer about an
/// item whose lost ids changed meanwhile is not recorded.
#[test]
fn a_form_answer_on_an_item_whose_lost_ids_changed_since_is_not_recorded() {
    let dir = TempDir::new("nc-digest-form").unwrap();
    let db = dir.join("r.db");
    let mut c = judged_after_losing(&db, &["face:10".to_string(), "face:11".to_string()]);
    let asked = form_asked(&mut c, 2, 0);
    lost_ids_become(&db, &["face:12"]);
    let done = form_answered(&mut c, asked, 0, "rejected");
    assert_ne!(
        done["result"]["structuredContent"]["recorded"],
        json!([0]),
        "{done}"
    );
    let item = c.ok(
        "recall_decisions",
        json!({"artifact": at(2), "subject": "holes"}),
    )["decisions"][0]["basis"][0]
        .clone();
    assert_eq!(item["verdict"]["judgement"], "accepted", "{item}");
}

/// Ids a carry lost holding escapes, line breaks faking a row, a formula, a bidi override,
/// HTML and NUL: once judged (notCarried) every reader shows them inert, as it shows faces.
#[test]
fn hostile_lost_ids_are_shown_inert_in_every_reader() {
    let dir = TempDir::new("nc-hostile").unwrap();
    let db = dir.join("r.db");
    let mut c = judged_after_losing(&db, &[EVIL.to_string(), "face:11".to_string()]);
    let report = c.read_text(&format!("review://revisions/{}/report", rev(2)));
    assert!(report.contains("Review of FAKE"), "{report}");
    assert_eq!(acting(&report.replace('\t', " ")), None, "{report}");
    assert!(
        !report.replace("\\<script", "").contains("<script"),
        "{report}"
    );
    assert!(!report.lines().any(|l| l.starts_with("| 9")), "{report}");
    let csv = c.read_text(&format!("review://revisions/{}/form3.csv", rev(2)));
    assert!(csv.contains("Review of FAKE"), "{csv}");
    let records = crate::form3_csv::parse_csv(&csv).unwrap_or_else(|e| panic!("{e}: {csv}"));
    for cell in records.concat() {
        assert_eq!(acting(&cell), None, "{cell:?}");
        let first = cell.trim_start().chars().next();
        assert!(
            !matches!(first, Some('=' | '+' | '-' | '@' | '\t' | '\r')),
            "{cell:?}"
        );
    }
    let asked = c.request_declaring(
        "tools/call",
        json!({"name": "request_verdicts",
               "arguments": {"artifact": at(2), "subject": "holes", "items": [0]}}),
        json!({"elicitation": {"form": {}}}),
    );
    let about = asked["result"]["inputRequests"]["verdicts"]["params"]["requestedSchema"]
        ["properties"]["item_000_judgement"]["description"]
        .as_str()
        .unwrap_or_else(|| panic!("{asked}"))
        .to_string();
    assert!(about.contains("Review of FAKE"), "{about}");
    assert_eq!(acting(&about), None, "{about}");
    assert!(!about.contains('\n'), "{about}");
}

/// Revision 1's "holes" decision carried to revision 2 with face:10 and face:11 left out of
/// the map, not yet judged.
fn carried_not_judged(db: &std::path::Path) {
    let mut c = Client::new(Store::open(db).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "holes", "disposition": "hold", "basis": [
            {"requirement": "Two holes", "source": "drawing", "state": "satisfied",
             "faces": ["face:10", "face:11"]},
            {"requirement": "Base plate", "source": "drawing", "state": "satisfied",
             "faces": ["face:2"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "map": [{"from": "face:2", "to": "face:2"}]}),
    );
}

fn holes_item(db: &std::path::Path) -> Value {
    let mut c = Client::new(Store::open(db).unwrap(), Era::V2026_07_28);
    c.ok(
        "recall_decisions",
        json!({"artifact": at(2), "subject": "holes"}),
    )["decisions"][0]["basis"][0]
        .clone()
}

fn sync(db: &std::path::Path, folder: &std::path::Path) {
    let o = cli(db, &["sync", &folder.to_string_lossy()]).unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Two clones of the carried review: one states the lost item again (re-identified as
/// face:20, face:21: no notCarried), the other's engineer judges it (notCarried). Whichever
/// is later, the clones converge on one item: the restatement keeping the engineer's verdict,
/// or the judged item naming the ids it lost; never both faces and notCarried.
#[test]
fn a_restatement_and_a_verdict_on_a_lost_item_in_two_clones_converge() {
    for judged_later in [false, true] {
        let dir = TempDir::new("nc-restate-judge").unwrap();
        let (a, b, folder) = (dir.join("a.db"), dir.join("b.db"), dir.join("review"));
        carried_not_judged(&a);
        sync(&a, &folder);
        sync(&b, &folder);
        let restate = |db: &std::path::Path| {
            let mut c = Client::new(Store::open(db).unwrap(), Era::V2026_07_28);
            c.ok(
                "remember_decision",
                json!({"artifact": at(2), "subject": "holes", "disposition": "hold", "basis": [
                    {"requirement": "Two holes", "source": "drawing", "state": "satisfied",
                     "faces": ["face:20", "face:21"]},
                    {"requirement": "Base plate", "source": "drawing", "state": "satisfied",
                     "faces": ["face:2"]}]}),
            );
        };
        let judge = |db: &std::path::Path| {
            let mut c = Client::new(Store::open(db).unwrap(), Era::V2026_07_28);
            by_form(&mut c, 2, 0);
        };
        let pause = || std::thread::sleep(std::time::Duration::from_millis(20));
        if judged_later {
            restate(&a);
            pause();
            judge(&b);
        } else {
            judge(&b);
            pause();
            restate(&a);
        }
        sync(&b, &folder);
        sync(&a, &folder);
        sync(&b, &folder);
        let (ia, ib) = (holes_item(&a), holes_item(&b));
        assert_eq!(ia, ib, "judged later: {judged_later}");
        assert_eq!(ia["verdict"]["via"], "elicitation", "{ia}");
        if judged_later {
            assert_eq!(ia["faces"], json!([]), "{ia}");
            assert_eq!(
                ia["notCarried"]["ids"],
                json!(["face:10", "face:11"]),
                "{ia}"
            );
        } else {
            assert_eq!(ia["faces"], json!(["face:20", "face:21"]), "{ia}");
            assert!(ia.get("notCarried").is_none(), "{ia}");
        }
        let export = |db: &std::path::Path| cli(db, &["export"]).unwrap().stdout;
        assert_eq!(export(&a), export(&b), "judged later: {judged_later}");
    }
}
