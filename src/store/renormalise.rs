//! The data half of the upgrade to schema version 4: every stored uri rewritten in its
//! RFC 3986 normal form, keeping both rows where two then share a key.

use rusqlite::Transaction;

use super::StoreError;

/// The schema version whose upgrade re-normalises stored locators.
pub(super) const RENORMALISED_AT: usize = 4;

/// What [`renormalise_locators`] did, for the log.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Renormalised {
    /// Records and decisions whose uri changed spelling.
    pub records: usize,
    pub decisions: usize,
    /// Older features that collided with a newer one of the same name at the same file, kept
    /// as anonymous notes.
    pub features_to_notes: usize,
    /// Older decisions that collided with a newer one of the same subject and revision at the
    /// same file, kept under a subject that says so.
    pub decisions_renamed: usize,
    /// Stored uris that no longer parse (a hand-edited file), left as they were.
    pub unparsable: usize,
}

/// Rewrites every stored uri (and the locator that is made of it) in its RFC 3986 normal
/// form, inside the upgrade's transaction. Where two rows then share a key, the newer (later
/// `updated_at`, then the later seq) keeps it and the older is kept under another: an older
/// named feature becomes an anonymous note whose text starts by saying which feature it was,
/// an older decision gets its subject suffixed. No row is dropped, and the upgrade logs at
/// warn what it did, with counts and ids.
pub(super) fn renormalise_locators(tx: &Transaction<'_>) -> Result<Renormalised, StoreError> {
    use crate::review::artifact::{equivalent_form, normalise_uri};
    let mut report = Renormalised::default();
    let normal = |uri: &str| -> Option<String> {
        // Stored uris were normalised by the url crate when written, so parsing them again
        // is harmless; `equivalent_form` adds what this version adds.
        match normalise_uri(uri, || None) {
            Ok(n) => Some(equivalent_form(&n)),
            Err(_) => {
                log::warn!("schema upgrade: stored uri {uri:?} does not parse; left as it was");
                None
            }
        }
    };

    // Records: (seq, id, name, note, uri, updated_at) of every row with a uri.
    type RecordRow = (i64, String, Option<String>, Option<String>, String, String);
    let rows: Vec<RecordRow> = tx
        .prepare("SELECT seq, id, name, note, uri, updated_at FROM records WHERE uri IS NOT NULL")?
        .query_map([], |r| r.try_into())?
        .collect::<Result<_, _>>()?;
    let mut moves = Vec::new();
    // (normal uri, name) -> the rows of features that will share it: (updated_at, seq, ...).
    let mut features: std::collections::HashMap<(String, String), Vec<(String, i64)>> =
        std::collections::HashMap::new();
    for (seq, _, name, _, uri, updated_at) in &rows {
        let Some(n) = normal(uri) else {
            report.unparsable += 1;
            continue;
        };
        if let Some(name) = name {
            features
                .entry((n.clone(), name.clone()))
                .or_default()
                .push((updated_at.clone(), *seq));
        }
        if &n != uri {
            moves.push((*seq, n));
        }
    }
    let by_seq: std::collections::HashMap<i64, &RecordRow> =
        rows.iter().map(|r| (r.0, r)).collect();
    for ((uri, name), mut holders) in features {
        if holders.len() < 2 {
            continue;
        }
        holders.sort();
        // The last is the newest: it keeps the name. The others become notes.
        holders.pop();
        for (_, seq) in holders {
            let Some((_, id, _, note, _, _)) = by_seq.get(&seq) else {
                continue;
            };
            // The name as it is spelled, as a JSON string (its quotes and controls escaped):
            // the note is all that keeps it, and recall finds it by its words.
            let shown = serde_json::Value::String(name.clone()).to_string();
            let told = format!(
                "Formerly the feature {shown}, kept as a note when a newer feature of that name at {uri} took its place (schema upgrade {RENORMALISED_AT})."
            );
            let text = match note {
                Some(n) if n.chars().count() + told.chars().count() < 65_536 => {
                    format!("{told}\n{n}")
                }
                Some(n) => n.clone(),
                None => told,
            };
            tx.execute("DELETE FROM records_fts WHERE rowid = ?1", [seq])?;
            tx.execute(
                "UPDATE records SET kind = 'note', name = NULL, note = ?2 WHERE seq = ?1",
                rusqlite::params![seq, text],
            )?;
            tx.execute(
                "INSERT INTO records_fts (rowid, name, note) VALUES (?1, NULL, ?2)",
                rusqlite::params![seq, text],
            )?;
            report.features_to_notes += 1;
            log::warn!(
                "schema upgrade: feature {name:?} ({id}) collides with a newer one at {uri}; kept as an anonymous note"
            );
        }
    }
    for (seq, uri) in &moves {
        tx.execute(
            "UPDATE records SET uri = ?2, locator = ?2 WHERE seq = ?1",
            rusqlite::params![seq, uri],
        )?;
    }
    report.records = moves.len();

    // Decisions: (rid, id, subject, revision, uri, updated_at, seq).
    type DecisionRow = (i64, String, String, String, String, String, i64);
    let rows: Vec<DecisionRow> = tx
        .prepare(
            "SELECT rid, id, subject, revision, uri, updated_at, seq FROM decisions \
             WHERE uri IS NOT NULL",
        )?
        .query_map([], |r| r.try_into())?
        .collect::<Result<_, _>>()?;
    let mut moves = Vec::new();
    // (normal uri, subject, revision) -> (updated_at, seq, rid) of the decisions sharing it.
    type Holders = Vec<(String, i64, i64)>;
    let mut keys: std::collections::HashMap<(String, String, String), Holders> =
        std::collections::HashMap::new();
    for (rid, _, subject, revision, uri, updated_at, seq) in &rows {
        let Some(n) = normal(uri) else {
            report.unparsable += 1;
            continue;
        };
        keys.entry((n.clone(), subject.clone(), revision.clone()))
            .or_default()
            .push((updated_at.clone(), *seq, *rid));
        if &n != uri {
            moves.push((*rid, n));
        }
    }
    let by_rid: std::collections::HashMap<i64, &DecisionRow> =
        rows.iter().map(|r| (r.0, r)).collect();
    for ((uri, subject, _), mut holders) in keys {
        if holders.len() < 2 {
            continue;
        }
        holders.sort();
        holders.pop();
        for (_, _, rid) in holders {
            let Some((_, id, ..)) = by_rid.get(&rid) else {
                continue;
            };
            // The subject stays within its 1,000-character limit, so an export still imports.
            let suffix = format!(" (older copy {id}, kept at schema upgrade {RENORMALISED_AT})");
            let keep = 1_000usize.saturating_sub(suffix.chars().count());
            let renamed: String = subject.chars().take(keep).chain(suffix.chars()).collect();
            tx.execute(
                "UPDATE decisions SET subject = ?2 WHERE rid = ?1",
                rusqlite::params![rid, renamed],
            )?;
            // The full-text row holds the subject. A contentless index cannot update one
            // column, so the row is written again whole, its body made as `write_decision`
            // makes it: disposition, summary, then each item's requirement and evidence.
            let (seq, disposition, summary): (i64, String, Option<String>) = tx.query_row(
                "SELECT seq, disposition, summary FROM decisions WHERE rid = ?1",
                [rid],
                |r| r.try_into(),
            )?;
            let mut body = vec![disposition];
            body.extend(summary);
            let items: Vec<(String, Option<String>)> = tx
                .prepare(
                    "SELECT requirement, evidence FROM basis_items WHERE decision_rid = ?1 \
                     ORDER BY position",
                )?
                .query_map([rid], |r| r.try_into())?
                .collect::<Result<_, _>>()?;
            for (requirement, evidence) in items {
                body.push(requirement);
                body.extend(evidence);
            }
            tx.execute("DELETE FROM decisions_fts WHERE rowid = ?1", [seq])?;
            tx.execute(
                "INSERT INTO decisions_fts (rowid, subject, body) VALUES (?1, ?2, ?3)",
                rusqlite::params![seq, renamed, body.join("\n")],
            )?;
            report.decisions_renamed += 1;
            log::warn!(
                "schema upgrade: decision {subject:?} ({id}) collides with a newer one at {uri}; kept as {renamed:?}"
            );
        }
    }
    for (rid, uri) in &moves {
        tx.execute(
            "UPDATE decisions SET uri = ?2, locator = ?2 WHERE rid = ?1",
            rusqlite::params![rid, uri],
        )?;
    }
    report.decisions = moves.len();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use rusqlite::TransactionBehavior;

    use super::super::SCHEMA_VERSION;
    use super::super::migrate::migrate;
    use super::*;

    /// Regression (issue 12, item 3): a file written before locators were normalised per
    /// RFC 3986 upgrades with every uri in normal form; rows that then collide are all kept
    /// (the older feature as a note, the older decision renamed), and a second pass changes
    /// nothing.
    #[test]
    fn upgrade_renormalises_locators_and_keeps_colliding_rows() {
        use super::super::fixtures::artifact;
        use crate::review::Kind;
        use crate::store::{NewDecision, NewRecord, PageRequest, RecordQuery, Store};
        let at = |uri: &str| artifact(Some(uri));
        let feature = |uri: &str, name: &str, note: &str| NewRecord {
            artifact: at(uri),
            name: Some(name.into()),
            note: Some(note.into()),
            tags: vec!["t".into()],
            entity_ids: vec!["face:1".into()],
            id_scheme: "opaque".into(),
        };
        let decision = |uri: &str, disposition: &str| NewDecision {
            artifact: at(uri),
            subject: "release".into(),
            disposition: disposition.into(),
            summary: Some("bore fit".into()),
            basis: vec![],
        };
        const NORMAL: &str = "file:///work/bracket.step";
        let mut store = Store::open_in_memory().unwrap();
        // Stored as earlier versions could store them: spellings the url crate kept.
        // A name in Hindi (a virama and a vowel sign): the note names it as it is spelled.
        const BORE: &str = "bore \u{92a}\u{94d}\u{930}\u{93f}";
        let (older, _) = store
            .remember(&feature("file:///work/%62racket.step", BORE, "older note"))
            .unwrap();
        let (newer, _) = store
            .remember(&feature(NORMAL, BORE, "newer note"))
            .unwrap();
        let (slot, _) = store
            .remember(&feature("file:///work/%62racket.step#face-3", "slot", "s"))
            .unwrap();
        let (old_dec, _, _) = store
            .remember_decision(&decision("file:///work/%62racket%2estep", "hold"))
            .unwrap();
        let (new_dec, _, _) = store
            .remember_decision(&decision(NORMAL, "release"))
            .unwrap();
        store
            .conn()
            .unwrap()
            .pragma_update(None, "user_version", 3)
            .unwrap();
        migrate(store.conn().unwrap(), Path::new(":memory:"), false).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);

        let bore = store.get_record(&newer.id).unwrap().unwrap();
        assert_eq!(
            (bore.kind, bore.artifact.uri.as_deref()),
            (Kind::Feature, Some(NORMAL))
        );
        let kept = store.get_record(&older.id).unwrap().unwrap();
        assert_eq!((kept.kind, kept.name.as_deref()), (Kind::Note, None));
        assert_eq!(kept.artifact.uri.as_deref(), Some(NORMAL));
        let note = kept.note.unwrap();
        assert!(
            note.starts_with(&format!("Formerly the feature \"{BORE}\""))
                && note.ends_with("\nolder note"),
            "{note}"
        );
        let slot = store.get_record(&slot.id).unwrap().unwrap();
        assert_eq!(slot.artifact.uri.as_deref(), Some(NORMAL));
        let d = store.get_decision(&new_dec.id).unwrap().unwrap();
        assert_eq!(
            (d.subject.as_str(), d.artifact.uri.as_deref()),
            ("release", Some(NORMAL))
        );
        let renamed = store.get_decision(&old_dec.id).unwrap().unwrap();
        assert!(
            renamed.subject.starts_with("release (older copy dec_"),
            "{}",
            renamed.subject
        );
        assert_eq!(renamed.artifact.uri.as_deref(), Some(NORMAL));
        // The full-text rows follow: the note is found by its new text, not as a feature name.
        let found = store
            .recall(
                &RecordQuery {
                    text: Some("formerly".into()),
                    ..RecordQuery::default()
                },
                PageRequest::first(10),
            )
            .unwrap();
        assert_eq!(found.items.len(), 1);
        let by_subject = store
            .recall_decisions(
                &crate::store::DecisionQuery {
                    text: Some("older copy".into()),
                    ..Default::default()
                },
                PageRequest::first(10),
            )
            .unwrap();
        assert_eq!(by_subject.items.len(), 1);
        assert!(store.check().unwrap().is_empty());

        // Twice is harmless: nothing left to respell or keep apart.
        migrate(store.conn().unwrap(), Path::new(":memory:"), false).unwrap();
        let tx = rusqlite::Transaction::new_unchecked(
            store.conn().unwrap(),
            TransactionBehavior::Deferred,
        )
        .unwrap();
        assert_eq!(renormalise_locators(&tx).unwrap(), Renormalised::default());
        drop(tx);
        let rows: i64 = store
            .conn()
            .unwrap()
            .query_row(
                "SELECT (SELECT count(*) FROM records) + (SELECT count(*) FROM decisions)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(rows, 5, "no row dropped");
    }
}
