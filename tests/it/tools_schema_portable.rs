//! Every tool schema `tools/list` serves, in every protocol revision, passes the MCP
//! Inspector's schema portability check, and stays valid JSON Schema 2020-12 (issue 14).
//!
//! The rules are those of the Inspector 2.12.0 (npm `@modelcontextprotocol/inspector`,
//! `core/json/schemaLint.ts`, bundled in `clients/cli/build/index.js`: `lintTools` →
//! `lintSchema` → `walk` / `lintNode`), ported here so the test stands alone:
//! - `type-union` (warning): `type` written as an array, e.g. `["boolean", "null"]`; write
//!   `anyOf` branches of one `type` each instead;
//! - `remote-ref` (warning): a `$ref` that does not start with `#`;
//! - `untyped-schema` (warning): a subschema with no validation keyword at all (only
//!   annotations like `description`, or `if` without `then`/`else`), except under `not`;
//! - `boolean-schema` (error): a bare `true`/`false` where a schema object is expected
//!   (allowed only as `additionalProperties`, `unevaluatedProperties`, `additionalItems`,
//!   `unevaluatedItems`).
//!
//! The Inspector walks the same subschema positions as [`subschemas`]. It flags nothing
//! else: `allOf`/`anyOf`/`oneOf`, `if`/`then`, `format`, `pattern`, `enum` and
//! `additionalProperties: false` are all portable by its rules. Here `type-union` is
//! stricter than the Inspector's (any array, not only one of distinct type names) and so is
//! `remote-ref` (no exception for documents that declare an `$id`).
//!
//! With `INSPECTOR_CLI_JS` set to the Inspector's `clients/cli/build/index.js` and `node` on
//! the path, [`inspector_itself_reports_no_finding`] (ignored otherwise) also runs the Inspector's own lint code
//! over the same answers and over the samples of the rules, so the port cannot drift unseen.

// Helpers outside #[test] functions may panic too: a failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::support::TempDir;
use review_mcp::server::Server;
use review_mcp::service::Service;
use review_mcp::store::Store;
use review_mcp::version::{LEGACY, MODERN, Version};
use serde_json::{Value, json};

/// Keywords whose value is one subschema (`items` may also be an array of them).
const SUBSCHEMA: [&str; 12] = [
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const SUBSCHEMA_ARRAY: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const SUBSCHEMA_MAP: [&str; 6] = [
    "properties",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "$defs",
    "definitions",
];
/// Where a bare boolean is a portable schema.
const BOOLEAN_ALLOWED: [&str; 4] = [
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];
/// Keywords that constrain an instance (`if` counts only with `then` or `else`).
const CONSTRAINING: [&str; 43] = [
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "items",
    "prefixItems",
    "contains",
    "additionalItems",
    "unevaluatedItems",
    "properties",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];

/// The subschemas of a schema object: (keyword it sits under, its path, the subschema).
fn subschemas<'a>(node: &'a Value, path: &str) -> Vec<(&'a str, String, &'a Value)> {
    let mut out = Vec::new();
    for key in SUBSCHEMA_MAP {
        if let Some(map) = node.get(key).and_then(Value::as_object) {
            for (name, sub) in map {
                out.push((key, format!("{path}.{key}.{name}"), sub));
            }
        }
    }
    for key in SUBSCHEMA_ARRAY {
        if let Some(subs) = node.get(key).and_then(Value::as_array) {
            for (i, sub) in subs.iter().enumerate() {
                out.push((key, format!("{path}.{key}[{i}]"), sub));
            }
        }
    }
    for key in SUBSCHEMA {
        match node.get(key) {
            Some(Value::Array(subs)) if key == "items" => {
                for (i, sub) in subs.iter().enumerate() {
                    out.push((key, format!("{path}.{key}[{i}]"), sub));
                }
            }
            Some(sub) => out.push((key, format!("{path}.{key}"), sub)),
            None => {}
        }
    }
    out
}

/// The portability findings of one schema, as `rule at path`; empty when it is portable.
fn lint(schema: &Value, name: &str) -> Vec<String> {
    let mut findings = Vec::new();
    walk(schema, name, None, &mut findings);
    findings
}

fn walk(node: &Value, path: &str, keyword: Option<&str>, findings: &mut Vec<String>) {
    let Some(obj) = node.as_object() else {
        if node.is_boolean() && !keyword.is_some_and(|k| BOOLEAN_ALLOWED.contains(&k)) {
            findings.push(format!("boolean-schema at {path}: bare {node}"));
        }
        return;
    };
    if let Some(t) = obj.get("type").filter(|t| t.is_array()) {
        findings.push(format!("type-union at {path}: \"type\": {t}"));
    }
    if let Some(r) = obj.get("$ref").and_then(Value::as_str)
        && !r.starts_with('#')
    {
        findings.push(format!("remote-ref at {path}: {r}"));
    }
    let constrains = obj.keys().any(|k| CONSTRAINING.contains(&k.as_str()))
        || (obj.contains_key("if") && (obj.contains_key("then") || obj.contains_key("else")));
    if !constrains && keyword != Some("not") {
        findings.push(format!("untyped-schema at {path}: {node}"));
    }
    for (key, sub_path, sub) in subschemas(node, path) {
        walk(sub, &sub_path, Some(key), findings);
    }
}

