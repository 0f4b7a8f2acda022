//! Hostile and unusual `carry_forward` calls (adversarial review of issue 27): what
//! `remember` accepts, the carry accepts too.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::json;

use crate::support::inproc::{Client, ERAS, art, art_uri, rev};

const FILE: &str = "/work/bracket.step";

/// An entity id of 200 characters (600 bytes of UTF-8) is within `remember`'s limit (the
/// input schema counts characters): the map may name it too. It was refused as "over its
/// limit of 256", the limit counted in bytes.
#[test]
fn a_long_non_ascii_entity_id_remember_accepts_can_be_mapped() {
    let mut c = Client::memory(ERAS[2]);
    let id = "面".repeat(200);
    let new = "新".repeat(200);
    c.ok(
        "remember",
        json!({"artifact": art_uri(&rev(1), FILE), "name": "boss", "entity_ids": [id], "note": "n"}),
    );
    let out = c.ok(
        "carry_forward",
        json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE),
               "map": [{"from": id, "to": new}], "changed": [], "change": "é".repeat(100)}),
    );
    assert_eq!(out["records"]["inherited"], 1, "{out}");
    let got = c.ok(
        "recall",
        json!({"artifact": art(&rev(2)), "carried": "inherited"}),
    );
    assert_eq!(got["records"][0]["entity_ids"], json!([new]));
}

/// A carry of many items whose ids and subjects are all escapes answers within the bound in
/// every era (the older eras repeat the structured answer as text).
#[test]
fn a_hostile_large_carry_answers_within_the_bound_in_every_era() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let a = art_uri(&rev(1), FILE);
        for i in 0..60 {
            let faces: Vec<String> = (0..40)
                .map(|j| format!("{i}-{j}{}", "\u{1}\"\\".repeat(80)))
                .collect();
            c.ok(
                "remember_decision",
                json!({"artifact": a, "subject": format!("{i}{}", "\u{1}".repeat(300)),
                       "disposition": "hold", "basis": [
                    {"requirement": "r", "source": "drawing", "state": "satisfied", "faces": faces},
                ]}),
            );
            c.ok(
                "remember",
                json!({"artifact": a, "entity_ids": [format!("{i}{}", "\u{1}".repeat(250))], "note": "n"}),
            );
        }
        let resp = c.call(
            "carry_forward",
            json!({"from": a, "to": art_uri(&rev(2), FILE), "map": [], "changed": [],
                   "change": "\u{1}".repeat(1000)}),
        );
        let line = serde_json::to_string(&resp).unwrap();
        assert!(line.len() <= 32_000, "{era:?}: {} bytes", line.len());
        assert!(
            resp["result"].get("isError").is_none_or(|e| e == false),
            "{resp}"
        );
    }
}

