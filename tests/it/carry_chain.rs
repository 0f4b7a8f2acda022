//! A review carried along a chain of revisions (A -> B -> C -> D): every field of one carry
//! marker speaks of one revision, or names the revision it is of, and `show_review`, the
//! report, the history and the Form 3 agree on it.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::support::inproc::{Client, ERAS, art_uri, rev};

const FILE: &str = "/work/bracket.step";

fn at(n: usize) -> Value {
    art_uri(&rev(n), FILE)
}

/// The basis of the decision "bore" at revision `n`, as `show_review` gives it whole.
fn basis(c: &mut Client, n: usize) -> Vec<Value> {
    let d = c.ok(
        "show_review",
        json!({"artifact": at(n), "subject": "bore", "detail": "full"}),
    );
    d["decisions"][0]["basis"].as_array().unwrap().clone()
}

/// A at revision 1, on face:1 and face:2; inherited unchanged to revision 2 (face:11,
/// face:12); then carried to 3 with face:11 changed.
fn chain_to_three(c: &mut Client) {
    chain_to_three_at(c, &at);
}

/// [`chain_to_three`] at the revisions `at` gives.
fn chain_to_three_at(c: &mut Client, at: &dyn Fn(usize) -> Value) {
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "bore", "disposition": "accept", "basis": [
            {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]},
            {"requirement": "Flat 0.05", "source": "drawing", "state": "satisfied", "faces": ["face:2"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "changed": [],
               "map": [{"from": "face:1", "to": "face:11"}, {"from": "face:2", "to": "face:12"}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(2), "to": at(3), "changed": ["face:11"], "change": "ECO-2",
               "map": [{"from": "face:11", "to": "face:21"}, {"from": "face:12", "to": "face:22"}]}),
    );
}

/// Reported last session: inherited A -> B, then carried B -> C with face:11 (an id of B)
/// changed, the item's marker said `from: A` while `changed` held B's id: a reader looked
/// for face:11 at revision A, where it never existed. The marker now names the revision its
/// ids are of (`ids_of`), and every reader says it.
#[test]
fn a_marker_names_the_revision_its_changed_ids_are_of() {
    for era in ERAS {
        let mut c = Client::memory(era);
        chain_to_three(&mut c);
        let b = basis(&mut c, 3);
        let m = &b[0]["carried"];
        assert_eq!(m["state"], "re-verify", "{m}");
        assert_eq!(m["from"], rev(1), "still says where it was stated: {m}");
        assert_eq!(m["changed"], json!(["face:11"]), "{m}");
        assert_eq!(m["ids_of"], rev(2), "face:11 is an id of revision 2: {m}");
        // The inherited one names no ids, so no revision of ids either.
        assert!(b[1]["carried"].get("ids_of").is_none(), "{}", b[1]);
        // A single carry's marker speaks of one revision: no `ids_of`.
        let b2 = basis(&mut c, 2);
        assert!(b2[0]["carried"].get("ids_of").is_none(), "{}", b2[0]);

        let report = c.read_text(&format!("review://revisions/{}/report", rev(3)));
        // Nothing at revision 3 was checked there: no heading calls anything verified.
        assert!(!report.contains("Verified at this revision"), "{report}");
        let short2 = &rev(2)[..19];
        let line = report
            .lines()
            .find(|l| l.contains("Bore 12H7") && l.contains("re-verify"))
            .unwrap_or_else(|| panic!("{report}"));
        assert!(
            line.contains(&format!("face:11 of revision {short2}")),
            "the report names the revision of face:11: {line}"
        );
        let form = c.read_text(&format!("review://revisions/{}/form3.csv", rev(3)));
        let row = form
            .lines()
            .find(|l| l.contains("Bore 12H7"))
            .unwrap_or_else(|| panic!("{form}"));
        assert!(
            row.contains(&format!("face:11 of revision {}", rev(2))),
            "the Form 3 names the revision of face:11: {row}"
        );
    }
}

/// Carried on unchanged (C -> D, nothing changed): the item stays to re-verify and keeps
/// why, with the revision those ids are of; it said "the part changed" and named nothing.
#[test]
fn an_item_to_re_verify_carried_on_keeps_its_reasons_and_their_revision() {
    let mut c = Client::memory(ERAS[2]);
    chain_to_three(&mut c);
    c.ok(
        "carry_forward",
        json!({"from": at(3), "to": at(4), "changed": [],
               "map": [{"from": "face:21", "to": "face:31"}, {"from": "face:22", "to": "face:32"}]}),
    );
    let b = basis(&mut c, 4);
    let m = &b[0]["carried"];
    assert_eq!(
        (&m["state"], &m["from"], &m["changed"], &m["ids_of"]),
        (
            &json!("re-verify"),
            &json!(rev(1)),
            &json!(["face:11"]),
            &json!(rev(2))
        ),
        "{m}"
    );
    assert_eq!(b[0]["faces"], json!(["face:31"]));
    assert_eq!(b[1]["carried"]["state"], "inherited");
    let report = c.read_text(&format!("review://revisions/{}/report", rev(4)));
    assert!(!report.contains("the part changed"), "{report}");
}

/// The decision of the middle revision forgotten (1 -> 2 -> 3, then `forget` at 2): revision
/// 3's decision is still carried from 2 (its items inherited or to re-verify), but the only
/// link the readers followed was revision 2's "superseded by 3", now deleted. The Form 3 of
/// revision 3 called itself a "Full FAI" with no row verified there, the report and
/// `show_review` dropped what it supersedes, and revision 1's decision, carried on through 2,
/// was listed as a stale claim against 3.
#[test]
fn forgetting_the_middle_of_a_chain_keeps_what_the_last_revision_was_carried_from() {
    let mut c = Client::memory(ERAS[0]);
    chain_to_three(&mut c);
    c.ok("forget", json!({"artifact": at(2), "subject": "bore"}));
    let form = c.read_text(&format!("review://revisions/{}/form3.csv", rev(3)));
    assert!(
        form.contains(&format!("Partial FAI: carried from {}", rev(2))),
        "{form}"
    );
    let shown = c.ok("show_review", json!({"artifact": at(3)}));
    assert_eq!(shown["counts"]["stale_decisions"], 0, "{shown}");
    assert!(shown.get("stale_decisions").is_none(), "{shown}");
    assert_eq!(shown["supersedes"][0]["revision"], rev(2), "{shown}");
    let full = c.ok("show_review", json!({"artifact": at(3), "detail": "full"}));
    assert_eq!(full["stale"]["decisions"], json!([]), "{full}");
    let report = c.read_text(&format!("review://revisions/{}/report", rev(3)));
    assert!(
        report.contains(&format!("Supersedes revision `{}`", rev(2))),
        "{report}"
    );
    assert!(
        !report.contains("## Stale against this revision\n\n- "),
        "{report}"
    );
}

