//! The synchronous loop and per-message routing between the two eras.
//!
//! Routing (DUAL-ERA.md §0), per request:
//! 1. `initialize` whose params carry a string `protocolVersion` opens (or replaces) the
//!    process's legacy session;
//! 2. a request whose `params._meta` carries a key of the modern envelope is served as
//!    2026-07-28, whatever came before;
//! 3. anything else follows the legacy session (before one exists: `ping` only).
//!
//! Nothing on the input stops the loop: every line gets exactly one answer if it is a
//! request, none if it is a notification or a response, and the loop ends only at EOF.
//!
//! The catalogs (tools, prompts, templates) are fixed for the life of the process, so the
//! encoded result of a successful list request is kept and reused for an identical request:
//! `tools/list` is 20 KB of schemas that would otherwise be cloned and re-serialised on
//! every call (issue 6 measured 110 µs of CPU for it; the reused answer costs a copy).

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use crate::bounds;
use crate::era::legacy::{self, Session};
use crate::era::modern::{self, Reply};
use crate::framing::{self, Frame, LineReader};
use crate::jsonrpc::{
    self, Body, ErrorObject, INTERNAL_ERROR, INVALID_REQUEST, Id, Incoming, PARSE_ERROR, Request,
};
use crate::service::Service;

/// The most messages one batch may hold. Without a bound, a 16 MiB line such as `[1,1,1,...]`
/// in a 2025-03-26 session asks for eight million answers: gigabytes of memory and output
/// from one line (2 MB of input already took 1.6 GB). Real clients batch a handful.
pub const MAX_BATCH_LEN: usize = 1000;

/// The most `subscriptions/listen` streams held open at once. A client needs one (the TS SDK
/// opens one per connection); 64 leaves room for several clients sharing a process.
pub const MAX_LISTEN_STREAMS: usize = 64;

/// The longest string id a listen stream keeps, in bytes (a number id is always small).
pub const MAX_LISTEN_ID_BYTES: usize = 256;

/// One stdio server process: the service, the legacy session if one was opened, and the
/// open `subscriptions/listen` streams.
pub struct Server {
    service: Service,
    session: Option<Session>,
    listening: Vec<Id>,
    /// Encoded results of [`STATIC_METHODS`] requests, by what they depend on.
    memo: HashMap<MemoKey, String>,
}

/// Methods whose successful result depends only on the era, the method and the params.
const STATIC_METHODS: [&str; 3] = ["tools/list", "prompts/list", "resources/templates/list"];

/// At most this many memoised answers: distinct `_meta` contents make distinct keys, and a
/// client must not be able to grow the memory without bound.
const MEMO_CAPACITY: usize = 64;

/// What a static list result depends on.
#[derive(PartialEq, Eq, Hash)]
struct MemoKey {
    /// The legacy session's version; `None` for an enveloped (modern) request.
    legacy: Option<&'static str>,
    method: String,
    /// The params as compact JSON (the modern `_meta` included: its checks can fail).
    params: String,
}

/// One message to write: built now, or reused already encoded.
enum Answer {
    Message(Value),
    Encoded(String),
}

impl Answer {
    /// The success response to `id`, kept encoded when the result already is.
    fn result(id: &Id, body: Body) -> Answer {
        match body {
            Body::Value(v) => Answer::Message(jsonrpc::result_response(id, v)),
            Body::Members(m) => Answer::Encoded(jsonrpc::encoded_result_response(id, m)),
        }
    }

    fn into_line(self) -> String {
        match self {
            Answer::Message(v) => encode(&v),
            Answer::Encoded(s) => s,
        }
    }

    fn into_value(self) -> Value {
        match self {
            Answer::Message(v) => v,
            Answer::Encoded(s) => serde_json::from_str(&s).unwrap_or_else(|e| {
                log::error!("a memoised answer is not JSON: {e}");
                Value::Null
            }),
        }
    }
}

