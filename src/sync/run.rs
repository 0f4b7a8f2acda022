//! `review-mcp sync DIR [--dry-run]`: the folder DIR inside the team's repository and the
//! local database kept in step, both ways, by the three-way rule of `crate::sync`.
//!
//! One run, in order:
//! 0. the folder's own entries are checked: DIR as named, `records`, `decisions` and
//!    `README.md` must not be symbolic links (refused, named: a link would lead reads and
//!    writes outside the folder), and a rebase or bisect in progress in the folder's git work
//!    tree refuses the sync (the folder is not the branch then); the folder's lock is taken (`owned::lock`: a second sync of
//!    the folder waits), and what sync owns in the folder is checked before anything is
//!    written: a README.md it did not write, or an id file that is not one, refuses the sync;
//!    so does a setting of the repository under which git would not check out or commit the
//!    folder's files as sync reads and writes them (`git::refuse_settings`: a sparse checkout,
//!    an ignore pattern, an attribute that rewrites them).
//!    The folder's state in the database is keyed by its id (`.review-mcp-folder`, written at
//!    its first sync), which travels with git; bases still keyed by the folder's path
//!    (written before the id file existed) are adopted. Another directory where this database
//!    last synced that id and that still holds it refuses the sync (`owned::place`: one is a
//!    copy of the other); a place gone, or holding no id or another, is the folder moved;
//! 1. without the write lock (under a read snapshot), the folder is read: every file of
//!    `history/` is read and checked (`history::read_history`: an event file named by its
//!    sealed event's id, by the same rules as an item file), then every entry of
//!    `records/` and `decisions/` must be a regular file of at most `MAX_FILE_BYTES` (a link,
//!    device, FIFO or larger file is refused, named, never opened through or read past its
//!    bound), each is hashed (on threads of its own, while the database is read), and every
//!    file that differs from both its base and the database is validated as `import`
//!    validates a line (shape, then the domain rules, and its name must be its id); one bad
//!    file refuses the sync, naming it, and nothing is changed;
//! 2. the database's write transaction is taken (`store::SyncTx`). When no other connection
//!    committed since 1 (`PRAGMA data_version`), what 1 read holds; otherwise every item of the
//!    database is read again, put in its file form and hashed, with the bases, and met with
//!    the folder as read in 1 (no folder file is read under the lock; an item a server changed
//!    meanwhile whose file would now need validating sends the sync back to 1). The folder's
//!    journal is read: a file an earlier sync committed to and did not finish is planned as
//!    finished (`apply::overlay`);
//! 3. the folder's events the database lacks are added (a union: before any item is written,
//!    so an item whose state they tell records no event of the sync's own); then each item is
//!    classified (`sync::classify`) and acted on in the database: deletions
//!    first (so an item a teammate renamed away never collides with its own ghost), then
//!    imports and merges (`sync::merge`, whose outranking rule also holds for a side changed
//!    alone: an assistant's verdict never replaces an engineer's), and last the items the
//!    folder deleted and the database changed (kept and written back, unless another id
//!    arriving at the item's key settled it first); each file to write or
//!    delete is journaled in the same transaction (`sync_pending`), its text being the item's
//!    new base;
//! 4. the transaction commits; then, outside the lock, the journaled files are written (to a
//!    temporary name created exclusively, never through a link, fsynced and renamed, in
//!    parallel batches), the files to delete are deleted, the README is written, the
//!    directories are fsynced and the journal rows are forgotten (`apply::complete`); then
//!    every event of the database the folder lacks is written to `history/` (not journaled:
//!    one a killed sync did not write is still missing at the next, which writes it). Every
//!    engineer verdict taken from the folder is reported (the folder is unsigned), and
//!    everything printed from the folder has its control characters escaped.
//!
//! Nothing in the folder changes before the commit, so a sync that dies before it changed
//! nothing; one that dies after it leaves the journal, which the next sync finishes before
//! anything else. A re-sync after a kill at any step ends where the uninterrupted sync would
//! have (tests/it/sync_state.rs kills a sync at each of its steps: `REVIEW_MCP_SYNC_FAIL_AT`).
//! `--dry-run` runs the same code on a private copy of the database and writes no file: the
//! plan it prints is what the sync does.
//!
//! Here: the run, and what it did for the command to print (`Outcome`).
//!
//! An item whose natural key (a feature's locator and name, a decision's locator, subject and
//! revision) is held in the database under another id (two engineers created it apart) is
//! settled as a conflict: the later version keeps the key with its own id, a decision taking
//! the other's engineer verdicts, and the other id is deleted on both sides.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::{fs, io};

use super::apply::WRITE_BATCH;
use super::apply::{Apply, complete, overlay};
use super::folder::{
    HASH_THREADS, SetAside, fsync_dir, is_file_id, kept_versions, on_threads, read_folder,
    refuse_links, remove_file, scan, write_all, write_atomic,
};
use super::history::{HISTORY_DIR, Held, engineer_verdict_events, missing_files, read_history};
use super::line::{Schemas, check_event};
use super::new_database::{NewDatabase, NewFolder};
use super::owned;
use super::saved;
use super::{Action, Hash, Item, ItemKind, README, Result, classify, shown};
use crate::store::{Store, SyncTx};

/// What is known of one item before the sync acts.
#[derive(Default)]
pub(super) struct Entry {
    /// The hash of the database's version in its file form (the version itself is read
    /// again when the sync acts on it: holding every item would cost the database's size).
    pub(super) db: Option<Hash>,
    /// The folder's file: its hash, and the item when it had to be validated (it differs from
    /// both the base and the database).
    pub(super) file: Option<(Hash, Option<Box<Item>>)>,
    pub(super) base: Option<Hash>,
}

/// How many items each action touched, by kind (`[records, decisions]`).
#[derive(Debug, Default)]
pub struct Counts {
    pub written: [usize; 2],
    pub imported: [usize; 2],
    pub deleted_files: [usize; 2],
    pub deleted_items: [usize; 2],
    /// Items deleted on either side or both (each counted once).
    pub deleted: [usize; 2],
    pub conflicts: Vec<String>,
    /// The engineer's verdicts taken from the folder on its word (it is unsigned), one line
    /// each naming the decision, the requirement and who gave it.
    pub arrived: Vec<super::merge::Arrived>,
    /// The engineer's verdicts that events of the folder's history new to the database say
    /// were given, one line each naming the event's file (the folder is unsigned, and so is
    /// an event).
    pub arrived_events: Vec<String>,
    /// Events of the history written to the folder (`history/<id>.json`): the database's
    /// the folder lacked, those of this sync's own writes included.
    pub history_written: usize,
    /// Events of the folder's history the database did not hold, added.
    pub history_imported: usize,
    /// The items deleted from the database, each named (`Item::describe`): the first
    /// `saved::NAMED`; `deleted_items` counts them all.
    pub removed_items: Vec<String>,
    /// The files deleted from the folder, each with the item it held: the first
    /// `saved::NAMED`; `deleted_files` counts them all.
    pub removed_files: Vec<String>,
    /// The folder's versions dated ahead of this machine's clock (written under a wrong
    /// clock: the later-edit rule favours them), one line each.
    pub clock: Vec<String>,
    /// How many database versions that a conflict's merge replaced were saved with the
    /// deleted items.
    pub replaced_saved: usize,
    /// How many of `replaced_saved` are database versions a folder version older than them
    /// replaced (changed in the folder only): the saved one is the later, which `import`
    /// brings back.
    pub older_saved: usize,
    /// Files a `git pull` or an editor changed while the sync ran (after it read them): left
    /// as they are, for the next sync to merge (`records/<id>.json`).
    pub changed_meanwhile: Vec<String>,
    /// Item files put back from the versions merge-file set aside (git paired them with other
    /// items' files as renames), each `records/<id>.json`: new to git, to be committed.
    pub restored: Vec<String>,
    /// Versions merge-file set aside whose item's file was back beside them, merged into
    /// it and deleted, one line each ([`set_aside_line`]: `deleted records/.<id>.json.kept
    /// …`).
    pub stale_kept: Vec<String>,
}

