//! Issue 28, an adversarial review of the history: writes that change a decision through an
//! import or a sync are each recorded, whatever an older event happened to say.

use review_mcp::review::Artifact;
use review_mcp::review::history::{Channel, EventKind, decision_state};
use review_mcp::store::{NewDecision, Store};

use crate::support::inproc::{REV_A, TempDir};

fn artifact() -> Artifact {
    Artifact {
        revision: REV_A.to_string(),
        format: "step".into(),
        uri: Some("file:///work/bracket.step".into()),
        units: None,
    }
}

fn new(disposition: &str) -> NewDecision {
    NewDecision {
        artifact: artifact(),
        subject: "bore".into(),
        disposition: disposition.into(),
        summary: None,
        basis: vec![],
    }
}

/// Regression: an import (or sync) that brings a decision back to a state it was in once
/// (hold → release here, then a later line saying hold, from a database without history)
/// recorded nothing, because the first event said "hold" too: the history ended on
/// "release" while the decision said "hold". Only an event newer than what is replaced
/// explains a write.
#[test]
fn history_an_import_back_to_an_earlier_state_is_recorded() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-review-revert")?;
    let mut store = Store::open(&tmp.join("a.db"))?;
    let (hold, _, _) = store.remember_decision(&new("hold"))?;
    store.remember_decision(&new("release"))?;
    let mut line = hold.clone();
    line.updated_at = "2099-01-01T00:00:00.000Z".into();
    let summary = store.import(&[], &[line])?;
    anyhow::ensure!(summary.replaced == 1, "{summary:?}");
    let events = store.events()?;
    let last = events.last().expect("events");
    assert_eq!(last.kind, EventKind::Replaced, "{events:#?}");
    assert_eq!(last.channel, Channel::Import);
    assert_eq!(last.after.as_deref(), Some(decision_state(&hold).as_str()));
    assert!(last.line().contains("release → hold"), "{}", last.line());
    Ok(())
}

/// The same for a named feature: its text back by import to one it said before is a change.
#[test]
fn history_a_feature_imported_back_to_an_earlier_text_is_recorded() -> anyhow::Result<()> {
    use review_mcp::store::NewRecord;
    let tmp = TempDir::new("history-review-revert-record")?;
    let mut store = Store::open(&tmp.join("a.db"))?;
    let feature = |note: &str| NewRecord {
        artifact: artifact(),
        name: Some("bore".into()),
        note: Some(note.into()),
        tags: vec![],
        entity_ids: vec!["face:1".into()],
        id_scheme: "step-ap242".into(),
    };
    // 12H7 → 12H8 → 12H7 → 12H8: an event already said "12H7" once.
    store.remember(&feature("12H7"))?;
    store.remember(&feature("12H8"))?;
    let (first, _) = store.remember(&feature("12H7"))?;
    store.remember(&feature("12H8"))?;
    let mut line = first.clone();
    line.updated_at = "2099-01-01T00:00:00.000Z".into();
    store.import(&[line], &[])?;
    let events = store.events()?;
    let last = events.last().expect("events");
    assert_eq!(last.kind, EventKind::TextReplaced, "{events:#?}");
    assert_eq!(last.channel, Channel::Import);
    assert!(last.line().contains("note 12H8 → 12H7"), "{}", last.line());
    Ok(())
}
