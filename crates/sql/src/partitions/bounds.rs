//! A partition's bound, evaluated over its parent's key: whether a key
//! lies in it ([`Bound::holds`], the one owner of that rule: routing and
//! the partition constraint both ask it), whether two bounds overlap, and
//! the bound's text as PostgreSQL's `pg_get_expr(relpartbound, oid)`
//! prints it (what the catalog stores).

use super::syntax::{BoundSpec, EdgeSpec};
use super::{HASH, LIST, RANGE};
use crate::error::SqlError;
use crate::scalar::{self, Env, Scalar};
use crate::types;
use folio_catalog::TableDef;
use folio_row::{SqlType, Value};
use std::cmp::Ordering;

/// A partitioned table's key: its strategy and parts, each a column or
/// an expression over the table's columns (positions and types).
#[derive(Debug, Clone)]
pub struct Key {
    pub strategy: u8,
    /// Each part's column position (`EXPRESSION` for an expression).
    pub columns: Vec<usize>,
    pub types: Vec<SqlType>,
    /// Each part's expression, `None` for a column.
    pub exprs: Vec<Option<KeyExpr>>,
}

/// A key part computed by an expression (`PARTITION BY LIST (lower(a))`).
#[derive(Debug, Clone)]
pub struct KeyExpr {
    /// As stored (the catalog's text).
    pub sql: String,
    /// Bound over the partitioned table's columns.
    pub bound: Scalar,
}

/// A key part's position in [`Key::columns`] when it is an expression.
pub const EXPRESSION: usize = folio_catalog::Partition::EXPRESSION as usize;

impl Key {
    /// The key of `def`, if it is partitioned (`types`: its columns').
    pub fn of(def: &TableDef, types: &[SqlType]) -> Result<Option<Key>, SqlError> {
        let Some((strategy, columns)) = def.partition_key() else {
            return Ok(None);
        };
        let named: Vec<(String, SqlType)> = (def.columns.iter())
            .map(|c| c.name.clone())
            .zip(types.iter().copied())
            .collect();
        let mut stored = def.partition_key_exprs().iter();
        let mut key = Key {
            strategy,
            columns: Vec::with_capacity(columns.len()),
            types: Vec::with_capacity(columns.len()),
            exprs: Vec::with_capacity(columns.len()),
        };
        for &c in columns {
            let c = usize::from(c);
            key.columns.push(c);
            if c != EXPRESSION {
                key.types.push(types[c]);
                key.exprs.push(None);
                continue;
            }
            let Some(sql) = stored.next() else {
                return Err(SqlError::new(
                    "XX000",
                    "a partition key expression is missing",
                ));
            };
            let bound = scalar::bind(&crate::parse::expression(sql)?, &named[..])?;
            key.types.push(bound.ty(types));
            key.exprs.push(Some(KeyExpr {
                sql: sql.clone(),
                bound,
            }));
        }
        Ok(Some(key))
    }

    /// The key values of `row` (a row of the partitioned table); an
    /// expression's value is of its type (it cannot depend on the time:
    /// PostgreSQL's key expressions are immutable).
    pub fn values(&self, row: &[Value]) -> Result<Vec<Value>, SqlError> {
        let env = Env::at(0);
        (self.columns.iter().zip(&self.exprs))
            .map(|(&c, e)| match e {
                None => Ok(row[c].clone()),
                Some(e) => e.bound.eval(row, &env),
            })
            .collect()
    }

    /// Key part `k` as PostgreSQL's messages name it: the column, or the
    /// expression (a call as written, anything else parenthesized:
    /// `(b + 0)`).
    pub fn part_name(&self, def: &TableDef, k: usize) -> String {
        match &self.exprs[k] {
            None => def.columns[self.columns[k]].name.clone(),
            Some(e) => crate::index_exprs::key_text(&e.sql, true),
        }
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

/// 42804 unless every edge after a MINVALUE (MAXVALUE) is one too, as
/// PostgreSQL requires of a range bound.
fn infinite_last(edges: &[Edge]) -> Result<(), SqlError> {
    let Some(first) = edges.iter().position(|e| !matches!(e, Edge::Value(_))) else {
        return Ok(());
    };
    let infinite = &edges[first];
    if edges[first..].iter().all(|e| e == infinite) {
        return Ok(());
    }
    let word = match infinite {
        Edge::Min => "MINVALUE",
        _ => "MAXVALUE",
    };
    Err(SqlError::new(
        "42804",
        format!("every bound following {word} must also be {word}"),
    ))
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
                let (from, to) = (edges(from, "FROM")?, edges(to, "TO")?);
                infinite_last(&from)?;
                infinite_last(&to)?;
                Ok(Bound::Range { from, to })
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
