//! The review of a revision as an AS9102 Rev C Form 3 (Characteristic Accountability,
//! Verification and Compatibility Evaluation), in CSV: one row per basis requirement of
//! every decision of the revision. The `review-mcp form3` command writes it whole; the
//! resource `review://revisions/{revision}/form3.csv` serves it within the answer bound.
//!
//! Two steps: [`Form3::load`] fills the typed input ([`Form3Header`], [`Form3Row`]) from the
//! store; [`Form3::csv`] is a pure function of that input to bytes. The CSV is RFC 4180
//! (CRLF after every record, a field quoted when it holds a comma, quote, CR or LF, quotes
//! doubled), UTF-8 without a byte-order mark (but for the file a spreadsheet opens:
//! [`Form3::csv_file`]), every record with the same number of fields
//! (the header lines are padded), and the same input always gives the same bytes.
//!
//! Every stored string goes through [`cell`]: line breaks inside a cell become LF (so the
//! only CRLFs of the file end records), other control and bidirectional characters are shown
//! as `\u{…}` escapes, and a cell a spreadsheet would run as a formula (its first character,
//! after any leading whitespace or invisible character, one of `=` `+` `-` `@` or their
//! full-width forms; a tab or CR first is escaped already) gets a leading `'`. A cell is at
//! most [`MAX_CELL`] characters (Excel's limit): a longer one is cut, saying where the whole
//! text is.

use std::fmt::Write as _;

use crate::review::carry::{NotCarried, entities_label};
use crate::review::{CarryState, Decision, Judgement, Meaning, State, Verdict};
use crate::store::Store;
use crate::text::escape_controls_but_newlines;

use super::ResourceError;
use super::view::escaped_len;

/// The column headings, in order: AS9102 Rev C Form 3 fields 5 to 12, then this product's.
pub const COLUMNS: [&str; 18] = [
    "5. Char. No.",
    "6. Reference Location",
    "7. Characteristic Designator",
    "8. Requirement",
    "9. Results",
    "10. Designed / Qualified Tooling",
    "11. Nonconformance Number",
    "12. Additional Data / Comments",
    "State",
    "QIF Status",
    "Verdict",
    "Verdict Given By",
    "Verdict Channel",
    "Verdict Recorded By",
    "Verdict At",
    "Inherited From",
    "Decision Id",
    "Basis Item",
];

/// The UTF-8 byte-order mark that starts a Form 3 written as a file ([`Form3::csv_file`]).
pub const BOM: char = '\u{FEFF}';

/// At most this many file URIs are named in the header (a URI may be 4 KiB: three and the
/// rest of the header stay well within one answer); the others are counted.
const MAX_FILES_SHOWN: usize = 3;

/// The most revisions the Note names whole for the short forms of the rows: one sentence
/// (about 140 characters) each, so the Note stays one readable cell however many the rows
/// quote (an evidence may be 65,536 characters: about 3,000 short forms).
pub const MAX_NAMED_SHORT: usize = 8;

/// The lines before the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Form3Header {
    pub revision: String,
    /// The file URIs the revision's decisions were recorded under, sorted, each once.
    pub files: Vec<String>,
    /// For a partial (delta) FAI, the earlier revisions this one was carried from that rows
    /// still rest on (inherited, or to re-verify), oldest carry first. Empty: a full FAI.
    pub partial_of: Vec<String>,
    /// A full FAI of a revision carried from this earlier one: every row was stated again
    /// here, none is carried any more.
    pub restated_after: Option<String>,
    /// Of a partial FAI's rows (all of them, shown or not): how many are still to
    /// re-verify, and how many are inherited (not re-verified at this revision).
    pub to_reverify: usize,
    pub inherited: usize,
    /// The revision this one was carried to (with the `change` given): this record is
    /// superseded, and the FAI line says so.
    pub superseded_by: Option<(String, Option<String>)>,
    /// The database the form was read from (`None`: in memory), which the command that writes
    /// every row names when the resource had to cut it.
    pub database: Option<std::path::PathBuf>,
    /// The revisions the rows name only by their short form (an evidence label kept from an
    /// earlier revision, a carried disposition), each whole, that no other line names whole:
    /// the Note names them, so the filed form says which revision a result was quoted at.
    pub named_short: Vec<String>,
    /// More than [`MAX_NAMED_SHORT`] such revisions were found: the Note names the first
    /// and says how to resolve the others.
    pub more_short: bool,
}

/// One basis requirement: one row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Form3Row {
    pub decision_id: String,
    pub subject: String,
    pub disposition: String,
    /// The item's place in its decision's basis, from 1.
    pub item: usize,
    pub requirement: String,
    pub source: String,
    pub source_detail: Option<String>,
    pub evidence: Option<String>,
    pub state: State,
    pub question: Option<String>,
    /// Empty: the whole part.
    pub faces: Vec<String>,
    /// The verdict on this item. For an inherited row, the one given at `inherited_from`:
    /// history, shown in the comments, never in this revision's verdict columns.
    pub verdict: Option<Verdict>,
    /// `Some(revision)`: carried from that revision and not re-verified at this one. Its
    /// evidence and verdict are that revision's, never this revision's results.
    pub inherited_from: Option<String>,
    /// `Some`: carried from an earlier revision marked to be re-verified (it touches an
    /// entity that changed or could not be carried). Not a result of this revision either;
    /// an item is inherited or to re-verify, not both (re-verify wins).
    pub reverify: Option<Reverify>,
    /// The entity ids a judged item lost to a carry (`faces` empty): its Reference
    /// Location names them with their revision, never "whole part".
    pub not_carried: Option<NotCarried>,
}

