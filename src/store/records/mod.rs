//! Records: remember (replace a named feature, append a note), recall with keyset pages,
//! forget.

pub(super) mod rows;

use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::browse::RECORD_SAID_ON;
use super::codec::dedup;
use super::page::{Segment, current_seq, next_seq, run_segments_into};
use super::query::Clause;
use super::search::{fts_words, match_all, match_column};
use super::{Page, PageRequest, Position, Store, StoreError, history};
use crate::review::history::{Channel, Written, record_events};
use crate::review::{Artifact, CarryState, Kind, Record, RecordRef, id};
use crate::time;
use rows::{
    RECORD_COLS, RECORD_COLS_LEN, delete_records, feature_copy, load_record, record_ref_from_row,
    write_record, write_stated_before_carry,
};

/// What `remember` stores: the artifact already normalised.
#[derive(Debug, Clone)]
pub struct NewRecord {
    pub artifact: Artifact,
    pub name: Option<String>,
    pub note: Option<String>,
    pub tags: Vec<String>,
    pub entity_ids: Vec<String>,
    pub id_scheme: String,
}

impl NewRecord {
    /// The record it states under `id`: fresh (neither carried nor superseded), its lists
    /// without repeats.
    fn stated(
        &self,
        id: String,
        author: Option<String>,
        created_at: String,
        updated_at: String,
    ) -> Record {
        Record {
            id,
            kind: if self.name.is_some() {
                Kind::Feature
            } else {
                Kind::Note
            },
            name: self.name.clone(),
            note: self.note.clone(),
            tags: dedup(&self.tags),
            entity_ids: dedup(&self.entity_ids),
            id_scheme: self.id_scheme.clone(),
            artifact: self.artifact.clone(),
            author,
            carried: None,
            superseded: None,
            created_at,
            updated_at,
        }
    }
}

/// The filters of `recall`, ANDed. `entity_id` is matched only at `entity_revision`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordQuery {
    /// `artifact` with a `uri`: this locator, across revisions.
    pub locator: Option<String>,
    /// `artifact` without a `uri`: records written for this revision.
    pub revision: Option<String>,
    /// Exact entity id, with the revision it belongs to.
    pub entity: Option<(String, String)>,
    pub text: Option<String>,
    pub tags: Vec<String>,
    pub kind: Option<Kind>,
    /// Only records carried in this state (inherited, or to re-verify).
    pub carried: Option<CarryState>,
    /// Leave out what a carry superseded while a later copy still says it (see
    /// [`RECORD_SAID_ON`]): the copy at the later revision is the record. One whose every
    /// copy was forgotten since is listed, as `recall_decisions` lists such a decision.
    pub current_only: bool,
    /// The revision the caller supplied as the part's current one: its records are never
    /// left out by `current_only`. A carry past it does not make them copies of anything for
    /// a caller whose file is at that revision (one checked out again), where the copies at
    /// the later revision are the stale ones.
    pub current_revision: Option<String>,
}

impl Store {
    /// Saves a record: a named feature replaces the one with the same (locator, name),
    /// keeping its id and `created_at`; an anonymous note is always new. Returns the stored
    /// record and whether it replaced one.
    pub fn remember(&mut self, new: &NewRecord) -> Result<(Record, bool), StoreError> {
        self.remember_answered(new, None, |r, replaced, _, _| {
            Ok::<_, StoreError>((r.clone(), replaced))
        })
    }

