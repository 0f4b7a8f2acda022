//! The review's history: one append-only event per change to a decision (created, replaced,
//! carried, forgotten, arrived by import or sync) or to an engineer's verdict (given,
//! replaced, kept against the assistant's attempt, removed), and the previous text of a
//! feature or note that was replaced.
//!
//! An event is a fact of its own, addressed by its content: its `id` is a digest of every
//! other field, so the same event arriving twice (an import, two clones syncing) is one
//! event, two different events are never one, and an edited event no longer matches its id.
//! The history of two databases merges as the union of their events. Events are read in the
//! order of their time (`at`), then of their arrival. No SQL here: `store::history` keeps them.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::decision::{Decision, Meaning, Verdict, Via};
use super::hashing::hex16;
use super::outrank::{KeptVerdict, pair_by_requirement};
use super::record::Record;

/// How a change reached the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// The engineer answered the host's form (`request_verdicts`).
    Elicitation,
    /// The engineer clicked in the review card.
    App,
    /// The engineer answered `review-mcp review` in their own terminal.
    Terminal,
    /// A tool call (the assistant).
    Assistant,
    /// `review-mcp import`.
    Import,
    /// `review-mcp sync` (or a git merge of a synced folder).
    Sync,
}

wire_names!(Channel {
    Elicitation => "elicitation",
    App => "app",
    Terminal => "terminal",
    Assistant => "assistant",
    Import => "import",
    Sync => "sync",
});

impl Channel {
    /// The channel a verdict was given through.
    pub fn of_verdict(via: Via) -> Channel {
        match via {
            Via::Elicitation => Channel::Elicitation,
            Via::App => Channel::App,
            Via::Terminal => Channel::Terminal,
            Via::Assistant => Channel::Assistant,
        }
    }

    /// Import and sync bring changes made elsewhere, usually with their own events.
    pub fn is_transfer(self) -> bool {
        matches!(self, Channel::Import | Channel::Sync)
    }
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A decision was first remembered.
    Created,
    /// A decision was remembered again: its disposition, summary or basis changed.
    Replaced,
    /// A decision was carried to another revision (on the source) or began there as a
    /// carried copy (on the new decision).
    Carried,
    /// A decision was forgotten: it ends here, its history stays.
    Forgotten,
    /// A decision, feature or note came in by import or sync without events that explain it:
    /// what happened to it before is not recorded here.
    Arrived,
    VerdictGiven,
    VerdictReplaced,
    /// An engineer's verdict stayed although the assistant's arguments said otherwise: the
    /// change is from the engineer's judgement to the one offered, which was not written; the
    /// author is the assistant's server's.
    VerdictKept,
    VerdictRemoved,
    /// A named feature or a note was replaced: `changes` hold its previous text.
    TextReplaced,
}

wire_names!(EventKind {
    Created => "created",
    Replaced => "replaced",
    Carried => "carried",
    Forgotten => "forgotten",
    Arrived => "arrived",
    VerdictGiven => "verdict_given",
    VerdictReplaced => "verdict_replaced",
    VerdictKept => "verdict_kept",
    VerdictRemoved => "verdict_removed",
    TextReplaced => "text_replaced",
});

/// How many of an event's changes its line names.
const LINE_CHANGES: usize = 5;

/// One changed value: `field` of the decision (`disposition`, `summary`, `revision`) or of
/// basis item `index` (`requirement`, `state`, `verdict`), or of a record (`name`, `note`,
/// `tags`), from → to (absent: none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub field: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

impl Change {
    fn of(field: &str, from: Option<&str>, to: Option<&str>) -> Change {
        Change {
            field: field.into(),
            from: from.map(str::to_string),
            index: None,
            requirement: None,
            to: to.map(str::to_string),
        }
    }

    fn item(mut self, index: usize, requirement: &str) -> Change {
        self.index = Some(index);
        self.requirement = Some(requirement.to_string());
        self
    }
}

