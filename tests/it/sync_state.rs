//! Sync's state is exact: a sync killed at any step and run again ends where the
//! uninterrupted sync ends; the dry run prints what the sync then does; a forget answered
//! during a sync holds; a moved checkout is the same folder; two syncs of one folder at once
//! both end well; sync never replaces a README it did not write.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{Context, ensure};
use serde_json::json;

use crate::support::TempDir;
use crate::support::client::{Server, binary};

const REV: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
pub(crate) const T1: &str = "2026-01-01T00:00:00.000Z";
const T2: &str = "2026-01-02T00:00:00.000Z";
const T3: &str = "2026-01-03T00:00:00.000Z";

pub(crate) fn review_mcp(db: &Path, args: &[&str]) -> anyhow::Result<Output> {
    review_mcp_with(db, args, &[])
}

fn review_mcp_with(db: &Path, args: &[&str], env: &[(&str, String)]) -> anyhow::Result<Output> {
    let mut cmd = Command::new(binary());
    cmd.arg("--db")
        .arg(db)
        .args(args)
        .env("MCP_LOG_LEVEL", "warn");
    for (k, v) in env {
        cmd.env(k, v);
    }
    Ok(cmd.output()?)
}

pub(crate) fn ok(out: Output) -> anyhow::Result<String> {
    ensure!(
        out.status.success(),
        "failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub(crate) fn sync(db: &Path, folder: &Path) -> anyhow::Result<String> {
    ok(review_mcp(db, &["sync", &folder.to_string_lossy()])?)
}

pub(crate) fn feature(id: &str, name: &str, note: &str, updated: &str) -> String {
    format!(
        r#"{{"record":{{"id":"{id}","kind":"feature","name":"{name}","note":"{note}","tags":[],"entity_ids":[],"id_scheme":"opaque","artifact":{{"revision":"{REV}","format":"step","uri":"file:///w/p.step"}},"created_at":"{T1}","updated_at":"{updated}"}}}}"#
    )
}

/// A decision on "bracket" with one basis item, and, when `verdict` is given, the engineer's
/// verdict on it from the review card.
fn decision(id: &str, disposition: &str, updated: &str, verdict: Option<&str>) -> String {
    let verdict = verdict
        .map(|j| {
            format!(
                r#","verdict":{{"at":"{updated}","author":"Ada","judgement":"{j}","reason":"measured","via":"app"}}"#
            )
        })
        .unwrap_or_default();
    format!(
        r#"{{"decision":{{"id":"{id}","subject":"bracket","disposition":"{disposition}","basis":[{{"requirement":"Bore 10 H7","source":"drawing","state":"satisfied","faces":[]{verdict}}}],"artifact":{{"revision":"{REV}","format":"step","uri":"file:///w/p.step"}},"created_at":"{T1}","updated_at":"{updated}"}}}}"#
    )
}

/// An export line as its folder file: pretty-printed with a final newline.
fn pretty(line: &str) -> anyhow::Result<String> {
    let v: serde_json::Value = serde_json::from_str(line)?;
    Ok(serde_json::to_string_pretty(&v)? + "\n")
}

pub(crate) fn import(dir: &Path, db: &Path, lines: &[String]) -> anyhow::Result<()> {
    let file = dir.join("import.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n")?;
    ok(review_mcp(db, &["import", &file.to_string_lossy()])?)?;
    Ok(())
}

pub(crate) fn export(db: &Path) -> anyhow::Result<String> {
    ok(review_mcp(db, &["export"])?)
}

/// Every file under `dir` (hidden ones too) with its bytes, by path relative to `dir`.
pub(crate) fn files(dir: &Path) -> anyhow::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir)?.to_path_buf();
                out.push((rel, std::fs::read(&p)?));
            }
        }
    }
    out.sort();
    Ok(out)
}

pub(crate) fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), &target)?;
        }
    }
    Ok(())
}

/// Forgets the feature `name` through a server, as an assistant would.
fn forget(db: &Path, name: &str) -> anyhow::Result<i64> {
    let mut server = Server::start(db)?;
    let deleted = forget_on(&mut server, name)?;
    ensure!(server.close()?.success());
    Ok(deleted)
}

fn forget_on(server: &mut Server, name: &str) -> anyhow::Result<i64> {
    let art = json!({"revision": REV, "format": "step", "uri": "file:///w/p.step"});
    let v = server
        .call("forget", json!({"artifact": art, "name": name}))?
        .ok()?;
    v["deleted"].as_i64().context("deleted")
}

/// A sync with every kind of change waiting, in `root/scenario` (`a.db` and `review/`): on
/// the database side a new, an updated and a forgotten feature; on the folder side a new, an
/// edited and a deleted file; and a decision reached under two ids, the folder's (earlier)
/// carrying the engineer's card rejection that the database's (later) must take over.
fn scenario(root: &Path) -> anyhow::Result<PathBuf> {
    let dir = root.join("scenario");
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("a.db");
    let folder = dir.join("review");
    import(
        &dir,
        &db,
        &[
            feature("rec_keep", "keep", "k", T1),
            feature("rec_upd", "upd", "old", T1),
            feature("rec_gone", "gone", "g", T1),
            feature("rec_fedit", "fedit", "old", T1),
            feature("rec_fdel", "fdel", "d", T1),
        ],
    )?;
    sync(&db, &folder)?;
    import(
        &dir,
        &db,
        &[
            feature("rec_new", "new", "n", T2),
            feature("rec_upd", "upd", "new", T2),
            decision("dec_d", "release", T3, None),
        ],
    )?;
    ensure!(forget(&db, "gone")? == 1);
    let records = folder.join("records");
    std::fs::write(
        records.join("rec_fnew.json"),
        pretty(&feature("rec_fnew", "fnew", "f", T2))?,
    )?;
    std::fs::write(
        records.join("rec_fedit.json"),
        pretty(&feature("rec_fedit", "fedit", "edited", T2))?,
    )?;
    std::fs::remove_file(records.join("rec_fdel.json"))?;
    std::fs::write(
        folder.join("decisions/dec_f.json"),
        pretty(&decision("dec_f", "hold", T2, Some("rejected")))?,
    )?;
    Ok(dir)
}

/// The database's export and every file of the folder.
type State = (String, Vec<(PathBuf, Vec<u8>)>);

fn state(dir: &Path) -> anyhow::Result<State> {
    Ok((export(&dir.join("a.db"))?, files(&dir.join("review"))?))
}

/// A fresh copy of the scenario at `root/work` (always the same path).
fn fresh(scenario: &Path, root: &Path) -> anyhow::Result<PathBuf> {
    let work = root.join("work");
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    copy_tree(scenario, &work)?;
    Ok(work)
}

/// Kills a sync of a fresh copy of `scenario` at each of its steps in turn (the test hook ends
/// the process as a kill does: no rollback, no cleanup), runs it again each time, and checks
/// the result is the uninterrupted sync's `want`, in the database and in every byte of the
/// folder (the id of a folder synced for the first time is new each time: only its presence
/// is compared). Returns how many steps were killed.
fn kill_everywhere(scenario: &Path, root: &Path, want: &State) -> anyhow::Result<usize> {
    let mut killed = 0;
    for n in 1.. {
        let work = fresh(scenario, root)?;
        let (db, folder) = (work.join("a.db"), work.join("review"));
        let out = review_mcp_with(
            &db,
            &["sync", &folder.to_string_lossy()],
            &[("REVIEW_MCP_SYNC_FAIL_AT", n.to_string())],
        )?;
        if out.status.success() {
            break;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("stopped at step {n} ")),
            "step {n}: {err}"
        );
        killed += 1;
        sync(&db, &folder).with_context(|| format!("the sync after a kill at step {n}"))?;
        let got = state(&work)?;
        assert_eq!(got.0, want.0, "database after a kill at step {n}: {err}");
        let names = |s: &State| s.1.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&got),
            names(want),
            "files after a kill at step {n}: {err}"
        );
        assert!(
            without_id(&got) == without_id(want),
            "file bytes after a kill at step {n}: {err}"
        );
    }
    Ok(killed)
}

fn without_id(s: &State) -> Vec<(PathBuf, Vec<u8>)> {
    s.1.iter()
        .filter(|(p, _)| p != Path::new(".review-mcp-folder"))
        .cloned()
        .collect()
}

