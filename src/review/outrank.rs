//! The outranking rule: an engineer's verdict (`elicitation`, `app`) is never replaced by one
//! that is not the engineer's. When the assistant's `remember_decision` replaces a decision
//! ([`merge_verdicts`]), and when a whole version of a decision arrives from a synced folder
//! or a git merge ([`keep_engineer_verdicts`], used by `sync` and `merge-file` through
//! `crate::sync::merge`), the engineer's verdicts on unchanged requirements stay, and what
//! was kept, refused or removed is reported. Items are paired by [`pair_by_requirement`] and
//! judged by [`outranks`]: one rule, one place.

use serde::Serialize;

use super::DomainError;
use super::carry::{CarryState, quoted_at};
use super::decision::{BasisItem, Decision, Verdict, Via};

/// An engineer's verdict that a replacing basis kept, because its item's requirement is
/// unchanged: `offered` is the different verdict the new arguments carried, not written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeptVerdict {
    pub index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offered: Option<Verdict>,
    pub requirement: String,
    pub verdict: Verdict,
}

/// An engineer's verdict whose item the replacing basis left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RemovedVerdict {
    pub requirement: String,
    pub verdict: Verdict,
}

/// What [`merge_verdicts`] did to the engineer's verdicts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outranked {
    pub kept: Vec<KeptVerdict>,
    pub removed: Vec<RemovedVerdict>,
    /// The indexes (in the new basis) of kept verdicts whose item the new basis states
    /// otherwise (another state or evidence): the engineer judged what it said before.
    pub stated_otherwise: Vec<usize>,
}

/// Which item of `old` each item of `new` stands for: the same requirement text, in order
/// (the k-th of a repeated requirement to the k-th); `None` for a new requirement.
pub fn pair_by_requirement(old: &[BasisItem], new: &[BasisItem]) -> Vec<Option<usize>> {
    let mut used = vec![false; old.len()];
    new.iter()
        .map(|item| {
            let j = old.iter().enumerate().position(|(j, o)| {
                !used.get(j).copied().unwrap_or(true) && o.requirement == item.requirement
            })?;
            if let Some(u) = used.get_mut(j) {
                *u = true;
            }
            Some(j)
        })
        .collect()
}

/// A carried decision stated again (`remember_decision`): each item of `new` paired with a
/// carried item of `old` ([`pair_by_requirement`]) whose evidence it repeats word for word
/// (the basis copied from a recall) keeps saying the revision that evidence was quoted at
/// ([`quoted_at`]), as an item the engineer's verdict makes this revision's does
/// ([`BasisItem::judged_here`]): stated here, its evidence is not a result of this revision.
/// Evidence stated anew is the new revision's.
pub fn label_copied_evidence(old: &[BasisItem], new: &mut [BasisItem]) {
    let pairs = pair_by_requirement(old, new);
    for (item, j) in new.iter_mut().zip(pairs) {
        let Some(o) = j.and_then(|j| old.get(j)) else {
            continue;
        };
        if let (Some(c), Some(e)) = (&o.carried, item.evidence.as_mut())
            && o.evidence.as_ref() == Some(e)
        {
            *e = quoted_at(e, &c.from);
        }
    }
}

/// What a change touched stays to re-verify: two clones that carried one review to the same
/// revision (the same ids) with different `changed` lists each wrote their own markers, and
/// `winner` is the version kept (a sync's or merge's later side, an import's later line).
/// Each of its items still inherited takes `loser`'s re-verify marker of the same
/// requirement ([`pair_by_requirement`]) from the same revision, so an item either geometry
/// report touched is never inherited; the disposition the carry wrote counts it again.
/// Returns how many items it took.
pub fn keep_reverify(winner: &mut Decision, loser: &Decision) -> usize {
    let before = winner.clone();
    let pairs = pair_by_requirement(&loser.basis, &winner.basis);
    let mut kept = 0;
    for (b, j) in winner.basis.iter_mut().zip(pairs) {
        let Some(theirs) = j
            .and_then(|j| loser.basis.get(j))
            .and_then(|o| o.carried.as_ref())
            .filter(|c| c.state == CarryState::Reverify)
        else {
            continue;
        };
        if let Some(c) = b.carried.as_mut()
            && c.state == CarryState::Inherited
            && c.from == theirs.from
        {
            *c = theirs.clone();
            kept += 1;
        }
    }
    if kept > 0 {
        winner.recount_carried(&before);
    }
    kept
}

