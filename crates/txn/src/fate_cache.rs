//! The final fates (committed or aborted) a thread resolved lately, kept
//! per thread so that looking one up again costs no CSN-log read (README
//! "The CSN log", *Fates kept per thread*). A final fate never changes,
//! so an entry is never stale; what it costs is a miss when another xid
//! took its place.
//!
//! Direct-mapped by the xid's low bits: the xids a thread meets again
//! are mostly recent and close together (the members of a HOT chain that
//! every transaction walks, one per earlier update of the row), so
//! neighbours take neighbouring entries. Each entry is tagged with the
//! manager's id, which is never reused, so an entry can only answer the
//! live manager that resolved it.

use crate::fate::Fate;
use crate::ids::Xid;
use std::cell::Cell;

/// Entries per thread (24 bytes each).
const ENTRIES: usize = 512;

thread_local! {
    /// (manager id, xid, fate word) per entry; manager id 0 is no entry.
    static FINAL_FATES: [Cell<(u64, u64, u64)>; ENTRIES] =
        const { [const { Cell::new((0, 0, 0)) }; ENTRIES] };
}

fn slot(xid: Xid) -> usize {
    (xid.0 as usize) % ENTRIES
}

/// The final fate of `xid` kept for manager `manager`, if this thread
/// kept one.
pub(crate) fn get(manager: u64, xid: Xid) -> Option<Fate> {
    FINAL_FATES
        .try_with(|entries| {
            let (id, x, word) = entries[slot(xid)].get();
            if id == manager && x == xid.0 {
                Fate::decode(word)
            } else {
                None
            }
        })
        .ok()
        .flatten()
}

/// Keeps `fate` of `xid` for manager `manager` (only a final fate:
/// committed or aborted).
pub(crate) fn put(manager: u64, xid: Xid, fate: Fate) {
    debug_assert!(matches!(fate, Fate::Committed(_) | Fate::Aborted));
    let _ = FINAL_FATES.try_with(|entries| entries[slot(xid)].set((manager, xid.0, fate.encode())));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Csn;

    // Proves an entry answers only its own manager and xid, and a
    // colliding xid replaces it.
    #[test]
    fn entries_answer_their_manager_and_xid_only() {
        put(7, Xid(100), Fate::Committed(Csn(5)));
        assert_eq!(get(7, Xid(100)), Some(Fate::Committed(Csn(5))));
        assert_eq!(get(8, Xid(100)), None);
        assert_eq!(get(7, Xid(101)), None);
        put(7, Xid(100 + ENTRIES as u64), Fate::Aborted);
        assert_eq!(get(7, Xid(100)), None);
        assert_eq!(get(7, Xid(100 + ENTRIES as u64)), Some(Fate::Aborted));
    }
}
