//! `review-mcp review` driven in a pseudo-terminal, as a person would type (python3's `pty`
//! module): the engineer's terminal channel in the tests.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, ensure};

use super::client::binary;

/// Drives a command in a pseudo-terminal: answers each prompt (`Verdict? `, `Reason (`,
/// `Meaning: `) with the next of the answers given, and closes the input (Ctrl-D) when they
/// run out. Prints what the terminal showed; exits with the command's status. With
/// `pipe-stdout`, the command's stdout is a pipe instead (stdin stays the terminal).
const DRIVER: &str = r#"
import json, os, pty, select, subprocess, sys, time
mode, answers, cmd = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
master, slave = pty.openpty()
out_to = subprocess.PIPE if mode == "pipe-stdout" else slave
p = subprocess.Popen(cmd, stdin=slave, stdout=out_to, stderr=slave, close_fds=True)
os.close(slave)
seen, answered = b"", 0
prompts = (b"Verdict? ", b"Reason (", b"Meaning: ")
deadline = time.time() + 60
while time.time() < deadline:
    r, _, _ = select.select([master], [], [], 0.1)
    if r:
        try:
            data = os.read(master, 65536)
        except OSError:
            data = b""
        if not data:
            break
        seen += data
    elif p.poll() is not None:
        break
    asked = sum(seen.count(x) for x in prompts)
    if asked > answered and seen.rstrip(b" ").endswith(b":"):
        if answered < len(answers):
            os.write(master, (answers[answered] + "\n").encode())
        else:
            os.write(master, b"\x04")
        answered += 1
else:
    p.kill()
    sys.stderr.write("the command did not end within 60 s\n")
if out_to == subprocess.PIPE:
    seen += p.stdout.read()
code = p.wait()
sys.stdout.buffer.write(seen)
sys.exit(code)
"#;

/// Runs `review-mcp --db DB [--author NAME] review TARGET` in a pseudo-terminal with
/// `answers`; what it showed and whether it succeeded.
pub fn in_terminal(
    db: &Path,
    author: Option<&str>,
    target: &str,
    answers: &[&str],
    mode: &str,
) -> Result<(String, bool)> {
    let mut cmd = Command::new("python3");
    cmd.arg("-c")
        .arg(DRIVER)
        .arg(mode)
        .arg(serde_json::to_string(answers)?)
        .arg(binary())
        .arg("--db")
        .arg(db);
    if let Some(a) = author {
        cmd.arg("--author").arg(a);
    }
    let out = cmd
        .arg("review")
        .arg(target)
        .env("MCP_LOG_LEVEL", "off")
        .env_remove("REVIEW_MCP_AUTHOR")
        .stdin(Stdio::null())
        .output()
        .context("python3 (its pty module drives the terminal) must be installed")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(
        !stderr.contains("Traceback"),
        "the pty driver failed: {stderr}"
    );
    Ok((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.success(),
    ))
}
