//! An answer says each revision whole once, then by its short form (`sha256:`, 12 hex digits
//! and `…`, [`short_revision`]), unless another revision of the answer shares that short
//! form: every record or decision a carry brought names the revision it came from, and a page
//! that said the same 71 bytes again and again spent a fifth of itself on them. `recall`,
//! `recall_decisions`, `review_history`, `carry_forward` and `show_review`'s summary all
//! name revisions through [`WholeOnce`].

use serde_json::Value;

use crate::review::carry::short_revision;

/// The revisions one answer has said whole, and the short forms it wrote. Whole the first
/// time (a page's `artifacts` table comes first: what it says, [`WholeOnce::says`], is said),
/// short after, and whole always when another revision the answer said, wrote or is known to
/// name ([`WholeOnce::among`]) shares the short form (only imported items can make one).
#[derive(Debug, Default, Clone)]
pub struct WholeOnce {
    /// The revisions said whole so far.
    said: Vec<String>,
    /// The revisions the answer names, known before it is written: a short form none of
    /// them shares is one no later part of the answer can make name two.
    among: Vec<String>,
    /// Each short form written, and the revision it stands for.
    written: Vec<(String, String)>,
}

impl WholeOnce {
    /// For an answer that knows every revision it names before it names them.
    pub fn among(revisions: impl IntoIterator<Item = String>) -> WholeOnce {
        WholeOnce {
            among: revisions.into_iter().collect(),
            ..WholeOnce::default()
        }
    }

    /// Keeps the short forms written, to name the items again by a table that came to say
    /// more revisions after them; every revision the answer said whole is one a short form
    /// written then must not share (an item after the one shortened may say it).
    pub fn written_only(self) -> WholeOnce {
        let mut among = self.among;
        among.extend(self.said);
        WholeOnce {
            written: self.written,
            among,
            ..WholeOnce::default()
        }
    }

    /// The answer says `rev` whole (a table entry, a `supersedes` list).
    pub fn says(&mut self, rev: &str) {
        if !self.said.iter().any(|r| r == rev) {
            self.said.push(rev.to_string());
        }
    }

    /// Whether saying `rev` whole would make a short form the answer wrote name two
    /// revisions.
    pub fn twinned_by(&self, rev: &str) -> bool {
        let short = short_revision(rev);
        self.written.iter().any(|(s, r)| *s == short && r != rev)
    }

    /// Takes in the revisions a new table entry says whole; false, taking in none, when one
    /// would make a short form the answer wrote name two revisions (the table comes before
    /// the items): the page ends before it.
    pub fn said_in(&mut self, entry: &Value) -> bool {
        let mut revs = Vec::new();
        revisions_in(entry, &mut revs);
        if revs.iter().any(|r| self.twinned_by(r)) {
            return false;
        }
        revs.iter().for_each(|r| self.says(r));
        true
    }

    /// Names the revisions at `pointers` of `item` as [`WholeOnce::name_at`] does; false,
    /// naming none, when one would be said whole beside a short form the answer wrote for
    /// another revision (an item after it: only imported items can): the page ends before
    /// `item`, as before a table entry that would.
    pub fn names_at(&mut self, item: &mut Value, pointers: &[&str]) -> bool {
        let revs: Vec<String> = pointers
            .iter()
            .filter_map(|p| item.pointer(p).and_then(Value::as_str))
            .map(str::to_string)
            .collect();
        if revs.iter().any(|r| self.twinned_by(r)) {
            return false;
        }
        // The item's own revisions are known before it is named: one of them is not
        // shortened beside its twin in the same item.
        let known = self.among.len();
        self.among.extend(revs);
        for p in pointers {
            self.name_at(item, p);
        }
        self.among.truncate(known);
        true
    }

    /// Names the revision at `pointer` of `item` whole the first time, short after.
    pub fn name_at(&mut self, item: &mut Value, pointer: &str) {
        if let Some(slot) = item.pointer_mut(pointer) {
            self.name(slot);
        }
    }

    fn name(&mut self, slot: &mut Value) {
        let Some(rev) = slot.as_str().map(str::to_string) else {
            return;
        };
        if self.written.iter().any(|(s, _)| *s == rev) {
            return;
        }
        if !self.said.contains(&rev) {
            self.said.push(rev);
            return;
        }
        let short = short_revision(&rev);
        let twins = self
            .said
            .iter()
            .chain(self.written.iter().map(|(_, r)| r))
            .chain(&self.among)
            .any(|r| *r != rev && short_revision(r) == short);
        if !twins && short != rev {
            *slot = Value::String(short.clone());
            if !self.written.iter().any(|(s, _)| *s == short) {
                self.written.push((short, rev));
            }
        }
    }
}

/// Every string of `v` that is a revision (`sha256:` and 64 hex digits).
fn revisions_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) if s.len() == 71 && s.starts_with("sha256:") => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| revisions_in(x, out)),
        Value::Object(o) => o.values().for_each(|x| revisions_in(x, out)),
        _ => {}
    }
}
