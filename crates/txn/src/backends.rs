//! The live sessions of one database (PostgreSQL's backends): what
//! `pg_stat_activity` lists, what `pg_cancel_backend` and
//! `pg_terminate_backend` reach by process id, and where `NOTIFY`
//! delivers.
//!
//! **Process ids.** Each session has a number unique in the database's
//! run, from [`Backends::reserve_pid`]: the server takes one before a
//! connection's startup (it is the pid of the connection's BackendKeyData,
//! which a CancelRequest names) and registers the session under it; a
//! session made without a server (an embedded one, the tests') takes the
//! next. `pg_backend_pid()` is this number.
//!
//! **Entries.** [`Backends::register`] adds a [`Backend`] and returns the
//! [`Registered`] guard its session keeps: dropping it (the session ends)
//! removes the entry and wakes a `pg_terminate_backend` waiting for that
//! end. The session writes its own [`Activity`] (state, query, times)
//! under the entry's mutex at each statement's start and end; other
//! sessions read a copy ([`Backends::list`]). The host (the server)
//! writes the client's fields and installs a waker ([`Backend::set_waker`])
//! that makes an idle connection look at its entry: a terminate or a
//! notification for it.
//!
//! **Notifications.** A session's channels (`LISTEN` committed) and the
//! notifications queued for it live in its entry's [`Inbox`]. A committing
//! transaction's notifications go, under the registry's mutex (so two
//! committers' batches are not interleaved), to the inbox of every
//! session listening on their channel, in the order they were sent, and
//! each receiving session's waker runs. The host drains the inbox when the
//! session is idle outside a transaction block, as PostgreSQL delivers.
//! An inbox holds at most [`MAX_QUEUED`] notifications: a session that
//! never reads them loses the oldest (PostgreSQL instead fails the
//! notifier's commit when its 8 GB queue is full).
//!
//! **Statistics.** Each entry holds its session's pending counts of
//! tables and indexes (`stat_counts.rs`): a session that reads the
//! statistics publishes every live session's first
//! ([`Backends::publish_stats`]), so it sees every transaction that
//! ended before its read, whenever its session would publish.
//!
//! Lock order: the registry's `live` mutex, then an entry's `inbox`, then
//! its `waker`; `activity` is taken alone; the pending counts after the
//! registry's mutex is released (then the store's).

use crate::interrupt::Interrupt;
use crate::stat_counts::SessionStats;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Notifications one session's inbox holds at most.
pub const MAX_QUEUED: usize = 65_536;

/// The sessions of one database (`TxnManager::backends`).
#[derive(Debug)]
pub struct Backends {
    next_pid: AtomicU32,
    live: Mutex<BTreeMap<u32, Arc<Backend>>>,
    /// Notified when a session leaves.
    left: Condvar,
}

impl Default for Backends {
    fn default() -> Backends {
        Backends {
            next_pid: AtomicU32::new(1),
            live: Mutex::new(BTreeMap::new()),
            left: Condvar::new(),
        }
    }
}

/// `pg_stat_activity`'s `state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendState {
    Active,
    #[default]
    Idle,
    IdleInTransaction,
    IdleInTransactionAborted,
}

impl BackendState {
    pub fn name(self) -> &'static str {
        match self {
            BackendState::Active => "active",
            BackendState::Idle => "idle",
            BackendState::IdleInTransaction => "idle in transaction",
            BackendState::IdleInTransactionAborted => "idle in transaction (aborted)",
        }
    }
}

/// What a session does, as `pg_stat_activity` shows it. Times are
/// microseconds since 2000-01-01 UTC (a `timestamptz`'s).
#[derive(Debug, Clone, Default)]
pub struct Activity {
    pub user: String,
    pub database: String,
    pub application_name: String,
    /// The client's address and port: `None` for a Unix-domain socket's
    /// client or a session without a client (PostgreSQL shows NULL and
    /// port -1 for the first).
    pub client: Option<(String, u16)>,
    /// The server's address and port the client reached (`None` as
    /// `client`'s: `inet_server_addr()`).
    pub server: Option<(String, u16)>,
    /// Whether it has a client (a server's connection).
    pub has_client: bool,
    pub backend_start: i64,
    pub xact_start: Option<i64>,
    pub query_start: Option<i64>,
    pub state_change: i64,
    pub state: BackendState,
    /// The running statement's text, or the last one's.
    pub query: String,
}

