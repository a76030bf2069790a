//! `to_json(r)`, `to_jsonb(r)`, `row_to_json(r [, pretty])` of a record
//! or row variable `r` named whole (a trigger's `OLD`): its fields' names
//! become the JSON keys, as in PostgreSQL. folio's row values carry no
//! field names (`json_build.rs`), and `exec.rs` binds a whole record as
//! an anonymous row of parameters, so the call is rewritten first into
//! the same call over a FROM item whose columns are the record's fields:
//! `(SELECT to_json("folio record") FROM (SELECT r."a" AS "a", ...) AS
//! "folio record")`, whose whole-row reference the binder names by its
//! columns (`json_build::bind_record`). Each `r."a"` is then bound as
//! that field's parameter like any other field reference. A record that
//! holds no row (a trigger's `OLD` on INSERT) is left alone: its
//! `to_json` is NULL.

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, Statement, visit_expressions_mut,
};
use std::ops::ControlFlow;

/// The FROM item's name (no variable is named so).
const ITEM: &str = "folio record";

/// Rewrites each JSON call of `statement` over a whole record variable,
/// `fields` giving the field names of the record a name names (`None`:
/// no record variable, or one that holds no row). Whether it rewrote
/// one: the statement then depends on the record's shape and on whether
/// it holds a row, so its plan is not kept for the next run (as a record
/// named whole makes it, `exec.rs`).
pub fn rewrite(
    statement: &mut Statement,
    fields: impl Fn(&[String]) -> Option<Vec<String>>,
) -> bool {
    let mut any = false;
    let _ = visit_expressions_mut(statement, |expr| {
        if let Some(rewritten) = rewritten(expr, &fields) {
            *expr = rewritten;
            any = true;
        }
        ControlFlow::<()>::Continue(())
    });
    any
}

/// `expr` rewritten, if it is a JSON call over a whole record variable.
fn rewritten(expr: &Expr, fields: &impl Fn(&[String]) -> Option<Vec<String>>) -> Option<Expr> {
    let Expr::Function(f) = expr else {
        return None;
    };
    let name = crate::names::function(&f.name);
    if !matches!(name.as_str(), "to_json" | "to_jsonb" | "row_to_json") {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    let path: Vec<Ident> = match list.args.first()? {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(id))) => vec![id.clone()],
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::CompoundIdentifier(ids))) => ids.clone(),
        _ => return None,
    };
    let parts: Vec<String> = path.iter().map(crate::names::ident).collect();
    let names = fields(&parts).filter(|names| !names.is_empty())?;
    let record = (path.iter().map(Ident::to_string))
        .collect::<Vec<_>>()
        .join(".");
    let columns = (names.iter())
        .map(|field| {
            let field = Ident::with_quote('"', field.as_str());
            format!("{record}.{field} AS {field}")
        })
        .collect::<Vec<_>>()
        .join(", ");
    let mut call = f.clone();
    if let FunctionArguments::List(list) = &mut call.args {
        list.args[0] = FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(
            Ident::with_quote('"', ITEM),
        )));
    }
    let item = Ident::with_quote('"', ITEM);
    crate::parse::expression(&format!(
        "(SELECT {call} FROM (SELECT {columns}) AS {item})"
    ))
    .ok()
}
