//! `SELECT ... INTO [TEMP | TEMPORARY | UNLOGGED] [TABLE] name FROM ...`,
//! PostgreSQL's older spelling of `CREATE TABLE name AS SELECT ...`
//! (its grammar turns the one into the other). It is rewritten in the
//! tokens, so the statement runs as that CREATE TABLE AS, with every rule
//! of it (the command tag `SELECT n`, the columns' names and types).
//!
//! The INTO clause is the first `INTO` outside parentheses of a statement
//! that begins a query (`SELECT`, `WITH` or `(`): one inside a WITH
//! list's query or a subquery stands in parentheses. PL/pgSQL takes its
//! own `INTO target` out of a statement before it is parsed, so what
//! arrives here is always the table form.

use crate::parse::keyword;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// `tokens` (one statement's, without whitespace) with a query's INTO
/// clause made the CREATE TABLE AS it means.
pub fn rewrite(tokens: &mut Vec<TokenWithSpan>) {
    let begins_query = match tokens.first().map(|t| &t.token) {
        Some(Token::LParen) => true,
        Some(t) => matches!(keyword(t), Some(Keyword::SELECT | Keyword::WITH)),
        None => false,
    };
    if !begins_query {
        return;
    }
    let Some(into) = top_level_into(tokens) else {
        return;
    };
    let word = |at: usize| tokens.get(at).and_then(|t| keyword(&t.token));
    let mut at = into + 1;
    let persistence = match word(at) {
        Some(Keyword::TEMP | Keyword::TEMPORARY | Keyword::UNLOGGED) => {
            at += 1;
            Some(tokens[at - 1].clone())
        }
        _ => None,
    };
    if word(at) == Some(Keyword::TABLE) {
        at += 1;
    }
    // The name: words joined by periods.
    let start = at;
    while matches!(tokens.get(at).map(|t| &t.token), Some(Token::Word(_))) {
        at += 1;
        if tokens.get(at).map(|t| &t.token) != Some(&Token::Period) {
            break;
        }
        at += 1;
    }
    if at == start || tokens[at - 1].token == Token::Period {
        // Not a name: the parser's error says where.
        return;
    }
    let name: Vec<TokenWithSpan> = tokens[start..at].to_vec();
    let span = tokens[into].span;
    let spanned = |token: Token| TokenWithSpan { token, span };
    tokens.drain(into..at);
    let mut head = vec![spanned(Token::make_keyword("CREATE"))];
    head.extend(persistence);
    head.push(spanned(Token::make_keyword("TABLE")));
    head.extend(name);
    head.push(spanned(Token::make_keyword("AS")));
    tokens.splice(0..0, head);
}

/// The first `INTO` keyword outside parentheses.
fn top_level_into(tokens: &[TokenWithSpan]) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate() {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            // (`WITH ... INSERT INTO` and `MERGE INTO` are no query's.)
            _ if depth == 0 && keyword(&t.token) == Some(Keyword::INTO) => {
                let before = i.checked_sub(1).and_then(|b| keyword(&tokens[b].token));
                return match before {
                    Some(Keyword::INSERT | Keyword::MERGE) => None,
                    _ => Some(i),
                };
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(sql: &str) -> String {
        let mut tokens = crate::parse::plain_tokens(sql).unwrap();
        rewrite(&mut tokens);
        let words: Vec<String> = tokens.iter().map(|t| t.token.to_string()).collect();
        words.join(" ")
    }

    #[test]
    fn into_becomes_create_table_as() {
        assert_eq!(
            rewritten("select * into t2 from t"),
            "CREATE TABLE t2 AS select * from t"
        );
        assert_eq!(
            rewritten("SELECT a INTO TEMP TABLE s.x FROM t UNION SELECT 1"),
            "CREATE TEMP TABLE s . x AS SELECT a FROM t UNION SELECT 1"
        );
        assert_eq!(
            rewritten("with w as (select 1 into z) select * into y from w"),
            "CREATE TABLE y AS with w as ( select 1 into z ) select * from w"
        );
    }

    #[test]
    fn other_statements_stay() {
        for sql in [
            "insert into t values (1)",
            "select (select 1)",
            "select * from t",
            "with w as (select 1) insert into t select * from w",
        ] {
            let mut tokens = crate::parse::plain_tokens(sql).unwrap();
            let before = tokens.clone();
            rewrite(&mut tokens);
            assert_eq!(tokens, before, "{sql}");
        }
    }
}
