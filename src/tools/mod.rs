//! The review tools: their wire schemas and how each one runs against the store.
//!
//! The service layer validates arguments against `input_schema` before calling [`run`], so a
//! tool's code may rely on the schema's shape; domain rules the schema cannot express are
//! checked here and answered as [`ToolError::Invalid`]. Each tool lives in its own file:
//! its spec (schemas, annotations, description), its argument type, and its run function.

mod artifact_revision;
pub mod card_proof;
mod carry_forward;
mod cursor;
mod forget;
mod recall;
mod recall_decisions;
pub mod record_verdict;
mod remember;
mod remember_decision;
pub mod request_state;
pub mod request_verdicts;
pub mod review_history;
pub mod schema;
pub mod show_review;
pub mod whole_once;

pub use whole_once::WholeOnce;

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::review::{Artifact, DomainError};
use crate::store::{Store, StoreError, damaged_message};
use crate::text::prefix_chars;
use crate::wire::{self, Encoded, PageWriter};

/// A tool as `tools/list` describes it.
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
    pub output_schema: Value,
    /// `ToolAnnotations` (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`).
    pub annotations: Value,
    /// How the tool takes part in the review card (MCP Apps).
    pub ui: Ui,
    /// Runs the tool with arguments that already passed `input_schema`.
    pub run: Run,
}

/// A tool's part in the review card. Every client is given a tool's `_meta.ui` (a host that
/// renders apps without declaring the extension renders the card too); only a client that
/// declared the extension is listed `AppOnly` tools (`service/lists.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ui {
    /// A plain tool.
    None,
    /// Its results render in the card (`_meta.ui.resourceUri`); the model and the card may
    /// call it.
    Card,
    /// Called by the card only (`_meta.ui.visibility: ["app"]`): the host hides it from the
    /// model. Not listed to a client that did not declare the extension, yet served to every
    /// client: the card's proof decides (`tools/card_proof.rs`).
    AppOnly,
}

impl Ui {
    /// The tool's `_meta`, given to every client that is listed the tool: `ui` (`resourceUri`
    /// and `visibility`), and the card's URI again under the flat key `ui/resourceUri`, which
    /// the specification's `Tool` type still names (deprecated) and the official SDK's
    /// `registerAppTool` writes beside `ui.resourceUri`, for hosts that read only that key.
    pub fn meta(self) -> Option<Value> {
        let uri = crate::resources::CARD_URI;
        let visibility = match self {
            Ui::None => return None,
            Ui::Card => serde_json::json!(["model", "app"]),
            Ui::AppOnly => serde_json::json!(["app"]),
        };
        Some(serde_json::json!({
            "ui": {"resourceUri": uri, "visibility": visibility},
            "ui/resourceUri": uri
        }))
    }
}

/// How a tool runs: arguments that passed its input schema, against the store, for `Caller`.
pub type Run = fn(&mut Store, &Value, Caller) -> Result<Step, ToolError>;

/// What the host that called can put before the engineer besides their terminal (which every
/// local host has), so that an answer names only channels that work there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caller {
    /// The host's form: the request declared form elicitation, in a revision that has it.
    pub form: bool,
    /// The review card: the request declared the MCP Apps extension. A host that declared
    /// nothing may render it all the same, so the card is then named as a maybe.
    pub card: bool,
}

/// Where a call stands: done with its answer (a tool's output, then the call's payload, then
/// the era's result or error), or waiting for the engineer. The one "done or ask" type from
/// the tool up to the server.
#[derive(Debug)]
pub enum Step<T = ToolOutput> {
    /// Answered.
    Done(T),
    /// The engineer must answer first (`request_verdicts`): the era adapter puts the question
    /// to the client, and [`request_verdicts::finish`] takes the answer.
    Ask(request_verdicts::Question),
}

impl<T> Step<T> {
    /// The same step with its answer made into another.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Step<U> {
        match self {
            Step::Done(t) => Step::Done(f(t)),
            Step::Ask(q) => Step::Ask(q),
        }
    }
}

