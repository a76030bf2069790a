//! The range types' functions and operators, as PostgreSQL 15 binds
//! them (the values and their rules are folio-row's `range.rs`):
//!
//! - the constructors `int4range(a, b [, flags])` ... `tstzrange`: bounds
//!   of the element type or implicitly cast to it (`numrange(1, 2)`), a
//!   NULL bound infinite, `flags` one of `[]`, `[)`, `(]`, `()` (22000
//!   otherwise, 22004 for NULL);
//! - `lower`, `upper` (NULL for an empty range or an infinite bound),
//!   `isempty`, `lower_inc`, `upper_inc`, `lower_inf`, `upper_inf`,
//!   `range_merge`;
//! - the operators `@>` and `<@` (of a range or an element), `&&`, `<<`,
//!   `>>`, `&<`, `&>`, `-|-`, `+`, `*`, `-`. Both sides are ranges of one
//!   type, a quoted literal taking the other side's (`r @> '[1,2)'`); an
//!   element is exactly the range's element type (PostgreSQL's
//!   `anyelement`: `numrange @> 3` is 42883).
//!
//! Comparisons (`=`, `<`, ...) are the generic ones (folio-row's
//! `Value::sql_cmp`, whose range order is `range.rs`'s).

use crate::error::SqlError;
use crate::functions::Func;
use crate::range_operators::RangeOp;
use crate::scalar::{Columns, Scalar};
use folio_row::{Bound, Range, RangeKind, SqlType, Value};
use sqlparser::ast::BinaryOperator;

/// A range function or operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeFunc {
    /// `int4range(a, b [, flags])` and the other constructors.
    Construct(RangeKind),
    Lower,
    Upper,
    IsEmpty,
    LowerInc,
    UpperInc,
    LowerInf,
    UpperInf,
    /// `range_merge`: `+` without the contiguity check.
    Merge,
    /// An operator of ranges (`range_operators.rs`), both operands ranges.
    Op(RangeOp),
    /// `@>` of an element.
    ContainsElement,
    /// `<@` of an element (`element <@ range`).
    ElementContainedBy,
}

/// The functions called by name with one range (`lower`, `upper`: only
/// of a range; of text they are the string functions).
const NAMES: [(&str, RangeFunc); 8] = [
    ("lower", RangeFunc::Lower),
    ("upper", RangeFunc::Upper),
    ("isempty", RangeFunc::IsEmpty),
    ("lower_inc", RangeFunc::LowerInc),
    ("upper_inc", RangeFunc::UpperInc),
    ("lower_inf", RangeFunc::LowerInf),
    ("upper_inf", RangeFunc::UpperInf),
    ("range_merge", RangeFunc::Merge),
];

/// The operator function PostgreSQL names `name` (`range_contains`,
/// `range_minus`, `range_contains_elem`, ...), bound as the operator is.
fn operator_named(name: &str) -> Option<RangeFunc> {
    let op = match name {
        "range_contains_elem" => RangeOp::Contains,
        "elem_contained_by_range" => RangeOp::ContainedBy,
        _ => RangeOp::of_word(name.strip_prefix("range_")?)?,
    };
    Some(RangeFunc::Op(op))
}