/// Issue 23 item 1: a sync stopped at every one of its steps, then run again, ends exactly
/// where the uninterrupted sync ends; the engineer's verdict of the id that lost the key is
/// never lost. Two scenarios: a sync with every kind of change, and a first sync (the
/// folder's id and README written, a file of the folder imported).
#[test]
fn sync_killed_at_every_step_then_run_again_equals_the_uninterrupted_sync() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-kill")?;
    let root = tmp.path();
    let scenario = scenario(root)?;
    let work = fresh(&scenario, root)?;
    let (db, folder) = (work.join("a.db"), work.join("review"));
    let out = sync(&db, &folder)?;
    assert!(out.contains("kept dec_d, deleted dec_f"), "{out}");
    let want = state(&work)?;
    assert!(
        want.0.contains("\"via\":\"app\""),
        "the engineer's verdict moved to dec_d: {}",
        want.0
    );
    assert!(!want.0.contains("rec_gone") && !want.0.contains("rec_fdel"));
    assert!(want.0.contains("rec_fnew") && want.0.contains("\"edited\""));
    ensure!(
        sync(&db, &folder)?.contains("written to the folder: 0"),
        "a second sync is a no-op"
    );
    assert_eq!(state(&work)?, want);
    let killed = kill_everywhere(&scenario, root, &want)?;
    // The commit, each file written (two steps each), deleted, the fsyncs, the journal.
    assert!(killed >= 12, "only {killed} steps");

    let first = root.join("first");
    std::fs::create_dir_all(first.join("review/decisions"))?;
    import(
        &first,
        &first.join("a.db"),
        &[
            feature("rec_1", "bore", "x", T1),
            decision("dec_d", "release", T3, None),
        ],
    )?;
    std::fs::write(
        first.join("review/decisions/dec_f.json"),
        pretty(&decision("dec_f", "hold", T2, Some("rejected")))?,
    )?;
    let work = fresh(&first, root)?;
    sync(&work.join("a.db"), &work.join("review"))?;
    let want = state(&work)?;
    assert!(want.0.contains("\"via\":\"app\""));
    let killed = kill_everywhere(&first, root, &want)?;
    assert!(killed >= 6, "only {killed} steps");
    Ok(())
}

/// Issue 23 item 1, by a failed write on any version: a sync that fails after it has settled
/// two ids of one decision (here: README.md is a directory) leaves the engineer's verdict to
/// the next sync, which keeps it.
#[test]
fn sync_that_fails_after_settling_two_ids_keeps_the_engineers_verdict() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-fail")?;
    let root = tmp.path();
    let dir = scenario(root)?;
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    std::fs::remove_file(folder.join("README.md"))?;
    std::fs::create_dir(folder.join("README.md"))?;
    let failed = review_mcp(&db, &["sync", &folder.to_string_lossy()])?;
    assert!(!failed.status.success());
    std::fs::remove_dir(folder.join("README.md"))?;
    sync(&db, &folder)?;
    let exported = export(&db)?;
    assert!(
        exported.contains("\"via\":\"app\"") && exported.contains("\"judgement\":\"rejected\""),
        "the engineer's rejection survived: {exported}"
    );
    assert!(!folder.join("decisions/dec_f.json").exists());
    assert!(std::fs::read_to_string(folder.join("decisions/dec_d.json"))?.contains("\"app\""));
    Ok(())
}

/// The files a plan names, by its lines (`would write X`, `would delete X`).
fn planned(plan: &str, verb: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = plan
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("would {verb} ")))
        .filter(|rest| !rest.contains(" from the database"))
        .map(|rest| PathBuf::from(rest.split(" (").next().unwrap_or(rest)))
        .collect();
    v.sort();
    v
}

/// The summary lines (`… written …`, `… imported …`, `… deleted …`, `conflicts: …`) with
/// the dry run's "would be " taken out.
fn summary(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| {
            l.contains("written to the folder:")
                || l.contains("imported into the database:")
                || l.contains("deleted:")
                || l.starts_with("conflicts:")
        })
        .map(|l| l.replace("would be ", ""))
        .collect()
}

/// Issue 23 item 12: the dry run prints exactly what the sync then does: the same counts, and
/// every file written or deleted (two ids for one key included), and the sync's summary
/// counts the id deleted on both sides.
#[test]
fn sync_dry_run_plans_exactly_what_the_sync_does() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-plan")?;
    let root = tmp.path();
    let scenario = scenario(root)?;
    let work = fresh(&scenario, root)?;
    let (db, folder) = (work.join("a.db"), work.join("review"));
    let before = files(&folder)?;
    let plan = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    assert_eq!(files(&folder)?, before, "the dry run wrote nothing");
    let done = sync(&db, &folder)?;
    assert_eq!(summary(&plan), summary(&done), "{plan}\n---\n{done}");
    assert!(
        done.contains("deleted: 3 (2 records, 1 decision): 2 from the folder, 1 from the database"),
        "{done}"
    );
    assert!(
        plan.contains("would delete decisions/dec_f.json"),
        "the dry run names the deletion: {plan}"
    );
    let after = files(&folder)?;
    let changed: Vec<PathBuf> = after
        .iter()
        .filter(|(p, b)| !before.iter().any(|(q, c)| q == p && c == b))
        .map(|(p, _)| p.clone())
        .collect();
    let gone: Vec<PathBuf> = before
        .iter()
        .filter(|(p, _)| !after.iter().any(|(q, _)| q == p))
        .map(|(p, _)| p.clone())
        .collect();
    assert_eq!(planned(&plan, "write"), changed, "{plan}");
    assert_eq!(planned(&plan, "delete"), gone, "{plan}");
    Ok(())
}

/// Issue 23 item 8: sync never replaces a README it did not write (`sync .` at a project's
/// root): it refuses, dry run too, and changes nothing; the README of a folder sync wrote
/// (an older text of it too) goes on being sync's; the dry run of a first sync names every
/// file it would write.
#[test]
fn sync_never_replaces_a_readme_it_did_not_write() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-readme")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(dir, &db, &[feature("rec_1", "bore", "x", T1)])?;
    let project = dir.join("project");
    std::fs::create_dir_all(&project)?;
    let theirs = "# Bracket\n\nThe project's own README.\n";
    std::fs::write(project.join("README.md"), theirs)?;
    for args in [vec!["sync"], vec!["sync", "--dry-run"]] {
        let mut args = args.clone();
        let p = project.to_string_lossy().into_owned();
        args.push(&p);
        let out = review_mcp(&db, &args)?;
        assert!(!out.status.success(), "{args:?} refused");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("README.md") && err.contains("nothing was changed"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(project.join("README.md"))?, theirs);
        assert_eq!(files(&project)?.len(), 1, "nothing written");
        assert!(!project.join("records").exists());
    }

    let folder = dir.join("review");
    let plan = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    assert!(plan.contains("would write README.md"), "{plan}");
    assert!(plan.contains("would write .review-mcp-folder"), "{plan}");
    assert!(plan.contains("would write records/rec_1.json"), "{plan}");
    sync(&db, &folder)?;
    let readme = std::fs::read_to_string(folder.join("README.md"))?;
    // A folder synced by an earlier version carries an earlier text: still sync's own.
    let older = readme.replace("Commit `.review-mcp-folder`", "Commit the id file");
    std::fs::write(folder.join("README.md"), &older)?;
    let plan = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    assert!(plan.contains("would write README.md"), "{plan}");
    sync(&db, &folder)?;
    assert_eq!(std::fs::read_to_string(folder.join("README.md"))?, readme);
    Ok(())
}

/// Regression (adversarial read of merge-file's README rule, adv6): in a folder synced before
/// (it holds its id file), a README.md that is not sync's (a teammate's edit, or a file that
/// merge-file left there as an item, pulled) refused the sync advising another folder "of its
/// own, such as DIR/review", a folder inside the synced one. It says to restore the README as
/// committed or delete it (sync writes its own), and still changes nothing.
#[test]
fn a_synced_folder_s_replaced_readme_is_refused_saying_to_restore_or_delete_it()
-> anyhow::Result<()> {
    let tmp = TempDir::new("sync-readme-replaced")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(dir, &db, &[feature("rec_1", "bore", "x", T1)])?;
    let folder = dir.join("review");
    sync(&db, &folder)?;
    let item = std::fs::read_to_string(folder.join("records/rec_1.json"))?;
    std::fs::write(folder.join("README.md"), &item)?;
    let out = review_mcp(&db, &["sync", &folder.to_string_lossy()])?;
    assert!(!out.status.success(), "refused");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("README.md")
            && err.contains("git checkout -- ")
            && err.contains("delete it")
            && !err.contains(&folder.join("review").display().to_string())
            && err.contains("nothing was changed"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(folder.join("README.md"))?, item);
    std::fs::remove_file(folder.join("README.md"))?;
    sync(&db, &folder)?;
    assert!(std::fs::read_to_string(folder.join("README.md"))?.contains("review-mcp sync"));
    Ok(())
}

