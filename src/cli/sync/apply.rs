//! Acting on a sync's plan inside its transaction: deletions, writes, imports and merges of
//! each item, and the plan itself.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::anyhow;

use review_mcp::store::SyncTx;
use review_mcp::sync::merge::{self, Side};
use review_mcp::sync::{Action, Hash, Item, ItemKind, hash};
use review_mcp::text::{escape_controls, escape_controls_but_newlines};

use super::folder::*;
use super::*;

/// The sync at work: the transaction, the folder, and what it did.
pub(super) struct Apply<'a, 't> {
    pub(super) tx: &'a SyncTx<'t>,
    pub(super) folder: &'a Path,
    pub(super) counts: &'a mut Counts,
    /// Items already settled by a key conflict with another id.
    pub(super) settled: HashSet<(ItemKind, String)>,
    /// Files written before the lock was taken (counted when their bases are recorded).
    pub(super) written_early: HashSet<(ItemKind, String)>,
    pub(super) dirs_touched: bool,
    /// Files to write, by path, written in parallel batches by [`Apply::flush`].
    pub(super) pending: HashMap<PathBuf, String>,
}

/// How many files are written (and fsynced) at once: the file system commits concurrent
/// fsyncs together, so 10,000 new files take seconds instead of one flush each.
pub(super) const WRITE_THREADS: usize = 16;

/// How many files wait before a batch is written.
pub(super) const WRITE_BATCH: usize = 512;

impl Apply<'_, '_> {
    pub(super) fn act(
        &mut self,
        kind: ItemKind,
        id: &str,
        e: &Entry,
        action: Action,
    ) -> anyhow::Result<()> {
        let k = slot(kind);
        let db_item = e.db.as_ref().map(|(_, i)| i);
        let file_item = e.file.as_ref().and_then(|(_, i)| i.as_ref());
        match action {
            Action::InSync => match &e.db {
                Some((h, item)) if e.base != Some(*h) => {
                    self.set_base(item)?;
                    if self.written_early.contains(&(kind, id.to_string())) {
                        self.counts.written[k] += 1;
                    }
                }
                Some(_) => {}
                None if e.base.is_some() => self.drop_base(kind, id)?,
                None => {}
            },
            Action::ToFolder | Action::KeepDatabase => {
                let item = db_item.ok_or_else(|| anyhow!("{id}: no database version"))?;
                // The rule of the tools against the folder's version (the base's text).
                let r = self.outranked(kind, id, None, item, "database")?;
                if r != *item {
                    self.import(&r, e.file.as_ref().map(|(h, _)| *h), db_item)?;
                    self.counts.imported[k] += 1;
                } else {
                    self.write_file(item)?;
                    self.set_base(item)?;
                }
                self.counts.written[k] += 1;
                if action == Action::KeepDatabase {
                    self.counts.conflicts.push(format!(
                        "{} {id} was deleted in the folder but changed in the database: kept, \
                         and written back to the folder",
                        kind.as_str()
                    ));
                }
            }
            Action::ToDatabase | Action::KeepFolder => {
                let item = file_item.ok_or_else(|| anyhow!("{id}: no folder version"))?;
                // The rule of the tools against the database's version (or the base's).
                let r = self.outranked(kind, id, db_item, item, "folder")?;
                if r != *item {
                    self.counts.written[k] += 1;
                }
                self.import(&r, e.file.as_ref().map(|(h, _)| *h), db_item)?;
                self.counts.imported[k] += 1;
                if action == Action::KeepFolder {
                    self.counts.conflicts.push(format!(
                        "{} {id} was deleted in the database but changed in the folder: kept, \
                         and imported back",
                        kind.as_str()
                    ));
                }
            }
            Action::DeleteFile => {
                self.remove_file(&file_of(self.folder, kind, id))?;
                self.drop_base(kind, id)?;
                self.counts.deleted_files[k] += 1;
            }
            Action::DeleteItem => {
                self.delete_item(kind, id)?;
                self.drop_base(kind, id)?;
                self.counts.deleted_items[k] += 1;
            }
            Action::Resolve => {
                let (Some(db), Some(file)) = (db_item, file_item) else {
                    return Err(anyhow!("{id}: a conflict needs both versions"));
                };
                let base = self.base_item(kind, id)?;
                let resolved = merge::resolve(
                    base.as_ref(),
                    Side {
                        item: db,
                        name: "database",
                    },
                    Side {
                        item: file,
                        name: "folder",
                    },
                )
                .map_err(|e| anyhow!("{e}"))?;
                if let Some(c) = resolved.conflict {
                    self.counts.conflicts.push(c);
                }
                let text = resolved.item.text();
                if text != db.text() {
                    self.import(&resolved.item, e.file.as_ref().map(|(h, _)| *h), db_item)?;
                    self.counts.imported[k] += 1;
                } else {
                    self.write_file(db)?;
                    self.set_base(db)?;
                }
                if text != file.text() {
                    self.counts.written[k] += 1;
                }
            }
        }
        Ok(())
    }

