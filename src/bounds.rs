//! What one client line may cost: how many JSON values it may hold (counted on the raw bytes,
//! before anything is parsed), and schema validation whose error list is bounded.
//!
//! Why both are needed (issue 12): a 16 MiB line of `[0,0,0,…]` parses into eight million
//! `serde_json::Value`s (256 MiB before anything looks at them), and jsonschema's
//! `iter_errors` builds every error before the first is returned, so eight million failing
//! items cost gigabytes and half a minute. [`count_values`] refuses the first kind of line
//! cheaply; [`schema_errors`] never asks jsonschema for every error of a large instance.

use jsonschema::{ValidationError, Validator, error::ValidationErrorKind};
use serde_json::Value;

/// The most JSON values (strings, numbers, literals, arrays, objects; object keys count as
/// strings) one line may hold. The largest request any tool accepts needs far fewer (10,000
/// entity ids; 1,000 basis items of a few fields each), and at this bound a line parses in
/// well under 100 MiB whatever its shape.
pub const MAX_LINE_VALUES: usize = 1 << 20;

/// Below this many values an instance is small enough for jsonschema to list all its errors
/// (each costs a few hundred bytes, and a value fails at most a few rules).
const SMALL_INSTANCE: usize = 50_000;

/// What [`count_values`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// JSON values counted, stopping once past the bound asked for.
    pub values: usize,
    /// For a line whose first value is an array: its elements (a batch's messages).
    pub top_level_items: usize,
}

/// Counts the JSON values in `bytes` without parsing them, stopping once past `stop_after`.
/// Malformed input is counted too (the parser refuses it afterwards); the count never
/// allocates and reads each byte once.
pub fn count_values(bytes: &[u8], stop_after: usize) -> Shape {
    let mut values = 0usize;
    let mut commas_at_top = 0usize;
    let mut depth = 0usize;
    let mut top_is_array = None;
    let mut in_string = false;
    let mut escaped = false;
    let mut in_scalar = false;
    for &b in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                in_scalar = false;
                values += 1;
            }
            b'[' | b'{' => {
                if depth == 0 && top_is_array.is_none() {
                    top_is_array = Some(b == b'[');
                }
                depth = depth.saturating_add(1);
                in_scalar = false;
                values += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                in_scalar = false;
            }
            b',' => {
                if depth == 1 {
                    commas_at_top += 1;
                }
                in_scalar = false;
            }
            b':' | b' ' | b'\t' | b'\r' | b'\n' => in_scalar = false,
            // Numbers and literals: one value per run of other bytes.
            _ => {
                if !in_scalar {
                    values += 1;
                    in_scalar = true;
                }
            }
        }
        if values > stop_after {
            break;
        }
    }
    let top_level_items = if top_is_array == Some(true) && values > 1 {
        commas_at_top + 1
    } else {
        0
    };
    Shape {
        values,
        top_level_items,
    }
}

/// One schema error: where (a JSON pointer, `""` for the instance itself) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    pub path: String,
    pub message: String,
    /// The `pattern` a string did not match, when that is the error.
    pub pattern: Option<String>,
    /// The member a `required` rule missed, when that is the error.
    pub missing: Option<String>,
}

impl SchemaError {
    fn of(e: &ValidationError<'_>, schema: &Value, instance: &Value) -> SchemaError {
        SchemaError {
            path: e.instance_path().to_string(),
            message: describe(e, schema, instance),
            pattern: match e.kind() {
                ValidationErrorKind::Pattern { pattern } => Some(pattern.clone()),
                _ => None,
            },
            missing: match e.kind() {
                ValidationErrorKind::Required { property } => property.as_str().map(String::from),
                _ => None,
            },
        }
    }
}

/// The errors of one instance: at most the number asked for, and what was left out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaErrors {
    pub errors: Vec<SchemaError>,
    pub left_out: LeftOut,
}

/// What a bounded error list did not list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LeftOut {
    /// Nothing: every error is listed.
    #[default]
    Nothing,
    /// This many more errors.
    Count(usize),
    /// The instance was too large to look for every error: there may be more.
    Unknown,
}

