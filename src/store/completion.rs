//! Prefix completion over stored values (`completion/complete`): the distinct revisions,
//! locators, decision subjects and ids that start with what the user typed, in binary
//! (UTF-8 byte) order, in one read transaction.
//!
//! Every query is an index range `col >= prefix AND col < upper` (see
//! [`prefix_upper_bound`]). Without a narrowing filter the distinct values are found by
//! skipping along the column's index, one seek per value (`col > last ORDER BY col LIMIT 1`),
//! so a completion costs the same at 100 rows and at 100,000 however often each value
//! repeats. With a filter (the locator or revision already chosen) the rows of that locator
//! or revision are few and are read through its own index. Each source gives at most
//! `limit + 1` values, which is how `has_more` is learnt without counting.

use std::collections::BTreeSet;

use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, Transaction, params_from_iter};

use super::{Store, StoreError};
use crate::review::is_revision;

/// What is completed, and so which columns are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completable {
    /// `revision` of records and decisions.
    Revision,
    /// `locator` of records and decisions that carry a uri (a locator of the revision form
    /// is an artifact stored without one, never offered as a uri).
    Locator,
    /// `subject` of decisions.
    Subject,
    /// `id` of records.
    RecordId,
    /// `id` of decisions.
    DecisionId,
}

/// Only the rows of this locator and/or this revision.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Narrowing {
    pub locator: Option<String>,
    pub revision: Option<String>,
}

impl Narrowing {
    fn is_empty(&self) -> bool {
        self.locator.is_none() && self.revision.is_none()
    }
}

/// The first `limit` matches in order, and whether there are more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matches {
    pub values: Vec<String>,
    pub has_more: bool,
}

/// The smallest string above every string that starts with `prefix`, in SQLite's binary
/// order of TEXT (UTF-8 bytes, which is the order of code points): the prefix with its last
/// character replaced by the next one, after dropping trailing U+10FFFF (which has no next).
/// `None` when no string is above them all: the empty prefix, or one of U+10FFFF only.
pub fn prefix_upper_bound(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = match last {
            // The surrogates are not characters: the next one after U+D7FF is U+E000.
            '\u{D7FF}' => Some('\u{E000}'),
            c => char::from_u32(u32::from(c) + 1),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Every revision-form locator sorts below this (`sha256:` and 64 of `0-9a-f`).
const AFTER_REVISION_LOCATORS: &str = "sha256:g";

fn sources(what: Completable) -> &'static [(&'static str, &'static str)] {
    match what {
        Completable::Revision => &[("records", "revision"), ("decisions", "revision")],
        Completable::Locator => &[("records", "locator"), ("decisions", "locator")],
        Completable::Subject => &[("decisions", "subject")],
        Completable::RecordId => &[("records", "id")],
        Completable::DecisionId => &[("decisions", "id")],
    }
}

impl Store {
    /// The distinct stored values of `what` starting with `prefix` (only those of rows
    /// matching `narrowing`), at most `limit` of them in binary order.
    pub fn complete(
        &mut self,
        what: Completable,
        prefix: &str,
        narrowing: &Narrowing,
        limit: usize,
    ) -> Result<Matches, StoreError> {
        let upper = prefix_upper_bound(prefix);
        let range = Range {
            prefix,
            upper: upper.as_deref(),
        };
        let tx = self.read()?;
        let want = limit.saturating_add(1);
        let mut found = BTreeSet::new();
        for &(table, column) in sources(what) {
            let values = if narrowing.is_empty() {
                skip_scan(&tx, table, column, what, &range, want)?
            } else {
                narrowed(&tx, table, column, what, &range, narrowing, want)?
            };
            found.extend(values);
        }
        let has_more = found.len() > limit;
        Ok(Matches {
            values: found.into_iter().take(limit).collect(),
            has_more,
        })
    }
}

/// `col >= prefix AND col < upper`.
struct Range<'a> {
    prefix: &'a str,
    upper: Option<&'a str>,
}

/// Up to `want` distinct values in the range, one index seek each.
fn skip_scan(
    tx: &Transaction<'_>,
    table: &str,
    column: &str,
    what: Completable,
    range: &Range<'_>,
    want: usize,
) -> Result<Vec<String>, StoreError> {
    let below = if range.upper.is_some() {
        format!(" AND {column} < ?2")
    } else {
        String::new()
    };
    let step = |op: &str| {
        format!(
            "SELECT {column} FROM {table} WHERE {column} {op} ?1{below} ORDER BY {column} LIMIT 1"
        )
    };
    let (first, next) = (step(">="), step(">"));
    let mut out = Vec::new();
    let mut from = range.prefix.to_string();
    let mut inclusive = true;
    while out.len() < want {
        let mut stmt = tx.prepare_cached(if inclusive { &first } else { &next })?;
        let found: Option<String> = match range.upper {
            Some(upper) => stmt.query_row([from.as_str(), upper], |r| r.get(0)),
            None => stmt.query_row([from.as_str()], |r| r.get(0)),
        }
        .optional()?;
        let Some(value) = found else { break };
        if what == Completable::Locator && is_revision(&value) {
            // Artifacts stored without a uri: jump over all of them in one seek.
            from = AFTER_REVISION_LOCATORS.to_string();
            inclusive = true;
            continue;
        }
        out.push(value.clone());
        from = value;
        inclusive = false;
    }
    Ok(out)
}