/// A carried item still to re-verify: where it came from and why: the entities reported
/// changed, and those that could not be carried (unmapped); both empty when it is about the
/// whole part.
#[derive(Debug, Clone, PartialEq)]
pub struct Reverify {
    pub from: String,
    pub changed: Vec<String>,
    pub unmapped: Vec<String>,
    /// The revision `changed` and `unmapped` are ids of, when it is not `from` (the item
    /// was carried on unchanged before a later carry touched it).
    pub ids_of: Option<String>,
}

/// A Form 3: the header, the rows it shows, and how many rows the revision has in all
/// (`rows.len() < total` only when the resource cut it to fit one answer).
#[derive(Debug, Clone, PartialEq)]
pub struct Form3 {
    pub header: Form3Header,
    pub rows: Vec<Form3Row>,
    pub total: usize,
}

impl Form3Row {
    /// The rows of one stored decision, in basis order.
    pub fn of(d: &Decision) -> Vec<Form3Row> {
        d.basis
            .iter()
            .enumerate()
            .map(|(i, b)| Form3Row {
                decision_id: d.id.clone(),
                subject: d.subject.clone(),
                disposition: d.disposition.clone(),
                item: i + 1,
                requirement: b.requirement.clone(),
                source: b.source.as_str().to_string(),
                source_detail: b.source_detail.clone(),
                evidence: b.evidence.clone(),
                state: b.state,
                question: b.question.clone(),
                faces: b.faces.clone(),
                // A carried item has no verdict of this revision: the engineer's at the
                // earlier one is its history (`carried.verdict`).
                verdict: b
                    .verdict
                    .clone()
                    .or_else(|| b.carried.as_ref().and_then(|c| c.verdict.clone())),
                inherited_from: b.inherited_from().map(str::to_string),
                reverify: b
                    .carried
                    .as_ref()
                    .filter(|c| c.state == CarryState::Reverify)
                    .map(|c| Reverify {
                        from: c.from.clone(),
                        changed: c
                            .changed_and_carried()
                            .into_iter()
                            .map(str::to_string)
                            .collect(),
                        unmapped: c.unmapped.clone(),
                        ids_of: c.ids_of.clone(),
                    }),
                not_carried: b.not_carried.clone(),
            })
            .collect()
    }

    /// What the row costs in the CSV at least (its text, before quoting): what
    /// [`Form3::load`] budgets with.
    fn min_bytes(&self) -> usize {
        self.requirement.len()
            + self.evidence.as_deref().map_or(0, str::len)
            + self.question.as_deref().map_or(0, str::len)
            + self.subject.len()
            + self.faces.iter().map(|f| f.len() + 2).sum::<usize>()
    }
}

/// The QIF characteristic status of a basis state: `satisfied` PASS, `violated` FAIL,
/// `unresolved` NOT_ANALYZED (nobody has judged it yet), `conflicting` INDETERMINATE (it
/// was analysed and the evidence disagrees: the result cannot be determined, which is what
/// INDETERMINATE says; OTHER would say nothing), `not-applicable` OTHER (QIF has no status
/// for a requirement that does not apply; the State column says which).
pub fn qif_status(state: State) -> &'static str {
    match state {
        State::Satisfied => "PASS",
        State::Violated => "FAIL",
        State::Unresolved => "NOT_ANALYZED",
        State::Conflicting => "INDETERMINATE",
        State::NotApplicable => "OTHER",
    }
}

