//! The questions put to the engineer (`request_verdicts`): the answer of a legacy client,
//! the calls it could not answer, and the sealed `requestState` of a 2026-07-28 retry.

use std::time::Instant;

use serde_json::{Map, Value};

use super::calls::log_call;
use super::{Context, Service, ServiceError};
use crate::store::DecisionRef;
use crate::text;
use crate::tools::Step;
use crate::tools::request_state::{self, Unsealed};
use crate::tools::request_verdicts::{self, FormReply, Question};
use crate::wire::{self, Payload};

impl Service {
    /// The engineer's answer to `q`, asked of the client of `ctx`: the `tools/call` result.
    pub fn answer(&mut self, q: &Question, reply: FormReply, ctx: Context) -> Payload {
        let started = Instant::now();
        let out = request_verdicts::finish(&mut self.store, q, reply, ctx.caller());
        self.tool_payload(request_verdicts::NAME, out, ctx.version, started)
    }

    /// The `tools/call` result of question `q` that could not be put or was not answered:
    /// `why`, as an `isError` result, followed by the engineer's other channels (their
    /// terminal, with the decision's revision, and the review card, which the client of `ctx`
    /// renders when it declared the MCP Apps extension). Nothing is written.
    pub fn unanswered(&mut self, q: &Question, why: &str, ctx: Context) -> Payload {
        log_call(
            request_verdicts::NAME,
            ctx.version,
            "unanswered",
            Instant::now(),
        );
        let terminal = self.engineer_terminal(q);
        wire::tool_error(&format!(
            "{why} The engineer's own channels outside this form: in their terminal, {terminal}; or {}.",
            request_verdicts::card_channel(ctx.caller().card)
        ))
    }

    /// The command the engineer runs in their own terminal to judge `q`'s decision, in
    /// backticks, ready to run: this database and the revision the decision is about (a
    /// placeholder, explained, only when the decision can no longer be read).
    pub fn engineer_terminal(&mut self, q: &Question) -> String {
        let revision = match self.store.find_decision(&DecisionRef::Id(&q.decision)) {
            Ok(Some(d)) => Some(d.artifact.revision),
            _ => None,
        };
        let command = request_verdicts::terminal_command(
            self.store.path(),
            self.store.author(),
            revision.as_deref(),
        );
        match revision {
            Some(_) => text::code_span(&command),
            None => format!(
                "{} (FILE: the part's file or its sha256 revision)",
                text::code_span(&command)
            ),
        }
    }

    /// The text of question `q` put to a legacy client that cannot show a form.
    pub fn without_elicitation(&mut self, q: &Question, ctx: Context) -> Payload {
        self.unanswered(q, &request_verdicts::without_elicitation(ctx.version), ctx)
    }

    /// `requestState` for `q`, asked by the call with `arguments`: sealed under the
    /// database's secret, valid for the answer wait.
    pub fn seal(&mut self, q: &Question, arguments: &Value) -> Result<String, ServiceError> {
        let secret = self
            .store
            .cursor_secret()
            .map_err(|e| ServiceError::of_store(e, self.store.path()))?;
        let wait = i64::try_from(self.answer_wait.as_millis()).unwrap_or(i64::MAX);
        Ok(request_state::seal(
            &secret,
            q,
            arguments,
            crate::time::now_millis().saturating_add(wait),
        ))
    }

    /// A 2026-07-28 retry: the sealed question with the client's answer, or asked again
    /// when the answer is missing.
    pub(super) fn retry_tool(
        &mut self,
        name: &str,
        args: &Value,
        state: &str,
        mut responses: Map<String, Value>,
        ctx: Context,
    ) -> Result<Step<Payload>, ServiceError> {
        let version = ctx.version;
        if name != request_verdicts::NAME {
            return Err(ServiceError::InvalidParams(format!(
                "Invalid params: requestState was not issued for the tool {}; send the call again without requestState and inputResponses",
                text::clip_bytes(name, 200)
            )));
        }
        let secret = self
            .store
            .cursor_secret()
            .map_err(|e| ServiceError::of_store(e, self.store.path()))?;
        let q = match request_state::unseal(&secret, state, args, crate::time::now_millis()) {
            Unsealed::Ok(q) => q,
            Unsealed::Invalid => {
                return Err(ServiceError::InvalidParams(
                    "Invalid params: requestState was altered, issued by another database, or issued for other arguments; call request_verdicts again without requestState".into(),
                ));
            }
            Unsealed::Expired(q) => {
                // The engineer's words are said, not lost, though they cannot be recorded.
                let answers = responses
                    .get(request_verdicts::INPUT_KEY)
                    .and_then(FormReply::read)
                    .and_then(|reply| request_verdicts::answers_in(&q, &reply))
                    .map(|a| format!(" The engineer's answers: {a}."))
                    .unwrap_or_default();
                return Err(ServiceError::InvalidParams(format!(
                    "Invalid params: requestState expired (the engineer's answer came after the wait bound), so nothing was written.{answers} Call request_verdicts again without requestState"
                )));
            }
        };
        let started = Instant::now();
        match responses.remove(request_verdicts::INPUT_KEY) {
            None => {
                // The answer is missing: ask again (MRTR: a new input_required, not an error).
                let step = request_verdicts::reask(&mut self.store, q);
                Ok(self.served(name, step, version, started))
            }
            Some(result) => {
                let Some(reply) = FormReply::read(&result) else {
                    return Err(ServiceError::InvalidParams(format!(
                        "Invalid params: inputResponses.{} is not an ElicitResult (action accept, decline or cancel; content an object)",
                        request_verdicts::INPUT_KEY
                    )));
                };
                Ok(Step::Done(self.answer(&q, reply, ctx)))
            }
        }
    }
}
