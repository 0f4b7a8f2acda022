//! The checkpoint after an answer: once the answer to a request that wrote is on stdout, the
//! log is copied into the database file before the next request is read, so `review.db`
//! alone holds every answered write soon after its answer (see `store/open.rs`). A
//! checkpoint kept from completing by another process's read snapshot is tried again every
//! [`RETRY_INTERVAL`] until it completes, so the log shrinks back once the reader is done.

use std::time::{Duration, Instant};

use super::Server;
use crate::store::Checkpoint;

/// How often an incomplete checkpoint is tried again.
pub const RETRY_INTERVAL: Duration = Duration::from_millis(100);

impl Server {
    /// Checkpoints what this process wrote, if it wrote (no system call otherwise). Returns
    /// when to try again, if the checkpoint could not complete.
    pub(super) fn checkpoint(&mut self) -> Option<Instant> {
        let started = Instant::now();
        match self.service.store().checkpoint() {
            Ok(Checkpoint::Nothing) => None,
            Ok(Checkpoint::Complete) => {
                log::debug!("checkpoint_us={}", started.elapsed().as_micros());
                None
            }
            Ok(Checkpoint::Incomplete) => {
                log::debug!("checkpoint incomplete (another process reads); trying again");
                Some(Instant::now() + RETRY_INTERVAL)
            }
            // An I/O error (a full disk, a file made read-only): no timer that would repeat
            // it every interval; the checkpoint after the next write tries again.
            Err(e) => {
                log::warn!("checkpoint after the answer: {e}");
                None
            }
        }
    }
}
