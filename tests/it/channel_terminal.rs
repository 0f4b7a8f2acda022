//! `review-mcp review`, the engineer's verdicts in their own terminal (issue 28), run in a
//! pseudo-terminal (python3's `pty` module drives it as a person would type): accept, reject
//! with a reason and a meaning, quit half-way (what was answered is recorded, the rest is
//! not); it refuses to run without a terminal on stdin and stdout; a server on the same file
//! announces what it wrote as any other process's write; stored strings reach the terminal
//! escaped.

use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use serde_json::{Value, json};

use crate::support::client::{Server, binary};
use crate::support::pty::in_terminal;
use crate::support::{TempDir, artifact, revision};

const SEED: &str = "channel-terminal";
const URI: &str = "/parts/bracket.step";

/// A decision "bore" with three items (one of them carrying a terminal escape in its
/// evidence, as a model or a synced folder could store it), recorded by a server.
fn remember(server: &mut Server) -> Result<Value> {
    let basis = json!([
        {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied",
         "evidence": "reamed\u{1b}[2J\u{1b}]0;owned\u{7} to 12.01"},
        {"requirement": "Chamfer 0.5x45", "source": "drawing", "state": "satisfied"},
        {"requirement": "Thread M6", "source": "model-pmi", "state": "unresolved",
         "question": "cut or rolled?"}
    ]);
    bore_at(server, URI, basis)
}

/// The decision "bore" on hold at revision `SEED` of `uri`, with `basis`.
fn bore_at(server: &mut Server, uri: &str, basis: Value) -> Result<Value> {
    server
        .call(
            "remember_decision",
            json!({"artifact": artifact(SEED, uri), "subject": "bore", "disposition": "hold",
                   "basis": basis}),
        )?
        .ok()
}

/// The review at revision `SEED` carried on, unchanged, to revision "channel-terminal-2".
fn carried_to_two(server: &mut Server) -> Result<()> {
    server
        .call(
            "carry_forward",
            json!({"from": artifact(SEED, URI), "to": artifact("channel-terminal-2", URI), "map": []}),
        )?
        .ok()?;
    Ok(())
}

/// How the commands the binary prints name it: by its path, since the test's binary is on no
/// `PATH`.
fn by_path() -> String {
    binary()
        .canonicalize()
        .unwrap_or_else(|_| binary())
        .display()
        .to_string()
}

/// The terminal command a server started with `path` as its `PATH` gives a host without
/// elicitation, in `request_verdicts`' refusal.
fn command_given_with_path(db: &std::path::Path, path: &std::ffi::OsStr) -> Result<String> {
    let mut cmd = crate::support::client::command(db);
    cmd.env("PATH", path);
    command_given(cmd, db, || Ok(()))
}

/// The terminal command the server `cmd` on `db` gives, `meanwhile` done after the server
/// answered its first call and before it is asked.
fn command_given(
    cmd: Command,
    db: &std::path::Path,
    meanwhile: impl FnOnce() -> Result<()>,
) -> Result<String> {
    let stderr = db.with_extension("stderr");
    let mut server = Server::start_command(cmd, &stderr)?;
    remember(&mut server)?;
    meanwhile()?;
    let refused = match server.call(
        "request_verdicts",
        json!({"artifact": artifact(SEED, URI), "subject": "bore"}),
    )? {
        crate::support::client::Answer::ToolError(text) => text,
        other => anyhow::bail!("request_verdicts without elicitation answered {other:?}"),
    };
    server.close()?;
    first_code_span(&refused).context("no command")
}

/// The content of the first Markdown code span in `text`, read as CommonMark reads it: the
/// opening run of backticks is closed by the next run of the same length only, and one space
/// is stripped from each end when both ends have one.
fn first_code_span(text: &str) -> Option<String> {
    let runs = |from: usize| {
        let mut i = from;
        std::iter::from_fn(move || {
            let start = i + text[i..].find('`')?;
            let len = text[start..].len() - text[start..].trim_start_matches('`').len();
            i = start + len;
            Some((start, len))
        })
    };
    let (open, fence) = runs(0).next()?;
    let inner = open + fence;
    let (close, _) = runs(inner).find(|&(_, len)| len == fence)?;
    let content = &text[inner..close];
    let padded = content.len() > 2 && content.starts_with(' ') && content.ends_with(' ');
    Some(match padded {
        true => content[1..content.len() - 1].to_string(),
        false => content.to_string(),
    })
}

