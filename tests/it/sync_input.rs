//! The synced folder as untrusted input (issue 23, items 5, 6, 7 and 9): an assistant's
//! verdict arriving from the folder (or from a git merge) never replaces an engineer's, and
//! every engineer verdict the folder brings is reported; sync never follows a symbolic link
//! in the folder, for reading or writing; only regular files are read, each bounded, and
//! nothing blocks; what a folder file holds reaches the terminal with its control characters
//! escaped. Every run of the binary here has a time limit and a memory limit, so a
//! regression fails the test instead of hanging it or exhausting the machine.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure};
use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::client::binary;

const REV: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
const T1: &str = "2026-01-01T00:00:00.000Z";
const T2: &str = "2026-01-02T00:00:00.000Z";
const T3: &str = "2026-01-03T00:00:00.000Z";

/// How long one run of the binary may take here: a hang fails, a loaded machine does not
/// (reading 256 MiB of the folder took over 20 s in a debug build at a load average of 8).
const LIMIT: Duration = Duration::from_secs(60);

/// Runs `review-mcp --db DB ARGS` with at most 1 GiB of address space and [`LIMIT`] of time
/// (killed after), its stdin an open pipe nobody writes to. `Err` when it had to be killed.
fn review_mcp(db: &Path, args: &[&str]) -> anyhow::Result<Output> {
    // `merge-file` opens no database, and refuses `--db`.
    let db_flag: Vec<&std::ffi::OsStr> = if args.first() == Some(&"merge-file") {
        vec![]
    } else {
        vec!["--db".as_ref(), db.as_os_str()]
    };
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576; exec \"$@\"")
        .arg("sh")
        .arg(binary())
        .args(db_flag)
        .args(args)
        .env("MCP_LOG_LEVEL", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdin = child.stdin.take();
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut b);
        }
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_end(&mut b);
        }
        b
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() > LIMIT {
            child.kill()?;
            child.wait()?;
            drop(stdin);
            bail!("review-mcp {args:?} did not finish in {LIMIT:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(stdin);
    Ok(Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    })
}

fn ok(out: Output) -> anyhow::Result<String> {
    ensure!(
        out.status.success(),
        "failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub(crate) fn refused(out: Output) -> anyhow::Result<String> {
    ensure!(
        !out.status.success(),
        "succeeded: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    Ok(String::from_utf8_lossy(&out.stderr).into_owned())
}

fn verdict(judgement: &str, via: &str, at: &str, author: Option<&str>) -> Value {
    let mut v = json!({"judgement": judgement, "via": via, "at": at});
    if let Some(a) = author {
        v["author"] = json!(a);
    }
    v
}

/// A decision `dec_1` whose basis items are (requirement, verdict).
fn decision(updated: &str, disposition: &str, basis: &[(&str, Option<Value>)]) -> Value {
    let basis: Vec<Value> = basis
        .iter()
        .map(|(req, v)| {
            let mut item =
                json!({"requirement": req, "source": "drawing", "state": "satisfied", "faces": []});
            if let Some(v) = v {
                item["verdict"] = v.clone();
            }
            item
        })
        .collect();
    json!({"decision": {
        "id": "dec_1", "subject": "bracket", "disposition": disposition, "basis": basis,
        "artifact": {"revision": REV, "format": "step", "uri": "file:///w/p.step"},
        "created_at": T1, "updated_at": updated
    }})
}

/// [`decision`] of one item, "Bore 10 H7", with verdict `v`.
fn bore(updated: &str, disposition: &str, v: Value) -> Value {
    decision(updated, disposition, &[("Bore 10 H7", Some(v))])
}

fn feature(id: &str, name: &str, author: Option<&str>, updated: &str) -> Value {
    let mut r = json!({"record": {
        "id": id, "kind": "feature", "name": name, "note": "n", "tags": [], "entity_ids": [],
        "id_scheme": "opaque",
        "artifact": {"revision": REV, "format": "step", "uri": "file:///w/p.step"},
        "created_at": T1, "updated_at": updated
    }});
    if let Some(a) = author {
        r["record"]["author"] = json!(a);
    }
    r
}

/// The file text sync writes for an item.
fn pretty(v: &Value) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(v)? + "\n")
}

fn import(dir: &TempDir, db: &Path, lines: &[Value]) -> anyhow::Result<()> {
    let file = dir.join("import.jsonl");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&file, text.join("\n") + "\n")?;
    ok(review_mcp(db, &["import", &file.to_string_lossy()])?)?;
    Ok(())
}

/// The decisions of the database's export, as JSON.
fn exported_decision(db: &Path) -> anyhow::Result<Value> {
    let text = ok(review_mcp(db, &["export"])?)?;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line)?;
        if v.get("decision").is_some() {
            return Ok(v);
        }
    }
    bail!("no decision exported: {text}")
}

fn first_verdict(v: &Value) -> (String, String) {
    let d = v.get("decision").unwrap_or(v);
    let verdict = &d["basis"][0]["verdict"];
    (
        verdict["judgement"].as_str().unwrap_or("").to_string(),
        verdict["via"].as_str().unwrap_or("").to_string(),
    )
}

