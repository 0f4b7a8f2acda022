//! The stored review as resources: templates, the list of revisions, and reads.
//!
//! URIs (all `review://`):
//! - `review://revisions/{revision}`: everything recorded for a revision, as JSON, plus what
//!   was written for the same files at other revisions (stale against this one);
//! - `review://revisions/{revision}/report`: the same as a Markdown review report;
//! - `review://revisions/{revision}/form3.csv`: its basis requirements as an AS9102 Form 3
//!   (CSV; `form3`), the rows that fit one answer, saying so when that is not all;
//! - `review://records/{id}` and `review://decisions/{id}`: one record or decision as JSON;
//! - `review://decisions/{id}/history`: its recorded changes, newest first, as
//!   `review_history` answers them for the decision (its `next_cursor` pages on there);
//!   an event too large for that answer is read whole, in parts, at
//!   `review://events/{event id}/part/{n}`.
//!
//! A URI that is malformed, names an unknown id, or a revision with nothing recorded is "not
//! found" (the adapters answer -32002 or -32602 by era). Reads have no current revision, so
//! a record read by id carries `stale: null`; inside a revision resource `stale` is judged
//! against that revision.
//!
//! One more resource is not the review's data but its view: [`CARD_URI`], the review card
//! (an MCP App, `text/html;profile=mcp-app`), one self-contained HTML file kept in
//! `card.html` beside this module. It is read by any client (it holds no data), linked from
//! `show_review` for every client (a host that renders apps without declaring the extension
//! renders it too), and not listed: hosts find it through the tool (the extension lets a
//! server leave UI-only resources out of the list).
//!
//! Here: the URIs, templates, list and reads. `view` loads a revision within a byte budget
//! and shrinks it to fit an answer line; `report` renders it as Markdown; `form3` builds
//! the Form 3 (also written whole by the `review-mcp form3` command).

pub mod form3;
mod report;
mod view;

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::cursor;
use crate::review::is_revision;
use crate::store::{Store, StoreError};
use crate::text::first_chars;
use crate::tools::ToolError;
use crate::tools::review_history::EVENTS;
use crate::wire::PAGE_ITEMS_BUDGET;
use view::{RevisionView, cut_text, fit, item_text};

const SCHEME: &str = "review://";
/// The review card: the `ui://` resource `show_review` links to.
pub const CARD_URI: &str = "ui://review-mcp/review-card";
/// The card's HTML: inline CSS and script, no external fetch of any kind.
pub const CARD_HTML: &str = include_str!("card.html");
const REVISIONS: &str = "review://revisions/";
/// Where records and decisions are read by id (and whole, in parts: `{id}/part/{n}`).
pub const RECORDS: &str = "review://records/";
pub const DECISIONS: &str = "review://decisions/";
const REPORT_SUFFIX: &str = "/report";
const HISTORY_SUFFIX: &str = "/history";
const FORM3_SUFFIX: &str = "/form3.csv";
const CSV: &str = "text/csv";
const JSON: &str = "application/json";
const MARKDOWN: &str = "text/markdown";

/// Revisions per `resources/list` page.
const LIST_PAGE_SIZE: usize = 50;
/// The most pages `resources/list` serves: the last one has no `nextCursor`, so the list
/// holds at most the 3,000 most recently active revisions. A client that follows the cursor
/// to the end gives up after a number of pages (the TypeScript client's `listResources()`,
/// and the refetch it makes on each `list_changed`, after 64) and then has no list at all.
const LIST_MAX_PAGES: usize = 60;
/// What the entries of one `resources/list` page may cost, about (a URI of 4 KiB is named
/// in an entry's `name`, `title` and `description`).
const LIST_BUDGET: usize = 24_000;

/// Why a resource operation failed.
#[derive(Debug, PartialEq)]
pub enum ResourceError {
    /// Unknown or malformed URI: -32002 (legacy) or -32602 with `data.uri` (modern).
    NotFound,
    InvalidCursor,
    /// The database failed (locked, moved, a full disk): what to do.
    Storage(String),
    /// SQLite found the database damaged (its finding): the reader names the file and the
    /// `check` command for it ([`crate::store::damaged_message`]).
    Damaged(String),
    /// The answer could not be built (a value that does not encode, a tool's refusal of the
    /// query this reader made): a bug, which the user cannot act on.
    Internal(String),
}

impl From<StoreError> for ResourceError {
    fn from(e: StoreError) -> Self {
        match e.damage() {
            Some(finding) => ResourceError::Damaged(finding),
            None => ResourceError::Storage(e.user_message()),
        }
    }
}

impl From<ToolError> for ResourceError {
    fn from(e: ToolError) -> Self {
        match e {
            ToolError::Damaged(finding) => ResourceError::Damaged(finding),
            ToolError::Storage(m) => ResourceError::Storage(m),
            ToolError::Internal(m) | ToolError::Invalid(m) => ResourceError::Internal(m),
        }
    }
}

/// A resource a client can subscribe to, read from its URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Watched {
    /// `review://revisions/{revision}`, its `/report` and `/form3.csv`: all change together.
    Revision(String),
    Record(String),
    Decision(String),
    /// `review://decisions/{id}/history`: changes with each event the decision gets.
    History(String),
}

/// A watchable URI: prefix, a placeholder part (`<revision>`: a revision; `<id>`: a plain
/// id), suffix, and what such a URI names. The one list both [`watched`] accepts and
/// [`watchable`] names, so the two cannot drift apart.
type WatchPattern = (
    &'static str,
    &'static str,
    &'static str,
    fn(String) -> Watched,
);

const WATCH_PATTERNS: [WatchPattern; 6] = [
    (REVISIONS, "<revision>", "", Watched::Revision),
    (REVISIONS, "<revision>", REPORT_SUFFIX, Watched::Revision),
    (REVISIONS, "<revision>", FORM3_SUFFIX, Watched::Revision),
    (RECORDS, "<id>", "", Watched::Record),
    (DECISIONS, "<id>", "", Watched::Decision),
    (DECISIONS, "<id>", HISTORY_SUFFIX, Watched::History),
];

