//! What the unit tests of `sync` share: timestamps, and a feature record at a fixed
//! revision and file.

use crate::review::{Artifact, Kind, Record};

pub(crate) const REV: &str =
    "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
pub(crate) const T1: &str = "2026-01-01T00:00:00.000Z";
pub(crate) const T2: &str = "2026-01-02T00:00:00.000Z";

/// A feature created at [`T1`] and last updated at `updated`.
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
