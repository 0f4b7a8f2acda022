//! JSON-RPC 2.0 message types: classify an incoming value, build responses.
//!
//! Knows nothing about MCP. Request ids are kept exactly as sent (integer or string), a
//! response holds a result or an error, never both, by its type.

use serde::Serialize;
use serde_json::Value;

use crate::wire::{self, Payload};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// A request id: an integer or a string, echoed back exactly as it arrived. Two ids are the
/// same id when they are the same value: `1`, `1.0` and `1e0` name one request (the schema's
/// `RequestId` counts each as the integer 1), `"1"` another.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Id {
    Number(serde_json::Number),
    String(String),
}

/// The integer a number id stands for: an id is an integer, or a whole float of at most 2^53
/// ([`is_whole`]), which an i128 holds exactly (`-0.0` is 0).
fn integer_of(n: &serde_json::Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
        .or_else(|| n.as_f64().filter(|f| is_whole(*f)).map(|f| f as i128))
}

impl PartialEq for Id {
    fn eq(&self, other: &Id) -> bool {
        match (self, other) {
            (Id::String(a), Id::String(b)) => a == b,
            (Id::Number(a), Id::Number(b)) => match (integer_of(a), integer_of(b)) {
                (Some(a), Some(b)) => a == b,
                _ => a == b,
            },
            _ => false,
        }
    }
}

impl Eq for Id {}

impl Id {
    /// Accepts strings and integers: what fits i64 or u64, and a number written with a
    /// fraction or exponent whose value is whole (`1.0`, `1e2`, `-0`), which the schema's
    /// `RequestId` (JSON Schema's `"integer"`) counts as an integer too; it is echoed as
    /// serde_json holds it (`1.0`, `100.0`, `-0.0`: the same value). Fractions, integers
    /// beyond u64 and i64 (rounded by then), booleans, null, arrays and objects are not ids.
    pub fn from_value(v: &Value) -> Option<Id> {
        match v {
            Value::String(s) => Some(Id::String(s.clone())),
            Value::Number(n) if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(is_whole) => {
                Some(Id::Number(n.clone()))
            }
            _ => None,
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::Number(n.clone()),
            Id::String(s) => Value::String(s.clone()),
        }
    }
}

/// A number without a fractional part that a float holds exactly (at most 2^53 either side):
/// an integer too large for u64 or i64 arrives as a float already rounded, and echoing it
/// would name another request, so it is not an id.
fn is_whole(f: f64) -> bool {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    f.fract() == 0.0 && f.abs() <= EXACT
}

/// An error object: `code`, one-sentence `message`, optional `data` (members in sorted
/// order, as they are written).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorObject {
    pub code: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    pub message: String,
}

impl ErrorObject {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    /// -32601 naming the method: its first 100 characters, escaped as every refusal shows
    /// what the client sent (`text::inline`, as "Unknown tool" does), so a name holding a
    /// line break, an escape sequence or a bidirectional override cannot act on the reader.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            METHOD_NOT_FOUND,
            format!("Method not found: {}", crate::text::inline(method, 100)),
        )
    }
}

/// A request from the client: it must be answered exactly once.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: Id,
    pub method: String,
    /// `None` when the member was absent. Present but not an object is kept as is so that the
    /// adapter can answer -32602.
    pub params: Option<Value>,
}

/// A notification: never answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub method: String,
    pub params: Option<Value>,
}

/// The client's response to a request the server sent.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientResponse {
    /// `None` when it was null or not a valid id (it then matches nothing).
    pub id: Option<Id>,
    /// The `result`, or the `error`'s code and message.
    pub outcome: Result<Value, (i64, String)>,
}

/// What one JSON value on the wire turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request(Request),
    Notification(Notification),
    /// A response sent by the client to a request of the server's own (`elicitation/create`).
    Response(ClientResponse),
    /// Shaped as a response (a `result` or an `error`, no `method`) but not JSON-RPC 2.0:
    /// never answered, since its id is in the server's id space, not the client's; one that
    /// names a question of the server's ends that question's wait.
    InvalidResponse {
        id: Option<Id>,
        reason: String,
    },
    /// Not a JSON-RPC message: answered with -32600 and the id when one could be read.
    Invalid {
        id: Option<Id>,
        reason: String,
    },
}

