//! `tsvector` and `tsquery` at the edges: casts to other types and the
//! binary wire forms (PostgreSQL 15's `tsvectorsend` / `tsvectorrecv`,
//! `tsquerysend` / `tsqueryrecv`).
//!
//! | type | binary form (big-endian) |
//! |---|---|
//! | tsvector | lexeme count (int32); per lexeme its bytes and a NUL, its position count (int16), each position (int16: weight in the top two bits) |
//! | tsquery | node count (int32); the nodes in prefix order, an operator before its right operand, the right before the left: a lexeme as 1, its weight bits, its prefix flag (int8 each) and its bytes with a NUL; an operator as 2 and its number (`!` 1, `&` 2, `\|` 3, phrase 4, int8), a phrase's distance (int16) |

use crate::error::SqlError;
use folio_row::{Lexeme, QueryNode, SqlType, TsQuery, TsVector, Value, WordPos};

/// `CAST(v AS ty)` of a tsvector or tsquery: to a string type its text,
/// to its own type itself, else 42846.
pub fn cast(v: Value, ty: SqlType) -> Result<Value, SqlError> {
    let own = crate::scalar::value_type(&v);
    match ty {
        t if t == own => Ok(v),
        SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_) => {
            let text = crate::types::text_output(&v).unwrap_or_default();
            Ok(Value::Text(text).fit(ty)?)
        }
        _ => Err(SqlError::new(
            "42846",
            format!("cannot cast type {} to {}", own.name(), ty.name()),
        )),
    }
}

/// The binary form of a tsvector or tsquery (module table).
pub fn send(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    match v {
        Value::TsVector(t) => {
            out.extend_from_slice(&(t.lexemes().len() as i32).to_be_bytes());
            for l in t.lexemes() {
                out.extend_from_slice(l.word.as_bytes());
                out.push(0);
                out.extend_from_slice(&(l.positions.len() as u16).to_be_bytes());
                for p in &l.positions {
                    out.extend_from_slice(&p.0.to_be_bytes());
                }
            }
        }
        Value::TsQuery(q) => {
            out.extend_from_slice(&(q.count() as i32).to_be_bytes());
            if let Some(root) = &q.root {
                send_node(root, &mut out);
            }
        }
        _ => unreachable!("only text search values"),
    }
    out
}

fn send_node(node: &QueryNode, out: &mut Vec<u8>) {
    match node {
        QueryNode::Lexeme {
            word,
            weights,
            prefix,
        } => {
            out.extend_from_slice(&[1, *weights, *prefix as u8]);
            out.extend_from_slice(word.as_bytes());
            out.push(0);
        }
        QueryNode::Not(x) => {
            out.extend_from_slice(&[2, 1]);
            send_node(x, out);
        }
        QueryNode::And(a, b) | QueryNode::Or(a, b) | QueryNode::Phrase(a, b, _) => {
            let oper = match node {
                QueryNode::And(..) => 2,
                QueryNode::Or(..) => 3,
                _ => 4,
            };
            out.extend_from_slice(&[2, oper]);
            if let QueryNode::Phrase(_, _, d) = node {
                out.extend_from_slice(&d.to_be_bytes());
            }
            send_node(b, out);
            send_node(a, out);
        }
    }
}

/// Reads the binary form of `ty` (22P03 for bytes not of that form).
pub fn receive(bytes: &[u8], ty: SqlType) -> Result<Value, SqlError> {
    let bad = || {
        SqlError::new(
            "22P03",
            format!("incorrect binary data format for type {}", ty.name()),
        )
    };
    let mut r = Reader { rest: bytes };
    let count = usize::try_from(i32::from_be_bytes(
        r.take(4).ok_or_else(bad)?.try_into().expect("4"),
    ))
    .map_err(|_| bad())?;
    let value = if ty == SqlType::TsVector {
        let mut lexemes = Vec::new();
        for _ in 0..count {
            let word = r.string().ok_or_else(bad)?;
            let n = r.u16().ok_or_else(bad)?;
            let mut positions = Vec::new();
            for _ in 0..n {
                positions.push(WordPos(r.u16().ok_or_else(bad)?));
            }
            lexemes.push(Lexeme { word, positions });
        }
        Value::TsVector(Box::new(TsVector::from_lexemes(lexemes)?))
    } else {
        let root = if count == 0 {
            None
        } else {
            Some(r.node(0).ok_or_else(bad)?)
        };
        let q = TsQuery { root };
        if q.count() != count {
            return Err(bad());
        }
        Value::TsQuery(Box::new(q))
    };
    if !r.rest.is_empty() {
        return Err(bad());
    }
    Ok(value)
}

struct Reader<'a> {
    rest: &'a [u8],
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let (head, tail) = self.rest.split_at_checked(n)?;
        self.rest = tail;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    fn string(&mut self) -> Option<String> {
        let end = self.rest.iter().position(|b| *b == 0)?;
        let s = String::from_utf8(self.take(end)?.to_vec()).ok()?;
        self.take(1)?;
        (!s.is_empty()).then_some(s)
    }

    fn node(&mut self, depth: usize) -> Option<QueryNode> {
        if depth > 1000 {
            return None;
        }
        match self.u8()? {
            1 => {
                let weights = self.u8()?;
                let prefix = self.u8()? != 0;
                let word = self.string()?;
                (weights < 16).then_some(QueryNode::Lexeme {
                    word,
                    weights,
                    prefix,
                })
            }
            2 => match self.u8()? {
                1 => Some(QueryNode::Not(Box::new(self.node(depth + 1)?))),
                oper @ 2..=4 => {
                    let distance = if oper == 4 { self.u16()? } else { 0 };
                    let right = Box::new(self.node(depth + 1)?);
                    let left = Box::new(self.node(depth + 1)?);
                    Some(match oper {
                        2 => QueryNode::And(left, right),
                        3 => QueryNode::Or(left, right),
                        _ => QueryNode::Phrase(left, right, distance),
                    })
                }
                _ => None,
            },
            _ => None,
        }
    }
}
