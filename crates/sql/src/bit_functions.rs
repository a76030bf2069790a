//! Bit strings as SQL sees them: the operators and functions of
//! PostgreSQL 15's `bit` and `bit varying` (`varbit.c`), and their casts
//! to and from the integers. The one place that says which calls take
//! bit strings ([`bind_operator`], [`bind_prefix`], [`bind_call`]) and
//! what they give ([`BitStringFunc::eval`]); the value itself is
//! folio-row's `BitString` (`bits.rs`).
//!
//! | call | result | PostgreSQL's function |
//! |---|---|---|
//! | `a \|\| b` | varbit | `bitcat` |
//! | `a & b`, `a \| b`, `a # b` (same lengths, 22026 otherwise) | bit | `bitand`, `bitor`, `bitxor` |
//! | `~ a` | bit | `bitnot` |
//! | `a << n`, `a >> n` (length kept, zeros shifted in; a negative `n` shifts the other way) | bit | `bitshiftleft`, `bitshiftright` |
//! | `length(a)`, `bit_length(a)`, `octet_length(a)` | int4 | `bitlength`, `bitoctetlength` |
//! | `substring(a from s [for l])` | bit | `bitsubstr` |
//! | `overlay(a placing b from s [for l])` | bit | `bitoverlay` |
//! | `position(b in a)` | int4 | `bitposition` |
//! | `get_bit(a, n)`, `set_bit(a, n, v)` (bit `n` from 0, the first) | int4, bit | `bitgetbit`, `bitsetbit` |
//! | `bit_count(a)` | int8 | `bit_bit_count` |
//! | `int4::bit(n)`, `int8::bit(n)` | the low `n` bits, sign-extended past the integer's width | `bitfromint4`, `bitfromint8` |
//! | `bit::int4`, `bit::int8` (22003 past 32 or 64 bits) | the bits as an unsigned number, wrapped | `bittoint4`, `bittoint8` |
//!
//! An untyped operand (a quoted literal, a parameter) beside a bit
//! string is one (a shift's count an int4). `bit` and `bit varying` share
//! their operators here as in PostgreSQL (each casts to the other
//! implicitly); a `bit(n)` cast explicitly is cut or padded with zeros,
//! a `bit varying(n)` cut ([`explicit_cast`]).

use crate::error::SqlError;
use crate::functions::{Func, StrFunc, int_arg};
use crate::scalar::{Columns, Scalar, fit_unknown, is_unknown};
use folio_row::{BitString, SqlType, Value};
use sqlparser::ast::{BinaryOperator, UnaryOperator};

/// An operator or function of bit strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitStringFunc {
    Concat,
    And,
    Or,
    Xor,
    Not,
    ShiftLeft,
    ShiftRight,
    Length,
    /// `bit_length` of a bit string, a text or a bytea.
    BitLength,
    OctetLength,
    Substring,
    Overlay,
    /// `position(b in a)`: called with `a`, then `b`.
    Position,
    GetBit,
    SetBit,
    BitCount,
}

/// PostgreSQL's names of the functions (EXPLAIN prints these); only
/// `bit_length` is found by its name: the others are the forms of text
/// and bytea functions a bit string argument selects ([`bind_call`]).
const NAMES: [(&str, BitStringFunc); 16] = [
    ("bit_length", BitStringFunc::BitLength),
    ("bitcat", BitStringFunc::Concat),
    ("bitand", BitStringFunc::And),
    ("bitor", BitStringFunc::Or),
    ("bitxor", BitStringFunc::Xor),
    ("bitnot", BitStringFunc::Not),
    ("bitshiftleft", BitStringFunc::ShiftLeft),
    ("bitshiftright", BitStringFunc::ShiftRight),
    ("length", BitStringFunc::Length),
    ("octet_length", BitStringFunc::OctetLength),
    ("substring", BitStringFunc::Substring),
    ("overlay", BitStringFunc::Overlay),
    ("position", BitStringFunc::Position),
    ("get_bit", BitStringFunc::GetBit),
    ("set_bit", BitStringFunc::SetBit),
    ("bit_count", BitStringFunc::BitCount),
];

/// Whether `ty` is a bit string type.
pub fn is_bits(ty: SqlType) -> bool {
    matches!(ty, SqlType::Bit(_) | SqlType::VarBit(_))
}

