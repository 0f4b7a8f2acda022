//! A team sharing review memory through git: a bare repository and two clones on this
//! machine, each with its own database and a running server, playing edits, a forget, a
//! decision both edit and an engineer's verdict, through `git pull` (with the merge driver),
//! `review-mcp sync`, `git commit` and `git push`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::{Context, bail, ensure};
use serde_json::{Value, json};

use crate::support::client::{Server, binary};
use crate::support::git::{git, git_ok};
use crate::support::{TempDir, artifact};
use review_mcp::review::{Judgement, Verdict, Via};
use review_mcp::store::{DecisionRef, Shown, Store, VerdictsOutcome};

/// The folder inside each clone that holds the review memory.
const FOLDER: &str = "review";

fn run(cmd: &mut Command) -> anyhow::Result<Output> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {cmd:?}"))?;
    Ok(out)
}

/// One engineer: a clone, a database, a server on it, and everything sync and git said.
struct Engineer {
    clone: PathBuf,
    /// The synced folder's path in the clone.
    folder: String,
    db: PathBuf,
    server: Server,
    said: String,
}

impl Engineer {
    fn start(root: &Path, bare: &Path, name: &str) -> anyhow::Result<Engineer> {
        let clone = root.join(name);
        git_ok(root, &["clone", "-q", &bare.to_string_lossy(), name])?;
        for (k, v) in [
            ("user.name", name),
            ("user.email", &format!("{name}@example.com")),
            ("pull.rebase", "false"),
            ("merge.review.name", "review-mcp"),
            (
                "merge.review.driver",
                &format!("{} merge-file %O %A %B %P", binary().display()),
            ),
        ] {
            git_ok(&clone, &["config", k, v])?;
        }
        let db = root.join(format!("{name}.db"));
        let server = Server::start_as(&db, name)?;
        Ok(Engineer {
            clone,
            folder: FOLDER.to_string(),
            db,
            server,
            said: String::new(),
        })
    }

