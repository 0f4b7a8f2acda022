//! The era-neutral service: list, call, get and read operations over tools, prompts and
//! resources.
//!
//! Both era adapters call [`Service::handle`] for the methods the eras share. It returns the
//! result object (a tool answer already encoded as text, see [`Body`]) without any era decoration (`resultType`, cache hints and `_meta` are the
//! modern adapter's business) and typed [`ServiceError`]s that each adapter maps to its era's
//! wire form. Results are shaped by the request's [`Version`] only through
//! [`Version::features`].

use std::sync::OnceLock;
use std::time::Instant;

use serde_json::{Map, Value, json};

use crate::bounds;
use crate::era::{Features, Version};
use crate::jsonrpc::Body;
use crate::prompts::{self, PromptError};
use crate::resources::{self, ResourceError};
use crate::review::json::push_json_as_string_contents;
use crate::store::Store;
use crate::tools::{self, ToolError, ToolSpec};

pub const SERVER_NAME: &str = "review-mcp";
pub const SERVER_TITLE: &str = "Review MCP";
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Shown to the assistant at `initialize` and `server/discover`.
pub const INSTRUCTIONS: &str = "Durable memory of CAD design reviews, bound to the exact revision (sha256) of a part. \
Recall before asking the engineer again: `recall` and `recall_decisions` by artifact, entity, text or tags. \
Records marked `stale: true` were written for another revision: treat them as claims to re-check against the current part. \
This server never opens the CAD file and never measures: take every number from a geometry server. \
Record each requirement-check as its own basis item with an honest `source` (`assistant-proposed` for your own proposals) \
and a `question` when it is unresolved or conflicting; ask the engineer for verdicts rather than inventing them. \
The prompts `start_review`, `resume_review` and `record_decision` walk through a review with a geometry server.";

/// Methods served by [`Service::handle`] in both eras.
pub const SHARED_METHODS: [&str; 7] = [
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
];

/// How many items a static list (tools, prompts, templates) returns per page.
const STATIC_PAGE_SIZE: usize = 50;

/// A failure the adapters turn into a JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub enum ServiceError {
    /// -32602 in every era.
    InvalidParams(String),
    /// -32602 "Invalid cursor" in every era.
    InvalidCursor,
    /// -32002 in legacy sessions, -32602 with `data.uri` in the modern era.
    ResourceNotFound { uri: String },
    /// -32603: a storage or internal failure outside a tool call.
    Internal(String),
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServiceError::InvalidParams(m) => write!(f, "Invalid params: {m}"),
            ServiceError::InvalidCursor => f.write_str("Invalid cursor"),
            ServiceError::ResourceNotFound { .. } => f.write_str("Resource not found"),
            ServiceError::Internal(m) => write!(f, "Internal error: {m}"),
        }
    }
}

/// One tool with its validators, each compiled on first use and kept for the life of the
/// process (the catalog is fixed, so every `Service` shares one registry).
struct RegisteredTool {
    spec: ToolSpec,
    input: OnceLock<Result<jsonschema::Validator, String>>,
    output: OnceLock<Result<jsonschema::Validator, String>>,
}

fn registry() -> &'static [RegisteredTool] {
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

fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

/// The tool, prompt and resource registry over one store.
pub struct Service {
    store: Store,
}

impl Service {
    pub fn new(store: Store) -> Self {
        // The tool registry is built on the first tools/list or tools/call, not here: a
        // host's first line (`initialize`, `server/discover`) needs none of its schemas, and
        // building them is a tenth of the server's start-up CPU.
        Self { store }
    }

    pub fn store(&mut self) -> &mut Store {
        &mut self.store
    }

    /// Serves one of [`SHARED_METHODS`]; `None` for any other method.
    pub fn handle(
        &mut self,
        method: &str,
        params: &Map<String, Value>,
        version: Version,
    ) -> Option<Result<Body, ServiceError>> {
        let f = version.features();
        let out = match method {
            "tools/call" => return Some(self.call_tool(params, version)),
            "tools/list" => self.list_tools(params, f),
            "prompts/list" => list_prompts(params, f),
            "prompts/get" => get_prompt(params),
            "resources/list" => self.list_resources(params, f),
            "resources/read" => self.read_resource(params),
            "resources/templates/list" => list_templates(params, f),
            _ => return None,
        };
        Some(out.map(Body::Value))
    }