/// What a sync did (or, in a dry run, would do), for the command to print; every text taken
/// from the folder is still to be escaped when it is printed.
#[derive(Debug)]
pub struct Outcome {
    /// DIR did not exist: this sync made it (a dry run: would make it). Said first, so a
    /// mistyped name is seen before it is committed.
    pub new_folder: bool,
    /// Where this database last synced the folder, when that place no longer holds it (gone,
    /// unmounted, holding no id or another one): the folder moved from there, and its state
    /// goes on here. Said next, so a copy synced while its original is unmounted is seen.
    pub moved_from: Option<std::path::PathBuf>,
    pub counts: Counts,
    /// The plan, one line per change (`write records/<id>.json`, …), as `--dry-run` prints it.
    pub plan: Vec<String>,
    /// The file the items deleted from the database (and the database versions conflicts
    /// replaced) were saved in (export lines, for `review-mcp import` to bring them back);
    /// `None` when there were none, or in a dry run.
    pub saved: Option<std::path::PathBuf>,
}

impl Entry {
    /// Whether a file of hash `h` is known: the base's or the database's text, so it needs
    /// no validating.
    pub(super) fn knows(&self, h: &Hash) -> bool {
        self.base == Some(*h) || self.db == Some(*h)
    }

    /// The hash of the folder's file as read (`None`: absent).
    pub(super) fn file_hash(&self) -> Option<Hash> {
        self.file.as_ref().map(|(h, _)| *h)
    }
}