/// The rule itself: whether `engineer`, the verdict an item holds, outranks `other`, a verdict
/// (or none) that would replace it. An engineer's verdict is replaced only by another
/// engineer's, never by the assistant's or by nothing.
pub fn outranks(engineer: Option<&Verdict>, other: Option<&Verdict>) -> bool {
    engineer.is_some_and(|e| e.via.is_engineer()) && !other.is_some_and(|o| o.via.is_engineer())
}

/// The rule applied to a version of a decision's basis that arrives whole (a synced folder's
/// file, a side of a git merge) and replaces `old`: each item of `new` paired with an item of
/// `old` whose engineer verdict it would replace by the assistant's (or by none) takes the
/// engineer's verdict back. Returns the verdicts kept, `offered` naming the one `new` held.
/// An engineer's verdict in `new` stands (the engineer may change their mind: `new` is a
/// version made from `old`, which saw its verdict); an item left
/// out of `new` goes with its verdict, as in [`merge_verdicts`]. An item that takes one back
/// is judged here ([`BasisItem::judged_here`]); the caller counts its decision's items to
/// re-verify again (`Decision::recount_carried`).
pub fn keep_engineer_verdicts(old: &[BasisItem], new: &mut [BasisItem]) -> Vec<KeptVerdict> {
    keep_verdicts(old, new, false)
}

/// [`keep_engineer_verdicts`] for two versions of which neither need have seen the other (an
/// import: there is no base to say which engineer verdict came after the other): an item of
/// `new` whose engineer verdict differs from `old`'s, given earlier, takes `old`'s too, as
/// sync's merge of two versions keeps the later `at`. Without it an import of a version later
/// for another reason (a verdict on another item) took away an engineer's newer verdict for
/// an older one, and clones that imported in different orders kept different verdicts.
pub fn keep_later_engineer_verdicts(old: &[BasisItem], new: &mut [BasisItem]) -> Vec<KeptVerdict> {
    keep_verdicts(old, new, true)
}

fn keep_verdicts(old: &[BasisItem], new: &mut [BasisItem], later: bool) -> Vec<KeptVerdict> {
    let pairs = pair_by_requirement(old, new);
    let mut kept = Vec::new();
    for (index, (item, pair)) in new.iter_mut().zip(pairs).enumerate() {
        let Some(engineer) = pair
            .and_then(|j| old.get(j))
            .and_then(|o| o.verdict.as_ref())
        else {
            continue;
        };
        let newer = later
            && engineer.via.is_engineer()
            && item
                .verdict
                .as_ref()
                .is_some_and(|n| n.via.is_engineer() && n != engineer && engineer.at > n.at);
        if outranks(Some(engineer), item.verdict.as_ref()) || newer {
            // Judged at its own revision: no longer carried (as `record_verdict` does).
            item.judged_here();
            kept.push(KeptVerdict {
                index,
                offered: item.verdict.replace(engineer.clone()),
                requirement: item.requirement.clone(),
                verdict: engineer.clone(),
            });
        }
    }
    kept
}

