//! Opening the database for writing: the connection's pragmas and journal, the lazy open of
//! a serving process, and a private database in memory.
//!
//! **The journal.** Every write is committed in SQLite's write-ahead log
//! (`journal_mode=WAL`, `synchronous=FULL`) before it is answered: the commit appends the
//! pages to `review.db-wal` and syncs it once, so an answered write survives the process (or
//! the machine) stopping right after. Readers and the writer do not block each other: a
//! `sqlite3` shell or a long `export` holding a read transaction no longer stops a write.
//!
//! `review.db` alone is complete soon after every answer: SQLite's automatic checkpoint is
//! off (it would run inside the commit, before the answer), and the server checkpoints
//! after it has written the answer and before it reads the next request
//! ([`Store::checkpoint_and_begin_log`]: `RESTART`, which becomes `PASSIVE` when another
//! connection holds the write lock or a reader holds an older snapshot; an incomplete one is
//! tried again until it completes), then begins the emptied log for the next write, so that
//! write syncs once. The commands that write (`import`, `sync`) checkpoint at their end
//! (`TRUNCATE`). The next open of the file by anything (a server, `check`, `backup`,
//! `export`, a dry run) applies a `-wal` left by a process stopped between its answer and its
//! checkpoint first, once `left_log.rs` has checked it is this file's.
//! [`Journal::Persist`], the rollback journal of the previous version, stays only so the
//! benchmark can measure both in one run.
//!
//! The `-wal` and `-shm` files belong to the open connection: their device and inode are
//! checked with the database's before every transaction (see `file.rs`), so a cleanup
//! script deleting them stops the server's writes instead of splitting the file's state.
//!
//! Before any pragma that writes, the file is inspected (see `inspect.rs`); the read-only
//! open is in `read_only.rs`, the online backup in `backup.rs`.

use std::cell::Cell;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use super::file::{self, FileChange, Identity};
use super::inspect::{self, inspect};
use super::migrate::migrate;
use super::{BUSY_TIMEOUT, Store, StoreError};

/// The journal mode of a connection that writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Journal {
    /// Write-ahead logging with one sync per commit, checkpointed after each answer. What
    /// the server uses.
    Wal,
    /// The previous version's rollback journal whose header is zeroed at each commit (four
    /// syncs per commit): kept only so the benchmark can measure both in one run. Not
    /// reachable from the command line.
    Persist,
}

impl Journal {
    fn pragma(self) -> &'static str {
        match self {
            Journal::Persist => "persist",
            Journal::Wal => "wal",
        }
    }
}

/// The `-wal` stays at most this large once it can be reset: a write under a long read
/// transaction (or a large import) grows it, and SQLite truncates it back to this size when
/// the log restarts (the server's first commit after each checkpoint).
pub const JOURNAL_SIZE_LIMIT: i64 = 4 * 1024 * 1024;

/// A database file that a store opens on its first query.
#[derive(Debug)]
pub(super) struct OnDisk {
    /// Absolute, a symbolic link followed (see [`file::database_path`]).
    pub path: PathBuf,
    /// The path as given, absolute: a link to `path` when it differs.
    pub named: PathBuf,
    pub journal: Journal,
    /// The file the open connection uses, once it is open.
    pub identity: Option<Identity>,
    /// The connection's change count when its last checkpoint completed.
    pub checkpointed: u64,
    /// The last checkpoint could not copy the whole log (a reader's snapshot, another
    /// writer): it is tried again.
    pub incomplete: bool,
    /// The log has its header for the next write (see [`Store::begin_next_log`]): false
    /// after this connection emptied it.
    pub log_begun: bool,
    /// A call was refused because the path no longer names the file (or log) this
    /// connection opened: the checkpoint after the answer then looks again.
    pub moved: Cell<bool>,
    /// The `-wal` as it was when last found whole ([`OnDisk::verify_log`]): a call that finds
    /// it unchanged does not ask SQLite's index again.
    pub log_whole: Cell<Option<file::LogState>>,
    /// The frames the log held, not all copied into the file, at the last look of
    /// [`Store::take_over_left_log`].
    pub left_seen: Option<i64>,
}

