//! Issue 27 (part A): a review follows the part to its next revision. Over the wire, in each
//! era: a review at revision 1 with the engineer's verdicts (given in the review card),
//! carried to revision 2 with a map where one face changed and one is unmapped; what is
//! inherited, what must be re-verified, that no verdict counts at revision 2, supersession in
//! recalls, the report and the card's data, idempotence, refusals that write nothing, the
//! worklist filters and order, and what makes an item fresh again. Then the export round
//! trip and a sync between two databases carry all of it.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use review_mcp::store::Store;
use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::client::binary;
use crate::support::inproc::{Client, ERAS, Era, art, art_uri, rev, ui_caps};

const FILE: &str = "/work/bracket.step";
const CHANGE: &str = "ECO-17: hole 12 -> 12.5";

fn r1() -> String {
    rev(1)
}

fn r2() -> String {
    rev(2)
}

/// The map of the geometry server: face:1 and face:3 carry (face:3 changed), face:7 is gone.
fn map() -> Value {
    json!([{"from": "face:1", "to": "face:11"}, {"from": "face:3", "to": "face:13"}])
}

fn carry_args() -> Value {
    json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE), "map": map(),
           "changed": ["face:3"], "change": CHANGE})
}

/// Revision 1: two features, two notes, a decision of four items with the engineer's
/// verdicts on two (the card) and the assistant's on one. Returns the decision's id.
fn review_at_r1(c: &mut Client) -> String {
    let a = art_uri(&r1(), FILE);
    c.ok(
        "remember",
        json!({"artifact": a, "name": "bore", "entity_ids": ["face:3"], "note": "12H7"}),
    );
    c.ok(
        "remember",
        json!({"artifact": a, "name": "flange", "entity_ids": ["face:1"], "note": "flat"}),
    );
    c.ok(
        "remember",
        json!({"artifact": a, "entity_ids": ["face:7"], "note": "boss 8 mm high"}),
    );
    c.ok(
        "remember",
        json!({"artifact": a, "entity_ids": [], "note": "material 6061-T6"}),
    );
    let d = c.ok(
        "remember_decision",
        json!({"artifact": a, "subject": "bore", "disposition": "rework", "basis": [
            {"requirement": "Bore 12H7", "source": "drawing", "state": "violated", "faces": ["face:3"],
             "evidence": "measure: 12.031"},
            {"requirement": "Flange flat 0.05", "source": "drawing", "state": "satisfied", "faces": ["face:1"]},
            {"requirement": "Boss height 8", "source": "model-pmi", "state": "satisfied", "faces": ["face:7"],
             "verdict": {"judgement": "accepted"}},
            {"requirement": "Material 6061-T6", "source": "shop-spec", "state": "satisfied"}
        ]}),
    );
    let id = d["decision"]["id"].as_str().unwrap().to_string();
    // The engineer, in the review card: the bore rejected, the flange accepted.
    for (index, judgement) in [(0, "rejected"), (1, "accepted")] {
        let out = in_card(c, &a, index, judgement);
        assert_eq!(out["decision"]["id"], json!(id));
        assert_eq!(out["verdict"]["via"], "app");
    }
    id
}

/// The engineer's verdict on item `index` of the first decision `show_review` shows at
/// `artifact`, clicked in the review card; `record_verdict`'s answer.
fn in_card(c: &mut Client, artifact: &Value, index: usize, judgement: &str) -> Value {
    let shown = c.call(
        "show_review",
        json!({"artifact": artifact, "detail": "full"}),
    );
    let d = &shown["result"]["structuredContent"]["decisions"][0];
    let id = d["id"].as_str().unwrap();
    // The card's proof, given to the card in the result's _meta (issue 28).
    let proof = shown["result"]["_meta"]["review-mcp/card"]["proofs"][id].clone();
    c.ok(
        "record_verdict",
        json!({"decision_id": id, "index": index, "item_digest": d["basis"][index]["digest"],
               "judgement": judgement, "card_proof": proof}),
    )
}

fn resource(c: &mut Client, revision: &str) -> Value {
    serde_json::from_str(&c.read_text(&format!("review://revisions/{revision}"))).unwrap()
}

fn report(c: &mut Client, revision: &str) -> String {
    c.read_text(&format!("review://revisions/{revision}/report"))
}

/// Everything both revisions hold, as the resources and recalls show it: what a refused or
/// repeated carry must leave as it was.
fn state(c: &mut Client) -> Value {
    let mut s = json!({});
    for r in [r1(), r2()] {
        let rs = c.ok("recall", json!({"artifact": art(&r), "limit": 100}));
        let ds = c.ok(
            "recall_decisions",
            json!({"artifact": art(&r), "current_only": false, "detail": "full", "limit": 100}),
        );
        s[&r] = json!({"records": rs, "decisions": ds});
    }
    s
}

