//! The text form of a row value (an anonymous `record`), as PostgreSQL's
//! `record_out` writes it: `(1,abc)`. A NULL field is nothing (`(1,)`);
//! a field is quoted when it is empty or holds a parenthesis, a comma, a
//! quote, a backslash or white space, and inside the quotes `"` and `\`
//! are doubled (`"a ""b"""`, `"x\\y"`). A field that is itself a row or
//! an array is its own text, quoted by the same rule. Input of a record
//! is PostgreSQL's 0A000 ("input of anonymous composite types is not
//! implemented"), so there is no `record_in` here.

use crate::text_style::TextStyle;
use crate::value::Value;

/// The text of a row's fields.
pub(crate) fn record_out(fields: &[Value], style: &TextStyle) -> String {
    let mut out = String::from("(");
    for (n, field) in fields.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        let Some(text) = field.to_text_styled(style) else {
            continue;
        };
        let quote = text.is_empty()
            || text.chars().any(|c| {
                matches!(c, '(' | ')' | ',' | '"' | '\\') || crate::array_text::is_space(c)
            });
        if !quote {
            out.push_str(&text);
            continue;
        }
        out.push('"');
        for c in text.chars() {
            if c == '"' || c == '\\' {
                out.push(c);
            }
            out.push(c);
        }
        out.push('"');
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves record_out's quoting against PostgreSQL 15's output of
    // `select (1, 'a b', 'c,d', 'e"f', 'g\h', '(', ')', '', null, 1.5, true)`
    // and of a row inside a row.
    #[test]
    fn fields_are_quoted_as_postgresql_s_record_out() {
        let t = |s: &str| Value::Text(s.into());
        let row = [
            Value::Int4(1),
            t("a b"),
            t("c,d"),
            t("e\"f"),
            t("g\\h"),
            t("("),
            t(")"),
            t(""),
            Value::Null,
            Value::Bool(true),
        ];
        assert_eq!(
            record_out(&row, &TextStyle::default()),
            r#"(1,"a b","c,d","e""f","g\\h","(",")","",,t)"#
        );
        assert_eq!(record_out(&[], &TextStyle::default()), "()");
        assert_eq!(
            record_out(&[Value::Null, Value::Null], &TextStyle::default()),
            "(,)"
        );
        let inner = Value::Record(vec![Value::Int4(2), t("a b")]);
        assert_eq!(
            record_out(&[Value::Int4(1), inner], &TextStyle::default()),
            r#"(1,"(2,""a b"")")"#
        );
        let array = Value::Array(vec![Value::Int4(1), Value::Int4(2)].into());
        assert_eq!(record_out(&[array], &TextStyle::default()), r#"("{1,2}")"#);
    }
}
