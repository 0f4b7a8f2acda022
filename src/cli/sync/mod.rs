//! `review-mcp sync DIR [--dry-run]`: the folder DIR inside the team's repository and the
//! local database kept in step, both ways, by the three-way rule of `review_mcp::sync`.
//!
//! One run, in order:
//! 0. on the first sync of a folder by this database, when the folder lacks the files of many
//!    items, the folder is validated and those files are written first, under a read
//!    snapshot, so that thousands of file flushes do not hold the write lock (servers' writes
//!    would wait that long);
//! 1. the database's write transaction is taken (`store::SyncTx`): everything below reads
//!    and writes one snapshot, and servers on the same file keep reading (their writes wait
//!    on the lock, at most `BUSY_TIMEOUT`);
//! 2. every item of the database is put in its file form and hashed, every file of the folder
//!    is read and hashed (on threads of its own, meanwhile), and the folder's bases are read;
//! 3. every file that differs from both its base and the database is validated as `import`
//!    validates a line (shape, then the domain rules, and its name must be its id); one bad
//!    file refuses the sync, naming it, and nothing is changed;
//! 4. each item is classified (`sync::classify`) and acted on: deletions first (so an item a
//!    teammate renamed away never collides with its own ghost), then writes, imports and
//!    merges (`sync::merge`); files are written to a temporary name, fsynced and renamed, in
//!    parallel batches;
//! 5. the bases are updated and the transaction commits; the folder's directories are
//!    fsynced.
//!
//! A failure before the commit rolls the database back. Files already renamed into place
//! then hold the database's own versions (or merges of them), which the next sync finds in
//! step or merges again to the same result, so a crash costs only a second run.
//!
//! Here: the run and its summary; `folder.rs`: scanning, reading and atomically writing the
//! folder's files; `apply.rs`: the plan and acting on it inside the transaction.
//!
//! An item whose natural key (a feature's locator and name, a decision's locator, subject and
//! revision) is held in the database under another id (two engineers created it apart) is
//! settled as a conflict: the later version keeps the key with its own id, a decision taking
//! the other's engineer verdicts, and the other id is deleted on both sides.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};

use review_mcp::store::{Store, SyncTx};
use review_mcp::sync::{Action, Hash, Item, ItemKind, README, classify};

use super::import_rules::Schemas;

mod apply;
mod folder;

use apply::*;
pub(super) use folder::parse_item;
use folder::*;

/// What is known of one item before the sync acts.
#[derive(Default)]
pub(super) struct Entry {
    /// The database's version and the hash of its file text.
    db: Option<(Hash, Item)>,
    /// The folder's file: its hash, and the item when it had to be validated (it differs from
    /// both the base and the database).
    file: Option<(Hash, Option<Item>)>,
    base: Option<Hash>,
}

/// How many items each action touched, by kind.
#[derive(Default)]
pub(super) struct Counts {
    written: [usize; 2],
    imported: [usize; 2],
    deleted_files: [usize; 2],
    deleted_items: [usize; 2],
    conflicts: Vec<String>,
}

pub(super) fn slot(kind: ItemKind) -> usize {
    match kind {
        ItemKind::Record => 0,
        ItemKind::Decision => 1,
    }
}