impl Form3 {
    /// The Form 3 of `revision` from the store: every decision at it (whatever its file),
    /// oldest first, each basis in order. With `budget`, rows are kept only while their text
    /// totals at most that many bytes (the rest are counted in `total`, not held), so a read
    /// holds no more than it can serve. Not found when nothing is recorded at `revision`.
    pub fn load(
        store: &mut Store,
        revision: &str,
        budget: Option<usize>,
    ) -> Result<Form3, ResourceError> {
        let mut rows = Vec::new();
        let mut files: Vec<String> = Vec::new();
        let mut total = 0;
        let mut spent = 0usize;
        let mut full = false;
        let mut carried_rows = 0usize;
        let (mut to_reverify, mut inherited) = (0usize, 0usize);
        // The revisions the carried rows' decisions were carried from.
        let mut came_from: Vec<String> = Vec::new();
        // The decisions of the rows kept that hold a carried item without a verdict here
        // (see the end).
        let mut carried: Vec<Decision> = Vec::new();
        let any = store.decisions_of_revision(revision, |d| {
            let kept_before = rows.len();
            if let Some(u) = &d.artifact.uri
                && !files.contains(u)
            {
                files.push(u.clone());
            }
            for row in Form3Row::of(&d) {
                total += 1;
                if row.reverify.is_some() {
                    to_reverify += 1;
                } else if row.inherited_from.is_some() {
                    inherited += 1;
                }
                if row.inherited_from.is_some() || row.reverify.is_some() {
                    carried_rows += 1;
                    if let Some(c) = &d.carried
                        && !came_from.contains(&c.from)
                    {
                        came_from.push(c.from.clone());
                    }
                }
                spent = spent.saturating_add(row.min_bytes());
                // The first row is kept whatever its size: alone larger than one answer, it
                // is served cut (see `csv_within`), never left out.
                full = full || (budget.is_some_and(|b| spent > b) && !rows.is_empty());
                if !full {
                    rows.push(row);
                }
            }
            if rows.len() > kept_before
                && d.basis
                    .iter()
                    .any(|b| b.carried.is_some() && b.verdict.is_none())
            {
                carried.push(d);
            }
            true
        })?;
        if !any {
            return Err(ResourceError::NotFound);
        }
        // An engineer's verdict given at the earlier revision after the carry (a clone's,
        // by sync) is the verdict there now: the row's comments name it, not the item's
        // history from before it, as every other answer does.
        for (d, after) in carried.iter().zip(store.verdicts_after_carry_of(&carried)?) {
            for a in after {
                let unjudged_here = d.basis.get(a.index).is_some_and(|b| b.verdict.is_none());
                if let Some(row) = rows
                    .iter_mut()
                    .find(|r| r.decision_id == d.id && r.item == a.index + 1)
                    .filter(|_| unjudged_here)
                {
                    row.verdict = Some(a.verdict);
                }
            }
        }
        files.sort();
        let supersession = store.supersession(revision)?;
        let supersedes: Vec<String> = supersession
            .supersedes
            .into_iter()
            .map(|(rev, _)| rev)
            .collect();
        // Partial (delta) FAI: the revisions this one was carried from that a row still
        // rests on (not one whose items were all stated here already), in the order they
        // were carried; once every row is stated here, a full one.
        let mut partial_of: Vec<String> = supersedes
            .iter()
            .filter(|r| came_from.contains(r))
            .cloned()
            .collect();
        if carried_rows > 0 && partial_of.is_empty() {
            partial_of = came_from;
        }
        if carried_rows > 0 && partial_of.is_empty() {
            // No link left to the revision carried from (an imported carried row without
            // its decision's mark): the revisions the rows say they come from, never "full".
            for r in &rows {
                let from = r
                    .inherited_from
                    .as_ref()
                    .or(r.reverify.as_ref().map(|rv| &rv.from));
                if let Some(from) = from
                    && !partial_of.contains(from)
                {
                    partial_of.push(from.clone());
                }
            }
        }
        let supersedes = supersedes.last().cloned();
        let (named_short, more_short) = named_short(
            store,
            revision,
            &partial_of,
            supersedes.as_deref(),
            supersession.superseded_by.as_ref().map(|(r, _)| r.as_str()),
            &rows,
        )?;
        Ok(Form3 {
            header: Form3Header {
                revision: revision.to_string(),
                files,
                partial_of,
                restated_after: supersedes.filter(|_| carried_rows == 0),
                to_reverify,
                inherited,
                superseded_by: supersession.superseded_by,
                database: store.path().map(std::path::Path::to_path_buf),
                named_short,
                more_short,
            },
            rows,
            total,
        })
    }

    /// The CSV as a file for a spreadsheet (`review-mcp form3 -o FILE`): [`Form3::csv`]
    /// after a UTF-8 byte-order mark. Excel on Windows reads a `.csv` opened from the file
    /// manager in the ANSI code page unless it starts with one (`Ø` shows as `Ã˜`); with it,
    /// Excel, LibreOffice, pandas and Python's `utf-8-sig` read UTF-8. Never in what a
    /// model reads (the resource) or a pipe gets (stdout): there it is an invisible
    /// character glued to the first cell.
    pub fn csv_file(&self) -> String {
        let mut out = String::from(BOM);
        out.push_str(&self.csv());
        out
    }

    /// The CSV, every row shown (see the module's rules).
    pub fn csv(&self) -> String {
        let mut out = String::new();
        self.write_header(self.rows.len(), false, &mut out);
        for (i, row) in self.rows.iter().enumerate() {
            out.push_str(&row_csv(i + 1, row));
        }
        out
    }

    /// The CSV cut to the first rows whose text, escaped into a JSON string, takes at most
    /// `bound` bytes with the header: the header then says how many rows of how many are
    /// shown and names the command that writes them all. Nothing is cut inside a row, but
    /// for a first row alone larger than `bound`: it is served with its longest cells cut,
    /// each ending where its whole text is, and the header says so (served nothing, a reader
    /// would have no row and no way to one). The same bytes as [`Form3::csv`] when everything
    /// fits.
    pub fn csv_within(&self, bound: usize) -> String {
        let whole = self.csv();
        if self.rows.len() == self.total && escaped_len(&whole) <= bound {
            return whole;
        }
        let mut head = String::new();
        self.write_header(self.total, true, &mut head);
        // Room for the longer truncation line (its digits and words) the header gets.
        let mut used = escaped_len(&head) + 200;
        let mut rows = String::new();
        let mut shown = 0;
        for (i, row) in self.rows.iter().enumerate() {
            let text = row_csv(i + 1, row);
            let cost = escaped_len(&text).saturating_sub(2);
            if used + cost > bound {
                break;
            }
            used += cost;
            rows.push_str(&text);
            shown += 1;
        }
        let mut cut = false;
        if let (0, Some(first)) = (shown, self.rows.first()) {
            rows = first_row_within(first, bound.saturating_sub(used));
            shown = 1;
            cut = true;
        }
        let mut out = String::new();
        self.write_header(shown, cut, &mut out);
        out.push_str(&rows);
        out
    }

