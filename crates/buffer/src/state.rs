//! The page state word: one `AtomicU64` per page holding a version, a latch
//! state and the dirty flag (layout table in README.md).
//!
//! | bits  | meaning                                                            |
//! |-------|--------------------------------------------------------------------|
//! | 0-7   | latch state: 0 Evicted, 1 Unlocked, 2..=253 Shared(1..=252), 254 Exclusive, 255 Marked |
//! | 8     | dirty: the frame differs from the page on disk                     |
//! | 9-63  | version (55 bits, wrapping): bumped whenever an exclusive latch is released |
//!
//! All-zero is "Evicted, clean, version 0", so the state array can be lazily
//! zeroed anonymous memory. Shared(n) is encoded as `1 + n`, so releasing a
//! shared latch is one `fetch_sub(1)` and Shared(1) - 1 = Unlocked.
//!
//! Every function here performs at most one read-modify-write on the word;
//! callers count them (`state_rmw`) and own the retry loops.

use crate::sync::AtomicWord;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};

/// Latch state values (bits 0-7).
pub(crate) const EVICTED: u8 = 0;
pub(crate) const UNLOCKED: u8 = 1;
pub(crate) const MAX_SHARED: u8 = 252;
pub(crate) const EXCLUSIVE: u8 = 254;
pub(crate) const MARKED: u8 = 255;

const STATE_MASK: u64 = 0xFF;
const DIRTY_BIT: u64 = 1 << 8;
const VERSION_SHIFT: u32 = 9;

// Shared(1..=MAX_SHARED) occupies 2..=253, strictly between Unlocked and Exclusive.
const _: () = assert!(UNLOCKED as u16 + MAX_SHARED as u16 + 1 == EXCLUSIVE as u16);
const _: () = assert!(EXCLUSIVE < MARKED && EVICTED == 0);
const _: () = assert!(DIRTY_BIT > STATE_MASK && (1u64 << VERSION_SHIFT) > DIRTY_BIT);

/// A loaded state word (a plain value; the atomic lives in the state array).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Word(pub(crate) u64);

impl Word {
    #[inline(always)]
    pub(crate) fn state(self) -> u8 {
        (self.0 & STATE_MASK) as u8
    }

    #[inline(always)]
    pub(crate) fn version(self) -> u64 {
        self.0 >> VERSION_SHIFT
    }

    #[inline(always)]
    pub(crate) fn is_dirty(self) -> bool {
        self.0 & DIRTY_BIT != 0
    }

    /// Number of shared holders, 0 unless the state is Shared(n).
    #[inline(always)]
    pub(crate) fn shared_count(self) -> u8 {
        match self.state() {
            s @ 2..=253 => s - UNLOCKED,
            _ => 0,
        }
    }

    #[inline(always)]
    fn with_state(self, state: u8) -> Word {
        Word((self.0 & !STATE_MASK) | u64::from(state))
    }

    /// States an optimistic read may start from: the frame holds the page and
    /// no writer is inside it.
    #[inline(always)]
    pub(crate) fn is_readable(self) -> bool {
        !matches!(self.state(), EVICTED | EXCLUSIVE)
    }

    /// Unlocked, Marked or Evicted → Exclusive (same version). Evicted →
    /// Exclusive is the start of a fault-in.
    #[inline]
    pub(crate) fn lock_exclusive(self) -> Option<Word> {
        matches!(self.state(), UNLOCKED | MARKED | EVICTED).then(|| self.with_state(EXCLUSIVE))
    }

    /// Unlocked or Marked → Shared(1); Shared(n) → Shared(n + 1) below the cap.
    #[inline]
    pub(crate) fn lock_shared(self) -> Option<Word> {
        match self.state() {
            UNLOCKED | MARKED => Some(self.with_state(UNLOCKED + 1)),
            s @ 2..=252 => Some(self.with_state(s + 1)),
            _ => None,
        }
    }

    /// Shared(1) → Exclusive and clean: the sole shared holder, having
    /// written the page, takes it over for eviction.
    #[inline]
    pub(crate) fn upgrade_clean(self) -> Option<Word> {
        (self.shared_count() == 1).then(|| Word(self.with_state(EXCLUSIVE).0 & !DIRTY_BIT))
    }

    /// Shared(1) → Marked and clean: the sole shared holder, having written
    /// the page ahead of the clock, hands it back still marked for eviction.
    #[inline]
    pub(crate) fn release_marked_clean(self) -> Option<Word> {
        (self.shared_count() == 1).then(|| Word(self.with_state(MARKED).0 & !DIRTY_BIT))
    }