/// A successful call: the structured result, already encoded (a page of records goes from
/// the rows straight to text, never through a `Value` tree), and a one-line summary a person
/// can read.
#[derive(Debug)]
pub struct ToolOutput {
    pub structured: Encoded,
    pub summary: String,
    /// The result's `_meta`, for the app a host renders and not for the model (the review
    /// card's proofs, see [`card_proof`]).
    pub meta: Option<serde_json::Map<String, Value>>,
}

impl ToolOutput {
    /// Encodes `structured` (an object) with its summary.
    fn new(structured: &impl Serialize, summary: String) -> Result<ToolOutput, ToolError> {
        let structured = Encoded::of(structured).map_err(encoding_failed)?;
        Ok(ToolOutput {
            structured,
            summary,
            meta: None,
        })
    }

    /// Refuses this answer when it would not fit in an answer line, naming the item it
    /// carries (`what`): a tool calls this before its write commits, so an item too big to be
    /// served, even in a page of its own, is never stored.
    fn refuse_if_too_big(self, what: impl FnOnce() -> String) -> Result<ToolOutput, ToolError> {
        wire::check_item_fits(&what(), self.structured.answer_bytes())
            .map_err(ToolError::Invalid)?;
        Ok(self)
    }

    /// This answer with the item under `member` cut to fit the answer bound when the answer
    /// would pass it, the item naming where it is read whole (`resource` + its id, in parts:
    /// see [`wire::fit_item`]).
    ///
    /// A summary longer than [`SUMMARY_ROOM`] (the engineer's words `request_verdicts` could
    /// not record) takes its excess from the item's budget.
    fn fit_member(self, member: &str, resource: &str) -> Result<ToolOutput, ToolError> {
        let bytes = self.structured.answer_bytes();
        let summary = wire::to_json(&self.summary).map_or(usize::MAX, |j| j.len());
        let budget = wire::PAGE_ITEMS_BUDGET.saturating_sub(summary.saturating_sub(SUMMARY_ROOM));
        if bytes <= budget {
            return Ok(self);
        }
        let mut v = self.structured.to_value().map_err(encoding_failed)?;
        if let Some(item) = v.get_mut(member) {
            let rest = bytes.saturating_sub(wire::answer_bytes(item));
            let id = item.get("id").and_then(Value::as_str).unwrap_or_default();
            let whole = format!("{resource}{id}/part/1");
            let taken = std::mem::take(item);
            *item = wire::fit_item(taken, budget.saturating_sub(rest), &whole);
        }
        ToolOutput::new(&v, self.summary)
    }

    /// This answer with `value` added to its structured content as `member` (an answer's
    /// note beside its items, a few hundred bytes).
    fn with_member(self, member: &str, value: Value) -> Result<ToolOutput, ToolError> {
        let mut v = self.structured.to_value().map_err(encoding_failed)?;
        if let Some(o) = v.as_object_mut() {
            o.insert(member.to_string(), value);
        }
        Ok(ToolOutput {
            meta: self.meta,
            ..ToolOutput::new(&v, self.summary)?
        })
    }

    /// A recall page with its summary, ended by a hint to follow the cursor when more rows
    /// follow.
    fn page(
        page: PageWriter,
        next: Option<String>,
        mut summary: String,
    ) -> Result<ToolOutput, ToolError> {
        if page.has_cut_item() {
            summary.push_str(
                "; the first is too large for one answer and comes cut to fit (its `truncated` names what was cut and where it is whole)",
            );
        }
        summary.push_str(if next.is_some() {
            "; more follow: call again with cursor set to next_cursor."
        } else {
            "."
        });
        let structured = page.finish(next.as_deref()).map_err(encoding_failed)?;
        Ok(ToolOutput {
            structured,
            summary,
            meta: None,
        })
    }
}