impl SchemaErrors {
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// `"; and 12 more errors"`, `"; and maybe more (…)"` or nothing, to follow the list.
    pub fn left_out_text(&self) -> String {
        match self.left_out {
            LeftOut::Nothing => String::new(),
            LeftOut::Count(1) => "; and 1 more error".to_string(),
            LeftOut::Count(n) => format!("; and {n} more errors"),
            LeftOut::Unknown => {
                "; and maybe more (checking stopped at the first error of a large value)"
                    .to_string()
            }
        }
    }
}

/// Validates `instance` against `validator` (compiled from `schema`) and returns at most
/// `max` errors, at a cost bounded by the instance's size whatever it holds:
///
/// 1. a valid instance is recognised without building any error;
/// 2. arrays longer than their schema's `maxItems` are reported first, found by walking
///    `properties` and `items` (the amplifier: each of a million items can fail), and the
///    rest is validated with those arrays cut to their limit;
/// 3. a small instance gets jsonschema's full list, cut to `max`; a large one only its first
///    error, with [`LeftOut::Unknown`].
pub fn schema_errors(
    validator: &Validator,
    schema: &Value,
    instance: &Value,
    max: usize,
) -> SchemaErrors {
    if validator.is_valid(instance) {
        return SchemaErrors::default();
    }
    let mut over = Vec::new();
    let mut over_count = 0usize;
    over_max_items(
        schema,
        instance,
        &mut String::new(),
        max,
        &mut over,
        &mut over_count,
    );
    let pruned = if over_count > 0 {
        Some(prune(schema, instance))
    } else {
        None
    };
    let rest = pruned.as_ref().unwrap_or(instance);
    let room = max.saturating_sub(over.len());
    let mut found = SchemaErrors {
        errors: over,
        left_out: LeftOut::Nothing,
    };
    let hidden_over = over_count.saturating_sub(found.errors.len());
    if validator.is_valid(rest) {
        if hidden_over > 0 {
            found.left_out = LeftOut::Count(hidden_over);
        }
        return found;
    }
    if count_nodes(rest, SMALL_INSTANCE) <= SMALL_INSTANCE {
        let mut all = validator.iter_errors(rest);
        for e in all.by_ref().take(room) {
            found.errors.push(SchemaError::of(&e, schema, rest));
        }
        let more = all.count() + hidden_over;
        if more > 0 {
            found.left_out = LeftOut::Count(more);
        }
    } else {
        if room > 0
            && let Err(e) = validator.validate(rest)
        {
            found.errors.push(SchemaError::of(&e, schema, rest));
        }
        found.left_out = LeftOut::Unknown;
    }
    found
}

/// The `maxItems` violations under `instance`, following `properties` and `items`. Counts
/// all of them in `count`, keeps the first `max` in `out`.
fn over_max_items(
    schema: &Value,
    instance: &Value,
    path: &mut String,
    max: usize,
    out: &mut Vec<SchemaError>,
    count: &mut usize,
) {
    match instance {
        Value::Array(items) => {
            let limit = schema.get("maxItems").and_then(Value::as_u64);
            let limit = limit.and_then(|l| usize::try_from(l).ok());
            if let Some(limit) = limit.filter(|l| items.len() > *l) {
                *count += 1;
                if out.len() < max {
                    out.push(SchemaError {
                        path: path.clone(),
                        message: max_items_message(items, limit),
                        pattern: None,
                        missing: None,
                    });
                }
            }
            if let Some(item_schema) = schema.get("items") {
                let shown = limit.unwrap_or(items.len());
                for (i, item) in items.iter().take(shown).enumerate() {
                    let len = path.len();
                    path.push('/');
                    path.push_str(&i.to_string());
                    over_max_items(item_schema, item, path, max, out, count);
                    path.truncate(len);
                }
            }
        }
        Value::Object(members) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (key, value) in members {
                if let Some(sub) = props.get(key) {
                    let len = path.len();
                    path.push('/');
                    path.push_str(&key.replace('~', "~0").replace('/', "~1"));
                    over_max_items(sub, value, path, max, out, count);
                    path.truncate(len);
                }
            }
        }
        _ => {}
    }
}

