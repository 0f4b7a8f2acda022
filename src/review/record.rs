//! A remembered record: a named feature (keyed by locator and name) or an anonymous note.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::artifact::ArtifactWire;

use super::Artifact;
use super::carry::{Carried, Superseded};

/// Where a carry of one feature (its id) moved it on from a revision, as its superseded copy
/// there or the carry's `carried` event says ([`Record::carry_through`]); `None`: nothing says.
pub type CarriedOn<'a> = &'a dyn Fn(&str) -> Option<String>;

/// `feature` when the record has a name (re-remembering replaces), `note` otherwise
/// (every call appends).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Feature,
    Note,
}

wire_names!(Kind {
    Feature => "feature",
    Note => "note",
});

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
    /// Who recorded it (`REVIEW_MCP_AUTHOR` or `--author` of the server that wrote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Carried from an earlier revision by `carry_forward` (absent: stated at its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried: Option<Carried>,
    /// Its revision was carried to a later one: what it said stays, marked superseded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded: Option<Superseded>,
    pub created_at: String,
    pub updated_at: String,
}

/// A record borrowed from where it is kept: a [`Record`], or a database row while a recall
/// reads it, so that a page of records is answered without copying every field of every row
/// into a `String` first (those copies were a third of a recall by tags).
#[derive(Debug)]
pub struct RecordRef<'a> {
    pub id: &'a str,
    pub kind: Kind,
    pub name: Option<&'a str>,
    pub note: Option<&'a str>,
    pub tags: Vec<Cow<'a, str>>,
    pub entity_ids: Vec<Cow<'a, str>>,
    pub id_scheme: &'a str,
    pub artifact: ArtifactWire<'a>,
    pub author: Option<&'a str>,
    pub carried: Option<Carried>,
    pub superseded: Option<Superseded>,
    pub created_at: &'a str,
    pub updated_at: &'a str,
}

/// A record as `remember` and `recall` answer it: the stored fields plus `stale`, borrowed.
///
/// Answers are serialised straight from these (a page of fifty records is ~25 KB of JSON;
/// building it as a `serde_json::Value` tree first cost more than the query). The fields are
/// in alphabetical order because every other answer's keys are (serde_json sorts its maps),
/// and the text block of a tool answer carries these bytes verbatim.
#[derive(Debug, Serialize)]
pub struct RecordWire<'a> {
    artifact: ArtifactWire<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    carried: Option<Carried>,
    created_at: &'a str,
    entity_ids: Vec<Cow<'a, str>>,
    id: &'a str,
    id_scheme: &'a str,
    kind: Kind,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    stale: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    superseded: Option<Superseded>,
    tags: Vec<Cow<'a, str>>,
    updated_at: &'a str,
}

/// A record as a page of `recall` carries it: the wire form with its artifact, its id scheme
/// and its staleness named by its index in the page's `artifacts` table, said once per page.
/// No byte is said twice: `kind` is left out (a record has a `name` exactly when it is a
/// feature: the store's CHECK and import hold it), and so is `updated_at` while it equals
/// `created_at` (a record never replaced), and `superseded` (one carry marks every item of
/// its revision alike: the table's entry says it once).
#[derive(Debug, Serialize)]
pub struct RecordPageWire<'a> {
    artifact: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    carried: Option<Carried>,
    created_at: &'a str,
    entity_ids: Vec<Cow<'a, str>>,
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    tags: Vec<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_at: Option<&'a str>,
}

