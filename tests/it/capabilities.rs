//! Honest capabilities: every capability the server advertises, in every revision, is
//! checked against a behaviour that delivers it, and a capability this test does not know
//! fails it, so nothing can be advertised untested.

use anyhow::{Context, Result, bail, ensure};
use review_mcp::server::Server;
use review_mcp::service::Service;
use review_mcp::store::Store;
use serde_json::{Map, Value, json};

const REV: &str = "sha256:4444444444444444444444444444444444444444444444444444444444444444";

/// One in-process server, in one era.
struct Session {
    server: Server,
    /// `None`: the handshake era; otherwise requests carry the 2026-07-28 envelope.
    modern: bool,
    next_id: u64,
}

impl Session {
    fn open(version: &str) -> Result<(Session, Map<String, Value>)> {
        let server = Server::new(Service::new(Store::open_in_memory()?));
        let modern = version == "2026-07-28";
        let mut s = Session {
            server,
            modern,
            next_id: 1,
        };
        let answer = if modern {
            s.request("server/discover", json!({}))?.0
        } else {
            s.request(
                "initialize",
                json!({"protocolVersion": version, "capabilities": {},
                       "clientInfo": {"name": "capabilities", "version": "0"}}),
            )?
            .0
        };
        let caps = answer["result"]["capabilities"]
            .as_object()
            .cloned()
            .context("no capabilities")?;
        Ok((s, caps))
    }

    fn send(&mut self, message: Value) -> Vec<Value> {
        self.server.handle_line(message.to_string().as_bytes())
    }

    /// The answer to a request, and the notifications written after it.
    fn request(&mut self, method: &str, params: Value) -> Result<(Value, Vec<Value>)> {
        let mut params = params;
        if self.modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            });
        }
        let id = self.next_id;
        self.next_id += 1;
        let mut out = self
            .send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .into_iter();
        let answer = out.next().context("no answer")?;
        Ok((answer, out.collect()))
    }

    fn write(&mut self, name: &str) -> Result<Vec<Value>> {
        let (answer, notes) = self.request(
            "tools/call",
            json!({"name": "remember", "arguments": {
                "artifact": {"revision": REV, "format": "step"},
                "name": name, "entity_ids": []}}),
        )?;
        ensure!(answer["result"]["isError"] != json!(true), "{answer}");
        Ok(notes)
    }
}

fn methods(notes: &[Value]) -> Vec<&str> {
    notes.iter().filter_map(|n| n["method"].as_str()).collect()
}

fn non_empty_list(s: &mut Session, method: &str, key: &str) -> Result<()> {
    let (answer, _) = s.request(method, json!({}))?;
    let items = answer["result"][key]
        .as_array()
        .context(format!("{method}: {answer}"))?;
    ensure!(!items.is_empty(), "{method} lists nothing");
    Ok(())
}

fn check_resources(s: &mut Session, resources: &Map<String, Value>) -> Result<()> {
    let (answer, _) = s.request("resources/list", json!({}))?;
    ensure!(answer["result"]["resources"].is_array(), "{answer}");
    let uri = format!("review://revisions/{REV}");
    for (key, value) in resources {
        ensure!(value == &json!(true), "resources.{key} is {value}");
        match key.as_str() {
            "listChanged" | "subscribe" => {}
            other => bail!("resources.{other} is advertised but not checked"),
        }
    }
    let subscribe = resources.contains_key("subscribe");
    let list = resources.contains_key("listChanged");
    if s.modern {
        let mut filter = Map::new();
        if list {
            filter.insert("resourcesListChanged".into(), json!(true));
        }
        if subscribe {
            filter.insert("resourceSubscriptions".into(), json!([uri]));
        }
        let (ack, _) = s.request("subscriptions/listen", json!({"notifications": filter}))?;
        ensure!(
            ack["params"]["notifications"] == Value::Object(filter.clone()),
            "acknowledged {ack} for {filter:?}"
        );
    } else if subscribe {
        let (answer, _) = s.request("resources/subscribe", json!({"uri": uri}))?;
        ensure!(answer["result"] == json!({}), "{answer}");
    }
    let notes = s.write("capability check")?;
    let got = methods(&notes);
    if list {
        ensure!(
            got.contains(&"notifications/resources/list_changed"),
            "listChanged advertised, a write notified {got:?}"
        );
    }
    if subscribe {
        ensure!(
            notes
                .iter()
                .any(|n| n["method"] == "notifications/resources/updated"
                    && n["params"]["uri"] == json!(uri)),
            "subscribe advertised, a write to the subscribed revision notified {got:?}"
        );
    }
    Ok(())
}

