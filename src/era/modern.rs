//! The stateless era (2026-07-28): the per-request `_meta` envelope, `server/discover`,
//! `subscriptions/listen`, and the decoration every modern result carries.
//!
//! A modern request is served from its own `_meta` alone: nothing from a legacy session in
//! the same process leaks in. The checks run in the order the spec's ladder gives (first
//! failure wins): envelope shape (-32602), version (-32022), log level (-32602), method
//! (-32601), then the method's own params (-32602).

use serde_json::{Map, Value, json};

use super::{LOG_LEVELS, Version};
use crate::jsonrpc::{self, Body, ErrorObject, Id};
use crate::service::{self, SERVER_NAME, SERVER_TITLE, SERVER_VERSION, Service};

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The methods only the modern era has. Without the envelope and before any session they
/// still get -32602 (the envelope is missing), not -32601: the conformance
/// `missing-meta` probe is `server/discover` with `params: {}`.
pub const DISCOVER: &str = "server/discover";
pub const LISTEN: &str = "subscriptions/listen";
pub const OWN_METHODS: [&str; 2] = [DISCOVER, LISTEN];

/// -32022: the request's protocol version is not one we serve.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

const ENVELOPE_KEYS: [&str; 4] = [
    META_PROTOCOL_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
];

/// What a modern request produces.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Result(Body),
    Error(ErrorObject),
    /// `subscriptions/listen`: write this acknowledgement now and answer nothing until the
    /// client cancels the stream (then nothing at all) or the input ends.
    Hold(Value),
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
pub fn handle(service: &mut Service, id: &Id, method: &str, params: Option<&Value>) -> Reply {
    let (version, params) = match check_envelope(params) {
        Ok(ok) => ok,
        Err(e) => return Reply::Error(e),
    };
    match method {
        DISCOVER => Reply::Result(decorate(Body::Value(discover_result()), Cache::Public)),
        LISTEN => Reply::Hold(jsonrpc::notification(
            "notifications/subscriptions/acknowledged",
            json!({"notifications": {}, "_meta": {META_SUBSCRIPTION_ID: id.to_value()}}),
        )),
        _ => match service.handle(method, params, version) {
            Some(Ok(result)) => Reply::Result(decorate(result, cache_for(method))),
            Some(Err(e)) => Reply::Error(super::service_error(e, |uri| {
                ErrorObject::invalid_params("Resource not found").with_data(json!({"uri": uri}))
            })),
            None => Reply::Error(ErrorObject::method_not_found(method)),
        },
    }
}

/// Steps 1 to 3 of the ladder. Returns the version and the params object.
fn check_envelope(params: Option<&Value>) -> Result<(Version, &Map<String, Value>), ErrorObject> {
    let params = match params {
        Some(Value::Object(p)) => p,
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "Invalid params: \"params\" must be an object",
            ));
        }
        None => {
            return Err(ErrorObject::invalid_params(
                "Invalid params: the _meta envelope is missing",
            ));
        }
    };
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(ErrorObject::invalid_params(
            "Invalid params: the _meta envelope is missing",
        ));
    };
    let Some(requested) = meta.get(META_PROTOCOL_VERSION).and_then(Value::as_str) else {
        return Err(ErrorObject::invalid_params(format!(
            "Invalid params: _meta is missing {META_PROTOCOL_VERSION}"
        )));
    };
    if !meta
        .get(META_CLIENT_CAPABILITIES)
        .is_some_and(Value::is_object)
    {
        return Err(ErrorObject::invalid_params(format!(
            "Invalid params: _meta is missing {META_CLIENT_CAPABILITIES}"
        )));
    }
    let Some(version) = Version::parse_modern(requested) else {
        return Err(
            ErrorObject::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
                .with_data(json!({"supported": Version::modern_strings(), "requested": requested})),
        );
    };
    if let Some(level) = meta.get(META_LOG_LEVEL) {
        if !level.as_str().is_some_and(|l| LOG_LEVELS.contains(&l)) {
            return Err(ErrorObject::invalid_params(format!(
                "Invalid params: {META_LOG_LEVEL} must be one of {}",
                LOG_LEVELS.join(", ")
            )));
        }
    }
    Ok((version, params))
}

/// Cache hints: static lists are the same for every client (`public`); resources are the
/// user's mutable data (`private`). Both with `ttlMs: 0`, so a host never serves a stale copy.
#[derive(Clone, Copy)]
enum Cache {
    None,
    Public,
    Private,
}

fn cache_for(method: &str) -> Cache {
    match method {
        "tools/list" | "prompts/list" | "resources/templates/list" => Cache::Public,
        "resources/list" | "resources/read" => Cache::Private,
        _ => Cache::None,
    }
}

fn discover_result() -> Value {
    json!({
        "supportedVersions": Version::modern_strings(),
        "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
        "instructions": service::INSTRUCTIONS,
    })
}

/// Adds `resultType`, the server's identity in `_meta`, and the cache hints.
fn decorate(result: Body, cache: Cache) -> Body {
    let mut members = Map::new();
    members.insert("resultType".into(), json!("complete"));
    let scope = match cache {
        Cache::None => None,
        Cache::Public => Some("public"),
        Cache::Private => Some("private"),
    };
    if let Some(scope) = scope {
        members.insert("ttlMs".into(), json!(0));
        members.insert("cacheScope".into(), json!(scope));
    }
    let server_info =
        json!({"name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION});
    match result {
        Body::Value(mut v) => {
            if let Value::Object(m) = &mut v {
                let meta = m.entry("_meta").or_insert_with(|| json!({}));
                if let Value::Object(meta) = meta {
                    meta.insert(META_SERVER_INFO.into(), server_info);
                }
                m.extend(members);
            }
            Body::Value(v)
        }
        Body::Members(mut encoded) => {
            // A `_meta` of the result's own keeps its keys; the server's identity joins them.
            let mut meta = match encoded.iter().position(|(name, _)| name == "_meta") {
                Some(i) => {
                    serde_json::from_str(&encoded.swap_remove(i).1).unwrap_or_else(|_| Map::new())
                }
                None => Map::new(),
            };
            meta.insert(META_SERVER_INFO.into(), server_info);
            members.insert("_meta".into(), Value::Object(meta));
            encoded.retain(|(name, _)| !members.contains_key(name));
            encoded.extend(members.into_iter().map(|(name, v)| (name, v.to_string())));
            Body::Members(encoded)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decorate_encoded_members_gives_the_bytes_of_decorating_the_value() {
        let id = Id::Number(7.into());
        let results = [
            json!({}),
            json!({"content": [{"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}}),
            json!({"_meta": {"x": 1}, "content": [], "isError": true, "resultType": "old"}),
        ];
        for result in results {
            for cache in [Cache::None, Cache::Public, Cache::Private] {
                let from_value = decorate(Body::Value(result.clone()), cache).into_value();
                let Value::Object(m) = &result else { continue };
                let members = m.iter().map(|(k, v)| (k.clone(), v.to_string())).collect();
                let Body::Members(encoded) = decorate(Body::Members(members), cache) else {
                    panic!("members stay members");
                };
                let line = jsonrpc::encoded_result_response(&id, encoded);
                let want = jsonrpc::result_response(&id, from_value).to_string();
                assert_eq!(line, want);
            }
        }
    }
}
