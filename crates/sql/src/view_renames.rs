//! Renames that views follow (README "Views"): the one owner of
//! rewriting a view's stored query when a relation it reads, or a column
//! of one, gets a new name.
//!
//! PostgreSQL keeps a view as a query tree that names relations and
//! columns by oid and number, so a rename changes nothing in it and
//! `pg_get_viewdef` prints the new names. folio keeps the query as SQL
//! text, so after `ALTER ... RENAME TO`, `RENAME COLUMN` or `SET SCHEMA`
//! the text of each view that reads the relation is rewritten here to
//! name what it named before:
//!
//! - a relation: each FROM item naming it names the new name; each
//!   reference qualified by the old bare name (`v.c`) is qualified by the
//!   new one;
//! - a column: in each SELECT whose FROM names the relation (by the name
//!   `q` it is known by there: its alias, else its bare name), `q.old`
//!   becomes `q.new` anywhere below, and an unqualified `old` at that
//!   SELECT's own level becomes `q.new` (it was the relation's: another
//!   FROM item's column of the name would have made it ambiguous); a
//!   select item that was such a reference keeps its output name (`q.new
//!   AS old`).
//!
//! The caller (`ddl::alter_table`) then plans every dependent view again
//! (`views::check_after_alter`): a text this rewrite got wrong fails the
//! ALTER rather than a later query.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::subquery_depth::{InSubqueries, Nested};
use folio_db::Transaction;
use sqlparser::ast::{
    Expr, JoinConstraint, JoinOperator, ObjectName, ObjectNamePart, Query, Select, SelectItem,
    SetExpr, TableAlias, TableAliasColumnDef, TableFactor, TableWithJoins, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;

/// What was renamed: relation `old` (a catalog name) now `new`, or its
/// column.
#[derive(Debug, Clone, Copy)]
pub enum Renamed<'a> {
    Relation {
        old: &'a str,
        new: &'a str,
    },
    Column {
        relation: &'a str,
        old: &'a str,
        new: &'a str,
    },
}

/// Rewrites the stored query of each view and materialized view that
/// reads relation `oid` after `renamed`.
pub fn follow(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    oid: u64,
    renamed: Renamed<'_>,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    // (A column's relation's columns now, for the alias a join by name
    // needs.)
    let columns = match renamed {
        Renamed::Relation { .. } => Vec::new(),
        Renamed::Column { relation, .. } => match catalog.table(txn, relation)? {
            Some(def) => def.columns.iter().map(|c| c.name.clone()).collect(),
            None => (catalog.view(txn, relation)?)
                .map(|v| v.def.columns.iter().map(|c| c.name.clone()).collect())
                .unwrap_or_default(),
        },
    };
    for view in catalog.dependent_views(txn, oid)? {
        let mut query = crate::views::parse_query(&view)?;
        rewrite(&mut query, renamed, &columns);
        let text = crate::views::stored_text(&query);
        if text != view.query {
            catalog.set_view_query(txn, &view.name, &text)?;
        }
    }
    Ok(())
}

/// `query` with `renamed` followed (`columns`: the renamed column's
/// relation's columns now; empty: unknown).
fn rewrite(query: &mut Query, renamed: Renamed<'_>, columns: &[String]) {
    match renamed {
        Renamed::Relation { old, new } => {
            let _ = query.visit(&mut RelationPass { old, new });
        }
        Renamed::Column { relation, old, new } => {
            let _ = query.visit(&mut ColumnPass {
                relation,
                old,
                new,
                columns,
            });
        }
    }
}

/// A catalog name as SQL names it (`s.v`, or bare for `public`).
fn written_name(name: &str) -> ObjectName {
    ObjectName(
        (name.split('.'))
            .map(|p| ObjectNamePart::Identifier(names::written(p)))
            .collect(),
    )
}

struct RelationPass<'a> {
    old: &'a str,
    new: &'a str,
}

impl VisitorMut for RelationPass<'_> {
    type Break = ();

    fn pre_visit_relation(&mut self, name: &mut ObjectName) -> ControlFlow<()> {
        if names::relation(name).is_ok_and(|n| n == self.old) {
            *name = written_name(self.new);
        }
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let old = folio_catalog::unqualified(self.old);
        let new = folio_catalog::unqualified(self.new);
        if let Expr::CompoundIdentifier(parts) = e
            && parts.len() >= 2
        {
            let prefix = ObjectName(
                (parts[..parts.len() - 1].iter())
                    .map(|p| ObjectNamePart::Identifier(p.clone()))
                    .collect(),
            );
            if names::relation(&prefix).is_ok_and(|n| n == self.old || n == old) {
                let last = parts.last().expect("two parts").clone();
                *parts = vec![names::written(new), last];
            }
        }
        ControlFlow::Continue(())
    }
}

