//! Issue 28: the review's history carried by export/import and sync. Export → import →
//! export is byte-identical with events of every kind; an edited event is refused, named; an
//! export from before the history imports and says its decisions `arrived`; two databases
//! that each added events sync through one folder (and through two git clones merged) to the
//! union of their events, none lost, none twice, none changed; a bad history file is refused
//! and named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, ensure};
use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::client::binary;
use crate::support::git::git_ok;
use crate::support::inproc::{Client, Era, art_uri, rev};
use review_mcp::review::history::Event;
use review_mcp::review::{Judgement, Meaning, Verdict, Via};
use review_mcp::store::{DecisionRef, Shown, Store, VerdictsOutcome};

const FILE: &str = "/work/bracket.step";

use crate::support::file_events::{run_cli as cli, succeeded as ok};

fn export(db: &Path) -> anyhow::Result<String> {
    ok(cli(db, &["export"])?)
}

fn import(db: &Path, file: &Path) -> anyhow::Result<String> {
    ok(cli(db, &["import", &file.to_string_lossy()])?)
}

fn sync(db: &Path, folder: &Path) -> anyhow::Result<String> {
    ok(cli(db, &["sync", &folder.to_string_lossy()])?)
}

fn client(db: &Path, author: &str) -> anyhow::Result<Client> {
    let mut store = Store::open(db)?;
    store.set_author(Some(author.into()));
    Ok(Client::new(store, Era::V2026_07_28))
}

fn events(db: &Path) -> anyhow::Result<Vec<Event>> {
    Ok(Store::open(db)?.events()?)
}

/// The engineer's verdict on item `index` of `decision`, through the store's own path (the
/// card's or the terminal's), with its author and meaning.
fn engineer_verdict(
    db: &Path,
    decision: &str,
    index: usize,
    judgement: Judgement,
    who: &str,
    via: Via,
    meaning: Meaning,
) -> anyhow::Result<()> {
    let mut store = Store::open(db)?;
    let at = DecisionRef::Id(decision);
    let shown = store
        .find_decision(&at)?
        .and_then(|d| d.basis.get(index).map(|b| b.digest()))
        .unwrap_or_default();
    let verdict = Verdict {
        meaning: Some(meaning),
        author: Some(who.into()),
        at: review_mcp::time::now(),
        judgement,
        reason: Some(format!("{who} measured it")),
        via,
    };
    let outcome = store.record_verdicts(&at, Shown::Item(&shown), &[(index, verdict)])?;
    ensure!(
        matches!(outcome, VerdictsOutcome::Recorded(_)),
        "{outcome:?}"
    );
    Ok(())
}

fn item(requirement: &str, state: &str, verdict: Option<&str>) -> Value {
    let mut v = json!({"requirement": requirement, "source": "drawing", "state": state,
                       "faces": ["face:3"]});
    if state == "unresolved" {
        v["question"] = json!("Which gauge?");
    }
    if let Some(j) = verdict {
        v["verdict"] = json!({"judgement": j});
    }
    v
}

fn decide(c: &mut Client, subject: &str, disposition: &str, basis: Value) -> String {
    let v = c.ok(
        "remember_decision",
        json!({"artifact": art_uri(&rev(1), FILE), "subject": subject,
               "disposition": disposition, "basis": basis}),
    );
    v["decision"]["id"].as_str().unwrap_or_default().to_string()
}

/// A review with an event of every kind a server writes: a feature replaced, a decision
/// created and replaced, verdicts given, replaced, kept against the assistant and removed,
/// an engineer's approval with its meaning, a carry to revision 2, and a decision forgotten.
fn review_of_every_kind(db: &Path) -> anyhow::Result<()> {
    let mut c = client(db, "Ada")?;
    let a = art_uri(&rev(1), FILE);
    c.ok(
        "remember",
        json!({"artifact": a, "name": "bore", "entity_ids": ["face:3"], "note": "12H7"}),
    );
    c.ok(
        "remember",
        json!({"artifact": a, "name": "bore", "entity_ids": ["face:3"], "note": "12H7 reamed"}),
    );
    let id = decide(
        &mut c,
        "bracket",
        "hold",
        json!([
            item("Bore 12H7", "unresolved", None),
            item("Flatness", "satisfied", None)
        ]),
    );
    decide(
        &mut c,
        "bracket",
        "release",
        json!([
            item("Bore 12H7", "satisfied", None),
            item("Flatness", "satisfied", Some("accepted")),
            item("Chamfer", "satisfied", Some("accepted"))
        ]),
    );
    let slot = decide(
        &mut c,
        "slot",
        "hold",
        json!([item("Slot 6", "satisfied", None)]),
    );
    drop(c);
    // The engineer's answer in the host's form, on the decision forgotten below.
    engineer_verdict(
        db,
        &slot,
        0,
        Judgement::Accepted,
        "Grace",
        Via::Elicitation,
        Meaning::Review,
    )?;
    // The engineer: an approval with its meaning (terminal), and the assistant's flatness
    // verdict replaced by a rejection (card).
    engineer_verdict(
        db,
        &id,
        0,
        Judgement::Accepted,
        "Grace",
        Via::Terminal,
        Meaning::Approval,
    )?;
    engineer_verdict(
        db,
        &id,
        1,
        Judgement::Rejected,
        "Grace",
        Via::App,
        Meaning::Review,
    )?;
    let mut c = client(db, "Ada")?;
    // The assistant tries to accept flatness (the engineer's rejection is kept) and drops
    // its own chamfer verdict.
    decide(
        &mut c,
        "bracket",
        "release",
        json!([
            item("Bore 12H7", "satisfied", None),
            item("Flatness", "satisfied", Some("accepted")),
            item("Chamfer", "satisfied", None)
        ]),
    );
    c.ok(
        "carry_forward",
        json!({"from": a, "to": art_uri(&rev(2), FILE),
               "map": [{"from": "face:3", "to": "face:13"}], "changed": [], "change": "ECO-1"}),
    );
    let forgotten = c.ok("forget", json!({"artifact": a, "subject": "slot"}));
    ensure!(forgotten["deleted"] == json!(1), "{forgotten}");
    ensure!(
        events(db)?.iter().any(|e| e.of == slot),
        "the forgotten decision keeps its history"
    );
    Ok(())
}

