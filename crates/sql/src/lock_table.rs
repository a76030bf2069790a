//! `LOCK [TABLE] [ONLY] name [*] [, ...] [IN mode MODE] [NOWAIT]`: table
//! locks held to the end of the transaction (folio-txn
//! `relation_locks.rs`, PostgreSQL's eight modes and conflict table),
//! with PostgreSQL 15's rules:
//!
//! - only inside a transaction block (25001), or in a function;
//! - tables (and partitioned ones: with their partitions, all the way
//!   down, unless `ONLY`) and views (with the relations their queries
//!   read, all the way down); any other kind of relation is 42809
//!   `cannot lock relation` with the kind in DETAIL; none is 42P01;
//! - `ACCESS SHARE` needs SELECT, `ROW EXCLUSIVE` one of INSERT, UPDATE,
//!   DELETE, TRUNCATE, every other mode one of UPDATE, DELETE, TRUNCATE
//!   (42501); a view's relations are checked as its owner;
//! - a READ ONLY transaction may take every mode;
//! - `NOWAIT`: 55P03 `could not obtain lock on relation "t"` where it
//!   would wait.
//!
//! What differs: plain reads take no lock in folio, so `ACCESS
//! EXCLUSIVE` does not block a `SELECT` as PostgreSQL's does (the reader
//! sees its snapshot); see the folio-txn README.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::Output;
use crate::privileges::{self, DELETE, INSERT, SELECT, TRUNCATE, UPDATE};
use folio_db::Transaction;
use folio_txn::{LockMode, TxnError};

/// A parsed `LOCK` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    pub targets: Vec<Target>,
    pub mode: LockMode,
    pub nowait: bool,
}

/// One relation named by `LOCK`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub name: String,
    /// `ONLY`: not a partitioned table's partitions.
    pub only: bool,
}

/// The modes by their words (lower case), as written between `IN` and
/// `MODE`.
const MODES: [(&[&str], LockMode); 8] = [
    (&["access", "share"], LockMode::AccessShare),
    (&["row", "share"], LockMode::RowShare),
    (&["row", "exclusive"], LockMode::RowExclusive),
    (
        &["share", "update", "exclusive"],
        LockMode::ShareUpdateExclusive,
    ),
    (&["share"], LockMode::Share),
    (&["share", "row", "exclusive"], LockMode::ShareRowExclusive),
    (&["exclusive"], LockMode::Exclusive),
    (&["access", "exclusive"], LockMode::AccessExclusive),
];

/// The mode `words` name.
pub fn mode_named(words: &[String]) -> Option<LockMode> {
    (MODES.iter())
        .find(|(named, _)| named.len() == words.len() && begins(named, words))
        .map(|&(_, mode)| mode)
}

/// Whether some mode's words begin with `words`.
pub fn mode_begins(words: &[String]) -> bool {
    (MODES.iter()).any(|(named, _)| named.len() >= words.len() && begins(named, words))
}

fn begins(named: &[&str], words: &[String]) -> bool {
    named.iter().zip(words).all(|(a, b)| *a == b.as_str())
}

/// Runs `LOCK` in `txn` (the session has checked it is in a block).
pub fn lock(cx: &Ctx<'_>, txn: &mut Transaction, lock: &Lock) -> Result<Output, SqlError> {
    for target in &lock.targets {
        let name = crate::temp_tables::resolve_name(cx, txn, &target.name)?;
        let bare = folio_catalog::unqualified(&target.name);
        let (oid, kind) = (cx.db.catalog().relation_oid(txn, &name)?)
            .filter(|&(_, kind)| matches!(kind, 'r' | 'v' | 'i' | 'S' | 'm'))
            .ok_or_else(|| SqlError::undefined_table(&target.name))?;
        let what = match kind {
            'r' => "table",
            'v' => "view",
            other => return Err(not_lockable(bare, other)),
        };
        check_privilege(cx, oid, bare, what, lock.mode, None)?;
        take(txn, lock, oid, bare)?;
        match kind {
            'v' => lock_view_relations(cx, txn, lock, oid)?,
            _ if !target.only => lock_partitions(cx, txn, lock, &name)?,
            _ => {}
        }
    }
    Ok(Output::command("LOCK TABLE"))
}