    fn list_tools(&self, params: &Map<String, Value>, f: Features) -> Result<Value, ServiceError> {
        let items: Vec<Value> = registry().iter().map(|t| tool_entry(&t.spec, f)).collect();
        let (page, next) = static_page("tools", items, cursor_param(params)?)?;
        Ok(list_result("tools", page, next))
    }

    fn call_tool(
        &mut self,
        params: &Map<String, Value>,
        version: Version,
    ) -> Result<Body, ServiceError> {
        let name = match params.get("name") {
            Some(Value::String(n)) => n.clone(),
            Some(_) => return Err(invalid("\"name\" must be a string")),
            None => return Err(invalid("tools/call needs \"name\"")),
        };
        let empty = Value::Object(Map::new());
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(v @ Value::Object(_)) => v,
            Some(_) => return Err(invalid("\"arguments\" must be an object")),
        };
        let Some(tool) = registry().iter().find(|t| t.spec.name == name) else {
            return Err(ServiceError::InvalidParams(format!("Unknown tool: {name}")));
        };
        let f = version.features();
        let started = Instant::now();
        let schema_failure = validate_args(tool, args);
        let (result, outcome) = match schema_failure {
            Some(msg) if !f.schema_errors_as_tool_results => {
                log_call(&name, version, "invalid-arguments", started);
                return Err(ServiceError::InvalidParams(msg));
            }
            Some(msg) => (tool_error_result(&msg), "invalid-arguments"),
            None => match tools::run(&mut self.store, &name, args) {
                Ok(out) => {
                    check_output(tool, &out.structured)?;
                    (
                        tool_success_result(&out.summary, out.structured, out.quoted, f),
                        "ok",
                    )
                }
                Err(e @ ToolError::Invalid(_)) => (tool_error_result(&e.to_string()), "refused"),
                Err(e @ ToolError::Storage(_)) => {
                    (tool_error_result(&e.to_string()), "storage-error")
                }
                Err(e @ ToolError::Internal(_)) => {
                    log::error!("tool {name}: {e}");
                    (tool_error_result(&e.to_string()), "internal-error")
                }
            },
        };
        log_call(&name, version, outcome, started);
        Ok(result)
    }

    fn list_resources(
        &mut self,
        params: &Map<String, Value>,
        f: Features,
    ) -> Result<Value, ServiceError> {
        let cursor = cursor_param(params)?;
        let (items, next) =
            resources::list(&mut self.store, cursor).map_err(|e| map_resource_error(e, ""))?;
        let items = items.into_iter().map(|v| shape_titles(v, f)).collect();
        Ok(list_result("resources", items, next))
    }

    fn read_resource(&mut self, params: &Map<String, Value>) -> Result<Value, ServiceError> {
        let uri = match params.get("uri") {
            Some(Value::String(u)) => u.clone(),
            _ => return Err(invalid("resources/read needs a string \"uri\"")),
        };
        let contents =
            resources::read(&mut self.store, &uri).map_err(|e| map_resource_error(e, &uri))?;
        // Moved in, not `json!`: the macro would deep-copy every content block.
        let mut m = Map::new();
        m.insert("contents".into(), Value::from(contents));
        Ok(Value::Object(m))
    }
}

fn invalid(msg: &str) -> ServiceError {
    ServiceError::InvalidParams(msg.to_string())
}

fn list_prompts(params: &Map<String, Value>, f: Features) -> Result<Value, ServiceError> {
    let items: Vec<Value> = prompts::catalog()
        .into_iter()
        .map(|p| shape_titles(p, f))
        .collect();
    let (page, next) = static_page("prompts", items, cursor_param(params)?)?;
    Ok(list_result("prompts", page, next))
}

fn get_prompt(params: &Map<String, Value>) -> Result<Value, ServiceError> {
    let name = match params.get("name") {
        Some(Value::String(n)) => n.as_str(),
        _ => return Err(invalid("prompts/get needs a string \"name\"")),
    };
    let empty = Map::new();
    let args = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => return Err(invalid("\"arguments\" must be an object of strings")),
    };
    prompts::get(name, args).map_err(|e| match e {
        PromptError::Unknown(n) => ServiceError::InvalidParams(format!("Unknown prompt: {n}")),
        PromptError::MissingArgument(a) => {
            ServiceError::InvalidParams(format!("Missing required argument: {a}"))
        }
        PromptError::InvalidArgument(m) => ServiceError::InvalidParams(m),
    })
}

