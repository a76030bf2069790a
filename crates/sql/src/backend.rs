//! A session's entry among the database's live sessions (folio-txn's
//! `backends.rs`: process ids, `pg_stat_activity`'s fields, the
//! notification inboxes), and what its transaction will do there at
//! commit: the `LISTEN`/`UNLISTEN`s and `NOTIFY`s it made.
//!
//! As in PostgreSQL, `LISTEN` and `UNLISTEN` take effect when their
//! transaction commits, and a transaction's notifications are delivered
//! when it commits, in the order sent, an identical one (same channel and
//! payload) sent again in the same transaction folded into the first. A
//! transaction that rolls back does neither: what it made is forgotten
//! when the session's next transaction begins ([`SessionBackend::begin`]).
//! Unlike PostgreSQL, a savepoint rolled back to keeps what it made.

use crate::error::SqlError;
use crate::output::Notice;
use folio_txn::{
    AdvisoryLocks, Backend, BackendState, Backends, Interrupt, Registered, SessionStats,
};
use std::sync::{Arc, Mutex, MutexGuard};

/// PostgreSQL's `NAMEDATALEN - 1`: a channel's name is shorter.
const MAX_CHANNEL_BYTES: usize = 63;
/// PostgreSQL's limit on a payload (`NOTIFY_PAYLOAD_MAX_LENGTH - 1`).
const MAX_PAYLOAD_BYTES: usize = 7999;

/// A session's entry and its transaction's pending listens and
/// notifications.
#[derive(Debug)]
pub struct SessionBackend {
    registered: Registered,
    /// The database's advisory locks (`pg_blocking_pids` reads them).
    advisory: Arc<AdvisoryLocks>,
    pending: Mutex<Pending>,
    /// Warnings the backend functions raised (`backend_functions.rs`).
    warnings: Mutex<Vec<Notice>>,
    /// The database it is a session of (its WAL positions:
    /// `wal_functions.rs`).
    database: Arc<folio_db::Database>,
    /// The snapshot the running statement reads with, and what
    /// `pg_current_snapshot()` made of it (`xid_functions.rs`).
    snapshot: Mutex<StatementSnapshot>,
}

/// The statement's snapshot (its CSN), and its PostgreSQL form once asked
/// for, with the session's xid it was made with.
#[derive(Debug, Default)]
pub struct StatementSnapshot {
    pub csn: Option<folio_txn::Csn>,
    pub made: Option<(Option<u64>, folio_row::XidSnapshot)>,
}

#[derive(Debug, Default)]
struct Pending {
    /// `(channel, on)`; `None`: `UNLISTEN *`.
    listens: Vec<(Option<String>, bool)>,
    notifications: Vec<(String, String)>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl SessionBackend {
    /// Registers a session of `database` as `pid` (`None`: the next free
    /// one), its advisory locks held as `advisory_owner`.
    pub fn register(
        database: &Arc<folio_db::Database>,
        pid: Option<u32>,
        interrupt: Arc<Interrupt>,
        advisory_owner: u64,
    ) -> SessionBackend {
        let txns = database.txns();
        let (backends, advisory, stats) = (txns.backends(), txns.advisory(), txns.stats());
        let pid = pid.unwrap_or_else(|| backends.reserve_pid());
        let now = folio_row::calendar::now();
        stats.count_session();
        SessionBackend {
            registered: backends.register(
                pid,
                interrupt,
                advisory_owner,
                SessionStats::new(stats.clone()),
                now,
            ),
            advisory: advisory.clone(),
            pending: Mutex::default(),
            warnings: Mutex::default(),
            database: database.clone(),
            snapshot: Mutex::default(),
        }
    }

    /// Notes the snapshot the statement about to run reads with
    /// (`Plan::run`): one lock of the session's own mutex.
    pub fn set_statement_snapshot(&self, csn: folio_txn::Csn) {
        let mut s = lock(&self.snapshot);
        if s.csn != Some(csn) {
            *s = StatementSnapshot {
                csn: Some(csn),
                made: None,
            };
        }
    }

    /// The statement's snapshot, to read or to keep its PostgreSQL form.
    pub fn statement_snapshot(&self) -> MutexGuard<'_, StatementSnapshot> {
        lock(&self.snapshot)
    }

    /// The database it is a session of.
    pub fn database(&self) -> &folio_db::Database {
        &self.database
    }

