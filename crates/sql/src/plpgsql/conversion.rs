//! How PL/pgSQL turns a value into a variable's (or a field's, a
//! result's) type: PostgreSQL's assignment cast where the types have one
//! (a numeric rounds to an integer, text longer than a `varchar(n)` is
//! 22001, never cut), else the I/O conversion: the value's text read by
//! the wanted type's input. So `i := true` into an integer fails as in
//! PostgreSQL (`"true"` is no integer), where an explicit cast would
//! give 1, and a row assigned to a text variable is its text.

use crate::error::SqlError;
use folio_row::{SqlType, Value};

/// `value` (of type `from`; `None`: the value's own) as `want`.
pub fn convert(value: Value, from: Option<SqlType>, want: SqlType) -> Result<Value, SqlError> {
    let from = from.unwrap_or_else(|| crate::scalar::value_type(&value));
    if value == Value::Null || from == want {
        return Ok(value);
    }
    if crate::types::assignment_cast(from, want) {
        return crate::types::assign(value, want);
    }
    // The value's output form, in the statement's style (a Boolean's is
    // `t` or `f`, where its cast to text says `true` or `false`).
    let text = crate::types::text_output(&value).expect("NULL returned above");
    crate::types::assign(Value::Text(text), want)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignment_casts_then_text() {
        let int = |v| convert(v, None, SqlType::Int4);
        assert_eq!(int(Value::Float8(3.6)).unwrap(), Value::Int4(4));
        assert_eq!(int(Value::Text("12".into())).unwrap(), Value::Int4(12));
        assert_eq!(int(Value::Bool(true)).unwrap_err().code, "22P02");
        let short = convert(Value::Text("abcd".into()), None, SqlType::Varchar(Some(2)));
        assert_eq!(short.unwrap_err().code, "22001");
        let b = convert(Value::Int4(1), None, SqlType::Bool).unwrap();
        assert_eq!(b, Value::Bool(true));
    }
}
