//! The meta page (page 0) and the persistent free-page list.
//!
//! Page 0 is an ordinary page (standard header, checksum) of type
//! [`PageType::Meta`] whose special area (the last [`META_SIZE`] bytes)
//! holds the database's identity and allocation state. All fields are
//! little-endian; offsets are relative to the start of the special area
//! (`PAGE_SIZE - META_SIZE` = 8064).
//!
//! | offset | size | field          | meaning                                            |
//! |-------:|-----:|----------------|----------------------------------------------------|
//! |      0 |    8 | magic          | `b"FOLIODB\0"`                                     |
//! |      8 |    4 | format_version | [`FORMAT_VERSION`] (= 2)                           |
//! |     12 |    4 | page_size      | bytes per page (8192)                              |
//! |     16 |    4 | flags          | bit 0: data checksums on; other bits 0             |
//! |     20 |    4 | reserved       | 0                                                  |
//! |     24 |    8 | page_count     | high-water mark: pages `0..page_count` exist       |
//! |     32 |    8 | free_head      | first page of the free list; 0 = empty             |
//! |     40 |    8 | free_count     | pages on the free list                             |
//! |     48 |   64 | roots          | 8 root slots for upper layers (page id, 0 = none)  |
//! |    112 |   16 | reserved       | 0                                                  |
//!
//! A free page is a page of type [`PageType::Free`] whose special area
//! ([`FREE_SIZE`] bytes) holds:
//!
//! | offset | size | field | meaning                                  |
//! |-------:|-----:|-------|------------------------------------------|
//! |      0 |    8 | next  | next page on the free list; 0 = end      |
//! |      8 |    8 | magic | `b"FOLIOFRE"`                            |
//!
//! Page 0 is never a root, a free page or a list successor, which is why 0
//! can mean "none". Latch order: `allocate` latches the meta page, then the
//! popped (or new) page; `free` holds the freed page and then latches the
//! meta page. Both orders are safe because a page on the free list (or past
//! the high-water mark) is unreachable: no one else holds or waits for its
//! latch while holding the meta page's.
//!
//! With a [`crate::MetaLogger`] installed, every change here is WAL-logged
//! before its latches are released, and undone if logging fails
//! (`meta_log.rs`).

use crate::fault::Fill;
use crate::meta_log::{self, MetaLogger, MetaPageChange};
use crate::{BufferError, BufferPool, ExclusiveGuard};
use folio_io::File;
use folio_page::{PAGE_SIZE, Page, PageId, PageType};

/// Bytes of the meta page's special area.
pub const META_SIZE: usize = 128;
/// Bytes of a free page's special area.
pub const FREE_SIZE: usize = 16;
/// The on-disk format this code writes and reads. 2: out-of-line values
/// are indexed by their table's oid and their id (folio-catalog
/// `toast.rs`); a database of format 1 is refused with a clear error.
pub const FORMAT_VERSION: u32 = 2;
/// Root slots in the meta page.
pub const ROOT_SLOTS: usize = 8;

pub(crate) const META_MAGIC: [u8; 8] = *b"FOLIODB\0";
pub(crate) const FREE_MAGIC: [u8; 8] = *b"FOLIOFRE";
const FLAG_CHECKSUMS: u32 = 1;

const META: usize = PAGE_SIZE - META_SIZE;
pub(crate) const MAGIC_AT: usize = META;
const VERSION_AT: usize = META + 8;
const PAGE_SIZE_AT: usize = META + 12;
const FLAGS_AT: usize = META + 16;
pub(crate) const PAGE_COUNT_AT: usize = META + 24;
const FREE_HEAD_AT: usize = META + 32;
const FREE_COUNT_AT: usize = META + 40;
pub(crate) const ROOTS_AT: usize = META + 48;
pub(crate) const FREE_NEXT_AT: usize = PAGE_SIZE - FREE_SIZE;
pub(crate) const FREE_MAGIC_AT: usize = PAGE_SIZE - FREE_SIZE + 8;

