//! The review domain: artifacts (revision, locator, URI normalisation), records, decisions
//! and the basis rules. No SQL, no JSON-RPC. `hashing` computes a file's revision: the one
//! place this program reads a CAD file (its bytes only, never its geometry).
//!
//! The types here are the wire shapes (serde names are the wire names), so the tools, the
//! resources and the export/import commands all read and write the same JSON.

/// Wire names of the enums, for SQL columns and JSON Schema `enum`s.
macro_rules! wire_names {
    ($t:ty { $($v:ident => $s:literal),* $(,)? }) => {
        impl $t {
            pub const ALL: &'static [&'static str] = &[$($s),*];
            pub fn as_str(self) -> &'static str {
                match self { $(<$t>::$v => $s),* }
            }
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some(<$t>::$v),)* _ => None }
            }
        }
    };
}

pub(crate) use wire_names;

pub mod artifact;
pub mod carry;
pub mod decision;
pub mod hashing;
pub mod history;
pub mod id;
pub mod outrank;
pub mod record;

pub use artifact::{
    Artifact, DomainError, FORMAT_STEP, absolute_path_as_uri, is_revision, normalise_uri,
    path_prefix_as_uri, short_revision_head,
};
pub use carry::{Carried, CarryState, DecisionCarried, NotCarried, Superseded};
pub use decision::{BasisItem, Decision, Judgement, Meaning, Source, State, Verdict, Via};
pub use hashing::{HashError, file_digest, file_revision};
pub use record::{Kind, Record, RecordRef};
