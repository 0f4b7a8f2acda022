//! Questions put to a legacy client while its `tools/call` waits: the server's own
//! `elicitation/create` requests, each matched to the call it serves.
//!
//! Nothing is held but the question itself (no transaction, no lock): the loop keeps serving
//! other requests, and the call is answered when the client's response arrives, when the
//! client cancels the call (`notifications/cancelled`: no answer, and the form is withdrawn),
//! or when the wait bound passes (an `isError` result).

use std::time::{Duration, Instant};

use serde_json::json;

use crate::call;
use crate::jsonrpc::{Id, Notification, Outgoing};
use crate::tools::request_verdicts::Question;
use crate::version::Version;

/// The most questions waiting at once: each holds a form in memory until it is answered, so
/// a client that never answers cannot grow the process.
pub const MAX_PENDING: usize = 16;

/// One question waiting for the client.
#[derive(Debug)]
pub struct Pending {
    /// The client's `tools/call` that waits.
    pub call: Id,
    /// The server's `elicitation/create` request.
    pub ask: Id,
    pub question: Question,
    pub version: Version,
    pub deadline: Instant,
}

/// The waiting questions, and the counter of the server's own request ids.
#[derive(Debug, Default)]
pub struct Asks {
    pending: Vec<Pending>,
    asked: u64,
}

impl Asks {
    /// Registers `question` for the call `call` and returns the request to write, or `None`
    /// when [`MAX_PENDING`] questions already wait.
    pub fn put(
        &mut self,
        call: Id,
        question: Question,
        version: Version,
        wait: Duration,
    ) -> Option<Outgoing> {
        if self.pending.len() >= MAX_PENDING {
            return None;
        }
        self.asked += 1;
        // A string id of the server's own, so a log reader tells it from the client's ids.
        let ask = Id::String(format!("review-mcp-ask-{}", self.asked));
        let request = Outgoing::Request {
            id: ask.clone(),
            method: call::ELICIT.to_string(),
            params: question.params(version),
        };
        self.pending.push(Pending {
            call,
            ask,
            question,
            version,
            deadline: Instant::now() + wait,
        });
        Some(request)
    }

    /// The question the client's response `id` answers.
    pub fn answered(&mut self, id: &Id) -> Option<Pending> {
        let i = self.pending.iter().position(|p| &p.ask == id)?;
        Some(self.pending.remove(i))
    }

    /// The question of the call `call`, which the client cancelled.
    pub fn cancelled(&mut self, call: &Id) -> Option<Pending> {
        let i = self.pending.iter().position(|p| &p.call == call)?;
        Some(self.pending.remove(i))
    }

    /// The questions whose wait ended by `now`.
    pub fn expired(&mut self, now: Instant) -> Vec<Pending> {
        let (gone, kept) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|p| p.deadline <= now);
        self.pending = kept;
        gone
    }

    /// Forgets every waiting question (a new `initialize` replaced the session they belong
    /// to) and returns how many there were. The counter is kept, so a late response from the
    /// old session can never answer a question of the new one.
    pub fn forget(&mut self) -> usize {
        std::mem::take(&mut self.pending).len()
    }

    /// When the next wait ends, if any question waits.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.pending.iter().map(|p| p.deadline).min()
    }
}

/// Withdraws the server's request `ask` (the host closes the form).
pub fn withdraw(ask: &Id, reason: &str) -> Outgoing {
    Outgoing::Notification(Notification {
        method: call::CANCELLED.to_string(),
        params: Some(json!({"requestId": ask.to_value(), "reason": reason})),
    })
}