impl<'a> RecordRef<'a> {
    /// The page form, its artifact being entry `artifact` of the page's table.
    pub fn page_wire(&self, artifact: usize) -> RecordPageWire<'_> {
        RecordPageWire {
            artifact,
            author: self.author,
            carried: self.carried.clone(),
            created_at: self.created_at,
            entity_ids: borrowed_strs(&self.entity_ids),
            id: self.id,
            name: self.name,
            note: self.note,
            tags: borrowed_strs(&self.tags),
            updated_at: (self.updated_at != self.created_at).then_some(self.updated_at),
        }
    }

    /// The wire form with `stale`: `true` when the record's revision differs from `current`,
    /// `false` when equal, `null` when no current revision was supplied.
    pub fn wire(self, current: Option<&str>) -> RecordWire<'a> {
        RecordWire {
            stale: stale(self.artifact.revision, current),
            artifact: self.artifact,
            author: self.author,
            carried: self.carried,
            created_at: self.created_at,
            entity_ids: self.entity_ids,
            id: self.id,
            id_scheme: self.id_scheme,
            kind: self.kind,
            name: self.name,
            note: self.note,
            superseded: self.superseded,
            tags: self.tags,
            updated_at: self.updated_at,
        }
    }

    /// An owned copy.
    pub fn into_owned(self) -> Record {
        let strings = |v: Vec<Cow<'_, str>>| v.into_iter().map(Cow::into_owned).collect();
        Record {
            id: self.id.to_string(),
            kind: self.kind,
            name: self.name.map(str::to_string),
            note: self.note.map(str::to_string),
            tags: strings(self.tags),
            entity_ids: strings(self.entity_ids),
            id_scheme: self.id_scheme.to_string(),
            artifact: self.artifact.into_owned(),
            author: self.author.map(str::to_string),
            carried: self.carried,
            superseded: self.superseded,
            created_at: self.created_at.to_string(),
            updated_at: self.updated_at.to_string(),
        }
    }
}

impl Record {
    /// Where the record stands in the worklist of a carried revision: 0 re-verify, 1
    /// inherited, 2 stated at its own revision.
    pub fn worklist_rank(&self) -> u8 {
        match self.carried.as_ref().map(|c| c.state) {
            Some(super::carry::CarryState::Reverify) => 0,
            Some(super::carry::CarryState::Inherited) => 1,
            None => 2,
        }
    }

