//! A statement's cancel flag (PostgreSQL's `QueryCancelPending`), and the
//! wake-up of a transaction asleep on another's end when it is set.
//!
//! The flag is set from another thread (the server's CancelRequest) and
//! read by the transaction's own thread: long loops of the layers above
//! poll it with a relaxed load ([`Interrupt::is_set`]); a wait for another
//! transaction ([`crate::Transaction::wait_for`]) registers the entry it
//! sleeps on, so [`Interrupt::cancel`] can wake it. No wake-up is lost:
//! the waiter registers before it tests the flag under the entry's mutex,
//! and the canceller sets the flag before it looks up the registration
//! and notifies under that same mutex.

use crate::advisory::AdvisoryLocks;
use crate::error::TxnError;
use crate::ids::Xid;
use crate::live::LiveEntry;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Why a statement was asked to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Cause {
    /// A CancelRequest (psql's Ctrl-C).
    User = 0,
    /// `statement_timeout` passed.
    StatementTimeout = 1,
    /// `pg_terminate_backend`: the session ends (PostgreSQL's FATAL
    /// 57P01), not only its statement; the flag then stays set.
    Terminate = 2,
}

impl Cause {
    /// PostgreSQL's message for the 57014 error.
    pub fn message(self) -> &'static str {
        match self {
            Cause::User => "canceling statement due to user request",
            Cause::StatementTimeout => "canceling statement due to statement timeout",
            Cause::Terminate => "terminating connection due to administrator command",
        }
    }
}

/// `OutOfMemory` if the statement this thread runs grew past its limit
/// (folio-memory's `over`: a thread-local load and compare).
pub fn check_memory() -> Result<(), TxnError> {
    match folio_memory::over() {
        true => Err(TxnError::OutOfMemory),
        false => Ok(()),
    }
}

/// One session's cancel flag. Aligned to its own cache lines: the
/// sessions' flags are made one after another by the server's accept
/// thread, and each session writes its own (its `Arc`'s count at every
/// transaction), which must not slow its neighbours.
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct Interrupt {
    set: AtomicBool,
    /// Why it was set ([`Cause`], as its `u8`).
    cause: AtomicU8,
    /// The entry a wait of this session sleeps on now, and its xid.
    waiting_on: Mutex<Option<(Arc<LiveEntry>, Xid)>>,
    /// The session's running transaction's top-level xid, once it has one
    /// (0: none), for `pg_stat_activity` and `pg_locks`.
    xid: AtomicU64,
    /// The advisory locks a wait of this session sleeps on now.
    waiting_on_advisory: Mutex<Option<Arc<AdvisoryLocks>>>,
    /// `pg_terminate_backend` asked the session to end: never cleared.
    terminated: AtomicBool,
    /// A `pg_sleep` of this session sleeps here ([`Interrupt::sleep`]),
    /// woken by a cancel; the flag says whether one sleeps now.
    sleeping: Mutex<bool>,
    woken: Condvar,
}

/// What a session waits for, as `pg_stat_activity`'s `wait_event_type`
/// and `wait_event` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitEvent {
    /// Another transaction's end (a row it changed).
    Transaction,
    /// An advisory lock.
    Advisory,
    /// `pg_sleep`.
    Sleep,
}

impl WaitEvent {
    /// `(wait_event_type, wait_event)`.
    pub fn names(self) -> (&'static str, &'static str) {
        match self {
            WaitEvent::Transaction => ("Lock", "transactionid"),
            WaitEvent::Advisory => ("Lock", "advisory"),
            WaitEvent::Sleep => ("Timeout", "PgSleep"),
        }
    }
}

impl Interrupt {
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// Asks the running statement to stop; wakes it if it waits for
    /// another transaction.
    pub fn cancel(&self) {
        self.cancel_for(Cause::User);
    }

    /// [`Interrupt::cancel`], saying why (the error's message:
    /// [`Cause::message`]).
    pub fn cancel_for(&self, cause: Cause) {
        self.cause.store(cause as u8, Ordering::SeqCst);
        self.set.store(true, Ordering::SeqCst);
        let waiting = self
            .waiting_on
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some((entry, _)) = waiting {
            entry.wake_waiters();
        }
        let waiting = self
            .waiting_on_advisory
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(locks) = waiting {
            locks.wake_waiters();
        }
        let _sleeping = self.sleeping.lock().unwrap_or_else(|p| p.into_inner());
        self.woken.notify_all();
    }

    /// Asks the session to end (`pg_terminate_backend`): its statement is
    /// canceled with [`Cause::Terminate`], and the flag stays set (a
    /// [`Interrupt::clear`] keeps it) for its host to close it.
    pub fn terminate(&self) {
        self.terminated.store(true, Ordering::SeqCst);
        self.cancel_for(Cause::Terminate);
    }