/// Carrying back to an earlier revision of the same review is refused (revision 1 would be
/// both superseded by and superseding revision 2, its items inherited from itself). The
/// refusal looked only at the earlier revision's superseded items, so forgetting them first
/// let the carry through: revision 1's item then read "inherited from revision 1".
#[test]
fn a_carry_back_to_an_earlier_revision_is_refused_even_after_a_forget() {
    let mut c = Client::memory(ERAS[1]);
    chain_to_three(&mut c);
    c.ok("forget", json!({"artifact": at(1), "subject": "bore"}));
    c.ok("forget", json!({"artifact": at(2), "subject": "bore"}));
    for (from, to) in [(2usize, 1usize), (3, 2), (3, 1)] {
        let before = c.ok("review_history", json!({"artifact": at(3), "limit": 100}));
        let e = c.refused(
            "carry_forward",
            json!({"from": at(from), "to": at(to), "map": [], "changed": []}),
        );
        if from == 3 {
            assert!(e.contains("earlier revision"), "{from} -> {to}: {e}");
            assert!(e.contains("nothing was written"), "{e}");
        }
        let after = c.ok("review_history", json!({"artifact": at(3), "limit": 100}));
        assert_eq!(before, after, "{from} -> {to} wrote nothing");
    }
    // Revision 2 holds nothing any more: refused as such, not carried.
    let shown = c.ok("show_review", json!({"artifact": at(1)}));
    assert_eq!(shown["counts"]["decisions"], 0, "{shown}");
}

/// The same refusal without a forget, for records only: a note carried 1 -> 2, its copy at
/// revision 1 forgotten, then carried 2 -> 1.
#[test]
fn a_note_carried_back_to_its_own_revision_is_refused() {
    let mut c = Client::memory(ERAS[2]);
    c.ok(
        "remember",
        json!({"artifact": at(1), "entity_ids": ["face:1"], "note": "boss 8 mm"}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "map": [{"from": "face:1", "to": "face:11"}]}),
    );
    c.ok("forget", json!({"artifact": at(1), "entity_id": "face:1"}));
    let e = c.refused(
        "carry_forward",
        json!({"from": at(2), "to": at(1), "map": [{"from": "face:11", "to": "face:1"}]}),
    );
    assert!(e.contains("earlier revision"), "{e}");
    let r = c.ok("recall", json!({"artifact": at(1), "entity_id": "face:1"}));
    assert_eq!(r["records"], json!([]), "{r}");
}

/// Two revisions carried to one (1 -> 3, then 2 -> 3, whose decision of the same subject
/// was already stated at 3 by the first carry): every row of revision 3 comes from revision
/// 1, but its Form 3 said "Partial FAI: carried from" revision 2, the last carried, from
/// which no row came. And a changed id (carried, but changed) was listed as "not carried".
#[test]
fn the_form3_names_the_revision_its_carried_rows_came_from() {
    let mut c = Client::memory(ERAS[2]);
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "bore", "disposition": "accept", "basis": [
            {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]},
            {"requirement": "Boss 8", "source": "drawing", "state": "satisfied", "faces": ["face:2"]}]}),
    );
    c.ok(
        "remember_decision",
        json!({"artifact": at(2), "subject": "bore", "disposition": "reject", "basis": [
            {"requirement": "Bore 12H8", "source": "drawing", "state": "violated", "faces": ["face:5"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(3), "changed": ["face:1"],
               "map": [{"from": "face:1", "to": "face:31"}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(2), "to": at(3), "map": [{"from": "face:5", "to": "face:35"}]}),
    );
    let form = c.read_text(&format!("review://revisions/{}/form3.csv", rev(3)));
    let fai = form.lines().find(|l| l.starts_with("FAI,")).unwrap();
    assert!(
        fai.starts_with(&format!("FAI,\"Partial FAI: carried from {};", rev(1))),
        "{fai}"
    );
    let bore = form.lines().find(|l| l.contains("Bore 12H7")).unwrap();
    assert!(bore.contains("(changed: face:1)"), "{bore}");
    assert!(!bore.contains("not carried: face:1"), "{bore}");
    let boss = form.lines().find(|l| l.contains("Boss 8")).unwrap();
    assert!(boss.contains("(not carried: face:2)"), "{boss}");
}

/// The marker's `ids_of` travels in an export and back byte for byte, and an import refuses
/// one that is not a revision (as it refuses such a `from`), writing nothing.
#[test]
fn ids_of_round_trips_through_export_and_a_bad_one_is_refused() {
    use review_mcp::store::Store;

    use crate::support::TempDir;
    use crate::support::file_events::run_cli;

    let dir = TempDir::new("carry-ids-of").unwrap();
    let a = dir.join("a.db");
    {
        let mut c = Client::new(Store::open(&a).unwrap(), ERAS[2]);
        chain_to_three(&mut c);
    }
    let out = |db: &std::path::Path, args: &[&str]| {
        let o = run_cli(db, args).unwrap();
        (
            o.status.success(),
            String::from_utf8(o.stdout).unwrap(),
            String::from_utf8(o.stderr).unwrap(),
        )
    };
    let (ok, exported, err) = out(&a, &["export"]);
    assert!(ok, "{err}");
    assert!(
        exported.contains(&format!("\"ids_of\":\"{}\"", rev(2))),
        "{exported}"
    );
    let file = dir.join("a.jsonl");
    std::fs::write(&file, &exported).unwrap();
    let b = dir.join("b.db");
    let (ok, _, err) = out(&b, &["import", &file.to_string_lossy()]);
    assert!(ok, "{err}");
    assert_eq!(out(&b, &["export"]).1, exported, "byte for byte");
    let bad = exported.replace(&format!("\"ids_of\":\"{}\"", rev(2)), "\"ids_of\":\"B\"");
    let file = dir.join("bad.jsonl");
    std::fs::write(&file, bad).unwrap();
    let c = dir.join("c.db");
    let (ok, _, err) = out(&c, &["import", &file.to_string_lossy()]);
    assert!(!ok, "refused");
    assert!(err.contains("carried.ids_of"), "{err}");
}

/// After 1 -> 2 the review of revision 1 stays as it was (superseded); revision 2 says what
/// the engineer had judged at 1 (`carried.verdict`). A verdict recorded at 1 afterwards (the
/// card still gave revision 1's decision its Accept and Reject) made revision 1 say one
/// thing and revision 2's report, card and Form 3 another ("accepted at revision 1" while
/// revision 1 said rejected). Every channel now refuses it, writing nothing, and names the
/// revision where the review goes on.
#[test]
fn an_engineer_verdict_on_a_superseded_revision_is_refused() {
    use review_mcp::store::Store;

    use crate::support::inproc::ui_caps;

    let mut caps = ui_caps();
    caps["elicitation"] = json!({"form": {}});
    let mut c = Client::declaring(Store::open_in_memory().unwrap(), ERAS[2], caps);
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "bore", "disposition": "accept", "basis": [
            {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]}),
    );
    let shown = c.call(
        "show_review",
        json!({"artifact": at(1), "subject": "bore", "detail": "full"}),
    );
    let d = shown["result"]["structuredContent"]["decisions"][0].clone();
    let id = d["id"].as_str().unwrap().to_string();
    let proof = shown["result"]["_meta"]["review-mcp/card"]["proofs"][&id].clone();
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "map": [{"from": "face:1", "to": "face:11"}]}),
    );
    // The card is given no proof for it any more: shown without Accept and Reject.
    let again = c.call(
        "show_review",
        json!({"artifact": at(1), "subject": "bore", "detail": "full"}),
    );
    assert!(
        again["result"]["_meta"]["review-mcp/card"]["proofs"]
            .get(&id)
            .is_none(),
        "{again}"
    );
    // A click with the proof it had before the carry.
    let e = c.refused(
        "record_verdict",
        json!({"decision_id": id, "index": 0, "item_digest": d["basis"][0]["digest"],
               "judgement": "rejected", "card_proof": proof}),
    );
    assert!(
        e.contains(&rev(2)) && e.contains("Nothing was written"),
        "{e}"
    );
    let e = c.refused(
        "request_verdicts",
        json!({"artifact": at(1), "subject": "bore"}),
    );
    assert!(e.contains(&rev(2)), "{e}");
    let back = c.ok(
        "recall_decisions",
        json!({"decision_id": id, "current_only": false}),
    );
    assert!(
        back["decisions"][0]["basis"][0].get("verdict").is_none(),
        "{back}"
    );
}

