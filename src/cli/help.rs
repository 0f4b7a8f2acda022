//! What a person reads: the usage text of a mistake, `--help` and `--version`.

use std::io::{self, Write};
use std::process::ExitCode;

use super::invocation::{DB_ENV, DEFAULT_DB};
use super::serve::AUTHOR_ENV;

/// Printed with every usage error.
pub const USAGE: &str = "\
Usage: review-mcp [--db PATH] [--author NAME] [serve]
       review-mcp [--db PATH] [--author NAME] review FILE-OR-REVISION
       review-mcp revision FILE...
       review-mcp [--db PATH] export [-o FILE]
       review-mcp [--db PATH] form3 FILE-OR-REVISION [-o FILE]
       review-mcp [--db PATH] import FILE
       review-mcp [--db PATH] check
       review-mcp [--db PATH] backup FILE
       review-mcp [--db PATH] sync [--dry-run] DIR
       review-mcp merge-file BASE OURS THEIRS [PATH]
       review-mcp replay [--command CMD | --bless] FILE...
       review-mcp --help | --version
Try 'review-mcp --help' for more.";

/// The full `--help` text: every subcommand, flag and environment variable with defaults.
pub fn help_text() -> String {
    format!(
        "\
review-mcp {version}
A local MCP server that remembers CAD design reviews: names, notes, tags and decisions
bound to the exact revision (sha256) of a part, stored in SQLite.

Usage:
  review-mcp [--db PATH] [--author NAME] [serve]
                                          Serve MCP over stdin/stdout (the default when no
                                          subcommand is given). Exits 0 when stdin closes.
  review-mcp [--db PATH] [--author NAME] review FILE-OR-REVISION
                                          The engineer's own verdicts, in this terminal: shows
                                          each decision at the file's revision with its items
                                          awaiting you, and takes accept / reject / skip /
                                          quit, a reason and the meaning (review or approval)
                                          per item, each recorded as you answer it (via
                                          \"terminal\"). Runs only with a terminal on stdin and
                                          stdout, so an assistant's shell tool cannot pipe
                                          answers in; a program that makes a pseudo-terminal
                                          (script, expect) can, so it is a barrier, not proof
                                          that a person typed them, nor of who (the author is
                                          the name given).
  review-mcp revision FILE...             Print `sha256:<64 hex>  FILE` for each file: the
                                          value to pass as artifact.revision. Streams, so a
                                          file of any size takes constant memory. Only a
                                          regular file is read: a FIFO, device, socket or
                                          directory is refused without waiting on it.
  review-mcp [--db PATH] export [-o FILE] Write every record and decision, then every event
                                          of the review's history, as JSON Lines in a stable
                                          order (to stdout unless -o is given).
  review-mcp [--db PATH] form3 FILE-OR-REVISION [-o FILE]
                                          Write the review of the file's revision (hashed
                                          as `revision` does) or of a sha256:<64 hex> revision
                                          as an AS9102 Form 3 in CSV: one row per basis
                                          requirement of its decisions (stdout unless -o;
                                          a -o FILE starts with a UTF-8 byte-order mark, so
                                          that Excel reads it as UTF-8).
  review-mcp [--db PATH] import FILE      Add or replace records and decisions from an export,
                                          all or nothing; reports how many lines it added,
                                          replaced, and kept the database's version of (the
                                          same, or not later than the database's), and any
                                          kept as what an old revision says of a feature a
                                          carry moved on (its superseded copy).
  review-mcp [--db PATH] check            Check the database's integrity and schema version;
                                          exit status 0 only when it is sound.
  review-mcp [--db PATH] backup FILE      Write a complete copy of the database to FILE (a new
                                          file), consistent even while servers write.
  export, form3, check and backup only read the database: they work on a read-only file.
  review-mcp [--db PATH] sync [--dry-run] DIR
                                          Keep the folder DIR (in a team's git repository)
                                          and the database in step, both ways: one file per
                                          record and decision, three-way against what each
                                          item was at the last sync of DIR; deletions travel,
                                          conflicts are settled (the later edit wins, the
                                          engineer's verdicts are kept) and reported. One
                                          transaction; a file that does not validate refuses
                                          the sync, naming it. Prints one line per kind of
                                          change, and names each item deleted; what it
                                          deletes from the database is saved first in
                                          PATH.sync-deleted/ (import brings it back).
                                          --dry-run prints the plan, changes nothing.
  review-mcp merge-file BASE OURS THEIRS [PATH]
                                          git merge driver for a synced folder: merge two
                                          versions of an item file by the rule of sync, write
                                          the result to OURS, exit 0; exit 1 and leave OURS
                                          alone when a file is not an item. PATH, the file's
                                          path in the work tree, is what messages name. Set
                                          it up with git config merge.review.driver \\
                                            'review-mcp merge-file %O %A %B %P'
                                          (sync writes DIR/.gitattributes, `* merge=review`).
  review-mcp replay [--command CMD | --bless] FILE...
                                          Replay protocol transcripts against this server (or
                                          against CMD, run through the shell) and report
                                          the first difference per file. CMD is started anew
                                          for each FILE, in a new empty working directory
                                          that is removed afterwards; {{dir}} in CMD is
                                          replaced by its path, so
                                          --command 'review-mcp --db {{dir}}/r.db' replays
                                          every FILE on a fresh database.

Options:
  --db PATH           The database file of serve, review, export, form3, import, check,
                      backup and sync (the others open none and refuse it). Default:
                      ${DB_ENV} when set and not empty, else ./{DEFAULT_DB}.
                      serve, import and sync create a missing file (and its parent
                      directories), readable by its owner only; review, export, form3,
                      check and backup need an existing one and create nothing.
                      A leading ~/ is your home directory, also where no shell expands it.
  -o, --output FILE   export, form3: write to FILE instead of stdout, through a temporary
                      file renamed into place (never a partial FILE; a symlink, a device,
                      an SQLite database or form3's own part file as FILE is refused).
                      -o - is stdout.
  --command CMD       replay: the server command line to test (default: this server, in
                      process), run once per FILE in a fresh directory named by {{dir}}.
  --dry-run           sync: print what would be written, imported, deleted and merged, and
                      change nothing (neither the folder nor the database).
  --bless             replay: rewrite each FILE's expectations from this server's answers,
                      keeping its sends, comments and {{{{any}}}} wildcards (review the diff).
  --author NAME       serve: who this server's writes are recorded as (records, decisions,
                      verdicts); review: who your verdicts are recorded as. Default
                      ${AUTHOR_ENV} when set, else nobody.
  -h, --help          Print this help and exit.
  -V, --version       Print the version and exit.
  --                  Everything after it is a FILE, even when it starts with '-'.
  A flag's value may also be attached: --db=PATH.

Environment:
  {DB_ENV}  The database file when --db is not given (default ./{DEFAULT_DB}).
  REVIEW_MCP_AUTHOR   serve, review: the author when --author is not given (1 to 200
                      characters, no control or direction ones).
  REVIEW_MCP_ELICITATION_TIMEOUT
                      serve: how long request_verdicts waits for the engineer's answer to
                      the host's form, in seconds (1 to 86400, default 600); in 2026-07-28
                      also how long its requestState stays valid.
  MCP_LOG_LEVEL       debug | info | warn | error | off (default info). Logs go to stderr.
  MCP_LOG_FORMAT      json | human (default human when stderr is a terminal, else json:
                      one JSON object per line).
  MCP_TRACE_ID        Added to every log line as trace_id (default: none).

Exit status: 0 success, 1 failure (details on stderr; replay's report is on stdout),
2 usage error.
",
        version = env!("CARGO_PKG_VERSION"),
    )
}

/// The flags a subcommand takes besides `-h`, `-V` and `--`, as the help's Options name them
/// (the rules are `RawArgs::validate`'s; a test holds the two together).
fn flags_of(sub: &str) -> &'static [&'static str] {
    match sub {
        "serve" | "review" => &["--db", "--author"],
        "export" | "form3" => &["--db", "-o"],
        "import" | "check" | "backup" => &["--db"],
        "sync" => &["--db", "--dry-run"],
        "replay" => &["--command", "--bless"],
        _ => &[],
    }
}

/// `review-mcp SUBCOMMAND --help`: the entries of [`help_text`] for that subcommand (its
/// usage, the flags and environment variables it reads, logging and the exit status), then
/// where the rest is. Entries are the help's own lines, so the two never disagree.
pub fn subcommand_help(sub: &str) -> String {
    let flags = flags_of(sub);
    let names_sub = |entry: &str| {
        entry
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .any(|w| w == sub)
    };
    // The first line of an entry: what it is about (a usage line, a flag, a variable).
    let head = |entry: &str| entry.lines().next().unwrap_or("").trim().to_string();
    let wanted = |title: &str, entry: &str| -> bool {
        let head = head(entry);
        match title {
            "Usage:" if head.starts_with("review-mcp ") => {
                head.split_whitespace()
                    .map(|w| w.trim_matches(['[', ']']))
                    .find(|w| super::args::SUBCOMMANDS.contains(w))
                    == Some(sub)
            }
            // A note under the usage lines (which subcommands only read).
            "Usage:" => names_sub(entry),
            "Options:" if head.starts_with('-') => {
                let named: Vec<&str> = head
                    .split([',', ' '])
                    .filter(|w| w.starts_with('-'))
                    .collect();
                ["-h", "-V", "--"]
                    .iter()
                    .chain(flags)
                    .any(|f| named.contains(f))
            }
            // "A flag's value may also be attached".
            "Options:" => flags
                .iter()
                .any(|f| ["--db", "-o", "--command", "--author"].contains(f)),
            _ => match head.split_whitespace().next().unwrap_or("") {
                DB_ENV => flags.contains(&"--db"),
                AUTHOR_ENV => flags.contains(&"--author"),
                "REVIEW_MCP_ELICITATION_TIMEOUT" => sub == "serve",
                _ => true,
            },
        }
    };
    let full = help_text();
    let mut sections = full.split("\n\n");
    let mut out = format!(
        "{}\n",
        sections.next().unwrap_or("").lines().next().unwrap_or("")
    );
    for section in sections {
        let Some((title, body)) = section.split_once('\n') else {
            continue;
        };
        if !title.ends_with(':') {
            // The exit status paragraph.
            out.push('\n');
            out.push_str(section.trim_end());
            out.push('\n');
            continue;
        }
        // An entry starts at a line indented by two spaces; deeper lines continue it.
        let mut entries: Vec<String> = Vec::new();
        for line in body.lines() {
            match entries.last_mut() {
                Some(e) if line.starts_with("   ") => {
                    e.push('\n');
                    e.push_str(line);
                }
                _ => entries.push(line.to_string()),
            }
        }
        let kept: Vec<String> = entries
            .into_iter()
            .filter(|e| wanted(title, e))
            .map(|e| attached_example(e, flags))
            .collect();
        if !kept.is_empty() {
            out.push('\n');
            out.push_str(title);
            out.push('\n');
            for e in kept {
                out.push_str(&e);
                out.push('\n');
            }
        }
    }
    out.push_str("\nEvery subcommand: review-mcp --help.\n");
    out
}

/// The help's line on attached values (`--db=PATH`) with its example a flag of the
/// subcommand: replay, which refuses `--db`, shows `--command=CMD`. Any other entry as it is.
fn attached_example(entry: String, flags: &[&str]) -> String {
    const EXAMPLE: &str = "--db=PATH";
    if !entry.trim_start().starts_with("A flag's value") || flags.contains(&"--db") {
        return entry;
    }
    let own = flags.iter().find_map(|f| match *f {
        "--author" => Some("--author=NAME"),
        "-o" => Some("--output=FILE"),
        "--command" => Some("--command=CMD"),
        _ => None,
    });
    match own {
        Some(own) => entry.replace(EXAMPLE, own),
        None => entry,
    }
}

/// The `--version` line.
pub fn version_text() -> String {
    format!("review-mcp {}", env!("CARGO_PKG_VERSION"))
}

/// Help and version go to stdout (a person asked for them); a closed pipe is not an error.
pub fn print(text: &str, what: &str) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    crate::cli::finish_stdout(written, what, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_text_names_every_flag_subcommand_and_variable() {
        let h = help_text();
        for needle in [
            "--db PATH",
            "-o, --output FILE",
            "--command CMD",
            "-h, --help",
            "-V, --version",
            "serve",
            "revision FILE...",
            "review FILE-OR-REVISION",
            "export [-o FILE]",
            "import FILE",
            "check",
            "replay",
            "sync [--dry-run] DIR",
            "--dry-run",
            "merge-file BASE OURS THEIRS [PATH]",
            "REVIEW_MCP_DB_PATH",
            "./review-mcp.db",
            "MCP_LOG_LEVEL",
            "default info",
            "MCP_LOG_FORMAT",
            "default human when stderr is a terminal, else json",
            "MCP_TRACE_ID",
            "REVIEW_MCP_ELICITATION_TIMEOUT",
            "--author NAME",
            "REVIEW_MCP_AUTHOR",
            "default 600",
            "need an existing one and create nothing",
        ] {
            assert!(h.contains(needle), "help lacks {needle}");
        }
    }
}

#[cfg(test)]
mod subcommand_tests {
    use super::*;
    use crate::cli::args::{RawArgs, SUBCOMMANDS};

    /// Whether `sub` accepts `flag` (with a value when it takes one), given before the files
    /// it needs (merge-file takes its fourth word as a path, whatever it is).
    fn accepts(sub: &str, flag: &str) -> bool {
        let mut line = vec![sub, flag];
        if ["--db", "-o", "--command", "--author"].contains(&flag) {
            line.push("v");
        }
        line.extend_from_slice(match sub {
            "serve" | "export" | "check" => &[],
            "merge-file" => &["a", "b", "c"],
            _ => &["x"],
        });
        RawArgs::parse(line.into_iter().map(std::ffi::OsString::from))
            .and_then(|raw| raw.validate(None, None))
            .is_ok()
    }

    /// Regression: replay's help said "A flag's value may also be attached: --db=PATH.",
    /// a flag replay refuses (`--db is only valid with ...`). The example a subcommand's help
    /// gives is one it accepts.
    #[test]
    fn the_attached_value_a_subcommands_help_shows_is_accepted_by_it() {
        for sub in SUBCOMMANDS {
            let help = subcommand_help(sub);
            let Some((_, example)) = help.split_once("may also be attached: ") else {
                continue;
            };
            let example = example.split(['.', '\n']).next().unwrap_or_default();
            let (flag, _) = example.split_once('=').unwrap_or((example, ""));
            let mut line = vec![sub, example];
            line.extend_from_slice(match sub {
                "serve" | "export" | "check" => &[],
                "merge-file" => &["a", "b", "c"],
                _ => &["x"],
            });
            let accepted = RawArgs::parse(line.into_iter().map(std::ffi::OsString::from))
                .and_then(|raw| raw.validate(None, None))
                .is_ok();
            assert!(accepted, "{sub}'s help shows {example}:\n{help}");
            assert!(
                help.contains(&format!("\n  {flag}")) || flag == "--output",
                "{help}"
            );
        }
    }

    /// Each subcommand's help shows exactly the flags it accepts, and its own usage line
    /// only: the table `flags_of` and the rules of `validate` cannot drift apart.
    #[test]
    fn a_subcommands_help_shows_the_flags_it_accepts_and_no_other_usage() {
        let full = help_text();
        for sub in SUBCOMMANDS {
            assert!(accepts(sub, "--"), "{sub} refuses its own line");
            let help = subcommand_help(sub);
            for flag in [
                "--db",
                "-o",
                "--command",
                "--author",
                "--bless",
                "--dry-run",
            ] {
                let entry = match flag {
                    "--db" => "\n  --db PATH ",
                    "-o" => "\n  -o, --output FILE ",
                    "--command" => "\n  --command CMD ",
                    "--author" => "\n  --author NAME ",
                    _ => &format!("\n  {flag} "),
                };
                assert!(full.contains(entry), "{entry}");
                assert_eq!(
                    help.contains(entry),
                    accepts(sub, flag),
                    "{sub} and {flag}:\n{help}"
                );
            }
            for other in SUBCOMMANDS {
                let shown = help
                    .lines()
                    .filter(|l| l.starts_with("  review-mcp "))
                    .any(|l| {
                        l.split_whitespace()
                            .any(|w| w.trim_matches(['[', ']']) == other)
                    });
                assert_eq!(shown, other == sub, "{sub}'s help and {other}:\n{help}");
            }
            assert!(help.contains("MCP_LOG_LEVEL") && help.contains("Exit status: 0"));
            assert_eq!(help.contains(DB_ENV), accepts(sub, "--db"), "{help}");
            assert_eq!(
                help.contains(AUTHOR_ENV),
                accepts(sub, "--author"),
                "{help}"
            );
        }
    }
}

#[cfg(test)]
mod wildcard_tests {
    use super::*;

    /// The wildcard `--bless` keeps is spelled in the help as a transcript holds it: the
    /// help printed `{any}` (a format string's escape), which replay compares as text.
    #[test]
    fn help_text_spells_the_replay_wildcard_as_transcripts_hold_it() {
        let h = help_text();
        assert!(h.contains(review_mcp::replay::ANY), "{h}");
    }
}
