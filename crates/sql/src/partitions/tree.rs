//! A partitioned table's partitions with their bounds evaluated: where a
//! row goes ([`Tree::route`], the one owner of routing: INSERT, COPY, an
//! UPDATE that moves a row, and the partition constraint of a row
//! written into a partition directly all ask it), and which partitions a
//! query's WHERE leaves ([`Tree::prune`]).

use super::bounds::{Bound, Key};
use super::column_map::ColumnMap;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::scalar::{self, Env, Scalar};
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
    /// The partitioned table's columns to the partition's, when they are
    /// in another order (`column_map.rs`).
    pub map: Option<ColumnMap>,
}

/// A partitioned table's key and partitions, in creation order.
#[derive(Debug, Clone)]
pub struct Tree {
    pub name: String,
    pub key: Key,
    /// The key parts' names (a column's, or an expression's text).
    pub key_names: Vec<String>,
    pub parts: Vec<Part>,
}

/// A tree [`Tree::of`] built in a statement, with what it was built from.
#[derive(Debug)]
pub struct Built {
    oid: u64,
    partitions: Vec<(u64, String)>,
    tree: Tree,
}

impl Tree {
    /// The partitions of `def` (`None`: not partitioned): built once per
    /// statement for each partition list (`Ctx::partition_trees`; a DDL
    /// statement adding or removing a partition changes the list its
    /// later reads see, so never gets a stale tree).
    pub fn of(cx: &Ctx<'_>, txn: &Transaction, def: &TableDef) -> Result<Option<Tree>, SqlError> {
        if def.partition_key().is_none() {
            return Ok(None);
        }
        let found = (cx.partition_trees.borrow().iter())
            .find(|b| b.oid == def.oid && b.partitions == def.partitions)
            .map(|b| b.tree.clone());
        if let Some(tree) = found {
            return Ok(Some(tree));
        }
        let tree = Tree::build(cx, txn, def)?;
        if let Some(tree) = &tree {
            cx.partition_trees.borrow_mut().push(Built {
                oid: def.oid,
                partitions: def.partitions.clone(),
                tree: tree.clone(),
            });
        }
        Ok(tree)
    }