/// A first sync of a folder that holds files not its own (`sync .` at a project's root
/// without a README) is refused, dry run too, naming them, and writes nothing: its
/// `.gitattributes` (`* merge=review`) would have git merge every file of the project with
/// review-mcp's driver, which refuses what is not an item. A new repository of its own (only
/// `.git` and dotfiles) is synced; so is a synced folder a file was added to later.
#[test]
fn sync_refuses_a_first_sync_of_a_folder_holding_files_not_its_own() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-foreign")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(dir, &db, &[feature("rec_1", "bore", "x", T1)])?;
    let project = dir.join("project");
    std::fs::create_dir_all(project.join("src"))?;
    std::fs::create_dir_all(project.join(".git"))?;
    std::fs::write(project.join("src/main.c"), "int main;\n")?;
    std::fs::write(project.join("notes.txt"), "mine\n")?;
    // The project's own attributes: the refusal names the files, and never says to delete it.
    std::fs::write(project.join(".gitattributes"), "*.png binary\n")?;
    let p = project.to_string_lossy().into_owned();
    for args in [vec!["sync", &p], vec!["sync", "--dry-run", &p]] {
        let out = review_mcp(&db, &args)?;
        let err = String::from_utf8_lossy(&out.stderr);
        ensure!(!out.status.success(), "{args:?} was not refused: {err}");
        ensure!(
            err.contains("notes.txt")
                && err.contains("src")
                && err.contains("project/review")
                && err.contains("nothing was changed"),
            "{err}"
        );
        let mut left = std::fs::read_dir(&project)?
            .map(|e| Ok(e?.file_name().to_string_lossy().into_owned()))
            .collect::<anyhow::Result<Vec<_>>>()?;
        left.sort();
        ensure!(
            left == [".git", ".gitattributes", "notes.txt", "src"],
            "written: {left:?}"
        );
    }

    let own = dir.join("own");
    std::fs::create_dir_all(own.join(".git"))?;
    std::fs::write(own.join(".gitignore"), "*.db\n")?;
    sync(&db, &own)?;
    ensure!(own.join("records/rec_1.json").exists());
    std::fs::write(own.join("notes.txt"), "added later\n")?;
    sync(&db, &own)?;
    Ok(())
}

/// Regression: a new folder that a file manager has written its own files into (Windows
/// Explorer's `desktop.ini` and `Thumbs.db`, the Finder's `Icon\r` of a custom folder icon,
/// none of them hidden by a leading dot) was refused at its first sync as "holds files that
/// are not review-mcp sync's", though they are no project's files. They are synced beside,
/// and a folder holding them and a file of a project is still refused, naming only the file.
#[test]
fn sync_takes_a_first_folder_holding_only_file_manager_files() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-file-manager")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(dir, &db, &[feature("rec_1", "bore", "x", T1)])?;
    let folder = dir.join("review");
    std::fs::create_dir_all(folder.join(".git"))?;
    for name in ["desktop.ini", "Thumbs.db", "Icon\r"] {
        std::fs::write(folder.join(name), "")?;
    }
    let project = dir.join("project");
    std::fs::create_dir_all(&project)?;
    std::fs::write(project.join("Desktop.ini"), "")?;
    std::fs::write(project.join("notes.txt"), "mine\n")?;
    let out = review_mcp(&db, &["sync", &project.to_string_lossy()])?;
    let err = String::from_utf8_lossy(&out.stderr);
    ensure!(!out.status.success(), "a project was synced: {err}");
    ensure!(
        err.contains("(notes.txt)") && !err.contains("Desktop.ini"),
        "{err}"
    );
    sync(&db, &folder)?;
    ensure!(folder.join("records/rec_1.json").exists());
    Ok(())
}

/// Issue 23 item 11: a moved checkout is the same folder: an item forgotten since the last
/// sync is deleted from the folder, not imported back.
#[test]
fn sync_of_a_moved_checkout_keeps_its_state() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-moved")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(
        dir,
        &db,
        &[
            feature("rec_1", "bore", "x", T1),
            feature("rec_2", "slot", "y", T1),
        ],
    )?;
    let folder = dir.join("checkout/review");
    sync(&db, &folder)?;
    ensure!(forget(&db, "slot")? == 1);
    let moved = dir.join("moved");
    std::fs::rename(dir.join("checkout"), &moved)?;
    let out = sync(&db, &moved.join("review"))?;
    assert!(
        !export(&db)?.contains("rec_2"),
        "the forgotten item stays forgotten: {out}"
    );
    assert!(!moved.join("review/records/rec_2.json").exists(), "{out}");
    assert!(out.contains("1 from the folder"), "{out}");
    Ok(())
}

/// Issue 23 item 11, the migration: a folder synced by a version that kept its state by the
/// folder's path (schema 8, no id file) keeps that state when synced at the same path, and
/// gets its id file.
#[test]
fn sync_of_a_folder_synced_by_path_keeps_its_state() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-legacy")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(
        dir,
        &db,
        &[
            feature("rec_1", "bore", "x", T1),
            feature("rec_2", "slot", "y", T1),
        ],
    )?;
    let folder = dir.join("review");
    sync(&db, &folder)?;
    // What an earlier version left: bases keyed by the folder's path, no id file, schema 8.
    let path = std::fs::canonicalize(&folder)?;
    std::fs::remove_file(folder.join(".review-mcp-folder"))?;
    // A file of the user's beside the items does not make it a folder not sync's own.
    std::fs::write(folder.join("notes.txt"), "mine\n")?;
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.execute(
            "UPDATE sync_bases SET folder = ?1",
            [path.to_string_lossy().as_ref()],
        )?;
        conn.execute_batch("DROP TABLE sync_pending; PRAGMA user_version = 8;")?;
    }
    ensure!(forget(&db, "slot")? == 1);
    let out = sync(&db, &folder)?;
    assert!(!export(&db)?.contains("rec_2"), "{out}");
    assert!(!folder.join("records/rec_2.json").exists(), "{out}");
    assert!(folder.join(".review-mcp-folder").exists());
    assert!(sync(&db, &folder)?.contains("written to the folder: 0"));
    Ok(())
}

/// Issue 23 item 10: every forget a server answered while a first sync of many items ran
/// holds after it: the item stays deleted, and the next sync deletes its file.
#[test]
fn sync_first_sync_keeps_every_forget_answered_meanwhile() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-forget")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    let n = 1500;
    let lines: Vec<String> = (0..n)
        .map(|i| feature(&format!("rec_{i}"), &format!("f{i}"), "x", T1))
        .collect();
    import(dir, &db, &lines)?;
    let folder = dir.join("review");
    let mut server = Server::start(&db)?;
    let forgotten = std::thread::scope(|scope| -> anyhow::Result<Vec<usize>> {
        let running = scope.spawn(|| review_mcp(&db, &["sync", &folder.to_string_lossy()]));
        let mut forgotten = Vec::new();
        let mut i = n;
        while !running.is_finished() && i > 0 {
            i -= 1;
            if forget_on(&mut server, &format!("f{i}"))? == 1 {
                forgotten.push(i);
            }
        }
        let out = running
            .join()
            .map_err(|_| anyhow::anyhow!("the sync thread panicked"))??;
        ok(out)?;
        Ok(forgotten)
    })?;
    ensure!(server.close()?.success());
    ensure!(!forgotten.is_empty(), "no forget ran during the sync");
    let exported = export(&db)?;
    for i in &forgotten {
        assert!(
            !exported.contains(&format!("\"rec_{i}\"")),
            "rec_{i} was forgotten during the sync ({} forgets) and came back",
            forgotten.len()
        );
    }
    sync(&db, &folder)?;
    for i in &forgotten {
        assert!(!folder.join(format!("records/rec_{i}.json")).exists());
    }
    Ok(())
}

/// Issue 23 item 13: two syncs of one folder at once (here: two first syncs of many items)
/// both end well, one after the other, and leave what one sync leaves.
#[test]
fn sync_twice_at_once_of_one_folder_both_succeed() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-twice")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    let lines: Vec<String> = (0..800)
        .map(|i| feature(&format!("rec_{i}"), &format!("f{i}"), "x", T1))
        .collect();
    import(dir, &db, &lines)?;
    for round in 0..3 {
        let folder = dir.join(format!("review{round}"));
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| review_mcp(&db, &["sync", &folder.to_string_lossy()]));
            let b = scope.spawn(|| review_mcp(&db, &["sync", &folder.to_string_lossy()]));
            (a.join(), b.join())
        });
        let (a, b) = (
            a.map_err(|_| anyhow::anyhow!("panicked"))??,
            b.map_err(|_| anyhow::anyhow!("panicked"))??,
        );
        let (a, b) = (ok(a)?, ok(b)?);
        assert!(
            a.contains("written to the folder: 800") != b.contains("written to the folder: 800"),
            "one of the two wrote the files:\n{a}\n{b}"
        );
        let files = files(&folder)?;
        assert_eq!(
            files.len(),
            800 + 3,
            "800 items, the README, the .gitattributes and the id file"
        );
        assert!(sync(&db, &folder)?.contains("written to the folder: 0"));
    }
    Ok(())
}