/// A notification as delivered: from session `pid`, on `channel`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    pub pid: u32,
    pub channel: String,
    pub payload: String,
}

/// A session's channels and the notifications waiting for it.
#[derive(Debug, Default)]
struct Inbox {
    channels: BTreeSet<String>,
    queued: VecDeque<Notification>,
}

type Waker = Arc<dyn Fn() + Send + Sync>;

/// One live session.
pub struct Backend {
    pid: u32,
    interrupt: Arc<Interrupt>,
    /// Its advisory locks' owner (`AdvisoryOwner::id`).
    advisory_owner: u64,
    activity: Mutex<Activity>,
    inbox: Mutex<Inbox>,
    waker: Mutex<Option<Waker>>,
    /// Set before the waker runs; its host takes it between requests
    /// ([`Backend::take_attention`]).
    attention: AtomicBool,
    /// Whether it listens on a channel: read by its host before each
    /// wait, without the inbox's lock ([`Backend::listening`]).
    listening: AtomicBool,
    /// Whether notifications may be queued in its inbox: set under the
    /// inbox's lock when some are, cleared there when they are taken, so
    /// its host's look after every request takes no lock when none came
    /// ([`Backend::take_notifications`]).
    queued: AtomicBool,
    /// Its counts of tables and indexes not yet published.
    stats: Arc<SessionStats>,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Backend {
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Its advisory locks' owner (`AdvisoryOwner::id`).
    pub fn advisory_owner(&self) -> u64 {
        self.advisory_owner
    }

    /// Its counts of tables and indexes not yet published.
    pub fn stats(&self) -> &Arc<SessionStats> {
        &self.stats
    }

    /// The session's cancel flag.
    pub fn interrupt(&self) -> &Arc<Interrupt> {
        &self.interrupt
    }

    /// A copy of what it does now.
    pub fn activity(&self) -> Activity {
        lock(&self.activity).clone()
    }

    /// When its current statement began (`statement_timestamp()`).
    pub fn query_start(&self) -> Option<i64> {
        lock(&self.activity).query_start
    }

    /// Changes what it does (its own session, or its host).
    pub fn update(&self, f: impl FnOnce(&mut Activity)) {
        f(&mut lock(&self.activity));
    }

    /// Installs what makes its idle host look at it (a terminate, a
    /// notification).
    pub fn set_waker(&self, waker: Waker) {
        *lock(&self.waker) = Some(waker);
    }

    fn wake(&self) {
        self.attention.store(true, Ordering::Release);
        let waker = lock(&self.waker).clone();
        if let Some(waker) = waker {
            waker();
        }
    }

    /// Whether something came for it (a terminate, a notification) since
    /// the last call: one atomic load when nothing did.
    pub fn take_attention(&self) -> bool {
        self.attention.load(Ordering::Acquire) && self.attention.swap(false, Ordering::AcqRel)
    }

    /// Cancels its running statement (57014, as a CancelRequest).
    pub fn cancel(&self) {
        self.interrupt.cancel();
    }

    /// Ends it (`pg_terminate_backend`): its statement fails and its host
    /// closes it with PostgreSQL's FATAL 57P01, idle or not.
    pub fn terminate(&self) {
        self.interrupt.terminate();
        self.wake();
    }

    /// Its channels (`pg_listening_channels`), in name order.
    pub fn channels(&self) -> Vec<String> {
        lock(&self.inbox).channels.iter().cloned().collect()
    }

    /// Starts (`LISTEN`) or stops (`UNLISTEN`; `None`: every channel)
    /// listening, at its transaction's commit.
    pub fn listen(&self, channel: Option<&str>, on: bool) {
        let mut inbox = lock(&self.inbox);
        match (channel, on) {
            (Some(channel), true) => {
                inbox.channels.insert(channel.to_string());
            }
            (Some(channel), false) => {
                inbox.channels.remove(channel);
            }
            (None, _) => inbox.channels.clear(),
        }
        self.listening
            .store(!inbox.channels.is_empty(), Ordering::Release);
    }

    /// Whether it listens on a channel, so that notifications may come
    /// for it while idle (its host then waits on its waker too).
    pub fn listening(&self) -> bool {
        self.listening.load(Ordering::Acquire)
    }

    /// The notifications queued for it, oldest first, taken.
    pub fn take_notifications(&self) -> Vec<Notification> {
        // A notification queued after this load wakes the host, which
        // looks again.
        if !self.queued.load(Ordering::Acquire) {
            return Vec::new();
        }
        let mut inbox = lock(&self.inbox);
        self.queued.store(false, Ordering::Relaxed);
        inbox.queued.drain(..).collect()
    }
}

impl Backends {
    /// A new session's process id.
    pub fn reserve_pid(&self) -> u32 {
        self.next_pid.fetch_add(1, Ordering::Relaxed)
    }

