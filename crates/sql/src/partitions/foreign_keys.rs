//! Foreign keys to and from partitioned tables (README "Partitioned
//! tables", "Foreign keys of partitioned tables"). The catalog holds one
//! row per key, on the table it was made on; the partitions take part
//! through what [`crate::constraints::Constraints`] binds:
//!
//! - a partition's rows meet its ancestors' foreign keys as their own
//!   ([`ancestors`]): a partitioned table's heap is empty, so its keys
//!   are checked where the rows are;
//! - a referenced key is found through [`KeyIndex`]: the unique index of
//!   the referenced table, or, when it is partitioned, the one partition
//!   [`Tree::route`] sends the key to and that partition's index (a
//!   partitioned table's unique keys hold its partition key, so the key
//!   routes);
//! - the rows referencing a key are searched in every leaf partition of
//!   a partitioned referencing table ([`leaves`]).
//!
//! The statements that remove a partition's rows from its partitioned
//! table ask here what references them through an ancestor
//! ([`inherited_referenced_by`]): DETACH checks the rows, DROP and
//! TRUNCATE refuse as for the referenced table itself.

use super::tree::Tree;
use crate::context::Ctx;
use crate::error::SqlError;
use folio_catalog::{ConstraintDef, Relation, TableDef};
use folio_db::{Database, Transaction};
use folio_row::Value;
use std::sync::Arc;

/// A key's place: the relation, its index, and the key in the index's
/// column order.
pub type Found<'a> = (&'a Arc<Relation>, usize, Vec<Value>);

/// Where the row holding a referenced key is looked up.
pub enum KeyIndex {
    /// A unique index of a table with rows: `relation`'s index `index`,
    /// `order` giving for each of its columns the key position filling it.
    Index {
        relation: Arc<Relation>,
        index: usize,
        order: Vec<usize>,
    },
    /// A partitioned table: the partition the key routes to. `key_at`
    /// gives for each partition key column its position in the key.
    Routed {
        tree: Box<Tree>,
        key_at: Vec<usize>,
        parts: Vec<KeyIndex>,
    },
}

impl KeyIndex {
    /// The lookup of `columns` of `relation` (`None`: no unique index
    /// over exactly them, in it or in one of its partitions).
    pub fn of(
        cx: &Ctx<'_>,
        txn: &Transaction,
        relation: &Arc<Relation>,
        columns: &[usize],
    ) -> Result<Option<KeyIndex>, SqlError> {
        let Some(tree) = Tree::of(cx, txn, &relation.def)? else {
            return Ok(
                crate::constraints::unique_index_over(relation, columns).map(|(index, order)| {
                    KeyIndex::Index {
                        relation: relation.clone(),
                        index,
                        order,
                    }
                }),
            );
        };
        let Some(key_at) = (tree.key.columns.iter())
            .map(|c| columns.iter().position(|k| k == c))
            .collect::<Option<Vec<usize>>>()
        else {
            return Ok(None);
        };
        let mut parts = Vec::with_capacity(tree.parts.len());
        for part in &tree.parts {
            let relation = crate::access::relation(cx, txn, &part.name)?;
            let columns = super::column_map::positions_in(part.map.as_ref(), columns);
            match KeyIndex::of(cx, txn, &relation, &columns)? {
                Some(lookup) => parts.push(lookup),
                None => return Ok(None),
            }
        }
        Ok(Some(KeyIndex::Routed {
            tree: Box::new(tree),
            key_at,
            parts,
        }))
    }

    /// The relation and index holding `key` (in the key's column order),
    /// and the key in that index's column order; `None` when no
    /// partition takes the key (no row can hold it).
    pub fn find(&self, key: &[Value]) -> Result<Option<Found<'_>>, SqlError> {
        match self {
            KeyIndex::Index {
                relation,
                index,
                order,
            } => Ok(Some((
                relation,
                *index,
                order.iter().map(|&k| key[k].clone()).collect(),
            ))),
            KeyIndex::Routed {
                tree,
                key_at,
                parts,
            } => {
                let routed: Vec<Value> = key_at.iter().map(|&k| key[k].clone()).collect();
                match tree.route(&routed)? {
                    Some(n) => parts[n].find(key),
                    None => Ok(None),
                }
            }
        }
    }

    /// Whether a row `txn` sees holds `key`.
    pub fn holds(&self, txn: &Transaction, key: &[Value]) -> Result<bool, SqlError> {
        Ok(match self.find(key)? {
            Some((relation, index, probe)) => !relation.lookup(txn, index, &probe)?.is_empty(),
            None => false,
        })
    }

    /// The relations read (for a plan's currency).
    pub fn relations<'a>(&'a self, out: &mut Vec<&'a Arc<Relation>>) {
        match self {
            KeyIndex::Index { relation, .. } => out.push(relation),
            KeyIndex::Routed { parts, .. } => parts.iter().for_each(|p| p.relations(out)),
        }
    }
}

/// The partitioned tables `def` is a partition of, its parent first.
pub fn ancestors(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TableDef,
) -> Result<Vec<Arc<Relation>>, SqlError> {
    let mut out: Vec<Arc<Relation>> = Vec::new();
    let mut parent = def.partition_parent().map(str::to_string);
    while let Some(name) = parent {
        let relation = crate::access::relation(cx, txn, &name)?;
        parent = relation.def.partition_parent().map(str::to_string);
        if out.iter().any(|r| r.def.oid == relation.def.oid) {
            break;
        }
        out.push(relation);
    }
    Ok(out)
}

/// The tables holding `relation`'s rows: itself, or, partitioned, the
/// leaves of its partitions (in creation order, depth first).
pub fn leaves(
    cx: &Ctx<'_>,
    txn: &Transaction,
    relation: Arc<Relation>,
) -> Result<Vec<Arc<Relation>>, SqlError> {
    if relation.def.partition_key().is_none() {
        return Ok(vec![relation]);
    }
    let mut out = Vec::new();
    for (_, name) in &relation.def.partitions {
        let part = crate::access::relation(cx, txn, name)?;
        out.extend(leaves(cx, txn, part)?);
    }
    Ok(out)
}

/// The foreign keys that reference an ancestor of partition `def` (its
/// rows are that table's), each with the ancestor's name, parent first;
/// none when `def` is no partition.
pub fn inherited_referenced_by(
    db: &Database,
    txn: &Transaction,
    def: &TableDef,
) -> Result<Vec<(String, ConstraintDef)>, SqlError> {
    let mut out = Vec::new();
    let mut parent = def.partition_parent().map(str::to_string);
    let mut seen = vec![def.oid];
    while let Some(name) = parent {
        let Some(ancestor) = db.catalog().table(txn, &name)? else {
            break;
        };
        if seen.contains(&ancestor.oid) {
            break;
        }
        seen.push(ancestor.oid);
        out.extend(
            (ancestor.referenced_by.iter())
                .filter(|c| c.table_oid != ancestor.oid)
                .map(|c| (ancestor.name.clone(), c.clone())),
        );
        parent = ancestor.partition_parent().map(str::to_string);
    }
    Ok(out)
}
