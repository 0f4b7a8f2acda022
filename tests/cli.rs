//! The `review-mcp` binary end to end: flags, usage errors, `revision` and the database
//! subcommands, each run in its own temporary directory.

// A failed set-up step in a helper is a failed test, like in the tests themselves.
#![allow(clippy::unwrap_used)]

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use sha2::{Digest, Sha256};

const BIN: &str = env!("CARGO_BIN_EXE_review-mcp");

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "review-mcp-cli-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The binary with a clean environment for the variables it reads, run in `dir`.
fn cmd(dir: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(dir)
        .env_remove("REVIEW_MCP_DB_PATH")
        .env_remove("MCP_LOG_FORMAT")
        .env_remove("MCP_TRACE_ID")
        .env("MCP_LOG_LEVEL", "warn")
        .stdin(Stdio::null());
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    cmd(dir).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn help_lists_flags_subcommands_and_environment() {
    let dir = TempDir::new("help");
    let o = run(dir.path(), &["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for needle in [
        "--db PATH",
        "--help",
        "--version",
        "-o, --output FILE",
        "--command CMD",
        "revision FILE...",
        "export [-o FILE]",
        "import FILE",
        "check",
        "replay",
        "REVIEW_MCP_DB_PATH",
        "./review-mcp.db",
        "MCP_LOG_LEVEL",
        "MCP_LOG_FORMAT",
        "MCP_TRACE_ID",
    ] {
        assert!(out.contains(needle), "--help lacks {needle}");
    }
    assert_eq!(stdout(&run(dir.path(), &["-h"])), out);
    assert!(!dir.path().join("review-mcp.db").exists());
}

#[test]
fn version_prints_name_and_version() {
    let dir = TempDir::new("version");
    let o = run(dir.path(), &["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        format!("review-mcp {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// Every usage mistake: exit 2, nothing on stdout, the reason and the usage on stderr.
fn assert_usage_error(args: &[&str], reason: &str) {
    let dir = TempDir::new("usage");
    let o = run(dir.path(), args);
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    assert!(o.stdout.is_empty(), "{args:?} wrote to stdout");
    let err = stderr(&o);
    assert!(err.contains(reason), "{args:?}: {err}");
    assert!(err.contains("Usage: review-mcp"), "{args:?}: {err}");
    assert!(
        !dir.path().join("review-mcp.db").exists(),
        "{args:?} created a database"
    );
}

#[test]
fn unknown_flag_exits_2_with_usage() {
    assert_usage_error(&["--verbose"], "unknown flag '--verbose'");
    assert_usage_error(&["check", "--dbpath", "x"], "unknown flag '--dbpath'");
    assert_usage_error(&["-q"], "unknown flag '-q'");
}

#[test]
fn repeated_db_flag_exits_2_with_usage() {
    assert_usage_error(
        &["--db", "a.db", "--db", "b.db"],
        "--db given more than once",
    );
    assert_usage_error(&["--db=a.db", "check", "--db", "a.db"], "more than once");
}

#[test]
fn missing_flag_value_exits_2_with_usage() {
    assert_usage_error(&["--db"], "--db needs a value (PATH)");
    assert_usage_error(&["export", "-o"], "needs a value (FILE)");
    assert_usage_error(&["replay", "t.jsonl", "--command"], "needs a value (CMD)");
}

#[test]
fn unknown_subcommand_and_wrong_arguments_exit_2_with_usage() {
    assert_usage_error(&["part.step"], "unknown subcommand 'part.step'");
    assert_usage_error(&["revision"], "at least one FILE");
    assert_usage_error(&["import"], "needs a FILE");
    assert_usage_error(&["check", "extra"], "takes no FILE");
    assert_usage_error(&["check", "-o", "x"], "only valid with 'export'");
}

#[test]
fn revision_prints_sha256_and_name_per_file() {
    let dir = TempDir::new("revision");
    fs::write(dir.path().join("a.step"), b"ISO-10303-21;\n").unwrap();
    fs::write(dir.path().join("empty.step"), b"").unwrap();
    let o = run(dir.path(), &["revision", "a.step", "empty.step"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "sha256:{}  a.step\nsha256:{}  empty.step\n",
            sha256_hex(b"ISO-10303-21;\n"),
            sha256_hex(b"")
        )
    );
}

#[test]
fn revision_missing_file_fails_but_prints_the_others() {
    let dir = TempDir::new("revision-missing");
    fs::write(dir.path().join("b.step"), b"x").unwrap();
    let o = run(dir.path(), &["revision", "nope.step", "b.step"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), format!("sha256:{}  b.step\n", sha256_hex(b"x")));
    let err = stderr(&o);
    assert!(err.contains("nope.step"), "{err}");
    assert!(err.to_lowercase().contains("no such file"), "{err}");
}

/// VmHWM (peak resident set) of a live process, in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Hashes a 200 MB file and reads the process's peak memory while it is still alive: the
/// second argument is a FIFO, so after printing the big file's line the process blocks
/// opening it until the test has read `/proc/<pid>/status`. No timing is involved.
#[test]
fn revision_large_file_streams_in_constant_memory() {
    const SIZE: u64 = 200 * 1024 * 1024;
    let dir = TempDir::new("revision-large");
    let big = dir.path().join("big.step");
    // A sparse file: 200 MB of zeros without using the disk.
    File::create(&big).unwrap().set_len(SIZE).unwrap();
    let expected = {
        let mut h = Sha256::new();
        let zeros = vec![0u8; 1024 * 1024];
        for _ in 0..SIZE / (1024 * 1024) {
            h.update(&zeros);
        }
        h.finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let fifo = dir.path().join("pipe.step");
    let mk = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(mk.success());

    let mut child = cmd(dir.path())
        .args(["revision", "big.step", "pipe.step"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    lines.read_line(&mut first).unwrap();
    assert_eq!(first, format!("sha256:{expected}  big.step\n"));

    // The process now waits for a writer on the FIFO: its peak memory is final for the big file.
    let peak = peak_rss_kib(child.id()).unwrap();
    assert!(
        peak < 32 * 1024,
        "peak RSS {peak} KiB while hashing a 200 MB file"
    );

    File::create(&fifo).unwrap().write_all(b"streamed").unwrap();
    let mut rest = String::new();
    lines.read_to_string(&mut rest).unwrap();
    assert_eq!(
        rest,
        format!("sha256:{}  pipe.step\n", sha256_hex(b"streamed"))
    );
    assert!(child.wait().unwrap().success());
}

#[test]
fn serve_at_eof_exits_0_and_logs_json_lines_with_trace_id() {
    let dir = TempDir::new("serve-log");
    let o = cmd(dir.path())
        .args(["--db", "r.db"])
        .env("MCP_LOG_LEVEL", "debug")
        .env("MCP_TRACE_ID", "trace-42")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    let lines: Vec<serde_json::Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert!(!lines.is_empty(), "no debug line at EOF");
    for l in &lines {
        assert_eq!(l["trace_id"], "trace-42");
        for k in ["ts", "level", "target", "msg"] {
            assert!(l[k].is_string(), "{l}");
        }
    }
    assert!(dir.path().join("r.db").exists());
}

#[test]
fn serve_invalid_log_level_warns_and_uses_info() {
    let dir = TempDir::new("serve-badlevel");
    let o = cmd(dir.path())
        .env("MCP_LOG_LEVEL", "loud")
        .env("MCP_LOG_FORMAT", "human")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(err.contains("WARN"), "{err}");
    assert!(err.contains("MCP_LOG_LEVEL=\"loud\""), "{err}");
    // info, not debug: the debug line at EOF is filtered out.
    assert!(!err.contains("DEBUG"), "{err}");
}

#[test]
fn db_environment_variable_is_used_and_flag_wins() {
    let dir = TempDir::new("db-env");
    let o = cmd(dir.path())
        .env("REVIEW_MCP_DB_PATH", "env.db")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(dir.path().join("env.db").exists());
    let o = cmd(dir.path())
        .env("REVIEW_MCP_DB_PATH", "env2.db")
        .args(["--db", "flag.db"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(dir.path().join("flag.db").exists());
    assert!(!dir.path().join("env2.db").exists());
}

#[test]
fn replay_matching_transcript_exits_0_and_missing_one_exits_1() {
    let dir = TempDir::new("replay");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-fixtures/mixed/0001_legacy_session_then_modern_requests.jsonl");
    let o = run(dir.path(), &["replay", fixture.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).starts_with("ok "), "{}", stdout(&o));
    let o = run(dir.path(), &["replay", "missing.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("FAIL missing.jsonl"), "{}", stdout(&o));
}
