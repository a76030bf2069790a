//! Which recursive queries are well formed, as PostgreSQL 15 decides
//! (its `checkWellFormedRecursion` and the ordering of a `WITH
//! RECURSIVE`'s items): the one owner of these rules, asked by
//! `recursive::Cte::of` and `cte.rs` before anything is planned, so a
//! malformed query fails at once instead of looping.
//!
//! - **Order.** The items of a `WITH RECURSIVE` may name later ones:
//!   [`dependency_order`] sorts them so each comes after the ones it
//!   names (the first ready item first, keeping the written order where
//!   it can); items naming each other in a cycle are 0A000 `mutual
//!   recursion between WITH items is not implemented`.
//! - **The recursive term** ([`check_step`]) names the query exactly
//!   once (42P19 `... must not appear more than once`), and not within a
//!   subquery of an expression (a sublink: `IN (SELECT ... FROM x)`,
//!   a scalar subquery), the nullable side of an outer join, `INTERSECT
//!   ALL`, or `EXCEPT` (its right side, or either side of `EXCEPT
//!   ALL`); a derived table in FROM is no boundary. A SELECT reading the
//!   query directly in its FROM may not aggregate (42P19 `aggregate
//!   functions are not allowed in a recursive query's recursive term`).
//!
//! A `WITH` inside the recursive term that defines the same name hides
//! the query from its later items and its body, not from the items up to
//! that one (PostgreSQL's scope: [`seeing_outer`]).

use crate::error::SqlError;
use crate::names;
use sqlparser::ast::{
    Cte as AstCte, Expr, JoinOperator, ObjectNamePart, Query, Select, SelectItem, SetExpr,
    SetOperator, SetQuantifier, TableFactor, TableWithJoins, Visit, Visitor,
};
use std::ops::ControlFlow;

/// Whether a FROM item anywhere in `node` (subqueries included) is the
/// bare name `name`, not counting those inside a query whose own WITH
/// defines `name` again (there the name is that CTE: [`shadows`]).
pub fn names<V: Visit>(node: &V, name: &str) -> bool {
    struct Find<'a> {
        name: &'a str,
        /// How many queries around the visit define `name` themselves.
        hidden: usize,
    }
    impl Visitor for Find<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
            if self.hidden == 0
                && seeing_outer(query, self.name).any(|cte| names(&*cte.query, self.name))
            {
                return ControlFlow::Break(());
            }
            self.hidden += usize::from(shadows(query, self.name));
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
            self.hidden -= usize::from(shadows(query, self.name));
            ControlFlow::Continue(())
        }
        fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
            match self.hidden == 0 && is_reference(factor, self.name) {
                true => ControlFlow::Break(()),
                false => ControlFlow::Continue(()),
            }
        }
    }
    node.visit(&mut Find { name, hidden: 0 }).is_break()
}

/// Whether `query`'s own WITH defines a CTE `name`, which then hides an
/// outer one of that name inside `query`, but for [`seeing_outer`].
pub fn shadows(query: &Query, name: &str) -> bool {
    query.with.as_ref().is_some_and(|with| {
        with.cte_tables
            .iter()
            .any(|cte| names::ident(&cte.alias.name) == name)
    })
}

/// The items of `query`'s WITH that still see an outer `name` the WITH
/// defines again: in a WITH that is not RECURSIVE, those up to and
/// including the one defining it (an item sees only the ones before it);
/// none in a WITH RECURSIVE, or when it does not define `name`.
pub fn seeing_outer<'q>(query: &'q Query, name: &str) -> impl Iterator<Item = &'q AstCte> {
    let items = match &query.with {
        Some(with) if !with.recursive && shadows(query, name) => with.cte_tables.as_slice(),
        _ => &[],
    };
    let through = (items.iter())
        .position(|cte| names::ident(&cte.alias.name) == name)
        .map_or(0, |at| at + 1);
    items[..through].iter()
}

/// Whether `factor` is the bare table name `name`.
pub fn is_reference(factor: &TableFactor, name: &str) -> bool {
    matches!(factor, TableFactor::Table { name: n, args: None, .. }
        if matches!(n.0.as_slice(), [ObjectNamePart::Identifier(id)] if names::ident(id) == name))
}

/// The items of a `WITH RECURSIVE` in an order where each follows the
/// items it names (see the module's "Order").
pub fn dependency_order(items: Vec<AstCte>) -> Result<Vec<AstCte>, SqlError> {
    let item_names: Vec<String> = items.iter().map(|c| names::ident(&c.alias.name)).collect();
    // needs[i]: the other items item i names.
    let mut needs: Vec<Vec<usize>> = items
        .iter()
        .enumerate()
        .map(|(i, cte)| {
            (0..items.len())
                .filter(|&j| j != i && names(&*cte.query, &item_names[j]))
                .collect()
        })
        .collect();
    let mut pending: Vec<Option<AstCte>> = items.into_iter().map(Some).collect();
    let mut ordered = Vec::with_capacity(pending.len());
    while ordered.len() < pending.len() {
        let Some(ready) = (0..pending.len()).find(|&i| pending[i].is_some() && needs[i].is_empty())
        else {
            return Err(SqlError::new(
                "0A000",
                "mutual recursion between WITH items is not implemented",
            ));
        };
        ordered.push(pending[ready].take().expect("found pending"));
        for n in &mut needs {
            n.retain(|&j| j != ready);
        }
    }
    Ok(ordered)
}

/// Where a reference to the recursive query would be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Allowed,
    Sublink,
    OuterJoin,
    Intersect,
    Except,
}

