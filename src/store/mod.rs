//! The only SQL in the crate: opening the database, pragmas, migrations and queries.
//!
//! Every tool call is one transaction: writes use `BEGIN IMMEDIATE` so that several server
//! processes sharing one file queue on the write lock (within `busy_timeout`) instead of
//! failing half-way. Every row takes its position from one global counter (see `page.rs`).
//!
//! The files, in reading order:
//!
//! - `mod.rs`: the [`Store`] type and its read and write transactions.
//! - `error.rs`: [`StoreError`], its messages, and the shorter one a tool result shows.
//! - `open.rs`: opening for writing (the journal, pragmas, the lazy open of a server).
//! - `file.rs`: what a path names on disk, and whether it still names the file opened.
//! - `inspect.rs`: whether a file is ours before anything is written to it.
//! - `read_only.rs`: the read-only open of `export`, `check` and `backup`.
//! - `backup.rs`: the online copy (`VACUUM INTO`).
//! - `schema.rs`: the DDL of each schema version and the application id.
//! - `migrate.rs`: bringing a file up to this build's schema version.
//! - `renormalise.rs`: the data half of the upgrade to version 4 (uris in normal form).
//! - `page.rs`: the write counter, keyset positions and pages, the cursor secret.
//! - `query.rs`: building a parameterised WHERE clause from optional filters.
//! - `search.rs`: turning user text into a full-text query.
//! - `codec.rs`: the lists of strings a row keeps as JSON text.
//! - `records/`: remember, recall and forget records (`mod.rs`); a record's rows: reading,
//!   writing and deleting them (`rows.rs`).
//! - `decisions/`: remember, recall and forget decisions (`mod.rs`); a decision's rows, its
//!   basis items included (`rows.rs`).
//! - `browse.rs`: lookups by id and revision, the revision list, export order.
//! - `carry.rs`: `carry_forward` in one transaction, and which revisions superseded which.
//! - `changes.rs`: the change journal the triggers keep, and `data_version`.
//! - `completion.rs`: the stored values that start with a prefix, for `completion/complete`.
//! - `import.rs`: importing an export, judged line by line in one transaction.
//! - `sync.rs`: the one transaction of `review-mcp sync`: items by id and their bases.
//! - `history_read.rs`: the history as its readers ask for it (a page with when recording
//!   began, one event, each decision's trail).
//! - `check.rs`: the integrity check and the schema version.
//! - `fixtures.rs`: what the unit tests share.

mod backup;
mod browse;
mod carry;
mod changes;
mod check;
pub use check::only_index_out_of_step;
mod codec;
mod completion;
mod decisions;
mod error;
pub mod file;
#[cfg(test)]
pub(crate) mod fixtures;
mod history;
mod history_read;
mod import;
mod inspect;
mod left_log;
mod migrate;
mod open;
mod page;
mod query;
mod read_only;
mod records;
mod renormalise;
mod schema;
mod search;
mod sizing;
mod sync;
mod verdicts;

use std::time::Duration;

use rusqlite::{Connection, Transaction, TransactionBehavior};

pub use browse::{ExportItem, FileRevision, RevisionSummary, RevisionTallies};
pub use carry::{CarryCheck, CarryOutcome, CarryPlan, CarryRefusal, Supersession};
pub use completion::{Completable, Matches, Narrowing, prefix_upper_bound};
pub use decisions::{DecisionQuery, NewDecision, VerdictState};
pub use error::{StoreError, damaged_message};
pub use file::FileChange;
pub use history::HistoryQuery;
pub use history_read::{HistoryAnswer, Trail};
pub use import::{ENGINEER_VERDICTS_LISTED, ImportSource, ImportSummary};
pub use open::{Checkpoint, JOURNAL_SIZE_LIMIT, Journal};
pub use page::{Page, PageRequest, Position};
pub use records::{NamesAlike, NewRecord, RecordQuery};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use search::fts_words;
pub use sizing::EntityTable;
pub use sync::{Base, DECISION, LastPlace, Pending, RECORD, SyncTx};
pub use verdicts::{DecisionRef, Shown, VerdictsOutcome, superseded_message};

/// How long a statement waits for another process's write lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(5000);

