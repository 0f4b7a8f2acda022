//! Packaging: the MCP Bundle's manifest against the server it ships, the built bundle started
//! the way a host starts it, and `server.json` against the MCP Registry's schema.
//!
//! The manifest is generated (`packaging/build-mcpb.sh`, which runs the binary's own
//! `tools/list` and `prompts/list`), so these tests guard the generator and the artifacts:
//! a generated manifest whose tools, prompts or version differ from this build's server
//! fails, and so does a bundle in `target/mcpb/` built from a stale binary. The bundle's
//! THIRD_PARTY_NOTICES (`packaging/notices.py`) must name every crate linked into the binary,
//! by cargo tree's account and by the crate paths in the binary itself. The generator
//! needs bash and python3 (no npm). The bundle test needs the bundle
//! (`bash packaging/build-mcpb.sh`), so it is `#[ignore]`d: `.ci/run` builds the bundle, then
//! runs it with `--include-ignored`, where a missing or stale bundle fails.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, anyhow, bail, ensure};
use serde_json::{Map, Value, json};

const SERVER_SCHEMA: &str = "tests/fixtures/registry/server.schema.2025-12-11.json";
const REVISION: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_review-mcp"))
}

use crate::support::TempDir;

/// The `[package]` version of Cargo.toml (its first table, so the first `version =` line).
fn cargo_version() -> Result<String> {
    let text = std::fs::read_to_string(root().join("Cargo.toml"))?;
    text.lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_string)
        .ok_or_else(|| anyhow!("no version in Cargo.toml"))
}

fn read_json(path: &Path) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Runs `cmd` with the handshake and `requests` on stdin, closes it, and returns the results
/// by request id. A JSON-RPC error is a test failure.
fn exchange(mut cmd: Command, requests: &[Value]) -> Result<HashMap<u64, Value>> {
    let mut input = String::new();
    for line in [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "packaging-test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    .iter()
    .chain(requests)
    {
        input.push_str(&line.to_string());
        input.push('\n');
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting the server")?;
    child
        .stdin
        .take()
        .ok_or_else(|| anyhow!("no stdin"))?
        .write_all(input.as_bytes())?;
    let out = child.wait_with_output()?;
    ensure!(
        out.status.success(),
        "server exited with {}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let mut results = HashMap::new();
    for line in String::from_utf8(out.stdout)?.lines() {
        let message: Value = serde_json::from_str(line)?;
        if let Some(err) = message.get("error") {
            bail!("error answer {message}: {err}");
        }
        // What the session is told of its own writes: not an answer.
        if message.get("id").is_none() && message.get("method").is_some() {
            continue;
        }
        let id = message["id"]
            .as_u64()
            .ok_or_else(|| anyhow!("no id: {message}"))?;
        results.insert(id, message["result"].clone());
    }
    Ok(results)
}

/// This build's server, on a database in `dir` it must not create (listing needs none).
fn ask_server(dir: &TempDir, requests: &[Value]) -> Result<HashMap<u64, Value>> {
    let mut cmd = Command::new(binary());
    cmd.env("REVIEW_MCP_DB_PATH", dir.join("never.db"))
        .env("MCP_LOG_LEVEL", "warn")
        .current_dir(dir.path());
    let results = exchange(cmd, requests)?;
    ensure!(
        !dir.join("never.db").exists(),
        "listing created the database"
    );
    Ok(results)
}

/// Every item of a list method, following `nextCursor`.
fn list_all(dir: &TempDir, method: &str, key: &str) -> Result<Vec<Value>> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let mut answers = ask_server(
            dir,
            &[json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})],
        )?;
        let result = answers
            .remove(&1)
            .ok_or_else(|| anyhow!("no answer to {method}"))?;
        items.extend(result[key].as_array().cloned().unwrap_or_default());
        match result["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return Ok(items),
        }
    }
}