fn list_templates(params: &Map<String, Value>, f: Features) -> Result<Value, ServiceError> {
    let items: Vec<Value> = resources::templates()
        .into_iter()
        .map(|t| shape_titles(t, f))
        .collect();
    let (page, next) = static_page("templates", items, cursor_param(params)?)?;
    Ok(list_result("resourceTemplates", page, next))
}

fn map_resource_error(e: ResourceError, uri: &str) -> ServiceError {
    match e {
        ResourceError::NotFound => ServiceError::ResourceNotFound {
            uri: uri.to_string(),
        },
        ResourceError::InvalidCursor => ServiceError::InvalidCursor,
        ResourceError::Storage(m) => ServiceError::Internal(m),
    }
}

/// `params.cursor`: absent, or a string.
fn cursor_param(params: &Map<String, Value>) -> Result<Option<&str>, ServiceError> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(c)) => Ok(Some(c)),
        Some(_) => Err(ServiceError::InvalidCursor),
    }
}

fn list_result(key: &str, items: Vec<Value>, next: Option<String>) -> Value {
    let mut m = Map::new();
    m.insert(key.to_string(), Value::Array(items));
    if let Some(c) = next {
        m.insert("nextCursor".into(), Value::String(c));
    }
    Value::Object(m)
}

/// Pages a static list. Cursors are `<list>.<offset>`: self-contained (a modern request may
/// reach a fresh process), and a cursor minted for another list is refused.
fn static_page(
    list: &str,
    items: Vec<Value>,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), ServiceError> {
    let start = match cursor {
        None => 0,
        Some(c) => {
            let offset = c
                .strip_prefix(list)
                .and_then(|rest| rest.strip_prefix('.'))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n > 0 && n < items.len() && n % STATIC_PAGE_SIZE == 0);
            offset.ok_or(ServiceError::InvalidCursor)?
        }
    };
    let end = (start + STATIC_PAGE_SIZE).min(items.len());
    let next = (end < items.len()).then(|| format!("{list}.{end}"));
    let page = items.into_iter().skip(start).take(end - start).collect();
    Ok((page, next))
}

/// Removes `title` keys from versions that predate them.
fn shape_titles(mut v: Value, f: Features) -> Value {
    if !f.titles {
        if let Value::Object(m) = &mut v {
            m.remove("title");
        }
    }
    v
}

fn tool_entry(spec: &ToolSpec, f: Features) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(spec.name));
    if f.titles {
        m.insert("title".into(), json!(spec.title));
    }
    m.insert("description".into(), json!(spec.description));
    m.insert("inputSchema".into(), spec.input_schema.clone());
    if f.structured_content {
        m.insert("outputSchema".into(), spec.output_schema.clone());
    }
    if f.annotations {
        let mut ann = spec.annotations.clone();
        if !f.titles {
            if let Value::Object(a) = &mut ann {
                a.remove("title");
            }
        }
        m.insert("annotations".into(), ann);
    }
    Value::Object(m)
}

