//! The command line: raw arguments, the validated invocation, help and usage texts, and the
//! subcommands that are not the stdio server (`revision`, `export`, `import`, `check`,
//! `backup`, `replay`).
//!
//! Parsing is hand-written and strict: an unknown flag, a flag without its value, a repeated
//! flag, a flag given to a subcommand that does not take it, or a wrong number of files is a
//! [`UsageError`] (exit status 2 with the usage text), so a typo is never silently ignored.
//! Parsing happens in two steps with separate types, as ripgrep does: [`RawArgs`] records what
//! was typed, [`RawArgs::validate`] turns it into an [`Invocation`] that can only hold a
//! runnable command.

pub mod transfer;

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use sha2::{Digest, Sha256};

use review_mcp::store::{self, Store};

/// The database file when neither `--db` nor `REVIEW_MCP_DB_PATH` names one.
pub const DEFAULT_DB: &str = "review-mcp.db";

/// The environment variable naming the database file.
pub const DB_ENV: &str = "REVIEW_MCP_DB_PATH";

/// Printed with every usage error.
pub const USAGE: &str = "\
Usage: review-mcp [--db PATH] [serve]
       review-mcp revision FILE...
       review-mcp [--db PATH] export [-o FILE]
       review-mcp [--db PATH] import FILE
       review-mcp [--db PATH] check
       review-mcp [--db PATH] backup FILE
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
  review-mcp [--db PATH] [serve]          Serve MCP over stdin/stdout (the default when no
                                          subcommand is given). Exits 0 when stdin closes.
  review-mcp revision FILE...             Print `sha256:<64 hex>  FILE` for each file: the
                                          value to pass as artifact.revision. Streams, so a
                                          file of any size takes constant memory.
  review-mcp [--db PATH] export [-o FILE] Write every record and decision as JSON Lines in a
                                          stable order (to stdout unless -o is given).
  review-mcp [--db PATH] import FILE      Add or replace records and decisions from an export,
                                          all or nothing; reports added, replaced, unchanged.
  review-mcp [--db PATH] check            Check the database's integrity and schema version;
                                          exit status 0 only when it is sound.
  review-mcp [--db PATH] backup FILE      Write a complete copy of the database to FILE (a new
                                          file), consistent even while servers write.
  export, check and backup only read the database: they work on a read-only file.
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
  --db PATH           The database file. Default: ${DB_ENV} when set, else ./{DEFAULT_DB}.
                      Parent directories are created; a new file is readable by its owner only.
  -o, --output FILE   export: write to FILE instead of stdout.
  --command CMD       replay: the server command line to test (default: this server, in
                      process), run once per FILE in a fresh directory named by {{dir}}.
  --bless             replay: rewrite each FILE's expectations from this server's answers,
                      keeping its sends, comments and {{any}} wildcards (review the diff).
  -h, --help          Print this help and exit.
  -V, --version       Print the version and exit.
  --                  Everything after it is a FILE, even when it starts with '-'.
  A flag's value may also be attached: --db=PATH.

Environment:
  {DB_ENV}  The database file when --db is not given (default ./{DEFAULT_DB}).
  MCP_LOG_LEVEL       debug | info | warn | error | off (default info). Logs go to stderr.
  MCP_LOG_FORMAT      json | human (default json: one JSON object per line).
  MCP_TRACE_ID        Added to every log line as trace_id (default: none).

Exit status: 0 success, 1 failure (details on stderr), 2 usage error.
",
        version = env!("CARGO_PKG_VERSION"),
    )
}

/// The `--version` line.
pub fn version_text() -> String {
    format!("review-mcp {}", env!("CARGO_PKG_VERSION"))
}

/// A mistake on the command line: exit status 2 with [`USAGE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// What to run, after validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Serve,
    Help,
    Version,
    Revision {
        files: Vec<PathBuf>,
    },
    Export {
        output: Option<PathBuf>,
    },
    Import {
        file: PathBuf,
    },
    Check,
    Backup {
        file: PathBuf,
    },
    Replay {
        /// Rewrite each file's expectations from this server's answers instead of comparing.
        bless: bool,
        command: Option<String>,
        files: Vec<PathBuf>,
    },
}

/// A validated command line: the command and the database it works on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    pub command: Command,
    pub db: PathBuf,
}

/// The subcommands, as typed.
const SUBCOMMANDS: [&str; 7] = [
    "serve", "revision", "export", "import", "check", "backup", "replay",
];