impl BitStringFunc {
    /// The function called `name` whatever its arguments (`bit_length`).
    pub fn of(name: &str) -> Option<BitStringFunc> {
        (name == "bit_length").then_some(BitStringFunc::BitLength)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    pub fn takes(self, count: usize) -> bool {
        use BitStringFunc::*;
        match self {
            Not | Length | BitLength | OctetLength | BitCount => count == 1,
            Concat | And | Or | Xor | ShiftLeft | ShiftRight | Position | GetBit => count == 2,
            SetBit => count == 3,
            Substring => (2..=3).contains(&count),
            Overlay => (3..=4).contains(&count),
        }
    }

    /// Its result type (PostgreSQL's: `||` gives a varbit, the other bit
    /// string results are `bit`).
    pub fn ty(self) -> SqlType {
        use BitStringFunc::*;
        match self {
            Concat => SqlType::VarBit(None),
            And | Or | Xor | Not | ShiftLeft | ShiftRight | Substring | Overlay | SetBit => {
                SqlType::Bit(None)
            }
            Length | BitLength | OctetLength | Position | GetBit => SqlType::Int4,
            BitCount => SqlType::Int8,
        }
    }

    /// The value of a call (strict: no argument is NULL).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        use BitStringFunc::*;
        let int = |at: usize| -> Result<i32, SqlError> {
            i32::try_from(int_arg(&args[at])?)
                .map_err(|_| SqlError::new("22003", "integer out of range"))
        };
        let count = |n: usize| Value::Int4(n as i32);
        if self == BitLength {
            return Ok(match &args[0] {
                Value::Bit(b) => count(b.len()),
                Value::Bytea(b) => count(b.len() * 8),
                other => count(crate::types::text_output(other).unwrap_or_default().len() * 8),
            });
        }
        let a = bits(&args[0])?;
        Ok(match self {
            Concat => {
                let b = bits(&args[1])?;
                bit(BitString::from_bits(a.iter().chain(b.iter())))
            }
            And | Or | Xor => {
                let b = bits(&args[1])?;
                let (verb, f): (&str, fn(u8, u8) -> u8) = match self {
                    And => ("AND", |x, y| x & y),
                    Or => ("OR", |x, y| x | y),
                    _ => ("XOR", |x, y| x ^ y),
                };
                if a.len() != b.len() {
                    return Err(SqlError::new(
                        "22026",
                        format!("cannot {verb} bit strings of different sizes"),
                    ));
                }
                let bytes: Vec<u8> = (a.bytes().iter().zip(b.bytes()))
                    .map(|(x, y)| f(*x, *y))
                    .collect();
                bit(BitString::from_bytes(a.len(), &bytes).expect("as long"))
            }
            Not => {
                let bytes: Vec<u8> = a.bytes().iter().map(|x| !x).collect();
                bit(BitString::from_bytes(a.len(), &bytes).expect("as long"))
            }
            ShiftLeft | ShiftRight => {
                // A negative count shifts the other way (PostgreSQL's
                // negation clamps INT_MIN first).
                let n = i64::from(int(1)?);
                let left = (self == ShiftLeft) == (n >= 0);
                bit(shifted(&a, n.unsigned_abs() as usize, left))
            }
            // (`bit_length` answered above.)
            Length | BitLength => count(a.len()),
            OctetLength => count(a.bytes().len()),
            BitCount => Value::Int8(a.bytes().iter().map(|x| i64::from(x.count_ones())).sum()),
            Substring => {
                let length = args.get(2).map(|_| int(2)).transpose()?;
                bit(substring(&a, int(1)?, length)?)
            }
            Overlay => {
                let b = bits(&args[1])?;
                let source: Vec<bool> = a.iter().collect();
                let placed: Vec<bool> = b.iter().collect();
                let length = match args.get(3) {
                    Some(_) => int(3)?,
                    None => placed.len() as i32,
                };
                let out = crate::overlay::overlaid(&source, &placed, int(2)?, length)?;
                bit(BitString::from_bits(out))
            }
            Position => count(position(&a, &bits(&args[1])?)),
            GetBit | SetBit => {
                let n = int(1)?;
                let at = usize::try_from(n).ok().filter(|at| *at < a.len());
                let Some(at) = at else {
                    return Err(SqlError::new(
                        "2202E",
                        format!(
                            "bit index {n} out of valid range (0..{})",
                            a.len() as i64 - 1
                        ),
                    ));
                };
                if self == GetBit {
                    return Ok(Value::Int4(a.get(at).into()));
                }
                let mut out = a;
                match int(2)? {
                    0 => out.set(at, false),
                    1 => out.set(at, true),
                    _ => return Err(SqlError::new("22023", "new bit must be 0 or 1")),
                }
                bit(out)
            }
        })
    }
}

