//! The store's one error type: what went wrong opening or using the database, its message,
//! and the shorter message a tool result shows.

use std::path::{Path, PathBuf};

use super::BUSY_TIMEOUT;
use super::file::FileChange;

/// A failure to open or use the database.
#[derive(Debug)]
pub enum StoreError {
    /// The file is not an SQLite database (random bytes, truncated, another format).
    NotSqlite {
        path: PathBuf,
        detail: String,
    },
    /// An SQLite database that belongs to another application.
    Foreign {
        path: PathBuf,
        application_id: i64,
    },
    /// Written by a newer review-mcp whose schema this build does not know.
    Newer {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// The `-wal` beside the file holds another file's first page (the file was replaced
    /// after a server that had it open was stopped): see `left_log.rs`.
    ForeignLog {
        path: PathBuf,
    },
    /// The file or its directory could not be created or read.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The database file (or a directory above it) cannot be created where the path says,
    /// or the path cannot be looked at (a parent that is a file, one this user cannot search).
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Data offered for import that breaks a rule.
    Invalid(String),
    /// SQLite could not open the file for writing, or prepare it (WAL, schema).
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    Sqlite(rusqlite::Error),
    /// SQLite found the file damaged while opening it ("database disk image is malformed").
    Damaged {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The path is not a regular file (a FIFO, a device, a directory).
    NotAFile {
        path: PathBuf,
        kind: &'static str,
    },
    /// A companion file SQLite must open beside the database (the suffix) is not a regular
    /// file (a FIFO, a directory, a symbolic link).
    CompanionNotAFile {
        path: PathBuf,
        suffix: &'static str,
        kind: &'static str,
    },
    /// The file has more than one name.
    HardLinked {
        path: PathBuf,
        links: u64,
    },
    /// The path no longer names the file this server opened.
    FileChanged {
        path: PathBuf,
        change: FileChange,
    },
    /// An existing file that cannot be opened for writing.
    ReadOnlyFile {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Another process held the lock for as long as the statement waited: the busy timeout,
    /// or nothing at all for a look that does not wait (see `open::without_waiting`).
    Locked {
        path: PathBuf,
        waited: std::time::Duration,
    },
    /// The file's journal mode cannot be set: switching a file of the previous version from
    /// its rollback journal to WAL needs a moment when no other process reads or writes it.
    JournalBusy {
        path: PathBuf,
    },
    /// The private copy a read-only command reads (of a file of an older schema version, or
    /// of one it cannot read in place) could not be made in the temporary directory `root`.
    PrivateCopy {
        root: PathBuf,
        detail: String,
    },
    /// A read-only command on a file no server has written yet.
    Empty {
        path: PathBuf,
    },
    /// A write SQLite could not make while this process has a file-size limit (`ulimit -f`,
    /// `RLIMIT_FSIZE`): the write past it failed with `EFBIG` (the binary ignores `SIGXFSZ`,
    /// which would have killed it). `limit` in bytes.
    FileSizeLimit {
        path: PathBuf,
        limit: u64,
        source: rusqlite::Error,
    },
    /// A query on a store whose connection is gone (a bug).
    NotOpen,
}

/// Who may hold the database locked, and what to do: said by every message of a lock that
/// outlasted the wait.
const LOCK_HOLDERS: &str = "another program holds it locked (a `sqlite3` shell or a database browser with unsaved changes or a write transaction open, a program in exclusive locking mode, a `review-mcp import` or `sync` still running, a review-mcp process stopped mid-write by Ctrl-Z or a debugger); try again once it has finished, or close it (`fg` or kill one that was stopped)";

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::NotSqlite { path, detail } => write!(
                f,
                "{} is not a review-mcp database (not SQLite, or truncated: {detail}); it was left untouched. Point REVIEW_MCP_DB_PATH or --db at another file, or move this one away",
                path.display()
            ),
            StoreError::Foreign {
                path,
                application_id,
            } => write!(
                f,
                "{} is an SQLite database of another application (application_id {application_id:#010x}); it was left untouched. Point REVIEW_MCP_DB_PATH or --db at another file",
                path.display()
            ),
            StoreError::Newer {
                path,
                found,
                supported,
            } => write!(
                f,
                "{} was written by a newer review-mcp (schema version {found}; this build knows up to {supported}); it was left untouched. Upgrade review-mcp, or point REVIEW_MCP_DB_PATH or --db at another file",
                path.display()
            ),
            StoreError::ForeignLog { path } => {
                let wal = super::file::companion(path, "-wal");
                let shm = super::file::companion(path, "-shm");
                write!(
                    f,
                    "{} holds a log that is not {}'s: the file was replaced (a backup restored, a copy put over it) after a server using it was stopped, and SQLite would apply the old file's first page to it, damaging it; nothing was opened or changed. If {} is the file you want, stop every review-mcp using it, move {} and {} away, and start again; otherwise put the original file back",
                    wal.display(),
                    path.display(),
                    path.display(),
                    wal.display(),
                    shm.display()
                )
            }
            StoreError::Io { path, source } => {
                write!(f, "cannot open {}: {source}", path.display())?;
                if source.kind() == std::io::ErrorKind::PermissionDenied {
                    f.write_str(
                        "; check the permissions of the file and of the directories above it (this process's user must be able to read it, and to write it to serve)",
                    )
                } else {
                    f.write_str("; check the path")
                }
            }
            StoreError::Create { path, source } => write!(
                f,
                "cannot create the database {} ({source}); nothing was created or changed. Point REVIEW_MCP_DB_PATH or --db at a file in a directory this user can write, by its absolute path (without one the file is ./review-mcp.db in the directory the host started the server in, which may not be writable, such as /)",
                path.display()
            ),
            StoreError::Invalid(m) => f.write_str(m),
            StoreError::Open { path, source } => write!(
                f,
                "cannot open {} for reading and writing ({source}); check that the file and its directory are writable and the disk is not full",
                path.display()
            ),
            StoreError::Sqlite(e) => write!(f, "database error: {e}"),
            StoreError::Damaged { path, source } => {
                f.write_str(&damaged_message(Some(path), source))
            }
            StoreError::NotAFile { path, kind } => write!(
                f,
                "{} is {kind}, not a database file; nothing was created or changed. Point REVIEW_MCP_DB_PATH or --db at a regular file (or a path where one may be created)",
                path.display()
            ),
            StoreError::CompanionNotAFile { path, suffix, kind } => write!(
                f,
                "{}{suffix}, where SQLite keeps {} of {}, is {kind}, not a file SQLite can use; nothing was read or written. Move it away (review-mcp never makes one) and start again",
                path.display(),
                match *suffix {
                    "-wal" => "the write-ahead log",
                    "-shm" => "the log's shared index",
                    _ => "the rollback journal",
                },
                path.display()
            ),
            StoreError::HardLinked { path, links } => write!(
                f,
                "{} has {links} hard links (names); SQLite would keep a separate log (`-wal` and `-shm`) for each name and a crash could damage the file. Keep one name (remove the other links, or copy the file with `review-mcp backup`) and start again",
                path.display()
            ),
            StoreError::FileChanged {
                path,
                change: FileChange::Companion(suffix),
            } => write!(
                f,
                "{}{suffix}, the write-ahead log this server holds open beside {}, was deleted or replaced while the server was running (a cleanup script?); nothing more is read or written, so that no write goes into a log nobody else can see. Restart the server (reconnect it in your MCP host)",
                path.display(),
                path.display()
            ),
            StoreError::FileChanged {
                path,
                change: FileChange::LogTruncated(now, in_use),
            } => write!(
                f,
                "{}-wal, the write-ahead log this server holds open beside {}, was truncated while the server was running ({now} bytes now, {in_use} in use: a cleanup script, `: > file`?); nothing more is read or written, so that nothing is written after the cut or copied from it into the file. Restart the server (reconnect it in your MCP host; every server on the file, if several), then run {}",
                path.display(),
                path.display(),
                check_command(path)
            ),
            StoreError::FileChanged {
                path,
                change: FileChange::Truncated(now, before),
            } => write!(
                f,
                "{} was truncated while this server was running ({now} bytes now, {before} before: another program wrote over it in place, such as `: > file` or a file copied onto it); nothing more is read or written, so that no write is answered into a damaged file. Stop the servers, run {}, put your last good copy in its place if it reports damage (a `review-mcp backup` file, or an export imported into a new file), and restart the server",
                path.display(),
                check_command(path)
            ),
            StoreError::FileChanged { path, change } => {
                let what = match change {
                    FileChange::Deleted => {
                        "was deleted or moved away (its directory renamed, say): the path names no file now".to_string()
                    }
                    FileChange::Replaced => {
                        "was replaced by another file (a restored backup, `git checkout`, a sync client)".to_string()
                    }
                    FileChange::Moved => {
                        "was moved, and a symbolic link to it left at its path (SQLite keeps the -wal and -shm beside the file a link names, so a server started now would use others than this one's)".to_string()
                    }
                    FileChange::Linked(n) => format!("gained a second name ({n} hard links)"),
                    FileChange::Companion(suffix) => format!("lost its {suffix} file"),
                    FileChange::Truncated(..) => "was truncated".to_string(),
                    FileChange::LogTruncated(..) => "had its -wal file truncated".to_string(),
                };
                write!(
                    f,
                    "{} {what} while this server was running; nothing was read or written, so that no write goes into a file nobody can see. Restart the server (reconnect it in your MCP host) to use the file the path names now",
                    path.display()
                )?;
                // The file it had open is gone from the folder but not yet from the disk:
                // said while this server can still hand it over.
                if matches!(change, FileChange::Deleted | FileChange::Replaced)
                    && let Some(copy) = super::file::held_open_copy(path)
                {
                    let mut rescued = path.as_os_str().to_owned();
                    rescued.push(".recovered");
                    let rescued = command_path(Path::new(&rescued));
                    // The process id is this server's own: from outside its PID namespace (a
                    // container) the same path names another process, so the copy is checked.
                    write!(
                        f,
                        ". Before you do, if the file it had open holds writes you want (deleted by mistake, or replaced by an older copy), copy it out while this server still holds it open: {}, then {} (the number is this server's process as it sees itself: run the copy where it runs). Then stop the servers and move that file into place, or import its `review-mcp --db FILE export` into the new one",
                        crate::text::code_span(&format!("cp {} {rescued}", command_path(&copy))),
                        crate::text::code_span(&format!("review-mcp --db {rescued} check")),
                    )?;
                }
                Ok(())
            }
            StoreError::ReadOnlyFile { path, source } => write!(
                f,
                "cannot open {} for writing ({source}); a server needs it writable: check the file's permissions and attributes (lsattr) and that its file system is mounted read-write. `review-mcp export`, `check` and `backup` work on a read-only file",
                path.display()
            ),
            StoreError::Locked { path, waited } if waited.is_zero() => write!(
                f,
                "{} was locked by another process (a write in progress, or a program holding it locked), and this look does not wait for it: the next one tries again",
                path.display()
            ),
            StoreError::Locked { path, waited } => write!(
                f,
                "{} stayed locked by another process for more than {} ms: {LOCK_HOLDERS}",
                path.display(),
                waited.as_millis()
            ),
            StoreError::JournalBusy { path } => write!(
                f,
                "{} could not be switched to the write-ahead log (WAL) within the busy timeout: another process kept it busy (an older review-mcp, or another program reading it). Stop the other programs using the file, then try again",
                path.display()
            ),
            StoreError::Empty { path } => write!(
                f,
                "{} is empty: nothing has been written to it yet (a server, or the first `import` or `sync`, makes it a database at its first write; one stopped before that leaves it empty, with nothing lost); point --db or REVIEW_MCP_DB_PATH at the file your servers use, or run that import or sync again",
                path.display()
            ),
            StoreError::PrivateCopy { root, detail } => write!(
                f,
                "cannot make the private copy of the database this command reads in the temporary directory {} ({detail}); the database itself was not changed. Point TMPDIR at a directory this user can write with room for two copies of the database",
                root.display()
            ),
            StoreError::FileSizeLimit { path, limit, .. } => {
                f.write_str(&file_size_limit_message(Some(path), *limit))
            }
            StoreError::NotOpen => f.write_str("the database connection is closed"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. }
            | StoreError::Create { source, .. }
            | StoreError::ReadOnlyFile { source, .. } => Some(source),
            StoreError::Open { source, .. }
            | StoreError::Damaged { source, .. }
            | StoreError::FileSizeLimit { source, .. }
            | StoreError::Sqlite(source) => Some(source),
            _ => None,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Sqlite(e)
    }
}

impl StoreError {
    /// SQLite's failure to open or prepare the file at `path`: [`StoreError::Damaged`] when
    /// it found the file damaged, the lock as it is (its message says the file is locked, not
    /// that it cannot be written), else [`StoreError::Open`].
    pub(super) fn opening(path: &Path, source: rusqlite::Error) -> StoreError {
        use rusqlite::ErrorCode::{DatabaseBusy, DatabaseCorrupt, DatabaseLocked, NotADatabase};
        let path = path.to_path_buf();
        match source.sqlite_error_code() {
            Some(DatabaseCorrupt | NotADatabase) => StoreError::Damaged { path, source },
            Some(DatabaseBusy | DatabaseLocked) => StoreError::Sqlite(source),
            _ => StoreError::Open { path, source },
        }
    }

