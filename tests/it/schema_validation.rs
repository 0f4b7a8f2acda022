//! Every server message in every transcript, validated against the official `schema.json` of
//! its revision. `MCP_SCHEMA_DIR` must point at the schema directory, so the tests are
//! `#[ignore]`d: `.ci/run` sets it and runs them with `--include-ignored`. A
//! shared transcript is validated once per version it names, against that version's schema.
//!
//! Mirrors the conformance suite's wire check (and `transcripts/validate.py` next to the
//! schemas): requests and notifications by their `method` const, results by
//! `<Method>Request` -> `<Method>Result` plus the response envelope, errors by the typed error
//! whose `code` const matches, else the plain error envelope. `id: null` errors (parse errors
//! and the like) are JSON-RPC-only: MCP's `RequestId` cannot express them, so they are skipped
//! like validate.py's `jsonrpcOnly` rows. Format assertions (`uri`, ...) are on, as in the
//! conformance suite. All `$ref`s are internal (`#/$defs/...` or `#/definitions/...`) and
//! resolve inside the document: no network.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use review_mcp::era::modern;
use review_mcp::replay::{self, Exchange, Transcript};
use serde_json::{Value, json};

const MODERN: &str = "2026-07-28";
const LATEST_LEGACY: &str = "2025-11-25";
const VERSIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// One revision's schema document and the lookup tables validate.py builds.
struct Revision {
    schema_uri: String,
    key: &'static str,
    defs: serde_json::Map<String, Value>,
    method_defs: HashMap<String, String>,
    result_defs: HashMap<String, String>,
    error_defs: HashMap<i64, String>,
    validators: HashMap<String, jsonschema::Validator>,
}

