//! The review domain: artifacts (revision, locator, URI normalisation), records, decisions
//! and the basis rules. No SQL, no JSON-RPC.
//!
//! The types here are the wire shapes (serde names are the wire names), so the tools, the
//! resources and the export/import commands all read and write the same JSON.

pub mod artifact;
pub mod decision;
pub mod id;
pub mod outrank;
pub mod record;

pub use artifact::{Artifact, DomainError, FORMAT_STEP, is_revision, normalise_uri};
pub use decision::{BasisItem, Decision, Judgement, Source, State, Verdict, Via};
pub use record::{Kind, Record, RecordRef};

#[cfg(test)]
pub(crate) mod tests {
    use crate::wire::tests::awkward_strings;

    /// An artifact of awkward strings, its optional members present or not depending on `i`.
    pub fn awkward_artifact(i: usize) -> super::Artifact {
        let strings = awkward_strings();
        let pick = |k: usize| strings[k % strings.len()].clone();
        super::Artifact {
            revision: pick(i + 4),
            format: pick(i + 5),
            uri: (i % 3 != 0).then(|| pick(i + 6)),
            units: (i % 2 == 0).then(|| pick(i + 7)),
        }
    }
}
