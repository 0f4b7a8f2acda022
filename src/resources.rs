//! The stored review as resources: templates, the list of revisions, and reads.

use serde_json::Value;

use crate::store::Store;

/// Why a resource operation failed.
#[derive(Debug, PartialEq)]
pub enum ResourceError {
    /// Unknown or malformed URI: -32002 (legacy) or -32602 with `data.uri` (modern).
    NotFound,
    InvalidCursor,
    Storage(String),
}

/// Every resource template (`uriTemplate`, `name`, `title`, `description`, `mimeType`).
pub fn templates() -> Vec<Value> {
    Vec::new()
}

/// One page of `resources/list` and the cursor of the next page.
pub fn list(
    _store: &mut Store,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), ResourceError> {
    if cursor.is_some() {
        return Err(ResourceError::InvalidCursor);
    }
    Ok((Vec::new(), None))
}

/// The `contents` of one resource.
pub fn read(_store: &mut Store, _uri: &str) -> Result<Vec<Value>, ResourceError> {
    Err(ResourceError::NotFound)
}
