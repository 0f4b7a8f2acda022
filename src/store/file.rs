//! The database file on disk: which file a path names, what kind of file it is, and whether
//! the path still names the file a server opened.
//!
//! SQLite opens a path once and then writes through its descriptor. When the path is later
//! made to name another file (a backup restored with `mv`, `git checkout`, a sync client) or
//! no file at all, every write still succeeds, into a file nobody can see any more. So the
//! store remembers the device and inode it opened and compares them with what the path names
//! before each transaction (one `stat`). SQLite's own unix layer notices
//! the same conditions ("file unlinked while open", "file renamed while open", "multiple
//! links to file") but only logs them through a callback that rusqlite installs with
//! `unsafe`, which this crate forbids; checking here also lets a tool say what happened.

use std::cell::Cell;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

use super::StoreError;

/// The suffixes of the files SQLite keeps beside a database.
pub const COMPANIONS: [&str; 3] = ["-journal", "-wal", "-shm"];

/// What happened to the file a server opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileChange {
    /// The path names no file any more.
    Deleted,
    /// The path names another file (another inode or device).
    Replaced,
    /// The file's own path is now a symbolic link to it: the file was moved and a link left
    /// where it was. SQLite keeps the `-wal` and `-shm` beside the file a link names, so a
    /// connection opened now uses others than the ones this one holds: two logs on one file.
    Moved,
    /// The file gained another name: a second hard link.
    Linked(u64),
    /// The file is shorter than this server saw it (now, before): it was truncated or written
    /// over in place (`: > review.db`, a smaller file copied onto it). review-mcp never
    /// shrinks a database file (no vacuum), so its pages are gone.
    Truncated(u64, u64),
    /// A companion file SQLite holds open in WAL mode (`-wal` or `-shm`, the suffix) is gone
    /// from its path, or the path names another file: SQLite would go on writing into the
    /// unlinked file while any other connection used a new one.
    Companion(&'static str),
    /// The `-wal` the connection holds is shorter (now, in use) than the log SQLite's index
    /// says it holds: another program cut it (`: > review.db-wal`). SQLite would append the
    /// next commit after a hole of zeros where the cut frames were, and a checkpoint would
    /// copy those zeros into the file.
    LogTruncated(u64, u64),
}

/// The path as SQLite must see it: absolute, so that a path such as `file:review.db?mode=memory`
/// is a file of that name in the working directory and never a URI (SQLite reads a filename
/// beginning with `file:` as a URI; an absolute path begins with `/`). Resolved once, at
/// start, so a later change of working directory changes nothing.
pub fn absolute(path: &Path) -> Result<PathBuf, StoreError> {
    std::path::absolute(path).map_err(StoreError::io(path))
}

/// The database file `path` names, as SQLite names it: [`absolute`], with a symbolic link at
/// its end followed (link by link, a relative target read from the link's directory) to the
/// path it names, which may not exist yet. SQLite follows the link itself and keeps the
/// `-wal` and `-shm` beside the file it names, not beside the link: every check of those
/// companions (a left log, the identity of an open one, a reader's choice to open a file with
/// no log `immutable`) must look where SQLite writes them. A path that ends in a slash names
/// a directory, and a loop of links names nothing: both are refused.
pub fn database_path(path: &Path) -> Result<PathBuf, StoreError> {
    let given = absolute(path)?;
    if given.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(StoreError::NotAFile {
            path: given,
            kind: "a directory (the path ends in a slash)",
        });
    }
    // Linux's own limit of links followed in one path.
    const MAX_LINKS: usize = 40;
    let mut at = given.clone();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&at).map_err(StoreError::io(&at))?;
                // `at` is absolute, so it has a parent and the result is absolute.
                at = match at.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(StoreError::NotAFile {
        path: given,
        kind: "a loop of symbolic links",
    })
}

/// The path of one of SQLite's companion files of `db`.
pub fn companion(db: &Path, suffix: &str) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Refuses a companion of `db` (`-journal`, `-wal`, `-shm`) that is there and not a regular
/// file: a FIFO would block the open of it (ours, or SQLite's) for good, and a directory or a
/// symbolic link (which SQLite will not follow) fails every open with a message naming the
/// database, not the companion.
pub fn companions_are_files(db: &Path) -> Result<(), StoreError> {
    for suffix in COMPANIONS {
        let path = companion(db, suffix);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if !meta.file_type().is_file() => {
                let ft = meta.file_type();
                return Err(StoreError::CompanionNotAFile {
                    path: db.to_path_buf(),
                    suffix,
                    kind: match crate::review::hashing::kind_name(&ft) {
                        _ if ft.is_symlink() => "a symbolic link",
                        Some(kind) => kind,
                        None => "not a regular file",
                    },
                });
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io(&path)(e)),
        }
    }
    Ok(())
}

