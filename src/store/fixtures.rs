//! What the store's unit tests share: a revision, an artifact at it, a decision, a next page,
//! a query plan and a count of the records' side rows; for the crate's other unit tests, a note to
//! remember; and for import's and `sync`'s, timestamps, and a feature record and a decision
//! at a fixed revision and file.

use super::{NewRecord, Store};
use crate::review::{BasisItem, Decision, Kind, Record};

pub(crate) const REV: &str =
    "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
pub(crate) const T1: &str = "2026-01-01T00:00:00.000Z";
pub(crate) const T2: &str = "2026-01-02T00:00:00.000Z";
pub(crate) const T3: &str = "2026-01-03T00:00:00.000Z";

/// The artifact these tests write for: revision [`REV`], at `uri` when given.
pub(super) fn artifact(uri: Option<&str>) -> crate::review::Artifact {
    crate::review::Artifact {
        revision: REV.into(),
        format: "step".into(),
        uri: uri.map(str::to_string),
        units: None,
    }
}

/// The steps of SQLite's plan for `sql` (`EXPLAIN QUERY PLAN`), each its `detail` text.
pub(super) fn query_plan(
    conn: &rusqlite::Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Vec<String> {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    stmt.query_map(params, |r| r.get(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A decision "bore" with `disposition` and no basis, at [`artifact`] without a uri.
pub(super) fn bore(disposition: &str) -> super::NewDecision {
    super::NewDecision {
        artifact: artifact(None),
        subject: "bore".into(),
        disposition: disposition.into(),
        summary: None,
        basis: vec![],
    }
}

/// The page of `limit` items after `page`, as a cursor asks for it.
pub(super) fn next<T>(limit: usize, page: &super::Page<T>) -> super::PageRequest {
    super::PageRequest {
        snapshot: Some(page.snapshot),
        after: page.items.last().map(|(_, p)| *p),
        limit,
    }
}

/// How many tag and entity rows the records table's side tables hold.
pub(super) fn side_rows(store: &mut Store) -> i64 {
    store
        .conn()
        .unwrap()
        .query_row(
            "SELECT (SELECT count(*) FROM record_tags) + (SELECT count(*) FROM record_entities)",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

/// A note "n" to remember at `revision`, under `uri` when given (for the crate's unit tests
/// that need something stored).
pub(crate) fn note_at(revision: &str, uri: Option<String>) -> NewRecord {
    NewRecord {
        artifact: crate::review::Artifact {
            revision: revision.into(),
            format: "step".into(),
            uri,
            units: None,
        },
        name: None,
        note: Some("n".into()),
        tags: vec![],
        entity_ids: vec![],
        id_scheme: "opaque".into(),
    }
}

/// A feature created at [`T1`] and last updated at `updated`, at [`artifact`] under
/// `file:///w/p.step`.
pub(crate) fn feature(id: &str, name: &str, updated: &str) -> Record {
    Record {
        author: None,
        carried: None,
        superseded: None,
        id: id.into(),
        kind: Kind::Feature,
        name: Some(name.into()),
        note: None,
        tags: vec![],
        entity_ids: vec![],
        id_scheme: "opaque".into(),
        artifact: artifact(Some("file:///w/p.step")),
        created_at: T1.into(),
        updated_at: updated.into(),
    }
}

/// Decision `dec_1` on `subject` with `disposition` and `basis`, at the artifact of
/// [`feature`], created at [`T1`] and last updated at `updated`.
pub(crate) fn decision(
    subject: &str,
    updated: &str,
    disposition: &str,
    basis: Vec<BasisItem>,
) -> Decision {
    Decision {
        author: None,
        carried: None,
        superseded: None,
        id: "dec_1".into(),
        subject: subject.into(),
        disposition: disposition.into(),
        summary: None,
        basis,
        artifact: feature("rec_1", subject, T1).artifact,
        created_at: T1.into(),
        updated_at: updated.into(),
    }
}
