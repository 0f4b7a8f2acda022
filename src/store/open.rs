//! Opening the database: the checks before anything is written, the connection's pragmas,
//! the lazy open of a serving process, the read-only open of `export`, `check` and `backup`,
//! and the online backup.
//!
//! **The journal.** Every write is committed in SQLite's rollback-journal mode
//! (`journal_mode=PERSIST`, `synchronous=FULL`) before it is answered: the commit puts the
//! pages in `review.db` itself, so the moment a write is answered `review.db` alone holds it,
//! however the process ends next (EOF, SIGTERM, SIGINT, SIGHUP from a host that does not
//! close stdin first, or SIGKILL). WAL mode, which 0.1 used, keeps answered writes in the
//! `-wal` file until a checkpoint; a server stopped by a signal never ran its closing
//! checkpoint, so a copy of `review.db` missed that session, a deleted `-wal` lost
//! acknowledged writes, and a `-wal` left beside a restored file was applied to it. The
//! persistent journal's header is zeroed (and synced) at each commit rather than the file
//! deleted, which keeps the commit durable without a directory sync and costs no unlink
//! (`examples/bench` prints the cost against WAL in the same run). A file left in WAL mode
//! by 0.1 is switched at its first open, which needs no other process to have it open.
//!
//! **Refusals.** Before any pragma that writes, the file is inspected (its header, and unless
//! that shows it is ours, through a read-only connection) and a non-SQLite, foreign or newer
//! file is refused with the file left byte-for-byte untouched. A path that is not a regular
//! file, or a file with a second hard link, is refused too (see [`super::file`]).

use std::fs::OpenOptions;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use super::file::{self, Identity};
use super::{APPLICATION_ID, BUSY_TIMEOUT, SCHEMA_VERSION, Store, StoreError, schema};

/// The journal mode of a connection that writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Journal {
    /// A rollback journal whose header is zeroed at each commit: every answered write is in
    /// the main file. What the server uses.
    Persist,
    /// Write-ahead logging, as 0.1 wrote: kept only so the benchmark can measure what the
    /// rollback journal costs against it in one run. Not reachable from the command line.
    Wal,
}

impl Journal {
    fn pragma(self) -> &'static str {
        match self {
            Journal::Persist => "persist",
            Journal::Wal => "wal",
        }
    }
}

/// The journal of a rollback-mode file stays at most this large between writes: a large
/// import grows it, and SQLite truncates it back to this size after the commit.
const JOURNAL_SIZE_LIMIT: i64 = 4 * 1024 * 1024;

/// A database file that a store opens on its first query.
#[derive(Debug)]
pub(super) struct OnDisk {
    /// Absolute (see [`file::absolute`]).
    pub path: PathBuf,
    pub journal: Journal,
    /// The file the open connection uses, once it is open.
    pub identity: Option<Identity>,
}

/// What the read-only inspection found in an existing file.
pub(super) enum Found {
    /// Empty, or an SQLite file with no tables and no application id: ours to initialise.
    Fresh,
    /// Ours, at this schema version.
    Ours(i64),
}