/// 42809 for a relation of a kind `LOCK` does not take.
fn not_lockable(name: &str, kind: char) -> SqlError {
    SqlError::new("42809", format!("cannot lock relation \"{name}\"")).with_detail(format!(
        "This operation is not supported for {}.",
        crate::comments::kind_plural(kind)
    ))
}

/// 42501 unless the session's role (or `as_owner_of`'s owner) has a
/// privilege `mode` asks for on relation `oid`.
fn check_privilege(
    cx: &Ctx<'_>,
    oid: u64,
    name: &str,
    kind: &'static str,
    mode: LockMode,
    as_owner_of: Option<u64>,
) -> Result<(), SqlError> {
    let any_of = match mode {
        LockMode::AccessShare => vec![SELECT],
        LockMode::RowExclusive => vec![INSERT, UPDATE, DELETE, TRUNCATE],
        _ => vec![UPDATE, DELETE, TRUNCATE],
    };
    let mut last = None;
    for privilege in any_of {
        let need = privileges::Need {
            relation: oid,
            name: name.to_string(),
            kind,
            privilege,
            as_owner_of,
            columns: None,
        };
        match privileges::check(cx, &need) {
            Ok(()) => return Ok(()),
            Err(e) => last = Some(e),
        }
    }
    Err(last.expect("every mode asks for a privilege"))
}

/// Takes `lock.mode` on `oid`; under NOWAIT 55P03 naming `name`.
fn take(txn: &mut Transaction, lock: &Lock, oid: u64, name: &str) -> Result<(), SqlError> {
    match txn.lock_table_explicitly(oid, lock.mode, lock.nowait) {
        Ok(_) => Ok(()),
        Err(TxnError::LockNotAvailable { .. }) => Err(SqlError::new(
            "55P03",
            format!("could not obtain lock on relation \"{name}\""),
        )),
        Err(e) => Err(e.into()),
    }
}

/// A partitioned table's partitions, all the way down, in the order
/// PostgreSQL takes them (each partition before its own partitions).
fn lock_partitions(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    lock: &Lock,
    name: &str,
) -> Result<(), SqlError> {
    let Some(def) = cx.db.catalog().table(txn, name)? else {
        return Ok(());
    };
    for (oid, partition) in &def.partitions {
        take(txn, lock, *oid, folio_catalog::unqualified(partition))?;
        lock_partitions(cx, txn, lock, partition)?;
    }
    Ok(())
}

/// The relations view `view`'s query reads, locked in the same mode, and
/// theirs in turn (a view over views), each checked with the privileges
/// of the owner of the view that reads it (PostgreSQL 15). What else a
/// view reads (a materialized view, a sequence) PostgreSQL leaves
/// unlocked, and so does this.
fn lock_view_relations(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    lock: &Lock,
    view: u64,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let views = catalog.views(txn)?;
    let tables = catalog.tables(txn)?;
    let mut pending = vec![view];
    let mut done = vec![view];
    while let Some(reader) = pending.pop() {
        let Some(def) = views.iter().find(|v| v.oid == reader) else {
            continue;
        };
        for &oid in &def.depends_on {
            if let Some(table) = tables.iter().find(|t| t.oid == oid) {
                let bare = folio_catalog::unqualified(&table.name);
                check_privilege(cx, oid, bare, "table", lock.mode, Some(reader))?;
                take(txn, lock, oid, bare)?;
                lock_partitions(cx, txn, lock, &table.name)?;
            } else if let Some(inner) = views.iter().find(|v| v.oid == oid && !v.materialized) {
                let bare = folio_catalog::unqualified(&inner.name);
                check_privilege(cx, oid, bare, "view", lock.mode, Some(reader))?;
                take(txn, lock, oid, bare)?;
                if !done.contains(&oid) {
                    done.push(oid);
                    pending.push(oid);
                }
            }
        }
    }
    Ok(())
}