impl RangeFunc {
    /// Its name, for the functions called by one.
    pub fn name(self) -> Option<&'static str> {
        match self {
            RangeFunc::Construct(kind) => Some(kind.name()),
            _ => crate::names::name_in(&NAMES, &self),
        }
    }

    /// The operator's symbol, for the operators (EXPLAIN).
    pub fn symbol(self) -> Option<&'static str> {
        match self {
            RangeFunc::Op(op) => Some(op.symbol()),
            RangeFunc::ContainsElement => Some(RangeOp::Contains.symbol()),
            RangeFunc::ElementContainedBy => Some(RangeOp::ContainedBy.symbol()),
            _ => None,
        }
    }

    /// Whether `count` arguments are accepted.
    pub fn takes(self, count: usize) -> bool {
        match self {
            RangeFunc::Construct(_) => (2..=3).contains(&count),
            RangeFunc::Lower
            | RangeFunc::Upper
            | RangeFunc::IsEmpty
            | RangeFunc::LowerInc
            | RangeFunc::UpperInc
            | RangeFunc::LowerInf
            | RangeFunc::UpperInf => count == 1,
            _ => count == 2,
        }
    }

    /// Whether a NULL argument makes the result NULL without a call: all
    /// but the constructors (a NULL bound is an infinite one).
    pub fn is_strict(self) -> bool {
        !matches!(self, RangeFunc::Construct(_))
    }

    /// The result type for arguments of types `args`.
    pub fn ty(self, args: &[SqlType]) -> SqlType {
        let range = args
            .iter()
            .find(|t| matches!(t, SqlType::Range(_)))
            .copied()
            .unwrap_or(SqlType::Range(RangeKind::Int4));
        match self {
            RangeFunc::Construct(kind) => SqlType::Range(kind),
            RangeFunc::Lower | RangeFunc::Upper => match range {
                SqlType::Range(kind) => kind.element(),
                other => other,
            },
            RangeFunc::Merge
            | RangeFunc::Op(RangeOp::Union)
            | RangeFunc::Op(RangeOp::Intersect)
            | RangeFunc::Op(RangeOp::Minus) => range,
            _ => SqlType::Bool,
        }
    }

    /// Its value (NULL arguments of a strict one already answered).
    pub fn eval(self, args: Vec<Value>) -> Result<Value, SqlError> {
        if let RangeFunc::Construct(kind) = self {
            return construct(kind, args);
        }
        let mut args = args.into_iter();
        let first = args.next().unwrap_or(Value::Null);
        let second = args.next().unwrap_or(Value::Null);
        let range = |v: &Value| -> Result<Range, SqlError> {
            match v {
                Value::Range(r) => Ok((**r).clone()),
                other => Err(SqlError::new(
                    "XX000",
                    format!("a range function of a {}", other.type_name()),
                )),
            }
        };
        let bool = Value::Bool;
        let boxed = |r: Range| Value::Range(Box::new(r));
        if matches!(self, RangeFunc::ElementContainedBy) {
            return Ok(bool(range(&second)?.contains_element(&first)));
        }
        let r = range(&first)?;
        let bound_value =
            |b: Option<&Bound>| b.and_then(|b| b.value.clone()).unwrap_or(Value::Null);
        Ok(match self {
            RangeFunc::Lower => bound_value(r.lower()),
            RangeFunc::Upper => bound_value(r.upper()),
            RangeFunc::IsEmpty => bool(r.is_empty()),
            RangeFunc::LowerInc => bool(r.lower().is_some_and(|b| b.inclusive)),
            RangeFunc::UpperInc => bool(r.upper().is_some_and(|b| b.inclusive)),
            RangeFunc::LowerInf => bool(r.lower().is_some_and(|b| b.value.is_none())),
            RangeFunc::UpperInf => bool(r.upper().is_some_and(|b| b.value.is_none())),
            RangeFunc::ContainsElement => bool(r.contains_element(&second)),
            RangeFunc::Op(RangeOp::Contains) => bool(r.contains(&range(&second)?)),
            RangeFunc::Op(RangeOp::ContainedBy) => bool(range(&second)?.contains(&r)),
            RangeFunc::Op(RangeOp::Overlaps) => bool(r.overlaps(&range(&second)?)),
            RangeFunc::Op(RangeOp::Before) => bool(r.before(&range(&second)?)),
            RangeFunc::Op(RangeOp::After) => bool(range(&second)?.before(&r)),
            RangeFunc::Op(RangeOp::NotRight) => bool(r.not_extends_right(&range(&second)?)),
            RangeFunc::Op(RangeOp::NotLeft) => bool(r.not_extends_left(&range(&second)?)),
            RangeFunc::Op(RangeOp::Adjacent) => bool(r.adjacent(&range(&second)?)?),
            RangeFunc::Op(RangeOp::Union) => boxed(r.union(&range(&second)?, true)?),
            RangeFunc::Merge => boxed(r.union(&range(&second)?, false)?),
            RangeFunc::Op(RangeOp::Intersect) => boxed(r.intersection(&range(&second)?)?),
            RangeFunc::Op(RangeOp::Minus) => boxed(r.difference(&range(&second)?)?),
            RangeFunc::Construct(_) | RangeFunc::ElementContainedBy => {
                unreachable!("answered above")
            }
        })
    }
}