fn names(page: &Value) -> Vec<String> {
    let mut v: Vec<String> = page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["name"]
                .as_str()
                .or(r["note"].as_str())
                .unwrap()
                .to_string()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn carry_forward_inherits_re_verifies_and_supersedes_in_each_era() {
    for era in ERAS {
        let mut c = Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps());
        let old_id = review_at_r1(&mut c);
        let before = state(&mut c);

        // Refused, each with a message, and nothing written.
        let mut bad = carry_args();
        bad["map"] =
            json!([{"from": "face:1", "to": "face:11"}, {"from": "face:1", "to": "face:12"}]);
        let e = c.refused("carry_forward", bad);
        assert!(
            e.contains("two ids") && e.contains("nothing was written"),
            "{e}"
        );
        let mut unknown = carry_args();
        unknown["from"] = art_uri(&rev(9), FILE);
        let e = c.refused("carry_forward", unknown);
        assert!(e.contains("nothing is recorded at revision"), "{e}");
        let mut same = carry_args();
        same["to"] = art_uri(&r1(), FILE);
        let e = c.refused("carry_forward", same);
        assert!(e.contains("same revision"), "{e}");
        let mut empty = carry_args();
        empty["to"]["revision"] = json!("");
        let e = c.refused("carry_forward", empty);
        assert!(e.contains("malformed"), "{e}");
        let mut long = carry_args();
        long["map"][0]["to"] = json!("f".repeat(300));
        let e = c.refused("carry_forward", long);
        assert!(
            e.contains("over its limit") && e.contains("nothing was written"),
            "{e}"
        );
        assert_eq!(
            state(&mut c),
            before,
            "{era:?}: a refused carry writes nothing"
        );

        let out = c.ok("carry_forward", carry_args());
        assert_eq!(out["already_carried"], false);
        assert_eq!(out["records"], json!({"inherited": 1, "re_verify": 3}));
        assert_eq!(out["decisions"][0]["inherited"], 1, "{out}");
        assert_eq!(out["decisions"][0]["re_verify"], 3, "{out}");
        assert_eq!(out["decisions"][0]["source"], json!(old_id));

        // Inherited: every entity mapped, none changed; its ids mapped.
        let r2a = art(&r2());
        let inherited = c.ok("recall", json!({"artifact": r2a, "carried": "inherited"}));
        assert_eq!(names(&inherited), ["flange"]);
        let flange = &inherited["records"][0];
        assert_eq!(flange["entity_ids"], json!(["face:11"]));
        assert_eq!(flange["carried"]["from"], json!(r1()));
        assert_eq!(flange["carried"]["state"], "inherited");
        // Re-verify: a changed face, an unmapped face, the whole part when anything changed.
        let re = c.ok("recall", json!({"artifact": r2a, "carried": "re-verify"}));
        assert_eq!(
            names(&re),
            ["bore", "boss 8 mm high", "material 6061-T6"],
            "{re}"
        );
        for r in re["records"].as_array().unwrap() {
            match r["name"].as_str().or(r["note"].as_str()).unwrap() {
                "bore" => {
                    assert_eq!(r["carried"]["changed"], json!(["face:3"]));
                    assert_eq!(r["entity_ids"], json!(["face:13"]));
                }
                "boss 8 mm high" => {
                    assert_eq!(r["carried"]["unmapped"], json!(["face:7"]));
                    assert_eq!(r["entity_ids"], json!([]));
                }
                _ => assert_eq!(r["entity_ids"], json!([])),
            }
        }

        // The carried decision: its subject kept, its disposition not restated, no verdict
        // of revision 2; the engineer's verdicts travel as history, the assistant's do not.
        let full = c.ok(
            "recall_decisions",
            json!({"artifact": art_uri(&r2(), FILE), "subject": "bore"}),
        );
        let d = &full["decisions"][0];
        assert_eq!(d["subject"], "bore");
        let disposition = d["disposition"].as_str().unwrap();
        assert!(
            disposition.starts_with("carried from revision") && disposition.contains("3 of 4"),
            "{disposition}"
        );
        assert!(!disposition.contains("rework"), "{disposition}");
        assert_eq!(d["carried"]["disposition"], "rework");
        assert_eq!(d["carried"]["change"], CHANGE);
        let b = d["basis"].as_array().unwrap();
        for item in b {
            assert!(
                item.get("verdict").is_none(),
                "no verdict at revision 2: {item}"
            );
        }
        assert_eq!(b[0]["carried"]["state"], "re-verify");
        assert_eq!(b[0]["carried"]["changed"], json!(["face:3"]));
        assert_eq!(b[0]["faces"], json!(["face:13"]));
        assert_eq!(b[0]["carried"]["verdict"]["judgement"], "rejected");
        assert_eq!(b[0]["carried"]["verdict"]["via"], "app");
        assert_eq!(b[1]["carried"]["state"], "inherited");
        assert_eq!(b[1]["carried"]["verdict"]["judgement"], "accepted");
        assert_eq!(b[2]["carried"]["unmapped"], json!(["face:7"]));
        assert!(
            b[2]["carried"].get("verdict").is_none(),
            "the assistant's verdict does not travel"
        );
        assert_eq!(b[3]["carried"]["state"], "re-verify", "whole part");
        let judged = c.ok(
            "recall_decisions",
            json!({"artifact": r2a, "verdict": "accepted"}),
        );
        assert_eq!(
            judged["decisions"],
            json!([]),
            "no verdict counts at revision 2"
        );
        let engineer = c.ok("recall_decisions", json!({"artifact": r2a, "via": "app"}));
        assert_eq!(engineer["decisions"], json!([]));

        // The worklist filters of recall_decisions.
        for (filter, n) in [("inherited", 1), ("re-verify", 1)] {
            let got = c.ok(
                "recall_decisions",
                json!({"artifact": r2a, "carried": filter}),
            );
            assert_eq!(got["decisions"].as_array().unwrap().len(), n, "{filter}");
        }
        let at_r1 = c.ok(
            "recall_decisions",
            json!({"artifact": art(&r1()), "carried": "re-verify", "current_only": false}),
        );
        assert_eq!(at_r1["decisions"], json!([]));

        // Revision 1 says it was superseded, and what it said stays reachable by entity (at
        // revision 1, supplied: nothing there is a copy left out).
        let by_entity = c.call(
            "recall",
            json!({"artifact": art_uri(&r1(), FILE), "entity_id": "face:3"}),
        );
        let text = by_entity["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("superseded"), "{text}");
        let page = &by_entity["result"]["structuredContent"];
        assert_eq!(names(page), ["bore"]);
        assert_eq!(page["records"][0]["entity_ids"], json!(["face:3"]));
        // A page says the carry once, in the record's artifact entry.
        let entry = &page["artifacts"][page["records"][0]["artifact"].as_u64().unwrap() as usize];
        assert_eq!(entry["superseded"]["by"], json!(r2()));
        assert_eq!(entry["superseded"]["change"], CHANGE);
        let old = c.ok(
            "recall_decisions",
            json!({"artifact": art(&r1()), "current_only": false, "detail": "full"}),
        );
        let od = &old["decisions"][0];
        assert_eq!(od["id"], json!(old_id));
        assert_eq!(od["disposition"], "rework", "kept as it was");
        let entry = &old["artifacts"][od["artifact"].as_u64().unwrap() as usize];
        assert_eq!(entry["superseded"]["by"], json!(r2()));
        assert_eq!(
            od["basis"][1]["verdict"]["via"], "app",
            "kept at revision 1"
        );
        let v1 = resource(&mut c, &r1());
        assert_eq!(v1["superseded_by"]["revision"], json!(r2()), "{v1}");
        let rep1 = report(&mut c, &r1());
        assert!(rep1.contains("Superseded by revision"), "{rep1}");

        // The Form 3 of revision 2: a partial FAI whose carried rows are not its results.
        let csv = c.read_text(&format!("review://revisions/{}/form3.csv", r2()));
        assert!(
            csv.contains(&format!("Partial FAI: carried from {}", r1())),
            "{csv}"
        );
        let row = |needle: &str| {
            csv.lines()
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{needle} in {csv}"))
                .to_string()
        };
        assert!(
            row("Flange flat").contains("inherited (satisfied)"),
            "{csv}"
        );
        assert!(row("Flange flat").contains(&r1()), "{csv}");
        assert!(row("Bore 12H7").contains("re-verify (violated)"), "{csv}");
        assert!(row("Boss height").contains("face:7"), "{csv}");
        assert!(
            !row("Flange flat").contains(",PASS,"),
            "not a result of revision 2: {csv}"
        );

        // A decision stated at revision 2 itself: newer, yet after the worklist.
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(&r2(), FILE), "subject": "paint", "disposition": "release",
                   "basis": [{"requirement": "RAL 7035", "source": "drawing", "state": "satisfied"}]}),
        );

        // The report: revision 1 as what was carried, not a rival stale decision; the
        // worklist first (re-verify, inherited with its history, verified here).
        let rep = report(&mut c, &r2());
        assert!(rep.contains("Supersedes revision"), "{rep}");
        assert!(rep.contains("ECO-17"), "{rep}");
        assert!(!rep.contains("Decision **bore**: rework"), "{rep}");
        assert!(
            rep.contains("Nothing recorded for these files at other revisions"),
            "{rep}"
        );
        let at = |s: &str| rep.find(s).unwrap_or_else(|| panic!("{s} in {rep}"));
        assert!(at("Re-verify first (6)") < at("Inherited, not re-verified (2)"));
        assert!(at("Inherited, not re-verified (2)") < at("Stated at this revision"));
        assert!(at("Stated at this revision") < at("## Decisions"));
        assert!(
            rep.contains("accepted by the engineer (review card) at revision"),
            "{rep}"
        );
        assert!(rep.contains("0 given by the engineer"), "{rep}");

        // show_review: the same, as the card's data and as the model's summary.
        let card = c.ok(
            "show_review",
            json!({"artifact": art_uri(&r2(), FILE), "detail": "full"}),
        );
        assert_eq!(card["supersedes"][0]["revision"], json!(r1()), "{card}");
        assert_eq!(
            card["worklist"],
            json!({"re_verify": 6, "inherited": 2, "stated_here": 1})
        );
        assert_eq!(card["stale"]["decisions"], json!([]));
        assert_eq!(card["stale"]["records"], json!([]));
        assert_eq!(card["decisions"][0]["subject"], "bore", "re-verify first");
        assert_eq!(card["decisions"][1]["subject"], "paint");
        assert_eq!(
            card["decisions"][0]["basis"][0]["carried"]["state"],
            "re-verify"
        );
        assert_eq!(card["records"][0]["carried"]["state"], "re-verify");
        let last = card["records"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["name"], "flange", "inherited after re-verify");
        let summary = c.ok("show_review", json!({"artifact": art_uri(&r2(), FILE)}));
        assert_eq!(
            summary["decisions"][0]["carried"]["re_verify"], 3,
            "{summary}"
        );
        // None: no empty list says it (counts.stale_decisions does).
        assert!(summary.get("stale_decisions").is_none(), "{summary}");

        // The engineer is asked about what must be re-verified, not about what is inherited,
        // and the form shows each carried item's history.
        if era == Era::V2026_07_28 {
            let asked = c.request_declaring(
                "tools/call",
                json!({"name": "request_verdicts", "arguments": {"artifact": art_uri(&r2(), FILE), "subject": "bore"}}),
                json!({"elicitation": {"form": {}}}),
            );
            let params = &asked["result"]["inputRequests"]["verdicts"]["params"];
            assert_eq!(
                params["requestedSchema"]["required"],
                json!([
                    "item_000_judgement",
                    "item_002_judgement",
                    "item_003_judgement"
                ]),
                "{asked}"
            );
            // Said once, in the fields (issue 28: no detail twice in the form).
            let fields = params["requestedSchema"]["properties"].to_string();
            assert!(
                fields.contains("rejected by the engineer (review card) at revision"),
                "{fields}"
            );
        }

        // The same carry again changes nothing.
        let settled = state(&mut c);
        let again = c.ok("carry_forward", carry_args());
        assert_eq!(again["already_carried"], true, "{again}");
        assert_eq!(state(&mut c), settled, "{era:?}: idempotent");
        // Carrying revision 1 elsewhere now is refused.
        let mut fork = carry_args();
        fork["to"] = art_uri(&rev(3), FILE);
        let e = c.refused("carry_forward", fork);
        assert!(e.contains("already carried to revision"), "{e}");

        // Re-stating makes an item fresh: the assistant re-measured the bore; the engineer
        // judged the flange item at revision 2.
        let bore = c.ok(
            "remember",
            json!({"artifact": art_uri(&r2(), FILE), "name": "bore", "entity_ids": ["face:13"], "note": "12.5H7"}),
        );
        assert_eq!(bore["replaced"], true);
        assert!(bore["record"].get("carried").is_none(), "{bore}");
        let re = c.ok("recall", json!({"artifact": r2a, "carried": "re-verify"}));
        assert_eq!(names(&re), ["boss 8 mm high", "material 6061-T6"]);
        let shown = c.call(
            "show_review",
            json!({"artifact": art_uri(&r2(), FILE), "detail": "full"}),
        );
        let review = &shown["result"]["structuredContent"];
        let carried_id = review["decisions"][0]["id"].clone();
        let digest = review["decisions"][0]["basis"][1]["digest"].clone();
        // The card's proof, given to the card in the result's _meta (issue 28).
        let proof = shown["result"]["_meta"]["review-mcp/card"]["proofs"]
            [carried_id.as_str().unwrap()]
        .clone();
        c.ok(
            "record_verdict",
            json!({"decision_id": carried_id, "index": 1, "item_digest": digest, "judgement": "accepted",
                   "card_proof": proof}),
        );
        let none = c.ok(
            "recall_decisions",
            json!({"artifact": r2a, "carried": "inherited"}),
        );
        assert_eq!(none["decisions"], json!([]));
        let judged = c.ok("recall_decisions", json!({"artifact": r2a, "via": "app"}));
        assert_eq!(judged["decisions"].as_array().unwrap().len(), 1);
    }
}