/// The `tools/list` answer of one revision to a host that renders the review card (so every
/// tool, the app-only one included): a fresh server, the handshake for a legacy revision,
/// every page followed.
fn ui_caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

fn tools_of(version: Version) -> Vec<Value> {
    let mut server = Server::new(Service::new(Store::open_in_memory().unwrap()));
    let mut send = |msg: Value| server.handle_line(&serde_json::to_vec(&msg).unwrap());
    let v = version.as_str();
    let modern = MODERN.contains(&version);
    if !modern {
        let init = send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": v, "capabilities": ui_caps(), "clientInfo": {"name": "t", "version": "1"}}}),
        );
        assert_eq!(init[0]["result"]["protocolVersion"], v);
        send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }
    let mut tools = Vec::new();
    let mut cursor: Option<Value> = None;
    for id in 1..100 {
        let mut params = json!({});
        if modern {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": v,
                "io.modelcontextprotocol/clientCapabilities": ui_caps()
            });
        }
        if let Some(c) = cursor.take() {
            params["cursor"] = c;
        }
        let out =
            send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}));
        let result = &out[0]["result"];
        tools.extend(result["tools"].as_array().expect("tools").iter().cloned());
        match result.get("nextCursor") {
            Some(c) => cursor = Some(c.clone()),
            None => return tools,
        }
    }
    panic!("{v}: tools/list never ended");
}

/// Every revision's tools with each of their schemas: (revision, tool, `inputSchema` or
/// `outputSchema`, the schema).
fn every_schema() -> Vec<(Version, String, &'static str, Value)> {
    let mut out = Vec::new();
    for version in LEGACY.into_iter().chain(MODERN) {
        let tools = tools_of(version);
        assert_eq!(
            tools.len(),
            review_mcp::tools::catalog().len(),
            "{version:?}"
        );
        for tool in tools {
            let name = tool["name"].as_str().unwrap().to_string();
            for kind in ["inputSchema", "outputSchema"] {
                if let Some(schema) = tool.get(kind) {
                    out.push((version, name.clone(), kind, schema.clone()));
                }
            }
        }
    }
    out
}

#[test]
fn tools_list_schemas_pass_the_inspector_portability_rules() {
    let schemas = every_schema();
    let outputs = schemas.iter().filter(|s| s.2 == "outputSchema").count();
    // Every tool's input schema in each of five revisions; output schemas from 2025-06-18 on
    // (three revisions).
    let tools = review_mcp::tools::catalog().len();
    assert_eq!(schemas.len() - outputs, 5 * tools);
    assert_eq!(outputs, 3 * tools);
    let findings: Vec<String> = schemas
        .iter()
        .flat_map(|(v, tool, kind, schema)| {
            lint(schema, kind)
                .into_iter()
                .map(move |f| format!("{} {tool}: {f}", v.as_str()))
        })
        .collect();
    assert!(findings.is_empty(), "{}", findings.join("\n"));
}

/// What the port must flag, and what it must let through, so the test above is not vacuous.
fn rule_samples() -> Vec<(Value, Vec<&'static str>)> {
    vec![
        // The schemas before issue 14: `stale` typed as an array.
        (
            json!({"type": "object", "properties": {"stale": {"type": ["boolean", "null"]}}}),
            vec!["type-union"],
        ),
        (
            json!({"type": "object", "properties": {"stale": {"anyOf": [{"type": "boolean"}, {"type": "null"}], "description": "d"}}}),
            vec![],
        ),
        (
            json!({"type": "object", "properties": {"a": true, "b": {"type": "array", "items": false}}}),
            vec!["boolean-schema", "boolean-schema"],
        ),
        (
            json!({"type": "object", "additionalProperties": false, "properties": {"a": {"not": {}}}}),
            vec![],
        ),
        (
            json!({"type": "object", "properties": {"a": {"description": "anything"}, "b": {}}}),
            vec!["untyped-schema", "untyped-schema"],
        ),
        (
            json!({"type": "object", "allOf": [{"if": {"required": ["a"]}}]}),
            vec!["untyped-schema"],
        ),
        // The recall tool's constraint: `if`/`then` with `required` is portable.
        (
            json!({"type": "object", "allOf": [{"if": {"required": ["entity_id"]}, "then": {"required": ["artifact"]}}]}),
            vec![],
        ),
        (
            json!({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {"a": {"type": "string", "format": "uri", "pattern": "^f"}, "b": {"enum": [1]}}}),
            vec![],
        ),
        (
            json!({"$defs": {"x": {"type": "string"}}, "type": "object", "properties": {"a": {"$ref": "#/$defs/x"}, "b": {"$ref": "https://example.com/s.json"}}}),
            vec!["remote-ref"],
        ),
    ]
}

