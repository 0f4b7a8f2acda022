//! The static lists (tools, prompts, resource templates) and `prompts/get`, paged and shaped
//! for the request's revision and client.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::calls::registry;
use super::{STATIC_PAGE_SIZE, ServiceError};
use crate::client_caps::ClientCaps;
use crate::cursor;
use crate::prompts;
use crate::resources::{self, ResourceError};
use crate::store::damaged_message;
use crate::tools::{ToolSpec, Ui};
use crate::version::Features;

/// The tools `client` may see. The card's links (`_meta.ui`) go to every client: a host that
/// renders MCP Apps without declaring the extension (VS Code) renders the card, and one that
/// renders none ignores them. The app-only `record_verdict` is listed only to a client that
/// declared the extension, which the specification binds to keep it from the model
/// (`visibility: ["app"]`); a host that declares nothing may show every listed tool to its
/// model. Either way it records only a click that carries the card's proof
/// (`tools/card_proof.rs`).
pub(super) fn list_tools(
    cursor: Option<&str>,
    f: Features,
    client: ClientCaps,
) -> Result<Map<String, Value>, ServiceError> {
    let items: Vec<Value> = registry()
        .iter()
        .filter(|t| client.apps || t.spec.ui != Ui::AppOnly)
        .map(|t| tool_entry(&t.spec, f))
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

/// Resource failure `e` of `uri` on the database at `path` (the store's; `None` in memory).
pub(super) fn map_resource_error(e: ResourceError, uri: &str, path: Option<&Path>) -> ServiceError {
    match e {
        ResourceError::NotFound => ServiceError::ResourceNotFound {
            uri: uri.to_string(),
            hint: None,
        },
        ResourceError::InvalidCursor => ServiceError::InvalidCursor,
        ResourceError::Storage(m) => ServiceError::Storage(m),
        ResourceError::Damaged(finding) => ServiceError::Storage(damaged_message(path, &finding)),
        ResourceError::Internal(m) => ServiceError::Internal(m),
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

/// Pages a static list. Its cursors are the one format of every list ([`crate::cursor`]),
/// sealed with [`cursor::STATIC_KEY`] for `list`: self-contained (a modern request may reach
/// a fresh process), and a cursor minted for another list is refused.
pub(super) fn static_page(
    list: &str,
    items: Vec<Value>,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), ServiceError> {
    let start = match cursor {
        None => 0,
        Some(c) => cursor::decode(cursor::STATIC_KEY, list, c)
            .ok()
            .and_then(|c| usize::try_from(c.seq).ok())
            .filter(|&n| n > 0 && n < items.len() && n % STATIC_PAGE_SIZE == 0)
            .ok_or(ServiceError::InvalidCursor)?,
    };
    let end = (start + STATIC_PAGE_SIZE).min(items.len());
    let next = (end < items.len()).then(|| {
        let at = cursor::Cursor {
            snapshot: 0,
            tier: 0,
            seq: i64::try_from(end).unwrap_or(i64::MAX),
        };
        cursor::encode(cursor::STATIC_KEY, list, at)
    });
    let page = items.into_iter().skip(start).take(end - start).collect();
    Ok((page, next))
}

/// Removes `title` keys from versions that predate them.
pub(super) fn shape_titles(mut v: Value, f: Features) -> Value {
    if !f.titles
        && let Value::Object(m) = &mut v
    {
        m.remove("title");
    }
    v
}

pub(super) fn tool_entry(spec: &ToolSpec, f: Features) -> Value {
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
        m.insert(
            "annotations".into(),
            shape_titles(spec.annotations.clone(), f),
        );
    }
    if let Some(meta) = spec.ui.meta() {
        m.insert("_meta".into(), meta);
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Regression (review4): a resource read that failed for a bug (a tool's internal error
    /// in the decision history it serves) answered "Storage error: Internal error: …", a
    /// storage failure the user was told to act on, its message sent to the client; a bug is
    /// "Internal error", logged. The database's own failures stay storage errors.
    #[test]
    fn a_bug_in_a_resource_read_stays_an_internal_error() {
        use crate::tools::ToolError;
        for bug in [
            ToolError::Internal("x".into()),
            ToolError::Invalid("y".into()),
        ] {
            let e = map_resource_error(ResourceError::from(bug), "review://x", None);
            assert!(matches!(e, ServiceError::Internal(_)), "{e}");
        }
        let e = map_resource_error(
            ResourceError::from(ToolError::Storage("the disk is full".into())),
            "review://x",
            None,
        );
        assert!(
            matches!(e, ServiceError::Storage(ref m) if m == "the disk is full"),
            "{e}"
        );
    }

    #[test]
    fn static_page_rejects_foreign_and_tampered_cursors() {
        let items: Vec<Value> = (0..120).map(|i| json!(i)).collect();
        let (p, next) = static_page("tools", items.clone(), None).unwrap();
        assert_eq!(p.len(), 50);
        let next = next.unwrap();
        assert!(next.starts_with("c2."), "the one cursor format: {next}");
        let (p, again) = static_page("tools", items.clone(), Some(&next)).unwrap();
        assert_eq!(p.first(), Some(&json!(50)));
        let (p, last) = static_page("tools", items.clone(), again.as_deref()).unwrap();
        assert_eq!(p.len(), 20);
        assert_eq!(last, None);
        let at = |list: &str, seq: i64| {
            let c = cursor::Cursor {
                snapshot: 0,
                tier: 0,
                seq,
            };
            cursor::encode(cursor::STATIC_KEY, list, c)
        };
        for bad in [
            at("prompts", 50),
            at("tools", 51),
            at("tools", 0),
            at("tools", 1000),
            next.replacen("c2.0.0.32.", "c2.0.0.64.", 1),
            "tools.50".into(),
            "garbage".into(),
            String::new(),
        ] {
            assert_eq!(
                static_page("tools", items.clone(), Some(&bad)),
                Err(ServiceError::InvalidCursor),
                "{bad}"
            );
        }
    }
}
