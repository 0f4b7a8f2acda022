//! Acting on a sync's plan: every change to the database inside its transaction, every file
//! the sync will write or delete journaled there (`sync_pending`) with it, and the files
//! brought in line after the commit ([`complete`]).
//!
//! Nothing in the folder changes before the commit: a sync killed before it leaves the folder
//! and the database as they were. After it, the journal names every file still to do, and its
//! content is the item's base; the next sync finishes them first ([`overlay`]), so a re-sync
//! after a kill at any instant ends where the uninterrupted sync would have.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use super::folder::{file_hash, file_of, fsync_dir, remove_file, write_all, write_atomic};
use super::merge::{self, side};
use super::owned::step;
use super::run::{Counts, Entries, Entry};
use super::saved::{NAMED, Saver};
use super::{Action, Hash, Item, ItemKind, Result, hash, shown};
use crate::review::record::CarriedOn;
use crate::review::{Decision, Record};
use crate::store::{Store, SyncTx};

/// How many files are written (and fsynced) at once: the file system commits concurrent
/// fsyncs together, so 10,000 new files take seconds instead of one flush each.
pub(super) const WRITE_THREADS: usize = 16;

/// How many files are written per batch.
pub(super) const WRITE_BATCH: usize = 512;

/// What becomes of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileOp {
    /// Written with the item's base.
    Write,
    Delete,
}

/// What becomes of an item of the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RowOp {
    Put,
    Delete,
}

type Key = (ItemKind, String);

/// The journal as the sync found it: the files an earlier sync committed to and did not
/// finish, whose plan is made as if they were finished (and which this sync finishes).
#[derive(Default)]
pub(super) struct Overlay {
    /// The file each unfinished row really holds (`None`: absent), by item.
    disk: HashMap<Key, Option<Hash>>,
    /// Every row found.
    rows: Vec<Key>,
}

impl Overlay {
    /// The hash of the item's file as it really is now (`None`: absent).
    fn disk(&self, entries: &Entries, key: &Key) -> Option<Hash> {
        match self.disk.get(key) {
            Some(h) => *h,
            None => entries.get(key).and_then(Entry::file_hash),
        }
    }
}

/// Reads the journal and, for each file an earlier sync did not finish (it still holds what it
/// held when that sync planned), plans as if it were finished. A file already done, or
/// changed by hand since, is what it is.
pub(super) fn overlay(tx: &SyncTx<'_>, entries: &mut Entries) -> Result<Overlay> {
    let mut out = Overlay::default();
    for p in tx.pending()? {
        let Some(kind) = ItemKind::parse(&p.kind) else {
            continue;
        };
        let key = (kind, p.id);
        out.rows.push(key.clone());
        let e = entries.entry(key.clone()).or_default();
        let disk = e.file_hash();
        let prior = p.prior.as_deref().and_then(|b| Hash::try_from(b).ok());
        if disk == e.base || disk != prior {
            continue;
        }
        e.file = e.base.map(|h| (h, None));
        out.disk.insert(key, disk);
    }
    Ok(out)
}

/// The sync at work: the transaction, what was known before it, and what it changed.
pub(super) struct Apply<'a, 't> {
    tx: &'a SyncTx<'t>,
    entries: &'a Entries,
    overlay: Overlay,
    pub(super) counts: &'a mut Counts,
    /// Items already settled by a key conflict with another id, or acted on before their turn
    /// ([`Apply::merge_first`]): the sync's own turn for them passes them by.
    pub(super) settled: HashSet<Key>,
    /// Items acted on ([`Apply::act`]), in their turn or before it.
    acted: HashSet<Key>,
    /// Folder versions already checked against the clock ([`Apply::clock_ahead`]).
    clocked: HashSet<Key>,
    /// The folder's named features by their key, of the files this sync read whole; made
    /// when first asked ([`Apply::filed_features`]).
    filed_features: std::cell::OnceCell<FiledFeatures>,
    files: BTreeMap<Key, FileOp>,
    rows: BTreeMap<Key, RowOp>,
    /// Where each item deleted from the database goes, as it was, as it is deleted (saved
    /// before the commit, so a deletion can be undone), and each database version a
    /// conflict's merge replaced.
    saver: Saver,
    /// How many of the saved are database versions a conflict's merge replaced.
    replaced: usize,
    /// What each deleted item was (for the items and files the output names).
    described: HashMap<Key, String>,
    /// A folder version dated after this (now, plus [`CLOCK_SLACK_MS`]) was written under a
    /// clock that is ahead.
    ahead: String,
    /// The last event the database's history held before this sync added the folder's
    /// (`SyncTx::last_event`): what the database knew of a feature before the sync.
    known_before: i64,
    /// The superseded copies of named features this sync took from the folder (a carry's
    /// copy arriving): where the feature stays live at the copy's revision, git's history
    /// may say it was forgotten after that carry ([`Apply::forgotten_in_history`]).
    copies_taken: Vec<Record>,
}

/// A live feature both sides hold at a revision its own carry moved it on from, once the
/// sync's items are settled ([`Apply::forgotten_in_history`]): the feature, and where the
/// carry took it.
pub(super) struct LiveCarriedPast {
    stated: Record,
    onward: Record,
}

/// How far ahead of this machine's clock a folder version may be dated before the sync says
/// the clock that wrote it is wrong (clocks kept by NTP agree within far less).
pub(super) const CLOCK_SLACK_MS: i64 = 5 * 60 * 1000;

/// Refuses the sync when the folder's file of `kind` `id` holds the item under another key
/// than the database's version ([`merge::moved_key`]), naming the file: nothing is changed.
fn refuse_moved(
    kind: ItemKind,
    id: &str,
    file: merge::Side<'_>,
    db: merge::Side<'_>,
    carried_on: CarriedOn<'_>,
) -> Result<()> {
    match merge::moved_key(file, db, carried_on) {
        None => Ok(()),
        Some(why) => Err(fail!(
            "{}/{id}.json: {}; nothing was changed. Restore the file (`git log -p -- FILE` \
             shows who changed it, `git checkout -- FILE` restores the committed one), then run \
             sync again",
            kind.dir(),
            why
        )),
    }
}

/// A named feature's key: its locator, name and revision.
type FeatureKey = (String, String, String);

fn feature_key(artifact: &crate::review::Artifact, name: &str) -> FeatureKey {
    (
        artifact.locator().to_string(),
        name.to_string(),
        artifact.revision.clone(),
    )
}

/// The folder's named features by their key, of the files this sync read whole.
#[derive(Default)]
struct FiledFeatures {
    /// The superseded copies, each the least id ([`Apply::copy_by_key`]).
    copies: HashMap<FeatureKey, String>,
    /// The ids of the live features ([`Apply::filed_holder_at`]).
    live: HashMap<FeatureKey, Vec<String>>,
}

/// What [`Apply::finish`] leaves: the plan's lines, and where the items deleted from the
/// database were written (to be made durable before the commit).
pub(super) struct Finished {
    pub(super) lines: Vec<String>,
    /// The folder's files this sync deletes (`records/<id>.json`), every one.
    pub(super) files_deleted: BTreeSet<String>,
    pub(super) saver: Saver,
}

impl<'a, 't> Apply<'a, 't> {
    pub(super) fn new(
        tx: &'a SyncTx<'t>,
        entries: &'a Entries,
        overlay: Overlay,
        counts: &'a mut Counts,
        saver: Saver,
        known_before: i64,
    ) -> Self {
        // The files an earlier sync left unfinished are this sync's to finish.
        let files = overlay
            .disk
            .keys()
            .map(|key| {
                let target = entries.get(key).and_then(|e| e.base);
                let op = match target {
                    Some(_) => FileOp::Write,
                    None => FileOp::Delete,
                };
                (key.clone(), op)
            })
            .collect();
        Apply {
            tx,
            entries,
            overlay,
            counts,
            settled: HashSet::new(),
            acted: HashSet::new(),
            clocked: HashSet::new(),
            filed_features: std::cell::OnceCell::new(),
            files,
            rows: BTreeMap::new(),
            saver,
            replaced: 0,
            described: HashMap::new(),
            ahead: crate::time::format_millis(crate::time::now_millis() + CLOCK_SLACK_MS),
            known_before,
            copies_taken: Vec::new(),
        }
    }

