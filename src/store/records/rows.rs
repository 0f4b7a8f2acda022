//! A record's rows: the columns a query selects, a row read back as a record, and writing or
//! deleting a record with its side-table (tag, entity) and full-text rows.

use rusqlite::{OptionalExtension, Row, Transaction, params};

use crate::review::artifact::ArtifactWire;
use crate::review::{Kind, Record, RecordRef, Superseded};
use crate::store::StoreError;
use crate::store::codec::{json_opt, json_strings, json_strs, json_text, opt_json, wire_enum};
use crate::store::page::next_seq;

pub(in crate::store) const RECORD_COLS: &str = "r.id, r.kind, r.name, r.note, r.tags, r.entity_ids, \
    r.id_scheme, r.revision, r.format, r.uri, r.units, r.created_at, r.updated_at, r.seq, \
    r.author, r.carried, r.superseded";

/// How many columns [`RECORD_COLS`] selects: a query's own columns follow.
pub(in crate::store) const RECORD_COLS_LEN: usize = 17;

/// Maps a row selected with [`RECORD_COLS`] (plus anything after) to a record and its seq.
pub(in crate::store) fn record_from_row(row: &Row<'_>) -> rusqlite::Result<(Record, i64)> {
    let (record, seq) = record_ref_from_row(row)?;
    Ok((record.into_owned(), seq))
}

/// [`record_from_row`] borrowing from the row: no field is copied.
pub(in crate::store) fn record_ref_from_row<'r>(
    row: &'r Row<'_>,
) -> rusqlite::Result<(RecordRef<'r>, i64)> {
    let text = |i: usize| -> rusqlite::Result<&'r str> { Ok(row.get_ref(i)?.as_str()?) };
    let optional =
        |i: usize| -> rusqlite::Result<Option<&'r str>> { Ok(row.get_ref(i)?.as_str_or_null()?) };
    // The kind is read first: a row with an unknown kind is refused for it, whatever else.
    let kind = wire_enum(1, "record kind", text(1)?, Kind::parse)?;
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
            author: optional(14)?,
            carried: json_opt(15, optional(15)?)?,
            superseded: json_opt(16, optional(16)?)?,
            created_at: text(11)?,
            updated_at: text(12)?,
        },
        row.get(13)?,
    ))
}

/// The record stored at `seq`.
pub(in crate::store) fn load_record(
    tx: &Transaction<'_>,
    seq: i64,
) -> Result<Option<Record>, StoreError> {
    Ok(tx
        .prepare_cached(&format!(
            "SELECT {RECORD_COLS} FROM records r WHERE r.seq = ?1"
        ))?
        .query_row([seq], record_from_row)
        .optional()?
        .map(|(r, _)| r))
}

