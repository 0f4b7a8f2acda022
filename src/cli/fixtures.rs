//! What the command line's unit tests share: timestamps, and a feature record at a fixed
//! revision and file.

use review_mcp::review::{Artifact, Kind, Record};

pub(super) const REV: &str =
    "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
pub(super) const T1: &str = "2026-01-01T00:00:00.000Z";
pub(super) const T2: &str = "2026-01-02T00:00:00.000Z";

/// A feature created at [`T1`] and last updated at `updated`.
pub(super) fn feature(id: &str, name: &str, updated: &str) -> Record {
    Record {
        author: None,
        id: id.into(),
        kind: Kind::Feature,
        name: Some(name.into()),
        note: None,
        tags: vec![],
        entity_ids: vec![],
        id_scheme: "opaque".into(),
        artifact: Artifact {
            revision: REV.into(),
            format: "step".into(),
            uri: Some("file:///w/p.step".into()),
            units: None,
        },
        created_at: T1.into(),
        updated_at: updated.into(),
    }
}
