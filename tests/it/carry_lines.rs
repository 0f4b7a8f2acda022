//! The ids a carry names on an item, as lines and folder files bring them in (`import`,
//! `sync`, `merge-file`) and as the carry writes them: `notCarried` only beside the engineer's
//! verdict, an earlier release's marker kept as written, and an id that could not be mapped
//! never also named changed.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;

use serde_json::{Value, json};

use crate::carry_lost::by_form;
use crate::support::TempDir;
use crate::support::file_events::{run_cli as cli, succeeded as ok};
use crate::support::inproc::{Client, Era, art_uri, rev};
use review_mcp::store::Store;

const FILE: &str = "/work/bracket.step";

/// A change made to a line's or a folder file's basis item 0.
type Edit = fn(&mut Value);

fn at(n: usize) -> Value {
    art_uri(&rev(n), FILE)
}

/// Revision 1's "holes" decision (item 1 about face:10 and face:11, item 2 about face:2),
/// carried to revision 2 with only face:2 in the map and `changed`; `judged`: the engineer
/// then accepts item 1 through the host's form (it keeps the ids it lost as notCarried).
fn holes_carried(db: &Path, changed: &[&str], judged: bool) {
    let mut c = Client::new(Store::open(db).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": at(1), "subject": "holes", "disposition": "hold", "basis": [
            {"requirement": "Two holes", "source": "drawing", "evidence": "measured 40.02",
             "state": "satisfied", "faces": ["face:10", "face:11"]},
            {"requirement": "Base plate", "source": "drawing", "state": "satisfied",
             "faces": ["face:2"]}]}),
    );
    c.ok(
        "carry_forward",
        json!({"from": at(1), "to": at(2), "map": [{"from": "face:2", "to": "face:2"}],
               "changed": changed}),
    );
    if judged {
        by_form(&mut c, 2, 0);
    }
}

fn export(db: &Path) -> String {
    ok(cli(db, &["export"]).unwrap()).unwrap()
}

/// The export `text` with the line of revision 2's decision changed by `edit`.
fn edited(text: &str, edit: impl Fn(&mut Value)) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v["decision"]["artifact"]["revision"] == json!(rev(2)) {
            edit(&mut v["decision"]["basis"][0]);
            out.push_str(&v.to_string());
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    assert_ne!(out, text, "no line of revision 2's decision");
    out
}

/// The folder file of revision 2's decision after a sync of `db` into `folder`.
fn decision_file(folder: &Path) -> std::path::PathBuf {
    for e in std::fs::read_dir(folder.join("decisions")).unwrap() {
        let p = e.unwrap().path();
        let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        if v["decision"]["artifact"]["revision"] == json!(rev(2)) {
            return p;
        }
    }
    panic!("no file of revision 2's decision in {}", folder.display())
}

/// Rewrites the folder file `p` with `edit` applied to its basis item 0, as sync writes it.
fn edit_file(p: &Path, edit: impl Fn(&mut Value)) {
    let mut v: Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
    edit(&mut v["decision"]["basis"][0]);
    std::fs::write(p, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
}

/// notCarried is kept only beside the engineer's verdict (the verdict that made the item its
/// revision's): a line or folder file whose item has it without one (no verdict, or the
/// assistant's) is refused by import, sync and merge-file alike, saying how to mend it. Each
/// took it, and the item then read as judged-and-lost with nothing judged.
#[test]
fn not_carried_without_the_engineers_verdict_is_refused_on_every_path() {
    let dir = TempDir::new("nc-no-verdict").unwrap();
    let a = dir.join("a.db");
    holes_carried(&a, &[], true);
    let good = export(&a);
    let edits: [(&str, Edit); 2] = [
        ("none", |i| {
            i.as_object_mut().unwrap().remove("verdict");
        }),
        ("the assistant's", |i| {
            i["verdict"]["via"] = json!("assistant");
        }),
    ];
    let mended = "remove notCarried";
    for (what, edit) in edits {
        let file = dir.join("bad.jsonl");
        std::fs::write(&file, edited(&good, edit)).unwrap();
        let b = dir.join(&format!("import-{}.db", what.len()));
        let out = cli(&b, &["import", &file.to_string_lossy()]).unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!out.status.success(), "import took verdict {what}: {err}");
        assert!(
            err.contains("has notCarried but no verdict of the engineer") && err.contains(mended),
            "{what}: {err}"
        );
        // A folder whose file was edited so: a database syncing it is refused.
        let folder = dir.join(&format!("review-{}", what.len()));
        ok(cli(&a, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
        let p = decision_file(&folder);
        let text = std::fs::read(&p).unwrap();
        edit_file(&p, edit);
        let c = dir.join(&format!("sync-{}.db", what.len()));
        let out = cli(&c, &["sync", &folder.to_string_lossy()]).unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!out.status.success(), "sync took verdict {what}: {err}");
        assert!(
            err.contains("notCarried") && err.contains(mended),
            "{what}: {err}"
        );
        // git's merge driver: OURS left as it was, to git.
        let (base, ours, theirs) = (dir.join("base"), dir.join("ours"), dir.join("theirs"));
        std::fs::write(&base, &text).unwrap();
        std::fs::write(&ours, &text).unwrap();
        std::fs::copy(&p, &theirs).unwrap();
        let out = cli(
            &a,
            &[
                "merge-file",
                &base.to_string_lossy(),
                &ours.to_string_lossy(),
                &theirs.to_string_lossy(),
            ],
        )
        .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            !out.status.success(),
            "merge-file took verdict {what}: {err}"
        );
        assert!(err.contains("notCarried"), "{what}: {err}");
        assert_eq!(std::fs::read(&ours).unwrap(), text, "{what}");
    }
}