    /// `changed`, the version of the side that changed alone, as it may replace `before` (the
    /// other side's version; the base's when `None`) under the outranking rule of the tools
    /// (`merge::one_sided`): an engineer's verdict is never replaced by the assistant's. A
    /// verdict so kept is a conflict, reported.
    pub(super) fn outranked(
        &mut self,
        kind: ItemKind,
        id: &str,
        before: Option<&Item>,
        changed: &Item,
        name: &str,
    ) -> anyhow::Result<Item> {
        if kind != ItemKind::Decision {
            return Ok(changed.clone());
        }
        let base;
        let before = match before {
            Some(b) => Some(b),
            None => {
                base = self.base_item(kind, id)?;
                base.as_ref()
            }
        };
        let r = merge::one_sided(
            before,
            Side {
                item: changed,
                name,
            },
        );
        if let Some(c) = r.conflict {
            self.counts.conflicts.push(c);
        }
        Ok(r.item)
    }

    /// Reports the engineer's verdicts `after` takes from the folder: those none of `known`
    /// (what the database held) holds.
    pub(super) fn arrived(&mut self, known: &[&Item], after: &Item) {
        self.counts
            .arrived
            .extend(merge::arrived_verdicts(known, after));
    }

    pub(super) fn base_item(&self, kind: ItemKind, id: &str) -> anyhow::Result<Option<Item>> {
        let body = self
            .tx
            .base_body(kind.as_str(), id)
            .map_err(|e| anyhow!("{e}"))?;
        // A base that no longer parses (written by a later version) only costs the merge its
        // knowledge of what was removed knowingly.
        Ok(body.and_then(|b| serde_json::from_str(&b).ok()))
    }

    pub(super) fn set_base(&self, item: &Item) -> anyhow::Result<()> {
        let text = item.text();
        self.tx
            .set_base(
                item.kind().as_str(),
                item.id(),
                &hash(text.as_bytes()),
                &text,
            )
            .map_err(|e| anyhow!("{e}"))
    }

    pub(super) fn drop_base(&self, kind: ItemKind, id: &str) -> anyhow::Result<()> {
        self.tx
            .drop_base(kind.as_str(), id)
            .map_err(|e| anyhow!("{e}"))
    }