/// The summary's counts, the dry run's "would be " taken off.
fn counts(out: &str) -> Vec<String> {
    out.lines()
        .map(|l| l.trim_start_matches("would be ").to_string())
        .filter(|l| {
            ["written", "imported", "deleted", "conflicts"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .collect()
}

fn sync(db: &Path, folder: &Path) -> anyhow::Result<Output> {
    review_mcp(db, &["sync", &folder.to_string_lossy()])
}

/// `sync --dry-run DIR`, then `sync DIR`: each run's arguments and output.
fn dry_run_then_sync(db: &Path, folder: &Path) -> anyhow::Result<Vec<(&'static str, Output)>> {
    let f = folder.to_string_lossy();
    Ok(vec![
        (
            "sync --dry-run",
            review_mcp(db, &["sync", "--dry-run", &f])?,
        ),
        ("sync", review_mcp(db, &["sync", &f])?),
    ])
}

/// `review-mcp merge-file BASE OURS THEIRS`.
fn merge_file(db: &Path, base: &Path, ours: &Path, theirs: &Path) -> anyhow::Result<Output> {
    review_mcp(
        db,
        &[
            "merge-file",
            &base.to_string_lossy(),
            &ours.to_string_lossy(),
            &theirs.to_string_lossy(),
        ],
    )
}

/// Turns every verdict in the database `db` into the assistant's acceptance given at `at`, as
/// an import of an older version wrote a line over the engineer's verdicts.
fn assistant_verdict_by_hand(db: &Path, at: &str) -> anyhow::Result<()> {
    let conn = rusqlite::Connection::open(db)?;
    conn.execute(
        "UPDATE basis_items SET verdict_judgement = 'accepted', verdict_via = 'assistant', \
         verdict_at = ?1, verdict_author = 'Bob', verdict_reason = NULL, verdict_meaning = NULL \
         WHERE verdict_judgement IS NOT NULL",
        [at],
    )?;
    Ok(())
}

/// Writes `base`, `ours` and `theirs` in `dir` with these texts and runs `merge-file` on
/// them: its output, and the path of OURS (where the merge leaves its result).
fn merge_texts(dir: &TempDir, texts: [&[u8]; 3]) -> anyhow::Result<(Output, PathBuf)> {
    let [base, ours, theirs] = ["base", "ours", "theirs"].map(|n| dir.join(n));
    for (path, text) in [&base, &ours, &theirs].into_iter().zip(texts) {
        std::fs::write(path, text)?;
    }
    let out = merge_file(&dir.join("unused.db"), &base, &ours, &theirs)?;
    Ok((out, ours))
}

/// Regression (item 5): a one-sided change of a synced decision that turns the engineer's
/// rejection (via app) into the assistant's acceptance, from the folder (a hand edit, a
/// teammate's commit) or from the database, keeps the engineer's verdict and is a conflict;
/// every engineer verdict that arrives from the folder is reported, naming who and where.
#[test]
fn sync_never_lets_an_assistant_verdict_replace_the_engineers() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-outrank")?;
    let db = dir.join("a.db");
    let engineer = Some(verdict("rejected", "app", T1, Some("Ada")));
    import(
        &dir,
        &db,
        &[decision(T1, "hold", &[("Bore 10 H7", engineer.clone())])],
    )?;
    let folder = dir.join("review");
    let first = ok(sync(&db, &folder)?)?;
    assert!(
        !first.contains("engineer verdict from the folder"),
        "nothing arrived from the folder: {first}"
    );
    let file = folder.join("decisions/dec_1.json");

    // The folder turns it into the assistant's acceptance (and changes the disposition).
    let assistant = Some(verdict("accepted", "assistant", T2, Some("Bob")));
    std::fs::write(
        &file,
        pretty(&decision(
            T2,
            "release",
            &[("Bore 10 H7", assistant.clone())],
        ))?,
    )?;
    let plan = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    assert!(
        plan.contains("never replaces an engineer's") && plan.contains("conflicts: 1"),
        "the dry run says so: {plan}"
    );
    let out = ok(sync(&db, &folder)?)?;
    assert_eq!(
        counts(&plan),
        counts(&out),
        "the plan counts what the sync does"
    );
    assert!(
        out.contains("conflict: decision dec_1 changed in the folder only")
            && out.contains("never replaces an engineer's")
            && out.contains("\"Bore 10 H7\" (rejected via app by Ada")
            && out.contains("conflicts: 1"),
        "{out}"
    );
    let stored = exported_decision(&db)?;
    assert_eq!(first_verdict(&stored), ("rejected".into(), "app".into()));
    assert_eq!(
        stored["decision"]["disposition"], "release",
        "the rest is taken"
    );
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&file)?)?;
    assert_eq!(
        first_verdict(&on_disk),
        ("rejected".into(), "app".into()),
        "the folder is corrected too"
    );
    let again = ok(sync(&db, &folder)?)?;
    assert!(again.contains("conflicts: 0"), "settled: {again}");

    // The same from the database side. An import no longer takes the engineer's verdict
    // away (it outranks the line's assistant's, as here); an older version's import replaced
    // the row as it is, which the file is made to hold by hand.
    import(
        &dir,
        &db,
        &[decision(T3, "rework", &[("Bore 10 H7", assistant.clone())])],
    )?;
    assert_eq!(
        first_verdict(&exported_decision(&db)?),
        ("rejected".into(), "app".into()),
        "the import keeps the engineer's verdict"
    );
    assistant_verdict_by_hand(&db, T3)?;
    let plan = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    let out = ok(sync(&db, &folder)?)?;
    assert_eq!(
        counts(&plan),
        counts(&out),
        "the plan counts what the sync does"
    );
    assert!(
        out.contains("conflict: decision dec_1 changed in the database only")
            && out.contains("never replaces an engineer's"),
        "{out}"
    );
    assert_eq!(
        first_verdict(&exported_decision(&db)?),
        ("rejected".into(), "app".into())
    );
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&file)?)?;
    assert_eq!(first_verdict(&on_disk), ("rejected".into(), "app".into()));
    assert_eq!(on_disk["decision"]["disposition"], "rework");

    // Deleted in the folder while the database replaced the engineer's verdict: kept, and the
    // engineer's verdict stands; the plan says what the sync then does.
    std::fs::remove_file(&file)?;
    import(
        &dir,
        &db,
        &[decision(
            "2026-01-03T12:00:00.000Z",
            "scrap",
            &[("Bore 10 H7", assistant.clone())],
        )],
    )?;
    assistant_verdict_by_hand(&db, "2026-01-03T12:00:00.000Z")?;
    let plan = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    let out = ok(sync(&db, &folder)?)?;
    assert_eq!(counts(&plan), counts(&out), "{plan}\n{out}");
    assert!(
        out.contains("was deleted in the folder but changed in the database")
            && out.contains("never replaces an engineer's")
            && out.contains("conflicts: 2"),
        "{out}"
    );
    assert_eq!(
        first_verdict(&exported_decision(&db)?),
        ("rejected".into(), "app".into())
    );
    let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&file)?)?;
    assert_eq!(first_verdict(&on_disk), ("rejected".into(), "app".into()));

    // An engineer's verdict written into the folder is taken (the folder is the team's) and
    // reported, naming the decision, the requirement and who.
    let text = std::fs::read_to_string(&file)?;
    let mut v: Value = serde_json::from_str(&text)?;
    v["decision"]["updated_at"] = json!("2026-01-04T00:00:00.000Z");
    if let Some(basis) = v["decision"]["basis"].as_array_mut() {
        basis.push(json!({"requirement": "Wall 2 mm", "source": "drawing",
            "state": "satisfied", "faces": [],
            "verdict": verdict("accepted", "elicitation", T3, Some("Mallory"))}));
    }
    std::fs::write(&file, pretty(&v)?)?;
    let out = ok(sync(&db, &folder)?)?;
    assert!(
        out.contains(
            "engineer verdict from the folder: decision dec_1 \"Wall 2 mm\": accepted via elicitation by Mallory"
        ) && out.contains("taken from the folder: 1 engineer verdict (the folder is unsigned")
            && out.contains("conflicts: 0"),
        "{out}"
    );
    assert!(
        !out.contains("\"Bore 10 H7\""),
        "a verdict the database held is not news: {out}"
    );
    Ok(())
}

/// Regression (item 5): `merge-file` applies the same rule to a side changed alone.
#[test]
fn merge_file_never_lets_an_assistant_verdict_replace_the_engineers() -> anyhow::Result<()> {
    let dir = TempDir::new("merge-outrank")?;
    let base_v = pretty(&bore(
        T1,
        "hold",
        verdict("rejected", "app", T1, Some("Ada")),
    ))?;
    let changed = pretty(&bore(
        T2,
        "release",
        verdict("accepted", "assistant", T2, None),
    ))?;
    for (ours_v, theirs_v) in [(&base_v, &changed), (&changed, &base_v)] {
        let (out, ours) = merge_texts(
            &dir,
            [base_v.as_bytes(), ours_v.as_bytes(), theirs_v.as_bytes()],
        )?;
        ensure!(out.status.success(), "{out:?}");
        let merged: Value = serde_json::from_str(&std::fs::read_to_string(&ours)?)?;
        assert_eq!(first_verdict(&merged), ("rejected".into(), "app".into()));
        assert_eq!(merged["decision"]["disposition"], "release");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("never replaces an engineer's"), "{err}");
    }
    Ok(())
}

/// Regression: two clones each gave the engineer's verdict on one item of a carried decision
/// (the verdict labels the item's evidence with the revision it was quoted at); `merge-file`
/// took the earlier clone's verdict into the later version, where that item was still
/// carried, and cleared the marker without the label, so the old revision's evidence read as
/// this revision's result. The merged item now says it, as the verdict given there did.
#[test]
fn merge_file_labels_the_evidence_of_a_carried_item_it_takes_a_verdict_into() -> anyhow::Result<()>
{
    let dir = TempDir::new("merge-carried-evidence")?;
    let from = REV.replace('0', "1");
    let there = format!("at revision {}…: 10.01 measured", &from[..19]);
    let carried = json!({"requirement": "Bore 10 H7", "source": "drawing", "state": "satisfied",
        "faces": [], "evidence": "10.01 measured",
        "carried": {"from": from, "state": "inherited"}});
    let judged = json!({"requirement": "Bore 10 H7", "source": "drawing", "state": "satisfied",
        "faces": [], "evidence": there, "verdict": verdict("accepted", "app", T2, Some("Ada"))});
    let version = |updated: &str, bore: &Value, wall: Option<Value>| {
        let mut d = decision(updated, "carried", &[("Wall 2 mm", wall)]);
        if let Some(basis) = d["decision"]["basis"].as_array_mut() {
            basis.insert(0, bore.clone());
        }
        d
    };
    let base = version(T1, &carried, None);
    let bore_judged = version(T2, &judged, None);
    let wall_judged = version(
        T3,
        &carried,
        Some(verdict("rejected", "app", T3, Some("Bob"))),
    );
    for merged in merged_both_ways(&dir, &base, &bore_judged, &wall_judged)? {
        let merged: Value = serde_json::from_str(&merged)?;
        let bore = &merged["decision"]["basis"][0];
        assert_eq!(first_verdict(&merged), ("accepted".into(), "app".into()));
        assert!(bore.get("carried").is_none(), "{bore}");
        assert_eq!(bore["evidence"], json!(there), "{bore}");
        assert_eq!(merged["decision"]["basis"][1]["verdict"]["via"], "app");
    }
    Ok(())
}

/// Runs `merge-file` on `base` and versions `a` and `b` in `dir`, each as "ours" in turn: the
/// two merged texts (what git commits), `a` as ours first.
fn merged_both_ways(
    dir: &TempDir,
    base: &Value,
    a: &Value,
    b: &Value,
) -> anyhow::Result<Vec<String>> {
    let mut merged = Vec::new();
    for (ours_v, theirs_v) in [(a, b), (b, a)] {
        let texts = [base, ours_v, theirs_v].map(pretty);
        let [base_t, ours_t, theirs_t] = texts;
        let (out, ours) = merge_texts(
            dir,
            [base_t?.as_bytes(), ours_t?.as_bytes(), theirs_t?.as_bytes()],
        )?;
        ensure!(out.status.success(), "{out:?}");
        merged.push(std::fs::read_to_string(&ours)?);
    }
    Ok(merged)
}

