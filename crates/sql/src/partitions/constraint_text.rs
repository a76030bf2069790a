//! PostgreSQL's text of a partitioned table's key (`pg_get_partkeydef`)
//! and of a partition's implied constraint
//! (`pg_get_partition_constraintdef`, psql's "Partition constraint:"),
//! built from the bounds as PostgreSQL 15 builds its partition quals
//! (README "Partitioned tables"). Only text: whether a row lies in a
//! partition is [`Bound::holds`]'s to decide.
//!
//! A constraint is a list of conditions ANDed together: the parent's when
//! the partitioned table is a partition itself, then the key columns'
//! `IS NOT NULL` tests and the bound's comparisons. A range bound whose
//! leading values are equal on both sides gives `col = v` for them, then
//! an OR of "arms" for the lower bound (`a > l1 OR (a = l1 AND b >= l2)`)
//! and one for the upper; MINVALUE and MAXVALUE end an arm list early
//! (everything is above MINVALUE, below MAXVALUE). A default partition's
//! is the negation of the other partitions' conditions, ordered as
//! PostgreSQL orders its partitions (by bound).

use super::bounds::{Bound, Edge, Key, edges_cmp};
use super::{LIST, RANGE};
use crate::error::SqlError;
use crate::names;
use folio_catalog::TableDef;
use folio_row::{SqlType, Value};
use std::cmp::Ordering;

/// `pg_get_partkeydef`'s text of a partitioned table's key: `RANGE (a,
/// b)`, `LIST (a)`, `HASH (a)`.
pub fn key_text(def: &TableDef) -> Option<String> {
    let (strategy, columns) = def.partition_key()?;
    let name = match strategy {
        RANGE => "RANGE",
        LIST => "LIST",
        _ => "HASH",
    };
    let mut exprs = def.partition_key_exprs().iter();
    let columns: Vec<String> = (columns.iter())
        .map(|&c| match c == folio_catalog::Partition::EXPRESSION {
            false => names::written(&def.columns[usize::from(c)].name).to_string(),
            true => {
                (exprs.next()).map_or_else(String::new, |e| crate::index_exprs::key_text(e, false))
            }
        })
        .collect();
    Some(format!("{name} ({})", columns.join(", ")))
}

/// A partitioned table as the constraint of one of its partitions needs
/// it: its oid, key, the key columns' text and its partitions' bounds in
/// creation order.
pub struct Parent<'a> {
    pub oid: u64,
    pub def: &'a TableDef,
    pub key: Key,
    /// The partitions' oids and bounds.
    pub bounds: Vec<(u64, Bound)>,
}

