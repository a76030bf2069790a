//! Calls of PL/pgSQL functions evaluated per row (README "PL/pgSQL",
//! "Calls"): a call left in a statement (`calls.rs` takes out only the
//! calls PostgreSQL would give one value for the whole statement) is
//! bound as [`Scalar::Call`] and run each time the expression is
//! evaluated, as PostgreSQL runs a function per row.
//!
//! A call runs statements, so it needs the statement's transaction,
//! which the evaluator does not hold: the code holding it lends it
//! through [`Env::correlated`] (the hook correlated subqueries use), its
//! [`Correlated::call`]. Two holders lend it:
//!
//! - a query's run, once its rows are whole (`query.rs`, the
//!   `subquery::Runner`): the select list, the WHERE conjuncts that
//!   call one (kept out of the scans and joins, as a correlated
//!   subquery's are), ORDER BY, GROUP BY and aggregate arguments, HAVING,
//!   window arguments;
//! - a row change (`dml.rs`, [`lend`]) where it holds the transaction
//!   between writes: INSERT's VALUES, column defaults, SET, RETURNING.
//!
//! An inner join's ON conjunct that calls one is moved into the WHERE,
//! a LEFT join's ON into a LATERAL subquery's WHERE ([`lift_join_calls`]); an UPDATE's or DELETE's WHERE conjunct that
//! calls one is tested on each row the scan found, before it is changed
//! (`dml.rs`). Where no holder lends it (a RIGHT or FULL join's ON
//! condition, a LEFT join's over another item than a table, the
//! arguments of a function in FROM) the call is 0A000. [`Env::cx`]
//! is set only while a PL/pgSQL function exists ([`cx_of`]), so the
//! pgbench paths never lend anything.
//!
//! Each call runs in the statement's transaction, its statements each
//! seeing the writes before them (the calling statement's rows were read
//! before: a query's are whole before its first call); its notices go to
//! the client after the statement's (`Ctx::raised`), its errors end the
//! statement.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::scalar::{Columns, Correlated, Env, Scalar};
use folio_catalog::FunctionDef;
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    BinaryOperator, Expr, Join, JoinConstraint, JoinOperator, Select, Statement, TableAlias,
    TableFactor, Value as AstValue,
};
use std::cell::RefCell;
use std::ops::ControlFlow::{Break, Continue};
use std::sync::Arc;

/// A bound call: the function, its arguments (each cast to its
/// parameter's type) and its value's type. Its body is the session's kept
/// one (`plan_cache.rs`).
#[derive(Debug, Clone)]
pub struct RowCall {
    pub def: Arc<FunctionDef>,
    pub args: Vec<Scalar>,
    pub ty: SqlType,
}

/// Two calls are equal when they call the same definition with equal
/// arguments.
impl PartialEq for RowCall {
    fn eq(&self, other: &RowCall) -> bool {
        self.def == other.def && self.args == other.args && self.ty == other.ty
    }
}

impl RowCall {
    /// Its value for `row`: the arguments evaluated, then the function run
    /// with the transaction `env` lends.
    pub fn eval(&self, row: &[Value], env: &Env<'_>) -> Result<Value, SqlError> {
        let args = (self.args.iter())
            .map(|a| a.eval(row, env))
            .collect::<Result<Vec<_>, _>>()?;
        match env.correlated {
            Some(holder) => holder.call(self, args),
            None => Err(not_here(&self.def)),
        }
    }

    /// The call with `f` applied to each argument.
    pub fn map_args(&self, f: impl Fn(&Scalar) -> Scalar) -> RowCall {
        RowCall {
            def: self.def.clone(),
            args: self.args.iter().map(f).collect(),
            ty: self.ty,
        }
    }

    /// The function's name, as EXPLAIN prints the call.
    pub fn name(&self) -> &str {
        crate::sql_functions::names_of(&self.def.name)
    }
}

