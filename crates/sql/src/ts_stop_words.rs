//! Stop words in a query: a query is first built with a placeholder
//! where a configuration dropped a word (an operand with no lexeme, or a
//! stop word between two lexemes of one operand), then the placeholders
//! are taken out (PostgreSQL's `clean_stopword_intree`).
//!
//! Taking one out of a phrase keeps the distance it stood for: with `a`
//! a stop word, `(b <-> a) <-> c` becomes `b <2> c`. Each subtree
//! reports how much to add to the phrase distance on its left and on its
//! right (`ladd`, `radd`); a subtree that vanishes reports the same to
//! both, and its parent counts it once. Only adjacent phrase operators
//! absorb a distance: `x <-> ((a <-> y) | z)` becomes `x <-> (y | z)`, as
//! PostgreSQL's.

use folio_row::{MAX_DISTANCE, QueryNode};

/// A query under construction: a [`QueryNode`] that may hold stop-word
/// placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Draft {
    Stop,
    Lexeme {
        word: String,
        weights: u8,
        prefix: bool,
    },
    Not(Box<Draft>),
    And(Box<Draft>, Box<Draft>),
    Or(Box<Draft>, Box<Draft>),
    Phrase(Box<Draft>, Box<Draft>, u16),
}

/// The query without its placeholders; `None` when nothing is left.
pub(crate) fn clean(draft: Draft) -> Option<QueryNode> {
    clean_in(draft).0
}

/// A distance grown by stop words, within a phrase's limit.
fn grown(distance: u16, add: u32) -> u16 {
    (u32::from(distance) + add).min(u32::from(MAX_DISTANCE)) as u16
}

/// The cleaned subtree with its `(ladd, radd)`.
fn clean_in(draft: Draft) -> (Option<QueryNode>, u32, u32) {
    let (left, right, distance, kind) = match draft {
        Draft::Stop => return (None, 0, 0),
        Draft::Lexeme {
            word,
            weights,
            prefix,
        } => {
            return (
                Some(QueryNode::Lexeme {
                    word,
                    weights,
                    prefix,
                }),
                0,
                0,
            );
        }
        Draft::Not(x) => {
            let (x, l, r) = clean_in(*x);
            return (x.map(|x| QueryNode::Not(Box::new(x))), l, r);
        }
        Draft::And(a, b) => (a, b, None, Kind::And),
        Draft::Or(a, b) => (a, b, None, Kind::Or),
        Draft::Phrase(a, b, d) => (a, b, Some(d), Kind::Phrase),
    };
    let (left, lladd, lradd) = clean_in(*left);
    let (right, rladd, rradd) = clean_in(*right);
    let own = distance.map_or(0, u32::from);
    match (left, right) {
        (None, None) => {
            let add = if distance.is_some() {
                lladd + own + rladd
            } else {
                lladd.max(rladd)
            };
            (None, add, add)
        }
        (None, Some(r)) => match distance {
            Some(_) => (Some(r), lladd + own + rladd, rradd),
            None => (Some(r), rladd, rradd),
        },
        (Some(l), None) => match distance {
            Some(_) => (Some(l), lladd, lradd + own + rradd),
            None => (Some(l), lladd, lradd),
        },
        (Some(l), Some(r)) => {
            let (l, r) = (Box::new(l), Box::new(r));
            match (kind, distance) {
                (Kind::Phrase, Some(d)) => (
                    Some(QueryNode::Phrase(l, r, grown(d, lradd + rladd))),
                    lladd,
                    rradd,
                ),
                (Kind::Or, _) => (Some(QueryNode::Or(l, r)), 0, 0),
                _ => (Some(QueryNode::And(l, r)), 0, 0),
            }
        }
    }
}

/// A binary operator's kind.
#[derive(Clone, Copy)]
enum Kind {
    And,
    Or,
    Phrase,
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_row::TsQuery;

    fn lex(w: &str) -> Draft {
        Draft::Lexeme {
            word: w.into(),
            weights: 0,
            prefix: false,
        }
    }

    fn phrase(a: Draft, b: Draft) -> Draft {
        Draft::Phrase(Box::new(a), Box::new(b), 1)
    }

    fn text(d: Draft) -> String {
        TsQuery { root: clean(d) }.text()
    }

    // Proves the cases PostgreSQL's `clean_stopword_intree` documents.
    #[test]
    fn placeholders_leave_their_distance() {
        let s = || Draft::Stop;
        assert_eq!(text(phrase(phrase(lex("b"), s()), lex("c"))), "'b' <2> 'c'");
        assert_eq!(text(phrase(lex("b"), phrase(s(), lex("c")))), "'b' <2> 'c'");
        assert_eq!(
            text(phrase(phrase(lex("b"), phrase(s(), s())), lex("c"))),
            "'b' <3> 'c'"
        );
        // w <-> (((a <-> x) <2> (y <3> a)) <-> z) -> w <2> ((x <2> y) <4> z)
        let inner = Draft::Phrase(
            Box::new(phrase(s(), lex("x"))),
            Box::new(Draft::Phrase(Box::new(lex("y")), Box::new(s()), 3)),
            2,
        );
        assert_eq!(
            text(phrase(lex("w"), phrase(inner, lex("z")))),
            "'w' <2> ( 'x' <2> 'y' <4> 'z' )"
        );
        assert_eq!(text(Draft::And(Box::new(s()), Box::new(lex("a")))), "'a'");
        assert_eq!(clean(Draft::Not(Box::new(s()))), None);
    }
}
