//! `WITH name [(columns)] AS (query), ... query`: common table
//! expressions, inlined. Each FROM item naming a CTE becomes that CTE's
//! query as a subquery in FROM, with the CTE's name (or the item's alias)
//! and column names; a later CTE may name an earlier one; subqueries see
//! them too. This is what PostgreSQL (12 and later) does with a CTE that
//! is not `MATERIALIZED` and has no side effects; a CTE named several
//! times is so run several times (PostgreSQL would compute it once).
//! `WITH RECURSIVE`, `MATERIALIZED` and data-modifying CTEs are 0A000.

use crate::error::SqlError;
use crate::names;
use sqlparser::ast::{
    Cte, ObjectNamePart, Query, SetExpr, TableAlias, TableFactor, VisitMut, VisitorMut, With,
};
use std::ops::ControlFlow;

/// `query` without its WITH: the CTEs inlined where they are named.
pub fn inline(query: &Query) -> Result<Query, SqlError> {
    let mut out = query.clone();
    let Some(With {
        recursive,
        cte_tables,
        ..
    }) = out.with.take()
    else {
        return Ok(out);
    };
    if recursive {
        return Err(SqlError::unsupported("WITH RECURSIVE"));
    }
    let mut defined: Vec<(String, Cte)> = Vec::with_capacity(cte_tables.len());
    for mut cte in cte_tables {
        if cte.materialized.is_some() || cte.from.is_some() {
            return Err(SqlError::unsupported(format!(
                "the common table expression {cte}"
            )));
        }
        if !matches!(
            cte.query.body.as_ref(),
            SetExpr::Select(_) | SetExpr::SetOperation { .. } | SetExpr::Query(_)
        ) {
            return Err(SqlError::unsupported(
                "a WITH query that is not a SELECT (data-modifying CTEs)",
            ));
        }
        let name = names::ident(&cte.alias.name);
        if defined.iter().any(|(n, _)| *n == name) {
            return Err(SqlError::new(
                "42712",
                format!("WITH query name \"{name}\" specified more than once"),
            ));
        }
        // A CTE sees the ones before it.
        substitute(&mut cte.query, &defined)?;
        defined.push((name, cte));
    }
    substitute(&mut out, &defined)?;
    Ok(out)
}

/// Replaces the FROM items of `query` (and its subqueries) that name one
/// of `ctes` by its query (after visiting them: a CTE's query naming a
/// table of its own name means the table, and is not visited again).
fn substitute(query: &mut Query, ctes: &[(String, Cte)]) -> Result<(), SqlError> {
    struct Inline<'a>(&'a [(String, Cte)]);
    impl VisitorMut for Inline<'_> {
        type Break = ();
        fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
            let TableFactor::Table {
                name,
                alias,
                args: None,
                ..
            } = factor
            else {
                return ControlFlow::Continue(());
            };
            let [ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
                return ControlFlow::Continue(());
            };
            let wanted = names::ident(id);
            let Some((_, cte)) = self.0.iter().find(|(n, _)| *n == wanted) else {
                return ControlFlow::Continue(());
            };
            let alias = match alias.take() {
                Some(a) if a.columns.is_empty() => TableAlias {
                    name: a.name,
                    columns: cte.alias.columns.clone(),
                },
                Some(a) => a,
                None => cte.alias.clone(),
            };
            *factor = TableFactor::Derived {
                lateral: false,
                subquery: cte.query.clone(),
                alias: Some(alias),
            };
            ControlFlow::Continue(())
        }
    }
    let _ = query.visit(&mut Inline(ctes));
    Ok(())
}
