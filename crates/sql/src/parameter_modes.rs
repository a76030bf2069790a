//! A routine's parameter modes as PostgreSQL writes them. sqlparser 0.59
//! reads a mode only before the parameter's name (`OUT a int`) and has
//! no VARIADIC; PostgreSQL also takes the mode after the name (`a OUT
//! int`). [`mark`] puts a mode written after a name before it, and writes
//! `VARIADIC [name] type` as `[name] type` with the name marked
//! ([`VARIADIC_MARK`], not a name a client can write unquoted), which
//! `sql_functions::definition` reads back as mode `v` ([`variadic`]).

use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// What starts the name of a parameter written VARIADIC.
const VARIADIC_MARK: &str = "$variadic:";

/// The name of a parameter [`mark`] wrote, and whether it was VARIADIC.
pub fn variadic(name: &str) -> (&str, bool) {
    match name.strip_prefix(VARIADIC_MARK) {
        Some(rest) => (rest, true),
        None => (name, false),
    }
}

fn word(t: Option<&TokenWithSpan>) -> Option<&Word> {
    match t.map(|t| &t.token) {
        Some(Token::Word(w)) => Some(w),
        _ => None,
    }
}

fn is_word(t: Option<&TokenWithSpan>, text: &str) -> bool {
    word(t).is_some_and(|w| w.quote_style.is_none() && w.value.eq_ignore_ascii_case(text))
}

fn is_mode(t: Option<&TokenWithSpan>) -> bool {
    ["in", "out", "inout", "variadic"]
        .iter()
        .any(|m| is_word(t, m))
}

/// Rewrites the parameter list of `CREATE [OR REPLACE] FUNCTION |
/// PROCEDURE` and of `DROP FUNCTION | PROCEDURE` (`tokens`: the statement's, without whitespace) as above;
/// any other statement is left alone.
pub fn mark(tokens: &mut Vec<TokenWithSpan>) {
    let at = match is_word(tokens.get(1), "or") {
        true => 3,
        false => 1,
    };
    // (DROP's list names the types, modes as CREATE's.)
    let at = match is_word(tokens.first(), "drop") {
        true => 1,
        false => at,
    };
    if !(is_word(tokens.first(), "create") || is_word(tokens.first(), "drop"))
        || !(is_word(tokens.get(at), "function") || is_word(tokens.get(at), "procedure"))
    {
        return;
    }
    let Some(open) = tokens.iter().position(|t| t.token == Token::LParen) else {
        return;
    };
    let mut start = open + 1;
    while start < tokens.len() {
        // A mode after the name goes before it.
        if word(tokens.get(start)).is_some()
            && !is_mode(tokens.get(start))
            && is_mode(tokens.get(start + 1))
        {
            tokens.swap(start, start + 1);
        }
        if is_word(tokens.get(start), "variadic") {
            let named = word(tokens.get(start + 1)).is_some()
                && word(tokens.get(start + 2))
                    .is_some_and(|w| !["default"].contains(&w.value.to_ascii_lowercase().as_str()));
            let marked = |name: &str| {
                Token::Word(Word {
                    value: format!("{VARIADIC_MARK}{name}"),
                    // Unquoted: sqlparser keeps a parameter name's quotes.
                    quote_style: None,
                    keyword: sqlparser::keywords::Keyword::NoKeyword,
                })
            };
            tokens.remove(start);
            match named {
                true => {
                    let name = word(tokens.get(start)).map(crate::names::word);
                    tokens[start].token = marked(&name.unwrap_or_default());
                }
                false => tokens.insert(start, TokenWithSpan::wrap(marked(""))),
            }
        }
        // To the next parameter, or the list's end.
        let mut depth = 0usize;
        let mut at = start;
        loop {
            match tokens.get(at).map(|t| &t.token) {
                None => return,
                Some(Token::LParen | Token::LBracket) => depth += 1,
                Some(Token::RBracket) => depth = depth.saturating_sub(1),
                Some(Token::RParen) if depth == 0 => return,
                Some(Token::RParen) => depth -= 1,
                Some(Token::Comma) if depth == 0 => break,
                // `type DEFAULT e` as `type = e`: sqlparser would read
                // an unnamed parameter's `int DEFAULT` as a name and a
                // type.
                Some(Token::Word(w))
                    if depth == 0
                        && w.quote_style.is_none()
                        && w.value.eq_ignore_ascii_case("default") =>
                {
                    tokens[at].token = Token::Eq;
                }
                _ => {}
            }
            at += 1;
        }
        start = at + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(sql: &str) -> String {
        let mut tokens: Vec<TokenWithSpan> = (crate::position::tokens(sql).into_iter())
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect();
        mark(&mut tokens);
        let words: Vec<String> = tokens.iter().map(|t| t.token.to_string()).collect();
        words.join(" ")
    }

    // Proves a mode after a name moves before it, VARIADIC becomes a
    // marked name (an unnamed parameter's too), and other statements and
    // types with brackets or parentheses are left as written.
    #[test]
    fn modes_are_written_as_sqlparser_reads_them() {
        assert_eq!(
            marked("create procedure p(a OUT int, VARIADIC b int[])"),
            "create procedure p ( OUT a int , $variadic:b int [ ] )"
        );
        assert_eq!(
            marked("create function f(variadic int[], c numeric(5, 2))"),
            "create function f ( $variadic: int [ ] , c numeric ( 5 , 2 ) )"
        );
        assert_eq!(
            marked("create or replace procedure p(x inout int default 1)"),
            "create or replace procedure p ( inout x int = 1 )"
        );
        assert_eq!(
            marked("drop function f(a variadic int[])"),
            "drop function f ( $variadic:a int [ ] )"
        );
        assert_eq!(
            marked("select f(a, variadic b)"),
            "select f ( a , variadic b )"
        );
        assert_eq!(variadic("$variadic:b"), ("b", true));
        assert_eq!(variadic("b"), ("b", false));
    }
}
