//! `review-mcp [serve]`: the MCP server on stdin and stdout.

use std::io;
use std::path::Path;
use std::process::ExitCode;

use review_mcp::{server::Server, service::Service, store::Store};

/// The stdio server: check the database file, serve until EOF. A file that is refused (newer
/// schema, foreign, not SQLite, not a regular file, hard-linked, not writable) ends the
/// process with its message before any protocol traffic. The file itself is opened (and a new
/// one created) at the first request that needs it, see [`Store::lazy`].
pub fn run(db: &Path) -> anyhow::Result<ExitCode> {
    let store = match Store::lazy(db) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("review-mcp: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut server = Server::new(Service::new(store));
    // The reader thread owns stdin (see `Server::run`).
    let stdin = io::BufReader::with_capacity(64 * 1024, io::stdin());
    let mut stdout = io::stdout().lock();
    match server.run(stdin, &mut stdout) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e.into()),
    }
}
