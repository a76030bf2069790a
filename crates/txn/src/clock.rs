//! The commit clock: commit sequence numbers and one-number snapshots.
//!
//! A snapshot is one `Acquire` load of `completed`, the latest CSN whose
//! commit is complete: no lock, no read-modify-write, no scan of other
//! transactions. A committed transaction is visible to a snapshot `S` iff
//! its CSN is `<= S`.
//!
//! The commit instant:
//!
//! 1. `c := next.fetch_add(1)`: the transaction's place in the commit order;
//! 2. its fate word := committed(`c`) (Release): fate and CSN in one store
//!    (the transaction manager stores it in a CSN-log page and logs it);
//! 3. *mark* `c`: its slot in a ring records the LSN its commit record
//!    ends at, if the commit waits for it to be durable (0 otherwise),
//!    then `c` itself (Release);
//! 4. *advance*: anyone moves `completed` from `d` to `d + 1` (CAS, AcqRel)
//!    while slot `d + 1` is marked with `d + 1` and its LSN is durable;
//!    the committer of `c`, once its record is durable, advances and then
//!    waits until `completed >= c`, advancing again while it waits.
//!
//! Durable-before-visible holds: `completed` passes `c` only once `c`'s
//! commit record is durable (or `c` does not wait for durability). A
//! committer never waits for another committer's *thread* to run after a
//! group flush: whoever runs first makes every durable, marked commit
//! visible, in order (the earlier design published each CSN by its own
//! committer, and with more committers than CPUs the threads woken by one
//! flush yielded to each other in CSN order: 15% of a server's CPU in
//! `sched_yield` under pgbench's tpcb). A committer still waits for those
//! just before it to *mark* (a few instructions after their fate store).
//!
//! Why a snapshot sees exactly the commits with `csn <= S`, never part of
//! one and never a later one before an earlier one:
//!
//! - `completed` only ever takes the values `1, 2, 3, …` in order: each
//!   step is a CAS from `d` to `d + 1` made after an Acquire load of slot
//!   `d + 1` that saw the mark of `d + 1`, stored (Release) by `d + 1`'s
//!   committer after its fate store. So for every `c <= S`, the fate store
//!   of `c` happens-before the store of `S` (the CASes form a release
//!   sequence, each reading the last); a reader's Acquire load of `S`
//!   synchronises with it, so its later load of the fate of any
//!   transaction with `csn <= S` sees committed: visible.
//! - A transaction whose fate the reader sees as in progress, or committed
//!   with `c > S`, is invisible, and rightly: had it `c <= S`, the reader
//!   would have seen it committed (above).
//!
//! So the set a snapshot sees is a prefix of the commit order: snapshot
//! isolation's requirement. A slot is reused by `c + RING`, whose
//! committer marks it only once `completed >= c` (at most `RING` commits
//! in flight). `loom_model.rs` checks the protocol on every interleaving
//! of two committers and a reader.

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

/// Slots of the ring of commits in flight (marked, not yet visible).
#[cfg(not(feature = "loom"))]
const RING: u64 = 1 << 14;
#[cfg(feature = "loom")]
const RING: u64 = 4;

/// One commit in flight: its CSN once marked, and the LSN its commit
/// record ends at (0: nothing to wait for).
#[derive(Debug, Default)]
struct Slot {
    csn: AtomicU64,
    lsn: AtomicU64,
}

/// The global commit order.
#[derive(Debug)]
pub struct CommitClock {
    /// The next CSN to hand out.
    next: AtomicU64,
    /// The latest CSN whose commit is complete (visible).
    completed: AtomicU64,
    slots: Box<[Slot]>,
}

