//! A client for the real `review-mcp` binary over stdio pipes: spawn it on a database file,
//! open a legacy session, call tools, and read the answers back.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};

use anyhow::{Context, bail};
use serde_json::{Value, json};

/// The binary cargo built for this test target.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_review-mcp"))
}

/// A `Command` for the server on `db` (an absolute path), run from the temp dir so nothing
/// lands in the checkout. Logs at `warn`: a line per call at `info` is noise in thousands of
/// calls.
pub fn command(db: &Path) -> Command {
    command_running(binary(), db)
}

/// [`command`]'s environment around `program`: another copy of the binary, or a wrapper
/// whose arguments the caller adds (`env`, then the binary).
pub fn command_running(program: impl AsRef<std::ffi::OsStr>, db: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("REVIEW_MCP_DB_PATH", db)
        .env("MCP_LOG_LEVEL", "warn")
        .current_dir(std::env::temp_dir());
    cmd
}

/// [`command`] for a server the test stops with `signal` (TERM, INT, HUP or KILL). A signal
/// this process ignores (SIGHUP under nohup, SIGINT in a background job of a shell without
/// job control) is ignored by the server it starts too, as POSIX has a program keep an
/// ignored signal: the server then starts with the signal's default action, as a host starts
/// it (`env --default-signal`), so that the test delivers it wherever it runs.
pub fn command_taking(db: &Path, signal: &str) -> Command {
    if !ignored_here(signal) {
        return command(db);
    }
    let mut cmd = command_running("env", db);
    cmd.arg(format!("--default-signal={signal}")).arg(binary());
    cmd
}

/// Whether this process ignores `signal` (HUP, INT or TERM), by the `SigIgn` mask of
/// `/proc/self/status`: a child inherits an ignored signal.
fn ignored_here(signal: &str) -> bool {
    let number = match signal {
        "HUP" => 1,
        "INT" => 2,
        "TERM" => 15,
        _ => return false,
    };
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status.lines().find_map(|l| {
                l.strip_prefix("SigIgn:")
                    .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            })
        })
        .is_some_and(|mask| mask & (1 << (number - 1)) != 0)
}

/// The `initialize` request and `initialized` notification that open a 2025-06-18 session
/// (a revision with `structuredContent`).
pub fn handshake_lines() -> [String; 2] {
    [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "reliability-harness", "version": "0"}
        }})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ]
}

pub fn tool_call_line(id: u64, tool: &str, args: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": args}})
    .to_string()
}

/// What a `tools/call` came back with.
#[derive(Debug, Clone)]
pub enum Answer {
    /// A successful result: its `structuredContent`.
    Ok(Value),
    /// An `isError` result: its text.
    ToolError(String),
    /// A JSON-RPC error: code and message.
    RpcError(i64, String),
}

impl Answer {
    /// Reads the answer to a `tools/call` from its response message.
    pub fn from_response(response: &Value) -> Answer {
        if let Some(err) = response.get("error") {
            return Answer::RpcError(
                err["code"].as_i64().unwrap_or(0),
                err["message"].as_str().unwrap_or_default().to_string(),
            );
        }
        let result = &response["result"];
        let text = result["content"]
            .as_array()
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        if result["isError"] == json!(true) {
            return Answer::ToolError(text);
        }
        match result.get("structuredContent") {
            Some(s) => Answer::Ok(s.clone()),
            None => Answer::ToolError(format!("a success without structuredContent: {result}")),
        }
    }

    pub fn is_ok(&self) -> bool {
        matches!(self, Answer::Ok(_))
    }

    /// The structured result, or an error saying what came instead.
    pub fn ok(self) -> anyhow::Result<Value> {
        match self {
            Answer::Ok(v) => Ok(v),
            Answer::ToolError(t) => bail!("tool answered isError: {t}"),
            Answer::RpcError(c, m) => bail!("JSON-RPC error {c}: {m}"),
        }
    }
}

/// One running server with a synchronous client: one request, then its answer.
pub struct Server {
    // Options so that `into_parts` can move them out of a type with a `Drop`.
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    stdout: Option<BufReader<ChildStdout>>,
    next_id: u64,
    stderr_path: PathBuf,
    notifications: Vec<Value>,
}

impl Server {
    /// Starts the server on `db` and opens a session. Its stderr goes to `<db>.stderr.<n>` so
    /// a full pipe never blocks it and a failure can be read afterwards.
    pub fn start(db: &Path) -> anyhow::Result<Server> {
        Server::start_logging_to(db, &stderr_path_for(db))
    }

    /// [`Server::start`] for a server that writes as `author` (`REVIEW_MCP_AUTHOR`).
    pub fn start_as(db: &Path, author: &str) -> anyhow::Result<Server> {
        let mut cmd = command(db);
        cmd.env("REVIEW_MCP_AUTHOR", author);
        Server::open(Server::spawn_command(cmd, &stderr_path_for(db))?)
    }

    /// A session of the server `cmd` runs (from [`command`], changed, or a wrapper such as
    /// `strace` around [`binary`]), stderr to `stderr_path`.
    pub fn start_command(cmd: Command, stderr_path: &Path) -> anyhow::Result<Server> {
        Server::open(Server::spawn_command(cmd, stderr_path)?)
    }