    /// The header lines and the column headings; `shown` rows follow, the first of them cut
    /// to fit when `first_cut`.
    fn write_header(&self, shown: usize, first_cut: bool, out: &mut String) {
        let h = &self.header;
        let mut files = if h.files.is_empty() {
            "(no file recorded: the revision only)".to_string()
        } else {
            h.files
                .iter()
                .take(MAX_FILES_SHOWN)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join("; ")
        };
        if let Some(more) = h
            .files
            .len()
            .checked_sub(MAX_FILES_SHOWN)
            .filter(|n| *n > 0)
        {
            let _ = write!(
                files,
                "; and {more} more (each row's Decision Id names its decision)"
            );
        }
        let mut fai = if !h.partial_of.is_empty() {
            // What is still carried, not that it "was re-verified": nobody need have
            // checked anything at this revision yet.
            format!(
                "Partial FAI: carried from {}; only what changed is re-verified: {} to \
                 re-verify, {} inherited (not re-verified at this revision)",
                h.partial_of.join(" and "),
                plural_rows(h.to_reverify),
                h.inherited
            )
        } else {
            match &h.restated_after {
                Some(from) => format!(
                    "Full FAI: carried from {from}, and every row stated again at this revision"
                ),
                None => "Full FAI".to_string(),
            }
        };
        if let Some((by, change)) = &h.superseded_by {
            let _ = write!(fai, "; superseded by revision {by}");
            if let Some(change) = change {
                let _ = write!(fai, " ({change})");
            }
            fai.push_str(": carried there by carry_forward");
        }
        let rows = if shown < self.total || first_cut {
            let first = if first_cut {
                "; row 1 is cut (alone larger than one answer): each cut cell ends saying where its whole text is"
            } else {
                ""
            };
            let db = h.database.as_deref();
            let command =
                crate::tools::request_verdicts::command_line("form3", db, None, Some(&h.revision));
            let whose = if db.is_some() {
                ""
            } else {
                " on the server's database"
            };
            format!(
                "{shown} of {}: truncated to fit one answer{first}; run {}{whose} for every row",
                self.total,
                crate::text::code_span(&command)
            )
        } else {
            format!("{shown} of {}", self.total)
        };
        let mut note = String::from(
            "Requirements as stated and evidence as quoted in the review: this server never measures. Fields 1 to 4 are not recorded in the review: the engineer fills them in. Inherited and re-verify rows are an earlier revision's results (in their comments), not this one's. A cell that would start a spreadsheet formula starts with '. A cell is at most 32,767 characters: a longer one is cut and says where the whole text is.",
        );
        for rev in &h.named_short {
            let _ = write!(
                note,
                " Revision {rev} is named in the rows by its short form ({}).",
                crate::review::carry::short_revision(rev)
            );
        }
        if h.more_short {
            note.push_str(
                " More revisions are named in the rows only by their short form: \
                 `review-mcp form3 SHORT-FORM` names the whole revision one stands for.",
            );
        }
        let lines: [(&str, &str); 10] = [
            (
                "Form",
                "AS9102 Rev C Form 3: Characteristic Accountability, Verification and Compatibility Evaluation",
            ),
            // AS9102's fields 1 to 4: the review records none of them, so none is made up;
            // each is left empty for the engineer (the note says so).
            ("1. Part Number", ""),
            ("2. Part Name", ""),
            ("3. Serial Number", ""),
            ("4. FAI Report Number", ""),
            ("Part File", &files),
            ("Revision", &h.revision),
            ("FAI", &fai),
            ("Rows", &rows),
            ("Note", &note),
        ];
        for (key, value) in lines {
            let mut fields = vec![cell(key), cell(value)];
            fields.resize(COLUMNS.len(), String::new());
            push_record(out, &fields);
        }
        let headings: Vec<String> = COLUMNS.iter().map(|c| cell(c)).collect();
        push_record(out, &headings);
    }
}

/// The revisions `rows` name only by their short form (in a kept evidence label or a carried
/// disposition) that neither the header nor a row's `Inherited From` or re-verify revision
/// names whole, each resolved to the one stored revision it begins (one that begins no stored
/// revision, or several, is left as the row says it: never a guess): the first
/// [`MAX_NAMED_SHORT`], and whether there are more. Each short form is looked up once, and
/// the lookups end once more than the Note names are found.
fn named_short(
    store: &mut Store,
    revision: &str,
    partial_of: &[String],
    restated_after: Option<&str>,
    superseded_by: Option<&str>,
    rows: &[Form3Row],
) -> Result<(Vec<String>, bool), ResourceError> {
    use std::collections::HashSet;
    let mut whole: Vec<&str> = vec![revision];
    whole.extend(partial_of.iter().map(String::as_str));
    whole.extend(restated_after);
    whole.extend(superseded_by);
    for r in rows {
        whole.extend(r.inherited_from.as_deref());
        if let Some(rv) = &r.reverify {
            whole.push(&rv.from);
            whole.extend(rv.ids_of.as_deref());
        }
    }
    // A short form is `sha256:` and 12 hex digits: the heads of the revisions named whole.
    let said: HashSet<&str> = whole.iter().filter_map(|w| w.get(..19)).collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut named = Vec::new();
    for r in rows {
        let texts = [Some(r.disposition.as_str()), r.evidence.as_deref()];
        for head in texts
            .into_iter()
            .flatten()
            .flat_map(crate::review::carry::short_forms_in)
        {
            if said.contains(head) || !seen.insert(head) {
                continue;
            }
            let found = store.complete(
                crate::store::Completable::Revision,
                head,
                &crate::store::Narrowing::default(),
                1,
            )?;
            if let ([one], false) = (found.values.as_slice(), found.has_more) {
                if named.len() == MAX_NAMED_SHORT {
                    return Ok((named, true));
                }
                named.push(one.clone());
            }
        }
    }
    Ok((named, false))
}