/// A real session (build123d-mcp, bore 10 -> 10.5): the bore's only face could not be mapped,
/// so the carried bore feature and basis items kept no id. The report's Faces column, its
/// feature line, the Form 3's Reference Location and the card all said "whole part": a claim
/// the item never made. They now say the item has no id at this revision and which could
/// not be carried; an item that is about the whole part still says so.
#[test]
fn an_item_whose_ids_were_not_carried_is_not_shown_as_about_the_whole_part() {
    for era in ERAS {
        let mut c = Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps());
        review_at_r1(&mut c);
        c.ok("carry_forward", carry_args());
        let lost = "none at this revision (face:7 not carried)";
        let rep = report(&mut c, &r2());
        assert!(
            rep.contains(&format!(
                "| Boss height 8 | model-pmi | re-verify (satisfied there) |  | {lost} |"
            )),
            "{rep}"
        );
        assert!(
            rep.contains(
                "| Material 6061-T6 | shop-spec | re-verify (satisfied there) |  | whole part |"
            ),
            "{rep}"
        );
        assert!(rep.contains(&format!("boss 8 mm high ({lost})")), "{rep}");
        assert!(rep.contains("material 6061-T6 (whole part)"), "{rep}");
        let csv = c.read_text(&format!("review://revisions/{}/form3.csv", r2()));
        let row = |req: &str| {
            csv.lines()
                .find(|l| l.contains(req))
                .unwrap_or_else(|| panic!("{req} in {csv}"))
                .to_string()
        };
        assert!(row("Boss height 8").contains(&format!(",{lost},")), "{csv}");
        assert!(row("Material 6061-T6").contains(",whole part,"), "{csv}");
    }
}

fn cli(db: &Path, args: &[&str]) -> String {
    let out = Command::new(binary())
        .arg("--db")
        .arg(db)
        .args(args)
        .env("MCP_LOG_LEVEL", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Export, import and sync carry what carry_forward wrote: export -> import -> export is
/// byte-identical, and a sync through a folder into another database gives the same export.
#[test]
fn carry_forward_survives_export_import_and_sync() {
    let dir = TempDir::new("carry-export").unwrap();
    let a = dir.join("a.db");
    let d = dir.join("d.db");
    {
        let mut c = Client::declaring(Store::open(&d).unwrap(), ERAS[0], ui_caps());
        c.ok(
            "remember",
            json!({"artifact": art_uri(&r1(), FILE), "name": "flange", "entity_ids": ["face:1"], "note": "old"}),
        );
    }
    {
        let mut c = Client::declaring(Store::open(&a).unwrap(), ERAS[2], ui_caps());
        review_at_r1(&mut c);
        c.ok("carry_forward", carry_args());
    }
    let exported = cli(&a, &["export"]);
    for marker in [
        "\"carried\":",
        "\"superseded\":",
        "\"re-verify\"",
        "\"inherited\"",
    ] {
        assert!(exported.contains(marker), "{marker}: {exported}");
    }
    let file = dir.join("a.jsonl");
    std::fs::write(&file, &exported).unwrap();
    let b = dir.join("b.db");
    cli(&b, &["import", &file.to_string_lossy()]);
    assert_eq!(cli(&b, &["export"]), exported, "round trip byte-identical");

    let folder = dir.join("shared");
    cli(&a, &["sync", &folder.to_string_lossy()]);
    let c = dir.join("c.db");
    cli(&c, &["sync", &folder.to_string_lossy()]);
    assert_eq!(cli(&c, &["export"]), exported, "a sync carries it too");

    // Imported into a database that holds an older flange at revision 1: the feature moves
    // to revision 2, and what revision 1 said stays as its superseded copy.
    cli(&d, &["import", &file.to_string_lossy()]);
    let mut c = Client::new(Store::open(&d).unwrap(), ERAS[2]);
    let live = c.ok(
        "recall",
        json!({"artifact": art(&r2()), "carried": "inherited"}),
    );
    assert_eq!(names(&live), ["flange"]);
    let old = c.ok(
        "recall",
        json!({"artifact": art_uri(&r1(), FILE), "entity_id": "face:1", "current_only": false}),
    );
    assert_eq!(names(&old), ["flange"]);
    let entry = &old["artifacts"][old["records"][0]["artifact"].as_u64().unwrap() as usize];
    assert_eq!(entry["superseded"]["by"], json!(r2()));
}

/// A large carry answers within the answer bound (issue 26), listing what fits and counting
/// the rest, and the worklist pages through everything.
#[test]
fn carry_forward_answer_of_a_large_revision_stays_within_the_bound() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), ERAS[2]);
    let a = art_uri(&r1(), FILE);
    for i in 0..120 {
        let faces: Vec<String> = (0..40)
            .map(|j| format!("face:{i}-{j}-{}", "x".repeat(60)))
            .collect();
        c.ok(
            "remember_decision",
            json!({"artifact": a, "subject": format!("subject {i} {}", "s".repeat(200)),
                   "disposition": "hold", "basis": [
                {"requirement": "r", "source": "drawing", "state": "satisfied", "faces": faces},
                {"requirement": "r2", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}
            ]}),
        );
    }
    let resp = c.call(
        "carry_forward",
        json!({"from": a, "to": art_uri(&r2(), FILE), "map": map(), "changed": []}),
    );
    let line = serde_json::to_string(&resp).unwrap();
    assert!(line.len() <= 32_000, "{} bytes", line.len());
    let out = &resp["result"]["structuredContent"];
    assert!(out["omitted"].as_u64().unwrap() > 0, "{out}");
    let mut seen = 0;
    let mut cursor: Option<Value> = None;
    loop {
        let mut args = json!({"artifact": art(&r2()), "carried": "re-verify", "limit": 200});
        if let Some(cur) = &cursor {
            args["cursor"] = cur.clone();
        }
        let page = c.ok("recall_decisions", args);
        seen += page["decisions"].as_array().unwrap().len();
        match page.get("next_cursor") {
            Some(n) => cursor = Some(n.clone()),
            None => break,
        }
    }
    assert_eq!(seen, 120);
}

