//! The database side of `review-mcp sync`: one write transaction in which a sync reads every
//! item and its base (what the item looked like in a folder at the last sync), and writes,
//! replaces and deletes items by id and the bases it leaves behind.
//!
//! A sync writes items by id, not by natural key as `import` does: the three-way rule
//! (`crate::sync`) has already decided that the folder's version is the one to keep, so the
//! row holding the id is replaced whatever the timestamps say. Another row that holds the
//! item's natural key under another id (two engineers who named the same feature apart) is
//! found with [`SyncTx::record_holder`] / [`SyncTx::decision_holder`] and settled by the caller
//! before the write.

use rusqlite::{OptionalExtension, Transaction, params};

use super::browse::decisions_with_basis;
use super::decision_rows::{DECISION_COLS, decision_from_row, delete_decisions, write_decision};
use super::page::next_seq;
use super::record_rows::{RECORD_COLS, delete_records, record_from_row, write_record};
use super::{Store, StoreError};
use crate::review::{Decision, Record};

/// The `kind` of a record's base.
pub const RECORD: &str = "record";
/// The `kind` of a decision's base.
pub const DECISION: &str = "decision";

/// One base: the item's kind and id, and the sha256 of its file text at the last sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    pub kind: String,
    pub id: String,
    pub hash: Vec<u8>,
}

/// A sync's write transaction for one folder. Dropping it rolls everything back.
pub struct SyncTx<'a> {
    tx: Transaction<'a>,
    folder: String,
}

impl Store {
    /// Starts the one write transaction of a sync of `folder` (its absolute path). The write
    /// lock is taken first, so nothing changes between what the sync reads and what it
    /// writes; servers on the same file go on reading meanwhile and their writes wait (at
    /// most `BUSY_TIMEOUT`).
    pub fn sync_transaction(&mut self, folder: &str) -> Result<SyncTx<'_>, StoreError> {
        let tx = self.write()?;
        Ok(SyncTx {
            tx,
            folder: folder.to_string(),
        })
    }

    /// A read transaction over the same tables, for the look a sync takes before it locks:
    /// only its reading methods are meant to be called.
    pub fn sync_snapshot(&mut self, folder: &str) -> Result<SyncTx<'_>, StoreError> {
        let tx = self.read()?;
        Ok(SyncTx {
            tx,
            folder: folder.to_string(),
        })
    }
}

