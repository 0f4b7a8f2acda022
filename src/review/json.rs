//! Compact JSON written by hand for the wire forms a recall sends by the page.
//!
//! The bytes are exactly those serde_json writes for the same struct (the tests compare them
//! on awkward values), without its general machinery: keys are literals, and a string that
//! needs no escaping (nearly all of them) is copied in one piece instead of being scanned by
//! serde_json's per-character escaper. That escaper was a tenth of a recall by tags.
//!
//! A tool answer also carries its JSON as text, escaped as the inside of a JSON string (every
//! `"` and `\` gets a backslash). [`JsonOut`] can write that copy in the same pass, where the
//! quotes are known, instead of searching a finished page for them afterwards: that search
//! was a fifth of a recall by tags (one byte in eight of a page is a quote).

/// A member's key as `JsonOut::push_key` writes it: `,"name":` (or `"name":` for an object's
/// first member, `key!(first "name")`) and its escaped copy, both made at compile time.
macro_rules! key {
    (first $name:literal) => {
        $crate::review::json::Key {
            plain: concat!("\"", $name, "\":"),
            quoted: concat!("\\\"", $name, "\\\":"),
        }
    };
    ($name:literal) => {
        $crate::review::json::Key {
            plain: concat!(",\"", $name, "\":"),
            quoted: concat!(",\\\"", $name, "\\\":"),
        }
    };
}
pub(crate) use key;

/// See [`key!`].
pub struct Key {
    pub plain: &'static str,
    pub quoted: &'static str,
}

/// A wire form's JSON, and when asked for, the same JSON escaped as the inside of a JSON
/// string, written together.
#[derive(Debug, Default)]
pub struct JsonOut {
    pub plain: String,
    /// `None` when not kept.
    pub quoted: Option<String>,
}

impl JsonOut {
    /// Room for `bytes` of JSON; `quoted`: keep the escaped copy as well.
    pub fn with_capacity(bytes: usize, quoted: bool) -> JsonOut {
        JsonOut {
            plain: String::with_capacity(bytes),
            // Escaping adds a byte per quote: about one in eight bytes of a page of records.
            quoted: quoted.then(|| String::with_capacity(bytes + bytes / 4)),
        }
    }

    /// Appends JSON text that holds no `"` or `\` (punctuation, literals, numbers): the same
    /// bytes in both copies.
    pub fn push_plain(&mut self, text: &str) {
        self.plain.push_str(text);
        if let Some(q) = &mut self.quoted {
            q.push_str(text);
        }
    }

    /// Appends any JSON text, escaping it for the quoted copy.
    pub fn push_json(&mut self, json: &str) {
        self.plain.push_str(json);
        if let Some(q) = &mut self.quoted {
            for c in json.chars() {
                if c == '"' || c == '\\' {
                    q.push('\\');
                }
                q.push(c);
            }
        }
    }

    /// Appends `s` as a JSON string.
    pub fn push_str(&mut self, s: &str) {
        // No early exit, so the compiler can test many bytes at once (a word-at-a-time test
        // measured no better).
        let plain = s
            .bytes()
            .fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'));
        if plain {
            self.plain.push('"');
            self.plain.push_str(s);
            self.plain.push('"');
            if let Some(q) = &mut self.quoted {
                q.push_str("\\\"");
                q.push_str(s);
                q.push_str("\\\"");
            }
        } else {
            // serde_json's own escaping (short forms, `\u00XX`), for the rare string that
            // needs it. Encoding a string cannot fail.
            let json = serde_json::to_string(s).unwrap_or_default();
            self.push_json(&json);
        }
    }

