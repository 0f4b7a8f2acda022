//! `review-mcp sync` and `merge-file` end to end on small folders: validation refuses and
//! changes nothing, a dry run changes nothing, deletions against edits are kept and reported,
//! two ids for one key settle, and the merge driver leaves a file it cannot read to git; a
//! carried feature is not moved back to the revision it was carried from (by sync or import).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::ensure;

use crate::support::TempDir;
use crate::support::client::binary;

const REV: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

fn review_mcp(db: &Path, args: &[&str]) -> anyhow::Result<Output> {
    let mut cmd = Command::new(binary());
    // `merge-file` opens no database, and refuses `--db`.
    if args.first() != Some(&"merge-file") {
        cmd.arg("--db").arg(db);
    }
    Ok(cmd.args(args).env("MCP_LOG_LEVEL", "warn").output()?)
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

fn feature(id: &str, name: &str, note: &str, updated: &str) -> String {
    format!(
        r#"{{"record":{{"id":"{id}","kind":"feature","name":"{name}","note":"{note}","tags":[],"entity_ids":[],"id_scheme":"opaque","artifact":{{"revision":"{REV}","format":"step","uri":"file:///w/p.step"}},"created_at":"2026-01-01T00:00:00.000Z","updated_at":"{updated}"}}}}"#
    )
}

fn decision(id: &str, disposition: &str, updated: &str) -> String {
    format!(
        r#"{{"decision":{{"id":"{id}","subject":"bracket","disposition":"{disposition}","basis":[{{"requirement":"Bore 10 H7","source":"drawing","state":"satisfied","faces":[]}}],"artifact":{{"revision":"{REV}","format":"step","uri":"file:///w/p.step"}},"created_at":"2026-01-01T00:00:00.000Z","updated_at":"{updated}"}}}}"#
    )
}

const T1: &str = "2026-01-01T00:00:00.000Z";
const T2: &str = "2026-01-02T00:00:00.000Z";
const T3: &str = "2026-01-03T00:00:00.000Z";

/// A database holding `lines` (imported).
fn database(dir: &TempDir, name: &str, lines: &[String]) -> anyhow::Result<PathBuf> {
    let db = dir.join(name);
    let file = dir.join(&format!("{name}.jsonl"));
    std::fs::write(&file, lines.join("\n") + "\n")?;
    ok(review_mcp(&db, &["import", &file.to_string_lossy()])?)?;
    Ok(db)
}

/// A database holding two features, rec_1 "bore" and rec_2 "slot".
fn bore_and_slot(dir: &TempDir) -> anyhow::Result<PathBuf> {
    database(
        dir,
        "a.db",
        &[
            feature("rec_1", "bore", "x", T1),
            feature("rec_2", "slot", "y", T1),
        ],
    )
}

fn export(db: &Path) -> anyhow::Result<String> {
    ok(review_mcp(db, &["export"])?)
}

/// Every file under `dir` with its text, sorted.
fn snapshot(dir: &Path) -> anyhow::Result<Vec<(PathBuf, String)>> {
    let mut out = Vec::new();
    if !dir.exists() {
        return Ok(out);
    }
    for kind in ["records", "decisions"] {
        let sub = dir.join(kind);
        if !sub.exists() {
            continue;
        }
        for e in std::fs::read_dir(sub)? {
            let p = e?.path();
            out.push((p.clone(), std::fs::read_to_string(&p)?));
        }
    }
    out.sort();
    Ok(out)
}

/// The `conflict: …` lines of a sync's output (not its `conflicts: N` count).
fn conflict_lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("conflict: "))
        .map(str::to_string)
        .collect()
}

/// `db`'s dry run of a sync of `folder`, then the sync, whose conflict lines must be the dry
/// run's: the sync's output and those lines.
fn sync_as_dry_run_says(db: &Path, folder: &str) -> anyhow::Result<(String, Vec<String>)> {
    let dry = ok(review_mcp(db, &["sync", "--dry-run", folder])?)?;
    let out = ok(review_mcp(db, &["sync", folder])?)?;
    let conflicts = conflict_lines(&out);
    ensure!(
        conflict_lines(&dry) == conflicts,
        "the dry run reports what the sync does:\n{dry}\n{out}"
    );
    Ok((out, conflicts))
}

/// `db`'s one decision, `id`, scrapped with the engineer's terminal verdict, the folder's one
/// file the same, and a second sync that changes nothing.
fn alone_with_the_verdict(db: &Path, folder: &Path, id: &str) -> anyhow::Result<()> {
    let exported = export(db)?;
    let decisions: Vec<&str> = exported
        .lines()
        .filter(|l| l.starts_with(r#"{"decision":"#))
        .collect();
    ensure!(
        decisions.len() == 1
            && decisions[0].contains(&format!(r#""id":"{id}""#))
            && decisions[0].contains(r#""disposition":"scrap""#)
            && decisions[0].contains(r#""via":"terminal""#),
        "{id} keeps the key with the engineer's verdict: {exported}"
    );
    let files = snapshot(folder)?;
    ensure!(
        files.len() == 1
            && files[0].0.ends_with(format!("decisions/{id}.json"))
            && files[0].1.contains(r#""via": "terminal""#),
        "the folder holds {id} with the verdict: {files:?}"
    );
    let again = ok(review_mcp(db, &["sync", &folder.to_string_lossy()])?)?;
    ensure!(
        again.contains("written to the folder: 0 ")
            && again.contains("imported into the database: 0 ")
            && export(db)? == exported,
        "a second sync changes nothing: {again}"
    );
    Ok(())
}

#[test]
fn sync_folder_file_that_does_not_validate_refuses_and_changes_nothing() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-refuse")?;
    let db = database(
        &dir,
        "a.db",
        &[
            feature("rec_1", "bore", "x", T1),
            decision("dec_1", "hold", T1),
        ],
    )?;
    let folder = dir.join("review");
    ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    // A valid edit of one file, and a file holding a feature without a name.
    let rec = folder.join("records/rec_1.json");
    let edited = std::fs::read_to_string(&rec)?
        .replace("\"x\"", "\"edited\"")
        .replace(T1, T2);
    std::fs::write(&rec, &edited)?;
    let bad = folder.join("decisions/dec_1.json");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&bad)?.replace("\"hold\"", "7"),
    )?;
    let before = (export(&db)?, snapshot(&folder)?);
    let out = review_mcp(&db, &["sync", &folder.to_string_lossy()])?;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("decisions/dec_1.json"),
        "names the file: {err}"
    );
    assert!(err.contains("nothing was changed"), "{err}");
    // And how to fix it (regression: the refusal named the files and stopped there).
    assert!(
        err.contains("fix or remove each file named") && err.contains("then run sync again"),
        "says how to fix it: {err}"
    );
    assert_eq!(
        (export(&db)?, snapshot(&folder)?),
        before,
        "nothing changed"
    );
    Ok(())
}

#[test]
fn sync_dry_run_changes_nothing_and_a_second_sync_is_a_no_op() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-dry")?;
    let db = database(&dir, "a.db", &[feature("rec_1", "bore", "x", T1)])?;
    let folder = dir.join("review");
    let db_bytes = std::fs::read(&db)?;
    let plan = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    assert_eq!(
        std::fs::read(&db)?,
        db_bytes,
        "a dry run does not write the database"
    );
    assert!(plan.contains("would write records/rec_1.json"), "{plan}");
    assert!(plan.contains("nothing was changed"), "{plan}");
    // A folder that does not exist is said first (a mistyped name made a new folder unsaid).
    assert!(
        plan.starts_with(&format!(
            "would make the folder {}: it does not exist",
            folder.display()
        )),
        "{plan}"
    );
    assert!(!folder.exists(), "a dry run creates no folder");
    let fresh = dir.join("fresh.db");
    ok(review_mcp(
        &fresh,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    assert!(!fresh.exists(), "a dry run creates no database");

    let first = ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    assert!(
        first.contains("written to the folder: 1 (1 record"),
        "{first}"
    );
    assert!(first.starts_with("made the folder "), "{first}");
    let text = std::fs::read_to_string(folder.join("records/rec_1.json"))?;
    assert!(
        text.starts_with("{\n  \"record\": {\n    \"id\": \"rec_1\""),
        "{text}"
    );
    assert!(text.ends_with("}\n"));
    assert!(folder.join("README.md").exists());
    let before = (export(&db)?, snapshot(&folder)?);
    let second = ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    assert!(!second.contains("made the folder"), "{second}");
    assert!(
        second.contains("written to the folder: 0")
            && second.contains("imported into the database: 0")
            && second.contains("deleted: 0"),
        "{second}"
    );
    assert_eq!((export(&db)?, snapshot(&folder)?), before);
    Ok(())
}

#[test]
fn sync_deleted_on_one_side_and_changed_on_the_other_is_kept_and_reported() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-keep")?;
    let db = bore_and_slot(&dir)?;
    let folder = dir.join("review");
    ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    // rec_1: changed in the database (a later import), deleted in the folder.
    let update = dir.join("update.jsonl");
    std::fs::write(&update, feature("rec_1", "bore", "changed", T2) + "\n")?;
    ok(review_mcp(&db, &["import", &update.to_string_lossy()])?)?;
    std::fs::remove_file(folder.join("records/rec_1.json"))?;
    let out = ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    assert!(
        out.contains(
            "conflict: record rec_1 was deleted in the folder but changed in the database: kept"
        ),
        "{out}"
    );
    assert!(std::fs::read_to_string(folder.join("records/rec_1.json"))?.contains("changed"));
    // Unchanged on the other side, a deletion travels.
    std::fs::remove_file(folder.join("records/rec_2.json"))?;
    let out = ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    assert!(
        out.contains("deleted: 1 (1 record, 0 decisions): 0 from the folder, 1 from the database"),
        "{out}"
    );
    assert!(!export(&db)?.contains("rec_2"));
    Ok(())
}

#[test]
fn sync_two_ids_for_one_feature_keep_the_later_on_both_sides() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-key")?;
    let a = database(&dir, "a.db", &[feature("rec_a", "bore", "alice", T2)])?;
    let b = database(&dir, "b.db", &[feature("rec_b", "bore", "bob", T3)])?;
    let folder = dir.join("review");
    ok(review_mcp(&a, &["sync", &folder.to_string_lossy()])?)?;
    let out = ok(review_mcp(&b, &["sync", &folder.to_string_lossy()])?)?;
    assert!(
        out.contains("are one feature (locator and name) under two ids: kept rec_b, deleted rec_a"),
        "{out}"
    );
    assert!(!folder.join("records/rec_a.json").exists());
    ok(review_mcp(&a, &["sync", &folder.to_string_lossy()])?)?;
    assert_eq!(export(&a)?, export(&b)?);
    assert!(export(&a)?.contains("\"bob\""));
    Ok(())
}

#[test]
fn merge_file_that_is_not_an_item_is_left_to_git() -> anyhow::Result<()> {
    let dir = TempDir::new("merge-file")?;
    let db = dir.join("unused.db");
    let (base, ours, theirs) = (dir.join("base"), dir.join("ours"), dir.join("theirs"));
    let pretty = |line: &str| -> anyhow::Result<String> {
        let v: serde_json::Value = serde_json::from_str(line)?;
        Ok(serde_json::to_string_pretty(&v)? + "\n")
    };
    std::fs::write(&base, pretty(&decision("dec_1", "hold", T1))?)?;
    std::fs::write(&ours, "<<<<<<< ours\n{}\n=======\n")?;
    std::fs::write(&theirs, pretty(&decision("dec_1", "release", T2))?)?;
    let args = [
        base.to_string_lossy().into_owned(),
        ours.to_string_lossy().into_owned(),
        theirs.to_string_lossy().into_owned(),
    ];
    let run = |args: &[String]| -> anyhow::Result<Output> {
        let mut a = vec!["merge-file"];
        a.extend(args.iter().map(String::as_str));
        review_mcp(&db, &a)
    };
    let out = run(&args)?;
    assert!(!out.status.success());
    assert_eq!(
        std::fs::read_to_string(&ours)?,
        "<<<<<<< ours\n{}\n=======\n",
        "OURS untouched"
    );
    // Two real versions: the later is written to OURS, the conflict named on stderr.
    std::fs::write(&ours, pretty(&decision("dec_1", "rework", T3))?)?;
    let out = run(&args)?;
    assert!(out.status.success());
    assert!(std::fs::read_to_string(&ours)?.contains("\"rework\""));
    assert!(String::from_utf8_lossy(&out.stderr).contains("changed on both sides"));
    // With git's %P the messages name the file in the work tree and the side, not git's
    // temporary files; a fifth file is a usage error.
    std::fs::write(&ours, "<<<<<<< ours\n")?;
    let mut named = args.to_vec();
    named.push("review/decisions/dec_1.json".into());
    let out = run(&named)?;
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success());
    assert!(
        said.contains("review/decisions/dec_1.json (ours): "),
        "{said}"
    );
    assert!(!said.contains(&*ours.to_string_lossy()), "{said}");
    named.push("extra".into());
    assert_eq!(run(&named)?.status.code(), Some(2));
    assert!(!db.exists(), "merge-file opens no database");
    Ok(())
}

/// Regression (found in review): the first sync of a large database writes its files before
/// taking the write lock; a bad file already in the folder must still refuse it before
/// anything is written.
#[test]
fn sync_first_sync_of_many_items_with_a_bad_file_writes_nothing() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-first-bad")?;
    let lines: Vec<String> = (0..600)
        .map(|i| feature(&format!("rec_{i}"), &format!("f{i}"), "x", T1))
        .collect();
    let db = database(&dir, "a.db", &lines)?;
    let folder = dir.join("review");
    std::fs::create_dir_all(folder.join("records"))?;
    std::fs::write(folder.join("records/rec_bad.json"), "{\"record\": 1}\n")?;
    let out = review_mcp(&db, &["sync", &folder.to_string_lossy()])?;
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("records/rec_bad.json"));
    assert_eq!(snapshot(&folder)?.len(), 1, "only the bad file is there");
    std::fs::remove_file(folder.join("records/rec_bad.json"))?;
    let out = ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    assert!(
        out.contains("written to the folder: 600 (600 records"),
        "{out}"
    );
    assert_eq!(snapshot(&folder)?.len(), 600);
    Ok(())
}

/// Regression: the folder's files held a stored string's bidirectional controls, line
/// separators, C1 controls and DEL raw (serde_json leaves them), so `git diff`, `cat` or a
/// pull request showed a note in another order than it is stored (a "Trojan Source" right-to-
/// left override), a reader splitting lines at U+2028 saw a line of its own, and a C1 CSI
/// acted on the terminal. They are written as `\u202e`-style escapes, as the export writes
/// them: the same JSON value, so the folder reads back to the same database, and a second
/// sync changes nothing.
#[test]
fn folder_files_hold_no_raw_control_or_bidirectional_character() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-escaped")?;
    let note = r"x\u202Eevil\u2066y\u2069 \u2028forged line\u2029\u0085\u009b2J\u007f\u200e\u061c";
    let a = database(
        &dir,
        "a.db",
        &[
            feature("rec_a", "bore", note, T1),
            decision("dec_1", "hold", T1),
        ],
    )?;
    let folder = dir.join("review");
    ok(review_mcp(&a, &["sync", &folder.to_string_lossy()])?)?;
    let mut files = snapshot(&folder)?;
    for e in std::fs::read_dir(folder.join("history"))? {
        let p = e?.path();
        files.push((p.clone(), std::fs::read_to_string(&p)?));
    }
    ensure!(files.len() >= 3, "{files:?}");
    for (path, text) in &files {
        ensure!(
            !text
                .chars()
                .any(|c| c != '\n' && review_mcp::text::is_control_like(c)),
            "{}: {text:?}",
            path.display()
        );
    }
    let record = std::fs::read_to_string(folder.join("records/rec_a.json"))?;
    ensure!(
        record.contains(r"x\u202eevil\u2066y\u2069 \u2028forged"),
        "{record}"
    );
    let v: serde_json::Value = serde_json::from_str(&record)?;
    ensure!(
        v["record"]["note"]
            == "x\u{202e}evil\u{2066}y\u{2069} \u{2028}forged line\u{2029}\u{85}\u{9b}2J\u{7f}\u{200e}\u{61c}",
        "{v}"
    );
    // Nothing to do a second time; a new database synced from the folder holds the same.
    let again = ok(review_mcp(&a, &["sync", &folder.to_string_lossy()])?)?;
    ensure!(again.contains("written to the folder: 0"), "{again}");
    let b = dir.join("b.db");
    ok(review_mcp(&b, &["sync", &folder.to_string_lossy()])?)?;
    ensure!(export(&a)? == export(&b)?);
    Ok(())
}

