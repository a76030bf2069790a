//! Ordered-set aggregates: `percentile_cont(f) WITHIN GROUP (ORDER BY
//! x)`, `percentile_disc(f) WITHIN GROUP (ORDER BY x)` and `mode() WITHIN
//! GROUP (ORDER BY x)`, as PostgreSQL 15 has them.
//!
//! A call has *direct* arguments (the fraction, or an array of them; none
//! for `mode`) and one *ordered* argument, the WITHIN GROUP's expression.
//! The ordered argument reads the source row and is taken like an
//! aggregate's own `ORDER BY` (`aggregate.rs`: its rows wait in their
//! group and are sorted when the group is finished; NULLs are skipped). The
//! direct argument is evaluated once per group over the aggregate row, so
//! it may read only group keys (42803 with PostgreSQL's detail) and no
//! aggregate (42803).
//!
//! - `percentile_cont`: of a number (taken as double precision) or an
//!   interval; the value at `f * (n - 1)` in the sorted values,
//!   interpolated linearly between its two neighbours
//!   (`lo + (hi - lo) * t`).
//! - `percentile_disc`: of any sortable type; the first value whose place
//!   in the sorted values reaches `f * n` (the first for 0).
//! - `mode`: the most frequent value; of several equally frequent, the
//!   first in the WITHIN GROUP's order.
//!
//! An array of fractions gives an array of results, element for element
//! (a NULL fraction gives a NULL). Each fraction must lie in [0, 1]
//! (22003 naming it as C's `%g` prints it), checked even over no rows;
//! over no rows the result is NULL. Ordered-set aggregates are not window
//! functions (0A000, as PostgreSQL).

use crate::aggregate::{Call, Kind, contains_aggregate};
use crate::error::SqlError;
use crate::expr;
use crate::functions;
use crate::plan::SortKey;
use crate::scalar::{self, Columns, Scalar, compare};
use crate::types;
use folio_row::{SqlType, Value};
use sqlparser::ast::{BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments};
use std::cmp::Ordering;

/// An ordered-set aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderedSet {
    PercentileCont,
    PercentileDisc,
    Mode,
}

impl OrderedSet {
    pub fn of(name: &str) -> Option<OrderedSet> {
        Some(match name {
            "percentile_cont" => OrderedSet::PercentileCont,
            "percentile_disc" => OrderedSet::PercentileDisc,
            "mode" => OrderedSet::Mode,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            OrderedSet::PercentileCont => "percentile_cont",
            OrderedSet::PercentileDisc => "percentile_disc",
            OrderedSet::Mode => "mode",
        }
    }

    /// How many direct arguments it takes.
    fn direct_count(self) -> usize {
        match self {
            OrderedSet::Mode => 0,
            _ => 1,
        }
    }

    /// The result type for an ordered argument of type `ordered` and a
    /// direct argument that is an array of fractions (`many`), if the call
    /// has such a form.
    fn result_type(self, ordered: SqlType, many: bool) -> Option<SqlType> {
        let one = match self {
            OrderedSet::PercentileCont if ordered.is_number() => SqlType::Float8,
            OrderedSet::PercentileCont if matches!(ordered, SqlType::Interval(_)) => {
                SqlType::Interval(None)
            }
            OrderedSet::PercentileCont => return None,
            _ if matches!(ordered, SqlType::Record | SqlType::Json) => return None,
            _ => ordered,
        };
        if many { one.array_of() } else { Some(one) }
    }
}

/// The error for an ordered-set aggregate called with OVER.
pub fn over_refused(name: &str) -> SqlError {
    SqlError::new(
        "0A000",
        format!("OVER is not supported for ordered-set aggregate {name}"),
    )
}

/// The error for a call of an aggregate that is not an ordered-set one
/// (`kind`) with WITHIN GROUP: PostgreSQL looks it up with the direct and
/// ordered arguments together, so a form that exists is 42809 and any
/// other 42883 naming their types (over `source`).
pub fn within_group_refused<C: Columns + ?Sized>(
    kind: Kind,
    f: &sqlparser::ast::Function,
    source: &C,
) -> SqlError {
    let name = kind.name();
    let args = all_arguments(f);
    let exprs = args
        .iter()
        .filter(|a| !matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Wildcard)))
        .count();
    if exprs == kind.argument_count() {
        return SqlError::new(
            "42809",
            format!("{name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP"),
        );
    }
    crate::aggregate::no_such_call(name, &args, source)
}