impl Store {
    /// Opens (creating if needed) the database at `path` now. A new file and its parent
    /// directories are created, the file readable by its owner only.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, Journal::Persist)
    }

    /// [`Store::open`] with another journal mode (the benchmark's comparison).
    pub fn open_with(path: &Path, journal: Journal) -> Result<Store, StoreError> {
        let mut store = Store::unopened(path, journal)?;
        store.conn()?;
        Ok(store)
    }

    /// A store for a serving process: checks now what can be checked without creating or
    /// writing anything (the kind of file, its links, a foreign, newer or damaged file, a
    /// file that cannot be written), and opens the file at the first query. A process that
    /// only answers `initialize`, `server/discover`, `ping` or a list creates nothing, and a
    /// database locked by another process is reported by the first tool call that needs it,
    /// within [`BUSY_TIMEOUT`], instead of delaying the handshake.
    pub fn lazy(path: &Path) -> Result<Store, StoreError> {
        let store = Store::unopened(path, Journal::Persist)?;
        let path = store.path().map(Path::to_path_buf).unwrap_or_default();
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(store),
            Err(source) => return Err(StoreError::Io { path, source }),
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
            path: file::absolute(path)?,
            journal,
            identity: None,
        };
        Ok(Store::over(None, Some(disk)))
    }

    /// A store of `conn` (opened later when `None`) for the file `disk` (`None` in memory).
    fn over(conn: Option<Connection>, disk: Option<OnDisk>) -> Store {
        Store {
            conn,
            file: disk,
            temp_dir: None,
            scratch: None,
            cursor_secret: None,
        }
    }

    /// A private database in memory (tests, dry runs).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        setup(&mut conn)?;
        schema::migrate(&conn, Path::new(":memory:"))?;
        Ok(Store::over(Some(conn), None))
    }

    /// A store over a connection a test prepared by hand.
    #[cfg(test)]
    pub(super) fn from_connection(mut conn: Connection) -> Result<Store, StoreError> {
        setup(&mut conn)?;
        Ok(Store::over(Some(conn), None))
    }

    /// Opens an existing database without writing to it, for `export`, `check` and `backup`:
    /// works on a read-only file or mount. A file of an older schema version is upgraded in a
    /// private copy (see [`Store::private_copy`]), never in place.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let (path, version, store) = Store::read_only_in_place(path)?;
        if version < SCHEMA_VERSION {
            return store.private_copy(&path);
        }
        Ok(store)
    }

    /// A read-only store over the existing file itself (absolute path, schema version as
    /// inspected): the first step of every read-only command.
    fn read_only_in_place(path: &Path) -> Result<(PathBuf, i64, Store), StoreError> {
        let path = file::absolute(path)?;
        let meta = std::fs::metadata(&path).map_err(|source| StoreError::Io {
            path: path.clone(),
            source,
        })?;
        if !meta.is_file() {
            file::check_kind(&path, &meta)?;
        }
        let version = match inspect(&path, BUSY_TIMEOUT)? {
            Found::Fresh => return Err(StoreError::Empty { path }),
            Found::Ours(v) => v,
        };
        let store = Store::over(Some(connect_read_only(&path)?), None);
        Ok((path, version, store))
    }

    /// The file's own schema version and the problems `check` finds in it, read through a
    /// read-only connection to the file itself, whatever its schema version (an older file
    /// is not upgraded for this: its pages are checked as they are on disk).
    pub fn check_in_place(path: &Path) -> Result<(i64, Vec<String>), StoreError> {
        let (_, _, mut store) = Store::read_only_in_place(path)?;
        let version = store.schema_version()?;
        let problems = store.check()?;
        Ok((version, problems))
    }

    /// The path of the file this store opens, `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_ref().map(|f| f.path.as_path())
    }

    /// The connection, opened now if this is the first query, after checking that the path
    /// still names the file it opened.
    pub(super) fn conn(&mut self) -> Result<&mut Connection, StoreError> {
        if let Some(disk) = &mut self.file {
            match (&self.conn, &disk.identity) {
                (Some(_), Some(identity)) => identity.verify()?,
                (None, _) => {
                    let (conn, identity) = connect(&disk.path, disk.journal)?;
                    disk.identity = Some(identity);
                    self.conn = Some(conn);
                }
                (Some(_), None) => {}
            }
        }
        self.conn.as_mut().ok_or(StoreError::NotOpen)
    }

    /// Whether reads go to the scratch database (creating it if needed): a lazy store whose
    /// file does not exist yet.
    pub(super) fn scratch_until_created(&mut self) -> Result<bool, StoreError> {
        let missing = match (&self.conn, &self.file) {
            (None, Some(disk)) => !disk.path.exists(),
            _ => false,
        };
        if missing && self.scratch.is_none() {
            let mut conn = Connection::open_in_memory()?;
            setup(&mut conn)?;
            schema::migrate(&conn, Path::new(":memory:"))?;
            self.scratch = Some(conn);
        }
        Ok(missing)
    }

    /// Writes a complete, self-contained copy of the database to `target` (which must not
    /// exist) with SQLite's `VACUUM INTO`: one read transaction, so the copy is consistent
    /// while other servers write. The copy is synced before this returns.
    pub fn backup_into(&mut self, target: &Path) -> Result<(), StoreError> {
        let target = file::absolute(target)?;
        let conn = self.conn()?;
        // An absolute path is never read as a URI (see `file::absolute`).
        let name = target.to_string_lossy().into_owned();
        conn.execute("VACUUM INTO ?1", [&name])?;
        // The copy is another database from now on: its cursors must not be accepted by this
        // one, nor this one's by it, so it gets a secret of its own.
        let copy = Connection::open_with_flags(
            &target,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let has_meta: i64 = copy.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'",
            [],
            |r| r.get(0),
        )?;
        if has_meta > 0 {
            copy.execute(
                "UPDATE meta SET value = randomblob(32) WHERE name = 'cursor_secret'",
                [],
            )?;
        }
        drop(copy);
        let synced = std::fs::File::open(&target).and_then(|f| f.sync_all());
        synced.map_err(|source| StoreError::Io {
            path: target,
            source,
        })
    }

    /// A copy of the file at `path` in a private temporary directory, upgraded to this
    /// build's schema: how the read-only commands read a file of an older version without
    /// writing to it. The directory is removed when the store is dropped.
    fn private_copy(mut self, path: &Path) -> Result<Store, StoreError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("review-mcp-upgrade-{}-{nanos}", std::process::id()));
        let io = |source| StoreError::Io {
            path: dir.clone(),
            source,
        };
        create_private_dir(&dir).map_err(io)?;
        let copy = dir.join("copy.db");
        let made = self
            .backup_into(&copy)
            .and_then(|()| Store::open(&copy))
            .map(|mut s| {
                s.temp_dir = Some(dir.clone());
                s
            });
        drop(self);
        if made.is_err() {
            let _ = std::fs::remove_dir_all(&dir);
        } else {
            log::info!(
                "{} has an older schema version: reading an upgraded private copy; the file itself is upgraded at the next start of a server",
                path.display()
            );
        }
        made
    }
}

