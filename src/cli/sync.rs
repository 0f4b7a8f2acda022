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
use review_mcp::sync::merge::{self, Side};
use review_mcp::sync::{Action, Hash, Item, ItemKind, README, classify, hash};

use super::import::{Line, parse_line};
use super::import_rules::Schemas;

/// What is known of one item before the sync acts.
#[derive(Default)]
struct Entry {
    /// The database's version and the hash of its file text.
    db: Option<(Hash, Item)>,
    /// The folder's file: its hash, and the item when it had to be validated (it differs from
    /// both the base and the database).
    file: Option<(Hash, Option<Item>)>,
    base: Option<Hash>,
}

/// How many items each action touched, by kind.
#[derive(Default)]
struct Counts {
    written: [usize; 2],
    imported: [usize; 2],
    deleted_files: [usize; 2],
    deleted_items: [usize; 2],
    conflicts: Vec<String>,
}

fn slot(kind: ItemKind) -> usize {
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
fn peak_memory() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    line.trim().trim_end_matches("kB").trim().parse().ok()
}

/// Reads the database, the folder (on threads of its own, meanwhile: the two are independent
/// until their hashes meet) and the bases, and validates the changed files.
fn gather(
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

fn action_of(e: &Entry) -> Action {
    classify(
        e.db.as_ref().map(|(h, _)| h),
        e.file.as_ref().map(|(h, _)| h),
        e.base.as_ref(),
    )
}

fn read_database(tx: &SyncTx<'_>) -> anyhow::Result<BTreeMap<(ItemKind, String), Entry>> {
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

/// Ids as `import` allows them, which are also safe file names.
fn is_file_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

/// At most this many bad files are named; the rest are counted.
const MAX_REPORTED: usize = 20;

/// How many threads hash the database's items.
const HASH_THREADS: usize = 4;

/// One subfolder read: each item file's id and hash, and the names that are no item file.
struct Scan {
    kind: ItemKind,
    files: Vec<(String, Hash)>,
    problems: Vec<String>,
}

/// Reads and hashes every file of one kind's subfolder. Hidden files (a temporary file of an
/// interrupted sync, `.gitkeep`) are skipped.
fn scan(folder: &Path, kind: ItemKind) -> anyhow::Result<Scan> {
    let mut out = Scan {
        kind,
        files: Vec::new(),
        problems: Vec::new(),
    };
    let dir = folder.join(kind.dir());
    let listing = match fs::read_dir(&dir) {
        Ok(l) => l,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(anyhow!("cannot read {}: {e}", dir.display())),
    };
    for entry in listing {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            out.problems
                .push(format!("{}: not an item file (<id>.json)", path.display()));
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let Some(id) = name.strip_suffix(".json").filter(|id| is_file_id(id)) else {
            out.problems.push(format!(
                "{}: not an item file ({}/<id>.json)",
                path.display(),
                kind.dir()
            ));
            continue;
        };
        let bytes = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        out.files.push((id.to_string(), hash(&bytes)));
    }
    Ok(out)
}

/// Adds the scanned files to `entries`, validating each file that differs from both its base
/// and the database (read again: only the changed few are kept in memory).
fn read_folder(
    folder: &Path,
    schemas: &Schemas,
    scanned: Vec<anyhow::Result<Scan>>,
    entries: &mut BTreeMap<(ItemKind, String), Entry>,
) -> anyhow::Result<()> {
    let mut problems = Vec::new();
    for scan in scanned {
        let scan = scan?;
        problems.extend(scan.problems);
        let kind = scan.kind;
        for (id, h) in scan.files {
            let path = file_of(folder, kind, &id);
            let e = entries.entry((kind, id)).or_default();
            let known = e.base == Some(h) || e.db.as_ref().is_some_and(|(d, _)| *d == h);
            let item = if known {
                None
            } else {
                let bytes =
                    fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
                let id = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_string();
                // The file may have changed since it was hashed: the hash follows the bytes
                // that are validated and imported.
                let h = hash(&bytes);
                match parse_file(&bytes, schemas, kind, &id) {
                    Ok(item) => {
                        e.file = Some((h, Some(item)));
                        continue;
                    }
                    Err(why) => {
                        problems.push(format!("{}: {why}", path.display()));
                        continue;
                    }
                }
            };
            e.file = Some((h, item));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let n = problems.len();
    problems.truncate(MAX_REPORTED);
    if n > MAX_REPORTED {
        problems.push(format!("… and {} more bad files", n - MAX_REPORTED));
    }
    Err(anyhow!(
        "the folder was refused and nothing was changed:\n  {}",
        problems.join("\n  ")
    ))
}

/// One item file, validated as an import line is, whose kind and id must match its place.
pub(super) fn parse_file(
    bytes: &[u8],
    schemas: &Schemas,
    kind: ItemKind,
    id: &str,
) -> Result<Item, String> {
    let item = parse_item(bytes, schemas)?;
    if item.kind() != kind || item.id() != id {
        return Err(format!(
            "holds {} {}, but its place names {} {id}",
            item.kind().as_str(),
            item.id(),
            kind.as_str()
        ));
    }
    Ok(item)
}

/// An item file's text, validated as an import line is.
pub(super) fn parse_item(bytes: &[u8], schemas: &Schemas) -> Result<Item, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "is not UTF-8".to_string())?;
    Ok(match parse_line(text, schemas)? {
        Line::Record(r) => Item::Record(r),
        Line::Decision(d) => Item::Decision(d),
    })
}

fn file_of(folder: &Path, kind: ItemKind, id: &str) -> PathBuf {
    folder.join(kind.dir()).join(format!("{id}.json"))
}

/// Writes `text` to `path` through a temporary file beside it, fsynced, renamed into place.
fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| anyhow!("{}: no file name", path.display()))?;
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let written = (|| -> io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        anyhow!("cannot write {}: {e}", path.display())
    })
}