    /// Queues the item's file; batches are written by [`Apply::flush`].
    pub(super) fn write_file(&mut self, item: &Item) -> anyhow::Result<()> {
        self.dirs_touched = true;
        self.pending
            .insert(file_of(self.folder, item.kind(), item.id()), item.text());
        if self.pending.len() >= WRITE_BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// Deletes a file (and any write of it still queued).
    pub(super) fn remove_file(&mut self, path: &Path) -> anyhow::Result<()> {
        self.dirs_touched = true;
        self.pending.remove(path);
        remove_file(path)
    }

    /// Writes the queued files.
    pub(super) fn flush(&mut self) -> anyhow::Result<()> {
        let batch: Vec<(PathBuf, String)> = self.pending.drain().collect();
        write_all(&batch)
    }

    pub(super) fn delete_item(&self, kind: ItemKind, id: &str) -> anyhow::Result<()> {
        match kind {
            ItemKind::Record => self.tx.delete_record(id),
            ItemKind::Decision => self.tx.delete_decision(id),
        }
        .map(|_| ())
        .map_err(|e| anyhow!("{e}"))
    }

    /// Writes `item` to the database by id, settling another id at its natural key first;
    /// then the file and the base follow what the database now holds (`file`: the hash of
    /// the folder's file, rewritten only when it differs; `previous`: what the database held
    /// at that id, for the report of the engineer's verdicts that arrive from the folder).
    pub(super) fn import(
        &mut self,
        item: &Item,
        file: Option<Hash>,
        previous: Option<&Item>,
    ) -> anyhow::Result<()> {
        let holder = match item {
            Item::Record(r) => self.tx.record_holder(r).map(|h| h.map(Item::Record)),
            Item::Decision(d) => self.tx.decision_holder(d).map(|h| h.map(Item::Decision)),
        }
        .map_err(|e| anyhow!("{e}"))?;
        let (item, held) = match holder {
            Some(held) => match self.settle_key(&held, item)? {
                Some(winner) => (winner, Some(held)),
                // The database's other id keeps the key: nothing more to write for `item`.
                None => return Ok(()),
            },
            None => (item.clone(), None),
        };
        match &item {
            Item::Record(r) => self.tx.put_record(r),
            Item::Decision(d) => self.tx.put_decision(d),
        }
        .map_err(|e| anyhow!("{e}"))?;
        // What the database holds now, as the next sync will read it.
        let stored = match &item {
            Item::Record(r) => self.tx.record(&r.id).map(|o| o.map(Item::Record)),
            Item::Decision(d) => self.tx.decision(&d.id).map(|o| o.map(Item::Decision)),
        }
        .map_err(|e| anyhow!("{e}"))?
        .ok_or_else(|| anyhow!("{} {}: not stored", item.kind().as_str(), item.id()))?;
        if file != Some(stored.hash()) {
            self.write_file(&stored)?;
        }
        let known: Vec<&Item> = previous.into_iter().chain(held.as_ref()).collect();
        self.arrived(&known, &stored);
        self.set_base(&stored)
    }

    /// Two ids at one natural key: `held` in the database, `incoming` from the folder (or a
    /// merge). The later keeps the key (a decision with the other's engineer verdicts); the
    /// other id is deleted on both sides. Returns the item to write when it is `incoming`'s
    /// id, or `None` when `held` kept the key (already written here).
    pub(super) fn settle_key(
        &mut self,
        held: &Item,
        incoming: &Item,
    ) -> anyhow::Result<Option<Item>> {
        let resolved = merge::both_changed(
            None,
            Side {
                item: held,
                name: "database",
            },
            Side {
                item: incoming,
                name: "folder",
            },
            &held.text(),
            &incoming.text(),
        );
        let winner = resolved.item;
        let loser = if winner.id() == held.id() {
            incoming
        } else {
            held
        };
        self.counts.conflicts.push(format!(
            "{} {} (database, {}) and {} (folder, {}) are one {} under two ids: kept {}, \
             deleted {} on both sides{}",
            held.kind().as_str(),
            held.id(),
            held.updated_at(),
            incoming.id(),
            incoming.updated_at(),
            match held {
                Item::Record(_) => "feature (locator and name)",
                Item::Decision(_) => "decision (locator, subject and revision)",
            },
            winner.id(),
            loser.id(),
            resolved
                .notes
                .iter()
                .map(|n| format!("; {n}"))
                .collect::<String>()
        ));
        self.delete_item(loser.kind(), loser.id())?;
        self.remove_file(&file_of(self.folder, loser.kind(), loser.id()))?;
        self.drop_base(loser.kind(), loser.id())?;
        self.settled.insert((loser.kind(), loser.id().to_string()));
        self.settled
            .insert((winner.kind(), winner.id().to_string()));
        if winner.id() == held.id() {
            if winner != *held {
                self.arrived(&[held], &winner);
                match &winner {
                    Item::Record(r) => self.tx.put_record(r),
                    Item::Decision(d) => self.tx.put_decision(d),
                }
                .map_err(|e| anyhow!("{e}"))?;
            }
            self.write_file(&winner)?;
            self.set_base(&winner)?;
            return Ok(None);
        }
        Ok(Some(winner))
    }
}

/// `--dry-run`: each item's action, and the counts it would give, without writing.
pub(super) fn plan(
    tx: &SyncTx<'_>,
    entries: &BTreeMap<(ItemKind, String), Entry>,
    counts: &mut Counts,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    for ((kind, id), e) in entries {
        let k = slot(*kind);
        let file = format!("{}/{id}.json", kind.dir());
        let line = match action_of(e) {
            Action::InSync => continue,
            Action::ToFolder => {
                counts.written[k] += 1;
                let Some((_, db)) = &e.db else {
                    continue;
                };
                let base = planned_base(tx, *kind, id)?;
                let r = merge::one_sided(
                    base.as_ref(),
                    Side {
                        item: db,
                        name: "database",
                    },
                );
                match r.conflict {
                    Some(c) => {
                        if r.item != *db {
                            counts.imported[k] += 1;
                        }
                        counts.conflicts.push(String::new());
                        counts
                            .arrived
                            .extend(merge::arrived_verdicts(&[db], &r.item));
                        format!("conflict: would write {file}: {}", escape_controls(&c))
                    }
                    None => format!("would write {file}"),
                }
            }
            Action::ToDatabase => {
                counts.imported[k] += 1;
                let Some((_, Some(file_item))) = &e.file else {
                    continue;
                };
                let db = e.db.as_ref().map(|(_, i)| i);
                let r = merge::one_sided(
                    db,
                    Side {
                        item: file_item,
                        name: "folder",
                    },
                );
                counts.arrived.extend(merge::arrived_verdicts(
                    &db.into_iter().collect::<Vec<_>>(),
                    &r.item,
                ));
                match r.conflict {
                    Some(c) => {
                        counts.written[k] += 1;
                        counts.conflicts.push(String::new());
                        format!("conflict: would import {file}: {}", escape_controls(&c))
                    }
                    None => format!("would import {file}"),
                }
            }
            Action::DeleteFile => {
                counts.deleted_files[k] += 1;
                format!("would delete {file} (deleted in the database)")
            }
            Action::DeleteItem => {
                counts.deleted_items[k] += 1;
                format!(
                    "would delete {} {id} from the database (its file was deleted)",
                    kind.as_str()
                )
            }
            Action::KeepDatabase => {
                counts.written[k] += 1;
                counts.conflicts.push(String::new());
                let mut line = format!(
                    "conflict: would write {file} back: deleted in the folder, changed in the database"
                );
                if let Some((_, db)) = &e.db {
                    let base = planned_base(tx, *kind, id)?;
                    let r = merge::one_sided(
                        base.as_ref(),
                        Side {
                            item: db,
                            name: "database",
                        },
                    );
                    if let Some(c) = r.conflict {
                        counts.imported[k] += 1;
                        counts.conflicts.push(String::new());
                        counts
                            .arrived
                            .extend(merge::arrived_verdicts(&[db], &r.item));
                        line.push_str(&format!(
                            "\nconflict: would write {file}: {}",
                            escape_controls(&c)
                        ));
                    }
                }
                line
            }
            Action::KeepFolder => {
                counts.imported[k] += 1;
                counts.conflicts.push(String::new());
                let mut outranked = None;
                if let Some((_, Some(file_item))) = &e.file {
                    let base = planned_base(tx, *kind, id)?;
                    let r = merge::one_sided(
                        base.as_ref(),
                        Side {
                            item: file_item,
                            name: "folder",
                        },
                    );
                    counts.arrived.extend(merge::arrived_verdicts(&[], &r.item));
                    if let Some(c) = r.conflict {
                        counts.written[k] += 1;
                        counts.conflicts.push(String::new());
                        outranked = Some(format!(
                            "\nconflict: would import {file}: {}",
                            escape_controls(&c)
                        ));
                    }
                }
                let line = format!(
                    "conflict: would import {file} back: deleted in the database, changed in the folder"
                );
                line + &outranked.unwrap_or_default()
            }
            Action::Resolve => {
                let (Some((_, db)), Some((_, Some(file_item)))) = (&e.db, &e.file) else {
                    continue;
                };
                let base = tx
                    .base_body(kind.as_str(), id)
                    .map_err(|e| anyhow!("{e}"))?
                    .and_then(|b| serde_json::from_str::<Item>(&b).ok());
                let r = merge::resolve(
                    base.as_ref(),
                    Side {
                        item: db,
                        name: "database",
                    },
                    Side {
                        item: file_item,
                        name: "folder",
                    },
                )
                .map_err(|e| anyhow!("{e}"))?;
                let text = r.item.text();
                if text != db.text() {
                    counts.imported[k] += 1;
                    counts
                        .arrived
                        .extend(merge::arrived_verdicts(&[db], &r.item));
                }
                if text != file_item.text() {
                    counts.written[k] += 1;
                }
                counts.conflicts.push(String::new());
                format!(
                    "conflict: would merge {file}: {}",
                    escape_controls(&r.conflict.unwrap_or_default())
                )
            }
        };
        // Each part from the folder was escaped where the line was made; the line breaks
        // between a plan's own lines are kept.
        let _ = writeln!(out, "{}", escape_controls_but_newlines(&line));
    }
    Ok(())
}

/// An item's base, for the plan (records need none: the rule is about verdicts).
fn planned_base(tx: &SyncTx<'_>, kind: ItemKind, id: &str) -> anyhow::Result<Option<Item>> {
    if kind != ItemKind::Decision {
        return Ok(None);
    }
    Ok(tx
        .base_body(kind.as_str(), id)
        .map_err(|e| anyhow!("{e}"))?
        .and_then(|b| serde_json::from_str::<Item>(&b).ok()))
}
