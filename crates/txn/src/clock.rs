//! The commit clock: commit sequence numbers and one-number snapshots.
//!
//! A snapshot is one `Acquire` load of `completed`, the latest CSN whose
//! commit is complete: no lock, no read-modify-write, no scan of other
//! transactions. A committed transaction is visible to a snapshot `S` iff
//! its CSN is `<= S`.
//!
//! The commit instant (after the commit record is durable):
//!
//! 1. `c := next.fetch_add(1)`: the transaction's place in the commit order;
//! 2. its fate word := committed(`c`) (Release): fate and CSN in one store;
//! 3. publish in CSN order: wait until `completed == c - 1` (Acquire), then
//!    `completed := c` (Release). Commits that took CSNs out of order
//!    publish in order; a committer waits only for those that took the
//!    CSNs just before its own, each a few instructions from done.
//!
//! Why a snapshot sees exactly the commits with `csn <= S`, never part of
//! one and never a later one before an earlier one:
//!
//! - `completed` only ever takes the values `1, 2, 3, …` in order, each
//!   stored (Release) by the committer of that CSN after its fate store,
//!   and after an Acquire load that saw the previous value. So for every
//!   `c <= S`, the fate store of `c`'s committer happens-before the store
//!   of `S`; a reader's Acquire load of `S` synchronises with that store,
//!   so its later load of the fate of any transaction with `csn <= S` sees
//!   committed (fate words change at most once): visible.
//! - A transaction whose fate the reader sees as in progress, or committed
//!   with `c > S`, is invisible, and rightly: had it `c <= S`, the reader
//!   would have seen it committed (above).
//!
//! So the set a snapshot sees is a prefix of the commit order: snapshot
//! isolation's requirement. `loom_model.rs` checks it on every
//! interleaving of two committers and a reader.

use crate::fate::{Fate, XidFate};
use crate::ids::Csn;
use crate::sync::{AtomicU64, yield_now};
use std::sync::atomic::Ordering;

/// A snapshot: the latest CSN complete when it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Snapshot(pub Csn);

impl Snapshot {
    /// Whether a transaction whose fate is `fate` is visible: committed at
    /// or before the snapshot. Never waits.
    pub fn sees(self, fate: Fate) -> bool {
        matches!(fate, Fate::Committed(csn) if csn <= self.0)
    }
}

/// The global commit order.
#[derive(Debug)]
pub struct CommitClock {
    /// The next CSN to hand out.
    next: AtomicU64,
    /// The latest CSN whose commit is complete (published in order).
    completed: AtomicU64,
}

impl CommitClock {
    /// A clock whose latest complete commit is `completed` (recovery
    /// restores it from the WAL; a new database starts at `Csn::ZERO`).
    pub fn new(completed: Csn) -> CommitClock {
        CommitClock {
            next: AtomicU64::new(completed.0 + 1),
            completed: AtomicU64::new(completed.0),
        }
    }

    /// A snapshot: one load, nothing written.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot(Csn(self.completed.load(Ordering::Acquire)))
    }

    /// The latest complete commit, loaded SeqCst (the snapshot slots'
    /// protocol, `slots.rs`).
    pub(crate) fn completed_seqcst(&self) -> Csn {
        Csn(self.completed.load(Ordering::SeqCst))
    }

    /// The latest complete commit.
    pub fn completed(&self) -> Csn {
        self.snapshot().0
    }

    /// Commits the transaction whose fate is `fate` (its commit record is
    /// already durable): steps 1-3 of the module comment. Returns its CSN.
    /// (The transaction manager runs the same steps with the fate stored
    /// in a CSN-log page between `assign` and `publish`.)
    pub fn commit(&self, fate: &XidFate) -> Csn {
        let ticket = self.assign();
        fate.set_committed(ticket.csn());
        ticket.csn()
    }

    /// Step 1: the next place in the commit order. The ticket publishes
    /// when dropped (step 3), also if the commit failed in between: then
    /// the CSN is a gap no fate carries, and later commits do not wait
    /// for it forever.
    pub fn assign(&self) -> CsnTicket<'_> {
        let csn = self.next.fetch_add(1, Ordering::Relaxed);
        assert!(csn <= Csn::MAX.0, "commit sequence numbers exhausted");
        CsnTicket {
            clock: self,
            csn: Csn(csn),
        }
    }

    /// Step 3: waits until every CSN below `csn` is published, then
    /// publishes `csn`. Bounded by the progress of the committers of the
    /// CSNs just below, which are past their `assign` and hold no latch.
    fn publish(&self, csn: Csn) {
        let mut spins = 0u32;
        while self.completed.load(Ordering::Acquire) != csn.0 - 1 {
            spins += 1;
            if spins < 64 {
                std::hint::spin_loop();
            }
            #[cfg(not(feature = "loom"))]
            if spins >= 64 {
                yield_now();
            }
            #[cfg(feature = "loom")]
            yield_now();
        }
        self.completed.store(csn.0, Ordering::Release);
    }
}