fn bit(b: BitString) -> Value {
    Value::Bit(Box::new(b))
}

/// A bit string argument (a quoted literal read as one).
fn bits(v: &Value) -> Result<BitString, SqlError> {
    match crate::types::coerce(v.clone(), SqlType::VarBit(None))? {
        Value::Bit(b) => Ok(*b),
        other => Err(crate::functions::no_operator(format!(
            "operator does not exist: bit varying and {}",
            other.type_name()
        ))),
    }
}

/// `a` shifted by `n` places, its length kept, zeros coming in.
fn shifted(a: &BitString, n: usize, left: bool) -> BitString {
    let len = a.len();
    BitString::from_bits((0..len).map(|at| {
        match left {
            true => at
                .checked_add(n)
                .is_some_and(|from| from < len && a.get(from)),
            false => at >= n && a.get(at - n),
        }
    }))
}

/// PostgreSQL's `bitsubstring`: the bits from 1-based `start`, `length`
/// of them (`None`: to the end; a start before 1 shortens it, an end
/// past an integer's range is the end); a negative length is 22011.
fn substring(a: &BitString, start: i32, length: Option<i32>) -> Result<BitString, SqlError> {
    let len = a.len() as i64;
    let end = match length {
        None => len + 1,
        Some(l) if l < 0 => {
            return Err(SqlError::new(
                "22011",
                "negative substring length not allowed",
            ));
        }
        Some(l) => match start.checked_add(l) {
            None => len + 1,
            Some(e) => i64::from(e).min(len + 1),
        },
    };
    let from = i64::from(start.max(1));
    if from > len || end <= from {
        return Ok(BitString::zeros(0));
    }
    Ok(BitString::from_bits(
        (from - 1..end - 1).map(|at| a.get(at as usize)),
    ))
}

/// PostgreSQL's `bitposition`: where `b` first occurs in `a`, from 1; 0
/// if nowhere or `a` is empty; 1 for an empty `b` in a non-empty `a`.
fn position(a: &BitString, b: &BitString) -> usize {
    if a.is_empty() || b.len() > a.len() {
        return 0;
    }
    (0..=a.len() - b.len())
        .find(|at| (0..b.len()).all(|i| a.get(at + i) == b.get(i)))
        .map_or(0, |at| at + 1)
}

/// `a op b` when a side is a bit string (`None` otherwise, or for an
/// operator bit strings do not have here: comparisons are generic).
pub fn bind_operator(
    op: &BinaryOperator,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let (x, y) = (a.ty_in(columns), b.ty_in(columns));
    if !is_bits(x) && !is_bits(y) {
        return None;
    }
    let named = |s: &Scalar, ty: SqlType| match is_unknown(s) {
        true => "unknown".to_string(),
        false => crate::set_types::name(ty),
    };
    let refused = || {
        Some(Err(crate::functions::no_operator(format!(
            "operator does not exist: {} {op} {}",
            named(a, x),
            named(b, y)
        ))))
    };
    let f = match op {
        // Bit strings have no arithmetic.
        BinaryOperator::Plus
        | BinaryOperator::Minus
        | BinaryOperator::Multiply
        | BinaryOperator::Divide
        | BinaryOperator::Modulo
        | BinaryOperator::PGExp => return refused(),
        BinaryOperator::StringConcat => BitStringFunc::Concat,
        BinaryOperator::BitwiseAnd => BitStringFunc::And,
        BinaryOperator::BitwiseOr => BitStringFunc::Or,
        BinaryOperator::PGBitwiseXor => BitStringFunc::Xor,
        BinaryOperator::PGBitwiseShiftLeft => BitStringFunc::ShiftLeft,
        BinaryOperator::PGBitwiseShiftRight => BitStringFunc::ShiftRight,
        _ => return None,
    };
    let shift = matches!(f, BitStringFunc::ShiftLeft | BitStringFunc::ShiftRight);
    let fits = |s: &Scalar, ty: SqlType, want: &dyn Fn(SqlType) -> bool| {
        is_unknown(s) || matches!(s, Scalar::Const(Value::Null)) || want(ty)
    };
    let bitwise = |t: SqlType| is_bits(t);
    let count = |t: SqlType| matches!(t, SqlType::Int2 | SqlType::Int4);
    let (left_ok, right_ok) = match shift {
        true => (fits(a, x, &bitwise), fits(b, y, &count)),
        false => (fits(a, x, &bitwise), fits(b, y, &bitwise)),
    };
    if !left_ok || !right_ok {
        // `bit || text` is text's concatenation.
        if f == BitStringFunc::Concat {
            return None;
        }
        return refused();
    }
    let right = if shift { SqlType::Int4 } else { f.ty() };
    Some((|| {
        let a = fit_unknown(a.clone(), f.ty())?;
        let b = fit_unknown(b.clone(), right)?;
        Ok(Scalar::Func(Func::BitString(f), vec![a, b]))
    })())
}