/// Regression: `record_verdict` counts a carried decision's items to re-verify again when the
/// engineer judges one ("… 1 of 2 basis items to re-verify"), but `merge-file`, taking one
/// clone's verdict into the other's version where that item was still carried, kept the
/// version's count: the merged decision said 1 of 2 with none left to re-verify. It now counts
/// them again, and both clones write the same file whichever side is theirs.
#[test]
fn merge_file_recounts_the_carried_disposition_of_an_item_it_takes_a_verdict_into()
-> anyhow::Result<()> {
    let dir = TempDir::new("merge-carried-recount")?;
    let from = REV.replace('0', "1");
    let left = |n: usize| {
        format!(
            "carried from revision {}…: {n} of 2 basis items to re-verify",
            &from[..19]
        )
    };
    let item = |requirement: &str, judged: Option<(&str, &str)>| {
        let mut i = json!({"requirement": requirement, "source": "drawing",
            "state": "satisfied", "faces": []});
        match judged {
            Some((at, who)) => i["verdict"] = verdict("accepted", "app", at, Some(who)),
            None => i["carried"] = json!({"from": from, "state": "re-verify"}),
        }
        i
    };
    let version = |updated: &str, bore: Option<(&str, &str)>, wall: Option<(&str, &str)>| {
        let to_verify = usize::from(bore.is_none()) + usize::from(wall.is_none());
        let mut d = decision(updated, &left(to_verify), &[]);
        d["decision"]["basis"] = json!([item("Bore 10 H7", bore), item("Wall 2 mm", wall)]);
        d["decision"]["carried"] = json!({"from": from, "source": "dec_0", "disposition": "hold"});
        d
    };
    let base = version(T1, None, None);
    let bore_judged = version(T2, Some((T2, "Ada")), None);
    let wall_judged = version(T3, None, Some((T3, "Bob")));
    let merged = merged_both_ways(&dir, &base, &bore_judged, &wall_judged)?;
    for text in &merged {
        let m: Value = serde_json::from_str(text)?;
        assert_eq!(m["decision"]["disposition"], json!(left(0)), "{m}");
        assert!(m["decision"]["basis"][0].get("carried").is_none(), "{m}");
    }
    assert_eq!(merged[0], merged[1], "each clone writes the same file");
    Ok(())
}

/// A database with one decision, synced once to `DIR/review`.
fn synced(dir: &TempDir) -> anyhow::Result<(PathBuf, PathBuf)> {
    let db = dir.join("a.db");
    import(
        dir,
        &db,
        &[
            decision(T1, "hold", &[("Bore 10 H7", None)]),
            feature("rec_1", "bore", None, T1),
        ],
    )?;
    let folder = dir.join("review");
    ok(sync(&db, &folder)?)?;
    Ok((db, folder))
}

/// Regression (item 6): a symbolic link planted at a temporary name sync used to write
/// through is never written through, and no file sync writes becomes a link; a link at an
/// item's name, at `records`/`decisions`, at `README.md` or at DIR itself is refused, named,
/// and nothing outside the folder is read or written.
#[test]
fn sync_never_follows_a_symbolic_link_in_the_folder() -> anyhow::Result<()> {
    use std::os::unix::fs::symlink;
    let dir = TempDir::new("sync-links")?;
    let (db, folder) = synced(&dir)?;
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside)?;
    let victim = outside.join("victim.txt");
    std::fs::write(&victim, "precious\n")?;

    // The temporary name of README.md, and README.md gone (so sync writes it).
    symlink(&victim, folder.join(".README.md.tmp"))?;
    std::fs::remove_file(folder.join("README.md"))?;
    // A change in the database, so sync writes the decision's file.
    import(
        &dir,
        &db,
        &[decision(T2, "release", &[("Bore 10 H7", None)])],
    )?;
    ok(sync(&db, &folder)?)?;
    assert_eq!(
        std::fs::read_to_string(&victim)?,
        "precious\n",
        "not written through"
    );
    let readme = std::fs::symlink_metadata(folder.join("README.md"))?;
    assert!(readme.file_type().is_file(), "README.md is a regular file");
    // (A sync that removes what an interrupted sync left may have removed the link itself.)
    let _ = std::fs::remove_file(folder.join(".README.md.tmp"));

    // Inside the item folders, every link is refused, named, and nothing changes.
    let secret = outside.join("secret.json");
    std::fs::write(&secret, pretty(&feature("rec_9", "leaked", None, T2))?)?;
    let plants: [(PathBuf, &Path); 4] = [
        (folder.join("decisions/.dec_1.json.tmp"), &victim),
        (folder.join("records/rec_9.json"), &secret),
        (folder.join("records/.hidden.json"), &secret),
        (
            folder.join("records/rec_2.json"),
            Path::new("/nonexistent/x"),
        ),
    ];
    for (link, target) in &plants {
        symlink(target, link)?;
        import(
            &dir,
            &db,
            &[decision(T3, "rework", &[("Bore 10 H7", None)])],
        )?;
        let err = refused(sync(&db, &folder)?)?;
        let name = link.strip_prefix(&folder)?.to_string_lossy().into_owned();
        assert!(
            err.contains(&name)
                && err.contains("symbolic link")
                && err.contains("nothing was changed"),
            "names {name}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&victim)?, "precious\n");
        assert!(
            !ok(review_mcp(&db, &["export"])?)?.contains("leaked"),
            "nothing read through a link"
        );
        std::fs::remove_file(link)?;
    }

    // An item file that is a link (where sync would write), the subfolders, README.md and DIR.
    let item = folder.join("decisions/dec_1.json");
    std::fs::remove_file(&item)?;
    symlink(&victim, &item)?;
    let err = refused(sync(&db, &folder)?)?;
    assert!(
        err.contains("decisions/dec_1.json") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&victim)?, "precious\n");
    std::fs::remove_file(&item)?;

    let records = folder.join("records");
    std::fs::rename(&records, outside.join("records"))?;
    symlink(outside.join("records"), &records)?;
    let err = refused(sync(&db, &folder)?)?;
    assert!(
        err.contains("records") && err.contains("symbolic link"),
        "{err}"
    );
    std::fs::remove_file(&records)?;
    std::fs::rename(outside.join("records"), &records)?;

    let readme = folder.join("README.md");
    std::fs::remove_file(&readme)?;
    symlink(&victim, &readme)?;
    let err = refused(sync(&db, &folder)?)?;
    assert!(
        err.contains("README.md") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&victim)?, "precious\n");
    std::fs::remove_file(&readme)?;

    let linked = dir.join("linked");
    symlink(&folder, &linked)?;
    for arg in [
        linked.clone(),
        PathBuf::from(format!("{}/", linked.display())),
    ] {
        let err = refused(sync(&db, &arg)?)?;
        assert!(
            err.contains("linked") && err.contains("symbolic link"),
            "{err}"
        );
    }
    // With every link gone, the folder syncs.
    ok(sync(&db, &folder)?)?;

    // merge-file: a link at the temporary name it used for OURS is not written through, and
    // OURS itself being a link is refused.
    let text = std::fs::read_to_string(folder.join("decisions/dec_1.json"))?;
    let (base, ours, theirs) = (dir.join("base"), dir.join("ours"), dir.join("theirs"));
    std::fs::write(&base, &text)?;
    std::fs::write(&ours, &text)?;
    std::fs::write(
        &theirs,
        pretty(&decision(
            "2026-01-05T00:00:00.000Z",
            "scrap",
            &[("Bore 10 H7", None)],
        ))?,
    )?;
    symlink(&victim, dir.join(".ours.merge.tmp"))?;
    let merge = || {
        review_mcp(
            &dir.join("unused.db"),
            &[
                "merge-file",
                &base.to_string_lossy(),
                &ours.to_string_lossy(),
                &theirs.to_string_lossy(),
            ],
        )
    };
    let out = merge()?;
    ensure!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&victim)?, "precious\n");
    assert!(std::fs::symlink_metadata(&ours)?.file_type().is_file());
    assert!(std::fs::read_to_string(&ours)?.contains("scrap"));
    std::fs::remove_file(&ours)?;
    symlink(&victim, &ours)?;
    let err = refused(merge()?)?;
    assert!(
        err.contains("ours") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&victim)?, "precious\n");
    Ok(())
}

