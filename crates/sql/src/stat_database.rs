//! `pg_stat_database`: the database's cumulative counts with PostgreSQL
//! 15's columns in its order, one row (folio serves one database and has
//! no shared catalogs, so PostgreSQL's row for `datid` 0 is not there).
//!
//! Where each count comes from (folio-txn `stat_store.rs`
//! `DatabaseCounts`):
//! - `numbackends`: the live sessions;
//! - `xact_commit`, `xact_rollback`: the SQL sessions' transactions as
//!   they ended (published with the table counts, so a read sees every
//!   transaction that ended before it);
//! - `blks_hit`, `blks_read`: the buffer pool's pages found resident and
//!   read from the file, every page the database touched (catalog, WAL
//!   tree and CSN log included, as PostgreSQL counts its catalogs);
//! - `tup_returned`, `tup_fetched`, `tup_inserted`, `tup_updated`,
//!   `tup_deleted`: the table and index counts of `pg_stat_*_tables`,
//!   summed as they are published and kept when a table is dropped;
//! - `deadlocks`: deadlocks found among row, table and advisory locks;
//! - `checksum_failures`, `checksum_last_failure`: pages read whose
//!   checksum did not match since the database opened (NULL with
//!   checksums off, as PostgreSQL's);
//! - `sessions`: sessions begun; `conflicts`, `temp_files`,
//!   `temp_bytes`: 0, and true (folio has no standby to conflict with and
//!   never spills to temporary files); `blk_read_time`, `blk_write_time`:
//!   0, as PostgreSQL's with `track_io_timing` off (folio does not time
//!   its I/O);
//! - `session_time`, `active_time`, `idle_in_transaction_time`,
//!   `sessions_abandoned`, `sessions_fatal`, `sessions_killed`: NULL —
//!   folio does not measure them;
//! - `stats_reset`: the last `pg_stat_reset()`, NULL before any.
//!
//! `pg_stat_reset()` zeroes everything but the checksum failures.

use folio_row::{SqlType, Value};
use folio_txn::{Backends, StatStore};

use SqlType::{Float8, Int4, Int8, Oid, Text, TimestampTz};

pub const COLUMNS: &[(&str, SqlType)] = &[
    ("datid", Oid),
    ("datname", Text),
    ("numbackends", Int4),
    ("xact_commit", Int8),
    ("xact_rollback", Int8),
    ("blks_read", Int8),
    ("blks_hit", Int8),
    ("tup_returned", Int8),
    ("tup_fetched", Int8),
    ("tup_inserted", Int8),
    ("tup_updated", Int8),
    ("tup_deleted", Int8),
    ("conflicts", Int8),
    ("temp_files", Int8),
    ("temp_bytes", Int8),
    ("deadlocks", Int8),
    ("checksum_failures", Int8),
    ("checksum_last_failure", TimestampTz(None)),
    ("blk_read_time", Float8),
    ("blk_write_time", Float8),
    ("session_time", Float8),
    ("active_time", Float8),
    ("idle_in_transaction_time", Float8),
    ("sessions", Int8),
    ("sessions_abandoned", Int8),
    ("sessions_fatal", Int8),
    ("sessions_killed", Int8),
    ("stats_reset", TimestampTz(None)),
];

/// The rows of `pg_stat_database` for database `oid` named `name` (the
/// sessions' pending counts published first by the caller).
pub fn rows((oid, name): (u64, &str), backends: &Backends, store: &StatStore) -> Vec<Vec<Value>> {
    let c = store.database_counts();
    let int = |n: u64| Value::Int8(n as i64);
    let zero = || Value::Int8(0);
    let failures = c.checksum_failures.map_or(Value::Null, int);
    let last_failure = c.last_checksum_failure.map_or(Value::Null, |unix| {
        Value::TimestampTz(folio_row::calendar::from_unix_micros(unix as i64))
    });
    vec![vec![
        crate::catalog_functions::oid_value(oid as i64),
        Value::Text(name.to_string()),
        Value::Int4(backends.list().len() as i32),
        int(c.commits),
        int(c.rollbacks),
        int(c.blocks_read),
        int(c.blocks_hit),
        int(c.returned),
        int(c.fetched),
        int(c.inserted),
        int(c.updated),
        int(c.deleted),
        zero(),
        zero(),
        zero(),
        int(c.deadlocks),
        failures,
        last_failure,
        Value::Float8(0.0),
        Value::Float8(0.0),
        Value::Null,
        Value::Null,
        Value::Null,
        int(c.sessions),
        Value::Null,
        Value::Null,
        Value::Null,
        c.reset_at.map_or(Value::Null, Value::TimestampTz),
    ]]
}
