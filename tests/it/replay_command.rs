//! `replay --command CMD` starts every transcript's server in a new empty working directory
//! whose path replaces `{dir}` in CMD, and removes it afterwards (issue 12): transcripts that
//! write records no longer change what the next one lists.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{Result, ensure};

use crate::support::TempDir;

fn fixtures() -> Result<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-fixtures");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(d)? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// How many servers replaying `files` starts: one per version a shared file names, else one.
fn runs(files: &[PathBuf]) -> Result<usize> {
    let mut n = 0;
    for f in files {
        n += review_mcp::replay::variants(&std::fs::read_to_string(f)?)?.len();
    }
    Ok(n)
}

fn replay(command: &str, files: &[PathBuf]) -> Result<Output> {
    Ok(Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .arg("replay")
        .arg("--command")
        .arg(command)
        .args(files)
        .env("MCP_LOG_LEVEL", "off")
        .output()?)
}

#[test]
fn replay_command_with_dir_gives_every_transcript_a_fresh_database() -> Result<()> {
    let files = fixtures()?;
    ensure!(files.len() > 50, "{} transcripts found", files.len());
    let runs = runs(&files)?;
    ensure!(
        runs > files.len(),
        "no shared transcripts among {runs} runs"
    );
    let tmp = TempDir::new("replay-dirs")?;
    let list = tmp.join("dirs");
    let command = format!(
        "echo \"$PWD {{dir}}\" >> '{}' && exec '{}' --db {{dir}}/r.db",
        list.display(),
        env!("CARGO_BIN_EXE_review-mcp")
    );
    let o = replay(&command, &files)?;
    let report = String::from_utf8_lossy(&o.stdout);
    ensure!(o.status.success(), "{report}");
    ensure!(
        report.ends_with(&format!(
            "{} transcript(s), {runs} runs: all matched\n",
            files.len()
        )),
        "{report}"
    );
    let seen = std::fs::read_to_string(&list)?;
    let dirs: Vec<&str> = seen.lines().collect();
    ensure!(dirs.len() == runs, "{} servers started", dirs.len());
    let mut unique = dirs.clone();
    unique.sort_unstable();
    unique.dedup();
    ensure!(unique.len() == dirs.len(), "a directory was shared");
    for line in dirs {
        let (cwd, substituted) = line.split_once(' ').unwrap_or((line, ""));
        ensure!(
            cwd == substituted,
            "{{dir}} is the working directory: {line}"
        );
        ensure!(!Path::new(cwd).exists(), "{cwd} was left behind");
    }
    Ok(())
}

#[test]
fn replay_command_without_dir_runs_in_a_fresh_working_directory() -> Result<()> {
    // Without --db the server opens ./review-mcp.db: in its own directory each time.
    let files = fixtures()?;
    let o = replay(env!("CARGO_BIN_EXE_review-mcp"), &files)?;
    let report = String::from_utf8_lossy(&o.stdout);
    ensure!(o.status.success(), "{report}");
    ensure!(report.contains("all matched"), "{report}");
    Ok(())
}

#[test]
fn help_documents_the_dir_placeholder_of_replay_command() -> Result<()> {
    let o = Command::new(env!("CARGO_BIN_EXE_review-mcp"))
        .arg("--help")
        .output()?;
    let help = String::from_utf8_lossy(&o.stdout);
    ensure!(
        help.contains("--command 'review-mcp --db {dir}/r.db'"),
        "{help}"
    );
    ensure!(help.contains("new empty working directory"), "{help}");
    Ok(())
}
