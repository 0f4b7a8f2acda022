//! The review card (MCP Apps): `show_review` and its `_meta.ui` link (given to every client:
//! VS Code renders the card without declaring the extension), the `ui://` card resource, and
//! the app-only `record_verdict`, listed only to a client that declared the UI extension
//! (2026-07-28 reads the declaration from each request, never from an earlier one) and
//! recording only a click that carries the card's proof, in every host (issue 28).

#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::support::inproc::{Client, ERAS, Era, REV_A, REV_B, art_uri, rev, ui_caps};
use review_mcp::store::Store;
use serde_json::{Value, json};

const CARD: &str = "ui://review-mcp/review-card";
const FILE: &str = "/work/bracket.step";
/// How record_verdict's refusal of a click on a decision that changed begins (the card
/// reads it and shows the decision again).
const CHANGED: &str = "The decision changed since the card showed it";

fn names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {list}"))
}

/// A decision at REV_B with an item of each state, and one at REV_A (stale against REV_B).
fn seed(c: &mut Client) -> String {
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(REV_A, FILE), "subject": "bore", "disposition": "hold",
               "basis": [{"requirement": "Bore 12H7", "source": "drawing", "state": "violated"}]}),
    );
    let d = c.ok(
        "remember_decision",
        json!({"artifact": art_uri(REV_B, FILE), "subject": "bore", "disposition": "hold",
               "basis": [
                   {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied"},
                   {"requirement": "Wall 2 mm", "source": "shop-spec", "state": "violated"},
                   {"requirement": "Thread M6", "source": "standard", "state": "unresolved", "question": "rolled or cut?"},
                   {"requirement": "Ra 1.6", "source": "model-pmi", "state": "conflicting", "question": "drawing says 3.2"}
               ]}),
    );
    d["decision"]["id"].as_str().unwrap().to_string()
}

/// The card's proof of the first decision of show_review's full answer, from the result's
/// `_meta` (where the host gives it to the card and not to the model).
fn proof(c: &mut Client) -> Value {
    let resp = c.call(
        "show_review",
        json!({"artifact": art_uri(REV_B, FILE), "detail": "full"}),
    );
    let id = resp["result"]["structuredContent"]["decisions"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let p = resp["result"]["_meta"]["review-mcp/card"]["proofs"][&id].clone();
    assert!(p.as_str().is_some_and(|p| p.starts_with("cp1.")), "{resp}");
    p
}

/// How the refusal of a call without the card's proof begins.
const NOT_FROM_THE_CARD: &str =
    "record_verdict records a click in the review card only, and this call carries no card_proof";

/// The digest show_review gives basis item `index` of the current decision: what the card
/// sends back with a click on it.
fn digest(c: &mut Client, index: usize) -> Value {
    let review = c.ok(
        "show_review",
        json!({"artifact": art_uri(REV_B, FILE), "detail": "full"}),
    );
    let d = review["decisions"][0]["basis"][index]["digest"].clone();
    assert!(d.is_string(), "{review}");
    d
}

#[test]
fn card_links_go_to_every_client_and_the_app_tool_only_to_one_that_declared_the_extension() {
    for era in ERAS {
        // A host that declares nothing (VS Code renders the card all the same) gets the
        // link, and never record_verdict: it may show every listed tool to its model.
        let mut plain = Client::memory(era);
        let list = plain.request("tools/list", json!({}));
        assert!(
            !names(&list).contains(&"record_verdict".to_string()),
            "{era:?}"
        );
        assert_eq!(
            tool(&list, "show_review")["_meta"]["ui"]["resourceUri"],
            CARD,
            "{era:?}"
        );

        let mut host = Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps());
        let list = host.request("tools/list", json!({}));
        let show = &tool(&list, "show_review")["_meta"]["ui"];
        assert_eq!(show["resourceUri"], CARD, "{era:?}");
        assert_eq!(show["visibility"], json!(["model", "app"]));
        let record = &tool(&list, "record_verdict")["_meta"]["ui"];
        assert_eq!(record["resourceUri"], CARD);
        assert_eq!(record["visibility"], json!(["app"]));
        // The flat key the specification's Tool type still names (deprecated), which the
        // official SDK writes beside ui.resourceUri for hosts that read only that key.
        for name in ["show_review", "record_verdict"] {
            assert_eq!(
                tool(&list, name)["_meta"]["ui/resourceUri"],
                CARD,
                "{era:?}"
            );
        }
        // Only show_review and record_verdict carry links.
        let linked = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t.get("_meta").is_some())
            .count();
        assert_eq!(linked, 2);
    }
}

#[test]
fn card_ui_extension_without_the_app_mime_type_declares_nothing() {
    let caps = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}});
    let mut c = Client::declaring(Store::open_in_memory().unwrap(), Era::V2025_11_25, caps);
    let list = c.request("tools/list", json!({}));
    assert!(!names(&list).contains(&"record_verdict".to_string()));
}

