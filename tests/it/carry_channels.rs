//! What each channel says, found by walking a bracket's review over three revisions with the
//! official TypeScript client and no elicitation: the report, the engineer's terminal, the
//! form and the card must agree with the Form 3 that a carried item's state and evidence are
//! the earlier revision's, and must give the reason of the verdict it got there, which is what
//! the engineer re-verifies against; the Form 3 must say what an engineer's verdict means.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use review_mcp::store::Store;
use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::inproc::{Client, Era, art_uri, rev};

const FILE: &str = "/work/bracket.step";
const REASON: &str = "edge distance is from the hole edge: 6.7 < 9.9; move hole 2 inboard";

fn item() -> Value {
    json!({"requirement": "Hole edge distance >= 1.5 x D (9.9 mm)", "source": "shop-spec",
           "evidence": "hole 2 centre x=20.0, 10.0 mm centre to edge", "state": "satisfied",
           "faces": ["face:9"]})
}

/// Revision 1 with one item the engineer rejected in their terminal with `REASON`, carried to
/// revision 2 where face:9 (the hole) changed. Returns the database's directory.
fn rejected_then_carried(name: &str) -> TempDir {
    let dir = TempDir::new(name).unwrap();
    let db = dir.join("r.db");
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
               "basis": [item()]}),
    );
    let mut store = Store::open(&db).unwrap();
    let answers = format!("r\n{REASON}\n\n");
    let mut input = answers.as_bytes();
    review_mcp::terminal::review(&mut store, &rev(1), &mut input, &mut Vec::new()).unwrap();
    c.ok(
        "carry_forward",
        json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE),
               "map": [{"from": "face:9", "to": "face:9"}], "changed": ["face:9"],
               "change": "ECO-1: hole 2 moved inboard"}),
    );
    dir
}

/// The first row of the basis table in the report of `revision`.
fn first_row(c: &mut Client, revision: &str) -> String {
    let report = c.read_text(&format!("review://revisions/{revision}/report"));
    report
        .lines()
        .find(|l| l.starts_with("| 1 |"))
        .unwrap_or_else(|| panic!("{report}"))
        .to_string()
}

/// The 2026-07-28 `input_required` answer of `request_verdicts` on "release" at revision 2, to
/// a client that declares form elicitation.
fn asked_at_revision_2(c: &mut Client) -> Value {
    c.request_declaring(
        "tools/call",
        json!({"name": "request_verdicts",
               "arguments": {"artifact": art_uri(&rev(2), FILE), "subject": "release"}}),
        json!({"elicitation": {"form": {}}}),
    )
}