fn kinds(events: &[Event]) -> BTreeSet<&'static str> {
    events.iter().map(|e| e.kind.as_str()).collect()
}

fn ids(events: &[Event]) -> Vec<String> {
    let mut v: Vec<String> = events.iter().map(|e| e.id.clone()).collect();
    v.sort();
    v
}

#[test]
fn history_export_import_export_is_byte_identical_with_every_kind_of_event() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-roundtrip")?;
    let (one, two) = (tmp.join("one.db"), tmp.join("two.db"));
    review_of_every_kind(&one)?;
    let held = events(&one)?;
    let want: BTreeSet<&str> = [
        "created",
        "replaced",
        "carried",
        "forgotten",
        "verdict_given",
        "verdict_replaced",
        "verdict_kept",
        "verdict_removed",
        "text_replaced",
    ]
    .into();
    assert_eq!(kinds(&held), want, "{held:#?}");
    let approval = held
        .iter()
        .find(|e| e.meaning == Some(Meaning::Approval))
        .context("the approval's event")?;
    assert_eq!(approval.author.as_deref(), Some("Grace"));

    let first = export(&one)?;
    let event_lines: Vec<&str> = first
        .lines()
        .filter(|l| l.starts_with("{\"event\":"))
        .collect();
    assert_eq!(event_lines.len(), held.len());
    // Events come last, each as stored (the event's serde form), oldest first.
    let stored: Vec<String> = held
        .iter()
        .map(|e| json!({ "event": e }).to_string())
        .collect();
    assert_eq!(event_lines, stored);
    assert!(
        first
            .lines()
            .skip_while(|l| !l.starts_with("{\"event\":"))
            .all(|l| l.starts_with("{\"event\":"))
    );

    let file = tmp.join("one.jsonl");
    std::fs::write(&file, &first)?;
    let said = import(&two, &file)?;
    assert!(
        said.contains(&format!(
            "history: {} events, {} new",
            held.len(),
            held.len()
        )),
        "{said}"
    );
    let second = export(&two)?;
    assert!(first == second, "export → import → export differs");
    // The import recorded nothing of its own: the events explain every item.
    assert_eq!(ids(&events(&two)?), ids(&held));
    // Importing again adds nothing.
    let said = import(&two, &file)?;
    assert!(said.contains(", 0 new"), "{said}");
    assert!(export(&two)? == first);
    Ok(())
}

/// Regression (converge, seed 2687): the assistant stated a decision again with other
/// evidence and no verdict on the item the engineer had judged by the terminal. The
/// engineer's verdict stayed, unchallenged, and the replacement recorded no event, so the
/// history ended in the state before it: export, import into an empty database and export
/// again gained an `arrived` and a `verdict_given` of channel `import`.
#[test]
fn history_a_restatement_over_an_engineer_verdict_exports_import_and_exports_the_same()
-> anyhow::Result<()> {
    let tmp = TempDir::new("history-restated")?;
    let (one, two) = (tmp.join("one.db"), tmp.join("two.db"));
    let mut c = client(&one, "Ada")?;
    let with = |evidence: &str| {
        let mut b = item("Flatness 0.05", "violated", None);
        b["evidence"] = json!(evidence);
        json!([item("Bore 10 H7", "violated", None), b])
    };
    let id = decide(&mut c, "bracket", "hold", with("0.04 measured"));
    drop(c);
    engineer_verdict(
        &one,
        &id,
        1,
        Judgement::Accepted,
        "Grace",
        Via::Terminal,
        Meaning::Review,
    )?;
    let mut c = client(&one, "Ada")?;
    decide(&mut c, "bracket", "hold", with("0.041 measured again"));
    drop(c);
    let held = events(&one)?;
    let last = held.last().context("events")?;
    assert_eq!(last.kind.as_str(), "replaced", "{held:#?}");

    let first = export(&one)?;
    let file = tmp.join("one.jsonl");
    std::fs::write(&file, &first)?;
    import(&two, &file)?;
    let second = export(&two)?;
    assert!(
        first == second,
        "export → import → export differs:\n{first}\n{second}"
    );
    assert_eq!(ids(&events(&two)?), ids(&held));
    Ok(())
}

#[test]
fn history_an_edited_event_line_is_refused_naming_its_line() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-edited")?;
    let (one, two) = (tmp.join("one.db"), tmp.join("two.db"));
    review_of_every_kind(&one)?;
    let text = export(&one)?;
    let lines: Vec<&str> = text.lines().collect();
    let n = lines
        .iter()
        .position(|l| l.starts_with("{\"event\":") && l.contains("\"meaning\":\"approval\""))
        .context("the approval's line")?;
    let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    edited[n] = edited[n].replace("\"meaning\":\"approval\"", "\"meaning\":\"review\"");
    let file = tmp.join("edited.jsonl");
    std::fs::write(&file, edited.join("\n") + "\n")?;
    let out = cli(&two, &["import", &file.to_string_lossy()])?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!("line {}", n + 1))
            && err.contains("its id is not its content's")
            && err.contains("nothing was written"),
        "{err}"
    );
    if two.exists() {
        assert!(events(&two)?.is_empty());
        assert!(Store::open(&two)?.all_decisions()?.is_empty());
    }
    Ok(())
}