    /// SQLite's finding that the file is damaged, met after the open (in a query or a
    /// commit), as [`StoreError::Damaged`] of the file at `path`, whose message gives the
    /// `check` command for that file: a bare `review-mcp check` run in the user's shell
    /// checks `./review-mcp.db`. Any other error (or no path: in memory) is returned as it is.
    ///
    /// A write that failed while this process has a file-size limit (`ulimit -f`) is
    /// [`StoreError::FileSizeLimit`]: SQLite reports the `EFBIG` of a write past it as a plain
    /// write error, which would otherwise be blamed on a read-only file or a failing disk.
    pub fn of_file(self, path: Option<&Path>) -> StoreError {
        match (self, path) {
            (StoreError::Sqlite(source), Some(path)) if is_damage(&source) => StoreError::Damaged {
                path: path.to_path_buf(),
                source,
            },
            (e @ (StoreError::Sqlite(_) | StoreError::Open { .. }), Some(path)) => {
                e.at_file_size_limit(path)
            }
            (other, _) => other,
        }
    }

    /// A write that failed under a file-size limit as [`StoreError::FileSizeLimit`] of `path`;
    /// anything else as it is.
    fn at_file_size_limit(self, path: &Path) -> StoreError {
        let limit = match &self {
            StoreError::Sqlite(s) | StoreError::Open { source: s, .. } if is_growth_failure(s) => {
                limit_met(super::file::file_size_limit(), Some(path))
            }
            _ => None,
        };
        match (self, limit) {
            (StoreError::Sqlite(source) | StoreError::Open { source, .. }, Some(limit)) => {
                StoreError::FileSizeLimit {
                    path: path.to_path_buf(),
                    limit,
                    source,
                }
            }
            (other, _) => other,
        }
    }

