//! The Markdown review report of a revision view, and the escaping that keeps stored text
//! from adding Markdown of its own.

use std::fmt::Write as _;

use super::view::RevisionView;

/// The call that pages through a revision's decisions, for an answer that left some out: its
/// revision alone (an artifact with the file's uri pages through the file's current
/// decisions, and a revision carried on has none current) and every decision, not only the
/// current ones.
pub(super) const DECISIONS_PAGED: &str = "recall_decisions with this revision alone as its artifact (no uri) and current_only: false pages through them";
/// The same for a revision's records.
pub(super) const RECORDS_PAGED: &str =
    "recall with this revision alone as its artifact (no uri) pages through them";
use super::{display_name, plural};
use crate::review::carry::{entities_label, short_revision};
use crate::review::decision::AUTHOR_SHOWN;
use crate::review::{BasisItem, CarryState, Decision, Meaning, Record, State, Verdict};

impl RevisionView {
    /// The Markdown report. Every stored string (ids, timestamps and the revision included:
    /// an imported file can carry anything) goes through [`line`], [`cell`] or [`code`], so
    /// no field can add, end or hide a heading, list, table, link or HTML of its own.
    pub(super) fn report(&self) -> String {
        let mut out = String::new();
        let uri = self
            .records
            .iter()
            .map(|r| &r.artifact)
            .chain(self.decisions.iter().map(|d| &d.artifact))
            .find_map(|a| a.uri.as_deref());
        let _ = writeln!(
            out,
            "# Review report: {}\n",
            line(&display_name(uri, &self.revision))
        );
        let _ = writeln!(out, "- Revision: {}", code(&self.revision));
        if let Some(u) = uri {
            let _ = writeln!(out, "- File: {}", line(u));
        }
        for (rev, change) in &self.supersession.supersedes {
            let _ = writeln!(
                out,
                "- Supersedes revision {}{}: its review was carried here (carry_forward); what it \
                 said is inherited or to re-verify below, not a result of this revision.",
                code(rev),
                change_text(change.as_deref())
            );
        }
        if let Some((rev, change)) = &self.supersession.superseded_by {
            let _ = writeln!(
                out,
                "- Superseded by revision {}{}: this review was carried there; what it says here \
                 stays as it was.",
                code(rev),
                change_text(change.as_deref())
            );
            // Carried on from there too: where the review stands now (as the card, the
            // terminal and `show_review`'s line say), not only the next revision.
            if let Some(now) = self
                .decisions
                .iter()
                .find_map(|d| self.stands_at.get(&d.id))
            {
                let _ = writeln!(
                    out,
                    "  It was carried on to revision {} since: the review stands there.",
                    code(now)
                );
            }
        }
        // Every other revision the sections name by its short form, whole once here: an item
        // inherited twice names the revision it was verified at, which no line above says.
        for rev in self.named_short() {
            let _ = writeln!(
                out,
                "- Revision {} is named below by its short form (`sha256:` and 12 hex digits).",
                code(&rev)
            );
        }
        // The revision's counts, not what fits here (the sections say what is not shown).
        let (records, decisions) = self.totals();
        let _ = writeln!(
            out,
            "- {} and {} at this revision.\n",
            plural(decisions, "decision"),
            plural(records, "record")
        );
        // An engineer's verdict given at the earlier revision after the carry (a clone's,
        // by sync): the items below do not show it in their history.
        for (_, subject, a) in &self.after_carry {
            let _ = writeln!(out, "- After the carry: {}.", line(&a.sentence(subject)));
        }
        if !self.after_carry.is_empty() {
            out.push('\n');
        }
        out.push_str(
            "This report is the review's own account: requirements as stated and evidence as \
             quoted. This server never measures; take numbers from the geometry.\n\n",
        );
        self.report_worklist(&mut out);
        self.report_decisions(&mut out);
        self.report_open_questions(&mut out);
        self.report_records(&mut out);
        self.report_stale(&mut out);
        out
    }

