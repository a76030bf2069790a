//! Snapshot slots: where running transactions publish the snapshot they
//! read with, so vacuum and pruning can compute the *horizon* — the oldest
//! snapshot any transaction may still use — without anyone taking a lock
//! on the read path.
//!
//! Each transaction claims a slot (one compare-and-swap on a slot's own
//! cache line; a thread reuses the slot it last had, so the line is in
//! practice its own and uncontended), publishes its snapshot there, and
//! frees it when it ends. Computing the horizon reads every slot below the
//! high-water mark (one more than the highest slot ever claimed): the cost
//! is pruning's and vacuum's, never a reader's. Before the mark, pruning
//! read all 4,096 slots (512 KiB) per prune: 5.8% of the tpcb profile at
//! 8 threads.
//!
//! **Why the horizon is safe.** A transaction publishes in this order:
//! `slot := completed` (SeqCst), then `S := completed` (SeqCst), and
//! reads with `S`. The horizon is computed as `H0 := completed` (SeqCst),
//! then `min(H0, every published slot)` (SeqCst loads). In the single
//! total order of SeqCst operations, either the horizon's load of the slot
//! follows the transaction's store — then the horizon is at most the
//! stored value, which is at most `S` — or it precedes it; then `H0`'s
//! load precedes the transaction's second load of `completed`, so
//! `H0 <= S`. Either way `horizon <= S` for every snapshot in use, and a
//! version deleted by a transaction with `csn <= horizon` is invisible to
//! all of them and to every later snapshot.
//!
//! **The start horizon** (`start_horizon`) is the same minimum over the
//! snapshot each running transaction *began* with (its slot's `start`,
//! stored once at claim and never refreshed): a READ COMMITTED
//! transaction's statement snapshot moves on, but what it read earlier
//! (a relation it opened) may still be in its hands. The catalog frees a
//! dropped relation's pages only below it (folio-catalog `reclaim.rs`). The
//! argument is the horizon's: the claimer stores `start` (SeqCst) before
//! it loads its snapshot, and the start horizon loads `completed` before
//! the mark and the starts.
//!
//! **The high-water mark** joins the same order: a claimer makes sure the
//! mark exceeds its slot (a SeqCst load, and a `fetch_max` only when it
//! must grow) before it publishes; the horizon loads the mark (SeqCst)
//! after `H0` and before the slots. If the horizon's load of the mark
//! comes after the claimer's, it reads a mark above the slot and scans it;
//! otherwise it precedes the claimer's publication and snapshot load, and
//! `H0 <= S` as before.

use crate::clock::{CommitClock, Snapshot};
use crate::error::TxnError;
use crate::ids::Csn;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Transactions that can run at once (each needs a slot).
pub const MAX_SNAPSHOTS: usize = 4096;

const FREE: u64 = u64::MAX;

/// One slot, alone on its cache lines: the published snapshot (`.0`) and
/// the snapshot the transaction began with (`start`).
#[derive(Debug)]
#[repr(align(128))]
struct Slot(AtomicU64, Start);

/// The first snapshot of the slot's transaction (`FREE` when none).
#[derive(Debug)]
struct Start(AtomicU64);

thread_local! {
    /// The slot this thread claimed last: tried first next time.
    static HINT: Cell<usize> = const { Cell::new(0) };
}

#[derive(Debug)]
pub(crate) struct SnapshotSlots {
    slots: Box<[Slot]>,
    /// One more than the highest slot index ever claimed: the horizon
    /// reads only the slots below it (threads claim from the lowest free
    /// slot they know, so this stays near the most transactions that ever
    /// ran at once, not `MAX_SNAPSHOTS`).
    high_water: HighWater,
}

/// The high-water mark, alone on its cache lines: written only when it
/// grows.
#[derive(Debug, Default)]
#[repr(align(128))]
struct HighWater(AtomicUsize);

impl SnapshotSlots {
    pub(crate) fn new() -> SnapshotSlots {
        SnapshotSlots {
            slots: (0..MAX_SNAPSHOTS)
                .map(|_| Slot(AtomicU64::new(FREE), Start(AtomicU64::new(FREE))))
                .collect(),
            high_water: HighWater::default(),
        }
    }

