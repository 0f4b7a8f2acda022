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

use std::path::Path;

use rusqlite::{OptionalExtension, Transaction, params};

use super::browse::{decisions_in_order, record_by_id, records_in_order};
use super::decisions::rows::{
    DECISION_COLS, decision_from_row, delete_decisions, load_basis, write_decision,
};
use super::history;
use super::page::next_seq;
use super::records::rows::{RECORD_COLS, delete_records, record_from_row, write_record};
use super::verdicts::find;
use super::{DecisionRef, Store, StoreError};
use crate::review::history::{Channel, Event, Written};
use crate::review::{Decision, Record};
use crate::time;

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

/// One row of a sync's journal: a file the sync committed to bring to its base (see
/// [`SyncTx::set_pending`]), and the hash the file had when the sync planned (`None`: absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub kind: String,
    pub id: String,
    pub prior: Option<Vec<u8>>,
}

/// A sync's write transaction for one folder. Dropping it rolls everything back.
pub struct SyncTx<'a> {
    tx: Transaction<'a>,
    folder: String,
    /// When the sync began, the time of a deletion's event (see [`SyncTx::delete_decision`]).
    at: String,
    /// Who syncs (the store's author), the author of a deletion's event.
    author: Option<String>,
    /// The `carried` events read so far ([`SyncTx::carried_past_at`]).
    carried: super::history::CarriedFrom,
}