/// Regression: the reason the engineer gave for rejecting an item at revision 1 ("move hole 2
/// inboard", why the part changed) was in the Form 3's comments and the card, but the report's
/// worklist and table, the terminal's "at that revision" line and the form's description said
/// only "rejected by the engineer (terminal, …)": the engineer re-verifying at revision 2 was
/// not told what they had asked for.
#[test]
fn a_carried_verdicts_reason_is_said_in_the_report_the_terminal_and_the_form() {
    let dir = rejected_then_carried("carry-reason");
    let db = dir.join("r.db");
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    let quoted = format!("\"{REASON}\"");
    let report = c.read_text(&format!("review://revisions/{}/report", rev(2)));
    let worklist = report
        .lines()
        .find(|l| l.starts_with("- Decision **release**, item 1"))
        .unwrap_or_else(|| panic!("{report}"));
    // The report escapes Markdown: `<` is `\<` there.
    let in_markdown = quoted.replace('<', "\\<");
    assert!(worklist.contains(&in_markdown), "{worklist}");
    let row = first_row(&mut c, &rev(2));
    assert!(row.contains(&in_markdown), "{row}");

    let mut store = Store::open(&db).unwrap();
    let mut out = Vec::new();
    review_mcp::terminal::review(&mut store, &rev(2), &mut &b"q\n"[..], &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let there = text
        .lines()
        .find(|l| l.trim_start().starts_with("at that revision:"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(there.contains(&quoted), "{there}");

    let asked = asked_at_revision_2(&mut c);
    let about = asked["result"]["inputRequests"]["verdicts"]["params"]["requestedSchema"]
        ["properties"]["item_000_judgement"]["description"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(about.contains(&quoted), "{about}");
}

/// Regression: the report's table showed a carried item's state and evidence in its State and
/// Evidence columns as the new revision's ("| satisfied | hole 2 centre x=20.0 … |" for the
/// hole that had just moved), where the Form 3 says "re-verify (satisfied)" with no result and
/// the terminal and form say "state there", "evidence there". The columns now say the carry
/// and the revision the state and evidence are of; an item stated at this revision is as
/// before.
#[test]
fn the_reports_table_labels_a_carried_items_state_and_evidence_as_the_earlier_revisions() {
    let dir = rejected_then_carried("carry-report-there");
    let mut c = Client::new(Store::open(&dir.join("r.db")).unwrap(), Era::V2026_07_28);
    let row = first_row(&mut c, &rev(2));
    let cells: Vec<&str> = row.split(" | ").collect();
    assert_eq!(cells[3], "re-verify (satisfied there)", "{row}");
    assert!(
        cells[4].starts_with("at revision sha256:000000000000…: hole 2 centre x=20.0"),
        "{row}"
    );
    // Stated again at revision 2: its own state; the evidence copied word for word from
    // the carried item is still revision 1's (the hole it measured has moved since), and the
    // answer says so (review4: it said only "Replaced decision …", so a value measured again
    // at revision 2 with the same words was silently given as revision 1's).
    let said = c.call(
        "remember_decision",
        json!({"artifact": art_uri(&rev(2), FILE), "subject": "release", "disposition": "hold",
               "basis": [item()]}),
    );
    let said = said["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        said.contains("basis[0]")
            && said.contains("word for word")
            && said.contains("kept as the earlier revision's"),
        "{said}"
    );
    let row = first_row(&mut c, &rev(2));
    let cells: Vec<&str> = row.split(" | ").collect();
    assert_eq!(cells[3], "satisfied", "{row}");
    assert!(
        cells[4].starts_with("at revision sha256:000000000000…: hole 2 centre x=20.0"),
        "{row}"
    );
    // Stated with this revision's evidence: its own, unlabelled.
    let mut here = item();
    here["evidence"] = json!("hole 2 centre x=18.0, 8.0 mm centre to edge");
    let said = c.call(
        "remember_decision",
        json!({"artifact": art_uri(&rev(2), FILE), "subject": "release", "disposition": "hold",
               "basis": [here]}),
    );
    let said = said["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(!said.contains("word for word"), "{said}");
    let row = first_row(&mut c, &rev(2));
    let cells: Vec<&str> = row.split(" | ").collect();
    assert_eq!(cells[3], "satisfied", "{row}");
    assert!(cells[4].starts_with("hole 2 centre x=18.0"), "{row}");
}

/// Regression: an engineer who approved an item in their terminal ("Meaning: approval") saw
/// the meaning in the report ("meaning approval"), the card and the trail, but the Form 3, the
/// one document that leaves the shop, said only "accepted": its Verdict cell now gives an
/// engineer's verdict with its meaning, `accepted (approval)` or `rejected (review): reason`;
/// the assistant's relayed verdict, which has none, is as before.
#[test]
fn the_form3_says_what_an_engineers_verdict_means() {
    let dir = TempDir::new("form3-meaning").unwrap();
    let db = dir.join("r.db");
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    let mut relayed = item();
    relayed["requirement"] = json!("Material 6061-T6");
    relayed["verdict"] = json!({"judgement": "accepted", "reason": "cert 4471"});
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
               "basis": [item(), item_two(), relayed]}),
    );
    let mut store = Store::open(&db).unwrap();
    // Item 1 accepted as an approval, item 2 rejected as a review with a reason.
    let mut input = &b"a\n\na\nr\ntoo close\n\n"[..];
    review_mcp::terminal::review(&mut store, &rev(1), &mut input, &mut Vec::new()).unwrap();
    let csv = c.read_text(&format!("review://revisions/{}/form3.csv", rev(1)));
    let row = |n: &str| {
        csv.lines()
            .find(|l| l.starts_with(&format!("{n},")))
            .unwrap_or_else(|| panic!("row {n} in {csv}"))
            .to_string()
    };
    assert!(
        row("1").contains(",accepted (approval),engineer,terminal,"),
        "{}",
        row("1")
    );
    assert!(
        row("2").contains(",rejected (review): too close,engineer,terminal,"),
        "{}",
        row("2")
    );
    assert!(
        row("3").contains(",accepted: cert 4471,assistant,assistant,"),
        "{}",
        row("3")
    );
}

fn item_two() -> Value {
    json!({"requirement": "Hole 1 edge distance", "source": "shop-spec", "state": "violated",
           "evidence": "6.7 mm", "faces": ["face:8"]})
}

/// Regression: the trail line of a decision created with five basis items (six changes: the
/// disposition and each item's state, five named) ended "…; 1 more changes, 2026-…" in the
/// report and the card. One left over is "1 more change".
#[test]
fn a_trail_line_counts_one_change_left_over_in_the_singular() {
    let mut c = Client::memory(Era::V2026_07_28);
    let basis: Vec<Value> = (1..=5)
        .map(|i| {
            let mut b = item();
            b["requirement"] = json!(format!("Requirement {i}"));
            b
        })
        .collect();
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
               "basis": basis}),
    );
    let report = c.read_text(&format!("review://revisions/{}/report", rev(1)));
    let created = report
        .lines()
        .find(|l| l.starts_with("- created:"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(created.contains("; 1 more change, "), "{created}");
}

/// Regression (the review's third revision: the base plate went from 5 to 6 mm): the engineer
/// accepted in their terminal the carried item "Base plate 5.0 ±0.1 mm thick", shown with
/// "evidence there: … top face:2 at z=5.0". The verdict made the item this revision's, and from
/// then on every reader gave that evidence as the new revision's own: the Form 3 row of the
/// 6 mm part read Results "… z=5.0", PASS, accepted. The verdict still makes the item this
/// revision's, but its evidence keeps saying which revision it was quoted at, as the engineer
/// was shown it: "at revision sha256:…: …", in the item, the report and the Form 3.
#[test]
fn an_engineers_verdict_on_a_carried_item_keeps_the_revision_its_evidence_was_quoted_at() {
    let dir = TempDir::new("carry-verdict-evidence").unwrap();
    let db = dir.join("r.db");
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
               "basis": [{"requirement": "Base plate 5.0 ±0.1 mm thick", "source": "drawing",
                          "evidence": "measure: top face:2 at z=5.0", "state": "satisfied",
                          "faces": ["face:2"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE),
               "map": [{"from": "face:2", "to": "face:2"}], "changed": ["face:2"]}),
    );
    let mut store = Store::open(&db).unwrap();
    let mut input = &b"a\n\n\n"[..];
    review_mcp::terminal::review(&mut store, &rev(2), &mut input, &mut Vec::new()).unwrap();

    let quoted = "at revision sha256:000000000000…: measure: top face:2 at z=5.0";
    let got = c.ok(
        "recall_decisions",
        json!({"artifact": art_uri(&rev(2), FILE), "subject": "release"}),
    );
    let item = &got["decisions"][0]["basis"][0];
    assert_eq!(item["verdict"]["via"], "terminal", "{item}");
    assert!(item.get("carried").is_none(), "{item}");
    assert_eq!(item["evidence"], quoted, "{item}");
    let csv = c.read_text(&format!("review://revisions/{}/form3.csv", rev(2)));
    let row = csv
        .lines()
        .find(|l| l.starts_with("1,"))
        .unwrap_or_else(|| panic!("{csv}"));
    assert!(row.contains(&format!(",{quoted},")), "{row}");
    let report = c.read_text(&format!("review://revisions/{}/report", rev(2)));
    assert!(
        report.contains(&format!("| satisfied | {quoted} |")),
        "{report}"
    );
    // A text search still finds it by its words, and by the revision it names.
    for text in ["face", "sha256"] {
        let found = c.ok(
            "recall_decisions",
            json!({"artifact": art_uri(&rev(2), FILE), "text": text}),
        );
        assert_eq!(
            found["decisions"].as_array().map(Vec::len),
            Some(1),
            "{text}"
        );
    }
}

