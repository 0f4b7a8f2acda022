//! `review-mcp sync` under the git settings real teams have: a sparse checkout, ignore
//! patterns, attributes that rewrite files, a host's `GIT_DIR` in the environment, a
//! repository owned by another user. Sync reads and writes the folder's files; git decides
//! what of them is checked out and committed, so a setting under which the two differ
//! refuses the sync, saying how to fix it, and nothing changes (no item deleted, no file
//! written). Each test runs real git on a clone in a temporary directory, with no system or
//! user configuration (`HOME` is the test's directory), the binary's git too.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::ensure;

use crate::support::TempDir;
use crate::support::client::binary;
use crate::support::file_events::succeeded as ok;
use crate::support::git::git_ok;

const REV: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

fn feature(id: &str, name: &str) -> String {
    format!(
        r#"{{"record":{{"id":"{id}","kind":"feature","name":"{name}","note":"n","tags":[],"entity_ids":[],"id_scheme":"opaque","artifact":{{"revision":"{REV}","format":"step","uri":"file:///w/p.step"}},"created_at":"2026-01-01T00:00:00.000Z","updated_at":"2026-01-01T00:00:00.000Z"}}}}"#
    )
}

/// `review-mcp --db DB ARGS` with git's configuration as the tests' git has it (none but
/// the repository's: `HOME` is `home`), and `env` on top.
fn review_mcp(
    home: &Path,
    db: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> anyhow::Result<Output> {
    let mut cmd = Command::new(binary());
    cmd.arg("--db")
        .arg(db)
        .args(args)
        .env("MCP_LOG_LEVEL", "warn")
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    Ok(cmd.output()?)
}

/// The refusal's message (the run must have failed).
fn refused(out: Output) -> anyhow::Result<String> {
    ensure!(
        !out.status.success(),
        "not refused: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    Ok(String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A clone (`repo/`) whose folder `repo/review` was synced with a database of two features
/// and committed, beside a file of the project (`repo/src/part.txt`).
struct Repo {
    dir: TempDir,
    repo: PathBuf,
    db: PathBuf,
}

impl Repo {
    fn new(tag: &str) -> anyhow::Result<Repo> {
        let dir = TempDir::new(tag)?;
        let repo = dir.join("repo");
        std::fs::create_dir_all(repo.join("src"))?;
        std::fs::write(repo.join("src/part.txt"), "part\n")?;
        git_ok(&repo, &["init", "-q", "-b", "main"])?;
        git_ok(&repo, &["config", "user.name", "Ada"])?;
        git_ok(&repo, &["config", "user.email", "ada@example.com"])?;
        let db = dir.join("a.db");
        let lines = dir.join("lines.jsonl");
        std::fs::write(
            &lines,
            format!(
                "{}\n{}\n",
                feature("rec_1", "bore"),
                feature("rec_2", "slot")
            ),
        )?;
        let r = Repo { dir, repo, db };
        ok(r.run(&["import", &lines.to_string_lossy()], &[])?)?;
        ok(r.sync(&[])?)?;
        git_ok(&r.repo, &["add", "-A"])?;
        git_ok(&r.repo, &["commit", "-q", "-m", "review"])?;
        Ok(r)
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> anyhow::Result<Output> {
        review_mcp(self.dir.path(), &self.db, args, env)
    }

    fn sync(&self, env: &[(&str, &str)]) -> anyhow::Result<Output> {
        let folder = self.repo.join("review");
        self.run(&["sync", &folder.to_string_lossy()], env)
    }

    fn git(&self, args: &[&str]) -> anyhow::Result<String> {
        git_ok(&self.repo, args)
    }

    fn export(&self) -> anyhow::Result<String> {
        ok(self.run(&["export"], &[])?)
    }

    /// A feature new in the database: the next sync writes its file.
    fn add_feature(&self, id: &str, name: &str) -> anyhow::Result<()> {
        let lines = self.dir.join("more.jsonl");
        std::fs::write(&lines, feature(id, name) + "\n")?;
        ok(self.run(&["import", &lines.to_string_lossy()], &[])?)?;
        Ok(())
    }

    /// The sync is refused with a message holding every one of `says`, and changes nothing:
    /// the database as before, no item saved as deleted, rec_3's file not written.
    fn refuses(&self, what: &str, says: &[&str]) -> anyhow::Result<String> {
        let before = self.export()?;
        let err = refused(self.sync(&[])?)?;
        for s in says {
            ensure!(err.contains(s), "{what}: {s:?} not in {err}");
        }
        ensure!(self.export()? == before, "{what}: the database changed");
        ensure!(
            !self.dir.join("a.db.sync-deleted").exists(),
            "{what}: items were deleted from the database"
        );
        ensure!(
            !self.repo.join("review/records/rec_3.json").exists(),
            "{what}: a file was written"
        );
        Ok(err)
    }

    /// The sync runs, deleting nothing, and git then holds rec_3's file in a commit.
    fn syncs_and_commits(&self, what: &str) -> anyhow::Result<()> {
        let said = ok(self.sync(&[])?)?;
        ensure!(said.contains("deleted: 0 "), "{what}: {said}");
        ensure!(self.export()?.contains("rec_1"), "{what}: rec_1 lost");
        self.git(&["add", "-A"])?;
        self.git(&["commit", "-q", "-m", what])?;
        let tracked = self.git(&["ls-files", "review/records"])?;
        ensure!(
            tracked.contains("rec_3.json"),
            "{what}: not committed: {tracked}"
        );
        Ok(())
    }
}

/// Regression: a sparse checkout that leaves the folder's records out (`git sparse-checkout
/// set` in cone mode naming only `review/decisions`, in non-cone mode excluding
/// `/review/records/`, or `core.sparseCheckout` with a hand-written sparse-checkout file)
/// removed their files from the work tree, and sync took every record for deleted by the
/// team: it deleted them from the database (saving them in `a.db.sync-deleted/`), and a file
/// it wrote there was never committed (skip-worktree). Sync now refuses, naming the files and
/// `git sparse-checkout add`, and nothing changes; once the folder is in the checkout again,
/// it syncs deleting nothing.
#[test]
fn sync_refuses_a_sparse_checkout_that_leaves_its_files_out() -> anyhow::Result<()> {
    let r = Repo::new("sync-git-sparse")?;
    r.add_feature("rec_3", "chamfer")?;
    // `core.sparseCheckout` by hand first: `git sparse-checkout` then keeps its setting in
    // the worktree's configuration, over the repository's.
    for mode in ["core.sparseCheckout", "cone", "non-cone"] {
        match mode {
            "cone" => {
                r.git(&["sparse-checkout", "set", "src", "review/decisions"])?;
            }
            "non-cone" => {
                r.git(&[
                    "sparse-checkout",
                    "set",
                    "--no-cone",
                    "/*",
                    "!/review/records/",
                ])?;
            }
            _ => {
                r.git(&["config", "core.sparseCheckout", "true"])?;
                std::fs::write(
                    r.repo.join(".git/info/sparse-checkout"),
                    "/src/\n/review/decisions/\n",
                )?;
                r.git(&["read-tree", "-mu", "HEAD"])?;
            }
        }
        ensure!(
            !r.repo.join("review/records/rec_1.json").exists(),
            "{mode}: the sparse checkout did not remove the records"
        );
        r.refuses(
            mode,
            &[
                "review/records/rec_1.json",
                "outside git's sparse checkout",
                "git sparse-checkout add review",
            ],
        )?;
        if mode == "core.sparseCheckout" {
            r.git(&["config", "core.sparseCheckout", "false"])?;
            r.git(&["read-tree", "-mu", "HEAD"])?;
        } else {
            r.git(&["sparse-checkout", "disable"])?;
        }
    }
    // A folder not yet in any commit, outside the sparse checkout: git would leave every file
    // sync writes there out of the commits (`git add` skips it), unsaid.
    r.git(&["sparse-checkout", "set", "src"])?;
    let folder = r.repo.join("design");
    let err = refused(r.run(&["sync", &folder.to_string_lossy()], &[])?)?;
    ensure!(
        err.contains("design/records/*.json (the files sync writes there)")
            && err.contains("git sparse-checkout add design"),
        "{err}"
    );
    ensure!(!folder.exists(), "the refused sync left the folder it made");
    r.git(&["sparse-checkout", "add", "review"])?;
    r.syncs_and_commits("sparse checkout mended")?;
    Ok(())
}

/// A file of the folder marked by hand so that git does not look at what sync writes there
/// (`git update-index --skip-worktree` or `--assume-unchanged`: its changes never reach a
/// commit) refuses the sync, dry run too, naming it and how to undo the mark.
#[test]
fn sync_refuses_files_git_does_not_look_at() -> anyhow::Result<()> {
    let r = Repo::new("sync-git-marked")?;
    r.add_feature("rec_3", "chamfer")?;
    let file = "review/records/rec_1.json";
    for (mark, says, undo) in [
        ("--skip-worktree", "skip-worktree", "--no-skip-worktree"),
        (
            "--assume-unchanged",
            "assume-unchanged",
            "--no-assume-unchanged",
        ),
    ] {
        r.git(&["update-index", mark, file])?;
        let folder = r.repo.join("review");
        let dry = refused(r.run(&["sync", "--dry-run", &folder.to_string_lossy()], &[])?)?;
        ensure!(dry.contains(file) && dry.contains(says), "{mark}: {dry}");
        r.refuses(mark, &[file, says, undo])?;
        r.git(&["update-index", undo, file])?;
    }
    r.syncs_and_commits("marks undone")?;
    Ok(())
}

/// Regression: a top-level `.gitignore` (`*.json`), one in the folder itself (`rec_*`),
/// `.git/info/exclude` (`review/`) or `core.excludesFile` (`records/`) that ignores the
/// folder's files: sync wrote them and
/// `git add -A` skipped every new one without a word, so nothing was shared and nobody was
/// told. Sync now asks `git check-ignore` and refuses, naming the files and the fix; with the
/// folder excepted (`!/review/**` after `*.json`) it syncs and git commits the new file.
#[test]
fn sync_refuses_a_folder_git_ignores() -> anyhow::Result<()> {
    let r = Repo::new("sync-git-ignore")?;
    r.add_feature("rec_3", "chamfer")?;
    let excludes = r.dir.join("excludes");
    std::fs::write(&excludes, "records/\n")?;
    let ignores: [(&str, PathBuf, &str); 4] = [
        ("top .gitignore", r.repo.join(".gitignore"), "*.json\n"),
        (
            "the folder's .gitignore",
            r.repo.join("review/.gitignore"),
            "rec_*\n",
        ),
        (
            "info/exclude",
            r.repo.join(".git/info/exclude"),
            "review/\n",
        ),
        ("core.excludesFile", excludes.clone(), "records/\n"),
    ];
    r.git(&["config", "core.excludesFile", &excludes.to_string_lossy()])?;
    for (what, file, pattern) in &ignores {
        for (_, f, _) in &ignores {
            std::fs::write(f, "")?;
        }
        std::fs::write(file, pattern)?;
        r.refuses(
            what,
            &["review/records/", "ignored by git", "git check-ignore -v"],
        )?;
    }
    for (_, f, _) in &ignores {
        std::fs::write(f, "")?;
    }
    std::fs::write(r.repo.join(".gitignore"), "*.json\n!/review/**\n")?;
    r.syncs_and_commits("folder excepted")?;
    Ok(())
}

/// Regression: attributes that rewrite the folder's files between the work tree and the
/// commit were not looked at: `filter=lfs` (a clone without LFS checks out pointers, which
/// its sync refuses as files that are not items, naming no cause), a custom filter a
/// teammate's configuration lacks, `ident` (a note holding `$Id$` changes on checkout),
/// `working-tree-encoding=UTF-16`, and a `merge=union` in `.git/info/attributes`, which
/// outranks the folder's own `* merge=review`. Each refuses the sync, naming the attribute;
/// end-of-line conversion (`eol=crlf`, `text=auto` with `core.autocrlf=true`) does not, and
/// the top-level line the message gives makes the sync run.
#[test]
fn sync_refuses_attributes_that_rewrite_its_files() -> anyhow::Result<()> {
    let r = Repo::new("sync-git-attributes")?;
    r.add_feature("rec_3", "chamfer")?;
    let top = r.repo.join(".gitattributes");
    let info = r.repo.join(".git/info/attributes");
    for (attr, says) in [
        ("*.json filter=lfs diff=lfs merge=lfs -text\n", "filter=lfs"),
        ("*.json filter=gzip\n", "filter=gzip"),
        ("*.json ident\n", "attribute ident"),
        (
            "*.json working-tree-encoding=UTF-16\n",
            "working-tree-encoding=UTF-16",
        ),
    ] {
        std::fs::write(&top, attr)?;
        r.refuses(attr, &[says, "review/records/rec_1.json", "!filter !ident"])?;
    }
    std::fs::write(&top, "")?;
    std::fs::write(&info, "* merge=union\n")?;
    r.refuses(
        "info/attributes",
        &["merge=union", "review/records/rec_1.json"],
    )?;
    std::fs::write(&info, "")?;
    // End-of-line conversion is harmless: sync reads a CRLF file as the same item.
    std::fs::write(&top, "*.json text eol=crlf\n")?;
    r.git(&["config", "core.autocrlf", "true"])?;
    ok(r.sync(&[])?)?;
    r.git(&["config", "core.autocrlf", "false"])?;
    std::fs::write(
        &top,
        "*.json filter=lfs ident\n/review/** !filter !ident !working-tree-encoding\n",
    )?;
    r.add_feature("rec_4", "fillet")?;
    let said = ok(r.sync(&[])?)?;
    ensure!(said.contains("written to the folder: 1 "), "{said}");
    Ok(())
}

/// Regression (of the checks above): sync asks git about the repository the folder is in,
/// whatever `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE` a host passes through (pointing at
/// nothing, they made git fail, refusing every sync); a repository git will not read (owned
/// by another user: `safe.directory`) refuses the sync with git's own words and the fix; a
/// machine without git syncs unasked.
#[test]
fn sync_asks_the_folder_s_own_repository_whatever_the_environment_says() -> anyhow::Result<()> {
    let r = Repo::new("sync-git-env")?;
    r.add_feature("rec_3", "chamfer")?;
    let elsewhere = r.dir.join("nowhere");
    let env = [
        ("GIT_DIR", elsewhere.to_str().unwrap_or("/nonexistent")),
        (
            "GIT_WORK_TREE",
            elsewhere.to_str().unwrap_or("/nonexistent"),
        ),
        (
            "GIT_INDEX_FILE",
            elsewhere.to_str().unwrap_or("/nonexistent"),
        ),
    ];
    r.git(&["sparse-checkout", "set", "src"])?;
    let err = refused(r.sync(&env)?)?;
    ensure!(err.contains("outside git's sparse checkout"), "{err}");
    r.git(&["sparse-checkout", "disable"])?;
    let before = r.export()?;
    let err = refused(r.sync(&[("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")])?)?;
    ensure!(
        err.contains("dubious ownership") && err.contains("safe.directory"),
        "{err}"
    );
    ensure!(r.export()? == before);
    ensure!(!r.repo.join("review/records/rec_3.json").exists());
    // A machine without git syncs as before, unasked.
    let said = ok(r.sync(&[("PATH", "/nonexistent")])?)?;
    ensure!(said.contains("written to the folder: 1 "), "{said}");
    r.add_feature("rec_4", "fillet")?;
    let said = ok(r.sync(&env)?)?;
    ensure!(said.contains("written to the folder: 1 "), "{said}");
    Ok(())
}

/// The lines a refusal gives to add to a file: each one in backquotes after "add after it,
/// in that file," or "add the line" (the refusal must hold one).
fn lines_to_add(err: &str) -> anyhow::Result<Vec<String>> {
    let start = err
        .find("add after it, in that file, the lines ")
        .or_else(|| err.find("add the line "))
        .ok_or_else(|| anyhow::anyhow!("no line to add in {err}"))?;
    let rest = &err[start..];
    let end = rest
        .find(" to ")
        .or_else(|| rest.find(';'))
        .unwrap_or(rest.len());
    Ok(rest[..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect())
}

/// Regression: the fix an ignore or attribute refusal gave did not work when the setting
/// was not in the top file. A `.gitignore` of `design/` holding `*.json`, for the folder
/// `design/review`, was to be followed "in the same file" by `!/design/review/**`, which
/// there means `design/design/review` (tried: still refused); a `design/.gitattributes` of
/// `*.json filter=lfs` was to be outdone by a line in the top .gitattributes, which the
/// deeper file outranks (tried: still refused). The refusal now names the file, line and
/// pattern git matched, and lines that work where they are to go: each fix below is taken
/// from the message, applied, and the sync then runs and git commits its new file.
#[test]
fn sync_refusals_give_fixes_that_work_where_the_setting_is() -> anyhow::Result<()> {
    let r = Repo::new("sync-git-fixes")?;
    let folder = r.repo.join("design/review");
    let sync = || -> anyhow::Result<Output> { r.run(&["sync", &folder.to_string_lossy()], &[]) };
    ok(sync()?)?;
    r.git(&["add", "-A"])?;
    r.git(&["commit", "-q", "-m", "design review"])?;
    // Ignore patterns: a subdirectory's .gitignore (lines after it take the folder back),
    // and a pattern in info/exclude that ignores a directory above the folder (none can: git
    // looks inside no ignored directory; the line is to go).
    for (file, pattern, lines) in [
        ("design/.gitignore", "*.json\n", true),
        (".git/info/exclude", "design/\n", false),
    ] {
        let n = 20 + usize::from(lines);
        r.add_feature(&format!("rec_{n}"), &format!("chamfer {n}"))?;
        let path = r.repo.join(file);
        std::fs::write(&path, pattern)?;
        let err = refused(sync()?)?;
        ensure!(
            err.contains(&format!("{file}:1: `{}`", pattern.trim())),
            "{file}: the pattern not named: {err}"
        );
        let add = match lines {
            true => lines_to_add(&err)?,
            false => {
                ensure!(
                    err.contains("remove that line: it ignores"),
                    "{file}: {err}"
                );
                Vec::new()
            }
        };
        let kept = if lines { pattern } else { "" };
        std::fs::write(&path, format!("{kept}{}\n", add.join("\n")))?;
        let said = ok(sync()?)?;
        ensure!(said.contains("written to the folder: 1 "), "{file}: {said}");
        r.git(&["add", "-A"])?;
        r.git(&["commit", "-q", "-m", file])?;
        ensure!(
            r.git(&["status", "--porcelain", "--ignored", "design"])?
                .is_empty(),
            "{file}: the fix {add:?} left files out"
        );
    }
    // A .gitignore in the folder itself: removing its line is the fix.
    std::fs::write(r.repo.join("design/review/.gitignore"), "rec_*\n")?;
    r.add_feature("rec_30", "fillet")?;
    let err = refused(sync()?)?;
    ensure!(
        err.contains("design/review/.gitignore:1: `rec_*`") && err.contains("remove that line"),
        "{err}"
    );
    std::fs::remove_file(r.repo.join("design/review/.gitignore"))?;
    ok(sync()?)?;
    // An attribute set in a subdirectory's .gitattributes.
    let attributes = r.repo.join("design/.gitattributes");
    std::fs::write(&attributes, "*.json filter=lfs\n")?;
    r.add_feature("rec_31", "boss")?;
    let err = refused(sync()?)?;
    ensure!(
        err.contains("filter=lfs") && err.contains("design/.gitattributes"),
        "{err}"
    );
    let add = lines_to_add(&err)?;
    std::fs::write(
        &attributes,
        format!("*.json filter=lfs\n{}\n", add.join("\n")),
    )?;
    let said = ok(sync()?)?;
    ensure!(said.contains("written to the folder: 1 "), "{said}");
    Ok(())
}

/// Regression: sync's questions to git ran the repository's `core.fsmonitor` command (`git
/// ls-files` reads the index, which asks the monitor what changed): a sync started a program
/// from the clone's configuration, or git's own monitor daemon. Seen with a monitor command
/// that writes a file: the file was written. git is now asked with the monitor off.
#[test]
fn sync_runs_no_fsmonitor_of_the_repository() -> anyhow::Result<()> {
    let r = Repo::new("sync-git-fsmonitor")?;
    r.add_feature("rec_3", "chamfer")?;
    let ran = r.dir.join("monitor-ran");
    r.git(&[
        "config",
        "core.fsmonitor",
        &format!("touch '{}'; false #", ran.display()),
    ])?;
    let said = ok(r.sync(&[])?)?;
    ensure!(said.contains("written to the folder: 1 "), "{said}");
    ensure!(!ran.exists(), "sync ran the repository's core.fsmonitor");
    Ok(())
}

/// Regression: a dry run of a folder not made yet, named through a symbolic link to the
/// work tree (`link/new-review`, `link` -> the clone), skipped git's check (its path was not
/// under the top git names, which has the link resolved), so it said the sync would run
/// where the sync itself is refused (here: `.git/info/exclude` ignoring `*.json`).
#[cfg(unix)]
#[test]
fn sync_dry_run_through_a_link_is_checked_as_the_sync() -> anyhow::Result<()> {
    let r = Repo::new("sync-git-dry-link")?;
    std::fs::write(r.repo.join(".git/info/exclude"), "*.json\n")?;
    let link = r.dir.join("link");
    std::os::unix::fs::symlink(&r.repo, &link)?;
    let folder = link.join("design");
    let real = refused(r.run(&["sync", &folder.to_string_lossy()], &[])?)?;
    ensure!(real.contains("ignored by git"), "{real}");
    let dry = refused(r.run(&["sync", "--dry-run", &folder.to_string_lossy()], &[])?)?;
    ensure!(dry.contains("ignored by git"), "{dry}");
    Ok(())
}

/// Regression: for a folder whose name holds a space (`sp ace`), the attribute line the
/// refusal gave (`/sp ace/** !filter …`) is read by git as the pattern `/sp` with an
/// attribute `ace/**`: added as told, the sync stayed refused. The pattern is now quoted as
/// git's .gitattributes takes it (`"/sp ace/**"`).
#[test]
fn sync_attribute_fix_works_for_a_folder_name_with_a_space() -> anyhow::Result<()> {
    let r = Repo::new("sync-git-space")?;
    let folder = r.repo.join("sp ace");
    let sync = || -> anyhow::Result<Output> { r.run(&["sync", &folder.to_string_lossy()], &[]) };
    ok(sync()?)?;
    let attributes = r.repo.join(".gitattributes");
    std::fs::write(&attributes, "*.json ident\n")?;
    r.add_feature("rec_3", "chamfer")?;
    let err = refused(sync()?)?;
    let add = lines_to_add(&err)?;
    std::fs::write(&attributes, format!("*.json ident\n{}\n", add.join("\n")))?;
    let said = ok(sync()?)?;
    ensure!(said.contains("written to the folder: 1 "), "{said}");
    Ok(())
}
