//! The read-only open of `export`, `check` and `backup`: the file itself through a
//! connection that never writes, or, for a file of an older schema version, an upgraded copy
//! in a private temporary directory.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::file;
use super::inspect::{Found, inspect, open_for_inspection};
use super::{BUSY_TIMEOUT, SCHEMA_VERSION, Store, StoreError};

impl Store {
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

    /// [`Store::open_read_only`], but a file of an older schema version as it is, not
    /// upgraded: what `backup` copies, so that the copy of an older file is of its version
    /// (the build that wrote it still opens it; this one upgrades it as it would the file).
    pub fn open_read_only_as_it_is(path: &Path) -> Result<Store, StoreError> {
        Store::read_only_in_place(path).map(|(_, _, store)| store)
    }

    /// [`Store::open_read_only`] without its word in the log for a file of an older
    /// version: `backup` checks its copy of such a file so (a private temporary file the
    /// log would name as if it were the database).
    pub fn open_read_only_quietly(path: &Path) -> Result<Store, StoreError> {
        let (_, version, store) = Store::read_only_in_place(path)?;
        if version < SCHEMA_VERSION {
            return store.private_copy_quiet();
        }
        Ok(store)
    }

    /// A read-only store over the existing file itself (absolute path, schema version as
    /// inspected): the first step of every read-only command.
    pub(super) fn read_only_in_place(path: &Path) -> Result<(PathBuf, i64, Store), StoreError> {
        let path = file::database_path(path)?;
        let meta = std::fs::metadata(&path).map_err(StoreError::io(&path))?;
        if !meta.is_file() {
            file::check_kind(&path, &meta)?;
        }
        let version = match inspect(&path, BUSY_TIMEOUT)? {
            Found::Fresh => return Err(StoreError::Empty { path }),
            Found::Ours(v) => v,
        };
        let store = match connect_read_only(&path) {
            Ok(conn) => Store::over(Some(conn), None),
            // A log without its index in a directory this process cannot write: SQLite
            // cannot read the log in place, and no writer can be using it (a writer keeps
            // the index). Read a private copy of both instead.
            // Not when another process holds the file locked (SQLite's exclusive locking mode
            // keeps its index in memory, so its log has none on disk): copying the files it is
            // writing could read them torn. That is the lock, and it is said so.
            Err(e) if log_without_index(&path) && !e.is_locked() => {
                log::debug!(
                    "{}: {e}; reading a private copy with its log",
                    path.display()
                );
                Store::log_copy(&path)?
            }
            // A hot journal (a server of the rollback-journal version stopped mid-commit)
            // that this process may not roll back in place: a read-only directory or mount.
            // SQLite found no writer holding it (else it is not hot), so a private copy of
            // both, rolled back there, is the file as it was before the interrupted write.
            Err(e) if hot_journal(&path) && !e.is_locked() => {
                log::debug!("{}: {e}", path.display());
                log::info!(
                    "{} holds an interrupted write this process cannot roll back in place: reading a private copy rolled back",
                    path.display()
                );
                Store::journal_copy(&path)?
            }
            Err(e) => return Err(e),
        };
        Ok((path, version, store))
    }

    /// A copy of the file at `path` and the `-wal` beside it in a private temporary
    /// directory, the log applied to the copy: how a read-only command reads a log left
    /// without its `-shm` in a directory it cannot write. The directory is removed when the
    /// store is dropped.
    fn log_copy(path: &Path) -> Result<Store, StoreError> {
        in_private_dir(|dir, copy| {
            let io = StoreError::io(dir);
            copy_private(path, copy).map_err(io)?;
            copy_private(
                &file::companion(path, "-wal"),
                &file::companion(copy, "-wal"),
            )
            .map_err(io)?;
            let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let conn = Connection::open_with_flags(copy, flags)?;
            conn.busy_timeout(BUSY_TIMEOUT)?;
            conn.set_prepared_statement_cache_capacity(128);
            super::open::truncate_wal(&conn)?;
            conn.pragma_update(None, "query_only", true)?;
            Ok(Store::over(Some(conn), None))
        })
    }