fn prompt_text(result: &Value) -> String {
    result["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m["content"]["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .unwrap_or_default()
}

/// A value for each prompt argument, free of JSON-special characters (see packaging/mcpb.py).
fn sample_argument(name: &str) -> String {
    match name {
        "revision" => REVISION.to_string(),
        "uri" => "file:///work/bracket.step".to_string(),
        other => format!("sample {other} value"),
    }
}

/// Fails when the manifest's version, tools or prompts differ from Cargo.toml and from what
/// this build's server answers: names and descriptions in order, prompt argument names, and
/// each prompt's text, filled with sample arguments, against the server's `prompts/get`.
fn check_against_server(manifest: &Value) -> Result<()> {
    ensure!(
        manifest["version"] == json!(cargo_version()?),
        "manifest version {} is not Cargo.toml's {}",
        manifest["version"],
        cargo_version()?
    );
    let dir = TempDir::new("packaging-lists")?;
    let tools: Vec<Value> = list_all(&dir, "tools/list", "tools")?
        .iter()
        .map(|t| json!({"name": t["name"], "description": t["description"]}))
        .collect();
    let listed_tools = manifest["tools"].as_array().cloned().unwrap_or_default();
    ensure!(
        listed_tools == tools,
        "manifest tools differ from tools/list:\n manifest: {}\n server:   {}",
        json!(listed_tools),
        json!(tools)
    );

    let prompts = list_all(&dir, "prompts/list", "prompts")?;
    let listed = manifest["prompts"].as_array().cloned().unwrap_or_default();
    let names = |ps: &[Value]| ps.iter().map(|p| p["name"].clone()).collect::<Vec<_>>();
    ensure!(
        names(&listed) == names(&prompts),
        "manifest prompts {:?} differ from prompts/list {:?}",
        names(&listed),
        names(&prompts)
    );
    for (entry, prompt) in listed.iter().zip(&prompts) {
        let name = prompt["name"].as_str().unwrap_or_default();
        ensure!(
            entry["description"] == prompt["description"],
            "prompt {name}: description differs"
        );
        let arg_names: Vec<Value> = prompt["arguments"]
            .as_array()
            .map(|a| a.iter().map(|x| x["name"].clone()).collect())
            .unwrap_or_default();
        ensure!(
            entry["arguments"] == json!(arg_names),
            "prompt {name}: arguments {} differ from {}",
            entry["arguments"],
            json!(arg_names)
        );
        let mut args = Map::new();
        let mut text = entry["text"].as_str().unwrap_or_default().to_string();
        for arg in arg_names.iter().filter_map(Value::as_str) {
            let value = sample_argument(arg);
            let placeholder = format!("${{arguments.{arg}}}");
            ensure!(
                text.contains(&placeholder),
                "prompt {name}: text has no {placeholder}"
            );
            text = text.replace(&placeholder, &value);
            args.insert(arg.to_string(), json!(value));
        }
        let got = ask_server(
            &dir,
            &[json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
                     "params": {"name": name, "arguments": args}})],
        )?;
        let expected = prompt_text(&got[&1]);
        ensure!(
            text == expected,
            "prompt {name}: the manifest's text, filled in, is not the server's:\n{text}\n---\n{expected}"
        );
    }
    Ok(())
}

/// What a host does to a manifest string (MANIFEST.md, "Variable Substitution"): the
/// bundle's directory, the user's values, and the user's folders (here inside the test's dir).
fn substitute(s: &str, dirname: &Path, home: &Path, user_config: &Map<String, Value>) -> String {
    let mut out = s
        .replace("${__dirname}", &dirname.to_string_lossy())
        .replace("${HOME}", &home.to_string_lossy())
        .replace("${DOCUMENTS}", &home.join("Documents").to_string_lossy())
        .replace("${DESKTOP}", &home.join("Desktop").to_string_lossy())
        .replace("${DOWNLOADS}", &home.join("Downloads").to_string_lossy())
        .replace("${pathSeparator}", std::path::MAIN_SEPARATOR_STR)
        .replace("${/}", std::path::MAIN_SEPARATOR_STR);
    for (key, value) in user_config {
        let v = value
            .as_str()
            .map(str::to_string)
            .unwrap_or(value.to_string());
        out = out.replace(&format!("${{user_config.{key}}}"), &v);
    }
    out
}

/// Runs `packaging/build-mcpb.sh --manifest-only` on this build's binary.
fn generate_manifest(dir: &TempDir) -> Result<Value> {
    let out = dir.join("manifest.json");
    let status = Command::new("bash")
        .arg(root().join("packaging/build-mcpb.sh"))
        .arg("--bin")
        .arg(binary())
        .arg("--manifest-only")
        .arg(&out)
        .status()
        .context("running packaging/build-mcpb.sh (needs bash and python3)")?;
    ensure!(
        status.success(),
        "build-mcpb.sh --manifest-only failed: {status}"
    );
    read_json(&out)
}

