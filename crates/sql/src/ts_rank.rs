//! `ts_rank` (PostgreSQL 15's `ts_rank_wttf` and kin, `tsrank.c`): how
//! well a document matches a query, from the weights of the matching
//! lexemes' positions (default D 0.1, C 0.2, B 0.4, A 1.0) and, for a
//! query that is an AND or a phrase at the top, their distances; then
//! divided as the normalization bits ask (1: log of the length, 2: the
//! length, 8: the lexeme count, 16: its log, 32: rank / (rank + 1)).
//! Arithmetic is PostgreSQL's: single precision where it keeps `float`,
//! double where C promotes.
//!
//! `ts_rank_cd` (cover density) is `ts_rank_cd.rs`; its arguments are
//! read here.

use crate::error::SqlError;
use folio_row::{Lexeme, QueryNode, TsQuery, TsVector, Value, WordPos};

const DEFAULT_WEIGHTS: [f32; 4] = [0.1, 0.2, 0.4, 1.0];
/// The position a stripped lexeme counts at in an AND's distances.
const NO_POS: u16 = (1 << 14) - 1;

/// Evaluates `ts_rank([weights,] v, q [, normalization])`.
pub fn eval(cover_density: bool, args: &[Value]) -> Result<Value, SqlError> {
    let (weights, rest) = match args.first() {
        Some(Value::Array(a)) => (weights(a.items())?, &args[1..]),
        _ => (DEFAULT_WEIGHTS, args),
    };
    let (Value::TsVector(v), Value::TsQuery(q)) = (&rest[0], &rest[1]) else {
        unreachable!("bound as tsvector, tsquery");
    };
    let method = match rest.get(2) {
        Some(Value::Int4(m)) => *m,
        Some(Value::Int2(m)) => i32::from(*m),
        _ => 0,
    };
    Ok(Value::Float4(if cover_density {
        crate::ts_rank_cd::rank_cd(&weights, v, q, method)
    } else {
        rank(&weights, v, q, method)
    }))
}

/// The weights array (`getWeights`): four numbers; a negative one is the
/// default, one past 1 is 22023.
fn weights(items: &[Value]) -> Result<[f32; 4], SqlError> {
    if items.len() < 4 {
        return Err(SqlError::new("2202E", "array of weight is too short"));
    }
    let mut out = DEFAULT_WEIGHTS;
    for (i, item) in items.iter().take(4).enumerate() {
        let w = match item {
            Value::Null => {
                return Err(SqlError::new(
                    "22004",
                    "array of weight must not contain nulls",
                ));
            }
            Value::Float4(x) => *x,
            Value::Float8(x) => *x as f32,
            other => crate::types::text_output(other)
                .and_then(|t| t.parse::<f32>().ok())
                .unwrap_or(0.0),
        };
        if w > 1.0 {
            return Err(SqlError::new("22023", "weight out of range"));
        }
        if w >= 0.0 {
            out[i] = w;
        }
    }
    Ok(out)
}

/// The query's lexemes, sorted and each once (`SortAndUniqItems`).
fn operands(q: &TsQuery) -> Vec<(&str, bool)> {
    fn walk<'q>(n: &'q QueryNode, out: &mut Vec<(&'q str, bool)>) {
        match n {
            QueryNode::Lexeme { word, prefix, .. } => out.push((word, *prefix)),
            QueryNode::Not(x) => walk(x, out),
            QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
                walk(a, out);
                walk(b, out);
            }
        }
    }
    let mut out = Vec::new();
    if let Some(r) = &q.root {
        walk(r, &mut out);
    }
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

fn entries<'v>(v: &'v TsVector, word: &'v str, prefix: bool) -> Vec<&'v Lexeme> {
    if prefix {
        v.with_prefix(word).collect()
    } else {
        v.find(word).into_iter().collect()
    }
}

fn wpos(w: &[f32; 4], p: WordPos) -> f32 {
    w[usize::from(p.weight())]
}

fn word_distance(d: i32) -> f32 {
    if d > 100 {
        return 1e-30;
    }
    (1.0 / (1.005 + 0.05 * ((d as f32 / 1.5 - 2.0) as f64).exp())) as f32
}