impl<'a> Parent<'a> {
    /// Partitioned table `def` (`None`: not partitioned), its partitions'
    /// definitions found by oid through `table`.
    pub fn of(
        def: &'a TableDef,
        table: impl Fn(u64) -> Option<&'a TableDef>,
    ) -> Result<Option<Parent<'a>>, SqlError> {
        let types: Vec<SqlType> = (0..def.columns.len())
            .map(|c| def.column_type(c).unwrap_or(SqlType::Text))
            .collect();
        let Some(key) = Key::of(def, &types)? else {
            return Ok(None);
        };
        let env = crate::scalar::Env::at(0);
        let mut bounds = Vec::with_capacity(def.partitions.len());
        for (oid, _) in &def.partitions {
            let Some((_, text)) = table(*oid).and_then(TableDef::partition_of) else {
                continue;
            };
            let spec = super::syntax::bound_from_text(text)?;
            bounds.push((*oid, Bound::evaluate(&spec, &key, &env)?));
        }
        Ok(Some(Parent {
            oid: def.oid,
            def,
            key,
            bounds,
        }))
    }

    /// The conditions partition `oid` implies (empty: none, as
    /// PostgreSQL's NULL).
    pub fn conditions(&self, oid: u64) -> Result<Vec<String>, SqlError> {
        let Some((_, bound)) = self.bounds.iter().find(|(o, _)| *o == oid) else {
            return Ok(Vec::new());
        };
        let quals = match bound {
            Bound::Range { from, to } => {
                let mut out = self.not_nulls();
                out.extend(self.range_arms(from, to)?);
                out
            }
            Bound::List(values) => self.list(values.clone()),
            Bound::Hash { modulus, remainder } => {
                let columns: Vec<String> = (0..self.key.columns.len())
                    .map(|k| self.column(k))
                    .collect();
                vec![Qual::Text(format!(
                    "satisfies_hash_partition('{}'::oid, {modulus}, {remainder}, {})",
                    self.oid,
                    columns.join(", ")
                ))]
            }
            Bound::Default => match self.default()? {
                Some(q) => vec![q],
                None => Vec::new(),
            },
        };
        Ok(quals.iter().map(|q| self.render(q)).collect())
    }

    /// `col IS NOT NULL` for each key column.
    fn not_nulls(&self) -> Vec<Qual> {
        (0..self.key.columns.len()).map(Qual::NotNull).collect()
    }

    /// A range bound's comparisons, without the NULL tests.
    fn range_arms(&self, from: &[Edge], to: &[Edge]) -> Result<Vec<Qual>, SqlError> {
        let n = from.len();
        let mut out = Vec::new();
        let mut i = 0;
        while i < n {
            match (&from[i], &to[i]) {
                (Edge::Value(a), Edge::Value(b))
                    if crate::scalar::compare(a, b)? == Some(Ordering::Equal) =>
                {
                    out.push(Qual::Cmp(i, "=", a.clone()));
                    i += 1;
                }
                _ => break,
            }
        }
        let value = |e: &Edge| match e {
            Edge::Value(v) => Some(v.clone()),
            _ => None,
        };
        // Lower: col_j > l_j after equal columns; `>=` on the last column
        // or before a MINVALUE (which every value passes).
        let mut lower = Vec::new();
        for j in i..n {
            let Some(v) = value(&from[j]) else { break };
            let next = from.get(j + 1);
            let op = match next {
                None | Some(Edge::Min) => ">=",
                _ => ">",
            };
            lower.push(self.arm(from, i, j, op, v));
            if !matches!(next, Some(Edge::Value(_))) {
                break;
            }
        }
        // Upper: col_j < u_j after equal columns; `<=` before a MAXVALUE.
        let mut upper = Vec::new();
        for j in i..n {
            let Some(v) = value(&to[j]) else { break };
            let next = to.get(j + 1);
            let op = match next {
                Some(Edge::Max) => "<=",
                _ => "<",
            };
            upper.push(self.arm(to, i, j, op, v));
            if !matches!(next, Some(Edge::Value(_))) {
                break;
            }
        }
        out.extend(
            [lower, upper]
                .into_iter()
                .filter_map(|arms| match arms.len() {
                    0 => None,
                    1 => arms.into_iter().next(),
                    _ => Some(Qual::Or(arms)),
                }),
        );
        Ok(out)
    }

    /// One arm: the columns from `i` before `j` equal to `edges`', then
    /// `col_j op v`.
    fn arm(&self, edges: &[Edge], i: usize, j: usize, op: &'static str, v: Value) -> Qual {
        let mut parts: Vec<Qual> = (i..j)
            .filter_map(|k| match &edges[k] {
                Edge::Value(w) => Some(Qual::Cmp(k, "=", w.clone())),
                _ => None,
            })
            .collect();
        parts.push(Qual::Cmp(j, op, v));
        and(parts)
    }

    /// A list bound's conditions (`values` may hold NULL).
    fn list(&self, values: Vec<Value>) -> Vec<Qual> {
        let with_null = values.contains(&Value::Null);
        let values: Vec<Value> = values.into_iter().filter(|v| *v != Value::Null).collect();
        let test = match values.len() {
            0 => None,
            1 => Some(Qual::Cmp(0, "=", values[0].clone())),
            _ => Some(Qual::Any(0, values)),
        };
        match (test, with_null) {
            (Some(test), true) => vec![Qual::Or(vec![Qual::IsNull(0), test])],
            (Some(test), false) => vec![Qual::NotNull(0), test],
            (None, _) => vec![Qual::IsNull(0)],
        }
    }

    /// A default partition's condition: none of the others' (`None`: it
    /// is the only partition).
    fn default(&self) -> Result<Option<Qual>, SqlError> {
        let others = (self.bounds.iter()).filter(|(_, b)| *b != Bound::Default);
        if self.key.strategy == LIST {
            let mut values: Vec<Value> = Vec::new();
            for (_, bound) in others {
                if let Bound::List(list) = bound {
                    values.extend(list.iter().cloned());
                }
            }
            if values.is_empty() {
                return Ok(None);
            }
            sort(&mut values, |a, b| match (a, b) {
                (Value::Null, Value::Null) => Ok(Ordering::Equal),
                (Value::Null, _) => Ok(Ordering::Greater),
                (_, Value::Null) => Ok(Ordering::Less),
                _ => Ok(crate::scalar::compare(a, b)?.unwrap_or(Ordering::Equal)),
            })?;
            values.dedup();
            return Ok(Some(Qual::Not(Box::new(and(self.list(values))))));
        }
        let mut ranges: Vec<(&[Edge], &[Edge])> = Vec::new();
        for (_, bound) in others {
            if let Bound::Range { from, to } = bound {
                ranges.push((from, to));
            }
        }
        if ranges.is_empty() {
            return Ok(None);
        }
        sort(&mut ranges, |a, b| edges_cmp(a.0, b.0))?;
        let mut each = Vec::with_capacity(ranges.len());
        for (from, to) in ranges {
            let arms = self.range_arms(from, to)?;
            each.push(match arms.is_empty() {
                true => and(self.not_nulls()),
                false => and(arms),
            });
        }
        let mut all = self.not_nulls();
        all.push(match each.len() {
            1 => each.remove(0),
            _ => Qual::Or(each),
        });
        Ok(Some(Qual::Not(Box::new(Qual::And(all)))))
    }

    /// Key part `k` as a condition names it (an expression's call as
    /// written, anything else parenthesized).
    fn column(&self, k: usize) -> String {
        match &self.key.exprs[k] {
            None => names::written(&self.def.columns[self.key.columns[k]].name).to_string(),
            Some(e) => crate::index_exprs::key_text(&e.sql, true),
        }
    }

    /// Key column `k` as a comparison names it: a `varchar` column is
    /// compared as `text`, so PostgreSQL shows the cast.
    fn compared(&self, k: usize) -> String {
        match self.key.types[k] {
            SqlType::Varchar(_) => format!("({})::text", self.column(k)),
            _ => self.column(k),
        }
    }

    /// A bound value of key column `k`: labelled with the column's type,
    /// with its modifier (`'a'::character varying(5)`).
    fn constant(&self, k: usize, v: &Value) -> String {
        let column = self.def.columns.get(self.key.columns[k]);
        match (self.key.types[k], crate::types::text_output(v), column) {
            (SqlType::Varchar(_) | SqlType::Char(_), Some(text), Some(column)) => format!(
                "'{}'::{}",
                text.replace('\'', "''"),
                crate::catalog_functions::format_type(
                    i64::from(column.type_oid),
                    Some(column.typmod)
                )
            ),
            (ty, _, _) => crate::deparse::constant(v, ty),
        }
    }

    /// `q` as PostgreSQL's deparser prints it: every operator and boolean
    /// expression parenthesized.
    fn render(&self, q: &Qual) -> String {
        let join = |items: &[Qual], word: &str| {
            let parts: Vec<String> = items.iter().map(|q| self.render(q)).collect();
            format!("({})", parts.join(word))
        };
        match q {
            Qual::NotNull(k) => format!("({} IS NOT NULL)", self.column(*k)),
            Qual::IsNull(k) => format!("({} IS NULL)", self.column(*k)),
            Qual::Cmp(k, op, v) => {
                format!("({} {op} {})", self.compared(*k), self.constant(*k, v))
            }
            Qual::Any(k, values) => {
                let values: Vec<String> = values.iter().map(|v| self.constant(*k, v)).collect();
                format!(
                    "({} = ANY (ARRAY[{}]))",
                    self.compared(*k),
                    values.join(", ")
                )
            }
            Qual::And(items) => join(items, " AND "),
            Qual::Or(items) => join(items, " OR "),
            Qual::Not(inner) => format!("(NOT {})", self.render(inner)),
            Qual::Text(text) => text.clone(),
        }
    }
}

