//! `ts_rank_cd`: cover density ranking (PostgreSQL 15's `calc_rank_cd`).
//!
//! The document is read as the positions of the query's lexemes (each
//! lexeme node's matching positions of its weights; stripped lexemes
//! left out), in position order. A cover is a shortest stretch of them
//! that satisfies the query (`Cover`: from where the last one began,
//! forward to the first position where the query holds, then back from
//! there to the last position where it holds). Each cover adds its
//! count of positions over the sum of their inverse weights, divided by
//! one plus the words inside it that are not the query's; the
//! normalization bits then divide the sum (1: log of the length, 2: the
//! length, 4: the covers' mean distance, 8: the lexeme count, 16: its
//! log, 32: rank / (rank + 1)).

use crate::ts_match::{Operands, Tri, execute};
use folio_row::{QueryNode, TsQuery, TsVector, WordPos};
use std::collections::HashMap;

/// One position of the document with the query's lexeme nodes there.
struct DocPos {
    pos: WordPos,
    /// The lexeme nodes (by address) matching at it.
    items: Vec<usize>,
}

/// The lexeme nodes seen so far in a scan, with their positions.
#[derive(Default)]
struct Seen {
    positions: HashMap<usize, Vec<i32>>,
}

impl Operands for Seen {
    fn present(&self, lexeme: &QueryNode) -> bool {
        self.positions
            .contains_key(&(lexeme as *const QueryNode as usize))
    }

    fn positions(&self, lexeme: &QueryNode) -> Option<Vec<i32>> {
        let mut p = self
            .positions
            .get(&(lexeme as *const QueryNode as usize))
            .cloned()
            .unwrap_or_default();
        p.sort_unstable();
        Some(p)
    }
}

impl Seen {
    fn add(&mut self, d: &DocPos) {
        for item in &d.items {
            let list = self.positions.entry(*item).or_default();
            let pos = i32::from(d.pos.pos());
            if !list.contains(&pos) {
                list.push(pos);
            }
        }
    }
}

fn lexeme_nodes<'q>(node: &'q QueryNode, out: &mut Vec<&'q QueryNode>) {
    match node {
        QueryNode::Lexeme { .. } => out.push(node),
        QueryNode::Not(x) => lexeme_nodes(x, out),
        QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
            lexeme_nodes(a, out);
            lexeme_nodes(b, out);
        }
    }
}

/// The document as the query's positions (`get_docrep`).
fn doc_positions(v: &TsVector, root: &QueryNode) -> Vec<DocPos> {
    let mut nodes = Vec::new();
    lexeme_nodes(root, &mut nodes);
    // (position, lexeme index in the document, node).
    let mut raw: Vec<(WordPos, usize, usize)> = Vec::new();
    for node in nodes {
        let QueryNode::Lexeme {
            word,
            weights,
            prefix,
        } = node
        else {
            continue;
        };
        for (index, l) in v.lexemes().iter().enumerate() {
            let fits = if *prefix {
                l.word.as_bytes().starts_with(word.as_bytes())
            } else {
                l.word == *word
            };
            if !fits {
                continue;
            }
            for p in &l.positions {
                if *weights == 0 || weights & (1 << p.weight()) != 0 {
                    raw.push((*p, index, node as *const QueryNode as usize));
                }
            }
        }
    }
    raw.sort_by_key(|(p, index, _)| (p.pos(), p.weight(), *index));
    let mut out: Vec<(DocPos, usize)> = Vec::new();
    for (pos, index, node) in raw {
        match out.last_mut() {
            Some((d, i)) if d.pos == pos && *i == index => d.items.push(node),
            _ => out.push((
                DocPos {
                    pos,
                    items: vec![node],
                },
                index,
            )),
        }
    }
    out.into_iter().map(|(d, _)| d).collect()
}

/// A cover: its first and last doc entries, their positions.
struct Cover {
    begin: usize,
    end: usize,
    p: i32,
    q: i32,
}

