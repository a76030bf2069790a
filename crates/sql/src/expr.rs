//! Expressions: constants, column references of the row at hand,
//! arithmetic on integers and numerics with PostgreSQL's overflow errors,
//! and `CURRENT_TIMESTAMP` / `now()` (the transaction's start, as
//! PostgreSQL's). More come with the planner (README "Status").

use crate::error::SqlError;
use crate::names;
use crate::types;
use folio_row::{Numeric, Value};
use sqlparser::ast::{BinaryOperator, Expr, FunctionArguments, UnaryOperator};

/// What an expression may refer to: the columns of the row being read
/// (none for a constant) and the transaction's start time.
pub struct Scope<'a> {
    /// Column names and values of the current row.
    pub columns: &'a [(String, Value)],
    /// Microseconds since 2000-01-01 UTC at the transaction's start.
    pub now: i64,
}

impl Scope<'_> {
    /// A scope with no row.
    pub fn constant(now: i64) -> Scope<'static> {
        Scope { columns: &[], now }
    }
}

/// The value of a constant expression.
pub fn constant(expr: &Expr) -> Result<Value, SqlError> {
    eval(expr, &Scope::constant(0))
}

/// The value of `expr` in `scope`.
pub fn eval(expr: &Expr, scope: &Scope<'_>) -> Result<Value, SqlError> {
    match expr {
        Expr::Value(v) => types::literal(&v.value),
        Expr::Nested(inner) => eval(inner, scope),
        Expr::Identifier(id) => {
            let name = names::ident(id);
            scope
                .columns
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| SqlError::undefined_column(&name))
        }
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => types::negate(eval(expr, scope)?),
        Expr::UnaryOp {
            op: UnaryOperator::Plus,
            expr,
        } => eval(expr, scope),
        Expr::BinaryOp { left, op, right } => {
            arithmetic(op, eval(left, scope)?, eval(right, scope)?)
        }
        Expr::Function(f)
            if f.name.to_string().eq_ignore_ascii_case("current_timestamp")
                && matches!(f.args, FunctionArguments::None) =>
        {
            Ok(Value::TimestampTz(scope.now))
        }
        Expr::Function(f)
            if f.name.to_string().eq_ignore_ascii_case("now")
                && matches!(&f.args, FunctionArguments::List(l) if l.args.is_empty()) =>
        {
            Ok(Value::TimestampTz(scope.now))
        }
        other => Err(SqlError::unsupported(format!("the expression {other}"))),
    }
}

