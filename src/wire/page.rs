//! A recall page: `{"records":[..]}` or `{"decisions":[..]}` with an optional `next_cursor`,
//! its items written one at a time as the rows come (each one serialised while it is
//! borrowed from its row), within the byte budget of one answer.

use serde::Serialize;
use serde_json::Value;

use super::escape::to_writer;
use super::{Encoded, Error, fit_item, quotes, to_json};

/// The member that carries the cursor of the next page.
const NEXT_CURSOR: &str = "next_cursor";

/// A page being written.
pub struct PageWriter {
    key: &'static str,
    /// The compact JSON so far.
    out: Vec<u8>,
    /// What the items cost so far: their JSON and its escaped copy.
    cost: usize,
    items: usize,
    /// The page's artifacts table (`"artifacts":[..]`), when its items refer to artifacts by
    /// index: every artifact once per page, not once per item.
    artifacts: Option<Vec<u8>>,
    /// Where an item is read whole: `{resource}{id}/part/1` (see [`super::fit_item`]).
    resource: Option<&'static str>,
    /// Whether an item was cut to fit.
    cut: bool,
    error: Option<Error>,
}

impl PageWriter {
    /// A page of items under `key` (a plain identifier), with room for `items` items of about
    /// `bytes_each` bytes: a page of records is then written without the buffer growing (and
    /// being copied) a dozen times on the way.
    pub fn with_room(key: &'static str, items: usize, bytes_each: usize) -> PageWriter {
        let bytes = items.saturating_mul(bytes_each).saturating_add(64);
        let mut out = Vec::with_capacity(bytes);
        out.extend_from_slice(b"{\"");
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":[");
        PageWriter {
            key,
            out,
            cost: 0,
            items: 0,
            artifacts: None,
            resource: None,
            cut: false,
            error: None,
        }
    }

    /// A page whose items refer to an `artifacts` table written once before them (see
    /// [`PageWriter::push_referring`]); each item is read whole at `resource` + its id (a
    /// first item larger than the page is cut to fit and names it).
    pub fn with_artifacts(
        key: &'static str,
        items: usize,
        bytes_each: usize,
        resource: &'static str,
    ) -> PageWriter {
        let mut page = PageWriter::with_room(key, items, bytes_each);
        page.artifacts = Some(Vec::new());
        page.resource = Some(resource);
        page
    }

    /// Appends `item` as [`PageWriter::push_within`] does; `artifact`, when given, is a new
    /// entry of the page's artifacts table that the item is the first to refer to, and its
    /// bytes count against `budget` with the item's. Either both are taken or neither.
    pub fn push_referring(
        &mut self,
        budget: usize,
        artifact: Option<&impl Serialize>,
        item: &impl Serialize,
    ) -> bool {
        let entry = match artifact.map(to_json).transpose() {
            Ok(e) => e,
            Err(e) => {
                self.error = Some(e);
                return false;
            }
        };
        let extra = entry
            .as_ref()
            .map_or(0, |e| 2 * e.len() + quotes(e.as_bytes()) + 2);
        let before = self.cost;
        self.cost += extra;
        if !self.push_within(budget, item) {
            self.cost = before;
            return false;
        }
        if let (Some(entry), Some(table)) = (entry, self.artifacts.as_mut()) {
            if !table.is_empty() {
                table.push(b',');
            }
            table.extend_from_slice(entry.as_bytes());
        }
        true
    }

    /// Appends `item` unless it would take the page (both copies) past `budget` bytes; the
    /// first item is always taken, cut to fit when it alone is larger (see
    /// [`super::fit_item`]; a page without a resource to name takes it whole). Returns
    /// whether it was: a page ends at the first item refused, and at the first item that
    /// could not be encoded (reported by `finish`).
    pub fn push_within(&mut self, budget: usize, item: &impl Serialize) -> bool {
        if self.error.is_some() {
            return false;
        }
        let mark = self.out.len();
        if self.items > 0 {
            self.out.push(b',');
        }
        if let Err(e) = to_writer(&mut self.out, item) {
            self.out.truncate(mark);
            self.error = Some(e);
            return false;
        }
        let added = self.out.get(mark..).unwrap_or_default();
        let mut cost = self.cost + 2 * added.len() + quotes(added);
        if self.items > 0 && cost > budget {
            self.out.truncate(mark);
            return false;
        }
        if let (true, Some(resource)) = (cost > budget, self.resource) {
            // The first item, larger than a page: cut to fit, saying so.
            let fitted = serde_json::from_slice::<Value>(added).map(|v| {
                let id = v.get("id").and_then(Value::as_str).unwrap_or_default();
                let whole = format!("{resource}{id}/part/1");
                fit_item(v, budget.saturating_sub(self.cost), &whole)
            });
            self.out.truncate(mark);
            if let Err(e) = fitted.and_then(|v| to_writer(&mut self.out, &v)) {
                self.out.truncate(mark);
                self.error = Some(e);
                return false;
            }
            let added = self.out.get(mark..).unwrap_or_default();
            cost = self.cost + 2 * added.len() + quotes(added);
            self.cut = true;
        }
        self.cost = cost;
        self.items += 1;
        true
    }

    /// Whether an item of the page was cut to fit (it says so in its `truncated`).
    pub fn has_cut_item(&self) -> bool {
        self.cut
    }

    /// The page, with `next_cursor` when more items follow. The members come in sorted order,
    /// as in every answer: `decisions` before `next_cursor`, `records` after it.
    pub fn finish(mut self, next_cursor: Option<&str>) -> Result<Encoded, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        self.out.push(b']');
        if let Some(cursor) = next_cursor {
            let member = format!("\"{NEXT_CURSOR}\":{}", serde_json::to_string(cursor)?);
            if self.key < NEXT_CURSOR {
                self.out.push(b',');
                self.out.extend_from_slice(member.as_bytes());
            } else {
                let at = 1.min(self.out.len());
                self.out.splice(at..at, member.bytes().chain([b',']));
            }
        }
        if let Some(table) = self.artifacts.take() {
            let at = 1.min(self.out.len());
            let member = [b"\"artifacts\":[".as_slice(), &table, b"],"].concat();
            self.out.splice(at..at, member);
        }
        self.out.push(b'}');
        let plain = String::from_utf8(self.out).map_err(|e| {
            <Error as serde::ser::Error>::custom(format!("a page is not UTF-8: {e}"))
        })?;
        Ok(Encoded::from_json(plain))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::*;

    #[test]
    fn page_keys_come_sorted_and_carry_the_escaped_copy() {
        for key in ["decisions", "records"] {
            for next in [None, Some("c2.\"x\\")] {
                for n in 0..3 {
                    let mut page = PageWriter::with_room(key, n, 16);
                    let items: Vec<Value> = (0..n)
                        .map(|i| json!({"q": format!("say \"{i}\"\n")}))
                        .collect();
                    for item in &items {
                        assert!(page.push_within(usize::MAX, item));
                    }
                    let out = page.finish(next).unwrap();
                    let mut want = Map::new();
                    want.insert(key.into(), Value::Array(items));
                    if let Some(c) = next {
                        want.insert(NEXT_CURSOR.into(), Value::String(c.to_string()));
                    }
                    let want = Value::Object(want).to_string();
                    assert_eq!(out.plain, want);
                    let as_string = Value::String(want).to_string();
                    assert_eq!(out.quoted, &as_string[1..as_string.len() - 1]);
                }
            }
        }
    }

    #[test]
    fn page_stops_at_the_first_item_past_the_budget_but_always_takes_one() {
        let mut page = PageWriter::with_room("records", 0, 0);
        let big = json!({"s": "x".repeat(100)});
        assert!(page.push_within(10, &big), "the first item is always taken");
        assert!(!page.push_within(10, &json!(1)));
        let out = page.finish(None).unwrap();
        assert_eq!(out.plain, json!({"records": [big]}).to_string());
    }
}
