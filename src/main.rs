//! The `review-mcp` binary: parse the command line, set up logging on stderr, open the store,
//! run a subcommand. The only place with process concerns (exit status, stdio handles).

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use review_mcp::{logging, server::Server, service::Service, store::Store};

fn main() -> ExitCode {
    logging::init();
    match run() {
        Ok(code) => code,
        Err(e) => {
            log::error!("{e:#}");
            eprintln!("review-mcp: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<ExitCode> {
    let db = std::env::var_os("REVIEW_MCP_DB_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("review-mcp.db"));
    let store = Store::open(&db)?;
    let mut server = Server::new(Service::new(store));
    let stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    match server.run(stdin, &mut stdout) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e.into()),
    }
}