    fn sync(&mut self) -> anyhow::Result<String> {
        let out = run(Command::new(binary())
            .arg("--db")
            .arg(&self.db)
            .arg("sync")
            .arg(self.clone.join(&self.folder))
            .env("MCP_LOG_LEVEL", "warn"))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        ensure!(
            out.status.success(),
            "sync failed: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.said.push_str(&text);
        Ok(text)
    }

    /// `sync --dry-run`: what it says it would do.
    fn sync_dry(&mut self) -> anyhow::Result<String> {
        let out = run(Command::new(binary())
            .arg("--db")
            .arg(&self.db)
            .arg("sync")
            .arg("--dry-run")
            .arg(self.clone.join(&self.folder))
            .env("MCP_LOG_LEVEL", "warn"))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        ensure!(
            out.status.success(),
            "sync --dry-run failed: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(text)
    }

    fn pull(&mut self) -> anyhow::Result<()> {
        let said = git_ok(&self.clone, &["pull", "-q", "--no-edit", "origin", "main"])?;
        self.said.push_str(&said);
        Ok(())
    }

    /// Sync, commit and push; when the push is refused (a teammate pushed first), pull
    /// (the merge driver settles the item files), sync again, commit and push.
    fn publish(&mut self, message: &str) -> anyhow::Result<()> {
        self.sync()?;
        self.commit(message)?;
        let push = git(&self.clone, &["push", "-q", "origin", "HEAD:main"])?;
        if push.status.success() {
            return Ok(());
        }
        self.pull()?;
        self.sync()?;
        self.commit(message)?;
        git_ok(&self.clone, &["push", "-q", "origin", "HEAD:main"])?;
        Ok(())
    }

    fn commit(&mut self, message: &str) -> anyhow::Result<()> {
        git_ok(&self.clone, &["add", "-A"])?;
        let staged = git(&self.clone, &["diff", "--cached", "--quiet"])?;
        if !staged.status.success() {
            git_ok(&self.clone, &["commit", "-q", "-m", message])?;
        }
        Ok(())
    }

    fn remember(&mut self, name: &str, note: &str) -> anyhow::Result<Value> {
        self.remember_at(&art(), name, note)
    }

    /// [`Engineer::remember`] at `artifact`.
    fn remember_at(&mut self, artifact: &Value, name: &str, note: &str) -> anyhow::Result<Value> {
        let v = self
            .server
            .call(
                "remember",
                json!({"artifact": artifact, "name": name, "note": note, "entity_ids": []}),
            )?
            .ok()?;
        Ok(v["record"].clone())
    }

    fn features(&mut self) -> anyhow::Result<Vec<(String, String)>> {
        let v = self
            .server
            .call("recall", json!({"artifact": art(), "limit": 50}))?
            .ok()?;
        let mut out: Vec<(String, String)> = v["records"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                (
                    r["name"].as_str().unwrap_or_default().to_string(),
                    r["note"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        out.sort();
        Ok(out)
    }

    fn decide(&mut self, disposition: &str, flatness: Option<&str>) -> anyhow::Result<Value> {
        let mut flat = json!({"requirement": "Flatness 0.05", "source": "drawing",
                              "state": "satisfied", "faces": ["face:2"]});
        if let Some(j) = flatness {
            flat["verdict"] = json!({"judgement": j});
        }
        let v = self
            .server
            .call(
                "remember_decision",
                json!({"artifact": art(), "subject": "bracket", "disposition": disposition,
                "basis": [
                    {"requirement": "Bore 10 H7", "source": "drawing",
                     "state": "satisfied", "faces": ["face:1"]},
                    flat
                ]}),
            )?
            .ok()?;
        Ok(v["decision"].clone())
    }

    fn export(&self) -> anyhow::Result<String> {
        let out = run(Command::new(binary())
            .arg("--db")
            .arg(&self.db)
            .arg("export")
            .env("MCP_LOG_LEVEL", "warn"))?;
        ensure!(out.status.success(), "export failed");
        Ok(String::from_utf8(out.stdout)?)
    }

    /// `review-mcp backup` of the database beside it (`NAME.backup.db`): its path.
    fn backup(&self) -> anyhow::Result<PathBuf> {
        let backup = self.db.with_extension("backup.db");
        let out = run(Command::new(binary())
            .arg("--db")
            .arg(&self.db)
            .arg("backup")
            .arg(&backup))?;
        ensure!(out.status.success(), "backup: {out:?}");
        Ok(backup)
    }

    /// `review-mcp import` of `lines`, written to `file` first: what it said.
    fn import(&self, file: &Path, lines: &str) -> anyhow::Result<Output> {
        std::fs::write(file, lines)?;
        run(Command::new(binary())
            .arg("--db")
            .arg(&self.db)
            .arg("import")
            .arg(file)
            .env("MCP_LOG_LEVEL", "warn"))
    }

    /// [`Engineer::import`], which is to succeed: `what` names it, with what import said,
    /// when it does not.
    fn import_ok(&self, file: &Path, lines: &str, what: &str) -> anyhow::Result<()> {
        let out = self.import(file, lines)?;
        ensure!(
            out.status.success(),
            "{what}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(())
    }
}

/// A bare repository `team.git` in `root`, and alice's clone of it on `main` with the merge
/// driver's attribute written (not yet committed).
fn team_repository(root: &Path) -> anyhow::Result<(PathBuf, Engineer)> {
    let bare = root.join("team.git");
    git_ok(root, &["init", "-q", "--bare", "-b", "main", "team.git"])?;
    let a = Engineer::start(root, &bare, "alice")?;
    std::fs::write(
        a.clone.join(".gitattributes"),
        format!("{FOLDER}/** merge=review\n"),
    )?;
    git_ok(&a.clone, &["checkout", "-q", "-b", "main"])?;
    Ok((bare, a))
}

fn art() -> Value {
    artifact("bracket rev A", "/work/bracket.step")
}

/// The engineer rejects the flatness item (basis item 1) of decision `id` in `db` through the
/// review card's path (`Store::record_verdicts`, beside a running server): the verdict's `at`.
fn reject_flatness(db: &Path, id: &str) -> anyhow::Result<String> {
    let mut store = Store::open(db)?;
    let at = review_mcp::time::now();
    let verdict = Verdict {
        meaning: None,
        author: None,
        at: at.clone(),
        judgement: Judgement::Rejected,
        reason: Some("measured 0.08".into()),
        via: Via::App,
    };
    let by_id = DecisionRef::Id(id);
    let shown = store
        .find_decision(&by_id)?
        .and_then(|d| d.basis.get(1).map(|b| b.digest()))
        .unwrap_or_default();
    let outcome = store.record_verdicts(&by_id, Shown::Item(&shown), &[(1, verdict)])?;
    ensure!(
        matches!(outcome, VerdictsOutcome::Recorded(_)),
        "{outcome:?}"
    );
    Ok(at.to_string())
}

#[test]
fn sync_team_of_two_through_git_converges_and_keeps_the_engineers_verdict() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team")?;
    // The first clone sets the repository up: the merge driver's attribute, a first commit.
    let (bare, mut a) = team_repository(root.path())?;
    a.remember("bore", "ream to size")?;
    a.remember("slot", "to be dropped")?;
    let decision = a.decide("hold", None)?;
    let decision_id = decision["id"].as_str().unwrap_or_default().to_string();
    a.publish("alice: first review")?;
    let mut b = Engineer::start(root.path(), &bare, "bob")?;
    b.sync()?;
    assert_eq!(
        b.features()?,
        [
            ("bore".to_string(), "ream to size".to_string()),
            ("slot".to_string(), "to be dropped".to_string())
        ],
        "bob's running server sees what his sync imported"
    );

    // Alice: the engineer rejects the flatness item through her own channel (the review
    // card's path, `Store::record_verdicts`, while her server runs), and she adds a feature.
    // She commits but has not pushed when Bob pushes.
    reject_flatness(&a.db, &decision_id)?;
    a.remember("chamfer", "0.5 x 45")?;
    a.sync()?;
    a.commit("alice: flatness rejected, chamfer")?;
    std::thread::sleep(std::time::Duration::from_millis(5));

    // Bob, later: edits bore, forgets slot, adds thread, and his assistant releases the
    // decision, accepting flatness in its own words.
    b.remember("bore", "ream to size, then hone")?;
    b.server
        .call("forget", json!({"artifact": art(), "name": "slot"}))?
        .ok()?;
    b.remember("thread", "M6 through")?;
    b.decide("release", Some("accepted"))?;
    b.publish("bob: release")?;
    // Alice's push is refused; her pull meets Bob's version of the decision file.
    a.publish("alice: flatness rejected, chamfer")?;
    b.pull()?;
    b.sync()?;

    // Second round: both edit bore without syncing in between; Alice publishes first, Bob's
    // sync then meets her version in the folder and his own in the database.
    a.remember("bore", "alice: ream 10 H7")?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.remember("bore", "bob: ream 10 H7 and deburr")?;
    a.publish("alice: bore")?;
    b.pull()?;
    b.publish("bob: bore")?;
    settle(&mut [&mut a, &mut b])?;
    // Settled: a sync after a pull changes nothing on either side.
    for e in [&mut a, &mut b] {
        e.pull()?;
        let settled = e.sync()?;
        ensure!(
            settled.contains("written to the folder: 0")
                && settled.contains("imported into the database: 0")
                && settled.contains("conflicts: 0"),
            "a settled sync changes nothing: {settled}"
        );
    }

    let (export_a, export_b) = (a.export()?, b.export()?);
    assert_eq!(export_a, export_b, "both databases export byte-identical");
    // Who wrote what travelled with it: each server writes as its engineer.
    for name in ["alice", "bob"] {
        assert!(
            export_a.contains(&format!("\"author\":\"{name}\"")),
            "{name} is named as an author: {export_a}"
        );
    }
    let want = vec![
        ("bore".to_string(), "bob: ream 10 H7 and deburr".to_string()),
        ("chamfer".to_string(), "0.5 x 45".to_string()),
        ("thread".to_string(), "M6 through".to_string()),
    ];
    assert_eq!(
        a.features()?,
        want,
        "nothing acknowledged is missing; slot is gone"
    );
    assert_eq!(b.features()?, want);
    for e in [&mut a, &mut b] {
        let v = e
            .server
            .call(
                "recall_decisions",
                json!({"artifact": art(), "detail": "full"}),
            )?
            .ok()?;
        let d = &v["decisions"][0];
        assert_eq!(d["id"], json!(decision_id));
        assert_eq!(d["disposition"], "release", "the later edit won");
        assert_eq!(
            d["basis"][1]["verdict"]["via"], "app",
            "the engineer's verdict survived the assistant's later edit: {d}"
        );
        assert_eq!(d["basis"][1]["verdict"]["judgement"], "rejected");
    }
    // Every conflict was reported: the decision both changed (by the merge driver, through
    // git), bore changed on both sides (by Bob's sync).
    let said = format!("{}{}", a.said, b.said);
    if !said.contains(&format!("decision {decision_id} changed on both sides")) {
        bail!("the decision conflict was not reported: {said}");
    }
    // The driver names the file by its path in the work tree (git's %P), not git's temporary.
    ensure!(
        a.said.contains(&format!(
            "review-mcp merge-file: conflict: {FOLDER}/decisions/{decision_id}.json: decision"
        )),
        "the merge driver did not settle the decision file in alice's pull: {}",
        a.said
    );
    ensure!(
        said.contains("engineer's verdict on \"Flatness 0.05\" kept"),
        "the kept verdict was not named: {said}"
    );
    ensure!(
        b.said.contains("conflict: record ") && b.said.contains("changed on both sides"),
        "bob's sync did not report the bore conflict: {}",
        b.said
    );
    for e in [a, b] {
        let status = e.server.close()?;
        ensure!(status.success(), "server exited with {status}");
    }
    Ok(())
}

/// Regression: two clones that each ran a first sync before either pushed each committed a
/// folder id (`.review-mcp-folder`). git handed that file to the merge driver (it is under
/// `review/**`), which refused it as "not JSON", naming git's temporary file: the pull
/// stopped on a conflict the docs settle by keeping either line. The driver keeps ours (the
/// other clone's database then syncs the folder as at a first sync), and the team converges
/// with nothing lost. Two README texts of sync's own (two versions of review-mcp) are
/// settled the same way: the next sync writes its own.
#[test]
fn sync_team_two_first_syncs_merge_their_folder_ids_without_a_conflict() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-ids")?;
    let (bare, mut a) = team_repository(root.path())?;
    a.commit("attributes")?;
    git_ok(&a.clone, &["push", "-q", "origin", "HEAD:main"])?;
    let mut b = Engineer::start(root.path(), &bare, "bob")?;
    a.remember("bore", "ream to size")?;
    b.remember("slot", "mill 6 wide")?;
    // Both first syncs, before either pushed: two ids for one folder.
    a.sync()?;
    a.commit("alice: first sync")?;
    b.sync()?;
    b.commit("bob: first sync")?;
    // An older version's README on Bob's side: sync's own text, not the current one.
    let readme = b.clone.join(FOLDER).join("README.md");
    let older = std::fs::read_to_string(&readme)?.replace("Do not edit it by hand", "Never edit");
    std::fs::write(&readme, older)?;
    b.commit("bob: an older README")?;
    git_ok(&a.clone, &["push", "-q", "origin", "HEAD:main"])?;
    b.pull()?;
    ensure!(
        b.said.contains("review-mcp merge-file: ") && b.said.contains(".review-mcp-folder"),
        "the driver says what it kept: {}",
        b.said
    );
    b.publish("bob: merged")?;
    a.pull()?;
    a.publish("alice: synced")?;
    b.pull()?;
    b.sync()?;
    let want = vec![
        ("bore".to_string(), "ream to size".to_string()),
        ("slot".to_string(), "mill 6 wide".to_string()),
    ];
    assert_eq!(a.features()?, want);
    assert_eq!(b.features()?, want);
    assert_eq!(a.export()?, b.export()?);
    for e in [a, b] {
        let status = e.server.close()?;
        ensure!(status.success(), "server exited with {status}");
    }
    Ok(())
}

/// A teammate who pulled a decision replaces its disposition the way the tools teach: recall
/// it and send its basis back. An item holding an engineer's verdict given in the terminal as
/// an approval carries `meaning` in the recalled verdict; sending it back as it came must
/// keep that verdict (and its meaning), not be refused by the input schema.
#[test]
fn sync_team_a_recalled_basis_with_an_approval_can_be_sent_back() -> anyhow::Result<()> {
    use crate::support::inproc::{Client, Era, REV_A, art_uri};
    let dir = TempDir::new("sync-team-meaning")?;
    let db = dir.path().join("brook.db");
    let artifact = art_uri(REV_A, "/work/bracket.step");
    for era in [Era::V2025_11_25, Era::V2026_07_28] {
        let mut c = Client::new(Store::open(&db)?, era);
        let subject = format!("release {era:?}");
        let made = c.ok(
            "remember_decision",
            json!({"artifact": artifact, "subject": subject, "disposition": "hold",
                   "basis": [{"requirement": "Material 6061-T6", "source": "supplier-cert",
                              "state": "satisfied"}]}),
        );
        let id = made["decision"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        // Ada's approval, given in her terminal (the terminal's path into the store).
        let mut store = Store::open(&db)?;
        let at = DecisionRef::Id(&id);
        let shown = store
            .find_decision(&at)?
            .and_then(|d| d.basis.first().map(|b| b.digest()))
            .unwrap_or_default();
        let verdict = Verdict {
            meaning: Some(review_mcp::review::Meaning::Approval),
            author: Some("Ada".into()),
            at: review_mcp::time::now(),
            judgement: Judgement::Accepted,
            reason: Some("cert on file".into()),
            via: Via::Terminal,
        };
        let outcome = store.record_verdicts(&at, Shown::Item(&shown), &[(0, verdict)])?;
        ensure!(
            matches!(outcome, VerdictsOutcome::Recorded(_)),
            "{outcome:?}"
        );
        drop(store);

        let recalled = c.ok(
            "recall_decisions",
            json!({"artifact": artifact, "subject": subject}),
        );
        let basis = recalled["decisions"][0]["basis"].clone();
        ensure!(
            basis[0]["verdict"]["meaning"] == "approval",
            "the recalled verdict carries its meaning: {recalled}"
        );
        let replaced = c.ok(
            "remember_decision",
            json!({"artifact": artifact, "subject": subject, "disposition": "release",
                   "basis": basis}),
        );
        let v = &replaced["decision"]["basis"][0]["verdict"];
        ensure!(
            v["via"] == "terminal" && v["meaning"] == "approval" && v["author"] == "Ada",
            "{era:?}: the engineer's approval stays as given: {replaced}"
        );
    }
    Ok(())
}

/// Alice decides "hold" and Bob takes it; `setup` then changes Bob's clone (its merge driver),
/// Bob decides "release" (synced, committed) while Alice publishes "hold for the supplier",
/// and Bob's `git pull` stops on the decision, which both changed. Bob, mid-merge.
fn bob_pulls_a_decision_both_changed(
    root: &Path,
    setup: impl FnOnce(&Engineer) -> anyhow::Result<()>,
) -> anyhow::Result<Engineer> {
    let (bare, mut a) = team_repository(root)?;
    a.decide("hold", None)?;
    a.publish("alice: hold")?;
    let mut b = Engineer::start(root, &bare, "bob")?;
    b.pull()?;
    b.sync()?;
    setup(&b)?;
    b.decide("release", None)?;
    b.sync()?;
    b.commit("bob: release")?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    a.decide("hold for the supplier", None)?;
    a.publish("alice: still hold")?;
    let pull = git(&b.clone, &["pull", "-q", "--no-edit", "origin", "main"])?;
    ensure!(
        !pull.status.success(),
        "git stops on the decision: {}{}",
        String::from_utf8_lossy(&pull.stdout),
        String::from_utf8_lossy(&pull.stderr)
    );
    Ok(b)
}

/// A clone without the merge driver configured: git stops on a decision both engineers
/// changed and writes its conflict markers into the file. Running sync then must refuse the
/// file saying what it is (git's conflict markers, the merge driver not set up here) and how
/// to settle it (set the driver up, `git checkout -m -- FILE` merges it again with it), not
/// only that it is "not JSON", with a `git checkout -- FILE` git refuses on an unmerged path.
#[test]
fn sync_team_conflict_markers_say_the_merge_driver_is_missing_and_how_to_redo_it()
-> anyhow::Result<()> {
    let root = TempDir::new("sync-team-markers")?;
    // Bob's clone has no merge driver.
    let b = bob_pulls_a_decision_both_changed(root.path(), |b| {
        git_ok(&b.clone, &["config", "--unset", "merge.review.driver"])?;
        git_ok(&b.clone, &["config", "--unset", "merge.review.name"])?;
        Ok(())
    })?;
    let status = git_ok(&b.clone, &["status", "--short"])?;
    ensure!(
        status.contains("UU "),
        "git leaves the file unmerged: {status}"
    );
    let out = run(Command::new(binary())
        .arg("--db")
        .arg(&b.db)
        .arg("sync")
        .arg(b.clone.join(FOLDER))
        .env("MCP_LOG_LEVEL", "warn"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    ensure!(
        !out.status.success(),
        "refused: {err}{}",
        String::from_utf8_lossy(&out.stdout)
    );
    ensure!(
        err.contains("conflict markers")
            && err.contains("merge.review.driver")
            && err.contains("git checkout -m -- "),
        "says what the file holds and how to merge it again: {err}"
    );
    // Regression: the driver line named `review-mcp`, which git (running it by name) does not
    // find when the binary that ran the sync is on no PATH, as this test's is: the line names
    // the binary by its path, as the terminal command does.
    let driver = format!(
        "git config merge.review.driver '{} merge-file %O %A %B %P'",
        binary().canonicalize()?.display()
    );
    ensure!(err.contains(&driver), "wanted {driver:?} in {err}");
    Ok(())
}

/// Regression (found by following the README with two clones): a driver line git cannot run
/// (`review-mcp` on no PATH git searches) leaves a decision both engineers changed unmerged,
/// holding Bob's version without conflict markers. sync took it as the folder's version and
/// said `conflicts: 0`, and the README's `git add -A` then committed Bob's version over
/// Alice's. sync now refuses a folder holding unmerged files, naming them and how to merge
/// them again, and changes nothing; once merged again with the driver, it syncs.
#[test]
fn sync_team_refuses_a_file_git_left_unmerged_and_says_how_to_merge_it() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-unmerged")?;
    let mut driver = String::new();
    // Bob's driver line names a program git cannot find.
    let mut b = bob_pulls_a_decision_both_changed(root.path(), |b| {
        driver = git_ok(&b.clone, &["config", "--get", "merge.review.driver"])?;
        git_ok(
            &b.clone,
            &[
                "config",
                "merge.review.driver",
                "review-mcp-not-installed merge-file %O %A %B %P",
            ],
        )?;
        Ok(())
    })?;
    let status = git_ok(&b.clone, &["status", "--porcelain"])?;
    let unmerged = status
        .lines()
        .find_map(|l| l.strip_prefix("UU "))
        .context(format!("git leaves the file unmerged: {status}"))?
        .to_string();
    let file = std::fs::read_to_string(b.clone.join(&unmerged))?;
    ensure!(!file.contains("<<<<<<<"), "no conflict markers: {file}");
    let before = b.export()?;
    let out = run(Command::new(binary())
        .arg("--db")
        .arg(&b.db)
        .arg("sync")
        .arg(b.clone.join(FOLDER))
        .env("MCP_LOG_LEVEL", "warn"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    let name = unmerged.rsplit('/').next().unwrap_or_default();
    ensure!(!out.status.success(), "refused: {err}");
    ensure!(
        err.contains("unmerged")
            && err.contains(name)
            && err.contains("git checkout -m -- FILE")
            && err.contains("merge.review.driver")
            && err.contains("nothing was changed"),
        "names the file and how to merge it again: {err}"
    );
    ensure!(b.export()? == before, "the database is unchanged");
    // Merged again with the driver, the file holds Alice's later decision, and sync goes on.
    git_ok(&b.clone, &["config", "merge.review.driver", driver.trim()])?;
    git_ok(&b.clone, &["checkout", "-m", "--", &unmerged])?;
    git_ok(&b.clone, &["add", "--", &unmerged])?;
    b.sync()?;
    ensure!(
        b.export()?.contains("hold for the supplier"),
        "Alice's later decision taken: {}",
        b.export()?
    );
    Ok(())
}

/// Regression: the merge driver's attribute was only the line the docs have the team write in
/// the repository's top `.gitattributes` (`review/** merge=review`). A folder renamed or
/// moved (`git mv review design/review`), or synced under another path, is no longer under
/// that pattern: git merged its files as text and an item both engineers changed ended as
/// conflict markers, with the driver configured in both clones. Sync now writes the folder's
/// own `.gitattributes` (`* merge=review`), which moves with the folder.
#[test]
fn sync_team_a_renamed_folder_keeps_its_merge_driver() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-renamed")?;
    let (bare, mut a) = team_repository(root.path())?;
    a.remember("bore", "ream to size")?;
    a.publish("alice: first review")?;
    let mut b = Engineer::start(root.path(), &bare, "bob")?;
    b.sync()?;
    // Alice moves the folder; the top .gitattributes still says `review/**`.
    std::fs::create_dir(a.clone.join("design"))?;
    git_ok(&a.clone, &["mv", FOLDER, "design/review"])?;
    a.folder = "design/review".into();
    a.publish("alice: the review memory moves to design/")?;
    b.pull()?;
    b.folder = "design/review".into();
    b.sync()?;
    // Both change bore; Alice publishes first, Bob's pull meets her file.
    a.remember("bore", "alice: ream 10 H7")?;
    a.publish("alice: bore")?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.remember("bore", "bob: ream 10 H7 and deburr")?;
    b.sync()?;
    b.commit("bob: bore")?;
    let pull = git(&b.clone, &["pull", "-q", "--no-edit", "origin", "main"])?;
    ensure!(
        pull.status.success(),
        "the merge driver settles the moved folder's file: {}{}",
        String::from_utf8_lossy(&pull.stdout),
        String::from_utf8_lossy(&pull.stderr)
    );
    let said = String::from_utf8_lossy(&pull.stderr);
    ensure!(
        said.contains("review-mcp merge-file: conflict: design/review/records/"),
        "the driver named the file it merged: {said}"
    );
    b.publish("bob: merged")?;
    a.pull()?;
    a.sync()?;
    let want = vec![("bore".to_string(), "bob: ream 10 H7 and deburr".to_string())];
    assert_eq!(a.features()?, want);
    assert_eq!(b.features()?, want);
    for e in [a, b] {
        let status = e.server.close()?;
        ensure!(status.success(), "server exited with {status}");
    }
    Ok(())
}

/// Regression: git pairs an item file deleted on one side with another item's similar file
/// added on that side as a rename (Alice forgets bore and states it again: a new id), so
/// Bob's edit of the forgotten item met Alice's new one in one file, and the merge driver,
/// handed two different items, refused them: a plain `git pull` (as the README says) stopped
/// on a conflicted file holding Bob's item under Alice's item's name. The driver now keeps
/// the item the path names and gives the other back its own file; the next sync takes both:
/// the edit beats the forget, and of bore's two ids the later version keeps it. Played four ways: Bob (the edit) or Alice (the restatement)
/// pulling the other's commit, by merge and by rebase.
fn restated_and_edited(editor_pulls: bool, rebase: bool) -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-restated")?;
    let (bare, mut a) = team_repository(root.path())?;
    a.remember("bore", "ream to size")?;
    a.publish("alice: first review")?;
    let mut b = Engineer::start(root.path(), &bare, "bob")?;
    b.pull()?;
    b.sync()?;
    for e in [&a, &b] {
        let how = if rebase { "true" } else { "false" };
        git_ok(&e.clone, &["config", "pull.rebase", how])?;
    }
    let restate = |a: &mut Engineer| -> anyhow::Result<()> {
        a.server
            .call("forget", json!({"artifact": art(), "name": "bore"}))?
            .ok()?;
        a.remember("bore", "alice: ream to size, stated again")?;
        a.sync()?;
        a.commit("alice: bore stated again")
    };
    let edit = |b: &mut Engineer| -> anyhow::Result<()> {
        b.remember("bore", "bob: ream to size and deburr")?;
        b.sync()?;
        b.commit("bob: bore")
    };
    let (first, second) = match editor_pulls {
        true => {
            restate(&mut a)?;
            git_ok(&a.clone, &["push", "-q", "origin", "HEAD:main"])?;
            std::thread::sleep(std::time::Duration::from_millis(5));
            edit(&mut b)?;
            (a, b)
        }
        false => {
            edit(&mut b)?;
            git_ok(&b.clone, &["push", "-q", "origin", "HEAD:main"])?;
            std::thread::sleep(std::time::Duration::from_millis(5));
            restate(&mut a)?;
            (b, a)
        }
    };
    let (mut first, mut second) = (first, second);
    // The README's workflow, word for word: `git pull`, sync, `git add -A`, commit, push.
    let pull = git(&second.clone, &["pull", "--no-edit", "origin", "main"])?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&pull.stdout),
        String::from_utf8_lossy(&pull.stderr)
    );
    ensure!(pull.status.success(), "a plain git pull settles it: {said}");
    ensure!(
        said.contains("review-mcp merge-file: conflict: review/records/"),
        "the driver says what it did: {said}"
    );
    // The file git deletes after the driver (the pulling side's own) is set aside instead, and
    // so is every version given back during a rebase, where a later commit may add its file.
    let set_aside = editor_pulls || rebase;
    let (how, untracked) = match set_aside {
        true => (
            "set aside as review/records/.rec_",
            "?? review/records/.rec_",
        ),
        false => (
            "written back to its own file review/records/rec_",
            "?? review/records/rec_",
        ),
    };
    ensure!(said.contains(how), "wanted {how:?} in {said}");
    let status = git_ok(&second.clone, &["status", "--porcelain"])?;
    ensure!(status.contains(untracked), "git status shows it: {status}");
    let dry = run(Command::new(binary())
        .arg("--db")
        .arg(&second.db)
        .args(["sync", "--dry-run"])
        .arg(second.clone.join(FOLDER))
        .env("MCP_LOG_LEVEL", "warn"))?;
    let dry = String::from_utf8_lossy(&dry.stdout);
    // A version set aside is put in place, but for the edit's (of the earlier time) when the
    // restatement is later: the later of bore's two ids keeps it, so that file is deleted at
    // once, and nothing restored is left to commit. The dry run says the same.
    ensure!(
        dry.contains("would restore records/rec_") == (set_aside && editor_pulls)
            && dry.contains("would delete records/.rec_") == (set_aside && !editor_pulls)
            && !dry.contains("would be deleted from the database:"),
        "a dry run reads a version set aside as the item's file: {dry}"
    );
    let synced = second.sync()?;
    ensure!(
        synced.contains("restored records/rec_") == (set_aside && editor_pulls)
            && (!set_aside
                || editor_pulls
                || synced.contains("deleted from the folder: records/rec_")),
        "sync puts a version set aside in place: {synced}"
    );
    second.commit("merged")?;
    git_ok(&second.clone, &["push", "-q", "origin", "HEAD:main"])?;
    let status = git_ok(&second.clone, &["status", "--porcelain"])?;
    ensure!(status.is_empty(), "the folder is all committed: {status}");
    first.pull()?;
    first.sync()?;
    let status = git_ok(&first.clone, &["status", "--porcelain"])?;
    ensure!(
        status.is_empty(),
        "nothing for the first to commit: {status}"
    );
    let (fa, fb) = (first.features()?, second.features()?);
    assert_eq!(fa, fb, "both clones hold the same review");
    // The edit beats the forget, so bore has two ids: the later version keeps it.
    let later = match editor_pulls {
        true => "bob: ream to size and deburr",
        false => "alice: ream to size, stated again",
    };
    assert_eq!(fa, [("bore".to_string(), later.to_string())]);
    let tracked = git_ok(&first.clone, &["ls-files", "review/records"])?;
    ensure!(
        tracked.lines().count() == 1,
        "one file committed: {tracked}"
    );
    for e in [first, second] {
        let status = e.server.close()?;
        ensure!(status.success(), "server exited with {status}");
    }
    Ok(())
}

#[test]
fn sync_team_an_edit_pulled_onto_a_restatement_goes_through_a_plain_pull() -> anyhow::Result<()> {
    restated_and_edited(false, false)
}

#[test]
fn sync_team_a_restatement_pulled_onto_an_edit_goes_through_a_plain_pull() -> anyhow::Result<()> {
    restated_and_edited(true, false)
}

#[test]
fn sync_team_a_restatement_and_an_edit_rebased_go_through_a_plain_pull() -> anyhow::Result<()> {
    restated_and_edited(true, true)?;
    restated_and_edited(false, true)
}

/// Regression (seed 9535 of the converge sweep, `converge::a_file_given_back_during_a_rebase_
/// does_not_stop_a_later_pick`): Alice forgets bore and states it again (a new id, a file
/// like the old one's), while Bob edits bore twice, a commit each, then adds slot. Bob's `git
/// pull --rebase` pairs the forgotten file with Alice's new one as a rename at the first pick,
/// and the merge driver gave bore back its own file, untracked; the second pick, Bob's next
/// edit of that file against its deletion (modify/delete: his first edit made the file too
/// unlike Alice's to pair again), stopped on it: "untracked working tree files would be
/// overwritten by merge", the user left mid-rebase with no conflict to settle. The driver now
/// sets the version aside for sync while git replays commits, the pick stops on the
/// modify/delete conflict as any would (keep the file, `git rebase --continue`), and the
/// next sync drops the version set aside for the later one the rebase put back. Played in the
/// clone, and in a linked worktree (`git worktree add`: its `.git` is a file, the rebase's
/// state in the main clone's git directory), where git is asked where its directory is.
///
/// `paired_twice`: Bob's first edit keeps the file like Alice's, so git pairs the two at both
/// picks and hands the driver each of Bob's versions in turn. The first was given back
/// untracked, the second then set aside beside it, and the next sync dropped the later one,
/// the set-aside version, for stale: Bob's latest edit was lost. Now the second replaces the
/// first where it was set aside, and the rebase runs to its end without stopping.
fn a_rebase_of_several_commits_over_a_restatement(
    worktree: bool,
    paired_twice: bool,
) -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-rebase-several")?;
    let (bare, mut a) = team_repository(root.path())?;
    a.remember("bore", "ream to size")?;
    a.publish("alice: first review")?;
    let mut b = Engineer::start(root.path(), &bare, "bob")?;
    if worktree {
        // Bob reviews in a worktree of his clone, the only checkout his database syncs.
        let work = root.path().join("bob-work");
        let work_s = work.to_string_lossy().into_owned();
        git_ok(
            &b.clone,
            &["worktree", "add", "-q", "-b", "work", &work_s, "main"],
        )?;
        b.clone = work;
        ensure!(
            b.clone.join(".git").is_file(),
            "a linked worktree's .git is a file"
        );
    }
    b.pull()?;
    b.sync()?;
    a.server
        .call("forget", json!({"artifact": art(), "name": "bore"}))?
        .ok()?;
    a.remember("bore", "alice: ream to size, stated again")?;
    a.publish("alice: bore stated again")?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    // Bob's first edit names the bore's forty faces: his file no longer looks like Alice's.
    let many = if paired_twice { 0 } else { 40 };
    let faces: Vec<String> = (1..=many).map(|i| format!("face:{i}")).collect();
    let edit = |b: &mut Engineer, note: &str| -> anyhow::Result<String> {
        let v = b
            .server
            .call(
                "remember",
                json!({"artifact": art(), "name": "bore", "note": note, "entity_ids": faces}),
            )?
            .ok()?;
        Ok(v["record"]["id"].as_str().unwrap_or_default().to_string())
    };
    let bore = edit(&mut b, "bob: ream to size")?;
    b.sync()?;
    b.commit("bob: bore")?;
    ensure!(edit(&mut b, "bob: ream to size and deburr")? == bore);
    b.sync()?;
    b.commit("bob: deburr")?;
    b.remember("slot", "bob: mill 6 wide")?;
    b.sync()?;
    b.commit("bob: slot")?;
    let file = format!("review/records/{bore}.json");
    let pull = git(&b.clone, &["pull", "--rebase", "origin", "main"])?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&pull.stdout),
        String::from_utf8_lossy(&pull.stderr)
    );
    let kept = format!("review/records/.{bore}.json.kept");
    ensure!(
        !said.contains("untracked working tree files"),
        "nothing untracked stands in a later pick's way: {said}"
    );
    ensure!(
        said.contains(&format!("{bore} set aside as {kept}")),
        "the driver sets bore's version aside and says so: {said}"
    );
    if paired_twice {
        ensure!(pull.status.success(), "the rebase runs to its end: {said}");
    } else {
        // The second pick stops on its own conflict, which git names and the docs settle.
        let status = git_ok(&b.clone, &["status", "--porcelain"])?;
        ensure!(
            !pull.status.success() && status.contains(&format!("DU {file}")),
            "the second pick stops on modify/delete: {status}\n{said}"
        );
        git_ok(&b.clone, &["add", "--", &file])?;
        let go_on = git(
            &b.clone,
            &["-c", "core.editor=true", "rebase", "--continue"],
        )?;
        ensure!(
            go_on.status.success(),
            "the rebase goes on to its end: {}",
            String::from_utf8_lossy(&go_on.stderr)
        );
    }
    let log = git_ok(&b.clone, &["log", "--format=%s", "-4"])?;
    ensure!(
        log.lines().collect::<Vec<_>>()
            == [
                "bob: slot",
                "bob: deburr",
                "bob: bore",
                "alice: bore stated again"
            ],
        "every commit replayed: {log}"
    );
    // Stopped, the rebase put bore's later version back beside the one set aside; paired
    // twice, the later version is the one set aside.
    ensure!(b.clone.join(&kept).is_file() && b.clone.join(&file).is_file() != paired_twice);
    let synced = b.sync()?;
    let (line, what) = match paired_twice {
        true => (
            format!("restored records/{bore}.json (merge-file set it aside"),
            "sync puts the version set aside in place",
        ),
        false => (
            format!(
                "deleted records/.{bore}.json.kept (a version merge-file set aside, stale: \
                 records/{bore}.json is back)"
            ),
            "sync drops the version set aside for the later one",
        ),
    };
    ensure!(synced.contains(&line), "{what}, and says so: {synced}");
    ensure!(!b.clone.join(&kept).exists());
    b.commit("bob: merged")?;
    git_ok(&b.clone, &["push", "-q", "origin", "HEAD:main"])?;
    let status = git_ok(&b.clone, &["status", "--porcelain"])?;
    ensure!(status.is_empty(), "the folder is all committed: {status}");
    a.pull()?;
    a.sync()?;
    let (fa, fb) = (a.features()?, b.features()?);
    assert_eq!(fa, fb, "both clones hold the same review");
    // The edit beats the forget; of bore's two ids the later version keeps it: Bob's last.
    assert_eq!(
        fa,
        [
            (
                "bore".to_string(),
                "bob: ream to size and deburr".to_string()
            ),
            ("slot".to_string(), "bob: mill 6 wide".to_string())
        ]
    );
    for e in [a, b] {
        let status = e.server.close()?;
        ensure!(status.success(), "server exited with {status}");
    }
    Ok(())
}

#[test]
fn sync_team_a_rebase_of_several_commits_is_not_stopped_by_a_version_given_back()
-> anyhow::Result<()> {
    a_rebase_of_several_commits_over_a_restatement(false, false)
}

#[test]
fn sync_team_a_rebase_that_pairs_one_item_twice_keeps_the_later_version() -> anyhow::Result<()> {
    a_rebase_of_several_commits_over_a_restatement(false, true)
}

#[test]
fn sync_team_a_rebase_in_a_linked_worktree_is_not_stopped_by_a_version_given_back()
-> anyhow::Result<()> {
    a_rebase_of_several_commits_over_a_restatement(true, false)
}

/// Bob's clone, synced, behind Alice's pushed restatement: she reviewed bore and a
/// notes.txt, Bob pulled and synced, then she forgot bore and stated it again (another id).
fn bob_behind_a_restatement(root: &Path) -> anyhow::Result<Engineer> {
    let (bare, mut a) = team_repository(root)?;
    std::fs::write(a.clone.join("notes.txt"), "base\n")?;
    a.remember("bore", "ream to size")?;
    a.publish("alice: first review")?;
    let mut b = Engineer::start(root, &bare, "bob")?;
    b.pull()?;
    b.sync()?;
    a.server
        .call("forget", json!({"artifact": art(), "name": "bore"}))?
        .ok()?;
    a.remember("bore", "alice: ream to size, stated again")?;
    a.publish("alice: bore stated again")?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    Ok(b)
}

/// Regression: a rebase that picks two edits of one item in reverse order (`git rebase -i`,
/// the later edit moved first), each pairing its file with a restatement as a rename, set
/// the two versions aside in turn, the older written last over the later: the next sync put
/// the older version in place over the database's later one ("changed in the folder only,
/// to a version older than the database's: taken"), Bob's latest edit replaced. A version
/// set aside now merges with the one already there as two versions of one item do in its
/// file: the later is kept, whatever order git picks them in.
#[test]
fn sync_team_a_rebase_that_reorders_two_edits_of_one_item_keeps_the_later_version()
-> anyhow::Result<()> {
    let root = TempDir::new("sync-team-reorder")?;
    let mut b = bob_behind_a_restatement(root.path())?;
    b.remember("bore", "bob: ream to size")?;
    b.sync()?;
    b.commit("bob: bore")?;
    std::fs::write(b.clone.join("notes.txt"), "bob\n")?;
    b.commit("bob: notes")?;
    b.remember("bore", "bob: ream to size and deburr")?;
    b.sync()?;
    b.commit("bob: deburr")?;
    git_ok(&b.clone, &["fetch", "-q", "origin"])?;
    // The todo list reversed: deburr, notes, bore.
    let reverse = root.path().join("reverse.sh");
    std::fs::write(
        &reverse,
        "#!/bin/sh\nawk '/^pick/ {a[n++]=$0} END {while (n) print a[--n]}' \"$1\" > \"$1.r\" \
         && mv \"$1.r\" \"$1\"\n",
    )?;
    let editor = format!("sequence.editor=sh {}", reverse.display());
    let rebase = git(&b.clone, &["-c", &editor, "rebase", "-i", "origin/main"])?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&rebase.stdout),
        String::from_utf8_lossy(&rebase.stderr)
    );
    ensure!(
        rebase.status.success(),
        "the rebase runs to its end: {said}"
    );
    let log = git_ok(&b.clone, &["log", "--format=%s", "-3"])?;
    ensure!(
        log.lines().collect::<Vec<_>>() == ["bob: bore", "bob: notes", "bob: deburr"],
        "the commits reordered: {log}"
    );
    ensure!(
        said.matches("set aside as").count() == 2,
        "both picks set bore's version aside: {said}"
    );
    let synced = b.sync()?;
    ensure!(
        !synced.contains("older than the database's"),
        "the version put in place is the later: {synced}"
    );
    ensure!(
        b.features()?
            == [(
                "bore".to_string(),
                "bob: ream to size and deburr".to_string()
            )],
        "bob's later edit stays: {:?}\n{synced}",
        b.features()?
    );
    Ok(())
}

