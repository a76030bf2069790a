//! Combining and comparing tsqueries (PostgreSQL 15's `tsquery_op.c`):
//! `&&`, `||`, `!!`, `<->` / `tsquery_phrase`, `@>`, `<@`, `numnode`.
//! An empty query combined with another gives the other.

use crate::error::SqlError;
use folio_row::{MAX_DISTANCE, QueryNode, TsQuery};

/// Which binary operator joins two queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    And,
    Or,
    /// `<N>`.
    Phrase(u16),
}

/// `a && b`, `a || b`, `tsquery_phrase(a, b, n)`.
pub fn join(a: &TsQuery, b: &TsQuery, how: Join) -> TsQuery {
    match (&a.root, &b.root) {
        (None, _) => b.clone(),
        (_, None) => a.clone(),
        (Some(x), Some(y)) => {
            let (x, y) = (Box::new(x.clone()), Box::new(y.clone()));
            TsQuery {
                root: Some(match how {
                    Join::And => QueryNode::And(x, y),
                    Join::Or => QueryNode::Or(x, y),
                    Join::Phrase(d) => QueryNode::Phrase(x, y, d),
                }),
            }
        }
    }
}

/// A phrase distance from SQL: 0 to [`MAX_DISTANCE`] (22023 otherwise).
pub fn distance(n: i64) -> Result<u16, SqlError> {
    u16::try_from(n)
        .ok()
        .filter(|d| *d <= MAX_DISTANCE)
        .ok_or_else(|| {
            SqlError::new(
                "22023",
                format!(
                    "distance in phrase operator must be an integer value between zero and {MAX_DISTANCE} inclusive"
                ),
            )
        })
}

/// `!! a`.
pub fn not(a: &TsQuery) -> TsQuery {
    TsQuery {
        root: a.root.clone().map(|r| QueryNode::Not(Box::new(r))),
    }
}

fn words<'q>(node: &'q QueryNode, out: &mut Vec<&'q str>) {
    match node {
        QueryNode::Lexeme { word, .. } => out.push(word),
        QueryNode::Not(x) => words(x, out),
        QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
            words(a, out);
            words(b, out);
        }
    }
}

/// `a @> b`: `a` has at least as many nodes and every lexeme of `b`
/// (PostgreSQL's `tsq_mcontains`).
pub fn contains(a: &TsQuery, b: &TsQuery) -> bool {
    if a.count() < b.count() {
        return false;
    }
    let (mut wa, mut wb) = (Vec::new(), Vec::new());
    if let Some(r) = &a.root {
        words(r, &mut wa);
    }
    if let Some(r) = &b.root {
        words(r, &mut wb);
    }
    wb.iter().all(|w| wa.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(t: &str) -> TsQuery {
        TsQuery::parse(t).unwrap()
    }

    // Proves the combinations print as PostgreSQL 15's (tstypes.sql).
    #[test]
    fn combinations_as_postgresql() {
        assert_eq!(
            join(&q("foo & bar"), &q("asd"), Join::And).text(),
            "'foo' & 'bar' & 'asd'"
        );
        assert_eq!(
            join(&q("foo & bar"), &not(&q("asd & fg")), Join::Or).text(),
            "'foo' & 'bar' | !( 'asd' & 'fg' )"
        );
        assert_eq!(
            join(&q("a & g"), &q("b <-> d"), Join::Phrase(1)).text(),
            "( 'a' & 'g' ) <-> ( 'b' <-> 'd' )"
        );
        assert_eq!(
            join(&q("a <3> g"), &q("b & d"), Join::Phrase(10)).text(),
            "'a' <3> 'g' <10> ( 'b' & 'd' )"
        );
        assert!(contains(&q("a & b & c"), &q("a | c")));
        assert!(!contains(&q("a & b"), &q("a & d")));
        assert_eq!(distance(16385).unwrap_err().code, "22023");
    }
}