    /// [`Store::remember`], handing the stored record, whether it replaced one, when the
    /// statement named a revision the feature was carried on from the feature as it stands
    /// (left unchanged; the record is then that revision's superseded copy), and when it
    /// made a feature of a name new on its file the names of the other features there that
    /// `alike` keeps (a look-alike check of the new name) to `answer` before
    /// the transaction commits: an error from `answer` (an answer too large to send, say)
    /// writes nothing. So a tool encodes its answer once, inside the call.
    pub fn remember_answered<T, E: From<StoreError>>(
        &mut self,
        new: &NewRecord,
        alike: Option<&NamesAlike>,
        answer: impl FnOnce(&Record, bool, Option<&Record>, &[String]) -> Result<T, E>,
    ) -> Result<T, E> {
        let author = self.author.clone();
        let tx = self.write()?;
        let (record, replaced, onward) = remember_in(&tx, author, new)?;
        let others = match (&record.name, alike, replaced || onward.is_some()) {
            (Some(name), Some(alike), false) => {
                other_names(&tx, Names::Features, record.artifact.locator(), name, alike)?
            }
            _ => Vec::new(),
        };
        let answered = answer(&record, replaced, onward.as_ref(), &others)?;
        tx.commit().map_err(StoreError::from)?;
        Ok(answered)
    }

    /// One page of records matching `q`, newest first (with text: records whose name matches
    /// every word first, then the rest, each group newest first). "Newest" is the order of
    /// creation: a replaced feature keeps its seq.
    pub fn recall(
        &mut self,
        q: &RecordQuery,
        page: PageRequest,
    ) -> Result<Page<Record>, StoreError> {
        let mut records = Vec::new();
        let page = self.recall_each(q, page, |r| {
            records.push(r.into_owned());
            true
        })?;
        Ok(Page {
            items: records
                .into_iter()
                .zip(page.items)
                .map(|(r, ((), pos))| (r, pos))
                .collect(),
            snapshot: page.snapshot,
            more: page.more,
        })
    }

