//! Two folders carrying one folder id (`.review-mcp-folder`) synced with one database: a second
//! clone or `git worktree` of the repository, a copied or restored folder. Sync refuses the
//! one the database did not last sync while that one still holds the id, naming both; a
//! folder moved (its old place gone, or no longer holding the id) goes on; a link to the same
//! folder is the same folder; a copy synced with a database of its own is the normal case.

use std::path::{Path, PathBuf};
use std::process::Output;

use anyhow::ensure;

use crate::support::TempDir;
use crate::support::git::git_ok;
use crate::sync_input::refused;
use crate::sync_state::{T1, copy_tree, export, feature, files, import, ok, review_mcp, sync};

fn sync_output(db: &Path, folder: &Path, dry_run: bool) -> anyhow::Result<Output> {
    let folder = folder.to_string_lossy();
    let args: &[&str] = match dry_run {
        true => &["sync", "--dry-run", &folder],
        false => &["sync", &folder],
    };
    review_mcp(db, args)
}

/// A database holding two features, `rec_1` and `rec_2`.
fn database(dir: &Path) -> anyhow::Result<std::path::PathBuf> {
    let db = dir.join("r.db");
    let lines = [
        feature("rec_1", "bore", "n", T1),
        feature("rec_2", "slot", "n", T1),
    ];
    import(dir, &db, &lines)?;
    Ok(db)
}

/// The refusal names both folders (as the system resolves them), the database fix and the
/// moved-folder fix, and says nothing changed.
fn names_both(said: &str, new: &Path, old: &Path) -> anyhow::Result<()> {
    let (new, old) = (std::fs::canonicalize(new)?, std::fs::canonicalize(old)?);
    for part in [
        new.display().to_string(),
        old.display().to_string(),
        "both hold the folder id".into(),
        "nothing was changed".into(),
        "a database of its own".into(),
        format!("--db OTHER.db sync {}", new.display()),
    ] {
        ensure!(said.contains(&part), "{part:?} missing from: {said}");
    }
    Ok(())
}

/// Regression (the defect): the repository's checkout and a `git worktree` of another branch
/// (which holds the same committed `.review-mcp-folder`) synced in turn with one database:
/// each sync deleted from the database what the other folder lacked, silently, back and forth.
/// Now the worktree's sync (and its dry run) is refused naming both paths, nothing changes,
/// the checkout syncs as before, and the worktree syncs with a database of its own.
#[test]
fn sync_a_git_worktree_with_the_checkouts_database_is_refused_naming_both() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-worktree")?;
    let dir = tmp.path();
    let db = database(dir)?;
    let repo = dir.join("repo");
    std::fs::create_dir(&repo)?;
    git_ok(&repo, &["init", "-q", "-b", "main"])?;
    git_ok(&repo, &["config", "user.name", "Ada"])?;
    git_ok(&repo, &["config", "user.email", "ada@example.com"])?;
    sync(&db, &repo.join("review"))?;
    git_ok(&repo, &["add", "-A"])?;
    git_ok(&repo, &["commit", "-q", "-m", "review"])?;
    // Another branch, in a worktree beside the checkout, where the slot is forgotten.
    git_ok(&repo, &["worktree", "add", "-q", "../wt", "-b", "feature"])?;
    let wt = dir.join("wt");
    git_ok(&wt, &["rm", "-q", "review/records/rec_2.json"])?;
    git_ok(&wt, &["commit", "-q", "-m", "slot forgotten"])?;
    let (before, folder_before) = (export(&db)?, files(&wt.join("review"))?);
    for dry_run in [true, false] {
        let said = refused(sync_output(&db, &wt.join("review"), dry_run)?)?;
        names_both(&said, &wt.join("review"), &repo.join("review"))?;
    }
    assert_eq!(export(&db)?, before, "the database is unchanged");
    assert!(before.contains("rec_2"));
    assert_eq!(files(&wt.join("review"))?, folder_before);
    assert!(
        !db.with_extension("db.sync-deleted").exists(),
        "nothing was deleted"
    );
    let again = sync(&db, &repo.join("review"))?;
    assert!(again.contains("deleted: 0 "), "{again}");
    // The worktree's review with a database of its own (a teammate's clone is the same case).
    let own = dir.join("feature.db");
    let out = sync(&own, &wt.join("review"))?;
    assert!(out.contains("imported into the database: 1 "), "{out}");
    assert!(export(&own)?.contains("rec_1") && !export(&own)?.contains("rec_2"));
    assert!(sync(&db, &repo.join("review"))?.contains("deleted: 0 "));
    Ok(())
}

