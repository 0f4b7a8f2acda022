//! What an answer says to the model or the engineer reading it, found by a real review
//! session: a count that says what it counts, the verdict form showing the decision's summary,
//! a tool's own refusal reaching the model past the schema's, the revision a bare digest
//! stands for named on the command line, and a client's method name shown escaped.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

use review_mcp::store::Store;
use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::inproc::{Client, ERAS, Era, art_uri, rev, summary_text};
use crate::support::pty::in_terminal;

const BIN: &str = env!("CARGO_BIN_EXE_review-mcp");

const FILE: &str = "file:///w/bracket.step";

/// Found by a real review session: `remember_decision` answered "= open (…): 2 basis items,
/// 0 open." for a decision whose disposition is "open" and which has a violated item. The
/// count is of open questions (unresolved or conflicting items, as show_review calls them),
/// and "0 open" read as a contradiction. The line names what it counts, and says nothing of
/// a count of none.
#[test]
fn remember_decisions_line_names_open_questions_and_leaves_out_none() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let a = art_uri(&rev(1), FILE);
        let none = summary_text(&c.call(
            "remember_decision",
            json!({"artifact": a, "subject": "bore", "disposition": "open", "basis": [
                {"requirement": "Bore engagement 6 mm", "source": "drawing", "state": "violated",
                 "evidence": "5.0 mm"},
                {"requirement": "Wall 2 mm", "source": "drawing", "state": "satisfied"}
            ]}),
        ));
        assert!(none.contains(": 2 basis items."), "{era:?}: {none}");
        assert!(!none.contains(" open."), "{era:?}: {none}");
        assert!(!none.contains(" 0 "), "{era:?}: {none}");
        let one = summary_text(&c.call(
            "remember_decision",
            json!({"artifact": a, "subject": "wall", "disposition": "hold", "basis": [
                {"requirement": "Wall 2 mm", "source": "drawing", "state": "unresolved",
                 "question": "Is 1.8 mm fine at the boss?"}
            ]}),
        ));
        assert!(
            one.contains(": 1 basis item, 1 open question."),
            "{era:?}: {one}"
        );
        let two = summary_text(&c.call(
            "remember_decision",
            json!({"artifact": a, "subject": "wall", "disposition": "hold", "basis": [
                {"requirement": "Wall 2 mm", "source": "drawing", "state": "unresolved",
                 "question": "Is 1.8 mm fine at the boss?"},
                {"requirement": "Flatness 0.05", "source": "drawing", "state": "conflicting",
                 "question": "Drawing or model?"},
                {"requirement": "Bore H7", "source": "drawing", "state": "satisfied"}
            ]}),
        ));
        assert!(
            two.contains(": 3 basis items, 2 open questions."),
            "{era:?}: {two}"
        );
        let empty = summary_text(&c.call(
            "remember_decision",
            json!({"artifact": a, "subject": "scratch", "disposition": "accept", "basis": []}),
        ));
        assert!(empty.contains(": 0 basis items."), "{era:?}: {empty}");
    }
}

/// The verdict form's message (`elicitation/create` in a handshake session, the
/// `inputRequests` entry in a 2026-07-28 one) for the decision of `subject` at revision 1.
fn form_message(c: &mut Client, era: Era, subject: &str) -> String {
    form_params(c, era, subject)["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no form message"))
        .to_string()
}

/// The verdict form (`elicitation/create` params) for the decision of `subject` at revision 1.
fn form_params(c: &mut Client, era: Era, subject: &str) -> Value {
    let asked = c.call(
        "request_verdicts",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": subject}),
    );
    let params = if era == Era::V2026_07_28 {
        &asked["result"]["inputRequests"]["verdicts"]["params"]
    } else {
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        &asked["params"]
    };
    assert!(params["message"].is_string(), "no form: {asked}");
    params.clone()
}

