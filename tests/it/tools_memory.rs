//! The five review tools end to end through the server, in each era: replace vs append,
//! exact and revision-scoped entity filters, text and tags across revisions, URI
//! normalisation, decisions, forget, schema refusals and limits.

// Helpers outside #[test] functions may panic too: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::support::inproc::{Client, ERAS, Era, REV_A, REV_B, art, art_uri};
use serde_json::{Value, json};

fn names(records: &Value) -> Vec<String> {
    records
        .as_array()
        .expect("array")
        .iter()
        .map(|r| {
            r["name"]
                .as_str()
                .or(r["note"].as_str())
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

#[test]
fn tools_list_every_tool_has_schemas_and_annotations() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let list = c.request("tools/list", json!({}));
        let tools = list["result"]["tools"].as_array().expect("tools").clone();
        let got: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(
            got,
            [
                "remember",
                "recall",
                "remember_decision",
                "recall_decisions",
                "carry_forward",
                "request_verdicts",
                "show_review",
                "forget",
                "artifact_revision",
                "review_history"
            ]
        );
        for t in &tools {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            assert_eq!(t["inputSchema"]["additionalProperties"], false, "{t}");
            assert!(t["inputSchema"].get("$schema").is_none());
            assert_eq!(t["outputSchema"]["type"], "object", "{t}");
            assert_eq!(t["annotations"]["openWorldHint"], false);
            assert!(t["description"].as_str().is_some_and(|d| d.len() > 100));
        }
        let read_only: Vec<bool> = tools
            .iter()
            .map(|t| t["annotations"]["readOnlyHint"] == json!(true))
            .collect();
        assert_eq!(
            read_only,
            [
                false, true, false, true, false, false, true, false, true, true
            ]
        );
    }
}

#[test]
fn remember_named_feature_twice_replaces_and_keeps_id() {
    let mut c = Client::memory(Era::V2025_11_25);
    let first = c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": ["face:1"], "name": "mating face",
               "note": "first", "tags": ["interface"]}),
    );
    assert_eq!(first["replaced"], false);
    assert_eq!(first["record"]["kind"], "feature");
    assert_eq!(first["record"]["id_scheme"], "opaque");
    assert_eq!(first["record"]["stale"], false);
    let second = c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": ["face:2"], "name": "mating face",
               "id_scheme": "occt"}),
    );
    assert_eq!(second["replaced"], true);
    let (r1, r2) = (&first["record"], &second["record"]);
    assert_eq!(r1["id"], r2["id"]);
    assert_eq!(r1["created_at"], r2["created_at"]);
    assert_eq!(r2["entity_ids"], json!(["face:2"]));
    assert_eq!(r2["id_scheme"], "occt");
    // Fields absent from the new call are absent after it.
    assert!(r2.get("note").is_none(), "{r2}");
    assert_eq!(r2["tags"], json!([]));
    let all = c.ok("recall", json!({"artifact": art(REV_A)}));
    assert_eq!(all["records"].as_array().map(Vec::len), Some(1));
    assert_eq!(crate::support::inproc::inlined(&all, "records")[0], *r2);
}

#[test]
fn remember_anonymous_note_twice_appends() {
    let mut c = Client::memory(Era::V2026_07_28);
    for _ in 0..2 {
        let out = c.ok(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": ["face:1"], "note": "tight callout"}),
        );
        assert_eq!(out["replaced"], false);
        assert_eq!(out["record"]["kind"], "note");
        assert!(out["record"].get("name").is_none());
    }
    let all = c.ok("recall", json!({"artifact": art(REV_A), "kind": "note"}));
    assert_eq!(names(&all["records"]), ["tight callout", "tight callout"]);
    assert_ne!(all["records"][0]["id"], all["records"][1]["id"]);
}