impl Revision {
    fn load(path: &Path) -> Result<Revision> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let doc: Value = serde_json::from_str(&text)?;
        let schema_uri = doc
            .get("$schema")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("{}: no $schema", path.display()))?
            .to_string();
        let key = if doc.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let defs = doc
            .get(key)
            .and_then(Value::as_object)
            .ok_or_else(|| anyhow!("{}: no {key}", path.display()))?
            .clone();
        let skip = [
            "ClientRequest",
            "ClientNotification",
            "ClientResult",
            "ServerRequest",
            "ServerNotification",
            "ServerResult",
        ];
        let mut method_defs = HashMap::new();
        let mut result_defs = HashMap::new();
        let mut error_defs = HashMap::new();
        for (name, def) in &defs {
            if skip.contains(&name.as_str()) {
                continue;
            }
            let props = def.get("properties");
            let method = props
                .and_then(|p| p.pointer("/method/const"))
                .and_then(Value::as_str);
            if let Some(m) = method {
                method_defs.insert(m.to_string(), name.clone());
                if let Some(stem) = name.strip_suffix("Request") {
                    let result = format!("{stem}Result");
                    if defs.contains_key(&result) {
                        result_defs.insert(m.to_string(), result);
                    }
                }
            }
            let parts = props
                .and_then(|p| p.pointer("/error/allOf"))
                .and_then(Value::as_array);
            for part in parts.into_iter().flatten() {
                if let Some(code) = part
                    .pointer("/properties/code/const")
                    .and_then(Value::as_i64)
                {
                    error_defs.insert(code, name.clone());
                }
            }
        }
        Ok(Revision {
            schema_uri,
            key,
            defs,
            method_defs,
            result_defs,
            error_defs,
            validators: HashMap::new(),
        })
    }

    fn has(&self, name: &str) -> bool {
        self.defs.contains_key(name)
    }

    /// Errors from validating `instance` against definition `name`.
    fn check(&mut self, name: &str, instance: &Value) -> Result<Vec<String>> {
        if !self.validators.contains_key(name) {
            // The definition as the root's $ref, with every definition beside it, so that the
            // document's internal references resolve exactly as in schema.json.
            let schema = json!({
                "$schema": self.schema_uri,
                "$ref": format!("#/{}/{name}", self.key),
                self.key: self.defs,
            });
            let validator = jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .map_err(|e| anyhow!("cannot compile {name}: {e}"))?;
            self.validators.insert(name.to_string(), validator);
        }
        let validator = self
            .validators
            .get(name)
            .ok_or_else(|| anyhow!("no validator for {name}"))?;
        Ok(validator
            .iter_errors(instance)
            .map(|e| {
                let msg: String = e.to_string().chars().take(200).collect();
                format!("{name}{}: {msg}", e.instance_path())
            })
            .collect())
    }

    /// validate.py's `check`: which definitions the message is checked against, and the errors.
    fn check_message(
        &mut self,
        msg: &Value,
        request_method: Option<&str>,
    ) -> Result<(Vec<String>, Vec<String>)> {
        let mut targets: Vec<(String, Value)> = Vec::new();
        if let Some(method) = msg.get("method").and_then(Value::as_str) {
            let envelope = if msg.get("id").is_some() {
                "JSONRPCRequest"
            } else {
                "JSONRPCNotification"
            };
            // A server-to-client request (`elicitation/create`) or a notification: the
            // JSON-RPC envelope, and the definition of its method.
            if let Some(n) = self.method_defs.get(method) {
                targets.push((n.clone(), msg.clone()));
            }
            targets.push((envelope.to_string(), msg.clone()));
        } else if let Some(error) = msg.get("error") {
            let code = error.get("code").and_then(Value::as_i64);
            let name = match code.and_then(|c| self.error_defs.get(&c)) {
                Some(n) => n.clone(),
                None if self.has("JSONRPCErrorResponse") => "JSONRPCErrorResponse".to_string(),
                None => "JSONRPCError".to_string(),
            };
            targets.push((name, msg.clone()));
        } else {
            let envelope = if self.has("JSONRPCResultResponse") {
                "JSONRPCResultResponse"
            } else {
                "JSONRPCResponse"
            };
            targets.push((envelope.to_string(), msg.clone()));
            if let Some(result_def) = request_method.and_then(|m| self.result_defs.get(m)) {
                let result = msg.get("result").cloned().unwrap_or(Value::Null);
                // 2026-07-28: a request may be answered `input_required` instead of its own
                // result; each of its input requests is checked against its method's definition.
                let input_required = result.get("resultType").and_then(Value::as_str)
                    == Some("input_required")
                    && self.has("InputRequiredResult");
                if input_required {
                    let requests = result.get("inputRequests").and_then(Value::as_object);
                    for request in requests.into_iter().flat_map(|m| m.values()) {
                        let def = request
                            .get("method")
                            .and_then(Value::as_str)
                            .and_then(|m| self.method_defs.get(m));
                        if let Some(def) = def {
                            targets.push((def.clone(), request.clone()));
                        }
                    }
                    targets.push(("InputRequiredResult".to_string(), result));
                } else {
                    targets.push((result_def.clone(), result));
                }
            }
        }
        let mut errors = Vec::new();
        let mut names = Vec::new();
        for (name, instance) in targets {
            errors.extend(self.check(&name, &instance)?);
            names.push(name);
        }
        Ok((names, errors))
    }
}