    /// The file-size limit (`ulimit -f`, bytes) of this process, when this is a write that
    /// failed while there is one (SQLite reports the `EFBIG` of a write past it as a plain
    /// write error).
    pub fn file_size_limit_met(&self) -> Option<u64> {
        match self {
            StoreError::Sqlite(s) if is_growth_failure(s) => {
                limit_met(super::file::file_size_limit(), None)
            }
            StoreError::Open { source, path } if is_growth_failure(source) => {
                limit_met(super::file::file_size_limit(), Some(path))
            }
            StoreError::FileSizeLimit { limit, .. } => Some(*limit),
            _ => None,
        }
    }

    /// SQLite's finding, when it found the file damaged after the open (the file not named).
    pub fn damage(&self) -> Option<String> {
        match self {
            StoreError::Sqlite(e) if is_damage(e) => Some(e.to_string()),
            _ => None,
        }
    }

    /// Whether another process's lock stopped it (SQLite's busy or locked): a look that does
    /// not wait meets one whenever another process writes.
    pub fn is_locked(&self) -> bool {
        match self {
            StoreError::Sqlite(e) => super::open::is_busy(e),
            StoreError::Locked { .. } => true,
            _ => false,
        }
    }

    /// Whether SQLite found the disk it was writing full.
    pub fn is_disk_full(&self) -> bool {
        matches!(self, StoreError::Sqlite(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull))
    }

