//! The database as the commands that only read it see it: opened read-only, never created,
//! and counted.

use std::path::Path;

use anyhow::anyhow;

use review_mcp::store::{Store, StoreError};

use super::invocation::DB_ENV;

/// A store error as a command says it: SQLite's own errors name no file and say nothing of
/// what to do, so they get the database's path and the message a tool result gives (the
/// lock, a full disk; a damaged file with the `check` command for it); the store's other
/// errors name their file already.
pub(super) fn store_error(db: &Path, e: StoreError) -> anyhow::Error {
    match e.of_file(Some(db)) {
        e @ StoreError::Sqlite(_) => {
            anyhow!("{}: {}", super::output::shown(db), e.user_message())
        }
        other => anyhow!("{other}"),
    }
}

/// Opens the database for a command that only reads or checks it, read-only: a missing file
/// is an error (creating an empty database to export or check would hide a wrong path).
pub(super) fn open_existing(db: &Path) -> anyhow::Result<Store> {
    require_existing(db)?;
    Store::open_read_only(db).map_err(|e| store_error(db, e))
}

/// Refuses a database path that names no file, saying where the path comes from.
pub(super) fn require_existing(db: &Path) -> anyhow::Result<()> {
    // A loop of links, a path ending in a slash: said as what they are.
    review_mcp::store::file::database_path(db).map_err(|e| anyhow!("{e}"))?;
    if !db.exists() {
        return Err(anyhow!(
            "there is no database at {}: point --db or {DB_ENV} at an existing file",
            super::output::shown(db)
        ));
    }
    Ok(())
}

/// How many records and decisions the database `db` holds.
pub(super) fn counts(db: &Path, store: &mut Store) -> anyhow::Result<(u64, u64)> {
    store.totals().map_err(|e| store_error(db, e))
}
