//! The artifact a record is bound to: its revision, format, optional URI and units, and the
//! rules that turn what a caller supplies into what is stored (URI normalisation, locator).

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The only CAD format today.
pub const FORMAT_STEP: &str = "step";

/// The expected form of a revision, quoted in messages.
pub const REVISION_FORM: &str = "sha256: followed by exactly 64 lowercase hex digits";

/// A domain rule the arguments break; the message says how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct DomainError(pub String);

impl std::fmt::Display for DomainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DomainError {}

/// An artifact reference as stored and returned: `uri` already normalised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    pub revision: String,
    pub format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<String>,
}

/// An artifact borrowed, as answers carry it: keys in alphabetical order, like every answer's.
#[derive(Debug, Serialize)]
pub struct ArtifactWire<'a> {
    pub format: &'a str,
    pub revision: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<&'a str>,
}

/// Where the items of an artifact were carried (`superseded` of a record or decision, see
/// `carry::Superseded`), borrowed: one carry marks every item of its revision alike, so a
/// page says it once, in the artifact's entry of its table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SupersededRef<'a> {
    pub at: &'a str,
    pub by: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<&'a str>,
}

/// An entry of a page's `artifacts` table: the artifact, whether it is stale against the
/// supplied current revision (null when none was supplied) and, for items whose revision was
/// carried to a later one, `superseded`. Items of the page refer to it by its index.
#[derive(Debug, Serialize)]
pub struct PageArtifact<'a> {
    pub format: &'a str,
    /// The id scheme of the entity ids of the records that refer to this entry (a page of
    /// records has one entry per artifact and scheme; decisions have none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_scheme: Option<&'a str>,
    pub revision: &'a str,
    pub stale: Option<bool>,
    /// The items' `superseded` mark, said once for every item of the page that refers here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded: Option<SupersededRef<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<&'a str>,
}

type TableKey = (
    String,
    Option<String>,
    Option<String>,
    String,
    Option<String>,
    Option<(String, String, Option<String>)>,
);

/// The artifacts a page has written so far, to find an item's index in its table.
#[derive(Debug, Default)]
pub struct ArtifactTable {
    /// Revision, uri, units, format, id scheme and superseded mark of each entry.
    seen: Vec<TableKey>,
}

impl ArtifactTable {
    /// The index of `a` in the table (for items of id scheme `id_scheme` and superseded
    /// mark `superseded`), and the entry to write when it is new there (then call
    /// [`ArtifactTable::keep`] once the item referring to it is taken).
    pub fn find<'a>(
        &self,
        a: &ArtifactWire<'a>,
        id_scheme: Option<&'a str>,
        superseded: Option<SupersededRef<'a>>,
        current: Option<&str>,
    ) -> (usize, Option<PageArtifact<'a>>) {
        let found = self
            .seen
            .iter()
            .position(|(rev, uri, units, format, scheme, sup)| {
                rev == a.revision
                    && uri.as_deref() == a.uri
                    && units.as_deref() == a.units
                    && format == a.format
                    && scheme.as_deref() == id_scheme
                    && sup.as_ref().map(|(at, by, change)| SupersededRef {
                        at,
                        by,
                        change: change.as_deref(),
                    }) == superseded
            });
        match found {
            Some(i) => (i, None),
            None => (
                self.seen.len(),
                Some(PageArtifact {
                    format: a.format,
                    id_scheme,
                    revision: a.revision,
                    stale: current.map(|c| c != a.revision),
                    superseded,
                    units: a.units,
                    uri: a.uri,
                }),
            ),
        }
    }

    /// Adds the entry [`ArtifactTable::find`] made.
    pub fn keep(&mut self, entry: &PageArtifact<'_>) {
        self.seen.push((
            entry.revision.to_string(),
            entry.uri.map(str::to_string),
            entry.units.map(str::to_string),
            entry.format.to_string(),
            entry.id_scheme.map(str::to_string),
            entry.superseded.map(|s| {
                (
                    s.at.to_string(),
                    s.by.to_string(),
                    s.change.map(str::to_string),
                )
            }),
        ));
    }
}

