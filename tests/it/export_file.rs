//! `export -o FILE` writes through a temporary file beside FILE (issue 12): created
//! exclusively, so a symlink planted at a temporary name is never followed, and with the
//! database's permission bits, so a backup is no more readable than the database.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use anyhow::{Result, ensure};

use crate::support::TempDir;

fn run(dir: &Path, args: &[&str]) -> Result<Output> {
    Ok(Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .args(args)
        .current_dir(dir)
        .env_remove("REVIEW_MCP_DB_PATH")
        .env("MCP_LOG_LEVEL", "off")
        .stdin(Stdio::null())
        .output()?)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// A database with one record, made by serving one `remember` call.
fn database(dir: &Path) -> Result<()> {
    serve(
        dir,
        &[
            INITIALIZE,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"artifact":{"revision":"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","format":"step"},"entity_ids":[],"name":"bore"}}}"#,
        ],
    )
}

/// `lines` served to a server of `r.db` in `dir`, its answers dropped.
fn serve(dir: &Path, lines: &[&str]) -> Result<()> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .args(["--db", "r.db"])
        .current_dir(dir)
        .env("MCP_LOG_LEVEL", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin.write_all(format!("{}\n", lines.join("\n")).as_bytes())?;
    }
    ensure!(child.wait()?.success());
    Ok(())
}

fn mode(path: &Path) -> Result<u32> {
    Ok(std::fs::metadata(path)?.permissions().mode() & 0o777)
}

#[test]
fn export_symlink_planted_at_the_old_temp_name_is_not_followed() -> Result<()> {
    let dir = TempDir::new("symlink")?;
    database(dir.path())?;
    let victim = dir.join("victim");
    std::fs::write(&victim, b"precious")?;
    let planted = dir.join("out.jsonl.tmp");
    std::os::unix::fs::symlink(&victim, &planted)?;
    let o = run(dir.path(), &["--db", "r.db", "export", "-o", "out.jsonl"])?;
    ensure!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ensure!(
        std::fs::read(&victim)? == b"precious",
        "the symlink was followed"
    );
    ensure!(
        std::fs::symlink_metadata(&planted)?
            .file_type()
            .is_symlink()
    );
    let export = std::fs::read_to_string(dir.join("out.jsonl"))?;
    ensure!(export.contains("\"name\":\"bore\""), "{export}");
    // Nothing is left behind but what was there and the export.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("r.db"))
        .collect();
    names.sort();
    ensure!(
        names == ["out.jsonl", "out.jsonl.tmp", "victim"],
        "{names:?}"
    );
    Ok(())
}

/// Regression: `export -o` reported "exported 0 records and 1 decisions", silent about the
/// history events it wrote after them (a decision's first one, its creation). It counts them
/// now.
#[test]
fn export_to_a_file_counts_the_history_events_it_wrote() -> Result<()> {
    let dir = TempDir::new("counts")?;
    serve(
        dir.path(),
        &[
            INITIALIZE,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember_decision","arguments":{"artifact":{"revision":"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","format":"step"},"subject":"bore","disposition":"hold","basis":[{"requirement":"Bore 10 H7","source":"drawing","state":"satisfied"}]}}}"#,
        ],
    )?;
    let o = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .args(["--db", "r.db", "export", "-o", "out.jsonl"])
        .current_dir(dir.path())
        .env("MCP_LOG_LEVEL", "info")
        .env("MCP_LOG_FORMAT", "human")
        .stdin(Stdio::null())
        .output()?;
    let err = String::from_utf8_lossy(&o.stderr);
    ensure!(o.status.success(), "{err}");
    let export = std::fs::read_to_string(dir.join("out.jsonl"))?;
    let events = export
        .lines()
        .filter(|l| l.starts_with("{\"event\""))
        .count();
    ensure!(events == 1, "{export}");
    ensure!(
        err.contains("exported 0 records, 1 decision and 1 history event to out.jsonl"),
        "{err}"
    );
    Ok(())
}

#[test]
fn export_file_mode_equals_the_database_mode() -> Result<()> {
    let dir = TempDir::new("mode")?;
    database(dir.path())?;
    let db = dir.join("r.db");
    ensure!(mode(&db)? == 0o600, "a new database is 0600");
    for want in [0o600, 0o640] {
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(want))?;
        let out = format!("out-{want:o}.jsonl");
        let o = run(dir.path(), &["--db", "r.db", "export", "-o", &out])?;
        ensure!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got = mode(&dir.join(&out))?;
        ensure!(got == want, "export is {got:o}, the database {want:o}");
    }
    Ok(())
}

/// `export -o` onto anything but a regular file is refused, as `form3 -o` refuses it, and
/// the thing is left as it was: a symbolic link (to a file, or dangling: the rename would
/// have replaced the link with a file), a directory, a FIFO (the rename would have replaced
/// the FIFO, or a device node such as /dev/full, with a file).
#[test]
fn export_onto_a_link_directory_or_fifo_is_refused_and_left_alone() -> Result<()> {
    let dir = TempDir::new("odd-target")?;
    database(dir.path())?;
    std::fs::write(dir.join("victim"), b"precious")?;
    std::os::unix::fs::symlink("victim", dir.join("link.jsonl"))?;
    std::os::unix::fs::symlink("nowhere", dir.join("dangling.jsonl"))?;
    std::fs::create_dir(dir.join("adir"))?;
    let made = Command::new("mkfifo").arg(dir.join("fifo")).status()?;
    ensure!(made.success(), "mkfifo failed");
    for (target, says) in [
        ("link.jsonl", "symbolic link"),
        ("dangling.jsonl", "symbolic link"),
        ("adir", "directory"),
        ("fifo", "FIFO"),
    ] {
        let o = run(dir.path(), &["--db", "r.db", "export", "-o", target])?;
        let err = String::from_utf8_lossy(&o.stderr);
        ensure!(o.status.code() == Some(1), "{target}: {err}");
        ensure!(
            err.contains(says) && err.contains(target),
            "{target}: {err}"
        );
    }
    ensure!(std::fs::read(dir.join("victim"))? == b"precious");
    for link in ["link.jsonl", "dangling.jsonl"] {
        ensure!(
            std::fs::symlink_metadata(dir.join(link))?
                .file_type()
                .is_symlink()
        );
    }
    use std::os::unix::fs::FileTypeExt;
    ensure!(
        std::fs::symlink_metadata(dir.join("fifo"))?
            .file_type()
            .is_fifo()
    );
    ensure!(
        !dir.join("nowhere").exists(),
        "written through the dangling link"
    );
    Ok(())
}