    /// [`StoreError::Io`] of `path`, for `map_err`.
    pub(super) fn io(path: &Path) -> impl Fn(std::io::Error) -> StoreError + Copy + '_ {
        move |source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// A message for a tool result: what went wrong and what the user can do.
    pub fn user_message(&self) -> String {
        use rusqlite::ErrorCode as C;
        match self {
            StoreError::Sqlite(e) if is_growth_failure(e) => {
                if let Some(limit) = limit_met(super::file::file_size_limit(), None) {
                    return file_size_limit_message(None, limit);
                }
            }
            StoreError::Open { path, source } if is_growth_failure(source) => {
                if let Some(limit) = limit_met(super::file::file_size_limit(), Some(path)) {
                    return file_size_limit_message(Some(path), limit);
                }
            }
            _ => {}
        }
        if let StoreError::Sqlite(e) = self {
            match e.sqlite_error_code() {
                Some(C::DatabaseBusy | C::DatabaseLocked) => {
                    return format!(
                        "the database stayed locked by another process for more than {} ms: {LOCK_HOLDERS}",
                        BUSY_TIMEOUT.as_millis()
                    );
                }
                Some(C::DiskFull) => return "the disk is full; free space and try again".into(),
                Some(C::ReadOnly) if is_moved(e) => {
                    return "the database file was moved or replaced while this server was running; nothing was written. Restart the server (reconnect it in your MCP host) to use the file the path names now".into();
                }
                Some(C::ReadOnly) => {
                    return "the database file is read-only; check its permissions".into();
                }
                Some(C::SystemIoFailure) if is_write_failure(e) => {
                    return format!(
                        "the database file could not be written ({e}); the file or its directory may have become read-only, or the disk is failing. Reads still work"
                    );
                }
                Some(C::SystemIoFailure) => {
                    return format!("an I/O error occurred on the database file ({e})");
                }
                Some(C::DatabaseCorrupt | C::NotADatabase) => return damaged_message(None, e),
                _ => {}
            }
        }
        self.to_string()
    }
}

/// What to say of a damaged file: SQLite's `finding` and the `check` command for the file at
/// `path`, to copy as it is; without the path (not known where the damage was met), how to
/// give it, since a bare `review-mcp check` checks `./review-mcp.db`.
pub fn damaged_message(path: Option<&Path>, finding: &dyn std::fmt::Display) -> String {
    match path {
        Some(path) => format!(
            "{} is damaged ({finding}): run {}, and put your last good copy in its place (a `review-mcp backup` file, or an export imported into a new file)",
            path.display(),
            check_command(path)
        ),
        None => format!(
            "the database file is damaged ({finding}); run `review-mcp --db PATH check` with its path (the --db or REVIEW_MCP_DB_PATH it was opened with)"
        ),
    }
}

/// SQLite's finding that the file is damaged (or not a database at all).
fn is_damage(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
    matches!(e.sqlite_error_code(), Some(DatabaseCorrupt | NotADatabase))
}

/// SQLite's own notice that the file was renamed or unlinked under an open connection
/// (`SQLITE_READONLY_DBMOVED`), which refuses the write.
fn is_moved(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_READONLY_DBMOVED
    )
}

