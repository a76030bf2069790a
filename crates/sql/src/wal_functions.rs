//! Write-ahead log positions as SQL sees them: the `pg_lsn` type's
//! operators and the functions about WAL positions (PostgreSQL 15's
//! `pg_lsn.c` and `xlogfuncs.c`). The one place that says which operand
//! types each operator takes ([`result_type`], [`literal_type`]) and what
//! it gives ([`apply`]).
//!
//! | call | result | folio's value |
//! |---|---|---|
//! | `pg_lsn - pg_lsn` | numeric | the bytes between |
//! | `pg_lsn + numeric`, `numeric + pg_lsn`, `pg_lsn - numeric` | pg_lsn | moved by that many bytes |
//! | `pg_wal_lsn_diff(a, b)` | numeric | `a - b` |
//! | `pg_lsn(numeric)` | pg_lsn | the number, rounded |
//! | `pg_current_wal_lsn()` | pg_lsn | where the WAL is written up to |
//! | `pg_current_wal_insert_lsn()` | pg_lsn | where the next record goes |
//! | `pg_current_wal_flush_lsn()` | pg_lsn | where the WAL is durable up to |
//!
//! folio's WAL positions are byte offsets in one 64-bit space, as
//! PostgreSQL's are, so the differences are bytes of WAL on both. A
//! number becomes a position rounded half away from zero; NaN and the
//! infinities are PostgreSQL's 0A000, a result outside `0 ..= 2^64 - 1`
//! its 22023 `pg_lsn out of range`. A pg_lsn has no cast but to and from
//! text (`types.rs`).

use crate::error::SqlError;
use folio_row::{Numeric, Rounding, SqlType, Value};
use sqlparser::ast::BinaryOperator;

/// A function about WAL positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalFunc {
    /// `pg_wal_lsn_diff(pg_lsn, pg_lsn)`.
    Diff,
    /// `pg_lsn(numeric)`.
    FromNumeric,
    /// `pg_current_wal_lsn()`: written up to.
    Written,
    /// `pg_current_wal_insert_lsn()`: reserved up to.
    Inserted,
    /// `pg_current_wal_flush_lsn()`: durable up to.
    Flushed,
}

const NAMES: [(&str, WalFunc); 5] = [
    ("pg_wal_lsn_diff", WalFunc::Diff),
    ("pg_lsn", WalFunc::FromNumeric),
    ("pg_current_wal_lsn", WalFunc::Written),
    ("pg_current_wal_insert_lsn", WalFunc::Inserted),
    ("pg_current_wal_flush_lsn", WalFunc::Flushed),
];

impl WalFunc {
    pub fn of(name: &str) -> Option<WalFunc> {
        crate::names::lookup(&NAMES, name)
    }

    pub fn name(self) -> Option<&'static str> {
        crate::names::name_in(&NAMES, &self)
    }

    pub fn takes(self, count: usize) -> bool {
        count
            == match self {
                WalFunc::Diff => 2,
                WalFunc::FromNumeric => 1,
                WalFunc::Written | WalFunc::Inserted | WalFunc::Flushed => 0,
            }
    }

    /// Whether its value depends only on its arguments (the current
    /// positions move with every write).
    pub fn immutable(self) -> bool {
        matches!(self, WalFunc::Diff | WalFunc::FromNumeric)
    }

    /// Whether arguments of these types (`None`: a quoted literal, NULL or
    /// a parameter) fit; PostgreSQL's 42883 otherwise.
    pub fn fits(self, types: &[Option<SqlType>]) -> bool {
        let number = |t: &SqlType| {
            matches!(
                t,
                SqlType::Int2 | SqlType::Int4 | SqlType::Int8 | SqlType::Numeric(_)
            )
        };
        types.iter().flatten().all(|t| match self {
            WalFunc::Diff => *t == SqlType::PgLsn,
            WalFunc::FromNumeric => number(t),
            _ => true,
        })
    }

    pub fn ty(self) -> SqlType {
        match self {
            WalFunc::Diff => SqlType::Numeric(None),
            _ => SqlType::PgLsn,
        }
    }

    /// The value of a call of a function of its arguments alone (strict:
    /// NULL arguments give NULL, the caller's); the current positions are
    /// [`WalFunc::position`]'s.
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        match self {
            WalFunc::Diff => Ok(Value::Numeric(difference(
                lsn_arg(&args[0])?,
                lsn_arg(&args[1])?,
            ))),
            WalFunc::FromNumeric => {
                let n = match crate::types::coerce(args[0].clone(), SqlType::Numeric(None))? {
                    Value::Numeric(n) => n,
                    other => return Err(no_lsn_operator("pg_lsn", &other)),
                };
                Ok(Value::PgLsn(from_numeric(&n)?))
            }
            WalFunc::Written | WalFunc::Inserted | WalFunc::Flushed => Err(SqlError::unsupported(
                format!("{}() here", self.name().unwrap_or("a WAL function")),
            )),
        }
    }

    /// The current position it names in the database `db`.
    pub fn position(self, db: &folio_db::Database) -> Value {
        let wal = db.wal();
        Value::PgLsn(
            match self {
                WalFunc::Written => wal.written_lsn(),
                WalFunc::Inserted => wal.insert_lsn(),
                _ => wal.synced_lsn(),
            }
            .0,
        )
    }
}