/// Issue 28: no model, in any host, records a verdict as the card's. A call without the
/// card's proof is refused, whether or not the client declared the extension; one with a
/// proof that is not the card's (made up, or of another decision) is refused as a change the
/// card must show again. Nothing is written either way.
#[test]
fn card_record_verdict_without_the_card_proof_is_refused_in_every_host_and_writes_nothing() {
    for era in ERAS {
        for declared in [false, true] {
            let mut c = if declared {
                Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps())
            } else {
                Client::memory(era)
            };
            let id = seed(&mut c);
            let bore = digest(&mut c, 0);
            let refused = c.refused(
                "record_verdict",
                json!({"decision_id": id, "index": 0, "item_digest": bore, "judgement": "accepted"}),
            );
            assert!(refused.starts_with(NOT_FROM_THE_CARD), "{era:?}: {refused}");
            assert!(refused.contains("review-mcp review"), "{refused}");
            for forged in [
                json!("cp1.00000000000000000000000000000000"),
                json!("cp1.4.00000000000000000000000000000000"),
                json!("not a proof"),
            ] {
                let refused = c.refused(
                    "record_verdict",
                    json!({"decision_id": id, "index": 0, "item_digest": bore,
                           "judgement": "accepted", "card_proof": forged}),
                );
                assert!(refused.starts_with(CHANGED), "{era:?}: {refused}");
                assert!(refused.contains("card_proof is not the one"), "{refused}");
            }
            let back = c.ok(
                "recall_decisions",
                json!({"artifact": art_uri(REV_B, FILE)}),
            );
            assert!(back["decisions"][0]["basis"][0].get("verdict").is_none());
        }
    }
}

/// Issue 28: a host that renders the card without declaring the extension (VS Code): the
/// card gets the review and its proofs from show_review's result, and its click is recorded
/// as the engineer's, in each era.
#[test]
fn card_in_a_host_that_never_declared_the_extension_records_the_click() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let id = seed(&mut c);
        let read = c.request("resources/read", json!({"uri": CARD}));
        assert_eq!(
            read["result"]["contents"][0]["mimeType"],
            "text/html;profile=mcp-app"
        );
        let card_proof = proof(&mut c);
        let wall = digest(&mut c, 1);
        let out = c.ok(
            "record_verdict",
            json!({"decision_id": id, "index": 1, "item_digest": wall, "judgement": "rejected",
                   "card_proof": card_proof}),
        );
        assert_eq!(out["verdict"]["via"], "app", "{era:?}");
        // The result carries the decision's proof again (a verdict does not change it).
        let bore = digest(&mut c, 0);
        let again = c.call(
            "record_verdict",
            json!({"decision_id": id, "index": 0, "item_digest": bore,
                   "judgement": "accepted", "card_proof": card_proof}),
        );
        assert_eq!(
            again["result"]["_meta"]["review-mcp/card"]["proofs"][&id], card_proof,
            "{again}"
        );
    }
}

/// 2026-07-28: one request declares the extension and the next does not; the second is
/// served as if nothing had ever been declared.
#[test]
fn card_modern_declaration_is_read_per_request_never_cached() {
    let mut c = Client::memory(Era::V2026_07_28);
    let id = seed(&mut c);
    let with = c.request_declaring("tools/list", json!({}), ui_caps());
    assert!(names(&with).contains(&"record_verdict".to_string()));
    let without = c.request_declaring("tools/list", json!({}), json!({}));
    assert!(!names(&without).contains(&"record_verdict".to_string()));
    assert_eq!(
        tool(&without, "show_review")["_meta"]["ui"]["resourceUri"],
        CARD
    );
    let shown = c.request_declaring(
        "tools/call",
        json!({"name": "show_review", "arguments": {"artifact": art_uri(REV_B, FILE), "detail": "full"}}),
        ui_caps(),
    );
    let digest = shown
        .pointer("/result/structuredContent/decisions/0/basis/1/digest")
        .cloned()
        .unwrap();
    let card_proof = shown["result"]["_meta"]["review-mcp/card"]["proofs"][&id].clone();
    let args = json!({"name": "record_verdict", "arguments": {"decision_id": id, "index": 1, "item_digest": digest, "judgement": "rejected", "card_proof": card_proof}});
    let ok = c.request_declaring("tools/call", args.clone(), ui_caps());
    assert_eq!(
        ok["result"]["structuredContent"]["verdict"]["via"], "app",
        "{ok}"
    );
    // The next request declares nothing: the proof, not the declaration, makes the click.
    let again = c.request_declaring("tools/call", args.clone(), json!({}));
    assert_eq!(
        again["result"]["structuredContent"]["verdict"]["via"], "app",
        "{again}"
    );
    let mut without_proof = args;
    without_proof["arguments"]
        .as_object_mut()
        .unwrap()
        .remove("card_proof");
    let refused = c.request_declaring("tools/call", without_proof, ui_caps());
    assert_eq!(refused["result"]["isError"], true, "{refused}");
}

