//! PostgreSQL's check, when a body is compiled (CREATE FUNCTION's
//! validator, a DO block before it runs), that each `GET [STACKED]
//! DIAGNOSTICS` target is a scalar variable: one that resolves to a row
//! or record (a composite or `record` parameter, a `record`,
//! `%ROWTYPE` or composite-typed DECLARE, a trigger's `NEW` / `OLD`, an
//! alias of one) is 42601 `"x" is not a scalar variable`. Names resolve
//! through `body_scopes`; a name of no variable is left to the run.

use super::body_scopes::{self, Origin, Scopes, Visitor};
use super::parse::{Block, DeclType, Stmt};
use crate::error::SqlError;
use folio_catalog::FunctionDef;
use folio_row::SqlType;

/// Checks routine `def`'s body `block`.
pub fn check(def: &FunctionDef, block: &Block) -> Result<(), SqlError> {
    body_scopes::walk(def, block, &mut Targets)
}

struct Targets;

impl<'b> Visitor<'b> for Targets {
    fn statement(&mut self, scopes: &Scopes<'b>, stmt: &'b Stmt) -> Result<(), SqlError> {
        let (Stmt::GetDiagnostics(items) | Stmt::GetStackedDiagnostics(items)) = stmt else {
            return Ok(());
        };
        for (var, _) in items {
            if body_scopes::resolve(scopes, var).is_some_and(|v| is_row(v.origin)) {
                return Err(SqlError::syntax(format!(
                    "\"{var}\" is not a scalar variable"
                )));
            }
        }
        Ok(())
    }
}

/// Whether a variable of `origin` is a row or record one.
fn is_row(origin: Origin<'_>) -> bool {
    let composite = |t: SqlType| matches!(t, SqlType::Composite(_) | SqlType::Record);
    match origin {
        Origin::Parameter(oid, typmod) => {
            crate::user_types::of_oid(oid, typmod).is_some_and(composite)
        }
        Origin::Declared(DeclType::Record | DeclType::RowType(_)) | Origin::TriggerRow => true,
        Origin::Declared(DeclType::Type(ty)) => crate::types::column_type(ty).is_ok_and(composite),
        Origin::Declared(_) | Origin::Counter | Origin::Special => false,
    }
}
