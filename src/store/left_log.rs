//! A log left beside the file: is it this file's?
//!
//! Between answers the server's `review.db-wal` is not empty: after each checkpoint the server
//! begins the emptied log with one commit of the file's first page, its change counter moved
//! (see [`Store::begin_next_log`](super::Store::begin_next_log)), so the next answered write
//! syncs once. A server stopped by a signal leaves that log beside the file. If `review.db` is
//! then replaced (a backup restored, a copy put over it) and the log is not, SQLite would apply
//! the old file's first page to the new file at its next open: its page count, free list and
//! schema table, which damages it. So before any open, a log that holds exactly one committed
//! frame, of page 1, must hold the file's own first page (apart from the counters SQLite
//! moves at every commit, and the schema version and application id the inspection judges);
//! otherwise the file is refused, untouched, with what to do; and an empty file (one deleted
//! and made again) is never given a log's commit. The begun commit may be followed by writes
//! already copied into the file (a reader's snapshot kept the checkpoint from restarting the
//! log; a server stopped during its checkpoint, or between it and beginning the next log): a
//! file whose first page is one of the log's committed first pages is this file. A log that
//! does not begin with a first-page commit alone is a server's writes not yet in the file: it
//! is applied, as always.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::StoreError;
use super::file::companion;

/// The log's header: magic, version, page size, checkpoint sequence, two salts, checksum.
const WAL_HEADER: usize = 32;
/// A frame's header: page number, size after commit, two salts, checksum.
const FRAME_HEADER: usize = 24;
/// The magic of a log whose checksums read words little-endian (`| 1`: big-endian).
const WAL_MAGIC: u32 = 0x377f_0682;

/// The bytes of page 1 whose change alters nothing of the file's structure: the change
/// counter (24..28) and the "version valid for" number with the SQLite version that wrote it
/// (92..100), which every commit of page 1 moves, and the schema version and application id
/// (60..64, 68..72), which the inspection judges once the log is applied (a log that only
/// changed them is a newer or another application's file, and is refused as that).
fn is_counter(offset: usize) -> bool {
    [24..28, 60..64, 68..72, 92..100]
        .iter()
        .any(|r| r.contains(&offset))
}