#[test]
fn card_resource_is_one_self_contained_html_file_with_empty_csp_domains() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let read = c.request("resources/read", json!({"uri": CARD}));
        let content = &read["result"]["contents"][0];
        assert_eq!(content["uri"], CARD);
        assert_eq!(content["mimeType"], "text/html;profile=mcp-app");
        let html = content["text"].as_str().unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.len() < 64 * 1024, "{} bytes", html.len());
        assert!(!html.contains("http://") && !html.contains("https://"));
        assert!(!html.contains("innerHTML"), "data goes in as text");
        let csp = &content["_meta"]["ui"]["csp"];
        for key in [
            "connectDomains",
            "resourceDomains",
            "frameDomains",
            "baseUriDomains",
        ] {
            assert_eq!(csp[key], json!([]), "{key}");
        }
    }
}

#[test]
fn card_show_review_answers_decisions_open_questions_stale_and_a_text_report() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let id = seed(&mut c);
        c.ok(
            "remember",
            json!({"artifact": art_uri(REV_B, FILE), "name": "mating face", "note": "to the frame", "entity_ids": ["face:1"]}),
        );
        let review = c.ok(
            "show_review",
            json!({"artifact": art_uri(REV_B, FILE), "detail": "full"}),
        );
        assert_eq!(review["revision"], REV_B);
        assert_eq!(review["decisions"][0]["id"], id.as_str());
        assert_eq!(review["decisions"][0]["stale"], false);
        assert_eq!(review["decisions"][0]["basis"].as_array().unwrap().len(), 4);
        assert_eq!(review["records"][0]["name"], "mating face");
        assert_eq!(
            review["stale"]["decisions"][0]["artifact"]["revision"],
            REV_A
        );
        assert_eq!(review["stale"]["decisions"][0]["stale"], true);
        let open: Vec<(u64, &str)> = review["open_questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| (q["index"].as_u64().unwrap(), q["state"].as_str().unwrap()))
            .collect();
        assert_eq!(open, [(2, "unresolved"), (3, "conflicting")]);
        // By default the summary: the model reads counts and open questions, and is told
        // where the full report is.
        let resp = c.call("show_review", json!({"artifact": art_uri(REV_B, FILE)}));
        let text = resp["result"]["content"][0]["text"].as_str().unwrap();
        let report = format!("review://revisions/{REV_B}/report");
        assert!(text.contains(&report), "{text}");
        let summary = c.ok("show_review", json!({"artifact": art_uri(REV_B, FILE)}));
        assert_eq!(summary["detail"], "summary");
        assert_eq!(summary["report"], report.as_str());
        let d = &summary["decisions"][0];
        assert_eq!((&d["id"], &d["items"]), (&json!(id), &json!(4)));
        assert!(d.get("basis").is_none());
        let open: Vec<u64> = d["open_questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["index"].as_u64().unwrap())
            .collect();
        assert_eq!(open, [2, 3]);
        assert_eq!(
            summary["artifacts"][d["artifact"].as_u64().unwrap() as usize]["stale"],
            false
        );
        assert_eq!(summary["stale_decisions"].as_array().unwrap().len(), 1);
        assert_eq!(summary["counts"]["records"], 1);
        // An unknown subject and a revision with nothing recorded: an empty review.
        let none = c.ok(
            "show_review",
            json!({"artifact": art_uri(REV_B, FILE), "subject": "no such", "detail": "full"}),
        );
        assert_eq!(none["decisions"], json!([]));
        assert_eq!(none["stale"]["decisions"], json!([]));
        let empty = c.ok(
            "show_review",
            json!({"artifact": art_uri(&format!("sha256:{}", "c".repeat(64)), "/x.step"), "detail": "full"}),
        );
        assert_eq!(empty["decisions"], json!([]));
        assert_eq!(empty["records"], json!([]));
    }
}

/// A click is the engineer's word: recorded via app, and an assistant's remember_decision of
/// the same requirement keeps it (the outranking rule of elicitation).
#[test]
fn card_record_verdict_is_the_engineers_and_outranks_the_assistant() {
    for era in ERAS {
        let mut c = Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps());
        let id = seed(&mut c);
        let card_proof = proof(&mut c);
        let wall = digest(&mut c, 1);
        let out = c.ok(
            "record_verdict",
            json!({"decision_id": id, "index": 1, "item_digest": wall, "judgement": "rejected", "reason": "too thin", "card_proof": card_proof}),
        );
        assert_eq!(out["index"], 1);
        assert_eq!(out["verdict"]["via"], "app");
        assert_eq!(out["decision"]["basis"][1]["verdict"]["reason"], "too thin");
        let bore = digest(&mut c, 0);
        let blank = c.ok(
            "record_verdict",
            json!({"decision_id": id, "index": 0, "item_digest": bore, "judgement": "accepted", "reason": "  ", "card_proof": card_proof}),
        );
        assert!(
            blank["verdict"].get("reason").is_none(),
            "a blank reason is none"
        );
        let replaced = c.ok(
            "remember_decision",
            json!({"artifact": art_uri(REV_B, FILE), "subject": "bore", "disposition": "release",
            "basis": [
                {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied"},
                {"requirement": "Wall 2 mm", "source": "shop-spec", "state": "satisfied",
                 "verdict": {"judgement": "accepted"}}
            ]}),
        );
        let kept = &replaced["decision"]["basis"][1]["verdict"];
        assert_eq!(kept["judgement"], "rejected", "{replaced}");
        assert_eq!(kept["via"], "app");
        let card_proof = proof(&mut c);
        let past = c.refused(
            "record_verdict",
            json!({"decision_id": id, "index": 3, "item_digest": bore, "judgement": "accepted", "card_proof": card_proof}),
        );
        assert!(past.starts_with(CHANGED), "{past}");
        assert!(past.contains("no item 4"), "{past}");
        let gone = c.refused(
            "record_verdict",
            json!({"decision_id": "dec_none", "index": 0, "item_digest": bore, "judgement": "accepted", "card_proof": card_proof}),
        );
        assert!(gone.starts_with(CHANGED), "{gone}");
        assert!(gone.contains("no decision dec_none"), "{gone}");
    }
}

