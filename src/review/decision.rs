//! A decision: a disposition reached about one revision and the basis items it rests on.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Artifact;
use super::artifact::ArtifactWire;
use super::carry::{
    Carried, CarryState, DecisionCarried, NotCarried, Superseded, quoted_at, short_revision,
};
use super::hashing::hex16;
use super::record::stale;

#[cfg(test)]
thread_local! {
    /// How many times this thread computed [`Decision::basis_digest`]: a test counts the
    /// digests a write computes (each one serialises the whole basis).
    pub(crate) static BASIS_DIGESTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Where a requirement came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    ModelPmi,
    Drawing,
    ShopSpec,
    SupplierCert,
    Standard,
    PriorDecision,
    EngineerStated,
    AssistantProposed,
}

/// The outcome of one requirement-check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    Satisfied,
    Violated,
    Unresolved,
    Conflicting,
    NotApplicable,
}

/// The engineer's judgement of a basis item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Judgement {
    Accepted,
    Rejected,
}

/// Where a verdict came from. Only the engineer's own channels (`request_verdicts`, the review
/// card) record `elicitation` and `app`; a verdict written in tool arguments is the
/// assistant's word, recorded but not proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// The engineer answered the host's form (`request_verdicts`).
    Elicitation,
    /// The engineer clicked a verdict in the review card.
    App,
    /// The engineer answered `review-mcp review` in their own terminal.
    Terminal,
    /// Written in tool arguments by the assistant, e.g. relaying the chat. Files and exports
    /// written before provenance existed read as this.
    #[default]
    Assistant,
}

impl Via {
    /// `elicitation`, `app` and `terminal`: the engineer gave it through a channel the assistant cannot
    /// write, so it outranks the assistant's word.
    pub fn is_engineer(self) -> bool {
        !matches!(self, Via::Assistant)
    }
}

wire_names!(Source {
    ModelPmi => "model-pmi",
    Drawing => "drawing",
    ShopSpec => "shop-spec",
    SupplierCert => "supplier-cert",
    Standard => "standard",
    PriorDecision => "prior-decision",
    EngineerStated => "engineer-stated",
    AssistantProposed => "assistant-proposed",
});

wire_names!(State {
    Satisfied => "satisfied",
    Violated => "violated",
    Unresolved => "unresolved",
    Conflicting => "conflicting",
    NotApplicable => "not-applicable",
});

wire_names!(Judgement {
    Accepted => "accepted",
    Rejected => "rejected",
});

wire_names!(Via {
    Elicitation => "elicitation",
    App => "app",
    Terminal => "terminal",
    Assistant => "assistant",
});

impl State {
    /// What a verdict on an item in this state means, said where the engineer gives it (the
    /// form, the terminal) when it is easily misread: a verdict judges the item as stated, so
    /// accepting a violated item confirms the violation (the Form 3's FAIL), and rejecting it
    /// says the item is wrong as stated (INDETERMINATE), not that the part fails.
    pub fn verdict_hint(self) -> Option<&'static str> {
        match self {
            State::Violated => {
                Some("accepting confirms the violation; reject only if the item is wrong as stated")
            }
            _ => None,
        }
    }

    /// `unresolved` and `conflicting` need a `question`: what would settle it.
    pub fn needs_question(self) -> bool {
        matches!(self, State::Unresolved | State::Conflicting)
    }
}

/// What an engineer's verdict attests (21 CFR 11.50's "meaning of the signature", as far as
/// this product goes): a review of the item, or its approval. Given in the engineer's
/// terminal; a verdict without one reads as a review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Meaning {
    Review,
    Approval,
}

wire_names!(Meaning {
    Review => "review",
    Approval => "approval",
});

/// A judgement with its provenance. Fields in alphabetical order: the wire form is this
/// struct's serde form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// When it was given. Empty only between reading an old export line and
    /// [`Decision::date_verdicts`], which dates it with the decision's `updated_at`.
    #[serde(default)]
    pub at: String,
    /// Who recorded it: the author of the server it was given through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    pub judgement: Judgement,
    /// What the engineer's verdict attests, when they said (the terminal asks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meaning: Option<Meaning>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default)]
    pub via: Via,
}

