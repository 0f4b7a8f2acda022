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
