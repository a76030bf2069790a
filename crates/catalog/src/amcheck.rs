//! The check that a table and its indexes agree in both directions (as
//! PostgreSQL's amcheck with `heapallindexed`), run by `folio verify`:
//!
//! - every row a fresh snapshot sees has, in every index, an entry with
//!   the row's key pointing at the root of its HOT chain;
//! - every index entry points at an item an entry may point at (a chain
//!   root, or a dead item vacuum has yet to clean: folio-heap
//!   `targets.rs`), and an entry whose chain holds a visible row carries
//!   that row's key.
//!
//! Entries of versions no snapshot sees (deleted, aborted, updated with a
//! new key) are allowed until vacuum removes them.

use crate::error::CatalogError;
use crate::relation::Relation;
use folio_heap::Tid;
use folio_txn::Transaction;
use std::collections::{HashMap, HashSet};

/// What [`Relation::check_indexes`] looked at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexCheck {
    /// Rows seen (each checked in every index).
    pub rows: u64,
    /// Index entries checked, over all indexes.
    pub entries: u64,
}

impl Relation {
    /// Checks that the table and every index agree (module comment), as
    /// `txn` sees the table; the first disagreement is
    /// [`CatalogError::IndexMismatch`] naming the index and the item.
    pub fn check_indexes(&self, txn: &Transaction) -> Result<IndexCheck, CatalogError> {
        let targets = self.table.index_targets(txn)?;
        let mut live = Vec::with_capacity(targets.live.len());
        for (root, row) in &targets.live {
            live.push((*root, self.decode(txn, row)?));
        }
        let mut check = IndexCheck {
            rows: live.len() as u64,
            entries: 0,
        };
        for ri in &self.indexes {
            let mismatch = |detail: String| CatalogError::IndexMismatch {
                index: ri.def.name.clone(),
                detail,
            };
            // (A row a partial index holds no entry for expects none.)
            let expected: HashMap<Tid, Option<Vec<u8>>> = live
                .iter()
                .map(|(root, values)| Ok((*root, ri.key(values)?)))
                .collect::<Result<_, CatalogError>>()?;
            let mut found = HashSet::new();
            for (key, tid) in ri.index.entries()? {
                check.entries += 1;
                if !targets.pointable.contains(&tid) {
                    return Err(mismatch(format!(
                        "an entry points at {tid:?}, which holds no row"
                    )));
                }
                if let Some(want) = expected.get(&tid) {
                    // A chain keeps its key (an update that changes one
                    // starts a new chain with new entries).
                    if want.as_ref() != Some(&key) {
                        return Err(mismatch(format!(
                            "the entry for {tid:?} has a key that is not its row's"
                        )));
                    }
                    found.insert(tid);
                }
            }
            let missing =
                (live.iter()).find(|(root, _)| !found.contains(root) && expected[root].is_some());
            if let Some((root, _)) = missing {
                return Err(mismatch(format!("the row at {root:?} has no entry")));
            }
        }
        Ok(check)
    }
}