/// The command line as typed, before any rule beyond "is this a known flag" is applied.
#[derive(Debug, Default)]
pub struct RawArgs {
    db: Option<OsString>,
    output: Option<OsString>,
    command: Option<OsString>,
    help: bool,
    version: bool,
    bless: bool,
    subcommand: Option<&'static str>,
    positionals: Vec<OsString>,
}

/// A flag that takes a value: which slot it fills.
#[derive(Clone, Copy)]
enum ValueFlag {
    Db,
    Output,
    Command,
}

impl ValueFlag {
    fn name(self) -> &'static str {
        match self {
            ValueFlag::Db => "--db",
            ValueFlag::Output => "-o/--output",
            ValueFlag::Command => "--command",
        }
    }

    fn metavar(self) -> &'static str {
        match self {
            ValueFlag::Db => "PATH",
            ValueFlag::Output => "FILE",
            ValueFlag::Command => "CMD",
        }
    }
}

impl RawArgs {
    /// Reads the arguments after the program name. Only unknown flags, missing values and
    /// repeated flags are refused here; [`RawArgs::validate`] checks the combination.
    pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<RawArgs, UsageError> {
        let mut raw = RawArgs::default();
        let mut args = args.into_iter();
        let mut only_files = false;
        while let Some(arg) = args.next() {
            if only_files {
                raw.positional(arg)?;
                continue;
            }
            // Flags are ASCII; a non-UTF-8 argument can only be a file name.
            let Some(text) = arg.to_str() else {
                raw.positional(arg)?;
                continue;
            };
            if text == "--" {
                only_files = true;
                continue;
            }
            if !text.starts_with('-') || text == "-" {
                raw.positional(arg)?;
                continue;
            }
            let (flag, attached) = match text.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f, Some(OsString::from(v))),
                _ => (text, None),
            };
            let value_flag = match flag {
                "--db" => Some(ValueFlag::Db),
                "-o" | "--output" => Some(ValueFlag::Output),
                "--command" => Some(ValueFlag::Command),
                "-h" | "--help" | "-V" | "--version" | "--bless" => None,
                _ => return Err(UsageError(format!("unknown flag '{}'", short(flag)))),
            };
            match value_flag {
                None => {
                    if attached.is_some() {
                        return Err(UsageError(format!("{flag} takes no value")));
                    }
                    let slot = match flag {
                        "-h" | "--help" => &mut raw.help,
                        "--bless" => &mut raw.bless,
                        _ => &mut raw.version,
                    };
                    if *slot {
                        return Err(UsageError(format!("{flag} given more than once")));
                    }
                    *slot = true;
                }
                Some(vf) => {
                    let value = match attached {
                        Some(v) => v,
                        None => match args.next() {
                            Some(v) if !looks_like_flag(&v) => v,
                            _ => {
                                return Err(UsageError(format!(
                                    "{} needs a value ({})",
                                    vf.name(),
                                    vf.metavar()
                                )));
                            }
                        },
                    };
                    if value.is_empty() {
                        return Err(UsageError(format!(
                            "{} needs a non-empty value ({})",
                            vf.name(),
                            vf.metavar()
                        )));
                    }
                    let slot = match vf {
                        ValueFlag::Db => &mut raw.db,
                        ValueFlag::Output => &mut raw.output,
                        ValueFlag::Command => &mut raw.command,
                    };
                    if slot.is_some() {
                        return Err(UsageError(format!("{} given more than once", vf.name())));
                    }
                    *slot = Some(value);
                }
            }
        }
        Ok(raw)
    }

    /// The first bare word names the subcommand; every later one is a file.
    fn positional(&mut self, arg: OsString) -> Result<(), UsageError> {
        if self.subcommand.is_none() && self.positionals.is_empty() {
            let name = arg.to_str().unwrap_or_default();
            return match SUBCOMMANDS.iter().find(|s| **s == name) {
                Some(s) => {
                    self.subcommand = Some(*s);
                    Ok(())
                }
                None => Err(UsageError(format!(
                    "unknown subcommand '{}' (expected one of: {})",
                    short(&arg.to_string_lossy()),
                    SUBCOMMANDS.join(", ")
                ))),
            };
        }
        self.positionals.push(arg);
        Ok(())
    }

    /// Applies the rules of each subcommand and resolves the database path: `--db` wins over
    /// `env_db` (the value of `REVIEW_MCP_DB_PATH`), which wins over [`DEFAULT_DB`]. An empty
    /// environment value counts as unset.
    pub fn validate(self, env_db: Option<OsString>) -> Result<Invocation, UsageError> {
        let db = self
            .db
            .clone()
            .or(env_db.filter(|v| !v.is_empty()))
            .map_or_else(|| PathBuf::from(DEFAULT_DB), PathBuf::from);
        if self.help {
            return Ok(Invocation {
                command: Command::Help,
                db,
            });
        }
        if self.version {
            return Ok(Invocation {
                command: Command::Version,
                db,
            });
        }
        let sub = self.subcommand.unwrap_or("serve");
        if self.output.is_some() && sub != "export" {
            return Err(UsageError(format!(
                "-o/--output is only valid with 'export', not '{sub}'"
            )));
        }
        if self.command.is_some() && sub != "replay" {
            return Err(UsageError(format!(
                "--command is only valid with 'replay', not '{sub}'"
            )));
        }
        if self.bless && sub != "replay" {
            return Err(UsageError(format!(
                "--bless is only valid with 'replay', not '{sub}'"
            )));
        }
        if self.bless && self.command.is_some() {
            return Err(UsageError(
                "--bless records this server's answers; it cannot be combined with --command"
                    .into(),
            ));
        }
        let files: Vec<PathBuf> = self.positionals.into_iter().map(PathBuf::from).collect();
        let no_files = |files: &[PathBuf]| match files.first() {
            Some(f) => Err(UsageError(format!(
                "'{sub}' takes no FILE, but got '{}'",
                short(&f.to_string_lossy())
            ))),
            None => Ok(()),
        };
        let command = match sub {
            "serve" => {
                no_files(&files)?;
                Command::Serve
            }
            "check" => {
                no_files(&files)?;
                Command::Check
            }
            "export" => {
                no_files(&files)?;
                Command::Export {
                    output: self.output.map(PathBuf::from),
                }
            }
            "import" | "backup" => {
                let mut files = files.into_iter();
                match (files.next(), files.next()) {
                    (Some(file), None) if sub == "import" => Command::Import { file },
                    (Some(file), None) => Command::Backup { file },
                    (None, _) => return Err(UsageError(format!("'{sub}' needs a FILE"))),
                    (Some(_), Some(_)) => {
                        return Err(UsageError(format!("'{sub}' takes exactly one FILE")));
                    }
                }
            }
            "revision" if files.is_empty() => {
                return Err(UsageError("'revision' needs at least one FILE".into()));
            }
            "revision" => Command::Revision { files },
            "replay" if files.is_empty() => {
                return Err(UsageError("'replay' needs at least one FILE".into()));
            }
            "replay" => Command::Replay {
                bless: self.bless,
                command: self
                    .command
                    .map(|c| c.to_string_lossy().into_owned())
                    .filter(|c| !c.trim().is_empty()),
                files,
            },
            other => return Err(UsageError(format!("unknown subcommand '{other}'"))),
        };
        Ok(Invocation { command, db })
    }
}

