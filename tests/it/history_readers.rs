//! The readers of the review's history (issue 28): `review_history`, the resource
//! `review://decisions/{id}/history`, and each decision's trail in the Markdown report and
//! the review card's data, over the wire in legacy sessions and in 2026-07-28; every answer
//! within the bound, however long the history.

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};

use crate::support::TempDir;
use crate::support::host::Host;

const REV: &str = "sha256:dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd";
const FILE: &str = "file:///work/history.step";
const BOUND: usize = 32_000;
const AUTHOR: &str = "Ada Lovelace";
/// Two legacy sessions with the form, and the modern era (`None`).
const ERAS: [Option<&str>; 3] = [Some("2025-06-18"), Some("2025-11-25"), None];
/// Stored text that must not become Markdown or HTML of its own.
const HOSTILE: &str = "release <b>*now*</b> # [x](y)";

fn artifact() -> Value {
    json!({"revision": REV, "format": "step", "uri": FILE})
}

fn host(dir: &TempDir, era: Option<&'static str>) -> Result<Host> {
    Host::on(
        &dir.join("review.db"),
        Some(AUTHOR),
        era,
        artifact(),
        "bore",
    )
}

/// The answer to a request and its line's length.
fn request(h: &mut Host, method: &str, params: Value) -> Result<(Value, usize)> {
    let out = h.raw_request(method, params);
    let answer = h.answer_in(&out)?;
    Ok((answer.clone(), serde_json::to_string(&answer)?.len()))
}

/// A resource's text, its answer within the bound.
fn read(h: &mut Host, uri: &str) -> Result<String> {
    let (r, bytes) = request(h, "resources/read", json!({"uri": uri}))?;
    ensure!(r.get("error").is_none(), "{uri}: {r}");
    ensure!(bytes <= BOUND, "{uri}: {bytes} bytes");
    r["result"]["contents"][0]["text"]
        .as_str()
        .map(str::to_string)
        .context("no text")
}

/// A `review_history` page, within the bound.
fn history(h: &mut Host, args: Value) -> Result<Value> {
    let (r, bytes) = request(
        h,
        "tools/call",
        json!({"name": "review_history", "arguments": args}),
    )?;
    ensure!(r["result"]["isError"] != true, "{r}");
    ensure!(bytes <= BOUND, "{bytes} bytes");
    Ok(r["result"]["structuredContent"].clone())
}

/// Every event `review_history` serves for `args`, following `next_cursor` in pages of
/// `limit`.
fn all_events(h: &mut Host, args: &Value, limit: u64) -> Result<Vec<Value>> {
    let mut events = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10_000 {
        let mut a = args.clone();
        a["limit"] = json!(limit);
        if let Some(c) = &cursor {
            a["cursor"] = json!(c);
        }
        let page = history(h, a)?;
        events.extend(page["events"].as_array().context("events")?.iter().cloned());
        match page.get("next_cursor") {
            Some(Value::String(c)) => cursor = Some(c.clone()),
            _ => return Ok(events),
        }
    }
    anyhow::bail!("paging does not end")
}

fn basis(first_state: &str) -> Value {
    let mut first = json!({"requirement": "Bore 12H7", "source": "drawing", "state": first_state});
    if first_state == "unresolved" {
        first["question"] = json!("Which reamer?");
    }
    json!([first, {"requirement": "Wall 2 mm", "source": "assistant-proposed",
                   "state": "satisfied", "evidence": "measure: 2.4 mm"}])
}

fn remember(h: &mut Host, disposition: &str, summary: Option<&str>, state: &str) -> Result<Value> {
    let mut args = json!({"artifact": artifact(), "subject": "bore", "disposition": disposition,
                          "basis": basis(state)});
    if let Some(s) = summary {
        args["summary"] = json!(s);
    }
    Ok(h.ok("remember_decision", args)?["decision"].clone())
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["kind"].as_str()).collect()
}

