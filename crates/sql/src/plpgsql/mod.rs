//! PL/pgSQL, the subset schema-migration tools and applications use:
//! `DO` blocks and `CREATE FUNCTION ... LANGUAGE plpgsql` (README
//! "PL/pgSQL").
//!
//! - `parse.rs`: the body's block structure, read by hand over
//!   sqlparser's tokens; the SQL pieces in it parsed by folio's parser.
//! - `exec.rs`: the interpreter, running each SQL piece in the
//!   statement's transaction with its variables as typed parameters,
//!   and a block with handlers in a savepoint.
//! - `calls.rs`: a call of a PL/pgSQL function in a statement, run
//!   before the statement is planned and replaced by its value.
//! - `conditions.rs`: exception condition names and what they catch.

pub mod calls;
pub mod conditions;
pub mod exec;
pub mod parse;

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
    let mut runner = exec::Runner::new(cx, txn, notices);
    runner.run(block).map_err(plpgsql_error)?;
    Ok(Output::command("DO"))
}

/// The value of a call of PL/pgSQL function `def` with `args` (of its
/// argument types).
pub fn call(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    def: &FunctionDef,
    args: Vec<Value>,
) -> Result<Value, SqlError> {
    crate::stack::check()?;
    let block = parse::parse(&def.body)?;
    let mut runner = exec::Runner::new(cx, txn, notices);
    let label = crate::sql_functions::names_of(&def.name).to_string();
    for (i, ((name, oid, typmod), value)) in def.args.iter().zip(args).enumerate() {
        let ty = crate::user_types::of_oid(*oid, *typmod)
            .ok_or_else(|| SqlError::new("42704", format!("type with oid {oid} does not exist")))?;
        // Each argument is `$n`, and its name if it has one.
        let number = format!("${}", i + 1);
        if name.is_empty() {
            runner.declare(&number, Some(&label), ty, value);
        } else {
            runner.declare(name, Some(&label), ty, value);
            runner.alias_last(&number);
        }
    }
    let returned = runner.run(&block).map_err(plpgsql_error)?;
    match returned {
        // A `void` is shown as an empty text.
        _ if def.result.0 == crate::sql_functions::VOID => Ok(Value::Text(String::new())),
        None => Err(SqlError::new(
            "2F005",
            "control reached end of function without RETURN",
        )),
        Some(Value::Null) => Ok(Value::Null),
        Some(value) => {
            let ty = crate::user_types::of_oid(def.result.0, def.result.1).ok_or_else(|| {
                SqlError::new(
                    "42704",
                    format!("type with oid {} does not exist", def.result.0),
                )
            })?;
            crate::types::explicit_cast(value, ty)
        }
    }
}

/// An error leaving a body: as it was raised (its SQLSTATE kept), its
/// position in a statement of the body dropped (it is not the client's
/// text).
fn plpgsql_error(mut e: SqlError) -> SqlError {
    e.position = None;
    e.location = None;
    e
}
