//! The stored review as resources: templates, the list of revisions, and reads.
//!
//! URIs (all `review://`):
//! - `review://revisions/{revision}`: everything recorded for a revision, as JSON, plus what
//!   was written for the same files at other revisions (stale against this one);
//! - `review://revisions/{revision}/report`: the same as a Markdown review report;
//! - `review://records/{id}` and `review://decisions/{id}`: one record or decision as JSON.
//!
//! A URI that is malformed, names an unknown id, or a revision with nothing recorded is "not
//! found" (the adapters answer -32002 or -32602 by era). Reads have no current revision, so
//! a record read by id carries `stale: null`; inside a revision resource `stale` is judged
//! against that revision.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::review::json::{JsonOut, MAX_ANSWER_ITEMS_BYTES};
use crate::review::{Decision, Record, State, is_revision};
use crate::store::{DecisionQuery, PageRequest, RecordQuery, Store, StoreError};
use crate::text::first_chars;

const SCHEME: &str = "review://";
const REVISIONS: &str = "review://revisions/";
const RECORDS: &str = "review://records/";
const DECISIONS: &str = "review://decisions/";
const REPORT_SUFFIX: &str = "/report";
const JSON: &str = "application/json";
const MARKDOWN: &str = "text/markdown";

/// Revisions per `resources/list` page.
const LIST_PAGE_SIZE: usize = 50;
/// At most this many records and decisions of a revision are inlined in one read; the rest
/// are counted, and `recall` pages through all of them.
const READ_CAP: usize = 500;
/// At most this many stale records or decisions per file are listed in a revision read.
const STALE_CAP: usize = 100;
/// What the items of one revision read may cost, counted as the answer bytes of their
/// compact JSON (see `JsonOut::answer_bytes`): a quarter of the answer bound, so that the
/// pretty-printed JSON (indented, then escaped into the answer) and the Markdown report
/// (escaped for the renderer) stay well under it. [`fit`] checks the text itself anyway.
const VIEW_BUDGET: usize = MAX_ANSWER_ITEMS_BYTES / 4;

/// Why a resource operation failed.
#[derive(Debug, PartialEq)]
pub enum ResourceError {
    /// Unknown or malformed URI: -32002 (legacy) or -32602 with `data.uri` (modern).
    NotFound,
    InvalidCursor,
    Storage(String),
}

impl From<StoreError> for ResourceError {
    fn from(e: StoreError) -> Self {
        ResourceError::Storage(e.user_message())
    }
}

/// Every resource template (`uriTemplate`, `name`, `title`, `description`, `mimeType`).
pub fn templates() -> Vec<Value> {
    vec![
        json!({
            "uriTemplate": "review://revisions/{revision}",
            "name": "revision",
            "title": "Everything recorded for a revision",
            "description": "Records and decisions written for one part revision (sha256:<64 hex>), each marked stale against it, plus what was written for the same files at other revisions.",
            "mimeType": JSON,
        }),
        json!({
            "uriTemplate": "review://revisions/{revision}/report",
            "name": "revision-report",
            "title": "Review report for a revision",
            "description": "A Markdown review report a person reads: decisions with their basis as a table, open questions, verdicts, remembered features and notes, and what is stale against this revision.",
            "mimeType": MARKDOWN,
        }),
        json!({
            "uriTemplate": "review://records/{id}",
            "name": "record",
            "title": "One remembered feature or note",
            "description": "A record by its id, as recall returns it (stale is null: no current revision is supplied).",
            "mimeType": JSON,
        }),
        json!({
            "uriTemplate": "review://decisions/{id}",
            "name": "decision",
            "title": "One review decision",
            "description": "A decision by its id with its whole basis, as recall_decisions returns it (stale is null).",
            "mimeType": JSON,
        }),
    ]
}

