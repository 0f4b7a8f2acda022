//! Sealed cursors (every list's, see `crate::cursor`) in transcripts: finding them, masking their seals, swapping a
//! recorded cursor for the one this server issued at the same position.

use serde_json::Value;

/// `haystack` with every occurrence of `from` replaced by `to`.
pub(super) fn replace_bytes(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() || from == to {
        return haystack.to_vec();
    }
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack.get(i..i + from.len()) == Some(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.extend(haystack.get(i).copied());
            i += 1;
        }
    }
    out
}

/// The sealed cursors in a string, in order: each as (start, end of its position part, end)
/// byte offsets. A cursor is `c2.<hex>.<hex>.<hex>.<32 hex>`; the last part is its seal.
pub(super) fn seals(s: &str) -> Vec<(usize, usize, usize)> {
    let b = s.as_bytes();
    let hex_run = |from: usize| hex_run(b, from);
    let mut found = request_states(s);
    let mut at = 0;
    while let Some(off) = s.get(at..).and_then(|rest| rest.find("c2.")) {
        let start = at + off;
        let mut i = start + 3;
        let mut ok = true;
        for _ in 0..3 {
            let n = hex_run(i);
            if n == 0 || b.get(i + n) != Some(&b'.') {
                ok = false;
                break;
            }
            i += n + 1;
        }
        if ok && hex_run(i) == 32 {
            found.push((start, i, i + 32));
            at = i + 32;
        } else {
            at = start + 3;
        }
    }
    found.sort_unstable();
    found
}

/// The sealed `requestState` tokens of `request_verdicts` in a string: `rv1.<hex>.<32 hex>`.
/// The whole body is masked, not only the seal: it holds an expiry and a digest of the basis,
/// both of which differ from one run to the next.
fn request_states(s: &str) -> Vec<(usize, usize, usize)> {
    let b = s.as_bytes();
    let hex_run = |from: usize| hex_run(b, from);
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(off) = s.get(at..).and_then(|rest| rest.find("rv1.")) {
        let start = at + off;
        let body = hex_run(start + 4);
        let seal_at = start + 4 + body + 1;
        if body > 0 && b.get(seal_at - 1) == Some(&b'.') && hex_run(seal_at) == 32 {
            found.push((start, start + 4, seal_at + 32));
            at = seal_at + 32;
        } else {
            at = start + 4;
        }
    }
    found
}

/// How many hex digits `b` holds from `from` on.
fn hex_run(b: &[u8], from: usize) -> usize {
    b.get(from..).map_or(0, |rest| {
        rest.iter().take_while(|c| c.is_ascii_hexdigit()).count()
    })
}

/// True when `s` is exactly one sealed `requestState` token.
pub(super) fn is_request_state(s: &str) -> bool {
    request_states(s)
        .first()
        .is_some_and(|&(start, _, end)| start == 0 && end == s.len())
}

/// `s` with the seal of every cursor in it blanked: two answers that hand out the same
/// positions compare equal whichever database sealed them.
pub fn mask_seals(s: &str) -> std::borrow::Cow<'_, str> {
    let found = seals(s);
    if found.is_empty() {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (_, seal_at, end) in found {
        out.push_str(s.get(last..seal_at).unwrap_or_default());
        out.push_str("(seal)");
        last = end;
    }
    out.push_str(s.get(last..).unwrap_or_default());
    std::borrow::Cow::Owned(out)
}

/// `chunk` (what a transcript sends) with every sealed token in it that the server did not
/// issue replaced by the latest one it issued at the same position (`issued`, in order), as
/// a client sends back the cursor or `requestState` it was given.
pub(super) fn swap_issued(mut chunk: Vec<u8>, issued: &[String]) -> Vec<u8> {
    let recorded: Vec<String> = std::str::from_utf8(&chunk).map(cursors).unwrap_or_default();
    for old in recorded.iter().filter(|c| !issued.contains(c)) {
        let now = issued
            .iter()
            .rev()
            .find(|i| mask_seals(i) == mask_seals(old));
        if let Some(now) = now {
            chunk = replace_bytes(&chunk, old.as_bytes(), now.as_bytes());
        }
    }
    chunk
}

/// Every string in a JSON value, in document order.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Every cursor in a string, in order.
pub(super) fn cursors(s: &str) -> Vec<String> {
    seals(s)
        .into_iter()
        .filter_map(|(a, _, b)| s.get(a..b).map(str::to_string))
        .collect()
}

/// Every cursor in the strings of a JSON value, in document order.
pub(super) fn cursors_in(v: &Value) -> Vec<String> {
    let mut all = Vec::new();
    strings(v, &mut all);
    all.into_iter().flat_map(cursors).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_seals_blanks_only_whole_cursors() {
        let seal = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            mask_seals(&format!("x c2.3b.1.32.{seal} y")),
            "x c2.3b.1.32.(seal) y"
        );
        assert_eq!(mask_seals("c2.3b.1.32.0123"), "c2.3b.1.32.0123");
        assert_eq!(mask_seals("no cursor"), "no cursor");
        assert_eq!(
            mask_seals(&format!("\"rv1.7b22.{seal}\" and c2.1.1.1.{seal}")),
            "\"rv1.(seal)\" and c2.1.1.1.(seal)"
        );
        assert_eq!(cursors(&format!("rv1.7b22.{seal}")).len(), 1);
        assert!(is_request_state(&format!("rv1.7b22.{seal}")));
        assert!(!is_request_state(&format!("x rv1.7b22.{seal}")));
        assert!(!is_request_state("rv1.7b22"));
        assert_eq!(mask_seals("rv1.zz.0123"), "rv1.zz.0123");
    }

    #[test]
    fn swap_issued_replaces_only_tokens_the_server_did_not_issue() {
        let seal = |c: char| c.to_string().repeat(32);
        let recorded = format!("rv1.aa.{}", seal('1'));
        let issued = vec![
            format!("rv1.bb.{}", seal('2')),
            format!("rv1.cc.{}", seal('3')),
        ];
        let send = format!("{{\"requestState\":\"{recorded}\"}}");
        // The latest issued token of the same kind replaces the recorded one.
        assert_eq!(
            swap_issued(send.clone().into_bytes(), &issued),
            format!("{{\"requestState\":\"{}\"}}", issued[1]).into_bytes()
        );
        // Nothing issued yet, or the token is one the server issued: sent as written.
        assert_eq!(swap_issued(send.clone().into_bytes(), &[]), send.as_bytes());
        let own = format!("\"{}\"", issued[0]);
        assert_eq!(
            swap_issued(own.clone().into_bytes(), &issued),
            own.as_bytes()
        );
        // A cursor is not swapped for a requestState.
        let cursor = format!("c2.1.1.1.{}", seal('4'));
        assert_eq!(
            swap_issued(cursor.clone().into_bytes(), &issued),
            cursor.as_bytes()
        );
    }
}