/// One event. Fields in alphabetical order: the wire form (tool answers, export lines,
/// synced files) is this struct's serde form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// The state the item was left in (see [`decision_state`], [`record_state`]); absent
    /// when it was forgotten. Lets an import or sync tell whether the events it brings
    /// explain what it writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    pub at: String,
    /// Who: the verdict's author for a verdict, else the author of the server that wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default)]
    pub changes: Vec<Change>,
    pub channel: Channel,
    /// `evt-` and 32 hex digits of the digest of every other field ([`Event::sealed`]).
    pub id: String,
    pub kind: EventKind,
    /// The file (its uri) or, without one, the revision.
    pub locator: String,
    /// What an engineer's verdict attests (review, approval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meaning: Option<Meaning>,
    /// The id of the decision or record it happened to.
    pub of: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub revision: String,
    /// Its place among the events written at the same time, by the same write.
    pub step: u32,
    /// The decision's subject, the feature's name, or `note`.
    pub subject: String,
}

impl Event {
    /// The id this event's content gives it.
    pub fn content_id(&self) -> String {
        let mut unsealed = self.clone();
        unsealed.id = String::new();
        // serde_json of a plain struct cannot fail.
        let bytes = serde_json::to_vec(&unsealed).unwrap_or_default();
        format!("evt-{}", hex16(Sha256::new().chain_update(bytes)))
    }

    /// With its id set from its content.
    pub fn sealed(mut self) -> Event {
        self.id = self.content_id();
        self
    }

    /// Whether `id` is the one its content gives (not edited since it was written).
    pub fn is_sealed(&self) -> bool {
        self.id == self.content_id()
    }

    /// The event's one line for a reader: "disposition hold → release, 2026-12-01 14:02,
    /// Ada Lovelace, approval (terminal)".
    pub fn line(&self) -> String {
        let what = self.what();
        let when = minute(&self.at);
        // Every stored string is shown short and on one line: an imported event is kept
        // as it came, whatever its author or field say.
        let who = self
            .author
            .as_deref()
            .map_or("unnamed".to_string(), |a| crate::text::who(a, 80));
        // An engineer's verdict attests something: a review unless they said approval.
        let meaning = self
            .meaning
            .or_else(|| self.is_engineers_verdict().then_some(Meaning::Review))
            .map(|m| format!(", {}", m.as_str()))
            .unwrap_or_default();
        let reason = self
            .reason
            .as_deref()
            .filter(|r| !r.is_empty())
            // Quoted with its quotes escaped: it cannot end early and go on as the line's
            // own time, author and channel.
            .map(|r| format!(": {}", crate::text::quoted(r, 80)))
            .unwrap_or_default();
        format!(
            "{what}{reason}, {when}, {who}{meaning} ({})",
            self.channel.as_str()
        )
    }

    /// Whether this event is an engineer's verdict given or replaced through one of their
    /// channels (not one the assistant relayed, nor one that arrived by import or sync,
    /// whose channel says only how it came; a `verdict_kept` is the assistant's attempt).
    pub fn is_engineers_verdict(&self) -> bool {
        matches!(
            self.kind,
            EventKind::VerdictGiven | EventKind::VerdictReplaced
        ) && matches!(
            self.channel,
            Channel::Elicitation | Channel::App | Channel::Terminal
        )
    }

    fn what(&self) -> String {
        if self.kind == EventKind::VerdictKept
            && let Some(c) = self.changes.first()
        {
            let v = |s: &Option<String>| s.as_deref().map_or("none".to_string(), |s| value(s, 60));
            let item = c
                .index
                .map_or(String::new(), |i| format!("item {} ", ordinal(i)));
            return format!(
                "engineer's verdict kept: {item}{} (the assistant offered {})",
                v(&c.from),
                v(&c.to)
            );
        }
        // A few changes name themselves; the rest are counted (a replacement of a whole
        // basis changes every item: the event has them all, review_history lists it).
        let mut changes: Vec<String> = self
            .changes
            .iter()
            .take(LINE_CHANGES)
            .map(change_words)
            .collect();
        match self.changes.len().saturating_sub(LINE_CHANGES) {
            0 => {}
            1 => changes.push("1 more change".to_string()),
            more => changes.push(format!("{more} more changes")),
        }
        // The kind's wire name in words ("verdict given"), but for two that say more.
        let head = match self.kind {
            EventKind::Arrived => "arrived without earlier history".to_string(),
            EventKind::VerdictKept => "engineer's verdict kept".to_string(),
            kind => kind.as_str().replace('_', " "),
        };
        if changes.is_empty() {
            head
        } else {
            format!("{head}: {}", changes.join("; "))
        }
    }
}

