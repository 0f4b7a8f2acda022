//! The review card's proof: what makes a `record_verdict` call the engineer's click in the
//! card they saw, and not a model's call in any host.
//!
//! Every result that shows the card decisions (`show_review`, `record_verdict`) carries, in
//! its `_meta` under [`META_KEY`], a proof per decision shown whole: an HMAC (SHA-256) of the
//! decision's id and the digests of its items as shown, under a key drawn from the operating
//! system's random source when the process starts and never written anywhere. Hosts hand a
//! result's `_meta` to the app they render and not to the model (the MCP Apps specification:
//! `_meta` is "not intended for model context"), so the card has the proof and the model has
//! not; the card sends it back with a click (`card_proof`), and the server recomputes it from
//! the decision as it stands. A call without it is refused; one whose proof does not match
//! the decision now (it changed, or the server restarted, or the proof was made up) writes
//! nothing and asks the card to show the decision again.
//!
//! Stateless: nothing is kept per render or per session, so it works the same in a legacy
//! session and in 2026-07-28's independent requests. A proof stays valid while the process
//! runs and the decision's items are unchanged (a verdict does not change an item's digest).

use std::sync::OnceLock;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::cursor::{mac, same_bytes};
use crate::review::Decision;

/// Where a result's `_meta` carries the proofs: `{"proofs": {"<decision id>": "<proof>"}}`.
pub const META_KEY: &str = "review-mcp/card";

/// How every proof begins; then how many of the decision's items were shown (an answer cut
/// to its bound may show the first ones only), a dot and 32 hex digits.
pub const PREFIX: &str = "cp1.";

/// The process's key: 32 bytes from the operating system, drawn once.
fn key() -> &'static [u8; 32] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut key = [0u8; 32];
        match std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key))
        {
            Ok(()) => key,
            Err(e) => {
                // No /dev/urandom (not a Unix): the key is derived from what this process
                // alone knows at start (time, id, addresses); weaker, and said so.
                log::warn!(
                    "/dev/urandom could not be read ({e}); the review card's proofs use a key derived from the time and the process"
                );
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or_default();
                let local = 0u8;
                Sha256::new()
                    .chain_update(now.to_le_bytes())
                    .chain_update(std::process::id().to_le_bytes())
                    .chain_update((&local as *const u8 as usize).to_le_bytes())
                    .chain_update(format!("{:?}", std::thread::current().id()))
                    .finalize()
                    .into()
            }
        }
    })
}

/// The proof of decision `id` shown with its first items, of these `digests`, in order.
fn proof_of<'a>(id: &str, digests: impl Iterator<Item = &'a str>) -> String {
    let mut message = String::new();
    let mut n = 0usize;
    for d in digests {
        message.push_str(d);
        message.push('\n');
        n += 1;
    }
    let message = format!("review-mcp card proof v1\n{id}\n{n}\n{message}");
    format!("{PREFIX}{n}.{}", mac(key(), &message))
}

/// How many items the proof `given` covers (the first ones of its decision), when it has
/// the form of a proof.
pub fn items_shown(given: &str) -> Option<usize> {
    let (n, hex) = given.strip_prefix(PREFIX)?.split_once('.')?;
    if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    n.parse().ok()
}

/// Whether `given` is the proof of `d` as it stands now, shown with its first
/// [`items_shown`] items (compared in constant time).
pub fn verify(d: &Decision, given: &str) -> bool {
    let Some(n) = items_shown(given).filter(|&n| n <= d.basis.len()) else {
        return false;
    };
    let digests: Vec<String> = d.basis.iter().take(n).map(|b| b.digest()).collect();
    let want = proof_of(&d.id, digests.iter().map(String::as_str));
    same_bytes(&want, given)
}

/// The `_meta` of a result that shows the card decisions in `shown` (a review answer, or one
/// decision): a proof for every decision of the revision shown with its items' digests (a
/// summary, without its items, gets none; a stale decision, of another revision, neither).
/// `None` when there is none.
pub fn meta_for(shown: &Value) -> Option<Map<String, Value>> {
    let mut proofs = Map::new();
    let mut add = |d: &Value| {
        // A decision of a revision carried on (superseded) is judged at the later revision,
        // which says what was judged here: shown without Accept and Reject.
        if d.get("superseded").is_some_and(|s| !s.is_null()) {
            return;
        }
        let (Some(id), Some(Value::Array(items))) =
            (d.get("id").and_then(Value::as_str), d.get("basis"))
        else {
            return;
        };
        let digests: Option<Vec<&str>> = items
            .iter()
            .map(|i| i.get("digest").and_then(Value::as_str))
            .collect();
        if let Some(digests) = digests {
            proofs.insert(
                id.to_string(),
                Value::String(proof_of(id, digests.into_iter())),
            );
        }
    };
    // The decisions of the revision shown, never its stale ones (another revision's: the
    // card shows them without Accept and Reject, so no click on them is the engineer's).
    if let Some(Value::Array(ds)) = shown.get("decisions") {
        ds.iter().for_each(&mut add);
    }
    if let Some(d) = shown.get("decision") {
        add(d);
    }
    if proofs.is_empty() {
        return None;
    }
    Some(Map::from_iter([(
        META_KEY.to_string(),
        serde_json::json!({"proofs": proofs}),
    )]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2_shape_and_differs_per_key_and_message() {
        // RFC 4231 test case 2 uses a 4-byte key; ours is always 32 bytes, so check the
        // construction against a 32-byte key padded as HMAC pads it: the same key with
        // trailing zero bytes gives the same MAC as the short key.
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        let hmac = crate::cursor::hmac_sha256;
        let mac = hmac(&key, b"what do ya want for nothing?");
        assert_eq!(
            crate::review::hashing::hex(&mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_ne!(hmac(&key, b"other"), mac);
    }

    #[test]
    fn a_proof_binds_the_decision_and_every_item_digest() {
        let p = proof_of("dec_a", ["d1", "d2"].into_iter());
        assert!(
            p.starts_with("cp1.2.") && p.len() == PREFIX.len() + 2 + 32,
            "{p}"
        );
        assert_eq!(items_shown(&p), Some(2));
        assert_eq!(items_shown("cp1.2.zz"), None);
        assert_eq!(p, proof_of("dec_a", ["d1", "d2"].into_iter()));
        assert_ne!(p, proof_of("dec_b", ["d1", "d2"].into_iter()));
        assert_ne!(p, proof_of("dec_a", ["d1", "d3"].into_iter()));
        assert_ne!(p, proof_of("dec_a", ["d1"].into_iter()));
        assert_ne!(p, proof_of("dec_a", ["d2", "d1"].into_iter()));
    }
}
