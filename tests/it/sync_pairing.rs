//! What git hands the merge driver (`review-mcp merge-file`) is three files at one path, and
//! any of them may hold another item than the path names: git pairs files as renames, and an
//! id forgotten may be imported again for another subject. One rule holds in every case: a
//! version or a base that is another item is never taken as a version or an ancestor of this
//! item, so no engineer's verdict moves to an item it was not given on, and none is lost.
//! The same holds of a version the driver set aside (`.<id>.json.kept`) that meets its item's
//! file again: merged into it when it is a version of that item, refused when it is not.
//! Each test plays real git (a bare remote, two clones with the driver set up), `review-mcp
//! import` for the engineers' edits and `review-mcp sync` in each clone, and reads every
//! clone's database at the end.

use std::path::PathBuf;

use anyhow::ensure;
use serde_json::Value;

use crate::support::TempDir;
use crate::support::client::binary;
use crate::support::git::{git, git_ok};
use crate::sync_state::{export, files, import, sync};

const REV: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
const T0: &str = "2026-01-02T00:00:00.000Z";
const T1: &str = "2026-01-03T00:00:00.000Z";
const T2: &str = "2026-01-04T00:00:00.000Z";
const T3: &str = "2026-01-05T00:00:00.000Z";

/// A feature "bore" of the part, noted `note`.
fn feature(id: &str, note: &str, at: &str) -> String {
    format!(
        r#"{{"record":{{"id":"{id}","kind":"feature","name":"bore","note":"{note}","tags":[],"entity_ids":[],"id_scheme":"opaque","artifact":{{"revision":"{REV}","format":"step","uri":"file:///w/p.step"}},"created_at":"2026-01-01T00:00:00.000Z","updated_at":"{at}"}}}}"#
    )
}

/// The engineer's verdict, from the review card, given at `at`.
fn engineer(at: &str) -> String {
    format!(
        r#"{{"at":"{at}","author":"Ada","judgement":"rejected","reason":"measured","via":"app"}}"#
    )
}

