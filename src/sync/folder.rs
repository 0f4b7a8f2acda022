//! The folder side of a sync: its files scanned, read and hashed on threads of their own, and
//! written atomically (temporary name, fsync, rename) in parallel batches. The folder is
//! untrusted input (a `git pull` away from anyone's commit): no symbolic link in it is
//! followed, for reading or writing; only regular files are read, each at most
//! [`MAX_FILE_BYTES`]; a path is shown with its control characters escaped.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::apply::WRITE_THREADS;
use super::line::{Schemas, is_id_text, parse_event, parse_item};
use super::merge::{resolve, resolve_knowing, side};
use super::run::Entries;
use super::sides::{carried_on_a_side, copy_on_a_side};
use super::{Hash, Item, ItemKind, MAX_REPORTED, Result, hash, owned, shown};
use crate::review::Record;
use crate::text::escape_controls;

/// Ids as `import` allows them that are also a file name on every system a teammate may
/// clone the folder on: not hidden (a leading `.`), no `:` (an NTFS stream: git for Windows
/// refuses to check such a file out), and not a Windows device name ([`is_windows_device`]).
pub(super) fn is_file_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && !id.contains(':')
        && is_id_text(id)
        && !is_windows_device(id)
}

/// Whether Windows takes a file named `id` plus an extension for a device: its part before
/// the first `.` is `CON`, `PRN`, `AUX`, `NUL`, or `COM` or `LPT` and one digit, in any case.
fn is_windows_device(id: &str) -> bool {
    let stem = id.split('.').next().unwrap_or(id).to_ascii_uppercase();
    match stem.as_bytes() {
        [b'C', b'O', b'N'] | [b'P', b'R', b'N'] | [b'A', b'U', b'X'] | [b'N', b'U', b'L'] => true,
        [b'C', b'O', b'M', d] | [b'L', b'P', b'T', d] => d.is_ascii_digit(),
        _ => false,
    }
}

/// How many threads hash the database's items.
pub(super) const HASH_THREADS: usize = 4;

/// The largest item file read (32 MiB): twice the 16 MiB of an import line, more than the
/// pretty-printed form of any item a line can hold. A larger file is refused unread.
pub(super) const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// The most a sync reads and holds of the folder's files in all (256 MiB): every history file
/// of an event the database lacks and every item file that changed (the others are checked
/// and let go). Each file is bounded by
/// [`MAX_FILE_BYTES`], but without a bound on their sum one commit of many large files (text
/// git compresses to almost nothing) would make every teammate's sync hold gigabytes, and
/// every later export carry them. A review of 10,000 items and their history is about 30 MB.
pub(super) const MAX_READ_BYTES: u64 = 256 * 1024 * 1024;

/// The refusal of a folder whose files to read come to more than [`MAX_READ_BYTES`].
pub(super) fn over_read_bytes(folder: &Path) -> String {
    format!(
        "{}: its new history files and changed item files come to more than {MAX_READ_BYTES} \
         bytes, more than one sync reads (a review of 10,000 items and their history is about \
         30 MB): large files were committed to it (`git log --stat` shows which commits added \
         them); remove those that do not belong",
        shown(folder)
    )
}

/// Why a folder file was not read: said after its name.
fn not_a_plain_file(meta: &fs::Metadata) -> Option<String> {
    let t = meta.file_type();
    if t.is_symlink() {
        return Some(
            "is a symbolic link, and sync never follows a link in the folder: replace it with \
             the file itself (or delete it)"
                .into(),
        );
    }
    if !t.is_file() {
        return Some(
            "is not a regular file (a directory, device, FIFO or socket): only regular files \
             are read; remove it"
                .into(),
        );
    }
    None
}

/// `O_NOFOLLOW | O_NONBLOCK` where their values are known (Linux on the common
/// architectures): opening a link then fails, and opening a FIFO never waits for a writer.
/// Elsewhere the checks of [`read_regular`] before and after opening do the same.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "x86", target_arch = "riscv64")
))]
const OPEN_FLAGS: i32 = 0o400000 | 0o4000;
#[cfg(all(target_os = "linux", any(target_arch = "aarch64", target_arch = "arm")))]
const OPEN_FLAGS: i32 = 0o100000 | 0o4000;
#[cfg(not(all(
    target_os = "linux",
    any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "riscv64",
        target_arch = "aarch64",
        target_arch = "arm"
    )
)))]
const OPEN_FLAGS: i32 = 0;