fn encoding_failed(e: wire::Error) -> ToolError {
    ToolError::Internal(format!("could not encode the answer: {e}"))
}

/// What a summary may take of the answer bound beside a page's items
/// ([`wire::PAGE_ITEMS_BUDGET`] leaves 3 KB for it, the envelope and `_meta`), in bytes of
/// JSON.
const SUMMARY_ROOM: usize = 2 * 1024;

/// A failed call, answered as an `isError` result whose text says what to fix.
#[derive(Debug, PartialEq)]
pub enum ToolError {
    /// The arguments break a domain rule.
    Invalid(String),
    /// The database refused (full disk, read-only file, ...). Nothing was written.
    Storage(String),
    /// SQLite found the database damaged (its finding), which [`ToolError::of_file`] turns
    /// into a [`ToolError::Storage`] naming the file and the `check` command for it.
    Damaged(String),
    /// The server could not build its answer: a bug, reported rather than hidden.
    Internal(String),
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::Invalid(m) => f.write_str(m),
            ToolError::Storage(m) => write!(f, "Storage error, nothing was written: {m}"),
            ToolError::Damaged(m) => write!(
                f,
                "Storage error, nothing was written: {}",
                damaged_message(None, m)
            ),
            ToolError::Internal(m) => write!(f, "Internal error: {m}"),
        }
    }
}

impl ToolError {
    /// This failure as the database at `path` (the store's; `None` in memory) had it: a
    /// damaged file is named, with the `check` command for it.
    pub fn of_file(self, path: Option<&Path>) -> ToolError {
        match (self, path) {
            (ToolError::Damaged(m), Some(path)) => {
                ToolError::Storage(damaged_message(Some(path), &m))
            }
            (other, _) => other,
        }
    }
}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Invalid(m) => ToolError::Invalid(m),
            other => {
                log::error!("store: {other}");
                match other.damage() {
                    Some(finding) => ToolError::Damaged(finding),
                    None => ToolError::Storage(other.user_message()),
                }
            }
        }
    }
}

impl From<DomainError> for ToolError {
    fn from(e: DomainError) -> Self {
        ToolError::Invalid(e.0)
    }
}

/// Every tool, in the order `tools/list` shows them.
pub fn catalog() -> Vec<ToolSpec> {
    vec![
        remember::spec(),
        recall::spec(),
        remember_decision::spec(),
        recall_decisions::spec(),
        carry_forward::spec(),
        request_verdicts::spec(),
        show_review::spec(),
        record_verdict::spec(),
        forget::spec(),
        artifact_revision::spec(),
        review_history::spec(),
    ]
}

/// Reads arguments into the tool's type. The schema has already accepted them, so a failure
/// here means the schema and the type disagree; the message still says what was wrong.
fn parse<T: DeserializeOwned>(tool: &str, args: &Value) -> Result<T, ToolError> {
    T::deserialize(args).map_err(|e| {
        ToolError::Invalid(format!(
            "Invalid arguments for tool {tool}: {e}. See the tool's inputSchema."
        ))
    })
}

/// Reads an optional JSON Schema `integer`: JSON Schema counts any number with a zero
/// fractional part as an integer (`50`, `50.0`, `5e1`; Python writes floats so), and
/// whatever the input schema accepts the tool accepts. Range checks stay with the schema.
fn integer<'de, D>(d: D) -> Result<Option<u64>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let Some(n) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(u) = n.as_u64() {
        return Ok(Some(u));
    }
    match n.as_f64() {
        // Exactly representable and in range: u64::MAX as f64 rounds up to 2^64, hence `<`.
        Some(f) if f.fract() == 0.0 && f >= 0.0 && f < u64::MAX as f64 => Ok(Some(f as u64)),
        _ => Err(serde::de::Error::custom(format!(
            "expected a non-negative integer, got {n}"
        ))),
    }
}

