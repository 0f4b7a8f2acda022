//! The engineer's verdicts, given through a channel the assistant cannot write
//! (`request_verdicts`' form, the review card): written onto the items of a stored decision
//! in one transaction, only while its basis is still the one the engineer was shown.

use rusqlite::{OptionalExtension, params};

use super::browse::DECISION_SAID_ON;
use super::codec::opt_json;
use super::decisions::rows::{DECISION_COLS, decision_from_row, load_basis, write_decision};
use super::{Store, StoreError, history};
use crate::review::history::{Channel, Written, decision_events};
use crate::review::{Decision, Meaning, Verdict};
use crate::time;

/// The decision to find: by its id, or by its natural key.
#[derive(Debug, Clone, PartialEq)]
pub enum DecisionRef<'a> {
    Id(&'a str),
    Key {
        locator: &'a str,
        subject: &'a str,
        revision: &'a str,
    },
}

/// What the engineer was shown when they gave their verdicts: they are recorded only while
/// the decision still says exactly that.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shown<'a> {
    /// The whole basis, as [`Decision::basis_digest`] (the form of `request_verdicts`).
    Basis(&'a str),
    /// The judged item, as [`crate::review::BasisItem::digest`] (a click in the review card):
    /// every verdict's index must still hold an item that says this.
    Item(&'a str),
    /// The judged item as [`Shown::Item`], and the verdict it held when shown: the `at` of
    /// that verdict, or `""` for none (a click of the review card that says what it saw).
    /// A click replayed after it was recorded, or after a later verdict, finds another
    /// verdict there and writes nothing.
    ItemAndVerdict(&'a str, &'a str),
    /// Each item as the engineer was shown it: (basis index,
    /// [`crate::review::BasisItem::judged_digest`]) (the form of `request_verdicts`). The
    /// verdicts on items that still say this are written and the others are not, each
    /// answer standing or falling with its own item; `Changed` only when none does.
    Each(&'a [(usize, String)]),
}

/// What [`Store::record_verdicts`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum VerdictsOutcome {
    /// Written; the decision as it now stands.
    Recorded(Decision),
    /// Nothing written: the basis is no longer the one the engineer judged (the decision as
    /// it now stands), or an index is past its end.
    Changed(Decision),
    /// Nothing written: no such decision (forgotten since).
    Missing,
    /// Nothing written: its revision was carried on (the decision as it stands, its
    /// `superseded` saying where to), and no verdict is given on a decision carried on.
    /// `forgotten`: every copy was forgotten since ([`Store::unsaid_carried_on`]), so no
    /// revision holds its review (see [`superseded_message`]). A value, not an error: a carry
    /// by another process while the engineer answers is a change like any other, and the
    /// channel says so and goes on.
    CarriedOn { decision: Decision, forgotten: bool },
}

impl Store {
    /// A decision with its basis.
    pub fn find_decision(&mut self, at: &DecisionRef<'_>) -> Result<Option<Decision>, StoreError> {
        let tx = self.read()?;
        Ok(find(&tx, at)?.map(|(_, d)| d))
    }

    /// Writes `verdicts` (basis index, verdict) onto the decision `at`, in one write
    /// transaction, only while the decision still says what the engineer was `shown`. Each
    /// verdict is written whole, its author included: nothing of the verdict it replaces
    /// stays. Moves the decision's `updated_at`, so an export carries the verdicts and the
    /// change journal tells subscribers.
    pub fn record_verdicts(
        &mut self,
        at: &DecisionRef<'_>,
        shown: Shown<'_>,
        verdicts: &[(usize, Verdict)],
    ) -> Result<VerdictsOutcome, StoreError> {
        let author = self.author.clone();
        let tx = self.write()?;
        let Some((rid, mut decision)) = find(&tx, at)? else {
            return Ok(VerdictsOutcome::Missing);
        };
        if decision.superseded.is_some() {
            let forgotten: bool = tx
                .prepare_cached(&format!(
                    "SELECT NOT {DECISION_SAID_ON} FROM decisions d WHERE d.rid = ?1"
                ))?
                .query_row([rid], |r| r.get(0))?;
            return Ok(VerdictsOutcome::CarriedOn {
                decision,
                forgotten,
            });
        }
        // The verdicts to write: under `Each`, those whose item still says what was shown.
        let verdicts: Vec<&(usize, Verdict)> = match shown {
            Shown::Each(items) => verdicts
                .iter()
                .filter(|(i, _)| {
                    decision.basis.get(*i).is_some_and(|b| {
                        let judged = b.judged_digest();
                        items.iter().any(|(at, d)| at == i && *d == judged)
                    })
                })
                .collect(),
            _ => verdicts.iter().collect(),
        };
        let still = match shown {
            Shown::Each(_) => !verdicts.is_empty(),
            Shown::Basis(digest) => {
                verdicts.iter().all(|(i, _)| *i < decision.basis.len())
                    && digest == decision.basis_digest()
            }
            Shown::Item(digest) => verdicts
                .iter()
                .all(|(i, _)| decision.basis.get(*i).is_some_and(|b| b.digest() == digest)),
            Shown::ItemAndVerdict(digest, seen) => verdicts.iter().all(|(i, _)| {
                decision.basis.get(*i).is_some_and(|b| {
                    b.digest() == digest && b.verdict.as_ref().map_or("", |v| v.at.as_str()) == seen
                })
            }),
        };
        if !still {
            return Ok(VerdictsOutcome::Changed(decision));
        }
        let before = decision.clone();
        let mut relabelled = false;
        for (i, v) in &verdicts {
            let Some(item) = decision.basis.get_mut(*i) else {
                continue;
            };
            item.verdict = Some(v.clone());
            // The engineer judged it at this revision: no longer inherited, nor to re-verify,
            // its evidence still said as the earlier revision's ("evidence there").
            relabelled |= item.judged_here();
            tx.prepare_cached(
                "UPDATE basis_items SET verdict_judgement = ?1, verdict_reason = ?2, \
                 verdict_via = ?3, verdict_at = ?4, verdict_author = ?5, carried = NULL, \
                 verdict_meaning = ?8, evidence = ?9, not_carried = ?10 \
                 WHERE decision_rid = ?6 AND position = ?7",
            )?
            .execute(params![
                v.judgement.as_str(),
                v.reason,
                v.via.as_str(),
                v.at,
                v.author,
                rid,
                i64::try_from(*i).unwrap_or(i64::MAX),
                v.meaning.map(Meaning::as_str),
                item.evidence,
                opt_json(item.not_carried.as_ref())
            ])?;
        }
        // A carried decision's disposition counts its items to re-verify: one the engineer
        // just judged here is no longer one of them.
        decision.recount_carried(&before);
        let not_before = std::cmp::max(&decision.created_at, &decision.updated_at).clone();
        decision.updated_at = time::updated_after(time::now(), &not_before);
        if decision.disposition == before.disposition && !relabelled {
            tx.prepare_cached("UPDATE decisions SET updated_at = ?1 WHERE rid = ?2")?
                .execute(params![decision.updated_at, rid])?;
        } else {
            // Written whole, so the full-text index holds the new disposition and evidence too.
            let seq: i64 = tx
                .prepare_cached("SELECT seq FROM decisions WHERE rid = ?1")?
                .query_row([rid], |r| r.get(0))?;
            write_decision(&tx, Some(rid), &decision, seq)?;
        }
        // Each verdict event names the verdict's own channel and author (see
        // `decision_events`); the write's are the server's. The write's channel is the
        // verdicts' own (one call, one channel): a disposition it recounted above is part of
        // the engineer's write, not a change the assistant made.
        let channel = verdicts
            .first()
            .map_or(Channel::Assistant, |(_, v)| Channel::of_verdict(v.via));
        let how = Written {
            channel,
            at: &decision.updated_at,
            author: author.as_deref(),
        };
        history::append(
            &tx,
            &decision_events(&how, Some(&before), Some(&decision), &[]),
        )?;
        tx.commit()?;
        Ok(VerdictsOutcome::Recorded(decision))
    }
}

/// Why no verdict is given on `d`, whose revision was carried to revision `by`: the review
/// goes on there, and the carried items there say what was judged here (a verdict given
/// here now would contradict them).
///
/// `forgotten`: every copy of it was forgotten since ([`Store::unsaid_carried_on`]), so no
/// revision holds its review any more: it is stated again, not judged, and nowhere is a
/// verdict on it to be given.
pub fn superseded_message(d: &Decision, by: &str, forgotten: bool) -> String {
    if forgotten {
        return format!(
            "decision {} at revision {} was carried to revision {by} (carry_forward), and \
             what was carried there was forgotten since: no revision holds its review any \
             more, and no verdict is given on a decision carried on. State it again at the \
             part's current revision with remember_decision, then ask there; nothing was \
             written",
            crate::text::quoted(&d.subject, 80),
            d.artifact.revision
        );
    }
    format!(
        "decision {} at revision {} was carried to revision {by} (carry_forward): its review \
         goes on there, where its items say what was judged at this revision. Give the verdict \
         on that revision's decision (show_review or request_verdicts with artifact.revision {by}); \
         nothing was written",
        crate::text::quoted(&d.subject, 80),
        d.artifact.revision
    )
}

pub(super) fn find(
    tx: &rusqlite::Transaction<'_>,
    at: &DecisionRef<'_>,
) -> Result<Option<(i64, Decision)>, StoreError> {
    let row = match at {
        DecisionRef::Id(id) => tx
            .prepare_cached(&format!(
                "SELECT {DECISION_COLS} FROM decisions d WHERE d.id = ?1"
            ))?
            .query_row([id], decision_from_row)
            .optional()?,
        DecisionRef::Key {
            locator,
            subject,
            revision,
        } => tx
            .prepare_cached(&format!(
                "SELECT {DECISION_COLS} FROM decisions d \
                 WHERE d.locator = ?1 AND d.subject = ?2 AND d.revision = ?3"
            ))?
            .query_row(params![locator, subject, revision], decision_from_row)
            .optional()?,
    };
    match row {
        Some((rid, mut d, _)) => {
            d.basis = load_basis(tx, rid)?;
            Ok(Some((rid, d)))
        }
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::super::NewDecision;
    use super::super::fixtures::artifact;
    use super::*;
    use crate::review::{BasisItem, Judgement, State, Via};

    fn item(requirement: &str) -> BasisItem {
        BasisItem {
            state: State::Unresolved,
            question: Some("which reamer?".into()),
            ..BasisItem::stated(requirement)
        }
    }

    fn verdict(judgement: Judgement) -> Verdict {
        Verdict {
            at: time::now(),
            reason: Some("seen on the drawing".into()),
            ..Verdict::given(judgement, Via::Elicitation)
        }
    }

    fn stored(store: &mut Store) -> Decision {
        let new = NewDecision {
            artifact: artifact(None),
            subject: "bore".into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![item("Bore 12H7"), item("Chamfer 0.5")],
        };
        store.remember_decision(&new).unwrap().0
    }

    #[test]
    fn verdicts_are_written_while_the_basis_is_the_one_judged() {
        let mut store = Store::open_in_memory().unwrap();
        let d = stored(&mut store);
        let digest = d.basis_digest();
        let at = DecisionRef::Id(&d.id);
        let got = store
            .record_verdicts(
                &at,
                Shown::Basis(&digest),
                &[(1, verdict(Judgement::Rejected))],
            )
            .unwrap();
        let VerdictsOutcome::Recorded(after) = got else {
            panic!("{got:?}")
        };
        assert!(after.updated_at >= d.updated_at);
        let back = store.get_decision(&d.id).unwrap().unwrap();
        assert_eq!(back, after);
        assert_eq!(back.basis[0].verdict, None);
        assert_eq!(
            back.basis[1].verdict.as_ref().map(|v| (v.judgement, v.via)),
            Some((Judgement::Rejected, Via::Elicitation))
        );
        // The same question again: the basis now differs (it holds the answer), so a replayed
        // answer writes nothing.
        let again = store
            .record_verdicts(
                &at,
                Shown::Basis(&digest),
                &[(1, verdict(Judgement::Accepted))],
            )
            .unwrap();
        assert!(matches!(again, VerdictsOutcome::Changed(_)), "{again:?}");
        assert_eq!(store.get_decision(&d.id).unwrap().unwrap(), back);
    }

    #[test]
    fn a_changed_missing_or_shorter_decision_writes_nothing() {
        let mut store = Store::open_in_memory().unwrap();
        let d = stored(&mut store);
        let at = DecisionRef::Id(&d.id);
        let out = store
            .record_verdicts(
                &at,
                Shown::Basis("0000"),
                &[(0, verdict(Judgement::Accepted))],
            )
            .unwrap();
        assert!(matches!(out, VerdictsOutcome::Changed(_)));
        let out = store
            .record_verdicts(
                &at,
                Shown::Item(&d.basis[1].digest()),
                &[(2, verdict(Judgement::Accepted))],
            )
            .unwrap();
        assert!(matches!(out, VerdictsOutcome::Changed(_)));
        assert_eq!(store.get_decision(&d.id).unwrap().unwrap(), d);
        let out = store
            .record_verdicts(&DecisionRef::Id("dec_none"), Shown::Basis(""), &[])
            .unwrap();
        assert_eq!(out, VerdictsOutcome::Missing);
    }

    /// A click names the item it judged by its digest: recorded only while that index still
    /// holds an item saying exactly that, whatever else changed in the decision.
    #[test]
    fn a_card_verdict_lands_only_on_the_item_it_was_given_for() {
        let mut store = Store::open_in_memory().unwrap();
        let d = stored(&mut store);
        let at = DecisionRef::Id(&d.id);
        let bore = d.basis[0].digest();
        assert_ne!(bore, d.basis[1].digest());
        // The other item's digest at this index: refused.
        let out = store
            .record_verdicts(
                &at,
                Shown::Item(&d.basis[1].digest()),
                &[(0, verdict(Judgement::Rejected))],
            )
            .unwrap();
        assert!(matches!(out, VerdictsOutcome::Changed(_)), "{out:?}");
        // A verdict elsewhere in the basis leaves the item as shown: recorded.
        store
            .record_verdicts(
                &at,
                Shown::Item(&d.basis[1].digest()),
                &[(1, verdict(Judgement::Accepted))],
            )
            .unwrap();
        let out = store
            .record_verdicts(
                &at,
                Shown::Item(&bore),
                &[(0, verdict(Judgement::Rejected))],
            )
            .unwrap();
        assert!(matches!(out, VerdictsOutcome::Recorded(_)), "{out:?}");
        // The assistant re-records the decision with a new first item: the bore's click now
        // finds another requirement at index 0 and writes nothing.
        let new = NewDecision {
            artifact: artifact(None),
            subject: "bore".into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![item("Wall 2 mm"), item("Bore 12H7")],
        };
        let before = store.remember_decision(&new).unwrap().0;
        let out = store
            .record_verdicts(
                &at,
                Shown::Item(&bore),
                &[(0, verdict(Judgement::Accepted))],
            )
            .unwrap();
        assert!(matches!(out, VerdictsOutcome::Changed(_)), "{out:?}");
        assert_eq!(store.get_decision(&d.id).unwrap().unwrap(), before);
        // Any change to what the item says (here its evidence) is another item.
        let mut changed = item("Bore 12H7");
        changed.evidence = Some("12.030 mm".into());
        assert_ne!(changed.digest(), item("Bore 12H7").digest());
    }

    /// Each verdict keeps the author it was given with, never the one of the verdict it
    /// replaced, and none when it was given without one.
    #[test]
    fn a_verdict_is_stored_with_its_own_author_and_nothing_else() {
        let mut store = Store::open_in_memory().unwrap();
        let d = stored(&mut store);
        let at = DecisionRef::Id(&d.id);
        let by = |author: Option<&str>| Verdict {
            meaning: None,
            author: author.map(str::to_string),
            ..verdict(Judgement::Rejected)
        };
        let shown = d.basis[0].digest();
        for author in [Some("Ada"), Some("Bob"), None, Some("Ada")] {
            store
                .record_verdicts(&at, Shown::Item(&shown), &[(0, by(author))])
                .unwrap();
            let back = store.get_decision(&d.id).unwrap().unwrap();
            let v = back.basis[0].verdict.clone().unwrap();
            assert_eq!(v.author.as_deref(), author);
        }
    }

    /// The outranking rule through the store: an assistant's replacement keeps the engineer's
    /// verdict of an unchanged requirement, names the removed one, and cannot claim one.
    #[test]
    fn an_assistant_replacement_cannot_overwrite_or_silently_erase_the_engineer() {
        let mut store = Store::open_in_memory().unwrap();
        let d = stored(&mut store);
        let at = DecisionRef::Id(&d.id);
        store
            .record_verdicts(
                &at,
                Shown::Basis(&d.basis_digest()),
                &[
                    (0, verdict(Judgement::Accepted)),
                    (1, verdict(Judgement::Rejected)),
                ],
            )
            .unwrap();
        let engineer = store.get_decision(&d.id).unwrap().unwrap();
        let mut first = item("Bore 12H7");
        first.verdict = Some(Verdict::given(Judgement::Rejected, Via::Assistant));
        let new = NewDecision {
            artifact: artifact(None),
            subject: "bore".into(),
            disposition: "release".into(),
            summary: None,
            basis: vec![first, item("Thread M6")],
        };
        let (after, replaced, outranked) = store.remember_decision(&new).unwrap();
        assert!(replaced);
        assert_eq!(after.basis[0].verdict, engineer.basis[0].verdict);
        assert_eq!(outranked.kept.len(), 1);
        assert_eq!(
            outranked.kept[0].offered.as_ref().map(|v| v.judgement),
            Some(Judgement::Rejected)
        );
        assert_eq!(outranked.removed.len(), 1);
        assert_eq!(outranked.removed[0].requirement, "Chamfer 0.5");
        assert_eq!(after.basis[1].verdict, None);
        // A claim of the engineer's channel in arguments is refused and writes nothing.
        let mut claim = item("Thread M6");
        claim.verdict = Some(Verdict {
            meaning: None,
            via: Via::Elicitation,
            ..verdict(Judgement::Accepted)
        });
        let new = NewDecision {
            basis: vec![item("Bore 12H7"), claim],
            ..new
        };
        let err = store.remember_decision(&new).unwrap_err();
        assert!(err.to_string().contains("request_verdicts"), "{err}");
        assert_eq!(store.get_decision(&d.id).unwrap().unwrap(), after);
    }
}
