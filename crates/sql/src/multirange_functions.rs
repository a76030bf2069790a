//! The multirange types' functions, operators, casts and aggregates, as
//! PostgreSQL 15 binds them (the values and their rules are folio-row's
//! `multirange.rs`, which combines `range.rs`'s):
//!
//! - the constructors `int4multirange(range, ...)` ... `tstzmultirange`
//!   (none: the empty multirange; a NULL range is 22004, but a call of
//!   one argument is strict), with `VARIADIC array` (`variadic.rs`);
//!   `multirange(range)` and the cast `range::multirange`;
//! - `lower`, `upper`, `isempty`, `lower_inc`, `upper_inc`, `lower_inf`,
//!   `upper_inf` (of the span from the first range to the last) and
//!   `range_merge(multirange)` (the span itself);
//! - the operators `@>` and `<@` (a multirange with a multirange, a range
//!   of its range type, or an element of its element type, on either
//!   side as PostgreSQL defines them), `&&`, `<<`, `>>`, `&<`, `&>`,
//!   `-|-` (with a multirange or a range on either side), `+`, `*`, `-`
//!   (of two multiranges), and their functions by name
//!   (`multirange_contains_elem`, `range_overlaps_multirange`, ...);
//!   a quoted literal takes the type of its side's shape (the other
//!   operand's multirange type when the name does not say);
//! - the aggregates `range_agg(range | multirange)` (a multirange) and
//!   `range_intersect_agg(range | multirange)` (the argument's type),
//!   run by `aggregate.rs` over the values it gathers ([`aggregate`]);
//! - `unnest(multirange)`: `table_functions.rs`, its row type from
//!   [`range_type`].
//!
//! Comparisons (`=`, `<`, ...) are the generic ones (folio-row's
//! `Value::sql_cmp`, whose multirange order is `multirange.rs`'s).

use crate::error::SqlError;
use crate::functions::Func;
use crate::range_operators::RangeOp;
use crate::scalar::{Columns, Scalar};
use folio_row::{Multirange, Range, RangeKind, SqlType, Value};
use sqlparser::ast::BinaryOperator;

/// A multirange function or operator. The operators take their operands
/// in any of the shapes PostgreSQL defines for them (checked when bound),
/// and are told apart by the values' variants when run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultirangeFunc {
    /// `int4multirange(range, ...)` and the other constructors.
    Construct(RangeKind),
    /// `int4multirange(VARIADIC ranges)`: an array of ranges.
    ConstructArray(RangeKind),
    /// `multirange(range)`, and the cast of a range.
    OfRange,
    Lower,
    Upper,
    IsEmpty,
    LowerInc,
    UpperInc,
    LowerInf,
    UpperInf,
    /// `range_merge(multirange)`: the span.
    Merge,
    /// An operator of the range family (`range_operators.rs`), one
    /// operand a multirange.
    Op(RangeOp),
}

/// What an operand of a multirange operator is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Multirange,
    Range,
    Element,
}

/// The functions called by name with one multirange.
const UNARY: [(&str, MultirangeFunc); 9] = [
    ("lower", MultirangeFunc::Lower),
    ("upper", MultirangeFunc::Upper),
    ("isempty", MultirangeFunc::IsEmpty),
    ("lower_inc", MultirangeFunc::LowerInc),
    ("upper_inc", MultirangeFunc::UpperInc),
    ("lower_inf", MultirangeFunc::LowerInf),
    ("upper_inf", MultirangeFunc::UpperInf),
    ("range_merge", MultirangeFunc::Merge),
    ("multirange", MultirangeFunc::OfRange),
];