/// The assistant's verdict, given at `at`.
fn assistant(at: &str) -> String {
    format!(r#"{{"at":"{at}","judgement":"accepted","via":"assistant"}}"#)
}

/// A decision on `subject` with two basis items, the first holding `verdict` (JSON) if any.
fn decision(id: &str, subject: &str, disposition: &str, at: &str, verdict: Option<&str>) -> String {
    let verdict = verdict
        .map(|v| format!(r#","verdict":{v}"#))
        .unwrap_or_default();
    format!(
        r#"{{"decision":{{"id":"{id}","subject":"{subject}","disposition":"{disposition}","basis":[{{"requirement":"Bore 10 H7","source":"drawing","state":"satisfied","faces":["face:1"]{verdict}}},{{"requirement":"Flatness 0.05","source":"drawing","state":"satisfied","faces":["face:2"]}}],"artifact":{{"revision":"{REV}","format":"step","uri":"file:///w/p.step"}},"created_at":"2026-01-01T00:00:00.000Z","updated_at":"{at}"}}}}"#
    )
}

/// One engineer's clone of the team's remote, with its database.
struct Clone {
    dir: PathBuf,
    db: PathBuf,
    folder: PathBuf,
}

impl Clone {
    /// `review-mcp import` of `lines` (written beside the database, out of the clone).
    fn import(&self, lines: &[String]) -> anyhow::Result<()> {
        let beside = self.db.parent().unwrap_or(&self.dir);
        import(beside, &self.db, lines)
    }

    fn sync(&self) -> anyhow::Result<String> {
        sync(&self.db, &self.folder)
    }

    fn git(&self, args: &[&str]) -> anyhow::Result<String> {
        git_ok(&self.dir, args)
    }

    /// Sync, then commit whatever it wrote.
    fn commit(&self, message: &str) -> anyhow::Result<()> {
        self.sync()?;
        self.git(&["add", "-A"])?;
        self.git(&["commit", "-q", "--allow-empty", "-m", message])?;
        Ok(())
    }

    /// The decision's file deleted and synced: forgotten here, as a teammate's forget
    /// arriving by git is.
    fn forget(&self, id: &str) -> anyhow::Result<()> {
        std::fs::remove_file(self.folder.join(format!("decisions/{id}.json")))?;
        self.sync()?;
        Ok(())
    }

    /// The record's file deleted and synced.
    fn forget_record(&self, id: &str) -> anyhow::Result<()> {
        std::fs::remove_file(self.folder.join(format!("records/{id}.json")))?;
        self.sync()?;
        Ok(())
    }

    /// The decisions of the database, by id.
    fn decisions(&self) -> anyhow::Result<Vec<Value>> {
        let mut out = Vec::new();
        for line in export(&self.db)?.lines() {
            let v: Value = serde_json::from_str(line)?;
            if v.get("decision").is_some() {
                out.push(v["decision"].clone());
            }
        }
        Ok(out)
    }
}

/// A bare remote and two clones of it, `a` and `b`, each with review-mcp's merge driver set
/// up; `a` reviewed `lines` and pushed, `b` pulled and synced.
fn team(tag: &str, lines: &[String]) -> anyhow::Result<(TempDir, Clone, Clone)> {
    let root = TempDir::new(tag)?;
    git_ok(
        root.path(),
        &["init", "-q", "--bare", "-b", "main", "team.git"],
    )?;
    let clone = |name: &str| -> anyhow::Result<Clone> {
        git_ok(root.path(), &["clone", "-q", "team.git", name])?;
        let dir = root.join(name);
        let driver = format!("{} merge-file %O %A %B %P", binary().display());
        for (k, v) in [
            ("user.name", name),
            ("user.email", "x@example.com"),
            ("pull.rebase", "false"),
            ("merge.review.name", "review-mcp"),
            ("merge.review.driver", driver.as_str()),
        ] {
            git_ok(&dir, &["config", k, v])?;
        }
        let folder = dir.join("review");
        Ok(Clone {
            dir,
            db: root.join(&format!("{name}.db")),
            folder,
        })
    };
    let (a, b) = (clone("a")?, clone("b")?);
    a.import(lines)?;
    a.commit("review")?;
    a.git(&["push", "-q", "origin", "main"])?;
    b.git(&["pull", "-q", "origin", "main"])?;
    b.sync()?;
    Ok((root, a, b))
}

/// `a` pushes what it committed; `b` pulls it (`how`: a merge or a rebase, and git's
/// options) onto its own commit, syncs, commits and pushes; `a` pulls and syncs. What `b`'s
/// pull said.
fn meet(a: &Clone, b: &Clone, how: &str) -> anyhow::Result<String> {
    a.git(&["push", "-q", "origin", "main"])?;
    let mut pull = vec!["pull"];
    pull.extend(how.split(' '));
    pull.extend(["origin", "main"]);
    let said = b.git(&pull)?;
    b.commit("merged")?;
    b.git(&["push", "-q", "origin", "main"])?;
    a.git(&["pull", "-q", "origin", "main"])?;
    a.sync()?;
    Ok(said)
}

/// Checks that every clone of `clones` holds decisions on `subjects` alone, and the engineer's
/// verdicts (`via` app) given at `judged` alone (each on the first of them), saying `what`
/// (and what the pull `said`) otherwise.
fn every_clone_holds(
    clones: [&Clone; 2],
    subjects: &[&str],
    judged: &[&str],
    what: &str,
    said: &str,
) -> anyhow::Result<()> {
    for c in clones {
        let (mut held, mut verdicts) = (Vec::new(), Vec::new());
        for d in c.decisions()? {
            let subject = d["subject"].as_str().unwrap_or_default().to_string();
            for item in d["basis"].as_array().into_iter().flatten() {
                if item["verdict"]["via"] == "app" {
                    let at = item["verdict"]["at"].as_str().unwrap_or_default();
                    verdicts.push((subject.clone(), at.to_string()));
                }
            }
            held.push(subject);
        }
        held.sort();
        verdicts.sort();
        let want: Vec<(String, String)> = judged
            .iter()
            .map(|at| (subjects[0].to_string(), at.to_string()))
            .collect();
        ensure!(
            held == subjects && verdicts == want,
            "{what}: {}: decisions on {held:?} with the engineer's verdicts {verdicts:?}, not \
             {subjects:?} with {want:?}\n{said}",
            c.dir.display()
        );
    }
    Ok(())
}

/// Regression (found by an adversarial pass on merge-file): a decision on "bracket" judged
/// by the engineer is forgotten in both clones, and its id is imported again in each for
/// "lever" (an export line whose subject was corrected by hand), each clone's version
/// another. git hands the driver the forgotten "bracket" as the base of "lever"'s merge (the
/// same file), and the driver took it for lever's ancestor: the engineer's verdict on
/// bracket, which both versions of lever lacked, was "kept from the base" onto lever, in
/// every clone. A base of this id under another subject (part, revision) is another item.
#[test]
fn a_forgotten_id_imported_for_another_subject_takes_no_verdict_from_its_base() -> anyhow::Result<()>
{
    let id = "dec_0000000000000001";
    for how in ["--no-edit", "--rebase"] {
        let (_root, a, b) = team(
            "sync-pairing-moved-key",
            &[decision(id, "bracket", "hold", T0, Some(&engineer(T0)))],
        )?;
        for (c, at, disposition) in [(&a, T1, "hold"), (&b, T2, "release")] {
            c.forget(id)?;
            c.import(&[decision(id, "lever", disposition, at, Some(&assistant(at)))])?;
            c.commit("lever")?;
        }
        let said = meet(&a, &b, how)?;
        let what = format!("{how}: the verdict given on the forgotten bracket moved to lever");
        every_clone_holds([&a, &b], &["lever"], &[], &what, &said)?;
        ensure!(!said.contains("from the base"), "{how}: {said}");
    }
    Ok(())
}

/// Whether the base is taken by id or by key (`import`'s key: subject, part, revision), played
/// both ways. A decision judged by the engineer is replaced in both clones under one new id
/// of its key (an `import` of the same export line), then each clone changes it: git hands
/// the driver the old id's file as the base of the new one's merge. `forgotten`: the old
/// decision was forgotten first, so the new one is a decision of its own, and the verdict
/// given on the old one must not come back on it (as it would if the base were taken by its
/// key); not forgotten: `import` carried the engineer's verdict to the new id in each clone
/// (two ids of one key), so the versions hold it and no base is needed to keep it (the base
/// being taken by id loses nothing).
#[test]
fn a_base_under_another_id_of_the_key_is_no_ancestor_and_loses_no_verdict() -> anyhow::Result<()> {
    let (old, new) = ("dec_0000000000000001", "dec_0000000000000002");
    for forgotten in [true, false] {
        let (_root, a, b) = team(
            "sync-pairing-rekeyed",
            &[decision(old, "bracket", "hold", T0, Some(&engineer(T0)))],
        )?;
        for c in [&a, &b] {
            if forgotten {
                c.forget(old)?;
            }
            c.import(&[decision(new, "bracket", "hold", T1, Some(&assistant(T1)))])?;
            c.sync()?;
        }
        for (c, at, disposition) in [(&a, T2, "release"), (&b, T3, "rework")] {
            c.import(&[decision(
                new,
                "bracket",
                disposition,
                at,
                Some(&assistant(at)),
            )])?;
            c.commit(disposition)?;
        }
        let said = meet(&a, &b, "--no-edit")?;
        let judged: &[&str] = if forgotten { &[] } else { &[T0] };
        let what = format!("forgotten first: {forgotten}");
        every_clone_holds([&a, &b], &["bracket"], judged, &what, &said)?;
    }
    Ok(())
}

/// Regression (found by an adversarial pass on merge-file): the driver took two versions of
/// an item for two READMEs of sync's own when both quoted the README's words ("This folder
/// is written by `review-mcp sync`", in a disposition or a note) and kept ours, unmerged:
/// the engineer's verdict given in the other clone was dropped from the merge, and the
/// pull's sync said `conflicts: 0`. Two versions of an item are merged as items.
#[test]
fn an_item_quoting_the_readme_is_merged_as_an_item() -> anyhow::Result<()> {
    let id = "dec_0000000000000001";
    let readme = "This folder is written by `review-mcp sync`";
    let (says, other) = (format!("hold: {readme}"), format!("release: {readme}"));
    let (_root, a, b) = team(
        "sync-pairing-readme",
        &[decision(id, "bracket", &says, T0, None)],
    )?;
    a.import(&[decision(id, "bracket", &says, T1, Some(&engineer(T1)))])?;
    a.commit("judged")?;
    b.import(&[decision(id, "bracket", &other, T2, Some(&assistant(T2)))])?;
    b.commit("released")?;
    let said = meet(&a, &b, "--no-edit")?;
    every_clone_holds(
        [&a, &b],
        &["bracket"],
        &[T1],
        "the engineer's verdict",
        &said,
    )?;
    ensure!(!said.contains("README"), "{said}");
    Ok(())
}

/// Regression (found by an adversarial pass on merge-file, with git's rename threshold
/// lowered): `a` forgets the feature "bore" and records a decision, `b` edits the feature's
/// note. git paired the feature's file with the new decision's (`records/` to `decisions/`)
/// as a rename and handed the driver a record and a decision, which it left to git ("not two
/// versions of one item"): the pull stopped with the feature's text in the decision's file,
/// the decision in no file of the work tree, and sync's advice ("keep it: git add FILE")
/// committed a record under `decisions/`, which every clone's sync then refused. The
/// driver now settles it as two items of one kind: the item the path names stays, and the
/// other goes back to its own file, in its own kind's folder (made again when git removed
/// it). Played by merge (`ort` and `recursive`) and by rebase, each clone pulling.
#[test]
fn a_record_and_a_decision_git_paired_as_a_rename_each_keep_their_file() -> anyhow::Result<()> {
    let (rec, dec) = ("rec_0000000000000001", "dec_0000000000000002");
    // Which clone pulls the other's: the editor of the feature (its file is its own), or
    // the one that forgot it (the feature's file is given back).
    // git removes the records' folder with its last file, which the rename took away: a
    // rebase (`HEAD` is the side without it) and the `recursive` strategy hand the driver a
    // work tree without it.
    let hows = [
        "--no-edit -X find-renames=5%",
        "--no-edit -s recursive -X find-renames=5%",
        "--rebase -X find-renames=5%",
    ];
    for (editor_pulls, how) in [true, false].into_iter().flat_map(|e| hows.map(|h| (e, h))) {
        let (_root, a, b) = team("sync-pairing-kinds", &[feature(rec, "drilled", T0)])?;
        let (forgets, edits) = match editor_pulls {
            true => (&a, &b),
            false => (&b, &a),
        };
        forgets.forget_record(rec)?;
        forgets.import(&[decision(dec, "bracket", "hold", T1, None)])?;
        forgets.commit("forget bore, decide")?;
        edits.import(&[feature(rec, "reamed", T2)])?;
        edits.commit("note bore")?;
        let said = meet(&a, &b, how)?;
        let case = format!("{how}, the editor pulls: {editor_pulls}");
        ensure!(said.contains("as a rename"), "{case}: not paired: {said}");
        for c in [&a, &b] {
            let held = export(&c.db)?;
            ensure!(
                held.contains(dec) && held.contains("reamed"),
                "{case}: {}: the decision or the edited feature lost: {held}\n{said}",
                c.dir.display()
            );
            let decisions = std::fs::read_dir(c.folder.join("decisions"))?
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect::<Vec<_>>();
            ensure!(
                decisions == [format!("{dec}.json")],
                "{case}: {decisions:?}"
            );
        }
    }
    Ok(())
}

/// Regression (found by the convergence sweep run with `pull.twohead=recursive`, seed 30007):
/// a decision judged by the engineer is replaced by an `import` in each clone, under a new id
/// of its key in each (two teammates importing two exports). Both sides renamed its file away,
/// each to its own (git's rename/rename), and git's `recursive` strategy hands the driver the
/// three (the old id as base) at one side's new file, then writes the driver's result to
/// both new files. The driver took it for a rename of the other side's item and kept its own
/// there, "setting aside" the other's ("git deletes its file after the merge", which git
/// does not): git wrote one decision into the other's file, sync's advice (keep the file)
/// committed it, and every clone's sync then refused the folder ("holds decision …, but its
/// place names decision …"). Three different items are left to git, which then writes each
/// side's own file, as `ort` does; kept, they are two ids of one key, which sync settles,
/// the engineer's verdict kept.
#[test]
fn a_decision_both_sides_renamed_apart_is_left_to_git_with_each_file_its_own() -> anyhow::Result<()>
{
    let (old, x, y) = (
        "dec_0000000000000001",
        "dec_0000000000000002",
        "dec_0000000000000003",
    );
    for strategy in ["recursive", "ort"] {
        let (_root, a, b) = team(
            "sync-pairing-apart",
            &[decision(old, "bracket", "hold", T0, Some(&engineer(T0)))],
        )?;
        a.import(&[decision(x, "bracket", "release", T1, None)])?;
        a.commit("x")?;
        a.git(&["push", "-q", "origin", "main"])?;
        b.import(&[decision(y, "bracket", "rework", T2, None)])?;
        b.commit("y")?;
        let pull = git(
            &b.dir,
            &["pull", "--no-edit", "-s", strategy, "origin", "main"],
        )?;
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&pull.stdout),
            String::from_utf8_lossy(&pull.stderr)
        );
        ensure!(said.contains("rename/rename"), "{strategy}: {said}");
        for id in [x, y] {
            let text = std::fs::read_to_string(b.folder.join(format!("decisions/{id}.json")))?;
            ensure!(
                text.contains(&format!("\"id\": \"{id}\"")),
                "{strategy}: decisions/{id}.json holds another decision: {text}\n{said}"
            );
        }
        // Both files kept, as sync's refusal of the unmerged folder says.
        b.git(&["add", "-A"])?;
        b.git(&["commit", "-q", "--no-edit"])?;
        b.commit("synced")?;
        b.git(&["push", "-q", "origin", "main"])?;
        a.git(&["pull", "-q", "origin", "main"])?;
        a.sync()?;
        every_clone_holds([&a, &b], &["bracket"], &[T0], strategy, &said)?;
    }
    Ok(())
}

/// Regression (found by adv6 in the thirty-second session): the clone that forgot a feature
/// and added a decision (git pairs the two files as a rename) imports the feature's id again
/// in a later commit, with an older text than the other clone's edit, and pulls with
/// `--rebase`. Replaying the first commit, merge-file sets the edit aside (git is replaying);
/// the later commit brings the feature's file back. sync took the version set aside for
/// "stale" and deleted it unmerged: every clone ended with "drilled again" (T1) and the other
/// clone's later edit "reamed" (T2) was gone, though its history named the replacement. A
/// version set aside that meets its item's file is now merged into it (the later kept), and
/// the driver's message says what happens while git replays.
#[test]
fn a_rebase_whose_later_commit_brings_the_paired_feature_back_keeps_the_later_edit()
-> anyhow::Result<()> {
    let (rec, dec) = ("rec_0000000000000001", "dec_0000000000000002");
    let (_root, a, b) = team("sync-pairing-back", &[feature(rec, "drilled", T0)])?;
    a.import(&[feature(rec, "reamed", T2)])?;
    a.commit("note bore")?;
    b.forget_record(rec)?;
    b.import(&[decision(dec, "bracket", "hold", T1, None)])?;
    b.commit("forget bore, decide")?;
    b.import(&[feature(rec, "drilled again", T1)])?;
    b.commit("bore again")?;
    let said = meet(&a, &b, "--rebase -X find-renames=5%")?;
    ensure!(
        said.contains("as it replays this commit") && !said.contains("after the merge"),
        "the driver says what git does while it replays: {said}"
    );
    for c in [&a, &b] {
        let held = export(&c.db)?;
        let file = std::fs::read_to_string(c.folder.join(format!("records/{rec}.json")))?;
        ensure!(
            held.contains(dec) && held.contains("reamed") && file.contains("reamed"),
            "{}: the later edit of the feature (T2) lost: {file}\n{held}\n{said}",
            c.dir.display()
        );
    }
    Ok(())
}

/// Regression (the rule behind
/// [`a_rebase_whose_later_commit_brings_the_paired_feature_back_keeps_the_later_edit`]): a
/// version merge-file set aside that meets its item's file is merged into it as two versions
/// without a base are, the later kept and the engineer's verdicts carried, by a dry run as by
/// the sync, and the dry run changes nothing. Played with a decision the other clone judged
/// (the engineer's verdict is on the side set aside, the later version brought back holds
/// the assistant's: sync deleted the version set aside, and the verdict with it, in every
/// clone), and with a feature whose version set aside is the older (the one brought back
/// stays, nothing lost either way).
#[test]
fn a_version_set_aside_meeting_its_item_s_file_is_merged_into_it() -> anyhow::Result<()> {
    let (rec, dec) = ("rec_0000000000000001", "dec_0000000000000002");
    for judged in [true, false] {
        let (_root, a, b) = match judged {
            true => team(
                "sync-pairing-judged-back",
                &[decision(dec, "bracket", "hold", T0, None)],
            )?,
            false => team("sync-pairing-older-back", &[feature(rec, "drilled", T0)])?,
        };
        let (kind, id) = match judged {
            true => ("decisions", dec),
            false => ("records", rec),
        };
        // `a` judges the decision (or notes the feature); `b` forgets it for another item
        // (git pairs the two files as a rename), then states it again, later.
        match judged {
            true => a.import(&[decision(dec, "bracket", "hold", T2, Some(&engineer(T2)))])?,
            false => a.import(&[feature(rec, "reamed", T2)])?,
        }
        a.commit("a's edit")?;
        match judged {
            true => {
                b.forget(dec)?;
                b.import(&[feature(rec, "drilled", T1)])?;
            }
            false => {
                b.forget_record(rec)?;
                b.import(&[decision(dec, "bracket", "hold", T1, None)])?;
            }
        }
        b.commit("forget, add another")?;
        match judged {
            true => b.import(&[decision(
                dec,
                "bracket",
                "release",
                T3,
                Some(&assistant(T3)),
            )])?,
            false => b.import(&[feature(rec, "drilled again", T3)])?,
        }
        b.commit("again")?;
        a.git(&["push", "-q", "origin", "main"])?;
        let said = b.git(&[
            "pull",
            "--rebase",
            "-X",
            "find-renames=5%",
            "origin",
            "main",
        ])?;
        let kept = format!("{kind}/.{id}.json.kept");
        let before = (files(&b.folder)?, export(&b.db)?);
        ensure!(
            said.contains("as it replays this commit") && b.folder.join(&kept).is_file(),
            "{judged}: the driver set the version aside: {said}"
        );
        let dry = crate::sync_state::ok(crate::sync_state::review_mcp(
            &b.db,
            &["sync", "--dry-run", &b.folder.to_string_lossy()],
        )?)?;
        ensure!(
            (files(&b.folder)?, export(&b.db)?) == before,
            "{judged}: the dry run changed the folder or the database: {dry}"
        );
        let synced = b.sync()?;
        let (line, what) = match judged {
            true => (
                format!("merge {kept} into {kind}/{id}.json, then delete"),
                "merges",
            ),
            false => (
                format!("delete {kept} (a version merge-file set aside, stale"),
                "deletes",
            ),
        };
        ensure!(
            dry.contains(&format!("would {line}")),
            "{judged}: the dry run {what} the version set aside: {dry}"
        );
        ensure!(
            synced.contains(
                &line
                    .replace("merge ", "merged ")
                    .replace("delete", "deleted")
            ),
            "{judged}: the sync says what it did as the dry run did: {synced}"
        );
        ensure!(!b.folder.join(&kept).exists(), "{judged}: {synced}");
        b.git(&["add", "-A"])?;
        b.git(&["commit", "-q", "--allow-empty", "-m", "merged"])?;
        b.git(&["push", "-q", "origin", "main"])?;
        a.git(&["pull", "-q", "origin", "main"])?;
        a.sync()?;
        let said = format!("{said}\n{dry}\n{synced}");
        match judged {
            true => {
                every_clone_holds(
                    [&a, &b],
                    &["bracket"],
                    &[T2],
                    "the verdict set aside",
                    &said,
                )?;
                for c in [&a, &b] {
                    let d = c.decisions()?;
                    ensure!(d[0]["disposition"] == "release", "the later kept: {d:?}");
                }
            }
            false => {
                for c in [&a, &b] {
                    let held = export(&c.db)?;
                    let notes: Vec<Value> = held
                        .lines()
                        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                        .map(|v| v["record"]["note"].clone())
                        .filter(|n| !n.is_null())
                        .collect();
                    ensure!(notes == ["drilled again"], "the later kept: {held}\n{said}");
                }
            }
        }
    }
    Ok(())
}

/// Commits `text` as the version set aside of the item at `file` (`decisions/<id>.json`),
/// beside that file, without a sync: as `git add -A` takes one that `git merge --abort` left
/// (docs/command-line.md). `link`: a symbolic link to `text`'s path instead.
fn commit_set_aside(c: &Clone, file: &str, text: &str, link: bool) -> anyhow::Result<()> {
    let (dir, name) = file.split_once('/').unwrap_or(("", file));
    let kept = c.folder.join(dir).join(format!(".{name}.kept"));
    match link {
        true => std::os::unix::fs::symlink(text, &kept)?,
        false => std::fs::write(&kept, text)?,
    }
    c.git(&["add", "-A"])?;
    c.git(&["commit", "-q", "-m", "set aside"])?;
    Ok(())
}

/// Two versions set aside of one decision, one in each clone (each committed as `git add -A`
/// takes a version a `git merge --abort` left beside its file): the driver merges the two as
/// versions of one item, and the sync merges that into the decision's file, the later kept
/// and the engineer's verdict of the earlier carried. sync deleted them unread ("stale"), and
/// both versions with them, in every clone.
#[test]
fn two_versions_set_aside_of_one_decision_both_reach_its_file() -> anyhow::Result<()> {
    let dec = "dec_0000000000000001";
    let file = format!("decisions/{dec}.json");
    let (_root, a, b) = team(
        "sync-pairing-two-set-aside",
        &[decision(dec, "bracket", "hold", T0, None)],
    )?;
    let pretty = |line: String| -> anyhow::Result<String> {
        let v: Value = serde_json::from_str(&line)?;
        Ok(format!("{}\n", serde_json::to_string_pretty(&v)?))
    };
    let judged = decision(dec, "bracket", "hold", T1, Some(&engineer(T1)));
    commit_set_aside(&a, &file, &pretty(judged)?, false)?;
    let later = decision(dec, "bracket", "rework", T2, Some(&assistant(T2)));
    commit_set_aside(&b, &file, &pretty(later)?, false)?;
    let said = meet(&a, &b, "--no-edit")?;
    every_clone_holds([&a, &b], &["bracket"], &[T1], "the two set aside", &said)?;
    for c in [&a, &b] {
        let d = c.decisions()?;
        ensure!(
            d[0]["disposition"] == "rework",
            "the later kept: {d:?}\n{said}"
        );
        let left = files(&c.folder.join("decisions"))?;
        ensure!(left.len() == 1, "the versions set aside are gone: {left:?}");
    }
    Ok(())
}

/// A version set aside beside its item's file that is no version of that item is never
/// merged into it, nor deleted: another id, the same id under another key (a feature of
/// another name), a symbolic link (to a later version of the item, outside the folder: never
/// followed). sync deleted each, unread, as "stale". It now refuses the folder, naming the
/// file and what to do, and changes nothing.
#[test]
fn a_set_aside_version_that_is_another_item_or_a_link_is_refused_not_merged() -> anyhow::Result<()>
{
    let rec = "rec_0000000000000001";
    let file = format!("records/{rec}.json");
    let other = |id: &str, name: &str| {
        feature(id, "reamed", T3).replace("\"bore\"", &format!("\"{name}\""))
    };
    let cases = [
        ("another id", other("rec_0000000000000009", "bore"), false),
        ("another key", other(rec, "slot"), false),
        ("a link", "../../later.json".to_string(), true),
    ];
    for (what, text, link) in cases {
        let (_root, a, b) = team("sync-pairing-kept-other", &[feature(rec, "drilled", T0)])?;
        // The link's target: a later version of the item, outside the folder.
        std::fs::write(a.dir.join("later.json"), feature(rec, "reamed", T3))?;
        commit_set_aside(&a, &file, &text, link)?;
        a.git(&["push", "-q", "origin", "main"])?;
        b.git(&["pull", "-q", "--no-edit", "origin", "main"])?;
        let before = (files(&b.folder)?, export(&b.db)?);
        let out = crate::sync_state::review_mcp(&b.db, &["sync", &b.folder.to_string_lossy()])?;
        let err = String::from_utf8_lossy(&out.stderr);
        ensure!(
            !out.status.success()
                && err.contains(&format!("records/.{rec}.json.kept"))
                && err.contains("not merged"),
            "{what}: sync did not refuse the version set aside: {err}{}",
            String::from_utf8_lossy(&out.stdout)
        );
        ensure!(
            (files(&b.folder)?, export(&b.db)?) == before,
            "{what}: the refused sync changed something: {err}"
        );
        ensure!(!export(&b.db)?.contains("reamed"), "{what}: {err}");
    }
    Ok(())
}

/// A sync killed at each of its steps in turn (the test hook `REVIEW_MCP_SYNC_FAIL_AT`) while
/// it merges a version set aside into its item's file: the next sync ends where one not
/// killed does, the later version with the engineer's verdict of the one set aside, in the
/// file and in the database, and no version set aside left.
#[test]
fn a_sync_killed_while_it_merges_a_version_set_aside_loses_neither() -> anyhow::Result<()> {
    let dec = "dec_0000000000000001";
    let root = TempDir::new("sync-pairing-kill-set-aside")?;
    for n in 1.. {
        let (db, folder, kept, killed) = killed_merging(&root, dec, n)?;
        let said = sync(&db, &folder)?;
        let file: Value = serde_json::from_slice(&std::fs::read(
            folder.join(format!("decisions/{dec}.json")),
        )?)?;
        let held: Value = serde_json::from_str(export(&db)?.lines().next().unwrap_or("{}"))?;
        for (what, d) in [("file", &file["decision"]), ("database", &held["decision"])] {
            ensure!(
                d["disposition"] == "release" && d["basis"][0]["verdict"]["via"] == "app",
                "killed at step {n}: the {what} holds {d}\n{said}"
            );
        }
        ensure!(!kept.exists(), "killed at step {n}: {said}");
        if killed.status.success() {
            ensure!(n > 4, "the sync took {n} steps");
            break;
        }
    }
    Ok(())
}

/// Regression (found by the adv8 review): a sync killed after its commit, once the database
/// held the merge of a version set aside with its item's file, left that version beside the
/// file (merged and deleted only after the commit). Were the file then to go (deleted by
/// hand, or by a pull bringing a teammate's forget), the version set aside stood for it, and
/// the next sync took that older version over the database's later one ("changed in the
/// folder only, to a version older than the database's: taken"), in the database and in the
/// file. The merge is now written to the file, and the version set aside deleted, before the
/// commit: killed anywhere, no version set aside outlives a database that holds its merge,
/// and a file deleted after that is a forget of the merge (saved beside the database).
#[test]
fn a_version_set_aside_never_outlives_the_commit_of_its_merge() -> anyhow::Result<()> {
    let dec = "dec_0000000000000001";
    let root = TempDir::new("sync-pairing-kill-gone")?;
    let mut committed = 0;
    for n in 1.. {
        let (db, folder, kept, killed) = killed_merging(&root, dec, n)?;
        // Whether the killed sync committed: the database holds the engineer's verdict.
        if export(&db)?.contains(r#""via":"app""#) {
            committed += 1;
            ensure!(
                !kept.exists(),
                "killed at step {n}: the database holds the merge, the version set aside is \
                 still there: {}",
                String::from_utf8_lossy(&killed.stderr)
            );
            std::fs::remove_file(folder.join(format!("decisions/{dec}.json")))?;
            let said = sync(&db, &folder)?;
            let held = export(&db)?;
            ensure!(
                !held.contains(r#""decision""#) && said.contains("deleted: 1"),
                "killed at step {n}, then the file deleted: the forget of the merge, not the \
                 version set aside taken over it: {held}\n{said}"
            );
        }
        if killed.status.success() {
            break;
        }
    }
    ensure!(
        committed > 1,
        "the sync was killed after its commit {committed} times"
    );
    Ok(())
}

/// Regression (found by the adv8 review): a version set aside that holds nothing its item's
/// file lacks is stale, whatever the file's layout. The file one line (an export line, as a
/// hand or another tool writes it) and the version set aside the same bytes, sync said it
/// "merged" the version set aside into the file ("merged as two versions of one item"),
/// rewriting the file in its own layout, as if the version set aside had brought something.
#[test]
fn a_version_set_aside_adding_nothing_is_stale_whatever_the_file_s_layout() -> anyhow::Result<()> {
    let dec = "dec_0000000000000001";
    let root = TempDir::new("sync-pairing-stale-layout")?;
    let (db, folder) = (root.join("a.db"), root.join("review"));
    let line = decision(dec, "bracket", "release", T3, Some(&assistant(T3)));
    import(root.path(), &db, std::slice::from_ref(&line))?;
    sync(&db, &folder)?;
    let own = folder.join(format!("decisions/{dec}.json"));
    std::fs::write(&own, format!("{line}\n"))?;
    let kept = folder.join(format!("decisions/.{dec}.json.kept"));
    std::fs::write(&kept, format!("{line}\n"))?;
    let held = export(&db)?;
    let said = sync(&db, &folder)?;
    ensure!(
        said.contains(&format!(
            "deleted decisions/.{dec}.json.kept (a version merge-file set aside, stale"
        )) && !said.contains("merged"),
        "the version set aside added nothing: {said}"
    );
    ensure!(!kept.exists() && export(&db)? == held, "{said}");
    Ok(())
}

/// In a directory of its own under `root`: a database holding the later version of decision
/// `dec` (the assistant's verdict), synced, and an earlier version judged by the engineer set
/// aside beside its file; then a sync killed at its step `n` (the test hook). The database,
/// the folder, the version set aside and what the killed sync did.
fn killed_merging(
    root: &TempDir,
    dec: &str,
    n: usize,
) -> anyhow::Result<(PathBuf, PathBuf, PathBuf, std::process::Output)> {
    let dir = root.join(&n.to_string());
    std::fs::create_dir(&dir)?;
    let (db, folder) = (dir.join("a.db"), dir.join("review"));
    let later = decision(dec, "bracket", "release", T3, Some(&assistant(T3)));
    import(&dir, &db, &[later])?;
    sync(&db, &folder)?;
    let kept = folder.join(format!("decisions/.{dec}.json.kept"));
    let judged: Value =
        serde_json::from_str(&decision(dec, "bracket", "hold", T2, Some(&engineer(T2))))?;
    std::fs::write(&kept, serde_json::to_string_pretty(&judged)?)?;
    let killed = std::process::Command::new(binary())
        .arg("--db")
        .arg(&db)
        .args(["sync", &folder.to_string_lossy()])
        .env("MCP_LOG_LEVEL", "warn")
        .env("REVIEW_MCP_SYNC_FAIL_AT", n.to_string())
        .output()?;
    Ok((db, folder, kept, killed))
}
