//! Set-returning PL/pgSQL functions (README "PL/pgSQL", "Set-returning
//! functions"): `RETURNS SETOF type`, `RETURNS SETOF table` and `RETURNS
//! TABLE (a int, ...)`, whose bodies give rows with `RETURN NEXT` and
//! `RETURN QUERY [EXECUTE]`.
//!
//! A call is run before the calling statement is planned, as a scalar
//! call is (`calls.rs`): its rows become one value, an array of records,
//! passed as a parameter of the statement, and the call in FROM (or a
//! select-list item, which the planner moves into FROM) becomes the
//! table function [`ROWS_FUNCTION`]`(oid, $k)`, which reads them back as
//! the FROM item's rows (`table_functions.rs`). So the function runs once
//! per call written, with arguments that may not read a row's columns.

use super::parse::{Block, Stmt};
use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::Output;
use crate::record_functions::{Returned, check_row, returns_record};
use folio_catalog::FunctionDef;
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    ColumnDef, DataType, Expr, FunctionArg, FunctionArgExpr, FunctionArgumentList,
    FunctionArguments, Ident, ObjectName, TableFactor, TableFunctionArgs,
};

/// The table function a call of a set-returning PL/pgSQL function becomes
/// in the statement planned: `"$plpgsql_rows"(function oid, $k)`, `$k`
/// the call's rows. Not a name a client can write unquoted.
pub const ROWS_FUNCTION: &str = "$plpgsql_rows";

/// The rows a set-returning function's body gives, as it runs.
#[derive(Debug, Clone)]
pub struct ResultRows {
    /// Each column's type (one, for `SETOF` a scalar type).
    types: Vec<SqlType>,
    /// `RETURNS TABLE`'s column names: its OUT variables, which `RETURN
    /// NEXT` without an expression returns (else empty).
    out: Vec<String>,
    /// Rows of named columns (a record per row: a call's column
    /// definition list's, or the function's own), not of one value. A row
    /// given whole must have their count and types, as PostgreSQL's
    /// (`record_functions::check_row`); a scalar is cast to its column's
    /// type.
    composite: bool,
    rows: Vec<Vec<Value>>,
}

impl ResultRows {
    /// The rows collected, as one value: an array of records (the
    /// parameter [`ROWS_FUNCTION`] reads).
    pub fn into_value(self) -> Value {
        Value::Array(self.rows.into_iter().map(Value::Record).collect())
    }

    /// The OUT variables (`RETURNS TABLE`'s columns) and their types.
    pub fn out_variables(&self) -> Vec<(String, SqlType)> {
        self.out
            .iter()
            .cloned()
            .zip(self.types.iter().copied())
            .collect()
    }

