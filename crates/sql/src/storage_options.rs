//! A table's storage options (PostgreSQL's `reloptions` of a heap):
//! `CREATE TABLE ... WITH (name = value, ...)` and `ALTER TABLE ... SET
//! (...)` / `RESET (...)` (read by `view_options.rs`, which owns those
//! forms' syntax for views and tables). The one owner of which names a table takes, of what type and
//! within what bounds, with PostgreSQL 15's errors (reloptions.c:
//! 22023 for an unknown name, a value of the wrong type, one out of
//! bounds, a name given twice). The checked options are stored as
//! written (folio-catalog `storage_options.rs`), in the order
//! `pg_class.reloptions` shows them; folio acts on `fillfactor` (the
//! heap leaves the rest of each page to updates) and
//! `autovacuum_enabled`, and keeps the others for what reads them.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::view_options::{Action, Written};
use folio_catalog::StorageOptions;
use folio_db::Transaction;

/// What an option's value must be.
#[derive(Clone, Copy)]
enum Kind {
    Bool,
    Int(i64, i64),
    Real(f64, f64),
    /// `vacuum_index_cleanup`: a boolean or `auto`.
    IndexCleanup,
}

const INT_MAX: i64 = i32::MAX as i64;

/// A heap's options (PostgreSQL 15's `boolRelOpts`, `intRelOpts`,
/// `realRelOpts` and `enumRelOpts` of kind `RELOPT_KIND_HEAP`).
const HEAP_OPTIONS: &[(&str, Kind)] = &[
    ("autovacuum_enabled", Kind::Bool),
    ("user_catalog_table", Kind::Bool),
    ("vacuum_truncate", Kind::Bool),
    ("fillfactor", Kind::Int(10, 100)),
    ("autovacuum_vacuum_threshold", Kind::Int(0, INT_MAX)),
    ("autovacuum_vacuum_insert_threshold", Kind::Int(-1, INT_MAX)),
    ("autovacuum_analyze_threshold", Kind::Int(0, INT_MAX)),
    ("autovacuum_vacuum_cost_limit", Kind::Int(1, 10_000)),
    ("autovacuum_freeze_min_age", Kind::Int(0, 1_000_000_000)),
    (
        "autovacuum_multixact_freeze_min_age",
        Kind::Int(0, 1_000_000_000),
    ),
    (
        "autovacuum_freeze_max_age",
        Kind::Int(100_000, 2_000_000_000),
    ),
    (
        "autovacuum_multixact_freeze_max_age",
        Kind::Int(10_000, 2_000_000_000),
    ),
    ("autovacuum_freeze_table_age", Kind::Int(0, 2_000_000_000)),
    (
        "autovacuum_multixact_freeze_table_age",
        Kind::Int(0, 2_000_000_000),
    ),
    ("log_autovacuum_min_duration", Kind::Int(-1, INT_MAX)),
    ("toast_tuple_target", Kind::Int(128, 8160)),
    ("parallel_workers", Kind::Int(0, 1024)),
    ("autovacuum_vacuum_cost_delay", Kind::Real(0.0, 100.0)),
    ("autovacuum_vacuum_scale_factor", Kind::Real(0.0, 100.0)),
    (
        "autovacuum_vacuum_insert_scale_factor",
        Kind::Real(0.0, 100.0),
    ),
    ("autovacuum_analyze_scale_factor", Kind::Real(0.0, 100.0)),
    ("vacuum_index_cleanup", Kind::IndexCleanup),
];

fn invalid(message: String) -> SqlError {
    SqlError::new("22023", message)
}