/// All five revisions, loaded once per test.
struct Schemas(BTreeMap<&'static str, Revision>);

impl Schemas {
    fn load(dir: &Path) -> Result<Schemas> {
        let mut map = BTreeMap::new();
        for v in VERSIONS {
            map.insert(v, Revision::load(&dir.join(v).join("schema.json"))?);
        }
        Ok(Schemas(map))
    }

    fn revision(&mut self, version: &str) -> Result<&mut Revision> {
        self.0
            .get_mut(version)
            .ok_or_else(|| anyhow!("no schema for {version}"))
    }
}

/// The official schema directory: these tests are `#[ignore]`d, and run (`--include-ignored`,
/// as `.ci/run` does) only where it is given, so its absence is a failure.
fn schema_dir() -> Result<PathBuf> {
    match std::env::var_os("MCP_SCHEMA_DIR") {
        Some(dir) => Ok(PathBuf::from(dir)),
        None => bail!("MCP_SCHEMA_DIR is not set (point it at the official schema directory)"),
    }
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-fixtures")
}

/// Every `.jsonl` under the fixture tree with the revision its directory names (`mixed/`
/// falls back to the latest legacy revision for un-enveloped traffic). A shared transcript's
/// revisions come from its `versions` directive instead (`None` here).
fn transcripts() -> Result<Vec<(PathBuf, Option<&'static str>)>> {
    let root = fixtures_root();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
                continue;
            }
            let rel = path
                .strip_prefix(&root)?
                .to_string_lossy()
                .replace('\\', "/");
            let version = VERSIONS
                .iter()
                .copied()
                .find(|v| rel.contains(&format!("/{v}/")))
                .or_else(|| rel.starts_with("mixed/").then_some(LATEST_LEGACY));
            if version.is_none() && !rel.starts_with("legacy/shared/") {
                bail!("{rel}: no revision for this directory");
            }
            out.push((path, version));
        }
    }
    out.sort();
    Ok(out)
}

/// The runs of one transcript, each with the revision it falls back to: the directory's, or the
/// version a shared transcript runs under.
fn runs(path: &Path, directory: Option<&'static str>) -> Result<Vec<(Transcript, &'static str)>> {
    let text = std::fs::read_to_string(path)?;
    let mut out = Vec::new();
    for run in replay::variants(&text)? {
        let version = match (run.version.as_deref(), directory) {
            (Some(v), None) => VERSIONS
                .iter()
                .copied()
                .find(|known| *known == v)
                .ok_or_else(|| anyhow!("{}: no schema for {v}", path.display()))?,
            (None, Some(d)) => d,
            (Some(v), Some(d)) => bail!("{}: names {v} but lies in {d}", path.display()),
            (None, None) => bail!("{}: names no versions", path.display()),
        };
        out.push((run.transcript, version));
    }
    Ok(out)
}

