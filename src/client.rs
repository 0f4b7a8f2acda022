//! What a client declared it can do, read once per request from its capabilities object: the
//! `initialize` params of a legacy session, or each 2026-07-28 request's `_meta`
//! (`io.modelcontextprotocol/clientCapabilities`), never cached across modern requests.
//!
//! A leaf: whether the negotiated revision has the feature at all is [`crate::version`]'s
//! business; this module only reads the declaration.

use serde_json::Value;

/// The capabilities this server acts on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ClientCaps {
    /// Form-mode elicitation: `elicitation: {}` (form only, for backwards compatibility) or
    /// `elicitation: {"form": {...}}`. A client declaring only `url` cannot show a form.
    pub elicitation_form: bool,
}

impl ClientCaps {
    /// Reads a `ClientCapabilities` object; anything that is not one declares nothing.
    pub fn read(capabilities: Option<&Value>) -> ClientCaps {
        let elicitation = capabilities
            .and_then(|c| c.get("elicitation"))
            .and_then(Value::as_object);
        ClientCaps {
            elicitation_form: elicitation.is_some_and(|e| {
                e.get("form").is_some_and(Value::is_object)
                    || !(e.contains_key("form") || e.contains_key("url"))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn elicitation_form_as_each_revision_declares_it() {
        let form = |v: Value| ClientCaps::read(Some(&v)).elicitation_form;
        assert!(form(json!({"elicitation": {}})), "empty: form only");
        assert!(form(json!({"elicitation": {"form": {}}})));
        assert!(form(json!({"elicitation": {"form": {}, "url": {}}})));
        assert!(!form(json!({"elicitation": {"url": {}}})), "url only");
        assert!(!form(json!({"elicitation": true})));
        assert!(!form(json!({"elicitation": {"form": true}})));
        assert!(!form(json!({"sampling": {}})));
        assert!(!form(json!([])));
        assert!(!ClientCaps::read(None).elicitation_form);
    }
}
