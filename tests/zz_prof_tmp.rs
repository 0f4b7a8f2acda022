#![allow(clippy::expect_used, clippy::unwrap_used)]
use std::time::Instant;
use review_mcp::store::Store;
use serde_json::json;

#[test]
fn prof() {
    let db = std::path::PathBuf::from("/tmp/rvbench/b.db");
    let mut store = Store::open(&db).unwrap();
    let rev = format!("sha256:{:064x}", 5);
    let mut v = Vec::new();
    for i in 0..2000 {
        let args = json!({"artifact": {"revision": rev, "format": "step", "uri": "/w/x.step"}, "entity_ids": ["face:1", "edge:2"], "note": format!("bench note about the mating flange {i}"), "tags": ["t1", "all"]});
        let s = Instant::now();
        review_mcp::tools::run(&mut store, "remember", &args).unwrap();
        v.push(s.elapsed().as_micros());
    }
    v.sort();
    eprintln!("remember p50 {}us p90 {}us p99 {}us", v[1000], v[1800], v[1980]);
}
