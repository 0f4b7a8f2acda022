//! Recall cursors: self-contained and opaque keyset positions.
//!
//! A cursor carries the snapshot (the write counter when page 1 was served) and the last
//! position served, sealed with a sha256 checksum over those numbers and a fingerprint of
//! the query's filters. A cursor that was edited, truncated, or minted for other filters
//! (or the other recall tool) fails the checksum and is refused. Nothing is kept in the
//! process, so a cursor also works in another server process sharing the file.

use sha2::{Digest, Sha256};

use super::ToolError;
use crate::store::{Page, PageRequest, Position};

/// Where the next page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub snapshot: i64,
    pub after: Position,
}

fn seal(fingerprint: &str, snapshot: i64, tier: i64, seq: i64) -> String {
    let digest = Sha256::digest(format!(
        "review-mcp cursor v1|{fingerprint}|{snapshot}|{tier}|{seq}"
    ));
    digest.iter().take(10).map(|b| format!("{b:02x}")).collect()
}

/// Mints the cursor after `after` for the query whose filters `fingerprint` describes.
pub fn encode(fingerprint: &str, snapshot: i64, after: Position) -> String {
    let mac = seal(fingerprint, snapshot, after.tier, after.seq);
    format!("c1.{snapshot:x}.{:x}.{:x}.{mac}", after.tier, after.seq)
}

/// Reads a cursor back, refusing anything not minted by [`encode`] for the same filters.
pub fn decode(fingerprint: &str, cursor: &str) -> Result<Cursor, ToolError> {
    let invalid = || {
        ToolError::Invalid(
            "Invalid cursor: it was altered, or it belongs to a query with other filters. Start again without cursor, sending the same filters on every page."
                .into(),
        )
    };
    let parts: Vec<&str> = cursor.split('.').collect();
    let [tag, snap, tier, seq, mac] = parts.as_slice() else {
        return Err(invalid());
    };
    if *tag != "c1" {
        return Err(invalid());
    }
    let num = |s: &str| i64::from_str_radix(s, 16).map_err(|_| invalid());
    let (snapshot, tier, seq) = (num(snap)?, num(tier)?, num(seq)?);
    if seal(fingerprint, snapshot, tier, seq) != *mac {
        return Err(invalid());
    }
    Ok(Cursor {
        snapshot,
        after: Position { tier, seq },
    })
}

/// A fingerprint of a tool's filters (not its page size).
pub fn fingerprint(tool: &str, filters: &impl std::fmt::Debug) -> String {
    let digest = Sha256::digest(format!("{tool}|{filters:?}"));
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Where a recall page starts: the first page (no cursor) or just after a decoded cursor of
/// the same query.
pub fn page_request(
    fingerprint: &str,
    cursor: Option<&str>,
    limit: u64,
) -> Result<PageRequest, ToolError> {
    let start = cursor.map(|c| decode(fingerprint, c)).transpose()?;
    Ok(PageRequest {
        snapshot: start.map(|c| c.snapshot),
        after: start.map(|c| c.after),
        limit: usize::try_from(limit).unwrap_or(50),
    })
}

/// The `next_cursor` of a page: present only when more rows follow.
pub fn next<T>(fingerprint: &str, page: &Page<T>) -> Option<String> {
    match (page.more, page.items.last()) {
        (true, Some((_, pos))) => Some(encode(fingerprint, page.snapshot, *pos)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trip_and_tampering_refused() {
        let pos = Position { tier: 1, seq: 42 };
        let c = encode("fp", 100, pos);
        assert_eq!(
            decode("fp", &c).unwrap(),
            Cursor {
                snapshot: 100,
                after: pos
            }
        );
        assert!(decode("other", &c).is_err());
        assert!(decode("fp", &c[..c.len() - 1]).is_err());
        assert!(decode("fp", &c.replace(".2a.", ".2b.")).is_err());
        assert!(decode("fp", "").is_err());
        assert!(decode("fp", "c1.....").is_err());
    }
}