impl OnDisk {
    /// Whether the file holds a database: it exists and it, or its `-wal`, is not empty. An
    /// empty file (`touch`, a server stopped right after creating it) is a database nobody
    /// wrote yet: read as the missing file is, and written by the first write only. (SQLite
    /// never leaves an empty file beside a log with content, since the switch to WAL writes
    /// the first page; such a pair is opened as before, and SQLite then deletes that log.)
    fn holds_data(&self) -> bool {
        let len = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
        len(&self.path) > 0 || len(&file::companion(&self.path, "-wal")) > 0
    }

    /// Whether the path still names the file (and log) the connection opened, once it is
    /// open; a refusal is remembered in [`OnDisk::moved`].
    pub fn verify(&self) -> Result<(), StoreError> {
        match &self.identity {
            Some(identity) => identity.verify().inspect_err(|_| self.moved.set(true)),
            None => Ok(()),
        }
    }

    /// Whether the `-wal` still holds every frame SQLite's index (in the `-shm`) says it
    /// holds: a log cut by another program (`: > review.db-wal`) would get the next commit
    /// after a hole of zeros where the cut frames were, and the checkpoint would copy those
    /// zeros into the file (its first page, which no SQLite can open then). `conn` must be
    /// outside a transaction: SQLite's `NOOP` checkpoint reads the index and nothing else,
    /// without a lock. Another process's `TRUNCATE` checkpoint may empty the log between the
    /// two looks (it resets the index first, then cuts the file): a short log is reported
    /// only when a second look finds the index unchanged and the log still short. A writer
    /// writes its frames before the index names them. A log unchanged (length and change
    /// time) since it was last found whole is not looked at again: reads that follow one
    /// another cost one `stat`, not two statements.
    pub fn verify_log(&self, conn: &Connection) -> Result<(), StoreError> {
        let Some(identity) = self
            .identity
            .as_ref()
            .filter(|_| self.journal == Journal::Wal)
        else {
            return Ok(());
        };
        let in_use = || -> Result<u64, StoreError> {
            let (frames, _) = log_frames(conn)?;
            let page: i64 = conn.pragma_query_value(None, "page_size", |r| r.get(0))?;
            Ok(match (u64::try_from(frames), u64::try_from(page)) {
                (Ok(n @ 1..), Ok(page)) => 32 + n * (24 + page),
                _ => 0,
            })
        };
        let Some(now) = identity.log_state() else {
            return Ok(());
        };
        if self
            .log_whole
            .get()
            .is_some_and(|whole| now.unchanged_since(&whole))
        {
            return Ok(());
        }
        let first = in_use()?;
        if now.len >= first {
            self.log_whole.set(Some(now));
            return Ok(());
        }
        self.log_whole.set(None);
        let later = identity.log_state();
        if in_use()? != first || later.is_none_or(|l| l.len >= first) {
            return Ok(());
        }
        let len = now.len;
        self.moved.set(true);
        Err(StoreError::FileChanged {
            path: self.path.clone(),
            change: FileChange::LogTruncated(len, first),
        })
    }
}

/// What a checkpoint did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoint {
    /// Nothing was written since the last complete one (or no file, or not in WAL mode).
    Nothing,
    /// The whole log is in the database file, and the log is empty.
    Complete,
    /// Another connection's snapshot or lock kept part of the log out: try again later.
    Incomplete,
}

