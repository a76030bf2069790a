//! Arrays in expressions: `ARRAY[a, b]`, `a[i]` and `a[l:u]`
//! (`array_subscripts.rs`), `a || b`, `x op ANY (array)` /
//! `ALL (array)`, the containment operators `@>`, `<@` and `&&`, and
//! `array_to_string`, `string_to_array`, `array_upper`, `array_lower`, `array_length`,
//! `cardinality`, `array_position`, `array_append`, `array_prepend`,
//! `array_cat`, `array_remove` and `array_replace`,
//! with PostgreSQL's results for NULLs and empty arrays. Arrays are
//! one-dimensional with lower bound 1 (folio-row `Value::Array`).

use crate::error::SqlError;
use crate::functions::Func;
use crate::scalar::{Cmp, Columns, Scalar, any_or_all, compare};
use crate::types;
use folio_row::{SqlType, Value};
use sqlparser::ast::Expr;

/// An array function.
/// Which of PostgreSQL's array `||` operators a `Cat` is: `anyarray ||
/// anyarray` (`array_cat`), `anyarray || anyelement` (`array_append`) or
/// `anyelement || anyarray` (`array_prepend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatOf {
    Arrays,
    Append,
    Prepend,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayFunc {
    /// `ARRAY[a, b, ...]` (its arguments cast to one type when bound).
    Construct,
    /// `ARRAY[a, b, ...]` of arrays, `ARRAY[[1, 2], [3, 4]]`: one more
    /// dimension ([`nest`]); its arguments cast to one array type.
    Nest,
    /// `array[i]...`, an element, or `array[l:u]...`, a slice
    /// (`array_subscripts.rs`); its arguments are the array and the
    /// bounds written.
    Subscript(crate::array_subscripts::Subscripts),
    /// `a[...] = x` in a SET list: the array with the subscripts
    /// assigned (`array_set::assign`); its arguments are the array, the
    /// bounds written and the value.
    Assign(crate::array_subscripts::Subscripts),
    /// `a || b` of two arrays, or of an array and an element (NULL is an
    /// empty array here, as PostgreSQL's `array_cat`); the operator's
    /// form, which the operands' types chose.
    Cat(CatOf),
    /// `x cmp ANY (array)` (`all`: `ALL (array)`).
    Compare {
        cmp: Cmp,
        all: bool,
    },
    ToString,
    /// `string_to_array(text, delimiter [, null_string])`: the pieces
    /// between delimiters (each character for a NULL delimiter, the
    /// whole text for an empty one; none of an empty text), those equal
    /// to `null_string` NULL.
    FromString,
    Upper,
    Lower,
    Length,
    Cardinality,
    /// `array_position(array, x [, start])`: the first index of `x` (NOT
    /// DISTINCT: NULL finds NULL), from `start` on.
    Position,
    /// `array_positions(array, x)`: every index of `x`, as `int[]`.
    Positions,
    /// `a @> b`: every element of `b` is in `a` (a NULL element is in
    /// nothing), as PostgreSQL's `arraycontains`.
    Contains,
    /// `a <@ b`: `b @> a`.
    ContainedBy,
    /// `a && b`: an element in both.
    Overlaps,
    /// `array_append(array, element)` (a NULL array is empty).
    Append,
    /// `array_prepend(element, array)`.
    Prepend,
    /// `array_remove(array, element)`: every element not distinct from it
    /// goes.
    Remove,
    /// `array_replace(array, from, to)`.
    Replace,
    /// `x [NOT] [I]LIKE ANY (array)` / `ALL (array)`: each element a
    /// pattern, three-valued as [`crate::scalar::any_or_all`].
    Like {
        negated: bool,
        insensitive: bool,
        all: bool,
        /// `~ ANY`: the elements are regular expressions.
        regex: bool,
    },
    /// `array_dims(array)`: `[l:u]` for each dimension (NULL for none).
    Dims,
    /// `array_ndims(array)` (NULL for an empty array).
    Ndims,
    /// `array_fill(value, dims [, lower bounds])` ([`fill`]).
    Fill,
    /// `trim_array(array, n)`: without its last `n` elements (2202E
    /// unless `n` is from 0 to the length).
    Trim,
}

