//! Telling clients what changed: who is interested in what, and what changed since the last
//! look, whoever wrote (this process or another one on the same file).
//!
//! Every write moves the store's change counter (triggers keep a journal of the revisions
//! each write touched, see `store/changes.rs`). After a request that may have written, and
//! when another process committed (`PRAGMA data_version`, polled by the server while someone
//! can be told), [`Watch::look`] compares the counter with the last value it saw and turns
//! the difference into at most one change per interest and URI: a burst of writes, an
//! import of ten thousand rows, is one `list_changed` and one `updated` per resource.
//!
//! What an era makes of a change (a legacy notification, or one tagged with a listen stream's
//! id) is its adapter's business.

use std::collections::{BTreeSet, HashMap};

use sha2::{Digest, Sha256};

use crate::resources::{self, Watched};
use crate::store::{Store, StoreError};

/// The most URIs one session or stream may watch: each costs a lookup per change.
pub const MAX_WATCHED_URIS: usize = 1000;

/// What one audience (the legacy session, or one listen stream) wants to be told.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Interest {
    /// `notifications/resources/list_changed`.
    pub list: bool,
    /// `notifications/resources/updated` for these URIs.
    pub uris: BTreeSet<String>,
}

impl Interest {
    /// Whether a URI naming the same resource as `uri` (in either form, see
    /// [`resources::same_resource`]) is watched.
    pub fn watches(&self, uri: &str) -> bool {
        self.uris.iter().any(|u| resources::same_resource(u, uri))
    }

    /// Watches `uri`, in place of any other form of it already watched: one subscription
    /// per resource, and its `updated` names the URI of the latest subscribe, which is
    /// what the client matches on.
    pub fn subscribe(&mut self, uri: String) {
        self.unsubscribe(&uri);
        self.uris.insert(uri);
    }

    /// Stops watching the resource `uri` names, in whichever form it was subscribed.
    pub fn unsubscribe(&mut self, uri: &str) {
        self.uris.retain(|u| !resources::same_resource(u, uri));
    }
}

/// One thing to tell one audience.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    ListChanged,
    Updated(String),
}

/// The last state looked at.
#[derive(Debug, Default)]
pub struct Watch {
    /// The change counter at the last look; `None` while nobody is interested.
    seen: Option<i64>,
    /// A digest of each watched record or decision as last seen (`None`: absent).
    items: HashMap<String, Option<[u8; 32]>>,
    /// `PRAGMA data_version` at the last poll.
    data_version: Option<i64>,
    /// The file's stat at the last poll: while it is the same, nobody committed.
    file_stamp: Option<(std::time::SystemTime, std::time::SystemTime, u64)>,
    /// Polls since the last full look at `data_version` (see `foreign_commit`).
    polls_since_pragma: u32,
    /// This connection's change count at the last look.
    own_changes: u64,
    /// `seen` is older than this process's last write (see [`Watch::after_own_write`]).
    seen_is_stale: bool,
}

/// A poll asks SQLite at least this often even when the file's stat is unchanged: a stat
/// cannot tell two commits in one tick of the file system's clock apart.
const PRAGMA_EVERY: u32 = 10;

impl Watch {
    /// Starts (or keeps) looking: from now on, changes count. Called when an interest is
    /// created, so that what was written before it is not reported.
    pub fn arm(&mut self, store: &mut Store) -> Result<(), StoreError> {
        if self.seen.is_none() {
            self.seen = Some(store.change_version()?);
            self.own_changes = store.own_changes();
        }
        Ok(())
    }

