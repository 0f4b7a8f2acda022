//! The `review-mcp` binary end to end: flags, usage errors, `revision` and the database
//! subcommands, each run in its own temporary directory.

// A failed set-up step in a helper is a failed test, like in the tests themselves.
#![allow(clippy::unwrap_used)]

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use sha2::{Digest, Sha256};

use crate::support::inproc::server_remembers_bore;
use crate::support::{TempDir, sha256_hex};

const BIN: &str = env!("CARGO_BIN_EXE_review-mcp");

/// The binary with a clean environment for the variables it reads, run in `dir`.
fn cmd(dir: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.current_dir(dir)
        .env_remove("REVIEW_MCP_DB_PATH")
        .env_remove("MCP_LOG_FORMAT")
        .env_remove("MCP_TRACE_ID")
        .env_remove("REVIEW_MCP_AUTHOR")
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

#[test]
fn help_lists_flags_subcommands_and_environment() {
    let dir = TempDir::new("help").unwrap();
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

/// `review-mcp sync --help` printed the whole 119-line usage; a subcommand's help is its
/// own usage, the flags and variables it reads and the exit status, on stdout, exit 0, and
/// opens no database (here, one that could not be opened).
#[test]
fn a_subcommands_help_is_its_own_usage_and_flags() {
    let dir = TempDir::new("help-sub").unwrap();
    let full = stdout(&run(dir.path(), &["--help"]));
    let o = run(dir.path(), &["sync", "--help", "--db", "/proc/no/such.db"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stderr.is_empty(), "{}", stderr(&o));
    let sync = stdout(&o);
    for needle in [
        "review-mcp [--db PATH] sync [--dry-run] DIR",
        "--dry-run           sync: print what would be written",
        "--db PATH",
        "REVIEW_MCP_DB_PATH",
        "MCP_LOG_LEVEL",
        "Exit status: 0 success",
        "Every subcommand: review-mcp --help.",
    ] {
        assert!(sync.contains(needle), "sync --help lacks {needle}:\n{sync}");
    }
    for absent in [
        "merge-file BASE",
        "--bless",
        "--author NAME",
        "-o, --output",
    ] {
        assert!(
            !sync.contains(absent),
            "sync --help shows {absent}:\n{sync}"
        );
    }
    assert!(sync.lines().count() * 2 < full.lines().count(), "{sync}");
    let revision = stdout(&run(dir.path(), &["-h", "revision"]));
    assert!(
        revision.contains("review-mcp revision FILE..."),
        "{revision}"
    );
    assert!(!revision.contains("--db PATH"), "{revision}");
    assert!(!dir.path().join("review-mcp.db").exists());
}

#[test]
fn version_prints_name_and_version() {
    let dir = TempDir::new("version").unwrap();
    let o = run(dir.path(), &["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        format!("review-mcp {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// Every usage mistake: exit 2, nothing on stdout, the reason and the usage on stderr.
fn assert_usage_error(args: &[&str], reason: &str) {
    let dir = TempDir::new("usage").unwrap();
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

/// Regression: `--db` was accepted and silently ignored by the commands that open no
/// database (`revision`, `merge-file`, `replay`), so `review-mcp --db team.db replay t.jsonl`
/// looked like a replay against team.db. It is refused, naming the commands that take it.
#[test]
fn db_flag_for_a_command_that_opens_no_database_exits_2_naming_those_that_take_it() {
    let takers =
        "--db is only valid with serve, review, export, form3, import, check, backup, sync";
    for args in [
        &["--db", "x.db", "revision", "a.step"][..],
        &["revision", "--db=x.db", "a.step"],
        &["--db", "x.db", "merge-file", "a", "b", "c"],
        &["--db", "x.db", "replay", "t.jsonl"],
        &["--db", "x.db", "replay", "--bless", "t.jsonl"],
        &["--db", "x.db", "replay", "--command", "cat", "t.jsonl"],
    ] {
        assert_usage_error(args, takers);
    }
    assert_usage_error(&["--db", "x.db", "revision", "a"], "not 'revision'");
    assert_usage_error(
        &["--db", "x.db", "replay", "t.jsonl"],
        "--command 'review-mcp --db PATH'",
    );
}

/// Regression: `REVIEW_MCP_DB_PATH=~/…` without HOME refused even the commands that never
/// open the database (`revision`, `--version`) with a usage error about the database path.
#[test]
fn db_environment_is_not_read_by_commands_that_open_no_database() {
    let dir = TempDir::new("db-env-unused").unwrap();
    fs::write(dir.join("a.step"), b"part").unwrap();
    let unread = |args: &[&str]| {
        cmd(dir.path())
            .env("REVIEW_MCP_DB_PATH", "~/r.db")
            .env_remove("HOME")
            .args(args)
            .output()
            .unwrap()
    };
    let o = unread(&["revision", "a.step"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("sha256:"));
    for args in [&["--version"][..], &["--help"]] {
        assert_eq!(unread(args).status.code(), Some(0), "{args:?}");
    }
    // A command that opens it still says the path cannot be used.
    let o = unread(&["check"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("HOME is not set"), "{}", stderr(&o));
}

/// Regression: `replay --command '  '` (a blank CMD, say an unset shell variable in quotes)
/// silently replayed against this server instead of the one meant.
#[test]
fn replay_with_a_blank_command_exits_2() {
    assert_usage_error(
        &["replay", "--command", "  ", "t.jsonl"],
        "--command needs a server command line (CMD)",
    );
}

/// Regression: `review-mcp revision -` (or `import -`) looked for a file named `-` and said
/// "no such file"; a user who means stdin is told that every FILE is a path, and how to name
/// a file called `-`.
#[test]
fn dash_as_a_file_exits_2_saying_files_are_paths() {
    for args in [&["revision", "-"][..], &["import", "-"], &["backup", "-"]] {
        assert_usage_error(args, "'-' is not stdin or stdout here");
    }
    let dir = TempDir::new("dash-file").unwrap();
    fs::write(dir.join("-"), b"part").unwrap();
    let o = run(dir.path(), &["revision", "./-"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Regression: `export -o -` and `form3 REVISION -o -` wrote a file named `-` (and logged
/// "exported … to -"); `-` names stdout, as everywhere else.
#[test]
fn output_dash_writes_to_stdout() {
    let dir = TempDir::new("output-dash").unwrap();
    let db = dir.join("r.db");
    let record = server_remembers_bore(&db);
    let revision = record.artifact.revision.clone();
    // A decision too: a revision of notes only has no Form 3 (no row to list).
    review_mcp::store::Store::open(&db)
        .unwrap()
        .remember_decision(&review_mcp::store::NewDecision {
            artifact: record.artifact,
            subject: "bore".into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![],
        })
        .unwrap();
    let db = db.to_str().unwrap();
    let plain = run(dir.path(), &["--db", db, "export"]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let dash = run(dir.path(), &["--db", db, "export", "-o", "-"]);
    assert_eq!(dash.status.code(), Some(0), "{}", stderr(&dash));
    assert!(!plain.stdout.is_empty());
    assert_eq!(dash.stdout, plain.stdout);
    let form3 = run(dir.path(), &["--db", db, "form3", &revision, "--output=-"]);
    assert_eq!(form3.status.code(), Some(0), "{}", stderr(&form3));
    assert!(stdout(&form3).starts_with("Form,"), "{}", stdout(&form3));
    assert!(!dir.join("-").exists(), "a file named - was written");
}

#[test]
fn revision_prints_sha256_and_name_per_file() {
    let dir = TempDir::new("revision").unwrap();
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
    let dir = TempDir::new("revision-missing").unwrap();
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

/// Hashes a 200 MB file and reads the process's peak memory while it is still alive: after
/// the big file come enough small files that their lines fill the stdout pipe the test does
/// not read yet, so the process blocks writing until the test has read
/// `/proc/<pid>/status`. No timing is involved. (A FIFO held it before; a FIFO is now refused
/// without being opened: see `revision_refuses_fifo_without_blocking`.)
#[test]
fn revision_large_file_streams_in_constant_memory() {
    const SIZE: u64 = 200 * 1024 * 1024;
    const SMALL: usize = 3000;
    let dir = TempDir::new("revision-large").unwrap();
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
    fs::write(dir.path().join("small.step"), b"streamed").unwrap();
    let mut args = vec!["revision", "big.step"];
    args.extend(std::iter::repeat_n("small.step", SMALL));

    let mut child = cmd(dir.path())
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    lines.read_line(&mut first).unwrap();
    assert_eq!(first, format!("sha256:{expected}  big.step\n"));

    // 3000 lines of 84 bytes do not fit the pipe: the process is alive (blocked writing) and
    // its peak memory is final for the big file.
    let peak = peak_rss_kib(child.id()).unwrap();
    assert!(
        peak < 32 * 1024,
        "peak RSS {peak} KiB while hashing a 200 MB file"
    );

    let mut rest = String::new();
    lines.read_to_string(&mut rest).unwrap();
    let small = format!("sha256:{}  small.step\n", sha256_hex(b"streamed"));
    assert_eq!(rest, small.repeat(SMALL));
    assert!(child.wait().unwrap().success());
}

/// Makes a FIFO (named pipe) at `path`.
fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// The binary's output for `args` in `dir`; a run still going after 20 s (waiting on a FIFO)
/// is killed and fails the test.
fn output_within_20_s(dir: &Path, args: &[&str]) -> Output {
    let mut child = cmd(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{args:?} still waits after 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A FIFO with no writer is refused at once, named, and the files after it are still hashed:
/// the command never blocks opening or reading it (it used to wait for a writer).
#[cfg(unix)]
#[test]
fn revision_refuses_fifo_without_blocking() {
    let dir = TempDir::new("revision-fifo").unwrap();
    mkfifo(&dir.path().join("pipe.step"));
    fs::write(dir.path().join("b.step"), b"x").unwrap();
    let o = output_within_20_s(dir.path(), &["revision", "pipe.step", "b.step"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), format!("sha256:{}  b.step\n", sha256_hex(b"x")));
    let err = stderr(&o);
    assert!(
        err.contains("pipe.step: is a FIFO (named pipe), not a regular file"),
        "{err}"
    );
}

#[test]
fn serve_at_eof_exits_0_and_logs_json_lines_with_trace_id() {
    let dir = TempDir::new("serve-log").unwrap();
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
    // A server that was asked nothing created nothing.
    assert!(!dir.path().join("r.db").exists());
}

/// A server reading `stdin` (a handshake and one write), in `dir`, with `env` and `args`.
fn serve_one_write(dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let rev = format!("sha256:{}", "ab".repeat(32));
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"remember","arguments":{{"artifact":{{"revision":"{rev}","format":"step"}},"entity_ids":[],"note":"n"}}}}}}"#
        ),
    ];
    let mut c = cmd(dir);
    c.args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for l in &lines {
        writeln!(stdin, "{l}").unwrap();
    }
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn serve_invalid_log_level_warns_and_uses_info() {
    let dir = TempDir::new("serve-badlevel").unwrap();
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
    let dir = TempDir::new("db-env").unwrap();
    let o = serve_one_write(dir.path(), &[("REVIEW_MCP_DB_PATH", "env.db")], &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(dir.path().join("env.db").exists());
    let o = serve_one_write(
        dir.path(),
        &[("REVIEW_MCP_DB_PATH", "env2.db")],
        &["--db", "flag.db"],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(dir.path().join("flag.db").exists());
    assert!(!dir.path().join("env2.db").exists());
}

/// Regression (found by cliout): a database path copied with the line break or the space after
/// it (`"REVIEW_MCP_DB_PATH": "/home/ada/review.db "` in a host's configuration) made a new,
/// empty database of that name beside the real one, exit 0, and the review seemed forgotten.
/// A part of the path that names nothing yet and holds a control character or white space at
/// an end is refused (exit 2, nothing created); an existing file of such a name is opened.
#[test]
fn a_database_path_with_a_stray_line_break_or_space_is_refused() {
    let dir = TempDir::new("db-stray").unwrap();
    write_lines(&dir.path().join("in.jsonl"), &mixed_lines(4));
    for db in ["r.db\n", "r.db ", " r.db", "r\tx.db", "new\n/r.db"] {
        let o = import_refused_as_naming_nothing(dir.path(), db);
        let shown = db.replace('\n', "\\u{a}").replace('\t', "\\u{9}");
        assert!(
            stderr(&o).contains(&format!("'{shown}'")),
            "{db:?}: {}",
            stderr(&o)
        );
        let o = cmd(dir.path())
            .env("REVIEW_MCP_DB_PATH", db)
            .arg("serve")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{db:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("REVIEW_MCP_DB_PATH is '"),
            "{db:?}: {}",
            stderr(&o)
        );
    }
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["in.jsonl"], "a database was created");
    // A file of that name that exists is the user's: opened as named.
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::rename(dir.path().join("r.db"), dir.path().join("r.db ")).unwrap();
    let o = run(dir.path(), &["--db", "r.db ", "check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Regression (found by advcli): a new database whose name is written with a character drawn
/// as nothing inside it (a Japanese name's ideographic variation selector, a Khmer zero width
/// space between words) was refused as "a control or invisible character (a line break, a
/// tab)", though nothing stray was pasted. Such a character is refused only at an end of a
/// part that names nothing yet (a zero width space copied after the path), as white space is.
#[test]
fn a_new_database_named_with_an_invisible_character_inside_is_made() {
    let dir = TempDir::new("db-invisible").unwrap();
    write_lines(&dir.path().join("in.jsonl"), &mixed_lines(4));
    for db in [
        "\u{8fbb}\u{e0100}.db",
        "\u{179f}\u{17bb}\u{200b}\u{1785}.db",
        "\u{8fbb}\u{e0100}/r.db",
        "\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}/r.db",
    ] {
        let o = run(dir.path(), &["--db", db, "import", "in.jsonl"]);
        assert_eq!(o.status.code(), Some(0), "{db:?}: {}", stderr(&o));
        assert!(dir.path().join(db).is_file(), "{db:?} was not made");
    }
    for db in ["r.db\u{200b}", "\u{feff}r.db", "r\u{202e}x.db"] {
        import_refused_as_naming_nothing(dir.path(), db);
    }
}

/// `import in.jsonl` into `--db db` in `dir`, asserted refused (exit 2) as a path that names
/// nothing yet, with nothing made at `db`.
fn import_refused_as_naming_nothing(dir: &Path, db: &str) -> Output {
    let o = run(dir, &["--db", db, "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(2), "{db:?}: {}", stderr(&o));
    assert!(
        stderr(&o).contains("names nothing yet"),
        "{db:?}: {}",
        stderr(&o)
    );
    assert!(!dir.join(db).exists(), "{db:?} was made");
    o
}

#[test]
fn replay_matching_transcript_exits_0_and_missing_one_exits_1() {
    let dir = TempDir::new("replay").unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-fixtures/mixed/0001_legacy_session_then_modern_requests.jsonl");
    let o = run(dir.path(), &["replay", fixture.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).starts_with("ok "), "{}", stdout(&o));
    let o = run(dir.path(), &["replay", "missing.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("FAIL missing.jsonl"), "{}", stdout(&o));
}
/// Regression (found by cliout): `replay` and `replay --bless` printed a transcript's file name
/// raw, in the report on stdout and in the failures on stderr, so a name holding a terminal
/// escape acted on the terminal and one holding a line break printed a line of its own (a
/// fake `ok …` or `FAIL …`); every other command shows a name escaped. Now they do too.
#[test]
fn replay_and_bless_show_a_file_name_escaped() {
    let dir = TempDir::new("replay-names").unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-fixtures/legacy/2024-11-05/0001_handshake_initialized_ping.jsonl");
    let name = "t\u{1b}[2J\nok   fake.jsonl";
    std::fs::copy(&fixture, dir.path().join(name)).unwrap();
    let missing = "gone\u{1b}]0;x\u{7}.jsonl";
    for args in [
        vec!["replay", name, missing],
        vec!["replay", "--bless", name, missing],
    ] {
        let o = run(dir.path(), &args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let (out, err) = (stdout(&o), stderr(&o));
        for text in [&out, &err] {
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{7}'),
                "{args:?}: {text:?}"
            );
        }
        assert!(
            out.contains("t\\u{1b}[2J\\u{a}ok   fake.jsonl"),
            "{args:?}: {out:?}"
        );
        assert!(!out.lines().any(|l| l.starts_with("ok   fake")), "{out:?}");
        assert!(
            format!("{out}{err}").contains("gone\\u{1b}]0;x\\u{7}.jsonl"),
            "{args:?}: {out:?} {err:?}"
        );
    }
}

// ---- export / import / check ------------------------------------------------------------

fn rev(i: usize) -> String {
    format!(
        "sha256:{}",
        sha256_hex(format!("part revision {i}").as_bytes())
    )
}

fn ts(i: usize) -> String {
    // 2026-01-01T00:00:00.000Z plus i seconds, fixed width.
    let s = i % 60;
    let m = (i / 60) % 60;
    let h = i / 3600;
    format!("2026-01-01T{h:02}:{m:02}:{s:02}.{:03}Z", i % 1000)
}

/// `n` mixed lines: named features, notes and decisions (with every basis field) over a few
/// revisions, some with a uri and units, in a shuffled order.
fn mixed_lines(n: usize) -> Vec<serde_json::Value> {
    use serde_json::json;
    const VIAS: [&str; 3] = ["elicitation", "app", "assistant"];
    let mut lines = Vec::new();
    for i in 0..n {
        let mut artifact = json!({"revision": rev(i % 7), "format": "step"});
        if i % 3 != 0 {
            artifact["uri"] = json!(format!("file:///work/part{}.step", i % 5));
        }
        if i % 4 == 0 {
            artifact["units"] = json!("mm");
        }
        let (created, updated) = (ts(i), ts(i + 500));
        let line = match i % 5 {
            0 | 1 => json!({"record": {
                "id": format!("rec_{i:016x}"), "kind": "feature", "name": format!("feature {i}"),
                "note": format!("note with \"quotes\", ünïcode and a\nnewline {i}"),
                "tags": ["mating", format!("t{}", i % 9)], "entity_ids": [format!("face:{i}")],
                "id_scheme": "occt-topo", "artifact": artifact,
                "created_at": created, "updated_at": updated}}),
            2 => json!({"record": {
                "id": format!("rec_{i:016x}"), "kind": "note", "note": format!("plain note {i}"),
                "tags": [], "entity_ids": [], "id_scheme": "opaque", "artifact": artifact,
                "created_at": created, "updated_at": updated}}),
            _ => json!({"decision": {
                "id": format!("dec_{i:016x}"), "subject": format!("subject {i}"),
                "disposition": if i % 2 == 0 { "hold" } else { "accept" },
                "summary": format!("summary {i}"),
                "basis": [
                    {"requirement": "Bore Ø10 H7", "source": "drawing", "sourceDetail": "note 4",
                     "evidence": "geometry.measure: 10.012 mm", "state": "satisfied",
                     "faces": ["face:3"], "verdict": {"judgement": "accepted", "reason": "ok",
                        "via": VIAS[i % 3], "at": created}},
                    {"requirement": "Wall ≥ 2 mm", "source": "assistant-proposed",
                     "state": "unresolved", "question": "Which wall?", "faces": []}
                ],
                "artifact": artifact, "created_at": created, "updated_at": updated}}),
        };
        lines.push(line);
    }
    // A deterministic shuffle, so the file is not already in export order.
    let len = lines.len();
    for i in 0..len {
        lines.swap(i, (i * 7919 + 13) % len);
    }
    lines
}

/// An export written before verdict provenance existed imports with every verdict the
/// assistant's, dated by its decision's last change; an engineer's verdict keeps its
/// provenance through export and import.
#[test]
fn import_of_old_verdicts_reads_them_as_the_assistants_and_keeps_the_engineers() {
    let dir = TempDir::new("provenance").unwrap();
    let line = |id: &str, subject: &str, verdict: serde_json::Value| {
        serde_json::json!({"decision": {
            "id": id, "subject": subject, "disposition": "hold",
            "basis": [{"requirement": "Bore", "source": "drawing", "state": "satisfied",
                       "faces": [], "verdict": verdict}],
            "artifact": {"revision": rev(1), "format": "step"},
            "created_at": ts(1), "updated_at": ts(2)}})
    };
    write_lines(
        &dir.path().join("in.jsonl"),
        &[
            line(
                "dec_0000000000000001",
                "old",
                serde_json::json!({"judgement": "accepted"}),
            ),
            line(
                "dec_0000000000000002",
                "engineer",
                serde_json::json!({"judgement": "rejected", "via": "elicitation", "at": ts(1)}),
            ),
        ],
    );
    let o = run(dir.path(), &["--db", "a.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8(export(dir.path(), "a.db")).unwrap();
    let verdicts: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| v["decision"]["basis"][0]["verdict"].clone())
        .collect();
    assert!(
        verdicts.contains(
            &serde_json::json!({"judgement": "accepted", "via": "assistant", "at": ts(2)})
        )
    );
    assert!(verdicts.contains(
        &serde_json::json!({"judgement": "rejected", "via": "elicitation", "at": ts(1)})
    ));
    // A verdict whose time is not a time is refused, naming it.
    write_lines(
        &dir.path().join("bad.jsonl"),
        &[line(
            "dec_0000000000000003",
            "bad",
            serde_json::json!({"judgement": "accepted", "via": "app", "at": "yesterday"}),
        )],
    );
    let o = run(dir.path(), &["--db", "a.db", "import", "bad.jsonl"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("verdict.at"), "{}", stderr(&o));
}

/// What an older database stored is imported as it was: the tools refuse a blank subject,
/// disposition, requirement or feature name
/// (`tools_memory::blank_words_a_reader_relies_on_refused_by_name_nothing_written`), but an
/// export holding them still imports, and exports again unchanged.
#[test]
fn import_keeps_blank_words() {
    let dir = TempDir::new("blank-words").unwrap();
    let lines = [
        serde_json::json!({"decision": {
            "id": "dec_0000000000000001", "subject": " ", "disposition": "\t",
            "basis": [{"requirement": "", "source": "drawing", "state": "satisfied", "faces": []}],
            "artifact": {"revision": rev(1), "format": "step"},
            "created_at": ts(1), "updated_at": ts(2)}}),
        serde_json::json!({"record": {
            "id": "rec_0000000000000001", "kind": "feature", "name": " ", "tags": [],
            "entity_ids": [], "id_scheme": "opaque",
            "artifact": {"revision": rev(1), "format": "step"},
            "created_at": ts(1), "updated_at": ts(2)}}),
    ];
    write_lines(&dir.path().join("in.jsonl"), &lines);
    let o = run(dir.path(), &["--db", "a.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (items, _) = items_and_events(&export(dir.path(), "a.db"));
    assert!(items.contains(r#""requirement":"""#), "{items}");
    assert!(items.contains(r#""name":" ""#), "{items}");
}

/// An export a newer review-mcp wrote, brought to this one (a teammate ahead, a user who
/// went back a version): its lines may hold a field, a kind of line or a kind of event this
/// build does not know. Each is refused, named, and nothing written; and the message says
/// what to do: the file needs the version that wrote it. Found by importing this build's
/// export (`notCarried`, new at schema 17) with the build of schema 12, which refused it as
/// "Additional properties are not allowed ('notCarried' was unexpected)" and no more: this
/// build said the same of a newer build's lines.
#[test]
fn import_of_a_newer_versions_export_says_it_needs_that_version() {
    let dir = TempDir::new("newer-export").unwrap();
    let lines = mixed_lines(5);
    write_lines(&dir.path().join("in.jsonl"), &lines);
    let o = run(dir.path(), &["--db", "a.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = export(dir.path(), "a.db");
    let (_, events) = items_and_events(&before);
    let event: serde_json::Value = serde_json::from_str(events.lines().next().unwrap()).unwrap();
    let mut with_field = lines
        .iter()
        .find(|l| l.get("record").is_some())
        .unwrap()
        .clone();
    with_field["record"]["weight"] = serde_json::json!({"grams": 12});
    let mut new_kind = event.clone();
    new_kind["event"]["kind"] = "signed".into();
    let newer = [
        with_field,
        serde_json::json!({"signature": {"id": "sig_1"}}),
        new_kind,
    ];
    for (i, line) in newer.iter().enumerate() {
        let file = format!("newer{i}.jsonl");
        write_lines(&dir.path().join(&file), std::slice::from_ref(line));
        for db in ["a.db", "fresh.db"] {
            let o = run(dir.path(), &["--db", db, "import", &file]);
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{line}: {e}");
            assert!(e.contains("line 1: "), "{line}: {e}");
            assert!(
                e.contains("written by a newer review-mcp") && e.contains("that version"),
                "{line}: the refusal says nothing of what to do: {e}"
            );
        }
        assert!(!dir.path().join("fresh.db").exists(), "{line}");
        assert_eq!(export(dir.path(), "a.db"), before, "{line}");
    }
}

/// Exports real older builds wrote, each from a session with its own server (stdio:
/// `remember`, `remember_decision` with items, `request_verdicts` answered in the form, and
/// at schema 12 `carry_forward`): export_schema7.jsonl by 65585743 (schema version 7, the
/// first with sync, before authors and history), export_schema12.jsonl by f5203199 (schema
/// version 12, the first whose export holds the history). Each imports into a new database
/// whose export holds the file's items as they are (at 12 its history too, each event's line
/// byte for byte; at 7 the import's own account of the decision's arrival and verdicts, channel `import`), and
/// imported again adds and replaces nothing and leaves the export as it was.
#[test]
fn exports_of_real_older_builds_import_as_they_are_and_once() {
    const V7: &str = include_str!("../fixtures/export_schema7.jsonl");
    const V12: &str = include_str!("../fixtures/export_schema12.jsonl");
    for (name, text) in [("schema 7", V7), ("schema 12", V12)] {
        let dir = TempDir::new("older-export").unwrap();
        fs::write(dir.path().join("old.jsonl"), text).unwrap();
        let o = run(dir.path(), &["--db", "a.db", "import", "old.jsonl"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let first = export(dir.path(), "a.db");
        let (items, events) = items_and_events(&first);
        let (old_items, old_events) = items_and_events(text.as_bytes());
        assert_eq!(items, old_items, "{name}");
        if old_events.is_empty() {
            assert!(
                !events.is_empty(),
                "{name}: the arrival is not in the history"
            );
            for e in events.lines() {
                assert!(e.contains(r#""channel":"import""#), "{name}: {e}");
            }
        } else {
            // Events of one millisecond export in their items' id order now (6a05d593), the
            // carry's two here among them: the same lines, each byte for byte.
            let sorted = |t: &str| {
                let mut v: Vec<&str> = t.lines().collect();
                v.sort_unstable();
                v.join("\n")
            };
            assert_eq!(sorted(&events), sorted(&old_events), "{name}");
        }
        let o = run(dir.path(), &["--db", "a.db", "import", "old.jsonl"]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let said = format!("{}{}", stdout(&o), stderr(&o));
        assert!(said.contains("added 0, replaced 0,"), "{name}: {said}");
        assert!(said.contains(" 0 new"), "{name}: {said}");
        assert_eq!(export(dir.path(), "a.db"), first, "{name}");
    }
}

fn write_lines(path: &Path, lines: &[serde_json::Value]) {
    let mut text = String::new();
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    fs::write(path, text).unwrap();
}

fn export(dir: &Path, db: &str) -> Vec<u8> {
    let o = run(dir, &["--db", db, "export"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    o.stdout
}

/// An export's item lines and its event lines (which come last).
fn items_and_events(text: &[u8]) -> (String, String) {
    let text = String::from_utf8_lossy(text);
    let (mut items, mut events) = (String::new(), String::new());
    for l in text.lines() {
        let to = if l.starts_with("{\"event\":") {
            &mut events
        } else {
            &mut items
        };
        to.push_str(l);
        to.push('\n');
    }
    (items, events)
}

fn sorted_values(text: &[u8]) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(text)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .unwrap()
                .to_string()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn export_import_export_round_trip_is_byte_identical() {
    let dir = TempDir::new("roundtrip").unwrap();
    let lines = mixed_lines(1000);
    write_lines(&dir.path().join("in.jsonl"), &lines);

    let o = run(dir.path(), &["--db", "one.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("added 1000, replaced 0, kept the database's 0"),
        "{}",
        stdout(&o)
    );

    let o = run(dir.path(), &["--db", "one.db", "export", "-o", "one.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let first = fs::read(dir.path().join("one.jsonl")).unwrap();
    // Every record and decision came back exactly (ids and timestamps included), followed
    // by the history the import recorded (the file had none: its decisions `arrived`).
    let (items, events) = items_and_events(&first);
    assert_eq!(items.lines().count(), 1000);
    assert!(
        events.lines().all(|l| l.contains("\"channel\":\"import\""))
            && events.contains("\"kind\":\"arrived\""),
        "{events}"
    );
    let given: Vec<u8> = fs::read(dir.path().join("in.jsonl")).unwrap();
    assert_eq!(sorted_values(items.as_bytes()), sorted_values(&given));

    let o = run(dir.path(), &["--db", "two.db", "import", "one.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let second = export(dir.path(), "two.db");
    assert!(first == second, "export -> import -> export differs");
    // Stable: exporting again without changes gives the same bytes.
    assert!(export(dir.path(), "one.db") == first);
}

/// Regression: `--help` said import "reports added, replaced, unchanged", a word its report
/// no longer prints (it says "kept the database's N"): a reader looked for a count not there.
#[test]
fn help_words_the_import_report_as_import_prints_it() {
    let dir = TempDir::new("help-import").unwrap();
    write_lines(&dir.path().join("in.jsonl"), &mixed_lines(3));
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = stdout(&o);
    let help = stdout(&run(dir.path(), &["--help"]));
    for word in ["added", "replaced", "kept the database's"] {
        assert!(
            report.contains(word) && help.contains(word),
            "{word}: report {report}, help {help}"
        );
    }
    assert!(!help.contains("unchanged"), "{help}");
}

#[test]
fn import_same_file_twice_changes_nothing() {
    let dir = TempDir::new("import-twice").unwrap();
    write_lines(&dir.path().join("in.jsonl"), &mixed_lines(200));
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = export(dir.path(), "r.db");
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("added 0, replaced 0, kept the database's 200"),
        "{}",
        stdout(&o)
    );
    assert!(export(dir.path(), "r.db") == before);
}

#[test]
fn import_with_one_bad_line_changes_nothing() {
    let dir = TempDir::new("import-bad").unwrap();
    let mut lines = mixed_lines(300);
    write_lines(&dir.path().join("in.jsonl"), &lines);
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = export(dir.path(), "r.db");

    // Every line newer (so each would replace), one new line, and one malformed revision.
    for l in &mut lines {
        let inner = l.as_object_mut().unwrap().values_mut().next().unwrap();
        inner["updated_at"] = serde_json::json!("2027-01-01T00:00:00.000Z");
    }
    let mut extra = mixed_lines(1).remove(0);
    extra["record"]["id"] = serde_json::json!("rec_new");
    lines.push(extra);
    lines[150]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .next()
        .unwrap()["artifact"]["revision"] = serde_json::json!("sha256:NOT-HEX");
    write_lines(&dir.path().join("bad.jsonl"), &lines);

    let o = run(dir.path(), &["--db", "r.db", "import", "bad.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("line 151"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert!(export(dir.path(), "r.db") == before);
}

/// An import file read line by line, as many times as the import opens it: for each reading,
/// whether the database's write lock was held (by another connection than the probe's) when
/// each line was handed over. Lines are handed over one per `read`, so a reader asks for the
/// next only once it has taken the previous one.
struct Probed<'a> {
    text: String,
    /// What a reading after the first gives (the file changed after it was checked).
    later: Option<String>,
    db: &'a Path,
    readings: Vec<Vec<bool>>,
}

/// Whether some connection holds the write lock of `db` (a file that does not exist yet: no).
fn write_locked(db: &Path) -> bool {
    if !db.exists() {
        return false;
    }
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
        .unwrap();
    c.busy_timeout(std::time::Duration::ZERO).unwrap();
    match c.execute_batch("BEGIN IMMEDIATE") {
        Ok(()) => {
            c.execute_batch("ROLLBACK").unwrap();
            false
        }
        Err(_) => true,
    }
}

struct ProbedReading<'a> {
    lines: std::vec::IntoIter<String>,
    db: &'a Path,
    locked: &'a mut Vec<bool>,
}

impl Read for ProbedReading<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some(line) = self.lines.next() else {
            return Ok(0);
        };
        self.locked.push(write_locked(self.db));
        assert!(
            line.len() <= buf.len(),
            "a test line longer than the buffer"
        );
        buf[..line.len()].copy_from_slice(line.as_bytes());
        Ok(line.len())
    }
}

impl review_mcp::sync::import::Reread for Probed<'_> {
    fn open(&mut self) -> std::io::Result<Box<dyn Read + '_>> {
        let text = match (&self.later, self.readings.is_empty()) {
            (Some(later), false) => later,
            _ => &self.text,
        };
        let lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
        self.readings.push(Vec::new());
        let locked = self.readings.last_mut().unwrap();
        Ok(Box::new(ProbedReading {
            lines: lines.into_iter(),
            db: self.db,
            locked,
        }))
    }
}

fn lines_text(lines: &[serde_json::Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Regression (issue: import grew with the file, 1.2 GB for a 515 MB export): the import held
/// every line of the file in memory, read before the write lock, and wrote them after. Now
/// it checks every line without the lock (keeping none), then reads the file again inside
/// its write transaction and writes each line as it reads it: every line the write takes is
/// read under the lock, one at a time, and what it writes is what the whole-file import
/// wrote.
#[test]
fn import_checks_the_file_without_the_lock_then_writes_it_line_by_line_under_it() {
    let dir = TempDir::new("import-streamed").unwrap();
    let db = dir.path().join("r.db");
    let lines = mixed_lines(300);
    let text = lines_text(&lines);
    // An existing database, so the probe can ask for its lock from the first line on.
    drop(review_mcp::store::Store::open(&db).unwrap());
    let mut probed = Probed {
        text: text.clone(),
        later: None,
        db: &db,
        readings: Vec::new(),
    };
    let done =
        review_mcp::sync::import::import_from(&db, Path::new("in.jsonl"), &mut probed).unwrap();
    assert_eq!((done.lines, done.summary.added), (300, 300));
    let readings = probed.readings;
    assert!(readings.len() >= 2, "the file was read once: {readings:?}");
    assert_eq!(readings[0].len(), 300);
    assert!(
        readings[0].iter().all(|locked| !locked),
        "lines were checked under the write lock"
    );
    for reading in &readings[1..] {
        assert_eq!(reading.len(), 300);
        assert!(
            reading.iter().all(|locked| *locked),
            "the write read a line outside its transaction"
        );
    }
    // The same database as the import of the file from the command line.
    write_lines(&dir.path().join("in.jsonl"), &lines);
    let o = run(dir.path(), &["--db", "two.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (one, two) = (export(dir.path(), "r.db"), export(dir.path(), "two.db"));
    let items = |b: &[u8]| items_and_events(b).0;
    assert!(
        items(&one) == items(&two),
        "the streamed import wrote other items"
    );
}

/// A file that changes between its check and the write (another program writing it) stops
/// the write with nothing written, saying so: the write takes only the bytes that were
/// checked.
#[test]
fn import_of_a_file_changed_after_its_check_writes_nothing() {
    let dir = TempDir::new("import-changed").unwrap();
    let db = dir.path().join("r.db");
    write_lines(&dir.path().join("in.jsonl"), &mixed_lines(20));
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = export(dir.path(), "r.db");
    let mut lines = mixed_lines(20);
    for l in &mut lines {
        let inner = l.as_object_mut().unwrap().values_mut().next().unwrap();
        inner["updated_at"] = serde_json::json!("2027-01-01T00:00:00.000Z");
    }
    let text = lines_text(&lines);
    // The last line edited (still valid) after the check, and a line added.
    let mut later_lines = lines.clone();
    later_lines[19]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .next()
        .unwrap()["updated_at"] = serde_json::json!("2027-01-02T00:00:00.000Z");
    for later in [lines_text(&later_lines), format!("{text}{}\n", lines[0])] {
        let mut probed = Probed {
            text: text.clone(),
            later: Some(later),
            db: &db,
            readings: Vec::new(),
        };
        let e = review_mcp::sync::import::import_from(&db, Path::new("in.jsonl"), &mut probed)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("nothing was written") && e.contains("changed while it was imported"),
            "{e}"
        );
        assert!(export(dir.path(), "r.db") == before, "{e}");
    }
}

/// A file that can be read only once (a pipe) is still imported: its bytes are kept in an
/// unnamed temporary file as they are checked, and the write reads them from there.
#[test]
fn import_from_a_pipe_writes_what_the_file_writes() {
    let dir = TempDir::new("import-pipe").unwrap();
    let lines = mixed_lines(200);
    write_lines(&dir.path().join("in.jsonl"), &lines);
    let mut child = cmd(dir.path())
        .args(["--db", "piped.db", "import", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let text = lines_text(&lines);
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("200 lines: added 200"),
        "{}",
        stdout(&o)
    );
    let o = run(dir.path(), &["--db", "file.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let items = |b: &[u8]| items_and_events(b).0;
    assert!(
        items(&export(dir.path(), "piped.db")) == items(&export(dir.path(), "file.db")),
        "the piped import wrote other items"
    );
}

/// A pipe with nowhere to copy it to is refused before anything is read, saying what to do.
#[test]
fn import_from_a_pipe_without_a_temporary_directory_says_to_set_tmpdir() {
    let dir = TempDir::new("import-pipe-tmpdir").unwrap();
    let o = cmd(dir.path())
        .args(["--db", "r.db", "import", "/dev/stdin"])
        .env("TMPDIR", dir.path().join("missing"))
        .stdin(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("read only once") && err.contains("TMPDIR"),
        "{err}"
    );
    assert!(!dir.path().join("r.db").exists());
}

#[test]
fn import_later_updated_at_wins_and_keeps_its_own_id() {
    use serde_json::json;
    let dir = TempDir::new("import-wins").unwrap();
    let base = json!({"record": {"id": "rec_old", "kind": "feature", "name": "bore",
        "note": "first", "tags": [], "entity_ids": ["face:1"], "id_scheme": "opaque",
        "artifact": {"revision": rev(1), "format": "step", "uri": "file:///w/p.step"},
        "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-02T00:00:00.000Z"}});
    write_lines(&dir.path().join("a.jsonl"), std::slice::from_ref(&base));
    assert_eq!(
        run(dir.path(), &["--db", "r.db", "import", "a.jsonl"])
            .status
            .code(),
        Some(0)
    );

    // Same key (locator + name), another id, older: the database keeps its line.
    let mut older = base.clone();
    older["record"]["id"] = json!("rec_older");
    older["record"]["updated_at"] = json!("2026-01-01T12:00:00.000Z");
    older["record"]["note"] = json!("older");
    write_lines(&dir.path().join("b.jsonl"), &[older]);
    let o = run(dir.path(), &["--db", "r.db", "import", "b.jsonl"]);
    assert!(
        stdout(&o).contains("added 0, replaced 0, kept the database's 1"),
        "{}",
        stdout(&o)
    );
    assert!(String::from_utf8_lossy(&export(dir.path(), "r.db")).contains("rec_old\""));

    // Newer: it replaces the held one and keeps its own id.
    let mut newer = base.clone();
    newer["record"]["id"] = json!("rec_newer");
    newer["record"]["updated_at"] = json!("2026-02-01T00:00:00.000Z");
    newer["record"]["note"] = json!("newer");
    write_lines(&dir.path().join("c.jsonl"), &[newer]);
    let o = run(dir.path(), &["--db", "r.db", "import", "c.jsonl"]);
    assert!(
        stdout(&o).contains("added 0, replaced 1, kept the database's 0"),
        "{}",
        stdout(&o)
    );
    let (out, events) = items_and_events(&export(dir.path(), "r.db"));
    assert_eq!(out.lines().count(), 1);
    assert!(out.contains("\"id\":\"rec_newer\"") && out.contains("\"note\":\"newer\""));
    // The replaced text is kept in the history, as the import's.
    assert!(
        events.contains("\"kind\":\"text_replaced\"")
            && events.contains("\"channel\":\"import\"")
            && events.contains("\"from\":\"first\"")
            && events.contains("\"to\":\"newer\""),
        "{events}"
    );
}

fn bore_line(id: &str, updated_at: &str, note: &str) -> serde_json::Value {
    serde_json::json!({"record": {"id": id, "kind": "feature", "name": "bore",
        "note": note, "tags": [], "entity_ids": [], "id_scheme": "opaque",
        "artifact": {"revision": rev(1), "format": "step", "uri": "file:///w/p.step"},
        "created_at": "2026-01-01T00:00:00.000Z", "updated_at": updated_at}})
}

#[test]
fn import_older_line_than_a_server_write_leaves_the_server_write() {
    // The database is written by a server after the file was made (T2 = now); the file holds
    // the same key at T1 < T2. The import judges at write time, so the older line loses.
    let dir = TempDir::new("import-race").unwrap();
    let held = server_remembers_bore(&dir.path().join("r.db"));
    write_lines(
        &dir.path().join("old.jsonl"),
        &[bore_line(
            "rec_file",
            "2026-01-01T12:00:00.000Z",
            "from the file",
        )],
    );
    let o = run(dir.path(), &["--db", "r.db", "import", "old.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("1 line: added 0, replaced 0, kept the database's 1"),
        "{}",
        stdout(&o)
    );
    let out = String::from_utf8_lossy(&export(dir.path(), "r.db")).into_owned();
    assert_eq!(out.lines().count(), 1);
    assert!(
        out.contains(&format!("\"id\":\"{}\"", held.id)) && out.contains("written by the server"),
        "{out}"
    );
}

/// Regression (issue 12, item 4): a record created by a clock ahead of this one and then
/// edited here got `updated_at < created_at`, and its export no longer imported.
#[test]
fn export_of_future_record_edited_here_imports_into_empty_file() {
    let dir = TempDir::new("future-created").unwrap();
    let mut line = bore_line("rec_future", "2099-01-01T00:00:00.000Z", "from the future");
    line["record"]["created_at"] = serde_json::json!("2099-01-01T00:00:00.000Z");
    write_lines(&dir.path().join("future.jsonl"), &[line]);
    let o = run(dir.path(), &["--db", "r.db", "import", "future.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let edited = server_remembers_bore(&dir.path().join("r.db"));
    assert_eq!(edited.created_at, "2099-01-01T00:00:00.000Z");
    assert!(edited.updated_at >= edited.created_at, "{edited:?}");
    fs::write(dir.path().join("out.jsonl"), export(dir.path(), "r.db")).unwrap();
    let o = run(dir.path(), &["--db", "empty.db", "import", "out.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        sorted_values(&export(dir.path(), "empty.db")),
        sorted_values(&export(dir.path(), "r.db"))
    );
}

/// Regression (review of issue 12, item 4): a row an older version stored with
/// `updated_at < created_at` exported a line import refuses; and an edit after the clock
/// stepped back got an `updated_at` before the version it replaced, which an import of it
/// into a database holding that version then lost as "unchanged".
#[test]
fn export_of_old_row_with_updated_before_created_imports_and_edits_never_go_back() {
    let dir = TempDir::new("old-times").unwrap();
    let db = dir.path().join("r.db");
    server_remembers_bore(&db);
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute(
            "UPDATE records SET created_at = '2099-01-01T00:00:00.000Z', \
             updated_at = '2098-01-01T00:00:00.000Z'",
            [],
        )
        .unwrap();
    }
    fs::write(dir.path().join("out.jsonl"), export(dir.path(), "r.db")).unwrap();
    let o = run(dir.path(), &["--db", "empty.db", "import", "out.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A clock behind the stored `updated_at`: the edit is still the later version.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute(
            "UPDATE records SET created_at = '2026-01-01T00:00:00.000Z', \
             updated_at = '2098-06-01T00:00:00.000Z'",
            [],
        )
        .unwrap();
    }
    let edited = server_remembers_bore(&db);
    assert!(
        edited.updated_at.as_str() >= "2098-06-01T00:00:00.000Z",
        "{edited:?}"
    );
}

/// Regression (issue 12, item 4): a timestamp of the right shape but no real date or time
/// was imported, and as a string it beat every later edit.
#[test]
fn import_impossible_timestamp_refuses_the_file_naming_the_line() {
    let dir = TempDir::new("import-bad-time").unwrap();
    for (field, bad) in [
        ("updated_at", "9999-99-99T99:99:99.999Z"),
        ("created_at", "2026-02-30T00:00:00.000Z"),
        ("updated_at", "2026-01-01T24:00:00.000Z"),
    ] {
        let mut line = bore_line("rec_bad", "2026-01-01T12:00:00.000Z", "bad time");
        line["record"][field] = serde_json::json!(bad);
        let good = bore_line("rec_good", "2026-01-01T12:00:00.000Z", "fine");
        let mut good2 = good.clone();
        good2["record"]["name"] = serde_json::json!("slot");
        good2["record"]["id"] = serde_json::json!("rec_slot");
        write_lines(&dir.path().join("bad.jsonl"), &[good2, line]);
        let o = run(dir.path(), &["--db", "r.db", "import", "bad.jsonl"]);
        assert_ne!(o.status.code(), Some(0), "{bad}");
        let err = stderr(&o);
        assert!(
            err.contains("line 2") && err.contains(field) && err.contains(bad),
            "{err}"
        );
        assert!(
            !dir.path().join("r.db").exists() || export(dir.path(), "r.db").is_empty(),
            "nothing written"
        );
    }
}

#[test]
fn import_line_whose_id_is_held_by_another_key_refuses_the_file() {
    let dir = TempDir::new("import-id-clash").unwrap();
    let held = server_remembers_bore(&dir.path().join("r.db"));
    let before = export(dir.path(), "r.db");
    // The server's id on another feature ("slot"), newer than anything: refused all the same,
    // and the valid new line before it is not written either.
    let mut clash = bore_line(&held.id, "2099-01-01T00:00:00.000Z", "renamed");
    clash["record"]["name"] = serde_json::json!("slot");
    let mut fresh = bore_line("rec_fresh", "2026-01-01T12:00:00.000Z", "new");
    fresh["record"]["name"] = serde_json::json!("datum");
    write_lines(&dir.path().join("clash.jsonl"), &[fresh, clash]);
    let o = run(dir.path(), &["--db", "r.db", "import", "clash.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("nothing was written")
            && err.contains(&held.id)
            && err.contains("already held"),
        "{err}"
    );
    assert!(export(dir.path(), "r.db") == before);
}

#[test]
fn import_missing_file_fails_and_creates_nothing_wrong() {
    let dir = TempDir::new("import-missing").unwrap();
    let o = run(dir.path(), &["--db", "r.db", "import", "nope.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nope.jsonl"), "{}", stderr(&o));
}

/// Regression (found by cliout): `import backup.db`, the copy `backup` wrote given as if it
/// were an export (to restore it), was read as text: refused with a list of lines "not
/// UTF-8 … save the file as UTF-8 (a file saved as UTF-16 …)" and "not JSON", which says
/// nothing of what the file is or how a backup is restored. It is refused naming it an
/// SQLite database, with both ways to use it, and nothing is written or created.
#[test]
fn import_of_a_database_file_says_it_is_one_and_how_to_use_it() {
    let dir = TempDir::new("import-db").unwrap();
    write_lines(&dir.path().join("in.jsonl"), &mixed_lines(10));
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(dir.path(), &["--db", "r.db", "backup", "copy.db"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = export(dir.path(), "r.db");
    for (db, input) in [("new.db", "copy.db"), ("r.db", "copy.db"), ("r.db", "r.db")] {
        let o = run(dir.path(), &["--db", db, "import", input]);
        assert_eq!(o.status.code(), Some(1), "{db} {input}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains(&format!("{input} is an SQLite database"))
                && err.contains("nothing was written")
                && err.contains(&format!("review-mcp --db {input} export -o FILE"))
                && !err.contains("line 1"),
            "{db} {input}: {err}"
        );
        assert!(o.stdout.is_empty());
    }
    assert!(
        !dir.path().join("new.db").exists(),
        "a database was created"
    );
    assert_eq!(export(dir.path(), "r.db"), before);
}

#[test]
fn check_honours_db_and_reports_schema_version() {
    let dir = TempDir::new("check").unwrap();
    write_lines(&dir.path().join("in.jsonl"), &mixed_lines(10));
    let o = run(dir.path(), &["--db", "sub/c.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(dir.path(), &["--db", "sub/c.db", "check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("sub/c.db") && out.contains("schema version"),
        "{out}"
    );
    assert!(
        out.contains("6 records") && out.contains("4 decisions"),
        "{out}"
    );
    let o = cmd(dir.path())
        .env("REVIEW_MCP_DB_PATH", "sub/c.db")
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!dir.path().join("review-mcp.db").exists());
}

#[test]
fn check_missing_database_fails_without_creating_it() {
    let dir = TempDir::new("check-missing").unwrap();
    let o = run(dir.path(), &["--db", "absent.db", "check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("absent.db"), "{}", stderr(&o));
    assert!(!dir.path().join("absent.db").exists());
    let o = run(dir.path(), &["--db", "absent.db", "export"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!dir.path().join("absent.db").exists());
}

#[test]
fn check_and_serve_refuse_a_file_that_is_not_sqlite_and_leave_it_untouched() {
    let dir = TempDir::new("check-foreign").unwrap();
    let junk = b"this is not a database, just some text long enough to look like a file\n";
    fs::write(dir.path().join("junk.db"), junk).unwrap();
    for args in [&["--db", "junk.db", "check"][..], &["--db", "junk.db"][..]] {
        let o = run(dir.path(), args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(o.stdout.is_empty());
        assert!(stderr(&o).contains("junk.db"), "{}", stderr(&o));
        assert_eq!(fs::read(dir.path().join("junk.db")).unwrap(), junk);
    }
}

#[test]
fn replay_bless_restores_a_stale_expectation_and_keeps_wildcards() {
    let dir = TempDir::new("bless").unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-fixtures/legacy/shared/0007_handshake_initialized_ping.jsonl");
    let original = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        original.contains("{{version}}"),
        "the fixture should be shared by several versions"
    );
    assert!(
        original.contains("{{any}}"),
        "the fixture should carry a wildcard"
    );
    let copy = dir.path().join("t.jsonl");
    // A stale expectation: the ping answer as an older server might have written it.
    let stale = original.replacen(r#""result":{}"#, r#""result":{"old":true}"#, 1);
    assert_ne!(stale, original);
    std::fs::write(&copy, &stale).unwrap();
    let o = run(dir.path(), &["replay", copy.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "the stale file must not replay");
    let o = run(dir.path(), &["replay", "--bless", copy.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("blessed "), "{}", stdout(&o));
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), original);
    let o = run(dir.path(), &["replay", "--bless", copy.to_str().unwrap()]);
    assert!(stdout(&o).starts_with("unchanged "), "{}", stdout(&o));
}

/// A shared transcript whose versions now get different answers cannot stay one file: bless
/// says so and leaves it as it was.
#[test]
fn replay_bless_refuses_a_shared_transcript_whose_versions_answer_differently() {
    let dir = TempDir::new("bless-shared").unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("protocol-fixtures/legacy/shared/0007_handshake_initialized_ping.jsonl");
    let original = std::fs::read_to_string(&fixture).unwrap();
    // 2025-06-18 adds serverInfo.title: the two versions no longer answer alike.
    let mixed = original.replace(
        r#"{"versions":["2025-06-18","2025-11-25"]}"#,
        r#"{"versions":["2025-03-26","2025-06-18"]}"#,
    );
    assert_ne!(mixed, original);
    let copy = dir.path().join("t.jsonl");
    std::fs::write(&copy, &mixed).unwrap();
    let o = run(dir.path(), &["replay", "--bless", copy.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("answers differently"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), mixed);
}

#[test]
fn replay_bless_with_command_or_elsewhere_exits_2() {
    assert_usage_error(&["replay", "--bless", "--command", "x", "a"], "--command");
    assert_usage_error(&["check", "--bless"], "--bless is only valid with 'replay'");
}

/// Regression (found by cliout): `--author` and `REVIEW_MCP_AUTHOR` took a name holding a line
/// break or a terminal escape. Every record, decision and verdict stored it raw, and the
/// terminal command the server gives showed it escaped (`'Ada\u{a}Lovelace'`), so the
/// engineer who ran that command recorded their verdicts under another name, the escape's
/// text. Such a name is refused at the start, saying which character.
#[test]
fn an_author_with_a_control_character_is_refused_at_the_start() {
    for name in ["Ada\nLovelace", "Ada\u{1b}[31m", "Ada\u{202e}L"] {
        assert_usage_error(&["--author", name], "--author holds the character U+");
        assert_usage_error(
            &["--author", name, "review", "x.step"],
            "--author holds the character U+",
        );
    }
    let dir = TempDir::new("author-env").unwrap();
    let o = cmd(dir.path())
        .args(["--db", "a.db", "serve"])
        .env("REVIEW_MCP_AUTHOR", "Ada\nLovelace")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "serve wrote to stdout");
    assert!(
        stderr(&o).contains("REVIEW_MCP_AUTHOR holds the character U+000A"),
        "{}",
        stderr(&o)
    );
    assert!(
        !dir.path().join("a.db").exists(),
        "serve created a database"
    );
    // Backticks, stars and bars are a name's own characters.
    let dir = TempDir::new("author-marks").unwrap();
    let o = cmd(dir.path())
        .args(["--db", "a.db", "--author", "Ada `L` *|*"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// One session of the binary: `lines` in, the answers out.
fn serve_lines(
    dir: &Path,
    args: &[&str],
    env_author: Option<&str>,
    lines: &[serde_json::Value],
) -> Vec<serde_json::Value> {
    let mut c = cmd(dir);
    c.args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
    if let Some(a) = env_author {
        c.env("REVIEW_MCP_AUTHOR", a);
    }
    let mut child = c.spawn().unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for l in lines {
            writeln!(stdin, "{l}").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v.get("id").is_some())
        .collect()
}

/// `--author` (or `REVIEW_MCP_AUTHOR`) names who a server's writes are recorded as: on
/// records, decisions and the verdicts it records, in answers, the report and the export;
/// a server without one writes no author, and the flag wins over the variable.
#[test]
fn author_is_recorded_on_what_a_server_writes() {
    use serde_json::json;
    let dir = TempDir::new("author").unwrap();
    let art = json!({"revision": rev(1), "format": "step", "uri": "/w/b.step"});
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let call = |id: i64, name: &str, args: serde_json::Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": args}})
    };
    let lines = [
        init.clone(),
        call(
            1,
            "remember",
            json!({"artifact": art, "entity_ids": [], "id_scheme": "opaque",
                                   "name": "bore", "note": "n"}),
        ),
        call(
            2,
            "remember_decision",
            json!({"artifact": art, "subject": "s", "disposition": "hold",
            "basis": [{"requirement": "r", "source": "drawing", "state": "satisfied",
                       "verdict": {"judgement": "accepted", "author": "someone else"}}]}),
        ),
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
               "params": {"uri": format!("review://revisions/{}/report", rev(1))}}),
    ];
    let out = serve_lines(
        dir.path(),
        &["--db", "a.db", "--author", "Ada"],
        Some("Bob"),
        &lines,
    );
    let by_id = |n: i64| out.iter().find(|v| v["id"] == n).unwrap().clone();
    assert_eq!(
        by_id(1)["result"]["structuredContent"]["record"]["author"],
        "Ada"
    );
    let d = &by_id(2)["result"]["structuredContent"]["decision"];
    assert_eq!(d["author"], "Ada");
    assert_eq!(
        d["basis"][0]["verdict"]["author"], "Ada",
        "the server sets it, not the arguments"
    );
    let report = by_id(3)["result"]["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(report.contains("by Ada. Id"), "{report}");
    assert!(
        report.contains("as relayed by the assistant of Ada"),
        "{report}"
    );
    assert!(report.contains("— by Ada"), "{report}");
    let (export, _) = items_and_events(&export(dir.path(), "a.db"));
    assert_eq!(export.matches("\"author\":\"Ada\"").count(), 3, "{export}");

    // The variable alone names the author; nothing names none.
    let out = serve_lines(dir.path(), &["--db", "b.db"], Some("Bob"), &lines[..2]);
    assert_eq!(
        out[1]["result"]["structuredContent"]["record"]["author"],
        "Bob"
    );
    let out = serve_lines(dir.path(), &["--db", "c.db"], None, &lines[..2]);
    assert!(
        out[1]["result"]["structuredContent"]["record"]
            .get("author")
            .is_none()
    );
    // Only serve takes --author.
    let o = run(dir.path(), &["--author", "x", "check"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// Regression: these failures named the problem but not the way out ("REVIEW_MCP_AUTHOR is
/// longer than 200 characters", "… is empty: no review-mcp server has written to it yet",
/// "cannot read x.jsonl: No such file or directory", "unknown flag '-x.step'" for a file
/// whose name starts with '-'). Each now says what to do.
#[test]
fn cli_failures_say_how_to_fix_them() {
    let dir = TempDir::new("fix-hints").unwrap();
    let long = "a".repeat(201);
    let o = cmd(dir.path())
        .env("REVIEW_MCP_AUTHOR", &long)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("shorten it or unset it"),
        "{}",
        stderr(&o)
    );

    File::create(dir.path().join("empty.db")).unwrap();
    for sub in ["check", "export"] {
        let o = run(dir.path(), &["--db", "empty.db", sub]);
        assert_eq!(o.status.code(), Some(1), "{sub}");
        assert!(
            stderr(&o).contains("point --db or REVIEW_MCP_DB_PATH at the file your servers use"),
            "{sub}: {}",
            stderr(&o)
        );
    }

    let o = run(dir.path(), &["--db", "r.db", "import", "missing.jsonl"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("check the path: import reads a file `review-mcp export` wrote"),
        "{}",
        stderr(&o)
    );

    assert_usage_error(
        &["revision", "-x.step"],
        "a FILE whose name starts with '-' goes after --",
    );

    // An output in a folder that does not exist.
    server_remembers_bore(&dir.path().join("full.db"));
    for args in [
        ["--db", "full.db", "backup", "no-such-dir/b.db"].as_slice(),
        ["--db", "full.db", "export", "-o", "no-such-dir/e.jsonl"].as_slice(),
    ] {
        let o = run(dir.path(), args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&o).contains("(its folder must exist and be writable)"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// Regression: `review-mcp export | head` exited 1 with "cannot write the export: Broken
/// pipe" once the export outgrew the pipe; `revision` and `form3` already treat a reader that
/// went away as the end of the output (exit 0, nothing on stderr), and so does export now.
#[test]
fn export_to_a_reader_that_goes_away_exits_0_quietly() {
    let dir = TempDir::new("export-pipe").unwrap();
    write_lines(&dir.path().join("in.jsonl"), &mixed_lines(1000));
    let o = run(dir.path(), &["--db", "r.db", "import", "in.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let mut child = cmd(dir.path())
        .args(["--db", "r.db", "export"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe's read end is closed here (dropped), like `| head -c 100`.
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    assert!(first.starts_with(b"{\"record\":"));
}

/// Regression: a usage error quoted the offending argument raw (`unknown subcommand
/// 'bo^[[2Jgus'`, `form3 … not 'sha256:^[]52;c;…^G'`), so an argument an assistant's shell
/// tool passed could clear the engineer's terminal or write their clipboard (OSC 52). Every
/// other failure message was already escaped where it is printed; a usage error is too.
#[test]
fn a_usage_error_shows_the_argument_it_quotes_escaped() {
    let dir = TempDir::new("usage-escaped").unwrap();
    let hostile = "sha256:\u{1b}]52;c;QUFB\u{7}\u{9b}x\nforged";
    let escaped = "'sha256:\\u{1b}]52;c;QUFB\\u{7}\\u{9b}x\\u{a}forged'";
    for (args, shown) in [
        (
            &["bo\u{1b}[2Jgus\u{202e}"][..],
            "unknown subcommand 'bo\\u{1b}[2Jgus\\u{202e}'".to_string(),
        ),
        (&["check", hostile][..], format!("but got {escaped}")),
        (
            &["--bo\u{1b}[2J"],
            "unknown flag '--bo\\u{1b}[2J'".to_string(),
        ),
    ] {
        let o = run(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains(&shown), "{args:?}: {err}");
        assert!(
            !err.chars()
                .any(|c| c != '\n' && review_mcp::text::is_control_like(c)),
            "{args:?}: a control character reached the terminal: {err:?}"
        );
        assert!(err.contains("\nUsage: review-mcp"), "{err}");
    }
    // `form3` takes a FILE or a revision, so the same argument is no usage error there but a
    // failure (neither a revision nor a file), which quotes it escaped too.
    let o = run(dir.path(), &["form3", hostile]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{escaped} is not a revision")),
        "{err}"
    );
    assert!(
        !err.chars()
            .any(|c| c != '\n' && review_mcp::text::is_control_like(c)),
        "a control character reached the terminal: {err:?}"
    );
}

/// Regression: the success lines of `check`, `import` and `backup` named the database and
/// the file as they are (`e^[[31mvil.db: ok: …`), while every failure message escaped them:
/// a file name could colour, clear or retitle the terminal it was printed on.
#[test]
fn success_lines_show_the_paths_they_name_escaped() {
    let dir = TempDir::new("paths-escaped").unwrap();
    let name = "e\u{1b}[31mvil\u{202e}\u{200b}";
    let db = dir.join(&format!("{name}.db"));
    server_remembers_bore(&db);
    let db_arg = db.to_str().unwrap();
    let export = dir.join(&format!("{name}.jsonl"));
    let export_arg = export.to_str().unwrap();
    let backup = dir.join(&format!("{name}.bak"));
    let other = dir.join("other.db");
    let outputs = [
        run(dir.path(), &["--db", db_arg, "check"]),
        run(dir.path(), &["--db", db_arg, "export", "-o", export_arg]),
        run(
            dir.path(),
            &["--db", other.to_str().unwrap(), "import", export_arg],
        ),
        run(
            dir.path(),
            &["--db", db_arg, "backup", backup.to_str().unwrap()],
        ),
    ];
    for o in &outputs {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
        for text in [stdout(o), stderr(o)] {
            assert!(
                !text
                    .chars()
                    .any(|c| c != '\n' && review_mcp::text::is_control_like(c)),
                "a control character reached the terminal: {text:?}"
            );
        }
    }
    assert!(stdout(&outputs[0]).contains("e\\u{1b}[31mvil\\u{202e}\\u{200b}.db: ok"));
    assert!(stdout(&outputs[2]).contains("vil\\u{202e}\\u{200b}.jsonl: 1 line:"));
    assert!(stdout(&outputs[3]).contains(".bak: backup of "));
}

/// Regression: a directory given where `import` reads a file was read as a pipe and refused
/// as "line 1: cannot be read: Is a directory", and one given where `backup` writes a file
/// as "… exists; backup writes a new file only (remove it …)": neither said it is a
/// directory, and the second advised removing it. Each now names the directory as such and
/// what to give instead, and nothing is written.
#[test]
fn a_directory_given_as_a_file_is_named_as_one() {
    let dir = TempDir::new("dir-as-file").unwrap();
    let db = dir.join("r.db");
    server_remembers_bore(&db);
    fs::create_dir(dir.join("exports")).unwrap();
    let o = run(dir.path(), &["--db", "r.db", "import", "exports"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("exports is a directory") && !err.contains("line 1"),
        "{err}"
    );
    let o = run(dir.path(), &["--db", "r.db", "backup", "exports"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("exports is a directory") && !err.contains("remove it"),
        "{err}"
    );
    assert_eq!(fs::read_dir(dir.join("exports")).unwrap().count(), 0);
}

/// Regression: `backup` into a folder whose name is not UTF-8 (`bad\xff/`, as a Linux file
/// system allows) failed, "unable to open database: …/bad\u{fffd}/.b.db….tmp": the path
/// was handed to SQLite's `VACUUM INTO` through a lossy UTF-8 conversion, naming another
/// directory (and, were there one of that name, writing the copy there). The bytes of the
/// path are handed over as they are.
#[cfg(unix)]
#[test]
fn backup_into_a_folder_whose_name_is_not_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("backup-not-utf8").unwrap();
    let db = dir.join("r.db");
    server_remembers_bore(&db);
    let folder = dir.path().join(OsStr::from_bytes(b"bad\xff name"));
    fs::create_dir(&folder).unwrap();
    let target = folder.join("b.db");
    let o = cmd(dir.path())
        .args(["--db", "r.db", "backup"])
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = cmd(dir.path())
        .arg("--db")
        .arg(&target)
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("1 record,"), "{}", stdout(&o));
    let names: Vec<_> = fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, [OsStr::new("b.db")], "no temporary file left");
}

/// `--help` said of `--db` "Parent directories are created" for every command; only serve,
/// import and sync create a database. The others, given a path that names none, refuse
/// (exit 1, naming it) and create nothing, neither file nor directory; the help says which.
#[test]
fn only_serve_import_and_sync_create_the_database() {
    let dir = TempDir::new("db-created-by").unwrap();
    let rev = format!("sha256:{}", "1".repeat(64));
    for args in [
        &["check"][..],
        &["export"],
        &["form3", &rev],
        &["backup", "b.db"],
        &["review", &rev],
    ] {
        let o = cmd(dir.path())
            .args(["--db", "new/sub/r.db"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        // `review` first refuses the pipes it runs on here (tests/it/channel_terminal.rs
        // runs it in a terminal).
        assert!(
            args[0] == "review" || stderr(&o).contains("new/sub/r.db"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(!dir.join("new").exists(), "{args:?} created new/");
    }
    let help = stdout(&run(dir.path(), &["--help"]));
    assert!(
        help.contains("serve, import and sync create a missing file")
            && help.contains("need an existing one and create nothing"),
        "{help}"
    );
}

/// Regression: with stderr closed (`review-mcp frm3 2>&1 | head -1`, once `head` has its
/// line) a usage error or a failure panicked printing its message ("failed printing to
/// stderr"), and the exit status was 101, not 2 or 1: a script could not tell a mistyped
/// command from a crash. The message is lost, the exit status stands.
#[test]
fn a_closed_stderr_keeps_the_exit_status() {
    let dir = TempDir::new("closed-stderr").unwrap();
    for (args, code) in [
        (&["frm3", "x"][..], 2),
        (&["--db", "missing.db", "check"], 1),
        (&["form3", "sha256:nothex"], 1),
    ] {
        let mut child = cmd(dir.path())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{args:?}");
    }
}

/// Regression: `revision` wrote each refusal to stderr with `?`, so a stderr that could not
/// take it (a reader gone: `2>&1 | head -1`) ended the run there, with exit status 0 as if
/// every file had been hashed, and the files after the refused one were never hashed. A
/// message that cannot be shown is lost; the status and the other files' lines stand.
#[test]
fn revision_with_a_closed_stderr_still_fails_and_hashes_the_rest() {
    let dir = TempDir::new("revision-closed-stderr").unwrap();
    fs::write(dir.path().join("ok.step"), b"abc").unwrap();
    let mut child = cmd(dir.path())
        .args(["revision", "missing.step", "ok.step"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        format!("sha256:{}  ok.step\n", sha256_hex(b"abc"))
    );
}

/// Regression: the reports `check`, `import`, `backup` and `sync` print on stdout were
/// written with their errors ignored, so with stdout on a full disk (`check > status.txt`,
/// `sync --dry-run DIR > plan.txt`) the report was lost and the exit status was 0; and
/// `revision`, `--help` and `--version` failed saying only "No space left on device (os error
/// 28)", not what could not be written. Each now exits 1 saying its output could not be
/// written to stdout and why (a reader that went away, `| head`, still ends quietly).
#[test]
fn output_lost_to_a_full_device_is_a_failure_that_says_so() {
    let dir = TempDir::new("stdout-full").unwrap();
    let Ok(full) = File::options().write(true).open("/dev/full") else {
        return; // No /dev/full on this system: nothing to write to.
    };
    server_remembers_bore(&dir.path().join("r.db"));
    fs::write(dir.path().join("part.step"), b"abc").unwrap();
    let o = run(dir.path(), &["--db", "r.db", "export", "-o", "e.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    fs::create_dir(dir.path().join("repo")).unwrap();
    let cases: [&[&str]; 9] = [
        &["--db", "r.db", "check"],
        &["--db", "i.db", "import", "e.jsonl"],
        &["--db", "r.db", "backup", "b.db"],
        &["--db", "r.db", "sync", "--dry-run", "repo/review"],
        &["--db", "r.db", "sync", "repo/review"],
        &["revision", "part.step"],
        &["--help"],
        &["--version"],
        &["export", "--db", "r.db"],
    ];
    for args in cases {
        let o = cmd(dir.path())
            .args(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("cannot write") && err.contains("to stdout") && err.contains("No space"),
            "{args:?}: {err}"
        );
    }
}

/// Regression: `replay` read a transcript with `read_to_string`, so a FIFO given as FILE (a
/// mistyped `<(…)`, a named pipe nobody writes) hung the run for good, as `revision` once did;
/// and an empty file, or one of blank lines only (a truncated or emptied transcript), was
/// "ok (0 server lines)", exit 0: a transcript that tests nothing passed. Both are refused,
/// named, without waiting, by `replay` and by `replay --bless`.
#[test]
fn replay_refuses_a_fifo_and_an_empty_transcript_without_waiting() {
    let dir = TempDir::new("replay-odd-files").unwrap();
    mkfifo(&dir.path().join("fifo.jsonl"));
    fs::write(dir.path().join("empty.jsonl"), b"\n  \n").unwrap();
    for (args, says) in [
        (&["replay", "fifo.jsonl"][..], "FIFO"),
        (&["replay", "--bless", "fifo.jsonl"], "FIFO"),
        (&["replay", "empty.jsonl"], "empty"),
        (&["replay", "--bless", "empty.jsonl"], "empty"),
    ] {
        let o = output_within_20_s(dir.path(), args);
        let text = format!("{}{}", stdout(&o), stderr(&o));
        assert_eq!(o.status.code(), Some(1), "{args:?}: {text}");
        assert!(text.contains(says), "{args:?}: {text}");
    }
}

/// Regression (converge3's audit of the history): `import` took lines dated far ahead of this
/// machine's clock without a word, where `sync` names such a file in a `clock:` line. A
/// `forgotten` event dated 9999-12-31 ends a live decision's history for good (no later event
/// can be dated after it), a version dated ahead beats every later edit, and an engineer's
/// verdict dated ahead every later verdict. Each is now named, with its line; a file of the
/// present says nothing.
#[test]
fn import_names_each_line_dated_ahead_of_this_machines_clock() {
    use review_mcp::review::history::Event;
    const AHEAD: &str = "9999-12-31T23:59:59.999Z";
    let dir = TempDir::new("import-ahead").unwrap();
    let held = server_remembers_bore(&dir.path().join("r.db"));
    // An event of the present (an export's), resealed with a date ahead.
    fs::write(dir.path().join("now.jsonl"), export(dir.path(), "r.db")).unwrap();
    let o = run(dir.path(), &["--db", "other.db", "import", "now.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stdout(&o).contains("clock:"), "{}", stdout(&o));
    let decision = serde_json::json!({"decision": {
        "id": "dec_ahead", "subject": "bore fit", "disposition": "hold", "summary": "s",
        "basis": [{"requirement": "Bore 10 H7", "source": "drawing", "state": "satisfied",
            "faces": [], "verdict": {"judgement": "rejected", "via": "app", "at": AHEAD}}],
        "artifact": {"revision": rev(1), "format": "step", "uri": "file:///w/p.step"},
        "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-02T00:00:00.000Z"}});
    let event: Event = serde_json::from_value(serde_json::json!({
        "at": AHEAD, "changes": [{"field": "disposition", "from": "hold"}], "channel": "sync",
        "id": "evt-0", "kind": "forgotten", "locator": "file:///w/p.step", "of": "dec_ahead",
        "revision": rev(1), "step": 0, "subject": "bore fit"}))
    .unwrap();
    let event = serde_json::json!({"event": event.sealed()});
    write_lines(
        &dir.path().join("ahead.jsonl"),
        &[
            bore_line(&held.id, AHEAD, "from a clock ahead"),
            decision,
            event,
        ],
    );
    let o = run(dir.path(), &["--db", "r.db", "import", "ahead.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let clock: Vec<&str> = out.lines().filter(|l| l.starts_with("clock: ")).collect();
    assert_eq!(clock.len(), 3, "{out}");
    assert!(
        clock[0].starts_with(&format!(
            "clock: line 1: record {} feature \"bore\"",
            held.id
        )),
        "{out}"
    );
    assert!(
        clock[1].contains(
            "line 2: the verdict of decision dec_ahead on \"Bore 10 H7\" (rejected via app)"
        ),
        "{out}"
    );
    assert!(
        clock[2].contains("line 3: the event `forgotten` of dec_ahead \"bore fit\""),
        "{out}"
    );
    assert!(
        clock
            .iter()
            .all(|l| l.contains(AHEAD) && l.contains("ahead of this machine's clock")),
        "{out}"
    );
    // The decision stays (an import never deletes), and its history goes on after that end.
    let (_, events) = items_and_events(&export(dir.path(), "r.db"));
    let last = events
        .lines()
        .rfind(|l| l.contains("\"of\":\"dec_ahead\""))
        .unwrap_or_default();
    assert!(last.contains("\"after\":"), "{events}");
    assert!(events.contains("\"kind\":\"arrived\""), "{events}");
}

/// `import` lists each event new to the database that says an engineer gave a verdict, as
/// `sync` lists those of the folder's history: an event's seal is a digest anyone can
/// compute, so a file can claim any engineer's verdict. Importing the same file again lists
/// nothing (nothing new).
#[test]
fn import_lists_the_engineer_verdict_events_it_adds() {
    use review_mcp::review::{Judgement, Verdict, Via};
    use review_mcp::store::{DecisionRef, Shown, Store, VerdictsOutcome};
    let dir = TempDir::new("import-verdict-events").unwrap();
    let decision = serde_json::json!({"decision": {
        "id": "dec_judged", "subject": "bore fit", "disposition": "hold", "summary": "s",
        "basis": [{"requirement": "Bore 10 H7", "source": "drawing", "state": "satisfied",
            "faces": []}],
        "artifact": {"revision": rev(1), "format": "step", "uri": "file:///w/p.step"},
        "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-02T00:00:00.000Z"}});
    write_lines(&dir.path().join("decision.jsonl"), &[decision]);
    let o = run(dir.path(), &["--db", "a.db", "import", "decision.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    {
        let mut store = Store::open(&dir.path().join("a.db")).unwrap();
        let at = DecisionRef::Id("dec_judged");
        let shown = store.find_decision(&at).unwrap().unwrap().basis[0].digest();
        let verdict = Verdict {
            meaning: None,
            author: Some("Ada".into()),
            at: review_mcp::time::now(),
            judgement: Judgement::Rejected,
            reason: None,
            via: Via::Terminal,
        };
        let outcome = store
            .record_verdicts(&at, Shown::Item(&shown), &[(0, verdict)])
            .unwrap();
        assert!(
            matches!(outcome, VerdictsOutcome::Recorded(_)),
            "{outcome:?}"
        );
    }
    fs::write(dir.path().join("a.jsonl"), export(dir.path(), "a.db")).unwrap();
    let listed = |o: &Output| -> Vec<String> {
        stdout(o)
            .lines()
            .filter(|l| l.starts_with("engineer verdict event from the file: "))
            .map(str::to_string)
            .collect()
    };
    let o = run(dir.path(), &["--db", "b.db", "import", "a.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines = listed(&o);
    assert_eq!(lines.len(), 1, "{}", stdout(&o));
    assert!(
        lines[0].contains(": decision dec_judged ")
            && lines[0].contains("\"Bore 10 H7\": rejected via terminal by Ada at "),
        "{}",
        stdout(&o)
    );
    let o = run(dir.path(), &["--db", "b.db", "import", "a.jsonl"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(listed(&o).is_empty(), "{}", stdout(&o));
}
