//! The `review-mcp` binary: parse the command line, set up logging on stderr, run a
//! subcommand (each in its file under `cli/`). The only place that turns a result into the
//! process's exit status.
//!
//! Exit status: 0 on success (and when stdin reaches EOF while serving), 1 on a failure
//! (message on stderr), 2 on a usage error (message and usage text on stderr).

// A closed stderr makes `eprintln!` panic (exit status 101): messages go through `cli::say`.
#![deny(clippy::print_stderr)]

mod cli;

use std::ffi::OsString;
use std::process::ExitCode;

use review_mcp::logging;

use cli::{Command, Invocation};

/// Exit status of a command-line mistake.
const USAGE_EXIT: u8 = 2;

fn main() -> ExitCode {
    // First, before any thread or file: a write past `ulimit -f` fails instead of killing us.
    cli::file_size_limit::fail_writes_past_it();
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let env = |name| std::env::var_os(name);
    let invocation = match cli::parse(args, env(cli::DB_ENV), env("HOME")) {
        Ok(i) => i,
        Err(e) => {
            // A usage error quotes the argument it refuses, which may hold anything: shown
            // escaped (it is one line: no usage message has a line break of its own).
            cli::say(format_args!(
                "review-mcp: {}\n\n{}\n",
                review_mcp::text::escape_controls(&e.to_string()),
                cli::help::USAGE
            ));
            return ExitCode::from(USAGE_EXIT);
        }
    };
    logging::init();
    match run(invocation) {
        Ok(code) => code,
        Err(e) => {
            // A message may name a file or quote what it holds: no control character of
            // either reaches the terminal (the parts are escaped where they are made; this is
            // the last guard, keeping the message's own line breaks).
            cli::say(format_args!(
                "review-mcp: {}\n",
                review_mcp::text::escape_controls_but_newlines(&format!("{e:#}"))
            ));
            ExitCode::FAILURE
        }
    }
}

fn run(invocation: Invocation) -> anyhow::Result<ExitCode> {
    let Invocation {
        command,
        db,
        author,
    } = invocation;
    let uses_database = !matches!(
        command,
        Command::Help(_)
            | Command::Version
            | Command::Revision { .. }
            | Command::MergeFile { .. }
            | Command::Replay { .. }
    );
    if uses_database {
        cli::database::refuse_standard_stream(&db)?;
    }
    match command {
        Command::Serve => cli::serve::run(&db, author),
        Command::Help(None) => cli::help::print(&cli::help::help_text(), "the help"),
        Command::Help(Some(sub)) => cli::help::print(&cli::help::subcommand_help(sub), "the help"),
        Command::Version => {
            cli::help::print(&format!("{}\n", cli::help::version_text()), "the version")
        }
        Command::Revision { files } => cli::revision::run(&files),
        Command::Export { output } => cli::export::run(&db, output.as_deref()),
        Command::Form3 { target, output } => cli::form3::run(&db, &target, output.as_deref()),
        Command::Import { file } => cli::import::run(&db, &file),
        Command::Check => cli::check::run(&db),
        Command::Review { target } => cli::review::run(&db, author, &target),
        Command::Backup { file } => cli::backup::run(&db, &file),
        Command::Sync { dir, dry_run } => cli::sync::run(&db, &dir, dry_run),
        Command::MergeFile {
            base,
            ours,
            theirs,
            name,
        } => cli::merge_file::run(&base, &ours, &theirs, name.as_deref()),
        Command::Replay {
            bless: true, files, ..
        } => cli::replay::bless(&files),
        Command::Replay { command, files, .. } => cli::replay::run(command.as_deref(), &files),
    }
}
