//! The only SQL in the crate: opening the database, pragmas, migrations and queries.
//!
//! Opening (the journal, refusals, the lazy open of a server, read-only opens and backups)
//! lives in `open.rs`; what a path names on disk, and whether it still names the file a
//! server opened, in `file.rs`.
//!
//! Every tool call is one transaction: writes use `BEGIN IMMEDIATE` so that several server
//! processes sharing one file queue on the write lock (within `busy_timeout`) instead of
//! failing half-way. Every new record or decision takes the next value of one global
//! counter (`seq`), which it keeps when it is replaced; "newest first" is `seq DESC`, and
//! pagination snapshots are "rows with `seq <= snapshot`". A position that never moves is
//! what makes paging exact while other writes happen (see `Store::recall_each`).

mod admin;
mod browse;
mod decisions;
pub mod file;
mod open;
mod records;
mod schema;
mod search;

use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

use rusqlite::{Connection, Transaction, TransactionBehavior};

pub use admin::{ImportSummary, RevisionSummary};
pub use decisions::{DecisionQuery, NewDecision};
pub use file::FileChange;
pub use open::Journal;
pub use records::{NewRecord, RecordQuery};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use search::fts_words;

/// How long a statement waits for another process's write lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(5000);

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
    /// The file or its directory could not be created or read.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Stored data that does not parse (a hand-edited or damaged database).
    Corrupt(String),
    /// Data offered for import that breaks a rule.
    Invalid(String),
    /// SQLite could not open the file for writing, or prepare it (WAL, schema).
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    Sqlite(rusqlite::Error),
    /// The path is not a regular file (a FIFO, a device, a directory).
    NotAFile {
        path: PathBuf,
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
    /// The file is in WAL mode and another process keeps it open, so it cannot be switched
    /// to the rollback journal.
    JournalBusy {
        path: PathBuf,
    },
    /// A read-only command on a file no server has written yet.
    Empty {
        path: PathBuf,
    },
    /// A query on a store whose connection is gone (a bug).
    NotOpen,
}

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
            StoreError::Io { path, source } => {
                write!(f, "cannot open {}: {source}", path.display())
            }
            StoreError::Corrupt(m) => write!(f, "damaged database: {m}"),
            StoreError::Invalid(m) => f.write_str(m),
            StoreError::Open { path, source } => write!(
                f,
                "cannot open {} for reading and writing ({source}); check that the file and its directory are writable and the disk is not full",
                path.display()
            ),
            StoreError::Sqlite(e) => write!(f, "database error: {e}"),
            StoreError::NotAFile { path, kind } => write!(
                f,
                "{} is {kind}, not a database file; nothing was created or changed. Point REVIEW_MCP_DB_PATH or --db at a regular file (or a path where one may be created)",
                path.display()
            ),
            StoreError::HardLinked { path, links } => write!(
                f,
                "{} has {links} hard links (names); SQLite would keep a separate journal for each name and a crash could damage the file. Keep one name (remove the other links, or copy the file with `review-mcp backup`) and start again",
                path.display()
            ),
            StoreError::FileChanged { path, change } => {
                let what = match change {
                    FileChange::Deleted => "was deleted".to_string(),
                    FileChange::Replaced => {
                        "was replaced by another file (a restored backup, `git checkout`, a sync client)".to_string()
                    }
                    FileChange::Linked(n) => format!("gained a second name ({n} hard links)"),
                };
                write!(
                    f,
                    "{} {what} while this server was running; nothing was read or written, so that no write goes into a file nobody can see. Restart the server (reconnect it in your MCP host) to use the file the path names now",
                    path.display()
                )
            }
            StoreError::ReadOnlyFile { path, source } => write!(
                f,
                "cannot open {} for writing ({source}); a server needs it writable: check the file's permissions and attributes (lsattr) and that its file system is mounted read-write. `review-mcp export`, `check` and `backup` work on a read-only file",
                path.display()
            ),
            StoreError::JournalBusy { path } => write!(
                f,
                "{} is in WAL mode (written by review-mcp 0.1) and another process has it open, so it cannot be switched to this version's journal. Stop every other review-mcp (and any other program) using the file, then try again",
                path.display()
            ),
            StoreError::Empty { path } => write!(
                f,
                "{} is empty: no review-mcp server has written to it yet",
                path.display()
            ),
            StoreError::NotOpen => f.write_str("the database connection is closed"),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } | StoreError::ReadOnlyFile { source, .. } => Some(source),
            StoreError::Open { source, .. } | StoreError::Sqlite(source) => Some(source),
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
    /// A message for a tool result: what went wrong and what the user can do.
    pub fn user_message(&self) -> String {
        use rusqlite::ErrorCode as C;
        if let StoreError::Sqlite(e) = self {
            match e.sqlite_error_code() {
                Some(C::DatabaseBusy | C::DatabaseLocked) => {
                    return format!(
                        "the database stayed locked by another process for more than {} ms; try again",
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
                Some(C::DatabaseCorrupt | C::NotADatabase) => {
                    return format!("the database file is damaged ({e}); run `review-mcp check`");
                }
                _ => {}
            }
        }
        self.to_string()
    }
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

/// The review database: one connection, opened at the first query for a serving process
/// (see [`Store::lazy`]), and the file it belongs to.
pub struct Store {
    conn: Option<Connection>,
    /// `None` in memory.
    file: Option<open::OnDisk>,
    /// A private directory this store reads from and removes when dropped (an upgraded copy
    /// of an older file, see `open.rs`).
    temp_dir: Option<PathBuf>,
    /// An empty database in memory that answers reads while the file does not exist yet, so
    /// that listing an empty review creates no file.
    scratch: Option<Connection>,
    /// The file's cursor secret, once read (see `Store::cursor_secret`).
    cursor_secret: Option<Vec<u8>>,
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Some(dir) = self.temp_dir.take() {
            // Close the connection before its file goes.
            self.conn = None;
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Store {
    /// Starts a write transaction: takes the write lock now (waiting up to
    /// [`BUSY_TIMEOUT`]), so a read-then-write never fails half-way on a lock upgrade.
    ///
    /// The file's identity is checked again once the lock is held: the wait for it can last
    /// seconds, and the file can be replaced meanwhile.
    fn write(&mut self) -> Result<Transaction<'_>, StoreError> {
        let identity = self.file.as_ref().and_then(|f| f.identity.clone());
        let tx = self
            .conn()?
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some(identity) = identity {
            // Dropping the transaction rolls it back.
            identity.verify()?;
        }
        Ok(tx)
    }

    /// A read transaction: one consistent snapshot for the whole call. Before the file of a
    /// lazy store exists, an empty scratch database answers instead (nothing to read, and
    /// nothing created for it).
    fn read(&mut self) -> Result<Transaction<'_>, StoreError> {
        let conn = match self.scratch_until_created()? {
            true => self.scratch.as_mut().ok_or(StoreError::NotOpen)?,
            false => self.conn()?,
        };
        Ok(conn.transaction_with_behavior(TransactionBehavior::Deferred)?)
    }
}

/// One query of a page: its SQL (ending in `LIMIT ?`) and its parameters without the limit.
type Segment = (String, Vec<rusqlite::types::Value>);

/// Runs the segments of one recall page in order (tier 0 before tier 1) after the rows
/// already in `out`, each limited to the rows still wanted, until `limit + 1` rows are in:
/// the extra row says whether more follow. `map` turns a row into an item, or ends the page
/// early (`None`: the page is full in bytes, see `Store::recall_each`). Returns whether it
/// did.
fn run_segments_into<T>(
    tx: &Transaction<'_>,
    segments: Vec<Segment>,
    limit: usize,
    out: &mut Vec<T>,
    mut map: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<Option<T>>,
) -> Result<bool, StoreError> {
    for (sql, mut params) in segments {
        let want = (limit + 1).saturating_sub(out.len());
        if want == 0 {
            break;
        }
        params.push(rusqlite::types::Value::Integer(
            i64::try_from(want).unwrap_or(201),
        ));
        let mut stmt = tx.prepare_cached(&sql)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(params.iter()))?;
        while let Some(row) = rows.next()? {
            match map(row)? {
                Some(item) => out.push(item),
                None => return Ok(true),
            }
        }
    }
    Ok(false)
}

/// Parses a JSON array of strings stored in a TEXT column.
fn json_strings(col: usize, s: &str) -> rusqlite::Result<Vec<String>> {
    Ok(json_strs(col, s)?
        .into_iter()
        .map(Cow::into_owned)
        .collect())
}

/// [`json_strings`] borrowing from `s` where no string holds an escape (always, for the lists
/// [`json_text`] writes of plain names): a recall reads the lists of fifty rows per call.
fn json_strs(col: usize, s: &str) -> rusqlite::Result<Vec<Cow<'_, str>>> {
    if let Some(v) = plain_json_strings(s) {
        return Ok(v.into_iter().map(Cow::Borrowed).collect());
    }
    let owned: Vec<String> = serde_json::from_str(s).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(col, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok(owned.into_iter().map(Cow::Owned).collect())
}

/// The fast path of [`json_strings`], for the form [`json_text`] writes when no string needs
/// an escape: `["a","b"]`, no whitespace, no backslash. Anything else (escapes, whitespace,
/// damage) is `None` and goes to the full parser, so both paths accept exactly the same
/// texts and give the same strings. Serde's general path was a tenth of a recall of 50
/// records: it grows the vector one string at a time.
fn plain_json_strings(s: &str) -> Option<Vec<&str>> {
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.iter().filter(|&&c| c == b'"').count() / 2);
    if b.is_empty() {
        return Some(out);
    }
    // One pass over `"a","b"`: a quote opens a string, the next quote closes it (without a
    // backslash no quote is escaped), then `,` or the end. A backslash or a control character
    // (which JSON requires escaped) leaves the text to the full parser.
    let mut i = 0;
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let start = i + 1;
        let mut end = start;
        loop {
            match b.get(end) {
                Some(b'"') => break,
                Some(&c) if c == b'\\' || c < 0x20 => return None,
                Some(_) => end += 1,
                None => return None,
            }
        }
        // Both ends are at ASCII quotes, so they are character boundaries.
        out.push(inner.get(start..end)?);
        match b.get(end + 1) {
            None => return Some(out),
            Some(b',') => i = end + 2,
            Some(_) => return None,
        }
    }
}

