//! The handshake era (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05): `initialize`, `ping`,
//! `logging/setLevel`, and the shared methods shaped by the negotiated version.
//!
//! On stdio the process is the session: `initialize` negotiates a version that then holds for
//! every un-enveloped request until another `initialize` replaces it.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::call::{self, Call, Method, SharedCall};
use crate::client_caps::ClientCaps;
use crate::jsonrpc::{ErrorObject, INTERNAL_ERROR, Notification};
use crate::resources;
use crate::service::changes::{Interest, MAX_WATCHED_URIS, Watch};
use crate::service::{
    self, Context, SERVER_NAME, SERVER_TITLE, SERVER_VERSION, Service, ServiceError,
};
use crate::tools::Step;
use crate::version::{LOG_LEVELS, Version};
use crate::wire::Payload;

/// What a 2026-07-28 request sent without its envelope is told to send.
const ENVELOPE: &str = "send it with io.modelcontextprotocol/protocolVersion (\"2026-07-28\") and io.modelcontextprotocol/clientCapabilities (an object, {} for none) in params._meta";

/// -32002: resource not found, as every legacy revision specifies it.
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// The process's legacy session, opened by `initialize`.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub version: Version,
    /// Set by `logging/setLevel`: `notifications/message` at this level and above are sent;
    /// none before the client sets a level.
    pub log_level: Option<String>,
    /// What the session is told of changes: the resource list (always: `listChanged` is
    /// advertised) and the resources it subscribed to.
    pub interest: Interest,
    /// What the client declared in `initialize`.
    pub client: ClientCaps,
    /// The client sent `notifications/initialized`. Until then the server puts no question
    /// to it: "The server SHOULD NOT send requests other than pings and logging before
    /// receiving the initialized notification" (the lifecycle of every handshake revision).
    pub initialized: bool,
}

impl Session {
    /// The context its requests are served in.
    pub fn context(&self) -> Context {
        Context {
            version: self.version,
            client: self.client,
        }
    }

    /// True when the server may send this client `elicitation/create` (form mode): the
    /// revision has it and the client declared it.
    pub fn can_elicit(&self) -> bool {
        self.version.features().elicitation && self.client.elicitation_form
    }

    /// `notifications/message` for a log message at `level`, if the client asked for that
    /// level or a less severe one.
    pub fn log_message(&self, level: &str, message: &str) -> Option<Notification> {
        let rank = |l: &str| LOG_LEVELS.iter().position(|x| *x == l);
        let wanted = rank(self.log_level.as_deref()?)?;
        (rank(level)? >= wanted).then(|| Notification {
            method: call::MESSAGE.to_string(),
            params: Some(json!({"level": level, "logger": SERVER_NAME, "data": message})),
        })
    }
}

/// True when `params` make an `initialize` request the handshake: a string
/// `protocolVersion`. Without the 2026-07-28 envelope, anything else named `initialize` is
/// the handshake with invalid params ([`handle`]); with it, the method that revision removed.
pub fn is_handshake(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("protocolVersion"))
        .is_some_and(Value::is_string)
}

/// Runs the handshake: negotiates the version (a counter-offer, never an error) and returns
/// the new session with the `InitializeResult`.
pub fn initialize(params: Option<&Value>) -> (Session, Payload) {
    let requested = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let version = Version::negotiate_legacy(requested);
    if !Version::speaks_legacy(requested) {
        log::info!(
            "client asked for protocol {:?}; offering {}",
            crate::text::clip_bytes(requested, crate::logging::MAX_QUOTED_BYTES),
            version.as_str()
        );
    }
    let mut server_info = json!({"name": SERVER_NAME, "version": SERVER_VERSION});
    if version.features().titles {
        server_info["title"] = json!(SERVER_TITLE);
    }
    let mut result = Payload::default();
    result.insert("protocolVersion", json!(version.as_str()));
    let mut capabilities = json!({
        "tools": {},
        "prompts": {},
        "resources": {"subscribe": true, "listChanged": true},
        "logging": {},
    });
    if version.features().completions {
        capabilities["completions"] = json!({});
    }
    result.insert("capabilities", capabilities);
    result.insert("serverInfo", server_info);
    result.insert("instructions", json!(service::INSTRUCTIONS));
    let client = ClientCaps::read(params.and_then(|p| p.get("capabilities")));
    (
        Session {
            version,
            log_level: None,
            interest: Interest {
                list: true,
                uris: BTreeSet::new(),
            },
            client,
            initialized: false,
        },
        result,
    )
}

/// Answers one un-enveloped request (not the handshake, which the router handles).
pub fn handle(
    service: &mut Service,
    session: Option<&mut Session>,
    watch: &mut Watch,
    name: &str,
    params: Option<Value>,
) -> Step<Result<Payload, ErrorObject>> {
    handle_inner(service, session, watch, name, params).unwrap_or_else(|e| Step::Done(Err(e)))
}