/// Regression (item 7): a folder file that is a FIFO, a link to `/dev/zero` or to
/// `/dev/stdin`, or a regular file over the bound is refused, named, at once: sync neither
/// blocks (which held the database's write lock) nor grows without bound. `merge-file`'s three
/// inputs are read the same way.
#[test]
fn sync_reads_only_regular_files_each_bounded_and_never_blocks() -> anyhow::Result<()> {
    use std::os::unix::fs::symlink;
    let dir = TempDir::new("sync-devices")?;
    let (db, folder) = synced(&dir)?;
    let fifo = folder.join("records/rec_fifo.json");
    let made = Command::new("mkfifo").arg(&fifo).status()?;
    ensure!(made.success(), "mkfifo");
    let err = refused(sync(&db, &folder)?)?;
    assert!(
        err.contains("records/rec_fifo.json") && err.contains("not a regular file"),
        "{err}"
    );
    // Not even while another process writes the database: the refusal came before the lock.
    std::fs::remove_file(&fifo)?;
    for target in ["/dev/zero", "/dev/stdin"] {
        let link = folder.join("records/rec_dev.json");
        symlink(target, &link)?;
        let started = Instant::now();
        let err = refused(sync(&db, &folder)?)?;
        assert!(err.contains("rec_dev.json"), "{target}: {err}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{target}: at once"
        );
        std::fs::remove_file(&link)?;
    }
    let big = folder.join("records/rec_big.json");
    std::fs::File::create(&big)?.set_len(32 * 1024 * 1024 + 1)?;
    let err = refused(sync(&db, &folder)?)?;
    assert!(
        err.contains("rec_big.json") && err.contains("over the 33554432 byte limit"),
        "{err}"
    );
    std::fs::remove_file(&big)?;
    ok(sync(&db, &folder)?)?;

    // merge-file: each input a FIFO or a device is refused, OURS untouched.
    let text = std::fs::read_to_string(folder.join("decisions/dec_1.json"))?;
    let (base, ours, theirs) = (dir.join("base"), dir.join("ours"), dir.join("theirs"));
    std::fs::write(&base, &text)?;
    std::fs::write(&ours, &text)?;
    let made = Command::new("mkfifo").arg(&theirs).status()?;
    ensure!(made.success(), "mkfifo");
    let merge = |theirs: &Path| {
        review_mcp(
            &dir.join("unused.db"),
            &[
                "merge-file",
                &base.to_string_lossy(),
                &ours.to_string_lossy(),
                &theirs.to_string_lossy(),
            ],
        )
    };
    let err = refused(merge(&theirs)?)?;
    assert!(err.contains("not a regular file"), "{err}");
    let zero = dir.join("zero");
    symlink("/dev/zero", &zero)?;
    let err = refused(merge(&zero)?)?;
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&ours)?, text, "OURS untouched");
    Ok(())
}

/// Regression (item 9): an `author` holding terminal escape sequences, a requirement holding
/// a line break and a bidi override, and a file name holding an escape reach stdout and
/// stderr escaped, from sync's conflict and report lines, its dry run, its refusal, and
/// `merge-file`'s message.
#[test]
fn sync_and_merge_file_escape_control_characters_from_the_folder() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-escape")?;
    let db = dir.join("a.db");
    let evil = "Eve\u{1b}[2K\u{1b}[1A\r";
    let requirement = "Bore\nconflicts: 0 \u{202e}7H";
    import(&dir, &db, &[decision(T1, "hold", &[(requirement, None)])])?;
    let folder = dir.join("review");
    ok(sync(&db, &folder)?)?;
    // Both sides change: the database (an import) and the folder, whose version carries an
    // engineer verdict by the evil author.
    import(
        &dir,
        &db,
        &[decision(T2, "release", &[(requirement, None)])],
    )?;
    let mut theirs_v = decision(
        T3,
        "rework",
        &[(
            requirement,
            Some(verdict("rejected", "app", T3, Some(evil))),
        )],
    );
    theirs_v["decision"]["author"] = json!(evil);
    std::fs::write(folder.join("decisions/dec_1.json"), pretty(&theirs_v)?)?;
    let clean = |s: &str| {
        !s.chars()
            .any(|c| c.is_control() && c != '\n' || c == '\u{202e}')
    };
    let plan = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    assert!(clean(&plan) && plan.contains("\\u{1b}[2K"), "{plan:?}");
    let out = ok(sync(&db, &folder)?)?;
    assert!(clean(&out), "{out:?}");
    // Quoted as well as escaped: the name cannot go on as the line's own words.
    let shown = "by \"Eve\\u{1b}[2K\\u{1b}[1A\\u{d}\"";
    assert!(
        out.lines()
            .any(|l| l.starts_with("conflict: ") && l.contains(shown))
            && out
                .lines()
                .any(|l| l.starts_with("engineer verdict from the folder: ") && l.contains(shown)),
        "{out}"
    );

    // merge-file's message.
    let text = std::fs::read_to_string(folder.join("decisions/dec_1.json"))?;
    let (base, ours, theirs) = (dir.join("base"), dir.join("ours"), dir.join("theirs"));
    std::fs::write(
        &base,
        pretty(&decision(T1, "hold", &[(requirement, None)]))?,
    )?;
    std::fs::write(&ours, &text)?;
    let mut other = decision(T3, "scrap", &[(requirement, None)]);
    other["decision"]["author"] = json!(evil);
    std::fs::write(&theirs, pretty(&other)?)?;
    let out = review_mcp(
        &dir.join("unused.db"),
        &[
            "merge-file",
            &base.to_string_lossy(),
            &ours.to_string_lossy(),
            &theirs.to_string_lossy(),
        ],
    )?;
    ensure!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(clean(&err) && err.contains("Eve\\u{1b}[2K"), "{err:?}");

    // A file name with an escape, refused by name.
    std::fs::write(folder.join("records/x\u{1b}[2J.json"), "{}")?;
    let err = refused(sync(&db, &folder)?)?;
    assert!(clean(&err) && err.contains("x\\u{1b}[2J.json"), "{err:?}");
    Ok(())
}

/// The first event of `folder`'s history (in the order the directory lists them).
fn first_event(folder: &Path) -> anyhow::Result<review_mcp::review::history::Event> {
    let first = std::fs::read_dir(folder.join("history"))?
        .next()
        .ok_or_else(|| anyhow::anyhow!("no event file"))??
        .path();
    let mut v: Value = serde_json::from_slice(&std::fs::read(first)?)?;
    Ok(serde_json::from_value(v["event"].take())?)
}

/// Turns the first event of `folder`'s history into an engineer's verdict given through
/// `channel` by `author` at `at` (what `edit` makes of it besides), sealed as a teammate's
/// server would, and writes it as a new event file; its path in the folder.
fn claim_in_history(
    folder: &Path,
    channel: &str,
    author: &str,
    at: &str,
    edit: impl FnOnce(&mut review_mcp::review::history::Event) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let mut e = first_event(folder)?;
    e.kind = serde_json::from_value(json!("verdict_given"))?;
    e.channel = serde_json::from_value(json!(channel))?;
    e.author = Some(author.into());
    e.at = at.into();
    edit(&mut e)?;
    let e = e.sealed();
    let file = format!("history/{}.json", e.id);
    std::fs::write(folder.join(&file), review_mcp::sync::line::event_text(&e))?;
    Ok(file)
}

/// Regression: an event of the folder's history that says an engineer gave a verdict (any
/// author, any channel: its seal is a digest anyone can compute) was added to the history
/// without a word, and the decision's trail then showed that approval as the engineer's. Each
/// such event new to the database is listed like an item file's verdict, naming its file and
/// who it says gave what, by the dry run and the sync alike, and only once.
#[test]
fn sync_lists_every_engineer_verdict_event_the_folder_brings() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-verdict-events")?;
    let db = dir.join("a.db");
    import(&dir, &db, &[decision(T1, "hold", &[("Bore 10 H7", None)])])?;
    let folder = dir.join("review");
    ok(sync(&db, &folder)?)?;
    // An event the folder holds, turned into the claim of an approval given in the card.
    let file = claim_in_history(&folder, "app", "Ada \u{1b}[2JLovelace", T2, |e| {
        e.meaning = Some(serde_json::from_value(json!("approval"))?);
        e.changes = serde_json::from_value(json!([
            {"field": "verdict", "index": 0, "requirement": "Bore 10 H7", "to": "accepted"}
        ]))?;
        Ok(())
    })?;
    let said = format!(
        "{file}: decision dec_1 \"Bore 10 H7\": accepted via app by \"Ada \\u{{1b}}[2JLovelace\" \
         at {T2}, as an approval"
    );
    let dry = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    ensure!(
        dry.contains(&format!(
            "would take an engineer verdict event from the folder's history: {said}"
        )) && dry.contains(
            "would be taken from the folder's history: 1 engineer verdict event (the folder"
        ),
        "{dry}"
    );
    let out = ok(sync(&db, &folder)?)?;
    ensure!(
        out.contains(&format!(
            "engineer verdict event from the folder's history: {said}"
        )) && out.contains("taken from the folder's history: 1 engineer verdict event (the folder"),
        "{out}"
    );
    let again = ok(sync(&db, &folder)?)?;
    ensure!(!again.contains("engineer verdict"), "{again}");
    Ok(())
}

