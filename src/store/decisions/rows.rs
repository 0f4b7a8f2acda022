//! A decision's rows: the columns a query selects, a row read back as a decision, its basis
//! items, and writing or deleting a decision with its basis, side-table (face, state) and
//! full-text rows.

use rusqlite::{Row, Transaction, params};

use crate::review::{
    Artifact, BasisItem, Decision, Judgement, Meaning, Source, State, Verdict, Via,
};
use crate::store::StoreError;
use crate::store::codec::{dedup, json_opt, json_strings, json_text, opt_json, wire_enum};

pub(in crate::store) const DECISION_COLS: &str = "d.rid, d.id, d.subject, d.disposition, d.summary, \
    d.revision, d.format, d.uri, d.units, d.created_at, d.updated_at, d.seq, d.author, d.carried, \
    d.superseded";

/// How many columns [`DECISION_COLS`] selects: a query's own columns follow.
pub(in crate::store) const DECISION_COLS_LEN: usize = 15;

/// A decision row without its basis, which [`load_basis`] adds.
pub(in crate::store) fn decision_from_row(row: &Row<'_>) -> rusqlite::Result<(i64, Decision, i64)> {
    Ok((
        row.get(0)?,
        Decision {
            id: row.get(1)?,
            subject: row.get(2)?,
            disposition: row.get(3)?,
            summary: row.get(4)?,
            basis: Vec::new(),
            artifact: Artifact {
                revision: row.get(5)?,
                format: row.get(6)?,
                uri: row.get(7)?,
                units: row.get(8)?,
            },
            author: row.get(12)?,
            carried: json_opt(13, row.get_ref(13)?.as_str_or_null()?)?,
            superseded: json_opt(14, row.get_ref(14)?.as_str_or_null()?)?,
            created_at: row.get(9)?,
            updated_at: row.get(10)?,
        },
        row.get(11)?,
    ))
}

