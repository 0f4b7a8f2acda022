//! Logging to stderr (stdout is the protocol wire): JSON lines or a human form, with secrets
//! redacted.
//!
//! Configuration comes from the environment, read once at start:
//! - `MCP_LOG_LEVEL`: `debug` | `info` | `warn` | `error` | `off` (default `info`). Any other value is
//!   reported with a warning and `info` is used: a typo must not silence the logs.
//! - `MCP_LOG_FORMAT`: `json` or `human`. Unset: `human` when stderr is a terminal (a person runs
//!   a command), else `json` (a host or a log file reads it).
//! - `MCP_TRACE_ID`: added to every line as `trace_id`, so a host can correlate the lines of
//!   one server process with its own.
//!
//! A JSON line is `{"ts","level","target","msg","trace_id"?}` with `ts` in RFC 3339 UTC
//! (milliseconds). Before a message is written, the values of secret-like fields inside it
//! (`token=...`, `"password":"..."`, `Authorization: Bearer ...`) are replaced by
//! `[REDACTED]`; see [`redact`]. A message longer than [`MAX_MESSAGE_BYTES`] is cut with a
//! marker of how many bytes were cut, and client values quoted in messages are cut to
//! [`MAX_QUOTED_BYTES`] where they are logged (both with [`clip_bytes`]). The formatter and
//! the redaction are pure functions so that they are tested without touching the
//! process-wide logger.

use std::io::Write;

use log::{Level, LevelFilter};
use serde_json::{Map, Value};

use crate::text::clip_bytes;

/// How each line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Human,
}

/// The logging configuration and the complaints found while reading it.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub level: LevelFilter,
    pub format: Format,
    pub trace_id: Option<String>,
    /// Invalid settings, logged as warnings once the logger is up.
    pub warnings: Vec<String>,
}

/// The replacement for a secret value.
pub const REDACTED: &str = "[REDACTED]";

/// Key fragments that mark a field as secret (compared lowercased, with `-` read as `_`).
const SECRET_KEYS: [&str; 14] = [
    "token",
    "password",
    "passwd",
    "secret",
    "authorization",
    "api_key",
    "apikey",
    "access_key",
    "private_key",
    "cookie",
    "credential",
    "session_id",
    "signature",
    "bearer",
];

impl Config {
    /// Reads the three settings; `None` or an empty string means unset. `terminal`: stderr
    /// is a terminal, where an unset format is `human`.
    pub fn from_values(
        level: Option<&str>,
        format: Option<&str>,
        trace_id: Option<&str>,
        terminal: bool,
    ) -> Self {
        fn set(v: Option<&str>) -> Option<&str> {
            v.map(str::trim).filter(|s| !s.is_empty())
        }
        let mut warnings = Vec::new();
        let mut unknown = |var: &str, s: &str, allowed: &str, using: &str| {
            warnings.push(format!(
                "{var}={s:?} is not one of {allowed}; using {using}"
            ));
        };
        // `log` reads the names regardless of case; `trace` is not offered.
        let level = match set(level).map(|s| (s, s.parse())) {
            None => LevelFilter::Info,
            Some((_, Ok(level))) if level != LevelFilter::Trace => level,
            Some((s, _)) => {
                unknown("MCP_LOG_LEVEL", s, "debug, info, warn, error, off", "info");
                LevelFilter::Info
            }
        };
        let (default, default_name) = if terminal {
            (Format::Human, "human")
        } else {
            (Format::Json, "json")
        };
        let format = match set(format).map(|s| (s, s.to_ascii_lowercase())) {
            None => default,
            Some((_, f)) if f == "json" => Format::Json,
            Some((_, f)) if f == "human" => Format::Human,
            Some((s, _)) => {
                unknown("MCP_LOG_FORMAT", s, "json, human", default_name);
                default
            }
        };
        let trace_id = set(trace_id).map(str::to_string);
        Config {
            level,
            format,
            trace_id,
            warnings,
        }
    }
}

