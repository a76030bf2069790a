//! Which unqualified names inside the subqueries of an INSERT, UPDATE or
//! DELETE on a view are the view's columns (README "Views"): the one
//! owner of that resolution for the view rewrite (`updatable_views.rs`).
//!
//! SQL resolves a name in a subquery against the subquery's own FROM
//! items first, then against each enclosing query's, outward. The
//! rewrite of a statement on a view replaces the view's columns by their
//! expressions over the base relation, so a correlated reference to a
//! view column (`where exists (select 1 from t2 where t2.x = b)`, `b` the
//! view's) must be found before the planner sees it: the planner would
//! otherwise bind `b` to the base relation's column of that name, or to
//! none. [`qualify`] writes each such name as `q.b` (`q` the name the
//! statement knows the view by), which the rewrite then substitutes as
//! any qualified reference.
//!
//! A name is the view's when no FROM item of a query between it and the
//! statement has a column of that name. The columns of a FROM item are
//! its alias's column list, a table's or view's columns (asked of the
//! catalog through the rewrite's `ColumnsOf`), or a derived table's
//! select list names; a FROM item whose columns cannot be known so (a
//! function, a CTE, a derived table with `*`) may have any name, so a
//! name under it is left as written.

use crate::error::SqlError;
use crate::names;
use sqlparser::ast::{
    Expr, Ident, Query, SelectItem, SetExpr, TableFactor, TableWithJoins, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;

/// The column names of relation `name` (`None`: not a table or view).
pub type ColumnsOf<'a> = dyn Fn(&str) -> Result<Option<Vec<String>>, SqlError> + 'a;

/// The names a query's FROM items make visible to the expressions in it
/// (`None`: any name may be one).
type Visible = Option<Vec<String>>;

/// Writes each unqualified name in `e`'s subqueries that is one of
/// `columns` (the view's) and that no FROM item between it and `e` has,
/// as `qualifier.name`. Names outside subqueries are left alone (the
/// rewrite takes them as the view's directly).
pub fn qualify<V: VisitMut>(
    e: &mut V,
    columns_of: &ColumnsOf<'_>,
    columns: &[String],
    qualifier: &str,
) -> Result<(), SqlError> {
    let mut pass = Qualify {
        columns_of,
        columns,
        qualifier,
        scopes: Vec::new(),
        error: None,
    };
    let _ = e.visit(&mut pass);
    match pass.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct Qualify<'a> {
    columns_of: &'a ColumnsOf<'a>,
    columns: &'a [String],
    qualifier: &'a str,
    /// The visible names of each subquery `e` is in, outermost first.
    scopes: Vec<Visible>,
    error: Option<SqlError>,
}

impl Qualify<'_> {
    /// The names `query`'s FROM items (of each SELECT of its body) make
    /// visible.
    fn visible(&self, query: &Query) -> Result<Visible, SqlError> {
        let mut out = Vec::new();
        if query.with.is_some() {
            // A CTE's columns are known only by planning it.
            return Ok(None);
        }
        let mut bodies = vec![query.body.as_ref()];
        while let Some(body) = bodies.pop() {
            match body {
                SetExpr::Select(select) => {
                    // (ORDER BY may name the select list's aliases.)
                    out.extend(select.projection.iter().filter_map(|item| match item {
                        SelectItem::ExprWithAlias { alias, .. } => Some(names::ident(alias)),
                        _ => None,
                    }));
                    for item in &select.from {
                        if !self.item_names(item, &mut out)? {
                            return Ok(None);
                        }
                    }
                }
                SetExpr::SetOperation { left, right, .. } => {
                    bodies.push(left);
                    bodies.push(right);
                }
                SetExpr::Query(q) => match self.visible(q)? {
                    Some(names) => out.extend(names),
                    None => return Ok(None),
                },
                _ => {}
            }
        }
        Ok(Some(out))
    }

    /// Adds the columns of `item`'s relations to `out`; false when one's
    /// columns cannot be known.
    fn item_names(&self, item: &TableWithJoins, out: &mut Vec<String>) -> Result<bool, SqlError> {
        for factor in std::iter::once(&item.relation).chain(item.joins.iter().map(|j| &j.relation))
        {
            let alias_columns = |alias: &Option<sqlparser::ast::TableAlias>| {
                (alias.as_ref())
                    .filter(|a| !a.columns.is_empty())
                    .map(|a| a.columns.iter().map(|c| names::ident(&c.name)).collect())
            };
            let names: Option<Vec<String>> = match factor {
                TableFactor::Table { name, alias, .. } => match alias_columns(alias) {
                    Some(listed) => Some(listed),
                    None => match names::relation(name) {
                        Ok(relation) => (self.columns_of)(&relation).unwrap_or(None),
                        Err(_) => None,
                    },
                },
                TableFactor::Derived {
                    subquery, alias, ..
                } => alias_columns(alias).or_else(|| select_names(subquery)),
                TableFactor::NestedJoin {
                    table_with_joins, ..
                } => {
                    if !self.item_names(table_with_joins, out)? {
                        return Ok(false);
                    }
                    Some(Vec::new())
                }
                _ => None,
            };
            match names {
                Some(names) => out.extend(names),
                None => return Ok(false),
            }
        }
        Ok(true)
    }

    /// Whether a subquery between the name and the statement has a column
    /// named `name` (or may have).
    fn shadowed(&self, name: &str) -> bool {
        (self.scopes.iter()).any(|s| {
            s.as_ref()
                .is_none_or(|names| names.iter().any(|n| n == name))
        })
    }
}

/// The output names of a query's select list (`None` when one is `*`).
fn select_names(query: &Query) -> Option<Vec<String>> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    (select.projection.iter())
        .map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(names::ident(alias)),
            SelectItem::UnnamedExpr(Expr::Identifier(id)) => Some(names::ident(id)),
            SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) => {
                parts.last().map(names::ident)
            }
            SelectItem::UnnamedExpr(_) => Some("?column?".to_string()),
            _ => None,
        })
        .collect()
}

impl VisitorMut for Qualify<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        match self.visible(query) {
            Ok(visible) => self.scopes.push(visible),
            Err(e) => {
                self.error = Some(e);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.scopes.pop();
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Expr::Identifier(id) = e
            && !self.scopes.is_empty()
        {
            let name = names::ident(id);
            if self.columns.contains(&name) && !self.shadowed(&name) {
                *e = Expr::CompoundIdentifier(vec![
                    Ident::with_quote('"', self.qualifier),
                    Ident::with_quote('"', name),
                ]);
            }
        }
        ControlFlow::Continue(())
    }
}