    /// Whether [`Interrupt::terminate`] was called.
    pub fn is_terminated(&self) -> bool {
        self.terminated.load(Ordering::SeqCst)
    }

    /// Sleeps for `duration` (`pg_sleep`) unless a cancel comes first
    /// (`Canceled`), in a blocking region (folio-io's: the host may free
    /// this thread's place meanwhile). No wake-up is lost: the flag is
    /// read under `sleeping`'s mutex, and a cancel notifies under it
    /// after setting the flag.
    pub fn sleep(&self, duration: Duration) -> Result<(), TxnError> {
        // `None`: beyond what an `Instant` holds, so until a cancel.
        let end = Instant::now().checked_add(duration);
        folio_io::blocking::region(|| {
            let mut sleeping = self.sleeping.lock().unwrap_or_else(|p| p.into_inner());
            *sleeping = true;
            let result = loop {
                if self.is_set_strict() {
                    break Err(TxnError::Canceled);
                }
                let now = Instant::now();
                if end.is_some_and(|end| now >= end) {
                    break Ok(());
                }
                let left = end.map_or(Duration::from_secs(3600), |end| end - now);
                sleeping = match self.woken.wait_timeout(sleeping, left) {
                    Ok((guard, _)) => guard,
                    Err(poisoned) => poisoned.into_inner().0,
                };
            };
            *sleeping = false;
            result
        })
    }

    /// Records the session's transaction's xid (`None`: it ended).
    pub(crate) fn set_xid(&self, xid: Option<Xid>) {
        self.xid.store(xid.map_or(0, |x| x.0), Ordering::Release);
    }

    /// The session's running transaction's xid, once it has written.
    pub fn xid(&self) -> Option<u64> {
        Some(self.xid.load(Ordering::Acquire)).filter(|&x| x != 0)
    }

    /// The xid of the transaction a wait of the session sleeps on (a row
    /// it changed).
    pub fn waiting_for_xid(&self) -> Option<u64> {
        self.waiting_on
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|(_, xid)| xid.0)
    }

    /// What the session waits for now, if anything.
    pub fn wait_event(&self) -> Option<WaitEvent> {
        let lock = |m: &Mutex<bool>| *m.lock().unwrap_or_else(|p| p.into_inner());
        if self
            .waiting_on
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
        {
            Some(WaitEvent::Transaction)
        } else if self
            .waiting_on_advisory
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
        {
            Some(WaitEvent::Advisory)
        } else if lock(&self.sleeping) {
            Some(WaitEvent::Sleep)
        } else {
            None
        }
    }

    /// Whether a cancel is pending (a relaxed load: cheap enough for a
    /// per-row loop).
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::Relaxed)
    }

    /// `Canceled` if a cancel is pending, else `OutOfMemory` if the
    /// statement this thread runs grew past its memory limit
    /// ([`check_memory`]): the loops that poll for a cancel are those
    /// that grow.
    pub fn check(&self) -> Result<(), TxnError> {
        match self.is_set() {
            true => Err(TxnError::Canceled),
            false => check_memory(),
        }
    }

    /// Why the pending cancel was asked for.
    pub fn cause(&self) -> Cause {
        match self.cause.load(Ordering::SeqCst) {
            x if x == Cause::StatementTimeout as u8 => Cause::StatementTimeout,
            x if x == Cause::Terminate as u8 => Cause::Terminate,
            _ => Cause::User,
        }
    }

    /// Forgets a pending cancel (a new statement starts); writes only if
    /// one is pending. A termination is never forgotten.
    pub fn clear(&self) {
        if self.set.load(Ordering::Relaxed) && !self.is_terminated() {
            self.set.store(false, Ordering::SeqCst);
        }
    }

    /// Records the entry a wait sleeps on and its holder's xid (`None`:
    /// the wait ended).
    pub(crate) fn waiting_on(&self, entry: Option<(Arc<LiveEntry>, Xid)>) {
        *self.waiting_on.lock().unwrap_or_else(|p| p.into_inner()) = entry;
    }

    /// Records the advisory locks a wait sleeps on (`None`: it ended).
    pub(crate) fn waiting_on_advisory(&self, locks: Option<Arc<AdvisoryLocks>>) {
        *self
            .waiting_on_advisory
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = locks;
    }

    /// The flag as the wait's condition reads it, under the entry's mutex.
    pub(crate) fn is_set_strict(&self) -> bool {
        self.set.load(Ordering::SeqCst)
    }
}