/// Refuses the file when its left log would give it another file's first page (see the
/// module). No log, an empty one, or one that does not begin with a first-page commit passes.
pub(super) fn check(path: &Path) -> Result<(), StoreError> {
    // SQLite can use only regular files beside the database (see `companions_are_files`).
    super::file::companions_are_files(path)?;
    let io = StoreError::io(path);
    let wal_path = companion(path, "-wal");
    // The file's first page first: a server committing meanwhile changes the log after it,
    // which the inspection's next look sees consistent again. An empty file (a new one, or
    // one created where a file was deleted) has none.
    let mut head = [0u8; 100];
    let page = match File::open(path) {
        Ok(mut f) => match f.read_exact(&mut head) {
            Ok(()) => {
                let Some(size) = page_size(&head) else {
                    return Ok(());
                };
                // The rest of the page; a short file leaves zeros.
                let mut page = head.to_vec();
                f.take((size as u64).saturating_sub(100))
                    .read_to_end(&mut page)
                    .map_err(io)?;
                page.resize(size, 0);
                Some(page)
            }
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
            Err(e) => return Err(io(e)),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO put there since the look above does not block the open.
        opts.custom_flags(0o4000);
    }
    let wal = match opts.open(&wal_path) {
        Ok(f) if f.metadata().is_ok_and(|m| m.is_file()) => f,
        Ok(_) => {
            return Err(StoreError::CompanionNotAFile {
                path: path.to_path_buf(),
                suffix: "-wal",
                kind: "not a regular file",
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    match foreign(wal, page.as_deref()).map_err(io)? {
        true => Err(StoreError::ForeignLog {
            path: path.to_path_buf(),
        }),
        false => Ok(()),
    }
}

/// Whether the log `wal` would give the file whose first page is `page` (`None`: an empty
/// file) another file's first page. An empty file has never been in WAL mode: any commit in
/// a log beside it is another file's (SQLite writes the file's header before its first log).
/// A log that begins with a commit of page 1 alone (the begun log) is this file's when the
/// file's first page is one of the log's committed first pages: the begun one (nothing
/// after it copied yet), or a later one (the writes after it already copied into the file,
/// the log kept because a reader's snapshot kept the checkpoint from restarting it, or its
/// server was stopped between the checkpoint and beginning the next log, or during the
/// checkpoint). Reads frame by frame, and stops as soon as the answer is known: for a log of
/// this file, at the first frame or at the first page of the write after it.
fn foreign(wal: impl Read, page: Option<&[u8]>) -> io::Result<bool> {
    let mut wal = io::BufReader::new(wal);
    let mut header = [0u8; WAL_HEADER];
    if wal.read_exact(&mut header).is_err() {
        return Ok(false);
    }
    let word = |b: &[u8], at: usize| -> u32 {
        b.get(at..at + 4)
            .map_or(0, |w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
    };
    let magic = word(&header, 0);
    let size = word(&header, 8) as usize;
    // Without a file, its page size is the log's.
    if magic & !1 != WAL_MAGIC || page.is_some_and(|p| p.len() != size) || size < 512 {
        return Ok(false);
    }
    let big_endian = magic & 1 == 1;
    let mut sum = checksum(big_endian, &header[..24], (0, 0));
    if sum != (word(&header, 24), word(&header, 28)) {
        return Ok(false);
    }
    let mut frame = vec![0u8; FRAME_HEADER + size];
    // Whether a first page like the file's is in the commit being read.
    let mut matched = false;
    // Whether the log begins with a commit of page 1 alone, not the file's.
    let mut begun = false;
    for n in 0usize.. {
        if wal.read_exact(&mut frame).is_err() {
            break;
        }
        let (head, data) = frame.split_at(FRAME_HEADER);
        if head[8..16] != header[16..24] {
            break;
        }
        sum = checksum(big_endian, &head[..8], sum);
        sum = checksum(big_endian, data, sum);
        if sum != (word(head, 16), word(head, 20)) {
            break;
        }
        let (pgno, commit) = (word(head, 0), word(head, 4) != 0);
        let Some(page) = page else {
            if commit {
                return Ok(true);
            }
            continue;
        };
        // Only a log that begins with a commit of page 1 alone is judged.
        if n == 0 && !(pgno == 1 && commit) {
            return Ok(false);
        }
        begun = true;
        matched |= pgno == 1 && !differs(data, page);
        if commit && matched {
            return Ok(false);
        }
    }
    // No committed first page of the begun log is the file's (without a file: no commit).
    Ok(begun)
}

/// The page size a database header gives (bytes 16..18; 1 means 65536).
fn page_size(head: &[u8; 100]) -> Option<usize> {
    match u16::from_be_bytes([head[16], head[17]]) {
        1 => Some(65_536),
        n if n >= 512 && n.is_power_of_two() => Some(usize::from(n)),
        _ => None,
    }
}

/// Whether a logged first page differs from the file's beyond the numbers of [`is_counter`].
fn differs(logged: &[u8], file: &[u8]) -> bool {
    logged.len() != file.len()
        || logged
            .iter()
            .zip(file)
            .enumerate()
            .any(|(i, (a, b))| a != b && !is_counter(i))
}

/// SQLite's log checksum (`walChecksumBytes`) over `data`, continuing from `(s1, s2)`.
fn checksum(big_endian: bool, data: &[u8], (mut s1, mut s2): (u32, u32)) -> (u32, u32) {
    for pair in data.chunks_exact(8) {
        let read = |b: &[u8]| {
            let w = [b[0], b[1], b[2], b[3]];
            if big_endian {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            }
        };
        s1 = s1.wrapping_add(read(&pair[..4])).wrapping_add(s2);
        s2 = s2.wrapping_add(read(&pair[4..])).wrapping_add(s1);
    }
    (s1, s2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log of the given frames (page number, commit size, page), as SQLite writes it.
    fn log(page_size: usize, frames: &[(u32, u32, Vec<u8>)]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&WAL_MAGIC.to_be_bytes());
        out.extend_from_slice(&3_007_000u32.to_be_bytes());
        out.extend_from_slice(&(page_size as u32).to_be_bytes());
        out.extend_from_slice(&0u32.to_be_bytes());
        out.extend_from_slice(&[7, 7, 7, 7, 9, 9, 9, 9]);
        let mut sum = checksum(false, &out, (0, 0));
        out.extend_from_slice(&sum.0.to_be_bytes());
        out.extend_from_slice(&sum.1.to_be_bytes());
        for (pgno, commit, data) in frames {
            let mut head = Vec::new();
            head.extend_from_slice(&pgno.to_be_bytes());
            head.extend_from_slice(&commit.to_be_bytes());
            sum = checksum(false, &head, sum);
            head.extend_from_slice(&[7, 7, 7, 7, 9, 9, 9, 9]);
            sum = checksum(false, data, sum);
            head.extend_from_slice(&sum.0.to_be_bytes());
            head.extend_from_slice(&sum.1.to_be_bytes());
            out.extend_from_slice(&head);
            out.extend_from_slice(data);
        }
        out
    }

    /// The file's first page (512 B) with its page count `pages`.
    fn first_page(pages: u8) -> Vec<u8> {
        let mut p = vec![1u8; 512];
        p[28..32].copy_from_slice(&[0, 0, 0, pages]);
        p
    }

    fn judged(wal: &[u8], page: Option<&[u8]>) -> bool {
        foreign(wal, page).unwrap()
    }

    #[test]
    fn a_begun_log_is_judged_by_the_files_first_page() {
        let (file, other) = (first_page(3), first_page(9));
        let mut begun = file.clone();
        begun[25] = 7;
        // The begun log of this file; of another file; beside an empty file.
        assert!(!judged(&log(512, &[(1, 3, begun.clone())]), Some(&file)));
        assert!(judged(&log(512, &[(1, 3, other.clone())]), Some(&file)));
        assert!(judged(&log(512, &[(1, 3, begun.clone())]), None));
        // Nothing committed; a damaged page; another page size; nothing at all.
        assert!(!judged(&log(512, &[(1, 0, other.clone())]), Some(&file)));
        assert!(!judged(&log(512, &[(1, 0, other.clone())]), None));
        let mut damaged = log(512, &[(1, 3, other.clone())]);
        damaged[WAL_HEADER + FRAME_HEADER + 9] ^= 1;
        assert!(!judged(&damaged, Some(&file)));
        assert!(!judged(&log(1024, &[(1, 3, vec![1; 1024])]), Some(&file)));
        assert!(!judged(&[], Some(&file)));
        // A log that does not begin with a first-page commit alone is a server's writes.
        assert!(!judged(
            &log(512, &[(1, 0, other.clone()), (2, 3, vec![0; 512])]),
            Some(&file)
        ));
    }

    #[test]
    fn writes_after_the_begun_commit_already_in_the_file_are_the_files() {
        let (before, after) = (first_page(3), first_page(4));
        // The begun commit, then a write that grew the file, already copied into it.
        let wal = log(
            512,
            &[
                (1, 3, before.clone()),
                (4, 0, vec![0; 512]),
                (1, 4, after.clone()),
            ],
        );
        assert!(!judged(&wal, Some(&before)));
        assert!(!judged(&wal, Some(&after)));
        assert!(judged(&wal, Some(&first_page(5))));
        // A first page in a write that never committed was never copied into any file.
        let torn = log(512, &[(1, 3, before.clone()), (1, 0, after.clone())]);
        assert!(judged(&torn, Some(&after)));
    }

    #[test]
    fn the_commit_counters_are_not_a_difference() {
        let file = vec![1u8; 512];
        let mut logged = file.clone();
        logged[25] = 9;
        logged[95] = 9;
        assert!(!differs(&logged, &file));
        logged[61] = 9;
        assert!(!differs(&logged, &file));
        logged[28] = 9;
        assert!(differs(&logged, &file));
    }
}