impl Store {
    /// Opens (creating if needed) the database at `path` now. A new file and its parent
    /// directories are created, the file readable by its owner only.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, Journal::Wal)
    }

    /// [`Store::open`] with another journal mode (the benchmark's comparison).
    pub fn open_with(path: &Path, journal: Journal) -> Result<Store, StoreError> {
        let mut store = Store::unopened(path, journal)?;
        store.conn()?;
        Ok(store)
    }

    /// A store for a serving process: checks now what can be checked without creating or
    /// writing anything (the kind of file, its links, a foreign, newer or damaged file, a
    /// file that cannot be written), and opens the file after the first answer when it
    /// exists ([`Store::open_if_present`]), else at the first query that needs it. A process
    /// that only answers `initialize`, `server/discover`, `ping` or a list creates nothing,
    /// and a database locked by another process is reported by the first tool call that
    /// needs it, within [`BUSY_TIMEOUT`], instead of delaying the handshake.
    pub fn lazy(path: &Path) -> Result<Store, StoreError> {
        let store = Store::unopened(path, Journal::Wal)?;
        let path = store.path().map(Path::to_path_buf).unwrap_or_default();
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(store),
            Err(source) => return Err(StoreError::Create { path, source }),
            Ok(meta) => file::check_kind(&path, &meta)?,
        }
        // An open for writing changes nothing, and fails for a file that cannot be written
        // (its permissions, an immutable attribute, a read-only mount).
        if let Err(source) = OpenOptions::new().read(true).write(true).open(&path) {
            return Err(StoreError::ReadOnlyFile { path, source });
        }
        match inspect(&path, Duration::from_millis(100)) {
            Ok(_) => Ok(store),
            // Locked by another process: the first query waits for it, and says so.
            Err(StoreError::Sqlite(e)) if is_busy(&e) => {
                log::info!(
                    "{} is locked by another process; the first query will wait for it",
                    path.display()
                );
                Ok(store)
            }
            Err(e) => Err(e),
        }
    }

    fn unopened(path: &Path, journal: Journal) -> Result<Store, StoreError> {
        let disk = OnDisk {
            path: file::database_path(path)?,
            named: file::absolute(path)?,
            journal,
            identity: None,
            checkpointed: 0,
            log_begun: false,
            moved: Cell::new(false),
            log_whole: Cell::new(None),
            incomplete: false,
            left_seen: None,
        };
        Ok(Store::over(None, Some(disk)))
    }

    /// A store of `conn` (opened later when `None`) for the file `disk` (`None` in memory).
    pub(super) fn over(conn: Option<Connection>, disk: Option<OnDisk>) -> Store {
        // What opening wrote (a migration) is not a change of the review.
        let internal_changes = conn.as_ref().map_or(0, Connection::total_changes);
        Store {
            conn,
            file: disk,
            temp_dir: None,
            scratch: None,
            cursor_secret: None,
            internal_changes,
            author: None,
        }
    }

    /// A private database in memory (tests, dry runs).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        setup(&mut conn)?;
        migrate(&conn, Path::new(":memory:"), false)?;
        Ok(Store::over(Some(conn), None))
    }

    /// A store over a connection a test prepared by hand.
    #[cfg(test)]
    pub(super) fn from_connection(mut conn: Connection) -> Result<Store, StoreError> {
        setup(&mut conn)?;
        Ok(Store::over(Some(conn), None))
    }

    /// The path of the file this store opens, `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_ref().map(|f| f.path.as_path())
    }

    /// Whether a connection to a file on disk is open (not in memory, not yet opened).
    pub fn is_open(&self) -> bool {
        self.conn.is_some() && self.file.is_some()
    }

    /// The connection, opened now if this is the first query, after checking that the path
    /// still names the file it opened.
    pub(super) fn conn(&mut self) -> Result<&mut Connection, StoreError> {
        self.conn_verified(true)
    }

    /// [`Store::conn`], checking the file's identity only when `verify` (a write checks it
    /// once it holds the lock instead, see `Store::write`).
    pub(super) fn conn_verified(&mut self, verify: bool) -> Result<&mut Connection, StoreError> {
        if let Some(disk) = &mut self.file {
            match (&self.conn, &disk.identity) {
                (Some(conn), Some(_)) if verify => {
                    disk.verify()?;
                    disk.verify_log(conn)?;
                }
                (Some(_), Some(_)) => {}
                (None, _) => {
                    let (conn, identity) = connect(&disk.path, disk.journal)?;
                    disk.identity = Some(identity.named_by(&disk.named));
                    disk.log_whole.set(None);
                    // What opening wrote (a migration) is not a change of the review.
                    self.internal_changes = conn.total_changes();
                    disk.checkpointed = conn.total_changes();
                    disk.log_begun = false;
                    self.conn = Some(conn);
                }
                (Some(_), None) => {}
            }
        }
        self.conn.as_mut().ok_or(StoreError::NotOpen)
    }

    /// Opens the file now if it holds a database and is not open yet, without waiting for a lock
    /// another process holds (the first query then opens it, and waits as always). The
    /// server calls it after an answer, so that what an open writes and syncs (a left log
    /// applied, the log begun) is done before a request waits on it. Returns whether the
    /// store is open on its file.
    pub fn open_if_present(&mut self) -> bool {
        match (&self.conn, &self.file) {
            (Some(_), _) => return true,
            (None, Some(disk)) if disk.holds_data() => {}
            _ => return false,
        }
        match without_waiting(|| self.conn().map(|_| ())) {
            Ok(()) => true,
            Err(e) => {
                log::debug!("the file is opened by the first query instead: {e}");
                false
            }
        }
    }

    /// Copies what this connection committed since its last complete checkpoint from the
    /// `-wal` into the database file and empties the log (`TRUNCATE`), without waiting: when
    /// another connection holds the write lock or a reader holds an older snapshot it copies
    /// what it can (`PASSIVE`) and says [`Checkpoint::Incomplete`], to be tried again. The
    /// server calls it after writing each answer, the writing commands at their end. No
    /// query runs when nothing was written (no system call either).
    pub fn checkpoint(&mut self) -> Result<Checkpoint, StoreError> {
        self.checkpoint_in(TRUNCATE)
    }

    /// The server's checkpoint after an answer: [`Store::checkpoint`], then the emptied log
    /// begun for the next write ([`Store::begin_next_log`]), so the next answered write
    /// syncs once. When the path still names the file and log this connection opened, the
    /// checkpoint is `RESTART`: the log keeps its length (at most [`JOURNAL_SIZE_LIMIT`])
    /// and the new header the next commit writes makes its old frames invalid, which spares
    /// the file system a truncation and a regrowth per write (a fifth of a `remember`'s CPU
    /// on tmpfs, and on ext4 a sync that only writes data, not the file's new size).
    /// Otherwise it is `TRUNCATE`, and the log is not begun: nothing with frames is left
    /// beside a path that names another file.
    pub fn checkpoint_and_begin_log(&mut self) -> Result<Checkpoint, StoreError> {
        // Nothing written and the log begun: no system call.
        let ours = match (&self.conn, &self.file) {
            (Some(conn), Some(disk)) if disk.journal == Journal::Wal => {
                if conn.total_changes() == disk.checkpointed && !disk.incomplete && disk.log_begun {
                    return Ok(Checkpoint::Nothing);
                }
                disk.identity.as_ref().is_none_or(|i| i.verify().is_ok())
            }
            _ => return Ok(Checkpoint::Nothing),
        };
        if !ours {
            // The path names another file now (replaced, deleted): the log begun for the old
            // one goes at once, so nothing of it stays beside the path.
            self.empty_begun_log();
        }
        let done = self.checkpoint_in(if ours { RESTART } else { TRUNCATE })?;
        if ours && done != Checkpoint::Incomplete {
            self.begin_next_log()?;
        }
        Ok(done)
    }

    /// Whether the log holds commits of another connection that are not in the database file
    /// and that nobody copied since the previous look (a writer that stopped while a reader's
    /// snapshot kept its checkpoint back, a process killed before its checkpoint): then they
    /// are this connection's to checkpoint ([`Store::checkpoint_and_begin_log`], tried again
    /// as its own writes are). The server looks every few seconds, idle too: without this, once
    /// such a reader ended, the log (hundreds of MB after a few thousand writes) and
    /// `review.db` lacking those writes stayed as they were until this connection wrote or
    /// closed. A look costs a `stat` of the `-wal` and, when it is not empty, SQLite's
    /// `NOOP` checkpoint (the index only, no lock). A single frame is the begun log (see
    /// [`Store::begin_next_log`]), not a write: every review write changes two pages or more.
    pub fn take_over_left_log(&mut self) -> Result<bool, StoreError> {
        let (Some(conn), Some(disk)) = (&self.conn, &mut self.file) else {
            return Ok(false);
        };
        let log_empty = || {
            disk.identity
                .as_ref()
                .and_then(Identity::log_state)
                .is_none_or(|log| log.len == 0)
        };
        if disk.journal != Journal::Wal || disk.incomplete || log_empty() {
            disk.left_seen = None;
            return Ok(false);
        }
        let (frames, copied) = log_frames(conn)?;
        let left = (frames - copied.max(0) > 1).then_some(frames);
        let take = left.is_some() && left == disk.left_seen;
        disk.left_seen = if take { None } else { left };
        disk.incomplete |= take;
        Ok(take)
    }

    /// Empties a log this connection began (`TRUNCATE`, without waiting): for the server,
    /// once the path names another file.
    fn empty_begun_log(&mut self) {
        if let (Some(conn), Some(disk)) = (&self.conn, &mut self.file)
            && disk.log_begun
            && matches!(without_waiting(|| truncate_wal(conn)), Ok(false))
        {
            disk.log_begun = false;
        }
    }

    /// At the close of the store: empties the log (`TRUNCATE`, without waiting) when the path
    /// still names the file and log this connection opened (SQLite deletes it too when this
    /// is the last connection). When the path names another file, no checkpoint from here
    /// (another process may use a new file there with the same log, and SQLite refuses to
    /// write a moved file anyway): only the log this connection began is emptied, after the
    /// connection closed, if the path still names that very log.
    pub(super) fn empty_log(&mut self) {
        let (Some(conn), Some(disk)) = (&self.conn, &self.file) else {
            return;
        };
        if disk.journal != Journal::Wal {
            return;
        }
        match &disk.identity {
            Some(identity) if identity.verify().is_err() => {
                // Only a log this connection began (its first page, nothing else: every
                // write was checkpointed after its answer) goes, once the connection is
                // closed; a log with writes still to copy is left for the file they belong to.
                if disk.log_begun && !disk.incomplete {
                    let identity = identity.clone();
                    self.conn = None;
                    identity.empty_companion("-wal");
                }
            }
            _ => {
                let _ = without_waiting(|| truncate_wal(conn));
            }
        }
    }

    fn checkpoint_in(&mut self, mode: &str) -> Result<Checkpoint, StoreError> {
        let (Some(conn), Some(disk)) = (&self.conn, &mut self.file) else {
            return Ok(Checkpoint::Nothing);
        };
        let changes = conn.total_changes();
        if disk.journal != Journal::Wal || (changes == disk.checkpointed && !disk.incomplete) {
            return Ok(Checkpoint::Nothing);
        }
        // No identity check: even when the path no longer names the file (replaced, deleted)
        // or its log, copying the log into the file this connection opened and emptying it
        // is what leaves nothing beside the path that SQLite would apply to another file.
        let busy = without_waiting(|| checkpoint_wal(conn, mode))?;
        disk.incomplete = busy;
        disk.checkpointed = changes;
        disk.log_begun &= busy;
        Ok(if busy {
            Checkpoint::Incomplete
        } else {
            Checkpoint::Complete
        })
    }

    /// Begins the emptied log for the next write, after a complete checkpoint (or the open) emptied it: the first
    /// commit into an empty log writes its header and syncs it before the commit's own sync,
    /// so without this the next answered write would wait for two syncs instead of one. The
    /// commit here changes no review row (the schema version is written back with its own
    /// value, in one `BEGIN IMMEDIATE` so no other writer comes between) and carries nothing
    /// worth keeping, so it runs with `synchronous=NORMAL`: only the new header is synced.
    /// It gives up at once (nothing written) when another connection holds the lock (whose
    /// next commit then begins the log), or in a rollback journal. `review.db` alone still holds every answered write: what this puts in the
    /// log is a page 1 identical to the file's, but for its change counter.
    fn begin_next_log(&mut self) -> Result<(), StoreError> {
        let (Some(conn), Some(disk)) = (&self.conn, &mut self.file) else {
            return Ok(());
        };
        if disk.journal != Journal::Wal || disk.incomplete || disk.log_begun {
            return Ok(());
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let written = without_waiting(|| -> Result<(), StoreError> {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            let rewrite = conn
                .pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))
                .and_then(|v| conn.pragma_update(None, "user_version", v));
            match rewrite {
                Ok(()) => conn.execute_batch("COMMIT")?,
                Err(e) => {
                    let _ = conn.execute_batch("ROLLBACK");
                    return Err(e.into());
                }
            }
            Ok(())
        });
        conn.pragma_update(None, "synchronous", "FULL")?;
        match written {
            Err(StoreError::Sqlite(e)) if is_busy(&e) => Ok(()),
            Err(e) => Err(e),
            Ok(()) => {
                disk.log_begun = true;
                Ok(())
            }
        }
    }

    /// Whether reads go to the scratch database (creating it if needed): a lazy store whose
    /// file does not exist yet, or is empty ([`OnDisk::holds_data`]).
    pub(super) fn scratch_until_created(&mut self) -> Result<bool, StoreError> {
        let missing = match (&self.conn, &self.file) {
            (None, Some(disk)) => !disk.holds_data(),
            _ => false,
        };
        if missing && self.scratch.is_none() {
            let mut conn = Connection::open_in_memory()?;
            setup(&mut conn)?;
            migrate(&conn, Path::new(":memory:"), false)?;
            self.scratch = Some(conn);
        }
        Ok(missing)
    }
}

