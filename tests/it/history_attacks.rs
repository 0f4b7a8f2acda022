//! An adversarial audit of the history channel across clones (import, sync): scenarios that try
//! to make a decision's history lie about what the database holds.

use review_mcp::review::history::EventKind;
use review_mcp::review::{Artifact, Decision};
use review_mcp::store::{HistoryQuery, NewDecision, PageRequest, Store};

use crate::support::inproc::REV_A;

fn artifact() -> Artifact {
    Artifact {
        revision: REV_A.to_string(),
        format: "step".into(),
        uri: Some("file:///work/bracket.step".into()),
        units: None,
    }
}

/// A decision on `bore` of REV_A with `id`, `disposition`, created and last changed at `at`:
/// an export line of another clone.
fn line(id: &str, disposition: &str, at: &str) -> anyhow::Result<Decision> {
    let (mut d, _, _) = Store::open_in_memory()?.remember_decision(&NewDecision {
        artifact: artifact(),
        subject: "bore".into(),
        disposition: disposition.into(),
        summary: None,
        basis: vec![],
    })?;
    d.id = id.into();
    d.created_at = at.into();
    d.updated_at = at.into();
    Ok(d)
}

/// The kinds of `id`'s events, newest first, as `review_history` lists them.
fn kinds(store: &mut Store, id: &str) -> anyhow::Result<Vec<EventKind>> {
    let q = HistoryQuery {
        of: Some(id.into()),
        ..HistoryQuery::default()
    };
    let page = store.history(&q, PageRequest::first(100))?;
    Ok(page.items.into_iter().map(|(e, _)| e.kind).collect())
}

/// Regression: a decision forgotten here and brought back by an import (its `arrived` event
/// dated after the forget) whose key a later line of another id then took (a teammate's
/// decision on the same subject, minted with its own id) was deleted with no event: the
/// forget before its return was taken to explain the deletion, so its history ended
/// `arrived`, live, while no decision of that id was left.
#[test]
fn a_decision_brought_back_then_replaced_by_another_id_ends_forgotten() -> anyhow::Result<()> {
    let mut store = Store::open_in_memory()?;
    let ours = line("dec_ours", "hold", "2026-01-01T00:00:00.000Z")?;
    let theirs = line("dec_theirs", "release", "2026-01-02T00:00:00.000Z")?;
    store.import(&[], std::slice::from_ref(&ours))?;
    let key = ours.artifact.locator().to_string();
    assert_eq!(store.forget_decision(&key, "bore", REV_A)?, 1);
    assert_eq!(store.import(&[], std::slice::from_ref(&ours))?.added, 1);
    assert_eq!(store.import(&[], &[theirs])?.replaced, 1);
    let live: Vec<String> = store.all_decisions()?.into_iter().map(|d| d.id).collect();
    assert_eq!(live, ["dec_theirs"]);
    let history = kinds(&mut store, "dec_ours")?;
    assert_eq!(
        history.first(),
        Some(&EventKind::Forgotten),
        "dec_ours is gone, its history newest first: {history:?}"
    );
    Ok(())
}

