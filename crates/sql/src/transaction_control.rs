//! How the session's transactions begin and end, and the COMMIT and
//! ROLLBACK a procedure runs: the running transaction ends and the next
//! begins in its place, mid-statement (README "Transaction control in
//! procedures").

use crate::access::Relations;
use crate::advisory::SessionAdvisory;
use crate::backend::SessionBackend;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::settings::Settings;
use crate::temp_tables::TempTables;
use folio_db::{Database, Durability, Isolation, Transaction};
use folio_txn::Interrupt;
use std::sync::Arc;

/// A new transaction of the session at `isolation`: it reads the cancel
/// flag `interrupt`, holds the session's advisory locks, counts into its
/// statistics and starts in the default access mode.
pub fn begin(
    db: &Database,
    backend: &SessionBackend,
    advisory: &SessionAdvisory,
    settings: &Settings,
    interrupt: Arc<Interrupt>,
    isolation: Isolation,
) -> Result<Transaction, SqlError> {
    backend.begin();
    let durability = match settings.synchronous() {
        true => Durability::Sync,
        false => Durability::Async,
    };
    let mut txn = db.begin(isolation, durability)?;
    txn.set_interrupt(interrupt);
    txn.set_advisory(advisory.owner().clone());
    txn.set_read_only(settings.default_read_only());
    txn.set_stats(backend.stats().clone());
    Ok(txn)
}

/// Commits `txn`, after what the session's temporary tables' `ON COMMIT`
/// asks (`temp_tables.rs`); an error there rolls it back.
pub fn commit(
    db: &Database,
    temp: &TempTables,
    relations: &Relations,
    backend: &SessionBackend,
    mut txn: Transaction,
) -> Result<(), SqlError> {
    match temp.before_commit(db, &mut txn) {
        Ok(changed) => {
            if changed {
                relations.ddl();
            }
            txn.commit()?;
            backend.committed();
            Ok(())
        }
        Err(e) => {
            let _ = txn.rollback();
            Err(e)
        }
    }
}

/// Whether `statement` begins or ends a transaction or savepoint: what a
/// body may not run as SQL (PL/pgSQL's own COMMIT and ROLLBACK aside).
pub fn is_transaction_command(statement: &sqlparser::ast::Statement) -> bool {
    use sqlparser::ast::Statement;
    matches!(
        statement,
        Statement::StartTransaction { .. }
            | Statement::Commit { .. }
            | Statement::Rollback { .. }
            | Statement::Savepoint { .. }
            | Statement::ReleaseSavepoint { .. }
    )
}

/// What a PL/pgSQL COMMIT or ROLLBACK asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ending {
    /// COMMIT (else ROLLBACK).
    pub commit: bool,
    /// `AND CHAIN`: the next transaction has this one's modes.
    pub chain: bool,
}

/// Why a procedure may not end its transaction here: 2D000 when the call
/// is atomic or a subtransaction (a block with handlers) is open, in
/// PostgreSQL's order of checks.
pub fn check_may_end(nonatomic: bool, txn: &Transaction, ending: Ending) -> Result<(), SqlError> {
    if !nonatomic {
        return Err(SqlError::new("2D000", "invalid transaction termination"));
    }
    if txn.has_savepoints() {
        let what = match ending.commit {
            true => "commit",
            false => "roll back",
        };
        return Err(SqlError::new(
            "2D000",
            format!("cannot {what} while a subtransaction is active"),
        ));
    }
    Ok(())
}

/// The transaction to follow `txn` in the same session: at `isolation`,
/// READ ONLY if `read_only`, reading `txn`'s cancel flag.
fn next_of(
    cx: &Ctx<'_>,
    txn: &Transaction,
    isolation: Isolation,
    read_only: bool,
) -> Result<Transaction, SqlError> {
    let interrupt = txn
        .interrupt()
        .unwrap_or_else(|| Arc::new(Interrupt::new()));
    let mut next = begin(
        cx.db,
        cx.backend,
        cx.advisory,
        cx.settings,
        interrupt,
        isolation,
    )?;
    next.set_read_only(read_only);
    Ok(next)
}

/// Ends the running transaction `txn` as `ending` asks and begins the
/// next in its place, mid-statement: a COMMIT runs the deferred checks
/// first (their error is the COMMIT's, and `txn` is then left for the
/// statement's end to roll back). The session's relation cache, deferred
/// checks and cursors end with the old transaction; `CURRENT_TIMESTAMP`
/// becomes the new one's start, the statement's timestamp stays.
pub fn restart(cx: &Ctx<'_>, txn: &mut Transaction, ending: Ending) -> Result<(), SqlError> {
    if ending.commit {
        crate::deferred::at_commit(cx, txn)?;
    }
    let (isolation, read_only) = match ending.chain {
        true => (txn.isolation(), txn.is_read_only()),
        false => (
            cx.settings.default_isolation(),
            cx.settings.default_read_only(),
        ),
    };
    let old = std::mem::replace(txn, next_of(cx, txn, isolation, read_only)?);
    let ended = match ending.commit {
        true => commit(cx.db, cx.temp, cx.relations, cx.backend, old),
        false => old.rollback().map_err(SqlError::from),
    };
    cx.deferred.clear();
    cx.relations.end_transaction();
    if let Some(scope) = crate::cursors::current() {
        scope
            .cursors
            .end_transaction(ending.commit && ended.is_ok());
    }
    cx.now.set(crate::datetime::now());
    began(cx, txn);
    ended
}

/// `SET TRANSACTION ISOLATION LEVEL` in a procedure right after its
/// COMMIT or ROLLBACK, before any statement read: nothing has read or
/// written in `txn`, so it begins again at `isolation`, in the access
/// mode it had.
pub fn begin_again(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    isolation: Isolation,
) -> Result<(), SqlError> {
    let read_only = txn.is_read_only();
    std::mem::replace(txn, next_of(cx, txn, isolation, read_only)?).rollback()?;
    began(cx, txn);
    Ok(())
}

/// Tells the statement's settings (`SHOW transaction_isolation`,
/// `current_setting('transaction_read_only')`) what `txn` now is: after
/// a procedure's COMMIT or ROLLBACK, or its SET TRANSACTION.
pub fn began(cx: &Ctx<'_>, txn: &Transaction) {
    crate::setting_functions::transaction_began(crate::settings::OpenTransaction::of(
        txn,
        cx.settings.default_deferrable(),
    ));
}
