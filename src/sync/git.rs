//! What the repository's own settings make git do with the folder's files, asked of git itself
//! before a sync reads or writes anything. Sync reads and writes the folder's files on disk;
//! git decides what of them is checked out and what is committed, and a setting of the
//! repository (or of one clone) can make the two differ without a word:
//!
//! - a sparse checkout (or a file marked `--skip-worktree` by hand) leaves the folder's files
//!   out of the work tree: sync would take every one for deleted by the team, delete it from
//!   the database and record the deletion in the team's history, and git would not commit what
//!   sync writes there (nor a file marked `--assume-unchanged`);
//! - an ignore pattern (a `.gitignore`, `.git/info/exclude`, `core.excludesFile`) matching the
//!   folder's files has `git add` skip the new ones unsaid: the review never reaches the team;
//! - an attribute that rewrites the file between the work tree and the commit (`filter`, such
//!   as `filter=lfs`, which a clone without the filter checks out as something that is not an
//!   item; `ident`, which rewrites `$Id$` in a note; `working-tree-encoding`), or a `merge`
//!   rule other than review-mcp's driver (in `.git/info/attributes`, which outranks the
//!   folder's own `.gitattributes`). End-of-line conversion (`text`, `eol`, `core.autocrlf`)
//!   is harmless: sync reads a file with CRLF line endings as the same item.
//!
//! git is the authority (`git ls-files -v`, `git sparse-checkout check-rules`, `git
//! check-ignore --no-index`, `git check-attr`), run in the folder's work tree (as git finds
//! it from the folder: `git rev-parse --show-toplevel`) with the variables that would point it
//! at another repository, work tree or index removed (`GIT_DIR`, `GIT_WORK_TREE`,
//! `GIT_INDEX_FILE`, …: a host may pass its own through): the repository is the one the
//! folder is in, as for the engineer's `git add` there. A folder in no work tree (a `.git`
//! git does not take for a repository is none), or a machine without git, is not checked; a
//! git that fails there (a `safe.directory` refusal, a broken repository) refuses the sync
//! with what git said, since the engineer's `git add` fails the same way.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::{fs, thread};

use super::history::HISTORY_DIR;
use super::owned::{ATTRIBUTES_FILE, ID_FILE, README_FILE};
use super::{Hash, ItemKind, Result, shown};
use crate::text::{inline, shell_word};

/// The variables that make git use another repository, work tree, index or object store than
/// the one found from its working directory.
const LOCATION_VARIABLES: [&str; 8] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
];

/// Names of files sync writes, standing for the ones it has not written yet, one per
/// subfolder (the form of the ids the server makes), so a pattern that would catch its next
/// file is found before that file exists.
fn sample_names() -> [(&'static str, String); 3] {
    let hex = "0123456789abcdef";
    [
        (ItemKind::Record.dir(), format!("rec_{hex}.json")),
        (ItemKind::Decision.dir(), format!("dec_{hex}.json")),
        (HISTORY_DIR, format!("evt-{hex}{hex}.json")),
    ]
}

/// git run in `dir` (no file-system monitor started), `stdin` written to it, its messages in English (the refusal quotes
/// them, and a folder in no repository is told by them): `None` when there is no git to run.
fn run_git(dir: &Path, args: &[&OsStr], stdin: &[u8]) -> Result<Option<Output>> {
    let mut cmd = Command::new("git");
    // The repository's `core.fsmonitor` (a command of its configuration, or git's monitor
    // daemon) is what reading the index would otherwise start: these questions need none.
    cmd.current_dir(dir)
        .args(["-c", "core.fsmonitor=false"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .env("LANGUAGE", "C");
    for v in LOCATION_VARIABLES {
        cmd.env_remove(v);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            log::debug!("sync: no git to ask about {}: {e}", dir.display());
            return Ok(None);
        }
        Err(e) => return Err(fail!("cannot run git in {}: {e}", shown(dir))),
    };
    let input = child.stdin.take();
    let out = thread::scope(|s| {
        s.spawn(move || {
            if let Some(mut i) = input {
                // git stops reading when it fails; what it says then is the error.
                let _ = i.write_all(stdin);
            }
        });
        child.wait_with_output()
    })
    .map_err(|e| fail!("cannot run git in {}: {e}", shown(dir)))?;
    Ok(Some(out))
}

/// git in the work tree `top` ([`run_git`]): what it printed, `None` when there is no git to
/// run; an error naming what git said when it exits with a status not in `ok`.
fn git(top: &Path, args: &[&OsStr], stdin: &[u8], ok: &[i32]) -> Result<Option<Vec<u8>>> {
    let Some(out) = run_git(top, args, stdin)? else {
        return Ok(None);
    };
    match out.status.code() {
        Some(c) if ok.contains(&c) => Ok(Some(out.stdout)),
        _ => Err(failed(top, args, &out.stderr)),
    }
}

/// The refusal of a sync git could not answer for in `dir`: the command and git's words.
fn failed(dir: &Path, args: &[&OsStr], stderr: &[u8]) -> super::Error {
    let said = String::from_utf8_lossy(stderr);
    let said: Vec<&str> = said.lines().filter(|l| !l.trim().is_empty()).collect();
    let args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into()).collect();
    fail!(
        "git in {} could not say what it does with the folder's files (`git {}`: {}): sync \
         asks git whether it checks them out and commits them before it changes anything; \
         nothing was changed. Fix what git says (`git status` there says the same), then sync \
         again",
        shown(dir),
        args.join(" "),
        inline(&said.join(" "), 600)
    )
}

/// The top of the work tree git finds for `folder` (absolute; the nearest directory of it
/// that exists is asked), as git spells it: `None` when it is in none (or there is no git).
fn work_tree(folder: &Path) -> Result<Option<PathBuf>> {
    let Some(start) = folder.ancestors().find(|a| a.is_dir()) else {
        return Ok(None);
    };
    let args = os(&["rev-parse", "--show-toplevel"], None);
    let Some(out) = run_git(start, &args, b"")? else {
        return Ok(None);
    };
    if !out.status.success() {
        // A `.git` git does not take for a repository (nor any above it) is none.
        if String::from_utf8_lossy(&out.stderr).contains("not a git repository") {
            return Ok(None);
        }
        return Err(failed(start, &args, &out.stderr));
    }
    let top = out.stdout.strip_suffix(b"\n").unwrap_or(&out.stdout);
    Ok((!top.is_empty()).then(|| super::owned::path_of(top)))
}

/// git's arguments: `fixed`, then `path` when given.
fn os<'a>(fixed: &[&'a str], path: impl Into<Option<&'a OsStr>>) -> Vec<&'a OsStr> {
    let mut args: Vec<&OsStr> = fixed.iter().map(|a| OsStr::new(*a)).collect();
    args.extend(path.into());
    args
}

