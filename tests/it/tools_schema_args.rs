//! Whatever a tool's input schema accepts, the tool accepts: arguments generated from each
//! tool's `inputSchema` as `tools/list` serves it (integral floats for integers, boundary
//! lengths and counts, every enum value, optional members absent and present), and every
//! one the schema validates must not be refused by the Rust side's argument parsing.

// Helpers outside #[test] functions may panic too: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::support::inproc::{Client, Era, REV_A, REV_B};
use serde_json::{Map, Value, json};

/// The refusal the Rust side gives when arguments the schema accepted do not fit the tool's
/// argument type (see `tools::parse`).
const PARSE_REFUSAL: &str = "Invalid arguments for tool";

/// Candidate values for a schema: each one of its kind, covering the boundaries. Objects get
/// their required members plus each optional member in turn, with each candidate of it.
fn candidates(schema: &Value) -> Vec<Value> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.clone();
    }
    let num = |k: &str| schema.get(k).and_then(Value::as_u64);
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => {
            let min = num("minimum").unwrap_or(0);
            let max = num("maximum").unwrap_or(min + 100);
            let mut out = Vec::new();
            for n in [min, max, num("default").unwrap_or(min), (min + max) / 2] {
                out.push(json!(n));
                // An integral float is an integer by JSON Schema: 50.0, and 1e1-style values
                // (serde_json reads `1e1` as the float 10.0).
                out.push(json!(n as f64));
            }
            out
        }
        Some("number") => vec![json!(0), json!(1.5)],
        Some("boolean") => vec![json!(true), json!(false)],
        Some("string") => {
            if schema.get("pattern").and_then(Value::as_str) == Some("^sha256:[0-9a-f]{64}$") {
                return vec![json!(REV_A)];
            }
            let min = num("minLength").unwrap_or(0);
            let max = num("maxLength").unwrap_or(min + 8);
            let mut out: Vec<Value> = [min, min.max(1), max]
                .iter()
                .map(|&n| json!("x".repeat(usize::try_from(n).unwrap())))
                .collect();
            out.push(json!("face 1 \"quoted\" ünïcode"));
            out.dedup();
            out
        }
        Some("array") => {
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            let first = candidates(&items).into_iter().next().unwrap_or(json!("x"));
            let max = num("maxItems").unwrap_or(3).min(1000);
            let mut out = vec![json!([])];
            out.extend(candidates(&items).into_iter().map(|v| json!([v])));
            // At the item limit: distinct items where they are strings (tags, ids).
            out.push(Value::Array(
                (0..max)
                    .map(|i| match &first {
                        Value::String(_) => json!(format!("i{i}")),
                        other => other.clone(),
                    })
                    .collect(),
            ));
            out
        }
        Some("object") | None => object_candidates(schema),
        Some(other) => panic!("schema type {other} has no generator"),
    }
}

fn object_candidates(schema: &Value) -> Vec<Value> {
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut base = Map::new();
    for name in &required {
        if let Some(first) = props
            .get(*name)
            .and_then(|s| candidates(s).into_iter().next())
        {
            base.insert((*name).to_string(), first);
        }
    }
    let mut out = vec![Value::Object(base.clone())];
    for (name, sub) in props {
        for v in candidates(sub) {
            let mut with = base.clone();
            with.insert(name.clone(), v.clone());
            out.push(Value::Object(with.clone()));
            // Combined with each other member present, so members that the schema only
            // accepts together (`anyOf` / `if`-`then`) are tried too.
            for (other, other_sub) in props {
                if other != name
                    && !with.contains_key(other)
                    && let Some(first) = candidates(other_sub).into_iter().next()
                {
                    let mut both = with.clone();
                    both.insert(other.clone(), first);
                    out.push(Value::Object(both));
                }
            }
        }
    }
    out
}

