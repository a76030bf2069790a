//! `parse_ident(text, strict boolean DEFAULT true)`: a qualified
//! identifier split into its parts, as PostgreSQL 15 reads one.
//!
//! White space (space, tab, newline, carriage return, form feed) may
//! surround each part and dot. A quoted part keeps its text (`""` is a
//! quote) and must not be empty; an unquoted one starts with a letter,
//! `_` or a non-ASCII character, goes on with those, digits and `$`, and
//! is lowercased (ASCII only). Neither is truncated to a name's length.
//! Anything after the last part is 22023 unless `strict` is false, when
//! it is ignored. Every error is 22023 `string is not a valid
//! identifier: "..."` naming the whole input, with PostgreSQL's detail
//! for the three it details.

use crate::error::SqlError;
use sqlparser::ast::{Expr, FunctionArg};

/// The parameters' names, for a call with named arguments.
const PARAMETERS: [&str; 2] = ["str", "strict"];

/// The argument expressions of a call of `parse_ident` in parameter
/// order (`strict => false` put in place); `None` for other functions.
pub fn arguments(name: &str, args: &[FunctionArg]) -> Option<Result<Vec<Expr>, SqlError>> {
    if name != "parse_ident" || !crate::named_arguments::any_named(args) {
        return None;
    }
    let slots = crate::named_arguments::slots(&PARAMETERS, args);
    let no_such = || {
        let list: Vec<String> = args.iter().map(ToString::to_string).collect();
        crate::functions::no_match(format!(
            "function parse_ident({}) does not exist",
            list.join(", ")
        ))
    };
    Some(match slots {
        Some(slots) => match slots.as_slice() {
            [Some(s), Some(strict)] => Ok(vec![(*s).clone(), (*strict).clone()]),
            [Some(s), None] => Ok(vec![(*s).clone()]),
            _ => Err(no_such()),
        },
        None => Err(no_such()),
    })
}

/// The parts of `input`.
pub fn parse(input: &str, strict: bool) -> Result<Vec<String>, SqlError> {
    let invalid = |detail: Option<&str>| {
        let error = SqlError::new(
            "22023",
            format!("string is not a valid identifier: \"{input}\""),
        );
        match detail {
            Some(d) => error.with_detail(d),
            None => error,
        }
    };
    let chars: Vec<char> = input.chars().collect();
    let space = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c');
    let start = |c: char| c.is_ascii_alphabetic() || c == '_' || !c.is_ascii();
    let cont = |c: char| start(c) || c.is_ascii_digit() || c == '$';
    let mut at = 0;
    let skip_space = |at: &mut usize| {
        while chars.get(*at).is_some_and(|&c| space(c)) {
            *at += 1;
        }
    };
    skip_space(&mut at);
    let mut parts = Vec::new();
    let mut after_dot = false;
    loop {
        match chars.get(at) {
            Some('"') => {
                let mut part = String::new();
                at += 1;
                loop {
                    match chars.get(at) {
                        None => return Err(invalid(Some("String has unclosed double quotes."))),
                        Some('"') if chars.get(at + 1) == Some(&'"') => {
                            part.push('"');
                            at += 2;
                        }
                        Some('"') => {
                            at += 1;
                            break;
                        }
                        Some(&c) => {
                            part.push(c);
                            at += 1;
                        }
                    }
                }
                if part.is_empty() {
                    return Err(invalid(Some("Quoted identifier must not be empty.")));
                }
                parts.push(part);
            }
            Some(&c) if start(c) => {
                let begin = at;
                while chars.get(at).is_some_and(|&c| cont(c)) {
                    at += 1;
                }
                parts.push(
                    chars[begin..at]
                        .iter()
                        .map(char::to_ascii_lowercase)
                        .collect(),
                );
            }
            Some('.') => return Err(invalid(Some("No valid identifier before \".\"."))),
            _ if after_dot => return Err(invalid(Some("No valid identifier after \".\"."))),
            _ => return Err(invalid(None)),
        }
        skip_space(&mut at);
        match chars.get(at) {
            Some('.') => {
                after_dot = true;
                at += 1;
                skip_space(&mut at);
            }
            None => break,
            Some(_) if strict => return Err(invalid(None)),
            Some(_) => break,
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts and errors as PostgreSQL 15's `parse_ident` gives them.
    #[test]
    fn splits_as_postgresql() {
        assert_eq!(
            parse("Schemax.Tabley", true).unwrap(),
            ["schemax", "tabley"]
        );
        assert_eq!(
            parse("\"SchemaX\".\"TableY\"", true).unwrap(),
            ["SchemaX", "TableY"]
        );
        assert_eq!(parse(" a . \"b\"\"c\" ", true).unwrap(), ["a", "b\"c"]);
        assert_eq!(parse("foo.boo[]", false).unwrap(), ["foo", "boo"]);
        for bad in [
            "foo.boo[]",
            " ",
            " .aaa",
            " aaa . ",
            "aaa.a%b",
            "1020",
            "10.20",
            ".",
            "\"\"",
        ] {
            assert_eq!(parse(bad, true).unwrap_err().code, "22023", "{bad}");
        }
    }
}