/// The array functions called by name.
const NAMES: [(&str, ArrayFunc); 17] = [
    ("array_dims", ArrayFunc::Dims),
    ("array_ndims", ArrayFunc::Ndims),
    ("array_fill", ArrayFunc::Fill),
    ("array_to_string", ArrayFunc::ToString),
    ("string_to_array", ArrayFunc::FromString),
    ("array_upper", ArrayFunc::Upper),
    ("array_lower", ArrayFunc::Lower),
    ("array_length", ArrayFunc::Length),
    ("cardinality", ArrayFunc::Cardinality),
    ("array_position", ArrayFunc::Position),
    ("array_positions", ArrayFunc::Positions),
    ("array_append", ArrayFunc::Append),
    ("array_prepend", ArrayFunc::Prepend),
    ("array_cat", ArrayFunc::Cat(CatOf::Arrays)),
    ("array_remove", ArrayFunc::Remove),
    ("array_replace", ArrayFunc::Replace),
    ("trim_array", ArrayFunc::Trim),
];

impl ArrayFunc {
    /// The function called `name`, if it is one of these.
    pub fn of(name: &str) -> Option<ArrayFunc> {
        crate::names::lookup(&NAMES, name)
    }

    /// Its name, for the functions called by one (EXPLAIN).
    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    /// Whether `count` arguments are accepted.
    pub fn takes(self, count: usize) -> bool {
        match self {
            ArrayFunc::Construct | ArrayFunc::Nest => true,
            ArrayFunc::Cardinality | ArrayFunc::Dims | ArrayFunc::Ndims => count == 1,
            ArrayFunc::Fill => (2..=3).contains(&count),
            ArrayFunc::ToString | ArrayFunc::FromString => (2..=3).contains(&count),
            ArrayFunc::Replace => count == 3,
            ArrayFunc::Position => (2..=3).contains(&count),
            ArrayFunc::Subscript(s) => count == 1 + s.args(),
            ArrayFunc::Assign(s) => count == 2 + s.args(),
            _ => count == 2,
        }
    }

    /// Whether a NULL argument makes the result NULL without a call.
    pub fn is_strict(self) -> bool {
        !matches!(
            self,
            ArrayFunc::Construct
                | ArrayFunc::Nest
                | ArrayFunc::Assign(_)
                | ArrayFunc::Compare { .. }
                | ArrayFunc::Like { .. }
                | ArrayFunc::Position
                | ArrayFunc::Positions
                | ArrayFunc::Cat(_)
                | ArrayFunc::Append
                | ArrayFunc::Prepend
                | ArrayFunc::Remove
                | ArrayFunc::Replace
                | ArrayFunc::FromString
                | ArrayFunc::ToString
                | ArrayFunc::Fill
        )
    }

    /// The result type for arguments of types `args`.
    pub fn ty(self, args: &[SqlType]) -> SqlType {
        match self {
            ArrayFunc::Construct => element_type(args)
                .array_of()
                .unwrap_or(SqlType::Array(&SqlType::Text)),
            ArrayFunc::Nest => element_type(args),
            ArrayFunc::Subscript(s) if !s.slice => args
                .first()
                .and_then(|a| a.element())
                .unwrap_or(SqlType::Text),
            ArrayFunc::Compare { .. }
            | ArrayFunc::Like { .. }
            | ArrayFunc::Contains
            | ArrayFunc::ContainedBy
            | ArrayFunc::Overlaps => SqlType::Bool,
            ArrayFunc::Subscript(_) | ArrayFunc::Assign(_) | ArrayFunc::Trim => args
                .first()
                .copied()
                .unwrap_or(SqlType::Array(&SqlType::Text)),
            ArrayFunc::Cat(_)
            | ArrayFunc::Append
            | ArrayFunc::Prepend
            | ArrayFunc::Remove
            | ArrayFunc::Replace => args
                .iter()
                .copied()
                .find(|t| t.element().is_some())
                .unwrap_or(SqlType::Array(&SqlType::Text)),
            ArrayFunc::ToString | ArrayFunc::Dims => SqlType::Text,
            ArrayFunc::Fill => {
                (args.first().and_then(|t| t.array_of())).unwrap_or(SqlType::Array(&SqlType::Text))
            }
            ArrayFunc::Positions => SqlType::Array(&SqlType::Int4),
            ArrayFunc::FromString => SqlType::Array(&SqlType::Text),
            _ => SqlType::Int4,
        }
    }