/// What error `e` says, in words a caller can act on. jsonschema names three values of an
/// `enum` and counts the others, and says of an `anyOf` or `oneOf` only that the instance
/// fails it; here an `enum` names every value it allows, and alternatives that each require
/// one member (`remember`'s `name` or `note`, `forget`'s one of three) are said as the rule:
/// which members to give, and which were given together. Anything else keeps jsonschema's
/// own message.
fn describe(e: &ValidationError<'_>, schema: &Value, instance: &Value) -> String {
    let or_list = |names: &[String]| match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    let exactly_one = match e.kind() {
        ValidationErrorKind::Enum { options } => {
            if let Some(options) = options.as_array() {
                let options: Vec<String> = options.iter().map(Value::to_string).collect();
                return format!("{} is not one of {}", e.instance(), or_list(&options));
            }
            return e.to_string();
        }
        ValidationErrorKind::AnyOf { .. } => false,
        ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::OneOfMultipleValid { .. } => true,
        _ => return e.to_string(),
    };
    let Some(names) = schema
        .pointer(e.schema_path().as_str())
        .and_then(required_alternatives)
    else {
        return e.to_string();
    };
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    if !exactly_one {
        return match quoted.as_slice() {
            [a, b] => format!("give {a}, {b} or both"),
            _ => format!("give at least one of {}", or_list(&quoted)),
        };
    }
    let at = instance.pointer(e.instance_path().as_str());
    let given: Vec<&str> = quoted
        .iter()
        .zip(&names)
        .filter(|(_, n)| at.and_then(|v| v.get(**n)).is_some())
        .map(|(q, _)| q.as_str())
        .collect();
    match given.as_slice() {
        [] => format!("give exactly one of {} (none was given)", or_list(&quoted)),
        [first, rest @ ..] if !rest.is_empty() => format!(
            "give exactly one of {}, not {first} and {} together",
            or_list(&quoted),
            rest.join(" and ")
        ),
        _ => e.to_string(),
    }
}

/// The members of alternatives that each only require one member (`[{"required": ["a"]},
/// {"required": ["b"]}]`), if that is what `alternatives` is.
fn required_alternatives(alternatives: &Value) -> Option<Vec<&str>> {
    alternatives
        .as_array()?
        .iter()
        .map(|alt| {
            let alt = alt.as_object().filter(|o| o.len() == 1)?;
            match alt.get("required")?.as_array()?.as_slice() {
                [name] => name.as_str(),
                _ => None,
            }
        })
        .collect()
}