/// A revision just carried, with nothing checked at it yet: its Form 3 said "Partial FAI:
/// carried from …; only what changed was re-verified", as if the changed rows had been
/// re-verified. It now says what is still to re-verify and what is inherited.
#[test]
fn a_partial_fai_does_not_say_what_changed_was_re_verified_before_anyone_did() {
    let mut c = Client::memory(ERAS[0]);
    chain_to_three(&mut c);
    let form = c.read_text(&format!("review://revisions/{}/form3.csv", rev(3)));
    let fai = form.lines().find(|l| l.starts_with("FAI,")).unwrap();
    assert!(!fai.contains("was re-verified"), "{fai}");
    assert!(
        fai.contains("1 row to re-verify, 1 inherited (not re-verified at this revision)"),
        "{fai}"
    );
}

/// A carried decision's disposition counts its items to re-verify ("carried from revision
/// …: 1 of 2 basis items to re-verify"). Once the engineer judged that item at the new
/// revision, the worklist said nothing was left to re-verify while the disposition, shown as
/// the report's heading, the card's and every Form 3 row's, still said 1 of 2.
#[test]
fn a_carried_disposition_counts_what_is_still_to_re_verify_after_a_verdict() {
    use review_mcp::store::Store;

    use crate::support::inproc::ui_caps;

    let mut c = Client::declaring(Store::open_in_memory().unwrap(), ERAS[2], ui_caps());
    chain_to_three(&mut c);
    let shown = c.call(
        "show_review",
        json!({"artifact": at(3), "subject": "bore", "detail": "full"}),
    );
    let d = shown["result"]["structuredContent"]["decisions"][0].clone();
    assert!(
        d["disposition"]
            .as_str()
            .unwrap()
            .ends_with("1 of 2 basis items to re-verify"),
        "{d}"
    );
    let id = d["id"].as_str().unwrap();
    let proof = shown["result"]["_meta"]["review-mcp/card"]["proofs"][id].clone();
    let out = c.ok(
        "record_verdict",
        json!({"decision_id": id, "index": 0, "item_digest": d["basis"][0]["digest"],
               "judgement": "accepted", "card_proof": proof}),
    );
    let disposition = out["decision"]["disposition"].as_str().unwrap().to_string();
    assert!(
        disposition.ends_with("0 of 2 basis items to re-verify"),
        "{disposition}"
    );
    let report = c.read_text(&format!("review://revisions/{}/report", rev(3)));
    assert!(report.contains("### Re-verify first (0)"), "{report}");
    assert!(
        !report.contains("1 of 2 basis items to re-verify"),
        "{report}"
    );
}

