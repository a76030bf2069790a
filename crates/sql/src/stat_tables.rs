//! `pg_stat_all_tables` / `_user_tables` / `_sys_tables`, `pg_stat_all_indexes`
//! / `_user_indexes` / `_sys_indexes`, and the `pg_stat_get_*` functions
//! behind them: the database's cumulative statistics (folio-txn
//! `stat_store.rs`, counted by the executor: `stat_counts.rs` there) with
//! PostgreSQL 15's columns in its order.
//!
//! Rows are the tables the running transaction sees (temporary ones under
//! their `pg_temp_N` schema), each with its counts, or zeros for a table
//! nothing was counted of since it was made or the statistics were
//! reset. A table's `idx_scan` and `idx_tup_fetch` are its indexes'
//! sums, NULL for a table without an index, as PostgreSQL's view computes
//! them. The `_sys_` views are empty: folio's `pg_catalog` relations are
//! made from its catalog at each read, not tables whose scans are
//! counted. Types as the other `pg_catalog` relations' (`system.rs`): an
//! oid is `bigint`, a `name` is `text`.

use folio_catalog::TableDef;
use folio_row::{SqlType, Value};
use folio_txn::{StatEntry, StatStore};

use SqlType::{Int8, Oid, Text, TimestampTz};

/// Which tables or indexes a view lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    All,
    User,
    Sys,
}

pub const TABLE_COLUMNS: &[(&str, SqlType)] = &[
    ("relid", Oid),
    ("schemaname", Text),
    ("relname", Text),
    ("seq_scan", Int8),
    ("seq_tup_read", Int8),
    ("idx_scan", Int8),
    ("idx_tup_fetch", Int8),
    ("n_tup_ins", Int8),
    ("n_tup_upd", Int8),
    ("n_tup_del", Int8),
    ("n_tup_hot_upd", Int8),
    ("n_live_tup", Int8),
    ("n_dead_tup", Int8),
    ("n_mod_since_analyze", Int8),
    ("n_ins_since_vacuum", Int8),
    ("last_vacuum", TimestampTz(None)),
    ("last_autovacuum", TimestampTz(None)),
    ("last_analyze", TimestampTz(None)),
    ("last_autoanalyze", TimestampTz(None)),
    ("vacuum_count", Int8),
    ("autovacuum_count", Int8),
    ("analyze_count", Int8),
    ("autoanalyze_count", Int8),
];

pub const INDEX_COLUMNS: &[(&str, SqlType)] = &[
    ("relid", Oid),
    ("indexrelid", Oid),
    ("schemaname", Text),
    ("relname", Text),
    ("indexrelname", Text),
    ("idx_scan", Int8),
    ("idx_tup_read", Int8),
    ("idx_tup_fetch", Int8),
];

/// A table's schema and name as the views show them.
fn schema_and_name(table: &TableDef) -> (String, &str) {
    let (schema, name) = folio_catalog::split_schema(&table.name);
    (schema.to_string(), name)
}

fn int(n: u64) -> Value {
    Value::Int8(n as i64)
}

fn oid(n: u64) -> Value {
    crate::catalog_functions::oid_value(n as i64)
}

fn stamp(t: Option<i64>) -> Value {
    t.map_or(Value::Null, Value::TimestampTz)
}

/// The rows of `pg_stat_*_tables`.
pub fn table_rows(listed: Listed, tables: &[TableDef], store: &StatStore) -> Vec<Vec<Value>> {
    if listed == Listed::Sys {
        return Vec::new();
    }
    let all = store.all();
    let of = |oid: u64| all.get(&oid).copied().unwrap_or_default();
    tables
        .iter()
        .map(|table| {
            let e = of(table.oid);
            let (schema, name) = schema_and_name(table);
            let indexes: Vec<StatEntry> = table.indexes.iter().map(|i| of(i.oid)).collect();
            let (idx_scan, idx_tup_fetch) = match indexes.is_empty() {
                true => (Value::Null, Value::Null),
                false => (
                    int(indexes.iter().map(|i| i.scans).sum()),
                    int(indexes.iter().map(|i| i.fetched).sum::<u64>() + e.fetched),
                ),
            };
            vec![
                oid(table.oid),
                Value::Text(schema),
                Value::Text(name.to_string()),
                int(e.scans),
                int(e.returned),
                idx_scan,
                idx_tup_fetch,
                int(e.inserted),
                int(e.updated),
                int(e.deleted),
                int(e.hot_updated),
                Value::Int8(e.live),
                Value::Int8(e.dead),
                Value::Int8(e.mod_since_analyze),
                Value::Int8(e.ins_since_vacuum),
                stamp(e.last_vacuum),
                stamp(e.last_autovacuum),
                stamp(e.last_analyze),
                // folio has no autoanalyze.
                Value::Null,
                int(e.vacuum_count),
                int(e.autovacuum_count),
                int(e.analyze_count),
                int(0),
            ]
        })
        .collect()
}

