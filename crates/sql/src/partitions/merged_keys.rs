//! A partition's own foreign key merged with its parent's equal one
//! (README "Foreign keys of partitioned tables").
//!
//! PostgreSQL gives each partition a constraint per foreign key of its
//! parent: a copy (`conparentid` set), or, when the partition already
//! has an equal key of its own (same referenced table and columns, same
//! actions, match type and deferrability, validated), that key, which
//! then belongs to the parent's (`tryAttachPartitionForeignKey`: at ADD
//! FOREIGN KEY on the parent, CREATE TABLE ... PARTITION OF and ATTACH).
//! folio keeps no copies (the ancestors' keys bind on the partition,
//! `foreign_keys.rs`), but an own key merged so is marked not local
//! (`conislocal`): it cannot be dropped or altered alone (42P16, XX000),
//! goes with the parent's key when that is dropped, changes with it under
//! ALTER CONSTRAINT, and is the partition's own again after DETACH, which
//! copies only the keys no own key stands for.
//!
//! Which parent key a merged key stands for is not stored: it is found
//! again ([`pairing`]), in order, each received key taking the first
//! merged own key equal to it.

use super::columns::{descendants, table_def};
use crate::context::Ctx;
use crate::error::SqlError;
use folio_catalog::{ConstraintDef, ConstraintKind, ForeignKey, TableDef};
use folio_db::Transaction;

/// A foreign key as a partition receives it from its parent: the
/// constraint, on the table that holds it, and its columns' names.
#[derive(Clone)]
pub struct Received {
    pub key: ConstraintDef,
    columns: Vec<String>,
    /// The key it derives from at the top of the tree (itself unless it
    /// is a merged one): the constraint's name and its table's.
    pub top: (String, String),
}

impl Received {
    fn of(holder: &TableDef, key: &ConstraintDef) -> Option<Received> {
        let ConstraintKind::ForeignKey(fk) = &key.kind else {
            return None;
        };
        Some(Received {
            key: key.clone(),
            columns: names(holder, fk),
            top: (key.name.clone(), holder.name.clone()),
        })
    }

    fn fk(&self) -> &ForeignKey {
        match &self.key.kind {
            ConstraintKind::ForeignKey(fk) => fk,
            _ => unreachable!("a Received is a foreign key"),
        }
    }

    /// Whether `own`, a foreign key of partition `part`, is one
    /// PostgreSQL would merge with this one.
    fn equals(&self, part: &TableDef, own: &ConstraintDef) -> bool {
        let ConstraintKind::ForeignKey(fk) = &own.kind else {
            return false;
        };
        let mine = self.fk();
        fk.ref_table_oid == mine.ref_table_oid
            && fk.ref_columns == mine.ref_columns
            && names(part, fk) == self.columns
            && fk.on_delete == mine.on_delete
            && fk.on_update == mine.on_update
            && fk.match_full == mine.match_full
            && own.deferrable == self.key.deferrable
    }
}

fn names(def: &TableDef, fk: &ForeignKey) -> Vec<String> {
    (fk.columns.iter())
        .map(|&c| def.columns[usize::from(c)].name.clone())
        .collect()
}

fn foreign_keys(def: &TableDef) -> impl Iterator<Item = &ConstraintDef> {
    (def.constraints.iter()).filter(|c| matches!(c.kind, ConstraintKind::ForeignKey(_)))
}

/// The foreign keys `def`'s partitions receive from it: its own, then
/// those it received from its parent that none of its own stands for.
pub fn passed_down(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TableDef,
) -> Result<Vec<Received>, SqlError> {
    let mut out: Vec<Received> = foreign_keys(def)
        .filter_map(|c| Received::of(def, c))
        .collect();
    if let Some(parent) = def.partition_parent() {
        let parent = table_def(cx, txn, parent)?;
        let received = passed_down(cx, txn, &parent)?;
        let paired = pairing(&received, def);
        for (r, own) in received.into_iter().zip(paired) {
            match own.and_then(|own| out.iter_mut().find(|o| o.key.name == own.name)) {
                Some(merged) => merged.top = r.top,
                None => out.push(r),
            }
        }
    }
    Ok(out)
}

/// For each key of `received` (what `part`'s parent passes down), the
/// merged own key of `part` standing for it, if any.
pub fn pairing<'a>(received: &[Received], part: &'a TableDef) -> Vec<Option<&'a ConstraintDef>> {
    let mut taken: Vec<&str> = Vec::new();
    (received.iter())
        .map(|r| {
            let own = foreign_keys(part)
                .find(|c| !c.local && !taken.contains(&c.name.as_str()) && r.equals(part, c));
            if let Some(c) = own {
                taken.push(&c.name);
            }
            own
        })
        .collect()
}

