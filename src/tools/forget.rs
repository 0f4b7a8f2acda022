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
        run: |store, args, _| run(store, super::parse(NAME, args)?).map(super::Step::Done),
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
    // Nothing at the locator named, but this revision has it under another one (the part
    // moved, or the call named the revision alone for an item recorded with its file): say
    // where, or the model reports as forgotten what is still there.
    if deleted == 0 && hint.is_empty() {
        hint = elsewhere(store, &a, args.name.as_deref(), args.subject.as_deref())?;
    }
    // Nothing of that exact name anywhere, but one here a person reads as it ("Boré" stored
    // with its accent decomposed, "Bore " with a trailing space): name it and what differs,
    // or the model reports as forgotten what is still there.
    if deleted == 0 && hint.is_empty() {
        let stored = match (&args.name, &args.subject) {
            (Some(_), _) => store.feature_names(a.locator(), super::NAMES_COMPARED)?,
            (_, Some(_)) => store.decision_subjects(Some(a.locator()), super::NAMES_COMPARED)?,
            _ => Vec::new(),
        };
        let asked = args.name.as_deref().or(args.subject.as_deref());
        if let Some(asked) = asked {
            hint = super::named_alike_sentence(asked, &stored, "forget it");
        }
    }
    ToolOutput::new(
        &json!({"deleted": deleted}),
        format!("Deleted {deleted} ({what}).{hint}"),
    )
}

/// Where this revision has the feature `name` or the decision `subject` when it is not at the
/// artifact's locator: the files (or "without a uri") to forget it with. Empty when it has
/// none elsewhere.
fn elsewhere(
    store: &mut Store,
    a: &crate::review::Artifact,
    name: Option<&str>,
    subject: Option<&str>,
) -> Result<String, ToolError> {
    let locator = a.locator();
    let mut files: Vec<Option<String>> = Vec::new();
    let mut see = |uri: Option<&str>| {
        let other = uri.map_or(a.uri.is_some(), |u| u != locator);
        if other && !files.iter().any(|f| f.as_deref() == uri) {
            files.push(uri.map(str::to_string));
        }
    };
    let page = crate::store::PageRequest::first(super::OTHER_FILES_LOOKED_AT);
    if let Some(subject) = subject {
        let q = crate::store::DecisionQuery {
            revision: Some(a.revision.clone()),
            subject: Some(subject.to_string()),
            ..Default::default()
        };
        store.recall_decisions_each(&q, page, |d| {
            see(d.artifact.uri.as_deref());
            true
        })?;
    } else if let Some(name) = name {
        for uri in store.feature_files(&a.revision, name, super::OTHER_FILES_LOOKED_AT)? {
            see(uri.as_deref());
        }
    }
    let places: Vec<String> = files
        .iter()
        .take(2)
        .map(|f| match f {
            Some(uri) => format!(
                "under the file {}: forget it with that uri",
                super::uri_to_call(uri)
            ),
            None => "recorded without a uri: forget it with the artifact's revision and no uri"
                .to_string(),
        })
        .collect();
    if places.is_empty() {
        return Ok(String::new());
    }
    Ok(format!(" This revision has it {}.", places.join("; and ")))
}