/// Regression: a carried decision said its old disposition only as history ("carried from
/// revision …: 1 of 1 basis items to re-verify"), but restated its old summary as its own: the
/// review of the changed part read "All checks pass; release." in `show_review`,
/// `recall_decisions`, the report, the card and the terminal. The carried summary says the
/// revision it was written at, once, however often the review is carried on unchanged.
#[test]
fn a_carried_decisions_summary_says_the_revision_it_was_written_at() {
    let mut c = Client::memory(Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "release",
               "summary": "All checks pass; release.", "basis": [item()]}),
    );
    let said = "at revision sha256:000000000000…: All checks pass; release.";
    for n in [2, 3] {
        c.ok(
            "carry_forward",
            json!({"from": art_uri(&rev(n - 1), FILE), "to": art_uri(&rev(n), FILE),
                   "map": [{"from": "face:9", "to": "face:9"}], "changed": ["face:9"]}),
        );
        let shown = c.ok("show_review", json!({"artifact": art_uri(&rev(n), FILE)}));
        assert_eq!(
            shown["decisions"][0]["summary"], said,
            "revision {n}: {shown}"
        );
    }
    // Stated again: its own summary.
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(3), FILE), "subject": "release", "disposition": "hold",
               "summary": "Hole re-checked.", "basis": [item()]}),
    );
    let shown = c.ok("show_review", json!({"artifact": art_uri(&rev(3), FILE)}));
    assert_eq!(shown["decisions"][0]["summary"], "Hole re-checked.");
}