/// A variable's value as text: bytes that are not UTF-8 become U+FFFD, so a value with them
/// is a wrong value, warned of, never read as unset.
fn env_text(value: Option<std::ffi::OsString>) -> Option<String> {
    value.map(|v| v.to_string_lossy().into_owned())
}

/// Sets up `env_logger` on stderr from `MCP_LOG_LEVEL`, `MCP_LOG_FORMAT` and `MCP_TRACE_ID`
/// (see the module docs), then logs the settings' warnings. A second call (tests) leaves the
/// first logger in place.
pub fn init() {
    let var = |k: &str| env_text(std::env::var_os(k));
    let Config {
        level,
        format,
        trace_id,
        warnings,
    } = Config::from_values(
        var("MCP_LOG_LEVEL").as_deref(),
        var("MCP_LOG_FORMAT").as_deref(),
        var("MCP_TRACE_ID").as_deref(),
        std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    let installed = env_logger::Builder::new()
        .filter_level(level)
        .target(env_logger::Target::Stderr)
        .write_style(env_logger::WriteStyle::Never)
        .format(move |buf, record| {
            let line = format_line(
                format,
                &crate::time::now(),
                record.level(),
                record.target(),
                &record.args().to_string(),
                trace_id.as_deref(),
            );
            writeln!(buf, "{line}")
        })
        .try_init()
        .is_ok();
    if installed {
        for w in warnings {
            log::warn!("{w}");
        }
    }
}

/// The most bytes of a message one log line carries; the rest is cut (see [`clip_bytes`]), so a
/// client value that reaches a message cannot make a log line of megabytes.
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// The most bytes of a client-supplied value (a protocol version, a method name) quoted in a
/// log message.
pub const MAX_QUOTED_BYTES: usize = 256;

/// One log line (without the newline), the message redacted, then cut to
/// [`MAX_MESSAGE_BYTES`].
pub fn format_line(
    format: Format,
    ts: &str,
    level: Level,
    target: &str,
    msg: &str,
    trace_id: Option<&str>,
) -> String {
    let redacted = redact(msg);
    let msg = clip_bytes(&redacted, MAX_MESSAGE_BYTES);
    let level = level_name(level);
    match format {
        Format::Json => {
            let mut m = Map::new();
            m.insert("ts".into(), Value::from(ts));
            m.insert("level".into(), Value::from(level));
            m.insert("target".into(), Value::from(target));
            m.insert("msg".into(), Value::from(msg.as_ref()));
            if let Some(t) = trace_id {
                m.insert("trace_id".into(), Value::from(t));
            }
            crate::text::escape_json_controls(&Value::Object(m).to_string()).into_owned()
        }
        Format::Human => {
            // Newlines in a message would break "one event, one line"; show them escaped,
            // and every other control (an escape sequence, a C1 control, a bidirectional
            // override) as `\u{…}`: a value quoted in a message cannot act on the terminal.
            let msg = msg.replace('\n', "\\n").replace('\r', "\\r");
            let msg = crate::text::escape_controls(&msg);
            // The trace id too: one set with a line break would start a fake line.
            let trace = trace_id
                .map(|t| format!(" trace_id={}", crate::text::escape_controls(t)))
                .unwrap_or_default();
            format!(
                "{ts} {:<5} {target}: {msg}{trace}",
                level.to_ascii_uppercase()
            )
        }
    }
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warn => "warn",
        Level::Info => "info",
        Level::Debug => "debug",
        Level::Trace => "trace",
    }
}

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.'
}

fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace('-', "_");
    SECRET_KEYS.iter().any(|s| k.contains(s))
}

/// Ends an unquoted value.
fn ends_value(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b',' | b';' | b'&' | b')' | b'}' | b']' | b'"' | b'\'')
}

