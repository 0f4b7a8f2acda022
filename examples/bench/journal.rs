//! What each journal costs: the same named `remember` through the store, once in WAL mode as
//! this version writes (each write followed, untimed, by the checkpoint a server runs after
//! its answer) and once in the rollback journal of the previous version, in the same run on
//! the same disk, interleaved in blocks so that drift of the disk hits both alike.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use review_mcp::review::Artifact;
use review_mcp::store::{Journal, NewRecord, Store};

use crate::wire::Stats;

/// p50 figures of both journals in one directory.
pub struct JournalCost {
    pub wal: Stats,
    pub persist: Stats,
}

/// `calls` named remembers per journal, in blocks of 50 alternating between the two files.
pub fn measure(dir: &Path, calls: usize) -> Result<JournalCost> {
    let wal_db = dir.join("journal-wal.db");
    let persist_db = dir.join("journal-persist.db");
    for db in [&wal_db, &persist_db] {
        crate::remove_db(db);
    }
    let mut wal = Store::open_with(&wal_db, Journal::Wal)?;
    let mut persist = Store::open_with(&persist_db, Journal::Persist)?;
    let mut times = (Vec::with_capacity(calls), Vec::with_capacity(calls));
    let mut i = 0;
    while i < calls {
        for (store, out) in [(&mut wal, &mut times.0), (&mut persist, &mut times.1)] {
            for j in i..(i + 50).min(calls) {
                let rec = record(j);
                let t = Instant::now();
                store.remember(&rec)?;
                out.push(t.elapsed());
                // As a server does after each answer (nothing to do in the rollback journal).
                store.checkpoint()?;
            }
        }
        i += 50;
    }
    drop((wal, persist));
    for db in [&wal_db, &persist_db] {
        crate::remove_db(db);
    }
    Ok(JournalCost {
        wal: Stats::new(times.0),
        persist: Stats::new(times.1),
    })
}

/// A named feature like the benchmark's own: 40 names that each call replaces in turn.
pub(crate) fn record(i: usize) -> NewRecord {
    NewRecord {
        artifact: Artifact {
            revision: format!("sha256:{:064x}", i % 7),
            format: "step".into(),
            uri: Some("file:///bench/journal.step".into()),
            units: Some("mm".into()),
        },
        name: Some(format!("feature {}", i % 40)),
        note: Some(format!(
            "note {i}: the mating face keeps flatness 0.02 over the bore"
        )),
        tags: vec!["datum".into(), format!("t{}", i % 5)],
        entity_ids: vec![format!("face:{}", i % 13)],
        id_scheme: "occt-topo".into(),
    }
}

/// The ratio of the two p50s, as text.
pub fn ratio(cost: &JournalCost) -> String {
    let us = |d: Duration| d.as_secs_f64();
    format!("{:.2}x", us(cost.persist.p50()) / us(cost.wal.p50()))
}
