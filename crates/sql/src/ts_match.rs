//! `tsvector @@ tsquery`: whether a document matches a query, as
//! PostgreSQL 15's `TS_execute` decides it.
//!
//! A lexeme matches when the document has it (or, with `:*`, a lexeme it
//! starts) at a position of one of its weights; a stripped lexeme (no
//! positions) matches whatever the weights. `!`, `&`, `|` are three-valued
//! (yes, no, maybe: "maybe" when positions were needed and missing).
//!
//! A phrase (`a <N> b`) is evaluated over positions (PostgreSQL's
//! `TS_phrase_execute`): each operand yields the positions where it ends,
//! the width it spans, and whether the set is negated ("everywhere but
//! these", from a `!`). `a <N> b` keeps the positions of `b` that are `N`
//! plus `b`'s width after one of `a`'s; `&` and `|` inside a phrase align
//! the narrower operand to the right end of the wider. A phrase over a
//! stripped lexeme is "maybe", which the top of the query takes as no.

use folio_row::{QueryNode, TsQuery, TsVector};

/// Three-valued results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tri {
    No,
    Yes,
    Maybe,
}

/// Positions where a phrase operand ends.
#[derive(Debug, Default)]
struct Positions {
    pos: Vec<i32>,
    /// The positions are where the operand does not match.
    negate: bool,
    /// How many positions the operand spans past its first.
    width: i32,
}

/// Where a query's lexemes match: a document for `@@`, the part of one
/// `ts_rank_cd` looks at (`ts_rank.rs`). A lexeme node is known by its
/// address, unique while the query lives.
pub(crate) trait Operands {
    /// Whether the lexeme node matches (no positions needed).
    fn present(&self, lexeme: &QueryNode) -> bool;
    /// Its positions, ascending (empty: no match); `None` when it
    /// matches without positions.
    fn positions(&self, lexeme: &QueryNode) -> Option<Vec<i32>>;
}

/// A document's lexemes as `@@` takes them.
struct Document<'v>(&'v TsVector);

impl Operands for Document<'_> {
    fn present(&self, lexeme: &QueryNode) -> bool {
        match lexeme {
            QueryNode::Lexeme {
                word,
                weights,
                prefix,
            } => lexeme_present(self.0, word, *weights, *prefix),
            _ => false,
        }
    }

    fn positions(&self, lexeme: &QueryNode) -> Option<Vec<i32>> {
        match lexeme {
            QueryNode::Lexeme {
                word,
                weights,
                prefix,
            } => positions(self.0, word, *weights, *prefix),
            _ => Some(Vec::new()),
        }
    }
}

/// Whether `v @@ q` (an empty query matches nothing).
pub fn matches(v: &TsVector, q: &TsQuery) -> bool {
    match &q.root {
        None => false,
        Some(root) => execute(&Document(v), root) != Tri::No,
    }
}