fn cli_out(db: &std::path::Path, args: &[&str]) -> String {
    let out = crate::support::file_events::run_cli(db, args).unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A review carried twice (1 -> 2 -> 3), with a verdict given at revision 2 and an item
/// re-stated there, survives export -> import -> export byte for byte, and `check` finds
/// nothing wrong in either database.
#[test]
fn a_review_carried_twice_round_trips_byte_for_byte() {
    use review_mcp::store::Store;

    use crate::support::TempDir;
    use crate::support::inproc::ui_caps;

    let dir = TempDir::new("carry-twice").unwrap();
    let a = dir.join("a.db");
    {
        let mut c = Client::declaring(Store::open(&a).unwrap(), ERAS[2], ui_caps());
        let r1 = art_uri(&rev(1), FILE);
        c.ok(
            "remember",
            json!({"artifact": r1, "name": "bore", "entity_ids": ["face:3"], "note": "12H7"}),
        );
        c.ok(
            "remember",
            json!({"artifact": r1, "entity_ids": ["face:7"], "note": "boss"}),
        );
        c.ok(
            "remember_decision",
            json!({"artifact": r1, "subject": "bore", "disposition": "rework", "summary": "s", "basis": [
                {"requirement": "Bore 12H7", "source": "drawing", "state": "violated", "faces": ["face:3"]},
                {"requirement": "Boss 8", "source": "drawing", "state": "satisfied", "faces": ["face:7"]}
            ]}),
        );
        c.ok(
            "carry_forward",
            json!({"from": r1, "to": art_uri(&rev(2), FILE),
                   "map": [{"from": "face:3", "to": "face:13"}, {"from": "face:7", "to": "face:17"}],
                   "changed": ["face:3"], "change": "ECO-1"}),
        );
        let shown = c.call(
            "show_review",
            json!({"artifact": art_uri(&rev(2), FILE), "detail": "full"}),
        );
        let review = &shown["result"]["structuredContent"];
        let id = review["decisions"][0]["id"].clone();
        let digest = review["decisions"][0]["basis"][1]["digest"].clone();
        // The card's proof, given to the card in the result's _meta (issue 28).
        let proof =
            shown["result"]["_meta"]["review-mcp/card"]["proofs"][id.as_str().unwrap()].clone();
        c.ok(
            "record_verdict",
            json!({"decision_id": id, "index": 1, "item_digest": digest, "judgement": "accepted",
                   "card_proof": proof}),
        );
        c.ok(
            "carry_forward",
            json!({"from": art_uri(&rev(2), FILE), "to": art_uri(&rev(3), FILE),
                   "map": [{"from": "face:13", "to": "face:23"}, {"from": "face:17", "to": "face:27"}],
                   "changed": [], "change": "ECO-2"}),
        );
    }
    let exported = cli_out(&a, &["export"]);
    let file = dir.join("a.jsonl");
    std::fs::write(&file, &exported).unwrap();
    let b = dir.join("b.db");
    cli_out(&b, &["import", &file.to_string_lossy()]);
    assert_eq!(
        cli_out(&b, &["export"]),
        exported,
        "round trip byte-identical"
    );
    cli_out(&a, &["check"]);
    cli_out(&b, &["check"]);
    let form = cli_out(&b, &["form3", &rev(3)]);
    assert!(form.contains("Partial FAI: carried from"), "{form}");
}

/// Every resource of a superseded revision says so (issue 27: "recalls and resources of
/// revision 1 say superseded by"): its Form 3 too, which called itself a plain full FAI.
#[test]
fn the_form3_of_a_superseded_revision_says_it_was_superseded() {
    let mut c = Client::memory(ERAS[2]);
    let r1 = art_uri(&rev(1), FILE);
    c.ok(
        "remember_decision",
        json!({"artifact": r1, "subject": "bore", "disposition": "rework", "basis": [
            {"requirement": "Bore 12H7", "source": "drawing", "state": "violated", "faces": ["face:3"]}
        ]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": r1, "to": art_uri(&rev(2), FILE),
               "map": [{"from": "face:3", "to": "face:13"}], "changed": ["face:3"],
               "change": "ECO-17"}),
    );
    let r = c.request(
        "resources/read",
        json!({"uri": format!("review://revisions/{}/form3.csv", rev(1))}),
    );
    let csv = r["result"]["contents"][0]["text"].as_str().unwrap();
    let fai = csv.lines().find(|l| l.starts_with("FAI,")).unwrap();
    assert!(
        fai.contains(&format!("superseded by revision {}", rev(2))) && fai.contains("ECO-17"),
        "{csv}"
    );
}

/// A `change` travels into every item of the superseded revision and the header lines of
/// both: with the longest `change` carry_forward accepts (1,000 characters, all escapes),
/// every answer and resource that shows it stays within the answer bound; a longer one is
/// refused, nothing written (65,536, the longest text of the other tools, made every answer
/// about either revision 850 KB).
#[test]
fn a_longest_change_keeps_every_answer_within_the_bound() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let r1 = art_uri(&rev(1), FILE);
        for i in 0..3 {
            c.ok(
                "remember",
                json!({"artifact": r1, "name": format!("f{i}"), "entity_ids": ["face:3"], "note": "n"}),
            );
            c.ok(
                "remember_decision",
                json!({"artifact": r1, "subject": format!("s{i}"), "disposition": "rework", "basis": [
                    {"requirement": "Bore 12H7", "source": "drawing", "state": "violated", "faces": ["face:3"]}
                ]}),
            );
        }
        let long = c.refused(
            "carry_forward",
            json!({"from": r1, "to": art_uri(&rev(2), FILE), "map": [], "change": "x".repeat(1_001)}),
        );
        assert!(long.contains("over its limit of 1000"), "{long}");
        let change = "\u{1}".repeat(1_000);
        let out = c.call(
            "carry_forward",
            json!({"from": r1, "to": art_uri(&rev(2), FILE),
                   "map": [{"from": "face:3", "to": "face:13"}], "changed": [], "change": change}),
        );
        let mut sizes = vec![(
            "carry_forward".to_string(),
            serde_json::to_string(&out).unwrap().len(),
        )];
        for r in [rev(1), rev(2)] {
            for (tool, args) in [
                ("recall", json!({"artifact": art_uri(&r, FILE)})),
                (
                    "recall",
                    json!({"artifact": art_uri(&r, FILE), "entity_id": "face:3"}),
                ),
                (
                    "recall_decisions",
                    json!({"artifact": art_uri(&r, FILE), "current_only": false, "detail": "full"}),
                ),
                ("show_review", json!({"artifact": art_uri(&r, FILE)})),
                (
                    "show_review",
                    json!({"artifact": art_uri(&r, FILE), "detail": "full"}),
                ),
            ] {
                let resp = c.call(tool, args.clone());
                sizes.push((
                    format!("{tool} {args}"),
                    serde_json::to_string(&resp).unwrap().len(),
                ));
            }
            for uri in [
                format!("review://revisions/{r}"),
                format!("review://revisions/{r}/report"),
                format!("review://revisions/{r}/form3.csv"),
            ] {
                let resp = c.request("resources/read", json!({"uri": uri}));
                sizes.push((uri, serde_json::to_string(&resp).unwrap().len()));
            }
        }
        let over: Vec<_> = sizes.iter().filter(|(_, n)| *n > 32_000).collect();
        assert!(over.is_empty(), "{era:?}: over the bound: {over:?}");
    }
}

