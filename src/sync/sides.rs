//! What the merge driver reads of the two sides git is merging, beyond the three versions of
//! the one file it is given: whether a superseded copy of a feature is there, in either
//! side's tree ([`copy_on_a_side`]).
//!
//! git runs the driver at the top of the work tree while it computes the merge, before it
//! writes any file of it: a file only the other side added (a carry's superseded copy) is in
//! neither the work tree nor the index yet, only in the other side's commit. Which commit that
//! is, git does not pass; it leaves it where this module looks (measured with git 2.47):
//!
//! - `git merge` (and `git pull`'s merge) sets `GITHEAD_<commit>` in the driver's environment
//!   for each commit merged in (their side); `HEAD` is ours;
//! - `git rebase` (and `git pull --rebase`, the merge backend) has `HEAD` at the commit being
//!   built on (ours: the other side, the upstream, whose files are checked out) and the pick
//!   being replayed last in `<git dir>/rebase-merge/done` (theirs).
//!
//! Anything else (`git merge-tree`, a cherry-pick, the apply backend of a rebase, no git to
//! run) finds what the work tree and `HEAD` hold, as before: a statement merged over a carry
//! there is settled by the carrying clone's next sync. Git's own environment is kept (a
//! `GIT_DIR` it set is the repository being merged), and nothing is written.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::Item;
use super::folder::{MAX_FILE_BYTES, read_regular};
use super::line::{Schemas, parse_item};
use crate::review::Record;

/// Whether the work tree, `HEAD` or the commit git is merging in holds, beside `path` (git's
/// `%P`: the item file's path from the top of the work tree), the superseded copy of the
/// feature `stayed` states, at `stayed`'s revision, under the id every clone derives for it
/// ([`Record::snapshot_id`]): that revision was carried past for this very feature
/// ([`super::merge::CopyKnown`]). A file that is not such a copy (another item, a link, too
/// large, not an item) says nothing.
pub fn copy_on_a_side(path: &Path, stayed: &Record, schemas: &Schemas) -> bool {
    let id = Record::snapshot_id(&stayed.id, &stayed.artifact.revision);
    on_a_side(path, &id, schemas, |copy| stayed.carried_by(&copy)).is_some()
}

/// Where a carry of the feature `id` took it from `revision`, as its superseded copy there
/// (under the id every clone derives) says in the work tree, `HEAD` or the commit git is
/// merging in ([`copy_on_a_side`]): what [`Record::carry_through`] follows, link by link, to
/// tell a chain of carries to files renamed per revision from an id moved to another key.
pub fn carried_on_a_side(
    path: &Path,
    id: &str,
    revision: &str,
    schemas: &Schemas,
) -> Option<String> {
    let copy_id = Record::snapshot_id(id, revision);
    on_a_side(path, &copy_id, schemas, |c| {
        c.superseded
            .filter(|_| c.artifact.revision == revision)
            .map(|m| m.by)
    })
}

/// `pick` of the first record of id `id` beside `path` it says something of: in the work
/// tree, then in each side's commit. A file that is not that record says nothing.
fn on_a_side<T>(
    path: &Path,
    id: &str,
    schemas: &Schemas,
    pick: impl Fn(Record) -> Option<T>,
) -> Option<T> {
    let dir = path.parent()?;
    let name = format!("{id}.json");
    let picked = |bytes: &[u8]| match parse_item(bytes, schemas) {
        Ok(Item::Record(r)) if r.id == id => pick(r),
        _ => None,
    };
    if let Some(t) = read_regular(&dir.join(&name), MAX_FILE_BYTES)
        .ok()
        .and_then(|b| picked(&b))
    {
        return Some(t);
    }
    // git's path: `/` between the names, from the top.
    let mut spec = String::new();
    for part in dir.iter() {
        spec.push_str(part.to_str()?);
        spec.push('/');
    }
    spec.push_str(&name);
    sides()
        .iter()
        .find_map(|commit| blob_at(commit, &spec).and_then(|b| picked(&b)))
}

/// The commits whose trees are the two sides ([module docs](self)): `HEAD`, each
/// `GITHEAD_<commit>` of the environment, and the pick a rebase is replaying.
fn sides() -> Vec<String> {
    let mut out = vec!["HEAD".to_string()];
    for (key, _) in std::env::vars_os() {
        if let Some(hex) = key.to_str().and_then(|k| k.strip_prefix("GITHEAD_"))
            && is_hex(hex)
        {
            out.push(hex.to_string());
        }
    }
    out.extend(picked());
    out
}

