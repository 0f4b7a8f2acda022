//! Inspecting a file before anything is written to it: whether it is ours, at a version
//! this build knows, judged from its header alone when that suffices and otherwise through a
//! read-only connection that creates no file.
//!
//! Before any pragma that writes, the file is inspected (its header, and unless
//! that shows it is ours, through a read-only connection) and a non-SQLite, foreign or newer
//! file is refused with the file left byte-for-byte untouched. A path that is not a regular
//! file, or a file with a second hard link, is refused too (see [`super::file`]).

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::file;
use super::{APPLICATION_ID, SCHEMA_VERSION, StoreError};

/// What the read-only inspection found in an existing file.
pub(super) enum Found {
    /// Empty, or an SQLite file with no tables and no application id: ours to initialise.
    Fresh,
    /// Ours, at this schema version.
    Ours(i64),
}

/// The checks that must pass before anything may be written to an existing file. `busy` is
/// how long the read-only look waits for another process's lock.
///
/// A refusal is confirmed by looking again a few times over ~300 ms before it stands: the
/// file may be one that another server is initialising at this very moment, and a read that
/// takes no lock (see [`open_for_inspection`]) can catch it half-written. Our own file
/// settles within milliseconds; a foreign or newer file gives the same verdict every time.
pub(super) fn inspect(path: &Path, busy: Duration) -> Result<Found, StoreError> {
    const LOOKS: u64 = 6;
    let mut look = 1;
    loop {
        match inspect_once(path, busy) {
            Err(
                e @ (StoreError::NotSqlite { .. }
                | StoreError::Foreign { .. }
                | StoreError::Newer { .. }
                | StoreError::ForeignLog { .. }),
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
        .map_err(StoreError::io(path))?;
    // Before anything (SQLite included) reads the log beside the file.
    super::left_log::check(path)?;
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
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked, ReadOnly};
    let look = look().map_err(|e| match e.sqlite_error_code() {
        Some(DatabaseBusy | DatabaseLocked | ReadOnly) => StoreError::Sqlite(e),
        _ => not_sqlite(e.to_string()),
    });
    let (app, version, tables) = match look {
        Ok(found) => found,
        // A hot journal (a server killed in the middle of a commit) that a read-only
        // connection may not roll back. When the header names our application, the file is
        // ours: the writing connection rolls the interrupted commit back, as SQLite does at
        // any open, and the migration reads the numbers again under the write lock. Any other
        // file is not rolled back by us.
        Err(StoreError::Sqlite(e)) if e.sqlite_error_code() == Some(ReadOnly) => {
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
    classify(path, app, version, tables)
}

/// The fast path of an inspection: the schema version when the file's 100-byte header alone
/// shows it is ours, at a version this build knows, and whole.
///
/// Opening a connection only to read these two numbers parses the whole schema, a large part
/// of a cold start, and the real connection parses it again anyway. Only this
/// positive verdict may skip the read-only look. In WAL mode (a file 0.1 wrote) the main
/// file's header can be older than the database: that is safe because [`migrate`](super::migrate::migrate)
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
pub(super) fn open_for_inspection(path: &Path) -> rusqlite::Result<Connection> {
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

/// Decides from what a read-only look found whether the file may be opened for writing.
pub(super) fn classify(
    path: &Path,
    application_id: i64,
    version: i64,
    tables: i64,
) -> Result<Found, StoreError> {
    if application_id == APPLICATION_ID {
        if version > SCHEMA_VERSION {
            return Err(StoreError::Newer {
                path: path.to_path_buf(),
                found: version,
                supported: SCHEMA_VERSION,
            });
        }
        return Ok(Found::Ours(version));
    }
    if application_id == 0 && tables == 0 && version == 0 {
        return Ok(Found::Fresh);
    }
    Err(StoreError::Foreign {
        path: path.to_path_buf(),
        application_id,
    })
}

/// The application id, schema version and number of schema objects, read in one snapshot
/// (the caller's transaction, or one of its own).
pub(super) fn identify(conn: &Connection) -> rusqlite::Result<(i64, i64, i64)> {
    let tx = if conn.is_autocommit() {
        Some(conn.unchecked_transaction()?)
    } else {
        None
    };
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
    drop(tx);
    Ok((app, version, tables))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_by_header_only_for_our_whole_file() {
        let mut h = vec![0u8; 100];
        h[..16].copy_from_slice(b"SQLite format 3\0");
        h[16..18].copy_from_slice(&4096u16.to_be_bytes());
        h[24..28].copy_from_slice(&7u32.to_be_bytes());
        h[92..96].copy_from_slice(&7u32.to_be_bytes());
        h[28..32].copy_from_slice(&3u32.to_be_bytes());
        h[60..64].copy_from_slice(&(SCHEMA_VERSION as u32).to_be_bytes());
        h[68..72].copy_from_slice(&(APPLICATION_ID as u32).to_be_bytes());
        assert_eq!(ours_by_header(&h, 3 * 4096), Some(SCHEMA_VERSION));
        // Truncated, or longer than the header says.
        assert_eq!(ours_by_header(&h, 2 * 4096), None);
        assert_eq!(ours_by_header(&h, 4 * 4096), None);
        let mut stale = h.clone();
        stale[92..96].copy_from_slice(&6u32.to_be_bytes());
        assert_eq!(ours_by_header(&stale, 3 * 4096), None);
        let mut newer = h.clone();
        newer[60..64].copy_from_slice(&((SCHEMA_VERSION + 1) as u32).to_be_bytes());
        assert_eq!(ours_by_header(&newer, 3 * 4096), None);
        let mut foreign = h.clone();
        foreign[68..72].copy_from_slice(&0x1234_5678u32.to_be_bytes());
        assert_eq!(ours_by_header(&foreign, 3 * 4096), None);
        let mut odd_page = h;
        odd_page[16..18].copy_from_slice(&1000u16.to_be_bytes());
        assert_eq!(ours_by_header(&odd_page, 3 * 1000), None);
    }

    #[test]
    fn classify_newer_and_foreign_refused() {
        let p = Path::new("x.db");
        assert!(matches!(
            classify(p, APPLICATION_ID, SCHEMA_VERSION + 1, 9),
            Err(StoreError::Newer { .. })
        ));
        assert!(matches!(
            classify(p, 0, 0, 3),
            Err(StoreError::Foreign { .. })
        ));
        assert!(matches!(
            classify(p, 7, 0, 0),
            Err(StoreError::Foreign { .. })
        ));
        assert!(matches!(classify(p, 0, 0, 0), Ok(Found::Fresh)));
    }
}