    pub(super) fn act(
        &mut self,
        kind: ItemKind,
        id: &str,
        e: &Entry,
        action: Action,
    ) -> Result<()> {
        self.acted.insert((kind, id.to_string()));
        // The database's version, read again now where the action needs it (the sync kept
        // only its hash).
        let needed = match action {
            Action::InSync => e.db.is_some() && e.base != e.db,
            Action::DeleteFile | Action::DeleteItem => false,
            _ => true,
        };
        let loaded = match e.db {
            Some(h) if needed => Some(self.database_item(kind, id, &h)?),
            _ => None,
        };
        let db_item = loaded.as_ref();
        let file_item = e.file.as_ref().and_then(|(_, i)| i.as_deref());
        if let Some(item) = file_item {
            self.clock_ahead(kind, id, item);
        }
        if let Some(Item::Decision(d)) = file_item {
            self.verdicts_ahead(d, db_item);
        }
        if matches!(action, Action::ToDatabase | Action::KeepFolder)
            && let Some(Item::Record(copy)) = file_item
            && copy.superseded.is_some()
            && copy.name.is_some()
        {
            self.copies_taken.push(copy.clone());
        }
        match action {
            Action::InSync => match (&e.db, db_item) {
                (Some(h), Some(item)) if e.base != Some(*h) => {
                    self.set_base(item)?;
                }
                (Some(_), _) => {}
                (None, _) if e.base.is_some() => self.tx.drop_base(kind.as_str(), id)?,
                (None, _) => {}
            },
            // Only the database changed, and its version states the feature at a revision
            // carried past (stated here before this clone saw the carry, which arrived with
            // this sync), while the folder's stands elsewhere: the mirror of the case below.
            // What that revision says, kept there; the feature stays where the folder has it,
            // as `remember` keeps a statement made after the carry is known (so the clones
            // that take the file see one history).
            Action::ToFolder
                if let Some(Item::Record(stated)) = db_item
                    && let Some(Item::Record(onward)) =
                        self.unchanged_file_item(kind, id, e)?
                    && merge::elsewhere(&onward, stated)
                    && self.copy_known_against(stated, &onward)? =>
            {
                self.counts.conflicts.push(format!(
                    "record {id}: the database's version states it at revision {}, which a \
                     carry moved it on from; kept it at revision {} (the folder's version), and \
                     the statement as what revision {} says of it (superseded)",
                    stated.artifact.revision, onward.artifact.revision, stated.artifact.revision
                ));
                self.keep_stayed(stated, &onward)?;
                self.import(&Item::Record(onward), db_item)?;
            }
            // Only the database holds the feature, at a revision a carry of it moved it on
            // from (stated here before the carry was seen), and the folder holds it nowhere:
            // forgotten after the carry (its file deleted, or never written). What that
            // revision says, kept there; the feature does not come back where it was carried
            // from, and the forget stands. Not when the folder holds another id of its name
            // live at that very revision (a later statement there took the key from the
            // carried feature): the name stands there again, as in the mirror case below.
            Action::ToFolder | Action::KeepDatabase
                if e.file.is_none()
                    && let Some(Item::Record(stated)) = db_item
                    && let Some(onward) = self.onward_of(stated)?
                    && !self.filed_holder_at(stated) =>
            {
                self.forgotten_after_the_carry(id, ("database", "folder"), stated, &onward);
                self.keep_stayed(stated, &onward)?;
                self.delete_item(kind, id)?;
                self.tx.drop_base(kind.as_str(), id)?;
            }
            Action::ToFolder | Action::KeepDatabase => {
                let item = db_item.ok_or_else(|| fail!("{id}: no database version"))?;
                // The rule of the tools against the folder's version (the base's text).
                let r = self.outranked(None, item, "database")?;
                if r != *item {
                    self.import(&r, db_item)?;
                } else {
                    self.write_file(item)?;
                }
                if action == Action::KeepDatabase {
                    if kind == ItemKind::Decision {
                        self.tx.decision_goes_on(id)?;
                    }
                    self.counts.conflicts.push(format!(
                        "{} {id} was deleted in the folder but changed in the database: kept, \
                         and written back to the folder",
                        kind.as_str()
                    ));
                }
            }
            // Only the folder changed, and its version states the feature at a revision the
            // database holds a superseded copy of (git merged a clone's statement that had not
            // seen the carry over ours): what that revision says, kept there; the feature
            // stays where it stands, and its history says so after the statement's event, as
            // an import of the file written records it in the clones that take it (the mirror
            // case records it importing the folder's version).
            Action::ToDatabase
                if let (Some(Item::Record(held)), Some(Item::Record(stated))) =
                    (db_item, file_item)
                    && merge::elsewhere(held, stated)
                    && self.copy_known_against(stated, held)? =>
            {
                self.counts.conflicts.push(format!(
                    "record {id}: the folder's version states it at revision {}, which a carry \
                     moved it on from; kept it at revision {}, and the statement as what \
                     revision {} says of it (superseded)",
                    stated.artifact.revision, held.artifact.revision, stated.artifact.revision
                ));
                self.keep_stayed(stated, held)?;
                self.tx.record_kept_over(stated, held)?;
                self.write_file(&Item::Record(held.clone()))?;
            }
            // The mirror: only the folder holds the feature, at a revision a carry of it moved
            // it on from (a teammate's statement that had not seen the carry), and the
            // database holds it nowhere: forgotten here after the carry, when the database
            // knew the feature before this sync (its history held an event of it). A database
            // that never held it forgot nothing: it takes the folder's version, a statement git
            // merged over the carry that the carrying clone's next sync settles (deleted here,
            // its file gone would delete the feature in the carrying clone too).
            // Not when another id holds the name at the statement's own revision (a later
            // statement there took the key from the carried feature): the name stands there
            // again, nothing is moved back, and the two ids of one key at one revision are
            // judged by their times, as `import` judges them; kept as the copy, the later
            // statement was hidden behind the older.
            Action::ToDatabase | Action::KeepFolder
                if e.db.is_none()
                    && let Some(Item::Record(stated)) = file_item
                    && self
                        .tx
                        .record_holder(stated)?
                        .is_none_or(|h| h.artifact.revision != stated.artifact.revision)
                    && let Some(onward) = self.onward_of(stated)?
                    && self.tx.record_known_by(id, self.known_before)? =>
            {
                self.forgotten_after_the_carry(id, ("folder", "database"), stated, &onward);
                self.keep_stayed(stated, &onward)?;
                self.delete_file(kind, id)?;
            }
            // Only the folder changed, to the database's feature carried on from the
            // revision the database holds it at, and the database's version, synced before,
            // is a statement there later than the carry's copy (made where the carry had not
            // arrived): git's merge replaced its file by the carry (the driver keeps a carry
            // over a statement at a revision carried past, and leaves the statement to this
            // sync). What that revision says, kept there; the feature stays where the folder
            // has it, as when the statement had not been synced yet (the mirror case above).
            Action::ToDatabase
                if let (Some(Item::Record(held)), Some(Item::Record(onward))) =
                    (db_item, file_item)
                    && merge::elsewhere(onward, held)
                    && self.carries_on(
                        &Item::Record(onward.clone()),
                        &Item::Record(held.clone()),
                    )?
                    && self.stated_after_copy(held)? =>
            {
                self.counts.conflicts.push(format!(
                    "record {id}: the database's version, synced before, states it at revision \
                     {}, which a carry moved it on from (git's merge kept the carry); kept it at \
                     revision {} (the folder's version), and the statement as what revision {} \
                     says of it (superseded)",
                    held.artifact.revision, onward.artifact.revision, held.artifact.revision
                ));
                self.keep_stayed(held, onward)?;
                self.import(&Item::Record(onward.clone()), db_item)?;
            }
            Action::ToDatabase | Action::KeepFolder => {
                let item = file_item.ok_or_else(|| fail!("{id}: no folder version"))?;
                // The chain of carries is read only for a pair that one key or one carry mark
                // does not make one item (a sync of many carried features reads none).
                let (file, held) = (side(item, "folder"), db_item.map(|h| side(h, "database")));
                if let Some(held) = held
                    && merge::moved_key(file, held, &|_| None).is_some()
                {
                    let links = self.carry_links(item, held.item)?;
                    refuse_moved(kind, id, file, held, &Record::carried_on_in(&links))?;
                }
                // The rule of the tools against the database's version (or the base's).
                let r = self.outranked(db_item, item, "folder")?;
                match db_item {
                    // Only the file's form changed (reordered keys, spaces, an editor's
                    // indent): the database holds the same item, and the file gets its form
                    // back; nothing is imported.
                    Some(held) if held.text() == r.text() => self.write_file(held)?,
                    // The folder went back to an older version (a `git revert`, or the file
                    // sync wrote put back as committed by `git checkout`, `git stash` or `git
                    // reset` before any commit held it): taken, as the folder changed, but
                    // the database's version is saved and the change named, since it may
                    // exist nowhere else.
                    // Not a carry of the database's feature on from its revision (the
                    // driver, or a teammate's sync, kept a carry over a later statement there,
                    // which is kept as what that revision says): a carry stands whatever the
                    // times, and nothing is lost.
                    Some(held)
                        if r.updated_at() < held.updated_at() && !self.carries_on(&r, held)? =>
                    {
                        self.counts.conflicts.push(format!(
                            "{} {id} changed in the folder only, to a version older than the \
                             database's (folder version of {}, database version of {}): taken, \
                             and the database's version saved (a `git revert`, or the file \
                             sync wrote put back by `git checkout`, `git stash` or `git reset` \
                             before a commit held it?)",
                            kind.as_str(),
                            r.updated_at(),
                            held.updated_at()
                        ));
                        self.save(held)?;
                        self.replaced += 1;
                        self.counts.older_saved += 1;
                        self.import(&r, db_item)?;
                    }
                    _ => self.import(&r, db_item)?,
                }
                if action == Action::KeepFolder {
                    self.counts.conflicts.push(format!(
                        "{} {id} was deleted in the database but changed in the folder: kept, \
                         and imported back",
                        kind.as_str()
                    ));
                }
            }
            Action::DeleteFile => self.delete_file(kind, id)?,
            Action::DeleteItem => {
                if kind == ItemKind::Record {
                    self.tx.record_forgotten_elsewhere(id)?;
                }
                self.delete_item(kind, id)?;
                self.tx.drop_base(kind.as_str(), id)?;
            }
            Action::Resolve => {
                let (Some(db), Some(file)) = (db_item, file_item) else {
                    return Err(fail!("{id}: a conflict needs both versions"));
                };
                let base = self.base_item(kind, id)?;
                // The chain of carries is read only where the merge may ask it
                // ([`merge::asks_carries`], which says why the answer is the same): a conflict
                // of many carried features, each side at the revision the other holds, reads
                // none.
                let links = match merge::asks_carries(
                    base.as_ref(),
                    side(db, "database"),
                    side(file, "folder"),
                ) {
                    true => self.carry_links(file, db)?,
                    false => Vec::new(),
                };
                let on = Record::carried_on_in(&links);
                refuse_moved(kind, id, side(file, "folder"), side(db, "database"), &on)?;
                // What the merge may ask, read first (a record of one side or the other).
                let known = |item: &Item, other: &Item| match (item, other) {
                    (Item::Record(r), Item::Record(o)) => self.copy_known_against(r, o),
                    (Item::Record(r), Item::Decision(_)) => self.copy_known(r),
                    (Item::Decision(_), _) => Ok(false),
                };
                let (db_known, file_known) = (known(db, file)?, known(file, db)?);
                let copied = |stayed: &Record| match (db, file) {
                    (Item::Record(d), _) if d == stayed => db_known,
                    (_, Item::Record(f)) if f == stayed => file_known,
                    _ => false,
                };
                let resolved = merge::resolve_knowing(
                    base.as_ref(),
                    side(db, "database"),
                    side(file, "folder"),
                    &copied,
                    &on,
                )?;
                if let Some(c) = resolved.conflict {
                    self.counts.conflicts.push(c);
                }
                if let (Some(stayed), Item::Record(onward)) = (&resolved.stayed, &resolved.item) {
                    self.keep_stayed(stayed, onward)?;
                }
                if resolved.item.text() != db.text() {
                    // The database's version a conflict replaced, kept with the deleted
                    // items: an edit made here and never synced exists nowhere else.
                    self.save(db)?;
                    self.replaced += 1;
                    self.import(&resolved.item, db_item)?;
                } else {
                    // The folder's version states the feature at a revision carried past: its
                    // history says the feature stands here after that statement, as the clone
                    // that stated it records on taking the file (see `Action::ToDatabase`).
                    if let (Some(stayed), Item::Record(held)) = (&resolved.stayed, db)
                        && matches!(file, Item::Record(f) if f == stayed)
                    {
                        self.tx.record_kept_over(stayed, held)?;
                    }
                    self.write_file(db)?;
                }
            }
        }
        Ok(())
    }

