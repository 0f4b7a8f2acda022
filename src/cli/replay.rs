//! `review-mcp replay`: protocol transcripts replayed against a server, or blessed.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Replays each transcript against `command` (this server, in process, when `None`) and
/// reports the first difference per file: exit status 1 when any file differs.
pub fn run(command: Option<&str>, files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    match review_mcp::replay::replay_files(command, files, &mut out) {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Ok(ExitCode::FAILURE),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::FAILURE),
        Err(e) => Err(e.into()),
    }
}

/// `review-mcp replay --bless FILE...`: re-records each transcript's expectations from this
/// server, in process, and writes the file back only when it changed. Sends, comments and
/// `{{any}}` wildcards are kept, so the diff shows exactly what the server now answers.
pub fn bless(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    let mut failed = false;
    for file in files {
        match review_mcp::replay::bless_file(file) {
            Ok(changed) => {
                let verb = if changed { "blessed" } else { "unchanged" };
                writeln!(out, "{verb} {}", super::output::shown(file))?;
            }
            Err(e) => {
                failed = true;
                crate::cli::say(format_args!(
                    "review-mcp: {}: {e}\n",
                    super::output::shown(file)
                ));
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
