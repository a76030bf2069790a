//! `ROW(new.*)` in a PL/pgSQL statement: a record or row variable's `.*`
//! inside a row constructor stands for each of its fields in turn, as
//! PostgreSQL expands it (`ROW(old.*) = ROW(new.*)` compares field by
//! field). Each `v.*` becomes `v.f1, v.f2, ...`, which `exec.rs` then
//! binds as the fields' parameters like any other field reference.

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, Statement, visit_expressions_mut,
};
use std::ops::ControlFlow;

/// Rewrites each `ROW(..., v.*, ...)` of `statement` whose `v` names a
/// record variable, `fields` giving that variable's field names.
pub fn expand(statement: &mut Statement, fields: impl Fn(&[String]) -> Option<Vec<String>>) {
    let _ = visit_expressions_mut(statement, |expr| {
        let Expr::Function(f) = expr else {
            return ControlFlow::<()>::Continue(());
        };
        if !(f.name.0.len() == 1 && crate::names::function(&f.name) == "row") {
            return ControlFlow::Continue(());
        }
        let FunctionArguments::List(list) = &mut f.args else {
            return ControlFlow::Continue(());
        };
        let mut args = Vec::with_capacity(list.args.len());
        for arg in std::mem::take(&mut list.args) {
            let FunctionArg::Unnamed(FunctionArgExpr::QualifiedWildcard(name)) = &arg else {
                args.push(arg);
                continue;
            };
            let (Some(parts), Some(idents)) = (
                crate::names::parts(name),
                (name.0.iter())
                    .map(|p| p.as_ident().cloned())
                    .collect::<Option<Vec<Ident>>>(),
            ) else {
                args.push(arg);
                continue;
            };
            match fields(&parts) {
                Some(fields) => args.extend(fields.into_iter().map(|field| {
                    let mut path = idents.clone();
                    path.push(Ident::with_quote('"', field));
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::CompoundIdentifier(path)))
                })),
                None => args.push(arg),
            }
        }
        list.args = args;
        ControlFlow::Continue(())
    });
}
