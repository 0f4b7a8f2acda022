//! Record and decision ids: a prefix plus 16 hex digits of a sha256 over the time, the
//! process id, a per-process counter and the write sequence, so two processes sharing one
//! file (or an import) never mint the same id.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use super::hashing::hex;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh id such as `rec_3f9a0c1b2d4e5f60`.
pub fn mint(prefix: &str, seq: i64) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let digest = Sha256::digest(format!("{nanos}:{}:{n}:{seq}", std::process::id()));
    with_prefix(prefix, &digest)
}

/// The id of an item derived from others, the same in every database that derives it: the
/// prefix plus 16 hex digits of a sha256 over `parts`. `carry_forward` names what it writes
/// so (the carried copy of an item at a revision, the superseded copy of a feature), so two
/// clones that carry the same review to the same revision write items of the same ids,
/// which a sync then meets as two versions of one item instead of two items.
pub fn derive(prefix: &str, parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for p in parts {
        hasher.update(p.len().to_le_bytes());
        hasher.update(p.as_bytes());
    }
    with_prefix(prefix, &hasher.finalize())
}

/// `prefix`, `_` and the first 16 hex digits of `digest`.
fn with_prefix(prefix: &str, digest: &[u8]) -> String {
    format!("{prefix}_{}", hex(digest.get(..8).unwrap_or(digest)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn derived_ids_depend_on_every_part_only() {
        let a = super::derive("rec", &["carried", "rec_1", "sha256:2"]);
        assert_eq!(a, super::derive("rec", &["carried", "rec_1", "sha256:2"]));
        assert_ne!(a, super::derive("rec", &["carried", "rec_1", "sha256:3"]));
        assert_ne!(a, super::derive("rec", &["carried", "rec_1sha256:2", ""]));
        assert!(a.starts_with("rec_") && a.len() == 20);
    }

    #[test]
    fn mint_successive_ids_differ() {
        let a = super::mint("rec", 1);
        let b = super::mint("rec", 1);
        assert_ne!(a, b);
        assert_eq!(a.len(), 20);
        assert!(a.starts_with("rec_"));
    }
}