    fn live(&self) -> MutexGuard<'_, BTreeMap<u32, Arc<Backend>>> {
        lock(&self.live)
    }

    /// Registers session `pid` (from [`Backends::reserve_pid`]), whose
    /// cancel flag is `interrupt`, advisory locks' owner `advisory_owner`
    /// and pending statistics `stats`, starting at `now` (microseconds
    /// since 2000); the guard removes it.
    pub fn register(
        self: &Arc<Self>,
        pid: u32,
        interrupt: Arc<Interrupt>,
        advisory_owner: u64,
        stats: Arc<SessionStats>,
        now: i64,
    ) -> Registered {
        let backend = Arc::new(Backend {
            pid,
            interrupt,
            advisory_owner,
            activity: Mutex::new(Activity {
                user: "postgres".into(),
                database: "postgres".into(),
                backend_start: now,
                state_change: now,
                ..Activity::default()
            }),
            inbox: Mutex::default(),
            waker: Mutex::new(None),
            listening: AtomicBool::new(false),
            queued: AtomicBool::new(false),
            attention: AtomicBool::new(false),
            stats,
        });
        let replaced = self.live().insert(pid, backend.clone());
        assert!(replaced.is_none(), "process id {pid} registered twice");
        Registered {
            backends: self.clone(),
            backend,
        }
    }

    /// The session `pid`, if it is live.
    pub fn get(&self, pid: u32) -> Option<Arc<Backend>> {
        self.live().get(&pid).cloned()
    }

    /// Every live session, by process id.
    pub fn list(&self) -> Vec<Arc<Backend>> {
        self.live().values().cloned().collect()
    }

    /// Publishes every live session's pending statistics (a session is
    /// about to read them).
    pub fn publish_stats(&self) {
        for backend in self.list() {
            backend.stats.publish();
        }
    }

    /// Delivers a committed transaction's notifications (in the order
    /// sent, duplicates already folded) from session `from` to every
    /// session listening on their channels, itself included.
    pub fn notify(&self, from: u32, sent: &[(String, String)]) {
        if sent.is_empty() {
            return;
        }
        let live = self.live();
        for backend in live.values() {
            let mut inbox = lock(&backend.inbox);
            let before = inbox.queued.len();
            for (channel, payload) in sent {
                if inbox.channels.contains(channel) {
                    if inbox.queued.len() == MAX_QUEUED {
                        inbox.queued.pop_front();
                    }
                    inbox.queued.push_back(Notification {
                        pid: from,
                        channel: channel.clone(),
                        payload: payload.clone(),
                    });
                }
            }
            let delivered = inbox.queued.len() != before;
            if delivered {
                backend.queued.store(true, Ordering::Release);
            }
            drop(inbox);
            if delivered {
                backend.wake();
            }
        }
    }

    /// Waits up to `timeout` for session `pid` to end, looking at
    /// `interrupt` (the waiter's) every few milliseconds: whether it ended.
    pub fn wait_gone(
        &self,
        pid: u32,
        timeout: Duration,
        interrupt: &Interrupt,
    ) -> Result<bool, crate::TxnError> {
        let end = Instant::now() + timeout;
        folio_io::blocking::region(|| {
            let mut live = self.live();
            loop {
                if !live.contains_key(&pid) {
                    return Ok(true);
                }
                interrupt.check()?;
                let now = Instant::now();
                if now >= end {
                    return Ok(false);
                }
                let slice = (end - now).min(Duration::from_millis(10));
                live = match self.left.wait_timeout(live, slice) {
                    Ok((guard, _)) => guard,
                    Err(poisoned) => poisoned.into_inner().0,
                };
            }
        })
    }
}

/// A session's entry, removed when dropped.
#[derive(Debug)]
pub struct Registered {
    backends: Arc<Backends>,
    backend: Arc<Backend>,
}

impl Registered {
    pub fn backend(&self) -> &Arc<Backend> {
        &self.backend
    }

    pub fn backends(&self) -> &Arc<Backends> {
        &self.backends
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut live = self.backends.live();
        live.remove(&self.backend.pid);
        self.backends.left.notify_all();
    }
}