const _: () = assert!(ROOTS_AT + ROOT_SLOTS * 8 + 16 == PAGE_SIZE);
const _: () = assert!(
    META_SIZE.is_multiple_of(folio_page::SPECIAL_ALIGN)
        && FREE_SIZE.is_multiple_of(folio_page::SPECIAL_ALIGN)
);
const _: () = assert!(META >= folio_page::HEADER_SIZE);

const META_PAGE: PageId = PageId(0);

fn get_u32(page: &Page, at: usize) -> u32 {
    u32::from_le_bytes(page[at..at + 4].try_into().expect("4 bytes"))
}

fn get_u64(page: &Page, at: usize) -> u64 {
    u64::from_le_bytes(page[at..at + 8].try_into().expect("8 bytes"))
}

fn put_u64(page: &mut Page, at: usize, value: u64) {
    page[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

fn bad_meta(reason: impl Into<String>) -> BufferError {
    BufferError::BadMeta {
        reason: reason.into(),
    }
}

/// Reads and checks page 0 of `file` before a pool exists; returns the
/// checksum flag. Every failure is `BadMeta` or `Checksum`, never a panic.
pub(crate) fn validate_file(file: &dyn File) -> Result<bool, BufferError> {
    let io_error = |source| BufferError::Io {
        page_id: META_PAGE,
        source,
    };
    let len_bytes = check_file_len(file)?;
    let mut page = Box::new([0u8; PAGE_SIZE]);
    file.read_at(&mut page[..], 0).map_err(io_error)?;
    let checksums = validate_meta_page(&page, None)?;
    check_page_count(file, len_bytes, get_u64(&page, PAGE_COUNT_AT))?;
    Ok(checksums)
}

/// Before recovery: checks the file's length against page 0 as it is on
/// disk, if page 0 is intact (a torn page 0 is restored by recovery and
/// checked afterwards by [`verify_resident`]). Page 0's count was durable
/// when it was written, and the file had grown to hold it before (see
/// `extent.rs`), so a file shorter than that count is damage.
pub(crate) fn check_file_before_recovery(
    file: &dyn File,
    checksums: bool,
) -> Result<(), BufferError> {
    let len_bytes = check_file_len(file)?;
    let mut page = Box::new([0u8; PAGE_SIZE]);
    file.read_at(&mut page[..], 0)
        .map_err(|source| BufferError::Io {
            page_id: META_PAGE,
            source,
        })?;
    // With checksums on, `validate_meta_page` verifies page 0's checksum.
    if validate_meta_page(&page, None).is_ok_and(|flag| flag == checksums) {
        check_page_count(file, len_bytes, get_u64(&page, PAGE_COUNT_AT))?;
    }
    Ok(())
}

/// A file of `len_bytes` must hold `page_count` pages.
fn check_page_count(file: &dyn File, len_bytes: u64, page_count: u64) -> Result<(), BufferError> {
    let expected_bytes = page_count.saturating_mul(PAGE_SIZE as u64);
    if len_bytes < expected_bytes {
        return Err(BufferError::FileTooShort {
            file: file.location(),
            len_bytes,
            expected_bytes,
            page_count,
        });
    }
    Ok(())
}

/// Rejects a file shorter than one page; returns its length.
pub(crate) fn check_file_len(file: &dyn File) -> Result<u64, BufferError> {
    let len_bytes = file.len().map_err(|source| BufferError::Io {
        page_id: META_PAGE,
        source,
    })?;
    if len_bytes < PAGE_SIZE as u64 {
        return Err(bad_meta(format!(
            "file is {len_bytes} bytes, shorter than one page"
        )));
    }
    Ok(len_bytes)
}

/// What page 0 says, after its structural checks (the byte table above).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetaFields {
    /// The checksum flag.
    pub checksums: bool,
    /// The high-water mark: pages `0..page_count` are allocated.
    pub page_count: u64,
}

/// Decodes a meta page image after checking its structure — page type,
/// magic, format version, page size, known flags, a page count — but not
/// its checksum (whose setting the page itself holds). Every defect is
/// `BadMeta` with the reason, never a panic. The one reader of the layout
/// outside the pool: the offline tools use it.
pub fn decode_meta_page(page: &Page) -> Result<MetaFields, BufferError> {
    if folio_page::header_page_type(page) != Some(PageType::Meta) {
        return Err(bad_meta("page 0 is not a meta page"));
    }
    if page[MAGIC_AT..MAGIC_AT + 8] != META_MAGIC {
        return Err(bad_meta("bad magic in page 0"));
    }
    let version = get_u32(page, VERSION_AT);
    if version != FORMAT_VERSION {
        return Err(bad_meta(format!(
            "format version {version}, this build reads {FORMAT_VERSION}"
        )));
    }
    let page_size = get_u32(page, PAGE_SIZE_AT);
    if page_size as usize != PAGE_SIZE {
        return Err(bad_meta(format!(
            "page size {page_size}, this build uses {PAGE_SIZE}"
        )));
    }
    let flags = get_u32(page, FLAGS_AT);
    if flags & !FLAG_CHECKSUMS != 0 {
        return Err(bad_meta(format!("unknown flags {flags:#x}")));
    }
    let page_count = get_u64(page, PAGE_COUNT_AT);
    if page_count == 0 {
        return Err(bad_meta("page count 0"));
    }
    Ok(MetaFields {
        checksums: flags & FLAG_CHECKSUMS != 0,
        page_count,
    })
}

/// Sets the checksum flag of a meta page image and reseals its checksum
/// (the offline `checksums enable|disable` rewrite page 0 with it).
pub fn set_meta_checksums_flag(page: &mut Page, on: bool) {
    let flags = if on { FLAG_CHECKSUMS } else { 0 };
    page[FLAGS_AT..FLAGS_AT + 4].copy_from_slice(&flags.to_le_bytes());
    folio_page::set_checksum(page, META_PAGE);
}

/// Checks a meta page image; returns its checksum flag. With
/// `expect_checksums`, the flag must match it (the page was read through
/// the pool, which verified the checksum already).
pub(crate) fn validate_meta_page(
    page: &Page,
    expect_checksums: Option<bool>,
) -> Result<bool, BufferError> {
    let MetaFields { checksums, .. } = decode_meta_page(page)?;
    match expect_checksums {
        Some(expected) if expected != checksums => {
            return Err(bad_meta(format!(
                "checksum flag {checksums} in page 0, expected {expected}"
            )));
        }
        Some(_) => {}
        None if checksums => folio_page::verify_checksum(page, META_PAGE)?,
        None => {}
    }
    Ok(checksums)
}

/// Checks the meta page as the pool holds it (after recovery), and that
/// the data file holds every page it counts.
pub(crate) fn verify_resident(pool: &BufferPool) -> Result<(), BufferError> {
    let meta = pool.shared(META_PAGE)?;
    validate_meta_page(&meta, Some(pool.checksums()))?;
    check_page_count(
        pool.file.as_ref(),
        pool.reserved_pages() * PAGE_SIZE as u64,
        get_u64(&meta, PAGE_COUNT_AT),
    )
}

/// Writes a fresh meta page into the new pool's page 0.
pub(crate) fn initialise(pool: &BufferPool) -> Result<(), BufferError> {
    let mut meta = pool.exclusive_with(META_PAGE, Fill::Zero)?;
    folio_page::init_page(&mut meta, PageType::Meta, META_SIZE);
    meta[MAGIC_AT..MAGIC_AT + 8].copy_from_slice(&META_MAGIC);
    meta[VERSION_AT..VERSION_AT + 4].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    meta[PAGE_SIZE_AT..PAGE_SIZE_AT + 4].copy_from_slice(&(PAGE_SIZE as u32).to_le_bytes());
    let flags = if pool.checksums() { FLAG_CHECKSUMS } else { 0 };
    meta[FLAGS_AT..FLAGS_AT + 4].copy_from_slice(&flags.to_le_bytes());
    put_u64(&mut meta, PAGE_COUNT_AT, 1);
    Ok(())
}

/// A page id read from the meta page or a free page, checked against the
/// high-water mark so a corrupt pointer becomes an error, not a wild latch.
fn checked_link(
    pool: &BufferPool,
    value: u64,
    page_count: u64,
    holder: PageId,
) -> Result<u64, BufferError> {
    if value != 0 && (value >= page_count || value >= pool.max_pages) {
        return Err(BufferError::CorruptFreeList {
            page_id: holder,
            reason: format!("link to page {value} beyond the page count {page_count}"),
        });
    }
    Ok(value)
}

pub(crate) fn allocate(pool: &BufferPool) -> Result<ExclusiveGuard<'_>, BufferError> {
    let mut meta = pool.exclusive(META_PAGE)?;
    let logger = pool.meta_logger();
    let before = logger.as_ref().map(|_| Box::new(*meta));
    let page_count = get_u64(&meta, PAGE_COUNT_AT);
    let head = checked_link(pool, get_u64(&meta, FREE_HEAD_AT), page_count, META_PAGE)?;
    let (mut page, rtype) = if head != 0 {
        let page = pool.exclusive(PageId(head))?;
        if page[FREE_MAGIC_AT..FREE_MAGIC_AT + 8] != FREE_MAGIC {
            return Err(BufferError::CorruptFreeList {
                page_id: PageId(head),
                reason: "free-list page lacks the free-page magic".into(),
            });
        }
        let next = checked_link(pool, get_u64(&page, FREE_NEXT_AT), page_count, PageId(head))?;
        put_u64(&mut meta, FREE_HEAD_AT, next);
        let free_count = get_u64(&meta, FREE_COUNT_AT);
        put_u64(&mut meta, FREE_COUNT_AT, free_count.saturating_sub(1));
        (page, meta_log::ALLOC_POP)
    } else {
        if page_count >= pool.max_pages {
            return Err(BufferError::OutOfRange {
                page_id: PageId(page_count),
                max_pages: pool.max_pages,
            });
        }
        // The file grows before the allocation is logged (`extent.rs`).
        pool.reserve_pages(page_count + 1)?;
        let page = pool.exclusive_with(PageId(page_count), Fill::Zero)?;
        put_u64(&mut meta, PAGE_COUNT_AT, page_count + 1);
        (page, meta_log::ALLOC_EXTEND)
    };
    if let (Some(logger), Some(before)) = (logger, before) {
        log_meta_change(logger.as_ref(), rtype, &mut meta, &before, None)?;
    }
    page.fill(0);
    Ok(page)
}

