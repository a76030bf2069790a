//! Assignment to subscripts of a variable or a record's field:
//! `a[i] := x`, `a[i][j] := x`, `a[l:u] := array`, `r.f[i] := x`, as
//! PostgreSQL 14+ reads them: the target as an UPDATE's SET target.
//!
//! The value such an assignment gives the variable is SQL's: the array
//! after `SET a[...] = (x)` (`array_assignment.rs`, whose rules for the
//! subscripts, the value's type and the array made are `array_set.rs`'s;
//! a `jsonb` variable takes `json_subscripts.rs`'s). [`value`] reads the
//! assignment as `UPDATE "$plpgsql" SET "$target"[...] = (x)` with
//! folio's parser, which rewrites the subscripted target to a call, and
//! gives that call over the variable as a `SELECT`: the statement is
//! then a plain assignment of it to the variable (`Stmt::Assign`), which
//! keeps the variable's type, NOT NULL and domain.

use crate::error::SqlError;
use crate::parse::Parsed;
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, SelectItem, SetExpr, Statement,
};

/// The name the target stands under while its SET item is read.
const TARGET: &str = "$target";

/// `SELECT <target after target{subscripts} := value>`: the statement
/// whose value `target` (a variable or `record.field`, as written)
/// takes; `subscripts` and `value` are the texts after the target and
/// after `:=`.
pub fn value(target: &[String], subscripts: &str, value: &str) -> Result<Parsed, SqlError> {
    let update = format!("UPDATE \"$plpgsql\" SET \"{TARGET}\"{subscripts} = ({value})");
    let mut expr = match one(&update)? {
        Statement::Update { assignments, .. } if assignments.len() == 1 => {
            assignments.into_iter().next().expect("one").value
        }
        _ => {
            return Err(SqlError::syntax(format!(
                "syntax error at or near \"{value}\""
            )));
        }
    };
    // The call's base (its second argument) is the target.
    let base = match &mut expr {
        Expr::Function(f) => match &mut f.args {
            FunctionArguments::List(list) => match list.args.get_mut(1) {
                Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(base))) => Some(base),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let Some(base) = base.filter(|b| matches!(b, Expr::Identifier(i) if i.value == TARGET)) else {
        return Err(SqlError::syntax(format!(
            "syntax error at or near \"{subscripts}\""
        )));
    };
    let idents: Vec<Ident> = target.iter().map(|p| Ident::with_quote('"', p)).collect();
    *base = match idents.len() {
        1 => Expr::Identifier(idents.into_iter().next().expect("one")),
        _ => Expr::CompoundIdentifier(idents),
    };
    let mut select = one("SELECT NULL")?;
    if let Statement::Query(query) = &mut select
        && let SetExpr::Select(s) = &mut *query.body
    {
        s.projection = vec![SelectItem::UnnamedExpr(expr)];
    }
    Ok(Parsed::Sql(Box::new(select)))
}

/// The one SQL statement `sql` is.
fn one(sql: &str) -> Result<Statement, SqlError> {
    match crate::parse::statements(sql)?.pop() {
        Some(Parsed::Sql(statement)) => Ok(*statement),
        _ => Err(SqlError::syntax("syntax error at end of input")),
    }
}