impl Place {
    fn refusal(self, name: &str) -> Option<SqlError> {
        let within = match self {
            Place::Allowed => return None,
            Place::Sublink => "a subquery",
            Place::OuterJoin => "an outer join",
            Place::Intersect => "INTERSECT",
            Place::Except => "EXCEPT",
        };
        Some(SqlError::new(
            "42P19",
            format!("recursive reference to query \"{name}\" must not appear within {within}"),
        ))
    }
}

/// Checks the recursive term `step` of the recursive query `name` (see
/// the module's "The recursive term").
pub fn check_step(step: &Query, name: &str) -> Result<(), SqlError> {
    let mut walk = Walk { name, count: 0 };
    walk.query(step, Place::Allowed)
}

struct Walk<'a> {
    name: &'a str,
    /// References found so far.
    count: usize,
}

impl Walk<'_> {
    fn reference(&mut self, place: Place) -> Result<(), SqlError> {
        if let Some(e) = place.refusal(self.name) {
            return Err(e);
        }
        self.count += 1;
        if self.count > 1 {
            return Err(SqlError::new(
                "42P19",
                format!(
                    "recursive reference to query \"{}\" must not appear more than once",
                    self.name
                ),
            ));
        }
        Ok(())
    }

    /// Any reference within `node` is within a sublink.
    fn sublink<V: Visit>(&mut self, node: &V) -> Result<(), SqlError> {
        match names(node, self.name) {
            true => self.reference(Place::Sublink),
            false => Ok(()),
        }
    }

    fn query(&mut self, query: &Query, place: Place) -> Result<(), SqlError> {
        if let Some(with) = &query.with {
            if shadows(query, self.name) {
                for cte in seeing_outer(query, self.name) {
                    self.query(&cte.query, place)?;
                }
                return Ok(());
            }
            for cte in &with.cte_tables {
                self.query(&cte.query, place)?;
            }
        }
        self.set_expr(&query.body, place)?;
        if let Some(order_by) = &query.order_by {
            self.sublink(order_by)?;
        }
        if let Some(limit) = &query.limit_clause {
            self.sublink(limit)?;
        }
        Ok(())
    }

    fn set_expr(&mut self, body: &SetExpr, place: Place) -> Result<(), SqlError> {
        match body {
            SetExpr::Select(select) => self.select(select, place),
            SetExpr::Query(query) => self.query(query, place),
            SetExpr::SetOperation {
                op,
                set_quantifier,
                left,
                right,
            } => {
                let all = matches!(set_quantifier, SetQuantifier::All);
                let (l, r) = match (place, op) {
                    (Place::Allowed, SetOperator::Intersect) if all => {
                        (Place::Intersect, Place::Intersect)
                    }
                    (Place::Allowed, SetOperator::Except | SetOperator::Minus) if all => {
                        (Place::Except, Place::Except)
                    }
                    (Place::Allowed, SetOperator::Except | SetOperator::Minus) => {
                        (Place::Allowed, Place::Except)
                    }
                    _ => (place, place),
                };
                self.set_expr(left, l)?;
                self.set_expr(right, r)
            }
            other => self.sublink(other),
        }
    }

    fn select(&mut self, select: &Select, place: Place) -> Result<(), SqlError> {
        let before = self.count;
        for from in &select.from {
            self.from(from, place)?;
        }
        if self.count > before && aggregates(select) {
            return Err(SqlError::new(
                "42P19",
                "aggregate functions are not allowed in a recursive query's recursive term",
            ));
        }
        // Everything but FROM holds expressions: a reference there is in
        // a sublink.
        let rest = Select {
            from: Vec::new(),
            ..select.clone()
        };
        self.sublink(&rest)
    }

    fn from(&mut self, from: &TableWithJoins, place: Place) -> Result<(), SqlError> {
        // The place of each item: the nullable side of an outer join is
        // one; a RIGHT or FULL join makes everything before it so.
        let mut places = vec![place; from.joins.len() + 1];
        if place == Place::Allowed {
            for (k, join) in from.joins.iter().enumerate() {
                match &join.join_operator {
                    JoinOperator::Left(_) | JoinOperator::LeftOuter(_) => {
                        places[k + 1] = Place::OuterJoin;
                    }
                    JoinOperator::Right(_) | JoinOperator::RightOuter(_) => {
                        places[..=k].fill(Place::OuterJoin);
                    }
                    JoinOperator::FullOuter(_) => places[..=k + 1].fill(Place::OuterJoin),
                    _ => {}
                }
            }
        }
        self.factor(&from.relation, places[0])?;
        for (join, &at) in from.joins.iter().zip(&places[1..]) {
            self.factor(&join.relation, at)?;
            self.sublink(&join.join_operator)?;
        }
        Ok(())
    }

    fn factor(&mut self, factor: &TableFactor, place: Place) -> Result<(), SqlError> {
        match factor {
            f if is_reference(f, self.name) => self.reference(place),
            TableFactor::Table { .. } => Ok(()),
            TableFactor::Derived { subquery, .. } => self.query(subquery, place),
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => self.from(table_with_joins, place),
            other => self.sublink(other),
        }
    }
}

/// Whether a SELECT's list or HAVING calls an aggregate.
fn aggregates(select: &Select) -> bool {
    let in_item = |item: &SelectItem| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
            crate::aggregate::contains_aggregate(e)
        }
        _ => false,
    };
    select.projection.iter().any(in_item)
        || select
            .having
            .as_ref()
            .is_some_and(|h: &Expr| crate::aggregate::contains_aggregate(h))
}