/// The basis items of decision `rid`, in their stored order.
pub(in crate::store) fn load_basis(
    tx: &Transaction<'_>,
    rid: i64,
) -> Result<Vec<BasisItem>, StoreError> {
    let mut stmt = tx.prepare_cached(
        "SELECT requirement, source, source_detail, evidence, state, question, faces, \
         verdict_judgement, verdict_reason, verdict_via, verdict_at, verdict_author, carried, \
         verdict_meaning, not_carried FROM basis_items \
         WHERE decision_rid = ?1 ORDER BY position",
    )?;
    let items = stmt
        .query_map([rid], |row| {
            let source: String = row.get(1)?;
            let state: String = row.get(4)?;
            let faces: String = row.get(6)?;
            let judgement: Option<String> = row.get(7)?;
            let verdict = match judgement {
                Some(j) => {
                    let via: Option<String> = row.get(9)?;
                    let meaning: Option<String> = row.get(13)?;
                    Some(Verdict {
                        at: row.get::<_, Option<String>>(10)?.unwrap_or_default(),
                        author: row.get(11)?,
                        judgement: wire_enum(7, "judgement", &j, Judgement::parse)?,
                        meaning: meaning
                            .map(|m| wire_enum(13, "meaning", &m, Meaning::parse))
                            .transpose()?,
                        reason: row.get(8)?,
                        via: via
                            .map(|v| wire_enum(9, "via", &v, Via::parse))
                            .transpose()?
                            .unwrap_or(Via::Assistant),
                    })
                }
                None => None,
            };
            Ok(BasisItem {
                requirement: row.get(0)?,
                source: wire_enum(1, "source", &source, Source::parse)?,
                source_detail: row.get(2)?,
                evidence: row.get(3)?,
                state: wire_enum(4, "state", &state, State::parse)?,
                question: row.get(5)?,
                faces: json_strings(6, &faces)?,
                verdict,
                carried: json_opt(12, row.get_ref(12)?.as_str_or_null()?)?,
                not_carried: json_opt(14, row.get_ref(14)?.as_str_or_null()?)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(items)
}

/// Decision `rid` with its basis, as stored now.
pub(in crate::store) fn load_decision(
    tx: &Transaction<'_>,
    rid: i64,
) -> Result<Option<Decision>, StoreError> {
    use rusqlite::OptionalExtension;
    let row = tx
        .prepare_cached(&format!(
            "SELECT {DECISION_COLS} FROM decisions d WHERE d.rid = ?1"
        ))?
        .query_row([rid], decision_from_row)
        .optional()?;
    match row {
        Some((rid, mut d, _)) => {
            d.basis = load_basis(tx, rid)?;
            Ok(Some(d))
        }
        None => Ok(None),
    }
}

/// Writes `decision` at `seq` (update row `rid` when given), with its basis items, side
/// rows and full-text row. Returns the row id.
pub(in crate::store) fn write_decision(
    tx: &Transaction<'_>,
    rid: Option<i64>,
    decision: &Decision,
    seq: i64,
) -> Result<i64, StoreError> {
    let a = &decision.artifact;
    // The same values, numbered alike, for the update (row `rid` as ?14) and the insert.
    let values = params![
        decision.id,
        a.locator(),
        decision.subject,
        a.revision,
        a.format,
        a.uri,
        a.units,
        decision.disposition,
        decision.summary,
        decision.created_at,
        decision.updated_at,
        seq,
        decision.author,
        opt_json(decision.carried.as_ref()),
        opt_json(decision.superseded.as_ref())
    ];
    let rid = match rid {
        Some(rid) => {
            // Clear the old rows first, while the decision still has its old seq (the
            // full-text rowid).
            for sql in [
                "DELETE FROM decisions_fts WHERE rowid = (SELECT seq FROM decisions WHERE rid = ?1)",
                "DELETE FROM basis_items WHERE decision_rid = ?1",
                "DELETE FROM decision_faces WHERE rid = ?1",
                "DELETE FROM decision_states WHERE rid = ?1",
            ] {
                tx.prepare_cached(sql)?.execute([rid])?;
            }
            tx.prepare_cached(
                "UPDATE decisions SET id = ?1, locator = ?2, subject = ?3, revision = ?4, \
                 format = ?5, uri = ?6, units = ?7, disposition = ?8, summary = ?9, \
                 created_at = ?10, updated_at = ?11, seq = ?12, author = ?13, carried = ?14, \
                 superseded = ?15 WHERE rid = ?16",
            )?
            .execute(rusqlite::params_from_iter(
                values.iter().copied().chain([&rid as &dyn rusqlite::ToSql]),
            ))?;
            rid
        }
        None => {
            tx.prepare_cached(
                "INSERT INTO decisions (id, locator, subject, revision, format, uri, units, \
                 disposition, summary, created_at, updated_at, seq, author, carried, superseded) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            )?
            .execute(values)?;
            tx.last_insert_rowid()
        }
    };
    let mut body = vec![decision.disposition.clone()];
    body.extend(decision.summary.clone());
    {
        let mut item_stmt = tx.prepare_cached(
            "INSERT INTO basis_items (decision_rid, position, requirement, source, \
             source_detail, evidence, state, question, faces, verdict_judgement, verdict_reason, \
             verdict_via, verdict_at, verdict_author, carried, verdict_meaning, not_carried) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        )?;
        let mut face_stmt = tx.prepare_cached(
            "INSERT OR IGNORE INTO decision_faces (face, revision, seq, rid) VALUES (?1, ?2, ?3, ?4)",
        )?;
        let mut state_stmt = tx.prepare_cached(
            "INSERT OR IGNORE INTO decision_states (state, seq, rid) VALUES (?1, ?2, ?3)",
        )?;
        for (pos, item) in decision.basis.iter().enumerate() {
            let faces = dedup(&item.faces);
            item_stmt.execute(params![
                rid,
                i64::try_from(pos).unwrap_or(i64::MAX),
                item.requirement,
                item.source.as_str(),
                item.source_detail,
                item.evidence,
                item.state.as_str(),
                item.question,
                json_text(&faces),
                item.verdict.as_ref().map(|v| v.judgement.as_str()),
                item.verdict.as_ref().and_then(|v| v.reason.clone()),
                item.verdict.as_ref().map(|v| v.via.as_str()),
                item.verdict.as_ref().map(|v| v.at.as_str()),
                item.verdict.as_ref().and_then(|v| v.author.as_deref()),
                opt_json(item.carried.as_ref()),
                item.verdict
                    .as_ref()
                    .and_then(|v| v.meaning.map(Meaning::as_str)),
                opt_json(item.not_carried.as_ref()),
            ])?;
            for f in &faces {
                face_stmt.execute(params![f, a.revision, seq, rid])?;
            }
            state_stmt.execute(params![item.state.as_str(), seq, rid])?;
            body.push(item.requirement.clone());
            body.extend(item.evidence.clone());
        }
    }
    tx.prepare_cached("INSERT INTO decisions_fts (rowid, subject, body) VALUES (?1, ?2, ?3)")?
        .execute(params![seq, decision.subject, body.join("\n")])?;
    Ok(rid)
}

/// Deletes decisions by row id (basis and side rows by cascade, full-text rows explicitly).
pub(in crate::store) fn delete_decisions(
    tx: &Transaction<'_>,
    rids: &[i64],
) -> Result<usize, StoreError> {
    let mut n = 0;
    for rid in rids {
        tx.prepare_cached(
            "DELETE FROM decisions_fts WHERE rowid = (SELECT seq FROM decisions WHERE rid = ?1)",
        )?
        .execute([rid])?;
        n += tx
            .prepare_cached("DELETE FROM decisions WHERE rid = ?1")?
            .execute([rid])?;
    }
    Ok(n)
}
