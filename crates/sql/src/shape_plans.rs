//! Plans kept for query shapes (README "Plans kept for shapes"). A
//! simple-protocol text of a kept shape (`shape.rs`: the text with its
//! integer literals as `$1`, `$2`, ...) whose literals stand only where a
//! parameter means exactly what the literal means runs by a plan made
//! once for the shape, with its literals as typed parameters, instead of
//! being planned again: `pgbench -M simple`'s statements were planned per
//! execution, 31% of the server's instructions in its tpcb transaction.
//!
//! When a parameter means what the literal means: an integer literal is a
//! constant of its type (int4, int8 or numeric by its value), and a
//! parameter declared of that type is a value of that type wherever it
//! stands, except where PostgreSQL (and folio) read the literal itself,
//! not its value: `ORDER BY 1` and `GROUP BY 1` name a column by
//! position, LIMIT and OFFSET are read while planning, a cast of a
//! constant is folded while planning (so its error is raised even when no
//! row evaluates it), `-2147483648` is one int4 constant though
//! `2147483648` is an int8. So a shape runs by a generic plan only if each
//! of its literals is an operand of a binary operator, an item of an IN
//! list, an operand of BETWEEN or an item of a one-row INSERT's VALUES
//! (whose every item is evaluated once, in order, as a folded constant
//! would be), optionally negated ([`eligible`]); not an UPDATE's bare SET
//! value (`SET a = 100000` of a smallint is folded, and fails, even when
//! no row is updated); and a text
//! only if none of its literals is at a type's edge ([`parameters`]).
//! Anything else is planned as before.
//!
//! A kept plan is used while [`Kept::is_current`] (no DDL, no search_path
//! change, no function replaced) and no setting changed since it was made
//! (`Session::settings_generation`: `enable_seqscan` and the others
//! decide plans). A shape whose generic plan fails to plan (an error that
//! planning the literal text would place by its position) is planned from
//! its text as before, every time.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::statement::Kept;
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    Expr, SetExpr, Statement, UnaryOperator, Value as AstValue, visit_expressions,
};
use std::ops::ControlFlow;

/// A text's run by its shape's generic plans: the plans, and the text's
/// literals as parameters with their types (`Lent::take_generic`).
pub type Shaped = (Box<Generic>, Vec<Value>, Vec<SqlType>);

/// Plans kept per shape: one per set of literal types and settings.
const PLANS_PER_SHAPE: usize = 4;

/// A shape's statement with its literals as `$n`, and the plans made of it.
pub struct Generic {
    statement: Box<Statement>,
    plans: Vec<Made>,
}

/// A plan of the shape for one set of parameter types, made with the
/// session's settings at `settings` and its relation cache at
/// `generation`; `None` if planning it failed.
struct Made {
    types: Vec<SqlType>,
    settings: u64,
    generation: u64,
    kept: Option<Kept>,
}

impl Generic {
    /// The holder of `statement`'s generic plans (its literals as `$n`),
    /// if it may run by one ([`eligible`]).
    pub fn of(statement: &Statement) -> Option<Generic> {
        eligible(statement).then(|| Generic {
            statement: Box::new(statement.clone()),
            plans: Vec::new(),
        })
    }

    /// The plan for parameters of `types` under settings `settings`: kept
    /// and current, or made now; `None` when the shape does not plan with
    /// parameters of these types (the text is planned as before).
    pub fn plan(
        &mut self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        types: &[SqlType],
        settings: u64,
    ) -> Result<Option<&Kept>, SqlError> {
        let found = self.plans.iter().position(|m| m.types == types);
        let current = match found.map(|i| &self.plans[i]) {
            // Failed to plan: again only after DDL or a setting change.
            Some(Made {
                kept: None,
                settings: made,
                generation,
                ..
            }) if *made == settings && *generation == cx.relations.generation() => {
                return Ok(None);
            }
            Some(Made { kept: None, .. }) => false,
            Some(Made {
                kept: Some(kept),
                settings: made,
                ..
            }) => *made == settings && kept.is_current(cx, txn)?,
            None => false,
        };
        let at = match (found, current) {
            (Some(i), true) => i,
            (found, _) => {
                let mut declared = (*self.statement).clone();
                let oids: Vec<(u32, i32)> = types.iter().map(|t| (t.oid(), -1)).collect();
                crate::params::declare(&mut declared, &oids);
                let kept = Kept::make(cx, txn, &declared, types.len()).ok().flatten();
                let made = Made {
                    types: types.to_vec(),
                    settings,
                    generation: cx.relations.generation(),
                    kept,
                };
                match found {
                    Some(i) => {
                        self.plans[i] = made;
                        i
                    }
                    None => {
                        if self.plans.len() >= PLANS_PER_SHAPE {
                            self.plans.remove(0);
                        }
                        self.plans.push(made);
                        self.plans.len() - 1
                    }
                }
            }
        };
        Ok(self.plans[at].kept.as_ref())
    }
}