    /// A copy of the file at `path` and its hot `-journal` in a private temporary directory,
    /// the interrupted write rolled back in the copy: how a read-only command reads a file a
    /// killed server of the rollback-journal version left where it cannot write. The
    /// directory is removed when the store is dropped.
    fn journal_copy(path: &Path) -> Result<Store, StoreError> {
        in_private_dir(|dir, copy| {
            let io = StoreError::io(dir);
            copy_private(path, copy).map_err(io)?;
            copy_private(
                &file::companion(path, "-journal"),
                &file::companion(copy, "-journal"),
            )
            .map_err(io)?;
            let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let conn = Connection::open_with_flags(copy, flags)?;
            conn.busy_timeout(BUSY_TIMEOUT)?;
            conn.set_prepared_statement_cache_capacity(128);
            // The first read rolls the journal back.
            conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
                r.get::<_, i64>(0)
            })
            .map_err(|e| StoreError::opening(path, e))?;
            conn.pragma_update(None, "query_only", true)?;
            Ok(Store::over(Some(conn), None))
        })
    }

    /// A copy of the file at `path` in a private temporary directory, upgraded to this
    /// build's schema: how the read-only commands read a file of an older version without
    /// writing to it. The directory is removed when the store is dropped.
    fn private_copy(self, path: &Path) -> Result<Store, StoreError> {
        let made = self.private_copy_quiet()?;
        log::info!(
            "{} has an older schema version: reading an upgraded private copy; the file itself is upgraded at the next start of a server",
            path.display()
        );
        Ok(made)
    }

    /// [`Store::private_copy`] without its word in the log (`sync --dry-run` works on such a
    /// copy whatever the file's version).
    pub(super) fn private_copy_quiet(mut self) -> Result<Store, StoreError> {
        in_private_dir(|_, copy| {
            self.backup_into(copy)?;
            drop(self);
            super::open::upgrade_quietly(copy)?;
            Store::open(copy)
        })
    }
}

/// The store `make` makes of `copy.db` in a new private temporary directory (given both),
/// which is removed when that store is dropped, or at once when `make` fails. Copies that
/// killed commands left are removed first (see [`remove_abandoned`]).
/// A failure to make the directory or to write the copy in it (a full or missing `TMPDIR`)
/// says so and names the temporary directory, not the database, which is not changed.
fn in_private_dir(
    make: impl FnOnce(&Path, &Path) -> Result<Store, StoreError>,
) -> Result<Store, StoreError> {
    let root = temp_root();
    let private = |detail: String| StoreError::PrivateCopy {
        root: root.clone(),
        detail,
    };
    let dir = PrivateDir::create(&root).map_err(|e| private(e.to_string()))?;
    remove_abandoned(&root, &dir.path);
    match make(&dir.path, &dir.path.join("copy.db")) {
        Ok(mut store) => {
            store.temp_dir = Some(dir);
            Ok(store)
        }
        Err(e) => {
            let path = dir.path.clone();
            drop(dir);
            Err(match e {
                StoreError::Io { path: p, source } if p == path => private(source.to_string()),
                e if copy_space_ran_out(&e) => private("no space left on device".into()),
                e => e,
            })
        }
    }
}

/// A private temporary directory, removed when dropped. It holds a file `lock`, locked
/// (`flock`) for as long as this lives, so that the command that made it can be told alive
/// from killed: the system drops a killed process's lock, and the next private copy removes
/// a directory whose lock it can take.
pub(super) struct PrivateDir {
    pub(super) path: PathBuf,
    _lock: std::fs::File,
}

/// The prefix of a private directory's name in the temporary directory.
const PRIVATE_PREFIX: &str = "review-mcp-upgrade-";