/// The outranking rule, applied when `new` (from tool arguments) replaces `old`:
/// - an item whose `requirement` is unchanged keeps the engineer's verdict (`elicitation`,
///   `app`) of the old item, whatever verdict the new item offers (a different one is named
///   in [`KeptVerdict::offered`]);
/// - every other verdict in the new basis is the assistant's (`via: assistant`), dated `now`,
///   or keeps its old date when the assistant repeats its own earlier verdict;
/// - a new verdict claiming `elicitation` or `app` that is not the engineer's stored verdict
///   of that requirement is refused: tool arguments never create the engineer's word;
/// - engineer verdicts of old items that have no counterpart are reported as removed.
///
/// Items are matched by requirement text, in order (the k-th of a repeated requirement to the
/// k-th).
///
/// A verdict the assistant writes now is recorded as `author`'s (the server's author).
pub fn merge_verdicts(
    old: &[BasisItem],
    new: &mut [BasisItem],
    now: &str,
    author: Option<&str>,
) -> Result<Outranked, DomainError> {
    let pairs = pair_by_requirement(old, new);
    let mut used = vec![false; old.len()];
    for j in pairs.iter().flatten() {
        if let Some(u) = used.get_mut(*j) {
            *u = true;
        }
    }
    let mut out = Outranked::default();
    // What the arguments offer, as the assistant's word given now.
    let assistants = |o: Verdict| Verdict {
        meaning: None,
        at: now.to_string(),
        author: author.map(str::to_string),
        via: Via::Assistant,
        ..o
    };
    for (i, (item, matched)) in new.iter_mut().zip(pairs).enumerate() {
        let before = matched
            .and_then(|j| old.get(j))
            .and_then(|o| o.verdict.as_ref());
        let offered = item.verdict.take();
        item.verdict = match (before, offered) {
            (Some(engineer), offered) if engineer.via.is_engineer() => {
                let offered = offered.filter(|o| !o.says_the_same(engineer));
                if matched
                    .and_then(|j| old.get(j))
                    .is_some_and(|o| o.state != item.state || o.evidence != item.evidence)
                {
                    out.stated_otherwise.push(i);
                }
                out.kept.push(KeptVerdict {
                    index: i,
                    offered: offered.map(assistants),
                    requirement: item.requirement.clone(),
                    verdict: engineer.clone(),
                });
                Some(engineer.clone())
            }
            (_, None) => None,
            (_, Some(o)) if o.via.is_engineer() => {
                return Err(DomainError(format!(
                    "basis[{i}].verdict claims via {:?}, but no verdict of the engineer is stored for this requirement: a verdict in tool arguments is recorded as the assistant's (leave out via and at), and request_verdicts asks the engineer directly",
                    o.via.as_str()
                )));
            }
            (Some(mine), Some(o)) if o.says_the_same(mine) => Some(mine.clone()),
            (_, Some(o)) => Some(assistants(o)),
        };
    }
    for (o, used) in old.iter().zip(used) {
        if let Some(v) = o.verdict.as_ref().filter(|v| v.via.is_engineer() && !used) {
            out.removed.push(RemovedVerdict {
                requirement: o.requirement.clone(),
                verdict: v.clone(),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::Judgement;

    fn item(requirement: &str, verdict: Option<(Judgement, Via, &str)>) -> BasisItem {
        BasisItem {
            verdict: verdict.map(|(judgement, via, at)| Verdict {
                at: at.into(),
                ..Verdict::given(judgement, via)
            }),
            ..BasisItem::stated(requirement)
        }
    }

    #[test]
    fn repeated_requirements_match_in_order_and_the_assistant_keeps_its_own_date() {
        use Judgement::{Accepted, Rejected};
        let old = [
            item("Bore", Some((Rejected, Via::Elicitation, "t1"))),
            item("Bore", Some((Accepted, Via::App, "t2"))),
            item("Wall", Some((Accepted, Via::Assistant, "t3"))),
        ];
        let mut new = [
            item("Bore", Some((Accepted, Via::Assistant, ""))),
            item("Bore", None),
            item("Wall", Some((Accepted, Via::Assistant, ""))),
        ];
        let out = merge_verdicts(&old, &mut new, "now", None).unwrap();
        let got: Vec<_> = new
            .iter()
            .map(|b| {
                b.verdict
                    .as_ref()
                    .map(|v| (v.judgement, v.via, v.at.clone()))
            })
            .collect();
        assert_eq!(
            got,
            [
                Some((Rejected, Via::Elicitation, "t1".to_string())),
                Some((Accepted, Via::App, "t2".to_string())),
                Some((Accepted, Via::Assistant, "t3".to_string())),
            ]
        );
        assert_eq!(out.kept.len(), 2);
        assert_eq!(
            out.kept[0]
                .offered
                .as_ref()
                .map(|v| (v.judgement, v.at.as_str())),
            Some((Accepted, "now"))
        );
        assert!(
            out.kept[1].offered.is_none(),
            "no verdict offered, none contested"
        );
        assert!(out.removed.is_empty());
    }

    #[test]
    fn a_version_arriving_whole_keeps_the_engineers_verdict_against_the_assistant_or_none() {
        use Judgement::{Accepted, Rejected};
        let old = [
            item("Bore", Some((Rejected, Via::App, "t1"))),
            item("Wall", Some((Rejected, Via::Elicitation, "t1"))),
            item("Thread", Some((Rejected, Via::App, "t1"))),
            item("Flat", Some((Accepted, Via::Assistant, "t1"))),
            item("Slot", Some((Rejected, Via::App, "t3"))),
        ];
        let mut new = [
            item("Bore", Some((Accepted, Via::Assistant, "t2"))),
            item("Wall", None),
            item("Thread", Some((Accepted, Via::Elicitation, "t2"))),
            item("Flat", Some((Rejected, Via::Assistant, "t2"))),
            item("Slot", Some((Accepted, Via::Elicitation, "t2"))),
        ];
        let mut unseen = new.clone();
        let kept = keep_engineer_verdicts(&old, &mut new);
        let got: Vec<_> = new
            .iter()
            .map(|b| b.verdict.as_ref().map(|v| (v.judgement, v.via)))
            .collect();
        assert_eq!(
            got,
            [
                Some((Rejected, Via::App)),
                Some((Rejected, Via::Elicitation)),
                Some((Accepted, Via::Elicitation)),
                Some((Rejected, Via::Assistant)),
                Some((Accepted, Via::Elicitation)),
            ],
            "the engineer's verdict stands against the assistant's or none; a new engineer's verdict replaces it"
        );
        assert_eq!(
            kept.iter()
                .map(|k| (k.index, k.offered.is_some()))
                .collect::<Vec<_>>(),
            [(0, true), (1, false)]
        );
        // Neither version made from the other (an import): the later engineer verdict.
        let kept = keep_later_engineer_verdicts(&old, &mut unseen);
        let got: Vec<_> = unseen
            .iter()
            .map(|b| b.verdict.as_ref().map(|v| (v.judgement, v.via)))
            .collect();
        assert_eq!(got[2], Some((Accepted, Via::Elicitation)), "later: stands");
        assert_eq!(got[4], Some((Rejected, Via::App)), "earlier: replaced");
        assert_eq!(kept.iter().map(|k| k.index).collect::<Vec<_>>(), [0, 1, 4]);
    }

    #[test]
    fn a_new_assistant_verdict_is_dated_now_and_a_claim_is_refused() {
        let mut new = [item(
            "Thread",
            Some((Judgement::Accepted, Via::Assistant, "old")),
        )];
        merge_verdicts(&[], &mut new, "now", None).unwrap();
        assert_eq!(new[0].verdict.as_ref().map(|v| v.at.as_str()), Some("now"));
        let mut claim = [item("Thread", Some((Judgement::Accepted, Via::App, "t")))];
        let err = merge_verdicts(&[], &mut claim, "now", None).unwrap_err();
        assert!(err.0.contains("basis[0]"), "{}", err.0);
        let old = [item("Thread", Some((Judgement::Rejected, Via::App, "t")))];
        let out = merge_verdicts(&old, &mut [], "now", None).unwrap();
        assert_eq!(out.removed.len(), 1);
    }
}