/// `uri` with the percent-escapes of the characters a value in this server's URIs may hold
/// (letters, digits, `-._~` and `:`) decoded, in either hex case. A client that fills a
/// template the RFC 6570 way (the TypeScript SDK's `UriTemplate.expand`) sends
/// `review://revisions/sha256%3A…`, which names the same resource as the plain form. Any other
/// escape stays as it is, so `%2F` never becomes a `/` of the URI's structure.
fn canonical(uri: &str) -> Cow<'_, str> {
    if !uri.contains('%') {
        return Cow::Borrowed(uri);
    }
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let decoded = bytes
            .get(i + 1..i + 3)
            .filter(|_| b == b'%')
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .filter(|d| d.is_ascii_alphanumeric() || b"-._~:".contains(d));
        match decoded {
            Some(d) => {
                out.push(d);
                i += 3;
            }
            None => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Only ASCII escapes were replaced by ASCII bytes: still UTF-8.
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

/// Whether `a` and `b` name the same resource: equal once [`canonical`] (a revision URI
/// plain and percent-encoded). A subscription is one per resource, whichever form names it.
pub fn same_resource(a: &str, b: &str) -> bool {
    a == b || canonical(a) == canonical(b)
}

/// What `uri` names, if it is a resource this server serves (whether or not anything is
/// recorded there yet: a client may subscribe to a revision before its first write). A
/// percent-encoded form names the same resource ([`canonical`]).
pub fn watched(uri: &str) -> Option<Watched> {
    let uri: &str = &canonical(uri);
    let plain_id = |id: &str| {
        !id.is_empty()
            && id.len() <= 200
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-.:".contains(&b))
    };
    WATCH_PATTERNS
        .iter()
        .find_map(|&(prefix, placeholder, suffix, names)| {
            let part = uri.strip_prefix(prefix)?.strip_suffix(suffix)?;
            let valid = if placeholder == "<revision>" {
                is_revision(part)
            } else {
                plain_id(part)
            };
            valid.then(|| names(part.into()))
        })
}

/// Whether `uri` names a resource that is read but never changes: the review card and a
/// history event (an event is never changed, and its parts neither). Subscribing to one is
/// refused as such, not as "not a resource of this server".
pub fn never_changes(uri: &str) -> bool {
    let uri: &str = &canonical(uri);
    uri == CARD_URI || uri.starts_with(EVENTS)
}

/// Every URI pattern [`watched`] accepts, as a refusal names them:
/// `review://revisions/<revision>, review://revisions/<revision>/report, ...`.
pub fn watchable() -> String {
    WATCH_PATTERNS
        .iter()
        .map(|(prefix, placeholder, suffix, _)| format!("{prefix}{placeholder}{suffix}"))
        .collect::<Vec<_>>()
        .join(", ")
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
            "uriTemplate": "review://revisions/{revision}/form3.csv",
            "name": "revision-form3",
            "title": "AS9102 Form 3 of a revision (CSV)",
            "description": "One row per basis requirement in the columns of AS9102 Rev C Form 3, then state, QIF status, verdict and origin. Cut to whole rows when too long for one answer (the header says so; `review-mcp form3` writes all).",
            "mimeType": CSV,
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
        json!({
            "uriTemplate": "review://decisions/{id}/history",
            "name": "decision-history",
            "title": "The history of one review decision",
            "description": "Its recorded changes newest first (who, when, channel, an engineer verdict's meaning), as review_history answers for the decision; next_cursor pages on with that tool. Also for a forgotten decision.",
            "mimeType": JSON,
        }),
    ]
}

/// One page of `resources/list`: one entry per revision with records or decisions, most
/// recent activity first, and the cursor of the next page.
///
/// The cursor is the one format of every list ([`crate::cursor`]), sealed with the
/// database's secret, at the `last_seq` of the last entry served: a revision written to
/// during paging moves to the front and is not served twice. Its tier counts the pages
/// served, and page [`LIST_MAX_PAGES`] is the last.
pub fn list(
    store: &mut Store,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), ResourceError> {
    const LIST: &str = "resources/list";
    // `tier` counts the pages served before the next one (0 in a cursor minted before the
    // list had a page cap: such a list ends a little later).
    let (before, served) = match cursor {
        None => (None, 0),
        Some(c) => {
            let secret = store.cursor_secret()?;
            let at = cursor::decode(&secret, LIST, c).map_err(|_| ResourceError::InvalidCursor)?;
            (Some(at.seq), at.tier)
        }
    };
    let (mut page, mut more) = store.revisions_page(before, LIST_PAGE_SIZE)?;
    let items: Vec<Value> = page.iter().map(list_entry).collect();
    // Long file URIs (an entry names its file three times) end a page early.
    let mut spent = 0;
    let fit = items
        .iter()
        .take_while(|item| {
            spent += crate::wire::answer_bytes(item) / 2;
            spent <= LIST_BUDGET
        })
        .count()
        .max(1);
    if fit < page.len() {
        page.truncate(fit);
        more = true;
    }
    let pages = served.saturating_add(1);
    let last_page = usize::try_from(pages).is_ok_and(|p| p >= LIST_MAX_PAGES);
    let next = match (more && !last_page, page.last()) {
        (true, Some(last)) => {
            let at = cursor::Cursor {
                snapshot: 0,
                tier: pages,
                seq: last.last_seq,
            };
            Some(cursor::encode(&store.cursor_secret()?, LIST, at))
        }
        _ => None,
    };
    Ok((items.into_iter().take(fit).collect(), next))
}

/// The `resources/list` entry of a revision.
fn list_entry(s: &crate::store::RevisionSummary) -> Value {
    let name = display_name(s.uri.as_deref(), &s.revision);
    json!({
        "uri": format!("{REVISIONS}{}", s.revision),
        "name": name,
        "title": format!("Review of {name}"),
        "description": format!(
            "{} and {} recorded for {}; last activity {}.",
            plural(s.records, "record"),
            plural(s.decisions, "decision"),
            crate::text::locator(s.uri.as_deref().unwrap_or(&s.revision), 4096),
            crate::text::escape_controls(&s.last_activity)
        ),
        "mimeType": JSON,
    })
}

/// The revision part of a `review://revisions/…` URI (its report or Form 3 too), whatever it
/// holds, for a revision resource not found: one a caller built from a short form it was
/// given, or from a digest as a checksum tool prints it, is told what to pass
/// (`tools::short_revision_refused` says which it is, or nothing).
pub fn revision_in(uri: &str) -> Option<String> {
    let canonical = canonical(uri);
    let rest = canonical.strip_prefix(REVISIONS)?;
    let revision = rest
        .strip_suffix(FORM3_SUFFIX)
        .or_else(|| rest.strip_suffix(REPORT_SUFFIX))
        .unwrap_or(rest);
    // Its `…` as a client that fills the template the RFC 6570 way escapes it.
    let revision = ["%E2%80%A6", "%e2%80%a6"]
        .iter()
        .find_map(|e| revision.strip_suffix(e))
        .map_or_else(|| revision.to_string(), |head| format!("{head}…"));
    (!revision.is_empty()).then_some(revision)
}