fn handle_inner(
    service: &mut Service,
    session: Option<&mut Session>,
    watch: &mut Watch,
    name: &str,
    params: Option<Value>,
) -> Result<Step<Result<Payload, ErrorObject>>, ErrorObject> {
    let params = match params {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(ErrorObject::invalid_params("\"params\" must be an object")),
    };
    if name == call::INITIALIZE {
        // Not the handshake (`is_handshake`): its params lack the version to negotiate. The
        // session, if there is one, stays as it was.
        return Err(ErrorObject::invalid_params(format!(
            "Invalid params: initialize needs \"protocolVersion\", a string: the revision the client speaks, such as \"{}\"",
            Version::LATEST_LEGACY.as_str()
        )));
    }
    let method = Method::from_name(name);
    let served = method.filter(|m| !m.is_modern_only());
    if served == Some(Method::Ping) {
        return Ok(Step::Done(Ok(Payload::default())));
    }
    let Some(session) = session else {
        if method.is_some_and(Method::is_modern_only) {
            // A modern method without its envelope: what the modern ladder answers too.
            return Err(ErrorObject::invalid_params(format!(
                "Invalid params: the _meta envelope is missing: {name} is a 2026-07-28 request; {ENVELOPE}"
            )));
        }
        if served.is_some() {
            return Err(ErrorObject::invalid_params(format!(
                "{name} needs a session: send initialize first, or put the 2026-07-28 _meta envelope in params"
            )));
        }
        return Err(ErrorObject::method_not_found(name));
    };
    let Some(method) = served else {
        let mut e = ErrorObject::method_not_found(name);
        if method == Some(Method::Listen) {
            e.message = format!(
                "{} (a 2026-07-28 request; {ENVELOPE}. This session follows changes with resources/subscribe and notifications/resources/list_changed)",
                e.message
            );
        } else if method.is_some_and(Method::is_modern_only) {
            e.message = format!("{} (a 2026-07-28 request; {ENVELOPE})", e.message);
        }
        return Err(e);
    };
    match Call::parse(method, params).map_err(super::call_error)? {
        Call::SetLevel { level } => {
            session.log_level = Some(level);
            Ok(Step::Done(Ok(Payload::default())))
        }
        Call::Shared(mut call) => {
            // `inputResponses` and `requestState` are 2026-07-28 vocabulary: here a question is
            // answered by the client's response. A sealed state is a 2026-07-28 retry that lost
            // its envelope: taken as a new call, the engineer's answer it carries would be
            // dropped unsaid and the form put again, so it is refused saying what to send.
            if let SharedCall::ToolsCall { retry, .. } = &mut call {
                if retry.as_ref().is_some_and(|r| r.state.is_some()) {
                    return Err(ErrorObject::invalid_params(format!(
                        "Invalid params: requestState and inputResponses answer a 2026-07-28 input_required result; {ENVELOPE}. Without the envelope this is a call of the {} session, which asks with elicitation/create",
                        session.version.as_str()
                    )));
                }
                *retry = None;
            }
            let served = service.serve(call, session.context()).map_err(|e| {
                super::service_error(e, |uri| {
                    ErrorObject::new(RESOURCE_NOT_FOUND, "Resource not found")
                        .with_data(super::uri_data(&uri))
                })
            })?;
            Ok(match served {
                Step::Ask(q) if !session.can_elicit() => {
                    Step::Done(Ok(service.without_elicitation(&q, session.context())))
                }
                step => step.map(Ok),
            })
        }
        Call::Subscribe { uri } => {
            if resources::never_changes(&uri) {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid params: this resource never changes, so there is nothing to subscribe to (resources that change: {})",
                    resources::watchable()
                ))
                .with_data(super::uri_data(&uri)));
            }
            if resources::watched(&uri).is_none() {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid params: not a resource of this server ({})",
                    resources::watchable()
                ))
                .with_data(super::uri_data(&uri)));
            }
            if !session.interest.watches(&uri) && session.interest.uris.len() >= MAX_WATCHED_URIS {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid params: a session may subscribe to at most {MAX_WATCHED_URIS} resources; unsubscribe from one first"
                )));
            }
            watch.track(service.store(), &uri).map_err(|e| {
                let path = service.store().path().map(Path::to_path_buf);
                super::service_error(ServiceError::of_store(e, path.as_deref()), |_| {
                    ErrorObject::new(INTERNAL_ERROR, "Internal error")
                })
            })?;
            session.interest.subscribe(uri);
            Ok(Step::Done(Ok(Payload::default())))
        }
        Call::Unsubscribe { uri } => {
            session.interest.unsubscribe(&uri);
            Ok(Step::Done(Ok(Payload::default())))
        }
        Call::Ping | Call::Discover | Call::Listen(_) => Err(ErrorObject::method_not_found(name)),
    }
}