impl SyncTx<'_> {
    /// Every record.
    pub fn records(&self) -> Result<Vec<Record>, StoreError> {
        let v = self
            .tx
            .prepare_cached(&format!(
                "SELECT {RECORD_COLS} FROM records r ORDER BY r.seq"
            ))?
            .query_map([], record_from_row)?
            .map(|r| r.map(|(rec, _)| rec))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(v)
    }

    /// Every decision with its basis.
    pub fn decisions(&self) -> Result<Vec<Decision>, StoreError> {
        let rows = self
            .tx
            .prepare_cached(&format!(
                "SELECT {DECISION_COLS} FROM decisions d ORDER BY d.seq"
            ))?
            .query_map([], decision_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        decisions_with_basis(&self.tx, rows)
    }

    /// The bases of this folder (hashes only: a body is read when a conflict needs it).
    pub fn bases(&self) -> Result<Vec<Base>, StoreError> {
        let v = self
            .tx
            .prepare_cached("SELECT kind, id, hash FROM sync_bases WHERE folder = ?1")?
            .query_map([&self.folder], |r| {
                Ok(Base {
                    kind: r.get(0)?,
                    id: r.get(1)?,
                    hash: r.get(2)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(v)
    }

    /// SQLite's `data_version` of this connection: two reads of it give the same number
    /// exactly when no other connection committed in between, so a sync that read the
    /// database before taking its lock knows whether that read still holds.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        Ok(self.tx.query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }

    /// Whether this folder has been synced with this database before.
    pub fn has_bases(&self) -> Result<bool, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM sync_bases WHERE folder = ?1)")?
            .query_row([&self.folder], |r| r.get(0))?)
    }

    /// The file text of an item's base, if it has one.
    pub fn base_body(&self, kind: &str, id: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT body FROM sync_bases WHERE folder = ?1 AND kind = ?2 AND id = ?3",
            )?
            .query_row(params![self.folder, kind, id], |r| r.get(0))
            .optional()?)
    }

    /// Remembers `body` (with its `hash`) as the item's base.
    pub fn set_base(
        &self,
        kind: &str,
        id: &str,
        hash: &[u8],
        body: &str,
    ) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "INSERT INTO sync_bases (folder, kind, id, hash, body) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (folder, kind, id) DO UPDATE SET hash = excluded.hash, \
                 body = excluded.body",
            )?
            .execute(params![self.folder, kind, id, hash, body])?;
        Ok(())
    }

    /// Forgets the item's base (the item is gone on both sides).
    pub fn drop_base(&self, kind: &str, id: &str) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("DELETE FROM sync_bases WHERE folder = ?1 AND kind = ?2 AND id = ?3")?
            .execute(params![self.folder, kind, id])?;
        Ok(())
    }

    /// A record by id.
    pub fn record(&self, id: &str) -> Result<Option<Record>, StoreError> {
        let r = self
            .tx
            .prepare_cached(&format!(
                "SELECT {RECORD_COLS} FROM records r WHERE r.id = ?1"
            ))?
            .query_row([id], record_from_row)
            .optional()?;
        Ok(r.map(|(rec, _)| rec))
    }

    /// A decision by id, with its basis.
    pub fn decision(&self, id: &str) -> Result<Option<Decision>, StoreError> {
        let row = self
            .tx
            .prepare_cached(&format!(
                "SELECT {DECISION_COLS} FROM decisions d WHERE d.id = ?1"
            ))?
            .query_row([id], decision_from_row)
            .optional()?;
        Ok(match row {
            Some(row) => decisions_with_basis(&self.tx, vec![row])?.pop(),
            None => None,
        })
    }

    /// The record holding `r`'s natural key (a feature's locator and name) under another id.
    pub fn record_holder(&self, r: &Record) -> Result<Option<Record>, StoreError> {
        let Some(name) = &r.name else {
            // A note's key is its id.
            return Ok(None);
        };
        let id: Option<String> = self
            .tx
            .prepare_cached("SELECT id FROM records WHERE locator = ?1 AND name = ?2 AND id <> ?3")?
            .query_row(params![r.artifact.locator(), name, r.id], |row| row.get(0))
            .optional()?;
        match id {
            Some(id) => self.record(&id),
            None => Ok(None),
        }
    }

    /// The decision holding `d`'s natural key (locator, subject, revision) under another id.
    pub fn decision_holder(&self, d: &Decision) -> Result<Option<Decision>, StoreError> {
        let a = &d.artifact;
        let id: Option<String> = self
            .tx
            .prepare_cached(
                "SELECT id FROM decisions WHERE locator = ?1 AND subject = ?2 AND revision = ?3 \
                 AND id <> ?4",
            )?
            .query_row(params![a.locator(), d.subject, a.revision, d.id], |row| {
                row.get(0)
            })
            .optional()?;
        match id {
            Some(id) => self.decision(&id),
            None => Ok(None),
        }
    }

    /// Writes `r` as the record with its id: the row holding the id is replaced in place
    /// (keeping its seq, its place in every result order); a new id takes the next seq. The
    /// caller has settled any other holder of `r`'s natural key first.
    pub fn put_record(&self, r: &Record) -> Result<(), StoreError> {
        let held: Option<i64> = self
            .tx
            .prepare_cached("SELECT seq FROM records WHERE id = ?1")?
            .query_row([&r.id], |row| row.get(0))
            .optional()?;
        let seq = match held {
            Some(seq) => seq,
            None => next_seq(&self.tx)?,
        };
        write_record(&self.tx, held, r, seq)
    }

    /// Writes `d` as the decision with its id (see [`SyncTx::put_record`]).
    pub fn put_decision(&self, d: &Decision) -> Result<(), StoreError> {
        let held: Option<(i64, i64)> = self
            .tx
            .prepare_cached("SELECT rid, seq FROM decisions WHERE id = ?1")?
            .query_row([&d.id], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        let seq = match held {
            Some((_, seq)) => seq,
            None => next_seq(&self.tx)?,
        };
        write_decision(&self.tx, held.map(|h| h.0), d, seq)?;
        Ok(())
    }

    /// Deletes the record with this id. Returns 0 or 1.
    pub fn delete_record(&self, id: &str) -> Result<usize, StoreError> {
        let seqs: Vec<i64> = self
            .tx
            .prepare_cached("SELECT seq FROM records WHERE id = ?1")?
            .query_map([id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        delete_records(&self.tx, &seqs)
    }

    /// Deletes the decision with this id. Returns 0 or 1.
    pub fn delete_decision(&self, id: &str) -> Result<usize, StoreError> {
        let rids: Vec<i64> = self
            .tx
            .prepare_cached("SELECT rid FROM decisions WHERE id = ?1")?
            .query_map([id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        delete_decisions(&self.tx, &rids)
    }

    /// Commits everything the sync wrote.
    pub fn commit(self) -> Result<(), StoreError> {
        self.tx.commit()?;
        Ok(())
    }
}