/// Regression (found by the review-over-time audit): after revision 1 was carried to 2 and 2
/// to 3, revision 3's review listed revision 1's items as stale claims against it, while
/// revision 2's (carried here directly) were not: what was carried here through an earlier
/// carry is this revision's lineage too. An item of revision 1 that was never carried stays
/// stale.
#[test]
fn a_review_carried_twice_lists_no_item_of_its_lineage_as_stale() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), ERAS[2]);
    review_at_r1(&mut c);
    c.ok("carry_forward", carry_args());
    let r3 = rev(3);
    c.ok(
        "carry_forward",
        json!({"from": art_uri(&r2(), FILE), "to": art_uri(&r3, FILE),
               "map": [{"from": "face:11", "to": "face:21"}, {"from": "face:13", "to": "face:23"}],
               "changed": [], "change": "ECO-18: paint"}),
    );
    let summary = c.ok("show_review", json!({"artifact": art_uri(&r3, FILE)}));
    assert_eq!(summary["counts"]["stale_decisions"], 0, "{summary}");
    assert_eq!(summary["counts"]["stale_records"], 0, "{summary}");
    assert!(summary.get("stale_decisions").is_none(), "{summary}");
    let view = resource(&mut c, &r3);
    assert_eq!(view["stale"]["decisions"], json!([]), "{view}");
    assert_eq!(view["stale"]["records"], json!([]), "{view}");
    // Written at revision 1 after it was carried: never carried, so stale against 3.
    c.ok(
        "remember",
        json!({"artifact": art_uri(&r1(), FILE), "name": "late", "entity_ids": [], "note": "n"}),
    );
    let summary = c.ok("show_review", json!({"artifact": art_uri(&r3, FILE)}));
    assert_eq!(summary["counts"]["stale_records"], 1, "{summary}");
    let view = resource(&mut c, &r3);
    let stale: Vec<&str> = view["stale"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(stale, ["late"], "{view}");
}

/// Regression (real-part review): the Form 3 of a carried revision kept saying "Partial FAI:
/// … only what changed was re-verified" after every row had been stated again at it. The FAI
/// line follows the rows: partial while a row is still carried, full once none is.
#[test]
fn form3_is_a_full_fai_once_every_row_is_stated_again() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), ERAS[2]);
    review_at_r1(&mut c);
    c.ok("carry_forward", carry_args());
    let fai = |c: &mut Client| {
        let csv = c.read_text(&format!("review://revisions/{}/form3.csv", r2()));
        csv.lines()
            .find(|l| l.starts_with("FAI,"))
            .unwrap_or_default()
            .to_string()
    };
    assert!(fai(&mut c).starts_with(&format!("FAI,\"Partial FAI: carried from {}", r1())));
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&r2(), FILE), "subject": "bore", "disposition": "accept",
               "basis": [{"requirement": "Bore 12.5H7", "source": "drawing", "state": "satisfied",
                          "faces": ["face:13"], "evidence": "measure: 12.51"}]}),
    );
    assert_eq!(
        fai(&mut c),
        format!(
            "FAI,\"Full FAI: carried from {}, and every row stated again at this revision\",,,,,,,,,,,,,,,,",
            r1()
        )
    );
}

/// Found in an end-to-end review: the assistant carried the review without `changed` (every
/// item inherited), saw its mistake and called again with `changed`. The answer, "Already
/// carried: … nothing changed.", said nothing of the new arguments: the model took the
/// correction as made, while the changed bore stayed inherited, not re-verified. The answer
/// says the call's map and changed were not applied, and how to make such an item this
/// revision's.
#[test]
fn a_carry_made_again_with_other_arguments_says_they_were_not_applied() {
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(&r1(), FILE), "subject": "bore", "disposition": "accept",
                   "basis": [{"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied",
                              "faces": ["face:3"]}]}),
        );
        let first = json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE),
                           "map": [{"from": "face:3", "to": "face:13"}]});
        assert_eq!(c.ok("carry_forward", first)["already_carried"], false);
        let mut corrected = json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE),
                                   "map": [{"from": "face:3", "to": "face:13"}]});
        corrected["changed"] = json!(["face:3"]);
        let again = c.call("carry_forward", corrected);
        assert_eq!(
            again["result"]["structuredContent"]["already_carried"], true,
            "{again}"
        );
        let text = again["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("this call's map and changed were not applied"),
            "{text}"
        );
        assert!(
            text.contains("remember_decision") && text.contains("request_verdicts"),
            "says how to make an item this revision's: {text}"
        );
        // The item is still inherited, as the answer says.
        let b = c.ok(
            "recall_decisions",
            json!({"artifact": art_uri(&r2(), FILE), "carried": "inherited"}),
        );
        assert_eq!(b["decisions"].as_array().unwrap().len(), 1, "{b}");
    }
}

/// Found in an end-to-end review: the part changed, and the assistant asked for the
/// engineer's verdicts at the new revision before carrying the review. The refusal said "No
/// decision … check the subject with recall_decisions, or record it with remember_decision
/// first": the way to re-type the decision at the new revision, losing the carry (what is
/// inherited, what to re-verify, the engineer's earlier verdicts as history). It now names
/// where the decision is and that carry_forward brings it here; and, for a moved file, the
/// file the same revision has it under.
#[test]
fn request_verdicts_before_the_carry_points_to_the_revision_that_has_the_decision() {
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(&r1(), FILE), "subject": "bore", "disposition": "hold",
                   "basis": [{"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied"}]}),
        );
        let out = c.call(
            "request_verdicts",
            json!({"artifact": art_uri(&r2(), FILE), "subject": "bore"}),
        );
        assert_eq!(out["result"]["isError"], true, "{out}");
        let text = out["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("this file has it at revision {}", r1()))
                && text.contains("carry_forward"),
            "{text}"
        );
        // The same bytes under another path.
        let moved = c.call(
            "request_verdicts",
            json!({"artifact": art_uri(&r1(), "/work/released/bracket.step"), "subject": "bore"}),
        );
        let text = moved["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("under another file (\"file:///work/bracket.step\""),
            "{text}"
        );
        // Once carried, the old revision's decision is not offered again.
        c.ok(
            "carry_forward",
            json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE), "map": []}),
        );
        c.ok(
            "forget",
            json!({"artifact": art_uri(&r2(), FILE), "subject": "bore"}),
        );
        let gone = c.call(
            "request_verdicts",
            json!({"artifact": art_uri(&r2(), FILE), "subject": "bore"}),
        );
        let text = gone["result"]["content"][0]["text"].as_str().unwrap();
        assert!(!text.contains("this file has it"), "{text}");
    }
}

/// Found in an end-to-end review: after a carry, `forget` of a named feature deleted every
/// row of that name at the file: the feature at the new revision and what the old revision
/// said of it (its superseded copy), whichever revision the artifact named ("Deleted 2").
/// Forgetting the feature at the old revision emptied the new revision's worklist, and
/// forgetting it at the new one erased the old revision's record, as no decision forget
/// does. The artifact's revision now says which: that revision's superseded copy when there
/// is one, else the feature as it stands.
#[test]
fn forget_of_a_carried_feature_deletes_only_the_named_revisions_row() {
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember",
            json!({"artifact": art_uri(&r1(), FILE), "entity_ids": ["face:3"], "name": "mounting face"}),
        );
        c.ok(
            "carry_forward",
            json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE),
                   "map": [{"from": "face:3", "to": "face:13"}], "changed": ["face:3"]}),
        );
        let rows = |c: &mut Client| -> Vec<String> {
            let page = c.ok(
                "recall",
                json!({"artifact": art_uri(&r2(), FILE), "current_only": false}),
            );
            let artifacts = page["artifacts"].as_array().unwrap().clone();
            page["records"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    let a = &artifacts[r["artifact"].as_u64().unwrap() as usize];
                    a["revision"].as_str().unwrap().to_string()
                })
                .collect()
        };
        assert_eq!(
            rows(&mut c).len(),
            2,
            "the feature and its copy at revision 1"
        );
        // At the old revision: its copy only; the carried feature stays to re-verify.
        let out = c.ok(
            "forget",
            json!({"artifact": art_uri(&r1(), FILE), "name": "mounting face"}),
        );
        assert_eq!(out["deleted"], 1, "{out}");
        assert_eq!(rows(&mut c), vec![r2()]);
        // At the new revision: the feature as it stands.
        let out = c.ok(
            "forget",
            json!({"artifact": art_uri(&r2(), FILE), "name": "mounting face"}),
        );
        assert_eq!(out["deleted"], 1, "{out}");
        assert!(rows(&mut c).is_empty());

        // Forgotten at the new revision first, the old revision's record stays.
        let mut c = Client::memory(era);
        c.ok(
            "remember",
            json!({"artifact": art_uri(&r1(), FILE), "entity_ids": ["face:3"], "name": "mounting face"}),
        );
        c.ok(
            "carry_forward",
            json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE), "map": []}),
        );
        let out = c.ok(
            "forget",
            json!({"artifact": art_uri(&r2(), FILE), "name": "mounting face"}),
        );
        assert_eq!(out["deleted"], 1, "{out}");
        assert_eq!(rows(&mut c), vec![r1()]);
        // A feature never carried is forgotten whatever revision the artifact names.
        c.ok(
            "remember",
            json!({"artifact": art_uri(&r2(), FILE), "entity_ids": [], "name": "datum A"}),
        );
        let out = c.ok(
            "forget",
            json!({"artifact": art_uri(&rev(3), FILE), "name": "datum A"}),
        );
        assert_eq!(out["deleted"], 1, "{out}");
    }
}

