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
use crate::text::prefix_chars;

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
        description: "Save what you learned about geometry of one exact part revision, so it can be recalled later instead of asked again. \
With `name`: a named feature (e.g. \"mating face\"), keyed by the artifact's locator (its uri, else its revision) and the name; remembering the same name again REPLACES it (entity ids, note, tags, revision) and returns replaced: true. \
Without `name`: an anonymous note; every call APPENDS a new note (replaced: false). \
`entity_ids` are the ids the geometry server gave you for this revision (empty array = the whole part); `id_scheme` names their scheme (default \"opaque\"). \
Supply the artifact's actual `revision` (sha256:<64 lowercase hex>); `uri` may be a URI or a filesystem path. \
Example: {\"artifact\":{\"revision\":\"sha256:<64 hex>\",\"format\":\"step\",\"uri\":\"/work/bracket.step\",\"units\":\"mm\"},\"entity_ids\":[\"face:12\"],\"name\":\"mating face\",\"note\":\"Mates with the housing flange\",\"tags\":[\"interface\"]}.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "artifact": s::artifact_input(),
                "entity_ids": s::strings(MAX_ENTITIES, MAX_ENTITY, "The entity set this record is about, as ids of this revision; [] for the whole part."),
                "id_scheme": {"type": "string", "minLength": 1, "maxLength": MAX_SHORT, "description": "The scheme the entity ids belong to (default \"opaque\")."},
                "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME, "description": "A feature name; re-remembering it replaces the feature."},
                "note": s::text(MAX_TEXT, "Free text: what matters about this geometry."),
                "tags": s::strings(MAX_TAGS, MAX_TAG, "Labels that recall can filter on (all must match).")
            },
            "required": ["artifact", "entity_ids"],
            "anyOf": [{"required": ["name"]}, {"required": ["note"]}],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "record": s::record_output(),
                "replaced": {"type": "boolean", "description": "true when a named feature was replaced."}
            },
            "required": ["record", "replaced"]
        }),
        annotations: s::annotations("Remember a feature or note", false, true, false),
        ui: super::Ui::None,
        run: |store, args| run(store, super::parse(NAME, args)?).map(super::Step::Done),
    }
}

pub fn run(store: &mut Store, args: Args) -> Result<ToolOutput, ToolError> {
    let artifact = args.artifact.normalise()?;
    let new = NewRecord {
        artifact,
        name: args.name,
        note: args.note,
        tags: args.tags,
        entity_ids: args.entity_ids,
        id_scheme: args.id_scheme.unwrap_or_else(|| "opaque".into()),
    };
    store.remember_answered(&new, |record, replaced| {
        let what = match (record.kind, &record.name) {
            (Kind::Feature, Some(n)) => format!("feature \"{}\"", prefix_chars(n, 60)),
            _ => "note".to_string(),
        };
        let verb = if replaced { "Replaced" } else { "Saved" };
        let summary = format!(
            "{verb} {what} ({}) on {} of {}, {} entit{}.",
            record.id,
            short_rev(&record.artifact.revision),
            record.artifact.locator(),
            record.entity_ids.len(),
            if record.entity_ids.len() == 1 {
                "y"
            } else {
                "ies"
            }
        );
        let current = Some(record.artifact.revision.as_str());
        ToolOutput::new(
            &Saved {
                record: record.wire(current),
                replaced,
            },
            summary,
        )?
        .refuse_if_too_big(|| format!("record {}", record.id))
    })
}

/// The answer: the record as stored, and whether it replaced an earlier one.
#[derive(Serialize)]
struct Saved<'a> {
    record: RecordWire<'a>,
    replaced: bool,
}
