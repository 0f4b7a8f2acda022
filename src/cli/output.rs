//! The files commands write: never the database itself, and always through a new temporary
//! file beside the target, with the database's permissions, renamed into place.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};

use review_mcp::store;

/// A path as a message on the terminal names it: every control, bidirectional and invisible
/// character escaped (`e\u{1b}[31m.db`), as every failure message shows it.
pub(super) use review_mcp::text::shown_path as shown;

/// Refuses an output path that is the database itself or one of its companion files, as
/// `cp f f` refuses: writing there would destroy what is being read.
pub(super) fn refuse_database_target(db: &Path, target: &Path) -> anyhow::Result<()> {
    if store::file::is_database_file(db, target) {
        return Err(anyhow!(
            "{} is the database {} (or one of its journal files); choose another output file",
            shown(target),
            shown(db)
        ));
    }
    Ok(())
}

/// Refuses an output path that is the part's file `input` (by another spelling or another
/// hard link too): `form3 bracket.step -o bracket.step` replaced the part with its own Form 3.
pub(super) fn refuse_input_target(input: &Path, target: &Path) -> anyhow::Result<()> {
    if same_file(input, target) {
        let form = input.with_extension("form3.csv");
        return Err(anyhow!(
            "{} is the part's file {}: the Form 3 would replace it; give -o a file of its own, such as {}; nothing was written",
            shown(target),
            shown(input),
            shown(&form)
        ));
    }
    Ok(())
}

