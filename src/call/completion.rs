//! The params of `completion/complete`: `ref` (a prompt by name or a resource template by
//! its URI template), `argument` (`name` and the `value` typed so far) and the optional
//! `context.arguments` (the arguments already chosen, all strings).
//!
//! Every revision that has the method names the same `ref` and `argument`; `context` came in
//! 2025-06-18 and is read in every revision (an older client simply never sends it).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{CallError, Field, Object, SharedCall, invalid, members};

/// What a completion is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference {
    /// `{"type": "ref/prompt", "name": ...}`.
    Prompt(String),
    /// `{"type": "ref/resource", "uri": ...}`: a URI template as `resources/templates/list`
    /// gives it.
    Template(String),
}

/// `params` of `completion/complete`.
#[derive(Default, Deserialize)]
#[serde(default)]
pub(super) struct Params {
    r#ref: Field<Object>,
    argument: Field<Object>,
    context: Field<Object>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct RefParams {
    r#type: Field<String>,
    name: Field<String>,
    uri: Field<String>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct ArgumentParams {
    name: Field<String>,
    value: Field<String>,
}

#[derive(Default, Deserialize)]
#[serde(default)]
struct ContextParams {
    arguments: Field<BTreeMap<String, String>>,
}

pub(super) fn parse(p: Params) -> Result<SharedCall, CallError> {
    let needs_ref = "completion/complete needs \"ref\": {\"type\": \"ref/prompt\", \"name\": ...} or {\"type\": \"ref/resource\", \"uri\": ...}";
    let reference = reference(members(p.r#ref.required(needs_ref, needs_ref)?))?;
    let needs_argument = "completion/complete needs \"argument\": {\"name\": ..., \"value\": ...}";
    let argument: ArgumentParams = members(p.argument.required(needs_argument, needs_argument)?);
    let name_wrong = "\"argument.name\" must be a string";
    let value_wrong = "\"argument.value\" must be a string";
    let context = match p.context.optional("\"context\" must be an object")? {
        Some(c) => members::<ContextParams>(c)
            .arguments
            .optional("\"context.arguments\" must be an object of strings")?
            .unwrap_or_default(),
        None => BTreeMap::new(),
    };
    Ok(SharedCall::Complete {
        reference,
        argument: argument.name.required(name_wrong, name_wrong)?,
        value: argument.value.required(value_wrong, value_wrong)?,
        context,
    })
}

fn reference(r: RefParams) -> Result<Reference, CallError> {
    let kind = r.r#type.optional("").ok().flatten();
    match kind.as_deref() {
        Some("ref/prompt") => {
            let wrong = "a \"ref/prompt\" reference needs a string \"name\"";
            r.name.required(wrong, wrong).map(Reference::Prompt)
        }
        Some("ref/resource") => {
            let wrong = "a \"ref/resource\" reference needs a string \"uri\"";
            r.uri.required(wrong, wrong).map(Reference::Template)
        }
        _ => Err(invalid(
            "\"ref.type\" must be \"ref/prompt\" or \"ref/resource\"",
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

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
            // A struct is read from an object only, never from an array in field order.
            json!({"ref": ["ref/prompt", "start_review"], "argument": arg}),
            json!({"ref": prompt, "argument": ["revision", ""]}),
            json!({"ref": prompt, "argument": arg, "context": [{"uri": "a"}]}),
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
