//! Records: remember (replace a named feature, append a note), recall with keyset pages,
//! forget.

use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::search::{fts_words, match_all, match_column};
use super::{
    Page, PageRequest, Position, Segment, Store, StoreError, check_answer_size, current_seq,
    json_strings, json_strs, json_text, next_seq, run_segments_into,
};
use crate::review::artifact::ArtifactWire;
use crate::review::{Artifact, Kind, Record, RecordRef, id};
use crate::time;
use crate::wire;

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
}

pub(super) const RECORD_COLS: &str = "r.id, r.kind, r.name, r.note, r.tags, r.entity_ids, \
    r.id_scheme, r.revision, r.format, r.uri, r.units, r.created_at, r.updated_at, r.seq";

/// Maps a row selected with [`RECORD_COLS`] (plus anything after) to a record and its seq.
pub(super) fn record_from_row(row: &Row<'_>) -> rusqlite::Result<(Record, i64)> {
    let (record, seq) = record_ref_from_row(row)?;
    Ok((record.into_owned(), seq))
}

/// [`record_from_row`] borrowing from the row: no field is copied.
fn record_ref_from_row<'r>(row: &'r Row<'_>) -> rusqlite::Result<(RecordRef<'r>, i64)> {
    let text = |i: usize| -> rusqlite::Result<&'r str> { Ok(row.get_ref(i)?.as_str()?) };
    let optional =
        |i: usize| -> rusqlite::Result<Option<&'r str>> { Ok(row.get_ref(i)?.as_str_or_null()?) };
    let kind = text(1)?;
    let kind = Kind::parse(kind).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            1,
            rusqlite::types::Type::Text,
            format!("unknown record kind {kind:?}").into(),
        )
    })?;
    Ok((
        RecordRef {
            id: text(0)?,
            kind,
            name: optional(2)?,
            note: optional(3)?,
            tags: json_strs(4, text(4)?)?,
            entity_ids: json_strs(5, text(5)?)?,
            id_scheme: text(6)?,
            artifact: ArtifactWire {
                revision: text(7)?,
                format: text(8)?,
                uri: optional(9)?,
                units: optional(10)?,
            },
            created_at: text(11)?,
            updated_at: text(12)?,
        },
        row.get(13)?,
    ))
}

/// Keeps the first occurrence of each string: tags and entity ids are sets.
pub(super) fn dedup(v: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    v.iter()
        .filter(|s| seen.insert(s.as_str()))
        .cloned()
        .collect()
}