impl CommitClock {
    /// A clock whose latest complete commit is `completed` (recovery
    /// restores it from the WAL; a new database starts at `Csn::ZERO`).
    pub fn new(completed: Csn) -> CommitClock {
        CommitClock {
            next: AtomicU64::new(completed.0 + 1),
            completed: AtomicU64::new(completed.0),
            slots: (0..RING).map(|_| Slot::default()).collect(),
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

    /// Commits the transaction whose fate is `fate`, waiting for nothing
    /// durable: steps 1-4 of the module comment. Returns its CSN. (The
    /// transaction manager runs the same steps with the fate stored in a
    /// CSN-log page and its commit record's LSN.)
    pub fn commit(&self, fate: &XidFate) -> Csn {
        let ticket = self.assign();
        fate.set_committed(ticket.csn());
        let csn = ticket.csn();
        ticket.publish();
        csn
    }

    /// Step 1: the next place in the commit order. A ticket dropped
    /// without [`CsnTicket::publish`] (a commit that failed after taking
    /// its CSN) is marked as a gap no fate carries, so later commits do
    /// not wait for it for ever.
    pub fn assign(&self) -> CsnTicket<'_> {
        let csn = self.next.fetch_add(1, Ordering::Relaxed);
        assert!(csn <= Csn::MAX.0, "commit sequence numbers exhausted");
        CsnTicket {
            clock: self,
            csn: Csn(csn),
            marked: false,
        }
    }

    fn slot(&self, csn: u64) -> &Slot {
        &self.slots[(csn % RING) as usize]
    }

    /// Step 3: marks `csn`, whose commit record ends at `lsn` (0: visible
    /// without waiting for the WAL). Waits while the ring is full (its
    /// slot still belongs to `csn - RING`).
    fn mark(&self, csn: u64, lsn: u64) {
        let mut spins = 0u32;
        while self.completed.load(Ordering::Acquire) + RING < csn {
            backoff(&mut spins);
        }
        let slot = self.slot(csn);
        slot.lsn.store(lsn, Ordering::Relaxed);
        slot.csn.store(csn, Ordering::Release);
    }

    /// Step 4: makes visible, in order, every marked commit whose record
    /// is durable (`durable`: the WAL's synced LSN).
    fn advance(&self, durable: u64) {
        loop {
            let done = self.completed.load(Ordering::Acquire);
            let next = done + 1;
            let slot = self.slot(next);
            if slot.csn.load(Ordering::Acquire) != next
                || slot.lsn.load(Ordering::Relaxed) > durable
            {
                return;
            }
            // Lost races are fine: someone else moved it on.
            let _ =
                self.completed
                    .compare_exchange(done, next, Ordering::AcqRel, Ordering::Acquire);
        }
    }

    /// Waits until `csn` is visible, advancing while it waits. Held up by
    /// an earlier commit whose record is not durable yet, it waits for
    /// that flush (`wal.wait`, the group commit's sleep) rather than
    /// spinning through it; held up by one not yet marked (between its
    /// CSN and its mark: a few instructions), it spins, then yields.
    fn wait_visible(&self, csn: u64, wal: &dyn WalState) {
        let mut spins = 0u32;
        loop {
            self.advance(wal.synced());
            let done = self.completed.load(Ordering::Acquire);
            if done >= csn {
                return;
            }
            let slot = self.slot(done + 1);
            if slot.csn.load(Ordering::Acquire) == done + 1 {
                let lsn = slot.lsn.load(Ordering::Relaxed);
                if lsn > wal.synced() {
                    wal.wait(lsn);
                    continue;
                }
            }
            backoff(&mut spins);
        }
    }
}

/// What the commit clock needs of the WAL: how far it is durable, and a
/// way to sleep until a given LSN is.
pub trait WalState {
    /// The synced LSN.
    fn synced(&self) -> u64;
    /// Returns once `lsn` is durable (or the WAL failed: the failed
    /// commit then marks itself with no LSN to wait for).
    fn wait(&self, lsn: u64);
}

/// A WAL state that is always durable (commits that wait for nothing).
struct AllDurable;

impl WalState for AllDurable {
    fn synced(&self) -> u64 {
        u64::MAX
    }

