//! What a sync owns in its folder and how it holds it: the folder's lock (two syncs of one
//! folder never run at once), its id file (the folder's identity, which travels with git, and
//! where a database last synced it: a copy elsewhere still holding the id is told from a move),
//! its README (never a file sync did not write), its `.gitattributes` (the merge driver's
//! attribute, which moves with the folder), the temporaries an interrupted sync left, and the
//! test hook that stops a sync at a given step.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{ItemKind, README, Result, shown};

/// The id file: the folder's id on one line, written at its first sync and committed with
/// the folder, so a moved checkout or another clone is the same folder to the database.
pub(super) const ID_FILE: &str = ".review-mcp-folder";

/// The README sync writes.
pub(super) const README_FILE: &str = "README.md";

/// The folder's own git attributes file, written by sync.
pub(super) const ATTRIBUTES_FILE: &str = ".gitattributes";

/// What sync writes in the folder's `.gitattributes`: every file of the folder, at any depth,
/// merged by the driver `review`. A pattern without a slash in a directory's `.gitattributes`
/// matches below that directory wherever it is, so the attribute moves with the folder (a
/// `review/** merge=review` line in the repository's top file covers only that path: a
/// renamed or moved folder fell out of it and git left conflict markers in its items), and a
/// deeper file overrides the top one.
pub const ATTRIBUTES: &str = "\
# Written by `review-mcp sync`: git merges every file of this folder with review-mcp's merge
# driver, wherever the folder is moved or renamed. Set the driver up once per clone:
#   git config merge.review.name review-mcp
#   git config merge.review.driver \"review-mcp merge-file %O %A %B %P\"
* merge=review
";

/// How to mend the folder's `.gitattributes` when sync refuses it.
const ATTRIBUTES_FIX: &str = "delete it (sync writes its own) and sync again; attributes of \
    your own go in the repository's top .gitattributes";

/// Whether the folder's `.gitattributes` is sync's current text (`false`: absent, to be
/// written). Any other is refused: a pulled commit or an edit that changes the folder's merge
/// rule (`merge=union`, `-merge`, another driver) would have git leave conflict markers in the
/// items or merge them line by line into files that are not items.
pub(super) fn attributes(folder: &Path) -> Result<bool> {
    let path = folder.join(ATTRIBUTES_FILE);
    match read_own(&path, ATTRIBUTES_FIX)? {
        None => Ok(false),
        Some(text) if text == ATTRIBUTES || text.replace("\r\n", "\n") == ATTRIBUTES => Ok(true),
        Some(_) => Err(fail!(
            "{} is not the .gitattributes review-mcp sync writes (`* merge=review`: git merges \
             every file of the folder with review-mcp's driver, wherever the folder moves); with \
             another merge rule git leaves conflict markers in the items, or merges them line by \
             line into files that are not items: {ATTRIBUTES_FIX}; nothing was changed",
            shown(&path)
        )),
    }
}

/// Why a `.gitattributes` in one of the folder's subfolders (`records/`, `decisions/`,
/// `history/`) is refused: git takes the deepest file's rule, so one there (which sync would
/// otherwise skip as a hidden file) would override the folder's own `* merge=review` for the
/// files beside it, out of sight of the check of [`attributes`].
const NESTED_ATTRIBUTES: &str = "a .gitattributes here overrides the folder's own \
    (`* merge=review`) for the files beside it, and git would merge them by another rule \
    (conflict markers, or two versions' lines interleaved): remove it (attributes of your own \
    go in the repository's top .gitattributes)";

/// Why a `.gitignore` in one of the folder's subfolders is refused: git would ignore the
/// files it matches there, so `git add` of the folder would leave sync's new files out of
/// every commit, unsaid (the team would never receive them).
pub(super) const NESTED_IGNORE: &str = "a .gitignore here has git leave the files it matches \
    out of every commit (`git add -A` skips them unsaid), so the items and events sync writes \
    here would never reach the team: git would leave them untracked; remove it (patterns of \
    your own go in the repository's top .gitignore)";

