//! `overlay(string PLACING replacement FROM start [FOR count])` (and its
//! call form `overlay(string, replacement, start [, count])`) of a text
//! (by characters) or a bytea (by bytes), as PostgreSQL 15: the part of
//! `string` before `start`, then `replacement`, then what follows the
//! `count` characters from `start` (`count` defaults to the
//! replacement's length). A `start` before 1 is 22011; `start + count`
//! past an integer's range is 22003; a negative `count` keeps the
//! string from `start + count` on (so part of it twice, as
//! PostgreSQL's).

use crate::error::SqlError;
use folio_row::{SqlType, Value};

/// Whether a call with arguments of `types` (`None`: an unknown literal)
/// fits a form: a string or bytea, a replacement, integer positions.
pub fn fits(types: &[Option<SqlType>]) -> bool {
    use SqlType::*;
    let string = |t: &Option<SqlType>| {
        t.as_ref()
            .is_none_or(|t| matches!(t, Text | Varchar(_) | Char(_) | Bytea))
    };
    let int = |t: &Option<SqlType>| t.as_ref().is_none_or(|t| matches!(t, Int2 | Int4));
    match types {
        [s, r, start, rest @ ..] if rest.len() <= 1 => {
            string(s) && string(r) && int(start) && rest.iter().all(int)
        }
        _ => false,
    }
}

/// Its result type: a bytea's is a bytea, else text.
pub fn ty(args: &[SqlType]) -> SqlType {
    match args.first() {
        Some(SqlType::Bytea) => SqlType::Bytea,
        _ => SqlType::Text,
    }
}

/// The overlaid string (no argument NULL: the function is strict).
pub fn eval(args: &[Value]) -> Result<Value, SqlError> {
    let int = |v: &Value| -> Result<i32, SqlError> {
        i32::try_from(crate::functions::int_arg(v)?)
            .map_err(|_| SqlError::new("22003", "integer out of range"))
    };
    let start = int(&args[2])?;
    let count = args.get(3).map(int).transpose()?;
    match (&args[0], &args[1]) {
        (Value::Bytea(s), r) => {
            let r = match crate::types::cast(r.clone(), SqlType::Bytea)? {
                Value::Bytea(r) => r,
                _ => unreachable!("a cast to bytea is a bytea"),
            };
            let count = count.unwrap_or(r.len() as i32);
            Ok(Value::Bytea(overlaid(s, &r, start, count)?))
        }
        (s, r) => {
            let text = |v: &Value| crate::types::text_output(v).unwrap_or_default();
            let s: Vec<char> = text(s).chars().collect();
            let r: Vec<char> = text(r).chars().collect();
            let count = count.unwrap_or(r.len() as i32);
            Ok(Value::Text(
                overlaid(&s, &r, start, count)?.into_iter().collect(),
            ))
        }
    }
}

/// `s` with `count` items from 1-based `start` replaced by `r`.
pub(crate) fn overlaid<T: Clone>(
    s: &[T],
    r: &[T],
    start: i32,
    count: i32,
) -> Result<Vec<T>, SqlError> {
    if start < 1 {
        return Err(SqlError::new(
            "22011",
            "negative substring length not allowed",
        ));
    }
    let resume = start
        .checked_add(count)
        .ok_or_else(|| SqlError::new("22003", "integer out of range"))?;
    let clamp = |at: i32| (at.max(1) as usize - 1).min(s.len());
    let mut out = s[..clamp(start)].to_vec();
    out.extend_from_slice(r);
    out.extend_from_slice(&s[clamp(resume)..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves PostgreSQL's results: a replacement of another length, one
    // past the end, a zero and a negative count, and the errors.
    #[test]
    fn overlay_as_postgresql() {
        let t = |s: &str, r: &str, start, count| -> Result<String, SqlError> {
            let s: Vec<char> = s.chars().collect();
            let r: Vec<char> = r.chars().collect();
            overlaid(&s, &r, start, count).map(|v| v.into_iter().collect())
        };
        assert_eq!(t("Txxxxas", "hom", 2, 4).unwrap(), "Thomas");
        assert_eq!(t("Txxxxas", "hom", 2, 3).unwrap(), "Thomxas");
        assert_eq!(t("abc", "XY", 5, 2).unwrap(), "abcXY");
        assert_eq!(t("abc", "XY", 1, 0).unwrap(), "XYabc");
        assert_eq!(t("abc", "X", 2, -1).unwrap(), "aXabc");
        assert_eq!(t("abc", "X", 2, -5).unwrap(), "aXabc");
        assert_eq!(t("abc", "X", 0, 1).unwrap_err().code, "22011");
        assert_eq!(t("abc", "X", 2, i32::MAX).unwrap_err().code, "22003");
    }
}
