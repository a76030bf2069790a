//! The prune hint: when pruning a heap page can free something
//! (PostgreSQL's `pd_prune_xid`; folio-heap README "Prune hint").
//!
//! It lives in the heap page's special area, the last 8 bytes of the page:
//!
//! | offset | size | field | meaning |
//! |---:|---:|---|---|
//! | `PAGE_SIZE - 8` | 8 | `prune_csn` (u64, little-endian) | 0: no version on the page may become dead by its deleter; else no version is dead by its deleter while the horizon is below this CSN |
//!
//! Invariant: every version on the page with a deleter that is not
//! aborted and not yet dead to all has a `prune_csn` that is not 0 and at
//! most the CSN its deleter commits with. So while `prune_csn` is 0 or above
//! the horizon no version is dead by its deleter, and pruning on access
//! skips the page. It is only a hint: nothing but that skip reads it, and
//! a value that breaks the invariant can only skip a prune (vacuum, which
//! ignores the hint, frees those versions) or cause one that finds
//! nothing. An inserter that aborted also leaves a dead version; the hint
//! does not cover it (as PostgreSQL's does not): vacuum frees it, or a
//! prune made for another reason.
//!
//! Only `records::apply` writes it, from the logged operations: a set
//! xmax that deletes sets a hint of 0 to [`DELETED`] ([`deleted`]), a
//! prune sets the value its record carries. So redo reproduces it byte for byte, checksums and
//! full-page images cover it as any other byte, and no page write is left
//! unlogged.

use folio_page::{PAGE_SIZE, Page, header_special};
use folio_txn::Csn;

/// Bytes of a heap page's special area: the hint.
pub const SPECIAL_SIZE: usize = 8;

/// What a deleter sets: prune at the next chance (the first prune then
/// computes how long the versions it leaves stay not dead).
pub const DELETED: Csn = Csn(1);

const OFFSET: usize = PAGE_SIZE - SPECIAL_SIZE;

/// The page's hint; `None` if the page has no special area of this size
/// (then every prune on access plans).
pub fn read(page: &Page) -> Option<Csn> {
    (header_special(page) == OFFSET).then(|| {
        Csn(u64::from_le_bytes(
            page[OFFSET..].try_into().expect("8 bytes"),
        ))
    })
}

/// A version on `page` was deleted (a set xmax that is not a lock): a hint
/// of 0 becomes [`DELETED`]; a set hint stays, as it already holds for the
/// new deleter. Why: every hint a prune sets is a CSN already handed out
/// when it was computed, or the latest complete one plus 1
/// (`visibility::prune_verdict`), and a deleter running now takes its CSN
/// later, so above both. Across a crash too: a prune's record follows the
/// commit records of the CSNs it saw, so recovery restores the clock at
/// or above them.
pub fn deleted(page: &mut Page) {
    if read(page) == Some(Csn::ZERO) {
        write(page, DELETED);
    }
}

/// Sets the page's hint (nothing on a page without the field).
pub fn write(page: &mut Page, csn: Csn) {
    if header_special(page) == OFFSET {
        page[OFFSET..].copy_from_slice(&csn.0.to_le_bytes());
    }
}

/// Whether a prune on access may free something on `page` with the
/// transaction manager's `horizon`: the hint is absent, or set at or
/// below the horizon.
pub fn may_prune(page: &Page, horizon: Csn) -> bool {
    read(page).is_none_or(|csn| csn != Csn::ZERO && csn <= horizon)
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_page::{PageType, init_page};

    // Proves the hint sits in the special area's 8 bytes, reads 0 on a
    // new page, that only a set hint at or below the horizon lets a prune
    // run (a page without the area always lets it), and that a delete
    // sets only a hint of 0.
    #[test]
    fn the_hint_lets_a_prune_run_only_at_or_above_it() {
        let mut page = [0u8; PAGE_SIZE];
        init_page(&mut page, PageType::Heap, SPECIAL_SIZE);
        assert_eq!(read(&page), Some(Csn::ZERO));
        assert!(!may_prune(&page, Csn(100)), "nothing deleted");
        write(&mut page, Csn(7));
        assert_eq!(&page[OFFSET..], &7u64.to_le_bytes());
        assert!(!may_prune(&page, Csn(6)));
        assert!(may_prune(&page, Csn(7)));
        deleted(&mut page);
        assert_eq!(read(&page), Some(Csn(7)), "a set hint stays");
        write(&mut page, Csn::ZERO);
        deleted(&mut page);
        assert_eq!(read(&page), Some(DELETED));
        init_page(&mut page, PageType::Heap, 0);
        write(&mut page, Csn(7));
        assert_eq!(read(&page), None);
        assert!(page.iter().skip(folio_page::HEADER_SIZE).all(|&b| b == 0));
        assert!(may_prune(&page, Csn::ZERO));
    }
}
