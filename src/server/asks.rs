//! Questions put to a legacy client while its `tools/call` waits: the server's own
//! `elicitation/create` requests, each matched to the call it serves.
//!
//! Nothing is held but the question itself (no transaction, no lock): the loop keeps serving
//! other requests, and the call is answered when the client's response arrives, when the
//! client cancels the call (`notifications/cancelled`: no answer, and the form is withdrawn),
//! or when the wait bound passes (an `isError` result). A question of a session whose client
//! has not yet sent `notifications/initialized` is held, not put, until it does.

use std::time::{Duration, Instant};

use serde_json::json;

use super::Server;
use crate::call;
use crate::jsonrpc::{ClientResponse, Id, Notification, Outgoing, Response};
use crate::service::Context;
use crate::tools::request_verdicts::{FormReply, Question};
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
    /// The session's revision and what its client declared.
    pub ctx: Context,
    pub deadline: Instant,
    /// The request was written. A question held for `notifications/initialized` is not, and
    /// so has no form to withdraw.
    pub sent: bool,
}

impl Pending {
    /// The server's `elicitation/create` request that puts this question.
    fn request(&self) -> Outgoing {
        Outgoing::Request {
            id: self.ask.clone(),
            method: call::ELICIT.to_string(),
            params: self.question.params(self.ctx.version),
        }
    }
}

/// [`MAX_PENDING`] questions already wait.
#[derive(Debug)]
pub struct Full;

/// The waiting questions, and the counter of the server's own request ids.
#[derive(Debug, Default)]
pub struct Asks {
    pending: Vec<Pending>,
    asked: u64,
}

impl Asks {
    /// Registers `question` for the call `call` and returns the request to write; `None`
    /// when `held` (the client has not said it is initialized: [`Asks::release`] puts it).
    pub fn put(
        &mut self,
        call: Id,
        question: Question,
        ctx: Context,
        wait: Duration,
        held: bool,
    ) -> Result<Option<Outgoing>, Full> {
        if self.pending.len() >= MAX_PENDING {
            return Err(Full);
        }
        self.asked += 1;
        // A string id of the server's own, so a log reader tells it from the client's ids.
        let ask = Id::String(format!("review-mcp-ask-{}", self.asked));
        let pending = Pending {
            call,
            ask,
            question,
            ctx,
            deadline: Instant::now() + wait,
            sent: !held,
        };
        let request = pending.sent.then(|| pending.request());
        self.pending.push(pending);
        Ok(request)
    }

    /// The requests of the questions held until the client said it is initialized, in the
    /// order they were asked; each is put once.
    pub fn release(&mut self) -> Vec<Outgoing> {
        self.pending
            .iter_mut()
            .filter(|p| !p.sent)
            .map(|p| {
                p.sent = true;
                p.request()
            })
            .collect()
    }

    /// The question the client's response `id` answers (one put to it: a held question's
    /// id answers nothing yet).
    pub fn answered(&mut self, id: &Id) -> Option<Pending> {
        let i = self.pending.iter().position(|p| p.sent && &p.ask == id)?;
        Some(self.pending.remove(i))
    }

    /// Whether `id` is a question of ours, put to the client, that waits for its answer.
    pub fn asked(&self, id: &Id) -> bool {
        self.pending.iter().any(|p| p.sent && &p.ask == id)
    }

