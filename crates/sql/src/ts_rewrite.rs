//! `ts_rewrite(query, target, substitute)`: PostgreSQL 15's
//! `tsquery_rewrite`, which replaces each occurrence of `target` in
//! `query` by `substitute`, on PostgreSQL's working form of a query so
//! the results (and their operand order) are its own:
//!
//! - the query and the target are made n-ary (`a & (b & c)` is one AND of
//!   three: PostgreSQL's `QTNTernary`) and their AND / OR operands sorted
//!   into PostgreSQL's canonical order (`QTNSort` by `QTNodeCompare`:
//!   operators before lexemes, higher operator numbers first, more
//!   operands first, then operand by operand; lexemes by their CRC,
//!   higher first, then bytes);
//! - a node equal to the target is replaced, and an AND / OR whose
//!   operands include all the target's operands has those replaced by one
//!   substitute (`findeq`); a substitute is never searched again;
//! - operators left with no operand vanish, with one (but NOT) become it;
//! - the result is made binary again (`QTNBinary`).
//!
//! Binary operators keep PostgreSQL's operand order: the right operand
//! first, as its flat form stores them.
//!
//! Not built: the form reading (target, substitute) pairs from a query
//! given as text (`ts_rewrite(q, 'SELECT ...')`), which needs a query run
//! from inside an expression; it would rewrite pair by pair, making the
//! tree canonical again after each.

use folio_row::{QueryNode, TsQuery, lexeme_crc};
use std::cmp::Ordering;

/// PostgreSQL's operator numbers.
const NOT: u8 = 1;
const AND: u8 = 2;
const OR: u8 = 3;
const PHRASE: u8 = 4;

#[derive(Debug, Clone)]
enum Item {
    Lexeme {
        word: String,
        weights: u8,
        prefix: bool,
        crc: i32,
    },
    Operator {
        oper: u8,
        distance: u16,
    },
}

/// A node of the working form (PostgreSQL's `QTNode`).
#[derive(Debug, Clone)]
struct Node {
    item: Item,
    /// The operands; a binary operator's right one first.
    children: Vec<Node>,
    /// A substitute put in: not searched again (`QTN_NOCHANGE`).
    fixed: bool,
}

impl Node {
    fn of(q: &QueryNode) -> Node {
        let op = |oper, distance, children| Node {
            item: Item::Operator { oper, distance },
            children,
            fixed: false,
        };
        match q {
            QueryNode::Lexeme {
                word,
                weights,
                prefix,
            } => Node {
                item: Item::Lexeme {
                    word: word.clone(),
                    weights: *weights,
                    prefix: *prefix,
                    crc: lexeme_crc(word.as_bytes()),
                },
                children: Vec::new(),
                fixed: false,
            },
            QueryNode::Not(x) => op(NOT, 0, vec![Node::of(x)]),
            QueryNode::And(a, b) => op(AND, 0, vec![Node::of(b), Node::of(a)]),
            QueryNode::Or(a, b) => op(OR, 0, vec![Node::of(b), Node::of(a)]),
            QueryNode::Phrase(a, b, d) => op(PHRASE, *d, vec![Node::of(b), Node::of(a)]),
        }
    }

    /// The query of a binary tree (after [`Node::binary`]).
    fn query(self) -> QueryNode {
        match self.item {
            Item::Lexeme {
                word,
                weights,
                prefix,
                ..
            } => QueryNode::Lexeme {
                word,
                weights,
                prefix,
            },
            Item::Operator { oper, distance } => {
                let mut children = self.children.into_iter().map(Node::query);
                let right = Box::new(children.next().expect("an operand"));
                if oper == NOT {
                    return QueryNode::Not(right);
                }
                let left = Box::new(children.next().expect("two operands"));
                match oper {
                    AND => QueryNode::And(left, right),
                    OR => QueryNode::Or(left, right),
                    _ => QueryNode::Phrase(left, right, distance),
                }
            }
        }
    }

    fn oper(&self) -> Option<u8> {
        match self.item {
            Item::Operator { oper, .. } => Some(oper),
            Item::Lexeme { .. } => None,
        }
    }

    /// Nested ANDs (ORs) made one AND (OR) of all their operands.
    fn ternary(&mut self) {
        for c in &mut self.children {
            c.ternary();
        }
        let Some(oper @ (AND | OR)) = self.oper() else {
            return;
        };
        let mut flat = Vec::with_capacity(self.children.len());
        for c in std::mem::take(&mut self.children) {
            if c.oper() == Some(oper) {
                flat.extend(c.children);
            } else {
                flat.push(c);
            }
        }
        self.children = flat;
    }

    /// Operands of ANDs and ORs in PostgreSQL's canonical order.
    fn sort(&mut self) {
        for c in &mut self.children {
            c.sort();
        }
        if self.children.len() > 1 && self.oper() != Some(PHRASE) && self.oper().is_some() {
            self.children.sort_by(compare);
        }
    }

    /// N-ary operators made binary again (`QTNBinary`).
    fn binary(&mut self) {
        for c in &mut self.children {
            c.binary();
        }
        while self.children.len() > 2 {
            let item = self.item.clone();
            let last = self.children.pop().expect("more than two");
            let pair: Vec<Node> = self.children.drain(..2).collect();
            let joined = Node {
                item,
                children: pair,
                fixed: false,
            };
            self.children.insert(0, joined);
            self.children.insert(1, last);
        }
    }
}

