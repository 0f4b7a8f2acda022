//! The JSON-RPC envelope: whole message lines, `{"id":..,"jsonrpc":"2.0","result":..}` with
//! the members in the sorted order serde_json gives every object.

use serde::Serialize;

use super::{Member, Payload};

/// Compact JSON of a value ([`super::to_json`]). Compact JSON never contains a raw newline,
/// nor a character a reader takes for one, so one message is one line. Encoding a `Value`
/// cannot fail; an error is logged and written as null.
pub(super) fn value_json(v: &impl Serialize) -> String {
    super::to_json(v).unwrap_or_else(|e| {
        log::error!("could not encode a message: {e}");
        "null".to_string()
    })
}

/// A whole message (a notification, or a message already a value) as one line, without its
/// newline.
pub fn message_line(message: &impl Serialize) -> String {
    value_json(message)
}

/// A JSON-RPC batch answer: the lines of its responses as one array.
pub fn batch_line(lines: Vec<String>) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum::<usize>() + 2);
    out.push('[');
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(line);
    }
    out.push(']');
    out
}

/// The error response line (without its newline) to `id` (a JSON-RPC id, or null): the same
/// bytes as encoding the equivalent value.
pub fn error_line(id: &impl Serialize, error: &impl Serialize) -> String {
    format!(
        "{{\"error\":{},\"id\":{},\"jsonrpc\":\"2.0\"}}",
        value_json(error),
        value_json(id)
    )
}

/// The success response line (without its newline) to `id` (a JSON-RPC id): the same bytes
/// as encoding the equivalent value.
///
/// The line is assembled in the buffer of the result's largest raw member (a tool answer's
/// `content` is made with room for the rest): a fresh 50-100 KB buffer per answer cost more
/// in page faults than the copy itself.
pub fn result_line(id: &impl Serialize, payload: Payload) -> String {
    let id = value_json(id);
    let mut members = payload.into_members();
    members.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let largest = members
        .iter()
        .enumerate()
        .filter_map(|(i, (_, m))| match m {
            Member::Raw(r) => Some((i, r.as_str().len())),
            Member::Value(_) => None,
        })
        .max_by_key(|&(_, len)| len)
        .map(|(i, _)| i);
    let mut before = String::with_capacity(64);
    before.push_str("{\"id\":");
    before.push_str(&id);
    before.push_str(",\"jsonrpc\":\"2.0\",\"result\":{");
    let mut after = String::new();
    let mut kept = String::new();
    for (i, (name, member)) in members.into_iter().enumerate() {
        let out = if largest.is_some_and(|l| i > l) {
            &mut after
        } else {
            &mut before
        };
        if i > 0 {
            out.push(',');
        }
        out.push_str(&value_json(&name));
        out.push(':');
        match member {
            Member::Raw(raw) if largest == Some(i) => kept = raw.into_string(),
            Member::Raw(raw) => out.push_str(raw.as_str()),
            Member::Value(v) => out.push_str(&value_json(&v)),
        }
    }
    after.push_str("}}");
    // Room for the newline the writer appends, too.
    kept.reserve(before.len() + after.len() + 1);
    kept.insert_str(0, &before);
    kept.push_str(&after);
    kept
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn error_and_batch_lines_are_the_bytes_of_the_equivalent_value() {
        let error = json!({"code": -32600, "message": "Invalid \"Request\"", "data": {"a": [1]}});
        for id in [json!(null), json!(7), json!("x\"y"), json!(u64::MAX)] {
            let line = error_line(&id, &error);
            let want = json!({"jsonrpc": "2.0", "id": id, "error": error});
            assert_eq!(line, want.to_string());
            let ok = result_line(&id, Payload::default());
            assert_eq!(
                ok,
                json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string()
            );
            assert_eq!(
                batch_line(vec![line.clone(), ok.clone()]),
                Value::Array(vec![want, serde_json::from_str(&ok).unwrap()]).to_string()
            );
        }
        assert_eq!(batch_line(Vec::new()), "[]");
    }
}