/// Binds an ordered-set call `f` (its name is `which`'s): the ordered
/// argument over `source`, the direct one over the aggregate row
/// (`grouped`, whose first `keys` columns are the group keys). The
/// caller binds its FILTER.
pub fn bind<G: Columns + ?Sized, C: Columns + ?Sized>(
    which: OrderedSet,
    f: &sqlparser::ast::Function,
    grouped: &G,
    keys: usize,
    source: &C,
) -> Result<Call, SqlError> {
    let name = which.name();
    let direct_exprs = direct_arguments(f)?;
    if direct_exprs.len() != which.direct_count() || f.within_group.len() != 1 {
        // (Its arguments' types over the rows, grouped or not.)
        return Err(crate::aggregate::no_such_call(
            name,
            &all_arguments(f),
            source,
        ));
    }
    let direct = bind_direct(&direct_exprs, grouped, keys)?;
    let ordered = (f.within_group.iter())
        .map(|o| scalar::bind(&o.expr, source))
        .collect::<Result<Vec<_>, _>>()?;
    let mut types = vec![
        scalar::argument_types(&direct, grouped),
        scalar::argument_types(&ordered, source),
    ];
    types.retain(|t| !t.is_empty());
    let types = types.join(", ");
    let no_form = || functions::no_match(format!("function {name}({types}) does not exist"));

    let value = ordered.into_iter().next().expect("one ordered argument");
    let ordered_type = value.ty_in(source);
    // The fraction: a number, a quoted literal or NULL (one), or an array
    // of numbers (many).
    let many = match direct.first() {
        None => false,
        Some(Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_)) => false,
        Some(d) => {
            let ty = d.ty_in(grouped);
            match ty.element() {
                Some(element) if element.is_number() => true,
                _ if ty.is_number() => false,
                _ => return Err(no_form()),
            }
        }
    };
    let Some(ty) = which.result_type(ordered_type, many) else {
        return Err(no_form());
    };
    let options = &f.within_group[0].options;
    Ok(Call {
        kind: Kind::OrderedSet(which),
        arg: Some(value.clone()),
        delimiter: None,
        distinct: false,
        ty,
        order: vec![(value, SortKey::of(0, options))],
        filter: None,
        direct,
        user: None,
    })
}

/// PostgreSQL's error for a call of an ordered-set or hypothetical-set
/// aggregate's name `name` with `args` and no WITHIN GROUP (with OVER or
/// not): 42809 when the arguments would fit a form (the direct ones and
/// the ordered one of an ordered-set aggregate; any number of a
/// hypothetical-set one, `rank(1)`), else 42883 naming their types, or
/// an argument's own error. The one owner of that rule.
pub fn without_within_group<C: Columns + ?Sized>(
    name: &str,
    args: &[FunctionArg],
    source: &C,
) -> SqlError {
    let err = crate::aggregate::no_such_call(name, args, source);
    let fits = match OrderedSet::of(name) {
        Some(which) => args.len() == which.direct_count() + 1,
        None => !args.is_empty() && crate::hypothetical::Hypothetical::of(name).is_some(),
    };
    match err.code == "42883" && fits {
        true => SqlError::new(
            "42809",
            format!("WITHIN GROUP is required for ordered-set aggregate {name}"),
        ),
        false => err,
    }
}

/// The arguments of a WITHIN GROUP call `f` as PostgreSQL looks the
/// function up: the direct ones, then the WITHIN GROUP's keys.
fn all_arguments(f: &sqlparser::ast::Function) -> Vec<FunctionArg> {
    let mut args = match &f.args {
        FunctionArguments::List(list) => list.args.clone(),
        _ => Vec::new(),
    };
    args.extend(
        (f.within_group.iter())
            .map(|o| FunctionArg::Unnamed(FunctionArgExpr::Expr(o.expr.clone()))),
    );
    args
}