    /// [`Tree::of`], reading each partition's bound.
    fn build(cx: &Ctx<'_>, txn: &Transaction, def: &TableDef) -> Result<Option<Tree>, SqlError> {
        let types: Vec<_> = (0..def.columns.len())
            .map(|c| def.column_type(c).unwrap_or(folio_row::SqlType::Text))
            .collect();
        let Some(key) = Key::of(def, &types)? else {
            return Ok(None);
        };
        let env = Env::at(cx.now());
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
                map: ColumnMap::between(def, &child.def),
            });
        }
        Ok(Some(Tree {
            name: def.name.clone(),
            key_names: (0..key.columns.len())
                .map(|k| key.part_name(def, k))
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

    /// The key conditions among `conjuncts` (a WHERE's, over the table
    /// named `qualifier`): a conjunct comparing a key column with a value
    /// (`=`, `<`, `<=`, `>`, `>=`, `IN (...)`, either side), the value
    /// known now (a constant, evaluated with `env`) or when an execution
    /// starts (an expression over parameters: [`stable`]).
    pub fn conditions(
        &self,
        conjuncts: &[&Expr],
        qualifier: &str,
        env: &Env<'_>,
    ) -> Vec<Condition> {
        let mut out = Vec::new();
        for conjunct in conjuncts {
            self.condition(conjunct, qualifier, env, &mut out);
        }
        out
    }

    /// The partitions (by their positions) a row meeting `conditions`
    /// may lie in, as far as planning knows: the conditions whose values
    /// wait for an execution rule out nothing here.
    pub fn prune(&self, conditions: &[Condition]) -> Vec<usize> {
        let tests: Vec<(usize, Test)> = (conditions.iter())
            .filter_map(|c| Some((c.column, c.test(self.key.types[c.column], None)?)))
            .collect();
        self.keep(&tests)
    }

    /// The partitions a key passing every one of `tests` (key column,
    /// test) may lie in: the one owner of pruning, at planning
    /// ([`Tree::prune`]) and at an execution's start
    /// (`run_time::AtStart`). A test rules out the partitions whose bound
    /// holds no key passing it; a hash partition is ruled out only by
    /// every key column's `=`.
    pub fn keep(&self, tests: &[(usize, Test)]) -> Vec<usize> {
        let mut keep: Vec<usize> = (0..self.parts.len()).collect();
        let mut equal: Vec<Option<Value>> = vec![None; self.key.columns.len()];
        for (column, test) in tests {
            if let Test::Nothing = test {
                return Vec::new();
            }
            if let Test::Cmp(BinaryOperator::Eq, v) = test {
                equal[*column] = Some(v.clone());
            }
            if self.key.strategy == super::HASH {
                // One key column's list: the partitions its values hash to.
                if let Test::In(values) = test
                    && self.key.columns.len() == 1
                {
                    keep.retain(|&n| {
                        (values.iter()).any(|v| {
                            (self.parts[n].bound)
                                .holds(std::slice::from_ref(v))
                                .unwrap_or(true)
                        })
                    });
                }
                continue;
            }
            keep.retain(|&n| self.may_hold(n, *column, test).unwrap_or(true));
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
            Test::Nothing => return Ok(false),
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
                    Test::Nothing => Ok(false),
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

    /// The conditions of a conjunct `key_column op value` (either way
    /// round), `key_column IN (values)` or `key_column BETWEEN low AND
    /// high`, each value a constant or [`stable`], put in `out`.
    fn condition(&self, e: &Expr, qualifier: &str, env: &Env<'_>, out: &mut Vec<Condition>) {
        if let Expr::Between {
            expr,
            negated: false,
            low,
            high,
        } = e
        {
            for (op, bound) in [(BinaryOperator::GtEq, low), (BinaryOperator::LtEq, high)] {
                let compared = Expr::BinaryOp {
                    left: expr.clone(),
                    op,
                    right: bound.clone(),
                };
                self.condition(&compared, qualifier, env, out);
            }
            return;
        }
        if let Expr::Nested(inner) = e {
            return self.condition(inner, qualifier, env, out);
        }
        out.extend(self.comparison(e, qualifier, env));
    }

    /// A conjunct `key_column op value` (either way round) or `key_column
    /// IN (values)`.
    fn comparison(&self, e: &Expr, qualifier: &str, env: &Env<'_>) -> Option<Condition> {
        let column_of = |e: &Expr| -> Option<usize> {
            let name = match e {
                Expr::Identifier(id) => names::ident(id),
                Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                    if names::ident(&parts[0]) != qualifier {
                        return None;
                    }
                    names::ident(&parts[1])
                }
                Expr::Nested(inner) => {
                    return column_of_nested(inner, qualifier, &self.key_names)
                        .filter(|&k| self.key.exprs[k].is_none());
                }
                _ => return None,
            };
            (self.key_names.iter().zip(&self.key.exprs))
                .position(|(k, e)| *k == name && e.is_none())
        };
        let operand_of = |e: &Expr, column: usize| -> Option<Operand> {
            if !stable(e) {
                return None;
            }
            let none: &[(String, folio_row::SqlType)] = &[];
            let bound = scalar::bind(e, none).ok()?;
            if has_parameter(e) {
                return Some(Operand::AtStart(bound));
            }
            let v = bound.eval(&[], env).ok()?;
            let v = types::cast(v, self.key.types[column]).ok()?;
            (!matches!(v, Value::Null)).then_some(Operand::Known(v))
        };
        match e {
            Expr::BinaryOp { left, op, right } => {
                let flipped = match op {
                    BinaryOperator::Eq => BinaryOperator::Eq,
                    BinaryOperator::Lt => BinaryOperator::Gt,
                    BinaryOperator::LtEq => BinaryOperator::GtEq,
                    BinaryOperator::Gt => BinaryOperator::Lt,
                    BinaryOperator::GtEq => BinaryOperator::LtEq,
                    _ => return None,
                };
                let (column, op, value) = match column_of(left) {
                    Some(c) => (c, op.clone(), right),
                    None => (column_of(right)?, flipped, left),
                };
                Some(Condition {
                    column,
                    op: Some(op),
                    operands: vec![operand_of(value, column)?],
                })
            }
            Expr::InList {
                expr,
                list,
                negated: false,
            } => {
                let column = column_of(expr)?;
                let operands = (list.iter())
                    .map(|e| operand_of(e, column))
                    .collect::<Option<Vec<_>>>()?;
                Some(Condition {
                    column,
                    op: None,
                    operands,
                })
            }
            _ => None,
        }
    }
}

/// One WHERE conjunct's test of a key column: `column op operands[0]`,
/// or `column IN (operands)` (`op` `None`).
#[derive(Debug, Clone)]
pub struct Condition {
    column: usize,
    op: Option<BinaryOperator>,
    operands: Vec<Operand>,
}

/// A value a key column is compared with.
#[derive(Debug, Clone)]
enum Operand {
    /// Known while planning (a constant's value, of the key's type).
    Known(Value),
    /// Known when an execution starts: an expression over parameters.
    AtStart(Scalar),
}

impl Condition {
    /// Whether a value of it waits for an execution's parameters.
    pub fn at_start(&self) -> bool {
        (self.operands.iter()).any(|o| matches!(o, Operand::AtStart(_)))
    }

    /// Its test of a key of type `ty`: `None` when it tests nothing
    /// known (a value waiting for an execution, `execution` being
    /// `None`; or one that fails to evaluate or cast, which the scan's
    /// own condition raises or rejects). A NULL compared with the key
    /// passes no key, as PostgreSQL's strict comparisons; in an IN list
    /// it is one value that matches none.
    pub fn test(&self, ty: folio_row::SqlType, execution: Option<&Env<'_>>) -> Option<Test> {
        let mut values = Vec::with_capacity(self.operands.len());
        for operand in &self.operands {
            let v = match operand {
                Operand::Known(v) => v.clone(),
                Operand::AtStart(e) => {
                    let v = e.eval(&[], execution?).ok()?;
                    types::cast(v, ty).ok()?
                }
            };
            if !matches!(v, Value::Null) {
                values.push(v);
            }
        }
        match &self.op {
            None => Some(Test::In(values)),
            Some(op) => match values.pop() {
                Some(v) => Some(Test::Cmp(op.clone(), v)),
                None => Some(Test::Nothing),
            },
        }
    }

    /// The key column it tests (its number in the key).
    pub fn column(&self) -> usize {
        self.column
    }
}

/// Whether `e` has one value over an execution, known once its
/// parameters are: parameters `$n`, constants, casts, signs and
/// arithmetic of them (no function call: a volatile one may change per
/// row, and a stable one's value is left to the scan).
pub fn stable(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Placeholder(p) => crate::params::parameter(p).is_some(),
            _ => true,
        },
        Expr::UnaryOp { expr, .. } | Expr::Nested(expr) | Expr::Cast { expr, .. } => stable(expr),
        Expr::BinaryOp { left, op, right } => {
            matches!(
                op,
                BinaryOperator::Plus
                    | BinaryOperator::Minus
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide
                    | BinaryOperator::Modulo
            ) && stable(left)
                && stable(right)
        }
        _ => false,
    }
}

/// Whether `e` (a [`stable`] expression) reads a parameter.
fn has_parameter(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => matches!(&v.value, sqlparser::ast::Value::Placeholder(_)),
        Expr::UnaryOp { expr, .. } | Expr::Nested(expr) | Expr::Cast { expr, .. } => {
            has_parameter(expr)
        }
        Expr::BinaryOp { left, right, .. } => has_parameter(left) || has_parameter(right),
        _ => false,
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

/// What a conjunct asks of a key column.
pub enum Test {
    Cmp(BinaryOperator, Value),
    In(Vec<Value>),
    /// A comparison with NULL: no key passes.
    Nothing,
}

/// Whether `v` passes `test`.
fn passes(v: &Value, test: &Test) -> Result<bool, SqlError> {
    match test {
        Test::Nothing => Ok(false),
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