/// Each list of ids a carry names is a set, as `faces` is: `notCarried.ids`,
/// An export written by the build before this one (026b167): revision a's "holes" decision
/// carried to b with face:2 mapped and face:10 reported changed but left out of the map, so
/// its marker names face:10 both `changed` and `unmapped`, as that build wrote every such
/// carry; its events' `after` digests that marker.
const EARLIER_EXPORT: &str = include_str!("../fixtures/export_0_1_changed_and_unmapped.jsonl");

/// A marker an earlier release wrote naming an id both changed and unmapped is kept as
/// written, by import as by sync (its events digest that state: export -> import -> export
/// stays byte for byte, and nothing is recorded as arriving), and every reader names the id
/// once, as not carried. Taking it "once each" on the way in rewrote it: the import then
/// recorded the decision as arriving changed, its export differed from the file, and a
/// clone's sync rewrote the teammate's file and added an event.
#[test]
fn an_earlier_releases_marker_naming_an_id_twice_is_kept_and_read_once() {
    let dir = TempDir::new("nc-earlier").unwrap();
    let file = dir.join("earlier.jsonl");
    std::fs::write(&file, EARLIER_EXPORT).unwrap();
    let a = dir.join("a.db");
    ok(cli(&a, &["import", &file.to_string_lossy()]).unwrap()).unwrap();
    assert_eq!(export(&a), EARLIER_EXPORT, "import");
    // A clone syncing the folder another clone wrote takes it as it is.
    let folder = dir.join("review");
    ok(cli(&a, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
    let carried = folder.join("decisions/dec_43694ef7455d8586.json");
    let written = std::fs::read(&carried).unwrap();
    let b = dir.join("b.db");
    ok(cli(&b, &["sync", &folder.to_string_lossy()]).unwrap()).unwrap();
    assert_eq!(std::fs::read(&carried).unwrap(), written);
    assert_eq!(export(&b), EARLIER_EXPORT, "sync");
    // Read once, as not carried.
    let b_rev = format!("sha256:{}", "b".repeat(64));
    let mut c = Client::new(Store::open(&b).unwrap(), Era::V2026_07_28);
    let report = c.read_text(&format!("review://revisions/{b_rev}/report"));
    assert!(
        report.contains("not carried (unmapped) there: face:10"),
        "{report}"
    );
    assert!(!report.contains("changed there: face:10"), "{report}");
    let csv = c.read_text(&format!("review://revisions/{b_rev}/form3.csv"));
    assert!(csv.contains("not carried: face:10"), "{csv}");
    assert!(!csv.contains("changed: face:10"), "{csv}");
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
    assert!(
        report.contains("not carried (unmapped) there: face:10"),
        "{report}"
    );
    assert!(!report.contains("changed there: face:10"), "{report}");
    let csv = c.read_text(&format!("review://revisions/{}/form3.csv", rev(2)));
    assert!(csv.contains("face:10"), "{csv}");
    assert!(!csv.contains("face:10 changed"), "{csv}");
}

/// Every basis item schema under `schema` (the `items` of a `basis` property), with where.
fn basis_item_schemas<'a>(schema: &'a Value, at: String, out: &mut Vec<(String, &'a Value)>) {
    match schema {
        Value::Object(m) => {
            if let Some(items) = m
                .get("properties")
                .and_then(|p| p.get("basis"))
                .and_then(|b| b.get("items"))
            {
                out.push((at.clone(), items));
            }
            for (k, v) in m {
                basis_item_schemas(v, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                basis_item_schemas(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Every basis item of an answer (the elements of a `basis` array).
fn basis_items<'a>(answer: &'a Value, out: &mut Vec<&'a Value>) {
    match answer {
        Value::Object(m) => {
            if let Some(Value::Array(items)) = m.get("basis") {
                out.extend(items.iter());
            }
            m.values().for_each(|v| basis_items(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| basis_items(v, out)),
        _ => {}
    }
}

/// The tools' `outputSchema` describe a basis item's `carried` marker and `notCarried` as
/// answers give them: every tool that answers with basis items names both, with their
/// fields, and every key of a carried or judged item in `recall_decisions`, `show_review`
/// and `request_verdicts` answers is one its tool's schema names. They named neither, though
/// answers carried them.
#[test]
fn the_output_schemas_describe_carried_and_not_carried_basis_items() {
    let dir = TempDir::new("nc-output-schema").unwrap();
    let db = dir.join("a.db");
    holes_carried(&db, &[], true);
    let mut c = Client::declaring(
        Store::open(&db).unwrap(),
        Era::V2026_07_28,
        crate::support::inproc::ui_caps(),
    );
    let listed = c.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap().clone();
    let schema_of = |name: &str| -> Value {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no tool {name}"))["outputSchema"]
            .clone()
    };
    let props = |item: &Value| -> Vec<String> {
        item["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    };
    for name in [
        "show_review",
        "recall_decisions",
        "remember_decision",
        "request_verdicts",
        "record_verdict",
    ] {
        let schema = schema_of(name);
        let mut found = Vec::new();
        basis_item_schemas(&schema, String::new(), &mut found);
        assert!(!found.is_empty(), "{name}: no basis item schema");
        for (at, item) in found {
            let p = &item["properties"];
            assert_eq!(
                p["carried"]["required"],
                json!(["from", "state"]),
                "{name} {at}: {item}"
            );
            let mut fields = props(&p["carried"]);
            fields.sort();
            assert_eq!(
                fields,
                ["changed", "from", "ids_of", "state", "unmapped", "verdict"],
                "{name} {at}"
            );
            assert_eq!(
                p["notCarried"]["required"],
                json!(["ids", "of"]),
                "{name} {at}: {item}"
            );
        }
    }
    // Answers holding a carried item (item 2) and a judged one that lost its ids (item 1).
    let answers = [
        (
            "recall_decisions",
            c.ok(
                "recall_decisions",
                json!({"artifact": at(2), "subject": "holes", "detail": "full"}),
            ),
        ),
        (
            "show_review",
            c.ok("show_review", json!({"artifact": at(2), "detail": "full"})),
        ),
    ];
    let asked = crate::carry_lost::form_asked(&mut c, 2, 1);
    let done = crate::carry_lost::form_answered(&mut c, asked, 1, "rejected");
    let answers = answers.into_iter().chain([(
        "request_verdicts",
        done["result"]["structuredContent"].clone(),
    )]);
    let mut seen = [false, false];
    for (name, answer) in answers {
        let mut found = Vec::new();
        let schema = schema_of(name);
        basis_item_schemas(&schema, String::new(), &mut found);
        let mut items = Vec::new();
        basis_items(&answer, &mut items);
        assert!(!items.is_empty(), "{name}: {answer}");
        for item in items {
            seen[0] |= item.get("carried").is_some();
            seen[1] |= item.get("notCarried").is_some();
            for key in item.as_object().unwrap().keys() {
                for (at, s) in &found {
                    assert!(
                        props(s).contains(key),
                        "{name}: {key} of {item} is not in {at}"
                    );
                }
            }
        }
    }
    assert_eq!(seen, [true, true], "the answers hold both");
}