/// Syncs the folder `dir` with the database `db` (a dry run: on a private copy of the
/// database, writing no file). `waiting` is told when another sync of the folder holds it.
pub fn run(
    db: &Path,
    dir: &Path,
    dry_run: bool,
    waiting: &mut dyn FnMut(&Path),
) -> Result<Outcome> {
    let started = std::time::Instant::now();
    let schemas = Schemas::from_tools()?;
    refuse_links(dir)?;
    refuse_a_link_inside_the_work_tree(dir)?;
    refuse_a_git_directory(dir)?;
    refuse_while_git_replays(dir)?;
    // A file named where the folder goes (`sync review.db`): said as such, not as the
    // "File exists" of creating it.
    if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        return Err(fail!(
            "{} is not a directory: name the folder that holds (or is to hold) the review \
             memory, such as review/; nothing was changed",
            shown(dir)
        ));
    }
    refuse_database_inside(db, dir)?;
    refuse_inside_a_synced_folder(dir)?;
    let new_folder = fs::symlink_metadata(dir).is_err_and(|e| e.kind() == io::ErrorKind::NotFound);
    // A refused sync leaves no folder it made (dropped after the lock and the store).
    let mut made = (!dry_run && new_folder).then(|| NewFolder::before(dir));
    if !dry_run {
        fs::create_dir_all(dir).map_err(|e| {
            fail!(
                "cannot create the folder {}: {e}; nothing was changed. Name a folder in a \
                 directory you can write (in a clone's work tree, such as review/)",
                shown(dir)
            )
        })?;
    }
    let folder = match fs::canonicalize(dir) {
        Ok(p) => p,
        Err(_) if dry_run => std::path::absolute(dir)?,
        Err(e) => return Err(fail!("cannot read {}: {e}", shown(dir))),
    };
    // Two syncs of one folder never run at once: the second waits for the first.
    let _lock = match folder.is_dir() {
        true => Some(owned::lock(&folder, !dry_run, waiting)?),
        false => None,
    };
    // What sync owns in the folder is checked before anything is written: an id file that is
    // not one, entries not its own at a first sync, a README it did not write, or a
    // .gitattributes of another rule refuses the sync.
    let found_id = owned::folder_id(&folder)?;
    let stale = owned::stale_temporaries(&folder)?;
    // Items' versions merge-file set aside (git paired their files with other items' as a
    // rename): read as the items' files, put in place after the commit.
    let kept = kept_versions(&folder);
    // A dry run acts exactly as the sync, on a private copy of the database (a database that
    // does not exist yet is an empty one in memory), and writes no file.
    // A refused sync leaves no database it created (declared first: dropped last).
    let mut created = (!dry_run).then(|| NewDatabase::before(db)).flatten();
    let mut store = match (dry_run, db.exists()) {
        (true, true) => Store::sync_dry_run_copy(db),
        (true, false) => Store::open_in_memory(),
        (false, _) => Store::open(db),
    }?;
    if let Some(c) = created.as_mut() {
        c.opened();
    }
    let mut lines: Vec<String> = stale
        .iter()
        .map(|p| {
            let name = p.strip_prefix(&folder).unwrap_or(p);
            format!("delete {} (left by an interrupted sync)", name.display())
        })
        .collect();
    // Where the versions merge-file set aside go in the plan: said once the sync knows which
    // files it deletes (a version of an item the database no longer holds is put back only for
    // the deletion to take it) and which it merges into their items' files.
    let kept_at = lines.len();
    // The folder's id, written at its first sync, keys its state in the database, so a moved
    // checkout or another clone is the same folder.
    let new_id = found_id.is_none();
    let id = found_id.unwrap_or_else(|| owned::new_token(&folder));
    if new_id {
        lines.push(format!("write {} (the folder's id)", owned::ID_FILE));
    }
    let run = owned::new_token(&folder);
    // A folder last synced by a version that keyed it by its path keeps its bases.
    let legacy = folder.to_str();
    // A first sync takes a folder of its own, never a project's root.
    if new_id && !store.sync_snapshot(&id, legacy)?.has_bases()? {
        owned::refuse_foreign_entries(&folder)?;
    }
    let readme = owned::readme(&folder, !new_id)?;
    let attributes_current = owned::attributes(&folder)?;
    owned::refuse_case_variants(&folder)?;
    // git, as the repository is set, must check out and commit the files sync reads and
    // writes: a sparse checkout, an ignore pattern or a rewriting attribute refuses the sync.
    super::git::refuse_settings(&folder, attributes_current)?;
    // A merge or pull that stopped leaves files unmerged: what they hold is not the merge.
    super::git::refuse_unmerged(&folder)?;
    // Where this database last synced the folder's id: another directory that still holds
    // the id is a copy (a second clone or `git worktree`, a copied folder), and the two synced
    // in turn would each delete from the database what the other lacks. Judged before the
    // lock (it reads the id file there), and confirmed under it. What a copy of the database
    // (at another path) recorded is the original's, and counts for nothing; what this one
    // recorded at a path where no file is any more, before it moved, is its own.
    let database = resolved(db)?;
    let last = match new_id {
        true => None,
        false => owned::own_place(store.sync_snapshot(&id, legacy)?.last_place()?, &database),
    };
    let moved_from = match owned::place(&folder, &id, last.as_deref()) {
        owned::Place::Same => None,
        owned::Place::Moved(old) => Some(old),
        owned::Place::Copy(old) => return Err(copy_refused(&folder, &old, &id)),
    };
    // The folder is untrusted input: every file of it is read (regular files only, bounded),
    // hashed and, when it differs from its base and the database, validated before the write
    // lock is taken, so a slow or hostile folder never holds servers' writes up. Under the
    // lock only the database is read; an item a server changed meanwhile whose file then
    // needs reading too (rare) sends the sync back to read the folder again.
    // The history files are read once, before the lock: they are only ever added to, and the
    // database's events are met with them under the lock.
    // Only the events the database lacks are kept in memory (the others are checked, but a
    // file whose text is the one the database recorded for its event, which is taken as is).
    let mut held = Held::new();
    store.sync_snapshot(&id, legacy)?.each_event_file(|id, h| {
        held.insert(id, h);
        Ok::<(), super::Error>(())
    })?;
    let history = read_history(&folder, &held)?;
    drop(held);
    log::debug!(
        "sync: {} history files read ({} parsed and checked) at {} ms",
        history.present.len(),
        history.parsed,
        started.elapsed().as_millis()
    );
    // The folder's git repository, to tell a base its history never held: asked once, when
    // some base would decide an item.
    let mut objects: Option<Option<super::git::Objects>> = None;
    let mut attempt = 0;
    let (tx, mut entries, unheld, set_aside) = loop {
        attempt += 1;
        // Read on the file itself (not on the empty stand-in of a file not created yet), the
        // database as read before the lock still holds when no one committed since.
        let existed = db.exists();
        // Everything of the folder, read without the write lock (under a read snapshot): its
        // item files hashed and the changed ones validated (`gather`, which reads the
        // database too), with the snapshot's `data_version`.
        let snapshot = store.sync_snapshot(&id, legacy)?;
        let (read, set_aside) = gather(
            &snapshot,
            &folder,
            &schemas,
            history.problems.clone(),
            history.bytes,
        )?;
        let version = snapshot.data_version()?;
        let mark = snapshot.journal_mark()?;
        // Asked of git before the lock: a base the folder's history never held.
        let unheld = match read.values().any(base_stands_alone) {
            true => match objects.get_or_insert_with(|| super::git::Objects::of(&folder)) {
                Some(o) => unheld_bases(&snapshot, &read, o)?,
                None => BTreeSet::new(),
            },
            false => BTreeSet::new(),
        };
        drop(snapshot);
        #[cfg(test)]
        tests::BEFORE_LOCK.with(|hook| {
            if let Some(hook) = hook.borrow_mut().as_mut() {
                hook();
            }
        });
        let tx = store.sync_transaction(&id, legacy)?;
        if existed && tx.data_version()? == version {
            break (tx, read, unheld, set_aside);
        }
        // Servers writing meanwhile (every run on a busy file): only the items the change
        // journal says were written since are read again under the lock, so their writes
        // wait for those, not for the whole database read and hashed again.
        let again = if existed && tx.journal_mark()?.1 == mark.1 {
            log::debug!(
                "sync: the database changed since it was read: read what changed under the lock"
            );
            refresh(&tx, read, mark.0)?
        } else {
            log::debug!("sync: the database changed since it was read: read again under the lock");
            let view: FolderView = read
                .into_iter()
                .filter_map(|(k, e)| e.file.map(|f| (k, f)))
                .collect();
            combine(&tx, view)?
        };
        match again {
            Some(entries) => break (tx, entries, unheld, set_aside),
            None if attempt < READ_ATTEMPTS => {
                log::debug!("sync: the database changed an item whose file must be read again");
            }
            None => {
                return Err(fail!(
                    "the database kept changing items of the folder while it was read ({} \
                     times); nothing was changed: run sync again",
                    READ_ATTEMPTS
                ));
            }
        }
    };
    let here = owned::path_bytes(&folder);
    if last.as_deref() != Some(here.as_slice()) {
        if owned::own_place(tx.last_place()?, &database) != last {
            return Err(fail!(
                "another folder holding the folder id {id} ({}) was synced with this database \
                 while this sync ran; nothing was changed: run sync again",
                owned::ID_FILE
            ));
        }
        tx.set_path(&here, &owned::path_bytes(&database))?;
    }
    let unfinished = overlay(&tx, &mut entries)?;
    forget_unheld_bases(&mut entries, &unheld);
    log::debug!("sync: read at {} ms", started.elapsed().as_millis());

    let mut counts = Counts::default();
    // The folder's events first: an item whose state they tell then records nothing more.
    let known_before = tx.last_event()?;
    let history_added = tx.add_events(&history.events)?;
    tx.know_event_files(
        history
            .known
            .iter()
            .map(|(id, h)| (id.as_str(), h.as_slice())),
    )?;
    counts.history_imported = history_added.len();
    let now = crate::time::now_millis();
    counts.clock.extend(super::history::events_ahead(
        &history.events,
        &history_added,
        &crate::time::format_millis(now + super::apply::CLOCK_SLACK_MS),
        &crate::time::format_millis(now),
    ));
    // What this sync deletes from the database is written beside it as it deletes it (a dry
    // run only counts), made durable before the commit.
    let saving = (!dry_run)
        .then(|| {
            std::path::absolute(db).map(|db| saved::saved_file(&db, &crate::time::now(), &run))
        })
        .transpose()?;
    let mut sync = Apply::new(
        &tx,
        &entries,
        unfinished,
        &mut counts,
        saved::Saver::new(saving),
        known_before,
    );
    // Deletions first, then everything else, and last the items the folder deleted and the
    // database changed since (kept, written back): another id arriving from the folder at such
    // an item's key settles it first, whichever id sorts first, so no sync reports an item
    // kept that the other id then deletes on both sides.
    let pass_of = |action: Action| match action {
        Action::DeleteFile | Action::DeleteItem => 0,
        Action::KeepDatabase => 2,
        _ => 1,
    };
    for pass in 0..3 {
        for ((kind, id), e) in &entries {
            let action = action_of(e);
            if pass_of(action) == pass && !sync.settled.contains(&(*kind, id.clone())) {
                sync.act(*kind, id, e, action)?;
            }
        }
    }
    // A feature both sides hold at a revision its own carry moved it on from, whose file git
    // deleted after that carry (forgotten there; a merge kept the file against it): asked of
    // git only for these, which are rare.
    let live_carried_past = sync.live_carried_past()?;
    if !live_carried_past.is_empty()
        && let Some(o) = objects.get_or_insert_with(|| super::git::Objects::of(&folder))
    {
        sync.forgotten_in_history(live_carried_past, o, &schemas)?;
    }
    // A decision (or a carried feature) live here whose history the folder's events ended (a
    // teammate forgot it) goes on, whatever this sync did with its file (kept against the
    // deletion, or written: new to the folder, as an import from the teammate's export makes
    // it), as `import` records: the history of a live item does not end on "forgotten".
    let added: BTreeSet<&str> = history_added.iter().map(String::as_str).collect();
    let ended: BTreeSet<&str> = history
        .events
        .iter()
        .filter(|e| e.after.is_none() && added.contains(e.id.as_str()))
        .map(|e| e.of.as_str())
        .collect();
    for id in ended {
        if tx.decision_goes_on(id)? == 0 {
            tx.record_goes_on(id)?;
        }
    }
    let finished = sync.finish(&run)?;
    // Listed once: an event of a verdict this sync took from an item file is not listed again.
    counts.arrived_events =
        engineer_verdict_events(&history.events, &history_added, &counts.arrived);
    let name = |p: &Path| p.strip_prefix(&folder).unwrap_or(p).display().to_string();
    let kept_lines: Vec<String> = set_aside
        .iter()
        .map(|s| set_aside_line(&name(&s.kept), &name(&s.own), s, false))
        .chain(kept.iter().map(
            |(from, to)| match finished.files_deleted.contains(&name(to)) {
                true => format!(
                    "delete {} (merge-file set aside {}, which this sync deletes)",
                    name(from),
                    name(to)
                ),
                false => format!(
                    "restore {} from {} (merge-file set it aside: git paired its file with \
                     another item's as a rename)",
                    name(to),
                    name(from)
                ),
            },
        ))
        .collect();
    lines.splice(kept_at..kept_at, kept_lines);
    lines.extend(finished.lines);
    let saver = finished.saver;
    // Every event the folder lacks, this sync's own included, is written after the commit
    // (not journaled: one a killed sync did not write is still missing at the next sync).
    let present: BTreeSet<&str> = history.present.iter().map(String::as_str).collect();
    let history_files = tx.events_missing(&present)?;
    drop(present);
    counts.history_written = history_files.len();
    lines.extend(
        history_added
            .iter()
            .map(|id| format!("import {HISTORY_DIR}/{id}.json")),
    );
    lines.extend(
        history_files
            .iter()
            .map(|id| format!("write {HISTORY_DIR}/{id}.json")),
    );
    let mut own: Vec<(&str, &str)> = Vec::new();
    if readme != owned::Readme::Current {
        own.push((owned::README_FILE, README));
        lines.push(format!("write {}", owned::README_FILE));
    }
    if !attributes_current {
        own.push((owned::ATTRIBUTES_FILE, owned::ATTRIBUTES));
        lines.push(format!(
            "write {} (git's merge driver for this folder)",
            owned::ATTRIBUTES_FILE
        ));
    }
    if dry_run {
        drop(tx);
        return Ok(Outcome {
            new_folder,
            moved_from,
            counts,
            plan: lines,
            saved: None,
        });
    }
    // The merge of each version set aside with its item's file is written there, and the
    // version set aside deleted, before the commit: once the database holds the merge, no
    // version set aside is left to stand for the file should it go (left until after the
    // commit, a sync killed there, then the file deleted, had the next sync take that older
    // version over the database's later one). Either changed since they were read (a pull,
    // an editor), the sync is refused, nothing written; killed between, the next sync merges
    // what is left again.
    if let Some(changed) = set_aside.iter().find_map(SetAside::changed) {
        return Err(fail!(
            "{} changed while sync read it (a pull, an editor?); nothing was changed: run \
             sync again",
            name(changed)
        ));
    }
    for s in &set_aside {
        if let Some(text) = &s.text {
            write_atomic(&s.own, text)?;
            owned::step("set-aside version merged into its file");
        }
        remove_file(&s.kept)?;
        // Durably gone before the commit (a power cut would otherwise bring it back).
        if let Some(dir) = s.kept.parent() {
            fsync_dir(dir);
        }
        let line = set_aside_line(&name(&s.kept), &name(&s.own), s, true);
        counts.stale_kept.push(line);
    }
    // What this sync deletes from the database is saved beside it first, durably: a deletion
    // the engineer did not mean (a force-push, a `git reset`, a file deleted by hand) is
    // undone by importing that file. So is the database's version of each conflict whose
    // merge replaced it (an edit made here and never synced exists nowhere else; import
    // keeps the later merge). Killed before the commit, the file holds items still in the
    // database (importing it changes nothing).
    let saved = saver.finish()?;
    if saved.is_some() {
        owned::step("deleted items saved");
    }
    // The id file is written before the commit that keys the folder's state by it (killed
    // in between, the next sync finds the id with no state: a first sync again). A refused
    // sync never gets here: it has written nothing.
    if new_id {
        write_atomic(&folder.join(owned::ID_FILE), &format!("{id}\n"))?;
    }
    owned::step("before the commit");
    if let Err(e) = tx.commit() {
        if let Some(path) = &saved {
            let _ = fs::remove_file(path);
        }
        return Err(e.into());
    }
    if let Some(m) = made.as_mut() {
        m.keep();
    }
    if let Some(c) = created.as_mut() {
        c.keep();
    }
    owned::step("committed");
    for (from, to) in &kept {
        if fs::symlink_metadata(to).is_err() {
            fs::rename(from, to).map_err(|e| fail!("cannot restore {}: {e}", shown(to)))?;
            let name = to.strip_prefix(&folder).unwrap_or(to);
            counts.restored.push(name.display().to_string());
        }
    }
    for path in &stale {
        remove_file(path)?;
    }
    let items = entries.len();
    drop(entries);
    let left = complete(&mut store, &folder, &id, &run, &own)
        .and_then(|left| write_history(&mut store, &folder, &history_files).map(|()| left))
        .map_err(|e| {
            fail!(
                "{e}\nthe database is synced; the folder is not finished: run sync again to \
                 finish it"
            )
        })?;
    // The log into the database file now, as a server does after each answer.
    if let Err(e) = store.checkpoint() {
        log::debug!("checkpoint after the sync: {e}");
    }
    log::info!(
        "synced {items} items with {} in {} ms{}",
        shown(&folder),
        started.elapsed().as_millis(),
        peak_memory()
            .map(|kib| format!("; peak resident memory {kib} KiB"))
            .unwrap_or_default()
    );
    counts.changed_meanwhile = left;
    // A version set aside for an item the database no longer holds was put back only for
    // the deletion to take it: nothing restored is left to commit.
    counts.restored.retain(|name| folder.join(name).exists());
    Ok(Outcome {
        new_folder,
        moved_from,
        counts,
        plan: lines,
        saved,
    })
}

