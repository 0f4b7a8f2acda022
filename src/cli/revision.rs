//! `review-mcp revision FILE...`: the sha256 revision of each file (`review::file_revision`,
//! the library function the `artifact_revision` tool uses too: a regular file only).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use review_mcp::review::{file_revision, is_revision, short_revision_head};
use review_mcp::text::escape_controls;
use review_mcp::tools::{digest_refused, short_revision_refused, short_revision_refused_alone};

/// The revision `review` and `form3` take: `target` as given when it is a `sha256:`
/// revision, else the revision of the file it names (hashed, never parsed), with that file.
/// Refused with the message to print: the short form an answer writes (`sha256:94ff…`) says
/// so and names the revision of the database `db` it stands for, when exactly one
/// (`tools::short_revision_refused`, as a tool's argument is refused), and a digest as a
/// checksum tool prints it names the revision to pass (`tools::digest_refused`); another mistyped or
/// cut-short revision is named as one, anything else as the file that could not be read.
pub(super) fn of_target<'a>(
    target: &'a Path,
    db: &Path,
) -> Result<(String, Option<&'a Path>), String> {
    if let Some(r) = target.to_str().filter(|t| is_revision(t)) {
        return Ok((r.to_string(), None));
    }
    match file_revision(target) {
        Ok(r) => Ok((r, Some(target))),
        Err(e) => {
            let shown = shown(target);
            // Any case, after pasted spaces: `SHA256:…` is no file name either.
            let prefix = shown.trim_start().get(..7).map(str::to_ascii_lowercase);
            // A digest as a checksum tool prints it: the revision it stands for, named.
            let digest = target.to_str().and_then(digest_refused);
            let short = || {
                target
                    .to_str()
                    .filter(|t| short_revision_head(t).is_some())
                    .and_then(|t| match super::database::open_existing(db) {
                        Ok(mut store) => short_revision_refused(&mut store, t),
                        // No database to look in: what the form is and what to pass.
                        Err(_) => short_revision_refused_alone(t),
                    })
            };
            Err(if let Some(refused) = digest.or_else(short) {
                escape_controls(&refused).into_owned()
            } else if prefix.as_deref() == Some("sha256:") {
                format!(
                    "'{shown}' is not a revision (sha256:<64 lowercase hex>; `review-mcp \
                     revision FILE` prints a file's) nor a file ({e})"
                )
            } else {
                format!("{shown}: {e} (give the part's file or its sha256:<64 hex> revision)")
            })
        }
    }
}

/// `review-mcp revision FILE...`: one `sha256:<hex>  FILE` line per readable file on `out`,
/// one message per unreadable file on `err`. Returns whether every file was hashed.
pub fn revision(files: &[PathBuf], out: &mut dyn Write, err: &mut dyn Write) -> io::Result<bool> {
    let mut all = true;
    for path in files {
        match file_revision(path) {
            // A file name is shown escaped (`\u{a}`): one holding a line break cannot print
            // a second `sha256:…  name` line, nor an escape sequence act on the terminal.
            Ok(rev) => {
                writeln!(out, "{rev}  {}", shown(path))?;
                out.flush()?;
            }
            Err(e) => {
                all = false;
                let e = escape_controls(&e.to_string()).into_owned();
                // A message stderr cannot take is lost, as `say` loses it: the exit status
                // and the other files' lines stand.
                let _ = writeln!(err, "review-mcp: {}: {e}", shown(path));
            }
        }
    }
    Ok(all)
}

use review_mcp::text::shown_path as shown;

/// Runs `revision` on stdout and stderr: exit status 1 when a file could not be hashed.
pub fn run(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    match revision(files, &mut io::stdout().lock(), &mut io::stderr().lock()) {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Ok(ExitCode::FAILURE),
        Err(e) => crate::cli::finish_stdout(Err(e), "the revisions", ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_revision_matches_known_digest() {
        let dir = std::env::temp_dir().join(format!("review-mcp-cli-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("abc.txt");
        std::fs::write(&p, b"abc").unwrap();
        assert_eq!(
            file_revision(&p).unwrap(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let mut out = Vec::new();
        let mut errs = Vec::new();
        let missing = dir.join("missing.step");
        let ok = revision(
            &[missing.clone(), dir.clone(), p.clone()],
            &mut out,
            &mut errs,
        )
        .unwrap();
        assert!(!ok);
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            format!(
                "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  {}\n",
                p.display()
            )
        );
        let errs = String::from_utf8(errs).unwrap();
        assert!(errs.contains("missing.step: no such file"), "{errs}");
        assert!(
            errs.contains("is a directory, not a regular file"),
            "{errs}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file name is not ours to print raw: one holding a line break and a revision printed
    /// a second `sha256:…  name` line that no file had (as `sha256sum` guards against), and
    /// an escape sequence in one acted on the terminal. Names are shown escaped, on one line.
    #[test]
    fn revision_file_names_cannot_forge_a_line_or_act_on_the_terminal() {
        let dir = std::env::temp_dir().join(format!("review-mcp-cli-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let forged = format!(
            "a\nsha256:{}  bracket.step\u{1b}[2K\u{202e}",
            "0".repeat(64)
        );
        let p = dir.join(&forged);
        std::fs::write(&p, b"abc").unwrap();
        let missing = dir.join(format!("gone\n{forged}"));
        let (mut out, mut errs) = (Vec::new(), Vec::new());
        revision(&[p, missing], &mut out, &mut errs).unwrap();
        for text in [
            String::from_utf8(out).unwrap(),
            String::from_utf8(errs).unwrap(),
        ] {
            assert_eq!(text.lines().count(), 1, "{text:?}");
            let raw: Vec<char> = text
                .trim_end_matches('\n')
                .chars()
                .filter(|&c| review_mcp::text::is_control_like(c))
                .collect();
            assert!(raw.is_empty(), "{raw:?} in {text:?}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
