//! The synthetic review the benchmark writes and queries: deterministic, so two runs measure
//! the same work.
//!
//! Shape: record `i` belongs to revision `i / 100` of part `i / 500` (five revisions per part,
//! each artifact carries its file path). Of every ten records, five are named features, four
//! anonymous notes and one a decision with a 4-item basis. Each note has 8 words from a
//! 5,000-word vocabulary (a one-word text query matches about 150 records at 100,000), two of
//! 100 tags (a one-tag query matches about 1,800 at 100,000), three of 200 faces; one record in
//! ten carries the tag `sweep` (the 10,000 matches that paging walks through at 100,000).

use serde_json::{Value, json};

const VOCABULARY: usize = 5000;
const TAGS: u64 = 100;
const FACES: u64 = 200;
const STATES: [&str; 5] = [
    "satisfied",
    "violated",
    "unresolved",
    "conflicting",
    "not-applicable",
];
const SOURCES: [&str; 8] = [
    "model-pmi",
    "drawing",
    "shop-spec",
    "supplier-cert",
    "standard",
    "prior-decision",
    "engineer-stated",
    "assistant-proposed",
];
const DISPOSITIONS: [&str; 4] = ["hold", "accept", "rework", "ask-supplier"];

/// A stateless pseudo-random mix (splitmix64): the same `x` always gives the same number.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub struct Corpus {
    words: Vec<String>,
}