/// The Done-when of the history's readers: a decision replaced twice, judged through the form,
/// one verdict replaced in the card, then forgotten; `review_history` returns every event
/// newest first with who, when, channel and meaning, each once however it is paged; the
/// resource says the same; the report and the card's data show the trail, escaped.
#[test]
fn review_history_tells_every_change_newest_first_with_who_when_channel_and_meaning() -> Result<()>
{
    for era in ERAS {
        let dir = TempDir::new("history-readers")?;
        let mut h = host(&dir, era)?;
        let d = remember(&mut h, "hold", None, "unresolved")?;
        let id = d["id"].as_str().context("id")?.to_string();
        remember(&mut h, "release", None, "satisfied")?;
        remember(&mut h, HOSTILE, Some("reamed and measured"), "satisfied")?;
        h.form(&[0, 1])?;
        h.click(1, "rejected")?;

        // The report shows the trail and each verdict as an attestation, escaped.
        let report = read(&mut h, &format!("review://revisions/{REV}/report"))?;
        ensure!(
            report.contains("History, newest first:"),
            "{era:?}: {report}"
        );
        let trail: Vec<&str> = report
            .lines()
            .skip_while(|l| !l.starts_with("History, newest first:"))
            .skip(2)
            .take_while(|l| l.starts_with("- "))
            .collect();
        ensure!(
            trail.len() == 6 && trail[5].starts_with("- 1 earlier change: review\\_history"),
            "the latest five, then how many more: {trail:?}"
        );
        ensure!(
            trail[0].starts_with("- verdict replaced: item 2 verdict accepted → rejected, ")
                && trail[0].ends_with(&format!(", {AUTHOR}, review (app)")),
            "{trail:?}"
        );
        ensure!(
            trail[1].ends_with(&format!(", {AUTHOR}, review (elicitation)")),
            "{trail:?}"
        );
        ensure!(
            trail[3].starts_with(
                "- replaced: disposition release → release \\<b>\\*now\\*\\</b> \\# \\[x\\](y)"
            ),
            "escaped as Markdown: {trail:?}"
        );
        ensure!(
            report.contains("- 1 earlier change: review\\_history with id `"),
            "{report}"
        );
        ensure!(
            report.contains(&format!(
                "rejected by the engineer (review card, {AUTHOR}), "
            )) && report.contains("UTC, meaning review |"),
            "name, time and meaning: {report}"
        );
        ensure!(!report.replace("\\<", "").contains("<b>"), "{report}");

        // The card's data: the same trail, newest first, and how many more there are.
        let card = h.ok(
            "show_review",
            json!({"artifact": artifact(), "detail": "full"}),
        )?;
        let trail = &card["decisions"][0]["trail"];
        let lines: Vec<&str> = trail["lines"]
            .as_array()
            .context("lines")?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        ensure!(lines.len() == 5, "{era:?}: {trail}");
        ensure!(
            lines[0].starts_with("verdict replaced: item 2 verdict accepted → rejected"),
            "{lines:?}"
        );
        ensure!(
            lines[3].starts_with(&format!("replaced: disposition release → {HOSTILE}")),
            "the card puts it in as text: {lines:?}"
        );
        ensure!(trail["earlier"] == 1, "{trail}");
        ensure!(trail.get("not_recorded_before").is_none(), "{trail}");

        // Forgotten: the decision ends, its history stays.
        let gone = h.ok("forget", json!({"artifact": artifact(), "subject": "bore"}))?;
        ensure!(gone["deleted"] == 1);

        let page = history(&mut h, json!({"id": id}))?;
        let events = page["events"].as_array().context("events")?;
        ensure!(
            kinds(events)
                == [
                    "forgotten",
                    "verdict_replaced",
                    "verdict_given",
                    "verdict_given",
                    "replaced",
                    "replaced",
                    "created"
                ],
            "{era:?}: {page}"
        );
        ensure!(page.get("next_cursor").is_none());
        ensure!(
            page["history_since"]
                .as_str()
                .is_some_and(|s| s.ends_with('Z'))
        );
        ensure!(page.get("earlier_not_recorded").is_none(), "{page}");
        let mut last_at = "9".to_string();
        for (e, channel) in events.iter().zip([
            "assistant",
            "app",
            "elicitation",
            "elicitation",
            "assistant",
            "assistant",
            "assistant",
        ]) {
            // Asked by id: the id is said once, by the caller, not on every event.
            ensure!(e.get("of").is_none() && e["author"] == AUTHOR, "{e}");
            ensure!(e["channel"] == channel, "{e}");
            ensure!(e.get("meaning").is_none(), "no meaning said: a review: {e}");
            let at = e["at"].as_str().context("at")?.to_string();
            ensure!(at <= last_at, "newest first: {page}");
            last_at = at;
        }
        ensure!(
            events[1]["changes"]
                == json!([{"field": "verdict", "from": "accepted", "index": 1,
                           "requirement": "Wall 2 mm", "to": "rejected"}]),
            "{}",
            events[1]
        );
        let (r, _) = request(
            &mut h,
            "tools/call",
            json!({"name": "review_history", "arguments": {"id": id}}),
        )?;
        let summary = r["result"]["content"][0]["text"].as_str().context("text")?;
        ensure!(
            summary.starts_with("7 recorded changes of ") && summary.len() < 200,
            "{summary}"
        );

        // Paged two at a time: each event once, in the same order; by file and by revision
        // the same events (nothing else was written there).
        ensure!(
            all_events(&mut h, &json!({"id": id}), 2)? == *events,
            "{era:?}"
        );
        // Asked by file or revision, each event names its decision (`of`), which a page
        // asked by id leaves out.
        let without_of = |mut events: Vec<Value>| {
            for e in &mut events {
                let of = e.as_object_mut().and_then(|o| o.remove("of"));
                ensure!(of == Some(json!(id)), "{e}");
            }
            Ok(events)
        };
        let by_file = all_events(&mut h, &json!({"artifact": artifact()}), 50)?;
        ensure!(without_of(by_file)? == *events);
        let rev_only = json!({"artifact": {"revision": REV, "format": "step"}});
        ensure!(without_of(all_events(&mut h, &rev_only, 3)?)? == *events);

        // The resource: the same answer, for the forgotten decision too.
        let res: Value =
            serde_json::from_str(&read(&mut h, &format!("review://decisions/{id}/history"))?)?;
        ensure!(res == page, "{era:?}: {res}");
        let (missing, _) = request(
            &mut h,
            "resources/read",
            json!({"uri": "review://decisions/dec_nothing/history"}),
        )?;
        ensure!(missing.get("error").is_some(), "{missing}");

        // A cursor of another query is refused.
        let first = history(&mut h, json!({"id": id, "limit": 1}))?;
        let cursor = first["next_cursor"].as_str().context("cursor")?;
        let (r, _) = request(
            &mut h,
            "tools/call",
            json!({"name": "review_history", "arguments": {"artifact": artifact(), "cursor": cursor}}),
        )?;
        ensure!(r["result"]["isError"] == true, "{r}");
    }
    Ok(())
}