fn rank_or(w: &[f32; 4], v: &TsVector, q: &TsQuery) -> f32 {
    let items = operands(q);
    let mut res: f32 = 0.0;
    for (word, prefix) in &items {
        for l in entries(v, word, *prefix) {
            let positions: Vec<WordPos> = if l.positions.is_empty() {
                vec![WordPos(0)]
            } else {
                l.positions.clone()
            };
            let mut resj: f32 = 0.0;
            let mut wjm: f32 = -1.0;
            let mut jm = 0usize;
            for (j, p) in positions.iter().enumerate() {
                let sq = ((j + 1) * (j + 1)) as f32;
                resj += wpos(w, *p) / sq;
                if wpos(w, *p) > wjm {
                    wjm = wpos(w, *p);
                    jm = j;
                }
            }
            let sq = ((jm + 1) * (jm + 1)) as f32;
            res = (f64::from(res) + f64::from(wjm + resj - wjm / sq) / 1.64493406685) as f32;
        }
    }
    if !items.is_empty() {
        res /= items.len() as f32;
    }
    res
}

fn rank_and(w: &[f32; 4], v: &TsVector, q: &TsQuery) -> f32 {
    let items = operands(q);
    if items.len() < 2 {
        return rank_or(w, v, q);
    }
    let null_pos = vec![WordPos::new(NO_POS, 0)];
    let mut pos: Vec<Option<(Vec<WordPos>, bool)>> = vec![None; items.len()];
    let mut res: f32 = -1.0;
    for (i, (word, prefix)) in items.iter().enumerate() {
        for l in entries(v, word, *prefix) {
            let stripped = l.positions.is_empty();
            pos[i] = Some(if stripped {
                (null_pos.clone(), true)
            } else {
                (l.positions.clone(), false)
            });
            let (post, i_null) = pos[i].clone().expect("set");
            for (ct, k_null) in pos.iter().take(i).flatten() {
                for a in &post {
                    for b in ct {
                        let mut dist = (i32::from(a.pos()) - i32::from(b.pos())).abs();
                        if dist != 0 || i_null || *k_null {
                            if dist == 0 {
                                dist = 1 << 14;
                            }
                            let product = wpos(w, *a) * wpos(w, *b) * word_distance(dist);
                            let curw = f64::from(product).sqrt() as f32;
                            res = if res < 0.0 {
                                curw
                            } else {
                                (1.0 - (1.0 - f64::from(res)) * (1.0 - f64::from(curw))) as f32
                            };
                        }
                    }
                }
            }
        }
    }
    res
}

/// `calc_rank`.
fn rank(w: &[f32; 4], v: &TsVector, q: &TsQuery, method: i32) -> f32 {
    let Some(root) = &q.root else {
        return 0.0;
    };
    if v.lexemes().is_empty() {
        return 0.0;
    }
    let mut res = match root {
        QueryNode::And(..) | QueryNode::Phrase(..) => rank_and(w, v, q),
        _ => rank_or(w, v, q),
    };
    if res < 0.0 {
        res = 1e-20;
    }
    let length: usize = v.lexemes().iter().map(|l| l.positions.len().max(1)).sum();
    let size = v.lexemes().len();
    if method & 0x01 != 0 {
        res = (f64::from(res) / ((length as f64 + 1.0).ln() / 2f64.ln())) as f32;
    }
    if method & 0x02 != 0 && length > 0 {
        res /= length as f32;
    }
    if method & 0x08 != 0 {
        res /= size as f32;
    }
    if method & 0x10 != 0 {
        res = (f64::from(res) / ((size as f64 + 1.0).ln() / 2f64.ln())) as f32;
    }
    if method & 0x20 != 0 {
        res /= res + 1.0;
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(v: &str, q: &str) -> f32 {
        rank(
            &DEFAULT_WEIGHTS,
            &TsVector::parse(v).unwrap(),
            &TsQuery::parse(q).unwrap(),
            0,
        )
    }

    // Proves ranks are PostgreSQL 15's to its six digits (tstypes.sql).
    #[test]
    fn ranks_as_postgresql() {
        let near = |x: f32, y: f32| assert!((x - y).abs() < 1e-6, "{x} {y}");
        near(r(" a:1 s:2C d g", "a | s"), 0.0911891);
        near(r(" a:1 sa:2C d g", "a | s"), 0.0303964);
        near(r(" a:1 sa:2C d g", "a | s:*"), 0.0911891);
        near(r(" a:1 s:2B d g", "a | s"), 0.151982);
        near(r(" a:1 s:2C d g", "a & s"), 0.140153);
        near(r(" a:1 s:2B d g", "a & s"), 0.198206);
        near(r(" a:1 s:2 d g", "a & s"), 0.0991032);
    }
}