#[test]
fn history_an_export_from_before_the_history_imports_and_says_it_arrived() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-old-export")?;
    let (one, two) = (tmp.join("one.db"), tmp.join("two.db"));
    review_of_every_kind(&one)?;
    let old: String = export(&one)?
        .lines()
        .filter(|l| !l.starts_with("{\"event\":"))
        .map(|l| format!("{l}\n"))
        .collect();
    let file = tmp.join("old.jsonl");
    std::fs::write(&file, &old)?;
    import(&two, &file)?;
    let got = events(&two)?;
    let decisions = Store::open(&two)?.all_decisions()?;
    for d in &decisions {
        let arrived: Vec<&Event> = got
            .iter()
            .filter(|e| e.of == d.id && e.kind.as_str() == "arrived")
            .collect();
        assert_eq!(arrived.len(), 1, "{}: {got:#?}", d.id);
        assert_eq!(arrived[0].channel.as_str(), "import");
        assert!(
            arrived[0]
                .line()
                .contains("arrived without earlier history")
        );
    }
    // Nothing else is invented: only what the import itself did (each decision arrived, with
    // the verdicts it holds).
    assert!(
        got.iter().all(|e| e.channel.as_str() == "import"
            && ["arrived", "verdict_given"].contains(&e.kind.as_str())),
        "{got:#?}"
    );
    // The same file again: nothing new.
    import(&two, &file)?;
    assert_eq!(ids(&events(&two)?), ids(&got));
    Ok(())
}

/// Regression: a decision line that lists a face twice (a hand-written line, a teammate's
/// edit) is stored with the face once, as `remember_decision` stores it; the events it
/// arrived with told the state of the line, not of what was stored, so an export of that
/// database imported into another recorded the decision's arrival a second time (and each
/// verdict again): the history was not carried byte for byte.
#[test]
fn history_a_face_listed_twice_arrives_once_and_exports_byte_for_byte() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-faces-twice")?;
    let (one, two) = (tmp.join("one.db"), tmp.join("two.db"));
    let line = json!({"decision": {
        "id": "dec_1", "subject": "bore", "disposition": "hold",
        "basis": [{"requirement": "Bore 10 H7", "source": "drawing", "state": "satisfied",
                   "faces": ["face:2", "face:1", "face:2"],
                   "verdict": {"judgement": "accepted", "via": "app", "author": "Ada",
                               "at": "2026-01-01T00:00:00.000Z"}}],
        "artifact": art_uri(&rev(1), &format!("file://{FILE}")),
        "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z"}});
    let file = tmp.join("hand.jsonl");
    std::fs::write(&file, format!("{line}\n"))?;
    import(&one, &file)?;
    let first = export(&one)?;
    ensure!(first.contains(r#""faces":["face:2","face:1"]"#), "{first}");
    let exported = tmp.join("one.jsonl");
    std::fs::write(&exported, &first)?;
    import(&two, &exported)?;
    let second = export(&two)?;
    ensure!(
        first == second,
        "export -> import -> export changed:\n{first}\n---\n{second}"
    );
    // Through a folder too: a second database that syncs it records nothing of its own.
    let folder = tmp.join("review");
    sync(&one, &folder)?;
    let three = tmp.join("three.db");
    sync(&three, &folder)?;
    ensure!(
        ids(&events(&three)?) == ids(&events(&one)?),
        "{:#?}",
        events(&three)?
    );
    Ok(())
}

/// Every event file of `folder`, by id, with its bytes.
fn history_files(folder: &Path) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    let mut out = BTreeMap::new();
    let dir = folder.join("history");
    if !dir.exists() {
        return Ok(out);
    }
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        let name = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        out.insert(name, std::fs::read(&p)?);
    }
    Ok(out)
}

/// Two engineers' databases, each with events of its own: Ada's review (every kind), and
/// Bob's decision with Grace's approval over his own engineer channel.
fn two_databases(tmp: &TempDir) -> anyhow::Result<(PathBuf, PathBuf)> {
    let (a, b) = (tmp.join("a.db"), tmp.join("b.db"));
    review_of_every_kind(&a)?;
    let mut c = client(&b, "Bob")?;
    let id = decide(
        &mut c,
        "housing",
        "hold",
        json!([item("Wall 2 mm", "satisfied", None)]),
    );
    drop(c);
    engineer_verdict(
        &b,
        &id,
        0,
        Judgement::Accepted,
        "Grace",
        Via::Terminal,
        Meaning::Approval,
    )?;
    Ok((a, b))
}

fn assert_union(dbs: &[&Path], before: &[Vec<Event>]) -> anyhow::Result<Vec<Event>> {
    let first = events(dbs[0])?;
    let union_ids = ids(&first);
    let unique: BTreeSet<&String> = union_ids.iter().collect();
    assert_eq!(unique.len(), union_ids.len(), "an event twice");
    for db in dbs {
        assert_eq!(ids(&events(db)?), union_ids, "{}", db.display());
    }
    // None lost, none changed: every event each had is there, byte for byte.
    let by_id: BTreeMap<&str, &Event> = first.iter().map(|e| (e.id.as_str(), e)).collect();
    for had in before.iter().flatten() {
        assert_eq!(by_id.get(had.id.as_str()), Some(&had), "{}", had.id);
    }
    Ok(first)
}