/// Why a file of git's own in a subfolder of the folder (`records/`, `decisions/`,
/// `history/`) is refused, `None` for any other name: a `.gitattributes` or a `.gitignore`
/// there changes what git does with sync's files beside it, out of sight of every check.
pub(super) fn nested_git_file(name: &str) -> Option<&'static str> {
    match name {
        ATTRIBUTES_FILE => Some(NESTED_ATTRIBUTES),
        ".gitignore" => Some(NESTED_IGNORE),
        _ => None,
    }
}

/// How a README that sync wrote is recognised (every version of its text has this line).
const README_MARKER: &str = "This folder is written by `review-mcp sync`";

/// The largest README or id file read: sync's own are a few hundred bytes.
const MAX_OWN_FILE: u64 = 64 * 1024;

/// The environment variable of the test hook: `REVIEW_MCP_SYNC_FAIL_AT=N` stops the process
/// (abort: no destructor, no rollback, as a kill) at the Nth step of a sync.
pub(super) const FAIL_AT: &str = "REVIEW_MCP_SYNC_FAIL_AT";

/// The folder's lock, held until it is dropped or the process ends, however it ends.
#[derive(Debug)]
pub(super) struct FolderLock {
    _dir: fs::File,
}

/// Takes the folder's lock: `flock` on the folder's own directory handle, exclusive for a
/// sync, shared for a dry run (which then waits for a running sync, not for another dry
/// run). A second sync of the folder waits for the first, saying so through `waiting`. No
/// file is created for it, in the folder or anywhere else: nothing a killed sync leaves
/// behind, and no lock file in a shared temporary directory that another user could create
/// first or hold. `folder` is the canonical path of an existing directory.
pub(super) fn lock(
    folder: &Path,
    exclusive: bool,
    waiting: &mut dyn FnMut(&Path),
) -> Result<FolderLock> {
    let cannot = |e: io::Error| fail!("cannot lock {}: {e}", shown(folder));
    let dir = fs::File::open(folder).map_err(cannot)?;
    if !dir.metadata().map_err(cannot)?.is_dir() {
        return Err(fail!("cannot lock {}: not a directory", shown(folder)));
    }
    let tried = if exclusive {
        dir.try_lock()
    } else {
        dir.try_lock_shared()
    };
    match tried {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            waiting(folder);
            if exclusive {
                dir.lock()
            } else {
                dir.lock_shared()
            }
            .map_err(cannot)?;
        }
        Err(fs::TryLockError::Error(e)) => return Err(cannot(e)),
    }
    Ok(FolderLock { _dir: dir })
}

/// How to mend the folder's id file when sync refuses it.
const ID_FIX: &str = "restore it as committed (`git checkout -- FILE`), or delete it: the \
    next sync then gives the folder a new id and syncs it as at a first sync, deleting nothing";

/// How to mend the folder's README when sync refuses it.
const README_FIX: &str = "delete it (sync writes its own)";

/// A small file of sync's own: `None` when absent; refused when it is a symbolic link,
/// not a regular file, too large or not UTF-8, saying how to `fix` it.
fn read_own(path: &Path, fix: &str) -> Result<Option<String>> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(fail!("cannot read {}: {e}", shown(path))),
    };
    let why = if meta.file_type().is_symlink() {
        "is a symbolic link"
    } else if !meta.is_file() {
        "is not a regular file"
    } else {
        // Read through the handle, bounded: what is read is what was checked, however the
        // entry changes meanwhile.
        let cannot = |e: io::Error| fail!("cannot read {}: {e}", shown(path));
        let f = fs::File::open(path).map_err(cannot)?;
        let mut bytes = Vec::new();
        if !f.metadata().map_err(cannot)?.is_file() {
            "is not a regular file"
        } else if f
            .take(MAX_OWN_FILE + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?
            > MAX_OWN_FILE as usize
        {
            "is larger than sync ever writes it"
        } else {
            match String::from_utf8(bytes) {
                Ok(text) => return Ok(Some(text)),
                Err(_) => "is not UTF-8",
            }
        }
    };
    Err(fail!(
        "{} {why}: review-mcp sync did not write it; {fix}; nothing was changed",
        shown(path)
    ))
}

/// What the folder's README is: absent, sync's current text, or sync's (an older text,
/// recognised by its marker line) to be rewritten. Any other README refuses the sync: it is
/// not sync's to replace (`sync .` at a project's root). In a folder synced before (`synced`:
/// it holds its id file) the README was sync's: another is an edit or a file pulled in its
/// place (merge-file leaves two items there to git), to restore or delete, not a reason to
/// sync another folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Readme {
    Absent,
    Current,
    Older,
}

