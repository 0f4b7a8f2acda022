//! The handshake era (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05): `initialize`, `ping`,
//! `logging/setLevel`, and the shared methods shaped by the negotiated version.
//!
//! On stdio the process is the session: `initialize` negotiates a version that then holds for
//! every un-enveloped request until another `initialize` replaces it.

use serde_json::{Map, Value, json};

use super::{LOG_LEVELS, Version};
use crate::jsonrpc::{Body, ErrorObject, INVALID_PARAMS};
use crate::service::{self, SERVER_NAME, SERVER_TITLE, SERVER_VERSION, Service};

/// -32002: resource not found, as every legacy revision specifies it.
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// The process's legacy session, opened by `initialize`.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub version: Version,
    /// Set by `logging/setLevel`. This server sends no `notifications/message`, so the level is
    /// only remembered.
    pub log_level: Option<String>,
}

/// Runs the handshake: negotiates the version (a counter-offer, never an error) and returns
/// the new session with the `InitializeResult`.
pub fn initialize(params: &Map<String, Value>) -> (Session, Value) {
    let requested = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let version = Version::negotiate_legacy(requested);
    if !Version::speaks_legacy(requested) {
        log::info!(
            "client asked for protocol {:?}; offering {}",
            crate::logging::clip(requested, crate::logging::MAX_QUOTED_BYTES),
            version.as_str()
        );
    }
    let mut server_info = Map::new();
    server_info.insert("name".into(), json!(SERVER_NAME));
    if version.features().titles {
        server_info.insert("title".into(), json!(SERVER_TITLE));
    }
    server_info.insert("version".into(), json!(SERVER_VERSION));
    let result = json!({
        "protocolVersion": version.as_str(),
        "capabilities": {"tools": {}, "prompts": {}, "resources": {}, "logging": {}},
        "serverInfo": server_info,
        "instructions": service::INSTRUCTIONS,
    });
    (
        Session {
            version,
            log_level: None,
        },
        result,
    )
}

/// Answers one un-enveloped request (not `initialize`, which the router handles).
pub fn handle(
    service: &mut Service,
    session: Option<&mut Session>,
    method: &str,
    params: Option<&Value>,
) -> Result<Body, ErrorObject> {
    let empty = Map::new();
    let params = match params {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => return Err(ErrorObject::invalid_params("\"params\" must be an object")),
    };
    if method == "ping" {
        return Ok(Body::Value(json!({})));
    }
    let known = method == "logging/setLevel" || service::SHARED_METHODS.contains(&method);
    let Some(session) = session else {
        if super::modern::OWN_METHODS.contains(&method) {
            // A modern method without its envelope: what the modern ladder answers too.
            return Err(ErrorObject::invalid_params(
                "Invalid params: the _meta envelope is missing",
            ));
        }
        if known {
            return Err(ErrorObject::invalid_params(format!(
                "{method} needs a session: send initialize first, or put the 2026-07-28 _meta envelope in params"
            )));
        }
        return Err(ErrorObject::method_not_found(method));
    };
    if method == "logging/setLevel" {
        return set_level(session, params).map(Body::Value);
    }
    match service.handle(method, params, session.version) {
        Some(Ok(result)) => Ok(result),
        Some(Err(e)) => Err(super::service_error(e, |uri| {
            ErrorObject::new(RESOURCE_NOT_FOUND, "Resource not found")
                .with_data(json!({"uri": uri}))
        })),
        None => Err(ErrorObject::method_not_found(method)),
    }
}

fn set_level(session: &mut Session, params: &Map<String, Value>) -> Result<Value, ErrorObject> {
    match params.get("level").and_then(Value::as_str) {
        Some(level) if LOG_LEVELS.contains(&level) => {
            session.log_level = Some(level.to_string());
            Ok(json!({}))
        }
        _ => Err(ErrorObject::new(
            INVALID_PARAMS,
            format!(
                "Invalid log level: expected one of {}",
                LOG_LEVELS.join(", ")
            ),
        )),
    }
}