/// Issue 23, item 2: a click is recorded only for exactly the item the engineer saw. The
/// assistant re-records the decision with a new first item while the card is open: the click
/// on the bore (index 0 when shown) must not be stored as a verdict on the wall, and is
/// refused; any change to what the item says refuses it too; a verdict elsewhere does not.
#[test]
fn card_click_is_recorded_only_for_the_item_the_engineer_saw() {
    for era in ERAS {
        let mut c = Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps());
        let id = seed(&mut c);
        let review = c.ok(
            "show_review",
            json!({"artifact": art_uri(REV_B, FILE), "detail": "full"}),
        );
        let shown = review["decisions"][0]["basis"].as_array().unwrap().clone();
        let card_proof = proof(&mut c);
        let digests: Vec<&str> = shown
            .iter()
            .map(|b| b["digest"].as_str().unwrap())
            .collect();
        assert_eq!(digests.len(), 4);
        assert!(digests.iter().all(|d| d.len() == 32), "{digests:?}");
        // Another verdict in the decision leaves the other items as shown.
        c.ok(
            "record_verdict",
            json!({"decision_id": id, "index": 3, "item_digest": digests[3], "judgement": "accepted", "card_proof": card_proof}),
        );
        let click = |index: usize, digest: &str, card_proof: &Value| json!({"decision_id": id, "index": index, "item_digest": digest, "judgement": "rejected", "card_proof": card_proof});
        // The assistant puts a new item first.
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(REV_B, FILE), "subject": "bore", "disposition": "hold",
            "basis": [
                {"requirement": "Wall thickness 2 mm", "source": "shop-spec", "state": "violated"},
                {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied"},
                {"requirement": "Ra 1.6", "source": "model-pmi", "state": "satisfied"}
            ]}),
        );
        let refused = c.refused("record_verdict", click(0, digests[0], &card_proof));
        assert!(refused.starts_with(CHANGED), "{era:?}: {refused}");
        assert!(refused.contains("Nothing was written"), "{refused}");
        // With the proof of the decision as it is now, the stale digest is refused all the
        // same, naming what the item says now.
        let fresh = proof(&mut c);
        let refused = c.refused("record_verdict", click(0, digests[0], &fresh));
        assert!(refused.starts_with(CHANGED), "{era:?}: {refused}");
        assert!(refused.contains("Wall thickness 2 mm"), "{refused}");
        assert!(refused.contains("Nothing was written"), "{refused}");
        let d = c.ok(
            "recall_decisions",
            json!({"artifact": art_uri(REV_B, FILE)}),
        );
        assert!(
            d["decisions"][0]["basis"][0].get("verdict").is_none(),
            "{era:?}: the wall stays unjudged: {d}"
        );
        assert!(d["decisions"][0]["basis"][1].get("verdict").is_none());
        // Ra 1.6 says something else now (state conflicting -> satisfied, no question): a click
        // on it as shown is refused too, though its requirement is the same.
        let refused = c.refused("record_verdict", click(2, digests[3], &fresh));
        assert!(refused.starts_with(CHANGED), "{refused}");
        // The bore as it is now: the card's new digest lands on it.
        let now = digest(&mut c, 1);
        assert_eq!(
            now.as_str(),
            Some(digests[0]),
            "the same item, the same digest"
        );
        let out = c.ok("record_verdict", click(1, digests[0], &fresh));
        assert_eq!(out["decision"]["basis"][1]["verdict"]["via"], "app");
        assert_eq!(out["decision"]["basis"][1]["digest"], digests[0]);
        assert!(out["decision"]["basis"][0].get("verdict").is_none());
        // Without the item's digest the card's call is not the card's: refused by the schema.
        let missing = c.schema_refused(
            "record_verdict",
            json!({"decision_id": id, "index": 1, "judgement": "accepted"}),
        );
        assert!(missing.contains("item_digest"), "{era:?}: {missing}");
    }
}