/// Regression: a sync run while `git cherry-pick A..B` (or a revert of several commits) was
/// stopped on a conflict in another file was not refused, as one during a rebase is. Over a
/// restatement, the first pick had the merge driver set bore's version aside; the sync put it
/// in place, untracked, as an older version than the database's (taken, the database's
/// saved), and wrote the history files of the commits not yet picked: `git cherry-pick
/// --continue` then stopped ("untracked working tree files would be overwritten"), the user
/// stuck mid-pick. The sync, dry run too, is now refused while git's sequencer runs, saying
/// how to finish; once finished, the sync keeps Bob's later edit.
#[test]
fn sync_team_refuses_a_folder_while_git_cherry_picks_several_commits() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-pick")?;
    let mut b = bob_behind_a_restatement(root.path())?;
    let faces: Vec<String> = (1..=40).map(|i| format!("face:{i}")).collect();
    let edit = |b: &mut Engineer, note: &str, message: &str| -> anyhow::Result<()> {
        b.server
            .call(
                "remember",
                json!({"artifact": art(), "name": "bore", "note": note, "entity_ids": faces}),
            )?
            .ok()?;
        b.sync()?;
        b.commit(message)
    };
    // Bob's three commits on a branch of his own: bore, a note, bore again.
    edit(&mut b, "bob: ream to size", "bob: bore")?;
    std::fs::write(b.clone.join("notes.txt"), "bob\n")?;
    b.commit("bob: notes")?;
    edit(&mut b, "bob: ream to size and deburr", "bob: deburr")?;
    git_ok(&b.clone, &["branch", "mine"])?;
    git_ok(&b.clone, &["fetch", "-q", "origin"])?;
    git_ok(&b.clone, &["reset", "-q", "--hard", "origin/main"])?;
    std::fs::write(b.clone.join("notes.txt"), "main\n")?;
    b.commit("notes on main")?;
    let pick = git(&b.clone, &["cherry-pick", "origin/main..mine"])?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&pick.stdout),
        String::from_utf8_lossy(&pick.stderr)
    );
    ensure!(
        !pick.status.success() && said.contains("Merge conflict in notes.txt"),
        "the second pick stops on notes.txt: {said}"
    );
    ensure!(
        b.clone
            .join(FOLDER)
            .join("records")
            .read_dir()?
            .any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".json.kept"))),
        "the first pick set bore's version aside"
    );
    refused_changing_nothing(&b, &["cherry-pick", "git cherry-pick --continue"])?;
    // Finished (the last pick stops on its modify/delete of bore's file, settled by adding
    // it), every commit is picked and the sync keeps Bob's later edit.
    std::fs::write(b.clone.join("notes.txt"), "both\n")?;
    git_ok(&b.clone, &["add", "notes.txt"])?;
    for _ in 0..3 {
        let go_on = git(
            &b.clone,
            &["-c", "core.editor=true", "cherry-pick", "--continue"],
        )?;
        if go_on.status.success() {
            break;
        }
        let said = String::from_utf8_lossy(&go_on.stderr).into_owned();
        ensure!(
            !said.contains("untracked working tree files"),
            "nothing untracked stands in a later pick's way: {said}"
        );
        git_ok(&b.clone, &["add", "-u", FOLDER])?;
    }
    ensure!(
        !b.clone.join(".git").join("sequencer").exists(),
        "the cherry-pick is finished"
    );
    b.sync()?;
    ensure!(
        b.features()?
            == [(
                "bore".to_string(),
                "bob: ream to size and deburr".to_string()
            )],
        "bob's later edit stays: {:?}",
        b.features()?
    );
    Ok(())
}