impl Server {
    pub fn new(service: Service) -> Self {
        Self {
            service,
            session: None,
            listening: Vec::new(),
            memo: HashMap::new(),
        }
    }

    /// The negotiated legacy session, if `initialize` was seen.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// Serves until EOF. Returns an error only when the output cannot be written.
    pub fn run<R: BufRead, W: Write>(&mut self, input: R, output: &mut W) -> io::Result<()> {
        let mut reader = LineReader::new(input);
        loop {
            let frame = reader.next_frame()?;
            if frame == Frame::Eof {
                log::debug!("input closed; exiting");
                return Ok(());
            }
            for answer in self.answer_frame(frame) {
                framing::write_line(output, answer.into_line())?;
            }
        }
    }

    /// Answers one frame: the messages to write, in order (usually zero or one).
    pub fn handle_frame(&mut self, frame: Frame) -> Vec<Value> {
        self.answer_frame(frame)
            .into_iter()
            .map(Answer::into_value)
            .collect()
    }

    fn answer_frame(&mut self, frame: Frame) -> Vec<Answer> {
        match frame {
            Frame::Eof => Vec::new(),
            Frame::TooLong { len } => {
                log::warn!(
                    "dropped a {len}-byte line: over the {} byte limit",
                    framing::MAX_LINE_BYTES
                );
                vec![Answer::Message(jsonrpc::error_response(
                    None,
                    &ErrorObject::new(
                        INVALID_REQUEST,
                        format!(
                            "Invalid Request: the line is longer than the {} byte limit",
                            framing::MAX_LINE_BYTES
                        ),
                    ),
                ))]
            }
            Frame::Line(bytes) => self.answer_line(&bytes),
        }
    }

    /// Answers one line of input.
    pub fn handle_line(&mut self, bytes: &[u8]) -> Vec<Value> {
        self.answer_line(bytes)
            .into_iter()
            .map(Answer::into_value)
            .collect()
    }

