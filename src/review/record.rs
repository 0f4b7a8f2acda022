//! A remembered record: a named feature (keyed by locator and name) or an anonymous note.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Artifact;

/// `feature` when the record has a name (re-remembering replaces), `note` otherwise
/// (every call appends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Feature,
    Note,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Feature => "feature",
            Kind::Note => "note",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        match s {
            "feature" => Some(Kind::Feature),
            "note" => Some(Kind::Note),
            _ => None,
        }
    }
}

/// A stored record, as export writes it and import reads it. `stale` is not part of it: it
/// is a property of a recall against a current revision (see [`Record::to_wire`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub id: String,
    pub kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub entity_ids: Vec<String>,
    pub id_scheme: String,
    pub artifact: Artifact,
    pub created_at: String,
    pub updated_at: String,
}

impl Record {
    /// The wire form with `stale`: `true` when the record's revision differs from `current`,
    /// `false` when equal, `null` when no current revision was supplied.
    pub fn to_wire(&self, current: Option<&str>) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("stale".into(), stale(&self.artifact.revision, current));
        }
        v
    }
}

/// `stale` as both recalls report it.
pub fn stale(revision: &str, current: Option<&str>) -> Value {
    match current {
        Some(c) => Value::Bool(c != revision),
        None => Value::Null,
    }
}