/// Refuses what must never be opened as a database: anything but a regular file (a FIFO
/// would block the open, a device would be overwritten), and a file with more than one name
/// (each name would get its own journal, and a crash would leave one of them to roll back the
/// other's pages). `meta` follows symbolic links: a link to a regular file is that file.
pub fn check_kind(path: &Path, meta: &Metadata) -> Result<(), StoreError> {
    let ft = meta.file_type();
    if !ft.is_file() {
        return Err(StoreError::NotAFile {
            path: path.to_path_buf(),
            kind: crate::review::hashing::kind_name(&ft).unwrap_or("not a regular file"),
        });
    }
    match links(meta) {
        n if n > 1 => Err(StoreError::HardLinked {
            path: path.to_path_buf(),
            links: n,
        }),
        _ => Ok(()),
    }
}

#[cfg(unix)]
fn links(meta: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.nlink()
}

#[cfg(not(unix))]
fn links(_meta: &Metadata) -> u64 {
    1
}

/// The file a store opened: its path and its device and inode at that moment, and those of
/// the companion files its connection holds open (the `-wal` and `-shm` in WAL mode).
#[derive(Debug, Clone)]
pub struct Identity {
    path: PathBuf,
    dev: u64,
    ino: u64,
    companions: Vec<(&'static str, PathBuf, (u64, u64))>,
    /// The symbolic link the file was named by (see [`database_path`]), which must go on
    /// naming it.
    link: Option<PathBuf>,
    /// The largest size the file was seen with: it only grows (nothing here vacuums it).
    size: Cell<u64>,
    /// Once seen truncated (now, before), always: a checkpoint may grow the file back, with
    /// the lost pages a hole of zeros.
    truncated: Cell<Option<(u64, u64)>>,
}

impl Identity {
    /// What `path` names now.
    pub fn of(path: &Path) -> Result<Identity, StoreError> {
        let meta = std::fs::metadata(path).map_err(StoreError::io(path))?;
        let (dev, ino) = dev_ino(&meta);
        Ok(Identity {
            path: path.to_path_buf(),
            dev,
            ino,
            companions: Vec::new(),
            link: None,
            size: Cell::new(meta.len()),
            truncated: Cell::new(None),
        })
    }

    /// Also checks that `link`, the path as given, still names this file (when it differs
    /// from the file's own path: a symbolic link, see [`database_path`]).
    pub fn named_by(mut self, link: &Path) -> Identity {
        if link != self.path {
            self.link = Some(link.to_path_buf());
        }
        self
    }

    /// Also remembers what each of the companion files `suffixes` names now (they exist: the
    /// connection holds them open).
    pub fn with_companions(mut self, suffixes: &[&'static str]) -> Result<Identity, StoreError> {
        for &suffix in suffixes {
            let path = companion(&self.path, suffix);
            let meta = std::fs::metadata(&path).map_err(StoreError::io(&path))?;
            self.companions.push((suffix, path, dev_ino(&meta)));
        }
        Ok(self)
    }

    /// Whether the path still names this file, with this one name, and its companion files
    /// are still the ones the connection holds.
    pub fn verify(&self) -> Result<(), StoreError> {
        self.verify_file()?;
        self.verify_companions()
    }

    /// Whether the path still names this file, with this one name (the companions aside).
    fn verify_file(&self) -> Result<(), StoreError> {
        // The link first: it names the file through the file's own path.
        if let Some(link) = &self.link {
            Identity::named(link, (self.dev, self.ino))?;
        }
        // The file's own path (a link already followed) must not have become a link.
        if std::fs::symlink_metadata(&self.path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(StoreError::FileChanged {
                path: self.path.clone(),
                change: FileChange::Moved,
            });
        }
        let len = Identity::named(&self.path, (self.dev, self.ino))?.len();
        let seen = self.size.get();
        if len < seen && self.truncated.get().is_none() {
            self.truncated.set(Some((len, seen)));
        }
        if let Some((now, before)) = self.truncated.get() {
            return Err(StoreError::FileChanged {
                path: self.path.clone(),
                change: FileChange::Truncated(now, before),
            });
        }
        self.size.set(len);
        Ok(())
    }

    /// Whether `path` names the file `id`, with this one name: its metadata if so.
    fn named(path: &Path, id: (u64, u64)) -> Result<Metadata, StoreError> {
        let changed = |change| StoreError::FileChanged {
            path: path.to_path_buf(),
            change,
        };
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(changed(FileChange::Deleted)),
            Err(e) => Err(StoreError::io(path)(e)),
            Ok(meta) if dev_ino(&meta) != id => Err(changed(FileChange::Replaced)),
            Ok(meta) if links(&meta) > 1 => Err(changed(FileChange::Linked(links(&meta)))),
            Ok(meta) => Ok(meta),
        }
    }

