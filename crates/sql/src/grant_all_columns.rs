//! `GRANT | REVOKE [GRANT OPTION FOR] ALL [PRIVILEGES] (columns) ON ...`,
//! which sqlparser does not read: PostgreSQL's every privilege a column
//! can have (`ACL_ALL_RIGHTS_COLUMN`) on the columns listed. [`expand`]
//! rewrites the tokens before the parse as `SELECT (columns), INSERT
//! (columns), UPDATE (columns), REFERENCES (columns)`, which the GRANT
//! and REVOKE of column privileges take (`role_statements.rs`).

use crate::parse::{closing, word_at};
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The privileges `ALL (columns)` stands for.
const COLUMN_PRIVILEGES: [&str; 4] = ["SELECT", "INSERT", "UPDATE", "REFERENCES"];

/// Rewrites a GRANT's or REVOKE's `ALL [PRIVILEGES] (columns)` (white
/// space already gone); other statements are left as they are.
pub fn expand(tokens: &mut Vec<TokenWithSpan>) {
    if !word_at(tokens, 0, "grant") && !word_at(tokens, 0, "revoke") {
        return;
    }
    let mut at = 1;
    if word_at(tokens, 0, "revoke")
        && word_at(tokens, 1, "grant")
        && word_at(tokens, 2, "option")
        && word_at(tokens, 3, "for")
    {
        at = 4;
    }
    if !word_at(tokens, at, "all") {
        return;
    }
    let open = match word_at(tokens, at + 1, "privileges") {
        true => at + 2,
        false => at + 1,
    };
    if !matches!(tokens.get(open).map(|t| &t.token), Some(Token::LParen)) {
        return;
    }
    let Some(close) = closing(tokens, open) else {
        return;
    };
    let list = tokens[open..=close].to_vec();
    let mut written = Vec::new();
    for (n, privilege) in COLUMN_PRIVILEGES.iter().enumerate() {
        if n > 0 {
            written.push(TokenWithSpan::wrap(Token::Comma));
        }
        written.push(TokenWithSpan::wrap(Token::make_keyword(privilege)));
        written.extend(list.iter().cloned());
    }
    tokens.splice(at..=close, written);
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves `ALL [PRIVILEGES] (columns)` of a GRANT or REVOKE becomes
    // the four column privileges on those columns, and nothing else is
    // touched.
    #[test]
    fn all_columns_become_the_four_privileges() {
        let rewritten = |sql: &str| {
            let mut tokens = crate::parse::plain_tokens(sql).unwrap();
            expand(&mut tokens);
            (tokens.iter())
                .map(|t| t.token.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            rewritten("GRANT ALL (a, b) ON t TO r"),
            "GRANT SELECT ( a , b ) , INSERT ( a , b ) , UPDATE ( a , b ) , REFERENCES ( a , b ) ON t TO r"
        );
        assert_eq!(
            rewritten("revoke all privileges (a) on t from r"),
            "revoke SELECT ( a ) , INSERT ( a ) , UPDATE ( a ) , REFERENCES ( a ) on t from r"
        );
        assert_eq!(rewritten("GRANT ALL ON t TO r"), "GRANT ALL ON t TO r");
        assert_eq!(
            rewritten("SELECT ALL (a) FROM t"),
            "SELECT ALL ( a ) FROM t"
        );
    }
}