    /// The live features this sync leaves held on both sides at the revision a superseded copy
    /// it took from the folder (or, the copy forgotten too, a `carried` event arriving with
    /// this sync) says a carry of that very feature (its id) moved it on from: the copy's key
    /// held by a live feature at the copy's revision, under the id the copy derives from
    /// ([`Record::snapshot_id`]), or the event's feature live at the revision it was carried
    /// from, which the sync neither deletes nor carried on from the copy's onward revision. Rare (a statement git's merge kept against the
    /// deletion of the carried feature, or a driver that could not read the copy kept over
    /// the carry): only these are asked of git ([`Apply::forgotten_in_history`]).
    pub(super) fn live_carried_past(&mut self) -> Result<Vec<LiveCarriedPast>> {
        let mut found = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stated_at = Vec::new();
        for copy in std::mem::take(&mut self.copies_taken) {
            let probe = Record {
                superseded: None,
                ..copy.clone()
            };
            if let Some(stated) = self.tx.record_holder(&probe)?
                && Record::snapshot_id(&stated.id, &copy.artifact.revision) == copy.id
            {
                stated_at.push((stated, copy.artifact.revision));
            }
        }
        // The copy may be gone (forgotten with the feature, or before any sync wrote it): the
        // carry's `carried` event, arriving with this sync, says the same.
        for (id, revision) in self.tx.features_carried_after(self.known_before)? {
            if let Some(stated) = self.tx.record(&id)?
                && stated.superseded.is_none()
                && stated.name.is_some()
            {
                stated_at.push((stated, revision));
            }
        }
        for (stated, revision) in stated_at {
            let key = (ItemKind::Record, stated.id.clone());
            if stated.artifact.revision != revision
                || self.rows.get(&key) == Some(&RowOp::Delete)
                || self.files.get(&key) == Some(&FileOp::Delete)
                || !seen.insert(stated.id.clone())
            {
                continue;
            }
            let Some(onward) = self.onward_of(&stated)? else {
                continue;
            };
            // A carry back from where the copy says the feature went is that carry.
            if stated
                .carried
                .as_ref()
                .is_some_and(|c| c.from == onward.artifact.revision)
            {
                continue;
            }
            found.push(LiveCarriedPast { stated, onward });
        }
        Ok(found)
    }