/// The most characters of an author the words that name them show (`--author` takes 200).
pub const AUTHOR_SHOWN: usize = 200;

impl Verdict {
    /// Who gave it and how, as the report and the engineer's form say it: " by the engineer
    /// (review card, Ada)", ", as relayed by the assistant of Bob".
    pub fn given_by(&self) -> String {
        let who = self.given_through();
        // An approval says so; a review is what a verdict is by default.
        match (self.meaning, who.strip_suffix(')')) {
            (Some(Meaning::Approval), Some(open)) => format!("{open}, approval)"),
            _ => who,
        }
    }

    /// Who gave it and how, without what it means: " by the engineer (form, Ada)".
    pub fn given_through(&self) -> String {
        // Quoted when it could end the parenthesis or the words around it.
        let author = self
            .author
            .as_deref()
            .map(|a| crate::text::who(a, AUTHOR_SHOWN));
        match (self.via, author) {
            (Via::Elicitation, None) => " by the engineer (form)".to_string(),
            (Via::Elicitation, Some(a)) => format!(" by the engineer (form, {a})"),
            (Via::App, None) => " by the engineer (review card)".to_string(),
            (Via::App, Some(a)) => format!(" by the engineer (review card, {a})"),
            (Via::Terminal, None) => " by the engineer (terminal)".to_string(),
            (Via::Terminal, Some(a)) => format!(" by the engineer (terminal, {a})"),
            (Via::Assistant, None) => ", as relayed by the assistant".to_string(),
            (Via::Assistant, Some(a)) => format!(", as relayed by the assistant of {a}"),
        }
    }

    /// The same judgement and reason (whoever gave it, whenever).
    pub fn says_the_same(&self, other: &Verdict) -> bool {
        self.judgement == other.judgement
            && self.reason.as_deref().filter(|r| !r.is_empty())
                == other.reason.as_deref().filter(|r| !r.is_empty())
    }
}

/// One requirement-check that answers for itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BasisItem {
    pub requirement: String,
    pub source: Source,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    pub state: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Always present on output; `[]` when the item is about the whole part.
    #[serde(default)]
    pub faces: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Carried from an earlier revision by `carry_forward` (absent: stated at this one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried: Option<Carried>,
    /// The entity ids a carry lost (none of the item's own could be carried: `faces` is
    /// `[]`), kept once the engineer's verdict made it this revision's (absent: it lost none,
    /// or it is still carried, whose marker names them, or it was stated again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_carried: Option<NotCarried>,
}

impl BasisItem {
    /// The revision this item is inherited from (carried by `carry_forward`, not re-verified
    /// and not stated again at its decision's revision); `None` for an item stated at its own
    /// revision or one to re-verify (see [`BasisItem::carry_state`]).
    pub fn inherited_from(&self) -> Option<&str> {
        self.carried
            .as_ref()
            .filter(|c| c.state == CarryState::Inherited)
            .map(|c| c.from.as_str())
    }

    /// Whether the item is inherited from an earlier revision with the engineer's verdict given
    /// there (the assistant's never travels): left aside by default by every channel that asks
    /// the engineer, as judged ([`Decision::awaiting_engineer`]).
    pub fn inherited_judged(&self) -> bool {
        self.inherited_from().is_some()
            && self.carried.as_ref().is_some_and(|c| c.verdict.is_some())
    }

    /// Whether the item awaits the engineer: it holds no verdict of theirs (none, or only the
    /// assistant's).
    pub fn awaits_engineer(&self) -> bool {
        !self.verdict.as_ref().is_some_and(|v| v.via.is_engineer())
    }

