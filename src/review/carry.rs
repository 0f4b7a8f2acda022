//! Carrying a review to the next revision of its file (`carry_forward`): which items are
//! inherited and which must be re-verified, what a carried item remembers of where it came
//! from, and what an item of the old revision says of the revision that superseded it.
//!
//! The rule (AS9102 partial/delta FAI, ISO 9001 8.3.6): after a change only the affected
//! characteristics are re-verified, and a result carried from an earlier revision is shown as
//! inherited, never restated as a fresh result. So no verdict becomes a verdict of the new
//! revision: an engineer's verdict travels as the carried item's history
//! ([`Carried::verdict`]), the assistant's does not travel at all.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{Artifact, DomainError, Verdict};

/// Whether a carried item still holds as it was (`inherited`) or touches what changed
/// (`re-verify`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum CarryState {
    /// Re-verify first: it touches a changed or unmapped entity, or is about the whole part
    /// and something changed.
    #[serde(rename = "re-verify")]
    Reverify,
    /// Its entities are all mapped and none changed: carried as it was, not re-verified.
    #[serde(rename = "inherited")]
    Inherited,
}

wire_names!(CarryState {
    Reverify => "re-verify",
    Inherited => "inherited",
});

/// What a carried item (a record, or a basis item of a decision) says of its origin. Absent
/// on an item stated at its own revision (fresh). Fields in alphabetical order (the wire
/// form is this struct's serde form).
///
/// `from` and `verdict` are of the revision the item was last stated at; `changed` and
/// `unmapped` are entity ids of revision [`Carried::ids_revision`]: `from` too, unless the
/// item was carried on unchanged and a later carry touched it (A to B inherited, then B to
/// C with an id of B changed), where `ids_of` names that later revision (B).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Carried {
    /// Entity ids (of revision `ids_of`, else `from`) the geometry server reported as
    /// changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    /// The revision it was last stated at (inherited from): the revision it was carried
    /// from, or that one's own origin when it was carried there unchanged.
    pub from: String,
    /// The revision whose entity ids `changed` and `unmapped` name, when it is not `from`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ids_of: Option<String>,
    pub state: CarryState,
    /// Entity ids (of revision `ids_of`, else `from`) absent from the map: they could not
    /// be carried.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unmapped: Vec<String>,
    /// The engineer's verdict on the item at revision `from`: its history, never a verdict
    /// of this revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
}

impl Carried {
    /// The ids of `changed` that were carried, as readers name them: an id that could not
    /// be carried is named once, as unmapped, though a marker of an earlier release (which a
    /// database, export or synced file may still hold as it was written) lists it in both.
    pub fn changed_and_carried(&self) -> Vec<&str> {
        self.changed
            .iter()
            .filter(|id| !self.unmapped.contains(id))
            .map(String::as_str)
            .collect()
    }

    /// The revision whose entity ids `changed` and `unmapped` are.
    pub fn ids_revision(&self) -> &str {
        self.ids_of.as_deref().unwrap_or(&self.from)
    }

    /// " of revision sha256:1234abcd…" after ids of a revision other than `from` (an item
    /// carried on unchanged before a later carry touched it), else nothing: the ids are
    /// `from`'s, named beside them.
    pub fn ids_of_suffix(&self) -> String {
        match &self.ids_of {
            Some(rev) => format!(" of revision {}", short_revision(rev)),
            None => String::new(),
        }
    }