/// Regression: a record without a uri was said to be saved "on sha256:0123… of
/// sha256:0123…(all 64 digits)", its revision given a second time, whole, where the line names
/// a file. The line now names a file only when the record has one.
#[test]
fn remember_without_a_uri_names_its_revision_once() {
    let mut c = Client::memory(Era::V2026_07_28);
    let text = |v: &Value| {
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let bare = text(&c.call(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": ["face:1"], "name": "bore"}),
    ));
    assert!(
        bare.ends_with(&format!(" on {}…, 1 entity.", &REV_A[..15])),
        "{bare}"
    );
    assert_eq!(bare.matches(&REV_A[7..15]).count(), 1, "{bare}");
    let filed = text(&c.call(
        "remember",
        json!({"artifact": art_uri(REV_A, "/w/a.step"), "entity_ids": [], "note": "n"}),
    ));
    assert!(
        filed.ends_with(&format!(
            " on {}… of file:///w/a.step, 0 entities.",
            &REV_A[..15]
        )),
        "{filed}"
    );
}

#[test]
fn remember_timestamps_are_rfc3339_utc_millis() {
    let mut c = Client::memory(Era::V2025_11_25);
    let out = c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": [], "note": "n"}),
    );
    let ts = out["record"]["created_at"].as_str().expect("created_at");
    assert_eq!(ts.len(), 24, "{ts}");
    assert!(
        ts.ends_with('Z') && &ts[10..11] == "T" && &ts[19..20] == ".",
        "{ts}"
    );
}

#[test]
fn recall_entity_face3_never_matches_face30() {
    let mut c = Client::memory(Era::V2025_11_25);
    c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": ["face:30"], "name": "thirty"}),
    );
    c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": ["face:3", "edge:1"], "name": "three"}),
    );
    let hit = c.ok(
        "recall",
        json!({"artifact": art(REV_A), "entity_id": "face:3"}),
    );
    assert_eq!(names(&hit["records"]), ["three"]);
    let hit = c.ok(
        "recall",
        json!({"artifact": art(REV_A), "entity_id": "face:30"}),
    );
    assert_eq!(names(&hit["records"]), ["thirty"]);
    let text = c.ok(
        "recall",
        json!({"artifact": art(REV_A), "entity_id": "face:3", "text": "thr"}),
    );
    assert_eq!(names(&text["records"]), ["three"]);
    let text = c.ok(
        "recall",
        json!({"artifact": art(REV_A), "entity_id": "face:3", "text": "thirty"}),
    );
    assert_eq!(text["records"], json!([]));
    let none = c.ok(
        "recall",
        json!({"artifact": art(REV_A), "entity_id": "face"}),
    );
    assert_eq!(none["records"], json!([]));
}

#[test]
fn recall_entity_filter_on_another_revision_finds_nothing() {
    let uri = "file:///work/part.step";
    let mut c = Client::memory(Era::V2025_11_25);
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, uri), "entity_ids": ["face:3"], "name": "bore"}),
    );
    let other = c.ok(
        "recall",
        json!({"artifact": art_uri(REV_B, uri), "entity_id": "face:3"}),
    );
    assert_eq!(other["records"], json!([]));
    let same = c.ok(
        "recall",
        json!({"artifact": art_uri(REV_A, uri), "entity_id": "face:3"}),
    );
    assert_eq!(names(&same["records"]), ["bore"]);
    // Without the entity filter, the locator finds it across revisions, marked stale.
    let all = c.ok("recall", json!({"artifact": art_uri(REV_B, uri)}));
    assert_eq!(
        crate::support::inproc::inlined(&all, "records")[0]["stale"],
        true
    );
}

#[test]
fn recall_entity_without_artifact_refused_by_schema() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let msg = c.schema_refused("recall", json!({"entity_id": "face:3"}));
        assert!(msg.contains("artifact"), "{msg}");
    }
}

#[test]
fn recall_text_and_tags_across_revisions_mark_stale() {
    let uri = "file:///work/bracket.step";
    let mut c = Client::memory(Era::V2025_11_25);
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, uri), "entity_ids": ["face:1"],
        "name": "mating face", "tags": ["interface", "critical"]}),
    );
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_B, uri), "entity_ids": ["face:9"],
        "note": "the MATING surface moved", "tags": ["interface"]}),
    );
    c.ok(
        "remember",
        json!({"artifact": art(REV_B), "entity_ids": [], "note": "unrelated",
        "tags": ["critical"]}),
    );

    let text = c.ok(
        "recall",
        json!({"artifact": art_uri(REV_B, uri), "text": "mating"}),
    );
    let recs = crate::support::inproc::inlined(&text, "records");
    assert_eq!(recs.len(), 2);
    // Best match first: the record whose name holds the words.
    assert_eq!(recs[0]["name"], "mating face");
    assert_eq!(recs[0]["stale"], true);
    assert_eq!(recs[1]["stale"], false);

    // An artifact without uri: everything written for that revision, whatever its uri.
    let at_b = c.ok("recall", json!({"artifact": art(REV_B)}));
    assert_eq!(
        names(&at_b["records"]),
        ["unrelated", "the MATING surface moved"]
    );
    let tags = c.ok(
        "recall",
        json!({"artifact": art(REV_B), "tags": ["critical"]}),
    );
    assert_eq!(names(&tags["records"]), ["unrelated"]);
    let tags = c.ok("recall", json!({"tags": ["interface", "critical"]}));
    assert_eq!(names(&tags["records"]), ["mating face"]);
    assert_eq!(tags["records"][0]["stale"], Value::Null);
    let tags = c.ok("recall", json!({"tags": ["interface"]}));
    assert_eq!(tags["records"].as_array().map(Vec::len), Some(2));
    let prefix = c.ok("recall", json!({"text": "surf mat"}));
    assert_eq!(names(&prefix["records"]), ["the MATING surface moved"]);
}