/// Regression (issue 12, item 5): `limit: 50.0` is an integer by the tool's own schema but
/// was refused with "expected u64".
#[test]
fn tools_every_schema_valid_argument_is_accepted_by_the_tool() {
    let mut c = Client::memory(Era::V2025_11_25);
    let listed = c.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    // Every tool a client without the UI extension sees: all but the card's app-only one.
    let plain = review_mcp::tools::catalog()
        .into_iter()
        .filter(|t| t.ui != review_mcp::tools::Ui::AppOnly)
        .count();
    assert_eq!(tools.len(), plain);
    let mut floats_tried = 0;
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let schema = &tool["inputSchema"];
        let validator = jsonschema::validator_for(schema).unwrap();
        let mut accepted = 0;
        for args in candidates(schema) {
            if !validator.is_valid(&args) {
                continue;
            }
            accepted += 1;
            if args.to_string().contains(".0") {
                floats_tried += 1;
            }
            let resp = c.call(name, args.clone());
            assert!(resp.get("error").is_none(), "{name} {args}: {resp}");
            if resp["result"]["isError"] == json!(true) {
                let text = resp["result"]["content"][0]["text"].as_str().unwrap();
                assert!(
                    !text.contains(PARSE_REFUSAL),
                    "{name}: the schema accepted {args} but the tool refused it: {text}"
                );
            }
        }
        // A tool of one argument (`artifact_revision`'s `path`) has few candidates.
        let arguments = schema["properties"].as_object().map_or(0, |p| p.len());
        let needed = if arguments == 1 { 3 } else { 10 };
        assert!(
            accepted >= needed,
            "{name}: only {accepted} schema-valid cases"
        );
    }
    assert!(floats_tried >= 8, "integral floats tried: {floats_tried}");
}

/// The literal forms a client may write for an integer, sent as raw JSON text.
#[test]
fn recall_limit_written_as_float_or_exponent_is_accepted() {
    for era in [Era::V2025_06_18, Era::V2025_11_25, Era::V2026_07_28] {
        let mut c = Client::memory(era);
        for i in 0..12 {
            c.ok(
                "remember",
                json!({"artifact": {"revision": REV_A, "format": "step"}, "entity_ids": [],
                       "note": format!("n{i}")}),
            );
        }
        for (tool, key) in [("recall", "records"), ("recall_decisions", "decisions")] {
            for literal in ["10", "10.0", "1e1", "1E1", "1.0e1", "100e-1"] {
                let args: Value = serde_json::from_str(&format!("{{\"limit\": {literal}}}"))
                    .expect("literal parses");
                let page = c.ok(tool, args);
                let n = page[key].as_array().unwrap().len();
                if tool == "recall" {
                    assert_eq!(n, 10, "{era:?} {literal}");
                    assert!(page.get("next_cursor").is_some());
                }
            }
            let text = c.schema_refused(tool, json!({"limit": 10.5}));
            assert!(text.contains("limit") || text.contains("integer"), "{text}");
        }
    }
}

/// Regression: a call that gives none, or more than one, of a tool's alternative members
/// (`remember`'s `name` / `note`, `forget`'s `name` / `entity_id` / `subject`,
/// `review_history`'s `id` / `artifact`) was refused with jsonschema's "… is not valid under
/// any of the schemas listed in the 'anyOf' keyword", which names no member: the caller
/// could not tell what to send. The refusal names the members and the rule, in every era.
#[test]
fn a_choice_of_members_refused_names_the_members_to_send() {
    let a = json!({"revision": REV_A, "format": "step"});
    let cases = [
        (
            "remember",
            json!({"artifact": a, "entity_ids": []}),
            "give `name`, `note` or both",
        ),
        (
            "forget",
            json!({"artifact": a}),
            "give exactly one of `name`, `entity_id` or `subject` (none was given)",
        ),
        (
            "forget",
            json!({"artifact": a, "name": "n", "subject": "s"}),
            "give exactly one of `name`, `entity_id` or `subject`, not `name` and `subject` together",
        ),
        (
            "review_history",
            json!({}),
            "give exactly one of `id` or `artifact` (none was given)",
        ),
        (
            "review_history",
            json!({"artifact": a, "id": "dec_1"}),
            "give exactly one of `id` or `artifact`, not `id` and `artifact` together",
        ),
    ];
    for era in [Era::V2025_06_18, Era::V2025_11_25, Era::V2026_07_28] {
        let mut c = Client::memory(era);
        for (tool, args, rule) in &cases {
            let text = c.schema_refused(tool, args.clone());
            assert!(text.contains(rule), "{era:?} {tool} {args}: {text}");
            assert!(!text.contains("keyword"), "{era:?} {tool}: {text}");
        }
    }
}