/// A CSN handed out and not yet published: publishes on drop.
#[derive(Debug)]
pub struct CsnTicket<'c> {
    clock: &'c CommitClock,
    csn: Csn,
}

impl CsnTicket<'_> {
    pub fn csn(&self) -> Csn {
        self.csn
    }
}

impl Drop for CsnTicket<'_> {
    fn drop(&mut self) {
        self.clock.publish(self.csn);
    }
}

#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use super::*;
    use std::sync::Arc;

    // Proves commits get consecutive CSNs, a snapshot taken between two
    // commits sees the first and not the second, aborted and running
    // transactions are never seen, and a clock restored at a CSN continues
    // after it.
    #[test]
    fn snapshots_see_the_commits_before_them() {
        let clock = CommitClock::new(Csn::ZERO);
        let (a, b, c) = (XidFate::new(), XidFate::new(), XidFate::new());
        let before = clock.snapshot();
        assert_eq!(clock.commit(&a), Csn(1));
        let between = clock.snapshot();
        assert_eq!(clock.commit(&b), Csn(2));
        c.set_aborted();
        let after = clock.snapshot();
        assert!(!before.sees(a.load()) && !before.sees(b.load()));
        assert!(between.sees(a.load()) && !between.sees(b.load()));
        assert!(after.sees(a.load()) && after.sees(b.load()));
        assert!(!after.sees(c.load()) && !after.sees(Fate::InProgress));
        let restored = CommitClock::new(Csn(41));
        assert_eq!(restored.commit(&XidFate::new()), Csn(42));
    }

    // Proves, with real threads, that whatever a reader sees is a prefix of
    // the commit order: while 4 threads commit 2,000 transactions each, a
    // reader's snapshot never sees a transaction without every transaction
    // of a lower CSN, and completes at the last CSN.
    #[test]
    fn concurrent_commits_publish_a_prefix() {
        let clock = Arc::new(CommitClock::new(Csn::ZERO));
        let per_thread = 2_000;
        let fates: Arc<Vec<XidFate>> =
            Arc::new((0..4 * per_thread).map(|_| XidFate::new()).collect());
        let committers: Vec<_> = (0..4)
            .map(|t| {
                let (clock, fates) = (clock.clone(), fates.clone());
                std::thread::spawn(move || {
                    for i in 0..per_thread {
                        clock.commit(&fates[t * per_thread + i]);
                    }
                })
            })
            .collect();
        let mut checks = 0;
        while committers.iter().any(|h| !h.is_finished()) || checks == 0 {
            let snapshot = clock.snapshot();
            let mut seen: Vec<Csn> = fates
                .iter()
                .filter_map(|f| match f.load() {
                    Fate::Committed(csn) if snapshot.sees(Fate::Committed(csn)) => Some(csn),
                    _ => None,
                })
                .collect();
            seen.sort();
            let expected: Vec<Csn> = (1..=snapshot.0.0).map(Csn).collect();
            assert_eq!(seen, expected, "snapshot {snapshot:?} saw a gap");
            checks += 1;
        }
        for h in committers {
            h.join().unwrap();
        }
        assert_eq!(clock.completed(), Csn(4 * per_thread as u64));
    }
}
