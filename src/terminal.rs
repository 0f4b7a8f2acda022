//! `review-mcp review`: the engineer gives verdicts in their own terminal, item by item, like
//! `git add -p`. The rules are here (what is asked, what an answer records); `cli/review.rs`
//! checks that stdin and stdout are terminals, opens the database and hands this module the
//! terminal's reader and writer.
//!
//! Each decision at the revision is shown with its open items (those without a verdict of
//! the engineer's own: `elicitation`, `app` or `terminal`); for each the engineer answers
//! accept, reject, skip or quit, then a reason and the meaning (review or approval). Each
//! answered item is recorded at once, in its own transaction, as the engineer's
//! (`via: "terminal"`), only while the item still says what was shown and holds the verdict
//! it held then ([`Shown::ItemAndVerdict`]); an answer not taken because the decision
//! changed meanwhile is said so, and the decision is shown again as it now stands (its items
//! skipped in the session not asked again); one carried on or forgotten meanwhile is said so
//! and the session goes on with the next (each is read again before it is shown). Quitting
//! keeps what was answered and records nothing more. Every string read from the database (a
//! model wrote it, a synced folder brought it) is shown escaped ([`escape_controls`]): it
//! cannot move the cursor, fake a prompt or reorder text.
//!
//! What this proves, and what not: the answers came through a terminal on this machine. A
//! model's shell tool has no terminal, so it cannot pipe answers in; a program that makes a
//! pseudo-terminal (`script`, `expect`) can, so this is a barrier, not proof that a person
//! typed them. Anyone with a terminal and the database can run it, and the author recorded is the name given
//! (`--author`, `REVIEW_MCP_AUTHOR`), not a checked identity.

use std::io::{self, BufRead, Write};

use crate::review::carry::VerdictAfterCarry;
use crate::review::{CarryState, Decision, Judgement, Meaning, Verdict, Via};
use crate::store::{
    DecisionQuery, DecisionRef, PageRequest, Shown, Store, StoreError, VerdictsOutcome,
};
use crate::text::{
    blank_runs_counted, escape_controls, holds_a_semicolon, needs_quotes, prefix_chars,
};
use crate::time;

/// What a session did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Decisions at the revision.
    pub decisions: usize,
    pub accepted: usize,
    pub rejected: usize,
    pub skipped: usize,
    /// Items not recorded because their decision changed while shown.
    pub changed: usize,
    /// The engineer quit (or the input ended) before the last item.
    pub quit: bool,
}

/// A failure of the session: the terminal or the database.
#[derive(Debug)]
pub enum TerminalError {
    Io(io::Error),
    Store(StoreError),
}