/// A first sync refused for a bad file writes nothing at all: no id file, no README, no item.
#[test]
fn sync_refused_first_sync_writes_no_file() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-refused")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(dir, &db, &[feature("rec_1", "bore", "x", T1)])?;
    let folder = dir.join("review");
    std::fs::create_dir_all(folder.join("records"))?;
    std::fs::write(folder.join("records/rec_bad.json"), "{\"record\": 1}\n")?;
    let out = review_mcp(&db, &["sync", &folder.to_string_lossy()])?;
    assert!(!out.status.success());
    let names: Vec<PathBuf> = files(&folder)?.into_iter().map(|f| f.0).collect();
    assert_eq!(names, vec![PathBuf::from("records/rec_bad.json")]);
    Ok(())
}

/// Regression: DIR naming a file (a typo, `sync review.db`) was refused as "cannot create
/// DIR: File exists" (a dry run: "cannot read DIR/README.md: Not a directory"), which says
/// nothing of what is wrong; both now say DIR is not a directory, and nothing changes.
#[test]
fn sync_of_a_file_says_it_is_not_a_directory() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-not-dir")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(dir, &db, &[feature("rec_1", "bore", "x", T1)])?;
    let file = dir.join("notes.txt");
    std::fs::write(&file, "mine\n")?;
    for args in [vec!["sync"], vec!["sync", "--dry-run"]] {
        let mut args = args;
        let name = file.to_string_lossy();
        args.push(&name);
        let out = review_mcp(&db, &args)?;
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            err.contains("notes.txt is not a directory") && err.contains("nothing was changed"),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&file)?, "mine\n");
    }
    Ok(())
}

/// Regression (found by cliout): a DIR that cannot be made (under `/proc`, on a read-only
/// file system, in a directory the user cannot write) was refused with the system's words
/// alone, "cannot create /proc/x: No such file or directory (os error 2)": neither that
/// nothing changed nor what to name instead. Both are said now.
#[cfg(target_os = "linux")]
#[test]
fn sync_into_a_folder_that_cannot_be_made_says_what_to_do() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-no-mkdir")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(dir, &db, &[feature("rec_1", "bore", "x", T1)])?;
    let out = review_mcp(&db, &["sync", "/proc/review-mcp-sync"])?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot create the folder /proc/review-mcp-sync")
            && err.contains("nothing was changed")
            && err.contains("directory you can write"),
        "{err}"
    );
    Ok(())
}

/// Regression: a refusal of sync's own files named them without saying what to do ("is a
/// symbolic link: review-mcp sync did not write it", "cannot read …/history: Not a
/// directory"). Each now says how to mend it, and nothing changes.
#[test]
fn sync_refusals_of_its_own_files_say_how_to_fix_them() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-own-files")?;
    let dir = tmp.path();
    let db = dir.join("a.db");
    import(dir, &db, &[feature("rec_1", "bore", "x", T1)])?;
    let synced = dir.join("review");
    sync(&db, &synced)?;
    // Each case plants in a copy: the folder itself moved away, so the copy is the folder
    // moved, not a second folder holding its id (which sync refuses before anything else).
    let folder = dir.join("original");
    std::fs::rename(&synced, &folder)?;
    type Plant = fn(&Path) -> std::io::Result<()>;
    let cases: [(&str, Plant, &str); 5] = [
        (
            "id file a link",
            |f| {
                std::fs::remove_file(f.join(".review-mcp-folder"))?;
                std::os::unix::fs::symlink("/etc/hostname", f.join(".review-mcp-folder"))
            },
            "gives the folder a new id",
        ),
        (
            "id file not an id",
            |f| std::fs::write(f.join(".review-mcp-folder"), "../../etc\n"),
            "git checkout",
        ),
        (
            "README a directory",
            |f| {
                std::fs::remove_file(f.join("README.md"))?;
                std::fs::create_dir(f.join("README.md"))
            },
            "delete it (sync writes its own)",
        ),
        (
            "history a file",
            |f| {
                // Absent when nothing was written there.
                let _ = std::fs::remove_dir_all(f.join("history"));
                std::fs::write(f.join("history"), "x")
            },
            "history is not a directory: sync keeps its files there; move it away",
        ),
        (
            "records a file",
            |f| {
                // Absent when nothing was written there.
                let _ = std::fs::remove_dir_all(f.join("records"));
                std::fs::write(f.join("records"), "x")
            },
            "records is not a directory: sync keeps its files there; move it away",
        ),
    ];
    for (what, plant, fix) in cases {
        let work = dir.join("work");
        if work.exists() {
            std::fs::remove_dir_all(&work)?;
        }
        copy_tree(&folder, &work)?;
        plant(&work)?;
        let before = (export(&db)?, files(&work)?);
        let out = review_mcp(&db, &["sync", &work.to_string_lossy()])?;
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{what}");
        assert!(
            err.contains(fix) && err.contains("nothing was changed"),
            "{what}: {err}"
        );
        assert_eq!((export(&db)?, files(&work)?), before, "{what}");
    }
    Ok(())
}