impl Store {
    /// Starts the one write transaction of a sync of the folder whose id is `folder`. The
    /// write lock is taken first, so nothing changes between what the sync reads and what it
    /// writes; servers on the same file go on reading meanwhile and their writes wait (at
    /// most `BUSY_TIMEOUT`).
    ///
    /// `legacy` is the folder's absolute path: the bases (and journal rows) a version before
    /// schema 9 kept under it are re-keyed to `folder` in this transaction when `folder` holds
    /// none, so a folder synced before it had an id file keeps its state.
    pub fn sync_transaction(
        &mut self,
        folder: &str,
        legacy: Option<&str>,
    ) -> Result<SyncTx<'_>, StoreError> {
        let author = self.author.clone();
        let sync = SyncTx::new(self.write()?, folder, author);
        if let Some(legacy) = legacy {
            sync.adopt_legacy_bases(legacy)?;
        }
        Ok(sync)
    }

    /// A read transaction over the same tables, for the look a sync takes before it locks:
    /// only its reading methods are meant to be called. It reads the bases a
    /// [`Store::sync_transaction`] will (those kept under `legacy` when `folder` has none).
    pub fn sync_snapshot(
        &mut self,
        folder: &str,
        legacy: Option<&str>,
    ) -> Result<SyncTx<'_>, StoreError> {
        let author = self.author.clone();
        let mut sync = SyncTx::new(self.read()?, folder, author);
        if let Some(legacy) = legacy
            && !sync.has_bases()?
        {
            let own = std::mem::replace(&mut sync.folder, legacy.to_string());
            if !sync.has_bases()? {
                sync.folder = own;
            }
        }
        Ok(sync)
    }

    /// A writable private copy of the database at `path` (in a temporary directory removed
    /// when the store is dropped), for `sync --dry-run`: the dry run acts exactly as the sync
    /// would, on the copy, so the plan it prints is the sync's own. The file itself is only
    /// read. A file the sync would refuse to open (one with a second name, such as a hard
    /// link into the synced folder) is refused here too, as the sync refuses it: reading in
    /// place allows it (export and backup read such a file), and the dry run printed a plan
    /// the sync then refused.
    pub fn sync_dry_run_copy(path: &Path) -> Result<Store, StoreError> {
        let real = super::file::database_path(path)?;
        let meta = std::fs::metadata(&real).map_err(StoreError::io(&real))?;
        super::file::check_kind(&real, &meta)?;
        let (_, _, store) = Store::read_only_in_place(path)?;
        store.private_copy_quiet()
    }

    /// The journal rows of run `run` of `folder`, each with the body of its item's base (the
    /// file's text to write; `None`: the file is to be deleted), in one read snapshot, handed
    /// to `each` one at a time: an interrupted publication of a large database journals every
    /// item's file, and their texts are read as they are written, not all at once.
    /// Each row also hands the hash the file had when the sync planned (`prior`: `None`,
    /// absent), so a file changed since (a `git pull` while the sync ran) is left alone.
    pub fn sync_journal_each<E: From<StoreError>>(
        &mut self,
        folder: &str,
        run: &str,
        mut each: impl FnMut(String, String, Option<String>, Option<Vec<u8>>) -> Result<(), E>,
    ) -> Result<(), E> {
        let tx = self.read()?;
        let mut stmt = tx
            .prepare_cached(
                "SELECT p.kind, p.id, b.body, p.prior FROM sync_pending p LEFT JOIN sync_bases b \
                 ON b.folder = p.folder AND b.kind = p.kind AND b.id = p.id \
                 WHERE p.folder = ?1 AND p.run = ?2 ORDER BY p.kind, p.id",
            )
            .map_err(StoreError::from)?;
        let mut rows = stmt.query(params![folder, run]).map_err(StoreError::from)?;
        while let Some(row) = rows.next().map_err(StoreError::from)? {
            let (kind, id, body, prior) = row.try_into().map_err(StoreError::from)?;
            each(kind, id, body, prior)?;
        }
        Ok(())
    }

    /// The events of these ids the database holds, in the order given.
    pub fn events_by_id(&mut self, ids: &[String]) -> Result<Vec<Event>, StoreError> {
        let tx = self.read()?;
        let mut body = tx.prepare_cached("SELECT body FROM events WHERE id = ?1")?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(text) = body.query_row([id], |r| r.get::<_, String>(0)).optional()? {
                out.push(history::parse(&text)?);
            }
        }
        Ok(out)
    }

    /// Forgets the journal rows of run `run` of `folder`: its files are all written, but for
    /// `left` (kind, id), files changed while the sync ran, which it left as they are: their
    /// bases are forgotten too, so the next sync meets the two versions as new on both sides
    /// and merges them (neither the file's change nor the database's is lost).
    pub fn sync_journal_done(
        &mut self,
        folder: &str,
        run: &str,
        left: &[(String, String)],
    ) -> Result<(), StoreError> {
        let tx = self.write()?;
        tx.prepare_cached("DELETE FROM sync_pending WHERE folder = ?1 AND run = ?2")?
            .execute(params![folder, run])?;
        {
            let mut forget = tx.prepare_cached(
                "DELETE FROM sync_bases WHERE folder = ?1 AND kind = ?2 AND id = ?3",
            )?;
            for (kind, id) in left {
                forget.execute(params![folder, kind, id])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// [`SyncTx::know_event_files`] in a transaction of its own: the history files a sync
    /// wrote after its commit.
    pub fn know_event_files<'f>(
        &mut self,
        files: impl IntoIterator<Item = (&'f str, &'f [u8])>,
    ) -> Result<(), StoreError> {
        let tx = self.write()?;
        know_event_files(&tx, files)?;
        tx.commit()?;
        Ok(())
    }
}

/// Records the hash of each event's history file text, for the events of `files` the database
/// holds.
fn know_event_files<'f>(
    tx: &Transaction<'_>,
    files: impl IntoIterator<Item = (&'f str, &'f [u8])>,
) -> Result<(), StoreError> {
    let mut put = tx.prepare_cached(
        "INSERT OR REPLACE INTO sync_event_files (id, hash) \
         SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM events WHERE id = ?1)",
    )?;
    for (id, hash) in files {
        put.execute(params![id, hash])?;
    }
    Ok(())
}

/// Where a database last synced a folder, and that database's path, as the system's bytes
/// ([`SyncTx::last_place`]).
pub type LastPlace = (Vec<u8>, Vec<u8>);