#[test]
fn history_two_databases_sync_through_one_folder_to_the_union() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-sync")?;
    let (a, b) = two_databases(&tmp)?;
    let folder = tmp.join("review");
    let before = [events(&a)?, events(&b)?];
    sync(&a, &folder)?;
    let said = sync(&b, &folder)?;
    assert!(
        said.contains(&format!(
            "history events: {} written to the folder, {} imported into the database",
            before[1].len(),
            before[0].len()
        )),
        "{said}"
    );
    sync(&a, &folder)?;
    let union = assert_union(&[&a, &b], &before)?;
    for had in before.iter().flatten() {
        assert!(union.contains(had));
    }
    // Each event is a file named by its id, holding it as export writes it (pretty).
    let files = history_files(&folder)?;
    assert_eq!(files.keys().cloned().collect::<Vec<_>>(), ids(&union));
    for e in &union {
        let text = String::from_utf8(files[&e.id].clone())?;
        let back: Value = serde_json::from_str(&text)?;
        assert_eq!(back, json!({ "event": e }));
        assert!(text.ends_with("}\n") && text.contains("\n  \"event\": {"));
    }
    // Settled: nothing more either way, and a deleted event file is written back.
    let settled = sync(&b, &folder)?;
    assert!(
        settled.contains("history events: 0 written to the folder, 0 imported"),
        "{settled}"
    );
    let gone = ids(&union).remove(0);
    let path = folder.join(format!("history/{gone}.json"));
    let bytes = std::fs::read(&path)?;
    std::fs::remove_file(&path)?;
    let dry = ok(cli(&a, &["sync", "--dry-run", &folder.to_string_lossy()])?)?;
    assert!(
        dry.contains(&format!("would write history/{gone}.json"))
            && dry.contains("history events: 1 would be written to the folder"),
        "{dry}"
    );
    assert!(!path.exists(), "a dry run writes nothing");
    sync(&a, &folder)?;
    assert_eq!(std::fs::read(&path)?, bytes);
    assert_union(&[&a, &b], &before)?;
    Ok(())
}

/// What each engineer's sync recorded: the item writes the folder's events explain record
/// nothing more, so both databases hold exactly the events their engineers wrote.
#[test]
fn history_a_sync_records_only_what_the_folder_does_not_explain() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-explained")?;
    let (a, b) = two_databases(&tmp)?;
    let folder = tmp.join("review");
    let before = [events(&a)?, events(&b)?];
    sync(&a, &folder)?;
    sync(&b, &folder)?;
    sync(&a, &folder)?;
    let union = events(&a)?;
    assert_eq!(union.len(), before[0].len() + before[1].len(), "{union:#?}");
    assert!(union.iter().all(|e| e.channel.as_str() != "sync"));
    // A decision forgotten by Ada: Bob's sync deletes it and takes Ada's `forgotten` event,
    // recording none of its own.
    let mut c = client(&a, "Ada")?;
    let f = c.ok(
        "forget",
        json!({"artifact": art_uri(&rev(2), FILE), "subject": "bracket"}),
    );
    ensure!(f["deleted"] == json!(1), "{f}");
    drop(c);
    sync(&a, &folder)?;
    sync(&b, &folder)?;
    let forgotten: Vec<Event> = events(&b)?
        .into_iter()
        .filter(|e| e.kind.as_str() == "forgotten")
        .collect();
    assert_eq!(
        forgotten.len(),
        2,
        "slot and the carried bracket: {forgotten:#?}"
    );
    assert!(forgotten.iter().all(|e| e.channel.as_str() == "assistant"));
    assert_eq!(ids(&events(&a)?), ids(&events(&b)?));
    // A decision file deleted by hand (no event says so): the sync that deletes the decision
    // records its end itself, as the sync's.
    let housing = Store::open(&b)?
        .all_decisions()?
        .into_iter()
        .find(|d| d.subject == "housing")
        .context("housing")?
        .id;
    std::fs::remove_file(folder.join(format!("decisions/{housing}.json")))?;
    sync(&a, &folder)?;
    let ended: Vec<Event> = events(&a)?
        .into_iter()
        .filter(|e| e.of == housing && e.kind.as_str() == "forgotten")
        .collect();
    assert_eq!(ended.len(), 1, "{ended:#?}");
    assert_eq!(ended[0].channel.as_str(), "sync");
    Ok(())
}

/// An old folder (no history files, decisions from before the history): each clone's sync
/// of a decision it did not know records the same `arrived` event (dated and signed with the
/// version that arrived), so two clones' histories still merge to one event each.
#[test]
fn history_a_folder_from_before_the_history_arrives_once_in_every_clone() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-old-folder")?;
    let (one, a, b) = (tmp.join("one.db"), tmp.join("a.db"), tmp.join("b.db"));
    review_of_every_kind(&one)?;
    let folder = tmp.join("review");
    sync(&one, &folder)?;
    std::fs::remove_dir_all(folder.join("history"))?;
    let copy = tmp.join("copy");
    copy_dir(&folder, &copy)?;
    sync(&a, &folder)?;
    sync(&b, &copy)?;
    let (ea, eb) = (events(&a)?, events(&b)?);
    assert!(!ea.is_empty() && ea.iter().all(|e| e.channel.as_str() == "sync"));
    assert!(ea.iter().any(|e| e.kind.as_str() == "arrived"));
    assert_eq!(ids(&ea), ids(&eb));
    // A decision file changed in the folder (by hand, or by an older version) with no event
    // to tell it: the sync that takes it records the replacement, from → to, as the sync's.
    let d = Store::open(&a)?
        .all_decisions()?
        .into_iter()
        .find(|d| d.superseded.is_none() && d.subject == "bracket")
        .context("bracket")?;
    let path = folder.join(format!("decisions/{}.json", d.id));
    let text = std::fs::read_to_string(&path)?;
    let mut v: Value = serde_json::from_str(&text)?;
    v["decision"]["disposition"] = json!("scrap");
    v["decision"]["updated_at"] = json!("2099-01-01T00:00:00.000Z");
    std::fs::write(&path, serde_json::to_string_pretty(&v)? + "\n")?;
    sync(&a, &folder)?;
    let replaced: Vec<Event> = events(&a)?
        .into_iter()
        .filter(|e| e.of == d.id && e.kind.as_str() == "replaced")
        .collect();
    assert_eq!(replaced.len(), 1, "{replaced:#?}");
    assert_eq!(replaced[0].channel.as_str(), "sync");
    let line = replaced[0].line();
    assert!(
        line.starts_with("replaced: disposition ") && line.contains(" → scrap, 2099-01-01"),
        "{line}"
    );
    // Its file is in the folder now, for every clone.
    assert!(history_files(&folder)?.contains_key(&replaced[0].id));
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_dir(&e.path(), &target)?;
        } else {
            std::fs::copy(e.path(), target)?;
        }
    }
    Ok(())
}

