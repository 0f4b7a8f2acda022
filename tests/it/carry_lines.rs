//! The ids a carry names on an item: an id that could not be mapped is never also named
//! changed.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::inproc::{Client, Era, art_uri, rev};
use review_mcp::store::Store;

const FILE: &str = "/work/bracket.step";

fn at(n: usize) -> Value {
    art_uri(&rev(n), FILE)
}

/// An id reported changed that the map leaves out could not be carried: the carry names it
/// once, as unmapped, in its answer, the item's marker, the report and the Form 3. It was
/// named in both lists ("face:10 changed; face:10 not carried (unmapped)").
#[test]
fn a_changed_id_the_map_leaves_out_is_named_once_as_unmapped() {
    let dir = TempDir::new("nc-changed-unmapped").unwrap();
    let mut c = Client::new(Store::open(&dir.join("a.db")).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "holes", "disposition": "hold", "basis": [
            {"requirement": "Two holes", "source": "drawing", "state": "satisfied",
             "faces": ["face:10", "face:2"]}]}),
    );
    let got = c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "map": [{"from": "face:2", "to": "face:2"}],
               "changed": ["face:10"]}),
    );
    let entry = &got["re_verify"][0];
    assert_eq!(entry["unmapped"], json!(["face:10"]), "{got}");
    assert!(entry.get("changed").is_none(), "{got}");
    let recalled = c.ok(
        "recall_decisions",
        json!({"artifact": at(2), "subject": "holes"}),
    );
    let carried = &recalled["decisions"][0]["basis"][0]["carried"];
    assert_eq!(carried["unmapped"], json!(["face:10"]), "{carried}");
    assert!(carried.get("changed").is_none(), "{carried}");
    let report = c.read_text(&format!("review://revisions/{}/report", rev(2)));
    assert!(report.contains("face:10 not carried"), "{report}");
    assert!(!report.contains("face:10 changed"), "{report}");
    let csv = c.read_text(&format!("review://revisions/{}/form3.csv", rev(2)));
    assert!(csv.contains("face:10"), "{csv}");
    assert!(!csv.contains("face:10 changed"), "{csv}");
}
