//! Pool counters without shared writes on the hot path.
//!
//! Each thread that uses a pool gets its own counter block, registered with
//! the pool and found through a thread-local cache. Only the owning thread
//! writes a block, with a relaxed load + store (no RMW, no cache line shared
//! with another writer); [`CounterRegistry::sum`] reads every block with
//! relaxed loads. Blocks outlive their threads (the pool keeps them), so
//! counts of finished threads are kept.

use crate::PoolStats;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, Weak};

/// What a counter counts (index into a block).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Counter {
    Hits,
    Misses,
    Writes,
    Evictions,
    OptimisticRestarts,
    LatchWaits,
    StateRmw,
    Cleaned,
    ExtendedAhead,
}

const COUNTERS: usize = 9;

/// One thread's counters, alone on its cache lines.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(crate) struct CounterBlock([AtomicU64; COUNTERS]);

impl CounterBlock {
    /// Owner-only increment: relaxed load + store.
    #[inline(always)]
    fn add_owned(&self, counter: Counter, n: u64) {
        let cell = &self.0[counter as usize];
        cell.store(cell.load(Relaxed).wrapping_add(n), Relaxed);
    }
}

/// Pool ids are never reused, so a cached (id, block) pair can only match
/// the live pool that registered it.
static NEXT_POOL_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The block of the pool this thread used last.
    static LAST: Cell<(u64, *const CounterBlock)> = const { Cell::new((0, std::ptr::null())) };
    /// Every block of this thread, by pool id (weak: the pool owns them).
    static ALL: RefCell<Vec<(u64, Weak<CounterBlock>)>> = const { RefCell::new(Vec::new()) };
}

/// The counter blocks of one pool.
#[derive(Debug)]
pub(crate) struct CounterRegistry {
    pool_id: u64,
    blocks: Mutex<Vec<Arc<CounterBlock>>>,
    /// For threads whose thread-locals are already destroyed (RMW, rare).
    fallback: CounterBlock,
}

impl CounterRegistry {
    pub(crate) fn new() -> CounterRegistry {
        CounterRegistry {
            pool_id: NEXT_POOL_ID.fetch_add(1, Relaxed),
            blocks: Mutex::new(Vec::new()),
            fallback: CounterBlock::default(),
        }
    }

    /// Adds `n` to `counter` in the calling thread's block.
    #[inline(always)]
    pub(crate) fn add(&self, counter: Counter, n: u64) {
        let cached = LAST.try_with(|last| {
            let (id, block) = last.get();
            if id == self.pool_id {
                // SAFETY: `block` was registered by the pool with this id,
                // which holds an Arc to it until the pool is dropped; ids are
                // never reused and `self` (that pool) is alive.
                unsafe { (*block).add_owned(counter, n) };
                true
            } else {
                false
            }
        });
        if cached != Ok(true) {
            self.add_slow(counter, n);
        }
    }

    #[cold]
    fn add_slow(&self, counter: Counter, n: u64) {
        let registered = ALL.try_with(|all| {
            let mut all = all.borrow_mut();
            let found = all
                .iter()
                .find(|(id, _)| *id == self.pool_id)
                .and_then(|(_, b)| b.upgrade());
            let block = found.unwrap_or_else(|| {
                all.retain(|(_, block)| block.strong_count() > 0);
                let block = Arc::new(CounterBlock::default());
                self.blocks
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(Arc::clone(&block));
                all.push((self.pool_id, Arc::downgrade(&block)));
                block
            });
            block.add_owned(counter, n);
            let _ = LAST.try_with(|last| last.set((self.pool_id, Arc::as_ptr(&block))));
        });
        if registered.is_err() {
            self.fallback.0[counter as usize].fetch_add(n, Relaxed);
        }
    }

    /// The sum over every thread's block.
    pub(crate) fn sum(&self) -> PoolStats {
        let mut total = [0u64; COUNTERS];
        let mut add = |block: &CounterBlock| {
            for (sum, cell) in total.iter_mut().zip(&block.0) {
                *sum = sum.wrapping_add(cell.load(Relaxed));
            }
        };
        add(&self.fallback);
        for block in self.blocks.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            add(block);
        }
        stats(total)
    }

    /// The calling thread's own counts (zero if it has not used the pool):
    /// what one session did, as PostgreSQL's per-backend buffer usage.
    pub(crate) fn this_thread(&self) -> PoolStats {
        let mut total = [0u64; COUNTERS];
        let _ = ALL.try_with(|all| {
            let all = all.borrow();
            if let Some(block) = all
                .iter()
                .find(|(id, _)| *id == self.pool_id)
                .and_then(|(_, b)| b.upgrade())
            {
                for (sum, cell) in total.iter_mut().zip(&block.0) {
                    *sum = cell.load(Relaxed);
                }
            }
        });
        stats(total)
    }
}

/// Counts in [`Counter`] order as stats.
fn stats(total: [u64; COUNTERS]) -> PoolStats {
    let [
        hits,
        misses,
        writes,
        evictions,
        optimistic_restarts,
        latch_waits,
        state_rmw,
        cleaned,
        extended_ahead,
    ] = total;
    PoolStats {
        hits,
        misses,
        writes,
        evictions,
        optimistic_restarts,
        latch_waits,
        state_rmw,
        cleaned,
        extended_ahead,
    }
}