#[test]
fn review_history_is_listed_read_only_and_its_resource_template_completes() -> Result<()> {
    for era in ERAS {
        let dir = TempDir::new("history-readers")?;
        let mut h = host(&dir, era)?;
        let (list, _) = request(&mut h, "tools/list", json!({}))?;
        let tool = list["result"]["tools"]
            .as_array()
            .context("tools")?
            .iter()
            .find(|t| t["name"] == "review_history")
            .cloned()
            .context("listed")?;
        ensure!(tool["annotations"]["readOnlyHint"] == true, "{tool}");
        ensure!(tool["annotations"]["destructiveHint"] == false, "{tool}");
        let (templates, _) = request(&mut h, "resources/templates/list", json!({}))?;
        ensure!(
            templates
                .to_string()
                .contains("review://decisions/{id}/history"),
            "{templates}"
        );
        let d = remember(&mut h, "hold", None, "unresolved")?;
        let id = d["id"].as_str().context("id")?;
        let (done, _) = request(
            &mut h,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "review://decisions/{id}/history"},
                   "argument": {"name": "id", "value": &id[..5]}}),
        )?;
        ensure!(
            done["result"]["completion"]["values"] == json!([id]),
            "{era:?}: {done}"
        );
        // An id nothing is known of: no events, and the answer says so.
        let (r, _) = request(
            &mut h,
            "tools/call",
            json!({"name": "review_history", "arguments": {"id": "dec_nothing"}}),
        )?;
        ensure!(
            r["result"]["structuredContent"]["events"] == json!([])
                && r["result"]["content"][0]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("no decision or record with this id")),
            "{r}"
        );
        // Neither or both of id and artifact: refused.
        for args in [json!({}), json!({"id": id, "artifact": artifact()})] {
            let (r, _) = request(
                &mut h,
                "tools/call",
                json!({"name": "review_history", "arguments": args}),
            )?;
            ensure!(
                r.get("error").is_some() || r["result"]["isError"] == true,
                "{r}"
            );
        }
    }
    Ok(())
}

