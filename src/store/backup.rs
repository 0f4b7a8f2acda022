//! The online backup: a complete, consistent copy of the database with SQLite's
//! `VACUUM INTO`, given a cursor secret of its own.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::file;
use super::{Store, StoreError};

impl Store {
    /// Writes a complete, self-contained copy of the database to `target` (which must not
    /// exist) with SQLite's `VACUUM INTO`: one read transaction, so the copy is consistent
    /// while other servers write. The copy is synced before this returns.
    pub fn backup_into(&mut self, target: &Path) -> Result<(), StoreError> {
        let target = file::absolute(target)?;
        let conn = self.conn()?;
        // A private copy of a log or a hot journal is read `query_only`, which refuses
        // `VACUUM INTO` as well: the copy is made from it all the same (the file itself is
        // opened read-only, never written through this).
        conn.pragma_update(None, "query_only", false)?;
        // An absolute path is never read as a URI (see `file::absolute`). Its bytes as they
        // are, as a blob read as text: a lossy UTF-8 string would name another file when the
        // path is not UTF-8 (`bad\xff/`), which a Unix file name may be; SQLite hands the
        // text's bytes to the file system unchecked.
        #[cfg(unix)]
        let name = {
            use std::os::unix::ffi::OsStrExt;
            target.as_os_str().as_bytes().to_vec()
        };
        #[cfg(not(unix))]
        let name = target.to_string_lossy().into_owned().into_bytes();
        conn.execute("VACUUM INTO CAST(?1 AS TEXT)", [&name])?;
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
        synced.map_err(StoreError::io(&target))
    }
}