impl PrivateDir {
    /// Made under another name, its lock taken, then renamed: a directory of the private
    /// name is locked from the moment it exists until its command ends. (Elsewhere than on
    /// Unix, where a directory holding an open file may not be renamed and nothing removes
    /// abandoned copies, it is made under its name.)
    fn create(root: &Path) -> std::io::Result<PrivateDir> {
        let path = private_dir_name(root, PRIVATE_PREFIX);
        let making = if cfg!(unix) {
            private_dir_name(root, ".review-mcp-making-")
        } else {
            path.clone()
        };
        create_private_dir(&making)?;
        let locked = new_private_file(&making.join("lock")).and_then(|f| {
            // A file system without locks: then no other command can take it either, and
            // this copy is never taken for abandoned.
            if let Err(e) = f.lock() {
                log::debug!("locking {}: {e}", making.display());
            }
            if making != path {
                std::fs::rename(&making, &path)?;
            }
            Ok(f)
        });
        match locked {
            Ok(lock) => Ok(PrivateDir { path, _lock: lock }),
            Err(e) => {
                let _ = std::fs::remove_dir_all(&making);
                Err(e)
            }
        }
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Removes the private directories in `root` that commands of this user were killed
/// reading (kill -9, a host's timeout, Ctrl-C): those whose `lock` nobody holds. A
/// directory of another user, one without a lock (made by an older build), a symbolic link
/// and this command's own `mine` are left alone. Best effort: what cannot be looked at or
/// removed stays.
fn remove_abandoned(root: &Path, mine: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let Ok(own) = std::fs::symlink_metadata(mine) else {
            return;
        };
        let Ok(entries) = std::fs::read_dir(root) else {
            return;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let ours = entry
                .file_name()
                .to_string_lossy()
                .starts_with(PRIVATE_PREFIX)
                && path != mine
                && std::fs::symlink_metadata(&path)
                    .is_ok_and(|m| m.is_dir() && m.uid() == own.uid());
            if !ours {
                continue;
            }
            let abandoned =
                std::fs::File::open(path.join("lock")).is_ok_and(|f| f.try_lock().is_ok());
            if abandoned {
                log::info!(
                    "removing {}, a private copy a killed review-mcp command left",
                    path.display()
                );
                let _ = std::fs::remove_dir_all(&path);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (root, mine);
}

/// Whether SQLite ran out of room writing the copy (its disk or quota is full).
fn copy_space_ran_out(e: &StoreError) -> bool {
    let source = match e {
        StoreError::Sqlite(s) | StoreError::Open { source: s, .. } => s,
        _ => return false,
    };
    source.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull)
}

/// The directory the private copies are made in: `TMPDIR`, or `/tmp` when it is unset or
/// set empty (which `std::env::temp_dir` would take for the current directory).
fn temp_root() -> PathBuf {
    let root = std::env::temp_dir();
    if root.as_os_str().is_empty() {
        return PathBuf::from("/tmp");
    }
    root
}

/// A read-only connection to an existing file of ours. A `-wal` left beside it (a process
/// stopped between an answer and its checkpoint) is applied first when the file can be
/// written (see [`apply_left_wal`]). In WAL mode the reader then sees what writers committed
/// without blocking them, through the `-wal` and `-shm` they keep; a file in WAL mode with no
/// `-wal` beside it has no writer and is opened `immutable`, which creates no file (a
/// read-only directory or mount is fine). In rollback mode (a file of the previous version)
/// it takes SQLite's shared lock like any reader. A hot journal (a server of the previous
/// version killed in the middle of a commit) must be rolled back before the file can be
/// read: that is done by a short read-write open when the file is writable, as any start of
/// a server would.
fn connect_read_only(path: &Path) -> Result<Connection, StoreError> {
    let named = |source| StoreError::opening(path, source);
    apply_left_wal(path);
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

/// When a `-wal` is beside the file and the file can be written: opens it for writing a
/// moment, checkpoints the log into the file (without waiting: a server writing right now
/// checkpoints its own log), and closes, which removes the `-wal` and `-shm` when no other
/// connection has the file open. So a read-only command reads, and leaves, a file that
/// holds everything on its own. Best effort: when it cannot, the reader still sees the
/// log's commits through it.
fn apply_left_wal(path: &Path) {
    let wal = file::companion(path, "-wal");
    let Ok(meta) = std::fs::metadata(&wal) else {
        return;
    };
    if std::fs::OpenOptions::new().write(true).open(path).is_err() {
        return;
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    // No wait for a lock (rusqlite's default is 5 s): a `TRUNCATE` checkpoint waits for every
    // writer and every reader of the log, and a database browser holding a snapshot would
    // hold up each read-only command that long for a log a server empties anyway.
    let applied = Connection::open_with_flags(path, flags)
        .and_then(|conn| conn.busy_timeout(std::time::Duration::ZERO).map(|()| conn))
        .map_err(StoreError::from)
        .and_then(|conn| super::open::truncate_wal(&conn).map(|busy| (conn, busy)));
    match applied {
        Ok((conn, busy)) => {
            if meta.len() > 0 && !busy {
                // Said of what was done, not why: the log may be a running server's, or one
                // a stopped server left.
                log::info!(
                    "{}: copied its write-ahead log ({} bytes) into the file",
                    path.display(),
                    meta.len()
                );
            }
            drop(conn);
        }
        Err(e) => log::debug!("applying the log beside {}: {e}", path.display()),
    }
}

/// A new name for a private temporary directory.
fn private_dir_name(root: &Path, prefix: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    root.join(format!("{prefix}{}-{nanos}", std::process::id()))
}

/// Whether a rollback journal beside the file holds an interrupted write: its header
/// starts with the journal's magic number (a committed `PERSIST` journal has it zeroed, a
/// `DELETE` one is gone).
fn hot_journal(path: &Path) -> bool {
    use std::io::Read;
    const MAGIC: [u8; 8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
    let mut head = [0u8; 8];
    std::fs::File::open(file::companion(path, "-journal"))
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == MAGIC)
}

/// Whether a `-wal` lies beside the file without the `-shm` index SQLite needs to read it.
fn log_without_index(path: &Path) -> bool {
    file::companion(path, "-wal").exists() && !file::companion(path, "-shm").exists()
}

/// Copies `from` to the new file `to`, readable and writable by this process's user alone
/// whatever `from`'s mode: SQLite must write the copy (apply its log, roll its journal back),
/// which a copy keeping a write-protected file's mode 444 refuses, and the review it holds is
/// no one else's to read.
fn copy_private(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut source = std::fs::File::open(from)?;
    let mut target = new_private_file(to)?;
    std::io::copy(&mut source, &mut target)?;
    Ok(())
}

/// A new file at `to` (never one already there), readable and writable by its owner alone.
fn new_private_file(to: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(to)
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
