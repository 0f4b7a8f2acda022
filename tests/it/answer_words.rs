//! What an answer says to the model or the engineer reading it, found by a real review
//! session: a count that says what it counts, the verdict form showing the decision's summary,
//! a tool's own refusal reaching the model past the schema's, the revision a bare digest
//! stands for named on the command line, and a client's method name shown escaped.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::support::inproc::{Client, ERAS, art_uri, rev};

const FILE: &str = "file:///w/bracket.step";

/// The summary (first text block) of an answer.
fn line(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {resp}"))
        .to_string()
}

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
        let none = line(&c.call(
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
        let one = line(&c.call(
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
        let two = line(&c.call(
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
        let empty = line(&c.call(
            "remember_decision",
            json!({"artifact": a, "subject": "scratch", "disposition": "accept", "basis": []}),
        ));
        assert!(empty.contains(": 0 basis items."), "{era:?}: {empty}");
    }
}
