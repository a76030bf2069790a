//! `statement_timeout`: a statement that runs longer is canceled as a
//! CancelRequest cancels it (its session's `Interrupt`, with the cause
//! `StatementTimeout`, so the error reads PostgreSQL's "canceling statement
//! due to statement timeout").
//!
//! One timer thread serves every session of the process, started by the
//! first armed statement. A statement [`arm`]s its deadline (a lock, an
//! insert into an ordered map, a wake-up only if it is the earliest) and
//! the guard's drop takes it out again; the thread sleeps until the
//! earliest deadline and cancels what is still armed then. A session whose
//! `statement_timeout` is 0 (the default) arms nothing and pays nothing.
//!
//! A deadline that passes between the statement's end and the guard's
//! drop sets the flag after the statement is done: the drop sees the
//! deadline gone and clears the flag, so the next statement does not see
//! a cancel meant for this one.

use folio_txn::{CancelCause, Interrupt};
use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// The armed deadlines, earliest first, each with the flag it sets.
#[derive(Default)]
struct Deadlines {
    armed: BTreeMap<(Instant, u64), Weak<Interrupt>>,
    next_id: u64,
}

struct Timer {
    deadlines: Mutex<Deadlines>,
    earlier: Condvar,
}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<&'static Timer> = OnceLock::new();
    TIMER.get_or_init(|| {
        let timer: &'static Timer = Box::leak(Box::new(Timer {
            deadlines: Mutex::new(Deadlines::default()),
            earlier: Condvar::new(),
        }));
        std::thread::Builder::new()
            .name("folio-statement-timeout".into())
            .spawn(move || timer.run())
            .expect("start the statement_timeout thread");
        timer
    })
}

impl Timer {
    fn lock(&self) -> std::sync::MutexGuard<'_, Deadlines> {
        self.deadlines.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Cancels each statement whose deadline passed, then sleeps until
    /// the next one (or until an earlier one is armed).
    fn run(&self) {
        let mut deadlines = self.lock();
        loop {
            let now = Instant::now();
            let next = deadlines.armed.first_key_value().map(|(key, _)| *key);
            deadlines = match next {
                None => self
                    .earlier
                    .wait(deadlines)
                    .unwrap_or_else(|p| p.into_inner()),
                Some(key) if key.0 <= now => {
                    if let Some(interrupt) = deadlines.armed.remove(&key).and_then(|w| w.upgrade())
                    {
                        interrupt.cancel_for(CancelCause::StatementTimeout);
                    }
                    deadlines
                }
                Some((at, _)) => {
                    self.earlier
                        .wait_timeout(deadlines, at - now)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
    }
}

/// A statement's armed deadline; dropping it disarms it.
#[must_use = "the deadline is disarmed when this is dropped"]
pub struct Armed {
    key: (Instant, u64),
    interrupt: Arc<Interrupt>,
}

/// Arms `interrupt` to be canceled after `after` (`None`: no timeout,
/// nothing armed).
pub fn arm(interrupt: &Arc<Interrupt>, after: Option<Duration>) -> Option<Armed> {
    let after = after?;
    let timer = timer();
    let mut deadlines = timer.lock();
    let id = deadlines.next_id;
    deadlines.next_id += 1;
    let key = (Instant::now() + after, id);
    let earliest = deadlines
        .armed
        .first_key_value()
        .is_none_or(|(k, _)| key < *k);
    deadlines.armed.insert(key, Arc::downgrade(interrupt));
    drop(deadlines);
    if earliest {
        timer.earlier.notify_one();
    }
    Some(Armed {
        key,
        interrupt: interrupt.clone(),
    })
}

impl Drop for Armed {
    fn drop(&mut self) {
        let fired = timer().lock().armed.remove(&self.key).is_none();
        if fired && self.interrupt.cause() == CancelCause::StatementTimeout {
            self.interrupt.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_cancels_with_its_cause_and_a_disarmed_one_does_not() {
        let interrupt = Arc::new(Interrupt::new());
        let armed = arm(&interrupt, Some(Duration::from_millis(20)));
        while !interrupt.is_set() {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(interrupt.cause(), CancelCause::StatementTimeout);
        // The drop after the deadline fired clears the flag.
        drop(armed);
        assert!(!interrupt.is_set());

        let quiet = Arc::new(Interrupt::new());
        drop(arm(&quiet, Some(Duration::from_millis(10))));
        // Another, later deadline firing proves the timer passed the first.
        let later = Arc::new(Interrupt::new());
        let _armed = arm(&later, Some(Duration::from_millis(30)));
        while !later.is_set() {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!quiet.is_set());
        assert!(arm(&quiet, None).is_none());
    }
}