    /// [`Store::recall`] handing each record of the page to `each` in order, borrowed from
    /// its row while it is read (a recall tool serialises it there and then). `each` returns
    /// false to refuse a record because the page is full in bytes: the page then ends before
    /// it, with `more` set, so the next page starts at that record.
    pub fn recall_each(
        &mut self,
        q: &RecordQuery,
        page: PageRequest,
        mut each: impl FnMut(RecordRef<'_>) -> bool,
    ) -> Result<Page<()>, StoreError> {
        // Paging is exact because a row's position never changes: its seq is taken when it
        // is created and kept when it is replaced. A cursor carries the snapshot (the write
        // counter at page 1) and the last position served; every later page serves the rows
        // after that position with `seq <= snapshot`, as they are when that page is read. So
        // a row that matches throughout is served once, a row created after page 1 (seq above
        // the snapshot) never, and a deleted row at most once (before it went).
        // Up to `limit + 1` rows are read: the last one only says whether more follow.
        let mut seen = 0;
        let mut at = |row: &Row<'_>| -> rusqlite::Result<Option<((), Position)>> {
            let seq: i64 = row.get(13)?;
            let tier: i64 = row.get(RECORD_COLS_LEN)?;
            if seen < page.limit && !each(record_ref_from_row(row)?.0) {
                return Ok(None);
            }
            seen += 1;
            Ok(Some(((), Position { tier, seq })))
        };
        let tx = self.read()?;
        let snapshot = match page.snapshot {
            Some(s) => s,
            None => current_seq(&tx)?,
        };
        let empty = Page {
            items: Vec::new(),
            snapshot,
            more: false,
        };
        let words = q.text.as_deref().map(fts_words);
        let text = match &words {
            Some(w) => match (match_all(w), match_column("name", w)) {
                (Some(all), Some(name)) => Some((all, name)),
                _ => return Ok(empty),
            },
            None => None,
        };
        let mut items = Vec::new();
        let mut segments: Vec<Segment> = Vec::new();
        match text {
            Some((all, name)) => {
                // Text order: tier 0 when the name holds every word, then tier 1; each tier
                // newest first. Both depend only on the row and the query, so the order of
                // unchanged rows is stable while other rows are written (bm25 would shift).
                // The full-text rowid is the record's seq, so each tier is one index walk
                // in result order that stops at the page size.
                // With an entity filter, the full-text walk is confined to the seq span of
                // the entity's records (usually written close together), found from the
                // side table's index.
                let entity_span = match &q.entity {
                    Some((entity, rev)) => {
                        let span: (Option<i64>, Option<i64>) = tx
                            .prepare_cached(
                                "SELECT min(seq), max(seq) FROM record_entities \
                                 WHERE entity_id = ?1 AND revision = ?2 AND seq <= ?3",
                            )?
                            .query_row(params![entity, rev, snapshot], |r| r.try_into())?;
                        match span {
                            (Some(low), Some(high)) => Some((low, high)),
                            _ => return Ok(empty),
                        }
                    }
                    None => None,
                };
                let start_tier = page.after.map_or(0, |a| a.tier);
                let segment = |tier: i64, expr: String, skip: &[i64]| -> Segment {
                    let mut c = Clause::default();
                    // One upper and one lower rowid bound, so FTS5 uses both for its walk.
                    let mut upper = snapshot;
                    if let Some(after) = page.after.filter(|a| a.tier == tier) {
                        upper = upper.min(after.seq.saturating_sub(1));
                    }
                    if let Some((_, high)) = entity_span {
                        upper = upper.min(high);
                    }
                    c.add("f.records_fts MATCH ?", [SqlValue::Text(expr)]);
                    c.add("f.rowid <= ?", [SqlValue::Integer(upper)]);
                    if let Some((low, _)) = entity_span {
                        c.add("f.rowid >= ?", [SqlValue::Integer(low)]);
                    }
                    if !skip.is_empty() {
                        let list = serde_json::to_string(&skip).unwrap_or_else(|_| "[]".into());
                        c.add(
                            "f.rowid NOT IN (SELECT value FROM json_each(?))",
                            [SqlValue::Text(list)],
                        );
                    }
                    record_filters(&mut c, q, "r.seq", Driver::Text);
                    let sql = format!(
                        "SELECT {RECORD_COLS}, {tier} AS tier FROM records_fts f \
                             CROSS JOIN records r ON r.seq = f.rowid WHERE {} \
                             ORDER BY f.rowid DESC LIMIT ?",
                        c.joined()
                    );
                    (sql, c.params)
                };
                if start_tier == 0
                    && run_segments_into(
                        &tx,
                        vec![segment(0, name.clone(), &[])],
                        page.limit,
                        &mut items,
                        &mut at,
                    )?
                {
                    return Ok(Page {
                        items,
                        snapshot,
                        more: true,
                    });
                }
                // Tier 1: every word somewhere, not every word in the name. On a first page,
                // tier 0 has just been walked from the top to its end (unless it filled the
                // page, and then tier 1 is not run), so the rows it returned are all the name
                // matches under these bounds and filters: leaving those out by rowid spares
                // FTS5 a second walk of the name's doclists for the NOT. A later page uses the
                // NOT.
                if items.len() <= page.limit {
                    let (expr, skip) = if page.after.is_none() {
                        (all, items.iter().map(|(_, p)| p.seq).collect::<Vec<_>>())
                    } else {
                        (format!("({all}) NOT ({name})"), Vec::new())
                    };
                    segments.push(segment(1, expr, &skip));
                }
            }
            None => {
                let mut c = Clause::default();
                // Drive from the most selective index that is already in seq order.
                let (from, seq_col) = if let Some((entity, rev)) = &q.entity {
                    c.add(
                        "d.entity_id = ? AND d.revision = ?",
                        [Clause::text(entity), Clause::text(rev)],
                    );
                    (
                        "record_entities d CROSS JOIN records r ON r.seq = d.seq",
                        "d.seq",
                    )
                } else if let Some(first) = q.tags.first() {
                    c.add("d.tag = ?", [Clause::text(first)]);
                    (
                        "record_tags d CROSS JOIN records r ON r.seq = d.seq",
                        "d.seq",
                    )
                } else {
                    ("records r", "r.seq")
                };
                c.add(&format!("{seq_col} <= ?"), [SqlValue::Integer(snapshot)]);
                let driver = if q.entity.is_some() {
                    Driver::Entity
                } else if q.tags.is_empty() {
                    Driver::Records
                } else {
                    Driver::FirstTag
                };
                record_filters(&mut c, q, seq_col, driver);
                if let Some(after) = page.after {
                    c.add(&format!("{seq_col} < ?"), [SqlValue::Integer(after.seq)]);
                }
                let sql = format!(
                    "SELECT {RECORD_COLS}, 1 AS tier FROM {from} WHERE {} \
                     ORDER BY {seq_col} DESC LIMIT ?",
                    c.joined()
                );
                segments.push((sql, c.params));
            }
        }
        let full = run_segments_into(&tx, segments, page.limit, &mut items, &mut at)?;
        let more = full || items.len() > page.limit;
        items.truncate(page.limit);
        Ok(Page {
            items,
            snapshot,
            more,
        })
    }

