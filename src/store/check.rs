//! The integrity check behind `review-mcp check` and `backup`: SQLite's integrity and
//! foreign-key checks, the history's content addresses, each full-text index against its rows
//! and the schema version, through a store or on the file itself as it is on disk.

use std::path::Path;

use rusqlite::Transaction;

use super::schema::TEXT_REINDEXED_AT;
use super::{SCHEMA_VERSION, Store, StoreError};

impl Store {
    /// The schema version stored in the file.
    pub fn schema_version(&mut self) -> Result<i64, StoreError> {
        Ok(self
            .conn()?
            .pragma_query_value(None, "user_version", |r| r.get(0))?)
    }

    /// SQLite's integrity check (which checks each full-text index's own structure) and
    /// foreign-key check, the history's events, and each full-text index against its rows.
    /// Returns the problems found (empty when the file is sound).
    pub fn check(&mut self) -> Result<Vec<String>, StoreError> {
        let db = self.path().map(Path::to_path_buf);
        self.check_of(db.as_deref())
    }

    /// [`Store::check`] of the file at `db` (`None`: not known here), which the repairs it
    /// names give as their `--db`: `backup` checks its copy as the database it copied.
    pub fn check_of(&mut self, db: Option<&Path>) -> Result<Vec<String>, StoreError> {
        let mut problems = Vec::new();
        let version = self.schema_version()?;
        // An older version is no problem (a server upgrades it); a newer one never opens.
        if version > SCHEMA_VERSION {
            problems.push(format!(
                "schema version {version}, expected {SCHEMA_VERSION}"
            ));
        }
        let tx = self.read()?;
        // A check that stops on damage it cannot step over (SQLite answers "database disk
        // image is malformed" instead of a row, as the full-text check does for a damaged
        // index) has found a problem, not failed: the file is not sound.
        let damaged = |what: &str, e: rusqlite::Error| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
                Ok(format!("{what}: {e}"))
            }
            _ => Err(StoreError::from(e)),
        };
        let integrity = || -> rusqlite::Result<Vec<String>> {
            let mut stmt = tx.prepare("PRAGMA integrity_check")?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
            let mut found = Vec::new();
            for row in rows {
                let row = row?;
                if row != "ok" {
                    found.push(format!("integrity: {row}"));
                }
            }
            Ok(found)
        };
        match integrity() {
            Ok(found) => problems.extend(found),
            Err(e) => problems.push(damaged("integrity", e)?),
        }
        let foreign_keys = || -> rusqlite::Result<Vec<String>> {
            let mut stmt = tx.prepare("PRAGMA foreign_key_check")?;
            let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
            let mut found = Vec::new();
            for row in rows {
                found.push(format!("foreign key violation in table {}", row?));
            }
            Ok(found)
        };
        match foreign_keys() {
            Ok(found) => problems.extend(found),
            Err(e) => problems.push(damaged("foreign keys", e)?),
        }
        // `PRAGMA integrity_check` also checks each full-text index (SQLite 3.44 and later
        // call the FTS5 integrity method), so a read-only connection checks everything.
        match super::history::edited_events(&tx) {
            Ok(found) => problems.extend(found),
            Err(StoreError::Sqlite(e)) => problems.push(damaged("history", e)?),
            Err(e) => return Err(e),
        }
        // Schema version 1 of the first builds keyed its full-text rows otherwise; the upgrade
        // to version 2 makes them again.
        if version >= TEXT_REINDEXED_AT as i64 {
            match text_index_out_of_step(&tx, db) {
                Ok(found) => problems.extend(found),
                Err(e) => problems.push(damaged("full-text index", e)?),
            }
        }
        drop(tx);
        Ok(problems)
    }

    /// The file's own schema version and the problems `check` finds in it, read through a
    /// read-only connection to the file itself, whatever its schema version (an older file
    /// is not upgraded for this: its pages are checked as they are on disk).
    pub fn check_in_place(path: &Path) -> Result<(i64, Vec<String>), StoreError> {
        let (_, _, mut store) = Store::read_only_in_place(path)?;
        let version = store.schema_version()?;
        let problems = store.check_of(Some(path))?;
        Ok((version, problems))
    }
}

/// How a problem of a full-text index out of step with its rows begins: the rows are whole
/// and its repair (named in it) loses nothing, unlike damage.
const INDEX_OUT_OF_STEP: &str = "the full-text index of ";

/// Whether every problem of `problems` is a full-text index out of step with its rows: no
/// damage, nothing lost, and each names its repair.
pub fn only_index_out_of_step(problems: &[String]) -> bool {
    problems.iter().all(|p| p.starts_with(INDEX_OUT_OF_STEP))
}

/// Each full-text index against its rows: an item is indexed under its `seq` (the FTS5
/// table's row id, kept in its `_docsize` table; SQLite's integrity check cannot compare a
/// contentless index with the rows). A server of the first builds still running on a file a
/// later version upgraded writes a decision's entry under its row id instead, so a text search
/// finds that decision under no word; a problem names the index, both counts and the repair,
/// with the file `db` to export (a bare `review-mcp export` exports `./review-mcp.db`).
fn text_index_out_of_step(
    tx: &Transaction<'_>,
    db: Option<&Path>,
) -> rusqlite::Result<Vec<String>> {
    /// The items of `$rows` without an entry in `$index`, and its entries of no item.
    macro_rules! out_of_step {
        ($rows:literal, $index:literal) => {
            concat!(
                "SELECT (SELECT count(*) FROM ",
                $rows,
                " r WHERE NOT EXISTS ",
                "(SELECT 1 FROM ",
                $index,
                "_docsize f WHERE f.id = r.seq)), ",
                "(SELECT count(*) FROM ",
                $index,
                "_docsize f WHERE NOT EXISTS ",
                "(SELECT 1 FROM ",
                $rows,
                " r WHERE r.seq = f.id))"
            )
        };
    }
    const INDEXES: [(&str, &str, &str); 2] = [
        ("records", "record", out_of_step!("records", "records_fts")),
        (
            "decisions",
            "decision",
            out_of_step!("decisions", "decisions_fts"),
        ),
    ];
    let db = db.map_or("PATH".into(), super::error::command_path);
    let mut problems = Vec::new();
    for (table, item, sql) in INDEXES {
        let (unindexed, stray): (i64, i64) =
            tx.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?)))?;
        if unindexed == 0 && stray == 0 {
            continue;
        }
        let count =
            |n: i64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        problems.push(format!(
            "{INDEX_OUT_OF_STEP}{table} is out of step with them: {}, {} (an older review-mcp still running wrote the file after a newer one upgraded it); a text search misses them: export the file and import the export into a new file ({}, then `review-mcp --db NEW import FILE`), which indexes every item again",
            count(
                unindexed,
                &format!("{item} without its entry"),
                &format!("{table} without their entry")
            ),
            count(stray, &format!("entry of no {item}"), &format!("entries of no {item}")),
            crate::text::code_span(&format!("review-mcp --db {db} export -o FILE")),
        ));
    }
    Ok(problems)
}
