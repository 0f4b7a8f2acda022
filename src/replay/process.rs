//! The external `--command` runner: any stdio server, started anew for each transcript in
//! a new empty working directory.

use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use super::cursors::{cursors_in, swap_issued};
use super::{Run, Step, Transcript, Written};

/// How long an external server may take to write an expected line.
const LINE_TIMEOUT: Duration = Duration::from_secs(20);

/// How long an external server may take to exit once its input is closed.
const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// The placeholder in a `--command` line for the transcript's own working directory.
pub const DIR_PLACEHOLDER: &str = "{dir}";

/// A new, empty directory for one transcript's server, removed when dropped. Every
/// transcript gets its own, so one that writes records cannot change what the next one
/// lists: `--command 'review-mcp --db {dir}/r.db'` replays each on a fresh database.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new() -> io::Result<WorkDir> {
        let base = std::env::temp_dir();
        let pid = std::process::id();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut last = io::Error::other("no directory name was free");
        for n in 0..100u32 {
            let path = base.join(format!("review-mcp-replay-{pid}-{nanos}-{n}"));
            // create_dir (not create_dir_all) fails on anything already there.
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(WorkDir(path)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }

    /// The path as one shell word: as it is when it needs no quoting, else single-quoted.
    fn shell_word(&self) -> String {
        let text = self.0.to_string_lossy();
        let plain = text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | ':'));
        if plain || cfg!(not(unix)) {
            text.into_owned()
        } else {
            format!("'{}'", text.replace('\'', "'\\''"))
        }
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.0) {
            log::warn!("cannot remove {}: {e}", self.0.display());
        }
    }
}

/// Runs `command` through the platform shell with piped stdio, in a new empty working
/// directory (its path replaces every [`DIR_PLACEHOLDER`] in `command`), writes the
/// transcript's input and reads as many lines as it expects (each within [`LINE_TIMEOUT`]);
/// then closes the input and collects whatever else the server writes until it exits. The
/// directory is removed afterwards.
pub(super) fn run(command: &str, transcript: &Transcript) -> io::Result<Run> {
    let dir = WorkDir::new()?;
    let command = command.replace(DIR_PLACEHOLDER, &dir.shell_word());
    let mut child = shell(&command)
        .current_dir(&dir.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        return Err(io::Error::other("no stdio pipes"));
    };
    // A writer thread and a reader thread, so a server that answers while we are still
    // writing a long input can never deadlock us.
    let (to_writer, for_writer) = mpsc::channel::<Vec<u8>>();
    let writer = thread::spawn(move || write_all_chunks(stdin, &for_writer));
    let (to_reader, lines) = mpsc::channel();
    thread::spawn(move || read_lines(BufReader::new(stdout), &to_reader));

    let mut input = Some(to_writer);
    let mut written = Vec::new();
    // The sealed tokens (recall cursors, `requestState`) the server wrote so far: a recorded
    // one in a later send is replaced by the one this server issued, as a client would.
    let mut issued: Vec<String> = Vec::new();
    let mut ending = None;
    for d in &transcript.directives {
        match &d.step {
            Step::Send(bytes) => {
                if let Some(tx) = &input {
                    // A send error means the writer gave up (the server closed its input);
                    // the missing answers will show as the mismatch.
                    let _ = tx.send(swap_issued(bytes.clone(), &issued));
                }
            }
            Step::Eof => input = None,
            Step::Expect(_) => match lines.recv_timeout(LINE_TIMEOUT) {
                Ok(line) => {
                    if let Written::Json(v) = &line {
                        issued.extend(cursors_in(v));
                    }
                    written.push(line);
                }
                Err(RecvTimeoutError::Timeout) => {
                    ending = Some(format!(
                        "the server wrote nothing within {} s",
                        LINE_TIMEOUT.as_secs()
                    ));
                    break;
                }
                Err(RecvTimeoutError::Disconnected) => {
                    ending = Some("the server closed its output".to_string());
                    break;
                }
            },
        }
    }
    drop(input);
    if ending.is_none() {
        // Input is closed: anything more the server writes is an extra line.
        loop {
            match lines.recv_timeout(EXIT_TIMEOUT) {
                Ok(line) => written.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    ending = Some(format!(
                        "the server kept its output open {} s after its input closed",
                        EXIT_TIMEOUT.as_secs()
                    ));
                    break;
                }
            }
        }
    }
    if ending.is_none() {
        ending = exit_problem(&mut child);
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = writer.join();
    Ok(Run { written, ending })
}

#[cfg(unix)]
fn shell(command: &str) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c").arg(command);
    c
}

#[cfg(not(unix))]
fn shell(command: &str) -> Command {
    let mut c = Command::new("cmd");
    c.arg("/C").arg(command);
    c
}

fn write_all_chunks(mut stdin: impl Write, chunks: &Receiver<Vec<u8>>) {
    for chunk in chunks {
        if stdin
            .write_all(&chunk)
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return;
        }
    }
}

fn read_lines(mut reader: impl BufRead, tx: &Sender<Written>) {
    loop {
        let mut buf = Vec::new();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                }
                let line = match serde_json::from_slice(&buf) {
                    Ok(v) => Written::Json(v),
                    Err(_) => Written::NotJson(String::from_utf8_lossy(&buf).into_owned()),
                };
                if tx.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// After the output closed: the server must exit promptly and successfully.
fn exit_problem(child: &mut Child) -> Option<String> {
    let deadline = Instant::now() + EXIT_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => return None,
            Ok(Some(status)) => return Some(format!("the server exited with {status}")),
            Ok(None) if Instant::now() < deadline => {
                thread::sleep(Duration::from_millis(10));
            }
            Ok(None) => {
                return Some(format!(
                    "the server did not exit within {} s of its input closing",
                    EXIT_TIMEOUT.as_secs()
                ));
            }
            Err(e) => return Some(format!("cannot wait for the server: {e}")),
        }
    }
}
