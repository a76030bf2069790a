//! `txid_current()` / `pg_current_xact_id()` and
//! `txid_current_if_assigned()` / `pg_current_xact_id_if_assigned()`: the
//! session's transaction id (folio-txn's top-level `Xid`), as a bigint.
//!
//! folio assigns an xid at a transaction's first write (folio-txn
//! README, "Identifiers"). `txid_current()` asks for one as a write
//! would: a statement that calls it (or a view or SQL function it
//! expands) takes the transaction's top-level xid before it runs
//! ([`assigns`], `Plan::run`; in a savepoint too, the top-level one, as
//! PostgreSQL's), so every call gives the same id for the rest of the
//! transaction and a later transaction's is larger. The `_if_assigned`
//! forms assign nothing: NULL until the transaction has written (or
//! called `txid_current()`). Both read the id the session's entry
//! publishes (the `Interrupt`'s, which `pg_stat_activity.backend_xid`
//! shows) at the call.
//!
//! Differences from PostgreSQL: a READ ONLY transaction never has an xid
//! in folio, so `txid_current()` there is 25006 (PostgreSQL assigns
//! one); the id is folio's 64-bit xid, not PostgreSQL's epoch and
//! 32-bit xid, and `pg_current_xact_id()` is a bigint, as folio has no
//! `xid8` type; a statement assigns the xid before it runs, so an
//! `_if_assigned` call in the same statement already sees it, and so
//! does a call that is never evaluated (`CASE WHEN false THEN
//! txid_current() END`); an `_if_assigned` call in the RETURNING of a
//! transaction's first row change is NULL (PostgreSQL's sees the xid
//! the change took).

use crate::error::SqlError;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Statement, visit_expressions};
use std::ops::ControlFlow;

/// A transaction id function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XactFunc {
    /// `txid_current()`, `pg_current_xact_id()`: the xid, assigned by
    /// the statement if needed.
    Current,
    /// `txid_current_if_assigned()`, `pg_current_xact_id_if_assigned()`:
    /// the xid, or NULL.
    IfAssigned,
}

const NAMES: [(&str, XactFunc); 4] = [
    ("txid_current", XactFunc::Current),
    ("pg_current_xact_id", XactFunc::Current),
    ("txid_current_if_assigned", XactFunc::IfAssigned),
    ("pg_current_xact_id_if_assigned", XactFunc::IfAssigned),
];

impl XactFunc {
    pub fn of(name: &str) -> Option<XactFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    pub fn takes(self, count: usize) -> bool {
        count == 0
    }

    pub fn ty(self) -> SqlType {
        SqlType::Int8
    }

    /// Its value in the session whose entry is `backend`.
    pub fn call(self, backend: &crate::backend::SessionBackend) -> Result<Value, SqlError> {
        let xid = backend.backend().interrupt().xid();
        match (self, xid) {
            (_, Some(xid)) => Ok(Value::Int8(xid as i64)),
            (XactFunc::IfAssigned, None) => Ok(Value::Null),
            // (`Plan::run` assigned it, unless nothing runs the plan.)
            (XactFunc::Current, None) => Err(outside_statement()),
        }
    }
}

/// A call evaluated where no statement assigned the xid first (a
/// column default, a constraint).
pub fn outside_statement() -> SqlError {
    SqlError::unsupported("txid_current() outside a query or row change")
}

/// The error when `txid_current()` would assign an xid to a READ ONLY
/// transaction.
pub fn read_only() -> SqlError {
    SqlError::new(
        "25006",
        "cannot execute txid_current() in a read-only transaction",
    )
}

/// Whether `statement` calls a function that assigns the xid.
pub fn assigns(statement: &Statement) -> bool {
    let found = visit_expressions(statement, |expr| match expr {
        Expr::Function(f)
            if f.name
                .0
                .last()
                .and_then(|p| p.as_ident())
                .is_some_and(|id| {
                    XactFunc::of(&id.value.to_ascii_lowercase()) == Some(XactFunc::Current)
                }) =>
        {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    });
    found.is_break()
}