impl ArtifactWire<'_> {
    /// An owned copy.
    pub fn into_owned(self) -> Artifact {
        Artifact {
            revision: self.revision.to_string(),
            format: self.format.to_string(),
            uri: self.uri.map(str::to_string),
            units: self.units.map(str::to_string),
        }
    }
}

impl Artifact {
    /// Builds a stored artifact from caller input: checks the revision and format and
    /// normalises the URI (a path resolves against `cwd`). Never opens the file.
    pub fn from_input(
        revision: &str,
        format: &str,
        uri: Option<&str>,
        units: Option<&str>,
        cwd: impl FnOnce() -> Option<PathBuf>,
    ) -> Result<Artifact, DomainError> {
        if !is_revision(revision) {
            return Err(DomainError(format!(
                "artifact.revision {revision:?} is malformed: expected {REVISION_FORM}, e.g. sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
            )));
        }
        if format != FORMAT_STEP {
            return Err(DomainError(format!(
                "artifact.format {format:?} is not supported: use \"step\""
            )));
        }
        let uri = match uri {
            Some(u) => Some(normalise_uri(u, cwd)?),
            None => None,
        };
        Ok(Artifact {
            revision: revision.to_string(),
            format: format.to_string(),
            uri,
            units: units.map(str::to_string),
        })
    }

    /// The wire form (see [`super::record::RecordWire`]).
    pub fn wire(&self) -> ArtifactWire<'_> {
        ArtifactWire {
            format: &self.format,
            revision: &self.revision,
            units: self.units.as_deref(),
            uri: self.uri.as_deref(),
        }
    }

    /// The grouping key of records: the URI when there is one, else the revision.
    pub fn locator(&self) -> &str {
        self.uri.as_deref().unwrap_or(&self.revision)
    }
}