/// Regression: each folder file was bounded (32 MiB) but not their sum, and a sync holds every
/// history file it reads (and every changed item file) at once: one commit of many large
/// sealed events (text git compresses to almost nothing) made every teammate's sync hold
/// gigabytes, and every later export carry them. What one sync reads is bounded too
/// (256 MiB): past it the folder is refused, named, before the history is read, and nothing
/// changes. Sparse files stand for the large ones here (their size is what is counted).
#[test]
fn sync_bounds_what_it_reads_of_the_folder_in_all() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-read-budget")?;
    let db = dir.join("a.db");
    import(&dir, &db, &[feature("rec_1", "bore", None, T1)])?;
    ok(sync(&db, &dir.join("review"))?)?;
    // Each case is a copy: the folder itself moved away, so the copy is the folder moved, not
    // a second folder holding its id (which sync refuses before reading it).
    let folder = dir.join("original");
    std::fs::rename(dir.join("review"), &folder)?;
    let before = ok(review_mcp(&db, &["export"])?)?;
    for sub in ["history", "records"] {
        let work = dir.join(&format!("work-{sub}"));
        for f in ["records", "decisions", "history"] {
            std::fs::create_dir_all(work.join(f))?;
            if let Ok(list) = std::fs::read_dir(folder.join(f)) {
                for e in list {
                    let e = e?;
                    std::fs::copy(e.path(), work.join(f).join(e.file_name()))?;
                }
            }
        }
        for f in ["README.md", ".review-mcp-folder"] {
            std::fs::copy(folder.join(f), work.join(f))?;
        }
        for i in 0..9 {
            let name = match sub {
                "history" => format!("evt-{i:032x}.json"),
                _ => format!("rec_big{i}.json"),
            };
            let f = std::fs::File::create(work.join(sub).join(name))?;
            f.set_len(31 << 20)?;
        }
        let err = refused(sync(&db, &work)?)?;
        ensure!(
            err.contains("come to more than 268435456 bytes")
                && err.contains("nothing was changed"),
            "{sub}: {err}"
        );
        ensure!(
            ok(review_mcp(&db, &["export"])?)? == before,
            "{sub}: the database changed"
        );
    }
    Ok(())
}

/// Regression: every hidden `.X.tmp` file in the folder and its subfolders was taken for a
/// temporary an interrupted sync left and deleted, so a user's `.notes.tmp` (or another
/// tool's) in the synced folder was lost; only sync's own temporaries
/// (`.<name>.<pid>-<n>.tmp` of a file it writes there) are deleted.
#[test]
fn sync_deletes_only_its_own_temporaries() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-own-temporaries")?;
    let (db, folder) = synced(&dir)?;
    let theirs = [
        folder.join(".notes.tmp"),
        folder.join(".README.md.tmp"),
        folder.join(".editor.12-3.tmp"),
        folder.join("records/.notes.tmp"),
        folder.join("records/.rec_1.json.tmp"),
        folder.join("decisions/.x.tmp"),
        folder.join("history/.draft.tmp"),
    ];
    for f in &theirs {
        std::fs::write(f, "precious\n")?;
    }
    let ours = [
        folder.join(".README.md.4242-0.tmp"),
        folder.join("..review-mcp-folder.4242-1.tmp"),
        folder.join("records/.rec_1.json.4242-2.tmp"),
        folder.join("history/.evt-1.json.4242-3.tmp"),
    ];
    for f in &ours {
        std::fs::write(f, "half written")?;
    }
    let out = ok(sync(&db, &folder)?)?;
    for f in &theirs {
        ensure!(
            std::fs::read_to_string(f)? == "precious\n",
            "{} was changed: {out}",
            f.display()
        );
    }
    for f in &ours {
        ensure!(!f.exists(), "{} is left", f.display());
    }
    Ok(())
}

/// Regression: `--db NEW.db import FILE` (and `sync DIR`) created NEW.db, and the directories
/// above it, before the store refused what FILE (DIR) held (two lines sharing an id, a bad
/// item file), so a refusal left an empty database behind; a refused import or sync now
/// leaves no trace of a database that did not exist, and an existing one stays as it was.
#[test]
fn a_refused_import_or_sync_leaves_no_new_database() -> anyhow::Result<()> {
    let dir = TempDir::new("refused-new-db")?;
    let shared = feature("rec_1", "a", None, T1);
    let file = dir.join("dup.jsonl");
    std::fs::write(
        &file,
        format!("{shared}\n{}\n", feature("rec_1", "b", None, T1)),
    )?;
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "not json\n")?;
    let folder = dir.join("bad-folder");
    std::fs::create_dir_all(folder.join("records"))?;
    std::fs::write(folder.join("records/rec_1.json"), "not json\n")?;
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let (file, bad, missing) = (path(&file), path(&bad), path(&dir.join("missing.jsonl")));
    let folder = path(&folder);
    let runs: [[&str; 2]; 4] = [
        ["import", &file],
        ["import", &bad],
        ["import", &missing],
        ["sync", &folder],
    ];
    let db = dir.join("new/sub/review.db");
    for args in &runs {
        refused(review_mcp(&db, args)?)?;
        for name in ["review.db", "review.db-wal", "review.db-shm"] {
            let f = db.with_file_name(name);
            ensure!(!f.exists(), "{args:?} left {}", f.display());
        }
        ensure!(!dir.join("new").exists(), "{args:?} left new/");
    }
    // An existing database is kept, unchanged, when it refuses.
    let (db, _) = synced(&dir)?;
    let before = ok(review_mcp(&db, &["export"])?)?;
    for args in &runs {
        refused(review_mcp(&db, args)?)?;
        ensure!(ok(review_mcp(&db, &["export"])?)? == before, "{args:?}");
    }
    Ok(())
}

/// Regression: `sync NEW/DIR` made the folder (and the directories above it) before it
/// opened the database, so a sync refused there (a file that is not a database, one that
/// cannot be written) left an empty `NEW/DIR` behind, to be committed or mistaken for a
/// synced folder. A refused sync leaves no folder it made; an existing one stays.
#[test]
fn a_sync_refused_at_the_database_leaves_no_new_folder() -> anyhow::Result<()> {
    let dir = TempDir::new("refused-new-folder")?;
    let db = dir.join("not-a.db");
    std::fs::write(&db, "not a database\n")?;
    let folder = dir.join("new/sub/review");
    refused(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    ensure!(!dir.join("new").exists(), "left {}", folder.display());
    std::fs::create_dir(dir.join("kept"))?;
    refused(review_mcp(
        &db,
        &["sync", &dir.join("kept/review").to_string_lossy()],
    )?)?;
    ensure!(dir.join("kept").is_dir(), "an existing directory stays");
    ensure!(!dir.join("kept/review").exists(), "left kept/review");
    Ok(())
}

/// Regression: sync's own files checked out with CRLF line endings (git's
/// `core.autocrlf=true` on Windows) were not recognised: the id file (`ID\r\n`) refused
/// every sync as "does not hold a folder id", and the README was rewritten by every sync.
/// With CRLF endings each is the same file, and left as it is.
#[test]
fn sync_reads_its_own_files_with_crlf_line_endings() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-own-crlf")?;
    let (db, folder) = synced(&dir)?;
    let mut before = Vec::new();
    for name in ["README.md", ".review-mcp-folder", ".gitattributes"] {
        let path = folder.join(name);
        let text = std::fs::read_to_string(&path)?.replace('\n', "\r\n");
        std::fs::write(&path, &text)?;
        before.push((path, text));
    }
    let dry = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    ensure!(!dry.contains("would write"), "{dry}");
    let out = ok(sync(&db, &folder)?)?;
    ensure!(
        out.contains("written to the folder: 0") && out.contains("imported into the database: 0"),
        "{out}"
    );
    for (path, text) in &before {
        ensure!(
            std::fs::read_to_string(path)? == *text,
            "{} rewritten",
            path.display()
        );
    }
    Ok(())
}

/// Regression: a pulled commit (or an edit) that rewrote the folder's `.gitattributes` to
/// another merge rule (`merge=union` interleaves two versions' lines, `-merge` or another
/// driver leaves conflict markers) was taken silently, and git used it at the next pull. Sync
/// writes that file itself (`* merge=review`) and refuses any other text, naming the file
/// and how to mend it (delete it: sync writes its own); nothing changes until then.
#[test]
fn sync_refuses_a_gitattributes_that_changes_the_folders_merge_rule() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-attributes")?;
    let (db, folder) = synced(&dir)?;
    let attributes = folder.join(".gitattributes");
    let written = std::fs::read_to_string(&attributes)?;
    ensure!(written.lines().any(|l| l == "* merge=review"), "{written}");
    for planted in ["* merge=union\n", "* merge=evil\n", "* -merge\n"] {
        std::fs::write(&attributes, planted)?;
        let before = ok(review_mcp(&db, &["export"])?)?;
        let err = refused(sync(&db, &folder)?)?;
        ensure!(
            err.contains(".gitattributes is not the .gitattributes review-mcp sync writes")
                && err.contains("delete it")
                && err.contains("nothing was changed"),
            "{planted}: {err}"
        );
        ensure!(std::fs::read_to_string(&attributes)? == planted);
        ensure!(ok(review_mcp(&db, &["export"])?)? == before);
    }
    std::fs::remove_file(&attributes)?;
    let out = ok(sync(&db, &folder)?)?;
    ensure!(std::fs::read_to_string(&attributes)? == written, "{out}");
    // A deeper `.gitattributes` overrides the folder's own for the files beside it, and sync
    // skipped every hidden file in its subfolders: one planted there is refused too.
    for sub in ["records", "decisions", "history"] {
        let planted = folder.join(sub).join(".gitattributes");
        std::fs::write(&planted, "* merge=union\n")?;
        let before = ok(review_mcp(&db, &["export"])?)?;
        let err = refused(sync(&db, &folder)?)?;
        ensure!(
            err.contains(&format!("{sub}/.gitattributes"))
                && err.contains("overrides the folder's own")
                && err.contains("remove it"),
            "{sub}: {err}"
        );
        ensure!(ok(review_mcp(&db, &["export"])?)? == before);
        std::fs::remove_file(&planted)?;
    }
    ok(sync(&db, &folder)?)?;
    Ok(())
}

