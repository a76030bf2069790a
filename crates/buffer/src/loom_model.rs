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

/// Reads `cell` under a shared latch of `word` (loom reports the read if
/// the latch does not exclude the writers it races with).
fn read_shared(word: &AtomicU64, cell: &UnsafeCell<u64>) -> u64 {
    lock_shared(word);
    // SAFETY: the shared latch is held (what the models check).
    let seen = cell.with(|v| unsafe { *v });
    state::unlock_shared(word);
    seen
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
    optimistic_read_in(word, || cells)
}

/// One optimistic read: load the state word, then find the cells (after
/// the load, as the pool finds a page's frame), read them, validate.
fn optimistic_read_in<'a>(
    word: &AtomicU64,
    cells: impl FnOnce() -> &'a [AtomicU64; 2],
) -> Option<(u64, u64)> {
    let start = state::load(word);
    if !start.is_readable() {
        return None;
    }
    let cells = cells();
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
            thread::spawn(move || read_shared(&shared.0, &shared.1))
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

/// One optimistic read through the page's slot (README "Translation"):
/// the frame number is loaded after the state word.
fn optimistic_read_through_slot(
    word: &AtomicU64,
    frame_number: &AtomicU64,
    frames: &[[AtomicU64; 2]; 2],
) -> Option<(u64, u64)> {
    optimistic_read_in(word, || &frames[frame_number.load(Relaxed) as usize])
}

#[test]
fn loom_a_reused_frame_validates_only_for_its_new_page() {
    // Proves the fixed-frame translation (eviction.rs, fault.rs): page A
    // (frame 0, contents 7) is evicted and its frame given to page B, whose
    // slot still names frame 1 (stale bytes 5) until the fault writes it.
    // A reader of A that validates saw A's contents; a reader of B that
    // validates saw B's (9), never A's, the stale frame's, or a mix.
    model(|| {
        let pages = Arc::new((
            [resident(), AtomicU64::new(0)],
            [AtomicU64::new(0), AtomicU64::new(1)],
            [
                [AtomicU64::new(7), AtomicU64::new(7)],
                [AtomicU64::new(5), AtomicU64::new(5)],
            ],
        ));
        let mover = {
            let pages = pages.clone();
            thread::spawn(move || {
                let (words, slots, frames) = &*pages;
                lock_exclusive(&words[0]);
                let frame = slots[0].load(Relaxed);
                state::unlock_exclusive(&words[0], EVICTED, false);
                let seen = state::load(&words[1]);
                let locked = seen.lock_exclusive().unwrap();
                state::try_transition(&words[1], seen, locked).unwrap();
                slots[1].store(frame, Relaxed);
                frames[frame as usize][0].store(9, Relaxed);
                frames[frame as usize][1].store(9, Relaxed);
                state::unlock_exclusive(&words[1], UNLOCKED, false);
            })
        };
        let (words, slots, frames) = &*pages;
        if let Some(read) = optimistic_read_through_slot(&words[0], &slots[0], frames) {
            assert_eq!(read, (7, 7), "a validated read of A saw another page");
        }
        if let Some(read) = optimistic_read_through_slot(&words[1], &slots[1], frames) {
            assert_eq!(read, (9, 9), "a validated read of B saw another page");
        }
        mover.join().unwrap();
    });
}

#[test]
fn loom_cleaning_ahead_never_marks_a_newer_change_clean() {
    // Proves the cleaner's protocol (cleaner.rs, `AfterWrite::KeepMarked`
    // in eviction.rs): it shared-latches a Marked dirty page, copies it,
    // "writes" the copy, then releases it Marked and clean in one CAS if it
    // is the only holder, else clears the dirty flag and unlocks. Racing a
    // writer and a reader, the page is never left clean while memory holds
    // a change the written copy lacks, and never left latched.
    model(|| {
        let marked_dirty = {
            let word = resident();
            let seen = state::load(&word);
            let marked = seen.mark().unwrap();
            state::try_transition(&word, seen, marked).unwrap();
            // Dirty: set the flag as an exclusive release would have.
            word.fetch_or(1 << 8, Relaxed);
            word
        };
        let shared = Arc::new((
            marked_dirty,
            UnsafeCell::new(0u64),
            AtomicU64::new(u64::MAX),
        ));
        let cleaner = {
            let shared = shared.clone();
            thread::spawn(move || {
                let (word, cell, disk) = (&shared.0, &shared.1, &shared.2);
                let seen = state::load(word);
                if seen.state() != MARKED || !seen.is_dirty() {
                    return;
                }
                let latched = seen.lock_shared().unwrap();
                if state::try_transition(word, seen, latched).is_err() {
                    return;
                }
                // SAFETY: the shared latch is held (what the model checks).
                disk.store(cell.with(|v| unsafe { *v }), Relaxed);
                loop {
                    let seen = state::load(word);
                    if let Some(next) = seen.release_marked_clean() {
                        if state::try_transition(word, seen, next).is_ok() {
                            return;
                        }
                        continue;
                    }
                    let Some(clean) = seen.cleaned() else { break };
                    if state::try_transition(word, seen, clean).is_ok() {
                        break;
                    }
                }
                state::unlock_shared(word);
            })
        };
        let reader = {
            let shared = shared.clone();
            thread::spawn(move || read_shared(&shared.0, &shared.1))
        };
        lock_exclusive(&shared.0);
        // SAFETY: the exclusive latch is held.
        shared.1.with_mut(|v| unsafe { *v += 1 });
        state::unlock_exclusive(&shared.0, UNLOCKED, true);
        cleaner.join().unwrap();
        reader.join().unwrap();
        let end = state::load(&shared.0);
        assert!(
            matches!(end.state(), UNLOCKED | MARKED),
            "left latched: {end:?}"
        );
        // SAFETY: every other thread has finished.
        let memory = shared.1.with(|v| unsafe { *v });
        if !end.is_dirty() {
            assert_eq!(
                shared.2.load(Relaxed),
                memory,
                "clean, but the change was not written"
            );
        }
    });
}
