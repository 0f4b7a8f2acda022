//! `artifact_revision`: the revision of a file the server can read, so that a host without a
//! shell can start a review. The only tool that reads a CAD file, and it reads its bytes
//! only (streamed into sha256: `review::hashing`); every other tool takes the revision as
//! given and never opens the file.

use serde::Deserialize;
use serde_json::json;

use super::schema::{self as s, MAX_URI, REVISION_PATTERN};
use super::{ToolError, ToolOutput, ToolSpec};
use crate::review::absolute_path_as_uri;
use crate::review::hashing::{file_digest, path_argument};
use crate::store::Store;

pub const NAME: &str = "artifact_revision";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    path: String,
}

pub fn spec() -> ToolSpec {
    ToolSpec {
        name: NAME,
        title: "Revision of a file",
        description: "The artifact.revision (sha256 of the bytes) of a file this server can read: absolute path or file: URI. The only tool that reads a CAD file, and it never parses it; only a regular file is read. The other tools take the revision as given.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "minLength": 1, "maxLength": MAX_URI}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "revision": {"type": "string", "pattern": REVISION_PATTERN},
                "uri": {"type": "string"},
                "bytes": {"type": "integer", "minimum": 0}
            },
            "required": ["revision", "uri", "bytes"]
        }),
        annotations: s::annotations("Revision of a file", true, false, true),
        ui: super::Ui::None,
        run: |_store: &mut Store, args, _| run(super::parse(NAME, args)?).map(super::Step::Done),
    }
}

pub fn run(args: Args) -> Result<ToolOutput, ToolError> {
    let path = path_argument(&args.path)?;
    let shown = crate::text::escape_controls(&args.path).into_owned();
    let (revision, bytes) = file_digest(&path)
        .map_err(|e| ToolError::Invalid(format!("{shown}: {e}. Nothing was hashed.")))?;
    let uri = absolute_path_as_uri(&path)?;
    ToolOutput::new(
        &json!({"bytes": bytes, "revision": revision, "uri": uri}),
        format!("{revision} ({bytes} bytes) of {uri}: use it as artifact.revision, with this uri."),
    )
}