/// Two clones of one review each carry revision 1 to revision 2 (two engineers, the same
/// change), then sync through a shared folder: the sync succeeds, and revision 2 holds one
/// review, not two copies of every carried note and decision.
#[test]
fn the_same_carry_in_two_clones_syncs_into_one_review() {
    use review_mcp::store::Store;

    use crate::support::TempDir;

    let dir = TempDir::new("carry-clones").unwrap();
    let a = dir.join("a.db");
    let b = dir.join("b.db");
    let r1 = art_uri(&rev(1), FILE);
    {
        let mut c = Client::new(Store::open(&a).unwrap(), ERAS[2]);
        c.ok(
            "remember",
            json!({"artifact": r1, "name": "bore", "entity_ids": ["face:3"], "note": "12H7"}),
        );
        c.ok(
            "remember",
            json!({"artifact": r1, "entity_ids": ["face:7"], "note": "boss"}),
        );
        c.ok(
            "remember_decision",
            json!({"artifact": r1, "subject": "bore", "disposition": "rework", "basis": [
                {"requirement": "Bore 12H7", "source": "drawing", "state": "violated", "faces": ["face:3"]}
            ]}),
        );
    }
    let folder = dir.join("shared");
    let folder = folder.to_string_lossy().to_string();
    cli_out(&a, &["sync", &folder]);
    cli_out(&b, &["sync", &folder]);
    let carry = json!({"from": r1, "to": art_uri(&rev(2), FILE),
        "map": [{"from": "face:3", "to": "face:13"}, {"from": "face:7", "to": "face:17"}],
        "changed": ["face:3"], "change": "ECO-1"});
    for db in [&a, &b] {
        let mut c = Client::new(Store::open(db).unwrap(), ERAS[2]);
        c.ok("carry_forward", carry.clone());
    }
    for db in [&a, &b, &a] {
        let out = crate::support::file_events::run_cli(db, &["sync", &folder]).unwrap();
        assert!(
            out.status.success(),
            "sync: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for db in [&a, &b] {
        let mut c = Client::new(Store::open(db).unwrap(), ERAS[2]);
        let recs = c.ok("recall", json!({"artifact": art(&rev(2)), "limit": 50}));
        let decs = c.ok(
            "recall_decisions",
            json!({"artifact": art(&rev(2)), "current_only": false, "limit": 50}),
        );
        assert_eq!(
            (
                recs["records"].as_array().unwrap().len(),
                decs["decisions"].as_array().unwrap().len()
            ),
            (2, 1),
            "{db:?}: {recs} {decs}"
        );
        // What revision 1 said stays once too: the feature's superseded copy, the note, the
        // decision.
        let recs = c.ok("recall", json!({"artifact": art(&rev(1)), "limit": 50}));
        let decs = c.ok(
            "recall_decisions",
            json!({"artifact": art(&rev(1)), "current_only": false, "limit": 50}),
        );
        let at_r1 = |v: &serde_json::Value, key: &str| {
            v[key]
                .as_array()
                .unwrap()
                .iter()
                .filter(|i| {
                    let n = i["artifact"].as_u64().unwrap() as usize;
                    v["artifacts"][n]["revision"] == json!(rev(1))
                })
                .count()
        };
        assert_eq!(
            (at_r1(&recs, "records"), at_r1(&decs, "decisions")),
            (2, 1),
            "{db:?}: {recs} {decs}"
        );
    }
}

/// A carry whose `to` names no file (the model gives the new revision only: the file is the
/// same) keeps every item in its own file; it moved them to the bare revision, so the file's
/// review at the new revision was empty and its current decision the superseded one.
#[test]
fn a_carry_to_a_revision_without_a_uri_keeps_each_item_in_its_file() {
    let mut c = Client::memory(ERAS[2]);
    let a = art_uri(&rev(1), FILE);
    c.ok(
        "remember_decision",
        json!({"artifact": a, "subject": "bore", "disposition": "release", "basis": [
            {"requirement": "Bore H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]}),
    );
    c.ok(
        "remember",
        json!({"artifact": a, "name": "mating", "entity_ids": ["face:1"], "note": "n"}),
    );
    c.ok(
        "remember",
        json!({"artifact": a, "entity_ids": ["face:1"], "note": "a note"}),
    );
    let out = c.ok(
        "carry_forward",
        json!({"from": a, "to": art(&rev(2)), "map": [{"from": "face:1", "to": "face:11"}]}),
    );
    assert_eq!(out["records"]["inherited"], 2, "{out}");
    assert!(out.get("already_stated").is_none(), "none: {out}");
    let file_at_2 = art_uri(&rev(2), FILE);
    let got = c.ok(
        "recall_decisions",
        json!({"artifact": file_at_2, "subject": "bore"}),
    );
    let d = &got["decisions"][0];
    assert!(d.get("carried").is_some(), "{got}");
    assert_eq!(
        got["artifacts"][d["artifact"].as_u64().unwrap() as usize]["uri"],
        json!(format!("file://{FILE}")),
        "{got}"
    );
    let got = c.ok(
        "recall",
        json!({"artifact": file_at_2, "carried": "inherited"}),
    );
    assert_eq!(got["records"].as_array().unwrap().len(), 2, "{got}");
    assert!(
        got["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["uri"] == json!(format!("file://{FILE}"))),
        "{got}"
    );
}

/// A carry from a revision without a uri, whose items belong to two files, onto one file
/// (`to.uri`) is refused and writes nothing: it superseded the second file's decision and
/// feature as "already stated" there (they were not: the first file's copies were), so the
/// second file's review was at no current revision at all.
#[test]
fn a_carry_of_two_files_onto_one_is_refused_and_writes_nothing() {
    let mut c = Client::memory(ERAS[1]);
    for file in [FILE, "/work/other.step"] {
        let a = art_uri(&rev(1), file);
        c.ok(
            "remember_decision",
            json!({"artifact": a, "subject": "bore", "disposition": "release", "basis": [
                {"requirement": "Bore H7", "source": "drawing", "state": "satisfied"}]}),
        );
        c.ok(
            "remember",
            json!({"artifact": a, "name": "mating", "entity_ids": [], "note": file}),
        );
    }
    let why = c.refused(
        "carry_forward",
        json!({"from": art(&rev(1)), "to": art_uri(&rev(2), FILE), "map": []}),
    );
    assert!(
        why.contains("from.uri") && why.contains("other.step"),
        "{why}"
    );
    assert!(why.contains("nothing was written"), "{why}");
    let got = c.ok(
        "recall_decisions",
        json!({"artifact": art(&rev(1)), "current_only": false}),
    );
    for d in got["decisions"].as_array().unwrap() {
        assert!(d.get("superseded").is_none(), "{got}");
    }
    for a in got["artifacts"].as_array().unwrap() {
        assert!(a.get("superseded").is_none(), "{got}");
    }
    // Each file's own review carries: without a uri on `to`, each item stays in its file.
    let out = c.ok(
        "carry_forward",
        json!({"from": art(&rev(1)), "to": art(&rev(2)), "map": []}),
    );
    assert_eq!(out["decisions"].as_array().unwrap().len(), 2, "{out}");
    assert!(out.get("already_stated").is_none(), "none: {out}");
}

/// An item already stated at `to` is left as stated there and its copy at `from` is
/// superseded, not carried: the summary line (all a host may show the model) said "Carried 0
/// records and 0 decisions" and nothing of it, as if the carry had touched nothing.
#[test]
fn a_carry_onto_items_already_stated_says_so_in_its_summary() {
    let mut c = Client::memory(ERAS[1]);
    for n in [1, 2] {
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(&rev(n), FILE), "subject": "bore", "disposition": format!("hold {n}"),
                   "basis": [{"requirement": "Bore H7", "source": "drawing", "state": "satisfied"}]}),
        );
    }
    let resp = c.call(
        "carry_forward",
        json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE), "map": []}),
    );
    assert_eq!(
        resp["result"]["structuredContent"]["already_stated"], 1,
        "{resp}"
    );
    let text = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("1 already stated at sha256:") && text.contains("superseded"),
        "{text}"
    );
}