/// Parses the arguments after the program name, with the value of `REVIEW_MCP_DB_PATH`.
pub fn parse(
    args: impl IntoIterator<Item = OsString>,
    env_db: Option<OsString>,
) -> Result<Invocation, UsageError> {
    RawArgs::parse(args)?.validate(env_db)
}

/// A value that is really the next flag (`--db --help`): refuse it as a missing value rather
/// than open a database called `--help`. A value starting with '-' can be attached instead:
/// `--db=-odd-name`.
fn looks_like_flag(v: &OsStr) -> bool {
    v.to_str().is_some_and(|s| s.starts_with('-') && s != "-")
}

/// Keeps an echoed argument short in error messages.
fn short(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX).collect();
    out.push('…');
    out
}

/// The read buffer for hashing: fixed, so memory does not grow with the file.
const HASH_BUFFER: usize = 64 * 1024;

/// The revision of a file: `sha256:` + 64 lowercase hex digits of its bytes, read in fixed
/// chunks (constant memory whatever the size; pipes and FIFOs work too).
pub fn file_revision(path: &Path) -> io::Result<String> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; HASH_BUFFER];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(buf.get(..n).unwrap_or_default());
    }
    let digest = hasher.finalize();
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    Ok(out)
}

/// `review-mcp revision FILE...`: one `sha256:<hex>  FILE` line per readable file on `out`,
/// one message per unreadable file on `err`. Returns whether every file was hashed.
pub fn revision(files: &[PathBuf], out: &mut dyn Write, err: &mut dyn Write) -> io::Result<bool> {
    let mut all = true;
    for path in files {
        match file_revision(path) {
            Ok(rev) => {
                writeln!(out, "{rev}  {}", path.display())?;
                out.flush()?;
            }
            Err(e) => {
                all = false;
                writeln!(err, "review-mcp: {}: {e}", path.display())?;
            }
        }
    }
    Ok(all)
}