struct ColumnPass<'a> {
    relation: &'a str,
    old: &'a str,
    new: &'a str,
    columns: &'a [String],
}

/// Whether a join of `from` matches columns by name with `old` among
/// them (`USING (..., old, ...)`, or NATURAL).
fn joins_by_name(from: &[TableWithJoins], old: &str) -> bool {
    from.iter().any(|t| {
        let nested = |f: &TableFactor| match f {
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => joins_by_name(std::slice::from_ref(table_with_joins), old),
            _ => false,
        };
        nested(&t.relation)
            || t.joins.iter().any(|j| {
                nested(&j.relation)
                    || match join_constraint(&j.join_operator) {
                        Some(JoinConstraint::Natural) => true,
                        Some(JoinConstraint::Using(names)) => names
                            .iter()
                            .any(|n| names::relation(n).is_ok_and(|n| n == old)),
                        _ => false,
                    }
            })
    })
}

/// A join's constraint, for the join kinds that have one.
pub(crate) fn join_constraint(op: &JoinOperator) -> Option<&JoinConstraint> {
    match op {
        JoinOperator::Join(c)
        | JoinOperator::Inner(c)
        | JoinOperator::Left(c)
        | JoinOperator::LeftOuter(c)
        | JoinOperator::Right(c)
        | JoinOperator::RightOuter(c)
        | JoinOperator::FullOuter(c) => Some(c),
        _ => None,
    }
}

/// [`join_constraint`], to change it in place.
pub(crate) fn join_constraint_mut(op: &mut JoinOperator) -> Option<&mut JoinConstraint> {
    match op {
        JoinOperator::Join(c)
        | JoinOperator::Inner(c)
        | JoinOperator::Left(c)
        | JoinOperator::LeftOuter(c)
        | JoinOperator::Right(c)
        | JoinOperator::RightOuter(c)
        | JoinOperator::FullOuter(c) => Some(c),
        _ => None,
    }
}

impl ColumnPass<'_> {
    /// The name the relation is known by in `from`, if it is there.
    fn qualifier_in(&self, from: &[TableWithJoins]) -> Option<String> {
        let factors = (from.iter())
            .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
        for factor in factors {
            match factor {
                TableFactor::Table { name, alias, .. }
                    if names::relation(name).is_ok_and(|n| n == self.relation) =>
                {
                    return Some(match alias {
                        Some(a) => names::ident(&a.name),
                        None => folio_catalog::unqualified(self.relation).to_string(),
                    });
                }
                TableFactor::NestedJoin {
                    table_with_joins, ..
                } => {
                    if let Some(q) = self.qualifier_in(std::slice::from_ref(table_with_joins)) {
                        return Some(q);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The relation's FROM items in `from` without column aliases given
    /// the columns' names as before the rename (`t AS t(a, old, c)`):
    /// what PostgreSQL prints when a join matches the column by name.
    /// Whether there was one.
    fn alias_in(&self, from: &mut [TableWithJoins]) -> bool {
        let mut found = false;
        for t in from {
            let factors =
                std::iter::once(&mut t.relation).chain(t.joins.iter_mut().map(|j| &mut j.relation));
            for factor in factors {
                match factor {
                    TableFactor::Table { name, alias, .. }
                        if names::relation(name).is_ok_and(|n| n == self.relation)
                            && alias.as_ref().is_none_or(|a| a.columns.is_empty()) =>
                    {
                        let alias_name = match alias {
                            Some(a) => a.name.clone(),
                            None => names::written(folio_catalog::unqualified(self.relation)),
                        };
                        let columns = (self.columns.iter())
                            .map(|c| match c == self.new {
                                true => self.old,
                                false => c.as_str(),
                            })
                            .map(|c| TableAliasColumnDef {
                                name: names::written(c),
                                data_type: None,
                            })
                            .collect();
                        *alias = Some(TableAlias {
                            name: alias_name,
                            columns,
                        });
                        found = true;
                    }
                    TableFactor::NestedJoin {
                        table_with_joins, ..
                    } => found |= self.alias_in(std::slice::from_mut(table_with_joins)),
                    _ => {}
                }
            }
        }
        found
    }

    fn select(&self, select: &mut Select) {
        // A join by the column's name keeps the name: the relation is
        // given its columns' old names (references stay as written).
        if !self.columns.is_empty()
            && joins_by_name(&select.from, self.old)
            && self.alias_in(&mut select.from)
        {
            return;
        }
        let Some(qualifier) = self.qualifier_in(&select.from) else {
            return;
        };
        let mut pass = Nested::new(References {
            qualifier: &qualifier,
            old: self.old,
            new: self.new,
        });
        for item in &mut select.projection {
            match item {
                SelectItem::UnnamedExpr(e) => {
                    let named = match e {
                        Expr::Identifier(id) => Some(id.clone()),
                        Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                            Some(parts[1].clone())
                        }
                        _ => None,
                    };
                    let before = e.clone();
                    let _ = e.visit(&mut pass);
                    if let Some(alias) = named.filter(|_| *e != before) {
                        *item = SelectItem::ExprWithAlias {
                            expr: e.clone(),
                            alias,
                        };
                    }
                }
                SelectItem::ExprWithAlias { expr, .. } => {
                    let _ = expr.visit(&mut pass);
                }
                _ => {}
            }
        }
        let _ = select.from.visit(&mut pass);
        let _ = select.selection.visit(&mut pass);
        let _ = select.group_by.visit(&mut pass);
        let _ = select.having.visit(&mut pass);
    }
}

impl VisitorMut for ColumnPass<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let mut bodies = vec![query.body.as_mut()];
        while let Some(body) = bodies.pop() {
            match body {
                SetExpr::Select(select) => self.select(select),
                SetExpr::SetOperation { left, right, .. } => {
                    bodies.push(left);
                    bodies.push(right);
                }
                _ => {}
            }
        }
        ControlFlow::Continue(())
    }
}

/// `q.old` as `q.new` (at any depth), and `old` as `q.new` outside
/// subqueries.
struct References<'a> {
    qualifier: &'a str,
    old: &'a str,
    new: &'a str,
}