/// A session of `era` whose host shows forms, the artifact its decisions are made on, and a
/// one-item basis (a violated item) for them.
fn form_session(era: Era) -> (Client, Value, Value) {
    let c = Client::declaring(
        Store::open_in_memory().unwrap(),
        era,
        json!({"elicitation": {"form": {}}}),
    );
    let basis = json!([{"requirement": "Bore engagement 6 mm", "source": "drawing",
                        "state": "violated", "evidence": "5.0 mm"}]);
    (c, art_uri(&rev(1), FILE), basis)
}

/// Found by a real review session: the verdict form showed the engineer the subject,
/// disposition, file and revision, but not the decision's summary ("Bore engagement 5.0 mm
/// is short"), which the terminal review and the card show, and which the engineer needs to
/// judge the items. The form shows it, quoted (its quotes and controls escaped, on one line),
/// a long one cut saying how much it leaves out; without a summary, nothing is added.
#[test]
fn the_verdict_form_shows_the_decisions_summary_quoted_and_bounded() {
    for era in [Era::V2025_11_25, Era::V2026_07_28] {
        let (mut c, a, basis) = form_session(era);
        let long = format!("Bore engagement {}", "is short ".repeat(1_000));
        for (subject, summary) in [
            ("plain", Some("Bore engagement 5.0 mm is short")),
            (
                "forged",
                Some("short\"\nDecision \"other\" (accept)\u{1b}[2K\u{202e}"),
            ),
            ("long", Some(long.as_str())),
            ("none", None),
        ] {
            let mut args =
                json!({"artifact": a, "subject": subject, "disposition": "hold", "basis": basis});
            if let Some(s) = summary {
                args["summary"] = json!(s);
            }
            c.ok("remember_decision", args);
            let message = form_message(&mut c, era, subject);
            let lines: Vec<&str> = message.lines().collect();
            match subject {
                "plain" => assert!(
                    lines.contains(&"Summary: \"Bore engagement 5.0 mm is short\""),
                    "{era:?}: {message}"
                ),
                "forged" => {
                    assert!(
                        lines.contains(
                            &"Summary: \"short\\\" Decision \\\"other\\\" (accept)\\u{1b}[2K\\u{202e}\""
                        ),
                        "{era:?}: {message}"
                    );
                    assert!(!message.contains('\u{1b}'), "{era:?}: {message:?}");
                }
                "long" => {
                    let said = lines
                        .iter()
                        .find(|l| l.starts_with("Summary: "))
                        .unwrap_or_else(|| panic!("{era:?}: {message}"));
                    assert!(
                        said.starts_with("Summary: \"Bore engagement is short is short")
                            && said.contains("…\" [")
                            && said.ends_with(" more characters]"),
                        "{era:?}: {said}"
                    );
                    assert!(said.len() < 400, "{era:?}: {} bytes: {said}", said.len());
                }
                _ => assert!(!message.contains("Summary"), "{era:?}: {message}"),
            }
        }
    }
}

/// Regression (found by adv5): the form's summary line counted what its cut left out in the
/// stored summary, but cut the summary with its bidirectional controls dropped: a summary of
/// 300 letters and 10 right-to-left overrides was shown whole, with no `…`, and said
/// "[10 more characters]" (a long one said 10 too many). The count is of what is cut. (The
/// overrides are now shown as escapes, each one character of the 300 the line shows.)
#[test]
fn the_verdict_forms_summary_counts_what_its_cut_leaves_out_of_what_it_shows() {
    for era in [Era::V2025_11_25, Era::V2026_07_28] {
        let (mut c, a, basis) = form_session(era);
        let whole = format!("{}{}", "a".repeat(300), "\u{202e}".repeat(10));
        let long = format!("{}{}", "\u{202e}".repeat(10), "b".repeat(310));
        for (subject, summary, said) in [
            (
                "whole",
                &whole,
                format!("Summary: \"{}…\" [10 more characters]", "a".repeat(300)),
            ),
            (
                "long",
                &long,
                format!(
                    "Summary: \"{}{}…\" [20 more characters]",
                    "\\u{202e}".repeat(10),
                    "b".repeat(290)
                ),
            ),
        ] {
            c.ok(
                "remember_decision",
                json!({"artifact": a, "subject": subject, "disposition": "hold",
                       "basis": basis, "summary": summary}),
            );
            let message = form_message(&mut c, era, subject);
            assert!(
                message.lines().any(|l| l == said),
                "{era:?}: {said} not in {message}"
            );
        }
        // An item's evidence and question (quoted: it holds a semicolon), cut where their
        // overrides begin, each saying so.
        let evidence = format!("{}{}", "c".repeat(300), "\u{202e}".repeat(10));
        let question = format!("d;{}{}", "d".repeat(298), "\u{202e}".repeat(10));
        c.ok(
            "remember_decision",
            json!({"artifact": a, "subject": "item", "disposition": "hold", "basis": [
                {"requirement": "Bore engagement 6 mm", "source": "drawing",
                 "state": "unresolved", "evidence": evidence, "question": question}]}),
        );
        let form = form_params(&mut c, era, "item").to_string();
        assert!(
            form.contains(&format!(
                "evidence: {}… [10 more characters];",
                "c".repeat(300)
            )) && form.contains(&format!(
                "question: \\\"d;{}…\\\" [10 more characters]",
                "d".repeat(298)
            )),
            "{era:?}: {form}"
        );
    }
}