/// forget is idempotent (its annotations say so, and a client may retry it): after a carry,
/// forget of a feature's name at the old revision deleted that revision's copy, and the same
/// call made again found no copy there and deleted the feature as it stands at the new
/// revision, emptying its worklist. A carried feature is forgotten as it stands only at the
/// revision it stands at.
#[test]
fn forget_of_a_carried_features_name_made_again_deletes_nothing_more() {
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember",
            json!({"artifact": art_uri(&r1(), FILE), "entity_ids": ["face:3"], "name": "bore"}),
        );
        c.ok(
            "carry_forward",
            json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE),
                   "map": [{"from": "face:3", "to": "face:13"}]}),
        );
        let at_r1 = json!({"artifact": art_uri(&r1(), FILE), "name": "bore"});
        assert_eq!(c.ok("forget", at_r1.clone())["deleted"], 1);
        assert_eq!(c.ok("forget", at_r1)["deleted"], 0, "a retry deleted more");
        // Nor does a revision the feature never was at reach it.
        let at_r3 = json!({"artifact": art_uri(&rev(3), FILE), "name": "bore"});
        let out = c.call("forget", at_r3);
        assert_eq!(out["result"]["structuredContent"]["deleted"], 0, "{out}");
        // Which says where the feature stands, to forget it there.
        let text = out["result"]["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            text,
            format!(
                "Deleted 0 (feature \"bore\"). The feature stands at revision {} of this file: forget it with that revision.",
                r2()
            )
        );
        let page = c.ok("recall", json!({"artifact": art_uri(&r2(), FILE)}));
        assert_eq!(page["records"].as_array().unwrap().len(), 1, "{page}");
        let at_r2 = json!({"artifact": art_uri(&r2(), FILE), "name": "bore"});
        assert_eq!(c.ok("forget", at_r2.clone())["deleted"], 1);
        assert_eq!(c.ok("forget", at_r2)["deleted"], 0);
    }
}

/// Regression (end-to-end review of a bracket): after a carry, the engineer's form showed a
/// re-verify item as "source: drawing; state: satisfied; evidence: find_holes: location
/// x=-25.0; faces: face:10; re-verify (face:10 changed), carried from revision …": the earlier
/// revision's state and evidence read as this revision's, and the engineer accepted it, so
/// the new revision's Form 3 showed a PASS with the evidence of before the change (the hole had
/// moved to x=-23.0). The form now says first that the item is carried and why, and labels its
/// state and evidence as the earlier revision's ("state there", "evidence there"), as the
/// Form 3's comments do.
#[test]
fn carry_forward_form_labels_a_carried_items_evidence_as_the_earlier_revisions() {
    let mut c = Client::memory(Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&r1(), FILE), "subject": "release", "disposition": "hold",
               "basis": [{"requirement": "Hole A position 25.00 ±0.10", "source": "drawing",
                          "evidence": "find_holes: location x=-25.0", "state": "satisfied",
                          "faces": ["face:10"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE),
               "map": [{"from": "face:10", "to": "face:10"}], "changed": ["face:10"]}),
    );
    let asked = c.request_declaring(
        "tools/call",
        json!({"name": "request_verdicts", "arguments": {"artifact": art_uri(&r2(), FILE), "subject": "release"}}),
        json!({"elicitation": {"form": {}}}),
    );
    let params = &asked["result"]["inputRequests"]["verdicts"]["params"];
    let about = params["requestedSchema"]["properties"]["item_000_judgement"]["description"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        about.starts_with("re-verify, carried from revision ")
            && about.contains(" (changed there: face:10)"),
        "{about}"
    );
    assert!(
        about.contains("state there: satisfied")
            && about.contains("evidence there: find_holes: location x=-25.0"),
        "{about}"
    );
    assert!(!about.contains("; evidence: "), "{about}");
}

/// The same in the engineer's terminal (`review-mcp review`): a carried item said
/// "state: satisfied" and "evidence: …" before the line saying it was carried from the earlier
/// revision to re-verify. The carry comes first, and state and evidence are labelled "there".
#[test]
fn carry_forward_terminal_labels_a_carried_items_evidence_as_the_earlier_revisions() {
    let dir = TempDir::new("carry-terminal-there").unwrap();
    let db = dir.join("r.db");
    {
        let mut c = Client::new(Store::open(&db).unwrap(), Era::V2026_07_28);
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(&r1(), FILE), "subject": "release", "disposition": "hold",
                   "basis": [{"requirement": "Hole A position 25.00 ±0.10", "source": "drawing",
                              "evidence": "find_holes: location x=-25.0", "state": "satisfied",
                              "faces": ["face:10"]}]}),
        );
        c.ok(
            "carry_forward",
            json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE),
                   "map": [{"from": "face:10", "to": "face:10"}], "changed": ["face:10"]}),
        );
    }
    let mut store = Store::open(&db).unwrap();
    let mut input: &[u8] = b"q\n";
    let mut out = Vec::new();
    review_mcp::terminal::review(&mut store, &r2(), &mut input, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in {text}"));
    assert!(
        at("re-verify first") < at("state there: satisfied"),
        "{text}"
    );
    assert!(
        text.contains("evidence there: find_holes: location x=-25.0"),
        "{text}"
    );
}

/// Regression (end-to-end review of a bracket): `changed` names old ids, as the map's `from`
/// does, but an id of the new revision there (the map's `to`, here face:14, the hole's id after
/// the change) matched no item and was silently ignored: the moved hole's items were carried
/// as inherited, "0 items to re-verify". An id the map has only as a new id is refused, naming
/// the old id it maps from, and nothing is written.
#[test]
fn carry_forward_refuses_a_new_id_in_changed() {
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(&r1(), FILE), "subject": "holes", "disposition": "accept",
                   "basis": [{"requirement": "Hole A at 25±0.1", "source": "drawing",
                              "state": "satisfied", "evidence": "x=-25.0", "faces": ["face:10"]}]}),
        );
        let e = c.refused(
            "carry_forward",
            json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE),
                   "map": [{"from": "face:10", "to": "face:14"}], "changed": ["face:14"]}),
        );
        assert!(
            e.contains("\"face:14\"") && e.contains("\"face:10\"") && e.contains("old id"),
            "{e}"
        );
        let none = c.ok(
            "recall_decisions",
            json!({"artifact": {"revision": r2(), "format": "step"}}),
        );
        assert_eq!(none["decisions"], json!([]), "nothing written: {none}");
        // An id that is an old id too (face:12 -> face:10, face:10 -> face:12) is an old id.
        let ok = c.ok(
            "carry_forward",
            json!({"from": art_uri(&r1(), FILE), "to": art_uri(&r2(), FILE),
                   "map": [{"from": "face:10", "to": "face:12"}, {"from": "face:12", "to": "face:10"}],
                   "changed": ["face:10"]}),
        );
        assert_eq!(ok["decisions"][0]["re_verify"], 1, "{ok}");
    }
}

/// Regression (a real plate reviewed through the Python client): the summary of a carried
/// decision (`show_review`, `recall_decisions`) counted each carried item's state at the
/// revision it came from as a state of this one: `"states": {"satisfied": 3, "violated": 1}`
/// for a decision nothing of which had been checked at the new revision. A carried item is
/// counted in `carried` (inherited or to re-verify) until it is stated here; the engineer's
/// verdict at this revision makes it this revision's, and then its state counts.
#[test]
fn a_carried_decisions_summary_counts_no_state_of_the_earlier_revision() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), ERAS[2]);
    let old = review_at_r1(&mut c);
    c.ok("carry_forward", carry_args());
    let at_r2 = |c: &mut Client| {
        let shown = c.ok("show_review", json!({"artifact": art_uri(&r2(), FILE)}));
        let listed = c.ok(
            "recall_decisions",
            json!({"artifact": art_uri(&r2(), FILE)}),
        );
        assert_eq!(
            shown["decisions"][0], listed["decisions"][0],
            "{shown} {listed}"
        );
        listed["decisions"][0].clone()
    };
    let d = at_r2(&mut c);
    assert_eq!(d["items"], 4, "{d}");
    assert_eq!(
        d["carried"],
        json!({"from": r1(), "inherited": 1, "re_verify": 3})
    );
    assert_eq!(
        d["states"],
        json!({}),
        "nothing was checked at revision 2: {d}"
    );
    assert_eq!(d["verdicts"], json!({"none": 4}), "{d}");
    // The state filter agrees: nothing is violated at revision 2 yet, whether the filter
    // leads the query or follows the text filter.
    let violated = |c: &mut Client, extra: Value| {
        let mut args = json!({"artifact": art_uri(&r2(), FILE), "state": "violated"});
        if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
            a.extend(e.clone());
        }
        c.ok("recall_decisions", args)["decisions"]
            .as_array()
            .map_or(0, Vec::len)
    };
    assert_eq!(violated(&mut c, json!({})), 0);
    assert_eq!(violated(&mut c, json!({"text": "bore"})), 0);
    let at_r1 = c.ok(
        "recall_decisions",
        json!({"artifact": art(&r1()), "state": "violated", "current_only": false}),
    );
    assert_eq!(at_r1["decisions"][0]["id"], json!(old), "{at_r1}");

    // The engineer judges the bore (violated there) at revision 2, in the card.
    let out = in_card(&mut c, &art_uri(&r2(), FILE), 0, "rejected");
    assert_ne!(out["decision"]["id"], json!(old));
    let d = at_r2(&mut c);
    assert_eq!(d["states"], json!({"violated": 1}), "{d}");
    assert_eq!(d["carried"]["re_verify"], 2, "{d}");
    assert_eq!(violated(&mut c, json!({})), 1);
    assert_eq!(violated(&mut c, json!({"text": "bore"})), 1);
}