/// PostgreSQL's `QTNodeCompare`.
fn compare(a: &Node, b: &Node) -> Ordering {
    match (&a.item, &b.item) {
        (Item::Operator { .. }, Item::Lexeme { .. }) => Ordering::Less,
        (Item::Lexeme { .. }, Item::Operator { .. }) => Ordering::Greater,
        (
            Item::Operator {
                oper: oa,
                distance: da,
            },
            Item::Operator {
                oper: ob,
                distance: db,
            },
        ) => ob
            .cmp(oa)
            .then_with(|| b.children.len().cmp(&a.children.len()))
            .then_with(|| {
                (a.children.iter().zip(&b.children))
                    .map(|(x, y)| compare(x, y))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
            .then_with(|| {
                if *oa == PHRASE {
                    db.cmp(da)
                } else {
                    Ordering::Equal
                }
            }),
        (
            Item::Lexeme {
                word: wa, crc: ca, ..
            },
            Item::Lexeme {
                word: wb, crc: cb, ..
            },
        ) => cb.cmp(ca).then_with(|| wa.as_bytes().cmp(wb.as_bytes())),
    }
}

/// `node` with `target` replaced by `substitute` where it matches at
/// `node` itself (`findeq`); `None` when the whole node goes.
fn replace_here(mut node: Node, target: &Node, substitute: Option<&Node>) -> Option<Node> {
    if node.fixed {
        return Some(node);
    }
    let put = || {
        substitute.map(|s| Node {
            fixed: true,
            ..s.clone()
        })
    };
    match (node.oper(), target.oper()) {
        (None, None) if compare(&node, target).is_eq() => return put(),
        (Some(a), Some(b)) if a == b => {
            let (n, t) = (node.children.len(), target.children.len());
            if n == t {
                if compare(&node, target).is_eq() {
                    return put();
                }
            } else if n > t && t > 0 {
                // AND and OR: the target's operands among the node's,
                // both lists sorted, in one pass.
                let mut matched = vec![false; n];
                let (mut i, mut j, mut count) = (0, 0, 0);
                while i < n && j < t {
                    match compare(&node.children[i], &target.children[j]) {
                        Ordering::Equal => {
                            matched[i] = true;
                            count += 1;
                            i += 1;
                            j += 1;
                        }
                        Ordering::Less => i += 1,
                        Ordering::Greater => break,
                    }
                }
                if count == t {
                    let children = std::mem::take(&mut node.children);
                    node.children = (children.into_iter().zip(matched))
                        .filter(|(_, m)| !m)
                        .map(|(c, _)| c)
                        .collect();
                    node.children.extend(put());
                    node.sort();
                }
            }
        }
        _ => {}
    }
    Some(node)
}

/// Every occurrence of `target` in `root` replaced (`dofindsubquery`).
fn replace_all(root: Node, target: &Node, substitute: Option<&Node>) -> Option<Node> {
    let mut root = replace_here(root, target, substitute)?;
    if root.fixed || root.oper().is_none() {
        return Some(root);
    }
    let children = std::mem::take(&mut root.children);
    root.children = children
        .into_iter()
        .filter_map(|c| replace_all(c, target, substitute))
        .collect();
    match root.children.len() {
        0 => None,
        1 if root.oper() != Some(NOT) => root.children.pop(),
        _ => Some(root),
    }
}

/// A query in canonical working form.
fn canonical(q: &QueryNode) -> Node {
    let mut node = Node::of(q);
    node.ternary();
    node.sort();
    node
}

/// `ts_rewrite(query, target, substitute)` (`tsquery_rewrite`): an empty
/// query or target changes nothing, an empty substitute removes.
pub fn rewrite(query: &TsQuery, target: &TsQuery, substitute: &TsQuery) -> TsQuery {
    let (Some(root), Some(target)) = (&query.root, &target.root) else {
        return query.clone();
    };
    let substitute = substitute.root.as_ref().map(Node::of);
    finish(replace_all(
        canonical(root),
        &canonical(target),
        substitute.as_ref(),
    ))
}

/// The tree made binary again, as a query (none: the empty query).
fn finish(tree: Option<Node>) -> TsQuery {
    TsQuery {
        root: tree.map(|mut node| {
            node.binary();
            node.query()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> TsQuery {
        TsQuery::parse(text).unwrap()
    }

    fn rewritten(query: &str, target: &str, substitute: &str) -> String {
        rewrite(&q(query), &q(target), &q(substitute)).text()
    }

    #[test]
    fn rewrites_are_postgresqls() {
        // PostgreSQL 15's answers.
        assert_eq!(
            rewritten(
                "foo & bar & qq & new & york",
                "new & york",
                "big & apple | nyc | new & york & city"
            ),
            "'foo' & 'bar' & 'qq' & ( 'city' & 'new' & 'york' | 'nyc' | 'big' & 'apple' )"
        );
        assert_eq!(rewritten("5 & (6 | 5)", "5", ""), "'6'");
        assert_eq!(rewritten("!5", "5", ""), "");
        assert_eq!(
            rewritten("foo <-> foo", "foo", "bar | baz"),
            "( 'bar' | 'baz' ) <-> ( 'bar' | 'baz' )"
        );
        assert_eq!(
            rewritten("new & !york", "york", "!jersey"),
            "'new' & !!'jersey'"
        );
        assert_eq!(
            rewritten("a & b & c & d | e", "b & d", "x <-> y"),
            "'e' | 'c' & 'a' & 'x' <-> 'y'"
        );
        assert_eq!(rewritten("a:A & b:*", "a", "z:B"), "'b':* & 'z':B");
        assert_eq!(
            rewritten("(a | b) & (b | a) & c", "a | b", "q"),
            "'c' & 'q' & 'q'"
        );
        assert_eq!(rewritten("a", "", "q"), "'a'");
        assert_eq!(rewritten("", "a", "q"), "");
    }
}