/// Regression (found by cliout): the terminal command in a text answer was put in a code span
/// of one backtick, so a backtick in the server's `--author` (or in its database's path) ended
/// the span there: the reader (or a Markdown view) got the command cut in two, the rest shown
/// as text. The span's fence is now longer than any run of backticks in the command.
#[test]
fn a_backtick_in_the_author_or_the_path_does_not_cut_the_command_short() -> Result<()> {
    let dir = TempDir::new("terminal-backtick")?;
    let folder = dir.join("a`b");
    std::fs::create_dir_all(&folder)?;
    let db = folder.join("r.db");
    let author = "Ada ``x` Lovelace";
    let mut cmd = crate::support::client::command(&db);
    cmd.args(["--author", author]);
    let given = command_given(cmd, &db, || Ok(()))?;
    let expected = format!(
        "{} review --db '{}' --author '{author}' {}",
        by_path(),
        db.display(),
        revision(SEED)
    );
    ensure!(given == expected, "{given:?}\nis not {expected:?}");
    Ok(())
}

/// The words bash makes of the command line `command` (after the program's own), as the
/// program it names would get them.
fn words_in_bash(command: &str) -> Result<Vec<String>> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "words() {{ shift; printf '%s\\0' \"$@\"; }}; words {command}"
        ))
        .output()?;
    ensure!(out.status.success(), "bash: {out:?}");
    let text = String::from_utf8(out.stdout)?;
    Ok(text.split_terminator('\0').map(str::to_string).collect())
}

/// Regression (found by advcli): an author's name holding a character drawn as nothing was
/// refused at the start (cliout refused it because the terminal command showed it as a
/// `\u{…}` escape, and the pasted command recorded that text, another name): a Japanese name
/// with an ideographic variation selector (辻 U+E0100, as a family register writes it), a
/// Khmer name with the zero width space that separates its words, a Mongolian one with its
/// vowel separator, a name pasted with a soft hyphen. The server now starts, and the terminal
/// command, pasted into a shell, gives `review` the very name and path.
#[test]
fn an_invisible_character_in_the_name_reaches_review_as_it_is() -> Result<()> {
    let dir = TempDir::new("terminal-invisible")?;
    for (n, author) in [
        "\u{8fbb}\u{e0100} \u{592a}\u{90ce}",
        "\u{179f}\u{17bb}\u{1781}\u{200b}\u{1785}\u{17b7}\u{178f}\u{17d2}\u{178f}",
        "\u{182d}\u{1820}\u{1837}\u{180e}\u{1820}",
        "Ste\u{ad}fan O'Brien",
    ]
    .into_iter()
    .enumerate()
    {
        let folder = dir.join(&format!("\u{8a2d}\u{8a08}\u{200b}{n}"));
        std::fs::create_dir_all(&folder)?;
        let db = folder.join("r.db");
        let mut cmd = crate::support::client::command(&db);
        cmd.args(["--author", author]);
        let given = command_given(cmd, &db, || Ok(()))?;
        let words = words_in_bash(&given)?;
        let expected = [
            "review".to_string(),
            "--db".into(),
            db.display().to_string(),
            "--author".into(),
            author.into(),
            revision(SEED),
        ];
        ensure!(words == expected, "{given:?} gave {words:?}");
    }
    Ok(())
}

/// Regression (from docstruth's audit): the terminal command a server gives named the program
/// `review-mcp`, so an engineer whose server is a bundle's binary (inside the host's own
/// folders, on no `PATH`) got "command not found" for the one channel of theirs a host
/// without forms and cards has, or ran an older `review-mcp` found first. The command names
/// the program by name when `PATH` finds this very binary first, else by its path.
#[test]
fn the_terminal_command_names_the_binary_by_path_unless_path_finds_it() -> Result<()> {
    let dir = TempDir::new("terminal-program")?;
    let on_path = dir.join("bin");
    std::fs::create_dir_all(&on_path)?;
    std::os::unix::fs::symlink(binary(), on_path.join("review-mcp"))?;
    let other = dir.join("old");
    std::fs::create_dir_all(&other)?;
    std::fs::write(other.join("review-mcp"), "#!/bin/sh\n")?;
    let paths = |dirs: &[&std::path::Path]| std::env::join_paths(dirs);

    let db = dir.join("a.db");
    let given = command_given_with_path(&db, &paths(&[&on_path])?)?;
    let want = format!("review-mcp review --db {} {}", db.display(), revision(SEED));
    ensure!(given == want, "{given:?}, wanted {want:?}");

    for (name, path) in [
        ("not on PATH", paths(&[&dir.join("none")])?),
        ("another first", paths(&[&other, &on_path])?),
    ] {
        let db = dir.join(format!("{}.db", name.replace(' ', "-")).as_str());
        let given = command_given_with_path(&db, &path)?;
        let want = format!(
            "{} review --db {} {}",
            by_path(),
            db.display(),
            revision(SEED)
        );
        ensure!(given == want, "{name}: {given:?}, wanted {want:?}");
        // Run as given, from a shell whose PATH has no review-mcp, it is this binary.
        let version = Command::new(&given[..given.find(" review").context("no program")?])
            .arg("--version")
            .env("PATH", dir.join("none"))
            .output()?;
        ensure!(version.status.success(), "{name}: {version:?}");
    }
    Ok(())
}