/// The next cover from `*start` (`Cover`), moving `*start` past it.
fn cover(doc: &[DocPos], root: &QueryNode, start: &mut usize) -> Option<Cover> {
    loop {
        let mut seen = Seen::default();
        let mut end = None;
        for (i, d) in doc.iter().enumerate().skip(*start) {
            seen.add(d);
            if execute(&seen, root) != Tri::No {
                end = Some(i);
                break;
            }
        }
        let end = end?;
        let q = i32::from(doc[end].pos.pos());
        let mut seen = Seen::default();
        let mut begin = None;
        let mut i = end as isize;
        while i >= *start as isize {
            seen.add(&doc[i as usize]);
            if execute(&seen, root) != Tri::No {
                begin = Some(i as usize);
                break;
            }
            i -= 1;
        }
        match begin {
            Some(b) if i32::from(doc[b].pos.pos()) <= q => {
                *start = b + 1;
                return Some(Cover {
                    begin: b,
                    end,
                    p: i32::from(doc[b].pos.pos()),
                    q,
                });
            }
            _ => *start += 1,
        }
    }
}

/// `calc_rank_cd` with weights `w` (D, C, B, A) and normalization
/// `method`.
pub fn rank_cd(w: &[f32; 4], v: &TsVector, query: &TsQuery, method: i32) -> f32 {
    let Some(root) = &query.root else {
        return 0.0;
    };
    let inverse: Vec<f64> = w.iter().map(|x| 1.0 / f64::from(*x)).collect();
    let doc = doc_positions(v, root);
    if doc.is_empty() {
        return 0.0;
    }
    let mut wdoc = 0.0f64;
    let mut sum_dist = 0.0f64;
    let mut prev_ext_pos = 0.0f64;
    let mut extents = 0;
    let mut start = 0usize;
    while let Some(c) = cover(&doc, root, &mut start) {
        let inv_sum: f64 = doc[c.begin..=c.end]
            .iter()
            .map(|d| inverse[usize::from(d.pos.weight())])
            .sum();
        let span = (c.end - c.begin) as i32;
        let cpos = f64::from(span + 1) / inv_sum;
        let mut noise = (c.q - c.p) - span;
        if noise < 0 {
            noise = span / 2;
        }
        wdoc += cpos / f64::from(1 + noise);
        let cur_ext_pos = f64::from(c.q + c.p) / 2.0;
        if extents > 0 && cur_ext_pos > prev_ext_pos {
            sum_dist += 1.0 / (cur_ext_pos - prev_ext_pos);
        }
        prev_ext_pos = cur_ext_pos;
        extents += 1;
    }
    let length: usize = v.lexemes().iter().map(|l| l.positions.len().max(1)).sum();
    let size = v.lexemes().len();
    if method & 0x01 != 0 && size > 0 {
        wdoc /= (length as f64 + 1.0).ln();
    }
    if method & 0x02 != 0 && length > 0 {
        wdoc /= length as f64;
    }
    if method & 0x04 != 0 && extents > 0 && sum_dist > 0.0 {
        wdoc /= f64::from(extents) / sum_dist;
    }
    if method & 0x08 != 0 && size > 0 {
        wdoc /= size as f64;
    }
    if method & 0x10 != 0 && size > 0 {
        wdoc /= (size as f64 + 1.0).ln() / 2f64.ln();
    }
    if method & 0x20 != 0 {
        wdoc /= wdoc + 1.0;
    }
    wdoc as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(v: &str, q: &str) -> f32 {
        rank_cd(
            &[0.1, 0.2, 0.4, 1.0],
            &TsVector::parse(v).unwrap(),
            &TsQuery::parse(q).unwrap(),
            0,
        )
    }

    // Proves cover density ranks are PostgreSQL 15's (tstypes.sql).
    #[test]
    fn ranks_as_postgresql() {
        let near = |x: f32, y: f32| assert!((x - y).abs() < 1e-6, "{x} {y}");
        near(r(" a:1 s:2C d g", "a | s"), 0.3);
        near(r(" a:1 sa:2C d g", "a | s"), 0.1);
        near(r(" a:1 sa:3C sab:2c d g", "a | sa:*"), 0.5);
        near(r(" a:1 s:2C d g", "a & s"), 0.133333);
        near(r(" a:1 s:2A d g", "a <-> s"), 0.181818);
        near(r(" a:1 s:2,3A d:2A g", "a <2> s:A"), 0.0909091);
        near(r(" a:1 sa:2A sb:2D g", "a <-> s:* <-> sa:A"), 0.0);
        near(r(" a:1 sa:2D sb:2A g", "a <-> s:*"), 0.1);
    }
}