#[test]
fn a_long_history_is_served_within_the_bound_and_whole() -> Result<()> {
    let dir = TempDir::new("history-readers")?;
    let mut h = host(&dir, None)?;
    let long = "x\"<".repeat(600);
    let mut id = String::new();
    for n in 0..120 {
        let (disposition, state) = if n % 2 == 0 {
            ("hold", "unresolved")
        } else {
            ("release", "satisfied")
        };
        let d = remember(&mut h, disposition, Some(&format!("{n} {long}")), state)?;
        id = d["id"].as_str().context("id")?.to_string();
    }
    let first = history(&mut h, json!({"id": id, "limit": 200}))?;
    ensure!(
        first.get("next_cursor").is_some(),
        "cut by bytes, not by limit"
    );
    let events = all_events(&mut h, &json!({"id": id}), 200)?;
    ensure!(events.len() == 120);
    let mut ids: Vec<&str> = events.iter().filter_map(|e| e["id"].as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    ensure!(ids.len() == 120, "each event once");
    let res = read(&mut h, &format!("review://decisions/{id}/history"))?;
    ensure!(res.contains("next_cursor"));
    // The report names what its trail does not list.
    let report = read(&mut h, &format!("review://revisions/{REV}/report"))?;
    ensure!(
        report.contains("- 115 earlier changes: review\\_history with id"),
        "{report}"
    );

    // One event larger than an answer (a note's previous text) comes cut, naming where it is
    // whole, and is whole there.
    let note = |c: char| c.to_string().repeat(60_000);
    let remembered = h.ok(
        "remember",
        json!({"artifact": artifact(), "name": "bore", "entity_ids": [], "note": note('a')}),
    )?;
    let rec = remembered["record"]["id"]
        .as_str()
        .context("record id")?
        .to_string();
    h.ok(
        "remember",
        json!({"artifact": artifact(), "name": "bore", "entity_ids": [], "note": note('b')}),
    )?;
    let page = history(&mut h, json!({"id": rec}))?;
    let e = &page["events"][0];
    ensure!(e["kind"] == "text_replaced");
    let whole = e["truncated"]["whole"]
        .as_str()
        .context("whole")?
        .to_string();
    ensure!(whole.starts_with("review://events/evt-"), "{whole}");
    let mut json = String::new();
    let mut uri = Some(whole);
    while let Some(u) = uri {
        let part: Value = serde_json::from_str(&read(&mut h, &u)?)?;
        json.push_str(part["json"].as_str().context("json")?);
        uri = part["next"].as_str().map(str::to_string);
    }
    let whole: Value = serde_json::from_str(&json)?;
    ensure!(whole["changes"][0]["from"] == json!(note('a')));
    ensure!(whole["id"] == e["id"]);
    Ok(())
}

/// A legacy session subscribed to a decision's history is told when the history grows: at a
/// replacement, and when the decision is forgotten (its history stays and grows); not at a
/// write that changes nothing.
#[test]
fn a_subscribed_history_is_announced_when_it_grows() -> Result<()> {
    let dir = TempDir::new("history-readers")?;
    let mut h = host(&dir, Some("2025-11-25"))?;
    let d = remember(&mut h, "hold", None, "unresolved")?;
    let uri = format!(
        "review://decisions/{}/history",
        d["id"].as_str().context("id")?
    );
    let (sub, _) = request(&mut h, "resources/subscribe", json!({"uri": uri}))?;
    ensure!(sub.get("error").is_none(), "{sub}");
    let updated = |out: &[Value]| {
        out.iter().any(|m| {
            m["method"] == "notifications/resources/updated" && m["params"]["uri"] == json!(uri)
        })
    };
    let decision = |disposition: &str, state: &str| {
        json!({"artifact": artifact(), "subject": "bore", "disposition": disposition,
               "basis": basis(state)})
    };
    let same = h.raw_call(
        "remember_decision",
        &decision("hold", "unresolved"),
        json!({}),
    );
    ensure!(
        !updated(&same),
        "nothing changed, nothing recorded: {same:?}"
    );
    let out = h.raw_call(
        "remember_decision",
        &decision("release", "satisfied"),
        json!({}),
    );
    ensure!(updated(&out), "{out:?}");
    let out = h.raw_call(
        "forget",
        &json!({"artifact": artifact(), "subject": "bore"}),
        json!({}),
    );
    ensure!(updated(&out), "{out:?}");
    Ok(())
}

/// Two engineers' clones keep the part at different paths: Ada's review arrives (sync) under
/// her path, and Brook asks for the history of his. The same bytes are at another path, as
/// recall and recall_decisions say; review_history said only "0 recorded changes".
#[test]
fn history_of_a_file_with_no_events_names_the_other_file_of_the_same_revision() -> Result<()> {
    use crate::support::inproc::{Client, ERAS, REV_A, art_uri};
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember_decision",
            json!({"artifact": art_uri(REV_A, "/home/ada/repo/bracket.step"),
                   "subject": "release", "disposition": "hold",
                   "basis": [{"requirement": "Bore 10 H7", "source": "drawing",
                              "state": "satisfied"}]}),
        );
        let r = c.call(
            "review_history",
            json!({"artifact": art_uri(REV_A, "/home/brook/repo/bracket.step")}),
        );
        let text = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        ensure!(
            text.starts_with("0 recorded changes")
                && text.contains("file:///home/ada/repo/bracket.step")
                && text.contains("no uri"),
            "{era:?}: the summary names where this revision's history is: {text}"
        );
    }
    Ok(())
}