/// Issue 28: the card's proofs ride in `_meta` of show_review's answer, and the answer stays
/// within the bound of every answer (32,000 bytes) with them: a revision of many small
/// decisions, each shown whole with its proof.
#[test]
fn card_proofs_keep_a_full_review_within_the_answer_bound() {
    let mut c = Client::memory(Era::V2025_11_25);
    for i in 0..150 {
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(REV_B, FILE), "subject": format!("d{i}"), "disposition": "ok",
                   "basis": [{"requirement": "r", "source": "drawing", "state": "satisfied"}]}),
        );
    }
    let resp = c.call(
        "show_review",
        json!({"artifact": art_uri(REV_B, FILE), "detail": "full"}),
    );
    let line = serde_json::to_string(&resp).unwrap();
    assert!(line.len() <= 32_000, "{} bytes", line.len());
    let shown = resp["result"]["structuredContent"]["decisions"]
        .as_array()
        .unwrap();
    assert!(shown.len() > 10, "{}", shown.len());
    let proofs = resp["result"]["_meta"]["review-mcp/card"]["proofs"]
        .as_object()
        .unwrap();
    assert_eq!(
        proofs.len(),
        shown.len(),
        "a proof for every decision shown"
    );
}

/// The card of a revision judges that revision's decisions only: the stale decisions it
/// lists (another revision's) are shown without Accept and Reject, and the server gave them
/// a proof all the same, so a click forged on one (a verdict for a decision of another
/// revision, through the card of this one) was recorded as the engineer's. Now no stale
/// decision gets a proof, and such a click writes nothing.
#[test]
fn the_card_of_one_revision_records_no_verdict_on_a_stale_decision() {
    for era in ERAS {
        let mut c = Client::memory(era);
        seed(&mut c);
        let resp = c.call(
            "show_review",
            json!({"artifact": art_uri(REV_B, FILE), "detail": "full"}),
        );
        let review = &resp["result"]["structuredContent"];
        let stale = &review["stale"]["decisions"][0];
        let id = stale["id"].as_str().unwrap().to_string();
        assert_eq!(stale["artifact"]["revision"], REV_A, "{review}");
        let proofs = &resp["result"]["_meta"]["review-mcp/card"]["proofs"];
        assert!(proofs.get(&id).is_none(), "{era:?}: {proofs}");
        // Even with the proof the current decision has, nothing is written on the stale one.
        let current = review["decisions"][0]["id"].as_str().unwrap();
        let text = c.refused(
            "record_verdict",
            json!({"decision_id": id, "index": 0, "item_digest": stale["basis"][0]["digest"],
                   "judgement": "accepted", "card_proof": proofs[current]}),
        );
        assert!(text.starts_with(CHANGED), "{text}");
        let got = c.ok(
            "recall_decisions",
            json!({"artifact": art_uri(REV_A, FILE), "subject": "bore"}),
        );
        assert!(
            got["decisions"][0]["basis"][0].get("verdict").is_none(),
            "{era:?}: {got}"
        );
    }
}

/// A click of the card says which verdict the item showed (`seen_verdict_at`): the same
/// message replayed once it was recorded, or a stale one after a later verdict, wrote the
/// engineer's verdict again (a fresh time, the old judgement back over the newer one). Now
/// it writes nothing and is refused as a changed decision (the card shows it again).
#[test]
fn a_replayed_or_stale_card_click_writes_nothing() {
    for era in ERAS {
        let mut c = Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps());
        let id = seed(&mut c);
        let card_proof = proof(&mut c);
        let digest = digest(&mut c, 1);
        let click = |judgement: &str, seen: &str| {
            json!({"decision_id": id, "index": 1, "item_digest": digest, "judgement": judgement,
                   "card_proof": card_proof, "seen_verdict_at": seen})
        };
        let accepted = click("accepted", "");
        let first = c.ok("record_verdict", accepted.clone());
        let at = first["verdict"]["at"].as_str().unwrap().to_string();
        let verdict_now = |c: &mut Client| {
            let d = c.ok(
                "recall_decisions",
                json!({"artifact": art_uri(REV_B, FILE), "subject": "bore"}),
            );
            d["decisions"][0]["basis"][1]["verdict"].clone()
        };
        let stored = verdict_now(&mut c);
        // The same message again: nothing written.
        let refused = c.refused("record_verdict", accepted.clone());
        assert!(refused.starts_with(CHANGED), "{era:?}: {refused}");
        assert!(refused.contains("recorded already"), "{refused}");
        assert_eq!(verdict_now(&mut c), stored, "{era:?}");
        // The engineer changes their mind, having seen their first verdict: recorded.
        let second = c.ok("record_verdict", click("rejected", &at));
        assert_eq!(second["verdict"]["judgement"], "rejected");
        // The first click replayed now would put "accepted" back over it: refused.
        let refused = c.refused("record_verdict", accepted);
        assert!(refused.starts_with(CHANGED), "{era:?}: {refused}");
        assert_eq!(verdict_now(&mut c)["judgement"], "rejected", "{era:?}");
        // The history has the two clicks, not the replays.
        let h = c.ok("review_history", json!({"id": id}));
        let verdict_events = h["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"].as_str().unwrap().starts_with("verdict_"))
            .count();
        assert_eq!(verdict_events, 2, "{era:?}: {h}");
    }
}

