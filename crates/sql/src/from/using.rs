//! `JOIN ... USING (columns)` and `NATURAL JOIN`: the columns a join
//! merges, the condition it joins on, and what the merged names stand for.
//!
//! An INNER, LEFT or RIGHT join's merged column is one of the pair: the
//! left one (the right one for a RIGHT JOIN), which an unqualified name
//! and `*` read; the other is hidden from both (a qualified name still
//! reads it). A FULL join's merged column is neither: a row the join kept
//! from one side only has the other side's NULL, so the merged value is
//! `COALESCE(left, right)` (PostgreSQL's type for it: the two types'
//! common one). folio's query row holds every FROM item's columns at
//! fixed positions, so the merged values become a FROM item of their
//! own, placed right after the join: `LATERAL (SELECT COALESCE(l.c,
//! r.c) AS c, ...) AS unnamed_join`, joined on nothing (one row for each
//! joined row). Both sides' columns are hidden, and the names and `*`
//! read the new item's. Its qualifier is `unnamed_join` (then
//! `unnamed_join_2`, ...), PostgreSQL's name for a join without an
//! alias, which a query may not otherwise use.

use super::{JoinKind, Scope, ScopeTable};
use crate::error::SqlError;
use sqlparser::ast::{BinaryOperator, Expr, Ident, TableFactor};

/// The qualifier of the merged columns' FROM item of the `n`th FULL join
/// with USING (from 1).
fn merged_qualifier(n: usize) -> String {
    match n {
        1 => "unnamed_join".to_string(),
        _ => format!("unnamed_join_{n}"),
    }
}

/// A FULL join's merge, waiting for its merged columns' item: the
/// names and the pairs as they were before that item came.
pub(super) struct FullMerge {
    names: Vec<String>,
    pairs: Vec<Pair>,
}

/// One merged column: its name, and its positions on the left (a merged
/// column before it, if any) and on the right.
struct Pair {
    name: String,
    left: usize,
    right: usize,
}

impl Scope {
    /// Joins the last FROM item to those before it on the columns `names`
    /// (`JOIN ... USING`): each must be found once on the left and on the
    /// right (PostgreSQL's errors otherwise). For an INNER, LEFT or RIGHT
    /// join, merges each pair; a FULL join's merge waits for its merged
    /// columns' item (`merged_item`, then `merge_full`), and is returned
    /// (`None` when nothing is merged). Returns the join condition, the
    /// pairs equal, as the qualified comparison a user would write in
    /// `ON`.
    pub(super) fn merge_using(
        &mut self,
        kind: JoinKind,
        names: &[String],
    ) -> Result<(Option<Expr>, Option<FullMerge>), SqlError> {
        let pairs = self.using_pairs(names)?;
        let condition = pairs
            .iter()
            .map(|p| Expr::BinaryOp {
                left: Box::new(self.reference(p.left, &p.name)),
                op: BinaryOperator::Eq,
                right: Box::new(self.reference(p.right, &p.name)),
            })
            .reduce(|all, pair| Expr::BinaryOp {
                left: Box::new(all),
                op: BinaryOperator::And,
                right: Box::new(pair),
            });
        if kind != JoinKind::Full {
            let (kept, dropped) = pairs
                .iter()
                .map(|p| match kind {
                    JoinKind::Right => (p.right, p.left),
                    _ => (p.left, p.right),
                })
                .unzip();
            self.merge(names, kept, dropped);
            return Ok((condition, None));
        }
        let full = (!names.is_empty()).then(|| FullMerge {
            names: names.to_vec(),
            pairs,
        });
        Ok((condition, full))
    }

    /// The FROM item that holds a FULL join's merged columns (see the
    /// module's doc) of `full`, the join of the last item.
    pub(super) fn merged_item(&self, full: &FullMerge) -> Result<TableFactor, SqlError> {
        let columns: Vec<String> = (full.pairs)
            .iter()
            .map(|p| {
                format!(
                    "COALESCE({}, {}) AS {}",
                    self.reference(p.left, &p.name),
                    self.reference(p.right, &p.name),
                    Ident::with_quote('"', p.name.as_str())
                )
            })
            .collect();
        let n = 1 + self
            .tables
            .iter()
            .filter(|t| t.qualifier.starts_with("unnamed_join"))
            .count();
        let sql = format!(
            "SELECT * FROM LATERAL (SELECT {}) AS {}",
            columns.join(", "),
            Ident::with_quote('"', merged_qualifier(n))
        );
        let query = sqlparser::parser::Parser::new(&sqlparser::dialect::PostgreSqlDialect {})
            .try_with_sql(&sql)
            .and_then(|mut p| p.parse_query())
            .map_err(|e| SqlError::new("XX000", format!("{sql}: {e}")))?;
        let sqlparser::ast::SetExpr::Select(select) = *query.body else {
            return Err(SqlError::new("XX000", format!("{sql}: not a SELECT")));
        };
        (select.from.into_iter().next())
            .map(|twj| twj.relation)
            .ok_or_else(|| SqlError::new("XX000", format!("{sql}: no FROM item")))
    }

