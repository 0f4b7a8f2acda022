//! The command line as typed: [`RawArgs`] records the flags and words given, refusing only
//! unknown flags, missing values and repeated flags; [`UsageError`] is the refusal.

use std::ffi::{OsStr, OsString};

/// A mistake on the command line: exit status 2 with [`USAGE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// The subcommands, as typed.
pub(super) const SUBCOMMANDS: [&str; 11] = [
    "serve",
    "review",
    "revision",
    "export",
    "form3",
    "import",
    "check",
    "backup",
    "sync",
    "merge-file",
    "replay",
];

/// The command line as typed, before any rule beyond "is this a known flag" is applied.
#[derive(Debug, Default)]
pub struct RawArgs {
    pub(super) db: Option<OsString>,
    pub(super) output: Option<OsString>,
    pub(super) command: Option<OsString>,
    pub(super) help: bool,
    pub(super) version: bool,
    pub(super) bless: bool,
    pub(super) dry_run: bool,
    pub(super) author: Option<OsString>,
    pub(super) subcommand: Option<&'static str>,
    pub(super) positionals: Vec<OsString>,
}

/// A flag that takes a value: which slot it fills.
#[derive(Clone, Copy)]
enum ValueFlag {
    Db,
    Output,
    Command,
    Author,
}

impl ValueFlag {
    /// The flag as messages name it, and its value's name.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            ValueFlag::Db => ("--db", "PATH"),
            ValueFlag::Output => ("-o/--output", "FILE"),
            ValueFlag::Command => ("--command", "CMD"),
            ValueFlag::Author => ("--author", "NAME"),
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
            // The merge driver's fourth argument is git's `%P`, the file's path in the work
            // tree, given after no `--` by the documented driver line: a folder may start
            // with `-`.
            if raw.subcommand == Some("merge-file") && raw.positionals.len() == 3 {
                raw.positional(arg)?;
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
                "--author" => Some(ValueFlag::Author),
                "-h" | "--help" | "-V" | "--version" | "--bless" | "--dry-run" => None,
                _ => {
                    return Err(UsageError(format!(
                        "unknown flag '{}' (a FILE whose name starts with '-' goes after --)",
                        short(flag)
                    )));
                }
            };
            match value_flag {
                None => {
                    if attached.is_some() {
                        return Err(UsageError(format!("{flag} takes no value")));
                    }
                    let slot = match flag {
                        "-h" | "--help" => &mut raw.help,
                        "--bless" => &mut raw.bless,
                        "--dry-run" => &mut raw.dry_run,
                        _ => &mut raw.version,
                    };
                    if *slot {
                        return Err(UsageError(format!("{flag} given more than once")));
                    }
                    *slot = true;
                }
                Some(vf) => {
                    let (name, metavar) = vf.names();
                    let value = match attached {
                        Some(v) => v,
                        None => match args.next() {
                            Some(v) if !looks_like_flag(&v) => v,
                            _ => {
                                return Err(UsageError(format!(
                                    "{name} needs a value ({metavar})"
                                )));
                            }
                        },
                    };
                    if value.is_empty() {
                        return Err(UsageError(format!(
                            "{name} needs a non-empty value ({metavar})"
                        )));
                    }
                    let slot = match vf {
                        ValueFlag::Db => &mut raw.db,
                        ValueFlag::Output => &mut raw.output,
                        ValueFlag::Command => &mut raw.command,
                        ValueFlag::Author => &mut raw.author,
                    };
                    if slot.is_some() {
                        return Err(UsageError(format!("{name} given more than once")));
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
}

/// A value that is really the next flag (`--db --help`): refuse it as a missing value rather
/// than open a database called `--help`. A value starting with '-' can be attached instead:
/// `--db=-odd-name`.
fn looks_like_flag(v: &OsStr) -> bool {
    v.to_str().is_some_and(|s| s.starts_with('-') && s != "-")
}

/// Keeps an echoed argument short in error messages.
pub(super) fn short(s: &str) -> String {
    review_mcp::text::prefix_chars(s, 80)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(args: &[&str]) -> String {
        match RawArgs::parse(args.iter().map(OsString::from)) {
            Err(UsageError(m)) => m,
            Ok(raw) => panic!("{args:?} parsed as {raw:?}"),
        }
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
}
