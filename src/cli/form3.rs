//! `review-mcp form3 FILE-OR-REVISION [-o FILE]`: the review of a revision (the part's file's,
//! hashed here as `review` does, or one given as `sha256:…`) as an AS9102 Form 3 in CSV, every
//! row (the resource `review://revisions/{revision}/form3.csv` serves the same
//! bytes when they fit one answer; `-o FILE` puts a UTF-8 byte-order mark before them, for
//! Excel). The rules of the form are the library's
//! (`review_mcp::resources::form3`).

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::anyhow;

use review_mcp::resources::ResourceError;
use review_mcp::resources::form3::Form3;
use review_mcp::store::damaged_message;

use super::database::{open_existing, store_error};
use super::elsewhere::nothing_decided;
use super::output::{refuse_input_target, refuse_output, write_beside};

/// Writes the Form 3 of `target` (a `sha256:` revision, else a file whose revision it is) to
/// stdout, or to `output` through a temporary file beside
/// it renamed into place: a failure never leaves a partial file, and a symlink, a directory
/// or the database itself is refused as the target.
pub fn run(db: &Path, target: &Path, output: Option<&Path>) -> anyhow::Result<ExitCode> {
    if let Some(path) = output {
        refuse_output(db, path)?;
    }
    // A revision is taken as given; anything else is the part's file, hashed (never parsed).
    let (revision, of_file) = super::revision::of_target(target, db).map_err(|m| anyhow!(m))?;
    if let (Some(file), Some(path)) = (of_file, output) {
        refuse_input_target(file, path)?;
    }
    let revision = revision.as_str();
    let mut store = open_existing(db)?;
    // A revision holding notes but no decision has no review to list: a form of no rows,
    // written or not, would read as a review that found nothing.
    let (_, decisions) = store
        .revision_counts(revision)
        .map_err(|e| store_error(db, e))?;
    let form = match Form3::load(&mut store, revision, None) {
        Ok(f) if decisions > 0 => f,
        Ok(_) | Err(ResourceError::NotFound) => {
            crate::cli::say(format_args!(
                "review-mcp: {}",
                nothing_decided(&mut store, db, of_file, revision, "form3")
            ));
            return Ok(ExitCode::FAILURE);
        }
        Err(ResourceError::Storage(m)) => return Err(anyhow!("{m}")),
        Err(ResourceError::Damaged(finding)) => {
            return Err(anyhow!("{}", damaged_message(Some(db), &finding)));
        }
        Err(ResourceError::InvalidCursor) => return Err(anyhow!("invalid cursor")),
        Err(ResourceError::Internal(m)) => return Err(anyhow!("internal error: {m}")),
    };
    // A file gets the byte-order mark a spreadsheet needs to read UTF-8; stdout (a pipe, a
    // program, `-o -`) the bytes the resource serves.
    let Some(path) = output else {
        let csv = form.csv();
        let mut out = io::stdout().lock();
        let written = out.write_all(csv.as_bytes()).and_then(|()| out.flush());
        return crate::cli::finish_stdout(written, "the Form 3", "");
    };
    let csv = form.csv_file();
    write_beside(path, db, |mut file| {
        file.write_all(csv.as_bytes())?;
        file.sync_all()?;
        Ok(())
    })?;
    log::info!(
        "wrote the Form 3 of {revision}: {} to {}",
        review_mcp::text::counted(form.rows.len(), "row"),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