/// `a op b` for `+`, `-`, `*` on integers (the wider of the two types;
/// overflow 22003 as PostgreSQL's) and numerics (an integer meeting a
/// numeric becomes one). NULL in, NULL out.
pub fn arithmetic(op: &BinaryOperator, a: Value, b: Value) -> Result<Value, SqlError> {
    use Value::Null;
    if matches!(a, Null) || matches!(b, Null) {
        return Ok(Null);
    }
    // Two integers (a sum's running total, `i + 1`): machine arithmetic,
    // before the other types' resolution below, which never takes them.
    if let Some(value) = integers(op, &a, &b) {
        return value;
    }
    if *op == BinaryOperator::StringConcat {
        // Two byteas (a literal beside one is bound as one): a bytea.
        if let (Value::Bytea(x), Value::Bytea(y)) = (&a, &b) {
            return Ok(crate::bytea_functions::concat(x.clone(), y));
        }
        // `a || b`: the text of both (PostgreSQL's anynonarray || text),
        // a boolean as its cast to text spells it (`'a' || true` is
        // `atrue`; its output form, `t`, is what concat() shows).
        let text = |v: &Value| match v {
            Value::Bool(b) => b.to_string(),
            v => types::text_output(v).unwrap_or_default(),
        };
        return Ok(Value::Text(text(&a) + &text(&b)));
    }
    // A quoted literal (or a parameter) takes the type of the other side.
    let (a, b) = match (a, b) {
        (Value::Text(t), other) if !matches!(other, Value::Text(_)) => {
            (types::coerce(Value::Text(t), type_of(op, &other))?, other)
        }
        (other, Value::Text(t)) if !matches!(other, Value::Text(_)) => {
            let ty = type_of(op, &other);
            (other, types::coerce(Value::Text(t), ty)?)
        }
        pair => pair,
    };
    if let Some(value) = crate::date_arith::apply(op, &a, &b) {
        return value;
    }
    if let Some(value) = crate::wal_functions::apply(op, &a, &b) {
        return value;
    }
    if let Some(value) = crate::money_functions::apply(op, &a, &b) {
        return value;
    }
    if let Some(value) = crate::math_operators::apply(op, &a, &b) {
        return Ok(value);
    }
    // An oid has no arithmetic (PostgreSQL has no such operators).
    if matches!(a, Value::Oid(_)) || matches!(b, Value::Oid(_)) {
        return Err(crate::functions::no_operator(format!(
            "operator does not exist: {} {op} {}",
            a.type_name(),
            b.type_name()
        )));
    }
    if let Some(value) = integers(op, &a, &b) {
        return value;
    }
    // Two reals: real arithmetic (PostgreSQL's float4 operators).
    if let (Value::Float4(x), Value::Float4(y)) = (&a, &b) {
        return Ok(Value::Float4(float_arithmetic(op, *x, *y)?));
    }
    // A float meeting a number: float8 arithmetic (PostgreSQL's float8
    // operators; a numeric meeting a float is cast to float8).
    if matches!(a, Value::Float4(_) | Value::Float8(_))
        || matches!(b, Value::Float4(_) | Value::Float8(_))
    {
        let float = |v: Value| match types::coerce(v, folio_row::SqlType::Float8)? {
            Value::Float8(x) => Ok(x),
            other => Err(crate::functions::no_operator(format!(
                "operator does not exist: double precision {op} {}",
                other.type_name()
            ))),
        };
        return Ok(Value::Float8(float_arithmetic(op, float(a)?, float(b)?)?));
    }
    let numeric = |v: Value| match v {
        Value::Numeric(n) => Ok(n),
        other => integer(&other)
            .map(|(x, _)| Numeric::from_i64(x))
            .ok_or_else(|| {
                crate::functions::no_operator(format!(
                    "operator does not exist: {} {op} ...",
                    other.type_name()
                ))
            }),
    };
    let (x, y) = (numeric(a)?, numeric(b)?);
    Ok(Value::Numeric(match op {
        BinaryOperator::Plus => x.checked_add(&y)?,
        BinaryOperator::Minus => x.checked_sub(&y)?,
        BinaryOperator::Multiply => x.checked_mul(&y)?,
        BinaryOperator::Divide => crate::numeric_functions::div(&x, &y)?,
        BinaryOperator::Modulo => x
            .checked_rem(&y)?
            .ok_or_else(|| SqlError::new("22012", "division by zero"))?,
        other => return Err(SqlError::unsupported(format!("the operator {other}"))),
    }))
}

/// An integer's value and width (1: smallint, 2: integer, 3: bigint).
fn integer(v: &Value) -> Option<(i64, usize)> {
    match v {
        Value::Int2(x) => Some((i64::from(*x), 1)),
        Value::Int4(x) => Some((i64::from(*x), 2)),
        Value::Int8(x) => Some((*x, 3)),
        _ => None,
    }
}

