//! git for the sync tests: run in a folder with no system or user configuration and no
//! prompt (`HOME` is the folder itself).

use std::path::Path;
use std::process::{Command, Output};

use anyhow::{Context, ensure};

/// `git args` in `dir`, whatever it exits with.
pub fn git(dir: &Path, args: &[&str]) -> anyhow::Result<Output> {
    Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .with_context(|| format!("cannot run git {args:?}"))
}

/// `git args` in `dir`, which must succeed: what it printed, stdout then stderr.
pub fn git_ok(dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = git(dir, args)?;
    ensure!(
        out.status.success(),
        "git {args:?} in {} failed: {}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}