/// What a sync does (`done`: did) with a version merge-file set aside, `kept`, that met its
/// item's file `own` ([`SetAside`]): deletes it when the file holds all of it, or merges it
/// into the file first.
fn set_aside_line(kept: &str, own: &str, s: &SetAside, done: bool) -> String {
    let (delete, merge, commit) = match done {
        true => ("deleted", "merged", format!(": commit {own}")),
        false => ("delete", "merge", String::new()),
    };
    match (&s.text, &s.said) {
        (None, _) => {
            format!("{delete} {kept} (a version merge-file set aside, stale: {own} is back)")
        }
        (Some(_), said) => format!(
            "{merge} {kept} into {own}, then {delete} it (a version merge-file set aside, and \
             {own} is back: {}){commit}",
            said.as_deref()
                .unwrap_or("merged as two versions of one item")
        ),
    }
}

/// Why a folder whose id this database last synced at `old`, another directory that still
/// holds it, is refused, and the two ways out.
fn copy_refused(folder: &Path, old: &Path, id: &str) -> super::Error {
    let (new, old, file) = (shown(folder), shown(old), owned::ID_FILE);
    let new_word = crate::text::shell_word(&folder.to_string_lossy());
    fail!(
        "{new} and {old} both hold the folder id {id} ({file}): one is a copy of the other (a \
         second clone or a `git worktree` of the repository, a copied or restored folder), and \
         this database last synced the folder at {old}. Synced in turn with one database, each \
         would delete from it what the other lacks; nothing was changed. To review {new} apart \
         (another branch, another copy), sync it with a database of its own: review-mcp --db \
         OTHER.db sync {new_word} (and serve OTHER.db to the assistant working there). If {new} \
         replaces {old} (an old copy you no longer sync), delete {old}/{file} (or {old} \
         itself), then sync again: {new} goes on as the folder moved"
    )
}