    /// Merges a FULL join's names into the columns of the item just
    /// pushed (`merged_item`'s): both sides' columns are hidden.
    pub(super) fn merge_full(&mut self, full: FullMerge) {
        let offset = self.tables[self.tables.len() - 1].offset;
        let kept = (offset..offset + full.names.len()).collect();
        let dropped = (full.pairs.iter())
            .flat_map(|p| [p.left, p.right])
            .collect();
        self.merge(&full.names, kept, dropped);
    }

    /// Each of `names` resolves to `kept` (in order), never to `dropped`;
    /// `*` is the kept columns, then the others as before (PostgreSQL's
    /// order: the merged columns, the left side's others, the right
    /// side's).
    fn merge(&mut self, names: &[String], kept: Vec<usize>, dropped: Vec<usize>) {
        for (name, &keep) in names.iter().zip(&kept) {
            self.merged.retain(|(n, _)| n != name);
            self.merged.push((name.clone(), keep));
        }
        self.hidden.extend(&dropped);
        let rest = self.star();
        let mut order = kept.clone();
        order.extend(
            rest.into_iter()
                .filter(|c| !kept.contains(c) && !dropped.contains(c)),
        );
        self.star_order = Some(order);
    }

    /// The pairs a USING join of the last item to the items before it on
    /// `names` merges.
    fn using_pairs(&self, names: &[String]) -> Result<Vec<Pair>, SqlError> {
        let right = self.tables.len() - 1;
        let mut pairs = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(SqlError::new(
                    "42701",
                    format!("column name \"{name}\" appears more than once in USING clause"),
                ));
            }
            let left = self.resolve_left(name, right)?;
            let table = &self.tables[right];
            let Some(c) = table.names.iter().position(|n| n == name) else {
                return Err(SqlError::new(
                    "42703",
                    format!(
                        "column \"{name}\" specified in USING clause does not exist in right table"
                    ),
                ));
            };
            pairs.push(Pair {
                name: name.clone(),
                left,
                right: table.offset + c,
            });
        }
        Ok(pairs)
    }

    /// The one column `name` of the items before `right` (a merged one
    /// first), for `USING`.
    fn resolve_left(&self, name: &str, right: usize) -> Result<usize, SqlError> {
        if let Some((_, c)) = self.merged.iter().find(|(n, _)| n == name) {
            return Ok(*c);
        }
        let mut found = None;
        for t in &self.tables[..right] {
            for (c, n) in t.names.iter().enumerate() {
                let at = t.offset + c;
                if n == name && !self.hidden.contains(&at) {
                    if found.is_some() {
                        return Err(SqlError::new(
                            "42702",
                            format!(
                                "common column name \"{name}\" appears more than once in left table"
                            ),
                        ));
                    }
                    found = Some(at);
                }
            }
        }
        found.ok_or_else(|| {
            SqlError::new(
                "42703",
                format!("column \"{name}\" specified in USING clause does not exist in left table"),
            )
        })
    }

    /// `qualifier.name` of the column at `position`, quoted as it is.
    fn reference(&self, position: usize, name: &str) -> Expr {
        let table = &self.tables[self.table_of(position)];
        Expr::CompoundIdentifier(vec![
            Ident::with_quote('"', table.qualifier.clone()),
            Ident::with_quote('"', name),
        ])
    }

    /// The names a `NATURAL` join of the last item merges: the left
    /// side's visible column names the right side also has, in the left
    /// side's order.
    pub(super) fn natural_names(&self) -> Vec<String> {
        let right = &self.tables[self.tables.len() - 1];
        let mut names: Vec<String> = Vec::new();
        for c in self.star() {
            if c >= right.offset {
                break;
            }
            let table: &ScopeTable = &self.tables[self.table_of(c)];
            let name = &table.names[c - table.offset];
            if right.names.contains(name) && !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }
}