/// The same hint for a revision whose changes were recorded without a uri: they are under no
/// file, so the summary says they were recorded without one (as recall's does), instead of
/// saying nothing (the merge of the two hints' branches).
#[test]
fn history_of_a_file_names_changes_recorded_without_a_uri_as_such() -> Result<()> {
    use crate::support::inproc::{Client, ERAS, REV_A, art_uri};
    for era in ERAS {
        let mut c = Client::memory(era);
        c.ok(
            "remember_decision",
            json!({"artifact": {"revision": REV_A, "format": "step"},
                   "subject": "release", "disposition": "hold",
                   "basis": [{"requirement": "Bore 10 H7", "source": "drawing",
                              "state": "satisfied"}]}),
        );
        let r = c.call(
            "review_history",
            json!({"artifact": art_uri(REV_A, "/home/brook/repo/bracket.step")}),
        );
        let text = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        ensure!(
            text.starts_with("0 recorded changes")
                && text.contains("recorded without a uri")
                && !text.contains("sha256:0"),
            "{era:?}: the summary says the revision's changes have no file: {text}"
        );
    }
    Ok(())
}

/// The audit's case: each event of a page repeated the locator and revision of its file
/// (about a fifth of a one-file page). A page says each once, in its `artifacts` table, and
/// each event names its entry by index, also when the page spans several files or revisions.
#[test]
fn review_history_says_each_file_and_revision_once_and_each_event_names_its_own() -> Result<()> {
    const REV2: &str = "sha256:eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
    const OTHER: &str = "file:///work/history-other.step";
    let dir = TempDir::new("history-readers")?;
    let mut h = host(&dir, None)?;
    let at = |rev: &str, uri: Option<&str>| {
        let mut a = json!({"revision": rev, "format": "step"});
        if let Some(u) = uri {
            a["uri"] = json!(u);
        }
        a
    };
    // Where each item is: its id → (locator, revision).
    let mut home = std::collections::BTreeMap::new();
    for (rev, uri, subject) in [
        (REV, Some(FILE), "bore"),
        (REV2, Some(FILE), "bore"),
        (REV, Some(OTHER), "wall"),
        (REV, None, "loose"),
    ] {
        for disposition in ["hold", "release"] {
            let d = h.ok(
                "remember_decision",
                json!({"artifact": at(rev, uri), "subject": subject,
                       "disposition": disposition, "basis": basis("satisfied")}),
            )?;
            let id = d["decision"]["id"].as_str().context("id")?.to_string();
            home.insert(id, (uri.unwrap_or(rev).to_string(), rev.to_string()));
        }
    }
    // One file at two revisions; one revision under two files and none; one decision.
    let id_of_bore = home
        .iter()
        .find(|(_, (l, r))| l == FILE && r == REV)
        .map(|(id, _)| id.clone())
        .context("bore")?;
    for (args, entries) in [
        (json!({"artifact": at(REV, Some(FILE))}), 2),
        (json!({"artifact": at(REV, None)}), 3),
        (json!({"id": id_of_bore}), 1),
    ] {
        let page = history(&mut h, args.clone())?;
        let table = page["artifacts"].as_array().context("artifacts")?;
        ensure!(table.len() == entries, "{args}: {page}");
        let events = page["events"].as_array().context("events")?;
        ensure!(!events.is_empty(), "{args}: {page}");
        for e in events {
            ensure!(
                e.get("locator").is_none() && e.get("revision").is_none(),
                "said once, in the table: {e}"
            );
            let i = e["artifact"].as_u64().context("artifact index")?;
            let entry = table
                .get(usize::try_from(i)?)
                .context("index in the table")?;
            // Asked by id, the event is of that id.
            let of = match e.get("of") {
                Some(of) => of.as_str().context("of")?,
                None => args["id"].as_str().context("of")?,
            };
            let (locator, revision) = home.get(of).context("a known decision")?;
            // A locator that is the revision (no uri) is not said again.
            let said = entry.get("locator").unwrap_or(&entry["revision"]);
            ensure!(
                said == &json!(locator) && entry["revision"] == json!(revision),
                "{e} names {entry}, not its own file and revision"
            );
        }
        // Each file and revision once in the page's JSON: a locator only in its entries.
        let text = page.to_string();
        for entry in table {
            let locator = entry["revision"].as_str().context("revision")?;
            let entries = table.iter().filter(|a| a["revision"] == locator).count();
            ensure!(
                text.matches(&format!("\"{locator}\"")).count() == entries,
                "{locator} said more than once: {text}"
            );
            let Some(locator) = entry.get("locator").and_then(Value::as_str) else {
                continue;
            };
            let entries = table.iter().filter(|a| a["locator"] == locator).count();
            ensure!(
                text.matches(&format!("\"{locator}\"")).count() == entries,
                "{locator} said more than once: {text}"
            );
            ensure!(
                table.iter().filter(|a| *a == entry).count() == 1,
                "{entry} twice in the table"
            );
        }
    }
    Ok(())
}