/// A refusal says how to fix the arguments: an enum names every value it allows, not three
/// and a count of the others.
#[test]
fn a_schema_refusal_names_every_allowed_value() {
    let artifact = json!({"revision": REV_A, "format": "step"});
    for era in [Era::V2025_06_18, Era::V2025_11_25, Era::V2026_07_28] {
        let mut c = Client::memory(era);
        let text = c.schema_refused(
            "remember_decision",
            json!({"artifact": artifact, "subject": "s", "disposition": "hold",
                   "basis": [{"requirement": "r", "source": "drawing", "state": "open"}]}),
        );
        let says = r#""open" is not one of "satisfied", "violated", "unresolved", "conflicting" or "not-applicable""#;
        assert!(text.contains(says), "{era:?}: {text}");
    }
}

/// A revision spelled as a checksum tool prints it was refused with the schema's bare `does
/// not match "^sha256:[0-9a-f]{64}$"`: the 64 hex digits alone (`sha256sum`, `shasum -a 256`,
/// Python's `hexdigest()`) or in capitals (PowerShell's `Get-FileHash`), and the 12 hex digits
/// `show_review`'s line and the report's title write after `@`. Found in a real review driven
/// from build123d-mcp: its STEP export's `sha256sum` is what an assistant has in hand. The
/// refusal says what to pass: the revision itself when the digits are whole, else the stored
/// revision they begin, in every era and for `carry_forward`'s own check too.
#[test]
fn a_revision_spelled_as_a_checksum_tool_prints_it_is_refused_saying_what_to_pass() {
    let hex = &REV_A["sha256:".len()..];
    let at = |rev: &str| json!({"revision": rev, "format": "step"});
    for era in [Era::V2025_06_18, Era::V2025_11_25, Era::V2026_07_28] {
        let mut c = Client::memory(era);
        c.ok(
            "remember",
            json!({"artifact": at(REV_A), "name": "bore", "entity_ids": ["face:1"]}),
        );
        let upper = format!("sha256:{}", hex.to_uppercase());
        for given in [hex.to_string(), hex.to_uppercase(), upper.clone()] {
            let text = c.schema_refused("recall", json!({"artifact": at(&given)}));
            assert!(
                text.contains(&format!("pass \"{REV_A}\"")) && !text.contains("does not match"),
                "{era:?} {given}: {text}"
            );
        }
        let text = c.refused(
            "carry_forward",
            json!({"from": at(REV_A), "to": at(&upper), "map": []}),
        );
        assert!(
            text.contains(&format!("to.revision: \"{upper}\""))
                && text.contains(&format!("pass \"{REV_A}\"")),
            "{era:?}: {text}"
        );
        // show_review's "@ aaaaaaaaaaaa": the short form, without its sha256:.
        let text = c.schema_refused("recall", json!({"artifact": at(&hex[..12])}));
        assert!(
            text.contains("is the short form")
                && text.contains(&format!(
                    "the one revision here that begins sha256:{} is {REV_A}",
                    &hex[..12]
                )),
            "{era:?}: {text}"
        );
        // Neither: the schema's own words.
        let text = c.schema_refused("recall", json!({"artifact": at(&hex[..20])}));
        assert!(text.contains("does not match"), "{era:?}: {text}");
    }
}

