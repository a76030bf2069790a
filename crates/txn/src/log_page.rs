//! The layout of a CSN-log page: which transaction ids it holds and where
//! each one's fate word lies.
//!
//! | offset | size | field                                              |
//! |-------:|-----:|----------------------------------------------------|
//! |      0 |   24 | page header (`PageType::CsnLog`, no special area)  |
//! |     24 |    8 | `page_no`: the page holds xids `[page_no * 1020, (page_no + 1) * 1020)` |
//! |     32 | 8160 | 1020 fate words (`fate.rs`), one per xid, in order  |
//!
//! A fresh page's words are all 0: in progress (never committed).

use crate::fate::Fate;
use crate::ids::Xid;
use folio_page::{HEADER_SIZE, PAGE_SIZE, Page, PageType, header_page_type, init_page};

/// Transaction ids per CSN-log page.
pub const XIDS_PER_PAGE: u64 = 1020;
/// Offset of the page number.
const PAGE_NO_AT: usize = HEADER_SIZE;
/// Offset of the first fate word.
const FATES_AT: usize = HEADER_SIZE + 8;
const _: () = assert!(FATES_AT + XIDS_PER_PAGE as usize * 8 == PAGE_SIZE);

/// The log page number of `xid` and its slot on that page.
pub fn locate(xid: Xid) -> (u64, usize) {
    (xid.0 / XIDS_PER_PAGE, (xid.0 % XIDS_PER_PAGE) as usize)
}

/// Byte offset of slot `slot`'s fate word.
pub fn fate_offset(slot: usize) -> usize {
    debug_assert!((slot as u64) < XIDS_PER_PAGE);
    FATES_AT + slot * 8
}

/// Formats `page` as log page `page_no`, every xid in progress.
pub fn init_log_page(page: &mut Page, page_no: u64) {
    init_page(page, PageType::CsnLog, 0);
    page[PAGE_NO_AT..PAGE_NO_AT + 8].copy_from_slice(&page_no.to_le_bytes());
}

/// Checks that `page` is log page `page_no`.
pub fn check_log_page(page: &Page, page_no: u64) -> Result<(), String> {
    if header_page_type(page) != Some(PageType::CsnLog) {
        return Err(format!(
            "page type byte {} is not a CSN-log page",
            page[folio_page::PAGE_TYPE_OFFSET]
        ));
    }
    let stored = u64::from_le_bytes(page[PAGE_NO_AT..PAGE_NO_AT + 8].try_into().expect("8"));
    if stored != page_no {
        return Err(format!("holds log page {stored}, expected {page_no}"));
    }
    Ok(())
}

/// Decodes a fate word read from slot `slot`.
pub fn decode_word(word: u64, slot: usize) -> Result<Fate, String> {
    Fate::decode(word)
        .ok_or_else(|| format!("slot {slot} holds {word:#x}, which no fate encodes to"))
}

/// The fate in `slot` of a (checked) log page.
pub fn read_fate(page: &Page, slot: usize) -> Result<Fate, String> {
    let at = fate_offset(slot);
    decode_word(
        u64::from_le_bytes(page[at..at + 8].try_into().expect("8")),
        slot,
    )
}

/// Stores `fate` in `slot`: from in progress to any fate, or from sub-of
/// to aborted (`fate.rs`); storing the fate already there is allowed
/// (redo may repeat a change).
pub fn write_fate(page: &mut Page, slot: usize, fate: Fate) -> Result<(), String> {
    let old = read_fate(page, slot)?;
    let allowed = old == Fate::InProgress
        || old == fate
        || (matches!(old, Fate::SubOf(_)) && fate == Fate::Aborted);
    if !allowed {
        return Err(format!(
            "slot {slot} is {old:?} already, cannot become {fate:?}"
        ));
    }
    let at = fate_offset(slot);
    page[at..at + 8].copy_from_slice(&fate.encode().to_le_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::Csn;

    // Proves xids map to consecutive slots across page boundaries, a fresh
    // page reads every xid in progress, a fate is stored once (repeating it
    // is allowed, changing it is refused), and a page is checked for its
    // type and number.
    #[test]
    fn a_log_page_holds_fates_by_slot() {
        assert_eq!(locate(Xid(0)), (0, 0));
        assert_eq!(locate(Xid(1019)), (0, 1019));
        assert_eq!(locate(Xid(1020)), (1, 0));
        let mut page = [0u8; PAGE_SIZE];
        assert!(check_log_page(&page, 0).is_err());
        init_log_page(&mut page, 7);
        check_log_page(&page, 7).unwrap();
        assert!(
            check_log_page(&page, 8)
                .unwrap_err()
                .contains("holds log page 7")
        );
        for slot in [0, 500, 1019] {
            assert_eq!(read_fate(&page, slot), Ok(Fate::InProgress));
        }
        write_fate(&mut page, 3, Fate::Committed(Csn(9))).unwrap();
        write_fate(&mut page, 3, Fate::Committed(Csn(9))).unwrap();
        assert!(write_fate(&mut page, 3, Fate::Aborted).is_err());
        write_fate(&mut page, 1019, Fate::Aborted).unwrap();
        write_fate(&mut page, 5, Fate::SubOf(Xid(3))).unwrap();
        assert!(write_fate(&mut page, 5, Fate::Committed(Csn(1))).is_err());
        write_fate(&mut page, 5, Fate::Aborted).unwrap();
        assert_eq!(read_fate(&page, 3), Ok(Fate::Committed(Csn(9))));
        assert_eq!(read_fate(&page, 1019), Ok(Fate::Aborted));
        page[fate_offset(4)..fate_offset(4) + 8].copy_from_slice(&((2u64 << 62) | 9).to_le_bytes());
        assert!(read_fate(&page, 4).unwrap_err().contains("slot 4"));
    }
}