/// Checks that the engineer's sync, dry run and not, is refused saying each of `says` and
/// "nothing was changed", and that the database and the work tree's files are as they were.
fn refused_changing_nothing(e: &Engineer, says: &[&str]) -> anyhow::Result<()> {
    let held = e.export()?;
    let status = git_ok(
        &e.clone,
        &["status", "--porcelain", "--untracked-files=all"],
    )?;
    for dry_run in [true, false] {
        let out = sync_output(e, dry_run)?;
        let err = String::from_utf8_lossy(&out.stderr);
        ensure!(
            !out.status.success()
                && says.iter().all(|s| err.contains(s))
                && err.contains("nothing was changed"),
            "dry run {dry_run}: refused, saying {says:?}: {err}{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    ensure!(e.export()? == held, "the database is as it was");
    ensure!(
        git_ok(
            &e.clone,
            &["status", "--porcelain", "--untracked-files=all"]
        )? == status,
        "no file was written"
    );
    Ok(())
}

/// `review-mcp sync` of the engineer's folder, dry run or not, whatever it exits with.
fn sync_output(e: &Engineer, dry_run: bool) -> anyhow::Result<Output> {
    let mut cmd = Command::new(binary());
    cmd.arg("--db").arg(&e.db).arg("sync");
    if dry_run {
        cmd.arg("--dry-run");
    }
    run(cmd
        .arg(e.clone.join(&e.folder))
        .env("MCP_LOG_LEVEL", "warn"))
}

/// Regression: a sync run while `git pull --rebase` was stopped on a conflict (in any file of
/// the repository) read a work tree that holds the commits replayed so far, not the branch:
/// a decision the engineer had synced and committed, not yet replayed, was taken for deleted
/// by a teammate (deleted from the database, a `forgotten` event recorded for the team's
/// history), and the history files it wrote stopped `git rebase --continue` (untracked files
/// the replayed commit would overwrite). A `git bisect` checks out older commits the same
/// way. The sync (and its dry run) is now refused while either is in progress, saying how to
/// finish it, and nothing changes; once finished, the sync takes the branch as it is.
#[test]
fn sync_team_refuses_a_folder_while_git_rebases_or_bisects_its_work_tree() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-rebase")?;
    let (bare, mut a) = team_repository(root.path())?;
    std::fs::write(a.clone.join("notes.txt"), "base\n")?;
    a.remember("bore", "ream to size")?;
    a.publish("alice: first review")?;
    let mut b = Engineer::start(root.path(), &bare, "bob")?;
    b.pull()?;
    // Alice: a note of her own, then a decision synced and committed, not yet pushed.
    std::fs::write(a.clone.join("notes.txt"), "alice\n")?;
    a.commit("alice: notes")?;
    a.decide("hold", None)?;
    a.sync()?;
    a.commit("alice: hold")?;
    // Bob pushes another note: Alice's rebase stops on it before her decision is replayed.
    std::fs::write(b.clone.join("notes.txt"), "bob\n")?;
    b.commit("bob: notes")?;
    git_ok(&b.clone, &["push", "-q", "origin", "HEAD:main"])?;
    let pull = git(&a.clone, &["pull", "-q", "--rebase", "origin", "main"])?;
    ensure!(!pull.status.success(), "the rebase stops on notes.txt");
    let held = a.export()?;
    ensure!(held.contains("\"decision\""), "{held}");
    refused_changing_nothing(&a, &["rebase", "git rebase --continue"])?;
    // Finished, the rebase replays the decision and the sync finds nothing to change.
    std::fs::write(a.clone.join("notes.txt"), "both\n")?;
    git_ok(&a.clone, &["add", "notes.txt"])?;
    git_ok(
        &a.clone,
        &["-c", "core.editor=true", "rebase", "--continue"],
    )?;
    let out = a.sync()?;
    ensure!(out.contains("deleted: 0 "), "{out}");
    ensure!(a.export()? == held, "nothing deleted or forgotten: {out}");

    // A bisect checks out older commits: refused until it is reset.
    git_ok(&a.clone, &["bisect", "start", "HEAD", "HEAD~3"])?;
    let out = sync_output(&a, false)?;
    let err = String::from_utf8_lossy(&out.stderr);
    ensure!(
        !out.status.success() && err.contains("git bisect reset"),
        "refused during a bisect: {err}"
    );
    ensure!(a.export()? == held, "the database is as it was");
    git_ok(&a.clone, &["bisect", "reset"])?;
    a.sync()?;
    ensure!(a.export()? == held);

    // A linked worktree (its `.git` a file naming its git directory) is checked the same.
    let tree = root.path().join("tree");
    git_ok(
        &a.clone,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "tree",
            &tree.to_string_lossy(),
        ],
    )?;
    git_ok(&tree, &["bisect", "start", "HEAD", "HEAD~3"])?;
    let out = run(Command::new(binary())
        .arg("--db")
        .arg(root.path().join("tree.db"))
        .arg("sync")
        .arg(tree.join(FOLDER))
        .env("MCP_LOG_LEVEL", "warn"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    ensure!(
        !out.status.success() && err.contains("git bisect reset"),
        "refused in a worktree during a bisect: {err}"
    );
    Ok(())
}

/// Regression: `sync team.git/review` (the bare repository the team pushes to, taken for the
/// place to sync with) made the folder inside the git directory and synced it, as did
/// `sync clone/.git/review`: git never commits a file there, so the review reached no one,
/// unsaid. A folder at or inside a git directory is refused, dry run too, saying to sync a
/// folder of a clone, and nothing is made.
#[test]
fn sync_team_refuses_a_folder_inside_a_git_directory() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-git-dir")?;
    let (bare, mut a) = team_repository(root.path())?;
    a.remember("bore", "ream to size")?;
    a.publish("alice: first review")?;
    let db = root.path().join("other.db");
    for folder in [
        bare.join("review"),
        bare.clone(),
        a.clone.join(".git/review"),
        a.clone.join(".git"),
    ] {
        for dry_run in [true, false] {
            let mut cmd = Command::new(binary());
            cmd.arg("--db").arg(&db).arg("sync");
            if dry_run {
                cmd.arg("--dry-run");
            }
            let out = run(cmd.arg(&folder).env("MCP_LOG_LEVEL", "warn"))?;
            let err = String::from_utf8_lossy(&out.stderr);
            ensure!(
                !out.status.success()
                    && err.contains("git directory")
                    && err.contains("git clone")
                    && err.contains("nothing was changed"),
                "{} (dry run {dry_run}): {err}{}",
                folder.display(),
                String::from_utf8_lossy(&out.stdout)
            );
        }
        ensure!(
            folder.ends_with(".git") || folder.ends_with("team.git") || !folder.exists(),
            "{} was made",
            folder.display()
        );
    }
    ensure!(!db.exists(), "no database was made");
    // A project's own `objects/`, `refs/` and `HEAD` (no branch or commit in it) are no git
    // directory: its folder syncs.
    let project = root.path().join("project");
    for d in ["objects", "refs"] {
        std::fs::create_dir_all(project.join(d))?;
    }
    std::fs::write(project.join("HEAD"), "the head of the part\n")?;
    let out = run(Command::new(binary())
        .arg("--db")
        .arg(&db)
        .arg("sync")
        .arg(project.join(FOLDER))
        .env("MCP_LOG_LEVEL", "warn"))?;
    ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// Regression: a clone kept as a bare repository with its work trees added inside it (`git
/// clone --bare URL project.git`, then `git worktree add main` in it: a common layout for
/// working on several branches) was refused as "inside the git directory project.git",
/// though git commits the work tree's files like any clone's. A directory holding `.git`
/// (here the worktree's `.git` file) between the folder and the git directory is a work tree
/// of its own: its folder syncs, and what the sync writes is committed and pushed.
#[test]
fn sync_team_syncs_a_worktree_added_inside_a_bare_clone() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-bare-worktree")?;
    let (bare, mut a) = team_repository(root.path())?;
    a.remember("bore", "ream to size")?;
    a.publish("alice: first review")?;
    git_ok(
        root.path(),
        &["clone", "-q", "--bare", &bare.to_string_lossy(), "bob.git"],
    )?;
    let local = root.path().join("bob.git");
    git_ok(&local, &["worktree", "add", "-q", "main", "main"])?;
    let tree = local.join("main");
    for (k, v) in [("user.name", "bob"), ("user.email", "bob@example.com")] {
        git_ok(&tree, &["config", k, v])?;
    }
    let db = root.path().join("bob.db");
    let out = run(Command::new(binary())
        .arg("--db")
        .arg(&db)
        .arg("sync")
        .arg(tree.join(FOLDER))
        .env("MCP_LOG_LEVEL", "warn"))?;
    ensure!(
        out.status.success(),
        "the worktree's folder syncs: {}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    let export = run(Command::new(binary())
        .arg("--db")
        .arg(&db)
        .arg("export")
        .env("MCP_LOG_LEVEL", "warn"))?;
    let export = String::from_utf8_lossy(&export.stdout);
    ensure!(
        export.contains("ream to size"),
        "alice's feature reached bob's database: {export}"
    );
    Ok(())
}

/// Regression (found by `converge::long`, seed 6 at 200 operations, shortened to 7): Alice
/// carried a feature to revision B and pushed; Bob, who had not pulled, stated it again at
/// revision A, later, and synced and committed. His `git pull` had the merge driver keep the
/// carry (a carried feature never moves back, whatever the times) and hand his statement to
/// his next sync, to be kept as what revision A says. That sync took the carry, older than
/// his statement, for the folder going back to an older version: a conflict line blaming a
/// `git revert` or `git checkout`, and his statement saved in `bob.db.sync-deleted/`, though
/// nothing was lost. A folder version that carries the database's on is no older version.
#[test]
fn sync_team_a_carry_the_driver_kept_over_a_later_restatement_is_no_older_version()
-> anyhow::Result<()> {
    let root = TempDir::new("sync-team-carry-restated")?;
    let (bare, mut a) = team_repository(root.path())?;
    a.remember("bore", "ream to size")?;
    a.publish("alice: first review")?;
    let mut b = Engineer::start(root.path(), &bare, "bob")?;
    b.pull()?;
    b.sync()?;
    a.server
        .call(
            "carry_forward",
            json!({"from": art(), "to": artifact("bracket rev B", "/work/bracket.step"),
                   "changed": ["face:1"], "change": "ECO", "map": []}),
        )?
        .ok()?;
    a.publish("alice: carried to revision B")?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.remember("bore", "bob: ream to size and deburr")?;
    b.sync()?;
    b.commit("bob: bore")?;
    b.pull()?;
    let out = b.sync()?;
    ensure!(
        !out.contains("older than the database's") && !out.contains("saved the database"),
        "no older folder version: {out}"
    );
    ensure!(
        !root.path().join("bob.db.sync-deleted").exists(),
        "nothing saved: {out}"
    );
    let held = b.export()?;
    ensure!(
        held.contains("bob: ream to size and deburr") && held.contains("\"carried\""),
        "the carry stands, and bob's statement as what revision A says: {held}"
    );
    // In the copy at A, not only in the history (his sync kept the statement there: it had
    // reached the history alone, seen failing before).
    let rev_a = art()["revision"].as_str().unwrap_or_default().to_string();
    ensure!(
        note_at(&held, "bore", &rev_a, true).as_deref() == Some("bob: ream to size and deburr")
            && note_at(&held, "bore", &rev_a, false).is_none(),
        "bob's statement is what revision A says of bore: {held}"
    );
    Ok(())
}

/// The feature of `name` in `text` (an export, or a file of the folder), live or the
/// superseded copy, at `revision`: its note, `None` when there is none.
fn note_at(text: &str, name: &str, revision: &str, superseded: bool) -> Option<String> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v["record"].clone())
        .find(|r| {
            r["name"] == name
                && r["artifact"]["revision"] == revision
                && r.get("superseded").is_some_and(|m| !m.is_null()) == superseded
        })
        .and_then(|r| r["note"].as_str().map(str::to_string))
}

