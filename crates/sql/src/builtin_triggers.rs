//! Trigger functions PostgreSQL builds in (C functions there), run here
//! in Rust: `suppress_redundant_updates_trigger()`, a BEFORE UPDATE row
//! trigger that skips the update of a row whose new version equals the
//! old one field for field (PostgreSQL compares the tuples' bytes), so
//! no new row version is written and the row is not counted. A user's
//! function of the name is found first (`trigger_statements.rs`).

use crate::error::SqlError;
use crate::plpgsql::TriggerCall;
use folio_catalog::FunctionDef;
use folio_row::Value;
use sqlparser::ast::ObjectName;

/// `suppress_redundant_updates_trigger()`'s oid (PostgreSQL's `pg_proc`).
const SUPPRESS_REDUNDANT_UPDATES: u64 = 1291;

/// Its name.
const SUPPRESS_NAME: &str = "suppress_redundant_updates_trigger";

/// The built-in trigger function `name` calls (bare or in `pg_catalog`).
pub fn resolve(name: &ObjectName) -> Option<FunctionDef> {
    (crate::names::builtin(name)? == SUPPRESS_NAME).then(suppress_def)
}

/// The built-in trigger function of oid `oid`.
fn by_oid(oid: u64) -> Option<FunctionDef> {
    (oid == SUPPRESS_REDUNDANT_UPDATES).then(suppress_def)
}

fn suppress_def() -> FunctionDef {
    FunctionDef {
        oid: SUPPRESS_REDUNDANT_UPDATES,
        name: SUPPRESS_NAME.to_string(),
        result: (crate::sql_functions::TRIGGER, -1),
        volatility: b'i',
        strict: true,
        body: SUPPRESS_NAME.to_string(),
        ..FunctionDef::default()
    }
}

/// Runs built-in trigger function `function` for `call`, if it is one:
/// the row to write (`None`: skip it).
pub fn run(
    function: &FunctionDef,
    call: &TriggerCall<'_>,
) -> Option<Result<Option<Vec<Value>>, SqlError>> {
    if function.plpgsql || function.oid != SUPPRESS_REDUNDANT_UPDATES {
        return None;
    }
    let misuse = |what: &str| {
        Some(Err(SqlError::new(
            "09000",
            format!("suppress_redundant_updates_trigger: must be called {what}"),
        )))
    };
    if call.op != "UPDATE" {
        return misuse("on update");
    }
    if call.when != "BEFORE" {
        return misuse("before update");
    }
    if call.level != "ROW" {
        return misuse("for each row");
    }
    Some(Ok(match (call.old, call.new) {
        (Some(old), Some(new)) if same_row(old, new) => None,
        (_, new) => new.map(<[Value]>::to_vec),
    }))
}

/// Whether two versions of a row are the same, field for field (NULL
/// the same as NULL, as PostgreSQL's byte comparison has it).
fn same_row(old: &[Value], new: &[Value]) -> bool {
    old.len() == new.len() && old.iter().zip(new).all(|(a, b)| a == b)
}

/// The function of oid `oid` a trigger runs: a user's, or a built-in one.
pub fn function_of(oid: u64) -> Option<FunctionDef> {
    crate::sql_functions::by_oid(oid as i64).or_else(|| by_oid(oid))
}