    /// Its value.
    pub fn eval(self, args: Vec<Value>) -> Result<Value, SqlError> {
        if self == ArrayFunc::Construct {
            return Ok(Value::array(args));
        }
        if self == ArrayFunc::Nest {
            return nest(args);
        }
        if let ArrayFunc::Assign(shape) = self {
            return crate::array_set::assign(shape, args);
        }
        if let ArrayFunc::Like {
            negated,
            insensitive,
            all,
            regex,
        } = self
        {
            return like_any(args, negated, insensitive, all, regex);
        }
        if let ArrayFunc::Cat(of) = self {
            // An element on one side: PostgreSQL's `array_append` or
            // `array_prepend`, a NULL array an empty one.
            let as_function = match of {
                CatOf::Arrays => None,
                CatOf::Append => Some(ArrayFunc::Append),
                CatOf::Prepend => Some(ArrayFunc::Prepend),
            };
            if let Some(changed) = as_function.and_then(|f| f.change(&args)) {
                return changed;
            }
            let mut args = args.into_iter();
            let a = args.next().unwrap_or(Value::Null);
            return crate::array_edits::cat(a, args.next().unwrap_or(Value::Null));
        }
        if let Some(changed) = self.change(&args) {
            return changed;
        }
        if self == ArrayFunc::FromString {
            return Ok(split(&args));
        }
        if self == ArrayFunc::Fill {
            return fill(args);
        }
        let mut args = args.into_iter();
        let first = args.next().unwrap_or(Value::Null);
        if let ArrayFunc::Compare { cmp, all } = self {
            let items = match args.next().unwrap_or(Value::Null) {
                Value::Null => return Ok(Value::Null),
                array => items_of(array)?,
            };
            return any_or_all(&first, items.into_iter().map(Ok), cmp, all);
        }
        if let (ArrayFunc::Subscript(s), Value::Array(array)) = (self, &first) {
            let rest: Vec<Value> = args.collect();
            return Ok(match (s.bounds(&rest), s.slice) {
                (None, _) => Value::Null,
                (Some(bounds), true) => crate::array_subscripts::slice(array, &bounds),
                (Some(bounds), false) => {
                    let at: Vec<i64> = bounds.iter().filter_map(|b| b.0).collect();
                    crate::array_subscripts::element(array, &at)
                }
            });
        }
        let items = match first {
            Value::Null => return Ok(Value::Null),
            array => items_of(array)?,
        };
        let second = args.next().unwrap_or(Value::Null);
        let len = items.len() as i32;
        // Dimension `v` (from 1) of the array, if it has it.
        let dimension = |v: &Value| match crate::functions::int_arg(v) {
            Ok(d) if d >= 1 => items.dim(d as usize - 1),
            _ => None,
        };
        Ok(match self {
            // Not strict in its NULL string (PostgreSQL's three-argument
            // form): a NULL one leaves NULL elements out.
            ArrayFunc::ToString if second == Value::Null => Value::Null,
            ArrayFunc::ToString => {
                let separator = text(&second);
                let null = args.next().filter(|v| *v != Value::Null).map(|v| text(&v));
                let parts: Vec<String> = items
                    .iter()
                    .filter_map(|v| match v {
                        Value::Null => null.clone(),
                        v => Some(text(v)),
                    })
                    .collect();
                Value::Text(parts.join(&separator))
            }
            ArrayFunc::Upper | ArrayFunc::Length | ArrayFunc::Lower => match dimension(&second) {
                None => Value::Null,
                Some(d) => Value::Int4(match self {
                    ArrayFunc::Upper => d.upper(),
                    ArrayFunc::Lower => d.lower,
                    _ => d.len as i32,
                }),
            },
            ArrayFunc::Cardinality => Value::Int4(len),
            ArrayFunc::Ndims if items.ndims() == 0 => Value::Null,
            ArrayFunc::Ndims => Value::Int4(items.ndims() as i32),
            ArrayFunc::Dims if items.ndims() == 0 => Value::Null,
            ArrayFunc::Dims => Value::Text(
                (items.dims().iter())
                    .map(|d| format!("[{}:{}]", d.lower, d.upper()))
                    .collect(),
            ),
            ArrayFunc::Trim => {
                crate::array_edits::trim(&items, crate::functions::int_arg(&second)?)?
            }
            ArrayFunc::Contains | ArrayFunc::ContainedBy | ArrayFunc::Overlaps => {
                let other = match second {
                    Value::Null => return Ok(Value::Null),
                    array => items_of(array)?,
                };
                let (outer, inner) = match self {
                    ArrayFunc::ContainedBy => (&other, &items),
                    _ => (&items, &other),
                };
                let within = |v: &Value| outer.iter().any(|o| equal(o, v));
                Value::Bool(match self {
                    ArrayFunc::Overlaps => inner.iter().any(within),
                    _ => inner.iter().all(within),
                })
            }
            ArrayFunc::Position | ArrayFunc::Positions if items.ndims() > 1 => {
                return Err(SqlError::new(
                    "0A000",
                    "searching for elements in multidimensional arrays is not supported",
                ));
            }
            // Positions count from the lower bound.
            ArrayFunc::Position => {
                let lower = items.dim(0).map_or(1, |d| i64::from(d.lower));
                let from = match args.next() {
                    None => lower,
                    Some(Value::Null) => {
                        return Err(SqlError::new("22004", "initial position must not be null"));
                    }
                    Some(start) => crate::functions::int_arg(&start)?.max(lower),
                };
                let found = (items.iter().enumerate())
                    .skip((from - lower).min(i64::from(len)) as usize)
                    .find(|(_, v)| not_distinct(v, &second));
                found.map_or(Value::Null, |(i, _)| Value::Int4((lower + i as i64) as i32))
            }
            ArrayFunc::Positions => {
                let lower = items.dim(0).map_or(1, |d| d.lower);
                Value::Array(
                    (items.iter().enumerate())
                        .filter(|(_, v)| not_distinct(v, &second))
                        .map(|(i, _)| Value::Int4(lower + i as i32))
                        .collect(),
                )
            }
            ArrayFunc::Construct
            | ArrayFunc::Nest
            | ArrayFunc::Assign(_)
            | ArrayFunc::Like { .. }
            | ArrayFunc::Compare { .. }
            | ArrayFunc::Subscript(_)
            | ArrayFunc::Cat(_)
            | ArrayFunc::Append
            | ArrayFunc::Prepend
            | ArrayFunc::Remove
            | ArrayFunc::Replace
            | ArrayFunc::FromString
            | ArrayFunc::Fill => {
                unreachable!("evaluated above")
            }
        })
    }
}