/// Replaces the values of secret-like fields in a message by [`REDACTED`].
///
/// A field is `key=value`, `key: value` or JSON `"key":"value"` (spaces allowed after the
/// separator) whose key contains a secret word (`token`, `password`, `secret`,
/// `authorization`, `api_key`, `apikey`, `access_key`, `private_key`, `cookie`, ...; case and
/// `-`/`_` ignored). A quoted value is replaced up to its closing quote (escapes honoured); an
/// unquoted one up to whitespace or `, ; & ) } ] " '`, and an auth scheme word (`Bearer`,
/// `Basic`, `Token`) takes the credential after it along.
pub fn redact(msg: &str) -> String {
    let bytes = msg.as_bytes();
    let mut out = String::with_capacity(msg.len());
    let mut copied = 0; // bytes of `msg` already in `out`
    let mut i = 0;
    while i < bytes.len() {
        let sep = bytes.get(i).copied().unwrap_or(0);
        if sep != b'=' && sep != b':' {
            i += 1;
            continue;
        }
        // The key ends right before the separator, or before a closing quote (JSON).
        let mut key_end = i;
        if key_end > 0 && bytes.get(key_end - 1) == Some(&b'"') {
            key_end -= 1;
        }
        let mut key_start = key_end;
        while key_start > 0 && bytes.get(key_start - 1).copied().is_some_and(is_key_byte) {
            key_start -= 1;
        }
        let key = msg.get(key_start..key_end).unwrap_or("");
        if key.is_empty() || !is_secret_key(key) {
            i += 1;
            continue;
        }
        let mut v = i + 1;
        while bytes.get(v).is_some_and(|&b| b == b' ' || b == b'\t') {
            v += 1;
        }
        let (value_start, value_end) = if bytes.get(v) == Some(&b'"') {
            let start = v + 1;
            let mut j = start;
            while let Some(&b) = bytes.get(j) {
                if b == b'\\' {
                    j += 2;
                    continue;
                }
                if b == b'"' {
                    break;
                }
                j += 1;
            }
            (start, j.min(bytes.len()))
        } else {
            let word_end = |from: usize| {
                let mut j = from;
                while bytes.get(j).is_some_and(|&b| !ends_value(b)) {
                    j += 1;
                }
                j
            };
            let mut end = word_end(v);
            let word = msg.get(v..end).unwrap_or("").to_ascii_lowercase();
            if matches!(word.as_str(), "bearer" | "basic" | "token" | "digest")
                && bytes.get(end) == Some(&b' ')
            {
                end = word_end(end + 1);
            }
            (v, end)
        };
        if value_end <= value_start {
            i += 1;
            continue;
        }
        out.push_str(msg.get(copied..value_start).unwrap_or(""));
        out.push_str(REDACTED);
        copied = value_end;
        i = value_end;
    }
    out.push_str(msg.get(copied..).unwrap_or(""));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_line_message_of_megabytes_is_cut_to_the_bound() {
        let msg = format!("client asked for {}", "v".repeat(4 << 20));
        for format in [Format::Json, Format::Human] {
            let line = format_line(format, "t", Level::Info, "x", &msg, None);
            assert!(line.len() < MAX_MESSAGE_BYTES + 200, "{} bytes", line.len());
            assert!(line.contains(&format!("…[{} bytes cut]", msg.len() - MAX_MESSAGE_BYTES)));
        }
    }

    #[test]
    fn config_defaults_are_info_json_no_trace() {
        let c = Config::from_values(None, None, None, false);
        assert_eq!(c.level, LevelFilter::Info);
        assert_eq!(c.format, Format::Json);
        assert_eq!(c.trace_id, None);
        assert!(c.warnings.is_empty());
        assert_eq!(Config::from_values(Some(""), Some(" "), Some(""), false), c);
    }

    /// A person running a command reads the human form; a host or a log file, JSON. A
    /// format that is set is taken either way; a typo falls back to the default.
    #[test]
    fn config_unset_format_is_human_on_a_terminal() {
        assert_eq!(
            Config::from_values(None, None, None, true).format,
            Format::Human
        );
        assert_eq!(
            Config::from_values(None, Some("json"), None, true).format,
            Format::Json
        );
        let typo = Config::from_values(None, Some("xml"), None, true);
        assert_eq!(typo.format, Format::Human);
        assert!(
            typo.warnings[0].ends_with("using human"),
            "{:?}",
            typo.warnings
        );
    }

    #[test]
    fn config_known_values_are_taken() {
        let c = Config::from_values(Some("debug"), Some("human"), Some("abc-123"), false);
        assert_eq!(c.level, LevelFilter::Debug);
        assert_eq!(c.format, Format::Human);
        assert_eq!(c.trace_id.as_deref(), Some("abc-123"));
        assert_eq!(
            Config::from_values(Some("WARN"), None, None, false).level,
            LevelFilter::Warn
        );
        assert_eq!(
            Config::from_values(Some("error"), None, None, false).level,
            LevelFilter::Error
        );
        // Regression: `off` was refused with a warning on every start, so a host could not
        // silence the server.
        let off = Config::from_values(Some("off"), None, None, false);
        assert_eq!(off.level, LevelFilter::Off);
        assert!(off.warnings.is_empty());
    }

    /// Regression: a value that is not UTF-8 was read as unset (`std::env::var(..).ok()`), so
    /// `MCP_LOG_LEVEL=$'\xff'` (a mistyped or mis-encoded setting) logged at `info` without
    /// the warning any other wrong value gets. It is read with its bad bytes as U+FFFD: wrong,
    /// and said so.
    #[cfg(unix)]
    #[test]
    fn config_a_value_not_utf8_warns_as_any_wrong_one() {
        use std::os::unix::ffi::OsStringExt;
        let bad = || Some(std::ffi::OsString::from_vec(b"de\xffbug".to_vec()));
        let c = Config::from_values(
            env_text(bad()).as_deref(),
            env_text(bad()).as_deref(),
            None,
            false,
        );
        assert_eq!(c.level, LevelFilter::Info);
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(
            c.warnings[0].contains("MCP_LOG_LEVEL=\"de\u{fffd}bug\""),
            "{:?}",
            c.warnings
        );
    }

    #[test]
    fn config_invalid_level_warns_and_uses_info() {
        let c = Config::from_values(Some("verbose"), Some("xml"), None, false);
        assert_eq!(c.level, LevelFilter::Info);
        assert_eq!(c.format, Format::Json);
        assert_eq!(c.warnings.len(), 2);
        assert!(c.warnings[0].contains("MCP_LOG_LEVEL=\"verbose\""));
        assert!(c.warnings[1].contains("MCP_LOG_FORMAT=\"xml\""));
    }

    #[test]
    fn format_line_json_has_fields_and_optional_trace() {
        let line = format_line(
            Format::Json,
            "2026-07-28T00:00:00.000Z",
            Level::Info,
            "review_mcp::tool",
            "tool=recall era=2025-11-25 outcome=ok",
            Some("t-1"),
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["ts"], "2026-07-28T00:00:00.000Z");
        assert_eq!(v["level"], "info");
        assert_eq!(v["target"], "review_mcp::tool");
        assert_eq!(v["msg"], "tool=recall era=2025-11-25 outcome=ok");
        assert_eq!(v["trace_id"], "t-1");
        let line = format_line(Format::Json, "x", Level::Warn, "t", "m\n\"q\"", None);
        assert!(!line.contains('\n'));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 4);
        assert_eq!(v["msg"], "m\n\"q\"");
        assert_eq!(v["level"], "warn");
    }

    #[test]
    fn format_line_human_is_one_readable_line() {
        let line = format_line(
            Format::Human,
            "2026-07-28T00:00:00.000Z",
            Level::Error,
            "review_mcp",
            "bad\nthing",
            Some("t-9"),
        );
        assert_eq!(
            line,
            "2026-07-28T00:00:00.000Z ERROR review_mcp: bad\\nthing trace_id=t-9"
        );
    }

    /// Regression: `MCP_TRACE_ID` holding a line break (or an escape sequence) was written
    /// as it is in the human format, so one event became two lines on the terminal.
    #[test]
    fn format_line_human_escapes_the_trace_id() {
        let line = format_line(
            Format::Human,
            "2026-07-28T00:00:00.000Z",
            Level::Info,
            "review_mcp",
            "m",
            Some("a\nFAKE \u{1b}[31m"),
        );
        assert_eq!(
            line,
            "2026-07-28T00:00:00.000Z INFO  review_mcp: m trace_id=a\\u{a}FAKE \\u{1b}[31m"
        );
    }

    /// A client's or a file's value in a message (a notification's method, a stored uri in
    /// an upgrade's warning) cannot act on the terminal that shows stderr: no escape, C1
    /// control or bidirectional control reaches it raw, in either format; a JSON line still
    /// reads back as the same message.
    #[test]
    fn format_line_shows_controls_and_bidi_as_escapes_in_both_formats() {
        let msg = "m \u{1b}]52;c;SGk=\u{7} \u{9b}2J \u{85} \u{7f} \u{202e}evil \u{2028}\r\nx";
        let raw = |line: &str| line.chars().any(crate::text::is_control_like);
        let human = format_line(
            Format::Human,
            "ts",
            Level::Debug,
            "t",
            msg,
            Some("t\u{1b}[1m"),
        );
        assert!(!raw(&human), "{human:?}");
        assert_eq!(
            human,
            "ts DEBUG t: m \\u{1b}]52;c;SGk=\\u{7} \\u{9b}2J \\u{85} \\u{7f} \\u{202e}evil \\u{2028}\\r\\nx trace_id=t\\u{1b}[1m"
        );
        let json = format_line(Format::Json, "ts", Level::Debug, "t", msg, Some("t\u{9b}"));
        assert!(!raw(&json), "{json:?}");
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["msg"], msg);
        assert_eq!(v["trace_id"], "t\u{9b}");
    }

    #[test]
    fn format_line_redacts_the_message() {
        let line = format_line(Format::Json, "x", Level::Info, "t", "token=abc", None);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["msg"], "token=[REDACTED]");
    }

    #[test]
    fn redact_key_value_pairs() {
        assert_eq!(
            redact("user=ann password=hunter2 tool=recall"),
            "user=ann password=[REDACTED] tool=recall"
        );
        assert_eq!(
            redact("api_key=k1,apikey=k2;access_key=k3&private_key=k4"),
            "api_key=[REDACTED],apikey=[REDACTED];access_key=[REDACTED]&private_key=[REDACTED]"
        );
        assert_eq!(redact("X-Api-Key=zzz"), "X-Api-Key=[REDACTED]");
        assert_eq!(redact("GITHUB_TOKEN=ghp_x"), "GITHUB_TOKEN=[REDACTED]");
        assert_eq!(redact("cookie: sid=1"), "cookie: [REDACTED]");
    }

    #[test]
    fn redact_json_fields() {
        assert_eq!(
            redact(r#"{"token":"abc","name":"bore","secret": "s\"x","n":1}"#),
            r#"{"token":"[REDACTED]","name":"bore","secret": "[REDACTED]","n":1}"#
        );
        assert_eq!(
            redact(r#"{"client_secret":42}"#),
            r#"{"client_secret":[REDACTED]}"#
        );
    }

    #[test]
    fn redact_authorization_scheme_takes_the_credential() {
        assert_eq!(
            redact("Authorization: Bearer eyJabc.def next=1"),
            "Authorization: [REDACTED] next=1"
        );
        assert_eq!(
            redact("authorization=Basic dXNlcjpwYXNz"),
            "authorization=[REDACTED]"
        );
    }

    #[test]
    fn redact_leaves_ordinary_messages_alone() {
        for m in [
            "tool=recall era=2025-11-25 outcome=ok duration_us=12",
            "https://example.com:8080/a=b",
            "token",
            "password=",
            "12:30:00",
            "ünïcödé=ok — token-free",
            "",
        ] {
            assert_eq!(redact(m), m);
        }
    }

    #[test]
    fn redact_unterminated_quote_redacts_to_end() {
        assert_eq!(redact(r#""password":"abc"#), r#""password":"[REDACTED]"#);
    }
}