/// `review-mcp sync DIR [--dry-run]`.
pub fn run(db: &Path, dir: &Path, dry_run: bool) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    let schemas = Schemas::from_tools().map_err(|e| anyhow!("{e}"))?;
    if !dry_run {
        for kind in ItemKind::ALL {
            fs::create_dir_all(dir.join(kind.dir()))
                .with_context(|| format!("cannot create {}", dir.join(kind.dir()).display()))?;
        }
    }
    let folder = match fs::canonicalize(dir) {
        Ok(p) => p,
        Err(_) if dry_run => std::path::absolute(dir)?,
        Err(e) => return Err(anyhow!("cannot read {}: {e}", dir.display())),
    };
    let key = folder
        .to_str()
        .ok_or_else(|| anyhow!("{}: the folder's path is not UTF-8", folder.display()))?
        .to_string();
    // A dry run only reads: the file is opened read-only (an older schema is upgraded in a
    // private copy, never in place), and a database that does not exist yet is planned
    // against as an empty one, creating nothing.
    let mut store = match (dry_run, db.exists()) {
        (true, true) => Store::open_read_only(db),
        (true, false) => Store::open_in_memory(),
        (false, _) => Store::open(db),
    }
    .map_err(|e| anyhow!("{e}"))?;
    // The first sync of a folder by this database may have thousands of files to write:
    // they are written first, under a read snapshot, so the write lock is not held while
    // each is flushed to disk. The locked pass below then finds them in step and only
    // records their bases; an item a server changed meanwhile meets its own earlier file
    // there and is merged by the rule.
    let mut written_early: HashSet<(ItemKind, String)> = HashSet::new();
    if !dry_run {
        let snapshot = store.sync_snapshot(&key).map_err(|e| anyhow!("{e}"))?;
        if !snapshot.has_bases().map_err(|e| anyhow!("{e}"))? {
            // With no bases, an item is written to the folder when the folder lacks its file.
            let lacking = |entries: &BTreeMap<(ItemKind, String), Entry>| -> usize {
                entries
                    .keys()
                    .filter(|(kind, id)| !file_of(&folder, *kind, id).exists())
                    .count()
            };
            let many = lacking(&read_database(&snapshot)?) >= WRITE_BATCH;
            // Only worth it for many files; and nothing is written before the folder is known
            // to validate (a refused sync changes nothing). The first look is dropped before
            // `gather` reads the database again, so only one copy is held.
            let entries = match many {
                true => gather(&snapshot, &folder, &schemas)?,
                false => BTreeMap::new(),
            };
            let early: Vec<(PathBuf, &Item)> = entries
                .iter()
                .filter(|(_, e)| action_of(e) == Action::ToFolder)
                .filter_map(|((kind, id), e)| {
                    e.db.as_ref()
                        .map(|(_, item)| (file_of(&folder, *kind, id), item))
                })
                .collect();
            drop(snapshot);
            log::debug!("sync: {} files written before the lock", early.len());
            written_early.extend(
                early
                    .iter()
                    .map(|(_, item)| (item.kind(), item.id().to_string())),
            );
            for part in early.chunks(WRITE_BATCH) {
                let batch: Vec<(PathBuf, String)> = part
                    .iter()
                    .map(|(path, item)| (path.clone(), item.text()))
                    .collect();
                write_all(&batch)?;
            }
        }
    }
    let tx = if dry_run {
        store.sync_snapshot(&key)
    } else {
        store.sync_transaction(&key)
    }
    .map_err(|e| anyhow!("{e}"))?;
    let entries = gather(&tx, &folder, &schemas)?;
    log::debug!("sync: read at {} ms", started.elapsed().as_millis());

    let mut counts = Counts::default();
    let mut out = io::stdout().lock();
    if dry_run {
        plan(&tx, &entries, &mut counts, &mut out)?;
        drop(tx);
        summary(&counts, true, &mut out);
        return Ok(ExitCode::SUCCESS);
    }
    let mut sync = Apply {
        tx: &tx,
        folder: &folder,
        counts: &mut counts,
        settled: HashSet::new(),
        written_early,
        dirs_touched: false,
        pending: HashMap::new(),
    };
    // Deletions first, then everything else.
    for pass in [true, false] {
        for ((kind, id), e) in &entries {
            let action = action_of(e);
            let deletion = matches!(action, Action::DeleteFile | Action::DeleteItem);
            if deletion == pass && !sync.settled.contains(&(*kind, id.clone())) {
                sync.act(*kind, id, e, action)?;
            }
        }
    }
    let readme = folder.join("README.md");
    if fs::read(&readme).ok().as_deref() != Some(README.as_bytes()) {
        write_atomic(&readme, README)?;
    }
    sync.flush()?;
    let touched = sync.dirs_touched;
    tx.commit().map_err(|e| anyhow!("{e}"))?;
    // The log into the database file now, as a server does after each answer.
    if let Err(e) = store.checkpoint() {
        log::debug!("checkpoint after the sync: {e}");
    }
    if touched {
        for d in ItemKind::ALL
            .map(|k| folder.join(k.dir()))
            .iter()
            .chain([&folder])
        {
            if let Err(e) = fs::File::open(d).and_then(|f| f.sync_all()) {
                log::debug!("fsync of {}: {e}", d.display());
            }
        }
    }
    for c in &counts.conflicts {
        let _ = writeln!(out, "conflict: {c}");
    }
    summary(&counts, false, &mut out);
    log::info!(
        "synced {} items with {} in {} ms{}",
        entries.len(),
        folder.display(),
        started.elapsed().as_millis(),
        peak_memory()
            .map(|kib| format!("; peak resident memory {kib} KiB"))
            .unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}