#[test]
fn manifest_generated_from_the_binary_matches_its_lists_and_cargo_version() -> Result<()> {
    let dir = TempDir::new("packaging-manifest")?;
    let manifest = generate_manifest(&dir)?;
    check_against_server(&manifest)?;

    let server = &manifest["server"];
    assert_eq!(server["type"], "binary");
    let entry = server["entry_point"].as_str().unwrap_or_default();
    assert_eq!(
        server["mcp_config"]["command"],
        json!(format!("${{__dirname}}/{entry}"))
    );
    assert_eq!(
        server["mcp_config"]["env"]["REVIEW_MCP_DB_PATH"],
        "${user_config.database}"
    );
    let database = &manifest["user_config"]["database"];
    assert_eq!(database["type"], "file");
    assert_eq!(database["required"], true);
    let default = database["default"].as_str().unwrap_or_default();
    assert!(
        default.starts_with("${DOCUMENTS}/") && default.ends_with("/review.db"),
        "default {default}"
    );
    Ok(())
}

/// The bundle for this version in `target/mcpb/` (or `REVIEW_MCP_BUNDLE`), if built.
fn find_bundle() -> Result<Option<PathBuf>> {
    if let Some(path) = std::env::var_os("REVIEW_MCP_BUNDLE") {
        return Ok(Some(PathBuf::from(path)));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let prefix = format!("review-mcp-{}-", cargo_version()?);
    let Ok(entries) = std::fs::read_dir(target.join("mcpb")) else {
        return Ok(None);
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            name.is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".mcpb"))
        })
        .collect();
    found.sort();
    Ok(found.pop())
}

/// Unzips with python3's zipfile (unzip is not on every machine), restoring the Unix modes
/// as the official `mcpb unpack` does, and refusing names that leave the directory.
fn unpack(bundle: &Path, into: &Path) -> Result<()> {
    const UNPACK: &str = r#"
import os, sys, zipfile
dest = os.path.realpath(sys.argv[2])
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        path = os.path.realpath(os.path.join(dest, info.filename))
        if not path.startswith(dest + os.sep):
            sys.exit("entry leaves the bundle: " + info.filename)
        z.extract(info, dest)
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            os.chmod(path, mode)
"#;
    let status = Command::new("python3")
        .arg("-c")
        .arg(UNPACK)
        .arg(bundle)
        .arg(into)
        .status()
        .context("running python3 to unzip the bundle")?;
    ensure!(status.success(), "unzipping {} failed", bundle.display());
    Ok(())
}

