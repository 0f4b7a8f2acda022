//! A remembered record: a named feature (keyed by locator and name) or an anonymous note.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

impl Record {
    /// [`Record::to_wire`] without copying: the fields move into the JSON value. Recall
    /// builds dozens of these per call, and the copies were most of its allocations.
    pub fn into_wire(self, current: Option<&str>) -> Value {
        let mut m = Map::new();
        m.insert("stale".into(), stale(&self.artifact.revision, current));
        m.insert("id".into(), Value::String(self.id));
        m.insert("kind".into(), Value::String(self.kind.as_str().into()));
        if let Some(n) = self.name {
            m.insert("name".into(), Value::String(n));
        }
        if let Some(n) = self.note {
            m.insert("note".into(), Value::String(n));
        }
        m.insert("tags".into(), strings(self.tags));
        m.insert("entity_ids".into(), strings(self.entity_ids));
        m.insert("id_scheme".into(), Value::String(self.id_scheme));
        m.insert("artifact".into(), self.artifact.into_wire());
        m.insert("created_at".into(), Value::String(self.created_at));
        m.insert("updated_at".into(), Value::String(self.updated_at));
        Value::Object(m)
    }
}

/// A list of strings as a JSON array, moving the strings.
pub(crate) fn strings(v: Vec<String>) -> Value {
    Value::Array(v.into_iter().map(Value::String).collect())
}

/// `stale` as both recalls report it.
pub fn stale(revision: &str, current: Option<&str>) -> Value {
    match current {
        Some(c) => Value::Bool(c != revision),
        None => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn into_wire_matches_to_wire() {
        let r = Record {
            id: "rec_1".into(),
            kind: Kind::Feature,
            name: Some("n".into()),
            note: None,
            tags: vec!["t".into()],
            entity_ids: vec!["face:1".into(), "face:2".into()],
            id_scheme: "opaque".into(),
            artifact: Artifact {
                revision: "sha256:x".into(),
                format: "step".into(),
                uri: Some("file:///a".into()),
                units: None,
            },
            created_at: "c".into(),
            updated_at: "u".into(),
        };
        for cur in [None, Some("sha256:x"), Some("sha256:y")] {
            assert_eq!(r.clone().into_wire(cur), r.to_wire(cur));
        }
    }
}
