//! The revision of a file: the sha256 of its bytes, streamed. The one place this program reads
//! a CAD file (the `artifact_revision` tool and the `review-mcp revision` command); nothing
//! here parses geometry, and nothing else opens the file.
//!
//! Only a regular file is read. A FIFO, device, socket or directory is refused from its
//! `stat`, before it is opened for reading, and the file is opened non-blocking and checked
//! again with `fstat` on the open descriptor (so a FIFO swapped in between cannot make the
//! open or a read wait for a writer). At most the size `fstat` reported is read, and the file
//! must end there: a file that grows or shrinks while it is read (or a `/proc` file, which
//! reports size 0 and then yields bytes) is refused rather than hashed half-way or forever.

use std::fs::{File, FileType, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::DomainError;

/// The read buffer for hashing: fixed, so memory does not grow with the file.
const HASH_BUFFER: usize = 64 * 1024;

/// Why a file has no revision.
#[derive(Debug)]
pub enum HashError {
    /// Nothing at that path (or a dangling symlink).
    NotFound,
    /// Something other than a regular file: named by what it is.
    NotRegular(&'static str),
    /// The file did not end at the size it reported: it changed while it was read, or it is
    /// a special file (`/proc`) that reports one size and yields another.
    Changed,
    /// Any other failure to open or read it (permissions, a symlink loop, I/O).
    Io(io::Error),
}

impl std::fmt::Display for HashError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HashError::NotFound => f.write_str("no such file (check the path as this machine sees it)"),
            HashError::NotRegular(what) => write!(
                f,
                "is {what}, not a regular file: only a regular file's bytes are hashed"
            ),
            HashError::Changed => f.write_str(
                "it did not hold the size it reported (still being written, or a special file such as one in /proc): hash it again once it is complete",
            ),
            HashError::Io(e) => write!(f, "cannot read it: {e}"),
        }
    }
}

impl std::error::Error for HashError {}

impl From<io::Error> for HashError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::NotFound {
            HashError::NotFound
        } else {
            HashError::Io(e)
        }
    }
}

/// What a non-regular file is, in words; `None` for a regular file.
fn not_regular(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    Some(kind_name(&t).unwrap_or("not a file"))
}

/// The name of a kind of file that is not a regular one (a directory, a FIFO, a socket, a
/// device); `None` for any other.
pub fn kind_name(t: &FileType) -> Option<&'static str> {
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
    }
    None
}

/// `O_NONBLOCK | O_NOCTTY` where their values are known without the libc crate: opening a
/// FIFO then never waits for a writer. Elsewhere the `stat` check before the open stands alone.
#[cfg(unix)]
const OPEN_FLAGS: i32 = if cfg!(all(
    target_os = "linux",
    any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64"
    )
)) {
    0o4000 | 0o400
} else if cfg!(any(
    target_os = "macos",
    target_os = "ios",
    target_os = "freebsd"
)) {
    0x0004
} else {
    0
};

/// Opens `path` for reading without waiting: a FIFO (put at the path since it was looked at)
/// opens at once instead of waiting for a writer. The caller checks what it opened.
pub fn open_never_waiting(path: &Path) -> io::Result<File> {
    open_for_hashing(path)
}

fn open_for_hashing(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(OPEN_FLAGS);
    }
    options.open(path)
}

/// The revision of a regular file: `sha256:` + 64 lowercase hex digits of its bytes, read in
/// fixed chunks (constant memory whatever the size), refusing anything but a regular file
/// (see the module's rules).
pub fn file_revision(path: &Path) -> Result<String, HashError> {
    Ok(file_digest(path)?.0)
}

/// [`file_revision`] and the number of bytes hashed.
pub fn file_digest(path: &Path) -> Result<(String, u64), HashError> {
    // `stat` follows symlinks (a loop is an error here): what it names must be a regular file
    // before it is opened at all.
    let before = std::fs::metadata(path)?;
    if let Some(what) = not_regular(&before) {
        return Err(HashError::NotRegular(what));
    }
    let mut file = open_for_hashing(path)?;
    let meta = file.metadata()?;
    if let Some(what) = not_regular(&meta) {
        return Err(HashError::NotRegular(what));
    }
    let size = meta.len();
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; HASH_BUFFER];
    let mut read: u64 = 0;
    loop {
        // Ask for one byte more than the size at the end, to see that the file ends there.
        let want = usize::try_from(size.saturating_sub(read))
            .unwrap_or(usize::MAX)
            .clamp(1, HASH_BUFFER);
        let n = match file.read(buf.get_mut(..want).unwrap_or_default()) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Err(HashError::Changed),
            Err(e) => return Err(HashError::Io(e)),
        };
        if n == 0 {
            break;
        }
        read += n as u64;
        if read > size {
            return Err(HashError::Changed);
        }
        hasher.update(buf.get(..n).unwrap_or_default());
    }
    if read != size {
        return Err(HashError::Changed);
    }
    Ok((format!("sha256:{}", hex(&hasher.finalize())), size))
}

