//! PL/pgSQL, the subset schema-migration tools and applications use:
//! `DO` blocks and `CREATE FUNCTION ... LANGUAGE plpgsql` (README
//! "PL/pgSQL").
//!
//! - `parse.rs`: the body's block structure, read by hand over
//!   sqlparser's tokens; the SQL pieces in it parsed by folio's parser.
//!   `parse_cursors.rs` (a child of `parse.rs`) reads the cursor
//!   declarations and statements.
//! - `exec.rs`: the interpreter, running each SQL piece in the
//!   statement's transaction with its variables as typed parameters,
//!   and a block with handlers in a savepoint.
//!   `cursor_statements.rs` (a child of `exec.rs`) runs OPEN, FETCH,
//!   MOVE, CLOSE and FOR over a cursor in the session's cursor store.
//! - `calls.rs`: a call of a PL/pgSQL function in a statement that
//!   PostgreSQL gives one value for the whole statement, run before the
//!   statement is planned and replaced by its value.
//! - `row_calls.rs`: the other calls, run per row the expression is
//!   evaluated for, with the transaction the statement's run lends.
//! - `plan_cache.rs`: the session's kept bodies, parsed once, and their
//!   statements' plans, made once per function.
//! - `conditions.rs`: exception condition names and what they catch.
//! - `conversion.rs`: a value into a variable's (a field's, a result's)
//!   type: an assignment cast, else through text.
//! - `extra_checks.rs`: `plpgsql.extra_warnings` / `extra_errors`.
//! - `set_returning.rs`: functions returning SETOF / TABLE, their rows
//!   collected by RETURN NEXT / QUERY and read back as a FROM item's.
//! - `subscripted_targets.rs`: `a[i] := x`, read as a plain assignment
//!   of the array SQL's `SET a[i] = x` makes.

pub mod body_scopes;
pub mod calls;
pub mod conditions;
pub mod conversion;
pub mod exec;
pub mod extra_checks;
pub mod parse;
pub mod plan_cache;
pub mod record_json;
pub mod record_stars;
pub mod row_calls;
pub mod scalar_targets;
pub mod set_returning;
pub mod subscripted_targets;

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use folio_catalog::FunctionDef;
use folio_db::Transaction;
use folio_row::Value;

/// `DO [LANGUAGE plpgsql] 'body'`: the block run.
pub fn do_block(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    block: &parse::Block,
) -> Result<Output, SqlError> {
    // The block is a function returning void (`RETURN 1` is 42804).
    let void = FunctionDef {
        result: (crate::sql_functions::VOID, -1),
        ..FunctionDef::default()
    };
    set_returning::check_body(&void, block)?;
    scalar_targets::check(&void, block)?;
    let nonatomic = cx.nonatomic.take();
    let mut runner = exec::Runner::new(cx, txn, notices);
    if nonatomic {
        runner.nonatomic();
    }
    runner.run(block).map_err(plpgsql_error)?;
    Ok(Output::command("DO"))
}

/// The value of a call of PL/pgSQL function `def` with `args` (of its
/// argument types): its body and plans the session's kept ones
/// (`plan_cache.rs`).
pub fn call(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    def: &FunctionDef,
    args: Vec<Value>,
) -> Result<Value, SqlError> {
    call_returning(cx, txn, notices, def, None, args)
}

/// Whether a call of `def` with `args` (of its argument types) is NULL
/// without running its body: `def` is STRICT and an argument is NULL.
/// Each argument of a domain meets the domain's rules first (23502 /
/// 23514), as PostgreSQL casts the arguments to the parameters' types
/// before it tests them (`domain nn does not allow null values` for a
/// NULL given to a parameter of a NOT NULL domain).
pub fn strict_null(cx: &Ctx<'_>, def: &FunctionDef, args: &[Value]) -> Result<bool, SqlError> {
    if !def.strict || !args.contains(&Value::Null) {
        return Ok(false);
    }
    let env = crate::scalar::Env::at(cx.now());
    for ((_, oid, _), value) in def.args.iter().zip(args) {
        if let Some(rules) = crate::domains::rules_of_oid(*oid)? {
            rules.enforce(value, &env)?;
        }
    }
    Ok(true)
}