/// A condition on key columns (by their position in the key).
#[derive(Debug, Clone)]
enum Qual {
    NotNull(usize),
    IsNull(usize),
    Cmp(usize, &'static str, Value),
    Any(usize, Vec<Value>),
    And(Vec<Qual>),
    Or(Vec<Qual>),
    Not(Box<Qual>),
    Text(String),
}

/// The conditions ANDed: one alone is itself.
fn and(mut items: Vec<Qual>) -> Qual {
    match items.len() {
        1 => items.remove(0),
        _ => Qual::And(items),
    }
}

/// A constraint's conditions as one text (`None`: no conditions).
pub fn joined(conditions: &[String]) -> Option<String> {
    match conditions {
        [] => None,
        [one] => Some(one.clone()),
        all => Some(format!("({})", all.join(" AND "))),
    }
}

/// Sorts `items` by a comparison that may fail: its first error, after
/// the sort.
fn sort<T>(
    items: &mut [T],
    compare: impl Fn(&T, &T) -> Result<Ordering, SqlError>,
) -> Result<(), SqlError> {
    let mut error = None;
    items.sort_by(|a, b| {
        compare(a, b).unwrap_or_else(|e| {
            error.get_or_insert(e);
            Ordering::Equal
        })
    });
    error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_condition_is_itself_and_several_are_parenthesized() {
        assert_eq!(joined(&[]), None);
        assert_eq!(joined(&["(a IS NULL)".into()]).unwrap(), "(a IS NULL)");
        assert_eq!(
            joined(&["(a IS NOT NULL)".into(), "(a = 5)".into()]).unwrap(),
            "((a IS NOT NULL) AND (a = 5))"
        );
    }
}
