//! Decisions: remember (replace at the same locator, subject and revision), recall with
//! keyset pages, forget.

use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::records::{Clause, dedup};
use super::search::{fts_words, match_all, match_column};
use super::{
    Page, PageRequest, Position, Segment, Store, StoreError, check_answer_size, current_seq,
    json_strings, json_text, next_seq, run_segments_into,
};
use crate::review::{Artifact, BasisItem, Decision, Judgement, Source, State, Verdict, id};
use crate::time;
use crate::wire;

/// What `remember_decision` stores: the artifact already normalised, the basis checked.
#[derive(Debug, Clone)]
pub struct NewDecision {
    pub artifact: Artifact,
    pub subject: String,
    pub disposition: String,
    pub summary: Option<String>,
    pub basis: Vec<BasisItem>,
}

/// The filters of `recall_decisions`, ANDed. `face` is matched only at its revision.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecisionQuery {
    pub locator: Option<String>,
    pub revision: Option<String>,
    pub subject: Option<String>,
    /// Exact face id (in basis `faces`), with the revision it belongs to.
    pub face: Option<(String, String)>,
    pub text: Option<String>,
    pub state: Option<State>,
}

pub(super) const DECISION_COLS: &str = "d.rid, d.id, d.subject, d.disposition, d.summary, \
    d.revision, d.format, d.uri, d.units, d.created_at, d.updated_at, d.seq";

/// A decision row without its basis, which [`load_basis`] adds.
pub(super) fn decision_from_row(row: &Row<'_>) -> rusqlite::Result<(i64, Decision, i64)> {
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
            created_at: row.get(9)?,
            updated_at: row.get(10)?,
        },
        row.get(11)?,
    ))
}

fn bad_enum(col: usize, what: &str, v: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        col,
        rusqlite::types::Type::Text,
        format!("unknown {what} {v:?}").into(),
    )
}