    /// Settles each of `found` ([`Apply::live_carried_past`]) that the folder's git history
    /// says was forgotten after the carry: the last commit that deleted the feature's file
    /// held its superseded copy at this revision, or the file of the carry's `carried` event
    /// (the deleting clone knew the carry), and no
    /// commit since held the feature live at another revision (brought back where its review
    /// went on). git's modify/delete handed the statement's file to the user, who kept it (as
    /// for any edit against a deletion), and both sides now hold the feature where the carry
    /// moved it on from. As when the file is gone ([`Apply::forgotten_after_the_carry`]): the
    /// statement is what that revision says of it, and the forget stands, in every clone
    /// (the clone that forgot it may no longer know it did: a backup from before the carry
    /// restored). Without git, or when git never deleted the file there (a merge driver that
    /// could not read the copy kept the statement over the live carry), nothing changes: the
    /// carrying clone's next sync settles it.
    pub(super) fn forgotten_in_history(
        &mut self,
        found: Vec<LiveCarriedPast>,
        objects: &super::git::Objects,
        schemas: &super::line::Schemas,
    ) -> Result<()> {
        let record = |bytes: &[u8]| match super::line::parse_item(bytes, schemas) {
            Ok(Item::Record(r)) => Some(r),
            _ => None,
        };
        let dir = ItemKind::Record.dir();
        let mut asks = Vec::new();
        for LiveCarriedPast { stated, .. } in &found {
            let (id, rev) = (stated.id.as_str(), &stated.artifact.revision);
            // What says the deleting clone knew the carry: the copy, or the carry's event.
            let mut beside = vec![format!("{dir}/{}.json", Record::snapshot_id(id, rev))];
            for e in self.tx.feature_carried_events(id, rev)? {
                beside.push(format!("{}/{e}.json", super::history::HISTORY_DIR));
            }
            asks.push((format!("{dir}/{id}.json"), beside));
        }
        let deletions = objects.last_deletions(&asks);
        for (LiveCarriedPast { stated, onward }, deleted) in found.into_iter().zip(deletions) {
            let id = stated.id.as_str();
            let rev = &stated.artifact.revision;
            let copy_id = Record::snapshot_id(id, rev);
            let Some(deleted) = deleted else {
                continue;
            };
            let mut held = deleted.beside.iter();
            let knew_carry = held.next().is_some_and(|c| {
                c.as_deref()
                    .and_then(record)
                    .is_some_and(|c| c.id == copy_id && stated.carried_by(&c).is_some())
            }) || held.any(Option::is_some);
            let was_it = record(&deleted.before).is_some_and(|b| b.id == stated.id);
            let lived_on = deleted.since.iter().any(|v| {
                record(v).is_some_and(|r| {
                    r.id == stated.id && r.superseded.is_none() && r.artifact.revision != *rev
                })
            });
            if !knew_carry || !was_it || lived_on {
                continue;
            }
            let commit = deleted.commit.get(..12).unwrap_or(&deleted.commit);
            self.counts.conflicts.push(format!(
                "record {id}: the folder and the database hold it at revision {rev}, which a \
                 carry moved it on from, and the folder's git history says it was forgotten \
                 after the carry (commit {commit} deleted its file; a merge kept the file \
                 against that); \
                 kept the statement as what revision {rev} says of it (superseded), and the \
                 feature forgotten (to have it again, remember it where its review stands: \
                 revision {}, or where that was carried on to; its saved version imports as \
                 that copy)",
                onward.artifact.revision
            ));
            self.keep_stayed(&stated, &onward)?;
            self.delete_item(ItemKind::Record, id)?;
            self.delete_file(ItemKind::Record, id)?;
        }
        Ok(())
    }

    /// The conflict line of a statement at a revision a carry of the feature moved it on from,
    /// held by one side (`held_by`) while the other no longer holds the feature (forgotten
    /// after the carry): kept as what that revision says, and how to have the feature again
    /// (a row the sync deletes is saved, and imports as that copy).
    fn forgotten_after_the_carry(
        &mut self,
        id: &str,
        (held_by, other): (&str, &str),
        stated: &Record,
        onward: &Record,
    ) {
        let saved = match held_by {
            "database" => "; its saved version imports as that copy",
            _ => "",
        };
        let rev = &stated.artifact.revision;
        self.counts.conflicts.push(format!(
            "record {id}: the {held_by}'s version states it at revision {rev}, which a carry \
             moved it on from, and the {other} no longer holds it (forgotten after the carry); \
             kept the statement as what revision {rev} says of it (superseded), and the feature \
             forgotten (to have it again, remember it where its review stands: revision {}, or \
             where that was carried on to{saved})",
            onward.artifact.revision
        ));
    }

    /// A `clock:` line for the folder's version `item` of `kind` `id` when it is dated ahead of
    /// this machine's clock (once per item: a copy [`Apply::keep_stayed`] takes is checked
    /// there, as it may be settled before its own turn).
    fn clock_ahead(&mut self, kind: ItemKind, id: &str, item: &Item) {
        if item.updated_at() <= self.ahead.as_str() || !self.clocked.insert((kind, id.into())) {
            return;
        }
        self.counts.clock.push(format!(
            "{} in the folder is dated {}, ahead of this machine's clock ({}): the clock \
             that wrote it (or this one) is wrong, and as the later edit wins a merge, \
             this version would beat edits made after it; have the wrong clock fixed (in \
             the folder, `git log -- {}/{}.json` names who committed it)",
            item.describe(),
            item.updated_at(),
            crate::time::now(),
            kind.dir(),
            id
        ));
    }

    /// A `clock:` line for each verdict of the folder's version `d` dated ahead of this
    /// machine's clock that the database's version `held` does not hold: of two engineer
    /// verdicts on one requirement a merge keeps the later `at`, so such a verdict would beat
    /// every verdict given after it, as a version dated ahead beats every later edit.
    fn verdicts_ahead(&mut self, d: &Decision, held: Option<&Item>) {
        let held = match held {
            Some(Item::Decision(h)) => h.basis.as_slice(),
            _ => &[],
        };
        for item in &d.basis {
            let Some(v) = item.verdict.as_ref().filter(|v| v.at > self.ahead) else {
                continue;
            };
            if held
                .iter()
                .any(|h| h.requirement == item.requirement && h.verdict.as_ref() == Some(v))
            {
                continue;
            }
            self.counts.clock.push(format!(
                "decision {} {}: the verdict in the folder ({} via {}) is dated {}, ahead of this \
                 machine's clock ({}): the clock that gave it (or this one) is wrong, or the file \
                 was written by hand, and as the later of two engineer verdicts wins a merge, it \
                 would beat every verdict given after it; have it checked (`git log -- \
                 decisions/{}.json` names who committed it)",
                crate::text::inline(&d.id, 80),
                crate::text::quoted(&item.requirement, 80),
                v.judgement.as_str(),
                v.via.as_str(),
                v.at,
                crate::time::now(),
                d.id
            ));
        }
    }

    /// `changed`, the version of the side that changed alone, as it may replace `before` (the
    /// other side's version; the base's when `None`) under the outranking rule of the tools
    /// (`merge::one_sided`): an engineer's verdict is never replaced by the assistant's. A
    /// verdict so kept is a conflict, reported.
    pub(super) fn outranked(
        &mut self,
        before: Option<&Item>,
        changed: &Item,
        name: &str,
    ) -> Result<Item> {
        if changed.kind() != ItemKind::Decision {
            return Ok(changed.clone());
        }
        let base;
        let before = match before {
            Some(b) => Some(b),
            None => {
                base = self.base_item(changed.kind(), changed.id())?;
                base.as_ref()
            }
        };
        let r = merge::one_sided(before, side(changed, name));
        if let Some(c) = r.conflict {
            self.counts.conflicts.push(c);
        }
        Ok(r.item)
    }

    /// Whether the database or the folder holds a superseded copy of the feature `stayed`
    /// states, at its revision (under the id every clone derives for it), or the history a
    /// carry of the feature from there (its copy forgotten since): that revision was carried
    /// past ([`merge::CopyKnown`]). A database that cannot be read stops the sync (nothing
    /// commits): read as "no copy", it would let a statement move a carried feature back.
    fn copy_known(&self, stayed: &Record) -> Result<bool> {
        let id = Record::snapshot_id(&stayed.id, &stayed.artifact.revision);
        let is_copy = |r: &Record| {
            r.superseded.is_some()
                && r.name == stayed.name
                && r.artifact.revision == stayed.artifact.revision
        };
        let unread = |e: crate::store::StoreError| {
            fail!(
                "cannot tell whether revision {} of {} was carried past for record {}: the \
                 database does not read ({e}); nothing was changed (`review-mcp check` tests \
                 the file)",
                stayed.artifact.revision,
                stayed.artifact.locator(),
                stayed.id
            )
        };
        if self
            .tx
            .record(&id)
            .map_err(unread)?
            .as_ref()
            .is_some_and(is_copy)
            || self.filed_record(&id).is_some_and(is_copy)
        {
            return Ok(true);
        }
        match stayed.name.as_deref() {
            Some(name) => self
                .tx
                .carried_past_at(stayed.artifact.locator(), name, &stayed.artifact.revision)
                .map_err(unread),
            None => Ok(false),
        }
    }