/// `~ a` of a bit string (`None` for another operand or operator).
pub fn bind_prefix(
    op: &UnaryOperator,
    a: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Option<Scalar> {
    (*op == UnaryOperator::PGBitwiseNot && is_bits(a.ty_in(columns)))
        .then(|| Scalar::Func(Func::BitString(BitStringFunc::Not), vec![a.clone()]))
}

/// The bit string form of a call of `func` whose first argument is a bit
/// string (`length`, `octet_length`, `substring`, `overlay`, `position`,
/// `get_bit`, `set_bit`, `bit_count`), its untyped bit string arguments
/// read as bit strings; `None` for another call.
pub fn bind_call(
    func: Func,
    args: &[Scalar],
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    use crate::bytea_bits::BitFunc;
    let f = match func {
        Func::Length => BitStringFunc::Length,
        Func::Str(StrFunc::OctetLength) => BitStringFunc::OctetLength,
        Func::Substr => BitStringFunc::Substring,
        Func::Overlay => BitStringFunc::Overlay,
        Func::Str(StrFunc::Strpos) => BitStringFunc::Position,
        Func::Bits(BitFunc::GetBit) => BitStringFunc::GetBit,
        Func::Bits(BitFunc::SetBit) => BitStringFunc::SetBit,
        Func::Bits(BitFunc::BitCount) => BitStringFunc::BitCount,
        _ => return None,
    };
    let typed = |s: &Scalar| !is_unknown(s) && is_bits(s.ty_in(columns));
    // `position(b in a)`: either side typed makes both bit strings.
    let second = matches!(f, BitStringFunc::Position | BitStringFunc::Overlay);
    let of_bits = args.first().is_some_and(typed) || (second && args.get(1).is_some_and(typed));
    if !of_bits {
        return None;
    }
    if !f.takes(args.len()) {
        return None;
    }
    Some((|| {
        let args = (args.iter().enumerate())
            .map(|(at, a)| match at == 0 || (second && at == 1) {
                true => fit_unknown(a.clone(), SqlType::VarBit(None)),
                false => Ok(a.clone()),
            })
            .collect::<Result<Vec<_>, SqlError>>()?;
        Ok(Scalar::Func(Func::BitString(f), args))
    })())
}

/// A cast of `v` to `ty` where either is a bit string and the other is
/// not text (`types::cast` owns those): the integers' casts; any other
/// is PostgreSQL's 42846.
pub fn cast(v: Value, ty: SqlType) -> Result<Value, SqlError> {
    let no_cast = |v: &Value| no_cast(crate::scalar::value_type(v), ty);
    Ok(match (v, ty) {
        (v @ Value::Bit(_), SqlType::Bit(_) | SqlType::VarBit(_)) => v,
        // PostgreSQL's `bitfromint4` / `bitfromint8`: `bit` without a
        // length is one bit.
        (Value::Int4(x), SqlType::Bit(n)) => bit(from_integer(i64::from(x), 32, n)),
        (Value::Int8(x), SqlType::Bit(n)) => bit(from_integer(x, 64, n)),
        (Value::Bit(b), SqlType::Int4) => Value::Int4(to_integer(&b, 32, "integer")? as i32),
        (Value::Bit(b), SqlType::Int8) => Value::Int8(to_integer(&b, 64, "bigint")?),
        (v, _) => return Err(no_cast(&v)),
    })
}

/// The low `n` bits of the `width`-bit integer `x` (bits past its width
/// are its sign).
fn from_integer(x: i64, width: usize, n: Option<u32>) -> BitString {
    let n = n.map_or(1, |n| n as usize);
    BitString::from_bits((0..n).map(|at| {
        let place = n - 1 - at;
        match place < width {
            true => (x >> place) & 1 == 1,
            false => x < 0,
        }
    }))
}

/// The bits of `b` as an unsigned number of at most `width` bits, wrapped
/// to a signed one (22003 for more bits).
fn to_integer(b: &BitString, width: usize, type_name: &str) -> Result<i64, SqlError> {
    if b.len() > width {
        return Err(SqlError::new("22003", format!("{type_name} out of range")));
    }
    Ok(b.iter().fold(0u64, |acc, bit| (acc << 1) | u64::from(bit)) as i64)
}

/// An explicit cast of `v` to `ty` (`bit(n)` or `bit varying(n)`, or an
/// array of them): a bit string cut or padded with zeros to a `bit(n)`,
/// cut to a `bit varying(n)`, as PostgreSQL's length coercion does when
/// the cast is explicit; anything else as `types::cast` casts it.
pub fn explicit_cast(v: Value, ty: SqlType) -> Result<Value, SqlError> {
    let any_length = SqlType::VarBit(None);
    Ok(match (v, ty) {
        // Text is read without the length, which is then applied as to a
        // bit string (PostgreSQL's input of a cast literal).
        (v @ Value::Text(_), SqlType::Bit(_) | SqlType::VarBit(_)) => {
            explicit_cast(crate::types::cast(v, any_length)?, ty)?
        }
        (v @ Value::Text(_), SqlType::Array(_)) => {
            let array = any_length.array_of().expect("varbit[]");
            explicit_cast(crate::types::cast(v, array)?, ty)?
        }
        (Value::Bit(b), SqlType::Bit(Some(n))) => bit(b.resized(n as usize)),
        (Value::Bit(b), SqlType::VarBit(Some(n))) if b.len() > n as usize => {
            bit(b.resized(n as usize))
        }
        (Value::Array(items), SqlType::Array(element)) => {
            Value::Array(items.try_map(|v| explicit_cast(v, *element))?)
        }
        (v, _) => crate::types::cast(v, ty)?,
    })
}

/// PostgreSQL's 42846 for a cast from `from` to `to`, the types named
/// without their lengths as its message names them.
fn no_cast(from: SqlType, to: SqlType) -> SqlError {
    SqlError::new(
        "42846",
        format!(
            "cannot cast type {} to {}",
            crate::set_types::name(from),
            crate::set_types::name(to)
        ),
    )
}

/// Refuses (42846) a cast from `from` to `to`, where either is a bit
/// string, that PostgreSQL has not, by the types alone (as it refuses it
/// when parsing; `bit` and `bit varying` are told apart here, not by
/// their values).
pub fn check_cast(from: SqlType, to: SqlType) -> Result<(), SqlError> {
    match has_cast(from, to) {
        true => Ok(()),
        false => Err(no_cast(from, to)),
    }
}

/// Whether PostgreSQL has a cast from `from` to `to`, where either is a
/// bit string: between bit strings, from and to the string types, and
/// between `bit` and int4 or int8 (not `bit varying`).
fn has_cast(from: SqlType, to: SqlType) -> bool {
    let string = |t: SqlType| {
        matches!(
            t,
            SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) | SqlType::Refcursor
        )
    };
    let integer = |t: SqlType| matches!(t, SqlType::Int4 | SqlType::Int8);
    let bit = |t: SqlType| matches!(t, SqlType::Bit(_));
    match (from.element(), to.element()) {
        (Some(a), Some(b)) => has_cast(a, b),
        _ => {
            (is_bits(from) && is_bits(to))
                || string(from)
                || string(to)
                || (bit(from) && integer(to))
                || (integer(from) && bit(to))
        }
    }
}

