//! Compact JSON written by hand for the wire forms a recall sends by the page.
//!
//! The bytes are exactly those serde_json writes for the same struct (the tests compare them
//! on awkward values), without its general machinery: keys are literals, and a string that
//! needs no escaping (nearly all of them) is copied in one piece instead of being scanned by
//! serde_json's per-character escaper. That escaper was a tenth of a recall by tags.
//!
//! A tool answer also carries its JSON as text, escaped as the inside of a JSON string (every
//! `"` and `\` gets a backslash). [`JsonOut`] writes that copy in the same pass, where the
//! quotes are known, instead of searching a finished page for them afterwards: that search
//! was a fifth of a recall by tags (one byte in eight of a page is a quote). Answers built
//! any other way are escaped afterwards by [`push_json_as_string_contents`].

/// What the items of one answer (the records or decisions of a page, or the one a `remember`
/// returns) may cost in bytes: their JSON plus its escaped copy, both of which the answer
/// carries (`structuredContent` and the text block). The rest of the answer line (the
/// envelope, the summary, `next_cursor`) fits in the 64 KiB left over, so no answer line is
/// longer than a request line may be ([`crate::framing::MAX_LINE_BYTES`], 16 MiB). A page
/// stops early when the next item would pass it; a record or decision that alone would is
/// refused when it is written (see [`JsonOut::answer_bytes`]), so every item fits a page.
pub const MAX_ANSWER_ITEMS_BYTES: usize = crate::framing::MAX_LINE_BYTES - 64 * 1024;

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

/// A wire form's JSON, and the same JSON escaped as the inside of a JSON string, written
/// together.
#[derive(Debug, Default)]
pub struct JsonOut {
    pub plain: String,
    pub quoted: String,
}

impl JsonOut {
    /// What a wire form written by `write` costs an answer: its JSON and its escaped copy.
    pub fn answer_bytes(write: impl FnOnce(&mut JsonOut)) -> usize {
        let mut out = JsonOut::default();
        write(&mut out);
        out.plain.len() + out.quoted.len()
    }

    /// Room for `bytes` of JSON.
    pub fn with_capacity(bytes: usize) -> JsonOut {
        JsonOut {
            plain: String::with_capacity(bytes),
            // Escaping adds a byte per quote: about one in eight bytes of a page of records.
            quoted: String::with_capacity(bytes + bytes / 4),
        }
    }

    /// Appends JSON text that holds no `"` or `\` (punctuation, literals, numbers): the same
    /// bytes in both copies.
    pub fn push_plain(&mut self, text: &str) {
        self.plain.push_str(text);
        self.quoted.push_str(text);
    }

    /// Appends any compact JSON text (as serde_json writes it), escaping it for the quoted
    /// copy.
    pub fn push_json(&mut self, json: &str) {
        self.plain.push_str(json);
        push_json_as_string_contents(json, &mut self.quoted);
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
            self.quoted.push_str("\\\"");
            self.quoted.push_str(s);
            self.quoted.push_str("\\\"");
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
        self.quoted.push_str(key.quoted);
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

/// Appends `json` as the inside of a JSON string. `json` is serde_json's compact output, which
/// holds no control character (serde_json escapes them inside strings and writes no
/// whitespace outside), so only `"` and `\` need a backslash: byte for byte what serde_json
/// writes for the same string. It reads eight bytes at a time and jumps from one `"` or `\`
/// to the next by the bits of a mask: in a page of records about one byte in eight is a
/// quote, so a word-at-a-time test that fell back to a byte loop on a hit saved little
/// (measured on a 23 kB page: 34 µs byte loop on a hit, 21 µs this way).
pub fn push_json_as_string_contents(json: &str, out: &mut String) {
    let mut run = 0; // start of the bytes not yet copied
    let mut escape_at = |at: usize, out: &mut String| {
        // `at` is at an ASCII byte, so both slices are on character boundaries.
        out.push_str(json.get(run..at).unwrap_or_default());
        out.push('\\');
        run = at;
    };
    let mut words = json.as_bytes().chunks_exact(8);
    let mut base = 0;
    for word in &mut words {
        let word = <[u8; 8]>::try_from(word).map_or(0, u64::from_le_bytes);
        let mut hits = byte_mask(word, b'"') | byte_mask(word, b'\\');
        while hits != 0 {
            escape_at(base + (hits.trailing_zeros() / 8) as usize, out);
            hits &= hits - 1;
        }
        base += 8;
    }
    for (k, b) in words.remainder().iter().enumerate() {
        if matches!(b, b'"' | b'\\') {
            escape_at(base + k, out);
        }
    }
    out.push_str(json.get(run..).unwrap_or_default());
}

/// The high bit of each of the eight bytes of `word` that equals `b`, and no other bit. (The
/// classic `(x - 0x01..) & !x` test is exact only for "is there any": its borrow can mark
/// the byte after a match.)
fn byte_mask(word: u64, b: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word ^ (ONES * u64::from(b));
    // A byte of `x` is zero exactly when adding 0x7f to its low seven bits leaves its high
    // bit clear and its own high bit is clear.
    !((x & LOWS).wrapping_add(LOWS) | x | LOWS)
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
        let mut out = JsonOut::with_capacity(0);
        write(&mut out);
        assert_eq!(out.plain, serde_json::to_string(wire).unwrap());
        assert_quoted_matches(&out);
    }

    /// `out`'s quoted copy must be the plain JSON escaped as the inside of a JSON string.
    pub fn assert_quoted_matches(out: &JsonOut) {
        let quoted = &out.quoted;
        assert_eq!(
            format!("\"{quoted}\""),
            serde_json::to_string(&out.plain).unwrap()
        );
    }

    #[test]
    fn push_str_writes_what_serde_json_writes() {
        for s in awkward_strings() {
            let mut out = JsonOut::with_capacity(0);
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
            let mut out = JsonOut::with_capacity(0);
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
    fn json_as_string_contents_handles_quotes_at_every_offset_of_a_word() {
        // '#' and ']' are one more than '"' and '\\': the bytes a borrowing zero-byte test
        // wrongly marks right after a match.
        for (len, fill) in (0..40).flat_map(|len| ['a', '#', ']'].map(|fill| (len, fill))) {
            for at in 0..len {
                for special in ['"', '\\', 'é', '\n'] {
                    let text: String = (0..len)
                        .map(|k| {
                            if k == at || k == len - 1 - at / 2 {
                                special
                            } else {
                                fill
                            }
                        })
                        .collect();
                    let compact = serde_json::Value::String(text).to_string();
                    let mut inside = String::new();
                    push_json_as_string_contents(&compact, &mut inside);
                    assert_eq!(
                        format!("\"{inside}\""),
                        serde_json::Value::String(compact).to_string()
                    );
                }
            }
        }
    }

    #[test]
    fn byte_mask_marks_exactly_the_bytes_equal_to_b() {
        for b in [b'"', b'\\'] {
            for fill in [0u8, b'a', 0x80, 0xff, b ^ 0x80, b + 1, b - 1] {
                assert_eq!(byte_mask(u64::from_le_bytes([fill; 8]), b), 0, "{fill:#x}");
                // Every subset of positions, so a match next to another or at either end
                // is covered.
                for set in 0u16..256 {
                    let mut w = [fill; 8];
                    let mut want = 0u64;
                    for (pos, byte) in w.iter_mut().enumerate() {
                        if set & (1 << pos) != 0 {
                            *byte = b;
                            want |= 0x80 << (pos * 8);
                        }
                    }
                    assert_eq!(byte_mask(u64::from_le_bytes(w), b), want, "{w:?}");
                }
            }
        }
    }
}