/// The lexeme's positions in `v` with one of `weights` (all when 0);
/// `None` when a matching lexeme has no positions.
fn positions(v: &TsVector, word: &str, weights: u8, prefix: bool) -> Option<Vec<i32>> {
    let mut out = Vec::new();
    let lexemes: Vec<&folio_row::Lexeme> = if prefix {
        v.with_prefix(word).collect()
    } else {
        v.find(word).into_iter().collect()
    };
    for l in lexemes {
        if l.positions.is_empty() {
            return None;
        }
        out.extend(
            l.positions
                .iter()
                .filter(|p| weights == 0 || weights & (1 << p.weight()) != 0)
                .map(|p| i32::from(p.pos())),
        );
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// Whether the lexeme is in `v` (no positions needed): a stripped one
/// matches whatever the weights.
fn lexeme_present(v: &TsVector, word: &str, weights: u8, prefix: bool) -> bool {
    let fits = |l: &folio_row::Lexeme| {
        l.positions.is_empty()
            || weights == 0
            || l.positions.iter().any(|p| weights & (1 << p.weight()) != 0)
    };
    if prefix {
        v.with_prefix(word).any(fits)
    } else {
        v.find(word).is_some_and(fits)
    }
}

/// `TS_execute_recurse`.
pub(crate) fn execute(v: &impl Operands, node: &QueryNode) -> Tri {
    match node {
        QueryNode::Lexeme { .. } => {
            if v.present(node) {
                Tri::Yes
            } else {
                Tri::No
            }
        }
        QueryNode::Not(x) => match execute(v, x) {
            Tri::No => Tri::Yes,
            Tri::Yes => Tri::No,
            Tri::Maybe => Tri::Maybe,
        },
        QueryNode::And(a, b) => {
            let l = execute(v, a);
            if l == Tri::No {
                return Tri::No;
            }
            match execute(v, b) {
                Tri::No => Tri::No,
                Tri::Yes => l,
                Tri::Maybe => Tri::Maybe,
            }
        }
        QueryNode::Or(a, b) => {
            let l = execute(v, a);
            if l == Tri::Yes {
                return Tri::Yes;
            }
            match execute(v, b) {
                Tri::No => l,
                Tri::Yes => Tri::Yes,
                Tri::Maybe => Tri::Maybe,
            }
        }
        QueryNode::Phrase(..) => match phrase(v, node, &mut Positions::default()) {
            Tri::Yes => Tri::Yes,
            _ => Tri::No,
        },
    }
}

/// Which positions of a merge to keep.
const BOTH: u8 = 1;
const LEFT_ONLY: u8 = 2;
const RIGHT_ONLY: u8 = 4;

/// Merges the two operands' positions (each moved by its offset),
/// keeping those `emit` asks for (`TS_phrase_output`).
fn merge(
    out: &mut Positions,
    l: &Positions,
    r: &Positions,
    emit: u8,
    l_off: i32,
    r_off: i32,
) -> Tri {
    let (mut i, mut j) = (0, 0);
    while i < l.pos.len() || j < r.pos.len() {
        let lp = match l.pos.get(i) {
            Some(p) => p + l_off,
            None if emit & RIGHT_ONLY == 0 => break,
            None => i32::MAX,
        };
        let rp = match r.pos.get(j) {
            Some(p) => p + r_off,
            None if emit & LEFT_ONLY == 0 => break,
            None => i32::MAX,
        };
        let mut output = 0;
        match lp.cmp(&rp) {
            std::cmp::Ordering::Less => {
                if emit & LEFT_ONLY != 0 {
                    output = lp;
                }
                i += 1;
            }
            std::cmp::Ordering::Equal => {
                if emit & BOTH != 0 {
                    output = rp;
                }
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Greater => {
                if emit & RIGHT_ONLY != 0 {
                    output = rp;
                }
                j += 1;
            }
        }
        if output > 0 {
            out.pos.push(output);
        }
    }
    if out.pos.is_empty() {
        Tri::No
    } else {
        Tri::Yes
    }
}

/// `TS_phrase_execute`: the node's positions into `out`.
fn phrase(v: &impl Operands, node: &QueryNode, out: &mut Positions) -> Tri {
    match node {
        QueryNode::Lexeme { .. } => match v.positions(node) {
            None => Tri::Maybe,
            Some(p) if p.is_empty() => Tri::No,
            Some(p) => {
                out.pos = p;
                Tri::Yes
            }
        },
        QueryNode::Not(x) => match phrase(v, x, out) {
            Tri::No => {
                out.negate = true;
                Tri::Yes
            }
            Tri::Yes if !out.pos.is_empty() => {
                out.negate = !out.negate;
                Tri::Yes
            }
            Tri::Yes => {
                out.negate = false;
                Tri::No
            }
            Tri::Maybe => Tri::Maybe,
        },
        QueryNode::Phrase(a, b, _) | QueryNode::And(a, b) => {
            let mut l = Positions::default();
            let mut r = Positions::default();
            let lm = phrase(v, a, &mut l);
            if lm == Tri::No {
                return Tri::No;
            }
            let rm = phrase(v, b, &mut r);
            if rm == Tri::No {
                return Tri::No;
            }
            if lm == Tri::Maybe || rm == Tri::Maybe {
                return Tri::Maybe;
            }
            let (l_off, r_off) = match node {
                QueryNode::Phrase(_, _, d) => {
                    out.width = i32::from(*d) + l.width + r.width;
                    (i32::from(*d) + r.width, 0)
                }
                _ => {
                    let w = l.width.max(r.width);
                    out.width = w;
                    (w - l.width, w - r.width)
                }
            };
            match (l.negate, r.negate) {
                (true, true) => {
                    merge(out, &l, &r, BOTH | LEFT_ONLY | RIGHT_ONLY, l_off, r_off);
                    out.negate = true;
                    Tri::Yes
                }
                (true, false) => merge(out, &l, &r, RIGHT_ONLY, l_off, r_off),
                (false, true) => merge(out, &l, &r, LEFT_ONLY, l_off, r_off),
                (false, false) => merge(out, &l, &r, BOTH, l_off, r_off),
            }
        }
        QueryNode::Or(a, b) => {
            let mut l = Positions::default();
            let mut r = Positions::default();
            let lm = phrase(v, a, &mut l);
            let rm = phrase(v, b, &mut r);
            if lm == Tri::No && rm == Tri::No {
                return Tri::No;
            }
            if lm == Tri::Maybe || rm == Tri::Maybe {
                return Tri::Maybe;
            }
            if lm == Tri::No {
                l.width = 0;
            }
            if rm == Tri::No {
                r.width = 0;
            }
            let w = l.width.max(r.width);
            out.width = w;
            let (l_off, r_off) = (w - l.width, w - r.width);
            match (l.negate, r.negate) {
                (true, true) => {
                    merge(out, &l, &r, BOTH, l_off, r_off);
                    out.negate = true;
                    Tri::Yes
                }
                (true, false) => {
                    merge(out, &l, &r, LEFT_ONLY, l_off, r_off);
                    out.negate = true;
                    Tri::Yes
                }
                (false, true) => {
                    merge(out, &l, &r, RIGHT_ONLY, l_off, r_off);
                    out.negate = true;
                    Tri::Yes
                }
                (false, false) => merge(out, &l, &r, BOTH | LEFT_ONLY | RIGHT_ONLY, l_off, r_off),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: &str, q: &str) -> bool {
        matches(&TsVector::parse(v).unwrap(), &TsQuery::parse(q).unwrap())
    }

    // Proves matching follows PostgreSQL 15 on tstypes.sql's cases:
    // weights, prefixes, stripped lexemes, phrases with negations.
    #[test]
    fn matches_as_postgresql() {
        let doc = "a b:89  ca:23A,64b d:34c";
        assert!(m(doc, "d:AC & ca"));
        assert!(!m(doc, "d:AC & ca:C"));
        assert!(m(doc, "d:AC & c:*CB"));
        assert!(m("wa:1D wb:2A", "w:*D <-> w:*A"));
        assert!(!m("wa:1A wb:2D", "w:*D <-> w:*A"));
        assert!(m("wa", "w:*A"));
        assert!(!m("wa", "!w:*D"));
        assert!(!m("supernova", "super"));
        assert!(m("supernova", "super:*"));
        assert!(m("1:1,4 2:2 3:3", "1 <2> 3"));
        assert!(!m("1 2 3", "1 <-> 2"));
        assert!(!m("q:1 x:2 y:4", "q <-> (x & y)"));
        assert!(m("q:1 y:2 z:3", "q <-> (x | y <-> z)"));
        assert!(!m("q:1 x:2", "(x | y <-> z) <-> q"));
        assert!(m("x:1 q:2", "(x | y <-> z) <-> q"));
        assert!(m("y:1,2 q:3", "(!x | y <-> z) <-> q"));
        assert!(!m("x:1 q:2", "(!x | y <-> z) <-> q"));
        assert!(!m("x:1 y:2 q:3", "(!x | y) <-> y <-> q"));
        assert!(m("x:1 y:2,4 q:3", "!x <-> y"));
        assert!(!m("x:1 y:2,4 q:3", "!(x <-> y)"));
        assert!(m("x:1 y:2,4 q:3", "!(x <2> y)"));
        assert!(m("x y q", "!(x <-> y)"));
        assert!(m("", "!foo"));
        assert!(!m("a:1 b:2", "a <0> b"));
        assert!(m("a:1 b:3", "a <0> a:*"));
    }
}