/// The 0A000 of a call evaluated where no transaction is lent.
pub fn not_here(def: &FunctionDef) -> SqlError {
    SqlError::unsupported(format!(
        "a call of PL/pgSQL function \"{}\" where folio cannot run it per row (a RIGHT or FULL join's condition, the arguments of a function in FROM)",
        crate::sql_functions::names_of(&def.name)
    ))
}

/// What [`Env::cx`] is for a statement run in `cx`: `cx` while a PL/pgSQL
/// function exists (a statement may call one), else `None`, so nothing
/// is lent.
pub fn cx_of<'a>(cx: &'a Ctx<'a>) -> Option<&'a Ctx<'a>> {
    crate::sql_functions::any_plpgsql().then_some(cx)
}

/// `f` bound as a call of a PL/pgSQL function over `columns`, if it
/// names one (`None`: another function).
pub fn bind(
    f: &sqlparser::ast::Function,
    columns: &(impl Columns + ?Sized),
) -> Result<Option<Scalar>, SqlError> {
    let arity = crate::sql_functions::call_arity(&f.args);
    let Some(def) = crate::sql_functions::resolve_plpgsql(&f.name, arity) else {
        return Ok(None);
    };
    if f.over.is_some() {
        return Err(crate::window::not_allowed());
    }
    crate::plpgsql::callable(&def)?;
    crate::sql_functions::note_used(&def);
    let written = crate::sql_functions::call_args(&f.args, &def)?;
    let bound = (written.iter())
        .map(|arg| crate::scalar::bind(arg, columns))
        .collect::<Result<Vec<_>, SqlError>>()?;
    // Its polymorphic types made the call's (`polymorphic.rs`); the body
    // is kept per resolution (`plan_cache.rs`).
    let actual: Vec<_> = (written.iter().zip(&bound))
        .map(|(w, b)| (!crate::polymorphic::is_untyped(w)).then(|| b.ty_in(columns)))
        .collect();
    let def = crate::polymorphic::resolve_def(&def, &actual)?;
    let args = (bound.into_iter().zip(&def.args))
        .map(|(bound, (_, oid, typmod))| {
            let ty = type_of(*oid, *typmod)?;
            Ok(match bound.ty_in(columns) == ty {
                true => bound,
                false => Scalar::Cast(Box::new(bound), ty),
            })
        })
        .collect::<Result<Vec<_>, SqlError>>()?;
    // A `void`'s value is an empty text (`plpgsql::call`).
    let ty = match def.result.0 {
        crate::sql_functions::VOID => SqlType::Text,
        oid => type_of(oid, def.result.1)?,
    };
    Ok(Some(Scalar::Call(Box::new(RowCall {
        def: Arc::new(def),
        args,
        ty,
    }))))
}

pub(crate) fn type_of(oid: u32, typmod: i32) -> Result<SqlType, SqlError> {
    crate::user_types::of_oid(oid, typmod)
        .ok_or_else(|| SqlError::new("42704", format!("type with oid {oid} does not exist")))
}

/// Runs `call` with `args` in `txn`: NULL for a NULL argument of a STRICT
/// function ([`crate::plpgsql::strict_null`]); the notices it raised go to the client after the
/// statement's.
pub fn call(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    call: &RowCall,
    args: Vec<Value>,
) -> Result<Value, SqlError> {
    let def = &call.def;
    if crate::plpgsql::strict_null(cx, def, &args)? {
        return Ok(Value::Null);
    }
    let mut notices = Vec::new();
    // Its statements see every write of the transaction, also inside a
    // row change's subquery (which does not: `dml.rs`), as PostgreSQL
    // runs a function's statements with a new command id.
    let value = txn.as_of_command(None, |txn| {
        crate::plpgsql::call(cx, txn, &mut notices, def, args)
    });
    cx.raised.borrow_mut().extend(notices);
    value
}