    /// [`Apply::copy_known`] for `stayed` against `onward`, the other side's version of the
    /// feature at another revision. A copy found by name (of another feature of that name: two
    /// ids, one key) does not make `stayed` a statement at a revision carried past when this
    /// very feature (its id) was carried on from `onward`'s revision to `stayed`'s (its copy at
    /// `onward`'s revision, or the carry's `carried` event, says so) and nothing of its id says
    /// it was carried on from `stayed`'s: `stayed` is then that carry, stated again there (its
    /// mark gone), and stands as the carry would ([`merge::elsewhere`]).
    fn copy_known_against(&self, stayed: &Record, onward: &Record) -> Result<bool> {
        if self.onward_of(stayed)?.is_none()
            && self
                .onward_of(onward)?
                .is_some_and(|c| c.artifact.revision == stayed.artifact.revision)
        {
            return Ok(false);
        }
        self.copy_known(stayed)
    }

    /// Whether `held`, the feature live at a revision a carry moved it on from, says of it
    /// what that revision's superseded copy (the later of the database's and the folder's)
    /// does not, and later than the copy: a statement the carry had not seen (the copy is
    /// what the carrying clone held, dated its carry). A version the carry moved on, or one
    /// older than it, is not: the carry's copy says what the revision said.
    fn stated_after_copy(&self, held: &Record) -> Result<bool> {
        let own = Record::snapshot_id(&held.id, &held.artifact.revision);
        let copy = match (self.tx.record(&own)?, self.filed_record(&own)) {
            (Some(h), Some(f)) => Some(std::cmp::max_by(h, f.clone(), |a, b| {
                a.updated_at.cmp(&b.updated_at)
            })),
            (h, f) => h.or_else(|| f.cloned()),
        };
        let Some(copy) = copy.filter(|c| held.carried_by(c).is_some()) else {
            return Ok(false);
        };
        let as_copy = Record {
            id: copy.id.clone(),
            superseded: copy.superseded.clone(),
            created_at: copy.created_at.clone(),
            updated_at: copy.updated_at.clone(),
            ..held.clone()
        };
        Ok(held.updated_at > copy.updated_at && as_copy != copy)
    }

    /// Whether `onward` (the folder's version) is the feature `held` (the database's, unchanged
    /// since the last sync) carried on from `held`'s revision: by its carry mark, or, the mark
    /// gone (stated again after the carry), by a superseded copy known at `held`'s revision,
    /// as [`merge::both_changed`] tells a carry from a statement.
    fn carries_on(&self, onward: &Item, held: &Item) -> Result<bool> {
        let (Item::Record(onward), Item::Record(held)) = (onward, held) else {
            return Ok(false);
        };
        Ok(onward.carried_past(held, Some(&held.artifact.revision))
            || (merge::elsewhere(onward, held) && self.copy_known_against(held, onward)?))
    }

    /// The feature `stated` states (live and named), as a carry of that very feature (its
    /// id) moved it on from `stated`'s revision, when the database says there was one
    /// (`SyncTx::carried_on_from`: that revision's superseded copy of it, or the carry's
    /// `carried` event) or the folder holds that copy. `None`: nothing says so.
    fn onward_of(&self, stated: &Record) -> Result<Option<Record>> {
        if let Some(onward) = self.tx.carried_on_from(stated)? {
            return Ok(Some(onward));
        }
        let id = Record::snapshot_id(&stated.id, &stated.artifact.revision);
        Ok(self
            .filed_record(&id)
            .and_then(|c| stated.carried_by(c))
            .filter(|_| stated.name.is_some() && stated.superseded.is_none())
            .map(|m| stated.carried_to(m)))
    }

    /// Whether the folder holds `stated`'s name live at its own revision under another id
    /// (the key's holder there, as `SyncTx::record_holder` finds it in the database). Only a
    /// file the sync read whole counts: one equal to its base stands for a version the
    /// database holds (it cannot, beside `stated` at that key) or deleted (going in this sync).
    fn filed_holder_at(&self, stated: &Record) -> bool {
        let Some(name) = stated.name.as_deref() else {
            return false;
        };
        let key = feature_key(&stated.artifact, name);
        self.filed_features()
            .live
            .get(&key)
            .is_some_and(|ids| ids.iter().any(|id| *id != stated.id))
    }

    /// The carries of the feature two versions of one id state, from each's revision on, as
    /// the database and the folder's copies show them: `(revision, to)` each, what
    /// [`Record::carried_on_in`] looks up for [`Record::carry_through`].
    fn carry_links(&self, a: &Item, b: &Item) -> Result<Vec<(String, String)>> {
        let (Item::Record(a), Item::Record(b)) = (a, b) else {
            return Ok(Vec::new());
        };
        if a.id != b.id || (a.carried.is_none() && b.carried.is_none()) {
            return Ok(Vec::new());
        }
        let filed = |id: &str| self.filed_record(id).cloned();
        let from = [a.artifact.revision.as_str(), b.artifact.revision.as_str()];
        Ok(self.tx.carry_links(&a.id, &from, &filed)?)
    }

    /// The record the folder's file of `id` holds, as this sync read it.
    fn filed_record(&self, id: &str) -> Option<&Record> {
        match self
            .entries
            .get(&(ItemKind::Record, id.to_string()))
            .and_then(|e| e.file.as_ref())
        {
            Some((_, Some(item))) => match item.as_ref() {
                Item::Record(r) => Some(r),
                Item::Decision(_) => None,
            },
            _ => None,
        }
    }

    /// Keeps `stayed`, a feature's statement at the revision a carry moved it on from, made
    /// in a clone that had not seen the carry ([`merge::Resolved::stayed`]), as what that
    /// revision says of the feature: in its superseded copy (the later of the database's and
    /// the folder's, or a new one), written to both sides like any item the sync settles.
    fn keep_stayed(&mut self, stayed: &Record, onward: &Record) -> Result<()> {
        let own = Record::snapshot_id(&stayed.id, &stayed.artifact.revision);
        let mut held = self.tx.record(&own)?;
        // Neither side holds the copy under the statement's own id: the revision's copy of
        // the feature by its key (another id's: two ids, one key), as `remember` finds it, so
        // a statement made before that copy was known ends in it, not in a second copy.
        let id = match held.is_some() || self.filed_record(&own).is_some() {
            true => own,
            false => match self.copy_by_key(stayed)? {
                Some(c) => {
                    held = self.tx.record(&c)?;
                    c
                }
                None => own,
            },
        };
        let key = (ItemKind::Record, id.clone());
        if let Some(f) = self
            .filed_record(&id)
            .filter(|f| f.updated_at.as_str() > self.ahead.as_str())
            .cloned()
        {
            self.clock_ahead(ItemKind::Record, &id, &Item::Record(f));
        }
        let filed = self.filed_record(&id);
        let copy = match (held.as_ref(), filed) {
            (Some(h), Some(f)) => Some(std::cmp::max_by(h, f, |a, b| {
                a.updated_at.cmp(&b.updated_at)
            })),
            (h, f) => h.or(f),
        };
        // The id names something else (a copy made under a minted id): the statement stays in
        // the history and, from the database, in the file of replaced versions.
        let Some(kept) = Record::stated_before_carry(stayed, onward, copy) else {
            return Ok(());
        };
        // The folder's copy, which the database does not hold, replaced by the statement:
        // its history says so, as the clones that hold the copy record on taking the file.
        let replaced = match (&held, filed) {
            (None, Some(f)) if f != &kept => Some(f.clone()),
            _ => None,
        };
        let kept = Item::Record(kept);
        self.settled.insert(key);
        match held {
            Some(h) if Item::Record(h.clone()) == kept => self.write_file(&kept),
            h => self.import(&kept, h.map(Item::Record).as_ref()),
        }?;
        match (replaced, &kept) {
            (Some(f), Item::Record(k)) => Ok(self.tx.record_kept_over(&f, k)?),
            _ => Ok(()),
        }
    }