/// Writes files, each atomically, on [`WRITE_THREADS`] threads.
fn write_all(batch: &[(PathBuf, String)]) -> anyhow::Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let chunk = batch.len().div_ceil(WRITE_THREADS).max(1);
    std::thread::scope(|scope| {
        let writers: Vec<_> = batch
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .try_for_each(|(path, text)| write_atomic(path, text))
                })
            })
            .collect();
        writers.into_iter().try_for_each(|w| {
            w.join()
                .unwrap_or_else(|_| Err(anyhow!("a file writer failed")))
        })
    })
}

fn remove_file(path: &Path) -> anyhow::Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(anyhow!("cannot delete {}: {e}", path.display())),
    }
}

/// The sync at work: the transaction, the folder, and what it did.
struct Apply<'a, 't> {
    tx: &'a SyncTx<'t>,
    folder: &'a Path,
    counts: &'a mut Counts,
    /// Items already settled by a key conflict with another id.
    settled: HashSet<(ItemKind, String)>,
    /// Files written before the lock was taken (counted when their bases are recorded).
    written_early: HashSet<(ItemKind, String)>,
    dirs_touched: bool,
    /// Files to write, by path, written in parallel batches by [`Apply::flush`].
    pending: HashMap<PathBuf, String>,
}

/// How many files are written (and fsynced) at once: the file system commits concurrent
/// fsyncs together, so 10,000 new files take seconds instead of one flush each.
const WRITE_THREADS: usize = 16;

/// How many files wait before a batch is written.
const WRITE_BATCH: usize = 512;

impl Apply<'_, '_> {
    fn act(&mut self, kind: ItemKind, id: &str, e: &Entry, action: Action) -> anyhow::Result<()> {
        let k = slot(kind);
        let db_item = e.db.as_ref().map(|(_, i)| i);
        let file_item = e.file.as_ref().and_then(|(_, i)| i.as_ref());
        match action {
            Action::InSync => match &e.db {
                Some((h, item)) if e.base != Some(*h) => {
                    self.set_base(item)?;
                    if self.written_early.contains(&(kind, id.to_string())) {
                        self.counts.written[k] += 1;
                    }
                }
                Some(_) => {}
                None if e.base.is_some() => self.drop_base(kind, id)?,
                None => {}
            },
            Action::ToFolder | Action::KeepDatabase => {
                let item = db_item.ok_or_else(|| anyhow!("{id}: no database version"))?;
                self.write_file(item)?;
                self.set_base(item)?;
                self.counts.written[k] += 1;
                if action == Action::KeepDatabase {
                    self.counts.conflicts.push(format!(
                        "{} {id} was deleted in the folder but changed in the database: kept, \
                         and written back to the folder",
                        kind.as_str()
                    ));
                }
            }
            Action::ToDatabase | Action::KeepFolder => {
                let item = file_item.ok_or_else(|| anyhow!("{id}: no folder version"))?;
                self.import(item, e.file.as_ref().map(|(h, _)| *h))?;
                self.counts.imported[k] += 1;
                if action == Action::KeepFolder {
                    self.counts.conflicts.push(format!(
                        "{} {id} was deleted in the database but changed in the folder: kept, \
                         and imported back",
                        kind.as_str()
                    ));
                }
            }
            Action::DeleteFile => {
                self.remove_file(&file_of(self.folder, kind, id))?;
                self.drop_base(kind, id)?;
                self.counts.deleted_files[k] += 1;
            }
            Action::DeleteItem => {
                self.delete_item(kind, id)?;
                self.drop_base(kind, id)?;
                self.counts.deleted_items[k] += 1;
            }
            Action::Resolve => {
                let (Some(db), Some(file)) = (db_item, file_item) else {
                    return Err(anyhow!("{id}: a conflict needs both versions"));
                };
                let base = self.base_item(kind, id)?;
                let resolved = merge::resolve(
                    base.as_ref(),
                    Side {
                        item: db,
                        name: "database",
                    },
                    Side {
                        item: file,
                        name: "folder",
                    },
                )
                .map_err(|e| anyhow!("{e}"))?;
                if let Some(c) = resolved.conflict {
                    self.counts.conflicts.push(c);
                }
                let text = resolved.item.text();
                if text != db.text() {
                    self.import(&resolved.item, e.file.as_ref().map(|(h, _)| *h))?;
                    self.counts.imported[k] += 1;
                } else {
                    self.write_file(db)?;
                    self.set_base(db)?;
                }
                if text != file.text() {
                    self.counts.written[k] += 1;
                }
            }
        }
        Ok(())
    }