/// [`call`], the rows of a function returning `record` or `SETOF
/// record` of `record`'s columns (its call's column definition list;
/// `record_functions.rs`), as an array of records.
pub fn call_returning(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    def: &FunctionDef,
    record: Option<&[(String, folio_row::SqlType)]>,
    args: Vec<Value>,
) -> Result<Value, SqlError> {
    crate::stack::check()?;
    callable(def)?;
    crate::routine_privileges::check_execute(cx, def)?;
    let (block, stamp) = cx.plpgsql.body(def)?;
    let block = &*block;
    let mut runner = exec::Runner::new(cx, txn, notices);
    if plan_cache::usable(cx) {
        runner.cached(stamp);
    }
    if def.volatility != b'v' {
        runner.read_only();
    }
    let label = crate::sql_functions::names_of(&def.name).to_string();
    for (i, ((name, oid, typmod), value)) in def.args.iter().zip(args).enumerate() {
        let ty = crate::user_types::of_oid(*oid, *typmod)
            .ok_or_else(|| SqlError::new("42704", format!("type with oid {oid} does not exist")))?;
        declare_argument(&mut runner, &label, i, (name, *oid), ty, value)?;
    }
    if def.returns_set {
        // Its rows, as one value (`set_returning.rs`).
        runner.collect_rows(set_returning::result_rows(def, record)?, &label)?;
        alias_unnamed_outputs(&mut runner, def);
        runner.run(block).map_err(plpgsql_error)?;
        return Ok(runner.take_rows().map_or(Value::Null, |r| r.into_value()));
    }
    let outputs = output_variables(def)?;
    runner.declare_outputs(&outputs, &label);
    alias_unnamed_outputs(&mut runner, def);
    let mut returned = runner.run(block).map_err(plpgsql_error)?;
    if !outputs.is_empty() {
        // `RETURN;` or the end: the OUT variables' values, a row of them
        // when there are more than one.
        let mut values: Vec<Value> = (outputs.iter())
            .map(|(name, _)| runner.value_of(name))
            .collect();
        returned = Some(match values.len() {
            1 => values.remove(0),
            _ => Value::Record(values),
        });
    }
    if let (Some(columns), Some(value)) = (record, &returned) {
        // A `record` function called in FROM: its one row, checked
        // against the call's list (`record_functions.rs`).
        let types: Vec<_> = columns.iter().map(|(_, t)| *t).collect();
        let row = crate::record_functions::returned_record(value.clone(), &types)?;
        return Ok(Value::array(vec![Value::Record(row)]));
    }
    match returned {
        // A `void` is shown as an empty text.
        _ if def.result.0 == crate::sql_functions::VOID => Ok(Value::Text(String::new())),
        None => Err(SqlError::new(
            "2F005",
            "control reached end of function without RETURN",
        )),
        Some(value) => {
            let value = match value {
                Value::Null => Value::Null,
                value => {
                    let ty = (crate::user_types::of_oid(def.result.0, def.result.1)).ok_or_else(
                        || {
                            SqlError::new(
                                "42704",
                                format!("type with oid {} does not exist", def.result.0),
                            )
                        },
                    )?;
                    // A row type takes rows only (PostgreSQL's RETURN
                    // refuses a scalar, a string of a row's text too),
                    // of the type's width and field types (no casts:
                    // `record_functions::check_row`).
                    if let folio_row::SqlType::Composite(c) = ty {
                        let types: Vec<_> = c.fields.iter().map(|(_, t)| *t).collect();
                        crate::record_functions::returned_record(value.clone(), &types)?;
                    }
                    conversion::convert(value, None, ty)?
                }
            };
            // A result of a domain meets its rules (PostgreSQL casts the
            // value returned to the function's return type).
            if let Some(rules) = crate::domains::rules_of_oid(def.result.0)? {
                rules.enforce(&value, &crate::scalar::Env::at(cx.now()))?;
            }
            Ok(value)
        }
    }
}

/// The OUT (and INOUT) variables of function `def` that returns one
/// value or row (not a set): its result's columns, with their types.
fn output_variables(def: &FunctionDef) -> Result<Vec<(String, folio_row::SqlType)>, SqlError> {
    if def.returns_set || def.columns_of_table || def.columns.is_empty() {
        return Ok(Vec::new());
    }
    set_returning::shape(def)
}

/// `$n` for a function's unnamed OUT parameters, when it has no input
/// ones (their numbers are then their positions among the outputs;
/// folio keeps no order of inputs among outputs to number them
/// otherwise).
fn alias_unnamed_outputs(runner: &mut exec::Runner<'_, '_>, def: &FunctionDef) {
    if !def.args.is_empty() || def.columns_of_table {
        return;
    }
    for (i, (name, ..)) in def.columns.iter().enumerate() {
        if *name == format!("column{}", i + 1) {
            runner.alias_named(name, &format!("${}", i + 1));
        }
    }
}

