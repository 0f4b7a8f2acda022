//! `review-mcp [serve]`: the MCP server on stdin and stdout.

use std::io;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use review_mcp::service::DEFAULT_ANSWER_WAIT;
use review_mcp::{server::Server, service::Service, store::Store};

/// The stdio server: check the database file, serve until EOF. A file that is refused (newer
/// schema, foreign, not SQLite, not a regular file, hard-linked, not writable) ends the
/// process with its message before any protocol traffic. The file itself is opened (and a new
/// one created) at the first request that needs it, see [`Store::lazy`].
pub fn run(db: &Path, author: Option<String>) -> anyhow::Result<ExitCode> {
    let ready = author_or_env(author).and_then(|author| {
        let wait = answer_wait(std::env::var_os(WAIT_ENV).as_deref())?;
        let store = Store::lazy(db).map_err(|e| e.to_string())?;
        Ok((author, wait, store))
    });
    let (author, wait, mut store) = match ready {
        Ok(ready) => ready,
        Err(why) => {
            crate::cli::say(format_args!("review-mcp: {why}\n"));
            return Ok(ExitCode::FAILURE);
        }
    };
    store.set_author(author);
    let mut service = Service::new(store);
    service.set_answer_wait(wait);
    let mut server = Server::new(service);
    // The reader thread owns stdin (see `Server::run`).
    let stdin = io::BufReader::with_capacity(64 * 1024, io::stdin());
    let mut stdout = io::stdout().lock();
    match server.run(stdin, &mut stdout) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e.into()),
    }
}

/// Who this server's writes are recorded as, when `--author` is not given.
pub const AUTHOR_ENV: &str = "REVIEW_MCP_AUTHOR";

/// `author` (`--author`) when given, else [`AUTHOR_ENV`] read by [`env_author`].
pub(super) fn author_or_env(author: Option<String>) -> Result<Option<String>, String> {
    match author {
        Some(a) => Ok(Some(a)),
        None => env_author(std::env::var_os(AUTHOR_ENV).as_deref()),
    }
}

/// Reads [`AUTHOR_ENV`]: unset or blank is nobody; a name is 1 to 200 characters. A bundle
/// host that leaves the optional "Your name" setting unfilled may pass its placeholder
/// (`${user_config.author}`) as it is: nobody too.
pub(super) fn env_author(value: Option<&std::ffi::OsStr>) -> Result<Option<String>, String> {
    let Some(v) = value else {
        return Ok(None);
    };
    let Some(text) = v.to_str() else {
        return Err(format!(
            "{AUTHOR_ENV} is not valid UTF-8: set it to your name in UTF-8, or unset it"
        ));
    };
    let name = text.trim();
    if name.is_empty() || (name.starts_with("${user_config.") && name.ends_with('}')) {
        return Ok(None);
    }
    if name.chars().count() > 200 {
        return Err(format!(
            "{AUTHOR_ENV} is longer than 200 characters: shorten it or unset it"
        ));
    }
    if let Some(why) = unprintable_in_name(name) {
        return Err(format!("{AUTHOR_ENV} {why}, or unset it"));
    }
    Ok(Some(name.to_string()))
}

/// What is wrong with an author's `name` that holds a character a terminal acts on or that
/// reorders or hides the text after it (a line break, a tab, an escape, a bidirectional
/// control, an interlinear annotation), or that shows nothing at all. `None` when there is
/// none. Characters drawn as nothing that real names are written with stay: a Japanese name's
/// ideographic variation selector, a Khmer zero width space, a Mongolian vowel separator, a
/// soft hyphen, an emoji's tag characters (the joiners never were refused); the terminal
/// command a server gives carries them exactly ([`review_mcp::text::shell_word_exact`]).
pub(super) fn unprintable_in_name(name: &str) -> Option<String> {
    use review_mcp::text::{is_blank, is_control_like, is_invisible_in_writing};
    if let Some(c) = name
        .chars()
        .find(|&c| is_control_like(c) && !is_invisible_in_writing(c))
    {
        return Some(format!(
            "holds the character U+{:04X} (a control character, or one that reorders or hides the text after it): an author's name is recorded and shown as it is; give it without line breaks, tabs, escapes or direction controls",
            u32::from(c)
        ));
    }
    is_blank(name).then(|| {
        "shows nothing (it is made of characters drawn as nothing): give the name as it is read"
            .to_string()
    })
}

