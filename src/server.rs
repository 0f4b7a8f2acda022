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

use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use crate::era::legacy::{self, Session};
use crate::era::modern::{self, Reply};
use crate::framing::{self, Frame, LineReader};
use crate::jsonrpc::{
    self, ErrorObject, INTERNAL_ERROR, INVALID_REQUEST, Id, Incoming, PARSE_ERROR, Request,
};
use crate::service::Service;

/// The most messages one batch may hold. Without a bound, a 16 MiB line such as `[1,1,1,...]`
/// in a 2025-03-26 session asks for eight million answers: gigabytes of memory and output
/// from one line (2 MB of input already took 1.6 GB). Real clients batch a handful.
pub const MAX_BATCH_LEN: usize = 1000;

/// One stdio server process: the service, the legacy session if one was opened, and the
/// open `subscriptions/listen` streams.
pub struct Server {
    service: Service,
    session: Option<Session>,
    listening: Vec<Id>,
}

impl Server {
    pub fn new(service: Service) -> Self {
        Self {
            service,
            session: None,
            listening: Vec::new(),
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
            for message in self.handle_frame(frame) {
                framing::write_line(output, &encode(&message))?;
            }
        }
    }

    /// Answers one frame: the messages to write, in order (usually zero or one).
    pub fn handle_frame(&mut self, frame: Frame) -> Vec<Value> {
        match frame {
            Frame::Eof => Vec::new(),
            Frame::TooLong { len } => {
                log::warn!(
                    "dropped a {len}-byte line: over the {} byte limit",
                    framing::MAX_LINE_BYTES
                );
                vec![jsonrpc::error_response(
                    None,
                    &ErrorObject::new(
                        INVALID_REQUEST,
                        format!(
                            "Invalid Request: the line is longer than the {} byte limit",
                            framing::MAX_LINE_BYTES
                        ),
                    ),
                )]
            }
            Frame::Line(bytes) => self.handle_line(&bytes),
        }
    }

    /// Answers one line of input.
    pub fn handle_line(&mut self, bytes: &[u8]) -> Vec<Value> {
        if bytes.iter().all(is_json_whitespace) {
            return Vec::new();
        }
        let value: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => {
                log::debug!("parse error: {e}");
                return vec![jsonrpc::error_response(
                    None,
                    &ErrorObject::new(PARSE_ERROR, "Parse error"),
                )];
            }
        };
        match value {
            Value::Array(items) => self.handle_batch(items),
            single => self.handle_value(single, false).into_iter().collect(),
        }
    }

    /// A JSON array: a batch in a 2025-03-26 session, an invalid request anywhere else.
    fn handle_batch(&mut self, items: Vec<Value>) -> Vec<Value> {
        let batches_allowed = self
            .session
            .as_ref()
            .is_some_and(|s| s.version.accepts_batches());
        let why = if items.is_empty() {
            Some("Invalid Request: empty batch".to_string())
        } else if !batches_allowed {
            Some("Invalid Request: batches are only accepted in a 2025-03-26 session".to_string())
        } else if items.len() > MAX_BATCH_LEN {
            Some(format!(
                "Invalid Request: a batch may hold at most {MAX_BATCH_LEN} messages"
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return vec![jsonrpc::error_response(
                None,
                &ErrorObject::new(INVALID_REQUEST, why),
            )];
        }
        let answers: Vec<Value> = items
            .into_iter()
            .filter_map(|item| self.handle_value(item, true))
            .collect();
        if answers.is_empty() {
            Vec::new()
        } else {
            vec![Value::Array(answers)]
        }
    }

    /// One message (not an array). Returns the single message to write, if any.
    fn handle_value(&mut self, value: Value, in_batch: bool) -> Option<Value> {
        match jsonrpc::classify(value) {
            Incoming::Request(req) => {
                if in_batch && req.method == "initialize" {
                    return Some(jsonrpc::error_response(
                        Some(&req.id),
                        &ErrorObject::new(
                            INVALID_REQUEST,
                            "Invalid Request: initialize cannot be batched",
                        ),
                    ));
                }
                // The modern era has no batches. Serving an enveloped request here would also
                // put a listen acknowledgement (a notification) inside a response array.
                if in_batch && modern::has_envelope(req.params.as_ref()) {
                    return Some(jsonrpc::error_response(
                        Some(&req.id),
                        &ErrorObject::new(
                            INVALID_REQUEST,
                            "Invalid Request: 2026-07-28 requests cannot be batched",
                        ),
                    ));
                }
                Some(self.handle_request_guarded(req))
            }
            Incoming::Notification(n) => {
                self.handle_notification(&n.method, n.params.as_ref());
                None
            }
            Incoming::Response => {
                log::warn!("dropped a response from the client: this server sends no requests");
                None
            }
            Incoming::Invalid { id, reason } => Some(jsonrpc::error_response(
                id.as_ref(),
                &ErrorObject::new(INVALID_REQUEST, format!("Invalid Request: {reason}")),
            )),
        }
    }

    /// A panic in a handler must not end the process: it becomes -32603 for that request.
    fn handle_request_guarded(&mut self, req: Request) -> Value {
        let id = req.id.clone();
        match catch_unwind(AssertUnwindSafe(|| self.handle_request(req))) {
            Ok(v) => v,
            Err(_) => {
                log::error!("a handler panicked; answered -32603 and kept serving");
                jsonrpc::error_response(
                    Some(&id),
                    &ErrorObject::new(INTERNAL_ERROR, "Internal error"),
                )
            }
        }
    }

    fn handle_request(&mut self, req: Request) -> Value {
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
            return jsonrpc::result_response(&id, result);
        }
        if modern::has_envelope(params.as_ref()) {
            return match modern::handle(&mut self.service, &id, &method, params.as_ref()) {
                Reply::Result(r) => jsonrpc::result_response(&id, r),
                Reply::Error(e) => jsonrpc::error_response(Some(&id), &e),
                Reply::Hold(ack) => {
                    self.listening.push(id);
                    ack
                }
            };
        }
        let answer = legacy::handle(
            &mut self.service,
            self.session.as_mut(),
            &method,
            params.as_ref(),
        );
        match answer {
            Ok(r) => jsonrpc::result_response(&id, r),
            Err(e) => jsonrpc::error_response(Some(&id), &e),
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
            log::debug!("notification {method}");
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