impl ArrayFunc {
    /// The array `array_append`, `array_prepend`, `array_remove` or
    /// `array_replace` makes of `args` (`None`: another function;
    /// `array_edits.rs` owns the rules).
    fn change(self, args: &[Value]) -> Option<Result<Value, SqlError>> {
        use crate::array_edits;
        Some(match (self, args) {
            (ArrayFunc::Append, [array, element]) => {
                array_edits::append(array.clone(), element.clone())
            }
            (ArrayFunc::Prepend, [element, array]) => {
                array_edits::prepend(element.clone(), array.clone())
            }
            (ArrayFunc::Remove, [array, gone]) => array_edits::remove(array, gone, not_distinct),
            (ArrayFunc::Replace, [array, from, to]) => {
                array_edits::replace(array, from, to, not_distinct)
            }
            _ => return None,
        })
    }
}

/// `x LIKE ANY (array)` and its kin (`args`: `x`, the array): true
/// for ANY as soon as a pattern matches, false for ALL as soon as one
/// does not; else NULL if `x` or a pattern was NULL; else ALL's true,
/// ANY's false. NOT negates each match.
fn like_any(
    args: Vec<Value>,
    negated: bool,
    insensitive: bool,
    all: bool,
    regex: bool,
) -> Result<Value, SqlError> {
    let mut args = args.into_iter();
    let x = args.next().unwrap_or(Value::Null);
    let patterns = match args.next().unwrap_or(Value::Null) {
        Value::Null => return Ok(Value::Null),
        array => items_of(array)?,
    };
    let mut unknown = false;
    for pattern in patterns {
        if x == Value::Null || pattern == Value::Null {
            unknown = true;
            continue;
        }
        let matched = if regex {
            crate::regex_match::matches(&text(&x), &text(&pattern), insensitive)?
        } else {
            crate::functions::like(&text(&x), &text(&pattern), insensitive)
        };
        let hit = matched != negated;
        if hit != all {
            return Ok(Value::Bool(!all));
        }
    }
    Ok(if unknown {
        Value::Null
    } else {
        Value::Bool(all)
    })
}