impl Corpus {
    pub fn new() -> Corpus {
        const CONSONANTS: &[u8] = b"bdfgklmnprstvz";
        const VOWELS: &[u8] = b"aeiou";
        let mut words = Vec::with_capacity(VOCABULARY);
        let mut seen = std::collections::HashSet::new();
        let mut j = 0u64;
        while words.len() < VOCABULARY {
            let mut h = mix(j ^ 0x5eed);
            j += 1;
            let mut w = String::new();
            for _ in 0..3 {
                let c = CONSONANTS[(h % CONSONANTS.len() as u64) as usize];
                h /= CONSONANTS.len() as u64;
                let v = VOWELS[(h % VOWELS.len() as u64) as usize];
                h /= VOWELS.len() as u64;
                w.push(char::from(c));
                w.push(char::from(v));
            }
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        Corpus { words }
    }

    fn word(&self, h: u64) -> &str {
        self.words
            .get((h % self.words.len() as u64) as usize)
            .map_or("x", String::as_str)
    }

    fn text(&self, seed: u64, n: usize) -> String {
        (0..n as u64)
            .map(|k| self.word(mix(seed.wrapping_mul(31).wrapping_add(k))))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn faces(seed: u64, n: u64) -> Vec<String> {
        (0..n)
            .map(|k| format!("face:{}", mix(seed ^ (k << 40)) % FACES))
            .collect()
    }

    fn tags(seed: u64) -> Vec<String> {
        let a = mix(seed ^ 0x7a65) % TAGS;
        let b = (a + 1 + mix(seed ^ 0x7a66) % (TAGS - 1)) % TAGS;
        vec![format!("t{a}"), format!("t{b}")]
    }

    fn basis(&self, seed: u64, n: u64) -> Vec<Value> {
        (0..n)
            .map(|k| {
                let h = mix(seed.wrapping_mul(1000).wrapping_add(k));
                let state = STATES[(h % 5) as usize];
                let mut item = json!({
                    "requirement": self.text(h, 6),
                    "source": SOURCES[((h >> 8) % 8) as usize],
                    "state": state,
                    "evidence": self.text(h ^ 1, 5),
                    "faces": Self::faces(h, 1),
                });
                if matches!(state, "unresolved" | "conflicting") {
                    item["question"] = json!(format!("{}?", self.text(h ^ 2, 6)));
                }
                item
            })
            .collect()
    }

    /// The params of seeding call `i` (a `tools/call` params object, as JSON text).
    pub fn seed_call(&self, i: usize) -> String {
        let i = i as u64;
        let artifact = artifact(i / 100);
        let (tool, args) = match i % 10 {
            0..=4 => {
                let mut tags = Self::tags(i);
                if i % 10 == 3 {
                    tags.push("sweep".into());
                }
                (
                    "remember",
                    json!({
                        "artifact": artifact,
                        "entity_ids": Self::faces(i, 3),
                        "name": format!("feature-{i}"),
                        "note": self.text(i, 8),
                        "tags": tags,
                    }),
                )
            }
            5..=8 => (
                "remember",
                json!({
                    "artifact": artifact,
                    "entity_ids": Self::faces(i, 3),
                    "note": self.text(i, 8),
                    "tags": Self::tags(i),
                }),
            ),
            _ => (
                "remember_decision",
                json!({
                    "artifact": artifact,
                    // A review stated again at each revision: the ten subjects of a part
                    // (i / 500: five revisions of 100 calls) recur at its five revisions, so
                    // four of every five decisions are older ones of their subject, as in a
                    // review kept over time (with unique subjects, `current_only`'s test
                    // and the count of older decisions never meet an older one).
                    "subject": format!("subject-{}-{}", i / 500, (i % 100) / 10),
                    "disposition": DISPOSITIONS[(mix(i) % 4) as usize],
                    "summary": self.text(i ^ 3, 8),
                    "basis": self.basis(i, 4),
                }),
            ),
        };
        json!({"name": tool, "arguments": args}).to_string()
    }

    /// A revision that exists at this size (the benchmark's own writes land on the first ten
    /// when the database starts empty).
    fn existing_revision(size: usize, h: u64) -> u64 {
        h % ((size as u64) / 100).max(10)
    }

    /// Timed call `k` of the named-feature writes: a new name every time.
    pub fn remember_named(&self, size: usize, k: usize) -> (&'static str, Value) {
        let h = mix(k as u64 ^ 0xa11ce);
        let args = json!({
            "artifact": artifact(Self::existing_revision(size, h)),
            "entity_ids": Self::faces(h, 3),
            "name": format!("bench-feature-{k}"),
            "note": self.text(h, 8),
            "tags": Self::tags(h),
        });
        ("remember", args)
    }

    pub fn remember_anon(&self, size: usize, k: usize) -> (&'static str, Value) {
        let h = mix(k as u64 ^ 0xb0b);
        let args = json!({
            "artifact": artifact(Self::existing_revision(size, h)),
            "entity_ids": Self::faces(h, 3),
            "note": self.text(h, 8),
            "tags": Self::tags(h),
        });
        ("remember", args)
    }

    pub fn decision(&self, size: usize, k: usize) -> (&'static str, Value) {
        let h = mix(k as u64 ^ 0xdec1);
        let args = json!({
            "artifact": artifact(Self::existing_revision(size, h)),
            "subject": format!("bench-subject-{k}"),
            "disposition": DISPOSITIONS[(h % 4) as usize],
            "summary": self.text(h ^ 3, 8),
            "basis": self.basis(h, 10),
        });
        ("remember_decision", args)
    }

    pub fn recall_entity(&self, size: usize, k: usize) -> (&'static str, Value) {
        let h = mix(k as u64 ^ 0xe7);
        let args = json!({
            "artifact": artifact(Self::existing_revision(size, h)),
            "entity_id": format!("face:{}", mix(h) % FACES),
        });
        ("recall", args)
    }

    pub fn recall_text(&self, k: usize) -> (&'static str, Value) {
        let h = mix(k as u64 ^ 0x7e7);
        ("recall", json!({"text": self.word(h)}))
    }

    pub fn recall_tags(&self, k: usize) -> (&'static str, Value) {
        let h = mix(k as u64 ^ 0x7a9);
        ("recall", json!({"tags": [format!("t{}", h % TAGS)]}))
    }

    pub fn recall_decisions(&self, k: usize) -> (&'static str, Value) {
        let state = STATES.get(k % STATES.len()).copied().unwrap_or("violated");
        ("recall_decisions", json!({"state": state}))
    }
}

/// Revision `r` of part `r / 5`: a `sha256:` form (not a real digest; the server never reads
/// the file) and the part's path.
fn artifact(r: u64) -> Value {
    let hex: String = (0..4)
        .map(|k| format!("{:016x}", mix(r.wrapping_mul(4).wrapping_add(k))))
        .collect();
    json!({
        "revision": format!("sha256:{hex}"),
        "format": "step",
        "uri": format!("/work/parts/part-{}.step", r / 5),
    })
}
