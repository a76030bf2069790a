//! Calls of PL/pgSQL functions in a statement (README "PL/pgSQL",
//! "Calls"). Each call is taken out of the statement before it is
//! planned, innermost first, and replaced by a typed parameter
//! (`CAST($k AS result)`) whose value the call gives at each run
//! ([`Calls::run`]), so the statement planned is an ordinary one: a
//! query message's statement is planned once with its calls' values; a
//! prepared statement's kept plan keeps its calls and runs them at each
//! execution.
//!
//! A call's arguments are evaluated as a `SELECT` of them (with the
//! statement's parameters and the values of the calls before it); so a
//! call may not read the row's columns (0A000): PostgreSQL calls a
//! function per row, folio once per call written in the statement. An
//! INSERT ... VALUES whose target's column defaults call one has those
//! defaults written into each row first, so each row calls it once, as
//! PostgreSQL's.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use folio_catalog::FunctionDef;
use folio_db::Transaction;
use folio_row::Value;
use sqlparser::ast::{
    Expr, Ident, Query, SelectItem, SetExpr, Statement, TableFactor, TableObject, VisitMut,
    VisitorMut,
};
use std::ops::ControlFlow::{self, Break, Continue};

/// `statement` with its calls of PL/pgSQL functions replaced by their
/// values, and its parameters (`params` and theirs); `None` if it makes
/// none.
pub fn evaluate(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: &Statement,
    params: &[Value],
) -> Result<Option<(Statement, Vec<Value>)>, SqlError> {
    let Some((out, calls)) = take_out(cx, txn, statement, params.len())? else {
        return Ok(None);
    };
    let mut params = params.to_vec();
    calls.run(cx, txn, notices, &mut params)?;
    Ok(Some((out, params)))
}

/// `statement` (which has `params` parameters) with its calls of PL/pgSQL
/// functions taken out, and the calls; `None` if it makes none.
pub fn take_out(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
    params: usize,
) -> Result<Option<(Statement, Calls)>, SqlError> {
    if !crate::sql_functions::any_plpgsql() {
        return Ok(None);
    }
    let mut out = statement.clone();
    let defaults = defaults_into_rows(cx, txn, &mut out)?;
    let _ = out.visit(&mut NameItems);
    let mut take = TakeOut {
        first: params,
        calls: Vec::new(),
        error: None,
    };
    let _ = out.visit(&mut take);
    if let Some(e) = take.error {
        return Err(e);
    }
    let calls = Calls(take.calls);
    Ok((defaults || !calls.0.is_empty()).then_some((out, calls)))
}

/// The calls taken out of a statement, innermost first: each one's value
/// is the statement's parameter after those before it.
#[derive(Debug, Clone, Default)]
pub struct Calls(Vec<Call>);

#[derive(Debug, Clone)]
struct Call {
    def: FunctionDef,
    /// Its arguments, which may name the statement's parameters and the
    /// values of the calls before it.
    args: Vec<Expr>,
}

impl Calls {
    /// Whether each called function is still as it was when the call was
    /// taken out (CREATE OR REPLACE or DROP since: the statement is
    /// planned again).
    pub fn is_current(&self) -> bool {
        (self.0.iter())
            .all(|call| crate::sql_functions::is_current(std::slice::from_ref(&call.def)))
    }

    /// Runs each call, its value appended to `params`.
    pub fn run(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        notices: &mut Vec<Notice>,
        params: &mut Vec<Value>,
    ) -> Result<(), SqlError> {
        for call in &self.0 {
            let value = call.run(cx, txn, notices, params)?;
            params.push(value);
        }
        Ok(())
    }
}

/// The 0A000 of a call of PL/pgSQL function `def` where it cannot be
/// taken out of the statement: in a view's query or a column default
/// (other than INSERT ... VALUES's), which the planner expands.
pub fn not_here(def: &FunctionDef) -> SqlError {
    SqlError::unsupported(format!(
        "a call of PL/pgSQL function \"{}\" in a view or in a column default other than INSERT ... VALUES's",
        crate::sql_functions::names_of(&def.name)
    ))
}

struct TakeOut {
    /// The statement's own parameters.
    first: usize,
    calls: Vec<Call>,
    error: Option<SqlError>,
}

