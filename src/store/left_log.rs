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
//! and made again) is never given a log's commit. A log with more frames is a server's writes
//! not yet in the file (a server stopped during its checkpoint, or one serving now): it is
//! applied, as always.

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
/// module). No log, an empty one, or one with more than a first-page commit passes.
pub(super) fn check(path: &Path) -> Result<(), StoreError> {
    let io = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
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
                let mut page = head.to_vec();
                page.resize(size, 0);
                read_full(&mut f, &mut page[100..]).map_err(io)?;
                Some(page)
            }
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
            Err(e) => return Err(io(e)),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    let mut wal = match File::open(&wal_path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    // The header, the first frame, and the second frame's header and page (to tell a log of
    // one commit from a longer one): never more. Without a file, its page size is the log's.
    let mut header = [0u8; WAL_HEADER];
    if wal.read_exact(&mut header).is_err() {
        return Ok(());
    }
    let size = page.as_ref().map_or_else(
        || u32::from_be_bytes([header[8], header[9], header[10], header[11]]) as usize,
        Vec::len,
    );
    let mut bytes = header.to_vec();
    (&mut wal)
        .take((2 * (FRAME_HEADER + size)) as u64)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    let frames = committed_frames(&bytes, size);
    let foreign = match (&page, frames.as_slice()) {
        // An empty file has never been in WAL mode: any commit in a log beside it is another
        // file's (SQLite writes the file's header before its first log).
        (None, [_, ..]) => true,
        (Some(page), [(1, logged)]) => differs(logged, page),
        _ => false,
    };
    match foreign {
        true => Err(StoreError::ForeignLog {
            path: path.to_path_buf(),
        }),
        false => Ok(()),
    }
}

/// Reads until `buf` is full or the file ends (a short file leaves zeros).
fn read_full(f: &mut File, buf: &mut [u8]) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match f.read(&mut buf[done..])? {
            0 => break,
            n => done += n,
        }
    }
    Ok(())
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

/// The valid frames at the start of a log of `page_size` pages, up to the last that commits
/// (at most two are read): `(page number, page)` each. Empty for an empty, invalid or
/// uncommitted log, or one of another page size.
fn committed_frames(bytes: &[u8], page_size: usize) -> Vec<(u32, &[u8])> {
    let word = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (Some(magic), Some(size), Some(header)) = (word(0), word(8), bytes.get(..WAL_HEADER))
    else {
        return Vec::new();
    };
    if magic & !1 != WAL_MAGIC || size as usize != page_size {
        return Vec::new();
    }
    let big_endian = magic & 1 == 1;
    let mut sum = checksum(big_endian, &header[..24], (0, 0));
    if Some(sum) != word(24).zip(word(28)) {
        return Vec::new();
    }
    let mut valid = Vec::new();
    let mut committed = 0;
    for n in 0..2 {
        let at = WAL_HEADER + n * (FRAME_HEADER + page_size);
        let Some(frame) = bytes.get(at..at + FRAME_HEADER + page_size) else {
            break;
        };
        let (head, data) = frame.split_at(FRAME_HEADER);
        if head[8..16] != header[16..24] {
            break;
        }
        sum = checksum(big_endian, &head[..8], sum);
        sum = checksum(big_endian, data, sum);
        if Some(sum) != word(at + 16).zip(word(at + 20)) {
            break;
        }
        valid.push((word(at).unwrap_or(0), data));
        if word(at + 4).is_some_and(|c| c != 0) {
            committed = valid.len();
        }
    }
    valid.truncate(committed);
    valid
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

    #[test]
    fn the_committed_frames_of_a_log_are_read_as_sqlite_reads_them() {
        let page = vec![5u8; 512];
        let other = vec![6u8; 512];
        let one = log(512, &[(1, 3, page.clone())]);
        assert_eq!(committed_frames(&one, 512), vec![(1, &page[..])]);
        // Two frames committed together, then a frame that does not commit.
        assert_eq!(
            committed_frames(
                &log(512, &[(1, 0, page.clone()), (2, 3, other.clone())]),
                512
            ),
            vec![(1, &page[..]), (2, &other[..])]
        );
        assert_eq!(
            committed_frames(
                &log(512, &[(1, 3, page.clone()), (2, 0, other.clone())]),
                512
            ),
            vec![(1, &page[..])]
        );
        assert!(committed_frames(&log(512, &[(1, 0, page.clone())]), 512).is_empty());
        // A damaged page, another page size, nothing.
        let mut damaged = one.clone();
        damaged[WAL_HEADER + FRAME_HEADER + 9] ^= 1;
        assert!(committed_frames(&damaged, 512).is_empty());
        assert!(committed_frames(&one, 1024).is_empty());
        assert!(committed_frames(&[], 512).is_empty());
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
