//! The params of `completion/complete`: `ref` (a prompt by name or a resource template by
//! its URI template), `argument` (`name` and the `value` typed so far) and the optional
//! `context.arguments` (the arguments already chosen, all strings).
//!
//! Every revision that has the method names the same `ref` and `argument`; `context` came in
//! 2025-06-18 and is read in every revision (an older client simply never sends it).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{CallError, SharedCall, invalid, optional, required};

/// What a completion is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// `{"type": "ref/prompt", "name": ...}`.
    Prompt(String),
    /// `{"type": "ref/resource", "uri": ...}`: a URI template as `resources/templates/list`
    /// gives it.
    Template(String),
}

pub(super) fn parse(params: &mut Map<String, Value>) -> Result<SharedCall, CallError> {
    let reference = match params.remove("ref") {
        Some(Value::Object(r)) => reference(&r)?,
        _ => {
            return Err(invalid(
                "completion/complete needs \"ref\": {\"type\": \"ref/prompt\", \"name\": ...} or {\"type\": \"ref/resource\", \"uri\": ...}",
            ));
        }
    };
    let needs_argument = "completion/complete needs \"argument\": {\"name\": ..., \"value\": ...}";
    let mut argument: Map<String, Value> =
        required(params, "argument", needs_argument, needs_argument)?;
    let name_wrong = "\"argument.name\" must be a string";
    let name = required(&mut argument, "name", name_wrong, name_wrong)?;
    let value_wrong = "\"argument.value\" must be a string";
    let value = required(&mut argument, "value", value_wrong, value_wrong)?;
    let context =
        match optional::<Map<String, Value>>(params, "context", "\"context\" must be an object")? {
            Some(mut c) => optional(
                &mut c,
                "arguments",
                "\"context.arguments\" must be an object of strings",
            )?
            .unwrap_or_default(),
            None => BTreeMap::new(),
        };
    Ok(SharedCall::Complete {
        reference,
        argument: name,
        value,
        context,
    })
}

fn reference(r: &Map<String, Value>) -> Result<Reference, CallError> {
    let text = |key: &str| match r.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    match r.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => text("name")
            .map(Reference::Prompt)
            .ok_or_else(|| invalid("a \"ref/prompt\" reference needs a string \"name\"")),
        Some("ref/resource") => text("uri")
            .map(Reference::Template)
            .ok_or_else(|| invalid("a \"ref/resource\" reference needs a string \"uri\"")),
        _ => Err(invalid(
            "\"ref.type\" must be \"ref/prompt\" or \"ref/resource\"",
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{Call, Method};
    use super::*;

    fn parse_json(v: Value) -> Result<Call, CallError> {
        match v {
            Value::Object(m) => Call::parse(Method::Complete, m),
            _ => Err(invalid("not an object")),
        }
    }

    #[test]
    fn complete_params_are_typed() {
        let call = parse_json(json!({
            "ref": {"type": "ref/prompt", "name": "start_review"},
            "argument": {"name": "revision", "value": "sha"},
            "context": {"arguments": {"uri": "/work/a.step"}},
        }));
        let context = BTreeMap::from([("uri".to_string(), "/work/a.step".to_string())]);
        assert_eq!(
            call,
            Ok(Call::Shared(SharedCall::Complete {
                reference: Reference::Prompt("start_review".into()),
                argument: "revision".into(),
                value: "sha".into(),
                context,
            }))
        );
        let call = parse_json(json!({
            "ref": {"type": "ref/resource", "uri": "review://records/{id}"},
            "argument": {"name": "id", "value": ""},
            "context": null,
        }));
        assert!(matches!(
            call,
            Ok(Call::Shared(SharedCall::Complete { reference: Reference::Template(u), context, .. }))
                if u == "review://records/{id}" && context.is_empty()
        ));
    }

    #[test]
    fn malformed_complete_params_are_refused() {
        let arg = json!({"name": "revision", "value": ""});
        let prompt = json!({"type": "ref/prompt", "name": "start_review"});
        for bad in [
            json!({"argument": arg}),
            json!({"ref": "start_review", "argument": arg}),
            json!({"ref": {"type": "ref/tool", "name": "x"}, "argument": arg}),
            json!({"ref": {"type": "ref/prompt"}, "argument": arg}),
            json!({"ref": {"type": "ref/resource", "uri": 3}, "argument": arg}),
            json!({"ref": prompt}),
            json!({"ref": prompt, "argument": {"value": ""}}),
            json!({"ref": prompt, "argument": {"name": "revision"}}),
            json!({"ref": prompt, "argument": {"name": "revision", "value": 7}}),
            json!({"ref": prompt, "argument": arg, "context": []}),
            json!({"ref": prompt, "argument": arg, "context": {"arguments": [1]}}),
            json!({"ref": prompt, "argument": arg, "context": {"arguments": {"uri": 1}}}),
        ] {
            assert!(
                matches!(parse_json(bad.clone()), Err(CallError::InvalidParams(_))),
                "{bad}"
            );
        }
    }
}
