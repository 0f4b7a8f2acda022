//! The rule for an item changed on both sides, shared by `sync` and `merge-file`, and the
//! outranking rule of the tools for an item changed on one side only ([`one_sided`]): the
//! changed version is taken, except that an engineer's verdict it would replace by the
//! assistant's (or by none) stands, which is a conflict.
//!
//! The later `updated_at` wins (equal times: the larger file text, so that every clone that
//! meets the same two versions picks the same one, whichever side it calls its own). A
//! decision's engineer verdicts (`via` `elicitation` or `app`) are then carried over, basis
//! item by basis item, matched by requirement text as [`merge_verdicts`] matches them:
//! - an item of the winner whose verdict is the assistant's (or missing) takes the loser's
//!   engineer verdict on the same requirement: it is never replaced by an assistant's;
//! - when both hold different engineer verdicts, the later `at` stands;
//! - a loser's engineer verdict on a requirement the winner lacks is kept by appending that
//!   item, unless the base already held that very verdict (then the winner removed the item
//!   knowingly, and the removal is reported).
//!
//! [`merge_verdicts`]: crate::review::outrank::merge_verdicts

use super::Item;
use crate::review::decision::AUTHOR_SHOWN;
use crate::review::outrank::{
    keep_engineer_verdicts, keep_reverify, outranks, pair_by_requirement,
};
use crate::review::record::CarriedOn;
use crate::review::{BasisItem, Decision, Meaning, Record, Verdict};

/// One side of a merge: its version and what the report calls it (`database`, `ours`).
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    pub item: &'a Item,
    pub name: &'a str,
}

/// The side `item`, called `name` in the report.
pub fn side<'a>(item: &'a Item, name: &'a str) -> Side<'a> {
    Side { item, name }
}

/// The outcome: the merged item and, when both sides had changed it, what the report says.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub item: Item,
    /// `None` when one side was unchanged since the base (or both agree): no conflict.
    pub conflict: Option<String>,
    /// What the rule did to the engineer's verdicts (also in `conflict`).
    pub notes: Vec<String>,
    /// A feature's statement at a revision that the kept version carried it on from
    /// ([`Record::carried_past`]): not taken for the item, it is to be kept as what that
    /// revision says of the feature ([`Record::stated_before_carry`]).
    pub stayed: Option<Record>,
}

impl Resolved {
    /// `item` as it is, with no conflict.
    fn taken(item: &Item) -> Resolved {
        Resolved {
            item: item.clone(),
            conflict: None,
            notes: Vec::new(),
            stayed: None,
        }
    }

    /// `item`, a conflict: `report` followed by each of the `notes`.
    fn conflict(item: Item, mut report: String, notes: Vec<String>) -> Resolved {
        for n in &notes {
            report.push_str("; ");
            report.push_str(n);
        }
        Resolved {
            item,
            conflict: Some(report),
            notes,
            stayed: None,
        }
    }
}

/// Three-way merge of one item: a side unchanged since `base` takes the other side's
/// version; otherwise the rule of this module. `Err` when the two are not the same kind of
/// item or have different ids.
pub fn resolve(base: Option<&Item>, ours: Side<'_>, theirs: Side<'_>) -> Result<Resolved, String> {
    resolve_knowing(base, ours, theirs, &|_| false, &|_| None)
}

/// Whether a superseded copy of the feature a statement names is known at the statement's
/// revision (in the database, the folder or the work tree): that revision was carried past,
/// though the feature, stated again since, no longer says so.
pub type CopyKnown<'a> = &'a dyn Fn(&Record) -> bool;

/// [`resolve`], knowing the superseded copies `copied` says of, and the carries of the item's
/// feature from one revision to the next that `carried_on` shows ([`Record::carry_through`]).
pub fn resolve_knowing(
    base: Option<&Item>,
    ours: Side<'_>,
    theirs: Side<'_>,
    copied: CopyKnown<'_>,
    carried_on: CarriedOn<'_>,
) -> Result<Resolved, String> {
    if ours.item.kind() != theirs.item.kind() || ours.item.id() != theirs.item.id() {
        return Err(format!(
            "{} is {} {} but {} is {} {}: not two versions of one item",
            ours.name,
            ours.item.kind().as_str(),
            ours.item.id(),
            theirs.name,
            theirs.item.kind().as_str(),
            theirs.item.id()
        ));
    }
    if let Some(moved) = moved_key(theirs, ours, carried_on) {
        return Err(moved);
    }
    // A base that is another item is no ancestor of either version: its engineer verdicts
    // were given on another decision. Another id (git paired its file with this one's as a
    // rename), or this id under another key ([`key_of`]: the id's item forgotten, and the id
    // imported again for another subject, part or revision).
    let base = base.filter(|b| {
        b.kind() == ours.item.kind()
            && b.id() == ours.item.id()
            && (one_key(b, ours.item, carried_on) || one_key(b, theirs.item, carried_on))
    });
    let (o, t) = (ours.item.text(), theirs.item.text());
    let b = base.map(Item::text);
    if o == t {
        return Ok(Resolved::taken(ours.item));
    }
    if b.as_deref() == Some(t.as_str()) {
        return Ok(one_sided(Some(theirs.item), ours));
    }
    if b.as_deref() == Some(o.as_str()) {
        return Ok(one_sided(Some(ours.item), theirs));
    }
    Ok(both_changed(base, ours, theirs, &o, &t, copied))
}

/// Whether [`resolve_knowing`]'s answer for these versions may depend on the carries its
/// `carried_on` shows, so that they need reading. It asks them only through [`one_key`] (the
/// same in either order), for the two sides ([`moved_key`]) and for a base of their kind and id
/// against either side.
/// Knowing no carry (`&|_| None`) makes no pair one item that a carry would not: every `true`
/// of [`Record::carry_through`] without one is decided before it asks `carried_on` at all. So
/// when each `one_key` asked is already `true` without the carries, it is `true` with them,
/// and the answer is the same whatever they are: they need reading only when the two sides,
/// or the base and both sides, are not one item without them.
pub fn asks_carries(base: Option<&Item>, ours: Side<'_>, theirs: Side<'_>) -> bool {
    let none: CarriedOn<'_> = &|_| None;
    !one_key(ours.item, theirs.item, none)
        || base.is_some_and(|b| {
            b.kind() == ours.item.kind()
                && b.id() == ours.item.id()
                && !one_key(b, ours.item, none)
                && !one_key(b, theirs.item, none)
        })
}

/// What an id names for good, as `import` keys it: a record's kind and, for a feature, its
/// name and part; a decision's subject, part and revision. No review-mcp writes a version of
/// an id under another (`import` refuses one: "an id names one decision"), so a version that
/// moves an id elsewhere is not a version of that item: taken, it would carry the item's
/// engineer verdicts to a revision, part or subject they were never given on.
fn key_of(item: &Item) -> (&str, Option<&str>, Option<&str>, Option<&str>) {
    match item {
        Item::Record(r) => match r.name.as_deref() {
            // Its file, not its locator: a feature recorded without a uri is keyed by its
            // revision, which `carry_forward` moves on as it moves a feature of a file on to
            // the file's next revision (its id kept).
            Some(name) => ("feature", Some(name), r.artifact.uri.as_deref(), None),
            None => ("note", None, None, None),
        },
        Item::Decision(d) => (
            "decision",
            Some(d.subject.as_str()),
            Some(d.artifact.locator()),
            Some(d.artifact.revision.as_str()),
        ),
    }
}

/// Whether `a` and `b` are versions of one item: one key ([`key_of`]), or one feature that
/// `carry_forward` moved on to a file renamed for the next revision, in one carry or a chain
/// of them that `carried_on` shows ([`Record::carry_through`]).
fn one_key(a: &Item, b: &Item, carried_on: CarriedOn<'_>) -> bool {
    if key_of(a) == key_of(b) {
        return true;
    }
    match (a, b) {
        (Item::Record(a), Item::Record(b)) => {
            a.carry_through(b, carried_on) || b.carry_through(a, carried_on)
        }
        _ => false,
    }
}