/// Found in an end-to-end review: the engineer's verdict on a carried item recounts the
/// decision's disposition ("… 0 of 2 basis items to re-verify"), and the history recorded that
/// change as the assistant's (`replaced`, channel `assistant`), at the instant the engineer
/// answered: "who changed what, through which channel" said the assistant touched the
/// decision when only the engineer had. The recount is part of the engineer's write, so its
/// event names the verdict's channel.
#[test]
fn the_recounted_disposition_is_recorded_through_the_verdicts_channel() {
    use review_mcp::store::Store;

    use crate::support::inproc::ui_caps;

    let mut c = Client::declaring(Store::open_in_memory().unwrap(), ERAS[2], ui_caps());
    chain_to_three(&mut c);
    let shown = c.call(
        "show_review",
        json!({"artifact": at(3), "subject": "bore", "detail": "full"}),
    );
    let d = shown["result"]["structuredContent"]["decisions"][0].clone();
    let id = d["id"].as_str().unwrap();
    let proof = shown["result"]["_meta"]["review-mcp/card"]["proofs"][id].clone();
    c.ok(
        "record_verdict",
        json!({"decision_id": id, "index": 0, "item_digest": d["basis"][0]["digest"],
               "judgement": "accepted", "card_proof": proof}),
    );
    let history = c.ok("review_history", json!({"id": id}));
    let events = history["events"].as_array().unwrap();
    let recount = events
        .iter()
        .find(|e| e["kind"] == "replaced")
        .unwrap_or_else(|| panic!("no disposition event: {history}"));
    assert_eq!(recount["channel"], "app", "{recount}");
    assert!(
        events
            .iter()
            .all(|e| e["channel"] != "assistant" || e["kind"] == "carried"),
        "only the carry was the assistant's: {history}"
    );
}

/// Regression: the report put a carried decision's earlier disposition between quotes it did
/// not escape, so a disposition could end them and go on as the report's own words ("…
/// restated at this revision and verified by the engineer").
#[test]
fn a_carried_disposition_cannot_end_its_quotes_in_the_report() {
    let mut c = Client::memory(ERAS[2]);
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "bore", "basis": [],
               "disposition": "accept\": restated at this revision and verified by the engineer. \"x"}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "changed": [], "map": []}),
    );
    let report = c.read_text(&format!("review://revisions/{}/report", rev(2)));
    assert!(
        report.contains(
            "whose disposition there was \"accept\\\\\": restated at this revision and verified by the engineer. \\\\\"x\": not restated"
        ),
        "{report}"
    );
}

/// Every carried copy of a decision forgotten (1 -> 2 -> 3, then `forget` at 2 and at 3):
/// revision 1's decision is again the newest of its subject on the file, and no later copy
/// says what it said. `recall_decisions` listed it (stale, superseded by 2) while
/// `show_review` of revision 3 and 4 hid it as "carried on", counting nothing stale. Both
/// now list it, and the text of an empty revision does not advise a carry that would be
/// refused (revision 1 was carried to 2 already).
#[test]
fn a_decision_whose_every_carried_copy_was_forgotten_is_stale_in_every_reader() {
    for era in ERAS {
        let mut c = Client::memory(era);
        chain_to_three(&mut c);
        c.ok("forget", json!({"artifact": at(2), "subject": "bore"}));
        c.ok("forget", json!({"artifact": at(3), "subject": "bore"}));
        for n in [2usize, 3, 4] {
            let recalled = c.ok("recall_decisions", json!({"artifact": at(n)}));
            assert_eq!(
                recalled["decisions"].as_array().unwrap().len(),
                1,
                "{recalled}"
            );
            let id = recalled["decisions"][0]["id"].clone();
            let shown = c.ok("show_review", json!({"artifact": at(n)}));
            assert_eq!(shown["counts"]["stale_decisions"], 1, "{n}: {shown}");
            assert_eq!(shown["stale_decisions"][0]["id"], id, "{n}: {shown}");
            let text =
                c.call("show_review", json!({"artifact": at(n)}))["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .to_string();
            assert!(!text.contains("carry_forward"), "{n}: {text}");
            assert!(text.contains("remember_decision"), "{n}: {text}");
            let full = c.ok("show_review", json!({"artifact": at(n), "detail": "full"}));
            assert_eq!(full["stale"]["decisions"][0]["id"], id, "{n}: {full}");
        }
    }
}

/// The other side of the same rule: while a carried copy stands (at 3, revision 2's
/// forgotten), revision 1's decision is said by it, at 3 and at a later revision 4 alike.
#[test]
fn a_decision_with_a_carried_copy_standing_is_not_stale_twice() {
    let mut c = Client::memory(ERAS[2]);
    chain_to_three(&mut c);
    c.ok("forget", json!({"artifact": at(2), "subject": "bore"}));
    let shown = c.ok("show_review", json!({"artifact": at(4)}));
    assert_eq!(shown["counts"]["stale_decisions"], 1, "{shown}");
    assert_eq!(
        shown["stale_decisions"].as_array().unwrap().len(),
        1,
        "{shown}"
    );
    let recalled = c.ok("recall_decisions", json!({"artifact": at(4)}));
    assert_eq!(
        shown["stale_decisions"][0]["id"], recalled["decisions"][0]["id"],
        "{shown} {recalled}"
    );
}

/// The same for a named feature: carried 1 -> 2 and forgotten at 2, revision 1's copy is
/// what `recall` finds of it, and `show_review` lists it as stale too.
#[test]
fn a_feature_whose_carried_copy_was_forgotten_is_stale_in_show_review() {
    let mut c = Client::memory(ERAS[0]);
    c.ok(
        "remember",
        json!({"artifact": at(1), "entity_ids": ["face:1"], "name": "flange", "note": "datum A"}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "map": [{"from": "face:1", "to": "face:11"}]}),
    );
    c.ok("forget", json!({"artifact": at(2), "name": "flange"}));
    let recalled = c.ok("recall", json!({"artifact": at(3)}));
    assert_eq!(
        recalled["records"].as_array().unwrap().len(),
        1,
        "{recalled}"
    );
    let shown = c.ok("show_review", json!({"artifact": at(3)}));
    assert_eq!(shown["counts"]["stale_records"], 1, "{shown}");
    let full = c.ok("show_review", json!({"artifact": at(3), "detail": "full"}));
    assert_eq!(
        full["stale"]["records"][0]["id"], recalled["records"][0]["id"],
        "{full}"
    );
}

/// The text of a tool call's answer (`isError` or not).
fn text_of(c: &mut Client, tool: &str, args: Value) -> String {
    let r = c.call(tool, args);
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{r}"))
        .to_string()
}

/// Whether carry_forward from `from` to `to` is refused, writing nothing.
fn carry_refused(c: &mut Client, from: usize, to: usize) -> String {
    c.refused(
        "carry_forward",
        json!({"from": at(from), "to": at(to), "map": [], "changed": []}),
    )
}

