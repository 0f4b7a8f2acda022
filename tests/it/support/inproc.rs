//! The in-process client of the tools tests: it speaks JSON-RPC lines to `Server` in a
//! chosen era.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use review_mcp::server::Server;
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

pub use super::TempDir;

pub const REV_A: &str = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
pub const REV_B: &str = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/// Protocol eras the tests drive: two legacy versions either side of the schema-error
/// change, and the modern envelope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Era {
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
}

pub const ERAS: [Era; 3] = [Era::V2025_06_18, Era::V2025_11_25, Era::V2026_07_28];

pub struct Client {
    server: Server,
    era: Era,
    next_id: i64,
    /// The client capabilities it declares: in `initialize` (legacy) or in every request.
    caps: Value,
}

/// The capabilities of a host that renders MCP Apps (the review card).
pub fn ui_caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

impl Client {
    pub fn new(store: Store, era: Era) -> Client {
        Client::declaring(store, era, json!({}))
    }

    /// A client that declares `caps`.
    pub fn declaring(store: Store, era: Era, caps: Value) -> Client {
        let mut c = Client {
            server: Server::new(Service::new(store)),
            era,
            next_id: 0,
            caps,
        };
        let version = match era {
            Era::V2025_06_18 => Some("2025-06-18"),
            Era::V2025_11_25 => Some("2025-11-25"),
            Era::V2026_07_28 => None,
        };
        if let Some(v) = version {
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": v, "capabilities": c.caps.clone(), "clientInfo": {"name": "t", "version": "1"}}});
            let out = c.send(&init);
            assert_eq!(out[0]["result"]["protocolVersion"], v);
            c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        c
    }

    pub fn memory(era: Era) -> Client {
        Client::new(Store::open_in_memory().expect("in-memory store"), era)
    }

    fn send(&mut self, msg: &Value) -> Vec<Value> {
        let line = serde_json::to_vec(msg).expect("encode");
        self.server.handle_line(&line)
    }

    /// Sends one request in this client's era; returns the whole response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let caps = self.caps.clone();
        self.request_declaring(method, params, caps)
    }

    /// Sends one request; a 2026-07-28 request declares `caps` in its `_meta` (a legacy
    /// session keeps what it declared in `initialize`).
    pub fn request_declaring(&mut self, method: &str, mut params: Value, caps: Value) -> Value {
        self.next_id += 1;
        if self.era == Era::V2026_07_28 {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": caps
            });
        }
        let msg = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        // What a session is told of its own writes follows the answer; a host reads past it.
        let mut out: Vec<Value> = self
            .send(&msg)
            .into_iter()
            .filter(|m| m.get("id").is_some() || m.get("method").is_none())
            .collect();
        assert_eq!(out.len(), 1, "one answer per request: {out:?}");
        out.remove(0)
    }

    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }

    /// The text of a resource that must be read: its first content's.
    pub fn read_text(&mut self, uri: &str) -> String {
        let r = self.request("resources/read", json!({"uri": uri}));
        r["result"]["contents"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{uri}: {r}"))
            .to_string()
    }

    /// A call that must succeed: its `structuredContent`, checked against the JSON text.
    pub fn ok(&mut self, tool: &str, args: Value) -> Value {
        let resp = self.call(tool, args.clone());
        let result = &resp["result"];
        assert!(
            result.get("isError") != Some(&json!(true)) && resp.get("error").is_none(),
            "{tool} {args} failed: {resp}"
        );
        let text: Value = serde_json::from_str(
            result["content"][1]["text"]
                .as_str()
                .expect("JSON text block"),
        )
        .expect("JSON text parses");
        assert_eq!(result["structuredContent"], text);
        assert!(
            result["content"][0]["text"]
                .as_str()
                .is_some_and(|s| !s.is_empty())
        );
        text
    }

    /// A call the tool refuses: the `isError` text.
    pub fn refused(&mut self, tool: &str, args: Value) -> String {
        let resp = self.call(tool, args.clone());
        assert_eq!(
            resp["result"]["isError"],
            json!(true),
            "{tool} {args} should be refused: {resp}"
        );
        resp["result"]["content"][0]["text"]
            .as_str()
            .expect("error text")
            .to_string()
    }

    /// A call whose arguments break the input schema: -32602 in 2025-06-18, an `isError`
    /// result from 2025-11-25 on. Returns the message.
    pub fn schema_refused(&mut self, tool: &str, args: Value) -> String {
        if self.era == Era::V2025_06_18 {
            let resp = self.call(tool, args.clone());
            assert_eq!(
                resp["error"]["code"],
                json!(-32602),
                "{tool} {args}: {resp}"
            );
            resp["error"]["message"]
                .as_str()
                .expect("message")
                .to_string()
        } else {
            self.refused(tool, args)
        }
    }
}