/// The folder's lock is held on the folder itself: a sync creates no lock file in the
/// temporary directory (where another user could create it first, or hold it), waits while
/// another holder has the folder locked, saying so, and runs once it is released.
#[test]
fn the_folder_lock_is_the_folder_itself_and_a_second_sync_waits_for_it() -> anyhow::Result<()> {
    let dir = crate::support::TempDir::new("sync-lock")?;
    let db = dir.join("a.db");
    let folder = dir.join("review");
    std::fs::create_dir(&folder)?;
    import(dir.path(), &db, &[feature("f1", "bore", "n", T1)])?;
    // Its own temporary directory: whatever the sync creates there is seen.
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp)?;
    let out = review_mcp_with(
        &db,
        &["sync", &folder.to_string_lossy()],
        &[("TMPDIR", tmp.to_string_lossy().into_owned())],
    )?;
    ok(out)?;
    let left: Vec<_> = std::fs::read_dir(&tmp)?.filter_map(Result::ok).collect();
    ensure!(left.is_empty(), "the sync left files in TMPDIR: {left:?}");
    // Another holder (as a running sync) has the folder: the sync waits and says so.
    let held = std::fs::File::open(&folder)?;
    held.lock()?;
    import(dir.path(), &db, &[feature("f2", "slot", "n", T2)])?;
    let mut child = Command::new(binary())
        .arg("--db")
        .arg(&db)
        .args(["sync", &folder.to_string_lossy()])
        .env("MCP_LOG_LEVEL", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while std::time::Instant::now() < deadline {
        ensure!(
            child.try_wait()?.is_none(),
            "the sync ran while another holder had the folder locked"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(held);
    let out = child.wait_with_output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(out.status.success(), "{stderr}");
    ensure!(
        stderr.contains("another sync of") && stderr.contains("waiting for it to finish"),
        "{stderr}"
    );
    ensure!(
        folder.join("records").read_dir()?.count() == 2,
        "the waiting sync did not write the second record"
    );
    Ok(())
}

/// Regression: "another sync of DIR is running" named the folder raw, the one message of sync
/// that did not escape it, so a folder named with an escape sequence acted on the terminal
/// while the sync waited.
#[test]
fn the_waiting_message_names_the_folder_escaped() -> anyhow::Result<()> {
    let dir = crate::support::TempDir::new("sync-lock-escaped")?;
    let db = dir.join("a.db");
    let folder = dir.join("rev\u{1b}]52;c;QUFB\u{7}iew\u{202e}");
    std::fs::create_dir(&folder)?;
    import(dir.path(), &db, &[feature("f1", "bore", "n", T1)])?;
    let held = std::fs::File::open(&folder)?;
    held.lock()?;
    let child = Command::new(binary())
        .arg("--db")
        .arg(&db)
        .arg("sync")
        .arg(&folder)
        .env("MCP_LOG_LEVEL", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    std::thread::sleep(std::time::Duration::from_millis(500));
    drop(held);
    let out = child.wait_with_output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(out.status.success(), "{stderr}");
    ensure!(
        stderr.contains("rev\\u{1b}]52;c;QUFB\\u{7}iew\\u{202e} is running"),
        "{stderr}"
    );
    for text in [&*stderr, &*String::from_utf8_lossy(&out.stdout)] {
        ensure!(
            !text
                .chars()
                .any(|c| c != '\n' && review_mcp::text::is_control_like(c)),
            "a control character reached the terminal: {text:?}"
        );
    }
    Ok(())
}

/// Issue (a force-push or a `git reset` of the synced folder): a file gone from the folder
/// deleted its item from the database with only a count ("deleted: 1"): the engineer could not
/// tell what was lost nor get it back. Each item deleted is now named (escaped: a stored name
/// cannot move the cursor), the first 20 on each side then a count of the rest, and every one
/// is saved, before the commit, in a file beside the database that `import` brings back.
#[test]
fn sync_names_each_item_it_deletes_and_saves_them_to_be_imported_back() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-deleted")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    let mut lines = vec![
        feature("rec_esc", "bore\\u001b[2J", "x", T1),
        decision("dec_d", "hold", T2, Some("rejected")),
    ];
    lines.extend((0..25).map(|i| feature(&format!("rec_x{i:02}"), &format!("f{i:02}"), "n", T1)));
    import(dir, &db, &lines)?;
    sync(&db, &folder)?;
    let before = export(&db)?;
    // What a `git reset --hard` to a commit without them does to the folder.
    for e in std::fs::read_dir(folder.join("records"))? {
        std::fs::remove_file(e?.path())?;
    }
    std::fs::remove_file(folder.join("decisions/dec_d.json"))?;
    let plan = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    assert!(
        plan.contains("would be deleted from the database: record rec_esc feature")
            && plan.contains("would delete decision dec_d from the database"),
        "{plan}"
    );
    let out = sync(&db, &folder)?;
    assert!(
        !out.contains('\u{1b}'),
        "a stored string reached the terminal raw: {out}"
    );
    let named: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("deleted from the database: "))
        .collect();
    assert_eq!(named.len(), 21, "{out}");
    assert!(
        named.contains(&"deleted from the database: record rec_esc feature \"bore\\u{1b}[2J\" at file:///w/p.step"),
        "{out}"
    );
    assert_eq!(
        named.last(),
        Some(&"deleted from the database: … and 7 more"),
        "{out}"
    );
    let saved_line = out
        .lines()
        .find(|l| l.starts_with("saved the 27 items deleted from the database in "))
        .with_context(|| out.clone())?;
    ensure!(saved_line.contains(" import "), "{saved_line}");
    let saved: Vec<PathBuf> = std::fs::read_dir(dir.join("a.db.sync-deleted"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    assert_eq!(saved.len(), 1);
    assert!(
        saved_line.contains(&*saved[0].to_string_lossy()),
        "{saved_line}"
    );
    assert!(std::fs::read_to_string(&saved[0])?.contains("\"via\":\"app\""));
    assert!(!export(&db)?.contains("rec_esc"));
    // Imported back, everything returns as it was, the engineer's verdict included, and the
    // next sync writes the files again.
    ok(review_mcp(&db, &["import", &saved[0].to_string_lossy()])?)?;
    let items = |e: &str| {
        e.lines()
            .filter(|l| !l.starts_with("{\"event\""))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(items(&export(&db)?), items(&before));
    let again = sync(&db, &folder)?;
    assert!(
        again.contains("written to the folder: 27 (26 records, 1 decision)"),
        "{again}"
    );
    assert!(folder.join("decisions/dec_d.json").exists());
    Ok(())
}

/// Clocks skewed between clones: a folder version dated ahead of this machine's clock (its
/// writer's clock is wrong) was taken silently, and the later-edit rule then favours it over
/// every edit made after it. The sync now says so, naming the item, its date, this clock and
/// how to find who wrote it; it still takes the version (nothing else changes).
#[test]
fn sync_says_when_a_folder_version_is_dated_ahead_of_this_clock() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-clock")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    import(dir, &db, &[feature("rec_a", "bore", "x", T1)])?;
    sync(&db, &folder)?;
    let out = sync(&db, &folder)?;
    assert!(!out.contains("clock:"), "{out}");
    let ahead = "2099-01-01T00:00:00.000Z";
    std::fs::write(
        folder.join("records/rec_a.json"),
        pretty(&feature("rec_a", "bore", "from a clock ahead", ahead))?,
    )?;
    let out = sync(&db, &folder)?;
    let line = out
        .lines()
        .find(|l| l.starts_with("clock: "))
        .with_context(|| out.clone())?;
    assert!(
        line.contains("record rec_a feature \"bore\"")
            && line.contains(&format!("dated {ahead}, ahead of this machine's clock"))
            && line.contains("git log -- records/rec_a.json"),
        "{line}"
    );
    assert!(out.contains("imported into the database: 1"), "{out}");
    assert!(!sync(&db, &folder)?.contains("clock:"), "said once");
    // Many such files: the first 20 are named, the rest counted.
    for i in 0..25 {
        let id = format!("rec_c{i:02}");
        std::fs::write(
            folder.join(format!("records/{id}.json")),
            pretty(&feature(&id, &format!("c{i:02}"), "n", ahead))?,
        )?;
    }
    let out = sync(&db, &folder)?;
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("clock: ")).collect();
    assert_eq!(lines.len(), 21, "{out}");
    assert_eq!(lines[20], "clock: … and 5 more");
    Ok(())
}

/// An item changed on both sides: the merge keeps the later version, and the database's
/// version it replaced (an edit made here and never synced exists nowhere else) was lost. It
/// is now saved with the deleted items, in the file the output names.
#[test]
fn sync_saves_the_database_version_a_conflict_replaced() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-replaced")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    import(dir, &db, &[decision("dec_d", "hold", T1, None)])?;
    sync(&db, &folder)?;
    // Here: an edit not synced yet; in the folder, a teammate's later one.
    import(
        dir,
        &db,
        &[decision(
            "dec_d",
            "hold until the bore is reworked",
            T2,
            None,
        )],
    )?;
    std::fs::write(
        folder.join("decisions/dec_d.json"),
        pretty(&decision("dec_d", "release", T3, None))?,
    )?;
    let out = sync(&db, &folder)?;
    assert!(out.contains("conflicts: 1"), "{out}");
    let line = out
        .lines()
        .find(|l| {
            l.starts_with("saved the database's version of the 1 item a conflict replaced in ")
        })
        .with_context(|| out.clone())?;
    let saved: Vec<PathBuf> = std::fs::read_dir(dir.join("a.db.sync-deleted"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    assert_eq!(saved.len(), 1, "{line}");
    let text = std::fs::read_to_string(&saved[0])?;
    assert!(text.contains("hold until the bore is reworked"), "{text}");
    assert!(export(&db)?.contains("\"disposition\":\"release\""));
    Ok(())
}

/// In `dir`: decision dec_d synced at T1 then at T2 (`a.db`, folder `review`), its file put
/// back as synced at T1 (a `git checkout -- review` of a file no commit held), and synced:
/// the database, the folder and what that sync printed.
fn older_folder_version_synced(dir: &Path) -> anyhow::Result<(PathBuf, PathBuf, String)> {
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    import(dir, &db, &[decision("dec_d", "hold", T1, None)])?;
    sync(&db, &folder)?;
    let committed = std::fs::read(folder.join("decisions/dec_d.json"))?;
    import(
        dir,
        &db,
        &[decision(
            "dec_d",
            "hold until the bore is reworked",
            T2,
            None,
        )],
    )?;
    sync(&db, &folder)?;
    // The file sync wrote is put back as committed: older than the database's version.
    std::fs::write(folder.join("decisions/dec_d.json"), &committed)?;
    let out = sync(&db, &folder)?;
    Ok((db, folder, out))
}

/// Regression: sync writes a changed item's file, and the engineer may never commit it; a
/// `git checkout -- review` (or `git stash`, `git reset --hard`) then puts the older committed
/// text back, and the next sync took it as a change in the folder and replaced the database's
/// later version with it, unsaid and saved nowhere: that version existed in no commit and no
/// file. A folder version older than the database's that replaces it is now named in a
/// conflict line and the database's version saved beside the database, to be imported back.
#[test]
fn sync_saves_the_database_version_an_older_folder_version_replaces() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-older")?;
    let dir = tmp.path();
    let (db, folder, out) = older_folder_version_synced(dir)?;
    ensure!(
        out.lines()
            .any(|l| l.starts_with("conflict: decision dec_d")
                && l.contains("older than the database's")
                && l.contains(T1)
                && l.contains(T2)),
        "{out}"
    );
    ensure!(
        out.contains("saved the database's version of the 1 item a conflict replaced in "),
        "{out}"
    );
    let saved: Vec<PathBuf> = std::fs::read_dir(dir.join("a.db.sync-deleted"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    ensure!(saved.len() == 1, "{out}");
    let text = std::fs::read_to_string(&saved[0])?;
    ensure!(text.contains("hold until the bore is reworked"), "{text}");
    // A later version from the folder (a teammate's edit) is taken as before, unsaid.
    std::fs::write(
        folder.join("decisions/dec_d.json"),
        pretty(&decision("dec_d", "release", T3, None))?,
    )?;
    let out = sync(&db, &folder)?;
    ensure!(
        out.contains("conflicts: 0") && !out.contains("saved"),
        "{out}"
    );
    Ok(())
}

/// Regression: the database's version an older folder version replaced (a `git checkout --
/// review` of a file sync wrote and nobody committed) was saved with the note "to compare with
/// the merge: import keeps the later version", as for a conflict's merge: no merge took place,
/// the saved version is the later one, and the note gave no command, so the engineer who did
/// not mean the checkout was not told that `import` of that file, then a sync, brings it back.
/// The note now gives that command, as it does for a deletion, and it works.
#[test]
fn sync_says_how_to_bring_back_the_database_version_an_older_folder_version_replaced()
-> anyhow::Result<()> {
    let tmp = TempDir::new("sync-older-back")?;
    let dir = tmp.path();
    let (db, folder, out) = older_folder_version_synced(dir)?;
    let saved: Vec<PathBuf> = std::fs::read_dir(dir.join("a.db.sync-deleted"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    ensure!(saved.len() == 1, "{out}");
    let command = format!(
        "review-mcp --db {} import {}, then sync again",
        db.display(),
        saved[0].display()
    );
    ensure!(
        out.contains(&command) && !out.contains("compare with the merge"),
        "the note gives the command that brings it back: {out}"
    );
    ok(review_mcp(&db, &["import", &saved[0].to_string_lossy()])?)?;
    sync(&db, &folder)?;
    let file = std::fs::read_to_string(folder.join("decisions/dec_d.json"))?;
    ensure!(file.contains("hold until the bore is reworked"), "{file}");
    Ok(())
}

/// A file only reformatted by hand (keys reordered, another indent, trailing spaces) was
/// "imported into the database: 1" though nothing of the item changed: the file is now only
/// given its form back ("written to the folder: 1"), and nothing is imported or recorded.
#[test]
fn sync_of_a_file_only_reformatted_imports_nothing_and_restores_its_form() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-reformat")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    import(dir, &db, &[decision("dec_d", "hold", T1, Some("rejected"))])?;
    sync(&db, &folder)?;
    let file = folder.join("decisions/dec_d.json");
    let form = std::fs::read_to_string(&file)?;
    let before = export(&db)?;
    let v: serde_json::Value = serde_json::from_str(&form)?;
    let mut edited = String::new();
    for line in serde_json::to_string_pretty(&v)?
        .replace("  ", "    ")
        .lines()
    {
        edited.push_str(line);
        edited.push_str("   \n");
    }
    std::fs::write(&file, edited)?;
    let out = sync(&db, &folder)?;
    assert!(out.contains("imported into the database: 0"), "{out}");
    assert!(out.contains("written to the folder: 1"), "{out}");
    assert_eq!(std::fs::read_to_string(&file)?, form);
    assert_eq!(export(&db)?, before);
    Ok(())
}

/// An item forgotten in one clone and changed in the other: the sync of the clone that changed
/// it keeps it (deleted in the folder, changed in the database) and writes it back, but the
/// teammate's `forgotten` event, newer than the change, arrived with the folder's history, so
/// the history of a live decision ended on "forgotten" (review_history and the card said it
/// was gone). The sync now records that the decision goes on, the same event the teammate's
/// database records when it takes the file back.
#[test]
fn sync_keeping_an_item_forgotten_elsewhere_does_not_end_its_history() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-forgot")?;
    let dir = tmp.path();
    let (ada, brook) = (dir.join("ada.db"), dir.join("brook.db"));
    let (fa, fb) = (dir.join("ada"), dir.join("brook"));
    import(dir, &ada, &[decision("dec_d", "hold", T1, None)])?;
    sync(&ada, &fa)?;
    copy_tree(&fa, &fb)?;
    sync(&brook, &fb)?;
    // Brook changes it (not synced yet); later, Ada forgets it and syncs.
    import(dir, &brook, &[decision("dec_d", "release", T2, None)])?;
    let mut server = Server::start(&ada)?;
    let art = json!({"revision": REV, "format": "step", "uri": "file:///w/p.step"});
    let v = server
        .call("forget", json!({"artifact": art, "subject": "bracket"}))?
        .ok()?;
    ensure!(v["deleted"] == 1, "{v}");
    ensure!(server.close()?.success());
    sync(&ada, &fa)?;
    // Brook pulls: the file is gone, the forgotten event arrives.
    std::fs::remove_file(fb.join("decisions/dec_d.json"))?;
    for e in std::fs::read_dir(fa.join("history"))? {
        let e = e?;
        std::fs::copy(e.path(), fb.join("history").join(e.file_name()))?;
    }
    let out = sync(&brook, &fb)?;
    assert!(
        out.contains("was deleted in the folder but changed in the database: kept"),
        "{out}"
    );
    let last = |db: &Path| -> anyhow::Result<String> {
        let kinds: Vec<String> = export(db)?
            .lines()
            .filter(|l| l.starts_with("{\"event\"") && l.contains("\"of\":\"dec_d\""))
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l)?;
                Ok(v["event"]["kind"].as_str().unwrap_or("").to_string())
            })
            .collect::<anyhow::Result<_>>()?;
        Ok(kinds.last().cloned().unwrap_or_default())
    };
    assert!(export(&brook)?.contains("\"disposition\":\"release\""));
    assert_ne!(
        last(&brook)?,
        "forgotten",
        "the live decision's history ends forgotten"
    );
    // Ada takes it back: the two histories agree.
    for e in std::fs::read_dir(fb.join("history"))? {
        let e = e?;
        std::fs::copy(e.path(), fa.join("history").join(e.file_name()))?;
    }
    std::fs::copy(
        fb.join("decisions/dec_d.json"),
        fa.join("decisions/dec_d.json"),
    )?;
    sync(&ada, &fa)?;
    let events = |db: &Path| -> anyhow::Result<Vec<String>> {
        let mut v: Vec<String> = export(db)?
            .lines()
            .filter(|l| l.starts_with("{\"event\"") && l.contains("\"of\":\"dec_d\""))
            .map(str::to_string)
            .collect();
        v.sort();
        Ok(v)
    };
    assert_eq!(events(&ada)?, events(&brook)?);
    assert_ne!(last(&ada)?, "forgotten");
    Ok(())
}