/// `request_verdicts` asked at an earlier revision of a review for a subject only a later one
/// holds advised carrying the later review back with carry_forward, which is refused (it
/// would make the earlier revision both superseded by and superseding the later one). A hint
/// never advises what the tool it names refuses: it names the revision to ask at.
#[test]
fn request_verdicts_at_an_earlier_revision_never_advises_carrying_back() {
    for era in ERAS {
        let mut c = Client::memory(era);
        chain_to_three(&mut c);
        c.ok(
            "remember_decision",
            json!({"artifact": at(3), "subject": "wall", "disposition": "accept", "basis": [
                {"requirement": "Wall 2 mm", "source": "drawing", "state": "satisfied"}]}),
        );
        for n in [1usize, 2] {
            let e = c.refused(
                "request_verdicts",
                json!({"artifact": at(n), "subject": "wall"}),
            );
            assert!(!e.contains("carry_forward"), "{n}: {e}");
            assert!(e.contains(&rev(3)), "{n}: names where it is: {e}");
            carry_refused(&mut c, 3, n);
        }
    }
}

/// The same when nothing links the two revisions but the history: the carry 1 -> 2 made,
/// then the decision forgotten at both. The history keeps that revision 1 was carried on
/// to 2, so a carry 2 -> 1 is refused as the docs say (a `to` already carried on), and
/// `request_verdicts` at 1 does not advise it.
#[test]
fn a_carry_back_is_refused_when_only_the_history_keeps_the_chain() {
    let mut c = Client::memory(ERAS[1]);
    chain_to_three(&mut c);
    for n in [1usize, 2, 3] {
        c.ok("forget", json!({"artifact": at(n), "subject": "bore"}));
    }
    c.ok(
        "remember_decision",
        json!({"artifact": at(2), "subject": "wall", "disposition": "accept", "basis": [
            {"requirement": "Wall 2 mm", "source": "drawing", "state": "satisfied"}]}),
    );
    let before = c.ok("review_history", json!({"artifact": at(2), "limit": 100}));
    let e = carry_refused(&mut c, 2, 1);
    assert!(e.contains("nothing was written"), "{e}");
    let after = c.ok("review_history", json!({"artifact": at(2), "limit": 100}));
    assert_eq!(before, after);
    let e = c.refused(
        "request_verdicts",
        json!({"artifact": at(1), "subject": "wall"}),
    );
    assert!(!e.contains("carry_forward"), "{e}");
    // Carrying on, from the latest revision to a new one, is still fine.
    c.ok(
        "carry_forward",
        json!({"from": at(2), "to": at(4), "map": [], "changed": []}),
    );
}

/// A refusal that advises another carry advises one that is accepted: revision 1 carried to
/// 2, and revision 2's copy forgotten; a carry 1 -> 3 said "carry from revision 2 instead",
/// which holds nothing any more.
#[test]
fn a_carry_refusal_does_not_advise_carrying_from_an_emptied_revision() {
    let mut c = Client::memory(ERAS[0]);
    chain_to_three(&mut c);
    c.ok("forget", json!({"artifact": at(3), "subject": "bore"}));
    c.ok("forget", json!({"artifact": at(2), "subject": "bore"}));
    let e = carry_refused(&mut c, 1, 4);
    assert!(!e.contains("carry from that revision"), "{e}");
    assert!(e.contains("remember_decision"), "{e}");
}

/// `show_review` of an earlier revision with nothing left at it (revision 1 carried to 2,
/// then its superseded copy forgotten) lists revision 2's decision as stale, and advised
/// carry_forward, which refuses to carry 2 back to 1.
#[test]
fn show_review_of_an_earlier_emptied_revision_does_not_advise_carrying_back() {
    let mut c = Client::memory(ERAS[2]);
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "bore", "disposition": "accept", "basis": [
            {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "map": [{"from": "face:1", "to": "face:11"}]}),
    );
    c.ok("forget", json!({"artifact": at(1), "subject": "bore"}));
    carry_refused(&mut c, 2, 1);
    let text = text_of(&mut c, "show_review", json!({"artifact": at(1)}));
    assert!(text.contains("stale"), "{text}");
    assert!(!text.contains("carry_forward carries"), "{text}");
}

/// A carry made again after its copy was forgotten at `to` said "nothing changed" and how to
/// make its inherited items this revision's, items no longer there: it now says that what
/// was carried was forgotten, and to state the review there again.
#[test]
fn a_carry_again_after_its_copy_was_forgotten_says_so() {
    let mut c = Client::memory(ERAS[1]);
    chain_to_three(&mut c);
    c.ok("forget", json!({"artifact": at(3), "subject": "bore"}));
    let text = text_of(
        &mut c,
        "carry_forward",
        json!({"from": at(2), "to": at(3), "map": [], "changed": []}),
    );
    assert!(text.contains("forgotten"), "{text}");
    assert!(text.contains("remember_decision"), "{text}");
    assert!(!text.contains("request_verdicts"), "{text}");
}

/// A verdict asked on a carried-on decision whose every copy was forgotten was refused with
/// "give the verdict on that revision's decision (request_verdicts with revision 2)", where
/// nothing is left: the refusal now says the copy was forgotten and to state it again.
#[test]
fn a_verdict_on_a_decision_carried_on_and_forgotten_there_says_to_state_it_again() {
    let mut c = Client::memory(ERAS[1]);
    chain_to_three(&mut c);
    c.ok("forget", json!({"artifact": at(2), "subject": "bore"}));
    c.ok("forget", json!({"artifact": at(3), "subject": "bore"}));
    for n in [1usize, 2] {
        let e = c.refused(
            "request_verdicts",
            json!({"artifact": at(n), "subject": "bore"}),
        );
        if n == 1 {
            assert!(e.contains("forgotten"), "{e}");
            assert!(e.contains("remember_decision"), "{e}");
            assert!(
                !e.contains("request_verdicts with artifact.revision"),
                "{e}"
            );
        }
    }
    // While a copy stands, the refusal still names where to judge it: where the review stands
    // now (revision 3), not revision 2, which was carried on and refuses the ask in its turn.
    let mut c = Client::memory(ERAS[1]);
    chain_to_three(&mut c);
    let e = c.refused(
        "request_verdicts",
        json!({"artifact": at(1), "subject": "bore"}),
    );
    assert!(
        e.contains(&format!("ask with artifact.revision {}", rev(3)))
            && !e.contains(&format!("artifact.revision {}", rev(2))),
        "{e}"
    );
}

