//! A boolean expression's truth for a row: the one owner of SQL's
//! three-valued AND, OR and NOT and of a comparison's or `IS [NOT] NULL`'s
//! result ([`Scalar::eval`] gives those as this says). A WHERE clause is
//! tested a row at a time, so the common shapes are evaluated without
//! making values: a column or a constant operand is read in place
//! (`Scalar::operand`) and handed to [`compare`], the one comparison of
//! two values; only another operand is evaluated (and cloned). The
//! shape is read from the bound tree as it is (an operand's tag), so no
//! second, compiled form of an expression is kept in step with it. A
//! parameter typed where it stands is converted once per execution
//! ([`fix_params`]), not per row.
//!
//! AND and OR are lazy as PostgreSQL's (its `ExecEvalBoolAnd` /
//! `ExecEvalBoolOr`): operands are evaluated left to right, AND stops at
//! the first false, OR at the first true, and an unknown (NULL) operand
//! goes on to the next, the result unknown unless a later one decides
//! it. So `i < 5 or 10 / (i - i) > 0` is true where `i < 5` without the
//! division being evaluated. A chain `a AND b AND c` is bound as
//! `(a AND b) AND c`, which evaluates in the same order and stops at the
//! same operand as PostgreSQL's flattened list. (COALESCE's laziness is
//! `Scalar::eval`'s, CASE's too; neither is a truth.)

use crate::error::SqlError;
use crate::scalar::{Env, Scalar, compare, truth};
use crate::types;
use folio_row::Value;
use std::borrow::Cow;

impl Scalar {
    /// Its truth for `row` (NULL: unknown). 42804 for a value that is not
    /// a boolean.
    pub fn truth_in(&self, row: &[Value], env: &Env<'_>) -> Result<Option<bool>, SqlError> {
        Ok(match self {
            Scalar::Compare(cmp, a, b) => {
                let order = match (a.in_place(row), b.in_place(row)) {
                    (Some(x), Some(y)) => compare(x, y)?,
                    _ => {
                        let (x, y) = (a.operand(row, env)?, b.operand(row, env)?);
                        compare(&x, &y)?
                    }
                };
                order.map(|order| cmp.holds(order))
            }
            // The first operand that decides it ends it; `b` is not
            // evaluated after a false (AND) or a true (OR).
            Scalar::And(a, b) => match a.truth_in(row, env)? {
                Some(false) => Some(false),
                Some(true) => b.truth_in(row, env)?,
                None => b.truth_in(row, env)?.filter(|b| !b),
            },
            Scalar::Or(a, b) => match a.truth_in(row, env)? {
                Some(true) => Some(true),
                Some(false) => b.truth_in(row, env)?,
                None => b.truth_in(row, env)?.filter(|b| *b),
            },
            Scalar::Not(e) => e.truth_in(row, env)?.map(|b| !b),
            Scalar::IsNull(e, negated) => {
                Some(matches!(*e.operand(row, env)?, Value::Null) != *negated)
            }
            other => truth(&other.eval(row, env)?)?,
        })
    }

    /// Its value for `row` if it is a column's or a constant, read in
    /// place.
    #[inline]
    fn in_place<'v>(&'v self, row: &'v [Value]) -> Option<&'v Value> {
        match self {
            Scalar::Column(c) => Some(&row[*c]),
            Scalar::Const(v) => Some(v),
            _ => None,
        }
    }

    /// Its value for `row`: read in place ([`Scalar::in_place`]), else
    /// evaluated.
    fn operand<'v>(&'v self, row: &'v [Value], env: &Env<'_>) -> Result<Cow<'v, Value>, SqlError> {
        Ok(match self.in_place(row) {
            Some(v) => Cow::Borrowed(v),
            None => Cow::Owned(self.eval(row, env)?),
        })
    }
}

/// The conjuncts a scan tests each row against, for one execution: each
/// parameter typed where it stands (`Typed($n, t)`, a `$n` meeting a
/// column or declared) under a comparison, AND, OR, NOT or `IS NULL` is
/// its value converted to `t` once, as a constant. A conversion that
/// fails is left to fail as before, at the first row tested (none for an
/// empty table). Unchanged conjuncts are borrowed.
pub fn fix_params<'a>(conjuncts: &'a [Scalar], env: &Env<'_>) -> Cow<'a, [Scalar]> {
    if env.params.is_empty() {
        return Cow::Borrowed(conjuncts);
    }
    let fixed: Vec<Option<Scalar>> = conjuncts.iter().map(|c| fixed(c, env)).collect();
    if fixed.iter().all(Option::is_none) {
        return Cow::Borrowed(conjuncts);
    }
    Cow::Owned(
        fixed
            .into_iter()
            .zip(conjuncts)
            .map(|(f, c)| f.unwrap_or_else(|| c.clone()))
            .collect(),
    )
}

/// `e` with its typed parameters fixed ([`fix_params`]), or `None` if it
/// has none to fix.
fn fixed(e: &Scalar, env: &Env<'_>) -> Option<Scalar> {
    let pair = |a: &Scalar, b: &Scalar| match (fixed(a, env), fixed(b, env)) {
        (None, None) => None,
        (x, y) => Some((
            Box::new(x.unwrap_or_else(|| a.clone())),
            Box::new(y.unwrap_or_else(|| b.clone())),
        )),
    };
    match e {
        Scalar::Typed(p, ty) => match p.as_ref() {
            Scalar::Param(n) => {
                let value = env.params.get(*n)?;
                types::coerce(value.clone(), *ty).ok().map(Scalar::Const)
            }
            _ => None,
        },
        Scalar::Compare(cmp, a, b) => pair(a, b).map(|(a, b)| Scalar::Compare(*cmp, a, b)),
        Scalar::And(a, b) => pair(a, b).map(|(a, b)| Scalar::And(a, b)),
        Scalar::Or(a, b) => pair(a, b).map(|(a, b)| Scalar::Or(a, b)),
        Scalar::Not(inner) => fixed(inner, env).map(|x| Scalar::Not(Box::new(x))),
        Scalar::IsNull(inner, negated) => {
            fixed(inner, env).map(|x| Scalar::IsNull(Box::new(x), *negated))
        }
        _ => None,
    }
}