/// The folder's record files of `e`'s clone, one line each (an export's form).
fn folder_lines(e: &Engineer) -> anyhow::Result<String> {
    let mut out = String::new();
    for entry in std::fs::read_dir(e.clone.join(&e.folder).join("records"))? {
        let path = entry?.path();
        if path.extension().is_some_and(|x| x == "json") {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
            out.push_str(&v.to_string());
            out.push('\n');
        }
    }
    Ok(out)
}

/// Revisions B and C of the bracket ([`art`] is A).
fn revisions_b_and_c() -> (Value, Value) {
    (
        artifact("bracket rev B", "/work/bracket.step"),
        artifact("bracket rev C", "/work/bracket.step"),
    )
}

/// `e` carries every item at `from` on to `to` unchanged (`carry_forward`, no face changed).
fn carry(e: &mut Engineer, from: &Value, to: &Value) -> anyhow::Result<()> {
    e.server
        .call(
            "carry_forward",
            json!({"from": from, "to": to, "changed": [], "change": "ECO", "map": []}),
        )?
        .ok()?;
    Ok(())
}

/// Alice and Bob on one team repository ("slot" published by Alice, synced by Bob); then the
/// carrier (Bob when `bob_carries`, else Alice) states "bore" ("ream to size") at A, carries
/// it on to B and publishes, and the other imports the carrier's export: both hold the feature
/// at B with its copy at A. The two tests of a statement meeting a second carry start here.
fn bore_carried_to_b(root: &Path, bob_carries: bool) -> anyhow::Result<(Engineer, Engineer)> {
    bore_carried_to_b_in(root, bob_carries, FOLDER)
}

/// [`bore_carried_to_b`] with the review memory in `folder` of each clone.
fn bore_carried_to_b_in(
    root: &Path,
    bob_carries: bool,
    folder: &str,
) -> anyhow::Result<(Engineer, Engineer)> {
    let (bare, mut a) = team_repository(root)?;
    a.folder = folder.into();
    a.remember("slot", "mill 4 wide")?;
    a.publish("alice: first review")?;
    let mut b = Engineer::start(root, &bare, "bob")?;
    b.folder = folder.into();
    b.sync()?;
    let (rev_b, _) = revisions_b_and_c();
    let (carrier, other, name, other_name) = match bob_carries {
        true => (&mut b, &a, "bob", "alice"),
        false => (&mut a, &b, "alice", "bob"),
    };
    carrier.remember("bore", "ream to size")?;
    carry(carrier, &art(), &rev_b)?;
    carrier.publish(&format!("{name}: bore, carried to B"))?;
    other.import_ok(
        &root.join(format!("{name}.jsonl")),
        &carrier.export()?,
        &format!("{other_name} imports {name}'s export"),
    )?;
    Ok((a, b))
}

/// Regression (`converge::a_statement_git_merged_over_a_second_carry_is_not_pushed_at_the_old_revision`):
/// Alice carries "bore" from revision A to B, and Bob imports her export (his clone has no
/// file of it); Alice carries it on to C (its mark still naming A: carried on unchanged) and
/// pushes, with its copy at B. Bob states "bore" again at B, syncs and commits. His `git
/// pull` (a merge, and a `--rebase` in the second round) hands the driver his statement at B
/// and the carry at C with no base (both sides added the file): nothing in the two versions
/// says B was carried past, and the copy at B is another file of the pull, which git had not
/// written when the driver ran. The driver kept his later statement, and his sync pushed the
/// feature live at B beside its copy there, until Alice synced again. The driver now reads
/// the copy from either side's commit: the carry stands at C, and Bob's sync keeps his
/// statement as what B says of the feature (the copy), in his database and in the folder he
/// pushes. Seen failing before the fix (Bob's folder held "bore" live at B); without the
/// sync's part of it, his statement was only in the history.
#[test]
fn sync_team_a_statement_git_merges_over_a_second_carry_stays_at_its_revision() -> anyhow::Result<()>
{
    statement_over_a_second_carry(FOLDER)
}

/// The same in a folder whose path has a space, a `:` (git's `<commit>:<path>` separator,
/// which the driver's lookup of the copy in the other side's commit writes) and a letter
/// outside ASCII: the driver finds the copy there too.
#[test]
fn sync_team_a_statement_over_a_second_carry_in_a_folder_named_with_a_colon_space_and_accent()
-> anyhow::Result<()> {
    statement_over_a_second_carry("de:sign r\u{e9}v/review memory")
}

fn statement_over_a_second_carry(folder: &str) -> anyhow::Result<()> {
    for rebase in [false, true] {
        let root = TempDir::new("sync-team-second-carry")?;
        let (mut a, mut b) = bore_carried_to_b_in(root.path(), false, folder)?;
        let (rev_b, rev_c) = revisions_b_and_c();
        carry(&mut a, &rev_b, &rev_c)?;
        a.publish("alice: carried on to C")?;
        std::thread::sleep(std::time::Duration::from_millis(5));
        b.server
            .call(
                "remember",
                json!({"artifact": rev_b, "name": "bore", "note": "bob: ream and deburr",
                       "entity_ids": []}),
            )?
            .ok()?;
        b.sync()?;
        b.commit("bob: bore at B")?;
        let how = if rebase { "--rebase" } else { "--no-rebase" };
        git_ok(
            &b.clone,
            &["pull", "-q", how, "--no-edit", "origin", "main"],
        )?;
        let said = b.sync()?;
        b.commit("bob: synced")?;
        let (rb, rc) = (rev_b["revision"].as_str(), rev_c["revision"].as_str());
        let (Some(rb), Some(rc)) = (rb, rc) else {
            bail!("no revisions");
        };
        for (what, text) in [
            ("bob's folder", folder_lines(&b)?),
            ("bob's database", b.export()?),
        ] {
            ensure!(
                note_at(&text, "bore", rb, false).is_none(),
                "{how}: {what} holds bore live at B, a revision its carry moved it on from: {said}"
            );
            ensure!(
                note_at(&text, "bore", rc, false).as_deref() == Some("ream to size"),
                "{how}: {what} holds the carry at C: {said}"
            );
            ensure!(
                note_at(&text, "bore", rb, true).as_deref() == Some("bob: ream and deburr"),
                "{how}: {what} keeps bob's statement as what B says of bore: {said}"
            );
        }
        git_ok(&b.clone, &["push", "-q", "origin", "HEAD:main"])?;
        a.pull()?;
        a.sync()?;
        let held = a.export()?;
        ensure!(
            note_at(&held, "bore", rc, false).as_deref() == Some("ream to size")
                && note_at(&held, "bore", rb, true).as_deref() == Some("bob: ream and deburr"),
            "{how}: alice holds the carry at C and bob's statement at B: {held}"
        );
    }
    Ok(())
}

/// The carrying clone's `git pull --rebase` of the same: Bob carries "bore" from A to B and
/// pushes; Alice, who has it by importing his export (her clone has no file of it), carries
/// it on to C (the mark still naming A) and commits; Bob states it again at B and pushes.
/// Alice's rebase replays her carry over his statement: both added the feature's file (no
/// base), the carry's copy at B is in her commit being picked only (not in `HEAD`, not yet in
/// the work tree), and the driver found it there (`rebase-merge/done`): the carry stands in
/// her work tree before any sync, and Bob's next sync keeps his statement as what B says of
/// it, in every clone. Seen failing with the driver not reading the pick ("the rebase left
/// bore live at B").
#[test]
fn sync_team_a_carry_rebased_over_a_statement_at_the_revision_it_left_stands() -> anyhow::Result<()>
{
    let root = TempDir::new("sync-team-rebased-carry")?;
    let (mut a, mut b) = bore_carried_to_b(root.path(), true)?;
    let (rev_b, rev_c) = revisions_b_and_c();
    carry(&mut a, &rev_b, &rev_c)?;
    a.sync()?;
    a.commit("alice: carried on to C")?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.server
        .call(
            "remember",
            json!({"artifact": rev_b, "name": "bore", "note": "bob: ream and deburr",
                   "entity_ids": []}),
        )?
        .ok()?;
    b.publish("bob: bore at B")?;
    git_ok(&a.clone, &["pull", "-q", "--rebase", "origin", "main"])?;
    let (Some(rb), Some(rc)) = (rev_b["revision"].as_str(), rev_c["revision"].as_str()) else {
        bail!("no revisions");
    };
    let merged = folder_lines(&a)?;
    ensure!(
        note_at(&merged, "bore", rb, false).is_none()
            && note_at(&merged, "bore", rc, false).as_deref() == Some("ream to size"),
        "the rebase left bore live at B, a revision the carry moved it on from: {merged}"
    );
    // The statement is kept by the next sync of the database that made it, Bob's.
    a.publish("alice: carried on to C")?;
    b.pull()?;
    b.publish("bob: synced")?;
    a.pull()?;
    a.sync()?;
    for e in [&a, &b] {
        for text in [folder_lines(e)?, e.export()?] {
            ensure!(
                note_at(&text, "bore", rb, false).is_none()
                    && note_at(&text, "bore", rc, false).as_deref() == Some("ream to size")
                    && note_at(&text, "bore", rb, true).as_deref() == Some("bob: ream and deburr"),
                "the carry at C and bob's statement at B: {}{text}",
                e.said
            );
        }
    }
    Ok(())
}

/// Work synced into a commit that was never pushed, backed up, then the working copy lost (a
/// fresh clone) and the backup restored: the restored database's bases say the folder held
/// the edit and the new feature, but no commit of the fresh clone ever did. Before, sync took
/// the database's versions for unchanged since their bases: the edit was replaced by the
/// older version the folder holds, and the new feature deleted for a deletion the folder never
/// made (both only saved beside the database). docs/database.md promises the loss only of what
/// was done after the backup and never synced. Seed 12227 of `converge::long` lost an
/// engineer's verdict this way (`converge::seed12227_a_verdict_synced_into_a_lost_commit_is_kept_by_the_restored_backup`).
#[test]
fn sync_team_a_restored_backup_keeps_what_it_synced_into_a_commit_never_pushed()
-> anyhow::Result<()> {
    let tmp = TempDir::new("team-lost-commit")?;
    let root = tmp.path();
    let (bare, mut a) = team_repository(root)?;
    a.remember("bore", "first")?;
    a.publish("bore")?;
    a.remember("bore", "edited")?;
    a.remember("slot", "new")?;
    a.sync()?;
    a.commit("edited, never pushed")?;
    let backup = a.backup()?;
    // The working copy is lost with its commit; the backup is restored beside a fresh clone.
    drop(a);
    std::fs::remove_dir_all(root.join("alice"))?;
    std::fs::copy(&backup, root.join("again.db"))?;
    let mut a = Engineer::start(root, &bare, "again")?;
    let said = a.sync()?;
    let want = [
        ("bore".to_string(), "edited".to_string()),
        ("slot".to_string(), "new".to_string()),
    ];
    ensure!(
        a.features()? == want,
        "the restored backup lost what it held: {:?}; sync said {said}",
        a.features()?
    );
    // The folder holds them too, for the team.
    a.commit("restored")?;
    let files = git_ok(&a.clone, &["grep", "-h", "\"note\"", "--", FOLDER])?;
    ensure!(
        files.contains("\"edited\"") && files.contains("\"new\"") && !files.contains("\"first\""),
        "the folder holds: {files}"
    );
    Ok(())
}

/// An edit synced and never committed, its file then put back as committed by `git checkout
/// -- DIR` or `git reset --hard` (no commit, index or stash ever held the edit's text): the
/// next sync keeps the edit and writes its file again (a conflict line names both versions),
/// as docs/command-line.md says; a `git stash` holds the text, so the stashed-away file is
/// the older version taken, and the edit saved beside the database to import back.
#[test]
fn sync_team_a_synced_edit_put_back_by_git_checkout_is_written_again() -> anyhow::Result<()> {
    for how in [
        &["checkout", "--", FOLDER][..],
        &["reset", "-q", "--hard"][..],
        &["stash", "-q"][..],
    ] {
        let tmp = TempDir::new("team-put-back")?;
        let (_bare, mut a) = team_repository(tmp.path())?;
        a.remember("bore", "first")?;
        a.publish("bore")?;
        a.remember("bore", "edited")?;
        a.sync()?;
        git_ok(&a.clone, how)?;
        let said = a.sync()?;
        let stashed = how[0] == "stash";
        let (want, kept) = match stashed {
            true => ("first", "older than the database's"),
            false => ("edited", "changed on both sides"),
        };
        ensure!(
            a.features()? == [("bore".to_string(), want.to_string())],
            "git {how:?}: {:?}; sync said {said}",
            a.features()?
        );
        ensure!(said.contains(kept), "git {how:?}: sync said {said}");
        let files = std::fs::read_dir(a.clone.join(FOLDER).join("records"))?
            .map(|e| Ok(std::fs::read_to_string(e?.path())?))
            .collect::<anyhow::Result<Vec<String>>>()?
            .concat();
        ensure!(
            files.contains(&format!("\"{want}\"")),
            "git {how:?}: the folder holds {files}"
        );
    }
    Ok(())
}