    /// What this process's own write changed, when no audience watches a resource by its URI
    /// (a legacy session that subscribed to nothing, a stream of list changes only): the
    /// resource list, when the write changed rows and committed. One query, the change counter after the
    /// write (and once per process the `data_version` the polls compare with), so a write
    /// costs such an audience one notification and is not reported again.
    pub fn after_own_write(
        &mut self,
        store: &mut Store,
        interests: &[&Interest],
    ) -> Option<Vec<Vec<Change>>> {
        if self.seen.is_none() || interests.iter().any(|i| !i.uris.is_empty()) {
            return None;
        }
        self.own_changes = store.own_changes();
        // The counter after this write (one small query): a later commit by another process
        // that changes no row (its checkpoint) is then not taken for a change of the review.
        match store.change_version() {
            // The counter did not move: the write rolled back (an answer refused before its
            // commit, a commit that failed), though its statements had changed rows.
            Ok(now) if self.seen == Some(now) && !self.seen_is_stale => {
                return Some(interests.iter().map(|_| Vec::new()).collect());
            }
            Ok(now) => self.seen = Some(now),
            Err(_) => self.seen_is_stale = true,
        }
        if self.data_version.is_none() {
            self.data_version = store.data_version().ok().flatten();
        }
        Some(
            interests
                .iter()
                .map(|i| {
                    if i.list {
                        vec![Change::ListChanged]
                    } else {
                        Vec::new()
                    }
                })
                .collect(),
        )
    }

    /// Nobody is interested any more: forget the state, so that writes made meanwhile are
    /// not reported to the next audience.
    pub fn disarm(&mut self) {
        *self = Watch::default();
    }

    /// Starts watching `uri` (already checked to be a resource): remembers how a record or
    /// decision looks now.
    pub fn track(&mut self, store: &mut Store, uri: &str) -> Result<(), StoreError> {
        self.arm(store)?;
        // An item another audience already watches keeps the state it was last seen in, so
        // that a change not yet looked at is still told to that audience.
        if self.items.contains_key(uri) {
            return Ok(());
        }
        if let Some(item) = resources::watched(uri).filter(|w| !matches!(w, Watched::Revision(_))) {
            let digest = item_digest(store, &item)?;
            self.items.insert(uri.to_string(), digest);
        }
        Ok(())
    }

    /// Forgets the items no interest watches any more (after an unsubscribe, a cancelled
    /// stream, a new session), so that the state kept is bounded by the live interests.
    pub fn prune(&mut self, interests: &[&Interest]) {
        if self.items.is_empty() {
            return;
        }
        self.items
            .retain(|uri, _| interests.iter().any(|i| i.uris.contains(uri)));
    }

    /// True when another connection committed to the file since the last poll: one cheap
    /// pragma, no query. Before this process has opened the file (another one may create it)
    /// it asks the change counter instead, which opens the file once it exists.
    pub fn foreign_commit(&mut self, store: &mut Store) -> Result<bool, StoreError> {
        let stamp = store.file_stamp();
        self.polls_since_pragma += 1;
        if stamp.is_some() && stamp == self.file_stamp && self.polls_since_pragma < PRAGMA_EVERY {
            return Ok(false);
        }
        // The stat is remembered only once the pragma answered (another process's lock
        // makes it fail at once): a failed poll is tried again at the next one.
        let Some(now) = store.data_version()? else {
            self.file_stamp = stamp;
            self.polls_since_pragma = 0;
            return Ok(self
                .seen
                .is_some_and(|seen| store.change_version().is_ok_and(|v| v != seen)));
        };
        let moved = match self.data_version {
            // data_version also moves when another process only checkpoints or restarts the
            // log (no row changed): the change counter says whether the review changed.
            Some(before) => {
                before != now
                    && self
                        .seen
                        .is_none_or(|seen| store.change_version().map_or(true, |v| v != seen))
            }
            // The first poll of an open file: what the counter says since the last look,
            // unless that counter is older than this process's own last write.
            None => {
                !self.seen_is_stale
                    && self
                        .seen
                        .is_some_and(|seen| store.change_version().is_ok_and(|v| v != seen))
            }
        };
        self.file_stamp = stamp;
        self.polls_since_pragma = 0;
        self.data_version = Some(now);
        Ok(moved)
    }

