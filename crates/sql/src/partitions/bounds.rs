//! A partition's bound, evaluated over its parent's key: whether a key
//! lies in it ([`Bound::holds`], the one owner of that rule: routing and
//! the partition constraint both ask it), whether two bounds overlap, and
//! the bound's text as PostgreSQL's `pg_get_expr(relpartbound, oid)`
//! prints it (what the catalog stores).

use super::syntax::{BoundSpec, EdgeSpec};
use super::{HASH, LIST, RANGE};
use crate::error::SqlError;
use crate::scalar::{self, Env};
use crate::types;
use folio_catalog::TableDef;
use folio_row::{SqlType, Value};
use std::cmp::Ordering;

/// A partitioned table's key: its strategy and columns (positions and
/// types).
#[derive(Debug, Clone)]
pub struct Key {
    pub strategy: u8,
    pub columns: Vec<usize>,
    pub types: Vec<SqlType>,
}

impl Key {
    /// The key of `def`, if it is partitioned (`types`: its columns').
    pub fn of(def: &TableDef, types: &[SqlType]) -> Option<Key> {
        let (strategy, columns) = def.partition_key()?;
        let columns: Vec<usize> = columns.iter().map(|&c| usize::from(c)).collect();
        Some(Key {
            strategy,
            types: columns.iter().map(|&c| types[c]).collect(),
            columns,
        })
    }

    /// The key values of `row` (a row of the partitioned table).
    pub fn values(&self, row: &[Value]) -> Vec<Value> {
        self.columns.iter().map(|&c| row[c].clone()).collect()
    }
}

/// One value of a range bound.
#[derive(Debug, Clone, PartialEq)]
pub enum Edge {
    Min,
    Value(Value),
    Max,
}

/// A partition's bound.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// `FROM (from) TO (to)`: keys from `from` (included) up to `to`
    /// (excluded), compared as rows.
    Range { from: Vec<Edge>, to: Vec<Edge> },
    /// `IN (values)` (NULL among them takes NULL keys).
    List(Vec<Value>),
    /// `WITH (MODULUS m, REMAINDER r)`.
    Hash { modulus: u64, remainder: u64 },
    /// `DEFAULT`: the keys no other partition takes.
    Default,
}

fn invalid(strategy: u8) -> SqlError {
    let name = match strategy {
        RANGE => "range",
        LIST => "list",
        _ => "hash",
    };
    SqlError::new(
        "42P16",
        format!("invalid bound specification for a {name} partition"),
    )
}

/// The constant `expr` as a value of `ty`.
fn constant(expr: &sqlparser::ast::Expr, ty: SqlType, env: &Env<'_>) -> Result<Value, SqlError> {
    let none: &[(String, SqlType)] = &[];
    let bound = scalar::bind(expr, none).map_err(|e| match e.code {
        "42703" | "42P01" => SqlError::new(
            "42P16",
            "cannot use column reference in partition bound expression",
        ),
        _ => e,
    })?;
    let value = bound.eval(&[], env)?;
    match value {
        Value::Null => Ok(Value::Null),
        v => types::cast(v, ty),
    }
}