/// The process's peak resident memory (`VmHWM`), where `/proc` tells it: the figure the
/// sync benchmark reads from this log line.
pub(super) fn peak_memory() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

/// Reads the database, the folder (on threads of its own, meanwhile: the two are independent
/// until their hashes meet) and the bases, and validates the changed files.
pub(super) fn gather(
    tx: &SyncTx<'_>,
    folder: &Path,
    schemas: &Schemas,
) -> anyhow::Result<BTreeMap<(ItemKind, String), Entry>> {
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
                    .unwrap_or_else(|_| Err(anyhow!("a folder scan failed")))
            })
            .collect();
        (entries, scanned)
    });
    let mut entries = entries?;
    for b in tx.bases().map_err(|e| anyhow!("{e}"))? {
        let (Some(kind), Ok(h)) = (ItemKind::parse(&b.kind), Hash::try_from(b.hash.as_slice()))
        else {
            continue;
        };
        entries.entry((kind, b.id)).or_default().base = Some(h);
    }
    read_folder(folder, schemas, scanned, &mut entries)?;
    Ok(entries)
}

pub(super) fn action_of(e: &Entry) -> Action {
    classify(
        e.db.as_ref().map(|(h, _)| h),
        e.file.as_ref().map(|(h, _)| h),
        e.base.as_ref(),
    )
}

pub(super) fn read_database(
    tx: &SyncTx<'_>,
) -> anyhow::Result<BTreeMap<(ItemKind, String), Entry>> {
    let mut entries: BTreeMap<(ItemKind, String), Entry> = BTreeMap::new();
    let records = tx.records().map_err(|e| anyhow!("{e}"))?;
    let decisions = tx.decisions().map_err(|e| anyhow!("{e}"))?;
    let items: Vec<Item> = records
        .into_iter()
        .map(Item::Record)
        .chain(decisions.into_iter().map(Item::Decision))
        .collect();
    // Putting every item in its file form and hashing it is most of a sync's work when
    // little changed: spread over a few threads.
    let chunk = items.len().div_ceil(HASH_THREADS).max(1);
    let hashes: Vec<Hash> = std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(Item::hash).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    if hashes.len() != items.len() {
        return Err(anyhow!("hashing the database's items failed"));
    }
    for (item, h) in items.into_iter().zip(hashes) {
        if !is_file_id(item.id()) {
            return Err(anyhow!(
                "{} {}: the id cannot be a file name (only ASCII letters, digits and _ - . :, \
                 not starting with '.'); nothing was changed",
                item.kind().as_str(),
                item.id()
            ));
        }
        let key = (item.kind(), item.id().to_string());
        entries.entry(key).or_default().db = Some((h, item));
    }
    Ok(entries)
}

/// The one-line summary per kind of change.
pub(super) fn summary(c: &Counts, dry_run: bool, out: &mut dyn Write) {
    let would = if dry_run { "would be " } else { "" };
    let line = |what: &str, n: [usize; 2]| {
        format!(
            "{what}: {} ({} records, {} decisions)",
            n[0] + n[1],
            n[0],
            n[1]
        )
    };
    let deleted = [
        c.deleted_files[0] + c.deleted_items[0],
        c.deleted_files[1] + c.deleted_items[1],
    ];
    let _ = writeln!(
        out,
        "{}",
        line(&format!("{would}written to the folder"), c.written)
    );
    let _ = writeln!(
        out,
        "{}",
        line(&format!("{would}imported into the database"), c.imported)
    );
    let _ = writeln!(
        out,
        "{}: {} from the folder, {} from the database",
        line(&format!("{would}deleted"), deleted),
        c.deleted_files[0] + c.deleted_files[1],
        c.deleted_items[0] + c.deleted_items[1]
    );
    let _ = writeln!(out, "conflicts: {}", c.conflicts.len());
    if dry_run {
        let _ = writeln!(out, "dry run: nothing was changed");
    }
}