/// An event says each thing once, and only what a reader of the history needs: not the
/// digest of the state it left (`after`, for import and sync) nor its place in its write
/// (`step`: the page's order says it), and in a page asked by id not that id again on every
/// event (`of`). Both are in the whole event, `review://events/{id}/part/1`, and in an
/// export. With them an event cost about 500 bytes of structuredContent and as much again in
/// its text block.
#[test]
fn an_event_says_each_thing_once() -> Result<()> {
    for era in ERAS {
        let dir = TempDir::new("history-once")?;
        let mut h = host(&dir, era)?;
        let id = remember(&mut h, "hold", None, "unresolved")?["id"]
            .as_str()
            .context("id")?
            .to_string();
        remember(&mut h, "release", None, "satisfied")?;
        h.form(&[0, 1])?;
        let by_id = history(&mut h, json!({"id": id}))?;
        let by_file = history(&mut h, json!({"artifact": artifact()}))?;
        for (page, of) in [(&by_id, false), (&by_file, true)] {
            let events = page["events"].as_array().context("events")?;
            ensure!(events.len() == 4, "{era:?}: {page}");
            for e in events {
                ensure!(e.get("after").is_none() && e.get("step").is_none(), "{e}");
                ensure!(e.get("of").is_some() == of, "{era:?}: {e}");
            }
        }
        // What the page leaves out is in the whole event.
        let first = &by_id["events"][0];
        let uri = format!(
            "review://events/{}/part/1",
            first["id"].as_str().context("id")?
        );
        let part: Value = serde_json::from_str(&read(&mut h, &uri)?)?;
        let whole: Value = serde_json::from_str(part["json"].as_str().context("json")?)?;
        ensure!(
            whole["of"] == json!(id) && whole["after"].is_string() && whole["step"].is_u64(),
            "{whole}"
        );
        ensure!(whole["at"] == first["at"] && whole["changes"] == first["changes"]);
    }
    Ok(())
}