impl Bound {
    /// `spec` evaluated over `key` (42P16 for a bound of another
    /// strategy, a wrong number of values, a bad modulus or remainder).
    pub fn evaluate(spec: &BoundSpec, key: &Key, env: &Env<'_>) -> Result<Bound, SqlError> {
        match (spec, key.strategy) {
            (BoundSpec::Default, HASH) => Err(SqlError::new(
                "42P16",
                "a hash-partitioned table may not have a default partition",
            )),
            (BoundSpec::Default, _) => Ok(Bound::Default),
            (BoundSpec::Range { from, to }, RANGE) => {
                let edges = |list: &[EdgeSpec], which: &str| {
                    if list.len() != key.columns.len() {
                        return Err(SqlError::new(
                            "42P16",
                            format!(
                                "{which} must specify exactly one value per partitioning column"
                            ),
                        ));
                    }
                    (list.iter().zip(&key.types))
                        .map(|(e, &ty)| match e {
                            EdgeSpec::Min => Ok(Edge::Min),
                            EdgeSpec::Max => Ok(Edge::Max),
                            EdgeSpec::Value(expr) => match constant(expr, ty, env)? {
                                Value::Null => Err(SqlError::new(
                                    "22004",
                                    "cannot specify NULL in range bound",
                                )),
                                v => Ok(Edge::Value(v)),
                            },
                        })
                        .collect::<Result<Vec<_>, _>>()
                };
                Ok(Bound::Range {
                    from: edges(from, "FROM")?,
                    to: edges(to, "TO")?,
                })
            }
            (BoundSpec::List(values), LIST) => {
                let mut out: Vec<Value> = Vec::new();
                for expr in values {
                    let v = constant(expr, key.types[0], env)?;
                    if !out.contains(&v) {
                        out.push(v);
                    }
                }
                Ok(Bound::List(out))
            }
            (BoundSpec::Hash { modulus, remainder }, HASH) => {
                let int = |e| match constant(e, SqlType::Int4, env)? {
                    Value::Int4(v) => Ok(i64::from(v)),
                    _ => Err(invalid(HASH)),
                };
                let (m, r) = (int(modulus)?, int(remainder)?);
                if m <= 0 {
                    return Err(SqlError::new(
                        "42P16",
                        "modulus for hash partition must be an integer value greater than zero",
                    ));
                }
                if r < 0 {
                    return Err(SqlError::new(
                        "42P16",
                        "remainder for hash partition must be an integer value greater than or equal to zero",
                    ));
                }
                if r >= m {
                    return Err(SqlError::new(
                        "42P16",
                        "remainder for hash partition must be less than modulus",
                    ));
                }
                Ok(Bound::Hash {
                    modulus: m as u64,
                    remainder: r as u64,
                })
            }
            (_, strategy) => Err(invalid(strategy)),
        }
    }

    /// Whether a row whose key values are `key` lies in the bound (a
    /// default partition's: the caller asks the other partitions).
    pub fn holds(&self, key: &[Value]) -> Result<bool, SqlError> {
        Ok(match self {
            Bound::Range { from, to } => {
                if key.iter().any(|v| matches!(v, Value::Null)) {
                    return Ok(false);
                }
                key_to_edges(key, from)? != Ordering::Less
                    && key_to_edges(key, to)? == Ordering::Less
            }
            Bound::List(values) => match &key[0] {
                Value::Null => values.contains(&Value::Null),
                k => {
                    let mut found = false;
                    for v in values {
                        if scalar::compare(k, v)? == Some(Ordering::Equal) {
                            found = true;
                            break;
                        }
                    }
                    found
                }
            },
            Bound::Hash { modulus, remainder } => {
                super::hash::row_hash(key)? % modulus == *remainder
            }
            Bound::Default => true,
        })
    }