/// Opens the file for writing: creates it if needed, inspects it, connects, sets the journal
/// and migrates. Returns the connection and the identity of the file it opened.
fn connect(path: &Path, journal: Journal) -> Result<(Connection, Identity), StoreError> {
    let io = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(io)?;
            }
            create_private(path).map_err(io)?;
            std::fs::metadata(path).map_err(io)?
        }
        Err(e) => return Err(io(e)),
    };
    file::check_kind(path, &meta)?;
    inspect(path, BUSY_TIMEOUT)?;
    let before = Identity::of(path)?;
    // SQLite's own messages ("unable to open database file", "attempt to write a readonly
    // database") do not say which file: name it.
    let named = |e: StoreError| match e {
        StoreError::Sqlite(source) if !is_busy(&source) => StoreError::Open {
            path: path.to_path_buf(),
            source,
        },
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
    // Leaving WAL mode folds the WAL into the main file: first make sure (through this
    // connection, which sees the WAL) that the file is ours. The header fast path of the
    // inspection cannot see a WAL that changed the schema version or application id.
    let prepared = schema::identify(&conn)
        .map_err(StoreError::from)
        .and_then(|(app, version, tables)| schema::classify(path, app, version, tables))
        .and_then(|_| set_journal(&conn, path, journal))
        .and_then(|()| schema::migrate(&conn, path));
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
    Ok((conn, before))
}

/// The pragmas of every connection.
fn setup(conn: &mut Connection) -> Result<(), StoreError> {
    conn.busy_handler(Some(fair_wait()))?;
    conn.set_prepared_statement_cache_capacity(128);
    // Query planner stability: plans never depend on bound values. Without it, SQLite marks
    // statements whose plan could use a parameter's value (partial indexes, STAT4) and
    // re-prepares them on every bind, which was a quarter of a recall.
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

/// The busy handler: while another connection holds the lock, look again about every
/// millisecond (with a little jitter, so that waiting processes do not poll in step) until
/// [`BUSY_TIMEOUT`] has passed since this wait began. SQLite's own `busy_timeout` sleeps
/// longer and longer (up to 100 ms a look), so under a steady stream of writes from several
/// processes a writer that has waited long polls least often and can lose every hand-over of
/// the lock for the whole timeout: with the rollback journal's longer commits, eight servers
/// writing at once on a loaded disk answered one write "locked" that way.
fn fair_wait() -> impl FnMut(i32) -> bool + Send + 'static {
    let mut started = Instant::now();
    move |count| {
        if count == 0 {
            started = Instant::now();
        }
        if started.elapsed() >= BUSY_TIMEOUT {
            return false;
        }
        let jitter = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() % 1000);
        std::thread::sleep(Duration::from_micros(500 + u64::from(jitter)));
        true
    }
}

/// Sets the journal mode, within [`BUSY_TIMEOUT`] in all: leaving WAL mode (a file 0.1
/// wrote) needs every other connection to the file closed, and entering it (the benchmark)
/// a lock that another process opening the same new file may hold.
fn set_journal(conn: &Connection, path: &Path, journal: Journal) -> Result<(), StoreError> {
    let want = journal.pragma();
    let deadline = Instant::now() + BUSY_TIMEOUT;
    let mode = loop {
        let r: rusqlite::Result<String> =
            conn.pragma_update_and_check(None, "journal_mode", want, |r| r.get(0));
        match r {
            Ok(mode) => break mode,
            Err(e) if is_busy(&e) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) if is_busy(&e) => {
                return Err(StoreError::JournalBusy {
                    path: path.to_path_buf(),
                });
            }
            Err(e) => return Err(e.into()),
        }
    };
    if !mode.eq_ignore_ascii_case(want) {
        return Err(StoreError::JournalBusy {
            path: path.to_path_buf(),
        });
    }
    conn.pragma_update(None, "journal_size_limit", JOURNAL_SIZE_LIMIT)?;
    if journal == Journal::Wal {
        conn.pragma_update(None, "wal_autocheckpoint", 200)?;
    }
    Ok(())
}