    /// Empties the companion `suffix` (the `-wal`) the path still names, if it is still the
    /// one the connection held (checked on the opened file, not only by its path). For a
    /// file the path no longer names, whose connection has closed: SQLite refuses every
    /// write to a moved database, its checkpoint included, so a log it began would
    /// otherwise stay beside the path.
    pub fn empty_companion(&self, suffix: &str) {
        let Some((_, path, id)) = self.companions.iter().find(|(s, _, _)| *s == suffix) else {
            return;
        };
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // O_NONBLOCK (the same value on every Linux port): a FIFO put at the path does not
            // block the exit; the inode check below is what decides.
            #[cfg(target_os = "linux")]
            opts.custom_flags(0o4000);
        }
        if let Ok(f) = opts.open(path)
            && f.metadata()
                .is_ok_and(|m| m.is_file() && dev_ino(&m) == *id)
        {
            let _ = f.set_len(0);
        }
    }

    /// The `-wal` as it is now (`None`: not a companion this identity holds, or gone, which
    /// [`Identity::verify`] reports).
    pub fn log_state(&self) -> Option<LogState> {
        let (_, path, _) = self.companions.iter().find(|(s, _, _)| *s == "-wal")?;
        let meta = std::fs::metadata(path).ok()?;
        Some(LogState {
            len: meta.len(),
            changed: change_time(&meta),
        })
    }

    fn verify_companions(&self) -> Result<(), StoreError> {
        for (suffix, path, id) in &self.companions {
            match std::fs::metadata(path) {
                Ok(meta) if dev_ino(&meta) == *id => {}
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(StoreError::io(path)(e));
                }
                // Another file, or none.
                _ => {
                    return Err(StoreError::FileChanged {
                        path: self.path.clone(),
                        change: FileChange::Companion(suffix),
                    });
                }
            }
        }
        Ok(())
    }
}

/// A `-wal`'s length and the time of its last change: every write and every cut moves that
/// time (the inode's change time, which no program can set back), so a log whose state is
/// unchanged since it was last found whole was not cut meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogState {
    pub len: u64,
    /// `None` where the system keeps no change time: then never taken as unchanged.
    changed: Option<(i64, i64)>,
}

impl LogState {
    /// Whether the log is just as it was at `earlier`: the same length and change time.
    pub fn unchanged_since(&self, earlier: &LogState) -> bool {
        self.changed.is_some() && self == earlier
    }
}

#[cfg(unix)]
fn change_time(meta: &Metadata) -> Option<(i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.ctime(), meta.ctime_nsec()))
}

#[cfg(not(unix))]
fn change_time(_meta: &Metadata) -> Option<(i64, i64)> {
    None
}

#[cfg(unix)]
fn dev_ino(meta: &Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn dev_ino(_meta: &Metadata) -> (u64, u64) {
    (0, 0)
}

/// Whether what `reader` reads starts with an SQLite database's header (`SQLite format 3`
/// and a NUL), which no export line, Form 3 or text file does.
pub fn starts_as_sqlite(mut reader: impl std::io::Read) -> bool {
    let mut header = [0u8; 16];
    reader
        .read_exact(&mut header)
        .is_ok_and(|()| &header == b"SQLite format 3\0")
}

/// Whether `target` is `db` itself or one of its companion files, by identity where the file
/// exists (a link or another spelling of the same file counts) and by name otherwise.
pub fn is_database_file(db: &Path, target: &Path) -> bool {
    // The database's companions are beside the file a link names (see `database_path`).
    let db = database_path(db).or_else(|_| absolute(db));
    let (Ok(db), Ok(target)) = (db, std::path::absolute(target)) else {
        return false;
    };
    let same = |a: &Path, b: &Path| match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => dev_ino(&x) == dev_ino(&y),
        _ => {
            // Compare the names with the directories resolved (`./x.db` and `x.db`).
            let canon = |p: &Path| match (p.parent().map(std::fs::canonicalize), p.file_name()) {
                (Some(Ok(dir)), Some(name)) => dir.join(name),
                _ => p.to_path_buf(),
            };
            canon(a) == canon(b)
        }
    };
    std::iter::once(db.clone())
        .chain(COMPANIONS.iter().map(|s| companion(&db, s)))
        .any(|f| same(&f, &target))
}