    /// PostgreSQL's text of the bound (`FOR VALUES FROM (MINVALUE) TO
    /// (10)`, `FOR VALUES IN (1, 2)`, `FOR VALUES WITH (modulus 4,
    /// remainder 0)`, `DEFAULT`).
    pub fn text(&self) -> String {
        let edges = |list: &[Edge]| {
            (list.iter())
                .map(|e| match e {
                    Edge::Min => "MINVALUE".to_string(),
                    Edge::Max => "MAXVALUE".to_string(),
                    Edge::Value(v) => literal(v),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Bound::Range { from, to } => {
                format!("FOR VALUES FROM ({}) TO ({})", edges(from), edges(to))
            }
            Bound::List(values) => format!(
                "FOR VALUES IN ({})",
                values.iter().map(literal).collect::<Vec<_>>().join(", ")
            ),
            Bound::Hash { modulus, remainder } => {
                format!("FOR VALUES WITH (modulus {modulus}, remainder {remainder})")
            }
            Bound::Default => "DEFAULT".to_string(),
        }
    }

    /// Whether no key lies in both bounds (two defaults overlap).
    pub fn overlaps(&self, other: &Bound) -> Result<bool, SqlError> {
        Ok(match (self, other) {
            (Bound::Range { from: f1, to: t1 }, Bound::Range { from: f2, to: t2 }) => {
                edges_cmp(f1, t2)? == Ordering::Less && edges_cmp(f2, t1)? == Ordering::Less
            }
            (Bound::List(a), Bound::List(b)) => {
                let mut any = false;
                for v in a {
                    if Bound::List(b.clone()).holds(std::slice::from_ref(v))? {
                        any = true;
                    }
                }
                any
            }
            (
                Bound::Hash {
                    modulus: m1,
                    remainder: r1,
                },
                Bound::Hash {
                    modulus: m2,
                    remainder: r2,
                },
            ) => {
                let m = (*m1).min(*m2);
                r1 % m == r2 % m
            }
            (Bound::Default, Bound::Default) => true,
            _ => false,
        })
    }

    /// A range bound whose lower end is not below its upper end: the
    /// two ends' text for PostgreSQL's DETAIL.
    pub fn empty_range(&self) -> Result<Option<(String, String)>, SqlError> {
        let Bound::Range { from, to } = self else {
            return Ok(None);
        };
        if edges_cmp(from, to)? == Ordering::Less {
            return Ok(None);
        }
        let text = |list: &[Edge]| {
            (list.iter())
                .map(|e| match e {
                    Edge::Min => "MINVALUE".to_string(),
                    Edge::Max => "MAXVALUE".to_string(),
                    Edge::Value(v) => types::text_output(v).unwrap_or_default(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        Ok(Some((text(from), text(to))))
    }
}

/// A bound value as PostgreSQL prints it in a bound: numbers bare (a
/// negative one quoted), booleans bare, other values quoted.
fn literal(v: &Value) -> String {
    let text = types::text_output(v);
    match (v, text) {
        (_, None) => "NULL".to_string(),
        (
            Value::Int2(_) | Value::Int4(_) | Value::Int8(_) | Value::Float8(_) | Value::Numeric(_),
            Some(t),
        ) if !t.starts_with('-') => t,
        (Value::Bool(b), _) => b.to_string(),
        (_, Some(t)) => format!("'{}'", t.replace('\'', "''")),
    }
}

/// A key against a range bound's values, as rows: MINVALUE is below
/// every value, MAXVALUE above, and decides the comparison where met.
fn key_to_edges(key: &[Value], edges: &[Edge]) -> Result<Ordering, SqlError> {
    for (k, e) in key.iter().zip(edges) {
        match e {
            Edge::Min => return Ok(Ordering::Greater),
            Edge::Max => return Ok(Ordering::Less),
            Edge::Value(v) => match scalar::compare(k, v)? {
                Some(Ordering::Equal) => {}
                Some(order) => return Ok(order),
                None => return Ok(Ordering::Greater),
            },
        }
    }
    Ok(Ordering::Equal)
}

/// Two range bounds' values, as rows (MINVALUE and MAXVALUE end the
/// comparison).
pub(super) fn edges_cmp(a: &[Edge], b: &[Edge]) -> Result<Ordering, SqlError> {
    for (x, y) in a.iter().zip(b) {
        let order = match (x, y) {
            (Edge::Min, Edge::Min) | (Edge::Max, Edge::Max) => return Ok(Ordering::Equal),
            (Edge::Min, _) | (_, Edge::Max) => Ordering::Less,
            (_, Edge::Min) | (Edge::Max, _) => Ordering::Greater,
            (Edge::Value(v), Edge::Value(w)) => scalar::compare(v, w)?.unwrap_or(Ordering::Equal),
        };
        if order != Ordering::Equal {
            return Ok(order);
        }
    }
    Ok(Ordering::Equal)
}
