//! Recall cursors: the one cursor format ([`crate::cursor`]) over a recall's keyset
//! position, sealed with the database's secret and a fingerprint of the query's filters.

use sha2::{Digest, Sha256};

use super::ToolError;
use super::schema::DEFAULT_PAGE;
use crate::cursor::{self, Cursor};
use crate::store::{Page, PageRequest, Position, Store};

/// The cursors of one query: sealed with the database's secret and a fingerprint of the
/// tool's filters (not its page size).
pub struct Pager {
    secret: Vec<u8>,
    fingerprint: String,
}

impl Pager {
    /// The pager of `tool`'s query with `filters`, and where its page of `limit` items
    /// (default [`DEFAULT_PAGE`]) starts: the first page (no cursor) or just after a decoded
    /// cursor of the same query.
    pub fn open(
        store: &mut Store,
        tool: &str,
        filters: &impl std::fmt::Debug,
        cursor: Option<&str>,
        limit: Option<u64>,
    ) -> Result<(Pager, PageRequest), ToolError> {
        let pager = Pager {
            secret: store.cursor_secret()?,
            fingerprint: cursor::hex16(&Sha256::digest(format!("{tool}|{filters:?}"))),
        };
        let start = cursor
            .map(|c| cursor::decode(&pager.secret, &pager.fingerprint, c))
            .transpose()
            .map_err(|cursor::Invalid| {
                ToolError::Invalid(
                    "Invalid cursor: it was altered, it belongs to a query with other filters, or another database issued it. Start again without cursor, sending the same filters on every page."
                        .into(),
                )
            })?;
        let request = PageRequest {
            snapshot: start.map(|c| c.snapshot),
            after: start.map(|c| Position {
                tier: c.tier,
                seq: c.seq,
            }),
            limit: usize::try_from(limit.unwrap_or(DEFAULT_PAGE)).unwrap_or(50),
        };
        Ok((pager, request))
    }

    /// The `next_cursor` of a page: present only when more rows follow.
    pub fn next<T>(&self, page: &Page<T>) -> Option<String> {
        match (page.more, page.items.last()) {
            (true, Some((_, pos))) => Some(cursor::encode(
                &self.secret,
                &self.fingerprint,
                Cursor {
                    snapshot: page.snapshot,
                    tier: pos.tier,
                    seq: pos.seq,
                },
            )),
            _ => None,
        }
    }
}
