//! The command line: its arguments, help and usage texts, and one file per subcommand.
//!
//! Parsing is hand-written and strict: an unknown flag, a flag without its value, a repeated
//! flag, a flag given to a subcommand that does not take it, or a wrong number of files is a
//! [`UsageError`](args::UsageError) (exit status 2 with the usage text), so a typo is never
//! silently ignored. Parsing happens in two steps with separate types, as ripgrep does:
//! [`RawArgs`](args::RawArgs) records what was typed, `RawArgs::validate` turns it into an
//! [`Invocation`] that can only hold a runnable command.
//!
//! Each file parses nothing and decides nothing beyond its command's arguments and output:
//! the rules (export, import, sync, merge-file) are the library's, in `review_mcp::sync`,
//! where its unit tests reach them.
//!
//! The files, in reading order:
//!
//! - `cli/args.rs`: the arguments as typed, and the usage error that refuses them.
//! - `cli/invocation.rs`: the validated [`Invocation`] and its [`Command`].
//! - `cli/help.rs`: the usage, `--help` and `--version` texts.
//! - `cli/serve.rs`: the stdio server (the default command).
//! - `cli/review.rs`: `review`, the engineer's verdicts in their own terminal.
//! - `cli/revision.rs`: `revision`, a file's sha256.
//! - `cli/database.rs`: the database opened read-only by the commands that only read it.
//! - `cli/elsewhere.rs`: where a part's review is when its file's revision holds none.
//! - `cli/output.rs`: writing a new file beside the target, never over the database.
//! - `cli/export.rs`: `export` and the JSON Lines it writes.
//! - `cli/form3.rs`: `form3`, a revision's review as an AS9102 Form 3 (CSV).
//! - `cli/import.rs`: `import`, reading an export back.
//! - `cli/backup.rs`: `backup`, a checked copy of the database.
//! - `cli/check.rs`: `check`, the integrity check as an exit status.
//! - `cli/sync.rs`: `sync`, a folder in the team's repository kept in step with the database.
//! - `cli/merge_file.rs`: `merge-file`, the git merge driver of a synced folder.
//! - `cli/replay.rs`: `replay`, transcripts against a server, or blessed.

mod args;
pub mod backup;
pub mod check;
pub mod database;
mod elsewhere;
pub mod export;
pub mod file_size_limit;
pub mod form3;
pub mod help;
pub mod import;
mod invocation;
pub mod merge_file;
mod output;
pub mod replay;
pub mod review;
pub mod revision;
pub mod serve;
pub mod sync;

pub use invocation::{Command, DB_ENV, Invocation, parse};

/// Writes a message to stderr as `eprint!` does, but a closed stderr (`review-mcp … 2>&1 |
/// head -1`, once `head` has its line) is no panic: `eprint!` panics, and the process exits
/// 101 instead of its own status. The message is lost; the exit status stands.
pub fn say(message: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_fmt(message);
}

/// The exit status of a command once its output (`what`) went to stdout: a reader that went
/// away (`| head`) ends it quietly, exit 0; any other failure to write it (a full disk under
/// `> report.txt`) is the command's failure, naming what was lost, and `after` says what the
/// command had done by then (empty: nothing to say), so nobody takes a lost report for
/// nothing to report, nor runs again a command that was done.
pub fn finish_stdout(
    written: std::io::Result<()>,
    what: &str,
    after: &str,
) -> anyhow::Result<std::process::ExitCode> {
    match written {
        Ok(()) => Ok(std::process::ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(std::process::ExitCode::SUCCESS),
        Err(e) => {
            Err(anyhow::Error::new(e).context(format!("cannot write {what} to stdout{after}")))
        }
    }
}