    /// Claims a slot and takes a snapshot published in it.
    pub(crate) fn claim(&self, clock: &CommitClock) -> Result<(usize, Snapshot), TxnError> {
        let start = HINT.with(Cell::get);
        for i in 0..MAX_SNAPSHOTS {
            let index = (start + i) % MAX_SNAPSHOTS;
            let slot = &self.slots[index].0;
            let began = &self.slots[index].1.0;
            if slot.load(Ordering::Relaxed) == FREE {
                // Before the slot is published (module comment): a horizon
                // that misses the slot read the mark before this, and its
                // completed CSN before this transaction's snapshot.
                let high = &self.high_water.0;
                if high.load(Ordering::SeqCst) <= index {
                    high.fetch_max(index + 1, Ordering::SeqCst);
                }
            }
            if slot.load(Ordering::Relaxed) != FREE {
                continue;
            }
            let published = clock.completed_seqcst().0;
            if slot
                .compare_exchange(FREE, published, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                // Before the snapshot is loaded (module comment).
                began.store(published, Ordering::SeqCst);
                HINT.with(|h| h.set(index));
                return Ok((index, Snapshot(clock.completed_seqcst())));
            }
        }
        Err(TxnError::TooManyTransactions(MAX_SNAPSHOTS))
    }

    /// Publishes a new snapshot in a claimed slot (READ COMMITTED's next
    /// statement) and returns it.
    pub(crate) fn refresh(&self, index: usize, clock: &CommitClock) -> Snapshot {
        self.slots[index]
            .0
            .store(clock.completed_seqcst().0, Ordering::SeqCst);
        Snapshot(clock.completed_seqcst())
    }

    /// Frees a slot.
    pub(crate) fn release(&self, index: usize) {
        self.slots[index].1.0.store(FREE, Ordering::Release);
        self.slots[index].0.store(FREE, Ordering::Release);
    }

    /// The oldest snapshot any running transaction may use (module
    /// comment): every commit at or below it is seen by all of them.
    pub(crate) fn horizon(&self, clock: &CommitClock) -> Csn {
        self.oldest(clock, |slot| &slot.0)
    }

    /// The oldest snapshot any running transaction began with (module
    /// comment): a transaction that began above it is not running.
    pub(crate) fn start_horizon(&self, clock: &CommitClock) -> Csn {
        self.oldest(clock, |slot| &slot.1.0)
    }

    /// The smallest value `field` holds in the claimed slots, or the
    /// completed CSN when none is older: the one scan both horizons share.
    fn oldest(&self, clock: &CommitClock, field: impl Fn(&Slot) -> &AtomicU64) -> Csn {
        let mut horizon = clock.completed_seqcst().0;
        let high = self.high_water.0.load(Ordering::SeqCst);
        for slot in &self.slots[..high.min(MAX_SNAPSHOTS)] {
            let value = field(slot).load(Ordering::SeqCst);
            if value != FREE {
                horizon = horizon.min(value);
            }
        }
        Csn(horizon)
    }
}

#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use super::*;
    use crate::fate::XidFate;

    // Proves the horizon is the completed CSN with no transaction running,
    // the oldest published snapshot otherwise, follows a refresh, and
    // moves on when the slot is released.
    #[test]
    fn the_horizon_is_the_oldest_published_snapshot() {
        let clock = CommitClock::new(Csn(10));
        let slots = SnapshotSlots::new();
        assert_eq!(slots.horizon(&clock), Csn(10));
        let (old, s) = slots.claim(&clock).unwrap();
        assert_eq!(s, Snapshot(Csn(10)));
        clock.commit(&XidFate::new());
        clock.commit(&XidFate::new());
        let (new, s2) = slots.claim(&clock).unwrap();
        assert_ne!(old, new);
        assert_eq!(s2, Snapshot(Csn(12)));
        assert_eq!(slots.horizon(&clock), Csn(10));
        assert_eq!(slots.refresh(old, &clock), Snapshot(Csn(12)));
        assert_eq!(slots.horizon(&clock), Csn(12));
        clock.commit(&XidFate::new());
        slots.release(old);
        slots.release(new);
        assert_eq!(slots.horizon(&clock), Csn(13));
    }

    // Proves the start horizon keeps a READ COMMITTED transaction's first
    // snapshot after a refresh moved the horizon on, and lets go of it
    // only when the slot is released.
    #[test]
    fn the_start_horizon_is_the_oldest_first_snapshot() {
        let clock = CommitClock::new(Csn(10));
        let slots = SnapshotSlots::new();
        assert_eq!(slots.start_horizon(&clock), Csn(10));
        let (old, _) = slots.claim(&clock).unwrap();
        clock.commit(&XidFate::new());
        clock.commit(&XidFate::new());
        slots.refresh(old, &clock);
        assert_eq!(slots.horizon(&clock), Csn(12));
        assert_eq!(slots.start_horizon(&clock), Csn(10));
        let (new, _) = slots.claim(&clock).unwrap();
        slots.release(old);
        assert_eq!(slots.start_horizon(&clock), Csn(12));
        slots.release(new);
        clock.commit(&XidFate::new());
        assert_eq!(slots.start_horizon(&clock), Csn(13));
    }
}