/// Writes `record` at `seq`, its side-table and full-text rows included. A rewrite
/// (`old` = the seq the record is stored at now) deletes the old row first: a record's row
/// id is its seq.
pub(in crate::store) fn write_record(
    tx: &Transaction<'_>,
    old: Option<i64>,
    record: &Record,
    seq: i64,
) -> Result<(), StoreError> {
    if let Some(old) = old {
        delete_record(tx, old)?;
    }
    let a = &record.artifact;
    tx.prepare_cached(
        "INSERT INTO records (seq, id, kind, locator, name, note, tags, entity_ids, \
         id_scheme, revision, format, uri, units, created_at, updated_at, author, carried, \
         superseded) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
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
        record.author,
        opt_json(record.carried.as_ref()),
        opt_json(record.superseded.as_ref()),
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

/// [`feature_copy`]'s query (`?1` the locator, `?2` the name, `?3` the revision). By the
/// copies' key (`records_copy_key`), never the records of the revision: sync and import ask it
/// of every statement that meets a carried version of its feature. Of several copies of one
/// key (two clones carried their own feature of one name from one revision), the least id:
/// the same copy in every clone that holds them (each numbers its rows in its own order), as
/// sync takes the folder's.
pub(in crate::store) const FEATURE_COPY: &str = "SELECT seq FROM records \
     INDEXED BY records_copy_key WHERE locator = ?1 AND name = ?2 AND revision = ?3 \
     AND superseded IS NOT NULL ORDER BY id LIMIT 1";

/// The seq of what `revision` says of the feature `name` at `locator` once a carry moved the
/// feature on from it (its superseded copy), when held: the revision was carried past.
pub(in crate::store) fn feature_copy(
    tx: &Transaction<'_>,
    locator: &str,
    name: &str,
    revision: &str,
) -> Result<Option<i64>, StoreError> {
    Ok(tx
        .prepare_cached(FEATURE_COPY)?
        .query_row(params![locator, name, revision], |r| r.get(0))
        .optional()?)
}

/// Whether `revision` was carried past for the feature `name` of the file `locator`: what it
/// says of the feature (its superseded copy) is held, or the history tells a carry of the
/// feature from there (the copy forgotten since). A statement there, of whatever id, is then
/// what that revision says, never a move of the feature back. The events are asked of
/// `carried`, the transaction's reading of them (sync and import ask this of many statements).
pub(in crate::store) fn carried_past_at(
    tx: &Transaction<'_>,
    carried: &crate::store::history::CarriedFrom,
    locator: &str,
    name: &str,
    revision: &str,
) -> Result<bool, StoreError> {
    Ok(feature_copy(tx, locator, name, revision)?.is_some()
        || carried.holds(tx, locator, name, revision)?)
}

/// The feature `stated` states (live and named), as a carry of that very feature (its id)
/// moved it on from `stated`'s revision ([`Record::carried_to`]), when the database says
/// there was one: it holds that revision's superseded copy of it (under the id every clone
/// derives), or the carry's `carried` event of it. By id, not by name: a feature forgotten and
/// stated anew under another id is a feature of its own. `None`: nothing says so.
pub(in crate::store) fn carried_on_from(
    tx: &Transaction<'_>,
    stated: &Record,
) -> Result<Option<Record>, StoreError> {
    if stated.name.is_none() || stated.superseded.is_some() {
        return Ok(None);
    }
    let revision = &stated.artifact.revision;
    let copy = crate::store::browse::record_by_id(tx, &Record::snapshot_id(&stated.id, revision))?;
    let mark = match copy.as_ref().and_then(|c| stated.carried_by(c)) {
        Some(m) => Some(m),
        None => crate::store::history::feature_carried_on(tx, &stated.id, revision)?,
    };
    Ok(mark.map(|m| stated.carried_to(m)))
}

/// The carries of the feature `id` the database can show, link by link from each of `from`:
/// `(revision, to)` where its superseded copy at `revision` (under the id every clone derives)
/// names the revision that superseded it, or a `carried` event of it from `revision` names
/// where it went; at most [`CARRY_LINKS`] links from each, each revision once. What
/// [`Record::carry_through`] follows from one version of the feature to another. `filed`: a
/// copy by id that is not (yet) in the database (a synced folder's file), asked first.
pub(in crate::store) fn carry_links(
    tx: &Transaction<'_>,
    id: &str,
    from: &[&str],
    filed: Filed<'_>,
) -> Result<Vec<(String, String)>, StoreError> {
    let mut links: Vec<(String, String)> = Vec::new();
    for start in from {
        let mut revision = (*start).to_string();
        for _ in 0..CARRY_LINKS {
            if links.iter().any(|(r, _)| *r == revision) {
                break;
            }
            let copy_id = Record::snapshot_id(id, &revision);
            let copy = match filed(&copy_id) {
                Some(c) => Some(c),
                None => crate::store::browse::record_by_id(tx, &copy_id)?,
            };
            let by = copy
                .filter(|c| c.artifact.revision == revision)
                .and_then(|c| c.superseded)
                .map(|m| m.by);
            let to = match by {
                Some(to) => Some(to),
                None => crate::store::history::feature_carried_on(tx, id, &revision)?.map(|m| m.0),
            };
            let Some(to) = to else { break };
            links.push((revision, to.clone()));
            revision = to;
        }
    }
    Ok(links)
}

/// How many carries in a row [`carry_links`] follows from one revision.
const CARRY_LINKS: usize = 64;

/// A record by id from outside the database ([`carry_links`]).
pub(in crate::store) type Filed<'a> = &'a dyn Fn(&str) -> Option<Record>;

/// Whether `onward` is the feature `from` states (its id) carried on to another file, through
/// the carries the database shows ([`carry_links`], [`Record::carry_through`]).
pub(in crate::store) fn carry_reaches(
    tx: &Transaction<'_>,
    onward: &Record,
    from: &Record,
    filed: Filed<'_>,
) -> Result<bool, StoreError> {
    if onward.id != from.id || onward.carried.is_none() {
        return Ok(false);
    }
    if onward.carry_of(from) {
        return Ok(true);
    }
    let links = carry_links(tx, &onward.id, &[&from.artifact.revision], filed)?;
    Ok(onward.carry_through(from, &Record::carried_on_in(&links)))
}

/// Writes `statement` as what its revision says of the feature `onward` carried on from it
/// ([`Record::stated_before_carry`]): over `copy` (that revision's superseded copy, with its
/// seq) when held, else as a new row. Returns what it wrote; `None` when nothing was (`copy`
/// is no such copy, or says it already).
pub(in crate::store) fn write_stated_before_carry(
    tx: &Transaction<'_>,
    statement: &Record,
    onward: &Record,
    copy: Option<(&Record, i64)>,
) -> Result<Option<Record>, StoreError> {
    let Some(kept) = Record::stated_before_carry(statement, onward, copy.map(|(r, _)| r)) else {
        return Ok(None);
    };
    if copy.is_some_and(|(r, _)| *r == kept) {
        return Ok(None);
    }
    let (old, seq) = match copy {
        Some((_, seq)) => (Some(seq), seq),
        None => (None, next_seq(tx)?),
    };
    write_record(tx, old, &kept, seq)?;
    Ok(Some(kept))
}

/// Marks the record stored at `seq` superseded by `superseded`, its `updated_at` moved: the
/// copy a carry leaves behind. Its lists and text are as they were, and so are its
/// side-table and full-text rows: written again whole, a record of 10,000 entity ids cost
/// 20,000 index rows deleted and rewritten unchanged.
pub(in crate::store) fn supersede_record(
    tx: &Transaction<'_>,
    seq: i64,
    superseded: &Superseded,
    updated_at: &str,
) -> Result<(), StoreError> {
    tx.prepare_cached("UPDATE records SET superseded = ?1, updated_at = ?2 WHERE seq = ?3")?
        .execute(params![opt_json(Some(superseded)), updated_at, seq])?;
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
pub(in crate::store) fn delete_records(
    tx: &Transaction<'_>,
    seqs: &[i64],
) -> Result<usize, StoreError> {
    let mut n = 0;
    for &seq in seqs {
        n += delete_record(tx, seq)?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use crate::store::fixtures::{REV, artifact, side_rows};
    use crate::store::{NewRecord, Store};

    /// Regression (sync_bench's carried case): the query of `feature_copy`, which sync and
    /// import ask of every statement that meets a carried version of its feature, was planned
    /// on `records_revision_seq`: it read every record of the revision for each statement
    /// (all of them when no copy is held), so a sync of N features changed on both sides over
    /// a carry grew as N squared. It searches the copies of the one key.
    #[test]
    fn feature_copy_searches_the_copies_of_the_key() {
        let mut store = Store::open_in_memory().unwrap();
        let conn = store.conn().unwrap();
        let mut stmt = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", super::FEATURE_COPY))
            .unwrap();
        let steps: Vec<String> = stmt
            .query_map(["file:///p.step", "bore", REV], |r| r.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            steps.iter().any(|s| s.starts_with(
                "SEARCH records USING INDEX records_copy_key (locator=? AND name=? AND revision=?)"
            )),
            "{steps:?}"
        );
    }

    /// Regression (found in review): side rows are deleted by the keys in the record's own
    /// lists, so a list that no longer parses made the record impossible to rewrite or forget.
    /// Its side rows are now found by seq.
    #[test]
    fn record_with_damaged_lists_can_still_be_rewritten_and_forgotten() {
        let mut store = Store::open_in_memory().unwrap();
        let new = |tag: &str| NewRecord {
            artifact: artifact(Some("file:///p.step")),
            name: Some("bore".into()),
            note: None,
            tags: vec![tag.into()],
            entity_ids: vec!["face:1".into()],
            id_scheme: "opaque".into(),
        };
        store.remember(&new("a")).unwrap();
        for damage in [
            "UPDATE records SET tags = '[\"a\"'",
            "UPDATE records SET entity_ids = 7",
        ] {
            store.conn().unwrap().execute_batch(damage).unwrap();
            let (_, replaced) = store.remember(&new("b")).unwrap();
            assert!(replaced, "{damage}");
            assert_eq!(side_rows(&mut store), 2, "{damage}: the old side rows went");
        }
        store
            .conn()
            .unwrap()
            .execute_batch("UPDATE records SET tags = 'not json'")
            .unwrap();
        assert_eq!(
            store.forget_feature("file:///p.step", "bore", REV).unwrap(),
            1
        );
        assert_eq!(side_rows(&mut store), 0);
        assert!(store.check().unwrap().is_empty());
    }
}
