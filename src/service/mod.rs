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
//!
//! Here: the context, the service and its dispatch. `calls.rs`: `tools/call` (the registry,
//! validation, the outcome as a result); `lists.rs`: the static lists and `prompts/get`;
//! `asks.rs`: the answers to the questions `request_verdicts` puts to the engineer;
//! `completion.rs`: `completion/complete`; `changes.rs`: who wants to be told of which
//! changes, and what changed since the last look.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::call::{Method, Retry, SharedCall};
use crate::client_caps::ClientCaps;
use crate::resources::{self};
use crate::store::{Store, StoreError};
use crate::tools::Step;
use crate::version::{Features, Version};
use crate::wire::Payload;
use completion::CompletionError;

mod asks;
mod calls;
pub mod changes;
mod completion;
mod lists;

use lists::{
    get_prompt, list_prompts, list_result, list_templates, list_tools, map_resource_error,
    shape_titles,
};

pub const SERVER_NAME: &str = "review-mcp";
pub const SERVER_TITLE: &str = "Review MCP";
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Shown to the assistant at `initialize` and `server/discover`.
pub const INSTRUCTIONS: &str = "Durable memory of CAD design reviews, bound to the exact revision (sha256) of a part. \
Recall before asking the engineer again: `recall` and `recall_decisions` by artifact, entity, text or tags. \
Items whose artifact is marked `stale: true` were written for another revision: treat them as claims to re-check against the current part. \
Answers stay under 32 KB: lists come as summaries, each artifact once per page (items name it by index); ask `detail: \"full\"` or one `subject` for a decision's basis, and follow `next_cursor` for more. \
A path in `artifact.uri` is stored as a file: URI; entity ids match only at the revision that produced them. \
This server never parses the CAD file (`artifact_revision` only hashes its bytes, to give its revision) and never measures: take every number from a geometry server. \
Record each requirement-check as its own basis item with an honest `source` (`assistant-proposed` for your own proposals) \
and a `question` when it is unresolved or conflicting; never invent verdicts: `request_verdicts` puts the items before the engineer (the host's form, the review card or their terminal) and records their answers as theirs. \
The prompts `start_review`, `resume_review` and `record_decision` walk through a review with a geometry server.";

/// How many items a static list (tools, prompts, templates) returns per page.
pub(super) const STATIC_PAGE_SIZE: usize = 50;

/// A failure the adapters turn into a JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub enum ServiceError {
    /// -32602 in every era.
    InvalidParams(String),
    /// -32602 "Invalid cursor" in every era.
    InvalidCursor,
    /// -32002 in legacy sessions, -32602 with `data.uri` in the modern era.
    /// `hint`: what the URI gives for a revision and what to pass instead (a short form, a
    /// checksum digest).
    ResourceNotFound { uri: String, hint: Option<String> },
    /// -32603 with the store's message: the database failed outside a tool call (locked,
    /// damaged, moved, a full disk), which the user can act on.
    Storage(String),
    /// -32603: a bug, logged and answered "Internal error".
    Internal(String),
}

impl ServiceError {
    /// The store's failure `e` on the database at `path` (the store's; `None` in memory),
    /// a damaged file named with the `check` command for it.
    pub fn of_store(e: StoreError, path: Option<&Path>) -> ServiceError {
        ServiceError::Storage(e.of_file(path).user_message())
    }
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServiceError::InvalidParams(m) => write!(f, "Invalid params: {m}"),
            ServiceError::InvalidCursor => f.write_str("Invalid cursor"),
            ServiceError::ResourceNotFound { .. } => f.write_str("Resource not found"),
            ServiceError::Storage(m) => write!(f, "Storage error: {m}"),
            ServiceError::Internal(m) => write!(f, "Internal error: {m}"),
        }
    }
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
    /// What the client can put before the engineer, for a tool's answer to name.
    pub fn caller(self) -> crate::tools::Caller {
        crate::tools::Caller {
            form: self.version.features().elicitation && self.client.elicitation_form,
            card: self.client.apps,
        }
    }

    /// A client that declared nothing, at `version`.
    pub fn plain(version: Version) -> Context {
        Context {
            version,
            client: ClientCaps::default(),
        }
    }
}

impl Step<Payload> {
    /// The payload of a call that cannot ask (everything but `tools/call`).
    fn done(self) -> Result<Payload, ServiceError> {
        match self {
            Step::Done(p) => Ok(p),
            Step::Ask(_) => Err(ServiceError::Internal("a list asked a question".into())),
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
    pub fn serve(&mut self, call: SharedCall, ctx: Context) -> Result<Step<Payload>, ServiceError> {
        if !call.is_static() {
            return self.serve_once(call, ctx);
        }
        let key = (ctx, call.method(), call.cursor().map(str::to_string));
        if let Some(result) = self.memo.get(&key) {
            return Ok(Step::Done(result.clone()));
        }
        let result = self.serve_once(call, ctx)?.done()?.shared();
        if self.memo.len() < MEMO_CAPACITY {
            self.memo.insert(key, result.clone());
        }
        Ok(Step::Done(result))
    }

    fn serve_once(
        &mut self,
        call: SharedCall,
        ctx: Context,
    ) -> Result<Step<Payload>, ServiceError> {
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
                    }) => self.retry_tool(&name, &arguments, &state, responses, ctx),
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
            } => completion::complete(&mut self.store, &reference, &argument, &value, &context)
                .map_err(|e| match e {
                    CompletionError::Invalid(m) => ServiceError::InvalidParams(m),
                    CompletionError::Storage(m) => ServiceError::Storage(m),
                    CompletionError::Damaged(finding) => ServiceError::Storage(
                        crate::store::damaged_message(self.store.path(), &finding),
                    ),
                }),
        };
        out.map(|m| Step::Done(Payload::from_map(m)))
    }

    fn list_resources(
        &mut self,
        cursor: Option<&str>,
        f: Features,
    ) -> Result<Map<String, Value>, ServiceError> {
        let (items, next) = resources::list(&mut self.store, cursor)
            .map_err(|e| map_resource_error(e, "", self.store.path()))?;
        let items = items.into_iter().map(|v| shape_titles(v, f)).collect();
        Ok(list_result("resources", items, next))
    }

    fn read_resource(&mut self, uri: String) -> Result<Map<String, Value>, ServiceError> {
        let contents = match resources::read(&mut self.store, &uri) {
            Ok(c) => c,
            Err(e) => {
                let short = matches!(e, resources::ResourceError::NotFound)
                    .then(|| resources::revision_in(&uri))
                    .flatten()
                    .and_then(|rev| crate::tools::short_revision_refused(&mut self.store, &rev));
                return Err(
                    match (map_resource_error(e, &uri, self.store.path()), short) {
                        (ServiceError::ResourceNotFound { uri, .. }, Some(hint)) => {
                            ServiceError::ResourceNotFound {
                                uri,
                                hint: Some(hint),
                            }
                        }
                        (other, _) => other,
                    },
                );
            }
        };
        // Moved in, not `json!`: the macro would deep-copy every content block.
        let mut m = Map::new();
        m.insert("contents".into(), Value::from(contents));
        Ok(m)
    }
}
