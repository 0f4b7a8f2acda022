//! `forget`: delete a named feature, the anonymous notes on an entity, or a decision by
//! subject. Idempotent: forgetting what is not there deletes nothing and succeeds.

use serde::Deserialize;
use serde_json::json;

use super::schema::{self as s, MAX_NAME, MAX_SUBJECT};
use super::{ArtifactArg, ToolError, ToolOutput, ToolSpec};
use crate::store::Store;
use crate::text::{inline, quoted};

pub const NAME: &str = "forget";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    artifact: ArtifactArg,
    name: Option<String>,
    entity_id: Option<String>,
    subject: Option<String>,
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Forget a record or decision",
        description: "Delete, permanently, exactly one of: the feature `name` at the artifact's locator, the notes of the artifact's revision whose entity set holds `entity_id`, or the decision `subject` at the artifact's revision. Forgetting what is not there answers deleted: 0.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "artifact": s::artifact_input(),
                "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
                "entity_id": s::entity_id(),
                "subject": {"type": "string", "minLength": 1, "maxLength": MAX_SUBJECT}
            },
            "required": ["artifact"],
            "oneOf": [{"required": ["name"]}, {"required": ["entity_id"]}, {"required": ["subject"]}],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {"deleted": {"type": "integer", "minimum": 0}},
            "required": ["deleted"]
        }),
        annotations: s::annotations("Forget a record or decision", false, true, true),
        ui: super::Ui::None,
        run: |store, args| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let a = args.artifact.normalise()?;
    let mut hint = String::new();
    let (deleted, what) = match (&args.name, &args.entity_id, &args.subject) {
        (Some(name), None, None) => {
            let (n, stands_at) = store.forget_feature_saying(a.locator(), name, &a.revision)?;
            // A feature with carries behind it is forgotten at its own revision: say which.
            if let Some(at) = stands_at {
                hint = format!(
                    " The feature stands at revision {at} of this file: forget it with that revision."
                );
            }
            (n, format!("feature {}", quoted(name, 60)))
        }
        (None, Some(entity), None) => (
            store.forget_notes(&a.revision, a.uri.as_deref(), entity)?,
            format!("notes on {}", inline(entity, 60)),
        ),
        (None, None, Some(subject)) => (
            store.forget_decision(a.locator(), subject, &a.revision)?,
            format!("decision {}", quoted(subject, 60)),
        ),
        _ => {
            return Err(ToolError::Invalid(
                "forget needs exactly one of name, entity_id or subject".into(),
            ));
        }
    };
    ToolOutput::new(
        &json!({"deleted": deleted}),
        format!("Deleted {deleted} ({what}).{hint}"),
    )
}