/// The report of a carried revision counts under "Stated at this revision" (it said
/// "Verified", though nobody need have checked them) the items stated
/// there; one the assistant restated and the engineer never judged read as verified. The
/// line now says how many of those basis items the engineer has judged at this revision.
#[test]
fn the_report_says_which_items_stated_here_the_engineer_has_judged() {
    let mut c = Client::memory(ERAS[2]);
    let basis = json!([{"requirement": "Bore H7", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]);
    for subject in ["bore", "wall"] {
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(&rev(1), FILE), "subject": subject, "disposition": "release", "basis": basis}),
        );
    }
    c.ok(
        "carry_forward",
        json!({"from": art_uri(&rev(1), FILE), "to": art_uri(&rev(2), FILE),
               "map": [{"from": "face:1", "to": "face:11"}]}),
    );
    // The assistant restates one decision at the new revision: stated here, judged by no one.
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(2), FILE), "subject": "bore", "disposition": "release",
               "basis": [{"requirement": "Bore H7", "source": "assistant-proposed", "state": "satisfied", "faces": ["face:11"]}]}),
    );
    let resp = c.request(
        "resources/read",
        json!({"uri": format!("review://revisions/{}/report", rev(2))}),
    );
    let md = resp["result"]["contents"][0]["text"].as_str().unwrap();
    let at = md.find("### Stated at this revision").expect(md);
    let section = &md[at..md[at..].find("## Decisions").map_or(md.len(), |e| at + e)];
    assert!(
        section.contains("1 item stated at this revision")
            && section.contains("the engineer has judged 0 of its 1 basis item here"),
        "{section}"
    );
}