    /// [`Server::start`] with stderr written to `stderr_path`.
    pub fn start_logging_to(db: &Path, stderr_path: &Path) -> anyhow::Result<Server> {
        Server::open(Server::spawn(db, stderr_path)?)
    }

    /// Opens the session of a spawned server.
    fn open(mut server: Server) -> anyhow::Result<Server> {
        let [init, initialized] = handshake_lines();
        if let Err(e) = server.send(&init) {
            // The server exited at start: what it said is the reason.
            std::thread::sleep(std::time::Duration::from_millis(100));
            bail!("cannot send initialize ({e}); stderr: {}", server.stderr());
        }
        let answer = server.receive()?;
        anyhow::ensure!(
            answer.get("result").is_some(),
            "initialize failed: {answer}; stderr: {}",
            server.stderr()
        );
        server.send(&initialized)?;
        Ok(server)
    }

    /// Spawns the server without a handshake.
    pub fn spawn(db: &Path, stderr_path: &Path) -> anyhow::Result<Server> {
        Server::spawn_command(command(db), stderr_path)
    }

    fn spawn_command(mut cmd: Command, stderr_path: &Path) -> anyhow::Result<Server> {
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut tries = 0;
        let mut child = loop {
            cmd.stderr(File::create(stderr_path)?);
            match cmd.spawn() {
                // ETXTBSY: a binary the test just copied (channel_terminal's bundle) is still
                // open for writing in a child another test thread forked and has not yet
                // exec'd (the descriptor closes on exec): the copy is done, so spawn again.
                Err(e) if e.raw_os_error() == Some(26) && tries < 50 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => {
                    break other.with_context(|| format!("spawning {}", binary().display()))?;
                }
            }
        };
        let stdin = child.stdin.take().context("no stdin pipe")?;
        let stdout = BufReader::new(child.stdout.take().context("no stdout pipe")?);
        Ok(Server {
            child: Some(child),
            stdin: Some(stdin),
            stdout: Some(stdout),
            next_id: 1,
            stderr_path: stderr_path.to_path_buf(),
            notifications: Vec::new(),
        })
    }

    pub fn send(&mut self, line: &str) -> anyhow::Result<()> {
        let stdin = self.stdin.as_mut().context("stdin already closed")?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()?;
        Ok(())
    }

    /// The next message that is not a notification; notifications read on the way are kept
    /// (see [`Server::take_notifications`]), as a host reads past them.
    pub fn receive(&mut self) -> anyhow::Result<Value> {
        loop {
            let message = self.receive_any()?;
            if message.get("method").is_some() && message.get("id").is_none() {
                self.notifications.push(message);
                continue;
            }
            return Ok(message);
        }
    }

    /// The notifications read past so far (oldest first), taken.
    pub fn take_notifications(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.notifications)
    }

    /// The next message, whatever it is.
    pub fn receive_any(&mut self) -> anyhow::Result<Value> {
        let mut line = String::new();
        let stdout = self.stdout.as_mut().context("stdout already taken")?;
        let n = stdout.read_line(&mut line)?;
        if n == 0 {
            bail!("the server closed its output; stderr: {}", self.stderr());
        }
        Ok(serde_json::from_str(&line)?)
    }

    /// Sends a request and returns the response message (checked to carry the same id).
    pub fn request(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        )?;
        let response = self.receive()?;
        anyhow::ensure!(
            response["id"] == json!(id),
            "answer to request {id} carries id {}",
            response["id"]
        );
        Ok(response)
    }

    pub fn call(&mut self, tool: &str, args: Value) -> anyhow::Result<Answer> {
        let response = self.request("tools/call", json!({"name": tool, "arguments": args}))?;
        Ok(Answer::from_response(&response))
    }

    /// Follows `next_cursor` from the first page to the last and returns every item of
    /// `key` (`records` or `decisions`).
    pub fn page_all(&mut self, tool: &str, args: Value, key: &str) -> anyhow::Result<Vec<Value>> {
        let mut all = Vec::new();
        let mut args = args;
        loop {
            let page = self.call(tool, args.clone())?.ok()?;
            let items = page[key]
                .as_array()
                .with_context(|| format!("{tool} answered without {key}: {page}"))?;
            all.extend(items.iter().cloned());
            match page.get("next_cursor").and_then(Value::as_str) {
                Some(c) => args["cursor"] = json!(c),
                None => return Ok(all),
            }
        }
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    /// Closes stdin (EOF: the server's normal shutdown) and waits for it to exit.
    pub fn close(mut self) -> anyhow::Result<ExitStatus> {
        drop(self.stdin.take());
        let mut child = self.child.take().context("child already taken")?;
        Ok(child.wait()?)
    }

    /// Gives up the pieces, for a caller that writes and reads on separate threads.
    pub fn into_parts(mut self) -> anyhow::Result<(Child, ChildStdin, BufReader<ChildStdout>)> {
        let stdin = self.stdin.take().context("stdin already closed")?;
        let stdout = self.stdout.take().context("stdout already taken")?;
        let child = self.child.take().context("child already taken")?;
        Ok((child, stdin, stdout))
    }
}

pub fn stderr_path_for(db: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let mut name = db.file_name().map(|s| s.to_os_string()).unwrap_or_default();
    name.push(format!(".stderr.{n}"));
    db.with_file_name(name)
}

impl Drop for Server {
    /// A test that fails half-way must not leave a server behind.
    fn drop(&mut self) {
        drop(self.stdin.take());
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