/// Serialises a list of strings for a TEXT column.
fn json_text(v: &[String]) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".into())
}

/// Refuses to write an item (a record or decision, `what` naming it) that would cost an
/// answer more than [`MAX_ANSWER_ITEMS_BYTES`] (see there): every item must fit in a page
/// of its own, inside the answer line limit.
///
/// [`MAX_ANSWER_ITEMS_BYTES`]: crate::wire::MAX_ANSWER_ITEMS_BYTES
fn check_answer_size(what: &str, bytes: usize) -> Result<(), StoreError> {
    use crate::wire::MAX_ANSWER_ITEMS_BYTES;
    if bytes > MAX_ANSWER_ITEMS_BYTES {
        return Err(StoreError::Invalid(format!(
            "{what} would take {bytes} bytes in an answer, which carries its JSON twice \
             (structuredContent and the text copy; quotes, backslashes and control characters \
             grow when escaped): at most {MAX_ANSWER_ITEMS_BYTES} bytes fit in one answer line. \
             Split it over several, e.g. fewer entity ids or faces each. Nothing was written."
        )));
    }
    Ok(())
}

/// Takes the next value of the global write counter (inside the caller's write transaction).
fn next_seq(tx: &Transaction<'_>) -> Result<i64, StoreError> {
    Ok(tx
        .prepare_cached("UPDATE counters SET value = value + 1 WHERE name = 'seq' RETURNING value")?
        .query_row([], |r| r.get(0))?)
}

