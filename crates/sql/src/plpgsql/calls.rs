//! Calls of PL/pgSQL functions in a statement that give one value for
//! the whole statement (README "PL/pgSQL", "Calls"): a call of an
//! IMMUTABLE function whose arguments read no row (constants,
//! parameters, such calls), which PostgreSQL folds into a constant. Each is taken out of the statement before it
//! is planned, innermost first, and replaced by a typed parameter
//! (`CAST($k AS result)`) whose value the call gives at each run
//! ([`Calls::run`]): a query message's statement is planned once with
//! its calls' values; a prepared statement's kept plan keeps its calls
//! and runs them at each execution.
//!
//! Every other call (a VOLATILE function's, PostgreSQL's default, or a
//! STABLE one's, which PostgreSQL runs per row even with constant
//! arguments; one whose arguments read the row) stays in the statement
//! and is run per row (`row_calls.rs`).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use folio_catalog::FunctionDef;
use folio_db::Transaction;
use folio_row::Value;
use sqlparser::ast::{
    Expr, Ident, Query, SelectItem, SetExpr, Statement, TableFactor, VisitMut, VisitorMut,
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
    let Some((out, calls)) = take_out(statement, params.len())? else {
        return Ok(None);
    };
    let mut params = params.to_vec();
    calls.run(cx, txn, notices, &mut params)?;
    Ok(Some((out, params)))
}

/// `statement` (which has `params` parameters) with its calls of PL/pgSQL
/// functions taken out, and the calls; `None` if it makes none.
pub fn take_out(
    statement: &Statement,
    params: usize,
) -> Result<Option<(Statement, Calls)>, SqlError> {
    if !crate::sql_functions::any_plpgsql() {
        return Ok(None);
    }
    let mut out = statement.clone();
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
    Ok((!calls.0.is_empty()).then_some((out, calls)))
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
    /// A `SETOF record` function's columns, its call's column definition
    /// list's (`record_functions::listed_columns`).
    record: Option<Vec<(String, folio_row::SqlType)>>,
    /// Called in FROM: its value is rows (`set_returning::one_row`).
    in_from: bool,
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
        let call = if def.returns_set {
            // Its rows are collected before the plan (`set_returning.rs`).
            match Call::of(def, &call.args) {
                Ok(call) => call,
                Err(e) => {
                    self.error = Some(e);
                    return Break(());
                }
            }
        } else {
            // PostgreSQL folds only an IMMUTABLE call of constants; it
            // runs the others per row (`row_calls.rs`).
            // A polymorphic one's types are its bound arguments'.
            if def.volatility != b'i' || is_polymorphic(&def) {
                return Continue(());
            }
            let args = match crate::sql_functions::call_args(&call.args, &def) {
                Ok(args) => args,
                Err(e) => {
                    self.error = Some(e);
                    return Break(());
                }
            };
            if args
                .iter()
                .any(|a| reads_columns(a) || first_call(a).is_some())
            {
                return Continue(());
            }
            Call {
                def,
                args,
                record: None,
                in_from: false,
            }
        };
        let taken = Ok(call).and_then(|call: Call| {
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

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        match self.take_rows_from(factor) {
            Ok(()) => Continue(()),
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
            let record = crate::record_functions::listed_columns(&def, factor)?;
            let call = Call {
                record,
                in_from: true,
                ..Call::of(def, &args)?
            };
            let number = self.first + self.calls.len() + 1;
            set_returning::replace_factor(factor, &call.def, number);
            self.calls.push(call);
        }
        Ok(())
    }
}

impl TakeOut {
    /// The calls of PL/pgSQL functions among a `ROWS FROM`'s (`factor`),
    /// each taken out as a FROM item's call is ([`TakeOut::take_factor`]),
    /// with its column definition list if it has one.
    fn take_rows_from(&mut self, factor: &mut TableFactor) -> Result<(), SqlError> {
        use crate::table_functions::{ROWS_FROM, column_list};
        use sqlparser::ast::{FunctionArg, FunctionArgExpr};
        let (name, args) = match factor {
            TableFactor::Table {
                name,
                args: Some(args),
                ..
            } => (&*name, &mut args.args),
            TableFactor::Function { name, args, .. } => (&*name, args),
            _ => return Ok(()),
        };
        if crate::names::function(name) != ROWS_FROM {
            return Ok(());
        }
        for arg in args.iter_mut() {
            let FunctionArg::Unnamed(FunctionArgExpr::Expr(expr)) = arg else {
                continue;
            };
            let (call, alias) = match column_list(expr)? {
                Some((call, alias)) => (call.clone(), Some(alias)),
                None => match &*expr {
                    Expr::Function(call) => (call.clone(), None),
                    _ => continue,
                },
            };
            let sqlparser::ast::FunctionArguments::List(list) = &call.args else {
                continue;
            };
            let mut item = TableFactor::Function {
                lateral: false,
                name: call.name.clone(),
                args: list.args.clone(),
                alias,
            };
            self.take_factor(&mut item)?;
            let TableFactor::Function {
                name: taken, args, ..
            } = item
            else {
                continue;
            };
            if taken == call.name {
                continue;
            }
            let taken = crate::call_expr::plain_call(taken, args);
            match column_list(expr)? {
                // The list stays, for the item that reads the rows.
                Some(_) => {
                    if let Expr::Function(wrapper) = expr
                        && let sqlparser::ast::FunctionArguments::List(l) = &mut wrapper.args
                    {
                        l.args[0] = FunctionArg::Unnamed(FunctionArgExpr::Expr(taken));
                    }
                }
                None => *expr = taken,
            }
        }
        Ok(())
    }
}

impl Call {
    /// A call run before the plan whatever its volatility (a set-returning
    /// one): 0A000 if its arguments read a row's columns.
    fn of(def: FunctionDef, args: &sqlparser::ast::FunctionArguments) -> Result<Call, SqlError> {
        let args = crate::sql_functions::call_args(args, &def)?;
        if is_polymorphic(&def) {
            // Its columns are the call's types, which the FROM item that
            // reads its rows cannot take (`set_returning::rows_shape`).
            return Err(SqlError::unsupported(format!(
                "a call in FROM of PL/pgSQL function \"{}\" with polymorphic types",
                crate::sql_functions::names_of(&def.name)
            )));
        }
        if args.iter().any(reads_columns) {
            return Err(SqlError::unsupported(format!(
                "a call of PL/pgSQL function \"{}\" with arguments that read a row's columns",
                crate::sql_functions::names_of(&def.name)
            )));
        }
        Ok(Call {
            def,
            args,
            record: None,
            in_from: false,
        })
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
        let value = match crate::plpgsql::strict_null(cx, def, &values)? {
            true => Value::Null,
            false => {
                let record = self.record.as_deref();
                crate::plpgsql::call_returning(cx, txn, notices, def, record, values)?
            }
        };
        match self.in_from {
            true => Ok(crate::plpgsql::set_returning::one_row(def, value)),
            false => Ok(value),
        }
    }
}

/// Whether `def` has a polymorphic argument or result type: its calls
/// are bound per row, where their arguments' types resolve them
/// (`row_calls.rs`).
fn is_polymorphic(def: &FunctionDef) -> bool {
    (def.args.iter().map(|a| a.1))
        .chain(def.columns.iter().map(|c| c.1))
        .chain([def.result.0])
        .any(crate::polymorphic::is_polymorphic)
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