/// The key [`key_of`] gives `item`, for a reader: `decision "bracket" at file:///…, revision
/// sha256:…`, stored strings short and escaped.
fn key_shown(item: &Item) -> String {
    use crate::text::{inline, quoted};
    let (what, name, locator, revision) = key_of(item);
    let mut out = what.to_string();
    if let Some(n) = name {
        out.push(' ');
        out.push_str(&quoted(n, 80));
    }
    match locator {
        Some(l) => {
            out.push_str(" at ");
            out.push_str(&inline(l, 200));
        }
        None if what == "feature" => out.push_str(" without a uri"),
        None => {}
    }
    if let Some(r) = revision {
        out.push_str(", revision ");
        out.push_str(&inline(r, 80));
    }
    out
}

/// Why `moved` is not a version of the item `held` names (its id under another key, see
/// [`key_of`]), each named by its side; `None` when it is.
pub fn moved_key(moved: Side<'_>, held: Side<'_>, carried_on: CarriedOn<'_>) -> Option<String> {
    if one_key(moved.item, held.item, carried_on) {
        return None;
    }
    let kind = moved.item.kind().as_str();
    Some(format!(
        "the {} version of {kind} {} is {}, but the {} version is {}: an id names one {kind} \
         for good (import refuses such a line too), and no review-mcp moves one to another \
         revision, part, subject or name (but `carry_forward`, whose mark on the feature names \
         the revision it left), which would carry its engineer verdicts to what they \
         were never given on; if the other is wanted, it is another {kind}: give it a new id",
        moved.name,
        crate::text::inline(moved.item.id(), 80),
        key_shown(moved.item),
        held.name,
        key_shown(held.item),
    ))
}

/// A version changed on one side only replaces `before` (the unchanged side, or the base when
/// the other side deleted the item), under the outranking rule of the tools
/// ([`keep_engineer_verdicts`]): an engineer's verdict of `before` that `changed` would replace
/// by the assistant's, or by none, is kept, and the item is a conflict, reported. Otherwise
/// `changed` is taken as it is, with no conflict.
pub fn one_sided(before: Option<&Item>, changed: Side<'_>) -> Resolved {
    let (Some(Item::Decision(b)), Item::Decision(c)) = (before, changed.item) else {
        return Resolved::taken(changed.item);
    };
    let mut out = c.clone();
    let kept = keep_engineer_verdicts(&b.basis, &mut out.basis);
    if kept.is_empty() {
        return Resolved::taken(changed.item);
    }
    out.recount_carried(c);
    let out = dated_after(out, c);
    let notes: Vec<String> = kept
        .iter()
        .map(|k| {
            format!(
                "the engineer's verdict on {} ({}) kept against the {} version's {}",
                shown(&k.requirement),
                describe(&k.verdict),
                changed.name,
                match &k.offered {
                    Some(v) => format!("{} {}", v.via.as_str(), v.judgement.as_str()),
                    None => "removal of the verdict".into(),
                }
            )
        })
        .collect();
    let report = format!(
        "{} {} changed in the {} only (version of {}{}), but an assistant's verdict never replaces an engineer's",
        changed.item.kind().as_str(),
        changed.item.id(),
        changed.name,
        changed.item.updated_at(),
        author_of(changed.item),
    );
    Resolved::conflict(Item::Decision(out), report, notes)
}

/// A requirement named in a line: [`crate::text::quoted`], as every reader names one.
pub(super) fn shown(requirement: &str) -> String {
    crate::text::quoted(requirement, REQUIREMENT_SHOWN)
}

/// How many characters of a requirement a line names.
const REQUIREMENT_SHOWN: usize = 200;

/// A verdict as the report names it: `rejected via app by Ada at 2026-…`, and `, as an
/// approval` when it says it attests one (a claim the reviewer of an unsigned folder checks).
fn describe(v: &Verdict) -> String {
    format!(
        "{} via {}{} at {}{}",
        v.judgement.as_str(),
        v.via.as_str(),
        v.author
            .as_deref()
            .map(|a| format!(" by {}", crate::text::who(a, AUTHOR_SHOWN)))
            .unwrap_or_else(|| ", no author named,".into()),
        v.at,
        as_approval(v.meaning)
    )
}

/// `, as an approval` for a verdict (or an event of one) that says it attests an approval.
pub(super) fn as_approval(meaning: Option<Meaning>) -> &'static str {
    match meaning {
        Some(Meaning::Approval) => ", as an approval",
        _ => "",
    }
}

/// An engineer's verdict a sync took from an item file: the line that names it in the report,
/// and what it is ([`VerdictSaid`]).
#[derive(Debug, PartialEq)]
pub struct Arrived {
    pub line: String,
    pub said: VerdictSaid,
}

/// Which verdict was given on which requirement of which decision, by whom and through which
/// channel: what an item file's verdict and a history event of that verdict both say (their
/// times may differ: the event is dated by the write). `(decision, requirement, judgement,
/// channel, author)`.
pub type VerdictSaid = (String, String, String, String, Option<String>);

/// The engineer's verdicts `after` holds that no version of `known` holds on the same
/// requirement: what a sync takes from the folder on the folder's word alone (it is unsigned),
/// one line each, naming the decision, the requirement and who gave it, for the report.
pub fn arrived_verdicts(known: &[&Item], after: &Item) -> Vec<Arrived> {
    let Item::Decision(d) = after else {
        return Vec::new();
    };
    d.basis
        .iter()
        .filter_map(|item| {
            let v = item.verdict.as_ref().filter(|v| v.via.is_engineer())?;
            let held = known.iter().any(|k| match k {
                Item::Decision(k) => k
                    .basis
                    .iter()
                    .any(|b| b.requirement == item.requirement && b.verdict.as_ref() == Some(v)),
                Item::Record(_) => false,
            });
            (!held).then(|| Arrived {
                line: format!(
                    "decision {} {}: {}",
                    d.id,
                    shown(&item.requirement),
                    describe(v)
                ),
                said: (
                    d.id.clone(),
                    item.requirement.clone(),
                    v.judgement.as_str().to_string(),
                    v.via.as_str().to_string(),
                    v.author.clone(),
                ),
            })
        })
        .collect()
}

/// Settles two versions of one item that both changed (the ids and kinds agree), naming both
/// in the report.
pub fn both_changed(
    base: Option<&Item>,
    ours: Side<'_>,
    theirs: Side<'_>,
    ours_text: &str,
    theirs_text: &str,
    copied: CopyKnown<'_>,
) -> Resolved {
    if let Some(r) = carried_past(base, ours, theirs, copied) {
        return r;
    }
    let ours_wins = (ours.item.updated_at(), ours_text) > (theirs.item.updated_at(), theirs_text);
    let (winner, loser) = if ours_wins {
        (ours, theirs)
    } else {
        (theirs, ours)
    };
    let mut notes = Vec::new();
    let item = match (winner.item, loser.item) {
        (Item::Decision(w), Item::Decision(l)) => {
            let base = match base {
                Some(Item::Decision(b)) => Some(b),
                _ => None,
            };
            let merged = carry_verdicts(base, w, l, (winner.name, loser.name), &mut notes);
            Item::Decision(dated_after(merged, w))
        }
        (w, _) => w.clone(),
    };
    let item = keep_superseded(item, loser, &mut notes);
    let item = keep_reverify_of(item, loser, &mut notes);
    // Equal times are settled by the text, the same way in every clone: not "the later".
    let why = match ours.item.updated_at() == theirs.item.updated_at() {
        true => "same time: the one every clone keeps",
        false => "the later",
    };
    let report = format!(
        "{} {} changed on both sides: {} version of {}{}, {} version of {}{}; kept the {} version ({why})",
        ours.item.kind().as_str(),
        ours.item.id(),
        ours.name,
        ours.item.updated_at(),
        author_of(ours.item),
        theirs.name,
        theirs.item.updated_at(),
        author_of(theirs.item),
        winner.name,
    );
    Resolved::conflict(item, report, notes)
}