#[test]
fn recall_kind_filter_and_no_filter_newest_first() {
    let mut c = Client::memory(Era::V2025_06_18);
    c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": [], "name": "a"}),
    );
    c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": [], "note": "b"}),
    );
    c.ok(
        "remember",
        json!({"artifact": art(REV_B), "entity_ids": [], "name": "c"}),
    );
    let all = c.ok("recall", json!({}));
    assert_eq!(names(&all["records"]), ["c", "b", "a"]);
    let features = c.ok("recall", json!({"kind": "feature"}));
    assert_eq!(names(&features["records"]), ["c", "a"]);
    // Replacing keeps a feature's place (the order is creation order), so a recall paging
    // past it serves it exactly once; the answer carries the new content.
    c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": [], "name": "a", "note": "x"}),
    );
    let all = c.ok("recall", json!({}));
    assert_eq!(names(&all["records"]), ["c", "b", "a"]);
    assert_eq!(all["records"][2]["note"], "x");
}

#[test]
fn recall_text_of_quotes_and_operators_answers_without_error() {
    let mut c = Client::memory(Era::V2025_11_25);
    c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": [], "name": "bore AND shaft",
        "note": "NEAR the \"edge\" - x:y ^z"}),
    );
    for q in [
        "\"",
        "\"\"",
        "*",
        "AND",
        "NEAR(",
        "-",
        ":",
        "^",
        "bore\"",
        "\"bore",
        "bore*",
        "bore AND",
        "NEAR(bore shaft)",
        "-bore",
        "name:bore",
        "^bore",
        "(",
        ")",
        "OR NOT",
        "{name}: x",
        "bore\" OR \"x",
        "",
        // Letters Rust calls alphanumeric that the FTS5 tokenizer treats as separators,
        // direction marks and NUL.
        "\u{093E}",
        "a\u{093E}b",
        "\u{0301}",
        "\u{200F}bore\u{200E}",
        "bore\u{0000}x",
    ] {
        let out = c.ok("recall", json!({"text": q}));
        assert!(out["records"].is_array(), "{q}");
        let out = c.ok("recall_decisions", json!({"text": q}));
        assert!(out["decisions"].is_array(), "{q}");
    }
    let hit = c.ok("recall", json!({"text": "\"bore\" AND -shaft*"}));
    assert_eq!(hit["records"].as_array().map(Vec::len), Some(1));
    let words_only_in_operators = c.ok("recall", json!({"text": "\" * ( ) : ^ -"}));
    assert_eq!(words_only_in_operators["records"], json!([]));
    assert!(words_only_in_operators.get("next_cursor").is_none());
}

#[test]
fn remember_path_and_file_uri_address_the_same_records() {
    let mut c = Client::memory(Era::V2025_11_25);
    let out = c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, "/work/part.step"),
        "entity_ids": [], "name": "datum A"}),
    );
    assert_eq!(out["record"]["artifact"]["uri"], "file:///work/part.step");
    let again = c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, "file:///work/./x/../part.step"),
        "entity_ids": [], "name": "datum A"}),
    );
    assert_eq!(again["replaced"], true);
    let found = c.ok(
        "recall",
        json!({"artifact": art_uri(REV_B, "file:///work/part.step")}),
    );
    assert_eq!(names(&found["records"]), ["datum A"]);
    let deleted = c.ok(
        "forget",
        json!({"artifact": art_uri(REV_A, "/work/part.step"), "name": "datum A"}),
    );
    assert_eq!(deleted["deleted"], 1);
}