pub(super) fn readme(folder: &Path, synced: bool) -> Result<Readme> {
    let path = folder.join(README_FILE);
    Ok(match read_own(&path, README_FIX)? {
        None => Readme::Absent,
        // With CRLF line endings (git's `core.autocrlf=true`) it is the same text.
        Some(text) if text == README || text.replace("\r\n", "\n") == README => Readme::Current,
        Some(text) if text.contains(README_MARKER) => Readme::Older,
        Some(_) if synced => {
            return Err(fail!(
                "{} is not the README review-mcp sync writes (an edit, or a file pulled in its \
                 place): restore it as committed (`git checkout -- FILE`), or {README_FIX}; \
                 nothing was changed",
                shown(&path)
            ));
        }
        Some(_) => {
            return Err(fail!(
                "{} is not the README review-mcp sync writes: sync keeps a folder of its own \
                 (records/, decisions/, its README.md), such as {}; nothing was changed",
                shown(&path),
                shown(&folder.join("review"))
            ));
        }
    })
}

/// Files a file manager writes into a folder it shows, without a leading dot: Windows
/// Explorer's folder settings and thumbnails, and the Finder's custom folder icon. A new
/// folder holding them is no project's.
const FILE_MANAGER_FILES: [&str; 3] = ["desktop.ini", "Thumbs.db", "Icon\r"];

