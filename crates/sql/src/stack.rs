//! The one guard of a session's stack. Planning recurses once per query
//! level (a view read by a view, a subquery, a CTE), and so do running a
//! plan, explaining it and dropping it; a deep enough nesting would
//! overflow the thread's stack, which aborts the whole process (`folio
//! serve` with every session in it). PostgreSQL checks its depth against
//! `max_stack_depth` and fails the statement with 54001; so does folio.
//!
//! Two rules guard it, both owned here:
//!
//! - [`check_tokens`], before a statement is parsed: the longest chain
//!   of operators (`a OR b OR ...`, `1 + 1 + ...`, `x::t::t`), which the
//!   parser builds without recursing but every walker of the tree
//!   (cloning, binding, evaluating, dropping it) descends one frame per
//!   link, may have [`BYTES_PER_LINK`] for each link in half the stack.
//!   Everything else nests only as deep as sqlparser's recursion limit
//!   lets it (50 levels per statement text).
//! - [`check`], called once per level where a query is planned and run:
//!   it fails when less than half of the thread's stack is left. The
//!   other half is kept for what walks the finished plan (EXPLAIN,
//!   dropping it), whose frames per level are no larger than planning's.
//!
//! The thread's stack is what was left at the first check on the thread
//! (near its top: a session's first statement), so the rules hold alike
//! on the server's session threads (`folio-server` gives them
//! [`SESSION_STACK`]) and on an embedding program's own threads.

use crate::error::SqlError;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};
use std::cell::Cell;

/// The stack `folio serve` gives each session's thread (address space;
/// only what is used takes memory): its first half plans hundreds of
/// nested views, as PostgreSQL plans 199 within its default 2 MB
/// `max_stack_depth`, and walks operator chains of 8,192 links.
pub const SESSION_STACK: usize = 64 << 20;

thread_local! {
    /// The stack left at this thread's first check (0: none yet).
    static TOP: Cell<usize> = const { Cell::new(0) };
}

/// The stack a walker of a statement's tree may take per link of an
/// operator chain (measured in a release build: an 8,000-link `1 + 1 +
/// ...` overflowed a 16 MiB stack, 5,000 links did not, so 2-3.3 KiB a
/// link; unoptimised frames are larger).
pub const BYTES_PER_LINK: usize = if cfg!(debug_assertions) {
    32 << 10
} else {
    4 << 10
};

/// The stack left now and at this thread's first look (`None`: unknown
/// on this platform).
fn stack() -> Option<(usize, usize)> {
    let left = stacker::remaining_stack()?;
    let top = TOP.with(|t| {
        if t.get() == 0 {
            t.set(left);
        }
        t.get()
    });
    Some((left, top))
}

/// PostgreSQL's error for a statement nested too deeply.
fn too_deep() -> SqlError {
    SqlError::new("54001", "stack depth limit exceeded")
        .with_hint("The statement nests too deeply (views of views, subqueries, long operator chains): simplify it.")
}

/// 54001 when this thread has used half of its stack.
pub fn check() -> Result<(), SqlError> {
    match stack() {
        Some((left, top)) if left < top / 2 => Err(too_deep()),
        _ => Ok(()),
    }
}

/// 54001 when a statement's `tokens` hold an operator chain longer than
/// half the thread's stack allows ([`BYTES_PER_LINK`] a link).
pub fn check_tokens(tokens: &[TokenWithSpan]) -> Result<(), SqlError> {
    let Some((_, top)) = stack() else {
        return Ok(());
    };
    if tokens.len() * BYTES_PER_LINK <= top / 2 {
        return Ok(());
    }
    if longest_chain(tokens) * BYTES_PER_LINK > top / 2 {
        return Err(too_deep());
    }
    Ok(())
}

/// What a token adds to a chain: an operator kind (chains of one kind
/// are one path; an operand's tighter chain hangs off it).
#[derive(PartialEq, Eq, Clone, Copy)]
enum Link {
    Symbol(std::mem::Discriminant<Token>),
    Word(Keyword),
}

/// The operators of one bracket level since it opened or since its last
/// comma or clause, by kind.
#[derive(Default)]
struct Level(Vec<(Link, usize)>);