/// [`sync_team_a_statement_git_merges_over_a_second_carry_stays_at_its_revision`] with Bob
/// taking Alice's carry by `git merge --squash` (git sets `GITHEAD_<commit>` for the squashed
/// commit as for a merge): the driver finds the carry's copy in her commit, and Bob's sync
/// keeps his statement as what B says of the feature, nothing live at B.
#[test]
fn sync_team_a_statement_squash_merged_over_a_second_carry_stays_at_its_revision()
-> anyhow::Result<()> {
    let root = TempDir::new("sync-team-second-carry-squash")?;
    let (mut a, mut b) = bore_carried_to_b(root.path(), false)?;
    let (rev_b, rev_c) = revisions_b_and_c();
    carry(&mut a, &rev_b, &rev_c)?;
    a.publish("alice: carried on to C")?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.server
        .call(
            "remember",
            json!({"artifact": rev_b, "name": "bore", "note": "bob: ream and deburr",
                   "entity_ids": []}),
        )?
        .ok()?;
    b.sync()?;
    b.commit("bob: bore at B")?;
    git_ok(&b.clone, &["fetch", "-q", "origin"])?;
    git_ok(&b.clone, &["merge", "-q", "--squash", "origin/main"])?;
    b.commit("bob: alice's carry, squashed")?;
    let said = b.sync()?;
    let (Some(rb), Some(rc)) = (rev_b["revision"].as_str(), rev_c["revision"].as_str()) else {
        bail!("no revisions");
    };
    for (what, text) in [
        ("bob's folder", folder_lines(&b)?),
        ("bob's database", b.export()?),
    ] {
        ensure!(
            note_at(&text, "bore", rb, false).is_none()
                && note_at(&text, "bore", rc, false).as_deref() == Some("ream to size")
                && note_at(&text, "bore", rb, true).as_deref() == Some("bob: ream and deburr"),
            "{what}: the carry at C and bob's statement at B: {said}{text}"
        );
    }
    Ok(())
}

/// Alice and Bob share "chamfer" at A (Alice's, published, synced by Bob); then Alice
/// carries A on to B and forgets the feature at B (`forget_at_b`; else states it at B, the
/// carry's mark gone) and publishes, while Bob,
/// who has not pulled, states it again at A ("bob: break the edge"), syncs and commits. Bob
/// then pulls (`rebase`: `git pull --rebase`; `renames`: git's rename pairing on, as it is by
/// default, else `-X find-renames=100%`); a stop on a conflict git leaves to the user
/// (modify/delete: his edit of the file Alice's forget deleted) is settled as the docs say:
/// keep the file (`git add`), commit (or `git rebase --continue`). Returns the two, Bob's
/// pull done and not yet synced, and what git said when the pull stopped (empty: it did not).
fn a_statement_at_a_pulled_over_a_carry(
    root: &Path,
    forget_at_b: bool,
    rebase: bool,
    renames: bool,
    driver_reads_copy: bool,
) -> anyhow::Result<(Engineer, Engineer, String)> {
    a_statement_at_a_pulled_over_a_carry_in(
        root,
        (forget_at_b, rebase, renames, driver_reads_copy),
        FOLDER,
        false,
    )
}

/// [`a_statement_at_a_pulled_over_a_carry`] with the review memory in `folder` of each clone;
/// `forget_copy`: Alice also forgets what A says of the feature (the carry's copy there) before
/// she publishes, so only the carry's `carried` event tells the carry.
fn a_statement_at_a_pulled_over_a_carry_in(
    root: &Path,
    (forget_at_b, rebase, renames, driver_reads_copy): (bool, bool, bool, bool),
    folder: &str,
    forget_copy: bool,
) -> anyhow::Result<(Engineer, Engineer, String)> {
    let (bare, mut a) = team_repository(root)?;
    a.folder = folder.into();
    a.remember("chamfer", "0.5 x 45")?;
    a.publish("alice: chamfer at A")?;
    let mut b = Engineer::start(root, &bare, "bob")?;
    b.folder = folder.into();
    b.sync()?;
    let (rev_b, _) = revisions_b_and_c();
    carry(&mut a, &art(), &rev_b)?;
    if forget_at_b {
        let forgot = a
            .server
            .call("forget", json!({"artifact": rev_b, "name": "chamfer"}))?
            .ok()?;
        ensure!(
            forgot["deleted"] == 1,
            "alice forgot chamfer at B: {forgot}"
        );
    } else {
        // Stated at B after the carry: the carry's mark is gone.
        a.remember_at(&rev_b, "chamfer", "at B: 0.5 x 45")?;
    }
    if forget_copy {
        let forgot = a
            .server
            .call("forget", json!({"artifact": art(), "name": "chamfer"}))?
            .ok()?;
        ensure!(forgot["deleted"] == 1, "alice forgot A's copy: {forgot}");
    }
    a.publish("alice: carried to B")?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.remember("chamfer", "bob: break the edge")?;
    b.sync()?;
    b.commit("bob: chamfer at A")?;
    if !driver_reads_copy {
        // A driver line without `%P`: it cannot look for the carry's copy beside the file.
        let line = format!("{} merge-file %O %A %B", binary().display());
        git_ok(&b.clone, &["config", "merge.review.driver", &line])?;
    }
    let how = if rebase { "--rebase" } else { "--no-edit" };
    let mut pull = vec!["pull", "-q", how];
    if !renames {
        // git pairs the deleted file with the carry's copy added beside it as a rename (the
        // merge driver then gives the statement back its own file); without, modify/delete.
        pull.extend(["-X", "find-renames=100%"]);
    }
    pull.extend(["origin", "main"]);
    let pulled = git(&b.clone, &pull)?;
    let mut stopped = String::new();
    if !pulled.status.success() {
        // `-z`: paths as they are (a folder named with a space or an accent is not quoted).
        let status = git_ok(&b.clone, &["status", "--porcelain", "-z"])?;
        stopped = format!(
            "{}{}{status}",
            String::from_utf8_lossy(&pulled.stdout),
            String::from_utf8_lossy(&pulled.stderr)
        );
        let mut kept = 0;
        for line in status.split('\0').filter(|l| l.len() > 3) {
            let (code, path) = line.split_at(3);
            match code.trim() {
                // Keep the file, as the docs say.
                "UD" | "DU" => git_ok(&b.clone, &["add", "--", path.trim()])?,
                "A" | "M" | "D" => continue,
                _ => bail!("only modify/delete stops the pull: {stopped}"),
            };
            kept += 1;
        }
        ensure!(kept > 0, "the pull stopped on modify/delete: {stopped}");
        match rebase {
            true => git_ok(
                &b.clone,
                &["-c", "core.editor=true", "rebase", "--continue"],
            )?,
            false => git_ok(&b.clone, &["commit", "-q", "--no-edit"])?,
        };
    }
    Ok((a, b, stopped))
}