    /// The revisions the report names only by their short form (`carry::short_revision`):
    /// where a carried item was verified and what its ids are of, and the revision an item was
    /// carried on to, but for those its header says whole. In the order the items name them.
    fn named_short(&self) -> Vec<String> {
        let mut whole: Vec<&str> = vec![self.revision.as_str()];
        whole.extend(self.supersession.supersedes.iter().map(|(r, _)| r.as_str()));
        whole.extend(
            self.supersession
                .superseded_by
                .iter()
                .map(|(r, _)| r.as_str()),
        );
        whole.extend(self.stands_at.values().map(String::as_str));
        let carried = self
            .records
            .iter()
            .chain(&self.stale_records)
            .flat_map(|r| {
                let c = r
                    .carried
                    .iter()
                    .flat_map(|c| [Some(&c.from), c.ids_of.as_ref()]);
                c.chain([r.superseded.as_ref().map(|s| &s.by)])
            })
            .chain(
                self.decisions
                    .iter()
                    .chain(&self.stale_decisions)
                    .flat_map(|d| &d.basis)
                    .flat_map(|b| b.carried.iter())
                    .flat_map(|c| [Some(&c.from), c.ids_of.as_ref()]),
            )
            .flatten();
        let mut named = Vec::new();
        for rev in carried {
            if !whole.contains(&rev.as_str()) && !named.contains(rev) {
                named.push(rev.clone());
            }
        }
        named
    }

