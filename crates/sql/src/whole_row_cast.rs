//! `t.*::text`: a FROM item's (or PL/pgSQL record's) `.*` cast is its
//! whole row cast, in PostgreSQL, in a select list as anywhere else
//! (`raise notice '%', new.*::text`). sqlparser reads `t.*` in a select
//! list as the columns' wildcard and ends the item there, so `::` is a
//! syntax error. Before parsing, `name . * ::` becomes `name ::`, the
//! whole-row reference folio binds (`row_values::whole_row`).

use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Drops `. *` between a lone name and a `::` cast.
pub fn rewrite(tokens: &mut Vec<TokenWithSpan>) {
    let mut at = 0;
    while at + 3 < tokens.len() {
        if matches!(tokens[at].token, Token::Word(_))
            && (at == 0 || tokens[at - 1].token != Token::Period)
            && tokens[at + 1].token == Token::Period
            && tokens[at + 2].token == Token::Mul
            && tokens[at + 3].token == Token::DoubleColon
        {
            tokens.drain(at + 1..at + 3);
        }
        at += 1;
    }
}