/// Declares routine argument `i` (named `name`, or unnamed; of declared
/// type oid `oid`) in `runner`'s outermost block: it is `$n`, and also
/// its name if it has one; the name it is shown by. An argument of a
/// domain must meet its rules, now and after each assignment.
fn declare_argument(
    runner: &mut exec::Runner<'_, '_>,
    label: &str,
    i: usize,
    (name, oid): (&str, u32),
    ty: folio_row::SqlType,
    value: Value,
) -> Result<String, SqlError> {
    let number = format!("${}", i + 1);
    let shown = match name.is_empty() {
        true => {
            runner.declare(&number, Some(label), ty, value);
            number
        }
        false => {
            runner.declare(name, Some(label), ty, value);
            runner.alias_last(&number);
            name.to_string()
        }
    };
    if let Some(rules) = crate::domains::rules_of_oid(oid)? {
        runner.keep_domain_last(rules)?;
    }
    Ok(shown)
}

/// The names a procedure's OUT and INOUT arguments go by in its body
/// (`$n` for one without a name), in order.
pub fn output_names(def: &FunctionDef) -> Vec<String> {
    (def.args.iter().enumerate())
        .filter(|(i, _)| def.is_output(*i))
        .map(|(i, (name, ..))| match name.is_empty() {
            true => format!("${}", i + 1),
            false => name.clone(),
        })
        .collect()
}

/// Runs procedure `def` with `args` (each argument's value and type, an
/// OUT one's NULL): its OUT and INOUT arguments' names, types and values
/// when it ends (the body and plans the session's kept ones).
pub fn call_procedure(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    def: &FunctionDef,
    args: Vec<(Value, folio_row::SqlType)>,
    nonatomic: bool,
) -> Result<Vec<(String, folio_row::SqlType, Value)>, SqlError> {
    crate::routine_privileges::check_execute(cx, def)?;
    let (block, stamp) = cx.plpgsql.body(def)?;
    if !def.plpgsql {
        // A SQL body may not end its transaction: refused before it runs.
        if let Some(word) = block.body.iter().find_map(transaction_word) {
            return Err(SqlError::new(
                "0A000",
                format!("{word} is not allowed in an SQL function"),
            ));
        }
    }
    let mut runner = exec::Runner::new(cx, txn, notices);
    if plan_cache::usable(cx) {
        runner.cached(stamp);
    }
    if nonatomic && def.plpgsql {
        runner.nonatomic();
    }
    let label = crate::sql_functions::names_of(&def.name).to_string();
    let mut outputs = Vec::new();
    for (i, ((name, oid, _), (value, ty))) in def.args.iter().zip(args).enumerate() {
        let shown = declare_argument(&mut runner, &label, i, (name, *oid), ty, value)?;
        if def.is_output(i) {
            outputs.push((shown, ty));
        }
    }
    runner.run(&block).map_err(plpgsql_error)?;
    Ok(outputs
        .into_iter()
        .map(|(name, ty)| {
            let value = runner.value(&name).unwrap_or(Value::Null);
            let shown = match name.starts_with('$') {
                // PostgreSQL names an unnamed one's column by its type.
                true => ty.name(),
                false => name,
            };
            (shown, ty, value)
        })
        .collect())
}

/// The command word of a transaction command among a SQL body's
/// statements (`COMMIT`, `SAVEPOINT`, ...).
fn transaction_word(stmt: &parse::Stmt) -> Option<String> {
    let parse::Stmt::Sql { sql, .. } = stmt else {
        return None;
    };
    let statement = parse::sql_statement(sql)?;
    crate::transaction_control::is_transaction_command(statement).then(|| {
        let text = statement.to_string();
        let word = text.split_whitespace().next().unwrap_or_default();
        word.to_ascii_uppercase()
    })
}

/// 0A000 for a trigger function, which only triggers call.
pub fn callable(def: &FunctionDef) -> Result<(), SqlError> {
    if def.result.0 == crate::sql_functions::TRIGGER {
        return Err(SqlError::new(
            "0A000",
            "trigger functions can only be called as triggers",
        ));
    }
    Ok(())
}