/// Opens the file for writing: creates it if needed, inspects it, connects, sets the journal
/// and migrates. Returns the connection and the identity of the file it opened.
fn connect(path: &Path, journal: Journal) -> Result<(Connection, Identity), StoreError> {
    let create = |source| StoreError::Create {
        path: path.to_path_buf(),
        source,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                create_private_dirs(parent).map_err(create)?;
            }
            create_private(path).map_err(create)?;
            std::fs::metadata(path).map_err(create)?
        }
        Err(e) => return Err(create(e)),
    };
    file::check_kind(path, &meta)?;
    // As long as this thread's statements wait (nothing inside `without_waiting`).
    let patience = PATIENCE.with(Cell::get);
    inspect(path, patience)?;
    let before = Identity::of(path)?;
    // SQLite's own messages ("unable to open database file", "attempt to write a readonly
    // database") do not say which file: name it.
    let named = |e: StoreError| match e {
        StoreError::Sqlite(source) if is_busy(&source) => StoreError::Locked {
            path: path.to_path_buf(),
            waited: patience,
        },
        StoreError::Sqlite(source) => StoreError::opening(path, source),
        other => other,
    };
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(path, flags).map_err(|e| named(e.into()))?;
    // SQLite falls back to a read-only open when the file cannot be written; every write
    // would then fail. Refuse now instead.
    if conn.is_readonly(rusqlite::MAIN_DB)? {
        return Err(named(StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_READONLY),
            Some("the file is read-only".into()),
        ))));
    }
    setup(&mut conn).map_err(named)?;
    // Setting the journal writes the header (and a checkpoint folds a left WAL into the
    // main file): first make sure (through this connection, which sees the WAL) that the
    // file is ours. The header fast path of the inspection cannot see a WAL that changed
    // the schema version or application id.
    let prepared = inspect::identify(&conn)
        .map_err(StoreError::from)
        .and_then(|(app, version, tables)| inspect::classify(path, app, version, tables))
        .and_then(|_| set_journal(&conn, path, journal, patience))
        .and_then(|()| migrate(&conn, path, true));
    if let Err(e) = prepared {
        // A refused file is left exactly as it is: no checkpoint of a WAL into it when this
        // connection closes.
        let _ = conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        );
        return Err(named(e));
    }
    // The file set up is the file the path named before SQLite opened it.
    before.verify()?;
    if journal == Journal::Wal {
        // A log left by a process stopped between an answer and its checkpoint, and the
        // migration just committed, go into the database file now.
        match without_waiting(|| truncate_wal(&conn)) {
            Ok(false) => {}
            Ok(true) => log::debug!(
                "{}: the log could not be emptied at open (another process reads it)",
                path.display()
            ),
            // A full disk (the file cannot grow to take the log's pages), an I/O error: the
            // log stays as it is, and reads see it through SQLite; a write says what is
            // wrong. Refusing the open would refuse the reads too.
            Err(e) => log::warn!(
                "{}: the log beside it could not be copied into the file ({e}); it is read through until a later checkpoint can",
                path.display()
            ),
        }
        // The connection holds the `-wal` and `-shm` open from now on.
        return Ok((conn, before.with_companions(&["-wal", "-shm"])?));
    }
    Ok((conn, before))
}