/// Opens the database for a command that only reads or checks it, read-only: a missing file
/// is an error (creating an empty database to export or check would hide a wrong path).
fn open_existing(db: &Path) -> anyhow::Result<Store> {
    if !db.exists() {
        return Err(anyhow!(
            "there is no database at {}: point --db or {DB_ENV} at an existing file",
            db.display()
        ));
    }
    Store::open_read_only(db).map_err(|e| anyhow!("{e}"))
}

/// Refuses an output path that is the database itself or one of its companion files, as
/// `cp f f` refuses: writing there would destroy what is being read.
fn refuse_database_target(db: &Path, target: &Path) -> anyhow::Result<()> {
    if store::file::is_database_file(db, target) {
        return Err(anyhow!(
            "{} is the database {} (or one of its journal files); choose another output file",
            target.display(),
            db.display()
        ));
    }
    Ok(())
}

/// Opens (or creates) the database; a refusal carries the store's own message.
fn open(db: &Path) -> anyhow::Result<Store> {
    Store::open(db).map_err(|e| anyhow!("{e}"))
}

/// `review-mcp export [-o FILE]`: JSON Lines on stdout, or into FILE through a temporary file
/// renamed into place, so a failed export never leaves a truncated backup behind.
pub fn export(db: &Path, output: Option<&Path>) -> anyhow::Result<ExitCode> {
    if let Some(path) = output {
        refuse_database_target(db, path)?;
    }
    let mut store = open_existing(db)?;
    let records = store.all_records().map_err(|e| anyhow!("{e}"))?;
    let decisions = store.all_decisions().map_err(|e| anyhow!("{e}"))?;
    let Some(path) = output else {
        let stdout = io::stdout();
        let mut out = io::BufWriter::new(stdout.lock());
        transfer::write_export(records, decisions, &mut out).context("cannot write the export")?;
        return Ok(ExitCode::SUCCESS);
    };
    let (tmp, file) =
        create_temp_beside(path, db).with_context(|| format!("cannot write {}", path.display()))?;
    let written = (|| -> anyhow::Result<(usize, usize)> {
        let mut out = io::BufWriter::new(file);
        let counts = transfer::write_export(records, decisions, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(counts)
    })();
    match written {
        Ok((r, d)) => {
            log::info!(
                "exported {r} records and {d} decisions to {}",
                path.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e.context(format!("cannot write {}", path.display())))
        }
    }
}

/// The temporary file an export is written to before it is renamed over `path`: a new file
/// in the same directory (so the rename is atomic), created exclusively (`create_new` fails
/// on anything already there, a symlink included, and never follows one), with the
/// database's permission bits, so the backup is no more readable than the data. A name that
/// is taken is skipped for the next candidate.
fn create_temp_beside(path: &Path, db: &Path) -> io::Result<(PathBuf, File)> {
    let mode = db_mode(db)?;
    let mut last = io::Error::other("no temporary name was free");
    for candidate in temp_candidates(path).take(100) {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(mode);
        }
        match options.open(&candidate) {
            Ok(file) => {
                // The umask may have cleared bits of `mode`; the export gets exactly the
                // database's.
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    if let Err(e) = file.set_permissions(std::fs::Permissions::from_mode(mode)) {
                        let _ = std::fs::remove_file(&candidate);
                        return Err(e);
                    }
                }
                return Ok((candidate, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Temporary names for an export to `path`: `.NAME.PID-N.tmp` beside it.
fn temp_candidates(path: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    let name = path
        .file_name()
        .map_or_else(|| "export".into(), |n| n.to_string_lossy().into_owned());
    let pid = std::process::id();
    (0u32..).map(move |n| path.with_file_name(format!(".{name}.{pid}-{n}.tmp")))
}

/// The database file's permission bits (0600 for a file this server created).
#[cfg(unix)]
fn db_mode(db: &Path) -> io::Result<u32> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::metadata(db)?.permissions().mode() & 0o777)
}

#[cfg(not(unix))]
fn db_mode(_db: &Path) -> io::Result<u32> {
    Ok(0o600)
}

/// `review-mcp import FILE`: validate every line, then let the store judge and write them in
/// one transaction, and report what it did on stdout.
pub fn import(db: &Path, file: &Path) -> anyhow::Result<ExitCode> {
    let schemas = transfer::Schemas::from_tools().map_err(|e| anyhow!("{e}"))?;
    let input = File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
    let lines = transfer::read_import(&mut BufReader::new(input), &schemas)
        .map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let total = lines.len();
    let (records, decisions) = transfer::split(lines);
    let mut store = open(db)?;
    // The counts come from the same transaction that wrote, so they describe what happened
    // even when a server wrote the database a moment before.
    let summary = store
        .import(&records, &decisions)
        .map_err(|e| anyhow!("{}: nothing was written: {e}", file.display()))?;
    let mut out = io::stdout().lock();
    let _ = writeln!(
        out,
        "{}: {total} lines: added {}, replaced {}, unchanged {}",
        file.display(),
        summary.added,
        summary.replaced,
        summary.unchanged
    );
    Ok(ExitCode::SUCCESS)
}

/// `review-mcp replay --bless FILE...`: re-records each transcript's expectations from this
/// server, in process, and writes the file back only when it changed. Sends, comments and
/// `{{any}}` wildcards are kept, so the diff shows exactly what the server now answers.
pub fn bless(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    for file in files {
        let result = std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                let blessed = review_mcp::replay::bless(&text).map_err(|e| e.to_string())?;
                if blessed == text {
                    return Ok(false);
                }
                std::fs::write(file, blessed).map_err(|e| e.to_string())?;
                Ok(true)
            });
        match result {
            Ok(changed) => {
                let verb = if changed { "blessed" } else { "unchanged" };
                writeln!(out, "{verb} {}", file.display())?;
            }
            Err(e) => {
                failed = true;
                eprintln!("review-mcp: {}: {e}", file.display());
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `review-mcp backup FILE`: a complete, self-contained copy of the database, taken in one
/// read transaction (SQLite's `VACUUM INTO`) so it is consistent while servers write. FILE
/// must not exist: the copy is written to a private temporary file beside it (the
/// database's permissions), synced, and renamed into place.
pub fn backup(db: &Path, target: &Path) -> anyhow::Result<ExitCode> {
    refuse_database_target(db, target)?;
    if target.exists() || target.is_symlink() {
        return Err(anyhow!(
            "{} exists; backup writes a new file only (remove it or choose another name)",
            target.display()
        ));
    }
    let mut store = open_existing(db)?;
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Created empty and exclusively (never through a planted link) with the database's
    // mode, then filled by SQLite, which accepts an empty file.
    let (tmp, file) = create_temp_beside(target, db)
        .with_context(|| format!("cannot write the backup {}", target.display()))?;
    drop(file);
    let made = (|| -> anyhow::Result<()> {
        store.backup_into(&tmp).map_err(|e| anyhow!("{e}"))?;
        std::fs::hard_link(&tmp, target).or_else(|e| {
            // A file system without hard links: rename (may replace a file created since).
            if target.exists() {
                Err(e)
            } else {
                std::fs::rename(&tmp, target)
            }
        })?;
        let _ = std::fs::remove_file(&tmp);
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if let Err(e) = made {
        let _ = std::fs::remove_file(&tmp);
        return Err(e.context(format!("cannot write the backup {}", target.display())));
    }
    drop(store);
    let mut copy = Store::open_read_only(target).map_err(|e| anyhow!("{e}"))?;
    let problems = copy.check().map_err(|e| anyhow!("{e}"))?;
    if !problems.is_empty() {
        return Err(anyhow!(
            "the backup {} does not pass its check: {}",
            target.display(),
            problems.join("; ")
        ));
    }
    let (records, decisions) = counts(&mut copy)?;
    let mut out = io::stdout().lock();
    let _ = writeln!(
        out,
        "{}: backup of {}: {records} records, {decisions} decisions, integrity ok",
        target.display(),
        db.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// How many records and decisions the database holds.
fn counts(store: &mut Store) -> anyhow::Result<(u64, u64)> {
    Ok(store
        .revisions()
        .map_err(|e| anyhow!("{e}"))?
        .iter()
        .fold((0, 0), |(r, d), s| (r + s.records, d + s.decisions)))
}

/// `review-mcp check`: SQLite's integrity and foreign-key checks, the full-text indexes and
/// the schema version. Exit status 0 only when every check passes.
pub fn check(db: &Path) -> anyhow::Result<ExitCode> {
    if !db.exists() {
        return Err(anyhow!(
            "there is no database at {}: point --db or {DB_ENV} at an existing file",
            db.display()
        ));
    }
    // The file itself is checked, as it is on disk; the counts come from what a server would
    // read (an older file through an upgraded private copy).
    let (version, problems) = Store::check_in_place(db).map_err(|e| anyhow!("{e}"))?;
    if !problems.is_empty() {
        let mut err = io::stderr().lock();
        for p in &problems {
            let _ = writeln!(err, "review-mcp: {}: {p}", db.display());
        }
        let _ = writeln!(
            err,
            "review-mcp: {}: {} problem(s) found (schema version {version})",
            db.display(),
            problems.len()
        );
        return Ok(ExitCode::FAILURE);
    }
    let mut store = open_existing(db)?;
    let (records, decisions) = counts(&mut store)?;
    let upgrade = if version < store::SCHEMA_VERSION {
        format!(" (a server upgrades it to {})", store::SCHEMA_VERSION)
    } else {
        String::new()
    };
    let mut out = io::stdout().lock();
    let _ = writeln!(
        out,
        "{}: ok: schema version {version}{upgrade}, integrity ok, {records} records, {decisions} decisions",
        db.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    fn run(args: &[&str]) -> Result<Invocation, UsageError> {
        parse(os(args), None)
    }

    fn err(args: &[&str]) -> String {
        match run(args) {
            Err(UsageError(m)) => m,
            Ok(i) => panic!("{args:?} parsed as {i:?}"),
        }
    }

    #[test]
    fn parse_no_arguments_serves_default_db() {
        let i = run(&[]).unwrap();
        assert_eq!(i.command, Command::Serve);
        assert_eq!(i.db, PathBuf::from("review-mcp.db"));
        assert_eq!(run(&["serve"]).unwrap().command, Command::Serve);
    }

    #[test]
    fn parse_db_flag_wins_over_environment() {
        let env = Some(OsString::from("/env.db"));
        assert_eq!(
            parse(os(&["--db", "/flag.db"]), env.clone()).unwrap().db,
            PathBuf::from("/flag.db")
        );
        assert_eq!(
            parse(os(&["check", "--db=/x.db"]), env.clone()).unwrap().db,
            PathBuf::from("/x.db")
        );
        assert_eq!(parse(os(&[]), env).unwrap().db, PathBuf::from("/env.db"));
        assert_eq!(
            parse(os(&[]), Some(OsString::new())).unwrap().db,
            PathBuf::from("review-mcp.db")
        );
    }

    #[test]
    fn parse_subcommands_with_their_arguments() {
        assert_eq!(
            run(&["revision", "a.step", "b.step"]).unwrap().command,
            Command::Revision {
                files: vec!["a.step".into(), "b.step".into()]
            }
        );
        assert_eq!(
            run(&["export"]).unwrap().command,
            Command::Export { output: None }
        );
        assert_eq!(
            run(&["export", "-o", "out.jsonl"]).unwrap().command,
            Command::Export {
                output: Some("out.jsonl".into())
            }
        );
        assert_eq!(
            run(&["--output=o.jsonl", "export"]).unwrap().command,
            Command::Export {
                output: Some("o.jsonl".into())
            }
        );
        assert_eq!(
            run(&["import", "in.jsonl"]).unwrap().command,
            Command::Import {
                file: "in.jsonl".into()
            }
        );
        assert_eq!(run(&["check"]).unwrap().command, Command::Check);
        assert_eq!(
            run(&["replay", "--command", "./srv --x", "t.jsonl"])
                .unwrap()
                .command,
            Command::Replay {
                bless: false,
                command: Some("./srv --x".into()),
                files: vec!["t.jsonl".into()]
            }
        );
        assert_eq!(
            run(&["replay", "--bless", "t.jsonl"]).unwrap().command,
            Command::Replay {
                bless: true,
                command: None,
                files: vec!["t.jsonl".into()]
            }
        );
        assert_eq!(
            run(&["revision", "--", "-odd.step"]).unwrap().command,
            Command::Revision {
                files: vec!["-odd.step".into()]
            }
        );
    }

    #[test]
    fn parse_help_and_version_win_over_subcommands() {
        assert_eq!(run(&["--help"]).unwrap().command, Command::Help);
        assert_eq!(run(&["check", "-h"]).unwrap().command, Command::Help);
        assert_eq!(run(&["--version"]).unwrap().command, Command::Version);
        assert_eq!(run(&["-V"]).unwrap().command, Command::Version);
    }

    #[test]
    fn parse_unknown_flag_is_refused() {
        assert!(err(&["--bd", "x"]).contains("unknown flag '--bd'"));
        assert!(err(&["check", "-x"]).contains("unknown flag '-x'"));
        assert!(err(&["--db-path=x"]).contains("unknown flag '--db-path'"));
    }

    #[test]
    fn parse_missing_value_is_refused() {
        assert!(err(&["--db"]).contains("--db needs a value (PATH)"));
        assert!(err(&["--db", "--help"]).contains("--db needs a value"));
        assert!(err(&["export", "-o"]).contains("-o/--output needs a value (FILE)"));
        assert!(err(&["--db="]).contains("non-empty"));
    }

    #[test]
    fn parse_repeated_flag_is_refused() {
        assert!(err(&["--db", "a", "--db", "b"]).contains("--db given more than once"));
        assert!(err(&["--db=a", "check", "--db=a"]).contains("more than once"));
        assert!(err(&["--help", "--help"]).contains("more than once"));
        assert!(err(&["export", "-o", "a", "--output", "b"]).contains("more than once"));
    }

    #[test]
    fn parse_flag_value_on_a_switch_is_refused() {
        assert!(err(&["--help=yes"]).contains("--help takes no value"));
    }

    #[test]
    fn parse_unknown_subcommand_and_wrong_file_counts_are_refused() {
        assert!(err(&["part.step"]).contains("unknown subcommand 'part.step'"));
        assert!(err(&["revision"]).contains("at least one FILE"));
        assert!(err(&["replay"]).contains("at least one FILE"));
        assert!(err(&["import"]).contains("needs a FILE"));
        assert!(err(&["import", "a", "b"]).contains("exactly one FILE"));
        assert!(err(&["check", "x"]).contains("takes no FILE"));
        assert!(err(&["serve", "x"]).contains("takes no FILE"));
        assert!(err(&["export", "x"]).contains("takes no FILE"));
    }

    #[test]
    fn parse_flag_for_another_subcommand_is_refused() {
        assert!(err(&["check", "-o", "x"]).contains("only valid with 'export'"));
        assert!(err(&["-o", "x"]).contains("only valid with 'export'"));
        assert!(err(&["export", "--command", "x"]).contains("only valid with 'replay'"));
    }

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
            "export [-o FILE]",
            "import FILE",
            "check",
            "replay",
            "REVIEW_MCP_DB_PATH",
            "./review-mcp.db",
            "MCP_LOG_LEVEL",
            "default info",
            "MCP_LOG_FORMAT",
            "default json",
            "MCP_TRACE_ID",
        ] {
            assert!(h.contains(needle), "help lacks {needle}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn create_temp_beside_planted_symlink_is_skipped_not_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("review-mcp-cli-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("r.db");
        std::fs::write(&db, b"db").unwrap();
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o640)).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let out = dir.join("out.jsonl");
        let first = temp_candidates(&out).next().unwrap();
        std::os::unix::fs::symlink(&victim, &first).unwrap();
        let (tmp, mut file) = create_temp_beside(&out, &db).unwrap();
        assert_ne!(tmp, first);
        file.write_all(b"export").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(
            std::fs::symlink_metadata(&first)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let mode = std::fs::metadata(&tmp).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_revision_matches_known_digest() {
        let dir = std::env::temp_dir().join(format!("review-mcp-cli-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("abc.txt");
        std::fs::write(&p, b"abc").unwrap();
        assert_eq!(
            file_revision(&p).unwrap(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let mut out = Vec::new();
        let mut errs = Vec::new();
        let missing = dir.join("missing.step");
        let ok = revision(&[missing.clone(), p.clone()], &mut out, &mut errs).unwrap();
        assert!(!ok);
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            format!(
                "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  {}\n",
                p.display()
            )
        );
        assert!(String::from_utf8(errs).unwrap().contains("missing.step"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