/// The same through `sync`: a decision a teammate forgot (their `forgotten` event comes with
/// the folder) that was forgotten here too and brought back by an import (`arrived`, dated
/// after both ends) is deleted by the sync, and its history ends in that deletion.
#[test]
fn a_decision_brought_back_here_and_forgotten_by_a_teammate_ends_forgotten_after_a_sync()
-> anyhow::Result<()> {
    use crate::support::TempDir;
    use crate::support::file_events::{run_cli as cli, succeeded as ok};
    let tmp = TempDir::new("history-attacks-sync-end")?;
    let (a, b, folder) = (tmp.join("a.db"), tmp.join("b.db"), tmp.join("review"));
    let folder_arg = folder.to_string_lossy().to_string();
    let (d, _, _) = Store::open(&a)?.remember_decision(&NewDecision {
        artifact: artifact(),
        subject: "bore".into(),
        disposition: "hold".into(),
        summary: None,
        basis: vec![],
    })?;
    let key = d.artifact.locator().to_string();
    ok(cli(&a, &["sync", &folder_arg])?)?;
    ok(cli(&b, &["sync", &folder_arg])?)?;
    let export = tmp.join("b.jsonl");
    std::fs::write(&export, ok(cli(&b, &["export"])?)?)?;
    // The teammate forgets it and syncs; here it is forgotten, then imported back.
    assert_eq!(Store::open(&a)?.forget_decision(&key, "bore", REV_A)?, 1);
    ok(cli(&a, &["sync", &folder_arg])?)?;
    assert_eq!(Store::open(&b)?.forget_decision(&key, "bore", REV_A)?, 1);
    ok(cli(&b, &["import", &export.to_string_lossy()])?)?;
    assert_eq!(
        kinds(&mut Store::open(&b)?, &d.id)?.first(),
        Some(&EventKind::Arrived)
    );
    ok(cli(&b, &["sync", &folder_arg])?)?;
    let mut store = Store::open(&b)?;
    assert!(store.all_decisions()?.is_empty(), "the sync deletes it");
    let history = kinds(&mut store, &d.id)?;
    assert_eq!(
        history.first(),
        Some(&EventKind::Forgotten),
        "{} is gone, its history newest first: {history:?}",
        d.id
    );
    Ok(())
}

/// `n` sealed events of `d` (kind `replaced`, one a millisecond from 2026-01-01) that each say
/// it was left in its own state, then its `forgotten` event: a hostile export's history.
fn events_then_an_end(d: &Decision, n: usize) -> Vec<review_mcp::review::history::Event> {
    use review_mcp::review::history::{Channel, Event, decision_state};
    let event = |i: usize, kind: EventKind, after: Option<String>| {
        Event {
            after,
            at: review_mcp::time::format_millis(
                1_767_225_600_000 + i64::try_from(i).unwrap_or(i64::MAX),
            ),
            author: None,
            changes: vec![],
            channel: Channel::Assistant,
            id: String::new(),
            kind,
            locator: d.artifact.locator().to_string(),
            meaning: None,
            of: d.id.clone(),
            reason: None,
            revision: d.artifact.revision.clone(),
            step: 0,
            subject: d.subject.clone(),
        }
        .sealed()
    };
    let state = decision_state(d);
    let mut events: Vec<Event> = (0..n)
        .map(|i| event(i, EventKind::Replaced, Some(state.clone())))
        .collect();
    events.push(event(n, EventKind::Forgotten, None));
    events
}

/// Regression: the check that a write's state is already told by the history (an event in
/// that state with no end or replaced state after it) looked, for each event of the item in
/// that state, at every later one: an export whose item had n events in the state its line
/// writes, then an end, took n² steps to import (4,000 events: 3.5 s in a debug build, 20,000:
/// 109 s, with the write lock held). Each is now looked at once or twice.
#[test]
fn an_item_of_many_events_imports_in_time_linear_in_them() -> anyhow::Result<()> {
    let d = line("dec_x", "hold", "2025-01-01T00:00:00.000Z")?;
    let events = events_then_an_end(&d, 20_000);
    let mut store = Store::open_in_memory()?;
    let started = std::time::Instant::now();
    let summary = store.import_with_history(&[], std::slice::from_ref(&d), &events)?;
    let took = started.elapsed();
    assert_eq!((summary.added, summary.events_added), (1, 20_001));
    assert!(
        took < std::time::Duration::from_secs(15),
        "20,001 events of one item imported in {took:?}"
    );
    // The line comes back after the end: recorded, and the history ends live.
    assert_eq!(
        kinds(&mut store, "dec_x")?.first(),
        Some(&EventKind::Arrived)
    );
    Ok(())
}