/// `kind(lower, upper [, flags])` (PostgreSQL's `range_constructor2/3`).
fn construct(kind: RangeKind, args: Vec<Value>) -> Result<Value, SqlError> {
    let mut args = args.into_iter();
    let lower = args.next().unwrap_or(Value::Null);
    let upper = args.next().unwrap_or(Value::Null);
    let flags = match args.next() {
        None => "[)".to_string(),
        Some(Value::Null) => {
            return Err(SqlError::new(
                "22004",
                "range constructor flags argument must not be null",
            ));
        }
        Some(v) => crate::types::text_output(&v).unwrap_or_default(),
    };
    let (lower_inclusive, upper_inclusive) = match flags.as_bytes() {
        [l @ (b'[' | b'('), u @ (b']' | b')')] => (*l == b'[', *u == b']'),
        _ => {
            return Err(SqlError::new("22000", "invalid range bound flags")
                .with_hint("Valid values are \"[]\", \"[)\", \"(]\", and \"()\"."));
        }
    };
    let bound = |v: Value, inclusive: bool| match v {
        Value::Null => Bound::INFINITE,
        v => Bound::at(v, inclusive),
    };
    Ok(Value::Range(Box::new(Range::new(
        kind,
        bound(lower, lower_inclusive),
        bound(upper, upper_inclusive),
    )?)))
}

/// Whether `name` is a range function's or constructor's.
pub fn is_name(name: &str) -> bool {
    RangeKind::of_name(name).is_some()
        || crate::names::lookup(&NAMES, name).is_some()
        || operator_named(name).is_some()
}

/// The type of an operand, `None` for a quoted literal, NULL or `$n`
/// (PostgreSQL's `unknown`).
fn typed(s: &Scalar, columns: &(impl Columns + ?Sized)) -> Option<SqlType> {
    match s {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        s => Some(s.ty_in(columns)),
    }
}

/// Whether a value of type `from` goes to `to` implicitly (PostgreSQL's
/// implicit casts among the element types, for the constructors'
/// arguments).
fn implicit(from: SqlType, to: SqlType) -> bool {
    use SqlType::*;
    from.oid() == to.oid()
        || matches!(
            (from, to),
            (Int2, Int4 | Int8 | Numeric(_))
                | (Int4, Int8 | Numeric(_))
                | (Int8, Numeric(_))
                | (Date, Timestamp(_) | TimestampTz(_))
                | (Timestamp(_), TimestampTz(_))
        )
}