/// A feature one side carried on to another revision while the other side, which had not seen
/// the carry, stated it again at the revision it was carried from: the carry stands whatever
/// the times (the later statement would move the feature back, and the carried revision would
/// lose it), and the statement is handed back as [`Resolved::stayed`], to be kept as what its
/// revision says of the feature. `None`: not such a pair. A feature stated again after its
/// carry no longer has the carry's mark: then a superseded copy of it known at the other
/// side's revision (`copied`) says that revision was carried past.
fn carried_past(
    base: Option<&Item>,
    ours: Side<'_>,
    theirs: Side<'_>,
    copied: CopyKnown<'_>,
) -> Option<Resolved> {
    let (Item::Record(o), Item::Record(t)) = (ours.item, theirs.item) else {
        return None;
    };
    let base = match base {
        Some(Item::Record(b)) => Some(b.artifact.revision.as_str()),
        _ => None,
    };
    let past = |onward: &Record, stayed: &Record| {
        onward.carried_past(stayed, base) || (elsewhere(onward, stayed) && copied(stayed))
    };
    // Both may claim the other's revision carried past: one side moved the feature back from
    // the base's revision and carried it on, while the other carried that very carry on
    // further, to the base's revision, its mark still naming the first carry's revision
    // (carried on unchanged). The base alone says nothing of a carry; a superseded copy (or a
    // `carried` event) of the feature known at one side's revision says that revision was
    // carried past: the later carry is kept, and every clone ends where it put the feature.
    let known_past = |onward: &Record, stayed: &Record| elsewhere(onward, stayed) && copied(stayed);
    let ours_onward = match (past(o, t), past(t, o)) {
        // The claim a copy alone backs wins. When both are backed (or neither), nothing tells
        // the carries apart: the later stands, the revision settling equal times, so every
        // clone picks the same side (ours first, each clone would keep its own for good).
        (true, true) => match (known_past(o, t), known_past(t, o)) {
            (true, false) => true,
            (false, true) => false,
            _ => {
                (o.updated_at.as_str(), o.artifact.revision.as_str())
                    > (t.updated_at.as_str(), t.artifact.revision.as_str())
            }
        },
        (true, false) => true,
        (false, true) => false,
        (false, false) => return None,
    };
    let (onward, stayed, kept, other) = if ours_onward {
        (o, t, ours, theirs)
    } else {
        (t, o, theirs, ours)
    };
    let report = format!(
        "record {} changed on both sides: the {} version carried it to revision {}, the {} \
         version (of {}{}) states it again at revision {}, which that carry superseded; kept \
         the {} version (a carried feature never moves back), and the {} version's statement \
         as what revision {} says of it (superseded)",
        o.id,
        kept.name,
        onward.artifact.revision,
        other.name,
        stayed.updated_at,
        author_of(other.item),
        stayed.artifact.revision,
        kept.name,
        other.name,
        stayed.artifact.revision,
    );
    Some(Resolved {
        item: kept.item.clone(),
        conflict: Some(report),
        notes: Vec::new(),
        stayed: Some(stayed.clone()),
    })
}

/// Whether `stayed` states the feature `onward` is (its id, both named and live) at another
/// revision: with a superseded copy of it known there ([`CopyKnown`]), a statement of what
/// that revision says, not a move of the feature. Not when `stayed` is itself a carry of the
/// feature from `onward`'s revision (its mark names it): a carry moves the feature on from
/// where the other side has it, whatever a copy there says (one of another feature of that
/// name, carried past that revision and replaced on the key by this one, seed 6057).
pub fn elsewhere(onward: &Record, stayed: &Record) -> bool {
    onward.id == stayed.id
        && onward.name.is_some()
        && stayed.name.is_some()
        && onward.superseded.is_none()
        && stayed.superseded.is_none()
        && onward.artifact.revision != stayed.artifact.revision
        && !stayed.carried_past(onward, None)
}

/// A revision carried on stays carried on: the winner of a merge keeps the loser's
/// `superseded` mark when it has none (a verdict given at the old revision in one clone while
/// another carried it to the next must not make the old revision live again, its decisions
/// rivals of the carried ones).
fn keep_superseded(mut item: Item, loser: Side<'_>, notes: &mut Vec<String>) -> Item {
    let mark = match (&mut item, loser.item) {
        (Item::Decision(w), Item::Decision(l)) if w.superseded.is_none() => {
            w.superseded.clone_from(&l.superseded);
            l.superseded.as_ref()
        }
        (Item::Record(w), Item::Record(l)) if w.superseded.is_none() => {
            w.superseded.clone_from(&l.superseded);
            l.superseded.as_ref()
        }
        _ => None,
    };
    if let Some(m) = mark {
        notes.push(format!(
            "kept the {} version's mark: superseded by revision {}",
            loser.name, m.by
        ));
    }
    item
}

/// What a change touched stays to re-verify ([`keep_reverify`]): said in the report.
fn keep_reverify_of(mut item: Item, loser: Side<'_>, notes: &mut Vec<String>) -> Item {
    if let (Item::Decision(w), Item::Decision(l)) = (&mut item, loser.item) {
        let kept = keep_reverify(w, l);
        if kept > 0 {
            notes.push(format!(
                "kept the {} version's {kept} item{} to re-verify",
                loser.name,
                if kept == 1 { "" } else { "s" }
            ));
        }
    }
    item
}

/// Who wrote a version, for the report: " by NAME" when it carries an author, and for a
/// decision whose latest verdict someone else gave (the change that made this version, as a
/// rule), " (last verdict by NAME)": the decision's author is who last stated it, not who
/// judged it.
fn author_of(item: &Item) -> String {
    let (author, last_verdict) = match item {
        Item::Record(r) => (r.author.as_deref(), None),
        Item::Decision(d) => (
            d.author.as_deref(),
            d.basis
                .iter()
                .filter_map(|b| b.verdict.as_ref())
                .max_by(|a, b| a.at.cmp(&b.at))
                .and_then(|v| v.author.as_deref()),
        ),
    };
    let mut said = author
        .map(|a| format!(" by {}", crate::text::who(a, AUTHOR_SHOWN)))
        .unwrap_or_default();
    if let Some(v) = last_verdict.filter(|v| Some(*v) != author) {
        said.push_str(&format!(
            " (last verdict by {})",
            crate::text::who(v, AUTHOR_SHOWN)
        ));
    }
    said
}

/// The winner's decision with the loser's engineer verdicts carried over (module docs).
/// `merged`, a version of `taken` that holds engineer verdicts `taken` lacks, dated a
/// millisecond after it: two different versions of one decision never share an
/// `updated_at`, so an `import` (where an equal time keeps the database's version) of the
/// merged version into a database holding `taken` takes the verdicts. The time depends on
/// the two versions alone, so every clone that merges them writes the same version.
fn dated_after(mut merged: Decision, taken: &Decision) -> Decision {
    if merged.basis != taken.basis {
        merged.updated_at = crate::time::millisecond_after(&taken.updated_at);
    }
    merged
}

