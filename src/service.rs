//! The era-neutral service: list, call, get and read operations over tools, prompts and
//! resources.
//!
//! Both era adapters call [`Service::serve`] with a parsed [`SharedCall`]. It returns the
//! result as a [`Payload`] (a tool answer already encoded, see [`crate::wire`]) without any
//! era decoration (`resultType`, cache hints and `_meta` are the modern adapter's business),
//! or a typed [`ServiceError`] that each adapter maps to its era's wire form. Results are
//! shaped by the request's [`Version`] only through [`Version::features`].
//!
//! The catalogs (tools, prompts, templates) are fixed for the life of the process, so the
//! result of a static list call is kept, encoded, and reused for the same call at the same
//! version: `tools/list` is 20 KB of schemas that would otherwise be rebuilt and encoded on
//! every call.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::bounds;
use crate::call::{Method, Retry, SharedCall};
use crate::client::{APP_MIME_TYPE, ClientCaps, UI_EXTENSION};
use crate::completions::{self, CompletionError};
use crate::prompts;
use crate::resources::{self, ResourceError};
use crate::store::Store;
use crate::text;
use crate::tools::request_state::{self, Unsealed};
use crate::tools::request_verdicts::{self, FormReply, Question};
use crate::tools::{self, Step, ToolError, ToolOutput, ToolSpec, Ui};
use crate::version::{Features, Version};
use crate::wire::{self, Payload};

pub const SERVER_NAME: &str = "review-mcp";
pub const SERVER_TITLE: &str = "Review MCP";
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Shown to the assistant at `initialize` and `server/discover`.
pub const INSTRUCTIONS: &str = "Durable memory of CAD design reviews, bound to the exact revision (sha256) of a part. \
Recall before asking the engineer again: `recall` and `recall_decisions` by artifact, entity, text or tags. \
Records marked `stale: true` were written for another revision: treat them as claims to re-check against the current part. \
This server never opens the CAD file and never measures: take every number from a geometry server. \
Record each requirement-check as its own basis item with an honest `source` (`assistant-proposed` for your own proposals) \
and a `question` when it is unresolved or conflicting; never invent verdicts: `request_verdicts` asks the engineer through the host's form and records their answers as theirs. \
The prompts `start_review`, `resume_review` and `record_decision` walk through a review with a geometry server.";

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
    /// A call of an app-only tool (the review card's `record_verdict`) from a client that did
    /// not declare the UI extension: -32602 in legacy sessions (to that client the tool does
    /// not exist), -32021 naming the extension in 2026-07-28.
    AppOnly(String),
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServiceError::InvalidParams(m) => write!(f, "Invalid params: {m}"),
            ServiceError::InvalidCursor => f.write_str("Invalid cursor"),
            ServiceError::ResourceNotFound { .. } => f.write_str("Resource not found"),
            ServiceError::Internal(m) => write!(f, "Internal error: {m}"),
            ServiceError::AppOnly(m) => f.write_str(m),
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

/// How long a question put to the engineer may wait for the answer by default: a legacy
/// session's pending `elicitation/create`, and the life of a 2026-07-28 `requestState`.
pub const DEFAULT_ANSWER_WAIT: Duration = Duration::from_secs(600);

/// Who asks and in which revision: what a request's answer may depend on besides its params.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Context {
    pub version: Version,
    pub client: ClientCaps,
}

impl Context {
    /// A client that declared nothing, at `version`.
    pub fn plain(version: Version) -> Context {
        Context {
            version,
            client: ClientCaps::default(),
        }
    }
}

/// What a served call produced.
#[derive(Debug)]
pub enum Served {
    Done(Payload),
    /// A tool needs the engineer's answer first; the era adapter puts the question.
    Ask(Question),
}

impl Served {
    /// The payload of a call that cannot ask (everything but `tools/call`).
    fn done(self) -> Result<Payload, ServiceError> {
        match self {
            Served::Done(p) => Ok(p),
            Served::Ask(_) => Err(ServiceError::Internal("a list asked a question".into())),
        }
    }
}

/// At most this many memoised list answers: distinct cursors make distinct keys, and a
/// client must not be able to grow the memory without bound.
const MEMO_CAPACITY: usize = 64;

/// What a static list result depends on: the context, the method and the cursor.
type MemoKey = (Context, Method, Option<String>);

