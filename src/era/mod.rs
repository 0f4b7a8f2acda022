//! The era adapters: one per family of protocol revisions, each turning its era's requests
//! into typed calls of the shared layer and shaping the answers for its era.
//!
//! - [`legacy`]: the `initialize` handshake (2025-11-25 and older);
//! - [`modern`]: the stateless 2026-07-28 revision (`server/discover`, per-request `_meta`).
//!
//! Which revisions exist and what each allows is [`crate::version`]'s business.

pub mod legacy;
pub mod modern;

use serde_json::{Map, Value, json};

use crate::call::{self, CallError};
use crate::jsonrpc::{ErrorObject, INTERNAL_ERROR, INVALID_PARAMS, Id, Notification};
use crate::service::ServiceError;
use crate::service::changes::Change;

/// -32602 for a list cursor this server did not issue for that list: what to send instead.
pub const INVALID_CURSOR: &str = "Invalid cursor: send the nextCursor of the previous page of the same list as it was given, or no cursor for the first page";

/// The wire form of the service errors both eras answer alike. Resource-not-found differs by
/// era, so each adapter passes its own mapping for it.
pub fn service_error(
    e: ServiceError,
    not_found: impl FnOnce(String) -> ErrorObject,
) -> ErrorObject {
    match e {
        ServiceError::InvalidParams(m) => ErrorObject::new(INVALID_PARAMS, m),
        ServiceError::InvalidCursor => ErrorObject::new(INVALID_PARAMS, INVALID_CURSOR),
        // A revision given by its short form or as a checksum digest: what it is and what to
        // pass, after the words clients know.
        ServiceError::ResourceNotFound { uri, hint } => {
            let mut e = not_found(uri);
            if let Some(hint) = hint {
                e.message = format!("{}: {hint}", e.message);
            }
            e
        }
        ServiceError::Storage(m) => {
            log::warn!("storage error: {m}");
            ErrorObject::new(INTERNAL_ERROR, format!("Storage error: {m}"))
        }
        ServiceError::Internal(m) => {
            log::error!("internal error: {m}");
            ErrorObject::new(INTERNAL_ERROR, "Internal error")
        }
    }
}

/// A change as a notification: to a legacy session as it is, on a 2026-07-28 listen stream
/// (`stream`) tagged with the stream's id.
pub fn notification(change: Change, stream: Option<&Id>) -> Notification {
    let (method, mut params) = match change {
        Change::ListChanged => (call::RESOURCES_LIST_CHANGED, Map::new()),
        Change::Updated(uri) => (
            call::RESOURCE_UPDATED,
            Map::from_iter([("uri".into(), json!(uri))]),
        ),
    };
    if let Some(id) = stream {
        params.insert(
            "_meta".into(),
            json!({modern::META_SUBSCRIPTION_ID: id.to_value()}),
        );
    }
    Notification {
        method: method.to_string(),
        params: (!params.is_empty()).then_some(Value::Object(params)),
    }
}

/// The `data` of a refusal about `uri`: the URI as the client sent it, or its first 200
/// characters when longer (no URI of this server is), so the refusal stays a short line.
pub fn uri_data(uri: &str) -> Value {
    json!({"uri": crate::text::prefix_chars(uri, 200)})
}

/// Params a method cannot take: -32602 in every era.
pub fn call_error(e: CallError) -> ErrorObject {
    match e {
        CallError::InvalidParams(m) => ErrorObject::new(INVALID_PARAMS, m),
        CallError::InvalidCursor => ErrorObject::new(INVALID_PARAMS, INVALID_CURSOR),
    }
}