/// What a case plants in a copy of the folder.
type Plant<'a> = Box<dyn Fn(&Path) -> anyhow::Result<()> + 'a>;

#[test]
fn history_a_bad_history_file_is_refused_named_and_nothing_changes() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-bad-file")?;
    let (a, b) = two_databases(&tmp)?;
    let folder = tmp.join("review");
    sync(&a, &folder)?;
    let files = history_files(&folder)?;
    let (first, bytes) = files.iter().next().context("an event file")?;
    let text = String::from_utf8(bytes.clone())?;
    let at = text.find("\"at\": \"").context("at")? + 7;
    let mut edited = text.clone();
    edited.replace_range(at..at + 4, "1999");
    let fake = format!("evt-{}", "0".repeat(32));
    // A sealed event too large for an export line (a 17 MB reason): taken in, it made every
    // export of the database one that import refuses.
    let mut huge: Event = serde_json::from_value(
        serde_json::from_str::<Value>(&text)?
            .get_mut("event")
            .context("event")?
            .take(),
    )?;
    huge.reason = Some("x".repeat(17 << 20));
    let huge = huge.sealed();
    let huge_text = review_mcp::sync::line::event_text(&huge);
    let cases: Vec<(&str, Plant)> = vec![
        (
            "over the 16777216 byte limit of an import line",
            Box::new(|p: &Path| {
                std::fs::write(p.join(format!("history/{}.json", huge.id)), &huge_text)?;
                Ok(())
            }),
        ),
        (
            "its id is not its content's",
            Box::new(|p: &Path| {
                std::fs::write(p.join(format!("history/{first}.json")), &edited)?;
                Ok(())
            }),
        ),
        (
            "symbolic link",
            Box::new(|p: &Path| {
                std::os::unix::fs::symlink(
                    "/etc/hostname",
                    p.join(format!("history/{fake}.json")),
                )?;
                Ok(())
            }),
        ),
        (
            "over the 33554432 byte limit",
            Box::new(|p: &Path| {
                let f = std::fs::File::create(p.join(format!("history/{fake}.json")))?;
                f.set_len(33 * 1024 * 1024)?;
                Ok(())
            }),
        ),
        (
            "but its name is",
            Box::new(|p: &Path| {
                std::fs::write(p.join(format!("history/{fake}.json")), &text)?;
                Ok(())
            }),
        ),
        (
            "not a history file",
            Box::new(|p: &Path| {
                std::fs::write(p.join("history/notes.txt"), "hello")?;
                Ok(())
            }),
        ),
    ];
    for (why, plant) in cases {
        let work = tmp.join("work");
        if work.exists() {
            std::fs::remove_dir_all(&work)?;
        }
        copy_dir(&folder, &work)?;
        plant(&work)?;
        let before = (export(&b)?, history_files(&work).ok());
        let out = cli(&b, &["sync", &work.to_string_lossy()])?;
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{why}: {err}");
        assert!(
            err.contains(why) && err.contains("history/") && err.contains("nothing was changed"),
            "{why}: {err}"
        );
        assert!(export(&b)? == before.0, "{why}: the database changed");
        assert_eq!(
            history_files(&work).ok(),
            before.1,
            "{why}: the folder changed"
        );
    }
    // A link in place of the history folder itself is refused too.
    let work = tmp.join("work");
    std::fs::remove_dir_all(&work)?;
    copy_dir(&folder, &work)?;
    std::fs::rename(work.join("history"), tmp.join("elsewhere"))?;
    std::os::unix::fs::symlink(tmp.join("elsewhere"), work.join("history"))?;
    let out = cli(&b, &["sync", &work.to_string_lossy()])?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("symbolic link"),
        "{err}"
    );
    Ok(())
}

#[test]
fn history_merge_file_keeps_one_event_and_refuses_two_under_one_name() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-merge-file")?;
    let (a, _) = two_databases(&tmp)?;
    let folder = tmp.join("review");
    sync(&a, &folder)?;
    let files = history_files(&folder)?;
    let mut it = files.values();
    let (one, other) = (it.next().context("one")?, it.next().context("other")?);
    let (base, ours, theirs) = (tmp.join("base"), tmp.join("ours"), tmp.join("theirs"));
    std::fs::write(&base, "")?;
    std::fs::write(&ours, one)?;
    std::fs::write(&theirs, one)?;
    let merge = |db: &Path| {
        cli(
            db,
            &[
                "merge-file",
                &base.to_string_lossy(),
                &ours.to_string_lossy(),
                &theirs.to_string_lossy(),
            ],
        )
    };
    ok(merge(&a)?)?;
    assert_eq!(&std::fs::read(&ours)?, one);
    std::fs::write(&theirs, other)?;
    let out = merge(&a)?;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("history event") && err.contains("never"),
        "{err}"
    );
    assert_eq!(&std::fs::read(&ours)?, one, "ours is left as it was");
    Ok(())
}