    /// The id of the superseded copy, of whatever id, of the feature `stayed` states at its
    /// revision: the database's (as `remember` finds it), else the folder's (the least id when
    /// the folder holds several), as this sync read it. `None`: neither holds one.
    fn copy_by_key(&self, stayed: &Record) -> Result<Option<String>> {
        let Some(name) = stayed.name.as_deref() else {
            return Ok(None);
        };
        let (locator, revision) = (stayed.artifact.locator(), &stayed.artifact.revision);
        if let Some(c) = self.tx.feature_copy(locator, name, revision)? {
            return Ok(Some(c.id));
        }
        Ok(self
            .filed_features()
            .copies
            .get(&feature_key(&stayed.artifact, name))
            .cloned())
    }

    /// The folder's named features by their key, indexed in one pass over the entries when
    /// first asked.
    fn filed_features(&self) -> &FiledFeatures {
        self.filed_features.get_or_init(|| {
            let mut filed = FiledFeatures::default();
            // The entries in id order: the first copy of a key is its least id.
            for ((kind, id), e) in self.entries {
                if let (ItemKind::Record, Some((_, Some(item)))) = (kind, &e.file)
                    && let Item::Record(r) = item.as_ref()
                    && let Some(name) = &r.name
                {
                    let key = feature_key(&r.artifact, name);
                    match r.superseded {
                        Some(_) => {
                            filed.copies.entry(key).or_insert_with(|| id.clone());
                        }
                        None => filed.live.entry(key).or_default().push(id.clone()),
                    }
                }
            }
            filed
        })
    }

    /// The database's version of an item whose hash the sync read as `h`: the transaction
    /// holds the write lock since, and this sync changed only items it settled, so it is the
    /// version classified.
    fn database_item(&self, kind: ItemKind, id: &str, h: &Hash) -> Result<Item> {
        let item = match kind {
            ItemKind::Record => self.tx.record(id)?.map(Item::Record),
            ItemKind::Decision => self.tx.decision(id)?.map(Item::Decision),
        };
        match item {
            Some(item) if item.hash() == *h => Ok(item),
            _ => Err(fail!(
                "{} {id} is no longer what the sync read of it; nothing was changed: run sync \
                 again",
                kind.as_str()
            )),
        }
    }

    /// The folder's version of an item whose file is its base (unchanged since the last sync,
    /// so not parsed when read): the base's item. `None` when the file is absent or changed.
    fn unchanged_file_item(&self, kind: ItemKind, id: &str, e: &Entry) -> Result<Option<Item>> {
        match e.file_hash() {
            Some(h) if e.base == Some(h) => self.base_item(kind, id),
            _ => Ok(None),
        }
    }

    pub(super) fn base_item(&self, kind: ItemKind, id: &str) -> Result<Option<Item>> {
        // A base the folder's history never held was set aside (`run::forget_unheld_bases`).
        if self
            .entries
            .get(&(kind, id.to_string()))
            .is_some_and(|e| e.base.is_none())
        {
            return Ok(None);
        }
        let body = self.tx.base_body(kind.as_str(), id)?;
        // A base that no longer parses (written by a later version) only costs the merge its
        // knowledge of what was removed knowingly.
        Ok(body.and_then(|b| serde_json::from_str(&b).ok()))
    }

    fn set_base(&self, item: &Item) -> Result<Hash> {
        let text = item.text();
        let h = hash(text.as_bytes());
        self.tx
            .set_base(item.kind().as_str(), item.id(), &h, &text)?;
        Ok(h)
    }

    /// The item's file is to hold `item`: its base becomes `item`, and the file is written
    /// after the commit unless it already holds that text.
    fn write_file(&mut self, item: &Item) -> Result<()> {
        let h = self.set_base(item)?;
        let key = (item.kind(), item.id().to_string());
        if self.overlay.disk(self.entries, &key) == Some(h) {
            self.files.remove(&key);
        } else {
            self.files.insert(key, FileOp::Write);
        }
        Ok(())
    }

    /// The item's file is to be gone: its base is dropped, and the file deleted after the
    /// commit if there is one.
    fn delete_file(&mut self, kind: ItemKind, id: &str) -> Result<()> {
        let key = (kind, id.to_string());
        if !self.described.contains_key(&key)
            && let Some(base) = self.base_item(kind, id)?
        {
            self.described.insert(key.clone(), base.describe());
        }
        self.tx.drop_base(kind.as_str(), id)?;
        if self.overlay.disk(self.entries, &key).is_some() {
            self.files.insert(key, FileOp::Delete);
        } else {
            self.files.remove(&key);
        }
        Ok(())
    }

    fn put(&mut self, item: &Item) -> Result<()> {
        self.put_at(item, None)
    }

    /// [`Apply::put`], a new id taking `place` (the seq of the id it took the natural key
    /// from) rather than the next seq.
    fn put_at(&mut self, item: &Item, place: Option<i64>) -> Result<()> {
        match item {
            Item::Record(r) => self.tx.put_record(r, place),
            Item::Decision(d) => self.tx.put_decision(d, place),
        }?;
        self.rows
            .insert((item.kind(), item.id().to_string()), RowOp::Put);
        Ok(())
    }

    /// Saves `item`, the database's version before this sync changes it, and with a live
    /// feature the superseded copy the database holds of it at its revision: what that
    /// revision said of the feature, so the saved file restores both.
    fn save(&mut self, item: &Item) -> Result<()> {
        self.saver.push(item)?;
        if let Item::Record(r) = item
            && r.superseded.is_none()
            && let Some(name) = &r.name
            && let Some(copy) =
                self.tx
                    .feature_copy(r.artifact.locator(), name, &r.artifact.revision)?
        {
            self.saver.push(&Item::Record(copy))?;
        }
        Ok(())
    }

    fn delete_item(&mut self, kind: ItemKind, id: &str) -> Result<()> {
        // The item as the database holds it, kept to be saved before the commit.
        let held = match kind {
            ItemKind::Record => self.tx.record(id)?.map(Item::Record),
            ItemKind::Decision => self.tx.decision(id)?.map(Item::Decision),
        };
        if let Some(item) = held {
            let key = (kind, id.to_string());
            // Saved when the database held it before this sync (one this sync imported and
            // then settled away is still in the folder's history of commits).
            if self.entries.get(&key).is_some_and(|e| e.db.is_some()) {
                self.save(&item)?;
            }
            self.described.insert(key, item.describe());
        }
        match kind {
            ItemKind::Record => self.tx.delete_record(id),
            ItemKind::Decision => self.tx.delete_decision(id),
        }?;
        self.rows.insert((kind, id.to_string()), RowOp::Delete);
        Ok(())
    }

    /// Writes `item` to the database by id, settling another id at its natural key first;
    /// then the file and the base follow what the database now holds (`previous`: what the
    /// database held at that id, for the report of the engineer's verdicts that arrive from
    /// the folder).
    fn import(&mut self, item: &Item, previous: Option<&Item>) -> Result<()> {
        let mut holder = self.holder(item)?;
        // The other id is weighed at its own three-way result: its folder version, changed
        // since the last sync, is merged first (as it is when its id comes first in the
        // sync's order), and the key settled against what that leaves.
        if let Some(held) = &holder
            && self.merge_first(held)?
        {
            holder = self.holder(item)?;
        }
        let (item, held, place) = match holder {
            Some(held) => match self.settle_key(&held, item)? {
                Some((winner, place)) => (winner, Some(held), place),
                // The database's other id keeps the key: nothing more to write for `item`.
                None => return Ok(()),
            },
            None => (item.clone(), None, None),
        };
        self.put_at(&item, place)?;
        // What the database holds now, as the next sync will read it.
        let stored = match &item {
            Item::Record(r) => self.tx.record(&r.id).map(|o| o.map(Item::Record)),
            Item::Decision(d) => self.tx.decision(&d.id).map(|o| o.map(Item::Decision)),
        }?
        .ok_or_else(|| fail!("{} {}: not stored", item.kind().as_str(), item.id()))?;
        let known: Vec<&Item> = previous.into_iter().chain(held.as_ref()).collect();
        self.counts
            .arrived
            .extend(merge::arrived_verdicts(&known, &stored));
        self.write_file(&stored)
    }