/// Found by a real review session: `recall` with `entity_id` and no `artifact` was refused by
/// the schema's `"artifact" is a required property`, so the tool's own message, which says
/// why (entity ids only mean something at one revision) and what to send, never reached the
/// model. The refusal is the tool's now, in every era, and still a refusal (the schema's
/// rule stands: -32602 where schema errors are protocol errors), beside any other error.
#[test]
fn an_entity_filter_without_an_artifact_is_refused_saying_why_and_what_to_send() {
    for era in ERAS {
        let mut c = Client::memory(era);
        for (tool, ids) in [("recall", "entity ids"), ("recall_decisions", "face ids")] {
            let said = c.schema_refused(tool, json!({"entity_id": "face:7"}));
            assert!(
                said.contains(&format!(
                    "entity_id needs artifact: {ids} only mean something at one revision, so send the artifact whose revision produced the id"
                )),
                "{era:?} {tool}: {said}"
            );
            assert!(
                !said.contains("is a required property"),
                "{era:?} {tool}: {said}"
            );
            // Another error of the same call is still listed beside it.
            let both = c.schema_refused(tool, json!({"entity_id": "face:7", "limit": "x"}));
            assert!(
                both.contains("entity_id needs artifact") && both.contains("limit"),
                "{era:?} {tool}: {both}"
            );
        }
        // A required artifact missing without an entity_id is the schema's refusal as before.
        let plain = c.schema_refused("show_review", json!({}));
        assert!(
            plain.contains("\"artifact\" is a required property"),
            "{era:?}: {plain}"
        );
    }
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .env_remove("REVIEW_MCP_DB_PATH")
        .env("MCP_LOG_LEVEL", "warn")
        .stdin(Stdio::null())
        .args(args)
        .output()
        .unwrap()
}

/// Found by a real review session: the command line given a digest as `sha256sum` prints it
/// where FILE-OR-REVISION goes (`review-mcp form3 <64 hex>`, `review-mcp review <64 hex>`)
/// said "no such file … give the part's file or its sha256:<64 hex> revision", where a tool
/// names the revision to pass for the same spelling. The command line names it too.
#[test]
fn a_bare_digest_on_the_command_line_is_refused_naming_the_revision_to_pass() {
    let dir = TempDir::new("answers-bare-digest").unwrap();
    let mut c = Client::new(Store::open(&dir.join("r.db")).unwrap(), Era::V2026_07_28);
    c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": "bore", "disposition": "hold",
               "basis": [{"requirement": "Bore H7", "source": "drawing", "state": "satisfied"}]}),
    );
    drop(c);
    let hex = "ABCDEF0123456789".repeat(4);
    let lower = hex.to_ascii_lowercase();
    let pass = format!("pass \"sha256:{lower}\"");
    for digest in [lower.clone(), hex.clone(), format!("SHA256:{hex}")] {
        let o = run(dir.path(), &["--db", "r.db", "form3", &digest]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "form3 {digest}: {err}");
        assert!(
            err.contains(&pass) && !err.contains("no such file"),
            "form3 {digest}: {err}"
        );
        // `review` runs only in a terminal: a pseudo-terminal.
        let (shown, ok) = in_terminal(&dir.join("r.db"), None, &digest, &[], "pty").unwrap();
        assert!(!ok, "review {digest}: {shown}");
        assert!(
            shown.contains(&pass) && !shown.contains("no such file"),
            "review {digest}: {shown}"
        );
    }
    // A file of that name is still a file.
    std::fs::write(dir.join(&lower), b"a part").unwrap();
    let o = run(dir.path(), &["--db", "r.db", "form3", &lower]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("pass \"sha256:"), "{err}");
}

