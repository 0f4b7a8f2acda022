//! `remember`: save a named feature (re-remembering replaces) or an anonymous note
//! (re-remembering appends) against an entity set of one revision.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::schema::{
    self as s, MAX_ENTITIES, MAX_ENTITY, MAX_NAME, MAX_SHORT, MAX_TAG, MAX_TAGS, MAX_TEXT,
};
use super::{ArtifactArg, ToolError, ToolOutput, ToolSpec, short_rev};
use crate::review::Kind;
use crate::review::record::RecordWire;
use crate::store::{NewRecord, Store};
use crate::text::quoted;

pub const NAME: &str = "remember";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    artifact: ArtifactArg,
    entity_ids: Vec<String>,
    id_scheme: Option<String>,
    name: Option<String>,
    note: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Remember a feature or note",
        description: "Save what you learned about the geometry of one exact part revision, to recall it instead of asking again. \
With `name`: a feature keyed by the artifact's locator (uri, else revision) and name; the same name again REPLACES it (replaced: true). Without `name`: a new note each call. \
`entity_ids`: the geometry server's ids at this revision ([]: the whole part), in scheme `id_scheme` (default \"opaque\").",
        input_schema: json!({
            "type": "object",
            "properties": {
                "artifact": s::artifact_input(),
                "entity_ids": s::strings(MAX_ENTITIES, MAX_ENTITY, "The entity set this record is about, as ids of this revision; [] for the whole part."),
                "id_scheme": {"type": "string", "minLength": 1, "maxLength": MAX_SHORT},
                "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
                "note": s::text(MAX_TEXT, ""),
                "tags": s::strings(MAX_TAGS, MAX_TAG, "Labels recall filters on.")
            },
            "required": ["artifact", "entity_ids"],
            "anyOf": [{"required": ["name"]}, {"required": ["note"]}],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "record": s::record_output(),
                "replaced": {"type": "boolean", "description": "true when a named feature was replaced."},
                "carried_on": {"type": "object", "description": "Only when the revision named was carried on past the feature: it stands at `revision`, unchanged, and `record` is what the named revision says of it (superseded).", "properties": {"id": {"type": "string"}, "revision": {"type": "string"}}, "required": ["id", "revision"]}
            },
            "required": ["record", "replaced"]
        }),
        annotations: s::annotations("Remember a feature or note", false, true, false),
        ui: super::Ui::None,
        run: |store, args, _| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let artifact = args.artifact.normalise()?;
    crate::review::record::check_name(args.name.as_deref())?;
    let new = NewRecord {
        artifact,
        name: args.name,
        note: args.note,
        tags: args.tags,
        entity_ids: args.entity_ids,
        id_scheme: args.id_scheme.unwrap_or_else(|| "opaque".into()),
    };
    let alike = new.name.as_deref().map(super::names_alike);
    store.remember_answered(&new, alike.as_ref(), |record, replaced, onward, others| {
        let what = match (record.kind, &record.name) {
            (Kind::Feature, Some(n)) => format!("feature {}", quoted(n, 60)),
            _ => "note".to_string(),
        };
        let verb = if replaced { "Replaced" } else { "Saved" };
        let rev = short_rev(&record.artifact.revision);
        // Stated at a revision the feature was carried on from: what that revision says of
        // it, beside the feature as it stands.
        let what = match onward {
            Some(_) => format!("what {rev} says of {what} (its copy, superseded)"),
            None => what,
        };
        // The file, when the record has one (without, its locator is the revision just said).
        let of = record
            .artifact
            .uri
            .as_deref()
            .map(|uri| format!(" of {}", crate::text::locator(uri, 4096)))
            .unwrap_or_default();
        let mut summary = format!(
            "{verb} {what} ({}) on {rev}{of}, {} entit{}.",
            record.id,
            record.entity_ids.len(),
            if record.entity_ids.len() == 1 {
                "y"
            } else {
                "ies"
            }
        );
        if let Some(o) = onward {
            let at = short_rev(&o.artifact.revision);
            summary.push_str(&format!(
                " {rev} was carried on: the feature ({}) stands at {at}, unchanged; to change it, remember it at {at}.",
                o.id
            ));
        }
        if let Some(name) = &record.name {
            summary.push_str(&super::stated_alike_sentence(name, others, "feature", "change"));
        }
        let current = Some(record.artifact.revision.as_str());
        ToolOutput::new(
            &Saved {
                record: record.wire(current),
                replaced,
                carried_on: onward.map(|o| CarriedOn {
                    id: &o.id,
                    revision: &o.artifact.revision,
                }),
            },
            summary,
        )?
        .refuse_if_too_big(|| format!("record {}", record.id))?
        .fit_member("record", crate::resources::RECORDS)
    })
}

/// The answer: the record as stored, whether it replaced an earlier one, and the feature as
/// it stands when the record is what an earlier revision says of it.
#[derive(Serialize)]
struct Saved<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    carried_on: Option<CarriedOn<'a>>,
    record: RecordWire<'a>,
    replaced: bool,
}

/// The feature as it stands at a later revision, left unchanged.
#[derive(Serialize)]
struct CarriedOn<'a> {
    id: &'a str,
    revision: &'a str,
}
