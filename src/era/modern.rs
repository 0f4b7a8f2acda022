//! The stateless era (2026-07-28): the per-request `_meta` envelope, `server/discover`,
//! `subscriptions/listen`, and the decoration every modern result carries.
//!
//! A modern request is served from its own `_meta` alone: nothing from a legacy session in
//! the same process leaks in. The checks run in the order the spec's ladder gives (first
//! failure wins): envelope shape (-32602), version (-32022), log level (-32602), method
//! (-32601), then the method's own params (-32602).

use serde_json::{Map, Value, json};

use std::collections::BTreeSet;

use crate::call::{self, Call, Filter, Method, SharedCall};
use crate::client_caps::{ClientCaps, UI_EXTENSION};
use crate::jsonrpc::{ErrorObject, Id, Notification};
use crate::resources;
use crate::service::changes::{Interest, MAX_WATCHED_URIS};
use crate::service::{self, Context, SERVER_NAME, SERVER_TITLE, SERVER_VERSION, Service};
use crate::tools::Step;
use crate::tools::request_verdicts::{self, INPUT_KEY, Question};
use crate::version::{LOG_LEVELS, Version};
use crate::wire::Payload;

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// -32022: the request's protocol version is not one we serve.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// -32021: serving the request needs a client capability the request did not declare.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

const ENVELOPE_KEYS: [&str; 4] = [
    META_PROTOCOL_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
];

/// What a modern request produces.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Result(Payload),
    Error(ErrorObject),
    /// `subscriptions/listen`: write this acknowledgement now, deliver what `interest` asks
    /// on the stream, and answer nothing until the client cancels it (then nothing at all) or
    /// the input ends.
    Hold {
        ack: Notification,
        interest: Interest,
    },
}

/// What a stream asked for that this server delivers: the resource list and subscriptions
/// to its own resources (at most [`MAX_WATCHED_URIS`], the first ones asked). Tools and
/// prompts never change at run time, so their list changes are never acknowledged.
fn honoured(filter: Filter) -> (Value, Interest) {
    let mut uris = BTreeSet::new();
    for uri in filter.resource_subscriptions {
        if uris.len() == MAX_WATCHED_URIS {
            break;
        }
        if resources::watched(&uri).is_some() {
            uris.insert(uri);
        }
    }
    let mut ack = Map::new();
    if filter.resources_list_changed {
        ack.insert("resourcesListChanged".into(), Value::Bool(true));
    }
    if !uris.is_empty() {
        ack.insert("resourceSubscriptions".into(), json!(uris));
    }
    let interest = Interest {
        list: filter.resources_list_changed,
        uris,
    };
    (Value::Object(ack), interest)
}

/// True when `params._meta` carries any key of the modern envelope: the router's test for
/// "this request is 2026-07-28".
pub fn has_envelope(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|meta| ENVELOPE_KEYS.iter().any(|k| meta.contains_key(*k)))
}