/// The tool, prompt and resource registry over one store.
pub struct Service {
    store: Store,
    memo: HashMap<MemoKey, Payload>,
    /// Log messages for the client (`notifications/message`): a tool failure, each once.
    log: Vec<(&'static str, String)>,
    /// The last storage failure reported, so that a database that stays unwritable is
    /// reported once, not on every call.
    last_storage_failure: Option<String>,
    /// How long a question may wait for the engineer (see [`DEFAULT_ANSWER_WAIT`]).
    answer_wait: Duration,
}

impl Service {
    pub fn new(store: Store) -> Self {
        // The tool registry is built on the first tools/list or tools/call, not here: a
        // host's first line (`initialize`, `server/discover`) needs none of its schemas, and
        // building them is a tenth of the server's start-up CPU.
        Self {
            store,
            memo: HashMap::new(),
            log: Vec::new(),
            last_storage_failure: None,
            answer_wait: DEFAULT_ANSWER_WAIT,
        }
    }

    /// Sets how long a question may wait for the engineer.
    pub fn set_answer_wait(&mut self, wait: Duration) {
        self.answer_wait = wait;
    }

    pub fn answer_wait(&self) -> Duration {
        self.answer_wait
    }

    /// The log messages of the calls since the last take, with their levels.
    pub fn take_log(&mut self) -> Vec<(&'static str, String)> {
        std::mem::take(&mut self.log)
    }

    pub fn store(&mut self) -> &mut Store {
        &mut self.store
    }

    /// Serves one shared call in `ctx`.
    pub fn serve(&mut self, call: SharedCall, ctx: Context) -> Result<Served, ServiceError> {
        if !call.is_static() {
            return self.serve_once(call, ctx);
        }
        let key = (ctx, call.method(), call.cursor().map(str::to_string));
        if let Some(result) = self.memo.get(&key) {
            return Ok(Served::Done(result.clone()));
        }
        let result = self.serve_once(call, ctx)?.done()?.shared();
        if self.memo.len() < MEMO_CAPACITY {
            self.memo.insert(key, result.clone());
        }
        Ok(Served::Done(result))
    }

    fn serve_once(&mut self, call: SharedCall, ctx: Context) -> Result<Served, ServiceError> {
        let version = ctx.version;
        let f = version.features();
        let out = match call {
            SharedCall::ToolsCall {
                name,
                arguments,
                retry,
            } => {
                return match retry {
                    Some(Retry {
                        state: Some(state),
                        responses,
                    }) => self.retry_tool(&name, &arguments, &state, responses, version),
                    _ => self.call_tool(&name, &arguments, ctx),
                };
            }
            SharedCall::ToolsList { cursor } => list_tools(cursor.as_deref(), f, ctx.client),
            SharedCall::PromptsList { cursor } => list_prompts(cursor.as_deref(), f),
            SharedCall::PromptsGet { name, arguments } => get_prompt(&name, &arguments),
            SharedCall::ResourcesList { cursor } => self.list_resources(cursor.as_deref(), f),
            SharedCall::ResourcesRead { uri } => self.read_resource(uri),
            SharedCall::TemplatesList { cursor } => list_templates(cursor.as_deref(), f),
            SharedCall::Complete {
                reference,
                argument,
                value,
                context,
            } => completions::complete(&mut self.store, &reference, &argument, &value, &context)
                .map_err(|e| match e {
                    CompletionError::Invalid(m) => ServiceError::InvalidParams(m),
                    CompletionError::Storage(m) => ServiceError::Internal(m),
                }),
        };
        out.map(|m| Served::Done(Payload::from_map(m)))
    }

    /// The engineer's answer to `q` (asked in a legacy session): the `tools/call` result.
    pub fn answer(&mut self, q: &Question, reply: FormReply, version: Version) -> Payload {
        let started = Instant::now();
        let out = request_verdicts::finish(&mut self.store, q, reply);
        self.tool_payload(request_verdicts::NAME, out, version, started)
    }

    /// The `tools/call` result of a question that could not be put or was not answered:
    /// `why`, as an `isError` result. Nothing is written.
    pub fn unanswered(&mut self, why: &str, version: Version) -> Payload {
        log_call(
            request_verdicts::NAME,
            version,
            "unanswered",
            Instant::now(),
        );
        wire::tool_error(why)
    }

