//! The functions about sessions: `pg_backend_pid`, `pg_cancel_backend`,
//! `pg_terminate_backend`, the `pg_sleep` family and `pg_notify`, over the
//! session's entry (`backend.rs`), which the statement's `Env` carries;
//! and those of the statistics the session counts (`pg_stat_reset`,
//! `pg_stat_force_next_flush`, `pg_stat_get_*`: `stat_tables.rs`).
//!
//! Those PostgreSQL gives as `void` (`pg_sleep`, `pg_notify`, ...) give an
//! empty text here, as the advisory lock functions do (folio has no
//! `void`; `pg_proc` does not list them).

use crate::backend::SessionBackend;
use crate::error::SqlError;
use crate::output::Notice;
use crate::stat_tables::{FIELD_NAMES, StatField};
use folio_row::{SqlType, Value};
use std::time::Duration;

/// A function about sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendFunc {
    Pid,
    Cancel,
    Terminate,
    /// `pg_sleep(seconds)`.
    Sleep,
    /// `pg_sleep_for(interval)`.
    SleepFor,
    /// `pg_sleep_until(timestamptz)`.
    SleepUntil,
    Notify,
    /// `pg_blocking_pids(pid)`.
    BlockingPids,
    /// `pg_stat_reset()`: the database's table and index statistics.
    StatReset,
    /// `pg_stat_reset_single_table_counters(oid)`.
    StatResetTable,
    /// `pg_stat_force_next_flush()`.
    StatForceNextFlush,
    /// `pg_stat_get_*(oid)`.
    StatGet(StatField),
    /// `statement_timestamp()`: when the session's current statement
    /// (its client's message) began, as `pg_stat_activity.query_start`.
    StatementTimestamp,
}

const NAMES: [(&str, BackendFunc); 12] = [
    ("pg_backend_pid", BackendFunc::Pid),
    ("pg_cancel_backend", BackendFunc::Cancel),
    ("pg_terminate_backend", BackendFunc::Terminate),
    ("pg_sleep", BackendFunc::Sleep),
    ("pg_sleep_for", BackendFunc::SleepFor),
    ("pg_sleep_until", BackendFunc::SleepUntil),
    ("pg_notify", BackendFunc::Notify),
    ("pg_blocking_pids", BackendFunc::BlockingPids),
    ("pg_stat_reset", BackendFunc::StatReset),
    (
        "pg_stat_reset_single_table_counters",
        BackendFunc::StatResetTable,
    ),
    ("pg_stat_force_next_flush", BackendFunc::StatForceNextFlush),
    ("statement_timestamp", BackendFunc::StatementTimestamp),
];

impl BackendFunc {
    pub fn of(name: &str) -> Option<BackendFunc> {
        crate::names::lookup(&NAMES, name)
            .or_else(|| crate::names::lookup(&FIELD_NAMES, name).map(BackendFunc::StatGet))
    }

