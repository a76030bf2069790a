//! Scalar functions (`coalesce`, `nullif`, `lower`, `upper`, `length`,
//! `abs`, `round`, `substr`, `greatest`, `least`, `concat`) and LIKE
//! matching, with PostgreSQL's results for NULLs and their result types.

use crate::error::SqlError;
use crate::scalar::compare;
use crate::types;
use folio_row::{Numeric, SqlType, Value};
use std::cmp::Ordering;

/// A scalar function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Coalesce,
    Nullif,
    Lower,
    Upper,
    Length,
    Abs,
    Round,
    Substr,
    Greatest,
    Least,
    Concat,
}

impl Func {
    /// The function called `name`, if folio has it.
    pub fn of(name: &str) -> Option<Func> {
        Some(match name {
            "coalesce" => Func::Coalesce,
            "nullif" => Func::Nullif,
            "lower" => Func::Lower,
            "upper" => Func::Upper,
            "length" | "char_length" | "character_length" => Func::Length,
            "abs" => Func::Abs,
            "round" => Func::Round,
            "substr" | "substring" => Func::Substr,
            "greatest" => Func::Greatest,
            "least" => Func::Least,
            "concat" => Func::Concat,
            _ => return None,
        })
    }

    /// Whether `count` arguments are accepted.
    pub fn takes(self, count: usize) -> bool {
        match self {
            Func::Coalesce | Func::Greatest | Func::Least | Func::Concat => count >= 1,
            Func::Nullif => count == 2,
            Func::Lower | Func::Upper | Func::Length | Func::Abs => count == 1,
            Func::Round => (1..=2).contains(&count),
            Func::Substr => (2..=3).contains(&count),
        }
    }

    /// The result type for arguments of types `args`.
    pub fn ty(self, args: &[SqlType]) -> SqlType {
        match self {
            Func::Coalesce | Func::Nullif | Func::Greatest | Func::Least => args
                .iter()
                .copied()
                .find(|t| *t != SqlType::Text)
                .unwrap_or(SqlType::Text),
            Func::Lower | Func::Upper | Func::Substr | Func::Concat => SqlType::Text,
            Func::Length => SqlType::Int4,
            Func::Abs => args.first().copied().unwrap_or(SqlType::Numeric(None)),
            Func::Round => SqlType::Numeric(None),
        }
    }

    /// The function's value.
    pub fn eval(self, args: Vec<Value>) -> Result<Value, SqlError> {
        let text = |v: &Value| -> Result<String, SqlError> {
            Ok(types::text_output(v)?.unwrap_or_default())
        };
        // Most functions are strict: NULL in, NULL out.
        let strict = !matches!(
            self,
            Func::Coalesce | Func::Nullif | Func::Greatest | Func::Least | Func::Concat
        );
        if strict && args.contains(&Value::Null) {
            return Ok(Value::Null);
        }
        Ok(match self {
            Func::Coalesce => args
                .into_iter()
                .find(|v| *v != Value::Null)
                .unwrap_or(Value::Null),
            Func::Nullif => {
                let mut args = args.into_iter();
                let (a, b) = (
                    args.next().unwrap_or(Value::Null),
                    args.next().unwrap_or(Value::Null),
                );
                if compare(&a, &b)? == Some(Ordering::Equal) {
                    Value::Null
                } else {
                    a
                }
            }
            Func::Greatest | Func::Least => {
                let mut best: Option<Value> = None;
                for v in args.into_iter().filter(|v| *v != Value::Null) {
                    let replace = match &best {
                        None => true,
                        Some(b) => {
                            let order = compare(&v, b)?.unwrap_or(Ordering::Equal);
                            if self == Func::Greatest {
                                order.is_gt()
                            } else {
                                order.is_lt()
                            }
                        }
                    };
                    if replace {
                        best = Some(v);
                    }
                }
                best.unwrap_or(Value::Null)
            }
            Func::Concat => {
                let mut out = String::new();
                for v in args.iter().filter(|v| **v != Value::Null) {
                    out.push_str(&text(v)?);
                }
                Value::Text(out)
            }
            Func::Lower => Value::Text(text(&args[0])?.to_lowercase()),
            Func::Upper => Value::Text(text(&args[0])?.to_uppercase()),
            Func::Length => Value::Int4(text(&args[0])?.chars().count() as i32),
            Func::Abs => match &args[0] {
                Value::Int2(x) => Value::Int2(x.checked_abs().ok_or_else(overflow)?),
                Value::Int4(x) => Value::Int4(x.checked_abs().ok_or_else(overflow)?),
                Value::Int8(x) => Value::Int8(x.checked_abs().ok_or_else(overflow)?),
                Value::Numeric(n) => match n.parts() {
                    Some((m, s)) => Value::Numeric(Numeric::new(m.abs(), s)?),
                    None => Value::Numeric(*n),
                },
                other => return Err(no_function("abs", other)),
            },
            Func::Round => {
                let digits = match args.get(1) {
                    Some(v) => int_arg(v)?,
                    None => 0,
                };
                let n = match &args[0] {
                    Value::Numeric(n) => *n,
                    Value::Int2(x) => Numeric::from_i64((*x).into()),
                    Value::Int4(x) => Numeric::from_i64((*x).into()),
                    Value::Int8(x) => Numeric::from_i64(*x),
                    other => return Err(no_function("round", other)),
                };
                let scale = u16::try_from(digits.clamp(0, 38)).unwrap_or(0);
                Value::Numeric(n.fit_typmod(1000, scale).map_err(|_| overflow())?)
            }
            Func::Substr => {
                let s: Vec<char> = text(&args[0])?.chars().collect();
                let start = int_arg(&args[1])?;
                // PostgreSQL: 1-based; a start before 1 shortens the length.
                let (from, end) = match args.get(2) {
                    Some(len) => {
                        let len = int_arg(len)?;
                        if len < 0 {
                            return Err(SqlError::new(
                                "22011",
                                "negative substring length not allowed",
                            ));
                        }
                        (start, start.saturating_add(len))
                    }
                    None => (start, i64::MAX),
                };
                let clamp = |i: i64| (i.max(1) - 1).min(s.len() as i64) as usize;
                let (a, b) = (clamp(from), clamp(end));
                Value::Text(s[a..b.max(a)].iter().collect())
            }
        })
    }
}