/// `PRAGMA wal_checkpoint(TRUNCATE)`: true when it could not complete (SQLite then did what
/// a `PASSIVE` checkpoint does). A connection not in WAL mode answers "not busy".
pub(super) fn truncate_wal(conn: &Connection) -> Result<bool, StoreError> {
    checkpoint_wal(conn, TRUNCATE)
}

/// The frames the log holds and how many of them are copied into the file, as SQLite's index
/// (in the `-shm`) says: its `NOOP` checkpoint reads the index and nothing else, without a
/// lock.
fn log_frames(conn: &Connection) -> rusqlite::Result<(i64, i64)> {
    conn.prepare_cached("PRAGMA wal_checkpoint(NOOP)")?
        .query_row([], |r| Ok((r.get(1)?, r.get(2)?)))
}

/// The statements of the two checkpoints the store runs.
const TRUNCATE: &str = "PRAGMA wal_checkpoint(TRUNCATE)";
const RESTART: &str = "PRAGMA wal_checkpoint(RESTART)";

/// Runs checkpoint `statement` ([`TRUNCATE`] or [`RESTART`]): true when it could not
/// complete (SQLite then did what a `PASSIVE` checkpoint does).
fn checkpoint_wal(conn: &Connection, statement: &str) -> Result<bool, StoreError> {
    let busy: i64 = conn
        .prepare_cached(statement)?
        .query_row([], |r| r.get(0))?;
    Ok(busy != 0)
}