/// `export -o` and `backup` into a directory that does not exist say so, and what to do.
#[test]
fn output_in_a_missing_directory_says_so() -> Result<()> {
    let dir = TempDir::new("no-dir")?;
    database(dir.path())?;
    for args in [
        ["export", "-o", "missing/out.jsonl"].as_slice(),
        ["backup", "missing/copy.db"].as_slice(),
    ] {
        let mut all = vec!["--db", "r.db"];
        all.extend_from_slice(args);
        let o = run(dir.path(), &all)?;
        let err = String::from_utf8_lossy(&o.stderr);
        ensure!(o.status.code() == Some(1), "{args:?}: {err}");
        ensure!(
            err.contains("the directory missing does not exist") && err.contains("create it"),
            "{args:?}: {err}"
        );
    }
    ensure!(!dir.join("missing").exists());
    Ok(())
}

/// Regression (found by cliout): an output name near the file system's limit of 255 bytes,
/// valid itself, was refused ("File name too long"): the temporary file beside it,
/// `.NAME.PID-N.tmp`, was too long. Its temporary name keeps only the name's first 200
/// bytes now; `export -o`, `form3 -o` and `backup` write it, and leave no temporary file.
#[test]
fn an_output_name_near_the_limit_is_written() -> Result<()> {
    let dir = TempDir::new("long-name")?;
    database(dir.path())?;
    let rev = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    // A decision, so that the revision has a Form 3.
    serve(
        dir.path(),
        &[
            INITIALIZE,
            &format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"remember_decision","arguments":{{"artifact":{{"revision":"{rev}","format":"step"}},"subject":"bore","disposition":"hold","basis":[{{"requirement":"r","source":"drawing","state":"satisfied"}}]}}}}}}"#
            ),
        ],
    )?;
    // 250 bytes, two-byte characters across the cut.
    let name = |tag: &str| format!("{tag}{}", "é".repeat((250 - tag.len()) / 2));
    for (out, args) in [
        (name("e"), vec!["export", "-o"]),
        (name("f3"), vec!["form3", rev, "-o"]),
        (name("b"), vec!["backup"]),
    ] {
        let mut all = vec!["--db", "r.db"];
        all.extend_from_slice(&args);
        all.push(&out);
        let o = run(dir.path(), &all)?;
        ensure!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        ensure!(std::fs::metadata(dir.join(&out))?.len() > 0, "{args:?}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    ensure!(left.is_empty(), "temporary files left: {left:?}");
    Ok(())
}

/// Regression (found by cliout): `export -o /proc/version` said "the directory /proc does not
/// exist; create it": a file system that makes no new file answers "not found" too. The
/// message says the directory takes no new file when it exists.
#[cfg(target_os = "linux")]
#[test]
fn output_in_a_directory_that_takes_no_file_does_not_say_it_is_missing() -> Result<()> {
    let dir = TempDir::new("proc-out")?;
    database(dir.path())?;
    let o = run(
        dir.path(),
        &["--db", "r.db", "export", "-o", "/proc/version"],
    )?;
    let err = String::from_utf8_lossy(&o.stderr);
    ensure!(o.status.code() == Some(1), "{err}");
    ensure!(
        !err.contains("does not exist") && err.contains("/proc takes no new file"),
        "{err}"
    );
    Ok(())
}

/// Regression (found by cliout): `export -o` and `form3 -o` replaced an SQLite database that
/// was not the one read (`--db a.db export -o b.db`, the flag's place slipped; or `-o` naming
/// last week's `backup`): the database was gone, a JSON Lines file in its place. A target
/// holding a database is refused now and left as it was; yesterday's export is still replaced.
#[test]
fn export_onto_another_database_is_refused_and_an_old_export_replaced() -> Result<()> {
    let dir = TempDir::new("onto-db")?;
    database(dir.path())?;
    let o = run(dir.path(), &["--db", "r.db", "backup", "copy.db"])?;
    ensure!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let copy = std::fs::read(dir.join("copy.db"))?;
    let rev = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    for args in [
        vec!["export", "-o", "copy.db"],
        vec!["form3", rev, "-o", "copy.db"],
    ] {
        let mut all = vec!["--db", "r.db"];
        all.extend_from_slice(&args);
        let o = run(dir.path(), &all)?;
        let err = String::from_utf8_lossy(&o.stderr);
        ensure!(o.status.code() == Some(1), "{args:?}: {err}");
        ensure!(
            err.contains("copy.db is an SQLite database") && err.contains("choose another name"),
            "{args:?}: {err}"
        );
        ensure!(std::fs::read(dir.join("copy.db"))? == copy, "{args:?}");
    }
    std::fs::write(dir.join("old.jsonl"), b"yesterday\n")?;
    let o = run(dir.path(), &["--db", "r.db", "export", "-o", "old.jsonl"])?;
    ensure!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    ensure!(std::fs::read(dir.join("old.jsonl"))?.starts_with(b"{\"record\""));
    Ok(())
}