/// Validates tool arguments against the tool's `inputSchema`; `Some(message)` on failure.
fn validate_args(tool: &RegisteredTool, args: &Value) -> Option<String> {
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
            format!("{at}: {}", truncate(&e.message, 300))
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

/// Keeps error messages short even when the offending value is a megabyte string. The
/// middle is cut, not the end: jsonschema puts the value first and the rule (e.g. "is longer
/// than 200 characters") last, and the rule is what the caller needs to read.
fn truncate(s: &str, max_chars: usize) -> String {
    let n = s.chars().count();
    if n <= max_chars {
        return s.to_string();
    }
    let tail = max_chars / 2;
    let head = max_chars - tail;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

/// In debug builds (and so in every test), a structured result that violates the tool's own
/// `outputSchema` is an internal error instead of a silently wrong answer.
fn check_output(tool: &RegisteredTool, structured: &str) -> Result<(), ServiceError> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    let structured: Value = serde_json::from_str(structured).map_err(|e| {
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

/// A successful tool result, encoded: the summary and the whole result as text blocks (the
/// JSON copy is what the spec asks of a tool with an output schema, for clients that read only
/// `content`), then `structuredContent` where the version has it. Each member is the bytes
/// serde_json writes for the equivalent value. `quoted` is the JSON copy already escaped, when
/// the tool wrote it alongside `structured`.
fn tool_success_result(
    summary: &str,
    structured: String,
    quoted: Option<String>,
    f: Features,
) -> Body {
    let summary = Value::String(summary.to_string()).to_string();
    // Escaping adds a byte per quote: about one in eight bytes of a page of records, so a
    // quarter more is room enough, without counting first. The response line is assembled in
    // this buffer (see `jsonrpc::encoded_result_response`): room for `structuredContent` too.
    let copies = if f.structured_content { 2 } else { 1 };
    let capacity = summary.len() + structured.len() * copies + structured.len() / 4 + 256;
    let mut content = String::with_capacity(capacity);
    content.push_str("[{\"text\":");
    content.push_str(&summary);
    content.push_str(",\"type\":\"text\"},{\"text\":\"");
    match quoted {
        Some(q) => content.push_str(&q),
        None => push_json_as_string_contents(&structured, &mut content),
    }
    content.push_str("\",\"type\":\"text\"}]");
    let mut members = vec![("content".to_string(), content)];
    if f.structured_content {
        members.push(("structuredContent".to_string(), structured));
    }
    Body::Members(members)
}

fn tool_error_result(message: &str) -> Body {
    Body::Value(json!({"content": [{"type": "text", "text": message}], "isError": true}))
}

fn log_call(tool: &str, version: Version, outcome: &str, started: Instant) {
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

    #[test]
    fn static_page_rejects_foreign_and_tampered_cursors() {
        let items: Vec<Value> = (0..120).map(|i| json!(i)).collect();
        let (p, next) = static_page("tools", items.clone(), None).unwrap();
        assert_eq!(p.len(), 50);
        assert_eq!(next.as_deref(), Some("tools.50"));
        let (p, next) = static_page("tools", items.clone(), Some("tools.100")).unwrap();
        assert_eq!(p.len(), 20);
        assert_eq!(next, None);
        for bad in [
            "prompts.50",
            "tools.51",
            "tools.0",
            "tools.1000",
            "garbage",
            "",
        ] {
            assert_eq!(
                static_page("tools", items.clone(), Some(bad)),
                Err(ServiceError::InvalidCursor),
                "{bad}"
            );
        }
    }

    /// Strings that stress escaping: quotes, backslashes, every control character, non-ASCII
    /// (including U+2028, which JSON allows raw) and DEL.
    fn awkward_values() -> Vec<Value> {
        let controls: String = (0u8..0x20).map(char::from).collect();
        vec![
            json!({}),
            json!({"a": "plain", "n": 1, "f": -2.5e-7, "b": [true, false, null]}),
            json!({"q": "say \"hi\" \\ back\\\\slash", "c": controls}),
            json!({"u": "Größe ∅ 𝔸 \u{2028} \u{7f} \u{fffd}", "nested": {"k\"ey": ["\\\""]}}),
            json!({"nul": "a\u{0}b", "bell": "\u{7}"}),
        ]
    }

    #[test]
    fn json_as_string_contents_matches_serde_json_escaping() {
        for v in awkward_values() {
            let compact = v.to_string();
            let mut inside = String::new();
            push_json_as_string_contents(&compact, &mut inside);
            assert_eq!(format!("\"{inside}\""), Value::String(compact).to_string());
        }
    }

    #[test]
    fn tool_success_result_is_the_bytes_of_the_equivalent_value() {
        for structured in awkward_values() {
            let encoded = structured.to_string();
            let versions = [
                Version::parse_modern("2026-07-28"),
                Some(Version::negotiate_legacy("2025-06-18")),
                Some(Version::negotiate_legacy("2024-11-05")),
            ];
            for version in versions.into_iter().flatten() {
                let f = version.features();
                let mut want = json!({"content": [
                    {"type": "text", "text": "sum \"mary\"\n"},
                    {"type": "text", "text": encoded},
                ]});
                if f.structured_content {
                    want["structuredContent"] = structured.clone();
                }
                // The text copy escaped here, or handed over already escaped.
                let as_string = Value::String(encoded.clone()).to_string();
                let escaped = as_string[1..as_string.len() - 1].to_string();
                for quoted in [None, Some(escaped)] {
                    let body = tool_success_result("sum \"mary\"\n", encoded.clone(), quoted, f);
                    let Body::Members(members) = body else {
                        panic!("a tool result is sent encoded");
                    };
                    let id = crate::jsonrpc::Id::Number(1.into());
                    let line = crate::jsonrpc::encoded_result_response(&id, members);
                    assert_eq!(
                        line,
                        crate::jsonrpc::result_response(&id, want.clone()).to_string()
                    );
                }
            }
        }
    }
}