/// Regression: an imported event whose `locator` is long (a hostile line: nothing bounds it but
/// the line; no tool takes a uri over 4,096 characters) took the page's whole budget with its
/// `artifacts` entry, so the event was cut to nothing, its `id` too, and `review_history` of
/// the decision answered an internal error (its output broke its own schema): the decision's
/// history could not be read. The entry's locator is cut, and the page is within the bound.
#[test]
fn a_history_page_stays_within_the_bound_whatever_an_event_locator_holds() -> anyhow::Result<()> {
    use crate::support::inproc::{Client, Era};
    use serde_json::json;
    let d = line("dec_x", "hold", "2025-01-01T00:00:00.000Z")?;
    let mut events = events_then_an_end(&d, 2);
    events.truncate(2);
    events[1].locator = format!("file:///work/{}.step", "x".repeat(100_000));
    let long = events[1].clone().sealed();
    events[1] = long;
    let mut store = Store::open_in_memory()?;
    store.import_with_history(&[], std::slice::from_ref(&d), &events)?;
    let mut c = Client::new(store, Era::V2026_07_28);
    for args in [
        json!({"id": "dec_x"}),
        json!({"artifact": {"revision": REV_A, "format": "step"}}),
    ] {
        let r = c.request(
            "tools/call",
            json!({"name": "review_history", "arguments": args}),
        );
        let bytes = serde_json::to_string(&r)?.len();
        let page = &r["result"]["structuredContent"];
        assert_eq!(
            page["events"].as_array().map(Vec::len),
            Some(2),
            "{args}: {}",
            r.to_string().chars().take(600).collect::<String>()
        );
        let cut = page["artifacts"][0]["locator"].as_str().unwrap_or_default();
        assert!(
            cut.ends_with('…') && cut.chars().count() == 4097,
            "{cut:.80}"
        );
        assert!(
            bytes <= 32_000,
            "{args}: an answer of {bytes} bytes: {}",
            r.to_string().chars().take(600).collect::<String>()
        );
    }
    Ok(())
}

/// An imported event `i` (newer the lower `i`) of decision `dec_{i}` "bore" at `at_rev` of
/// `locator`, as the short-form tests below import them.
fn twin_event(
    i: i64,
    kind: EventKind,
    locator: &str,
    at_rev: &str,
    changes: Vec<review_mcp::review::history::Change>,
) -> review_mcp::review::history::Event {
    use review_mcp::review::history::{Channel, Event};
    Event {
        after: None,
        at: review_mcp::time::format_millis(1_767_225_600_000 - i),
        author: None,
        changes,
        channel: Channel::Import,
        id: String::new(),
        kind,
        locator: locator.to_string(),
        meaning: None,
        of: format!("dec_{i}"),
        reason: None,
        revision: at_rev.to_string(),
        step: 0,
        subject: "bore".into(),
    }
    .sealed()
}