    /// The text of a question put to a legacy client that cannot show a form.
    pub fn without_elicitation(&mut self, version: Version) -> Payload {
        self.unanswered(&request_verdicts::without_elicitation(version), version)
    }

    /// `requestState` for `q`, asked by the call with `arguments`: sealed under the
    /// database's secret, valid for the answer wait.
    pub fn seal(&mut self, q: &Question, arguments: &Value) -> Result<String, ServiceError> {
        let secret = self
            .store
            .cursor_secret()
            .map_err(|e| ServiceError::Internal(e.to_string()))?;
        let wait = i64::try_from(self.answer_wait.as_millis()).unwrap_or(i64::MAX);
        Ok(request_state::seal(
            &secret,
            q,
            arguments,
            crate::time::now_millis().saturating_add(wait),
        ))
    }

    /// A 2026-07-28 retry: the sealed question with the client's answer, or asked again
    /// when the answer is missing.
    fn retry_tool(
        &mut self,
        name: &str,
        args: &Value,
        state: &str,
        mut responses: Map<String, Value>,
        version: Version,
    ) -> Result<Served, ServiceError> {
        if name != request_verdicts::NAME {
            return Err(ServiceError::InvalidParams(format!(
                "Invalid params: requestState was not issued for the tool {}; send the call again without requestState and inputResponses",
                text::clip_bytes(name, 200)
            )));
        }
        let secret = self
            .store
            .cursor_secret()
            .map_err(|e| ServiceError::Internal(e.to_string()))?;
        let q = match request_state::unseal(&secret, state, args, crate::time::now_millis()) {
            Unsealed::Ok(q) => q,
            Unsealed::Invalid => {
                return Err(ServiceError::InvalidParams(
                    "Invalid params: requestState was altered, issued by another database, or issued for other arguments; call request_verdicts again without requestState".into(),
                ));
            }
            Unsealed::Expired => {
                return Err(ServiceError::InvalidParams(
                    "Invalid params: requestState expired (the engineer's answer came after the wait bound); call request_verdicts again without requestState".into(),
                ));
            }
        };
        let started = Instant::now();
        match responses.remove(request_verdicts::INPUT_KEY) {
            None => {
                // The answer is missing: ask again (MRTR: a new input_required, not an error).
                match request_verdicts::reask(&mut self.store, q) {
                    Ok(Step::Ask(q)) => Ok(Served::Ask(q)),
                    Ok(Step::Done(out)) => Ok(Served::Done(self.tool_payload(
                        name,
                        Ok(out),
                        version,
                        started,
                    ))),
                    Err(e) => Ok(Served::Done(self.tool_payload(
                        name,
                        Err(e),
                        version,
                        started,
                    ))),
                }
            }
            Some(result) => {
                let Some(reply) = FormReply::read(&result) else {
                    return Err(ServiceError::InvalidParams(format!(
                        "Invalid params: inputResponses.{} is not an ElicitResult (action accept, decline or cancel; content an object)",
                        request_verdicts::INPUT_KEY
                    )));
                };
                Ok(Served::Done(self.answer(&q, reply, version)))
            }
        }
    }

    fn call_tool(
        &mut self,
        name: &str,
        args: &Value,
        ctx: Context,
    ) -> Result<Served, ServiceError> {
        let version = ctx.version;
        let Some(tool) = registry().iter().find(|t| t.spec.name == name) else {
            return Err(ServiceError::InvalidParams(format!("Unknown tool: {name}")));
        };
        if tool.spec.ui == Ui::AppOnly && !ctx.client.apps {
            log_call(name, version, "app-only", Instant::now());
            return Err(ServiceError::AppOnly(format!(
                "{name} is the review card's own tool, served only to a client that declared the {UI_EXTENSION} extension (mimeTypes {APP_MIME_TYPE}); show_review answers every client"
            )));
        }
        let f = version.features();
        let started = Instant::now();
        if let Some(msg) = validate_args(tool, args) {
            self.log
                .push(("warning", format!("tool {name} refused the call: {msg}")));
            log_call(name, version, "invalid-arguments", started);
            if !f.schema_errors_as_tool_results {
                return Err(ServiceError::InvalidParams(msg));
            }
            return Ok(Served::Done(wire::tool_error(&msg)));
        }
        match (tool.spec.run)(&mut self.store, args) {
            Ok(Step::Ask(q)) => {
                log_call(name, version, "asked", started);
                Ok(Served::Ask(q))
            }
            Ok(Step::Done(out)) => Ok(Served::Done(self.tool_payload(
                name,
                Ok(out),
                version,
                started,
            ))),
            Err(e) => Ok(Served::Done(self.tool_payload(
                name,
                Err(e),
                version,
                started,
            ))),
        }
    }