/// `sha256:` plus exactly 64 lowercase hex digits.
pub fn is_revision(s: &str) -> bool {
    s.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// The head of a revision that `s` spells short, as an answer writes one it has given whole
/// (`sha256:` and 12 lowercase hex digits, `…`, `carry::short_revision`; a summary's 8), with
/// or without the `…` (or `...`). `None` for anything else: a whole revision, or one a digit
/// short, is not a short form.
pub fn short_revision_head(s: &str) -> Option<&str> {
    let head = s
        .strip_suffix('…')
        .or_else(|| s.strip_suffix("..."))
        .unwrap_or(s);
    let hex = head.strip_prefix("sha256:")?;
    let hex_only = hex
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    (hex_only && [8, 12].contains(&hex.len())).then_some(head)
}

/// True when `s` starts with a URI scheme. A scheme needs two or more characters so that a
/// Windows drive letter (`C:\x\part.step`) stays a file name, as it is on POSIX.
pub(super) fn has_scheme(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    scheme.len() >= 2
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Normalises a `uri` argument: a URI with a scheme is parsed by the `url` crate; anything
/// else is a path of this operating system, made absolute against `cwd`, lexically cleaned of
/// `.` and `..`, and turned into a `file:` URI (a `%` in a file name is then `%25`, so a path
/// is always literal). Either way the result then gets [`equivalent_form`], so every
/// spelling RFC 3986 calls equivalent is one locator. The file is never opened.
pub fn normalise_uri(
    raw: &str,
    cwd: impl FnOnce() -> Option<PathBuf>,
) -> Result<String, DomainError> {
    // Copied with the space around it (`review-mcp revision` prints "sha256:…  FILE"): as a
    // path it would name a file under the server's directory (" /w/p.step" is relative), as
    // a URI the space would be dropped. Neither is what was meant, so say so.
    if raw.trim() != raw {
        return Err(DomainError(format!(
            "artifact.uri {raw:?} starts or ends with white space: give it without (a file name that really starts or ends with a space is a file: URI with %20 there)"
        )));
    }
    if has_scheme(raw) {
        return url::Url::parse(raw)
            .map(|u| equivalent_form(u.as_str()))
            .map_err(|e| {
                DomainError(format!(
                    "artifact.uri {raw:?} is not a valid URI ({e}): give a URI such as file:///work/part.step or a filesystem path such as /work/part.step"
                ))
            });
    }
    // A shell expands `~`; nothing else does. As a relative path it would name a directory
    // `~` under the server's working directory, not the home the caller meant.
    if raw == "~" || raw.starts_with("~/") {
        return Err(DomainError(format!(
            "artifact.uri {raw:?} starts with ~, which only a shell expands to the home directory: give the absolute path (e.g. /home/me/parts/part.step) or a file: URI"
        )));
    }
    let path = Path::new(raw);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        let Some(base) = cwd() else {
            return Err(DomainError(format!(
                "artifact.uri {raw:?} is a relative path, but the server's working directory is unavailable: give an absolute path or a file: URI"
            )));
        };
        base.join(path)
    };
    absolute_path_as_uri(&absolute)
}

/// The stored `file:` URI of an absolute path, as [`normalise_uri`] makes it of a typed
/// path: lexically cleaned of `.` and `..`, then [`equivalent_form`]. For a path the server
/// has just read (`artifact_revision`), whose file name may really start or end with white
/// space, which a typed uri may not.
pub fn absolute_path_as_uri(absolute: &Path) -> Result<String, DomainError> {
    let cleaned = lexical_clean(absolute);
    url::Url::from_file_path(&cleaned)
        .map(|u| equivalent_form(u.as_str()))
        .map_err(|()| {
            DomainError(format!(
                "artifact.uri {:?} cannot be turned into a file: URI: give an absolute path or a file: URI",
                absolute.display().to_string()
            ))
        })
}

/// What an absolute path typed so far (`/work/my b`) is as the start of a stored `file:`
/// URI (`file:///work/my%20b`): for completing a uri argument from a path. `None` for
/// anything but an absolute path.
pub fn path_prefix_as_uri(prefix: &str) -> Option<String> {
    if !Path::new(prefix).is_absolute() {
        return None;
    }
    // Cleaned of `.` and `..` as a stored path is; what ends at a directory (`/w/`, `/w/a/..`)
    // keeps its `/`, so that only that directory's files match.
    let mut uri = String::from(url::Url::from_file_path(lexical_clean(Path::new(prefix))).ok()?);
    let at_directory = ["/", "/.", "/.."].iter().any(|end| prefix.ends_with(end));
    if at_directory && !uri.ends_with('/') {
        uri.push('/');
    }
    Some(uri)
}

/// The normal form of RFC 3986 §6.2.2 of a URI as the `url` crate serialises it (ASCII,
/// scheme lowercased): the host lowercased (§6.2.2.1; the crate already does it for `file`,
/// `http` and the other special schemes, not for `plm://HOST`), percent-encodings of
/// unreserved characters decoded (`%62racket` is `bracket`, `%31` is `1`) and every other
/// percent-encoding in uppercase hex (§6.2.2.2), dot segments removed from the path
/// (§6.2.2.3, after the decoding, so `%2E%2E` goes too), and the fragment dropped (it names a
/// part of a resource, never another file). Nothing else changes: reserved characters stay
/// encoded (`%2F` is not `/`), and Unicode is never normalised (NFC and NFD spellings are
/// different file names on Linux). Applying it twice changes nothing.
pub fn equivalent_form(uri: &str) -> String {
    let uri = uri.split_once('#').map_or(uri, |(before, _)| before);
    let (scheme, rest) = uri.split_once(':').unwrap_or(("", uri));
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (after.get(..end), after.get(end..).unwrap_or(""))
        }
        None => (None, rest),
    };
    let mut out = String::with_capacity(uri.len());
    out.push_str(&scheme.to_ascii_lowercase());
    out.push(':');
    if let Some(authority) = authority {
        out.push_str("//");
        // userinfo@host:port: only the host (and its port digits) is case-insensitive.
        let (userinfo, host) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        if let Some(u) = userinfo {
            out.push_str(&percent_normal(u));
            out.push('@');
        }
        out.push_str(&percent_normal(&host.to_ascii_lowercase()));
    }
    out.push_str(&remove_dot_segments(&percent_normal(path)));
    if let Some(q) = query {
        out.push('?');
        out.push_str(&percent_normal(q));
    }
    out
}

