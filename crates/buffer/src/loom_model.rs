//! loom models of the state-word protocol (`state.rs`), run with
//! `cargo test -p folio-buffer --features loom --release -- loom`.
//!
//! The models drive the very transition functions the pool uses, on loom's
//! atomics. Page contents are modelled by two cells written in two steps:
//! an `UnsafeCell` where latches must exclude races (loom reports any
//! unsynchronised access), and relaxed atomics where the real code makes
//! racy volatile copies (optimistic reads), so a torn pair that validates
//! is caught by an assertion.

use crate::state::{self, EVICTED, EXCLUSIVE, MARKED, UNLOCKED, Word};
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicU64, Ordering::Relaxed};
use loom::thread;

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(3);
    builder.check(f);
}

/// A resident, unlocked page at version 1.
fn resident() -> AtomicU64 {
    AtomicU64::new(
        Word(0)
            .lock_exclusive()
            .unwrap()
            .released(UNLOCKED, false)
            .0,
    )
}

fn lock_exclusive(word: &AtomicU64) {
    loop {
        let seen = state::load(word);
        if seen
            .lock_exclusive()
            .is_some_and(|new| state::try_transition(word, seen, new).is_ok())
        {
            return;
        }
        thread::yield_now();
    }
}

fn lock_shared(word: &AtomicU64) {
    loop {
        let seen = state::load(word);
        if seen
            .lock_shared()
            .is_some_and(|new| state::try_transition(word, seen, new).is_ok())
        {
            return;
        }
        thread::yield_now();
    }
}

/// One optimistic read of the two-cell page; `Some((a, b))` if it validated.
fn optimistic_read(word: &AtomicU64, cells: &[AtomicU64; 2]) -> Option<(u64, u64)> {
    let start = state::load(word);
    if !start.is_readable() {
        return None;
    }
    let a = cells[0].load(Relaxed);
    let b = cells[1].load(Relaxed);
    state::validate(word, start).then_some((a, b))
}

#[test]
fn loom_exclusive_excludes_exclusive() {
    // Proves two exclusive lockers never overlap: loom would report the
    // concurrent UnsafeCell accesses, and no increment is lost.
    model(|| {
        let shared = Arc::new((resident(), UnsafeCell::new(0u64)));
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let shared = shared.clone();
                thread::spawn(move || {
                    lock_exclusive(&shared.0);
                    // SAFETY: the exclusive latch is held (what the model checks).
                    shared.1.with_mut(|v| unsafe { *v += 1 });
                    state::unlock_exclusive(&shared.0, UNLOCKED, true);
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        // SAFETY: both threads were joined.
        assert_eq!(shared.1.with(|v| unsafe { *v }), 2);
        let end = state::load(&shared.0);
        assert_eq!(
            (end.state(), end.version(), end.is_dirty()),
            (UNLOCKED, 3, true)
        );
    });
}

#[test]
fn loom_shared_excludes_exclusive() {
    // Proves shared holders and an exclusive holder never overlap, shared
    // unlock by fetch_sub returns the word to Unlocked, and the version only
    // moves on the exclusive release.
    model(|| {
        let shared = Arc::new((resident(), UnsafeCell::new(0u64)));
        let reader = {
            let shared = shared.clone();
            thread::spawn(move || {
                lock_shared(&shared.0);
                // SAFETY: the shared latch is held (what the model checks).
                let seen = shared.1.with(|v| unsafe { *v });
                state::unlock_shared(&shared.0);
                seen
            })
        };
        lock_exclusive(&shared.0);
        // SAFETY: the exclusive latch is held (what the model checks).
        shared.1.with_mut(|v| unsafe { *v = 5 });
        state::unlock_exclusive(&shared.0, UNLOCKED, true);
        let seen = reader.join().unwrap();
        assert!(seen == 0 || seen == 5);
        let end = state::load(&shared.0);
        assert_eq!((end.state(), end.version()), (UNLOCKED, 2));
    });
}

#[test]
fn loom_optimistic_reader_never_accepts_a_torn_page() {
    // Proves the seqlock: a writer storing the two cells in two steps under
    // the exclusive latch is never seen half-done by a validated read.
    model(|| {
        let shared = Arc::new((resident(), [AtomicU64::new(0), AtomicU64::new(0)]));
        let writer = {
            let shared = shared.clone();
            thread::spawn(move || {
                lock_exclusive(&shared.0);
                shared.1[0].store(1, Relaxed);
                shared.1[1].store(1, Relaxed);
                state::unlock_exclusive(&shared.0, UNLOCKED, true);
            })
        };
        if let Some((a, b)) = optimistic_read(&shared.0, &shared.1) {
            assert_eq!(a, b, "torn read validated");
        }
        writer.join().unwrap();
    });
}

#[test]
fn loom_eviction_invalidates_readers() {
    // Proves eviction (mark, lock from Marked, zero the frame, Evicted with a
    // bumped version) racing a reader that may clear the mark: a validated
    // read only ever sees the page's real contents, never the zeros.
    model(|| {
        let shared = Arc::new((resident(), [AtomicU64::new(7), AtomicU64::new(7)]));
        let evictor = {
            let shared = shared.clone();
            thread::spawn(move || {
                let word = &shared.0;
                let seen = state::load(word);
                let Some(marked) = seen.mark() else {
                    return false;
                };
                if state::try_transition(word, seen, marked).is_err() {
                    return false;
                }
                let seen = state::load(word);
                if seen.state() != MARKED {
                    return false; // a reader gave the page its second chance
                }
                let locked = seen.lock_exclusive().unwrap();
                if state::try_transition(word, seen, locked).is_err() {
                    return false;
                }
                shared.1[0].store(0, Relaxed);
                shared.1[1].store(0, Relaxed);
                state::unlock_exclusive(word, EVICTED, false);
                true
            })
        };
        let word = &shared.0;
        let seen = state::load(word);
        if let Some(unmarked) = seen.unmark() {
            let _ = state::try_transition(word, seen, unmarked);
        }
        if let Some((a, b)) = optimistic_read(word, &shared.1) {
            assert_eq!((a, b), (7, 7), "validated read saw an evicted frame");
        }
        let evicted = evictor.join().unwrap();
        let end = state::load(word);
        assert_eq!(end.state() == EVICTED, evicted);
        assert_ne!(end.state(), EXCLUSIVE);
    });
}
