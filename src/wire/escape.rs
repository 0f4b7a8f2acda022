//! The two copies every tool answer carries: compact JSON, and the same JSON escaped as the
//! inside of a JSON string (the answer's text block).
//!
//! [`Dual`] writes both in one pass, where the quotes are known, instead of searching a
//! finished page for them afterwards (one byte in eight of a page of records is a quote).
//! JSON made any other way is escaped afterwards by [`push_json_as_string_contents`].

/// Compact JSON and its escaped copy, written together.
#[derive(Debug, Default)]
pub struct Dual {
    pub(super) plain: String,
    pub(super) quoted: String,
}

impl Dual {
    /// Room for `bytes` of JSON.
    pub fn with_capacity(bytes: usize) -> Dual {
        Dual {
            plain: String::with_capacity(bytes),
            // Escaping adds a byte per quote: about one in eight bytes of a page of records.
            quoted: String::with_capacity(bytes + bytes / 4),
        }
    }

    /// The bytes both copies hold: what they cost an answer that carries both.
    pub fn len(&self) -> usize {
        self.plain.len() + self.quoted.len()
    }

    pub fn is_empty(&self) -> bool {
        self.plain.is_empty()
    }

    /// Cuts both copies back to lengths taken earlier with [`Dual::mark`].
    pub(super) fn truncate(&mut self, mark: (usize, usize)) {
        self.plain.truncate(mark.0);
        self.quoted.truncate(mark.1);
    }

    pub(super) fn mark(&self) -> (usize, usize) {
        (self.plain.len(), self.quoted.len())
    }

    /// Appends JSON text that holds no `"` or `\` (punctuation, literals, numbers): the same
    /// bytes in both copies.
    #[inline(always)]
    pub(super) fn push_plain(&mut self, text: &str) {
        self.plain.push_str(text);
        self.quoted.push_str(text);
    }

    /// Appends compact JSON text (as serde_json writes it), escaping it for the quoted copy.
    pub(super) fn push_json(&mut self, json: &str) {
        self.plain.push_str(json);
        push_json_as_string_contents(json, &mut self.quoted);
    }

    /// Appends a struct field's key and its colon, after a comma unless it is the first:
    /// the most frequent thing a page writes (sixteen keys per record), so each copy gets it
    /// in three pushes.
    #[inline(always)]
    pub(super) fn push_field_key(&mut self, comma: bool, key: &'static str) {
        if needs_escape(key) {
            if comma {
                self.push_plain(",");
            }
            self.push_str(key);
            self.push_plain(":");
            return;
        }
        let (plain, quoted) = (&mut self.plain, &mut self.quoted);
        if comma {
            plain.push_str(",\"");
            quoted.push_str(",\\\"");
        } else {
            plain.push('"');
            quoted.push_str("\\\"");
        }
        plain.push_str(key);
        plain.push_str("\":");
        quoted.push_str(key);
        quoted.push_str("\\\":");
    }

    /// Appends `s` as a JSON string.
    #[inline(always)]
    pub(super) fn push_str(&mut self, s: &str) {
        if !needs_escape(s) {
            self.plain.push('"');
            self.plain.push_str(s);
            self.plain.push('"');
            self.quoted.push_str("\\\"");
            self.quoted.push_str(s);
            self.quoted.push_str("\\\"");
        } else {
            // serde_json's own escaping (short forms, `\u00XX`) for the rare string that needs
            // it. Encoding a string cannot fail.
            let json = serde_json::to_string(s).unwrap_or_default();
            self.push_json(&json);
        }
    }
}

/// True when `s` holds a byte a JSON string must escape (a control character, `"` or `\`).
#[inline(always)]
fn needs_escape(s: &str) -> bool {
    // No early exit, so the compiler can test many bytes at once (eight at a time by hand
    // measured more instructions on the short strings of a record).
    !s.bytes()
        .fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'))
}

/// Appends `json` as the inside of a JSON string. `json` is compact JSON as serde_json writes
/// it, which holds no control character (they are escaped inside strings and there is no
/// whitespace outside), so only `"` and `\` need a backslash: byte for byte what serde_json
/// writes for the same string. It reads eight bytes at a time and jumps from one `"` or `\`
/// to the next by the bits of a mask, because a byte loop stalls on one quote in eight.
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
#[inline(always)]
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

    /// `out`'s quoted copy must be the plain JSON escaped as the inside of a JSON string.
    pub fn assert_quoted_matches(out: &Dual) {
        let quoted = &out.quoted;
        assert_eq!(
            format!("\"{quoted}\""),
            serde_json::to_string(&out.plain).unwrap()
        );
    }

    #[test]
    fn push_str_writes_what_serde_json_writes() {
        for s in awkward_strings() {
            let mut out = Dual::with_capacity(0);
            out.push_str(&s);
            assert_eq!(out.plain, serde_json::to_string(&s).unwrap(), "{s:?}");
            assert_quoted_matches(&out);
        }
    }

    #[test]
    fn needs_escape_finds_every_byte_that_needs_it_at_every_offset() {
        for len in 0..20 {
            for at in 0..len {
                for b in 0u8..=0x7f {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = b;
                    let s = String::from_utf8(bytes).unwrap();
                    let want = b < 0x20 || b == b'"' || b == b'\\';
                    assert_eq!(needs_escape(&s), want, "{s:?}");
                }
            }
        }
        assert!(!needs_escape("ünïcödé ✓ 𝄞 \u{7f}"));
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