/// Classifies one parsed value that is not an array (batches are the server's business).
pub fn classify(value: Value) -> Incoming {
    let Value::Object(mut obj) = value else {
        return Incoming::Invalid {
            id: None,
            reason: "a JSON-RPC message must be an object".into(),
        };
    };
    let raw_id = obj.get("id");
    let valid_id = raw_id.and_then(Id::from_value);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        if !obj.contains_key("method") && (obj.contains_key("result") || obj.contains_key("error"))
        {
            return Incoming::InvalidResponse {
                id: valid_id,
                reason: "its \"jsonrpc\" is not \"2.0\"".into(),
            };
        }
        return Incoming::Invalid {
            id: valid_id,
            reason: "\"jsonrpc\" must be \"2.0\"".into(),
        };
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => {
            return Incoming::Invalid {
                id: valid_id,
                reason: "\"method\" must be a string".into(),
            };
        }
        None => {
            // JSON-RPC 2.0: "Either the result member or error member MUST be included, but
            // not both." Taking the result would record an answer the client also said failed.
            // A member that is null says nothing (JSON-RPC 1.0's shape, and serialisers that
            // write every field write the other one so): the one that is not null is the
            // answer, as before the rule.
            let said = |key: &str| obj.get(key).is_some_and(|v| !v.is_null());
            let error_said = said("error");
            if said("result") && error_said {
                return Incoming::InvalidResponse {
                    id: valid_id,
                    reason: "it has both \"result\" and \"error\"".into(),
                };
            }
            if let Some(result) = obj.remove("result").filter(|_| !error_said) {
                return Incoming::Response(ClientResponse {
                    id: valid_id,
                    outcome: Ok(result),
                });
            }
            if let Some(error) = obj.remove("error") {
                let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                return Incoming::Response(ClientResponse {
                    id: valid_id,
                    outcome: Err((code, crate::text::clip_bytes(message, 500).into_owned())),
                });
            }
            return Incoming::Invalid {
                id: valid_id,
                reason: "a request needs a \"method\"".into(),
            };
        }
    };
    let params = obj.remove("params");
    match obj.get("id") {
        None => Incoming::Notification(Notification { method, params }),
        Some(raw) => match Id::from_value(raw) {
            Some(id) => Incoming::Request(Request { id, method, params }),
            None => Incoming::Invalid {
                id: None,
                reason: "\"id\" must be a string or an integer".into(),
            },
        },
    }
}

/// What [`peek`] could tell about a line it did not parse into values.
#[derive(Debug, Clone, PartialEq)]
pub enum Peeked {
    /// A request with this id: it must be answered.
    Request(Id),
    /// A notification (a `method` and no `id`): never answered.
    Notification,
    /// A response from the client, with its id when a valid one was there.
    Response(Option<Id>),
    /// Anything else, with the id when a valid one was there.
    Invalid(Option<Id>),
}

/// Reads only the members that decide how a message is answered (`id`, `method`, `result`,
/// `error`) from one JSON object, skipping everything else without building it. For a line
/// too costly to parse whole, so that its refusal still carries the request's id.
pub fn peek(bytes: &[u8]) -> Peeked {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default, deserialize_with = "present")]
        id: Option<PeekedId>,
        #[serde(default)]
        method: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        result: Option<serde::de::IgnoredAny>,
        #[serde(default)]
        error: Option<serde::de::IgnoredAny>,
    }
    fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PeekedId>, D::Error> {
        serde::Deserialize::deserialize(d).map(Some)
    }
    let Ok(head) = serde_json::from_slice::<Head>(bytes) else {
        return Peeked::Invalid(None);
    };
    let id = match head.id {
        Some(PeekedId::Valid(id)) => Some(Some(id)),
        Some(PeekedId::Other) => Some(None),
        None => None,
    };
    match (head.method.is_some(), id) {
        (true, Some(Some(id))) => Peeked::Request(id),
        (true, Some(None)) => Peeked::Invalid(None),
        (true, None) => Peeked::Notification,
        (false, id) if head.result.is_some() || head.error.is_some() => {
            Peeked::Response(id.flatten())
        }
        (false, id) => Peeked::Invalid(id.flatten()),
    }
}

/// An `id` as [`peek`] reads it: a valid id, or anything else (skipped unbuilt).
enum PeekedId {
    Valid(Id),
    Other,
}