/// Item `index` counted from one, for any index an imported event may hold.
fn ordinal(index: usize) -> u128 {
    u128::try_from(index).unwrap_or(u128::MAX).saturating_add(1)
}

fn change_words(c: &Change) -> String {
    // A carried event names the decision at the other revision on one side only: "from" on
    // the new decision, "to" on the old one (not "dec_… → none", which reads as removed).
    if c.field == "decision" && c.index.is_none() {
        match (&c.from, &c.to) {
            (Some(from), None) => return format!("from decision {}", short(from, 60)),
            (None, Some(to)) => return format!("to decision {}", short(to, 60)),
            _ => {}
        }
    }
    let field = match c.index {
        Some(i) => format!("item {} {}", ordinal(i), value(&c.field, 40)),
        None => value(&c.field, 40),
    };
    // A carry's revisions in the short form every reader writes (`sha256:` and 12 hex
    // digits, `…`), which the tools resolve; cut at 60 characters they were a spelling of
    // their own that nothing resolves.
    if c.field == "revision" && c.index.is_none() {
        // (An imported event's value that is no whole revision is shown as any value.)
        let r = |s: &Option<String>| match s.as_deref() {
            Some(s) if crate::review::artifact::is_revision(s) => {
                crate::review::carry::short_revision(s)
            }
            Some(s) => value(s, 60),
            None => "none".to_string(),
        };
        return format!("revision {} → {}", r(&c.from), r(&c.to));
    }
    let v = |s: &Option<String>| s.as_deref().map_or("none".to_string(), |s| value(s, 60));
    format!("{field} {} → {}", v(&c.from), v(&c.to))
}

/// A stored value or name in a line: [`short`], and quoted (its quotes and backslashes
/// escaped, [`crate::text::quoted`]) when it holds what separates the line's own parts (`,`
/// `;` `"` `→`): `release, 2026-12-01 14:02, Ada, approval (app)` cannot read as the change,
/// time, author and channel of the line it is in.
fn value(s: &str, n: usize) -> String {
    if s.contains([',', ';', '"', '→']) {
        crate::text::quoted(s, n)
    } else {
        short(s, n)
    }
}

/// At most `n` characters, an ellipsis marking a cut; on one line, every control,
/// bidirectional and invisible character shown as an escape ([`crate::text::escape_controls`]:
/// a line break as `\u{a}`, a right-to-left override as `\u{202e}`), as every reader shows
/// them: dropped, a value changed only by one read as unchanged (`hold → hold`).
fn short(s: &str, n: usize) -> String {
    let cut = if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", crate::text::first_chars(s, n.saturating_sub(1)))
    };
    crate::text::escape_controls(&cut).into_owned()
}

/// "2026-12-01T14:02:03.456Z" → "2026-12-01 14:02".
fn minute(at: &str) -> String {
    match (at.get(..10), at.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time}"),
        _ => at.to_string(),
    }
}

/// A digest of what a decision says (disposition, summary, every basis item with its
/// verdict), not of when or where it was written.
pub fn decision_state(d: &Decision) -> String {
    let mut h = Sha256::new();
    h.update(d.disposition.as_bytes());
    h.update([0]);
    h.update(d.summary.as_deref().unwrap_or("").as_bytes());
    h.update([0]);
    h.update(d.basis_digest().as_bytes());
    hex16(h)
}

/// A digest of what a record says (name, note, tags).
pub fn record_state(r: &Record) -> String {
    let mut h = Sha256::new();
    h.update(r.name.as_deref().unwrap_or("").as_bytes());
    h.update([0]);
    h.update(r.note.as_deref().unwrap_or("").as_bytes());
    h.update([0]);
    for t in &r.tags {
        h.update(t.as_bytes());
        h.update([0]);
    }
    hex16(h)
}

/// How a write happened: its channel, time and author (the server's).
#[derive(Debug, Clone)]
pub struct Written<'a> {
    pub channel: Channel,
    pub at: &'a str,
    pub author: Option<&'a str>,
}

/// Builds a write's events in order, numbering their steps.
struct Events<'a> {
    how: &'a Written<'a>,
    out: Vec<Event>,
}