/// Reads an optional list of JSON Schema `integer`s, each as [`integer`] reads one.
fn integers<'de, D>(d: D) -> Result<Option<Vec<u64>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let Some(list) = Option::<Vec<Value>>::deserialize(d)? else {
        return Ok(None);
    };
    list.into_iter()
        .map(|v| {
            integer(v)
                .map_err(serde::de::Error::custom)?
                .ok_or_else(|| serde::de::Error::custom("expected an integer, got null"))
        })
        .collect::<Result<Vec<u64>, D::Error>>()
        .map(Some)
}

/// `artifact` as the caller sends it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArtifactArg {
    revision: String,
    format: String,
    uri: Option<String>,
    units: Option<String>,
}

impl ArtifactArg {
    /// Validates and normalises (a path becomes a `file:` URI, resolved against the
    /// server's working directory).
    fn normalise(&self) -> Result<Artifact, ToolError> {
        Ok(Artifact::from_input(
            &self.revision,
            &self.format,
            self.uri.as_deref(),
            self.units.as_deref(),
            || std::env::current_dir().ok(),
        )?)
    }
}

/// A revision given by the short form an answer writes (`sha256:9d297e93c19f…`, see
/// `WholeOnce`; or its hex digits alone, as `show_review`'s line and the report's title write
/// them after `@`), which a tool cannot take: what the form is, what to pass, and the stored
/// revision it stands for when exactly one begins so (never a guess among several: how many
/// do); or a whole digest spelled as a checksum tool prints it (see [`digest_as_revision`]):
/// the revision to pass. `None` for anything else. Written for every field of a revision: the
/// schema's refusal (`service/calls.rs`) and `carry_forward`'s own check. One index seek per
/// revision found, at most `SHORT_FORM_MATCHES` + 1 a column.
pub fn short_revision_refused(store: &mut Store, value: &str) -> Option<String> {
    if let Some(refused) = digest_refused(value) {
        return Some(refused);
    }
    let bare;
    let head = match crate::review::short_revision_head(value) {
        Some(head) => head,
        None => {
            bare = format!("sha256:{value}");
            crate::review::short_revision_head(&bare)?
        }
    };
    let found = store.complete(
        crate::store::Completable::Revision,
        head,
        &crate::store::Narrowing::default(),
        SHORT_FORM_MATCHES,
    );
    let here = match found.as_ref().map(|m| (m.values.as_slice(), m.has_more)) {
        Ok(([one], false)) => format!(": the one revision here that begins {head} is {one}"),
        Ok(([], _)) => format!(" (no revision here begins {head})"),
        Ok((_, true)) => format!(
            " (more than {SHORT_FORM_MATCHES} revisions here begin {head}: give the one meant)"
        ),
        Ok((many, false)) => format!(
            " ({} revisions here begin {head}: give the one meant)",
            many.len()
        ),
        Err(_) => String::new(),
    };
    Some(short_form_message(value, &here))
}

/// The revision a whole SHA-256 digest stands for when `value` spells it as a checksum tool
/// prints it rather than as a revision: the 64 hex digits alone (`sha256sum`, `shasum -a
/// 256`, Python's `hexdigest()`), or in capitals (PowerShell's `Get-FileHash`), with or
/// without `sha256:` in either case. `None` for a revision as it should be and for anything
/// else.
fn digest_as_revision(value: &str) -> Option<String> {
    if crate::review::is_revision(value) {
        return None;
    }
    let hex = match value.get(..7) {
        Some(prefix) if prefix.eq_ignore_ascii_case("sha256:") => &value[7..],
        _ => value,
    };
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("sha256:{}", hex.to_ascii_lowercase()))
}

/// A whole digest spelled as a checksum tool prints it (see [`digest_as_revision`]): what it
/// is and the revision to pass. `None` for anything else. A tool's argument and the command
/// line's FILE-OR-REVISION are refused in these words.
pub fn digest_refused(value: &str) -> Option<String> {
    let Some(revision) = digest_as_revision(value) else {
        return padded_refused(value);
    };
    Some(format!(
        "\"{value}\" is a SHA-256 digest as a checksum tool prints it (its hex digits \
         alone, or in capitals), not a revision: a revision is sha256: and the 64 hex \
         digits in lower case; pass \"{revision}\""
    ))
}

