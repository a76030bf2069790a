//! `pg_stat_activity` and `pg_locks`: rows made at each execution from the
//! database's live sessions (folio-txn's `backends.rs`) and their locks,
//! with PostgreSQL 15's columns in its order.
//!
//! Types as the other `pg_catalog` relations' (`system.rs`): an oid or
//! `xid` column is `bigint`, a `name` one `text`; `client_addr` (`inet`,
//! a type folio lacks) is its text form (`127.0.0.1`, without the `/32`
//! PostgreSQL prints only for a non-host mask). Rows are the client
//! sessions' only (`backend_type` `client backend`): folio has no
//! background processes. `leader_pid`, `client_hostname`, `backend_xmin`
//! and `query_id` are NULL (folio has no parallel workers, does not look
//! up host names, and keeps neither).

use folio_row::{SqlType, Value};
use folio_txn::{AdvisoryLockRow, AdvisoryMode, Backend, Backends, LockMode, Xid};
use std::sync::Arc;

use crate::catalog_functions::oid_value;
use SqlType::{Bool, Int2, Int4, Int8, Oid, Text, TimestampTz};

/// The database's oid (PostgreSQL's `postgres` database; `system.rs`).
const DATABASE_OID: i64 = 5;
/// The role `postgres`'s oid.
const SUPERUSER_OID: i64 = crate::catalog_functions::SUPERUSER_OID;

pub const STAT_ACTIVITY_COLUMNS: &[(&str, SqlType)] = &[
    ("datid", Oid),
    ("datname", Text),
    ("pid", Int4),
    ("leader_pid", Int4),
    ("usesysid", Oid),
    ("usename", Text),
    ("application_name", Text),
    ("client_addr", Text),
    ("client_hostname", Text),
    ("client_port", Int4),
    ("backend_start", TimestampTz(None)),
    ("xact_start", TimestampTz(None)),
    ("query_start", TimestampTz(None)),
    ("state_change", TimestampTz(None)),
    ("wait_event_type", Text),
    ("wait_event", Text),
    ("state", Text),
    ("backend_xid", Int8),
    ("backend_xmin", Int8),
    ("query_id", Int8),
    ("query", Text),
    ("backend_type", Text),
];