/// Writes `record` at `seq`, its side-table and full-text rows included. A rewrite
/// (`old` = the seq the record is stored at now) deletes the old row first: a record's row
/// id is its seq.
pub(super) fn write_record(
    tx: &Transaction<'_>,
    old: Option<i64>,
    record: &Record,
    seq: i64,
) -> Result<(), StoreError> {
    let bytes = wire::answer_bytes(&record.wire(Some(&record.artifact.revision)));
    check_answer_size(&format!("record {}", record.id), bytes)?;
    if let Some(old) = old {
        delete_record(tx, old)?;
    }
    let a = &record.artifact;
    tx.prepare_cached(
        "INSERT INTO records (seq, id, kind, locator, name, note, tags, entity_ids, \
         id_scheme, revision, format, uri, units, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?
    .execute(params![
        seq,
        record.id,
        record.kind.as_str(),
        a.locator(),
        record.name,
        record.note,
        json_text(&record.tags),
        json_text(&record.entity_ids),
        record.id_scheme,
        a.revision,
        a.format,
        a.uri,
        a.units,
        record.created_at,
        record.updated_at,
    ])?;
    {
        let mut ent = tx.prepare_cached(
            "INSERT OR IGNORE INTO record_entities (entity_id, revision, seq) VALUES (?1, ?2, ?3)",
        )?;
        for e in &record.entity_ids {
            ent.execute(params![e, a.revision, seq])?;
        }
        let mut tag =
            tx.prepare_cached("INSERT OR IGNORE INTO record_tags (tag, seq) VALUES (?1, ?2)")?;
        for t in &record.tags {
            tag.execute(params![t, seq])?;
        }
    }
    // The full-text rowid is the record's seq: text results walk it newest first.
    tx.prepare_cached("INSERT INTO records_fts (rowid, name, note) VALUES (?1, ?2, ?3)")?
        .execute(params![seq, record.name, record.note])?;
    Ok(())
}

/// Deletes the record stored at `seq` with its side-table rows (found by their keys from
/// the record's own lists) and its full-text row. Returns how many records went (0 or 1).
fn delete_record(tx: &Transaction<'_>, seq: i64) -> Result<usize, StoreError> {
    // The lists as text, or `None` when a column is not text (a damaged file).
    let row: Option<(String, Option<String>, Option<String>)> = tx
        .prepare_cached("SELECT revision, tags, entity_ids FROM records WHERE seq = ?1")?
        .query_row([seq], |r| {
            let text = |i: usize| -> rusqlite::Result<Option<String>> {
                Ok(r.get_ref(i)?.as_str().ok().map(str::to_string))
            };
            Ok((r.get(0)?, text(1)?, text(2)?))
        })
        .optional()?;
    let Some((revision, tags, entities)) = row else {
        return Ok(0);
    };
    let lists = |text: Option<String>| text.and_then(|t| json_strings(0, &t).ok());
    match (lists(tags), lists(entities)) {
        (Some(tags), Some(entities)) => {
            let mut ent = tx.prepare_cached(
                "DELETE FROM record_entities WHERE entity_id = ?1 AND revision = ?2 AND seq = ?3",
            )?;
            for e in entities {
                ent.execute(params![e, revision, seq])?;
            }
            let mut tag =
                tx.prepare_cached("DELETE FROM record_tags WHERE tag = ?1 AND seq = ?2")?;
            for t in tags {
                tag.execute(params![t, seq])?;
            }
        }
        _ => {
            // A list that no longer parses (only a damaged or hand-edited file has one): the
            // record's side rows are found by their seq instead, scanning both tables, so the
            // record can still be rewritten or forgotten.
            log::warn!(
                "record at seq {seq} has a damaged tag or entity list; its index rows are found by scanning"
            );
            tx.prepare_cached("DELETE FROM record_entities WHERE seq = ?1")?
                .execute([seq])?;
            tx.prepare_cached("DELETE FROM record_tags WHERE seq = ?1")?
                .execute([seq])?;
        }
    }
    tx.prepare_cached("DELETE FROM records_fts WHERE rowid = ?1")?
        .execute([seq])?;
    Ok(tx
        .prepare_cached("DELETE FROM records WHERE seq = ?1")?
        .execute([seq])?)
}

/// Deletes records by seq, with their side-table and full-text rows.
pub(super) fn delete_records(tx: &Transaction<'_>, seqs: &[i64]) -> Result<usize, StoreError> {
    let mut n = 0;
    for &seq in seqs {
        n += delete_record(tx, seq)?;
    }
    Ok(n)
}

/// A WHERE clause under construction: fragments and their positional parameters, kept in
/// step so the SQL stays parameterised whatever the filters.
#[derive(Default)]
pub(super) struct Clause {
    pub sql: Vec<String>,
    pub params: Vec<SqlValue>,
}

impl Clause {
    pub fn add(&mut self, sql: &str, params: impl IntoIterator<Item = SqlValue>) {
        self.sql.push(sql.to_string());
        self.params.extend(params);
    }

    pub fn text(s: &str) -> SqlValue {
        SqlValue::Text(s.to_string())
    }

    pub fn joined(&self) -> String {
        if self.sql.is_empty() {
            "1".into()
        } else {
            self.sql.join(" AND ")
        }
    }
}

impl Store {
    /// Saves a record: a named feature replaces the one with the same (locator, name),
    /// keeping its id and `created_at`; an anonymous note is always new. Returns the stored
    /// record and whether it replaced one.
    pub fn remember(&mut self, new: &NewRecord) -> Result<(Record, bool), StoreError> {
        let tx = self.write()?;
        let now = time::now();
        // With the replaced record, the time its new `updated_at` may not precede: its
        // `created_at` and its last `updated_at` (a clock ahead of this one, or stepped back).
        let existing: Option<(i64, String, String, String)> = match &new.name {
            Some(name) => tx
                .prepare_cached(
                    "SELECT seq, id, created_at, max(created_at, updated_at) FROM records \
                     WHERE locator = ?1 AND name = ?2",
                )?
                .query_row(params![new.artifact.locator(), name], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })
                .optional()?,
            None => None,
        };
        let replaced = existing.is_some();
        // A replacement keeps its seq, its place in every result order, so a recall paging
        // past it serves it exactly once (see `Store::recall_each`); only a new record takes
        // the next seq.
        let (old, seq, id, created_at, not_before) = match existing {
            Some((old, id, created, not_before)) => (Some(old), old, id, created, not_before),
            None => {
                let seq = next_seq(&tx)?;
                (None, seq, id::mint("rec", seq), now.clone(), now.clone())
            }
        };
        let record = Record {
            id,
            kind: if new.name.is_some() {
                Kind::Feature
            } else {
                Kind::Note
            },
            name: new.name.clone(),
            note: new.note.clone(),
            tags: dedup(&new.tags),
            entity_ids: dedup(&new.entity_ids),
            id_scheme: new.id_scheme.clone(),
            artifact: new.artifact.clone(),
            updated_at: time::updated_after(now, &not_before),
            created_at,
        };
        write_record(&tx, old, &record, seq)?;
        tx.commit()?;
        Ok((record, replaced))
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
            let tier: i64 = row.get(14)?;
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
                            .query_row(params![entity, rev, snapshot], |r| {
                                Ok((r.get(0)?, r.get(1)?))
                            })?;
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
                        let list = skip.iter().map(i64::to_string).collect::<Vec<_>>();
                        c.add(
                            "f.rowid NOT IN (SELECT value FROM json_each(?))",
                            [SqlValue::Text(format!("[{}]", list.join(",")))],
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
                // FTS5 a second walk of the name's doclists for the NOT, a third of the
                // full-text work of a one-word query. A later page uses the NOT.
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

    /// Deletes the named feature at `locator`. Returns how many rows went (0 or 1).
    pub fn forget_feature(&mut self, locator: &str, name: &str) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let seqs: Vec<i64> = tx
            .prepare_cached("SELECT seq FROM records WHERE locator = ?1 AND name = ?2")?
            .query_map(params![locator, name], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let n = delete_records(&tx, &seqs)?;
        tx.commit()?;
        Ok(n)
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

/// Which filter drives a scan (and so is not repeated as a condition).
#[derive(Clone, Copy, PartialEq)]
enum Driver {
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
fn record_filters(c: &mut Clause, q: &RecordQuery, seq_col: &str, driver: Driver) {
    if let Some(l) = &q.locator {
        c.add("r.locator = ?", [Clause::text(l)]);
    }
    if let Some(rev) = &q.revision {
        c.add("r.revision = ?", [Clause::text(rev)]);
    }
    if let Some(k) = q.kind {
        c.add("r.kind = ?", [Clause::text(k.as_str())]);
    }
    if driver != Driver::Entity {
        if let Some((entity, rev)) = &q.entity {
            c.add(
                "EXISTS (SELECT 1 FROM record_entities e WHERE e.entity_id = ? \
                 AND e.revision = ? AND e.seq = r.seq)",
                [Clause::text(entity), Clause::text(rev)],
            );
        }
    }
    let skip = usize::from(driver == Driver::FirstTag);
    for t in q.tags.iter().skip(skip) {
        c.add(
            &format!("EXISTS (SELECT 1 FROM record_tags t WHERE t.tag = ? AND t.seq = {seq_col})"),
            [Clause::text(t)],
        );
    }
}
