//! `review-mcp review [--db PATH] [--author NAME] FILE-OR-REVISION`: the engineer's verdicts
//! in their own terminal (`review_mcp::terminal`, where the rules are). Refuses to run unless
//! stdin and stdout are both terminals: a model's shell tool has none, so it cannot pipe
//! answers in (a program that makes a pseudo-terminal can: a barrier, not proof of a person).

use std::io::{self, IsTerminal};
use std::path::Path;
use std::process::ExitCode;

use super::output::shown;
use review_mcp::store::Store;
use review_mcp::terminal;

use super::database::store_error;

/// Why the command will not run without a terminal, and what to do.
pub const NO_TERMINAL: &str = "review-mcp review needs a terminal on stdin and stdout: it records what you type as your own verdicts (via \"terminal\"), so it does not run from a pipe or an assistant's shell tool (neither has a terminal). Run it yourself, in a terminal window: review-mcp review [--db PATH] [--author NAME] FILE-OR-REVISION";

/// Runs the session on this process's terminal.
pub fn run(db: &Path, author: Option<String>, target: &Path) -> anyhow::Result<ExitCode> {
    if !(io::stdin().is_terminal() && io::stdout().is_terminal()) {
        crate::cli::say(format_args!("review-mcp: {NO_TERMINAL}\n"));
        return Ok(ExitCode::FAILURE);
    }
    let author = match super::serve::author_or_env(author) {
        Ok(a) => a,
        Err(why) => {
            crate::cli::say(format_args!("review-mcp: {why}\n"));
            return Ok(ExitCode::FAILURE);
        }
    };
    let (revision, file) = match super::revision::of_target(target, db) {
        Ok(found) => found,
        Err(m) => {
            crate::cli::say(format_args!("review-mcp: {m}\n"));
            return Ok(ExitCode::FAILURE);
        }
    };
    if !db.exists() {
        crate::cli::say(format_args!(
            "review-mcp: no database at {} (give --db PATH or set REVIEW_MCP_DB_PATH to the server's database)\n",
            shown(db)
        ));
        return Ok(ExitCode::FAILURE);
    }
    let mut store = Store::open(db).map_err(|e| store_error(db, e))?;
    // Nothing to judge here: said on stderr, with where the part's review is, and a failure
    // (the session did not run), as `form3` says it.
    let (_, decisions) = store
        .revision_counts(&revision)
        .map_err(|e| store_error(db, e))?;
    if decisions == 0 {
        crate::cli::say(format_args!(
            "review-mcp: {}",
            super::elsewhere::nothing_decided(&mut store, db, file, &revision, "review")
        ));
        return Ok(ExitCode::FAILURE);
    }
    store.set_author(author);
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    terminal::review(&mut store, &revision, &mut input, &mut out)?;
    Ok(ExitCode::SUCCESS)
}