    /// The item holding `item`'s natural key in the database under another id.
    fn holder(&self, item: &Item) -> Result<Option<Item>> {
        Ok(match item {
            Item::Record(r) => self.tx.record_holder(r)?.map(Item::Record),
            Item::Decision(d) => self.tx.decision_holder(d)?.map(Item::Decision),
        })
    }

    /// Acts now on `held`, the database's item at a key another id arrives at, when the sync
    /// has not reached it yet, it is still the version the sync read, and its folder version
    /// changed since the last sync (its action takes the folder's version into account):
    /// settled against the database's version alone, the other id would delete it on both
    /// sides and its folder version, an engineer's verdict in it, would never be merged.
    /// Returns whether it acted.
    fn merge_first(&mut self, held: &Item) -> Result<bool> {
        let key = (held.kind(), held.id().to_string());
        let entries = self.entries;
        let Some(e) = entries.get(&key) else {
            return Ok(false);
        };
        let action = super::run::action_of(e);
        if self.settled.contains(&key)
            || self.acted.contains(&key)
            || e.db != Some(held.hash())
            || !matches!(action, Action::ToDatabase | Action::Resolve)
        {
            return Ok(false);
        }
        self.settled.insert(key);
        self.act(held.kind(), held.id(), e, action)?;
        Ok(true)
    }

    /// Two ids at one natural key: `held` in the database, `incoming` from the folder (or a
    /// merge). The later keeps the key (a decision with the other's engineer verdicts); the
    /// other id is deleted on both sides. Returns the item to write when it is `incoming`'s
    /// id, with the place (seq) of `held`'s row for it to take, or `None` when `held` kept the
    /// key (already written here).
    fn settle_key(&mut self, held: &Item, incoming: &Item) -> Result<Option<(Item, Option<i64>)>> {
        // One feature under two ids at two revisions, one of them carried past (a clone that
        // had not seen the carry stated the feature anew there): the other keeps the key
        // whatever the times, and the statement is what its revision says of it, as
        // `remember` and `import` keep it.
        // Not when the folder deleted the database's version (unchanged here since the base):
        // it goes in this sync, and the statement is the feature stated anew after it was
        // forgotten where it stood.
        let going = self
            .entries
            .get(&(ItemKind::Record, held.id().to_string()))
            .is_some_and(|e| e.file.is_none() && e.base.is_some() && e.db == e.base);
        // A statement under the id of the feature a carry moved on from its revision (the
        // carried feature forgotten after the carry, then stated anew under another id) is
        // what that revision says of that very feature: its own copy, as `import` keeps it.
        let statement = |stated: &Record, onward: &Record| -> Result<Record> {
            Ok(match self.onward_of(stated)? {
                Some(_) => stated.clone(),
                None => stated.restated_as(onward),
            })
        };
        let stayed = match (held, incoming) {
            (Item::Record(h), Item::Record(i)) if !going && h.one_key_at_two_revisions(i) => {
                match (
                    self.copy_known(&i.restated_as(h))?,
                    self.copy_known(&h.restated_as(i))?,
                ) {
                    (true, false) => Some((statement(i, h)?, h.clone())),
                    (false, true) => Some((statement(h, i)?, i.clone())),
                    _ => None,
                }
            }
            _ => None,
        };
        let resolved = match &stayed {
            Some((statement, onward)) => merge::Resolved {
                item: Item::Record(onward.clone()),
                conflict: None,
                notes: vec![format!(
                    "the other states it at revision {}, which a carry moved it on from: kept as \
                     what that revision says of it (superseded)",
                    statement.artifact.revision
                )],
                stayed: None,
            },
            None => merge::both_changed(
                None,
                side(held, "database"),
                side(incoming, "folder"),
                &held.text(),
                &incoming.text(),
                &|_| false,
            ),
        };
        let (winner, mut notes) = (resolved.item, resolved.notes);
        let loser = if winner.id() == held.id() {
            incoming
        } else {
            held
        };
        // `held` deleted in the folder but changed here (its own turn comes after the folder's
        // arrivals, so this settles it in every id order): kept, it is written back, as its
        // own turn would have said.
        let kept_against_the_folder = winner.id() == held.id()
            && self
                .entries
                .get(&(held.kind(), held.id().to_string()))
                .is_some_and(|e| super::run::action_of(e) == Action::KeepDatabase);
        // The rule of the tools against the base, as its own turn applies it.
        let winner = match kept_against_the_folder {
            true => self.outranked(None, &winner, "database")?,
            false => winner,
        };
        if kept_against_the_folder {
            notes.push(format!(
                "{} was deleted in the folder but changed in the database: written back to the \
                 folder",
                held.id()
            ));
        }
        self.counts.conflicts.push(format!(
            "{} {} (database, {}) and {} (folder, {}) are one {} under two ids: kept {}, \
             deleted {} on both sides{}",
            held.kind().as_str(),
            held.id(),
            held.updated_at(),
            incoming.id(),
            incoming.updated_at(),
            held.kind().key_name(),
            winner.id(),
            loser.id(),
            notes.iter().map(|n| format!("; {n}")).collect::<String>()
        ));
        self.described
            .entry((loser.kind(), loser.id().to_string()))
            .or_insert_with(|| loser.describe());
        // The item keeps its place in every result order (as `import` keeps it): the winner
        // takes the row of the id it replaces.
        let place = match loser.kind() {
            ItemKind::Record => self.tx.record_place(loser.id()),
            ItemKind::Decision => self.tx.decision_place(loser.id()),
        }?;
        self.delete_item(loser.kind(), loser.id())?;
        self.delete_file(loser.kind(), loser.id())?;
        self.settled.insert((loser.kind(), loser.id().to_string()));
        self.settled
            .insert((winner.kind(), winner.id().to_string()));
        if let Some((statement, onward)) = &stayed {
            self.keep_stayed(statement, onward)?;
        }
        if winner.id() == held.id() {
            if winner != *held {
                self.counts
                    .arrived
                    .extend(merge::arrived_verdicts(&[held], &winner));
                self.put(&winner)?;
            }
            if kept_against_the_folder && winner.kind() == ItemKind::Decision {
                self.tx.decision_goes_on(winner.id())?;
            }
            self.write_file(&winner)?;
            return Ok(None);
        }
        Ok(Some((winner, place)))
    }

    /// Journals the files to write and delete under `run` (in the transaction, so they commit
    /// with the database's changes), counts what the sync does, and returns the plan: one
    /// line per change, as `--dry-run` prints it.
    pub(super) fn finish(self, run: &str) -> Result<Finished> {
        let Apply {
            tx,
            entries,
            overlay,
            counts,
            files,
            rows,
            saver,
            replaced,
            described,
            ..
        } = self;
        let what = |kind: ItemKind, id: &str| {
            described
                .get(&(kind, id.to_string()))
                .cloned()
                .unwrap_or_else(|| format!("{} {id}", kind.as_str()))
        };
        for key in &overlay.rows {
            if !files.contains_key(key) {
                tx.drop_pending(key.0.as_str(), &key.1)?;
            }
        }
        for key in files.keys() {
            let prior = overlay.disk(entries, key);
            tx.set_pending(key.0.as_str(), &key.1, prior.as_ref().map(|h| &h[..]), run)?;
        }
        let mut lines = Vec::new();
        let mut files_deleted = BTreeSet::new();
        let mut deleted: [BTreeSet<&str>; 2] = Default::default();
        let keys: BTreeSet<&Key> = files.keys().chain(rows.keys()).collect();
        for key in keys {
            let (kind, id) = (key.0, key.1.as_str());
            let k = kind as usize;
            let file = format!("{}/{id}.json", kind.dir());
            let existed = entries.get(key).is_some_and(|e| e.db.is_some());
            match rows.get(key) {
                Some(RowOp::Put) => {
                    counts.imported[k] += 1;
                    lines.push(format!("import {file}"));
                }
                Some(RowOp::Delete) if existed => {
                    counts.deleted_items[k] += 1;
                    if counts.removed_items.len() < NAMED {
                        counts.removed_items.push(what(kind, id));
                    }
                    deleted[k].insert(id);
                    lines.push(format!("delete {} {id} from the database", kind.as_str()));
                }
                _ => {}
            }
            match files.get(key) {
                Some(FileOp::Write) => {
                    counts.written[k] += 1;
                    lines.push(format!("write {file}"));
                }
                Some(FileOp::Delete) => {
                    counts.deleted_files[k] += 1;
                    if counts.removed_files.len() < NAMED {
                        counts
                            .removed_files
                            .push(format!("{file}: {}", what(kind, id)));
                    }
                    deleted[k].insert(id);
                    lines.push(format!("delete {file}"));
                    files_deleted.insert(file);
                }
                None => {}
            }
        }
        counts.deleted = [deleted[0].len(), deleted[1].len()];
        counts.replaced_saved = replaced;
        Ok(Finished {
            lines,
            files_deleted,
            saver,
        })
    }
}