/// A decision one clone imported from another's export (never synced there) while its author
/// forgot it: the clone's sync keeps its copy, new to the folder, and writes its file, but took
/// the author's `forgotten` event from the folder's history without saying the decision goes
/// on, so the history of a live decision ended on "forgotten", and its export imported into an
/// empty database added an `arrived` event of the import's (converge seed 3041). The sync now
/// records that it goes on whatever the item's action, as `import` does; seen failing first.
#[test]
fn sync_writing_a_decision_its_author_forgot_does_not_end_its_history() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-new-forgot")?;
    let dir = tmp.path();
    let (ada, brook) = (dir.join("ada.db"), dir.join("brook.db"));
    let (fa, fb) = (dir.join("ada"), dir.join("brook"));
    import(dir, &ada, &[decision("dec_d", "hold", T1, None)])?;
    let lines: Vec<String> = export(&ada)?.lines().map(str::to_string).collect();
    import(dir, &brook, &lines)?;
    let mut server = Server::start(&ada)?;
    let art = json!({"revision": REV, "format": "step", "uri": "file:///w/p.step"});
    let v = server
        .call("forget", json!({"artifact": art, "subject": "bracket"}))?
        .ok()?;
    ensure!(v["deleted"] == 1, "{v}");
    ensure!(server.close()?.success());
    sync(&ada, &fa)?;
    ensure!(!fa.join("decisions/dec_d.json").exists());
    // Brook clones the folder: the forgotten event, no file.
    copy_tree(&fa, &fb)?;
    sync(&brook, &fb)?;
    assert!(fb.join("decisions/dec_d.json").exists());
    let kinds = |db: &Path| -> anyhow::Result<Vec<String>> {
        export(db)?
            .lines()
            .filter(|l| l.starts_with("{\"event\"") && l.contains("\"of\":\"dec_d\""))
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l)?;
                Ok(v["event"]["kind"].as_str().unwrap_or("").to_string())
            })
            .collect()
    };
    assert_ne!(
        kinds(&brook)?.last().map(String::as_str),
        Some("forgotten"),
        "the live decision's history ends forgotten: {:?}",
        kinds(&brook)?
    );
    // Its export, imported into an empty database, exports the same.
    let file = dir.join("brook.jsonl");
    let first = export(&brook)?;
    std::fs::write(&file, &first)?;
    let fresh = dir.join("fresh.db");
    ok(review_mcp(&fresh, &["import", &file.to_string_lossy()])?)?;
    assert_eq!(export(&fresh)?, first);
    // Ada takes it back: the two histories agree.
    copy_tree(&fb, &fa)?;
    sync(&ada, &fa)?;
    assert_eq!(kinds(&ada)?, kinds(&brook)?);
    Ok(())
}