/// A copy of `instance` with every array cut to its schema's `maxItems`.
fn prune(schema: &Value, instance: &Value) -> Value {
    match instance {
        Value::Array(items) => {
            let limit = schema
                .get("maxItems")
                .and_then(Value::as_u64)
                .and_then(|l| usize::try_from(l).ok())
                .unwrap_or(items.len());
            let kept = items.iter().take(limit);
            match schema.get("items") {
                Some(item_schema) => Value::Array(kept.map(|i| prune(item_schema, i)).collect()),
                None => Value::Array(kept.cloned().collect()),
            }
        }
        Value::Object(members) => {
            let props = schema.get("properties").and_then(Value::as_object);
            Value::Object(
                members
                    .iter()
                    .map(|(k, v)| {
                        let v = match props.and_then(|p| p.get(k)) {
                            Some(sub) => prune(sub, v),
                            None => v.clone(),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// How many items past the cut [`max_items_message`] renders at each end of an array.
const SHOWN_AT_EACH_END: usize = 160;

/// jsonschema's own wording (`[…] has more than N items`), but with only the first and last
/// few items rendered: every message is cut to a few hundred characters from its two ends
/// anyway, and rendering a million items to keep three hundred characters is the cost this
/// module exists to avoid. Each item renders to at least one character, so both ends of the
/// message are exactly those of the full rendering.
fn max_items_message(items: &[Value], limit: usize) -> String {
    let plural = if limit == 1 { "" } else { "s" };
    let rendered = if items.len() <= 2 * SHOWN_AT_EACH_END {
        Value::Array(items.to_vec()).to_string()
    } else {
        let join = |part: &[Value]| {
            part.iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(",")
        };
        let head = items.get(..SHOWN_AT_EACH_END).unwrap_or_default();
        let tail = items
            .get(items.len() - SHOWN_AT_EACH_END..)
            .unwrap_or_default();
        format!("[{},…,{}]", join(head), join(tail))
    };
    format!("{rendered} has more than {limit} item{plural}")
}

/// The values in `v`, counting up to `stop_after + 1`.
fn count_nodes(v: &Value, stop_after: usize) -> usize {
    let mut n = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        if n > stop_after {
            break;
        }
        match v {
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn count_values_counts_every_kind_of_value_once() {
        let line = br#"{"a":[1,-2.5e3,true,null,"x\"]"],"b":{}}"#;
        // the object, key a, the array, five scalars, key b, the inner object
        assert_eq!(count_values(line, 100).values, 10);
        assert_eq!(count_values(b"[1,2,[3,4]]", 100).top_level_items, 3);
        assert_eq!(count_values(b"[]", 100).top_level_items, 0);
        assert_eq!(count_values(b"{\"a\":[1,2]}", 100).top_level_items, 0);
    }

    #[test]
    fn count_values_stops_once_past_the_bound() {
        let line = "[0,".repeat(1000);
        assert_eq!(count_values(line.as_bytes(), 10).values, 11);
    }

    #[test]
    fn max_items_message_ends_match_the_full_rendering() {
        let items: Vec<Value> = (0..5000).map(|i| json!(format!("f{i}"))).collect();
        let full = format!("{} has more than 10 items", Value::Array(items.clone()));
        let short = max_items_message(&items, 10);
        let head = |s: &str| s.chars().take(300).collect::<String>();
        let tail = |s: &str| s.chars().rev().take(300).collect::<String>();
        assert_eq!(head(&short), head(&full));
        assert_eq!(tail(&short), tail(&full));
    }

    #[test]
    fn errors_name_every_enum_value_and_each_required_alternative() {
        let schema = json!({"type": "object",
            "properties": {"state": {"enum": ["a", "b", "c", "d", "e"]}},
            "anyOf": [{"required": ["name"]}, {"required": ["note"]}],
            "oneOf": [{"required": ["x"]}, {"required": ["y"]}, {"required": ["z"]}]});
        let v = jsonschema::validator_for(&schema).unwrap();
        let messages = |instance: Value| -> Vec<String> {
            schema_errors(&v, &schema, &instance, 10)
                .errors
                .into_iter()
                .map(|e| e.message)
                .collect()
        };
        let got = messages(json!({"state": "f", "x": 1}));
        assert_eq!(
            got,
            vec![
                r#""f" is not one of "a", "b", "c", "d" or "e""#,
                "give `name`, `note` or both"
            ]
        );
        let got = messages(json!({"name": "n"}));
        assert_eq!(
            got,
            vec!["give exactly one of `x`, `y` or `z` (none was given)"]
        );
        let got = messages(json!({"name": "n", "x": 1, "y": 2}));
        assert_eq!(
            got,
            vec!["give exactly one of `x`, `y` or `z`, not `x` and `y` together"]
        );
        // Alternatives that are not plain `required` keep jsonschema's message.
        let other = json!({"anyOf": [{"type": "string"}, {"required": ["a"]}]});
        let ov = jsonschema::validator_for(&other).unwrap();
        let e = schema_errors(&ov, &other, &json!({}), 10);
        assert!(e.errors[0].message.contains("anyOf"), "{e:?}");
    }

    #[test]
    fn schema_errors_many_failing_items_stay_bounded() {
        let schema = json!({"type": "object", "properties": {
            "ids": {"type": "array", "maxItems": 5, "items": {"type": "string"}},
            "big": {"type": "array", "items": {"type": "string"}}}});
        let v = jsonschema::validator_for(&schema).unwrap();
        let over = json!({"ids": vec![0; 100_000]});
        let e = schema_errors(&v, &schema, &over, 3);
        assert_eq!(e.errors.len(), 3);
        assert_eq!(e.errors[0].path, "/ids");
        assert!(e.errors[0].message.ends_with("has more than 5 items"));
        assert_eq!(e.errors[1].path, "/ids/0");
        assert_eq!(e.left_out, LeftOut::Count(3));
        let big = json!({"big": vec![0; 100_000]});
        let e = schema_errors(&v, &schema, &big, 3);
        assert_eq!(e.errors.len(), 1);
        assert_eq!(e.left_out, LeftOut::Unknown);
        assert!(schema_errors(&v, &schema, &json!({"ids": ["a"]}), 3).is_empty());
    }
}