    /// Appends a row (of the result's width), each value to its
    /// column's type.
    pub fn push(&mut self, row: Vec<Value>) -> Result<(), SqlError> {
        if row.len() != self.types.len() {
            return Err(SqlError::new(
                "42804",
                "returned record type does not match expected record type",
            )
            .with_detail(format!(
                "Number of returned columns ({}) does not match expected column count ({}).",
                row.len(),
                self.types.len()
            )));
        }
        let row = (row.into_iter().zip(&self.types))
            .map(|(v, ty)| match v {
                Value::Null => Ok(Value::Null),
                v => super::conversion::convert(v, None, *ty),
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.rows.push(row);
        Ok(())
    }

    /// `RETURN NEXT value`: a scalar for a function of one value per row,
    /// a record's fields for one of several columns; `variable`: the
    /// field types of the record variable the value is (PostgreSQL's
    /// message differs then).
    pub fn push_value(
        &mut self,
        value: Value,
        variable: Option<&[SqlType]>,
    ) -> Result<(), SqlError> {
        match (self.composite, value) {
            (true, Value::Record(fields)) => {
                let (message, returned): (_, Vec<Returned<'_>>) = match variable {
                    Some(types) => (
                        "wrong record type supplied in RETURN NEXT",
                        types.iter().map(|t| Returned::Type(t.oid())).collect(),
                    ),
                    None => (
                        "returned record type does not match expected record type",
                        fields.iter().map(Returned::Value).collect(),
                    ),
                };
                check_row(message, &returned, &self.types)?;
                self.rows.push(fields);
                Ok(())
            }
            (true, Value::Null) => self.push(vec![Value::Null; self.types.len()]),
            (true, _) => Err(non_composite()),
            (false, value) => self.push(vec![value]),
        }
    }

    /// `RETURN QUERY`: the rows of a query's `output`, which must have
    /// the result's columns.
    pub fn push_query(&mut self, output: Output) -> Result<(), SqlError> {
        let Output::Rows { columns, rows, .. } = output else {
            return Err(SqlError::new(
                "42601",
                "RETURN QUERY cannot return a statement that returns no rows",
            ));
        };
        if self.composite {
            let returned: Vec<Returned<'_>> =
                columns.iter().map(|c| Returned::Type(c.type_oid)).collect();
            check_row(
                "structure of query does not match function result type",
                &returned,
                &self.types,
            )?;
            self.rows.extend(rows);
            return Ok(());
        }
        if columns.len() != self.types.len() {
            return Err(SqlError::new(
                "42804",
                "structure of query does not match function result type",
            )
            .with_detail(format!(
                "Number of returned columns ({}) does not match expected column count ({}).",
                columns.len(),
                self.types.len()
            )));
        }
        for row in rows {
            self.push(row)?;
        }
        Ok(())
    }
}

/// The result of `RETURNS TABLE (columns)` (or `RETURNS SETOF type`,
/// which `sql_functions::setof_as_table` wrote as a table of one column
/// named [`crate::sql_functions::SETOF_COLUMN`]): the result type, the
/// named columns and whether they are a table's (`SETOF table`, or
/// `SETOF t` of a composite type `t`).
#[allow(clippy::type_complexity)]
pub fn result_of(
    cx: &Ctx<'_>,
    txn: &Transaction,
    columns: &[ColumnDef],
) -> Result<((u32, i32), Vec<(String, u32, i32)>, bool), SqlError> {
    let record = (SqlType::Record.oid(), -1);
    if let [column] = columns
        && column.name.quote_style.is_some()
        && column.name.value == crate::sql_functions::SETOF_COLUMN
    {
        if let DataType::Custom(name, modifiers) = &column.data_type
            && modifiers.is_empty()
            && crate::types::column_type(&column.data_type)
                .map_or(true, crate::user_types::is_relation_type)
        {
            let table = crate::names::relation(name)?;
            if table == "record" {
                // Each call's column definition list gives its columns.
                return Ok((record, Vec::new(), false));
            }
            let relation = crate::access::relation(cx, txn, &table)
                .map_err(|_| SqlError::new("42704", format!("type \"{table}\" does not exist")))?;
            let columns = (relation.def.columns.iter())
                .map(|c| (c.name.clone(), c.type_oid, c.typmod))
                .collect();
            return Ok((record, columns, true));
        }
        let ty = crate::types::column_type(&column.data_type)?;
        // A composite type's rows have its fields as columns, as a
        // table's (PostgreSQL's composite types are relations too).
        if let SqlType::Composite(c) = ty {
            let columns = (c.fields.iter())
                .map(|(name, t)| (name.clone(), t.oid(), t.typmod()))
                .collect();
            return Ok((record, columns, true));
        }
        return Ok(((ty.oid(), ty.typmod()), Vec::new(), false));
    }
    let mut out = Vec::new();
    for c in columns {
        let ty = crate::types::column_type(&c.data_type)?;
        out.push((crate::names::ident(&c.name), ty.oid(), ty.typmod()));
    }
    let result = match out.as_slice() {
        [(_, oid, typmod)] => (*oid, *typmod),
        _ => record,
    };
    Ok((result, out, false))
}

/// PostgreSQL's 42804 for a scalar returned (RETURN, RETURN NEXT) by a
/// function whose result is a row type.
pub fn non_composite() -> SqlError {
    SqlError::new(
        "42804",
        "cannot return non-composite value from function returning composite type",
    )
}

/// PostgreSQL's checks of a body against its function's result, made at
/// CREATE (42804): `RETURN expr` in a set-returning function, `RETURN
/// NEXT` / `QUERY` in another, `RETURN NEXT expr` or `RETURN expr` with
/// OUT variables, `RETURN expr` returning void; `RETURN;` returning a
/// value (42601).
pub fn check_body(def: &FunctionDef, block: &Block) -> Result<(), SqlError> {
    let mut found = Ok(());
    walk(&block.body, &mut |stmt| {
        let error = match stmt {
            Stmt::Return(Some(_)) if def.returns_set => SqlError::new(
                "42804",
                "RETURN cannot have a parameter in function returning set",
            )
            .with_hint("Use RETURN NEXT or RETURN QUERY."),
            Stmt::ReturnNext(_) if !def.returns_set => {
                SqlError::new("42804", "cannot use RETURN NEXT in a non-SETOF function")
            }
            Stmt::ReturnQuery(_) | Stmt::ReturnQueryExecute { .. } if !def.returns_set => {
                SqlError::new("42804", "cannot use RETURN QUERY in a non-SETOF function")
            }
            Stmt::ReturnNext(Some(_)) if has_out(def) => SqlError::new(
                "42804",
                "RETURN NEXT cannot have a parameter in function with OUT parameters",
            ),
            Stmt::ReturnNext(None) if def.returns_set && !has_out(def) => {
                SqlError::syntax("missing expression at or near \";\"")
            }
            Stmt::Return(Some(_)) if has_out(def) => SqlError::new(
                "42804",
                "RETURN cannot have a parameter in function with OUT parameters",
            ),
            Stmt::Return(Some(_)) if def.result.0 == crate::sql_functions::VOID => SqlError::new(
                "42804",
                "RETURN cannot have a parameter in function returning void",
            ),
            // A trigger function's `RETURN;` is refused when it runs.
            Stmt::Return(None)
                if !def.returns_set
                    && !def.procedure
                    && !has_out(def)
                    && def.result.0 != crate::sql_functions::VOID
                    && def.result.0 != crate::sql_functions::TRIGGER =>
            {
                SqlError::syntax("missing expression at or near \";\"")
            }
            _ => return,
        };
        if found.is_ok() {
            found = Err(error);
        }
    });
    for handler in &block.handlers {
        check_body(
            def,
            &Block {
                label: None,
                decls: Vec::new(),
                body: handler.body.clone(),
                handlers: Vec::new(),
                print_strict_params: None,
            },
        )?;
    }
    found
}

/// Whether `def` has OUT variables (`RETURNS TABLE`).
pub(crate) fn has_out(def: &FunctionDef) -> bool {
    !def.columns.is_empty() && !def.columns_of_table
}

/// Calls `f` on each statement of `stmts`, nested ones included.
fn walk(stmts: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
    for stmt in stmts {
        f(stmt);
        for body in stmt.branches() {
            walk(body, f);
        }
        match stmt {
            Stmt::Loop { body, .. } => walk(body, f),
            Stmt::Block(b) => {
                walk(&b.body, f);
                for h in &b.handlers {
                    walk(&h.body, f);
                }
            }
            _ => {}
        }
    }
}

/// The rows a running body collects for `def` (a set-returning function),
/// of `record`'s columns for a call of a `SETOF record` one (its column
/// definition list: `record_functions::listed_columns`).
pub fn result_rows(
    def: &FunctionDef,
    record: Option<&[(String, SqlType)]>,
) -> Result<ResultRows, SqlError> {
    let types = match record {
        Some(columns) => columns.iter().map(|(_, t)| *t).collect(),
        None => shape(def)?.into_iter().map(|(_, t)| t).collect(),
    };
    let out = match has_out(def) {
        true => def.columns.iter().map(|c| c.0.clone()).collect(),
        false => Vec::new(),
    };
    Ok(ResultRows {
        types,
        out,
        composite: record.is_some() || !def.columns.is_empty(),
        rows: Vec::new(),
    })
}

/// Each result column's name and type: the named columns, or the
/// function's name and result type.
pub fn shape(def: &FunctionDef) -> Result<Vec<(String, SqlType)>, SqlError> {
    let type_of = |oid: u32, typmod: i32| {
        crate::user_types::of_oid(oid, typmod)
            .ok_or_else(|| SqlError::new("42704", format!("type with oid {oid} does not exist")))
    };
    if def.columns.is_empty() {
        let name = crate::sql_functions::names_of(&def.name).to_string();
        return Ok(vec![(name, type_of(def.result.0, def.result.1)?)]);
    }
    (def.columns.iter())
        .map(|(name, oid, typmod)| Ok((name.clone(), type_of(*oid, *typmod)?)))
        .collect()
}

/// The shape of a call of `def`, a function returning `record`, before
/// its column definition list is read.
pub(crate) fn record_shape(def: &FunctionDef) -> RowsShape {
    RowsShape {
        name: crate::sql_functions::names_of(&def.name).to_string(),
        columns: Vec::new(),
        named_by_alias: false,
        record: true,
    }
}

/// The call of a PL/pgSQL function FROM item `factor` makes, if it is
/// one: the function and its arguments. A function that returns no set
/// gives one row: its value (a composite value's fields; a `record`
/// one's, of the call's column definition list), as in PostgreSQL.
pub fn called_in(factor: &TableFactor) -> Option<(FunctionDef, FunctionArguments)> {
    let (name, args) = match factor {
        TableFactor::Table {
            name,
            args: Some(args),
            ..
        } => (name, &args.args),
        TableFactor::Function { name, args, .. } => (name, args),
        _ => return None,
    };
    let args = FunctionArguments::List(FunctionArgumentList {
        duplicate_treatment: None,
        args: args.clone(),
        clauses: Vec::new(),
    });
    let arity = crate::sql_functions::call_arity(&args);
    let def = crate::sql_functions::resolve_plpgsql(name, arity)?;
    Some((def, args))
}

/// FROM item `factor` (a call of set-returning `def`) made the table
/// function reading parameter `$number`.
pub fn replace_factor(factor: &mut TableFactor, def: &FunctionDef, number: usize) {
    let (new_name, new_args) = rows_call(def, number, false);
    match factor {
        TableFactor::Table {
            name,
            args: Some(args),
            ..
        } => {
            *name = new_name;
            *args = TableFunctionArgs {
                args: new_args,
                settings: None,
            };
        }
        TableFactor::Function { name, args, .. } => {
            *name = new_name;
            *args = new_args;
        }
        _ => {}
    }
}

/// What a call of set-returning `def` in an expression becomes: the
/// table function reading parameter `$number` (a select-list item the
/// planner moves into FROM; elsewhere the planner refuses it). A
/// function of several columns there is 0A000 (PostgreSQL gives a
/// record per row).
pub fn replace_expr(def: &FunctionDef, number: usize) -> Result<Expr, SqlError> {
    if returns_record(def) {
        return Err(SqlError::new(
            "0A000",
            "materialize mode required, but it is not allowed in this context",
        ));
    }
    if def.columns.len() > 1 || def.columns_of_table {
        return Err(SqlError::unsupported(format!(
            "a call of set-returning function \"{}\" of several columns outside FROM (call it in FROM)",
            crate::sql_functions::names_of(&def.name)
        )));
    }
    let (name, args) = rows_call(def, number, true);
    Ok(crate::call_expr::plain_call(name, args))
}

/// `"$plpgsql_rows"(oid, $number [, true])`'s name and arguments: `true`
/// for a call in the select list, whose one column is named by the
/// item's name (PostgreSQL names it so; in FROM a `RETURNS TABLE`
/// column keeps its name).
fn rows_call(def: &FunctionDef, number: usize, item: bool) -> (ObjectName, Vec<FunctionArg>) {
    let arg = |e: Expr| FunctionArg::Unnamed(FunctionArgExpr::Expr(e));
    let oid = Expr::value(sqlparser::ast::Value::Number(def.oid.to_string(), false));
    let param = Expr::value(sqlparser::ast::Value::Placeholder(format!("${number}")));
    let mut args = vec![arg(oid), arg(param)];
    if item {
        args.push(arg(Expr::value(sqlparser::ast::Value::Boolean(true))));
    }
    (
        ObjectName::from(vec![Ident::with_quote('"', ROWS_FUNCTION)]),
        args,
    )
}

/// The FROM item [`ROWS_FUNCTION`]`(oid, $k)` names: the function's
/// result shape (`table_functions.rs` binds it).
#[derive(Debug, Clone, PartialEq)]
pub struct RowsShape {
    /// The function's name (the FROM item's, and its column's when it
    /// returns one value per row).
    pub name: String,
    pub columns: Vec<(String, SqlType)>,
    /// Whether an alias names its column (a function of one value per
    /// row, as PostgreSQL's; else the columns keep their names).
    pub named_by_alias: bool,
    /// Whether it returns `record` or `SETOF record`: `columns` are the
    /// call's column definition list's ([`returns_record`]).
    pub record: bool,
}

/// The shape of the function of oid `oid` (in scope while the statement
/// is planned); `item`: called in a select list.
pub fn rows_shape(oid: i64, item: bool) -> Result<RowsShape, SqlError> {
    let def = crate::sql_functions::by_oid(oid)
        .ok_or_else(|| SqlError::new("42883", format!("function of oid {oid} does not exist")))?;
    if returns_record(&def) {
        return Ok(record_shape(&def));
    }
    if let Some(fields) = one_row_fields(&def) {
        return Ok(RowsShape {
            name: crate::sql_functions::names_of(&def.name).to_string(),
            columns: fields,
            named_by_alias: false,
            record: false,
        });
    }
    Ok(RowsShape {
        name: crate::sql_functions::names_of(&def.name).to_string(),
        columns: shape(&def)?,
        named_by_alias: def.columns.is_empty() || item,
        record: false,
    })
}

/// The fields of the composite type `def` returns when it returns one
/// (not a set): the columns of its call in FROM.
fn one_row_fields(def: &FunctionDef) -> Option<Vec<(String, SqlType)>> {
    if def.returns_set || !def.columns.is_empty() {
        return None;
    }
    match crate::user_types::of_oid(def.result.0, def.result.1) {
        Some(SqlType::Composite(ty)) => Some(ty.fields.clone()),
        _ => None,
    }
}

/// The value of a call in FROM of `def`, a function that returns no set
/// (`value`: what it returned), as the rows [`ROWS_FUNCTION`] reads: one
/// row, of a composite value's fields (NULL: a row of NULLs) or of the
/// value itself. A `record` function's is already its row.
pub fn one_row(def: &FunctionDef, value: Value) -> Value {
    if def.returns_set || returns_record(def) {
        return value;
    }
    let row = match (one_row_fields(def), value) {
        (Some(_), Value::Record(fields)) => fields,
        (Some(fields), _) => vec![Value::Null; fields.len()],
        (None, Value::Record(fields)) if def.columns.len() > 1 => fields,
        (None, Value::Null) if def.columns.len() > 1 => vec![Value::Null; def.columns.len()],
        (None, value) => vec![value],
    };
    Value::array(vec![Value::Record(row)])
}

/// The name of the PL/pgSQL function a call of [`ROWS_FUNCTION`] stands
/// for (messages show it), if `call` is one.
pub fn shown_name(call: &sqlparser::ast::Function) -> Option<String> {
    if crate::names::function(&call.name) != ROWS_FUNCTION {
        return None;
    }
    let FunctionArguments::List(list) = &call.args else {
        return None;
    };
    let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(v)))) = list.args.first()
    else {
        return None;
    };
    let sqlparser::ast::Value::Number(oid, _) = &v.value else {
        return None;
    };
    let def = crate::sql_functions::by_oid(oid.parse().ok()?)?;
    Some(crate::sql_functions::names_of(&def.name).to_string())
}

/// The rows of one run of [`ROWS_FUNCTION`]: the parameter's records.
pub fn rows_of(value: Value) -> Vec<Vec<Value>> {
    match value {
        Value::Array(rows) => (rows.into_iter())
            .map(|r| match r {
                Value::Record(fields) => fields,
                other => vec![other],
            })
            .collect(),
        _ => Vec::new(),
    }
}