/// Brings the private copy at `path` (nothing else has it open) to this build's schema
/// without a word in the log: its reader says what it is doing, once.
pub(super) fn upgrade_quietly(path: &Path) -> Result<(), StoreError> {
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    setup(&mut conn)?;
    migrate(&conn, path, false)
}

/// The pragmas of every connection.
fn setup(conn: &mut Connection) -> Result<(), StoreError> {
    conn.busy_handler(Some(fair_wait()))?;
    conn.set_prepared_statement_cache_capacity(128);
    // Query planner stability: plans never depend on bound values. Without it, SQLite marks
    // statements whose plan could use a parameter's value (partial indexes, STAT4) and
    // re-prepares them on every bind, a cost every recall would pay.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    conn.pragma_update(None, "foreign_keys", true)?;
    // FULL: a write acknowledged to the client survives the process (or the machine)
    // stopping right after the answer.
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(())
}

thread_local! {
    /// How long the busy handler of this thread's statements waits: [`BUSY_TIMEOUT`], except
    /// inside [`without_waiting`]. SQLite calls the handler on the thread running the
    /// statement, so a thread-local is exactly the statement's setting.
    static PATIENCE: Cell<Duration> = const { Cell::new(BUSY_TIMEOUT) };
}

/// How long this thread's statements wait for another connection's lock now.
pub(super) fn patience() -> Duration {
    PATIENCE.with(Cell::get)
}

