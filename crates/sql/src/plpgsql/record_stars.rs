//! `ROW(new.*)` and `VALUES (new.*)` in a PL/pgSQL statement: a record
//! or row variable's `.*` inside a row constructor or a VALUES row
//! stands for each of its fields in turn, as PostgreSQL expands it
//! (`ROW(old.*) = ROW(new.*)` compares field by field; `INSERT INTO t
//! VALUES (new.*)` inserts the fields as columns). Each `v.*` becomes
//! `v.f1, v.f2, ...`, which `exec.rs` then binds as the fields'
//! parameters like any other field reference.

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, ObjectName, Query, SetExpr,
    Statement, VisitMut, VisitorMut, visit_expressions_mut,
};
use std::ops::ControlFlow;

/// The fields `name.*` stands for (`fields` giving a record variable's
/// field names), each as `name."field"`; `None` when `name` is no
/// record variable.
fn fields_of(
    name: &ObjectName,
    fields: &impl Fn(&[String]) -> Option<Vec<String>>,
) -> Option<Vec<Expr>> {
    let parts = crate::names::parts(name)?;
    let idents = (name.0.iter())
        .map(|p| p.as_ident().cloned())
        .collect::<Option<Vec<Ident>>>()?;
    Some(
        fields(&parts)?
            .into_iter()
            .map(|field| {
                let mut path = idents.clone();
                path.push(Ident::with_quote('"', field));
                Expr::CompoundIdentifier(path)
            })
            .collect(),
    )
}

/// Expands the `v.*` items of the VALUES rows it visits.
struct ValuesRows<F>(F);

impl<F: Fn(&[String]) -> Option<Vec<String>>> VisitorMut for ValuesRows<F> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let SetExpr::Values(values) = query.body.as_mut() else {
            return ControlFlow::Continue(());
        };
        for row in &mut values.rows {
            let mut out = Vec::with_capacity(row.len());
            for e in row.drain(..) {
                match &e {
                    Expr::QualifiedWildcard(name, _) if let Some(f) = fields_of(name, &self.0) => {
                        out.extend(f)
                    }
                    _ => out.push(e),
                }
            }
            *row = out;
        }
        ControlFlow::Continue(())
    }
}

/// Rewrites each `ROW(..., v.*, ...)` and VALUES row `(..., v.*, ...)`
/// of `statement` whose `v` names a record variable, `fields` giving that
/// variable's field names.
pub fn expand(statement: &mut Statement, fields: impl Fn(&[String]) -> Option<Vec<String>>) {
    let mut rows = ValuesRows(fields);
    let _ = statement.visit(&mut rows);
    let fields = rows.0;
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
            match fields_of(name, &fields) {
                Some(f) => args.extend(
                    f.into_iter()
                        .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e))),
                ),
                None => args.push(arg),
            }
        }
        list.args = args;
        ControlFlow::Continue(())
    });
}