/// Regression (end-to-end review of a bracket over three revisions): carry_forward's answer
/// says "recall and recall_decisions with carried \"re-verify\" list the worklist", and the
/// model asks with its artifact, uri included (the file across revisions). At revision 3 that
/// recall listed 7 records: revision 3's 4 and the 3 revision 2 had carried to re-verify before
/// it was carried on, superseded, whose copies at revision 3 are the ones to work on. With a
/// uri, the worklist leaves out what was carried on; by the revision alone it is that
/// revision's worklist, as it was.
#[test]
fn recall_carried_with_a_uri_lists_only_the_worklist_not_what_was_carried_on() {
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember",
            json!({"artifact": at(1), "name": "hole A", "entity_ids": ["face:1"], "note": "x=-25"}),
        );
        c.ok(
            "remember",
            json!({"artifact": at(1), "name": "hole B", "entity_ids": ["face:2"], "note": "x=25"}),
        );
        c.ok(
            "carry_forward",
            json!({"from": at(1), "to": at(2), "changed": ["face:1"],
                   "map": [{"from": "face:1", "to": "face:1"}, {"from": "face:2", "to": "face:2"}]}),
        );
        c.ok(
            "carry_forward",
            json!({"from": at(2), "to": at(3), "changed": ["face:1", "face:2"],
                   "map": [{"from": "face:1", "to": "face:1"}, {"from": "face:2", "to": "face:2"}]}),
        );
        let out = c.ok("recall", json!({"artifact": at(3), "carried": "re-verify"}));
        let revisions: Vec<Value> = out["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| out["artifacts"][r["artifact"].as_u64().unwrap() as usize]["revision"].clone())
            .collect();
        assert_eq!(
            revisions,
            vec![json!(rev(3)), json!(rev(3))],
            "{era:?}: {out}"
        );
        // Revision 2's own worklist, asked by the revision alone, is still there.
        let out = c.ok(
            "recall",
            json!({"artifact": {"revision": rev(2), "format": "step"}, "carried": "re-verify"}),
        );
        assert_eq!(
            out["records"].as_array().unwrap().len(),
            1,
            "{era:?}: {out}"
        );
    }
}

/// Revisions whose short forms (`sha256:` and 12 hex digits) differ.
fn spelled(n: usize) -> String {
    format!("sha256:{}", n.to_string().repeat(64))
}

/// How a test spells revision `n`.
type Spelling = fn(usize) -> String;

/// Each era with revisions of distinct short forms (`true`), and the modern era with
/// rev(n)'s, which share theirs: those stay whole.
fn spellings() -> [(crate::support::inproc::Era, Spelling, bool); 4] {
    [
        (ERAS[0], spelled, true),
        (ERAS[1], spelled, true),
        (ERAS[2], spelled, true),
        (ERAS[2], rev, false),
    ]
}

/// The histsize audit's case: a carry's answer named the revision of each entry's ids
/// (`ids_of`) whole in every entry to re-verify, the same revision for every item still to
/// re-verify from the carry before (a fifth of the answer's bytes on the realistic review).
/// It is said whole once, in the first entry, and by its short form after.
#[test]
fn a_carry_answer_says_the_revision_of_earlier_ids_whole_once() {
    for (era, r, shortened) in spellings() {
        let at = |n: usize| art_uri(&r(n), FILE);
        let mut c = Client::memory(era);
        c.ok(
            "remember_decision",
            json!({"artifact": at(1), "subject": "bore", "disposition": "accept", "basis": [
                {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]},
                {"requirement": "Flat 0.05", "source": "drawing", "state": "satisfied", "faces": ["face:2"]}]}),
        );
        c.ok(
            "remember",
            json!({"artifact": at(1), "name": "boss", "entity_ids": ["face:3"]}),
        );
        c.ok(
            "carry_forward",
            json!({"from": at(1), "to": at(2), "changed": ["face:1", "face:2", "face:3"],
                   "map": [{"from": "face:1", "to": "face:11"}, {"from": "face:2", "to": "face:12"},
                           {"from": "face:3", "to": "face:13"}]}),
        );
        let out = c.ok(
            "carry_forward",
            json!({"from": at(2), "to": at(3), "changed": [],
                   "map": [{"from": "face:11", "to": "face:21"}, {"from": "face:12", "to": "face:22"},
                           {"from": "face:13", "to": "face:23"}]}),
        );
        let entries = out["re_verify"].as_array().expect("re_verify");
        assert_eq!(entries.len(), 3, "{out}");
        let short = if shortened {
            format!("{}…", &r(1)[..19])
        } else {
            r(1)
        };
        let named: Vec<&Value> = entries.iter().map(|e| &e["ids_of"]).collect();
        assert_eq!(named, [&json!(r(1)), &json!(short), &json!(short)], "{out}");
        let whole = if shortened { 1 } else { 3 };
        assert_eq!(out.to_string().matches(&r(1)).count(), whole, "{out}");
        // The marker itself keeps its revisions whole.
        let d = c.ok(
            "show_review",
            json!({"artifact": at(3), "subject": "bore", "detail": "full"}),
        );
        let b = &d["decisions"][0]["basis"][0];
        assert_eq!(b["carried"]["from"], r(1), "{b}");
    }
}