    /// Appends `strings` as a JSON array of strings.
    pub fn push_strs<'s>(&mut self, strings: impl IntoIterator<Item = &'s str>) {
        self.push_plain("[");
        for (i, s) in strings.into_iter().enumerate() {
            if i > 0 {
                self.push_plain(",");
            }
            self.push_str(s);
        }
        self.push_plain("]");
    }

    /// Appends a member's key (see [`key!`]).
    pub fn push_key(&mut self, key: Key) {
        self.plain.push_str(key.plain);
        if let Some(q) = &mut self.quoted {
            q.push_str(key.quoted);
        }
    }

    /// Appends `null`, `true` or `false`.
    pub fn push_opt_bool(&mut self, b: Option<bool>) {
        self.push_plain(match b {
            None => "null",
            Some(true) => "true",
            Some(false) => "false",
        });
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Strings that exercise every escaping rule: quotes, backslashes, every control
    /// character, DEL, multi-byte characters, and long plain runs.
    pub fn awkward_strings() -> Vec<String> {
        let mut v: Vec<String> = [
            "",
            "plain",
            "a \"quoted\" word",
            "back\\slash",
            "line\nbreak\ttab\rreturn",
            "\u{7f}del",
            "ünïcödé ✓ 𝄞",
            "/work/parts/a b.step",
            "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend((0u8..0x20).map(|c| format!("x{}y", char::from(c))));
        // A pseudo-random mix of the above characters, in several lengths.
        let alphabet: Vec<char> = "ab \"\\\n\u{1}\u{1f}é✓𝄞/".chars().collect();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for len in [1, 7, 8, 9, 31, 64] {
            for _ in 0..20 {
                let s: String = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        alphabet[(x % alphabet.len() as u64) as usize]
                    })
                    .collect();
                v.push(s);
            }
        }
        v
    }

    /// An artifact of awkward strings, its optional members present or not depending on `i`.
    pub fn awkward_artifact(i: usize) -> crate::review::Artifact {
        let strings = awkward_strings();
        let pick = |k: usize| strings[k % strings.len()].clone();
        crate::review::Artifact {
            revision: pick(i + 4),
            format: pick(i + 5),
            uri: (i % 3 != 0).then(|| pick(i + 6)),
            units: (i % 2 == 0).then(|| pick(i + 7)),
        }
    }

    /// `write` must append the bytes serde_json writes for `wire`, and their escaped copy.
    pub fn assert_writes_like_serde(
        wire: &impl serde::Serialize,
        write: impl FnOnce(&mut JsonOut),
    ) {
        let mut out = JsonOut::with_capacity(0, true);
        write(&mut out);
        assert_eq!(out.plain, serde_json::to_string(wire).unwrap());
        assert_quoted_matches(&out);
    }

    /// `out`'s quoted copy must be the plain JSON escaped as the inside of a JSON string.
    pub fn assert_quoted_matches(out: &JsonOut) {
        let quoted = out.quoted.as_deref().unwrap();
        assert_eq!(
            format!("\"{quoted}\""),
            serde_json::to_string(&out.plain).unwrap()
        );
    }

    #[test]
    fn push_str_writes_what_serde_json_writes() {
        for s in awkward_strings() {
            let mut out = JsonOut::with_capacity(0, true);
            out.push_str(&s);
            assert_eq!(out.plain, serde_json::to_string(&s).unwrap(), "{s:?}");
            assert_quoted_matches(&out);
        }
    }

    #[test]
    fn push_strs_and_keys_write_what_serde_json_writes() {
        let all = awkward_strings();
        for n in [0, 1, 2, all.len()] {
            let strings: Vec<&str> = all.iter().take(n).map(String::as_str).collect();
            let mut out = JsonOut::with_capacity(0, true);
            out.push_plain("{");
            out.push_key(key!(first "list"));
            out.push_strs(strings.iter().copied());
            out.push_key(key!("flag"));
            out.push_opt_bool(Some(n > 1));
            out.push_plain("}");
            let want = format!(
                "{{\"list\":{},\"flag\":{}}}",
                serde_json::to_string(&strings).unwrap(),
                n > 1
            );
            assert_eq!(out.plain, want);
            assert_quoted_matches(&out);
        }
    }

    #[test]
    fn without_quoted_only_plain_is_written() {
        let mut out = JsonOut::with_capacity(0, false);
        out.push_str("a\"b");
        assert_eq!(out.plain, r#""a\"b""#);
        assert!(out.quoted.is_none());
    }
}
