//! Arrays in expressions: `ARRAY[a, b]`, `a[i]`, `a || b`, `x op ANY (array)` /
//! `ALL (array)`, and `array_to_string`, `array_upper`, `array_lower`,
//! `array_length`, `cardinality`, `array_position`,
//! with PostgreSQL's results for NULLs and empty arrays. Arrays are
//! one-dimensional with lower bound 1 (folio-row `Value::Array`).

use crate::error::SqlError;
use crate::scalar::{Cmp, any_or_all, compare};
use crate::types;
use folio_row::{SqlType, Value};

/// An array function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayFunc {
    /// `ARRAY[a, b, ...]` (its arguments cast to one type when bound).
    Construct,
    /// `array[i]`: the element, NULL outside the array.
    Element,
    /// `a || b` of two arrays, or of an array and an element (NULL is an
    /// empty array here, as PostgreSQL's `array_cat`).
    Cat,
    /// `x cmp ANY (array)` (`all`: `ALL (array)`).
    Compare {
        cmp: Cmp,
        all: bool,
    },
    ToString,
    Upper,
    Lower,
    Length,
    Cardinality,
    Position,
}

/// The array functions called by name.
const NAMES: [(&str, ArrayFunc); 6] = [
    ("array_to_string", ArrayFunc::ToString),
    ("array_upper", ArrayFunc::Upper),
    ("array_lower", ArrayFunc::Lower),
    ("array_length", ArrayFunc::Length),
    ("cardinality", ArrayFunc::Cardinality),
    ("array_position", ArrayFunc::Position),
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
            ArrayFunc::Construct => true,
            ArrayFunc::Cardinality => count == 1,
            ArrayFunc::ToString => (2..=3).contains(&count),
            _ => count == 2,
        }
    }

    /// Whether a NULL argument makes the result NULL without a call.
    pub fn is_strict(self) -> bool {
        !matches!(
            self,
            ArrayFunc::Construct | ArrayFunc::Compare { .. } | ArrayFunc::Position | ArrayFunc::Cat
        )
    }

    /// The result type for arguments of types `args`.
    pub fn ty(self, args: &[SqlType]) -> SqlType {
        match self {
            ArrayFunc::Construct => element_type(args)
                .array_of()
                .unwrap_or(SqlType::Array(&SqlType::Text)),
            ArrayFunc::Element => args
                .first()
                .and_then(|a| a.element())
                .unwrap_or(SqlType::Text),
            ArrayFunc::Compare { .. } => SqlType::Bool,
            ArrayFunc::Cat => args
                .iter()
                .copied()
                .find(|t| t.element().is_some())
                .unwrap_or(SqlType::Array(&SqlType::Text)),
            ArrayFunc::ToString => SqlType::Text,
            _ => SqlType::Int4,
        }
    }

    /// Its value.
    pub fn eval(self, args: Vec<Value>) -> Result<Value, SqlError> {
        if self == ArrayFunc::Construct {
            return Ok(Value::Array(args));
        }
        if self == ArrayFunc::Cat {
            return Ok(match <[Value; 2]>::try_from(args) {
                Ok([Value::Null, Value::Null]) | Err(_) => Value::Null,
                Ok([Value::Array(mut a), Value::Array(b)]) => {
                    a.extend(b);
                    Value::Array(a)
                }
                Ok([Value::Array(a), Value::Null] | [Value::Null, Value::Array(a)]) => {
                    Value::Array(a)
                }
                Ok([Value::Array(mut a), element]) => {
                    a.push(element);
                    Value::Array(a)
                }
                Ok([element, Value::Array(mut b)]) => {
                    b.insert(0, element);
                    Value::Array(b)
                }
                Ok([a, b]) => Value::Array(vec![a, b]),
            });
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
        let items = match first {
            Value::Null => return Ok(Value::Null),
            array => items_of(array)?,
        };
        let second = args.next().unwrap_or(Value::Null);
        let len = items.len() as i32;
        let dimension_one = |v: &Value| crate::functions::int_arg(v).is_ok_and(|d| d == 1);
        Ok(match self {
            ArrayFunc::Element => match crate::functions::int_arg(&second) {
                Ok(i) if i >= 1 && i <= i64::from(len) => items[i as usize - 1].clone(),
                _ => Value::Null,
            },
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
            ArrayFunc::Upper | ArrayFunc::Length if len > 0 && dimension_one(&second) => {
                Value::Int4(len)
            }
            ArrayFunc::Lower if len > 0 && dimension_one(&second) => Value::Int4(1),
            ArrayFunc::Upper | ArrayFunc::Length | ArrayFunc::Lower => Value::Null,
            ArrayFunc::Cardinality => Value::Int4(len),
            ArrayFunc::Position => {
                let found = items.iter().position(|v| match (v, &second) {
                    (Value::Null, Value::Null) => true,
                    (v, s) => compare(v, s).ok().flatten().is_some_and(|o| o.is_eq()),
                });
                found.map_or(Value::Null, |i| Value::Int4(i as i32 + 1))
            }
            ArrayFunc::Construct | ArrayFunc::Compare { .. } | ArrayFunc::Cat => {
                unreachable!("evaluated above")
            }
        })
    }
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

/// An array's elements, or 42804 for a value that is not an array.
fn items_of(v: Value) -> Result<Vec<Value>, SqlError> {
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
        let e = ArrayFunc::Element.eval(vec![a, Value::Int4(3)]).unwrap();
        assert_eq!(e, Value::Null);
    }
}