/// "1 row", "2 rows".
fn plural_rows(n: usize) -> String {
    format!("{n} row{}", if n == 1 { "" } else { "s" })
}

/// One data row as a CSV record.
fn row_csv(number: usize, r: &Form3Row) -> String {
    row_csv_capped(number, r, MAX_CELL)
}

/// Row 1 as a CSV record whose text, escaped into a JSON string, takes at most `room` bytes:
/// each cell cut at the most characters (at most [`MAX_CELL`]) that lets it fit, saying where
/// its whole text is. The cap is the largest that fits, so the short cells (number, state,
/// decision id) stay whole; at the very least every cell is its marker, and 18 markers are
/// well within an answer.
fn first_row_within(r: &Form3Row, room: usize) -> String {
    let fits = |cap: usize| {
        let text = row_csv_capped(1, r, cap);
        (escaped_len(&text).saturating_sub(2) <= room).then_some(text)
    };
    let (mut lo, mut hi) = (0, MAX_CELL);
    let mut best = fits(0).unwrap_or_else(|| row_csv_capped(1, r, 0));
    // The largest cap that fits: a smaller cap never makes a row longer.
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        match fits(mid) {
            Some(text) => {
                best = text;
                lo = mid;
            }
            None => hi = mid - 1,
        }
    }
    best
}

/// One data row as a CSV record, each cell at most `cap` characters (see [`bounded`]).
fn row_csv_capped(number: usize, r: &Form3Row, cap: usize) -> String {
    let (not_carried, of) = match (&r.reverify, &r.not_carried) {
        (Some(rv), _) => (&rv.unmapped[..], rv.ids_of.as_deref()),
        (None, Some(n)) => (&n.ids[..], Some(n.of.as_str())),
        (None, None) => (&[][..], None),
    };
    let location = entities_label(&r.faces, not_carried, of);
    // Every stored string in the prose is quoted with its quotes escaped, so a subject or
    // an evidence cannot end its own words and write the comments' (a fake "verdict there:
    // accepted by the engineer", the only place a carried row's verdict is named).
    let source = match &r.source_detail {
        Some(d) => format!("{} ({})", r.source, prose(d)),
        None => r.source.clone(),
    };
    let mut comments = format!(
        "Decision {}: {}. Source: {source}.",
        prose(&r.subject),
        prose(&r.disposition)
    );
    if let Some(q) = &r.question {
        let _ = write!(comments, " Question: {}", prose(q));
    }
    let carried = match (&r.reverify, &r.inherited_from) {
        (Some(rv), _) => {
            let _ = write!(
                comments,
                " Carried from {} to re-verify at this revision",
                rv.from
            );
            let of = rv
                .ids_of
                .as_ref()
                .map(|r| format!(" of revision {r}"))
                .unwrap_or_default();
            let mut why: Vec<String> = Vec::new();
            if !rv.changed.is_empty() {
                why.push(format!("changed: {}{of}", rv.changed.join(", ")));
            }
            if !rv.unmapped.is_empty() {
                why.push(format!("not carried: {}{of}", rv.unmapped.join(", ")));
            }
            if !why.is_empty() {
                let _ = write!(comments, " ({})", why.join("; "));
            }
            Some("re-verify")
        }
        (None, Some(from)) => {
            let _ = write!(
                comments,
                " Inherited from {from}, not re-verified at this revision"
            );
            Some("inherited")
        }
        (None, None) => None,
    };
    let (results, state, qif, verdict_cells) = match carried {
        Some(mark) => {
            let _ = write!(comments, "; there: {}", r.state.as_str());
            if let Some(e) = &r.evidence {
                let _ = write!(comments, ", evidence: {}", prose(e));
            }
            if let Some(v) = &r.verdict {
                let _ = write!(comments, "; verdict there: {}", verdict_sentence(v));
            }
            comments.push('.');
            (
                String::new(),
                format!("{mark} ({})", r.state.as_str()),
                "NOT_ANALYZED",
                Default::default(),
            )
        }
        None => (
            r.evidence.clone().unwrap_or_default(),
            r.state.as_str().to_string(),
            // A verdict rejecting the item disputes its stated state: nothing is passed
            // (or failed) that the reviewer refused.
            match &r.verdict {
                Some(v) if v.judgement == Judgement::Rejected => "INDETERMINATE",
                // Results quoted at an earlier revision (a carried item the engineer judged
                // here, not measured again): nothing was analysed at this revision, as for
                // an inherited row; its state is the earlier result's.
                _ if r
                    .evidence
                    .as_deref()
                    .is_some_and(crate::review::carry::says_its_revision) =>
                {
                    "NOT_ANALYZED"
                }
                _ => qif_status(r.state),
            },
            verdict_columns(r.verdict.as_ref()),
        ),
    };
    let [verdict, given_by, channel, recorded_by, at] = verdict_cells;
    let fields = [
        number.to_string(),
        location,
        String::new(),
        r.requirement.clone(),
        results,
        String::new(),
        String::new(),
        comments,
        state,
        qif.to_string(),
        verdict,
        given_by,
        channel,
        recorded_by,
        at,
        r.inherited_from.clone().unwrap_or_default(),
        r.decision_id.clone(),
        r.item.to_string(),
    ];
    let whole = format!("recall_decisions with decision_id {}", r.decision_id);
    let fields: Vec<String> = fields
        .iter()
        .map(|f| bounded(cell(f), cap, &whole))
        .collect();
    let mut out = String::new();
    push_record(&mut out, &fields);
    out
}

