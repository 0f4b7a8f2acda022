//! The engineering-review prompts: their descriptions, arguments and text.

use serde_json::{Map, Value};

/// Why `prompts/get` failed; every case is -32602 on the wire.
#[derive(Debug, PartialEq)]
pub enum PromptError {
    Unknown(String),
    MissingArgument(String),
    InvalidArgument(String),
}

/// Every prompt as `prompts/list` shows it (`name`, `title`, `description`, `arguments`).
pub fn catalog() -> Vec<Value> {
    Vec::new()
}

/// Renders a prompt: the `GetPromptResult` object (`description?`, `messages`).
pub fn get(name: &str, _args: &Map<String, Value>) -> Result<Value, PromptError> {
    Err(PromptError::Unknown(name.to_string()))
}