/// The `contents` of one resource.
pub fn read(store: &mut Store, uri: &str) -> Result<Vec<Value>, ResourceError> {
    // Matched in its canonical form; the contents name it as the client asked for it.
    let requested = uri;
    let canonical = canonical(uri);
    let uri: &str = &canonical;
    if uri == CARD_URI {
        return Ok(vec![card_content()]);
    }
    if !uri.starts_with(SCHEME) {
        return Err(ResourceError::NotFound);
    }
    if let Some(rest) = uri.strip_prefix(REVISIONS)
        && let Some(revision) = rest.strip_suffix(FORM3_SUFFIX)
    {
        if !is_revision(revision) {
            return Err(ResourceError::NotFound);
        }
        let form = form3::Form3::load(store, revision, Some(PAGE_ITEMS_BUDGET))?;
        return Ok(vec![text_content(
            requested,
            CSV,
            form.csv_within(PAGE_ITEMS_BUDGET),
        )]);
    }
    if let Some(rest) = uri.strip_prefix(REVISIONS) {
        let (revision, report) = match rest.strip_suffix(REPORT_SUFFIX) {
            Some(rev) => (rev, true),
            None => (rest, false),
        };
        if !is_revision(revision) {
            return Err(ResourceError::NotFound);
        }
        let mut view = RevisionView::load(store, revision, None, None)?;
        let text = if report {
            let text = fit(&mut view, false, RevisionView::report);
            // One item alone too large for the report: it is cut, and says where it is whole.
            let note = format!(
                "*This report is cut here to fit one answer. The whole items, in parts: {}.*",
                view.whole_items()
            );
            cut_text(text, &note)
        } else {
            // Compact: indentation would cost about a third of the text, and items left out
            // (`omitted`) to make room for it.
            fit(&mut view, true, |v| {
                crate::wire::to_json(&v.to_json()).unwrap_or_default()
            })
        };
        let mime = if report { MARKDOWN } else { JSON };
        return Ok(vec![text_content(requested, mime, text)]);
    }
    if let Some(id) = uri
        .strip_prefix(DECISIONS)
        .and_then(|rest| rest.strip_suffix(HISTORY_SUFFIX))
    {
        return history(store, requested, id);
    }
    // One record, event or decision by id, or a part of it.
    for resource in [RECORDS, EVENTS, DECISIONS] {
        let Some(rest) = uri.strip_prefix(resource) else {
            continue;
        };
        let (id, part) = split_part(rest)?;
        let wire = match resource {
            RECORDS => store.get_record(id)?.map(|r| r.to_wire(None)),
            EVENTS => store
                .event(id)?
                .map(|e| serde_json::to_value(&e))
                .transpose()
                .map_err(|e| ResourceError::Internal(e.to_string()))?,
            _ => store.get_decision(id)?.map(|d| d.to_wire(None)),
        };
        let wire = wire.ok_or(ResourceError::NotFound)?;
        return Ok(vec![item_content(requested, resource, id, part, wire)?]);
    }
    Err(ResourceError::NotFound)
}

/// The trail of decision `id` as the review card shows it (see `view::trail_wire`): what
/// `record_verdict` gives the card with the decision it changed.
pub fn card_trail(store: &mut Store, id: &str) -> Result<Value, StoreError> {
    let (trails, since) = store.trails(&[id], view::TRAIL_LINES)?;
    let t = trails.into_iter().next().unwrap_or_default();
    Ok(view::trail_wire(&t, id, since.as_deref()))
}

/// `review://decisions/{id}/history`: what `review_history` answers for decision `id`, its
/// first page. An id with no recorded change and nothing stored (never was, or forgotten
/// before history was recorded) is not found.
fn history(store: &mut Store, uri: &str, id: &str) -> Result<Vec<Value>, ResourceError> {
    if id.is_empty() || id.contains('/') {
        return Err(ResourceError::NotFound);
    }
    let query = crate::store::HistoryQuery {
        of: Some(id.to_string()),
        ..crate::store::HistoryQuery::default()
    };
    let (answer, _, unknown) = crate::tools::review_history::answer(store, &query, None, None)?;
    if unknown {
        return Err(ResourceError::NotFound);
    }
    let text = json_text(&answer)?;
    Ok(vec![text_content(uri, JSON, text)])
}

/// `v` as the server writes every JSON ([`crate::wire::to_json`]); a value that cannot be
/// encoded is a bug.
fn json_text<T: serde::Serialize + ?Sized>(v: &T) -> Result<String, ResourceError> {
    crate::wire::to_json(v).map_err(|e| ResourceError::Internal(e.to_string()))
}

/// The card as served: [`CARD_HTML`] without the indentation of its lines and without its
/// whole-line comments (the script's `//`, the style's `/* */`, the page's `<!-- -->`),
/// which are for its readers here, not for the browser, with fewer line breaks ([`runs_on`])
/// and the style's rules and the script's statements without the spaces around their
/// punctuation ([`squeeze`]). The
/// card's answer stays within the answer bound. Nothing in the page
/// depends on leading whitespace or on those line breaks: no `<pre>`, no text area, no string
/// spanning lines, and no `//` in the script but whole-line comments (a unit test holds it to
/// that).
fn served_card() -> &'static str {
    static SERVED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SERVED.get_or_init(|| {
        let mut kept: Vec<(&str, CardPart)> = Vec::new();
        let (mut in_script, mut in_style, mut in_comment) = (false, false, false);
        for line in CARD_HTML.lines() {
            let line = line.trim_start();
            if in_comment || (!in_script && line.starts_with("<!--")) {
                in_comment = !line.ends_with("-->");
                continue;
            }
            in_script = (in_script || line.starts_with("<script")) && !line.starts_with("</script");
            in_style = (in_style || line.starts_with("<style")) && !line.starts_with("</style");
            if (in_script && line.starts_with("//"))
                || (in_style && line.starts_with("/*") && line.ends_with("*/"))
            {
                continue;
            }
            let part = match (in_script, in_style) {
                (true, _) if !line.starts_with("<script") => CardPart::Script,
                (_, true) if !line.starts_with("<style") => CardPart::Style,
                _ => CardPart::Page,
            };
            kept.push((line, part));
        }
        let mut out = String::with_capacity(CARD_HTML.len());
        for (i, (line, part)) in kept.iter().enumerate() {
            match part {
                CardPart::Page => out.push_str(line),
                _ => squeeze(line, *part, &mut out),
            }
            let next = kept.get(i + 1).map_or("", |(l, _)| l);
            if !runs_on(line, *part, next) {
                out.push('\n');
            }
        }
        out
    })
}

