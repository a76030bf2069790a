//! The functions of the session's transaction: `txid_current()` /
//! `pg_current_xact_id()` and `txid_current_if_assigned()` /
//! `pg_current_xact_id_if_assigned()` (the session's transaction id,
//! folio-txn's top-level `Xid`: a bigint, or an `xid8` for the `pg_`
//! forms), `txid_current_snapshot()` / `pg_current_snapshot()` and
//! `txid_status()` / `pg_xact_status()` (made by `xid_functions.rs`).
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
//! one); the id is folio's 64-bit xid, which never wraps, where
//! PostgreSQL's is its epoch and 32-bit xid in one; a statement assigns the xid before it runs, so an
//! `_if_assigned` call in the same statement already sees it, and so
//! does a call that is never evaluated (`CASE WHEN false THEN
//! txid_current() END`); an `_if_assigned` call in the RETURNING of a
//! transaction's first row change is NULL (PostgreSQL's sees the xid
//! the change took).

use crate::error::SqlError;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Statement, visit_expressions};
use std::ops::ControlFlow;

/// A function of the session's transaction. `legacy`: the `txid_`
/// form, of bigints and `txid_snapshot`; else the `pg_` form, of `xid8`
/// and `pg_snapshot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XactFunc {
    /// `txid_current()`, `pg_current_xact_id()`: the xid, assigned by
    /// the statement if needed.
    Current { legacy: bool },
    /// `txid_current_if_assigned()`, `pg_current_xact_id_if_assigned()`:
    /// the xid, or NULL.
    IfAssigned { legacy: bool },
    /// `txid_current_snapshot()`, `pg_current_snapshot()`: the
    /// statement's snapshot (`xid_functions::current_snapshot`).
    Snapshot { legacy: bool },
    /// `txid_status(bigint)`, `pg_xact_status(xid8)`.
    Status { legacy: bool },
}

const NAMES: [(&str, XactFunc); 8] = [
    ("txid_current", XactFunc::Current { legacy: true }),
    ("pg_current_xact_id", XactFunc::Current { legacy: false }),
    (
        "txid_current_if_assigned",
        XactFunc::IfAssigned { legacy: true },
    ),
    (
        "pg_current_xact_id_if_assigned",
        XactFunc::IfAssigned { legacy: false },
    ),
    ("txid_current_snapshot", XactFunc::Snapshot { legacy: true }),
    ("pg_current_snapshot", XactFunc::Snapshot { legacy: false }),
    ("txid_status", XactFunc::Status { legacy: true }),
    ("pg_xact_status", XactFunc::Status { legacy: false }),
];

impl XactFunc {
    pub fn of(name: &str) -> Option<XactFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    pub fn takes(self, count: usize) -> bool {
        count == usize::from(matches!(self, XactFunc::Status { .. }))
    }

    /// Whether arguments of these types (`None`: untyped) fit.
    pub fn fits(self, types: &[Option<SqlType>]) -> bool {
        types.iter().flatten().all(|t| match self {
            XactFunc::Status { legacy: true } => {
                matches!(t, SqlType::Int2 | SqlType::Int4 | SqlType::Int8)
            }
            _ => *t == SqlType::Xid8,
        })
    }

    pub fn ty(self) -> SqlType {
        match self {
            XactFunc::Current { legacy } | XactFunc::IfAssigned { legacy } => {
                crate::xid_functions::id_type(legacy)
            }
            XactFunc::Snapshot { legacy } => crate::xid_functions::snapshot_type(legacy),
            XactFunc::Status { .. } => SqlType::Text,
        }
    }

    /// Its value in the session whose entry is `backend`, of `args`.
    pub fn call(
        self,
        backend: &crate::backend::SessionBackend,
        args: &[Value],
    ) -> Result<Value, SqlError> {
        let xid = backend.backend().interrupt().xid();
        let mgr = backend.database().txns();
        match (self, xid) {
            (XactFunc::Snapshot { legacy }, _) => {
                let mut statement = backend.statement_snapshot();
                let Some(csn) = statement.csn else {
                    return Err(outside_statement());
                };
                let snapshot = match &statement.made {
                    Some((made_with, s)) if *made_with == xid => s.clone(),
                    _ => {
                        let s = crate::xid_functions::current_snapshot(mgr, csn, xid)?;
                        statement.made = Some((xid, s.clone()));
                        s
                    }
                };
                Ok(Value::Snapshot(Box::new(folio_row::XidSnapshot {
                    legacy,
                    ..snapshot
                })))
            }
            (XactFunc::Status { legacy }, _) => {
                let x = match crate::types::cast(
                    args[0].clone(),
                    crate::xid_functions::id_type(legacy),
                )? {
                    Value::Xid8(x) => x,
                    Value::Int8(x) => x as u64,
                    _ => return Ok(Value::Null),
                };
                crate::xid_functions::status(mgr, x, xid)
            }
            (XactFunc::Current { legacy } | XactFunc::IfAssigned { legacy }, Some(xid)) => {
                Ok(crate::xid_functions::id_value(xid, legacy))
            }
            (XactFunc::IfAssigned { .. }, None) => Ok(Value::Null),
            // (`Plan::run` assigned it, unless nothing runs the plan.)
            (XactFunc::Current { .. }, None) => Err(outside_statement()),
        }
    }
}

/// A call evaluated where no statement assigned the xid first or set
/// its snapshot (a column default, a constraint).
pub fn outside_statement() -> SqlError {
    SqlError::unsupported("a transaction id function outside a query or row change")
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
                    matches!(
                        XactFunc::of(&id.value.to_ascii_lowercase()),
                        Some(XactFunc::Current { .. })
                    )
                }) =>
        {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    });
    found.is_break()
}
