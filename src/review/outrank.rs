//! The outranking rule: when the assistant's `remember_decision` replaces a decision, the
//! engineer's verdicts (`elicitation`, `app`) on unchanged requirements stay, and what was
//! kept, refused or removed is reported.

use serde::Serialize;

use super::DomainError;
use super::decision::{BasisItem, Verdict, Via};

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
    let mut used = vec![false; old.len()];
    let mut out = Outranked::default();
    for (i, item) in new.iter_mut().enumerate() {
        let matched = old
            .iter()
            .enumerate()
            .position(|(j, o)| !used[j] && o.requirement == item.requirement);
        if let Some(j) = matched {
            used[j] = true;
        }
        let before = matched.and_then(|j| old[j].verdict.as_ref());
        let offered = item.verdict.take();
        item.verdict = match (before, offered) {
            (Some(engineer), offered) if engineer.via.is_engineer() => {
                let offered = offered.filter(|o| !o.says_the_same(engineer));
                out.kept.push(KeptVerdict {
                    index: i,
                    offered: offered.map(|o| Verdict {
                        at: now.to_string(),
                        author: author.map(str::to_string),
                        via: Via::Assistant,
                        ..o
                    }),
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
            (_, Some(o)) => Some(Verdict {
                at: now.to_string(),
                author: author.map(str::to_string),
                via: Via::Assistant,
                ..o
            }),
        };
    }
    for (j, o) in old.iter().enumerate() {
        if let Some(v) = o
            .verdict
            .as_ref()
            .filter(|v| v.via.is_engineer() && !used[j])
        {
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
    use crate::review::{Judgement, Source, State};

    fn item(requirement: &str, verdict: Option<(Judgement, Via, &str)>) -> BasisItem {
        BasisItem {
            requirement: requirement.into(),
            source: Source::Drawing,
            source_detail: None,
            evidence: None,
            state: State::Satisfied,
            question: None,
            faces: vec![],
            verdict: verdict.map(|(judgement, via, at)| Verdict {
                at: at.into(),
                author: None,
                judgement,
                reason: None,
                via,
            }),
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
