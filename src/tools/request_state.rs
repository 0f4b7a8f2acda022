//! The `requestState` of `request_verdicts` in 2026-07-28: the question, the digest of the
//! call it answers and an expiry, sealed with HMAC-SHA256 under the database's own secret,
//! so that the server keeps nothing between the question and the retry, and an altered,
//! foreign, misdirected or expired state is refused (like a recall cursor).

use serde::Deserialize;
use serde_json::{Value, json};

use super::request_verdicts::{NAME, Question};
use crate::cursor::{hex16, mac, same_bytes};
use crate::review::hashing::hex;

/// The state for `q`, asked by the call with `arguments`, valid until `expires_ms`. Hex, so it
/// is one opaque token.
pub fn seal(secret: &[u8], q: &Question, arguments: &Value, expires_ms: i64) -> String {
    let body = json!({
        "v": 1,
        "q": q,
        "call": call_digest(arguments),
        "exp": expires_ms,
    })
    .to_string();
    let hex = hex(body.as_bytes());
    let seal = seal_of(secret, &hex);
    format!("rv1.{hex}.{seal}")
}

/// Why a `requestState` is refused.
#[derive(Debug, Clone, PartialEq)]
pub enum Unsealed {
    Ok(Question),
    /// Altered, truncated, issued by another database, or for another call.
    Invalid,
    /// Older than the wait bound: the question it held, so that an answer to it is not lost
    /// unsaid.
    Expired(Box<Question>),
}

/// Reads a `requestState` back for this call at `now_ms`.
pub fn unseal(secret: &[u8], state: &str, arguments: &Value, now_ms: i64) -> Unsealed {
    let Some(rest) = state.strip_prefix("rv1.") else {
        return Unsealed::Invalid;
    };
    let Some((hex, seal)) = rest.split_once('.') else {
        return Unsealed::Invalid;
    };
    if hex.len() > 16_384 || !same_bytes(&seal_of(secret, hex), seal) {
        return Unsealed::Invalid;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect();
    #[derive(Deserialize)]
    struct Body {
        v: u32,
        q: Question,
        call: String,
        exp: i64,
    }
    let Some(body) = bytes.and_then(|b| serde_json::from_slice::<Body>(&b).ok()) else {
        return Unsealed::Invalid;
    };
    if body.v != 1 || body.call != call_digest(arguments) {
        return Unsealed::Invalid;
    }
    if now_ms > body.exp {
        return Unsealed::Expired(Box::new(body.q));
    }
    Unsealed::Ok(body.q)
}

fn seal_of(secret: &[u8], hex: &str) -> String {
    mac(secret, &format!("review-mcp requestState v1|{hex}"))
}

/// The tool and its arguments, as a retry must repeat them.
fn call_digest(arguments: &Value) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::new()
        .chain_update(NAME.as_bytes())
        .chain_update(b"|")
        .chain_update(arguments.to_string().as_bytes())
        .finalize();
    hex16(&d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question() -> Question {
        Question {
            decision: "dec_1".into(),
            digest: "ab".into(),
            items: vec![0, 2],
            shown: vec![(0, "cd".into()), (2, "ef".into())],
            remaining: 1,
            form: json!({"message": "not sealed"}),
        }
    }

    /// A state sealed before each item's judged digest was kept (no `shown`) still opens,
    /// with none: the answer is then taken only on the whole basis as shown.
    #[test]
    fn a_state_sealed_before_shown_opens_without_it() {
        let secret = b"0123456789abcdef0123456789abcdef";
        let args = json!({"subject": "s"});
        let q = Question {
            shown: Vec::new(),
            ..question()
        };
        // What an earlier build sealed: the same body without the member.
        let state = seal(secret, &q, &args, 2_000);
        assert!(
            !state.contains(&hex(b"shown")),
            "no shown member when empty"
        );
        let opened = unseal(secret, &state, &args, 1_000);
        assert_eq!(
            opened,
            Unsealed::Ok(Question {
                form: Value::Null,
                ..q
            })
        );
    }

    #[test]
    fn a_state_opens_only_for_its_call_its_database_and_its_time() {
        let secret = [7u8; 32];
        let args = json!({"subject": "bore", "artifact": {"revision": "r", "format": "step"}});
        let state = seal(&secret, &question(), &args, 1_000);
        let opened = unseal(&secret, &state, &args, 1_000);
        let Unsealed::Ok(q) = opened else {
            panic!("{opened:?}")
        };
        assert_eq!(
            (q.decision.as_str(), q.items.as_slice()),
            ("dec_1", &[0, 2][..])
        );
        assert_eq!(
            q.shown,
            question().shown,
            "each item as shown is sealed with it"
        );
        assert_eq!(
            q.form,
            Value::Null,
            "the form is rebuilt, never trusted from the state"
        );
        // The same arguments in another key order are the same call.
        let reordered: Value = serde_json::from_str(
            r#"{"artifact":{"format":"step","revision":"r"},"subject":"bore"}"#,
        )
        .unwrap();
        assert!(matches!(
            unseal(&secret, &state, &reordered, 0),
            Unsealed::Ok(_)
        ));
        assert!(matches!(
            unseal(&secret, &state, &args, 1_001),
            Unsealed::Expired(_)
        ));
        assert_eq!(
            unseal(&secret, &state, &json!({"subject": "other"}), 0),
            Unsealed::Invalid
        );
        assert_eq!(unseal(&[8u8; 32], &state, &args, 0), Unsealed::Invalid);
        assert_eq!(
            unseal(&secret, &state[..state.len() - 1], &args, 0),
            Unsealed::Invalid
        );
        // A re-sealed body with a forged expiry fails the seal.
        let (body, _) = state.rsplit_once('.').unwrap();
        let forged = format!("{body}.{}", "0".repeat(32));
        assert_eq!(unseal(&secret, &forged, &args, 0), Unsealed::Invalid);
    }
}