impl VisitorMut for TakeOut {
    type Break = ();

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        let Expr::Function(call) = expr else {
            return Continue(());
        };
        let arity = crate::sql_functions::call_arity(&call.args);
        let Some(def) = crate::sql_functions::resolve_plpgsql(&call.name, arity) else {
            return Continue(());
        };
        let taken = Call::of(def, &call.args).and_then(|call| {
            let number = self.first + self.calls.len() + 1;
            let param = match call.def.returns_set {
                true => crate::plpgsql::set_returning::replace_expr(&call.def, number)?,
                false => crate::plpgsql::exec::cast_param(number, result_type(&call.def))?,
            };
            self.calls.push(call);
            Ok(param)
        });
        match taken {
            Ok(param) => {
                *expr = param;
                Continue(())
            }
            Err(e) => {
                self.error = Some(e);
                Break(())
            }
        }
    }

    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        match self.take_factor(factor) {
            Ok(()) => Continue(()),
            Err(e) => {
                self.error = Some(e);
                Break(())
            }
        }
    }
}

impl TakeOut {
    /// A call of a set-returning function in FROM (`set_returning.rs`):
    /// taken out as the FROM item that reads its rows.
    fn take_factor(&mut self, factor: &mut TableFactor) -> Result<(), SqlError> {
        use crate::plpgsql::set_returning;
        if let Some((def, args)) = set_returning::called_in(factor) {
            let call = Call::of(def, &args)?;
            let number = self.first + self.calls.len() + 1;
            set_returning::replace_factor(factor, &call.def, number);
            self.calls.push(call);
        }
        Ok(())
    }
}

impl Call {
    fn of(def: FunctionDef, args: &sqlparser::ast::FunctionArguments) -> Result<Call, SqlError> {
        let args = crate::sql_functions::call_args(args, &def)?;
        if args.iter().any(reads_columns) {
            return Err(SqlError::unsupported(format!(
                "a call of PL/pgSQL function \"{}\" with arguments that read a row's columns",
                crate::sql_functions::names_of(&def.name)
            )));
        }
        Ok(Call { def, args })
    }

    fn run(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        notices: &mut Vec<Notice>,
        params: &[Value],
    ) -> Result<Value, SqlError> {
        let def = &self.def;
        let values = if self.args.is_empty() {
            Vec::new()
        } else {
            // `SELECT CAST(a1 AS t1), ...` with the statement's parameters.
            let mut items = Vec::new();
            for (arg, (_, oid, typmod)) in self.args.iter().zip(&def.args) {
                let ty = crate::user_types::of_oid(*oid, *typmod).ok_or_else(|| {
                    SqlError::new("42704", format!("type with oid {oid} does not exist"))
                })?;
                items.push(SelectItem::UnnamedExpr(Expr::Cast {
                    kind: sqlparser::ast::CastKind::Cast,
                    expr: Box::new(arg.clone()),
                    data_type: crate::plpgsql::exec::data_type(ty)?,
                    format: None,
                }));
            }
            let select = select_of(items);
            match crate::session::run_with_params(cx, txn, notices, &select, params)? {
                Output::Rows { rows, .. } => rows.into_iter().next().unwrap_or_default(),
                _ => Vec::new(),
            }
        };
        if def.strict && values.contains(&Value::Null) {
            return Ok(Value::Null);
        }
        crate::plpgsql::call(cx, txn, notices, def, values)
    }
}

/// The type a call's value has in the statement (`void`'s: text).
fn result_type(def: &FunctionDef) -> folio_row::SqlType {
    crate::user_types::of_oid(def.result.0, def.result.1).unwrap_or(folio_row::SqlType::Text)
}

/// Whether `expr` names a column (outside a subquery of its own).
fn reads_columns(expr: &Expr) -> bool {
    let mut found = false;
    let _ = sqlparser::ast::visit_expressions(expr, |e| {
        if matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) {
            found = true;
        }
        ControlFlow::<()>::Continue(())
    });
    found
}