impl MultirangeFunc {
    /// Its name, for the functions called by one.
    pub fn name(self) -> Option<&'static str> {
        match self {
            MultirangeFunc::Construct(kind) | MultirangeFunc::ConstructArray(kind) => {
                Some(kind.multirange_name())
            }
            _ => crate::names::name_in(&UNARY, &self),
        }
    }

    /// The operator's symbol, for the operators (EXPLAIN).
    pub fn symbol(self) -> Option<&'static str> {
        match self {
            MultirangeFunc::Op(op) => Some(op.symbol()),
            _ => None,
        }
    }

    /// Whether the shapes `(left, right)` are PostgreSQL's for the
    /// operator (one of them a multirange).
    fn takes(self, left: Shape, right: Shape) -> bool {
        use Shape::*;
        match self {
            MultirangeFunc::Op(RangeOp::Contains) => matches!(
                (left, right),
                (Multirange, Multirange | Range | Element) | (Range, Multirange)
            ),
            MultirangeFunc::Op(RangeOp::ContainedBy) => matches!(
                (left, right),
                (Multirange | Range | Element, Multirange) | (Multirange, Range)
            ),
            MultirangeFunc::Op(RangeOp::Union)
            | MultirangeFunc::Op(RangeOp::Intersect)
            | MultirangeFunc::Op(RangeOp::Minus) => (left, right) == (Multirange, Multirange),
            _ => left != Element && right != Element,
        }
    }

    /// Whether a NULL argument makes the result NULL without a call: all
    /// but a constructor of other than one range.
    pub fn is_strict(self, count: usize) -> bool {
        !matches!(self, MultirangeFunc::Construct(_) if count != 1)
    }

    /// The result type for arguments of types `args`.
    pub fn ty(self, args: &[SqlType]) -> SqlType {
        let kind = args
            .iter()
            .find_map(|t| match t {
                SqlType::Multirange(kind) | SqlType::Range(kind) => Some(*kind),
                SqlType::Array(SqlType::Range(kind)) => Some(*kind),
                _ => None,
            })
            .unwrap_or(RangeKind::Int4);
        match self {
            MultirangeFunc::Construct(kind) | MultirangeFunc::ConstructArray(kind) => {
                SqlType::Multirange(kind)
            }
            MultirangeFunc::Lower | MultirangeFunc::Upper => kind.element(),
            MultirangeFunc::Merge => SqlType::Range(kind),
            MultirangeFunc::OfRange
            | MultirangeFunc::Op(RangeOp::Union)
            | MultirangeFunc::Op(RangeOp::Intersect)
            | MultirangeFunc::Op(RangeOp::Minus) => SqlType::Multirange(kind),
            _ => SqlType::Bool,
        }
    }

    /// Its value (NULL arguments of a strict one already answered).
    pub fn eval(self, args: Vec<Value>) -> Result<Value, SqlError> {
        let multi = |m: Multirange| Value::Multirange(Box::new(m));
        match self {
            MultirangeFunc::Construct(kind) => return Ok(multi(construct(kind, args)?)),
            MultirangeFunc::ConstructArray(kind) => {
                let ranges = args.into_iter().next().unwrap_or(Value::Null);
                return Ok(match ranges {
                    Value::Null => Value::Null,
                    array => multi(construct(kind, crate::variadic::spread(array))?),
                });
            }
            _ => {}
        }
        let mut args = args.into_iter();
        let first = args.next().unwrap_or(Value::Null);
        let second = args.next().unwrap_or(Value::Null);
        let bool = |b: bool| Ok(Value::Bool(b));
        let span = |v: &Value| match v {
            Value::Multirange(m) => Ok(m.span()),
            Value::Range(r) => Ok((**r).clone()),
            other => Err(not_multirange(other)),
        };
        let multirange = |v: &Value| match v {
            Value::Multirange(m) => Ok((**m).clone()),
            other => Err(not_multirange(other)),
        };
        let bound_value = |b: Option<&folio_row::Bound>| {
            Ok(b.and_then(|b| b.value.clone()).unwrap_or(Value::Null))
        };
        match self {
            MultirangeFunc::Construct(_) | MultirangeFunc::ConstructArray(_) => {
                unreachable!("answered above")
            }
            MultirangeFunc::OfRange => match first {
                Value::Range(r) => Ok(multi(Multirange::new(r.kind, vec![*r])?)),
                other => Err(not_multirange(&other)),
            },
            MultirangeFunc::Lower => bound_value(span(&first)?.lower()),
            MultirangeFunc::Upper => bound_value(span(&first)?.upper()),
            MultirangeFunc::IsEmpty => bool(multirange(&first)?.is_empty()),
            MultirangeFunc::LowerInc => bool(span(&first)?.lower().is_some_and(|b| b.inclusive)),
            MultirangeFunc::UpperInc => bool(span(&first)?.upper().is_some_and(|b| b.inclusive)),
            MultirangeFunc::LowerInf => {
                bool(span(&first)?.lower().is_some_and(|b| b.value.is_none()))
            }
            MultirangeFunc::UpperInf => {
                bool(span(&first)?.upper().is_some_and(|b| b.value.is_none()))
            }
            MultirangeFunc::Merge => Ok(Value::Range(Box::new(span(&first)?))),
            MultirangeFunc::Op(RangeOp::Contains) => bool(contains(&first, &second)?),
            MultirangeFunc::Op(RangeOp::ContainedBy) => bool(contains(&second, &first)?),
            MultirangeFunc::Op(RangeOp::Overlaps) => bool(match (&first, &second) {
                (Value::Multirange(a), Value::Multirange(b)) => a.overlaps(b),
                (Value::Multirange(m), Value::Range(r))
                | (Value::Range(r), Value::Multirange(m)) => m.overlaps_range(r),
                (other, _) => return Err(not_multirange(other)),
            }),
            MultirangeFunc::Op(RangeOp::Before) => bool(span(&first)?.before(&span(&second)?)),
            MultirangeFunc::Op(RangeOp::After) => bool(span(&second)?.before(&span(&first)?)),
            MultirangeFunc::Op(RangeOp::NotRight) => {
                bool(span(&first)?.not_extends_right(&span(&second)?))
            }
            MultirangeFunc::Op(RangeOp::NotLeft) => {
                bool(span(&first)?.not_extends_left(&span(&second)?))
            }
            MultirangeFunc::Op(RangeOp::Adjacent) => bool(span(&first)?.adjacent(&span(&second)?)?),
            MultirangeFunc::Op(RangeOp::Union) => {
                Ok(multi(multirange(&first)?.union(&multirange(&second)?)?))
            }
            MultirangeFunc::Op(RangeOp::Intersect) => Ok(multi(
                multirange(&first)?.intersection(&multirange(&second)?)?,
            )),
            MultirangeFunc::Op(RangeOp::Minus) => Ok(multi(
                multirange(&first)?.difference(&multirange(&second)?)?,
            )),
        }
    }
}