/// Refuses a first sync of a folder that holds entries not sync's own: a name not starting
/// with `.` other than its subfolders and README (`sync .` at a project's root without a
/// README). Its `.gitattributes` (`* merge=review`) would have git merge every file there with
/// review-mcp's driver, which refuses what is not an item, and its files would mix with the
/// project's. Hidden entries (`.git`, `.gitignore`) are a repository's own, and allowed, as are
/// the files a file manager writes into any folder ([`FILE_MANAGER_FILES`]).
pub(super) fn refuse_foreign_entries(folder: &Path) -> Result<()> {
    let cannot = |e: io::Error| fail!("cannot read {}: {e}", shown(folder));
    let listing = match fs::read_dir(folder) {
        Ok(l) => l,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(cannot(e)),
    };
    let own = ItemKind::ALL
        .map(ItemKind::dir)
        .into_iter()
        .chain([super::history::HISTORY_DIR, README_FILE]);
    let own: Vec<&str> = own.collect();
    let mut foreign = Vec::new();
    for entry in listing {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let file_manager = FILE_MANAGER_FILES
            .iter()
            .any(|f| f.eq_ignore_ascii_case(&name));
        if name.starts_with('.') || own.contains(&name.as_str()) || file_manager {
            continue;
        }
        let dir = entry.file_type().is_ok_and(|t| t.is_dir());
        foreign.push(format!(
            "{}{}",
            crate::text::inline(&name, 100),
            if dir { "/" } else { "" }
        ));
    }
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    const SHOWN: usize = 5;
    let more = foreign.len().saturating_sub(SHOWN);
    foreign.truncate(SHOWN);
    let more = match more {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Err(fail!(
        "{} holds files that are not review-mcp sync's ({}{more}): sync keeps a folder of its \
         own (records/, decisions/, history/, its README.md, and a .gitattributes that has git \
         merge every file of the folder with review-mcp's driver), such as {}; nothing was \
         changed",
        shown(folder),
        foreign.join(", "),
        shown(&folder.join("review"))
    ))
}

/// Refuses an entry of the folder whose name differs from one of sync's own (`records`,
/// `decisions`, `history`, `README.md`, `.gitattributes`, `.review-mcp-folder`) only in
/// letter case (`Records/`, `README.MD`): on the case-insensitive file systems of macOS and
/// Windows the two are one name, and git checks one out over the other there, so a commit
/// adding it would change an item, the README or the merge rule in every such clone, under a
/// name its diff shows as a new file. Letters outside ASCII never fold to these names.
pub(super) fn refuse_case_variants(folder: &Path) -> Result<()> {
    let listing = match fs::read_dir(folder) {
        Ok(l) => l,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(fail!("cannot read {}: {e}", shown(folder))),
    };
    let own = ItemKind::ALL.map(ItemKind::dir).into_iter().chain([
        super::history::HISTORY_DIR,
        README_FILE,
        ATTRIBUTES_FILE,
        ID_FILE,
    ]);
    let own: Vec<&str> = own.collect();
    for entry in listing {
        let entry = entry.map_err(|e| fail!("cannot read {}: {e}", shown(folder)))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let Some(mine) = own
            .iter()
            .find(|o| **o != name && o.eq_ignore_ascii_case(name))
        else {
            continue;
        };
        return Err(fail!(
            "{}: its name differs from sync's own {mine} only in letter case, so on macOS and \
             Windows the two are one, and git checks one out over the other there (a commit \
             adding it changes the review in those clones under another name); nothing was \
             changed. Give it another name (`git mv {path} NEW`, a name not sync's: what it \
             holds is kept) or remove it (`git rm -r {path}`), commit (`git log -- {path}` \
             names who added it), then sync again",
            shown(&entry.path()),
            path = crate::text::shell_word(&entry.path().to_string_lossy())
        ));
    }
    Ok(())
}

/// Whether `id` is a folder id as sync writes them (and never a path: legacy keys are).
fn is_folder_id(id: &str) -> bool {
    (8..=64).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

/// The one line of `text` without its line ending (`\n`, or `\r\n` as git's
/// `core.autocrlf=true` checks the file out on Windows).
fn line_of(text: &str) -> &str {
    text.strip_suffix('\n')
        .map_or(text, |t| t.strip_suffix('\r').unwrap_or(t))
}

/// The folder's id from its id file, `None` before its first sync; a file that does not
/// hold one refuses the sync.
pub(super) fn folder_id(folder: &Path) -> Result<Option<String>> {
    let path = folder.join(ID_FILE);
    let Some(text) = read_own(&path, ID_FIX)? else {
        return Ok(None);
    };
    let id = line_of(&text);
    if !is_folder_id(id) {
        return Err(fail!(
            "{} does not hold a folder id as review-mcp sync writes it (8 to 64 letters, \
             digits, _ or -): {ID_FIX}; nothing was changed",
            shown(&path)
        ));
    }
    Ok(Some(id.to_string()))
}

/// The place a database at `database` (its resolved path) last synced a folder, from what
/// the file records ([`crate::store::SyncTx::last_place`]): the place, when the path recorded
/// with it is this database's: the same path, the same file by another name (a bind mount),
/// or a path where no file is any more (this database moved or renamed since). A place
/// recorded under another database that is still there is that database's (this file is a
/// copy of it) and counts for nothing.
pub(super) fn own_place(
    recorded: Option<crate::store::LastPlace>,
    database: &Path,
) -> Option<Vec<u8>> {
    let (path, by) = recorded?;
    let by = path_of(&by);
    let ours = by == database
        || fs::symlink_metadata(&by).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        || same_file(&by, database);
    ours.then_some(path)
}

/// Where a database last synced a folder id, met with where the folder is now.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// The same place (or the same directory by another name: a link, a bind mount), or the
    /// first sync of this id with this database.
    Same,
    /// The last place no longer holds this folder (gone, unmounted, holding no id file or
    /// another id): the folder moved from there.
    Moved(PathBuf),
    /// The last place is another directory that still holds this folder id: one of the two
    /// is a copy of the other (a second clone or `git worktree`, a copied folder).
    Copy(PathBuf),
}

/// Where the folder `folder` (a canonical path) holding the id `id` stands to `last`, the
/// path this database last synced that id at ([`path_bytes`]). Reads the id file at `last`
/// when it differs; one that cannot be read there is no longer this folder.
pub(super) fn place(folder: &Path, id: &str, last: Option<&[u8]>) -> Place {
    let Some(last) = last.filter(|l| *l != path_bytes(folder)) else {
        return Place::Same;
    };
    let old = path_of(last);
    if same_directory(&old, folder) {
        return Place::Same;
    }
    match folder_id(&old) {
        Ok(Some(held)) if held == id => Place::Copy(old),
        _ => Place::Moved(old),
    }
}

/// Whether `a` and `b` are one directory by whatever names (a link, a bind mount): the same
/// device and inode where the system tells them, else the same resolved path; `false` when
/// either is missing.
pub(super) fn same_directory(a: &Path, b: &Path) -> bool {
    a.is_dir() && same_file(a, b)
}

/// Whether `a` and `b` are one file or directory by whatever names: the same device and
/// inode where the system tells them, else the same resolved path; `false` when either is
/// missing.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
    }
}