/// Refuses a database inside the folder it would sync (`--db review/review.db sync review`):
/// `git add -A review` would commit it (everyone's private file, its `-wal`, and the items
/// sync saves beside it), and a pull would replace it under the servers that use it.
/// Besides the resolved names, each existing directory holding the database is compared with
/// the folder as the system identifies them (device and inode): a bind mount of the checkout
/// (as a dev container makes) is another name of the folder that no link resolves.
fn refuse_database_inside(db: &Path, dir: &Path) -> Result<()> {
    let (db_at, dir_at) = (resolved(db)?, resolved(dir)?);
    if db_at.starts_with(&dir_at) || same_directory_above(&db_at, &dir_at) {
        return Err(fail!(
            "the database {} is inside the folder {} that sync keeps for git: `git add` would \
             commit it (and what sync saves beside it) for everyone, and a pull would replace \
             it under the servers using it; nothing was changed. Keep the database outside \
             the repository (such as ~/reviews/review.db: move it there with its -wal file \
             while no server runs, and name it with --db), then sync again",
            shown(db),
            shown(dir)
        ));
    }
    Ok(())
}

/// Whether a directory above `path` is the directory `dir` (the same device and inode), where
/// the system tells them; `false` when `dir` does not exist yet.
fn same_directory_above(path: &Path, dir: &Path) -> bool {
    path.ancestors()
        .skip(1)
        .any(|a| owned::same_directory(a, dir))
}

/// Refuses a DIR inside a folder that sync keeps (`sync review/records`, a completion one
/// level too deep): sync would write a README, an id file and a copy of every item into that
/// folder's own subfolder, which the next sync of the right folder then refuses file by
/// file. An ancestor holding `.review-mcp-folder` is a synced folder.
fn refuse_inside_a_synced_folder(dir: &Path) -> Result<()> {
    let at = resolved(dir)?;
    for ancestor in at.ancestors().skip(1) {
        let id = ancestor.join(owned::ID_FILE);
        if fs::symlink_metadata(&id).is_ok_and(|m| m.is_file()) {
            return Err(fail!(
                "{} is inside the folder {}, which sync keeps (it holds {}): sync that folder \
                 itself (review-mcp sync {}); nothing was changed",
                shown(dir),
                shown(ancestor),
                owned::ID_FILE,
                crate::text::shell_word(&ancestor.to_string_lossy())
            ));
        }
    }
    Ok(())
}

/// Refuses a DIR reached through a symbolic link inside a git work tree (`design/review` once
/// a pulled commit replaced `design` by a link to `/elsewhere`, or to `../other-project`): git
/// never writes a file through a link it checked out, so such a DIR is not the repository's
/// folder, and sync would read and write another place (outside the repository, or another
/// project's synced folder). A link on the way to DIR with a directory holding `.git` above it
/// is refused (a link that holds `.git` itself too: it may point at another checkout); the
/// path above every work tree (the checkout reached through a link of the user's) is followed.
fn refuse_a_link_inside_the_work_tree(dir: &Path) -> Result<()> {
    let at = std::path::absolute(dir)?;
    let mut link = None;
    for a in at.ancestors().skip(1) {
        if let Some(link) = link
            && fs::symlink_metadata(a.join(".git")).is_ok()
        {
            return Err(fail!(
                "{}: is a symbolic link, inside the git work tree {}, on the way to the folder \
                 {}: git never writes a file through a link it checked out, so the folder \
                 reached through it is not the repository's (a commit may have replaced a \
                 directory by a link: `git log -- PATH` names who); nothing was changed. \
                 Restore the directory (`git checkout` of a commit before the link), or sync \
                 the folder by its own path",
                shown(link),
                shown(a),
                shown(dir)
            ));
        }
        // A name that is a link (never `..`, nor the root): the one nearest the work tree's
        // top is named.
        if a.file_name().is_some() && fs::symlink_metadata(a).is_ok_and(|m| m.is_symlink()) {
            link = Some(a);
        }
    }
    Ok(())
}

/// Refuses a DIR at or inside a git directory: a bare repository (`team.git`, the one the
/// team pushes to, taken for the place to sync with) or a clone's `.git`. git never commits a
/// file there, so the review would reach no one. A git directory is told as git tells one:
/// `objects/` and `refs/` beside a `HEAD` file that names a branch (`ref: refs/…`) or a
/// commit (hex digits), so a project's own `objects/`, `refs/` and `HEAD` are not taken
/// for one; a work tree nearer DIR than the git directory (a `.git` between them: a worktree
/// added inside a bare clone) is not refused.
fn refuse_a_git_directory(dir: &Path) -> Result<()> {
    use std::io::Read;
    let at = resolved(dir)?;
    let is_dir = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    let head_of_git = |p: &Path| {
        if !fs::symlink_metadata(p).is_ok_and(|m| m.is_file()) {
            return false;
        }
        let mut text = String::new();
        let read = fs::File::open(p).and_then(|f| f.take(128).read_to_string(&mut text));
        let head = text.trim_end();
        read.is_ok()
            && (head.starts_with("ref: refs/")
                || (head.len() >= 40 && head.chars().all(|c| c.is_ascii_hexdigit())))
    };
    // The nearest of a work tree (a directory holding `.git`) and a git directory decides:
    // a work tree inside a git directory (`git worktree add main` in a bare clone) is
    // committed like any clone's.
    let git_dir = at.ancestors().find_map(|a| {
        if is_dir(&a.join("objects")) && is_dir(&a.join("refs")) && head_of_git(&a.join("HEAD")) {
            Some(Some(a))
        } else if fs::symlink_metadata(a.join(".git")).is_ok() {
            Some(None)
        } else {
            None
        }
    });
    let Some(Some(git_dir)) = git_dir else {
        return Ok(());
    };
    Err(fail!(
        "{} is {}the git directory {} (a bare repository, or a clone's .git): git never \
         commits a file there, so the review would reach no one; nothing was changed. Sync a \
         folder in a clone's work tree (`git clone {} CLONE`, then `review-mcp sync \
         CLONE/review`) and let git carry it: commit, push and pull",
        shown(dir),
        if git_dir == at { "" } else { "inside " },
        shown(git_dir),
        crate::text::shell_word(&git_dir.to_string_lossy())
    ))
}

/// Refuses a DIR whose git work tree is in the middle of a rebase (or `git am`), a cherry-pick
/// or revert of several commits (`sequencer`: a single one stopped on a conflict is a merge)
/// or a bisect: its files are then the commits replayed so far, or an older commit under
/// test, not the branch. A sync would take what the commits not yet replayed hold for deleted
/// by a teammate (deleting it from the database and recording it as forgotten in the history
/// the team shares) and write files the replay then stops on (a version merge-file set aside,
/// put in place; the history files of those commits' events). The nearest directory at or above
/// DIR holding `.git` is the work tree; its git directory is `.git` itself or the one a
/// `.git` file names (a linked worktree, a submodule). Nothing is refused when none is found
/// or it cannot be read. A merge in progress is not refused: its work tree holds both sides.
fn refuse_while_git_replays(dir: &Path) -> Result<()> {
    let at = resolved(dir)?;
    let Some(top) = at
        .ancestors()
        .find(|a| fs::symlink_metadata(a.join(".git")).is_ok())
    else {
        return Ok(());
    };
    let Some(git_dir) = git_dir_of(top) else {
        return Ok(());
    };
    let replays = [
        (
            "rebase-merge",
            "a rebase",
            "the commits replayed so far",
            "settle the conflict, `git add` it and `git rebase --continue`, or `git rebase \
             --abort`",
        ),
        (
            "rebase-apply",
            "a rebase (or `git am`)",
            "the commits replayed so far",
            "settle the conflict, `git add` it and `git rebase --continue` (`git am \
             --continue`), or `git rebase --abort` (`git am --abort`)",
        ),
        (
            "sequencer",
            "a cherry-pick or revert of several commits",
            "the commits picked so far",
            "settle the conflict, `git add` it and `git cherry-pick --continue` (`git revert \
             --continue`), or `git cherry-pick --abort` (`git revert --abort`)",
        ),
        (
            "BISECT_LOG",
            "a bisect",
            "an older commit under test",
            "`git bisect reset`",
        ),
    ];
    for (file, what, holds, fix) in replays {
        let marker = git_dir.join(file);
        if fs::symlink_metadata(&marker).is_ok() {
            return Err(fail!(
                "git is in the middle of {what} in the work tree {} ({} is there): the \
                 folder {} holds {holds}, not your branch, and a sync now would take what \
                 your later commits hold for deleted (deleting it from the database and \
                 recording it as forgotten in the team's history); nothing was changed. \
                 Finish it first ({fix}), then sync",
                shown(top),
                shown(&marker),
                shown(dir)
            ));
        }
    }
    Ok(())
}