/// Reported last session: a verdict given at revision 1 in one clone after the other clone
/// carried the review to revision 2 lands, after sync, on the superseded decision at 1;
/// revision 2's carried item never learned of it (its `carried.verdict` is the carry's), and
/// `request_verdicts` there said "nothing to ask" (inherited). Every reader of revision 2 now
/// names it (`verdicts_after_carry`, and the summary), and `request_verdicts` asks the
/// engineer about the item again by default; once they judged it there, nothing is named.
#[test]
fn a_verdict_given_at_the_old_revision_after_a_clone_carried_it_is_named_at_the_new_one() {
    use review_mcp::review::{Judgement, Verdict, Via};
    use review_mcp::store::{DecisionRef, Shown, Store, VerdictsOutcome};

    use crate::support::TempDir;

    let dir = TempDir::new("carry-late-verdict").unwrap();
    let a = dir.join("a.db");
    let b = dir.join("b.db");
    let r1 = art_uri(&rev(1), FILE);
    let r2 = art_uri(&rev(2), FILE);
    let source = {
        let mut c = Client::new(Store::open(&a).unwrap(), ERAS[2]);
        let d = c.ok(
            "remember_decision",
            json!({"artifact": r1, "subject": "bore", "disposition": "hold", "basis": [
                {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:3"]},
                {"requirement": "Flat 0.05", "source": "drawing", "state": "satisfied", "faces": ["face:4"]}
            ]}),
        );
        d["decision"]["id"].as_str().unwrap().to_string()
    };
    let folder = dir.join("shared");
    let folder = folder.to_string_lossy().to_string();
    let sync = |db: &std::path::Path| {
        let out = crate::support::file_events::run_cli(db, &["sync", &folder]).unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    sync(&a);
    sync(&b);
    {
        let mut c = Client::new(Store::open(&b).unwrap(), ERAS[2]);
        c.ok(
            "carry_forward",
            json!({"from": r1, "to": r2, "changed": [],
                   "map": [{"from": "face:3", "to": "face:13"}, {"from": "face:4", "to": "face:14"}]}),
        );
    }
    sync(&b);
    // Clone A, not yet synced, records the engineer's verdict on item 1 at revision 1.
    {
        let mut store = Store::open(&a).unwrap();
        store.set_author(Some("Ada".into()));
        let at = DecisionRef::Id(&source);
        let shown = store.find_decision(&at).unwrap().unwrap().basis[1].digest();
        let verdict = Verdict {
            meaning: None,
            author: Some("Ada".into()),
            at: review_mcp::time::now(),
            judgement: Judgement::Rejected,
            reason: Some("0.08 measured".into()),
            via: Via::App,
        };
        let outcome = store
            .record_verdicts(&at, Shown::Item(&shown), &[(1, verdict)])
            .unwrap();
        assert!(
            matches!(outcome, VerdictsOutcome::Recorded(_)),
            "{outcome:?}"
        );
    }
    sync(&a);
    sync(&b);
    for db in [&a, &b] {
        let mut c = Client::new(Store::open(db).unwrap(), ERAS[2]);
        let recalled = c.call("recall_decisions", json!({"artifact": r2}));
        let result = &recalled["result"];
        let after = &result["structuredContent"]["verdicts_after_carry"];
        assert_eq!(after[0]["index"], 1, "{db:?}: {result}");
        assert_eq!(after[0]["revision"], rev(1), "{result}");
        assert_eq!(after[0]["verdict"]["judgement"], "rejected", "{result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("request_verdicts"), "{text}");
        let shown = c.call("show_review", json!({"artifact": r2}));
        let result = &shown["result"];
        assert_eq!(
            result["structuredContent"]["verdicts_after_carry"][0]["index"], 1,
            "{result}"
        );
        assert!(
            result["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("after it was carried here"),
            "{result}"
        );
        // The report and the revision resource say it too.
        let report = c.read_text(&format!("review://revisions/{}/report", rev(2)));
        assert!(report.contains("- After the carry: "), "{report}");
        let resource = c.read_text(&format!("review://revisions/{}", rev(2)));
        assert!(resource.contains("verdicts_after_carry"), "{resource}");
        // request_verdicts asks about item 1 again, its field saying what was given after
        // the carry; item 0, which nobody judged, is asked about too.
        let asked = c.request_declaring(
            "tools/call",
            json!({"name": "request_verdicts", "arguments": {"artifact": r2, "subject": "bore"}}),
            json!({"elicitation": {"form": {}}}),
        );
        let text = asked.to_string();
        assert!(text.contains("item_001_judgement"), "{text}");
        assert!(text.contains("item_000_judgement"), "{text}");
        assert!(text.contains("after the carry, at revision"), "{text}");
    }
    // Once the engineer judged the item at revision 2, it is that revision's: nothing named.
    {
        let mut c = Client::new(Store::open(&a).unwrap(), ERAS[2]);
        let id = c.ok("recall_decisions", json!({"artifact": r2}))["decisions"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        let mut store = Store::open(&a).unwrap();
        let at = DecisionRef::Id(&id);
        let shown = store.find_decision(&at).unwrap().unwrap().basis[1].digest();
        let verdict = Verdict {
            meaning: None,
            author: Some("Ada".into()),
            at: review_mcp::time::now(),
            judgement: Judgement::Rejected,
            reason: None,
            via: Via::Terminal,
        };
        store
            .record_verdicts(&at, Shown::Item(&shown), &[(1, verdict)])
            .unwrap();
        let recalled = c.ok("recall_decisions", json!({"artifact": r2}));
        assert!(recalled.get("verdicts_after_carry").is_none(), "{recalled}");
    }
    // An item carried without a later verdict names nothing: a carry in one database.
    let mut c = Client::memory(ERAS[0]);
    c.ok(
        "remember_decision",
        json!({"artifact": r1, "subject": "bore", "disposition": "hold", "basis": [
            {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:3"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": r1, "to": r2, "map": [{"from": "face:3", "to": "face:13"}]}),
    );
    let recalled = c.ok("recall_decisions", json!({"artifact": r2}));
    assert!(recalled.get("verdicts_after_carry").is_none(), "{recalled}");
}

/// A client on a new file (in the directory it returns, named `name`) where decision "bore"
/// of `basis` (on face:3) was stated at revision 1, its item 0 accepted by Ada in her
/// terminal, then carried to revision 2 (face:3 to face:13).
fn accepted_then_carried(
    name: &str,
    basis: serde_json::Value,
) -> (crate::support::TempDir, Client) {
    use review_mcp::store::Store;
    let dir = crate::support::TempDir::new(name).unwrap();
    let db = dir.join("a.db");
    let r = |n: usize| art_uri(&rev(n), FILE);
    let mut c = Client::new(Store::open(&db).unwrap(), ERAS[2]);
    let d = c.ok(
        "remember_decision",
        json!({"artifact": r(1), "subject": "bore", "disposition": "hold", "basis": basis}),
    );
    let id = d["decision"]["id"].as_str().unwrap().to_string();
    accepted_in_the_terminal(&db, &id, 0);
    c.ok(
        "carry_forward",
        json!({"from": r(1), "to": r(2), "map": [{"from": "face:3", "to": "face:13"}]}),
    );
    (dir, c)
}

/// Records Ada's acceptance, given in her terminal, of basis item `index` of decision `id`.
fn accepted_in_the_terminal(db: &std::path::Path, id: &str, index: usize) {
    use review_mcp::review::{Judgement, Verdict, Via};
    use review_mcp::store::{DecisionRef, Shown, Store};
    let mut store = Store::open(db).unwrap();
    let at = DecisionRef::Id(id);
    let shown = store.find_decision(&at).unwrap().unwrap().basis[index].digest();
    let verdict = Verdict {
        meaning: None,
        author: Some("Ada".into()),
        at: review_mcp::time::now(),
        judgement: Judgement::Accepted,
        reason: None,
        via: Via::Terminal,
    };
    store
        .record_verdicts(&at, Shown::Item(&shown), &[(index, verdict)])
        .unwrap();
}

/// The other side: an engineer's verdict given before the carry travels as the carried
/// item's history, through two carries, and nothing is named "after the carry".
#[test]
fn a_verdict_given_before_the_carry_is_not_named_after_it() {
    let r = |n: usize| art_uri(&rev(n), FILE);
    let (_dir, mut c) = accepted_then_carried(
        "carry-early-verdict",
        json!([{"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:3"]}]),
    );
    c.ok(
        "carry_forward",
        json!({"from": r(2), "to": r(3), "map": [{"from": "face:13", "to": "face:23"}]}),
    );
    for n in [2, 3] {
        let recalled = c.ok("recall_decisions", json!({"artifact": r(n)}));
        assert!(recalled.get("verdicts_after_carry").is_none(), "{recalled}");
        let shown = c.ok("show_review", json!({"artifact": r(n)}));
        assert!(shown.get("verdicts_after_carry").is_none(), "{shown}");
    }
}

/// Regression (form3 audit): an item nobody judged at the earlier revision was carried on as
/// inherited, and `request_verdicts` at the new revision answered "Nothing to ask: every
/// basis item … already has the engineer's verdict or is inherited": a result no engineer
/// ever verified went from revision to revision without being asked about. An inherited
/// item is left aside only when it carries the engineer's verdict from the earlier revision;
/// one nobody judged is asked about as any unjudged item is.
#[test]
fn an_inherited_item_nobody_judged_is_asked_about() {
    let r = |n: usize| art_uri(&rev(n), FILE);
    let (_dir, mut c) = accepted_then_carried(
        "carry-unjudged",
        json!([
            {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:3"]},
            {"requirement": "Ra 1.6", "source": "model-pmi", "state": "satisfied", "faces": ["face:3"]}]),
    );
    let asked = c.request_declaring(
        "tools/call",
        json!({"name": "request_verdicts", "arguments": {"artifact": r(2), "subject": "bore"}}),
        json!({"elicitation": {"form": {}}}),
    );
    let text = asked.to_string();
    assert!(
        text.contains("item_001_judgement"),
        "the unjudged item: {text}"
    );
    assert!(
        !text.contains("item_000_judgement"),
        "the item judged before: {text}"
    );
}

/// A chain synced to another clone answers alike there: revision 1's decision, carried on
/// through 2 (forgotten) to 3, is said by 3's copy in both databases. Whether a later copy
/// says a carried-on decision was judged by `seq`, the order a database received its items
/// in, which a sync's import does not keep: the clone listed revision 1's decision as stale
/// against 3 and 4 while the original did not.
#[test]
fn a_carried_chain_reads_alike_in_a_synced_clone() {
    use review_mcp::store::Store;
    use serde_json::Value;

    use crate::support::TempDir;

    let dir = TempDir::new("carry-chain-clone").unwrap();
    let a = dir.join("a.db");
    let b = dir.join("b.db");
    let r = |n: usize| art_uri(&rev(n), FILE);
    {
        let mut c = Client::new(Store::open(&a).unwrap(), ERAS[2]);
        // Several subjects, so that the ids sort in more than one order.
        for subject in ["bore", "wall", "flat", "hole", "slot", "boss"] {
            c.ok(
                "remember_decision",
                json!({"artifact": r(1), "subject": subject, "disposition": "accept", "basis": [
                    {"requirement": "R", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]}),
            );
        }
        c.ok(
            "carry_forward",
            json!({"from": r(1), "to": r(2), "map": [{"from": "face:1", "to": "face:11"}]}),
        );
        c.ok(
            "carry_forward",
            json!({"from": r(2), "to": r(3), "map": [{"from": "face:11", "to": "face:21"}]}),
        );
        for subject in ["bore", "wall", "flat", "hole", "slot", "boss"] {
            c.ok("forget", json!({"artifact": r(2), "subject": subject}));
        }
    }
    let folder = dir.join("shared");
    let folder = folder.to_string_lossy().to_string();
    for db in [&a, &b] {
        let out = crate::support::file_events::run_cli(db, &["sync", &folder]).unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let mut answers = Vec::new();
    for db in [&a, &b] {
        let mut c = Client::new(Store::open(db).unwrap(), ERAS[2]);
        let mut seen = Vec::new();
        for n in [2usize, 3, 4] {
            let shown = c.ok("show_review", json!({"artifact": r(n)}));
            seen.push((
                shown["counts"].clone(),
                shown["stale_decisions"].as_array().map_or(0, Vec::len),
            ));
            // The current decision of each subject is revision 3's copy in both.
            let recalled = c.ok("recall_decisions", json!({"artifact": r(n), "limit": 50}));
            let revisions: Vec<Value> = recalled["decisions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    let i = d["artifact"].as_u64().unwrap() as usize;
                    recalled["artifacts"][i]["revision"].clone()
                })
                .collect();
            assert_eq!(revisions, vec![json!(rev(3)); 6], "{db:?} {n}: {recalled}");
        }
        answers.push(seen);
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0][1].0["stale_decisions"], 0, "{:?}", answers[0]);
}

/// The earlier decision is the one the item was carried from, never another file's that
/// shares its subject and requirement: file A's "bore" carried 1 -> 2 (and A's copy at 1
/// forgotten), file B's "bore" at 1 judged by the engineer. A's revision 2 names nothing.
#[test]
fn a_verdict_on_another_files_decision_is_not_named_after_the_carry() {
    use review_mcp::review::{Judgement, Verdict, Via};
    use review_mcp::store::{DecisionRef, Shown, Store};

    use crate::support::TempDir;

    let dir = TempDir::new("carry-other-file").unwrap();
    let db = dir.join("a.db");
    let file_a = |n: usize| art_uri(&rev(n), "/work/a.step");
    let file_b = art_uri(&rev(1), "/work/b.step");
    let mut c = Client::new(Store::open(&db).unwrap(), ERAS[2]);
    let basis = json!([{"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:3"]}]);
    c.ok(
        "remember_decision",
        json!({"artifact": file_a(1), "subject": "bore", "disposition": "hold", "basis": basis}),
    );
    let b = c.ok(
        "remember_decision",
        json!({"artifact": file_b, "subject": "bore", "disposition": "hold", "basis": basis}),
    );
    c.ok(
        "carry_forward",
        json!({"from": file_a(1), "to": file_a(2), "map": [{"from": "face:3", "to": "face:13"}]}),
    );
    c.ok("forget", json!({"artifact": file_a(1), "subject": "bore"}));
    {
        let id = b["decision"]["id"].as_str().unwrap().to_string();
        let mut store = Store::open(&db).unwrap();
        let at = DecisionRef::Id(&id);
        let shown = store.find_decision(&at).unwrap().unwrap().basis[0].digest();
        let verdict = Verdict {
            meaning: None,
            author: Some("Ada".into()),
            at: review_mcp::time::now(),
            judgement: Judgement::Rejected,
            reason: None,
            via: Via::App,
        };
        store
            .record_verdicts(&at, Shown::Item(&shown), &[(0, verdict)])
            .unwrap();
    }
    let recalled = c.ok("recall_decisions", json!({"artifact": file_a(2)}));
    assert!(recalled.get("verdicts_after_carry").is_none(), "{recalled}");
}

/// A decision from a clock ahead of this one (a clone's, synced here) must not outrank the
/// one stated here after it: revision 1's "bore" dated an hour ahead, then revision 2's
/// stated (or carried) here. recall_decisions' current decision was revision 1's, since
/// the current one is judged by created_at; the new one is now dated after it.
#[test]
fn a_decision_from_a_clock_ahead_does_not_outrank_the_one_stated_after_it() {
    use review_mcp::store::Store;

    use crate::support::TempDir;

    let dir = TempDir::new("carry-clock-ahead").unwrap();
    let db = dir.join("a.db");
    let r = |n: usize| art_uri(&rev(n), FILE);
    let basis = json!([{"requirement": "R", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]);
    {
        let mut c = Client::new(Store::open(&db).unwrap(), ERAS[2]);
        for subject in ["bore", "wall"] {
            c.ok(
                "remember_decision",
                json!({"artifact": r(1), "subject": subject, "disposition": "accept", "basis": basis}),
            );
        }
    }
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute(
            "UPDATE decisions SET created_at = '2999-01-01T00:00:00.000Z', \
             updated_at = '2999-01-01T00:00:00.000Z'",
            [],
        )
        .unwrap();
    }
    let mut c = Client::new(Store::open(&db).unwrap(), ERAS[2]);
    c.ok(
        "remember_decision",
        json!({"artifact": r(2), "subject": "bore", "disposition": "reject", "basis": basis}),
    );
    c.ok(
        "carry_forward",
        json!({"from": r(1), "to": r(3), "map": [{"from": "face:1", "to": "face:11"}]}),
    );
    let recalled = c.ok("recall_decisions", json!({"artifact": r(3), "limit": 50}));
    let mut got: Vec<(String, String)> = recalled["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let i = d["artifact"].as_u64().unwrap() as usize;
            (
                d["subject"].as_str().unwrap().to_string(),
                recalled["artifacts"][i]["revision"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect();
    got.sort();
    // Each subject's newest is its copy carried to revision 3, made last here.
    assert_eq!(
        got,
        vec![("bore".into(), rev(3)), ("wall".into(), rev(3))],
        "{recalled}"
    );
}

/// `review-mcp review` of the later revision shows an item whose old revision got the
/// engineer's verdict after the carry as request_verdicts' form does: with that verdict
/// ("after the carry, at revision …"). It showed only the item's history from before the
/// carry ("at that revision: accepted …"), contradicting what every other answer says.
#[test]
fn the_terminal_review_names_a_verdict_given_after_the_carry() {
    use review_mcp::review::{Judgement, Verdict, Via};
    use review_mcp::store::{DecisionRef, Shown, Store};

    use crate::support::TempDir;

    let dir = TempDir::new("carry-late-verdict-terminal").unwrap();
    let a = dir.join("a.db");
    let b = dir.join("b.db");
    let r1 = art_uri(&rev(1), FILE);
    let r2 = art_uri(&rev(2), FILE);
    let source = {
        let mut c = Client::new(Store::open(&a).unwrap(), ERAS[2]);
        let d = c.ok(
            "remember_decision",
            json!({"artifact": r1, "subject": "bore", "disposition": "hold", "basis": [
                {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied", "faces": ["face:3"]}
            ]}),
        );
        d["decision"]["id"].as_str().unwrap().to_string()
    };
    let folder = dir.join("shared");
    let folder = folder.to_string_lossy().to_string();
    let sync = |db: &std::path::Path| {
        let out = crate::support::file_events::run_cli(db, &["sync", &folder]).unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    sync(&a);
    sync(&b);
    {
        let mut c = Client::new(Store::open(&b).unwrap(), ERAS[2]);
        c.ok(
            "carry_forward",
            json!({"from": r1, "to": r2, "map": [{"from": "face:3", "to": "face:13"}]}),
        );
    }
    sync(&b);
    {
        let mut store = Store::open(&a).unwrap();
        let at = DecisionRef::Id(&source);
        let shown = store.find_decision(&at).unwrap().unwrap().basis[0].digest();
        let verdict = Verdict {
            meaning: None,
            author: Some("Ada".into()),
            at: review_mcp::time::now(),
            judgement: Judgement::Rejected,
            reason: Some("0.08 measured".into()),
            via: Via::App,
        };
        store
            .record_verdicts(&at, Shown::Item(&shown), &[(0, verdict)])
            .unwrap();
    }
    sync(&a);
    sync(&b);
    let mut store = Store::open(&b).unwrap();
    let mut input: &[u8] = b"q\n";
    let mut out = Vec::new();
    review_mcp::terminal::review(&mut store, &rev(2), &mut input, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("Item 1 of 1: Bore 12H7"), "{text}");
    assert!(
        text.contains("after the carry, at that revision: rejected"),
        "{text}"
    );
    // The Form 3 names the verdict given there, not the item's history from before it.
    let mut c = Client::new(store, ERAS[2]);
    let form = c.read_text(&format!("review://revisions/{}/form3.csv", rev(2)));
    assert!(form.contains("verdict there: rejected"), "{form}");
}

/// A `carried` event that came by import (sealed, but written by anyone) naming as the
/// revision it went on to a string that is no revision: carry_forward's refusal quoted it
/// whole, control characters and all. Only a revision is read from the history.
#[test]
fn a_forged_carried_event_naming_no_revision_refuses_nothing() {
    use review_mcp::review::history::EventKind;
    use review_mcp::store::Store;

    use crate::support::TempDir;

    let dir = TempDir::new("carry-forged-event").unwrap();
    let db = dir.join("a.db");
    let r = |n: usize| art_uri(&rev(n), FILE);
    {
        let mut c = Client::new(Store::open(&db).unwrap(), ERAS[2]);
        c.ok(
            "remember_decision",
            json!({"artifact": r(1), "subject": "bore", "disposition": "accept", "basis": [
                {"requirement": "R", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]}),
        );
        c.ok(
            "carry_forward",
            json!({"from": r(1), "to": r(2), "map": [{"from": "face:1", "to": "face:11"}]}),
        );
    }
    let mut a = Store::open(&db).unwrap();
    let hostile = format!("\u{1b}[2J\u{202e}evil{}", "x".repeat(5000));
    let events: Vec<_> = a
        .events()
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EventKind::Carried && e.revision == rev(1))
        .map(|mut e| {
            for c in &mut e.changes {
                if c.field == "revision" {
                    c.to = Some(hostile.clone());
                }
            }
            e.sealed()
        })
        .collect();
    assert!(!events.is_empty());
    let mut b = Store::open_in_memory().unwrap();
    b.import_with_history(&[], &[], &events).unwrap();
    let mut c = Client::new(b, ERAS[2]);
    c.ok(
        "remember_decision",
        json!({"artifact": r(3), "subject": "bore", "disposition": "accept", "basis": [
            {"requirement": "R", "source": "drawing", "state": "satisfied", "faces": ["face:1"]}]}),
    );
    let carried = c.call(
        "carry_forward",
        json!({"from": r(3), "to": r(1), "map": [{"from": "face:1", "to": "face:11"}]}),
    );
    let text = carried.to_string();
    assert!(!text.contains("evil"), "{text}");
    assert!(text.len() < 4000, "{text}");
}