#[test]
fn remember_relative_path_resolves_against_working_directory() {
    let cwd = std::env::current_dir().expect("cwd");
    let expected = url::Url::from_file_path(cwd.join("parts/part.step"))
        .expect("file url")
        .to_string();
    let mut c = Client::memory(Era::V2025_11_25);
    let out = c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, "parts/./sub/../part.step"),
        "entity_ids": [], "name": "n"}),
    );
    assert_eq!(out["record"]["artifact"]["uri"], expected.as_str());
    let found = c.ok("recall", json!({"artifact": art_uri(REV_A, &expected)}));
    assert_eq!(names(&found["records"]), ["n"]);
}

#[test]
fn remember_uri_with_scheme_stored_normalised_and_units_kept() {
    let mut c = Client::memory(Era::V2026_07_28);
    let a = json!({"revision": REV_A, "format": "step", "uri": "PLM:Part/42", "units": "mm"});
    let out = c.ok(
        "remember",
        json!({"artifact": a, "entity_ids": [], "note": "n"}),
    );
    assert_eq!(out["record"]["artifact"]["uri"], "plm:Part/42");
    assert_eq!(out["record"]["artifact"]["units"], "mm");
}

#[test]
fn remember_malformed_revision_refused_in_every_era() {
    let upper = REV_A.replace('a', "A");
    let short = &REV_A[..REV_A.len() - 1];
    for era in ERAS {
        let mut c = Client::memory(era);
        for bad in [upper.as_str(), short, "sha1:abc", "aaaa"] {
            let msg = c.schema_refused(
                "remember",
                json!({"artifact": art(bad), "entity_ids": [], "name": "x"}),
            );
            // A digest in capitals names the revision to pass (a checksum tool's spelling).
            let says = if bad == upper {
                format!("pass \"{REV_A}\"")
            } else {
                "sha256:[0-9a-f]{64}".to_string()
            };
            assert!(msg.contains(&says), "{era:?} {msg}");
        }
        let none = c.ok("recall", json!({}));
        assert_eq!(none["records"], json!([]));
    }
}

#[test]
fn remember_without_name_or_note_refused() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let msg = c.schema_refused(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": []}),
        );
        assert!(msg.contains("anyOf") || msg.contains("name"), "{msg}");
        let msg = c.schema_refused(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": [], "name": "x", "colour": "red"}),
        );
        assert!(msg.contains("colour"), "{msg}");
    }
}

#[test]
fn remember_limits_are_named_in_the_refusal() {
    let long = |n: usize| "x".repeat(n);
    for era in ERAS {
        let mut c = Client::memory(era);
        let cases = [
            (
                json!({"artifact": art(REV_A), "entity_ids": [], "name": long(201)}),
                "200",
            ),
            (
                json!({"artifact": art(REV_A), "entity_ids": [], "note": long(65_537)}),
                "65536",
            ),
            (
                json!({"artifact": art(REV_A), "entity_ids": [], "note": "n",
                       "tags": (0..65).map(|i| format!("t{i}")).collect::<Vec<_>>()}),
                "64",
            ),
            (
                json!({"artifact": art(REV_A), "entity_ids": [], "note": "n", "tags": [long(65)]}),
                "64",
            ),
            (
                json!({"artifact": art(REV_A), "note": "n",
                       "entity_ids": (0..10_001).map(|i| format!("f:{i}")).collect::<Vec<_>>()}),
                "10000",
            ),
            (
                json!({"artifact": art(REV_A), "entity_ids": [long(257)], "note": "n"}),
                "256",
            ),
        ];
        for (args, limit) in cases {
            let msg = c.schema_refused("remember", args);
            assert!(msg.contains(limit), "{era:?}: {msg}");
        }
        let msg = c.schema_refused("recall", json!({"text": long(1001)}));
        assert!(msg.contains("1000"), "{msg}");
        let msg = c.schema_refused("recall", json!({"limit": 201}));
        assert!(msg.contains("200"), "{msg}");
        let basis: Vec<Value> = (0..1001)
            .map(|_| json!({"requirement": "r", "source": "drawing", "state": "satisfied"}))
            .collect();
        let msg = c.schema_refused(
            "remember_decision",
            json!({"artifact": art(REV_A), "subject": "s", "disposition": "hold", "basis": basis}),
        );
        assert!(msg.contains("1000"), "{msg}");
        assert_eq!(c.ok("recall", json!({}))["records"], json!([]));
    }
}

