//! How a person runs this program from their own shell, for the commands an answer tells them
//! to run (`review-mcp review …`, the engineer's terminal channel).
//!
//! By its name when the `review-mcp` their `PATH` finds first is this very file; else by this
//! file's path. A host starts the server by whatever path it was configured with: a bundle's
//! binary lies inside the host's own folders, on no `PATH`, and a name there would answer
//! "command not found", or run another, older `review-mcp`. The host's `PATH` stands for the
//! engineer's shell's: when the host finds this file by name, so does the shell it was started
//! from; when it does not, the path works from any shell of the same machine.
//!
//! A leaf: it imports nothing from the crate.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The program's name, as a command line writes it when `PATH` finds it.
pub const NAME: &str = "review-mcp";

/// How a command a person runs names this program: [`NAME`], or the path of the running
/// executable when `PATH` would not run it by name. [`NAME`] when the running executable is
/// not a `review-mcp` binary (a test harness, a library user) or cannot be found. Looked up
/// once per process.
pub fn invoked_as() -> &'static str {
    static ONCE: OnceLock<String> = OnceLock::new();
    ONCE.get_or_init(|| {
        let path = std::env::var_os("PATH");
        std::env::current_exe()
            .ok()
            .and_then(|exe| by_path(&exe, path.as_deref()))
            .unwrap_or_else(|| NAME.to_string())
    })
}

/// The path to write for the executable `exe` when the shell's `path` (the `PATH` variable)
/// would not run it by [`NAME`]: `None` when it would, or when `exe` is not a `review-mcp`
/// binary or is gone (replaced while it runs).
///
/// By name only when the file is named what typing [`NAME`] looks up (`review-mcp`, on
/// Windows `review-mcp.exe`: not `review-mcp.2`) and the first directory of `path` holding
/// such a file holds this one. A relative or empty entry before it (the shell's working
/// directory, or one under it) may hold another wherever the shell runs: the path then.
fn by_path(exe: &Path, path: Option<&OsStr>) -> Option<String> {
    let file_name = exe.file_name()?;
    if exe.file_stem() != Some(OsStr::new(NAME)) {
        return None;
    }
    let exe = exe.canonicalize().ok()?;
    let typed = format!("{NAME}{}", std::env::consts::EXE_SUFFIX);
    // The first entry the shell could take the name from: a relative one, or a directory
    // holding a file of that name.
    let first_on_path: Option<PathBuf> = path.and_then(|p| {
        std::env::split_paths(p)
            .map(|dir| dir.join(file_name))
            .find(|candidate| !candidate.is_absolute() || candidate.is_file())
    });
    match first_on_path.filter(|c| c.is_absolute() && file_name == OsStr::new(&typed)) {
        Some(found) if found.canonicalize().is_ok_and(|f| f == exe) => None,
        _ => Some(exe.to_string_lossy().into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory of its own under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("review-mcp-program-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The path `by_path` gives for `file`.
    fn canonical(file: &Path) -> String {
        file.canonicalize().unwrap().to_string_lossy().into_owned()
    }

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"#!/bin/sh\n").unwrap();
    }

    #[test]
    fn by_name_only_when_path_finds_this_very_file_first() {
        let dir = scratch("path");
        let bundle = dir.join("bundle/server/review-mcp");
        let installed = dir.join("bin/review-mcp");
        let other = dir.join("old/review-mcp");
        for f in [&bundle, &installed, &other] {
            touch(f);
        }
        let path = |dirs: &[&Path]| std::env::join_paths(dirs).unwrap();
        let shown = canonical(&bundle);
        // On no PATH, or no PATH at all: the path.
        assert_eq!(by_path(&bundle, None), Some(shown.clone()));
        assert_eq!(
            by_path(&bundle, Some(&path(&[&dir.join("bin")]))),
            Some(shown.clone())
        );
        // Found first on PATH: the name.
        let bin = dir.join("bin");
        assert_eq!(by_path(&installed, Some(&path(&[&bin]))), None);
        // Another review-mcp comes first (an older install): the name would run that one.
        assert_eq!(
            by_path(&installed, Some(&path(&[&dir.join("old"), &bin]))),
            Some(canonical(&installed))
        );
        // A relative PATH entry names a different file from each directory the shell runs
        // in: never this one.
        assert_eq!(by_path(&bundle, Some(OsStr::new("."))), Some(shown.clone()));
        // Through a symbolic link on PATH to this file: the name.
        #[cfg(unix)]
        {
            let links = dir.join("links");
            std::fs::create_dir_all(&links).unwrap();
            std::os::unix::fs::symlink(&bundle, links.join("review-mcp")).unwrap();
            assert_eq!(by_path(&bundle, Some(&path(&[&links]))), None);
        }
        // A binary named otherwise that PATH finds (`review-mcp.2`): typing the name runs
        // another file, or none.
        let numbered = dir.join("bin/review-mcp.2");
        touch(&numbered);
        assert_eq!(
            by_path(&numbered, Some(&path(&[&bin]))),
            Some(canonical(&numbered))
        );
        // A relative or empty PATH entry before this file's directory: the shell looks in
        // that directory of wherever it runs, which may hold another review-mcp. After it,
        // it is never reached.
        for early in [".", "", "old"] {
            let entries = std::env::join_paths([Path::new(early), &bin]).unwrap();
            assert_eq!(
                by_path(&installed, Some(&entries)),
                Some(canonical(&installed)),
                "{entries:?}"
            );
            let entries = std::env::join_paths([&bin, Path::new(early)]).unwrap();
            assert_eq!(by_path(&installed, Some(&entries)), None, "{entries:?}");
        }
        // Not a review-mcp binary (a test harness), or gone: the name, as it always was.
        let harness = dir.join("bin/it-0123abcd");
        touch(&harness);
        assert_eq!(by_path(&harness, None), None);
        assert_eq!(by_path(&dir.join("gone/review-mcp"), None), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