/// Regression: an id `import` accepts became the file name `records/<id>.json` whatever it
/// was, so a database holding `CON`, `nul.x` or `com1` (device names on Windows), `a:b` (an
/// NTFS stream: git for Windows refuses to check the file out), or both `rec_A` and `rec_a`
/// (one file on the case-insensitive file systems of macOS and Windows: one item silently
/// overwrote the other) made a folder a teammate could not clone, or lost an item there.
/// Sync refuses such a database, naming the ids, and changes nothing.
#[test]
fn ids_that_are_no_file_name_on_every_system_refuse_the_sync() -> anyhow::Result<()> {
    let dir = TempDir::new("sync-reserved")?;
    for (ids, named) in [
        (&["CON"][..], "record CON"),
        (&["nul.x"], "record nul.x"),
        (&["Com1"], "record Com1"),
        (&["lpt9.a.b"], "record lpt9.a.b"),
        (&["a:b"], "record a:b"),
        (
            &["rec_A", "rec_b", "rec_a"],
            "rec_A (in the database) and rec_a (in the database)",
        ),
    ] {
        let lines: Vec<String> = ids
            .iter()
            .map(|id| feature(id, &format!("name {id}"), "n", T1))
            .collect();
        let db = database(
            &dir,
            &format!("{}.db", ids.join("-").replace(':', "_")),
            &lines,
        )?;
        let folder = dir.join(&format!("f-{}", ids.join("-").replace(':', "_")));
        let out = review_mcp(&db, &["sync", &folder.to_string_lossy()])?;
        let err = String::from_utf8_lossy(&out.stderr);
        ensure!(!out.status.success(), "{ids:?}: {err}");
        ensure!(err.contains(named), "{ids:?}: {err}");
        ensure!(err.contains("nothing was changed"), "{ids:?}: {err}");
        ensure!(snapshot(&folder)?.is_empty(), "{ids:?} wrote files");
    }
    // Names that only look like them are files like any other.
    let lines: Vec<String> = ["CONSOLE", "nul_x", "com10", "x.con", "rec_B"]
        .iter()
        .map(|id| feature(id, &format!("name {id}"), "n", T1))
        .collect();
    let db = database(&dir, "fine.db", &lines)?;
    let folder = dir.join("fine");
    ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    ensure!(snapshot(&folder)?.len() == 5);
    Ok(())
}

/// Regression (found by an audit): one database carried revision A of a part to B (face:3 to
/// face:13); a second, synced to the same folder, had not seen the carry and stated the
/// feature "mating" again at A, and restated the decision "bore" there. Its sync took the
/// later statement by its time: the feature moved back from B to A, B lost it, and only a
/// conflict line was shown. Now the feature stays at B, the statement at A is kept as what
/// A says of it (superseded), the decision at A stays superseded, and after a second sync
/// in each the two databases hold the same items.
#[test]
fn sync_never_moves_a_carried_feature_back_to_the_revision_it_was_carried_from()
-> anyhow::Result<()> {
    use crate::support::artifact;
    use crate::support::client::Server;
    use serde_json::{Value, json};
    let dir = TempDir::new("sync-carryback")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder = dir.join("review");
    let folder = folder.to_string_lossy();
    let (a, b) = (artifact("A", "/w/p.step"), artifact("B", "/w/p.step"));
    let basis = json!([{"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied",
                        "faces": ["face:3"]}]);
    // What a server on `db` states at A: the feature's note, the decision's disposition.
    let state_at_a = |db: &Path, note: &str, disposition: &str| -> anyhow::Result<Server> {
        let mut s = Server::start(db)?;
        let feature = json!({"artifact": a, "name": "mating", "entity_ids": ["face:3"],
                             "note": note});
        s.call("remember", feature)?.ok()?;
        let decision = json!({"artifact": a, "subject": "bore", "disposition": disposition,
                              "basis": basis});
        s.call("remember_decision", decision)?.ok()?;
        Ok(s)
    };
    let mut s = state_at_a(&one, "original", "accept")?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    ok(review_mcp(&two, &["sync", &folder])?)?;
    let carry = json!({"from": a, "to": b, "map": [{"from": "face:3", "to": "face:13"}]});
    s.call("carry_forward", carry)?.ok()?;
    s.close()?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    state_at_a(&two, "edited at A", "reject")?.close()?;
    let out = ok(review_mcp(&two, &["sync", &folder])?)?;
    assert!(out.contains("a carried feature never moves back"), "{out}");
    for db in [&one, &two, &one, &two] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    let items = |db: &Path| -> anyhow::Result<Vec<Value>> {
        let text = export(db)?;
        let mut lines = Vec::new();
        for l in text.lines() {
            let v: Value = serde_json::from_str(l)?;
            if v.get("event").is_none() {
                lines.push(v);
            }
        }
        Ok(lines)
    };
    let (rev_a, rev_b) = (&a["revision"], &b["revision"]);
    for db in [&one, &two] {
        let all = items(db)?;
        let of = |kind: &str, live: bool| -> Vec<&Value> {
            all.iter()
                .filter_map(|v| v.get(kind))
                .filter(|x| x.get("superseded").is_none() == live)
                .collect()
        };
        let (live, old) = (of("record", true), of("record", false));
        ensure!(live.len() == 1 && old.len() == 1, "{all:?}");
        ensure!(
            &live[0]["artifact"]["revision"] == rev_b,
            "stays at B: {all:?}"
        );
        ensure!(live[0]["entity_ids"] == json!(["face:13"]), "{all:?}");
        ensure!(&old[0]["artifact"]["revision"] == rev_a, "{all:?}");
        ensure!(
            old[0]["note"] == "edited at A",
            "the statement at A is kept: {all:?}"
        );
        let live = of("decision", true);
        ensure!(
            live.len() == 1 && &live[0]["artifact"]["revision"] == rev_b,
            "{all:?}"
        );
        ensure!(
            of("decision", false)[0]["disposition"] == "reject",
            "{all:?}"
        );
    }
    ensure!(items(&one)? == items(&two)?, "the same items in both");
    Ok(())
}

/// A server on `db` that has stated the feature "mating" of /w/p.step at revision `rev` (the
/// seed of [`crate::support::artifact`]) with `note`.
fn mating_at(db: &Path, rev: &str, note: &str) -> anyhow::Result<crate::support::client::Server> {
    let mut s = crate::support::client::Server::start(db)?;
    let at = crate::support::artifact(rev, "/w/p.step");
    let feature = serde_json::json!({"artifact": at, "name": "mating", "entity_ids": [],
                                     "note": note});
    s.call("remember", feature)?.ok()?;
    Ok(s)
}

/// Two (`two`) takes one's carry of "mating" from A to B (`one`'s export), forgets the feature
/// at B where it stands and states it anew at A ("stated at A by two", a new id): the name
/// stands at A again, beside the carry's copy there. An archive importing one's export then
/// two's holds that statement live at A (the later of two ids: two's export holds the copy at
/// A, so the statement was made where the carry was seen) and the carried id live nowhere.
/// The id of the one live record of `db`.
fn live_id(db: &Path) -> anyhow::Result<serde_json::Value> {
    let live: Vec<_> = records_of(db)?
        .into_iter()
        .filter(|r| r.get("superseded").is_none_or(serde_json::Value::is_null))
        .collect();
    ensure!(live.len() == 1, "one live record: {live:?}");
    Ok(live[0]["id"].clone())
}

fn forgot_at_b_and_stated_at_a(dir: &TempDir, one: &Path, two: &Path) -> anyhow::Result<()> {
    exported_into(dir, one, two)?;
    let mut s = crate::support::client::Server::start(two)?;
    let b = crate::support::artifact("B", "/w/p.step");
    s.call(
        "forget",
        serde_json::json!({"artifact": b, "name": "mating"}),
    )?
    .ok()?;
    s.close()?;
    mating_at(two, "A", "stated at A by two")?.close()?;
    Ok(())
}

/// Regression (converge::clones_hold_one_history_after_a_carry_and_statements_at_its_old_revision,
/// seeds 2472 and 2684 x 120, 57 x 200): database one carried the feature "mating" from A to
/// B while two, which had not seen the carry, stated it at C and synced; one's sync kept that
/// later statement (C was never carried past) and wrote A's superseded copy. Two then stated
/// the feature at A, still unaware of the carry, which moved its own row from C to A. Its next
/// sync, which brought the copy at A and the `carried` event, saw only the database changed
/// and wrote the feature at A to the folder: moved back to a revision carried past, where a
/// sync of a folder change (and `remember` in a clone that knows the carry) keeps such a
/// statement as what A says. The other databases then corrected it on import, and two took
/// the correction last with a sync event of its own: the clones' histories differed. Now two's
/// sync keeps the feature at C and the statement in A's copy, as the others would.
#[test]
fn sync_keeps_a_statement_at_a_revision_carried_past_in_its_copy_when_only_the_database_changed()
-> anyhow::Result<()> {
    use crate::support::artifact;
    use serde_json::{Value, json};
    let dir = TempDir::new("sync-carried-past-here")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    let state = mating_at;
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let mut s = state(&one, "A", "original")?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    ok(review_mcp(&two, &["sync", &folder])?)?;
    let carry = json!({"from": at("A"), "to": at("B"), "map": []});
    s.call("carry_forward", carry)?.ok()?;
    s.close()?;
    pause();
    state(&two, "C", "at C")?.close()?;
    ok(review_mcp(&two, &["sync", &folder])?)?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    pause();
    state(&two, "A", "stated again at A")?.close()?;
    let out = ok(review_mcp(&two, &["sync", &folder])?)?;
    assert!(out.contains("which a carry moved it on from"), "{out}");
    // What the folder holds for everyone: the feature at C, the statement in A's copy.
    let records: Vec<Value> = snapshot(&folder_path)?
        .iter()
        .filter(|(p, _)| p.parent().is_some_and(|d| d.ends_with("records")))
        .map(|(_, text)| serde_json::from_str::<Value>(text).map(|v| v["record"].clone()))
        .collect::<Result<_, _>>()?;
    let rev = |r: &Value| r["artifact"]["revision"].clone();
    let live: Vec<&Value> = records
        .iter()
        .filter(|r| r.get("superseded").is_none())
        .collect();
    let copies: Vec<&Value> = records
        .iter()
        .filter(|r| r.get("superseded").is_some())
        .collect();
    ensure!(live.len() == 1 && copies.len() == 1, "{records:?}");
    ensure!(
        rev(live[0]) == at("C")["revision"] && live[0]["note"] == "at C",
        "the feature stays at C: {records:?}"
    );
    ensure!(
        rev(copies[0]) == at("A")["revision"] && copies[0]["note"] == "stated again at A",
        "the statement is what A says: {records:?}"
    );
    // One takes it, and two anything one added.
    for db in [&one, &two, &one] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    let out = ok(review_mcp(&two, &["sync", &folder])?)?;
    ensure!(
        out.contains("history events: 0 written to the folder, 0 imported")
            && out.contains("written to the folder: 0 ")
            && out.contains("imported into the database: 0 "),
        "nothing left to sync: {out}"
    );
    // (Events of one item and millisecond may be listed in either order.)
    let sorted = |db: &Path| -> anyhow::Result<Vec<String>> {
        let mut lines: Vec<String> = export(db)?.lines().map(str::to_string).collect();
        lines.sort();
        Ok(lines)
    };
    ensure!(
        sorted(&one)? == sorted(&two)?,
        "one history, one state in both"
    );
    Ok(())
}

/// Database one holds the feature "mating" at A, shared with two (`synced`: through a sync
/// of the folder, else an import of one's export), carries A on to B and forgets the feature
/// at B (and, `copy_forgotten`, what A says of it: then only the carry's `carried` event says
/// A was carried past); two, which has not seen the carry, states it again at A; each syncs
/// (`one_first`: one first), then each twice more. Checks the two databases then hold the same items, as
/// [`the_forget_stands_and_the_statement_is_what_a_says`], and that the syncs said so.
fn forgotten_after_the_carry_in(
    synced: bool,
    copy_forgotten: bool,
    one_first: bool,
) -> anyhow::Result<()> {
    use serde_json::Value;
    let dir = TempDir::new("sync-carried-forgotten")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let state = mating_at;
    let s = state(&one, "A", "original")?;
    if synced {
        ok(review_mcp(&one, &["sync", &folder])?)?;
        ok(review_mcp(&two, &["sync", &folder])?)?;
    } else {
        let file = dir.join("one.jsonl");
        std::fs::write(&file, export(&one)?)?;
        ok(review_mcp(&two, &["import", &file.to_string_lossy()])?)?;
    }
    carried_and_forgotten(s, copy_forgotten)?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    state(&two, "A", "stated again at A")?.close()?;
    let order = if one_first {
        [&one, &two]
    } else {
        [&two, &one]
    };
    let mut said = String::new();
    for (i, db) in order.iter().chain(&order).chain(&order).enumerate() {
        said += &ok(review_mcp(db, &["sync", &folder])?)?;
        // Once a database that knows the carry has synced, the folder never holds the feature
        // (live) back at A, even for a while (two, syncing first, knows nothing of it).
        if i == 0 && !one_first {
            continue;
        }
        for (path, text) in snapshot(&folder_path)? {
            let item: Value = serde_json::from_str(&text)?;
            ensure!(
                item["record"].get("superseded").is_some(),
                "{} holds the feature live after {}'s sync: {text}",
                path.display(),
                db.display()
            );
        }
    }
    let items = |db: &Path| -> anyhow::Result<Vec<Value>> {
        let mut lines = Vec::new();
        for l in export(db)?.lines() {
            let v: Value = serde_json::from_str(l)?;
            if v.get("event").is_none() {
                lines.push(v);
            }
        }
        Ok(lines)
    };
    let all = items(&one)?;
    ensure!(all == items(&two)?, "the same items in both");
    the_forget_stands_and_the_statement_is_what_a_says(&all)?;
    ensure!(said.contains("which a carry moved it on from"), "{said}");
    // The deletion says how to have the feature again: its saved version imports as A's copy.
    let b = crate::support::artifact("B", "/w/p.step");
    ensure!(
        said.lines().any(|l| l.contains("forgotten after the carry")
            && l.contains(&format!(
                "to have it again, remember it where its review stands: revision {}, or where \
                 that was carried on to",
                b["revision"].as_str().unwrap_or_default()
            ))),
        "{said}"
    );
    Ok(())
}

/// [`forgotten_after_the_carry_in`] the ways the feature reaches two: by import, by an
/// earlier sync, and by import with the copy at A forgotten too.
fn forgotten_after_the_carry(one_first: bool) -> anyhow::Result<()> {
    for (synced, copy_forgotten) in [(false, false), (true, false), (false, true)] {
        forgotten_after_the_carry_in(synced, copy_forgotten, one_first).map_err(|e| {
            anyhow::anyhow!("synced before: {synced}, copy forgotten: {copy_forgotten}: {e}")
        })?;
    }
    Ok(())
}

/// `s` (a server that stated "mating" at A) carries A on to B and forgets the feature at B
/// (and, `copy_forgotten`, what A says of it), then closes.
fn carried_and_forgotten(
    mut s: crate::support::client::Server,
    copy_forgotten: bool,
) -> anyhow::Result<()> {
    use serde_json::json;
    let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
    let carry = json!({"from": at("A"), "to": at("B"), "map": []});
    s.call("carry_forward", carry)?.ok()?;
    let forget = s.call("forget", json!({"artifact": at("B"), "name": "mating"}))?;
    ensure!(forget.ok()?["deleted"] == 1, "forgotten at B");
    if copy_forgotten {
        let forget = s.call("forget", json!({"artifact": at("A"), "name": "mating"}))?;
        ensure!(forget.ok()?["deleted"] == 1, "the copy at A forgotten");
    }
    s.close()?;
    Ok(())
}

/// What the two databases of [`forgotten_after_the_carry_in`] hold: the feature nowhere (its
/// forget after the carry stands), and two's statement as what A says of it, in A's copy.
fn the_forget_stands_and_the_statement_is_what_a_says(
    all: &[serde_json::Value],
) -> anyhow::Result<()> {
    let records: Vec<&serde_json::Value> = all.iter().filter_map(|v| v.get("record")).collect();
    let live = records.iter().filter(|r| r.get("superseded").is_none());
    ensure!(live.count() == 0, "the feature is forgotten: {records:?}");
    let a = crate::support::artifact("A", "/w/p.step");
    ensure!(
        records.len() == 1
            && records[0]["artifact"]["revision"] == a["revision"]
            && records[0]["note"] == "stated again at A",
        "the statement is what A says (superseded): {records:?}"
    );
    Ok(())
}

/// Regression (converge::a_carried_feature_forgotten_after_the_carry_does_not_come_back_at_the_old_revision,
/// seed 3376 x 120): one carried the feature from A to B and forgot it at B; two, which had
/// not seen the carry, stated it again at A. One synced first (the copy at A, no file of the
/// feature); two's sync met the feature in its database alone, at A, with no version of it
/// elsewhere in the folder, and wrote it to the folder at A (or, shared by an earlier sync,
/// kept it against the folder's deletion): moved back to a revision carried past, and every
/// clone took it. Now the statement is what A says of it (its copy) and the forget stands; so
/// when one forgot that copy too, the carry's `carried` event of the feature saying A was
/// carried past.
#[test]
fn sync_does_not_bring_a_carried_feature_forgotten_after_the_carry_back_from_the_database()
-> anyhow::Result<()> {
    forgotten_after_the_carry(true)
}

/// The mirror of
/// `sync_does_not_bring_a_carried_feature_forgotten_after_the_carry_back_from_the_database`:
/// two synced first (its statement at A written to the folder), and one's sync met the
/// feature in the folder alone, at A, its own forgotten, and imported it at A (or, shared by
/// an earlier sync, kept it against the database's deletion). Now the statement is what A
/// says of it and the forget stands.
#[test]
fn sync_does_not_bring_a_carried_feature_forgotten_after_the_carry_back_from_the_folder()
-> anyhow::Result<()> {
    forgotten_after_the_carry(false)
}