#[test]
fn portability_rules_flag_what_the_inspector_flags() {
    for (schema, expected) in rule_samples() {
        let rules: Vec<String> = lint(&schema, "s")
            .iter()
            .map(|f| f.split(' ').next().unwrap().to_string())
            .collect();
        assert_eq!(rules, expected, "{schema}");
    }
}

#[test]
fn tools_list_schemas_are_valid_json_schema_2020_12() {
    for (v, tool, kind, schema) in every_schema() {
        let at = format!("{} {tool} {kind}", v.as_str());
        // The core dialect, no `$schema`: every client's validator reads it as 2020-12.
        assert!(schema.get("$schema").is_none(), "{at}");
        if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
            panic!("{at} is not valid JSON Schema 2020-12: {e}");
        }
        if let Err(e) = jsonschema::draft202012::new(&schema) {
            panic!("{at} does not compile: {e}");
        }
    }
}

/// `stale` written as `anyOf` accepts and refuses what `["boolean", "null"]` did.
#[test]
fn nullable_stale_accepts_what_the_type_array_accepted() {
    let before = jsonschema::draft202012::new(&json!({"type": ["boolean", "null"]})).unwrap();
    let mut checked = 0;
    for (_, tool, _, schema) in every_schema().into_iter().filter(|s| s.2 == "outputSchema") {
        let props = &schema["properties"];
        // Pages carry `stale` in their artifacts table (issue 26); a history page's table
        // has none (nothing in it is judged against a current revision).
        let item = [
            &props["record"],
            &props["artifacts"]["items"],
            &props["decision"],
        ]
        .into_iter()
        .find(|s| s.is_object());
        let Some(stale) = item
            .map(|i| &i["properties"]["stale"])
            .filter(|s| !s.is_null() || tool != "review_history")
        else {
            continue;
        };
        let now = jsonschema::draft202012::new(stale).unwrap();
        for value in [
            json!(true),
            json!(false),
            json!(null),
            json!("true"),
            json!(0),
            json!({}),
            json!([]),
        ] {
            assert_eq!(
                now.is_valid(&value),
                before.is_valid(&value),
                "{tool}: {value}"
            );
        }
        checked += 1;
    }
    // remember, recall, remember_decision, recall_decisions, request_verdicts (its decision),
    // show_review and record_verdict (its decision), in three revisions.
    assert_eq!(checked, 21);
}

/// Runs the Inspector's own lint (`lintTools`, copied out of its CLI bundle) with node over
/// every revision's `tools/list` and over the rule samples. Ignored (run it with
/// `--include-ignored`) unless `INSPECTOR_CLI_JS` names the bundle (e.g. `.../@modelcontextprotocol/inspector/clients/cli/
/// build/index.js` of 2.12.0); no network either way.
#[test]
#[ignore = "needs INSPECTOR_CLI_JS, the Inspector's CLI bundle, and node"]
fn inspector_itself_reports_no_finding() {
    let bundle = std::env::var_os("INSPECTOR_CLI_JS").expect("INSPECTOR_CLI_JS is set");
    let source = std::fs::read_to_string(&bundle).expect("INSPECTOR_CLI_JS is readable");
    let start = source
        .find("// ../../core/json/schemaLint.ts")
        .expect("the bundle holds core/json/schemaLint.ts");
    let end = start
        + source[start..]
            .find("\n// src/")
            .expect("a module follows schemaLint.ts");
    let dir = TempDir::new("inspector-lint").unwrap();
    let script = dir.join("lint.mjs");
    std::fs::write(
        &script,
        format!(
            "{}\nimport {{ readFileSync }} from 'node:fs';\n\
             const input = JSON.parse(readFileSync(0, 'utf8'));\n\
             const out = input.map((tools) => lintTools(tools).flatMap((r) =>\n\
               r.findings.map((f) => f.rule)));\n\
             console.log(JSON.stringify(out));\n",
            &source[start..end]
        ),
    )
    .unwrap();
    // One list per revision, then one single-tool list per rule sample.
    let samples = rule_samples();
    let mut lists: Vec<Value> = LEGACY
        .into_iter()
        .chain(MODERN)
        .map(|v| Value::Array(tools_of(v)))
        .collect();
    let answers = lists.len();
    lists.extend(
        samples
            .iter()
            .map(|(s, _)| json!([{"name": "sample", "inputSchema": s}])),
    );
    let mut child = std::process::Command::new("node")
        .arg(&script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node runs");
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        &serde_json::to_vec(&lists).unwrap(),
    )
    .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "node failed");
    let rules: Vec<Vec<String>> = serde_json::from_slice(&out.stdout).unwrap();
    for (i, found) in rules[..answers].iter().enumerate() {
        assert!(
            found.is_empty(),
            "tools/list #{i}: the Inspector found {found:?}"
        );
    }
    for ((schema, expected), found) in samples.iter().zip(&rules[answers..]) {
        assert_eq!(
            found, expected,
            "the Inspector and the port differ on {schema}"
        );
    }
}