    /// The parts [`super::id::derive`] makes the id of what revision `revision` said of the
    /// feature `id` from, once a carry moved the feature on (`carry_forward`'s superseded
    /// copy): every clone derives the same id.
    pub fn snapshot_parts<'a>(id: &'a str, revision: &'a str) -> [&'a str; 3] {
        ["superseded", id, revision]
    }

    /// The id of what revision `revision` said of the feature `id` once a carry moved it on.
    pub fn snapshot_id(id: &str, revision: &str) -> String {
        super::id::derive("rec", &Record::snapshot_parts(id, revision))
    }

    /// Whether `self` is the feature `stayed` carried on by a carry `stayed`'s clone had not
    /// seen: one id, `self` carried to another revision, `stayed` still live at the revision
    /// it was carried from (`base`, the revision both stood at before, when known; else the
    /// one `self`'s marker names). `stayed` is then a later statement at that revision, and
    /// the carry stands: taking `stayed` by its time would move the feature back.
    pub fn carried_past(&self, stayed: &Record, base: Option<&str>) -> bool {
        let (Some(c), Some(_), Some(_)) = (&self.carried, &self.name, &stayed.name) else {
            return false;
        };
        let old = stayed.artifact.revision.as_str();
        self.id == stayed.id
            && self.superseded.is_none()
            && stayed.superseded.is_none()
            && self.artifact.revision != old
            && (base == Some(old) || c.from == old || c.ids_of.as_deref() == Some(old))
    }

    /// Whether `self` is the feature `other` states, carried on by `carry_forward` (its id
    /// kept): both live features of one kind, id and name at two revisions, `self`'s carry
    /// mark naming `other`'s revision, or the revision `other` was itself carried on from
    /// unchanged. A carry to a file renamed per revision (`bracket_revA.step` to
    /// `bracket_revB.step`) moves the feature's uri, so its key: sync, the merge driver and
    /// `import` take such a pair as two versions of the feature, and refuse an id moved to
    /// another key without such a mark. A mark is the file's claim, but a file that claims
    /// one could as well state the feature anew at the new file: the statement at the old
    /// revision is kept as what that revision says of the feature, as for a carry within one
    /// file, and a feature bears no engineer verdicts.
    pub fn carry_of(&self, other: &Record) -> bool {
        self.carry_through(other, &|_| None)
    }

    /// [`Record::carry_of`], also through a chain of carries (A to B, stated again at B, B to
    /// C: the mark at C names B): `carried_on(revision)` says where a carry of this very
    /// feature (its id) moved it on from `revision`, as its superseded copy there (its
    /// `superseded.by`) or the carry's `carried` event shows it. Each link from `other`'s
    /// revision on is one such carry, and the chain ends at the revision `self`'s mark names
    /// (or at `self`'s own). Without a carry mark on `self` nothing is a carry: an id moved
    /// to another key unmarked is still refused.
    pub fn carry_through(&self, other: &Record, carried_on: CarriedOn<'_>) -> bool {
        let Some(c) = &self.carried else {
            return false;
        };
        let at = other.artifact.revision.as_str();
        let named = |r: &str| c.from == r || c.ids_of.as_deref() == Some(r);
        if !(self.id == other.id
            && self.kind == other.kind
            && self.name.is_some()
            && self.name == other.name
            && self.superseded.is_none()
            && other.superseded.is_none()
            && self.artifact.revision != at)
        {
            return false;
        }
        if named(at) || other.carried.as_ref().is_some_and(|o| o.from == c.from) {
            return true;
        }
        // Each revision once: a chain of marks that loops (a forged file) ends.
        let mut passed = std::collections::HashSet::from([at.to_string()]);
        let mut revision = at.to_string();
        while let Some(next) = carried_on(&revision) {
            if named(&next) || next == self.artifact.revision {
                return true;
            }
            if !passed.insert(next.clone()) {
                return false;
            }
            revision = next;
        }
        false
    }

    /// The [`CarriedOn`] of carries read ahead, `(revision, to)` each (as the store reads them
    /// link by link): where the carry from a revision took the feature, what
    /// [`Record::carry_through`] follows.
    pub fn carried_on_in(links: &[(String, String)]) -> impl Fn(&str) -> Option<String> + '_ {
        |revision| {
            links
                .iter()
                .find(|(r, _)| r == revision)
                .map(|(_, to)| to.clone())
        }
    }

    /// Whether `self` and `other` are one feature (one file and name, both live) under two
    /// ids, stated at two revisions: when one of the revisions was carried past for the
    /// feature, the statement there is what that revision says of it, and the other keeps
    /// the key whatever their times, as `remember` keeps it.
    pub fn one_key_at_two_revisions(&self, other: &Record) -> bool {
        self.id != other.id
            && self.name.is_some()
            && self.name == other.name
            && self.superseded.is_none()
            && other.superseded.is_none()
            && self.artifact.locator() == other.artifact.locator()
            && self.artifact.revision != other.artifact.revision
    }

    /// `self`'s statement as one of the feature `onward` (its id): what `self`'s revision
    /// says of the feature `onward` stands for, when `self` is that feature under another id
    /// stated at a revision carried past ([`Record::one_key_at_two_revisions`]).
    pub fn restated_as(&self, onward: &Record) -> Record {
        Record {
            id: onward.id.clone(),
            ..self.clone()
        }
    }

    /// What `stayed`'s revision says of the feature once `onward` carried it on: `stayed`'s
    /// statement under the id of that revision's superseded copy (`snapshot`, the carry's own
    /// copy or an earlier merge, when held), with its mark (else one naming `onward`'s
    /// revision), dated the later of the two. The copy's text gives way to `stayed`'s unless
    /// it is later than `stayed` and not the carry's plain copy (dated its carry): so every
    /// clone that meets the same versions, in any order, writes the same row. `None` when
    /// `snapshot` is not such a copy (its id minted for something else): the statement then
    /// stays in the history.
    pub fn stated_before_carry(
        stayed: &Record,
        onward: &Record,
        snapshot: Option<&Record>,
    ) -> Option<Record> {
        let Some(s) = snapshot else {
            return Some(Record {
                id: Record::snapshot_id(&stayed.id, &stayed.artifact.revision),
                superseded: Some(Superseded {
                    at: onward.updated_at.clone(),
                    by: onward.artifact.revision.clone(),
                    change: None,
                }),
                ..stayed.clone()
            });
        };
        if s.superseded.is_none()
            || s.name != stayed.name
            || s.artifact.revision != stayed.artifact.revision
            || s.artifact.locator() != stayed.artifact.locator()
        {
            return None;
        }
        let plain = s.superseded.as_ref().is_some_and(|m| s.updated_at <= m.at);
        if s.updated_at > stayed.updated_at && !plain {
            return Some(s.clone());
        }
        Some(Record {
            id: s.id.clone(),
            superseded: s.superseded.clone(),
            created_at: s.created_at.clone(),
            updated_at: std::cmp::max(&s.updated_at, &stayed.updated_at).clone(),
            ..stayed.clone()
        })
    }

    /// Where `copy`, when it is what `self`'s revision says of the feature once a carry moved
    /// it on (superseded, of `self`'s file, name and revision), says the carry took it:
    /// `(by, at)`, its mark's revision and time.
    pub fn carried_by(&self, copy: &Record) -> Option<(String, String)> {
        let m = copy.superseded.as_ref()?;
        (copy.name == self.name
            && copy.artifact.revision == self.artifact.revision
            && copy.artifact.locator() == self.artifact.locator())
        .then(|| (m.by.clone(), m.at.clone()))
    }

    /// The feature `self` states, as the carry from `self`'s revision left it: at revision
    /// `to`, dated `at`, what a new superseded copy's mark names
    /// ([`Record::stated_before_carry`]) when nothing holds the feature any more (forgotten
    /// after the carry).
    pub fn carried_to(&self, (to, at): (String, String)) -> Record {
        let mut onward = self.clone();
        onward.artifact.revision = to;
        onward.updated_at = at;
        onward
    }

    /// The record, borrowed.
    pub fn borrowed(&self) -> RecordRef<'_> {
        RecordRef {
            id: &self.id,
            kind: self.kind,
            name: self.name.as_deref(),
            note: self.note.as_deref(),
            tags: borrowed_strs(&self.tags),
            entity_ids: borrowed_strs(&self.entity_ids),
            id_scheme: &self.id_scheme,
            artifact: self.artifact.wire(),
            author: self.author.as_deref(),
            carried: self.carried.clone(),
            superseded: self.superseded.clone(),
            created_at: &self.created_at,
            updated_at: &self.updated_at,
        }
    }

    /// See [`RecordRef::wire`].
    pub fn wire(&self, current: Option<&str>) -> RecordWire<'_> {
        self.borrowed().wire(current)
    }

    /// [`Record::wire`] as a JSON value (for resources, which embed records in documents).
    pub fn to_wire(&self, current: Option<&str>) -> Value {
        serde_json::to_value(self.wire(current)).unwrap_or(Value::Null)
    }
}