/// Regression (the same review): the report's "Open questions" gave a carried item's state as
/// this revision's ("(unresolved, drawing)"), where its table row says "inherited (unresolved
/// there)". The open question is labelled as its row is.
#[test]
fn the_reports_open_questions_label_a_carried_items_state_as_the_earlier_revisions() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), ERAS[0]);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&r1(), FILE), "subject": "fit", "disposition": "hold", "basis": [
            {"requirement": "Flange fit H7", "source": "drawing", "state": "unresolved",
             "question": "H7 or J7?", "faces": ["face:1"]}]}),
    );
    c.ok("carry_forward", carry_args());
    let rep = report(&mut c, &r2());
    let open = &rep[rep.find("## Open questions").unwrap()..];
    assert!(
        open.contains(
            "- **fit** (inherited (unresolved there), drawing): Flange fit H7. Question: H7 or J7?"
        ),
        "{open}"
    );
    let rep = report(&mut c, &r1());
    let open = &rep[rep.find("## Open questions").unwrap()..];
    assert!(
        open.contains("- **fit** (unresolved, drawing): Flange fit H7."),
        "{open}"
    );
}

/// Regression (the same review): a decision carried to revision 2 and forgotten there comes
/// back as stale against revision 2 (its revision-1 copy, which nothing else says now). With
/// nothing else recorded, show_review's line said to state it again; with other items still
/// recorded it only counted "1 item stale against it", with no word of why or what to do.
#[test]
fn show_review_says_to_state_again_what_was_carried_here_and_forgotten() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), ERAS[0]);
    review_at_r1(&mut c);
    c.ok("carry_forward", carry_args());
    let line = |c: &mut Client| {
        let r = c.call("show_review", json!({"artifact": art_uri(&r2(), FILE)}));
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        line(&mut c).contains("0 items stale against it)"),
        "{}",
        line(&mut c)
    );
    c.ok(
        "forget",
        json!({"artifact": art_uri(&r2(), FILE), "subject": "bore"}),
    );
    let l = line(&mut c);
    assert!(
        l.contains("(0 open questions; 1 item stale against it, carried on from there and forgotten at the revision it went to: state it again here with remember_decision or remember, or forget it at its own revision if no longer wanted)."),
        "{l}"
    );
    // A late item at revision 1, never carried, is stale for another reason.
    c.ok(
        "remember",
        json!({"artifact": art_uri(&r1(), FILE), "name": "late", "entity_ids": [], "note": "n"}),
    );
    let l = line(&mut c);
    assert!(
        l.contains("2 items stale against it, 1 of them carried on from there and forgotten at the revision it went to: state it again here with remember_decision or remember, or forget it at its own revision if no longer wanted)."),
        "{l}"
    );
}

/// show_review's line of a revision carried to said "2 decisions and 4 records (1 open
/// question; 0 items stale against it)" and nothing of the carry, so a model reading the line
/// took the review as stated here, with nothing to do (found driving a real review: 11 items
/// to re-verify, the line silent). It says the worklist the answer's `worklist` counts and
/// where to list it, and no longer once every item is stated here again; not at all for a
/// revision carried on (its work is at the later revision, which the line names).
#[test]
fn show_review_line_of_a_carried_revision_says_its_worklist() {
    for era in ERAS {
        let mut c = Client::new(Store::open_in_memory().unwrap(), era);
        review_at_r1(&mut c);
        c.ok("carry_forward", carry_args());
        let line = |c: &mut Client, r: &str| {
            let out = c.call("show_review", json!({"artifact": art_uri(r, FILE)}));
            let text = out["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_string();
            (text, out["result"]["structuredContent"]["worklist"].clone())
        };
        let (l, worklist) = line(&mut c, &r2());
        let (re_verify, inherited) = (
            worklist["re_verify"].as_u64().unwrap(),
            worklist["inherited"].as_u64().unwrap(),
        );
        assert!(re_verify > 0 && inherited > 0, "{worklist}");
        let said = format!(
            "Carried here (carry_forward): {re_verify} items to re-verify, {inherited} inherited \
             (not re-verified here); recall and recall_decisions with carried \"re-verify\" list \
             what to re-verify."
        );
        assert!(l.contains(&said), "{era:?}: {l}");
        assert!(l.ends_with("/report"), "{l}");
        // Revision 1 was carried on: its line names where the review went, no worklist.
        let (l1, _) = line(&mut c, &r1());
        assert!(!l1.contains("Carried here"), "{l1}");
        // Stated here again in part: the line counts what is left, as `worklist` does.
        let a2 = art_uri(&r2(), FILE);
        c.ok(
            "remember",
            json!({"artifact": a2, "name": "bore", "entity_ids": ["face:13"], "note": "n"}),
        );
        c.ok(
            "remember_decision",
            json!({"artifact": a2, "subject": "bore", "disposition": "ok",
            "basis": [{"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied"}]}),
        );
        let (l, left) = line(&mut c, &r2());
        let fewer = left["re_verify"].as_u64().unwrap();
        assert!(fewer < re_verify, "{left}");
        assert!(
            l.contains(&format!(
                "Carried here (carry_forward): {fewer} items to re-verify, "
            )),
            "{l}"
        );
    }
}

/// show_review's summary says each thing once (measured: 820 bytes of structuredContent for
/// one decision, 1,163 once carried): its revision at the top and in its report's URI, not a
/// third time in its own `artifacts` entry, and a zero stale count once, in `counts`, with no
/// empty `stale_decisions` and no `omitted` of nothing (nor of the records a summary never
/// lists). The text copy is the same JSON; the line still says "0 items stale".
#[test]
fn show_review_says_its_revision_and_a_zero_stale_count_once() {
    for era in ERAS {
        let mut c = Client::new(Store::open_in_memory().unwrap(), era);
        review_at_r1(&mut c);
        let shown = c.ok("show_review", json!({"artifact": art_uri(&r1(), FILE)}));
        let said = shown.to_string().matches(&r1()).count();
        assert_eq!(said, 2, "{era:?}: revision and report: {shown}");
        assert_eq!(shown["revision"], json!(r1()));
        assert_eq!(shown["artifacts"][0]["stale"], false, "{shown}");
        assert_eq!(
            shown["counts"],
            json!({"decisions": 1, "records": 4, "stale_decisions": 0, "stale_records": 0})
        );
        for absent in ["stale_decisions", "omitted"] {
            assert!(shown.get(absent).is_none(), "{era:?} {absent}: {shown}");
        }
    }
}

/// carry_forward's answer sends no empty `changed` or `unmapped` (an entry with neither is
/// re-verified because the part changed), no zero `already_stated`, and not the `from` and
/// `to` the call gave (its line names both): 460 bytes of structuredContent for six entries.
#[test]
fn carry_forward_sends_no_empty_list_nor_the_calls_own_revisions() {
    for era in ERAS {
        let mut c = Client::new(Store::open_in_memory().unwrap(), era);
        review_at_r1(&mut c);
        let carried = c.ok("carry_forward", carry_args());
        for absent in ["from", "to", "already_stated", "omitted"] {
            assert!(carried.get(absent).is_none(), "{era:?} {absent}: {carried}");
        }
        let entries = carried["re_verify"].as_array().unwrap();
        assert_eq!(entries.len(), 6, "{carried}");
        for e in entries {
            for list in ["changed", "unmapped"] {
                assert_ne!(e.get(list), Some(&json!([])), "{era:?}: {e}");
            }
        }
        let naming = |key: &str| entries.iter().filter(|e| e.get(key).is_some()).count();
        assert_eq!((naming("changed"), naming("unmapped")), (2, 2), "{carried}");
    }
}

/// A carried decision's summary (recall_decisions, show_review, and show_review's stale list
/// at the revision it came from) says `"disposition": "carried"`: the revision and counts the
/// carry's disposition spelled out are in `carried` and `items`. Its text line says so
/// whole, where it cut the spelled-out one at 20 characters; the whole decision still says
/// what the carry wrote.
#[test]
fn a_carried_decisions_summary_says_its_counts_once() {
    for era in ERAS {
        let mut c = Client::new(Store::open_in_memory().unwrap(), era);
        review_at_r1(&mut c);
        c.ok("carry_forward", carry_args());
        let at_r2 = json!({"artifact": art_uri(&r2(), FILE)});
        let listed = c.call("recall_decisions", at_r2.clone());
        let line = listed["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            line.contains("\"bore\": carried (3 to re-verify)"),
            "{line}"
        );
        let summaries = [
            c.ok("recall_decisions", at_r2.clone())["decisions"][0].clone(),
            c.ok("show_review", at_r2)["decisions"][0].clone(),
            c.ok("show_review", json!({"artifact": art_uri(&r1(), FILE)}))["stale_decisions"][0]
                .clone(),
        ];
        for d in summaries {
            assert_eq!(d["disposition"], "carried", "{era:?}: {d}");
            assert_eq!(
                d["carried"],
                json!({"from": r1(), "inherited": 1, "re_verify": 3})
            );
            assert_eq!(d["items"], 4, "{d}");
        }
        let full = c.ok(
            "recall_decisions",
            json!({"artifact": art_uri(&r2(), FILE), "detail": "full"}),
        );
        let disposition = full["decisions"][0]["disposition"].as_str().unwrap();
        assert!(
            disposition.ends_with("3 of 4 basis items to re-verify"),
            "{disposition}"
        );
    }
}