/// The page a `free` record also changes: the freed page and its image
/// before the change (restored if logging fails).
struct Freed<'g, 'p> {
    page: &'g mut ExclusiveGuard<'p>,
    before: &'g Page,
}

/// Logs one allocation-state change (the meta page, plus the freed page for
/// `free`) and stamps the record's end LSN on the changed pages. On failure
/// the pages get their images from before the change back and the error is
/// returned, so an unlogged change is never visible.
fn log_meta_change(
    logger: &dyn MetaLogger,
    rtype: u8,
    meta: &mut ExclusiveGuard<'_>,
    meta_before: &Page,
    freed: Option<Freed<'_, '_>>,
) -> Result<(), BufferError> {
    let snapshot = meta_log::meta_snapshot(meta);
    let mut changes = vec![MetaPageChange {
        page_id: META_PAGE,
        page: meta,
        old_lsn: folio_page::header_lsn(meta_before),
        data: &snapshot,
    }];
    let next_bytes;
    if let Some(freed) = &freed {
        next_bytes = get_u64(freed.page, FREE_NEXT_AT).to_le_bytes();
        changes.push(MetaPageChange {
            page_id: freed.page.page_id(),
            page: freed.page,
            old_lsn: folio_page::header_lsn(freed.before),
            data: &next_bytes,
        });
    }
    match logger.log(rtype, &changes) {
        Ok(lsn) => {
            folio_page::set_header_lsn(meta, lsn);
            if let Some(freed) = freed {
                folio_page::set_header_lsn(freed.page, lsn);
            }
            Ok(())
        }
        Err(source) => {
            meta.copy_from_slice(meta_before);
            if let Some(freed) = freed {
                freed.page.copy_from_slice(freed.before);
            }
            Err(BufferError::MetaLog { source })
        }
    }
}