fn item(state: &str) -> Value {
    json!({"requirement": "Bore 12H7", "source": "drawing", "sourceDetail": "note 4",
           "evidence": "12.018 per CMM report 7", "state": state, "faces": ["face:3"]})
}

#[test]
fn remember_decision_same_revision_replaces_other_revision_kept() {
    let uri = "/work/bracket.step";
    let mut c = Client::memory(Era::V2025_11_25);
    let first = c.ok(
        "remember_decision",
        json!({"artifact": art_uri(REV_A, uri),
        "subject": "bore tolerance", "disposition": "hold", "summary": "wait for CMM",
        "basis": [item("satisfied")]}),
    );
    assert_eq!(first["replaced"], false);
    assert_eq!(first["decision"]["stale"], false);
    assert_eq!(first["decision"]["basis"][0]["sourceDetail"], "note 4");
    let second = c.ok(
        "remember_decision",
        json!({"artifact": art_uri(REV_A, uri),
        "subject": "bore tolerance", "disposition": "release", "basis": []}),
    );
    assert_eq!(second["replaced"], true);
    assert_eq!(second["decision"]["id"], first["decision"]["id"]);
    assert_eq!(
        second["decision"]["created_at"],
        first["decision"]["created_at"]
    );
    assert!(second["decision"].get("summary").is_none());
    let other = c.ok(
        "remember_decision",
        json!({"artifact": art_uri(REV_B, uri),
        "subject": "bore tolerance", "disposition": "hold", "basis": [item("violated")]}),
    );
    assert_eq!(other["replaced"], false);
    assert_ne!(other["decision"]["id"], first["decision"]["id"]);

    let all = c.ok(
        "recall_decisions",
        json!({"artifact": art_uri(REV_B, uri), "current_only": false, "detail": "full"}),
    );
    let ds = crate::support::inproc::inlined(&all, "decisions");
    assert_eq!(ds.len(), 2);
    assert_eq!(ds[0]["disposition"], "hold");
    assert_eq!(ds[0]["stale"], false);
    assert_eq!(ds[1]["disposition"], "release");
    assert_eq!(ds[1]["stale"], true);
    assert_eq!(ds[1]["artifact"]["revision"], REV_A);
}

#[test]
fn remember_decision_basis_without_source_refused_nothing_written() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let no_source = json!({"requirement": "r", "state": "satisfied"});
        let msg = c.schema_refused(
            "remember_decision",
            json!({"artifact": art(REV_A),
            "subject": "s", "disposition": "hold", "basis": [item("satisfied"), no_source]}),
        );
        assert!(msg.contains("source"), "{msg}");
        let unresolved = item("unresolved");
        let msg = c.schema_refused(
            "remember_decision",
            json!({"artifact": art(REV_A),
            "subject": "s", "disposition": "hold", "basis": [unresolved]}),
        );
        assert!(msg.contains("question"), "{msg}");
        let mut empty_q = item("conflicting");
        empty_q["question"] = json!("");
        let msg = c.schema_refused(
            "remember_decision",
            json!({"artifact": art(REV_A),
            "subject": "s", "disposition": "hold", "basis": [empty_q]}),
        );
        assert!(msg.contains("question"), "{msg}");
        let mut blank_q = item("conflicting");
        blank_q["question"] = json!("   ");
        let msg = c.refused(
            "remember_decision",
            json!({"artifact": art(REV_A),
            "subject": "s", "disposition": "hold", "basis": [blank_q]}),
        );
        assert!(msg.contains("question"), "{msg}");
        let none = c.ok("recall_decisions", json!({}));
        assert_eq!(none["decisions"], json!([]), "{era:?}");
    }
}

