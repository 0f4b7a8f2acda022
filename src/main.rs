//! The `review-mcp` binary: parse the command line, set up logging on stderr, open the store,
//! run a subcommand. The only place with process concerns (exit status, stdio handles).
//!
//! Exit status: 0 on success (and when stdin reaches EOF while serving), 1 on a failure
//! (message on stderr), 2 on a usage error (message and usage text on stderr).

mod cli;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use review_mcp::{logging, server::Server, service::Service, store::Store};

use cli::{Command, Invocation};

/// Exit status of a command-line mistake.
const USAGE_EXIT: u8 = 2;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let invocation = match cli::parse(args, std::env::var_os(cli::DB_ENV)) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("review-mcp: {e}\n\n{}", cli::USAGE);
            return ExitCode::from(USAGE_EXIT);
        }
    };
    logging::init();
    match run(invocation) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("review-mcp: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(invocation: Invocation) -> anyhow::Result<ExitCode> {
    let Invocation { command, db } = invocation;
    match command {
        Command::Serve => serve(&db),
        Command::Help => print_stdout(&cli::help_text()),
        Command::Version => print_stdout(&format!("{}\n", cli::version_text())),
        Command::Revision { files } => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            let stderr = io::stderr();
            let mut err = stderr.lock();
            match cli::revision(&files, &mut out, &mut err) {
                Ok(true) => Ok(ExitCode::SUCCESS),
                Ok(false) => Ok(ExitCode::FAILURE),
                // The reader went away (`| head`): nothing left to tell it.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
                Err(e) => Err(e.into()),
            }
        }
        Command::Export { output } => cli::export(&db, output.as_deref()),
        Command::Import { file } => cli::import(&db, &file),
        Command::Check => cli::check(&db),
        Command::Backup { file } => cli::backup(&db, &file),
        Command::Replay {
            bless: true, files, ..
        } => cli::bless(&files),
        Command::Replay { command, files, .. } => {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            match review_mcp::replay::replay_files(command.as_deref(), &files, &mut out) {
                Ok(true) => Ok(ExitCode::SUCCESS),
                Ok(false) => Ok(ExitCode::FAILURE),
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::FAILURE),
                Err(e) => Err(e.into()),
            }
        }
    }
}

/// The stdio server: check the database file, serve until EOF. A file that is refused (newer
/// schema, foreign, not SQLite, not a regular file, hard-linked, not writable) ends the
/// process with its message before any protocol traffic. The file itself is opened (and a new
/// one created) at the first request that needs it, see [`Store::lazy`].
fn serve(db: &Path) -> anyhow::Result<ExitCode> {
    let store = match Store::lazy(db) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("review-mcp: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut server = Server::new(Service::new(store));
    let stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    match server.run(stdin, &mut stdout) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e.into()),
    }
}

/// Help and version go to stdout (a person asked for them); a closed pipe is not an error.
fn print_stdout(text: &str) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e.into()),
    }
}