/// A database inside the folder it syncs (`--db review/review.db sync review`) was synced
/// silently: `git add -A review` then commits everyone's private database (and its -wal), and
/// a pull replaces it under running servers. The sync now refuses, saying where to keep it,
/// and creates nothing (neither the database nor the folder).
#[test]
fn sync_refuses_a_database_inside_the_folder() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-db-inside")?;
    let dir = tmp.path();
    for (db, folder) in [
        ("review/review.db", "review"),
        ("review/records/r.db", "review"),
        ("./review/../review/x/r.db", "review/"),
        ("elsewhere/../review/r.db", "review"),
    ] {
        let out = Command::new(binary())
            .current_dir(dir)
            .args(["--db", db, "sync", folder])
            .env("MCP_LOG_LEVEL", "warn")
            .output()?;
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{db}: {err}");
        assert!(
            err.contains("is inside the folder") && err.contains("outside the repository"),
            "{db}: {err}"
        );
        assert!(!dir.join("review").exists(), "{db}: a folder was made");
    }
    // Beside the folder is fine.
    let out = Command::new(binary())
        .current_dir(dir)
        .args(["--db", "review.db", "sync", "review"])
        .env("MCP_LOG_LEVEL", "warn")
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// Regression: a feature recorded apart in two clones ("bore" under two ids, one natural key)
/// met at a sync while a client paged through `recall`. The folder's later version kept the
/// key with its own id, and took a new place at the top of "newest first" (the next `seq`)
/// while the other id's row was deleted: a walk begun before the sync never served "bore" at
/// all (its old place gone, its new one after the walk's snapshot), and afterwards an old
/// feature showed as the newest. `import` settles the same meeting by giving the winner the
/// holder's place; sync now does too, so a walk across a sync serves every feature once.
#[test]
fn sync_two_ids_of_one_feature_keep_its_place_in_a_recall_walk() -> anyhow::Result<()> {
    use crate::support::inproc::{Client, Era, art_uri};
    use review_mcp::store::Store;
    let tmp = TempDir::new("sync-walk-key")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    // "bore" first (the oldest: last in newest-first order), then ten more features.
    let mut lines = vec![feature("rec_bore_a", "bore", "mine", T1)];
    lines.extend((0..10).map(|i| feature(&format!("rec_{i}"), &format!("f{i}"), "x", T1)));
    import(dir, &db, &lines)?;
    sync(&db, &folder)?;
    // A teammate's "bore", recorded apart and edited later, arrives in the folder.
    std::fs::write(
        folder.join("records/rec_bore_b.json"),
        pretty(&feature("rec_bore_b", "bore", "theirs", T2))?,
    )?;
    let mut c = Client::new(Store::open(&db)?, Era::V2025_11_25);
    let artifact = art_uri(REV, "/w/p.step");
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for page_no in 0..20 {
        let mut args = json!({"artifact": artifact, "limit": 4});
        if let Some(cur) = &cursor {
            args["cursor"] = json!(cur);
        }
        let page = c.ok("recall", args);
        for r in page["records"].as_array().into_iter().flatten() {
            names.push(r["name"].as_str().unwrap_or_default().to_string());
        }
        if page_no == 0 {
            let out = sync(&db, &folder)?;
            ensure!(out.contains("under two ids"), "{out}");
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    let bores = names.iter().filter(|n| *n == "bore").count();
    ensure!(bores == 1, "bore served {bores} times: {names:?}");
    ensure!(names.len() == 11, "{names:?}");
    // After the sync, "bore" keeps its place: the oldest, last in newest-first order.
    let page = c.ok("recall", json!({"artifact": artifact, "limit": 20}));
    let last = page["records"]
        .as_array()
        .and_then(|r| r.last())
        .cloned()
        .unwrap_or_default();
    ensure!(
        last["id"] == "rec_bore_b" && last["note"] == "theirs",
        "{page}"
    );
    Ok(())
}

/// Regression: a database hard-linked into the folder (`ln ~/review.db review/review.db`, or into a
/// subfolder under any name), which no path comparison sees, is refused too, by the database's
/// own rule (a file with two names is never opened), before the folder or the database is
/// touched; and so is its dry run, which read the file in place (as export does, which allows
/// a second name) and printed a plan the sync then refused.
#[cfg(unix)]
#[test]
fn sync_refuses_a_database_hard_linked_into_the_folder() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-db-hardlink")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    import(dir, &db, &[feature("rec_1", "bore", "x", T1)])?;
    ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    std::fs::create_dir_all(folder.join("notes/deep"))?;
    let db_before = std::fs::read(&db)?;
    for link in ["a.db", "notes/deep/copy.bin"] {
        let at = folder.join(link);
        std::fs::hard_link(&db, &at)?;
        let before = files(&folder)?;
        for args in [vec!["sync"], vec!["sync", "--dry-run"]] {
            let mut args = args.clone();
            let f = folder.to_string_lossy();
            args.push(&f);
            let out = review_mcp(&db, &args)?;
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{link} {args:?}: {err}");
            assert!(
                err.contains("has 2 hard links") && err.contains("Keep one name"),
                "{link} {args:?}: {err}"
            );
            assert!(files(&folder)? == before, "{link}: the folder changed");
        }
        std::fs::remove_file(&at)?;
        assert!(
            std::fs::read(&db)? == db_before,
            "{link}: the database changed"
        );
    }
    ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    Ok(())
}

/// A database inside the folder by another name of it that resolving links cannot see (a bind
/// mount, as a dev container mounts a checkout twice) was synced silently. The refusal now
/// compares the folder with each directory holding the database as the system identifies
/// them (device and inode). Needs the right to mount (root).
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs root (mount --bind); .ci/run runs it with --ignored as root"]
fn sync_refuses_a_database_inside_the_folder_by_a_bind_mount() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-db-bind")?;
    let dir = tmp.path();
    let (folder, mnt) = (dir.join("review"), dir.join("mnt"));
    std::fs::create_dir_all(folder.join("records"))?;
    std::fs::create_dir_all(&mnt)?;
    let mounted = Command::new("mount")
        .arg("--bind")
        .arg(&folder)
        .arg(&mnt)
        .output()
        .is_ok_and(|o| o.status.success());
    anyhow::ensure!(mounted, "could not run: mount --bind failed (needs root)");
    let mut results = Vec::new();
    for db in [mnt.join("r.db"), mnt.join("records/r.db")] {
        results.push(review_mcp(&db, &["sync", &folder.to_string_lossy()]));
    }
    let _ = Command::new("umount").arg(&mnt).output();
    for out in results {
        let out = out?;
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{err}");
        assert!(err.contains("is inside the folder"), "{err}");
    }
    assert!(!folder.join("r.db").exists() && !folder.join("records/r.db").exists());
    Ok(())
}

