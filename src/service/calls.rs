//! `tools/call`: the registry of tools with their compiled validators, a call validated and
//! run, and its outcome as the result both eras answer.

use std::sync::OnceLock;
use std::time::Instant;

use serde_json::Value;

use super::{Context, Service, ServiceError};
use crate::bounds;
use crate::store::Store;
use crate::text;
use crate::tools::{self, Step, ToolError, ToolOutput, ToolSpec};
use crate::version::Version;
use crate::wire::{self, Payload};

/// One tool with its validators, each compiled on first use and kept for the life of the
/// process (the catalog is fixed, so every `Service` shares one registry).
pub(super) struct RegisteredTool {
    pub(super) spec: ToolSpec,
    input: OnceLock<Result<jsonschema::Validator, String>>,
    output: OnceLock<Result<jsonschema::Validator, String>>,
}

pub(super) fn registry() -> &'static [RegisteredTool] {
    static REGISTRY: OnceLock<Vec<RegisteredTool>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        tools::catalog()
            .into_iter()
            .map(|spec| RegisteredTool {
                spec,
                input: OnceLock::new(),
                output: OnceLock::new(),
            })
            .collect()
    })
}

pub(super) fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

impl Service {
    pub(super) fn call_tool(
        &mut self,
        name: &str,
        args: &Value,
        ctx: Context,
    ) -> Result<Step<Payload>, ServiceError> {
        let version = ctx.version;
        let Some(tool) = registry().iter().find(|t| t.spec.name == name) else {
            // The names a model may call (not the card's own), so a misspelt one is put right
            // in the next call.
            let names: Vec<&str> = registry()
                .iter()
                .filter(|t| t.spec.ui != crate::tools::Ui::AppOnly)
                .map(|t| t.spec.name)
                .collect();
            return Err(ServiceError::InvalidParams(format!(
                "Unknown tool: {}. The tools are {} (tools/list describes them)",
                text::inline(name, 100),
                names.join(", ")
            )));
        };
        let f = version.features();
        let started = Instant::now();
        if let Some(msg) = validate_args(tool, args, &mut self.store) {
            self.log
                .push(("warning", format!("tool {name} refused the call: {msg}")));
            log_call(name, version, "invalid-arguments", started);
            if !f.schema_errors_as_tool_results {
                return Err(ServiceError::InvalidParams(msg));
            }
            return Ok(Step::Done(wire::tool_error(&msg)));
        }
        let step = (tool.spec.run)(&mut self.store, args, ctx.caller());
        if matches!(step, Ok(Step::Ask(_))) {
            log_call(name, version, "asked", started);
        }
        Ok(self.served(name, step, version, started))
    }

    /// A tool's step as what the call serves: the question to put, or the result.
    pub(super) fn served(
        &mut self,
        name: &str,
        step: Result<Step, ToolError>,
        version: Version,
        started: Instant,
    ) -> Step<Payload> {
        match step {
            Ok(step) => step.map(|out| self.tool_payload(name, Ok(out), version, started)),
            Err(e) => Step::Done(self.tool_payload(name, Err(e), version, started)),
        }
    }

    /// A tool's outcome as its `tools/call` result, logged; a failure is an `isError`
    /// result whose text says what to fix (a damaged file named, with its `check` command),
    /// and a storage failure is logged once.
    pub(super) fn tool_payload(
        &mut self,
        name: &str,
        out: Result<ToolOutput, ToolError>,
        version: Version,
        started: Instant,
    ) -> Payload {
        let f = version.features();
        let (result, outcome) = match out.map_err(|e| e.of_file(self.store.path())) {
            Ok(out) => match check_output(name, &out.structured) {
                Ok(()) => {
                    let mut result =
                        wire::tool_result(&out.summary, out.structured, f.structured_content);
                    if let Some(meta) = out.meta {
                        result.meta_mut().extend(meta);
                    }
                    (result, "ok")
                }
                Err(e) => {
                    log::error!("tool {name}: {e}");
                    (wire::tool_error(&e.to_string()), "internal-error")
                }
            },
            Err(e @ ToolError::Invalid(_)) => {
                self.log
                    .push(("warning", format!("tool {name} refused the call: {e}")));
                (wire::tool_error(&e.to_string()), "refused")
            }
            Err(e @ (ToolError::Storage(_) | ToolError::Damaged(_))) => {
                let message = e.to_string();
                if self.last_storage_failure.as_ref() != Some(&message) {
                    self.log.push(("error", format!("tool {name}: {message}")));
                    self.last_storage_failure = Some(message.clone());
                }
                (wire::tool_error(&message), "storage-error")
            }
            Err(e @ ToolError::Internal(_)) => {
                log::error!("tool {name}: {e}");
                self.log.push(("error", format!("tool {name}: {e}")));
                (wire::tool_error(&e.to_string()), "internal-error")
            }
        };
        if outcome == "ok" {
            self.last_storage_failure = None;
        }
        log_call(name, version, outcome, started);
        result
    }
}