/// Regression: a server run with an author (`--author`, the bundle's "Your name") told a host
/// without elicitation to have the engineer run `review-mcp review --db … sha256:…`, without
/// that name: run as given, the terminal recorded the engineer's verdicts with no name
/// (unless their shell set `REVIEW_MCP_AUTHOR`), where the card's carry the server's. The
/// command now names the server's author, in the refusal's text and in `other_channels`.
#[test]
fn the_terminal_command_a_host_without_a_form_is_given_names_the_servers_author() {
    let dir = TempDir::new("terminal-author").unwrap();
    let mut store = Store::open(&dir.join("r.db")).unwrap();
    store.set_author(Some("Eve O'Neil".to_string()));
    let mut c = Client::new(store, Era::V2025_11_25);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
               "basis": [item()]}),
    );
    let refused = c.refused(
        "request_verdicts",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release"}),
    );
    assert!(
        refused.contains(&format!(
            "review-mcp review --db {} --author 'Eve O'\\''Neil' {}`",
            dir.join("r.db").display(),
            rev(1)
        )),
        "{refused}"
    );
}

/// Regression: the form's second line showed a decision's disposition cut at 40 characters,
/// so a carried one read "carried from revision sha256:…" and stopped before how many items
/// are to re-verify, what the engineer is asked about. A carried disposition is shown whole.
#[test]
fn the_forms_message_says_how_many_carried_items_are_to_re_verify() {
    let dir = rejected_then_carried("carry-form-line");
    let mut c = Client::new(Store::open(&dir.join("r.db")).unwrap(), Era::V2026_07_28);
    let asked = asked_at_revision_2(&mut c);
    let message = asked["result"]["inputRequests"]["verdicts"]["params"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains(": 1 of 1 basis items to re-verify\")"),
        "{message}"
    );
}