/// Runs `f` with statements that give up at once when another connection holds the lock:
/// for looks that can wait for the next turn (is there a change to tell a client of?) and
/// must not hold up the requests behind them.
pub(super) fn without_waiting<T>(f: impl FnOnce() -> T) -> T {
    let before = PATIENCE.with(|p| p.replace(Duration::ZERO));
    let out = f();
    PATIENCE.with(|p| p.set(before));
    out
}

/// The busy handler: while another connection holds the lock, look again about every
/// millisecond (with a little jitter, so that waiting processes do not poll in step) until
/// [`BUSY_TIMEOUT`] has passed since this wait began. SQLite's own `busy_timeout` sleeps
/// longer and longer (up to 100 ms a look), so under a steady stream of writes from several
/// processes a writer that has waited long polls least often and can lose every hand-over of
/// the lock for the whole timeout, and answer "locked".
fn fair_wait() -> impl FnMut(i32) -> bool + Send + 'static {
    let mut started = Instant::now();
    move |count| {
        if count == 0 {
            started = Instant::now();
        }
        if started.elapsed() >= PATIENCE.with(Cell::get) {
            return false;
        }
        let jitter = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() % 1000);
        std::thread::sleep(Duration::from_micros(500 + u64::from(jitter)));
        true
    }
}