impl<'a> SyncTx<'a> {
    /// The sync of `folder` in `tx`, begun now, by `author`.
    fn new(tx: Transaction<'a>, folder: &str, author: Option<String>) -> SyncTx<'a> {
        SyncTx {
            tx,
            folder: folder.to_string(),
            at: time::now(),
            author,
            carried: super::history::CarriedFrom::default(),
        }
    }

    /// Every record.
    pub fn records(&self) -> Result<Vec<Record>, StoreError> {
        records_in_order(&self.tx)
    }

    /// Every decision with its basis.
    pub fn decisions(&self) -> Result<Vec<Decision>, StoreError> {
        decisions_in_order(&self.tx)
    }

    /// Every record, one at a time, in the order of [`SyncTx::records`].
    pub fn each_record<E: From<StoreError>>(
        &self,
        each: impl FnMut(Record) -> Result<(), E>,
    ) -> Result<(), E> {
        self.records_where("", [], each)
    }

    /// Every decision with its basis, one at a time, in the order of [`SyncTx::decisions`].
    pub fn each_decision<E: From<StoreError>>(
        &self,
        each: impl FnMut(Decision) -> Result<(), E>,
    ) -> Result<(), E> {
        self.decisions_where("", [], each)
    }

    /// The records `filter` (a `WHERE` clause on `r`, or nothing) keeps, in `seq` order.
    fn records_where<E: From<StoreError>>(
        &self,
        filter: &str,
        params: impl rusqlite::Params,
        mut each: impl FnMut(Record) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut stmt = self
            .tx
            .prepare_cached(&format!(
                "SELECT {RECORD_COLS} FROM records r {filter} ORDER BY r.seq"
            ))
            .map_err(StoreError::from)?;
        let mut rows = stmt.query(params).map_err(StoreError::from)?;
        while let Some(row) = rows.next().map_err(StoreError::from)? {
            let (record, _) = record_from_row(row).map_err(StoreError::from)?;
            each(record)?;
        }
        Ok(())
    }

    /// The decisions `filter` (a `WHERE` clause on `d`, or nothing) keeps, with their basis,
    /// in `seq` order.
    fn decisions_where<E: From<StoreError>>(
        &self,
        filter: &str,
        params: impl rusqlite::Params,
        mut each: impl FnMut(Decision) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut stmt = self
            .tx
            .prepare_cached(&format!(
                "SELECT {DECISION_COLS} FROM decisions d {filter} ORDER BY d.seq"
            ))
            .map_err(StoreError::from)?;
        let mut rows = stmt.query(params).map_err(StoreError::from)?;
        while let Some(row) = rows.next().map_err(StoreError::from)? {
            let (rid, mut decision, _) = decision_from_row(row).map_err(StoreError::from)?;
            decision.basis = load_basis(&self.tx, rid)?;
            each(decision)?;
        }
        Ok(())
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

    /// Where this read stands in the change journal (schema version 5): the counter every
    /// write of a record or decision moves, whichever process wrote, and SQLite's schema
    /// cookie. Read again under the write lock, they say which items changed since
    /// ([`SyncTx::changed_places`]), unless the schema changed (then read everything again).
    pub fn journal_mark(&self) -> Result<(i64, i64), StoreError> {
        let counter: i64 = self
            .tx
            .prepare_cached("SELECT value FROM counters WHERE name = 'change'")?
            .query_row([], |r| r.get(0))
            .optional()?
            .unwrap_or(0);
        let cookie: i64 = self
            .tx
            .query_row("PRAGMA schema_version", [], |r| r.get(0))?;
        Ok((counter, cookie))
    }

    /// The (revision, locator) places of the records and decisions written (inserted,
    /// changed or deleted: the triggers mark the row's place before and after) since the
    /// journal's counter stood at `since`.
    pub fn changed_places(&self, since: i64) -> Result<Vec<(String, String)>, StoreError> {
        let v = self
            .tx
            .prepare_cached("SELECT revision, locator FROM changes WHERE version > ?1")?
            .query_map([since], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(v)
    }

    /// The ids of every record and of every decision (no item is read).
    pub fn item_ids(
        &self,
    ) -> Result<
        (
            std::collections::HashSet<String>,
            std::collections::HashSet<String>,
        ),
        StoreError,
    > {
        let ids = |sql: &str| -> Result<std::collections::HashSet<String>, StoreError> {
            let v = self
                .tx
                .prepare_cached(sql)?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(v)
        };
        Ok((
            ids("SELECT id FROM records")?,
            ids("SELECT id FROM decisions")?,
        ))
    }

    /// Every record at `revision` and `locator`, one at a time.
    pub fn each_record_at<E: From<StoreError>>(
        &self,
        revision: &str,
        locator: &str,
        each: impl FnMut(Record) -> Result<(), E>,
    ) -> Result<(), E> {
        self.records_where(
            "WHERE r.revision = ?1 AND r.locator = ?2",
            params![revision, locator],
            each,
        )
    }

    /// Every decision at `revision` and `locator` with its basis, one at a time.
    pub fn each_decision_at<E: From<StoreError>>(
        &self,
        revision: &str,
        locator: &str,
        each: impl FnMut(Decision) -> Result<(), E>,
    ) -> Result<(), E> {
        self.decisions_where(
            "WHERE d.revision = ?1 AND d.locator = ?2",
            params![revision, locator],
            each,
        )
    }

    /// Whether this folder has been synced with this database before.
    pub fn has_bases(&self) -> Result<bool, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM sync_bases WHERE folder = ?1)")?
            .query_row([&self.folder], |r| r.get(0))?)
    }