/// Answers one modern request.
pub fn handle(service: &mut Service, id: &Id, name: &str, params: Option<Value>) -> Reply {
    let (version, params) = match check_envelope(params) {
        Ok(ok) => ok,
        Err(e) => return Reply::Error(e),
    };
    // Read from this request alone, never from an earlier one.
    let client = ClientCaps::read(
        params
            .get("_meta")
            .and_then(|m| m.get(META_CLIENT_CAPABILITIES)),
    );
    let ctx = Context { version, client };
    let named = Method::from_name(name);
    let Some(method) = named.filter(|m| !m.is_legacy_only()) else {
        return Reply::Error(removed_method(name, named));
    };
    match Call::parse(method, params) {
        Err(e) => Reply::Error(super::call_error(e)),
        Ok(Call::Discover) => Reply::Result(decorate(discover_result(), Some("public"))),
        Ok(Call::Listen(filter)) => {
            let (notifications, interest) = honoured(filter);
            Reply::Hold {
                ack: Notification {
                    method: call::ACKNOWLEDGED.to_string(),
                    params: Some(json!({
                        "notifications": notifications,
                        "_meta": {META_SUBSCRIPTION_ID: id.to_value()}
                    })),
                },
                interest,
            }
        }
        Ok(Call::Shared(call)) => {
            let cache = cache_scope(&call);
            let arguments = match &call {
                SharedCall::ToolsCall { arguments, .. } => Some(arguments.clone()),
                _ => None,
            };
            let not_found = |uri: String| {
                ErrorObject::invalid_params("Resource not found").with_data(super::uri_data(&uri))
            };
            match service.serve(call, ctx) {
                Ok(Step::Done(result)) => Reply::Result(decorate(result, cache)),
                Ok(Step::Ask(q)) => {
                    if !ctx.client.elicitation_form {
                        return Reply::Error(missing_elicitation(
                            &service.engineer_terminal(&q),
                            ctx.client.apps,
                        ));
                    }
                    let arguments = arguments.unwrap_or_else(|| json!({}));
                    match service.seal(&q, &arguments) {
                        Ok(state) => Reply::Result(input_required(&q, state, version)),
                        Err(e) => Reply::Error(super::service_error(e, not_found)),
                    }
                }
                Err(e) => Reply::Error(super::service_error(e, not_found)),
            }
        }
        Ok(
            Call::Ping | Call::SetLevel { .. } | Call::Subscribe { .. } | Call::Unsubscribe { .. },
        ) => Reply::Error(removed_method(name, Some(method))),
    }
}

/// -32601 for a method this revision does not have, saying what 2026-07-28 has instead when
/// it is one the handshake era has (`initialize` here is the handshake without its
/// `protocolVersion`: the router takes it as the handshake when it has one).
fn removed_method(name: &str, method: Option<Method>) -> ErrorObject {
    let instead = match method {
        Some(Method::Ping) => {
            "2026-07-28 has no ping: any request, such as server/discover, shows the server is there"
        }
        Some(Method::SetLevel) => {
            "2026-07-28 has no logging/setLevel: the level goes in each request's _meta as io.modelcontextprotocol/logLevel"
        }
        Some(Method::Subscribe) => {
            "2026-07-28 subscribes with subscriptions/listen, listing the URIs in notifications.resourceSubscriptions"
        }
        Some(Method::Unsubscribe) => {
            "2026-07-28 ends a subscription by cancelling its subscriptions/listen request with notifications/cancelled"
        }
        _ if name == call::INITIALIZE => {
            "2026-07-28 has no handshake: send server/discover, or any request, with this _meta envelope; or initialize without the envelope and with protocolVersion for a handshake session"
        }
        _ => return ErrorObject::method_not_found(name),
    };
    let mut e = ErrorObject::method_not_found(name);
    e.message = format!("{} ({instead})", e.message);
    e
}

/// Steps 1 to 3 of the ladder. Returns the version and the params object.
fn check_envelope(params: Option<Value>) -> Result<(Version, Map<String, Value>), ErrorObject> {
    let params = match params {
        Some(Value::Object(p)) => p,
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "Invalid params: \"params\" must be an object",
            ));
        }
        // No params: no envelope either.
        None => Map::new(),
    };
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(ErrorObject::invalid_params(
            "Invalid params: the _meta envelope is missing",
        ));
    };
    // Missing, or there but of the wrong type: each refusal says which, and what to send.
    let refuse = |key: &str, what: &str| {
        let why = if meta.get(key).is_some() {
            format!("_meta {key} must be {what}")
        } else {
            format!("_meta is missing {key}")
        };
        ErrorObject::invalid_params(format!("Invalid params: {why}"))
    };
    let Some(requested) = meta.get(META_PROTOCOL_VERSION).and_then(Value::as_str) else {
        return Err(refuse(
            META_PROTOCOL_VERSION,
            &format!("a string, such as \"{}\"", Version::V2026_07_28.as_str()),
        ));
    };
    if !meta
        .get(META_CLIENT_CAPABILITIES)
        .is_some_and(Value::is_object)
    {
        return Err(refuse(
            META_CLIENT_CAPABILITIES,
            "an object (the client's capabilities, {} for none)",
        ));
    }
    let Some(version) = Version::parse_modern(requested) else {
        return Err(
            ErrorObject::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
                .with_data(json!({
                    "supported": Version::modern_strings(),
                    // Echoed; its start only when longer than any version could be.
                    "requested": crate::text::prefix_chars(requested, 100),
                })),
        );
    };
    if let Some(level) = meta.get(META_LOG_LEVEL)
        && !level.as_str().is_some_and(|l| LOG_LEVELS.contains(&l))
    {
        return Err(ErrorObject::invalid_params(format!(
            "Invalid params: {META_LOG_LEVEL} must be one of {}",
            LOG_LEVELS.join(", ")
        )));
    }
    Ok((version, params))
}