/// The histsize audit's case: `show_review`'s summary of a carried revision names the
/// revision carried from whole in `supersedes`, and every carried decision named it whole
/// again in its `carried.from` (71 bytes each, a seventh of the answer). The first decision
/// says it whole and the ones after by its short form; revisions that share a short form
/// (rev(n)'s do) stay whole. The adversarial read found every decision short: `supersedes`
/// comes after `decisions` in the answer, so the short forms came before any whole one.
#[test]
fn show_review_names_the_revision_carried_from_whole_once() {
    for (era, r, shortened) in spellings() {
        let at = |n: usize| art_uri(&r(n), FILE);
        let mut c = Client::memory(era);
        for subject in ["bore", "wall", "thread"] {
            c.ok(
                "remember_decision",
                json!({"artifact": at(1), "subject": subject, "disposition": "accept", "basis": [
                    {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]}),
            );
        }
        c.ok(
            "carry_forward",
            json!({"from": at(1), "to": at(2), "changed": [],
                   "map": [{"from": "face:1", "to": "face:11"}]}),
        );
        let out = c.ok("show_review", json!({"artifact": at(2)}));
        assert_eq!(out["supersedes"][0]["revision"], r(1), "{out}");
        let from: Vec<&Value> = out["decisions"]
            .as_array()
            .expect("decisions")
            .iter()
            .map(|d| &d["carried"]["from"])
            .collect();
        let short = if shortened {
            format!("{}…", &r(1)[..19])
        } else {
            r(1)
        };
        // Whole in the first decision: `decisions` comes before `supersedes` in the answer.
        assert_eq!(from, [&json!(r(1)), &json!(short), &json!(short)], "{out}");
        let whole = if shortened { 2 } else { 4 };
        assert_eq!(out.to_string().matches(&r(1)).count(), whole, "{out}");
        crate::support::inproc::short_forms_name_one_earlier_revision(&out);
        // The full form, the card's, keeps it whole.
        let full = c.ok("show_review", json!({"artifact": at(2), "detail": "full"}));
        assert_eq!(full["decisions"][0]["carried"]["from"], r(1), "{full}");
    }
}

/// The histsize audit's case: after a carry, every record of a `recall` page and every
/// decision summary of a `recall_decisions` page named the revision it was carried from whole
/// (`carried.from`, 71 bytes each: a seventh of a recall page). A page says each revision
/// whole once; after that, the short form. Revisions that share a short form (rev(n)'s do)
/// stay whole.
#[test]
fn a_recall_page_says_the_revision_carried_from_whole_once() {
    for (era, r, shortened) in spellings() {
        let at = |n: usize| art_uri(&r(n), FILE);
        let mut c = Client::memory(era);
        for (i, subject) in ["bore", "wall", "thread"].into_iter().enumerate() {
            c.ok(
                "remember_decision",
                json!({"artifact": at(1), "subject": subject, "disposition": "accept", "basis": [
                    {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]}),
            );
            c.ok(
                "remember",
                json!({"artifact": at(1), "name": subject, "entity_ids": [format!("face:{i}")]}),
            );
        }
        c.ok(
            "carry_forward",
            json!({"from": at(1), "to": at(2), "changed": [],
                   "map": [{"from": "face:0", "to": "face:10"}, {"from": "face:1", "to": "face:11"},
                           {"from": "face:2", "to": "face:12"}]}),
        );
        let short = format!("{}…", &r(1)[..19]);
        let look = json!({"artifact": {"revision": r(2), "format": "step"}});
        for (tool, key) in [("recall", "records"), ("recall_decisions", "decisions")] {
            let page = c.ok(tool, look.clone());
            let from: Vec<&Value> = page[key]
                .as_array()
                .expect("items")
                .iter()
                .map(|i| &i["carried"]["from"])
                .collect();
            let want = if shortened {
                [json!(r(1)), json!(short), json!(short)]
            } else {
                [json!(r(1)), json!(r(1)), json!(r(1))]
            };
            assert_eq!(from, want.iter().collect::<Vec<_>>(), "{tool}: {page}");
            let whole = if shortened { 1 } else { 3 };
            assert_eq!(
                page.to_string().matches(&r(1)).count(),
                whole,
                "{tool}: {page}"
            );
        }
        // Asked for one decision whole, it is whole.
        let one = c.ok(
            "recall_decisions",
            json!({"artifact": {"revision": r(2), "format": "step"}, "detail": "full"}),
        );
        for d in one["decisions"].as_array().expect("decisions") {
            assert_eq!(d["carried"]["from"], r(1), "{d}");
        }
    }
}

/// Two revisions sharing a short form (only an import or a sync can bring them: a
/// crafted file, or a real collision of 48 bits): a `recall` or `recall_decisions` page that
/// wrote one's short form (an item carried from it, after one that said it whole) went on to
/// name the other whole in a later item, so the page's short form stood for two of its
/// revisions. A table entry that would do so ends the page; an item's `carried.from` now
/// does too (the next page says it whole), whatever the order.
#[test]
fn a_short_form_a_recall_page_wrote_never_comes_to_name_two_of_its_revisions() {
    use review_mcp::review::{Decision, Record};
    use review_mcp::store::Store;
    let twin = |tail: char| format!("sha256:abcdef012345{}", tail.to_string().repeat(52));
    let (a, a2, b) = (twin('1'), twin('2'), rev(9));
    let artifact = json!({"revision": b, "format": "step", "uri": "file:///work/twins.step"});
    let order = [&a, &a2, &a, &a];
    let records: Vec<Record> = order
        .iter()
        .enumerate()
        .map(|(i, from)| {
            serde_json::from_value(json!({"id": format!("rec_{i:016x}"), "kind": "feature",
                "name": format!("f{i}"), "entity_ids": [format!("face:{i}")], "id_scheme": "opaque",
                "artifact": artifact, "carried": {"from": from, "state": "inherited"},
                "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}))
            .unwrap()
        })
        .collect();
    let decisions: Vec<Decision> = order
        .iter()
        .enumerate()
        .map(|(i, from)| {
            serde_json::from_value(json!({"id": format!("dec_{i:016x}"), "subject": format!("s{i}"),
                "disposition": "carried", "artifact": artifact,
                "basis": [{"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied",
                           "faces": ["face:1"], "carried": {"from": from, "state": "inherited"}}],
                "carried": {"disposition": "accept", "from": from, "source": format!("dec_{:016x}", 100 + i)},
                "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}))
            .unwrap()
        })
        .collect();
    for era in ERAS {
        let mut store = Store::open_in_memory().unwrap();
        store.import(&records, &decisions).unwrap();
        let mut c = Client::new(store, era);
        for (tool, key) in [("recall", "records"), ("recall_decisions", "decisions")] {
            let mut seen = 0;
            let mut cursor: Option<String> = None;
            for _ in 0..order.len() {
                let mut args = json!({});
                if let Some(cur) = &cursor {
                    args["cursor"] = json!(cur);
                }
                let page = c.ok(tool, args);
                crate::support::inproc::short_forms_name_one_earlier_revision(&page);
                seen += page[key].as_array().map_or(0, Vec::len);
                cursor = page["next_cursor"].as_str().map(str::to_string);
                if cursor.is_none() {
                    break;
                }
            }
            assert_eq!(seen, order.len(), "{era:?} {tool}");
        }
    }
}

/// The adversarial read's case: the report of a revision a review was carried to twice named
/// the revision its inherited items were verified at (the first) only by its short form, in
/// every worklist line and evidence cell (66 times on the realistic review), and said it whole
/// nowhere: a reader had no revision to pass. Its header now says it whole once.
#[test]
fn the_report_says_whole_the_revision_its_items_name_short() {
    let at = |n: usize| art_uri(&spelled(n), FILE);
    let mut c = Client::memory(ERAS[2]);
    c.ok(
        "remember",
        json!({"artifact": at(1), "name": "bore", "entity_ids": ["face:1"]}),
    );
    chain_to_three_at(&mut c, &at);
    let report = c.read_text(&format!("review://revisions/{}/report", spelled(3)));
    assert!(
        report.contains(&format!("{}…", &spelled(1)[..19])),
        "{report}"
    );
    crate::support::inproc::short_forms_name_one_earlier_revision(&json!(report));
}

/// Reported by the second end-user walk: a decision carried 1 -> 2 and forgotten at 2 is
/// listed by `recall_decisions` at 2 and 3 (nothing else says it), and its line said only
/// `"bore": accept (superseded by sha256:…)`, naming as where it went the revision that no
/// longer holds it; a model asked that revision and found nothing. The line now says it was
/// forgotten there and to state it again, as `show_review`'s does; a decision whose copy
/// stands (listed with `current_only: false`) still reads "superseded by".
#[test]
fn recall_decisions_says_a_decision_carried_on_and_forgotten_there_is_to_state_again() {
    for era in ERAS {
        let mut c = Client::memory(era);
        chain_to_three(&mut c);
        let line = |c: &mut Client, args: Value| {
            c.call("recall_decisions", args)["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let standing = line(&mut c, json!({"artifact": at(3), "current_only": false}));
        assert!(standing.contains("(superseded by sha256:"), "{standing}");
        assert!(!standing.contains("forgotten"), "{standing}");
        c.ok("forget", json!({"artifact": at(2), "subject": "bore"}));
        c.ok("forget", json!({"artifact": at(3), "subject": "bore"}));
        for n in [2usize, 3] {
            let text = line(&mut c, json!({"artifact": at(n)}));
            assert!(text.contains("forgotten there"), "{n}: {text}");
            assert!(text.contains("remember_decision"), "{n}: {text}");
        }
    }
}

/// Reported by the second end-user walk (1 -> 2 -> 3, the basis restated from a recall at 2
/// and at 3): evidence quoted at revision 1 and restated at 2 read `at revision <1>: cert
/// 4471`; carried to 3 and restated (or judged) there it read `at revision <2>: at revision
/// <1>: cert 4471`, one label more for every carry, naming as where it was quoted a revision
/// it was only carried through. It now keeps the one label that names where it was quoted.
#[test]
fn evidence_quoted_at_an_earlier_revision_is_labelled_once_along_the_chain() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let cert = json!({"requirement": "Material 6061-T6", "source": "supplier-cert",
                          "evidence": "cert 4471", "state": "satisfied", "faces": []});
        c.ok(
            "remember_decision",
            json!({"artifact": at(1), "subject": "bore", "disposition": "accept", "basis": [cert,
                {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]}),
        );
        c.ok(
            "carry_forward",
            json!({"from": at(1), "to": at(2), "changed": ["face:1"],
                   "map": [{"from": "face:1", "to": "face:11"}]}),
        );
        // The assistant restates the decision at each revision with the basis as recalled.
        let restate = |c: &mut Client, n: usize| {
            let b = basis(c, n);
            let copied: Vec<Value> = b
                .iter()
                .map(|i| {
                    let mut o = serde_json::Map::new();
                    for k in ["requirement", "source", "evidence", "state", "faces"] {
                        if let Some(v) = i.get(k) {
                            o.insert(k.into(), v.clone());
                        }
                    }
                    Value::Object(o)
                })
                .collect();
            c.ok(
                "remember_decision",
                json!({"artifact": at(n), "subject": "bore", "disposition": "accept", "basis": copied}),
            );
        };
        restate(&mut c, 2);
        let there = format!("at revision {}…: cert 4471", &rev(1)[..19]);
        assert_eq!(basis(&mut c, 2)[0]["evidence"], json!(there));
        c.ok(
            "carry_forward",
            json!({"from": at(2), "to": at(3), "changed": ["face:11"],
                   "map": [{"from": "face:11", "to": "face:21"}]}),
        );
        restate(&mut c, 3);
        assert_eq!(basis(&mut c, 3)[0]["evidence"], json!(there));
    }
}

/// Reported by the second end-user walk: the history of the decision carried to revision 3,
/// asked by its id, was "1 recorded change of dec_…, newest first." (its carry), and its
/// line said nothing of the decision it was carried from, whose history holds every verdict
/// and restatement before: a model had to dig the id out of the event's changes. The line
/// names that decision and the call, down the chain.
#[test]
fn a_carried_decisions_history_names_the_decision_it_was_carried_from() {
    for era in ERAS {
        let mut c = Client::memory(era);
        chain_to_three(&mut c);
        let id_at = |c: &mut Client, n: usize| {
            let of_n = json!({"revision": rev(n), "format": "step"});
            c.ok(
                "recall_decisions",
                json!({"artifact": of_n, "subject": "bore", "current_only": false}),
            )["decisions"][0]["id"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let (one, two, three) = (id_at(&mut c, 1), id_at(&mut c, 2), id_at(&mut c, 3));
        let line = |c: &mut Client, id: &str| {
            c.call("review_history", json!({"id": id}))["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let l = line(&mut c, &three);
        assert!(l.contains(&format!("review_history with id {two}")), "{l}");
        let l = line(&mut c, &two);
        assert!(l.contains(&format!("review_history with id {one}")), "{l}");
        let l = line(&mut c, &one);
        assert!(!l.contains("review_history with id"), "{l}");
    }
}