/// How long `request_verdicts` waits for the engineer's answer, in seconds.
pub const WAIT_ENV: &str = "REVIEW_MCP_ELICITATION_TIMEOUT";

/// The longest wait the variable may ask for: a day.
const MAX_WAIT_SECS: u64 = 86_400;

/// Reads [`WAIT_ENV`]: whole seconds from 1 to a day; unset or empty is the default.
fn answer_wait(value: Option<&std::ffi::OsStr>) -> Result<Duration, String> {
    let text = value.map_or_else(String::new, |v| v.to_string_lossy().trim().to_string());
    if text.is_empty() {
        return Ok(DEFAULT_ANSWER_WAIT);
    }
    match text.parse::<u64>() {
        Ok(secs) if (1..=MAX_WAIT_SECS).contains(&secs) => Ok(Duration::from_secs(secs)),
        _ => Err(format!(
            "{WAIT_ENV}={text:?} is not a number of seconds from 1 to {MAX_WAIT_SECS}; unset it for the default ({} s)",
            DEFAULT_ANSWER_WAIT.as_secs()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn env_author_is_a_trimmed_name_or_nobody() {
        assert_eq!(env_author(None), Ok(None));
        assert_eq!(env_author(Some(OsStr::new("  "))), Ok(None));
        assert_eq!(
            env_author(Some(OsStr::new(" Ada L. "))),
            Ok(Some("Ada L.".into()))
        );
        assert!(env_author(Some(OsStr::new(&"x".repeat(201)))).is_err());
        assert_eq!(
            env_author(Some(OsStr::new("${user_config.author}"))),
            Ok(None),
            "an unfilled bundle setting is nobody"
        );
        for bad in [
            "Ada\nLovelace",
            "Ada\u{1b}[2J",
            "Ada\tL",
            "Ada\u{202e}L",
            "Ada\u{2067}L",
            "\u{feff}Ada",
            "\u{3164}Ada",
            "Ada\u{17b4}",
        ] {
            assert!(
                env_author(Some(OsStr::new(bad))).is_err_and(|e| e.contains("U+")),
                "{bad:?}"
            );
        }
        assert!(
            env_author(Some(OsStr::new("\u{200b}\u{ad}"))).is_err_and(|e| e.contains("nothing")),
            "a name drawn as nothing"
        );
        // Characters real names are written with (found by advcli): an ideographic variation
        // selector, a Khmer zero width space, a Mongolian vowel separator, a soft hyphen, the
        // joiners of Persian, Indic and emoji text.
        for good in [
            "\u{8fbb}\u{e0100} \u{592a}\u{90ce}",
            "\u{179f}\u{17bb}\u{200b}\u{1785}",
            "\u{182d}\u{1820}\u{1837}\u{180e}\u{1820}",
            "Ste\u{ad}fan",
            "\u{645}\u{62d}\u{645}\u{62f}\u{200c}\u{631}\u{636}\u{627}",
            "\u{1f469}\u{200d}\u{1f52c} Ada",
        ] {
            assert_eq!(env_author(Some(OsStr::new(good))), Ok(Some(good.into())));
        }
        assert_eq!(
            env_author(Some(OsStr::new("Ada ``Lovelace`` *|*"))),
            Ok(Some("Ada ``Lovelace`` *|*".into()))
        );
    }

    #[test]
    fn answer_wait_reads_whole_seconds_and_refuses_the_rest() {
        assert_eq!(answer_wait(None), Ok(DEFAULT_ANSWER_WAIT));
        assert_eq!(answer_wait(Some(OsStr::new(""))), Ok(DEFAULT_ANSWER_WAIT));
        assert_eq!(
            answer_wait(Some(OsStr::new(" 90 "))),
            Ok(Duration::from_secs(90))
        );
        for bad in ["0", "-5", "1.5", "10m", "86401"] {
            let err = answer_wait(Some(OsStr::new(bad))).unwrap_err();
            assert!(err.contains(WAIT_ENV), "{err}");
        }
    }
}
