//! Editing tsvectors (PostgreSQL 15's `tsvector_op.c`): `||`, `strip`,
//! `setweight`, `ts_delete`, `ts_filter`, `tsvector_to_array`,
//! `array_to_tsvector`. Each returns a new value that keeps
//! folio-row's invariants (`TsVector::from_lexemes` orders and merges).

use crate::error::SqlError;
use folio_row::{Lexeme, MAX_POS, TsVector, Value, WordPos};

/// `a || b`: `b`'s positions moved past `a`'s last (at most
/// [`MAX_POS`]), equal lexemes' positions together.
pub fn concat(a: &TsVector, b: &TsVector) -> Result<TsVector, SqlError> {
    let shift = a
        .lexemes()
        .iter()
        .flat_map(|l| l.positions.iter().map(|p| p.pos()))
        .max()
        .unwrap_or(0);
    let mut lexemes: Vec<Lexeme> = a.lexemes().to_vec();
    for l in b.lexemes() {
        lexemes.push(Lexeme {
            word: l.word.clone(),
            positions: l
                .positions
                .iter()
                .map(|p| {
                    WordPos::new(
                        (u32::from(p.pos()) + u32::from(shift)).min(u32::from(MAX_POS)) as u16,
                        p.weight(),
                    )
                })
                .collect(),
        });
    }
    Ok(TsVector::from_lexemes(lexemes)?)
}

/// `strip(v)`: no positions.
pub fn strip(v: &TsVector) -> TsVector {
    TsVector::from_sorted(
        v.lexemes()
            .iter()
            .map(|l| Lexeme {
                word: l.word.clone(),
                positions: Vec::new(),
            })
            .collect(),
    )
}

/// A weight letter's number (`A` 3 ... `D` 0): `setweight`'s
/// XX000 `unrecognized weight: N` otherwise.
pub fn weight_of(c: &str) -> Result<u8, SqlError> {
    let b = c.bytes().next().unwrap_or(0);
    match b {
        b'A' | b'a' => Ok(3),
        b'B' | b'b' => Ok(2),
        b'C' | b'c' => Ok(1),
        b'D' | b'd' => Ok(0),
        _ => Err(SqlError::new("XX000", format!("unrecognized weight: {b}"))),
    }
}

/// `setweight(v, w [, lexemes])`: every position of the lexemes named
/// (all without a list; NULLs in it ignored) gets weight `w`.
pub fn setweight(v: &TsVector, weight: u8, only: Option<&[Value]>) -> TsVector {
    let named = |word: &str| {
        only.is_none_or(|list| {
            list.iter()
                .any(|x| matches!(x, Value::Text(t) if t == word))
        })
    };
    TsVector::from_sorted(
        v.lexemes()
            .iter()
            .map(|l| Lexeme {
                word: l.word.clone(),
                positions: if named(&l.word) {
                    l.positions.iter().map(|p| p.with_weight(weight)).collect()
                } else {
                    l.positions.clone()
                },
            })
            .collect(),
    )
}

/// `ts_delete(v, lexemes)`: without the lexemes named (NULLs ignored).
pub fn delete(v: &TsVector, words: &[Value]) -> TsVector {
    let gone = |word: &str| {
        words
            .iter()
            .any(|x| matches!(x, Value::Text(t) if t == word))
    };
    TsVector::from_sorted(
        v.lexemes()
            .iter()
            .filter(|l| !gone(&l.word))
            .cloned()
            .collect(),
    )
}

/// `ts_filter(v, weights)`: only positions of those weights, and only
/// lexemes left with one (22004 for a NULL weight, 22023 for a letter
/// that is none).
pub fn filter(v: &TsVector, weights: &[Value]) -> Result<TsVector, SqlError> {
    let mut mask = 0u8;
    for w in weights {
        match w {
            Value::Null => {
                return Err(SqlError::new("22004", "weight array may not contain nulls"));
            }
            Value::Text(t) => {
                let weight = weight_of(t)
                    .map_err(|_| SqlError::new("22023", format!("unrecognized weight: \"{t}\"")))?;
                mask |= 1 << weight;
            }
            _ => {}
        }
    }
    Ok(TsVector::from_sorted(
        v.lexemes()
            .iter()
            .filter_map(|l| {
                let positions: Vec<WordPos> = l
                    .positions
                    .iter()
                    .filter(|p| mask & (1 << p.weight()) != 0)
                    .copied()
                    .collect();
                (!positions.is_empty()).then(|| Lexeme {
                    word: l.word.clone(),
                    positions,
                })
            })
            .collect(),
    ))
}