/// §6.2.2.2: `%XX` of an unreserved character (ALPHA, DIGIT, `-`, `.`, `_`, `~`) decoded,
/// any other `%XX` with uppercase hex digits.
fn percent_normal(s: &str) -> String {
    let b = s.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let pair = match (
            c,
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => Some(hi * 16 + lo),
            _ => None,
        };
        match pair.and_then(|v| u8::try_from(v).ok()) {
            Some(v) if v.is_ascii_alphanumeric() || matches!(v, b'-' | b'.' | b'_' | b'~') => {
                out.push(char::from(v));
                i += 3;
            }
            Some(v) => {
                out.push_str(&format!("%{v:02X}"));
                i += 3;
            }
            None => {
                // Copy up to the next `%` whole: the rest of the text is passed through as it
                // is (a `%` only ever starts an ASCII sequence, so this is a char boundary).
                let next = s
                    .get(i + 1..)
                    .and_then(|r| r.find('%'))
                    .map_or(s.len(), |n| i + 1 + n);
                out.push_str(s.get(i..next).unwrap_or(""));
                i = next;
            }
        }
    }
    out
}

/// RFC 3986 §5.2.4, `remove_dot_segments`.
fn remove_dot_segments(path: &str) -> String {
    let mut input = path;
    let mut out = String::with_capacity(path.len());
    let pop = |out: &mut String| {
        let cut = out.rfind('/').unwrap_or(0);
        out.truncate(cut);
    };
    while !input.is_empty() {
        if let Some(rest) = input
            .strip_prefix("../")
            .or_else(|| input.strip_prefix("./"))
        {
            input = rest;
        } else if input.starts_with("/./") {
            input = &input[2..];
        } else if input == "/." {
            input = "/";
        } else if input.starts_with("/../") {
            input = &input[3..];
            pop(&mut out);
        } else if input == "/.." {
            input = "/";
            pop(&mut out);
        } else if input == "." || input == ".." {
            input = "";
        } else {
            // The first segment, with its leading `/` if any, up to the next `/`.
            let start = usize::from(input.starts_with('/'));
            let end = input
                .get(start..)
                .and_then(|r| r.find('/'))
                .map_or(input.len(), |n| start + n);
            out.push_str(&input[..end]);
            input = &input[end..];
        }
    }
    out
}

