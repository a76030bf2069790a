//! The order a plan node tests its AND-ed conditions in: cheapest first,
//! as PostgreSQL's `order_qual_clauses`, the one owner of that order.
//!
//! A condition's cost is PostgreSQL's `cost_qual_eval` per row, in units
//! of `cpu_operator_cost`: each operator or function call is its
//! `procost` (1 for the built-in ones, 100 for a PL/pgSQL function's
//! default), an IN list half a call per item, a cast one call (a typed
//! literal none); columns, constants, parameters, AND, OR, NOT,
//! `IS NULL`, CASE and COALESCE themselves cost nothing (GREATEST, LEAST
//! and a domain's check 1), and so does an
//! uncorrelated subquery's value (run once before the rows: PostgreSQL's
//! InitPlan, a parameter), `IN (SELECT ...)` one probe of its hashed
//! rows. (Conditions with a correlated subquery are tested after the
//! scans and joins, `query.rs`, in the order written.) Conditions of equal cost keep the
//! order written (a stable sort), so `where 1/(i-i) > 0 and i > 5` tests
//! `i > 5` (cost 1) before the division (cost 3), and never divides for
//! a row with `i <= 5`.

use crate::functions::Func;
use crate::scalar::Scalar;

/// What PostgreSQL charges a call of a function it does not know the
/// cost of (`procost` of a PL/pgSQL or C function created without COST).
const CALL: f64 = 100.0;

/// `quals` sorted cheapest first, equal ones in their order.
pub fn cheapest_first(quals: &mut [Scalar]) {
    if quals.len() < 2 {
        return;
    }
    let mut costed: Vec<(f64, usize)> = quals.iter().map(cost).zip(0..).collect();
    if costed.windows(2).all(|w| w[0].0 <= w[1].0) {
        return;
    }
    costed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut taken: Vec<Option<Scalar>> = quals
        .iter_mut()
        .map(|q| Some(std::mem::replace(q, Scalar::Const(folio_row::Value::Null))))
        .collect();
    for (slot, (_, from)) in quals.iter_mut().zip(costed) {
        *slot = taken[from].take().expect("each condition is placed once");
    }
}

/// `e`'s cost per row, in `cpu_operator_cost`s.
pub fn cost(e: &Scalar) -> f64 {
    let own = match e {
        Scalar::Arith(..) | Scalar::Compare(..) | Scalar::Negate(_) | Scalar::Like { .. } => 1.0,
        // A typed literal is a constant.
        Scalar::Cast(inner, _) if matches!(**inner, Scalar::Const(_)) => 0.0,
        Scalar::Cast(..) => 1.0,
        Scalar::InList { list, .. } => 0.5 * list.len() as f64,
        Scalar::Func(Func::Coalesce, _) => 0.0,
        // GREATEST, LEAST and a domain's check: PostgreSQL's flat 1.
        Scalar::Domain(..) => 1.0,
        Scalar::Func(..) => 1.0,
        Scalar::Call(_) => CALL,
        // Probing a hashed subquery's rows.
        Scalar::InSubquery { .. } => 1.0,
        _ => 0.0,
    };
    own + e.children().into_iter().map(cost).sum::<f64>()
}