/// Regression: the program was looked up at the first command given, so a binary replaced
/// while the server ran (a host updating its bundle, an upgrade renamed over the file) was
/// named `review-mcp`: Linux then names the running executable `…/review-mcp (deleted)`,
/// which is no review-mcp binary. A bundle's engineer got "command not found" again. The
/// path is taken when the server starts, and names the binary the host starts next.
#[test]
fn a_binary_replaced_while_the_server_runs_is_still_named_by_its_path() -> Result<()> {
    let dir = TempDir::new("terminal-replaced")?;
    let bundle = dir.join("bundle");
    std::fs::create_dir_all(&bundle)?;
    let exe = bundle.join("review-mcp");
    std::fs::copy(binary(), &exe)?;
    let db = dir.join("a.db");
    let mut cmd = crate::support::client::command_running(&exe, &db);
    cmd.env("PATH", dir.join("none"));
    let given = command_given(cmd, &db, || {
        let update = bundle.join("review-mcp.new");
        std::fs::copy(binary(), &update)?;
        std::fs::rename(&update, &exe)?;
        Ok(())
    })?;
    let program = exe.canonicalize()?.display().to_string();
    let want = format!("{program} review --db {} {}", db.display(), revision(SEED));
    ensure!(given == want, "{given:?}, wanted {want:?}");
    Ok(())
}

fn stored(server: &mut Server) -> Result<Value> {
    stored_at(server, &revision(SEED))
}

#[test]
fn accept_reject_with_a_reason_then_quit_records_what_was_answered() -> Result<()> {
    let dir = TempDir::new("channel-terminal")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    remember(&mut server)?;
    // Item 1: an unknown key is explained, then accept (Enter: a review). Item 2: reject with
    // a reason, as an approval. Item 3: quit.
    let (shown, ok) = in_terminal(
        &db,
        Some("Ada Lovelace"),
        &revision(SEED),
        &["x", "a", "", "", "r", "no chamfer on the drawing", "a", "q"],
        "pty",
    )?;
    ensure!(ok, "{shown}");
    ensure!(
        shown.contains("Your answers are recorded as your own verdicts"),
        "{shown}"
    );
    ensure!(shown.contains("Stopped: 1 accepted, 1 rejected"), "{shown}");
    // The stored escape sequences are shown, not acted on.
    ensure!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "{shown:?}"
    );
    ensure!(shown.contains("reamed\\u{1b}[2J"), "{shown}");

    let d = stored(&mut server)?;
    let v0 = &d["basis"][0]["verdict"];
    ensure!(
        v0["judgement"] == "accepted"
            && v0["via"] == "terminal"
            && v0["author"] == "Ada Lovelace"
            && v0["meaning"] == "review"
            && v0.get("reason").is_none(),
        "{v0}"
    );
    let v1 = &d["basis"][1]["verdict"];
    ensure!(
        v1["judgement"] == "rejected"
            && v1["via"] == "terminal"
            && v1["meaning"] == "approval"
            && v1["reason"] == "no chamfer on the drawing",
        "{v1}"
    );
    ensure!(
        d["basis"][2].get("verdict").is_none(),
        "quit: item 3 is not recorded: {d}"
    );

    // Run again: only the item still open is shown; the input ending is a quit too.
    let (shown, ok) = in_terminal(&db, None, &revision(SEED), &[], "pty")?;
    ensure!(ok, "{shown}");
    ensure!(
        shown.contains("1 open item of 3") && shown.contains("Thread M6"),
        "{shown}"
    );
    ensure!(!shown.contains("Item 1 of 3"), "{shown}");
    ensure!(stored(&mut server)?["basis"][2].get("verdict").is_none());

    // The assistant cannot overwrite the terminal's verdict.
    let again = server
        .call(
            "remember_decision",
            json!({"artifact": artifact(SEED, URI), "subject": "bore", "disposition": "release",
                   "basis": [
                       {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied",
                        "evidence": "reamed\u{1b}[2J\u{1b}]0;owned\u{7} to 12.01",
                        "verdict": {"judgement": "rejected"}}]}),
        )?
        .ok()?;
    ensure!(
        again["decision"]["basis"][0]["verdict"]["via"] == "terminal",
        "{again}"
    );
    server.close()?;
    Ok(())
}