    fn answer_line(&mut self, bytes: &[u8]) -> Vec<Answer> {
        if bytes.iter().all(is_json_whitespace) {
            return Vec::new();
        }
        let shape = bounds::count_values(bytes, bounds::MAX_LINE_VALUES);
        if shape.values > bounds::MAX_LINE_VALUES {
            return self.refuse_costly_line(bytes, shape).into_iter().collect();
        }
        let value: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => {
                log::debug!("parse error: {e}");
                return vec![Answer::Message(jsonrpc::error_response(
                    None,
                    &ErrorObject::new(PARSE_ERROR, "Parse error"),
                ))];
            }
        };
        match value {
            Value::Array(items) => self
                .handle_batch(items)
                .into_iter()
                .map(Answer::Message)
                .collect(),
            single => self.handle_value(single, false).into_iter().collect(),
        }
    }

    /// A line holding more than [`bounds::MAX_LINE_VALUES`] JSON values, refused without
    /// parsing it into values (that alone would cost 16 times the line). A batch gets the
    /// answer a batch of its length gets; a request gets -32600 with its id, so the client
    /// is not left waiting; a notification or a response gets nothing, as always.
    fn refuse_costly_line(&mut self, bytes: &[u8], shape: bounds::Shape) -> Option<Answer> {
        let too_many = format!(
            "Invalid Request: a message may hold at most {} JSON values",
            bounds::MAX_LINE_VALUES
        );
        log::warn!(
            "refused a {}-byte line of more than {} JSON values unparsed",
            bytes.len(),
            bounds::MAX_LINE_VALUES
        );
        let first = bytes.iter().find(|b| !is_json_whitespace(b));
        let (id, why) = if first == Some(&b'[') {
            let why = self
                .batch_refusal(shape.top_level_items)
                .unwrap_or(too_many);
            (None, why)
        } else {
            match jsonrpc::peek(bytes) {
                jsonrpc::Peeked::Request(id) => (Some(id), too_many),
                jsonrpc::Peeked::Invalid(id) => (id, too_many),
                jsonrpc::Peeked::Notification | jsonrpc::Peeked::Response => return None,
            }
        };
        Some(Answer::Message(jsonrpc::error_response(
            id.as_ref(),
            &ErrorObject::new(INVALID_REQUEST, why),
        )))
    }

    /// Why a batch of `len` messages is refused as a whole, if it is.
    fn batch_refusal(&self, len: usize) -> Option<String> {
        let batches_allowed = self
            .session
            .as_ref()
            .is_some_and(|s| s.version.accepts_batches());
        if len == 0 {
            Some("Invalid Request: empty batch".to_string())
        } else if !batches_allowed {
            Some("Invalid Request: batches are only accepted in a 2025-03-26 session".to_string())
        } else if len > MAX_BATCH_LEN {
            Some(format!(
                "Invalid Request: a batch may hold at most {MAX_BATCH_LEN} messages"
            ))
        } else {
            None
        }
    }

    /// A JSON array: a batch in a 2025-03-26 session, an invalid request anywhere else.
    fn handle_batch(&mut self, items: Vec<Value>) -> Vec<Value> {
        if let Some(why) = self.batch_refusal(items.len()) {
            return vec![jsonrpc::error_response(
                None,
                &ErrorObject::new(INVALID_REQUEST, why),
            )];
        }
        let answers: Vec<Value> = items
            .into_iter()
            .filter_map(|item| self.handle_value(item, true))
            .map(Answer::into_value)
            .collect();
        if answers.is_empty() {
            Vec::new()
        } else {
            vec![Value::Array(answers)]
        }
    }

    /// One message (not an array). Returns the single message to write, if any.
    fn handle_value(&mut self, value: Value, in_batch: bool) -> Option<Answer> {
        match jsonrpc::classify(value) {
            Incoming::Request(req) => {
                if in_batch && req.method == "initialize" {
                    return Some(Answer::Message(jsonrpc::error_response(
                        Some(&req.id),
                        &ErrorObject::new(
                            INVALID_REQUEST,
                            "Invalid Request: initialize cannot be batched",
                        ),
                    )));
                }
                // The modern era has no batches. Serving an enveloped request here would also
                // put a listen acknowledgement (a notification) inside a response array.
                if in_batch && modern::has_envelope(req.params.as_ref()) {
                    return Some(Answer::Message(jsonrpc::error_response(
                        Some(&req.id),
                        &ErrorObject::new(
                            INVALID_REQUEST,
                            "Invalid Request: 2026-07-28 requests cannot be batched",
                        ),
                    )));
                }
                Some(self.answer_request(req))
            }
            Incoming::Notification(n) => {
                self.handle_notification(&n.method, n.params.as_ref());
                None
            }
            Incoming::Response => {
                log::warn!("dropped a response from the client: this server sends no requests");
                None
            }
            Incoming::Invalid { id, reason } => Some(Answer::Message(jsonrpc::error_response(
                id.as_ref(),
                &ErrorObject::new(INVALID_REQUEST, format!("Invalid Request: {reason}")),
            ))),
        }
    }

    /// Serves a request, reusing the encoded result of an identical static list request.
    fn answer_request(&mut self, req: Request) -> Answer {
        if !STATIC_METHODS.contains(&req.method.as_str()) {
            return self.handle_request_guarded(req);
        }
        let modern = modern::has_envelope(req.params.as_ref());
        let key = MemoKey {
            legacy: if modern {
                None
            } else {
                self.session.as_ref().map(|s| s.version.as_str())
            },
            method: req.method.clone(),
            params: req
                .params
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
        };
        // Without a session, a legacy list request is an error: never memoised.
        let cacheable = modern || key.legacy.is_some();
        if let Some(result) = self.memo.get(&key) {
            return Answer::Encoded(jsonrpc::encoded_object_response(&req.id, result));
        }
        let answer = self.handle_request_guarded(req);
        if cacheable && self.memo.len() < MEMO_CAPACITY {
            if let Answer::Message(response) = &answer {
                if let Some(result) = response.get("result") {
                    self.memo.insert(key, encode(result));
                }
            }
        }
        answer
    }

    /// A panic in a handler must not end the process: it becomes -32603 for that request.
    fn handle_request_guarded(&mut self, req: Request) -> Answer {
        let id = req.id.clone();
        match catch_unwind(AssertUnwindSafe(|| self.handle_request(req))) {
            Ok(answer) => answer,
            Err(_) => {
                log::error!("a handler panicked; answered -32603 and kept serving");
                Answer::Message(jsonrpc::error_response(
                    Some(&id),
                    &ErrorObject::new(INTERNAL_ERROR, "Internal error"),
                ))
            }
        }
    }

    fn handle_request(&mut self, req: Request) -> Answer {
        let Request { id, method, params } = req;
        let legacy_handshake = method == "initialize"
            && params
                .as_ref()
                .and_then(|p| p.get("protocolVersion"))
                .is_some_and(Value::is_string);
        if legacy_handshake {
            let empty = serde_json::Map::new();
            let p = params.as_ref().and_then(Value::as_object).unwrap_or(&empty);
            let (session, result) = legacy::initialize(p);
            self.session = Some(session);
            return Answer::Message(jsonrpc::result_response(&id, result));
        }
        if modern::has_envelope(params.as_ref()) {
            return match modern::handle(&mut self.service, &id, &method, params.as_ref()) {
                Reply::Result(r) => Answer::result(&id, r),
                Reply::Error(e) => Answer::Message(jsonrpc::error_response(Some(&id), &e)),
                Reply::Hold(ack) => match self.listen_refusal(&id) {
                    Some(why) => Answer::Message(jsonrpc::error_response(
                        Some(&id),
                        &ErrorObject::new(INVALID_REQUEST, why),
                    )),
                    None => {
                        self.listening.push(id);
                        Answer::Message(ack)
                    }
                },
            };
        }
        let answer = legacy::handle(
            &mut self.service,
            self.session.as_mut(),
            &method,
            params.as_ref(),
        );
        match answer {
            Ok(r) => Answer::result(&id, r),
            Err(e) => Answer::Message(jsonrpc::error_response(Some(&id), &e)),
        }
    }

    /// Why a `subscriptions/listen` stream cannot be held open, if it cannot. Each open stream
    /// keeps its request id until the client cancels it or the input ends, so both the number
    /// of streams and the size of a kept id are bounded (100 streams with 4 MiB ids once held
    /// 423 MiB). The refusal is an error response to that request, which also ends it.
    fn listen_refusal(&self, id: &Id) -> Option<String> {
        let id_bytes = match id {
            Id::String(s) => s.len(),
            Id::Number(_) => 0,
        };
        if id_bytes > MAX_LISTEN_ID_BYTES {
            Some(format!(
                "Invalid Request: a subscriptions/listen request id may be at most \
                 {MAX_LISTEN_ID_BYTES} bytes, since the stream keeps it"
            ))
        } else if self.listening.len() >= MAX_LISTEN_STREAMS {
            Some(format!(
                "Invalid Request: at most {MAX_LISTEN_STREAMS} subscriptions/listen streams \
                 may be open at once; cancel one (notifications/cancelled) first"
            ))
        } else {
            None
        }
    }

    /// Notifications are never answered. `notifications/cancelled` closes a listen stream;
    /// everything else (initialized, progress, roots/list_changed, unknown) is ignored.
    fn handle_notification(&mut self, method: &str, params: Option<&Value>) {
        if method == "notifications/cancelled" {
            if let Some(id) = params
                .and_then(|p| p.get("requestId"))
                .and_then(Id::from_value)
            {
                self.listening.retain(|held| held != &id);
            }
        } else {
            log::debug!(
                "notification {}",
                crate::logging::clip(method, crate::logging::MAX_QUOTED_BYTES)
            );
        }
    }
}

