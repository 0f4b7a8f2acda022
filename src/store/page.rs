//! Paging: the write counter whose values are every row's position and every page's
//! snapshot, keyset positions and pages, running the queries of one page, the secret that
//! seals the cursors a tool hands out, and the rule that every item fits in a page of its own.
//!
//! Every new record or decision takes the next value of one global counter (`seq`), which
//! it keeps when it is replaced; "newest first" is `seq DESC`, and a page's snapshot is
//! "rows with `seq <= snapshot`". A position that never moves is what makes paging exact
//! while other writes happen (see `Store::recall_each`).

use rusqlite::{OptionalExtension, Transaction};

use super::{Store, StoreError};

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

impl PageRequest {
    /// The first page of `limit` items.
    pub fn first(limit: usize) -> PageRequest {
        PageRequest {
            snapshot: None,
            after: None,
            limit,
        }
    }
}

/// Takes the next value of the global write counter (inside the caller's write transaction).
pub(super) fn next_seq(tx: &Transaction<'_>) -> Result<i64, StoreError> {
    Ok(tx
        .prepare_cached("UPDATE counters SET value = value + 1 WHERE name = 'seq' RETURNING value")?
        .query_row([], |r| r.get(0))?)
}

/// The current value of the write counter: the snapshot a first page is served at.
pub(super) fn current_seq(tx: &Transaction<'_>) -> Result<i64, StoreError> {
    Ok(tx
        .prepare_cached("SELECT value FROM counters WHERE name = 'seq'")?
        .query_row([], |r| r.get(0))?)
}

/// One query of a page: its SQL (ending in `LIMIT ?`) and its parameters without the limit.
pub(super) type Segment = (String, Vec<rusqlite::types::Value>);

/// Runs the segments of one recall page in order (tier 0 before tier 1) after the rows
/// already in `out`, each limited to the rows still wanted, until `limit + 1` rows are in:
/// the extra row says whether more follow. `map` turns a row into an item, or ends the page
/// early (`None`: the page is full in bytes, see `Store::recall_each`). Returns whether it
/// did.
pub(super) fn run_segments_into<T>(
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

impl Store {
    /// The file's secret that seals recall cursors, made by the schema upgrade. A file whose
    /// row was deleted by hand gets a new one (its old cursors are then refused).
    ///
    /// Read once per store and kept: it never changes while the file is the same (a call
    /// checks that), and every read transaction costs SQLite a lock and a look at the
    /// log.
    pub fn cursor_secret(&mut self) -> Result<Vec<u8>, StoreError> {
        if let Some(secret) = &self.cursor_secret {
            return Ok(secret.clone());
        }
        let secret = self.read_cursor_secret()?;
        // Not kept from the scratch database that answers before the file exists.
        if self.conn.is_some() || self.file.is_none() {
            self.cursor_secret = Some(secret.clone());
        }
        Ok(secret)
    }

    fn read_cursor_secret(&mut self) -> Result<Vec<u8>, StoreError> {
        const READ: &str = "SELECT value FROM meta WHERE name = 'cursor_secret'";
        let tx = self.read()?;
        let found: Option<Vec<u8>> = tx
            .prepare_cached(READ)?
            .query_row([], |r| r.get(0))
            .optional()?;
        drop(tx);
        if let Some(secret) = found.filter(|s| s.len() >= 16) {
            return Ok(secret);
        }
        let tx = self.write()?;
        tx.execute(
            "INSERT OR REPLACE INTO meta (name, value) VALUES ('cursor_secret', randomblob(32))",
            [],
        )?;
        let secret: Vec<u8> = tx.query_row(READ, [], |r| r.get(0))?;
        tx.commit()?;
        // The secret is the file's, not the review's: not a change a client is told of.
        self.internal_changes += self.conn.as_ref().map_or(0, |c| c.changes());
        Ok(secret)
    }
}