/// Whether a value of type `from` casts to `to` implicitly or in
/// assignment, where either is a bit string: `bit` and `bit varying`
/// both ways (their lengths checked as the value is stored).
pub fn assignment_cast(from: SqlType, to: SqlType) -> bool {
    is_bits(from) && is_bits(to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(text: &str) -> Value {
        bit(BitString::parse(text).unwrap())
    }

    fn call(f: BitStringFunc, args: &[Value]) -> Result<Value, SqlError> {
        f.eval(args)
    }

    /// The operators' values and errors as PostgreSQL 15 gives them
    /// (bit.sql).
    #[test]
    fn operators_as_postgresql() {
        use BitStringFunc::*;
        assert_eq!(call(Concat, &[b("01"), b("1")]).unwrap(), b("011"));
        assert_eq!(call(And, &[b("1100"), b("1010")]).unwrap(), b("1000"));
        assert_eq!(call(Or, &[b("1100"), b("1010")]).unwrap(), b("1110"));
        assert_eq!(call(Xor, &[b("1100"), b("1010")]).unwrap(), b("0110"));
        assert_eq!(call(Not, &[b("1100")]).unwrap(), b("0011"));
        let e = call(And, &[b("001"), b("10")]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("22026", "cannot AND bit strings of different sizes")
        );
        let i = Value::Int4;
        assert_eq!(call(ShiftLeft, &[b("11011"), i(1)]).unwrap(), b("10110"));
        assert_eq!(call(ShiftRight, &[b("11011"), i(2)]).unwrap(), b("00110"));
        assert_eq!(call(ShiftLeft, &[b("11011"), i(-2)]).unwrap(), b("00110"));
        assert_eq!(call(ShiftRight, &[b("11011"), i(9)]).unwrap(), b("00000"));
        assert_eq!(
            call(ShiftLeft, &[b("11011"), i(i32::MIN)]).unwrap(),
            b("00000")
        );
    }

    /// substring, position, overlay, get_bit and set_bit at their
    /// boundaries (bit.sql's cases).
    #[test]
    fn functions_as_postgresql() {
        use BitStringFunc::*;
        let i = Value::Int4;
        let s = b("01010101");
        assert_eq!(
            call(Substring, &[s.clone(), i(2), i(i32::MAX - 1)]).unwrap(),
            b("1010101")
        );
        assert_eq!(
            call(Substring, &[s.clone(), i(-10), i(i32::MAX - 1)]).unwrap(),
            s
        );
        assert_eq!(
            call(Substring, &[s.clone(), i(-10), i(-5)])
                .unwrap_err()
                .code,
            "22011"
        );
        assert_eq!(call(Substring, &[s.clone(), i(6)]).unwrap(), b("101"));
        assert_eq!(call(Position, &[b("00001010"), b("1010")]).unwrap(), i(5));
        assert_eq!(call(Position, &[b("0000101"), b("1010")]).unwrap(), i(0));
        assert_eq!(call(Position, &[b("00001010"), b("")]).unwrap(), i(1));
        assert_eq!(call(Position, &[b(""), b("")]).unwrap(), i(0));
        assert_eq!(
            call(Overlay, &[b("0101011100"), b("001"), i(2), i(3)]).unwrap(),
            b("0001011100")
        );
        assert_eq!(
            call(Overlay, &[b("0101011100"), b("001"), i(20)]).unwrap(),
            b("0101011100001")
        );
        assert_eq!(call(GetBit, &[b("0101011000100"), i(10)]).unwrap(), i(1));
        assert_eq!(
            call(SetBit, &[b("0101011000100100"), i(15), i(1)]).unwrap(),
            b("0101011000100101")
        );
        let e = call(SetBit, &[b("0101011000100100"), i(16), i(1)]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("2202E", "bit index 16 out of valid range (0..15)")
        );
        assert_eq!(call(BitCount, &[b("0101011100")]).unwrap(), Value::Int8(5));
        assert_eq!(call(OctetLength, &[b("0101011100")]).unwrap(), i(2));
    }

    /// Integers to bit(n) keep the low bits, sign-extended; bit strings
    /// to integers are unsigned, wrapped, 22003 past the width.
    #[test]
    fn integer_casts() {
        assert_eq!(
            cast(Value::Int4(5), SqlType::Bit(Some(4))).unwrap(),
            b("0101")
        );
        assert_eq!(
            cast(Value::Int4(-1), SqlType::Bit(Some(34))).unwrap(),
            b(&"1".repeat(34))
        );
        assert_eq!(cast(Value::Int4(5), SqlType::Bit(None)).unwrap(), b("1"));
        assert_eq!(
            cast(b(&"1".repeat(32)), SqlType::Int4).unwrap(),
            Value::Int4(-1)
        );
        assert_eq!(cast(b("0101"), SqlType::Int8).unwrap(), Value::Int8(5));
        assert_eq!(
            cast(b(&"1".repeat(33)), SqlType::Int4).unwrap_err().code,
            "22003"
        );
        assert_eq!(
            cast(Value::Int2(1), SqlType::Bit(Some(2)))
                .unwrap_err()
                .code,
            "42846"
        );
        assert_eq!(
            explicit_cast(b("101"), SqlType::Bit(Some(5))).unwrap(),
            b("10100")
        );
        assert_eq!(
            explicit_cast(b("10111"), SqlType::VarBit(Some(2))).unwrap(),
            b("10")
        );
    }
}
