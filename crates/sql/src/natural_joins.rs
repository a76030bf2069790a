//! A view's NATURAL joins written as the USING lists they stand for when
//! the view is made. PostgreSQL resolves NATURAL then: a column added
//! later to both sides (`ALTER TABLE ... ADD COLUMN e`) does not join the
//! view's rows on it, and `pg_get_viewdef` keeps printing the old list.
//! The common columns are the view printer's
//! (`view_layout::natural_columns`), which resolves every FROM item
//! (relations, views, CTEs, subqueries, aliases) as the view's text
//! reads; this module owns writing them into the stored query.

use crate::error::SqlError;
use crate::lookups::Lookups;
use crate::view_renames::join_constraint_mut;
use sqlparser::ast::{
    Expr, Join, JoinConstraint, JoinOperator, ObjectName, ObjectNamePart, Query, SetExpr,
    TableFactor, TableWithJoins, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;

/// `query` (a view's, whose columns are `columns`) with each NATURAL
/// join written as `USING (common columns)`, or with none as a CROSS
/// JOIN (an outer join `ON TRUE`), as PostgreSQL prints them;
/// `catalog()` is read only if there is one.
pub(crate) fn write_out(
    query: &mut Query,
    columns: &[String],
    catalog: impl FnOnce() -> Result<Lookups, SqlError>,
) -> Result<(), SqlError> {
    let mut any = false;
    each_join(query, &mut |join| {
        any |= matches!(
            join_constraint_mut(&mut join.join_operator),
            Some(JoinConstraint::Natural)
        );
    });
    if !any {
        return Ok(());
    }
    let resolved = crate::view_layout::natural_columns(query, columns, &catalog()?);
    each_join(query, &mut |join| {
        let at = std::ptr::from_ref::<Join>(join) as usize;
        let Some((_, common)) = resolved.iter().find(|(a, _)| *a == at) else {
            return;
        };
        if common.is_empty()
            && matches!(
                join.join_operator,
                JoinOperator::Join(_) | JoinOperator::Inner(_)
            )
        {
            join.join_operator = JoinOperator::CrossJoin(JoinConstraint::None);
            return;
        }
        let Some(constraint) = join_constraint_mut(&mut join.join_operator) else {
            return;
        };
        *constraint = match common.is_empty() {
            true => JoinConstraint::On(no_common_columns()),
            false => JoinConstraint::Using(
                (common.iter())
                    .map(|c| ObjectName(vec![ObjectNamePart::Identifier(crate::names::written(c))]))
                    .collect(),
            ),
        };
    });
    Ok(())
}

/// Calls `f` on every join of `query`, at any depth (subqueries, CTEs,
/// set operations, parenthesized joins), in place.
fn each_join(query: &mut Query, f: &mut dyn FnMut(&mut Join)) {
    struct Joins<'f>(&'f mut dyn FnMut(&mut Join));
    impl Joins<'_> {
        fn from(&mut self, items: &mut [TableWithJoins]) {
            for item in items {
                item.joins.iter_mut().for_each(|j| (self.0)(j));
            }
        }
        fn body(&mut self, body: &mut SetExpr) {
            match body {
                SetExpr::Select(select) => self.from(&mut select.from),
                SetExpr::SetOperation { left, right, .. } => {
                    self.body(left);
                    self.body(right);
                }
                // (A nested query is visited as one.)
                _ => {}
            }
        }
    }
    impl VisitorMut for Joins<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
            self.body(&mut query.body);
            ControlFlow::Continue(())
        }
        fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
            if let TableFactor::NestedJoin {
                table_with_joins, ..
            } = factor
            {
                self.from(std::slice::from_mut(table_with_joins.as_mut()));
            }
            ControlFlow::Continue(())
        }
    }
    let _ = query.visit(&mut Joins(f));
}

/// The condition an outer NATURAL join with no column in common is
/// stored with: `((true))`, which `view_layout` prints as PostgreSQL's
/// `ON TRUE` (a join written `ON true` prints as `ON true`).
pub fn no_common_columns() -> Expr {
    let nested = |e: Expr| Expr::Nested(Box::new(e));
    nested(nested(Expr::value(sqlparser::ast::Value::Boolean(true))))
}