/// The current value of the write counter: the snapshot a first page is served at.
fn current_seq(tx: &Transaction<'_>) -> Result<i64, StoreError> {
    Ok(tx
        .prepare_cached("SELECT value FROM counters WHERE name = 'seq'")?
        .query_row([], |r| r.get(0))?)
}

/// A keyset position in a result order: `tier` (0 = the name or subject matched the text,
/// 1 otherwise; always 1 without text) ascending, then `seq` descending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub tier: i64,
    pub seq: i64,
}

/// One page of a recall: the items with their positions, the snapshot the paging runs at,
/// and whether more rows follow.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<(T, Position)>,
    pub snapshot: i64,
    pub more: bool,
}

/// Where a page starts: the snapshot of the first page, and the last position served.
#[derive(Debug, Clone, Copy)]
pub struct PageRequest {
    pub snapshot: Option<i64>,
    pub after: Option<Position>,
    pub limit: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    const REV: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    /// The artifact these tests write for: revision [`REV`], at `uri` when given.
    fn artifact(uri: Option<&str>) -> crate::review::Artifact {
        crate::review::Artifact {
            revision: REV.into(),
            format: "step".into(),
            uri: uri.map(str::to_string),
            units: None,
        }
    }

    fn sqlite_error(code: std::ffi::c_int) -> StoreError {
        StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            None,
        ))
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
        assert_eq!(open::ours_by_header(&h, 3 * 4096), Some(SCHEMA_VERSION));
        // Truncated, or longer than the header says.
        assert_eq!(open::ours_by_header(&h, 2 * 4096), None);
        assert_eq!(open::ours_by_header(&h, 4 * 4096), None);
        let mut stale = h.clone();
        stale[92..96].copy_from_slice(&6u32.to_be_bytes());
        assert_eq!(open::ours_by_header(&stale, 3 * 4096), None);
        let mut newer = h.clone();
        newer[60..64].copy_from_slice(&((SCHEMA_VERSION + 1) as u32).to_be_bytes());
        assert_eq!(open::ours_by_header(&newer, 3 * 4096), None);
        let mut foreign = h.clone();
        foreign[68..72].copy_from_slice(&0x1234_5678u32.to_be_bytes());
        assert_eq!(open::ours_by_header(&foreign, 3 * 4096), None);
        let mut odd_page = h;
        odd_page[16..18].copy_from_slice(&1000u16.to_be_bytes());
        assert_eq!(open::ours_by_header(&odd_page, 3 * 1000), None);
    }

    #[test]
    fn json_strings_fast_path_agrees_with_serde() {
        let texts = [
            "[]",
            "[\"\"]",
            "[\"a\"]",
            "[\"a\",\"\",\"b c\"]",
            "[\",\"]",
            "[\"Ø12 ±0.05\",\"face:1\"]",
            "[\"a\\\"b\",\"c\"]",
            "[\"a\\\\\"]",
            "[\"a\\u0041\"]",
            "[ \"a\" , \"b\" ]",
            "[\"a\",\"b\",]",
            "[\"a\" \"b\"]",
            "[\"a\"\"b\"]",
            "[\"]",
            "[\"a]",
            "[\"a\u{1}\"]",
            "[\"a\"]x",
            "[1,2]",
            "[\"a\",1]",
            "",
            "null",
            "{}",
        ];
        for t in texts {
            let full: Result<Vec<String>, _> = serde_json::from_str(t);
            let ours = json_strings(4, t);
            match (&full, &ours) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{t:?}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{t:?}: serde {full:?}, ours {ours:?}"),
            }
            if let Some(fast) = plain_json_strings(t) {
                let fast: Vec<String> = fast.into_iter().map(str::to_string).collect();
                assert_eq!(Some(&fast), full.as_ref().ok(), "{t:?}");
            }
        }
        let written = vec![
            "x\"y".to_string(),
            "back\\slash".into(),
            "tab\t".into(),
            "".into(),
        ];
        assert_eq!(json_strings(4, &json_text(&written)).unwrap(), written);
    }

    /// Regression (found in review): side rows are deleted by the keys in the record's own
    /// lists, so a list that no longer parses made the record impossible to rewrite or forget.
    /// Its side rows are now found by seq.
    #[test]
    fn record_with_damaged_lists_can_still_be_rewritten_and_forgotten() {
        let mut store = Store::open_in_memory().unwrap();
        let new = |tag: &str| NewRecord {
            artifact: artifact(Some("file:///p.step")),
            name: Some("bore".into()),
            note: None,
            tags: vec![tag.into()],
            entity_ids: vec!["face:1".into()],
            id_scheme: "opaque".into(),
        };
        let side_rows = |store: &mut Store| -> i64 {
            store
                .conn()
            .unwrap()
                .query_row(
                    "SELECT (SELECT count(*) FROM record_tags) + (SELECT count(*) FROM record_entities)",
                    [],
                    |r| r.get(0),
                )
                .unwrap()
        };
        store.remember(&new("a")).unwrap();
        for damage in [
            "UPDATE records SET tags = '[\"a\"'",
            "UPDATE records SET entity_ids = 7",
        ] {
            store.conn().unwrap().execute_batch(damage).unwrap();
            let (_, replaced) = store.remember(&new("b")).unwrap();
            assert!(replaced, "{damage}");
            assert_eq!(side_rows(&mut store), 2, "{damage}: the old side rows went");
        }
        store
            .conn()
            .unwrap()
            .execute_batch("UPDATE records SET tags = 'not json'")
            .unwrap();
        assert_eq!(store.forget_feature("file:///p.step", "bore").unwrap(), 1);
        assert_eq!(side_rows(&mut store), 0);
        assert!(store.check().unwrap().is_empty());
    }

    /// A version-1 file (row ids apart from seqs, side rows carrying them) upgrades to the
    /// current schema with every record, side row and full-text row still found, and a
    /// rewrite after the upgrade leaves no stale side row behind.
    #[test]
    fn v1_file_upgrades_and_keeps_its_records() {
        use crate::review::Kind;
        const T: &str = "2026-01-01T00:00:00.000Z";
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(schema::MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        conn.execute_batch(&format!(
            "INSERT INTO records (rid, id, kind, locator, name, note, tags, entity_ids, \
                id_scheme, revision, format, uri, units, created_at, updated_at, seq) VALUES \
             (7, 'rec_a', 'feature', 'file:///p.step', 'bore', 'deep hole', '[\"a\",\"b\"]', \
                '[\"face:1\"]', 'opaque', '{REV}', 'step', 'file:///p.step', NULL, '{T}', '{T}', 3), \
             (5, 'rec_b', 'note', 'file:///p.step', NULL, 'bore chamfer', '[\"a\"]', \
                '[\"face:1\",\"face:2\"]', 'opaque', '{REV}', 'step', 'file:///p.step', NULL, '{T}', '{T}', 4); \
             INSERT INTO record_tags (tag, seq, rid) VALUES ('a', 3, 7), ('b', 3, 7), ('a', 4, 5); \
             INSERT INTO record_entities (entity_id, revision, seq, rid) VALUES \
                ('face:1', '{REV}', 3, 7), ('face:1', '{REV}', 4, 5), ('face:2', '{REV}', 4, 5); \
             INSERT INTO records_fts (rowid, name, note) VALUES (3, 'bore', 'deep hole'), \
                (4, NULL, 'bore chamfer'); \
             UPDATE counters SET value = 4 WHERE name = 'seq';"
        ))
        .unwrap();
        let mut store = Store::from_connection(conn).unwrap();
        schema::migrate(store.conn().unwrap(), std::path::Path::new(":memory:")).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        assert!(store.check().unwrap().is_empty());

        let first = PageRequest {
            snapshot: None,
            after: None,
            limit: 10,
        };
        let ids = |store: &mut Store, q: RecordQuery| -> Vec<(String, i64)> {
            let page = store.recall(&q, first).unwrap();
            page.items.into_iter().map(|(r, p)| (r.id, p.seq)).collect()
        };
        let tags = |t: &[&str]| RecordQuery {
            tags: t.iter().map(|t| t.to_string()).collect(),
            ..RecordQuery::default()
        };
        let entity = |e: &str| RecordQuery {
            entity: Some((e.into(), REV.into())),
            ..RecordQuery::default()
        };
        let text = |w: &str| RecordQuery {
            text: Some(w.into()),
            ..RecordQuery::default()
        };
        let both = vec![("rec_b".to_string(), 4), ("rec_a".to_string(), 3)];
        assert_eq!(ids(&mut store, tags(&["a"])), both);
        assert_eq!(ids(&mut store, tags(&["b"])), vec![("rec_a".into(), 3)]);
        assert_eq!(ids(&mut store, entity("face:1")), both);
        assert_eq!(ids(&mut store, entity("face:2")), vec![("rec_b".into(), 4)]);
        // The name holds the word: the feature first, then the note.
        assert_eq!(
            ids(&mut store, text("bore")),
            vec![("rec_a".to_string(), 3), ("rec_b".to_string(), 4)]
        );

        // Rewriting the feature keeps its seq, id and creation time, and replaces its old
        // tag, entity and text rows.
        let (r, replaced) = store
            .remember(&NewRecord {
                artifact: artifact(Some("file:///p.step")),
                name: Some("bore".into()),
                note: Some("through".into()),
                tags: vec!["c".into()],
                entity_ids: vec!["face:3".into()],
                id_scheme: "opaque".into(),
            })
            .unwrap();
        assert!(replaced);
        assert_eq!(
            (r.id.as_str(), r.kind, r.created_at.as_str()),
            ("rec_a", Kind::Feature, T)
        );
        assert_eq!(ids(&mut store, tags(&["b"])), vec![]);
        assert_eq!(ids(&mut store, tags(&["a"])), vec![("rec_b".into(), 4)]);
        assert_eq!(ids(&mut store, tags(&["c"])), vec![("rec_a".into(), 3)]);
        assert_eq!(ids(&mut store, entity("face:1")), vec![("rec_b".into(), 4)]);
        assert_eq!(ids(&mut store, entity("face:3")), vec![("rec_a".into(), 3)]);
        assert_eq!(ids(&mut store, text("deep")), vec![]);
        assert_eq!(ids(&mut store, text("through")), vec![("rec_a".into(), 3)]);
        assert_eq!(store.forget_feature("file:///p.step", "bore").unwrap(), 1);
        assert_eq!(ids(&mut store, tags(&["c"])), vec![]);
        assert_eq!(ids(&mut store, entity("face:3")), vec![]);
        assert_eq!(ids(&mut store, text("through")), vec![]);
        assert_eq!(store.forget_notes(REV, None, "face:2").unwrap(), 1);
        assert_eq!(ids(&mut store, tags(&["a"])), vec![]);
        assert_eq!(ids(&mut store, text("bore")), vec![]);
        let side: i64 = store
            .conn()
            .unwrap()
            .query_row(
                "SELECT (SELECT count(*) FROM record_tags) + (SELECT count(*) FROM record_entities)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(side, 0);
        assert!(store.check().unwrap().is_empty());
    }

    /// A file 0.1 left in WAL mode is switched to the rollback journal at its first open
    /// (and upgraded): no `-wal` or `-shm` file is left, and the header says so.
    #[test]
    fn upgrade_of_a_wal_file_switches_it_to_the_rollback_journal() {
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
            conn.execute_batch(schema::MIGRATIONS[0]).unwrap();
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
        assert!(!dir.join("review.db-wal").exists(), "the WAL was left");
        assert!(
            !dir.join("review.db-shm").exists(),
            "the -shm file was left"
        );
        let mode: String = store
            .conn()
            .unwrap()
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "persist");
        // The main file's header says rollback mode (read and write versions 1).
        let header = std::fs::read(&db).unwrap();
        assert_eq!(header.get(18..20), Some(&[1u8, 1][..]));
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A first page of a text recall serves the name matches (tier 0) and then the other
    /// matches, leaving the name matches out of tier 1 by the rowids tier 0 returned; every
    /// later page continues from its cursor. Each match is served exactly once, in order,
    /// with filters applied alike to both tiers.
    #[test]
    fn text_recall_serves_each_match_once_across_tiers() {
        let mut store = Store::open_in_memory().unwrap();
        // Interleaved seqs: name matches and note matches alternate, some of each tagged.
        let mut expect_name = Vec::new();
        let mut expect_note = Vec::new();
        for i in 0..12 {
            let in_name = i % 2 == 0;
            let tagged = i % 3 != 0;
            let (r, _) = store
                .remember(&NewRecord {
                    artifact: artifact(None),
                    name: Some(if in_name {
                        format!("flange {i}")
                    } else {
                        format!("part {i}")
                    }),
                    note: Some(if in_name {
                        "plain".into()
                    } else {
                        "flanged edge".into()
                    }),
                    tags: if tagged { vec!["t".into()] } else { vec![] },
                    entity_ids: vec![],
                    id_scheme: "opaque".into(),
                })
                .unwrap();
            if tagged {
                if in_name {
                    expect_name.push(r.id);
                } else {
                    expect_note.push(r.id);
                }
            }
        }
        expect_name.reverse();
        expect_note.reverse();
        let expect: Vec<String> = expect_name.into_iter().chain(expect_note).collect();
        let q = RecordQuery {
            text: Some("flange".into()),
            tags: vec!["t".into()],
            ..RecordQuery::default()
        };
        for limit in 1..=10 {
            let mut got = Vec::new();
            let mut request = PageRequest {
                snapshot: None,
                after: None,
                limit,
            };
            loop {
                let page = store.recall(&q, request).unwrap();
                let last = page.items.last().map(|(_, p)| *p);
                got.extend(page.items.into_iter().map(|(r, _)| r.id));
                if !page.more {
                    break;
                }
                request = PageRequest {
                    snapshot: Some(page.snapshot),
                    after: last,
                    limit,
                };
            }
            assert_eq!(got, expect, "limit {limit}");
        }
    }

    #[test]
    fn open_in_memory_is_at_current_schema() {
        let mut s = Store::open_in_memory().unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    }
}