/// Removes `.` and resolves `..` without touching the filesystem (symlinks are not
/// followed: the file may not exist here).
fn lexical_clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                // At the root, `..` stays at the root, as the OS resolves it.
                if !matches!(
                    out.components().next_back(),
                    Some(Component::RootDir) | None
                ) {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(dir: &str) -> impl FnOnce() -> Option<PathBuf> + use<> {
        let d = PathBuf::from(dir);
        move || Some(d)
    }

    const REV: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn revision_well_formed_accepted_malformed_refused() {
        assert!(is_revision(REV));
        assert!(!is_revision(&REV.to_uppercase()));
        assert!(!is_revision(&REV.replace('a', "A")));
        assert!(!is_revision(&REV[..REV.len() - 1]));
        assert!(!is_revision(&format!("{REV}0")));
        assert!(!is_revision(&REV.replace("sha256:", "sha1:")));
        assert!(!is_revision(&REV.replace('0', "g")));
    }

    #[test]
    fn uri_absolute_path_and_file_uri_normalise_alike() {
        let a = normalise_uri("/work/part.step", at("/x")).unwrap();
        let b = normalise_uri("file:///work/part.step", at("/x")).unwrap();
        assert_eq!(a, "file:///work/part.step");
        assert_eq!(a, b);
        let c = normalise_uri("file://localhost/work/./x/../part.step", at("/x")).unwrap();
        assert_eq!(c, a);
    }

    #[test]
    fn uri_relative_path_resolves_against_cwd() {
        assert_eq!(
            normalise_uri("parts/../part.step", at("/home/eng/proj")).unwrap(),
            "file:///home/eng/proj/part.step"
        );
        assert_eq!(
            normalise_uri("./a b.step", at("/w")).unwrap(),
            "file:///w/a%20b.step"
        );
        assert_eq!(
            normalise_uri("../../../../x.step", at("/w")).unwrap(),
            "file:///x.step"
        );
    }

    #[test]
    fn uri_drive_letter_is_a_relative_file_name_on_posix() {
        let u = normalise_uri(r"C:\x\part.step", at("/w")).unwrap();
        assert!(u.starts_with("file:///w/C:"), "{u}");
    }

    #[test]
    fn uri_with_scheme_kept_as_url_normalises_it() {
        assert_eq!(
            normalise_uri("HTTPS://Example.COM/a/../b.step", at("/w")).unwrap(),
            "https://example.com/b.step"
        );
        assert_eq!(
            normalise_uri("plm:part/123", at("/w")).unwrap(),
            "plm:part/123"
        );
    }

    /// Regression (issue 12, item 3): spellings RFC 3986 §6.2.2 calls equivalent were
    /// different locators.
    #[test]
    fn uri_rfc3986_equivalent_spellings_normalise_to_one_locator() {
        let bracket = normalise_uri("/work/bracket.step", at("/x")).unwrap();
        for same in [
            "file:///work/%62racket.step",
            "file:///work/%62%72%61%63%6B%65%74.step",
            "FILE:///work/bracket.step",
            "file://LOCALHOST/work/bracket.step",
            "file:///work/./x/%2e%2E/bracket.step",
            "file:///work/bracket.step#face-3",
            "file:///work/bracket%2Estep",
        ] {
            assert_eq!(normalise_uri(same, at("/x")).unwrap(), bracket, "{same}");
        }
        assert_eq!(
            normalise_uri("file:///work/part%31.step", at("/x")).unwrap(),
            normalise_uri("/work/part1.step", at("/x")).unwrap()
        );
        // Paths and URIs get the same treatment: a non-ASCII name, and `~`.
        assert_eq!(
            normalise_uri("/work/ü~.step", at("/x")).unwrap(),
            normalise_uri("file:///work/%c3%bc%7E.step", at("/x")).unwrap()
        );
        assert_eq!(
            normalise_uri(
                "HTTPS://Example.COM/a/%7euser/../b.step?rev=%3d#top",
                at("/w")
            )
            .unwrap(),
            "https://example.com/a/b.step?rev=%3D"
        );
        assert_eq!(
            normalise_uri("plm://PDM.Example/Part/./7/../8#x", at("/w")).unwrap(),
            "plm://pdm.example/Part/8"
        );
    }

    /// What may be different files stays apart: reserved characters stay encoded, a literal
    /// `%` in a path stays literal, and Unicode forms are not unified.
    #[test]
    fn uri_possibly_different_files_stay_apart() {
        let a = normalise_uri("file:///work/a%2Fb.step", at("/x")).unwrap();
        assert_eq!(a, "file:///work/a%2Fb.step");
        assert_ne!(a, normalise_uri("/work/a/b.step", at("/x")).unwrap());
        assert_eq!(
            normalise_uri("file:///work/a%2fb.step", at("/x")).unwrap(),
            a,
            "hex case only"
        );
        let literal = normalise_uri("/work/%62racket.step", at("/x")).unwrap();
        assert_eq!(literal, "file:///work/%2562racket.step");
        let nfc = normalise_uri("/work/\u{e9}.step", at("/x")).unwrap();
        let nfd = normalise_uri("/work/e\u{301}.step", at("/x")).unwrap();
        assert_ne!(nfc, nfd);
        assert_eq!(
            normalise_uri("plm:Part/Case", at("/x")).unwrap(),
            "plm:Part/Case",
            "path case kept"
        );
    }

    #[test]
    fn equivalent_form_is_idempotent() {
        for raw in [
            "file:///work/%62racket.step#x",
            "https://u%41:p@EXAMPLE.com:8080/a/../%7e/b?q=%2f%41",
            "plm:../a/./b/..",
            "urn:isbn:0451450523",
            "file:///%2e%2e/x",
        ] {
            let once = normalise_uri(raw, at("/x")).unwrap();
            assert_eq!(equivalent_form(&once), once, "{raw}");
            assert_eq!(normalise_uri(&once, at("/x")).unwrap(), once, "{raw}");
        }
    }

    #[test]
    fn remove_dot_segments_matches_rfc_3986_examples() {
        assert_eq!(remove_dot_segments("/a/b/c/./../../g"), "/a/g");
        assert_eq!(remove_dot_segments("mid/content=5/../6"), "mid/6");
        assert_eq!(remove_dot_segments("/../x"), "/x");
        assert_eq!(remove_dot_segments("/a/.."), "/");
        assert_eq!(remove_dot_segments(""), "");
    }

    /// Found in an end-to-end review: a path copied with the space around it (" /w/p.step",
    /// from `review-mcp revision`'s "sha256:…  FILE") was stored as
    /// file:///<server cwd>/%20/w/p.step, a file that does not exist, and a trailing space
    /// as "p.step%20": the review went under another file without a word.
    #[test]
    fn uri_with_surrounding_white_space_refused_with_fix() {
        for raw in [
            " /w/p.step",
            "/w/p.step ",
            "/w/p.step\n",
            "\tfile:///w/p.step",
            "file:///w/p.step ",
        ] {
            let e = normalise_uri(raw, at("/x")).unwrap_err();
            assert!(e.0.contains("white space: give it without"), "{raw:?}: {e}");
        }
        assert_eq!(
            normalise_uri("file:///w/%20p.step%20", at("/x")).unwrap(),
            "file:///w/%20p.step%20"
        );
        assert_eq!(
            normalise_uri("/w/a b.step", at("/x")).unwrap(),
            "file:///w/a%20b.step"
        );
    }

    /// "~/parts/b.step" (how people and models write a file in their home directory) is
    /// not expanded outside a shell: it was a relative path, stored as
    /// file:///<server cwd>/~/parts/b.step, a file that does not exist, and remember said
    /// "Saved". Refused with the fix, as `--db` refuses a `~` it cannot expand; a `~` that is
    /// not a path's first component alone is an ordinary file name character.
    #[test]
    fn uri_starting_with_a_home_tilde_refused_with_fix() {
        for raw in ["~/parts/b.step", "~", "~/"] {
            let e = normalise_uri(raw, at("/x")).unwrap_err();
            assert!(
                e.0.contains("starts with ~") && e.0.contains("absolute path"),
                "{raw:?}: {e}"
            );
        }
        for literal in ["~ada/b.step", "./~/b.step", "/srv/~/b.step", "~b.step"] {
            assert!(normalise_uri(literal, at("/x")).is_ok(), "{literal}");
        }
        assert_eq!(
            normalise_uri("file:///w/~/b.step", at("/x")).unwrap(),
            "file:///w/~/b.step"
        );
    }

    #[test]
    fn uri_relative_without_cwd_refused_with_fix() {
        let e = normalise_uri("part.step", || None).unwrap_err();
        assert!(e.0.contains("absolute path"), "{e}");
    }

    #[test]
    fn artifact_locator_is_uri_else_revision() {
        let a = Artifact::from_input(REV, "step", None, Some("mm"), at("/w")).unwrap();
        assert_eq!(a.locator(), REV);
        let b = Artifact::from_input(REV, "step", Some("/p.step"), None, at("/w")).unwrap();
        assert_eq!(b.locator(), "file:///p.step");
        let e = Artifact::from_input(&REV.to_uppercase(), "step", None, None, at("/w"));
        assert!(e.unwrap_err().0.contains("64 lowercase hex"));
    }
}