/// Regression: a `.gitignore` in `records/`, `decisions/` or `history/` (a pulled commit, or a
/// teammate's `*` there) was skipped as a hidden file: every file sync then wrote there was
/// ignored by git, so `git add -A` left each new item and event out of every commit, silently,
/// and the team never received them. Such a file is refused, named, like a `.gitattributes`
/// there, and nothing changes until it is removed.
#[test]
fn sync_refuses_a_gitignore_in_its_subfolders() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-gitignore")?;
    let (db, folder) = synced(&dir)?;
    for sub in ["records", "decisions", "history"] {
        let planted = folder.join(sub).join(".gitignore");
        std::fs::write(&planted, "*\n")?;
        import(&dir, &db, &[feature(&format!("rec_{sub}"), sub, None, T2)])?;
        let before = ok(review_mcp(&db, &["export"])?)?;
        let err = refused(sync(&db, &folder)?)?;
        ensure!(
            err.contains(&format!("{sub}/.gitignore"))
                && err.contains("git would leave")
                && err.contains("remove it"),
            "{sub}: {err}"
        );
        ensure!(ok(review_mcp(&db, &["export"])?)? == before);
        ensure!(
            !folder.join(format!("records/rec_{sub}.json")).exists(),
            "{sub}: nothing written"
        );
        std::fs::remove_file(&planted)?;
        ok(sync(&db, &folder)?)?;
    }
    Ok(())
}

/// Regression: an event of the folder's history dated far ahead (a pulled `forgotten` event of
/// a live decision dated 9999-12-31, or one written under a clock years ahead) was taken
/// silently, while an item file dated ahead is named in a `clock:` line. Such an event is the
/// last word of the item's history for every later event (none can be dated after it), so
/// sync now names it the same way, with the file to `git log`; a dry run says it too.
#[test]
fn sync_names_a_history_event_dated_ahead_of_the_clock() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-event-ahead")?;
    let db = dir.join("a.db");
    import(&dir, &db, &[decision(T1, "hold", &[("Bore 10 H7", None)])])?;
    let folder = dir.join("review");
    ok(sync(&db, &folder)?)?;
    let mut e = first_event(&folder)?;
    e.kind = serde_json::from_value(json!("forgotten"))?;
    e.after = None;
    e.changes = Vec::new();
    e.at = "9999-12-31T23:59:59.999Z".into();
    let e = e.sealed();
    let file = format!("history/{}.json", e.id);
    std::fs::write(folder.join(&file), review_mcp::sync::line::event_text(&e))?;
    for (args, out) in dry_run_then_sync(&db, &folder)? {
        let out = ok(out)?;
        ensure!(
            out.lines().any(|l| l.starts_with("clock: ")
                && l.contains(&file)
                && l.contains("dated 9999-12-31T23:59:59.999Z")
                && l.contains("dec_1")
                && l.contains(&format!("git log -- {file}"))),
            "{args:?}: {out}"
        );
    }
    let again = ok(sync(&db, &folder)?)?;
    ensure!(
        !again.contains("clock: "),
        "named once, when it arrives: {again}"
    );
    Ok(())
}

/// Regression (adversarial audit of sync): an item changed on both sides whose two versions
/// hold different engineer verdicts on one requirement keeps the one with the later `at`, and
/// the conflict line named only the winning version: the engineer's own rejection given
/// here (through the terminal, with its reason) was replaced by a folder version's acceptance
/// dated 9999-12-31 without a word of it. Now the conflict names the verdict replaced and the
/// one kept, whichever side wins, and a folder verdict dated ahead of this machine's clock (it
/// would beat every verdict given after it) is named in a `clock:` line, as a version is.
#[test]
fn sync_names_the_engineer_verdict_a_merge_replaces_and_one_dated_ahead() -> anyhow::Result<()> {
    const AHEAD: &str = "9999-12-31T23:59:59.999Z";
    let dir = TempDir::new("sync-verdict-ahead")?;
    let db = dir.join("a.db");
    let base = bore(T1, "hold", verdict("rejected", "app", T1, Some("Ada")));
    import(&dir, &db, std::slice::from_ref(&base))?;
    let folder = dir.join("review");
    ok(sync(&db, &folder)?)?;
    // Here: the engineer rejects again, through the terminal, at T2 (a later version).
    let mut mine = verdict("rejected", "terminal", T2, Some("Ada"));
    mine["reason"] = json!("bore out of tolerance");
    import(
        &dir,
        &db,
        &[decision(T2, "hold", &[("Bore 10 H7", Some(mine))])],
    )?;
    // The folder: an acceptance dated far ahead, in a version of T3 (the later).
    let forged = Some(verdict("accepted", "app", AHEAD, Some("Ada")));
    let file = folder.join("decisions/dec_1.json");
    std::fs::write(
        &file,
        pretty(&decision(T3, "release", &[("Bore 10 H7", forged.clone())]))?,
    )?;
    let out = ok(sync(&db, &folder)?)?;
    let conflict = out
        .lines()
        .find(|l| l.starts_with("conflict: decision dec_1 changed on both sides"))
        .unwrap_or_default();
    ensure!(
        conflict.contains("rejected via terminal by Ada at 2026-01-02T00:00:00.000Z")
            && conflict.contains(&format!("accepted via app by Ada at {AHEAD}")),
        "the conflict names the engineer verdict replaced and the one kept: {out}"
    );
    ensure!(
        out.lines().any(|l| l.starts_with("clock: ")
            && l.contains("dec_1")
            && l.contains("\"Bore 10 H7\"")
            && l.contains(&format!("dated {AHEAD}"))
            && l.contains("git log -- decisions/dec_1.json")),
        "the verdict dated ahead is named: {out}"
    );

    // The database's version wins (later), the folder's verdict (later `at`) is taken into
    // it: the conflict names the database's verdict it replaced too. The engineer rejects
    // again here, through the terminal (an import of a version holding that verdict, dated
    // T3, now keeps the database's later one: the two verdicts' later `at`, as this merge).
    {
        use review_mcp::review::{Judgement, Verdict, Via};
        use review_mcp::store::{DecisionRef, Shown, Store, VerdictsOutcome};
        let mut store = Store::open(&db)?;
        let at = DecisionRef::Id("dec_1");
        let shown = store
            .find_decision(&at)?
            .and_then(|d| d.basis.first().map(|b| b.digest()))
            .unwrap_or_default();
        let again = Verdict {
            at: T3.into(),
            author: Some("Ada".into()),
            judgement: Judgement::Rejected,
            meaning: None,
            reason: None,
            via: Via::Terminal,
        };
        let outcome = store.record_verdicts(&at, Shown::Item(&shown), &[(0, again)])?;
        ensure!(
            matches!(outcome, VerdictsOutcome::Recorded(_)),
            "{outcome:?}"
        );
    }
    std::fs::write(
        &file,
        pretty(&decision(
            "2026-01-03T12:00:00.000Z",
            "release",
            &[("Bore 10 H7", forged)],
        ))?,
    )?;
    let out = ok(sync(&db, &folder)?)?;
    let conflict = out
        .lines()
        .find(|l| l.starts_with("conflict: decision dec_1 changed on both sides"))
        .unwrap_or_default();
    ensure!(
        conflict.contains("kept the database version")
            && conflict.contains(&format!("rejected via terminal by Ada at {T3}"))
            && conflict.contains(&format!("accepted via app by Ada at {AHEAD}")),
        "the conflict names the engineer verdict replaced and the one kept: {out}"
    );
    Ok(())
}

/// `merge-file` names the engineer verdict its merge replaces, as sync does.
#[test]
fn merge_file_names_the_engineer_verdict_a_merge_replaces() -> anyhow::Result<()> {
    let dir = TempDir::new("merge-verdict-replaced")?;
    let base_v = pretty(&bore(
        T1,
        "hold",
        verdict("rejected", "app", T1, Some("Ada")),
    ))?;
    let ours_v = pretty(&bore(
        T2,
        "hold",
        verdict("rejected", "terminal", T2, Some("Ada")),
    ))?;
    let theirs_v = pretty(&bore(
        T3,
        "release",
        verdict("accepted", "app", T3, Some("Bob")),
    ))?;
    let (out, _) = merge_texts(
        &dir,
        [base_v.as_bytes(), ours_v.as_bytes(), theirs_v.as_bytes()],
    )?;
    ensure!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    ensure!(
        err.contains(&format!("rejected via terminal by Ada at {T2}"))
            && err.contains(&format!("accepted via app by Bob at {T3}")),
        "{err}"
    );
    Ok(())
}