/// `SELECT items`.
fn select_of(items: Vec<SelectItem>) -> Statement {
    let mut parsed =
        sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, "SELECT 1")
            .expect("SELECT 1 parses");
    let Some(Statement::Query(mut q)) = parsed.pop() else {
        unreachable!("SELECT 1 is a query")
    };
    let Query { body, .. } = &mut *q;
    if let SetExpr::Select(select) = body.as_mut() {
        select.projection = items;
    }
    Statement::Query(q)
}

/// The first call of a PL/pgSQL function `expr` makes, if any.
pub fn first_call(expr: &Expr) -> Option<FunctionDef> {
    let mut found = None;
    let _ = sqlparser::ast::visit_expressions(expr, |e| {
        if let Expr::Function(call) = e
            && let Some(def) = crate::sql_functions::resolve_plpgsql(
                &call.name,
                crate::sql_functions::call_arity(&call.args),
            )
        {
            found = Some(def);
            return Break(());
        }
        Continue(())
    });
    found
}

/// Each select item that is a call of a PL/pgSQL function alone is named
/// by the function, as PostgreSQL names it (the value that replaces the
/// call would be named by its type).
struct NameItems;

impl VisitorMut for NameItems {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        name_items(&mut query.body);
        Continue(())
    }
}

fn name_items(body: &mut SetExpr) {
    match body {
        SetExpr::Select(select) => {
            for item in &mut select.projection {
                if let SelectItem::UnnamedExpr(Expr::Function(call)) = item
                    && let Some(def) = crate::sql_functions::resolve_plpgsql(
                        &call.name,
                        crate::sql_functions::call_arity(&call.args),
                    )
                {
                    let alias = Ident::with_quote(
                        '"',
                        crate::sql_functions::names_of(&def.name).to_string(),
                    );
                    let expr = Expr::Function(call.clone());
                    *item = SelectItem::ExprWithAlias { expr, alias };
                }
            }
        }
        SetExpr::SetOperation { left, .. } => name_items(left),
        SetExpr::Query(q) => name_items(&mut q.body),
        _ => {}
    }
}

/// For `INSERT INTO t [(columns)] VALUES ...` into a table whose column
/// defaults call a PL/pgSQL function: each such column not given is
/// added, with its default written into each row (and a row's `DEFAULT`
/// for it replaced by the default), so each row calls it. Whether it
/// changed the statement.
fn defaults_into_rows(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &mut Statement,
) -> Result<bool, SqlError> {
    let Statement::Insert(insert) = statement else {
        return Ok(false);
    };
    let TableObject::TableName(table) = &insert.table else {
        return Ok(false);
    };
    let Some(source) = insert.source.as_deref_mut() else {
        return Ok(false);
    };
    let SetExpr::Values(values) = source.body.as_mut() else {
        return Ok(false);
    };
    let name = crate::names::relation(table)?;
    let relation = crate::access::target(cx, txn, &name)?;
    let def = &relation.def;
    let procedural: Vec<(usize, Expr)> = (0..def.columns.len())
        .filter_map(|c| {
            let expr = crate::parse::expression(def.default_of(c)?).ok()?;
            first_call(&expr).map(|_| (c, expr))
        })
        .collect();
    if procedural.is_empty() {
        return Ok(false);
    }
    let column_ident = |c: usize| Ident::with_quote('"', def.columns[c].name.clone());
    if insert.columns.is_empty() {
        // The columns the rows give, in order.
        let width = values.rows.first().map_or(0, Vec::len);
        insert.columns = (0..width.min(def.columns.len()))
            .map(column_ident)
            .collect();
    }
    let listed: Vec<usize> = (insert.columns.iter())
        .map(|c| crate::access::target_column(&relation, &name, &crate::names::ident(c)))
        .collect::<Result<_, _>>()?;
    for (c, expr) in procedural {
        match listed.iter().position(|l| *l == c) {
            Some(i) => {
                for row in &mut values.rows {
                    if let Some(e) = row.get_mut(i)
                        && crate::dml::is_default(e)
                    {
                        *e = expr.clone();
                    }
                }
            }
            None => {
                insert.columns.push(column_ident(c));
                for row in &mut values.rows {
                    row.push(expr.clone());
                }
            }
        }
    }
    Ok(true)
}