#[test]
fn a_file_names_its_revision_and_a_server_announces_the_terminal_s_write() -> Result<()> {
    let dir = TempDir::new("channel-terminal-notify")?;
    let db = dir.join("review.db");
    let part = dir.join("bracket.step");
    std::fs::write(&part, "ISO-10303-21; a bracket")?;
    let rev = format!(
        "sha256:{}",
        crate::support::sha256_hex(b"ISO-10303-21; a bracket")
    );
    let mut server = Server::start(&db)?;
    server
        .call(
            "remember_decision",
            json!({"artifact": {"revision": rev, "format": "step", "uri": URI},
                   "subject": "wall", "disposition": "hold",
                   "basis": [{"requirement": "Wall 2 mm", "source": "drawing",
                              "state": "satisfied"}]}),
        )?
        .ok()?;
    let uri = format!("review://revisions/{rev}");
    let sub = server.request("resources/subscribe", json!({"uri": uri}))?;
    ensure!(sub.get("result").is_some(), "{sub}");
    server.take_notifications();

    let (shown, ok) = in_terminal(
        &db,
        Some("Ada"),
        part.to_str().context("path")?,
        &["a", "", "a"],
        "pty",
    )?;
    ensure!(ok && shown.contains("Done: 1 accepted"), "{shown}");

    // The server polls for other processes' commits while someone can be told: within a
    // second or so the subscriber hears of the terminal's write.
    let mut notes = Vec::new();
    for _ in 0..30 {
        std::thread::sleep(Duration::from_millis(100));
        server.request("ping", json!({}))?;
        notes.extend(server.take_notifications());
        if notes
            .iter()
            .any(|n| n["method"] == "notifications/resources/updated" && n["params"]["uri"] == uri)
        {
            break;
        }
    }
    ensure!(
        notes
            .iter()
            .any(|n| n["method"] == "notifications/resources/updated" && n["params"]["uri"] == uri),
        "no resources/updated after the terminal's write: {notes:?}"
    );
    let d = stored_at(&mut server, &rev)?;
    ensure!(
        d["basis"][0]["verdict"]["via"] == "terminal"
            && d["basis"][0]["verdict"]["meaning"] == "approval",
        "{d}"
    );
    server.close()?;
    Ok(())
}

fn stored_at(server: &mut Server, rev: &str) -> Result<Value> {
    let page = server
        .call(
            "recall_decisions",
            json!({"artifact": {"revision": rev, "format": "step", "uri": URI}, "detail": "full"}),
        )?
        .ok()?;
    page["decisions"]
        .get(0)
        .cloned()
        .with_context(|| format!("no decision: {page}"))
}