/// A revision or digest (see [`digest_as_revision`]) with spaces or a line break around it,
/// as a copy from a terminal or `$(cat file)` of a file without its last line break leaves
/// it: what it is (shown escaped) and the revision to pass. `None` for anything else.
fn padded_refused(value: &str) -> Option<String> {
    let trimmed = value.trim();
    if trimmed.len() == value.len() {
        return None;
    }
    let revision = if crate::review::is_revision(trimmed) {
        trimmed.to_string()
    } else {
        digest_as_revision(trimmed)?
    };
    Some(format!(
        "{} has spaces or a line break around a revision, not a revision: a revision is sha256: and the 64 hex digits in lower case, nothing around them; pass \"{revision}\"",
        crate::text::quoted(value, 80)
    ))
}

/// [`short_revision_refused`] with no database to look in: what the form is and what to pass.
pub fn short_revision_refused_alone(value: &str) -> Option<String> {
    crate::review::short_revision_head(value)?;
    Some(short_form_message(value, ""))
}

fn short_form_message(value: &str, here: &str) -> String {
    format!(
        "\"{value}\" is the short form an answer writes for a revision it gives whole once (in \
         its artifacts table or where it first names it); pass the whole revision, sha256: and \
         64 hex digits{here}"
    )
}

/// How many revisions a short-form refusal counts before it says "more than".
const SHORT_FORM_MATCHES: usize = 10;

/// The refusal of an `entity_id` sent without the `artifact` it belongs to; `ids` names the
/// ids (`entity ids`, `face ids`).
fn entity_id_needs_artifact(ids: &str) -> String {
    format!(
        "entity_id needs artifact: {ids} only mean something at one revision, so send the artifact whose revision produced the id"
    )
}

/// The tool's own refusal of arguments that miss the member `missing` a `required` rule of
/// its input schema names, where the tool says more than the schema's "is a required
/// property" (why, and what to send); `None` where it does not. The schema refuses the call
/// all the same (`service/calls.rs`): only the words are the tool's.
pub fn required_refused(tool: &str, missing: &str, args: &Value) -> Option<String> {
    let ids = match tool {
        recall::NAME => recall::IDS,
        recall_decisions::NAME => recall_decisions::IDS,
        _ => return None,
    };
    (missing == "artifact" && args.get("entity_id").is_some())
        .then(|| entity_id_needs_artifact(ids))
}

/// What the optional `artifact` and `entity_id` of both recalls select (and the `artifact` of
/// `review_history`).
struct RecallScope {
    /// The supplied revision: records of any other are marked stale.
    current: Option<String>,
    /// With a `uri`: every revision of that file.
    locator: Option<String>,
    /// Without a `uri`: only that revision.
    revision: Option<String>,
    /// `(entity_id, revision)`: entity ids only mean something at the revision that made them.
    entity: Option<(String, String)>,
}

impl RecallScope {
    /// `ids` names the ids in the refusal of an `entity_id` without an artifact.
    fn of(
        artifact: Option<&ArtifactArg>,
        entity_id: Option<&str>,
        ids: &str,
    ) -> Result<RecallScope, ToolError> {
        let artifact = artifact.map(ArtifactArg::normalise).transpose()?;
        let current = artifact.as_ref().map(|a| a.revision.clone());
        let entity = match (entity_id, &current) {
            (Some(e), Some(rev)) => Some((e.to_string(), rev.clone())),
            (Some(_), None) => return Err(ToolError::Invalid(entity_id_needs_artifact(ids))),
            (None, _) => None,
        };
        let locator = artifact.and_then(|a| a.uri);
        Ok(RecallScope {
            revision: current.clone().filter(|_| locator.is_none()),
            current,
            locator,
            entity,
        })
    }
}