/// The review database: one connection, opened at the first query for a serving process
/// (see [`Store::lazy`]), and the file it belongs to.
pub struct Store {
    conn: Option<Connection>,
    /// `None` in memory.
    file: Option<open::OnDisk>,
    /// A private directory this store reads from and removes when dropped (an upgraded copy
    /// of an older file, see `read_only.rs`).
    temp_dir: Option<read_only::PrivateDir>,
    /// An empty database in memory that answers reads while the file does not exist yet, so
    /// that listing an empty review creates no file.
    scratch: Option<Connection>,
    /// The file's cursor secret, once read (see `Store::cursor_secret`).
    cursor_secret: Option<Vec<u8>>,
    /// Rows this connection changed that are not the review's records and decisions (the
    /// migration at open, the cursor secret), so that `own_changes` counts only the review.
    internal_changes: u64,
    /// Who this server writes as (`REVIEW_MCP_AUTHOR`, `--author`): set on the records,
    /// decisions and verdicts it writes.
    author: Option<String>,
}

impl Store {
    /// Sets who this store's writes are recorded as (`None`: nobody named).
    pub fn set_author(&mut self, author: Option<String>) {
        self.author = author;
    }

    /// Who this store's writes are recorded as.
    pub fn author(&self) -> Option<&str> {
        self.author.as_deref()
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // SQLite deletes the log when its last connection closes, but not when the path no
        // longer names the file: then the begun log would stay beside the path, emptied here.
        self.empty_log();
        if let Some(dir) = self.temp_dir.take() {
            // Close the connection before its file goes (dropping `dir` removes it).
            self.conn = None;
            drop(dir);
        }
    }
}

impl Store {
    /// Starts a write transaction: takes the write lock now (waiting up to
    /// [`BUSY_TIMEOUT`]), so a read-then-write never fails half-way on a lock upgrade.
    ///
    /// The file's identity (and its `-wal`'s and `-shm`'s) is checked once the lock is held,
    /// not before: the wait for it can last seconds, and the file can be replaced meanwhile.
    /// The log's length is checked before (see [`open::OnDisk::verify_log`]).
    fn write(&mut self) -> Result<Transaction<'_>, StoreError> {
        // Opened now if needed (an open checks the file itself).
        self.conn_verified(false)?;
        let conn = self.conn.as_mut().ok_or(StoreError::NotOpen)?;
        let disk = self.file.as_ref();
        // The log's length is looked at before the lock: SQLite tells it only outside a
        // transaction.
        disk.map_or(Ok(()), |d| d.verify_log(conn))?;
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| match disk {
                Some(d) if open::is_busy(&e) => StoreError::Locked {
                    path: d.path.clone(),
                    waited: open::patience(),
                },
                _ => e.into(),
            })?;
        // Dropping the transaction rolls it back.
        disk.map_or(Ok(()), open::OnDisk::verify)?;
        not_upgraded_since(&tx, disk)?;
        Ok(tx)
    }

    /// A read transaction: one consistent snapshot for the whole call. Before the file of a
    /// lazy store exists, an empty scratch database answers instead (nothing to read, and
    /// nothing created for it).
    fn read(&mut self) -> Result<Transaction<'_>, StoreError> {
        let scratch = self.scratch_until_created()?;
        if !scratch {
            self.conn()?;
        }
        let (conn, file) = match scratch {
            true => (self.scratch.as_mut(), None),
            false => (self.conn.as_mut(), self.file.as_ref()),
        };
        let conn = conn.ok_or(StoreError::NotOpen)?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
        not_upgraded_since(&tx, file)?;
        Ok(tx)
    }
}

/// Refuses a call on a file that a newer review-mcp upgraded since this store opened it (a
/// newer server started on it while this one still runs): its schema is not one this build
/// knows, so nothing is read or written as if it were, and the call says what happened. The
/// open refuses such a file the same way; this is the same look inside each transaction, one
/// read of the header SQLite already holds.
fn not_upgraded_since(tx: &Transaction<'_>, file: Option<&open::OnDisk>) -> Result<(), StoreError> {
    let Some(disk) = file else {
        return Ok(());
    };
    let found: i64 = tx
        .prepare_cached("PRAGMA user_version")?
        .query_row([], |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::Newer {
            path: disk.path.clone(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}
