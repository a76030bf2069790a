//! A transaction's fate as one 64-bit word: what the CSN log stores per
//! transaction id, and what a running transaction's entry holds in memory.
//!
//! | bits  | meaning                                  |
//! |------:|------------------------------------------|
//! | 0-61  | the commit sequence number (committed)   |
//! | 62-63 | 0 in progress, 1 committed, 2 aborted, 3 subtransaction of the xid in bits 0-61 |
//!
//! The word changes at most twice: in progress → committed(csn), aborted,
//! or sub-of(parent); sub-of(parent) → aborted (`ROLLBACK TO`). A
//! committed word holds its CSN in the same store that commits it, so a
//! reader that sees "committed" sees the CSN. A subtransaction's xid ends
//! with its parent: its own word says only whose it is, and the parent's
//! says what became of both (one commit record commits them together).

use crate::ids::{Csn, Xid};
use crate::sync::AtomicU64;
use std::sync::atomic::Ordering;

const STATE_SHIFT: u32 = 62;
const CSN_MASK: u64 = (1 << STATE_SHIFT) - 1;
const IN_PROGRESS: u64 = 0;
const COMMITTED: u64 = 1;
const ABORTED: u64 = 2;
const SUB_OF: u64 = 3;

/// What became of a transaction, as seen now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    InProgress,
    Committed(Csn),
    Aborted,
    /// A subtransaction (savepoint) of the top-level transaction `Xid`:
    /// its fate is its parent's. Only the CSN log stores this;
    /// `TxnManager::fate` resolves it.
    SubOf(Xid),
}

impl Fate {
    /// The word for this fate.
    pub fn encode(self) -> u64 {
        match self {
            Fate::InProgress => IN_PROGRESS << STATE_SHIFT,
            Fate::Committed(csn) => {
                assert!(csn <= Csn::MAX, "{csn} exceeds 62 bits");
                (COMMITTED << STATE_SHIFT) | csn.0
            }
            Fate::Aborted => ABORTED << STATE_SHIFT,
            Fate::SubOf(parent) => {
                assert!(parent.0 <= CSN_MASK, "{parent} exceeds 62 bits");
                (SUB_OF << STATE_SHIFT) | parent.0
            }
        }
    }

    /// The fate a word says; `None` for a word no fate encodes to (a
    /// corrupt CSN-log entry: the caller names the page).
    pub fn decode(word: u64) -> Option<Fate> {
        let csn = word & CSN_MASK;
        match word >> STATE_SHIFT {
            IN_PROGRESS if csn == 0 => Some(Fate::InProgress),
            COMMITTED => Some(Fate::Committed(Csn(csn))),
            ABORTED if csn == 0 => Some(Fate::Aborted),
            SUB_OF if csn != 0 => Some(Fate::SubOf(Xid(csn))),
            _ => None,
        }
    }
}

/// A transaction's fate, shared between the transaction and the threads
/// that meet its row versions.
#[derive(Debug)]
pub struct XidFate(AtomicU64);

impl Default for XidFate {
    fn default() -> Self {
        XidFate::new()
    }
}

impl XidFate {
    /// A transaction in progress.
    pub fn new() -> XidFate {
        XidFate(AtomicU64::new(Fate::InProgress.encode()))
    }

    /// The fate now (Acquire: a reader that sees "committed" also sees
    /// everything the committer published before).
    pub fn load(&self) -> Fate {
        Fate::decode(self.0.load(Ordering::Acquire)).expect("only encoded fates are stored")
    }

    /// Records the commit with its CSN (Release). Called once, by the
    /// commit clock.
    pub(crate) fn set_committed(&self, csn: Csn) {
        self.0
            .store(Fate::Committed(csn).encode(), Ordering::Release);
    }

    /// Records an abort.
    pub fn set_aborted(&self) {
        self.0.store(Fate::Aborted.encode(), Ordering::Release);
    }
}

#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use super::*;

    // Proves every fate round-trips through its word, the CSN keeps all 62
    // bits, and words no fate encodes to are rejected (corrupt input).
    #[test]
    fn fates_round_trip_and_bad_words_are_rejected() {
        for fate in [
            Fate::InProgress,
            Fate::Aborted,
            Fate::Committed(Csn(1)),
            Fate::Committed(Csn::MAX),
        ] {
            assert_eq!(Fate::decode(fate.encode()), Some(fate));
        }
        assert_eq!(
            Fate::decode(Fate::SubOf(crate::ids::Xid(7)).encode()),
            Some(Fate::SubOf(crate::ids::Xid(7)))
        );
        assert_eq!(Fate::decode(3 << 62), None, "sub-of no parent");
        assert_eq!(Fate::decode(5), None, "in progress with a csn");
        assert_eq!(Fate::decode((2 << 62) | 9), None, "aborted with a csn");
        let fate = XidFate::new();
        assert_eq!(fate.load(), Fate::InProgress);
        fate.set_aborted();
        assert_eq!(fate.load(), Fate::Aborted);
    }
}