    /// For a carried revision: what must be re-verified first, then what is inherited (from
    /// which revision, with the engineer's verdict there as history), then how much was
    /// stated at this revision.
    fn report_worklist(&self, out: &mut String) {
        let mut re_verify = Vec::new();
        let mut inherited = Vec::new();
        let mut fresh = 0usize;
        // Basis items stated here, and those of them the engineer has judged here: stated is
        // not verified, and the line must not let the one read as the other.
        let (mut fresh_items, mut judged) = (0u64, 0u64);
        for r in &self.records {
            let name = match &r.name {
                Some(n) => format!("**{}** (feature)", line(n)),
                None => format!("Note {}", code(&r.id)),
            };
            match &r.carried {
                Some(c) if c.state == CarryState::Reverify => {
                    re_verify.push(format!("- {name}: {}", line(&c.describe())));
                }
                Some(c) => inherited.push(format!("- {name}: {}", line(&c.describe()))),
                None => fresh += 1,
            }
        }
        for d in &self.decisions {
            for (i, b) in d.basis.iter().enumerate() {
                let item = format!(
                    "- Decision **{}**, item {}: {}",
                    line(&d.subject),
                    i + 1,
                    line(&b.requirement)
                );
                match &b.carried {
                    Some(c) if c.state == CarryState::Reverify => {
                        re_verify.push(format!("{item}: {}", line(&c.describe())));
                    }
                    Some(c) => inherited.push(format!("{item}: {}", line(&c.describe()))),
                    None => {
                        fresh += 1;
                        fresh_items += 1;
                        if b.verdict.as_ref().is_some_and(|v| v.via.is_engineer()) {
                            judged += 1;
                        }
                    }
                }
            }
        }
        if re_verify.is_empty() && inherited.is_empty() {
            return;
        }
        out.push_str("## Worklist\n\n");
        out.push_str(
            "Carried from an earlier revision: no result or verdict of that revision counts as \
             one of this revision until it is stated again here.\n\n",
        );
        for (heading, lines) in [
            ("### Re-verify first", &re_verify),
            ("\n### Inherited, not re-verified", &inherited),
        ] {
            let _ = writeln!(out, "{heading} ({})\n", lines.len());
            for l in lines {
                let _ = writeln!(out, "{l}");
            }
            if lines.is_empty() {
                out.push_str("None.\n");
            }
        }
        let judged = if fresh_items > 0 {
            format!(
                "; the engineer has judged {judged} of its {} here",
                plural(fresh_items, "basis item")
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "\n### Stated at this revision\n\n{} stated at this revision{judged}.\n",
            plural(fresh as u64, "item")
        );
    }

    fn report_decisions(&self, out: &mut String) {
        let _ = writeln!(out, "## Decisions\n");
        if self.decisions.is_empty() {
            out.push_str("No decision recorded for this revision.\n\n");
        }
        for d in &self.decisions {
            let _ = writeln!(out, "### {}: {}\n", line(&d.subject), line(&d.disposition));
            if let Some(s) = &d.summary {
                let _ = writeln!(out, "{}\n", line(s));
            }
            if let Some(c) = &d.carried {
                let _ = writeln!(
                    out,
                    "Carried from decision {} at revision {}{}, whose disposition there was {}: \
                     not restated as a disposition of this revision.\n",
                    code(&c.source),
                    code(&c.from),
                    change_text(c.change.as_deref()),
                    // Quoted with its own quotes escaped: it cannot end them and go on as
                    // the report's words.
                    line(&crate::text::quoted(&c.disposition, usize::MAX))
                );
            }
            if let Some(sup) = &d.superseded {
                let _ = writeln!(
                    out,
                    "Superseded by revision {}{}.\n",
                    code(&sup.by),
                    change_text(sup.change.as_deref())
                );
            }
            // The decision's author is who last stated it (remember_decision, a carry, an
            // import or sync of a version), not who updated it last: an engineer's verdict
            // moves `updated_at` and names its own author in its cell and the trail.
            let by = d
                .author
                .as_deref()
                .map(|a| format!("; stated by {}", line(&crate::text::who(a, AUTHOR_SHOWN))))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "Recorded {}, updated {}{by}. Id {}.\n",
                line(&d.created_at),
                line(&d.updated_at),
                code(&d.id)
            );
            if d.basis.is_empty() {
                out.push_str("No basis recorded.\n\n");
                self.report_trail(out, d);
                continue;
            }
            let accepted = count_verdicts(d, "accepted");
            let rejected = count_verdicts(d, "rejected");
            // Awaiting the engineer: no verdict of theirs (none, or the assistant's relayed
            // one), as `request_verdicts` and the terminal count them.
            let pending = d.basis.iter().filter(|b| b.awaits_engineer()).count();
            let engineer = d
                .basis
                .iter()
                .filter(|b| b.verdict.as_ref().is_some_and(|v| v.via.is_engineer()))
                .count();
            let relayed = accepted + rejected - engineer;
            let _ = writeln!(
                out,
                "Verdicts: {accepted} accepted, {rejected} rejected ({engineer} given by the engineer, {relayed} relayed by the assistant), {pending} awaiting the engineer.\n"
            );
            out.push_str("| # | Requirement | Source | State | Evidence | Faces | Verdict |\n");
            out.push_str("|---|---|---|---|---|---|---|\n");
            for (i, b) in d.basis.iter().enumerate() {
                let source = match &b.source_detail {
                    Some(detail) => format!("{} ({})", b.source.as_str(), detail),
                    None => b.source.as_str().to_string(),
                };
                let verdict = match (&b.verdict, &b.carried) {
                    (Some(v), _) => verdict_text(v),
                    (None, Some(c)) => format!("pending at this revision ({})", c.describe()),
                    (None, None) => "pending".to_string(),
                };
                let faces = b.entities_label(short_revision);
                let evidence = b.evidence.as_deref().unwrap_or("");
                // A carried item's state and evidence are the earlier revision's, not results
                // of this one: labelled so, as the terminal, the form and the Form 3 do.
                let state = state_label(b);
                let evidence = match &b.carried {
                    Some(c) if !evidence.is_empty() => {
                        format!("at revision {}: {evidence}", short_revision(&c.from))
                    }
                    _ => evidence.to_string(),
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    i + 1,
                    cell(&b.requirement),
                    cell(&source),
                    state,
                    cell(&evidence),
                    cell(&faces),
                    cell(&verdict)
                );
            }
            out.push('\n');
            self.report_trail(out, d);
        }
        if self.omitted_decisions > 0 {
            let _ = writeln!(
                out,
                "{} more not shown: {}.\n",
                plural(self.omitted_decisions as u64, "decision"),
                DECISIONS_PAGED
            );
        }
    }

    /// The decision's trail: its latest changes, one line each, newest first; how many
    /// earlier ones there are and where they are read; and, for a decision that began before
    /// the history did, that its earlier changes were not recorded.
    fn report_trail(&self, out: &mut String, d: &Decision) {
        let Some(t) = self.trails.get(&d.id) else {
            return;
        };
        out.push_str("History, newest first:\n\n");
        for e in &t.events {
            let _ = writeln!(out, "- {}", line(&e.line()));
        }
        let shown = u64::try_from(t.events.len()).unwrap_or(u64::MAX);
        let earlier = t.total.saturating_sub(shown);
        if earlier > 0 {
            let _ = writeln!(
                out,
                "- {}: review\\_history with id {}",
                plural(earlier, "earlier change"),
                code(&d.id)
            );
        }
        if t.earlier_unrecorded {
            let _ = writeln!(
                out,
                "- Changes before {} were not recorded (this history began then).",
                line(self.history_since.as_deref().unwrap_or("this version"))
            );
        } else if t.events.is_empty() {
            out.push_str("- No change recorded.\n");
        }
        out.push('\n');
    }