/// Regression (card audit): `resources/subscribe` to the review card, which `resources/read`
/// serves, was refused as "not a resource of this server". It is one, which never changes:
/// the refusal says so, and names the resources that do change. So for a history event.
#[test]
fn subscribing_to_a_resource_that_never_changes_says_so() {
    let mut c = Client::memory(Era::V2025_11_25);
    for uri in [
        "ui://review-mcp/review-card",
        "review://events/evt-0123456789abcdef0123456789abcdef",
    ] {
        let resp = c.request("resources/subscribe", json!({"uri": uri}));
        assert_eq!(resp["error"]["code"], -32602, "{resp}");
        let message = resp["error"]["message"].as_str().unwrap();
        assert!(message.contains("never changes"), "{message}");
        assert!(
            message.contains("review://revisions/<revision>"),
            "{message}"
        );
    }
    let other = c.request(
        "resources/subscribe",
        json!({"uri": "review://somewhere/else"}),
    );
    let message = other["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("not a resource of this server"),
        "{message}"
    );
}

/// Two clones of one review: B carries the decision "bore" (two items) from revision 1 to 2,
/// A, not yet synced, gives the engineer's verdict on item 2 at revision 1 (rejected, "0.08
/// measured", Ada in the card), and both sync. B's database, and the id of revision 1's
/// decision.
fn late_verdict_after_carry(dir: &crate::support::TempDir) -> (std::path::PathBuf, String) {
    use review_mcp::review::{Judgement, Verdict, Via};
    use review_mcp::store::{DecisionRef, Shown};

    let (a, b) = (dir.join("a.db"), dir.join("b.db"));
    let r1 = art_uri(&rev(1), FILE);
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
    Client::new(Store::open(&b).unwrap(), ERAS[2]).ok(
        "carry_forward",
        json!({"from": r1, "to": art_uri(&rev(2), FILE), "changed": [],
               "map": [{"from": "face:3", "to": "face:13"}, {"from": "face:4", "to": "face:14"}]}),
    );
    sync(&b);
    let mut store = Store::open(&a).unwrap();
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
    store
        .record_verdicts(&at, Shown::Item(&shown), &[(1, verdict)])
        .unwrap();
    drop(store);
    sync(&a);
    sync(&b);
    (b, source)
}

/// Regression (card audit): an engineer's verdict the old revision's decision got after the
/// review was carried (a clone's, by sync) was named by every reader of the new revision
/// (recall_decisions, show_review's line, the report, the form, the terminal) but not by the
/// card: its data had nothing on the carried item, so the card showed the item as inherited
/// with nothing after. Now each carried item of the card's data names it (`after_carry`),
/// record_verdict's decision too (a click on another item keeps it), and a click on the item
/// records the verdict on the current decision, after which nothing is named.
#[test]
fn card_data_names_a_verdict_given_at_the_old_revision_after_the_carry() {
    let dir = crate::support::TempDir::new("card-late-verdict").unwrap();
    let (db, source) = late_verdict_after_carry(&dir);
    let r2 = art_uri(&rev(2), FILE);
    let mut c = Client::declaring(Store::open(&db).unwrap(), ERAS[2], ui_caps());
    let resp = c.call("show_review", json!({"artifact": r2, "detail": "full"}));
    let review = &resp["result"]["structuredContent"];
    let d = &review["decisions"][0];
    let id = d["id"].as_str().unwrap().to_string();
    assert_ne!(id, source, "{review}");
    assert!(d["basis"][0].get("after_carry").is_none(), "{d}");
    let after = &d["basis"][1]["after_carry"];
    assert_eq!(after["revision"], rev(1), "{d}");
    assert_eq!(after["verdict"]["judgement"], "rejected", "{d}");
    assert_eq!(after["verdict"]["reason"], "0.08 measured", "{d}");
    assert_eq!(after["verdict"]["via"], "app", "{d}");
    assert_eq!(after["verdict"]["author"], "Ada", "{d}");
    // The card's proof, given anew with each decision it is given (a click changes it).
    let proof = |resp: &Value| resp["result"]["_meta"]["review-mcp/card"]["proofs"][&id].clone();
    let click = |index: usize, judgement: &str, proof: Value| {
        json!({"decision_id": id, "index": index, "item_digest": d["basis"][index]["digest"],
               "judgement": judgement, "card_proof": proof, "seen_verdict_at": ""})
    };
    // A click on the other item: the decision the card is given back still names it.
    let first = c.call("record_verdict", click(0, "accepted", proof(&resp)));
    let decision = &first["result"]["structuredContent"]["decision"];
    assert_eq!(
        decision["basis"][1]["after_carry"]["verdict"]["judgement"], "rejected",
        "{first}"
    );
    // A click on the item: recorded on the current decision, and nothing is named since.
    let second = c.ok("record_verdict", click(1, "accepted", proof(&first)));
    assert_eq!(second["decision"]["id"], id.as_str());
    assert!(
        second["decision"]["basis"][1].get("after_carry").is_none(),
        "{second}"
    );
    let now = c.ok(
        "recall_decisions",
        json!({"artifact": r2, "subject": "bore"}),
    );
    assert!(now.get("verdicts_after_carry").is_none(), "{now}");
    let item = &now["decisions"][0]["basis"][1];
    assert_eq!(item["verdict"]["judgement"], "accepted", "{now}");
    assert_eq!(item["verdict"]["via"], "app", "{now}");
    drop(c);
    let old = Store::open(&db)
        .unwrap()
        .get_decision(&source)
        .unwrap()
        .unwrap();
    let v = old.basis[1].verdict.as_ref().unwrap();
    assert_eq!(
        (v.judgement.as_str(), v.reason.as_deref()),
        ("rejected", Some("0.08 measured")),
        "the old revision's verdict stays as it was"
    );
}