/// The git directory of the work tree `top`: `top/.git` when it is a directory, else the
/// directory a `.git` file names (`gitdir: PATH`, relative to `top`); `None` when it cannot
/// be read.
fn git_dir_of(top: &Path) -> Option<std::path::PathBuf> {
    use std::io::Read;
    let dot = top.join(".git");
    let meta = fs::symlink_metadata(&dot).ok()?;
    if meta.is_dir() {
        return Some(dot);
    }
    if !meta.is_file() {
        return None;
    }
    let mut text = String::new();
    fs::File::open(&dot)
        .ok()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    let named = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(top.join(named))
}

/// `path` made absolute with its links and `..` resolved component by component, as the
/// system resolves them (a part that does not exist yet is taken as written), so two names
/// of one place compare equal whether or not it exists yet.
fn resolved(path: &Path) -> Result<std::path::PathBuf> {
    use std::path::Component;
    let mut real = std::path::PathBuf::new();
    for c in std::path::absolute(path)?.components() {
        match c {
            Component::ParentDir => {
                real.pop();
            }
            Component::CurDir => {}
            c => {
                real.push(c);
                if let Ok(r) = fs::canonicalize(&real) {
                    real = r;
                }
            }
        }
    }
    Ok(real)
}

/// Writes the history files of the events `ids` (each atomically, in parallel batches, their
/// texts read a batch at a time), records the hash of each text written of an event a full
/// read takes (the next sync takes the file unparsed while it holds that text) and fsyncs
/// their directory.
fn write_history(store: &mut Store, folder: &Path, ids: &[String]) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let dir = folder.join(HISTORY_DIR);
    fs::create_dir_all(&dir).map_err(|e| fail!("cannot create {}: {e}", shown(&dir)))?;
    for part in ids.chunks(WRITE_BATCH) {
        let events = store.events_by_id(part)?;
        // Nothing is taken as present: one file per event, in the events' order (the zip
        // below pairs each text with its event).
        let files = missing_files(folder, &events, &BTreeSet::new());
        write_all(&files)?;
        // Only the text of an event a full read takes (sealed, of the forms import takes) is
        // recorded: a file of an event edited in the database is checked, and refused, when read.
        let hashes: Vec<(&str, Hash)> = events
            .iter()
            .zip(&files)
            .filter(|(e, _)| check_event(e).is_ok())
            .map(|(e, (_, text))| (e.id.as_str(), super::hash(text.as_bytes())))
            .collect();
        store.know_event_files(hashes.iter().map(|(id, h)| (*id, h.as_slice())))?;
    }
    fsync_dir(&dir);
    owned::step("history written");
    Ok(())
}

/// How many times a sync reads the folder before it gives up on a database that keeps
/// changing the items whose files it must read.
const READ_ATTEMPTS: usize = 3;

/// What is known of each item, by kind and id.
pub(super) type Entries = BTreeMap<(ItemKind, String), Entry>;

/// A folder's item files as read before the lock: each one's hash, and the item when it had
/// to be validated (it differed from both its base and the database then).
type FolderView = BTreeMap<(ItemKind, String), (Hash, Option<Box<Item>>)>;

/// The entries of a locked pass: the database and its bases read now, and the folder as read
/// before the lock. `None` when a file that must be validated now (it differs from both its
/// base and the database) was not validated before the lock: a server changed that item
/// meanwhile, and the folder is read again.
fn combine(tx: &SyncTx<'_>, view: FolderView) -> Result<Option<Entries>> {
    let mut entries = read_database(tx)?;
    for (key, (h, item)) in view {
        let e = entries.entry(key).or_default();
        if !e.knows(&h) && item.is_none() {
            return Ok(None);
        }
        e.file = Some((h, item));
    }
    Ok(Some(entries))
}

/// `entries` (the database and folder as read before the lock) brought up to the database
/// under the lock, reading only what the change journal says was written since its counter
/// stood at `since`: an item gone is no longer the database's, and every item at a place
/// written since is read and hashed again; the bases are read again (hashes only). `None`
/// when a folder file taken unread (it was the base's or the database's version) now needs
/// reading, as in [`combine`].
fn refresh(tx: &SyncTx<'_>, mut entries: Entries, since: i64) -> Result<Option<Entries>> {
    let (records, decisions) = tx.item_ids()?;
    for ((kind, id), e) in entries.iter_mut() {
        let held = match kind {
            ItemKind::Record => records.contains(id),
            ItemKind::Decision => decisions.contains(id),
        };
        if !held {
            e.db = None;
        }
        e.base = None;
    }
    drop((records, decisions));
    let places = tx.changed_places(since)?;
    log::debug!("sync: {} places written since the read", places.len());
    let mut batch: Vec<Item> = Vec::with_capacity(HASH_BATCH);
    for (revision, locator) in &places {
        tx.each_record_at(revision, locator, |r| {
            batched(&mut entries, &mut batch, Item::Record(r))
        })?;
        tx.each_decision_at(revision, locator, |d| {
            batched(&mut entries, &mut batch, Item::Decision(d))
        })?;
    }
    hash_into(&mut entries, &mut batch)?;
    add_bases(tx, &mut entries)?;
    // What neither side holds any more (an item read before the lock, forgotten since, with
    // no file and no base) is no entry, as in a whole read.
    entries.retain(|_, e| e.db.is_some() || e.file.is_some() || e.base.is_some());
    for e in entries.values() {
        if let Some((h, None)) = &e.file
            && !e.knows(h)
        {
            return Ok(None);
        }
    }
    Ok(Some(entries))
}

/// The process's peak resident memory (`VmHWM`), where `/proc` tells it: the figure the
/// sync benchmark reads from this log line.
pub(super) fn peak_memory() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

/// Reads the database, the folder (on threads of its own, meanwhile: the two are independent
/// until their hashes meet) and the bases, and validates the changed files; `problems` are
/// the folder's other bad files (its history's), named with the items' in one refusal, and
/// `spent` the bytes its history files took of what one sync reads. With the versions set
/// aside that were read merged with their items' files.
pub(super) fn gather(
    tx: &SyncTx<'_>,
    folder: &Path,
    schemas: &Schemas,
    problems: Vec<String>,
    spent: u64,
) -> Result<(Entries, Vec<SetAside>)> {
    let (entries, scanned) = std::thread::scope(|scope| {
        let scans: Vec<_> = ItemKind::ALL
            .map(|kind| scope.spawn(move || scan(folder, kind)))
            .into_iter()
            .collect();
        let entries = read_database(tx);
        let scanned: Vec<_> = scans
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(fail!("a folder scan failed")))
            })
            .collect();
        (entries, scanned)
    });
    let mut entries = entries?;
    let set_aside = read_folder(folder, schemas, scanned, problems, spent, &mut entries)?;
    refuse_case_twins(&entries)?;
    Ok((entries, set_aside))
}

