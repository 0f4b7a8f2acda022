//! Replays every transcript under `protocol-fixtures/` in-process and through the real binary,
//! once per version a shared file names, and fails when a file there is not a transcript that
//! was replayed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail, ensure};
use review_mcp::replay::{self, Outcome};

use crate::support::TempDir;

/// The directories a transcript may live in: an era and, for the legacy era, the revision.
const KNOWN_DIRS: [&str; 7] = [
    "legacy/2025-11-25",
    "legacy/2025-06-18",
    "legacy/2025-03-26",
    "legacy/2024-11-05",
    "legacy/shared",
    "modern/2026-07-28",
    "mixed",
];

/// Where the transcripts that name the versions they run under live.
const SHARED_DIR: &str = "legacy/shared";

/// The legacy revisions, each a directory of its own.
const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-fixtures")
}

/// Every file under `dir`, recursively, sorted.
fn all_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("reading {}", d.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The transcripts, after checking that nothing else lies in the fixture tree: a file with
/// another extension or in an unknown directory would otherwise never run.
fn transcripts() -> Result<Vec<PathBuf>> {
    let root = fixtures_root();
    let mut found = Vec::new();
    for path in all_files(&root)? {
        let rel = path
            .strip_prefix(&root)?
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "README.md" {
            continue;
        }
        let Some((dir, name)) = rel.rsplit_once('/') else {
            bail!("{rel}: transcripts belong in one of {KNOWN_DIRS:?}");
        };
        if !KNOWN_DIRS.contains(&dir) {
            bail!("{rel}: unknown directory; transcripts belong in one of {KNOWN_DIRS:?}");
        }
        let Some(stem) = name.strip_suffix(".jsonl") else {
            bail!("{rel}: not a .jsonl transcript");
        };
        let numbered = stem.len() > 5
            && stem.as_bytes()[..4].iter().all(u8::is_ascii_digit)
            && stem.as_bytes()[4] == b'_';
        if !numbered {
            bail!("{rel}: transcript names are NNNN_what_it_shows.jsonl");
        }
        found.push(path);
    }
    Ok(found)
}

/// A file and, for a shared one, the version of this run.
fn run_name(path: &Path, version: Option<&str>) -> String {
    match version {
        Some(v) => format!("{} under {v}", path.display()),
        None => path.display().to_string(),
    }
}

#[test]
fn transcripts_every_file_replays_in_process() -> Result<()> {
    let files = transcripts()?;
    let mut replayed = BTreeSet::new();
    let mut failures = Vec::new();
    for path in &files {
        for (version, outcome) in replay::replay_runs(None, path) {
            let name = run_name(path, version.as_deref());
            match outcome {
                Outcome::Match { lines } if lines > 0 => {}
                Outcome::Match { .. } => failures.push(format!("{name}: expects nothing")),
                Outcome::Mismatch(why) | Outcome::Broken(why) => {
                    failures.push(format!("{name}\n{why}"));
                }
            }
        }
        replayed.insert(path.clone());
    }
    let on_disk: BTreeSet<PathBuf> = files.iter().cloned().collect();
    assert_eq!(replayed, on_disk, "some transcripts were not replayed");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    Ok(())
}

#[test]
fn transcripts_every_known_directory_has_transcripts() -> Result<()> {
    let files = transcripts()?;
    let root = fixtures_root();
    for dir in KNOWN_DIRS {
        let n = files
            .iter()
            .filter(|p| p.parent() == Some(root.join(dir).as_path()))
            .count();
        assert!(n > 0, "no transcripts in {dir}");
    }
    Ok(())
}

/// A file in `legacy/shared/` names two or more legacy revisions; every other file names none
/// (its directory is its revision).
#[test]
fn transcripts_only_shared_files_name_versions() -> Result<()> {
    let shared = fixtures_root().join(SHARED_DIR);
    for path in transcripts()? {
        let versions = replay::versions(&std::fs::read_to_string(&path)?)?;
        if path.parent() == Some(shared.as_path()) {
            ensure!(
                versions.len() >= 2,
                "{}: a shared transcript names at least two versions",
                path.display()
            );
            for v in &versions {
                ensure!(
                    LEGACY_VERSIONS.contains(&v.as_str()),
                    "{}: {v} is not one of {LEGACY_VERSIONS:?}",
                    path.display()
                );
            }
        } else {
            ensure!(
                versions.is_empty(),
                "{}: only transcripts in {SHARED_DIR} name versions",
                path.display()
            );
        }
    }
    Ok(())
}

/// The check that found the shared files, kept so no new pair slips in: two files of different
/// revision directories that are byte for byte the same once each file's own revision is
/// `{{version}}` (comments aside, which may name versions) belong in one shared file.
#[test]
fn transcripts_no_two_revision_files_differ_only_by_their_version() -> Result<()> {
    let root = fixtures_root();
    let mut seen: Vec<(String, PathBuf)> = Vec::new();
    let mut duplicates = Vec::new();
    for v in LEGACY_VERSIONS {
        for path in all_files(&root.join("legacy").join(v))? {
            let text = std::fs::read_to_string(&path)?;
            let body: Vec<String> = text
                .lines()
                .filter(|l| !l.starts_with("{\"comment\""))
                .map(|l| l.replace(v, replay::VERSION_PLACEHOLDER))
                .collect();
            let body = body.join("\n");
            if let Some((_, other)) = seen.iter().find(|(b, _)| *b == body) {
                duplicates.push(format!("{} and {}", other.display(), path.display()));
            }
            seen.push((body, path));
        }
    }
    assert!(
        duplicates.is_empty(),
        "these differ only by their version; make each pair one file in {SHARED_DIR}:\n{}",
        duplicates.join("\n")
    );
    Ok(())
}

/// The same files through the built binary, as `review-mcp replay --command` runs them: the
/// real stdin/stdout framing, a real SQLite file (a fresh one per run, like the in-process
/// replay), and a prompt exit 0 at EOF.
#[test]
fn transcripts_every_file_replays_against_the_binary() -> Result<()> {
    // `{dir}` is a new empty directory per run, so every run has a fresh database.
    let command = format!(
        "MCP_LOG_LEVEL=off REVIEW_MCP_DB_PATH={}/r.db exec '{}'",
        replay::DIR_PLACEHOLDER,
        env!("CARGO_BIN_EXE_review-mcp")
    );
    let mut failures = Vec::new();
    for path in &transcripts()? {
        for (version, outcome) in replay::replay_runs(Some(&command), path) {
            match outcome {
                Outcome::Match { .. } => {}
                Outcome::Mismatch(why) | Outcome::Broken(why) => {
                    failures.push(format!("{}\n{why}", run_name(path, version.as_deref())));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    Ok(())
}

#[test]
fn replay_mismatch_report_names_line_and_path() -> Result<()> {
    let dir = TempDir::new("mismatch")?;
    let path = dir.path().join("0001_wrong.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"send":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#,
            "\n",
            r#"{"expect":{"jsonrpc":"2.0","id":1,"result":{"unexpected":true}}}"#,
            "\n"
        ),
    )?;
    let mut report = Vec::new();
    let all = replay::replay_files(None, &[path], &mut report)?;
    let report = String::from_utf8(report)?;
    assert!(!all);
    assert!(report.contains("FAIL"), "{report}");
    assert!(report.contains("transcript line 2"), "{report}");
    assert!(report.contains("/result/unexpected"), "{report}");
    Ok(())
}

#[test]
fn replay_command_that_never_answers_is_reported_not_hung() -> Result<()> {
    let dir = TempDir::new("silent")?;
    let path = dir.path().join("0001_ping.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"send":{"jsonrpc":"2.0","id":1,"method":"ping"}}"#,
            "\n",
            r#"{"expect":{"jsonrpc":"2.0","id":1,"result":{}}}"#,
            "\n"
        ),
    )?;
    // A "server" that exits at once without writing anything.
    let outcome = replay::replay_file(Some("exit 0"), &path);
    let Outcome::Mismatch(why) = outcome else {
        bail!("expected a mismatch, got {outcome:?}");
    };
    assert!(why.contains("closed its output"), "{why}");
    Ok(())
}
