//! A column definition list without an alias (`FROM f(x) AS (a int, b
//! text)`), which PostgreSQL takes and sqlparser does not: the tokens
//! are rewritten as `AS "f"(a int, b text)`, the function's name being
//! the alias PostgreSQL gives such a call. The list itself is read where
//! an aliased one is (`record_functions.rs`, `FunctionScan::define`).
//!
//! `AS (` follows a call's `)` elsewhere too (`WITH x(a) AS (SELECT
//! ...)`, `CREATE VIEW v(a) AS (VALUES ...)`): a column definition list
//! is told from those by its start, a name and then a type's first word
//! (a query starts with a keyword such as SELECT or with `(`).

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Word};

/// The words that start a query in parentheses after `AS (`.
const QUERY_STARTS: &[Keyword] = &[
    Keyword::SELECT,
    Keyword::VALUES,
    Keyword::WITH,
    Keyword::TABLE,
    Keyword::INSERT,
    Keyword::UPDATE,
    Keyword::DELETE,
    Keyword::MERGE,
];

/// Rewrites each `name(...) AS (column type, ...)` of a statement's
/// tokens (without whitespace) as `name(...) AS "name"(column type,
/// ...)`.
pub fn name_unaliased_lists(tokens: &mut Vec<TokenWithSpan>) {
    let is_as = |t: &Token| matches!(t, Token::Word(w) if w.keyword == Keyword::AS && w.quote_style.is_none());
    let mut i = 1;
    while i + 3 < tokens.len() {
        if tokens[i - 1].token == Token::RParen
            && is_as(&tokens[i].token)
            && tokens[i + 1].token == Token::LParen
            && starts_list(&tokens[i + 2].token, &tokens[i + 3].token)
            && let Some(name) = called_name(tokens, i - 1)
        {
            let alias = Token::Word(Word {
                value: name,
                quote_style: Some('"'),
                keyword: Keyword::NoKeyword,
            });
            tokens.insert(i + 1, TokenWithSpan::wrap(alias));
        }
        i += 1;
    }
}

/// Whether `first` and `second` start a column definition list: a name
/// (not a word that starts a query) and a type's first word.
fn starts_list(first: &Token, second: &Token) -> bool {
    match (first, second) {
        (Token::Word(name), Token::Word(_)) => {
            name.quote_style.is_some() || !QUERY_STARTS.contains(&name.keyword)
        }
        _ => false,
    }
}

/// The name of the function whose call's argument list ends at token
/// `close` (a `)`), if a word precedes its `(`.
fn called_name(tokens: &[TokenWithSpan], close: usize) -> Option<String> {
    let mut depth = 0usize;
    for at in (0..=close).rev() {
        match tokens[at].token {
            Token::RParen => depth += 1,
            Token::LParen => {
                depth -= 1;
                if depth == 0 {
                    return match &tokens[at.checked_sub(1)?].token {
                        Token::Word(w) => Some(crate::names::word(w)),
                        _ => None,
                    };
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn rewritten(sql: &str) -> String {
        let mut tokens: Vec<TokenWithSpan> = Tokenizer::new(&PostgreSqlDialect {}, sql)
            .tokenize_with_location()
            .unwrap()
            .into_iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect();
        name_unaliased_lists(&mut tokens);
        let words: Vec<String> = tokens.iter().map(|t| t.token.to_string()).collect();
        words.join(" ")
    }

    #[test]
    fn an_unaliased_list_is_named_by_its_function_and_a_query_is_not() {
        // The list after a call: aliased as the function.
        assert_eq!(
            rewritten("select * from F(1) as (a int, b text)"),
            "select * from F ( 1 ) as \"f\" ( a int , b text )"
        );
        // A CTE's or a view's query after `AS (`: left alone.
        assert_eq!(
            rewritten("with x(a) as (select 1) select * from x"),
            "with x ( a ) as ( select 1 ) select * from x"
        );
        assert_eq!(
            rewritten("create view v(a) as (values (1))"),
            "create view v ( a ) as ( values ( 1 ) )"
        );
    }
}
