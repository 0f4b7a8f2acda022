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

/// Refuses a database path that is this process's own standard input, output or error (a
/// regular file: `--db /dev/stderr` with stderr a host's log file, `/dev/stdout` under
/// `> out.jsonl`): the server made its log (or the file its answers go to) its database,
/// and each wrote over the other.
#[cfg(unix)]
pub fn refuse_standard_stream(db: &Path) -> anyhow::Result<()> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let Ok(file) = std::fs::metadata(db) else {
        return Ok(());
    };
    if !file.is_file() {
        return Ok(());
    }
    let of = |fd: std::os::fd::BorrowedFd<'_>| {
        fd.try_clone_to_owned()
            .ok()
            .map(std::fs::File::from)
            .and_then(|f| f.metadata().ok())
            .is_some_and(|m| (m.dev(), m.ino()) == (file.dev(), file.ino()))
    };
    let stream = if of(std::io::stdout().as_fd()) {
        "standard output"
    } else if of(std::io::stderr().as_fd()) {
        "standard error (where its log goes)"
    } else if of(std::io::stdin().as_fd()) {
        "standard input"
    } else {
        return Ok(());
    };
    // `export > review.db`: the shell emptied the file before this command started, so a
    // refusal saying only that nothing was opened left the engineer with an empty database.
    let emptied = if file.len() == 0 && stream != "standard input" {
        " It is empty: if it was your database, the shell emptied it for the redirection (`>`) before review-mcp started, and what it held is gone from it; put your last good copy in its place (a `review-mcp backup` file, or an export imported into a new file)."
    } else {
        ""
    };
    Err(anyhow!(
        "{} is this command's {stream}: a database there and the stream would write over each other; nothing was opened.{emptied} Point --db or {DB_ENV} at a file of its own",
        super::output::shown(db)
    ))
}

#[cfg(not(unix))]
pub fn refuse_standard_stream(_db: &Path) -> anyhow::Result<()> {
    Ok(())
}

/// How many records and decisions the database `db` holds.
pub(super) fn counts(db: &Path, store: &mut Store) -> anyhow::Result<(u64, u64)> {
    store.totals().map_err(|e| store_error(db, e))
}
