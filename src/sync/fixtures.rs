//! What the unit tests of `sync` share: timestamps, and a feature record and a decision at a
//! fixed revision and file.

use crate::review::{Artifact, BasisItem, Decision, Kind, Record};

pub(crate) const REV: &str =
    "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
pub(crate) const T1: &str = "2026-01-01T00:00:00.000Z";
pub(crate) const T2: &str = "2026-01-02T00:00:00.000Z";
pub(crate) const T3: &str = "2026-01-03T00:00:00.000Z";

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