impl Level {
    fn add(&mut self, link: Link) {
        match self.0.iter_mut().find(|(l, _)| *l == link) {
            Some((_, n)) => *n += 1,
            None => self.0.push((link, 1)),
        }
    }

    /// The longest chain: the most links of one kind.
    fn chain(&self) -> usize {
        self.0.iter().map(|(_, n)| *n).max().unwrap_or(0)
    }
}

/// The most operator links on one path of the tree `tokens` parse to
/// (an estimate from above, without precedence): per bracket level, the
/// most operators of one kind since the level opened or since its last
/// comma or clause (siblings in a list are no deeper), summed over the
/// open levels.
fn longest_chain(tokens: &[TokenWithSpan]) -> usize {
    let mut levels = vec![Level::default()];
    let mut longest = 0;
    for t in tokens {
        let link = match &t.token {
            Token::LParen => {
                levels.push(Level::default());
                None
            }
            Token::RParen | Token::RBracket => {
                if levels.len() > 1 {
                    levels.pop();
                }
                None
            }
            Token::Comma | Token::SemiColon => {
                *levels.last_mut().expect("a level") = Level::default();
                None
            }
            Token::Word(w) if w.quote_style.is_none() => match w.keyword {
                Keyword::AND
                | Keyword::OR
                | Keyword::XOR
                | Keyword::IS
                | Keyword::IN
                | Keyword::NOT
                | Keyword::LIKE
                | Keyword::ILIKE
                | Keyword::SIMILAR
                | Keyword::BETWEEN
                | Keyword::COLLATE
                | Keyword::AT
                | Keyword::OPERATOR => Some(Link::Word(w.keyword)),
                Keyword::SELECT
                | Keyword::FROM
                | Keyword::WHERE
                | Keyword::HAVING
                | Keyword::BY
                | Keyword::ON
                | Keyword::SET
                | Keyword::VALUES
                | Keyword::RETURNING
                | Keyword::WHEN
                | Keyword::THEN
                | Keyword::ELSE
                | Keyword::END => {
                    *levels.last_mut().expect("a level") = Level::default();
                    None
                }
                _ => None,
            },
            Token::Word(_)
            | Token::Number(..)
            | Token::Char(_)
            | Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::DollarQuotedString(_)
            | Token::NationalStringLiteral(_)
            | Token::EscapedStringLiteral(_)
            | Token::HexStringLiteral(_)
            | Token::Placeholder(_)
            | Token::Period
            | Token::Whitespace(_)
            | Token::EOF => None,
            // A subscript wraps what it follows, then opens a level.
            token => Some(Link::Symbol(std::mem::discriminant(token))),
        };
        if let Some(link) = link {
            levels.last_mut().expect("a level").add(link);
            if t.token == Token::LBracket {
                levels.push(Level::default());
            }
            longest = longest.max(levels.iter().map(Level::chain).sum());
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(sql: &str) -> usize {
        let dialect = sqlparser::dialect::PostgreSqlDialect {};
        let tokens = sqlparser::tokenizer::Tokenizer::new(&dialect, sql)
            .tokenize_with_location()
            .unwrap();
        longest_chain(&tokens)
    }

    // Proves the chain counts links on one path: a list's items and a
    // CASE's branches are siblings, brackets add their chains up.
    #[test]
    fn chains_count_the_links_on_one_path() {
        assert_eq!(chain("select a or b or c from t where x = 1"), 2);
        assert_eq!(chain("select a = 1 or a = 2 or a = 3"), 3);
        assert_eq!(chain("select 1 + (2 * (3 - 4))"), 3);
        assert_eq!(chain("insert into t values (1, 2), (3 + 4, 5)"), 1);
        assert_eq!(
            chain("select case when a = 1 then 2 when a = 3 then 4 else 5 end"),
            1
        );
        assert_eq!(chain("select a[1][2]::int"), 2);
        let long = format!("select 1{}", " + 1".repeat(5000));
        assert_eq!(chain(&long), 5000);
        let list = format!("select 1{}", ", 1".repeat(5000));
        assert_eq!(chain(&list), 0);
    }
}
