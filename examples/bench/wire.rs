//! The host side of the pipe: spawning the server, one timed request at a time, pipelined
//! seeding, and the statistics of a set of timings.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

/// The first line a legacy host sends.
pub fn initialize_line(id: u64) -> String {
    let msg = json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "review-mcp-bench", "version": "0"}
        }
    });
    format!("{msg}\n")
}

/// The first line a 2026-07-28 host sends.
pub fn discover_line(id: u64) -> String {
    let msg = json!({
        "jsonrpc": "2.0", "id": id, "method": "server/discover",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "review-mcp-bench", "version": "0"}
        }}
    });
    format!("{msg}\n")
}

/// A running server and the host's ends of its pipes.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    line: String,
    notifications: u64,
}

fn command(bin: &Path, db: &Path) -> Command {
    let mut c = Command::new(bin);
    c.env("REVIEW_MCP_DB_PATH", db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // Logs stay at the default level (one line per tool call), as a host runs the
        // server; the host would keep them, we throw them away.
        .stderr(Stdio::null());
    c
}

impl Server {
    pub fn spawn(bin: &Path, db: &Path) -> Result<Server> {
        let mut child = command(bin, db)
            .spawn()
            .with_context(|| format!("spawning {}", bin.display()))?;
        let stdin = child.stdin.take().context("no stdin pipe")?;
        let stdout = child.stdout.take().context("no stdout pipe")?;
        Ok(Server {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            next_id: 100,
            line: String::new(),
            notifications: 0,
        })
    }

    /// Spawns, sends `first`, and times spawn-to-answer; then closes stdin and times the exit.
    pub fn cold_start(bin: &Path, db: &Path, first: &str) -> Result<(Duration, Duration)> {
        let t = Instant::now();
        let mut s = Server::spawn(bin, db)?;
        s.stdin()?.write_all(first.as_bytes())?;
        s.read_line()?;
        let to_answer = t.elapsed();
        if s.line.contains("\"error\"") {
            bail!("the first answer is an error: {}", s.line.trim_end());
        }
        let exit = s.close()?;
        Ok((to_answer, exit))
    }

    fn stdin(&mut self) -> Result<&mut ChildStdin> {
        self.stdin.as_mut().context("stdin already closed")
    }

    /// Reads the next answer line, passing over notifications (a legacy session is told of
    /// every change to the resource list), as a host reads past them. Each notification
    /// passed over is counted in [`Server::notifications`].
    fn read_line(&mut self) -> Result<()> {
        loop {
            self.line.clear();
            let n = self.stdout.read_line(&mut self.line)?;
            if n == 0 {
                bail!("the server closed stdout (did it crash? run it by hand to see its stderr)");
            }
            // Answers carry an id before their method-less body; a notification is
            // `{"jsonrpc":"2.0","method":...` (members in sorted order).
            if !self.line.starts_with("{\"jsonrpc\":\"2.0\",\"method\":") {
                return Ok(());
            }
            self.notifications += 1;
        }
    }

    /// How many notifications the answers read so far were interleaved with.
    pub fn notifications(&self) -> u64 {
        self.notifications
    }

    /// The legacy handshake a host performs before anything else.
    pub fn initialize(&mut self) -> Result<()> {
        let line = initialize_line(1);
        self.stdin()?.write_all(line.as_bytes())?;
        self.read_line()?;
        self.stdin()?
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")?;
        Ok(())
    }

    fn request_line(&mut self, method: &str, params: Value) -> (u64, String) {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, format!("{msg}\n"))
    }

    /// One timed request: from writing its line to having read the whole answer line. The
    /// line is built before and the answer parsed after the clock.
    pub fn round_trip_method(&mut self, method: &str, params: Value) -> Result<(Duration, Value)> {
        let (id, line) = self.request_line(method, params);
        let t = Instant::now();
        self.stdin()?.write_all(line.as_bytes())?;
        self.read_line()?;
        let elapsed = t.elapsed();
        let answer: Value = serde_json::from_str(&self.line)
            .with_context(|| format!("answer is not JSON: {}", self.line.trim_end()))?;
        if answer.get("id") != Some(&json!(id)) {
            bail!("answer for another id: {}", self.line.trim_end());
        }
        if let Some(e) = answer.get("error") {
            bail!("{method} answered an error: {e}");
        }
        let result = answer.get("result").cloned().context("no result")?;
        Ok((elapsed, result))
    }

    /// Timed `tools/call`s sent back to back: every request line is built first, and each is
    /// written the moment the previous answer has been read, so the server never sits idle
    /// between them (the answers are checked after the clock, all of them). Returns the
    /// round trips and the answers' total size in bytes.
    pub fn calls_back_to_back(
        &mut self,
        calls: Vec<(&'static str, Value)>,
    ) -> Result<(Vec<Duration>, usize)> {
        let requests: Vec<(&str, u64, String)> = calls
            .into_iter()
            .map(|(tool, args)| {
                let (id, line) =
                    self.request_line("tools/call", json!({"name": tool, "arguments": args}));
                (tool, id, line)
            })
            .collect();
        let mut times = Vec::with_capacity(requests.len());
        let mut answers = Vec::with_capacity(requests.len());
        for (_, _, line) in &requests {
            let t = Instant::now();
            self.stdin()?.write_all(line.as_bytes())?;
            self.read_line()?;
            times.push(t.elapsed());
            // A copy, so the line buffer keeps its capacity for the next answer.
            answers.push(self.line.clone());
        }
        let mut bytes = 0;
        for ((tool, id, _), line) in requests.iter().zip(&answers) {
            bytes += line.len();
            let answer: Value = serde_json::from_str(line)
                .with_context(|| format!("answer is not JSON: {}", line.trim_end()))?;
            if answer.get("id") != Some(&json!(id)) {
                bail!("answer for another id: {}", line.trim_end());
            }
            let result = answer.get("result").context("no result")?;
            check_tool_result(tool, result)?;
        }
        Ok((times, bytes))
    }

    /// Writes one line as it is (a notification: nothing is read back).
    pub fn send(&mut self, line: &str) -> Result<()> {
        self.stdin()?.write_all(line.as_bytes())?;
        Ok(())
    }

    /// Reads lines until one starts with `prefix` (for a notification that is not an
    /// answer, such as a listen stream's acknowledgement).
    pub fn read_until(&mut self, prefix: &str) -> Result<()> {
        loop {
            self.line.clear();
            if self.stdout.read_line(&mut self.line)? == 0 {
                bail!("the server closed stdout");
            }
            if self.line.starts_with(prefix) {
                return Ok(());
            }
        }
    }

    /// The length of the last answer line, in bytes (its newline included).
    pub fn last_line_len(&self) -> usize {
        self.line.len()
    }

    /// A timed `tools/call`; returns its `structuredContent`. A tool error stops the benchmark:
    /// figures of failing calls would be meaningless.
    pub fn call(&mut self, tool: &str, args: Value) -> Result<(Duration, Value)> {
        let (t, result) =
            self.round_trip_method("tools/call", json!({"name": tool, "arguments": args}))?;
        check_tool_result(tool, &result)?;
        let structured = result
            .get("structuredContent")
            .cloned()
            .unwrap_or(Value::Null);
        Ok((t, structured))
    }

    /// The names in `tools/list` (first page is enough: this server has a handful).
    pub fn tool_names(&mut self) -> Result<Vec<String>> {
        let (_, result) = self.round_trip_method("tools/list", json!({}))?;
        Ok(result
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Sends every `tools/call` line without waiting, from a writer thread, while this thread
    /// reads and checks every answer. A host never does this; it only makes seeding fast.
    pub fn pipeline(&mut self, calls: Vec<String>) -> Result<()> {
        let stdin = self.stdin.take().context("stdin already closed")?;
        let count = calls.len();
        let first_id = self.next_id;
        self.next_id += count as u64;
        let writer = thread::spawn(move || -> std::io::Result<ChildStdin> {
            let mut w = BufWriter::with_capacity(1 << 16, stdin);
            for (k, args) in calls.iter().enumerate() {
                let id = first_id + k as u64;
                writeln!(
                    w,
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{args}}}"
                )?;
            }
            w.flush()?;
            w.into_inner().map_err(|e| e.into_error())
        });
        let mut failure = None;
        for _ in 0..count {
            self.read_line()?;
            if failure.is_none() {
                let answer: Value = serde_json::from_str(&self.line)?;
                let checked = match answer.get("result") {
                    Some(r) => check_tool_result("seeding call", r),
                    None => Err(anyhow!("seeding call failed: {}", self.line.trim_end())),
                };
                failure = checked.err();
            }
        }
        let stdin = writer
            .join()
            .map_err(|_| anyhow!("the seeding writer panicked"))??;
        self.stdin = Some(stdin);
        match failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Peak resident set size of the server process so far, in bytes.
    pub fn vm_hwm(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let kib = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok())
            .context("no VmHWM in /proc/<pid>/status")?;
        Ok(kib * 1024)
    }

    /// CPU time (user + system) the server process has used so far.
    pub fn cpu_time(&self) -> Result<Duration> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))?;
        // Fields after the command name (which may hold spaces) in parentheses: utime and
        // stime are the 12th and 13th, in clock ticks (100 per second on Linux).
        let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks = |i: usize| -> Result<u64> {
            Ok(fields
                .get(i)
                .context("short /proc/<pid>/stat")?
                .parse::<u64>()?)
        };
        let total = ticks(11)? + ticks(12)?;
        Ok(Duration::from_millis(total * 10))
    }

    /// Closes stdin (the host's "we are done") and times until the process has exited.
    pub fn close(mut self) -> Result<Duration> {
        let t = Instant::now();
        drop(self.stdin.take());
        let status = self.child.wait()?;
        let elapsed = t.elapsed();
        if !status.success() {
            bail!("the server exited with {status}");
        }
        Ok(elapsed)
    }
}

fn check_tool_result(tool: &str, result: &Value) -> Result<()> {
    if result.get("isError") == Some(&Value::Bool(true)) {
        let text = result
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .unwrap_or("(no text)");
        bail!("{tool} answered isError: {text}");
    }
    Ok(())
}

/// A set of timings.
#[derive(Clone)]
pub struct Stats {
    sorted: Vec<Duration>,
}

impl Stats {
    pub fn new(mut times: Vec<Duration>) -> Stats {
        times.sort_unstable();
        Stats { sorted: times }
    }

    /// The value below which `q` of the samples fall (nearest rank).
    fn quantile(&self, q: f64) -> Duration {
        if self.sorted.is_empty() {
            return Duration::ZERO;
        }
        let rank = ((q * self.sorted.len() as f64).ceil() as usize).clamp(1, self.sorted.len());
        self.sorted.get(rank - 1).copied().unwrap_or_default()
    }

    pub fn p50(&self) -> Duration {
        self.quantile(0.5)
    }

    pub fn p99(&self) -> Duration {
        self.quantile(0.99)
    }

    pub fn max(&self) -> Duration {
        self.sorted.last().copied().unwrap_or_default()
    }
}
