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
        ("largest request line, schema-valid", largest_valid()),
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
    let (hwm, t, answer_len, served) = largest_page(bin, &dir.join("largest-page.db"))?;
    let _ = writeln!(
        out,
        "  largest page (recall over 12 records of 10,000 entity ids of 256 characters): {served} records in a {:.1} MB answer line (bound 16 MiB), peak resident memory (VmHWM) {:.1} MiB {}, answered in {:.0} ms",
        answer_len as f64 / 1e6,
        hwm as f64 / 1024.0 / 1024.0,
        if hwm <= 256 * 1024 * 1024 {
            "ok"
        } else {
            "OVER"
        },
        t.as_secs_f64() * 1000.0
    );
    for name in ["largest-request.db", "largest-page.db"] {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let _ = std::fs::remove_file(dir.join(format!("{name}{suffix}")));
        }
    }
    Ok(out)
}

/// A recall whose page is cut by the answer's byte bound: twelve records as large as the
/// limits allow (10,000 entity ids of 256 characters, about 2.6 MB each), then a recall of
/// all of them on a fresh server. Returns its peak memory, the time, the answer line's
/// length and how many records the page served.
fn largest_page(bin: &Path, db: &Path) -> Result<(u64, Duration, usize, usize)> {
    let mut s = Server::spawn(bin, db)?;
    s.initialize()?;
    for i in 0..12 {
        let ids: Vec<String> = (0..10_000)
            .map(|j| format!("face:{i:02}:{j:05}:{}", "x".repeat(240)))
            .collect();
        s.round_trip_method(
            "tools/call",
            json!({"name": "remember", "arguments": {
                "artifact": {"revision": REV, "format": "step"},
                "name": format!("large {i}"), "entity_ids": ids}}),
        )?;
    }
    s.close()?;
    let mut s = Server::spawn(bin, db)?;
    s.initialize()?;
    let (t, result) = s.round_trip_method(
        "tools/call",
        json!({"name": "recall", "arguments": {"artifact": {"revision": REV, "format": "step"}}}),
    )?;
    let answer_len = s.last_line_len();
    let served = result["structuredContent"]["records"]
        .as_array()
        .map_or(0, Vec::len);
    let hwm = s.vm_hwm()?;
    s.close()?;
    Ok((hwm, t, answer_len, served))
}
