//! A partitioned table's partitions with their bounds evaluated: where a
//! row goes ([`Tree::route`], the one owner of routing: INSERT, COPY, an
//! UPDATE that moves a row, and the partition constraint of a row
//! written into a partition directly all ask it), and which partitions a
//! query's WHERE leaves ([`Tree::prune`]).

use super::bounds::{Bound, Key};
use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::scalar::{self, Env};
use crate::types;
use folio_catalog::TableDef;
use folio_db::Transaction;
use folio_row::Value;
use sqlparser::ast::{BinaryOperator, Expr};
use std::cmp::Ordering;

/// One partition.
#[derive(Debug, Clone)]
pub struct Part {
    pub oid: u64,
    pub name: String,
    pub bound: Bound,
}

/// A partitioned table's key and partitions, in creation order.
#[derive(Debug, Clone)]
pub struct Tree {
    pub name: String,
    pub key: Key,
    /// The key columns' names.
    pub key_names: Vec<String>,
    pub parts: Vec<Part>,
}

impl Tree {
    /// The partitions of `def` (`None`: not partitioned).
    pub fn of(cx: &Ctx<'_>, txn: &Transaction, def: &TableDef) -> Result<Option<Tree>, SqlError> {
        let types: Vec<_> = (0..def.columns.len())
            .map(|c| def.column_type(c).unwrap_or(folio_row::SqlType::Text))
            .collect();
        let Some(key) = Key::of(def, &types) else {
            return Ok(None);
        };
        let env = Env::at(cx.now);
        let mut parts = Vec::with_capacity(def.partitions.len());
        for (oid, name) in &def.partitions {
            let child = crate::access::relation(cx, txn, name)?;
            let Some((_, text)) = child.def.partition_of() else {
                continue;
            };
            let spec = super::syntax::bound_from_text(text)?;
            parts.push(Part {
                oid: *oid,
                name: name.clone(),
                bound: Bound::evaluate(&spec, &key, &env)?,
            });
        }
        Ok(Some(Tree {
            name: def.name.clone(),
            key_names: key
                .columns
                .iter()
                .map(|&c| def.columns[c].name.clone())
                .collect(),
            key,
            parts,
        }))
    }

    /// The partition a row with key values `key` goes to: the first whose
    /// bound holds, else the default partition; `None`: none.
    pub fn route(&self, key: &[Value]) -> Result<Option<usize>, SqlError> {
        let mut default = None;
        for (n, part) in self.parts.iter().enumerate() {
            match part.bound {
                Bound::Default => default = Some(n),
                ref bound if bound.holds(key)? => return Ok(Some(n)),
                _ => {}
            }
        }
        Ok(default)
    }

    /// 23514 for a row no partition takes.
    pub fn no_partition(&self, key: &[Value]) -> SqlError {
        let values: Vec<String> = (key.iter())
            .map(|v| types::text_output(v).unwrap_or_else(|| "null".into()))
            .collect();
        SqlError::new(
            "23514",
            format!(
                "no partition of relation \"{}\" found for row",
                folio_catalog::unqualified(&self.name)
            ),
        )
        .with_detail(format!(
            "Partition key of the failing row contains ({}) = ({}).",
            self.key_names.join(", "),
            values.join(", ")
        ))
    }

    /// The partitions a row meeting every one of `conjuncts` (a WHERE's,
    /// over the table named `qualifier`) may lie in, by their positions:
    /// a conjunct comparing a key column with a constant (`=`, `<`,
    /// `<=`, `>`, `>=`, `IN (...)`) rules out the partitions whose bound
    /// holds no such key. Others rule out nothing.
    pub fn prune(&self, conjuncts: &[&Expr], qualifier: &str, env: &Env<'_>) -> Vec<usize> {
        let mut keep: Vec<usize> = (0..self.parts.len()).collect();
        // A hash partition is found by every key column's value.
        let mut equal: Vec<Option<Value>> = vec![None; self.key.columns.len()];
        for conjunct in conjuncts {
            let Some((column, test)) = self.condition(conjunct, qualifier, env) else {
                continue;
            };
            if let Test::Cmp(BinaryOperator::Eq, v) = &test {
                equal[column] = Some(v.clone());
            }
            if self.key.strategy == super::HASH {
                continue;
            }
            keep.retain(|&n| self.may_hold(n, column, &test).unwrap_or(true));
        }
        if self.key.strategy == super::HASH
            && let Some(key) = equal.into_iter().collect::<Option<Vec<Value>>>()
        {
            keep.retain(|&n| self.parts[n].bound.holds(&key).unwrap_or(true));
        }
        keep
    }

