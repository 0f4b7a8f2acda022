//! The one cursor format of every list: `c2.<snapshot>.<tier>.<seq>.<seal>` (hex numbers),
//! self-contained and opaque.
//!
//! A cursor carries the snapshot (the write counter when page 1 was served, 0 for a list
//! that does not change), the last position served (a tier and a seq), sealed with
//! HMAC-SHA256 over those numbers and a fingerprint of the list and its filters. The key is
//! the database's own random secret (`Store::cursor_secret`) for lists of stored things
//! (recall, `resources/list`), and [`STATIC_KEY`] for the catalogs, which need no database.
//! A cursor that was edited, truncated, or minted for another list, other filters or another
//! database fails the seal and is refused. Nothing is kept in the process, so a cursor also
//! works in another server process sharing the file.

use sha2::{Digest, Sha256};

/// The key of the catalogs' cursors (`tools/list`, `prompts/list`,
/// `resources/templates/list`): those lists are the same in every process, so the seal only
/// keeps the format one and refuses a cursor of another list or an edited one.
pub const STATIC_KEY: &[u8] = b"review-mcp static lists";

/// Where the next page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub snapshot: i64,
    pub tier: i64,
    pub seq: i64,
}

/// A cursor this server did not issue for this list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid;

/// HMAC-SHA256 (RFC 2104), written over `sha2` because the runtime dependencies have no
/// MAC crate. The 64-byte block of SHA-256; a longer key is hashed first, as the RFC says.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
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

/// The first 16 bytes (128 bits) of a digest, in hex: the seals and fingerprints.
pub fn hex16(digest: &[u8]) -> String {
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// The seal of `message`: its MAC under `secret`, cut by [`hex16`].
pub fn mac(secret: &[u8], message: &str) -> String {
    hex16(&hmac_sha256(secret, message.as_bytes()))
}

/// The seal of cursor `c`.
fn seal(secret: &[u8], fingerprint: &str, c: Cursor) -> String {
    mac(
        secret,
        &format!(
            "review-mcp cursor v2|{fingerprint}|{}|{}|{}",
            c.snapshot, c.tier, c.seq
        ),
    )
}

/// Mints the cursor `c` for the list whose filters `fingerprint` describes.
pub fn encode(secret: &[u8], fingerprint: &str, c: Cursor) -> String {
    let mac = seal(secret, fingerprint, c);
    format!("c2.{:x}.{:x}.{:x}.{mac}", c.snapshot, c.tier, c.seq)
}

/// Reads a cursor back, refusing anything not minted by [`encode`] with the same secret for
/// the same fingerprint.
pub fn decode(secret: &[u8], fingerprint: &str, cursor: &str) -> Result<Cursor, Invalid> {
    let parts: Vec<&str> = cursor.split('.').collect();
    let [tag, snap, tier, seq, _seal] = parts.as_slice() else {
        return Err(Invalid);
    };
    if *tag != "c2" {
        return Err(Invalid);
    }
    let num = |s: &str| i64::from_str_radix(s, 16).map_err(|_| Invalid);
    let c = Cursor {
        snapshot: num(snap)?,
        tier: num(tier)?,
        seq: num(seq)?,
    };
    // The cursor must be exactly the one [`encode`] writes for these numbers: that checks
    // the seal, and refuses other spellings of the same numbers (`+5`, `0004`).
    if !same_bytes(&encode(secret, fingerprint, c), cursor) {
        return Err(Invalid);
    }
    Ok(c)
}

/// Whether two strings are equal, comparing every byte whatever the first difference, so
/// the time taken does not tell how much of a forged seal was right.
pub fn same_bytes(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trip_and_tampering_refused() {
        let key = [7u8; 32];
        let pos = Cursor {
            snapshot: 100,
            tier: 1,
            seq: 42,
        };
        let c = encode(&key, "fp", pos);
        assert_eq!(decode(&key, "fp", &c), Ok(pos));
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