/// The revision numbered `n`: `sha256:` and `n` in 64 hex digits.
/// The summary (first text block) of an answer, or the refusal text.
pub fn summary_text(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {resp}"))
        .to_string()
}

pub fn rev(n: usize) -> String {
    format!("sha256:{n:064x}")
}

pub fn art(rev: &str) -> Value {
    json!({"revision": rev, "format": "step"})
}

pub fn art_uri(rev: &str, uri: &str) -> Value {
    json!({"revision": rev, "format": "step", "uri": uri})
}

/// The items under `key` of a recall page in the form they had before pages said each
/// artifact once (issue 26): each with its artifact inline and its `stale` (and a record's
/// `id_scheme`) from the page's `artifacts` table, and a record's `kind` and `updated_at`
/// from what implies them (its `name`; its `created_at` when absent).
pub fn inlined(page: &Value, key: &str) -> Vec<Value> {
    let table = page["artifacts"].as_array().cloned().unwrap_or_default();
    page[key]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut item| {
            let Some(i) = item["artifact"].as_u64() else {
                return item;
            };
            let mut a = table[usize::try_from(i).unwrap()].clone();
            item["stale"] = a["stale"].take();
            if let Some(scheme) = a.as_object_mut().and_then(|m| m.remove("id_scheme")) {
                item["id_scheme"] = scheme;
            }
            a.as_object_mut().unwrap().remove("stale");
            item["artifact"] = a;
            if key == "records" {
                let kind = if item.get("name").is_some() {
                    "feature"
                } else {
                    "note"
                };
                item["kind"] = json!(kind);
                if item.get("updated_at").is_none() {
                    item["updated_at"] = item["created_at"].clone();
                }
            }
            item
        })
        .collect()
}

/// A server's `remember` at `path`: a named feature "bore" written now (later than any
/// timestamp the import files below carry, which are in 2026-01).
pub fn server_remembers_bore(path: &std::path::Path) -> review_mcp::review::Record {
    let mut store = review_mcp::store::Store::open(path).unwrap();
    let new = review_mcp::store::NewRecord {
        artifact: review_mcp::review::Artifact {
            revision: rev(1),
            format: "step".into(),
            uri: Some("file:///w/p.step".into()),
            units: None,
        },
        name: Some("bore".into()),
        note: Some("written by the server".into()),
        tags: vec![],
        entity_ids: vec![],
        id_scheme: "opaque".into(),
    };
    store.remember(&new).unwrap().0
}

/// Every short form of `page` (`sha256:`, 12 hex digits, `…`) names exactly one revision the
/// page says whole, and that one before it.
pub fn short_forms_name_one_earlier_revision(page: &Value) {
    let text = page.to_string();
    fn whole(s: &str) -> std::collections::BTreeSet<&str> {
        s.match_indices("sha256:")
            .map(|(i, _)| &s[i..(i + 71).min(s.len())])
            .filter(|r| review_mcp::review::is_revision(r))
            .collect()
    }
    let every = whole(&text);
    for (at, _) in text.match_indices('…') {
        let Some(head) = text[..at]
            .rfind("sha256:")
            .map(|i| &text[i..at])
            .filter(|h| h.len() == 19)
        else {
            continue;
        };
        let named: Vec<_> = every.iter().filter(|r| r.starts_with(head)).collect();
        assert_eq!(named.len(), 1, "{head}… names {named:?}: {page}");
        assert!(
            whole(&text[..at]).contains(named[0]),
            "{head}… before {}: {page}",
            named[0]
        );
    }
}