/// `a @> b` for the shapes PostgreSQL defines (`takes`).
fn contains(a: &Value, b: &Value) -> Result<bool, SqlError> {
    Ok(match (a, b) {
        (Value::Multirange(a), Value::Multirange(b)) => a.contains(b),
        (Value::Multirange(m), Value::Range(r)) => m.contains_range(r),
        (Value::Range(r), Value::Multirange(m)) => m.is_within_range(r),
        (Value::Multirange(m), element) => m.contains_element(element),
        (other, _) => return Err(not_multirange(other)),
    })
}

fn not_multirange(v: &Value) -> SqlError {
    SqlError::new(
        "XX000",
        format!("a multirange function of a {}", v.type_name()),
    )
}

/// The multirange of `ranges` (a NULL among them is 22004, as
/// PostgreSQL's `multirange_constructor2`).
fn construct(kind: RangeKind, ranges: Vec<Value>) -> Result<Multirange, SqlError> {
    let ranges = ranges
        .into_iter()
        .map(|v| match v {
            Value::Range(r) => Ok(*r),
            Value::Null => Err(SqlError::new(
                "22004",
                "multirange values cannot contain null members",
            )),
            other => Err(not_multirange(&other)),
        })
        .collect::<Result<Vec<Range>, _>>()?;
    Ok(Multirange::new(kind, ranges)?)
}

/// A cast to or from a multirange type: from its range type's range, or
/// itself (text is `types.rs`'s); anything else is 42846.
pub fn cast(value: Value, ty: SqlType) -> Result<Value, SqlError> {
    match (value, ty) {
        (Value::Multirange(m), SqlType::Multirange(kind)) if m.kind == kind => {
            Ok(Value::Multirange(m))
        }
        (Value::Range(r), SqlType::Multirange(kind)) if r.kind == kind => {
            MultirangeFunc::OfRange.eval(vec![Value::Range(r)])
        }
        (v, ty) => Err(SqlError::new(
            "42846",
            format!(
                "cannot cast type {} to {}",
                crate::scalar::value_type(&v).name(),
                ty.name()
            ),
        )),
    }
}

/// The range type of a multirange type (`unnest`'s rows).
pub fn range_type(ty: SqlType) -> Option<SqlType> {
    match ty {
        SqlType::Multirange(kind) => Some(SqlType::Range(kind)),
        _ => None,
    }
}

