//! A one-slot mailbox for the background I/O threads (the WAL's segment
//! preparer, the data file's extender): the foreground posts what it wants
//! done without waiting, the thread takes the newest request and does it.
//! A request not yet taken is superseded by a larger one, so a slow thread
//! never builds a queue.

use std::sync::{Condvar, Mutex, MutexGuard};

/// The mailbox; `T` orders requests (the largest wins).
#[derive(Debug)]
pub struct Mailbox<T> {
    slot: Mutex<Slot<T>>,
    posted: Condvar,
}

#[derive(Debug)]
struct Slot<T> {
    want: Option<T>,
    closed: bool,
}

impl<T> Default for Mailbox<T> {
    fn default() -> Self {
        Mailbox {
            slot: Mutex::new(Slot {
                want: None,
                closed: false,
            }),
            posted: Condvar::new(),
        }
    }
}

impl<T: Ord + Copy> Mailbox<T> {
    /// Posts `request`, or keeps the larger one already waiting. Never
    /// blocks beyond the slot's mutex.
    pub fn post(&self, request: T) {
        let mut slot = self.lock();
        slot.want = Some(slot.want.map_or(request, |w| w.max(request)));
        self.posted.notify_one();
    }

    /// Waits for a request and takes it; `None` once [`Mailbox::close`]d
    /// (a request still waiting then is dropped).
    pub fn take(&self) -> Option<T> {
        let mut slot = self.lock();
        loop {
            if slot.closed {
                return None;
            }
            if let Some(request) = slot.want.take() {
                return Some(request);
            }
            slot = self.posted.wait(slot).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Ends the thread's loop: every `take`, now or later, returns `None`.
    pub fn close(&self) {
        self.lock().closed = true;
        self.posted.notify_all();
    }

    fn lock(&self) -> MutexGuard<'_, Slot<T>> {
        self.slot.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    // Proves the mailbox's rules: the larger of two waiting requests wins,
    // a take returns what was posted before it and waits for what comes
    // after, and closing ends a waiting take.
    #[test]
    fn the_largest_waiting_request_is_taken_and_close_ends_the_loop() {
        let mailbox = Arc::new(Mailbox::default());
        mailbox.post(3u64);
        mailbox.post(7);
        mailbox.post(5);
        assert_eq!(mailbox.take(), Some(7));
        let worker = {
            let mailbox = mailbox.clone();
            std::thread::spawn(move || {
                let mut taken = Vec::new();
                while let Some(request) = mailbox.take() {
                    taken.push(request);
                    if request == 9 {
                        break;
                    }
                }
                taken
            })
        };
        mailbox.post(9);
        assert_eq!(worker.join().unwrap(), vec![9]);
        let waiting = {
            let mailbox = mailbox.clone();
            std::thread::spawn(move || mailbox.take())
        };
        mailbox.close();
        assert_eq!(waiting.join().unwrap(), None);
        mailbox.post(1);
        assert_eq!(mailbox.take(), None);
    }
}