    /// Makes the item its decision's revision's own, as the engineer's verdict given there
    /// does, on every path that puts one on a carried item (`record_verdicts`, and a sync or
    /// git merge that takes one into it): no longer carried, and its evidence, quoted at the
    /// revision it was carried from as the engineer was shown it, keeps saying so
    /// ([`quoted_at`]), so that no reader gives it as this revision's result; its decision's
    /// disposition is counted again after ([`Decision::recount_carried`]). Returns whether the
    /// evidence was relabelled.
    ///
    /// An item none of whose ids could be carried keeps naming them ([`NotCarried`]): its
    /// `faces` are `[]`, and it is not about the whole part.
    pub fn judged_here(&mut self) -> bool {
        let Some(c) = self.carried.take() else {
            return false;
        };
        if self.faces.is_empty() && !c.unmapped.is_empty() {
            self.not_carried = Some(NotCarried {
                of: c.ids_revision().to_string(),
                ids: c.unmapped,
            });
        }
        match self.evidence.as_mut() {
            Some(e) => {
                let quoted = quoted_at(e, &c.from);
                let relabelled = quoted != *e;
                *e = quoted;
                relabelled
            }
            None => false,
        }
    }

    /// The entity ids the item lost to a carry, when it has none of its own: those its
    /// carried marker names, or those it kept once judged, with their revision (`Some`) when
    /// it is not the one the item was carried from (which its row names): kept once judged,
    /// or carried on again since (the marker's `ids_of`). Empty when it lost none.
    pub fn lost_ids(&self) -> (&[String], Option<&str>) {
        match (&self.carried, &self.not_carried) {
            (Some(c), _) => (&c.unmapped, c.ids_of.as_deref()),
            (None, Some(n)) => (&n.ids, Some(&n.of)),
            (None, None) => (&[], None),
        }
    }

    /// The item's entities as people read them ([`super::carry::entities_label`]): its ids,
    /// "whole part", or the ids it lost to a carry; `revision` shortens the revision of ids
    /// kept once judged, as the reader names revisions.
    pub fn entities_label(&self, revision: impl Fn(&str) -> String) -> String {
        let (lost, of) = self.lost_ids();
        super::carry::entities_label(&self.faces, lost, of.map(revision).as_deref())
    }

    /// How the item was carried: `None` when it was stated at its decision's revision.
    pub fn carry_state(&self) -> Option<CarryState> {
        self.carried.as_ref().map(|c| c.state)
    }

    /// A digest of the item as an engineer judges it: what it says and the verdict it holds.
    /// The form of `request_verdicts` keeps one per item asked, so that an answer is recorded
    /// only on an item that still says what was shown and holds the verdict it held then (a
    /// replayed answer finds the verdict it wrote, and writes nothing).
    pub fn judged_digest(&self) -> String {
        use sha2::{Digest, Sha256};
        // serde_json of a plain struct cannot fail (see `digest`).
        let bytes = serde_json::to_vec(self).unwrap_or_default();
        hex16(
            Sha256::new()
                .chain_update(b"review-mcp basis item as judged v1\n")
                .chain_update(bytes),
        )
    }

    /// A digest of what the item says (every field but its verdict): the review card sends it
    /// back with a click, and the click is recorded only while the item at that index still
    /// says exactly this (see `record_verdict`).
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let shown = BasisItem {
            verdict: None,
            ..self.clone()
        };
        // serde_json of a plain struct cannot fail; an empty body would only weaken the
        // digest, never make two different items equal by itself.
        let bytes = serde_json::to_vec(&shown).unwrap_or_default();
        hex16(
            Sha256::new()
                .chain_update(b"review-mcp basis item v1\n")
                .chain_update(bytes),
        )
    }

    /// The rule the input schema also states: an unresolved or conflicting item carries a
    /// non-empty `question`. Checked again here so import cannot bypass it.
    pub fn check(&self, index: usize) -> Result<(), super::DomainError> {
        let blank = self.question.as_deref().is_none_or(|q| q.trim().is_empty());
        if self.state.needs_question() && blank {
            return Err(super::DomainError(format!(
                "basis[{index}] has state {:?} but no question: say what would settle it in \"question\"",
                self.state.as_str()
            )));
        }
        Ok(())
    }
}