pub(crate) fn free(pool: &BufferPool, mut page: ExclusiveGuard<'_>) -> Result<(), BufferError> {
    let page_id = page.page_id();
    if page_id == META_PAGE {
        return Err(BufferError::InvalidArgument {
            reason: "the meta page cannot be freed".into(),
        });
    }
    if page[FREE_MAGIC_AT..FREE_MAGIC_AT + 8] == FREE_MAGIC {
        return Err(BufferError::InvalidArgument {
            reason: format!("{page_id} is already free"),
        });
    }
    let mut meta = pool.exclusive(META_PAGE)?;
    let page_count = get_u64(&meta, PAGE_COUNT_AT);
    if page_id.0 >= page_count {
        return Err(BufferError::InvalidArgument {
            reason: format!("{page_id} was never allocated (page count {page_count})"),
        });
    }
    let logger = pool.meta_logger();
    let before = logger.as_ref().map(|_| (Box::new(*meta), Box::new(*page)));
    let head = get_u64(&meta, FREE_HEAD_AT);
    meta_log::init_free_page(&mut page, head);
    put_u64(&mut meta, FREE_HEAD_AT, page_id.0);
    let free_count = get_u64(&meta, FREE_COUNT_AT);
    put_u64(&mut meta, FREE_COUNT_AT, free_count + 1);
    if let (Some(logger), Some((meta_before, page_before))) = (logger, before) {
        let freed = Freed {
            page: &mut page,
            before: &page_before,
        };
        log_meta_change(
            logger.as_ref(),
            meta_log::ALLOC_FREE,
            &mut meta,
            &meta_before,
            Some(freed),
        )?;
    }
    Ok(())
}