/// An I/O error while writing, as opposed to reading: SQLite says only "disk I/O error",
/// its extended code says which (a write refused by a read-only or immutable file is
/// `SQLITE_IOERR_WRITE`).
fn is_write_failure(e: &rusqlite::Error) -> bool {
    use rusqlite::ffi;
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _) if matches!(
            f.extended_code,
            ffi::SQLITE_IOERR_WRITE
                | ffi::SQLITE_IOERR_FSYNC
                | ffi::SQLITE_IOERR_DIR_FSYNC
                | ffi::SQLITE_IOERR_TRUNCATE
        )
    )
}

/// What to say of a write refused by the file-size limit `limit` (bytes) of this process, of
/// the database at `path` when known (with its size and its log's, which show the limit met).
fn file_size_limit_message(path: Option<&Path>, limit: u64) -> String {
    let sizes = match path {
        Some(path) => {
            let size = |suffix: &str| {
                std::fs::metadata(super::file::companion(path, suffix)).map_or(0, |m| m.len())
            };
            format!(
                "; {} is {} bytes, its log {} bytes",
                path.display(),
                size(""),
                size("-wal")
            )
        }
        None => String::new(),
    };
    format!(
        "the database file reached the file-size limit of this process (ulimit -f: {limit} bytes{sizes}): a write past it is refused. Raise or remove the limit where review-mcp is started (`ulimit -f unlimited` in the shell or script that starts it, or the host's setting) and start it again; nothing stored is lost, and reads still work"
    )
}