#[test]
#[ignore = "needs the bundle: bash packaging/build-mcpb.sh (.ci/run builds it, then runs this)"]
fn bundle_unpacked_serves_remember_and_recall_with_its_own_mcp_config() -> Result<()> {
    let Some(bundle) = find_bundle()? else {
        bail!(
            "no target/mcpb/review-mcp-<version>-*.mcpb: build one with `bash packaging/build-mcpb.sh`"
        );
    };
    let dir = TempDir::new("bundle")?;
    let unpacked = dir.join("extension");
    unpack(&bundle, &unpacked)?;

    let manifest = read_json(&unpacked.join("manifest.json"))?;
    // A bundle left in target/ by an earlier build of other sources is stale: a failure.
    let mut stale = check_against_server(&manifest)
        .err()
        .map(|e| format!("{e:#}"));
    for doc in ["README.md", "LICENSE"] {
        if std::fs::read(unpacked.join(doc))? != std::fs::read(root().join(doc))? {
            stale.get_or_insert(format!("{doc} in the bundle differs from the repository's"));
        }
    }
    let notices = dir.join("notices");
    let (ok, stderr) = run_notices(&notices, None)?;
    ensure!(ok, "packaging/notices.py failed: {stderr}");
    if std::fs::read(unpacked.join("THIRD_PARTY_NOTICES")).ok() != Some(std::fs::read(&notices)?) {
        stale.get_or_insert("its THIRD_PARTY_NOTICES is missing or not this Cargo.lock's".into());
    }
    if let Some(why) = stale {
        let why = format!(
            "{} does not match this build ({why}): rebuild it with packaging/build-mcpb.sh",
            bundle.display()
        );
        bail!(why);
    }
    let entry = unpacked.join(
        manifest["server"]["entry_point"]
            .as_str()
            .unwrap_or_default(),
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&entry)?.permissions().mode();
        assert!(mode & 0o111 != 0, "{} is not executable", entry.display());
    }

    // The host: fills the user_config from its defaults (the user's Documents folder lives in
    // the test's dir), substitutes the mcp_config, and starts the command in a working
    // directory of its own with only the manifest's environment.
    let home = dir.join("home");
    let host_cwd = dir.join("host-cwd");
    std::fs::create_dir_all(&host_cwd)?;
    let mut user_config = Map::new();
    for (key, option) in manifest["user_config"]
        .as_object()
        .cloned()
        .unwrap_or_default()
    {
        let default = option["default"].as_str().unwrap_or_default();
        let value = substitute(default, &unpacked, &home, &Map::new());
        user_config.insert(key, json!(value));
    }
    let config = &manifest["server"]["mcp_config"];
    let sub = |s: &str| substitute(s, &unpacked, &home, &user_config);
    let command = sub(config["command"].as_str().unwrap_or_default());
    assert_eq!(PathBuf::from(&command), entry);
    let mut cmd = Command::new(&command);
    cmd.env_clear().current_dir(&host_cwd);
    for arg in config["args"].as_array().cloned().unwrap_or_default() {
        cmd.arg(sub(arg.as_str().unwrap_or_default()));
    }
    for (name, value) in config["env"].as_object().cloned().unwrap_or_default() {
        let value = sub(value.as_str().unwrap_or_default());
        assert!(!value.contains("${"), "{name}={value} left unsubstituted");
        cmd.env(name, value);
    }

    let artifact = json!({"revision": REVISION, "format": "step", "uri": "/work/bracket.step"});
    let answers = exchange(
        cmd,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "remember", "arguments": {
                    "artifact": artifact, "entity_ids": ["face:3"], "name": "mating surface",
                    "note": "Mates with the housing.", "tags": ["datum"]}}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "recall", "arguments": {"artifact": artifact, "tags": ["datum"]}}}),
        ],
    )?;
    assert_eq!(
        answers[&0]["serverInfo"]["version"],
        json!(cargo_version()?)
    );
    assert_ne!(answers[&1]["isError"], true, "remember: {}", answers[&1]);
    // Staleness is said once per artifact in the page's `artifacts` table (issue 26).
    let records = crate::support::inproc::inlined(&answers[&2]["structuredContent"], "records");
    assert_eq!(records.len(), 1, "recall: {}", answers[&2]);
    assert_eq!(records[0]["name"], "mating surface");
    assert_eq!(records[0]["stale"], false);

    let db = user_config["database"].as_str().unwrap_or_default();
    assert!(Path::new(db).is_file(), "no database at {db}");
    assert!(db.starts_with(&*home.join("Documents").to_string_lossy()));
    assert_eq!(
        std::fs::read_dir(&host_cwd)?.count(),
        0,
        "files left in the host's cwd"
    );
    Ok(())
}

fn server_json() -> Result<Value> {
    read_json(&root().join("server.json"))
}

fn validation_errors(instance: &Value) -> Result<Vec<String>> {
    let schema = read_json(&root().join(SERVER_SCHEMA))?;
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .map_err(|e| anyhow!("cannot compile {SERVER_SCHEMA}: {e}"))?;
    Ok(validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect())
}

#[test]
fn server_json_validates_against_the_vendored_registry_schema() -> Result<()> {
    let doc = server_json()?;
    let schema = read_json(&root().join(SERVER_SCHEMA))?;
    assert_eq!(
        doc["$schema"], schema["$id"],
        "server.json names another schema than the vendored {SERVER_SCHEMA}"
    );
    let errors = validation_errors(&doc)?;
    assert!(errors.is_empty(), "server.json: {errors:#?}");

    // The schema is what rejects a bad document, not a vacuous pass.
    let mut broken = doc.clone();
    broken["packages"][0]["fileSha256"] = json!("not-a-sha");
    broken["description"] = json!("x".repeat(101));
    assert_eq!(validation_errors(&broken)?.len(), 2);
    Ok(())
}

