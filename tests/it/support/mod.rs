//! The one support module of the integration tests: temp dirs, a seeded random generator,
//! artifacts and revisions, the in-process client (`inproc`), the client of the real binary
//! (`client`), the file events and the reliability scenarios (`reliability.rs` runs them small,
//! `stress.rs` at full size).

pub mod client;
pub mod file_events;
pub mod git;
pub mod host;
pub mod inproc;
pub mod pty;
pub mod scenarios;
mod tempdir;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

pub use tempdir::TempDir;

/// The path of SQLite's companion file `suffix` (`-journal`, `-wal`, `-shm`) of `db`.
pub fn side(db: &Path, suffix: &str) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// SplitMix64: small, seedable, and the same sequence on every machine, so a failing run can
/// be repeated from its seed. The one generator of the tests (fuzz cases, the hostile stream,
/// kill points, random bytes).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| (self.next_u64() >> 24) as u8).collect()
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn sha256_file(path: &Path) -> anyhow::Result<String> {
    Ok(sha256_hex(&std::fs::read(path)?))
}

/// The revision string of a part identified by `seed`: `sha256:` + 64 lowercase hex.
pub fn revision(seed: &str) -> String {
    format!("sha256:{}", sha256_hex(seed.as_bytes()))
}

/// An artifact at `uri` (a POSIX path the server normalises to `file:`), revision from `seed`.
pub fn artifact(seed: &str, uri: &str) -> Value {
    json!({"revision": revision(seed), "format": "step", "uri": uri})
}

/// `n` basis items whose requirements say their position, so a reader can tell a complete
/// decision from a torn one. States cycle through all five; the two that need a question
/// get one.
pub fn basis(n: usize) -> Value {
    const STATES: [&str; 5] = [
        "satisfied",
        "violated",
        "unresolved",
        "conflicting",
        "not-applicable",
    ];
    const SOURCES: [&str; 4] = ["drawing", "model-pmi", "shop-spec", "engineer-stated"];
    let items: Vec<Value> = (0..n)
        .map(|j| {
            let state = STATES[j % STATES.len()];
            let mut item = json!({
                "requirement": format!("requirement {j} of {n}"),
                "source": SOURCES[j % SOURCES.len()],
                "state": state,
                "faces": [format!("face:{j}")],
            });
            if state == "unresolved" || state == "conflicting" {
                item["question"] = json!(format!("question {j} of {n}?"));
            }
            item
        })
        .collect();
    Value::Array(items)
}

/// A decision's `summary` for write `w` with an `n`-item basis: `w<w> basis=<n>`. The
/// promise lets any reader tell a complete decision from a torn one, and which write it is.
pub fn decision_summary(w: usize, n: usize) -> String {
    format!("w{w} basis={n}")
}

/// The basis length a decision's summary promises.
pub fn promised_basis_len(decision: &Value) -> Option<usize> {
    let summary = decision["summary"].as_str()?;
    summary.rsplit_once("basis=")?.1.parse().ok()
}

/// The write index `w<i>` carried by a tag list or a summary.
pub fn write_index<'a>(mut words: impl Iterator<Item = &'a str>) -> Option<usize> {
    words.find_map(|w| w.strip_prefix('w')?.parse().ok())
}

pub fn record_write_index(record: &Value) -> Option<usize> {
    let tags = record["tags"].as_array()?;
    write_index(tags.iter().filter_map(Value::as_str))
}

pub fn decision_write_index(decision: &Value) -> Option<usize> {
    write_index(decision["summary"].as_str()?.split_whitespace())
}

/// Checks a recalled decision against the promise in its summary: the basis has exactly the
/// promised number of items, each the one its writer wrote at that position. Returns what is
/// wrong, if anything.
pub fn torn_decision(decision: &Value) -> Option<String> {
    let subject = decision["subject"].as_str().unwrap_or_default();
    let Some(n) = promised_basis_len(decision) else {
        return Some(format!("decision {subject:?} lost its summary: {decision}"));
    };
    let items = decision["basis"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    if items.len() != n {
        return Some(format!(
            "decision {subject:?} has {} basis items, its writer wrote {n}",
            items.len()
        ));
    }
    for (j, item) in items.iter().enumerate() {
        let want = format!("requirement {j} of {n}");
        if item["requirement"].as_str() != Some(want.as_str()) {
            return Some(format!(
                "decision {subject:?} basis item {j} is {}, expected {want:?}",
                item["requirement"]
            ));
        }
    }
    None
}

/// `PRAGMA integrity_check` and `PRAGMA foreign_key_check` through a connection of our own:
/// the first must say `ok`, the second must find no row pointing at a missing parent (a basis
/// row without its decision is exactly such a row).
pub fn check_database(db: &Path) -> anyhow::Result<()> {
    let conn = rusqlite::Connection::open_with_flags(
        db,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let integrity: Vec<String> = conn
        .prepare("PRAGMA integrity_check")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    anyhow::ensure!(
        integrity == ["ok"],
        "integrity_check of {}: {integrity:?}",
        db.display()
    );
    let orphans: Vec<String> = conn
        .prepare("PRAGMA foreign_key_check")?
        .query_map([], |r| {
            let table: String = r.get(0)?;
            let parent: String = r.get(2)?;
            Ok(format!("{table} -> {parent}"))
        })?
        .collect::<Result<_, _>>()?;
    anyhow::ensure!(
        orphans.is_empty(),
        "rows without their parent in {}: {orphans:?}",
        db.display()
    );
    Ok(())
}