/// The NUL-terminated fields of git's `-z` output, empty ones kept (`check-ignore -v` gives
/// empty ones for a path no pattern matched).
fn fields_kept(out: &[u8]) -> impl Iterator<Item = &[u8]> {
    out.strip_suffix(&[0]).unwrap_or(out).split(|b| *b == 0)
}

/// The folder with its links resolved as git resolves the work tree's top: its nearest
/// directory that exists made canonical, the names below it kept.
fn resolved(folder: &Path) -> PathBuf {
    for a in folder.ancestors() {
        if let Ok(real) = fs::canonicalize(a) {
            return match folder.strip_prefix(a) {
                Ok(rest) if !rest.as_os_str().is_empty() => real.join(rest),
                _ => real,
            };
        }
    }
    folder.to_path_buf()
}

/// git's pathspec of the folder at `rel` from the work tree's top, taken literally (no glob,
/// no magic in its name): the whole work tree when `rel` is empty.
fn literal_spec(rel: &Path) -> std::ffi::OsString {
    let mut spec = std::ffi::OsString::from(":(literal)");
    spec.push(if rel.as_os_str().is_empty() {
        OsStr::new(".")
    } else {
        rel.as_os_str()
    });
    spec
}

/// The NUL-terminated fields of git's `-z` output.
fn fields(out: &[u8]) -> impl Iterator<Item = &[u8]> {
    out.split(|b| *b == 0).filter(|f| !f.is_empty())
}

/// The path git takes (from the work tree's top, `/` between names) of `name` in the
/// subfolder `dir` (`""`: the folder itself) of the folder at `rel`.
fn git_path(rel: &Path, dir: &str, name: &OsStr) -> Vec<u8> {
    let mut p = Vec::new();
    for part in rel
        .iter()
        .map(OsStr::as_encoded_bytes)
        .chain([dir.as_bytes()])
    {
        if !part.is_empty() {
            p.extend_from_slice(part);
            p.push(b'/');
        }
    }
    p.extend_from_slice(name.as_encoded_bytes());
    p
}

/// The path of git's bytes, as shown in a message.
fn path_shown(b: &[u8]) -> String {
    shown(Path::new(&*String::from_utf8_lossy(b)))
}

/// Why git would not handle a path as sync needs.
#[derive(PartialEq, Eq)]
enum Why {
    /// `git ls-files -v` marks it S: skip-worktree (a sparse checkout, or by hand).
    SkipWorktree,
    /// `git ls-files -v` shows it in lower case: assume-unchanged.
    AssumeUnchanged,
    /// `git sparse-checkout check-rules` leaves it out.
    OutsideSparse,
    /// `git check-ignore -v` matched it: the file holding the pattern, its line, the pattern.
    Ignored {
        source: Vec<u8>,
        line: Vec<u8>,
        pattern: Vec<u8>,
        /// The pattern ignores the folder or a directory it is in: git looks inside no
        /// ignored directory, so no line after it takes the folder back.
        directory: bool,
    },
    /// An attribute (`filter`, `ident`, `working-tree-encoding`) with its value.
    Rewrites { attr: &'static str, value: String },
    /// A merge rule other than review-mcp's driver, over the folder's own.
    Merge(String),
}

impl Why {
    fn said(&self) -> String {
        match self {
            Why::SkipWorktree => "outside git's sparse checkout (`git ls-files -v` marks it S, \
                 skip-worktree): git does not check it out, so sync would take it for deleted by \
                 the team and delete it from the database, and git would not commit what sync \
                 writes there"
                .to_string(),
            Why::AssumeUnchanged => "marked assume-unchanged (`git ls-files -v` shows it in lower \
                 case): git would not see what sync writes there, and never commit it"
                .to_string(),
            Why::OutsideSparse => "outside git's sparse checkout: git would not commit it (`git \
                 add` skips it), so what sync writes there would never reach the team"
                .to_string(),
            Why::Ignored {
                source,
                line,
                pattern,
                ..
            } => format!(
                "ignored by git (`git check-ignore -v PATH` says so), by {}:{}: `{}`: `git add` \
                 leaves it out of every commit unsaid, so what sync writes there would never \
                 reach the team",
                path_shown(source),
                String::from_utf8_lossy(line),
                inline(&String::from_utf8_lossy(pattern), 200)
            ),
            Why::Rewrites { attr: "ident", .. } => "git's attribute ident applies to it: git \
                 rewrites `$Id$` in it when it checks it out, changing a note that holds it"
                .to_string(),
            Why::Rewrites {
                attr: "working-tree-encoding",
                value,
            } => format!(
                "git's attribute working-tree-encoding={value} applies to it: git re-encodes it \
                 when it checks it out and refuses to commit the UTF-8 sync writes"
            ),
            Why::Rewrites { attr, value } => format!(
                "git's attribute {attr}={value} applies to it: git commits what the filter makes \
                 of the file, and a clone without that filter (git-lfs, or the filter's \
                 configuration) checks out something that is not the item's file"
            ),
            Why::Merge(value) => format!(
                "git's attribute merge={value} applies to it, over the folder's own \
                 .gitattributes (`* merge=review`; .git/info/attributes outranks it): git would \
                 merge it by another rule than review-mcp's driver (conflict markers, or two \
                 versions' lines interleaved)"
            ),
        }
    }