/// A database in `dir` synced with `original/review`, and a copy of that folder at
/// `copy/review` that lacks `rec_2` (deleted from it): (database, original, copy).
fn synced_and_copied(dir: &Path) -> anyhow::Result<(PathBuf, PathBuf, PathBuf)> {
    let db = database(dir)?;
    let original = dir.join("original/review");
    sync(&db, &original)?;
    let copy = dir.join("copy/review");
    copy_tree(&original, &copy)?;
    std::fs::remove_file(copy.join("records/rec_2.json"))?;
    Ok((db, original, copy))
}

/// A copied folder (`cp -r`, a restored backup beside the original) is refused while the
/// original holds the id; once the original lets it go (its id file deleted), the copy goes on
/// as the folder moved, saying so, with its state: an item deleted from it is deleted.
#[test]
fn sync_a_copied_folder_is_refused_until_the_original_lets_it_go() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-copy")?;
    let dir = tmp.path();
    let (db, original, copy) = synced_and_copied(dir)?;
    let said = refused(sync_output(&db, &copy, false)?)?;
    names_both(&said, &copy, &original)?;
    assert!(said.contains("If "), "the moved-folder fix: {said}");
    assert!(export(&db)?.contains("rec_2"));
    std::fs::remove_file(original.join(".review-mcp-folder"))?;
    let out = sync(&db, &copy)?;
    let old = std::fs::canonicalize(&original)?;
    assert!(
        out.contains(&format!("moved from {}", old.display())),
        "{out}"
    );
    assert!(!export(&db)?.contains("rec_2"), "{out}");
    let next = sync(&db, &copy)?;
    assert!(!next.contains("moved"), "said once: {next}");
    Ok(())
}

/// A folder on a drive that is not mounted (its place gone) cannot be told from a moved one:
/// its copy syncs, naming where the folder was; when the drive is back, its folder (still
/// holding the id) is refused, naming the copy: at most one sync follows the wrong folder, and
/// it says so.
#[test]
fn sync_of_a_copy_while_the_original_is_unmounted_names_it_and_the_return_is_refused()
-> anyhow::Result<()> {
    let tmp = TempDir::new("sync-unmounted")?;
    let dir = tmp.path();
    let db = database(dir)?;
    let drive = dir.join("drive");
    let original = drive.join("review");
    sync(&db, &original)?;
    let copy = dir.join("home/review");
    copy_tree(&original, &copy)?;
    let old = std::fs::canonicalize(&original)?;
    std::fs::rename(&drive, dir.join("unmounted"))?;
    let plan = ok(sync_output(&db, &copy, true)?)?;
    assert!(
        plan.contains(&format!(
            "would sync the folder as moved from {}",
            old.display()
        )),
        "{plan}"
    );
    let out = sync(&db, &copy)?;
    assert!(
        out.contains(&format!("moved from {}", old.display())),
        "{out}"
    );
    std::fs::rename(dir.join("unmounted"), &drive)?;
    let said = refused(sync_output(&db, &original, false)?)?;
    names_both(&said, &original, &copy)?;
    Ok(())
}

