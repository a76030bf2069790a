//! A sublink's conjuncts that read nothing of its own FROM are tested
//! once, next to it, instead of once per row of its FROM.
//!
//! `EXISTS (SELECT 1 FROM c WHERE c.k = b.k AND NOT EXISTS (SELECT 1
//! FROM d WHERE d.x = a.x))`: the second conjunct reads only the outer
//! query's `a`. PostgreSQL tests such a "pseudoconstant" qual once, as
//! a gating One-Time Filter above the subplan's scan. Here it is taken
//! out of the subquery (`split`) and tested in the holding expression
//! (`gated`):
//!
//! - `EXISTS (SELECT .. WHERE k AND g)` is `(g) IS TRUE AND EXISTS
//!   (SELECT .. WHERE k)`;
//! - `x IN (SELECT y .. WHERE k AND g)` is `(g) IS TRUE AND x IN (SELECT y
//!   .. WHERE k)`; their `NOT` forms are the `NOT` of those.
//!
//! The two are the same answer, NULLs included: a conjunct that is false
//! or NULL leaves the subquery no rows (EXISTS false, IN false, NOT IN
//! true), which `(g) IS TRUE` being false gives too; when it is true the
//! sublink's own answer is kept as it is. What changes is the work: the
//! rest of the subquery may now qualify for the hashed form
//! (`hashed_subplan.rs`: its only correlation its key conjuncts), and `g`,
//! now a condition of the holding query, is one sublink of it, hashed in
//! its turn if it qualifies. subselect.sql's nested EXISTS (a scan of
//! `c` and one of `d` per row of a 100 000-row join) becomes two hash
//! probes a row.
//!
//! Taken out only when it cannot change which rows exist or what runs:
//! the subquery is a plain SELECT (`hashed_subplan::plain_select`) with a
//! FROM; the conjunct calls only built-ins that are immutable or stable
//! (`hashed_subplan::stable_calls`) and no aggregate; no name in it is a
//! column of the subquery's FROM items (one a query nested in the
//! conjunct has itself does not count; one a nested query may have
//! whose FROM cannot be resolved keeps the conjunct in). As with
//! PostgreSQL's gating qual, `g` is evaluated even when the subquery's
//! FROM has no rows.

use crate::context::Ctx;
use crate::from::Scope;
use crate::hashed_subplan;
use crate::scalar;
use crate::subquery::scope_of;
use folio_db::Transaction;
use sqlparser::ast::{BinaryOperator, Expr, Query, SetExpr, UnaryOperator, Visit, Visitor};
use std::ops::ControlFlow::{self, Break, Continue};

/// The conjuncts of `q`'s WHERE that read nothing of its FROM, AND-ed,
/// and `q` without them; `None` when there are none to take out.
pub fn split(cx: &Ctx<'_>, txn: &Transaction, q: &Query) -> Option<(Expr, Query)> {
    let select = hashed_subplan::plain_select(q)?;
    if select.from.is_empty() {
        return None;
    }
    let conjuncts = crate::pushdown::conjuncts(select.selection.as_ref()?);
    let from = scope_of(cx, txn, q)?;
    let (gates, kept): (Vec<&Expr>, Vec<&Expr>) = (conjuncts.into_iter())
        .partition(|c| hashed_subplan::stable_calls(*c) && !reads_from(cx, txn, c, &from));
    let gate = and_all(gates.into_iter().cloned())?;
    let mut rest = q.clone();
    let SetExpr::Select(s) = rest.body.as_mut() else {
        unreachable!("a plain SELECT")
    };
    s.selection = and_all(kept.into_iter().cloned());
    Some((gate, rest))
}

/// `[NOT] ((gate) IS TRUE AND sublink)`: the sublink's test, gated.
pub fn gated(gate: Expr, sublink: Expr, negated: bool) -> Expr {
    let test = Expr::Nested(Box::new(Expr::BinaryOp {
        left: Box::new(Expr::IsTrue(Box::new(Expr::Nested(Box::new(gate))))),
        op: BinaryOperator::And,
        right: Box::new(sublink),
    }));
    match negated {
        true => Expr::Nested(Box::new(Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr: Box::new(test),
        })),
        false => test,
    }
}

fn and_all(exprs: impl Iterator<Item = Expr>) -> Option<Expr> {
    exprs.reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    })
}

/// Whether `e` names a column of `from` (or may: a nested query whose
/// FROM cannot be resolved), or calls an aggregate.
fn reads_from(cx: &Ctx<'_>, txn: &Transaction, e: &Expr, from: &Scope) -> bool {
    struct Find<'a, 'b> {
        cx: &'a Ctx<'b>,
        txn: &'a Transaction,
        from: &'a Scope,
        /// The FROM items of each query nested in `e` being visited.
        nested: Vec<Option<Scope>>,
    }
    impl Visitor for Find<'_, '_> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            let scope = scope_of(self.cx, self.txn, q);
            if scope.is_none() {
                return Break(());
            }
            self.nested.push(scope);
            Continue(())
        }
        fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.nested.pop();
            Continue(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f) if crate::aggregate::is_aggregate(f) => Break(()),
                Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
                    let nested = (self.nested.iter().flatten()).any(|s| scalar::bind(e, s).is_ok());
                    match !nested && scalar::bind(e, self.from).is_ok() {
                        true => Break(()),
                        false => Continue(()),
                    }
                }
                _ => Continue(()),
            }
        }
    }
    let mut find = Find {
        cx,
        txn,
        from,
        nested: Vec::new(),
    };
    e.visit(&mut find).is_break()
}