    /// How to fix it, for the folder at `rel` in its work tree (`/` between names).
    fn fix(&self, rel: &str) -> String {
        let folder = if rel.is_empty() { "." } else { rel };
        match self {
            Why::SkipWorktree | Why::OutsideSparse => format!(
                "put the folder in the sparse checkout (`git sparse-checkout add {}` in cone \
                 mode, `git sparse-checkout add {}` in non-cone mode, or `git sparse-checkout \
                 disable`; a file marked by hand: `git update-index --no-skip-worktree FILE`)",
                shell_word(folder),
                shell_word(&format!("/{folder}/"))
            ),
            Why::AssumeUnchanged => {
                "undo it: `git update-index --no-assume-unchanged FILE`".to_string()
            }
            Why::Ignored {
                directory: true, ..
            } => "remove that line: it ignores the folder or a directory the folder is in, and \
                  git looks inside no ignored directory (no line after it takes the folder back)"
                .to_string(),
            Why::Ignored { source, .. } => {
                // A .gitignore's patterns are from its own directory; those of
                // .git/info/exclude and core.excludesFile from the work tree's top.
                let source = String::from_utf8_lossy(source);
                let base = match source.rsplit_once('/') {
                    Some((dir, ".gitignore")) if !source.starts_with('/') => Some(dir),
                    None if source == ".gitignore" => Some(""),
                    _ => None,
                };
                let from = match base {
                    Some("") | None => Some(rel),
                    Some(dir) => rel.strip_prefix(dir).and_then(|r| r.strip_prefix('/')),
                };
                match from.filter(|f| !f.is_empty()) {
                    Some(f) => format!(
                        "remove that line, or add after it, in that file, the lines `!/{f}/` and \
                         `!/{f}/**`"
                    ),
                    None => "remove that line (the folder holds sync's files only)".to_string(),
                }
            }
            Why::Rewrites { .. } => {
                let set = "remove the attribute where it is set (.git/info/attributes outranks \
                     every .gitattributes; `git check-attr -a FILE` lists a file's attributes)";
                let (parent, name) = match rel.rsplit_once('/') {
                    _ if rel.is_empty() => return set.to_string(),
                    Some((parent, name)) => (
                        format!(
                            "{parent}/.gitattributes (the folder's \
                         parent's, which outranks those above it)"
                        ),
                        name,
                    ),
                    None => ("the repository's top .gitattributes".to_string(), rel),
                };
                format!(
                    "add the line `{} !filter !ident !working-tree-encoding` to {parent}, or \
                     {set}",
                    attribute_pattern(&format!("/{name}/**"))
                )
            }
            Why::Merge(_) => "remove that merge rule where it is set (.git/info/attributes, or a \
                 .gitattributes)"
                .to_string(),
        }
    }
}

/// Refuses a folder holding files git left unmerged (`git ls-files -u`): a merge or pull
/// stopped on them, and the work tree holds one side's version or git's conflict markers,
/// not the merge (git could not run the merge driver: its line missing in this clone, or the
/// binary on no `PATH` git searches, `review-mcp: not found`), or a whole item git could not
/// place (modify/delete, a rename against a delete). A sync would take that for the folder's
/// version, say `conflicts: 0`, and `git add -A` would then commit it over the teammate's.
/// Nothing is changed.
pub(super) fn refuse_unmerged(folder: &Path) -> Result<()> {
    let folder = &resolved(folder);
    let Some(top) = work_tree(folder)? else {
        return Ok(());
    };
    let Ok(rel) = folder.strip_prefix(&top) else {
        return Ok(());
    };
    let spec = literal_spec(rel);
    let Some(listed) = git(
        &top,
        &os(&["ls-files", "-u", "-z", "--"], Some(&*spec)),
        b"",
        &[0],
    )?
    else {
        return Ok(());
    };
    // `<mode> <object> <stage>\t<path>`, one per stage of each path.
    let mut paths: Vec<&[u8]> = Vec::new();
    for f in fields(&listed) {
        let Some(tab) = f.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let path = &f[tab + 1..];
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    if paths.is_empty() {
        return Ok(());
    }
    let count = paths.len();
    let more = match count.saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let named: Vec<String> = paths.iter().take(NAMED).map(|p| path_shown(p)).collect();
    let setup = driver_setup();
    Err(fail!(
        "git left {} of the folder {} unmerged ({}{more}; `git status` lists them): a merge or \
         pull stopped there, and the file holds your version or git's conflict markers, not \
         the merge of both sides, or an item git could not place; a sync now would take it as \
         the folder's version, and `git add` would commit it over your teammate's; nothing was \
         changed. Settle each first: a file both sides changed was merged without review-mcp's \
         merge driver (its line missing in this clone, or `review-mcp: not found` in the \
         pull's output: the binary on no PATH git searches): set it up ({setup}), then `git \
         checkout -m -- FILE` merges it again with the driver; a file one side changed and the \
         other deleted, or that git paired as a rename, is a whole item: keep it (`git add \
         FILE`). Then sync again",
        crate::text::counted(count, "file"),
        shown(folder),
        named.join(", ")
    ))
}

/// The two commands that set up review-mcp's merge driver in a clone, as a message shows them:
/// the driver line names this binary as a shell finds it ([`crate::program::invoked_as`]),
/// since git runs the driver by that word.
pub(super) fn driver_setup() -> String {
    let program = shell_word(crate::program::invoked_as());
    let driver = shell_word(&format!("{program} merge-file %O %A %B %P"));
    format!("`git config merge.review.name review-mcp`, `git config merge.review.driver {driver}`")
}

/// `pattern` as a .gitattributes line takes it: in double quotes, C-style, when it holds a
/// space, a tab, a quote or a backslash (git would end the pattern at the space).
fn attribute_pattern(pattern: &str) -> String {
    if !pattern.contains([' ', '\t', '"', '\\']) {
        return pattern.to_string();
    }
    let mut q = String::from('"');
    for c in pattern.chars() {
        match c {
            '"' | '\\' => {
                q.push('\\');
                q.push(c);
            }
            '\t' => q.push_str("\\t"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// One path git would not handle as sync needs, and why.
struct Problem {
    path: Vec<u8>,
    why: Why,
}

/// Refuses the folder `folder` (absolute) when git, as the repository holding it is set,
/// would not check out or commit its files as sync reads and writes them (the module's
/// comment says which settings and why); `merge_rule` says the folder's own `.gitattributes`
/// is in place, so any other merge rule than its driver's comes from a setting that outranks
/// it. Nothing is changed either way.
pub(super) fn refuse_settings(folder: &Path, merge_rule: bool) -> Result<()> {
    // A dry run's folder not made yet is not canonical: its links resolved as git resolves
    // the top's, or it would not be found under it.
    let folder = &resolved(folder);
    let Some(top) = work_tree(folder)? else {
        return Ok(());
    };
    // A folder outside the work tree git found (`core.worktree` naming another place): git
    // commits none of it from here, and nothing is asked.
    let Ok(rel) = folder.strip_prefix(&top) else {
        return Ok(());
    };
    let top = top.as_path();
    let under = |dir: &str, name: &OsStr| git_path(rel, dir, name);
    // Files git knows but leaves out of the work tree, or whose changes it does not look at.
    let spec = literal_spec(rel);
    let Some(listed) = git(
        top,
        &os(&["ls-files", "-v", "-z", "--"], Some(&*spec)),
        b"",
        &[0],
    )?
    else {
        return Ok(());
    };
    let mut problems = Vec::new();
    for f in fields(&listed) {
        let (tag, path) = match f {
            [tag, b' ', path @ ..] => (*tag, path),
            _ => continue,
        };
        let why = match tag {
            b'S' | b's' => Why::SkipWorktree,
            t if t.is_ascii_lowercase() => Why::AssumeUnchanged,
            _ => continue,
        };
        problems.push(Problem {
            path: path.to_vec(),
            why,
        });
    }
    // The paths sync owns or writes: its own files, every item and event file there, and one
    // of each kind it has not written yet (named last).
    let mut paths: Vec<Vec<u8>> = [README_FILE, ID_FILE, ATTRIBUTES_FILE]
        .iter()
        .map(|f| under("", OsStr::new(f)))
        .collect();
    let samples: Vec<Vec<u8>> = sample_names()
        .iter()
        .map(|(dir, name)| under(dir, OsStr::new(name)))
        .collect();
    for (dir, _) in sample_names() {
        let Ok(listing) = fs::read_dir(folder.join(dir)) else {
            continue;
        };
        for entry in listing.flatten() {
            let name = entry.file_name();
            let plain = name.as_encoded_bytes();
            if !plain.starts_with(b".") && plain.ends_with(b".json") {
                paths.push(under(dir, &name));
            }
        }
    }
    paths.extend(samples.iter().cloned());
    let mut input = Vec::new();
    for p in &paths {
        input.extend_from_slice(p);
        input.push(0);
    }
    // A sparse checkout that would leave out a file sync has yet to write (git 2.41 and later
    // tell; an older git that cannot is left to `ls-files` above).
    let sparse = git(
        top,
        &os(&["config", "--bool", "--get", "core.sparseCheckout"], None),
        b"",
        &[0, 1],
    )?;
    if sparse.is_some_and(|s| s.trim_ascii() == b"true")
        && let Ok(Some(inside)) = git(
            top,
            &os(&["sparse-checkout", "check-rules", "-z"], None),
            &input,
            &[0],
        )
    {
        let inside: HashSet<&[u8]> = fields(&inside).collect();
        let known: HashSet<Vec<u8>> = problems.iter().map(|p| p.path.clone()).collect();
        for p in &paths {
            if !inside.contains(p.as_slice()) && !known.contains(p) {
                problems.push(Problem {
                    path: p.to_vec(),
                    why: Why::OutsideSparse,
                });
            }
        }
    }
    // Ignored: `git add -A` skips a new file unsaid. `-v` names the pattern (and shows a
    // path a negated pattern matched last, which git does not ignore).
    // The folder's directories too (named with a `/`, as directories), to tell a pattern that
    // ignores one of them.
    let mut with_dirs = input.clone();
    let mut dir = Vec::new();
    for part in rel.iter().map(OsStr::as_encoded_bytes) {
        dir.extend_from_slice(part);
        dir.push(b'/');
        with_dirs.extend_from_slice(&dir);
        with_dirs.push(0);
    }
    for (sub, _) in sample_names() {
        with_dirs.extend_from_slice(&under(sub, OsStr::new("")));
        with_dirs.push(0);
    }
    if let Some(ignored) = git(
        top,
        &os(&["check-ignore", "--no-index", "-v", "-z", "--stdin"], None),
        &with_dirs,
        &[0, 1],
    )? {
        let said: Vec<&[u8]> = fields_kept(&ignored).collect();
        let said: Vec<[&[u8]; 4]> = said
            .chunks_exact(4)
            .map(|r| [r[0], r[1], r[2], r[3]])
            .filter(|[_, _, pattern, path]| !pattern.starts_with(b"!") && !path.is_empty())
            .collect();
        let of_dirs: HashSet<(&[u8], &[u8])> = said
            .iter()
            .filter(|r| r[3].ends_with(b"/"))
            .map(|r| (r[0], r[1]))
            .collect();
        for [source, line, pattern, path] in said {
            if path.ends_with(b"/") {
                continue;
            }
            problems.push(Problem {
                path: path.to_vec(),
                why: Why::Ignored {
                    source: source.to_vec(),
                    line: line.to_vec(),
                    pattern: pattern.to_vec(),
                    directory: of_dirs.contains(&(source, line)),
                },
            });
        }
    }
    let mut attrs = vec!["filter", "ident", "working-tree-encoding"];
    if merge_rule {
        attrs.push("merge");
    }
    let mut args = vec!["check-attr", "-z", "--stdin"];
    args.extend(&attrs);
    if let Some(said) = git(top, &os(&args, None), &input, &[0])? {
        let said: Vec<&[u8]> = fields(&said).collect();
        for rec in said.chunks_exact(3) {
            let (path, attr, value) = (rec[0], rec[1], String::from_utf8_lossy(rec[2]));
            let unset = value == "unspecified" || value == "unset";
            let why = match attr {
                b"filter" if !unset => Why::Rewrites {
                    attr: "filter",
                    value: value.into_owned(),
                },
                b"ident" if value == "set" => Why::Rewrites {
                    attr: "ident",
                    value: value.into_owned(),
                },
                b"working-tree-encoding" if !unset => Why::Rewrites {
                    attr: "working-tree-encoding",
                    value: value.into_owned(),
                },
                b"merge" if value != "review" => Why::Merge(value.into_owned()),
                _ => continue,
            };
            problems.push(Problem {
                path: path.to_vec(),
                why,
            });
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(refusal(top, rel, &samples, problems))
}

/// What the git directory holds while git replays commits one by one in its work tree, each
/// merged on its own: a rebase (`rebase-merge`; `rebase-apply`, also `git am`), a cherry-pick
/// or revert of several commits (`sequencer`), one stopped on a conflict (`CHERRY_PICK_HEAD`,
/// `REVERT_HEAD`).
const REPLAYS: [&str; 5] = [
    "rebase-merge",
    "rebase-apply",
    "sequencer",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
];

/// Whether git is replaying commits ([`REPLAYS`]) in the work tree holding `dir`, where the
/// merge driver runs: a later commit of the replay may then add a file the driver writes.
/// The git directory is git's answer (`git rev-parse --absolute-git-dir`, run in `dir` in the
/// environment git gave the driver: in a linked worktree git passes its own `GIT_DIR`), never
/// a guessed `.git`, which is a file in a linked worktree or a submodule. `false` when git
/// cannot say (no git, or `dir` in no repository).
pub(super) fn replaying(dir: &Path) -> bool {
    let Some(git_dir) = super::sides::git_dir(dir) else {
        return false;
    };
    REPLAYS
        .iter()
        .any(|m| fs::symlink_metadata(git_dir.join(m)).is_ok())
}

/// The folder's git repository, asked which item texts it holds a blob of (in a commit, the
/// index, a stash): a sync's base it never held tells of a history the folder does not have
/// (the database restored from a backup taken after a sync into a commit that was never
/// pushed, the clone since thrown away for a fresh one), and sync takes the database's
/// version for new to the folder (`run::forget_unheld_bases`). A text held with CRLF line
/// endings (committed so from Windows) counts as held. `None` (nothing is asked, the bases
/// stand) for a folder in no work tree, on a machine without git, in a shallow or partial
/// clone (whose history is not all here; git would fetch a missing blob from the remote), or
/// when git cannot answer.
pub(super) struct Objects {
    top: PathBuf,
    /// The folder's path from `top` (`None`: outside the work tree git found).
    rel: Option<PathBuf>,
    sha256: bool,
}

/// What the folder's git history says of the last deletion of an item's file
/// ([`Objects::last_deletions`]): the texts git holds, read by the caller.
pub(super) struct Deletion {
    /// The deleting commit (hex), as a message names it.
    pub(super) commit: String,
    /// The file as the deleting commit's parent held it.
    pub(super) before: Vec<u8>,
    /// The other files asked of (a superseded copy, the carry's event files) in the deleting
    /// commit's tree, in the order asked: `None` for one it did not hold.
    pub(super) beside: Vec<Option<Vec<u8>>>,
    /// The file in each commit since (descending from the deletion, up to `HEAD` and a merge
    /// in progress) that changed it and holds it.
    pub(super) since: Vec<Vec<u8>>,
}

/// How many commits since a deletion [`Objects::last_deletions`] reads the file of: more, and
/// git's history of it is not asked (the sync does as it would without git).
const SINCE_READ: usize = 64;

impl Objects {
    pub(super) fn of(folder: &Path) -> Option<Objects> {
        match Objects::asked(&resolved(folder)) {
            Ok(o) => o,
            Err(e) => {
                log::debug!("sync: cannot ask git which bases its history holds: {e}");
                None
            }
        }
    }

    fn asked(folder: &Path) -> Result<Option<Objects>> {
        let Some(top) = work_tree(folder)? else {
            return Ok(None);
        };
        let args = os(
            &[
                "rev-parse",
                "--is-shallow-repository",
                "--show-object-format",
            ],
            None,
        );
        let Some(out) = git(&top, &args, b"", &[0])? else {
            return Ok(None);
        };
        let said = String::from_utf8_lossy(&out);
        let mut said = said.lines();
        if said.next() != Some("false") {
            return Ok(None);
        }
        let sha256 = match said.next() {
            Some("sha1") => false,
            Some("sha256") => true,
            _ => return Ok(None),
        };
        let args = os(&["config", "--get", "extensions.partialClone"], None);
        match git(&top, &args, b"", &[0, 1])? {
            Some(v) if v.iter().all(u8::is_ascii_whitespace) => Ok(Some(Objects {
                rel: folder.strip_prefix(&top).ok().map(Path::to_path_buf),
                top,
                sha256,
            })),
            _ => Ok(None),
        }
    }

    /// The id git would give `text` as a blob: as written, or with CRLF line endings.
    pub(super) fn id(&self, text: &str, crlf: bool) -> String {
        match crlf {
            false => blob_id(text.as_bytes(), self.sha256),
            true => blob_id(text.replace('\n', "\r\n").as_bytes(), self.sha256),
        }
    }

    /// The keys of `ids` ([`Objects::id`]) whose blob the repository does not hold; none when
    /// git cannot say.
    pub(super) fn unheld(&self, ids: &[(Hash, String)]) -> Vec<Hash> {
        if ids.is_empty() {
            return Vec::new();
        }
        let mut input = String::new();
        for (_, id) in ids {
            input.push_str(id);
            input.push('\n');
        }
        let args = os(&["cat-file", "--batch-check=%(objectname)"], None);
        let out = match git(&self.top, &args, input.as_bytes(), &[0]) {
            Ok(Some(out)) => out,
            Ok(None) => return Vec::new(),
            Err(e) => {
                log::debug!("sync: cannot ask git which bases its history holds: {e}");
                return Vec::new();
            }
        };
        let held: HashSet<&[u8]> = out
            .split(|b| *b == b'\n')
            .filter(|l| !l.ends_with(b" missing"))
            .collect();
        ids.iter()
            .filter(|(_, id)| !held.contains(id.as_bytes()))
            .map(|(h, _)| *h)
            .collect()
    }
}

impl Objects {
    /// For each `(file, beside)` of `asks`: the last commit of the folder's history (from
    /// `HEAD`, and `MERGE_HEAD` while a merge is being concluded) that deleted the folder's
    /// file `file` (`records/<id>.json`), merge commits aside (one that drops the file takes a
    /// deletion made on a side), with that file as its parent held it, the folder's files
    /// `beside` in the deleting commit's tree (each when held), and `file` in each commit
    /// since that changed it. `None` for one git never deleted there, whose deleting commit's
    /// parent lacks it, or that git cannot say of (more than [`SINCE_READ`] commits since, a
    /// blob larger than an item file may be); every one `None` when there is no git or git
    /// fails. Asked only of the rare features a sync finds live at a revision their own carry
    /// moved them on from, all at once: one walk of the history for the deletions (not one
    /// per feature: 500 such features cost 2,500 git processes), one `git rev-list` per
    /// feature git deleted, two `git cat-file` for every text.
    pub(super) fn last_deletions(&self, asks: &[(String, Vec<String>)]) -> Vec<Option<Deletion>> {
        let mut out: Vec<Option<Deletion>> = asks.iter().map(|_| None).collect();
        if asks.is_empty() {
            return out;
        }
        // git's path: `/` between the names, from the top.
        let Some(names) = self
            .rel
            .as_ref()
            .and_then(|rel| rel.iter().map(|p| p.to_str()).collect::<Option<Vec<_>>>())
        else {
            return out;
        };
        let path = |name: &str| {
            let mut p = names.join("/");
            if !p.is_empty() {
                p.push('/');
            }
            p + name
        };
        let ask = |args: &[&str], stdin: &[u8]| match git(&self.top, &os(args, None), stdin, &[0]) {
            Ok(out) => out,
            Err(e) => {
                log::debug!("sync: cannot ask git when it deleted an item's file: {e}");
                None
            }
        };
        let mut heads = vec!["HEAD"];
        if ask(&["rev-parse", "-q", "--verify", "MERGE_HEAD^{commit}"], b"").is_some() {
            heads.push("MERGE_HEAD");
        }
        let asked: Vec<Option<(String, Vec<String>)>> = asks
            .iter()
            .map(|(file, beside)| {
                let file = path(file);
                let beside: Vec<String> = beside.iter().map(|b| path(b)).collect();
                let plain = beside
                    .iter()
                    .chain([&file])
                    .all(|p| !p.contains(['\n', '\0']));
                plain.then_some((file, beside))
            })
            .collect();
        // The directories of the files asked of: one walk of their deletions, the first
        // commit that names a file (git's order, as `git log -1 -- FILE` finds it) the last.
        let dirs: BTreeSet<String> = asked
            .iter()
            .flatten()
            .filter_map(|(f, _)| f.rsplit_once('/').map(|(d, _)| format!(":(literal){d}")))
            .collect();
        if dirs.is_empty() {
            return out;
        }
        let mut args = vec![
            "log",
            "--full-history",
            "--no-merges",
            // A carry's copy added beside the deleted file is no rename of it.
            "--no-renames",
            "--diff-filter=D",
            "--name-only",
            "-z",
            "--format=%x01%H",
        ];
        args.extend(&heads);
        args.push("--");
        args.extend(dirs.iter().map(String::as_str));
        let Some(walk) = ask(&args, b"") else {
            return out;
        };
        let mut deleted_by: HashMap<&[u8], &str> = HashMap::new();
        for (commit, file) in named_in(&walk) {
            deleted_by.entry(file).or_insert(commit);
        }
        // The commits since each deleting commit that changed a file asked of (a merge too,
        // against any parent: `-m`), as `git rev-list --full-history --ancestry-path ^COMMIT
        // -- FILE` lists them: one walk per deleting commit (a forget of many features is
        // one commit).
        let mut walks: HashMap<&str, Option<Vec<u8>>> = HashMap::new();
        for commit in deleted_by.values() {
            if walks.contains_key(commit) || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
                continue;
            }
            let not = format!("^{commit}");
            let mut args = vec![
                "log",
                "--full-history",
                "--ancestry-path",
                "-m",
                "--no-renames",
                "--name-only",
                "-z",
                "--format=%x01%H",
                &not,
            ];
            args.extend(&heads);
            args.push("--");
            args.extend(dirs.iter().map(String::as_str));
            walks.insert(commit, ask(&args, b""));
        }
        // Read once: each deleting commit's files, and the commits since that changed each.
        let mut changed_since: HashMap<&str, HashMap<&[u8], Vec<&str>>> = HashMap::new();
        for (commit, walk) in &walks {
            let Some(walk) = walk else { continue };
            let mut files: HashMap<&[u8], Vec<&str>> = HashMap::new();
            for (c, f) in named_in(walk) {
                let since = files.entry(f).or_default();
                if !since.contains(&c) {
                    since.push(c);
                }
            }
            changed_since.insert(commit, files);
        }
        // Each deleted file's texts: its parent's, the files beside, and each commit's since.
        let mut input = String::new();
        let mut wanted = Vec::new();
        for (n, a) in asked.iter().enumerate() {
            let Some((file, beside)) = a else { continue };
            let Some(commit) = deleted_by.get(file.as_bytes()).copied() else {
                continue;
            };
            if commit.is_empty() || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
                continue;
            }
            let Some(files) = changed_since.get(commit) else {
                continue;
            };
            let since = files.get(file.as_bytes()).map_or(&[][..], Vec::as_slice);
            if since.len() > SINCE_READ {
                continue;
            }
            let mut lines = format!("{commit}^:{file}\n");
            for b in beside {
                lines.push_str(&format!("{commit}:{b}\n"));
            }
            for c in since {
                lines.push_str(&format!("{c}:{file}\n"));
            }
            input.push_str(&lines);
            wanted.push((n, commit.to_string(), beside.len(), since.len()));
        }
        if wanted.is_empty() {
            return out;
        }
        // Sizes first: a blob no item file could be is not read (nor is any, then: the
        // sync does as it would without git for these).
        let Some(sizes) = ask(&["cat-file", "--batch-check"], input.as_bytes()) else {
            return out;
        };
        let too_large = String::from_utf8_lossy(&sizes).lines().any(|l| {
            l.rsplit(' ')
                .next()
                .and_then(|n| n.parse::<u64>().ok())
                .is_some_and(|n| n > super::folder::MAX_FILE_BYTES)
        });
        if too_large {
            return out;
        }
        let Some(blobs) = ask(&["cat-file", "--batch"], input.as_bytes())
            .as_deref()
            .and_then(batch_blobs)
        else {
            return out;
        };
        let mut blobs = blobs.into_iter();
        for (n, commit, beside, since) in wanted {
            let before = blobs.next().flatten();
            let beside = blobs.by_ref().take(beside).collect();
            let since = blobs.by_ref().take(since).flatten().collect();
            if let (Some(before), Some(slot)) = (before, out.get_mut(n)) {
                *slot = Some(Deletion {
                    commit,
                    before,
                    beside,
                    since,
                });
            }
        }
        out
    }
}

/// The `(commit, file)` pairs of `git log --format=%x01%H --name-only -z` output: each file
/// named under the commit it follows (a hex commit name only).
fn named_in(walk: &[u8]) -> Vec<(&str, &[u8])> {
    let mut named = Vec::new();
    let mut commit = None;
    for field in walk.split(|b| *b == 0) {
        let field = field.strip_prefix(b"\n").unwrap_or(field);
        match field.strip_prefix(b"\x01") {
            Some(h) => {
                commit = std::str::from_utf8(h)
                    .ok()
                    .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()));
            }
            None => {
                if let Some(c) = commit.filter(|_| !field.is_empty()) {
                    named.push((c, field));
                }
            }
        }
    }
    named
}

/// The objects `git cat-file --batch` printed, in order: a blob's bytes, `None` for a name it
/// found nothing at (or not a blob); `None` when the output is not that.
fn batch_blobs(mut out: &[u8]) -> Option<Vec<Option<Vec<u8>>>> {
    let mut blobs = Vec::new();
    while !out.is_empty() {
        let end = out.iter().position(|b| *b == b'\n')?;
        let header = std::str::from_utf8(out.get(..end)?).ok()?;
        out = out.get(end + 1..)?;
        // `<object> <type> <size>` and the object's bytes; else `<name> missing` (the name as
        // given, which may hold spaces), `<name> ambiguous`.
        let fields: Vec<&str> = header.splitn(3, ' ').collect();
        match fields[..] {
            [object, kind, size]
                if object.bytes().all(|b| b.is_ascii_hexdigit())
                    && let Ok(size) = size.parse::<usize>() =>
            {
                let body = out.get(..size)?;
                blobs.push((kind == "blob").then(|| body.to_vec()));
                out = out.get(size + 1..)?;
            }
            _ => blobs.push(None),
        }
    }
    Some(blobs)
}

/// The id git gives a blob of `bytes` (`git hash-object`), in hex.
fn blob_id(bytes: &[u8], sha256: bool) -> String {
    let mut data = format!("blob {}\0", bytes.len()).into_bytes();
    data.extend_from_slice(bytes);
    let digest: Vec<u8> = if sha256 {
        use sha2::Digest;
        sha2::Sha256::digest(&data).to_vec()
    } else {
        sha1(&data).to_vec()
    };
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-1 (FIPS 180-4), for git's object ids only: git names objects by it, it protects
/// nothing here.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_be_bytes());
    for chunk in msg.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in chunk.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

/// How many paths are named for each reason a refusal gives.
const NAMED: usize = 5;

/// The refusal of the folder at `rel` in the work tree `top` for `problems`: each reason once,
/// with the first [`NAMED`] paths it holds for (a name standing for the files sync has yet to
/// write shown as such, from `samples`) and how to fix it.
fn refusal(top: &Path, rel: &Path, samples: &[Vec<u8>], problems: Vec<Problem>) -> super::Error {
    let folder = String::from_utf8_lossy(&git_path(rel, "", OsStr::new(""))).into_owned();
    let folder = folder.trim_end_matches('/');
    let mut reasons: Vec<(Why, Vec<String>)> = Vec::new();
    for p in problems {
        let path = match samples.iter().find(|s| **s == p.path) {
            Some(s) => format!(
                "{} (the files sync writes there)",
                shown(&Path::new(&*String::from_utf8_lossy(s)).with_file_name("*.json"))
            ),
            None => path_shown(&p.path),
        };
        match reasons.iter_mut().find(|(why, _)| *why == p.why) {
            Some((_, paths)) => paths.push(path),
            None => reasons.push((p.why, vec![path])),
        }
    }
    let mut lines = Vec::new();
    for (why, mut paths) in reasons {
        let more = paths.len().saturating_sub(NAMED);
        paths.truncate(NAMED);
        let more = match more {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let (said, fix) = (why.said(), why.fix(folder));
        lines.push(format!("  {}{more}: {said}; {fix}", paths.join(", ")));
    }
    fail!(
        "git, as the repository {} is set, would not check out or commit the folder's files as \
         sync reads and writes them; nothing was changed:\n{}\nthen sync again",
        shown(top),
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn blob_ids_are_git_s() {
        use super::blob_id;
        assert_eq!(
            blob_id(b"", false),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
        );
        assert_eq!(
            blob_id(b"hello\n", false),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(
            blob_id(b"", true),
            "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"
        );
        // Longer than one block of SHA-1, and across the padding boundary.
        for n in [55, 56, 63, 64, 65, 200] {
            let text = "x".repeat(n);
            let out = std::process::Command::new("git")
                .args(["hash-object", "--stdin"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut c| {
                    use std::io::Write;
                    c.stdin.take().map(|mut i| i.write_all(text.as_bytes()));
                    c.wait_with_output()
                });
            if let Ok(out) = out {
                assert_eq!(
                    String::from_utf8_lossy(&out.stdout).trim(),
                    blob_id(text.as_bytes(), false),
                    "{n}"
                );
            }
        }
    }

    /// The hand-written SHA-1 gives git's blob ids for texts of every length across the
    /// first blocks and the padding boundaries, and a few long ones, of ASCII and multi-byte
    /// UTF-8 (each against `git hash-object` of the same bytes, all in one run of git).
    #[test]
    fn blob_ids_are_git_s_for_any_length() {
        use super::blob_id;
        let dir = std::env::temp_dir().join(format!("review-mcp-sha1-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pattern = "a\u{e9}\u{20ac}\u{1f529}z\n";
        let mut lengths: Vec<usize> = (0..=260).collect();
        lengths.extend([511, 512, 513, 1000, 4095, 4096, 4097, 65_537, 1_000_003]);
        let mut texts = Vec::new();
        for (i, n) in lengths.iter().enumerate() {
            let text: Vec<u8> = pattern.bytes().cycle().take(*n).collect();
            let path = dir.join(format!("{i}"));
            std::fs::write(&path, &text).unwrap();
            texts.push((path, text));
        }
        let out = std::process::Command::new("git")
            .args(["hash-object", "--no-filters", "--stdin-paths"])
            .current_dir(&dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                let paths: String = texts
                    .iter()
                    .map(|(p, _)| format!("{}\n", p.display()))
                    .collect();
                c.stdin.take().map(|mut i| i.write_all(paths.as_bytes()));
                c.wait_with_output()
            })
            .unwrap();
        let ids: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
        assert_eq!(ids.len(), texts.len(), "{out:?}");
        for ((_, text), id) in texts.iter().zip(ids) {
            assert_eq!(blob_id(text, false), id, "{} bytes", text.len());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    use super::*;

    /// A pattern with a space, a quote or a backslash is quoted as .gitattributes reads it.
    #[test]
    fn attribute_patterns_are_quoted_when_git_would_split_them() {
        assert_eq!(attribute_pattern("/review/**"), "/review/**");
        assert_eq!(attribute_pattern("/sp ace/**"), "\"/sp ace/**\"");
        assert_eq!(attribute_pattern("/a\"b\\c/**"), "\"/a\\\"b\\\\c/**\"");
    }

    /// git's paths are from the work tree's top with `/` between names, the folder's own
    /// files without a subfolder, the folder at the top without a prefix.
    #[test]
    fn paths_for_git_are_from_the_top_with_slashes() {
        let name = OsStr::new("rec_1.json");
        let folder = Path::new("design").join("review");
        assert_eq!(
            git_path(&folder, "records", name),
            b"design/review/records/rec_1.json"
        );
        assert_eq!(
            git_path(&folder, "", OsStr::new(README_FILE)),
            b"design/review/README.md"
        );
        assert_eq!(
            git_path(Path::new(""), "records", name),
            b"records/rec_1.json"
        );
        assert_eq!(git_path(Path::new(""), "", name), b"rec_1.json");
    }

    /// A text committed (with CRLF line endings, as from Windows) is held; one never added is
    /// not; a folder in no repository is not asked.
    #[test]
    fn objects_say_which_texts_the_repository_never_held() {
        use super::Objects;
        let dir = std::env::temp_dir().join(format!("review-mcp-objects-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("review")).unwrap();
        assert!(Objects::of(&dir.join("review")).is_none());
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .current_dir(&dir)
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "core.autocrlf=false",
                ])
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {out:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(dir.join("review/a.json"), "{\r\n  \"a\": 1\r\n}\r\n").unwrap();
        git(&["add", "-A"]);
        git(&["commit", "-q", "-m", "a"]);
        let o = Objects::of(&dir.join("review")).unwrap();
        let (held, never) = ("{\n  \"a\": 1\n}\n", "{\n  \"a\": 2\n}\n");
        let (h1, h2) = ([1u8; 32], [2u8; 32]);
        let lf = [(h1, o.id(held, false)), (h2, o.id(never, false))];
        assert_eq!(o.unheld(&lf), vec![h1, h2]);
        let crlf = [(h1, o.id(held, true)), (h2, o.id(never, true))];
        assert_eq!(o.unheld(&crlf), vec![h2]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `git log --format=%x01%H --name-only -z` output read back: each file under the commit
    /// it follows (a path with a space and a newline-free accent kept as git wrote it, a merge
    /// listed once per parent by `-m` read twice), nothing under a line that is no commit.
    #[test]
    fn log_walk_names_each_file_under_its_commit() {
        let (c1, c2) = ("0123456789abcdef", "fedcba9876543210");
        let walk = format!(
            "\x01{c1}\0\nmy r\u{e9}v/records/a.json\0my r\u{e9}v/records/b.json\0\0\
             \x01{c2}\0\nx/records/a.json\0\0\x01{c2}\0\nx/records/a.json\0\0\
             \x01not a commit\0\nx/records/c.json\0"
        );
        let named: Vec<(&str, String)> = super::named_in(walk.as_bytes())
            .into_iter()
            .map(|(c, f)| (c, String::from_utf8_lossy(f).into_owned()))
            .collect();
        assert_eq!(
            named,
            vec![
                (c1, "my r\u{e9}v/records/a.json".to_string()),
                (c1, "my r\u{e9}v/records/b.json".to_string()),
                (c2, "x/records/a.json".to_string()),
                (c2, "x/records/a.json".to_string()),
            ]
        );
    }

    /// `git cat-file --batch` output read back in order: a blob's bytes (a newline in them
    /// kept), nothing for a name git found nothing at (a path with spaces too), and a cut-off
    /// output is no answer.
    #[test]
    fn batch_output_is_read_object_by_object() {
        let oid = "0123456789abcdef0123456789abcdef01234567";
        let out = format!(
            "{oid} blob 4\na\nb\n\nHEAD^:my review/records/x.json missing\n{oid} tree 0\n\n"
        );
        assert_eq!(
            super::batch_blobs(out.as_bytes()),
            Some(vec![Some(b"a\nb\n".to_vec()), None, None])
        );
        assert_eq!(
            super::batch_blobs(format!("{oid} blob 9\nab").as_bytes()),
            None
        );
    }
}