/// Imported carried events whose revisions share a short form (`sha256:` and 12 hex digits):
/// a `review_history` page names a carry's other revision short only while that form names
/// one revision the page said whole before it (its table, then its events), so a page ends
/// before the event whose table entry would make a short form it wrote name two.
#[test]
fn history_short_revisions_never_name_two_of_a_page() -> anyhow::Result<()> {
    use crate::support::inproc::{Client, Era};
    use review_mcp::review::history::Change;
    let rev = |head: char, tail: char| {
        format!(
            "sha256:{}{}",
            head.to_string().repeat(12),
            tail.to_string().repeat(52)
        )
    };
    let (a, b, twin) = (rev('a', '1'), rev('b', '1'), rev('b', '2'));
    let locator = "file:///work/twins.step";
    // Newest first: an event at b, a carry to a from b, an event at b's twin.
    let event = |i: i64, kind: EventKind, at_rev: &str, changes: Vec<Change>| {
        twin_event(i, kind, locator, at_rev, changes)
    };
    let carry = Change {
        field: "revision".into(),
        from: Some(b.clone()),
        index: None,
        requirement: None,
        to: Some(a.clone()),
    };
    let events = vec![
        event(0, EventKind::Forgotten, &b, vec![]),
        event(1, EventKind::Carried, &a, vec![carry]),
        event(2, EventKind::Forgotten, &twin, vec![]),
    ];
    let mut store = Store::open_in_memory()?;
    store.import_with_history(&[], &[], &events)?;
    let mut c = Client::new(store, Era::V2026_07_28);
    let mut cursor: Option<String> = None;
    let mut seen = 0;
    for _ in 0..5 {
        let mut args = serde_json::json!({"artifact": {"revision": a, "format": "step",
                                                       "uri": locator}});
        if let Some(cur) = &cursor {
            args["cursor"] = serde_json::json!(cur);
        }
        let page = c.ok("review_history", args);
        // What the page said whole before each short form: its table, then its events.
        let mut said: Vec<&str> = page["artifacts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["revision"].as_str())
            .collect();
        for e in page["events"].as_array().into_iter().flatten() {
            seen += 1;
            for side in e["changes"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|ch| [&ch["from"], &ch["to"]])
                .filter_map(|v| v.as_str())
            {
                if let Some(head) = side.strip_suffix('…') {
                    let named = said.iter().filter(|r| r.starts_with(head)).count();
                    assert_eq!(named, 1, "{side} names {named} of {said:?}: {page}");
                } else {
                    assert!([&a, &b, &twin].contains(&&side.to_string()), "{page}");
                    said.push(side);
                }
            }
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, 3, "every event once");
    Ok(())
}

/// Two revisions sharing a short form, each said by a carry event of one page: a page that
/// wrote one's short form (a carry naming it after one that said it whole) went on to say the
/// other whole in a later event; and a revision an event said whole first, shortened once the
/// page's table came to hold it, shared its short form with a twin a later event said whole.
/// Either way the page's short form stood for two of its revisions (`history_short_revisions_
/// never_name_two_of_a_page` looked only before each short form). Now every short form of
/// every page names one revision of it, said before.
#[test]
fn a_short_form_a_history_page_wrote_never_comes_to_name_two_of_its_revisions() -> anyhow::Result<()>
{
    use crate::support::inproc::{Client, Era, short_forms_name_one_earlier_revision};
    use review_mcp::review::history::Change;
    let rev = |head: &str, tail: char| format!("sha256:{head}{}", tail.to_string().repeat(52));
    let (a, twin, c) = (
        rev("abcdef012345", '1'),
        rev("abcdef012345", '2'),
        rev("cccccccccccc", 'c'),
    );
    let locator = "file:///work/twins.step";
    let event = |i: i64, kind: EventKind, at_rev: &str, from: Option<&str>| {
        let changes = from
            .map(|f| Change {
                field: "revision".into(),
                from: Some(f.to_string()),
                index: None,
                requirement: None,
                to: Some(at_rev.to_string()),
            })
            .into_iter()
            .collect();
        twin_event(i, kind, locator, at_rev, changes)
    };
    let carried = EventKind::Carried;
    // Newest first. The first page of each: carries from a, a, then its twin; and carries
    // from a and its twin, then an event at a (its table entry comes after both).
    let cases = [
        vec![
            event(0, carried, &c, Some(&a)),
            event(1, carried, &c, Some(&a)),
            event(2, carried, &c, Some(&twin)),
            event(3, carried, &c, Some(&a)),
        ],
        vec![
            event(0, carried, &c, Some(&a)),
            event(1, carried, &c, Some(&twin)),
            event(2, EventKind::Forgotten, &a, None),
        ],
    ];
    for events in cases {
        let mut store = Store::open_in_memory()?;
        store.import_with_history(&[], &[], &events)?;
        let mut client = Client::new(store, Era::V2026_07_28);
        let mut cursor: Option<String> = None;
        let mut seen = 0;
        for _ in 0..events.len() {
            let mut args = serde_json::json!({"artifact": {"revision": c, "format": "step",
                                                           "uri": locator}});
            if let Some(cur) = &cursor {
                args["cursor"] = serde_json::json!(cur);
            }
            let page = client.ok("review_history", args);
            short_forms_name_one_earlier_revision(&page);
            seen += page["events"].as_array().map_or(0, Vec::len);
            match page["next_cursor"].as_str() {
                Some(next) => cursor = Some(next.to_string()),
                None => break,
            }
        }
        assert_eq!(seen, events.len(), "every event once");
    }
    Ok(())
}
