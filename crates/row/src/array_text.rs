//! The text form of one-dimensional arrays, as PostgreSQL's `array_out`
//! and `array_in` write and read it: `{1,2,NULL}`, `{"a b","",x}`.
//! An element is quoted when it is empty, is `NULL` in any case, or holds
//! a brace, a comma, a quote, a backslash or white space; inside quotes
//! `"` and `\` are escaped with a backslash. Input reads the same forms
//! (an unquoted `NULL` is a NULL element); bounds (`[0:1]={...}`) and
//! several dimensions are refused.

use crate::datetime_fields::DateOrder;
use crate::error::RowError;
use crate::text_style::TextStyle;
use crate::time_zone::TimeZone;
use crate::types::SqlType;
use crate::value::Value;

/// The text of an array's elements.
pub(crate) fn array_out(items: &[Value], style: &TextStyle) -> String {
    let mut out = String::from("{");
    for (n, item) in items.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        let Some(text) = item.to_text_styled(style) else {
            out.push_str("NULL");
            continue;
        };
        let quote = text.is_empty()
            || text.eq_ignore_ascii_case("null")
            || text
                .chars()
                .any(|c| matches!(c, '{' | '}' | ',' | '"' | '\\') || is_space(c));
        if !quote {
            out.push_str(&text);
            continue;
        }
        out.push('"');
        for c in text.chars() {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
    }
    out.push('}');
    out
}

/// PostgreSQL's white space in array literals.
pub(crate) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// An array of `element` values read from `text`.
pub(crate) fn array_in(
    element: SqlType,
    text: &str,
    zone: &TimeZone,
    order: DateOrder,
) -> Result<Value, RowError> {
    let malformed = |detail: &str| RowError::MalformedArray {
        text: text.to_string(),
        detail: detail.to_string(),
    };
    let unexpected = |c: char| malformed(&format!("Unexpected \"{c}\" character."));
    let body = text.trim_matches(is_space);
    let Some(body) = body.strip_prefix('{').and_then(|b| b.strip_suffix('}')) else {
        return Err(malformed(
            "Array value must start with \"{\" or dimension information.",
        ));
    };
    let mut items = Vec::new();
    let mut chars = body.chars().peekable();
    if body.trim_matches(is_space).is_empty() {
        return Ok(Value::Array(items));
    }
    loop {
        while chars.peek().is_some_and(|c| is_space(*c)) {
            chars.next();
        }
        let mut item = String::new();
        let mut quoted = false;
        if chars.peek() == Some(&'"') {
            quoted = true;
            chars.next();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some('\\') => item.push(
                        chars
                            .next()
                            .ok_or_else(|| malformed("Unexpected end of input."))?,
                    ),
                    Some(c) => item.push(c),
                    None => return Err(malformed("Unexpected end of input.")),
                }
            }
            while chars.peek().is_some_and(|c| is_space(*c)) {
                chars.next();
            }
        } else {
            while let Some(&c) = chars.peek() {
                match c {
                    ',' => break,
                    '{' | '}' | '"' => return Err(unexpected(c)),
                    '\\' => {
                        chars.next();
                        item.push(
                            chars
                                .next()
                                .ok_or_else(|| malformed("Unexpected end of input."))?,
                        );
                        continue;
                    }
                    c => item.push(c),
                }
                chars.next();
            }
            item.truncate(item.trim_end_matches(is_space).len());
            if item.is_empty() {
                return Err(unexpected(','));
            }
        }
        items.push(match (quoted, item.eq_ignore_ascii_case("null")) {
            (false, true) => Value::Null,
            _ => Value::from_text_in(element, &item, zone, order)?,
        });
        match chars.next() {
            None => break,
            Some(',') => {}
            Some(c) => return Err(unexpected(c)),
        }
    }
    Ok(Value::Array(items))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_print_and_read_as_postgresql_does() {
        let texts = Value::Array(vec![
            Value::Text("a".into()),
            Value::Text("b c".into()),
            Value::Text(String::new()),
            Value::Null,
            Value::Text("null".into()),
            Value::Text("x\"y\\z".into()),
        ]);
        let printed = texts.to_text().unwrap();
        assert_eq!(printed, r#"{a,"b c","",NULL,"null","x\"y\\z"}"#);
        assert_eq!(
            array_in(SqlType::Text, &printed, &TimeZone::UTC, DateOrder::Mdy).unwrap(),
            texts
        );
        assert_eq!(
            array_in(
                SqlType::Int4,
                " { 1 , 2,NULL } ",
                &TimeZone::UTC,
                DateOrder::Mdy
            )
            .unwrap(),
            Value::Array(vec![Value::Int4(1), Value::Int4(2), Value::Null])
        );
        assert_eq!(
            array_in(SqlType::Int8, "{}", &TimeZone::UTC, DateOrder::Mdy).unwrap(),
            Value::Array(vec![])
        );
        assert_eq!(Value::Array(vec![]).to_text().unwrap(), "{}");
        for bad in ["1,2", "{1,,2}", "{{1},{2}}", "{1", "[0:1]={1,2}", "{a}"] {
            assert!(
                array_in(SqlType::Int4, bad, &TimeZone::UTC, DateOrder::Mdy).is_err(),
                "{bad}"
            );
        }
    }
}