/// The direct arguments of a WITHIN GROUP call `f` (ordered-set or
/// hypothetical-set): plain expressions, no DISTINCT or other clause, and
/// no aggregate in them or in the WITHIN GROUP's keys (42803). The one
/// owner of that rule (`hypothetical.rs` calls it too).
pub fn direct_arguments(f: &sqlparser::ast::Function) -> Result<Vec<&Expr>, SqlError> {
    let FunctionArguments::List(list) = &f.args else {
        return Err(SqlError::unsupported(format!("{f}")));
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
        return Err(SqlError::unsupported(format!("{f}")));
    }
    let exprs = (list.args.iter())
        .map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(e),
            other => Err(SqlError::unsupported(format!("the argument {other}"))),
        })
        .collect::<Result<Vec<&Expr>, _>>()?;
    if exprs.iter().any(|e| contains_aggregate(e))
        || f.within_group.iter().any(|o| contains_aggregate(&o.expr))
    {
        return Err(SqlError::new(
            "42803",
            "aggregate function calls cannot be nested",
        ));
    }
    Ok(exprs)
}

/// An ordered-set call's direct arguments `exprs` bound over the
/// aggregate row (`grouped`, whose first `keys` columns are the group
/// keys): evaluated once per group, they may read only group keys (42803
/// with PostgreSQL's detail), no aggregate (42803). The one owner of that
/// rule (`hypothetical.rs` calls it too).
pub fn bind_direct<G: Columns + ?Sized>(
    exprs: &[&Expr],
    grouped: &G,
    keys: usize,
) -> Result<Vec<Scalar>, SqlError> {
    let direct = (exprs.iter())
        .map(|e| {
            scalar::bind(e, grouped).map_err(|err| {
                if err.code == "42803" {
                    err.with_detail(
                        "Direct arguments of an ordered-set aggregate must use only grouped columns.",
                    )
                } else {
                    err
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut columns = Vec::new();
    for d in &direct {
        d.columns(&mut columns);
    }
    if columns.iter().any(|&c| c >= keys) {
        return Err(SqlError::new(
            "42803",
            "aggregate function calls cannot be nested",
        ));
    }
    Ok(direct)
}

/// The result of `which` over a group's `values` (non-NULL, sorted in the
/// WITHIN GROUP's order) for the direct argument `direct` (the fraction,
/// or an array of them; NULL for `mode`), of type `ty`.
pub fn result(
    which: OrderedSet,
    direct: Value,
    values: &[Value],
    ty: SqlType,
) -> Result<Value, SqlError> {
    if which == OrderedSet::Mode {
        return mode(values);
    }
    match direct {
        Value::Null => Ok(Value::Null),
        Value::Array(items) => {
            // Every fraction is checked before any row is read.
            let fractions = fractions_of(items.into_items())?;
            if values.is_empty() {
                return Ok(Value::Null);
            }
            nested(which, fractions, values, ty.element().unwrap_or(ty))
        }
        one => {
            let f = fraction(one)?;
            if values.is_empty() {
                return Ok(Value::Null);
            }
            percentile(which, f, values, ty)
        }
    }
}

/// An array of fractions, checked, as nested as its array.
enum Fractions {
    One(Option<f64>),
    Many(Vec<Fractions>),
}

fn fractions_of(items: Vec<Value>) -> Result<Vec<Fractions>, SqlError> {
    items
        .into_iter()
        .map(|v| {
            Ok(match v {
                Value::Null => Fractions::One(None),
                Value::Array(inner) => Fractions::Many(fractions_of(inner.into_items())?),
                v => Fractions::One(Some(fraction(v)?)),
            })
        })
        .collect()
}

fn nested(
    which: OrderedSet,
    fractions: Vec<Fractions>,
    values: &[Value],
    element: SqlType,
) -> Result<Value, SqlError> {
    Ok(Value::Array(
        fractions
            .into_iter()
            .map(|f| match f {
                Fractions::One(None) => Ok(Value::Null),
                Fractions::One(Some(f)) => percentile(which, f, values, element),
                Fractions::Many(inner) => nested(which, inner, values, element),
            })
            .collect::<Result<_, SqlError>>()?,
    ))
}

/// A fraction as a double precision, in [0, 1], else PostgreSQL's 22003.
fn fraction(v: Value) -> Result<f64, SqlError> {
    let Value::Float8(f) = types::cast(v, SqlType::Float8)? else {
        unreachable!("a cast to float8 gives a float8")
    };
    if !(0.0..=1.0).contains(&f) {
        return Err(SqlError::new(
            "22003",
            format!("percentile value {} is not between 0 and 1", c_g(f)),
        ));
    }
    Ok(f)
}

/// `percentile_cont` or `percentile_disc` at `f` of `values` (not
/// empty), of type `ty`.
fn percentile(which: OrderedSet, f: f64, values: &[Value], ty: SqlType) -> Result<Value, SqlError> {
    let n = values.len();
    if which == OrderedSet::PercentileDisc {
        // The first value whose 1-based place reaches f·n.
        let place = (f * n as f64).ceil() as usize;
        return Ok(values[place.clamp(1, n) - 1].clone());
    }
    let at = f * (n - 1) as f64;
    let (first, second) = (at.floor() as usize, at.ceil() as usize);
    let lo = types::cast(values[first].clone(), ty)?;
    if second == first {
        return Ok(lo);
    }
    let hi = types::cast(values[second].clone(), ty)?;
    let t = at - first as f64;
    match (lo, hi) {
        (Value::Float8(lo), Value::Float8(hi)) => Ok(Value::Float8(lo + t * (hi - lo))),
        (lo, hi) => {
            let span = expr::arithmetic(&BinaryOperator::Minus, hi, lo.clone())?;
            let part = expr::arithmetic(&BinaryOperator::Multiply, span, Value::Float8(t))?;
            expr::arithmetic(&BinaryOperator::Plus, lo, part)
        }
    }
}

/// The most frequent of `values` (sorted, so equal values are adjacent);
/// the first of equally frequent ones; NULL for none.
fn mode(values: &[Value]) -> Result<Value, SqlError> {
    let mut best: Option<(usize, usize)> = None;
    let mut start = 0;
    for i in 1..=values.len() {
        let ends = i == values.len()
            || compare(&values[i], &values[start])?.unwrap_or(Ordering::Less) != Ordering::Equal;
        if ends {
            let run = i - start;
            if best.is_none_or(|(_, longest)| run > longest) {
                best = Some((start, run));
            }
            start = i;
        }
    }
    Ok(best.map_or(Value::Null, |(at, _)| values[at].clone()))
}

/// `x` as C's `printf("%g")` prints it (six significant digits, the
/// exponent form below 1e-4 and from 1e6, trailing zeros dropped), which
/// PostgreSQL's error names a fraction with; NaN and the infinities as
/// PostgreSQL spells them.
pub(crate) fn c_g(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to six significant digits.
    let scientific = format!("{x:.5e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("a number");
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mantissa), exponent.abs());
    }
    let decimals = (5 - exponent).max(0) as usize;
    trim(&format!("{x:.decimals$}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_print_as_c_g() {
        // PostgreSQL's "percentile value %g is not between 0 and 1".
        assert_eq!(c_g(1.5), "1.5");
        assert_eq!(c_g(2.0), "2");
        assert_eq!(c_g(-0.000001), "-1e-06");
        assert_eq!(c_g(1e10), "1e+10");
        assert_eq!(c_g(123456.7), "123457");
        assert_eq!(c_g(1234567.0), "1.23457e+06");
        assert_eq!(c_g(0.0001), "0.0001");
        assert_eq!(c_g(-1.25), "-1.25");
        assert_eq!(c_g(f64::NAN), "NaN");
    }

    #[test]
    fn percentiles_pick_and_interpolate_as_postgresql() {
        // select percentile_cont(0.1) within group (order by x) from
        // (values (1), (2), (3), (4)) v(x): 1.3; percentile_disc: 1.
        let values: Vec<Value> = (1..=4).map(Value::Int4).collect();
        let cont = percentile(OrderedSet::PercentileCont, 0.1, &values, SqlType::Float8);
        assert_eq!(cont.unwrap(), Value::Float8(1.3));
        let disc = percentile(OrderedSet::PercentileDisc, 0.1, &values, SqlType::Int4);
        assert_eq!(disc.unwrap(), Value::Int4(1));
        let disc = percentile(OrderedSet::PercentileDisc, 0.0, &values, SqlType::Int4);
        assert_eq!(disc.unwrap(), Value::Int4(1));
        let disc = percentile(OrderedSet::PercentileDisc, 0.5, &values, SqlType::Int4);
        assert_eq!(disc.unwrap(), Value::Int4(2));
    }

    #[test]
    fn mode_takes_the_first_of_equally_frequent_values() {
        let values: Vec<Value> = [1, 2, 2, 3, 3].into_iter().map(Value::Int4).collect();
        assert_eq!(mode(&values).unwrap(), Value::Int4(2));
        assert_eq!(mode(&[]).unwrap(), Value::Null);
    }
}