/// A pg_lsn argument (a quoted literal is read as one).
fn lsn_arg(v: &Value) -> Result<u64, SqlError> {
    match crate::types::coerce(v.clone(), SqlType::PgLsn)? {
        Value::PgLsn(x) => Ok(x),
        other => Err(no_lsn_operator("pg_lsn", &other)),
    }
}

fn no_lsn_operator(what: &str, v: &Value) -> SqlError {
    crate::functions::no_operator(format!("function {what}({}) does not exist", v.type_name()))
}

/// `a - b` in bytes.
fn difference(a: u64, b: u64) -> Numeric {
    Numeric::new(i128::from(a) - i128::from(b), 0).expect("a 65-bit integer fits a numeric")
}

/// The position `n` names, rounded (PostgreSQL's `numeric_pg_lsn`).
fn from_numeric(n: &Numeric) -> Result<u64, SqlError> {
    if n.is_nan() {
        return Err(SqlError::new("0A000", "cannot convert NaN to pg_lsn"));
    }
    if n.is_infinite() {
        return Err(SqlError::new("0A000", "cannot convert infinity to pg_lsn"));
    }
    n.round_to(0, Rounding::HalfAwayFromZero)
        .ok()
        .and_then(|r| r.to_i128())
        .and_then(|x| u64::try_from(x).ok())
        .ok_or_else(|| SqlError::new("22023", "pg_lsn out of range"))
}

/// The type of `a op b` when it is a pg_lsn operator; `None` when
/// neither side is a pg_lsn (the caller's own arithmetic).
pub fn result_type(op: &BinaryOperator, a: SqlType, b: SqlType) -> Option<SqlType> {
    let number = |t: SqlType| {
        matches!(
            t,
            SqlType::Int2 | SqlType::Int4 | SqlType::Int8 | SqlType::Numeric(_)
        )
    };
    match (op, a, b) {
        (BinaryOperator::Minus, SqlType::PgLsn, SqlType::PgLsn) => Some(SqlType::Numeric(None)),
        (BinaryOperator::Plus | BinaryOperator::Minus, SqlType::PgLsn, n) if number(n) => {
            Some(SqlType::PgLsn)
        }
        (BinaryOperator::Plus, n, SqlType::PgLsn) if number(n) => Some(SqlType::PgLsn),
        _ => None,
    }
}

/// The type an untyped literal takes meeting a pg_lsn in `a op b`: a
/// position it is subtracted from or subtracts, a number it is added to
/// (PostgreSQL's only `pg_lsn + x` is `pg_lsn + numeric`).
pub fn literal_type(op: &BinaryOperator) -> SqlType {
    match op {
        BinaryOperator::Plus => SqlType::Numeric(None),
        _ => SqlType::PgLsn,
    }
}