/// Regression (found beside
/// `sync_does_not_bring_a_carried_feature_forgotten_after_the_carry_back_from_the_database`):
/// `import` shares sync's rule. Database one carried the feature "mating" from A to B and
/// forgot it at B (and, `copy_forgotten`, what A says of it); two, which had imported it
/// before the carry, stated it again at A. One's import of two's export added the feature at
/// A, free there: moved back to a revision carried past, in a database that knew the carry.
/// Now the line is what A says of it (its copy, or a new one the carry's `carried` event
/// says is due) and the forget stands.
#[test]
fn import_does_not_bring_a_carried_feature_forgotten_after_the_carry_back() -> anyhow::Result<()> {
    use crate::support::artifact;
    for copy_forgotten in [false, true] {
        let dir = TempDir::new("import-carried-forgotten")?;
        let (one, two) = (dir.join("one.db"), dir.join("two.db"));
        let at = |rev: &str| artifact(rev, "/w/p.step");
        let state = |db: &Path, note: &str| mating_at(db, "A", note);
        let import = |from: &Path, into: &Path| exported_into(&dir, from, into);
        let s = state(&one, "original")?;
        import(&one, &two)?;
        carried_and_forgotten(s, copy_forgotten)?;
        std::thread::sleep(std::time::Duration::from_millis(5));
        state(&two, "stated again at A")?.close()?;
        import(&two, &one)?;
        let records = records_of(&one)?;
        ensure!(
            records.len() == 1
                && records[0].get("superseded").is_some()
                && records[0]["artifact"]["revision"] == at("A")["revision"]
                && records[0]["note"] == "stated again at A",
            "copy forgotten: {copy_forgotten}: the feature stays forgotten, and the line is what \
             A says of it: {records:?}"
        );
    }
    Ok(())
}

/// Regression (converge::an_import_does_not_move_a_carried_feature_back_over_the_name_stated_anew,
/// seed 600 x 200): as `import_does_not_bring_a_carried_feature_forgotten_after_the_carry_back`,
/// with one stating "mating" anew at B (an id of its own) after the forget, before two's
/// (later) statement at A arrives. The import judged the line against that feature, the
/// holder of the name, and the later line took the key: the carried feature was live again at
/// A beside its own superseded copy there (an export that, imported anew, turned the live
/// line into the copy). Now the line is what A says of it, whoever holds the name: the
/// feature stated anew stays at B.
#[test]
fn an_import_does_not_move_a_forgotten_carried_feature_back_over_another_id() -> anyhow::Result<()>
{
    for copy_forgotten in [false, true] {
        let dir = TempDir::new("import-carried-other-id")?;
        let (one, two, anew) = (dir.join("one.db"), dir.join("two.db"), dir.join("anew.db"));
        let import = |from: &Path, into: &Path| -> anyhow::Result<String> {
            let file = dir.join("export.jsonl");
            std::fs::write(&file, export(from)?)?;
            ok(review_mcp(into, &["import", &file.to_string_lossy()])?)
        };
        let s = mating_at(&one, "A", "original")?;
        import(&one, &two)?;
        carried_and_forgotten(s, copy_forgotten)?;
        mating_at(&one, "B", "stated anew at B")?.close()?;
        std::thread::sleep(std::time::Duration::from_millis(5));
        mating_at(&two, "A", "stated again at A")?.close()?;
        import(&two, &one)?;
        live_at_b_and_one_copy_at_a(&one, "stated anew at B", "stated again at A")
            .map_err(|e| anyhow::anyhow!("copy forgotten: {copy_forgotten}: {e}"))?;
        import(&one, &anew)?;
        ensure!(
            export(&anew)? == export(&one)?,
            "copy forgotten: {copy_forgotten}: export -> import -> export is the same"
        );
    }
    Ok(())
}