#[test]
fn server_json_versions_url_and_variables_follow_cargo_and_readme() -> Result<()> {
    let doc = server_json()?;
    let version = cargo_version()?;
    assert_eq!(doc["version"], json!(version));
    let repo = doc["repository"]["url"].as_str().unwrap_or_default();
    let packages = doc["packages"].as_array().cloned().unwrap_or_default();
    assert!(!packages.is_empty());
    let readme = std::fs::read_to_string(root().join("README.md"))?;
    for package in &packages {
        assert_eq!(package["registryType"], "mcpb");
        assert_eq!(package["version"], json!(version));
        assert_eq!(package["transport"], json!({"type": "stdio"}));
        let id = package["identifier"].as_str().unwrap_or_default();
        let asset = format!("{repo}/releases/download/v{version}/review-mcp-{version}-");
        assert!(
            id.starts_with(&asset) && id.ends_with(".mcpb"),
            "identifier {id} is not a release asset {asset}<os>-<arch>.mcpb"
        );
        // Releases write the hash of the bundle they publish (build-mcpb.sh
        // --update-server-json); a CI build is not byte-identical to it, so only the form.
        let sha = package["fileSha256"].as_str().unwrap_or_default();
        assert!(
            sha.len() == 64 && sha.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')),
            "fileSha256 {sha}"
        );
        // Every variable it declares is one the README documents, and the database is one.
        let names: Vec<&str> = package["environmentVariables"]
            .as_array()
            .map(|vs| vs.iter().filter_map(|v| v["name"].as_str()).collect())
            .unwrap_or_default();
        assert!(names.contains(&"REVIEW_MCP_DB_PATH"), "{names:?}");
        for name in names {
            assert!(
                readme.contains(&format!("| `{name}` |")),
                "{name} is not in the README's environment table"
            );
        }
    }
    Ok(())
}

#[test]
fn server_json_update_writes_version_url_and_sha_of_the_bundle() -> Result<()> {
    let dir = TempDir::new("server-json")?;
    let copy = dir.join("server.json");
    std::fs::copy(root().join("server.json"), &copy)?;
    let version = cargo_version()?;
    let id = server_json()?["packages"][0]["identifier"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let asset = id.rsplit('/').next().unwrap_or_default().to_string();
    let bundle = dir.join(&asset);
    std::fs::write(&bundle, b"a bundle")?;
    let status = Command::new("python3")
        .arg(root().join("packaging/mcpb.py"))
        .args(["server-json", "--file"])
        .arg(&copy)
        .args(["--version", &version, "--bundle"])
        .arg(&bundle)
        .stdout(Stdio::null())
        .status()
        .context("running python3 packaging/mcpb.py")?;
    assert!(status.success());
    let updated = read_json(&copy)?;
    assert_eq!(updated["packages"][0]["identifier"], json!(id));
    // sha256 of "a bundle".
    assert_eq!(
        updated["packages"][0]["fileSha256"],
        "cd98c950d629c66548537b4ecd68dab3e8cf59974ba6e40df5a1a7354b39db5f"
    );
    assert!(validation_errors(&updated)?.is_empty());
    Ok(())
}

#[test]
fn bundle_zip_same_stage_twice_is_byte_identical() -> Result<()> {
    let dir = TempDir::new("zip")?;
    let stage = dir.join("stage");
    std::fs::create_dir_all(stage.join("server"))?;
    std::fs::write(stage.join("manifest.json"), b"{}")?;
    std::fs::write(stage.join("server/tool"), b"#!/bin/sh\n")?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            stage.join("server/tool"),
            std::fs::Permissions::from_mode(0o755),
        )?;
    }
    let mut zips = Vec::new();
    for n in 0..2 {
        if n > 0 {
            // The second zip is made in a later second than the first (no sleep after it).
            std::thread::sleep(std::time::Duration::from_millis(1100));
        }
        let out = dir.join(&format!("b{n}.mcpb"));
        let status = Command::new("python3")
            .arg(root().join("packaging/mcpb.py"))
            .args(["zip", "--stage"])
            .arg(&stage)
            .arg("--out")
            .arg(&out)
            .status()?;
        assert!(status.success());
        zips.push(std::fs::read(&out)?);
    }
    assert_eq!(zips[0], zips[1]);
    let unpacked = dir.join("unpacked");
    unpack(&dir.join("b0.mcpb"), &unpacked)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(unpacked.join("server/tool"))?
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    Ok(())
}