impl<'a> Events<'a> {
    fn new(how: &'a Written<'a>) -> Events<'a> {
        Events {
            how,
            out: Vec::new(),
        }
    }

    /// An event in the write's own channel, not a verdict's.
    fn push(
        &mut self,
        kind: EventKind,
        of: (&str, &str, &str, &str),
        changes: Vec<Change>,
        after: Option<String>,
    ) {
        self.push_as(kind, of, changes, after, None, self.how.channel);
    }

    /// An event of `verdict` (its author, meaning and reason), in `channel`.
    fn push_as(
        &mut self,
        kind: EventKind,
        of: (&str, &str, &str, &str),
        changes: Vec<Change>,
        after: Option<String>,
        verdict: Option<&Verdict>,
        channel: Channel,
    ) {
        let (id, locator, revision, subject) = of;
        let step = u32::try_from(self.out.len()).unwrap_or(u32::MAX);
        let author = verdict
            .and_then(|v| v.author.as_deref())
            .or(self.how.author)
            .map(str::to_string);
        self.out.push(
            Event {
                after,
                at: self.how.at.to_string(),
                author,
                changes,
                channel,
                id: String::new(),
                kind,
                locator: locator.to_string(),
                meaning: verdict.and_then(|v| v.meaning),
                of: id.to_string(),
                reason: verdict.and_then(|v| v.reason.clone()),
                revision: revision.to_string(),
                step,
                subject: subject.to_string(),
            }
            .sealed(),
        );
    }
}

fn decision_key(d: &Decision) -> (&str, &str, &str, &str) {
    (
        &d.id,
        d.artifact.locator(),
        &d.artifact.revision,
        &d.subject,
    )
}

fn judgement(v: Option<&Verdict>) -> Option<&'static str> {
    v.map(|v| v.judgement.as_str())
}

