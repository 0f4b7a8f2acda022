//! What the server tells its clients of changes: who can be told, the look after a request
//! that wrote, and the poll for commits by other processes (see `crate::service::changes`).

use super::Server;
use crate::era::{self, legacy::Session};
use crate::jsonrpc::{Id, Outgoing};
use crate::service::changes::Interest;

impl Server {
    /// Whether anyone can be told of a change now.
    pub(super) fn interested(&self) -> bool {
        self.session.is_some() || !self.streams.is_empty()
    }

    /// A commit by another process since the last poll becomes the notifications it calls
    /// for, and one log message for the session.
    pub(super) fn poll_other_processes(&mut self) -> Vec<Outgoing> {
        match self.watch.foreign_commit(self.service.store()) {
            Ok(true) => {
                let mut out = Vec::new();
                if let Some(n) = self.session.as_ref().and_then(|s| {
                    s.log_message("info", "another process changed the review database")
                }) {
                    out.push(Outgoing::Notification(n));
                }
                out.extend(self.changes(false));
                out
            }
            Ok(false) => Vec::new(),
            Err(e) => {
                log::warn!("looking for changes by other processes: {e}");
                Vec::new()
            }
        }
    }

    /// What changed since the last look, as the notifications of each audience: the legacy
    /// session first, then each listen stream in the order they opened. `own_write`: the
    /// look follows a request of this process that wrote.
    fn changes(&mut self, own_write: bool) -> Vec<Outgoing> {
        let interests = audiences(self.session.as_ref(), &self.streams);
        if interests.is_empty() {
            self.watch.disarm();
            return Vec::new();
        }
        let quick = if own_write {
            self.watch.after_own_write(self.service.store(), &interests)
        } else {
            None
        };
        let changes =
            match quick.map_or_else(|| self.watch.look(self.service.store(), &interests), Ok) {
                Ok(c) => c,
                Err(e) => {
                    // Another process holds the lock, most likely: the next poll looks again.
                    log::debug!("looking for changes: {e}");
                    self.watch.retry();
                    return Vec::new();
                }
            };
        let mut changes = changes.into_iter();
        let mut out = Vec::new();
        if self.session.is_some() {
            let session_changes = changes.next().unwrap_or_default();
            out.extend(
                session_changes
                    .into_iter()
                    .map(|c| Outgoing::Notification(era::notification(c, None))),
            );
        }
        for ((id, _), stream_changes) in self.streams.iter().zip(changes) {
            out.extend(
                stream_changes
                    .into_iter()
                    .map(|c| Outgoing::Notification(era::notification(c, Some(id)))),
            );
        }
        out
    }

    /// After a request: the answers to calls whose wait it ended, the session's log
    /// messages for what the service reported, then the notifications for what it changed
    /// (a request that wrote nothing needs no look).
    pub(super) fn after_request(&mut self) -> Vec<Outgoing> {
        let mut out = std::mem::take(&mut self.ended);
        for (level, message) in self.service.take_log() {
            if let Some(n) = self
                .session
                .as_ref()
                .and_then(|s| s.log_message(level, &message))
            {
                out.push(Outgoing::Notification(n));
            }
        }
        if self.watch.wrote(self.service.store()) {
            out.extend(self.changes(true));
        }
        let interests = audiences(self.session.as_ref(), &self.streams);
        if interests.is_empty() {
            self.watch.disarm();
        } else {
            self.watch.prune(&interests);
        }
        out
    }
}

/// What each audience wants, in the order they are told: the legacy session first, then each
/// listen stream in the order they opened.
fn audiences<'a>(session: Option<&'a Session>, streams: &'a [(Id, Interest)]) -> Vec<&'a Interest> {
    session
        .map(|s| &s.interest)
        .into_iter()
        .chain(streams.iter().map(|(_, i)| i))
        .collect()
}
