//! Rows as callers see them, and the conversions between Rust values and
//! SQL values: [`Row`] and [`FromValue`] out, [`IntoRow`] and [`Key`] in.

use crate::error::{Error, Result};
use folio_row::{Numeric, Value};
use std::sync::Arc;

/// A row of a table: its values in column order, with the column names
/// (shared by every row of the table handle).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    columns: Arc<[String]>,
    values: Vec<Value>,
}

impl Row {
    pub(crate) fn new(columns: Arc<[String]>, values: Vec<Value>) -> Row {
        Row { columns, values }
    }

    /// The value of a column, by position or name, as a Rust type: an
    /// integer column reads as any integer type that holds it, NULL as
    /// `None` of an `Option`. A wrong type is 42804, a missing column
    /// 42703.
    pub fn get<T: FromValue>(&self, column: impl Column) -> Result<T> {
        let at = column.position(&self.columns)?;
        T::from_value(&self.values[at])
    }

    /// The values in column order.
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    pub fn into_values(self) -> Vec<Value> {
        self.values
    }

    /// The column names.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }
}

impl std::ops::Index<usize> for Row {
    type Output = Value;
    fn index(&self, at: usize) -> &Value {
        &self.values[at]
    }
}

impl PartialEq<[Value]> for Row {
    fn eq(&self, other: &[Value]) -> bool {
        self.values == other
    }
}

/// A column named by position or by name.
pub trait Column {
    fn position(&self, columns: &[String]) -> Result<usize>;
}

impl Column for usize {
    fn position(&self, columns: &[String]) -> Result<usize> {
        if *self < columns.len() {
            return Ok(*self);
        }
        Err(Error::UndefinedColumn(format!(
            "column number {self} does not exist (the row has {})",
            columns.len()
        )))
    }
}

impl Column for &str {
    fn position(&self, columns: &[String]) -> Result<usize> {
        columns
            .iter()
            .position(|c| c == self)
            .ok_or_else(|| Error::UndefinedColumn(format!("column \"{self}\" does not exist")))
    }
}

/// A Rust type a SQL value converts to ([`Row::get`]).
pub trait FromValue: Sized {
    fn from_value(value: &Value) -> Result<Self>;
}

fn mismatch(value: &Value, wanted: &str) -> Error {
    let message = if *value == Value::Null {
        format!("NULL cannot be read as {wanted} (read it as an Option)")
    } else {
        format!("a {} value cannot be read as {wanted}", value.type_name())
    };
    Error::invalid("42804", message)
}

macro_rules! integer_from_value {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(value: &Value) -> Result<Self> {
                let wide = match *value {
                    Value::Int2(x) => i64::from(x),
                    Value::Int4(x) => i64::from(x),
                    Value::Int8(x) => x,
                    _ => return Err(mismatch(value, stringify!($t))),
                };
                <$t>::try_from(wide).map_err(|_| {
                    Error::invalid("22003", format!("{wide} is out of range for {}", stringify!($t)))
                })
            }
        }
    )*};
}

integer_from_value!(i16, i32, i64);

macro_rules! plain_from_value {
    ($($t:ty => $pattern:pat => $out:expr),* $(,)?) => {$(
        impl FromValue for $t {
            fn from_value(value: &Value) -> Result<Self> {
                match value {
                    $pattern => Ok($out),
                    _ => Err(mismatch(value, stringify!($t))),
                }
            }
        }
    )*};
}

plain_from_value!(
    bool => Value::Bool(x) => *x,
    String => Value::Text(x) => x.clone(),
    Vec<u8> => Value::Bytea(x) => x.clone(),
    Numeric => Value::Numeric(x) => *x,
);

impl FromValue for f64 {
    fn from_value(value: &Value) -> Result<Self> {
        match *value {
            Value::Float8(x) => Ok(x),
            Value::Float4(x) => Ok(f64::from(x)),
            _ => Err(mismatch(value, "f64")),
        }
    }
}

impl FromValue for f32 {
    fn from_value(value: &Value) -> Result<Self> {
        match value {
            Value::Float4(x) => Ok(*x),
            _ => Err(mismatch(value, "f32")),
        }
    }
}

impl FromValue for Value {
    fn from_value(value: &Value) -> Result<Self> {
        Ok(value.clone())
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(value: &Value) -> Result<Self> {
        match value {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

/// What [`crate::Table::insert`] and friends take as a row: a `Vec` or
/// array of values, or a tuple of Rust values (`(1, "alice", 100)`).
pub trait IntoRow {
    fn into_row(self) -> Vec<Value>;
}

impl IntoRow for Vec<Value> {
    fn into_row(self) -> Vec<Value> {
        self
    }
}

impl IntoRow for Row {
    fn into_row(self) -> Vec<Value> {
        self.values
    }
}

impl<const N: usize> IntoRow for [Value; N] {
    fn into_row(self) -> Vec<Value> {
        self.into()
    }
}

/// A primary-key value, or a prefix of a composite one: a Rust value
/// (`7`, `"alice"`), a [`Value`], a tuple (`("eu", 7)`) or a slice of
/// values. Taken by reference, so ranges of keys (`1..10`) work.
pub trait Key {
    fn key_values(&self) -> Vec<Value>;
}

macro_rules! scalar_key {
    ($($t:ty),*) => {$(
        impl Key for $t {
            fn key_values(&self) -> Vec<Value> {
                vec![Value::from(self.clone())]
            }
        }
    )*};
}

scalar_key!(i16, i32, i64, bool, String, &str, Vec<u8>, Numeric);

impl Key for Value {
    fn key_values(&self) -> Vec<Value> {
        vec![self.clone()]
    }
}

impl Key for Vec<Value> {
    fn key_values(&self) -> Vec<Value> {
        self.clone()
    }
}

impl Key for [Value] {
    fn key_values(&self) -> Vec<Value> {
        self.to_vec()
    }
}

impl<const N: usize> Key for [Value; N] {
    fn key_values(&self) -> Vec<Value> {
        self.to_vec()
    }
}

impl<K: Key + ?Sized> Key for &K {
    fn key_values(&self) -> Vec<Value> {
        (**self).key_values()
    }
}

macro_rules! tuples {
    ($(($($name:ident),+)),* $(,)?) => {$(
        #[allow(non_snake_case)]
        impl<$($name: Into<Value>),+> IntoRow for ($($name,)+) {
            fn into_row(self) -> Vec<Value> {
                let ($($name,)+) = self;
                vec![$($name.into()),+]
            }
        }

        #[allow(non_snake_case)]
        impl<$($name: Into<Value> + Clone),+> Key for ($($name,)+) {
            fn key_values(&self) -> Vec<Value> {
                let ($($name,)+) = self.clone();
                vec![$($name.into()),+]
            }
        }
    )*};
}

tuples!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H),
);