    /// Its counts of tables and indexes not yet published (folio-txn
    /// `stat_counts.rs`; `stat_tables.rs`).
    pub fn stats(&self) -> &Arc<SessionStats> {
        self.backend().stats()
    }

    /// The session's process id (`pg_backend_pid()`).
    pub fn pid(&self) -> u32 {
        self.registered.backend().pid()
    }

    /// Its entry.
    pub fn backend(&self) -> &Arc<Backend> {
        self.registered.backend()
    }

    /// Every live session.
    pub fn backends(&self) -> &Arc<Backends> {
        self.registered.backends()
    }

    /// The sessions session `pid` waits for (`pg_blocking_pids`).
    pub fn blocking_pids(&self, pid: u32) -> Vec<i32> {
        let advisory = self.advisory.rows();
        crate::activity::blocking_pids(self.backends(), &advisory, pid)
    }

    /// A statement starts at `now`: `query` is its text; `xact_start`:
    /// when its block began (`None`: it runs in a transaction of its own,
    /// which starts now).
    pub fn statement_starts(&self, query: &str, xact_start: Option<i64>, now: i64) {
        self.backend().update(|a| {
            a.state = BackendState::Active;
            a.state_change = now;
            a.query_start = Some(now);
            a.xact_start = Some(xact_start.unwrap_or(now));
            a.query.clear();
            a.query.push_str(query);
        });
    }

    /// The session waits for its client, in `state`; `xact_start` while a
    /// transaction is open; its `application_name` now (a SET may have
    /// changed it).
    pub fn idle(&self, state: BackendState, xact_start: Option<i64>, application_name: &str) {
        let now = folio_row::calendar::now();
        self.backend().update(|a| {
            a.state = state;
            a.state_change = now;
            a.xact_start = xact_start;
            if a.application_name != application_name {
                a.application_name.clear();
                a.application_name.push_str(application_name);
            }
        });
    }

    /// A transaction begins: what an earlier one that did not commit made
    /// is forgotten.
    pub fn begin(&self) {
        let mut pending = lock(&self.pending);
        if !pending.listens.is_empty() || !pending.notifications.is_empty() {
            *pending = Pending::default();
        }
    }

    /// `LISTEN channel` (`on`) or `UNLISTEN channel` (`None`: `*`), at
    /// commit.
    pub fn listen(&self, channel: Option<&str>, on: bool) {
        lock(&self.pending)
            .listens
            .push((channel.map(str::to_string), on));
    }

    /// `NOTIFY channel, 'payload'` or `pg_notify`: delivered at commit.
    pub fn notify(&self, channel: &str, payload: &str) -> Result<(), SqlError> {
        if channel.is_empty() {
            return Err(SqlError::new("22023", "channel name cannot be empty"));
        }
        if channel.len() > MAX_CHANNEL_BYTES {
            return Err(SqlError::new("22023", "channel name too long"));
        }
        if payload.len() > MAX_PAYLOAD_BYTES {
            return Err(SqlError::new("22023", "payload string too long"));
        }
        let mut pending = lock(&self.pending);
        let sent = (channel.to_string(), payload.to_string());
        if !pending.notifications.contains(&sent) {
            pending.notifications.push(sent);
        }
        Ok(())
    }

    /// Whether the running transaction did LISTEN, UNLISTEN or NOTIFY
    /// (which cannot be prepared).
    pub fn has_pending(&self) -> bool {
        let pending = lock(&self.pending);
        !pending.listens.is_empty() || !pending.notifications.is_empty()
    }

    /// The session's transaction committed: its listens take effect, then
    /// its notifications go to their listeners.
    pub fn committed(&self) {
        let pending = {
            let mut pending = lock(&self.pending);
            if pending.listens.is_empty() && pending.notifications.is_empty() {
                return;
            }
            std::mem::take(&mut *pending)
        };
        for (channel, on) in &pending.listens {
            self.backend().listen(channel.as_deref(), *on);
        }
        self.backends().notify(self.pid(), &pending.notifications);
    }

    /// Records a warning for the session's notices.
    pub(crate) fn warn(&self, notice: Notice) {
        lock(&self.warnings).push(notice);
    }

    /// The warnings raised since the last call.
    pub fn take_warnings(&self) -> Vec<Notice> {
        std::mem::take(&mut *lock(&self.warnings))
    }
}