/// A path as the bytes the database keeps for it (the system's own, so a name that is not
/// UTF-8 is kept exactly).
pub(super) fn path_bytes(path: &Path) -> Vec<u8> {
    path.as_os_str().as_encoded_bytes().to_vec()
}

/// The path [`path_bytes`] kept.
pub(super) fn path_of(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// `merge-file` on a file sync owns, changed on both sides: two folder ids (two clones each
/// ran a first sync before either pushed) or two READMEs of sync's own (two versions of
/// review-mcp). Either is right, so ours is kept: the database that synced under the other id
/// syncs the folder next as at a first sync (nothing deleted on either side), and the next
/// sync writes its own README. Returns what to report, `None` when the two are not both
/// such files.
pub(super) fn merge_own(ours: &[u8], theirs: &[u8]) -> Option<String> {
    let (ours, theirs) = (
        std::str::from_utf8(ours).ok()?,
        std::str::from_utf8(theirs).ok()?,
    );
    let id = |text: &str| is_folder_id(line_of(text));
    if id(ours) && id(theirs) {
        return Some(format!(
            "the folder's id ({ID_FILE}): both sides gave the folder one (each ran a first \
             sync); kept ours, and the database that synced under the other syncs the folder \
             next as at a first sync, losing nothing"
        ));
    }
    if ours.contains(README_MARKER) && theirs.contains(README_MARKER) {
        return Some(format!(
            "the folder's {README_FILE}, written by review-mcp sync on both sides: kept ours; \
             the next sync writes its own text"
        ));
    }
    None
}

/// A new random token (32 hex digits): a folder's id, or a run's name in the journal. From
/// the clock, the process, the thread and an address, hashed: unique, not secret.
pub(super) fn new_token(salt: &Path) -> String {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let here = 0u8;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut seed = Vec::new();
    seed.extend(nanos.to_le_bytes());
    seed.extend(std::process::id().to_le_bytes());
    seed.extend(COUNT.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    seed.extend(format!("{:?}{:p}", std::thread::current().id(), &here).as_bytes());
    seed.extend(salt.as_os_str().as_encoded_bytes());
    crate::cursor::hex16(&super::hash(&seed))
}

/// The name of sync's `n`th temporary file for the file `name` in this process:
/// `.<name>.<pid>-<n>.tmp`. The one place the pattern is written; [`temporary_target`] reads
/// it back, so what sync writes and what it cleans up cannot drift apart.
pub(super) fn temporary_name(name: &str, n: u64) -> String {
    format!(".{name}.{}-{n}.tmp", std::process::id())
}

/// The file a temporary of sync's own ([`temporary_name`]) was written for, `None` for any
/// other name (a user's `.notes.tmp` is not sync's).
fn temporary_target(file_name: &str) -> Option<&str> {
    let rest = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (rest, n) = rest.rsplit_once('-')?;
    let (name, pid) = rest.rsplit_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (!name.is_empty() && digits(pid) && digits(n)).then_some(name)
}

/// Temporaries an interrupted sync left ([`temporary_name`] of a file sync writes there: its
/// README or id file in the folder, a `.json` file in its subfolders): under the folder's
/// lock no sync is writing them. Nothing else is touched, whatever its name.
pub(super) fn stale_temporaries(folder: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let root = [(folder.to_path_buf(), true)];
    let subfolders = ItemKind::ALL
        .map(|k| folder.join(k.dir()))
        .into_iter()
        .chain([folder.join(super::history::HISTORY_DIR)])
        .map(|d| (d, false));
    for (dir, is_root) in root.into_iter().chain(subfolders) {
        let listing = match fs::read_dir(&dir) {
            Ok(l) => l,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => continue,
            Err(e) => return Err(fail!("cannot read {}: {e}", shown(&dir))),
        };
        for entry in listing {
            let entry = entry.map_err(|e| fail!("cannot read {}: {e}", shown(&dir)))?;
            let name = entry.file_name();
            let Some(target) = name.to_str().and_then(temporary_target) else {
                continue;
            };
            let ours = match is_root {
                true => target == README_FILE || target == ID_FILE || target == ATTRIBUTES_FILE,
                false => target.len() > ".json".len() && target.ends_with(".json"),
            };
            let kind = entry.file_type().ok();
            let plain = kind.is_some_and(|t| t.is_file() || t.is_symlink());
            if plain && ours {
                out.push(entry.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The step `REVIEW_MCP_SYNC_FAIL_AT` stops at, if set.
fn fail_at() -> Option<usize> {
    static AT: OnceLock<Option<usize>> = OnceLock::new();
    *AT.get_or_init(|| std::env::var(FAIL_AT).ok().and_then(|v| v.parse().ok()))
}

/// Whether the test hook is on (then files are written one at a time, so each run of a
/// scenario counts the same steps).
pub(super) fn hooked() -> bool {
    fail_at().is_some()
}

/// One step of a sync that leaves something durable behind (a file renamed or deleted, the
/// commit, …). With the test hook set to N, the Nth step ends the process at once.
pub(super) fn step(what: &str) {
    static STEPS: AtomicUsize = AtomicUsize::new(0);
    let Some(at) = fail_at() else { return };
    let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    if n == at {
        let _ = writeln!(
            io::stderr(),
            "review-mcp sync: stopped at step {n} ({what}) by the test hook {FAIL_AT}"
        );
        std::process::abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder id last synced elsewhere: a copy while that place holds the same id (the same
    /// directory by another name is the folder itself), moved when the place is gone or holds
    /// no id or another one.
    #[test]
    fn the_last_place_tells_a_copy_from_a_move() {
        let dir = std::env::temp_dir().join(format!("review-mcp-place-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let (here, there) = (dir.join("here"), dir.join("there"));
        fs::create_dir_all(&here).unwrap();
        fs::create_dir_all(&there).unwrap();
        let id = "0123456789abcdef";
        fs::write(here.join(ID_FILE), format!("{id}\n")).unwrap();
        let last = path_bytes(&there);
        assert_eq!(place(&here, id, None), Place::Same);
        assert_eq!(place(&here, id, Some(&path_bytes(&here))), Place::Same);
        let moved = Place::Moved(there.clone());
        assert_eq!(place(&here, id, Some(&last)), moved, "no id file there");
        fs::write(there.join(ID_FILE), "fedcba9876543210\n").unwrap();
        assert_eq!(place(&here, id, Some(&last)), moved, "another id there");
        fs::write(there.join(ID_FILE), format!("{id}\r\n")).unwrap();
        assert_eq!(place(&here, id, Some(&last)), Place::Copy(there.clone()));
        let gone = dir.join("gone");
        assert_eq!(
            place(&here, id, Some(&path_bytes(&gone))),
            Place::Moved(gone)
        );
        #[cfg(unix)]
        {
            let link = dir.join("link");
            std::os::unix::fs::symlink(&here, &link).unwrap();
            assert_eq!(place(&here, id, Some(&path_bytes(&link))), Place::Same);
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Regression: every `.X.tmp` in the folder was taken for a temporary of an interrupted
    /// sync and deleted (a user's `.notes.tmp`); only sync's own pattern is.
    #[test]
    fn temporaries_are_only_those_sync_names() {
        let name = temporary_name("rec_1.json", 7);
        assert_eq!(temporary_target(&name), Some("rec_1.json"));
        let name = temporary_name(ID_FILE, 0);
        assert_eq!(temporary_target(&name), Some(ID_FILE));
        assert_eq!(temporary_target(".README.md.12-0.tmp"), Some("README.md"));
        for other in [
            ".notes.tmp",
            ".rec_1.json.tmp",
            ".README.md.tmp",
            ".x.12.tmp",
            ".x.-1.tmp",
            ".x.1-.tmp",
            ".x.a1-2.tmp",
            "..1-2.tmp",
            "x.1-2.tmp",
            ".x.1-2.tmp~",
        ] {
            assert_eq!(temporary_target(other), None, "{other}");
        }
    }
}