/// `limit` (the process's file-size limit, bytes) when a failed write of the database at
/// `path` can have met it: a write past it leaves the file it grew at the limit (the kernel
/// writes up to it, then refuses), less than the largest write SQLite makes (a log frame),
/// and a checkpoint grows the file by at most its log. Not when every file is far below it:
/// the write failed for another reason (a full disk while the `-shm` grows, a file system's
/// own maximum, an I/O error), which the message for that says. Without a path (in memory)
/// the limit is all there is to go by.
fn limit_met(limit: Option<u64>, path: Option<&Path>) -> Option<u64> {
    let limit = limit?;
    let Some(path) = path else {
        return Some(limit);
    };
    let size = |suffix: &str| {
        std::fs::metadata(super::file::companion(path, suffix)).map_or(0, |m| m.len())
    };
    let (db, wal) = (size(""), size("-wal"));
    let largest = [db, wal, size("-shm"), size("-journal")]
        .into_iter()
        .max()
        .unwrap_or(0);
    (largest.saturating_add(LARGEST_WRITE) > limit || db.saturating_add(wal) > limit)
        .then_some(limit)
}

/// The most bytes one write of SQLite puts in a file: a log frame of the largest page (64 KiB
/// and its 24-byte header).
const LARGEST_WRITE: u64 = 65_536 + 24;

/// A failed write that a file-size limit can cause (`EFBIG`, which SQLite does not name):
/// a write, a resize of the file, or of the log's index.
fn is_growth_failure(e: &rusqlite::Error) -> bool {
    use rusqlite::ffi;
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _) if matches!(
            f.extended_code,
            ffi::SQLITE_IOERR_WRITE | ffi::SQLITE_IOERR_TRUNCATE | ffi::SQLITE_IOERR_SHMSIZE
        )
    )
}

/// `path` as a word of a command the message tells its reader to run.
pub(super) fn command_path(path: &Path) -> String {
    crate::text::shell_word(&path.to_string_lossy())
}

