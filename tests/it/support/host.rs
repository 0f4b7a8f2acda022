//! One engineer's or assistant's server on a shared database file, in a chosen era,
//! declaring the form and the review card: remember, answer the form, click in the card, read
//! the stored verdicts back (the verdict tests and the history's Done-when scenario).

use anyhow::{Context, Result, ensure};
use review_mcp::server::Server;
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";

fn send(server: &mut Server, msg: &Value) -> Vec<Value> {
    server.handle_line(msg.to_string().as_bytes())
}

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The one server request in `out`, which must be all there is: its id.
pub fn the_ask(out: &[Value]) -> Result<String> {
    ensure!(
        out.len() == 1,
        "expected only the server's request, got {out:?}"
    );
    ensure!(
        out[0]["method"] == "elicitation/create",
        "not an elicitation: {out:?}"
    );
    out[0]["id"]
        .as_str()
        .map(str::to_string)
        .context("the server's request id is not a string")
}

/// A stored verdict as (judgement, via, author).
pub type Given = (String, String, Option<String>);

/// One engineer's or assistant's server on a shared database file, in a legacy session of
/// `legacy` or in 2026-07-28 (`None`), declaring the form and the review card.
pub struct Host {
    pub artifact: Value,
    pub subject: String,
    server: Server,
    legacy: Option<&'static str>,
    next: u64,
}

impl Host {
    /// A host whose decision is `subject` of `artifact`.
    pub fn on(
        db: &std::path::Path,
        author: Option<&str>,
        legacy: Option<&'static str>,
        artifact: Value,
        subject: &str,
    ) -> Result<Host> {
        let mut store = Store::open(db)?;
        store.set_author(author.map(str::to_string));
        let mut host = Host {
            artifact,
            subject: subject.to_string(),
            server: Server::new(Service::new(store)),
            legacy,
            next: 100,
        };
        if let Some(version) = legacy {
            let out = send(
                &mut host.server,
                &request(
                    json!(0),
                    "initialize",
                    json!({"protocolVersion": version, "capabilities": Host::caps(),
                           "clientInfo": {"name": "author-test", "version": "0"}}),
                ),
            );
            ensure!(out[0]["result"]["protocolVersion"] == version, "{out:?}");
            send(
                &mut host.server,
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            );
        }
        Ok(host)
    }

    pub fn caps() -> Value {
        json!({"elicitation": {"form": {}},
               "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
    }

    /// A `tools/call` (with `extra` params); every message the server wrote back.
    pub fn raw_call(&mut self, name: &str, arguments: &Value, extra: Value) -> Vec<Value> {
        self.next += 1;
        let mut params = json!({"name": name, "arguments": arguments});
        if self.legacy.is_none() {
            params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": Host::caps()});
        }
        if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        send(
            &mut self.server,
            &request(json!(self.next), "tools/call", params),
        )
    }

    /// Any request (a `resources/read`, a `completion/complete`, ...): every message the
    /// server wrote back.
    pub fn raw_request(&mut self, method: &str, mut params: Value) -> Vec<Value> {
        self.next += 1;
        if self.legacy.is_none() {
            params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": Host::caps()});
        }
        send(&mut self.server, &request(json!(self.next), method, params))
    }

    /// The answer to the last request among `out`.
    pub fn answer_in(&self, out: &[Value]) -> Result<Value> {
        out.iter()
            .find(|m| m["id"] == self.next && m.get("method").is_none())
            .cloned()
            .context("no answer")
    }

    /// A call that must succeed: its structured content.
    pub fn ok(&mut self, name: &str, arguments: Value) -> Result<Value> {
        let out = self.raw_call(name, &arguments, json!({}));
        let answer = out
            .iter()
            .find(|m| m["id"] == self.next)
            .context("no answer")?;
        ensure!(answer["result"]["isError"] != true, "{name}: {answer}");
        Ok(answer["result"]["structuredContent"].clone())
    }

    /// request_verdicts on `items`, the engineer accepting each through the form: by the
    /// server's own request (legacy) or the input_required retry (2026-07-28).
    pub fn form(&mut self, items: &[u64]) -> Result<Value> {
        let args = json!({"artifact": self.artifact, "subject": self.subject, "items": items});
        let content: serde_json::Map<String, Value> = items
            .iter()
            .map(|i| (format!("item_{i:03}_judgement"), json!("accepted")))
            .collect();
        let reply = json!({"action": "accept", "content": content});
        let out = self.raw_call("request_verdicts", &args, json!({}));
        let answer = match self.legacy {
            Some(_) => {
                let ask = the_ask(&out)?;
                let call = self.next;
                send(
                    &mut self.server,
                    &json!({"jsonrpc": "2.0", "id": ask, "result": reply}),
                )
                .into_iter()
                .find(|m| m["id"] == call)
                .context("no answer to the form's call")?
            }
            None => {
                let state = out[0]["result"]["requestState"].clone();
                ensure!(state.is_string(), "{out:?}");
                let retry = json!({"inputResponses": {"verdicts": reply}, "requestState": state});
                let out = self.raw_call("request_verdicts", &args, retry);
                out.into_iter()
                    .find(|m| m.get("result").is_some())
                    .context("no retry answer")?
            }
        };
        ensure!(
            answer["result"]["structuredContent"]["outcome"] == "recorded",
            "{answer}"
        );
        Ok(answer["result"]["structuredContent"].clone())
    }

    /// A click in the review card on item `index` as show_review showed it.
    pub fn click(&mut self, index: usize, judgement: &str) -> Result<Value> {
        let args = json!({"artifact": self.artifact, "subject": self.subject, "detail": "full"});
        let out = self.raw_call("show_review", &args, json!({}));
        let answer = out
            .iter()
            .find(|m| m["id"] == self.next)
            .context("no answer")?;
        let d = &answer["result"]["structuredContent"]["decisions"][0];
        // The card's proof, given to the card in the result's _meta.
        let id = d["id"].as_str().context("no decision")?;
        let card_proof = answer["result"]["_meta"]["review-mcp/card"]["proofs"][id].clone();
        self.ok(
            "record_verdict",
            json!({"decision_id": d["id"], "index": index, "judgement": judgement,
                   "item_digest": d["basis"][index]["digest"], "card_proof": card_proof}),
        )
    }

    /// Each basis item's stored verdict as (judgement, via, author).
    pub fn stored(&mut self) -> Result<Vec<Option<Given>>> {
        let got = self.ok(
            "recall_decisions",
            json!({"artifact": self.artifact, "subject": self.subject}),
        )?;
        let basis = got["decisions"][0]["basis"]
            .as_array()
            .context("no basis")?;
        Ok(basis
            .iter()
            .map(|b| {
                b.get("verdict").map(|v| {
                    (
                        v["judgement"].as_str().unwrap_or_default().to_string(),
                        v["via"].as_str().unwrap_or_default().to_string(),
                        v["author"].as_str().map(str::to_string),
                    )
                })
            })
            .collect())
    }
}