/// Issue 23 ("Also"): the bundle had no setting for the author. `user_config.author` is an
/// optional string passed to the server as `REVIEW_MCP_AUTHOR`: filled in, what the server
/// writes carries that name; left empty (a host substitutes nothing), it carries none.
#[test]
fn manifest_passes_the_optional_author_setting_to_the_server() -> Result<()> {
    let dir = TempDir::new("packaging-author")?;
    let manifest = generate_manifest(&dir)?;
    let author = &manifest["user_config"]["author"];
    assert_eq!(author["type"], "string", "{manifest}");
    assert_ne!(author["required"], true, "the author is optional");
    assert!(
        author.get("default").is_none(),
        "no one is the default author"
    );
    let env = manifest["server"]["mcp_config"]["env"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    assert_eq!(env["REVIEW_MCP_AUTHOR"], "${user_config.author}");
    // The same setting in server.json for registry installs.
    let doc = server_json()?;
    for package in doc["packages"].as_array().cloned().unwrap_or_default() {
        let var = package["environmentVariables"].as_array().and_then(|vs| {
            vs.iter()
                .find(|v| v["name"] == "REVIEW_MCP_AUTHOR")
                .cloned()
        });
        let var = var.ok_or_else(|| anyhow!("server.json: no REVIEW_MCP_AUTHOR"))?;
        assert_ne!(var["isRequired"], true);
    }

    let home = dir.join("home");
    let artifact = json!({"revision": REVISION, "format": "step", "uri": "/work/bracket.step"});
    for (name, want) in [("Ada Lovelace", Some("Ada Lovelace")), ("", None)] {
        let mut user_config = Map::new();
        user_config.insert("database".into(), json!(dir.join("review.db")));
        user_config.insert("author".into(), json!(name));
        let mut cmd = Command::new(binary());
        cmd.env_clear().current_dir(dir.path());
        for (var, value) in &env {
            let value = substitute(
                value.as_str().unwrap_or_default(),
                dir.path(),
                &home,
                &user_config,
            );
            cmd.env(var, value);
        }
        let answers = exchange(
            cmd,
            &[
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "remember", "arguments": {"artifact": artifact, "entity_ids": [],
                    "name": format!("feature {name}"), "note": "n"}}}),
            ],
        )?;
        let record = &answers[&1]["structuredContent"]["record"];
        assert_eq!(record["author"].as_str(), want, "{name:?}: {}", answers[&1]);
    }
    Ok(())
}

/// Runs `packaging/notices.py` (on the repository's Cargo.lock, or on a `cargo metadata`
/// file) into `out`; returns its exit status and stderr.
fn run_notices(out: &Path, metadata: Option<&Path>) -> Result<(bool, String)> {
    let mut cmd = Command::new("python3");
    cmd.arg(root().join("packaging/notices.py"))
        .arg("--out")
        .arg(out)
        .arg("--manifest-path")
        .arg(root().join("Cargo.toml"));
    if let Some(metadata) = metadata {
        cmd.arg("--metadata").arg(metadata);
    }
    let got = cmd
        .output()
        .context("running python3 packaging/notices.py")?;
    Ok((
        got.status.success(),
        String::from_utf8_lossy(&got.stderr).into_owned(),
    ))
}

/// The crates whose code is linked into the binary, by cargo's own account: `cargo tree`
/// on normal edges without procedural macros, for this machine ("name version", sorted).
fn linked_by_cargo_tree() -> Result<Vec<String>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root())
        .args([
            "tree",
            "--locked",
            "--offline",
            "-e",
            "normal,no-proc-macro",
        ])
        .args(["--prefix", "none", "-f", "{p}"])
        .output()
        .context("running cargo tree")?;
    ensure!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut crates: Vec<String> = String::from_utf8(out.stdout)?
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next()?;
            let version = words.next()?.strip_prefix('v')?;
            (name != "review-mcp").then(|| format!("{name} {version}"))
        })
        .collect();
    crates.sort();
    crates.dedup();
    Ok(crates)
}