/// The basis items of decision `rid`, in their stored order.
pub(super) fn load_basis(tx: &Transaction<'_>, rid: i64) -> Result<Vec<BasisItem>, StoreError> {
    let mut stmt = tx.prepare_cached(
        "SELECT requirement, source, source_detail, evidence, state, question, faces, \
         verdict_judgement, verdict_reason FROM basis_items WHERE decision_rid = ?1 \
         ORDER BY position",
    )?;
    let items = stmt
        .query_map([rid], |row| {
            let source: String = row.get(1)?;
            let state: String = row.get(4)?;
            let faces: String = row.get(6)?;
            let judgement: Option<String> = row.get(7)?;
            let verdict = match judgement {
                Some(j) => Some(Verdict {
                    judgement: Judgement::parse(&j).ok_or_else(|| bad_enum(7, "judgement", &j))?,
                    reason: row.get(8)?,
                }),
                None => None,
            };
            Ok(BasisItem {
                requirement: row.get(0)?,
                source: Source::parse(&source).ok_or_else(|| bad_enum(1, "source", &source))?,
                source_detail: row.get(2)?,
                evidence: row.get(3)?,
                state: State::parse(&state).ok_or_else(|| bad_enum(4, "state", &state))?,
                question: row.get(5)?,
                faces: json_strings(6, &faces)?,
                verdict,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(items)
}

/// Writes `decision` at `seq` (update row `rid` when given), with its basis items, side
/// rows and full-text row. Returns the row id.
pub(super) fn write_decision(
    tx: &Transaction<'_>,
    rid: Option<i64>,
    decision: &Decision,
    seq: i64,
) -> Result<i64, StoreError> {
    let a = &decision.artifact;
    let bytes = wire::answer_bytes(&decision.wire(Some(&a.revision)));
    check_answer_size(&format!("decision {:?}", decision.subject), bytes)?;
    // The same values, numbered alike, for the update (row `rid` as ?13) and the insert.
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
        seq
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
                 created_at = ?10, updated_at = ?11, seq = ?12 WHERE rid = ?13",
            )?
            .execute(rusqlite::params_from_iter(
                values.iter().copied().chain([&rid as &dyn rusqlite::ToSql]),
            ))?;
            rid
        }
        None => {
            tx.prepare_cached(
                "INSERT INTO decisions (id, locator, subject, revision, format, uri, units, \
                 disposition, summary, created_at, updated_at, seq) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
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
             source_detail, evidence, state, question, faces, verdict_judgement, verdict_reason) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
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
pub(super) fn delete_decisions(tx: &Transaction<'_>, rids: &[i64]) -> Result<usize, StoreError> {
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

impl Store {
    /// Saves a decision: the same (locator, subject, revision) replaces, keeping id and
    /// `created_at`; another revision is a new decision and the old one stays.
    pub fn remember_decision(&mut self, new: &NewDecision) -> Result<(Decision, bool), StoreError> {
        let tx = self.write()?;
        let now = time::now();
        // With the replaced decision, the time its new `updated_at` may not precede (see
        // `Store::remember`).
        let existing: Option<(i64, i64, String, String, String)> = tx
            .prepare_cached(
                "SELECT rid, seq, id, created_at, max(created_at, updated_at) FROM decisions \
                 WHERE locator = ?1 AND subject = ?2 AND revision = ?3",
            )?
            .query_row(
                params![new.artifact.locator(), new.subject, new.artifact.revision],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .optional()?;
        let replaced = existing.is_some();
        // A replacement keeps its seq (its place in the result order: see
        // `Store::recall_each`); only a new decision takes the next seq.
        let (rid, seq, id, created_at, not_before) = match existing {
            Some((rid, seq, id, created, not_before)) => (Some(rid), seq, id, created, not_before),
            None => {
                let seq = next_seq(&tx)?;
                (None, seq, id::mint("dec", seq), now.clone(), now.clone())
            }
        };
        let decision = Decision {
            id,
            subject: new.subject.clone(),
            disposition: new.disposition.clone(),
            summary: new.summary.clone(),
            basis: new
                .basis
                .iter()
                .map(|b| BasisItem {
                    faces: dedup(&b.faces),
                    ..b.clone()
                })
                .collect(),
            artifact: new.artifact.clone(),
            updated_at: time::updated_after(now, &not_before),
            created_at,
        };
        write_decision(&tx, rid, &decision, seq)?;
        tx.commit()?;
        Ok((decision, replaced))
    }

    /// One page of decisions matching `q`, newest first (with text: decisions whose subject
    /// holds every word first). "Newest" is the order of creation: a replaced decision keeps
    /// its seq, so paging is exact as for records (see `Store::recall_each`).
    pub fn recall_decisions(
        &mut self,
        q: &DecisionQuery,
        page: PageRequest,
    ) -> Result<Page<Decision>, StoreError> {
        let mut decisions = Vec::new();
        let page = self.recall_decisions_each(q, page, |d| {
            decisions.push(d);
            true
        })?;
        Ok(Page {
            items: decisions
                .into_iter()
                .zip(page.items)
                .map(|(d, ((), pos))| (d, pos))
                .collect(),
            snapshot: page.snapshot,
            more: page.more,
        })
    }

    /// [`Store::recall_decisions`] handing each decision of the page, with its basis, to
    /// `each` in order as it is read. `each` returns false to refuse a decision because the
    /// page is full in bytes: the page then ends before it, with `more` set.
    pub fn recall_decisions_each(
        &mut self,
        q: &DecisionQuery,
        page: PageRequest,
        mut each: impl FnMut(Decision) -> bool,
    ) -> Result<Page<()>, StoreError> {
        let tx = self.read()?;
        let snapshot = match page.snapshot {
            Some(s) => s,
            None => current_seq(&tx)?,
        };
        let words = q.text.as_deref().map(fts_words);
        let text = match &words {
            Some(w) => match (match_all(w), match_column("subject", w)) {
                (Some(all), Some(subject)) => Some((all, subject)),
                _ => {
                    return Ok(Page {
                        items: Vec::new(),
                        snapshot,
                        more: false,
                    });
                }
            },
            None => None,
        };
        let mut segments: Vec<Segment> = Vec::new();
        match text {
            Some((all, subject)) => {
                // As for records: tier 0 (subject holds every word) then tier 1, each newest
                // first, walking the full-text index whose rowid is the decision's seq.
                let start_tier = page.after.map_or(0, |a| a.tier);
                for (tier, expr) in [
                    (0, subject.clone()),
                    (1, format!("({all}) NOT ({subject})")),
                ] {
                    if tier < start_tier {
                        continue;
                    }
                    let mut c = Clause::default();
                    c.add("f.decisions_fts MATCH ?", [SqlValue::Text(expr)]);
                    c.add("f.rowid <= ?", [SqlValue::Integer(snapshot)]);
                    if let Some(after) = page.after.filter(|a| a.tier == tier) {
                        c.add("f.rowid < ?", [SqlValue::Integer(after.seq)]);
                    }
                    decision_filters(&mut c, q, true);
                    let sql = format!(
                        "SELECT {DECISION_COLS}, {tier} AS tier FROM decisions_fts f \
                         CROSS JOIN decisions d ON d.seq = f.rowid WHERE {} \
                         ORDER BY f.rowid DESC LIMIT ?",
                        c.joined()
                    );
                    segments.push((sql, c.params));
                }
            }
            None => {
                let mut c = Clause::default();
                let (from, seq_col) = if let Some((face, rev)) = &q.face {
                    c.add(
                        "x.face = ? AND x.revision = ?",
                        [Clause::text(face), Clause::text(rev)],
                    );
                    (
                        "decision_faces x CROSS JOIN decisions d ON d.rid = x.rid",
                        "x.seq",
                    )
                } else if let Some(state) = q.state {
                    c.add("x.state = ?", [Clause::text(state.as_str())]);
                    (
                        "decision_states x CROSS JOIN decisions d ON d.rid = x.rid",
                        "x.seq",
                    )
                } else {
                    ("decisions d", "d.seq")
                };
                c.add(&format!("{seq_col} <= ?"), [SqlValue::Integer(snapshot)]);
                decision_filters(&mut c, q, false);
                if let Some(after) = page.after {
                    c.add(&format!("{seq_col} < ?"), [SqlValue::Integer(after.seq)]);
                }
                let sql = format!(
                    "SELECT {DECISION_COLS}, 1 AS tier FROM {from} WHERE {} \
                     ORDER BY {seq_col} DESC LIMIT ?",
                    c.joined()
                );
                segments.push((sql, c.params));
            }
        }
        // Each decision is read with its basis and handed on while its row is current, so
        // a page holds one decision at a time besides what `each` keeps. The row after the
        // page (`limit + 1`) only says whether more follow.
        let mut items = Vec::new();
        let mut seen = 0;
        let mut basis_error = None;
        let full = run_segments_into(&tx, segments, page.limit, &mut items, |row| {
            let (rid, mut decision, seq) = decision_from_row(row)?;
            let tier: i64 = row.get(12)?;
            if seen < page.limit {
                match load_basis(&tx, rid) {
                    Ok(basis) => decision.basis = basis,
                    Err(e) => {
                        basis_error = Some(e);
                        return Ok(None);
                    }
                }
                if !each(decision) {
                    return Ok(None);
                }
            }
            seen += 1;
            Ok(Some(((), Position { tier, seq })))
        })?;
        if let Some(e) = basis_error {
            return Err(e);
        }
        let more = full || items.len() > page.limit;
        items.truncate(page.limit);
        Ok(Page {
            items,
            snapshot,
            more,
        })
    }

    /// Deletes the decision for `subject` at (`locator`, `revision`). Returns 0 or 1.
    pub fn forget_decision(
        &mut self,
        locator: &str,
        subject: &str,
        revision: &str,
    ) -> Result<usize, StoreError> {
        let tx = self.write()?;
        let rids: Vec<i64> = tx
            .prepare_cached(
                "SELECT rid FROM decisions WHERE locator = ?1 AND subject = ?2 AND revision = ?3",
            )?
            .query_map(params![locator, subject, revision], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let n = delete_decisions(&tx, &rids)?;
        tx.commit()?;
        Ok(n)
    }
}

/// The filters other than the driving one (see [`DecisionQuery`]).
fn decision_filters(c: &mut Clause, q: &DecisionQuery, text: bool) {
    if let Some(l) = &q.locator {
        c.add("d.locator = ?", [Clause::text(l)]);
    }
    if let Some(rev) = &q.revision {
        c.add("d.revision = ?", [Clause::text(rev)]);
    }
    if let Some(s) = &q.subject {
        c.add("d.subject = ?", [Clause::text(s)]);
    }
    let face_drives = !text && q.face.is_some();
    if !face_drives {
        if let Some((face, rev)) = &q.face {
            c.add(
                "EXISTS (SELECT 1 FROM decision_faces f WHERE f.face = ? AND f.revision = ? \
                 AND f.seq = d.seq)",
                [Clause::text(face), Clause::text(rev)],
            );
        }
    }
    let state_drives = !text && q.face.is_none() && q.state.is_some();
    if !state_drives {
        if let Some(state) = q.state {
            c.add(
                "EXISTS (SELECT 1 FROM decision_states s WHERE s.state = ? AND s.seq = d.seq)",
                [Clause::text(state.as_str())],
            );
        }
    }
}