/// `remember` at the revision a carry moved a feature on from, in the database that made the
/// carry, updates what that revision says of it and tells the model so: the answer names that
/// revision's copy (superseded) and the feature, which stands at revision 2 unchanged
/// (`carried_on`). Before, the feature went back to revision 1 with its carried id, revision
/// 2 lost it, and the answer said only "Replaced feature".
#[test]
fn remember_at_the_revision_carried_from_updates_its_copy_and_says_so() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let a1 = art_uri(&r1(), FILE);
        let first = c.ok(
            "remember",
            json!({"artifact": a1, "name": "chamfer", "entity_ids": ["face:3"], "note": "1x45"}),
        );
        let id = first["record"]["id"].as_str().unwrap().to_string();
        c.ok("carry_forward", carry_args());
        let resp = c.call(
            "remember",
            json!({"artifact": a1, "name": "chamfer", "entity_ids": ["face:3"], "note": "2x45"}),
        );
        let out = &resp["result"]["structuredContent"];
        assert_eq!(
            out["carried_on"],
            json!({"id": id, "revision": r2()}),
            "{resp}"
        );
        assert_eq!(out["replaced"], true);
        let copy = out["record"]["id"].as_str().unwrap().to_string();
        assert_ne!(copy, id);
        assert_eq!(out["record"]["artifact"]["revision"], json!(r1()));
        assert_eq!(out["record"]["superseded"]["by"], json!(r2()));
        assert_eq!(out["record"]["note"], "2x45");
        let text = resp["result"]["content"][0]["text"].as_str().unwrap();
        let short = |r: &str| format!("{}…", &r[..15]);
        assert_eq!(
            text,
            format!(
                "Replaced what {r1} says of feature \"chamfer\" (its copy, superseded) ({copy}) \
                 on {r1} of file://{FILE}, 1 entity. {r1} was carried on: the feature ({id}) \
                 stands at {r2}, unchanged; to change it, remember it at {r2}.",
                r1 = short(&r1()),
                r2 = short(&r2()),
            )
        );
        // Recalled: the feature at revision 2 as carried, revision 1's copy as restated.
        let page = c.ok(
            "recall",
            json!({"artifact": art_uri(&r2(), FILE), "current_only": false}),
        );
        let artifacts = page["artifacts"].as_array().unwrap().clone();
        let mut held: Vec<(String, String, String)> = page["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let a = &artifacts[r["artifact"].as_u64().unwrap() as usize];
                (
                    r["id"].as_str().unwrap().to_string(),
                    a["revision"].as_str().unwrap().to_string(),
                    r["note"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        held.sort();
        let mut expected = vec![
            (id.clone(), r2(), "1x45".to_string()),
            (copy.clone(), r1(), "2x45".to_string()),
        ];
        expected.sort();
        assert_eq!(held, expected);
    }
}

/// `remember_decision` at a revision carried on keeps the decision superseded (revision 2
/// holds the review, as after import or sync) and says so. Before, the mark was cleared:
/// revision 1 was live again, its Form 3 a full FAI.
#[test]
fn remember_decision_at_a_revision_carried_on_keeps_it_superseded_and_says_so() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let id = review_at_r1(&mut c);
        c.ok("carry_forward", carry_args());
        let resp = c.call(
            "remember_decision",
            json!({"artifact": art_uri(&r1(), FILE), "subject": "bore", "disposition": "hold",
                   "basis": [{"requirement": "Bore 12H7", "source": "drawing", "state": "unresolved",
                              "question": "Is the bore 12H7?"}]}),
        );
        let out = &resp["result"]["structuredContent"];
        assert_eq!(out["decision"]["id"], json!(id), "{resp}");
        assert_eq!(out["decision"]["superseded"]["by"], json!(r2()), "{resp}");
        let text = resp["result"]["content"][0]["text"].as_str().unwrap();
        let short = |r: &str| format!("{}…", &r[..15]);
        assert!(
            text.contains(&format!(
                " {} was carried on: this decision stays superseded; the review is at {}.",
                short(&r1()),
                short(&r2())
            )),
            "{text}"
        );
    }
}

/// Regression (found driving a real review): after a carry, `recall` of the file (every
/// revision) lists each feature and its superseded copy, and the summary named them alike
/// (`"bore"; "bore"`), so a model reading the line took one feature for two. A superseded
/// copy's name is marked.
#[test]
fn recall_of_a_file_after_a_carry_marks_the_superseded_copies_it_names() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), Era::V2025_11_25);
    let a = art_uri(&r1(), FILE);
    c.ok(
        "remember",
        json!({"artifact": a, "name": "bore", "entity_ids": ["face:3"], "note": "12H7"}),
    );
    c.ok("carry_forward", carry_args());
    let got = c.call(
        "recall",
        json!({"artifact": {"uri": FILE, "revision": r2(), "format": "step"}, "current_only": false}),
    );
    let text = got["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("2 records; \"bore\"; \"bore\" (superseded);")
            || text.starts_with("2 records; \"bore\" (superseded); \"bore\";"),
        "{text}"
    );
}

/// The text line and the page of a recall.
fn recall_page(c: &mut Client, args: Value) -> (String, Value) {
    let got = c.call("recall", args);
    let text = got["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    (text, got["result"]["structuredContent"].clone())
}

/// Every record id of a recall, following its cursors with `limit` 2: no page short or
/// empty while more follow.
fn recall_ids(c: &mut Client, args: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut a = args.clone();
        a["limit"] = json!(2);
        if let Some(cur) = &cursor {
            a["cursor"] = json!(cur);
        }
        let (_, page) = recall_page(c, a);
        let records = page["records"].as_array().unwrap();
        cursor = page["next_cursor"].as_str().map(str::to_string);
        if cursor.is_some() {
            assert_eq!(records.len(), 2, "a short page with more to come: {page}");
        }
        ids.extend(
            records
                .iter()
                .map(|r| r["id"].as_str().unwrap().to_string()),
        );
        if cursor.is_none() {
            return ids;
        }
    }
}