impl InSubqueries for References<'_> {
    fn expr(&mut self, e: &mut Expr, depth: usize) {
        let hit = match e {
            Expr::Identifier(id) => depth == 0 && names::ident(id) == self.old,
            Expr::CompoundIdentifier(parts) => {
                parts.len() == 2
                    && names::ident(&parts[0]) == self.qualifier
                    && names::ident(&parts[1]) == self.old
            }
            _ => false,
        };
        if hit {
            *e = Expr::CompoundIdentifier(vec![
                names::written(self.qualifier),
                names::written(self.new),
            ]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamed(sql: &str, renamed: Renamed<'_>) -> String {
        let mut query = crate::views::parse_text("v", sql).unwrap();
        rewrite(&mut query, renamed, &[]);
        query.to_string()
    }

    // Proves a column rename follows qualified and unqualified references
    // at the level that reads the relation, and keeps output names.
    #[test]
    fn column_rename_keeps_output_names() {
        let column = Renamed::Column {
            relation: "t",
            old: "x",
            new: "y",
        };
        assert_eq!(
            renamed("SELECT x, t.x AS z FROM t WHERE x > 1", column),
            "SELECT t.y AS x, t.y AS z FROM t WHERE t.y > 1"
        );
        // Another relation's `x` is left alone.
        assert_eq!(
            renamed("SELECT u.x FROM u JOIN t AS a ON a.x = u.x", column),
            "SELECT u.x FROM u JOIN t AS a ON a.y = u.x"
        );
    }

    // Proves a column a join matches by name keeps its old name through
    // an alias list on the relation's FROM item, references untouched.
    #[test]
    fn column_rename_under_using_aliases_the_relation() {
        let column = Renamed::Column {
            relation: "t",
            old: "c",
            new: "d",
        };
        let columns = ["a".to_string(), "b".to_string(), "d".to_string()];
        let mut query =
            crate::views::parse_text("v", "SELECT t.c FROM u JOIN t USING (b, c)").unwrap();
        rewrite(&mut query, column, &columns);
        assert_eq!(
            query.to_string(),
            "SELECT t.c FROM u JOIN t AS t (a, b, c) USING(b, c)"
        );
    }

    // Proves a relation rename follows FROM items and qualified names.
    #[test]
    fn relation_rename_follows_qualifiers() {
        let relation = Renamed::Relation {
            old: "v",
            new: "s.v2",
        };
        assert_eq!(
            renamed("SELECT v.a FROM v WHERE v.b > 0", relation),
            "SELECT v2.a FROM s.v2 WHERE v2.b > 0"
        );
    }
}
