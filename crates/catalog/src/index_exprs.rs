//! Expression and partial indexes: what the catalog keeps of them (SQL
//! text), and the evaluator the SQL layer lends it to compute their
//! entries (design: the README's "Expression and partial indexes").

use crate::codec::{Reader, Writer};
use crate::defs::{IndexDef, TableDef};
use crate::error::CatalogError;
use folio_row::{SqlType, Value};
use std::sync::Arc;

/// An index's expressions and predicate; empty for an index over plain
/// columns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IndexExprs {
    /// The expression of each key position whose column is
    /// [`IndexDef::EXPRESSION`], in key order.
    pub keys: Vec<KeyExpr>,
    /// A partial index's `WHERE` predicate, as SQL text.
    pub predicate: Option<String>,
    /// The table columns (positions) the expressions and the predicate
    /// read: what DROP COLUMN and a column type change look at.
    pub reads: Vec<u16>,
    /// The index's included columns (`INCLUDE (c, ...)`, PostgreSQL's
    /// non-key attributes), by position: recorded, not part of the key,
    /// so uniqueness and order are the key's alone. Kept here, with the
    /// other parts of an index beyond its key columns, so every path that
    /// carries an index's definition (rebuilds, renames) carries them.
    pub include: Vec<u16>,
}

/// One expression key: its SQL text and the type of its values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyExpr {
    pub sql: String,
    pub type_oid: u32,
    pub typmod: i32,
}

impl KeyExpr {
    /// The type of the key's values.
    pub fn ty(&self) -> Result<SqlType, CatalogError> {
        SqlType::from_oid(self.type_oid, self.typmod).ok_or_else(|| {
            CatalogError::Corrupt(format!(
                "index expression {} of type oid {}",
                self.sql, self.type_oid
            ))
        })
    }
}

impl IndexExprs {
    /// No expression and no predicate: an index over plain columns.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.predicate.is_none()
    }

    /// Whether an index's `folio.class` row carries the tail
    /// ([`IndexExprs::encode`]): expressions, a predicate or included
    /// columns.
    pub(crate) fn is_stored(&self) -> bool {
        !self.is_empty() || !self.include.is_empty()
    }

    /// The tail of an index's `folio.class` row (written only when
    /// [`IndexExprs::is_stored`]: older rows have none). The included
    /// columns come last, only when there are some (rows written before
    /// them end at `reads`).
    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u16(self.keys.len() as u16);
        for key in &self.keys {
            w.str(&key.sql).u32(key.type_oid).i32(key.typmod);
        }
        match &self.predicate {
            Some(p) => w.u8(1).str(p),
            None => w.u8(0),
        };
        w.u16(self.reads.len() as u16);
        for &c in &self.reads {
            w.u16(c);
        }
        if !self.include.is_empty() {
            w.u16(self.include.len() as u16);
            for &c in &self.include {
                w.u16(c);
            }
        }
    }

    /// Reads what [`IndexExprs::encode`] wrote; an empty tail is none.
    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<IndexExprs, String> {
        if r.0.is_empty() {
            return Ok(IndexExprs::default());
        }
        let n = r.u16()?;
        let keys = (0..n)
            .map(|_| {
                Ok(KeyExpr {
                    sql: r.str()?,
                    type_oid: r.u32()?,
                    typmod: r.i32()?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let predicate = match r.u8()? {
            0 => None,
            1 => Some(r.str()?),
            other => return Err(format!("index predicate flag {other}")),
        };
        let m = r.u16()?;
        let reads = (0..m).map(|_| r.u16()).collect::<Result<_, _>>()?;
        let include = match r.0.is_empty() {
            true => Vec::new(),
            false => {
                let k = r.u16()?;
                (0..k).map(|_| r.u16()).collect::<Result<_, _>>()?
            }
        };
        Ok(IndexExprs {
            keys,
            predicate,
            reads,
            include,
        })
    }
}

/// Compiles the expressions and predicate of an index (the SQL layer's:
/// [`crate::Catalog::set_index_evaluator`]).
pub trait IndexEvaluator: Send + Sync + std::fmt::Debug {
    /// `index`'s expressions and predicate bound over `table`'s columns
    /// (of `types`).
    fn compile(
        &self,
        table: &TableDef,
        types: &[SqlType],
        index: &IndexDef,
    ) -> Result<Arc<dyn DerivedKeys>, CatalogError>;
}

/// An index's compiled expressions and predicate.
pub trait DerivedKeys: Send + Sync + std::fmt::Debug {
    /// The values of the expression keys for a row's `values` (by
    /// column position), in key order.
    fn expressions(&self, values: &[Value]) -> Result<Vec<Value>, CatalogError>;

    /// Whether the row has an entry: the predicate is true for it
    /// (always, without one).
    fn includes(&self, values: &[Value]) -> Result<bool, CatalogError>;

    /// The SQL layer's own view of itself (its bound expressions, for
    /// the planner).
    fn as_any(&self) -> &dyn std::any::Any;
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the stored tail reads back as written, and that no tail (a
    // row written before expressions existed) is a plain index.
    #[test]
    fn tail_round_trips() {
        let exprs = IndexExprs {
            keys: vec![KeyExpr {
                sql: "lower(name)".into(),
                type_oid: 25,
                typmod: -1,
            }],
            predicate: Some("NOT done".into()),
            reads: vec![1, 3],
            include: Vec::new(),
        };
        let mut w = Writer::default();
        exprs.encode(&mut w);
        let mut r = Reader(&w.0);
        assert_eq!(IndexExprs::decode(&mut r).unwrap(), exprs);
        r.end().unwrap();
        // Included columns alone: a plain index whose row has the tail.
        let covering = IndexExprs {
            include: vec![2, 0],
            ..IndexExprs::default()
        };
        assert!(covering.is_empty() && covering.is_stored());
        let mut w = Writer::default();
        covering.encode(&mut w);
        let mut r = Reader(&w.0);
        assert_eq!(IndexExprs::decode(&mut r).unwrap(), covering);
        r.end().unwrap();
        let mut empty = Reader(&[]);
        assert!(IndexExprs::decode(&mut empty).unwrap().is_empty());
    }
}