/// Refuses two items of a kind whose ids differ only in letter case: on the case-insensitive
/// file systems of macOS and Windows they are one file, so one would overwrite the other.
/// The way out names the side that holds the one to drop: a twin only in the folder came with
/// a commit and goes with its file; one in the database is forgotten there.
fn refuse_case_twins(entries: &Entries) -> Result<()> {
    let mut seen: HashMap<(ItemKind, String), (&str, &Entry)> = HashMap::new();
    for ((kind, id), e) in entries {
        if e.db.is_none() && e.file.is_none() {
            continue;
        }
        if let Some((twin, t)) = seen.insert((*kind, id.to_ascii_lowercase()), (id, e)) {
            let held = |e: &Entry| match (e.db.is_some(), e.file.is_some()) {
                (true, true) => "in the database and the folder",
                (true, false) => "in the database",
                _ => "in the folder only",
            };
            let folder_only: Vec<String> = [(twin, t), (id.as_str(), e)]
                .iter()
                .filter(|(_, e)| e.db.is_none())
                .map(|(id, _)| format!("{}/{id}.json", kind.dir()))
                .collect();
            let way_out = if folder_only.is_empty() {
                "Forget one and save it again (the server gives it a new id), or import it \
                 under another id"
                    .to_string()
            } else {
                format!(
                    "Remove the folder's {} if it is not wanted (`git rm`, then commit; \
                     `git log -- FILE` names who added it), or give the item another id in \
                     its file",
                    folder_only.join(" and ")
                )
            };
            return Err(fail!(
                "{} {twin} ({}) and {id} ({}): their ids differ only in letter case, so on \
                 macOS and Windows they are one file; nothing was changed. {way_out}",
                kind.as_str(),
                held(t),
                held(e),
            ));
        }
    }
    Ok(())
}

/// Whether the database's version stands as its base says and the folder's file does not:
/// sync would take the folder's change (or deletion) for the team's, which holds only if the
/// folder ever held the base.
fn base_stands_alone(e: &Entry) -> bool {
    e.base.is_some() && e.db == e.base && e.file_hash() != e.base
}

/// The bases of the items [`base_stands_alone`] holds for whose text the folder's git
/// repository holds no blob of, as written nor with CRLF line endings (asked only of the
/// texts it lacks as written). Each text is read, hashed and dropped: only ids are kept.
fn unheld_bases(
    tx: &SyncTx<'_>,
    entries: &Entries,
    objects: &super::git::Objects,
) -> Result<BTreeSet<Hash>> {
    let ids = |crlf: bool, only: Option<&BTreeSet<Hash>>| -> Result<Vec<(Hash, String)>> {
        let mut ids: BTreeMap<Hash, String> = BTreeMap::new();
        for ((kind, id), e) in entries {
            let Some(h) = e.base.filter(|h| {
                base_stands_alone(e) && !ids.contains_key(h) && only.is_none_or(|o| o.contains(h))
            }) else {
                continue;
            };
            if let Some(body) = tx.base_body(kind.as_str(), id)? {
                ids.insert(h, objects.id(&body, crlf));
            }
        }
        Ok(ids.into_iter().collect())
    };
    let lacking: BTreeSet<Hash> = objects.unheld(&ids(false, None)?).into_iter().collect();
    if lacking.is_empty() {
        return Ok(lacking);
    }
    Ok(objects
        .unheld(&ids(true, Some(&lacking))?)
        .into_iter()
        .collect())
}

/// A base the folder's git history never held (`git::Objects`: a database restored from a
/// backup taken after a sync into a commit never pushed, the clone since replaced by a fresh
/// one) is no base: the database's version, which the base calls unchanged, is new to the
/// folder, so it meets the folder's version as a change of its own (both changed: merged) and
/// is written back where the folder lacks the file, never replaced by an older version or
/// deleted for a deletion the folder never made.
fn forget_unheld_bases(entries: &mut Entries, unheld: &BTreeSet<Hash>) {
    for ((kind, id), e) in entries.iter_mut() {
        if base_stands_alone(e) && e.base.is_some_and(|h| unheld.contains(&h)) {
            log::debug!(
                "sync: {} {id}: the folder's repository holds no object of its base: taken as \
                 new to the folder",
                kind.as_str()
            );
            e.base = None;
        }
    }
}

pub(super) fn action_of(e: &Entry) -> Action {
    classify(
        e.db.as_ref(),
        e.file.as_ref().map(|(h, _)| h),
        e.base.as_ref(),
    )
}

/// Every item of the database, in its file form hashed, and the folder's bases. The items are
/// read a batch at a time and only their hashes kept.
pub(super) fn read_database(tx: &SyncTx<'_>) -> Result<Entries> {
    let mut entries: Entries = BTreeMap::new();
    let mut batch: Vec<Item> = Vec::with_capacity(HASH_BATCH);
    tx.each_record(|r| batched(&mut entries, &mut batch, Item::Record(r)))?;
    tx.each_decision(|d| batched(&mut entries, &mut batch, Item::Decision(d)))?;
    hash_into(&mut entries, &mut batch)?;
    add_bases(tx, &mut entries)?;
    Ok(entries)
}

/// How many items of the database are held at once while they are hashed.
const HASH_BATCH: usize = 1024;

/// Adds `item` to `batch`, hashing the batch into `entries` once it holds [`HASH_BATCH`].
fn batched(entries: &mut Entries, batch: &mut Vec<Item>, item: Item) -> Result<()> {
    batch.push(item);
    if batch.len() == HASH_BATCH {
        hash_into(entries, batch)?;
    }
    Ok(())
}

/// Sets each entry's base: the hash of the version this folder and database last agreed on.
fn add_bases(tx: &SyncTx<'_>, entries: &mut Entries) -> Result<()> {
    for b in tx.bases()? {
        let (Some(kind), Ok(h)) = (ItemKind::parse(&b.kind), Hash::try_from(b.hash.as_slice()))
        else {
            continue;
        };
        entries.entry((kind, b.id)).or_default().base = Some(h);
    }
    Ok(())
}