/// Regression: a database moved or renamed (its old name gone) found no place recorded under
/// its new path and synced a copy of its folder as the folder itself, deleting from the
/// database what the copy lacked, silently. The place it recorded under its old name is its
/// own: the copy is refused, and the original syncs on.
#[test]
fn a_moved_database_keeps_the_place_it_recorded() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-moved-db")?;
    let dir = tmp.path();
    let (db, original, copy) = synced_and_copied(dir)?;
    let moved = dir.join("moved.db");
    std::fs::rename(&db, &moved)?;
    let said = refused(sync_output(&moved, &copy, false)?)?;
    names_both(&said, &copy, &original)?;
    assert!(export(&moved)?.contains("rec_2"));
    let out = sync(&moved, &original)?;
    assert!(!out.contains("moved"), "{out}");
    Ok(())
}

/// A database copied with its folder (a workspace copied whole) is another pair: the copy of
/// the database syncs the copy of the folder, and the original pair goes on, neither refused.
#[test]
fn sync_a_database_copied_with_its_folder_syncs_each_pair() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-pair")?;
    let dir = tmp.path();
    let first = dir.join("first");
    std::fs::create_dir(&first)?;
    let db = database(&first)?;
    sync(&db, &first.join("review"))?;
    let second = dir.join("second");
    std::fs::create_dir(&second)?;
    std::fs::copy(&db, second.join("r.db"))?;
    copy_tree(&first.join("review"), &second.join("review"))?;
    std::fs::remove_file(second.join("review/records/rec_2.json"))?;
    let out = sync(&second.join("r.db"), &second.join("review"))?;
    assert!(
        out.contains("deleted: 1 ") && !out.contains("moved"),
        "{out}"
    );
    let out = sync(&db, &first.join("review"))?;
    assert!(out.contains("deleted: 0 "), "{out}");
    assert!(export(&db)?.contains("rec_2"));
    Ok(())
}

/// The same folder under another name is not a copy: a path through a link to the checkout,
/// and a checkout moved with a link left at its old place, sync as the folder itself.
#[cfg(unix)]
#[test]
fn sync_through_a_link_or_after_a_move_with_a_link_back_is_the_same_folder() -> anyhow::Result<()> {
    use std::os::unix::fs::symlink;
    let tmp = TempDir::new("sync-linked")?;
    let dir = tmp.path();
    let db = database(dir)?;
    let checkout = dir.join("checkout");
    sync(&db, &checkout.join("review"))?;
    symlink(&checkout, dir.join("alias"))?;
    let out = sync(&db, &dir.join("alias/review"))?;
    assert!(!out.contains("moved"), "{out}");
    let moved = dir.join("disk/checkout");
    std::fs::create_dir(dir.join("disk"))?;
    std::fs::rename(&checkout, &moved)?;
    symlink(&moved, &checkout)?;
    let out = sync(&db, &moved.join("review"))?;
    assert!(!out.contains("moved"), "{out}");
    assert!(sync(&db, &checkout.join("review"))?.contains("deleted: 0 "));
    Ok(())
}

/// A database of schema version 14 (before sync kept where it last synced a folder) that
/// synced a folder opens, upgrades, syncs that folder as before, and from then on refuses a
/// copy of it.
#[test]
fn sync_with_a_database_from_before_the_check_upgrades_and_then_refuses_a_copy()
-> anyhow::Result<()> {
    let tmp = TempDir::new("sync-upgrade")?;
    let dir = tmp.path();
    let db = database(dir)?;
    let folder = dir.join("review");
    sync(&db, &folder)?;
    {
        let conn = rusqlite::Connection::open(&db)?;
        conn.execute_batch("DROP TABLE IF EXISTS sync_folders; PRAGMA user_version = 14;")?;
    }
    let out = sync(&db, &folder)?;
    assert!(
        out.contains("deleted: 0 ") && !out.contains("moved"),
        "{out}"
    );
    let copy = dir.join("copy/review");
    copy_tree(&folder, &copy)?;
    let said = refused(sync_output(&db, &copy, false)?)?;
    names_both(&said, &copy, &folder)?;
    ok(review_mcp(&db, &["check"])?)?;
    Ok(())
}