/// What a trigger function is called with (`TG_*`, `NEW`, `OLD`).
pub struct TriggerCall<'a> {
    pub name: &'a str,
    /// `BEFORE` or `AFTER`.
    pub when: &'a str,
    /// `ROW` or `STATEMENT`.
    pub level: &'a str,
    /// `INSERT`, `UPDATE` or `DELETE`.
    pub op: &'a str,
    pub table_oid: u64,
    pub table: &'a str,
    pub schema: &'a str,
    pub args: &'a [String],
    /// The table's columns' names and types: `NEW` and `OLD`'s fields.
    pub columns: &'a [(String, folio_row::SqlType)],
    pub old: Option<&'a [Value]>,
    pub new: Option<&'a [Value]>,
}

/// Runs trigger function `def` for one row: what it returned (`NEW` or
/// `OLD` as a row of the table's columns, or `None` for NULL). A
/// statement trigger's result is ignored (`None`).
pub fn call_trigger(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    def: &FunctionDef,
    call: &TriggerCall<'_>,
) -> Result<Option<Vec<Value>>, SqlError> {
    crate::stack::check()?;
    let (block, stamp) = cx.plpgsql.body(def)?;
    let block = &*block;
    let mut runner = exec::Runner::new(cx, txn, notices);
    if plan_cache::usable(cx) {
        runner.cached(stamp);
    }
    declare_trigger_variables(&mut runner, call);
    let returned = runner.run(block).map_err(plpgsql_error)?;
    match returned {
        None => Err(SqlError::new(
            "2F005",
            "control reached end of trigger procedure without RETURN",
        )),
        Some(_) if call.level == "STATEMENT" => Ok(None),
        Some(Value::Null) => Ok(None),
        Some(Value::Record(values)) if values.len() == call.columns.len() => {
            // Each field to its column's type (a field assigned a value of
            // another type keeps the column's).
            let row = values
                .into_iter()
                .zip(call.columns)
                .map(|(v, (_, ty))| conversion::convert(v, None, *ty))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Some(row))
        }
        Some(_) => Err(SqlError::new(
            "42804",
            "returned row structure does not match the structure of the triggering table",
        )
        .with_detail("Number of returned columns does not match expected column count.")),
    }
}

/// Whether `condition` (a trigger's `WHEN`, as `SELECT cond`) holds for
/// the row `call` describes.
pub fn trigger_condition(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    condition: &parse::Sql,
    call: &TriggerCall<'_>,
) -> Result<bool, SqlError> {
    let mut runner = exec::Runner::new(cx, txn, notices);
    declare_trigger_variables(&mut runner, call);
    runner.condition(condition).map_err(plpgsql_error)
}

fn declare_trigger_variables(runner: &mut exec::Runner<'_, '_>, call: &TriggerCall<'_>) {
    use folio_row::SqlType;
    let record = |row: Option<&[Value]>| row.map_or(Value::Null, |r| Value::Record(r.to_vec()));
    runner.declare_record("new", call.columns.to_vec(), record(call.new));
    runner.declare_record("old", call.columns.to_vec(), record(call.old));
    let text = |s: &str| Value::Text(s.to_string());
    runner.declare("tg_name", None, SqlType::Text, text(call.name));
    runner.declare("tg_when", None, SqlType::Text, text(call.when));
    runner.declare("tg_level", None, SqlType::Text, text(call.level));
    runner.declare("tg_op", None, SqlType::Text, text(call.op));
    let oid = u32::try_from(call.table_oid).unwrap_or(u32::MAX);
    runner.declare("tg_relid", None, SqlType::Oid, Value::Oid(oid));
    runner.declare("tg_relname", None, SqlType::Text, text(call.table));
    runner.declare("tg_table_name", None, SqlType::Text, text(call.table));
    runner.declare("tg_table_schema", None, SqlType::Text, text(call.schema));
    let nargs = i32::try_from(call.args.len()).unwrap_or(i32::MAX);
    runner.declare("tg_nargs", None, SqlType::Int4, Value::Int4(nargs));
    let argv = call.args.iter().map(|a| text(a)).collect();
    let argv_type = SqlType::Text.array_of().unwrap_or(SqlType::Text);
    runner.declare("tg_argv", None, argv_type, Value::Array(argv));
}

/// An error leaving a body: as it was raised (its SQLSTATE kept), its
/// position in a statement of the body dropped (it is not the client's
/// text).
fn plpgsql_error(mut e: SqlError) -> SqlError {
    e.position = None;
    e.location = None;
    e
}
