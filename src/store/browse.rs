//! Small lookups for browsing the store as resources: the URI a revision was last written
//! under, so a resource list can show a file name instead of a bare digest.

use rusqlite::OptionalExtension;

use super::{Store, StoreError};

impl Store {
    /// The `uri` of the most recent record or decision at `revision` that has one.
    pub fn revision_uri(&mut self, revision: &str) -> Result<Option<String>, StoreError> {
        let tx = self.read()?;
        let mut best: Option<(i64, String)> = None;
        for sql in [
            "SELECT seq, uri FROM records WHERE revision = ?1 AND uri IS NOT NULL ORDER BY seq DESC LIMIT 1",
            "SELECT seq, uri FROM decisions WHERE revision = ?1 AND uri IS NOT NULL ORDER BY seq DESC LIMIT 1",
        ] {
            let row: Option<(i64, String)> = tx
                .prepare_cached(sql)?
                .query_row([revision], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            if let Some(row) = row {
                if best.as_ref().is_none_or(|b| row.0 > b.0) {
                    best = Some(row);
                }
            }
        }
        Ok(best.map(|(_, uri)| uri))
    }
}