fn carry_verdicts(
    base: Option<&Decision>,
    winner: &Decision,
    loser: &Decision,
    (winner_name, loser_name): (&str, &str),
    notes: &mut Vec<String>,
) -> Decision {
    let mut out = winner.clone();
    let pairs = pair_by_requirement(&loser.basis, &out.basis);
    let mut used = vec![false; loser.basis.len()];
    for (item, pair) in out.basis.iter_mut().zip(pairs) {
        let Some(j) = pair else { continue };
        if let Some(u) = used.get_mut(j) {
            *u = true;
        }
        let Some(theirs) = loser.basis.get(j).and_then(|b| b.verdict.as_ref()) else {
            continue;
        };
        if !theirs.via.is_engineer() {
            continue;
        }
        // The rule of the tools, then between two engineer verdicts the later.
        let rival = item
            .verdict
            .as_ref()
            .filter(|mine| mine.via.is_engineer() && *mine != theirs);
        let take = outranks(Some(theirs), item.verdict.as_ref())
            || rival.is_some_and(|mine| theirs.at > mine.at);
        // Two engineer verdicts: the one replaced is named with the one kept, whichever
        // version held it (the engineer's own verdict is never dropped without a word).
        let replaced = |kept: &Verdict, gone: &Verdict, gone_version: &str| {
            format!(
                "the {gone_version} version's engineer verdict on {} ({}) replaced by {} ({})",
                shown(&item.requirement),
                describe(gone),
                describe(kept),
                match kept.at == gone.at {
                    true => "same time: the kept version's",
                    false => "the later",
                }
            )
        };
        if take {
            notes.push(match rival {
                Some(mine) => replaced(theirs, mine, winner_name),
                None => format!(
                    "the engineer's verdict on {} kept from the {loser_name} version",
                    shown(&item.requirement)
                ),
            });
            item.verdict = Some(theirs.clone());
            // Judged at its own revision: no longer carried (as `record_verdict` does).
            item.judged_here();
        } else if let Some(mine) = rival {
            notes.push(replaced(mine, theirs, loser_name));
        }
    }
    for (j, item) in loser.basis.iter().enumerate() {
        if used.get(j).copied().unwrap_or(true) {
            continue;
        }
        let Some(v) = item.verdict.as_ref().filter(|v| v.via.is_engineer()) else {
            continue;
        };
        let known = base.is_some_and(|b| {
            b.basis.iter().any(|bi: &BasisItem| {
                bi.requirement == item.requirement && bi.verdict.as_ref() == Some(v)
            })
        });
        if known {
            notes.push(format!(
                "the engineer's verdict on {} went with its item, which the later version removed",
                shown(&item.requirement)
            ));
        } else {
            out.basis.push(item.clone());
            notes.push(format!(
                "the {loser_name} version's item {} kept for its engineer verdict",
                shown(&item.requirement)
            ));
        }
    }
    // An engineer's verdict of the base that both sides replaced by the assistant's (or by
    // none) stands too: the rule holds whichever side a version comes from.
    if let Some(base) = base {
        for k in keep_engineer_verdicts(&base.basis, &mut out.basis) {
            notes.push(format!(
                "the engineer's verdict on {} ({}) kept from the base: both versions replaced it",
                shown(&k.requirement),
                describe(&k.verdict)
            ));
        }
    }
    out.recount_carried(winner);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::{Judgement, Verdict, Via};
    use crate::store::fixtures::{self, REV, T1, T2, T3};

    fn item(requirement: &str, verdict: Option<(Judgement, Via, &str)>) -> BasisItem {
        BasisItem {
            verdict: verdict.map(|(judgement, via, at)| Verdict {
                at: at.into(),
                ..Verdict::given(judgement, via)
            }),
            ..BasisItem::stated(requirement)
        }
    }

    fn decision(updated: &str, disposition: &str, basis: Vec<BasisItem>) -> Item {
        Item::Decision(fixtures::decision("bracket", updated, disposition, basis))
    }

    fn basis(i: &Item) -> &[BasisItem] {
        match i {
            Item::Decision(d) => &d.basis,
            Item::Record(_) => &[],
        }
    }

    /// The mark of a feature's carry from revision `from`, inherited unchanged.
    fn carry_mark(from: &str) -> crate::review::carry::Carried {
        crate::review::carry::Carried {
            changed: vec![],
            from: from.into(),
            ids_of: None,
            state: crate::review::carry::CarryState::Inherited,
            unmapped: vec![],
            verdict: None,
        }
    }

    /// Regression (found by an audit): one clone carried the feature "mating" from revision
    /// A (face:3) to B (face:13); another, which had not seen the carry, stated it again at A
    /// later. The later version won the merge: the feature moved back to A and B lost it.
    /// Now the carried version is kept, whichever side and whatever the times, and the
    /// statement at A is handed back to be kept as what A says of the feature, with the mark
    /// of the carry's copy and its text, in every order of meeting them.
    #[test]
    fn a_carried_feature_is_not_moved_back_by_a_later_statement_at_its_old_revision() {
        use crate::review::carry::{Carried, CarryState, Superseded};
        let b_rev = format!("sha256:{}", "b".repeat(64));
        let at_a = |updated: &str, note: &str| Record {
            entity_ids: vec!["face:3".into()],
            note: Some(note.into()),
            ..fixtures::feature("rec_1", "mating", updated)
        };
        let base = at_a(T1, "original");
        let mut carried = Record {
            entity_ids: vec!["face:13".into()],
            carried: Some(Carried {
                changed: vec![],
                from: REV.into(),
                ids_of: None,
                state: CarryState::Inherited,
                unmapped: vec![],
                verdict: None,
            }),
            ..at_a(T2, "original")
        };
        carried.artifact.revision.clone_from(&b_rev);
        let edited = at_a(T3, "edited at A");
        let (b, c, e) = (
            Item::Record(base.clone()),
            Item::Record(carried.clone()),
            Item::Record(edited.clone()),
        );
        for (ours, theirs) in [(&e, &c), (&c, &e)] {
            for base in [Some(&b), None] {
                let r = resolve(base, side(ours, "ours"), side(theirs, "theirs")).unwrap();
                assert_eq!(r.item, c, "the carry stands");
                assert_eq!(
                    r.stayed.as_ref(),
                    Some(&edited),
                    "the statement at A is kept"
                );
                let report = r.conflict.unwrap();
                assert!(report.contains("never moves back"), "{report}");
            }
        }
        // Kept as what A says: the carry's copy (its id, mark and creation) with the text of
        // the statement, dated the later; the same whichever copy is met first.
        let copy = Record {
            id: Record::snapshot_id("rec_1", REV),
            superseded: Some(Superseded {
                at: T2.into(),
                by: b_rev.clone(),
                change: Some("ECO-1".into()),
            }),
            updated_at: T2.into(),
            ..base.clone()
        };
        let kept = Record::stated_before_carry(&edited, &carried, Some(&copy)).unwrap();
        assert_eq!(
            kept,
            Record {
                note: Some("edited at A".into()),
                updated_at: T3.into(),
                ..copy.clone()
            }
        );
        assert_eq!(
            Record::stated_before_carry(&edited, &carried, Some(&kept)),
            Some(kept)
        );
        let alone = Record::stated_before_carry(&edited, &carried, None).unwrap();
        assert_eq!(
            (alone.id.as_str(), alone.superseded.map(|m| m.by)),
            (copy.id.as_str(), Some(b_rev))
        );
        // Not such a pair: a version carried elsewhere from another revision, or the same
        // revision on both sides, is merged by time as before.
        let same_rev = Item::Record(at_a(T2, "other"));
        let r = resolve(Some(&b), side(&e, "ours"), side(&same_rev, "theirs")).unwrap();
        assert_eq!((r.item, r.stayed), (e.clone(), None));
    }

    /// A feature `carry_forward` moved on to a file renamed for the next revision (its uri,
    /// so its key, moved; its id kept) is a version of the feature at the old file when its
    /// mark names the old version's revision (or that version's own origin, carried on
    /// unchanged); the same move without such a mark (a hand-edited uri, a re-keyed id), a
    /// mark naming another revision, another name, or an old version superseded, is refused
    /// as ever.
    #[test]
    fn a_carry_to_a_renamed_file_is_a_version_and_a_move_without_one_is_refused() {
        use crate::review::carry::Superseded;
        let b_rev = format!("sha256:{}", "b".repeat(64));
        let other_rev = format!("sha256:{}", "c".repeat(64));
        let at_a = fixtures::feature("rec_1", "bore", T1);
        let mut moved = Record {
            carried: Some(carry_mark(REV)),
            ..fixtures::feature("rec_1", "bore", T2)
        };
        moved.artifact.revision.clone_from(&b_rev);
        moved.artifact.uri = Some("file:///w/p_revB.step".into());
        assert_ne!(
            key_of(&Item::Record(moved.clone())),
            key_of(&Item::Record(at_a.clone()))
        );
        let (a, m) = (Item::Record(at_a.clone()), Item::Record(moved.clone()));
        assert_eq!(
            moved_key(side(&m, "folder"), side(&a, "database"), &|_| None),
            None
        );
        assert_eq!(
            moved_key(side(&a, "folder"), side(&m, "database"), &|_| None),
            None
        );
        // The base at the old file is the ancestor whichever side carried: the carry is
        // taken as a change of one side, no conflict.
        for (ours, theirs) in [(&a, &m), (&m, &a)] {
            let r = resolve(Some(&a), side(ours, "ours"), side(theirs, "theirs")).unwrap();
            assert_eq!(
                (r.item, r.conflict),
                (m.clone(), None),
                "the carry is taken"
            );
        }
        // Carried on unchanged: the old version is itself carried from the mark's revision.
        let mut origin_kept = at_a.clone();
        origin_kept.carried = Some(carry_mark(&other_rev));
        let mut further = moved.clone();
        further.carried = Some(carry_mark(&other_rev));
        let (o, f) = (Item::Record(origin_kept), Item::Record(further));
        assert_eq!(
            moved_key(side(&f, "folder"), side(&o, "database"), &|_| None),
            None
        );
        let refused = |bad: Record| {
            let bad = Item::Record(bad);
            moved_key(side(&bad, "folder"), side(&a, "database"), &|_| None)
                .is_some_and(|why| why.contains("an id names one record"))
        };
        assert!(
            refused(Record {
                carried: None,
                ..moved.clone()
            }),
            "no mark"
        );
        assert!(
            refused(Record {
                carried: Some(carry_mark(&other_rev)),
                ..moved.clone()
            }),
            "another revision"
        );
        assert!(
            refused(Record {
                name: Some("slot".into()),
                ..moved.clone()
            }),
            "another name"
        );
        let superseded = Some(Superseded {
            at: T2.into(),
            by: b_rev.clone(),
            change: None,
        });
        assert!(
            refused(Record {
                superseded,
                ..moved.clone()
            }),
            "superseded"
        );
        assert!(
            resolve(
                Some(&a),
                side(&a, "ours"),
                side(
                    &Item::Record(Record {
                        carried: None,
                        ..moved
                    }),
                    "theirs"
                )
            )
            .is_err(),
            "a hand-moved key is refused by the merge"
        );
    }

    /// [`asks_carries`], the rule sync reads the chain of carries by in a conflict: the
    /// answer with the chain (A to B, B to C, files renamed per revision) is the answer
    /// without it wherever it says "no", and it says "yes" where the chain changes the answer:
    /// the two sides a chain apart, or a base a chain away from both sides.
    #[test]
    fn asks_carries_only_where_the_chain_of_carries_changes_the_merge() {
        let rev = |c: &str| format!("sha256:{}", c.repeat(64));
        let (b_rev, c_rev) = (rev("b"), rev("c"));
        let at = |revision: &str, file: &str, from: Option<&str>, t: &str, note: &str| {
            let mut r = Record {
                carried: from.map(carry_mark),
                note: Some(note.into()),
                ..fixtures::feature("rec_1", "bore", t)
            };
            r.artifact.revision = revision.into();
            r.artifact.uri = Some(format!("file:///w/{file}"));
            Item::Record(r)
        };
        let links = [
            (REV.to_string(), b_rev.clone()),
            (b_rev.clone(), c_rev.clone()),
        ];
        let chain = Record::carried_on_in(&links);
        let merged = |base: &Item, ours: &Item, theirs: &Item, on: CarriedOn<'_>| {
            resolve_knowing(
                Some(base),
                side(ours, "database"),
                side(theirs, "folder"),
                &|_| false,
                on,
            )
        };
        let at_a = at(REV, "p.step", None, T1, "at A");
        let c_base = at(&c_rev, "p_revC.step", Some(&b_rev), T1, "at C");
        let (c_ours, c_theirs) = (
            at(&c_rev, "p_revC.step", Some(&b_rev), T2, "ours at C"),
            at(&c_rev, "p_revC.step", Some(&b_rev), T3, "theirs at C"),
        );
        // Both sides changed at C since a base at C: one item without the chain, and the merge
        // the same with it or without. A base at A, two carries back, is theirs by the chain.
        for base in [&c_base, &at_a] {
            let said = asks_carries(Some(base), side(&c_ours, "o"), side(&c_theirs, "t"));
            assert_eq!(said, base == &at_a, "base {base:?}");
            if !said {
                assert_eq!(
                    merged(base, &c_ours, &c_theirs, &chain),
                    merged(base, &c_ours, &c_theirs, &|_| None)
                );
            }
        }
        // A restated at A, the folder's at C: only the chain makes them one feature.
        let a_ours = at(REV, "p.step", None, T2, "ours at A");
        assert!(asks_carries(
            Some(&at_a),
            side(&a_ours, "o"),
            side(&c_theirs, "t")
        ));
        assert!(merged(&at_a, &a_ours, &c_theirs, &chain).is_ok());
        assert!(merged(&at_a, &a_ours, &c_theirs, &|_| None).is_err());
        // Both sides at A, the base at C: one item, but only the chain makes the base theirs
        // (the merge keeps or drops it by that).
        let a_theirs = at(REV, "p.step", None, T3, "theirs at A");
        assert!(one_key(&a_ours, &a_theirs, &|_| None));
        assert!(one_key(&c_base, &a_ours, &chain) && !one_key(&c_base, &a_ours, &|_| None));
        assert!(asks_carries(
            Some(&c_base),
            side(&a_ours, "o"),
            side(&a_theirs, "t")
        ));
    }

    #[test]
    fn resolve_one_side_unchanged_takes_the_other_without_conflict() {
        let base = decision(T1, "hold", vec![item("Bore", None)]);
        let changed = decision(T2, "release", vec![item("Bore", None)]);
        let r = resolve(Some(&base), side(&base, "ours"), side(&changed, "theirs")).unwrap();
        assert_eq!((r.item, r.conflict), (changed.clone(), None));
        let r = resolve(Some(&base), side(&changed, "ours"), side(&base, "theirs")).unwrap();
        assert_eq!((r.item, r.conflict), (changed, None));
    }

    #[test]
    fn resolve_later_assistant_edit_keeps_the_engineers_verdict() {
        let base = decision(T1, "hold", vec![item("Bore", None), item("Flatness", None)]);
        let engineer = decision(
            T2,
            "hold",
            vec![
                item("Bore", Some((Judgement::Rejected, Via::Elicitation, T2))),
                item("Flatness", None),
            ],
        );
        let assistant = decision(
            T3,
            "release",
            vec![
                item("Bore", Some((Judgement::Accepted, Via::Assistant, T3))),
                item("Flatness", None),
            ],
        );
        for (ours, theirs) in [(&engineer, &assistant), (&assistant, &engineer)] {
            let r = resolve(Some(&base), side(ours, "ours"), side(theirs, "theirs")).unwrap();
            let Item::Decision(d) = &r.item else { panic!() };
            assert_eq!(d.disposition, "release", "the later version wins");
            let v = d.basis[0].verdict.as_ref().unwrap();
            assert_eq!(
                (v.judgement, v.via),
                (Judgement::Rejected, Via::Elicitation)
            );
            let report = r.conflict.unwrap();
            assert!(report.contains("changed on both sides"), "{report}");
            assert!(
                report.contains("engineer's verdict on \"Bore\""),
                "{report}"
            );
        }
    }

    /// Regression (issue 23, item 5): a version changed on one side only that turns the
    /// engineer's rejection into the assistant's acceptance keeps the engineer's verdict and is
    /// a conflict, whichever side changed; an engineer's new verdict replaces it silently.
    #[test]
    fn resolve_one_sided_change_never_lets_the_assistant_replace_the_engineer() {
        let base = decision(
            T1,
            "hold",
            vec![item("Bore", Some((Judgement::Rejected, Via::App, T1)))],
        );
        let assistant = decision(
            T2,
            "release",
            vec![item(
                "Bore",
                Some((Judgement::Accepted, Via::Assistant, T2)),
            )],
        );
        let none = decision(T2, "release", vec![item("Bore", None)]);
        for changed in [&assistant, &none] {
            for r in [
                resolve(Some(&base), side(&base, "ours"), side(changed, "theirs")).unwrap(),
                resolve(Some(&base), side(changed, "ours"), side(&base, "theirs")).unwrap(),
            ] {
                let Item::Decision(d) = &r.item else { panic!() };
                assert_eq!(d.disposition, "release", "the rest of the change is taken");
                let v = d.basis[0].verdict.as_ref().unwrap();
                assert_eq!((v.judgement, v.via), (Judgement::Rejected, Via::App));
                let report = r.conflict.unwrap();
                assert!(
                    report.contains("never replaces an engineer's")
                        && report.contains("\"Bore\" (rejected via app"),
                    "{report}"
                );
            }
        }
        let engineer = decision(
            T2,
            "release",
            vec![item(
                "Bore",
                Some((Judgement::Accepted, Via::Elicitation, T2)),
            )],
        );
        let r = resolve(Some(&base), side(&base, "ours"), side(&engineer, "theirs")).unwrap();
        assert_eq!((r.item, r.conflict), (engineer, None));
    }

    /// Both sides replaced the base's engineer verdict by the assistant's: it stands.
    #[test]
    fn resolve_both_sides_replacing_the_engineer_keeps_the_base_verdict() {
        let base = decision(
            T1,
            "hold",
            vec![item(
                "Bore",
                Some((Judgement::Rejected, Via::Elicitation, T1)),
            )],
        );
        let a = decision(
            T2,
            "release",
            vec![item(
                "Bore",
                Some((Judgement::Accepted, Via::Assistant, T2)),
            )],
        );
        let b = decision(T3, "rework", vec![item("Bore", None)]);
        let r = resolve(Some(&base), side(&a, "ours"), side(&b, "theirs")).unwrap();
        let v = basis(&r.item)[0].verdict.clone().unwrap();
        assert_eq!(
            (v.judgement, v.via),
            (Judgement::Rejected, Via::Elicitation)
        );
        assert!(r.conflict.unwrap().contains("kept from the base"));
    }

    /// Regression (seed 16355 of the sync sweep): `git pull --rebase` paired the file of one
    /// decision (revision 1, since replaced under another id by `import`) with another's
    /// (revision 2) as a rename, and handed it to merge-file as the base of the second one's
    /// merge. Its engineer verdict, which both versions lacked, was "kept from the base" onto
    /// the other decision's item. A base that is another item is no ancestor: ignored.
    #[test]
    fn a_base_that_is_another_item_gives_the_merge_nothing() {
        let other = match decision(
            T1,
            "hold",
            vec![item(
                "Bore",
                Some((Judgement::Rejected, Via::Elicitation, T1)),
            )],
        ) {
            Item::Decision(mut d) => {
                d.id = "dec_0000000000000001".into();
                Item::Decision(d)
            }
            i => i,
        };
        let a = decision(T2, "release", vec![item("Bore", None)]);
        let b = decision(T3, "rework", vec![item("Bore", None)]);
        assert_ne!(other.id(), a.id());
        for (x, y) in [(&a, &b), (&b, &a)] {
            let r = resolve(Some(&other), side(x, "ours"), side(y, "theirs")).unwrap();
            assert_eq!(basis(&r.item)[0].verdict, None, "{:?}", r.conflict);
            assert!(!r.conflict.unwrap_or_default().contains("from the base"));
        }
    }

    /// Regression (found by an adversarial pass on merge-file): a base of this id under
    /// another key is another item too. Forgotten in two clones, the id was imported again in
    /// each for another subject (an export line whose subject was corrected by hand), and
    /// `git pull` handed merge-file the forgotten decision as the base of the new one's merge:
    /// the engineer's verdict given on the forgotten "bracket" was "kept from the base" onto
    /// "lever". Another subject, part or revision is no ancestor either.
    #[test]
    fn a_base_of_this_id_under_another_key_gives_the_merge_nothing() {
        let moved = |i: Item, how: &dyn Fn(&mut Decision)| match i {
            Item::Decision(mut d) => {
                how(&mut d);
                Item::Decision(d)
            }
            i => i,
        };
        let judged = || {
            decision(
                T1,
                "hold",
                vec![item(
                    "Bore",
                    Some((Judgement::Rejected, Via::Elicitation, T1)),
                )],
            )
        };
        let lever = |d: &mut Decision| d.subject = "lever".into();
        let a = moved(decision(T2, "release", vec![item("Bore", None)]), &lever);
        let b = moved(decision(T3, "rework", vec![item("Bore", None)]), &lever);
        let bases = [
            judged(),
            moved(judged(), &|d| {
                d.subject = "lever".into();
                d.artifact.revision = format!("sha256:{}", "b".repeat(64));
            }),
            moved(judged(), &|d| {
                d.subject = "lever".into();
                d.artifact.uri = Some("file:///w/other.step".into());
            }),
        ];
        for base in &bases {
            assert_eq!(base.id(), a.id());
            for (x, y) in [(&a, &b), (&b, &a)] {
                let r = resolve(Some(base), side(x, "ours"), side(y, "theirs")).unwrap();
                assert_eq!(basis(&r.item)[0].verdict, None, "{:?}", r.conflict);
                assert!(!r.conflict.unwrap_or_default().contains("from the base"));
            }
        }
        // The same key: the base is the ancestor, and its engineer verdict stands.
        let base = moved(judged(), &lever);
        let r = resolve(Some(&base), side(&a, "ours"), side(&b, "theirs")).unwrap();
        assert!(basis(&r.item)[0].verdict.is_some(), "{:?}", r.conflict);
    }

    /// Regression: a conflict named a decision's version "by" the decision's author even when
    /// that version was an engineer's verdict given by someone else ("theirs version of T3 by
    /// Nina" for Brook's reject). The report now also names the last verdict's author.
    #[test]
    fn a_conflict_names_who_gave_the_last_verdict_of_each_version() {
        let by = |d: Item, author: &str, verdict_by: Option<&str>| match d {
            Item::Decision(mut d) => {
                d.author = Some(author.into());
                if let (Some(b), Some(v)) = (d.basis.first_mut(), verdict_by)
                    && let Some(verdict) = b.verdict.as_mut()
                {
                    verdict.author = Some(v.into());
                }
                Item::Decision(d)
            }
            record => record,
        };
        let base = by(decision(T1, "hold", vec![item("Bore", None)]), "Nina", None);
        let ours = by(
            decision(T2, "release", vec![item("Bore", None)]),
            "Nina",
            None,
        );
        let theirs = by(
            decision(
                T3,
                "hold",
                vec![item("Bore", Some((Judgement::Rejected, Via::Terminal, T3)))],
            ),
            "Nina",
            Some("Brook"),
        );
        let r = resolve(Some(&base), side(&ours, "ours"), side(&theirs, "theirs")).unwrap();
        let report = r.conflict.unwrap_or_default();
        assert!(
            report.contains(&format!("ours version of {T2} by Nina,"))
                && report.contains(&format!(
                    "theirs version of {T3} by Nina (last verdict by Brook);"
                )),
            "{report}"
        );
    }

    #[test]
    fn arrived_verdicts_names_each_engineer_verdict_not_held_before() {
        let mut v = Verdict {
            meaning: None,
            author: Some("Ada".into()),
            at: T2.into(),
            judgement: Judgement::Rejected,
            reason: None,
            via: Via::App,
        };
        let with = |v: &Verdict| {
            let mut b = item("Bore", None);
            b.verdict = Some(v.clone());
            decision(
                T2,
                "hold",
                vec![
                    b,
                    item("Wall", Some((Judgement::Accepted, Via::Assistant, T2))),
                ],
            )
        };
        let after = with(&v);
        let lines: Vec<String> = arrived_verdicts(&[], &after)
            .into_iter()
            .map(|a| a.line)
            .collect();
        assert_eq!(
            lines,
            [format!(
                "decision dec_1 \"Bore\": rejected via app by Ada at {T2}"
            )]
        );
        assert!(
            arrived_verdicts(&[&after], &after).is_empty(),
            "held already"
        );
        // A verdict that says it attests an approval is named so: the claim the reviewer of
        // an unsigned folder checks.
        let mut approval = v.clone();
        approval.meaning = Some(Meaning::Approval);
        assert_eq!(
            arrived_verdicts(&[], &with(&approval))
                .into_iter()
                .map(|a| a.line)
                .collect::<Vec<_>>(),
            [format!(
                "decision dec_1 \"Bore\": rejected via app by Ada at {T2}, as an approval"
            )]
        );
        v.author = Some("Bob".into());
        let before = with(&v);
        assert_eq!(
            arrived_verdicts(&[&before], &after).len(),
            1,
            "another author is news"
        );
    }

    /// A conflict names who wrote each version, when they carry an author.
    #[test]
    fn resolve_conflict_names_each_versions_author() {
        let base = decision(T1, "hold", vec![]);
        let mut ours = decision(T2, "hold", vec![]);
        let mut theirs = decision(T3, "release", vec![]);
        if let (Item::Decision(o), Item::Decision(t)) = (&mut ours, &mut theirs) {
            o.author = Some("Ada".into());
            t.author = Some("Bob".into());
        }
        let r = resolve(Some(&base), side(&ours, "ours"), side(&theirs, "theirs")).unwrap();
        let report = r.conflict.unwrap();
        assert!(report.contains(&format!("{T2} by Ada")), "{report}");
        assert!(report.contains(&format!("{T3} by Bob")), "{report}");
    }

    #[test]
    fn resolve_engineer_verdict_on_an_item_the_winner_lacks_is_appended() {
        let base = decision(T1, "hold", vec![item("Bore", None)]);
        let engineer = decision(
            T2,
            "hold",
            vec![
                item("Bore", None),
                item("Thread", Some((Judgement::Accepted, Via::App, T2))),
            ],
        );
        let other = decision(T3, "release", vec![item("Bore", None)]);
        let r = resolve(Some(&base), side(&other, "ours"), side(&engineer, "theirs")).unwrap();
        let reqs: Vec<&str> = basis(&r.item)
            .iter()
            .map(|b| b.requirement.as_str())
            .collect();
        assert_eq!(reqs, ["Bore", "Thread"]);
        // The same verdict already in the base: the later version's removal stands.
        let r = resolve(
            Some(&engineer),
            side(&other, "ours"),
            side(&engineer, "theirs"),
        )
        .unwrap();
        assert_eq!(r.item, other);
    }

    #[test]
    fn resolve_picks_the_same_winner_from_either_side() {
        let a = decision(T2, "hold", vec![item("Bore", None)]);
        let b = decision(T2, "release", vec![item("Bore", None)]);
        let ab = resolve(None, side(&a, "ours"), side(&b, "theirs")).unwrap();
        let ba = resolve(None, side(&b, "ours"), side(&a, "theirs")).unwrap();
        assert_eq!(ab.item, ba.item);
        assert!(ab.conflict.is_some() && ba.conflict.is_some());
        // Equal times: the report does not call the kept version "the later" (it is not).
        let report = ab.conflict.unwrap();
        assert!(
            report.ends_with("version (same time: the one every clone keeps)"),
            "{report}"
        );
        let later = decision(T3, "release", vec![item("Bore", None)]);
        let r = resolve(None, side(&a, "ours"), side(&later, "theirs")).unwrap();
        assert!(
            r.conflict
                .unwrap()
                .ends_with("kept the theirs version (the later)")
        );
    }

    #[test]
    fn resolve_two_different_items_is_refused() {
        let a = decision(T2, "hold", vec![]);
        let mut b = a.clone();
        if let Item::Decision(d) = &mut b {
            d.id = "dec_2".into();
        }
        assert!(resolve(None, side(&a, "ours"), side(&b, "theirs")).is_err());
    }

    /// A carried item the engineer judged at the new revision on one side, while the other
    /// side changed the decision later: the merged item holds that verdict as this
    /// revision's, no longer marked carried (an item with both was shown as inherited, its
    /// verdict of this revision as the earlier revision's history).
    #[test]
    fn resolve_an_engineer_verdict_taken_into_a_carried_item_makes_it_fresh() {
        let base = decision(T1, "carried", vec![carried_bore()]);
        let judged = decision(
            T2,
            "carried",
            vec![item("Bore", Some((Judgement::Accepted, Via::App, T2)))],
        );
        let later = decision(T3, "hold", vec![carried_bore()]);
        for (ours, theirs) in [(&judged, &later), (&later, &judged)] {
            let r = resolve(Some(&base), side(ours, "ours"), side(theirs, "theirs")).unwrap();
            let b = &basis(&r.item)[0];
            assert_eq!(b.verdict.as_ref().map(|v| v.via), Some(Via::App));
            assert_eq!(b.carried, None, "judged at this revision: fresh");
        }
        // Changed on one side only: the same.
        let r = one_sided(Some(&judged), side(&later, "theirs"));
        let b = &basis(&r.item)[0];
        assert_eq!(b.verdict.as_ref().map(|v| v.via), Some(Via::App));
        assert_eq!(b.carried, None);
    }

    /// A basis item "Bore" carried from revision 1 (inherited), its evidence ("10.01
    /// measured") quoted there.
    fn carried_bore() -> BasisItem {
        use crate::review::{Carried, CarryState};
        BasisItem {
            evidence: Some("10.01 measured".into()),
            carried: Some(Carried {
                changed: vec![],
                from: REV.replace('0', "1"),
                ids_of: None,
                state: CarryState::Inherited,
                unmapped: vec![],
                verdict: None,
            }),
            ..item("Bore", None)
        }
    }

    /// The evidence of "Bore" as an engineer's verdict at the new revision makes it: said as
    /// revision 1's (see [`carried_bore`]).
    const BORE_EVIDENCE_THERE: &str = "at revision sha256:1123456789ab…: 10.01 measured";

    /// Regression: two clones each judged one carried item of a decision (the store labelled
    /// each judged item's evidence with the revision it was quoted at); the merge takes the
    /// earlier clone's verdict into the later version, where that item was still carried, and
    /// cleared its marker without the label: "10.01 measured" read as the new revision's
    /// result. It now says so as a verdict given here does ([`BasisItem::judged_here`]).
    #[test]
    fn resolve_labels_the_evidence_of_a_carried_item_it_takes_an_engineer_verdict_into() {
        let judged = |judgement| BasisItem {
            verdict: Some(Verdict {
                at: T2.into(),
                ..Verdict::given(judgement, Via::App)
            }),
            carried: None,
            evidence: Some(BORE_EVIDENCE_THERE.into()),
            ..carried_bore()
        };
        let wall = |v: Option<(Judgement, Via, &str)>| item("Wall", v);
        let base = decision(T1, "carried", vec![carried_bore(), wall(None)]);
        let bore_judged = decision(T2, "carried", vec![judged(Judgement::Accepted), wall(None)]);
        let wall_judged = decision(
            T3,
            "carried",
            vec![
                carried_bore(),
                wall(Some((Judgement::Accepted, Via::App, T3))),
            ],
        );
        for (ours, theirs) in [(&bore_judged, &wall_judged), (&wall_judged, &bore_judged)] {
            let r = resolve(Some(&base), side(ours, "ours"), side(theirs, "theirs")).unwrap();
            let b = &basis(&r.item)[0];
            assert_eq!(b.verdict.as_ref().map(|v| v.via), Some(Via::App));
            assert_eq!(b.carried, None);
            assert_eq!(b.evidence.as_deref(), Some(BORE_EVIDENCE_THERE));
        }
    }

    /// Regression: a version changed on one side only that holds an item still carried where
    /// the other held the engineer's verdict (and, when both sides changed, the base held
    /// it) takes that verdict back ([`keep_engineer_verdicts`]) and cleared the carried
    /// marker without labelling the evidence. Now labelled, as a verdict given here is.
    #[test]
    fn a_kept_engineer_verdict_labels_the_evidence_of_the_carried_item_it_lands_on() {
        let judged = decision(
            T2,
            "hold",
            vec![item("Bore", Some((Judgement::Accepted, Via::App, T2)))],
        );
        let carried = decision(T3, "carried", vec![carried_bore()]);
        let r = one_sided(Some(&judged), side(&carried, "theirs"));
        let b = &basis(&r.item)[0];
        assert_eq!(b.verdict.as_ref().map(|v| v.via), Some(Via::App));
        assert_eq!(b.carried, None);
        assert_eq!(b.evidence.as_deref(), Some(BORE_EVIDENCE_THERE));
        // Both sides replaced the base's verdict: the base's is kept, the same way.
        let other = decision(T2, "rework", vec![carried_bore()]);
        for (ours, theirs) in [(&carried, &other), (&other, &carried)] {
            let r = resolve(Some(&judged), side(ours, "ours"), side(theirs, "theirs")).unwrap();
            let b = &basis(&r.item)[0];
            assert_eq!(b.verdict.as_ref().map(|v| v.via), Some(Via::App));
            assert_eq!(b.evidence.as_deref(), Some(BORE_EVIDENCE_THERE));
        }
    }

    /// A decision carried from revision 1 whose items are `basis`, its disposition the one the
    /// carry writes, counting its items to re-verify ([`Decision::carried_disposition`]).
    fn carried_decision(updated: &str, basis: Vec<BasisItem>) -> Item {
        use crate::review::DecisionCarried;
        let mut d = fixtures::decision("bracket", updated, "", basis);
        let from = REV.replace('0', "1");
        d.disposition = d.carried_disposition(&from);
        d.carried = Some(DecisionCarried {
            change: None,
            disposition: "hold".into(),
            from,
            source: "dec_0".into(),
        });
        Item::Decision(d)
    }

    /// "Bore" carried to re-verify ([`carried_bore`], its state re-verify).
    fn reverify_bore() -> BasisItem {
        let mut b = carried_bore();
        if let Some(c) = b.carried.as_mut() {
            c.state = crate::review::CarryState::Reverify;
        }
        b
    }

    fn disposition(i: &Item) -> &str {
        match i {
            Item::Decision(d) => &d.disposition,
            Item::Record(_) => "",
        }
    }

    /// Regression: the store recounts a carried decision's disposition when the engineer's
    /// verdict lands on one of its items ("… 1 of 2 basis items to re-verify"), but a merge
    /// that took the other clone's verdict into a carried item left the count as it was, so
    /// the merged decision said "1 of 2" with none left to re-verify. Every order of the
    /// sides gives the same text (each clone computes the same file).
    #[test]
    fn a_merge_that_judges_a_carried_item_recounts_the_carried_disposition() {
        let wall = || BasisItem {
            requirement: "Wall".into(),
            ..reverify_bore()
        };
        let judged = |b: BasisItem, at: &str| BasisItem {
            verdict: Some(Verdict {
                at: at.into(),
                ..Verdict::given(Judgement::Accepted, Via::App)
            }),
            carried: None,
            ..b
        };
        let base = carried_decision(T1, vec![reverify_bore(), wall()]);
        let bore_judged = carried_decision(T2, vec![judged(reverify_bore(), T2), wall()]);
        let wall_judged = carried_decision(T3, vec![reverify_bore(), judged(wall(), T3)]);
        assert!(disposition(&wall_judged).ends_with("1 of 2 basis items to re-verify"));
        let mut texts = Vec::new();
        for (ours, theirs) in [(&bore_judged, &wall_judged), (&wall_judged, &bore_judged)] {
            let r = resolve(Some(&base), side(ours, "ours"), side(theirs, "theirs")).unwrap();
            assert!(
                disposition(&r.item).ends_with("0 of 2 basis items to re-verify"),
                "{}",
                disposition(&r.item)
            );
            texts.push(r.item.text());
        }
        assert_eq!(texts[0], texts[1], "both clones write the same file");
        // Changed on one side only, the kept engineer verdict recounts the same way.
        let later = carried_decision(T3, vec![reverify_bore(), wall()]);
        let r = one_sided(Some(&bore_judged), side(&later, "theirs"));
        assert!(
            disposition(&r.item).ends_with("1 of 2 basis items to re-verify"),
            "{}",
            disposition(&r.item)
        );
        // A disposition stated since (not the carry's) is left as it is.
        let mut restated = later.clone();
        if let Item::Decision(d) = &mut restated {
            d.disposition = "release".into();
        }
        let r = one_sided(Some(&bore_judged), side(&restated, "theirs"));
        assert_eq!(disposition(&r.item), "release");
    }

    /// Regression: two clones carried one review to the same revision (the same ids), the
    /// geometry server reporting "Bore" changed in one and "Wall" in the other. The later
    /// carry was kept whole, so the item the earlier one sent to re-verify came out inherited:
    /// the Form 3 said "inherited (satisfied)" for a face reported changed. An item either
    /// side carried to re-verify stays so, whichever side wins, and the disposition counts it.
    #[test]
    fn two_carries_of_one_review_keep_every_item_either_sent_to_re_verify() {
        let wall = |b: BasisItem| BasisItem {
            requirement: "Wall".into(),
            ..b
        };
        let bore_changed = carried_decision(T2, vec![reverify_bore(), wall(carried_bore())]);
        let wall_changed = carried_decision(T3, vec![carried_bore(), wall(reverify_bore())]);
        let mut texts = Vec::new();
        for (ours, theirs) in [
            (&bore_changed, &wall_changed),
            (&wall_changed, &bore_changed),
        ] {
            let r = resolve(None, side(ours, "ours"), side(theirs, "theirs")).unwrap();
            let states: Vec<_> = basis(&r.item)
                .iter()
                .map(|b| b.carried.as_ref().map(|c| c.state))
                .collect();
            let reverify = Some(crate::review::CarryState::Reverify);
            assert_eq!(states, vec![reverify, reverify]);
            assert!(
                disposition(&r.item).ends_with("2 of 2 basis items to re-verify"),
                "{}",
                disposition(&r.item)
            );
            texts.push(r.item.text());
        }
        assert_eq!(texts[0], texts[1], "both clones write the same file");
    }

    /// One clone carried the revision on (the decision marked superseded), the other gave
    /// the engineer's verdict at that revision later: the merge keeps both, and the old
    /// decision stays superseded.
    #[test]
    fn resolve_keeps_the_superseded_mark_of_either_side() {
        use crate::review::Superseded;
        let base = decision(T1, "rework", vec![item("Bore", None)]);
        let mut carried = decision(T2, "rework", vec![item("Bore", None)]);
        if let Item::Decision(d) = &mut carried {
            d.superseded = Some(Superseded {
                at: T2.into(),
                by: REV.replace('0', "2"),
                change: None,
            });
        }
        let judged = decision(
            T3,
            "rework",
            vec![item("Bore", Some((Judgement::Rejected, Via::App, T3)))],
        );
        for (ours, theirs) in [(&carried, &judged), (&judged, &carried)] {
            let r = resolve(Some(&base), side(ours, "ours"), side(theirs, "theirs")).unwrap();
            let Item::Decision(d) = &r.item else { panic!() };
            assert!(d.superseded.is_some(), "the carry's mark was lost");
            assert_eq!(d.basis[0].verdict.as_ref().map(|v| v.via), Some(Via::App));
        }
    }
}
