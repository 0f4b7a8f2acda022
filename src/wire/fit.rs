//! One item (a record or decision, or its summary) larger than an answer may carry, cut to
//! fit: its longest strings shortened (ending in `…`), and when that is not enough its
//! longest lists cut, with a `truncated` member that says which field lost how many bytes or
//! items and names the resource that serves the whole item in parts
//! (`review://records/{id}/part/1`, see `resources`). Nothing is dropped without saying so.

use serde_json::{Map, Value, json};

use super::answer_bytes;

/// Strings of at most this many bytes are never cut (ids, timestamps, revisions, short
/// names): only lists are, when the long strings alone do not make room.
const KEEP_BYTES: usize = 256;
/// At most this many cut fields are named; `more_fields` counts the rest.
const LISTED: usize = 8;
/// What an item says where it was cut.
const TRUNCATED: &str = "truncated";
/// The mark at the end of a shortened string.
const ELLIPSIS: &str = "…";

/// One cut: where (a JSON Pointer into the item) and how much.
struct Cut {
    field: String,
    bytes: usize,
    items: usize,
}

/// `item` unchanged when it costs an answer at most `allowance` bytes (its JSON and the
/// escaped copy, see [`answer_bytes`]); else cut to fit, with a `truncated` member naming
/// `whole`, where the whole item is read.
pub fn fit_item(item: Value, allowance: usize, whole: &str) -> Value {
    if answer_bytes(&item) <= allowance {
        return item;
    }
    let fits = |strings: usize, lists: usize| {
        let v = cut(&item, strings, lists, whole);
        (answer_bytes(&v) <= allowance).then_some(v)
    };
    let (longest_string, longest_list) = longest(&item);
    if let Some(best) = fits(KEEP_BYTES, usize::MAX) {
        // The largest cap on strings that fits.
        return largest_fitting(best, KEEP_BYTES, longest_string, |cap| {
            fits(cap, usize::MAX)
        });
    }
    let Some(best) = fits(KEEP_BYTES, 0).or_else(|| fits(0, 0)) else {
        // Not even the item's keys fit (an allowance of a few bytes): say only that.
        return json!({TRUNCATED: {"fields": [], "whole": whole}});
    };
    largest_fitting(best, 0, longest_list, |cap| fits(KEEP_BYTES, cap))
}

/// What `fits` gives at the largest cap between `lo` (where it gave `best`) and `hi` that
/// fits, by bisection: what fits is about monotone in the cap, and the result is always one
/// that was measured to fit.
fn largest_fitting(
    mut best: Value,
    mut lo: usize,
    mut hi: usize,
    fits: impl Fn(usize) -> Option<Value>,
) -> Value {
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        match fits(mid) {
            Some(v) => {
                best = v;
                lo = mid;
            }
            None => hi = mid,
        }
    }
    best
}

/// The longest string (bytes) and list (items) anywhere in `v`.
fn longest(v: &Value) -> (usize, usize) {
    match v {
        Value::String(s) => (s.len(), 0),
        Value::Array(a) => a
            .iter()
            .map(longest)
            .fold((0, a.len()), |(s, l), (s2, l2)| (s.max(s2), l.max(l2))),
        Value::Object(m) => m
            .values()
            .map(longest)
            .fold((0, 0), |(s, l), (s2, l2)| (s.max(s2), l.max(l2))),
        _ => (0, 0),
    }
}

/// `item` with every string cut to `strings` bytes and every list to `lists` items, and the
/// `truncated` member when anything was cut.
fn cut(item: &Value, strings: usize, lists: usize, whole: &str) -> Value {
    let mut cuts = Vec::new();
    let mut out = cut_value(item, strings, lists, &mut String::new(), &mut cuts);
    if cuts.is_empty() {
        return out;
    }
    // The largest cuts first.
    cuts.sort_by_key(|c| std::cmp::Reverse((c.items, c.bytes)));
    let more = cuts.len().saturating_sub(LISTED);
    let fields: Vec<Value> = cuts
        .iter()
        .take(LISTED)
        .map(|c| {
            if c.items > 0 {
                json!({"field": c.field, "cut_items": c.items})
            } else {
                json!({"field": c.field, "cut_bytes": c.bytes})
            }
        })
        .collect();
    let mut note = Map::new();
    note.insert("fields".into(), Value::Array(fields));
    if more > 0 {
        note.insert("more_fields".into(), json!(more));
    }
    note.insert("whole".into(), json!(whole));
    if let Value::Object(m) = &mut out {
        m.insert(TRUNCATED.into(), Value::Object(note));
    }
    out
}