/// The histsize audit's case: a carry's event named both revisions in full in its `revision`
/// change (`from` and `to`, 71 bytes each), and one of them is the event's own, which the
/// page's `artifacts` table already says: a page of a carried review spent a sixth of its
/// bytes on it. A page's carried event names only the other revision (`from` on the new
/// item, `to` on the old, as its `decision` change does); the whole event keeps both. Fails
/// if an event of a page says its own revision again anywhere.
#[test]
fn a_carried_event_says_its_own_revision_once_in_the_table() -> Result<()> {
    const REV2: &str = "sha256:eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
    const REV3: &str = "sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
    let at = |rev: &str| json!({"revision": rev, "format": "step", "uri": FILE});
    for era in ERAS {
        let dir = TempDir::new("history-carry-once")?;
        let mut h = host(&dir, era)?;
        let old = remember(&mut h, "hold", None, "satisfied")?["id"]
            .as_str()
            .context("id")?
            .to_string();
        h.ok(
            "remember",
            json!({"artifact": artifact(), "name": "mounting hole", "note": "M6",
                   "entity_ids": ["face:1"]}),
        )?;
        h.ok(
            "carry_forward",
            json!({"from": at(REV), "to": at(REV2), "map": [{"from": "face:1", "to": "face:2"}]}),
        )?;
        h.ok(
            "carry_forward",
            json!({"from": at(REV2), "to": at(REV3), "map": [{"from": "face:2", "to": "face:3"}],
                   "changed": ["face:2"]}),
        )?;
        let newest = h.ok(
            "recall_decisions",
            json!({"artifact": {"revision": REV3, "format": "step"}}),
        )?["decisions"][0]["id"]
            .as_str()
            .context("carried id")?
            .to_string();
        let mut carried = 0;
        for args in [
            json!({"artifact": at(REV)}),
            json!({"artifact": {"revision": REV2, "format": "step"}}),
            json!({"id": old}),
            json!({"id": newest}),
        ] {
            let page = history(&mut h, args.clone())?;
            let table = page["artifacts"].as_array().context("artifacts")?;
            // Each revision of the table in full once (an entry per file it is of).
            let text = page.to_string();
            for entry in table {
                let rev = entry["revision"].as_str().context("revision")?;
                let entries = table.iter().filter(|a| a["revision"] == rev).count();
                ensure!(
                    text.matches(rev).count() == entries,
                    "{era:?} {args}: {rev} said again: {text}"
                );
            }
            let mut carried_other = Vec::new();
            for e in page["events"].as_array().context("events")? {
                let i = usize::try_from(e["artifact"].as_u64().context("artifact")?)?;
                let own = table.get(i).context("entry")?["revision"]
                    .as_str()
                    .context("revision")?;
                ensure!(
                    !e.to_string().contains(own),
                    "{era:?} {args}: the event says its own revision again: {e}"
                );
                if e["kind"] != "carried" {
                    continue;
                }
                carried += 1;
                let change = e["changes"]
                    .as_array()
                    .and_then(|c| c.iter().find(|c| c["field"] == "revision"))
                    .context("a revision change")?;
                // One side, the other revision.
                let sides = ["from", "to"].map(|k| change.get(k).and_then(Value::as_str));
                let other = match sides {
                    [Some(r), None] | [None, Some(r)] => r,
                    _ => anyhow::bail!("{era:?}: {change}"),
                };
                let in_table = |r: &str| table.iter().any(|a| a["revision"] == r);
                let short = |r: &str| format!("{}…", &r[..19]);
                let meant = [REV, REV2, REV3]
                    .into_iter()
                    .find(|r| {
                        *r == other
                            || ((in_table(r) || carried_other.contains(r)) && short(r) == other)
                    })
                    .context("a revision of the review")?;
                // Whole the first time the page says it: short when its table or an earlier
                // event did.
                let before = in_table(meant) || carried_other.contains(&meant);
                ensure!(
                    meant != own && (other == meant) != before,
                    "{era:?}: {change} (table {table:?})"
                );
                carried_other.push(meant);
                // The whole event keeps both.
                let uri = format!("review://events/{}/part/1", e["id"].as_str().context("id")?);
                let part: Value = serde_json::from_str(&read(&mut h, &uri)?)?;
                let whole: Value = serde_json::from_str(part["json"].as_str().context("json")?)?;
                let both = whole["changes"]
                    .as_array()
                    .and_then(|c| c.iter().find(|c| c["field"] == "revision"))
                    .context("whole revision change")?;
                ensure!(
                    both["from"].is_string() && both["to"].is_string() && whole["revision"] == own,
                    "{whole}"
                );
            }
            ensure!(
                !carried_other.is_empty(),
                "{era:?} {args}: no carried event"
            );
        }
        // Both carries, seen from each side, in these pages.
        ensure!(carried >= 8, "{era:?}: {carried} carried events");
    }
    Ok(())
}