/// The peak resident memory a sync logs as it ends (KiB), where `/proc` tells it.
fn sync_peak_kib(db: &Path, folder: &Path) -> anyhow::Result<Option<u64>> {
    let out = review_mcp_with(
        db,
        &["sync", &folder.to_string_lossy()],
        &[("MCP_LOG_LEVEL", "info".to_string())],
    )?;
    ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    Ok(err
        .split("peak resident memory ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok()))
}

/// Regression: a sync held every item it deleted from the database (and every database
/// version a merge replaced) in memory until it saved them all at the end, so deleting 28 MB
/// of items took 21 MiB more than writing them (a 200 MB deletion 245 MiB), against the rule
/// that sync's memory does not grow with the size of the items. Each is now written to the
/// saved file as it is deleted.
#[test]
fn sync_deleting_large_items_holds_none_of_them() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-deleted-memory")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    let note = "n".repeat(9000);
    let lines: Vec<String> = (0..3000)
        .map(|i| feature(&format!("rec_m{i:05}"), &format!("f{i}"), &note, T1))
        .collect();
    import(dir, &db, &lines)?;
    let writing = sync_peak_kib(&db, &folder)?.context("sync logged no peak resident memory")?;
    std::fs::remove_dir_all(folder.join("records"))?;
    let deleting = sync_peak_kib(&db, &folder)?.context("peak")?;
    assert!(
        deleting < writing + 10 * 1024,
        "deleting 28 MB of items took {deleting} KiB, writing them {writing} KiB"
    );
    let saved: Vec<PathBuf> = std::fs::read_dir(dir.join("a.db.sync-deleted"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(std::fs::read_to_string(&saved[0])?.lines().count(), 3000);
    Ok(())
}

/// When the items a sync would delete from the database cannot be saved (here a file stands
/// where their folder goes), the sync deletes nothing, says so and names the place.
#[test]
fn sync_that_cannot_save_what_it_deletes_deletes_nothing() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-cannot-save")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    import(dir, &db, &[feature("rec_a", "bore", "x", T1)])?;
    sync(&db, &folder)?;
    std::fs::remove_file(folder.join("records/rec_a.json"))?;
    std::fs::write(dir.join("a.db.sync-deleted"), "in the way")?;
    let out = review_mcp(&db, &["sync", &folder.to_string_lossy()])?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("cannot make the folder") && err.contains("a.db.sync-deleted"),
        "{err}"
    );
    assert!(err.contains("nothing was changed"), "{err}");
    assert!(
        export(&db)?.contains("rec_a"),
        "the item was deleted unsaved"
    );
    std::fs::remove_file(dir.join("a.db.sync-deleted"))?;
    assert!(sync(&db, &folder)?.contains("deleted from the database: record rec_a"));
    Ok(())
}

/// The folder of saved items is the owner's alone, as docs/command-line.md says: a symbolic
/// link planted where it goes (the saved review would land wherever it points, in a
/// directory of any mode) is refused and nothing changes; a folder there that others may read
/// is made the owner's alone before anything is saved in it.
#[cfg(unix)]
#[test]
fn sync_saves_deleted_items_only_in_a_folder_of_its_own() -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let tmp = TempDir::new("sync-saved-folder")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    import(
        dir,
        &db,
        &[
            feature("rec_a", "bore", "x", T1),
            feature("rec_b", "slot", "y", T1),
        ],
    )?;
    sync(&db, &folder)?;
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir(&elsewhere)?;
    std::os::unix::fs::symlink(&elsewhere, dir.join("a.db.sync-deleted"))?;
    std::fs::remove_file(folder.join("records/rec_a.json"))?;
    let out = review_mcp(&db, &["sync", &folder.to_string_lossy()])?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("symbolic link") && err.contains("nothing was changed"),
        "{err}"
    );
    assert!(export(&db)?.contains("rec_a"), "the item was deleted");
    assert_eq!(std::fs::read_dir(&elsewhere)?.count(), 0);
    std::fs::remove_file(dir.join("a.db.sync-deleted"))?;
    let saved = dir.join("a.db.sync-deleted");
    std::fs::create_dir(&saved)?;
    std::fs::set_permissions(&saved, std::fs::Permissions::from_mode(0o755))?;
    assert!(sync(&db, &folder)?.contains("deleted from the database: record rec_a"));
    let mode = std::fs::metadata(&saved)?.permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "{mode:o}");
    Ok(())
}

/// `sync review/records` (a completion one level too deep) wrote a README, an id file and a
/// copy of every item into the synced folder's own subfolder, which the next `sync review`
/// then refused file by file. A DIR inside a synced folder is now refused, naming the folder
/// to sync, and nothing is written (dry run too). The command it gives is one the shell runs
/// as it reads: the folder's name has a space, which the command quotes.
#[test]
fn sync_refuses_a_folder_inside_a_synced_folder() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-inside")?;
    let dir = tmp.path();
    let (db, folder) = (dir.join("a.db"), dir.join("the review"));
    import(dir, &db, &[feature("rec_a", "bore", "x", T1)])?;
    sync(&db, &folder)?;
    let before = files(&folder)?;
    let command = format!(
        "(review-mcp sync '{}')",
        std::fs::canonicalize(&folder)?.display()
    );
    for sub in ["records", "history", "new/deeper"] {
        for dry in [true, false] {
            let target = folder.join(sub);
            let mut args = vec!["sync"];
            if dry {
                args.push("--dry-run");
            }
            let t = target.to_string_lossy().into_owned();
            args.push(&t);
            let out = review_mcp(&db, &args)?;
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{sub}: {err}");
            assert!(
                err.contains("is inside the folder")
                    && err.contains("sync that folder itself")
                    && err.contains(&command),
                "{sub}: {err}"
            );
        }
    }
    assert_eq!(files(&folder)?, before, "nothing was written");
    assert!(sync(&db, &folder)?.contains("conflicts: 0"));
    Ok(())
}

/// advimp: a statement the engineer made anew at revision A after the feature carried on to B
/// was forgotten there (the database holds A's superseded copy beside it) is deleted by a sync
/// of a folder put back to a commit that held the carried feature (`git reset`). The saved
/// file holds the statement with the copy the database kept beside it. Its import into the
/// database, where the carried feature stands at B again, keeps the statement as what A says
/// of the feature, in the copy there (carryrules: a carried feature never moves back, in
/// `import` as in sync; before, a file holding the copy beside the statement brought it back
/// live and the feature at B, if it had been revived elsewhere, was dropped): nothing is lost.
#[test]
fn a_statement_beside_a_carry_s_copy_deleted_by_sync_is_kept_by_its_import() -> anyhow::Result<()> {
    const A: &str = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    let tmp = TempDir::new("sync-deleted-beside-copy")?;
    let dir = tmp.path();
    let line = |id: &str, rev: &str, note: &str, extra: &str, updated: &str| {
        format!(
            r#"{{"record":{{"id":"{id}","kind":"feature","name":"mating","note":"{note}","tags":[],"entity_ids":["face:3"],"id_scheme":"opaque","artifact":{{"revision":"{rev}","format":"step","uri":"file:///w/p.step"}}{extra},"created_at":"{T1}","updated_at":"{updated}"}}}}"#
        )
    };
    let carried = line(
        "rec_0000000000000001",
        B,
        "carried",
        &format!(r#","carried":{{"from":"{A}","state":"inherited"}}"#),
        T2,
    );
    let copy = line(
        "rec_0000000000000002",
        A,
        "original",
        &format!(r#","superseded":{{"at":"{T2}","by":"{B}"}}"#),
        T2,
    );
    let anew = line("rec_0000000000000003", A, "stated anew at A", "", T3);
    // The commit the folder is put back to: the carried feature at B and its copy at A.
    let (old_db, old_folder) = (dir.join("old.db"), dir.join("old"));
    import(dir, &old_db, &[carried.clone(), copy.clone()])?;
    sync(&old_db, &old_folder)?;
    // This database: the feature forgotten at B, stated anew at A, synced.
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    import(dir, &db, &[copy.clone(), anew.clone()])?;
    sync(&db, &folder)?;
    let live = |db: &Path| -> anyhow::Result<Vec<String>> {
        Ok(export(db)?
            .lines()
            .filter(|l| l.starts_with("{\"record\"") && !l.contains("\"superseded\""))
            .map(str::to_string)
            .collect())
    };
    assert_eq!(live(&db)?, std::slice::from_ref(&anew));
    // `git reset` to the older commit: the statement's file gone, the carried feature's back.
    std::fs::remove_file(folder.join("records/rec_0000000000000003.json"))?;
    std::fs::copy(
        old_folder.join("records/rec_0000000000000001.json"),
        folder.join("records/rec_0000000000000001.json"),
    )?;
    let out = sync(&db, &folder)?;
    assert!(
        out.contains("deleted from the database: record rec_0000000000000003"),
        "{out}"
    );
    let saved: Vec<PathBuf> = std::fs::read_dir(dir.join("a.db.sync-deleted"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    assert_eq!(saved.len(), 1);
    // adv9: the sync said its import brings the deleted item back; it comes back as A's copy,
    // and the import's report says so and how to have it live again.
    let said = ok(review_mcp(&db, &["import", &saved[0].to_string_lossy()])?)?;
    assert!(
        said.contains("kept 1 as what the revision it states says")
            && said
                .contains("forget the feature where it stands, then remember it at that revision"),
        "{said}"
    );
    let back = live(&db)?;
    assert_eq!(back.len(), 1, "{back:?}");
    assert!(
        back[0].contains("rec_0000000000000001"),
        "the carried feature stands at B: {back:?}"
    );
    let kept: Vec<String> = export(&db)?
        .lines()
        .filter(|l| l.contains("\"superseded\"") && l.contains(A))
        .map(str::to_string)
        .collect();
    assert!(
        kept.len() == 1 && kept[0].contains("stated anew at A"),
        "the statement deleted by the sync is what A says, in its copy: {kept:?}"
    );
    Ok(())
}