/// A call of a range function by name: `Ok(call)`, or the arguments back
/// when the name is not one of them here (`lower` of text).
pub fn bind_call(
    name: &str,
    args: Vec<Scalar>,
    columns: &(impl Columns + ?Sized),
) -> Result<Result<Scalar, Vec<Scalar>>, SqlError> {
    let types: Vec<Option<SqlType>> = args.iter().map(|a| typed(a, columns)).collect();
    let no_function = || {
        crate::functions::no_match(format!(
            "function {name}({}) does not exist",
            crate::scalar::argument_types(&args, columns)
        ))
    };
    if let Some(kind) = RangeKind::of_name(name) {
        if !(2..=3).contains(&args.len()) {
            return Err(no_function());
        }
        let element = kind.element();
        let fits = |i: usize, to: SqlType| types[i].is_none_or(|t| implicit(t, to));
        if !fits(0, element) || !fits(1, element) || (args.len() == 3 && !fits(2, SqlType::Text)) {
            return Err(no_function());
        }
        let fitted = args
            .into_iter()
            .enumerate()
            .map(|(i, arg)| {
                let to = if i < 2 { element } else { SqlType::Text };
                match types[i] {
                    None => crate::scalar::fit_unknown(arg, to),
                    Some(t) if t.oid() == to.oid() => Ok(arg),
                    Some(_) => Ok(Scalar::Cast(Box::new(arg), to)),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Ok(Scalar::Func(
            Func::Range(RangeFunc::Construct(kind)),
            fitted,
        )));
    }
    if let Some(func) = operator_named(name) {
        if args.len() != 2 {
            return Err(no_function());
        }
        let [a, b] = <[Scalar; 2]>::try_from(args).expect("two");
        return bind_binary(func, a, b, types[0], types[1])
            .map(Ok)
            .map_err(|_| {
                crate::functions::no_match(format!(
                    "function {name}({}, {}) does not exist",
                    type_name(types[0]),
                    type_name(types[1])
                ))
            });
    }
    let Some(func) = crate::names::lookup(&NAMES, name) else {
        return Ok(Err(args));
    };
    let range_at = |i: usize| matches!(types.get(i), Some(Some(SqlType::Range(_))));
    match func {
        // `lower('abc')`, `upper(t)`: the string functions.
        RangeFunc::Lower | RangeFunc::Upper if !range_at(0) => Ok(Err(args)),
        RangeFunc::Merge if args.len() == 2 => {
            let [a, b] = <[Scalar; 2]>::try_from(args).expect("two");
            match both_ranges(a, b, types[0], types[1])? {
                Some((a, b)) => Ok(Ok(Scalar::Func(Func::Range(func), vec![a, b]))),
                None => Err(crate::functions::no_match(format!(
                    "function {name}({}, {}) does not exist",
                    type_name(types[0]),
                    type_name(types[1])
                ))),
            }
        }
        _ if args.len() == 1 && range_at(0) => Ok(Ok(Scalar::Func(Func::Range(func), args))),
        _ if args.len() == 1 && types[0].is_none() => Err(crate::functions::not_unique(format!(
            "function {name}(unknown) is not unique"
        ))),
        _ => Err(no_function()),
    }
}

fn type_name(t: Option<SqlType>) -> String {
    t.map_or("unknown".into(), |t| t.name())
}

/// Two operands of one range type, a quoted literal taking the other's;
/// `None` when they are not.
fn both_ranges(
    a: Scalar,
    b: Scalar,
    ta: Option<SqlType>,
    tb: Option<SqlType>,
) -> Result<Option<(Scalar, Scalar)>, SqlError> {
    let fit = crate::scalar::fit_unknown;
    Ok(match (ta, tb) {
        (Some(x @ SqlType::Range(_)), Some(y)) if x == y => Some((a, b)),
        (Some(x @ SqlType::Range(_)), None) => Some((a, fit(b, x)?)),
        (None, Some(y @ SqlType::Range(_))) => Some((fit(a, y)?, b)),
        _ => None,
    })
}

/// `a op b` where a side is a range and `op` one of the range
/// operators: the bound call; `None` for the other cases, which bind as
/// before.
pub fn bind_operator(
    op: &BinaryOperator,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let (ta, tb) = (typed(a, columns), typed(b, columns));
    let range = |t: Option<SqlType>| matches!(t, Some(SqlType::Range(_)));
    if !range(ta) && !range(tb) {
        return None;
    }
    let func = RangeFunc::Op(RangeOp::of_operator(op)?);
    Some(bind_binary(func, a.clone(), b.clone(), ta, tb))
}

fn bind_binary(
    func: RangeFunc,
    a: Scalar,
    b: Scalar,
    ta: Option<SqlType>,
    tb: Option<SqlType>,
) -> Result<Scalar, SqlError> {
    let symbol = func.symbol().unwrap_or("?");
    let no_operator = || {
        crate::functions::no_operator(format!(
            "operator does not exist: {} {symbol} {}",
            type_name(ta),
            type_name(tb)
        ))
    };
    let element_of = |t: Option<SqlType>| match t {
        Some(SqlType::Range(kind)) => Some(kind.element()),
        _ => None,
    };
    let same_element = |e: Option<SqlType>, t: Option<SqlType>| matches!((e, t), (Some(e), Some(t)) if e.oid() == t.oid());
    let call = |f: RangeFunc, a: Scalar, b: Scalar| Ok(Scalar::Func(Func::Range(f), vec![a, b]));
    match func {
        RangeFunc::Op(RangeOp::Contains) if same_element(element_of(ta), tb) => {
            call(RangeFunc::ContainsElement, a, b)
        }
        RangeFunc::Op(RangeOp::ContainedBy) if same_element(element_of(tb), ta) => {
            call(RangeFunc::ElementContainedBy, a, b)
        }
        _ => match both_ranges(a, b, ta, tb)? {
            Some((a, b)) => call(func, a, b),
            None => Err(no_operator()),
        },
    }
}