/// One line of the card's style or script onto `out`, without a space after `:`, `,`, `;`,
/// `{` or `}` (in the script also `(`, `)` and `=`) or before `{`, `}`, `;` or `,` (in the
/// script also `(`, `)` and `=`), outside quoted strings (`content: ": "` keeps its). In the
/// style a space before `:` is kept (`a :hover` is not `a:hover`), and so are the spaces that
/// separate values and the operators of `calc()`; in the script those of its other operators
/// (`a + +b`), of its words, and of its regular expressions, none of which holds a space or a
/// quote. The script's strings in double quotes are served in single quotes where they hold
/// neither (a JSON answer escapes every `"`: about 940 bytes of the card's).
fn squeeze(line: &str, part: CardPart, out: &mut String) {
    let (after, before): (&[char], &[char]) = match part {
        CardPart::Script => (
            &[':', ',', ';', '{', '}', '(', ')', '=', '?'],
            &['{', '}', ';', ',', '(', ')', '=', '?', ':'],
        ),
        _ => (&[':', ',', ';', '{', '}'], &['{', '}', ';', ',']),
    };
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                if c == '\\' {
                    out.push(c);
                    if let Some(escaped) = chars.next() {
                        out.push(escaped);
                    }
                    continue;
                }
                if c == q {
                    quote = None;
                }
                out.push(c);
            }
            // A script's string in double quotes holding no single quote and no backslash
            // is served in single quotes, which a JSON answer carries without escaping.
            None if c == '"' && matches!(part, CardPart::Script) && {
                let inside: String = chars.clone().take_while(|&n| n != '"').collect();
                let n = inside.chars().count();
                let closed = chars.clone().nth(n) == Some('"');
                closed && !inside.contains(['\'', '\\'])
            } =>
            {
                out.push('\'');
                for n in chars.by_ref() {
                    out.push(if n == '"' { '\'' } else { n });
                    if n == '"' {
                        break;
                    }
                }
            }
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                out.push(c);
            }
            None if c == ' '
                && (out.ends_with(after) || chars.peek().is_some_and(|n| before.contains(n))) => {}
            // Around a `+` of the script, but for the one between two signs (`a+ +b`, `i++ +1`:
            // run together they would read as other operators).
            None if c == ' '
                && matches!(part, CardPart::Script)
                && lone_plus(out, chars.clone()) => {}
            None => out.push(c),
        }
    }
}

/// Whether a space between what the script has so far (`out`) and what follows (`next`) sits
/// beside a `+` with no other sign on the far side: `a + b` reads the same as `a+b`.
fn lone_plus(out: &str, mut next: impl Iterator<Item = char>) -> bool {
    let sign = |c: Option<char>| matches!(c, Some('+' | '-'));
    let mut back = out.chars().rev();
    let (last, before_last) = (back.next(), back.next());
    let (first, second) = (next.next(), next.next());
    (last == Some('+') && !sign(before_last) && !sign(first))
        || (first == Some('+') && !sign(second) && !sign(last))
}

/// Where a line of the served card sits.
#[derive(Clone, Copy)]
enum CardPart {
    Style,
    Script,
    Page,
}

/// Whether `line` runs on into `next` without a line break: in the style, after `;`, `{`, `}`
/// or `,`; in the script, where a line break never ends a statement: after `;`, `{`, `,`, an
/// open bracket, `?`, `:` or a `+` that is not `++`, and a `}` before another `}`.
fn runs_on(line: &str, part: CardPart, next: &str) -> bool {
    match part {
        CardPart::Style => line.ends_with([';', '{', '}', ',']),
        CardPart::Script => {
            line.ends_with([';', '{', ',', '(', '[', '?', ':'])
                || (line.ends_with('+') && !line.ends_with("++"))
                || (line.ends_with('}') && next.starts_with('}'))
        }
        CardPart::Page => false,
    }
}

/// What a part of an item's JSON may cost, as it is carried: a string member of the part's
/// JSON document, which the answer carries as a string again. The rest of the answer (the
/// envelope, the URI, the other members) fits in what is left of the bound.
const PART_BUDGET: usize = 24_000;

/// `{id}` or `{id}/part/{n}` (n from 1).
fn split_part(rest: &str) -> Result<(&str, Option<usize>), ResourceError> {
    let Some((id, n)) = rest.split_once("/part/") else {
        return Ok((rest, None));
    };
    // Written as the server writes it (no leading zero): one resource, one URI.
    if n.is_empty() || n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ResourceError::NotFound);
    }
    let n = n.parse().map_err(|_| ResourceError::NotFound)?;
    Ok((id, Some(n)))
}

/// The contents of item `id` (its wire form `wire`) read at `resource`: the item, cut to fit
/// when it alone is too large (naming its parts), or part `n` of its compact JSON: a JSON
/// document `{id, part, parts, next, json}` whose `json` strings, joined in order, are the
/// whole item.
fn item_content(
    uri: &str,
    resource: &str,
    id: &str,
    part: Option<usize>,
    wire: Value,
) -> Result<Value, ResourceError> {
    let Some(n) = part else {
        let whole = format!("{resource}{id}/part/1");
        return Ok(text_content(uri, JSON, item_text(wire, &whole)));
    };
    let json = json_text(&wire)?;
    let (slice, parts) = crate::wire::part(&json, n, PART_BUDGET).ok_or(ResourceError::NotFound)?;
    let mut doc = json!({"id": id, "part": n, "parts": parts, "json": slice});
    if n < parts {
        doc["next"] = json!(format!("{resource}{id}/part/{}", n + 1));
    }
    let text = json_text(&doc)?;
    Ok(text_content(uri, JSON, text))
}

/// The card's contents: its HTML, and an empty domain list for every CSP directive (the card
/// loads nothing and connects nowhere; it talks to the host by `postMessage` only).
fn card_content() -> Value {
    json!({
        "uri": CARD_URI,
        "mimeType": crate::client_caps::APP_MIME_TYPE,
        "text": served_card(),
        "_meta": {"ui": {
            "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
            "prefersBorder": true
        }}
    })
}

/// What the line of a revision with items says of its stale items that were carried on from
/// their revision and forgotten at the revision they went to (nothing else says them now, and
/// no carry brings them back): to state them again, as the line of an empty revision says.
fn forgotten_there(stale: u64, carried_on: u64) -> String {
    if carried_on == 0 {
        return String::new();
    }
    let n = carried_on.min(stale);
    let which = if n < stale {
        format!(", {n} of them")
    } else {
        ",".to_string()
    };
    format!(
        "{which} carried on from there and forgotten at the revision {} went to: state {} again here with remember_decision or remember, {}",
        they(n),
        them(n),
        or_forget(n)
    )
}

/// The other way out for what was carried on and forgotten where it went: forgotten there on
/// purpose, it is ended by forgetting it at its own revision too (else every later review
/// lists it as stale, and "state it again" alone would restate what the engineer dropped).
fn or_forget(n: u64) -> &'static str {
    if n == 1 {
        "or forget it at its own revision if no longer wanted"
    } else {
        "or forget them at their own revision if no longer wanted"
    }
}

fn they(n: u64) -> &'static str {
    if n == 1 { "it" } else { "they" }
}

fn them(n: u64) -> &'static str {
    if n == 1 { "it" } else { "them" }
}