fn clone(root: &Path, bare: &Path, name: &str) -> anyhow::Result<PathBuf> {
    git_ok(root, &["clone", "-q", &bare.to_string_lossy(), name])?;
    let dir = root.join(name);
    for (k, v) in [
        ("user.name", name.to_string()),
        ("user.email", format!("{name}@example.com")),
        ("pull.rebase", "false".into()),
        (
            "merge.review.driver",
            format!("{} merge-file %O %A %B", binary().display()),
        ),
    ] {
        git_ok(&dir, &["config", k, &v])?;
    }
    Ok(dir)
}

fn commit(dir: &Path, message: &str) -> anyhow::Result<()> {
    git_ok(dir, &["add", "-A"])?;
    if git_ok(dir, &["status", "--porcelain"])?.trim().is_empty() {
        return Ok(());
    }
    git_ok(dir, &["commit", "-q", "-m", message])?;
    Ok(())
}

/// Two engineers' clones of one repository: a first round brings both to one history; then
/// each adds events apart, syncs and commits; git merges the two (no conflict: every event is
/// a file of its own), and a sync after the merge brings each database to the union.
#[test]
fn history_two_git_clones_merge_to_the_union_without_conflict() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-git")?;
    let (a, b) = two_databases(&tmp)?;
    let root = tmp.path();
    git_ok(root, &["init", "-q", "--bare", "-b", "main", "team.git"])?;
    let bare = root.join("team.git");
    let ca = clone(root, &bare, "ada")?;
    git_ok(&ca, &["checkout", "-q", "-b", "main"])?;
    std::fs::write(ca.join(".gitattributes"), "review/** merge=review\n")?;
    let (fa, fb) = (ca.join("review"), root.join("bob/review"));
    sync(&a, &fa)?;
    commit(&ca, "ada's review")?;
    git_ok(&ca, &["push", "-q", "origin", "main"])?;
    let cb = clone(root, &bare, "bob")?;
    sync(&b, &fb)?;
    commit(&cb, "bob's review")?;
    git_ok(&cb, &["push", "-q", "origin", "main"])?;
    git_ok(&ca, &["pull", "-q", "--no-edit", "origin", "main"])?;
    sync(&a, &fa)?;
    assert_eq!(ids(&events(&a)?), ids(&events(&b)?));
    // Apart: Ada's assistant records a new decision; Grace rejects the housing wall on Bob's
    // side, through her own channel.
    let mut c = client(&a, "Ada")?;
    decide(
        &mut c,
        "lug",
        "hold",
        json!([item("Lug 4", "satisfied", None)]),
    );
    drop(c);
    let housing = Store::open(&b)?
        .all_decisions()?
        .into_iter()
        .find(|d| d.subject == "housing")
        .context("housing")?
        .id;
    engineer_verdict(
        &b,
        &housing,
        0,
        Judgement::Rejected,
        "Grace",
        Via::App,
        Meaning::Review,
    )?;
    let before = [events(&a)?, events(&b)?];
    ensure!(ids(&before[0]) != ids(&before[1]), "each added its own");
    sync(&a, &fa)?;
    commit(&ca, "lug")?;
    git_ok(&ca, &["push", "-q", "origin", "main"])?;
    sync(&b, &fb)?;
    commit(&cb, "housing rejected")?;
    git_ok(&cb, &["pull", "-q", "--no-edit", "origin", "main"])
        .context("the merge of two histories has no conflict")?;
    sync(&b, &fb)?;
    commit(&cb, "synced")?;
    git_ok(&cb, &["push", "-q", "origin", "main"])?;
    git_ok(&ca, &["pull", "-q", "--no-edit", "origin", "main"])?;
    sync(&a, &fa)?;
    let union = assert_union(&[&a, &b], &before)?;
    let all: BTreeSet<String> = before.iter().flatten().map(|e| e.id.clone()).collect();
    assert_eq!(union.len(), all.len(), "the union, nothing more");
    for folder in [&fa, &fb] {
        let files = history_files(folder)?;
        assert_eq!(files.keys().cloned().collect::<Vec<_>>(), ids(&union));
    }
    Ok(())
}

/// Every file of `folder`'s `sub`, with its bytes.
fn files_of(folder: &Path, sub: &str) -> anyhow::Result<BTreeMap<PathBuf, Vec<u8>>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(folder.join(sub))? {
        let p = e?.path();
        let bytes = std::fs::read(&p)?;
        out.insert(p, bytes);
    }
    Ok(out)
}

fn crlf(text: &str) -> String {
    text.replace('\n', "\r\n")
}