/// The events of a decision going from `old` to `new` (either absent: created or
/// forgotten). `kept` are the engineer's verdicts a replacement kept against the
/// assistant's arguments. A verdict event's channel is the verdict's own when the write is
/// the engineer's or the assistant's; an import or sync is its own channel.
pub fn decision_events(
    how: &Written<'_>,
    old: Option<&Decision>,
    new: Option<&Decision>,
    kept: &[KeptVerdict],
) -> Vec<Event> {
    let mut ev = Events::new(how);
    let verdict_channel = |v: &Verdict| {
        if how.channel.is_transfer() {
            how.channel
        } else {
            Channel::of_verdict(v.via)
        }
    };
    match (old, new) {
        (None, None) => {}
        (Some(o), None) => ev.push(
            EventKind::Forgotten,
            decision_key(o),
            vec![Change::of("disposition", Some(&o.disposition), None)],
            None,
        ),
        (None, Some(n)) => {
            let kind = if how.channel.is_transfer() {
                EventKind::Arrived
            } else {
                EventKind::Created
            };
            let mut changes = vec![Change::of("disposition", None, Some(&n.disposition))];
            changes.extend(n.basis.iter().enumerate().map(|(i, b)| {
                Change::of("state", None, Some(b.state.as_str())).item(i, &b.requirement)
            }));
            // The state the write left, digested once for all its events.
            let after = decision_state(n);
            ev.push(kind, decision_key(n), changes, Some(after.clone()));
            for (i, b) in n.basis.iter().enumerate() {
                if let Some(v) = &b.verdict {
                    ev.push_as(
                        EventKind::VerdictGiven,
                        decision_key(n),
                        vec![
                            Change::of("verdict", None, judgement(Some(v))).item(i, &b.requirement),
                        ],
                        Some(after.clone()),
                        Some(v),
                        verdict_channel(v),
                    );
                }
            }
        }
        (Some(o), Some(n)) => {
            let after = decision_state(n);
            let mut changes = Vec::new();
            if o.disposition != n.disposition {
                changes.push(Change::of(
                    "disposition",
                    Some(&o.disposition),
                    Some(&n.disposition),
                ));
            }
            if o.summary != n.summary {
                changes.push(Change::of(
                    "summary",
                    o.summary.as_deref(),
                    n.summary.as_deref(),
                ));
            }
            let pairs = pair_by_requirement(&o.basis, &n.basis);
            let mut paired = vec![false; o.basis.len()];
            let mut verdicts = Vec::new();
            for (i, (b, pair)) in n.basis.iter().zip(&pairs).enumerate() {
                let before = pair.and_then(|j| o.basis.get(j));
                if let Some(j) = pair
                    && let Some(p) = paired.get_mut(*j)
                {
                    *p = true;
                }
                let from_state = before.map(|x| x.state.as_str());
                if from_state != Some(b.state.as_str()) {
                    changes.push(
                        Change::of("state", from_state, Some(b.state.as_str()))
                            .item(i, &b.requirement),
                    );
                }
                let (vo, vn) = (before.and_then(|x| x.verdict.as_ref()), b.verdict.as_ref());
                if vo != vn {
                    verdicts.push((i, b, vo, vn));
                }
            }
            for (j, b) in o.basis.iter().enumerate() {
                if !paired.get(j).copied().unwrap_or(true) {
                    changes.push(
                        Change::of("state", Some(b.state.as_str()), None).item(j, &b.requirement),
                    );
                    if let Some(v) = &b.verdict {
                        ev.push(
                            EventKind::VerdictRemoved,
                            decision_key(n),
                            vec![
                                Change::of("verdict", judgement(Some(v)), None)
                                    .item(j, &b.requirement),
                            ],
                            Some(after.clone()),
                        );
                    }
                }
            }
            // What the basis says changed with no state or verdict of its own changing
            // (an item's evidence, question or faces): still a replacement, so the history
            // tells every state the decision was in. Only an event of its own says that
            // state: an engineer's verdict kept unchallenged (no verdict offered) is none.
            let said_more = changes.is_empty()
                && ev.out.is_empty()
                && verdicts.is_empty()
                && kept.iter().all(|k| k.offered.is_none())
                && decision_state(o) != after;
            if !changes.is_empty() || said_more {
                // Sorted first: the decision's change, then what it did to verdicts.
                let removed = std::mem::take(&mut ev.out);
                ev.push(
                    EventKind::Replaced,
                    decision_key(n),
                    changes,
                    Some(after.clone()),
                );
                for mut e in removed {
                    e.step = u32::try_from(ev.out.len()).unwrap_or(u32::MAX);
                    ev.out.push(e.sealed());
                }
            }
            for (i, b, vo, vn) in verdicts {
                let change =
                    Change::of("verdict", judgement(vo), judgement(vn)).item(i, &b.requirement);
                match vn {
                    Some(v) => ev.push_as(
                        if vo.is_some() {
                            EventKind::VerdictReplaced
                        } else {
                            EventKind::VerdictGiven
                        },
                        decision_key(n),
                        vec![change],
                        Some(after.clone()),
                        Some(v),
                        verdict_channel(v),
                    ),
                    None => ev.push(
                        EventKind::VerdictRemoved,
                        decision_key(n),
                        vec![change],
                        Some(after.clone()),
                    ),
                }
            }
            // Only an attempt is an event: an engineer's verdict the arguments left alone
            // (no verdict offered, or the same one) was not challenged.
            for k in kept.iter().filter(|k| k.offered.is_some()) {
                let offered = k.offered.as_ref();
                ev.push(
                    EventKind::VerdictKept,
                    decision_key(n),
                    vec![
                        Change::of("verdict", judgement(Some(&k.verdict)), judgement(offered))
                            .item(k.index, &k.requirement),
                    ],
                    Some(after.clone()),
                );
            }
        }
    }
    ev.out
}

/// The events of `source` carried to `to`: one on each decision.
pub fn carried_events(how: &Written<'_>, source: &Decision, to: &Decision) -> Vec<Event> {
    let mut ev = Events::new(how);
    let change = Change::of(
        "revision",
        Some(&source.artifact.revision),
        Some(&to.artifact.revision),
    );
    ev.push(
        EventKind::Carried,
        decision_key(source),
        vec![change.clone(), Change::of("decision", None, Some(&to.id))],
        Some(decision_state(source)),
    );
    ev.push(
        EventKind::Carried,
        decision_key(to),
        vec![change, Change::of("decision", Some(&source.id), None)],
        Some(decision_state(to)),
    );
    ev.out
}

