//! A pass over a statement's expressions that treats those inside a
//! subquery apart (an unqualified name there may be the subquery's own
//! column): the one counter of "how many subqueries is this expression
//! in", for the rewrites of view queries (`updatable_views.rs`,
//! `view_renames.rs`).

use sqlparser::ast::{Expr, Query, VisitorMut};
use std::ops::ControlFlow;

/// What a pass does to each expression, `depth` subqueries down.
pub trait InSubqueries {
    fn expr(&mut self, e: &mut Expr, depth: usize);
}

/// Runs an [`InSubqueries`] pass as a sqlparser visitor, counting the
/// subqueries it is in.
pub struct Nested<T> {
    pub pass: T,
    depth: usize,
}

impl<T> Nested<T> {
    pub fn new(pass: T) -> Nested<T> {
        Nested { pass, depth: 0 }
    }
}

impl<T: InSubqueries> VisitorMut for Nested<T> {
    type Break = ();

    fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        self.pass.expr(e, self.depth);
        ControlFlow::Continue(())
    }
}
