//! Servers keep working on a database while `review-mcp sync` runs on it: every write a
//! server answered during the sync is in the database afterwards, and the next sync carries it
//! to the folder.

use std::process::Command;

use anyhow::ensure;
use serde_json::json;

use crate::support::client::{Server, binary};
use crate::support::{TempDir, artifact};

#[test]
fn sync_while_a_server_writes_loses_no_answered_write() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-servers")?;
    let db = dir.join("r.db");
    let folder = dir.join("review");
    let mut server = Server::start(&db)?;
    let art = artifact("part", "/work/part.step");
    for i in 0..300 {
        server
            .call(
                "remember",
                json!({"artifact": art, "name": format!("seed {i}"), "note": "x", "entity_ids": []}),
            )?
            .ok()?;
    }
    let sync = || {
        Command::new(binary())
            .arg("--db")
            .arg(&db)
            .arg("sync")
            .arg(&folder)
            .env("MCP_LOG_LEVEL", "warn")
            .output()
    };
    let (first, answered) = std::thread::scope(|scope| -> anyhow::Result<_> {
        let running = scope.spawn(sync);
        let mut answered = 0;
        while !running.is_finished() || answered < 20 {
            server
                .call(
                    "remember",
                    json!({"artifact": art, "name": format!("during {answered}"),
                           "note": "written while a sync ran", "entity_ids": []}),
                )?
                .ok()?;
            answered += 1;
        }
        let out = running
            .join()
            .map_err(|_| anyhow::anyhow!("the sync thread panicked"))??;
        Ok((out, answered))
    })?;
    ensure!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let second = sync()?;
    ensure!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let files = std::fs::read_dir(folder.join("records"))?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .count();
    assert_eq!(
        files,
        300 + answered,
        "every answered write reached the folder"
    );
    let status = server.close()?;
    ensure!(status.success());
    Ok(())
}