    fn base_item(&self, kind: ItemKind, id: &str) -> anyhow::Result<Option<Item>> {
        let body = self
            .tx
            .base_body(kind.as_str(), id)
            .map_err(|e| anyhow!("{e}"))?;
        // A base that no longer parses (written by a later version) only costs the merge its
        // knowledge of what was removed knowingly.
        Ok(body.and_then(|b| serde_json::from_str(&b).ok()))
    }

    fn set_base(&self, item: &Item) -> anyhow::Result<()> {
        let text = item.text();
        self.tx
            .set_base(
                item.kind().as_str(),
                item.id(),
                &hash(text.as_bytes()),
                &text,
            )
            .map_err(|e| anyhow!("{e}"))
    }

    fn drop_base(&self, kind: ItemKind, id: &str) -> anyhow::Result<()> {
        self.tx
            .drop_base(kind.as_str(), id)
            .map_err(|e| anyhow!("{e}"))
    }

    /// Queues the item's file; batches are written by [`Apply::flush`].
    fn write_file(&mut self, item: &Item) -> anyhow::Result<()> {
        self.dirs_touched = true;
        self.pending
            .insert(file_of(self.folder, item.kind(), item.id()), item.text());
        if self.pending.len() >= WRITE_BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// Deletes a file (and any write of it still queued).
    fn remove_file(&mut self, path: &Path) -> anyhow::Result<()> {
        self.dirs_touched = true;
        self.pending.remove(path);
        remove_file(path)
    }

    /// Writes the queued files.
    fn flush(&mut self) -> anyhow::Result<()> {
        let batch: Vec<(PathBuf, String)> = self.pending.drain().collect();
        write_all(&batch)
    }

    fn delete_item(&self, kind: ItemKind, id: &str) -> anyhow::Result<()> {
        match kind {
            ItemKind::Record => self.tx.delete_record(id),
            ItemKind::Decision => self.tx.delete_decision(id),
        }
        .map(|_| ())
        .map_err(|e| anyhow!("{e}"))
    }

    /// Writes `item` to the database by id, settling another id at its natural key first;
    /// then the file and the base follow what the database now holds (`file`: the hash of
    /// the folder's file, rewritten only when it differs).
    fn import(&mut self, item: &Item, file: Option<Hash>) -> anyhow::Result<()> {
        let holder = match item {
            Item::Record(r) => self.tx.record_holder(r).map(|h| h.map(Item::Record)),
            Item::Decision(d) => self.tx.decision_holder(d).map(|h| h.map(Item::Decision)),
        }
        .map_err(|e| anyhow!("{e}"))?;
        let item = match holder {
            Some(held) => match self.settle_key(&held, item)? {
                Some(winner) => winner,
                // The database's other id keeps the key: nothing more to write for `item`.
                None => return Ok(()),
            },
            None => item.clone(),
        };
        match &item {
            Item::Record(r) => self.tx.put_record(r),
            Item::Decision(d) => self.tx.put_decision(d),
        }
        .map_err(|e| anyhow!("{e}"))?;
        // What the database holds now, as the next sync will read it.
        let stored = match &item {
            Item::Record(r) => self.tx.record(&r.id).map(|o| o.map(Item::Record)),
            Item::Decision(d) => self.tx.decision(&d.id).map(|o| o.map(Item::Decision)),
        }
        .map_err(|e| anyhow!("{e}"))?
        .ok_or_else(|| anyhow!("{} {}: not stored", item.kind().as_str(), item.id()))?;
        if file != Some(stored.hash()) {
            self.write_file(&stored)?;
        }
        self.set_base(&stored)
    }

    /// Two ids at one natural key: `held` in the database, `incoming` from the folder (or a
    /// merge). The later keeps the key (a decision with the other's engineer verdicts); the
    /// other id is deleted on both sides. Returns the item to write when it is `incoming`'s
    /// id, or `None` when `held` kept the key (already written here).
    fn settle_key(&mut self, held: &Item, incoming: &Item) -> anyhow::Result<Option<Item>> {
        let resolved = merge::both_changed(
            None,
            Side {
                item: held,
                name: "database",
            },
            Side {
                item: incoming,
                name: "folder",
            },
            &held.text(),
            &incoming.text(),
        );
        let winner = resolved.item;
        let loser = if winner.id() == held.id() {
            incoming
        } else {
            held
        };
        self.counts.conflicts.push(format!(
            "{} {} (database, {}) and {} (folder, {}) are one {} under two ids: kept {}, \
             deleted {} on both sides{}",
            held.kind().as_str(),
            held.id(),
            held.updated_at(),
            incoming.id(),
            incoming.updated_at(),
            match held {
                Item::Record(_) => "feature (locator and name)",
                Item::Decision(_) => "decision (locator, subject and revision)",
            },
            winner.id(),
            loser.id(),
            resolved
                .notes
                .iter()
                .map(|n| format!("; {n}"))
                .collect::<String>()
        ));
        self.delete_item(loser.kind(), loser.id())?;
        self.remove_file(&file_of(self.folder, loser.kind(), loser.id()))?;
        self.drop_base(loser.kind(), loser.id())?;
        self.settled.insert((loser.kind(), loser.id().to_string()));
        self.settled
            .insert((winner.kind(), winner.id().to_string()));
        if winner.id() == held.id() {
            if winner != *held {
                match &winner {
                    Item::Record(r) => self.tx.put_record(r),
                    Item::Decision(d) => self.tx.put_decision(d),
                }
                .map_err(|e| anyhow!("{e}"))?;
            }
            self.write_file(&winner)?;
            self.set_base(&winner)?;
            return Ok(None);
        }
        Ok(Some(winner))
    }
}

/// `--dry-run`: each item's action, and the counts it would give, without writing.
fn plan(
    tx: &SyncTx<'_>,
    entries: &BTreeMap<(ItemKind, String), Entry>,
    counts: &mut Counts,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    for ((kind, id), e) in entries {
        let k = slot(*kind);
        let file = format!("{}/{id}.json", kind.dir());
        let line = match action_of(e) {
            Action::InSync => continue,
            Action::ToFolder => {
                counts.written[k] += 1;
                format!("would write {file}")
            }
            Action::ToDatabase => {
                counts.imported[k] += 1;
                format!("would import {file}")
            }
            Action::DeleteFile => {
                counts.deleted_files[k] += 1;
                format!("would delete {file} (deleted in the database)")
            }
            Action::DeleteItem => {
                counts.deleted_items[k] += 1;
                format!(
                    "would delete {} {id} from the database (its file was deleted)",
                    kind.as_str()
                )
            }
            Action::KeepDatabase => {
                counts.written[k] += 1;
                counts.conflicts.push(String::new());
                format!(
                    "conflict: would write {file} back: deleted in the folder, changed in the database"
                )
            }
            Action::KeepFolder => {
                counts.imported[k] += 1;
                counts.conflicts.push(String::new());
                format!(
                    "conflict: would import {file} back: deleted in the database, changed in the folder"
                )
            }
            Action::Resolve => {
                let (Some((_, db)), Some((_, Some(file_item)))) = (&e.db, &e.file) else {
                    continue;
                };
                let base = tx
                    .base_body(kind.as_str(), id)
                    .map_err(|e| anyhow!("{e}"))?
                    .and_then(|b| serde_json::from_str::<Item>(&b).ok());
                let r = merge::resolve(
                    base.as_ref(),
                    Side {
                        item: db,
                        name: "database",
                    },
                    Side {
                        item: file_item,
                        name: "folder",
                    },
                )
                .map_err(|e| anyhow!("{e}"))?;
                let text = r.item.text();
                if text != db.text() {
                    counts.imported[k] += 1;
                }
                if text != file_item.text() {
                    counts.written[k] += 1;
                }
                counts.conflicts.push(String::new());
                format!(
                    "conflict: would merge {file}: {}",
                    r.conflict.unwrap_or_default()
                )
            }
        };
        let _ = writeln!(out, "{line}");
    }
    Ok(())
}

/// The one-line summary per kind of change.
fn summary(c: &Counts, dry_run: bool, out: &mut dyn Write) {
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