/// The most a spreadsheet cell holds: Excel keeps 32,767 characters (UTF-16 code units) of
/// a cell and silently drops the rest.
pub const MAX_CELL: usize = 32_767;

/// `cell` (already [`cell`]-made) within `cap` characters (UTF-16 code units; [`MAX_CELL`]
/// in a file, less in a row cut to fit one answer): a longer one is cut at a character and
/// ends saying how long it was and where its whole text is (`whole`), so a spreadsheet never
/// drops part of it silently.
fn bounded(cell: String, cap: usize, whole: &str) -> String {
    if cell.encode_utf16().count() <= cap {
        return cell;
    }
    let marker = format!(
        " … [cut: {} characters in all; the whole text: {whole}]",
        cell.chars().count()
    );
    let room = cap.saturating_sub(marker.encode_utf16().count());
    let mut used = 0;
    let mut out = String::new();
    for c in cell.chars() {
        used += c.len_utf16();
        if used > room {
            break;
        }
        out.push(c);
    }
    out.push_str(&marker);
    out
}

/// Verdict, given by, channel, recorded by, at: `pending` and empty cells without one.
fn verdict_columns(v: Option<&Verdict>) -> [String; 5] {
    let Some(v) = v else {
        return ["pending", "", "", "", ""].map(String::from);
    };
    let mut judgement = v.judgement.as_str().to_string();
    // An engineer's verdict is an attestation: what it means (a review unless they said
    // approval), as the report, the card and the terminal say it. The assistant's has none.
    if v.via.is_engineer() {
        let meaning = v.meaning.map_or("review", Meaning::as_str);
        let _ = write!(judgement, " ({meaning})");
    }
    if let Some(r) = v.reason.as_deref().filter(|r| !r.is_empty()) {
        let _ = write!(judgement, ": {r}");
    }
    let by = if v.via.is_engineer() {
        "engineer"
    } else {
        "assistant"
    };
    [
        judgement,
        by.to_string(),
        v.via.as_str().to_string(),
        v.author.clone().unwrap_or_default(),
        v.at.clone(),
    ]
}

/// "accepted by the engineer (form, Ada), 2026-…: reason".
fn verdict_sentence(v: &Verdict) -> String {
    let mut s = format!("{}{}, {}", v.judgement.as_str(), v.given_by(), v.at);
    if let Some(r) = v.reason.as_deref().filter(|r| !r.is_empty()) {
        let _ = write!(s, ": {}", prose(r));
    }
    s
}

/// A stored string in the comments' prose: whole, between double quotes, its quotes and
/// controls escaped ([`crate::text::quoted`]).
fn prose(s: &str) -> String {
    crate::text::quoted(s, usize::MAX)
}

/// Appends one record: the fields (already [`cell`]-made) quoted where RFC 4180 needs it,
/// and where a semicolon is (a spreadsheet in a locale whose list separator is `;` splits an
/// unquoted field there, and a part that starts with `=` would run as a formula), separated
/// by commas, ended by CRLF.
fn push_record(out: &mut String, fields: &[String]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if f.contains([',', ';', '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&f.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(f);
        }
    }
    out.push_str("\r\n");
}