/// How much of each item a list answers: the summary form by default, every field on request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    Summary,
    Full,
}

/// What the summary of an entity filter that matched nothing at the supplied revision adds:
/// where else the id is known ("; face:3 is known at 2 other revisions of this file").
fn elsewhere_hint(entity: &str, revisions: u64, of_file: bool) -> String {
    // The id as the caller sent it: cut and escaped, so it stays on the summary's one line.
    let entity = crate::text::inline(entity, 100);
    if revisions == 0 {
        return format!("; {entity} is not known at any other revision either");
    }
    let scope = if of_file { " of this file" } else { "" };
    format!(
        "; {entity} is known at {revisions} other revision{}{scope} (entity ids do not travel between revisions: recall without entity_id, or with that revision's artifact)",
        if revisions == 1 { "" } else { "s" }
    )
}

/// A file's uri that a hint tells the caller to call with ("ask with that uri"), quoted whole:
/// cut short ("file:///w/deep/…") it is no uri to call with. An artifact's uri is at most
/// [`schema::MAX_URI`] characters, so the hint stays bounded.
fn uri_to_call(uri: &str) -> String {
    crate::text::quoted(uri, usize::try_from(schema::MAX_URI).unwrap_or(usize::MAX))
}

/// How many stored names (or subjects) of one file a lookup that matched none compares with
/// the name asked for ([`named_alike`]): every feature of a large review, bounded.
const NAMES_COMPARED: usize = 10_000;

/// The stored names among `stored` that a person reads as `asked` but are spelled otherwise
/// (`text::alike`: composed accents, invisible characters, white space, width, case), at most
/// three, each spelled so the difference shows and followed by what differs: `"Bore\u{301}",
/// which differs in Unicode composition`. `None` when none is. A lookup by name is exact;
/// this says why it missed what looks the same.
fn named_alike(asked: &str, stored: &[String]) -> Option<String> {
    let key = crate::text::alike_key(asked);
    let alike: Vec<String> = stored
        .iter()
        .filter(|name| crate::text::has_alike_key(name, &key))
        .filter_map(|name| {
            let mut how = crate::text::alike(asked, name)?;
            let last = how.pop().unwrap_or_default();
            let how = match how.is_empty() {
                true => last.to_string(),
                false => format!("{} and {last}", how.join(", ")),
            };
            Some(format!(
                "{}, which differs in {how}",
                crate::text::spelled(name, 200)
            ))
        })
        .take(3)
        .collect();
    (!alike.is_empty()).then(|| alike.join("; "))
}

/// [`named_alike`] as a sentence ending a summary: `" Not named exactly so here, but named
/// alike: …; give that spelling to <to>."`, or nothing.
fn named_alike_sentence(asked: &str, stored: &[String], to: &str) -> String {
    named_alike(asked, stored).map_or_else(String::new, |alike| {
        format!(" Not named exactly so here, but named alike: {alike}; give that spelling to {to}.")
    })
}

/// What a statement of `name` compares the other names of its file with, when it makes the
/// name new there ([`stated_alike_sentence`]): keeps those a person reads as `name`.
fn names_alike(name: &str) -> crate::store::NamesAlike {
    let key = crate::text::alike_key(name);
    crate::store::NamesAlike {
        keep: Box::new(move |other| crate::text::has_alike_key(other, &key)),
        compared: NAMES_COMPARED,
    }
}

/// A sentence ending the answer of a statement that made a name new on its file when another
/// name there reads as it ([`named_alike`]): the model meant that one, most likely, and now
/// holds two. `what` is `feature` (`to` `change`) or `decision` (`to` `state`); nothing when
/// none is alike.
fn stated_alike_sentence(name: &str, others: &[String], what: &str, to: &str) -> String {
    named_alike(name, others).map_or_else(String::new, |alike| {
        format!(
            " Another {what} here is named alike: {alike}; to {to} that one give its spelling, and forget this one if it was meant."
        )
    })
}