/// Up to `want` distinct values in the range among the rows of one locator or revision.
fn narrowed(
    tx: &Transaction<'_>,
    table: &str,
    column: &str,
    what: Completable,
    range: &Range<'_>,
    narrowing: &Narrowing,
    want: usize,
) -> Result<Vec<String>, StoreError> {
    let mut sql = format!("SELECT DISTINCT {column} FROM {table} WHERE {column} >= ?");
    let mut params = vec![SqlValue::Text(range.prefix.to_string())];
    if let Some(upper) = range.upper {
        sql.push_str(&format!(" AND {column} < ?"));
        params.push(SqlValue::Text(upper.to_string()));
    }
    if let Some(locator) = &narrowing.locator {
        sql.push_str(" AND locator = ?");
        params.push(SqlValue::Text(locator.clone()));
    }
    if let Some(revision) = &narrowing.revision {
        sql.push_str(" AND revision = ?");
        params.push(SqlValue::Text(revision.clone()));
    }
    if what == Completable::Locator {
        sql.push_str(" AND uri IS NOT NULL");
    }
    sql.push_str(&format!(" ORDER BY {column} LIMIT ?"));
    params.push(SqlValue::Integer(i64::try_from(want).unwrap_or(i64::MAX)));
    let mut stmt = tx.prepare_cached(&sql)?;
    let values = stmt
        .query_map(params_from_iter(params), |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_bound_of_a_prefix_is_above_every_extension_and_nothing_else() {
        assert_eq!(prefix_upper_bound(""), None);
        assert_eq!(prefix_upper_bound("sha"), Some("shb".into()));
        assert_eq!(prefix_upper_bound("a\u{7F}"), Some("a\u{80}".into()));
        assert_eq!(prefix_upper_bound("\u{D7FF}"), Some("\u{E000}".into()));
        assert_eq!(prefix_upper_bound("é"), Some("ê".into()));
        assert_eq!(prefix_upper_bound("ab\u{10FFFF}"), Some("ac".into()));
        assert_eq!(prefix_upper_bound("\u{10FFFF}\u{10FFFF}"), None);
        assert_eq!(prefix_upper_bound("\u{FFFF}"), Some("\u{10000}".into()));
        // Byte order: every extension is below the bound, the next strings are not.
        for prefix in ["sha256:", "a\u{7F}", "ü", "x\u{10FFFF}", "\u{D7FF}"] {
            let upper = prefix_upper_bound(prefix).unwrap_or_default();
            for tail in ["", "\0", "zzz", "\u{10FFFF}\u{10FFFF}", "é"] {
                let s = format!("{prefix}{tail}");
                assert!(s.as_str() >= prefix && s < upper, "{s:?} vs {upper:?}");
            }
            assert!(upper.as_str() > prefix && !upper.starts_with(prefix));
        }
    }

    fn store_with(rows: &[(&str, &str)]) -> Store {
        let mut store = Store::open_in_memory().unwrap();
        let conn = store.conn().unwrap();
        for (i, (locator, revision)) in rows.iter().enumerate() {
            let uri = (!is_revision(locator)).then_some(*locator);
            conn.execute(
                "INSERT INTO records (seq, id, kind, locator, note, tags, entity_ids, id_scheme, revision, format, uri, created_at, updated_at)
                 VALUES (?1, ?2, 'note', ?3, 'n', '[]', '[]', 'none', ?4, 'step', ?5, 't', 't')",
                rusqlite::params![i as i64 + 1, format!("rec_{i:04}"), locator, revision, uri],
            )
            .unwrap();
        }
        store
    }

    fn rev(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    #[test]
    fn distinct_values_in_order_capped_with_has_more() {
        let (a, b, c) = (rev('a'), rev('b'), rev('c'));
        let mut store = store_with(&[
            ("file:///p/x.step", &a),
            ("file:///p/x.step", &b),
            ("file:///p/y.step", &c),
            (&c, &c),
            ("file:///p/y.step", &c),
        ]);
        let none = Narrowing::default();
        let got = store
            .complete(Completable::Revision, "sha256:", &none, 100)
            .unwrap();
        assert_eq!(got.values, [a.clone(), b.clone(), c.clone()]);
        assert!(!got.has_more);
        let got = store.complete(Completable::Revision, "", &none, 2).unwrap();
        assert_eq!((got.values.len(), got.has_more), (2, true));
        let got = store
            .complete(Completable::Locator, "", &none, 100)
            .unwrap();
        assert_eq!(got.values, ["file:///p/x.step", "file:///p/y.step"]);
        let by_uri = Narrowing {
            locator: Some("file:///p/x.step".into()),
            revision: None,
        };
        let got = store
            .complete(Completable::Revision, "sha", &by_uri, 100)
            .unwrap();
        assert_eq!(got.values, [a, b]);
        let by_rev = Narrowing {
            locator: None,
            revision: Some(c.clone()),
        };
        let got = store
            .complete(Completable::Locator, "", &by_rev, 100)
            .unwrap();
        assert_eq!(got.values, ["file:///p/y.step"]);
        let got = store
            .complete(Completable::RecordId, "rec_000", &none, 100)
            .unwrap();
        assert_eq!(got.values.len(), 5);
        let got = store
            .complete(Completable::Subject, "x", &none, 100)
            .unwrap();
        assert_eq!(got.values, Vec::<String>::new());
    }
}
