//! What the store's unit tests share: a revision, an artifact at it, and a count of the
//! records' side rows.

use super::Store;

pub(super) const REV: &str =
    "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// The artifact these tests write for: revision [`REV`], at `uri` when given.
pub(super) fn artifact(uri: Option<&str>) -> crate::review::Artifact {
    crate::review::Artifact {
        revision: REV.into(),
        format: "step".into(),
        uri: uri.map(str::to_string),
        units: None,
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