/// The value of `a op b` when either side is a pg_lsn (neither NULL);
/// `None` otherwise. Other pairs with a pg_lsn are 42883.
pub fn apply(op: &BinaryOperator, a: &Value, b: &Value) -> Option<Result<Value, SqlError>> {
    if !matches!(a, Value::PgLsn(_)) && !matches!(b, Value::PgLsn(_)) {
        return None;
    }
    let number = |v: &Value| match crate::types::coerce(v.clone(), SqlType::Numeric(None)) {
        Ok(Value::Numeric(n)) => Some(n),
        _ => None,
    };
    let moved = |lsn: u64, n: &Numeric, add: bool| -> Result<Value, SqlError> {
        if n.is_nan() {
            let message = match add {
                true => "cannot add NaN to pg_lsn",
                false => "cannot subtract NaN from pg_lsn",
            };
            return Err(SqlError::new("0A000", message));
        }
        let base = difference(lsn, 0);
        let sum = match add {
            true => base.checked_add(n)?,
            false => base.checked_sub(n)?,
        };
        Ok(Value::PgLsn(from_numeric(&sum)?))
    };
    Some(match (op, a, b) {
        (BinaryOperator::Minus, Value::PgLsn(x), Value::PgLsn(y)) => {
            Ok(Value::Numeric(difference(*x, *y)))
        }
        (BinaryOperator::Plus, Value::PgLsn(x), n) | (BinaryOperator::Plus, n, Value::PgLsn(x))
            if !matches!(n, Value::PgLsn(_)) && number(n).is_some() =>
        {
            moved(*x, &number(n).expect("checked"), true)
        }
        (BinaryOperator::Minus, Value::PgLsn(x), n) if number(n).is_some() => {
            moved(*x, &number(n).expect("checked"), false)
        }
        _ => Err(crate::functions::no_operator(format!(
            "operator does not exist: {} {op} {}",
            a.type_name(),
            b.type_name()
        ))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lsn(text: &str) -> Value {
        Value::PgLsn(folio_row::lsn::parse_lsn(text).unwrap())
    }

    fn num(text: &str) -> Value {
        Value::Numeric(Numeric::parse(text).unwrap())
    }

    // Proves the operators give PostgreSQL 15's answers (pg_lsn.sql):
    // differences both ways, moves by a number (rounded), the ends of
    // the range, NaN and infinity refused.
    #[test]
    fn operators_follow_postgresql() {
        let minus = BinaryOperator::Minus;
        let plus = BinaryOperator::Plus;
        let value = |op: &BinaryOperator, a: Value, b: Value| apply(op, &a, &b).unwrap();
        assert_eq!(
            value(&minus, lsn("0/16AE7F7"), lsn("0/16AE7F8")).unwrap(),
            num("-1")
        );
        assert_eq!(
            value(&plus, lsn("0/16AE7F7"), num("16")).unwrap(),
            lsn("0/16AE807")
        );
        assert_eq!(
            value(&plus, Value::Int4(16), lsn("0/16AE7F7")).unwrap(),
            lsn("0/16AE807")
        );
        assert_eq!(value(&plus, lsn("0/0"), num("1.5")).unwrap(), lsn("0/2"));
        assert_eq!(value(&minus, lsn("0/5"), num("1.5")).unwrap(), lsn("0/4"));
        assert_eq!(
            value(&plus, lsn("FFFFFFFF/FFFFFFFE"), num("1")).unwrap(),
            lsn("FFFFFFFF/FFFFFFFF")
        );
        for (op, a, b, code) in [
            (&plus, lsn("FFFFFFFF/FFFFFFFE"), num("2"), "22023"),
            (&minus, lsn("0/1"), num("2"), "22023"),
            (&plus, lsn("0/1"), num("NaN"), "0A000"),
            (&minus, lsn("0/1"), num("NaN"), "0A000"),
            (&plus, lsn("0/1"), num("Infinity"), "0A000"),
            (&plus, lsn("0/1"), lsn("0/1"), "42883"),
        ] {
            assert_eq!(value(op, a, b).unwrap_err().code, code);
        }
        assert!(apply(&plus, &num("1"), &num("2")).is_none());
        assert_eq!(
            WalFunc::FromNumeric.eval(&[num("-0.4")]).unwrap(),
            lsn("0/0")
        );
        assert_eq!(
            WalFunc::Diff.eval(&[lsn("1/0"), lsn("0/0")]).unwrap(),
            num("4294967296")
        );
    }
}