/// JSON's own whitespace (RFC 8259 §2): a line of nothing else is blank and ignored. Other
/// ASCII "whitespace" such as a form feed is not JSON, so such a line gets -32700 like any
/// other garbage instead of silently vanishing.
fn is_json_whitespace(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Compact JSON never contains a raw newline, so one message is one line.
fn encode(message: &Value) -> String {
    serde_json::to_string(message).unwrap_or_else(|e| {
        log::error!("could not encode a message: {e}");
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use serde_json::json;

    fn server() -> Server {
        Server::new(Service::new(Store::open_in_memory().unwrap()))
    }

    fn answer(s: &mut Server, msg: &Value) -> String {
        let mut lines: Vec<String> = s
            .answer_line(msg.to_string().as_bytes())
            .into_iter()
            .map(Answer::into_line)
            .collect();
        assert_eq!(lines.len(), 1);
        lines.remove(0)
    }

    fn modern_meta() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        })
    }

    #[test]
    fn memo_repeated_list_request_is_byte_identical_to_first_answer() {
        let mut s = server();
        answer(
            &mut s,
            &json!({"jsonrpc":"2.0","id":0,"method":"initialize",
                    "params":{"protocolVersion":"2025-06-18","capabilities":{},
                              "clientInfo":{"name":"t","version":"0"}}}),
        );
        for method in STATIC_METHODS {
            let legacy = |id: Value| json!({"jsonrpc":"2.0","id":id,"method":method});
            let modern = |id: Value| json!({"jsonrpc":"2.0","id":id,"method":method,"params":{"_meta":modern_meta()}});
            for build in [&legacy as &dyn Fn(Value) -> Value, &modern] {
                let first = answer(&mut s, &build(json!(1)));
                let again = answer(&mut s, &build(json!(1)));
                assert_eq!(first, again, "{method}");
                let other_id = answer(&mut s, &build(json!("x\"y")));
                let v: Value = serde_json::from_str(&other_id).unwrap();
                assert_eq!(v["id"], json!("x\"y"));
                assert_eq!(
                    v["result"],
                    serde_json::from_str::<Value>(&first).unwrap()["result"]
                );
            }
        }
    }

    #[test]
    fn memo_is_kept_apart_per_era_and_session_version() {
        let mut s = server();
        let init = |v: &str| {
            json!({"jsonrpc":"2.0","id":0,"method":"initialize",
                   "params":{"protocolVersion":v,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}})
        };
        let list = json!({"jsonrpc":"2.0","id":1,"method":"prompts/list"});
        // Before any session the legacy list is an error, and the error is not remembered.
        let before = answer(&mut s, &list);
        assert!(before.contains("\"error\""));
        answer(&mut s, &init("2025-06-18"));
        let titled = answer(&mut s, &list);
        assert!(titled.contains("\"result\""));
        let modern = answer(
            &mut s,
            &json!({"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{"_meta":modern_meta()}}),
        );
        assert!(modern.contains("resultType"));
        assert!(!titled.contains("resultType"));
        answer(&mut s, &init("2024-11-05"));
        let old = answer(&mut s, &list);
        let v: Value = serde_json::from_str(&old).unwrap();
        // 2024-11-05 predates titles: the 2025-06-18 answer must not be reused.
        for p in v["result"]["prompts"].as_array().unwrap() {
            assert!(p.get("title").is_none());
        }
    }

    #[test]
    fn memo_bad_modern_envelope_is_answered_an_error_every_time() {
        let mut s = server();
        let bad = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion": "1999-01-01",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
        for _ in 0..2 {
            assert!(answer(&mut s, &bad).contains("-32022"));
        }
        assert!(s.memo.is_empty());
    }
}
