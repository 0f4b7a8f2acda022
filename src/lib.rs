//! review-mcp: a local MCP server that gives an engineering assistant a durable memory of
//! CAD design reviews, bound to the exact revision (sha256) of a part.
//!
//! Data flows one way: a line comes in, becomes a JSON-RPC message, is routed to the adapter
//! of its era, which parses it into a typed call of the era-neutral service (tools, prompts,
//! resources), which calls the store; the answer goes back up the same path as a typed
//! payload and is encoded once, by `wire`, into one line. `docs/architecture.md` follows one
//! `tools/call` through the files.
//!
//! ```text
//! stdin ─ framing ─ jsonrpc ─ server (routing, session) ─┬─ era::legacy ─┐  call
//!                                                        └─ era::modern ─┴─ service ─┬─ tools ─┐
//! stdout ─ framing ◄─ wire (the only JSON writer) ◄───────────────────────  prompts  ├─ store
//!                                                                           resources┘
//! ```
//!
//! Modules in reading order: [`framing`], `jsonrpc`, `wire`, [`server`], [`era`],
//! [`version`], `call`, [`service`], [`tools`], `prompts`, [`resources`],
//! [`review`], [`store`], [`sync`], [`terminal`], [`replay`], [`logging`], [`text`], [`time`],
//! `bounds`, `cursor`, `program`. Imports point down this diagram; `version`, `text`, `time`,
//! `cursor` and `program` (how a person's shell runs this binary) are leaves that import
//! nothing from the crate. Beside the server path, used by the
//! command line only: [`sync`] (export, import, sync and merge-file, with all their rules),
//! [`terminal`] (`review-mcp review`, the engineer's verdicts in their terminal) and
//! [`replay`] (transcripts); the server path imports none of them.
//!
//! Public are the modules the binary and `tests/` use; the others (`bounds`, `call`,
//! `client_caps`, `cursor`, `jsonrpc`, `program`, `prompts`, `watch`, `wire`) are the crate's
//! own.

// The library has no `unsafe` at all (Cargo.toml only denies it, so that the binary's
// src/cli/file_size_limit.rs may allow it for its one call of signal(2)).
#![forbid(unsafe_code)]

mod bounds;
mod call;
mod client_caps;
mod cursor;
pub mod era;
pub mod framing;
mod jsonrpc;
pub mod logging;
mod program;
mod prompts;
pub mod replay;
pub mod resources;
pub mod review;
pub mod server;
pub mod service;
pub mod store;
pub mod sync;
pub mod terminal;
pub mod text;
pub mod time;
pub mod tools;
pub mod version;
mod wire;
