//! A partitioned table's indexes and their partitions: the index of each
//! partition that stands for the parent's index (PostgreSQL's partitioned
//! index, whose partitions `pg_inherits` links and `pg_partition_tree`
//! walks).
//!
//! folio stores no link between them. CREATE INDEX on a partitioned
//! table makes the same index on each partition, and a partition made or
//! attached later gets each parent index it has no match for
//! (`ddl.rs` `attach_def`); the link is found again from the definitions:
//! [`matched`] pairs each parent index, in oid order, with the first
//! partition index not yet paired that [`stands_for`] it. This module is
//! the one owner of that pairing.

use folio_catalog::{IndexDef, TableDef};
use std::collections::HashMap;

/// Whether `child`, an index of a partition, can stand for `parent`, an
/// index of the partitioned table: the same key columns and expressions,
/// predicate, uniqueness and NULLS [NOT] DISTINCT (the parent's columns
/// at the partition's positions, `map`), and a constraint's index for a
/// constraint's.
/// As PostgreSQL 15's, the columns' order (DESC, NULLS FIRST) is not
/// compared: `(b)` stands for `(b desc)`.
pub fn stands_for(
    child: &IndexDef,
    parent: &IndexDef,
    map: Option<&super::column_map::ColumnMap>,
) -> bool {
    child.columns == super::column_map::positions_in(map, &parent.columns)
        && child.exprs == parent.exprs
        && child.unique == parent.unique
        && child.nulls == parent.nulls
        && child.primary == parent.primary
        && (child.constraint || !parent.constraint)
}

/// Each index of partitioned table `parent`, in oid order, with the index
/// of its partition `child` that is its partition, if `child` has one.
pub fn matched<'a>(
    parent: &'a TableDef,
    child: &'a TableDef,
) -> Vec<(&'a IndexDef, Option<&'a IndexDef>)> {
    let by_oid = |def: &'a TableDef| {
        let mut indexes: Vec<&IndexDef> = def.indexes.iter().collect();
        indexes.sort_by_key(|i| i.oid);
        indexes
    };
    let mut free = by_oid(child);
    let map = super::column_map::ColumnMap::between(parent, child);
    by_oid(parent)
        .into_iter()
        .map(|index| {
            let found = free.iter().position(|c| stands_for(c, index, map.as_ref()));
            (index, found.map(|at| free.remove(at)))
        })
        .collect()
}

/// The parent index of every index that is a partition of one, by oid:
/// `tables` must hold each partition's parent.
pub fn parents<'a>(tables: impl IntoIterator<Item = &'a TableDef>) -> HashMap<u64, u64> {
    let tables: HashMap<u64, &TableDef> = tables.into_iter().map(|t| (t.oid, t)).collect();
    let mut out = HashMap::new();
    for child in tables.values() {
        let Some(parent) = child.partition_of().and_then(|(p, _)| tables.get(&p)) else {
            continue;
        };
        for (index, partition) in matched(parent, child) {
            if let Some(partition) = partition {
                out.insert(partition.oid, index.oid);
            }
        }
    }
    out
}

/// The oids of the indexes of partitions at every level below index
/// `oid` that stand for it, breadth first. `parents` is [`parents`]'s map.
pub fn descendants(parents: &HashMap<u64, u64>, oid: u64) -> Vec<u64> {
    // Each index has one parent, so the walk ends.
    let mut found = vec![oid];
    let mut at = 0;
    while let Some(&above) = found.get(at) {
        let mut children: Vec<u64> = (parents.iter())
            .filter(|(_, p)| **p == above)
            .map(|(c, _)| *c)
            .collect();
        children.sort_unstable();
        found.extend(children);
        at += 1;
    }
    found.remove(0);
    found
}

/// The indexes of partitions at every level below index `oid` that stand
/// for it (breadth first), each as (its table's name, its name): what
/// goes with it when it is dropped. `parents` is [`parents`]'s map over
/// `tables`.
pub fn below(tables: &[TableDef], parents: &HashMap<u64, u64>, oid: u64) -> Vec<(String, String)> {
    (descendants(parents, oid).iter())
        .filter_map(|&oid| {
            tables.iter().find_map(|t| {
                (t.indexes.iter())
                    .find(|i| i.oid == oid)
                    .map(|i| (t.name.clone(), i.name.clone()))
            })
        })
        .collect()
}
