//! Column codecs: the lists of strings (tags, entity ids, faces) a row keeps as JSON text,
//! written and read back, and the set rule they keep.

use std::borrow::Cow;

/// The text of column `col` does not read as what the column holds: `why`.
fn unreadable(
    col: usize,
    why: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(col, rusqlite::types::Type::Text, why.into())
}

/// An enum kept in a TEXT column by its wire name, read with its `parse` (see `wire_names!`);
/// another name is "unknown `what`".
pub(super) fn wire_enum<T>(
    col: usize,
    what: &str,
    v: &str,
    parse: fn(&str) -> Option<T>,
) -> rusqlite::Result<T> {
    parse(v).ok_or_else(|| unreadable(col, format!("unknown {what} {v:?}")))
}

/// An optional JSON value kept in a nullable TEXT column (a carried item's marker, say).
pub(super) fn json_opt<T: serde::de::DeserializeOwned>(
    col: usize,
    s: Option<&str>,
) -> rusqlite::Result<Option<T>> {
    s.map(|s| serde_json::from_str(s).map_err(|e| unreadable(col, e)))
        .transpose()
}

/// The column text of an optional value ([`json_opt`] reads it back).
pub(super) fn opt_json<T: serde::Serialize>(v: Option<&T>) -> Option<String> {
    v.and_then(|v| serde_json::to_string(v).ok())
}

/// Parses a JSON array of strings stored in a TEXT column.
pub(super) fn json_strings(col: usize, s: &str) -> rusqlite::Result<Vec<String>> {
    Ok(json_strs(col, s)?
        .into_iter()
        .map(Cow::into_owned)
        .collect())
}

/// [`json_strings`] borrowing from `s` where no string holds an escape (always, for the lists
/// [`json_text`] writes of plain names): a recall reads the lists of fifty rows per call.
pub(super) fn json_strs(col: usize, s: &str) -> rusqlite::Result<Vec<Cow<'_, str>>> {
    if let Some(v) = plain_json_strings(s) {
        return Ok(v.into_iter().map(Cow::Borrowed).collect());
    }
    let owned: Vec<String> = serde_json::from_str(s).map_err(|e| unreadable(col, e))?;
    Ok(owned.into_iter().map(Cow::Owned).collect())
}

/// The fast path of [`json_strings`], for the form [`json_text`] writes when no string needs
/// an escape: `["a","b"]`, no whitespace, no backslash. Anything else (escapes, whitespace,
/// damage) is `None` and goes to the full parser, so both paths accept exactly the same
/// texts and give the same strings. It exists because serde's general path grows the vector
/// one string at a time, a cost every recall paid for every list of every row.
fn plain_json_strings(s: &str) -> Option<Vec<&str>> {
    let inner = s.strip_prefix('[')?.strip_suffix(']')?;
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.iter().filter(|&&c| c == b'"').count() / 2);
    if b.is_empty() {
        return Some(out);
    }
    // One pass over `"a","b"`: a quote opens a string, the next quote closes it (without a
    // backslash no quote is escaped), then `,` or the end. A backslash or a control character
    // (which JSON requires escaped) leaves the text to the full parser.
    let mut i = 0;
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let start = i + 1;
        let mut end = start;
        loop {
            match b.get(end) {
                Some(b'"') => break,
                Some(&c) if c == b'\\' || c < 0x20 => return None,
                Some(_) => end += 1,
                None => return None,
            }
        }
        // Both ends are at ASCII quotes, so they are character boundaries.
        out.push(inner.get(start..end)?);
        match b.get(end + 1) {
            None => return Some(out),
            Some(b',') => i = end + 2,
            Some(_) => return None,
        }
    }
}

/// Serialises a list of strings for a TEXT column.
pub(super) fn json_text(v: &[String]) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".into())
}

/// Keeps the first occurrence of each string: tags and entity ids are sets.
pub(super) fn dedup(v: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    v.iter()
        .filter(|s| seen.insert(s.as_str()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_fast_path_agrees_with_serde() {
        let texts = [
            "[]",
            "[\"\"]",
            "[\"a\"]",
            "[\"a\",\"\",\"b c\"]",
            "[\",\"]",
            "[\"Ø12 ±0.05\",\"face:1\"]",
            "[\"a\\\"b\",\"c\"]",
            "[\"a\\\\\"]",
            "[\"a\\u0041\"]",
            "[ \"a\" , \"b\" ]",
            "[\"a\",\"b\",]",
            "[\"a\" \"b\"]",
            "[\"a\"\"b\"]",
            "[\"]",
            "[\"a]",
            "[\"a\u{1}\"]",
            "[\"a\"]x",
            "[1,2]",
            "[\"a\",1]",
            "",
            "null",
            "{}",
        ];
        for t in texts {
            let full: Result<Vec<String>, _> = serde_json::from_str(t);
            let ours = json_strings(4, t);
            match (&full, &ours) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{t:?}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{t:?}: serde {full:?}, ours {ours:?}"),
            }
            if let Some(fast) = plain_json_strings(t) {
                let fast: Vec<String> = fast.into_iter().map(str::to_string).collect();
                assert_eq!(Some(&fast), full.as_ref().ok(), "{t:?}");
            }
        }
        let written = vec![
            "x\"y".to_string(),
            "back\\slash".into(),
            "tab\t".into(),
            "".into(),
        ];
        assert_eq!(json_strings(4, &json_text(&written)).unwrap(), written);
    }
}