/// A read-only connection to an existing file of ours. In rollback mode it takes SQLite's
/// shared lock like any reader (consistent while servers write; a read-only mount is fine).
/// A file still in WAL mode with no `-wal` beside it is opened `immutable`, which needs no
/// `-shm` file either. A hot journal (a server killed in the middle of a commit) must be
/// rolled back before the file can be read: that is done by a short read-write open when
/// the file is writable, as any start of a server would.
fn connect_read_only(path: &Path) -> Result<Connection, StoreError> {
    let named = |source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    };
    let conn = open_for_inspection(path).map_err(named)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.set_prepared_statement_cache_capacity(128);
    let probe = conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
        r.get::<_, i64>(0)
    });
    match probe {
        Ok(_) => Ok(conn),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) => {
            drop(conn);
            log::info!(
                "{} holds an interrupted write (a server was stopped mid-commit); rolling it back",
                path.display()
            );
            let rw = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(named)?;
            rw.busy_timeout(BUSY_TIMEOUT)?;
            rw.query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_err(named)?;
            drop(rw);
            let conn = open_for_inspection(path).map_err(named)?;
            conn.busy_timeout(BUSY_TIMEOUT)?;
            Ok(conn)
        }
        Err(e) => Err(named(e)),
    }
}

pub(super) fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
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

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

/// The checks that must pass before anything may be written to an existing file. `busy` is
/// how long the read-only look waits for another process's lock.
///
/// A refusal is confirmed by looking again a few times over ~300 ms before it stands: the
/// file may be one that another server is initialising at this very moment, and a read that
/// takes no lock (see [`open_for_inspection`]) can catch it half-written. Our own file
/// settles within milliseconds; a foreign or newer file gives the same verdict every time.
fn inspect(path: &Path, busy: Duration) -> Result<Found, StoreError> {
    const LOOKS: u64 = 6;
    let mut look = 1;
    loop {
        match inspect_once(path, busy) {
            Err(
                e @ (StoreError::NotSqlite { .. }
                | StoreError::Foreign { .. }
                | StoreError::Newer { .. }),
            ) if look < LOOKS => {
                log::debug!(
                    "inspection of {} refused ({e}); looking again",
                    path.display()
                );
                std::thread::sleep(Duration::from_millis(20 * look));
                look += 1;
            }
            other => return other,
        }
    }
}

/// One look: the header bytes, then (unless they show our own file) the inside through a
/// read-only connection.
fn inspect_once(path: &Path, busy: Duration) -> Result<Found, StoreError> {
    let not_sqlite = |detail: String| StoreError::NotSqlite {
        path: path.to_path_buf(),
        detail,
    };
    let mut header = Vec::with_capacity(100);
    let file_len = std::fs::File::open(path)
        .and_then(|f| {
            let len = f.metadata()?.len();
            f.take(100).read_to_end(&mut header)?;
            Ok(len)
        })
        .map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if header.is_empty() {
        return Ok(Found::Fresh);
    }
    if header.len() < 100 || !header.starts_with(b"SQLite format 3\0") {
        return Err(not_sqlite("no SQLite header".into()));
    }
    if let Some(version) = ours_by_header(&header, file_len) {
        return Ok(Found::Ours(version));
    }
    let ro = open_for_inspection(path).map_err(|e| not_sqlite(e.to_string()))?;
    ro.busy_timeout(busy)?;
    // One read transaction for the three reads: as separate statements each saw its own
    // snapshot, so a server starting while another initialised the file could read
    // application_id 0 before that server's migration committed and its tables after, and
    // refuse our own file as foreign.
    let look = || -> rusqlite::Result<(i64, i64, i64)> {
        let tx = ro.unchecked_transaction()?;
        let app: i64 = tx.pragma_query_value(None, "application_id", |r| r.get(0))?;
        let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let tables: i64 = tx.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
        Ok((app, version, tables))
    };
    let look = look().map_err(|e| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            StoreError::Sqlite(e)
        }
        Some(rusqlite::ErrorCode::ReadOnly) => StoreError::Sqlite(e),
        _ => not_sqlite(e.to_string()),
    });
    let (app, version, tables) = match look {
        Ok(found) => found,
        // A hot journal (a server killed in the middle of a commit) that a read-only
        // connection may not roll back. When the header names our application, the file is
        // ours: the writing connection rolls the interrupted commit back, as SQLite does at
        // any open, and the migration reads the numbers again under the write lock. Any other
        // file is not rolled back by us.
        Err(StoreError::Sqlite(e))
            if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly) =>
        {
            match header_numbers(&header) {
                // A newer version's file is refused before anything rolls its journal back.
                Some((APPLICATION_ID, found)) if found > SCHEMA_VERSION => {
                    return Err(StoreError::Newer {
                        path: path.to_path_buf(),
                        found,
                        supported: SCHEMA_VERSION,
                    });
                }
                Some((APPLICATION_ID, version)) => return Ok(Found::Ours(version)),
                _ => return Err(not_sqlite(e.to_string())),
            }
        }
        Err(e) => return Err(e),
    };
    schema::classify(path, app, version, tables)
}