#[test]
fn remember_decision_unresolved_with_question_and_empty_basis_accepted() {
    let mut c = Client::memory(Era::V2025_06_18);
    let mut open = item("unresolved");
    open["question"] = json!("Which reamer?");
    open["verdict"] = json!({"judgement": "rejected", "reason": "not measured"});
    let mut part = item("not-applicable");
    part.as_object_mut().map(|m| m.remove("faces"));
    let out = c.ok(
        "remember_decision",
        json!({"artifact": art(REV_A), "subject": "s",
        "disposition": "hold", "basis": [open, part]}),
    );
    assert_eq!(
        out["decision"]["basis"][0]["verdict"]["judgement"],
        "rejected"
    );
    assert_eq!(out["decision"]["basis"][1]["faces"], json!([]));
    let empty = c.ok(
        "remember_decision",
        json!({"artifact": art(REV_A), "subject": "t",
        "disposition": "release", "basis": []}),
    );
    assert_eq!(empty["decision"]["basis"], json!([]));
}

#[test]
fn recall_decisions_filters_by_state_entity_subject_and_text() {
    let mut c = Client::memory(Era::V2026_07_28);
    let mut open = item("unresolved");
    open["question"] = json!("Which reamer?");
    c.ok(
        "remember_decision",
        json!({"artifact": art(REV_A), "subject": "bore tolerance",
        "disposition": "hold", "basis": [open]}),
    );
    let mut other = item("satisfied");
    other["faces"] = json!(["face:30"]);
    other["requirement"] = json!("Flatness 0.05");
    c.ok(
        "remember_decision",
        json!({"artifact": art(REV_A), "subject": "flatness",
        "disposition": "release", "summary": "bore is fine too", "basis": [other]}),
    );
    c.ok(
        "remember_decision",
        json!({"artifact": art(REV_B), "subject": "bore tolerance",
        "disposition": "release", "basis": [item("satisfied")]}),
    );

    let subjects = |v: &Value| -> Vec<String> {
        crate::support::inproc::inlined(v, "decisions")
            .iter()
            .map(|d| {
                format!(
                    "{}@{}",
                    d["subject"].as_str().unwrap_or(""),
                    &d["artifact"]["revision"].as_str().unwrap_or("")[7..8]
                )
            })
            .collect()
    };
    let open = c.ok("recall_decisions", json!({"state": "unresolved"}));
    assert_eq!(subjects(&open), ["bore tolerance@a"]);
    assert_eq!(
        crate::support::inproc::inlined(&open, "decisions")[0]["stale"],
        Value::Null
    );
    let face = c.ok(
        "recall_decisions",
        json!({"artifact": art(REV_A), "entity_id": "face:3"}),
    );
    assert_eq!(subjects(&face), ["bore tolerance@a"]);
    let face_b = c.ok(
        "recall_decisions",
        json!({"artifact": art(REV_B), "entity_id": "face:30"}),
    );
    assert_eq!(face_b["decisions"], json!([]));
    let subj = c.ok(
        "recall_decisions",
        json!({"subject": "bore tolerance", "current_only": false}),
    );
    assert_eq!(subjects(&subj), ["bore tolerance@b", "bore tolerance@a"]);
    // Subject matches rank before matches in the summary.
    let text = c.ok("recall_decisions", json!({"text": "bore"}));
    assert_eq!(
        subjects(&text),
        ["bore tolerance@b", "bore tolerance@a", "flatness@a"]
    );
    // Evidence is searchable: every basis here quotes the CMM report.
    let text = c.ok("recall_decisions", json!({"text": "CMM 7"}));
    assert_eq!(text["decisions"].as_array().map(Vec::len), Some(3));
    let text = c.ok(
        "recall_decisions",
        json!({"text": "flatness", "state": "satisfied",
        "artifact": art(REV_A)}),
    );
    assert_eq!(subjects(&text), ["flatness@a"]);
    assert_eq!(
        crate::support::inproc::inlined(&text, "decisions")[0]["stale"],
        false
    );
}