/// One row per live session, by process id.
pub fn stat_activity_rows(backends: &Backends) -> Vec<Vec<Value>> {
    backends.list().iter().map(activity_row).collect()
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

fn stamp(t: Option<i64>) -> Value {
    t.map_or(Value::Null, Value::TimestampTz)
}

fn activity_row(backend: &Arc<Backend>) -> Vec<Value> {
    let a = backend.activity();
    let wait = backend.interrupt().wait_event().map(|w| w.names());
    let xid = backend
        .interrupt()
        .xid()
        .map_or(Value::Null, |x| Value::Int8(x as i64));
    let (addr, port) = match &a.client {
        Some((addr, port)) => (text(addr), Value::Int4(i32::from(*port))),
        None if a.has_client => (Value::Null, Value::Int4(-1)),
        None => (Value::Null, Value::Null),
    };
    vec![
        oid_value(DATABASE_OID),
        text(&a.database),
        Value::Int4(backend.pid() as i32),
        Value::Null,
        oid_value(SUPERUSER_OID),
        text(&a.user),
        text(&a.application_name),
        addr,
        Value::Null,
        port,
        Value::TimestampTz(a.backend_start),
        stamp(a.xact_start),
        stamp(a.query_start),
        Value::TimestampTz(a.state_change),
        wait.map_or(Value::Null, |(t, _)| text(t)),
        wait.map_or(Value::Null, |(_, e)| text(e)),
        text(a.state.name()),
        xid,
        Value::Null,
        Value::Null,
        text(&a.query),
        text("client backend"),
    ]
}

pub const LOCKS_COLUMNS: &[(&str, SqlType)] = &[
    ("locktype", Text),
    ("database", Oid),
    ("relation", Oid),
    ("page", Int4),
    ("tuple", Int2),
    ("virtualxid", Text),
    ("transactionid", Int8),
    ("classid", Oid),
    ("objid", Oid),
    ("objsubid", Int2),
    ("virtualtransaction", Text),
    ("pid", Int4),
    ("mode", Text),
    ("granted", Bool),
    ("fastpath", Bool),
    ("waitstart", TimestampTz(None)),
];

/// The locks folio keeps that `pg_locks` lists: the table locks held
/// (`relation`; plain reads take none, folio-txn `relation_locks.rs`),
/// each running transaction's own xid (`transactionid`,
/// `ExclusiveLock`), a wait for another's (`transactionid`, `ShareLock`,
/// not granted: a row it changed, or a table lock it waits for), and the
/// advisory locks held and waited for.
pub fn locks_rows(
    backends: &Backends,
    tables: &[(u64, Xid, LockMode)],
    advisory: &[AdvisoryLockRow],
) -> Vec<Vec<Value>> {
    let live = backends.list();
    let mut out = Vec::new();
    for backend in &live {
        let pid = Value::Int4(backend.pid() as i32);
        let interrupt = backend.interrupt();
        if let Some(xid) = interrupt.xid() {
            for &(oid, _, mode) in tables.iter().filter(|(_, holder, _)| holder.0 == xid) {
                out.push(vec![
                    text("relation"),
                    oid_value(DATABASE_OID),
                    Value::Oid(oid as u32),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    pid.clone(),
                    text(mode.lock_name()),
                    Value::Bool(true),
                    Value::Bool(false),
                    Value::Null,
                ]);
            }
            out.push(xid_row(xid, pid.clone(), "ExclusiveLock", true));
        }
        if let Some(holder) = interrupt.waiting_for_xid() {
            out.push(xid_row(holder, pid.clone(), "ShareLock", false));
        }
        let owner = backend.advisory_owner();
        for lock in advisory.iter().filter(|l| l.owner == owner) {
            let (classid, objid, objsubid) = lock.key.pg_locks_ids();
            out.push(vec![
                text("advisory"),
                oid_value(DATABASE_OID),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Oid(classid),
                Value::Oid(objid),
                Value::Int2(objsubid),
                Value::Null,
                pid.clone(),
                text(match lock.mode {
                    AdvisoryMode::Exclusive => "ExclusiveLock",
                    AdvisoryMode::Shared => "ShareLock",
                }),
                Value::Bool(lock.granted),
                Value::Bool(false),
                Value::Null,
            ]);
        }
    }
    out
}

fn xid_row(xid: u64, pid: Value, mode: &str, granted: bool) -> Vec<Value> {
    vec![
        text("transactionid"),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Int8(xid as i64),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        pid,
        text(mode),
        Value::Bool(granted),
        Value::Bool(false),
        Value::Null,
    ]
}

/// `pg_blocking_pids(pid)`: the sessions whose locks session `pid` waits
/// for (the holder of the transaction it waits on, the holders of the
/// advisory lock it waits for), in process id order, each once.
pub fn blocking_pids(backends: &Backends, advisory: &[AdvisoryLockRow], pid: u32) -> Vec<i32> {
    let Some(waiter) = backends.get(pid) else {
        return Vec::new();
    };
    let live = backends.list();
    let mut out: Vec<i32> = Vec::new();
    if let Some(holder) = waiter.interrupt().waiting_for_xid() {
        out.extend(
            live.iter()
                .filter(|b| b.interrupt().xid() == Some(holder))
                .map(|b| b.pid() as i32),
        );
    }
    let owner = waiter.advisory_owner();
    for wanted in advisory.iter().filter(|l| l.owner == owner && !l.granted) {
        let blockers = advisory.iter().filter(|l| {
            l.granted && l.owner != owner && l.key == wanted.key && l.mode.conflicts(wanted.mode)
        });
        for blocker in blockers {
            if let Some(b) = live.iter().find(|b| b.advisory_owner() == blocker.owner) {
                out.push(b.pid() as i32);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