    pub fn name(self) -> Option<&'static str> {
        match self {
            BackendFunc::StatGet(field) => crate::names::name_in(&FIELD_NAMES, &field),
            _ => crate::names::name_in(&NAMES, &self),
        }
    }

    pub fn takes(self, count: usize) -> bool {
        match self {
            BackendFunc::Pid
            | BackendFunc::StatReset
            | BackendFunc::StatForceNextFlush
            | BackendFunc::StatementTimestamp => count == 0,
            BackendFunc::Terminate => count == 1 || count == 2,
            BackendFunc::Notify => count == 2,
            _ => count == 1,
        }
    }

    pub fn ty(self) -> SqlType {
        match self {
            BackendFunc::Pid => SqlType::Int4,
            BackendFunc::Cancel | BackendFunc::Terminate => SqlType::Bool,
            BackendFunc::BlockingPids => SqlType::Array(&SqlType::Int4),
            BackendFunc::StatGet(field) => field.ty(),
            BackendFunc::StatementTimestamp => SqlType::TimestampTz(None),
            // `void` (above).
            _ => SqlType::Text,
        }
    }

    /// The value of `f` of `args` in session `me`.
    pub fn call(self, me: &SessionBackend, args: &[Value]) -> Result<Value, SqlError> {
        // Strict, as PostgreSQL's: NULL in, NULL out (and no sleep);
        // but `pg_notify` reads a NULL as an empty string.
        if self != BackendFunc::Notify && args.iter().any(|a| matches!(a, Value::Null)) {
            return Ok(Value::Null);
        }
        let void = || Value::Text(String::new());
        Ok(match self {
            BackendFunc::Pid => Value::Int4(me.pid() as i32),
            BackendFunc::StatementTimestamp => Value::TimestampTz(
                me.backend()
                    .query_start()
                    .unwrap_or_else(folio_row::calendar::now),
            ),
            BackendFunc::Cancel => match target(me, &args[0])? {
                Some(backend) => {
                    backend.cancel();
                    Value::Bool(true)
                }
                None => Value::Bool(false),
            },
            BackendFunc::Terminate => {
                let timeout_ms = match args.get(1) {
                    Some(t) => crate::functions::int_arg(t)?,
                    None => 0,
                };
                if timeout_ms < 0 {
                    return Err(SqlError::new("22023", "\"timeout\" must not be negative"));
                }
                let Some(backend) = target(me, &args[0])? else {
                    return Ok(Value::Bool(false));
                };
                backend.terminate();
                if timeout_ms == 0 || backend.pid() == me.pid() {
                    return Ok(Value::Bool(true));
                }
                let wait = Duration::from_millis(timeout_ms as u64);
                let gone =
                    me.backends()
                        .wait_gone(backend.pid(), wait, me.backend().interrupt())?;
                if !gone {
                    me.warn(Notice::warning(
                        "01000",
                        &format!(
                            "backend with PID {} did not terminate within {timeout_ms} milliseconds",
                            backend.pid()
                        ),
                    ));
                }
                Value::Bool(gone)
            }
            BackendFunc::Sleep => {
                let seconds = match crate::types::cast(args[0].clone(), SqlType::Float8)? {
                    Value::Float8(s) => s,
                    _ => 0.0,
                };
                sleep(me, seconds)?;
                void()
            }
            BackendFunc::SleepFor => {
                let Value::Interval(span) =
                    crate::types::cast(args[0].clone(), SqlType::Interval(None))?
                else {
                    unreachable!("a cast to interval")
                };
                sleep(me, span.span() as f64 / 1e6)?;
                void()
            }
            BackendFunc::SleepUntil => {
                let Value::TimestampTz(until) =
                    crate::types::cast(args[0].clone(), SqlType::TimestampTz(None))?
                else {
                    unreachable!("a cast to timestamptz")
                };
                let now = folio_row::calendar::now();
                sleep(me, (until - now) as f64 / 1e6)?;
                void()
            }
            BackendFunc::BlockingPids => {
                let pid = crate::functions::int_arg(&args[0])?;
                let pids = u32::try_from(pid).map_or_else(|_| Vec::new(), |p| me.blocking_pids(p));
                Value::Array(pids.into_iter().map(Value::Int4).collect())
            }
            BackendFunc::Notify => {
                let text = |v: &Value| crate::types::text_output(v).unwrap_or_default();
                me.notify(&text(&args[0]), &text(&args[1]))?;
                void()
            }
            BackendFunc::StatReset => {
                // What the sessions counted before goes too.
                me.backends().publish_stats();
                me.stats().store().reset(folio_row::calendar::now());
                void()
            }
            BackendFunc::StatResetTable => {
                me.backends().publish_stats();
                me.stats().store().reset_one(oid_arg(&args[0])?);
                void()
            }
            BackendFunc::StatForceNextFlush => {
                me.stats().force_next();
                void()
            }
            BackendFunc::StatGet(field) => {
                me.backends().publish_stats();
                field.value(me.stats().store(), oid_arg(&args[0])?)
            }
        })
    }
}

/// An oid argument (a negative one names no relation).
fn oid_arg(v: &Value) -> Result<u64, SqlError> {
    Ok(u64::try_from(crate::functions::int_arg(v)?).unwrap_or(u64::MAX))
}

/// The live session a pid argument names; `None` (with PostgreSQL's
/// warning) if there is none.
fn target(
    me: &SessionBackend,
    pid: &Value,
) -> Result<Option<std::sync::Arc<folio_txn::Backend>>, SqlError> {
    let pid = crate::functions::int_arg(pid)?;
    let found = u32::try_from(pid).ok().and_then(|p| me.backends().get(p));
    if found.is_none() {
        me.warn(Notice::warning(
            "01000",
            &format!("PID {pid} is not a PostgreSQL backend process"),
        ));
    }
    Ok(found)
}

/// Sleeps `seconds` (none if not positive), a cancel, `statement_timeout`
/// or a terminate ending it early with their error.
fn sleep(me: &SessionBackend, seconds: f64) -> Result<(), SqlError> {
    // (NaN too.)
    if seconds.is_nan() || seconds <= 0.0 {
        return Ok(());
    }
    // Longer than any statement_timeout: a sleep that long ends by a
    // cancel, as PostgreSQL's would in practice.
    let duration = Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX);
    me.backend().interrupt().sleep(duration)?;
    Ok(())
}