    /// A tool's outcome as its `tools/call` result, logged; a failure is an `isError`
    /// result whose text says what to fix, and a storage failure is logged once.
    fn tool_payload(
        &mut self,
        name: &str,
        out: Result<ToolOutput, ToolError>,
        version: Version,
        started: Instant,
    ) -> Payload {
        let f = version.features();
        let (result, outcome) = match out {
            Ok(out) => match check_output(name, &out.structured) {
                Ok(()) => (
                    wire::tool_result(&out.summary, out.structured, f.structured_content),
                    "ok",
                ),
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
            Err(e @ ToolError::Storage(_)) => {
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

    fn list_resources(
        &mut self,
        cursor: Option<&str>,
        f: Features,
    ) -> Result<Map<String, Value>, ServiceError> {
        let (items, next) =
            resources::list(&mut self.store, cursor).map_err(|e| map_resource_error(e, ""))?;
        let items = items.into_iter().map(|v| shape_titles(v, f)).collect();
        Ok(list_result("resources", items, next))
    }

    fn read_resource(&mut self, uri: String) -> Result<Map<String, Value>, ServiceError> {
        let contents =
            resources::read(&mut self.store, &uri).map_err(|e| map_resource_error(e, &uri))?;
        // Moved in, not `json!`: the macro would deep-copy every content block.
        let mut m = Map::new();
        m.insert("contents".into(), Value::from(contents));
        Ok(m)
    }
}

/// The tools `client` may see: the app-only ones and the `_meta.ui` links only when it
/// declared the UI extension (a host that cannot render the card must not be sent to it).
fn list_tools(
    cursor: Option<&str>,
    f: Features,
    client: ClientCaps,
) -> Result<Map<String, Value>, ServiceError> {
    let items: Vec<Value> = registry()
        .iter()
        .filter(|t| client.apps || t.spec.ui != Ui::AppOnly)
        .map(|t| tool_entry(&t.spec, f, client))
        .collect();
    let (page, next) = static_page("tools", items, cursor)?;
    Ok(list_result("tools", page, next))
}

fn list_prompts(cursor: Option<&str>, f: Features) -> Result<Map<String, Value>, ServiceError> {
    let items: Vec<Value> = prompts::catalog()
        .into_iter()
        .map(|p| shape_titles(p, f))
        .collect();
    let (page, next) = static_page("prompts", items, cursor)?;
    Ok(list_result("prompts", page, next))
}

fn get_prompt(name: &str, args: &Map<String, Value>) -> Result<Map<String, Value>, ServiceError> {
    let result =
        prompts::get(name, args).map_err(|e| ServiceError::InvalidParams(e.to_string()))?;
    match result {
        Value::Object(m) => Ok(m),
        _ => Err(ServiceError::Internal("a prompt is not an object".into())),
    }
}

fn list_templates(cursor: Option<&str>, f: Features) -> Result<Map<String, Value>, ServiceError> {
    let items: Vec<Value> = resources::templates()
        .into_iter()
        .map(|t| shape_titles(t, f))
        .collect();
    let (page, next) = static_page("templates", items, cursor)?;
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

fn list_result(key: &str, items: Vec<Value>, next: Option<String>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.to_string(), Value::Array(items));
    if let Some(c) = next {
        m.insert("nextCursor".into(), Value::String(c));
    }
    m
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

fn tool_entry(spec: &ToolSpec, f: Features, client: ClientCaps) -> Value {
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
    if let Some(ui) = spec.ui.meta().filter(|_| client.apps) {
        m.insert("_meta".into(), json!({"ui": ui}));
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
            // Short even when the offending value is a megabyte string. The middle is cut, not
            // the end: jsonschema puts the value first and the rule last, and the rule is what
            // the caller needs to read.
            format!("{at}: {}", text::cut_middle(&e.message, 300))
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
fn check_output(name: &str, structured: &wire::Encoded) -> Result<(), ServiceError> {
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
}
