//! The review tools: their wire schemas and how each one runs against the store.
//!
//! The service layer validates arguments against `input_schema` before calling [`run`], so a
//! tool's code may rely on the schema's shape; domain rules the schema cannot express are
//! checked here and answered as [`ToolError::Invalid`].

use serde_json::Value;

use crate::store::Store;

/// A tool as `tools/list` describes it.
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
    pub output_schema: Value,
    /// `ToolAnnotations` (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`).
    pub annotations: Value,
}

/// A successful call: the structured result and a one-line summary a person can read.
#[derive(Debug)]
pub struct ToolOutput {
    pub structured: Value,
    pub summary: String,
}

/// A failed call, answered as an `isError` result whose text says what to fix.
#[derive(Debug, PartialEq)]
pub enum ToolError {
    /// The arguments break a domain rule.
    Invalid(String),
    /// The database refused (full disk, read-only file, ...). Nothing was written.
    Storage(String),
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::Invalid(m) => f.write_str(m),
            ToolError::Storage(m) => write!(f, "Storage error, nothing was written: {m}"),
        }
    }
}

/// Every tool, in the order `tools/list` shows them.
pub fn catalog() -> Vec<ToolSpec> {
    Vec::new()
}

/// Runs the named tool with arguments that already passed its input schema.
pub fn run(_store: &mut Store, name: &str, _args: &Value) -> Result<ToolOutput, ToolError> {
    Err(ToolError::Invalid(format!("Unknown tool: {name}")))
}