fn check_completions(s: &mut Session) -> Result<()> {
    s.write("completion check")?;
    let (answer, _) = s.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "resume_review"},
               "argument": {"name": "revision", "value": "sha256:44"}}),
    )?;
    ensure!(
        answer["result"]["completion"]["values"] == json!([REV]),
        "{answer}"
    );
    Ok(())
}

fn check_logging(s: &mut Session) -> Result<()> {
    ensure!(
        !s.modern,
        "logging is deprecated in 2026-07-28: not to be advertised"
    );
    let (answer, _) = s.request("logging/setLevel", json!({"level": "warning"}))?;
    ensure!(answer["result"] == json!({}), "{answer}");
    let (_, notes) = s.request(
        "tools/call",
        json!({"name": "remember", "arguments": {"artifact": {"revision": "bad", "format": "step"}}}),
    )?;
    ensure!(
        notes.iter().any(|n| n["method"] == "notifications/message"
            && n["params"]["level"] == "warning"
            && n["params"]["logger"] == "review-mcp"),
        "logging advertised, a refused call logged {notes:?}"
    );
    // Below the level set: nothing.
    let (_, notes) = s.request("logging/setLevel", json!({"level": "error"}))?;
    ensure!(notes.is_empty(), "{notes:?}");
    let (_, notes) = s.request(
        "tools/call",
        json!({"name": "remember", "arguments": {"artifact": {"revision": "bad", "format": "step"}}}),
    )?;
    ensure!(
        !methods(&notes).contains(&"notifications/message"),
        "a warning sent at level error: {notes:?}"
    );
    Ok(())
}

/// The MCP Apps extension (advertised in 2026-07-28, whose `ServerCapabilities` has
/// `extensions`): a tool links a `ui://` resource that reads as an MCP App.
fn check_extensions(s: &mut Session, extensions: &Map<String, Value>) -> Result<()> {
    for (name, settings) in extensions {
        ensure!(
            name == "io.modelcontextprotocol/ui",
            "{name} is advertised but not checked"
        );
        ensure!(settings == &json!({}), "{name}: {settings}");
        let (tools, _) = s.request("tools/list", json!({}))?;
        let uri = tools["result"]["tools"]
            .as_array()
            .context("tools")?
            .iter()
            .find_map(|t| t.pointer("/_meta/ui/resourceUri").and_then(Value::as_str))
            .context("no tool links an app")?
            .to_string();
        let (read, _) = s.request("resources/read", json!({"uri": uri}))?;
        ensure!(
            read["result"]["contents"][0]["mimeType"] == json!("text/html;profile=mcp-app"),
            "{read}"
        );
    }
    Ok(())
}

#[test]
fn capabilities_every_advertised_capability_is_delivered_in_every_revision() -> Result<()> {
    for version in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        let (mut s, caps) = Session::open(version)?;
        for (name, value) in &caps {
            let checked = match name.as_str() {
                "tools" => non_empty_list(&mut s, "tools/list", "tools"),
                "prompts" => non_empty_list(&mut s, "prompts/list", "prompts"),
                "resources" => check_resources(
                    &mut s,
                    value.as_object().context("resources is not an object")?,
                ),
                "completions" => check_completions(&mut s),
                "logging" => check_logging(&mut s),
                "extensions" => check_extensions(
                    &mut s,
                    value.as_object().context("extensions is not an object")?,
                ),
                other => bail!("{version}: {other} is advertised but not checked"),
            };
            checked.with_context(|| format!("{version}: {name}"))?;
            if matches!(name.as_str(), "tools" | "prompts") {
                ensure!(
                    value.get("listChanged").is_none(),
                    "{version}: {name} never change at run time: no listChanged"
                );
            }
        }
    }
    Ok(())
}

/// 2026-07-28's `server/discover` says which extensions the server supports (SEP-2133): the
/// review card's MCP Apps extension. It said none, so a host could learn of the card only by
/// finding a tool's link.
#[test]
fn capabilities_modern_discover_advertises_the_apps_extension() -> Result<()> {
    let (_, caps) = Session::open("2026-07-28")?;
    ensure!(
        caps.get("extensions") == Some(&json!({"io.modelcontextprotocol/ui": {}})),
        "{caps:?}"
    );
    Ok(())
}