/// After `root` became a partition (CREATE TABLE ... PARTITION OF,
/// ATTACH) or its partitioned table got foreign keys: in it and in each
/// partition below it, a local, validated own key equal to a received key
/// no own key stands for yet is merged with it.
pub fn merge(cx: &Ctx<'_>, txn: &mut Transaction, root: &str) -> Result<(), SqlError> {
    let root = table_def(cx, txn, root)?;
    let mut tables = vec![root.name.clone()];
    tables.extend(descendants(cx, txn, &root)?.into_iter().map(|d| d.name));
    let mut changed = false;
    // (Each after its parent: a partition's merge changes what it passes
    // down.)
    for name in tables {
        let part = table_def(cx, txn, &name)?;
        let Some(parent) = part.partition_parent() else {
            continue;
        };
        let received = passed_down(cx, txn, &table_def(cx, txn, parent)?)?;
        let paired = pairing(&received, &part);
        let mut merged: Vec<&str> = Vec::new();
        for (r, own) in received.iter().zip(paired) {
            if own.is_some() {
                continue;
            }
            let found = foreign_keys(&part).find(|c| {
                c.local && c.validated && !merged.contains(&c.name.as_str()) && r.equals(&part, c)
            });
            if let Some(c) = found {
                merged.push(&c.name);
            }
        }
        for name in merged {
            cx.db
                .catalog()
                .set_constraint_local(txn, &part.name, name, false)?;
            changed = true;
        }
    }
    if changed {
        cx.relations.ddl();
    }
    Ok(())
}

/// Foreign key `name` of partition `def`, when it is one it has of its
/// parent (a merged own key, or the name of a received key no own key
/// stands for): the key it derives from at the top of the tree (DROP and
/// ALTER CONSTRAINT refuse it).
pub fn inherited(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TableDef,
    name: &str,
) -> Result<Option<(String, String)>, SqlError> {
    let Some(parent) = def.partition_parent() else {
        return Ok(None);
    };
    let received = passed_down(cx, txn, &table_def(cx, txn, parent)?)?;
    let paired = pairing(&received, def);
    let own = |n: &str| def.constraints.iter().any(|c| c.name == n);
    Ok((received.into_iter().zip(paired))
        .find(|(r, mine)| match mine {
            Some(mine) => mine.name == name,
            None => r.key.name == name && !own(name),
        })
        .map(|(r, _)| r.top))
}

/// DETACH of partition `def`: its merged keys are its own again, and the
/// received keys no own key stands for are returned (to be copied onto
/// it, as PostgreSQL's copies stay).
pub fn detach(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    def: &TableDef,
) -> Result<Vec<Received>, SqlError> {
    let Some(parent) = def.partition_parent() else {
        return Ok(Vec::new());
    };
    let received = passed_down(cx, txn, &table_def(cx, txn, parent)?)?;
    let paired = pairing(&received, def);
    let mut copies = Vec::new();
    let mut own_again = Vec::new();
    for (r, own) in received.into_iter().zip(paired) {
        match own {
            Some(own) => own_again.push(own.name.clone()),
            None => copies.push(r),
        }
    }
    for name in own_again {
        cx.db
            .catalog()
            .set_constraint_local(txn, &def.name, &name, true)?;
    }
    cx.relations.ddl();
    Ok(copies)
}

/// The merged keys below partitioned table `def` that stand, level by
/// level, for its foreign key `name`: each table's name and the key's.
/// (DROP CONSTRAINT drops them with it, ALTER CONSTRAINT changes them.)
pub fn standing_for(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TableDef,
    name: &str,
) -> Result<Vec<(String, String)>, SqlError> {
    // The keys going (table oid, constraint name), the received copies'
    // under the table holding them.
    let mut going: Vec<(u64, String)> = vec![(def.oid, name.to_string())];
    let mut out = Vec::new();
    for part in descendants(cx, txn, def)? {
        let Some(parent) = part.partition_parent() else {
            continue;
        };
        let received = passed_down(cx, txn, &table_def(cx, txn, parent)?)?;
        let paired = pairing(&received, &part);
        for (r, own) in received.iter().zip(paired) {
            if let Some(own) = own
                && going.contains(&(r.key.table_oid, r.key.name.clone()))
            {
                going.push((part.oid, own.name.clone()));
                out.push((part.name.clone(), own.name.clone()));
            }
        }
    }
    Ok(out)
}