/// After a carry, recall of the file listed each carried feature twice: the feature at the
/// later revision and its superseded copy at the earlier one (12 records for 6 features).
/// By default (current_only) the copies a later copy still says are left out and counted
/// once; `current_only: false` lists them; a plain stale record (never carried) stays
/// listed and marked stale; a copy whose later copy was forgotten is listed again. Paged with
/// the filter in SQL, every page is full while more follow, by file, text, tag and entity.
#[test]
fn recall_leaves_out_the_copies_a_carry_superseded_unless_current_only_is_false() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), Era::V2025_11_25);
    let a1 = art_uri(&r1(), FILE);
    for i in 0..6 {
        c.ok(
            "remember",
            json!({"artifact": a1, "name": format!("hole {i}"), "entity_ids": [format!("face:{i}")],
                   "note": format!("diameter {i} mm, H7"), "tags": ["hole"]}),
        );
    }
    // A revision of the file never carried on: its record is stale, not superseded.
    c.ok(
        "remember",
        json!({"artifact": art_uri(&rev(9), FILE), "name": "slot", "entity_ids": [],
               "note": "slot 4 mm", "tags": ["hole"]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": a1, "to": art_uri(&r2(), FILE), "map": [], "change": CHANGE}),
    );
    let file = json!({"artifact": {"uri": FILE, "revision": r2(), "format": "step"}});
    let mut all = file.clone();
    all["current_only"] = json!(false);
    let (text, page) = recall_page(&mut c, file.clone());
    assert_eq!(page["records"].as_array().unwrap().len(), 7, "{page}");
    assert!(text.starts_with("7 records; "), "{text}");
    assert!(!text.contains("(superseded)"), "{text}");
    assert!(
        text.ends_with("; 6 superseded copies not shown (current_only: false lists them)."),
        "{text}"
    );
    assert!(text.contains("; 1 stale ("), "{text}");
    let (text_all, page_all) = recall_page(&mut c, all.clone());
    assert_eq!(page_all["records"].as_array().unwrap().len(), 13);
    assert!(!text_all.contains("not shown"), "{text_all}");
    assert_eq!(recall_ids(&mut c, &file).len(), 7);
    assert_eq!(recall_ids(&mut c, &all).len(), 13);
    // The same rule by text, by tag and by an entity id of the earlier revision.
    for (args, shown, hidden) in [
        (json!({"text": "diameter"}), 6, 6),
        (json!({"tags": ["hole"]}), 7, 6),
        // At the revision supplied, nothing is a copy to leave out (see below).
        (
            json!({"artifact": art_uri(&r1(), FILE), "entity_id": "face:3"}),
            1,
            0,
        ),
    ] {
        let (text, _) = recall_page(&mut c, args.clone());
        assert_eq!(recall_ids(&mut c, &args).len(), shown, "{args}: {text}");
        assert!(
            hidden == 0 || text.contains(&format!("; {hidden} superseded cop")),
            "{args}: {text}"
        );
        let mut every = args.clone();
        every["current_only"] = json!(false);
        assert_eq!(recall_ids(&mut c, &every).len(), shown + hidden, "{every}");
    }
    // The feature forgotten at revision 2: nothing else says what revision 1 said of it, so
    // its copy is listed again (marked superseded, stale), as show_review lists it.
    c.ok(
        "forget",
        json!({"artifact": art_uri(&r2(), FILE), "name": "hole 3"}),
    );
    let (text, page) = recall_page(&mut c, file);
    assert_eq!(page["records"].as_array().unwrap().len(), 7, "{page}");
    assert!(text.contains("; 5 superseded copies not shown"), "{text}");
    assert!(text.contains("; 1 superseded ("), "{text}");
}

/// A caller whose file is at the revision a carry went past (checked out again) supplies
/// it: its records are that file's records there, not copies to leave out. current_only
/// left them out and listed the later revision's copies, stale, with the ids of another
/// revision ("bore" face:7 for a file whose bore is face:1), and by the revision alone
/// listed nothing. Only copies at other revisions are left out.
#[test]
fn recall_at_a_revision_carried_past_lists_its_own_records() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), Era::V2025_11_25);
    let (a0, a1) = (art_uri(&rev(7), FILE), art_uri(&r1(), FILE));
    c.ok(
        "remember",
        json!({"artifact": a0, "name": "bore", "entity_ids": ["face:1"], "note": "H7"}),
    );
    c.ok(
        "carry_forward",
        json!({"from": a0, "to": a1, "map": [{"from": "face:1", "to": "face:4"}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": a1, "to": art_uri(&r2(), FILE), "map": [{"from": "face:4", "to": "face:9"}]}),
    );
    let listed = |page: &Value| -> Vec<(String, bool)> {
        let arts = page["artifacts"].as_array().unwrap();
        page["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let a = &arts[r["artifact"].as_u64().unwrap() as usize];
                (
                    r["entity_ids"][0].as_str().unwrap().to_string(),
                    a["stale"] == json!(true),
                )
            })
            .collect()
    };
    // The file at revision 1: its own record current, revision 2's copy stale, revision 0's
    // copy (carried on to revision 1) left out and counted.
    let (text, page) = recall_page(&mut c, json!({"artifact": a1}));
    let mut got = listed(&page);
    got.sort();
    assert_eq!(
        got,
        vec![("face:4".to_string(), false), ("face:9".to_string(), true)],
        "{page}"
    );
    assert!(text.contains("; 1 superseded copy not shown"), "{text}");
    // By revision 1 alone, and by its entity id.
    let alone = json!({"artifact": {"revision": r1(), "format": "step"}});
    let (text, page) = recall_page(&mut c, alone);
    assert_eq!(listed(&page), vec![("face:4".to_string(), false)], "{text}");
    assert!(!text.contains("not shown"), "{text}");
    let (_, page) = recall_page(&mut c, json!({"artifact": a1, "entity_id": "face:4"}));
    assert_eq!(listed(&page), vec![("face:4".to_string(), false)], "{page}");
}

/// show_review reads a file's other revisions newest first, up to a cap of rows, for its
/// stale list, and set the superseded copies a carry made aside only after reading them:
/// 120 copies (made by the carry, so the newest rows) took the whole cap, and the stale list
/// of a third revision held none of the 120 features it counted stale at revision 2 (and its
/// line, judging by that list, said no carry could bring them). The copies a later copy says
/// are left out in the query (recall's current_only rule).
#[test]
fn show_review_lists_stale_records_past_the_copies_a_carry_made() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), Era::V2025_11_25);
    let a1 = art_uri(&r1(), FILE);
    for i in 0..120 {
        c.ok(
            "remember",
            json!({"artifact": a1, "name": format!("hole {i}"), "entity_ids": [], "note": "H7"}),
        );
    }
    c.ok(
        "carry_forward",
        json!({"from": a1, "to": art_uri(&r2(), FILE), "map": [], "change": CHANGE}),
    );
    let got = c.call(
        "show_review",
        json!({"artifact": art_uri(&rev(3), FILE), "detail": "full"}),
    );
    let sc = &got["result"]["structuredContent"];
    let listed = sc["stale"]["records"].as_array().unwrap();
    let line = got["result"]["content"][0]["text"].as_str().unwrap();
    // The line judged the carry by the stale list: empty, it named revision 2 a later
    // revision that carry_forward does not carry back.
    assert!(
        line.contains(
            "120 items of this file at other revisions are stale against it (carry_forward carries a review here)"
        ),
        "{line}"
    );
    assert!(!listed.is_empty(), "{sc}");
    assert!(
        listed
            .iter()
            .all(|r| r["artifact"]["revision"] == json!(r2())),
        "{sc}"
    );
}

/// Reported by the second end-user walk: the engineer forgot "paint spec" at revision 2 on
/// purpose (the change made it moot), and from then on every review of revision 2 and later,
/// `recall_decisions` and revision 1's own line said only to state it again: the one way out
/// offered would restate what the engineer dropped. Forgetting it at its own revision ends
/// it; the lines now say that too.
#[test]
fn a_decision_forgotten_where_it_was_carried_names_forgetting_it_at_its_revision_too() {
    let mut c = Client::new(Store::open_in_memory().unwrap(), ERAS[0]);
    review_at_r1(&mut c);
    c.ok("carry_forward", carry_args());
    c.ok(
        "forget",
        json!({"artifact": art_uri(&r2(), FILE), "subject": "bore"}),
    );
    let line = |c: &mut Client, tool: &str, rev: String| {
        let r = c.call(tool, json!({"artifact": art_uri(&rev, FILE)}));
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for tool in ["show_review", "recall_decisions"] {
        let l = line(&mut c, tool, r2());
        assert!(
            l.contains("or forget it at its own revision"),
            "{tool}: {l}"
        );
    }
    let l = line(&mut c, "show_review", r1());
    assert!(l.contains("or forget here what no longer applies"), "{l}");
    // Following it ends the nag.
    c.ok(
        "forget",
        json!({"artifact": art_uri(&r1(), FILE), "subject": "bore"}),
    );
    let l = line(&mut c, "show_review", r2());
    assert!(!l.contains("forgotten"), "{l}");
}
