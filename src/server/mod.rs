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
//! Here: the loop, framing in and out, batches, routing and listen streams. `changes.rs`:
//! what the clients are told of changes (the look after a write, the poll for other
//! processes); `asks.rs`: the questions put to a legacy client while its call waits;
//! `tests.rs`: the memo of static lists.

use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::bounds;
use crate::call;
use crate::era::legacy::{self, Session};
use crate::era::modern::{self, Reply};
use crate::framing::{self, Frame, LineReader};
use crate::jsonrpc::{
    self, ErrorObject, INTERNAL_ERROR, INVALID_REQUEST, Id, Incoming, Outgoing, PARSE_ERROR,
    Request, Response,
};
use crate::service::Service;
use crate::service::changes::{Interest, Watch};
use crate::tools::Step;

mod asks;
mod changes;
mod checkpoint;

use asks::Asks;

/// The most messages one batch may hold. Without a bound, a 16 MiB line such as `[1,1,1,...]`
/// in a 2025-03-26 session asks for eight million answers: gigabytes of memory and output
/// from one line. Real clients batch a handful.
pub const MAX_BATCH_LEN: usize = 1000;

/// What a batch answer keeps free before it runs another of its requests: more than any one
/// answer a request that writes can get (a tool answer is at most
/// [`crate::wire::ANSWER_BOUND`]), so the answer of a write always fits the line.
const BATCH_MEMBER_RESERVE: usize = 1024 * 1024;

/// The most `subscriptions/listen` streams held open at once. A client needs one (the TS SDK
/// opens one per connection); 64 leaves room for several clients sharing a process.
pub const MAX_LISTEN_STREAMS: usize = 64;

/// The longest string id a listen stream keeps, in bytes (a number id is always small).
pub const MAX_LISTEN_ID_BYTES: usize = 256;

/// How often a server with someone to tell looks for commits by other processes: well
/// within the second the notification must arrive in, for one pragma a look.
pub const POLL_INTERVAL: Duration = Duration::from_millis(200);

/// One stdio server process: the service, the legacy session if one was opened, the open
/// `subscriptions/listen` streams and what each wants to be told, and the state of the last
/// look at what changed.
pub struct Server {
    service: Service,
    session: Option<Session>,
    /// Each open listen stream's id (it tags every notification) and what it asked for.
    streams: Vec<(Id, Interest)>,
    watch: Watch,
    /// Questions put to a legacy client, each with the call that waits for its answer.
    asks: Asks,
    /// Answers to calls whose wait a request ended (a new `initialize`), written after the
    /// answer to that request.
    ended: Vec<Outgoing>,
}

/// The lines of `out` as JSON values; a line that is not JSON (a bug) as a string, so a test
/// comparing it fails.
fn read_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| Value::String(line.into())))
        .collect()
}

/// An error response to the request `id` (null when it could not be read).
fn refusal(id: Option<Id>, code: i64, message: impl Into<String>) -> Outgoing {
    Outgoing::Response(Response::error(id, ErrorObject::new(code, message)))
}

impl Server {
    pub fn new(service: Service) -> Self {
        Self {
            service,
            session: None,
            streams: Vec::new(),
            watch: Watch::default(),
            asks: Asks::default(),
            ended: Vec::new(),
        }
    }

