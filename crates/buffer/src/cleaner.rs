//! Cleaning ahead of the clock (README "Cleaning ahead of the clock"):
//! another thread writes the dirty pages that the next eviction rounds
//! will reach, so the faulting thread finds them clean and evicts them
//! without a copy or a write.

use crate::counters::Counter;
use crate::eviction::{AfterWrite, Latched};
use crate::state::{self, MARKED};
use crate::{BufferError, BufferPool};
use std::sync::atomic::Ordering::Relaxed;

/// The cleaner looks this fraction of a clock turn (resident-set slots)
/// ahead of the hand. A page cleaned far ahead has long to be dirtied
/// again before the hand arrives (a wasted write); too short a reach and
/// the hand overtakes the cleaner.
const CLEAN_REACH_DIVISOR: u64 = 4;

/// Where a cleaner's scan stopped (one per cleaning thread).
#[derive(Debug, Default, Clone, Copy)]
pub struct CleanCursor {
    next: u64,
}

impl BufferPool {
    /// Whether the pool has started evicting: a fault found every frame
    /// taken. (Not "every frame is taken now": a round frees a batch or
    /// more, which faults then fill again.)
    pub fn is_evicting(&self) -> bool {
        self.evicting.load(Relaxed)
    }

    /// Writes up to `max_pages` of the dirty pages the clock hand is
    /// about to evict (Marked and dirty, within a reach ahead of the hand),
    /// leaving them Marked and clean. Returns the pages written: 0 when the
    /// pool is not evicting (no eviction is coming) or nothing ahead of the
    /// hand needs writing. A write error releases every latch with the
    /// pages still dirty and is returned.
    pub fn clean_ahead(
        &self,
        cursor: &mut CleanCursor,
        max_pages: u64,
    ) -> Result<u64, BufferError> {
        if !self.is_evicting() {
            return Ok(0);
        }
        self.check_writable()?;
        let hand = self.clock_hand.load(Relaxed);
        let reach = hand + self.resident.capacity() / CLEAN_REACH_DIVISOR;
        let mut written = 0u64;
        let mut one: Vec<Latched> = Vec::with_capacity(1);
        let mut index = cursor.next.max(hand);
        while index < reach && written < max_pages {
            if let Some(page) = self.resident.get(index) {
                let word = self.state_word(page);
                let seen = state::load(word);
                if seen.state() == MARKED && seen.is_dirty() {
                    let shared = seen.lock_shared().expect("marked");
                    self.count(Counter::StateRmw, 1);
                    if state::try_transition(word, seen, shared).is_ok() {
                        // One page at a time: its latch is held for one
                        // write, not a batch's, so a thread that needs the
                        // page exclusively waits that long at most.
                        one.push(self.latched_copy(page));
                        self.write_batch(&mut one, AfterWrite::KeepMarked)?;
                        self.count(Counter::Cleaned, 1);
                        written += 1;
                    }
                }
            }
            index += 1;
        }
        cursor.next = index;
        Ok(written)
    }
}