    /// One line for people: "inherited from revision sha256:1234abcd… (accepted by the
    /// engineer (form) at that revision, 2026-12-01)", "re-verify, carried from revision
    /// sha256:1234abcd… (changed there: face:3; not carried (unmapped): face:9)". The revision
    /// comes before the ids, which are its own ("there"), or those of the revision named beside
    /// them (`ids_of`): beside the new revision's faces, "face:3 changed" read as this one's.
    pub fn describe(&self) -> String {
        let from = short_revision(&self.from);
        let mut s = match self.state {
            CarryState::Inherited => format!("inherited from revision {from}"),
            CarryState::Reverify => {
                let mut why: Vec<String> = Vec::new();
                let of = self.ids_of_suffix();
                let there = if of.is_empty() { " there" } else { "" };
                let changed = self.changed_and_carried();
                if !changed.is_empty() {
                    why.push(format!("changed{there}: {}{of}", ids_listed(changed)));
                }
                if !self.unmapped.is_empty() {
                    why.push(format!(
                        "not carried (unmapped){there}: {}{of}",
                        ids_listed(self.unmapped.iter().map(String::as_str))
                    ));
                }
                if why.is_empty() {
                    why.push("the part changed".into());
                }
                format!(
                    "re-verify, carried from revision {from} ({})",
                    why.join("; ")
                )
            }
        };
        if let Some(v) = &self.verdict {
            let day = v.at.get(..10).unwrap_or(&v.at);
            s.push_str(&format!(
                "; {}{} at revision {from}, {day}",
                v.judgement.as_str(),
                v.given_by()
            ));
            // Why the engineer judged so there is what the item is re-verified against (a
            // rejection's reason is often the change itself): said as the card and the Form 3
            // say it, quoted so it cannot pass for the line's own words.
            if let Some(r) = v.reason.as_deref().filter(|r| !r.trim().is_empty()) {
                s.push_str(&format!(": {}", reason_quoted(r)));
            }
        }
        s
    }
}

/// How many characters of a verdict's reason a line about a carried item shows.
const REASON_SHOWN: usize = 300;

/// A verdict's reason in a line about a carried item: quoted, its quotes and controls escaped,
/// cut at [`REASON_SHOWN`] characters saying how many it leaves out.
pub fn reason_quoted(r: &str) -> String {
    crate::text::quoted(r, REASON_SHOWN) + &crate::text::more_characters(r, REASON_SHOWN)
}

/// The most characters a stored text field holds (the tools' `maxLength`).
const MAX_TEXT_CHARS: usize = 65_536;

/// A text written at revision `from` and kept at a later one, said as the earlier revision's
/// ("at revision sha256:1234…: 10.01 measured"), so no reader gives it as the later one's: the
/// evidence of a carried item the engineer's verdict makes this revision's (as they were shown
/// it), a carried decision's summary. Cut at its end (`…`) when the label would take it past
/// the field's limit.
///
/// A text that already says the revision it was quoted at (evidence stated again at `from`
/// with its label, then carried on and judged or stated again) keeps that one label: it was
/// quoted there, not at `from`, which it was only carried through.
pub fn quoted_at(text: &str, from: &str) -> String {
    if says_its_revision(text) {
        return text.to_string();
    }
    let label = format!("at revision {}: ", short_revision(from));
    let room = MAX_TEXT_CHARS.saturating_sub(label.chars().count() + 1);
    let kept = if text.chars().count() + label.chars().count() > MAX_TEXT_CHARS {
        crate::text::prefix_chars(text, room)
    } else {
        text.to_string()
    };
    label + &kept
}

/// Whether `text` begins with the label [`quoted_at`] writes: "at revision ", a short
/// revision (`sha256:`, 12 lowercase hex digits, `…`) and ": ".
pub fn says_its_revision(text: &str) -> bool {
    text.strip_prefix("at revision sha256:")
        .and_then(|rest| rest.get(..12).zip(rest.get(12..)))
        .is_some_and(|(hex, tail)| {
            hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) && tail.starts_with("…: ")
        })
}