/// Checks one option's written value (`None`: the name alone, which
/// PostgreSQL reads as `true`) and gives the text stored.
fn check(name: &str, value: Option<String>) -> Result<(String, String), SqlError> {
    let Some(&(_, kind)) = HEAP_OPTIONS.iter().find(|(n, _)| *n == name) else {
        return Err(invalid(format!("unrecognized parameter \"{name}\"")));
    };
    let text = value.unwrap_or_else(|| "true".to_string());
    let out_of_bounds = |low: String, high: String| {
        invalid(format!("value {text} out of bounds for option \"{name}\"")).with_detail(format!(
            "Valid values are between \"{low}\" and \"{high}\"."
        ))
    };
    match kind {
        Kind::Bool => {
            crate::view_options::boolean(&text).ok_or_else(|| {
                invalid(format!(
                    "invalid value for boolean option \"{name}\": {text}"
                ))
            })?;
        }
        Kind::Int(low, high) => {
            let n = parse_int(&text).ok_or_else(|| {
                invalid(format!(
                    "invalid value for integer option \"{name}\": {text}"
                ))
            })?;
            if n < low || n > high {
                return Err(out_of_bounds(low.to_string(), high.to_string()));
            }
        }
        Kind::Real(low, high) => {
            let x: f64 = text.trim().parse().map_err(|_| {
                invalid(format!(
                    "invalid value for floating point option \"{name}\": {text}"
                ))
            })?;
            if !(low..=high).contains(&x) {
                return Err(out_of_bounds(format!("{low:.6}"), format!("{high:.6}")));
            }
        }
        Kind::IndexCleanup => {
            let auto = text.eq_ignore_ascii_case("auto");
            if !auto && crate::view_options::boolean(&text).is_none() {
                return Err(
                    invalid(format!("invalid value for enum option \"{name}\": {text}"))
                        .with_detail("Valid values are \"on\", \"off\", and \"auto\".".to_string()),
                );
            }
        }
    }
    Ok((name.to_string(), text))
}

/// PostgreSQL's `parse_int` without units: an integer, or a number with
/// a fraction rounded to the nearest (half to even, as `rint`).
fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Ok(n) = t.parse::<i64>() {
        return Some(n);
    }
    let x: f64 = t.parse().ok()?;
    let r = x.round_ties_even();
    (r.is_finite() && r.abs() < 9.2e18).then_some(r as i64)
}

/// The options `list` sets, checked (a name given twice is 22023), as
/// (name, text) in the order written.
fn checked(list: &[Written]) -> Result<Vec<(String, String)>, SqlError> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(list.len());
    for (name, value) in list {
        if out.iter().any(|(n, _)| n == name) {
            return Err(invalid(format!(
                "parameter \"{name}\" specified more than once"
            )));
        }
        out.push(check(name, value.clone())?);
    }
    Ok(out)
}

/// `CREATE TABLE`'s `WITH (...)` (none: no options).
pub fn of_create(options: &sqlparser::ast::CreateTableOptions) -> Result<StorageOptions, SqlError> {
    Ok(StorageOptions(checked(&crate::view_options::written(
        options,
    )?)?))
}

/// `ALTER TABLE t SET (...)` or `RESET (...)` of table `name`: as
/// PostgreSQL, SET drops the names it sets and appends them in the order
/// written; RESET drops the names (unknown ones too, silently).
pub fn alter(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &str,
    action: &Action,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let table = catalog
        .table(txn, name)?
        .ok_or_else(|| SqlError::undefined_table(name))?;
    let (dropped, added): (Vec<&String>, Vec<(String, String)>) = match action {
        Action::Set(list) => {
            let added = checked(list)?;
            (list.iter().map(|(n, _)| n).collect(), added)
        }
        Action::Reset(names) => (names.iter().collect(), Vec::new()),
        _ => unreachable!("SET or RESET"),
    };
    let mut options: Vec<(String, String)> = (table.storage.0.into_iter())
        .filter(|(n, _)| !dropped.contains(&n))
        .collect();
    options.extend(added);
    catalog.set_storage_options(txn, name, StorageOptions(options))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_as_postgresql_checks_them() {
        assert_eq!(check("fillfactor", Some("30".into())).unwrap().1, "30");
        assert_eq!(check("autovacuum_enabled", None).unwrap().1, "true");
        assert_eq!(
            check("fillfactor", Some("2".into())).unwrap_err().code,
            "22023"
        );
        assert_eq!(
            check("fillfactor", Some("true".into())).unwrap_err().code,
            "22023"
        );
        assert_eq!(check("nope", Some("1".into())).unwrap_err().code, "22023");
        assert!(check("autovacuum_analyze_scale_factor", Some("110.0".into())).is_err());
        assert!(check("vacuum_index_cleanup", Some("auto".into())).is_ok());
        assert_eq!(parse_int("30.5"), Some(30));
        assert_eq!(parse_int("31.5"), Some(32));
    }
}
