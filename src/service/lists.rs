//! The static lists (tools, prompts, resource templates) and `prompts/get`, paged and shaped
//! for the request's revision and client.

use serde_json::{Map, Value, json};

use super::calls::registry;
use super::{STATIC_PAGE_SIZE, ServiceError};
use crate::client::ClientCaps;
use crate::prompts;
use crate::resources::{self, ResourceError};
use crate::tools::{ToolSpec, Ui};
use crate::version::Features;

/// The tools `client` may see: the app-only ones and the `_meta.ui` links only when it
/// declared the UI extension (a host that cannot render the card must not be sent to it).
pub(super) fn list_tools(
    cursor: Option<&str>,
    f: Features,
    client: ClientCaps,
) -> Result<Map<String, Value>, ServiceError> {
    let items: Vec<Value> = registry()
        .iter()
        .filter(|t| client.apps || t.spec.ui != Ui::AppOnly)
        .map(|t| tool_entry(&t.spec, f, client))
        .collect();
    let (page, next) = static_page("tools", items, cursor)?;
    Ok(list_result("tools", page, next))
}

pub(super) fn list_prompts(
    cursor: Option<&str>,
    f: Features,
) -> Result<Map<String, Value>, ServiceError> {
    let items: Vec<Value> = prompts::catalog()
        .into_iter()
        .map(|p| shape_titles(p, f))
        .collect();
    let (page, next) = static_page("prompts", items, cursor)?;
    Ok(list_result("prompts", page, next))
}

pub(super) fn get_prompt(
    name: &str,
    args: &Map<String, Value>,
) -> Result<Map<String, Value>, ServiceError> {
    let result =
        prompts::get(name, args).map_err(|e| ServiceError::InvalidParams(e.to_string()))?;
    match result {
        Value::Object(m) => Ok(m),
        _ => Err(ServiceError::Internal("a prompt is not an object".into())),
    }
}

pub(super) fn list_templates(
    cursor: Option<&str>,
    f: Features,
) -> Result<Map<String, Value>, ServiceError> {
    let items: Vec<Value> = resources::templates()
        .into_iter()
        .map(|t| shape_titles(t, f))
        .collect();
    let (page, next) = static_page("templates", items, cursor)?;
    Ok(list_result("resourceTemplates", page, next))
}

pub(super) fn map_resource_error(e: ResourceError, uri: &str) -> ServiceError {
    match e {
        ResourceError::NotFound => ServiceError::ResourceNotFound {
            uri: uri.to_string(),
        },
        ResourceError::InvalidCursor => ServiceError::InvalidCursor,
        ResourceError::Storage(m) => ServiceError::Internal(m),
    }
}

pub(super) fn list_result(
    key: &str,
    items: Vec<Value>,
    next: Option<String>,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.to_string(), Value::Array(items));
    if let Some(c) = next {
        m.insert("nextCursor".into(), Value::String(c));
    }
    m
}

/// Pages a static list. Cursors are `<list>.<offset>`: self-contained (a modern request may
/// reach a fresh process), and a cursor minted for another list is refused.
pub(super) fn static_page(
    list: &str,
    items: Vec<Value>,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), ServiceError> {
    let start = match cursor {
        None => 0,
        Some(c) => {
            let offset = c
                .strip_prefix(list)
                .and_then(|rest| rest.strip_prefix('.'))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n > 0 && n < items.len() && n % STATIC_PAGE_SIZE == 0);
            offset.ok_or(ServiceError::InvalidCursor)?
        }
    };
    let end = (start + STATIC_PAGE_SIZE).min(items.len());
    let next = (end < items.len()).then(|| format!("{list}.{end}"));
    let page = items.into_iter().skip(start).take(end - start).collect();
    Ok((page, next))
}

/// Removes `title` keys from versions that predate them.
pub(super) fn shape_titles(mut v: Value, f: Features) -> Value {
    if !f.titles {
        if let Value::Object(m) = &mut v {
            m.remove("title");
        }
    }
    v
}

pub(super) fn tool_entry(spec: &ToolSpec, f: Features, client: ClientCaps) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(spec.name));
    if f.titles {
        m.insert("title".into(), json!(spec.title));
    }
    m.insert("description".into(), json!(spec.description));
    m.insert("inputSchema".into(), spec.input_schema.clone());
    if f.structured_content {
        m.insert("outputSchema".into(), spec.output_schema.clone());
    }
    if f.annotations {
        let mut ann = spec.annotations.clone();
        if !f.titles {
            if let Value::Object(a) = &mut ann {
                a.remove("title");
            }
        }
        m.insert("annotations".into(), ann);
    }
    if let Some(ui) = spec.ui.meta().filter(|_| client.apps) {
        m.insert("_meta".into(), json!({"ui": ui}));
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn static_page_rejects_foreign_and_tampered_cursors() {
        let items: Vec<Value> = (0..120).map(|i| json!(i)).collect();
        let (p, next) = static_page("tools", items.clone(), None).unwrap();
        assert_eq!(p.len(), 50);
        assert_eq!(next.as_deref(), Some("tools.50"));
        let (p, next) = static_page("tools", items.clone(), Some("tools.100")).unwrap();
        assert_eq!(p.len(), 20);
        assert_eq!(next, None);
        for bad in [
            "prompts.50",
            "tools.51",
            "tools.0",
            "tools.1000",
            "garbage",
            "",
        ] {
            assert_eq!(
                static_page("tools", items.clone(), Some(bad)),
                Err(ServiceError::InvalidCursor),
                "{bad}"
            );
        }
    }
}
