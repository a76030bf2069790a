//! Slotted items. (folio-page helper: implement.)

/// A slotted-page operation could not be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlotError {
    #[error("not enough free space: need {needed} bytes, have {available}")]
    NoSpace { needed: usize, available: usize },
    #[error("slot {slot} out of range (page has {count} slots)")]
    OutOfRange { slot: usize, count: usize },
    #[error("item of {len} bytes exceeds the largest item a page holds ({max})")]
    TooLarge { len: usize, max: usize },
}

/// Read access to a slotted page.
#[derive(Debug, Clone, Copy)]
pub struct SlottedPage<'a> {
    pub page: &'a crate::Page,
}

/// Write access to a slotted page.
#[derive(Debug)]
pub struct SlottedPageMut<'a> {
    pub page: &'a mut crate::Page,
}
