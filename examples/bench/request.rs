//! The largest-request rows (issue 12): the peak memory of a server that has answered the
//! largest valid request (a 16 MiB line of a million entity ids, just under the value bound),
//! and of one that has refused a million failing items. Each on a fresh server, so the high
//! water mark is that request's.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use serde_json::{Value, json};

use crate::wire::Server;

const REV: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// 259 basis items of 4,000 faces of 13 characters: 16.6 MB on the wire (under the 16 MiB
/// line limit) and 1,037,000 values (under the 2^20 value bound).
fn largest_valid() -> Value {
    let faces: Vec<String> = (0..4000).map(|i| format!("face:{i:08}")).collect();
    let item =
        json!({"requirement": "r", "source": "drawing", "state": "satisfied", "faces": faces});
    json!({"name": "remember_decision", "arguments": {
        "artifact": {"revision": REV, "format": "step"},
        "subject": "largest request", "disposition": "hold",
        "basis": vec![item; 259]}})
}

/// A million entity ids that each fail the schema (numbers, and ten thousand at most).
fn million_failing() -> Value {
    json!({"name": "remember", "arguments": {
        "artifact": {"revision": REV, "format": "step"},
        "name": "n", "entity_ids": vec![0; 1_000_000]}})
}

fn measure(bin: &Path, db: &Path, params: Value) -> Result<(u64, Duration, usize)> {
    let line_len = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": &params})
        .to_string()
        .len();
    let mut s = Server::spawn(bin, db)?;
    s.initialize()?;
    let (t, _) = s.round_trip_method("tools/call", params)?;
    let hwm = s.vm_hwm()?;
    s.close()?;
    Ok((hwm, t, line_len))
}

/// The rows, formatted for printing after the main table.
pub fn rows(bin: &Path, dir: &Path) -> Result<String> {
    let db = dir.join("largest-request.db");
    let mut out = String::from("largest requests (fresh server each; target: peak ≤ 256 MiB):\n");
    for (what, params) in [
        ("largest valid request", largest_valid()),
        ("a million failing items, refused", million_failing()),
    ] {
        let (hwm, t, len) = measure(bin, &db, params)?;
        let mib = hwm as f64 / 1024.0 / 1024.0;
        let _ = writeln!(
            out,
            "  {what} ({:.1} MB line): peak resident memory (VmHWM) {mib:.1} MiB {}, answered in {:.0} ms",
            len as f64 / 1e6,
            if hwm <= 256 * 1024 * 1024 {
                "ok"
            } else {
                "OVER"
            },
            t.as_secs_f64() * 1000.0
        );
    }
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(dir.join(format!("largest-request.db{suffix}")));
    }
    Ok(out)
}