/// Sets the journal mode, within [`BUSY_TIMEOUT`] in all: entering WAL mode from the
/// rollback journal (a file of the previous version) needs a moment when no other
/// connection reads or writes the file, and a lock that another process opening the same
/// new file may hold; leaving it (the benchmark's rollback journal) needs every other
/// connection closed.
fn set_journal(
    conn: &Connection,
    path: &Path,
    journal: Journal,
    patience: Duration,
) -> Result<(), StoreError> {
    let want = journal.pragma();
    let deadline = Instant::now() + patience;
    let mode = loop {
        let r: rusqlite::Result<String> =
            conn.pragma_update_and_check(None, "journal_mode", want, |r| r.get(0));
        match r {
            Ok(mode) => break Some(mode),
            Err(e) if is_busy(&e) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) if is_busy(&e) => break None,
            Err(e) => return Err(e.into()),
        }
    };
    // Still busy at the deadline, or left in another mode.
    if !mode.is_some_and(|m| m.eq_ignore_ascii_case(want)) {
        return Err(StoreError::JournalBusy {
            path: path.to_path_buf(),
        });
    }
    conn.pragma_update(None, "journal_size_limit", JOURNAL_SIZE_LIMIT)?;
    if journal == Journal::Wal {
        // No checkpoint inside a commit, before its answer: the server checkpoints after
        // it (see `Store::checkpoint`).
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
    }
    Ok(())
}

pub(super) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Creates `dir` and any missing directory above it, each one this creates usable by its owner
/// only (as the file is); directories that exist are left as they are.
fn create_private_dirs(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// Creates an empty file readable and writable by its owner only, before SQLite sees it
/// (SQLite gives its journal the same permissions).
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    match opts.open(path) {
        Ok(_) => Ok(()),
        // Another process created it first: fine, it is inspected like any existing file.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::super::schema::MIGRATIONS;
    use super::super::{APPLICATION_ID, SCHEMA_VERSION};
    use super::*;

    /// A 0.1 file (WAL mode) is upgraded in place and stays in WAL mode; the upgrade is in
    /// the main file when the open returns (the log is empty), and once the store closes no
    /// `-wal` or `-shm` file is left.
    #[test]
    fn upgrade_of_a_wal_file_keeps_it_in_wal_and_checkpoints() {
        let dir = std::env::temp_dir().join(format!(
            "review-mcp-upgrade-wal-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("review.db");
        {
            let conn = Connection::open(&db).unwrap();
            conn.pragma_update(None, "journal_mode", "WAL").unwrap();
            conn.execute_batch(MIGRATIONS[0]).unwrap();
            conn.pragma_update(None, "user_version", 1).unwrap();
            conn.pragma_update(None, "application_id", APPLICATION_ID)
                .unwrap();
            let tx = conn.unchecked_transaction().unwrap();
            for i in 1..=2000 {
                tx.execute(
                    "INSERT INTO records (id, kind, locator, note, tags, entity_ids, id_scheme, \
                     revision, format, created_at, updated_at, seq) \
                     VALUES (?1, 'note', 'l', 'some note text', '[]', '[]', 'opaque', 'r', \
                     'step', 't', 't', ?2)",
                    rusqlite::params![format!("rec_{i}"), i],
                )
                .unwrap();
            }
            tx.commit().unwrap();
        }
        let mut store = Store::open(&db).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let n: i64 = store
            .conn()
            .unwrap()
            .query_row("SELECT count(*) FROM records", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 2000);
        let wal = std::fs::metadata(dir.join("review.db-wal")).unwrap();
        assert_eq!(wal.len(), 0, "the upgrade is still in the log");
        let mode: String = store
            .conn()
            .unwrap()
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        // The main file's header says WAL mode (read and write versions 2).
        let header = std::fs::read(&db).unwrap();
        assert_eq!(header.get(18..20), Some(&[2u8, 2][..]));
        drop(store);
        assert!(!dir.join("review.db-wal").exists(), "the WAL was left");
        assert!(
            !dir.join("review.db-shm").exists(),
            "the -shm file was left"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn open_in_memory_is_at_current_schema() {
        let mut s = Store::open_in_memory().unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    }
}
