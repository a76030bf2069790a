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

/// A row lent for the length of a call ([`crate::Table::get_with`]): its
/// bytes stay where the read found them, and a column is decoded only when
/// asked for; text and bytea are borrowed, not copied.
#[derive(Debug, Clone, Copy)]
pub struct RowRef<'a> {
    bytes: &'a [u8],
    types: &'a [folio_row::SqlType],
    columns: &'a [String],
}

impl<'a> RowRef<'a> {
    pub(crate) fn new(
        bytes: &'a [u8],
        types: &'a [folio_row::SqlType],
        columns: &'a [String],
    ) -> RowRef<'a> {
        RowRef {
            bytes,
            types,
            columns,
        }
    }

    fn raw(&self, column: impl Column) -> Result<(usize, folio_row::ColumnBytes<'a>)> {
        let at = column.position(self.columns)?;
        let raw = folio_row::column_bytes(self.bytes, self.types, at)?;
        if raw == folio_row::ColumnBytes::External {
            return Err(Error::invalid(
                "0A000",
                format!(
                    "column \"{}\" is stored out of line: read it with get()",
                    self.columns[at]
                ),
            ));
        }
        Ok((at, raw))
    }

    /// A text column's value, borrowed (`None` for NULL).
    pub fn str(&self, column: impl Column) -> Result<Option<&'a str>> {
        let (at, raw) = self.raw(column)?;
        use folio_row::SqlType::{Char, Text, Varchar};
        if !matches!(self.types[at], Text | Varchar(_) | Char(_)) {
            return Err(mismatch_type(self.types[at], "&str"));
        }
        match raw {
            folio_row::ColumnBytes::Inline(b) => std::str::from_utf8(b)
                .map(Some)
                .map_err(|_| Error::invalid("XX001", "text that is not UTF-8")),
            _ => Ok(None),
        }
    }

    /// A bytea column's value, borrowed (`None` for NULL).
    pub fn bytes(&self, column: impl Column) -> Result<Option<&'a [u8]>> {
        let (at, raw) = self.raw(column)?;
        if self.types[at] != folio_row::SqlType::Bytea {
            return Err(mismatch_type(self.types[at], "&[u8]"));
        }
        match raw {
            folio_row::ColumnBytes::Inline(b) => Ok(Some(b)),
            _ => Ok(None),
        }
    }

    /// A column's value as a Rust type ([`Row::get`]'s rules), decoded
    /// from the lent bytes.
    pub fn get<T: FromValue>(&self, column: impl Column) -> Result<T> {
        let (at, _) = self.raw(column)?;
        T::from_value(&folio_row::decode_column(self.bytes, self.types, at)?)
    }
}

fn mismatch_type(ty: folio_row::SqlType, wanted: &str) -> Error {
    Error::invalid(
        "42804",
        format!("a {} column cannot be read as {wanted}", ty.name()),
    )
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
    Numeric => Value::Numeric(x) => x.clone(),
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
