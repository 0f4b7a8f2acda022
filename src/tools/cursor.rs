//! Recall cursors: the one cursor format ([`crate::cursor`]) over a recall's keyset
//! position, sealed with the database's secret and a fingerprint of the query's filters.

use sha2::{Digest, Sha256};

use super::ToolError;
use crate::cursor::{self, Cursor};
use crate::store::{Page, PageRequest, Position};

/// A fingerprint of a tool's filters (not its page size).
pub fn fingerprint(tool: &str, filters: &impl std::fmt::Debug) -> String {
    cursor::hex16(&Sha256::digest(format!("{tool}|{filters:?}")))
}

/// Where a recall page starts: the first page (no cursor) or just after a decoded cursor of
/// the same query.
pub fn page_request(
    secret: &[u8],
    fingerprint: &str,
    cursor: Option<&str>,
    limit: u64,
) -> Result<PageRequest, ToolError> {
    let start = cursor
        .map(|c| cursor::decode(secret, fingerprint, c))
        .transpose()
        .map_err(|cursor::Invalid| {
            ToolError::Invalid(
                "Invalid cursor: it was altered, it belongs to a query with other filters, or another database issued it. Start again without cursor, sending the same filters on every page."
                    .into(),
            )
        })?;
    Ok(PageRequest {
        snapshot: start.map(|c| c.snapshot),
        after: start.map(|c| Position {
            tier: c.tier,
            seq: c.seq,
        }),
        limit: usize::try_from(limit).unwrap_or(50),
    })
}

/// The `next_cursor` of a page: present only when more rows follow.
pub fn next<T>(secret: &[u8], fingerprint: &str, page: &Page<T>) -> Option<String> {
    match (page.more, page.items.last()) {
        (true, Some((_, pos))) => Some(cursor::encode(
            secret,
            fingerprint,
            Cursor {
                snapshot: page.snapshot,
                tier: pos.tier,
                seq: pos.seq,
            },
        )),
        _ => None,
    }
}
