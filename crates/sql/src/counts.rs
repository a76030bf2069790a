//! `LIMIT`, `OFFSET` and `FETCH FIRST`'s counts. A constant count is read
//! when the query is planned, so the plan can stop a scan, a series or a
//! sort at it. A count with a parameter (`LIMIT $1` of a prepared
//! statement or an extended-protocol Parse, a PL/pgSQL variable) is an
//! expression the plan keeps and evaluates each time it runs, as
//! PostgreSQL's generic plans do (so is one reading an outer query's
//! column, in a correlated subquery); where a constant count would stop a
//! source, that source gets the expression ([`Stop::AtRun`]) and stops
//! at its value in that run. An untyped parameter there is `bigint`, as
//! PostgreSQL infers it.
//! [`count_value`] is the one check of a count's value, at either time.

use crate::error::SqlError;
use crate::scalar::{self, Env, Scalar};
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Fetch, LimitClause};
use std::cmp::Ordering;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

/// A query's counts as planned.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Counts {
    /// `LIMIT` (`None`: all rows) and `OFFSET` known now (what plan-time
    /// stops use): none and 0 when they are evaluated at run time.
    pub limit: Option<u64>,
    pub offset: u64,
    /// The counts evaluated each run, if one has a parameter.
    pub at_run: Option<Box<AtRun>>,
}

/// LIMIT and OFFSET expressions (`None`: not given) evaluated when the
/// plan runs. A NULL count is all rows, WITH TIES too (PostgreSQL's
/// 2201W for it is a constant's, found when the query is planned).
#[derive(Debug, Clone, PartialEq)]
pub struct AtRun {
    limit: Option<Scalar>,
    offset: Option<Scalar>,
}

impl AtRun {
    /// The LIMIT and OFFSET of this run, with the run's parameters.
    pub fn values(&self, env: &Env<'_>) -> Result<(Option<u64>, u64), SqlError> {
        let limit = match &self.limit {
            Some(s) => count_value(s.eval(&[], env)?, "LIMIT")?,
            None => None,
        };
        let offset = match &self.offset {
            Some(s) => count_value(s.eval(&[], env)?, "OFFSET")?.unwrap_or(0),
            None => 0,
        };
        Ok((limit, offset))
    }

    /// The types of the parameters the counts use (a Describe's).
    pub fn param_types(&self, types: &mut [Option<SqlType>]) {
        for s in [&self.limit, &self.offset].into_iter().flatten() {
            s.param_types(&[], types);
        }
    }
}

/// A LIMIT (with its OFFSET) pushed into what is read alone (a table's
/// scan, a function in FROM, a recursive CTE): the rows it may stop after.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    After(usize),
    /// Known when the plan runs.
    AtRun(Box<AtRun>),
    /// Set by what runs the plan, before each run: the rows a recursive
    /// union with a LIMIT above it still needs from its step
    /// (`recursive.rs`).
    Budget(Budget),
}

/// The rows a plan may stop after, set between its runs (all until set;
/// [`Stop::Budget`]). Shared by the plan and what runs it.
#[derive(Debug, Clone)]
pub struct Budget(Arc<AtomicUsize>);

impl Default for Budget {
    fn default() -> Budget {
        Budget(Arc::new(AtomicUsize::new(usize::MAX)))
    }
}