/// The values of a text's integer `literals` as the parameters of its
/// shape's generic plan, with their types; `None` when one is at a
/// type's edge (its negation has another type: `-2147483648` is an int4,
/// `2147483648` an int8) or past numeric's range.
pub fn parameters(literals: &[&str]) -> Option<(Vec<Value>, Vec<SqlType>)> {
    let mut values = Vec::with_capacity(literals.len());
    let mut types = Vec::with_capacity(literals.len());
    for literal in literals {
        let digits = literal.trim_start_matches('0');
        if digits == "2147483648" || digits == "9223372036854775808" {
            return None;
        }
        let value = crate::types::number(literal).ok()?;
        let ty = match &value {
            Value::Int4(_) => SqlType::Int4,
            Value::Int8(_) => SqlType::Int8,
            Value::Numeric(_) => SqlType::Numeric(None),
            _ => return None,
        };
        values.push(value);
        types.push(ty);
    }
    Some((values, types))
}

/// Whether `statement` (a shape's, its literals as `$n`) may run by a
/// generic plan: a query, INSERT, UPDATE or DELETE in which every `$n`
/// stands where a typed parameter means what the literal meant (the
/// module's list).
pub fn eligible(statement: &Statement) -> bool {
    let top = match statement {
        Statement::Query(_) | Statement::Delete(_) => 0,
        Statement::Insert(insert) => match insert.source.as_deref().map(|q| q.body.as_ref()) {
            Some(SetExpr::Values(values)) if values.rows.len() == 1 => {
                values.rows[0].iter().filter(|e| slot(e)).count()
            }
            _ => 0,
        },
        Statement::Update { .. } => 0,
        _ => return false,
    };
    let (mut placeholders, mut placed) = (0usize, top);
    let _ = visit_expressions(statement, |expr: &Expr| {
        match expr {
            Expr::Value(v) if matches!(v.value, AstValue::Placeholder(_)) => placeholders += 1,
            // Two literals are a constant folded while planning
            // (`fold.rs`: `2 * 250000`, `1 / 0`), which two parameters
            // are not.
            Expr::BinaryOp { left, right, .. } if !(slot(left) && slot(right)) => {
                placed += usize::from(slot(left)) + usize::from(slot(right));
            }
            Expr::InList { expr, list, .. } => {
                placed += usize::from(slot(expr)) + list.iter().filter(|e| slot(e)).count();
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                placed += [expr, low, high].iter().filter(|e| slot(e)).count();
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    placeholders > 0 && placeholders == placed
}

/// A literal's place: `$n`, or `-$n`.
fn slot(expr: &Expr) -> bool {
    match expr {
        Expr::Value(v) => matches!(v.value, AstValue::Placeholder(_)),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => matches!(&**expr, Expr::Value(v) if matches!(v.value, AstValue::Placeholder(_))),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(sql: &str) -> bool {
        let statement =
            sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, sql)
                .unwrap()
                .pop()
                .unwrap();
        eligible(&statement)
    }

    // Proves pgbench's statements run by a generic plan, and the places
    // where a literal is read as itself (a position, a count, a folded
    // cast) or stands alone keep the text's own planning.
    #[test]
    fn only_literals_that_are_values_make_a_shape_generic() {
        for sql in [
            "UPDATE pgbench_accounts SET abalance = abalance + -$1 WHERE aid = $2",
            "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
            "INSERT INTO h (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, -$4, CURRENT_TIMESTAMP)",
            "DELETE FROM t WHERE a IN ($1, $2) AND b BETWEEN $3 AND $4",
            "UPDATE t SET a = a * $1 WHERE b = $2",
        ] {
            assert!(shape(sql), "{sql}");
        }
        for sql in [
            "SELECT a FROM t ORDER BY $1",
            "SELECT a, count(*) FROM t GROUP BY $1",
            "SELECT a FROM t WHERE b = 1 LIMIT $1",
            "SELECT $1::int2 FROM t",
            "SELECT $1",
            "SELECT a FROM t WHERE b = ($1)",
            "SELECT f($1) FROM t",
            "SELECT a FROM t",
            "CREATE TABLE t (a int DEFAULT $1)",
            "UPDATE t SET a = $1 WHERE b = $2",
            "INSERT INTO t VALUES ($1), ($2)",
            "SELECT a FROM t WHERE b > $1 * $2",
        ] {
            assert!(!shape(sql), "{sql}");
        }
    }

    // Proves literals become parameters of their literal's type, and one
    // at an edge (whose negation is another type) keeps the text planned.
    #[test]
    fn literals_are_parameters_of_their_type() {
        let (values, types) = parameters(&["1", "3000000000", "99999999999999999999"]).unwrap();
        assert_eq!(
            types,
            [SqlType::Int4, SqlType::Int8, SqlType::Numeric(None)]
        );
        assert_eq!(values[0], Value::Int4(1));
        assert!(parameters(&["2147483648"]).is_none());
        assert!(parameters(&["0009223372036854775808"]).is_none());
    }
}
