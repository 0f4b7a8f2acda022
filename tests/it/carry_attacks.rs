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
                   "change": "\u{1}".repeat(4000)}),
        );
        let line = serde_json::to_string(&resp).unwrap();
        assert!(line.len() <= 32_000, "{era:?}: {} bytes", line.len());
        assert!(resp["result"].get("isError").is_none_or(|e| e == false), "{resp}");
    }
}
