//! Record and decision ids: a prefix plus 16 hex digits of a sha256 over the time, the
//! process id, a per-process counter and the write sequence, so two processes sharing one
//! file (or an import) never mint the same id.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh id such as `rec_3f9a0c1b2d4e5f60`.
pub fn mint(prefix: &str, seq: i64) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let digest = Sha256::digest(format!("{nanos}:{}:{n}:{seq}", std::process::id()));
    let mut out = String::with_capacity(prefix.len() + 17);
    out.push_str(prefix);
    out.push('_');
    for b in digest.iter().take(8) {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn mint_successive_ids_differ() {
        let a = super::mint("rec", 1);
        let b = super::mint("rec", 1);
        assert_ne!(a, b);
        assert_eq!(a.len(), 20);
        assert!(a.starts_with("rec_"));
    }
}