/// `a op b` for two integers and one of `+ - * / %`, in the wider of
/// their types (PostgreSQL's integer operators, their overflow 22003);
/// `None` for other operands or operators.
fn integers(op: &BinaryOperator, a: &Value, b: &Value) -> Option<Result<Value, SqlError>> {
    let ((x, wa), (y, wb)) = (integer(a)?, integer(b)?);
    let result = match op {
        BinaryOperator::Plus => x.checked_add(y),
        BinaryOperator::Minus => x.checked_sub(y),
        BinaryOperator::Multiply => x.checked_mul(y),
        // Integer division truncates toward zero, as PostgreSQL's.
        BinaryOperator::Divide | BinaryOperator::Modulo if y == 0 => {
            return Some(Err(SqlError::new("22012", "division by zero")));
        }
        BinaryOperator::Divide => x.checked_div(y),
        BinaryOperator::Modulo => Some(x.wrapping_rem(y)),
        _ => return None,
    };
    let width = wa.max(wb);
    let out_of_range = |ty: &str| SqlError::new("22003", format!("{ty} out of range"));
    let value = match (width, result) {
        (_, None) => Err(out_of_range(["smallint", "integer", "bigint"][width - 1])),
        (1, Some(r)) => i16::try_from(r)
            .map(Value::Int2)
            .map_err(|_| out_of_range("smallint")),
        (2, Some(r)) => i32::try_from(r)
            .map(Value::Int4)
            .map_err(|_| out_of_range("integer")),
        (_, Some(r)) => Ok(Value::Int8(r)),
    };
    Some(value)
}

/// The type an untyped literal takes meeting `value` in `op`: as
/// `date_arith::literal_type` says for integers, dates, timestamps and
/// intervals, numeric otherwise (the rest is refused by the arithmetic
/// anyway).
fn type_of(op: &BinaryOperator, value: &Value) -> folio_row::SqlType {
    use folio_row::SqlType;
    match value {
        Value::Int2(_)
        | Value::Int4(_)
        | Value::Int8(_)
        | Value::Date(_)
        | Value::Timestamp(_)
        | Value::TimestampTz(_)
        | Value::Time(_)
        | Value::TimeTz(_)
        | Value::Interval(_) => {
            crate::date_arith::literal_type(op, crate::scalar::value_type(value))
        }
        // `real_column * '-10'` is real arithmetic, as PostgreSQL
        // resolves `float4 * unknown`.
        Value::Float4(_) => SqlType::Float4,
        Value::Float8(_) => SqlType::Float8,
        Value::PgLsn(_) => crate::wal_functions::literal_type(op),
        Value::Money(_) => SqlType::Money,
        _ => SqlType::Numeric(None),
    }
}

/// `x op y` for two floats of one width (`f32`: real, `f64`: double
/// precision), as PostgreSQL's float operators: division of a number by
/// zero is 22012 (NaN / 0 is NaN); an infinite result of finite operands
/// (of a finite dividend, for division) is 22003 overflow, and a zero
/// product or quotient of nonzero operands (of a finite divisor, for
/// division) 22003 underflow.
pub(crate) fn float_arithmetic<T>(op: &BinaryOperator, x: T, y: T) -> Result<T, SqlError>
where
    T: Copy
        + Default
        + PartialEq
        + Into<f64>
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>,
{
    let zero = T::default();
    let infinite = |v: T| v.into().is_infinite();
    let result = match op {
        BinaryOperator::Plus => x + y,
        BinaryOperator::Minus => x - y,
        BinaryOperator::Multiply => x * y,
        BinaryOperator::Divide if y == zero && !x.into().is_nan() => {
            return Err(SqlError::new("22012", "division by zero"));
        }
        BinaryOperator::Divide => x / y,
        other => {
            return Err(SqlError::unsupported(format!(
                "the operator {other} on floats"
            )));
        }
    };
    let divide = matches!(op, BinaryOperator::Divide);
    let overflowed = infinite(result) && !infinite(x) && (divide || !infinite(y));
    if overflowed {
        return Err(SqlError::new("22003", "value out of range: overflow"));
    }
    let underflowed = result == zero
        && x != zero
        && match op {
            BinaryOperator::Multiply => y != zero,
            BinaryOperator::Divide => !infinite(y),
            _ => false,
        };
    if underflowed {
        return Err(SqlError::new("22003", "value out of range: underflow"));
    }
    Ok(result)
}