/// `range_agg` (`intersect` false: the union, a multirange) or
/// `range_intersect_agg` (the intersection, of the argument's type) of
/// the non-NULL `values` of a group (none: NULL).
pub fn aggregate(intersect: bool, values: Vec<Value>) -> Result<Value, SqlError> {
    let mut pieces = values.into_iter().map(|v| match v {
        Value::Multirange(m) => Ok((*m, false)),
        Value::Range(r) => Ok((Multirange::new(r.kind, vec![*r])?, true)),
        other => Err(not_multirange(&other)),
    });
    let Some(first) = pieces.next() else {
        return Ok(Value::Null);
    };
    let (mut all, of_ranges) = first?;
    for piece in pieces {
        let (m, _) = piece?;
        all = if intersect {
            all.intersection(&m)?
        } else {
            all.union(&m)?
        };
    }
    Ok(if intersect && of_ranges {
        // The intersection of ranges is one range (or empty).
        Value::Range(Box::new(all.span()))
    } else {
        Value::Multirange(Box::new(all))
    })
}

/// The result type of `range_agg` / `range_intersect_agg` of an argument
/// of type `arg`; `None` when it is no range nor multirange (42883).
pub fn aggregate_type(intersect: bool, arg: SqlType) -> Option<SqlType> {
    match arg {
        SqlType::Range(kind) if intersect => Some(SqlType::Range(kind)),
        SqlType::Range(kind) | SqlType::Multirange(kind) => Some(SqlType::Multirange(kind)),
        _ => None,
    }
}

/// The type of an operand, `None` for a quoted literal, NULL or `$n`
/// (PostgreSQL's `unknown`).
fn typed(s: &Scalar, columns: &(impl Columns + ?Sized)) -> Option<SqlType> {
    match s {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        s => Some(s.ty_in(columns)),
    }
}

fn type_name(t: Option<SqlType>) -> String {
    t.map_or("unknown".into(), |t| t.name())
}

/// Whether `name` is a multirange function's or constructor's.
pub fn is_name(name: &str) -> bool {
    RangeKind::of_multirange_name(name).is_some()
        || crate::names::lookup(&UNARY, name).is_some()
        || operation_name(name).is_some()
}

/// The multirange constructor `name` as a call with `VARIADIC array`
/// (`None` when `name` is no constructor).
pub fn bind_variadic(
    name: &str,
    before: &[Scalar],
    array: Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let kind = RangeKind::of_multirange_name(name)?;
    let ty = typed(&array, columns);
    if !before.is_empty() || ty.is_some_and(|t| t.element() != Some(SqlType::Range(kind))) {
        return Some(Err(crate::functions::no_match(format!(
            "function {name}({}VARIADIC {}) does not exist",
            before
                .iter()
                .map(|a| format!("{}, ", type_name(typed(a, columns))))
                .collect::<String>(),
            type_name(ty)
        ))));
    }
    Some(Ok(Scalar::Func(
        Func::Multirange(MultirangeFunc::ConstructArray(kind)),
        vec![array],
    )))
}

/// A call of a multirange function by name: `Ok(call)`, or the arguments
/// back when the call is not one here (`lower` of a range or of text).
pub fn bind_call(
    name: &str,
    args: Vec<Scalar>,
    columns: &(impl Columns + ?Sized),
) -> Result<Result<Scalar, Vec<Scalar>>, SqlError> {
    let types: Vec<Option<SqlType>> = args.iter().map(|a| typed(a, columns)).collect();
    let no_function = |args: &[Scalar]| {
        crate::functions::no_match(format!(
            "function {name}({}) does not exist",
            crate::scalar::argument_types(args, columns)
        ))
    };
    if let Some(kind) = RangeKind::of_multirange_name(name) {
        if args.len() == 1 && types[0] == Some(SqlType::Multirange(kind)) {
            // (PostgreSQL's `multirange(multirange)`: itself.)
            return Ok(Ok(args.into_iter().next().expect("one")));
        }
        let fits = |t: &Option<SqlType>| t.is_none_or(|t| t == SqlType::Range(kind));
        if !types.iter().all(fits) {
            return Err(no_function(&args));
        }
        let fitted = args
            .into_iter()
            .map(|a| crate::scalar::fit_unknown(a, SqlType::Range(kind)))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Ok(Scalar::Func(
            Func::Multirange(MultirangeFunc::Construct(kind)),
            fitted,
        )));
    }
    let multirange_at = |i: usize| matches!(types.get(i), Some(Some(SqlType::Multirange(_))));
    if let Some(func) = crate::names::lookup(&UNARY, name) {
        if func == MultirangeFunc::OfRange {
            return match types.as_slice() {
                [Some(SqlType::Range(_))] => Ok(Ok(Scalar::Func(Func::Multirange(func), args))),
                _ => Err(no_function(&args)),
            };
        }
        return Ok(if args.len() == 1 && multirange_at(0) {
            Ok(Scalar::Func(Func::Multirange(func), args))
        } else {
            Err(args)
        });
    }
    let Some((func, left, right)) = operation_name(name) else {
        return Ok(Err(args));
    };
    let [a, b] = <[Scalar; 2]>::try_from(args).map_err(|args| no_function(&args))?;
    let bound = bind_binary(func, a, b, types[0], types[1], Some((left, right)));
    bound.map(Ok).map_err(|_| {
        crate::functions::no_match(format!(
            "function {name}({}, {}) does not exist",
            type_name(types[0]),
            type_name(types[1])
        ))
    })
}