/// The revision and request method behind one request the server answered: enveloped
/// requests are 2026-07-28 (unless they are the legacy handshake), everything else belongs to
/// the legacy session, or to the directory's revision before there is one.
fn context_of(
    request: Option<&Value>,
    x: &Exchange,
    fallback: &'static str,
) -> (&'static str, Option<String>) {
    let method = request
        .and_then(|r| r.get("method"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let params = request.and_then(|r| r.get("params"));
    let handshake = method.as_deref() == Some("initialize")
        && params
            .and_then(|p| p.get("protocolVersion"))
            .is_some_and(Value::is_string);
    let version = if !handshake && modern::has_envelope(params) {
        MODERN
    } else {
        x.session.map_or(fallback, |v| v.as_str())
    };
    (version, method)
}

/// Validates what the in-process server wrote for one run of a transcript; returns the
/// failures.
fn validate_transcript(
    schemas: &mut Schemas,
    path: &Path,
    transcript: &Transcript,
    fallback: &'static str,
) -> Result<(usize, Vec<String>)> {
    let exchanges = replay::serve_in_process(transcript)?;
    let mut checked = 0;
    let mut failures = Vec::new();
    // The requests still unanswered, by id: a legacy `tools/call` that waits for the client's
    // answer to the server's `elicitation/create` is answered after a later line (the client's
    // response), and its answer is checked as the request's.
    let mut waiting: HashMap<String, (&'static str, Option<String>)> = HashMap::new();
    for x in &exchanges {
        let input: Option<Value> = serde_json::from_slice(&x.input).ok();
        let requests: Vec<&Value> = match &input {
            Some(Value::Array(batch)) => batch.iter().collect(),
            Some(single) => vec![single],
            None => Vec::new(),
        };
        for r in requests {
            if let (Some(id), Some(_)) = (r.get("id"), r.get("method")) {
                waiting.insert(id.to_string(), context_of(Some(r), x, fallback));
            }
        }
        for out in &x.outputs {
            // A batch answer is an array of responses, each checked on its own against the
            // request with the same id in the batch.
            let items: Vec<&Value> = match out {
                Value::Array(items) => items.iter().collect(),
                single => vec![single],
            };
            for msg in items {
                if msg.get("error").is_some() && msg.get("id") == Some(&Value::Null) {
                    continue; // JSON-RPC-only: id null cannot be an MCP RequestId.
                }
                let request = match &input {
                    Some(Value::Array(batch)) => batch
                        .iter()
                        .find(|r| r.get("id").is_some() && r.get("id") == msg.get("id")),
                    other => other.as_ref(),
                };
                let answered = match (msg.get("method"), msg.get("id")) {
                    (None, Some(id)) => waiting.remove(&id.to_string()),
                    _ => None,
                };
                let (version, method) =
                    answered.unwrap_or_else(|| context_of(request, x, fallback));
                let (names, errors) = schemas
                    .revision(version)?
                    .check_message(msg, method.as_deref())?;
                checked += 1;
                if !errors.is_empty() {
                    failures.push(format!(
                        "{} (run as {fallback}) [{version} {}]: {msg}\n      {}",
                        path.display(),
                        names.join("+"),
                        errors.join("\n      ")
                    ));
                }
            }
        }
    }
    Ok((checked, failures))
}

#[test]
#[ignore = "needs MCP_SCHEMA_DIR, the official schema directory (.ci/run sets it)"]
fn schema_every_server_message_in_every_transcript_validates() -> Result<()> {
    let dir = schema_dir()?;
    let mut schemas = Schemas::load(&dir)?;
    let mut failures = Vec::new();
    let mut checked = 0;
    let files = transcripts()?;
    let mut count = 0;
    for (path, directory) in &files {
        for (transcript, version) in runs(path, *directory)? {
            let (n, f) = validate_transcript(&mut schemas, path, &transcript, version)?;
            checked += n;
            count += 1;
            failures.extend(f);
        }
    }
    println!(
        "validated {checked} server messages from {} transcripts in {count} runs",
        files.len()
    );
    assert!(checked > 100, "only {checked} messages were validated");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

/// The validator run over the composed example transcripts shipped next to the schemas: every
/// row passes except the ones marked `expectInvalid`, which must fail. This proves the
/// validator agrees with validate.py (and the conformance suite) on known-good and known-bad
/// messages.
#[test]
#[ignore = "needs MCP_SCHEMA_DIR, the official schema directory (.ci/run sets it)"]
fn schema_validator_agrees_with_the_reference_examples() -> Result<()> {
    let dir = schema_dir()?;
    let examples = dir.join("..").join("transcripts");
    if !examples.is_dir() {
        bail!("no example transcripts at {}", examples.display());
    }
    let mut schemas = Schemas::load(&dir)?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&examples)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|p| p.extension().and_then(|e| e.to_str()) == Some("jsonl"));
    files.sort();
    if files.is_empty() {
        bail!("no example transcripts in {}", examples.display());
    }
    let mut problems = Vec::new();
    let mut rows = 0;
    for path in &files {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let version = VERSIONS
            .iter()
            .copied()
            .find(|v| name.contains(v))
            .unwrap_or(if name.starts_with("modern") {
                MODERN
            } else {
                LATEST_LEGACY
            });
        for (n, line) in std::fs::read_to_string(path)?.lines().enumerate() {
            let row: Value = serde_json::from_str(line)?;
            let Some(msg) = row.get("msg") else { continue };
            if row.get("jsonrpcOnly") == Some(&Value::Bool(true)) {
                continue;
            }
            let method = row.get("requestMethod").and_then(Value::as_str);
            let (names, errors) = schemas.revision(version)?.check_message(msg, method)?;
            rows += 1;
            let expect_invalid = row.get("expectInvalid") == Some(&Value::Bool(true));
            if expect_invalid == errors.is_empty() {
                problems.push(format!(
                    "{}:{}: {} {} ({})",
                    name,
                    n + 1,
                    if expect_invalid {
                        "should fail but passed"
                    } else {
                        "failed"
                    },
                    names.join("+"),
                    errors.join("; ")
                ));
            }
        }
    }
    println!("checked {rows} example rows");
    assert!(rows > 30, "only {rows} example rows");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    Ok(())
}

/// Known-bad messages must fail, so a validator that silently accepts everything (an
/// unresolved `$ref`, formats off) cannot pass the tests above.
#[test]
#[ignore = "needs MCP_SCHEMA_DIR, the official schema directory (.ci/run sets it)"]
fn schema_validator_rejects_known_bad_messages() -> Result<()> {
    let dir = schema_dir()?;
    let mut schemas = Schemas::load(&dir)?;
    let cases = [
        (
            MODERN,
            "tools/list",
            json!({"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":0,"cacheScope":"public"}}),
            "a modern result without resultType",
        ),
        (
            MODERN,
            "server/discover",
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version"}}),
            "-32022 without data",
        ),
        (
            LATEST_LEGACY,
            "initialize",
            json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"version":"1"}}}),
            "serverInfo without name (a nested $ref)",
        ),
        (
            "2024-11-05",
            "resources/list",
            json!({"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"not a uri","name":"x"}]}}),
            "a resource uri that is not a URI (format check, draft-07)",
        ),
        (
            LATEST_LEGACY,
            "resources/list",
            json!({"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"not a uri","name":"x"}]}}),
            "a resource uri that is not a URI (format check, 2020-12)",
        ),
        (
            "2025-06-18",
            "ping",
            json!({"jsonrpc":"2.0","id":1.5,"result":{}}),
            "a fractional id",
        ),
        (
            LATEST_LEGACY,
            "tools/call",
            json!({"jsonrpc":"2.0","id":"review-mcp-ask-1","method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"j":{"type":"object"}}}}}),
            "a server's elicitation/create whose form field is an object (ElicitRequest)",
        ),
        (
            LATEST_LEGACY,
            "tools/call",
            json!({"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}),
            "a server request without jsonrpc and id (the JSON-RPC envelope)",
        ),
        (
            MODERN,
            "tools/call",
            json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"verdicts":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"j":{"type":"array"}}}}}},"requestState":"s"}}),
            "input_required whose elicitation request has an array field (ElicitRequest in inputRequests)",
        ),
        (
            MODERN,
            "tools/call",
            json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"verdicts":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}}},"requestState":7}}),
            "input_required whose requestState is not a string (InputRequiredResult)",
        ),
    ];
    // And the shapes this server sends pass: its elicitation/create with and without mode, and
    // an input_required answer (not a CallToolResult: it has no content).
    let form = json!({"type":"object","properties":{"item_000_judgement":{"type":"string","enum":["accepted","rejected"]},"item_000_reason":{"type":"string","maxLength":2000}},"required":["item_000_judgement"]});
    let good = [
        (
            LATEST_LEGACY,
            json!({"jsonrpc":"2.0","id":"review-mcp-ask-1","method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":form}}),
        ),
        (
            "2025-06-18",
            json!({"jsonrpc":"2.0","id":"review-mcp-ask-1","method":"elicitation/create","params":{"message":"m","requestedSchema":form}}),
        ),
        (
            MODERN,
            json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"verdicts":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":form}}},"requestState":"rv1.00.00"}}),
        ),
    ];
    for (version, msg) in good {
        let (names, errors) = schemas
            .revision(version)?
            .check_message(&msg, Some("tools/call"))?;
        assert!(
            errors.is_empty(),
            "{version}: {msg} was refused: {errors:?}"
        );
        assert!(
            names.iter().any(|n| n == "ElicitRequest"),
            "{version}: {msg} was not checked against ElicitRequest: {names:?}"
        );
    }
    for (version, method, msg, what) in cases {
        let (_, errors) = schemas
            .revision(version)?
            .check_message(&msg, Some(method))?;
        assert!(!errors.is_empty(), "{version}: {what} was accepted");
    }
    Ok(())
}
