//! `review-mcp form3 REVISION [-o FILE]`: the review of a revision as an AS9102 Form 3 in
//! CSV, every row (the resource `review://revisions/{revision}/form3.csv` serves the same
//! bytes when they fit one answer). The rules of the form are the library's
//! (`review_mcp::resources::form3`).

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::anyhow;

use review_mcp::resources::ResourceError;
use review_mcp::resources::form3::Form3;

use super::database::open_existing;
use super::output::{refuse_database_target, write_beside};

/// Writes the Form 3 of `revision` to stdout, or to `output` through a temporary file beside
/// it renamed into place: a failure never leaves a partial file, and a symlink, a directory
/// or the database itself is refused as the target.
pub fn run(db: &Path, revision: &str, output: Option<&Path>) -> anyhow::Result<ExitCode> {
    if let Some(path) = output {
        refuse_database_target(db, path)?;
    }
    let mut store = open_existing(db)?;
    let form = match Form3::load(&mut store, revision, None) {
        Ok(f) => f,
        Err(ResourceError::NotFound) => {
            return Err(anyhow!(
                "nothing is recorded for {revision} in {}: check the revision (`review-mcp revision FILE`) and --db",
                db.display()
            ));
        }
        Err(ResourceError::Storage(m)) => return Err(anyhow!("{m}")),
        Err(ResourceError::InvalidCursor) => return Err(anyhow!("invalid cursor")),
    };
    let csv = form.csv();
    let Some(path) = output else {
        let mut out = io::stdout().lock();
        return match out.write_all(csv.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => Ok(ExitCode::SUCCESS),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
            Err(e) => Err(anyhow!(e).context("cannot write the Form 3")),
        };
    };
    write_beside(path, db, |mut file| {
        file.write_all(csv.as_bytes())?;
        file.sync_all()?;
        Ok(())
    })?;
    log::info!(
        "wrote the Form 3 of {revision}: {} rows to {}",
        form.rows.len(),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