/// Runs `f` with `txn` lent to the calls of PL/pgSQL functions its
/// expressions make, where the statement may make some (`env.cx`); else
/// `f` with `env` as it is.
pub fn lend<T>(
    txn: &mut Transaction,
    env: &Env<'_>,
    f: impl FnOnce(&Env<'_>) -> Result<T, SqlError>,
) -> Result<T, SqlError> {
    let Some(cx) = env.cx else {
        return f(env);
    };
    let lent = Lent {
        cx,
        txn: RefCell::new(txn),
    };
    f(&Env {
        correlated: Some(&lent),
        ..*env
    })
}

/// The transaction a row change lends between its writes.
struct Lent<'a, 't> {
    cx: &'a Ctx<'a>,
    txn: RefCell<&'t mut Transaction>,
}

impl std::fmt::Debug for Lent<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lent")
    }
}

impl Correlated for Lent<'_, '_> {
    fn rows(&self, _: usize, _: &[Value]) -> Option<Result<Vec<Vec<Value>>, SqlError>> {
        None
    }

    fn call(&self, row_call: &RowCall, args: Vec<Value>) -> Result<Value, SqlError> {
        let mut txn = self.txn.try_borrow_mut().map_err(|_| busy())?;
        call(self.cx, &mut txn, row_call, args)
    }
}

/// The XX000 of a call made while the lent transaction is in use (a
/// call's arguments are evaluated before it runs: never expected).
pub fn busy() -> SqlError {
    SqlError::new(
        "XX000",
        "a PL/pgSQL function was called while the statement's transaction was in use",
    )
}

/// Whether any expression of `node` calls a PL/pgSQL function (false at
/// once while none exists).
pub fn any_in<V: sqlparser::ast::Visit>(node: &V) -> bool {
    if !crate::sql_functions::any_plpgsql() {
        return false;
    }
    sqlparser::ast::visit_expressions(node, |e| match calls_here(e) {
        true => Break(()),
        false => Continue(()),
    })
    .is_break()
}

fn calls_here(e: &Expr) -> bool {
    let Expr::Function(call) = e else {
        return false;
    };
    crate::sql_functions::resolve_plpgsql(&call.name, crate::sql_functions::call_arity(&call.args))
        .is_some()
}

/// `select` with the join conditions that call a PL/pgSQL function moved
/// where a transaction is lent (`None`: none to move). A join condition
/// is evaluated inside the join, where none is:
///
/// - an inner join's ON conjuncts that call move into the WHERE: the
///   same filter over the joined rows, unless a later RIGHT or FULL join
///   of the same FROM item adds rows without it;
/// - a LEFT join's ON over a table `b` becomes `LEFT JOIN LATERAL
///   (SELECT * FROM b WHERE on) AS b ON true`: the same rows, the
///   condition tested on each pair, by a query that lends the
///   transaction.
pub fn lift_join_calls(select: &Select) -> Option<Select> {
    if !crate::sql_functions::any_plpgsql() {
        return None;
    }
    let mut out = select.clone();
    let mut lifted: Vec<Expr> = Vec::new();
    let mut lateral = false;
    for item in &mut out.from {
        for join in &mut item.joins {
            lateral |= left_join_as_lateral(join);
        }
        let preserves_left = |op: &JoinOperator| {
            !matches!(
                op,
                JoinOperator::Right(_) | JoinOperator::RightOuter(_) | JoinOperator::FullOuter(_)
            )
        };
        for n in 0..item.joins.len() {
            if !item.joins[n + 1..]
                .iter()
                .all(|j| preserves_left(&j.join_operator))
            {
                continue;
            }
            let (JoinOperator::Join(JoinConstraint::On(on))
            | JoinOperator::Inner(JoinConstraint::On(on))) = &mut item.joins[n].join_operator
            else {
                continue;
            };
            if !any_in(on) {
                continue;
            }
            let (calling, kept): (Vec<Expr>, Vec<Expr>) = crate::pushdown::conjuncts(on)
                .into_iter()
                .cloned()
                .partition(any_in);
            lifted.extend(calling);
            *on = and_all(kept).unwrap_or_else(|| Expr::Value(AstValue::Boolean(true).into()));
        }
    }
    if lifted.is_empty() {
        return lateral.then_some(out);
    }
    lifted.extend(out.selection.take());
    out.selection = and_all(lifted);
    Some(out)
}