impl PartialEq for Budget {
    fn eq(&self, other: &Budget) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Budget {
    /// The rows the next runs may stop after (`None`: all).
    pub fn set(&self, rows: Option<usize>) {
        self.0
            .store(rows.unwrap_or(usize::MAX), AtomicOrdering::Relaxed);
    }

    fn rows(&self) -> Option<usize> {
        let rows = self.0.load(AtomicOrdering::Relaxed);
        (rows != usize::MAX).then_some(rows)
    }
}

impl Stop {
    /// The rows to stop after in this run (`None`: all).
    pub fn rows(stop: Option<&Stop>, env: &Env<'_>) -> Result<Option<usize>, SqlError> {
        Ok(match stop {
            None => None,
            Some(Stop::After(n)) => Some(*n),
            Some(Stop::AtRun(at_run)) => {
                let (limit, offset) = at_run.values(env)?;
                rows_needed(limit, offset)
            }
            Some(Stop::Budget(budget)) => budget.rows(),
        })
    }
}

/// The rows a LIMIT with its OFFSET takes from what is under it: the
/// one sum of the two (`None`: all rows, without a LIMIT or past
/// `usize`).
pub fn rows_needed(limit: Option<u64>, offset: u64) -> Option<usize> {
    limit.and_then(|n| usize::try_from(n.saturating_add(offset)).ok())
}

/// A count (a LIMIT's or an OFFSET's) as rows: past `usize`, all.
pub fn as_rows(count: u64) -> usize {
    usize::try_from(count).unwrap_or(usize::MAX)
}

/// A count's value: `None` for NULL (all rows), 2201W below zero, 42804
/// for a value not an integer (PostgreSQL's `bigint` argument).
pub fn count_value(v: Value, what: &str) -> Result<Option<u64>, SqlError> {
    if v == Value::Null {
        return Ok(None);
    }
    if scalar::compare(&v, &Value::Int8(0))? == Some(Ordering::Less) {
        return Err(SqlError::new(
            "2201W",
            format!("{what} must not be negative"),
        ));
    }
    match v {
        Value::Int2(x) => Ok(Some(x as u64)),
        Value::Int4(x) => Ok(Some(x as u64)),
        Value::Int8(x) => Ok(Some(x as u64)),
        other => Err(SqlError::new(
            "42804",
            format!(
                "argument of {what} must be type bigint, not type {}",
                other.type_name()
            ),
        )),
    }
}

/// `LIMIT n` / `LIMIT ALL` / `OFFSET n` / `FETCH FIRST n ROWS`.
pub fn of(clause: Option<&LimitClause>, fetch: Option<&Fetch>) -> Result<Counts, SqlError> {
    let (limit, offset) = match clause {
        Some(LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        }) if limit_by.is_empty() => {
            let limit = match (limit, fetch) {
                (Some(_), Some(_)) => {
                    return Err(SqlError::syntax("syntax error at or near \"FETCH\""));
                }
                (Some(e), None) => Some(Count::Limit(e)),
                (None, Some(fetch)) => fetch_count(fetch)?,
                (None, None) => None,
            };
            (limit, offset.as_ref().map(|o| &o.value))
        }
        None => (fetch.map(fetch_count).transpose()?.flatten(), None),
        Some(other) => return Err(SqlError::unsupported(format!("{other}"))),
    };
    for (e, what) in [
        (limit.as_ref().and_then(Count::expr), "LIMIT"),
        (offset, "OFFSET"),
    ] {
        if let Some(e) = e {
            crate::project_set::refuse(e, what)?;
        }
    }
    let with_parameter = limit
        .as_ref()
        .and_then(Count::expr)
        .is_some_and(has_parameter)
        || offset.is_some_and(has_parameter);
    if !with_parameter {
        let limit = match &limit {
            Some(Count::Limit(e)) => count_value(crate::expr::constant(e)?, "LIMIT")?,
            Some(Count::Ties(e)) => match count_value(crate::expr::constant(e)?, "LIMIT")? {
                None => return Err(null_ties()),
                n => n,
            },
            Some(Count::One) => Some(1),
            None => None,
        };
        let offset = match offset {
            Some(e) => count_value(crate::expr::constant(e)?, "OFFSET")?.unwrap_or(0),
            None => 0,
        };
        return Ok(Counts {
            limit,
            offset,
            at_run: None,
        });
    }
    let bound = |e: &Expr| scalar::fit_unknown(scalar::bind(e, &[] as &[SqlType])?, SqlType::Int8);
    let at_run = AtRun {
        limit: match &limit {
            Some(Count::Limit(e) | Count::Ties(e)) => Some(bound(e)?),
            Some(Count::One) => Some(Scalar::Const(Value::Int8(1))),
            _ => None,
        },
        offset: offset.map(bound).transpose()?,
    };
    Ok(Counts {
        limit: None,
        offset: 0,
        at_run: Some(Box::new(at_run)),
    })
}

/// A LIMIT's count as written.
enum Count<'a> {
    /// `LIMIT n` or `FETCH FIRST n ROWS ONLY`.
    Limit(&'a Expr),
    /// `FETCH FIRST n ROWS WITH TIES`.
    Ties(&'a Expr),
    /// `FETCH FIRST ROW ONLY`: 1.
    One,
}

impl<'a> Count<'a> {
    /// Its expression (none for FETCH FIRST ROW).
    fn expr(&self) -> Option<&'a Expr> {
        match self {
            Count::Limit(e) | Count::Ties(e) => Some(e),
            Count::One => None,
        }
    }
}

/// `FETCH { FIRST | NEXT } [n] { ROW | ROWS } { ONLY | WITH TIES }`:
/// PostgreSQL's LIMIT `n` (1 without it); `PERCENT` is no PostgreSQL
/// syntax.
fn fetch_count(fetch: &Fetch) -> Result<Option<Count<'_>>, SqlError> {
    if fetch.percent {
        return Err(SqlError::syntax("syntax error at or near \"PERCENT\""));
    }
    Ok(Some(match (&fetch.quantity, fetch.with_ties) {
        (Some(e), false) => Count::Limit(e),
        (Some(e), true) => Count::Ties(e),
        (None, _) => Count::One,
    }))
}

/// A NULL count with TIES.
fn null_ties() -> SqlError {
    SqlError::new(
        "2201W",
        "row count cannot be null in FETCH FIRST ... WITH TIES clause",
    )
}

/// Whether `e` uses a parameter (`$n`) or an outer query's value (a
/// correlated subquery's `LIMIT o.n`, `subquery.rs`).
fn has_parameter(e: &Expr) -> bool {
    let mut found = false;
    let _ = sqlparser::ast::visit_expressions(e, |e| {
        if let Expr::Value(v) = e
            && let sqlparser::ast::Value::Placeholder(p) = &v.value
            && (crate::params::parameter(p).is_some() || p.starts_with(scalar::OUTER_MARK))
        {
            found = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    found
}