/// Regression: item files checked out with CRLF line endings (git's `core.autocrlf=true` on
/// Windows) differed from their base by their bytes, so every sync imported them again and
/// rewrote them, and an item the database changed meanwhile was a spurious conflict. A file
/// that differs from sync's own text only by CRLF endings is unchanged (and left as it is);
/// a real change in a CRLF file is still taken; a CRLF event file is the same event.
#[test]
fn sync_takes_crlf_line_endings_for_the_same_file() -> anyhow::Result<()> {
    let tmp = TempDir::new("sync-crlf")?;
    let db = tmp.join("a.db");
    review_of_every_kind(&db)?;
    let folder = tmp.join("review");
    sync(&db, &folder)?;
    for sub in ["records", "decisions", "history"] {
        for (path, bytes) in files_of(&folder, sub)? {
            std::fs::write(&path, crlf(std::str::from_utf8(&bytes)?))?;
        }
    }
    let export_before = export(&db)?;
    let events_before = events(&db)?;
    let nothing = [
        "written to the folder: 0 (0 records, 0 decisions)",
        "imported into the database: 0 (0 records, 0 decisions)",
        "history events: 0 written to the folder, 0 imported into the database",
        "conflicts: 0",
    ];
    for _ in 0..2 {
        let before: Vec<_> = ["records", "decisions", "history"]
            .iter()
            .map(|s| files_of(&folder, s))
            .collect::<anyhow::Result<_>>()?;
        let out = sync(&db, &folder)?;
        for line in nothing {
            ensure!(out.contains(line), "{line}: {out}");
        }
        let after: Vec<_> = ["records", "decisions", "history"]
            .iter()
            .map(|s| files_of(&folder, s))
            .collect::<anyhow::Result<_>>()?;
        ensure!(before == after, "the CRLF files were rewritten");
    }
    ensure!(export(&db)? == export_before, "the database changed");
    ensure!(events(&db)? == events_before, "the history changed");

    // The database changes a record whose file is CRLF: the database's version is written,
    // no conflict.
    let (path, bytes) = files_of(&folder, "records")?
        .into_iter()
        .next()
        .context("a record file")?;
    let mut line: Value = serde_json::from_slice(&bytes)?;
    line["record"]["note"] = json!("changed in the database");
    line["record"]["updated_at"] = json!("2030-01-01T00:00:00.000Z");
    let file = tmp.join("newer.jsonl");
    std::fs::write(&file, format!("{line}\n"))?;
    import(&db, &file)?;
    let out = sync(&db, &folder)?;
    ensure!(
        out.contains("written to the folder: 1 (1 record, 0 decisions)")
            && out.contains("conflicts: 0"),
        "{out}"
    );
    ensure!(std::fs::read_to_string(&path)?.contains("changed in the database"));

    // A real change in a CRLF file is taken.
    let (path, bytes) = files_of(&folder, "records")?
        .into_iter()
        .next()
        .context("a record file")?;
    let mut item: Value = serde_json::from_slice(&bytes)?;
    item["record"]["note"] = json!("changed in the folder");
    std::fs::write(&path, crlf(&(serde_json::to_string_pretty(&item)? + "\n")))?;
    let out = sync(&db, &folder)?;
    ensure!(
        out.contains("imported into the database: 1 (1 record, 0 decisions)")
            && out.contains("conflicts: 0"),
        "{out}"
    );
    ensure!(export(&db)?.contains("changed in the folder"));
    Ok(())
}

/// A sync with its `debug` log: stdout, and how many history files it parsed and checked.
fn sync_parsing(db: &Path, folder: &Path) -> anyhow::Result<(String, usize)> {
    let out = std::process::Command::new(binary())
        .arg("--db")
        .arg(db)
        .arg("sync")
        .arg(folder)
        .env("MCP_LOG_LEVEL", "debug")
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::null())
        .output()?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let parsed = log
        .lines()
        .find_map(|l| l.split(" history files read (").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .with_context(|| format!("no count of the history files parsed: {log}"))?;
    Ok((ok(out)?, parsed))
}

/// Every file of the folder's history, with its bytes and modification time.
fn history_stamps(
    folder: &Path,
) -> anyhow::Result<BTreeMap<String, (Vec<u8>, std::time::SystemTime)>> {
    let mut out = BTreeMap::new();
    for (id, bytes) in history_files(folder)? {
        let at = std::fs::metadata(folder.join(format!("history/{id}.json")))?.modified()?;
        out.insert(id, (bytes, at));
    }
    Ok(out)
}

/// Regression (a folder of 230,002 history files took 1 min 47 s to sync with nothing changed,
/// debug build): every sync read, parsed and checked every history file, those the database
/// held included. A file whose bytes are the text the database recorded for its event (written
/// or checked by an earlier sync) is now taken unparsed: a sync with nothing new parses none
/// and writes nothing. Every other file is checked as before: an edited held file is refused,
/// named, and nothing changes; a deleted one is written back; one renamed to another event's
/// name, or to a name in capitals, is refused as before; a CRLF copy is the same file.
#[test]
fn history_a_sync_parses_only_the_history_files_that_changed() -> anyhow::Result<()> {
    let tmp = TempDir::new("history-parsed")?;
    let (a, b) = two_databases(&tmp)?;
    let folder = tmp.join("review");
    let (_, parsed) = sync_parsing(&a, &folder)?;
    ensure!(parsed == 0, "an empty folder: {parsed} parsed");
    let all = events(&a)?.len();
    // B imports A's events (each parsed and checked once) and writes its own.
    let (said, parsed) = sync_parsing(&b, &folder)?;
    ensure!(parsed == all, "{parsed} parsed of {all} new: {said}");
    let quiet = [
        "written to the folder: 0 (0 records, 0 decisions)",
        "imported into the database: 0 (0 records, 0 decisions)",
        "history events: 0 written to the folder, 0 imported into the database",
        "conflicts: 0",
    ];
    // A takes B's events (each parsed once); from then on nothing is new to either.
    let (_, parsed) = sync_parsing(&a, &folder)?;
    ensure!(parsed == events(&b)?.len() - all, "{parsed} parsed");
    for db in [&a, &b, &a, &b] {
        let before = (export(db)?, events(db)?, history_stamps(&folder)?);
        let (said, parsed) = sync_parsing(db, &folder)?;
        ensure!(
            quiet.iter().all(|l| said.contains(l)) && parsed == 0,
            "{parsed} parsed: {said}"
        );
        let after = (export(db)?, events(db)?, history_stamps(&folder)?);
        ensure!(before == after, "a sync with nothing new changed something");
    }
    let files = history_files(&folder)?;
    let (first, text) = files.iter().next().context("an event file")?;
    let text = String::from_utf8(text.clone())?;
    let path = folder.join(format!("history/{first}.json"));
    let refused = |why: &str| -> anyhow::Result<()> {
        let before = (export(&a)?, events(&a)?, history_files(&folder)?);
        let out = cli(&a, &["sync", &folder.to_string_lossy()])?;
        let err = String::from_utf8_lossy(&out.stderr);
        ensure!(
            !out.status.success()
                && err.contains(why)
                && err.contains("history/")
                && err.contains("nothing was changed"),
            "{why}: {err}"
        );
        ensure!(
            before == (export(&a)?, events(&a)?, history_files(&folder)?),
            "{why}: something changed"
        );
        Ok(())
    };
    // Edited: its seal no longer holds.
    let at = text.find("\"at\": \"").context("at")? + 7;
    let mut edited = text.clone();
    edited.replace_range(at..at + 4, "1999");
    std::fs::write(&path, &edited)?;
    refused(&format!("{first}\": its id is not its content's"))?;
    // Renamed to another event's name, then to its own name in capitals.
    let other = format!("evt-{}", "0".repeat(32));
    std::fs::remove_file(&path)?;
    std::fs::write(folder.join(format!("history/{other}.json")), &text)?;
    refused("but its name is")?;
    std::fs::remove_file(folder.join(format!("history/{other}.json")))?;
    let capitals = folder.join(format!("history/{}.json", first.to_uppercase()));
    std::fs::write(&capitals, &text)?;
    refused("not a history file")?;
    std::fs::remove_file(&capitals)?;
    // Deleted: written back as it was, and taken unparsed at the next sync.
    let said = sync(&a, &folder)?;
    ensure!(
        said.contains("history events: 1 written to the folder, 0 imported"),
        "{said}"
    );
    ensure!(std::fs::read_to_string(&path)? == text);
    // With CRLF line endings: the same file.
    std::fs::write(&path, text.replace('\n', "\r\n"))?;
    for db in [&a, &b] {
        let (said, parsed) = sync_parsing(db, &folder)?;
        ensure!(
            quiet.iter().all(|l| said.contains(l)) && parsed == 0,
            "{parsed} parsed: {said}"
        );
    }
    Ok(())
}

