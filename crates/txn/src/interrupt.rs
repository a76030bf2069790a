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
use crate::live::LiveEntry;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

/// Why a statement was asked to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Cause {
    /// A CancelRequest (psql's Ctrl-C).
    User = 0,
    /// `statement_timeout` passed.
    StatementTimeout = 1,
}

impl Cause {
    /// PostgreSQL's message for the 57014 error.
    pub fn message(self) -> &'static str {
        match self {
            Cause::User => "canceling statement due to user request",
            Cause::StatementTimeout => "canceling statement due to statement timeout",
        }
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
    /// The entry a wait of this session sleeps on now.
    waiting_on: Mutex<Option<Arc<LiveEntry>>>,
    /// The advisory locks a wait of this session sleeps on now.
    waiting_on_advisory: Mutex<Option<Arc<AdvisoryLocks>>>,
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
        if let Some(entry) = waiting {
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
    }

    /// Whether a cancel is pending (a relaxed load: cheap enough for a
    /// per-row loop).
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::Relaxed)
    }

    /// `Canceled` if a cancel is pending.
    pub fn check(&self) -> Result<(), TxnError> {
        match self.is_set() {
            true => Err(TxnError::Canceled),
            false => Ok(()),
        }
    }

    /// Why the pending cancel was asked for.
    pub fn cause(&self) -> Cause {
        match self.cause.load(Ordering::SeqCst) {
            x if x == Cause::StatementTimeout as u8 => Cause::StatementTimeout,
            _ => Cause::User,
        }
    }

    /// Forgets a pending cancel (a new statement starts); writes only if
    /// one is pending.
    pub fn clear(&self) {
        if self.set.load(Ordering::Relaxed) {
            self.set.store(false, Ordering::SeqCst);
        }
    }

    /// Records the entry a wait sleeps on (`None`: the wait ended).
    pub(crate) fn waiting_on(&self, entry: Option<Arc<LiveEntry>>) {
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
