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
    Cte as Definition, FromTable, ObjectName, ObjectNamePart, Query, SetExpr, Statement,
    TableAlias, TableFactor, VisitMut, VisitorMut, With,
};
use std::ops::ControlFlow;

/// `query` without its WITH: the CTEs inlined where they are named, and
/// the recursive ones (a `WITH RECURSIVE`'s CTEs that name themselves).
pub fn inline(query: &Query) -> Result<(Query, Vec<Cte>), SqlError> {
    let mut out = query.clone();
    let Some(with) = out.with.take() else {
        return Ok((out, Vec::new()));
    };
    let (defined, recursive_ctes) = definitions(with)?;
    substitute(&mut out, &defined)?;
    Ok((out, recursive_ctes))
}

/// The row change a `WITH ... INSERT | UPDATE | DELETE` runs, its CTEs
/// inlined where its source, FROM / USING items and subqueries name them
/// (never in place of its target, which is always a table, as
/// PostgreSQL's); `None` when `query`'s body is not a row change.
pub fn inline_change(query: &Query) -> Result<Option<Statement>, SqlError> {
    let (SetExpr::Insert(change) | SetExpr::Update(change) | SetExpr::Delete(change)) =
        query.body.as_ref()
    else {
        return Ok(None);
    };
    if query.order_by.is_some() || query.limit_clause.is_some() || query.fetch.is_some() {
        return Err(SqlError::syntax(format!("syntax error in {query}")));
    }
    let mut change = change.clone();
    let Some(with) = query.with.clone() else {
        return Ok(Some(change));
    };
    let (defined, recursive) = definitions(with)?;
    if !recursive.is_empty() {
        return Err(SqlError::unsupported(
            "a recursive WITH query in an INSERT, UPDATE or DELETE",
        ));
    }
    let target = match &mut change {
        Statement::Update { table, .. } => Some(&mut table.relation),
        Statement::Delete(delete) => match &mut delete.from {
            FromTable::WithFromKeyword(items) | FromTable::WithoutKeyword(items) => {
                items.first_mut().map(|item| &mut item.relation)
            }
        },
        _ => None,
    };
    // The target is kept out of the substitution.
    let kept = target.map(|t| std::mem::replace(t, placeholder()));
    let _ = change.visit(&mut Inline::new(&defined));
    if let Some(kept) = kept {
        match &mut change {
            Statement::Update { table, .. } => table.relation = kept,
            Statement::Delete(delete) => match &mut delete.from {
                FromTable::WithFromKeyword(items) | FromTable::WithoutKeyword(items) => {
                    items[0].relation = kept;
                }
            },
            _ => {}
        }
    }
    Ok(Some(change))
}

/// A CTE that is not recursive, by its name.
type Named = (String, Definition);

/// A FROM item no CTE names, to stand for a change's target meanwhile.
fn placeholder() -> TableFactor {
    crate::query::table_factor(ObjectName(Vec::new()), None, None)
}

/// A WITH's CTEs in order, each with the earlier ones inlined in its
/// query, and its recursive ones apart.
fn definitions(with: With) -> Result<(Vec<Named>, Vec<Cte>), SqlError> {
    let With {
        recursive,
        cte_tables,
        ..
    } = with;
    // A recursive WITH's items may name later ones: each is taken
    // after those it names.
    let cte_tables = match recursive {
        true => crate::recursive_form::dependency_order(cte_tables)?,
        false => cte_tables,
    };
    let mut recursive_ctes: Vec<Cte> = Vec::new();
    let mut defined: Vec<Named> = Vec::with_capacity(cte_tables.len());
    for mut cte in cte_tables {
        if cte.materialized.is_some() || cte.from.is_some() {
            return Err(SqlError::unsupported(format!(
                "the common table expression {cte}"
            )));
        }
        if matches!(
            cte.query.body.as_ref(),
            SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_)
        ) {
            // (At the top level, `modifying_cte.rs` plans them.)
            return Err(SqlError::new(
                "0A000",
                "WITH clause containing a data-modifying statement must be at the top level",
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
    Ok((defined, recursive_ctes))
}

/// Replaces the FROM items of `query` (and its subqueries) that name one
/// of `ctes` by its query (after visiting them: a CTE's query naming a
/// table of its own name means the table, and is not visited again).
fn substitute(query: &mut Query, ctes: &[(String, Definition)]) -> Result<(), SqlError> {
    let _ = query.visit(&mut Inline::new(ctes));
    Ok(())
}

/// The visitor of [`substitute`]: the CTEs, and for each query around
/// the visit the names of theirs its own WITH defines again (inside it
/// such a name is that inner CTE, inlined when that query is planned).
struct Inline<'a> {
    ctes: &'a [(String, Definition)],
    hidden: Vec<Vec<String>>,
}
impl<'a> Inline<'a> {
    fn new(ctes: &'a [(String, Definition)]) -> Inline<'a> {
        Inline {
            ctes,
            hidden: Vec::new(),
        }
    }
}
impl VisitorMut for Inline<'_> {
    type Break = ();
    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let shadowed = (self.ctes.iter())
            .filter(|(n, _)| crate::recursive_form::shadows(query, n))
            .map(|(n, _)| n.clone())
            .collect();
        self.hidden.push(shadowed);
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _query: &mut Query) -> ControlFlow<()> {
        self.hidden.pop();
        ControlFlow::Continue(())
    }
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
        let Some((_, cte)) = self.ctes.iter().find(|(n, _)| *n == wanted) else {
            return ControlFlow::Continue(());
        };
        if self.hidden.iter().flatten().any(|n| *n == wanted) {
            return ControlFlow::Continue(());
        }
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