    /// A look that failed after a poll saw a commit: the next poll looks again.
    pub fn retry(&mut self) {
        self.file_stamp = None;
        self.polls_since_pragma = PRAGMA_EVERY;
        self.data_version = None;
    }

    /// Whether this process wrote since the last look: a request that did not needs no look
    /// (writes by others are found by the poll). No query.
    pub fn wrote(&self, store: &Store) -> bool {
        store.own_changes() != self.own_changes
    }

    /// What changed since the last look, for each interest in order. Nothing when the change
    /// counter has not moved.
    pub fn look(
        &mut self,
        store: &mut Store,
        interests: &[&Interest],
    ) -> Result<Vec<Vec<Change>>, StoreError> {
        let none = || interests.iter().map(|_| Vec::new()).collect();
        self.own_changes = store.own_changes();
        let watched: BTreeSet<&str> = interests
            .iter()
            .flat_map(|i| i.uris.iter().map(String::as_str))
            .collect();
        let revisions: Vec<(&str, String)> = watched
            .iter()
            .filter_map(|uri| match resources::watched(uri) {
                Some(Watched::Revision(rev)) => Some((*uri, rev)),
                _ => None,
            })
            .collect();
        let revs: Vec<&str> = revisions.iter().map(|(_, r)| r.as_str()).collect();
        let (now, changed_revs) = store.changes_since(self.seen, &revs)?;
        let Some(seen) = self.seen else {
            // `arm` could not read the counter (another process held the lock): start here.
            self.seen = Some(now);
            self.seen_is_stale = false;
            return Ok(none());
        };
        if now == seen {
            self.seen_is_stale = false;
            return Ok(none());
        }
        let mut updated: BTreeSet<&str> = revisions
            .iter()
            .filter(|(_, rev)| changed_revs.contains(rev))
            .map(|(uri, _)| *uri)
            .collect();
        // Every read first, then the new state: a failed read leaves the last one standing,
        // so the next look tells what this one could not.
        let mut digests = Vec::new();
        for uri in &watched {
            let Some(item) = resources::watched(uri).filter(|w| !matches!(w, Watched::Revision(_)))
            else {
                continue;
            };
            digests.push((*uri, item_digest(store, &item)?));
        }
        for (uri, digest) in digests {
            if self.items.insert(uri.to_string(), digest) != Some(digest) {
                updated.insert(uri);
            }
        }
        self.seen = Some(now);
        self.seen_is_stale = false;
        Ok(interests
            .iter()
            .map(|interest| {
                let mut changes = Vec::new();
                if interest.list {
                    changes.push(Change::ListChanged);
                }
                changes.extend(
                    interest
                        .uris
                        .iter()
                        .filter(|u| updated.contains(u.as_str()))
                        .map(|u| Change::Updated(u.clone())),
                );
                changes
            })
            .collect())
    }
}

/// A digest of a record or decision as its resource shows it; `None` when it does not exist.
/// Like every look, it does not wait for another process's lock.
fn item_digest(store: &mut Store, item: &Watched) -> Result<Option<[u8; 32]>, StoreError> {
    store.without_waiting(|store| item_digest_now(store, item))
}