/// Regression (card audit): a click in a card opened before the review was carried on
/// (carry_forward, here or by sync) was refused with the store's sentence for the model
/// ("Give the verdict on that revision's decision (show_review or request_verdicts with
/// artifact.revision …)"), which the card showed as it was, its buttons still there. Now the
/// refusal begins as every refusal of a click on a decision that changed does, so the card
/// shows the review again (the decision superseded, without buttons), and it says, as the
/// terminal does, where the item is judged now. Nothing is written.
#[test]
fn a_card_click_on_a_decision_carried_on_since_is_refused_as_changed() {
    for era in ERAS {
        let mut c = Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps());
        let id = seed(&mut c);
        let card_proof = proof(&mut c);
        let digest = digest(&mut c, 1);
        c.ok(
            "carry_forward",
            json!({"from": art_uri(REV_B, FILE), "to": art_uri(&rev(9), FILE), "map": []}),
        );
        let text = c.refused(
            "record_verdict",
            json!({"decision_id": id, "index": 1, "item_digest": digest, "judgement": "accepted",
                   "card_proof": card_proof, "seen_verdict_at": ""}),
        );
        assert!(text.starts_with(CHANGED), "{era:?}: {text}");
        assert!(
            text.contains(&format!(
                "was carried to revision {} (carry_forward): judge it there",
                rev(9)
            )),
            "{text}"
        );
        assert!(
            text.ends_with("judge it there. Nothing was written."),
            "{text}"
        );
        // What was carried there forgotten since: no revision holds the review.
        c.ok(
            "forget",
            json!({"artifact": art_uri(&rev(9), FILE), "subject": "bore"}),
        );
        let text = c.refused(
            "record_verdict",
            json!({"decision_id": id, "index": 1, "item_digest": digest, "judgement": "accepted",
                   "card_proof": card_proof, "seen_verdict_at": ""}),
        );
        assert!(text.starts_with(CHANGED), "{era:?}: {text}");
        assert!(
            text.contains("and forgotten there: no revision holds its review"),
            "{text}"
        );
        let got = c.ok(
            "recall_decisions",
            json!({"artifact": art_uri(REV_B, FILE), "subject": "bore"}),
        );
        assert!(
            got["decisions"][0]["basis"][1].get("verdict").is_none(),
            "{era:?}: {got}"
        );
    }
}

/// Regression: a card opened on a revision carried on, whose carried copy was forgotten since,
/// said "Carried to revision X (carry_forward): judge it there", and show_review's line said
/// its review goes on there, where nothing is left (the terminal says the copy was
/// forgotten, and to state the decision again). The card's data now marks such a decision
/// (`superseded.forgotten`), and the line says what the terminal says.
#[test]
fn a_revision_whose_carried_copy_was_forgotten_says_so_to_the_card_and_in_the_line() {
    for era in ERAS {
        let mut c = Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps());
        seed(&mut c);
        c.ok(
            "carry_forward",
            json!({"from": art_uri(REV_B, FILE), "to": art_uri(&rev(9), FILE), "map": []}),
        );
        let show = |c: &mut Client, detail: &str| {
            let resp = c.call(
                "show_review",
                json!({"artifact": art_uri(REV_B, FILE), "detail": detail}),
            );
            let text = resp["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("{resp}"))
                .to_string();
            (resp["result"]["structuredContent"].clone(), text)
        };
        let (review, line) = show(&mut c, "full");
        let d = &review["decisions"][0];
        assert_eq!(d["superseded"]["by"], json!(rev(9)), "{era:?}: {review}");
        assert!(d["superseded"].get("forgotten").is_none(), "{review}");
        assert!(line.contains("its review goes on there"), "{line}");

        c.ok(
            "forget",
            json!({"artifact": art_uri(&rev(9), FILE), "subject": "bore"}),
        );
        let (review, line) = show(&mut c, "full");
        let d = &review["decisions"][0];
        assert_eq!(d["superseded"]["by"], json!(rev(9)), "{era:?}: {review}");
        assert_eq!(
            d["superseded"]["forgotten"],
            json!(true),
            "{era:?}: {review}"
        );
        for (_, line) in [(review.clone(), line), show(&mut c, "summary")] {
            assert!(!line.contains("goes on there"), "{era:?}: {line}");
            assert!(
                line.contains("forgotten there") && line.contains("state it again"),
                "{era:?}: {line}"
            );
        }
    }
}