/// `bytes` in lowercase hex digits, two a byte (digests, ids).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first 16 bytes of the digest `h` makes, in hex (32 digits).
pub fn hex16(h: Sha256) -> String {
    let digest = h.finalize();
    hex(digest.get(..16).unwrap_or(&digest))
}

/// The file an `artifact_revision` argument names: an absolute path or a `file:` URI (of
/// this host). A relative path is refused: the server's working directory is not the
/// caller's, so the message says to give the absolute path.
pub fn path_argument(raw: &str) -> Result<PathBuf, DomainError> {
    if super::artifact::has_scheme(raw) {
        let url = url::Url::parse(raw).map_err(|e| {
            DomainError(format!(
                "path {raw:?} is not a valid URI ({e}): give an absolute path such as /work/part.step or a URI such as file:///work/part.step"
            ))
        })?;
        if url.scheme() != "file" {
            return Err(DomainError(format!(
                "path {raw:?} is a {}: URI: only a local file is read, named by an absolute path or a file: URI",
                url.scheme()
            )));
        }
        return url.to_file_path().map_err(|()| {
            DomainError(format!(
                "path {raw:?} names no file on this machine (a file: URI needs an empty or localhost host and an absolute path)"
            ))
        });
    }
    let path = Path::new(raw);
    if !path.is_absolute() {
        return Err(DomainError(format!(
            "path {raw:?} is relative, and the server's working directory is not yours: give the absolute path (e.g. /home/me/parts/{}) or a file: URI",
            path.file_name()
                .map_or_else(|| "part.step".into(), |n| n.to_string_lossy())
        )));
    }
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("review-mcp-hash-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn regular_file_digest_and_size() {
        let d = dir("regular");
        let p = d.join("abc.step");
        std::fs::write(&p, b"abc").unwrap();
        assert_eq!(
            file_digest(&p).unwrap(),
            (
                "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into(),
                3
            )
        );
        let empty = d.join("empty.step");
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(
            file_revision(&empty).unwrap(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn directory_missing_and_proc_files_are_refused() {
        let d = dir("refused");
        assert!(matches!(
            file_revision(&d),
            Err(HashError::NotRegular("a directory"))
        ));
        assert!(matches!(
            file_revision(&d.join("nope")),
            Err(HashError::NotFound)
        ));
        #[cfg(target_os = "linux")]
        {
            // Size 0 in `stat`, bytes when read: refused, never read to its (absent) end.
            assert!(matches!(
                file_revision(Path::new("/proc/self/status")),
                Err(HashError::Changed)
            ));
            assert!(matches!(
                file_revision(Path::new("/dev/zero")),
                Err(HashError::NotRegular("a device"))
            ));
        }
        #[cfg(unix)]
        {
            let a = d.join("loop-a");
            let b = d.join("loop-b");
            std::os::unix::fs::symlink(&b, &a).unwrap();
            std::os::unix::fs::symlink(&a, &b).unwrap();
            let e = file_revision(&a).unwrap_err();
            assert!(matches!(e, HashError::Io(_)), "{e:?}");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn path_argument_takes_absolute_paths_and_file_uris_only() {
        assert_eq!(
            path_argument("/w/part.step").unwrap(),
            PathBuf::from("/w/part.step")
        );
        assert_eq!(
            path_argument("file:///w/a%20b.step").unwrap(),
            PathBuf::from("/w/a b.step")
        );
        let rel = path_argument("parts/bracket.step").unwrap_err().0;
        assert!(rel.contains("absolute path"), "{rel}");
        assert!(rel.contains("bracket.step"), "{rel}");
        assert!(
            path_argument("https://x/p.step")
                .unwrap_err()
                .0
                .contains("https")
        );
        assert!(path_argument("file://elsewhere/p.step").is_err());
    }
}