/// A revision copied from an answer by its short form (`sha256:` and 12 hex digits, `…`, as
/// an answer writes a revision it gave whole once; or without the `…`) was refused with the
/// schema's `does not match "^sha256:[0-9a-f]{64}$"`, which does not say what the value is
/// or what to pass. The refusal says both, in every era and for every field of that pattern
/// (`carry_forward`'s `to` too), and names the stored revision that begins so when there is
/// exactly one: never a guess among several, then how many.
#[test]
fn a_revision_given_by_its_short_form_is_refused_saying_what_to_pass() {
    let twin = format!("sha256:{}{}", "b".repeat(12), "c".repeat(52));
    let at = |rev: &str| json!({"revision": rev, "format": "step"});
    let whole = "pass the whole revision, sha256: and 64 hex digits";
    for era in [Era::V2025_06_18, Era::V2025_11_25, Era::V2026_07_28] {
        let mut c = Client::memory(era);
        for rev in [REV_A, REV_B, twin.as_str()] {
            c.ok(
                "remember",
                json!({"artifact": at(rev), "name": "bore", "entity_ids": ["face:1"]}),
            );
        }
        let a_short = format!("{}…", &REV_A[..19]);
        let text = c.schema_refused(
            "remember",
            json!({"artifact": at(&a_short), "name": "n", "entity_ids": []}),
        );
        assert!(
            text.contains(&format!(
                "/artifact/revision: \"{a_short}\" is the short form"
            )) && text.contains(whole)
                && text.contains(&format!(
                    "the one revision here that begins {} is {REV_A}",
                    &REV_A[..19]
                )),
            "{era:?}: {text}"
        );
        // Two revisions begin sha256:bbbbbbbbbbbb: neither is named.
        let b_head = &REV_B[..19];
        // carry_forward's schema leaves the form to the tool, which says it the same way.
        let text = c.refused(
            "carry_forward",
            json!({"from": at(REV_A), "to": at(b_head), "map": []}),
        );
        assert!(
            text.contains(&format!("to.revision: \"{b_head}\" is the short form"))
                && text.contains(&format!(
                    "(2 revisions here begin {b_head}: give the one meant)"
                ))
                && !text.contains(REV_B)
                && !text.contains(&twin),
            "{era:?}: {text}"
        );
        let text = c.schema_refused("recall", json!({"artifact": at("sha256:dddd1234...")}));
        assert!(
            text.contains(whole) && text.contains("(no revision here begins sha256:dddd1234)"),
            "{era:?}: {text}"
        );
        // Not a short form: the schema's own words.
        let text = c.schema_refused(
            "remember",
            json!({"artifact": at("sha256:NOT-HEX"), "name": "n", "entity_ids": []}),
        );
        assert!(
            text.contains("does not match") && !text.contains("short form"),
            "{era:?}: {text}"
        );
    }
}

/// Regression (found by adv5): a revision or digest with spaces or a line break around it
/// (`"sha256:…\n"`, `" …"`) was refused with the schema's bare pattern, while the same digits
/// without them are refused naming the revision to pass. Now it is named too, the value shown
/// escaped on one line, in every era.
#[test]
fn a_revision_with_spaces_or_a_line_break_around_it_is_refused_saying_what_to_pass() {
    let hex = &REV_A["sha256:".len()..];
    for era in [Era::V2025_06_18, Era::V2025_11_25, Era::V2026_07_28] {
        let mut c = Client::memory(era);
        for padded in [
            format!("{REV_A}\n"),
            format!(" {REV_A}"),
            format!("{hex} "),
            format!("{}\r\n", hex.to_uppercase()),
        ] {
            let text = c.schema_refused(
                "recall",
                json!({"artifact": {"revision": padded, "format": "step"}}),
            );
            assert!(
                text.contains(&format!("pass \"{REV_A}\"")),
                "{era:?} {padded:?}: {text}"
            );
            assert!(
                !text.contains('\n') && !text.contains('\r'),
                "{era:?}: {text:?}"
            );
        }
    }
}