/// Cache hints: the prompt and template lists are the same for every caller (`public`).
/// `tools/list` is `private`: it shows the review card's links and `record_verdict` only to a
/// request that declared the UI extension, and a cache keys on the method and its params, not
/// on `_meta`, so a shared cache must not hand one caller's list to another (the spec's
/// "filtered list results that vary per user"). Resources are the user's mutable data
/// (`private`). All with `ttlMs: 0`, so a host never serves a stale copy. Tool calls and
/// completions get no hints (`None`).
fn cache_scope(call: &SharedCall) -> Option<&'static str> {
    match call {
        SharedCall::ResourcesList { .. }
        | SharedCall::ResourcesRead { .. }
        | SharedCall::ToolsList { .. } => Some("private"),
        call if call.is_static() => Some("public"),
        _ => None,
    }
}

fn discover_result() -> Payload {
    let mut result = Payload::default();
    result.insert("supportedVersions", json!(Version::modern_strings()));
    // The extensions it supports (2026-07-28 `ServerCapabilities.extensions`, SEP-2133): the
    // MCP Apps extension, whose review card `show_review` links (no settings: `{}`).
    result.insert(
        "capabilities",
        json!({
            "tools": {},
            "prompts": {},
            "resources": {"subscribe": true, "listChanged": true},
            "completions": {},
            "extensions": {UI_EXTENSION: {}},
        }),
    );
    result.insert("instructions", json!(service::INSTRUCTIONS));
    result
}

/// -32021 for a call that must ask the engineer from a request that did not declare form
/// elicitation; `terminal`: the engineer's own command for the decision, ready to run;
/// `apps`: the request declared the MCP Apps extension (its host renders the review card).
fn missing_elicitation(terminal: &str, apps: bool) -> ErrorObject {
    ErrorObject::new(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("Missing required client capability: elicitation (form). This call asks the engineer through a form; declare elicitation in io.modelcontextprotocol/clientCapabilities, or ask the engineer in chat and record the answers with remember_decision. The engineer's own channels outside a form: {terminal} in their terminal, or {}.", request_verdicts::card_channel(apps)),
    )
    .with_data(json!({"requiredCapabilities": {"elicitation": {"form": {}}}}))
}

/// `InputRequiredResult`: the form as the one input request, and the sealed question. No
/// cache hints: it is not a complete result.
fn input_required(q: &Question, state: String, version: Version) -> Payload {
    let params = q.params(version);
    let mut result = Payload::default();
    result.insert("resultType", json!("input_required"));
    result.insert(
        "inputRequests",
        json!({INPUT_KEY: {"method": call::ELICIT, "params": params}}),
    );
    result.insert("requestState", Value::String(state));
    add_server_info(&mut result);
    result
}

/// Adds `resultType`, the server's identity in `_meta`, and the cache hints of `scope`.
fn decorate(mut result: Payload, scope: Option<&str>) -> Payload {
    result.insert("resultType", json!("complete"));
    if let Some(scope) = scope {
        result.insert("ttlMs", json!(0));
        result.insert("cacheScope", json!(scope));
    }
    add_server_info(&mut result);
    result
}

/// The server's identity in the result's `_meta`.
fn add_server_info(result: &mut Payload) {
    result.meta_mut().insert(
        META_SERVER_INFO.into(),
        json!({"name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION}),
    );
}