/// `LEFT JOIN b ON on` (`b` a table, `on` calling a PL/pgSQL function)
/// made `LEFT JOIN LATERAL (SELECT * FROM b WHERE on) AS b ON true`;
/// whether it was.
fn left_join_as_lateral(join: &mut Join) -> bool {
    let (JoinOperator::Left(JoinConstraint::On(on))
    | JoinOperator::LeftOuter(JoinConstraint::On(on))) = &mut join.join_operator
    else {
        return false;
    };
    let TableFactor::Table {
        name,
        alias,
        args: None,
        ..
    } = &join.relation
    else {
        return false;
    };
    if !any_in(on) {
        return false;
    }
    let alias = match alias {
        Some(alias) => alias.name.clone(),
        None => match name.0.last().and_then(|part| part.as_ident()) {
            Some(ident) => ident.clone(),
            None => return false,
        },
    };
    let text = format!("SELECT * FROM {} WHERE {on}", join.relation);
    let parsed =
        sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, &text);
    let Ok(Some(Statement::Query(subquery))) = parsed.map(|mut p| p.pop()) else {
        return false;
    };
    *on = Expr::Value(AstValue::Boolean(true).into());
    join.relation = TableFactor::Derived {
        lateral: true,
        subquery,
        alias: Some(TableAlias {
            name: alias,
            columns: Vec::new(),
        }),
    };
    true
}

fn and_all(exprs: Vec<Expr>) -> Option<Expr> {
    exprs.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> crate::object_scope::Scope {
        let lists = folio_catalog::ObjectLists::default();
        crate::object_scope::enter_lists(Arc::new(lists.with_functions(Arc::new(vec![
            FunctionDef {
                oid: 1,
                name: "f".into(),
                args: vec![("a".into(), 23, -1)],
                result: (23, -1),
                returns_set: false,
                columns: Vec::new(),
                columns_of_table: false,
                volatility: b'v',
                strict: false,
                plpgsql: true,
                body: "begin return a; end".into(),
                ..Default::default()
            },
        ]))))
    }

    fn lifted(sql: &str) -> Option<String> {
        let parsed =
            sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, sql)
                .unwrap();
        let Statement::Query(q) = &parsed[0] else {
            panic!("a query")
        };
        let sqlparser::ast::SetExpr::Select(select) = q.body.as_ref() else {
            panic!("a select")
        };
        lift_join_calls(select).map(|s| s.to_string())
    }

    // Proves the join conditions that call a PL/pgSQL function move where
    // a transaction is lent: an inner join's calling conjuncts to the
    // WHERE (the others stay), a LEFT join's ON over a table into a
    // LATERAL subquery; and that nothing moves past a later RIGHT join,
    // nor without a call.
    #[test]
    fn join_conditions_that_call_move() {
        let _scope = scope();
        assert_eq!(
            lifted("select * from a join b on f(a.x) = b.y and a.k = b.k where a.z > 1").as_deref(),
            Some("SELECT * FROM a JOIN b ON a.k = b.k WHERE f(a.x) = b.y AND a.z > 1")
        );
        assert_eq!(
            lifted("select * from a left join b as c on f(a.x) = c.y").as_deref(),
            Some(
                "SELECT * FROM a LEFT JOIN LATERAL (SELECT * FROM b AS c WHERE f(a.x) = c.y) \
                 AS c ON true"
            )
        );
        assert_eq!(
            lifted("select * from a join b on f(a.x) = b.y right join c on true"),
            None
        );
        assert_eq!(lifted("select * from a join b on a.x = b.y"), None);
    }
}