/// The bytes of `path`, read only if it is a regular file (never through a symbolic link,
/// never a device or FIFO) of at most `bound` bytes: checked before opening (the link
/// itself), on the opened handle (the same file, still regular), and while reading (at most
/// `bound + 1` bytes are read). `Err` says why, to be put after the file's name.
pub(super) fn read_regular(path: &Path, bound: u64) -> std::result::Result<Vec<u8>, String> {
    use std::io::Read;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let meta = fs::symlink_metadata(path).map_err(|e| format!("cannot be read: {e}"))?;
    if let Some(why) = not_a_plain_file(&meta) {
        return Err(why);
    }
    let too_big = |len: u64| format!("is {len} bytes long, over the {bound} byte limit of a file");
    if meta.len() > bound {
        return Err(too_big(meta.len()));
    }
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(OPEN_FLAGS)
        .open(path)
        .map_err(|e| format!("cannot be read: {e}"))?;
    let opened = file
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?;
    if !opened.file_type().is_file() || opened.dev() != meta.dev() || opened.ino() != meta.ino() {
        return Err("changed while it was opened; run the command again".into());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(bound + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read: {e}"))?;
    if bytes.len() as u64 > bound {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// An item file's bytes with CRLF line endings made LF: what sync wrote, once git checked it
/// out with `core.autocrlf=true` (Windows), holds the same item and is hashed as the same
/// file, so it is neither imported again nor rewritten. Only the line endings change: a raw
/// CR is never part of a JSON value (a string escapes it), so the item read is the same.
fn lf_endings(bytes: Vec<u8>) -> Vec<u8> {
    if !bytes.contains(&b'\r') {
        return bytes;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes.as_slice();
    while let Some((&b, tail)) = rest.split_first() {
        if !(b == b'\r' && tail.first() == Some(&b'\n')) {
            out.push(b);
        }
        rest = tail;
    }
    out
}

/// The hash of a file's bytes with CRLF line endings as LF ([`lf_endings`]), as a scan takes
/// an item file and a history file is met with the hash of its text.
pub(super) fn text_hash(bytes: &[u8]) -> Hash {
    match bytes.contains(&b'\r') {
        true => hash(&lf_endings(bytes.to_vec())),
        false => hash(bytes),
    }
}

/// The hash of an item file as a scan takes it (CRLF as LF), `None` when it is absent; a
/// file that cannot be read as an item file (a link, a directory, too large) is `Err`.
pub(super) fn file_hash(path: &Path) -> std::result::Result<Option<Hash>, String> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        _ => {}
    }
    read_regular(path, MAX_FILE_BYTES).map(|b| Some(hash(&lf_endings(b))))
}

/// Why a subfolder of sync's (`records`, `decisions`, `history`) could not be listed: one
/// that is not a directory says how to mend it.
pub(super) fn cannot_list(dir: &Path, e: &io::Error) -> super::Error {
    match e.kind() {
        io::ErrorKind::NotADirectory => fail!(
            "{} is not a directory: sync keeps its files there; move it away (or delete it) \
             and run sync again; nothing was changed",
            shown(dir)
        ),
        _ => fail!("cannot read {}: {e}", shown(dir)),
    }
}

/// Why an entry of a subfolder whose name is not its files' is refused: a symbolic link
/// (never followed), or `not` (what it is not).
pub(super) fn misnamed(path: &Path, link: bool, not: &str) -> String {
    match link {
        true => format!(
            "{}: is a symbolic link, and sync never follows a link in the folder: delete it",
            shown(path)
        ),
        false => format!("{}: {not}", shown(path)),
    }
}

/// Refuses a folder whose own entries are symbolic links: DIR itself as named, its
/// `records`, `decisions` and `README.md`. A link there would make sync read or write outside
/// the folder (a committed link is one `git pull` away). The path leading to DIR is the
/// user's and is followed, but for a link inside a git work tree (refused by the sync).
pub(super) fn refuse_links(dir: &Path) -> Result<()> {
    // Without a trailing `/`, which would make the look follow a link.
    let dir: PathBuf = dir.components().collect();
    let dir = dir.as_path();
    let names = std::iter::once(dir.to_path_buf()).chain(
        ItemKind::ALL
            .iter()
            .map(|k| dir.join(k.dir()))
            .chain([dir.join(super::history::HISTORY_DIR), dir.join("README.md")]),
    );
    for path in names {
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(fail!(
                    "{}: is a symbolic link, and sync never follows a link in the folder: \
                     replace it with the {} itself (or delete it); nothing was changed",
                    shown(&path),
                    if path.as_path() == dir || path.extension().is_none() {
                        "directory"
                    } else {
                        "file"
                    }
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// One subfolder read: each item file's id and hash, and the names that are no item file.
pub(super) struct Scan {
    kind: ItemKind,
    files: Vec<(String, Hash)>,
    /// The ids whose file is the version merge-file set aside ([`kept_of`]): their own is
    /// absent.
    kept: Vec<String>,
    /// The ids whose version set aside sits beside their own file: the two are read merged
    /// ([`merge_set_aside`]).
    beside: Vec<String>,
    problems: Vec<String>,
}

/// Reads and hashes every file of one kind's subfolder (CRLF line endings as LF:
/// [`lf_endings`]). Hidden files (a temporary file of an
/// interrupted sync, `.gitkeep`) are skipped, unless they are links. A symbolic link, a
/// device, a FIFO or a file over [`MAX_FILE_BYTES`] is a problem, named; none is followed or
/// read.
pub(super) fn scan(folder: &Path, kind: ItemKind) -> Result<Scan> {
    let mut out = Scan {
        kind,
        files: Vec::new(),
        kept: Vec::new(),
        beside: Vec::new(),
        problems: Vec::new(),
    };
    let dir = folder.join(kind.dir());
    let listing = match fs::read_dir(&dir) {
        Ok(l) => l,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(cannot_list(&dir, &e)),
    };
    for entry in listing {
        let entry = entry.map_err(|e| fail!("cannot read {}: {e}", shown(&dir)))?;
        let path = entry.path();
        let name = entry.file_name();
        let link = entry.file_type().is_ok_and(|t| t.is_symlink());
        let Some(name) = name.to_str() else {
            out.problems
                .push(format!("{}: not an item file (<id>.json)", shown(&path)));
            continue;
        };
        if let Some(why) = owned::nested_git_file(name) {
            out.problems.push(format!("{}: {why}", shown(&path)));
            continue;
        }
        if let Some(id) = kept_id(name) {
            out.kept.push(id.to_string());
            continue;
        }
        if name.starts_with('.') && !link {
            continue;
        }
        let Some(id) = name.strip_suffix(".json").filter(|id| is_file_id(id)) else {
            let not = format!("not an item file ({}/<id>.json)", kind.dir());
            out.problems.push(misnamed(&path, link, &not));
            continue;
        };
        match read_regular(&path, MAX_FILE_BYTES).map(lf_endings) {
            Ok(bytes) => out.files.push((id.to_string(), hash(&bytes))),
            Err(why) => out.problems.push(format!("{}: {why}", shown(&path))),
        }
    }
    // A version set aside stands for its item's file while that file is absent; beside it,
    // it is merged into it when the file is read.
    let own: std::collections::HashSet<&str> =
        out.files.iter().map(|(id, _)| id.as_str()).collect();
    let (beside, kept): (Vec<String>, Vec<String>) = std::mem::take(&mut out.kept)
        .into_iter()
        .partition(|id| own.contains(id.as_str()));
    drop(own);
    out.beside = beside;
    for id in kept {
        let path = kept_of(folder, kind, &id);
        match read_regular(&path, MAX_FILE_BYTES).map(lf_endings) {
            Ok(bytes) => {
                out.files.push((id.clone(), hash(&bytes)));
                out.kept.push(id);
            }
            Err(why) => out.problems.push(format!("{}: {why}", shown(&path))),
        }
    }
    Ok(out)
}

/// Adds the scanned files to `entries`, validating each file that differs from both its base
/// and the database (read again: only the changed few are kept in memory), within what is
/// left of [`MAX_READ_BYTES`] after `spent` (the history files'). A version set aside beside
/// its item's file is read merged with it: those merges are returned ([`SetAside`]).
pub(super) fn read_folder(
    folder: &Path,
    schemas: &Schemas,
    scanned: Vec<Result<Scan>>,
    mut problems: Vec<String>,
    mut spent: u64,
    entries: &mut Entries,
) -> Result<Vec<SetAside>> {
    let mut over = spent > MAX_READ_BYTES;
    let mut set_aside = Vec::new();
    for scan in scanned {
        let scan = scan?;
        problems.extend(scan.problems);
        let kind = scan.kind;
        for (id, h) in scan.files {
            let path = match scan.kept.contains(&id) {
                true => kept_of(folder, kind, &id),
                false => file_of(folder, kind, &id),
            };
            let e = entries.entry((kind, id.clone())).or_default();
            if scan.beside.contains(&id) {
                if over {
                    continue;
                }
                match merge_set_aside(folder, schemas, kind, &id) {
                    Ok((item, merged, read)) => {
                        spent = spent.saturating_add(read);
                        over = spent > MAX_READ_BYTES;
                        // The file as it is when the version set aside adds nothing to it.
                        let h = match merged.text {
                            Some(_) => item.hash(),
                            None => merged.read,
                        };
                        e.file = Some((h, (!e.knows(&h)).then(|| Box::new(item))));
                        set_aside.push(merged);
                    }
                    Err(why) => problems.push(why),
                }
                continue;
            }
            if e.knows(&h) {
                e.file = Some((h, None));
                continue;
            }
            if over {
                continue;
            }
            let bytes = match read_regular(&path, MAX_FILE_BYTES).map(lf_endings) {
                Ok(b) => b,
                Err(why) => {
                    problems.push(format!("{}: {why}", shown(&path)));
                    continue;
                }
            };
            spent = spent.saturating_add(bytes.len() as u64);
            if spent > MAX_READ_BYTES {
                over = true;
                continue;
            }
            // The file may have changed since it was hashed: the hash follows the bytes that
            // are validated and imported.
            match parse_file(&bytes, schemas, kind, &id) {
                Ok(item) => e.file = Some((hash(&bytes), Some(Box::new(item)))),
                Err(why) => problems.push(format!("{}: {}", shown(&path), escape_controls(&why))),
            }
        }
    }
    if over {
        problems.insert(0, over_read_bytes(folder));
    }
    if problems.is_empty() {
        return Ok(set_aside);
    }
    let n = problems.len();
    problems.truncate(MAX_REPORTED);
    if n > MAX_REPORTED {
        problems.push(format!("… and {} more bad files", n - MAX_REPORTED));
    }
    Err(fail!(
        "the folder was refused and nothing was changed:\n  {}\nfix or remove each file named \
         (`git log -p -- FILE` shows who changed it, `git checkout -- FILE` restores the \
         committed one; a file a newer review-mcp wrote needs that version), then run sync \
         again",
        problems.join("\n  ")
    ))
}

/// A version merge-file set aside ([`kept_of`]) that met its item's file: a later commit of
/// a replay (`git pull --rebase`), a pull or a hand brought the file back, or `git merge
/// --abort` restored it. The two are read as one version of the item, merged as two versions
/// without a base are ([`resolve`]: the later kept, the engineer's verdicts carried, as the
/// driver merges two versions set aside), which the sync takes for the folder's; just before
/// its commit it writes the merged text to the item's file and deletes the version set aside.
#[derive(Debug)]
pub(super) struct SetAside {
    /// The version set aside.
    pub(super) kept: PathBuf,
    /// The item's file, and its hash as read (CRLF as LF); the version set aside's.
    pub(super) own: PathBuf,
    pub(super) read: Hash,
    pub(super) kept_read: Hash,
    /// The merged text, when the version set aside holds something the file lacks (a file
    /// that holds all of it is read as it is, whatever its layout: the version set aside is
    /// stale), and what the merge says of the two.
    pub(super) text: Option<String>,
    pub(super) said: Option<String>,
}

impl SetAside {
    /// The file of the two that no longer holds what was read, if any.
    pub(super) fn changed(&self) -> Option<&Path> {
        [(&self.own, self.read), (&self.kept, self.kept_read)]
            .into_iter()
            .find(|(path, read)| file_hash(path) != Ok(Some(*read)))
            .map(|(path, _)| path.as_path())
    }
}

/// The item the version set aside as `id` and its file make ([`SetAside`]), the merge, and
/// how many bytes were read. `Err` names the file that is not read, or the version set aside
/// that is not merged (not a regular file, not an item, another item), and what to do.
fn merge_set_aside(
    folder: &Path,
    schemas: &Schemas,
    kind: ItemKind,
    id: &str,
) -> std::result::Result<(Item, SetAside, u64), String> {
    let (own, kept) = (file_of(folder, kind, id), kept_of(folder, kind, id));
    let read = |path: &Path| {
        let bytes = read_regular(path, MAX_FILE_BYTES)
            .map(lf_endings)
            .map_err(|why| format!("{}: {why}", shown(path)))?;
        match parse_file(&bytes, schemas, kind, id) {
            Ok(item) => Ok((bytes, item)),
            Err(why) => Err(format!("{}: {}", shown(path), escape_controls(&why))),
        }
    };
    let (bytes, file) = read(&own)?;
    let not_merged = |why: String| {
        format!(
            "{why} (a version merge-file set aside beside its item's file {}, which sync \
             merges into that file: not merged; move it out of the folder to look at it, or \
             delete it)",
            shown(&own)
        )
    };
    let (kept_bytes, earlier) = read(&kept).map_err(not_merged)?;
    let merged = resolve(None, side(&file, "file's"), side(&earlier, "set-aside"))
        .map_err(|why| not_merged(format!("{}: {}", shown(&kept), escape_controls(&why))))?;
    let read = (bytes.len() + kept_bytes.len()) as u64;
    let set_aside = SetAside {
        read: hash(&bytes),
        kept_read: hash(&kept_bytes),
        text: (merged.item != file).then(|| merged.item.text()),
        said: merged.conflict,
        kept,
        own,
    };
    Ok((merged.item, set_aside, read))
}

/// One item file, validated as an import line is, whose kind and id must match its place.
pub(super) fn parse_file(
    bytes: &[u8],
    schemas: &Schemas,
    kind: ItemKind,
    id: &str,
) -> std::result::Result<Item, String> {
    if has_conflict_markers(bytes) {
        return Err(conflict_markers());
    }
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

/// What a file holding git's conflict markers is, and how to settle it: git stopped on it
/// because this clone has no merge driver, and `git checkout -m` merges it again with one.
fn conflict_markers() -> String {
    let setup = super::git::driver_setup();
    format!(
        "holds git's conflict markers (<<<<<<< … >>>>>>>): git stopped on a change both sides \
         made, without review-mcp's merge driver in this clone. Set it up ({setup}; the \
         folder's .gitattributes, written by sync, says `* merge=review`), then `git checkout \
         -m -- FILE` merges it again with the driver (markers already committed: take the \
         file from a commit before them, `git log -p -- FILE`)"
    )
}

/// Whether `bytes` hold a line git writes around a conflict: `<<<<<<< ` and `>>>>>>> `
/// (sync's own files never start a line with either: every line is JSON, indented).
fn has_conflict_markers(bytes: &[u8]) -> bool {
    let starts = |m: &[u8]| bytes.split(|&b| b == b'\n').any(|l| l.starts_with(m));
    starts(b"<<<<<<< ") && starts(b">>>>>>> ")
}

pub(super) fn file_of(folder: &Path, kind: ItemKind, id: &str) -> PathBuf {
    folder.join(kind.dir()).join(format!("{id}.json"))
}

/// Writes `text` to `path` through a temporary file beside it, fsynced, renamed into place.
pub(super) fn write_atomic(path: &Path, text: &str) -> Result<()> {
    replace_file(path, text).map_err(|e| {
        if e.kind() == io::ErrorKind::FileTooLarge {
            // EFBIG (SIGXFSZ is ignored): what limit, and how to raise it.
            let (why, fix) = crate::store::file::too_large();
            fail!(
                "cannot write {}: {e}: it would be {why}; nothing was written there. {fix} and run the command again",
                shown(path)
            )
        } else {
            fail!("cannot write {}: {e}", shown(path))
        }
    })
}

/// Replaces `path` with a regular file holding `text`: written to a temporary file beside it
/// created exclusively (`O_CREAT | O_EXCL`, which never follows a link; a unique name per
/// process and call, so nothing planted at a name is ever written through and two writers
/// never share one), fsynced, then renamed over `path` (a rename replaces a link itself,
/// never its target).
fn replace_file(path: &Path, text: &str) -> io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| io::Error::other("no file name"))?;
    let tmp = path.with_file_name(owned::temporary_name(
        name,
        NEXT.fetch_add(1, Ordering::Relaxed),
    ));
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)?;
    let written = (|| -> io::Result<()> {
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        owned::step("temporary written");
        fs::rename(&tmp, path)?;
        owned::step("file renamed into place");
        Ok(())
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// Flushes a directory's entries to disk; a failure is only logged (not every file system
/// can).
pub(super) fn fsync_dir(dir: &Path) {
    if let Err(e) = fs::File::open(dir).and_then(|f| f.sync_all()) {
        log::debug!("fsync of {}: {e}", dir.display());
    }
}

/// Writes files, each atomically, on [`WRITE_THREADS`] threads.
pub(super) fn write_all(batch: &[(PathBuf, String)]) -> Result<()> {
    // Under the test hook, one at a time: each run of a scenario takes the same steps.
    let threads = if owned::hooked() { 1 } else { WRITE_THREADS };
    on_threads(batch, threads, |part| {
        part.iter()
            .try_for_each(|(path, text)| write_atomic(path, text))
    })
    .into_iter()
    .try_for_each(|w| w.unwrap_or_else(|| Err(fail!("a file writer failed"))))
}

/// `f` of each of (at most) `threads` parts of `items`, each on a thread of its own, in
/// order: `None` for a part whose thread panicked.
pub(super) fn on_threads<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<Option<R>> {
    let chunk = items.len().div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || f(part)))
            .collect();
        parts.into_iter().map(|h| h.join().ok()).collect()
    })
}

pub(super) fn remove_file(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(fail!("cannot delete {}: {e}", shown(path))),
    }
}

/// `review-mcp merge-file BASE OURS THEIRS [PATH]`, git's merge driver of a synced folder: the three
/// versions of one item file read as sync reads the folder's files (regular files only, never
/// through a link, each at most [`MAX_FILE_BYTES`]), resolved by [`resolve_knowing`] (a
/// superseded copy read from either side's tree, [`copy_on_a_side`]) and written over
/// OURS atomically. Returns the conflict to report, if any. A file that does not parse as an
/// item (conflict markers, another file's text) is refused and OURS left untouched, for git to
/// merge by hand. An empty BASE (both sides added the file) is a merge without a base. A
/// history file (an event, named by its content) is never merged: the same bytes on both
/// sides are kept, two different ones refused. The folder's id file and README, sync's own,
/// keep ours (`owned::merge_own`).
///
/// `name` is the file's path in the work tree (git's `%P`): messages name it and the side
/// (`ours`, `theirs`, `base`) instead of git's temporary files, and a conflict is named with
/// it. Without it (a driver line of `%O %A %B` only) they name the three files given.
pub fn merge_files(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    name: Option<&Path>,
) -> Result<Option<String>> {
    let schemas = Schemas::from_tools()?;
    let label = |path: &Path, side: &str| match name {
        Some(n) => format!("{} ({side})", shown(n)),
        None => shown(path),
    };
    let read = |path: &Path, side: &str| -> Result<Vec<u8>> {
        read_regular(path, MAX_FILE_BYTES).map_err(|why| fail!("{}: {why}", label(path, side)))
    };
    let not_an_item = |path: &Path, side: &str, e: String| {
        fail!(
            "{}: {}; the file is left to git to merge by hand",
            label(path, side),
            escape_controls(&e)
        )
    };
    let named = |what: String| match name {
        Some(n) => format!("{}: {what}", shown(n)),
        None => what,
    };
    let base_bytes = read(base, "base")?;
    let ours_bytes = read(ours, "ours")?;
    let theirs_bytes = read(theirs, "theirs")?;
    // A history file (`history/<event id>.json`) is named by its content: both sides added the
    // same event, or one of them was edited. Never merged: the same bytes are kept, anything
    // else is refused.
    if let Ok(event) = parse_event(&ours_bytes) {
        if theirs_bytes == ours_bytes {
            return Ok(None);
        }
        return Err(fail!(
            "{}: history event {} differs between the two sides; an event file is never \
             changed or merged: keep the side whose file is the event as written (review-mcp \
             sync refuses an edited one); the file is left to git to merge by hand",
            name.map_or_else(|| shown(ours), shown),
            event.id
        ));
    }
    // The folder's id file or README (under the same attribute as the items): never merged,
    // either side is right. Not an item whose text quotes the README's words: the two
    // versions of an item are merged, whatever their notes say.
    let (ours_read, theirs_read) = (
        parse_item(&ours_bytes, &schemas),
        parse_item(&theirs_bytes, &schemas),
    );
    if ours_read.is_err()
        && theirs_read.is_err()
        && let Some(kept) = owned::merge_own(&ours_bytes, &theirs_bytes)
    {
        return Ok(Some(named(kept)));
    }
    let base_item = if base_bytes.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        let read = parse_item(&base_bytes, &schemas);
        Some(read.map_err(|e| not_an_item(base, "base", e))?)
    };
    let ours_item = ours_read.map_err(|e| not_an_item(ours, "ours", e))?;
    let theirs_item = theirs_read.map_err(|e| not_an_item(theirs, "theirs", e))?;
    if let Some(n) = name
        && let Some(said) = unpair(
            n,
            ours,
            base_item.as_ref(),
            &ours_item,
            &theirs_item,
            &schemas,
        )?
    {
        return Ok(Some(named(said)));
    }
    // A statement at a revision a carry of the feature moved it on from: the carry's copy
    // there is told by either side's tree (the other side's file is not written yet).
    let copied = |stayed: &Record| name.is_some_and(|n| copy_on_a_side(n, stayed, &schemas));
    // A chain of carries to files renamed per revision: each link its copy on either side.
    let carried_on = |revision: &str| {
        let id = ours_item.id();
        name.and_then(|n| carried_on_a_side(n, id, revision, &schemas))
    };
    let resolved = resolve_knowing(
        base_item.as_ref(),
        side(&ours_item, "ours"),
        side(&theirs_item, "theirs"),
        &copied,
        &carried_on,
    )
    .map_err(|e| {
        fail!(
            "{}; the file is left to git to merge by hand",
            named(escape_controls(&e).into_owned())
        )
    })?;
    write_atomic(ours, &resolved.item.text())?;
    // The driver writes this one file: a statement a carry stood against is kept at its
    // revision by the next sync of the database that made it.
    let later = match resolved.stayed {
        Some(_) => {
            " (by the next sync of the database that made it: merge-file writes this file only)"
        }
        None => "",
    };
    Ok(resolved.conflict.map(|c| named(format!("{c}{later}"))))
}

/// Where merge-file sets an item's version aside (`records/.<id>.json.kept`) when git
/// is about to delete the item's own file; the next sync takes it as the item's file, or
/// merges it into that file when the file is back ([`SetAside`]).
pub(super) fn kept_of(folder: &Path, kind: ItemKind, id: &str) -> PathBuf {
    folder.join(kind.dir()).join(kept_name(id))
}

fn kept_name(id: &str) -> String {
    format!(".{id}.json{KEPT}")
}

/// The suffix of a version merge-file set aside ([`kept_of`]).
const KEPT: &str = ".kept";

/// The id of a file name [`kept_of`] gives, `None` for any other name.
pub(super) fn kept_id(file_name: &str) -> Option<&str> {
    let id = file_name
        .strip_prefix('.')?
        .strip_suffix(KEPT)?
        .strip_suffix(".json")?;
    is_file_id(id).then_some(id)
}

/// The versions merge-file set aside ([`kept_of`]) whose item has no file of its own, each
/// place and the item's file it stands for: a sync takes it as that file, and puts it there
/// once the database is committed. One beside its item's file is merged into it
/// ([`SetAside`]).
pub(super) fn kept_versions(folder: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for kind in ItemKind::ALL {
        let Ok(listing) = fs::read_dir(folder.join(kind.dir())) else {
            continue;
        };
        for entry in listing.flatten() {
            let name = entry.file_name();
            if let Some(id) = name.to_str().and_then(kept_id) {
                let own = file_of(folder, kind, id);
                if fs::symlink_metadata(&own).is_err() {
                    out.push((entry.path(), own));
                }
            }
        }
    }
    out.sort();
    out
}

/// Two different items handed to the driver: git paired one item's file, deleted on one
/// side, with another item's file added on that side (two ids of one feature, a feature
/// forgotten and stated again; under a low rename threshold, a record and a decision, across
/// their folders) as a rename, and merged the other side's edit of the first into the
/// second's file. Neither is a version of the other: the item the path `n` names stays there
/// (written over `ours`), and the other is given back its own file, in its own kind's folder
/// of the work tree (git runs the driver at its top, `n` relative to it), so that the next sync
/// sees both and a change beats a deletion as ever. When that file is there (it is ours:
/// git deletes it once the driver is done), or while git replays commits (a rebase: a later
/// commit may bring that file, and would stop on an untracked one), the version is set aside
/// ([`kept_of`]), which the next sync takes as the item's file. `None` (left to git) when
/// the path names neither item or no folder of the work tree is there (`git merge-tree`).
///
/// The rename's destination is the item that is not the base's (`base`, the rename's
/// source): the side that kept the base's item edited it, the other renamed it away. That
/// item stays, whichever `n` names: when the other side also added the destination's file
/// (the same item, imported there), git 2.47 gives the source's path as `%P` but stores the
/// result in the destination's file.
fn unpair(
    n: &Path,
    ours: &Path,
    base: Option<&Item>,
    ours_item: &Item,
    theirs_item: &Item,
    schemas: &Schemas,
) -> Result<Option<String>> {
    let same = |a: &Item, b: &Item| a.kind() == b.kind() && a.id() == b.id();
    if same(ours_item, theirs_item) {
        return Ok(None);
    }
    let stem = n
        .file_name()
        .and_then(|f| f.to_str())
        .and_then(|f| f.strip_suffix(".json"));
    // The path's folder of items (`records`, `decisions`) and the synced folder holding it.
    let Some((at, folder)) = n.parent().and_then(|d| Some((d, d.parent()?))) else {
        return Ok(None);
    };
    let at = at.file_name().and_then(|f| f.to_str());
    let names = |item: &Item| stem == Some(item.id()) && at == Some(item.kind().dir());
    let source = |item: &Item| base.is_some_and(|b| same(b, item));
    // A base that is neither (three items): both sides renamed it away, each to its own file
    // (git's rename/rename), and git writes the driver's result to both files: left to git.
    if base.is_some_and(|b| !same(b, ours_item) && !same(b, theirs_item)) {
        return Ok(None);
    }
    let (stay, other) = match () {
        _ if !names(ours_item) && !names(theirs_item) => return Ok(None),
        _ if source(theirs_item) => (ours_item, theirs_item),
        _ if source(ours_item) => (theirs_item, ours_item),
        _ if names(ours_item) => (ours_item, theirs_item),
        _ => (theirs_item, ours_item),
    };
    // Two kinds (git pairs files across folders too): the other goes back to its own folder,
    // made again when git removed it with its last file (the other's, renamed away).
    let dir = &folder.join(other.kind().dir());
    let is_dir = |d: &Path| fs::symlink_metadata(d).is_ok_and(|m| m.file_type().is_dir());
    let top = match folder.as_os_str().is_empty() {
        true => Path::new("."),
        false => folder,
    };
    if !is_dir(dir) && is_dir(top) && fs::symlink_metadata(dir).is_err() {
        let _ = fs::create_dir(dir);
    }
    if !is_dir(dir) || !is_file_id(other.id()) {
        return Ok(None);
    }
    let own = dir.join(format!("{}.json", other.id()));
    let absent = fs::symlink_metadata(&own).is_err_and(|e| e.kind() == io::ErrorKind::NotFound);
    // While git replays commits (`git pull --rebase`), a later one may add that very file:
    // written there now, untracked, it would stop that commit ("untracked working tree files
    // would be overwritten"), leaving the user mid-rebase. Set aside, it is in no commit's way.
    let replaying = super::git::replaying(dir);
    let put = match absent && !replaying {
        true => own.clone(),
        false => dir.join(kept_name(other.id())),
    };
    // A version of the item already set aside there (an earlier commit of the same replay,
    // or a merge not yet synced) and this one merge as two versions of one item do in its
    // file: the later is kept. Written over, the last one written would win, even the older
    // (commits reordered by `git rebase -i`, picked later edit first).
    let (text, merged) = match put == own {
        true => (other.text(), false),
        false => set_aside_with(&put, other, schemas),
    };
    write_atomic(&put, &text)?;
    write_atomic(ours, &stay.text())?;
    let (k, o) = (other.kind().as_str(), other.id());
    let (ks, s) = (stay.kind().as_str(), stay.id());
    let given = match (absent, replaying) {
        (true, false) => format!("written back to its own file {} (commit it)", shown(&own)),
        (true, true) => format!(
            "set aside as {} (git is replaying commits, and a later one may add {}: once git \
             is done, the next review-mcp sync puts it in place, or merges it into that \
             commit's version, the later kept)",
            shown(&put),
            shown(&own)
        ),
        (false, true) => format!(
            "set aside as {} (git deletes {} as it replays this commit, and a later one may \
             bring it back: once git is done, the next review-mcp sync puts it back, or \
             merges it into the version brought back, the later kept)",
            shown(&put),
            shown(&own)
        ),
        (false, false) => format!(
            "set aside as {} (git deletes {} after the merge; the next review-mcp sync puts \
             it back, or merges it into that file if it is back, the later kept)",
            shown(&put),
            shown(&own)
        ),
    };
    let merged = match merged {
        true => "; merged with the version of it set aside there before, the later kept",
        false => "",
    };
    Ok(Some(format!(
        "git paired {k} {o}'s file with {ks} {s}'s, another item, as a rename: {s} is kept \
         here, and {o} {given}{merged}"
    )))
}

/// The text to set `other` aside as at `put`, and whether it merged with a version of the
/// same item already there ([`resolve`] without a base: the later kept, the engineer's
/// verdicts carried). Anything else at `put` (nothing, a link, not an item, another item:
/// none a version merge-file wrote) is written over.
fn set_aside_with(put: &Path, other: &Item, schemas: &Schemas) -> (String, bool) {
    let earlier = read_regular(put, MAX_FILE_BYTES)
        .ok()
        .and_then(|bytes| parse_item(&lf_endings(bytes), schemas).ok())
        .filter(|e| e.kind() == other.kind() && e.id() == other.id());
    let Some(earlier) = earlier else {
        return (other.text(), false);
    };
    match resolve(None, side(&earlier, "set aside"), side(other, "replayed")) {
        Ok(r) => (r.item.text(), r.item != *other),
        Err(_) => (other.text(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_ids_are_file_names_on_every_system() {
        for good in [
            "rec_3f9a0c1b2d4e5f60",
            "a",
            "CONSOLE",
            "nul_x",
            "com10",
            "x.con",
            "x.",
        ] {
            assert!(is_file_id(good), "{good}");
        }
        for bad in [
            "", ".x", "a:b", "CON", "con", "nul.x", "Aux.a.b", "PRN", "COM1", "lpt9", "LPT0.x",
            "a/b", "a b",
        ] {
            assert!(!is_file_id(bad), "{bad}");
        }
    }

    #[test]
    fn only_a_set_aside_version_s_name_gives_its_id() {
        assert_eq!(
            kept_id(&kept_name("rec_3f9a0c1b2d4e5f60")),
            Some("rec_3f9a0c1b2d4e5f60")
        );
        assert_eq!(kept_id(".x.json.kept"), Some("x"));
        for other in [
            "rec_1.json",
            ".rec_1.json",
            "rec_1.json.kept",
            ".rec_1.kept",
            "..json.kept",
            ".CON.json.kept",
            ".a:b.json.kept",
            ".rec_1.json.1-2.tmp",
        ] {
            assert_eq!(kept_id(other), None, "{other}");
        }
    }

    #[test]
    fn only_crlf_line_endings_become_lf() {
        let lf = |s: &str| String::from_utf8(lf_endings(s.as_bytes().to_vec())).unwrap_or_default();
        assert_eq!(lf("{\r\n  \"a\": 1\r\n}\r\n"), "{\n  \"a\": 1\n}\n");
        assert_eq!(lf("{\n  \"a\": 1\r\n}\n"), "{\n  \"a\": 1\n}\n");
        assert_eq!(lf("a\rb\r\r\n"), "a\rb\r\n");
        assert_eq!(lf("{}\n"), "{}\n");
    }
}
