//! Full-text query building. User text never reaches MATCH as syntax: it is cut into words
//! (runs of Unicode letters and digits), each word becomes a quoted FTS5 string with a
//! prefix star, and the words are ANDed. Quotes, `*`, `AND`, `NEAR(`, `-`, `:` and `^` are
//! therefore plain text or separators, never operators.

/// The searchable words of `text`, each once, at most [`MAX_WORDS`]. A word given again adds
/// nothing to the AND but another walk of its doclists (32 copies of a word every record
/// holds: 3 times the time of one at 50,000 records), and took the place of the words after
/// it.
pub fn fts_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        if words.len() == MAX_WORDS {
            break;
        }
        if !w.is_empty() && !words.iter().any(|k| k == w) {
            words.push(w.to_string());
        }
    }
    words
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

    /// Regression (the largest valid inputs): a word repeated was searched once per copy,
    /// and 32 copies left no room for the words after them.
    #[test]
    fn fts_words_keeps_each_word_once_and_the_words_after_a_repeated_one() {
        let text = format!("{} thread Bore", "bore ".repeat(40));
        assert_eq!(fts_words(&text), vec!["bore", "thread", "Bore"]);
        let many: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        assert_eq!(fts_words(&many.join(" ")), many[..MAX_WORDS].to_vec());
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