/// The same when only some of what was carried was forgotten there: the rest goes on at the
/// later revision, and the line says how much is to be stated again.
#[test]
fn a_revision_whose_carried_copies_were_partly_forgotten_says_how_many_in_the_line() {
    let mut c = Client::declaring(Store::open_in_memory().unwrap(), ERAS[0], ui_caps());
    seed(&mut c);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(REV_B, FILE), "subject": "wall", "disposition": "hold",
               "basis": [{"requirement": "Wall 2 mm", "source": "drawing", "state": "satisfied"}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": art_uri(REV_B, FILE), "to": art_uri(&rev(9), FILE), "map": []}),
    );
    c.ok(
        "forget",
        json!({"artifact": art_uri(&rev(9), FILE), "subject": "bore"}),
    );
    let resp = c.call(
        "show_review",
        json!({"artifact": art_uri(REV_B, FILE), "detail": "full"}),
    );
    let line = resp["result"]["content"][0]["text"].as_str().unwrap();
    assert!(line.contains("its review goes on there"), "{line}");
    assert!(
        line.contains("1 of the 2 items carried there was forgotten there since: state it again"),
        "{line}"
    );
    let review = &resp["result"]["structuredContent"];
    let forgotten: Vec<&Value> = review["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["superseded"]["forgotten"] == json!(true))
        .map(|d| &d["subject"])
        .collect();
    assert_eq!(forgotten, [&json!("bore")], "{review}");
}

/// Regression: a review carried on twice (B to 9, then 9 to 10) was said, in the card and in
/// the refusal of a click, to be judged at revision 9, carried on too, where request_verdicts
/// names 10, the revision the review stands at. The card's data names it
/// (`superseded.stands_at`), and the refusal says it.
#[test]
fn a_review_carried_on_twice_names_where_it_stands_to_the_card_and_in_a_refusal() {
    for era in ERAS {
        let mut c = Client::declaring(Store::open_in_memory().unwrap(), era, ui_caps());
        let id = seed(&mut c);
        let card_proof = proof(&mut c);
        let digest = digest(&mut c, 1);
        c.ok(
            "carry_forward",
            json!({"from": art_uri(REV_B, FILE), "to": art_uri(&rev(9), FILE), "map": []}),
        );
        let review = c.ok(
            "show_review",
            json!({"artifact": art_uri(REV_B, FILE), "detail": "full"}),
        );
        assert!(
            review["decisions"][0]["superseded"]
                .get("stands_at")
                .is_none(),
            "{era:?}: {review}"
        );
        c.ok(
            "carry_forward",
            json!({"from": art_uri(&rev(9), FILE), "to": art_uri(&rev(10), FILE), "map": []}),
        );
        let review = c.ok(
            "show_review",
            json!({"artifact": art_uri(REV_B, FILE), "detail": "full"}),
        );
        let s = &review["decisions"][0]["superseded"];
        assert_eq!(s["by"], json!(rev(9)), "{era:?}: {review}");
        assert_eq!(s["stands_at"], json!(rev(10)), "{era:?}: {review}");
        // The line the model reads names where the review stands too, not only the next
        // revision (which refuses in its turn).
        let resp = c.call("show_review", json!({"artifact": art_uri(REV_B, FILE)}));
        let line = resp["result"]["content"][0]["text"].as_str().unwrap_or("");
        assert!(
            line.contains(&format!(
                "Superseded by revision {} (carry_forward), and carried on to revision {} \
                 since: its review goes on there.",
                rev(9),
                rev(10)
            )),
            "{era:?}: {line}"
        );
        let report = c.read_text(&format!("review://revisions/{REV_B}/report"));
        assert!(
            report.contains(&format!(
                "It was carried on to revision `{}` since",
                rev(10)
            )),
            "{era:?}: {report}"
        );
        let text = c.refused(
            "record_verdict",
            json!({"decision_id": id, "index": 1, "item_digest": digest, "judgement": "accepted",
                   "card_proof": card_proof, "seen_verdict_at": ""}),
        );
        assert!(text.starts_with(CHANGED), "{era:?}: {text}");
        assert!(
            text.contains(&format!(
                "was carried to revision {} and on to revision {} (carry_forward): judge it there",
                rev(9),
                rev(10)
            )),
            "{era:?}: {text}"
        );
    }
}