/// The operation and shapes a function name says
/// (`multirange_contains_elem`: `@>` of a multirange and an element).
fn operation_name(name: &str) -> Option<(MultirangeFunc, Shape, Shape)> {
    let shape = |s: &str| match s {
        "multirange" => Some(Shape::Multirange),
        "range" => Some(Shape::Range),
        "elem" => Some(Shape::Element),
        _ => None,
    };
    let (left, rest) = name.split_once('_')?;
    let left = shape(left)?;
    // `<left>_<operation>_<right>` (PostgreSQL's `multirange_contains_elem`,
    // `range_before_multirange`, ...), each operation with the shapes it takes.
    RangeOp::all().find_map(|op| {
        let func = MultirangeFunc::Op(op);
        let right = rest.strip_prefix(op.word())?.strip_prefix('_')?;
        let right = shape(right)?;
        (func.takes(left, right)).then_some((func, left, right))
    })
}

/// `a op b` where a side is a multirange and `op` one of the multirange
/// operators: the bound call; `None` for the other cases, which bind as
/// before.
pub fn bind_operator(
    op: &BinaryOperator,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let (ta, tb) = (typed(a, columns), typed(b, columns));
    let multirange = |t: Option<SqlType>| matches!(t, Some(SqlType::Multirange(_)));
    if !multirange(ta) && !multirange(tb) {
        return None;
    }
    let func = MultirangeFunc::Op(RangeOp::of_operator(op)?);
    Some(bind_binary(func, a.clone(), b.clone(), ta, tb, None))
}

/// Binds `func(a, b)`: each operand's shape from its type (a quoted
/// literal's from `want`, else a multirange of the other's type), then
/// PostgreSQL's shapes for `func`, all of one range type.
fn bind_binary(
    func: MultirangeFunc,
    a: Scalar,
    b: Scalar,
    ta: Option<SqlType>,
    tb: Option<SqlType>,
    want: Option<(Shape, Shape)>,
) -> Result<Scalar, SqlError> {
    let no_operator = || {
        crate::functions::no_operator(format!(
            "operator does not exist: {} {} {}",
            type_name(ta),
            func.symbol().unwrap_or("?"),
            type_name(tb)
        ))
    };
    let kind_of = |t: Option<SqlType>| match t {
        Some(SqlType::Multirange(kind) | SqlType::Range(kind)) => Some(kind),
        _ => None,
    };
    let Some(kind) = kind_of(ta).or(kind_of(tb)) else {
        return Err(no_operator());
    };
    let shape_of = |t: Option<SqlType>, wanted: Option<Shape>| match t {
        None => Some(wanted.unwrap_or(Shape::Multirange)),
        Some(SqlType::Multirange(k)) if k == kind => Some(Shape::Multirange),
        Some(SqlType::Range(k)) if k == kind => Some(Shape::Range),
        Some(t) if t.oid() == kind.element().oid() => Some(Shape::Element),
        Some(_) => None,
    };
    let (Some(left), Some(right)) = (
        shape_of(ta, want.map(|w| w.0)),
        shape_of(tb, want.map(|w| w.1)),
    ) else {
        return Err(no_operator());
    };
    if !func.takes(left, right) || want.is_some_and(|w| w != (left, right)) {
        return Err(no_operator());
    }
    let fit = |s: Scalar, t: Option<SqlType>, shape: Shape| match t {
        Some(_) => Ok(s),
        None => crate::scalar::fit_unknown(
            s,
            match shape {
                Shape::Multirange => SqlType::Multirange(kind),
                Shape::Range => SqlType::Range(kind),
                Shape::Element => kind.element(),
            },
        ),
    };
    Ok(Scalar::Func(
        Func::Multirange(func),
        vec![fit(a, ta, left)?, fit(b, tb, right)?],
    ))
}
