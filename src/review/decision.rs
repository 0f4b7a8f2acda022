//! A decision: a disposition reached about one revision and the basis items it rests on.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Artifact;
use super::record::stale;

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

impl State {
    /// `unresolved` and `conflicting` need a `question`: what would settle it.
    pub fn needs_question(self) -> bool {
        matches!(self, State::Unresolved | State::Conflicting)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub judgement: Judgement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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
}

impl BasisItem {
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
    pub created_at: String,
    pub updated_at: String,
}

impl Decision {
    /// The wire form with `stale` (see [`super::Record::to_wire`]).
    pub fn to_wire(&self, current: Option<&str>) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.insert("stale".into(), stale(&self.artifact.revision, current));
        }
        v
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
            "verdict": {"judgement": "accepted"}
        });
        let item: BasisItem = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(item.source, Source::ModelPmi);
        assert_eq!(serde_json::to_value(&item).unwrap(), v);
        assert_eq!(Source::parse("shop-spec"), Some(Source::ShopSpec));
        assert_eq!(State::NotApplicable.as_str(), "not-applicable");
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