/// One page of `resources/list`: one entry per revision with records or decisions, most
/// recent activity first, and the cursor of the next page.
///
/// The cursor is `r1.<last_seq>.<revision>` of the last entry served: a revision written to
/// during paging moves to the front and is not served twice.
pub fn list(
    store: &mut Store,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), ResourceError> {
    let after = cursor.map(parse_list_cursor).transpose()?;
    let revisions = store.revisions()?;
    let remaining = revisions.into_iter().filter(|r| match &after {
        // Order: last_seq DESC, then revision ASC.
        Some((seq, rev)) => r.last_seq < *seq || (r.last_seq == *seq && r.revision > *rev),
        None => true,
    });
    let mut page = Vec::new();
    let mut more = false;
    for summary in remaining {
        if page.len() == LIST_PAGE_SIZE {
            more = true;
            break;
        }
        page.push(summary);
    }
    let next = match (more, page.last()) {
        (true, Some(last)) => Some(format!("r1.{}.{}", last.last_seq, last.revision)),
        _ => None,
    };
    let mut items = Vec::with_capacity(page.len());
    for s in &page {
        let uri = store.revision_uri(&s.revision)?;
        let name = display_name(uri.as_deref(), &s.revision);
        items.push(json!({
            "uri": format!("{REVISIONS}{}", s.revision),
            "name": name,
            "title": format!("Review of {name}"),
            "description": format!(
                "{} and {} recorded for {}; last activity {}.",
                plural(s.records, "record"),
                plural(s.decisions, "decision"),
                uri.as_deref().unwrap_or(&s.revision),
                s.last_activity
            ),
            "mimeType": JSON,
        }));
    }
    Ok((items, next))
}

fn parse_list_cursor(c: &str) -> Result<(i64, String), ResourceError> {
    let rest = c.strip_prefix("r1.").ok_or(ResourceError::InvalidCursor)?;
    let (seq, rev) = rest.split_once('.').ok_or(ResourceError::InvalidCursor)?;
    let seq: i64 = seq.parse().map_err(|_| ResourceError::InvalidCursor)?;
    if seq < 0 || !is_revision(rev) {
        return Err(ResourceError::InvalidCursor);
    }
    Ok((seq, rev.to_string()))
}

/// The `contents` of one resource.
pub fn read(store: &mut Store, uri: &str) -> Result<Vec<Value>, ResourceError> {
    if !uri.starts_with(SCHEME) {
        return Err(ResourceError::NotFound);
    }
    if let Some(rest) = uri.strip_prefix(REVISIONS) {
        let (revision, report) = match rest.strip_suffix(REPORT_SUFFIX) {
            Some(rev) => (rev, true),
            None => (rest, false),
        };
        if !is_revision(revision) {
            return Err(ResourceError::NotFound);
        }
        let mut view = RevisionView::load(store, revision)?;
        let text = if report {
            fit(&mut view, RevisionView::report)
        } else {
            fit(&mut view, |v| pretty(&v.to_json()))
        };
        let mime = if report { MARKDOWN } else { JSON };
        return Ok(vec![text_content(uri, mime, text)]);
    }
    if let Some(id) = uri.strip_prefix(RECORDS) {
        let record = store.get_record(id)?.ok_or(ResourceError::NotFound)?;
        return Ok(vec![text_content(
            uri,
            JSON,
            pretty_within(&record.to_wire(None)),
        )]);
    }
    if let Some(id) = uri.strip_prefix(DECISIONS) {
        let decision = store.get_decision(id)?.ok_or(ResourceError::NotFound)?;
        return Ok(vec![text_content(
            uri,
            JSON,
            pretty_within(&decision.to_wire(None)),
        )]);
    }
    Err(ResourceError::NotFound)
}