/// Regression: the hash a sync records for a history file it writes is recorded only for an
/// event a full check takes (sealed, of the forms import takes). A database whose event was
/// edited behind its triggers' back writes that event's file; the next sync refuses the file,
/// named, as it did before history files were taken by their recorded hash (it was taken
/// unparsed: the text recorded was the edited event's).
#[test]
fn history_an_edited_event_of_the_database_is_refused_when_its_written_file_is_read_back()
-> anyhow::Result<()> {
    let tmp = TempDir::new("history-edited-held")?;
    let db = tmp.join("a.db");
    review_of_every_kind(&db)?;
    let folder = tmp.join("review");
    let edited = {
        let conn = rusqlite::Connection::open(&db)?;
        let id: String = conn.query_row(
            "SELECT id FROM events WHERE body LIKE '%\"hold\"%' ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )?;
        conn.execute_batch("DROP TRIGGER events_never_updated;")?;
        conn.execute(
            "UPDATE events SET body = replace(body, '\"hold\"', '\"release\"') WHERE id = ?1",
            [&id],
        )?;
        id
    };
    let said = sync(&db, &folder)?;
    ensure!(
        std::fs::read_to_string(folder.join(format!("history/{edited}.json")))?
            .contains("\"release\""),
        "the edited event's file: {said}"
    );
    let before = history_files(&folder)?;
    let out = cli(&db, &["sync", &folder.to_string_lossy()])?;
    let err = String::from_utf8_lossy(&out.stderr);
    ensure!(
        !out.status.success()
            && err.contains(&format!("{edited}.json"))
            && err.contains("its id is not its content's"),
        "the edited event's file was taken: {err}"
    );
    ensure!(before == history_files(&folder)?, "the folder changed");
    Ok(())
}

/// Regression: a recorded history file hash the database holds in another form than the
/// sync writes (a hash stored as text or of another length: a damaged or hand-edited
/// `sync_event_files`) is no hash: its file is parsed and checked, and its hash recorded
/// again. It made every sync fail on reading the table (a wrong column type), which `check`
/// does not report.
#[test]
fn history_a_recorded_hash_in_another_form_is_not_one_and_its_file_is_checked() -> anyhow::Result<()>
{
    let tmp = TempDir::new("history-hash-form")?;
    let db = tmp.join("a.db");
    review_of_every_kind(&db)?;
    let folder = tmp.join("review");
    sync(&db, &folder)?;
    let all = history_files(&folder)?.len();
    let hashes = |sql: &str| -> anyhow::Result<i64> {
        let conn = rusqlite::Connection::open(&db)?;
        Ok(conn.query_row(sql, [], |r| r.get(0))?)
    };
    ensure!(all > 1, "{all} history files");
    ensure!(
        hashes("SELECT count(*) FROM sync_event_files WHERE typeof(hash) = 'blob'")? == all as i64
    );
    rusqlite::Connection::open(&db)?.execute_batch(
        "UPDATE sync_event_files SET hash = hex(hash) WHERE id = (SELECT min(id) FROM sync_event_files); \
         UPDATE sync_event_files SET hash = x'00' WHERE id = (SELECT max(id) FROM sync_event_files);",
    )?;
    let (said, parsed) = sync_parsing(&db, &folder)?;
    ensure!(parsed == 2, "{parsed} parsed: {said}");
    ensure!(
        said.contains("history events: 0 written to the folder, 0 imported"),
        "{said}"
    );
    ensure!(
        hashes(
            "SELECT count(*) FROM sync_event_files WHERE typeof(hash) = 'blob' AND length(hash) = 32"
        )? == all as i64,
        "the hashes were not recorded again"
    );
    let (_, parsed) = sync_parsing(&db, &folder)?;
    ensure!(parsed == 0, "{parsed} parsed");
    Ok(())
}