/// The review `show_review` answers: the revision's decisions (only those about `subject`
/// when given), records, open questions and what is stale against it, fitted into the answer
/// bound; at full detail (the review card's) every field, else in summary form. With it a
/// one-line summary that names the report resource. A revision with nothing recorded is an
/// empty review, not an error. `file`, the caller's normalised `uri`, counts among the files
/// whose other revisions are stale against this one (see [`RevisionView::load`]).
pub fn review(
    store: &mut Store,
    revision: &str,
    file: Option<&str>,
    subject: Option<&str>,
    full: bool,
) -> Result<(Value, String), ResourceError> {
    let mut view = match RevisionView::load(store, revision, subject, file) {
        Ok(v) => v,
        Err(ResourceError::NotFound) => RevisionView::empty(revision),
        Err(e) => return Err(e),
    };
    let totals = view.totals();
    // Every decision's open questions (of the subject's, with one) and every stale item,
    // not only those the view had room for.
    let tallies = store.revision_tallies(revision, subject, file)?;
    let open = tallies.open_questions;
    let stale = (tallies.stale_records, tallies.stale_decisions);
    let name = display_name(
        view.decisions
            .first()
            .and_then(|d| d.artifact.uri.as_deref())
            .or_else(|| view.records.first().and_then(|r| r.artifact.uri.as_deref()))
            .or(file),
        revision,
    );
    let stale_items = stale.0.saturating_add(stale.1);
    // The report resource exists only for a revision with something recorded: a revision
    // with nothing (the part just changed) is not pointed at a resource that is not found.
    let recorded = store.revision_counts(revision)? != (0, 0);
    // Carried on in part (the same bytes under two files, one carried on; or an item recorded
    // here after the carry): what was not carried is still reviewed here.
    let in_part = view.decisions.iter().any(|d| d.superseded.is_none())
        || view.records.iter().any(|r| r.superseded.is_none());
    let mut review = if full {
        view.fit_review()
    } else {
        view.summary(totals, stale)
    };
    let line = if recorded {
        format!(
            "Review of {name}: {} and {} ({} open question{}; {} stale against it{}).{}{}{} The full report: {REVISIONS}{revision}{REPORT_SUFFIX}",
            plural(totals.1, "decision"),
            plural(totals.0, "record"),
            open,
            if open == 1 { "" } else { "s" },
            plural(stale_items, "item"),
            forgotten_there(stale_items, tallies.stale_carried_on),
            // A revision carried on is not where the work is: its open questions were carried
            // with it, and verdicts are given there.
            view.supersession
                .superseded_by
                .as_ref()
                .map(|(by, _)| carried_on_line(&view, by, in_part))
                .unwrap_or_default(),
            // Where the work is: what was carried here and is not stated here yet.
            if view.supersession.superseded_by.is_none() {
                worklist_line(&review)
            } else {
                String::new()
            },
            left_out(&review, totals, full),
        )
    } else if stale_items > 0 && tallies.stale_carried_on >= stale_items {
        // Each was carried on to a later revision and every copy forgotten since: a carry
        // from its revision would be refused (carried already), so none is advised.
        format!(
            "Review of {name}: nothing is recorded at this revision; {} of this file at other revisions {} stale against it, carried on from there and forgotten at the revision {} went to (state {} again here with remember_decision or remember, {}).",
            plural(stale_items, "item"),
            if stale_items == 1 { "is" } else { "are" },
            they(stale_items),
            them(stale_items),
            or_forget(stale_items),
        )
    } else if stale_items > 0 {
        format!(
            "Review of {name}: nothing is recorded at this revision; {} of this file at other revisions {} stale against it ({}).",
            plural(stale_items, "item"),
            if stale_items == 1 { "is" } else { "are" },
            if carriable_here(store, &view, revision)? {
                "carry_forward carries a review here"
            } else {
                "the review of a later revision of this one, which carry_forward does not carry back: ask at that revision, or state the review here with remember_decision and remember"
            }
        )
    } else {
        format!("Review of {name}: nothing is recorded at this revision.")
    };
    if !recorded && let Some(v) = review.as_object_mut() {
        v.remove("report");
    }
    // An engineer's verdict given at the earlier revision after the carry (a clone's, by
    // sync or import), which the carried items here do not show: named, with what to do.
    let (mut after, said) = after_carry_said(&view.after_carry);
    let mut line = line;
    if !after.is_empty() {
        // Before the report's URI, which ends the line (a `;` after it could be read as
        // part of it).
        let said = format!("{}{}.", said[..1].to_uppercase(), &said[1..]);
        line = match line.find(" The full report: ") {
            Some(at) => format!("{} {said}{}", &line[..at], &line[at..]),
            None => format!("{line} {said}"),
        };
        // Within the answer's bound: the summary says they are there, the list may be cut.
        while !after.is_empty()
            && crate::wire::answer_bytes(&review)
                .saturating_add(crate::wire::answer_bytes(&Value::Array(after.clone())))
                > PAGE_ITEMS_BUDGET
        {
            after.pop();
        }
        if let Some(v) = review.as_object_mut() {
            v.insert("verdicts_after_carry".into(), Value::Array(after));
        }
    }
    Ok((review, line))
}

/// The sentence of `review`'s line for a revision carried to revision `by` (`in_part`: some
/// of what it holds was not carried): where its review goes on, unless what was carried
/// there was forgotten since (then, as the terminal says, no revision holds that review and
/// it is stated again), or how much of it was.
fn carried_on_line(view: &RevisionView, by: &str, in_part: bool) -> String {
    let carried: Vec<&str> = view
        .decisions
        .iter()
        .filter(|d| d.superseded.is_some())
        .map(|d| d.id.as_str())
        .chain(
            view.records
                .iter()
                .filter(|r| r.superseded.is_some())
                .map(|r| r.id.as_str()),
        )
        .collect();
    let forgotten = carried
        .iter()
        .filter(|id| view.forgotten.contains(**id))
        .count();
    const AGAIN: &str = "at the part's current revision (remember_decision, remember), or forget here what no longer applies";
    if forgotten > 0 && forgotten == carried.len() {
        return if in_part {
            format!(
                " Carried on in part to revision {by} (carry_forward) and forgotten there: no revision holds what was carried; state it again {AGAIN}; the rest is reviewed here."
            )
        } else {
            format!(
                " Carried to revision {by} (carry_forward) and forgotten there: no revision holds its review; state it again {AGAIN}, then judge it there."
            )
        };
    }
    let mut line = if in_part {
        format!(
            " Carried on in part to revision {by} (carry_forward): what was carried goes on there, the rest is reviewed here."
        )
    } else {
        // Carried on from `by` too: the revision it stands at now (as the card and the
        // terminal name it), so the model is not sent to one that refuses in its turn.
        let on = view
            .decisions
            .iter()
            .find_map(|d| view.stands_at.get(&d.id));
        match on {
            Some(now) => format!(
                " Superseded by revision {by} (carry_forward), and carried on to revision {now} \
                 since: its review goes on there."
            ),
            None => {
                format!(" Superseded by revision {by} (carry_forward): its review goes on there.")
            }
        }
    };
    if forgotten > 0 {
        line.push_str(&format!(
            " {forgotten} of the {} items carried there {} forgotten there since: state {} again {AGAIN}.",
            carried.len(),
            if forgotten == 1 { "was" } else { "were" },
            if forgotten == 1 { "it" } else { "them" },
        ));
    }
    line
}