/// The crates whose source paths the binary itself holds (panic locations name the file of
/// the crate's code that was compiled in): `…/registry/src/<index>/<name>-<version>/`.
fn crates_named_in_binary(bin: &Path) -> Result<Vec<String>> {
    let bytes = std::fs::read(bin)?;
    let needle = b"/registry/src/";
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(pos) = bytes[at..].windows(needle.len()).position(|w| w == needle) {
        let start = at + pos + needle.len();
        at = start;
        // <index>/<crate>-<version>/
        let rest = &bytes[start..bytes.len().min(start + 300)];
        let mut parts = rest.split(|b| *b == b'/');
        let (Some(_index), Some(dir)) = (parts.next(), parts.next()) else {
            continue;
        };
        // The name ends where a crate directory's characters do (a string table may hold
        // the path without its trailing '/', followed by a NUL and another string).
        let len = dir
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || b"_.+-".contains(b)))
            .unwrap_or(dir.len());
        let Ok(dir) = std::str::from_utf8(&dir[..len]) else {
            continue;
        };
        // The version starts after the last '-' followed by a digit.
        let Some(split) = dir
            .char_indices()
            .filter(|&(i, c)| c == '-' && dir[i + 1..].starts_with(|d: char| d.is_ascii_digit()))
            .map(|(i, _)| i)
            .next_back()
        else {
            continue;
        };
        found.push(format!("{} {}", &dir[..split], &dir[split + 1..]));
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// The "name version" of every crate THIRD_PARTY_NOTICES lists, each with a license line and
/// at least one license text it points to.
fn crates_in_notices(text: &str) -> Result<Vec<String>> {
    let list = text
        .split("\nCrates\n------\n\n")
        .nth(1)
        .and_then(|rest| rest.split("\nSQLite\n------\n").next())
        .and_then(|rest| rest.split("\nLicense texts\n-------------\n").next())
        .ok_or_else(|| anyhow!("THIRD_PARTY_NOTICES has no Crates section"))?;
    let mut crates = Vec::new();
    for entry in list.split("\n\n").filter(|e| !e.trim().is_empty()) {
        let mut lines = entry.lines();
        let head = lines.next().unwrap_or_default().to_string();
        let rest: Vec<&str> = lines.collect();
        ensure!(
            rest.iter().any(|l| l.starts_with("  license: ")),
            "{head}: no license line"
        );
        let files = rest
            .iter()
            .find_map(|l| l.strip_prefix("  files: "))
            .ok_or_else(|| anyhow!("{head}: no license file"))?;
        for reference in files.split(", ") {
            let n = reference
                .rsplit_once("[text ")
                .and_then(|(_, n)| n.strip_suffix(']'))
                .ok_or_else(|| anyhow!("{head}: bad reference {reference}"))?;
            ensure!(
                text.contains(&format!("\n[text {n}] of ")),
                "{head}: its text {n} is not in the file"
            );
        }
        crates.push(head);
    }
    Ok(crates)
}

/// THIRD_PARTY_NOTICES names every crate linked into the binary, by two accounts that do not
/// share the generator's code: cargo tree's, and the crate source paths in this build's binary.
/// It carries SQLite's dedication and the Rust standard library's notices, and two runs are
/// byte-identical.
#[test]
fn notices_name_every_crate_linked_into_the_binary_and_sqlite() -> Result<()> {
    let dir = TempDir::new("notices")?;
    let (a, b) = (dir.join("a"), dir.join("b"));
    for out in [&a, &b] {
        let (ok, stderr) = run_notices(out, None)?;
        ensure!(ok, "packaging/notices.py failed: {stderr}");
    }
    let text = std::fs::read_to_string(&a)?;
    assert_eq!(text.as_bytes(), std::fs::read(&b)?, "two runs differ");
    assert!(
        !text.contains(&*root().to_string_lossy()) && !text.contains("/registry/src/"),
        "the notices hold a path of this machine"
    );
    let listed = crates_in_notices(&text)?;
    let missing = |want: &[String]| -> Vec<String> {
        want.iter()
            .filter(|c| !listed.contains(c))
            .cloned()
            .collect()
    };
    let tree = linked_by_cargo_tree()?;
    assert!(tree.len() > 50, "cargo tree found only {tree:?}");
    assert_eq!(
        missing(&tree),
        Vec::<String>::new(),
        "linked, not in the notices"
    );
    let in_binary = crates_named_in_binary(&binary())?;
    for known in [
        "serde_json",
        "rusqlite",
        "libsqlite3-sys",
        "url",
        "jsonschema",
    ] {
        assert!(
            in_binary
                .iter()
                .any(|c| c.starts_with(&format!("{known} "))),
            "the binary names no {known}: {in_binary:?}"
        );
    }
    assert_eq!(
        missing(&in_binary),
        Vec::<String>::new(),
        "in the binary, not in the notices"
    );
    for want in [
        "\nSQLite\n------\n",
        "The author disclaims copyright to this source code.",
        "May you share freely, never taking more than you give.",
        "\nThe Rust standard library\n",
        "The Rust Standard Library is dual-licensed under Apache 2.0 and MIT terms.",
    ] {
        assert!(text.contains(want), "no {want:?} in the notices");
    }
    Ok(())
}

