//! `review-mcp backup FILE`: a checked copy of the database in a new file.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};

use review_mcp::store::Store;
use review_mcp::text::counted;

use super::database::{counts, require_existing, store_error};
use super::output::{create_private_dir_beside, create_temp_beside, refuse_database_target, shown};

/// A backup's private directory ([`create_private_dir_beside`]), removed with what it holds
/// when the backup ends, done or not.
struct PrivateDir(PathBuf);

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `review-mcp backup FILE`: a complete, self-contained copy of the database, taken in one
/// read transaction (SQLite's `VACUUM INTO`) so it is consistent while servers write. FILE
/// must not exist: the copy is written to a private temporary file beside it (the
/// database's permissions), synced, and renamed into place.
pub fn run(db: &Path, target: &Path) -> anyhow::Result<ExitCode> {
    refuse_database_target(db, target)?;
    if target.is_dir() {
        return Err(anyhow!(
            "{} is a directory: name the new file to write, such as {}",
            shown(target),
            shown(&target.join("review-backup.db"))
        ));
    }
    if target.exists() || target.is_symlink() {
        return Err(anyhow!(
            "{} exists; backup writes a new file only (remove it or choose another name)",
            shown(target)
        ));
    }
    // The file as it is: a file of an older version is copied at that version, not upgraded.
    require_existing(db)?;
    let mut store = Store::open_read_only_as_it_is(db).map_err(|e| store_error(db, e))?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let cannot = || {
        format!(
            "cannot write the backup {} (its folder must exist and be writable)",
            shown(target)
        )
    };
    // The copy and the files SQLite makes beside it (its journal) live in a private
    // directory beside FILE, removed when done (declared first: dropped last).
    let private = PrivateDir(create_private_dir_beside(target).with_context(cannot)?);
    let name = target.file_name().unwrap_or("backup".as_ref());
    // Created empty and exclusively (never through a planted link) with the database's
    // mode, then filled by SQLite, which accepts an empty file.
    let (tmp, file) = create_temp_beside(&private.0.join(name), db).with_context(cannot)?;
    // SQLite writes the copy through its own connection, which a mode without the owner's
    // write bit (a read-only database's, 0444) would refuse: the owner may write it until it
    // is complete, then it gets the database's mode.
    // `file` stays open (and locked) until the copy is in place: a temporary file nobody
    // holds is one a killed backup left.
    let mode = file.metadata().map(|m| m.permissions());
    let made = (|| -> anyhow::Result<Result<(u64, u64), Vec<String>>> {
        let mode = mode?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let writable = std::fs::Permissions::from_mode(mode.mode() | 0o200);
            std::fs::set_permissions(&tmp, writable)?;
        }
        store.backup_into(&tmp).map_err(|e| {
            if e.is_disk_full() {
                // What fills up is the copy's disk, not the database's.
                anyhow!("the disk it goes on is full; free space there, or choose another place")
            } else if let Some(limit) = e.file_size_limit_met() {
                // The copy is the file that grows (the database is only read).
                anyhow!(
                    "it would be larger than the file-size limit of this process (ulimit -f: {limit} bytes); raise or remove the limit (`ulimit -f unlimited`) and run the backup again"
                )
            } else {
                store_error(db, e)
            }
        })?;
        std::fs::set_permissions(&tmp, mode)?;
        // Checked before it is put in place: a copy that fails is never at the target (and
        // nothing at the target is ever removed). The copy is the database as it was: its
        // problems are the database's, and the repairs they name are for the database.
        let mut copy = Store::open_read_only_quietly(&tmp).map_err(|e| store_error(target, e))?;
        let problems = copy
            .check_of(Some(db))
            .map_err(|e| store_error(target, e))?;
        if !problems.is_empty() {
            return Ok(Err(problems));
        }
        let counted = counts(target, &mut copy)?;
        drop(copy);
        put_in_place(&tmp, target)?;
        let _ = std::fs::remove_file(&tmp);
        drop(file);
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(Ok(counted))
    })();
    let (records, decisions) = match made {
        Ok(Ok(counted)) => counted,
        Ok(Err(problems)) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(anyhow!(
                "no backup was written: the copy of {} does not pass its check: {}",
                shown(db),
                problems.join("; ")
            ));
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e.context(format!("cannot write the backup {}", shown(target))));
        }
    };
    drop(store);
    let mut out = io::stdout().lock();
    let written = writeln!(
        out,
        "{}: backup of {}: {}, {}, integrity ok",
        shown(target),
        shown(db),
        counted(records, "record"),
        counted(decisions, "decision")
    )
    .and_then(|()| out.flush());
    let after = format!(" (the backup {} was written and checked)", shown(target));
    crate::cli::finish_stdout(written, "the backup's report", &after)
}

/// Puts the checked copy `tmp` in place at `target` by a hard link, which never replaces a
/// file there.
fn put_in_place(tmp: &Path, target: &Path) -> anyhow::Result<()> {
    let linked = std::fs::hard_link(tmp, target).or_else(|e| {
        // A file system without hard links: rename (may replace a file created since).
        if target.exists() || target.is_symlink() {
            Err(e)
        } else {
            std::fs::rename(tmp, target)
        }
    });
    match linked {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(anyhow!(
            "{} was made while the backup ran (by a second backup to it, or another program); it was left as it is and no backup was written: run the backup again with another name",
            shown(target)
        )),
        linked => Ok(linked?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (found by advcli): a file made at FILE while the backup ran (a second
    /// `backup FILE` at once, or any program) was kept, but the refusal said only "File exists
    /// (os error 17)", not that FILE was left as it is nor what to do.
    #[test]
    fn a_target_made_meanwhile_is_left_and_the_refusal_says_what_to_do() {
        let dir = std::env::temp_dir().join(format!("review-mcp-put-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (tmp, target) = (dir.join("copy.tmp"), dir.join("b.db"));
        std::fs::write(&tmp, "copy").unwrap();
        std::fs::write(&target, "theirs").unwrap();
        let said = put_in_place(&tmp, &target).map_err(|e| format!("{e:#}"));
        let kept = std::fs::read_to_string(&target).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(kept, "theirs");
        let said = said.unwrap_err();
        assert!(
            said.contains("was made while the backup ran") && said.contains("another name"),
            "{said}"
        );
    }
}