    /// The negotiated legacy session, if `initialize` was seen.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// Serves until EOF. Returns an error only when the output cannot be written.
    ///
    /// A thread reads the input, so that while someone can be told of changes (a legacy
    /// session, an open listen stream) the loop also wakes every [`POLL_INTERVAL`] to look
    /// for commits by other processes. With nobody to tell it only waits for input: a
    /// 2026-07-28 process without a stream does no periodic work. Every message is written
    /// here, whole, one at a time, so a notification never lands inside another message.
    pub fn run<R, W>(&mut self, input: R, output: &mut W) -> io::Result<()>
    where
        R: BufRead + Send + 'static,
        W: Write,
    {
        // How the commands an answer gives name this binary, looked up now: once the file is
        // replaced while the server runs (a host updating its bundle), Linux names the
        // running executable `…/review-mcp (deleted)`.
        crate::program::invoked_as();
        // The reader reads a line only when the loop asks for one: unread input stays in the
        // pipe (costing no memory here), and a request is read only once the answer before
        // it and the checkpoint after that answer are done, so its own commit is the one
        // sync between reading it and answering it.
        let (frames, received) = mpsc::sync_channel::<io::Result<Frame>>(1);
        let (want, wanted) = mpsc::channel::<()>();
        thread::Builder::new().name("stdin".into()).spawn(move || {
            let mut reader = LineReader::new(input);
            while wanted.recv().is_ok() {
                let frame = reader.next_frame();
                let last = !matches!(frame, Ok(Frame::Line(_) | Frame::TooLong { .. }));
                if frames.send(frame).is_err() || last {
                    return;
                }
            }
        })?;
        let mut next_poll = Instant::now() + POLL_INTERVAL;
        let mut retry_checkpoint: Option<checkpoint::Retry> = None;
        let mut next_log_look = Instant::now() + checkpoint::LEFT_LOG_LOOK;
        // Nothing waits to be told to read (the reader is gone) when this fails.
        let _ = want.send(());
        loop {
            let wake = [
                self.interested().then_some(next_poll),
                self.asks.next_deadline(),
                retry_checkpoint.map(|r| r.at),
                self.service.store().is_open().then_some(next_log_look),
            ]
            .into_iter()
            .flatten()
            .min();
            let frame = if let Some(wake) = wake {
                let wait = wake.saturating_duration_since(Instant::now());
                match received.recv_timeout(wait) {
                    Ok(frame) => Some(frame?),
                    Err(mpsc::RecvTimeoutError::Timeout) => None,
                    Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
                }
            } else {
                match received.recv() {
                    Ok(frame) => Some(frame?),
                    Err(mpsc::RecvError) => return Ok(()),
                }
            };
            match frame {
                Some(Frame::Eof) => {
                    log::debug!("input closed; exiting");
                    return Ok(());
                }
                Some(frame) => {
                    write_lines(output, self.answer_frame_only(frame))?;
                    // The answer is flushed: now the log goes into the database file,
                    // before the next request is read.
                    retry_checkpoint = self.checkpoint(None);
                    let _ = want.send(());
                    write_lines(output, self.after_request())?;
                }
                None => {
                    if let Some(retry) = retry_checkpoint.filter(|r| Instant::now() >= r.at) {
                        retry_checkpoint = self.checkpoint(Some(retry));
                    }
                }
            }
            if Instant::now() >= next_log_look {
                next_log_look = Instant::now() + checkpoint::LEFT_LOG_LOOK;
                if retry_checkpoint.is_none() {
                    retry_checkpoint = self.take_over_left_log();
                }
            }
            write_lines(output, self.expire_questions(Instant::now()))?;
            if self.interested() && Instant::now() >= next_poll {
                next_poll = Instant::now() + POLL_INTERVAL;
                write_lines(output, self.poll_other_processes())?;
            }
        }
    }

    /// Answers one frame and tells of what it changed: writes the lines, in order (usually
    /// zero or one answer, then any notifications). The answers go out before the look at
    /// what changed, which may wait.
    pub fn serve_frame<W: Write>(&mut self, frame: Frame, output: &mut W) -> io::Result<()> {
        write_lines(output, self.answer_frame_only(frame))?;
        write_lines(output, self.after_request())
    }

    /// [`Server::serve_frame`] into memory, each line it wrote read back as JSON: for
    /// in-process callers (tests, replay), who so read the very bytes a client reads.
    pub fn handle_frame(&mut self, frame: Frame) -> Vec<Value> {
        let mut out = Vec::new();
        if let Err(e) = self.serve_frame(frame, &mut out) {
            log::error!("writing to memory failed: {e}");
        }
        read_lines(&out)
    }