impl std::fmt::Display for TerminalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TerminalError::Io(e) => write!(f, "the terminal: {e}"),
            TerminalError::Store(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TerminalError {}

impl From<io::Error> for TerminalError {
    fn from(e: io::Error) -> Self {
        TerminalError::Io(e)
    }
}

impl From<StoreError> for TerminalError {
    fn from(e: StoreError) -> Self {
        TerminalError::Store(e)
    }
}

/// The longest reason taken, in characters (as the form's).
const MAX_REASON: usize = 2_000;

/// How much of a stored field is shown, in characters.
const SHOWN: usize = 400;

/// A stored string as the terminal shows it: at most `n` characters, every control escaped, a
/// run of blanks counted ([`blank_runs_counted`]),
/// and, when it is cut, how many characters are not shown (`… [25 more characters]`), so a
/// cut never reads as the whole text.
fn shown(s: &str, n: usize) -> String {
    blank_runs_counted(&escape_controls(&prefix_chars(s, n))).into_owned()
        + &crate::text::more_characters(s, n)
}

/// A stored string quoted ([`crate::text::quoted`]), its runs of blanks counted as
/// [`shown`] counts them.
fn quoted(s: &str, n: usize) -> String {
    blank_runs_counted(&crate::text::quoted(s, n)).into_owned()
}

/// A stored field in a line of `label: value` segments joined by `; `: [`shown`], and
/// [`quoted`] (its quotes escaped) when it [`holds_a_semicolon`], so it cannot go on as a
/// segment of the terminal's own (`; state: satisfied`, `; so far: accepted by the engineer`).
fn segment(s: &str, n: usize) -> String {
    match holds_a_semicolon(s) {
        true => quoted(s, n) + &crate::text::more_characters(s, n),
        false => shown(s, n),
    }
}

/// Every decision at `revision`, newest first.
fn decisions_at(store: &mut Store, revision: &str) -> Result<Vec<Decision>, StoreError> {
    let q = DecisionQuery {
        revision: Some(revision.to_string()),
        ..DecisionQuery::default()
    };
    let mut all = Vec::new();
    let mut request = PageRequest::first(100);
    loop {
        let page = store.recall_decisions(&q, request)?;
        let last = page.items.last().map(|(_, p)| *p);
        all.extend(page.items.into_iter().map(|(d, _)| d));
        let Some(after) = last.filter(|_| page.more) else {
            return Ok(all);
        };
        request.snapshot = Some(page.snapshot);
        request.after = Some(after);
    }
}

/// The items of `d` awaiting the engineer, by the rule every channel asks by
/// ([`Decision::awaiting_engineer`]: no verdict of the engineer's own, and not inherited with
/// the engineer's verdict at the earlier revision), those carried from an earlier revision to
/// re-verify first, then in their order. `after`: the engineer's verdicts given at the earlier
/// revision after the carry.
fn open_items(d: &Decision, after: &[VerdictAfterCarry]) -> Vec<usize> {
    let mut open = d.awaiting_engineer(after);
    open.sort_by_key(|&i| {
        let reverify = d
            .basis
            .get(i)
            .and_then(|b| b.carry_state())
            .is_some_and(|s| s == CarryState::Reverify);
        (!reverify, i)
    });
    open
}

/// One answer to "accept, reject, skip or quit".
enum Choice {
    Judge(Judgement),
    Skip,
    Quit,
}

/// Shows `prompt` and reads one line; `None` at the end of the input (the prompt's line then
/// ended). A line that is not UTF-8 (an Alt key sending a byte with the high bit set, text
/// pasted in another encoding) is refused and the prompt shown again: nothing is made of it,
/// and the session goes on.
fn ask(input: &mut dyn BufRead, out: &mut dyn Write, prompt: &str) -> io::Result<Option<String>> {
    loop {
        write!(out, "{prompt}")?;
        out.flush()?;
        let mut line = Vec::new();
        if input.read_until(b'\n', &mut line)? == 0 {
            writeln!(out)?;
            return Ok(None);
        }
        match String::from_utf8(line) {
            Ok(line) => return Ok(Some(line.trim().to_string())),
            Err(_) => writeln!(
                out,
                "  That line is not UTF-8 text (see the terminal's encoding); type it again."
            )?,
        }
    }
}

fn ask_choice(input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<Choice> {
    loop {
        let prompt = "  Verdict? [a]ccept, [r]eject, [s]kip, [q]uit, [?]: ";
        let Some(answer) = ask(input, out, prompt)? else {
            return Ok(Choice::Quit);
        };
        match answer.to_ascii_lowercase().as_str() {
            "a" | "accept" | "y" => return Ok(Choice::Judge(Judgement::Accepted)),
            "r" | "reject" | "n" => return Ok(Choice::Judge(Judgement::Rejected)),
            "s" | "skip" => return Ok(Choice::Skip),
            "q" | "quit" => return Ok(Choice::Quit),
            _ => writeln!(
                out,
                "  a: accept the item as stated (accepting a violated one confirms the violation); r: reject it (the item is wrong as stated); s: leave it open for now; q: stop here (what you answered is kept)."
            )?,
        }
    }
}

fn ask_reason(input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<Option<Option<String>>> {
    loop {
        let Some(reason) = ask(input, out, "  Reason (optional, Enter for none): ")? else {
            return Ok(None);
        };
        if reason.chars().count() > MAX_REASON {
            writeln!(out, "  At most {MAX_REASON} characters, please.")?;
            continue;
        }
        // Typed at this terminal, but kept free of controls all the same.
        let reason = crate::text::one_line(&reason).trim().to_string();
        return Ok(Some(Some(reason).filter(|r| !r.is_empty())));
    }
}

fn ask_meaning(input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<Option<Meaning>> {
    loop {
        let prompt = "  Meaning: [r]eview or [a]pproval? (Enter: review): ";
        let Some(answer) = ask(input, out, prompt)? else {
            return Ok(None);
        };
        match answer.to_ascii_lowercase().as_str() {
            "" | "r" | "review" => return Ok(Some(Meaning::Review)),
            "a" | "approval" | "approve" => return Ok(Some(Meaning::Approval)),
            _ => writeln!(
                out,
                "  r: you reviewed the item; a: you approve it (Enter is review)."
            )?,
        }
    }
}

/// A verdict as an item shows it: `accepted by the engineer (terminal, Ada), 2026-…`, and
/// its reason when it has one (`: "…"`, as the card and the Form 3 give it).
fn verdict(v: &Verdict) -> String {
    let by = shown(&v.given_by(), 200);
    let mut s = format!("{}{by}, {}", v.judgement.as_str(), shown(&v.at, 40));
    if let Some(r) = v.reason.as_deref().filter(|r| !r.trim().is_empty()) {
        let reason = crate::review::carry::reason_quoted(r);
        s.push_str(&format!(": {}", blank_runs_counted(&reason)));
    }
    s
}

/// Shows one item: its requirement and what it rests on, every stored string escaped, and
/// an engineer's verdict its earlier revision got after the carry (`after`, see
/// `Store::verdicts_after_carry`), which its carried history does not hold.
fn show_item(
    out: &mut dyn Write,
    d: &Decision,
    i: usize,
    after: &[VerdictAfterCarry],
) -> io::Result<()> {
    let Some(b) = d.basis.get(i) else {
        return Ok(());
    };
    // The requirement is what the engineer judges: shown whole, however long.
    writeln!(
        out,
        "\n  Item {} of {}: {}",
        i + 1,
        d.basis.len(),
        blank_runs_counted(&escape_controls(&b.requirement))
    )?;
    // A carried item's state and evidence are the earlier revision's, not results of this one:
    // the carry is said first, and they are labelled "there", as the form and the Form 3 do.
    if let Some(c) = &b.carried {
        let mut line = format!(
            "    carried from {}: {}",
            shown(&c.from, 80),
            match c.state {
                CarryState::Reverify => "re-verify first",
                CarryState::Inherited => "inherited, not re-verified",
            }
        );
        let changed = c.changed_and_carried();
        if !changed.is_empty() {
            line.push_str(&format!(
                "; changed: {}",
                segment(&changed.join(", "), SHOWN)
            ));
        }
        if !c.unmapped.is_empty() {
            line.push_str(&format!(
                "; unmapped: {}",
                segment(&c.unmapped.join(", "), SHOWN)
            ));
        }
        // Ids of a later revision than `from` (carried on unchanged, then touched).
        if let Some(of) = c
            .ids_of
            .as_deref()
            .filter(|_| !c.changed.is_empty() || !c.unmapped.is_empty())
        {
            line.push_str(&format!(" (ids of {})", shown(of, 80)));
        }
        writeln!(out, "{line}")?;
        if let Some(v) = &c.verdict {
            writeln!(out, "    at that revision: {}", verdict(v))?;
        }
        if let Some(a) = after.iter().find(|a| a.index == i) {
            writeln!(
                out,
                "    after the carry, at that revision: {}",
                verdict(&a.verdict)
            )?;
        }
    }
    let there = if b.carried.is_some() { " there" } else { "" };
    let mut about = format!("source: {}", b.source.as_str());
    if let Some(detail) = &b.source_detail {
        about.push_str(&format!(" ({})", segment(detail, SHOWN)));
    }
    about.push_str(&format!("; state{there}: {}", b.state.as_str()));
    if let Some(hint) = b.state.verdict_hint() {
        about.push_str(&format!(" ({hint})"));
    }
    writeln!(out, "    {about}")?;
    if let Some(e) = &b.evidence {
        writeln!(out, "    evidence{there}: {}", segment(e, SHOWN))?;
    }
    if let Some(q) = &b.question {
        writeln!(out, "    question: {}", segment(q, SHOWN))?;
    }
    if !b.faces.is_empty() {
        let faces: Vec<&str> = b.faces.iter().take(10).map(String::as_str).collect();
        writeln!(out, "    faces: {}", segment(&faces.join(", "), SHOWN))?;
    } else if let Some(n) = &b.not_carried {
        // Judged since a carry lost all its ids: not about the whole part.
        let label = crate::review::carry::entities_label(&[], &n.ids, Some(&n.of));
        writeln!(out, "    faces: {}", shown(&label, SHOWN))?;
    }
    if let Some(v) = &b.verdict {
        writeln!(out, "    so far: {}", verdict(v))?;
    }
    Ok(())
}

/// What became of `d`, whose revision another process carried on while the session ran
/// (`forgotten`: its copy was forgotten there too), said as the session's opening lines say
/// it of a revision carried on before: where its review goes on, with the command, or that
/// it is to be stated again.
fn carried_meanwhile(
    store: &mut Store,
    d: &Decision,
    forgotten: bool,
) -> Result<String, StoreError> {
    Ok(match d.superseded.as_ref().map(|s| s.by.as_str()) {
        Some(by) if !forgotten => {
            let (now, _) = store.stands_at(by, &d.subject)?;
            // The command for this database: without its `--db`, it would open another one.
            let command = crate::tools::request_verdicts::terminal_command(
                store.path(),
                store.author(),
                Some(&now),
            );
            format!(
                "was {} meanwhile: judge it there, with {}",
                carried_to(by, &now),
                escape_controls(&command)
            )
        }
        _ => "was carried to a later revision meanwhile and forgotten there: no revision holds its review; state it again at the part's current revision (remember_decision), then judge it there".to_string(),
    })
}

/// "carried to revision B (carry_forward)", or, carried on again since, "carried to revision B
/// and on to revision C (carry_forward)": C is where its review stands now.
fn carried_to(by: &str, now: &str) -> String {
    if by == now {
        format!("carried to revision {} (carry_forward)", shown(by, 80))
    } else {
        format!(
            "carried to revision {} and on to revision {} (carry_forward)",
            shown(by, 80),
            shown(now, 80)
        )
    }
}

/// The session: every decision at `revision` with its open items, answered one by one on
/// `input`, shown on `out`. Each answer is recorded as it is given.
pub fn review(
    store: &mut Store,
    revision: &str,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Tally, TerminalError> {
    let (carried_on, decisions): (Vec<Decision>, Vec<Decision>) = decisions_at(store, revision)?
        .into_iter()
        .partition(|d| d.superseded.is_some());
    let mut tally = Tally {
        decisions: decisions.len(),
        ..Tally::default()
    };
    let who = match store.author() {
        Some(a) => format!(" as {}", shown(a, 200)),
        None => {
            " (no author: give --author NAME or set REVIEW_MCP_AUTHOR to name yourself)".to_string()
        }
    };
    writeln!(
        out,
        "Review of {}{who}.\nYour answers are recorded as your own verdicts (via terminal); the assistant cannot change them.",
        shown(revision, 80)
    )?;
    // A revision carried on: its review goes on at the later revision (which says what was
    // judged here), so its decisions are not judged here. Unless what was carried there was
    // forgotten since: then no revision holds its review, and it is stated again.
    let ids: Vec<&str> = carried_on.iter().map(|d| d.id.as_str()).collect();
    let forgotten = store.unsaid_carried_on(&ids, &[])?;
    let (gone, carried_on): (Vec<&Decision>, Vec<&Decision>) =
        carried_on.iter().partition(|d| forgotten.contains(&d.id));
    if !gone.is_empty() {
        writeln!(
            out,
            "{} decision{} here {} carried to a later revision and forgotten there: no revision holds {} review; state {} again at the part's current revision (remember_decision), then judge {} there.",
            gone.len(),
            if gone.len() == 1 { "" } else { "s" },
            if gone.len() == 1 { "was" } else { "were" },
            if gone.len() == 1 { "its" } else { "their" },
            if gone.len() == 1 { "it" } else { "them" },
            if gone.len() == 1 { "it" } else { "them" },
        )?;
    }
    // Grouped by the revision each was carried to and the one its review stands at now
    // (carried on again since: the same as the form's refusal names).
    let mut onward: Vec<(String, String, usize)> = Vec::new();
    for d in &carried_on {
        let Some(by) = d.superseded.as_ref().map(|s| s.by.clone()) else {
            continue;
        };
        let (now, _) = store.stands_at(&by, &d.subject)?;
        match onward.iter_mut().find(|(b, n, _)| *b == by && *n == now) {
            Some((_, _, count)) => *count += 1,
            None => onward.push((by, now, 1)),
        }
    }
    for (by, now, n) in onward {
        writeln!(
            out,
            "{n} decision{} here {} {}: judge {} there, with {}.",
            if n == 1 { "" } else { "s" },
            if n == 1 { "was" } else { "were" },
            carried_to(&by, &now),
            if n == 1 { "it" } else { "them" },
            escape_controls(&crate::tools::request_verdicts::terminal_command(
                store.path(),
                store.author(),
                Some(&now)
            ))
        )?;
    }
    if decisions.is_empty() {
        if carried_on.is_empty() && gone.is_empty() {
            writeln!(out, "No decision is recorded at this revision.")?;
        }
        return Ok(tally);
    }
    // How many items of each decision are open, read once: a decision with none is passed.
    let mut open_counts = Vec::with_capacity(decisions.len());
    let mut unjudged = 0;
    for d in &decisions {
        open_counts.push(open_items(d, &store.verdicts_after_carry(d)?).len());
        unjudged += d.basis.iter().filter(|b| b.awaits_engineer()).count();
    }
    let open_total: usize = open_counts.iter().sum();
    // Left aside as `request_verdicts` leaves them: inherited by a carry with the engineer's
    // verdict at the earlier revision, which is their history; they stand as inherited.
    let inherited = match unjudged - open_total {
        0 => String::new(),
        n => format!(
            "{n} item{} inherited by carry_forward with your verdict at an earlier revision {} not asked again (to judge {} at this revision, answer {} in the review card, or have the assistant ask you in the host's form).",
            if n == 1 { "" } else { "s" },
            if n == 1 { "is" } else { "are" },
            if n == 1 { "it" } else { "them" },
            if n == 1 { "it" } else { "them" },
        ),
    };
    if open_total == 0 {
        writeln!(
            out,
            "Nothing to ask: every item of the {} decision{} here has your verdict already{}",
            decisions.len(),
            if decisions.len() == 1 { "" } else { "s" },
            match inherited.is_empty() {
                true => ".".to_string(),
                false => format!(", or is inherited with it. {inherited}"),
            }
        )?;
        return Ok(tally);
    }
    if !inherited.is_empty() {
        writeln!(out, "{inherited}")?;
    }
    let count = decisions.len();
    'decisions: for (n, listed) in decisions.into_iter().enumerate() {
        if open_counts.get(n).is_none_or(|&open| open == 0) {
            continue;
        }
        // As it stands now: another process (a server, a sync) may have written since the
        // list was read, and the engineer is not asked about what cannot be recorded.
        let Some(shown_decision) = store.find_decision(&DecisionRef::Id(&listed.id))? else {
            writeln!(
                out,
                "\nDecision {} of {count}: {} was forgotten meanwhile: nothing to judge.",
                n + 1,
                quoted(&listed.subject, 200)
            )?;
            continue;
        };
        if shown_decision.superseded.is_some() {
            let forgotten = store
                .unsaid_carried_on(&[shown_decision.id.as_str()], &[])?
                .contains(&shown_decision.id);
            writeln!(
                out,
                "\nDecision {} of {count}: {} {}.",
                n + 1,
                quoted(&shown_decision.subject, 200),
                carried_meanwhile(store, &shown_decision, forgotten)?
            )?;
            continue;
        }
        let mut d = shown_decision;
        // The items skipped in this session, by what they say: not asked again when the
        // decision is shown again after an answer it did not take.
        let mut skipped: Vec<String> = Vec::new();
        'shown: loop {
            let after = store.verdicts_after_carry(&d)?;
            let open: Vec<usize> = open_items(&d, &after)
                .into_iter()
                .filter(|&i| {
                    d.basis
                        .get(i)
                        .is_some_and(|b| !skipped.contains(&b.digest()))
                })
                .collect();
            if open.is_empty() {
                continue 'decisions;
            }
            // The subject quoted with its quotes escaped, and a disposition that could end early
            // quoted too: neither can name another part. Up to 100 characters: a carried
            // decision's ("carried from revision sha256:…: 1 of 3 basis items to re-verify")
            // whole.
            let disposition = if needs_quotes(&d.disposition) {
                quoted(&d.disposition, 100)
            } else {
                shown(&d.disposition, 100)
            };
            writeln!(
                out,
                "\nDecision {} of {count}: {} ({disposition}) on {}: {} open item{} of {}",
                n + 1,
                quoted(&d.subject, 200),
                match d.artifact.uri.as_deref() {
                    Some(uri) if crate::text::uri_needs_quotes(uri) => quoted(uri, 200),
                    uri => shown(uri.unwrap_or("the part"), 200),
                },
                open.len(),
                if open.len() == 1 { "" } else { "s" },
                d.basis.len()
            )?;
            if let Some(summary) = &d.summary {
                // The model's words: labelled and quoted, so they cannot pass for the
                // session's own lines (`  Recorded: …`).
                writeln!(
                    out,
                    "  summary: {}{}",
                    quoted(summary, SHOWN),
                    crate::text::more_characters(summary, SHOWN)
                )?;
            }
            for i in open {
                show_item(out, &d, i, &after)?;
                let judgement = match ask_choice(input, out)? {
                    Choice::Judge(j) => j,
                    Choice::Skip => {
                        tally.skipped += 1;
                        if let Some(b) = d.basis.get(i) {
                            skipped.push(b.digest());
                        }
                        continue;
                    }
                    Choice::Quit => {
                        tally.quit = true;
                        break 'decisions;
                    }
                };
                let Some(reason) = ask_reason(input, out)? else {
                    tally.quit = true;
                    break 'decisions;
                };
                let Some(meaning) = ask_meaning(input, out)? else {
                    tally.quit = true;
                    break 'decisions;
                };
                // What the engineer was shown: the item, and the verdict it held (none: ""). A
                // verdict given meanwhile through another channel is not overwritten unseen.
                let (digest, seen) = match d.basis.get(i) {
                    Some(b) => (
                        b.digest(),
                        b.verdict.as_ref().map_or(String::new(), |v| v.at.clone()),
                    ),
                    None => continue,
                };
                let verdict = Verdict {
                    at: time::now(),
                    author: store.author().map(str::to_string),
                    judgement,
                    meaning: Some(meaning),
                    reason,
                    via: Via::Terminal,
                };
                match store.record_verdicts(
                    &DecisionRef::Id(&d.id),
                    Shown::ItemAndVerdict(&digest, &seen),
                    &[(i, verdict)],
                )? {
                    VerdictsOutcome::Recorded(now) => {
                        d = now;
                        if judgement == Judgement::Accepted {
                            tally.accepted += 1;
                        } else {
                            tally.rejected += 1;
                        }
                        writeln!(
                            out,
                            "  Recorded: {} ({}).",
                            judgement.as_str(),
                            meaning.as_str()
                        )?;
                    }
                    VerdictsOutcome::Changed(now) => {
                        tally.changed += 1;
                        writeln!(
                            out,
                            "  Not recorded: the decision changed while it was shown (someone replaced it, or gave this item a verdict). It is shown again below as it is now."
                        )?;
                        d = now;
                        continue 'shown;
                    }
                    VerdictsOutcome::Missing => {
                        tally.changed += 1;
                        writeln!(out, "  Not recorded: the decision was forgotten meanwhile.")?;
                        continue 'decisions;
                    }
                    VerdictsOutcome::CarriedOn {
                        decision,
                        forgotten,
                    } => {
                        tally.changed += 1;
                        writeln!(
                            out,
                            "  Not recorded: the decision {}.",
                            carried_meanwhile(store, &decision, forgotten)?
                        )?;
                        continue 'decisions;
                    }
                }
            }
            break;
        }
    }
    writeln!(
        out,
        "\n{}: {} accepted, {} rejected, {} skipped{}.",
        if tally.quit { "Stopped" } else { "Done" },
        tally.accepted,
        tally.rejected,
        tally.skipped,
        if tally.changed > 0 {
            format!(", {} not recorded (changed meanwhile)", tally.changed)
        } else {
            String::new()
        }
    )?;
    out.flush()?;
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::BasisItem;
    use crate::store::NewDecision;

    fn item(requirement: &str) -> BasisItem {
        BasisItem {
            evidence: Some("seen\u{1b}[2J on the drawing".into()),
            ..BasisItem::stated(requirement)
        }
    }

    fn stored(store: &mut Store) -> Decision {
        let artifact = crate::review::Artifact {
            revision: format!("sha256:{}", "ab".repeat(32)),
            format: "step".into(),
            uri: Some("file:///parts/bracket.step".into()),
            units: None,
        };
        let new = NewDecision {
            artifact,
            subject: "bore\u{1b}]0;owned\u{7}".into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![item("Bore 12H7"), item("Chamfer 0.5"), item("Thread M6")],
        };
        store.remember_decision(&new).unwrap().0
    }

    #[test]
    fn answers_are_recorded_as_given_and_quit_keeps_them() {
        let mut store = Store::open_in_memory().unwrap();
        store.set_author(Some("Ada".into()));
        let d = stored(&mut store);
        let mut input: &[u8] = b"x\na\n\n\nr\nno chamfer on the drawing\na\nq\n";
        let mut out = Vec::new();
        let tally = review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        assert_eq!((tally.accepted, tally.rejected, tally.quit), (1, 1, true));
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text.contains('\u{1b}'),
            "stored controls are escaped: {text}"
        );
        assert!(text.contains("\\u{1b}"), "{text}");
        let back = store.get_decision(&d.id).unwrap().unwrap();
        let v0 = back.basis[0].verdict.clone().unwrap();
        assert_eq!(
            (
                v0.judgement,
                v0.via,
                v0.meaning,
                v0.reason,
                v0.author.as_deref()
            ),
            (
                Judgement::Accepted,
                Via::Terminal,
                Some(Meaning::Review),
                None,
                Some("Ada")
            )
        );
        let v1 = back.basis[1].verdict.clone().unwrap();
        assert_eq!(
            (v1.judgement, v1.meaning, v1.reason.as_deref()),
            (
                Judgement::Rejected,
                Some(Meaning::Approval),
                Some("no chamfer on the drawing")
            )
        );
        assert_eq!(
            back.basis[2].verdict, None,
            "quit: the rest is not recorded"
        );
    }

    /// Found by enduser3: a verdict judges the item as stated (accepting a violated one
    /// confirms the violation: the Form 3's FAIL; rejecting says the item is wrong:
    /// INDETERMINATE), but the terminal said only "a: accept the item; r: reject it", and an
    /// engineer rejected a violated item to reject the part. A violated item says what
    /// accepting it means, and so does the help.
    #[test]
    fn a_violated_item_says_that_accepting_it_confirms_the_violation() {
        let mut store = Store::open_in_memory().unwrap();
        let mut d = stored(&mut store);
        d.basis[0].state = crate::review::State::Violated;
        let new = NewDecision {
            artifact: d.artifact.clone(),
            subject: d.subject.clone(),
            disposition: d.disposition.clone(),
            summary: None,
            basis: d.basis.clone(),
        };
        store.remember_decision(&new).unwrap();
        let mut input: &[u8] = b"?\ns\nq\n";
        let mut out = Vec::new();
        review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let hint = "state: violated (accepting confirms the violation; reject only if the item is wrong as stated)";
        assert_eq!(text.matches(hint).count(), 1, "{text}");
        assert!(
            text.contains("a: accept the item as stated (accepting a violated one confirms the violation); r: reject it (the item is wrong as stated);"),
            "{text}"
        );
    }

    /// Carries `d`'s revision, unchanged, to revision `cd…`, and returns that revision.
    fn carried_on(store: &mut Store, d: &Decision) -> crate::review::Artifact {
        let to = crate::review::Artifact {
            revision: format!("sha256:{}", "cd".repeat(32)),
            ..d.artifact.clone()
        };
        let plan = crate::store::CarryPlan {
            from: d.artifact.clone(),
            to: to.clone(),
            map: crate::review::carry::EntityMap::new(&[], &[]).unwrap(),
            change: None,
        };
        store
            .carry_forward_answered(&plan, |_| Ok::<_, StoreError>(()))
            .unwrap();
        to
    }

    /// A revision carried on (its decisions superseded) is not judged here: its review goes
    /// on at the later revision, which says what was judged at this one. The terminal said
    /// nothing of it and recorded the answers on the superseded decision.
    #[test]
    fn a_superseded_revision_is_not_judged_and_names_where_to() {
        let mut store = Store::open_in_memory().unwrap();
        let d = stored(&mut store);
        let to = carried_on(&mut store, &d);
        let mut input: &[u8] = b"a\na\na\n";
        let mut out = Vec::new();
        let tally = review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(tally.accepted, 0, "{text}");
        assert!(text.contains(&to.revision), "{text}");
        let back = store.get_decision(&d.id).unwrap().unwrap();
        assert!(back.basis.iter().all(|b| b.verdict.is_none()));
    }

    /// Regression: a revision whose review was carried on twice (A to B, then B to C) sent
    /// the engineer to B, where the review is carried on too, where `request_verdicts` names
    /// C, the revision the review stands at. It names C now, and the command for it.
    #[test]
    fn a_revision_carried_on_twice_names_where_the_review_stands_now() {
        let mut store = Store::open_in_memory().unwrap();
        let d = stored(&mut store);
        let b = carried_on(&mut store, &d);
        let c = crate::review::Artifact {
            revision: format!("sha256:{}", "ef".repeat(32)),
            ..b.clone()
        };
        let plan = crate::store::CarryPlan {
            from: b.clone(),
            to: c.clone(),
            map: crate::review::carry::EntityMap::new(&[], &[]).unwrap(),
            change: None,
        };
        store
            .carry_forward_answered(&plan, |_| Ok::<_, StoreError>(()))
            .unwrap();
        let mut input: &[u8] = b"a\na\na\n";
        let mut out = Vec::new();
        review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(&format!(
                "carried to revision {} and on to revision {} (carry_forward): judge it there",
                b.revision, c.revision
            )),
            "{text}"
        );
        assert!(text.contains(&format!("review {}", c.revision)), "{text}");
    }

    /// The same revision after the carried copy was forgotten at the later one: the terminal
    /// said to judge the decision there, where nothing is left. It says the copy was
    /// forgotten and to state the decision again, and records nothing.
    #[test]
    fn a_superseded_decision_whose_copy_was_forgotten_says_to_state_it_again() {
        let mut store = Store::open_in_memory().unwrap();
        let d = stored(&mut store);
        let to = carried_on(&mut store, &d);
        assert_eq!(
            store
                .forget_decision(to.locator(), &d.subject, &to.revision)
                .unwrap(),
            1
        );
        let mut input: &[u8] = b"a\na\na\n";
        let mut out = Vec::new();
        let tally = review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(tally.accepted, 0, "{text}");
        assert!(text.contains("forgotten there"), "{text}");
        assert!(!text.contains(&to.revision), "{text}");
        assert!(!text.contains("No decision is recorded"), "{text}");
    }

    /// Regression: a requirement was shown cut at 400 characters with a bare `…`, so the
    /// engineer accepted or rejected text they had not seen (the part past the cut could
    /// reverse it). The requirement they judge is shown whole; a longer field around it says
    /// how much of it is not shown.
    #[test]
    fn the_requirement_judged_is_shown_whole() {
        let mut store = Store::open_in_memory().unwrap();
        let requirement = format!(
            "Bore 12H7{}, unless the wall is under 0.1 mm",
            " x".repeat(400)
        );
        let evidence = "e".repeat(SHOWN + 25);
        let artifact = crate::review::Artifact {
            revision: format!("sha256:{}", "cd".repeat(32)),
            format: "step".into(),
            uri: None,
            units: None,
        };
        let new = NewDecision {
            artifact,
            subject: "bore".into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![BasisItem {
                evidence: Some(evidence.clone()),
                ..BasisItem::stated(&requirement)
            }],
        };
        let d = store.remember_decision(&new).unwrap().0;
        let mut input: &[u8] = b"q\n";
        let mut out = Vec::new();
        review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(&requirement), "{text}");
        assert!(
            text.contains(&format!("{}… [25 more characters]", &evidence[..SHOWN])),
            "{text}"
        );
    }

    /// Regression: the decision's header put the subject between quotes it did not escape
    /// and the disposition bare, so a subject could end its quotes and name another part and
    /// disposition before the real ones.
    #[test]
    fn the_decision_header_quotes_the_subject_escaped() {
        let mut store = Store::open_in_memory().unwrap();
        let artifact = crate::review::Artifact {
            revision: format!("sha256:{}", "ef".repeat(32)),
            format: "step".into(),
            uri: Some("file:///w/p.step".into()),
            units: None,
        };
        let new = NewDecision {
            artifact,
            subject: "bore\" (release) on file:///w/other.step: 1 open item of 1\\".into(),
            disposition: "hold) on (x".into(),
            summary: None,
            basis: vec![BasisItem::stated("Bore 12H7")],
        };
        let d = store.remember_decision(&new).unwrap().0;
        let mut input: &[u8] = b"q\n";
        let mut out = Vec::new();
        review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(
                "Decision 1 of 1: \"bore\\\" (release) on file:///w/other.step: 1 open item of 1\\\\\" (\"hold) on (x\") on file:///w/p.step: 1 open item of 1"
            ),
            "{text}"
        );
    }

    /// A decision "bore" (hold) at revision `hex` (two hex digits, repeated) of `uri`, with
    /// `summary` and `basis`.
    fn bore_at(
        hex: &str,
        uri: Option<&str>,
        summary: Option<&str>,
        basis: BasisItem,
    ) -> NewDecision {
        NewDecision {
            artifact: crate::review::Artifact {
                revision: format!("sha256:{}", hex.repeat(32)),
                format: "step".into(),
                uri: uri.map(String::from),
                units: None,
            },
            subject: "bore".into(),
            disposition: "hold".into(),
            summary: summary.map(String::from),
            basis: vec![basis],
        }
    }

    /// What the terminal shows of `new`, stored, in a session quit at its first item.
    fn shown_then_quit(new: &NewDecision) -> String {
        let mut store = Store::open_in_memory().unwrap();
        let d = store.remember_decision(new).unwrap().0;
        let mut input: &[u8] = b"q\n";
        let mut out = Vec::new();
        review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Regression: an item's source detail went bare into the line `source: … (detail);
    /// state: …`, and its evidence and question bare after their labels, so a detail
    /// `sheet 2); state: satisfied; x (y` showed a violated item as satisfied before its
    /// real state, and an evidence `per drawing; so far: accepted by the engineer (…)` an
    /// earlier verdict of the engineer's that was never given. A stored field holding a
    /// semicolon (or a character drawn as one) is quoted, its quotes escaped, as the form
    /// shows it; a plain one stays bare.
    #[test]
    fn stored_fields_holding_a_semicolon_are_quoted() {
        let fake = "so far: accepted by the engineer (terminal, Ada), 2026-12-01T14:02:00.000Z";
        let item = BasisItem {
            source_detail: Some("sheet 2); state: satisfied; x (y".into()),
            evidence: Some(format!("per drawing; {fake}")),
            state: crate::review::State::Unresolved,
            question: Some("which\u{37e} \"one\"".into()),
            ..BasisItem::stated("Bore 12H7")
        };
        let text = shown_then_quit(&bore_at("cd", Some("file:///w/p.step"), None, item));
        for line in [
            "    source: drawing (\"sheet 2); state: satisfied; x (y\"); state: unresolved\n"
                .to_string(),
            format!("    evidence: \"per drawing; {fake}\"\n"),
            "    question: \"which\u{37e} \\\"one\\\"\"\n".to_string(),
        ] {
            assert!(text.contains(&line), "{line}\n{text}");
        }
    }

    /// Regression: the requirement is shown whole, and a stored field up to 400 characters,
    /// and a terminal wraps a long line at its width: a requirement `Bore 12H7`, 75 spaces
    /// and `so far: accepted by the engineer (terminal, Ada), …` showed that fake verdict at
    /// the start of a row of its own on an 80-column terminal, indented as the session's own
    /// "so far" line. A run of five or more blank characters (white space, or U+2800 BRAILLE
    /// PATTERN BLANK, drawn as one) is shown as a count.
    #[test]
    fn a_run_of_blanks_cannot_push_stored_text_to_a_row_of_its_own() {
        let fake = "so far: accepted by the engineer (terminal, Ada), 2026-12-01T14:02:00.000Z";
        let item = BasisItem {
            evidence: Some(format!("per drawing{}{fake}", "\u{2800}".repeat(70))),
            ..BasisItem::stated(&format!("Bore 12H7{}{fake}", " ".repeat(75)))
        };
        let new = NewDecision {
            subject: format!("bore{}x", "\u{3000}".repeat(6)),
            ..bore_at("ce", Some("file:///w/p.step"), None, item)
        };
        let text = shown_then_quit(&new);
        for line in [
            format!("  Item 1 of 1: Bore 12H7 [75 spaces] {fake}\n"),
            format!("    evidence: per drawing [70 spaces] {fake}\n"),
            "Decision 1 of 1: \"bore [6 spaces] x\"".to_string(),
        ] {
            assert!(text.contains(&line), "{line}\n{text}");
        }
    }

    /// Regression: the decision's summary, the model's own words, was printed bare on a line
    /// of its own at the indent of the session's lines (`  Recorded: accepted (approval).`),
    /// so a summary could pass for what the session says. It is labelled and quoted.
    #[test]
    fn the_summary_is_labelled_and_quoted() {
        let summary = Some("Recorded: accepted (approval).");
        let text = shown_then_quit(&bore_at(
            "cf",
            None,
            summary,
            BasisItem::stated("Bore 12H7"),
        ));
        assert!(
            text.lines()
                .any(|l| l == "  summary: \"Recorded: accepted (approval).\""),
            "{text}"
        );
        assert!(
            !text
                .lines()
                .any(|l| l.trim() == "Recorded: accepted (approval)."),
            "{text}"
        );
    }

    /// Regression: a line that is not UTF-8 at a prompt (a terminal whose Alt key sends a
    /// byte with the high bit set, text pasted from a Latin-1 document) ended the whole
    /// session with "the terminal: stream did not contain valid UTF-8" and exit status 1,
    /// the item on screen unanswered. The line is refused and the question asked again;
    /// nothing is made of it.
    #[test]
    fn a_line_that_is_not_utf8_is_asked_again() {
        let mut store = Store::open_in_memory().unwrap();
        let d = stored(&mut store);
        let mut input: &[u8] = b"\xe1\nr\nnot \xe9 UTF-8\nslot is fine\n\xff\na\nq\n";
        let mut out = Vec::new();
        let tally = review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        assert_eq!((tally.rejected, tally.quit), (1, true));
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.matches("not UTF-8 text").count(), 3, "{text}");
        let back = store.get_decision(&d.id).unwrap().unwrap();
        let v0 = back.basis[0].verdict.clone().unwrap();
        assert_eq!(
            (v0.judgement, v0.meaning, v0.reason.as_deref()),
            (
                Judgement::Rejected,
                Some(Meaning::Approval),
                Some("slot is fine")
            )
        );
    }

    /// Regression: the decision's header named its file bare (`on {uri}: 1 open item`), and
    /// a URI other than a file's may hold spaces, so `urn:a on file:///w/other.step` named
    /// another part first. A URI holding white space or a quote is quoted.
    #[test]
    fn a_uri_with_spaces_is_quoted_in_the_header() {
        let uri = Some("urn:a on file:///w/other.step");
        let text = shown_then_quit(&bore_at("d0", uri, None, BasisItem::stated("Bore 12H7")));
        assert!(
            text.contains("Decision 1 of 1: \"bore\" (hold) on \"urn:a on file:///w/other.step\": 1 open item of 1"),
            "{text}"
        );
    }

    /// Input that, before it hands over line `at`, runs `meddle` (another process's write
    /// while the item is on the engineer's screen).
    struct Meddling<'a> {
        lines: Vec<Vec<u8>>,
        line: usize,
        pos: usize,
        at: usize,
        meddle: Option<Box<dyn FnOnce() + 'a>>,
    }

    impl io::Read for Meddling<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = {
                let got = self.fill_buf()?;
                let n = got.len().min(buf.len());
                buf[..n].copy_from_slice(&got[..n]);
                n
            };
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for Meddling<'_> {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            if self.line == self.at
                && let Some(meddle) = self.meddle.take()
            {
                meddle();
            }
            Ok(self
                .lines
                .get(self.line)
                .map_or(&[][..], |l| &l[self.pos..]))
        }
        fn consume(&mut self, n: usize) {
            self.pos += n;
            if self
                .lines
                .get(self.line)
                .is_some_and(|l| self.pos >= l.len())
            {
                self.line += 1;
                self.pos = 0;
            }
        }
    }

    /// A verdict given through another channel (the card) while the item is on the
    /// terminal's screen was overwritten by the terminal's answer without a word: the item's
    /// digest leaves its verdict out. Now the answer is not recorded, and the engineer is told.
    #[test]
    fn a_verdict_given_elsewhere_while_the_item_is_shown_is_not_overwritten() {
        let dir = std::env::temp_dir().join(format!("review-mcp-terminal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("review.db");
        let mut store = Store::open(&db).unwrap();
        let d = stored(&mut store);
        let digest = d.basis[0].digest();
        let id = d.id.clone();
        let db2 = db.clone();
        let mut input = Meddling {
            lines: ["a\n", "\n", "\n", "q\n"]
                .iter()
                .map(|l| l.as_bytes().to_vec())
                .collect(),
            line: 0,
            pos: 0,
            at: 2,
            meddle: Some(Box::new(move || {
                let mut other = Store::open(&db2).unwrap();
                let card = Verdict {
                    at: time::now(),
                    ..Verdict::given(Judgement::Rejected, Via::App)
                };
                let out = other
                    .record_verdicts(&DecisionRef::Id(&id), Shown::Item(&digest), &[(0, card)])
                    .unwrap();
                assert!(matches!(out, VerdictsOutcome::Recorded(_)), "{out:?}");
            })),
        };
        let mut out = Vec::new();
        let tally = review(&mut store, &d.artifact.revision, &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!((tally.accepted, tally.changed), (0, 1), "{text}");
        assert!(text.contains("Not recorded"), "{text}");
        let back = store.get_decision(&d.id).unwrap().unwrap();
        let v = back.basis[0].verdict.clone().unwrap();
        assert_eq!((v.judgement, v.via), (Judgement::Rejected, Via::App));
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A database file of its own for a test whose other connection writes meanwhile.
    fn on_file(name: &str) -> (std::path::PathBuf, std::path::PathBuf, Store) {
        let dir =
            std::env::temp_dir().join(format!("review-mcp-terminal-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("review.db");
        let store = Store::open(&db).unwrap();
        (dir, db, store)
    }

    /// `lines`, with `meddle` run before line `at` is handed over.
    fn meddling<'a>(lines: &[&str], at: usize, meddle: impl FnOnce() + 'a) -> Meddling<'a> {
        Meddling {
            lines: lines.iter().map(|l| l.as_bytes().to_vec()).collect(),
            line: 0,
            pos: 0,
            at,
            meddle: Some(Box::new(meddle)),
        }
    }

    /// A second decision at the same revision under another file (the same bytes saved
    /// twice): a carry of the first file leaves it where it is. Remembered first, so shown
    /// second.
    fn other_file(store: &mut Store) -> Decision {
        let new = NewDecision {
            artifact: crate::review::Artifact {
                revision: format!("sha256:{}", "ab".repeat(32)),
                format: "step".into(),
                uri: Some("file:///parts/copy.step".into()),
                units: None,
            },
            subject: "wall".into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![item("Wall 2 mm")],
        };
        store.remember_decision(&new).unwrap().0
    }

    /// Regression: a carry_forward run by another process while an item was on the screen
    /// made the next answer end the session with an error (the store refuses a verdict on
    /// a decision carried on), losing the rest of the review. Now that answer is not
    /// recorded, the engineer is told where the decision is judged now, and the session goes
    /// on to the next decision.
    #[test]
    fn a_decision_carried_on_while_shown_is_not_recorded_and_the_review_goes_on() {
        let (dir, db, mut store) = on_file("carried");
        let wall = other_file(&mut store);
        let d = stored(&mut store);
        let from = d.clone();
        let to = format!("sha256:{}", "cd".repeat(32));
        let db2 = db.clone();
        // Item 1 of "bore": accept, no reason, then the carry, then the meaning; then "wall".
        let mut input = meddling(&["a\n", "\n", "\n", "a\n", "\n", "\n"], 2, move || {
            let mut other = Store::open(&db2).unwrap();
            carried_on(&mut other, &from);
        });
        let mut out = Vec::new();
        let tally = review(&mut store, &d.artifact.revision, &mut input, &mut out);
        let text = String::from_utf8(out).unwrap();
        let tally = tally.unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!((tally.accepted, tally.changed), (1, 1), "{text}");
        assert!(text.contains("Not recorded"), "{text}");
        assert!(
            text.contains(&format!("carried to revision {to}")),
            "{text}"
        );
        assert!(text.contains("Done: 1 accepted"), "{text}");
        let back = store.get_decision(&d.id).unwrap().unwrap();
        assert!(back.basis.iter().all(|b| b.verdict.is_none()), "{back:?}");
        let wall = store.get_decision(&wall.id).unwrap().unwrap();
        assert_eq!(
            wall.basis[0].verdict.as_ref().map(|v| v.via),
            Some(Via::Terminal)
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A later decision of the session carried on, or judged in another channel, while an
    /// earlier one is answered: it was still asked from the list read at the start, and each
    /// answer then came back "Not recorded". Each decision is read again before it is shown:
    /// one carried on says where it is judged now and is not asked, an item judged meanwhile
    /// is not asked again.
    #[test]
    fn a_later_decision_changed_meanwhile_is_read_again_before_it_is_asked() {
        let (dir, db, mut store) = on_file("later");
        // Shown in this order: "wall" (answered while the carry runs), "bore" in the same
        // file (carried with it), "wall" in another file (judged in the card meanwhile).
        let copy = other_file(&mut store);
        let bore = stored(&mut store);
        let new = NewDecision {
            artifact: bore.artifact.clone(),
            subject: "wall".into(),
            disposition: "hold".into(),
            summary: None,
            basis: vec![item("Wall 2 mm")],
        };
        let first = store.remember_decision(&new).unwrap().0;
        let db2 = db.clone();
        let (from, copy_id, digest) = (first.clone(), copy.id.clone(), copy.basis[0].digest());
        let mut input = meddling(&["a\n", "\n", "\n", "a\n", "\n", "\n"], 2, move || {
            let mut other = Store::open(&db2).unwrap();
            carried_on(&mut other, &from);
            let card = Verdict {
                at: time::now(),
                ..Verdict::given(Judgement::Rejected, Via::App)
            };
            let out = other
                .record_verdicts(
                    &DecisionRef::Id(&copy_id),
                    Shown::Item(&digest),
                    &[(0, card)],
                )
                .unwrap();
            assert!(matches!(out, VerdictsOutcome::Recorded(_)), "{out:?}");
        });
        let mut out = Vec::new();
        let tally = review(&mut store, &first.artifact.revision, &mut input, &mut out);
        let text = String::from_utf8(out).unwrap();
        let tally = tally.unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!((tally.accepted, tally.changed), (0, 1), "{text}");
        assert!(
            text.contains(
                "Decision 2 of 3: \"bore\\u{1b}]0;owned\\u{7}\" was carried to revision sha256:cdcd"
            ),
            "{text}"
        );
        assert_eq!(text.matches("Verdict?").count(), 1, "{text}");
        let copy = store.get_decision(&copy.id).unwrap().unwrap();
        assert_eq!(
            copy.basis[0].verdict.as_ref().map(|v| v.via),
            Some(Via::App)
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The same, when the carried copy was also forgotten meanwhile: nowhere holds its
    /// review, so the engineer is told to state it again, not to judge it at a revision
    /// where nothing is left.
    #[test]
    fn a_decision_carried_on_and_forgotten_there_while_shown_says_to_state_it_again() {
        let (dir, db, mut store) = on_file("carried-forgotten");
        other_file(&mut store);
        let d = stored(&mut store);
        let from = d.clone();
        let db2 = db.clone();
        let mut input = meddling(&["a\n", "\n", "\n", "q\n"], 2, move || {
            let mut other = Store::open(&db2).unwrap();
            let to = carried_on(&mut other, &from);
            let n = other
                .forget_decision(to.locator(), &from.subject, &to.revision)
                .unwrap();
            assert_eq!(n, 1);
        });
        let mut out = Vec::new();
        let tally = review(&mut store, &d.artifact.revision, &mut input, &mut out);
        let text = String::from_utf8(out).unwrap();
        let tally = tally.unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(
            (tally.accepted, tally.changed, tally.quit),
            (0, 1, true),
            "{text}"
        );
        assert!(text.contains("Not recorded"), "{text}");
        assert!(text.contains("forgotten there"), "{text}");
        assert!(text.contains("state it again"), "{text}");
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A decision forgotten, or replaced with other items, while shown: the answer is not
    /// recorded, the engineer is told which, and the session goes on: with the decision as
    /// it is now (replaced), or with the next one (forgotten).
    #[test]
    fn a_decision_forgotten_or_replaced_while_shown_is_not_recorded_and_the_review_goes_on() {
        for replace in [false, true] {
            let (dir, db, mut store) = on_file(if replace { "replaced" } else { "forgotten" });
            let wall = other_file(&mut store);
            let d = stored(&mut store);
            let from = d.clone();
            let db2 = db.clone();
            let mut input = meddling(
                &["a\n", "\n", "\n", "a\n", "\n", "\n", "a\n", "\n", "\n"],
                2,
                move || {
                    let mut other = Store::open(&db2).unwrap();
                    if replace {
                        let new = NewDecision {
                            artifact: from.artifact.clone(),
                            subject: from.subject.clone(),
                            disposition: "release".into(),
                            summary: None,
                            basis: vec![item("Bore 12H8")],
                        };
                        other.remember_decision(&new).unwrap();
                    } else {
                        let n = other
                            .forget_decision(
                                from.artifact.locator(),
                                &from.subject,
                                &from.artifact.revision,
                            )
                            .unwrap();
                        assert_eq!(n, 1);
                    }
                },
            );
            let mut out = Vec::new();
            let tally = review(&mut store, &d.artifact.revision, &mut input, &mut out);
            let text = String::from_utf8(out).unwrap();
            let tally = tally.unwrap_or_else(|e| panic!("{e}: {text}"));
            // Replaced: shown again as it is now, its new item asked (and accepted).
            let accepted = if replace { 2 } else { 1 };
            assert_eq!((tally.accepted, tally.changed), (accepted, 1), "{text}");
            assert_eq!(text.contains("Item 1 of 1: Bore 12H8"), replace, "{text}");
            assert!(text.contains("Not recorded"), "{text}");
            assert!(
                text.contains(if replace { "replaced" } else { "forgotten" }),
                "{text}"
            );
            let wall = store.get_decision(&wall.id).unwrap().unwrap();
            assert_eq!(
                wall.basis[0].verdict.as_ref().map(|v| v.via),
                Some(Via::Terminal),
                "{text}"
            );
            drop(store);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    /// Regression: an item judged in another channel (the card) while the terminal showed it
    /// made the terminal drop the rest of that decision ("Run review-mcp review again"),
    /// where the card shows the decision again and lets the engineer go on. Now the answer is
    /// not recorded, the decision is shown again as it is now, and its other open items are
    /// asked; an item skipped before is not asked again.
    #[test]
    fn after_an_answer_not_recorded_the_decision_is_shown_again_and_its_other_items_asked() {
        let (dir, db, mut store) = on_file("shown-again");
        let d = stored(&mut store);
        let (id, digest, db2) = (d.id.clone(), d.basis[1].digest(), db.clone());
        // Item 1 skipped; item 2 accepted while the card rejects it; then item 3.
        let lines = ["s\n", "a\n", "\n", "\n", "r\n", "\n", "a\n"];
        let mut input = meddling(&lines, 3, move || {
            let mut other = Store::open(&db2).unwrap();
            let card = Verdict {
                at: time::now(),
                ..Verdict::given(Judgement::Rejected, Via::App)
            };
            let out = other
                .record_verdicts(&DecisionRef::Id(&id), Shown::Item(&digest), &[(1, card)])
                .unwrap();
            assert!(matches!(out, VerdictsOutcome::Recorded(_)), "{out:?}");
        });
        let mut out = Vec::new();
        let tally = review(&mut store, &d.artifact.revision, &mut input, &mut out);
        let text = String::from_utf8(out).unwrap();
        let tally = tally.unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(
            (tally.skipped, tally.changed, tally.rejected, tally.quit),
            (1, 1, 1, false),
            "{text}"
        );
        assert!(text.contains("shown again below as it is now"), "{text}");
        assert!(text.contains("1 open item of 3"), "{text}");
        let back = store.get_decision(&d.id).unwrap().unwrap();
        let via = |i: usize| back.basis[i].verdict.as_ref().map(|v| (v.via, v.judgement));
        assert_eq!(via(0), None, "skipped, not asked again: {text}");
        assert_eq!(via(1), Some((Via::App, Judgement::Rejected)), "{text}");
        assert_eq!(via(2), Some((Via::Terminal, Judgement::Rejected)), "{text}");
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Regression: the terminal asked again about items a carry inherited with the engineer's
    /// verdict at the earlier revision, which `request_verdicts` leaves aside by default (found
    /// driving a real review): the channels disagreed on what awaits the engineer. Both now ask
    /// by one rule (`Decision::awaiting_engineer`), and the terminal says what it left aside.
    #[test]
    fn items_inherited_with_the_engineers_verdict_are_not_asked_again() {
        let mut store = Store::open_in_memory().unwrap();
        store.set_author(Some("Ada".into()));
        let d = stored(&mut store);
        let verdict = |judgement| Verdict {
            meaning: Some(Meaning::Review),
            author: Some("Ada".into()),
            at: time::now(),
            judgement,
            reason: None,
            via: Via::Terminal,
        };
        for (i, judgement) in [(0, Judgement::Accepted), (1, Judgement::Rejected)] {
            let shown = d.basis[i].digest();
            store
                .record_verdicts(
                    &DecisionRef::Id(&d.id),
                    Shown::Item(&shown),
                    &[(i, verdict(judgement))],
                )
                .unwrap();
        }
        let to = carried_on(&mut store, &d);
        let mut input: &[u8] = b"q\n";
        let mut out = Vec::new();
        review(&mut store, &to.revision, &mut input, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("1 open item of 3")
                && text.contains("2 items inherited by carry_forward with your verdict at an earlier revision are not asked again")
                && text.contains("Thread M6")
                && !text.contains("Bore 12H7"),
            "{text}"
        );
        // With nothing else open, nothing is asked, and the line says why.
        let mut input: &[u8] = b"a\n\n\n";
        let mut out = Vec::new();
        review(&mut store, &to.revision, &mut input, &mut out).unwrap();
        let mut out = Vec::new();
        review(&mut store, &to.revision, &mut &b""[..], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("Nothing to ask: every item of the 1 decision here has your verdict already, or is inherited with it. 2 items inherited"),
            "{text}"
        );
    }

    /// Issue 28: items carried from an earlier revision to re-verify are asked first; an
    /// inherited one keeps its place.
    #[test]
    fn items_to_re_verify_come_first() {
        use crate::review::{Carried, CarryState};
        let mut store = Store::open_in_memory().unwrap();
        let mut d = stored(&mut store);
        let carried = |state| Carried {
            changed: vec!["face:3".into()],
            from: format!("sha256:{}", "cd".repeat(32)),
            ids_of: None,
            state,
            unmapped: vec![],
            verdict: None,
        };
        d.basis[0].carried = Some(carried(CarryState::Inherited));
        d.basis[2].carried = Some(carried(CarryState::Reverify));
        assert_eq!(open_items(&d, &[]), vec![2, 0, 1]);
        let mut out = Vec::new();
        show_item(&mut out, &d, 2, &[]).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("re-verify first; changed: face:3"), "{text}");
    }

    /// An item judged after a carry lost all its ids (`not_carried`) is shown naming them,
    /// never as about the whole part (an item with no faces shows no faces line).
    #[test]
    fn an_item_that_lost_its_ids_to_a_carry_names_them() {
        use crate::review::NotCarried;
        let mut store = Store::open_in_memory().unwrap();
        let mut d = stored(&mut store);
        let of = format!("sha256:{}", "cd".repeat(32));
        d.basis[1].faces = vec![];
        d.basis[1].not_carried = Some(NotCarried {
            ids: vec!["face:10".into(), "face:11".into()],
            of: of.clone(),
        });
        let mut out = Vec::new();
        show_item(&mut out, &d, 1, &[]).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(&format!(
                "    faces: none at this revision (face:10, face:11 of revision {of} not carried)\n"
            )),
            "{text}"
        );
    }
}