/// The rows of `pg_stat_*_indexes`.
pub fn index_rows(listed: Listed, tables: &[TableDef], store: &StatStore) -> Vec<Vec<Value>> {
    if listed == Listed::Sys {
        return Vec::new();
    }
    let all = store.all();
    let mut out = Vec::new();
    for table in tables {
        let (schema, name) = schema_and_name(table);
        for index in &table.indexes {
            let e = all.get(&index.oid).copied().unwrap_or_default();
            out.push(vec![
                oid(table.oid),
                oid(index.oid),
                Value::Text(schema.clone()),
                Value::Text(name.to_string()),
                Value::Text(index.name.clone()),
                int(e.scans),
                int(e.returned),
                int(e.fetched),
            ]);
        }
    }
    out
}

/// A `pg_stat_get_*(oid)` function: one field of a relation's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatField {
    NumScans,
    TuplesReturned,
    TuplesFetched,
    TuplesInserted,
    TuplesUpdated,
    TuplesDeleted,
    TuplesHotUpdated,
    LiveTuples,
    DeadTuples,
    ModSinceAnalyze,
    InsSinceVacuum,
    LastVacuumTime,
    LastAutovacuumTime,
    LastAnalyzeTime,
    LastAutoanalyzeTime,
    VacuumCount,
    AutovacuumCount,
    AnalyzeCount,
    AutoanalyzeCount,
}

/// Their names.
pub const FIELD_NAMES: [(&str, StatField); 19] = [
    ("pg_stat_get_numscans", StatField::NumScans),
    ("pg_stat_get_tuples_returned", StatField::TuplesReturned),
    ("pg_stat_get_tuples_fetched", StatField::TuplesFetched),
    ("pg_stat_get_tuples_inserted", StatField::TuplesInserted),
    ("pg_stat_get_tuples_updated", StatField::TuplesUpdated),
    ("pg_stat_get_tuples_deleted", StatField::TuplesDeleted),
    (
        "pg_stat_get_tuples_hot_updated",
        StatField::TuplesHotUpdated,
    ),
    ("pg_stat_get_live_tuples", StatField::LiveTuples),
    ("pg_stat_get_dead_tuples", StatField::DeadTuples),
    ("pg_stat_get_mod_since_analyze", StatField::ModSinceAnalyze),
    ("pg_stat_get_ins_since_vacuum", StatField::InsSinceVacuum),
    ("pg_stat_get_last_vacuum_time", StatField::LastVacuumTime),
    (
        "pg_stat_get_last_autovacuum_time",
        StatField::LastAutovacuumTime,
    ),
    ("pg_stat_get_last_analyze_time", StatField::LastAnalyzeTime),
    (
        "pg_stat_get_last_autoanalyze_time",
        StatField::LastAutoanalyzeTime,
    ),
    ("pg_stat_get_vacuum_count", StatField::VacuumCount),
    ("pg_stat_get_autovacuum_count", StatField::AutovacuumCount),
    ("pg_stat_get_analyze_count", StatField::AnalyzeCount),
    ("pg_stat_get_autoanalyze_count", StatField::AutoanalyzeCount),
];

impl StatField {
    /// Its result type.
    pub fn ty(self) -> SqlType {
        match self {
            StatField::LastVacuumTime
            | StatField::LastAutovacuumTime
            | StatField::LastAnalyzeTime
            | StatField::LastAutoanalyzeTime => TimestampTz(None),
            _ => Int8,
        }
    }

    /// Its value for relation `oid` (0 or NULL for a relation without
    /// counts, an unknown oid included, as PostgreSQL).
    pub fn value(self, store: &StatStore, oid: u64) -> Value {
        let e = store.get(oid).unwrap_or_default();
        match self {
            StatField::NumScans => int(e.scans),
            StatField::TuplesReturned => int(e.returned),
            StatField::TuplesFetched => int(e.fetched),
            StatField::TuplesInserted => int(e.inserted),
            StatField::TuplesUpdated => int(e.updated),
            StatField::TuplesDeleted => int(e.deleted),
            StatField::TuplesHotUpdated => int(e.hot_updated),
            StatField::LiveTuples => Value::Int8(e.live),
            StatField::DeadTuples => Value::Int8(e.dead),
            StatField::ModSinceAnalyze => Value::Int8(e.mod_since_analyze),
            StatField::InsSinceVacuum => Value::Int8(e.ins_since_vacuum),
            StatField::LastVacuumTime => stamp(e.last_vacuum),
            StatField::LastAutovacuumTime => stamp(e.last_autovacuum),
            StatField::LastAnalyzeTime => stamp(e.last_analyze),
            StatField::LastAutoanalyzeTime => Value::Null,
            StatField::VacuumCount => int(e.vacuum_count),
            StatField::AutovacuumCount => int(e.autovacuum_count),
            StatField::AnalyzeCount => int(e.analyze_count),
            StatField::AutoanalyzeCount => int(0),
        }
    }
}
