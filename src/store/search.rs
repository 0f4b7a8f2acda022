//! Full-text query building. User text never reaches MATCH as syntax: it is cut into words
//! (runs of Unicode letters and digits), each word becomes a quoted FTS5 string with a
//! prefix star, and the words are ANDed. Quotes, `*`, `AND`, `NEAR(`, `-`, `:` and `^` are
//! therefore plain text or separators, never operators.

/// The searchable words of `text`, at most [`MAX_WORDS`].
pub fn fts_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(MAX_WORDS)
        .map(str::to_string)
        .collect()
}

/// A query of more words than this keeps the first ones: every word narrows the result, and
/// an FTS5 expression of hundreds of terms only costs time.
pub const MAX_WORDS: usize = 32;

/// `"w1"* AND "w2"*`; `None` when there is no word (which finds nothing).
pub fn match_all(words: &[String]) -> Option<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"*")).collect();
    (!quoted.is_empty()).then(|| quoted.join(" AND "))
}

/// The same expression restricted to one column: `column : ("w1"* AND "w2"*)`.
pub fn match_column(column: &str, words: &[String]) -> Option<String> {
    match_all(words).map(|q| format!("{column} : ({q})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fts_words_operators_and_quotes_become_separators() {
        assert_eq!(
            fts_words(r#""bore" AND NEAR(x* -y:z ^w"#),
            vec!["bore", "AND", "NEAR", "x", "y", "z", "w"]
        );
        assert!(fts_words(r#""" * - : ^ ( )"#).is_empty());
        assert_eq!(fts_words("Ø12 ±0.05 über"), vec!["Ø12", "0", "05", "über"]);
    }

    #[test]
    fn match_all_quotes_each_word() {
        let w = fts_words("mating face");
        assert_eq!(match_all(&w).unwrap(), r#""mating"* AND "face"*"#);
        assert_eq!(
            match_column("name", &w).unwrap(),
            r#"name : ("mating"* AND "face"*)"#
        );
        assert_eq!(match_all(&[]), None);
    }
}