/// The event of `source` carried to revision `to` where decision `stated` already said what
/// it decides: the source is superseded there, and nothing is written on `stated`.
pub fn carried_onto_events(
    how: &Written<'_>,
    source: &Decision,
    to: &str,
    stated: &str,
) -> Vec<Event> {
    let mut ev = Events::new(how);
    let change = Change::of("revision", Some(&source.artifact.revision), Some(to));
    ev.push(
        EventKind::Carried,
        decision_key(source),
        vec![change, Change::of("decision", None, Some(stated))],
        Some(decision_state(source)),
    );
    ev.out
}

/// The event of the feature `from` carried on to `to` (its id kept): on the feature, at the
/// revision it was carried from. What says that revision was carried past once its
/// superseded copy is forgotten and the feature stated again where it stands (no carry mark
/// left): `remember`, `import` and `sync` then keep a statement there as that revision's.
pub fn record_carried_events(how: &Written<'_>, from: &Record, to: &Record) -> Vec<Event> {
    let mut ev = Events::new(how);
    ev.push(
        EventKind::Carried,
        record_key(from),
        vec![Change::of(
            "revision",
            Some(&from.artifact.revision),
            Some(&to.artifact.revision),
        )],
        Some(record_state(to)),
    );
    ev.out
}

/// The event of the feature `r` forgotten where it stood, carried there from another revision
/// (`forget` of a feature with carries behind it): the fact that says an older line of it (a
/// backup's, a clone's that never saw the forget) is the feature forgotten since, not one
/// that stands against a later statement of its name under another id. Without it, import's
/// carry rule brought the forgotten feature back over that statement. A feature never carried
/// needs none: two ids of its name are judged by their times.
pub fn record_forgotten_events(how: &Written<'_>, r: &Record) -> Vec<Event> {
    let mut ev = Events::new(how);
    ev.push(EventKind::Forgotten, record_key(r), Vec::new(), None);
    ev.out
}

fn record_key(r: &Record) -> (&str, &str, &str, &str) {
    (
        &r.id,
        r.artifact.locator(),
        &r.artifact.revision,
        r.name.as_deref().unwrap_or("note"),
    )
}