fn overflow() -> SqlError {
    SqlError::new("22003", "integer out of range")
}

fn no_function(name: &str, arg: &Value) -> SqlError {
    SqlError::new(
        "42883",
        format!("function {name}({}) does not exist", arg.type_name()),
    )
}

fn int_arg(v: &Value) -> Result<i64, SqlError> {
    match v {
        Value::Int2(x) => Ok((*x).into()),
        Value::Int4(x) => Ok((*x).into()),
        Value::Int8(x) => Ok(*x),
        Value::Text(t) => t.trim().parse().map_err(|_| {
            SqlError::new(
                "22P02",
                format!("invalid input syntax for type integer: \"{t}\""),
            )
        }),
        other => Err(SqlError::new(
            "42883",
            format!("an integer argument, not {}", other.type_name()),
        )),
    }
}

/// Whether `text` matches LIKE `pattern` (`%` any run, `_` one character,
/// `\` escapes the next), case-insensitively for ILIKE.
pub fn like(text: &str, pattern: &str, insensitive: bool) -> bool {
    let fold = |s: &str| -> Vec<char> {
        if insensitive {
            s.to_lowercase().chars().collect()
        } else {
            s.chars().collect()
        }
    };
    let (t, p) = (fold(text), fold(pattern));
    matches(&t, &p)
}

/// A LIKE pattern's pieces.
#[derive(Clone, Copy, PartialEq)]
enum Piece {
    Any,
    One,
    Lit(char),
}

/// Wildcard matching with one backtrack point (the last `%`): linear in
/// practice, never exponential.
fn matches(t: &[char], p: &[char]) -> bool {
    let mut pieces = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        pieces.push(match p[i] {
            '%' => Piece::Any,
            '_' => Piece::One,
            '\\' if i + 1 < p.len() => {
                i += 1;
                Piece::Lit(p[i])
            }
            c => Piece::Lit(c),
        });
        i += 1;
    }
    let (mut ti, mut pi) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match pieces.get(pi) {
            Some(Piece::Any) => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(Piece::One) => {
                ti += 1;
                pi += 1;
            }
            Some(Piece::Lit(c)) if *c == t[ti] => {
                ti += 1;
                pi += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pieces[pi..].iter().all(|x| *x == Piece::Any)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns() {
        assert!(like("abc", "a%", false));
        assert!(like("abc", "_b_", false));
        assert!(!like("abc", "_b", false));
        assert!(like("ABC", "a%c", true));
        assert!(like("50%", "50\\%", false));
        assert!(!like("500", "50\\%", false));
        assert!(like("", "%", false));
    }
}