    /// Unlocked → Marked (first clock pass).
    #[inline]
    pub(crate) fn mark(self) -> Option<Word> {
        (self.state() == UNLOCKED).then(|| self.with_state(MARKED))
    }

    /// Marked → Unlocked (a reader gives the page its second chance).
    #[inline]
    pub(crate) fn unmark(self) -> Option<Word> {
        (self.state() == MARKED).then(|| self.with_state(UNLOCKED))
    }

    /// Clears the dirty flag after a write-back, unless a writer is inside.
    #[inline]
    pub(crate) fn cleaned(self) -> Option<Word> {
        (self.is_readable() && self.is_dirty()).then_some(Word(self.0 & !DIRTY_BIT))
    }

    /// The word an exclusive holder stores on release: next version, `state`,
    /// and the dirty flag.
    #[inline]
    pub(crate) fn released(self, state: u8, dirty: bool) -> Word {
        debug_assert_eq!(self.state(), EXCLUSIVE);
        let version = self.version().wrapping_add(1) << VERSION_SHIFT;
        Word(version | if dirty { DIRTY_BIT } else { 0 } | u64::from(state))
    }
}

/// Loads the word (Acquire: the frame contents published by the last
/// releaser are visible after it).
#[inline(always)]
pub(crate) fn load<W: AtomicWord>(word: &W) -> Word {
    Word(word.load(Acquire))
}

/// One CAS from `seen` to `new`. On success into Exclusive, a Release fence
/// keeps the holder's frame writes after the lock in every observer's view
/// (the seqlock writer's fence), so a reader that sees a write also sees
/// the lock or a later version when it validates.
#[inline]
pub(crate) fn try_transition<W: AtomicWord>(word: &W, seen: Word, new: Word) -> Result<(), Word> {
    match word.compare_exchange(seen.0, new.0, AcqRel, Acquire) {
        Ok(_) => {
            if new.state() == EXCLUSIVE {
                W::fence(Release);
            }
            Ok(())
        }
        Err(now) => Err(Word(now)),
    }
}

/// Releases one shared latch (one RMW).
#[inline]
pub(crate) fn unlock_shared<W: AtomicWord>(word: &W) {
    let before = Word(word.fetch_sub(1, Release));
    assert!(before.shared_count() >= 1, "shared unlock of {before:?}");
}

/// Releases an exclusive latch with a plain store (no RMW: while the word is
/// Exclusive no other thread's CAS can succeed, because every transition
/// starts from a non-Exclusive state). Bumps the version; `state` is
/// Unlocked, Shared(1) (downgrade after a fault-in) or Evicted.
#[inline]
pub(crate) fn unlock_exclusive<W: AtomicWord>(word: &W, state: u8, dirty: bool) -> Word {
    let now = Word(word.load(Acquire));
    assert_eq!(now.state(), EXCLUSIVE, "exclusive unlock of {now:?}");
    let new = now.released(state, dirty);
    word.store(new.0, Release);
    new
}

/// Validation of an optimistic read that started at `start`: the reads made
/// since are ordered before the second load by an Acquire fence, and the
/// read is consistent iff the version is unchanged and no writer or evictor
/// holds the page now.
#[inline(always)]
pub(crate) fn validate<W: AtomicWord>(word: &W, start: Word) -> bool {
    W::fence(Acquire);
    let now = Word(word.load(std::sync::atomic::Ordering::Relaxed));
    now.version() == start.version() && now.is_readable()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the encoding: zero is Evicted/clean/v0, shared counts round-trip
    // through lock/unlock arithmetic, and release bumps only the version.
    #[test]
    fn encoding_round_trips() {
        let zero = Word(0);
        assert_eq!(
            (zero.state(), zero.version(), zero.is_dirty()),
            (EVICTED, 0, false)
        );
        let x = zero.lock_exclusive().unwrap();
        let unlocked = x.released(UNLOCKED, true);
        assert_eq!(
            (unlocked.state(), unlocked.version(), unlocked.is_dirty()),
            (UNLOCKED, 1, true)
        );
        let mut w = unlocked;
        for n in 1..=MAX_SHARED {
            w = w.lock_shared().unwrap();
            assert_eq!(w.shared_count(), n);
            assert_eq!(w.version(), 1);
        }
        assert!(w.lock_shared().is_none(), "shared count saturates");
        assert!(w.lock_exclusive().is_none());
        assert_eq!(
            Word(w.0 - u64::from(MAX_SHARED)),
            unlocked,
            "fetch_sub arithmetic"
        );
        assert_eq!(unlocked.mark().unwrap().unmark(), Some(unlocked));
        assert!(!unlocked.cleaned().unwrap().is_dirty());
        assert!(x.cleaned().is_none(), "no cleaning under a writer");
    }
}