#[test]
fn forget_each_kind_is_idempotent() {
    let uri = "/work/p.step";
    let mut c = Client::memory(Era::V2025_11_25);
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, uri), "entity_ids": ["face:3"], "name": "n"}),
    );
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, uri), "entity_ids": ["face:3", "face:4"], "note": "a"}),
    );
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, uri), "entity_ids": ["face:3"], "note": "b"}),
    );
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_B, uri), "entity_ids": ["face:3"], "note": "other rev"}),
    );
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, uri), "entity_ids": ["face:30"], "note": "thirty"}),
    );
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(REV_A, uri), "subject": "s",
        "disposition": "hold", "basis": []}),
    );
    for (args, first) in [
        (json!({"artifact": art_uri(REV_A, uri), "name": "n"}), 1),
        (
            json!({"artifact": art_uri(REV_A, uri), "entity_id": "face:3"}),
            2,
        ),
        (json!({"artifact": art_uri(REV_A, uri), "subject": "s"}), 1),
    ] {
        assert_eq!(c.ok("forget", args.clone())["deleted"], first, "{args}");
        assert_eq!(c.ok("forget", args.clone())["deleted"], 0, "{args}");
    }
    let left = c.ok("recall", json!({}));
    assert_eq!(names(&left["records"]), ["thirty", "other rev"]);
    assert_eq!(c.ok("recall_decisions", json!({}))["decisions"], json!([]));
    // The name is keyed by locator: without a uri only uri-less features are reached.
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, uri), "entity_ids": [], "name": "k"}),
    );
    assert_eq!(
        c.ok("forget", json!({"artifact": art(REV_A), "name": "k"}))["deleted"],
        0
    );
}

#[test]
fn forget_needs_exactly_one_target() {
    for era in ERAS {
        let mut c = Client::memory(era);
        c.schema_refused("forget", json!({"artifact": art(REV_A)}));
        c.schema_refused(
            "forget",
            json!({"artifact": art(REV_A), "name": "a", "subject": "b"}),
        );
    }
}

#[test]
fn recall_cursor_tampered_or_for_other_filters_refused() {
    let mut c = Client::memory(Era::V2025_11_25);
    for i in 0..5 {
        c.ok(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": [], "name": format!("n{i}"),
            "tags": ["t"]}),
        );
    }
    let page = c.ok("recall", json!({"tags": ["t"], "limit": 2}));
    let cursor = page["next_cursor"].as_str().expect("cursor").to_string();
    let mut bad = cursor.clone();
    bad.pop();
    for (args, why) in [
        (json!({"tags": ["t"], "cursor": bad}), "truncated"),
        (
            json!({"tags": ["t"], "cursor": cursor.replace("c2.", "c3.")}),
            "edited",
        ),
        (json!({"tags": ["u"], "cursor": cursor}), "other filters"),
        (json!({"text": "n0", "cursor": cursor}), "other filters"),
    ] {
        let msg = c.refused("recall", args);
        assert!(
            msg.contains("Invalid cursor") && msg.contains("without cursor"),
            "{why}: {msg}"
        );
    }
    let msg = c.refused("recall_decisions", json!({"cursor": cursor}));
    assert!(msg.contains("Invalid cursor"), "{msg}");
    // The same filters with another page size are the same query.
    let next = c.ok(
        "recall",
        json!({"tags": ["t"], "cursor": cursor, "limit": 10}),
    );
    assert_eq!(next["records"].as_array().map(Vec::len), Some(3));
    assert!(next.get("next_cursor").is_none());
}

#[test]
fn remember_named_feature_at_new_revision_replaces_and_moves_it() {
    let uri = "/work/part.step";
    let mut c = Client::memory(Era::V2025_11_25);
    c.ok(
        "remember",
        json!({"artifact": art_uri(REV_A, uri), "entity_ids": ["face:3"],
        "name": "bore", "tags": ["a"]}),
    );
    let moved = c.ok(
        "remember",
        json!({"artifact": art_uri(REV_B, uri), "entity_ids": ["face:7"],
        "name": "bore"}),
    );
    assert_eq!(moved["replaced"], true);
    assert_eq!(moved["record"]["artifact"]["revision"], REV_B);
    // The entity filter follows the record to its new revision.
    let old = c.ok(
        "recall",
        json!({"artifact": art_uri(REV_A, uri), "entity_id": "face:3"}),
    );
    assert_eq!(old["records"], json!([]));
    let new = c.ok(
        "recall",
        json!({"artifact": art_uri(REV_B, uri), "entity_id": "face:7"}),
    );
    assert_eq!(names(&new["records"]), ["bore"]);
    assert_eq!(c.ok("recall", json!({"tags": ["a"]}))["records"], json!([]));
}