    fn report_open_questions(&self, out: &mut String) {
        let _ = writeln!(out, "## Open questions\n");
        let mut any = false;
        for d in &self.decisions {
            for b in &d.basis {
                if matches!(b.state, State::Unresolved | State::Conflicting) {
                    any = true;
                    let _ = writeln!(
                        out,
                        "- **{}** ({}, {}): {}. Question: {}",
                        line(&d.subject),
                        state_label(b),
                        b.source.as_str(),
                        line(&b.requirement),
                        line(b.question.as_deref().unwrap_or(""))
                    );
                }
            }
        }
        out.push_str(if any { "\n" } else { "None.\n\n" });
    }

    fn report_records(&self, out: &mut String) {
        let _ = writeln!(out, "## Features and notes\n");
        if self.records.is_empty() {
            out.push_str("None recorded for this revision.\n\n");
            return;
        }
        for r in &self.records {
            out.push_str(&record_line(r));
        }
        if self.omitted_records > 0 {
            let _ = writeln!(
                out,
                "- … and {} more: {}.",
                plural(self.omitted_records as u64, "record"),
                RECORDS_PAGED
            );
        }
        out.push('\n');
    }

    fn report_stale(&self, out: &mut String) {
        let _ = writeln!(out, "## Stale against this revision\n");
        if self.stale_records.is_empty() && self.stale_decisions.is_empty() {
            out.push_str("Nothing recorded for these files at other revisions.\n");
            return;
        }
        out.push_str(
            "Written for the same files at other revisions. Entity ids do not travel between \
             revisions: re-check these claims against this revision before relying on them.\n\n",
        );
        for d in &self.stale_decisions {
            let _ = writeln!(
                out,
                "- Decision **{}**: {} (at {}, updated {})",
                line(&d.subject),
                line(&d.disposition),
                code(&d.artifact.revision),
                line(&d.updated_at)
            );
        }
        for r in &self.stale_records {
            let text = record_line(r);
            let _ = writeln!(
                out,
                "{} (at {})",
                text.trim_end(),
                code(&r.artifact.revision)
            );
        }
    }
}

/// ` (change: …)` when a change was given.
fn change_text(change: Option<&str>) -> String {
    change
        .map(|c| format!(" (change: {})", line(&crate::text::prefix_chars(c, 200))))
        .unwrap_or_default()
}

fn record_line(r: &Record) -> String {
    let mut s = String::from("- ");
    match &r.name {
        Some(n) => {
            let _ = write!(s, "**{}** (feature)", line(n));
        }
        None => s.push_str("Note"),
    }
    if let Some(note) = &r.note {
        let _ = write!(s, ": {}", line(note));
    }
    if !r.tags.is_empty() {
        let _ = write!(s, " [tags: {}]", line(&r.tags.join(", ")));
    }
    if r.entity_ids.is_empty() {
        let unmapped = r.carried.as_ref().map_or(&[][..], |c| &c.unmapped[..]);
        let _ = write!(s, " ({})", entities_label(&[], unmapped, None));
    } else {
        let shown: Vec<&str> = r.entity_ids.iter().take(10).map(String::as_str).collect();
        let more = r.entity_ids.len().saturating_sub(shown.len());
        let _ = write!(s, " ({}: {}", line(&r.id_scheme), line(&shown.join(", ")));
        if more > 0 {
            let _ = write!(s, " and {more} more");
        }
        s.push(')');
    }
    if let Some(a) = &r.author {
        let _ = write!(s, " — by {}", line(&crate::text::who(a, AUTHOR_SHOWN)));
    }
    if let Some(c) = &r.carried {
        let _ = write!(s, " — {}", line(&c.describe()));
    }
    if let Some(sup) = &r.superseded {
        let _ = write!(
            s,
            " — superseded by revision {}",
            line(&short_revision(&sup.by))
        );
    }
    s.push('\n');
    s
}

/// A basis item's state as the report gives it: a carried item's is the earlier revision's,
/// so it reads "re-verify (satisfied there)", as the terminal, the form and the Form 3 say it.
fn state_label(b: &BasisItem) -> String {
    match &b.carried {
        Some(c) => format!("{} ({} there)", c.state.as_str(), b.state.as_str()),
        None => b.state.as_str().to_string(),
    }
}

