//! Recall cursors: self-contained and opaque keyset positions.
//!
//! A cursor carries the snapshot (the write counter when page 1 was served) and the last
//! position served, sealed with HMAC-SHA256 over those numbers and a fingerprint of the
//! query's filters, keyed by the database's own random secret (`Store::cursor_secret`). A
//! cursor that was edited, truncated, minted for other filters (or the other recall tool),
//! or minted by another database fails the seal and is refused, all with the same message.
//! Nothing is kept in the process, so a cursor also works in another server process sharing
//! the file.

use sha2::{Digest, Sha256};

use super::ToolError;
use crate::store::{Page, PageRequest, Position};

/// Where the next page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub snapshot: i64,
    pub after: Position,
}

/// HMAC-SHA256 (RFC 2104), written over `sha2` because the runtime dependencies have no
/// MAC crate. The 64-byte block of SHA-256; a longer key is hashed first, as the RFC says.
pub(super) fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > block.len() {
        let digest = Sha256::digest(key);
        block[..digest.len()].copy_from_slice(&digest);
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    let outer = Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize();
    let mut out = [0u8; 32];
    out.copy_from_slice(&outer);
    out
}

/// The seal: the first 16 bytes (128 bits) of the MAC, in hex.
fn seal(secret: &[u8], fingerprint: &str, snapshot: i64, tier: i64, seq: i64) -> String {
    let mac = hmac_sha256(
        secret,
        format!("review-mcp cursor v2|{fingerprint}|{snapshot}|{tier}|{seq}").as_bytes(),
    );
    mac.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Mints the cursor after `after` for the query whose filters `fingerprint` describes.
pub fn encode(secret: &[u8], fingerprint: &str, snapshot: i64, after: Position) -> String {
    let mac = seal(secret, fingerprint, snapshot, after.tier, after.seq);
    format!("c2.{snapshot:x}.{:x}.{:x}.{mac}", after.tier, after.seq)
}

/// Reads a cursor back, refusing anything not minted by [`encode`] with the same secret for
/// the same filters.
pub fn decode(secret: &[u8], fingerprint: &str, cursor: &str) -> Result<Cursor, ToolError> {
    let invalid = || {
        ToolError::Invalid(
            "Invalid cursor: it was altered, it belongs to a query with other filters, or another database issued it. Start again without cursor, sending the same filters on every page."
                .into(),
        )
    };
    let parts: Vec<&str> = cursor.split('.').collect();
    let [tag, snap, tier, seq, _seal] = parts.as_slice() else {
        return Err(invalid());
    };
    if *tag != "c2" {
        return Err(invalid());
    }
    let num = |s: &str| i64::from_str_radix(s, 16).map_err(|_| invalid());
    let (snapshot, tier, seq) = (num(snap)?, num(tier)?, num(seq)?);
    // The cursor must be exactly the one [`encode`] writes for these numbers: that checks
    // the seal, and refuses other spellings of the same numbers (`+5`, `0004`).
    let after = Position { tier, seq };
    if !same_bytes(&encode(secret, fingerprint, snapshot, after), cursor) {
        return Err(invalid());
    }
    Ok(Cursor { snapshot, after })
}

/// Whether two strings are equal, comparing every byte whatever the first difference, so
/// the time taken does not tell how much of a forged seal was right.
fn same_bytes(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// A fingerprint of a tool's filters (not its page size).
pub fn fingerprint(tool: &str, filters: &impl std::fmt::Debug) -> String {
    let digest = Sha256::digest(format!("{tool}|{filters:?}"));
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Where a recall page starts: the first page (no cursor) or just after a decoded cursor of
/// the same query.
pub fn page_request(
    secret: &[u8],
    fingerprint: &str,
    cursor: Option<&str>,
    limit: u64,
) -> Result<PageRequest, ToolError> {
    let start = cursor.map(|c| decode(secret, fingerprint, c)).transpose()?;
    Ok(PageRequest {
        snapshot: start.map(|c| c.snapshot),
        after: start.map(|c| c.after),
        limit: usize::try_from(limit).unwrap_or(50),
    })
}

/// The `next_cursor` of a page: present only when more rows follow.
pub fn next<T>(secret: &[u8], fingerprint: &str, page: &Page<T>) -> Option<String> {
    match (page.more, page.items.last()) {
        (true, Some((_, pos))) => Some(encode(secret, fingerprint, page.snapshot, *pos)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trip_and_tampering_refused() {
        let key = [7u8; 32];
        let pos = Position { tier: 1, seq: 42 };
        let c = encode(&key, "fp", 100, pos);
        assert_eq!(
            decode(&key, "fp", &c).unwrap(),
            Cursor {
                snapshot: 100,
                after: pos
            }
        );
        assert!(decode(&key, "other", &c).is_err());
        assert!(
            decode(&[8u8; 32], "fp", &c).is_err(),
            "another database's secret"
        );
        assert!(decode(&key, "fp", &c[..c.len() - 1]).is_err());
        assert!(decode(&key, "fp", &c.replace(".2a.", ".2b.")).is_err());
        assert!(decode(&key, "fp", &c.replacen("c2.", "c1.", 1)).is_err());
        assert!(decode(&key, "fp", "").is_err());
        assert!(decode(&key, "fp", "c2.....").is_err());
        // The same numbers spelled otherwise are not the cursor that was issued.
        let parts: Vec<&str> = c.split('.').collect();
        for odd in [
            format!("c2.+{}.{}.{}.{}", parts[1], parts[2], parts[3], parts[4]),
            format!("c2.0{}.{}.{}.{}", parts[1], parts[2], parts[3], parts[4]),
            format!(
                "c2.{}.{}.{}.{}",
                parts[1],
                parts[2],
                parts[3],
                parts[4].to_uppercase()
            ),
        ] {
            assert!(decode(&key, "fp", &odd).is_err(), "{odd} was accepted");
        }
    }

    /// RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        let hex = |b: [u8; 32]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(hmac_sha256(&[0x0b; 20], b"Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex(hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hex(hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }
}
