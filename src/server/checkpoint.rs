//! The checkpoint after an answer: once the answer to a request that wrote is on stdout, the
//! log is copied into the database file before the next request is read, so `review.db`
//! alone holds every answered write soon after its answer (see `store/open.rs`). A
//! checkpoint kept from completing by another process's read snapshot is tried again, first
//! after [`RETRY_INTERVAL`] and then at longer intervals (up to [`RETRY_MAX`]: a `sqlite3`
//! shell may sit in a transaction for hours), until it completes, so the log shrinks back
//! soon after the reader is done. A server with the file open also looks, every
//! [`LEFT_LOG_LOOK`], for a log another process left that way (it stopped before the reader
//! ended) and checkpoints it as its own.

use std::time::{Duration, Instant};

use super::Server;
use crate::store::Checkpoint;

/// How soon an incomplete checkpoint is tried again the first time.
pub const RETRY_INTERVAL: Duration = Duration::from_millis(100);

/// The longest wait between two tries of an incomplete checkpoint.
pub const RETRY_MAX: Duration = Duration::from_secs(2);

/// How often a server with the file open looks for a log that another process left with
/// writes nobody copies into the file (see `Store::take_over_left_log`).
pub const LEFT_LOG_LOOK: Duration = RETRY_MAX;

/// When to try an incomplete checkpoint again, and how long the wait before it was.
#[derive(Debug, Clone, Copy)]
pub struct Retry {
    pub at: Instant,
    wait: Duration,
}

impl Server {
    /// Checkpoints what this process wrote, if it wrote (no system call otherwise). Returns
    /// when to try again, if the checkpoint could not complete; `previous` is the retry this
    /// one is (`None` after an answer).
    pub(super) fn checkpoint(&mut self, previous: Option<Retry>) -> Option<Retry> {
        let started = Instant::now();
        // An existing file is opened after the first answer (so the open's own syncs are
        // not paid inside the first write), and the log is begun after each checkpoint
        // (see `Store::checkpoint_and_begin_log`): the next answered write syncs once.
        self.service.store().open_if_present();
        let done = self.service.store().checkpoint_and_begin_log();
        match done {
            Ok(Checkpoint::Nothing) => None,
            Ok(Checkpoint::Complete) => {
                log::debug!("checkpoint_us={}", started.elapsed().as_micros());
                None
            }
            Ok(Checkpoint::Incomplete) => {
                let wait = previous.map_or(RETRY_INTERVAL, |r| (r.wait * 2).min(RETRY_MAX));
                log::debug!(
                    "checkpoint incomplete (another process reads); trying again in {wait:?}"
                );
                Some(Retry {
                    at: Instant::now() + wait,
                    wait,
                })
            }
            // An I/O error (a full disk, a file made read-only): no timer that would repeat
            // it every interval; the checkpoint after the next write tries again.
            Err(e) => {
                log::warn!("checkpoint after the answer: {e}");
                None
            }
        }
    }

    /// The idle look for a log another process left with writes nobody copies into the file
    /// (its writer stopped while a reader's snapshot held its checkpoint back): when it finds
    /// one twice in a row, unchanged, this server checkpoints it as its own writes, and
    /// returns when to try again if that could not complete.
    pub(super) fn take_over_left_log(&mut self) -> Option<Retry> {
        match self.service.store().take_over_left_log() {
            Ok(true) => {
                log::debug!("checkpointing a log another process left");
                self.checkpoint(None)
            }
            Ok(false) => None,
            Err(e) => {
                log::debug!("looking at the log: {e}");
                None
            }
        }
    }
}