/// Which crates are listed: those reached by normal dependencies, and a procedural macro but
/// not its own dependencies; never a dev- or build-dependency. A crate with no license file
/// stops the generator, naming it and what to do, and writes nothing.
#[test]
fn notices_follow_linked_edges_and_refuse_a_crate_without_a_license_file() -> Result<()> {
    let dir = TempDir::new("notices-rule")?;
    let package = |name: &str, kind: &str, license_file: bool| -> Result<Value> {
        let src = dir.join(name);
        std::fs::create_dir_all(&src)?;
        if license_file {
            std::fs::write(src.join("LICENSE-MIT"), format!("MIT text of {name}\n"))?;
        } else if src.join("LICENSE-MIT").exists() {
            std::fs::remove_file(src.join("LICENSE-MIT"))?;
        }
        Ok(json!({
            "name": name, "version": "1.0.0", "id": format!("{name}-id"),
            "license": "MIT", "license_file": null, "repository": null,
            "manifest_path": src.join("Cargo.toml"),
            "targets": [{"kind": [kind]}],
        }))
    };
    let dep = |name: &str, kind: Value| json!({"pkg": format!("{name}-id"), "dep_kinds": [{"kind": kind, "target": null}]});
    let node = |name: &str, deps: Vec<Value>| json!({"id": format!("{name}-id"), "deps": deps});
    let metadata = |unlicensed: &str| -> Result<Value> {
        let names = [
            ("root", "bin"),
            ("linked", "lib"),
            ("deep", "lib"),
            ("macro", "proc-macro"),
            ("macro-helper", "lib"),
            ("dev-only", "lib"),
            ("build-only", "lib"),
        ];
        let packages = names
            .iter()
            .map(|(n, k)| package(n, k, *n != unlicensed))
            .collect::<Result<Vec<_>>>()?;
        Ok(json!({
            "packages": packages,
            "resolve": {"root": "root-id", "nodes": [
                node("root", vec![dep("linked", Value::Null), dep("macro", Value::Null),
                                  dep("dev-only", json!("dev")), dep("build-only", json!("build"))]),
                node("linked", vec![dep("deep", Value::Null)]),
                node("deep", vec![]),
                node("macro", vec![dep("macro-helper", Value::Null)]),
                node("macro-helper", vec![]),
                node("dev-only", vec![]),
                node("build-only", vec![]),
            ]},
        }))
    };
    let meta = dir.join("metadata.json");
    std::fs::write(&meta, metadata("")?.to_string())?;
    let out = dir.join("THIRD_PARTY_NOTICES");
    let (ok, stderr) = run_notices(&out, Some(&meta))?;
    ensure!(ok, "{stderr}");
    let text = std::fs::read_to_string(&out)?;
    assert_eq!(
        crates_in_notices(&text)?,
        ["deep 1.0.0", "linked 1.0.0", "macro 1.0.0"]
    );
    assert!(text.contains("MIT text of deep\n"));
    assert!(
        !text.contains("\nSQLite\n"),
        "no SQLite without libsqlite3-sys"
    );

    std::fs::remove_file(&out)?;
    std::fs::write(&meta, metadata("deep")?.to_string())?;
    let (ok, stderr) = run_notices(&out, Some(&meta))?;
    assert!(!ok, "a crate without a license file was let through");
    assert!(
        stderr.contains("deep 1.0.0") && stderr.contains("packaging/licenses/<crate>-<version>/"),
        "the error names neither the crate nor what to do: {stderr}"
    );
    assert!(!out.exists(), "a refused run wrote the notices");
    Ok(())
}