/// Reported by the second end-user walk: the hole 1 clearance was `violated` at revision 1
/// (x = -20 mm), the hole moved at revision 2, and the engineer accepted the carried item
/// there in the form ("24 mm now: ok") before anyone measured it again. The Form 3 row of
/// revision 2 gave its Results as revision 1's ("at revision sha256:…: …") but its QIF status
/// as FAIL: a failed characteristic at revision 2, accepted, where nothing was analysed at
/// revision 2. A row whose Results are an earlier revision's is NOT_ANALYZED, as an
/// inherited row is; a rejected one stays INDETERMINATE.
#[test]
fn a_judged_carried_items_form3_status_is_not_an_earlier_revisions_result() {
    for (key, qif) in [("a", "NOT_ANALYZED"), ("r", "INDETERMINATE")] {
        let dir = TempDir::new("carry-verdict-qif").unwrap();
        let db = dir.join("r.db");
        let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
                   "basis": [{"requirement": "Hole 1 centre at least 24 mm from centre", "source": "shop-spec",
                              "evidence": "build123d: face:6 axis at x=-20.0", "state": "violated",
                              "faces": ["face:6"]}]}),
        );
        c.ok(
            "carry_forward",
            json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE),
                   "map": [{"from": "face:6", "to": "face:6"}], "changed": ["face:6"]}),
        );
        let mut store = Store::open(&db).unwrap();
        let answers = format!("{key}\n\n\n");
        let mut input = answers.as_bytes();
        review_mcp::terminal::review(&mut store, &rev(2), &mut input, &mut Vec::new()).unwrap();
        let csv = c.read_text(&format!("review://revisions/{}/form3.csv", rev(2)));
        let row = csv
            .lines()
            .find(|l| l.starts_with("1,"))
            .unwrap_or_else(|| panic!("{csv}"));
        assert!(row.contains(",at revision sha256:"), "{row}");
        assert!(row.contains(&format!(",violated,{qif},")), "{key}: {row}");
    }
}

/// Regression: the form's description of a carried item to re-verify named its changed and
/// unmapped entity ids bare inside `re-verify (… changed), carried from revision …; …`, and an
/// entity id is any string the model gave (up to 256 characters), so an id holding `; so far:
/// accepted by the engineer (…), …` went on as a segment of the form's own, an earlier
/// verdict of the engineer's that was never given. An id holding a semicolon is quoted.
#[test]
fn an_entity_id_holding_a_semicolon_cannot_add_a_segment_to_the_forms_description() {
    let dir = TempDir::new("carry-id-semicolon").unwrap();
    let mut c = Client::new(Store::open(&dir.join("r.db")).unwrap(), Era::V2026_07_28);
    let face = "face:9; so far: accepted by the engineer (review card, Ada), 2026-12-01 14:02 UTC";
    let mut it = item();
    it["faces"] = json!([face]);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
               "basis": [it]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE),
               "map": [{"from": face, "to": "face:9"}], "changed": [face]}),
    );
    let asked = asked_at_revision_2(&mut c);
    let about = asked["result"]["inputRequests"]["verdicts"]["params"]["requestedSchema"]
        ["properties"]["item_000_judgement"]["description"]
        .as_str()
        .unwrap_or_else(|| panic!("{asked}"))
        .to_string();
    assert!(
        about.starts_with(&format!(
            "re-verify, carried from revision {}… (changed there: \"{face}\")",
            &rev(1)[..19]
        )),
        "{about}"
    );
}