/// The rule for what the caller states anew (the tools), which import does not apply: the
/// words a reader relies on are not blank. A subject is the decision's key, a disposition is
/// what was decided, and a requirement is what has to hold "stated so it can be checked"; a
/// blank one shows the engineer an empty line to accept or reject. Imported decisions keep
/// what was stored, so an export of an older database still imports.
pub fn check_stated(
    subject: &str,
    disposition: &str,
    basis: &[BasisItem],
) -> Result<(), super::DomainError> {
    if crate::text::is_blank(subject) {
        return Err(super::DomainError(
            "\"subject\" is blank: name what the decision is about (it is the decision's key at this revision)".into(),
        ));
    }
    if crate::text::is_blank(disposition) {
        return Err(super::DomainError(
            "\"disposition\" is blank: say what was decided, in a word or a phrase".into(),
        ));
    }
    for (index, item) in basis.iter().enumerate() {
        if crate::text::is_blank(&item.requirement) {
            return Err(super::DomainError(format!(
                "basis[{index}] has a blank \"requirement\": state what has to hold, so it can be checked"
            )));
        }
        item.check(index)?;
    }
    Ok(())
}

/// A stored decision, as export writes it and import reads it (`stale` is added by
/// [`Decision::to_wire`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub id: String,
    pub subject: String,
    pub disposition: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default)]
    pub basis: Vec<BasisItem>,
    pub artifact: Artifact,
    /// Who recorded it (the author of the server that last wrote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Carried from a decision of an earlier revision by `carry_forward`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried: Option<DecisionCarried>,
    /// Its revision was carried to a later one: kept as it was, marked superseded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded: Option<Superseded>,
    pub created_at: String,
    pub updated_at: String,
}

/// A decision as `remember_decision` and `recall_decisions` answer it: the stored fields
/// plus `stale`, borrowed, keys in alphabetical order (see [`super::record::RecordWire`]).
/// In a `recall_decisions` page at full detail (`A` is `usize`) its artifact (and so its
/// staleness) is named by index in the page's `artifacts` table, and `stale` is left out.
#[derive(Debug, Serialize)]
pub struct DecisionWire<'a, A = ArtifactWire<'a>> {
    artifact: A,
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<&'a str>,
    basis: Vec<BasisWire<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    carried: Option<&'a DecisionCarried>,
    created_at: &'a str,
    disposition: &'a str,
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    stale: Option<Option<bool>>,
    subject: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    superseded: Option<&'a Superseded>,
    updated_at: &'a str,
}

/// A basis item as answers carry it, keys in alphabetical order.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BasisWire<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    carried: Option<&'a Carried>,
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<&'a str>,
    faces: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    not_carried: Option<&'a NotCarried>,
    #[serde(skip_serializing_if = "Option::is_none")]
    question: Option<&'a str>,
    requirement: &'a str,
    source: Source,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_detail: Option<&'a str>,
    state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<&'a Verdict>,
}

/// A decision in summary form: what a model decides with (subject, disposition, its artifact
/// and staleness by index, how many basis items stated at its revision are in each state, how
/// many items are in each verdict state, and the open questions) without the basis itself.
#[derive(Debug, Serialize)]
pub struct DecisionSummaryWire<'a> {
    artifact: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    carried: Option<CarriedCounts<'a>>,
    disposition: &'a str,
    id: &'a str,
    items: usize,
    open_questions: Vec<OpenQuestion<'a>>,
    states: std::collections::BTreeMap<&'static str, usize>,
    subject: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a str>,
    updated_at: &'a str,
    verdicts: std::collections::BTreeMap<&'static str, usize>,
}

/// A carried decision in summary form: where it came from and how many of its basis items
/// are still inherited or to re-verify (the rest were stated again at this revision).
#[derive(Debug, Serialize)]
pub struct CarriedCounts<'a> {
    from: &'a str,
    inherited: usize,
    re_verify: usize,
}

/// An unresolved or conflicting basis item of a summary: its index, state and question.
#[derive(Debug, Serialize)]
pub struct OpenQuestion<'a> {
    index: usize,
    question: &'a str,
    state: State,
}