fn cut_value(
    v: &Value,
    strings: usize,
    lists: usize,
    path: &mut String,
    cuts: &mut Vec<Cut>,
) -> Value {
    match v {
        Value::String(s) if s.len() > strings && s.len() > ELLIPSIS.len() => {
            let mut end = strings.saturating_sub(ELLIPSIS.len()).min(s.len());
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let kept = s.get(..end).unwrap_or_default();
            cuts.push(Cut {
                field: path.clone(),
                bytes: s.len() - kept.len(),
                items: 0,
            });
            Value::String(format!("{kept}{ELLIPSIS}"))
        }
        Value::Array(a) => {
            if a.len() > lists {
                cuts.push(Cut {
                    field: path.clone(),
                    bytes: 0,
                    items: a.len() - lists,
                });
            }
            let mark = path.len();
            let out = a
                .iter()
                .take(lists)
                .enumerate()
                .map(|(i, x)| {
                    path.push('/');
                    path.push_str(&i.to_string());
                    let x = cut_value(x, strings, lists, path, cuts);
                    path.truncate(mark);
                    x
                })
                .collect();
            Value::Array(out)
        }
        Value::Object(m) => {
            let mark = path.len();
            let out = m
                .iter()
                .map(|(k, x)| {
                    path.push('/');
                    path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                    let x = cut_value(x, strings, lists, path, cuts);
                    path.truncate(mark);
                    (k.clone(), x)
                })
                .collect();
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// The `n`th part (from 1) of `text` when it is cut into parts of at most `budget` bytes
/// each as they cost inside a JSON string inside another JSON string (a part is a string
/// member of a JSON document that a resource answer carries as its text), and how many
/// parts there are. `None` for a part that does not exist.
pub fn part(text: &str, n: usize, budget: usize) -> Option<(&str, usize)> {
    let mut bounds = vec![0];
    let mut spent = 0;
    for (i, c) in text.char_indices() {
        let cost = twice_escaped(c);
        if spent + cost > budget && spent > 0 {
            bounds.push(i);
            spent = 0;
        }
        spent += cost;
    }
    bounds.push(text.len());
    let parts = bounds.len() - 1;
    let from = *bounds.get(n.checked_sub(1)?)?;
    let to = *bounds.get(n)?;
    Some((text.get(from..to)?, parts))
}

/// What `c` costs escaped into a JSON string whose text is then escaped into another.
fn twice_escaped(c: char) -> usize {
    match c {
        '"' | '\\' => 4,
        '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 3,
        c if u32::from(c) < 0x20 => 7,
        // DEL, C1, U+2028/9, the bidirectional controls and the invisible format characters:
        // `\u202e`, then `\\u202e`; a surrogate pair beyond the Basic Multilingual Plane.
        c if crate::text::is_control_like(c) => 7 * c.len_utf16(),
        c => c.len_utf8(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_that_fits_is_unchanged() {
        let v = json!({"id": "rec_1", "note": "short"});
        assert_eq!(fit_item(v.clone(), 1000, "w"), v);
    }

    #[test]
    fn long_strings_are_cut_and_said_to_be() {
        let v = json!({"id": "rec_1", "note": "é".repeat(20_000), "tags": ["a"]});
        let out = fit_item(v, 8_000, "review://records/rec_1/part/1");
        assert!(answer_bytes(&out) <= 8_000, "{}", answer_bytes(&out));
        let note = out["note"].as_str().unwrap();
        assert!(
            note.ends_with(ELLIPSIS) && note.len() > 2_000,
            "{}",
            note.len()
        );
        let t = &out[TRUNCATED];
        assert_eq!(t["fields"][0]["field"], "/note");
        assert_eq!(
            t["fields"][0]["cut_bytes"].as_u64().unwrap() as usize,
            40_000 - (note.len() - ELLIPSIS.len())
        );
        assert_eq!(t["whole"], "review://records/rec_1/part/1");
        assert_eq!(out["id"], "rec_1");
    }

    #[test]
    fn long_lists_are_cut_when_strings_are_not_enough() {
        let ids: Vec<String> = (0..5_000).map(|i| format!("face:{i}")).collect();
        let v = json!({"id": "rec_1", "entity_ids": ids});
        let out = fit_item(v, 4_000, "w");
        assert!(answer_bytes(&out) <= 4_000);
        let kept = out["entity_ids"].as_array().unwrap().len();
        assert!(kept > 100, "{kept}");
        assert_eq!(out[TRUNCATED]["fields"][0]["field"], "/entity_ids");
        assert_eq!(out[TRUNCATED]["fields"][0]["cut_items"], 5_000 - kept);
    }

    #[test]
    fn many_cut_fields_are_counted_not_listed() {
        let basis: Vec<Value> = (0..40)
            .map(|i| json!({"evidence": format!("{i} {}", "x".repeat(3_000))}))
            .collect();
        let out = fit_item(json!({"id": "dec_1", "basis": basis}), 20_000, "w");
        assert!(answer_bytes(&out) <= 20_000);
        let t = &out[TRUNCATED];
        assert_eq!(t["fields"].as_array().unwrap().len(), LISTED);
        assert!(t["more_fields"].as_u64().unwrap() > 0, "{t}");
    }

    #[test]
    fn parts_cover_the_text_once_within_their_budget() {
        let text = format!("{{\"a\":\"{}\\\"\n{}\"}}", "x".repeat(900), "ü".repeat(700));
        let (first, parts) = part(&text, 1, 300).unwrap();
        assert!(parts > 3);
        let mut joined = String::from(first);
        for n in 2..=parts {
            let (p, of) = part(&text, n, 300).unwrap();
            assert_eq!(of, parts);
            let twice = serde_json::to_string(&serde_json::to_string(p).unwrap()).unwrap();
            assert!(twice.len() <= 300 + 6, "{}", twice.len());
            joined.push_str(p);
        }
        assert_eq!(joined, text);
        assert!(part(&text, 0, 300).is_none() && part(&text, parts + 1, 300).is_none());
    }
}