/// The live "chamfer" records of an export's or a folder's lines (`None`: every one), with
/// their revision and note.
fn chamfers(text: &str, live: Option<bool>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v["record"].clone())
        .filter(|r| r["name"] == "chamfer")
        .filter(|r| live.is_none_or(|l| r.get("superseded").is_none_or(Value::is_null) == l))
        .map(|r| {
            (
                r["artifact"]["revision"]
                    .as_str()
                    .unwrap_or_default()
                    .into(),
                r["note"].as_str().unwrap_or_default().into(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Regression (converge::seed12563_a_restore_from_before_a_carry_does_not_move_the_feature_back):
/// Alice carried "chamfer" from A to B and forgot it at B; Bob, unaware, stated it again at A
/// and committed; his pull stopped on modify/delete and he kept his file, as the docs say.
/// Both sides of his sync then held the feature live at A, unchanged since his last sync, and
/// sync kept it there though the team's history says it was carried on and forgotten (and
/// Alice, restoring a backup from before her carry, would take it back at A). Bob's sync now
/// reads git's history (the commit that deleted the file held the carry's copy at A):
/// forgotten after the carry, his statement is what A says of it, in A's copy, and the team
/// converges on that. Played with a merge, a rebase, and a merge that pairs no renames (the
/// pull stops on modify/delete; else the driver gives the statement back its own file).
#[test]
fn sync_team_a_statement_kept_against_a_forget_after_the_carry_is_what_a_says() -> anyhow::Result<()>
{
    for (rebase, renames) in [(false, true), (true, true), (false, false)] {
        let root = TempDir::new("sync-team-forgotten-after-carry")?;
        let (mut a, mut b, stopped) =
            a_statement_at_a_pulled_over_a_carry(root.path(), true, rebase, renames, true)?;
        ensure!(
            renames || stopped.contains("modify/delete"),
            "without renames the pull stops on modify/delete: {stopped}"
        );
        let said = b.sync()?;
        let Some(ra) = art()["revision"].as_str().map(str::to_string) else {
            bail!("no revision");
        };
        let statement = vec![(ra.clone(), "bob: break the edge".to_string())];
        for (what, text) in [
            ("bob's folder", folder_lines(&b)?),
            ("bob's database", b.export()?),
        ] {
            ensure!(
                chamfers(&text, Some(true)).is_empty() && chamfers(&text, Some(false)) == statement,
                "rebase {rebase}, renames {renames}: {what}: chamfer forgotten, bob's statement in A's copy \
                 (pull: {stopped}): {said}{text}"
            );
        }
        ensure!(
            said.lines().any(|l| l.contains("forgotten after the carry")
                && l.contains("git history")
                && l.contains("to have it again, remember it where its review stands")),
            "rebase {rebase}, renames {renames}: bob's sync says why: {said}"
        );
        b.commit("bob: settled")?;
        git_ok(&b.clone, &["push", "-q", "origin", "HEAD:main"])?;
        a.pull()?;
        let said_a = a.sync()?;
        let again = b.sync()?;
        ensure!(
            again.contains("imported into the database: 0 ")
                && again.contains("written to the folder: 0 "),
            "rebase {rebase}, renames {renames}: bob's next sync has nothing to do: {again}"
        );
        let items = |e: &Engineer| -> anyhow::Result<Vec<(String, String)>> {
            Ok(chamfers(&e.export()?, None))
        };
        ensure!(
            items(&a)? == statement && items(&b)? == statement,
            "rebase {rebase}, renames {renames}: one state in both (pull: {stopped}): {said_a}{:?} {:?}",
            items(&a)?,
            items(&b)?
        );
    }
    Ok(())
}

/// What the fix of [`sync_team_a_statement_kept_against_a_forget_after_the_carry_is_what_a_says`]
/// must leave alone: Alice carried "chamfer" on to B and stated it there (the carry's mark
/// gone), and did not forget it; Bob's merge driver (a line without `%P`) cannot read the
/// carry's copy and keeps his later statement at A over hers. Bob's sync finds the feature live at A beside the copy that says A was carried
/// past, but git never deleted its file: it is not forgotten, and stays (Alice holds it at B);
/// Alice's next sync keeps the carry, and Bob's statement as what A says of it.
#[test]
fn sync_team_a_statement_a_driver_kept_over_a_live_carry_is_not_forgotten() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-carry-driver-without-copy")?;
    let (mut a, mut b, stopped) =
        a_statement_at_a_pulled_over_a_carry(root.path(), false, false, true, false)?;
    ensure!(stopped.is_empty(), "the driver settled the pull: {stopped}");
    let (Some(ra), Some(rb)) = (
        art()["revision"].as_str().map(str::to_string),
        revisions_b_and_c().0["revision"]
            .as_str()
            .map(str::to_string),
    ) else {
        bail!("no revisions");
    };
    let said = b.sync()?;
    ensure!(
        !said.contains("forgotten after the carry"),
        "nothing forgotten: {said}"
    );
    let text = b.export()?;
    ensure!(
        chamfers(&text, Some(true)) == vec![(ra.clone(), "bob: break the edge".to_string())],
        "bob's database still holds chamfer live (the driver kept his statement): {said}{text}"
    );
    b.commit("bob: synced")?;
    git_ok(&b.clone, &["push", "-q", "origin", "HEAD:main"])?;
    a.pull()?;
    let said_a = a.sync()?;
    a.commit("alice: settled")?;
    git_ok(&a.clone, &["push", "-q", "origin", "HEAD:main"])?;
    b.pull()?;
    b.sync()?;
    for e in [&a, &b] {
        let text = e.export()?;
        ensure!(
            chamfers(&text, Some(true)) == vec![(rb.clone(), "at B: 0.5 x 45".to_string())]
                && chamfers(&text, Some(false))
                    == vec![(ra.clone(), "bob: break the edge".to_string())],
            "{}: the carry at B stands, bob's statement is what A says: {said_a}{text}",
            e.db.display()
        );
    }
    Ok(())
}

/// [`sync_team_a_statement_kept_against_a_forget_after_the_carry_is_what_a_says`] asked of git
/// in a folder two levels down whose names have a leading dash, a space, a `:` and a letter
/// outside ASCII (git quotes such a path unless asked not to), read from a linked worktree's
/// neighbour: the same answer. `sync --dry-run` first says the same and changes nothing (the
/// folder's files, git's status and the database as they were); the sync after it does the
/// work, and the next one has nothing to do.
#[test]
fn sync_team_a_forget_after_the_carry_in_history_under_an_awkward_folder_name_dry_run_first()
-> anyhow::Result<()> {
    let root = TempDir::new("sync-team-forgotten-after-carry-awkward")?;
    let folder = "-de:sign r\u{e9}v/review memory";
    let (_a, mut b, stopped) = a_statement_at_a_pulled_over_a_carry_in(
        root.path(),
        (true, false, false, true),
        folder,
        false,
    )?;
    ensure!(
        stopped.contains("modify/delete"),
        "without renames the pull stops on modify/delete: {stopped}"
    );
    let (files, status, db) = (
        folder_lines(&b)?,
        git_ok(&b.clone, &["status", "--porcelain"])?,
        b.export()?,
    );
    let dry = b.sync_dry()?;
    ensure!(
        dry.lines()
            .any(|l| l.contains("forgotten after the carry") && l.contains("git history")),
        "the dry run says what the sync would do: {dry}"
    );
    ensure!(
        folder_lines(&b)? == files
            && git_ok(&b.clone, &["status", "--porcelain"])? == status
            && b.export()? == db,
        "the dry run changed nothing: {dry}"
    );
    let said = b.sync()?;
    let Some(ra) = art()["revision"].as_str().map(str::to_string) else {
        bail!("no revision");
    };
    let statement = vec![(ra, "bob: break the edge".to_string())];
    for (what, text) in [
        ("bob's folder", folder_lines(&b)?),
        ("bob's database", b.export()?),
    ] {
        ensure!(
            chamfers(&text, Some(true)).is_empty() && chamfers(&text, Some(false)) == statement,
            "{what}: chamfer forgotten, bob's statement in A's copy: {dry}{said}{text}"
        );
    }
    let conflict = |t: &str| {
        t.lines()
            .filter(|l| l.contains("forgotten after the carry"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    ensure!(
        conflict(&dry) == conflict(&said),
        "the dry run said what the sync did: {dry}\n---\n{said}"
    );
    let again = b.sync()?;
    ensure!(
        again.contains("imported into the database: 0 ")
            && again.contains("written to the folder: 0 ")
            && conflict(&again).is_empty(),
        "the next sync has nothing to do: {again}"
    );
    Ok(())
}

/// Regression (converge::a_restore_from_before_a_carry_whose_copy_was_forgotten_does_not_move_the_feature_back):
/// [`sync_team_a_statement_kept_against_a_forget_after_the_carry_is_what_a_says`] when Alice
/// also forgot what A says of "chamfer" (the carry's copy there) before she published: no copy
/// arrives with Bob's sync, only the carry's `carried` event, and sync asked git only when a
/// copy arrived, so Bob's statement stayed live at A, the revision carried past, in his
/// folder and database (and a restore of Alice's backup from before the carry took it
/// back). The carry's event arriving now asks git the same, and the deleting commit holding
/// that event's file says Alice knew the carry: the forget stands, Bob's statement is what A
/// says. Seen failing before the fix (chamfer live at A on both sides). Merge, rebase, and a
/// merge that pairs no renames.
#[test]
fn sync_team_a_forget_after_the_carry_with_its_copy_forgotten_too_stands() -> anyhow::Result<()> {
    for (rebase, renames) in [(false, true), (true, true), (false, false)] {
        let root = TempDir::new("sync-team-forgotten-copy-too")?;
        let (mut a, mut b, stopped) = a_statement_at_a_pulled_over_a_carry_in(
            root.path(),
            (true, rebase, renames, true),
            FOLDER,
            true,
        )?;
        let said = b.sync()?;
        let Some(ra) = art()["revision"].as_str().map(str::to_string) else {
            bail!("no revision");
        };
        let statement = vec![(ra, "bob: break the edge".to_string())];
        for (what, text) in [
            ("bob's folder", folder_lines(&b)?),
            ("bob's database", b.export()?),
        ] {
            ensure!(
                chamfers(&text, Some(true)).is_empty() && chamfers(&text, Some(false)) == statement,
                "rebase {rebase}, renames {renames}: {what}: chamfer forgotten, bob's statement \
                 what A says (pull: {stopped}): {said}{text}"
            );
        }
        b.commit("bob: settled")?;
        git_ok(&b.clone, &["push", "-q", "origin", "HEAD:main"])?;
        a.pull()?;
        a.sync()?;
        let again = b.sync()?;
        ensure!(
            again.contains("imported into the database: 0 ")
                && again.contains("written to the folder: 0 "),
            "rebase {rebase}, renames {renames}: bob's next sync has nothing to do: {again}"
        );
        for e in [&a, &b] {
            let text = e.export()?;
            ensure!(
                chamfers(&text, Some(true)).is_empty() && chamfers(&text, None) == statement,
                "rebase {rebase}, renames {renames}: {}: one state: {text}",
                e.db.display()
            );
        }
    }
    Ok(())
}

/// Revision B of the bracket in a file renamed for it (`bracket_revB.step`): a carry to it
/// moves the feature to another uri, its id kept.
fn renamed_rev_b() -> Value {
    artifact("bracket rev B", "/work/bracket_revB.step")
}

/// Alice states "bore" at A (`bracket.step`) and publishes; Bob pulls and syncs; Alice carries
/// it on to B in the file renamed for B ([`renamed_rev_b`]) and publishes.
fn bore_carried_to_a_renamed_file(root: &Path) -> anyhow::Result<(Engineer, Engineer)> {
    let (a, b) = bore_carried_unpushed(root)?;
    git_ok(&a.clone, &["push", "-q", "origin", "HEAD:main"])?;
    Ok((a, b))
}

/// [`bore_carried_to_a_renamed_file`], Alice's carry synced and committed, not pushed.
fn bore_carried_unpushed(root: &Path) -> anyhow::Result<(Engineer, Engineer)> {
    let (bare, mut a) = team_repository(root)?;
    a.remember("bore", "ream to size")?;
    a.publish("alice: first review")?;
    let mut b = Engineer::start(root, &bare, "bob")?;
    b.pull()?;
    b.sync()?;
    a.server
        .call(
            "carry_forward",
            json!({"from": art(), "to": renamed_rev_b(), "changed": [], "change": "ECO",
                   "map": []}),
        )?
        .ok()?;
    a.sync()?;
    a.commit("alice: carried to B, bracket_revB.step")?;
    Ok((a, b))
}

/// Checks that `text` (an export or the folder's lines) holds "bore" live at B in the renamed
/// file, carried, and its superseded copy at A in `bracket.step` noted `copy`, and nothing live
/// at A.
fn holds_the_renamed_carry(text: &str, copy: &str, what: &str) -> anyhow::Result<()> {
    let rev = |v: Value| v["revision"].as_str().unwrap_or_default().to_string();
    let (ra, rb) = (rev(art()), rev(renamed_rev_b()));
    let live = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v["record"].clone())
        .find(|r| r["name"] == "bore" && r.get("superseded").is_none_or(Value::is_null));
    ensure!(
        live.as_ref()
            .is_some_and(|r| r["artifact"]["revision"] == rb.as_str()
                && r["artifact"]["uri"] == "file:///work/bracket_revB.step"
                && r["carried"]["from"] == ra.as_str()),
        "{what}: bore is live at B in bracket_revB.step, carried from A: {text}"
    );
    ensure!(
        note_at(text, "bore", &ra, true).as_deref() == Some(copy)
            && note_at(text, "bore", &ra, false).is_none(),
        "{what}: the copy at A is kept ({copy:?}), nothing live there: {text}"
    );
    Ok(())
}

/// Regression (found by a trust review): a CAD file renamed per revision is carried on to the
/// next file (`bracket.step` at A to `bracket_revB.step` at B), which moves the feature's
/// uri, its id kept. Bob, who held the feature at A, pulled Alice's carry (a fast-forward) and
/// his sync refused it: "no review-mcp moves one to another ... part ... restore the file",
/// false, and following it would undo Alice's carry. Seen failing before the fix. The second
/// round: Bob stated "bore" again at A (later, not synced) before he pulled: his sync's own
/// three-way keeps the carry and his statement as what A says of the feature.
#[test]
fn sync_team_a_carry_to_a_renamed_file_is_synced_by_a_teammate() -> anyhow::Result<()> {
    for restated in [false, true] {
        let root = TempDir::new("sync-team-carry-renamed")?;
        let (mut a, mut b) = bore_carried_to_a_renamed_file(root.path())?;
        if restated {
            std::thread::sleep(std::time::Duration::from_millis(5));
            b.remember("bore", "bob: ream and deburr")?;
        }
        b.pull()?;
        let said = b.sync()?;
        let copy = match restated {
            true => "bob: ream and deburr",
            false => "ream to size",
        };
        for (what, text) in [
            ("bob's folder", folder_lines(&b)?),
            ("bob's database", b.export()?),
        ] {
            holds_the_renamed_carry(&text, copy, &format!("{what} ({said})"))?;
        }
        b.commit("bob: synced")?;
        git_ok(&b.clone, &["push", "-q", "origin", "HEAD:main"])?;
        a.pull()?;
        a.sync()?;
        holds_the_renamed_carry(&a.export()?, copy, "alice's database")?;
    }
    Ok(())
}

/// The same through the merge driver: Bob states "bore" again at A (later) and commits before
/// he pulls Alice's carry to the renamed file. The driver refused the pair ("no review-mcp
/// moves one to another ... part"), leaving the file to merge by hand. Now the carry stands
/// and Bob's statement is what A says of the feature (as for a carry within one file). Seen
/// failing before the fix.
#[test]
fn sync_team_a_carry_to_a_renamed_file_merges_over_a_statement_at_its_old_revision()
-> anyhow::Result<()> {
    let root = TempDir::new("sync-team-carry-renamed-merge")?;
    let (mut a, mut b) = bore_carried_to_a_renamed_file(root.path())?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.remember("bore", "bob: ream and deburr")?;
    b.sync()?;
    b.commit("bob: bore at A")?;
    b.pull()?;
    let said = b.sync()?;
    b.commit("bob: synced")?;
    for (what, text) in [
        ("bob's folder", folder_lines(&b)?),
        ("bob's database", b.export()?),
    ] {
        holds_the_renamed_carry(&text, "bob: ream and deburr", &format!("{what} ({said})"))?;
    }
    git_ok(&b.clone, &["push", "-q", "origin", "HEAD:main"])?;
    a.pull()?;
    a.sync()?;
    holds_the_renamed_carry(&a.export()?, "bob: ream and deburr", "alice's database")?;
    Ok(())
}

/// The carrier's side of the driver: Alice carries "bore" to the renamed file and commits;
/// Bob states it again at A and pushes first; Alice's pull hands the driver her carry as ours
/// (its key moved from the base's) and his statement as theirs. The carry stands in her work
/// tree, and every clone ends with Bob's statement as what A says of the feature. Seen failing
/// before the fix (the driver refused the pair).
#[test]
fn sync_team_a_carry_to_a_renamed_file_pulled_over_by_a_statement_stands() -> anyhow::Result<()> {
    let root = TempDir::new("sync-team-carry-renamed-carrier")?;
    let (mut a, mut b) = bore_carried_unpushed(root.path())?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.remember("bore", "bob: ream and deburr")?;
    b.publish("bob: bore at A")?;
    a.pull()?;
    let merged = folder_lines(&a)?;
    let ra = art()["revision"].as_str().unwrap_or_default().to_string();
    ensure!(
        note_at(&merged, "bore", &ra, false).is_none(),
        "the pull left bore live at A, a revision the carry moved it on from: {merged}"
    );
    a.publish("alice: merged")?;
    b.pull()?;
    b.publish("bob: synced")?;
    a.pull()?;
    a.sync()?;
    for (what, text) in [
        ("alice's database", a.export()?),
        ("bob's database", b.export()?),
        ("bob's folder", folder_lines(&b)?),
    ] {
        holds_the_renamed_carry(
            &text,
            "bob: ream and deburr",
            &format!("{what} ({})", b.said),
        )?;
    }
    Ok(())
}

/// `import` of the carrier's export into a database that holds the feature at A: the carried
/// version to the renamed file is the feature's next version, not "an id names one feature".
/// Seen failing before the fix.
#[test]
fn import_of_a_carry_to_a_renamed_file_takes_the_carry() -> anyhow::Result<()> {
    let root = TempDir::new("import-carry-renamed")?;
    let (a, b) = bore_carried_to_a_renamed_file(root.path())?;
    let lines = a.export()?;
    let bobs = b.export()?;
    // The same move without the carry's mark (the uri edited by hand) is refused, as before.
    let unmarked: String = lines
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap_or_default();
            if let Some(r) = v.get_mut("record").and_then(Value::as_object_mut) {
                r.remove("carried");
            }
            format!("{v}\n")
        })
        .collect();
    let refused = b.import(&root.join("alice.jsonl"), &unmarked)?;
    let said = String::from_utf8_lossy(&refused.stderr);
    ensure!(
        !refused.status.success() && said.contains("an id names one record"),
        "an id moved to another file without a carry's mark is refused: {said}"
    );
    b.import_ok(
        &root.join("alice.jsonl"),
        &lines,
        "bob imports alice's export",
    )?;
    holds_the_renamed_carry(&b.export()?, "ream to size", "bob's database")?;
    // The other way: Alice imports Bob's export (bore at A, before the carry): the carry
    // stands, and A's statement is its copy there.
    a.import_ok(&root.join("bob.jsonl"), &bobs, "alice imports bob's export")?;
    holds_the_renamed_carry(&a.export()?, "ream to size", "alice's database")?;
    Ok(())
}

/// [`bore_carried_unpushed`], then Alice states "bore" again at B and carries it on to C in
/// the file renamed for C (`bracket_revC.step`: its mark names B) and publishes both carries.
/// Returns revision C with the two engineers.
fn bore_carried_twice(root: &Path) -> anyhow::Result<(Engineer, Engineer, Value)> {
    let (mut a, b) = bore_carried_unpushed(root)?;
    a.remember_at(&renamed_rev_b(), "bore", "alice: at B")?;
    let rev_c = artifact("bracket rev C", "/work/bracket_revC.step");
    carry(&mut a, &renamed_rev_b(), &rev_c)?;
    a.publish("alice: carried on to C, bracket_revC.step")?;
    Ok((a, b, rev_c))
}

/// Regression (adv7, known defect until carryrules): the renamed-file carry was accepted only
/// when the pulled version's mark named the revision the teammate holds (or its origin,
/// carried unchanged). Alice carries "bore" from A (`bracket.step`) to B
/// (`bracket_revB.step`), states it again at B, and carries it on to C (`bracket_revC.step`):
/// the mark at C names B. Bob, who synced A and pulls both carries at once, had his sync
/// refused ("no review-mcp moves one to another ... part ... restore the file"), false, and
/// following it undid Alice's carries; import refused Alice's export the same way. Now each
/// link of the chain is shown by the feature's superseded copy (or the carry's event) and the
/// pair is one feature. Seen failing before the fix.
#[test]
fn sync_team_two_carries_to_renamed_files_restated_between_reach_a_teammate_at_the_first()
-> anyhow::Result<()> {
    let root = TempDir::new("sync-team-two-renamed-carries")?;
    let (a, mut b, rev_c) = bore_carried_twice(root.path())?;
    // Import into a copy of Bob's database as it stood, the sync into his own.
    let copy = root.path().join("bob-copy.db");
    std::fs::copy(&b.db, &copy)?;
    let export = root.path().join("alice.jsonl");
    std::fs::write(&export, a.export()?)?;
    let imported = run(Command::new(binary())
        .arg("--db")
        .arg(&copy)
        .arg("import")
        .arg(&export)
        .env("MCP_LOG_LEVEL", "warn"))?;
    b.pull()?;
    let said = b.sync();
    let rc = rev_c["revision"].as_str().unwrap_or_default();
    ensure!(
        imported.status.success(),
        "bob imports alice's export: {}",
        String::from_utf8_lossy(&imported.stderr)
    );
    ensure!(
        said.is_ok() && note_at(&b.export()?, "bore", rc, false).as_deref() == Some("alice: at B"),
        "bob's sync takes alice's two carries: {said:?}"
    );
    Ok(())
}

/// Regression (adv7, known defect until carryrules): Bob states "bore" at B in the renamed
/// file (`bracket_revB.step`, his own id) before he imports Alice's export, which carried her
/// "bore" there from A (`bracket.step`). Sync settles the same pair as one feature under two
/// ids (the later kept, A's statement its copy); import refused the whole file: "the id is
/// already held by another record (feature \"bore\" at file:///work/bracket.step) ...; give
/// the line a new id", advice that would cut Alice's carry from its feature. Seen failing
/// before the fix.
#[test]
fn import_of_a_carry_to_a_renamed_file_meeting_a_statement_there_is_settled_as_sync_does()
-> anyhow::Result<()> {
    let root = TempDir::new("import-carry-renamed-stated-there")?;
    let (a, b) = bob_states_bore_at_b_after_the_carry(root.path())?;
    b.import_ok(
        &root.path().join("alice.jsonl"),
        &a.export()?,
        "bob imports alice's export",
    )?;
    holds_the_renamed_carry_or_later(&b.export()?)
}

/// The merge driver's side of the chain (carryrules): Bob states "bore" again at A (later)
/// and commits before he pulls Alice's two carries (A to B, stated at B, B to C, each to a
/// file renamed for its revision). The driver refused the pair ("no review-mcp moves one to
/// another ... part"), leaving the file to merge by hand: the mark at C names B, and only the
/// copy at A (in Alice's commit) says A was carried on to B. Now it follows the copies on
/// either side: the carry stands at C, and Bob's statement is what A says. Seen failing
/// before the fix.
#[test]
fn sync_team_two_carries_to_renamed_files_merge_over_a_statement_at_the_first() -> anyhow::Result<()>
{
    let root = TempDir::new("sync-team-two-renamed-carries-merge")?;
    let (_a, mut b, rev_c) = bore_carried_twice(root.path())?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    b.remember("bore", "bob: ream and deburr")?;
    b.sync()?;
    b.commit("bob: bore at A")?;
    b.pull()?;
    let said = b.sync()?;
    b.commit("bob: synced")?;
    bore_live_at_c_alone(&b, &rev_c, Some("bob: ream and deburr"), &said)
}

/// Checks that Bob's folder and database hold "bore" live at C alone, as Alice stated it at B
/// ([`bore_carried_twice`]), and, when `copy_at_a` is given, its copy at A so noted.
fn bore_live_at_c_alone(
    b: &Engineer,
    rev_c: &Value,
    copy_at_a: Option<&str>,
    said: &str,
) -> anyhow::Result<()> {
    let rev = |v: &Value| v["revision"].as_str().unwrap_or_default().to_string();
    let (ra, rb, rc) = (rev(&art()), rev(&renamed_rev_b()), rev(rev_c));
    for (what, text) in [
        ("bob's folder", folder_lines(b)?),
        ("bob's database", b.export()?),
    ] {
        ensure!(
            note_at(&text, "bore", &rc, false).as_deref() == Some("alice: at B")
                && note_at(&text, "bore", &ra, false).is_none()
                && note_at(&text, "bore", &rb, false).is_none()
                && copy_at_a
                    .is_none_or(|c| note_at(&text, "bore", &ra, true).as_deref() == Some(c)),
            "{what} ({said}): bore live at C alone, its copy at A noted {copy_at_a:?}: {text}"
        );
    }
    Ok(())
}

/// Sync's conflict path across the chain of carries to renamed files ([`bore_carried_twice`]:
/// A to B, stated at B, B to C, each file renamed for its revision), both sides changed since
/// Bob's last sync (at A). Bob, before he pulls, either states "bore" again at A, a version one
/// with the folder's only by the chain (which sync then reads, `merge::asks_carries`), or
/// carries it on to B himself, one with it by the marks alone (the chain not read): either
/// way the carry stands at C, and nothing is live where it was carried from.
#[test]
fn sync_team_a_conflict_across_two_carries_to_renamed_files_keeps_the_carry() -> anyhow::Result<()>
{
    for bob_carries in [false, true] {
        let root = TempDir::new("sync-team-conflict-two-renamed-carries")?;
        let (_a, mut b, rev_c) = bore_carried_twice(root.path())?;
        std::thread::sleep(std::time::Duration::from_millis(5));
        match bob_carries {
            true => carry(&mut b, &art(), &renamed_rev_b())?,
            false => drop(b.remember("bore", "bob: ream and deburr")?),
        }
        b.pull()?;
        let said = b.sync()?;
        let copy_at_a = (!bob_carries).then_some("bob: ream and deburr");
        bore_live_at_c_alone(
            &b,
            &rev_c,
            copy_at_a,
            &format!("bob carries: {bob_carries}; {said}"),
        )?;
    }
    Ok(())
}

/// Sync's side of the import case below (carryrules, the mirror): Bob states "bore" at B in
/// the renamed file under his own id, later than Alice's carry of her "bore" there, then pulls
/// the carry and syncs: one feature under two ids at B, the later (Bob's) kept, A's statement
/// its copy, as import now settles it too.
#[test]
fn sync_team_a_carry_to_a_renamed_file_meeting_a_statement_there_keeps_the_later()
-> anyhow::Result<()> {
    let root = TempDir::new("sync-carry-renamed-stated-there")?;
    let (_a, mut b) = bob_states_bore_at_b_after_the_carry(root.path())?;
    b.pull()?;
    let said = b.sync()?;
    holds_the_renamed_carry_or_later(&b.export()?)
        .with_context(|| format!("bob's sync: {said}"))?;
    holds_the_renamed_carry_or_later(&folder_lines(&b)?)
}

/// [`bore_carried_to_a_renamed_file`], then Bob, not having pulled it, states "bore" at B in
/// the renamed file under his own id (later).
fn bob_states_bore_at_b_after_the_carry(root: &Path) -> anyhow::Result<(Engineer, Engineer)> {
    let (a, mut b) = bore_carried_to_a_renamed_file(root)?;
    b.remember_at(&renamed_rev_b(), "bore", "bob: at B")?;
    Ok((a, b))
}

/// Bob's later "bore" at B in the renamed file is the one live there, and A's copy is kept.
fn holds_the_renamed_carry_or_later(text: &str) -> anyhow::Result<()> {
    let rev = |v: Value| v["revision"].as_str().unwrap_or_default().to_string();
    let (ra, rb) = (rev(art()), rev(renamed_rev_b()));
    ensure!(
        note_at(text, "bore", &rb, false).as_deref() == Some("bob: at B")
            && note_at(text, "bore", &ra, false).is_none()
            && note_at(text, "bore", &ra, true).as_deref() == Some("ream to size"),
        "bob's later statement at B is live, A's kept as its copy: {text}"
    );
    Ok(())
}

/// Each engineer in turn pulls and publishes.
fn settle(team: &mut [&mut Engineer]) -> anyhow::Result<()> {
    for e in team.iter_mut() {
        e.pull()?;
        e.publish("settle")?;
    }
    Ok(())
}

/// The engineer forgets the decision of [`Engineer::decide`] and publishes.
fn forget_decision(e: &mut Engineer, message: &str) -> anyhow::Result<()> {
    e.server
        .call("forget", json!({"artifact": art(), "subject": "bracket"}))?
        .ok()?;
    e.publish(message)
}

/// Every engineer of `team` holds `want` ([`Held`]).
fn all_hold(team: &[&Engineer], want: &Held, what: &str) -> anyhow::Result<()> {
    let held = dispositions(team)?;
    ensure!(held.iter().all(|d| d == want), "{what}: {held:?}");
    Ok(())
}

/// One clone's decisions, as exported: (disposition, the `at` of the engineer's verdict on
/// flatness, if any).
type Held = Vec<(String, Option<String>)>;

/// Each engineer's decisions ([`Held`]).
fn dispositions(team: &[&Engineer]) -> anyhow::Result<Vec<Held>> {
    team.iter()
        .map(|e| {
            Ok(e.export()?
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter_map(|mut l| l.get_mut("decision").map(Value::take))
                .map(|d| {
                    let v = &d["basis"][1]["verdict"];
                    let engineer = v["via"] == "app";
                    (
                        d["disposition"].as_str().unwrap_or_default().to_string(),
                        v["at"].as_str().filter(|_| engineer).map(str::to_string),
                    )
                })
                .collect())
        })
        .collect()
}

/// Alice's decision, taken by Bob and Carol; Alice's engineer then rejects flatness (`at`).
fn a_decision_bob_and_carol_hold(
    root: &Path,
) -> anyhow::Result<(Engineer, Engineer, Engineer, String)> {
    let (bare, mut a) = team_repository(root)?;
    let id = a.decide("hold", None)?["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    a.publish("alice: hold")?;
    let mut b = Engineer::start(root, &bare, "bob")?;
    let mut c = Engineer::start(root, &bare, "carol")?;
    b.sync()?;
    c.sync()?;
    Ok((a, b, c, id))
}

/// The rule settled by `converge::seed16679` (docs/command-line.md, "A forget and an engineer's
/// verdict"): a forget deletes the versions its clone held. Alice's engineer rejects flatness
/// and does not sync; Carol restates the decision and publishes; Bob, who never saw the
/// verdict, forgets Carol's version: Alice's sync keeps her judged version against that
/// deletion, and it reaches the team, verdict and all.
#[test]
fn sync_team_a_forget_of_a_version_without_the_verdict_does_not_drop_it() -> anyhow::Result<()> {
    let root = TempDir::new("team-forget-unjudged")?;
    let (mut a, mut b, mut c, id) = a_decision_bob_and_carol_hold(root.path())?;
    let at = reject_flatness(&a.db, &id)?;
    c.decide("release", None)?;
    c.publish("carol: release")?;
    b.pull()?;
    b.sync()?;
    forget_decision(&mut b, "bob: forgot carol's release")?;
    a.pull()?;
    a.publish("alice: flatness rejected")?;
    settle(&mut [&mut b, &mut c])?;
    all_hold(
        &[&a, &b, &c],
        &vec![("hold".to_string(), Some(at))],
        "every clone holds alice's judged decision",
    )
}

/// Seed 16679 with real git: Bob, who held Alice's engineer verdict, forgets the decision;
/// Carol, who never saw the verdict, restates it, and her change is kept against that forget
/// without the verdict. Alice's database is a backup from before the verdict, her working
/// copy still at the judged version: her pull is git's (her side of the file unchanged since
/// the merge base: Carol's file, no driver run), and her sync brings no verdict back (none of
/// her sides holds it). Bob forgets Carol's version: the decision is gone from every clone.
/// The verdict stays in git's history: the judged version's file, on one line, imported,
/// brings it back.
#[test]
fn sync_team_a_verdict_forgotten_by_a_clone_that_held_it_stays_forgotten() -> anyhow::Result<()> {
    let root = TempDir::new("team-forget-judged")?;
    let (mut a, mut b, mut c, id) = a_decision_bob_and_carol_hold(root.path())?;
    let backup = a.backup()?;
    let at = reject_flatness(&a.db, &id)?;
    a.publish("alice: flatness rejected")?;
    b.pull()?;
    b.sync()?;
    let judged = vec![("hold".to_string(), Some(at.clone()))];
    all_hold(&[&b], &judged, "bob holds the verdict he forgets")?;
    forget_decision(&mut b, "bob: forgot the judged decision")?;
    c.decide("rework", None)?;
    c.pull()?;
    c.publish("carol: rework")?;
    // Alice's server stopped, her database replaced by the backup (docs/database.md).
    a.server = Server::start_as(&root.path().join("idle.db"), "alice")?;
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", a.db.display()));
    }
    std::fs::copy(&backup, &a.db)?;
    a.server = Server::start_as(&a.db, "alice")?;
    a.pull()?;
    a.publish("alice: restored")?;
    b.pull()?;
    b.sync()?;
    all_hold(
        &[&a, &b, &c],
        &vec![("rework".to_string(), None)],
        "every clone holds carol's restatement, without the verdict bob forgot",
    )?;
    forget_decision(&mut b, "bob: forgot carol's rework")?;
    settle(&mut [&mut a, &mut c, &mut b])?;
    all_hold(
        &[&a, &b, &c],
        &vec![],
        "the decision is forgotten everywhere",
    )?;
    // The verdict stays in git's history: the judged version's file, imported, brings it back.
    let commits = git_ok(&a.clone, &["log", "--format=%H", "-S", &at, "--", FOLDER])?;
    let first = commits.lines().last().unwrap_or_default();
    let file = git_ok(
        &a.clone,
        &["show", &format!("{first}:{FOLDER}/decisions/{id}.json")],
    )?;
    let line = serde_json::from_str::<Value>(&file)?.to_string() + "\n";
    c.import_ok(&root.path().join("judged.jsonl"), &line, "import")?;
    all_hold(
        &[&c],
        &judged,
        "the judged version from git's history, imported",
    )
}