/// Regression: a blank subject, disposition or requirement, or a blank feature name, was
/// stored, and the card then asked the engineer to accept or reject an empty line. The tools
/// now refuse them by name (an empty requirement passed the schema too), and nothing is
/// written; an import keeps what an older database stored (`cli::import_keeps_blank_words`).
#[test]
fn blank_words_a_reader_relies_on_refused_by_name_nothing_written() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let cases = [
            (
                "subject",
                json!({"subject": " \t", "disposition": "hold", "basis": [item("satisfied")]}),
            ),
            (
                "disposition",
                json!({"subject": "s", "disposition": "\n", "basis": [item("satisfied")]}),
            ),
            ("basis[1] has a blank \"requirement\"", {
                let mut blank = item("satisfied");
                blank["requirement"] = json!("");
                json!({"subject": "s", "disposition": "hold", "basis": [item("satisfied"), blank]})
            }),
        ];
        for (field, mut args) in cases {
            args["artifact"] = art(REV_A);
            let msg = c.refused("remember_decision", args);
            assert!(msg.contains(field), "{era:?} {field}: {msg}");
        }
        let msg = c.refused(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": [], "name": "  ", "note": "n"}),
        );
        assert!(msg.contains("\"name\" is blank"), "{era:?}: {msg}");
        assert_eq!(c.ok("recall_decisions", json!({}))["decisions"], json!([]));
        assert_eq!(c.ok("recall", json!({}))["records"], json!([]));
    }
}

/// A feature name, subject, disposition or requirement made only of characters drawn as
/// nothing (a zero width space, a word joiner, a joiner, a byte order mark, a right-to-left
/// mark), with white space or not, passed the blank check (`trim` keeps them) and was stored:
/// a feature no one can see the name of, an item the engineer is asked to accept that shows
/// an empty line. They are refused as blank, by name, and nothing is written.
#[test]
fn words_of_invisible_characters_only_are_blank() {
    for era in ERAS {
        let mut c = Client::memory(era);
        for blank in ["\u{200b}", " \u{2060}\u{feff} ", "\u{200d}", "\u{200f}\t"] {
            let msg = c.refused(
                "remember",
                json!({"artifact": art(REV_A), "entity_ids": [], "name": blank, "note": "n"}),
            );
            assert!(
                msg.contains("\"name\" is blank"),
                "{era:?} {blank:?}: {msg}"
            );
            let mut empty = item("satisfied");
            empty["requirement"] = json!(blank);
            for (field, args) in [
                (
                    "\"subject\" is blank",
                    json!({"subject": blank, "disposition": "hold", "basis": [item("satisfied")]}),
                ),
                (
                    "\"disposition\" is blank",
                    json!({"subject": "s", "disposition": blank, "basis": [item("satisfied")]}),
                ),
                (
                    "basis[0] has a blank \"requirement\"",
                    json!({"subject": "s", "disposition": "hold", "basis": [empty]}),
                ),
            ] {
                let mut args = args;
                args["artifact"] = art(REV_A);
                let msg = c.refused("remember_decision", args);
                assert!(msg.contains(field), "{era:?} {blank:?} {field}: {msg}");
            }
        }
        assert_eq!(c.ok("recall_decisions", json!({}))["decisions"], json!([]));
        assert_eq!(c.ok("recall", json!({}))["records"], json!([]));
        // A name with a visible character and a joiner (an emoji sequence) is not blank.
        c.ok(
            "remember",
            json!({"artifact": art(REV_A), "entity_ids": [], "name": "\u{1f468}\u{200d}\u{1f527}"}),
        );
    }
}

#[test]
fn remember_unusual_characters_round_trip() {
    let mut c = Client::memory(Era::V2026_07_28);
    let name = "bore\u{0000}\u{200F}\u{202E}'; DROP TABLE records; --";
    let note = "NEAR(\"x\" y) ^z \u{1F529} ∅12 H7";
    let out = c.ok(
        "remember",
        json!({"artifact": art(REV_A), "entity_ids": ["face:1"],
        "name": name, "note": note, "tags": ["ü", "\u{0000}"]}),
    );
    assert_eq!(out["record"]["name"], name);
    let back = c.ok(
        "recall",
        json!({"artifact": art(REV_A), "entity_id": "face:1"}),
    );
    assert_eq!(back["records"][0]["name"], name);
    assert_eq!(back["records"][0]["note"], note);
    assert_eq!(back["records"][0]["tags"], json!(["ü", "\u{0000}"]));
    let found = c.ok("recall", json!({"text": "drop table", "tags": ["ü"]}));
    assert_eq!(found["records"].as_array().map(Vec::len), Some(1));
}
