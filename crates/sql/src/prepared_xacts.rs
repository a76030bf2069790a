//! Two-phase commit at the SQL level: `PREPARE TRANSACTION 'gid'`,
//! `COMMIT PREPARED 'gid'`, `ROLLBACK PREPARED 'gid'` (the session's
//! `prepare_transaction` and `finish_prepared`) and the
//! `pg_prepared_xacts` view. The transactions themselves are folio-txn's
//! (README "Two-phase commit"); this file says what the SQL layer adds:
//! what it refuses to prepare and how the view shows them.

use crate::error::SqlError;
use folio_row::{SqlType, Value};
use folio_txn::TxnManager;

/// `pg_prepared_xacts`' columns (PostgreSQL's `name` columns as text).
pub const COLUMNS: &[(&str, SqlType)] = &[
    ("transaction", SqlType::Xid),
    ("gid", SqlType::Text),
    ("prepared", SqlType::TimestampTz(None)),
    ("owner", SqlType::Text),
    ("database", SqlType::Text),
];

/// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01).
const PG_EPOCH_US: i64 = 946_684_800_000_000;

/// `pg_prepared_xacts`: the database's prepared transactions, by xid.
pub fn rows(mgr: &TxnManager) -> Vec<Vec<Value>> {
    (mgr.prepared_transactions().into_iter())
        .map(|p| {
            vec![
                Value::Xid(p.xid.0),
                Value::Text(p.gid),
                Value::TimestampTz(p.prepared_at_us - PG_EPOCH_US),
                Value::Text(p.owner),
                Value::Text(p.database),
            ]
        })
        .collect()
}

/// PostgreSQL's refusals of what a transaction did that cannot outlive
/// its session (0A000).
pub fn cannot_prepare(what: &str) -> SqlError {
    SqlError::new("0A000", format!("cannot PREPARE a transaction that {what}"))
}

/// `COMMIT PREPARED` or `ROLLBACK PREPARED` inside a transaction block
/// (25001).
pub fn inside_block(commit: bool) -> SqlError {
    let what = match commit {
        true => "COMMIT PREPARED",
        false => "ROLLBACK PREPARED",
    };
    SqlError::inside_block(what)
}