/// How an item's entity ids read to people: the ids, or "whole part" when it has none. An
/// item a carry left without ids because none of its own could be carried (`not_carried`:
/// the old ids it lost, of revision `of` when the caller names it) is not about the whole
/// part: "none at this revision (face:7 not carried)", "none at this revision (face:7 of
/// revision sha256:1234… not carried)", until it is re-identified and stated again.
pub fn entities_label(ids: &[String], not_carried: &[String], of: Option<&str>) -> String {
    if !ids.is_empty() {
        ids.join(", ")
    } else if not_carried.is_empty() {
        "whole part".to_string()
    } else {
        let of = of.map(|r| format!(" of revision {r}")).unwrap_or_default();
        format!(
            "none at this revision ({}{of} not carried)",
            not_carried.join(", ")
        )
    }
}

/// The entity ids a basis item lost to a carry (none of its own could be carried there, so
/// its `faces` are `[]`), kept on the item once the engineer's verdict made it its revision's
/// own ([`super::BasisItem::judged_here`] takes them from the carried marker it drops), so
/// that it never reads as about the whole part. Gone when the item is stated again
/// (`remember_decision`: re-identified); a later carry moves them back into the carried
/// marker (`unmapped`, `ids_of`). Absent from the wire when the item lost none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotCarried {
    /// The ids lost, of revision `of`.
    pub ids: Vec<String>,
    /// The revision whose entity ids they are.
    pub of: String,
}

/// What a carried decision says of the decision it was carried from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionCarried {
    /// The change order or reason given to `carry_forward`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// The old decision's disposition, as it was at revision `from`.
    pub disposition: String,
    /// The revision it was carried from.
    pub from: String,
    /// The old decision's id.
    pub source: String,
}

/// What an item of an old revision says of the revision that superseded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Superseded {
    /// When it was carried.
    pub at: String,
    /// The revision it was carried to.
    pub by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
}

impl Superseded {
    /// The mark borrowed, as a page's `artifacts` table says it once for its items.
    pub fn page_ref(&self) -> super::artifact::SupersededRef<'_> {
        super::artifact::SupersededRef {
            at: &self.at,
            by: &self.by,
            change: self.change.as_deref(),
        }
    }
}

/// A revision shortened for prose: `sha256:` and 12 hex digits.
pub fn short_revision(rev: &str) -> String {
    match rev.get(..19) {
        Some(head) if rev.len() > 19 => format!("{head}…"),
        _ => rev.to_string(),
    }
}

/// The revisions `text` names by [`short_revision`]'s form, each as its head (`sha256:` and
/// the 12 hex digits, without the `…`), in order, once each: what a reader that gives the
/// text (the evidence label `at revision sha256:…: …`, a carried disposition) must name
/// whole elsewhere for the text to be resolvable.
pub fn short_forms_in(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for (at, _) in text.match_indices("sha256:") {
        let Some(head) = text.get(at..at + 19) else {
            continue;
        };
        let hex_only = head["sha256:".len()..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if hex_only && text[at + 19..].starts_with('…') && !found.contains(&head) {
            found.push(head);
        }
    }
    found
}

/// An engineer's verdict that a carried basis item does not show: given on the item at the
/// revision it was carried from (`revision`, decision `decision`) after the carry, so its
/// `carried.verdict` never learned of it. A verdict on a superseded decision is refused by
/// every tool; it arrives by `sync` or `import` from a clone that gave it before it learned
/// of the carry. The readers of the carried decision name it, and `request_verdicts` asks
/// the engineer about the item again.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictAfterCarry {
    /// The carried item's index in its decision's basis.
    pub index: usize,
    /// The revision and the decision it was stated in.
    pub revision: String,
    pub decision: String,
    pub verdict: Verdict,
}

impl VerdictAfterCarry {
    /// As answers carry it, for the carried decision `decision` (its reason cut at 200
    /// characters: the whole is in the earlier revision's decision).
    pub fn wire(&self, decision: &str) -> serde_json::Value {
        serde_json::json!({
            "decision": decision,
            "index": self.index,
            "revision": self.revision,
            "source": self.decision,
            "verdict": self.verdict_wire(),
        })
    }