/// A stored string made safe as a cell (see the module's rules): line breaks as LF, other
/// control and bidirectional characters escaped, and a formula start defused with `'`.
pub fn cell(s: &str) -> String {
    let mut out = escape_controls_but_newlines(&s.replace("\r\n", "\n").replace('\r', "\n"));
    // Past leading whitespace and the invisible characters a reader may drop (zero-width
    // space and joiners, word joiner, byte-order mark, soft hyphen).
    let first = out.chars().find(|c| {
        !c.is_whitespace()
            && !matches!(
                c,
                '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}'
            )
    });
    if matches!(
        first,
        Some('=' | '+' | '-' | '@' | '\u{FF1D}' | '\u{FF0B}' | '\u{FF0D}' | '\u{FF20}')
    ) {
        out.insert(0, '\'');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_semicolon_never_splits_a_field_where_it_is_the_separator() {
        let mut out = String::new();
        push_record(
            &mut out,
            &[cell("x;=HYPERLINK(\"http://e\")"), cell("plain")],
        );
        assert_eq!(out, "\"x;=HYPERLINK(\"\"http://e\"\")\",plain\r\n");
    }

    #[test]
    fn cell_defuses_formulas_and_controls() {
        assert_eq!(cell("=1+2"), "'=1+2");
        assert_eq!(cell("  @SUM(A1)"), "'  @SUM(A1)");
        assert_eq!(cell("\n-2"), "'\n-2");
        assert_eq!(cell("\t=x"), "\\u{9}=x");
        assert_eq!(cell("\r=x"), "'\n=x");
        assert_eq!(cell("＝HYPERLINK()"), "'＝HYPERLINK()");
        assert_eq!(cell("a\r\nb\rc"), "a\nb\nc");
        assert_eq!(cell("x\u{202E}y\0"), "x\\u{202e}y\\u{0}");
        assert_eq!(cell("0.02 mm"), "0.02 mm");
        // An invisible character first (that a reader may drop) does not hide a formula:
        // it is shown as its escape (as every reader shows it), or, where it is not escaped,
        // looked past.
        for (hidden, shown) in [
            ("\u{FEFF}=1+2", "\\u{feff}=1+2"),
            ("\u{200B} +1", "\\u{200b} +1"),
            ("\u{00AD}@x", "\\u{ad}@x"),
            ("\u{200D}=x", "'\u{200D}=x"),
        ] {
            let out = cell(hidden);
            assert!(out.starts_with(['\\', '\'']), "{out:?}");
            assert_eq!(out, shown);
        }
    }

    #[test]
    fn record_quotes_only_what_rfc_4180_needs() {
        let mut out = String::new();
        push_record(
            &mut out,
            &[
                "a".into(),
                "b,c".into(),
                "say \"hi\"".into(),
                "l1\nl2".into(),
            ],
        );
        assert_eq!(out, "a,\"b,c\",\"say \"\"hi\"\"\",\"l1\nl2\"\r\n");
    }

    #[test]
    fn qif_status_of_each_state() {
        assert_eq!(qif_status(State::Satisfied), "PASS");
        assert_eq!(qif_status(State::Violated), "FAIL");
        assert_eq!(qif_status(State::Unresolved), "NOT_ANALYZED");
        assert_eq!(qif_status(State::Conflicting), "INDETERMINATE");
    }

    /// Regression (form3 audit): an item the engineer rejected ("satisfied" stated, the
    /// engineer disagreeing) said PASS beside "rejected (review)", a status the engineer had
    /// just refused. A rejected item's status is INDETERMINATE, whatever its stated state.
    #[test]
    fn a_rejected_item_is_not_passed() {
        for (state, judgement, status) in [
            (State::Satisfied, Judgement::Rejected, "INDETERMINATE"),
            (State::Violated, Judgement::Rejected, "INDETERMINATE"),
            (State::Satisfied, Judgement::Accepted, "PASS"),
            (State::Violated, Judgement::Accepted, "FAIL"),
        ] {
            let mut r = row(None);
            r.state = state;
            if let Some(v) = r.verdict.as_mut() {
                v.judgement = judgement;
            }
            let csv = form3(vec![], None, vec![r], 1).csv();
            let line = csv.split("\r\n").nth(11).unwrap_or_default();
            assert!(
                line.contains(&format!(",{},{status},", state.as_str())),
                "{state:?} {judgement:?}: {line}"
            );
        }
    }

    fn row(inherited: Option<&str>) -> Form3Row {
        Form3Row {
            decision_id: "dec_1".into(),
            subject: "bore".into(),
            disposition: "accept".into(),
            item: 1,
            requirement: "Ø10 H7".into(),
            source: "drawing".into(),
            source_detail: None,
            evidence: Some("10.008 measured".into()),
            state: State::Satisfied,
            question: None,
            faces: vec!["face:3".into()],
            verdict: Some(Verdict {
                at: "2026-01-02T03:04:05Z".into(),
                author: Some("Ada".into()),
                judgement: crate::review::Judgement::Accepted,
                meaning: None,
                reason: None,
                via: crate::review::Via::Elicitation,
            }),
            inherited_from: inherited.map(str::to_string),
            reverify: None,
            not_carried: None,
        }
    }

    /// A Form 3 of revision `sha256:22…` (superseded by nothing) with these files, rows and
    /// total, partial when carried from `partial_of`.
    fn form3(
        files: Vec<String>,
        partial_of: Option<&str>,
        rows: Vec<Form3Row>,
        total: usize,
    ) -> Form3 {
        Form3 {
            header: Form3Header {
                revision: format!("sha256:{}", "2".repeat(64)),
                files,
                partial_of: partial_of.map(str::to_string).into_iter().collect(),
                restated_after: None,
                to_reverify: 0,
                inherited: 0,
                superseded_by: None,
                database: None,
                named_short: Vec::new(),
                more_short: false,
            },
            rows,
            total,
        }
    }

    /// An inherited row never shows the earlier revision's evidence, status or verdict as
    /// this revision's: Results and the verdict columns are empty, QIF says NOT_ANALYZED, and
    /// the history is in the comments; the header says partial.
    #[test]
    fn inherited_rows_are_history_not_results() {
        let from = format!("sha256:{}", "1".repeat(64));
        let form = form3(vec![], Some(&from), vec![row(Some(&from)), row(None)], 2);
        let csv = form.csv();
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert!(lines[7].starts_with(&format!("FAI,\"Partial FAI: carried from {from}")));
        let inherited = lines[11];
        assert!(
            inherited.starts_with("1,face:3,,Ø10 H7,,,,\"Decision \"\"bore\"\": \"\"accept\"\"."),
            "{inherited}"
        );
        assert!(
            inherited.contains(&format!(
                ",inherited (satisfied),NOT_ANALYZED,,,,,,{from},dec_1,1"
            )),
            "{inherited}"
        );
        assert!(inherited.contains("verdict there: accepted by the engineer (form, Ada)"));
        let fresh = lines[12];
        assert!(fresh.contains(",10.008 measured,"), "{fresh}");
        assert!(
            fresh.ends_with(
                ",satisfied,PASS,accepted (review),engineer,elicitation,Ada,2026-01-02T03:04:05Z,,dec_1,1"
            ),
            "{fresh}"
        );
    }

    /// A row to re-verify is not a result of this revision either: empty Results and
    /// verdict columns, NOT_ANALYZED, the entities not carried named in the comments.
    #[test]
    fn reverify_rows_are_not_results_either() {
        let from = format!("sha256:{}", "1".repeat(64));
        let mut r = row(None);
        r.reverify = Some(Reverify {
            from: from.clone(),
            changed: vec![],
            unmapped: vec!["face:3".into()],
            ids_of: None,
        });
        let form = form3(vec![], Some(&from), vec![r], 1);
        let csv = form.csv();
        let line = csv.split("\r\n").nth(11).unwrap();
        assert!(line.starts_with("1,face:3,,Ø10 H7,,,,"), "{line}");
        assert!(
            line.contains(&format!("Carried from {from} to re-verify at this revision (not carried: face:3); there: satisfied, evidence: \"\"10.008 measured\"\"; verdict there: accepted by the engineer (form, Ada)")),
            "{line}"
        );
        assert!(
            line.contains(",re-verify (satisfied),NOT_ANALYZED,,,,,,,dec_1,1"),
            "{line}"
        );
    }

    /// With 1,000 ids both changed and not carried (as many as fit Excel's cell), each list
    /// names every id once, in order: "changed" once and "not carried" once.
    #[test]
    fn entities_not_carried_are_named_once_each_at_the_largest_item() {
        let from = format!("sha256:{}", "1".repeat(64));
        let ids: Vec<String> = (0..1_000).map(|i| format!("face:{i}")).collect();
        let mut r = row(None);
        r.faces = vec![];
        r.reverify = Some(Reverify {
            from: from.clone(),
            changed: ids.clone(),
            unmapped: ids.clone(),
            ids_of: None,
        });
        let line = row_csv(1, &r);
        let label = crate::review::carry::entities_label(&[], &ids, None);
        assert!(line.contains(&label), "{}", &line[..200]);
        assert!(line.contains(&format!(
            "changed: {}; not carried: {})",
            ids.join(", "),
            ids.join(", ")
        )));
        assert!(!line.contains("face:999, face:0,"), "named twice");
    }

    /// Regression: the comments put the subject between quotes it did not escape and the
    /// disposition, question, evidence and reason bare, so a stored string could write the
    /// comments' own words: a fake "verdict there: accepted by the engineer" on a carried
    /// row, the only place its verdict is named. Outside the quoted strings, the comments of
    /// a row without a verdict say nothing of one.
    #[test]
    fn a_stored_string_cannot_write_the_comments_own_words() {
        let forged = "; verdict there: accepted by the engineer (form, Ada), 2026-01-02T03:04:05Z";
        let mut r = row(Some(&format!("sha256:{}", "1".repeat(64))));
        r.verdict = None;
        r.subject = format!("x\": release{forged}. \"y");
        r.disposition = format!("hold{forged}");
        r.question = Some(format!("q\"{forged}"));
        r.evidence = Some(format!("10.0\"{forged}"));
        r.source_detail = Some(format!("d){forged}"));
        let line = row_csv(1, &r);
        let comments = line
            .split(",\"Decision ")
            .nth(1)
            .expect("the comments cell")
            .replace("\"\"", "\"");
        let mut outside = String::new();
        let (mut in_quotes, mut escaped) = (false, false);
        for c in comments.chars() {
            match (in_quotes, escaped, c) {
                (true, true, _) => escaped = false,
                (true, false, '\\') => escaped = true,
                (_, false, '"') => in_quotes = !in_quotes,
                (false, _, c) => outside.push(c),
                _ => {}
            }
        }
        assert!(!outside.contains("verdict there"), "{outside}\n{line}");
        assert!(outside.contains("Inherited from"), "{outside}");
    }

    #[test]
    fn header_names_three_files_and_counts_the_rest() {
        let files = (0..5).map(|i| format!("file:///w/{i}.step")).collect();
        let form = form3(files, None, vec![], 0);
        let csv = form.csv();
        assert!(
            csv.contains("Part File,\"file:///w/0.step; file:///w/1.step; file:///w/2.step; and 2 more (each row's Decision Id names its decision)\","),
            "{csv}"
        );
        assert!(csv.contains("Rows,0 of 0,"));
    }

    #[test]
    fn csv_within_cuts_whole_rows_and_says_so() {
        let mut long = row(None);
        long.evidence = Some("x".repeat(3000));
        let form = form3(vec!["file:///w/p.step".into()], None, vec![long; 20], 25);
        let text = form.csv_within(10_000);
        assert!(escaped_len(&text) <= 10_000);
        assert!(text.contains("Rows,\"2 of 25: truncated"), "{text}");
        assert_eq!(text.matches("\r\n").count(), 11 + 2);
        let small = Form3 {
            rows: vec![row(None)],
            total: 1,
            ..form
        };
        assert_eq!(small.csv_within(10_000), small.csv());
    }

    #[test]
    fn csv_within_cuts_a_first_row_larger_than_the_bound_to_fit() {
        // Control characters cost up to 12 bytes each once escaped in the cell and in JSON.
        let mut huge = row(None);
        huge.evidence = Some("\u{7}\"".repeat(20_000));
        huge.requirement = "r".repeat(20_000);
        let form = form3(
            vec!["file:///w/p.step".into()],
            None,
            vec![huge, row(None)],
            2,
        );
        let text = form.csv_within(10_000);
        assert!(escaped_len(&text) <= 10_000, "{}", escaped_len(&text));
        assert!(text.contains("Rows,\"1 of 2: truncated to fit one answer; row 1 is cut"));
        let data: Vec<&str> = text.split("\r\n").skip(11).collect();
        assert_eq!(data.len(), 2, "one row, then the end: {data:?}");
        assert!(
            data[0].starts_with("1,face:3,,\"rrrr"),
            "{}",
            &data[0][..40]
        );
        assert!(data[0].ends_with(",dec_1,1"), "short cells whole");
        assert_eq!(
            data[0]
                .matches("the whole text: recall_decisions with decision_id dec_1]")
                .count(),
            2
        );
    }
}
