//! The validated command line: [`Invocation`], which can only hold a runnable [`Command`],
//! made from [`RawArgs`] by applying each subcommand's rules and resolving the database path.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::args::{RawArgs, UsageError, short};

/// The database file when neither `--db` nor `REVIEW_MCP_DB_PATH` names one.
pub const DEFAULT_DB: &str = "review-mcp.db";

/// The environment variable naming the database file.
pub const DB_ENV: &str = "REVIEW_MCP_DB_PATH";

/// The subcommands that open the database, and so take `--db` (as messages list them).
const DATABASE_COMMANDS: [&str; 8] = [
    "serve", "review", "export", "form3", "import", "check", "backup", "sync",
];

/// The subcommands that open no database: `--db` given to one is refused, and
/// `REVIEW_MCP_DB_PATH` is not read for them.
const NO_DATABASE: [&str; 3] = ["revision", "merge-file", "replay"];

/// What to run, after validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Serve,
    /// `--help`: the whole usage, or that of the subcommand given with it.
    Help(Option<&'static str>),
    Version,
    Revision {
        files: Vec<PathBuf>,
    },
    Export {
        output: Option<PathBuf>,
    },
    /// The AS9102 Form 3 of a revision, as CSV: `target` is the part's file (its revision is
    /// hashed when the command runs) or a `sha256:` revision, as `review` takes.
    Form3 {
        target: PathBuf,
        output: Option<PathBuf>,
    },
    Import {
        file: PathBuf,
    },
    Check,
    /// `review`: the engineer's verdicts in their terminal, on the revision of `target` (a
    /// file, or a `sha256:` revision).
    Review {
        target: PathBuf,
    },
    Backup {
        file: PathBuf,
    },
    Sync {
        dir: PathBuf,
        dry_run: bool,
    },
    MergeFile {
        base: PathBuf,
        ours: PathBuf,
        theirs: PathBuf,
        /// The file's path in the work tree (git's `%P`), for the messages.
        name: Option<PathBuf>,
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
    /// The database (resolved only for a command that opens one: else the unused default).
    pub db: PathBuf,
    /// `--author` (serve and review): who the writes are recorded as.
    pub author: Option<String>,
}

impl RawArgs {
    /// Applies the rules of each subcommand and resolves the database path: `--db` wins over
    /// `env_db` (the value of `REVIEW_MCP_DB_PATH`), which wins over [`DEFAULT_DB`]. An empty
    /// environment value counts as unset. A leading `~` is `home` (see [`home_expanded`]).
    pub fn validate(
        self,
        env_db: Option<OsString>,
        home: Option<OsString>,
    ) -> Result<Invocation, UsageError> {
        // Help, version and the commands that open no database never resolve its path: a
        // `REVIEW_MCP_DB_PATH` they do not use (`~/…` without HOME) must not refuse them.
        if self.help || self.version {
            return Ok(Invocation {
                command: if self.help {
                    Command::Help(self.subcommand)
                } else {
                    Command::Version
                },
                db: PathBuf::from(DEFAULT_DB),
                author: None,
            });
        }
        let sub = self.subcommand.unwrap_or("serve");
        let uses_db = !NO_DATABASE.contains(&sub);
        if self.db.is_some() && !uses_db {
            let why = if sub == "replay" {
                "replay runs this server on a fresh in-memory database; to replay against a \
                 database of your own, give the server's command line: --command 'review-mcp \
                 --db PATH'"
            } else {
                "it opens no database: leave --db out"
            };
            return Err(UsageError(format!(
                "--db is only valid with {}, not '{sub}' ({why})",
                DATABASE_COMMANDS.join(", ")
            )));
        }
        let db = if uses_db {
            let (db, from) = match (&self.db, env_db.filter(|v| !v.is_empty())) {
                (Some(db), _) => (PathBuf::from(db), "--db"),
                (None, Some(env)) => (PathBuf::from(env), DB_ENV),
                (None, None) => (PathBuf::from(DEFAULT_DB), DB_ENV),
            };
            let db = home_expanded(db, home)?;
            refuse_unexpanded_variable(&db, from)?;
            refuse_stray_characters(&db, from)?;
            db
        } else {
            PathBuf::from(DEFAULT_DB)
        };
        if self.output.is_some() && !matches!(sub, "export" | "form3") {
            return Err(UsageError(format!(
                "-o/--output is only valid with 'export' or 'form3', not '{sub}'"
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
        if self.author.is_some() && sub != "serve" && sub != "review" {
            return Err(UsageError(format!(
                "--author is only valid with 'serve' and 'review', not '{sub}'"
            )));
        }
        let author = match self.author.as_ref().map(|a| a.to_str()) {
            None => None,
            Some(Some(a)) if a.trim().is_empty() || a.chars().count() > 200 => {
                return Err(UsageError(
                    "--author needs a name of 1 to 200 characters".into(),
                ));
            }
            Some(Some(a)) => match super::serve::unprintable_in_name(a.trim()) {
                Some(why) => return Err(UsageError(format!("--author {why}"))),
                None => Some(a.trim().to_string()),
            },
            Some(None) => return Err(UsageError("--author must be valid UTF-8".into())),
        };
        if self.dry_run && sub != "sync" {
            return Err(UsageError(format!(
                "--dry-run is only valid with 'sync', not '{sub}'"
            )));
        }
        if self.bless && self.command.is_some() {
            return Err(UsageError(
                "--bless records this server's answers; it cannot be combined with --command"
                    .into(),
            ));
        }
        let files: Vec<PathBuf> = self.positionals.into_iter().map(PathBuf::from).collect();
        // `-` is stdin or stdout elsewhere; here every FILE is a path (never a stream), so a
        // `-` would be looked up, or written, as a file of that name.
        if files.iter().any(|f| f.as_os_str() == "-") {
            return Err(UsageError(format!(
                "'{sub}' takes files by their path, and '-' is not stdin or stdout here: give \
                 the file's path (./- for a file named -)"
            )));
        }
        // An empty argument names no file: most often a shell variable that is unset.
        if files.iter().any(|f| f.as_os_str().is_empty()) {
            return Err(UsageError(format!(
                "'{sub}' got an empty argument where a file's path goes (a shell variable that \
                 is unset or empty?): give the path"
            )));
        }
        let no_files = |files: &[PathBuf]| match files.first() {
            Some(f) => Err(UsageError(format!(
                "'{sub}' takes no FILE, but got '{}'",
                short(&f.to_string_lossy())
            ))),
            None => Ok(()),
        };
        // The one file of `sub`, else: it `needs` one, or takes exactly one `what`.
        let only = |files: Vec<PathBuf>, needs: &str, what: &str| {
            let mut files = files.into_iter();
            match (files.next(), files.next()) {
                (Some(file), None) => Ok(file),
                (None, _) => Err(UsageError(format!("'{sub}' needs {needs}"))),
                (Some(_), Some(_)) => Err(UsageError(format!("'{sub}' takes exactly one {what}"))),
            }
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
                    output: output_file(self.output),
                }
            }
            "review" => Command::Review {
                target: only(files, "a FILE or a revision", "FILE or revision")?,
            },
            "form3" => Command::Form3 {
                target: only(files, "a FILE or a REVISION", "FILE or REVISION")?,
                output: output_file(self.output),
            },
            "import" => Command::Import {
                file: only(files, "a FILE", "FILE")?,
            },
            "backup" => Command::Backup {
                file: only(files, "a FILE", "FILE")?,
            },
            "sync" => Command::Sync {
                dir: only(files, "a DIR", "DIR")?,
                dry_run: self.dry_run,
            },
            "merge-file" => {
                let mut files = files.into_iter();
                match (
                    files.next(),
                    files.next(),
                    files.next(),
                    files.next(),
                    files.next(),
                ) {
                    (Some(base), Some(ours), Some(theirs), name, None) => Command::MergeFile {
                        base,
                        ours,
                        theirs,
                        name,
                    },
                    _ => {
                        return Err(UsageError(
                            "'merge-file' takes three files and git's path of the file: BASE OURS THEIRS [PATH] (git's %O %A %B %P)".into(),
                        ));
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
            "replay" => {
                let command = self.command.map(|c| c.to_string_lossy().into_owned());
                if command.as_ref().is_some_and(|c| c.trim().is_empty()) {
                    return Err(UsageError(
                        "--command needs a server command line (CMD), not blanks; leave \
                         --command out to replay against this server"
                            .into(),
                    ));
                }
                Command::Replay {
                    bless: self.bless,
                    command,
                    files,
                }
            }
            other => return Err(UsageError(format!("unknown subcommand '{other}'"))),
        };
        Ok(Invocation {
            command,
            db,
            author,
        })
    }
}

/// The file of `-o FILE`: none (stdout) when it is not given or is `-`, the usual name of
/// stdout, which would otherwise have written a file called `-`.
fn output_file(output: Option<OsString>) -> Option<PathBuf> {
    output.filter(|o| o != "-").map(PathBuf::from)
}

/// Parses the arguments after the program name, with the value of `REVIEW_MCP_DB_PATH`.
pub fn parse(
    args: impl IntoIterator<Item = OsString>,
    env_db: Option<OsString>,
    home: Option<OsString>,
) -> Result<Invocation, UsageError> {
    RawArgs::parse(args)?.validate(env_db, home)
}

/// Refuses a database path holding a variable nothing expanded (`${user_config.database}`, a
/// bundle setting the host passed unfilled; `$HOME/review.db` in a JSON configuration, where
/// no shell runs): taken literally, it would create a database under that name in the host's
/// working directory, a review no other session finds. `from` is where the path came from.
/// A `$` that starts no variable name (`price$5.db`, `$/`) is a file name like any other, and
/// so is a name that exists (a `$proj` folder, or the `${user_config.database}` file an
/// earlier build created, which holds the reviews recorded so far).
fn refuse_unexpanded_variable(db: &Path, from: &str) -> Result<(), UsageError> {
    let text = db.to_string_lossy();
    let starts_variable =
        |c: Option<char>| c.is_some_and(|c| c == '{' || c == '_' || c.is_ascii_alphabetic());
    let mut named = PathBuf::new();
    let unexpanded = db.components().any(|c| {
        named.push(c);
        let part = c.as_os_str().to_string_lossy();
        let mut chars = part.chars();
        let variable =
            part.contains("${") || (chars.next() == Some('$') && starts_variable(chars.next()));
        variable && std::fs::symlink_metadata(&named).is_err()
    });
    if !unexpanded {
        return Ok(());
    }
    Err(UsageError(format!(
        "{from} is {}, a path with a variable nothing expanded (a host setting left unfilled, or a configuration no shell reads): set the database path in the host's settings for review-mcp, or give the path itself (an absolute path; a leading ~/ is your home directory)",
        short(&text)
    )))
}

/// Refuses a database path a part of which names nothing yet and holds a control character
/// (a line break, a tab) or starts or ends with white space or a character drawn as nothing
/// (inside a name, [`review_mcp::text::is_invisible_in_writing`] is how some scripts are
/// written: `辻󠄀.db`, found by advcli): a path pasted into a host's
/// configuration with the line break or the space after it (`"/home/ada/review.db "`) made
/// a new, empty database beside the one it meant, and the review seemed forgotten. A file or
/// folder of such a name that exists is opened as named.
fn refuse_stray_characters(db: &Path, from: &str) -> Result<(), UsageError> {
    let mut named = PathBuf::new();
    let stray = db.components().find_map(|c| {
        named.push(c);
        let part = c.as_os_str().to_string_lossy();
        // A variation selector or a tag character ends a character of its own (辻󠄀, a flag):
        // at an end it is what the name is written with, not something pasted after it.
        let at_end = |c: char| {
            c.is_whitespace()
                || (review_mcp::text::is_invisible_in_writing(c)
                    && !matches!(c, '\u{E0000}'..='\u{E0FFF}'))
        };
        let what = if part.chars().any(|c| {
            review_mcp::text::is_control_like(c) && !review_mcp::text::is_invisible_in_writing(c)
        }) {
            "a control character (a line break, a tab, a direction control, a byte order mark)"
        } else if part.starts_with(at_end) || part.ends_with(at_end) {
            "white space or an invisible character at an end"
        } else {
            return None;
        };
        std::fs::symlink_metadata(&named).is_err().then_some(what)
    });
    let Some(what) = stray else {
        return Ok(());
    };
    Err(UsageError(format!(
        "{from} is '{}', which holds {what} and names nothing yet: it would make a new, empty database there, not open yours; give the path without it",
        review_mcp::text::escape_controls(&short(&db.to_string_lossy()))
    )))
}

/// The database path with a leading `~` (the whole first component: `~` or `~/…`) replaced by
/// `home` (`$HOME`). A shell expands it before review-mcp sees it, but a host's JSON
/// configuration, a bundle setting or `--db=~/…` passes it as written, and taken literally it
/// would put the database in a directory named `~` under the host's working directory.
/// `~user/…` is left as it is. Without a home to expand to, the path is refused.
pub fn home_expanded(db: PathBuf, home: Option<OsString>) -> Result<PathBuf, UsageError> {
    let mut parts = db.components();
    if parts.next() != Some(std::path::Component::Normal("~".as_ref())) {
        return Ok(db);
    }
    match home.filter(|h| !h.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(parts.as_path())),
        None => Err(UsageError(format!(
            "the database path {} starts with ~, and HOME is not set to expand it: give the path without ~ (an absolute path)",
            short(&db.to_string_lossy())
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    fn run(args: &[&str]) -> Result<Invocation, UsageError> {
        parse(os(args), None, None)
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
            parse(os(&["--db", "/flag.db"]), env.clone(), None)
                .unwrap()
                .db,
            PathBuf::from("/flag.db")
        );
        assert_eq!(
            parse(os(&["check", "--db=/x.db"]), env.clone(), None)
                .unwrap()
                .db,
            PathBuf::from("/x.db")
        );
        assert_eq!(
            parse(os(&[]), env, None).unwrap().db,
            PathBuf::from("/env.db")
        );
        assert_eq!(
            parse(os(&[]), Some(OsString::new()), None).unwrap().db,
            PathBuf::from("review-mcp.db")
        );
    }

    /// Regression: `REVIEW_MCP_DB_PATH=~/Documents/review-mcp/review.db` in a host's JSON
    /// configuration (server.json's own placeholder) or `--db=~/r.db` reaches the server
    /// unexpanded, and was taken literally: a directory named `~` in the host's working
    /// directory. A leading `~` is the home directory.
    #[test]
    fn parse_db_with_a_leading_tilde_is_in_the_home_directory() {
        let home = || Some(OsString::from("/home/ada"));
        let env = Some(OsString::from("~/Documents/review-mcp/review.db"));
        assert_eq!(
            parse(os(&[]), env, home()).unwrap().db,
            PathBuf::from("/home/ada/Documents/review-mcp/review.db")
        );
        assert_eq!(
            parse(os(&["check", "--db=~/r.db"]), None, home())
                .unwrap()
                .db,
            PathBuf::from("/home/ada/r.db")
        );
        // Only a `~` of its own is the home directory.
        for literal in ["~ada/r.db", "./~/r.db", "/srv/~/r.db", "~r.db"] {
            assert_eq!(
                parse(os(&["--db", literal]), None, home()).unwrap().db,
                PathBuf::from(literal)
            );
        }
        let Err(UsageError(m)) = parse(os(&["--db", "~/r.db"]), None, None) else {
            panic!("a ~ path without HOME was accepted");
        };
        assert!(
            m.contains("HOME is not set") && m.contains("absolute path"),
            "{m}"
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
        assert_eq!(run(&["--help"]).unwrap().command, Command::Help(None));
        assert_eq!(
            run(&["check", "-h"]).unwrap().command,
            Command::Help(Some("check"))
        );
        assert_eq!(run(&["--version"]).unwrap().command, Command::Version);
        assert_eq!(run(&["-V"]).unwrap().command, Command::Version);
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
        assert!(err(&["form3"]).contains("needs a FILE or a REVISION"));
        let rev = format!("sha256:{}", "a".repeat(64));
        assert!(err(&["form3", &rev, &rev]).contains("exactly one FILE or REVISION"));
        assert_eq!(
            run(&["form3", &rev, "-o", "f3.csv"]).unwrap().command,
            Command::Form3 {
                target: rev.clone().into(),
                output: Some("f3.csv".into())
            }
        );
        // A FILE is hashed when the command runs, as `review` does.
        assert_eq!(
            run(&["form3", "bracket.step"]).unwrap().command,
            Command::Form3 {
                target: "bracket.step".into(),
                output: None
            }
        );
    }

    #[test]
    fn parse_db_only_for_the_commands_that_open_one() {
        for sub in DATABASE_COMMANDS {
            assert!(!NO_DATABASE.contains(&sub));
        }
        for sub in super::super::args::SUBCOMMANDS {
            assert!(
                DATABASE_COMMANDS.contains(&sub) != NO_DATABASE.contains(&sub),
                "{sub} is in neither list, or in both"
            );
        }
        assert!(err(&["--db", "x", "revision", "a"]).contains("not 'revision'"));
        assert!(err(&["--db", "x", "merge-file", "a", "b", "c"]).contains("not 'merge-file'"));
        assert!(err(&["--db", "x", "replay", "t"]).contains("--command 'review-mcp --db PATH'"));
        // The environment's path is not even resolved for them (HOME unset here).
        let env = || Some(OsString::from("~/r.db"));
        assert!(parse(os(&["revision", "a"]), env(), None).is_ok());
        assert!(parse(os(&["--version"]), env(), None).is_ok());
        assert!(parse(os(&["check"]), env(), None).is_err());
    }

    #[test]
    fn parse_dash_as_a_file_is_refused_with_the_way_to_name_one() {
        for args in [
            &["revision", "-"][..],
            &["revision", "a", "--", "-"],
            &["import", "-"],
            &["backup", "-"],
            &["sync", "-"],
            &["review", "-"],
            &["merge-file", "a", "-", "c"],
            &["replay", "-"],
        ] {
            assert!(err(args).contains("./- for a file named -"), "{args:?}");
        }
        assert!(run(&["revision", "./-"]).is_ok());
    }

    /// Regression: git hands the driver the file's path in the work tree (`%P`) as the line
    /// the README gives has it, without `--`: a synced folder whose path starts with `-`
    /// (`-review/records/<id>.json`) had every merge refused as an unknown flag, exit status
    /// 2, and git left each file both sides changed conflicted. The fourth argument of
    /// `merge-file` is that path, whatever it starts with.
    #[test]
    fn parse_merge_file_takes_a_path_starting_with_a_dash() {
        let path = "-review/records/rec_1.json";
        for args in [
            &["merge-file", "a", "b", "c", path][..],
            &["merge-file", "a", "b", "c", "--", path],
        ] {
            match run(args).map(|i| i.command) {
                Ok(Command::MergeFile { name, .. }) => {
                    assert_eq!(name, Some(PathBuf::from(path)), "{args:?}")
                }
                other => panic!("{args:?} parsed as {other:?}"),
            }
        }
        assert!(err(&["merge-file", "a", "-b", "c"]).contains("unknown flag '-b'"));
    }

    /// Regression: an empty FILE or DIR (`review-mcp sync "$DIR"` with DIR unset, the
    /// commonest script slip) reached the commands, each failing its own way with exit status
    /// 1: "cannot make an empty path absolute" (sync), "cannot write the backup : No such file"
    /// (a name of nothing); an empty flag value was already a usage error. It is one too.
    #[test]
    fn parse_an_empty_file_argument_is_refused_as_a_usage_error() {
        for args in [
            &["revision", ""][..],
            &["revision", "a", "--", ""],
            &["import", ""],
            &["backup", ""],
            &["sync", ""],
            &["sync", "--dry-run", ""],
            &["review", ""],
            &["form3", ""],
            &["merge-file", "a", "", "c"],
            &["replay", ""],
        ] {
            let m = err(args);
            assert!(
                m.contains("an empty argument") && m.contains("unset"),
                "{args:?}: {m}"
            );
        }
    }

    #[test]
    fn parse_output_dash_is_stdout_and_blank_command_is_refused() {
        assert_eq!(
            run(&["export", "-o", "-"]).unwrap().command,
            Command::Export { output: None }
        );
        assert!(err(&["replay", "--command", " ", "t"]).contains("needs a server command line"));
    }

    #[test]
    fn parse_flag_for_another_subcommand_is_refused() {
        assert!(err(&["check", "-o", "x"]).contains("only valid with 'export' or 'form3'"));
        assert!(err(&["-o", "x"]).contains("only valid with 'export' or 'form3'"));
        assert!(err(&["export", "--command", "x"]).contains("only valid with 'replay'"));
    }

    /// Regression: a bundle's `REVIEW_MCP_DB_PATH` is `${user_config.database}`, filled in by
    /// the host; a host that passes the setting unfilled (as some pass the author's, which is
    /// why `${user_config.author}` is nobody), or a JSON configuration with `$HOME/review.db`
    /// (no shell expands it), was taken literally: `serve` created a database named
    /// `${user_config.database}` in the host's working directory, a review no other session
    /// finds. A path holding an unexpanded variable is refused, naming where it came from.
    #[test]
    fn parse_db_with_an_unexpanded_variable_is_refused() {
        for value in [
            "${user_config.database}",
            "${DOCUMENTS}/review-mcp/review.db",
            "$HOME/review.db",
            "/srv/${USER}/r.db",
        ] {
            let Err(UsageError(m)) = parse(os(&[]), Some(OsString::from(value)), None) else {
                panic!("REVIEW_MCP_DB_PATH={value} was accepted");
            };
            assert!(
                m.contains("REVIEW_MCP_DB_PATH") && m.contains(value) && m.contains("variable"),
                "{m}"
            );
            let m = err(&["check", "--db", value]);
            assert!(m.contains("--db") && m.contains(value), "{m}");
        }
        // A `$` that starts no variable name is a file name like any other.
        for literal in ["/srv/r$.db", "price$5.db", "/srv/$/r.db", "a$b/r.db"] {
            assert_eq!(
                parse(os(&[]), Some(OsString::from(literal)), None)
                    .unwrap()
                    .db,
                PathBuf::from(literal)
            );
        }
    }

    /// Regression (review4): a `$` directory or file that exists (`/data/$proj/r.db`, or the
    /// `${user_config.database}` an earlier build created in the host's folder, holding the
    /// reviews recorded so far) was refused as an unexpanded variable, exit 2, with no way to
    /// give it: an existing name is a name, whatever its characters.
    #[test]
    fn parse_db_naming_an_existing_dollar_path_is_accepted() {
        let dir =
            std::env::temp_dir().join(format!("review-mcp-cli-dollar-{}", std::process::id()));
        let project = dir.join("$proj");
        std::fs::create_dir_all(&project).unwrap();
        let left = dir.join("${user_config.database}");
        std::fs::write(&left, b"").unwrap();
        for db in [project.join("r.db"), left.clone(), project.join("${X}")] {
            let accepted = parse(os(&[]), Some(db.clone().into_os_string()), None).map(|i| i.db);
            if db.ends_with("${X}") {
                assert!(accepted.is_err(), "{db:?} was accepted");
            } else {
                assert_eq!(accepted.ok(), Some(db.clone()), "{db:?}");
                let flag = ["check", "--db", db.to_str().unwrap_or_default()];
                assert_eq!(run(&flag).ok().map(|i| i.db), Some(db));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