fn check_slot(slot: usize) -> Result<usize, BufferError> {
    if slot < ROOT_SLOTS {
        Ok(ROOTS_AT + slot * 8)
    } else {
        Err(BufferError::InvalidArgument {
            reason: format!("root slot {slot} (there are {ROOT_SLOTS})"),
        })
    }
}

/// Reads a u64 of the meta page with an optimistic read (no RMW).
fn read_meta_u64(pool: &BufferPool, at: usize) -> Result<u64, BufferError> {
    loop {
        let guard = pool.optimistic(META_PAGE)?;
        let value = guard.read_u64(at);
        if guard.validate().is_ok() {
            return Ok(value);
        }
    }
}

pub(crate) fn root(pool: &BufferPool, slot: usize) -> Result<Option<PageId>, BufferError> {
    let at = check_slot(slot)?;
    Ok(Some(read_meta_u64(pool, at)?)
        .filter(|&id| id != 0)
        .map(PageId))
}

pub(crate) fn set_root(
    pool: &BufferPool,
    slot: usize,
    page_id: Option<PageId>,
) -> Result<(), BufferError> {
    let at = check_slot(slot)?;
    if page_id == Some(META_PAGE) {
        return Err(BufferError::InvalidArgument {
            reason: "page 0 cannot be a root".into(),
        });
    }
    let mut meta = pool.exclusive(META_PAGE)?;
    let logger = pool.meta_logger();
    let before = logger.as_ref().map(|_| Box::new(*meta));
    put_u64(&mut meta, at, page_id.map_or(0, |id| id.0));
    if let (Some(logger), Some(before)) = (logger, before) {
        log_meta_change(
            logger.as_ref(),
            meta_log::ALLOC_SET_ROOT,
            &mut meta,
            &before,
            None,
        )?;
    }
    Ok(())
}

pub(crate) fn page_count(pool: &BufferPool) -> Result<u64, BufferError> {
    read_meta_u64(pool, PAGE_COUNT_AT)
}

/// Pages on the free list (from the meta page).
pub(crate) fn free_count(pool: &BufferPool) -> Result<u64, BufferError> {
    read_meta_u64(pool, FREE_COUNT_AT)
}
