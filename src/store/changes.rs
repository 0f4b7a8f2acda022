//! Reading the change journal (schema version 5): the counter every write moves, and which
//! revisions a write touched since a given value of it. The triggers that keep it are in
//! `schema.rs`; they run in every process that writes the file.

use rusqlite::OptionalExtension;

use super::open::without_waiting;
use super::{Store, StoreError};

/// The change counter.
const CHANGE_COUNTER: &str = "SELECT value FROM counters WHERE name = 'change'";

/// Whether revision `?2`'s resource changed after change `?1`.
const CHANGED_SINCE: &str = "SELECT EXISTS (SELECT 1 FROM changes WHERE version > ?1 \
    AND (revision = ?2 OR locator IN (SELECT locator FROM changes WHERE revision = ?2)))";

impl Store {
    /// The change counter: it moves with every row a write inserts, replaces or deletes,
    /// whichever process wrote it. 0 for a file not created yet. Like every look here it does
    /// not wait for a lock another process holds: it fails at once, to be tried again later.
    pub fn change_version(&mut self) -> Result<i64, StoreError> {
        Ok(self.changes_since(None, &[])?.0)
    }

    /// The change counter now and, when it moved past `since`, which of `revisions` changed
    /// meanwhile: a write to the revision itself, or to another revision of a file the
    /// revision has rows for (its resource shows those as stale). One read transaction.
    pub fn changes_since(
        &mut self,
        since: Option<i64>,
        revisions: &[&str],
    ) -> Result<(i64, Vec<String>), StoreError> {
        without_waiting(|| {
            let tx = self.read()?;
            let now: i64 = tx
                .prepare_cached(CHANGE_COUNTER)?
                .query_row([], |r| r.get(0))
                .optional()?
                .unwrap_or(0);
            let mut changed = Vec::new();
            if let Some(since) = since.filter(|&s| s != now) {
                let mut stmt = tx.prepare_cached(CHANGED_SINCE)?;
                for rev in revisions {
                    if stmt.query_row(rusqlite::params![since, rev], |r| r.get::<_, bool>(0))? {
                        changed.push((*rev).to_string());
                    }
                }
            }
            Ok((now, changed))
        })
    }

    /// How many rows this connection's statements have changed since it opened: no query,
    /// no lock. A request that left it where it was wrote nothing.
    pub fn own_changes(&self) -> u64 {
        self.conn
            .as_ref()
            .map_or(0, rusqlite::Connection::total_changes)
            .saturating_sub(self.internal_changes)
    }

    /// The database file's and its `-wal`'s latest modification and change times and their
    /// sizes together, from two `stat`s: a commit by any process changes the log (and the
    /// checkpoint after it the file). `None` in memory or before the file exists.
    pub fn file_stamp(&self) -> Option<(std::time::SystemTime, std::time::SystemTime, u64)> {
        use std::os::unix::fs::MetadataExt;
        let path = self.path()?;
        let meta = std::fs::metadata(path).ok()?;
        let wal = std::fs::metadata(super::file::companion(path, "-wal")).ok();
        let times = |m: &std::fs::Metadata| {
            let ctime = std::time::UNIX_EPOCH
                + std::time::Duration::new(
                    u64::try_from(m.ctime()).unwrap_or(0),
                    u32::try_from(m.ctime_nsec()).unwrap_or(0),
                );
            (m.modified().ok(), ctime, m.len())
        };
        let (modified, ctime, len) = times(&meta);
        let (modified, ctime, len) = match wal.as_ref().map(times) {
            Some((m, c, l)) => (modified.max(m), ctime.max(c), len.wrapping_add(l)),
            None => (modified, ctime, len),
        };
        Some((modified?, ctime, len))
    }

    /// Runs `f` on this store with statements that give up at once when another process
    /// holds the lock (for looks that can be tried again later).
    pub fn without_waiting<T>(&mut self, f: impl FnOnce(&mut Store) -> T) -> T {
        without_waiting(|| f(self))
    }

    /// `PRAGMA data_version` of the open file: it moves when another connection commits. `None`
    /// while the file is not open yet (nothing to compare).
    pub fn data_version(&mut self) -> Result<Option<i64>, StoreError> {
        // The open connection as it is: no check of the file's identity (the next
        // transaction does it), since this runs several times a second while idle; and like
        // every look here it does not wait for another process's lock.
        let Some(conn) = self.conn.as_mut() else {
            return Ok(None);
        };
        without_waiting(|| {
            let mut stmt = conn.prepare_cached("PRAGMA data_version")?;
            Ok(Some(stmt.query_row([], |r| r.get(0))?))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::Store;
    use super::super::fixtures::{REV, note_at};

    fn note(store: &mut Store, revision: &str, uri: &str) {
        store
            .remember(&note_at(revision, Some(uri.into())))
            .unwrap();
    }

    #[test]
    fn change_version_moves_with_every_write_and_names_the_revisions_touched() {
        let mut store = Store::open_in_memory().unwrap();
        let other = format!("sha256:{}", "b".repeat(64));
        let unrelated = format!("sha256:{}", "c".repeat(64));
        assert_eq!(store.change_version().unwrap(), 0);
        note(&mut store, REV, "file:///p/a.step");
        note(&mut store, &unrelated, "file:///p/z.step");
        let v = store.change_version().unwrap();
        assert!(v > 0);
        // A write to another revision of the same file changes REV's resource (its stale
        // part), not the unrelated one's.
        note(&mut store, &other, "file:///p/a.step");
        let (now, changed) = store
            .changes_since(Some(v), &[REV, &other, &unrelated])
            .unwrap();
        assert_eq!(changed, vec![REV.to_string(), other.clone()]);
        assert!(now > v);
        assert_eq!(store.change_version().unwrap(), now);
        assert!(store.changes_since(Some(now), &[REV]).unwrap().1.is_empty());
    }
}