impl<'de> serde::Deserialize<'de> for PeekedId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = PeekedId;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON-RPC id")
            }
            fn visit_str<E>(self, v: &str) -> Result<PeekedId, E> {
                Ok(PeekedId::Valid(Id::String(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<PeekedId, E> {
                Ok(PeekedId::Valid(Id::Number(v.into())))
            }
            fn visit_u64<E>(self, v: u64) -> Result<PeekedId, E> {
                Ok(PeekedId::Valid(Id::Number(v.into())))
            }
            fn visit_f64<E>(self, v: f64) -> Result<PeekedId, E> {
                Ok(serde_json::Number::from_f64(v)
                    .filter(|_| is_whole(v))
                    .map_or(PeekedId::Other, |n| PeekedId::Valid(Id::Number(n))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<PeekedId, E> {
                Ok(PeekedId::Other)
            }
            fn visit_unit<E>(self) -> Result<PeekedId, E> {
                Ok(PeekedId::Other)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<PeekedId, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(PeekedId::Other)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<PeekedId, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(PeekedId::Other)
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// A response: a result or an error, never both, by its type. The id is `None` (written as
/// null) when the request's id could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub id: Option<Id>,
    pub outcome: Result<Payload, ErrorObject>,
}

impl Response {
    pub fn result(id: Id, payload: Payload) -> Response {
        Response {
            id: Some(id),
            outcome: Ok(payload),
        }
    }

    pub fn error(id: Option<Id>, error: ErrorObject) -> Response {
        Response {
            id,
            outcome: Err(error),
        }
    }

    /// The response as one line of JSON, without its newline.
    pub fn into_line(self) -> String {
        match self.outcome {
            Ok(payload) => wire::result_line(&self.id, payload),
            Err(error) => wire::error_line(&self.id, &error),
        }
    }
}

/// A message the server writes: a response, a notification, or the answer to a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum Outgoing {
    Response(Response),
    Notification(Notification),
    /// The answer to a batch: the lines of its responses, in order, already encoded (the
    /// server measures them to keep the whole within one line's limit).
    Batch(Vec<String>),
    /// A request of the server's own (`elicitation/create`), in its own id space.
    Request {
        id: Id,
        method: String,
        params: Value,
    },
}

/// A server request as it is written: members in sorted order.
#[derive(serde::Serialize)]
struct RequestLine<'a> {
    id: Value,
    jsonrpc: &'static str,
    method: &'a str,
    params: &'a Value,
}

/// A notification as it is written: members in sorted order.
#[derive(serde::Serialize)]
struct NotificationLine<'a> {
    jsonrpc: &'static str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a Value>,
}

impl Outgoing {
    /// The message as one line of JSON, without its newline.
    pub fn into_line(self) -> String {
        match self {
            Outgoing::Response(r) => r.into_line(),
            Outgoing::Notification(n) => wire::message_line(&NotificationLine {
                jsonrpc: "2.0",
                method: &n.method,
                params: n.params.as_ref(),
            }),
            Outgoing::Batch(lines) => wire::batch_line(lines),
            Outgoing::Request { id, method, params } => wire::message_line(&RequestLine {
                id: id.to_value(),
                jsonrpc: "2.0",
                method: &method,
                params: &params,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classify_request_keeps_id_type() {
        let got = classify(json!({"jsonrpc":"2.0","id":"1","method":"ping"}));
        assert_eq!(
            got,
            Incoming::Request(Request {
                id: Id::String("1".into()),
                method: "ping".into(),
                params: None
            })
        );
        let got = classify(json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
        let Incoming::Request(r) = got else {
            panic!("not a request")
        };
        assert_eq!(r.id.to_value(), json!(1));
    }

    #[test]
    fn classify_bad_ids_are_invalid_with_null_id() {
        for id in [json!(1.5), json!(null), json!(true), json!({}), json!([1])] {
            let got = classify(json!({"jsonrpc":"2.0","id":id,"method":"ping"}));
            assert!(
                matches!(got, Incoming::Invalid { id: None, .. }),
                "{id}: {got:?}"
            );
        }
    }

    #[test]
    fn classify_whole_numbers_in_float_form_are_ids() {
        for id in [json!(1.0), json!(-0.0), json!(1e2)] {
            let got = classify(json!({"jsonrpc":"2.0","id":id,"method":"ping"}));
            let Incoming::Request(r) = got else {
                panic!("{id}: not a request: {got:?}")
            };
            assert_eq!(r.id.to_value(), id);
        }
    }

    #[test]
    fn classify_wrong_version_echoes_valid_id() {
        let got = classify(json!({"jsonrpc":"1.0","id":7,"method":"ping"}));
        assert!(matches!(got, Incoming::Invalid { id: Some(_), .. }));
    }

    #[test]
    fn classify_response_and_notification() {
        assert_eq!(
            classify(json!({"jsonrpc":"2.0","id":1,"result":{}})),
            Incoming::Response(ClientResponse {
                id: Some(Id::Number(1.into())),
                outcome: Ok(json!({}))
            })
        );
        assert_eq!(
            classify(json!({"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"no"}})),
            Incoming::Response(ClientResponse {
                id: None,
                outcome: Err((-1, "no".into()))
            })
        );
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","method":"x"})),
            Incoming::Notification(_)
        ));
    }
}