/// Hashes the items of `batch` (emptied) and keeps each one's hash in `entries`.
fn hash_into(entries: &mut Entries, batch: &mut Vec<Item>) -> Result<()> {
    #[cfg(test)]
    tests::HASHED.with(|n| n.set(n.get() + batch.len()));
    // Putting every item in its file form and hashing it is most of a sync's work when
    // little changed: spread over a few threads.
    let hashes: Vec<Hash> = on_threads(batch, HASH_THREADS, |part| {
        part.iter().map(Item::hash).collect::<Vec<_>>()
    })
    .into_iter()
    .flat_map(Option::unwrap_or_default)
    .collect();
    if hashes.len() != batch.len() {
        return Err(fail!("hashing the database's items failed"));
    }
    for (item, h) in batch.drain(..).zip(hashes) {
        if !is_file_id(item.id()) {
            return Err(fail!(
                "{} {}: the id cannot be a file name on every system (only ASCII letters, \
                 digits and _ - ., not starting with '.', no Windows device name such as CON, \
                 NUL or COM1 before its first '.'); nothing was changed. An id the server makes \
                 (rec_3f9a0c1b2d4e5f60) always is one: forget the item and save it again, or \
                 import it under another id",
                item.kind().as_str(),
                crate::text::escape_controls(item.id())
            ));
        }
        let key = (item.kind(), item.id().to_string());
        entries.entry(key).or_default().db = Some(h);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::fixtures::{T1, feature, note_at};
    use std::cell::{Cell, RefCell};

    thread_local! {
        /// Run between the sync's read of the database and folder and its write lock: a
        /// server's write landing there, deterministically.
        pub(super) static BEFORE_LOCK: RefCell<Option<Box<dyn FnMut()>>> = const { RefCell::new(None) };
        /// How many database items were hashed (read in their file form) so far.
        pub(super) static HASHED: Cell<usize> = const { Cell::new(0) };
    }

    /// Regression (concurrency audit: servers' writes answered "locked" after the 5 s busy
    /// timeout while a sync ran beside them): a sync that found the database changed since
    /// its read (a server wrote meanwhile, as on every busy file) read and hashed every item
    /// of the database again under the write lock, 8.6 s for 19,654 items on a loaded
    /// machine. Now only the items at the places the change journal says were written since
    /// are read again, and the sync still takes the server's write and deletion.
    #[test]
    fn a_write_during_the_read_is_read_again_alone_under_the_lock() {
        let dir = std::env::temp_dir().join(format!("review-mcp-sync-lock-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let (db, folder) = (dir.join("r.db"), dir.join("review"));
        fs::create_dir_all(&dir).unwrap();
        let rev = |c: char| format!("sha256:{}", c.to_string().repeat(64));
        let uri = || Some("file:///w/p.step".to_string());
        let mut store = Store::open(&db).unwrap();
        for _ in 0..300 {
            store.remember(&note_at(&rev('a'), uri())).unwrap();
        }
        let mut bore = note_at(&rev('b'), uri());
        bore.name = Some("bore".into());
        store.remember(&bore).unwrap();
        drop(store);
        run(&db, &folder, false, &mut |_| {}).unwrap();
        let server = db.clone();
        BEFORE_LOCK.with(|hook| {
            *hook.borrow_mut() = Some(Box::new(move || {
                let mut other = Store::open(&server).unwrap();
                other.remember(&note_at(&rev('c'), uri())).unwrap();
                let gone = other
                    .forget_feature("file:///w/p.step", "bore", &rev('b'))
                    .unwrap();
                assert_eq!(gone, 1);
                HASHED.with(|n| n.set(0));
            }));
        });
        let synced = run(&db, &folder, false, &mut |_| {}).unwrap();
        BEFORE_LOCK.with(|hook| *hook.borrow_mut() = None);
        let under_lock = HASHED.with(Cell::get);
        assert!(
            under_lock <= 2,
            "{under_lock} items read again under the lock"
        );
        // What the server wrote while the sync read is synced all the same.
        assert_eq!(synced.counts.written, [1, 0], "{:?}", synced.plan);
        assert_eq!(synced.counts.deleted_files, [1, 0], "{:?}", synced.plan);
        let again = run(&db, &folder, false, &mut |_| {}).unwrap();
        assert!(again.plan.is_empty(), "{:?}", again.plan);
        let files = fs::read_dir(folder.join("records")).unwrap().count();
        assert_eq!(files, 301);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// The read under the lock finds what changed by the change journal, which the triggers
    /// on `records` and `decisions` keep: a verdict, written to `basis_items`, must move its
    /// decision's row too, or a sync beside the engineer answering would write the decision
    /// without it (and the next sync, finding nothing changed, never would). A guard of that
    /// rule for the verdict channels' one write.
    #[test]
    fn a_verdict_given_during_the_read_is_synced() {
        use crate::review::{Artifact, BasisItem, Judgement, Verdict, Via};
        use crate::store::{DecisionRef, NewDecision, Shown, VerdictsOutcome};
        let dir =
            std::env::temp_dir().join(format!("review-mcp-sync-verdict-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let (db, folder) = (dir.join("r.db"), dir.join("review"));
        fs::create_dir_all(&dir).unwrap();
        let rev = |c: char| format!("sha256:{}", c.to_string().repeat(64));
        let mut store = Store::open(&db).unwrap();
        for _ in 0..50 {
            store
                .remember(&note_at(&rev('a'), Some("file:///w/p.step".into())))
                .unwrap();
        }
        let (d, _, _) = store
            .remember_decision(&NewDecision {
                artifact: Artifact {
                    revision: rev('b'),
                    format: "step".into(),
                    uri: Some("file:///w/p.step".into()),
                    units: None,
                },
                subject: "bore".into(),
                disposition: "hold".into(),
                summary: None,
                basis: vec![BasisItem::stated("Bore 12H7")],
            })
            .unwrap();
        drop(store);
        run(&db, &folder, false, &mut |_| {}).unwrap();
        let (server, id, digest) = (db.clone(), d.id.clone(), d.basis_digest());
        BEFORE_LOCK.with(|hook| {
            *hook.borrow_mut() = Some(Box::new(move || {
                let mut other = Store::open(&server).unwrap();
                let given = Verdict {
                    at: crate::time::now(),
                    ..Verdict::given(Judgement::Accepted, Via::Elicitation)
                };
                let got = other
                    .record_verdicts(&DecisionRef::Id(&id), Shown::Basis(&digest), &[(0, given)])
                    .unwrap();
                assert!(matches!(got, VerdictsOutcome::Recorded(_)), "{got:?}");
                HASHED.with(|n| n.set(0));
            }));
        });
        run(&db, &folder, false, &mut |_| {}).unwrap();
        BEFORE_LOCK.with(|hook| *hook.borrow_mut() = None);
        assert!(
            HASHED.with(Cell::get) <= 1,
            "more than the decision read again"
        );
        let file = fs::read_to_string(folder.join(format!("decisions/{}.json", d.id))).unwrap();
        assert!(file.contains("\"judgement\": \"accepted\""), "{file}");
        let again = run(&db, &folder, false, &mut |_| {}).unwrap();
        assert!(again.plan.is_empty(), "{:?}", again.plan);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Regression (issue: sync grew with the data, 0.65 to 0.85 GB for a 200 MB export):
    /// every item of the database was held whole while the sync ran (its entry embedded the
    /// item, 680 bytes before its strings and basis). An entry now holds the three hashes and,
    /// only for a folder file that had to be validated, that item boxed; the database's
    /// version is read again when the sync acts on it.
    #[test]
    fn an_entry_holds_hashes_not_the_items() {
        let size = std::mem::size_of::<Entry>();
        assert!(size <= 128, "an entry is {size} bytes");
    }

    /// A dry run plans what the sync then does, line for line and count for count: an item
    /// file imported, then, once deleted from the folder, the item deleted from the database.
    #[test]
    fn dry_run_plans_what_the_sync_does() {
        let dir = std::env::temp_dir().join(format!("review-mcp-sync-unit-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let (db, folder) = (dir.join("r.db"), dir.join("review"));
        fs::create_dir_all(folder.join("records")).unwrap();
        let file = folder.join("records/rec_a.json");
        fs::write(&file, Item::Record(feature("rec_a", "bore", T1)).text()).unwrap();
        let mut plans = Vec::new();
        for _ in 0..2 {
            let dry = run(&db, &folder, true, &mut |_| {}).unwrap();
            let real = run(&db, &folder, false, &mut |_| {}).unwrap();
            assert_eq!(dry.plan, real.plan);
            assert_eq!(format!("{:?}", dry.counts), format!("{:?}", real.counts));
            plans.push(real.plan);
            let _ = fs::remove_file(&file);
        }
        assert_eq!(
            plans,
            [
                vec![
                    "write .review-mcp-folder (the folder's id)".to_string(),
                    "import records/rec_a.json".into(),
                    "write README.md".into(),
                    "write .gitattributes (git's merge driver for this folder)".into()
                ],
                vec!["delete record rec_a from the database".into()]
            ]
        );
        let again = run(&db, &folder, true, &mut |_| {}).unwrap();
        assert!(again.plan.is_empty(), "{:?}", again.plan);
        fs::remove_dir_all(&dir).unwrap();
    }
}