fn item_digest_now(store: &mut Store, item: &Watched) -> Result<Option<[u8; 32]>, StoreError> {
    let json = match item {
        Watched::Record(id) => store
            .get_record(id)?
            .map(|r| serde_json::to_vec(&r.to_wire(None))),
        Watched::Decision(id) => store
            .get_decision(id)?
            .map(|d| serde_json::to_vec(&d.to_wire(None))),
        // Its events only grow: how many there are and the newest say whether it changed.
        Watched::History(id) => Some(serde_json::to_vec(&store.history_mark(id)?)),
        Watched::Revision(_) => None,
    };
    Ok(json
        .transpose()
        .map_err(|e| StoreError::Invalid(format!("could not encode a watched item: {e}")))?
        .map(|bytes| Sha256::digest(bytes).into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REV: &str = "sha256:5555555555555555555555555555555555555555555555555555555555555555";

    fn note(store: &mut Store) {
        store
            .remember(&crate::store::fixtures::note_at(REV, None))
            .unwrap();
    }

    /// Regression (issue 14): after a write of its own that it reported without a look, the
    /// watch re-read the counter when a client then subscribed, and so swallowed a commit
    /// another process had made meanwhile.
    #[test]
    fn another_process_commit_after_an_own_write_is_reported_even_if_a_uri_is_watched_meanwhile() {
        let dir = std::env::temp_dir().join(format!("review-mcp-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("review.db");
        let mut ours = Store::open(&db).unwrap();
        let mut theirs = Store::open(&db).unwrap();
        let mut watch = Watch::default();
        let list_only = Interest {
            list: true,
            uris: BTreeSet::new(),
        };
        watch.arm(&mut ours).unwrap();
        note(&mut ours);
        assert!(watch.wrote(&ours));
        let told = watch.after_own_write(&mut ours, &[&list_only]).unwrap();
        assert_eq!(told, vec![vec![Change::ListChanged]]);
        note(&mut theirs);
        let uri = format!("review://revisions/{REV}");
        watch.track(&mut ours, &uri).unwrap();
        let watching = Interest {
            list: true,
            uris: BTreeSet::from([uri.clone()]),
        };
        assert!(watch.foreign_commit(&mut ours).unwrap());
        let told = watch.look(&mut ours, &[&watching]).unwrap();
        assert_eq!(told, vec![vec![Change::ListChanged, Change::Updated(uri)]]);
        drop((ours, theirs));
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Regression (docstruth): a write this process rolled back (an answer refused before its
    /// commit, a commit that failed on a damaged or full file) had still changed rows of the
    /// connection, so the session was told `list_changed` of a list nothing had changed.
    #[test]
    fn an_own_write_rolled_back_is_not_announced() {
        let mut store = Store::open_in_memory().unwrap();
        let mut watch = Watch::default();
        let list_only = Interest {
            list: true,
            uris: BTreeSet::new(),
        };
        watch.arm(&mut store).unwrap();
        let refused: Result<(), StoreError> = store.remember_answered(
            &crate::store::fixtures::note_at(REV, None),
            None,
            |_, _, _, _| Err(StoreError::Invalid("refused before the commit".into())),
        );
        assert!(refused.is_err());
        let told = watch
            .after_own_write(&mut store, &[&list_only])
            .unwrap_or_default();
        assert_eq!(told, vec![Vec::<Change>::new()], "nothing was committed");
        note(&mut store);
        let told = watch.after_own_write(&mut store, &[&list_only]);
        assert_eq!(told, Some(vec![vec![Change::ListChanged]]));
    }
}

#[cfg(test)]
mod review_tests {
    use super::*;

    /// Regression (issue 14, review): a second audience watching a record reset the state
    /// the first one was last told, so a change not yet looked at was never told to it; and
    /// the state of items nobody watches any more was kept for ever.
    #[test]
    fn a_second_watcher_of_an_item_keeps_the_first_ones_state_and_unwatched_items_go() {
        let mut store = Store::open_in_memory().unwrap();
        let mut watch = Watch::default();
        let uri = "review://records/rec_1".to_string();
        watch.track(&mut store, &uri).unwrap();
        let before = watch.items.get(&uri).copied();
        watch.items.insert(uri.clone(), Some([7; 32]));
        watch.track(&mut store, &uri).unwrap();
        assert_eq!(watch.items.get(&uri).copied(), Some(Some([7; 32])));
        assert_ne!(before, Some(Some([7; 32])));
        for i in 0..100 {
            watch
                .track(&mut store, &format!("review://records/rec_x{i}"))
                .unwrap();
        }
        let live = Interest {
            list: false,
            uris: BTreeSet::from([uri.clone()]),
        };
        watch.prune(&[&live]);
        assert_eq!(watch.items.len(), 1);
    }
}