/// Regression (adversarial audit of sync): a pulled commit that replaces a directory on the
/// way to the synced folder by a symbolic link (`design` → `/elsewhere`, for `sync
/// design/review`) made sync follow it and write the whole review there (or sync another
/// project's folder found there), outside the repository: only DIR itself was checked. git
/// never writes a file through a link it checked out, so a DIR reached through a link inside
/// the git work tree is not the repository's folder: refused, dry run too, naming the link,
/// and nothing is written anywhere. A link above the work tree (the checkout reached through
/// a link of the user's) is followed as before.
#[test]
fn sync_refuses_a_folder_reached_through_a_link_inside_the_work_tree() -> anyhow::Result<()> {
    use std::os::unix::fs::symlink;
    let dir = TempDir::new("sync-linked-parent")?;
    let db = dir.join("a.db");
    import(&dir, &db, &[decision(T1, "hold", &[("Bore 10 H7", None)])])?;
    let repo = dir.join("repo");
    let git = Command::new("git")
        .args(["init", "-q"])
        .arg(&repo)
        .output()?;
    ensure!(git.status.success(), "{git:?}");
    let folder = repo.join("design/review");
    ok(sync(&db, &folder)?)?;
    // The pulled commit: `design` is now a link to a directory outside the repository.
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir(&elsewhere)?;
    std::fs::rename(repo.join("design"), dir.join("design.old"))?;
    symlink(&elsewhere, repo.join("design"))?;
    for (args, out) in dry_run_then_sync(&db, &folder)? {
        let err = refused(out)?;
        ensure!(
            err.contains(&format!(
                "{}: is a symbolic link",
                repo.join("design").display()
            )) && err.contains("nothing was changed"),
            "{args:?}: {err}"
        );
        ensure!(
            std::fs::read_dir(&elsewhere)?.next().is_none(),
            "{args:?}: nothing written through the link"
        );
    }
    // A link to another checkout (which holds `.git` itself): refused the same way.
    let other = dir.join("other");
    let git = Command::new("git")
        .args(["init", "-q"])
        .arg(&other)
        .output()?;
    ensure!(git.status.success(), "{git:?}");
    std::fs::remove_file(repo.join("design"))?;
    symlink("../other", repo.join("design"))?;
    let err = refused(sync(&db, &folder)?)?;
    ensure!(
        err.contains(&format!(
            "{}: is a symbolic link",
            repo.join("design").display()
        )),
        "{err}"
    );
    ensure!(
        std::fs::read_dir(&other)?.all(|e| e.is_ok_and(|e| e.file_name() == ".git")),
        "nothing written in the other checkout"
    );
    // The checkout itself reached through a link of the user's: followed.
    std::fs::remove_file(repo.join("design"))?;
    std::fs::rename(dir.join("design.old"), repo.join("design"))?;
    symlink(&repo, dir.join("checkout"))?;
    let out = ok(sync(&db, &dir.join("checkout/design/review"))?)?;
    ensure!(out.contains("conflicts: 0"), "{out}");
    Ok(())
}

/// Regression (adversarial audit of sync): a folder version of an item under the same id but
/// of another key — a decision moved to another revision, part or subject, a feature renamed
/// or moved to another part — was imported silently, engineer verdicts and all: a commit
/// turned Ada's verdict on revision A into one on revision B, which she never judged, without
/// a line (no "engineer verdict from the folder", no conflict, no event). `import` refuses
/// such a line ("an id names one decision"); sync now refuses the file the same way, dry run
/// too, naming both keys, and nothing changes; `merge-file` leaves two such versions to git.
#[test]
fn sync_and_merge_file_refuse_an_item_moved_to_another_key_under_its_id() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-rekeyed")?;
    let db = dir.join("a.db");
    let judged = bore(T1, "hold", verdict("accepted", "app", T1, Some("Ada")));
    import(
        &dir,
        &db,
        &[judged.clone(), feature("rec_1", "bore", None, T1)],
    )?;
    let folder = dir.join("review");
    ok(sync(&db, &folder)?)?;
    let before = ok(review_mcp(&db, &["export"])?)?;
    let other = REV.replace('0', "1");
    let mut moved = Vec::new();
    for (field, value) in [
        ("/decision/artifact/revision", json!(other)),
        ("/decision/artifact/uri", json!("file:///w/q.step")),
        ("/decision/subject", json!("flange")),
    ] {
        let mut v = judged.clone();
        v["decision"]["updated_at"] = json!(T2);
        if let Some(slot) = v.pointer_mut(field) {
            *slot = value;
        }
        moved.push(("decisions/dec_1.json", v));
    }
    for (field, value) in [
        ("/record/name", json!("slot")),
        ("/record/artifact/uri", json!("file:///w/q.step")),
    ] {
        let mut v = feature("rec_1", "bore", None, T2);
        if let Some(slot) = v.pointer_mut(field) {
            *slot = value;
        }
        moved.push(("records/rec_1.json", v));
    }
    for (file, v) in &moved {
        let path = folder.join(file);
        let committed = std::fs::read(&path)?;
        std::fs::write(&path, pretty(v)?)?;
        for (args, out) in dry_run_then_sync(&db, &folder)? {
            let err = refused(out)?;
            ensure!(
                err.contains(file)
                    && err.contains("an id names one")
                    && err.contains("nothing was changed"),
                "{args:?} {v}: {err}"
            );
        }
        ensure!(
            ok(review_mcp(&db, &["export"])?)? == before,
            "{v}: the database is unchanged"
        );
        // merge-file: the moved version against the committed one, either side.
        for (o, t) in [
            (&committed, &pretty(v)?.into_bytes()),
            (&pretty(v)?.into_bytes(), &committed),
        ] {
            let (out, ours) = merge_texts(&dir, [&committed, o, t])?;
            let err = String::from_utf8_lossy(&out.stderr);
            ensure!(
                !out.status.success() && err.contains("an id names one"),
                "merge-file {v}: {err}"
            );
            ensure!(std::fs::read(&ours)? == *o, "OURS untouched");
        }
        std::fs::write(&path, committed)?;
    }
    let again = ok(sync(&db, &folder)?)?;
    ensure!(again.contains("conflicts: 0"), "{again}");
    Ok(())
}

/// Regression: a name beside sync's own that differs from it only in letter case
/// (`Records/rec_1.json`, `README.MD`, `.GITATTRIBUTES`) was left alone as a file of the
/// user's, though on macOS and Windows it is the same name: git checks one out over the other
/// there, so a commit could change an item (or the merge rule) in every such clone under a
/// name its pull request shows as a new file. Refused now, named, dry run too, and nothing
/// changes until it is removed. The refusal's way out was only `git rm -r`, which drops what a
/// team's `Readme.md` beside the README holds, without its path: it now offers `git mv PATH`
/// to another name (what it holds kept) or `git rm -r PATH`, the path written out (seen
/// failing before).
#[test]
fn sync_refuses_a_name_that_is_its_own_in_another_letter_case() -> anyhow::Result<()> {
    let dir = TempDir::new("own-name-case")?;
    let (db, folder) = synced(&dir)?;
    let other = pretty(&feature("rec_1", "bore", Some("Eve"), T3))?;
    for name in [
        "Records/rec_1.json",
        "DECISIONS/dec_1.json",
        "History/evt-00000000000000000000000000000000.json",
        "README.MD",
        "readme.md",
        ".GITATTRIBUTES",
        ".Review-MCP-Folder",
    ] {
        let planted = folder.join(name);
        if let Some(parent) = planted.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&planted, &other)?;
        let before = ok(review_mcp(&db, &["export"])?)?;
        let top = name.split('/').next().unwrap_or(name);
        for (run, out) in dry_run_then_sync(&db, &folder)? {
            let err = refused(out)?;
            ensure!(
                err.contains(top)
                    && err.contains("only in letter case")
                    && err.contains("nothing was changed")
                    // The way out keeps what it holds, named with its path.
                    && err.contains(&format!("git mv {}", folder.join(top).display()))
                    && err.contains(&format!("git rm -r {}", folder.join(top).display())),
                "{name} {run}: {err}"
            );
        }
        ensure!(ok(review_mcp(&db, &["export"])?)? == before, "{name}");
        match planted.parent().filter(|p| *p != folder) {
            Some(p) => std::fs::remove_dir_all(p)?,
            None => std::fs::remove_file(&planted)?,
        }
        ok(sync(&db, &folder)?)?;
    }
    Ok(())
}

