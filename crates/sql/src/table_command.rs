//! `TABLE name`, PostgreSQL's short form of `SELECT * FROM name`, where a
//! query may begin: at a statement's start, after `(`, and after `UNION`,
//! `INTERSECT` or `EXCEPT` [`ALL` | `DISTINCT`]. It is rewritten in the
//! tokens (sqlparser reads it inside a query but not as a statement), so
//! what follows is an ordinary SELECT, quoted names and all.

use crate::parse::keyword;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// `tokens` (one statement's, without whitespace) with each `TABLE` that
/// begins a query replaced by `SELECT * FROM`.
pub fn expand(tokens: &mut Vec<TokenWithSpan>) {
    let mut at = 0;
    while at < tokens.len() {
        if keyword(&tokens[at].token) == Some(Keyword::TABLE) && begins_query(tokens, at) {
            let span = tokens[at].span;
            let select = [
                Token::make_keyword("SELECT"),
                Token::Mul,
                Token::make_keyword("FROM"),
            ];
            tokens.splice(at..=at, select.map(|token| TokenWithSpan { token, span }));
            at += 3;
        } else {
            at += 1;
        }
    }
}

/// Whether a query may begin at `at`.
fn begins_query(tokens: &[TokenWithSpan], at: usize) -> bool {
    let before = |n: usize| at.checked_sub(n).map(|i| &tokens[i].token);
    let set_operation = |t: Option<&Token>| {
        matches!(
            t.and_then(keyword),
            Some(Keyword::UNION | Keyword::INTERSECT | Keyword::EXCEPT)
        )
    };
    match before(1) {
        None | Some(Token::LParen) => true,
        Some(t) if set_operation(Some(t)) => true,
        Some(t) => {
            matches!(keyword(t), Some(Keyword::ALL | Keyword::DISTINCT)) && set_operation(before(2))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::tokenizer::Tokenizer;

    fn expanded(sql: &str) -> String {
        let mut tokens: Vec<_> = Tokenizer::new(&PostgreSqlDialect {}, sql)
            .tokenize_with_location()
            .unwrap()
            .into_iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect();
        expand(&mut tokens);
        let words: Vec<String> = tokens.iter().map(|t| t.token.to_string()).collect();
        words.join(" ")
    }

    #[test]
    fn only_where_a_query_begins() {
        assert_eq!(expanded("table t"), "SELECT * FROM t");
        assert_eq!(
            expanded("select 1 union all table \"T\""),
            "select 1 union all SELECT * FROM \"T\""
        );
        assert_eq!(
            expanded("copy (table s.t) to stdout"),
            "copy ( SELECT * FROM s . t ) to stdout"
        );
        assert_eq!(
            expanded("create table t (a int)"),
            "create table t ( a int )"
        );
        assert_eq!(expanded("lock table t"), "lock table t");
        assert_eq!(
            expanded("select \"table\" from x"),
            "select \"table\" from x"
        );
    }
}