/// Whether `a` and `b` are one file: one device and inode (through links).
#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The temporary file an export is written to before it is renamed over `path`: a new file
/// in the same directory (so the rename is atomic), created exclusively (`create_new` fails
/// on anything already there, a symlink included, and never follows one), with the
/// database's permission bits, so the backup is no more readable than the data. A name that
/// is taken is skipped for the next candidate.
pub(super) fn create_temp_beside(path: &Path, db: &Path) -> io::Result<(PathBuf, File)> {
    let mode = db_mode(db)?;
    remove_abandoned_temps(path);
    let mut last = io::Error::other("no temporary name was free");
    for candidate in temp_candidates(path).take(100) {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(mode);
        }
        match options.open(&candidate) {
            Ok(file) => {
                // Held while the file is written (see `remove_abandoned_temps`); a file
                // system without locks leaves it to the file's age.
                let _ = file.try_lock();
                // The umask may have cleared bits of `mode`; the export gets exactly the
                // database's.
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    if let Err(e) = file.set_permissions(std::fs::Permissions::from_mode(mode)) {
                        let _ = std::fs::remove_file(&candidate);
                        return Err(e);
                    }
                }
                return Ok((candidate, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(not_made(path, e)),
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// "Not found" for a new name beside `path`, said as what it means: its directory is missing,
/// or takes no new file (`/proc`, `/sys`: a kernel's file system answers "not found" for a
/// name it does not make).
fn not_made(path: &Path, e: io::Error) -> io::Error {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let message = if dir.is_dir() {
        format!(
            "{} takes no new file ({e}); choose a path in a directory of your own",
            shown(dir)
        )
    } else {
        format!(
            "the directory {} does not exist; create it, or choose a path in an existing one",
            shown(dir)
        )
    };
    io::Error::new(e.kind(), message)
}

/// Writes `path` through a new temporary file beside it ([`create_temp_beside`]): `write`
/// fills (and syncs) the file, which is then renamed over `path`; on any failure the
/// temporary file is removed and `path` left as it was. The folder is synced after the
/// rename. A `path` that is anything but a
/// regular file or nothing (a symbolic link, a directory, a FIFO, a device) is refused,
/// before and again just before the rename: the rename would replace the link or the
/// device node itself, never write through it.
pub(super) fn write_beside<T>(
    path: &Path,
    db: &Path,
    write: impl FnOnce(File) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    refuse_unusual_target(path)?;
    let (tmp, file) = create_temp_beside(path, db).with_context(|| {
        format!(
            "cannot write {} (its folder must exist and be writable)",
            shown(path)
        )
    })?;
    let written = write(file).and_then(|t| {
        refuse_unusual_target(path)?;
        std::fs::rename(&tmp, path)?;
        sync_folder_of(path);
        Ok(t)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(|e| {
        let limit = e
            .chain()
            .filter_map(|c| c.downcast_ref::<io::Error>())
            .any(|io| io.kind() == io::ErrorKind::FileTooLarge)
            .then(review_mcp::store::file::too_large);
        match limit {
            Some((why, fix)) => e.context(format!(
                "cannot write {}: it would be {why}; nothing was written there. {fix} and run the command again",
                shown(path),
            )),
            None => e.context(format!("cannot write {}", shown(path))),
        }
    })
}

/// Syncs the folder holding `path`, so the rename that put the file there survives a power
/// loss (the file's own data was synced before the rename): without it a crash just after
/// "written" could leave the folder naming the old file, or none. A failure is only logged:
/// not every file system can sync a directory.
fn sync_folder_of(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Err(e) = File::open(dir).and_then(|d| d.sync_all()) {
        log::debug!("fsync of {}: {e}", dir.display());
    }
}

/// Refuses an output path before anything is read: the database or one of its companions
/// ([`refuse_database_target`]), or anything [`write_beside`] would refuse to replace.
pub(super) fn refuse_output(db: &Path, target: &Path) -> anyhow::Result<()> {
    refuse_database_target(db, target)?;
    refuse_unusual_target(target)
}

/// Refuses an output path that names anything but a regular file (or nothing yet): a
/// symbolic link (whatever it points to), a directory, a FIFO, a socket or a device.
fn refuse_unusual_target(path: &Path) -> anyhow::Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        return Err(anyhow!(
            "{} is a symbolic link: -o does not write through a link; name the file itself, or leave -o out to write to stdout",
            shown(path)
        ));
    }
    if ft.is_dir() {
        return Err(anyhow!(
            "{} is a directory: name the file to write",
            shown(path)
        ));
    }
    if let Some(kind) = review_mcp::review::hashing::kind_name(&ft) {
        return Err(anyhow!(
            "{} is {kind}, not a regular file: -o writes a file (a temporary file renamed over it); name a file, or leave -o out to write to stdout",
            shown(path)
        ));
    }
    if is_sqlite_file(path) {
        return Err(anyhow!(
            "{} is an SQLite database (another review database, or a backup): -o would replace it with text; choose another name, or remove it first if it is to go",
            shown(path)
        ));
    }
    Ok(())
}

/// Whether the file at `path` starts with an SQLite database's header, which no export or
/// Form 3 does: a database, never yesterday's output.
/// Opened without waiting, and read only when what was opened is a regular file: a FIFO put
/// at the path since it was looked at never keeps the command waiting for a writer.
fn is_sqlite_file(path: &Path) -> bool {
    review_mcp::review::hashing::open_never_waiting(path)
        .is_ok_and(|f| f.metadata().is_ok_and(|m| m.is_file()) && store::file::starts_as_sqlite(f))
}

/// How old a temporary file nobody holds must be before it is taken for one a killed command
/// left: its own command locks it a moment after creating it.
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the temporary files beside `path` (`.NAME.PID-N.tmp`, and the `-journal` SQLite
/// kept beside a backup's) that a command writing `path` was killed in the middle of: a
/// regular file of that form, unlocked and unchanged for [`ABANDONED_AFTER`]. A killed
/// `backup` left a partial copy of the database there for good. Best effort: what cannot be
/// looked at or removed stays, and so does every other name.
pub(super) fn remove_abandoned_temps(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!(".{}.", temp_stem(name));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file_name.strip_prefix(&prefix) else {
            continue;
        };
        if let Some(counter) = rest.strip_suffix(".tmp.d") {
            remove_abandoned_private_dir(&entry.path(), counter);
            continue;
        }
        let (counter, journal) = match rest.strip_suffix(".tmp-journal") {
            Some(c) => (c, true),
            None => match rest.strip_suffix(".tmp") {
                Some(c) => (c, false),
                None => continue,
            },
        };
        let numbered = is_counter(counter);
        let candidate = entry.path();
        let old = std::fs::symlink_metadata(&candidate).is_ok_and(|m| {
            m.is_file()
                && m.modified()
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age >= ABANDONED_AFTER)
        });
        if !numbered || !old {
            continue;
        }
        // A journal goes with its file: alone once that file is gone.
        let abandoned = if journal {
            !dir.join(&file_name[..file_name.len() - "-journal".len()])
                .exists()
        } else {
            File::open(&candidate).is_ok_and(|f| f.try_lock().is_ok())
        };
        if abandoned {
            log::info!(
                "removing {}, a temporary file a killed review-mcp command left",
                shown(&candidate)
            );
            let _ = std::fs::remove_file(&candidate);
            if !journal {
                let mut journal = candidate.into_os_string();
                journal.push("-journal");
                let _ = std::fs::remove_file(journal);
            }
        }
    }
}

/// Whether `counter` is the `PID-N` of a temporary name.
fn is_counter(counter: &str) -> bool {
    counter.split_once('-').is_some_and(|(pid, n)| {
        [pid, n]
            .iter()
            .all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Removes the private directory `.NAME.PID-N.tmp.d` ([`create_private_dir_beside`]) a killed
/// backup left: a real directory (never a link), unchanged for [`ABANDONED_AFTER`], whose
/// copy no process holds any more (each file in it can be locked).
fn remove_abandoned_private_dir(dir: &Path, counter: &str) {
    let old = std::fs::symlink_metadata(dir).is_ok_and(|m| {
        m.is_dir()
            && m.modified()
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age >= ABANDONED_AFTER)
    });
    if !is_counter(counter) || !old {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let unheld = entries.filter_map(Result::ok).all(|e| {
        std::fs::symlink_metadata(e.path()).is_ok_and(|m| !m.is_file())
            || File::open(e.path()).is_ok_and(|f| f.try_lock().is_ok())
    });
    if unheld {
        log::info!(
            "removing {}, a temporary folder a killed review-mcp backup left",
            shown(dir)
        );
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A new private directory beside `path` for a backup's copy: `.NAME.PID-N.tmp.d`, mode 0700
/// (`mkdir` fails on anything already there, a link included). SQLite makes files at names
/// derived from the copy's (its `-journal`); in a directory others can write (`/tmp`) a file
/// planted at such a name, foreseen from the process id, would be opened and written by
/// SQLite, and a planted hot journal rolled back into the copy. In this directory nobody
/// else can make a file.
pub(super) fn create_private_dir_beside(path: &Path) -> io::Result<PathBuf> {
    remove_abandoned_temps(path);
    let mut last = io::Error::other("no temporary name was free");
    for candidate in temp_candidates(path).take(100) {
        let mut name = candidate.into_os_string();
        name.push(".d");
        let candidate = PathBuf::from(name);
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        match builder.create(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(not_made(path, e)),
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Temporary names for an export to `path`: `.NAME.PID-N.tmp` beside it.
fn temp_candidates(path: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    let name = path.file_name().map_or_else(|| "export".into(), temp_stem);
    let pid = std::process::id();
    (0u32..).map(move |n| path.with_file_name(format!(".{name}.{pid}-{n}.tmp")))
}

/// The longest part of a target's name a temporary name keeps: with the dot before it, the
/// `.PID-N.tmp` after it and the `-journal` SQLite puts after a backup's, the temporary name
/// stays within the 255 bytes a file name may have, as long as the target's own may be.
const TEMP_STEM_BYTES: usize = 200;

/// The target's file `name` as its temporary names start: cut to [`TEMP_STEM_BYTES`] (at a
/// character's end). A name near the limit (`-o` of 250 bytes) made a temporary name too long
/// for the file system, and the write was refused for a name that is valid.
fn temp_stem(name: &std::ffi::OsStr) -> String {
    let mut name = name.to_string_lossy().into_owned();
    let mut end = name.len().min(TEMP_STEM_BYTES);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name.truncate(end);
    name
}

/// The database file's permission bits (0600 for a file this server created).
#[cfg(unix)]
fn db_mode(db: &Path) -> io::Result<u32> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::metadata(db)?.permissions().mode() & 0o777)
}

#[cfg(not(unix))]
fn db_mode(_db: &Path) -> io::Result<u32> {
    Ok(0o600)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// Regression (found by cliout): the SQLite-header look at an output target opened it
    /// with a plain open, so a FIFO put there between the look at its kind and the open kept
    /// `export -o` waiting for a writer for good.
    #[cfg(unix)]
    #[test]
    fn the_header_look_at_a_fifo_does_not_wait() {
        let dir = std::env::temp_dir().join(format!("review-mcp-cli-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("out.jsonl");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let (tx, rx) = std::sync::mpsc::channel();
        let looked = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(is_sqlite_file(&looked));
        });
        let answer = rx.recv_timeout(std::time::Duration::from_secs(5));
        if answer.is_err() {
            // Let the waiting open go on and end.
            let _ = std::fs::OpenOptions::new().write(true).open(&fifo);
        }
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(answer, Ok(false), "the look waited on the FIFO");
    }

    #[cfg(unix)]
    #[test]
    fn create_temp_beside_planted_symlink_is_skipped_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("review-mcp-cli-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("r.db");
        std::fs::write(&db, b"db").unwrap();
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o640)).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let out = dir.join("out.jsonl");
        let first = temp_candidates(&out).next().unwrap();
        std::os::unix::fs::symlink(&victim, &first).unwrap();
        let (tmp, mut file) = create_temp_beside(&out, &db).unwrap();
        assert_ne!(tmp, first);
        file.write_all(b"export").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(
            std::fs::symlink_metadata(&first)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let mode = std::fs::metadata(&tmp).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
