//! review-mcp: a local MCP server that gives an engineering assistant a durable memory of
//! CAD design reviews, bound to the exact revision (sha256) of a part.
//!
//! Data flows one way: a line comes in, becomes a JSON-RPC message, is routed to the adapter
//! of its era, which calls the era-neutral service (tools, prompts, resources), which calls
//! the store; the answer goes back up the same path and out as one line.
//!
//! ```text
//! stdin ─ framing ─ jsonrpc ─ server (routing, session) ─┬─ era::legacy ─┐
//!                                                        └─ era::modern ─┴─ service ─┬─ tools ─┐
//! stdout ─ framing ◄──────────────────────────────────────────────────────  prompts  ├─ store
//!                                                                           resources┘
//! ```
//!
//! Modules in reading order: [`framing`], [`jsonrpc`], [`server`], [`era`], [`service`],
//! [`tools`], [`prompts`], [`resources`], [`review`], [`store`], [`replay`], [`logging`],
//! [`text`], [`time`], [`bounds`].

pub mod bounds;
pub mod call;
pub mod era;
pub mod framing;
pub mod jsonrpc;
pub mod logging;
pub mod prompts;
pub mod replay;
pub mod resources;
pub mod review;
pub mod server;
pub mod service;
pub mod store;
pub mod text;
pub mod time;
pub mod tools;
pub mod version;
pub mod wire;