    /// As the review card is given it, on the carried item itself (`after_carry`): the
    /// revision and the verdict, its reason cut as in [`Self::wire`].
    pub fn item_wire(&self) -> serde_json::Value {
        serde_json::json!({"revision": self.revision, "verdict": self.verdict_wire()})
    }

    fn verdict_wire(&self) -> serde_json::Value {
        let mut verdict = serde_json::to_value(&self.verdict).unwrap_or_default();
        if let Some(reason) = self.verdict.reason.as_deref() {
            verdict["reason"] = crate::text::prefix_chars(reason, 200).into();
        }
        verdict
    }

    /// What a reader of the carried decision is told: the verdict, where, and what to do.
    /// One line, its stored strings escaped.
    pub fn sentence(&self, subject: &str) -> String {
        crate::text::one_line(&format!(
            "{} item {} was {}{} at revision {} after it was carried here, which the carried item does not show: ask the engineer again here with request_verdicts",
            crate::text::quoted(subject, 40),
            self.index + 1,
            self.verdict.judgement.as_str(),
            self.verdict.given_by(),
            short_revision(&self.revision),
        ))
    }
}

/// Where an item of artifact `own` is carried by a carry to `to`: `to`'s revision and format,
/// and `to`'s file and units where it names them, else the item's own (a `to` without a uri
/// is the same file at its next revision, not a review detached from its file).
pub fn carried_artifact(to: &Artifact, own: &Artifact) -> Artifact {
    Artifact {
        revision: to.revision.clone(),
        format: to.format.clone(),
        uri: to.uri.clone().or_else(|| own.uri.clone()),
        units: to.units.clone().or_else(|| own.units.clone()),
    }
}

/// The checked entity map of one carry: old id to new id, and the old ids reported changed.
#[derive(Debug, Clone, Default)]
pub struct EntityMap {
    map: BTreeMap<String, String>,
    changed: BTreeSet<String>,
}

/// How one item's entities carry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mapped {
    /// The new ids, in the old order, each once.
    pub ids: Vec<String>,
    pub changed: Vec<String>,
    pub unmapped: Vec<String>,
}

impl EntityMap {
    /// The map as given: refused when an old id is mapped to two different ids, an id is
    /// empty, or `changed` lists an id the map has only as a new id. The same pair twice is
    /// one pair.
    pub fn new(pairs: &[(String, String)], changed: &[String]) -> Result<EntityMap, DomainError> {
        let mut map = BTreeMap::new();
        for (from, to) in pairs {
            if from.trim().is_empty() || to.trim().is_empty() {
                return Err(DomainError(
                    "the entity map has an empty id: give each pair a \"from\" and a \"to\" id"
                        .into(),
                ));
            }
            if let Some(prior) = map.insert(from.clone(), to.clone())
                && prior != *to
            {
                return Err(DomainError(format!(
                    "the entity map maps {from:?} to two ids ({prior:?} and {to:?}): an old id \
                     maps to at most one new id; leave a split entity out of the map (its items \
                     are then re-verified)"
                )));
            }
        }
        // `changed` names old ids. One the map has only as a new id (a `to`, never a `from`)
        // matches no item, so the change it reports would be lost and the items it means
        // carried as inherited: refused, naming the old id it maps from.
        let new_ids: BTreeMap<&str, &str> = map
            .iter()
            .map(|(from, to)| (to.as_str(), from.as_str()))
            .collect();
        for id in changed {
            if map.contains_key(id) {
                continue;
            }
            if let Some(from) = new_ids.get(id.as_str()) {
                return Err(DomainError(format!(
                    "changed lists {id:?}, which the entity map has only as a new id (the \"to\" \
                     of {from:?}): changed names old ids, as the map's \"from\" does; give \
                     {from:?} (an old entity with no counterpart needs no place in changed: \
                     unmapped, its items are re-verified anyway)"
                )));
            }
        }
        Ok(EntityMap {
            map,
            changed: changed.iter().cloned().collect(),
        })
    }

