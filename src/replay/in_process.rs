//! The in-process server: a fresh `Server` over an in-memory store per transcript, fed
//! through the same line reader as the binary.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, BufReader, Cursor, Read};
use std::rc::Rc;

use serde_json::Value;

use super::cursors::{cursors_in, swap_issued};
use super::{Run, Step, Transcript, Written};
use crate::framing::{Frame, LineReader};
use crate::server::Server;
use crate::service::Service;
use crate::store::Store;
use crate::version::Version;

/// What one input frame made the in-process server write.
#[derive(Debug)]
pub struct Exchange {
    /// The input line (empty for an oversized line, which was discarded unread).
    pub input: Vec<u8>,
    /// The messages written in answer, in order.
    pub outputs: Vec<Value>,
    /// The legacy session's version after this frame, if one is open.
    pub session: Option<Version>,
}

/// A failure to start the in-process server.
#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot start the server: {}", self.0)
    }
}

impl std::error::Error for StartError {}

/// Everything the in-process server wrote for the transcript, in order, for the comparison.
pub(super) fn run(transcript: &Transcript) -> Result<Run, StartError> {
    let written = serve_in_process(transcript)?
        .into_iter()
        .flat_map(|x| x.outputs)
        .map(Written::Json)
        .collect();
    Ok(Run {
        written,
        ending: None,
    })
}

/// Feeds the transcript's input to a fresh in-process server, frame by frame, through the
/// same line reader the binary uses, and returns what each frame produced.
///
/// Recall cursors are sealed with a secret of the database that issued them (see
/// `tools/cursor.rs`), so a fresh server answers a recorded session with other seals: an
/// expected cursor matches one whose position is the same (see [`mask_seals`]), and a cursor
/// in what the transcript sends that this server did not issue is replaced by the latest one
/// it issued at the same position, as a client sends back the cursor it was given.
pub fn serve_in_process(transcript: &Transcript) -> Result<Vec<Exchange>, StartError> {
    let store = Store::open_in_memory().map_err(|e| StartError(e.to_string()))?;
    let mut server = Server::new(Service::new(store));
    let issued = Rc::new(RefCell::new(Vec::<String>::new()));
    let input = SendReader {
        chunks: transcript
            .directives
            .iter()
            .map_while(|d| match &d.step {
                Step::Send(bytes) => Some(Some(bytes.clone())),
                Step::Expect(_) => Some(None),
                Step::Eof => None,
            })
            .flatten()
            .collect(),
        current: Cursor::new(Vec::new()),
        issued: Rc::clone(&issued),
    };
    let mut reader = LineReader::new(BufReader::new(input));
    let mut exchanges = Vec::new();
    loop {
        // Reading from memory cannot fail; treat a failure as the end of input.
        let frame = reader.next_frame().unwrap_or(Frame::Eof);
        let input = match &frame {
            Frame::Eof => return Ok(exchanges),
            Frame::Line(bytes) => bytes.clone(),
            Frame::TooLong { .. } => Vec::new(),
        };
        let outputs = server.handle_frame(frame);
        for out in &outputs {
            issued.borrow_mut().extend(cursors_in(out));
        }
        exchanges.push(Exchange {
            input,
            outputs,
            session: server.session().map(|s| s.version),
        });
    }
}

/// The transcript's sends, one at a time, each with the recorded cursors replaced by the ones
/// this server issued at the same positions. A send is taken only when the line reader needs more
/// bytes, that is after every line before it was answered, so the cursor it carries back
/// has been issued by then.
struct SendReader {
    chunks: VecDeque<Vec<u8>>,
    current: Cursor<Vec<u8>>,
    issued: Rc<RefCell<Vec<String>>>,
}

impl Read for SendReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.current.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(chunk) = self.chunks.pop_front() else {
                return Ok(0);
            };
            self.current = Cursor::new(swap_issued(chunk, &self.issued.borrow()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Outcome, compare};
    use super::*;

    #[test]
    fn in_process_replay_answers_ping_and_skips_notifications() {
        let t = Transcript::parse(
            r#"{"send":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"send":{"jsonrpc":"2.0","id":1,"method":"ping"}}
{"expect":{"jsonrpc":"2.0","id":1,"result":{}}}"#,
        )
        .unwrap();
        let x = serve_in_process(&t).unwrap();
        assert_eq!(x.len(), 2);
        assert!(x[0].outputs.is_empty());
        assert_eq!(compare(&t, &run(&t).unwrap()), Outcome::Match { lines: 1 });
    }
}