/// The sentence of `review`'s line for a revision a review was carried to: its `worklist`,
/// what is still to re-verify and what is inherited, and the calls that list them; nothing
/// once every carried item is stated here (no `worklist`).
fn worklist_line(review: &Value) -> String {
    let count = |key: &str| review["worklist"][key].as_u64().unwrap_or(0);
    let (re_verify, inherited) = (count("re_verify"), count("inherited"));
    if re_verify == 0 && inherited == 0 {
        return String::new();
    }
    // An inherited item the engineer rejected there is asked about by no channel: said here,
    // so that it is not taken as settled with the others.
    let rejected = match count("inherited_rejected") {
        0 => String::new(),
        n => format!(
            "; the engineer rejected {n} of them there: recall_decisions with carried \"inherited\" and detail \"full\" shows which, to state again or ask about with request_verdicts and items"
        ),
    };
    format!(
        " Carried here (carry_forward): {} to re-verify, {inherited} inherited (not re-verified here{rejected}); recall and recall_decisions with carried \"re-verify\" list what to re-verify.",
        plural(re_verify, "item")
    )
}

/// When this answer leaves out some of the revision's decisions (or, at full detail,
/// records), how many and the call that pages through them, as a sentence (else nothing):
/// the line counts them all, and a model given only the text would take the count for what
/// it was given.
fn left_out(review: &Value, totals: (u64, u64), full: bool) -> String {
    let omitted = |key: &str| review["omitted"][key].as_u64().unwrap_or(0);
    let (records, decisions) = (omitted("records"), omitted("decisions"));
    let mut parts = Vec::new();
    if decisions > 0 {
        parts.push(format!(
            "{decisions} of {} are not in this answer: {}",
            plural(totals.1, "decision"),
            report::DECISIONS_PAGED
        ));
    }
    if full && records > 0 {
        parts.push(format!(
            "{records} of {} are not in this answer: {}",
            plural(totals.0, "record"),
            report::RECORDS_PAGED
        ));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(" {}.", parts.join("; "))
}

/// Whether a stale item's revision (one not carried on) can be carried to `revision`: the
/// hint of an empty revision names `carry_forward` only then, never for a carry it refuses
/// (back to an earlier revision of the review, or into one carried on already).
fn carriable_here(
    store: &mut Store,
    view: &RevisionView,
    revision: &str,
) -> Result<bool, ResourceError> {
    let froms = view
        .stale_records
        .iter()
        .filter(|r| r.superseded.is_none())
        .map(|r| &r.artifact)
        .chain(
            view.stale_decisions
                .iter()
                .filter(|d| d.superseded.is_none())
                .map(|d| &d.artifact),
        );
    Ok(carriable_to(store, froms, revision, usize::MAX)?)
}

/// Whether the review of one of `froms` (the artifacts of stale items not carried on, each
/// revision and file looked at once, at most `looked_at` of them) can be carried to
/// `revision` of its file: what a hint checks before it names `carry_forward`
/// (`show_review`'s line, `recall`'s summary).
pub fn carriable_to<'a>(
    store: &mut Store,
    froms: impl IntoIterator<Item = &'a crate::review::Artifact>,
    revision: &str,
    looked_at: usize,
) -> Result<bool, crate::store::StoreError> {
    let mut seen: Vec<&crate::review::Artifact> = Vec::new();
    for from in froms {
        if seen
            .iter()
            .any(|f| f.revision == from.revision && f.uri == from.uri)
        {
            continue;
        }
        if seen.len() == looked_at {
            break;
        }
        seen.push(from);
        let to = crate::review::Artifact {
            revision: revision.to_string(),
            ..from.clone()
        };
        if store.carry_direction(from, &to)?.is_none() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// At most this many verdicts given after a carry are listed in one answer; the rest are
/// counted.
pub(super) const AFTER_CARRY_LISTED: usize = 5;

/// The engineer's verdicts given at an earlier revision after its review was carried to the
/// decisions `carried` (see `review::carry::VerdictAfterCarry`): as an answer lists them, and
/// the clause its summary adds (empty when there is none; it starts with a lower-case ASCII
/// letter or a digit).
pub fn verdicts_after_carry(
    store: &mut Store,
    carried: &[crate::review::Decision],
) -> Result<(Vec<Value>, String), crate::store::StoreError> {
    let found: Vec<(String, String, crate::review::carry::VerdictAfterCarry)> = carried
        .iter()
        .zip(store.verdicts_after_carry_of(carried)?)
        .flat_map(|(d, after)| {
            after
                .into_iter()
                .map(|a| (d.id.clone(), d.subject.clone(), a))
        })
        .collect();
    Ok(after_carry_said(&found))
}

/// [`verdicts_after_carry`]'s answer for what was found: (decision id, subject, verdict).
fn after_carry_said(
    found: &[(String, String, crate::review::carry::VerdictAfterCarry)],
) -> (Vec<Value>, String) {
    let listed = found
        .iter()
        .take(AFTER_CARRY_LISTED)
        .map(|(id, _, a)| a.wire(id))
        .collect();
    let said = match found {
        [] => String::new(),
        [(_, subject, a)] => format!(
            "the engineer's verdict on {} (verdicts_after_carry)",
            a.sentence(subject)
        ),
        [(_, subject, a), ..] => format!(
            "{} verdicts of the engineer came after the carry (verdicts_after_carry), the first on {}",
            found.len(),
            a.sentence(subject)
        ),
    };
    (listed, said)
}

fn text_content(uri: &str, mime: &str, text: String) -> Value {
    json!({"uri": uri, "mimeType": mime, "text": text})
}

/// `bracket.step @ 0123abcd` from the file name of a URI, else the short revision. The name
/// is decoded for display, and quoted unless plain ([`crate::text::file_name`]), what it
/// decodes to escaped where it would break or reorder the line (`%0A` is `\u{a}`): a
/// summary, a listing and a report title stay one line, and begin with their own words.
fn display_name(uri: Option<&str>, revision: &str) -> String {
    let short = first_chars(revision.strip_prefix("sha256:").unwrap_or(revision), 12);
    let file = uri.and_then(|u| {
        let path = u.split(['?', '#']).next().unwrap_or(u);
        path.rsplit('/')
            .next()
            .filter(|f| !f.is_empty())
            .map(|f| crate::text::file_name(&percent_decode(f), usize::MAX))
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
    fn served_card_is_the_page_without_its_comments() {
        let served = served_card();
        assert!(served.starts_with("<!DOCTYPE html>\n"));
        assert!(served.trim_end().ends_with("</html>"));
        assert!(!served.contains("<!--"), "the page's comment is left out");
        assert!(
            !served.lines().any(|l| l.starts_with("/*")),
            "the style's comments too"
        );
        assert!(
            !served.lines().any(|l| l.starts_with("//")),
            "the script's too"
        );
        for kept in [
            "<style>",
            "</style>",
            "<script>",
            "</script>",
            "overflow-wrap:anywhere;",
            "content:attr(data-label) \": \";",
            "'use strict';",
        ] {
            assert!(served.contains(kept), "{kept}");
        }
        assert!(served.len() < CARD_HTML.len());
        let style = &served[served.find("<style>").unwrap()..served.find("</style>").unwrap()];
        assert_eq!(
            style.lines().count(),
            2,
            "the style's rules on one line: {style}"
        );
    }

    #[test]
    fn squeezed_css_keeps_strings_descendants_and_values() {
        let mut out = String::new();
        squeeze(
            "td::before { content: \": \"; font: 12px / 1.4 a, b; } p :hover { margin: calc(1px + 2%) 0 ; }",
            CardPart::Style,
            &mut out,
        );
        assert_eq!(
            out,
            "td::before{content:\": \";font:12px / 1.4 a,b;}p :hover{margin:calc(1px + 2%) 0;}"
        );
    }

    /// The code points of a regular expression's character class written as `\uXXXX` and
    /// `\u{X…}`, each alone or the start of a range.
    fn class_points(class: &str) -> std::collections::BTreeSet<u32> {
        let mut points = Vec::new();
        let mut rest = class;
        while let Some(r) = rest.strip_prefix("\\u") {
            let (hex, after) = match r.strip_prefix('{') {
                Some(b) => b.split_at(b.find('}').expect("}")),
                None => r.split_at(4),
            };
            points.push(u32::from_str_radix(hex, 16).expect("hex"));
            rest = after.strip_prefix('}').unwrap_or(after);
            if let Some(r) = rest.strip_prefix('-') {
                points.push(u32::MAX); // a range's dash
                rest = r;
            }
        }
        assert!(rest.is_empty(), "not read: {rest}");
        let mut set = std::collections::BTreeSet::new();
        let mut i = 0;
        while i < points.len() {
            match points.get(i + 1) {
                Some(&u32::MAX) => {
                    set.extend(points[i]..=points[i + 2]);
                    i += 3;
                }
                _ => {
                    set.insert(points[i]);
                    i += 1;
                }
            }
        }
        set
    }

    /// The card's `CONTROLS`, the characters it shows as escapes, is
    /// `text::is_control_like` but the line breaks and tabs a text node shows as spaces: the
    /// card and every other reader show the same characters, and a change to one is made to
    /// the other.
    #[test]
    fn card_shows_as_escapes_what_every_reader_does() {
        let start = CARD_HTML
            .find("var CONTROLS = /[")
            .expect("the card's CONTROLS")
            + 17;
        let class = &CARD_HTML[start..start + CARD_HTML[start..].find("]/gu").expect("end")];
        let card = class_points(class);
        let differ: Vec<String> = (0..=0x10_FFFF_u32)
            .filter(|&u| {
                let rust = char::from_u32(u).is_some_and(|c| {
                    crate::text::is_control_like(c) && !matches!(c, '\n' | '\r' | '\t')
                });
                rust != card.contains(&u)
            })
            .map(|u| format!("U+{u:04X}"))
            .collect();
        assert!(differ.is_empty(), "{differ:?}");
    }

    /// The marks the card's `who()` counts as part of a plain name (its `WHO` class, letters,
    /// digits and the punctuation of `text::who` aside) are `text::is_combining_mark`'s: an
    /// author is bare or quoted alike in the card and every other reader.
    #[test]
    fn card_quotes_authors_as_every_reader_does() {
        let head = "var WHO = /^(?!\\x20)(?!.*\\x20$)[\\p{Alphabetic}\\p{N}";
        let start = CARD_HTML.find(head).expect("the card's WHO") + head.len();
        let class = &CARD_HTML[start..start + CARD_HTML[start..].find("\\x20.'").expect("end")];
        let card = class_points(class);
        // The served script's squeezing drops a space after `(`: the expression spells it.
        let line = CARD_HTML[start..].lines().next().unwrap_or_default();
        assert!(!line.contains(' '), "a space in the card's WHO: {line}");
        let differ: Vec<String> = (0..=0x10_FFFF_u32)
            .filter_map(|u| char::from_u32(u).filter(|c| !c.is_alphanumeric()))
            .filter(|&c| crate::text::is_combining_mark(c) != card.contains(&(c as u32)))
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        assert!(differ.is_empty(), "{differ:?}");
    }

    #[test]
    fn squeezed_script_serves_plain_strings_in_single_quotes() {
        let mut out = String::new();
        squeeze(
            "g(\"a, b\", \"it's\", \"x\\\"y\", \"\", 'c');",
            CardPart::Script,
            &mut out,
        );
        assert_eq!(out, "g('a, b',\"it's\",\"x\\\"y\",'','c');");
        let mut style = String::new();
        squeeze("a { content: \"x\"; }", CardPart::Style, &mut style);
        assert_eq!(style, "a{content:\"x\";}");
    }

    #[test]
    fn squeezed_script_keeps_strings_words_and_operators() {
        let mut out = String::new();
        squeeze(
            "if (a === 'x, y' && b) { f(\"( \\\" ) \", c ? d : e, g + +h); } else { return typeof k; } m = !n;",
            CardPart::Script,
            &mut out,
        );
        assert_eq!(
            out,
            "if(a==='x, y' && b){f(\"( \\\" ) \",c?d:e,g+ +h);}else{return typeof k;}m=!n;"
        );
    }

    /// Two signs stay a space apart: run together, `a + +b` and `i++ + 1` would read as
    /// `a++b` and `i+++1`.
    #[test]
    fn squeezed_script_drops_spaces_around_a_lone_plus_only() {
        let mut out = String::new();
        squeeze(
            "x = 'a ' + b + 1; y = i++ + 1; z = a + +b; w = c - -d + e;",
            CardPart::Script,
            &mut out,
        );
        assert_eq!(out, "x='a '+b+1;y=i++ +1;z=a+ +b;w=c - -d+e;");
    }

    #[test]
    fn script_lines_run_on_only_where_no_statement_ends() {
        assert!(runs_on("a = b +", CardPart::Script, "c;"));
        assert!(!runs_on("i++", CardPart::Script, "x();"));
        assert!(runs_on("}", CardPart::Script, "});"));
        assert!(!runs_on(
            "var f = function () {}",
            CardPart::Script,
            "var g = 1;"
        ));
        assert!(!runs_on("x)", CardPart::Script, "(y);"));
        assert!(!runs_on("<p>a", CardPart::Page, "b</p>"));
    }

    #[test]
    fn card_script_has_no_line_comment_after_code() {
        // A `//` after code would, once its line runs on into the next (served_card),
        // comment that next line out.
        let script =
            &CARD_HTML[CARD_HTML.find("<script>").unwrap()..CARD_HTML.find("</script>").unwrap()];
        for line in script.lines().map(str::trim_start) {
            assert!(line.starts_with("//") || !line.contains("//"), "{line}");
        }
    }

    #[test]
    fn card_script_has_no_template_literal() {
        // `squeeze` knows only '…' and "…" strings: the spaces in a template literal's text
        // would be taken out of what the card shows.
        let script =
            &CARD_HTML[CARD_HTML.find("<script>").unwrap()..CARD_HTML.find("</script>").unwrap()];
        assert!(!script.contains('`'));
    }

    #[test]
    fn canonical_decodes_only_what_a_value_may_hold() {
        let rev = format!("sha256:{}", "ab".repeat(32));
        let encoded = format!("review://revisions/{}/report", rev.replace(':', "%3a"));
        assert_eq!(
            canonical(&encoded),
            format!("review://revisions/{rev}/report")
        );
        assert_eq!(
            canonical("review://records/rec%5F1%2E2"),
            "review://records/rec_1.2"
        );
        for kept in [
            "a%2Fb", "a%3Fb", "a%23b", "a%25b", "a%zz", "a%3", "a%", "%C3%A9",
        ] {
            assert_eq!(canonical(kept), kept);
        }
        assert!(matches!(watched(&encoded), Some(Watched::Revision(r)) if r == rev));
    }

    /// Every pattern a subscribe refusal names is accepted, and only those.
    #[test]
    fn watchable_names_exactly_what_watched_accepts() {
        let rev = format!("sha256:{}", "ab".repeat(32));
        let named = watchable();
        let patterns: Vec<&str> = named.split(", ").collect();
        assert_eq!(patterns.len(), WATCH_PATTERNS.len());
        assert!(
            patterns.contains(&"review://revisions/<revision>/report"),
            "{named}"
        );
        for p in &patterns {
            let uri = p.replace("<revision>", &rev).replace("<id>", "dec_1");
            assert!(watched(&uri).is_some(), "{p} is named but {uri} is refused");
        }
        for uri in [
            format!("review://revisions/{rev}/other"),
            format!("review://revisions/{rev}/report/report"),
            "review://records/".to_string(),
            "review://decisions/a b".to_string(),
            format!("ui://review-mcp/{rev}"),
        ] {
            assert!(watched(&uri).is_none(), "{uri}");
        }
    }

    #[test]
    fn display_name_uses_file_name_and_short_revision() {
        let rev = format!("sha256:{}", "ab".repeat(32));
        assert_eq!(
            display_name(Some("file:///work/my%20part.step"), &rev),
            "my part.step @ abababababab"
        );
        assert_eq!(display_name(None, &rev), "sha256:abababababab");
        assert_eq!(display_name(Some("plm:"), &rev), "\"plm:\" @ abababababab");
        assert_eq!(
            display_name(Some("file:///w/a%0A%E2%80%AEb.step"), &rev),
            "\"a\\u{a}\\u{202e}b.step\" @ abababababab"
        );
    }

    /// `resources/list` pages in the one cursor format; a cursor of the format it had before
    /// (`r1.<seq>.<revision>`), of another list, or edited, is refused as invalid.
    #[test]
    fn list_pages_in_the_one_cursor_format_and_refuses_others() {
        use crate::store::fixtures::note_at;
        let mut store = Store::open_in_memory().unwrap();
        let rev = |n: usize| format!("sha256:{n:064x}");
        for n in 0..LIST_PAGE_SIZE + 3 {
            let uri = (n % 2 == 0).then(|| format!("file:///w/p{n}.step"));
            store.remember(&note_at(&rev(n), uri)).unwrap();
        }
        let (first, next) = list(&mut store, None).unwrap();
        assert_eq!(first.len(), LIST_PAGE_SIZE);
        assert_eq!(
            first[0]["name"],
            format!(
                "p{}.step @ {}",
                LIST_PAGE_SIZE + 2,
                &rev(LIST_PAGE_SIZE + 2)[7..19]
            )
        );
        let next = next.unwrap();
        assert!(
            next.starts_with("c2.0.1.4."),
            "page 1 served, after the fourth write: {next}"
        );
        let (rest, end) = list(&mut store, Some(&next)).unwrap();
        assert_eq!(rest.len(), 3);
        assert_eq!(rest[2]["uri"], format!("{REVISIONS}{}", rev(0)));
        assert_eq!(end, None);
        let at = cursor::Cursor {
            snapshot: 0,
            tier: 0,
            seq: 4,
        };
        for bad in [
            format!("r1.4.{}", rev(2)),
            cursor::encode(cursor::STATIC_KEY, "resources/list", at),
            cursor::encode(&store.cursor_secret().unwrap(), "tools", at),
            next.replacen("c2.0.1.4.", "c2.0.1.5.", 1),
            String::new(),
        ] {
            assert_eq!(
                list(&mut store, Some(&bad)).err(),
                Some(ResourceError::InvalidCursor),
                "{bad}"
            );
        }
    }

    /// A client that follows `nextCursor` to the end (the TypeScript client's `listResources()`
    /// and its refetch on `list_changed`, which give up after 64 pages) gets to the end within
    /// [`LIST_MAX_PAGES`] pages, however many revisions the file holds: the most recent ones.
    #[test]
    fn list_ends_within_its_page_cap_with_the_most_recent_revisions() {
        use crate::store::fixtures::note_at;
        let mut store = Store::open_in_memory().unwrap();
        let rev = |n: usize| format!("sha256:{n:064x}");
        let total = LIST_MAX_PAGES * LIST_PAGE_SIZE + 70;
        for n in 0..total {
            store.remember(&note_at(&rev(n), None)).unwrap();
        }
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let (items, next) = list(&mut store, cursor.as_deref()).unwrap();
            pages += 1;
            seen.extend(items.iter().map(|i| i["uri"].as_str().unwrap().to_string()));
            match next {
                Some(next) => cursor = Some(next),
                None => break,
            }
            assert!(pages < 64, "still paging after {pages} pages");
        }
        assert_eq!(pages, LIST_MAX_PAGES);
        assert_eq!(seen.len(), LIST_MAX_PAGES * LIST_PAGE_SIZE);
        assert_eq!(seen[0], format!("{REVISIONS}{}", rev(total - 1)));
        assert_eq!(
            seen.last().unwrap(),
            &format!("{REVISIONS}{}", rev(total - seen.len()))
        );
    }
}