/// Where this process still holds open the deleted file that was at `path` (deleted, or
/// replaced by a `mv` over it): `/proc/<pid>/fd/<n>`, a name another process (the user's
/// `cp`) can read it by while this one runs, on Linux. The file's data lives until the last
/// descriptor closes, so this is how every write a server answered into it can still be
/// kept when the file was deleted by mistake. `None` elsewhere, or when no such descriptor is
/// open here.
pub fn held_open_copy(path: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(path.parent()?).ok()?;
    let gone = {
        let mut s = dir.join(path.file_name()?).into_os_string();
        s.push(" (deleted)");
        s
    };
    let own = PathBuf::from(format!("/proc/{}/fd", std::process::id()));
    let mut fds: Vec<_> = std::fs::read_dir(&own)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| std::fs::read_link(e.path()).is_ok_and(|target| target.as_os_str() == gone))
        .map(|e| e.file_name())
        .collect();
    fds.sort();
    fds.first().map(|fd| own.join(fd))
}

/// This process's file-size limit in bytes (`ulimit -f`, `RLIMIT_FSIZE`), when it has one:
/// read from `/proc/self/limits` ("Max file size"), so known on Linux only (elsewhere a write
/// past it is reported as any other failed write).
pub fn file_size_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max file size"))?;
    // "Max file size   <soft>   <hard>   bytes": the soft limit is the one enforced.
    line.strip_prefix("Max file size")?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Why a write failed with `EFBIG` ("File too large") and what to do, as `(why, fix)`: "larger
/// than" the file-size limit of this process when it has one (with its bytes where known);
/// on Linux, with none, the file system's own largest file (FAT32's is 4 GiB), which no limit
/// raises. Elsewhere (macOS: the limit unknown) the limit, without its number.
pub fn too_large() -> (String, &'static str) {
    let raise = "Raise or remove the limit (`ulimit -f unlimited`)";
    match file_size_limit() {
        Some(limit) => (
            format!("larger than the file-size limit of this process (ulimit -f: {limit} bytes)"),
            raise,
        ),
        None if std::fs::read_to_string("/proc/self/limits").is_ok() => (
            "larger than the file system there takes (its largest file: FAT32's, say, is 4 GiB; this process has no file-size limit)".to_string(),
            "Write it to another file system (or free the place of the file too large for it)",
        ),
        None => (
            "larger than the file-size limit of this process (ulimit -f)".to_string(),
            raise,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "review-mcp-file-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn identity_notices_delete_replace_and_link() {
        let d = dir("identity");
        let db = d.join("r.db");
        std::fs::write(&db, b"a").unwrap();
        let id = Identity::of(&db).unwrap();
        assert!(id.verify().is_ok());
        std::fs::hard_link(&db, d.join("other.db")).unwrap();
        assert!(matches!(
            id.verify(),
            Err(StoreError::FileChanged {
                change: FileChange::Linked(2),
                ..
            })
        ));
        std::fs::remove_file(d.join("other.db")).unwrap();
        std::fs::write(d.join("new.db"), b"b").unwrap();
        std::fs::rename(d.join("new.db"), &db).unwrap();
        assert!(matches!(
            id.verify(),
            Err(StoreError::FileChanged {
                change: FileChange::Replaced,
                ..
            })
        ));
        std::fs::remove_file(&db).unwrap();
        assert!(matches!(
            id.verify(),
            Err(StoreError::FileChanged {
                change: FileChange::Deleted,
                ..
            })
        ));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn is_database_file_names_the_file_and_its_companions() {
        let d = dir("same");
        let db = d.join("r.db");
        std::fs::write(&db, b"a").unwrap();
        assert!(is_database_file(&db, &db));
        assert!(is_database_file(&db, &d.join(".").join("r.db")));
        assert!(is_database_file(&db, &d.join("r.db-journal")));
        assert!(is_database_file(&db, &d.join("r.db-wal")));
        assert!(!is_database_file(&db, &d.join("backup.jsonl")));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&db, d.join("link.db")).unwrap();
            assert!(is_database_file(&db, &d.join("link.db")));
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn absolute_keeps_a_file_colon_name_a_file() {
        let p = absolute(Path::new("file:review.db?mode=memory")).unwrap();
        assert!(p.is_absolute());
        assert!(p.ends_with("file:review.db?mode=memory"));
    }
}