    /// Whether the client's call `call` waits for an answer (put or held).
    pub fn waiting(&self, call: &Id) -> bool {
        self.pending.iter().any(|p| &p.call == call)
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
    /// to) and returns them. The counter is kept, so a late response from the old session
    /// can never answer a question of the new one.
    pub fn forget(&mut self) -> Vec<Pending> {
        std::mem::take(&mut self.pending)
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

impl Server {
    /// Puts `question` to the legacy client for its call `id`: the server's request to write,
    /// nothing while the question is held for `notifications/initialized`, or an `isError`
    /// answer when too many questions already wait.
    pub(super) fn ask(&mut self, id: Id, question: Question) -> Option<Outgoing> {
        let ctx = self
            .session
            .as_ref()
            .map_or(Context::plain(Version::LATEST_LEGACY), |s| s.context());
        let wait = self.service.answer_wait();
        let held = !self.session.as_ref().is_some_and(|s| s.initialized);
        match self.asks.put(id.clone(), question.clone(), ctx, wait, held) {
            Ok(request) => {
                if request.is_none() {
                    log::info!(
                        "a question for the engineer waits for the client's notifications/initialized"
                    );
                }
                request
            }
            Err(Full) => {
                let why = format!(
                    "{MAX_PENDING} questions already wait for the engineer's answer; answer or cancel one first. Nothing was written."
                );
                let payload = self.service.unanswered(&question, &why, ctx);
                Some(Outgoing::Response(Response::result(id, payload)))
            }
        }
    }

    /// The client's response to a question: the answer of the call that waited for it.
    pub(super) fn take_answer(&mut self, r: ClientResponse) -> Option<Outgoing> {
        let Some(p) = r.id.as_ref().and_then(|id| self.asks.answered(id)) else {
            log::warn!("dropped a response from the client that answers no question of ours");
            return None;
        };
        let Pending {
            call,
            question,
            ctx,
            ..
        } = p;
        let payload = match r.outcome {
            Ok(result) => match FormReply::read(&result) {
                Some(reply) => self.service.answer(&question, reply, ctx),
                None => self.service.unanswered(
                    &question,
                    "The host answered the form with something that is not an elicitation result (action accept, decline or cancel), so nothing was written. Ask the engineer in chat, then record their words with remember_decision.",
                    ctx,
                ),
            },
            Err((code, message)) => self.service.unanswered(
                &question,
                &format!(
                    "The host could not show the form (error {code}: {message}), so nothing was written. Ask the engineer in chat, then record their words with remember_decision (stored as relayed by you, via \"assistant\")."
                ),
                ctx,
            ),
        };
        Some(Outgoing::Response(Response::result(call, payload)))
    }

    /// The client's response to the question `ask` could not be read (`why`): the call that
    /// waited for it is answered `isError`, nothing written, instead of waiting for the bound.
    /// `None` when `ask` is no question of ours.
    pub(super) fn unreadable_answer(&mut self, ask: &Id, why: &str) -> Option<Outgoing> {
        let p = self.asks.answered(ask)?;
        log::warn!("the client's answer to a question of ours could not be read: {why}");
        let why = format!(
            "The host's answer to the form could not be read ({why}), so nothing was written. Ask again with request_verdicts, or ask in chat."
        );
        Some(Outgoing::Response(Response::result(
            p.call,
            self.service.unanswered(&p.question, &why, p.ctx),
        )))
    }

    /// Ends the waits that passed their bound: each call gets an `isError` answer, and the
    /// form is withdrawn from the host.
    pub fn expire_questions(&mut self, now: Instant) -> Vec<Outgoing> {
        let expired = self.asks.expired(now);
        if expired.is_empty() {
            return Vec::new();
        }
        let wait = self.service.answer_wait();
        let wait = if wait.as_secs() > 0 {
            format!("{} s", wait.as_secs())
        } else {
            format!("{} ms", wait.as_millis())
        };
        let why = format!(
            "The engineer did not answer the form within {wait}, so nothing was written. Ask again with request_verdicts when they are back, or ask in chat."
        );
        let never_put = format!(
            "The client did not send notifications/initialized within {wait} of this call, and a server puts no form to a client before it does, so the engineer was not asked and nothing was written. A client sends it after the initialize result; then ask again with request_verdicts, or ask in chat."
        );
        let (put, held): (Vec<_>, Vec<_>) = expired.into_iter().partition(|p| p.sent);
        let reason = "the wait for the engineer's answer ended";
        let mut out = self.end_waits(put, reason, &why);
        out.extend(self.end_waits(held, reason, &never_put));
        out
    }

    /// Ends the waits of `questions`: each form put is withdrawn from the host (`reason`) and
    /// its call answered `isError` saying `why`, in the shape of the call's own revision.
    pub(super) fn end_waits(
        &mut self,
        questions: Vec<Pending>,
        reason: &str,
        why: &str,
    ) -> Vec<Outgoing> {
        let mut out = Vec::new();
        for p in questions {
            if p.sent {
                out.push(withdraw(&p.ask, reason));
            }
            out.push(Outgoing::Response(Response::result(
                p.call,
                self.service.unanswered(&p.question, why, p.ctx),
            )));
        }
        out
    }
}