/// Validates tool arguments against the tool's `inputSchema`; `Some(message)` on failure. A
/// revision given by its short form is looked up in `store` (`tools::short_revision_refused`).
pub(super) fn validate_args(
    tool: &RegisteredTool,
    args: &Value,
    store: &mut Store,
) -> Option<String> {
    let compiled = tool.input.get_or_init(|| compile(&tool.spec.input_schema));
    let validator = match compiled {
        Ok(v) => v,
        Err(e) => {
            return Some(format!(
                "the input schema of {} is broken: {e}",
                tool.spec.name
            ));
        }
    };
    // Bounded whatever the arguments hold: at most five errors, found without building the
    // error of every failing item (see `bounds`).
    let found = bounds::schema_errors(validator, &tool.spec.input_schema, args, MAX_LISTED_ERRORS);
    if found.is_empty() {
        return None;
    }
    let errors: Vec<String> = found
        .errors
        .iter()
        .map(|e| {
            let at = if e.path.is_empty() {
                "arguments"
            } else {
                e.path.as_str()
            };
            let short = args
                .pointer(&e.path)
                .and_then(Value::as_str)
                .filter(|_| e.pattern.as_deref() == Some(tools::schema::REVISION_PATTERN))
                .and_then(|v| tools::short_revision_refused(store, v));
            if let Some(why) = short {
                return format!("{}: {why}", text::escape_controls(at));
            }
            // A member the tool's own check would refuse the call without, with its reason
            // and what to send (`entity_id` without `artifact`): the tool's words, which the
            // schema's "is a required property" would keep from the model.
            if let Some(why) = e
                .missing
                .as_deref()
                .filter(|_| e.path.is_empty())
                .and_then(|m| tools::required_refused(tool.spec.name, m, args))
            {
                return format!("{at}: {why}");
            }
            // Short even when the offending value is a megabyte string. The middle is cut, not
            // the end: jsonschema puts the value first and the rule last, and the rule is what
            // the caller needs to read.
            // jsonschema quotes the value (or an unexpected key) with its bidirectional, C1
            // and invisible characters raw, and a key's line breaks too: escaped, as every
            // other refusal shows what it quotes.
            format!(
                "{}: {}",
                text::escape_controls(at),
                text::escape_controls(&text::cut_middle(&e.message, 300))
            )
        })
        .collect();
    Some(format!(
        "Invalid arguments for tool {}: {}{}. See the tool's inputSchema for the expected shape.",
        tool.spec.name,
        errors.join("; "),
        found.left_out_text()
    ))
}

/// How many schema errors one refusal lists.
const MAX_LISTED_ERRORS: usize = 5;

/// In debug builds (and so in every test), a structured result that violates the tool's own
/// `outputSchema` is an internal error instead of a silently wrong answer.
pub(super) fn check_output(name: &str, structured: &wire::Encoded) -> Result<(), ServiceError> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    let Some(tool) = registry().iter().find(|t| t.spec.name == name) else {
        return Err(ServiceError::Internal(format!("no tool {name}")));
    };
    let structured = structured.to_value().map_err(|e| {
        ServiceError::Internal(format!(
            "{} produced output that is not JSON: {e}",
            tool.spec.name
        ))
    })?;
    let validator = tool
        .output
        .get_or_init(|| compile(&tool.spec.output_schema))
        .as_ref()
        .map_err(|e| ServiceError::Internal(format!("bad outputSchema: {e}")))?;
    if let Some(e) = validator.iter_errors(&structured).next() {
        return Err(ServiceError::Internal(format!(
            "{} produced output that violates its outputSchema at {}: {e}",
            tool.spec.name,
            e.instance_path()
        )));
    }
    Ok(())
}

pub(super) fn log_call(tool: &str, version: Version, outcome: &str, started: Instant) {
    let micros = started.elapsed().as_micros();
    log::info!(
        target: "review_mcp::tool",
        "tool={tool} era={} outcome={outcome} duration_us={micros}",
        version.as_str()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// Regression: SQLite's finding that the file is damaged named the file and its `check`
    /// command only in the result of a call run at once; the result of the engineer's form
    /// answer (`request_verdicts` finished when the answer comes back) said "run `review-mcp
    /// --db PATH check` with its path", a path the model does not know. Every tool result
    /// names the file.
    #[test]
    fn a_damaged_file_is_named_in_every_tool_result() {
        let dir = std::env::temp_dir().join(format!("review-mcp-calls-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("the review.db");
        let mut service = Service::new(Store::open(&db).unwrap());
        let finding = ToolError::Damaged("database disk image is malformed".into());
        let payload = service.tool_payload(
            tools::request_verdicts::NAME,
            Err(finding),
            Version::V2025_06_18,
            Instant::now(),
        );
        let text = format!("{payload:?}");
        let command = format!("review-mcp --db '{}' check", db.display());
        assert!(
            text.contains(&format!("{} is damaged", db.display())) && text.contains(&command),
            "{text}"
        );
        drop(service);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