/// The array a LIKE's pattern quantifies, and whether by ALL: sqlparser
/// reads `x LIKE ANY (a)` with `any` set and `(a)` as the pattern, and
/// `x LIKE ALL (a)` as a call of `all`.
pub fn quantified_pattern(any: bool, pattern: &Expr) -> Option<(&Expr, bool)> {
    if any {
        return Some((
            match pattern {
                Expr::Nested(inner) => inner,
                e => e,
            },
            false,
        ));
    }
    let Expr::Function(f) = pattern else {
        return None;
    };
    let is_all = matches!(f.name.0.as_slice(), [part] if part.as_ident().is_some_and(|i| i.quote_style.is_none() && i.value.eq_ignore_ascii_case("all")));
    let sqlparser::ast::FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match list.args.as_slice() {
        [sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(e))]
            if is_all =>
        {
            Some((e, true))
        }
        _ => None,
    }
}

/// Whether two elements are equal (a NULL equals nothing).
fn equal(a: &Value, b: &Value) -> bool {
    compare(a, b).ok().flatten().is_some_and(|o| o.is_eq())
}

/// `a IS NOT DISTINCT FROM b` of two elements.
fn not_distinct(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        _ => equal(a, b),
    }
}

/// Binds `a op b` if `op` is an array containment operator (`@>`, `<@`,
/// `&&`) and a side is an array: a quoted literal takes the other side's
/// type; two arrays of different types are 42883, as PostgreSQL's
/// `operator does not exist`.
pub fn bind_operator(
    op: &sqlparser::ast::BinaryOperator,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    use sqlparser::ast::BinaryOperator;
    let f = match op {
        BinaryOperator::AtArrow => ArrayFunc::Contains,
        BinaryOperator::ArrowAt => ArrayFunc::ContainedBy,
        BinaryOperator::PGOverlap => ArrayFunc::Overlaps,
        _ => return None,
    };
    let (ta, tb) = (a.ty_in(columns), b.ty_in(columns));
    let array = [ta, tb].into_iter().find(|t| t.element().is_some())?;
    let fit = |s: &Scalar, ty: SqlType| -> Result<Scalar, SqlError> {
        match s {
            s if crate::scalar::is_unknown(s) => crate::scalar::fit_unknown(s.clone(), array),
            Scalar::Const(Value::Null) => Ok(Scalar::Const(Value::Null)),
            other if ty == array => Ok(other.clone()),
            _ => Err(SqlError::new(
                "42883",
                format!("operator does not exist: {} {op} {}", ta.name(), tb.name()),
            )),
        }
    };
    Some((|| {
        Ok(Scalar::Func(Func::Array(f), vec![fit(a, ta)?, fit(b, tb)?]))
    })())
}

