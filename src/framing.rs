//! Newline-delimited framing: read one line (bounded), write one line and flush.
//!
//! This module knows nothing about JSON-RPC. It works on any `BufRead`/`Write`, so tests run
//! in memory and the binary runs on stdin/stdout.

use std::io::{self, BufRead, Write};

/// The longest line the server accepts, in bytes (16 MiB). A longer line is read to its end,
/// thrown away and reported as [`Frame::TooLong`], so one oversized message costs at most this
/// much memory and the stream stays in step.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// One unit read from the input stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A complete line without its `\n` (and without a trailing `\r`). May be invalid UTF-8.
    Line(Vec<u8>),
    /// A line longer than the limit; its bytes were discarded. `len` is how many were seen.
    TooLong { len: usize },
    /// The input is closed.
    Eof,
}

/// Reads lines of at most `max` bytes from a `BufRead`.
pub struct LineReader<R> {
    inner: R,
    max: usize,
    /// Whether a line over `max` ends the reading where the limit is passed ([`Self::stopping`])
    /// rather than being read to its end.
    stop: bool,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_LINE_BYTES)
    }

    pub fn with_limit(inner: R, max: usize) -> Self {
        Self {
            inner,
            max,
            stop: false,
        }
    }

    /// A reader that answers [`Frame::TooLong`] as soon as a line passes [`MAX_LINE_BYTES`],
    /// without reading the rest of it: for a reader that gives up at such a line (an import),
    /// where an input with no end and no newline (`/dev/zero`) would otherwise be read for
    /// ever. Its `len` is then what was read of the line; the stream is no longer in step.
    pub fn stopping(inner: R) -> Self {
        Self {
            stop: true,
            ..Self::new(inner)
        }
    }

    /// Reads the next line. A final line without a newline is still returned as a line.
    pub fn next_frame(&mut self) -> io::Result<Frame> {
        let mut line = Vec::new();
        let mut seen = 0usize;
        let mut too_long = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                // EOF: a partial last line still counts as a line.
                if seen == 0 {
                    return Ok(Frame::Eof);
                }
                break;
            }
            let (chunk, found_newline) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], true),
                None => (available, false),
            };
            seen = seen.saturating_add(chunk.len());
            if !too_long {
                if seen > self.max {
                    too_long = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            let consumed = chunk.len() + usize::from(found_newline);
            self.inner.consume(consumed);
            if found_newline || (too_long && self.stop) {
                break;
            }
        }
        if too_long {
            return Ok(Frame::TooLong { len: seen });
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Frame::Line(line))
    }
}

/// Writes one message as one line and flushes, so the peer sees it at once.
///
/// Line and newline go out in one `write_all`: written separately through stdout's
/// `LineWriter`, a line over its 1 KiB buffer leaves in one write and the newline in a second,
/// so the host wakes twice and reads a partial line first.
/// The line is taken by value so the newline goes on its end in place: an answer can be tens
/// of kilobytes, and copying it once more per write was measurable.
pub fn write_line<W: Write>(out: &mut W, line: String) -> io::Result<()> {
    let mut buf = line.into_bytes();
    buf.push(b'\n');
    out.write_all(&buf)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut r = LineReader::with_limit(input, max);
        let mut out = Vec::new();
        loop {
            let f = r.next_frame().unwrap();
            let end = f == Frame::Eof;
            out.push(f);
            if end {
                return out;
            }
        }
    }

    /// An input with no end and no newline (`/dev/zero`): a stopping reader answers TooLong
    /// once past the limit, having read little more than the limit.
    #[test]
    fn a_stopping_reader_gives_up_a_line_with_no_end_at_the_limit() {
        let endless = io::BufReader::with_capacity(4096, io::repeat(b'a'));
        let mut r = LineReader::stopping(endless);
        match r.next_frame().unwrap() {
            Frame::TooLong { len } => {
                assert!(
                    len > MAX_LINE_BYTES && len <= MAX_LINE_BYTES + 4096,
                    "{len}"
                )
            }
            f => panic!("{f:?}"),
        }
    }

    #[test]
    fn reader_splits_lines_and_strips_cr() {
        let got = frames(b"a\r\nbb\n\nlast", 100);
        assert_eq!(
            got,
            vec![
                Frame::Line(b"a".to_vec()),
                Frame::Line(b"bb".to_vec()),
                Frame::Line(Vec::new()),
                Frame::Line(b"last".to_vec()),
                Frame::Eof
            ]
        );
    }

    #[test]
    fn reader_oversized_line_is_skipped_and_stream_stays_in_step() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nok\n");
        let got = frames(&input, 10);
        assert_eq!(
            got,
            vec![
                Frame::TooLong { len: 50 },
                Frame::Line(b"ok".to_vec()),
                Frame::Eof
            ]
        );
    }

    #[test]
    fn reader_line_of_exactly_the_limit_is_accepted() {
        let got = frames(b"0123456789\n", 10);
        assert_eq!(got[0], Frame::Line(b"0123456789".to_vec()));
    }

    #[test]
    fn reader_invalid_utf8_is_passed_through_as_bytes() {
        let got = frames(b"\xff\xfe\n", 10);
        assert_eq!(got[0], Frame::Line(vec![0xff, 0xfe]));
    }
}