/// `tsvector_to_array(v)`: the lexemes.
pub fn to_array(v: &TsVector) -> Value {
    Value::array(
        v.lexemes()
            .iter()
            .map(|l| Value::Text(l.word.clone()))
            .collect(),
    )
}

/// The rows of `unnest(v)`: each lexeme, its positions (int2[]) and
/// their weights' letters (text[]), both NULL for a stripped lexeme.
pub fn unnest_rows(v: &TsVector) -> Vec<Vec<Value>> {
    v.lexemes()
        .iter()
        .map(|l| {
            let (positions, weights) = if l.positions.is_empty() {
                (Value::Null, Value::Null)
            } else {
                (
                    Value::array(
                        l.positions
                            .iter()
                            .map(|p| Value::Int2(p.pos() as i16))
                            .collect(),
                    ),
                    Value::array(
                        l.positions
                            .iter()
                            .map(|p| Value::Text(folio_row::weight_letter(p.weight()).to_string()))
                            .collect(),
                    ),
                )
            };
            vec![Value::Text(l.word.clone()), positions, weights]
        })
        .collect()
}

/// `array_to_tsvector(words)`: the lexemes, without positions (22004 for
/// a NULL, 2200F for an empty string).
pub fn from_array(words: &[Value]) -> Result<TsVector, SqlError> {
    let mut lexemes = Vec::new();
    for w in words {
        match w {
            Value::Null => {
                return Err(SqlError::new("22004", "lexeme array may not contain nulls"));
            }
            Value::Text(t) if t.is_empty() => {
                return Err(SqlError::new(
                    "2200F",
                    "lexeme array may not contain empty strings",
                ));
            }
            Value::Text(t) => lexemes.push(Lexeme {
                word: t.clone(),
                positions: Vec::new(),
            }),
            _ => {}
        }
    }
    Ok(TsVector::from_lexemes(lexemes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(t: &str) -> TsVector {
        TsVector::parse(t).unwrap()
    }

    // Proves the edits give PostgreSQL 15's answers to tstypes.sql.
    #[test]
    fn edits_as_postgresql() {
        assert_eq!(
            concat(&v("a:3A b:2a"), &v("ba:1234 a:1B")).unwrap().text(),
            "'a':3A,4B 'b':2A 'ba':1237"
        );
        assert_eq!(
            concat(&v("a:1 c:5"), &v("a:2 b")).unwrap().text(),
            "'a':1,7 'b' 'c':5"
        );
        assert_eq!(
            strip(&v("w:12B w:13* w:12,5,6 a:1,3* a:3 w asd:1dc asd")).text(),
            "'a' 'asd' 'w'"
        );
        let only = [
            Value::Text("a".into()),
            Value::Text("zxc".into()),
            Value::Null,
        ];
        assert_eq!(
            setweight(
                &v("a:1,3A asd:1C w:5,6,12B,13A zxc:81,222A,567"),
                1,
                Some(&only)
            )
            .text(),
            "'a':1C,3C 'asd':1C 'w':5,6,12B,13A 'zxc':81C,222C,567C"
        );
        assert_eq!(
            filter(&v("base:7A empir:17 hidden:6A"), &[Value::Text("a".into())])
                .unwrap()
                .text(),
            "'base':7A 'hidden':6A"
        );
        assert_eq!(
            from_array(&[
                Value::Text("foo".into()),
                Value::Text("bar".into()),
                Value::Text("bar".into())
            ])
            .unwrap()
            .text(),
            "'bar' 'foo'"
        );
    }
}