#[test]
fn it_refuses_to_run_without_a_terminal_on_stdin_and_stdout() -> Result<()> {
    let dir = TempDir::new("channel-terminal-refuse")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    remember(&mut server)?;
    let before = stored(&mut server)?;

    // Pipes on both sides, as a model's shell tool runs a command.
    let out = Command::new(binary())
        .args(["--db"])
        .arg(&db)
        .args(["review", &revision(SEED)])
        .env("MCP_LOG_LEVEL", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(out.status.code() == Some(1), "{:?} {stderr}", out.status);
    ensure!(
        stderr.contains("needs a terminal on stdin and stdout")
            && stderr.contains("assistant's shell tool")
            && stderr.contains("Run it yourself, in a terminal window"),
        "{stderr}"
    );
    ensure!(out.stdout.is_empty(), "nothing on stdout");

    // A terminal on stdin but a pipe on stdout is refused too, answers or not.
    let (shown, ok) = in_terminal(&db, None, &revision(SEED), &["a", "", ""], "pipe-stdout")?;
    ensure!(!ok, "{shown}");
    ensure!(shown.contains("needs a terminal"), "{shown}");
    ensure!(stored(&mut server)? == before, "nothing was written");
    server.close()?;
    Ok(())
}

/// A terminal verdict and its meaning travel through export and import byte-identically (an
/// export line is checked against the tools' shapes, which know `meaning`).
#[test]
fn a_terminal_verdict_and_its_meaning_survive_export_and_import() -> Result<()> {
    use crate::support::file_events::run_cli;
    let dir = TempDir::new("channel-terminal-export")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    remember(&mut server)?;
    server.close()?;
    let (shown, ok) = in_terminal(
        &db,
        Some("Ada"),
        &revision(SEED),
        &["r", "burr on the edge", "a", "q"],
        "pty",
    )?;
    ensure!(ok, "{shown}");
    let first = run_cli(&db, &["export"])?;
    ensure!(first.status.success(), "{first:?}");
    let text = String::from_utf8(first.stdout.clone())?;
    ensure!(
        text.contains(r#""meaning":"approval""#) && text.contains(r#""via":"terminal""#),
        "{text}"
    );
    let file = dir.join("export.jsonl");
    std::fs::write(&file, &first.stdout)?;
    let other = dir.join("other.db");
    let imported = run_cli(&other, &["import", file.to_str().context("path")?])?;
    ensure!(imported.status.success(), "{imported:?}");
    let again = run_cli(&other, &["export"])?;
    ensure!(
        again.stdout == first.stdout,
        "export -> import -> export differs"
    );
    Ok(())
}

/// Found in an end-to-end review: at a revision whose review was carried on, the terminal
/// says to judge it at the later revision "with review-mcp review sha256:…", a command
/// without the `--db` the engineer had given: run as printed, it opens `./review-mcp.db`
/// (another database, often none) instead of theirs. The command it prints names the
/// database, as `request_verdicts`' cancel answer does, and the author the session records
/// verdicts under.
#[test]
fn a_carried_on_revision_points_to_the_later_one_with_this_database() -> Result<()> {
    let dir = TempDir::new("channel-terminal-carried-on")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    remember(&mut server)?;
    carried_to_two(&mut server)?;
    server.close()?;
    let (shown, ok) = in_terminal(&db, Some("Ada"), &revision(SEED), &[], "pty")?;
    ensure!(ok, "{shown}");
    let want = format!(
        "with {} review --db {} --author Ada {}.",
        by_path(),
        db.display(),
        revision("channel-terminal-2")
    );
    ensure!(shown.contains(&want), "wanted {want:?} in {shown}");
    Ok(())
}

/// Regression: `review-mcp review PART` on a part whose bytes changed since its review said
/// "No decision is recorded at this revision." and exited 0, naming neither where the
/// part's review is nor how to open it (`show_review` names what is stale). Given the part's
/// file, it now names the file's other revisions with a review, what awaits the engineer
/// there and the exact command for each (with this `--db`), and exits 1: nothing was
/// reviewed. Given a revision with nothing decided, it says to check it or give the file.
#[test]
fn a_changed_part_names_the_revision_its_review_is_at_and_the_command() -> Result<()> {
    let dir = TempDir::new("channel-terminal-elsewhere")?;
    let db = dir.join("review.db");
    let part = dir.join("bracket.step");
    std::fs::write(&part, b"the part as it is now")?;
    let uri = part.to_str().context("path")?;
    let mut server = Server::start(&db)?;
    let basis = json!([
        {"requirement": "Bore 12H7", "source": "drawing", "state": "satisfied"},
        {"requirement": "Thread M6", "source": "model-pmi", "state": "unresolved",
         "question": "cut or rolled?"}
    ]);
    bore_at(&mut server, uri, basis)?;
    server.close()?;
    let (shown, ok) = in_terminal(&db, Some("Ada"), uri, &[], "pty")?;
    ensure!(!ok, "nothing was reviewed: exit 1: {shown}");
    let now = format!(
        "sha256:{}",
        crate::support::sha256_hex(b"the part as it is now")
    );
    ensure!(
        shown.contains(&format!(
            "no decision is recorded at {now}, the revision of {uri}"
        )),
        "{shown}"
    );
    ensure!(
        shown.contains(&format!("{} (last changed ", revision(SEED)))
            && shown.contains("1 decision, 2 items awaiting your verdict"),
        "{shown}"
    );
    let command = format!(
        "{} review --db {} {}",
        by_path(),
        db.display(),
        revision(SEED)
    );
    ensure!(shown.contains(&command), "wanted {command:?} in {shown}");
    ensure!(
        shown.contains(&format!("carry_forward from {} to {now}", revision(SEED))),
        "{shown}"
    );
    ensure!(!shown.contains("Verdict?"), "{shown}");

    let (shown, ok) = in_terminal(&db, Some("Ada"), &revision("never reviewed"), &[], "pty")?;
    ensure!(!ok, "{shown}");
    ensure!(
        shown.contains("check the revision and --db") && shown.contains("FILE"),
        "{shown}"
    );
    Ok(())
}

/// Regression: a revision cut short as the messages print it (`sha256:94ff…`) or mistyped
/// was looked for as a file, and `review` said only "sha256:94ff…: no such file", where `form3`
/// says it is not a revision and what one is. Both say it now, by one function.
#[test]
fn a_mistyped_revision_is_named_as_one_not_as_a_missing_file() -> Result<()> {
    let dir = TempDir::new("channel-terminal-mistyped")?;
    let db = dir.join("review.db");
    Server::start(&db)?.close()?;
    // Regression (review4): an upper-case prefix or a pasted leading space was "no such file".
    let full = format!("SHA256:{}", "a".repeat(64));
    let spaced = format!(" sha256:{}", "a".repeat(64));
    for target in ["sha256:94ff…", "sha256:ABC"] {
        let (shown, ok) = in_terminal(&db, None, target, &[], "pty")?;
        ensure!(!ok, "{target}: {shown}");
        ensure!(
            shown.contains("is not a revision (sha256:<64 lowercase hex>")
                && shown.contains("review-mcp revision FILE"),
            "{target}: {shown}"
        );
    }
    // A whole digest under an upper-case prefix is one a checksum tool could print, and a
    // revision with a pasted space is one whole: the revision they stand for is named
    // (answer_words:: has the other spellings).
    for target in [&full, &spaced] {
        let (shown, ok) = in_terminal(&db, None, target, &[], "pty")?;
        ensure!(!ok, "{target}: {shown}");
        ensure!(
            shown.contains("not a revision")
                && shown.contains(&format!("pass \"sha256:{}\"", "a".repeat(64))),
            "{target}: {shown}"
        );
    }
    Ok(())
}

/// Regression: `review` given a revision by the short form answers write (`sha256:` and 12
/// hex digits, `…`) said it was neither a revision nor a file; it now says what the form is
/// and names the one stored revision it stands for, as a tool and `form3` do.
#[test]
fn a_short_form_names_the_revision_it_stands_for() -> Result<()> {
    let dir = TempDir::new("channel-terminal-short")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    remember(&mut server)?;
    server.close()?;
    let whole = revision(SEED);
    let short = format!("{}…", &whole[..19]);
    let (shown, ok) = in_terminal(&db, None, &short, &[], "pty")?;
    ensure!(!ok, "{shown}");
    ensure!(
        shown.contains("is the short form an answer writes")
            && shown.contains(&format!("begins {} is {whole}", &whole[..19])),
        "{shown}"
    );
    Ok(())
}

/// Regression (the end-user walk): an item a carry inherited with the engineer's verdict is not
/// asked again, and the line saying so told the engineer, at their own terminal, to call a
/// tool ("request_verdicts naming it in `items` asks about it"): a hint for the assistant. It
/// now names what the engineer can do: the review card, or the assistant asking in the form.
#[test]
fn an_inherited_judged_item_is_left_aside_saying_what_the_engineer_can_do() -> Result<()> {
    let dir = TempDir::new("channel-terminal-inherited")?;
    let db = dir.join("review.db");
    let mut server = Server::start(&db)?;
    remember(&mut server)?;
    // The engineer accepts item 1 at the first revision, then quits.
    let (shown, ok) = in_terminal(
        &db,
        Some("Ada"),
        &revision(SEED),
        &["a", "", "", "q"],
        "pty",
    )?;
    ensure!(ok, "{shown}");
    carried_to_two(&mut server)?;
    server.close()?;
    let (shown, _) = in_terminal(
        &db,
        Some("Ada"),
        &revision("channel-terminal-2"),
        &["q"],
        "pty",
    )?;
    ensure!(
        shown.contains("1 item inherited by carry_forward with your verdict at an earlier revision is not asked again (to judge it at this revision, answer it in the review card, or have the assistant ask you in the host's form)."),
        "{shown}"
    );
    ensure!(!shown.contains("`items`"), "{shown}");
    // The carried decision's disposition is shown whole, not cut in "basis items".
    ensure!(shown.contains("0 of 3 basis items to re-verify"), "{shown}");
    Ok(())
}
