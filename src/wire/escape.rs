//! The JSON this module writes, and the escaped copy every tool answer carries: its compact
//! JSON as the inside of a JSON string (the answer's text block).

use std::io;

use serde::Serialize;

/// serde_json's compact JSON of `value`, with every character of
/// [`crate::text::is_control_like`] that serde_json leaves raw in a string (DEL, C1 controls,
/// U+2028/9, the bidirectional controls, the invisible format characters) written as a
/// `\u202e` escape: the same value, but text a model, a host showing an answer or a terminal
/// reads shows a stored string in the order it is stored, on the line it is on and with
/// nothing hidden, as the export, the synced folder and the logs write it.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(128);
    to_writer(&mut out, value)?;
    // Both serde_json and the escapes write UTF-8 only.
    String::from_utf8(out)
        .map_err(|e| <serde_json::Error as serde::ser::Error>::custom(format!("not UTF-8: {e}")))
}

/// [`to_json`] into `writer`.
pub(super) fn to_writer<W: io::Write, T: Serialize + ?Sized>(
    writer: W,
    value: &T,
) -> serde_json::Result<()> {
    value.serialize(&mut serde_json::Serializer::with_formatter(
        writer,
        ControlsEscaped,
    ))
}

/// serde_json's compact formatter, but a string's characters that [`crate::text::is_control_like`]
/// names and serde_json leaves raw are escaped. serde_json escapes `"`, `\` and the C0 controls
/// itself and hands the runs between them here.
struct ControlsEscaped;

impl serde_json::ser::Formatter for ControlsEscaped {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // Every such character starts with one of these bytes in UTF-8 (DEL; C1 and U+00AD:
        // C2; U+034F: CD 8F; U+061C: D8 9C; U+115F-1160, U+17B4-17B5, U+180E: E1; U+200B-200F,
        // U+2028-202E, U+2060-206F: E2; U+3164: E3; U+FEFF, U+FFA0, U+FFF9-FFFB: EF;
        // U+1BCA0-1BCA3, U+1D173-1D17A: F0; U+E0000-E0FFF: F3): most text has none.
        if !fragment.bytes().any(|b| {
            matches!(
                b,
                0x7f | 0xc2 | 0xcd | 0xd8 | 0xe1 | 0xe2 | 0xe3 | 0xef | 0xf0 | 0xf3
            )
        }) {
            return writer.write_all(fragment.as_bytes());
        }
        writer.write_all(crate::text::escape_json_controls(fragment).as_bytes())
    }
}

/// Appends `json` as the inside of a JSON string. `json` is compact JSON as serde_json writes
/// it, which holds no control character (they are escaped inside strings and there is no
/// whitespace outside), so only `"` and `\` need a backslash: byte for byte what serde_json
/// writes for the same string. It reads eight bytes at a time and jumps from one `"` or `\`
/// to the next by the bits of a mask, because a byte loop stalls on one quote in eight.
pub(super) fn push_json_as_string_contents(json: &str, out: &mut String) {
    out.reserve(json.len() + quotes(json.as_bytes()));
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

/// How many bytes of `json` the escaped copy adds a backslash before.
pub(super) fn quotes(json: &[u8]) -> usize {
    json.iter().filter(|b| matches!(b, b'"' | b'\\')).count()
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
mod tests {
    use super::*;

    #[test]
    fn to_json_escapes_what_serde_json_leaves_raw_and_is_the_same_value() {
        let v = serde_json::json!({
            "k\u{202e}": ["a\u{2028}b\u{85}c\u{9b}2J\u{7f}\u{200f}\u{61c}\u{2066}\u{2069}", "\n\u{1b}\"\\"],
            "plain": "Ø10 H7 ✅ नमस्ते ‘’ — …"
        });
        let json = to_json(&v).unwrap();
        assert_eq!(
            json,
            r#"{"k\u202e":["a\u2028b\u0085c\u009b2J\u007f\u200f\u061c\u2066\u2069","\n\u001b\"\\"],"plain":"Ø10 H7 ✅ नमस्ते ‘’ — …"}"#
        );
        assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap(), v);
        let plain = serde_json::json!({"a": "Ø ✅ plain", "n": [1, 2.5, null]});
        assert_eq!(to_json(&plain).unwrap(), plain.to_string());
    }

    /// The byte filter that lets plain text through unread lets none of the characters
    /// `is_control_like` names through raw, each alone in a string.
    #[test]
    fn to_json_escapes_every_control_like_character_alone() {
        let raw: Vec<String> = (0..=0x10_FFFF_u32)
            .filter_map(char::from_u32)
            .filter(|&c| crate::text::is_control_like(c))
            .filter(|&c| to_json(&format!("a{c}b")).unwrap().contains(c))
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        assert!(raw.is_empty(), "written raw: {raw:?}");
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
                        serde_json::Value::String(compact.clone()).to_string()
                    );
                    assert_eq!(compact.len() + quotes(compact.as_bytes()), inside.len());
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