/// The commit a rebase (merge backend) is replaying: the last command of
/// `rebase-merge/done` ([`pick_of`]).
fn picked() -> Option<String> {
    let done = git_dir(Path::new("."))?.join("rebase-merge").join("done");
    pick_of(&String::from_utf8(read_regular(&done, 1024 * 1024).ok()?).ok()?)
}

/// The git directory of the repository holding `dir`, as git names it (`git rev-parse
/// --absolute-git-dir`) in the environment git gave the driver (in a linked worktree git
/// passes its own `GIT_DIR`), never a guessed `.git`, which is a file in a linked worktree or a
/// submodule; `None` when git cannot say.
pub(super) fn git_dir(dir: &Path) -> Option<PathBuf> {
    let out = git_in(Some(dir), &["rev-parse", "--absolute-git-dir"], b"")?;
    let named = out.strip_suffix(b"\n").unwrap_or(&out);
    (!named.is_empty()).then(|| super::owned::path_of(named))
}

/// The commit the last command of a rebase's `done` list picks: a `pick` (or `reword`,
/// `edit`, `squash`, `fixup`, with its flags) and its commit; `None` for any other command.
fn pick_of(done: &str) -> Option<String> {
    let last = done
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))?;
    let mut words = last.split_whitespace();
    let command = words.next()?;
    let picks = [
        "pick", "p", "reword", "r", "edit", "e", "squash", "s", "fixup", "f",
    ];
    if !picks.contains(&command) {
        return None;
    }
    words
        .find(|w| !w.starts_with('-'))
        .filter(|w| is_hex(w))
        .map(str::to_string)
}

fn is_hex(s: &str) -> bool {
    s.len() >= 4 && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The bytes of the file at `path` in `commit`'s tree, when it is a blob no larger than
/// [`MAX_FILE_BYTES`] (a link's is its target, which is no item).
fn blob_at(commit: &str, path: &str) -> Option<Vec<u8>> {
    if path.contains('\n') {
        return None;
    }
    // `<commit>:<path>` takes the path as it is, from the top.
    let line = format!("{commit}:{path}\n");
    let said = git(
        &[
            "cat-file",
            "--batch-check=%(objecttype) %(objectsize) %(objectname)",
        ],
        line.as_bytes(),
    )?;
    let said = std::str::from_utf8(&said).ok()?;
    let fields: Vec<&str> = said.split_whitespace().collect();
    let ["blob", size, object] = fields[..] else {
        return None;
    };
    if size.parse::<u64>().ok()? > MAX_FILE_BYTES {
        return None;
    }
    git(&["cat-file", "blob", object], b"")
}

/// What git printed, run at the driver's working directory (the top of the work tree) in the
/// environment git gave the driver; `None` when it fails or there is no git.
fn git(args: &[&str], stdin: &[u8]) -> Option<Vec<u8>> {
    git_in(None, args, stdin)
}

/// [`git`], run in `dir` when given.
fn git_in(dir: Option<&Path>, args: &[&str], stdin: &[u8]) -> Option<Vec<u8>> {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command
        .args(["-c", "core.fsmonitor=false"])
        .args(args.iter().map(OsStr::new))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env("GIT_TERMINAL_PROMPT", "0")
        .spawn()
        .ok()?;
    // One short line: the pipe holds it whole, and git reads it before it answers.
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin).ok()?;
    }
    let out = child.wait_with_output().ok()?;
    out.status.success().then_some(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pick_is_the_last_command_done() {
        let c = "c7af8361466f7b0b835437ecf7b82b351d4b8467";
        assert_eq!(pick_of(&format!("pick {c} b\n")).as_deref(), Some(c));
        assert_eq!(
            pick_of(&format!("pick 0123abcd a\n# note\nfixup -C {c} b\n\n")).as_deref(),
            Some(c)
        );
        assert_eq!(
            pick_of(&format!("p 0123abcd a\nr {c}\n")).as_deref(),
            Some(c)
        );
        for other in [
            format!("pick {c} b\nexec make\n"),
            format!("pick {c} b\nlabel onto\n"),
            "pick HEAD~1 b\n".to_string(),
            String::new(),
        ] {
            assert_eq!(pick_of(&other), None, "{other}");
        }
    }
}