/// `review-mcp --db PATH check` for the database at `path`, as a Markdown code span (these
/// messages reach the assistant in tool results): a backtick in the path cannot end it.
fn check_command(path: &Path) -> String {
    crate::text::code_span(&format!("review-mcp --db {} check", command_path(path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (found by adv5): any failed write while a file-size limit was set was
    /// blamed on that limit. On a full disk (a 400 KiB tmpfs, `ulimit -f 100000`), the open's
    /// `-shm` growth failed with ENOSPC (`SQLITE_IOERR_SHMSIZE`) and `export` said "the
    /// database file reached the file-size limit (ulimit -f: 51200000 bytes; … is 221184
    /// bytes, its log 0 bytes)" instead of the disk I/O error and its advice.
    #[test]
    fn a_failed_write_far_below_the_limit_is_not_blamed_on_it() {
        let dir = std::env::temp_dir().join(format!("review-mcp-limit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("r.db");
        std::fs::write(&db, vec![0u8; 221_184]).unwrap();
        assert_eq!(
            limit_met(Some(51_200_000), Some(&db)),
            None,
            "far below the limit"
        );
        // At the limit: the file itself, or its log.
        assert_eq!(limit_met(Some(221_184), Some(&db)), Some(221_184));
        std::fs::write(
            super::super::file::companion(&db, "-wal"),
            vec![0u8; 1_000_000],
        )
        .unwrap();
        assert_eq!(limit_met(Some(1_000_000), Some(&db)), Some(1_000_000));
        // A checkpoint that would grow the file past it (the log's pages in the file).
        assert_eq!(limit_met(Some(1_100_000), Some(&db)), Some(1_100_000));
        assert_eq!(limit_met(None, Some(&db)), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Regression (found by cliout): the `check` command a damaged or truncated file's
    /// message names was a code span of one backtick, so a backtick in the database's path
    /// ended it in the middle of the path.
    #[test]
    fn the_check_command_in_a_message_is_one_code_span_whatever_the_path() {
        let path = Path::new("/srv/a`b/r.db");
        let message = damaged_message(Some(path), &"malformed");
        assert!(
            message.contains("run ``review-mcp --db '/srv/a`b/r.db' check``,"),
            "{message}"
        );
        let truncated = StoreError::FileChanged {
            path: path.to_path_buf(),
            change: FileChange::Truncated(0, 4096),
        }
        .to_string();
        assert!(
            truncated.contains("run ``review-mcp --db '/srv/a`b/r.db' check``,"),
            "{truncated}"
        );
    }

    fn sqlite_error(code: std::ffi::c_int) -> StoreError {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            None,
        ))
    }

    #[test]
    fn a_refused_permission_says_what_to_check() {
        let e = StoreError::io(Path::new("/x/review.db"))(std::io::Error::from(
            std::io::ErrorKind::PermissionDenied,
        ));
        let m = e.user_message();
        assert!(
            m.contains("/x/review.db") && m.contains("check the permissions"),
            "{m}"
        );
        let e = StoreError::io(Path::new("/x/review.db"))(std::io::Error::from(
            std::io::ErrorKind::NotFound,
        ));
        assert!(!e.to_string().contains("permissions"));
    }

    /// A command in a message is copied into a shell as it is: a path with a space, a `;` or
    /// a `$(…)` is one quoted word there, not a broken command or another one.
    #[test]
    fn a_command_in_a_message_quotes_the_path() {
        let path = PathBuf::from("/home/me/My Reviews/it's;$(x).db");
        let quoted = "'/home/me/My Reviews/it'\\''s;$(x).db'";
        let damaged = StoreError::Damaged {
            path: path.clone(),
            source: rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                None,
            ),
        };
        let truncated = StoreError::FileChanged {
            path,
            change: FileChange::Truncated(0, 4096),
        };
        for e in [damaged, truncated] {
            let m = e.to_string();
            assert!(
                m.contains(&format!("`review-mcp --db {quoted} check`")),
                "{m}"
            );
        }
    }

    #[test]
    fn user_message_names_the_storage_condition() {
        let busy = sqlite_error(rusqlite::ffi::SQLITE_BUSY).user_message();
        assert!(
            busy.contains("locked") && busy.contains("5000 ms"),
            "{busy}"
        );
        let full = sqlite_error(rusqlite::ffi::SQLITE_FULL).user_message();
        assert!(full.contains("disk is full"), "{full}");
        let ro = sqlite_error(rusqlite::ffi::SQLITE_READONLY).user_message();
        assert!(ro.contains("read-only"), "{ro}");
        let io = sqlite_error(rusqlite::ffi::SQLITE_IOERR).user_message();
        assert!(io.contains("I/O error"), "{io}");
    }
}