/// Found by enduser3 driving a real review with the official TypeScript clients: the trail
/// line of a carry ("carried: revision … → …", in the report and the review card's data) cut
/// each revision at 60 characters, `sha256:` and 52 hex digits then `…`: a third spelling,
/// neither whole nor the short form every other reader writes, which no tool, resource or
/// command resolves (the short form is refused naming the revision it stands for; this one
/// only failed the schema, and `form3` called it "not a revision"). The line names each
/// revision in the short form (`sha256:` and 12 hex digits, `…`), which the report's header
/// and the card's `revision` and `supersedes` say whole.
#[test]
fn a_carried_trail_line_names_each_revision_in_the_short_form() -> Result<()> {
    const REV2: &str = "sha256:eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
    let at = |rev: &str| json!({"revision": rev, "format": "step", "uri": FILE});
    let short = |rev: &str| format!("{}…", &rev[..19]);
    let want = format!("carried: revision {} → {}; ", short(REV), short(REV2));
    for era in ERAS {
        let dir = TempDir::new("history-carry-trail")?;
        let mut h = host(&dir, era)?;
        remember(&mut h, "hold", None, "satisfied")?;
        h.ok(
            "carry_forward",
            json!({"from": at(REV), "to": at(REV2), "map": []}),
        )?;
        let mut lines: Vec<String> = Vec::new();
        for rev in [REV, REV2] {
            let report = read(&mut h, &format!("review://revisions/{rev}/report"))?;
            lines.extend(
                report
                    .lines()
                    .filter(|l| l.starts_with("- carried: "))
                    .map(str::to_string),
            );
            let card = h.ok(
                "show_review",
                json!({"artifact": at(rev), "detail": "full"}),
            )?;
            for d in card["decisions"].as_array().context("decisions")? {
                for l in d["trail"]["lines"].as_array().context("trail")? {
                    let l = l.as_str().context("line")?;
                    if l.starts_with("carried: ") {
                        lines.push(format!("- {l}"));
                    }
                }
            }
        }
        ensure!(lines.len() == 4, "{era:?}: the carried lines {lines:?}");
        for l in &lines {
            ensure!(l.starts_with(&format!("- {want}")), "{era:?}: {l}");
        }
    }
    Ok(())
}