    /// Deletes the named feature at `locator`: what `revision` said of it when the feature
    /// was carried on from that revision (its superseded copy), else the feature as it stands
    /// (the row not superseded). Never both: a carried feature's copy is the earlier
    /// revision's record, as a superseded decision is. A feature with carries behind it is
    /// deleted as it stands only at its own revision, so the same call made again after its
    /// copy went deletes nothing (forget is idempotent); one never carried, whatever
    /// revision is named. A feature with carries behind it deleted where it stands leaves its
    /// end in the history (`forgotten`), what tells an import that an older version of it is
    /// the feature forgotten since. Returns how many rows went (0 or 1).
    pub fn forget_feature(
        &mut self,
        locator: &str,
        name: &str,
        revision: &str,
    ) -> Result<usize, StoreError> {
        Ok(self.forget_feature_saying(locator, name, revision)?.0)
    }

    /// [`Store::forget_feature`], with, when nothing went, the revision the feature stands
    /// at (if it stands anywhere at `locator`), read in the same transaction: the revision
    /// to name to forget it.
    pub fn forget_feature_saying(
        &mut self,
        locator: &str,
        name: &str,
        revision: &str,
    ) -> Result<(usize, Option<String>), StoreError> {
        let author = self.author.clone();
        let tx = self.write()?;
        let seqs: Vec<i64> = tx
            .prepare_cached(
                "SELECT seq FROM records WHERE locator = ?1 AND name = ?2 \
                 AND superseded IS NOT NULL AND revision = ?3 \
                 UNION ALL SELECT seq FROM records WHERE locator = ?1 AND name = ?2 \
                 AND superseded IS NULL \
                 AND NOT EXISTS (SELECT 1 FROM records WHERE locator = ?1 AND name = ?2 \
                   AND superseded IS NOT NULL AND revision = ?3) \
                 AND (revision = ?3 OR (carried IS NULL \
                   AND NOT EXISTS (SELECT 1 FROM records WHERE locator = ?1 AND name = ?2 \
                     AND superseded IS NOT NULL)))",
            )?
            .query_map(params![locator, name, revision], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        for seq in &seqs {
            forgotten_where_carried(&tx, author.as_deref(), *seq)?;
        }
        let n = delete_records(&tx, &seqs)?;
        let stands_at = if n == 0 {
            tx.prepare_cached(
                "SELECT revision FROM records WHERE locator = ?1 AND name = ?2 \
                 AND superseded IS NULL",
            )?
            .query_map(params![locator, name], |r| r.get::<_, String>(0))?
            .next()
            .transpose()?
        } else {
            None
        };
        tx.commit()?;
        Ok((n, stands_at))
    }

    /// The files (`None`: recorded without a uri) under which `revision` has a feature named
    /// exactly `name`, at most `limit`: where a `forget` that found nothing at its locator
    /// points. By name, not through the full-text index: a name of no word, or one that many
    /// newer names start with, is found all the same.
    pub fn feature_files(
        &mut self,
        revision: &str,
        name: &str,
        limit: usize,
    ) -> Result<Vec<Option<String>>, StoreError> {
        let tx = self.read()?;
        let files = tx
            .prepare_cached(
                "SELECT DISTINCT uri FROM records WHERE revision = ?1 AND name = ?2 LIMIT ?3",
            )?
            .query_map(
                params![revision, name, i64::try_from(limit).unwrap_or(i64::MAX)],
                |r| r.get::<_, Option<String>>(0),
            )?
            .collect::<Result<_, _>>()?;
        Ok(files)
    }

    /// The distinct names of the features at `locator` (at any revision), at most `limit`:
    /// what a lookup by a name that matched none is compared with, to name a stored spelling
    /// of what the caller meant (`text::alike`).
    pub fn feature_names(
        &mut self,
        locator: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let tx = self.read()?;
        let names = tx
            .prepare_cached(
                "SELECT DISTINCT name FROM records WHERE locator = ?1 AND name IS NOT NULL \
                 LIMIT ?2",
            )?
            .query_map(
                params![locator, i64::try_from(limit).unwrap_or(i64::MAX)],
                |r| r.get::<_, String>(0),
            )?
            .collect::<Result<_, _>>()?;
        Ok(names)
    }

    /// Deletes the anonymous notes written for `revision` (and `locator`, when given) whose
    /// entity set contains `entity_id`.
    pub fn forget_notes(
        &mut self,
        revision: &str,
        locator: Option<&str>,
        entity_id: &str,
    ) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let seqs: Vec<i64> = tx
            .prepare_cached(
                "SELECT r.seq FROM record_entities d CROSS JOIN records r ON r.seq = d.seq \
                 WHERE d.entity_id = ?1 AND d.revision = ?2 AND r.kind = 'note' \
                 AND (?3 IS NULL OR r.locator = ?3)",
            )?
            .query_map(params![entity_id, revision, locator], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let n = delete_records(&tx, &seqs)?;
        tx.commit()?;
        Ok(n)
    }
}

/// Which names [`other_names`] reads: of the features that stand (not superseded), or the
/// subjects of decisions at any revision.
#[derive(Clone, Copy)]
pub(super) enum Names {
    Features,
    Subjects,
}

/// What a statement under a name new on its file compares the file's other names with: it
/// keeps those `keep` accepts, of the first `compared` read (a large review stays cheap).
pub struct NamesAlike {
    pub keep: Box<dyn Fn(&str) -> bool>,
    pub compared: usize,
}

/// The names of `what` on the file `locator` but for `but` that `alike` keeps; none when
/// `but` is a subject stated there already (more than the decision just written): the
/// subject is not new, so its spelling is the file's own. Each name is read borrowed from
/// its index entry (the features read their unique index alone) and only the kept copied.
pub(super) fn other_names(
    tx: &Transaction<'_>,
    what: Names,
    locator: &str,
    but: &str,
    alike: &NamesAlike,
) -> Result<Vec<String>, StoreError> {
    let query = match what {
        Names::Features => {
            "SELECT name FROM records WHERE locator = ?1 AND name IS NOT NULL \
             AND superseded IS NULL AND name != ?2 LIMIT ?3"
        }
        Names::Subjects => {
            let stated: i64 = tx
                .prepare_cached(
                    "SELECT count(*) FROM decisions WHERE subject = ?2 AND locator = ?1",
                )?
                .query_row(params![locator, but], |r| r.get(0))?;
            if stated > 1 {
                return Ok(Vec::new());
            }
            "SELECT DISTINCT subject FROM decisions WHERE locator = ?1 AND subject != ?2 LIMIT ?3"
        }
    };
    let limit = i64::try_from(alike.compared).unwrap_or(i64::MAX);
    let mut statement = tx.prepare_cached(query)?;
    let mut rows = statement.query(params![locator, but, limit])?;
    let mut kept = Vec::new();
    while let Some(row) = rows.next()? {
        // A name that is no text (a hand-edited file) reads as no name a person would mean.
        if let Ok(name) = row.get_ref(0)?.as_str()
            && (alike.keep)(name)
        {
            kept.push(name.to_string());
        }
    }
    Ok(kept)
}

/// The write of [`Store::remember`], inside `tx`, uncommitted.
fn remember_in(
    tx: &Transaction<'_>,
    author: Option<String>,
    new: &NewRecord,
) -> Result<Remembered, StoreError> {
    let now = time::now();
    // With the replaced record, the time its new `updated_at` may not precede: its
    // `created_at` and its last `updated_at` (a clock ahead of this one, or stepped back).
    // A feature replaces the one of its name that is not superseded (what an old revision
    // said of it stays). A note with entities replaces a note carried to this revision with
    // the same entities: stating it again at this revision makes it fresh.
    let row = |r: &Row<'_>| r.try_into();
    let existing: Option<(i64, String, String, String, String)> = match &new.name {
        Some(name) => tx
            .prepare_cached(
                "SELECT seq, id, created_at, max(created_at, updated_at), revision FROM records \
                 WHERE locator = ?1 AND name = ?2 AND superseded IS NULL",
            )?
            .query_row(params![new.artifact.locator(), name], row)
            .optional()?,
        None if !new.entity_ids.is_empty() => tx
            .prepare_cached(
                "SELECT seq, id, created_at, max(created_at, updated_at), revision FROM records \
                 WHERE revision = ?1 AND locator = ?2 AND kind = 'note' AND entity_ids = ?3 \
                 AND carried IS NOT NULL ORDER BY seq LIMIT 1",
            )?
            .query_row(
                params![
                    new.artifact.revision,
                    new.artifact.locator(),
                    super::codec::json_text(&dedup(&new.entity_ids))
                ],
                row,
            )
            .optional()?,
        None => None,
    };
    // The feature stands at another revision: the statement may name one it was carried on
    // from.
    if let (Some(name), Some((live, .., at))) = (&new.name, &existing)
        && *at != new.artifact.revision
        && let Some(done) = stated_where_carried_on(tx, author.as_deref(), new, name, *live)?
    {
        return Ok(done);
    }
    let replaced = existing.is_some();
    // A replacement keeps its seq, its place in every result order, so a recall paging
    // past it serves it exactly once (see `Store::recall_each`); only a new record takes
    // the next seq.
    let (old, seq, id, created_at, not_before) = match existing {
        Some((old, id, created, not_before, _)) => (Some(old), old, id, created, not_before),
        None => {
            let seq = next_seq(tx)?;
            (None, seq, id::mint("rec", seq), now.clone(), now.clone())
        }
    };
    let updated_at = if replaced {
        time::updated_strictly_after(now, &not_before)
    } else {
        time::updated_after(now, &not_before)
    };
    let record = new.stated(id, author, created_at, updated_at);
    // The text it replaces, for the history. A row whose lists no longer read (a hand-edited
    // file) is still replaced, as it always was; its previous text then goes unrecorded.
    let before = match old.map(|seq| load_record(tx, seq)) {
        Some(Ok(r)) => r,
        Some(Err(StoreError::Sqlite(rusqlite::Error::FromSqlConversionFailure(..)))) => {
            log::warn!("a damaged record was replaced: its previous text is not in the history");
            None
        }
        Some(Err(e)) => return Err(e),
        None => None,
    };
    write_record(tx, old, &record, seq)?;
    if let Some(before) = &before {
        let how = Written {
            channel: Channel::Assistant,
            at: &record.updated_at,
            author: record.author.as_deref(),
        };
        history::append(tx, &record_events(&how, Some(before), &record))?;
    }
    Ok((record, replaced, None))
}

/// A feature stated at a revision it was carried on from (or past), while it stands at a
/// later one (`live`, its seq): the statement is what that revision says of it, written into
/// that revision's superseded copy (or a new one under the id every clone derives), and the
/// feature stays where it stands, unchanged, as sync and import keep it against a clone that
/// had not seen the carry ([`Record::carried_past`], [`Record::stated_before_carry`]). So one
/// database and two synced clones agree. `None`: not such a statement (the usual replacement).
fn stated_where_carried_on(
    tx: &Transaction<'_>,
    author: Option<&str>,
    new: &NewRecord,
    name: &str,
    live: i64,
) -> Result<Option<Remembered>, StoreError> {
    // A row whose lists no longer read (a hand-edited file) is replaced as it always was.
    let onward = match load_record(tx, live) {
        Ok(Some(r)) => r,
        Ok(None) | Err(StoreError::Sqlite(rusqlite::Error::FromSqlConversionFailure(..))) => {
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let revision = &new.artifact.revision;
    // The copy by its key; else whatever holds the id a new copy would take (no copy, if it
    // is something else: the statement is then the usual replacement).
    let by_key = feature_copy(tx, new.artifact.locator(), name, revision)?;
    let seq = match by_key {
        Some(seq) => Some(seq),
        None => tx
            .prepare_cached("SELECT seq FROM records WHERE id = ?1")?
            .query_row([Record::snapshot_id(&onward.id, revision)], |r| r.get(0))
            .optional()?,
    };
    let copy = match seq {
        Some(seq) => load_record(tx, seq)?.map(|r| (r, seq)),
        None => None,
    };
    let now = time::now();
    let updated_at = match &copy {
        Some((c, _)) => {
            time::updated_strictly_after(now, std::cmp::max(&c.created_at, &c.updated_at))
        }
        None => time::updated_after(now, &onward.created_at),
    };
    let statement = new.stated(
        onward.id.clone(),
        author.map(str::to_string),
        onward.created_at.clone(),
        updated_at,
    );
    if by_key.is_none()
        && !onward.carried_past(&statement, None)
        && !history::feature_carried_from(tx, new.artifact.locator(), name, revision)?
    {
        return Ok(None);
    }
    let held = copy.as_ref().map(|(r, seq)| (r, *seq));
    let Some(kept) = write_stated_before_carry(tx, &statement, &onward, held)? else {
        return Ok(None);
    };
    if let Some((before, _)) = held {
        let how = Written {
            channel: Channel::Assistant,
            at: &kept.updated_at,
            author: kept.author.as_deref(),
        };
        history::append(tx, &record_events(&how, Some(before), &kept))?;
    }
    Ok(Some((kept, held.is_some(), Some(onward))))
}

/// What `remember` wrote: the record, whether it replaced one, and, when the statement was
/// kept as what an earlier revision says of a feature carried on from it, the feature as it
/// stands (unchanged).
type Remembered = (Record, bool, Option<Record>);

/// Which filter drives a scan (and so is not repeated as a condition).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Driver {
    /// The full-text index: entity and every tag are checked as conditions.
    Text,
    /// The entity side table.
    Entity,
    /// The first tag's side table.
    FirstTag,
    /// The records table (or one of its indexes).
    Records,
}

/// The filters other than the driving one. Entity and tags are checked by primary-key
/// probes of the side tables (their rows carry the record's seq).
pub(super) fn record_filters(c: &mut Clause, q: &RecordQuery, seq_col: &str, driver: Driver) {
    if q.current_only {
        match &q.current_revision {
            Some(rev) => c.add(
                &format!("(r.superseded IS NULL OR r.revision = ? OR NOT {RECORD_SAID_ON})"),
                [Clause::text(rev)],
            ),
            None => c.add(
                &format!("(r.superseded IS NULL OR NOT {RECORD_SAID_ON})"),
                [],
            ),
        }
    }
    if let Some(l) = &q.locator {
        c.add("r.locator = ?", [Clause::text(l)]);
    }
    if let Some(rev) = &q.revision {
        c.add("r.revision = ?", [Clause::text(rev)]);
    }
    if let Some(k) = q.kind {
        c.add("r.kind = ?", [Clause::text(k.as_str())]);
    }
    if let Some(state) = q.carried {
        c.add(
            "json_extract(r.carried, '$.state') = ?",
            [Clause::text(state.as_str())],
        );
        // Across a file's revisions (a locator, no revision) the worklist is what is carried
        // now: an item whose revision was carried on is not on it any more, its copy at the
        // later revision is. By the revision alone, it is that revision's worklist, as it was
        // (once carried on, with `current_only` false: its items are superseded copies).
        if q.revision.is_none() {
            c.add("r.superseded IS NULL", []);
        }
    }
    if driver != Driver::Entity
        && let Some((entity, rev)) = &q.entity
    {
        c.add(
            "EXISTS (SELECT 1 FROM record_entities e WHERE e.entity_id = ? \
                 AND e.revision = ? AND e.seq = r.seq)",
            [Clause::text(entity), Clause::text(rev)],
        );
    }
    let skip = usize::from(driver == Driver::FirstTag);
    for t in q.tags.iter().skip(skip) {
        c.add(
            &format!("EXISTS (SELECT 1 FROM record_tags t WHERE t.tag = ? AND t.seq = {seq_col})"),
            [Clause::text(t)],
        );
    }
}

/// The end of the feature stored at `seq`, about to be forgotten where it stands, when
/// carries brought it there ([`history::carried_feature_ends`]).
fn forgotten_where_carried(
    tx: &Transaction<'_>,
    author: Option<&str>,
    seq: i64,
) -> Result<(), StoreError> {
    let r = match load_record(tx, seq) {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(()),
        // A row that no longer reads (a hand-edited file) is still forgotten.
        Err(StoreError::Sqlite(rusqlite::Error::FromSqlConversionFailure(..))) => {
            log::warn!("a damaged feature was forgotten without a history event");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let now = time::now();
    let how = Written {
        channel: Channel::Assistant,
        at: &now,
        author,
    };
    history::carried_feature_ends(tx, &how, &r)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{artifact, next};
    use super::*;

    /// A first page of a text recall serves the name matches (tier 0) and then the other
    /// matches, leaving the name matches out of tier 1 by the rowids tier 0 returned; every
    /// later page continues from its cursor. Each match is served exactly once, in order,
    /// with filters applied alike to both tiers.
    #[test]
    fn text_recall_serves_each_match_once_across_tiers() {
        let mut store = Store::open_in_memory().unwrap();
        // Interleaved seqs: name matches and note matches alternate, some of each tagged.
        let mut expect_name = Vec::new();
        let mut expect_note = Vec::new();
        for i in 0..12 {
            let in_name = i % 2 == 0;
            let tagged = i % 3 != 0;
            let (r, _) = store
                .remember(&NewRecord {
                    artifact: artifact(None),
                    name: Some(if in_name {
                        format!("flange {i}")
                    } else {
                        format!("part {i}")
                    }),
                    note: Some(if in_name {
                        "plain".into()
                    } else {
                        "flanged edge".into()
                    }),
                    tags: if tagged { vec!["t".into()] } else { vec![] },
                    entity_ids: vec![],
                    id_scheme: "opaque".into(),
                })
                .unwrap();
            if tagged {
                if in_name {
                    expect_name.push(r.id);
                } else {
                    expect_note.push(r.id);
                }
            }
        }
        expect_name.reverse();
        expect_note.reverse();
        let expect: Vec<String> = expect_name.into_iter().chain(expect_note).collect();
        let q = RecordQuery {
            text: Some("flange".into()),
            tags: vec!["t".into()],
            ..RecordQuery::default()
        };
        for limit in 1..=10 {
            let mut got = Vec::new();
            let mut request = PageRequest::first(limit);
            loop {
                let page = store.recall(&q, request).unwrap();
                request = next(limit, &page);
                got.extend(page.items.into_iter().map(|(r, _)| r.id));
                if !page.more {
                    break;
                }
            }
            assert_eq!(got, expect, "limit {limit}");
        }
    }
}