/// Found by enduser3 walking a real bracket (build123d-mcp's face ids): the hole was face:8 at
/// revision 1 and face:9 at revision 2, and the form and the report said "re-verify (face:8
/// changed), carried from revision …; faces: face:9, face:10": the changed id first, beside
/// the new revision's faces, read as this revision's face:8 (another face: the side wall). The
/// terminal ("carried from …: re-verify first; changed: face:8") and the Form 3 ("Carried from
/// … to re-verify at this revision (changed: face:8)") name the revision first. So do the form
/// and the report now, saying the ids are of that revision.
#[test]
fn a_re_verify_line_names_the_revision_before_the_ids_that_changed_there() {
    let dir = TempDir::new("carry-ids-there").unwrap();
    let mut c = Client::new(Store::open(&dir.join("r.db")).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
               "basis": [{"requirement": "Hole pitch 40 mm", "source": "drawing",
                          "state": "satisfied", "faces": ["face:8", "face:9"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE),
               "map": [{"from": "face:8", "to": "face:9"}, {"from": "face:9", "to": "face:10"}],
               "changed": ["face:8"]}),
    );
    let want = format!(
        "re-verify, carried from revision {}… (changed there: face:8)",
        &rev(1)[..19]
    );
    let asked = asked_at_revision_2(&mut c);
    let about = asked["result"]["inputRequests"]["verdicts"]["params"]["requestedSchema"]
        ["properties"]["item_000_judgement"]["description"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(about.starts_with(&want), "{about}");
    let report = c.read_text(&format!("review://revisions/{}/report", rev(2)));
    let worklist = report
        .lines()
        .find(|l| l.starts_with("- Decision **release**, item 1"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(worklist.ends_with(&want), "{worklist}");
}

/// Found by enduser3: the engineer rejected "Flatness of datum A" at revision 1 in their
/// terminal ("flatness by process, not CMM"), the carry left that face unchanged, and the item
/// was inherited with the rejection as its history. No channel asks about it again (it has the
/// engineer's verdict there), and `show_review`'s line and `worklist` counted it with the
/// others as "inherited (not re-verified here)": a model reading them took the disputed item
/// as settled. The line names how many inherited items the engineer rejected there, and the
/// `worklist` counts them (`inherited_rejected`); none, nothing is said.
#[test]
fn show_review_says_how_many_inherited_items_the_engineer_rejected_there() {
    let dir = TempDir::new("carry-inherited-rejected").unwrap();
    let db = dir.join("r.db");
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
               "basis": [
                   {"requirement": "Flatness of datum A 0.05", "source": "drawing",
                    "state": "satisfied", "evidence": "by process", "faces": ["face:2"]},
                   {"requirement": "Width 40 mm", "source": "drawing", "state": "satisfied",
                    "faces": ["face:0"]}]}),
    );
    let mut store = Store::open(&db).unwrap();
    let mut input = &b"r\nflatness by process, not CMM\n\na\n\n\n"[..];
    review_mcp::terminal::review(&mut store, &rev(1), &mut input, &mut Vec::new()).unwrap();
    drop(store);
    c.ok(
        "carry_forward",
        json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE),
               "map": [{"from": "face:2", "to": "face:7"}, {"from": "face:0", "to": "face:5"}]}),
    );
    let (text, got) = line_and_review(&mut c);
    assert_eq!(
        got["worklist"],
        json!({"re_verify": 0, "inherited": 2, "inherited_rejected": 1, "stated_here": 0}),
        "{got}"
    );
    assert!(
        text.contains("2 inherited (not re-verified here; the engineer rejected 1 of them there: recall_decisions with carried \"inherited\" and detail \"full\" shows which, to state again or ask about with request_verdicts and items)"),
        "{text}"
    );
    // Both accepted: nothing more is said.
    let dir = TempDir::new("carry-inherited-accepted").unwrap();
    let db = dir.join("r.db");
    let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "release", "disposition": "hold",
               "basis": [{"requirement": "Width 40 mm", "source": "drawing",
                          "state": "satisfied", "faces": ["face:0"]}]}),
    );
    let mut store = Store::open(&db).unwrap();
    review_mcp::terminal::review(&mut store, &rev(1), &mut &b"a\n\n\n"[..], &mut Vec::new())
        .unwrap();
    drop(store);
    c.ok(
        "carry_forward",
        json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE),
               "map": [{"from": "face:0", "to": "face:5"}]}),
    );
    let (text, got) = line_and_review(&mut c);
    assert!(got["worklist"].get("inherited_rejected").is_none(), "{got}");
    assert!(!text.contains("rejected"), "{text}");
}

/// `show_review` of revision 2: its line and its structured content.
fn line_and_review(c: &mut Client) -> (String, Value) {
    let got = c.ok("show_review", json!({"artifact": art_uri(&rev(2), FILE)}));
    let resp = c.call("show_review", json!({"artifact": art_uri(&rev(2), FILE)}));
    let text = resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    (text, got)
}