fn borrowed_strs<S: AsRef<str>>(v: &[S]) -> Vec<Cow<'_, str>> {
    v.iter().map(|s| Cow::Borrowed(s.as_ref())).collect()
}

/// `stale` as both recalls report it.
pub fn stale(revision: &str, current: Option<&str>) -> Option<bool> {
    current.map(|c| c != revision)
}

/// The rule for a name the caller gives anew (`remember`; import keeps what was stored): not
/// blank. A name is how the feature is recalled and shown; a blank one names nothing.
pub fn check_name(name: Option<&str>) -> Result<(), super::DomainError> {
    match name {
        Some(n) if crate::text::is_blank(n) => Err(super::DomainError(
            "\"name\" is blank: give the feature a name, or leave \"name\" out and give a \"note\""
                .into(),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the wire form must be: the stored form plus `stale`, keys sorted (the order
    /// serde_json's own maps give).
    fn sorted_with_stale(r: &Record, current: Option<&str>) -> String {
        let mut v = serde_json::to_value(r).unwrap();
        v["stale"] = current.map_or(Value::Null, |c| Value::Bool(c != r.artifact.revision));
        v.to_string()
    }

    #[test]
    fn wire_is_stored_form_plus_stale_in_sorted_key_order() {
        let mut r = Record {
            author: None,
            carried: None,
            superseded: None,
            id: "rec_1".into(),
            kind: Kind::Feature,
            name: Some("n \"q\"".into()),
            note: None,
            tags: vec!["t".into()],
            entity_ids: vec!["face:1".into(), "face:2".into()],
            id_scheme: "opaque".into(),
            artifact: Artifact {
                revision: "sha256:x".into(),
                format: "step".into(),
                uri: Some("file:///a".into()),
                units: Some("mm".into()),
            },
            created_at: "c".into(),
            updated_at: "u".into(),
        };
        for cur in [None, Some("sha256:x"), Some("sha256:y")] {
            let got = serde_json::to_string(&r.wire(cur)).unwrap();
            assert_eq!(got, sorted_with_stale(&r, cur));
        }
        r.kind = Kind::Note;
        r.name = None;
        r.note = Some("a\nb".into());
        r.artifact.uri = None;
        r.artifact.units = None;
        let got = serde_json::to_string(&r.wire(Some("sha256:y"))).unwrap();
        assert_eq!(got, sorted_with_stale(&r, Some("sha256:y")));
        assert_eq!(r.borrowed().into_owned(), r);
        assert_eq!(r.to_wire(None)["stale"], Value::Null);
    }
}
