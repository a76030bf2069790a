//! Transaction modes: `ISOLATION LEVEL ...`, `READ ONLY | READ WRITE`,
//! `[NOT] DEFERRABLE`, as `BEGIN`, `START TRANSACTION`, `SET TRANSACTION`
//! and `SET SESSION CHARACTERISTICS AS TRANSACTION` list them (README "The
//! session and its transaction block").
//!
//! sqlparser reads the first two kinds; `[NOT] DEFERRABLE` is taken out of
//! the statement's tokens here before sqlparser sees it
//! ([`take_deferrable`]) and travels beside the statement
//! (`Parsed::TransactionModes`). folio runs a DEFERRABLE transaction as
//! any other (PostgreSQL's wait for a safe snapshot only matters to a
//! SERIALIZABLE READ ONLY one, which folio's serializable snapshot
//! isolation already never aborts); the mode is kept so `SHOW
//! transaction_deferrable` and a chained block report it.

use crate::error::SqlError;
use folio_db::Isolation;
use sqlparser::ast::{TransactionAccessMode, TransactionIsolationLevel, TransactionMode};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The modes one statement names (`None`: not named).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modes {
    pub isolation: Option<Isolation>,
    /// `Some(true)`: READ ONLY.
    pub read_only: Option<bool>,
    /// `Some(true)`: DEFERRABLE.
    pub deferrable: Option<bool>,
}

/// An open block's modes, all three: what `COMMIT AND CHAIN` gives the
/// next block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Characteristics {
    pub isolation: Isolation,
    pub read_only: bool,
    pub deferrable: bool,
}

/// The modes of sqlparser's list `modes` and the `deferrable` mode taken
/// out before it parsed (READ UNCOMMITTED is READ COMMITTED, as in
/// PostgreSQL).
pub fn read(modes: &[TransactionMode], deferrable: Option<bool>) -> Result<Modes, SqlError> {
    let mut read = Modes {
        deferrable,
        ..Modes::default()
    };
    for mode in modes {
        match mode {
            TransactionMode::AccessMode(access) => {
                read.read_only = Some(*access == TransactionAccessMode::ReadOnly);
            }
            TransactionMode::IsolationLevel(level) => {
                read.isolation = Some(match level {
                    TransactionIsolationLevel::ReadUncommitted
                    | TransactionIsolationLevel::ReadCommitted => Isolation::ReadCommitted,
                    TransactionIsolationLevel::RepeatableRead => Isolation::RepeatableRead,
                    TransactionIsolationLevel::Serializable => Isolation::Serializable,
                    other => {
                        return Err(SqlError::unsupported(format!("isolation level {other}")));
                    }
                })
            }
        }
    }
    Ok(read)
}

/// Takes `[NOT] DEFERRABLE` (the last one named wins, as PostgreSQL's)
/// out of the mode list of transaction statement `tokens` (whitespace
/// already gone), with the comma that joins it to the list, and says
/// which it was; `None` for other statements or lists without it.
pub fn take_deferrable(tokens: &mut Vec<TokenWithSpan>) -> Option<bool> {
    let start = modes_start(tokens)?;
    let mut found = None;
    let mut at = start;
    while at < tokens.len() {
        let not = is_word(&tokens[at].token, "not");
        let word = if not { at + 1 } else { at };
        if !tokens
            .get(word)
            .is_some_and(|t| is_word(&t.token, "deferrable"))
        {
            at += 1;
            continue;
        }
        found = Some(!not);
        // The comma before it, else the one after it, goes with it.
        let (from, to) = if at > start && tokens[at - 1].token == Token::Comma {
            (at - 1, word + 1)
        } else if tokens.get(word + 1).map(|t| &t.token) == Some(&Token::Comma) {
            (at, word + 2)
        } else {
            (at, word + 1)
        };
        tokens.drain(from..to);
        at = from;
    }
    found
}

/// Where the mode list of a transaction statement begins: after `BEGIN
/// [WORK | TRANSACTION]`, `START TRANSACTION`, `SET TRANSACTION` or `SET
/// SESSION CHARACTERISTICS AS TRANSACTION`.
fn modes_start(tokens: &[TokenWithSpan]) -> Option<usize> {
    let word = |at: usize| tokens.get(at).and_then(|t| crate::parse::keyword(&t.token));
    match word(0)? {
        Keyword::BEGIN => Some(match word(1) {
            Some(Keyword::WORK | Keyword::TRANSACTION) => 2,
            _ => 1,
        }),
        Keyword::START if word(1) == Some(Keyword::TRANSACTION) => Some(2),
        Keyword::SET if word(1) == Some(Keyword::TRANSACTION) => Some(2),
        Keyword::SET
            if word(1) == Some(Keyword::SESSION)
                && word(2) == Some(Keyword::CHARACTERISTICS)
                && word(3) == Some(Keyword::AS)
                && word(4) == Some(Keyword::TRANSACTION) =>
        {
            Some(5)
        }
        _ => None,
    }
}

fn is_word(token: &Token, word: &str) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `sql` without whitespace, as `parse.rs` hands them.
    fn tokens(sql: &str) -> Vec<TokenWithSpan> {
        crate::position::tokens(sql)
            .into_iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect()
    }

    fn text(tokens: &[TokenWithSpan]) -> String {
        let words: Vec<String> = tokens.iter().map(|t| t.token.to_string()).collect();
        words.join(" ")
    }

    /// DEFERRABLE and NOT DEFERRABLE leave the list sqlparser reads, with
    /// their comma, wherever they stand; other statements keep theirs.
    #[test]
    fn deferrable_is_taken_out_of_the_list() {
        let mut t =
            tokens("START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE, DEFERRABLE");
        assert_eq!(take_deferrable(&mut t), Some(true));
        assert_eq!(
            text(&t),
            "START TRANSACTION ISOLATION LEVEL SERIALIZABLE , READ WRITE"
        );
        let mut t = tokens("begin not deferrable, read only");
        assert_eq!(take_deferrable(&mut t), Some(false));
        assert_eq!(text(&t), "begin read only");
        let mut t = tokens("SET SESSION CHARACTERISTICS AS TRANSACTION DEFERRABLE");
        assert_eq!(take_deferrable(&mut t), Some(true));
        assert_eq!(text(&t), "SET SESSION CHARACTERISTICS AS TRANSACTION");
        let mut t = tokens("SET TRANSACTION READ ONLY");
        assert_eq!(take_deferrable(&mut t), None);
        let mut t = tokens("ALTER TABLE t ALTER CONSTRAINT c DEFERRABLE");
        assert_eq!(take_deferrable(&mut t), None);
    }
}
