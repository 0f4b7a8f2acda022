//! Logging to stderr (stdout is the protocol wire).

/// Sets up `env_logger` on stderr. `MCP_LOG_LEVEL` picks the level (default `info`).
pub fn init() {
    let level = std::env::var("MCP_LOG_LEVEL").unwrap_or_else(|_| "info".to_string());
    let _ = env_logger::Builder::new()
        .parse_filters(&level)
        .target(env_logger::Target::Stderr)
        .try_init();
}
