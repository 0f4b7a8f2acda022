//! Comparing what the server wrote with what a transcript expects: wildcards, sealed cursors
//! and the smallest difference, named by its JSON pointer, for the report.

use serde_json::Value;

use super::ANY;
use super::cursors::mask_seals;

/// The smallest difference between an expected and an actual JSON value.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// JSON pointer of the differing value (`""` is the whole message).
    pub path: String,
    /// The expected value, or `(absent)`.
    pub expected: String,
    /// The actual value, or `(absent)`.
    pub got: String,
}

/// Compares `got` against `expected`, where [`ANY`] matches any value. Objects must have the
/// same members, arrays the same length; numbers compare as serde_json does (`1` is not `1.0`).
pub fn first_difference(expected: &Value, got: &Value) -> Option<Difference> {
    diff_at(expected, got, String::new())
}

fn diff_at(expected: &Value, got: &Value, path: String) -> Option<Difference> {
    if expected.as_str() == Some(ANY) {
        return None;
    }
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (k, ev) in e {
                let p = format!("{path}/{}", escape_pointer(k));
                match g.get(k) {
                    Some(gv) => {
                        if let Some(d) = diff_at(ev, gv, p) {
                            return Some(d);
                        }
                    }
                    None => return Some(difference(p, Some(ev), None)),
                }
            }
            g.iter()
                .find(|(k, _)| !e.contains_key(*k))
                .map(|(k, gv)| difference(format!("{path}/{}", escape_pointer(k)), None, Some(gv)))
        }
        (Value::Array(e), Value::Array(g)) => {
            for (i, (ev, gv)) in e.iter().zip(g).enumerate() {
                if let Some(d) = diff_at(ev, gv, format!("{path}/{i}")) {
                    return Some(d);
                }
            }
            // The first index only one of them has.
            let i = e.len().min(g.len());
            (e.len() != g.len()).then(|| difference(format!("{path}/{i}"), e.get(i), g.get(i)))
        }
        _ if expected == got => None,
        (Value::String(e), Value::String(g)) if mask_seals(e) == mask_seals(g) => None,
        _ => Some(difference(path, Some(expected), Some(got))),
    }
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn difference(path: String, expected: Option<&Value>, got: Option<&Value>) -> Difference {
    Difference {
        path,
        expected: expected.map_or_else(|| "(absent)".to_string(), short),
        got: got.map_or_else(|| "(absent)".to_string(), short),
    }
}

/// A value for the report, cut to a readable length.
pub(super) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 300 {
        return s;
    }
    let mut cut: String = s.chars().take(300).collect();
    cut.push_str("...");
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn difference_wildcard_matches_any_value_but_not_absence() {
        let exp = json!({"a": "{{any}}", "b": [1, {"c": "{{any}}"}]});
        assert_eq!(
            first_difference(&exp, &json!({"a": {"x": 1}, "b": [1, {"c": null}]})),
            None
        );
        let d = first_difference(&exp, &json!({"b": [1, {"c": 1}]})).unwrap();
        assert_eq!(d.path, "/a");
        assert_eq!(d.got, "(absent)");
    }

    #[test]
    fn difference_reports_path_of_smallest_change() {
        let d = first_difference(
            &json!({"result": {"list": [1, 2], "k/x": true}}),
            &json!({"result": {"list": [1, 3], "k/x": true}}),
        )
        .unwrap();
        assert_eq!(
            d,
            Difference {
                path: "/result/list/1".into(),
                expected: "2".into(),
                got: "3".into()
            }
        );
        let d = first_difference(&json!({"a": 1}), &json!({"a": 1, "z/": 2})).unwrap();
        assert_eq!((d.path.as_str(), d.expected.as_str()), ("/z~1", "(absent)"));
        let d = first_difference(&json!([1]), &json!([1, 2])).unwrap();
        assert_eq!(d.path, "/1");
        assert!(first_difference(&json!(1), &json!(1.0)).is_some());
    }
}