/// The fast path of an inspection: the schema version when the file's 100-byte header alone
/// shows it is ours, at a version this build knows, and whole.
///
/// Opening a connection only to read these two numbers parses the whole schema, a quarter of
/// the instructions of a cold start; the real connection parses it again anyway. Only this
/// positive verdict may skip the read-only look. In WAL mode (a file 0.1 wrote) the main
/// file's header can be older than the database: that is safe because [`schema::migrate`]
/// reads both numbers again under the write lock and refuses before writing. In rollback
/// mode the header is the truth. Anything else (another id, a newer version, a header whose
/// page count disagrees with the file's length, as in a truncated copy) falls through to the
/// full inspection.
pub(super) fn ours_by_header(header: &[u8], file_len: u64) -> Option<i64> {
    let be32 = |at: usize| -> Option<u32> {
        let b: [u8; 4] = header.get(at..at + 4)?.try_into().ok()?;
        Some(u32::from_be_bytes(b))
    };
    let (app, version) = header_numbers(header)?;
    if app != APPLICATION_ID || !(1..=SCHEMA_VERSION).contains(&version) {
        return None;
    }
    // The page size: a power of two from 512 to 32768, or 1 meaning 65536.
    let page_size = match u16::from_be_bytes(header.get(16..18)?.try_into().ok()?) {
        1 => 65536,
        n if n >= 512 && n.is_power_of_two() => u64::from(n),
        _ => return None,
    };
    // The in-header page count is valid only when the change counter (offset 24) matches
    // "version valid for" (offset 92); SQLite then trusts it, and a file shorter than it
    // says is corrupt.
    let pages = u64::from(be32(28)?);
    if pages == 0 || be32(24)? != be32(92)? || pages.checked_mul(page_size)? != file_len {
        return None;
    }
    Some(version)
}

/// The application id and schema version in a database header (offsets 68 and 60: signed
/// 32-bit integers, as the pragmas return them).
fn header_numbers(header: &[u8]) -> Option<(i64, i64)> {
    let be32 = |at: usize| -> Option<i32> {
        let b: [u8; 4] = header.get(at..at + 4)?.try_into().ok()?;
        Some(i32::from_be_bytes(b))
    };
    Some((i64::from(be32(68)?), i64::from(be32(60)?)))
}

/// A read-only connection that creates no file. A file in WAL mode without a `-wal` file has
/// no writer and the main file is all there is, so it is opened `immutable` (a plain
/// read-only open of a WAL-mode file would create `-wal` and `-shm` files next to a file we
/// may be about to refuse). Otherwise a plain read-only open sees what writers committed.
/// `path` is absolute, so SQLite never reads it as a URI.
fn open_for_inspection(path: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if is_wal_mode(path) && !file::companion(path, "-wal").exists() {
        let uri = std::path::absolute(path)
            .ok()
            .and_then(|p| url::Url::from_file_path(p).ok());
        if let Some(mut uri) = uri {
            uri.set_query(Some("mode=ro&immutable=1"));
            return Connection::open_with_flags(uri.as_str(), flags | OpenFlags::SQLITE_OPEN_URI);
        }
    }
    Connection::open_with_flags(path, flags)
}

/// Whether the file's header says WAL mode (its read and write versions are 2), or the file
/// cannot be read (then the careful `immutable` open is taken).
fn is_wal_mode(path: &Path) -> bool {
    let mut header = [0u8; 20];
    match std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut header)) {
        Ok(()) => header[18] == 2 || header[19] == 2,
        Err(_) => true,
    }
}