/// Binds `array_append`, `array_prepend`, `array_remove` and
/// `array_replace`: their element arguments take the array's element
/// type (a quoted literal as its input, another type by a cast); a
/// quoted literal for the array takes the array type of the element's
/// (PostgreSQL's `anyarray` resolution). Also `array_fill`'s quoted
/// dimensions and lower bounds, read as `integer[]`.
pub fn bind_change(
    name: &str,
    mut args: Vec<Scalar>,
    columns: &(impl Columns + ?Sized),
) -> Result<Result<Scalar, Vec<Scalar>>, SqlError> {
    if ArrayFunc::of(name) == Some(ArrayFunc::Fill) {
        for arg in args.iter_mut().skip(1) {
            if crate::scalar::is_unknown(arg) {
                let literal = std::mem::replace(arg, Scalar::Const(Value::Null));
                *arg = crate::scalar::fit_unknown(literal, SqlType::Array(&SqlType::Int4))?;
            }
        }
        return Ok(Err(args));
    }
    let f = match ArrayFunc::of(name) {
        Some(f @ (ArrayFunc::Append | ArrayFunc::Remove | ArrayFunc::Replace))
            if f.takes(args.len()) =>
        {
            f
        }
        Some(ArrayFunc::Prepend) if args.len() == 2 => ArrayFunc::Prepend,
        _ => return Ok(Err(args)),
    };
    let at = usize::from(f == ArrayFunc::Prepend);
    if crate::scalar::is_unknown(&args[at]) {
        let typed = (args.iter().enumerate())
            .filter(|(i, s)| {
                *i != at && !crate::scalar::is_unknown(s) && **s != Scalar::Const(Value::Null)
            })
            .map(|(_, s)| s.ty_in(columns))
            .find_map(|t| t.array_of());
        if let Some(array) = typed {
            let literal = std::mem::replace(&mut args[at], Scalar::Const(Value::Null));
            args[at] = crate::scalar::fit_unknown(literal, array)?;
        }
    }
    let Some(element) = args[at].ty_in(columns).element() else {
        return Err(crate::functions::no_match(format!(
            "function {name}({}) does not exist",
            crate::scalar::argument_types(&args, columns)
        )));
    };
    let fitted = args
        .into_iter()
        .enumerate()
        .map(|(i, s)| -> Result<Scalar, SqlError> {
            if i == at {
                return Ok(s);
            }
            Ok(match s {
                s if crate::scalar::is_unknown(&s) => crate::scalar::fit_unknown(s, element)?,
                Scalar::Const(Value::Null) => Scalar::Const(Value::Null),
                s if s.ty_in(columns) == element => s,
                s => Scalar::Cast(Box::new(s), element),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Ok(Scalar::Func(Func::Array(f), fitted)))
}

/// Arrays of one shape stacked as the rows of one more dimension, of
/// lower bound 1, before theirs (`ARRAY[a, b]` of arrays, `array_agg`
/// of arrays); `None` when their dimensions differ (lengths or lower
/// bounds) or there are none.
pub(crate) fn stack(subs: Vec<folio_row::Array>) -> Result<Option<Value>, SqlError> {
    let Some(first) = subs.first() else {
        return Ok(None);
    };
    let inner = first.dims();
    if inner.is_empty() || subs.iter().any(|a| a.dims() != inner) {
        return Ok(None);
    }
    let mut dims = vec![folio_row::Dim {
        lower: 1,
        len: subs.len() as u32,
    }];
    if dims.len() + inner.len() > folio_row::MAX_DIMS {
        return Err(folio_row::too_many_dims(dims.len() + inner.len()).into());
    }
    dims.extend(inner);
    let items = subs
        .into_iter()
        .flat_map(folio_row::Array::into_items)
        .collect();
    Ok(Some(Value::Array(folio_row::Array::new(dims, items)?)))
}

/// `ARRAY[a, b, ...]` of arrays (`ArrayFunc::Nest`): [`stack`]ed, NULL
/// and empty ones skipped when all are (an empty array), else 2202E
/// (PostgreSQL's `ExecEvalArrayExpr`).
pub(crate) fn nest(subs: Vec<Value>) -> Result<Value, SqlError> {
    let mismatch = || {
        SqlError::new(
            "2202E",
            "multidimensional arrays must have array expressions with matching dimensions",
        )
    };
    let total = subs.len();
    let arrays: Vec<folio_row::Array> = (subs.into_iter())
        .filter_map(|v| match v {
            Value::Array(a) => Some(a),
            _ => None,
        })
        .collect();
    if arrays.iter().all(|a| a.is_empty()) {
        return Ok(Value::array(Vec::new()));
    }
    if arrays.len() != total {
        return Err(mismatch());
    }
    stack(arrays)?.ok_or_else(mismatch)
}

/// `array_fill(value, dims [, lower bounds])`: an array of `dims`, each
/// element `value`, its lower bounds 1 or those given (PostgreSQL's
/// errors: 22004 for a NULL array or dimension, 2202E for lower bounds
/// of another count, 54000 past the limits; a dimension of 0 or none
/// gives an empty array).
fn fill(args: Vec<Value>) -> Result<Value, SqlError> {
    let mut args = args.into_iter();
    let value = args.next().unwrap_or(Value::Null);
    let ints = |v: Option<Value>| -> Result<Option<Vec<i64>>, SqlError> {
        match v {
            None => Ok(None),
            Some(Value::Array(a)) => {
                if a.ndims() > 1 {
                    return Err(SqlError::new("2202E", "wrong number of array subscripts")
                        .with_detail("Dimension array must be one dimensional."));
                }
                a.iter()
                    .map(|v| match v {
                        Value::Null => {
                            Err(SqlError::new("22004", "dimension values cannot be null"))
                        }
                        v => crate::functions::int_arg(v),
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some)
            }
            Some(_) => Err(SqlError::new(
                "22004",
                "dimension array or low bound array cannot be null",
            )),
        }
    };
    let Some(lens) = ints(args.next())? else {
        return Err(SqlError::new(
            "22004",
            "dimension array or low bound array cannot be null",
        ));
    };
    let lowers = ints(args.next())?;
    if lowers.as_ref().is_some_and(|l| l.len() != lens.len()) {
        return Err(SqlError::new("2202E", "wrong number of array subscripts")
            .with_detail("Low bound array has different size than dimensions array."));
    }
    if lens.len() > folio_row::MAX_DIMS {
        return Err(folio_row::too_many_dims(lens.len()).into());
    }
    let too_large = || {
        SqlError::new(
            "54000",
            format!(
                "array size exceeds the maximum allowed ({})",
                folio_row::MAX_ITEMS
            ),
        )
    };
    let mut count: i64 = i64::from(!lens.is_empty());
    let mut dims = Vec::with_capacity(lens.len());
    for (d, len) in lens.iter().enumerate() {
        let len = u32::try_from(*len).map_err(|_| too_large())?;
        count = count.saturating_mul(i64::from(len));
        if count > folio_row::MAX_ITEMS as i64 {
            return Err(too_large());
        }
        let lower = lowers.as_ref().map_or(1, |l| l[d]);
        let lower = i32::try_from(lower).map_err(|_| too_large())?;
        dims.push(folio_row::Dim { lower, len });
    }
    let items = vec![value; count as usize];
    Ok(Value::Array(folio_row::Array::new(dims, items)?))
}

/// `string_to_array`'s value (`ArrayFunc::FromString`).
pub(crate) fn split(args: &[Value]) -> Value {
    let Some(Value::Text(input)) = args.first() else {
        return Value::Null;
    };
    if input.is_empty() {
        return Value::array(Vec::new());
    }
    let pieces: Vec<&str> = match args.get(1) {
        Some(Value::Text(d)) if d.is_empty() => vec![input.as_str()],
        Some(Value::Text(d)) => input.split(d.as_str()).collect(),
        _ => (input.char_indices())
            .map(|(i, c)| &input[i..i + c.len_utf8()])
            .collect(),
    };
    let null = match args.get(2) {
        Some(Value::Text(n)) => Some(n.as_str()),
        _ => None,
    };
    Value::Array(
        pieces
            .into_iter()
            .map(|p| match null == Some(p) {
                true => Value::Null,
                false => Value::Text(p.to_string()),
            })
            .collect(),
    )
}

/// The one type of an `ARRAY[...]`'s elements: for numbers the widest
/// (smallint < integer < bigint < numeric < real < double precision, as
/// PostgreSQL's preferred-type resolution), else the first that is not
/// text (a quoted literal takes the others' type), else text.
pub fn element_type(args: &[SqlType]) -> SqlType {
    let rank = |t: &SqlType| match t {
        SqlType::Int2 => Some(1),
        SqlType::Int4 => Some(2),
        SqlType::Int8 => Some(3),
        SqlType::Numeric(_) => Some(4),
        SqlType::Float4 => Some(5),
        SqlType::Float8 => Some(6),
        _ => None,
    };
    if let Some(widest) = args
        .iter()
        .filter(|t| rank(t).is_some())
        .max_by_key(|t| rank(t))
    {
        return match widest {
            SqlType::Numeric(_) => SqlType::Numeric(None),
            other => *other,
        };
    }
    args.iter()
        .copied()
        .find(|t| *t != SqlType::Text)
        .unwrap_or(SqlType::Text)
}

fn text(v: &Value) -> String {
    types::text_output(v).unwrap_or_default()
}

/// An array, or 42804 for a value that is not an array.
fn items_of(v: Value) -> Result<folio_row::Array, SqlError> {
    match v {
        Value::Array(items) => Ok(items),
        other => Err(SqlError::new(
            "42804",
            format!(
                "op ANY/ALL (array) requires array on right side, not {}",
                other.type_name()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[Option<i32>]) -> Value {
        Value::Array(
            xs.iter()
                .map(|x| x.map_or(Value::Null, Value::Int4))
                .collect(),
        )
    }

    #[test]
    fn any_all_and_the_array_functions() {
        let any = ArrayFunc::Compare {
            cmp: Cmp::Eq,
            all: false,
        };
        let all = ArrayFunc::Compare {
            cmp: Cmp::Eq,
            all: true,
        };
        let a = ints(&[Some(1), Some(2)]);
        assert_eq!(
            any.eval(vec![Value::Int4(2), a.clone()]).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            any.eval(vec![Value::Int4(3), a.clone()]).unwrap(),
            Value::Bool(false)
        );
        let with_null = ints(&[Some(1), None]);
        assert_eq!(
            any.eval(vec![Value::Int4(3), with_null.clone()]).unwrap(),
            Value::Null
        );
        assert_eq!(
            all.eval(vec![Value::Int4(1), ints(&[])]).unwrap(),
            Value::Bool(true)
        );
        assert_eq!(
            all.eval(vec![Value::Int4(1), a.clone()]).unwrap(),
            Value::Bool(false)
        );
        let up = ArrayFunc::Upper
            .eval(vec![a.clone(), Value::Int4(1)])
            .unwrap();
        assert_eq!(up, Value::Int4(2));
        let up = ArrayFunc::Upper
            .eval(vec![ints(&[]), Value::Int4(1)])
            .unwrap();
        assert_eq!(up, Value::Null);
        let joined = ArrayFunc::ToString
            .eval(vec![with_null.clone(), Value::Text(",".into())])
            .unwrap();
        assert_eq!(joined, Value::Text("1".into()));
        let joined = ArrayFunc::ToString
            .eval(vec![
                with_null,
                Value::Text(",".into()),
                Value::Text("*".into()),
            ])
            .unwrap();
        assert_eq!(joined, Value::Text("1,*".into()));
        let at = ArrayFunc::Position
            .eval(vec![a.clone(), Value::Int4(2)])
            .unwrap();
        assert_eq!(at, Value::Int4(2));
        let e = ArrayFunc::Subscript(crate::array_subscripts::Subscripts::element(1))
            .eval(vec![a, Value::Int4(3)])
            .unwrap();
        assert_eq!(e, Value::Null);
    }
}