/// How many items a summary looks at for [`OtherFiles`]: enough to name the other files,
/// bounded so a miss stays cheap.
const OTHER_FILES_LOOKED_AT: usize = 50;

/// What a summary found of the same revision under other files when nothing matched at the
/// file named: each item seen is counted, under its file, or as recorded without a uri (found
/// by the revision alone). The part was moved, renamed or copied, and its review is under the
/// path it had.
#[derive(Default)]
struct OtherFiles {
    found: usize,
    files: Vec<String>,
    without_uri: bool,
}

impl OtherFiles {
    /// One item of the revision, at `uri` (none: recorded without one), seen from `locator`.
    fn see(&mut self, uri: Option<&str>, locator: &str) {
        match uri {
            None => self.without_uri = true,
            Some(file) => {
                if file != locator && !self.files.iter().any(|f| f == file) {
                    self.files.push(file.to_string());
                }
            }
        }
        self.found += 1;
    }

    /// The summary's hint (empty when nothing was seen), saying "at least" when `more` may be
    /// there than were looked at.
    fn hint(&self, item: &str, more: bool) -> String {
        let (found, files) = (self.found, &self.files);
        if found == 0 {
            return String::new();
        }
        let shown: Vec<String> = files
            .iter()
            .take(2)
            .map(|f| crate::text::quoted(f, 120))
            .collect();
        let rest = files.len().saturating_sub(shown.len());
        let (is, it) = if found == 1 {
            ("is", "it")
        } else {
            ("are", "them")
        };
        // An item without a uri is under no file: it was not moved, and "no uri" is no path.
        let place = if files.is_empty() {
            "recorded without a uri".to_string()
        } else {
            format!(
                "under another file ({}{}){}: the same bytes at another path (moved, renamed or copied?)",
                shown.join(", "),
                if rest > 0 {
                    format!(" and {rest} more")
                } else {
                    String::new()
                },
                if self.without_uri {
                    " or recorded without a uri"
                } else {
                    ""
                }
            )
        };
        format!(
            "; {}{found} {item}{} of this revision {is} {place}{} the same call with the artifact's revision and no uri finds {it}",
            if more { "at least " } else { "" },
            if found == 1 { "" } else { "s" },
            if files.is_empty() { ":" } else { ";" },
        )
    }
}

/// `sha256:0123abcd…` for summaries.
fn short_rev(rev: &str) -> String {
    prefix_chars(rev, 15)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Whole the first time, short after; a revision whose short form another one said
    /// shares stays whole, and a table entry that would make a written short form name two
    /// is refused (the page ends before it).
    #[test]
    fn a_page_says_a_revision_whole_once() {
        let rev = |head: char, tail: char| {
            format!(
                "sha256:{}{}",
                head.to_string().repeat(12),
                tail.to_string().repeat(52)
            )
        };
        let (a, twin) = (rev('a', '1'), rev('a', '2'));
        let mut once = WholeOnce::default();
        let mut items = [
            json!({"carried": {"from": a}}),
            json!({"carried": {"from": a}}),
        ];
        for i in &mut items {
            once.name_at(i, "/carried/from");
        }
        assert_eq!(items[0]["carried"]["from"], json!(a));
        assert_eq!(
            items[1]["carried"]["from"],
            json!(format!("sha256:{}…", "a".repeat(12)))
        );
        assert!(!once.clone().said_in(&json!({"revision": twin})));
        assert!(once.said_in(&json!({"superseded": {"by": a}})));
        // A twin said whole by an item: from then on both stay whole.
        let mut other = WholeOnce::default();
        let mut items = [
            json!({"carried": {"from": a}}),
            json!({"carried": {"from": twin}}),
            json!({"carried": {"from": a}}),
        ];
        for i in &mut items {
            other.name_at(i, "/carried/from");
        }
        assert_eq!(items[2]["carried"]["from"], json!(a));
    }
}