impl Decision {
    /// The items that await the engineer's verdict, as every channel asks them by default
    /// (`request_verdicts` without `items`, `review-mcp review`): no verdict of the engineer's
    /// own, and not inherited by `carry_forward` with the engineer's verdict at the earlier
    /// revision (that verdict is its history; it stands as inherited) unless `after` holds an
    /// engineer's verdict given at that revision after the carry (a clone's, by sync: the
    /// carried item does not show it, so it is asked about again).
    pub fn awaiting_engineer(&self, after: &[super::carry::VerdictAfterCarry]) -> Vec<usize> {
        self.basis
            .iter()
            .enumerate()
            .filter(|(_, b)| b.awaits_engineer())
            .filter(|(i, b)| !b.inherited_judged() || after.iter().any(|a| a.index == *i))
            .map(|(i, _)| i)
            .collect()
    }

    /// The full page form, its artifact being entry `artifact` of the page's table.
    pub fn page_wire(&self, artifact: usize) -> DecisionWire<'_, usize> {
        let mut w = self.wire_with(artifact, None);
        // Said once, in the table's entry (see `artifact::PageArtifact`).
        w.superseded = None;
        w
    }

    /// The summary form (see [`DecisionSummaryWire`]).
    pub fn summary_wire(&self, artifact: usize) -> DecisionSummaryWire<'_> {
        let mut states = std::collections::BTreeMap::new();
        let mut verdicts = std::collections::BTreeMap::new();
        for b in &self.basis {
            // A carried item's state is the earlier revision's: it is counted in `carried`
            // (inherited or to re-verify) until it is stated here, never as a state of this one.
            if b.carried.is_none() {
                *states.entry(b.state.as_str()).or_insert(0) += 1;
            }
            let v = match b.verdict.as_ref().map(|v| v.judgement) {
                None => "none",
                Some(j) => j.as_str(),
            };
            *verdicts.entry(v).or_insert(0) += 1;
        }
        DecisionSummaryWire {
            artifact,
            author: self.author.as_deref(),
            carried: self.carried.as_ref().map(|c| CarriedCounts {
                from: &c.from,
                inherited: self.carried_count(CarryState::Inherited),
                re_verify: self.carried_count(CarryState::Reverify),
            }),
            disposition: self.shown_disposition(),
            id: &self.id,
            items: self.basis.len(),
            open_questions: self.open_questions().collect(),
            states,
            subject: &self.subject,
            summary: self.summary.as_deref(),
            updated_at: &self.updated_at,
            verdicts,
        }
    }

    /// A carried decision's disposition: that it was carried from revision `from` and how
    /// many items need re-verification, never the old disposition restated as fresh (that one
    /// is kept in its `carried`). At most 200 characters, as every disposition.
    pub fn carried_disposition(&self, from: &str) -> String {
        format!(
            "carried from revision {}: {} of {} basis items to re-verify",
            short_revision(from),
            self.carried_count(CarryState::Reverify),
            self.basis.len()
        )
    }

    /// Counts again the items a carried decision has to re-verify once some were judged here
    /// (an engineer's verdict made them this revision's: [`BasisItem::judged_here`]), while
    /// its disposition is still the one the carry wrote for `before`, the decision as it was
    /// before they were judged; a disposition stated since is left as it is. Every path that
    /// judges a carried item ends with it: `record_verdicts`, and a sync or git merge that
    /// takes an engineer's verdict into one. A pure function of the two, so every clone that
    /// merges the same versions writes the same text.
    pub fn recount_carried(&mut self, before: &Decision) {
        if let Some(c) = &before.carried
            && before.carry_wrote_disposition()
        {
            self.disposition = self.carried_disposition(&c.from);
        }
    }

    /// Whether the disposition is still the one a carry wrote ([`Self::carried_disposition`]),
    /// not one stated since.
    pub fn carry_wrote_disposition(&self) -> bool {
        self.carried
            .as_ref()
            .is_some_and(|c| self.disposition == self.carried_disposition(&c.from))
    }

    /// The disposition as a summary says it: "carried" while it is the one a carry wrote,
    /// whose revision and counts the summary's `carried` and `items` hold.
    pub fn shown_disposition(&self) -> &str {
        if self.carry_wrote_disposition() {
            "carried"
        } else {
            &self.disposition
        }
    }

    /// How many basis items are carried in `state`.
    pub fn carried_count(&self, state: CarryState) -> usize {
        self.basis
            .iter()
            .filter(|b| b.carried.as_ref().is_some_and(|c| c.state == state))
            .count()
    }

    /// Where the decision stands in the worklist of a carried revision: 0 when an item must
    /// be re-verified, 1 when an item is inherited, 2 when all was stated at this revision.
    pub fn worklist_rank(&self) -> u8 {
        if self.carried_count(CarryState::Reverify) > 0 {
            0
        } else if self.carried_count(CarryState::Inherited) > 0 {
            1
        } else {
            2
        }
    }

    /// The basis items still open (unresolved or conflicting), with their questions.
    pub fn open_questions(&self) -> impl Iterator<Item = OpenQuestion<'_>> {
        self.basis
            .iter()
            .enumerate()
            .filter(|(_, b)| b.state.needs_question())
            .map(|(index, b)| OpenQuestion {
                index,
                question: b.question.as_deref().unwrap_or(""),
                state: b.state,
            })
    }

    /// Dates the verdicts of a line written before provenance existed: they were given no
    /// later than the decision's last change.
    pub fn date_verdicts(&mut self) {
        for v in self.basis.iter_mut().filter_map(|b| b.verdict.as_mut()) {
            if v.at.is_empty() {
                v.at = self.updated_at.clone();
            }
        }
    }

    /// A digest of the whole basis (every field of every item, verdicts included): a
    /// question put to the engineer is answered only while the basis is still this one.
    pub fn basis_digest(&self) -> String {
        use sha2::{Digest, Sha256};
        #[cfg(test)]
        BASIS_DIGESTS.with(|n| n.set(n.get() + 1));
        let mut h = Sha256::new();
        for item in &self.basis {
            // serde_json of a plain struct cannot fail; an empty line would only weaken the
            // digest, never make two different bases equal by itself.
            h.update(serde_json::to_vec(item).unwrap_or_default());
            h.update(b"\n");
        }
        hex16(h)
    }

    /// The wire form with `stale` (see [`super::Record::wire`]).
    pub fn wire(&self, current: Option<&str>) -> DecisionWire<'_> {
        let stale = stale(&self.artifact.revision, current);
        self.wire_with(self.artifact.wire(), Some(stale))
    }

    fn wire_with<A>(&self, artifact: A, stale: Option<Option<bool>>) -> DecisionWire<'_, A> {
        DecisionWire {
            artifact,
            author: self.author.as_deref(),
            basis: self.basis.iter().map(BasisItem::wire).collect(),
            carried: self.carried.as_ref(),
            created_at: &self.created_at,
            disposition: &self.disposition,
            id: &self.id,
            stale,
            subject: &self.subject,
            summary: self.summary.as_deref(),
            superseded: self.superseded.as_ref(),
            updated_at: &self.updated_at,
        }
    }

    /// [`Decision::wire`] as a JSON value (for resources).
    pub fn to_wire(&self, current: Option<&str>) -> Value {
        serde_json::to_value(self.wire(current)).unwrap_or(Value::Null)
    }

    /// [`Decision::to_wire`] with each basis item's [`BasisItem::digest`] as `digest`: what
    /// the review card is given (`show_review`, `record_verdict`) and sends back with a click.
    /// `after`: the decision's verdicts given after the carry (`Store::verdicts_after_carry`),
    /// each as its item's `after_carry`.
    pub fn to_card_wire(
        &self,
        current: Option<&str>,
        after: &[super::carry::VerdictAfterCarry],
    ) -> Value {
        let mut v = self.to_wire(current);
        if let Some(Value::Array(items)) = v.get_mut("basis") {
            for (i, (item, b)) in items.iter_mut().zip(&self.basis).enumerate() {
                if let Value::Object(m) = item {
                    m.insert("digest".into(), Value::String(b.digest()));
                    // A carried item's earlier revision got the engineer's verdict after the
                    // carry: the card names it on the item, as the other readers do.
                    if let Some(a) = after.iter().find(|a| a.index == i && b.carried.is_some()) {
                        m.insert("after_carry".into(), a.item_wire());
                    }
                }
            }
        }
        v
    }
}

