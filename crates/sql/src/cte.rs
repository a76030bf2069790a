//! `WITH name [(columns)] AS (query), ... query`: common table
//! expressions, inlined. Each FROM item naming a CTE becomes that CTE's
//! query as a subquery in FROM, with the CTE's name (or the item's alias)
//! and column names; a later CTE may name an earlier one; subqueries see
//! them too. This is what PostgreSQL (12 and later) does with a CTE that
//! is not `MATERIALIZED` and has no side effects; a CTE named several
//! times is so run several times (PostgreSQL would compute it once).
//! In a `WITH RECURSIVE`, a CTE that names itself is not inlined: it is
//! returned, to be planned where it is named (`recursive.rs`); the others
//! are inlined as without RECURSIVE. `MATERIALIZED` and data-modifying
//! CTEs are 0A000.

use crate::error::SqlError;
use crate::names;
use crate::recursive::Cte;
use sqlparser::ast::{
    Cte as Definition, ObjectNamePart, Query, SetExpr, TableAlias, TableFactor, VisitMut,
    VisitorMut, With,
};
use std::ops::ControlFlow;

/// `query` without its WITH: the CTEs inlined where they are named, and
/// the recursive ones (a `WITH RECURSIVE`'s CTEs that name themselves).
pub fn inline(query: &Query) -> Result<(Query, Vec<Cte>), SqlError> {
    let mut out = query.clone();
    let Some(With {
        recursive,
        cte_tables,
        ..
    }) = out.with.take()
    else {
        return Ok((out, Vec::new()));
    };
    let mut recursive_ctes: Vec<Cte> = Vec::new();
    let mut defined: Vec<(String, Definition)> = Vec::with_capacity(cte_tables.len());
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
        if defined.iter().any(|(n, _)| *n == name)
            || recursive_ctes.iter().any(|c| c.name() == name)
        {
            return Err(SqlError::new(
                "42712",
                format!("WITH query name \"{name}\" specified more than once"),
            ));
        }
        // A CTE sees the ones before it.
        substitute(&mut cte.query, &defined)?;
        if recursive && let Some(r) = crate::recursive::Cte::of(&name, &cte.alias, &cte.query)? {
            recursive_ctes.push(r);
            continue;
        }
        defined.push((name, cte));
    }
    substitute(&mut out, &defined)?;
    Ok((out, recursive_ctes))
}

/// Replaces the FROM items of `query` (and its subqueries) that name one
/// of `ctes` by its query (after visiting them: a CTE's query naming a
/// table of its own name means the table, and is not visited again).
fn substitute(query: &mut Query, ctes: &[(String, Definition)]) -> Result<(), SqlError> {
    struct Inline<'a>(&'a [(String, Definition)]);
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