    /// Whether partition `n` may hold a key whose column `column` passes
    /// `test`.
    fn may_hold(&self, n: usize, column: usize, test: &Test) -> Result<bool, SqlError> {
        let values: &[Value] = match test {
            Test::In(values) => values,
            Test::Cmp(_, v) => std::slice::from_ref(v),
        };
        match &self.parts[n].bound {
            // The default takes what the others do not: kept unless
            // another partition holds every value an equality asks.
            Bound::Default => {
                if let Test::Cmp(op, _) = test
                    && *op != BinaryOperator::Eq
                {
                    return Ok(true);
                }
                if self.key.columns.len() != 1 {
                    return Ok(true);
                }
                for v in values {
                    let routed = self.route(std::slice::from_ref(v))?;
                    if routed.is_none_or(|r| r == n) {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Bound::List(list) => {
                for item in list {
                    if passes(item, test)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Bound::Range { from, to } => {
                // Only the first key column's range is known (later
                // columns' depend on the earlier ones').
                if column != 0 {
                    return Ok(true);
                }
                use super::bounds::Edge;
                let low = match &from[0] {
                    Edge::Value(v) => Some(v),
                    _ => None,
                };
                let high = match &to[0] {
                    Edge::Value(v) => Some(v),
                    _ => None,
                };
                // Does [low, high] (high included when more columns
                // follow, excluded otherwise) meet the values passing?
                let high_included = self.key.columns.len() > 1;
                let above_low = |v: &Value| -> Result<bool, SqlError> {
                    Ok(match (low, &from[0]) {
                        (Some(l), _) => scalar::compare(v, l)? != Some(Ordering::Less),
                        (None, Edge::Max) => false,
                        _ => true,
                    })
                };
                let below_high = |v: &Value, strict: bool| -> Result<bool, SqlError> {
                    Ok(match (high, &to[0]) {
                        (Some(h), _) => match scalar::compare(v, h)? {
                            Some(Ordering::Less) => true,
                            Some(Ordering::Equal) => !strict,
                            _ => false,
                        },
                        (None, Edge::Min) => false,
                        _ => true,
                    })
                };
                match test {
                    Test::In(values) => {
                        for v in values {
                            if above_low(v)? && below_high(v, !high_included)? {
                                return Ok(true);
                            }
                        }
                        Ok(false)
                    }
                    Test::Cmp(op, v) => Ok(match op {
                        BinaryOperator::Eq => above_low(v)? && below_high(v, !high_included)?,
                        // key < v: the partition's low end is below v.
                        BinaryOperator::Lt => {
                            low.is_none_or(|l| {
                                scalar::compare(l, v).ok().flatten() == Some(Ordering::Less)
                            }) && !matches!(from[0], Edge::Max)
                        }
                        BinaryOperator::LtEq => {
                            low.is_none_or(|l| {
                                scalar::compare(l, v).ok().flatten() != Some(Ordering::Greater)
                            }) && !matches!(from[0], Edge::Max)
                        }
                        // key > v or key >= v: its high end is above v.
                        BinaryOperator::Gt | BinaryOperator::GtEq => {
                            high.is_none_or(|h| {
                                scalar::compare(h, v).ok().flatten() == Some(Ordering::Greater)
                                    || (high_included
                                        && scalar::compare(h, v).ok().flatten()
                                            == Some(Ordering::Equal))
                            }) && !matches!(to[0], Edge::Min)
                        }
                        _ => true,
                    }),
                }
            }
            Bound::Hash { .. } => Ok(true),
        }
    }

    /// A conjunct `key_column op constant` (either way round) or `key_column
    /// IN (constants)`: the key column's number in the key and the test.
    fn condition(&self, e: &Expr, qualifier: &str, env: &Env<'_>) -> Option<(usize, Test)> {
        let column_of = |e: &Expr| -> Option<usize> {
            let name = match e {
                Expr::Identifier(id) => names::ident(id),
                Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                    if names::ident(&parts[0]) != qualifier {
                        return None;
                    }
                    names::ident(&parts[1])
                }
                Expr::Nested(inner) => return column_of_nested(inner, qualifier, &self.key_names),
                _ => return None,
            };
            self.key_names.iter().position(|k| *k == name)
        };
        let value_of = |e: &Expr, column: usize| -> Option<Value> {
            if !is_constant(e) {
                return None;
            }
            let none: &[(String, folio_row::SqlType)] = &[];
            let v = scalar::bind(e, none).ok()?.eval(&[], env).ok()?;
            let v = types::cast(v, self.key.types[column]).ok()?;
            (!matches!(v, Value::Null)).then_some(v)
        };
        match e {
            Expr::Nested(inner) => self.condition(inner, qualifier, env),
            Expr::BinaryOp { left, op, right } => {
                let flipped = match op {
                    BinaryOperator::Eq => BinaryOperator::Eq,
                    BinaryOperator::Lt => BinaryOperator::Gt,
                    BinaryOperator::LtEq => BinaryOperator::GtEq,
                    BinaryOperator::Gt => BinaryOperator::Lt,
                    BinaryOperator::GtEq => BinaryOperator::LtEq,
                    _ => return None,
                };
                if let Some(c) = column_of(left) {
                    return Some((c, Test::Cmp(op.clone(), value_of(right, c)?)));
                }
                let c = column_of(right)?;
                Some((c, Test::Cmp(flipped, value_of(left, c)?)))
            }
            Expr::InList {
                expr,
                list,
                negated: false,
            } => {
                let c = column_of(expr)?;
                let values = (list.iter())
                    .map(|e| value_of(e, c))
                    .collect::<Option<Vec<_>>>()?;
                Some((c, Test::In(values)))
            }
            _ => None,
        }
    }
}

fn column_of_nested(e: &Expr, qualifier: &str, key_names: &[String]) -> Option<usize> {
    match e {
        Expr::Identifier(id) => key_names.iter().position(|k| *k == names::ident(id)),
        Expr::CompoundIdentifier(parts)
            if parts.len() == 2 && names::ident(&parts[0]) == qualifier =>
        {
            key_names.iter().position(|k| *k == names::ident(&parts[1]))
        }
        _ => None,
    }
}

/// A literal, possibly signed or cast.
fn is_constant(e: &Expr) -> bool {
    match e {
        Expr::Value(_) => true,
        Expr::UnaryOp { expr, .. } | Expr::Nested(expr) => is_constant(expr),
        Expr::Cast { expr, .. } => is_constant(expr),
        _ => false,
    }
}

/// What a conjunct asks of a key column.
enum Test {
    Cmp(BinaryOperator, Value),
    In(Vec<Value>),
}

/// Whether `v` passes `test`.
fn passes(v: &Value, test: &Test) -> Result<bool, SqlError> {
    match test {
        Test::In(values) => {
            for w in values {
                if scalar::compare(v, w)? == Some(Ordering::Equal) {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Test::Cmp(op, w) => {
            let order = scalar::compare(v, w)?;
            Ok(match op {
                BinaryOperator::Eq => order == Some(Ordering::Equal),
                BinaryOperator::Lt => order == Some(Ordering::Less),
                BinaryOperator::LtEq => matches!(order, Some(Ordering::Less | Ordering::Equal)),
                BinaryOperator::Gt => order == Some(Ordering::Greater),
                BinaryOperator::GtEq => {
                    matches!(order, Some(Ordering::Greater | Ordering::Equal))
                }
                _ => true,
            })
        }
    }
}