impl BasisItem {
    fn wire(&self) -> BasisWire<'_> {
        BasisWire {
            carried: self.carried.as_ref(),
            evidence: self.evidence.as_deref(),
            faces: &self.faces,
            not_carried: self.not_carried.as_ref(),
            question: self.question.as_deref(),
            requirement: &self.requirement,
            source: self.source,
            source_detail: self.source_detail.as_deref(),
            state: self.state,
            verdict: self.verdict.as_ref(),
        }
    }
}

/// What the crate's unit tests build items and verdicts from.
#[cfg(test)]
impl BasisItem {
    /// `requirement` from the drawing, satisfied, about the whole part, without a verdict.
    pub(crate) fn stated(requirement: &str) -> BasisItem {
        BasisItem {
            requirement: requirement.into(),
            source: Source::Drawing,
            source_detail: None,
            evidence: None,
            state: State::Satisfied,
            question: None,
            faces: vec![],
            verdict: None,
            carried: None,
            not_carried: None,
        }
    }
}

#[cfg(test)]
impl Verdict {
    /// `judgement` through `via`, undated, without author, meaning or reason.
    pub(crate) fn given(judgement: Judgement, via: Via) -> Verdict {
        Verdict {
            at: String::new(),
            author: None,
            judgement,
            meaning: None,
            reason: None,
            via,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basis_item_wire_names_round_trip() {
        let v = serde_json::json!({
            "requirement": "bore H7", "source": "model-pmi", "sourceDetail": "PMI 4",
            "state": "not-applicable", "faces": ["face:3"],
            "verdict": {"at": "2026-12-01T00:00:00.000Z", "judgement": "accepted", "via": "app"}
        });
        let item: BasisItem = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(item.source, Source::ModelPmi);
        assert_eq!(serde_json::to_value(&item).unwrap(), v);
        assert_eq!(Source::parse("shop-spec"), Some(Source::ShopSpec));
        assert_eq!(State::NotApplicable.as_str(), "not-applicable");
    }

    #[test]
    fn wire_is_stored_form_plus_stale_in_sorted_key_order() {
        let d: Decision = serde_json::from_value(serde_json::json!({
            "id": "dec_1", "subject": "s", "disposition": "hold", "summary": "x",
            "basis": [
                {"requirement": "r", "source": "drawing", "sourceDetail": "n4", "evidence": "e",
                 "state": "unresolved", "question": "q", "faces": ["face:1"],
                 "verdict": {"judgement": "rejected", "reason": "why", "via": "elicitation",
                             "at": "2026-12-01T00:00:00.000Z"}},
                {"requirement": "r2", "source": "standard", "state": "satisfied"}
            ],
            "artifact": {"revision": "sha256:x", "format": "step", "units": "mm"},
            "created_at": "c", "updated_at": "u"
        }))
        .unwrap();
        for cur in [None, Some("sha256:x"), Some("sha256:y")] {
            // The stored form through serde_json's sorted maps, plus `stale`.
            let mut want = serde_json::to_value(&d).unwrap();
            want["stale"] = cur.map_or(Value::Null, |c| Value::Bool(c != "sha256:x"));
            let got = serde_json::to_string(&d.wire(cur)).unwrap();
            assert_eq!(got, want.to_string());
        }
    }

    /// A verdict written before provenance existed reads as the assistant's, dated by the
    /// decision's last change.
    #[test]
    fn old_verdict_reads_as_the_assistants_dated_by_the_decision() {
        let mut d: Decision = serde_json::from_value(serde_json::json!({
            "id": "dec_1", "subject": "s", "disposition": "hold",
            "basis": [{"requirement": "r", "source": "drawing", "state": "satisfied",
                       "verdict": {"judgement": "accepted"}}],
            "artifact": {"revision": "sha256:x", "format": "step"},
            "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-02T00:00:00.000Z"
        }))
        .unwrap();
        d.date_verdicts();
        let v = d.basis[0].verdict.clone().unwrap();
        assert_eq!(v.via, Via::Assistant);
        assert_eq!(v.at, "2026-01-02T00:00:00.000Z");
        assert!(!v.via.is_engineer());
        assert!(Via::Elicitation.is_engineer() && Via::App.is_engineer());
    }

    #[test]
    fn basis_digest_moves_with_any_field_of_the_basis() {
        let mut d: Decision = serde_json::from_value(serde_json::json!({
            "id": "dec_1", "subject": "s", "disposition": "hold",
            "basis": [{"requirement": "r", "source": "drawing", "state": "satisfied"}],
            "artifact": {"revision": "sha256:x", "format": "step"},
            "created_at": "c", "updated_at": "u"
        }))
        .unwrap();
        let before = d.basis_digest();
        d.disposition = "release".into();
        assert_eq!(d.basis_digest(), before, "the disposition is not the basis");
        d.basis[0].verdict = Some(Verdict {
            at: "t".into(),
            ..Verdict::given(Judgement::Accepted, Via::App)
        });
        assert_ne!(d.basis_digest(), before);
    }

    /// What the card binds a click to: everything the item says, not its verdict.
    #[test]
    fn item_digest_moves_with_what_the_item_says_not_with_its_verdict() {
        let item: BasisItem = serde_json::from_value(serde_json::json!({
            "requirement": "Bore 12H7", "source": "drawing", "state": "satisfied",
            "evidence": "12.008", "faces": ["face:1"]
        }))
        .unwrap();
        let before = item.digest();
        assert_eq!(before.len(), 32);
        let judged = BasisItem {
            verdict: Some(Verdict {
                author: Some("Ada".into()),
                at: "t".into(),
                ..Verdict::given(Judgement::Rejected, Via::App)
            }),
            ..item.clone()
        };
        assert_eq!(judged.digest(), before);
        let changes = [
            BasisItem {
                requirement: "Bore 12H8".into(),
                ..item.clone()
            },
            BasisItem {
                state: State::Violated,
                ..item.clone()
            },
            BasisItem {
                evidence: None,
                ..item.clone()
            },
            BasisItem {
                faces: vec!["face:2".into()],
                ..item.clone()
            },
            BasisItem {
                source: Source::Standard,
                ..item.clone()
            },
            BasisItem {
                source_detail: Some("note 4".into()),
                ..item.clone()
            },
            BasisItem {
                question: Some("which?".into()),
                ..item.clone()
            },
        ];
        for c in changes {
            assert_ne!(c.digest(), before, "{c:?}");
        }
    }

    #[test]
    fn blank_subject_disposition_or_requirement_refused_by_name() {
        let item = |requirement: &str| -> BasisItem {
            serde_json::from_value(serde_json::json!({
                "requirement": requirement, "source": "drawing", "state": "satisfied"
            }))
            .unwrap()
        };
        let ok = [item("bore H7")];
        assert!(check_stated("bore", "accept", &ok).is_ok());
        assert!(
            check_stated(" \t", "accept", &ok)
                .unwrap_err()
                .0
                .contains("\"subject\"")
        );
        assert!(
            check_stated("bore", "\n", &ok)
                .unwrap_err()
                .0
                .contains("\"disposition\"")
        );
        let basis = [item("bore H7"), item(""), item(" ")];
        let e = check_stated("bore", "accept", &basis).unwrap_err().0;
        assert!(e.starts_with("basis[1] has a blank \"requirement\""), "{e}");
    }

    #[test]
    fn basis_item_unresolved_without_question_refused() {
        let item: BasisItem = serde_json::from_value(serde_json::json!({
            "requirement": "r", "source": "drawing", "state": "unresolved", "question": "  "
        }))
        .unwrap();
        assert!(item.check(2).unwrap_err().0.contains("basis[2]"));
    }
}