/// The event of a record replaced from `old` to `new` (its previous text kept), or arrived
/// by import or sync (`old` absent); nothing when nothing it says changed.
pub fn record_events(how: &Written<'_>, old: Option<&Record>, new: &Record) -> Vec<Event> {
    let mut ev = Events::new(how);
    match old {
        None if how.channel.is_transfer() => ev.push(
            EventKind::Arrived,
            record_key(new),
            Vec::new(),
            Some(record_state(new)),
        ),
        None => {}
        Some(o) => {
            let mut changes = Vec::new();
            if o.name != new.name {
                changes.push(Change::of("name", o.name.as_deref(), new.name.as_deref()));
            }
            if o.note != new.note {
                changes.push(Change::of("note", o.note.as_deref(), new.note.as_deref()));
            }
            if o.tags != new.tags {
                let tags = |r: &Record| r.tags.join(", ");
                changes.push(Change::of("tags", Some(&tags(o)), Some(&tags(new))));
            }
            if !changes.is_empty() {
                ev.push(
                    EventKind::TextReplaced,
                    record_key(new),
                    changes,
                    Some(record_state(new)),
                );
            }
        }
    }
    ev.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::outrank::merge_verdicts;
    use crate::review::{Artifact, BasisItem, Judgement};

    fn item(requirement: &str, verdict: Option<(Judgement, Via)>) -> BasisItem {
        BasisItem {
            verdict: verdict.map(|(judgement, via)| Verdict {
                at: "2026-12-01T14:00:00.000Z".into(),
                author: Some("Ada".into()),
                ..Verdict::given(judgement, via)
            }),
            ..BasisItem::stated(requirement)
        }
    }

    fn decision(basis: Vec<BasisItem>) -> Decision {
        Decision {
            id: "dec_1".into(),
            subject: "bore".into(),
            disposition: "hold".into(),
            summary: None,
            basis,
            artifact: Artifact {
                revision: format!("sha256:{}", "a".repeat(64)),
                format: "step".into(),
                uri: None,
                units: None,
            },
            author: None,
            carried: None,
            superseded: None,
            created_at: "2026-12-01T14:00:00.000Z".into(),
            updated_at: "2026-12-01T14:00:00.000Z".into(),
        }
    }

    const HOW: Written<'static> = Written {
        channel: Channel::Assistant,
        at: "2026-12-01T14:02:00.000Z",
        author: Some("Bob"),
    };

    fn kinds(events: &[Event]) -> Vec<&'static str> {
        events.iter().map(|e| e.kind.as_str()).collect()
    }

    /// An engineer's verdict without a stated meaning reads as a review in its line; the
    /// assistant's relayed verdict and the assistant's challenge say no meaning.
    #[test]
    fn an_engineers_verdict_line_says_its_meaning() {
        let old = decision(vec![item("Bore", None), item("Wall", None)]);
        let new = decision(vec![
            item("Bore", Some((Judgement::Accepted, Via::App))),
            item("Wall", Some((Judgement::Rejected, Via::Assistant))),
        ]);
        let events = decision_events(&HOW, Some(&old), Some(&new), &[]);
        assert_eq!(kinds(&events), ["verdict_given", "verdict_given"]);
        let lines: Vec<String> = events.iter().map(Event::line).collect();
        assert!(lines[0].ends_with(", Ada, review (app)"), "{lines:?}");
        assert!(lines[1].ends_with(", Ada (assistant)"), "{lines:?}");
        let mut approved = events[0].clone();
        approved.meaning = Some(Meaning::Approval);
        assert!(approved.line().ends_with(", Ada, approval (app)"));
    }

    /// The report of a carried revision said "carried: revision … → …; decision dec_old →
    /// none", as if the decision had been removed.
    #[test]
    fn a_carried_line_names_the_decision_it_came_from_or_went_to() {
        let old = decision(vec![item("Bore", None)]);
        let mut new = old.clone();
        new.id = "dec_2".into();
        new.artifact.revision = format!("sha256:{}", "b".repeat(64));
        let events = carried_events(&HOW, &old, &new);
        let lines: Vec<String> = events.iter().map(Event::line).collect();
        assert!(lines[0].contains("; to decision dec_2, "), "{lines:?}");
        assert!(lines[1].contains("; from decision dec_1, "), "{lines:?}");
        assert!(lines.iter().all(|l| !l.contains("none")), "{lines:?}");
    }

    #[test]
    fn an_engineer_verdict_left_alone_is_no_event_and_one_challenged_is_kept() {
        let engineer = Some((Judgement::Rejected, Via::App));
        let old = decision(vec![item("Bore", engineer), item("Chamfer", engineer)]);
        // The assistant restates both items: no verdict on the first, another on the second.
        let mut basis = vec![
            item("Bore", None),
            item("Chamfer", Some((Judgement::Accepted, Via::Assistant))),
        ];
        let outranked = merge_verdicts(&old.basis, &mut basis, HOW.at, HOW.author).unwrap();
        let new = decision(basis);
        let events = decision_events(&HOW, Some(&old), Some(&new), &outranked.kept);
        assert_eq!(kinds(&events), ["verdict_kept"], "{events:#?}");
        let kept = &events[0];
        assert_eq!(kept.author.as_deref(), Some("Bob"));
        assert_eq!(kept.changes[0].index, Some(1));
        assert!(
            kept.line().starts_with(
                "engineer's verdict kept: item 2 rejected (the assistant offered accepted)"
            ),
            "{}",
            kept.line()
        );
    }

    #[test]
    fn an_item_left_out_removes_its_verdict_after_the_replacement_is_said() {
        let old = decision(vec![
            item("Bore", Some((Judgement::Accepted, Via::Elicitation))),
            item("Chamfer", None),
        ]);
        let new = decision(vec![item("Chamfer", None)]);
        let events = decision_events(&HOW, Some(&old), Some(&new), &[]);
        assert_eq!(
            kinds(&events),
            ["replaced", "verdict_removed"],
            "{events:#?}"
        );
        assert_eq!(events[1].step, 1);
        assert!(events.iter().all(Event::is_sealed));
    }

    #[test]
    fn what_arrives_by_import_without_history_is_said_to_have_arrived() {
        let how = Written {
            channel: Channel::Import,
            ..HOW
        };
        let new = decision(vec![item(
            "Bore",
            Some((Judgement::Accepted, Via::Terminal)),
        )]);
        let events = decision_events(&how, None, Some(&new), &[]);
        assert_eq!(kinds(&events), ["arrived", "verdict_given"]);
        // The verdict reached this database by import, whoever gave it.
        assert_eq!(events[1].channel, Channel::Import);
        assert_eq!(events[1].author.as_deref(), Some("Ada"));
    }

    #[test]
    fn an_edited_event_is_no_longer_sealed() {
        let new = decision(vec![]);
        let mut e = decision_events(&HOW, None, Some(&new), &[]).remove(0);
        assert!(e.is_sealed());
        e.author = Some("Mallory".into());
        assert!(!e.is_sealed());
    }

    /// Regression: a new decision's events digested the whole basis once per verdict it
    /// carried (each event says the state the decision was left in), so a decision of 1,000
    /// items with verdicts hashed the basis 1,001 times: 3 s for a 1 MB basis. The state is
    /// the same for every event of one write, and is digested once.
    #[test]
    fn a_new_decisions_events_digest_its_basis_once() {
        let basis = (0..50)
            .map(|i| {
                item(
                    &format!("req {i}"),
                    Some((Judgement::Accepted, Via::Assistant)),
                )
            })
            .collect();
        let new = decision(basis);
        let before = crate::review::decision::BASIS_DIGESTS.with(std::cell::Cell::get);
        let events = decision_events(&HOW, None, Some(&new), &[]);
        let digests = crate::review::decision::BASIS_DIGESTS.with(std::cell::Cell::get) - before;
        assert_eq!(events.len(), 51);
        assert!(digests <= 1, "{digests} digests of the basis");
        let state = decision_state(&new);
        assert!(
            events
                .iter()
                .all(|e| e.after.as_deref() == Some(state.as_str()))
        );
    }

    /// Regression: a replacement that changed only an item's evidence left no event, so the
    /// history did not tell the state the decision was left in (and an import of it then
    /// said it `arrived`).
    #[test]
    fn a_replacement_that_changes_only_what_an_item_says_is_an_event() {
        let with_evidence = |evidence: &str| {
            let mut b = item("Bore 12H7", None);
            b.evidence = Some(evidence.into());
            decision(vec![b])
        };
        let (old, new) = (with_evidence("12.008"), with_evidence("12.009 measured"));
        let events = decision_events(&HOW, Some(&old), Some(&new), &[]);
        assert_eq!(kinds(&events), ["replaced"], "{events:#?}");
        assert_eq!(
            events[0].after.as_deref(),
            Some(decision_state(&new).as_str())
        );
        assert!(events[0].is_sealed());
        // Nothing said differently: no event.
        assert!(decision_events(&HOW, Some(&old), Some(&old.clone()), &[]).is_empty());
    }

    /// Regression (converge, seed 2687): the assistant stated a decision again with other
    /// evidence and no verdict on an item the engineer had judged. The engineer's verdict
    /// stayed (kept, not challenged), and because something was kept the replacement was no
    /// event: the history did not end in the state written, so export, import into an empty
    /// database and export again added an `arrived` and a `verdict_given` of channel `import`.
    #[test]
    fn a_replacement_that_keeps_an_unchallenged_engineer_verdict_is_still_an_event() {
        let engineer = Some((Judgement::Accepted, Via::Terminal));
        let with = |evidence: &str, verdict| {
            let mut b = item("Flatness 0.05", verdict);
            b.evidence = Some(evidence.into());
            vec![item("Bore", None), b]
        };
        let old = decision(with("e1 1", engineer));
        let mut basis = with("e3 1", None);
        let outranked = merge_verdicts(&old.basis, &mut basis, HOW.at, HOW.author).unwrap();
        assert_eq!(outranked.kept.len(), 1, "the engineer's verdict stays");
        assert!(outranked.kept[0].offered.is_none());
        let new = decision(basis);
        let events = decision_events(&HOW, Some(&old), Some(&new), &outranked.kept);
        assert_eq!(kinds(&events), ["replaced"], "{events:#?}");
        assert_eq!(
            events[0].after.as_deref(),
            Some(decision_state(&new).as_str())
        );
        // Restated word for word: still no event.
        let mut same = old.basis.clone();
        let outranked = merge_verdicts(&old.basis, &mut same, HOW.at, HOW.author).unwrap();
        let again = decision(same);
        assert_eq!(decision_state(&again), decision_state(&old));
        assert!(decision_events(&HOW, Some(&old), Some(&again), &outranked.kept).is_empty());
    }
}