    fn answer_frame_only(&mut self, frame: Frame) -> Vec<Outgoing> {
        match frame {
            Frame::Eof => Vec::new(),
            Frame::TooLong { len } => {
                log::warn!(
                    "dropped a {len}-byte line: over the {} byte limit",
                    framing::MAX_LINE_BYTES
                );
                vec![refusal(
                    None,
                    INVALID_REQUEST,
                    format!(
                        "Invalid Request: the line is longer than the {} byte limit",
                        framing::MAX_LINE_BYTES
                    ),
                )]
            }
            Frame::Line(bytes) => self.answer_line_only(&bytes),
        }
    }

    /// [`Server::handle_frame`] of one line of input.
    pub fn handle_line(&mut self, bytes: &[u8]) -> Vec<Value> {
        self.handle_frame(Frame::Line(bytes.to_vec()))
    }

    fn answer_line_only(&mut self, bytes: &[u8]) -> Vec<Outgoing> {
        // A byte order mark is an editor's or a shell's UTF-8 signature, not JSON: RFC 8259
        // (section 8.1) lets a parser ignore it. Answered as a parse error it got id null, and
        // the client waited for the answer to its request until its own timeout. One only.
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
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
                // JSON text a value cannot hold, such as a lone UTF-16 surrogate escape (a
                // client's string cut inside an emoji) or a number out of range: when the
                // request's id can still be read, the refusal names it and says why, so the
                // client's call is answered instead of waiting for its timeout.
                // Bytes that are not UTF-8 are not JSON text at all: id null, as always.
                let id = match std::str::from_utf8(bytes).map(|_| jsonrpc::peek(bytes)) {
                    Ok(jsonrpc::Peeked::Request(id)) => Some(id),
                    // The client's answer to a question of ours: its call is answered.
                    Ok(jsonrpc::Peeked::Response(Some(id))) if self.asks.asked(&id) => {
                        return self
                            .unreadable_answer(&id, "its JSON cannot be read")
                            .into_iter()
                            .collect();
                    }
                    // A notification, or a response that answers no question of ours: never
                    // answered, readable or not (a parse error with id null would reach the
                    // client as an answer to nothing it sent).
                    Ok(jsonrpc::Peeked::Notification | jsonrpc::Peeked::Response(_)) => {
                        log::warn!(
                            "dropped a notification or response whose JSON cannot be read: {}",
                            crate::text::clip_bytes(&e.to_string(), 200)
                        );
                        return Vec::new();
                    }
                    _ => None,
                };
                return vec![match id {
                    Some(id) => refusal(
                        Some(id),
                        PARSE_ERROR,
                        format!(
                            "Parse error: {}: the request holds a value that cannot be read (a lone UTF-16 surrogate in a string, a number out of range, or nesting 128 levels deep or more)",
                            crate::text::clip_bytes(&e.to_string(), 200)
                        ),
                    ),
                    None => refusal(
                        None,
                        PARSE_ERROR,
                        "Parse error: the line is not JSON text; send each message as one line of UTF-8 JSON",
                    ),
                }];
            }
        };
        match value {
            Value::Array(items) => self.handle_batch(items).into_iter().collect(),
            single => self.handle_value(single, false).into_iter().collect(),
        }
    }

    /// A line holding more than [`bounds::MAX_LINE_VALUES`] JSON values, refused without
    /// parsing it into values (that alone would cost 16 times the line). A batch gets the
    /// answer a batch of its length gets; a request gets -32600 with its id, so the client
    /// is not left waiting; a notification or a response gets nothing, as always.
    fn refuse_costly_line(&mut self, bytes: &[u8], shape: bounds::Shape) -> Option<Outgoing> {
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
                jsonrpc::Peeked::Notification | jsonrpc::Peeked::Response(None) => return None,
                jsonrpc::Peeked::Response(Some(id)) => {
                    return self.unreadable_answer(&id, "it holds too many JSON values");
                }
            }
        };
        Some(refusal(id, INVALID_REQUEST, why))
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
    ///
    /// The answer is one line, and no answer line is longer than [`framing::MAX_LINE_BYTES`]:
    /// a request is run only while [`BATCH_MEMBER_RESERVE`] is left in the line, so every
    /// request that writes (a tool answer is at most [`crate::wire::ANSWER_BOUND`]) gets the
    /// answer it earned; the rest are answered -32600 with their ids and not run. An answer
    /// larger than what is left (only a request that writes nothing, such as a prompt that
    /// echoes a long argument, can be) is replaced the same way.
    fn handle_batch(&mut self, items: Vec<Value>) -> Option<Outgoing> {
        if let Some(why) = self.batch_refusal(items.len()) {
            return Some(refusal(None, INVALID_REQUEST, why));
        }
        let not_run = |id: Option<Id>, what: &str| {
            Response::error(
                id,
                ErrorObject::new(
                    INVALID_REQUEST,
                    format!(
                        "Invalid Request: {what}: the batch's answer would pass the {} byte line limit; send this request again, alone or in a smaller batch",
                        framing::MAX_LINE_BYTES
                    ),
                ),
            )
            .into_line()
        };
        // The brackets, then each line and its comma.
        let mut spent = 2;
        let mut lines = Vec::new();
        for item in items {
            let incoming = jsonrpc::classify(item);
            let answer = match incoming {
                Incoming::Request(req)
                    if spent + BATCH_MEMBER_RESERVE > framing::MAX_LINE_BYTES =>
                {
                    Some(not_run(Some(req.id), "not run"))
                }
                incoming => match self.handle_incoming(incoming, true) {
                    Some(Outgoing::Response(r)) => {
                        let id = r.id.clone();
                        let line = r.into_line();
                        if spent + line.len() + 1 > framing::MAX_LINE_BYTES {
                            Some(not_run(id, "answer withheld"))
                        } else {
                            Some(line)
                        }
                    }
                    // Nothing in a batch holds a stream open (see `handle_incoming`) or asks:
                    // only a 2025-03-26 session batches, and that revision has no elicitation.
                    Some(
                        Outgoing::Notification(_) | Outgoing::Batch(_) | Outgoing::Request { .. },
                    )
                    | None => None,
                },
            };
            if let Some(line) = answer {
                spent += line.len() + 1;
                lines.push(line);
            }
        }
        (!lines.is_empty()).then_some(Outgoing::Batch(lines))
    }

    /// One message (not an array). Returns the single message to write, if any.
    fn handle_value(&mut self, value: Value, in_batch: bool) -> Option<Outgoing> {
        self.handle_incoming(jsonrpc::classify(value), in_batch)
    }

    /// One classified message (not an array). Returns the single message to write, if any.
    fn handle_incoming(&mut self, incoming: Incoming, in_batch: bool) -> Option<Outgoing> {
        match incoming {
            Incoming::Request(req) => {
                if in_batch && req.method == call::INITIALIZE {
                    return Some(refusal(
                        Some(req.id),
                        INVALID_REQUEST,
                        "Invalid Request: initialize cannot be batched",
                    ));
                }
                // The modern era has no batches. Serving an enveloped request here would also
                // put a listen acknowledgement (a notification) inside a response array.
                if in_batch && modern::has_envelope(req.params.as_ref()) {
                    return Some(refusal(
                        Some(req.id),
                        INVALID_REQUEST,
                        "Invalid Request: 2026-07-28 requests cannot be batched",
                    ));
                }
                self.handle_request_guarded(req)
            }
            Incoming::Notification(n) => self.handle_notification(&n.method, n.params.as_ref()),
            Incoming::Response(r) => self.take_answer(r),
            Incoming::InvalidResponse { id, reason } => {
                let ended = id.and_then(|id| self.unreadable_answer(&id, &reason));
                if ended.is_none() {
                    log::warn!("dropped a response from the client that is not JSON-RPC 2.0");
                }
                ended
            }
            Incoming::Invalid { id, reason } => Some(refusal(
                id,
                INVALID_REQUEST,
                format!("Invalid Request: {reason}"),
            )),
        }
    }

    /// A panic in a handler must not end the process: it becomes -32603 for that request.
    fn handle_request_guarded(&mut self, req: Request) -> Option<Outgoing> {
        let id = req.id.clone();
        if let Some(why) = self.in_flight_refusal(&req) {
            return Some(refusal(Some(id), INVALID_REQUEST, why));
        }
        match catch_unwind(AssertUnwindSafe(|| self.handle_request(req))) {
            Ok(answer) => answer,
            Err(_) => {
                log::error!("a handler panicked; answered -32603 and kept serving");
                Some(refusal(Some(id), INTERNAL_ERROR, "Internal error"))
            }
        }
    }

    /// Routes a request to its era (see the module docs). `None`: nothing to write yet (a
    /// question held until the client says it is initialized).
    fn handle_request(&mut self, req: Request) -> Option<Outgoing> {
        let Request { id, method, params } = req;
        if method == call::INITIALIZE && legacy::is_handshake(params.as_ref()) {
            let (session, result) = legacy::initialize(params.as_ref());
            self.session = Some(session);
            // The questions of the session it replaces are gone with it: their answers would
            // come in another session's shapes (even inside a 2025-03-26 batch answer). Each
            // call that waited is answered now, after this result, in its own session's
            // shape, and its form withdrawn: every request gets its one answer.
            let forgotten = self.asks.forget();
            if !forgotten.is_empty() {
                log::info!(
                    "a new initialize replaced the session: {} question(s) waiting for the engineer were dropped, nothing was written",
                    forgotten.len()
                );
            }
            let ended = self.end_waits(
                forgotten,
                "the session was replaced",
                "A new initialize replaced the session before the engineer answered the form, so nothing was written. Ask again with request_verdicts, or ask in chat.",
            );
            self.ended.extend(ended);
            if let Err(e) = self.watch.arm(self.service.store()) {
                watch_failed(&e);
            }
            return Some(Outgoing::Response(Response::result(id, result)));
        }
        if modern::has_envelope(params.as_ref()) {
            let reply = modern::handle(&mut self.service, &id, &method, params);
            // What the service logged of it is not the legacy session's to hear: 2026-07-28
            // sends no `notifications/message` (and none without a `logLevel` in the
            // request), and nothing of a legacy session applies to a modern request.
            drop(self.service.take_log());
            return Some(match reply {
                Reply::Result(r) => Outgoing::Response(Response::result(id, r)),
                Reply::Error(e) => Outgoing::Response(Response::error(Some(id), e)),
                Reply::Hold { ack, interest } => match self.listen_refusal(&id) {
                    Some(why) => refusal(Some(id), INVALID_REQUEST, why),
                    None => {
                        let store = self.service.store();
                        let mut tracked = self.watch.arm(store);
                        for uri in &interest.uris {
                            tracked = tracked.and_then(|()| self.watch.track(store, uri));
                        }
                        if let Err(e) = tracked {
                            watch_failed(&e);
                        }
                        self.streams.push((id, interest));
                        Outgoing::Notification(ack)
                    }
                },
            });
        }
        match legacy::handle(
            &mut self.service,
            self.session.as_mut(),
            &mut self.watch,
            &method,
            params,
        ) {
            Step::Done(outcome) => Some(Outgoing::Response(Response {
                id: Some(id),
                outcome,
            })),
            Step::Ask(question) => self.ask(id, question),
        }
    }

    /// Why a request is refused unrun because its id is still in flight: a call waiting for
    /// the engineer's form, or an open `subscriptions/listen` stream (whose answer, when it
    /// comes, ends the stream). Request ids are unique among the requests in flight: an
    /// answer under that id would reach the client as the answer to the earlier request, and
    /// `notifications/cancelled` could name either. A listen under a stream's id is left to
    /// [`Server::listen_refusal`], which says so; a handshake is never refused, since it
    /// ends every wait of the session it replaces.
    fn in_flight_refusal(&self, req: &Request) -> Option<String> {
        if req.method == call::INITIALIZE && legacy::is_handshake(req.params.as_ref()) {
            return None;
        }
        let stream = self.streams.iter().any(|(held, _)| held == &req.id);
        if stream && call::Method::from_name(&req.method) == Some(call::Method::Listen) {
            return None;
        }
        let what = if self.asks.waiting(&req.id) {
            "a tools/call that waits for the engineer's answer to a form"
        } else if stream {
            "an open subscriptions/listen stream"
        } else {
            return None;
        };
        Some(format!(
            "Invalid Request: this request id is still in flight ({what}); request ids must be \
             unique among the requests in flight: use a new id, or cancel that request \
             (notifications/cancelled) first"
        ))
    }

    /// Why a `subscriptions/listen` stream cannot be held open, if it cannot. Each open stream
    /// keeps its request id until the client cancels it or the input ends, so both the number
    /// of streams and the size of a kept id are bounded, and no two streams share an id (one
    /// cancellation would close both, and each notification would go out twice). The refusal
    /// is an error response to that request, which also ends it.
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
        } else if self.streams.iter().any(|(held, _)| held == id) {
            Some(
                "Invalid Request: this request id is already an open subscriptions/listen \
                 stream's; request ids must be unique among the requests in flight: use a new \
                 id, or cancel that stream (notifications/cancelled) first"
                    .to_string(),
            )
        } else if self.streams.len() >= MAX_LISTEN_STREAMS {
            Some(format!(
                "Invalid Request: at most {MAX_LISTEN_STREAMS} subscriptions/listen streams \
                 may be open at once; cancel one (notifications/cancelled) first"
            ))
        } else {
            None
        }
    }

    /// Notifications are never answered. `notifications/cancelled` closes a listen stream,
    /// `notifications/initialized` lets the session be asked; everything else (progress,
    /// roots/list_changed, unknown) is ignored.
    fn handle_notification(&mut self, method: &str, params: Option<&Value>) -> Option<Outgoing> {
        if method == call::CANCELLED {
            if let Some(id) = params
                .and_then(|p| p.get("requestId"))
                .and_then(Id::from_value)
            {
                self.streams.retain(|(held, _)| held != &id);
                if !self.interested() {
                    // The next audience is not told of what was written before it.
                    self.watch.disarm();
                }
                // A cancelled call that waits for the engineer: no answer, nothing written,
                // and the host is told to close the form.
                if let Some(p) = self.asks.cancelled(&id) {
                    log::info!("a call waiting for the engineer's answer was cancelled");
                    return p
                        .sent
                        .then(|| asks::withdraw(&p.ask, "the call was cancelled"));
                }
            }
        } else if method == call::INITIALIZED {
            // The questions held for it are put now, after whatever this line answers.
            if let Some(session) = self.session.as_mut() {
                session.initialized = true;
                self.ended.extend(self.asks.release());
            }
        } else {
            log::debug!(
                "notification {}",
                crate::text::clip_bytes(method, crate::logging::MAX_QUOTED_BYTES)
            );
        }
        None
    }
}

/// Writes `messages` in order, one line each.
/// A look at the change counter that failed when watching began. Another process's lock is
/// no fault (the look does not wait for it, and the first poll starts the watch instead):
/// only anything else is a warning.
fn watch_failed(e: &crate::store::StoreError) {
    if e.is_locked() {
        log::debug!("watching for changes: {e}");
    } else {
        log::warn!("watching for changes: {e}");
    }
}

fn write_lines<W: Write>(output: &mut W, messages: Vec<Outgoing>) -> io::Result<()> {
    for message in messages {
        framing::write_line(output, message.into_line())?;
    }
    Ok(())
}

/// JSON's own whitespace (RFC 8259 §2): a line of nothing else is blank and ignored. Other
/// ASCII "whitespace" such as a form feed is not JSON, so such a line gets -32700 like any
/// other garbage instead of silently vanishing.
fn is_json_whitespace(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

#[cfg(test)]
mod tests;
