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
    /// The MCP Apps extension: `extensions["io.modelcontextprotocol/ui"]` whose `mimeTypes`
    /// include [`APP_MIME_TYPE`]. Such a host renders the review card in a sandboxed frame,
    /// so the card's links and its app-only tool are listed to it, and to no one else.
    pub apps: bool,
}

/// The extension identifier of MCP Apps.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The one content type of MCP Apps views: an HTML5 document.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

impl ClientCaps {
    /// Reads a `ClientCapabilities` object; anything that is not one declares nothing.
    pub fn read(capabilities: Option<&Value>) -> ClientCaps {
        let elicitation = capabilities
            .and_then(|c| c.get("elicitation"))
            .and_then(Value::as_object);
        let apps = capabilities
            .and_then(|c| c.get("extensions"))
            .and_then(|e| e.get(UI_EXTENSION))
            .and_then(|ui| ui.get("mimeTypes"))
            .and_then(Value::as_array)
            .is_some_and(|types| types.iter().any(|t| t.as_str() == Some(APP_MIME_TYPE)));
        ClientCaps {
            apps,
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

    #[test]
    fn apps_only_with_the_ui_extension_and_its_mime_type() {
        let apps = |v: Value| ClientCaps::read(Some(&v)).apps;
        let ui = |types: Value| json!({"extensions": {UI_EXTENSION: {"mimeTypes": types}}});
        assert!(apps(ui(json!([APP_MIME_TYPE]))));
        assert!(apps(ui(json!(["text/plain", APP_MIME_TYPE]))));
        assert!(
            !apps(ui(json!(["text/html"]))),
            "plain HTML is not an app view"
        );
        assert!(!apps(ui(json!([]))));
        assert!(!apps(ui(json!(APP_MIME_TYPE))), "not an array");
        assert!(!apps(json!({"extensions": {UI_EXTENSION: {}}})));
        assert!(!apps(
            json!({"experimental": {UI_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}})
        ));
        assert!(!apps(json!({"elicitation": {}})));
        assert!(!ClientCaps::read(None).apps);
    }
}