/// Regression: `import`'s report counted a line it kept as what an old revision says of a
/// carried feature (the line stating the feature at a revision a carry moved it on from,
/// written into that revision's superseded copy) as "kept the database's" version, though
/// the line's statement was written and the database's text of the copy replaced. It now
/// counts such a line apart and says what became of it; so for a line met by the feature
/// still standing where the carry took it.
#[test]
fn import_reports_a_line_kept_as_what_a_revision_carried_past_says() -> anyhow::Result<()> {
    for forgotten in [true, false] {
        let dir = TempDir::new("import-carried-report")?;
        let (one, two) = (dir.join("one.db"), dir.join("two.db"));
        let import = |from: &Path, into: &Path| exported_into(&dir, from, into);
        let mut s = mating_at(&one, "A", "original")?;
        import(&one, &two)?;
        if forgotten {
            carried_and_forgotten(s, false)?;
        } else {
            let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
            let carry = serde_json::json!({"from": at("A"), "to": at("B"), "map": []});
            s.call("carry_forward", carry)?.ok()?;
            s.close()?;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
        mating_at(&two, "A", "stated again at A")?.close()?;
        let said = import(&two, &one)?;
        ensure!(
            said.contains("added 0, replaced 0, kept the database's 0")
                && said.contains("kept 1 as what the revision it states says"),
            "forgotten at B: {forgotten}: {said}"
        );
        ensure!(
            export(&one)?.contains("stated again at A"),
            "the line's statement is written"
        );
    }
    Ok(())
}

/// Imports `from`'s export into `into` (through a file in `dir`), returning import's report.
fn exported_into(dir: &TempDir, from: &Path, into: &Path) -> anyhow::Result<String> {
    let file = dir.join("export.jsonl");
    std::fs::write(&file, export(from)?)?;
    ok(review_mcp(into, &["import", &file.to_string_lossy()])?)
}

/// The records `db` exports, in its order.
fn records_of(db: &Path) -> anyhow::Result<Vec<serde_json::Value>> {
    let mut out = Vec::new();
    for l in export(db)?.lines() {
        let mut v: serde_json::Value = serde_json::from_str(l)?;
        if let Some(r) = v.get_mut("record") {
            out.push(r.take());
        }
    }
    Ok(out)
}

/// `db` holds "mating" live at B saying `live_note`, and one superseded copy, at A, saying
/// `copy_note`: the feature stays where the carry took it, and the statement at A is what A
/// says of it.
fn live_at_b_and_one_copy_at_a(db: &Path, live_note: &str, copy_note: &str) -> anyhow::Result<()> {
    let records = records_of(db)?;
    let rev = |r: &serde_json::Value| r["artifact"]["revision"].clone();
    let at = |r: &str| crate::support::artifact(r, "/w/p.step")["revision"].clone();
    let (copies, live): (Vec<_>, Vec<_>) =
        records.iter().partition(|r| r.get("superseded").is_some());
    ensure!(
        live.len() == 1 && rev(live[0]) == at("B") && live[0]["note"] == live_note,
        "{}: the feature stays at B, saying {live_note:?}: {records:?}",
        db.display()
    );
    ensure!(
        copies.len() == 1 && rev(copies[0]) == at("A") && copies[0]["note"] == copy_note,
        "{}: the statement is what A says of it, {copy_note:?}: {records:?}",
        db.display()
    );
    Ok(())
}

/// The artifact of revision `rev` (the seed of [`crate::support::artifact`]) with no uri.
fn without_uri(rev: &str) -> serde_json::Value {
    let mut a = crate::support::artifact(rev, "/w/p.step");
    a.as_object_mut().map(|o| o.remove("uri"));
    a
}

/// States the feature "mating", recorded without a uri, at revision A in `db`, with `note`.
fn mating_without_uri_at_a(db: &Path, note: &str) -> anyhow::Result<()> {
    let mut s = crate::support::client::Server::start(db)?;
    let feature = serde_json::json!({"artifact": without_uri("A"), "name": "mating",
                                     "entity_ids": [], "note": note});
    s.call("remember", feature)?.ok()?;
    s.close()?;
    Ok(())
}

/// Carries revision A on to B (no uri) in `db`.
fn carry_without_uri(db: &Path) -> anyhow::Result<()> {
    let mut s = crate::support::client::Server::start(db)?;
    let carry = serde_json::json!({"from": without_uri("A"), "to": without_uri("B"), "map": []});
    s.call("carry_forward", carry)?.ok()?;
    s.close()?;
    Ok(())
}

/// Regression (found by an adversarial read of the carried-and-forgotten rule): a feature
/// recorded without a uri is keyed by its revision (its locator), and `carry_forward` moves it
/// on to the next revision under its id, as it moves a feature of a file. Sync's rule that an
/// id names one key for good (`merge::moved_key`) compared that locator, so every other
/// clone's sync refused the carried feature's file ("an id names one record for good ... no
/// review-mcp moves one to another revision") and stayed refused: a plain carry stopped the
/// team's sync, and so did a statement at the old revision made before the carry was seen.
/// A feature's key is now its name and file (its uri, none here), as for a feature of a file.
#[test]
fn sync_takes_the_carry_of_a_feature_recorded_without_a_uri() -> anyhow::Result<()> {
    use serde_json::Value;
    let at = without_uri;
    for restated in [false, true] {
        let dir = TempDir::new("sync-carried-no-uri")?;
        let (one, two) = (dir.join("one.db"), dir.join("two.db"));
        let folder = dir.join("review").to_string_lossy().into_owned();
        let state = mating_without_uri_at_a;
        state(&one, "original")?;
        ok(review_mcp(&one, &["sync", &folder])?)?;
        ok(review_mcp(&two, &["sync", &folder])?)?;
        carry_without_uri(&one)?;
        if restated {
            std::thread::sleep(std::time::Duration::from_millis(5));
            state(&two, "stated again at A")?;
        }
        for db in [&one, &two, &one, &two] {
            ok(review_mcp(db, &["sync", &folder])?)
                .map_err(|e| anyhow::anyhow!("restated at A: {restated}: {e}"))?;
        }
        let records = records_of;
        let all = records(&one)?;
        ensure!(all == records(&two)?, "the same records in both: {all:?}");
        let live: Vec<&Value> = all
            .iter()
            .filter(|r| r.get("superseded").is_none())
            .collect();
        ensure!(
            live.len() == 1 && live[0]["artifact"]["revision"] == at("B")["revision"],
            "restated at A: {restated}: the feature stands at B: {all:?}"
        );
    }
    Ok(())
}

/// Regression, the import side of [`sync_takes_the_carry_of_a_feature_recorded_without_a_uri`]:
/// import looked the holder of a line stating a feature without a uri up by its locator, the
/// revision, so a line from a clone that had not seen a carry of it (the feature at the old
/// revision) met the carried feature by id alone and refused the whole file ("the id is
/// already held by another record"), and so did the carried feature's line in that clone.
/// Each is now judged against the feature under its id, as for a feature of a file: the
/// carry stands, and the statement at the old revision is what that revision says of it.
#[test]
fn import_takes_the_carry_of_a_feature_recorded_without_a_uri() -> anyhow::Result<()> {
    use serde_json::Value;
    let at = without_uri;
    let dir = TempDir::new("import-carried-no-uri")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let import = |from: &Path, into: &Path| exported_into(&dir, from, into);
    let state = mating_without_uri_at_a;
    state(&one, "original")?;
    import(&one, &two)?;
    carry_without_uri(&one)?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    state(&two, "stated again at A")?;
    import(&two, &one).map_err(|e| anyhow::anyhow!("two's export into one: {e}"))?;
    import(&one, &two).map_err(|e| anyhow::anyhow!("one's export into two: {e}"))?;
    for db in [&one, &two] {
        let records = records_of(db)?;
        let (live, copies): (Vec<&Value>, Vec<&Value>) =
            records.iter().partition(|r| r.get("superseded").is_none());
        ensure!(
            live.len() == 1
                && live[0]["artifact"]["revision"] == at("B")["revision"]
                && copies.len() == 1
                && copies[0]["artifact"]["revision"] == at("A")["revision"]
                && copies[0]["note"] == "stated again at A",
            "{}: the feature stands at B, the statement is what A says: {records:?}",
            db.display()
        );
    }
    Ok(())
}

/// Regression (adversarial read of the carried-and-forgotten rule): a folder's superseded copy
/// dated ahead of this machine's clock (a wrong clock, or a file written by hand) that a sync
/// took as what its revision says of a feature (`keep_stayed`, here for the database's
/// statement of the feature at that revision once the feature's file was gone) was never
/// checked against the clock when its id sorted after the feature's: keep_stayed settled it
/// first, and sync skips a settled item, so no "clock:" line named it, though its date keeps
/// its text over every later statement there. The clock line now names it whichever the order.
#[test]
fn sync_names_a_copy_dated_ahead_that_it_keeps_for_a_statement_at_a_revision_carried_past()
-> anyhow::Result<()> {
    use serde_json::json;
    let dir = TempDir::new("sync-copy-ahead")?;
    // rec_0 sorts before the id of its copy at REV (derived: rec_f598fbfe55ac2096).
    let db = database(&dir, "a.db", &[feature("rec_0", "mating", "synced", T1)])?;
    let folder = dir.join("review");
    ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    let mut s = crate::support::client::Server::start(&db)?;
    let at = json!({"revision": REV, "format": "step", "uri": "/w/p.step"});
    let edit = json!({"artifact": at, "name": "mating", "entity_ids": [], "note": "edited here"});
    s.call("remember", edit)?.ok()?;
    s.close()?;
    std::fs::remove_file(folder.join("records/rec_0.json"))?;
    let copy = "rec_f598fbfe55ac2096";
    let line = feature(copy, "mating", "planted", "2099-01-01T00:00:00.000Z");
    let mut v: serde_json::Value = serde_json::from_str(&line)?;
    v["record"]["superseded"] = json!({"at": T1, "by": REV.replace('0', "1")});
    std::fs::write(folder.join(format!("records/{copy}.json")), v.to_string())?;
    let out = ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    ensure!(
        out.contains("which a carry moved it on from"),
        "the copy is taken for the statement: {out}"
    );
    ensure!(
        out.lines()
            .any(|l| l.starts_with("clock: ") && l.contains(copy) && l.contains("2099")),
        "the copy dated ahead is named: {out}"
    );
    Ok(())
}

/// Regression: a version merge-file set aside (`records/.<id>.json.kept`) stands for its
/// item's file only while that file is absent, and one whose item's file was back beside it
/// (a `git merge --abort` restores the file git was deleting and leaves the untracked version
/// set aside; `git add -A` then commits it) was left there, unseen: the day the item's file went
/// (a teammate's forget, pulled), that stale version stood for it, and the forget was undone,
/// in every clone, each time it was repeated.
#[test]
fn sync_a_set_aside_version_beside_its_item_s_file_is_removed_not_left_to_undo_a_forget()
-> anyhow::Result<()> {
    let dir = TempDir::new("sync-stale-kept")?;
    let db = bore_and_slot(&dir)?;
    let folder = dir.join("review");
    let sync = || review_mcp(&db, &["sync", &folder.to_string_lossy()]).and_then(ok);
    sync()?;
    let own = folder.join("records/rec_1.json");
    let kept = folder.join("records/.rec_1.json.kept");
    std::fs::copy(&own, &kept)?;
    let dry = ok(review_mcp(
        &db,
        &["sync", "--dry-run", &folder.to_string_lossy()],
    )?)?;
    ensure!(
        dry.contains("would delete records/.rec_1.json.kept") && kept.exists(),
        "{dry}"
    );
    let out = sync()?;
    ensure!(
        out.contains("deleted records/.rec_1.json.kept"),
        "sync says so: {out}"
    );
    ensure!(!kept.exists(), "the stale version set aside is gone");
    // A teammate's forget of bore, pulled: its file goes, and so does bore.
    std::fs::remove_file(&own)?;
    sync()?;
    let out = sync()?;
    ensure!(!own.exists(), "bore's file stays deleted: {out}");
    ensure!(!export(&db)?.contains("rec_1"), "bore stays forgotten");
    Ok(())
}

/// Regression: a version merge-file set aside for an item this database has forgotten since
/// stands for a file sync deletes: sync said both "restored records/<id>.json …: commit it"
/// and "deleted from the folder: records/<id>.json", and left no file to commit; its dry run
/// said both "would restore" and "would delete".
#[test]
fn sync_a_set_aside_version_of_a_forgotten_item_is_not_said_restored() -> anyhow::Result<()> {
    use crate::support::artifact;
    use crate::support::client::Server;
    use serde_json::json;
    let dir = TempDir::new("sync-kept-forgotten")?;
    let db = dir.join("a.db");
    let mut s = Server::start(&db)?;
    let a = artifact("A", "/w/p.step");
    for name in ["bore", "slot"] {
        let feature = json!({"artifact": a, "name": name, "entity_ids": [], "note": "x"});
        s.call("remember", feature)?.ok()?;
    }
    let folder = dir.join("review");
    let sync = || review_mcp(&db, &["sync", &folder.to_string_lossy()]).and_then(ok);
    sync()?;
    let bore = export(&db)?
        .lines()
        .find(|l| l.contains("\"bore\""))
        .and_then(|l| l.split("\"id\":\"").nth(1))
        .and_then(|rest| rest.split('"').next())
        .map(str::to_string)
        .ok_or_else(|| anyhow::anyhow!("no bore"))?;
    let own = folder.join(format!("records/{bore}.json"));
    let kept = folder.join(format!("records/.{bore}.json.kept"));
    std::fs::rename(&own, &kept)?;
    s.call("forget", json!({"artifact": a, "name": "bore"}))?
        .ok()?;
    s.close()?;
    // The dry run says what the sync does: the version set aside goes, nothing is restored.
    let dry = review_mcp(&db, &["sync", "--dry-run", &folder.to_string_lossy()]).and_then(ok)?;
    ensure!(
        !dry.contains("restore")
            && dry.contains(&format!(
                "would delete records/.{bore}.json.kept (merge-file set aside records/{bore}.json, \
                 which this sync deletes)"
            ))
            && kept.exists(),
        "{dry}"
    );
    let out = sync()?;
    ensure!(
        !own.exists() && !kept.exists(),
        "bore stays forgotten: {out}"
    );
    ensure!(
        !out.contains("restored")
            && out.contains(&format!("deleted from the folder: records/{bore}.json")),
        "{out}"
    );
    Ok(())
}

/// Regression: whether a revision was carried past for a feature (sync's rule that a
/// statement there never moves a carried feature back) was read from the database with every
/// read error taken as "no": a history the database could not read let the folder's version
/// move the feature to that revision, a warning in the log the only trace. A failed read now
/// stops the sync, naming it, and nothing changes.
#[test]
fn sync_stops_when_the_history_it_judges_a_carry_by_does_not_read() -> anyhow::Result<()> {
    use crate::support::client::Server;
    use crate::support::{artifact, revision};
    use serde_json::json;
    let dir = TempDir::new("sync-carry-unread")?;
    let db = dir.join("a.db");
    let mut s = Server::start(&db)?;
    let feature = json!({"artifact": artifact("A", "/w/p.step"), "name": "mating",
                         "entity_ids": [], "note": "x"});
    s.call("remember", feature)?.ok()?;
    s.close()?;
    let folder = dir.join("review");
    let f = folder.to_string_lossy();
    ok(review_mcp(&db, &["sync", &f])?)?;
    // A teammate's commit states the feature at revision B (only the folder changed) ...
    let file = std::fs::read_dir(folder.join("records"))?
        .next()
        .ok_or_else(|| anyhow::anyhow!("no record file"))??
        .path();
    let text = std::fs::read_to_string(&file)?.replace(&revision("A"), &revision("B"));
    std::fs::write(&file, text)?;
    // ... and the database's history of revision B cannot be read (a damaged event).
    let conn = rusqlite::Connection::open(&db)?;
    conn.execute(
        "INSERT INTO events (id, at, step, of, locator, revision, body) \
         VALUES ('evt-damaged', '2026-01-01T00:00:00.000Z', 0, 'rec_x', 'file:///w/p.step', ?1, '{')",
        [revision("B")],
    )?;
    let stands = |conn: &rusqlite::Connection| -> rusqlite::Result<String> {
        conn.query_row(
            "SELECT revision FROM records WHERE name = 'mating' AND superseded IS NULL",
            [],
            |r| r.get(0),
        )
    };
    ensure!(stands(&conn)? == revision("A"));
    let out = review_mcp(&db, &["sync", &f])?;
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    ensure!(!out.status.success(), "the sync stops: {said}");
    ensure!(
        said.contains("cannot tell whether revision")
            && said.contains("malformed JSON")
            && said.contains("nothing was changed"),
        "and says why: {said}"
    );
    ensure!(
        stands(&conn)? == revision("A"),
        "nothing changed: the feature stays at A"
    );
    Ok(())
}

/// The lines `db` exports, sorted (events of one item and millisecond may be listed in either
/// order).
fn sorted_export(db: &Path) -> anyhow::Result<Vec<String>> {
    let mut lines: Vec<String> = export(db)?.lines().map(str::to_string).collect();
    lines.sort();
    Ok(lines)
}

/// Whether `dbs` end as one: the same export, history included (sorted), `check` ok in each,
/// and an export imported into an empty database exports the same.
fn clones_end_as_one(dir: &TempDir, dbs: &[&Path]) -> anyhow::Result<()> {
    let first = sorted_export(dbs[0])?;
    for db in dbs {
        ensure!(
            sorted_export(db)? == first,
            "{} differs from {}",
            db.display(),
            dbs[0].display()
        );
        ok(review_mcp(db, &["check"])?)?;
    }
    let empty = dir.join("empty.db");
    exported_into(dir, dbs[0], &empty)?;
    ensure!(
        export(&empty)? == export(dbs[0])?,
        "export -> import into an empty database -> export is the same"
    );
    Ok(())
}

/// The sync mirror of `an_import_does_not_move_a_forgotten_carried_feature_back_over_another_id`:
/// database one carries "mating" (its id) from A to B, forgets it at B (and,
/// `copy_forgotten`, what A says of it), then states "mating" anew at B (an id of its own);
/// two, which had the feature at A (`synced`: by an earlier sync, else an import) and never
/// saw the carry, states it again at A; each syncs (`one_first`: one first), then each twice
/// more. The feature stated anew stays at B, two's statement is what A says of it (in the
/// feature's own copy there, the one copy at A), and the clones end as one. Regression: with
/// one syncing first, two's sync met the two ids as one feature and, when it came to the
/// feature stated anew first (the order of the two ids), wrote the statement into a copy
/// named after that id, beside the carried feature's own copy at A: two copies at A.
fn stated_anew_after_the_forget_in(
    synced: bool,
    copy_forgotten: bool,
    one_first: bool,
) -> anyhow::Result<()> {
    let dir = TempDir::new("sync-carried-other-id")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let s = mating_at(&one, "A", "original")?;
    if synced {
        ok(review_mcp(&one, &["sync", &folder])?)?;
        ok(review_mcp(&two, &["sync", &folder])?)?;
    } else {
        exported_into(&dir, &one, &two)?;
    }
    carried_and_forgotten(s, copy_forgotten)?;
    mating_at(&one, "B", "stated anew at B")?.close()?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    mating_at(&two, "A", "stated again at A")?.close()?;
    let order = if one_first {
        [&one, &two]
    } else {
        [&two, &one]
    };
    for db in order.iter().chain(&order).chain(&order) {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    for db in [&one, &two] {
        live_at_b_and_one_copy_at_a(db, "stated anew at B", "stated again at A")?;
    }
    clones_end_as_one(&dir, &[&one, &two])
}

/// See [`stated_anew_after_the_forget_in`]: every way the feature reaches two, and both orders.
#[test]
fn sync_does_not_move_a_forgotten_carried_feature_back_over_another_id() -> anyhow::Result<()> {
    for one_first in [true, false] {
        for (synced, copy_forgotten) in [(false, false), (true, false), (false, true), (true, true)]
        {
            stated_anew_after_the_forget_in(synced, copy_forgotten, one_first).map_err(|e| {
                anyhow::anyhow!(
                    "one first: {one_first}, synced before: {synced}, copy forgotten: \
                     {copy_forgotten}: {e}"
                )
            })?;
        }
    }
    Ok(())
}

/// Both sides changed (`Action::Resolve`): one and two share "mating" at A; one carries it
/// to B and edits its note there; two, which has not seen the carry, states it again at A,
/// later. Synced in either order (`one_first`), the feature stays at B with one's note, two's
/// statement is what A says of it, and the clones end with one history. Regression (the
/// `Action::Resolve` twin of converge::a_statement_git_merged_over_a_second_carry_leaves_one_history):
/// with two syncing first, one's sync kept its own version and recorded nothing of the
/// feature, so two, taking the file, recorded a sync event (the feature at B after its
/// statement at A) one did not hold: two's history alone, had its sync been a round's last.
/// And with one syncing first, two's sync wrote its statement into A's copy as the folder held
/// it (a copy two did not hold) and recorded nothing of the copy's new text, so one, taking
/// the copy's file, recorded a `text_replaced` event of it that two lacked (seen failing in 8
/// of 12 runs: the path depends on the order of the random ids).
fn both_changed_over_a_carry_in(one_first: bool) -> anyhow::Result<()> {
    use serde_json::{Value, json};
    let dir = TempDir::new("sync-carried-both-changed")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
    let mut s = mating_at(&one, "A", "original")?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    ok(review_mcp(&two, &["sync", &folder])?)?;
    let carry = json!({"from": at("A"), "to": at("B"), "map": []});
    s.call("carry_forward", carry)?.ok()?;
    s.close()?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    mating_at(&one, "B", "edited at B")?.close()?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    mating_at(&two, "A", "stated again at A")?.close()?;
    let order = if one_first {
        [&one, &two]
    } else {
        [&two, &one]
    };
    let syncs = |dbs: &[&PathBuf]| -> anyhow::Result<()> {
        for db in dbs {
            ok(review_mcp(db, &["sync", &folder])?)?;
        }
        Ok(())
    };
    // The first to sync takes the other's resolution: it records nothing of the feature that
    // the other lacks (as the last sync of a round, it would hold it alone).
    syncs(&[order[0], order[1], order[0]])?;
    let id = records_of(&one)?
        .into_iter()
        .find(|r| r.get("superseded").is_none())
        .map(|r| r["id"].clone())
        .ok_or_else(|| anyhow::anyhow!("no live feature"))?;
    let copy = serde_json::Value::from(review_mcp::review::record::Record::snapshot_id(
        id.as_str().unwrap_or_default(),
        at("A")["revision"].as_str().unwrap_or_default(),
    ));
    let events_of = |db: &Path| -> anyhow::Result<Vec<Value>> {
        let mut out = Vec::new();
        for l in export(db)?.lines() {
            let v: Value = serde_json::from_str(l)?;
            // The feature's events and its copy's at A (`Action::Resolve` writes both).
            if v["event"]["of"] == id || v["event"]["of"] == copy {
                out.push(v);
            }
        }
        out.sort_by_key(|v| v.to_string());
        Ok(out)
    };
    ensure!(
        events_of(&one)? == events_of(&two)?,
        "the feature's history differs after {} took the resolution:\n{:#?}\n{:#?}",
        order[0].display(),
        events_of(&one)?,
        events_of(&two)?
    );
    syncs(&[order[1], order[0], order[1]])?;
    for db in [&one, &two] {
        live_at_b_and_one_copy_at_a(db, "edited at B", "stated again at A")?;
    }
    clones_end_as_one(&dir, &[&one, &two])
}

#[test]
fn sync_resolving_both_changed_over_a_carry_leaves_one_history() -> anyhow::Result<()> {
    for one_first in [true, false] {
        both_changed_over_a_carry_in(one_first)
            .map_err(|e| anyhow::anyhow!("one first: {one_first}: {e}"))?;
    }
    Ok(())
}

/// The carries of seed 17 (`converge::a_feature_moved_back_then_carried_twice_through_an_import_converges`),
/// nothing synced after them: two states "mating" at C and syncs (then each of `joined`
/// syncs), states it again at A (moving it back: it has seen no carry) and carries A on to
/// B; one imports two's export and carries B on to C, its carry mark still naming A.
fn seed_17_carries(
    dir: &TempDir,
    one: &Path,
    two: &Path,
    folder: &str,
    joined: &[&Path],
) -> anyhow::Result<()> {
    let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    mating_at(two, "C", "at C")?.close()?;
    ok(review_mcp(two, &["sync", folder])?)?;
    for db in joined {
        ok(review_mcp(db, &["sync", folder])?)?;
    }
    pause();
    let mut s = mating_at(two, "A", "at A")?;
    s.call(
        "carry_forward",
        serde_json::json!({"from": at("A"), "to": at("B"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    exported_into(dir, two, one)?;
    pause();
    let mut s = crate::support::client::Server::start(one)?;
    s.call(
        "carry_forward",
        serde_json::json!({"from": at("B"), "to": at("C"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    Ok(())
}

/// Regression (converge::a_feature_moved_back_then_carried_twice_through_an_import_converges,
/// seed 17 x 120): database two states "mating" at C and syncs, states it again at A (moving
/// it back: it had seen no carry) and carries A on to B; one imports two's export (the feature
/// at B, carried from A) and carries B on to C, its carry mark still naming A (carried on
/// unchanged), and syncs first. Two's sync met the feature changed on both sides: its own at
/// B, carried, against the folder's at C, the base's revision. It took the base's revision
/// for one its carry had moved the feature on from, kept B and set one's carry to C aside as
/// "what C says" (a copy at C superseded by B); one's next sync, knowing its carry from B (the
/// copy at B and the `carried` event), kept C: the two clones held the feature at two
/// revisions through every sync. The folder's copy at B says B was carried past, which the
/// base alone does not say of C: the later carry stands, and every clone ends with the feature
/// at C. Seen failing before the fix (two kept the feature at B).
#[test]
fn sync_takes_a_later_carry_through_this_database_s_revision_over_its_own_carry()
-> anyhow::Result<()> {
    use crate::support::artifact;
    let dir = TempDir::new("sync-later-carry")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    seed_17_carries(&dir, &one, &two, &folder, &[])?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    let out = ok(review_mcp(&two, &["sync", &folder])?)?;
    let live = |db: &Path| -> anyhow::Result<Vec<serde_json::Value>> {
        Ok(records_of(db)?
            .into_iter()
            .filter(|r| r.get("superseded").is_none())
            .map(|r| r["artifact"]["revision"].clone())
            .collect())
    };
    ensure!(
        live(&two)? == vec![at("C")["revision"].clone()],
        "two takes one's later carry to C: {:?}\n{out}",
        records_of(&two)?
    );
    for db in [&one, &two, &one, &two] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    ensure!(
        live(&one)? == vec![at("C")["revision"].clone()],
        "one keeps it at C: {:?}",
        records_of(&one)?
    );
    clones_end_as_one(&dir, &[&one, &two])
}

/// The import mirror of
/// `sync_takes_a_later_carry_through_this_database_s_revision_over_its_own_carry`: one
/// carries "mating" from A to B, two imports it, one carries B on to C (its mark still naming
/// A: carried on unchanged), then two, which has not seen that carry, states the feature again
/// at B. Two's import of one's export met the line at C, earlier than its own statement at B,
/// which no mark said was carried past (the mark names A), and kept its statement by time:
/// the feature stayed at B, beside the copy at B that says C superseded it, and the carry to
/// C was lost there. The `carried` event of the feature from B (imported before the items)
/// now says B was carried past: the carry stands, the statement is what B says of it, as sync
/// keeps it. Seen failing before the fix (two held the feature live at B).
#[test]
fn import_takes_a_carry_on_past_a_later_statement_its_mark_does_not_name() -> anyhow::Result<()> {
    use crate::support::artifact;
    use serde_json::json;
    let dir = TempDir::new("import-carried-on-past")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let mut s = mating_at(&one, "A", "at A")?;
    s.call(
        "carry_forward",
        json!({"from": at("A"), "to": at("B"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    exported_into(&dir, &one, &two)?;
    pause();
    let mut s = crate::support::client::Server::start(&one)?;
    s.call(
        "carry_forward",
        json!({"from": at("B"), "to": at("C"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    pause();
    mating_at(&two, "B", "restated at B")?.close()?;
    let out = exported_into(&dir, &one, &two)?;
    let records = records_of(&two)?;
    let rev = |r: &serde_json::Value| r["artifact"]["revision"].clone();
    let (copies, live): (Vec<_>, Vec<_>) =
        records.iter().partition(|r| r.get("superseded").is_some());
    ensure!(
        live.len() == 1 && rev(live[0]) == at("C")["revision"],
        "the carry to C stands: {records:?}\n{out}"
    );
    ensure!(
        copies
            .iter()
            .any(|c| rev(c) == at("B")["revision"] && c["note"] == "restated at B"),
        "the statement is what B says of it: {records:?}"
    );
    for db in [&one, &two, &one, &two] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    clones_end_as_one(&dir, &[&one, &two])
}

/// One carries "mating" A to B, two takes it (by import, or by sync when `synced`), two
/// states it again at B ("restated at B"), and only then one, which has not seen that
/// statement, carries B on to C (its mark naming A: carried on unchanged). Two then takes
/// one's version (import of one's export, or sync). Returns two's records.
fn restated_before_the_carry_on(synced: bool) -> anyhow::Result<Vec<serde_json::Value>> {
    use crate::support::artifact;
    use serde_json::json;
    let dir = TempDir::new("restated-before-carry-on")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let mut s = mating_at(&one, "A", "at A")?;
    s.call(
        "carry_forward",
        json!({"from": at("A"), "to": at("B"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    if synced {
        ok(review_mcp(&one, &["sync", &folder])?)?;
        ok(review_mcp(&two, &["sync", &folder])?)?;
    } else {
        exported_into(&dir, &one, &two)?;
    }
    pause();
    mating_at(&two, "B", "restated at B")?.close()?;
    pause();
    let mut s = crate::support::client::Server::start(&one)?;
    s.call(
        "carry_forward",
        json!({"from": at("B"), "to": at("C"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    if synced {
        ok(review_mcp(&one, &["sync", &folder])?)?;
        ok(review_mcp(&two, &["sync", &folder])?)?;
    } else {
        exported_into(&dir, &one, &two)?;
    }
    let records = records_of(&two)?;
    let rev = |r: &serde_json::Value| r["artifact"]["revision"].clone();
    let (copies, live): (Vec<_>, Vec<_>) =
        records.iter().partition(|r| r.get("superseded").is_some());
    ensure!(
        live.len() == 1 && rev(live[0]) == at("C")["revision"],
        "the carry to C stands: {records:?}"
    );
    ensure!(
        copies
            .iter()
            .any(|c| rev(c) == at("B")["revision"] && c["note"] == "restated at B"),
        "the statement, made before the carry and not seen by it, is what B says of it: \
         {records:?}\nin the history: {:?}",
        export(&two)?
            .lines()
            .filter(|l| l.contains("restated at B"))
            .collect::<Vec<_>>()
    );
    for db in [&one, &two, &one, &two] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    clones_end_as_one(&dir, &[&one, &two])?;
    Ok(records)
}

/// Sync keeps two's statement at B (made before one's carry B -> C, not seen by it) as what B
/// says of the feature, whatever the times; import must do the same (sync and import agree).
#[test]
fn sync_keeps_a_statement_made_before_a_carry_on_it_did_not_see() -> anyhow::Result<()> {
    restated_before_the_carry_on(true).map(|_| ())
}

/// Regression (adv17): import took one's carry to C, later than two's statement at B, by
/// time alone (the mirror rule of 1efbc4d applied only where time kept the held version),
/// so two's statement was left to the history and B's copy said "at A", where sync keeps
/// the statement as what B says: the clones' items depended on how the carry arrived. Seen
/// failing before the fix.
#[test]
fn import_keeps_a_statement_made_before_a_carry_on_it_did_not_see() -> anyhow::Result<()> {
    restated_before_the_carry_on(false).map(|_| ())
}

/// The seed-17 sequence of
/// `sync_takes_a_later_carry_through_this_database_s_revision_over_its_own_carry`, with a
/// superseded copy of the feature at C planted in the folder (a pulled commit) before two's
/// sync, so that both sides' claims are backed by a copy. Regression (adv17): when both were
/// backed, merge::carried_past kept the database's side in every clone: two kept its carry
/// to B and set one's carry aside as what C says, one kept C, and after six more syncs the
/// clones still held the feature at two revisions. A tie is now settled by time (the later
/// carry, one's to C), the same in every clone. Seen failing before the fix.
fn seed_17_with_a_copy_at_c_planted() -> anyhow::Result<()> {
    use crate::support::artifact;
    use review_mcp::review::record::Record;
    use serde_json::json;
    let dir = TempDir::new("sync-later-carry-planted")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    seed_17_carries(&dir, &one, &two, &folder, &[])?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    let id = records_of(&one)?
        .into_iter()
        .find(|r| r.get("superseded").is_none())
        .and_then(|r| r["id"].as_str().map(str::to_string))
        .ok_or_else(|| anyhow::anyhow!("no live feature"))?;
    let rev = |r: &str| at(r)["revision"].as_str().unwrap_or_default().to_string();
    let copy_b = folder_path.join(format!(
        "records/{}.json",
        Record::snapshot_id(&id, &rev("B"))
    ));
    let copy_c = Record::snapshot_id(&id, &rev("C"));
    let text = std::fs::read_to_string(&copy_b)?;
    let copy_id_b = Record::snapshot_id(&id, &rev("B"));
    // The copy at B, moved to C: its id, revision and mark (superseded by A, where two
    // moved the feature back to from C) and its note.
    let planted = text
        .replace(&copy_id_b, &copy_c)
        .replace(&rev("B"), "REV_B")
        .replace(&rev("C"), &rev("A"))
        .replace("REV_B", &rev("C"))
        .replace("\"at A\"", "\"planted at C\"");
    std::fs::write(folder_path.join(format!("records/{copy_c}.json")), planted)?;
    let out = ok(review_mcp(&two, &["sync", &folder])?)?;
    for db in [&one, &two, &one, &two, &one, &two] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    let live = |db: &Path| -> anyhow::Result<Vec<serde_json::Value>> {
        Ok(records_of(db)?
            .into_iter()
            .filter(|r| r.get("superseded").is_none())
            .map(|r| r["artifact"]["revision"].clone())
            .collect())
    };
    ensure!(
        live(&one)? == live(&two)?,
        "one holds {:?}, two {:?}\n{out}",
        live(&one)?,
        live(&two)?
    );
    ensure!(
        live(&two)? == vec![json!(rev("C"))],
        "the later carry to C stands: {:?}\n{out}",
        records_of(&two)?
    );
    clones_end_as_one(&dir, &[&one, &two])
}

#[test]
fn sync_with_both_claims_backed_by_a_copy_converges() -> anyhow::Result<()> {
    seed_17_with_a_copy_at_c_planted()
}

/// The seed-17 sequence with a third clone, three, which synced the feature at C with two
/// at the start and, seeing no carry, states it at `rev` ("three at <rev>") after all the
/// carries, then syncs after one and two. The feature ends at C in every clone, three's
/// statement live there (at C) or kept as what its revision says (A and B, carried past),
/// and the clones end as one.
fn seed_17_with_a_third_clone_stating_at(rev_three: &str) -> anyhow::Result<()> {
    use crate::support::artifact;
    let dir = TempDir::new("sync-later-carry-three")?;
    let (one, two, three) = (dir.join("one.db"), dir.join("two.db"), dir.join("three.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    seed_17_carries(&dir, &one, &two, &folder, &[&three])?;
    pause();
    let note = format!("three at {rev_three}");
    mating_at(&three, rev_three, &note)?.close()?;
    for db in [&one, &two, &three, &one, &two, &three, &one, &two, &three] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    let records = records_of(&three)?;
    let rev = |r: &serde_json::Value| r["artifact"]["revision"].clone();
    let (copies, live): (Vec<_>, Vec<_>) =
        records.iter().partition(|r| r.get("superseded").is_some());
    ensure!(
        live.len() == 1 && rev(live[0]) == at("C")["revision"],
        "the carry to C stands: {records:?}"
    );
    let kept = match rev_three {
        "C" => live[0]["note"] == note.as_str(),
        r => copies
            .iter()
            .any(|c| rev(c) == at(r)["revision"] && c["note"] == note.as_str()),
    };
    ensure!(kept, "three's statement is kept: {records:?}");
    clones_end_as_one(&dir, &[&one, &two, &three])
}

#[test]
fn sync_a_third_clone_s_statement_after_the_seed_17_carries_is_kept() -> anyhow::Result<()> {
    for r in ["C", "B", "A"] {
        seed_17_with_a_third_clone_stating_at(r)
            .map_err(|e| anyhow::anyhow!("three states at {r}: {e}"))?;
    }
    Ok(())
}

/// The seed-17 sequence, but two, after moving the feature back to A and carrying it to B,
/// states it again at B ("restated at B", after one's carry to C, which it has not seen),
/// then takes one's version by sync (`synced`) or by import. Either way the carry to C
/// stands, two's statement is what B says of it, and the clones end as one.
fn seed_17_restated_at_b(synced: bool) -> anyhow::Result<()> {
    use crate::support::artifact;
    let dir = TempDir::new("sync-later-carry-restated")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    seed_17_carries(&dir, &one, &two, &folder, &[])?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    pause();
    mating_at(&two, "B", "restated at B")?.close()?;
    if synced {
        ok(review_mcp(&two, &["sync", &folder])?)?;
    } else {
        exported_into(&dir, &one, &two)?;
    }
    let records = records_of(&two)?;
    let rev = |r: &serde_json::Value| r["artifact"]["revision"].clone();
    let (copies, live): (Vec<_>, Vec<_>) =
        records.iter().partition(|r| r.get("superseded").is_some());
    ensure!(
        live.len() == 1 && rev(live[0]) == at("C")["revision"],
        "the carry to C stands: {records:?}"
    );
    ensure!(
        copies
            .iter()
            .any(|c| rev(c) == at("B")["revision"] && c["note"] == "restated at B"),
        "the statement is what B says of it: {records:?}"
    );
    for db in [&one, &two, &one, &two] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    clones_end_as_one(&dir, &[&one, &two])
}

#[test]
fn sync_and_import_agree_on_a_statement_after_the_seed_17_carries() -> anyhow::Result<()> {
    for synced in [true, false] {
        seed_17_restated_at_b(synced).map_err(|e| anyhow::anyhow!("synced: {synced}: {e}"))?;
    }
    Ok(())
}

/// Seed 6057's start, shared by the tests of two features of one name where one was carried
/// past B: two states "mating" at B and carries it on to C; one, later, states "mating" at A
/// (an id of its own: two ids, one key); one, two and three sync in turn, so two's sync keeps
/// one's later feature and leaves in the folder what B says of two's (its superseded copy).
/// One's session, still open.
fn two_carried_past_b_then_one_at_a(
    one: &Path,
    two: &Path,
    three: &Path,
    folder: &str,
) -> anyhow::Result<crate::support::client::Server> {
    let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
    let mut s = mating_at(two, "B", "two's at B")?;
    s.call(
        "carry_forward",
        serde_json::json!({"from": at("B"), "to": at("C"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    let s = mating_at(one, "A", "one's at A")?;
    for db in [one, two, three] {
        ok(review_mcp(db, &["sync", folder])?)?;
    }
    Ok(s)
}

/// Seed 6057 (converge::two_features_of_one_name_carried_on_by_two_clones_do_not_move_back):
/// two states "mating" at B and carries it on to C; one, later, states "mating" at A (an id
/// of its own) and syncs; two's sync keeps one's later feature (two ids, one key) and leaves
/// in the folder the copy at B of its own feature, carried past; three joins. One, which has
/// not synced since, carries its feature from A on to B, then takes the folder's state by a
/// sync (`by_import`: by an import of two's export, then a sync; `restated`: two, which has not
/// seen the carry, states the feature again at A and syncs first, so one's sync meets it changed
/// on both sides). The copy at B is of the other feature: one's version at B is its own carry
/// from A, where the folder has it, not a statement at a revision carried past. Its sync kept
/// the feature at A ("states it at revision B, which a carry moved it on from; kept it at
/// revision A") and wrote one's carry as what B says: the feature moved back to the revision
/// its carry left (both changed: the later statement at A won, as both sides then claimed the
/// other's revision carried past). The carry stands in every clone, three (whose sync meets
/// the carry in the folder only) included, and a statement at A is what A says of it.
fn a_carry_onto_another_feature_s_copy(by_import: bool, restated: bool) -> anyhow::Result<()> {
    use crate::support::artifact;
    let dir = TempDir::new("sync-carry-onto-a-copy")?;
    let (one, two, three) = (dir.join("one.db"), dir.join("two.db"), dir.join("three.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let mut s = two_carried_past_b_then_one_at_a(&one, &two, &three, &folder)?;
    pause();
    s.call(
        "carry_forward",
        serde_json::json!({"from": at("A"), "to": at("B"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    let live_at = |db: &Path| -> anyhow::Result<Vec<serde_json::Value>> {
        Ok(records_of(db)?
            .into_iter()
            .filter(|r| r.get("superseded").is_none())
            .map(|r| r["artifact"]["revision"].clone())
            .collect())
    };
    let b = vec![at("B")["revision"].clone()];
    let mut said = String::new();
    if restated {
        pause();
        mating_at(&two, "A", "two's again at A")?.close()?;
        ok(review_mcp(&two, &["sync", &folder])?)?;
    }
    if by_import {
        said += &exported_into(&dir, &two, &one)?;
        ensure!(
            live_at(&one)? == b,
            "one's import keeps its carry to B: {:?}\n{said}",
            records_of(&one)?
        );
    }
    said += &ok(review_mcp(&one, &["sync", &folder])?)?;
    ensure!(
        live_at(&one)? == b && !said.contains("which a carry moved it on from"),
        "one's carry to B stands: {:?}\n{said}",
        records_of(&one)?
    );
    let said = ok(review_mcp(&three, &["sync", &folder])?)?;
    ensure!(
        live_at(&three)? == b && !said.contains("which a carry moved it on from"),
        "three takes one's carry to B: {:?}\n{said}",
        records_of(&three)?
    );
    for db in [&two, &one, &three, &two, &one] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    ensure!(
        live_at(&two)? == b,
        "two holds it at B: {:?}",
        records_of(&two)?
    );
    if restated {
        ensure!(
            records_of(&two)?
                .iter()
                .any(|r| r.get("superseded").is_some()
                    && r["artifact"]["revision"] == at("A")["revision"]
                    && r["note"] == "two's again at A"),
            "two's statement is what A says of it: {:?}",
            records_of(&two)?
        );
    }
    clones_end_as_one(&dir, &[&one, &two, &three])
}

#[test]
fn sync_keeps_a_carry_onto_a_revision_another_feature_of_its_name_was_carried_past()
-> anyhow::Result<()> {
    for (by_import, restated) in [(false, false), (true, false), (false, true)] {
        a_carry_onto_another_feature_s_copy(by_import, restated).map_err(|e| {
            anyhow::anyhow!("by import: {by_import}, restated at A by two: {restated}: {e}")
        })?;
    }
    Ok(())
}

/// Two ids, one key (seed 6057's shape): two states "mating" at B and carries it on to C; one,
/// later, states "mating" at A (an id of its own) and syncs; two's sync keeps one's feature
/// (the later edit wins the key) and leaves in the folder what B says of two's feature (its
/// superseded copy there); three joins. One (`knew_copy`: after a sync that brought that copy)
/// states its feature at B, no carry: a revision only the other feature was carried past. It
/// takes the folder by a sync (`by_import`: by an import of two's export, then a sync), then
/// every clone syncs. `remember`, knowing the copy, keeps the statement as what B says, in that
/// copy (by the key), and the feature stays at A; sync and import, meeting the statement
/// before the copy, keep it at B too, so no clone moves the feature and none drops the text.
fn winner_stated_where_the_loser_was_carried_past(
    by_import: bool,
    knew_copy: bool,
) -> anyhow::Result<()> {
    use crate::support::artifact;
    let dir = TempDir::new("sync-winner-at-loser-copy")?;
    let (one, two, three) = (dir.join("one.db"), dir.join("two.db"), dir.join("three.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    two_carried_past_b_then_one_at_a(&one, &two, &three, &folder)?.close()?;
    if knew_copy {
        ok(review_mcp(&one, &["sync", &folder])?)?;
    }
    pause();
    mating_at(&one, "B", "one's at B")?.close()?;
    let mut said = String::new();
    if by_import {
        said += &exported_into(&dir, &two, &one)?;
    }
    for db in [&one, &three, &two, &one, &three, &two] {
        said += &ok(review_mcp(db, &["sync", &folder])?)?;
    }
    for db in [&one, &two, &three] {
        let recs = records_of(db)?;
        let live: Vec<_> = recs
            .iter()
            .filter(|r| r.get("superseded").is_none())
            .map(|r| (&r["artifact"]["revision"], &r["note"]))
            .collect();
        let at_b: Vec<_> = recs
            .iter()
            .filter(|r| {
                r.get("superseded").is_some() && r["artifact"]["revision"] == at("B")["revision"]
            })
            .map(|r| &r["note"])
            .collect();
        ensure!(
            live == [(&at("A")["revision"], &serde_json::json!("one's at A"))],
            "{}: the feature stays at A: {recs:?}\n{said}",
            db.display()
        );
        ensure!(
            at_b == [&serde_json::json!("one's at B")],
            "{}: one copy at B, the statement: {at_b:?}\n{said}",
            db.display()
        );
    }
    clones_end_as_one(&dir, &[&one, &two, &three])
}

#[test]
fn the_winner_stated_where_only_the_loser_was_carried_past_is_what_that_revision_says()
-> anyhow::Result<()> {
    for by_import in [false, true] {
        winner_stated_where_the_loser_was_carried_past(by_import, true)
            .map_err(|e| anyhow::anyhow!("by import: {by_import}: {e}"))?;
    }
    Ok(())
}

/// Regression (found by adv6057): stated at B before one's database held the other feature's
/// copy there, the statement ended in a copy of its own at B (its id's), beside the other
/// feature's: two superseded copies of one key at one revision, in every clone, where
/// `remember` in a database that held the copy writes the one copy. Sync's and import's
/// `keep_stayed` found a copy by the statement's id only, `remember`'s `stated_where_carried_on`
/// by the key (`rows::feature_copy`). When neither side holds a copy under the statement's own
/// id, sync and import now write it into the revision's copy found by the key (the database's,
/// else the folder's), so every clone holds the one copy, saying the statement.
#[test]
fn the_winner_stated_where_only_the_loser_was_carried_past_leaves_one_copy_there()
-> anyhow::Result<()> {
    for by_import in [false, true] {
        winner_stated_where_the_loser_was_carried_past(by_import, false)
            .map_err(|e| anyhow::anyhow!("by import: {by_import}: {e}"))?;
    }
    Ok(())
}

/// Two ids, one key, as in seed 6057: two states "mating" at B and carries it on to C; one,
/// later, states "mating" at A (an id of its own) and syncs; two's sync keeps one's feature and
/// leaves in the folder what B says of two's (its superseded copy there); three joins. One,
/// which has not synced since, carries its feature from A on to B and states it again there
/// (the carry's mark gone); `restated`: two, which has not seen the carry, states it again at A
/// and syncs first; `by_import`: two then imports one's export. Then every clone syncs. One's
/// version at B is its own feature carried on from A (its copy at A says it was carried to B),
/// not a statement at a revision carried past:
/// its sync kept the feature at A ("states it at revision B, which a carry moved it on from;
/// kept it at revision A") and wrote one's statement as what B says, judged by the other
/// feature's copy at B, found by name (both changed: both sides then claimed the other's
/// revision carried past, and the later statement at A won); two's import kept one's version
/// as what B says, the feature at A. The feature stays at B in every clone, and two's statement
/// is what A says of it.
fn carried_and_stated_again_onto_another_feature_s_copy(
    restated: bool,
    by_import: bool,
) -> anyhow::Result<()> {
    use crate::support::artifact;
    let dir = TempDir::new("sync-carried-restated-onto-a-copy")?;
    let (one, two, three) = (dir.join("one.db"), dir.join("two.db"), dir.join("three.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let mut s = two_carried_past_b_then_one_at_a(&one, &two, &three, &folder)?;
    pause();
    s.call(
        "carry_forward",
        serde_json::json!({"from": at("A"), "to": at("B"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    pause();
    mating_at(&one, "B", "one's again at B")?.close()?;
    let mut said = String::new();
    if restated {
        pause();
        mating_at(&two, "A", "two's again at A")?.close()?;
        said += &ok(review_mcp(&two, &["sync", &folder])?)?;
    }
    if by_import {
        said += &exported_into(&dir, &one, &two)?;
        said += &format!("{:?}\n", records_of(&two)?);
    }
    for db in [&one, &three, &two, &one, &three] {
        said += &ok(review_mcp(db, &["sync", &folder])?)?;
    }
    ensure!(
        !said.contains("which a carry moved it on from"),
        "no sync reads one's version at B as a statement there: {said}"
    );
    for db in [&one, &two, &three] {
        let recs = records_of(db)?;
        let live: Vec<_> = recs
            .iter()
            .filter(|r| r.get("superseded").is_none())
            .map(|r| (&r["artifact"]["revision"], &r["note"]))
            .collect();
        ensure!(
            live == [(&at("B")["revision"], &serde_json::json!("one's again at B"))],
            "{}: the feature stays at B: {recs:?}\n{said}",
            db.display()
        );
        if restated {
            ensure!(
                recs.iter().any(|r| r.get("superseded").is_some()
                    && r["artifact"]["revision"] == at("A")["revision"]
                    && r["note"] == "two's again at A"),
                "{}: two's statement is what A says of it: {recs:?}\n{said}",
                db.display()
            );
        }
    }
    clones_end_as_one(&dir, &[&one, &two, &three])
}

#[test]
fn sync_keeps_a_carry_stated_again_onto_a_revision_another_feature_of_its_name_was_carried_past()
-> anyhow::Result<()> {
    for (restated, by_import) in [(false, false), (true, false), (false, true), (true, true)] {
        carried_and_stated_again_onto_another_feature_s_copy(restated, by_import).map_err(|e| {
            anyhow::anyhow!("restated at A by two: {restated}, by import: {by_import}: {e}")
        })?;
    }
    Ok(())
}

/// Two ids of one decision key met by one sync: the database holds `held` as the last sync
/// left it, the folder holds `held` changed since (a later version with the engineer's verdict,
/// through the terminal) and `incoming`, another clone's decision on the subject (new to this
/// database, dated between the two). The export of the database after the sync, and the one
/// decision file the folder then holds.
fn two_ids_with_a_verdict_in_the_folder(
    held: &str,
    incoming: &str,
) -> anyhow::Result<(String, Vec<(PathBuf, String)>)> {
    let dir = TempDir::new("sync-two-ids-verdict")?;
    let db = database(&dir, "a.db", &[decision(held, "hold", T1)])?;
    let folder = dir.join("review");
    ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    let pretty = |line: &str| -> anyhow::Result<String> {
        let v: serde_json::Value = serde_json::from_str(line)?;
        Ok(serde_json::to_string_pretty(&v)? + "\n")
    };
    let mut judged: serde_json::Value = serde_json::from_str(&decision(held, "release", T3))?;
    judged["decision"]["basis"][0]["verdict"] = serde_json::json!({
        "judgement": "accepted", "via": "terminal", "at": T3, "author": "Ada"
    });
    std::fs::write(
        folder.join(format!("decisions/{held}.json")),
        pretty(&judged.to_string())?,
    )?;
    std::fs::write(
        folder.join(format!("decisions/{incoming}.json")),
        pretty(&decision(incoming, "hold", T2))?,
    )?;
    let out = ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
    ensure!(
        out.contains("are one decision (locator, subject and revision) under two ids"),
        "{out}"
    );
    Ok((export(&db)?, snapshot(&folder)?))
}

/// Regression (seed 7277 of the convergence sweep, converge::an_engineer_verdict_on_a_
/// decision_of_two_ids_is_not_lost): when the folder's other id came first in the sync's order
/// (its id sorting first), the sync settled the key against the database's version of `held`,
/// deleted `held` on both sides and never merged its folder version: the engineer's verdict it
/// held was lost in every clone. Whichever id sorts first, `held` is weighed at its folder
/// version (the later), and keeps the key with the engineer's verdict, in the database and in
/// the folder.
#[test]
fn sync_two_ids_of_a_decision_keep_the_engineer_verdict_of_the_one_changed_in_the_folder()
-> anyhow::Result<()> {
    for (held, incoming) in [("dec_b", "dec_a"), ("dec_a", "dec_b")] {
        let (exported, files) = two_ids_with_a_verdict_in_the_folder(held, incoming)?;
        let lines: Vec<&str> = exported
            .lines()
            .filter(|l| l.starts_with(r#"{"decision":"#))
            .collect();
        ensure!(
            lines.len() == 1
                && lines[0].contains(&format!(r#""id":"{held}""#))
                && lines[0].contains(r#""via":"terminal""#)
                && lines[0].contains(r#""disposition":"release""#),
            "{held} kept the key with the engineer's verdict ({incoming} came with it): {exported}"
        );
        ensure!(
            files.len() == 1
                && files[0].0.ends_with(format!("decisions/{held}.json"))
                && files[0].1.contains(r#""via": "terminal""#),
            "the folder holds {held} with the verdict: {files:?}"
        );
    }
    Ok(())
}

/// What the sync of [`two_ids_with_a_verdict_in_the_folder`] keeps, `import` keeps, whichever
/// of the two lines is imported first (one file refuses two lines of one key, so each line is
/// its own import, judged against the database): `held`'s later version with the engineer's
/// verdict, at the key.
#[test]
fn import_two_ids_of_a_decision_keep_the_engineer_verdict_of_the_later_line() -> anyhow::Result<()>
{
    let (held, incoming) = ("dec_b", "dec_a");
    let mut judged: serde_json::Value = serde_json::from_str(&decision(held, "release", T3))?;
    judged["decision"]["basis"][0]["verdict"] = serde_json::json!({
        "judgement": "accepted", "via": "terminal", "at": T3, "author": "Ada"
    });
    let (judged, other) = (judged.to_string(), decision(incoming, "hold", T2));
    for (n, lines) in [[&other, &judged], [&judged, &other]].iter().enumerate() {
        let dir = TempDir::new("import-two-ids-verdict")?;
        let db = database(&dir, "a.db", &[decision(held, "hold", T1)])?;
        // One file refuses two lines of one key: two imports, one after the other.
        for line in lines {
            let file = dir.join("line.jsonl");
            std::fs::write(&file, format!("{line}\n"))?;
            ok(review_mcp(&db, &["import", &file.to_string_lossy()])?)?;
        }
        let exported = export(&db)?;
        let decisions: Vec<&str> = exported
            .lines()
            .filter(|l| l.starts_with(r#"{"decision":"#))
            .collect();
        ensure!(
            decisions.len() == 1
                && decisions[0].contains(&format!(r#""id":"{held}""#))
                && decisions[0].contains(r#""via":"terminal""#),
            "order {n}: {held} keeps the key with the engineer's verdict: {exported}"
        );
    }
    Ok(())
}

/// The rule of [`sync_two_ids_of_a_decision_keep_the_engineer_verdict_of_the_one_changed_in_the_folder`]
/// for a feature of two ids: the database's `held` changed in the folder since the last sync
/// (a later note) is weighed at that version, so it keeps the key against `incoming` (dated
/// between), whichever id the sync meets first; the old sync kept `incoming` when it came first
/// and the later note was lost.
#[test]
fn sync_two_ids_of_a_feature_weigh_the_one_changed_in_the_folder_at_its_folder_version()
-> anyhow::Result<()> {
    for (held, incoming) in [("rec_b", "rec_a"), ("rec_a", "rec_b")] {
        let dir = TempDir::new("sync-two-ids-feature")?;
        let db = database(&dir, "a.db", &[feature(held, "bore", "first", T1)])?;
        let folder = dir.join("review");
        ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
        for (id, note, at) in [(held, "later", T3), (incoming, "between", T2)] {
            let v: serde_json::Value = serde_json::from_str(&feature(id, "bore", note, at))?;
            std::fs::write(
                folder.join(format!("records/{id}.json")),
                serde_json::to_string_pretty(&v)? + "\n",
            )?;
        }
        ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
        let exported = export(&db)?;
        let records: Vec<&str> = exported
            .lines()
            .filter(|l| l.starts_with(r#"{"record":"#))
            .collect();
        ensure!(
            records.len() == 1
                && records[0].contains(&format!(r#""id":"{held}""#))
                && records[0].contains(r#""note":"later""#),
            "{held} keeps the key with its later note ({incoming} came with it): {exported}"
        );
        let files = snapshot(&folder)?;
        ensure!(
            files.len() == 1 && files[0].1.contains(r#""note": "later""#),
            "the folder holds {held} with its later note: {files:?}"
        );
    }
    Ok(())
}

/// Three ids of one decision key met by one sync (three clones decided one subject apart): the
/// database holds `held` as the last sync left it, the folder holds `held` changed since (the
/// engineer's verdict, given in another clone), `between` (dated before that version) and
/// `latest` (dated after it, without the verdict). In every order of the three ids the latest
/// keeps the key with the engineer's verdict, in the database and in the folder; the dry run
/// reports the conflicts the sync then reports, and a second sync changes nothing.
#[test]
fn sync_three_ids_of_a_decision_keep_the_latest_with_the_engineer_verdict_in_every_id_order()
-> anyhow::Result<()> {
    const T4: &str = "2026-01-04T00:00:00.000Z";
    let pretty = |v: &serde_json::Value| -> anyhow::Result<String> {
        Ok(serde_json::to_string_pretty(v)? + "\n")
    };
    let ids = ["dec_a", "dec_b", "dec_c"];
    for h in 0..3 {
        let others: Vec<&str> = (0..3).filter(|&i| i != h).map(|i| ids[i]).collect();
        for (between, latest) in [(others[0], others[1]), (others[1], others[0])] {
            let held = ids[h];
            let dir = TempDir::new("sync-three-ids")?;
            let db = database(&dir, "a.db", &[decision(held, "hold", T1)])?;
            let folder = dir.join("review");
            ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
            let mut judged: serde_json::Value =
                serde_json::from_str(&decision(held, "release", T3))?;
            judged["decision"]["basis"][0]["verdict"] = serde_json::json!({
                "judgement": "accepted", "via": "terminal", "at": T3, "author": "Ada"
            });
            let versions = [
                (held, judged),
                (
                    between,
                    serde_json::from_str(&decision(between, "hold", T2))?,
                ),
                (
                    latest,
                    serde_json::from_str(&decision(latest, "scrap", T4))?,
                ),
            ];
            for (id, v) in &versions {
                std::fs::write(folder.join(format!("decisions/{id}.json")), pretty(v)?)?;
            }
            let case = format!("held {held}, between {between}, latest {latest}");
            let (out, conflicts) = sync_as_dry_run_says(&db, &folder.to_string_lossy())
                .map_err(|e| anyhow::anyhow!("{case}: {e}"))?;
            ensure!(
                conflicts.len() == 2,
                "{case}: the sync reports the two settled keys:\n{out}"
            );
            alone_with_the_verdict(&db, &folder, latest)
                .map_err(|e| anyhow::anyhow!("{case}: {e}"))?;
        }
    }
    Ok(())
}

/// Regression (found by adv7277's second read of f0c97fd; the sync before it did the same).
/// Two ids of one decision key, the database's `held` deleted in the folder (a teammate forgot
/// it) but changed here since the last sync, and the folder's `incoming`, dated after that
/// change (`incoming` keeps the key) or before it (`held` keeps it). The result was right in
/// both id orders, but the report depended on the order: when `held` sorted first, its own
/// turn (`KeepDatabase`) printed "was deleted in the folder but changed in the database: kept,
/// and written back to the folder", and `incoming`'s turn then printed "kept {incoming},
/// deleted {held} on both sides": two contradictory lines, and one conflict more than the
/// other order counted. The sync now acts on such an item after the folder's arrivals, so the
/// other id settles it first in both orders: one report, which says `held` was written back
/// when it keeps the key.
#[test]
fn sync_reports_a_decision_deleted_in_the_folder_and_settled_by_another_id_alike_in_both_id_orders()
-> anyhow::Result<()> {
    const T25: &str = "2026-01-02T12:00:00.000Z";
    for incoming_later in [true, false] {
        let mut reports = Vec::new();
        for (held, incoming) in [("dec_a", "dec_b"), ("dec_b", "dec_a")] {
            let (winner, loser) = match incoming_later {
                true => (incoming, held),
                false => (held, incoming),
            };
            let case = format!("held {held}, incoming {incoming}, kept {winner}");
            let dir = TempDir::new("sync-keepdb-two-ids")?;
            let db = database(&dir, "a.db", &[decision(held, "hold", T1)])?;
            let folder = dir.join("review");
            ok(review_mcp(&db, &["sync", &folder.to_string_lossy()])?)?;
            std::fs::remove_file(folder.join(format!("decisions/{held}.json")))?;
            let at = if incoming_later { T3 } else { T2 };
            let v: serde_json::Value = serde_json::from_str(&decision(incoming, "scrap", at))?;
            std::fs::write(
                folder.join(format!("decisions/{incoming}.json")),
                serde_json::to_string_pretty(&v)? + "\n",
            )?;
            let changed = dir.join("changed.jsonl");
            std::fs::write(&changed, decision(held, "rework", T25) + "\n")?;
            ok(review_mcp(&db, &["import", &changed.to_string_lossy()])?)?;
            let (out, conflicts) = sync_as_dry_run_says(&db, &folder.to_string_lossy())
                .map_err(|e| anyhow::anyhow!("{case}: {e}"))?;
            // The report with the ids named by their part, not their name.
            let conflicts: Vec<String> = conflicts
                .iter()
                .map(|l| l.replace(held, "HELD").replace(incoming, "INCOMING"))
                .collect();
            let exported = export(&db)?;
            ensure!(
                exported.contains(&format!(r#""id":"{winner}""#))
                    && !exported.contains(&format!(r#""id":"{loser}""#)),
                "{case}: {winner} keeps the key: {exported}"
            );
            let files = snapshot(&folder)?;
            ensure!(
                files.len() == 1 && files[0].0.ends_with(format!("decisions/{winner}.json")),
                "{case}: the folder holds {winner}: {files:?}"
            );
            ensure!(
                !out.contains(&format!(
                    "decision {held} was deleted in the folder but changed in the database: kept"
                )) || winner == held,
                "{case}: {held} is not reported kept when the sync deletes it on both sides:\n{out}"
            );
            if winner == held {
                ensure!(
                    conflicts.iter().any(|l| l.contains(
                        "HELD was deleted in the folder but changed in the database: written \
                         back to the folder"
                    )),
                    "{case}: the report says {held} was written back:\n{out}"
                );
            }
            reports.push(conflicts);
        }
        ensure!(
            reports[0] == reports[1],
            "incoming later: {incoming_later}: one report whatever the id order: {reports:#?}"
        );
    }
    Ok(())
}

/// advorder: database one carries "mating" from A to B; a teammate's commit deletes what A
/// says of it (the copy's file) and brings two's statement at A, made before two saw the carry
/// (two's sync never ran); one, meanwhile, states the feature at A again, which writes into
/// A's copy (`remember` knows the carry): the copy is deleted in the folder and changed in the
/// database (its own turn is the sync's last pass), and the folder's statement at A is kept as
/// what A says of the feature, in that copy. `copy_later`: one's statement at A is the later.
fn copy_deleted_in_the_folder_and_stated_by_both(copy_later: bool) -> anyhow::Result<String> {
    let dir = TempDir::new("sync-copy-keepdb-stated")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    stated_and_carried(&one, &two, &folder, true)?;
    let recs = records_of(&one)?;
    let id = |copy: bool| -> anyhow::Result<String> {
        recs.iter()
            .find(|r| r.get("superseded").is_some() == copy)
            .and_then(|r| r["id"].as_str())
            .map(str::to_string)
            .ok_or_else(|| anyhow::anyhow!("no record: {recs:?}"))
    };
    let (live, copy) = (id(false)?, id(true)?);
    pause();
    let (first, second) = match copy_later {
        true => (&two, &one),
        false => (&one, &two),
    };
    let note = |db: &Path| match db == one.as_path() {
        true => "one's at A",
        false => "two's at A",
    };
    mating_at(first, "A", note(first))?.close()?;
    pause();
    mating_at(second, "A", note(second))?.close()?;
    // The teammate's commit: two's version of the feature, the copy's file gone.
    let line = export(&two)?
        .lines()
        .find(|l| l.contains(&format!(r#""id":"{live}""#)))
        .map(str::to_string)
        .ok_or_else(|| anyhow::anyhow!("two holds {live}"))?;
    let v: serde_json::Value = serde_json::from_str(&line)?;
    std::fs::write(
        folder_path.join(format!("records/{live}.json")),
        serde_json::to_string_pretty(&v)? + "\n",
    )?;
    std::fs::remove_file(folder_path.join(format!("records/{copy}.json")))?;
    let (out, _) = sync_as_dry_run_says(&one, &folder)?;
    live_at_b_and_one_copy_at_a(&one, "original", note(second))
        .map_err(|e| anyhow::anyhow!("{e}\n{out}"))?;
    ensure!(
        folder_path.join(format!("records/{copy}.json")).exists(),
        "the copy is written back to the folder:\n{out}"
    );
    for db in [&two, &one, &two] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    live_at_b_and_one_copy_at_a(&two, "original", note(second))?;
    clones_end_as_one(&dir, &[&one, &two])?;
    Ok(out)
}

#[test]
fn sync_keeps_a_statement_into_a_copy_deleted_in_the_folder_and_changed_here() -> anyhow::Result<()>
{
    for copy_later in [true, false] {
        let out = copy_deleted_in_the_folder_and_stated_by_both(copy_later)
            .map_err(|e| anyhow::anyhow!("copy later: {copy_later}: {e}"))?;
        eprintln!("copy later {copy_later}:\n{out}");
    }
    Ok(())
}

/// advorder: two ids of one decision key met by a sync whose database changed `held` after the
/// last sync while a teammate forgot it (its file gone, its `forgotten` event, dated after the
/// change, in the folder), and a third clone decided the subject anew under `incoming`, earlier
/// than the change (`verdict`: with the engineer's verdict). `held` keeps the key (the later),
/// with that verdict, in every clone; its history goes on past the teammate's forget, and the
/// clones end as one.
fn forgotten_changed_and_decided_anew(
    held: &str,
    incoming: &str,
    verdict: bool,
) -> anyhow::Result<()> {
    let dir = TempDir::new("sync-keepdb-forgot-verdict")?;
    let one = database(&dir, "one.db", &[decision(held, "hold", T1)])?;
    let (two, three) = (dir.join("two.db"), dir.join("three.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    for db in [&one, &two] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    let a: serde_json::Value = serde_json::from_str(&decision(held, "hold", T1))?;
    let artifact = a["decision"]["artifact"].clone();
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let mut s = crate::support::client::Server::start(&one)?;
    s.call(
        "remember_decision",
        serde_json::json!({"artifact": artifact, "subject": "bracket", "disposition": "rework",
            "basis": [{"requirement": "Bore 10 H7", "source": "drawing", "state": "satisfied",
                       "faces": []}]}),
    )?
    .ok()?;
    s.close()?;
    pause();
    let mut s = crate::support::client::Server::start(&two)?;
    s.call(
        "forget",
        serde_json::json!({"artifact": artifact, "subject": "bracket"}),
    )?
    .ok()?;
    s.close()?;
    ok(review_mcp(&two, &["sync", &folder])?)?;
    let mut judged: serde_json::Value = serde_json::from_str(&decision(incoming, "release", T3))?;
    if verdict {
        judged["decision"]["basis"][0]["verdict"] = serde_json::json!({
            "judgement": "accepted", "via": "terminal", "at": T3, "author": "Ada"
        });
    }
    let file = dir.join("three.jsonl");
    std::fs::write(&file, judged.to_string() + "\n")?;
    ok(review_mcp(&three, &["import", &file.to_string_lossy()])?)?;
    ok(review_mcp(&three, &["sync", &folder])?)?;
    let (out, _) = sync_as_dry_run_says(&one, &folder)?;
    for db in [&two, &three, &one, &two, &three] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    for db in [&one, &two, &three] {
        let exported = export(db)?;
        let decisions: Vec<&str> = exported
            .lines()
            .filter(|l| l.starts_with(r#"{"decision":"#))
            .collect();
        ensure!(
            decisions.len() == 1
                && decisions[0].contains(&format!(r#""id":"{held}""#))
                && decisions[0].contains(r#""disposition":"rework""#)
                && decisions[0].contains(r#""via":"terminal""#) == verdict,
            "{}: {held} keeps the key (verdict: {verdict}):\n{exported}\n{out}",
            db.display()
        );
        let last = exported
            .lines()
            .rfind(|l| l.contains(&format!(r#""of":"{held}""#)))
            .unwrap_or_default()
            .to_string();
        ensure!(
            last.contains(r#""after":"#),
            "{}: {held}'s history goes on past the forget: {last}\n{exported}",
            db.display()
        );
    }
    clones_end_as_one(&dir, &[&one, &two, &three])
}

#[test]
fn sync_keeps_a_decision_changed_here_forgotten_there_and_decided_anew_with_the_verdict()
-> anyhow::Result<()> {
    for verdict in [true, false] {
        for (held, incoming) in [("dec_a", "dec_b"), ("dec_b", "dec_a")] {
            forgotten_changed_and_decided_anew(held, incoming, verdict).map_err(|e| {
                anyhow::anyhow!("held {held}, incoming {incoming}, verdict {verdict}: {e}")
            })?;
        }
    }
    Ok(())
}

/// Two clones each state "mating" at B and carry it on to C, unaware of each other: their
/// syncs keep the later feature (two ids, one key) and both superseded copies at B, in every
/// clone. Each clone then states "mating" at B again (`remember`, knowing the carry: what B
/// says of the feature); `first` states first. Returns the id of the copy each clone's
/// statement went into (one, two), and the clones after every clone synced.
fn stated_at_b_beside_two_copies(
    first_one: bool,
) -> anyhow::Result<((String, String), TempDir, [PathBuf; 2])> {
    use crate::support::artifact;
    let dir = TempDir::new("sync-two-copies-one-key")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy();
    let at = |rev: &str| artifact(rev, "/w/p.step");
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    for db in [&two, &one] {
        let mut s = mating_at(db, "B", "at B")?;
        s.call(
            "carry_forward",
            serde_json::json!({"from": at("B"), "to": at("C"), "map": []}),
        )?
        .ok()?;
        s.close()?;
        pause();
    }
    for db in [&one, &two, &one] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    let order = match first_one {
        true => [(&one, "one's at B"), (&two, "two's at B")],
        false => [(&two, "two's at B"), (&one, "one's at B")],
    };
    for (db, note) in order {
        mating_at(db, "B", note)?.close()?;
        pause();
    }
    let into = |db: &Path, note: &str| -> anyhow::Result<String> {
        records_of(db)?
            .iter()
            .find(|r| r.get("superseded").is_some() && r["note"] == note)
            .and_then(|r| r["id"].as_str())
            .map(str::to_string)
            .ok_or_else(|| anyhow::anyhow!("{}: no copy says {note:?}", db.display()))
    };
    let ids = (into(&one, "one's at B")?, into(&two, "two's at B")?);
    for db in [&one, &two, &one] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    Ok((ids, dir, [one, two]))
}

/// Regression (advorder, the author's doubt (a) of 1d80174, reached without it): two clones
/// that carry their own feature of one name from B (two ids, one key) leave two superseded
/// copies at B in every clone, and `remember` found "the" copy by the key as the row of the
/// highest seq (`rows::FEATURE_COPY`, `ORDER BY seq DESC`): each database numbers its own
/// copy first and the other's, imported by a sync, after it, so the same statement at B went
/// into the other clone's copy in each database (seen: one's into two's copy, two's into
/// one's), and B then said two things of the feature, the later statement not replacing the
/// earlier. The copy by the key is now the least id, the same in every clone (and the one
/// sync takes from the folder). Two copies of one key remain (not settled here).
#[test]
fn remember_at_a_revision_two_clones_carried_past_picks_one_copy_in_every_clone()
-> anyhow::Result<()> {
    for first_one in [true, false] {
        let ((one, two), dir, dbs) = stated_at_b_beside_two_copies(first_one)?;
        ensure!(
            one == two,
            "first one: {first_one}: the statement at B goes into one copy in both clones: one \
             wrote {one}, two wrote {two}"
        );
        clones_end_as_one(&dir, &[&dbs[0], &dbs[1]])?;
    }
    Ok(())
}

/// advorder: the decision `held`, deleted in the folder, was given the engineer's verdict here
/// since the last sync (its turn now the sync's last pass), and the folder's `incoming`, of its
/// key, is dated after that: `incoming` keeps the key, with the engineer's verdict, in the
/// database and the folder, in both id orders; the dry run reports what the sync does, and a
/// second sync changes nothing.
#[test]
fn sync_a_decision_deleted_in_the_folder_keeps_its_engineer_verdict_under_the_later_id()
-> anyhow::Result<()> {
    const T25: &str = "2026-01-02T12:00:00.000Z";
    for (held, incoming) in [("dec_a", "dec_b"), ("dec_b", "dec_a")] {
        let case = format!("held {held}, incoming {incoming}");
        let dir = TempDir::new("sync-keepdb-verdict")?;
        let db = database(&dir, "a.db", &[decision(held, "hold", T1)])?;
        let folder = dir.join("review");
        let f = folder.to_string_lossy();
        ok(review_mcp(&db, &["sync", &f])?)?;
        std::fs::remove_file(folder.join(format!("decisions/{held}.json")))?;
        let v: serde_json::Value = serde_json::from_str(&decision(incoming, "scrap", T3))?;
        std::fs::write(
            folder.join(format!("decisions/{incoming}.json")),
            serde_json::to_string_pretty(&v)? + "\n",
        )?;
        let mut judged: serde_json::Value = serde_json::from_str(&decision(held, "release", T25))?;
        judged["decision"]["basis"][0]["verdict"] = serde_json::json!({
            "judgement": "accepted", "via": "terminal", "at": T25, "author": "Ada"
        });
        let changed = dir.join("changed.jsonl");
        std::fs::write(&changed, judged.to_string() + "\n")?;
        ok(review_mcp(&db, &["import", &changed.to_string_lossy()])?)?;
        let (out, conflicts) =
            sync_as_dry_run_says(&db, &f).map_err(|e| anyhow::anyhow!("{case}: {e}"))?;
        ensure!(conflicts.len() == 1, "{case}: one conflict:\n{out}");
        alone_with_the_verdict(&db, &folder, incoming)
            .map_err(|e| anyhow::anyhow!("{case}: {e}\n{out}"))?;
    }
    Ok(())
}

/// Regression (sync's side of import's fix for seed 8601): an archive holds "mating" at A
/// under id X (from two, which took the carry of Y from A to B and forgot Y at B: its export
/// holds the copy at A beside X, and Y's history; [`archive_of_two`]), so X holds the name at
/// A and Y is live nowhere, known to the history. Three, which
/// had seen neither, states Y at A later still and syncs. Import of three's export gives Y the
/// key at A by its time (X's older statement goes); sync took the folder's Y for the carried
/// feature forgotten after its carry and kept it in Y's copy at A, X live beside it: the
/// engineer's last statement hidden. Now sync decides as import does: the name stands at A
/// again, so nothing is moved back, and the later of the two ids keeps the key.
#[test]
fn sync_a_later_statement_at_the_revision_its_name_stands_at_again_takes_the_key_as_import_does()
-> anyhow::Result<()> {
    use serde_json::{Value, json};
    let dir = TempDir::new("sync-name-stands-again")?;
    let (one, two, three) = (dir.join("one.db"), dir.join("two.db"), dir.join("three.db"));
    let (by_sync, by_import) = (dir.join("sync.db"), dir.join("import.db"));
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
    let mut s = mating_at(&one, "A", "original")?;
    let carried = records_of(&one)?[0]["id"].clone();
    exported_into(&dir, &one, &three)?;
    let carry = json!({"from": at("A"), "to": at("B"), "map": []});
    s.call("carry_forward", carry)?.ok()?;
    s.close()?;
    // Two archives alike: two's export, its later statement at A ([`archive_of_two`]).
    pause();
    forgot_at_b_and_stated_at_a(&dir, &one, &two)?;
    for archive in [&by_sync, &by_import] {
        archive_of_two(&dir, &two, archive)?;
    }
    let live = |db: &Path| -> anyhow::Result<Vec<Value>> {
        Ok(records_of(db)?
            .into_iter()
            .filter(|r| r.get("superseded").is_none())
            .collect())
    };
    let before = live(&by_sync)?;
    ensure!(
        before.len() == 1
            && before[0]["id"] != carried
            && before[0]["note"] == "stated at A by two",
        "the later of two ids holds the name at A: {before:?}"
    );
    pause();
    mating_at(&three, "A", "stated last")?.close()?;
    let folder = dir.join("review").to_string_lossy().into_owned();
    ok(review_mcp(&three, &["sync", &folder])?)?;
    let said = ok(review_mcp(&by_sync, &["sync", &folder])?)?;
    exported_into(&dir, &three, &by_import)?;
    for db in [&by_import, &by_sync] {
        let after = live(db)?;
        ensure!(
            after.len() == 1
                && after[0]["id"] == carried
                && after[0]["artifact"]["revision"] == at("A")["revision"]
                && after[0]["note"] == "stated last",
            "{}: the later statement keeps the key at A: {:?}\n{said}",
            db.display(),
            records_of(db)?
        );
    }
    ensure!(
        live(&by_sync)? == live(&by_import)?,
        "sync and import reach the same live item"
    );
    // Three takes what the archive settled: one set of records in both.
    for db in [&three, &by_sync, &three] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    ensure!(
        records_of(&three)? == records_of(&by_sync)?,
        "the same records in both: {:?}",
        records_of(&three)?
    );
    Ok(())
}

/// One (`one`) states "mating" at A, carries it to B and syncs `folder`, then two (`two`)
/// syncs it; `two_before`: both sync before the carry instead, and only one after it, so two
/// last synced before the carry. The carried feature's id.
fn stated_and_carried(
    one: &Path,
    two: &Path,
    folder: &str,
    two_before: bool,
) -> anyhow::Result<String> {
    let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
    let mut s = mating_at(one, "A", "original")?;
    let carried = live_id(one)?.as_str().unwrap_or("?").to_string();
    let sync = |db: &Path| ok(review_mcp(db, &["sync", folder])?);
    if two_before {
        sync(one)?;
        sync(two)?;
    }
    s.call(
        "carry_forward",
        serde_json::json!({"from": at("A"), "to": at("B"), "map": []}),
    )?
    .ok()?;
    s.close()?;
    sync(one)?;
    if !two_before {
        sync(two)?;
    }
    Ok(carried)
}

/// One (`one`) states "mating" at A and carries it to B, both clones sync `folder`, and two's
/// export is written as a backup (`backup.jsonl` in `dir`): the carried feature's id and the
/// backup.
fn carried_synced_and_backed_up(
    dir: &TempDir,
    one: &Path,
    two: &Path,
    folder: &str,
) -> anyhow::Result<(serde_json::Value, PathBuf)> {
    let carried = stated_and_carried(one, two, folder, false)?.into();
    let backup = dir.join("backup.jsonl");
    std::fs::write(&backup, export(two)?)?;
    std::thread::sleep(std::time::Duration::from_millis(5));
    Ok((carried, backup))
}

/// forgetevent, the sync side: one carries "mating" from A to B and syncs; two syncs it, and its
/// export then is a backup. Two forgets the feature at B and states it anew at A (another id),
/// and syncs; one's sync keeps the forget and the statement, and the forget's `forgotten`
/// event reaches it through the folder's history. One then imports two's backup from before
/// the forget: the carried feature in it is the version forgotten since, judged by its time,
/// so the statement stays live and the feature stays forgotten. Seen failing without the
/// event (the carry rule kept the backup's feature at B, the statement in A's copy).
#[test]
fn sync_brings_a_carried_features_forget_so_an_old_backup_does_not_undo_it() -> anyhow::Result<()> {
    use serde_json::json;
    let dir = TempDir::new("sync-forget-event")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let folder = dir.join("review").to_string_lossy().into_owned();
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
    let (carried, backup) = carried_synced_and_backed_up(&dir, &one, &two, &folder)?;
    let mut s = crate::support::client::Server::start(&two)?;
    s.call("forget", json!({"artifact": at("B"), "name": "mating"}))?
        .ok()?;
    s.close()?;
    pause();
    mating_at(&two, "A", "stated anew at A")?.close()?;
    ok(review_mcp(&two, &["sync", &folder])?)?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    let anew = live_id(&one)?;
    ensure!(
        anew != carried && anew == live_id(&two)?,
        "the forget and the statement stand"
    );
    let ends = |db: &Path| -> anyhow::Result<usize> {
        Ok(export(db)?
            .lines()
            .filter(|l| {
                l.contains(r#""kind":"forgotten""#) && l.contains(carried.as_str().unwrap_or("?"))
            })
            .count())
    };
    ensure!(ends(&one)? == 1, "the end reached one:\n{}", export(&one)?);
    ok(review_mcp(&one, &["import", &backup.to_string_lossy()])?)?;
    let records = records_of(&one)?;
    ensure!(
        live_id(&one)? == anew
            && records.iter().all(|r| r["id"] != carried)
            && records.iter().any(|r| r["note"] == "stated anew at A"),
        "the backup undid neither the forget nor the statement: {records:?}"
    );
    Ok(())
}

/// adv10: the forget of a carried feature that reaches a sync without its end (a build from
/// before forgetevent forgot it, or its file was deleted by hand) is that end here: the sync
/// that applies the deletion writes the feature's `forgotten` event, as it writes a decision's,
/// so an import of a backup from before the forget does not bring the feature back over the
/// statement made since. Seen failing without it: the backup's carried feature stood at B
/// again and the statement anew went into A's copy (as the same sync and import by the
/// 26168d02^1 build do, seen with the two binaries on one git folder).
#[test]
fn sync_applying_a_forget_without_its_end_records_it_so_an_old_backup_does_not_undo_it()
-> anyhow::Result<()> {
    let dir = TempDir::new("sync-forget-no-end")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let review = dir.join("review");
    let folder = review.to_string_lossy().into_owned();
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let (carried, backup) = carried_synced_and_backed_up(&dir, &one, &two, &folder)?;
    let carried = carried.as_str().unwrap_or("?").to_string();
    // A forget that brings no event: the file deleted, as an older build's sync deletes it.
    std::fs::remove_file(review.join("records").join(format!("{carried}.json")))?;
    ok(review_mcp(&two, &["sync", &folder])?)?;
    let ends = |db: &Path| -> anyhow::Result<usize> {
        Ok(export(db)?
            .lines()
            .filter(|l| l.contains(r#""kind":"forgotten""#) && l.contains(&carried))
            .count())
    };
    ensure!(
        ends(&two)? == 1,
        "the sync wrote the end:\n{}",
        export(&two)?
    );
    ok(review_mcp(&two, &["sync", &folder])?)?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    ensure!(
        ends(&two)? == 1 && ends(&one)? == 1,
        "one end, in both clones:\n{}",
        export(&one)?
    );
    pause();
    mating_at(&two, "A", "stated anew at A")?.close()?;
    let anew = live_id(&two)?;
    ensure!(anew != carried.as_str(), "a new id");
    ok(review_mcp(&two, &["import", &backup.to_string_lossy()])?)?;
    let records = records_of(&two)?;
    ensure!(
        live_id(&two)? == anew
            && records.iter().all(|r| r["id"] != carried.as_str())
            && records.iter().any(|r| r["note"] == "stated anew at A"),
        "the backup undid neither the forget nor the statement: {records:?}"
    );
    Ok(())
}

/// adv11: a clone that last synced before a carry (its version of the feature at A) applies
/// the deletion of the carried feature's file (deleted by hand at B, no end with it): its sync
/// wrote the end where its own stale version stood (A), not where the carry in the folder's
/// history had taken the feature (B), and every clone took that end. The feature, forgotten at
/// B, then had no end there: an import of a backup from before the deletion brought it back at
/// B over a statement of its name made anew at A since (kept as A's copy). Seen failing (the
/// end at A; the backup's feature live at B, "stated anew at A" superseded) before the end
/// followed the history's carries to where the feature stood.
#[test]
fn sync_applying_a_deletion_from_before_a_carry_it_had_not_seen_ends_the_feature_where_it_stood()
-> anyhow::Result<()> {
    let dir = TempDir::new("sync-forget-stale-end")?;
    let (one, three) = (dir.join("one.db"), dir.join("three.db"));
    let review = dir.join("review");
    let folder = review.to_string_lossy().into_owned();
    let carried = stated_and_carried(&one, &three, &folder, true)?;
    let backup = dir.join("backup.jsonl");
    std::fs::write(&backup, export(&one)?)?;
    std::fs::remove_file(review.join("records").join(format!("{carried}.json")))?;
    for db in [&three, &one, &three, &one] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    let b = crate::support::revision("B");
    for db in [&one, &three] {
        let ends: Vec<String> = export(db)?
            .lines()
            .filter(|l| l.contains(r#""kind":"forgotten""#) && l.contains(&carried))
            .map(String::from)
            .collect();
        ensure!(
            ends.len() == 1 && ends[0].contains(&format!(r#""revision":"{b}""#)),
            "one end, at B where the feature stood: {ends:?}"
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(5));
    mating_at(&one, "A", "stated anew at A")?.close()?;
    let anew = live_id(&one)?;
    ok(review_mcp(&one, &["import", &backup.to_string_lossy()])?)?;
    let records = records_of(&one)?;
    ensure!(
        live_id(&one)? == anew
            && records.iter().all(|r| r["id"] != carried.as_str())
            && records
                .iter()
                .any(|r| r["note"] == "stated anew at A" && r["superseded"].is_null()),
        "the backup undid neither the deletion nor the statement: {records:?}"
    );
    Ok(())
}

/// Regression (found with the real binary and git): a carried feature's file deleted by hand
/// and synced (the sync writes its end), then brought back on two clones at once, one by
/// `import` of the file of its sync's deletions, the other by putting the file back (`git
/// checkout`) and syncing: each clone records the return (`arrived`, dated just after the
/// end, signed by the version's author) under its own channel (`import`, `sync`), so the two
/// are two events, both kept once the histories merge (each is how the item came back to a
/// clone; events are never deleted), and `review_history` said "arrived" twice on every
/// clone. It says it once now, as every reader of the history does: the return this clone
/// recorded first (a decision brought back the same two ways is read the same way).
#[test]
fn sync_a_carried_feature_brought_back_by_import_and_by_its_file_returns_once() -> anyhow::Result<()>
{
    let dir = TempDir::new("sync-forget-returned-twice")?;
    let (one, two) = (dir.join("one.db"), dir.join("two.db"));
    let review = dir.join("review");
    let folder = review.to_string_lossy().into_owned();
    let (carried, _) = carried_synced_and_backed_up(&dir, &one, &two, &folder)?;
    let carried = carried.as_str().unwrap_or("?").to_string();
    let file = review.join("records").join(format!("{carried}.json"));
    let text = std::fs::read(&file)?;
    std::fs::remove_file(&file)?;
    ok(review_mcp(&two, &["sync", &folder])?)?;
    ok(review_mcp(&one, &["sync", &folder])?)?;
    let saved = std::fs::read_dir(dir.join("one.db.sync-deleted"))?
        .next()
        .ok_or_else(|| anyhow::anyhow!("one saved what its sync deleted"))??
        .path();
    ok(review_mcp(&one, &["import", &saved.to_string_lossy()])?)?;
    std::fs::write(&file, text)?;
    for _ in 0..2 {
        for db in [&two, &one] {
            ok(review_mcp(db, &["sync", &folder])?)?;
        }
    }
    for (db, first) in [(&one, "import"), (&two, "sync")] {
        let events = export(db)?;
        let returns = events
            .lines()
            .filter(|l| l.contains(r#""kind":"arrived""#) && l.contains(carried.as_str()))
            .count();
        ensure!(returns == 2, "both returns kept: {events}");
        let mut s = crate::support::client::Server::start(db)?;
        let page = s
            .call("review_history", serde_json::json!({"id": carried}))?
            .ok()?;
        s.close()?;
        let said: Vec<(&str, &str)> = page["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["kind"] == "arrived" || e["kind"] == "forgotten")
            .map(|e| {
                let text = |k: &str| e[k].as_str().unwrap_or("?");
                (text("kind"), text("channel"))
            })
            .collect();
        ensure!(
            said == [("arrived", first), ("forgotten", "sync")] && live_id(db)? == carried.as_str(),
            "back, and said once, as it came here: {said:?}\n{page}"
        );
    }
    Ok(())
}

/// The mirror of
/// `sync_a_later_statement_at_the_revision_its_name_stands_at_again_takes_the_key_as_import_does`:
/// the archive (X live at A, Y's copy at A, Y live nowhere) syncs first, and three, holding Y
/// live at A with the later statement, syncs after. Three's sync took its Y for the carried
/// feature forgotten after its carry (the folder holds Y's copy at A and no file of Y) and
/// kept it in the copy, X's older statement live: import of the archive's export into three's
/// database keeps Y by its time. Now the folder's X at A is the name standing there again, and
/// the later of the two ids keeps the key, in sync as in import. The ids are random, and the
/// gap showed only when Y's sorts first (else X's turn settles the two ids by time first): the
/// case runs until both orders are seen.
#[test]
fn sync_a_later_statement_held_at_the_revision_its_name_stands_at_again_in_the_folder_keeps_the_key()
-> anyhow::Result<()> {
    in_both_id_orders(held_at_the_revision_its_name_stands_at_again)
}

/// One run of
/// `sync_a_later_statement_held_at_the_revision_its_name_stands_at_again_in_the_folder_keeps_the_key`;
/// returns whether the carried feature's id sorts before the other id.
fn held_at_the_revision_its_name_stands_at_again() -> anyhow::Result<bool> {
    use serde_json::Value;
    let dir = TempDir::new("sync-name-stands-again-held")?;
    let (one, two, three) = (dir.join("one.db"), dir.join("two.db"), dir.join("three.db"));
    let (by_sync, by_import) = (dir.join("sync.db"), dir.join("import.db"));
    let s = mating_at(&one, "A", "original")?;
    let carried = records_of(&one)?[0]["id"].clone();
    exported_into(&dir, &one, &three)?;
    exported_into(&dir, &one, &by_import)?;
    archive_and_last_statement(&dir, s, [&one, &two, &by_sync, &three])?;
    // by_import: three's database importing the archive's export.
    exported_into(&dir, &three, &by_import)?;
    exported_into(&dir, &by_sync, &by_import)?;
    let folder = dir.join("review").to_string_lossy().into_owned();
    ok(review_mcp(&by_sync, &["sync", &folder])?)?;
    let said = ok(review_mcp(&three, &["sync", &folder])?)?;
    let live = |db: &Path| -> anyhow::Result<Vec<Value>> {
        Ok(records_of(db)?
            .into_iter()
            .filter(|r| r.get("superseded").is_none())
            .collect())
    };
    for db in [&by_import, &three] {
        let after = live(db)?;
        ensure!(
            after.len() == 1 && after[0]["id"] == carried && after[0]["note"] == "stated last",
            "{}: {:?}\n{said}",
            db.display(),
            records_of(db)?
        );
    }
    for db in [&by_sync, &three, &by_sync] {
        ok(review_mcp(db, &["sync", &folder])?)?;
    }
    ensure!(
        records_of(&three)? == records_of(&by_sync)?,
        "the same records in both: {:?}",
        records_of(&three)?
    );
    let other = live_id(&two)?;
    Ok(carried.as_str() < other.as_str())
}

/// Adversarial read of the database side of
/// `sync_a_later_statement_held_at_the_revision_its_name_stands_at_again_in_the_folder_keeps_the_key`:
/// there the carried feature's statement (Y, live at A in three) is settled by `settle_key`
/// when X's file sorts first, and by the ordinary path when Y's does. Checks three's sync
/// reports the same conflict lines in both id orders (ids named by role, times left out), and
/// that its dry run says what the sync does.
#[test]
fn sync_reports_a_name_standing_again_in_the_folder_alike_in_both_id_orders() -> anyhow::Result<()>
{
    let mut seen: [Option<Vec<String>>; 2] = [None, None];
    in_both_id_orders(|| {
        let (carried_first, lines) = held_again_reported()?;
        seen[usize::from(carried_first)] = Some(lines);
        Ok(carried_first)
    })?;
    ensure!(seen[0] == seen[1], "X first, then Y first: {seen:#?}");
    Ok(())
}

/// One run of [`sync_reports_a_name_standing_again_in_the_folder_alike_in_both_id_orders`]:
/// whether the carried id sorts first, and three's conflict lines with the carried id as `Y`
/// and the other as `X`.
fn held_again_reported() -> anyhow::Result<(bool, Vec<String>)> {
    let dir = TempDir::new("sync-name-stands-again-lines")?;
    let (one, two, three) = (dir.join("one.db"), dir.join("two.db"), dir.join("three.db"));
    let by_sync = dir.join("sync.db");
    let s = mating_at(&one, "A", "original")?;
    let carried = records_of(&one)?[0]["id"].clone();
    exported_into(&dir, &one, &three)?;
    archive_and_last_statement(&dir, s, [&one, &two, &by_sync, &three])?;
    let folder = dir.join("review").to_string_lossy().into_owned();
    ok(review_mcp(&by_sync, &["sync", &folder])?)?;
    let (_, lines) = sync_as_dry_run_says(&three, &folder)?;
    let (y, x) = (
        carried.as_str().unwrap_or_default().to_string(),
        live_id(&two)?.as_str().unwrap_or_default().to_string(),
    );
    let lines = lines
        .iter()
        .map(|l| {
            // Ids by role, and the times (of each run) as zeros.
            l.replace(&y, "Y")
                .replace(&x, "X")
                .chars()
                .map(|c| if c.is_ascii_digit() { '0' } else { c })
                .collect()
        })
        .collect();
    Ok((y < x, lines))
}

/// Adversarial read of the folder side of
/// `sync_a_later_statement_at_the_revision_its_name_stands_at_again_takes_the_key_as_import_does`,
/// the holder at the statement's revision moved on by the folder: the archive (X live at A,
/// Y's copy at A, Y live nowhere) syncs; four takes the folder, carries A on to B (X moves to
/// B) and syncs; three, which never saw the carry of Y, states Y at A and its file reaches the
/// folder (git merged it over, simulated by copying it in). The archive's next sync sees Y's
/// file new and X's changed. When Y's id sorts first, the database's X still holds the name at
/// A at Y's turn, so the forget of Y stands aside; checks Y does not come back live at A (where
/// its carry moved it from) in either id order: X stands at B alone, Y's forget stands. (It
/// passed before and after advgap's change: a check of a doubt, not a regression; it passes
/// too with the folder side's "forgotten after the carry" branch disabled, the ordinary path
/// keeping Y's statement in its copy as well.) The ids are random: runs until both orders are
/// seen.
#[test]
fn sync_a_holder_at_the_revision_the_folder_moves_on_does_not_bring_the_carried_feature_back()
-> anyhow::Result<()> {
    in_both_id_orders(holder_moved_on)
}

/// One run of
/// [`sync_a_holder_at_the_revision_the_folder_moves_on_does_not_bring_the_carried_feature_back`];
/// returns whether the carried feature's id sorts before the other id.
fn holder_moved_on() -> anyhow::Result<bool> {
    use serde_json::json;
    let dir = TempDir::new("sync-holder-moved-on")?;
    let (one, two, three) = (dir.join("one.db"), dir.join("two.db"), dir.join("three.db"));
    let (by_sync, four) = (dir.join("sync.db"), dir.join("four.db"));
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
    let carry = json!({"from": at("A"), "to": at("B"), "map": []});
    let mut s = mating_at(&one, "A", "original")?;
    let carried = records_of(&one)?[0]["id"].clone();
    exported_into(&dir, &one, &three)?;
    s.call("carry_forward", carry.clone())?.ok()?;
    s.close()?;
    pause();
    forgot_at_b_and_stated_at_a(&dir, &one, &two)?;
    archive_of_two(&dir, &two, &by_sync)?;
    let other = live_id(&two)?;
    let folder_path = dir.join("review");
    let folder = folder_path.to_string_lossy().into_owned();
    ok(review_mcp(&by_sync, &["sync", &folder])?)?;
    ok(review_mcp(&four, &["sync", &folder])?)?;
    let mut s = crate::support::client::Server::start(&four)?;
    s.call("carry_forward", carry)?.ok()?;
    s.close()?;
    ok(review_mcp(&four, &["sync", &folder])?)?;
    pause();
    mating_at(&three, "A", "stated last")?.close()?;
    let elsewhere = dir.join("three-review");
    ok(review_mcp(&three, &["sync", &elsewhere.to_string_lossy()])?)?;
    let name = format!("records/{}.json", carried.as_str().unwrap_or_default());
    std::fs::copy(elsewhere.join(&name), folder_path.join(&name))?;
    let said = ok(review_mcp(&by_sync, &["sync", &folder])?)?;
    let records = records_of(&by_sync)?;
    let live: Vec<_> = records
        .iter()
        .filter(|r| r.get("superseded").is_none())
        .collect();
    ensure!(
        live.len() == 1
            && live[0]["id"] == other
            && live[0]["artifact"]["revision"] == at("B")["revision"],
        "X stands at B alone, Y's forget stands (carried first: {}): {records:?}\n{said}",
        carried.as_str() < other.as_str()
    );
    Ok(carried.as_str() < other.as_str())
}

/// Runs `run` (one run of a case with random ids, returning whether the carried feature's id
/// sorts first) until both id orders are seen, at most 32 times.
fn in_both_id_orders(mut run: impl FnMut() -> anyhow::Result<bool>) -> anyhow::Result<()> {
    let mut seen = [false, false];
    for _ in 0..32 {
        seen[usize::from(run()?)] = true;
        if seen == [true, true] {
            return Ok(());
        }
    }
    anyhow::bail!("both id orders not seen in 32 runs: {seen:?}")
}

/// `archive`, empty, imports two's export (two forgot the carried feature Y at B and stated the
/// name anew at A as X): an empty database takes the lines as they are, so it holds X live at
/// A, Y's copy at A and Y's history, Y live nowhere. (Until carryrules the cases imported
/// one's export, Y live at B, first: import then let X take the key as the later of two ids,
/// its file holding the copy beside it; it now keeps the carried feature, as sync does, and
/// never learns of two's forget.)
fn archive_of_two(dir: &TempDir, two: &Path, archive: &Path) -> anyhow::Result<()> {
    let two_file = dir.join("two.jsonl");
    std::fs::write(&two_file, export(two)?)?;
    ok(review_mcp(
        archive,
        &["import", &two_file.to_string_lossy()],
    )?)?;
    Ok(())
}

/// The archive `by_sync` of the cases where a name stands again at a carried feature's
/// revision: one (`s`, which stated "mating" at A) carries A on to B; two takes the carry,
/// forgets Y at B and states "mating" at A later ([`forgot_at_b_and_stated_at_a`]); the archive
/// takes two's export ([`archive_of_two`]: X live at A, Y's copy at A); three,
/// which never saw the carry, states Y at A last.
fn archive_and_last_statement(
    dir: &TempDir,
    mut s: crate::support::client::Server,
    [one, two, by_sync, three]: [&Path; 4],
) -> anyhow::Result<()> {
    let pause = || std::thread::sleep(std::time::Duration::from_millis(5));
    let at = |rev: &str| crate::support::artifact(rev, "/w/p.step");
    let carry = serde_json::json!({"from": at("A"), "to": at("B"), "map": []});
    s.call("carry_forward", carry)?.ok()?;
    s.close()?;
    pause();
    forgot_at_b_and_stated_at_a(dir, one, two)?;
    archive_of_two(dir, two, by_sync)?;
    pause();
    mating_at(three, "A", "stated last")?.close()?;
    Ok(())
}