    /// Whether the geometry server reported anything changed.
    pub fn anything_changed(&self) -> bool {
        !self.changed.is_empty()
    }

    /// How `ids` (an item's entities at the old revision) carry.
    pub fn apply(&self, ids: &[String]) -> Mapped {
        let mut out = Mapped::default();
        // The new ids already given, looked up in a set: a list search made an item of
        // 10,000 entities cost 50 million comparisons.
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for id in ids {
            match self.map.get(id) {
                Some(new) => {
                    if seen.insert(new.as_str()) {
                        out.ids.push(new.clone());
                    }
                    if self.changed.contains(id) {
                        out.changed.push(id.clone());
                    }
                }
                // Not carried: named once, as unmapped, even when reported changed (an id
                // that could not be mapped was not changed into anything here).
                None => out.unmapped.push(id.clone()),
            }
        }
        out
    }

    /// The carry marker of an item whose old entities are `ids`, carried from revision
    /// `from`, that carried `prior` (its own marker at the old revision, if it was carried
    /// there) and whose engineer's verdict at the old revision was `verdict`. `anything`:
    /// something of the part changed (a changed entity reported, or an item with an
    /// unmapped entity), which sends whole-part items to re-verify. `lost`: the ids an item
    /// without any (`ids` empty) lost to an earlier carry and kept once judged
    /// ([`NotCarried`]): it is carried to re-verify, naming them, never as a whole-part item.
    pub fn carried(
        &self,
        ids: &[String],
        from: &str,
        prior: Option<&Carried>,
        verdict: Option<Verdict>,
        anything: bool,
        lost: Option<&NotCarried>,
    ) -> (Carried, Vec<String>) {
        let m = self.apply(ids);
        let touched = !m.changed.is_empty() || !m.unmapped.is_empty();
        let whole = ids.is_empty() && anything;
        let still = prior.is_some_and(|p| p.state == CarryState::Reverify);
        // Judged at `from` without an id: what it is about cannot be followed to the new
        // revision, as an unmapped id cannot.
        let lost = lost.filter(|l| ids.is_empty() && prior.is_none() && !l.ids.is_empty());
        let state = if touched || whole || still || lost.is_some() {
            CarryState::Reverify
        } else {
            CarryState::Inherited
        };
        // Inherited unchanged again: it was last stated where its prior marker says.
        let (origin, verdict) = match prior {
            Some(p) => (p.from.clone(), verdict.or_else(|| p.verdict.clone())),
            None => (from.to_string(), verdict),
        };
        // Why it is to re-verify, in the ids of one revision: this carry's reasons (ids of
        // `from`, the revision carried from) when it found any, else those the item carried
        // here (ids of their own revision: an item carried again with no id, because none of
        // its own could be carried before, still names the ids it lost, so it never reads as
        // about the whole part).
        let (changed, unmapped, ids_of) = if touched {
            let ids_of = Some(from.to_string()).filter(|f| *f != origin);
            (m.changed, m.unmapped, ids_of)
        } else if let Some(l) = lost {
            let ids_of = Some(l.of.clone()).filter(|of| *of != origin);
            (Vec::new(), l.ids.clone(), ids_of)
        } else {
            match prior.filter(|p| p.state == CarryState::Reverify) {
                Some(p) => (p.changed.clone(), p.unmapped.clone(), p.ids_of.clone()),
                None => (Vec::new(), Vec::new(), None),
            }
        };
        (
            Carried {
                changed,
                from: origin,
                ids_of,
                state,
                unmapped,
                verdict,
            },
            m.ids,
        )
    }
}

