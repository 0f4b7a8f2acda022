//! Compact JSON written by hand for the wire forms a recall sends by the page.
//!
//! The bytes are exactly those serde_json writes for the same struct (the tests compare them
//! on awkward values), without its general machinery: keys are literals, and a string that
//! needs no escaping (nearly all of them) is copied in one piece instead of being scanned by
//! serde_json's per-character escaper. That escaper was a tenth of a recall by tags.

use std::borrow::Cow;

/// Appends `s` as a JSON string.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    // No early exit, so the compiler can test many bytes at once.
    let plain = s
        .bytes()
        .fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'));
    if plain {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        // serde_json's own escaping (short forms, `\u00XX`), for the rare string that needs
        // it. Writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

/// Appends `strings` as a JSON array of strings.
pub fn push_strs(out: &mut Vec<u8>, strings: &[Cow<'_, str>]) {
    out.push(b'[');
    for (i, s) in strings.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_str(out, s);
    }
    out.push(b']');
}

/// Appends `"key":` (the key must need no escaping: they are all literals here), preceded by
/// a comma unless it is the object's first.
pub fn push_key(out: &mut Vec<u8>, key: &str, first: bool) {
    if !first {
        out.push(b',');
    }
    out.push(b'"');
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
}

/// Appends `null`, `true` or `false`.
pub fn push_opt_bool(out: &mut Vec<u8>, b: Option<bool>) {
    out.extend_from_slice(match b {
        None => b"null",
        Some(true) => b"true",
        Some(false) => b"false",
    });
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

    #[test]
    fn push_str_writes_what_serde_json_writes() {
        for s in awkward_strings() {
            let mut out = Vec::new();
            push_str(&mut out, &s);
            assert_eq!(out, serde_json::to_vec(&s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn push_strs_writes_what_serde_json_writes() {
        let all = awkward_strings();
        for n in [0, 1, 2, all.len()] {
            let strings: Vec<Cow<'_, str>> = all.iter().take(n).map(|s| s.into()).collect();
            let mut out = Vec::new();
            push_strs(&mut out, &strings);
            assert_eq!(out, serde_json::to_vec(&strings).unwrap());
        }
    }
}