fn text_content(uri: &str, mime: &str, text: String) -> Value {
    json!({"uri": uri, "mimeType": mime, "text": text})
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// What `text` costs the answer line once escaped into its JSON string.
fn escaped_len(text: &str) -> usize {
    serde_json::to_string(text).map_or(usize::MAX, |s| s.len())
}

/// One item, pretty-printed when that fits in an answer line, else compact (every stored
/// item fits compact: see `store::check_answer_size`).
fn pretty_within(v: &Value) -> String {
    let text = pretty(v);
    if escaped_len(&text) <= MAX_ANSWER_ITEMS_BYTES {
        return text;
    }
    serde_json::to_string(v).unwrap_or_default()
}

/// The text `build` makes of the view, with the view's newest items halved until the text
/// fits in an answer line (what is left out is counted in the view's `omitted`).
fn fit(view: &mut RevisionView, build: impl Fn(&RevisionView) -> String) -> String {
    loop {
        let text = build(view);
        if escaped_len(&text) <= MAX_ANSWER_ITEMS_BYTES || !view.shrink() {
            return text;
        }
    }
}

/// Everything a revision resource shows.
struct RevisionView {
    revision: String,
    records: Vec<Record>,
    decisions: Vec<Decision>,
    /// How many records and decisions were left out by [`READ_CAP`].
    omitted_records: usize,
    omitted_decisions: usize,
    /// Written for the same files at other revisions: stale against this one.
    stale_records: Vec<Record>,
    stale_decisions: Vec<Decision>,
}

impl RevisionView {
    /// The newest records and decisions of the revision, and what was written for the same
    /// files at other revisions, each list cut at its count cap and all of them together at
    /// [`VIEW_BUDGET`]: what is read is bounded in bytes, not only in rows (one record may be
    /// megabytes), and what is left out is counted.
    fn load(store: &mut Store, revision: &str) -> Result<RevisionView, ResourceError> {
        let cur = Some(revision);
        let mut budget = VIEW_BUDGET;
        // The first item of the view is taken whatever it costs ([`fit`] decides).
        let mut take = |bytes: usize, first: bool| {
            if bytes > budget && !first {
                return false;
            }
            budget = budget.saturating_sub(bytes);
            true
        };
        let page = |limit| PageRequest {
            snapshot: None,
            after: None,
            limit,
        };
        let mut records = Vec::new();
        let rq = RecordQuery {
            revision: Some(revision.to_string()),
            ..RecordQuery::default()
        };
        store.recall_each(&rq, page(READ_CAP), |r| {
            let r = r.into_owned();
            let bytes = JsonOut::answer_bytes(|out| r.wire(cur).write_json(out));
            if !take(bytes, records.is_empty()) {
                return false;
            }
            records.push(r);
            true
        })?;
        let mut decisions = Vec::new();
        let dq = DecisionQuery {
            revision: Some(revision.to_string()),
            ..DecisionQuery::default()
        };
        store.recall_decisions_each(&dq, page(READ_CAP), |d| {
            let bytes = JsonOut::answer_bytes(|out| d.wire(cur).write_json(out));
            if !take(bytes, records.is_empty() && decisions.is_empty()) {
                return false;
            }
            decisions.push(d);
            true
        })?;
        if records.is_empty() && decisions.is_empty() {
            return Err(ResourceError::NotFound);
        }
        let (total_records, total_decisions) = store
            .revisions()?
            .into_iter()
            .find(|s| s.revision == revision)
            .map_or((0, 0), |s| (s.records, s.decisions));
        let uris: BTreeSet<String> = records
            .iter()
            .map(|r| &r.artifact)
            .chain(decisions.iter().map(|d| &d.artifact))
            .filter_map(|a| a.uri.clone())
            .collect();
        let mut stale_records = Vec::new();
        let mut stale_decisions = Vec::new();
        for uri in &uris {
            let q = RecordQuery {
                locator: Some(uri.clone()),
                ..RecordQuery::default()
            };
            store.recall_each(&q, page(STALE_CAP), |r| {
                if r.artifact.revision == revision {
                    return true;
                }
                let r = r.into_owned();
                let bytes = JsonOut::answer_bytes(|out| r.wire(cur).write_json(out));
                if !take(bytes, false) {
                    return false;
                }
                stale_records.push(r);
                true
            })?;
            let q = DecisionQuery {
                locator: Some(uri.clone()),
                ..DecisionQuery::default()
            };
            store.recall_decisions_each(&q, page(STALE_CAP), |d| {
                if d.artifact.revision == revision {
                    return true;
                }
                let bytes = JsonOut::answer_bytes(|out| d.wire(cur).write_json(out));
                if !take(bytes, false) {
                    return false;
                }
                stale_decisions.push(d);
                true
            })?;
        }
        let omitted = |total: u64, shown: usize| {
            usize::try_from(total)
                .unwrap_or(usize::MAX)
                .saturating_sub(shown)
        };
        Ok(RevisionView {
            revision: revision.to_string(),
            omitted_records: omitted(total_records, records.len()),
            omitted_decisions: omitted(total_decisions, decisions.len()),
            records,
            decisions,
            stale_records,
            stale_decisions,
        })
    }

    /// Leaves out the later half of the largest list (stale items first), counting what the
    /// revision's own lists lose in `omitted`. False when there is nothing left to cut.
    fn shrink(&mut self) -> bool {
        if !self.stale_records.is_empty() || !self.stale_decisions.is_empty() {
            self.stale_records.truncate(self.stale_records.len() / 2);
            self.stale_decisions
                .truncate(self.stale_decisions.len() / 2);
            return true;
        }
        if self.records.len() + self.decisions.len() <= 1 {
            return false;
        }
        let (list_len, is_records) = if self.records.len() >= self.decisions.len() {
            (self.records.len(), true)
        } else {
            (self.decisions.len(), false)
        };
        let keep = list_len / 2;
        if is_records {
            self.omitted_records += self.records.len() - keep;
            self.records.truncate(keep);
        } else {
            self.omitted_decisions += self.decisions.len() - keep;
            self.decisions.truncate(keep);
        }
        true
    }

    fn current(&self) -> Option<&str> {
        Some(&self.revision)
    }

    fn to_json(&self) -> Value {
        let cur = self.current();
        json!({
            "revision": self.revision,
            "records": self.records.iter().map(|r| r.to_wire(cur)).collect::<Vec<_>>(),
            "decisions": self.decisions.iter().map(|d| d.to_wire(cur)).collect::<Vec<_>>(),
            "omitted": {"records": self.omitted_records, "decisions": self.omitted_decisions},
            "stale": {
                "records": self.stale_records.iter().map(|r| r.to_wire(cur)).collect::<Vec<_>>(),
                "decisions": self.stale_decisions.iter().map(|d| d.to_wire(cur)).collect::<Vec<_>>(),
            },
        })
    }

    /// The Markdown report. Every stored string (ids, timestamps and the revision included:
    /// an imported file can carry anything) goes through [`line`], [`cell`] or [`code`], so
    /// no field can add, end or hide a heading, list, table, link or HTML of its own.
    fn report(&self) -> String {
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
        let _ = writeln!(
            out,
            "- {} and {} at this revision.\n",
            plural(self.decisions.len() as u64, "decision"),
            plural(self.records.len() as u64, "record")
        );
        out.push_str(
            "This report is the review's own account: requirements as stated and evidence as \
             quoted. This server never measures; take numbers from the geometry.\n\n",
        );
        self.report_decisions(&mut out);
        self.report_open_questions(&mut out);
        self.report_records(&mut out);
        self.report_stale(&mut out);
        out
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
            let _ = writeln!(
                out,
                "Recorded {}, updated {}. Id {}.\n",
                line(&d.created_at),
                line(&d.updated_at),
                code(&d.id)
            );
            if d.basis.is_empty() {
                out.push_str("No basis recorded.\n\n");
                continue;
            }
            let accepted = count_verdicts(d, "accepted");
            let rejected = count_verdicts(d, "rejected");
            let pending = d.basis.len() - accepted - rejected;
            let _ = writeln!(
                out,
                "Verdicts: {accepted} accepted, {rejected} rejected, {pending} awaiting the engineer.\n"
            );
            out.push_str("| # | Requirement | Source | State | Evidence | Faces | Verdict |\n");
            out.push_str("|---|---|---|---|---|---|---|\n");
            for (i, b) in d.basis.iter().enumerate() {
                let source = match &b.source_detail {
                    Some(detail) => format!("{} ({})", b.source.as_str(), detail),
                    None => b.source.as_str().to_string(),
                };
                let verdict = match &b.verdict {
                    Some(v) => match &v.reason {
                        Some(r) => format!("{}: {}", v.judgement.as_str(), r),
                        None => v.judgement.as_str().to_string(),
                    },
                    None => "pending".to_string(),
                };
                let faces = if b.faces.is_empty() {
                    "whole part".to_string()
                } else {
                    b.faces.join(", ")
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    i + 1,
                    cell(&b.requirement),
                    cell(&source),
                    b.state.as_str(),
                    cell(b.evidence.as_deref().unwrap_or("")),
                    cell(&faces),
                    cell(&verdict)
                );
            }
            out.push('\n');
        }
        if self.omitted_decisions > 0 {
            let _ = writeln!(
                out,
                "{} more not shown: use recall_decisions to page through them.\n",
                plural(self.omitted_decisions as u64, "decision")
            );
        }
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
                        b.state.as_str(),
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
                "- … and {} more: use recall to page through them.",
                plural(self.omitted_records as u64, "record")
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
        s.push_str(" (whole part)");
    } else {
        let shown: Vec<&str> = r.entity_ids.iter().take(10).map(String::as_str).collect();
        let more = r.entity_ids.len().saturating_sub(shown.len());
        let _ = write!(s, " ({}: {}", line(&r.id_scheme), line(&shown.join(", ")));
        if more > 0 {
            let _ = write!(s, " and {more} more");
        }
        s.push(')');
    }
    s.push('\n');
    s
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
/// it anyway).
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
    let folded: String = s
        .chars()
        .map(|c| match c {
            '\n' | '\r' => ' ',
            '\0' => '\u{FFFD}',
            c => c,
        })
        .collect();
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

/// `bracket.step @ 0123abcd` from the file name of a URI, else the short revision.
fn display_name(uri: Option<&str>, revision: &str) -> String {
    let short = first_chars(revision.strip_prefix("sha256:").unwrap_or(revision), 12);
    let file = uri.and_then(|u| {
        let path = u.split(['?', '#']).next().unwrap_or(u);
        path.rsplit('/')
            .next()
            .filter(|f| !f.is_empty())
            .map(percent_decode)
    });
    match file {
        Some(f) => format!("{f} @ {short}"),
        None => format!("sha256:{short}"),
    }
}

/// Decodes `%XX` escapes of a file name for display (invalid escapes are kept as they are).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes.get(i), hex) {
            (Some(b'%'), Some(b)) => {
                out.push(b);
                i += 3;
            }
            (Some(&b), _) => {
                out.push(b);
                i += 1;
            }
            (None, _) => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_name_uses_file_name_and_short_revision() {
        let rev = format!("sha256:{}", "ab".repeat(32));
        assert_eq!(
            display_name(Some("file:///work/my%20part.step"), &rev),
            "my part.step @ abababababab"
        );
        assert_eq!(display_name(None, &rev), "sha256:abababababab");
        assert_eq!(display_name(Some("plm:"), &rev), "plm: @ abababababab");
    }

    #[test]
    fn cell_escapes_pipes_and_newlines() {
        assert_eq!(cell("a|b\nc"), "a\\|b c");
        assert_eq!(line("# heading"), "\\# heading");
        assert_eq!(line("1. item <!-- x"), "1\\. item \\<!-- x");
        assert_eq!(code("rec_0a"), "`rec_0a`");
        assert_eq!(code("a`b"), "a\\`b");
    }

    #[test]
    fn list_cursor_rejects_tampering() {
        let rev = format!("sha256:{}", "0".repeat(64));
        assert_eq!(
            parse_list_cursor(&format!("r1.5.{rev}")),
            Ok((5, rev.clone()))
        );
        for bad in [
            "",
            "r1.",
            "r1.x.sha256:00",
            "r2.5.",
            "r1.-1.sha256:0",
            "tools.50",
        ] {
            assert_eq!(
                parse_list_cursor(bad),
                Err(ResourceError::InvalidCursor),
                "{bad}"
            );
        }
    }
}