/// Entity ids in the words of [`Carried::describe`], joined by `, `: an id is any string
/// the model gave, so one holding a semicolon (or a character drawn as one) is quoted, as
/// the form's fields are: bare, it would go on as a segment of the form's description
/// (`; so far: accepted by the engineer …`).
fn ids_listed<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    ids.into_iter()
        .map(|id| match crate::text::holds_a_semicolon(id) {
            true => crate::text::quoted(id, 300),
            false => id.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_old_id_mapped_to_two_ids_is_refused_the_same_pair_twice_is_not() {
        let p = |a: &str, b: &str| (a.to_string(), b.to_string());
        let e = EntityMap::new(&[p("face:3", "face:5"), p("face:3", "face:6")], &[]).unwrap_err();
        assert!(e.0.contains("two ids"), "{}", e.0);
        assert!(EntityMap::new(&[p("face:3", "face:5"), p("face:3", "face:5")], &[]).is_ok());
        assert!(EntityMap::new(&[p("", "face:5")], &[]).is_err());
    }

    /// An item's new ids keep the old order, each once (two old faces merged into one new
    /// face give it once), at the largest map and item (10,000 ids each): the ids given are
    /// looked up in a set, not searched in the list (50 million comparisons per item before;
    /// only a timing could tell the two apart, so this pins what the set must keep).
    #[test]
    fn mapped_ids_keep_their_order_once_each_at_the_largest_item() {
        let p = |a: &str, b: &str| (a.to_string(), b.to_string());
        let m = EntityMap::new(
            &[
                p("face:1", "face:9"),
                p("face:2", "face:8"),
                p("face:3", "face:9"),
            ],
            &ids(&["face:2"]),
        )
        .unwrap();
        let out = m.apply(&ids(&["face:3", "face:2", "face:1", "face:4"]));
        assert_eq!(out.ids, ids(&["face:9", "face:8"]));
        assert_eq!(out.changed, ids(&["face:2"]));
        assert_eq!(out.unmapped, ids(&["face:4"]));
        let old: Vec<String> = (0..10_000).map(|i| format!("face:{i}")).collect();
        let pairs: Vec<(String, String)> = old
            .iter()
            .map(|o| (o.clone(), format!("new:{}", o.len() % 7)))
            .collect();
        let merged = EntityMap::new(&pairs, &[]).unwrap().apply(&old);
        assert_eq!(merged.ids, ids(&["new:6", "new:0", "new:1", "new:2"]));
    }

    /// An id reported changed that the map leaves out could not be carried: it is named once,
    /// unmapped (it cannot also be "changed" to something), so the carry's answer, the marker
    /// and every reader name it once; it was named in both lists.
    #[test]
    fn an_unmapped_id_reported_changed_is_named_once_as_unmapped() {
        let p = |a: &str, b: &str| (a.to_string(), b.to_string());
        let m = EntityMap::new(&[p("face:2", "face:2")], &ids(&["face:2", "face:10"])).unwrap();
        let out = m.apply(&ids(&["face:10", "face:2", "face:11"]));
        assert_eq!(out.ids, ids(&["face:2"]));
        assert_eq!(out.changed, ids(&["face:2"]));
        assert_eq!(out.unmapped, ids(&["face:10", "face:11"]));
        let (c, _) = m.carried(&ids(&["face:10"]), "r1", None, None, true, None);
        assert_eq!(
            (c.state, c.changed, c.unmapped),
            (CarryState::Reverify, vec![], ids(&["face:10"]))
        );
    }

    /// Carried twice with its only id unmapped the first time: the second marker named
    /// nothing lost, so the report said "whole part" and "the part changed".
    #[test]
    fn an_item_that_lost_its_ids_still_names_them_when_carried_again() {
        let none = EntityMap::new(&[], &[]).unwrap();
        let (first, ids1) = none.carried(&ids(&["face:7"]), "r1", None, None, true, None);
        assert_eq!((first.unmapped.clone(), ids1.len()), (ids(&["face:7"]), 0));
        let (second, ids2) = none.carried(&ids1, "r2", Some(&first), None, false, None);
        assert_eq!(
            (
                second.state,
                second.from.as_str(),
                second.unmapped,
                ids2.len()
            ),
            (CarryState::Reverify, "r1", ids(&["face:7"]), 0)
        );
        // A whole-part item never lost ids and names none.
        let (whole, _) = none.carried(&[], "r1", None, None, true, None);
        let (again, _) = none.carried(&[], "r2", Some(&whole), None, true, None);
        assert!(again.unmapped.is_empty());
    }

    /// Judged at r2 after it lost face:7 of r1 (kept as `NotCarried`), carried on to r3 with
    /// nothing changed: it was carried as an inherited whole-part item. It is to re-verify,
    /// naming face:7 of r1; a whole-part item judged at r2 still is inherited.
    #[test]
    fn a_judged_item_that_lost_its_ids_is_carried_to_re_verify_naming_them() {
        let none = EntityMap::new(&[], &[]).unwrap();
        let lost = NotCarried {
            ids: ids(&["face:7"]),
            of: "r1".into(),
        };
        let (c, new) = none.carried(&[], "r2", None, None, false, Some(&lost));
        assert_eq!(
            (c.state, c.from.as_str(), c.unmapped, c.ids_of, new.len()),
            (
                CarryState::Reverify,
                "r2",
                ids(&["face:7"]),
                Some("r1".to_string()),
                0
            )
        );
        let (whole, _) = none.carried(&[], "r2", None, None, false, None);
        assert_eq!(
            (whole.state, whole.unmapped),
            (CarryState::Inherited, vec![])
        );
    }

    /// Only the form `short_revision` writes: 12 lowercase hex digits and `…`, once each; a
    /// whole revision, a shorter or capital one, or one without its `…` is not a short form.
    #[test]
    fn short_forms_in_finds_each_short_revision_once() {
        let whole = format!("sha256:{}", "a".repeat(64));
        let text = format!(
            "at revision sha256:0123456789ab…: x; sha256:0123456789ab… again, {whole}, \
             sha256:0123456789…, sha256:0123456789AB…, sha256:0123456789abc, sha256:ba9876543210…"
        );
        assert_eq!(
            short_forms_in(&text),
            vec!["sha256:0123456789ab", "sha256:ba9876543210"]
        );
        assert!(short_forms_in("sha256:").is_empty());
    }

    #[test]
    fn inherited_only_when_every_entity_is_mapped_and_none_changed() {
        let p = |a: &str, b: &str| (a.to_string(), b.to_string());
        let m = EntityMap::new(
            &[p("face:1", "face:11"), p("face:2", "face:12")],
            &ids(&["face:2"]),
        )
        .unwrap();
        let (c, new) = m.carried(&ids(&["face:1"]), "r1", None, None, true, None);
        assert_eq!((c.state, new), (CarryState::Inherited, ids(&["face:11"])));
        let (c, _) = m.carried(&ids(&["face:1", "face:2"]), "r1", None, None, true, None);
        assert_eq!(
            (c.state, c.changed),
            (CarryState::Reverify, ids(&["face:2"]))
        );
        let (c, new) = m.carried(&ids(&["face:1", "face:9"]), "r1", None, None, true, None);
        assert_eq!(
            (c.state, c.unmapped, new),
            (CarryState::Reverify, ids(&["face:9"]), ids(&["face:11"]))
        );
        // The whole part: re-verify when anything changed, inherited otherwise.
        assert_eq!(
            m.carried(&[], "r1", None, None, true, None).0.state,
            CarryState::Reverify
        );
        assert_eq!(
            m.carried(&[], "r1", None, None, false, None).0.state,
            CarryState::Inherited
        );
        // Carried on again unchanged: still from its origin, still to re-verify if it was.
        let prior = Carried {
            changed: vec![],
            from: "r0".into(),
            ids_of: None,
            state: CarryState::Reverify,
            unmapped: vec![],
            verdict: None,
        };
        let (c, _) = m.carried(&ids(&["face:1"]), "r1", Some(&prior), None, false, None);
        assert_eq!((c.from.as_str(), c.state), ("r0", CarryState::Reverify));
    }
}