    fn wait(&self, _lsn: u64) {}
}

/// A short spin, then yielding the CPU.
fn backoff(spins: &mut u32) {
    *spins += 1;
    #[cfg(not(feature = "loom"))]
    if *spins < 64 {
        std::hint::spin_loop();
    } else {
        yield_now();
    }
    #[cfg(feature = "loom")]
    yield_now();
}

/// A CSN handed out and not yet visible.
#[derive(Debug)]
pub struct CsnTicket<'c> {
    clock: &'c CommitClock,
    csn: Csn,
    marked: bool,
}

impl CsnTicket<'_> {
    pub fn csn(&self) -> Csn {
        self.csn
    }

    /// Step 3, once the fate is stored: the commit record ends at `lsn`
    /// (0 when the commit does not wait for the WAL). Later commits whose
    /// records are durable may then pass it as soon as `lsn` is.
    pub fn mark(&mut self, lsn: u64) {
        self.clock.mark(self.csn.0, lsn);
        self.marked = true;
    }

    /// Step 4, once the commit record is durable: returns when the commit
    /// is visible. `lsn` is what it was marked with; a commit whose flush
    /// failed publishes with `lsn = 0` (the WAL is poisoned; recovery
    /// tells the outcome) so later ones do not wait for ever.
    pub fn publish_with(mut self, lsn: u64, wal: &dyn WalState) {
        if !self.marked || lsn == 0 {
            self.clock.mark(self.csn.0, lsn);
            self.marked = true;
        }
        self.clock.wait_visible(self.csn.0, wal);
    }

    /// [`CsnTicket::publish_with`] for a commit that waits for nothing.
    pub fn publish(self) {
        self.publish_with(0, &AllDurable);
    }
}

impl Drop for CsnTicket<'_> {
    fn drop(&mut self) {
        if !self.marked {
            // A gap: later commits must not wait for it.
            self.clock.mark(self.csn.0, 0);
            self.clock.advance(0);
        }
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

    /// A WAL whose synced LSN the test moves.
    struct TestWal(std::sync::atomic::AtomicU64);

    impl WalState for TestWal {
        fn synced(&self) -> u64 {
            self.0.load(Ordering::Acquire)
        }

        fn wait(&self, lsn: u64) {
            while self.synced() < lsn {
                std::thread::yield_now();
            }
        }
    }

    // Proves a commit that waits for its record becomes visible only once
    // the WAL is synced past it, and that a later commit that waits for
    // nothing stays invisible until then (a prefix of the commit order),
    // however the threads run: visibility needs the LSN only the test sets.
    #[test]
    fn a_commit_is_visible_only_once_durable() {
        let clock = Arc::new(CommitClock::new(Csn::ZERO));
        let wal = Arc::new(TestWal(std::sync::atomic::AtomicU64::new(0)));
        let fates: Arc<[XidFate; 2]> = Arc::new([XidFate::new(), XidFate::new()]);
        let first = clock.assign();
        let (first_csn, mut first) = (first.csn(), first);
        fates[0].set_committed(first_csn);
        first.mark(5);
        let later = {
            let (clock, wal, fates) = (clock.clone(), wal.clone(), fates.clone());
            std::thread::spawn(move || {
                let mut ticket = clock.assign();
                fates[1].set_committed(ticket.csn());
                ticket.mark(0);
                ticket.publish_with(0, &*wal);
            })
        };
        // The later commit is marked and waits; neither is visible.
        while fates[1].load() == Fate::InProgress {
            std::thread::yield_now();
        }
        assert_eq!(clock.snapshot(), Snapshot(Csn::ZERO));
        assert!(!clock.snapshot().sees(fates[1].load()));
        wal.0.store(5, Ordering::Release);
        later.join().unwrap();
        // The later committer made both visible, in order.
        assert_eq!(clock.snapshot(), Snapshot(Csn(2)));
        first.publish_with(5, &*wal);
        assert!(clock.snapshot().sees(fates[0].load()) && clock.snapshot().sees(fates[1].load()));
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
