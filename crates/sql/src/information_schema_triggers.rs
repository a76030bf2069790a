//! `information_schema.triggers`: a row per trigger and event (INSERT,
//! DELETE, UPDATE; a TRUNCATE trigger has none), as PostgreSQL 15's
//! view. `action_order` ranks the triggers of one table, event, timing
//! and level by name (the order they fire in); `action_condition` and
//! `action_statement` are the `WHEN` condition and the `EXECUTE FUNCTION`
//! clause of the trigger's `pg_get_triggerdef` text. Every user table's
//! and view's triggers are listed (PostgreSQL: those of tables the user
//! owns or holds a privilege other than SELECT on).

use crate::error::SqlError;
use crate::lookups::Lookups;
use folio_catalog::{
    Catalog, TRIGGER_BEFORE, TRIGGER_DELETE, TRIGGER_INSERT, TRIGGER_INSTEAD, TRIGGER_ROW,
    TRIGGER_UPDATE, TriggerDef,
};
use folio_db::Transaction;
use folio_row::{SqlType, Value};

use SqlType::{Int4, Text};

/// The database's name, each `*_catalog` column.
const DATABASE: &str = "postgres";

/// The view's columns.
pub const COLUMNS: &[(&str, SqlType)] = &[
    ("trigger_catalog", Text),
    ("trigger_schema", Text),
    ("trigger_name", Text),
    ("event_manipulation", Text),
    ("event_object_catalog", Text),
    ("event_object_schema", Text),
    ("event_object_table", Text),
    ("action_order", Int4),
    ("action_condition", Text),
    ("action_statement", Text),
    ("action_orientation", Text),
    ("action_timing", Text),
    ("action_reference_old_table", Text),
    ("action_reference_new_table", Text),
    ("action_reference_old_row", Text),
    ("action_reference_new_row", Text),
    ("created", SqlType::TimestampTz(Some(2))),
];

/// The events a row is made for, in PostgreSQL's order.
const EVENTS: [(u16, &str); 3] = [
    (TRIGGER_INSERT, "INSERT"),
    (TRIGGER_DELETE, "DELETE"),
    (TRIGGER_UPDATE, "UPDATE"),
];

/// The bits of `tgtype` that say when a trigger fires.
const TIMING: u16 = TRIGGER_BEFORE | TRIGGER_INSTEAD;

/// Appends the view's rows as `txn` sees the catalog.
pub fn rows(
    catalog: &Catalog,
    txn: &Transaction,
    out: &mut Vec<Vec<Value>>,
) -> Result<(), SqlError> {
    let lookups = Lookups::read_names(catalog, txn)?;
    let triggers = crate::triggers::in_scope();
    let listed: Vec<&TriggerDef> = (triggers.iter()).filter(|t| !t.is_internal()).collect();
    for t in &listed {
        let Some(table) = lookups.catalog_name(t.table as i64) else {
            continue;
        };
        let (schema, bare) = folio_catalog::split_schema(&table);
        let schema = if schema.is_empty() {
            folio_catalog::PUBLIC
        } else {
            schema
        };
        let function = crate::builtin_triggers::function_of(t.function)
            .map(|f| f.name)
            .unwrap_or_else(|| t.function.to_string());
        let definition = crate::trigger_statements::definition(t, &table, &function, false);
        let statement = definition
            .find(" EXECUTE FUNCTION ")
            .map(|at| definition[at + 1..].to_string());
        let condition = t.when.as_deref().map(crate::deparse::parenthesized);
        for (bit, event) in EVENTS {
            if t.kind & bit == 0 {
                continue;
            }
            // Ties share a rank, as with SQL's rank().
            let same_group = |o: &&&TriggerDef| {
                o.table == t.table
                    && o.kind & bit != 0
                    && o.kind & TRIGGER_ROW == t.kind & TRIGGER_ROW
                    && o.kind & TIMING == t.kind & TIMING
            };
            let order = 1
                + (listed.iter())
                    .filter(same_group)
                    .filter(|o| o.name < t.name)
                    .count();
            out.push(vec![
                text(DATABASE),
                text(schema),
                text(&t.name),
                text(event),
                text(DATABASE),
                text(schema),
                text(bare),
                Value::Int4(i32::try_from(order).unwrap_or(i32::MAX)),
                condition.as_deref().map_or(Value::Null, text),
                statement.as_deref().map_or(Value::Null, text),
                text(if t.kind & TRIGGER_ROW != 0 {
                    "ROW"
                } else {
                    "STATEMENT"
                }),
                text(match t.kind & TIMING {
                    TRIGGER_BEFORE => "BEFORE",
                    TRIGGER_INSTEAD => "INSTEAD OF",
                    _ => "AFTER",
                }),
                t.old_table.as_deref().map_or(Value::Null, text),
                t.new_table.as_deref().map_or(Value::Null, text),
                Value::Null,
                Value::Null,
                Value::Null,
            ]);
        }
    }
    Ok(())
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}