    /// Where a database last synced this folder: (the folder's canonical path, the
    /// database's path), each as the system's bytes; `None` before its first sync since schema
    /// version 15. The database's path says whose place it is: this database's, or the one
    /// this file was copied from (see `sync::owned::own_place`).
    pub fn last_place(&self) -> Result<Option<LastPlace>, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT path, database FROM sync_folders WHERE folder = ?1")?
            .query_row(params![self.folder], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }

    /// Remembers `path` as where this database, at the path `database`, last synced this
    /// folder.
    pub fn set_path(&self, path: &[u8], database: &[u8]) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "INSERT INTO sync_folders (folder, path, database) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (folder) DO UPDATE SET path = excluded.path, \
                 database = excluded.database",
            )?
            .execute(params![self.folder, path, database])?;
        Ok(())
    }

    /// Takes over the bases (and journal rows) kept under `legacy`, the folder's absolute path
    /// (how versions before schema 9 keyed a folder), when the folder's id holds none: a
    /// folder synced before it had an id file keeps its state. Returns how many bases moved.
    fn adopt_legacy_bases(&self, legacy: &str) -> Result<usize, StoreError> {
        if legacy == self.folder || self.has_bases()? {
            return Ok(0);
        }
        let moved = self
            .tx
            .prepare_cached("UPDATE sync_bases SET folder = ?1 WHERE folder = ?2")?
            .execute(params![self.folder, legacy])?;
        self.tx
            .prepare_cached("UPDATE OR IGNORE sync_pending SET folder = ?1 WHERE folder = ?2")?
            .execute(params![self.folder, legacy])?;
        Ok(moved)
    }

    /// This folder's journal: the files a sync committed to write or delete and may not have
    /// (it was killed, or is still at work).
    pub fn pending(&self) -> Result<Vec<Pending>, StoreError> {
        let v = self
            .tx
            .prepare_cached("SELECT kind, id, prior FROM sync_pending WHERE folder = ?1")?
            .query_map([&self.folder], |r| {
                Ok(Pending {
                    kind: r.get(0)?,
                    id: r.get(1)?,
                    prior: r.get(2)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(v)
    }

    /// Journals that run `run` brings the item's file to its base (writes the base's body;
    /// deletes the file when the item has no base) once this transaction commits; `prior` is
    /// the file's hash now (`None`: absent).
    pub fn set_pending(
        &self,
        kind: &str,
        id: &str,
        prior: Option<&[u8]>,
        run: &str,
    ) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "INSERT INTO sync_pending (folder, kind, id, prior, run) VALUES (?1, ?2, ?3, ?4, ?5) \
                 ON CONFLICT (folder, kind, id) DO UPDATE SET prior = excluded.prior, \
                 run = excluded.run",
            )?
            .execute(params![self.folder, kind, id, prior, run])?;
        Ok(())
    }

    /// Forgets one journal row (its file is done, or was changed by hand since).
    pub fn drop_pending(&self, kind: &str, id: &str) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("DELETE FROM sync_pending WHERE folder = ?1 AND kind = ?2 AND id = ?3")?
            .execute(params![self.folder, kind, id])?;
        Ok(())
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
        record_by_id(&self.tx, id)
    }

    /// Whether `revision` was carried past for the feature `name` of the file `locator`: its
    /// superseded copy there is held, or the history (the folder's events are added first)
    /// tells a carry of the feature from there.
    pub fn carried_past_at(
        &self,
        locator: &str,
        name: &str,
        revision: &str,
    ) -> Result<bool, StoreError> {
        super::records::rows::carried_past_at(&self.tx, &self.carried, locator, name, revision)
    }

    /// What `revision` says of the feature `name` at `locator` once a carry moved it on (its
    /// superseded copy there, of whatever id), when held: the copy `remember` writes a
    /// statement at that revision into.
    pub fn feature_copy(
        &self,
        locator: &str,
        name: &str,
        revision: &str,
    ) -> Result<Option<Record>, StoreError> {
        match super::records::rows::feature_copy(&self.tx, locator, name, revision)? {
            Some(seq) => super::records::rows::load_record(&self.tx, seq),
            None => Ok(None),
        }
    }

    /// The last event the history holds (0: none); see [`SyncTx::record_known_by`].
    pub fn last_event(&self) -> Result<i64, StoreError> {
        super::history::last_event(&self.tx)
    }

    /// Whether the history held an event of the record `id` up to the event `seq` (what
    /// [`SyncTx::last_event`] said before the sync added the folder's events): the database
    /// knew the feature before this sync.
    pub fn record_known_by(&self, id: &str, seq: i64) -> Result<bool, StoreError> {
        super::history::item_known_by(&self.tx, id, seq)
    }

    /// The features (id, revision carried from) a `carried` event received after the event
    /// `seq` (what [`SyncTx::last_event`] said before the sync added the folder's) moved on.
    pub fn features_carried_after(&self, seq: i64) -> Result<Vec<(String, String)>, StoreError> {
        super::history::features_carried_after(&self.tx, seq)
    }

    /// The ids of the `carried` events of the feature `of` from `revision`.
    pub fn feature_carried_events(
        &self,
        of: &str,
        revision: &str,
    ) -> Result<Vec<String>, StoreError> {
        super::history::feature_carried_events(&self.tx, of, revision)
    }

    /// The feature `stated` states, as a carry of that very feature moved it on from
    /// `stated`'s revision, when the database says there was one (that revision's copy of
    /// it, or the carry's event).
    pub fn carried_on_from(&self, stated: &Record) -> Result<Option<Record>, StoreError> {
        super::records::rows::carried_on_from(&self.tx, stated)
    }

    /// The carries of the feature `id` the database (or `filed`, the folder's copies by id)
    /// shows, link by link from each of `from`: `(revision, to)`
    /// ([`crate::review::Record::carry_through`] follows them).
    pub fn carry_links(
        &self,
        id: &str,
        from: &[&str],
        filed: &dyn Fn(&str) -> Option<Record>,
    ) -> Result<Vec<(String, String)>, StoreError> {
        super::records::rows::carry_links(&self.tx, id, from, filed)
    }

    /// A decision by id, with its basis.
    pub fn decision(&self, id: &str) -> Result<Option<Decision>, StoreError> {
        Ok(find(&self.tx, &DecisionRef::Id(id))?.map(|(_, d)| d))
    }

    /// The record holding `r`'s natural key (a feature's locator and name) under another id.
    pub fn record_holder(&self, r: &Record) -> Result<Option<Record>, StoreError> {
        let Some(name) = r.name.as_ref().filter(|_| r.superseded.is_none()) else {
            // A note's key is its id, and so is a superseded feature's (what an old revision
            // said of it: see `carry_forward`).
            return Ok(None);
        };
        let held = self
            .tx
            .prepare_cached(&format!(
                "SELECT {RECORD_COLS} FROM records r WHERE r.locator = ?1 AND r.name = ?2 \
                 AND r.id <> ?3 AND r.superseded IS NULL"
            ))?
            .query_row(params![r.artifact.locator(), name, r.id], record_from_row)
            .optional()?;
        Ok(held.map(|(rec, _)| rec))
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

    /// The place (`seq`) of the record with this id, `None` when there is none.
    pub fn record_place(&self, id: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT seq FROM records WHERE id = ?1")?
            .query_row([id], |row| row.get(0))
            .optional()?)
    }

    /// The place (`seq`) of the decision with this id, `None` when there is none.
    pub fn decision_place(&self, id: &str) -> Result<Option<i64>, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT seq FROM decisions WHERE id = ?1")?
            .query_row([id], |row| row.get(0))
            .optional()?)
    }

    /// Writes `r` as the record with its id: the row holding the id is replaced in place
    /// (keeping its seq, its place in every result order); a new id takes `place`, the seq of
    /// the other id that held its natural key (deleted just before, as `import` gives the
    /// winner the holder's row: the feature keeps its place, and a recall walk begun before
    /// serves it), or else the next seq. The caller has settled any other holder of `r`'s
    /// natural key first.
    pub fn put_record(&self, r: &Record, place: Option<i64>) -> Result<(), StoreError> {
        let held = self.record_place(&r.id)?;
        let (seq, old) = match (held, place) {
            (Some(seq), _) => (seq, self.record(&r.id)?),
            (None, Some(seq)) => (seq, None),
            (None, None) => (next_seq(&self.tx)?, None),
        };
        write_record(&self.tx, held, r, seq)?;
        history::transferred_record(&self.tx, &self.how(), old.as_ref(), r)?;
        Ok(())
    }

    /// Records that the folder's version `stated` of a record gives way to `held`, which
    /// the database keeps and the sync writes over it (a statement at a revision a carry moved
    /// the feature on from, kept in that revision's copy), unless the history already says
    /// so: the folder's events end on the statement, and the clones that take the file record
    /// the same event (the event an import of `held` over `stated` records).
    pub fn record_kept_over(&self, stated: &Record, held: &Record) -> Result<(), StoreError> {
        history::transferred_record(&self.tx, &self.how(), Some(stated), held)?;
        Ok(())
    }

    /// Writes `d` as the decision with its id (see [`SyncTx::put_record`]).
    pub fn put_decision(&self, d: &Decision, place: Option<i64>) -> Result<(), StoreError> {
        let held: Option<(i64, i64)> = self
            .tx
            .prepare_cached("SELECT rid, seq FROM decisions WHERE id = ?1")?
            .query_row([&d.id], |r| r.try_into())
            .optional()?;
        let (seq, old) = match (held, place) {
            (Some((_, seq)), _) => (seq, self.decision(&d.id)?),
            (None, Some(seq)) => (seq, None),
            (None, None) => (next_seq(&self.tx)?, None),
        };
        write_decision(&self.tx, held.map(|h| h.0), d, seq)?;
        history::transferred_decision(&self.tx, &self.how(), old.as_ref(), Some(d))?;
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

    /// Records the end of the record `id`, a carried feature about to be deleted because a
    /// teammate forgot it (its file deleted in the folder), when no event that came with the
    /// folder tells it (an older build's forget writes none, nor does a file deleted by hand):
    /// as `forget` writes it ([`history::carried_feature_ends`]), so an import of a backup
    /// from before the forget judges the feature forgotten here too. Where the history says a
    /// carry took the feature on from the revision this database's version states (a carry
    /// this database had not taken: the folder's events bring it), the end is written where
    /// the carries took it, where it stood when its file went: an end at the stale revision
    /// left the feature with none where it stood. Returns how many events were added.
    pub fn record_forgotten_elsewhere(&self, id: &str) -> Result<usize, StoreError> {
        let Some(mut r) = self.record(id)? else {
            return Ok(0);
        };
        if history::ending_explained(&self.tx, id, &r.updated_at)? {
            return Ok(0);
        }
        let mut seen = std::collections::BTreeSet::from([r.artifact.revision.clone()]);
        while let Some((to, _)) = history::feature_carried_on(&self.tx, id, &r.artifact.revision)? {
            if !seen.insert(to.clone()) {
                break;
            }
            r.artifact.revision = to;
        }
        history::carried_feature_ends(&self.tx, &self.how(), &r)
    }

    /// Deletes the decision with this id. Returns 0 or 1. Its history stays: the folder's
    /// `forgotten` event (added first) tells the end; without one, the sync records it.
    pub fn delete_decision(&self, id: &str) -> Result<usize, StoreError> {
        let rids: Vec<i64> = self
            .tx
            .prepare_cached("SELECT rid FROM decisions WHERE id = ?1")?
            .query_map([id], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        if let Some(old) = self.decision(id)? {
            history::transferred_decision(&self.tx, &self.how(), Some(&old), None)?;
        }
        delete_decisions(&self.tx, &rids)
    }

    /// Records that decision `id`, kept by the sync (deleted in the folder but changed in the
    /// database, or written to the folder), goes on when a teammate's `forgotten` event that
    /// came with the folder ends its history ([`history::decision_goes_on`]); the teammate's database records the same
    /// event when it takes the file back. Returns how many events were added.
    pub fn decision_goes_on(&self, id: &str) -> Result<usize, StoreError> {
        match self.decision(id)? {
            Some(d) => history::decision_goes_on(&self.tx, &self.how(), &d),
            None => Ok(0),
        }
    }

    /// [`SyncTx::decision_goes_on`] for a feature or note: `arrived` after the end a
    /// teammate's `forgotten` event (a carried feature's forget) brought, when it is live here
    /// ([`history::record_goes_on`]). Returns how many events were added.
    pub fn record_goes_on(&self, id: &str) -> Result<usize, StoreError> {
        match self.record(id)? {
            Some(r) => history::record_goes_on(&self.tx, &self.how(), &r),
            None => Ok(0),
        }
    }

    /// How this sync writes: its channel, its start time and who syncs.
    fn how(&self) -> Written<'_> {
        Written {
            channel: Channel::Sync,
            at: &self.at,
            author: self.author.as_deref(),
        }
    }

    /// The ids of the events `present` lacks, oldest first (their texts are read after the
    /// commit, a batch at a time: [`Store::events_by_id`]).
    pub fn events_missing(
        &self,
        present: &std::collections::BTreeSet<&str>,
    ) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT id FROM events ORDER BY at, seq")?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let id: String = row.get(0)?;
            if !present.contains(id.as_str()) {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// Adds the events the database does not hold (each already checked sealed: the folder's
    /// are); one it holds is kept as it is. Returns the ids of those that were new. Each is
    /// looked up by its id: the database's other events are not read.
    pub fn add_events(&self, events: &[Event]) -> Result<Vec<String>, StoreError> {
        super::import::refuse_edited(events)?;
        let mut held = self
            .tx
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM events WHERE id = ?1)")?;
        let mut new = Vec::new();
        for e in events {
            if !held.query_row([&e.id], |r| r.get::<_, bool>(0))? {
                new.push(e);
            }
        }
        history::append(&self.tx, new.iter().copied())?;
        Ok(new.into_iter().map(|e| e.id.clone()).collect())
    }

    /// Every event the database holds, one at a time: its id, and the hash of its history
    /// file's text that a sync recorded ([`SyncTx::know_event_files`]; `None`: none yet, or
    /// not a 32-byte blob).
    pub fn each_event_file<E: From<StoreError>>(
        &self,
        mut each: impl FnMut(String, Option<[u8; 32]>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut stmt = self
            .tx
            .prepare_cached(
                "SELECT e.id, f.hash FROM events e LEFT JOIN sync_event_files f ON f.id = e.id",
            )
            .map_err(StoreError::from)?;
        let mut rows = stmt.query([]).map_err(StoreError::from)?;
        while let Some(row) = rows.next().map_err(StoreError::from)? {
            // A hash held in another form (not a blob of 32 bytes: a damaged or hand-edited
            // row) is none: the file is then checked in full, and its hash recorded again.
            let hash = match row.get_ref(1).map_err(StoreError::from)? {
                rusqlite::types::ValueRef::Blob(b) => <[u8; 32]>::try_from(b).ok(),
                _ => None,
            };
            each(row.get(0).map_err(StoreError::from)?, hash)?;
        }
        Ok(())
    }

    /// Records, for each event of `files` the database holds, the hash of its history file's
    /// text (see [`SyncTx::each_event_file`]); an id the database holds no event of is passed
    /// over.
    pub fn know_event_files<'f>(
        &self,
        files: impl IntoIterator<Item = (&'f str, &'f [u8])>,
    ) -> Result<(), StoreError> {
        know_event_files(&self.tx, files)
    }

    /// Commits everything the sync wrote.
    pub fn commit(self) -> Result<(), StoreError> {
        self.tx.commit()?;
        Ok(())
    }
}