/// A verdict with who gave it and when: the engineer's own (through the form or the review
/// card) reads differently from one the assistant relayed.
///
/// An engineer's verdict is an attestation: who (the name, when the server that took it had
/// one), when (to the minute, UTC) and what it means (a review unless they said approval).
fn verdict_text(v: &Verdict) -> String {
    let when = match (v.at.get(..10), v.at.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time} UTC"),
        _ => v.at.clone(),
    };
    let who = v.given_through();
    let meaning = if v.via.is_engineer() {
        format!(
            ", meaning {}",
            v.meaning.unwrap_or(Meaning::Review).as_str()
        )
    } else {
        String::new()
    };
    let mut text = format!("{}{who}, {when}{meaning}", v.judgement.as_str());
    // Quoted, as the terminal and the Form 3 give it: it cannot go on as the cell's words.
    if let Some(r) = &v.reason {
        text.push_str(": ");
        text.push_str(&crate::text::quoted(r, usize::MAX));
    }
    text
}

fn count_verdicts(d: &Decision, judgement: &str) -> usize {
    d.basis
        .iter()
        .filter(|b| {
            b.verdict
                .as_ref()
                .is_some_and(|v| v.judgement.as_str() == judgement)
        })
        .count()
}

/// User text as inline Markdown on one line: it renders as exactly its characters, with line
/// breaks shown as spaces and the ends trimmed (a NUL shows as U+FFFD, as CommonMark renders
/// it anyway), and every other control and bidirectional character but a tab shown as an
/// escape (`\u{202e}`), as the Form 3 and the terminal show them.
///
/// Backslash escapes (CommonMark §2.4: any ASCII punctuation may be escaped) defuse every
/// character that starts inline syntax anywhere: `\`, backticks, `*`, `_`, `~`, `[`, `]`, `<`
/// (HTML, comments, autolinks), `&` (entity references), `#` (a heading's closing sequence)
/// and `$` (math, which GitHub renders). A block can only start where a line starts, and no
/// user text follows a newline, but the first character is defused too (`>`, `-`, `+`, `=`,
/// `|`, and the `.` or `)` after leading digits), so the text is safe wherever it is put.
fn line(s: &str) -> String {
    escape(s, false)
}

/// User text inside a table cell: as [`line`], and `|` escaped so it cannot end the cell.
fn cell(s: &str) -> String {
    escape(s, true)
}

/// An identifier (id, revision) as a code span when it is plain, else as [`line`] text: a
/// code span shows its content raw, so only characters that cannot end it or break the line
/// are allowed in one.
fn code(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
    if plain { format!("`{s}`") } else { line(s) }
}

fn escape(s: &str, in_cell: bool) -> String {
    let mut folded = String::with_capacity(s.len());
    crate::text::each_shown(s, |c, escaped| match c {
        '\n' | '\r' => folded.push(' '),
        '\0' => folded.push('\u{FFFD}'),
        '\t' => folded.push('\t'),
        // Shown, not obeyed: an escape sequence or a C1 control would act on whatever shows
        // the Markdown raw, a bidirectional control would reorder the rest of the report's
        // line, and a tower of combining marks would cover the lines around it. The
        // backslash of `\u{…}` is then escaped below like any.
        c if escaped => {
            let _ = write!(folded, "\\u{{{:x}}}", c as u32);
        }
        c => folded.push(c),
    });
    let text = folded.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 2);
    for (i, c) in text.char_indices() {
        let special = matches!(
            c,
            '\\' | '`' | '*' | '_' | '~' | '[' | ']' | '<' | '&' | '#' | '$'
        ) || (in_cell && c == '|')
            || (i == 0 && matches!(c, '>' | '-' | '+' | '=' | '|'))
            || (digits > 0 && i == digits && matches!(c, '.' | ')'));
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_escapes_pipes_and_newlines() {
        assert_eq!(cell("a|b\nc"), "a\\|b c");
        assert_eq!(line("# heading"), "\\# heading");
        assert_eq!(line("1. item <!-- x"), "1\\. item \\<!-- x");
        assert_eq!(code("rec_0a"), "`rec_0a`");
        assert_eq!(code("a`b"), "a\\`b");
    }
}
