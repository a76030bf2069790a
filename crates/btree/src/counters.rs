//! Per-thread access counters. Incrementing a thread-local cell writes no
//! shared memory, so counting costs the read path nothing that other threads
//! see; a benchmark thread reads its own counters before and after its work.

use std::cell::Cell;

thread_local! {
    static PAGES: Cell<u64> = const { Cell::new(0) };
    static RESTARTS: Cell<u64> = const { Cell::new(0) };
    static STALE_LINKS: Cell<u64> = const { Cell::new(0) };
}

/// What the current thread's tree operations have done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AccessCounters {
    /// Pages latched or optimistically read (each attempt counts).
    pub pages: u64,
    /// Optimistic reads that failed validation and were retried.
    pub restarts: u64,
    /// Sibling links found stale by a scan and repaired (moving right or
    /// re-descending).
    pub stale_links: u64,
}

impl AccessCounters {
    /// The counters of the calling thread.
    pub fn current() -> AccessCounters {
        AccessCounters {
            pages: PAGES.with(Cell::get),
            restarts: RESTARTS.with(Cell::get),
            stale_links: STALE_LINKS.with(Cell::get),
        }
    }

    /// The work done between `earlier` and `self`.
    pub fn since(&self, earlier: &AccessCounters) -> AccessCounters {
        AccessCounters {
            pages: self.pages - earlier.pages,
            restarts: self.restarts - earlier.restarts,
            stale_links: self.stale_links - earlier.stale_links,
        }
    }
}

#[inline]
pub(crate) fn page() {
    PAGES.with(|c| c.set(c.get() + 1));
}

/// Counts a restart; after a few in a row the thread yields so the writer
/// it keeps colliding with can finish (2 cores, many threads).
#[inline]
pub(crate) fn restart(attempt: &mut u32) {
    RESTARTS.with(|c| c.set(c.get() + 1));
    *attempt += 1;
    if attempt.is_multiple_of(4) {
        std::thread::yield_now();
    }
}

#[inline]
pub(crate) fn stale_link() {
    STALE_LINKS.with(|c| c.set(c.get() + 1));
}
