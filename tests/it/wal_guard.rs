//! The guard against a log left beside a replaced file (`store/left_log.rs`) must not refuse
//! a file whose log is its own: a log that begins with the server's begun first-page commit
//! and goes on with writes already copied into the file (a reader's snapshot kept the
//! checkpoint from restarting the log, or a server was stopped between its checkpoint and
//! beginning the next log).

use std::path::Path;

use anyhow::ensure;
use serde_json::json;

use crate::support::file_events::exported_names;
use crate::support::{TempDir, side};

fn record(name: &str, note: &str) -> anyhow::Result<review_mcp::store::NewRecord> {
    Ok(review_mcp::store::NewRecord {
        artifact: serde_json::from_value(json!({
            "revision": "sha256:".to_string() + &"a".repeat(64),
            "format": "step",
            "uri": "file:///guard/part.step"
        }))?,
        name: Some(name.into()),
        note: Some(note.into()),
        tags: vec![],
        entity_ids: vec![],
        id_scheme: "opaque".into(),
    })
}

/// A server's store with its log begun, then a write that grows the file (its first page
/// changes: the page count).
fn begun_then_grown(db: &Path) -> anyhow::Result<review_mcp::store::Store> {
    let mut store = review_mcp::store::Store::open(db)?;
    store.remember(&record("first", "n")?)?;
    store.checkpoint_and_begin_log()?;
    store.remember(&record("grown", &"x".repeat(20_000))?)?;
    Ok(store)
}

/// A reader whose snapshot holds the write keeps the server's checkpoint from restarting
/// the log (the write is copied into the file, the log keeps its frames): meanwhile another
/// process opening the file (`export`, `check`, a second server) must open it, not refuse
/// it as a replaced file.
#[test]
fn a_log_kept_by_a_readers_snapshot_is_not_taken_for_a_replaced_files() -> anyhow::Result<()> {
    let dir = TempDir::new("guard-reader")?;
    let db = dir.join("review.db");
    let mut store = begun_then_grown(&db)?;
    let reader = rusqlite::Connection::open(&db)?;
    reader.execute_batch("BEGIN")?;
    let n: i64 = reader.query_row("SELECT count(*) FROM records", [], |r| r.get(0))?;
    ensure!(n == 2);
    let done = store.checkpoint_and_begin_log()?;
    ensure!(
        done == review_mcp::store::Checkpoint::Incomplete,
        "the reader did not keep the log: this test no longer tests anything ({done:?})"
    );
    let names = exported_names(&db)?;
    ensure!(
        names == vec!["first".to_string(), "grown".to_string()],
        "{names:?}"
    );
    let mut second = review_mcp::store::Store::open(&db)?;
    ensure!(second.schema_version()? > 0);
    reader.execute_batch("COMMIT")?;
    Ok(())
}

/// A server stopped between its checkpoint (`RESTART`: the file holds everything, the log
/// keeps its frames) and beginning the next log: the file with that log opens whole.
#[test]
fn a_server_stopped_between_checkpoint_and_begin_leaves_an_openable_file() -> anyhow::Result<()> {
    let dir = TempDir::new("guard-restart")?;
    let db = dir.join("review.db");
    let store = begun_then_grown(&db)?;
    // The server's checkpoint, by another connection: the log is copied, not restarted yet.
    let other = rusqlite::Connection::open(&db)?;
    let busy: i64 = other.query_row("PRAGMA wal_checkpoint(RESTART)", [], |r| r.get(0))?;
    ensure!(busy == 0);
    ensure!(std::fs::metadata(side(&db, "-wal"))?.len() > 0);
    // What a kill at this moment leaves on disk.
    let copy = dir.join("copy/review.db");
    std::fs::create_dir_all(dir.join("copy"))?;
    for suffix in ["", "-wal"] {
        std::fs::copy(side(&db, suffix), side(&copy, suffix))?;
    }
    drop(other);
    drop(store);
    let names = exported_names(&copy)?;
    ensure!(
        names == vec!["first".to_string(), "grown".to_string()],
        "{names:?}"
    );
    crate::support::check_database(&copy)?;
    Ok(())
}