/// After the commit: brings every file journaled under `run` to its base (writes first, in
/// parallel batches, then deletions), writes sync's own files that are not current (`own`:
/// the README, the `.gitattributes`, each a name and its text), fsyncs the
/// folder's directories and forgets the journal rows. A sync killed here leaves the rows for
/// the next sync to finish.
///
/// A file that no longer holds what it held when the sync planned (a `git pull` or an editor
/// changed it while the sync ran) is left as it is, never overwritten or deleted: its base is
/// forgotten with the journal, so the next sync merges it with the database's version.
/// Returns those files (`records/<id>.json`).
pub(super) fn complete(
    store: &mut Store,
    folder: &Path,
    folder_id: &str,
    run: &str,
    own: &[(&str, &str)],
) -> Result<Vec<String>> {
    for kind in ItemKind::ALL {
        let dir = folder.join(kind.dir());
        std::fs::create_dir_all(&dir).map_err(|e| fail!("cannot create {}: {e}", shown(&dir)))?;
    }
    // The texts are read from the journal as they are written, a batch at a time.
    let mut touched = false;
    let mut writes = Vec::with_capacity(WRITE_BATCH);
    let mut deletes = Vec::new();
    let mut left: Vec<(ItemKind, String)> = Vec::new();
    let unchanged = |path: &Path, prior: &Option<Vec<u8>>| {
        let prior = prior.as_deref().and_then(|b| Hash::try_from(b).ok());
        file_hash(path).is_ok_and(|now| now == prior)
    };
    store.sync_journal_each(folder_id, run, |kind, id, body, prior| {
        touched = true;
        let Some(kind) = ItemKind::parse(&kind) else {
            return Ok(());
        };
        let path = file_of(folder, kind, &id);
        match body {
            Some(_) if !unchanged(&path, &prior) => left.push((kind, id)),
            Some(text) => writes.push((path, text)),
            None => deletes.push((kind, id, path, prior)),
        }
        if writes.len() == WRITE_BATCH {
            write_all(&writes)?;
            writes.clear();
        }
        Ok::<(), super::Error>(())
    })?;
    write_all(&writes)?;
    drop(writes);
    for (kind, id, path, prior) in deletes {
        if !unchanged(&path, &prior) {
            left.push((kind, id));
            continue;
        }
        remove_file(&path)?;
        step("file deleted");
    }
    for (name, text) in own {
        write_atomic(&folder.join(name), text)?;
    }
    if touched || !own.is_empty() {
        for d in ItemKind::ALL
            .map(|k| folder.join(k.dir()))
            .iter()
            .chain([&folder.to_path_buf()])
        {
            fsync_dir(d);
        }
        step("directories fsynced");
    }
    if touched {
        let keys: Vec<(String, String)> = left
            .iter()
            .map(|(k, id)| (k.as_str().to_string(), id.clone()))
            .collect();
        store.sync_journal_done(folder_id, run, &keys)?;
        step("journal cleared");
    }
    Ok(left
        .into_iter()
        .map(|(k, id)| format!("{}/{id}.json", k.dir()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (a `git pull` while a sync ran): a file changed after the sync read it was
    /// overwritten with the database's version after the commit, silently, so the next commit
    /// reverted the teammate's change. A file that no longer holds what the sync planned from
    /// is now left as it is and its base forgotten (the next sync merges the two versions);
    /// the others are written and deleted as planned.
    #[test]
    fn complete_leaves_a_file_changed_while_the_sync_ran() {
        let dir = std::env::temp_dir().join(format!("review-mcp-complete-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let records = dir.join("records");
        std::fs::create_dir_all(&records).unwrap();
        let (planned, theirs) = ("planned\n", "a teammate's version\n");
        for id in ["changed", "written", "gone", "kept"] {
            std::fs::write(records.join(format!("{id}.json")), planned).unwrap();
        }
        let mut store = Store::open_in_memory().unwrap();
        let tx = store.sync_transaction("folder_id_1", None).unwrap();
        let prior = hash(planned.as_bytes());
        for id in ["changed", "written"] {
            tx.set_base("record", id, &hash(b"new\n"), "new\n").unwrap();
            tx.set_pending("record", id, Some(&prior), "run_1").unwrap();
        }
        for id in ["gone", "kept"] {
            tx.set_pending("record", id, Some(&prior), "run_1").unwrap();
        }
        tx.commit().unwrap();
        // Meanwhile, after the sync read them: git changes two of the files.
        std::fs::write(records.join("changed.json"), theirs).unwrap();
        std::fs::write(records.join("kept.json"), theirs).unwrap();
        let left = complete(&mut store, &dir, "folder_id_1", "run_1", &[]).unwrap();
        assert_eq!(left, ["records/changed.json", "records/kept.json"]);
        let read = |id: &str| std::fs::read_to_string(records.join(format!("{id}.json"))).ok();
        assert_eq!(read("changed").as_deref(), Some(theirs));
        assert_eq!(read("kept").as_deref(), Some(theirs));
        assert_eq!(read("written").as_deref(), Some("new\n"));
        assert_eq!(read("gone"), None);
        let tx = store.sync_transaction("folder_id_1", None).unwrap();
        let bases: Vec<String> = tx.bases().unwrap().into_iter().map(|b| b.id).collect();
        assert_eq!(bases, ["written"]);
        assert!(tx.pending().unwrap().is_empty());
        drop(tx);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The journal's rule after a kill: a file the earlier sync did not finish (it still holds
    /// what it held when that sync planned) is planned as finished and is this sync's to
    /// write; a file done since, or changed by hand since, is what it is.
    #[test]
    fn overlay_plans_only_the_unfinished_files_as_finished() {
        let (old, new, hand) = (hash(b"old"), hash(b"new"), hash(b"hand"));
        let mut store = Store::open_in_memory().unwrap();
        let tx = store.sync_transaction("folder_id_1", None).unwrap();
        let mut entries = Entries::new();
        for (id, disk) in [("unfinished", old), ("done", new), ("by_hand", hand)] {
            tx.set_pending("record", id, Some(&old), "run_1").unwrap();
            let e = entries.entry((ItemKind::Record, id.into())).or_default();
            e.base = Some(new);
            e.file = Some((disk, None));
        }
        let overlay = overlay(&tx, &mut entries).unwrap();
        let file = |id: &str| entries[&(ItemKind::Record, id.to_string())].file_hash();
        assert_eq!(file("unfinished"), Some(new));
        assert_eq!(file("done"), Some(new));
        assert_eq!(file("by_hand"), Some(hand));
        let unfinished = (ItemKind::Record, "unfinished".to_string());
        assert_eq!(overlay.disk.keys().collect::<Vec<_>>(), [&unfinished]);
        assert_eq!(overlay.disk(&entries, &unfinished), Some(old));
        assert_eq!(overlay.rows.len(), 3);
        let mut counts = Counts::default();
        let apply = Apply::new(&tx, &entries, overlay, &mut counts, Saver::new(None), 0);
        assert_eq!(apply.files.get(&unfinished), Some(&FileOp::Write));
        assert_eq!(apply.files.len(), 1);
    }
}
