//! A partitioned table's row triggers, cloned to its partitions (README
//! "Partitioned tables", "Row triggers of partitioned tables"), as
//! PostgreSQL 15 clones them: each partition holds a trigger row of the
//! same name and definition whose `parent` (`pg_trigger.tgparentid`) is
//! the partitioned table's trigger, so firing needs nothing new (a
//! partition's triggers are its own rows, `TG_TABLE_NAME` names it) and
//! `pg_trigger` and psql's `\d` show PostgreSQL's rows.
//!
//! This file owns keeping the clones in step: CREATE [OR REPLACE]
//! TRIGGER on a partitioned table ([`clone_to_partitions`]), a partition
//! made or attached ([`clone_all`]), DETACH ([`drop_of_partition`]), DROP
//! TRIGGER ([`drop_clones`], and [`refuse_drop`] for a clone named
//! alone) and `ENABLE | DISABLE TRIGGER` ([`enable_clones`]). A
//! partitioned table's statement triggers are not cloned (they fire once,
//! on the table the statement names: `dml.rs` `Whole`).

use crate::context::Ctx;
use crate::error::SqlError;
use folio_catalog::{TRIGGER_ROW, TableDef, TriggerDef, TriggerEnabled};
use folio_db::Transaction;

/// Whether `t` is cloned to the partitions of a partitioned table it is
/// on: a row trigger.
fn is_cloned(t: &TriggerDef) -> bool {
    t.kind & TRIGGER_ROW != 0 && !t.is_internal()
}

/// `def` (just made on `table`, or replaced: `replace`) is cloned to each
/// partition of `table` if it is a partitioned table's row trigger, and
/// on down a partitioned partition's. A partition holding a trigger of
/// the name already is PostgreSQL's 42710.
pub fn clone_to_partitions(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    def: &TriggerDef,
    table: &TableDef,
    replace: bool,
) -> Result<(), SqlError> {
    if !is_cloned(def) || table.partition_key().is_none() {
        return Ok(());
    }
    for (_, name) in &table.partitions {
        clone_into(cx, txn, def, name, replace)?;
    }
    Ok(())
}

/// A clone of `def` made on table `child` (and on its partitions).
fn clone_into(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    def: &TriggerDef,
    child: &str,
    replace: bool,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let child = (catalog.table(txn, child)?).ok_or_else(|| SqlError::undefined_table(child))?;
    let clone = TriggerDef {
        oid: 0,
        table: child.oid,
        parent: def.oid,
        ..def.clone()
    };
    let made = catalog.create_trigger(txn, &clone, &child.name, replace)?;
    clone_to_partitions(cx, txn, &made, &child, replace)
}

/// Table `child` became a partition of `parent` (CREATE TABLE ...
/// PARTITION OF, ATTACH PARTITION): it gets a clone of each of `parent`'s
/// row triggers (its clones included), and a partitioned `child`'s
/// partitions a clone of those.
pub fn clone_all(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    parent: &TableDef,
    child: &str,
) -> Result<(), SqlError> {
    let all = crate::triggers::in_scope();
    for t in all.iter().filter(|t| t.table == parent.oid && is_cloned(t)) {
        clone_into(cx, txn, t, child, false)?;
    }
    Ok(())
}

/// ATTACH PARTITION of `child`: a row trigger with transition tables
/// cannot be a partition's (PostgreSQL's 0A000).
pub fn check_attach(child: &TableDef) -> Result<(), SqlError> {
    let all = crate::triggers::in_scope();
    let refused = (all.iter()).find(|t| {
        t.table == child.oid && is_cloned(t) && (t.old_table.is_some() || t.new_table.is_some())
    });
    match refused {
        Some(t) => Err(SqlError::new(
            "0A000",
            format!(
                "trigger \"{}\" prevents table \"{}\" from becoming a partition",
                t.name,
                folio_catalog::unqualified(&child.name)
            ),
        )
        .with_detail("ROW triggers with transition tables are not supported on partitions.")),
        None => Ok(()),
    }
}

/// DETACH PARTITION of `child`: its clones (and theirs below it) are
/// dropped; its own triggers stay.
pub fn drop_of_partition(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    child: &TableDef,
) -> Result<(), SqlError> {
    let all = crate::triggers::in_scope();
    for t in all.iter().filter(|t| t.table == child.oid && t.parent != 0) {
        drop_clones(cx, txn, t)?;
        cx.db
            .catalog()
            .drop_trigger(txn, t.table, &child.name, &t.name)?;
    }
    Ok(())
}

/// DROP TRIGGER of `def`: its clones go with it, theirs with them.
pub fn drop_clones(cx: &Ctx<'_>, txn: &mut Transaction, def: &TriggerDef) -> Result<(), SqlError> {
    let all = crate::triggers::in_scope();
    for clone in all.iter().filter(|t| t.parent == def.oid) {
        drop_clones(cx, txn, clone)?;
        cx.db
            .catalog()
            .drop_trigger(txn, clone.table, "", &clone.name)?;
    }
    Ok(())
}

/// DROP TRIGGER naming a clone (`def`, on table `table`): PostgreSQL's
/// 2BP01, naming the trigger it is a clone of.
pub fn refuse_drop(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &TriggerDef,
    table: &str,
) -> Result<(), SqlError> {
    if def.parent == 0 {
        return Ok(());
    }
    let all = crate::triggers::in_scope();
    let parent_table = match all.iter().find(|t| t.oid == def.parent) {
        Some(parent) => (cx.db.catalog().tables(txn)?.into_iter())
            .find(|d| d.oid == parent.table)
            .map_or_else(String::new, |d| d.name),
        None => String::new(),
    };
    let parent_table = folio_catalog::unqualified(&parent_table);
    let name = &def.name;
    Err(SqlError::new(
        "2BP01",
        format!(
            "cannot drop trigger {name} on table {table} because trigger {name} on table {parent_table} requires it"
        ),
    )
    .with_hint(format!(
        "You can drop trigger {name} on table {parent_table} instead."
    )))
}

/// `ALTER TABLE ... ENABLE | DISABLE TRIGGER` set `def` to `state`: its
/// clones follow, as PostgreSQL 15's recursion.
pub fn enable_clones(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    def: &TriggerDef,
    state: TriggerEnabled,
) -> Result<(), SqlError> {
    let all = crate::triggers::in_scope();
    for clone in all.iter().filter(|t| t.parent == def.oid) {
        cx.db
            .catalog()
            .enable_trigger(txn, clone.table, "", &clone.name, state)?;
        enable_clones(cx, txn, clone, state)?;
    }
    Ok(())
}
