//! What a sync deletes from the database, named and kept: an item whose file is gone from the
//! folder (a teammate's `forget`, but also a force-push, a `git reset` or a file deleted by
//! hand) is deleted from the database by the three-way rule, and the engineer must be able to
//! tell what went and to bring it back. Each such item is named in the output (the first
//! [`NAMED`], then a count of the rest), and every one is saved, before the commit that
//! deletes it, as an export line in a file beside the database
//! (`<db>.sync-deleted/<time>-<run>.jsonl`): `review-mcp import` of that file brings them back
//! (the later `updated_at` wins, so nothing newer is overwritten) and the next sync writes
//! their files again.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::folder::fsync_dir;
use super::shown;
use super::{Item, Result};

/// How many deleted items (on each side) the output names; the rest are counted.
pub(super) const NAMED: usize = 20;

/// The folder beside the database `db` where syncs keep what they deleted from it.
pub fn saved_dir(db: &Path) -> PathBuf {
    let mut name = db
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "review-mcp.db".into());
    name.push(".sync-deleted");
    db.with_file_name(name)
}

/// The file a sync of run `run`, begun at `at` (`2026-12-04T04:10:00.123Z`), saves the items it
/// deletes from `db` in: named by the time (without `:`, which Windows refuses) and the run.
pub(super) fn saved_file(db: &Path, at: &str, run: &str) -> PathBuf {
    let stamp: String = at
        .chars()
        .take(19)
        .map(|c| if c == ':' { '-' } else { c })
        .collect();
    let run = run.get(..8).unwrap_or(run);
    saved_dir(db).join(format!("{stamp}Z-{run}.jsonl"))
}

/// Where the items a sync deletes from the database go, one at a time as it deletes them (so
/// what it holds does not grow with their size): export lines (what `review-mcp export`
/// writes for them, so `review-mcp import` reads them back) written durably, the folder made
/// readable by its owner only, the file written whole to a temporary created exclusively
/// (never through a link) at the first item, fsynced, renamed into place (never over another
/// file) and its directory fsynced by [`Saver::finish`], before the commit that deletes them.
/// A dry run's (no path) only counts. Dropped unfinished (the sync failed), the temporary is
/// removed.
pub(super) struct Saver {
    path: Option<PathBuf>,
    open: Option<std::io::BufWriter<fs::File>>,
    /// The ids saved: an item is saved once (a copy saved beside a deleted feature and then
    /// deleted itself keeps its first line, the database's version before this sync).
    saved: std::collections::HashSet<String>,
}

impl Saver {
    /// A saver to `path`, or one that only counts (`None`: a dry run writes nothing).
    pub(super) fn new(path: Option<PathBuf>) -> Self {
        Saver {
            path,
            open: None,
            saved: Default::default(),
        }
    }

    fn tmp(path: &Path) -> PathBuf {
        path.with_extension("jsonl.tmp")
    }

    fn fail(path: &Path, e: std::io::Error) -> super::Error {
        fail!(
            "cannot save the items this sync would delete from the database to {}: {e}; nothing was changed (free space there, or fix its permissions, then sync again)",
            shown(path)
        )
    }

    /// Writes `item` (the database's version, before this sync changes it).
    pub(super) fn push(&mut self, item: &Item) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if !self.saved.insert(item.id().to_string()) {
            return Ok(());
        }
        if self.open.is_none() {
            let dir = path.parent().unwrap_or(Path::new("."));
            let mut builder = fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir).map_err(|e| {
                fail!(
                    "cannot make the folder {} where sync saves the items it deletes from the \
                     database: {e}; nothing was changed (it must be a directory: move away what \
                     is there, or fix the space or permissions, then sync again)",
                    shown(dir)
                )
            })?;
            owners_only(dir)?;
            let mut options = fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            // Written whole under a temporary name, then renamed: a sync killed while writing
            // leaves a `.tmp` file, never a partial file that looks complete.
            let f = options
                .open(Self::tmp(path))
                .map_err(|e| Self::fail(path, e))?;
            self.open = Some(std::io::BufWriter::new(f));
        }
        let written = (|| {
            let json = serde_json::to_string(&*item.clamped()).map_err(std::io::Error::other)?;
            if let Some(out) = self.open.as_mut() {
                out.write_all(crate::text::escape_json_controls(&json).as_bytes())?;
                out.write_all(b"\n")?;
            }
            Ok(())
        })();
        written.map_err(|e| Self::fail(path, e))
    }

    /// The file made durable under its name; `None` when nothing was saved (or a dry run).
    pub(super) fn finish(mut self) -> Result<Option<PathBuf>> {
        let (Some(path), Some(out)) = (self.path.take(), self.open.take()) else {
            return Ok(None);
        };
        let tmp = Self::tmp(&path);
        let written = (|| {
            let f = out.into_inner().map_err(|e| e.into_error())?;
            f.sync_all()?;
            drop(f);
            if fs::symlink_metadata(&path).is_ok() {
                return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
            }
            fs::rename(&tmp, &path)
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(Self::fail(&path, e));
        }
        fsync_dir(path.parent().unwrap_or(Path::new(".")));
        Ok(Some(path))
    }
}

impl Drop for Saver {
    fn drop(&mut self) {
        if let (Some(path), Some(out)) = (&self.path, self.open.take()) {
            drop(out);
            let _ = fs::remove_file(Self::tmp(path));
        }
    }
}

/// `lines` named, the first [`NAMED`] of `total`, then one line counting the rest.
pub fn bounded(lines: &[String], total: usize) -> Vec<String> {
    let mut out: Vec<String> = lines.iter().take(NAMED).cloned().collect();
    if total > out.len() {
        out.push(format!("… and {} more", total - out.len()));
    }
    out
}

/// The folder of saved items is its owner's alone (docs/command-line.md): a symbolic link
/// there (planted, or made on purpose) is refused, since the saved review would land wherever
/// it points, in a directory of any mode; a folder others may read or enter is made the
/// owner's alone (0700) before anything is saved in it.
fn owners_only(dir: &Path) -> Result<()> {
    let meta = fs::symlink_metadata(dir).map_err(|e| {
        fail!(
            "cannot look at the folder {} where sync saves the items it deletes from the \
             database: {e}; nothing was changed",
            shown(dir)
        )
    })?;
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(fail!(
            "{} is a symbolic link or not a folder: sync saves the items it deletes from the \
             database only in a folder of its own there, readable by you alone; nothing was \
             changed (remove it, then sync again)",
            shown(dir)
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(|e| {
                fail!(
                    "cannot make the folder {} readable by you alone: {e}; nothing was changed \
                     (it holds the items sync deletes from the database: fix its owner or \
                     permissions, then sync again)",
                    shown(dir)
                )
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saved_file_is_beside_the_database_named_by_time_and_run() {
        let p = saved_file(
            Path::new("/abs/review.db"),
            "2026-12-04T04:10:00.123Z",
            "0123456789abcdef",
        );
        assert_eq!(
            p,
            Path::new("/abs/review.db.sync-deleted/2026-12-04T04-10-00Z-01234567.jsonl")
        );
    }

    #[test]
    fn at_most_the_first_few_are_named_and_the_rest_counted() {
        let lines: Vec<String> = (0..NAMED + 5).map(|i| i.to_string()).collect();
        let shown = bounded(&lines, lines.len());
        assert_eq!(shown.len(), NAMED + 1);
        assert_eq!(shown.last().map(String::as_str), Some("… and 5 more"));
        assert_eq!(bounded(&lines[..2], 2).len(), 2);
    }
}
