//! A database file that `import` or `sync` created for a run that was then refused, removed
//! again: a refused command leaves no trace, so `review-mcp --db NEW.db import BAD` leaves no
//! `NEW.db` (nor its `-wal` or `-shm`, nor a directory created for it) to be mistaken for a
//! review later.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A database path that named no file when the command began. Dropped while armed (the
/// command refused, by an error or a panic), it removes the file it [`opened`] — only that
/// file, by device and inode, so a database another process made there meanwhile stays —
/// with its companions and the directories created for it. Declare it before the store, so
/// the store (its connection) is dropped first.
///
/// [`opened`]: NewDatabase::opened
#[derive(Debug)]
pub(super) struct NewDatabase {
    path: PathBuf,
    /// The missing directories above the file, deepest first.
    dirs: Vec<PathBuf>,
    /// The created file's (device, inode), once opened.
    file: Option<(u64, u64)>,
}

impl NewDatabase {
    /// Before the store is opened: `None` when `db` exists (or whether it does cannot be
    /// told), so an existing database is never removed.
    pub(super) fn before(db: &Path) -> Option<NewDatabase> {
        let path = std::path::absolute(db).ok()?;
        if !missing(&path) {
            return None;
        }
        Some(NewDatabase {
            dirs: missing_dirs(path.parent()),
            path,
            file: None,
        })
    }

    /// The store has created and opened the file: it is the one to remove on a refusal.
    pub(super) fn opened(&mut self) {
        self.file = fs::symlink_metadata(&self.path)
            .ok()
            .map(|m| (m.dev(), m.ino()));
    }

    /// The command did its work: the database stays.
    pub(super) fn keep(&mut self) {
        self.file = None;
        self.dirs.clear();
    }
}

/// `dir` and the directories above it that do not exist, deepest first.
fn missing_dirs(dir: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut dir = dir;
    while let Some(d) = dir.filter(|d| missing(d)) {
        dirs.push(d.to_path_buf());
        dir = d.parent();
    }
    dirs
}

/// Removes `dirs` deepest first, each only while empty; one that holds anything now stays,
/// and so do those above it.
fn remove_empty(dirs: &[PathBuf]) {
    for dir in dirs {
        if fs::remove_dir(dir).is_err() {
            break;
        }
    }
}

/// The folder a sync is to make, and the directories above it that are missing, removed
/// again when the sync is refused (dropped while armed): a refused sync leaves no empty
/// folder to be committed or taken for a synced one. Only empty directories go, so whatever
/// was written there meanwhile stays.
#[derive(Debug)]
pub(super) struct NewFolder {
    /// Deepest first; empty when the folder existed.
    dirs: Vec<PathBuf>,
}

impl NewFolder {
    /// Before the folder is made.
    pub(super) fn before(dir: &Path) -> NewFolder {
        NewFolder {
            dirs: std::path::absolute(dir)
                .map(|d| missing_dirs(Some(&d)))
                .unwrap_or_default(),
        }
    }

    /// The sync did its work: the folder stays.
    pub(super) fn keep(&mut self) {
        self.dirs.clear();
    }
}

impl Drop for NewFolder {
    fn drop(&mut self) {
        remove_empty(&self.dirs);
    }
}

fn missing(path: &Path) -> bool {
    matches!(fs::symlink_metadata(path), Err(e) if e.kind() == io::ErrorKind::NotFound)
}

impl Drop for NewDatabase {
    fn drop(&mut self) {
        let Some(file) = self.file else { return };
        let same = fs::symlink_metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == file);
        if !same {
            return;
        }
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = self.path.clone().into_os_string();
            name.push(suffix);
            if let Err(e) = fs::remove_file(&name)
                && e.kind() != io::ErrorKind::NotFound
            {
                log::warn!("cannot remove {}: {e}", Path::new(&name).display());
            }
        }
        remove_empty(&self.dirs);
        log::info!(
            "database {} removed again: the command was refused and wrote nothing",
            self.path.display()
        );
    }
}