/// Regression: two items whose ids differ only in letter case were refused with one way out,
/// "forget one" in the database, also when one of them had come with a commit and was in the
/// folder only, where forgetting does nothing. The refusal says where each is and, for one
/// in the folder only, to remove its file.
#[test]
fn sync_names_where_each_case_twin_is_and_the_way_out_for_it() -> anyhow::Result<()> {
    let dir = TempDir::new("case-twins")?;
    let (db, folder) = synced(&dir)?;
    // A commit brings REC_1 beside the synced rec_1.
    let planted = folder.join("records/REC_1.json");
    std::fs::write(&planted, pretty(&feature("REC_1", "other", None, T2))?)?;
    for (run, out) in dry_run_then_sync(&db, &folder)? {
        let err = refused(out)?;
        ensure!(
            err.contains("rec_1 (in the database and the folder)")
                && err.contains("REC_1 (in the folder only)")
                && err.contains("Remove the folder's records/REC_1.json")
                && !err.contains("Forget one"),
            "{run}: {err}"
        );
    }
    // Both in the database: forgetting one there is the way out.
    std::fs::remove_file(&planted)?;
    let db2 = dir.join("b.db");
    import(
        &dir,
        &db2,
        &[
            feature("rec_2", "a", None, T1),
            feature("REC_2", "b", None, T1),
        ],
    )?;
    let err = refused(sync(&db2, &dir.join("review2"))?)?;
    ensure!(
        err.contains("(in the database)") && err.contains("Forget one"),
        "{err}"
    );
    Ok(())
}

/// Regression: a sync that took a teammate's engineer verdict listed it twice, once from the
/// decision's file ("engineer verdict from the folder: …") and once from the history event of
/// that verdict ("engineer verdict event from the folder's history: …"), and counted both:
/// eleven verdicts read as twenty-two lines (found driving a real review). An event that says
/// what a verdict taken from an item file says is not listed again.
#[test]
fn sync_lists_a_verdict_taken_from_the_folder_once_not_again_as_its_event() -> anyhow::Result<()> {
    use review_mcp::review::{Judgement, Verdict, Via};
    use review_mcp::store::{DecisionRef, Shown, Store};
    let dir = TempDir::new("sync-verdict-once")?;
    let (a, b) = (dir.join("a.db"), dir.join("b.db"));
    import(&dir, &a, &[decision(T1, "hold", &[("Bore 10 H7", None)])])?;
    let folder = dir.join("review");
    ok(sync(&a, &folder)?)?;
    ok(sync(&b, &folder)?)?;
    // Ada clicks Reject in her card, in clone a, and syncs.
    {
        let mut store = Store::open(&a)?;
        let at = DecisionRef::Id("dec_1");
        let shown = store
            .find_decision(&at)?
            .ok_or_else(|| anyhow::anyhow!("no dec_1"))?
            .basis[0]
            .digest();
        let verdict = Verdict {
            meaning: None,
            author: Some("Ada".into()),
            at: review_mcp::time::now(),
            judgement: Judgement::Rejected,
            reason: None,
            via: Via::App,
        };
        store.record_verdicts(&at, Shown::Item(&shown), &[(0, verdict)])?;
    }
    ok(sync(&a, &folder)?)?;
    for dry_run in [true, false] {
        let f = folder.to_string_lossy();
        let args: &[&str] = match dry_run {
            true => &["sync", "--dry-run", &f],
            false => &["sync", &f],
        };
        let out = ok(review_mcp(&b, args)?)?;
        let naming: Vec<&str> = out.lines().filter(|l| l.contains("Bore 10 H7")).collect();
        ensure!(
            naming.len() == 1
                && naming[0].contains("engineer verdict from the folder: decision dec_1")
                && naming[0].contains("rejected via app by Ada")
                && out.contains("taken from the folder: 1 engineer verdict (")
                && !out.contains("engineer verdict event"),
            "{out}"
        );
    }
    Ok(())
}

/// A requirement in a name's own script (a Hindi word: letters with a virama and a vowel
/// sign) with a Hangul filler, a character drawn as a blank, at its end.
const SCRIPT_AND_FILLER: &str = "Bore \u{92a}\u{94d}\u{930}\u{93f}\u{92f}\u{93e}\u{3164}";

/// An author whose words could go on as the line's own: another claim after a `;`.
const CLAIMING_AUTHOR: &str =
    "Eve at 2026-01-01T00:00:00.000Z; decision dec_9 \"Wall\": accepted via terminal by Ada";

/// Regression: sync's lines naming an engineer verdict the folder brings (in an item, or in
/// the history: `engineer verdict event from the folder's history`) and the notes of a merge
/// named the requirement in Rust's debug form (`{:?}`), not [`review_mcp::text::quoted`] as
/// every other reader: a Hindi requirement's virama came out as `\u{94d}` and a Hangul filler
/// (drawn as a blank, `\u{3164}` everywhere else) raw; and the history's line gave the
/// event's author bare, so an author holding `; decision dec_9 …: accepted via terminal by
/// Ada` read as a second claim on that line, where every other line quotes such a name
/// ([`review_mcp::text::who`]).
#[test]
fn sync_names_a_requirement_and_an_author_from_the_folder_as_every_reader_does()
-> anyhow::Result<()> {
    let dir = TempDir::new("sync-quoted")?;
    let a = dir.join("a.db");
    let folder = dir.join("review");
    let requirement = review_mcp::text::quoted(SCRIPT_AND_FILLER, 200);
    // The folder's item brings the verdict: the line of the item.
    import(
        &dir,
        &a,
        &[decision(T1, "hold", &[(SCRIPT_AND_FILLER, None)])],
    )?;
    ok(sync(&a, &folder)?)?;
    let judged = decision(
        T2,
        "hold",
        &[(
            SCRIPT_AND_FILLER,
            Some(verdict("accepted", "elicitation", T2, Some("Mallory"))),
        )],
    );
    std::fs::write(folder.join("decisions/dec_1.json"), pretty(&judged)?)?;
    let out = ok(sync(&a, &folder)?)?;
    assert!(
        out.lines()
            .any(|l| l.starts_with("engineer verdict from the folder: ")
                && l.contains(&format!("decision dec_1 {requirement}: accepted"))),
        "{out}"
    );
    assert!(!out.contains('\u{3164}'), "{out}");
    // The folder's history brings it: an event of an engineer's verdict, as a teammate's
    // terminal writes it, that the database has not seen.
    claim_in_history(&folder, "terminal", CLAIMING_AUTHOR, T3, |e| {
        e.changes = serde_json::from_value(json!([
            {"field": "verdict", "index": 0, "requirement": SCRIPT_AND_FILLER, "to": "rejected"}
        ]))?;
        Ok(())
    })?;
    let out = ok(sync(&a, &folder)?)?;
    let author = review_mcp::text::who(CLAIMING_AUTHOR, 200);
    assert!(
        out.lines().any(
            |l| l.starts_with("engineer verdict event from the folder's history: ")
                && l.contains(&format!(
                    "{requirement}: rejected via terminal by {author} at "
                ))
        ),
        "{out}"
    );
    assert!(!out.contains('\u{3164}'), "{out}");
    Ok(())
}

/// Regression: the refusal of an import line whose id another item holds named both items in
/// Rust's debug form (`{:?}`): a Hindi name's virama came out as `\u{94d}` and a Hangul filler
/// raw (then escaped as a control on the terminal), where every reader quotes the name
/// ([`review_mcp::text::quoted`]) and shows the marks of its script as they are.
#[test]
fn an_import_refusal_names_the_items_as_every_reader_does() -> anyhow::Result<()> {
    let other = "Wall \u{915}\u{94d}\u{937}";
    let mut held = decision(T1, "hold", &[]);
    held["decision"]["subject"] = json!(SCRIPT_AND_FILLER);
    let dir = TempDir::new("import-quoted")?;
    let db = dir.join("a.db");
    import(
        &dir,
        &db,
        &[feature("rec_1", SCRIPT_AND_FILLER, None, T1), held],
    )?;
    for (line, named) in [
        (feature("rec_1", other, None, T2), "record rec_1"),
        (
            {
                let mut d = decision(T2, "hold", &[]);
                d["decision"]["subject"] = json!(other);
                d["decision"]["artifact"]["revision"] = json!(format!("sha256:{}", "1".repeat(64)));
                d
            },
            "decision dec_1",
        ),
    ] {
        let file = dir.join("line.jsonl");
        std::fs::write(&file, line.to_string() + "\n")?;
        let err = refused(review_mcp(&db, &["import", &file.to_string_lossy()])?)?;
        assert!(
            err.contains(&format!("{named}: the id is already held"))
                && err.contains(&review_mcp::text::quoted(SCRIPT_AND_FILLER, 200))
                && err.contains(&review_mcp::text::quoted(other, 200)),
            "{err}"
        );
    }
    Ok(())
}