/// Found by a real review session: "Method not found" echoed the client's method name raw
/// (an escape sequence, a bidirectional override, a line break), where every other refusal
/// shows what the client sent through `text::inline`, as "Unknown tool" does.
#[test]
fn method_not_found_shows_the_method_escaped() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let r = c.request("no/such\u{1b}[2K\u{202e}\nmethod", json!({}));
        assert_eq!(r["error"]["code"], -32601, "{era:?}: {r}");
        let m = r["error"]["message"].as_str().unwrap();
        assert_eq!(
            m, "Method not found: no/such\\u{1b}[2K\\u{202e}\\u{a}method",
            "{era:?}"
        );
    }
}

/// Reported by a real review session: `show_review` of revision 1 after its review was
/// carried to 2 and then to 3 said "6 items stale against it", read as counting revision 2's
/// carried copies too. By docs/tools.md, what is stale against a revision is what was written
/// for its files at other revisions, an item carried on from its revision not counted (its
/// copy at the later revision says it): here revision 3's three items, and the full review
/// lists only those. Not reproduced (the count was right before this test was written): it
/// keeps the documented meaning, and would fail if a carried copy were counted twice.
#[test]
fn a_revision_carried_on_twice_counts_each_later_claim_once() {
    for era in ERAS {
        let mut c = Client::memory(era);
        let at = |n: usize| art_uri(&rev(n), FILE);
        c.ok(
            "remember_decision",
            json!({"artifact": at(1), "subject": "release", "disposition": "hold",
                   "basis": [{"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied"}]}),
        );
        c.ok(
            "remember",
            json!({"artifact": at(1), "entity_ids": ["face:7"], "name": "bore"}),
        );
        c.ok(
            "remember",
            json!({"artifact": at(1), "entity_ids": [], "note": "deburr all edges"}),
        );
        c.ok(
            "carry_forward",
            json!({"from": at(1), "to": at(2), "map": []}),
        );
        c.ok(
            "carry_forward",
            json!({"from": at(2), "to": at(3), "map": []}),
        );
        for (n, stale) in [(1, 3), (2, 3), (3, 0)] {
            let out = c.call("show_review", json!({"artifact": at(n)}));
            let text = summary_text(&out);
            let counts = &out["result"]["structuredContent"]["counts"];
            assert_eq!(
                counts["stale_records"].as_u64().unwrap()
                    + counts["stale_decisions"].as_u64().unwrap(),
                stale,
                "{era:?} revision {n}: {text} {counts}"
            );
            assert!(
                text.contains(&format!("; {stale} items stale against it")),
                "{era:?} revision {n}: {text}"
            );
        }
        let full = c.call("show_review", json!({"artifact": at(1), "detail": "full"}));
        let sc = &full["result"]["structuredContent"];
        let listed: Vec<&Value> = ["records", "decisions"]
            .iter()
            .flat_map(|k| sc["stale"][k].as_array().unwrap())
            .collect();
        assert_eq!(listed.len(), 3, "{era:?}: {sc}");
        for item in listed {
            assert_eq!(item["artifact"]["revision"], rev(3), "{era:?}: {item}");
        }
    }
}
