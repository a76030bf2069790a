//! The glue between the buffer pool and the WAL, which do not know each
//! other (DESIGN §2: the crate that assembles the engine holds it): the WAL
//! rule (`WalFlusher`), logging of the pool's allocation changes
//! (`MetaLogger`) as `PAGE_ALLOC` records, and their redo (`PageRedo`; the
//! pure redo functions live beside the free list in folio-buffer).

use folio_buffer::{MetaLogger, MetaPageChange, WalFlusher};
use folio_page::{Lsn, Page, PageId};
use folio_wal::{PageRedo, Record, RedoError, RmgrId, Wal, WalError};
use std::sync::Arc;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The WAL rule for the buffer pool: flush the WAL up to a page's LSN
/// before the page is written.
#[derive(Debug, Clone)]
pub struct WalPageFlusher(pub Arc<Wal>);

impl WalFlusher for WalPageFlusher {
    fn flush_to(&self, lsn: Lsn) -> Result<(), BoxError> {
        self.0.flush_to(lsn).map_err(|e| Box::new(e) as BoxError)
    }
}

/// Logs allocation changes of the buffer pool as `PAGE_ALLOC` records,
/// each page with its full image when the WAL's image rule asks for one.
#[derive(Debug, Clone)]
pub struct WalMetaLogger(pub Arc<Wal>);

impl MetaLogger for WalMetaLogger {
    fn log(&self, rtype: u8, pages: &[MetaPageChange<'_>]) -> Result<Lsn, BoxError> {
        let logged = self.0.log_with_images(|rule| -> Result<Lsn, WalError> {
            let mut record = rule.record(RmgrId::PAGE_ALLOC, rtype);
            for change in pages {
                let image = rule.needs_image(change.old_lsn).then_some(change.page);
                let block = record.register_page(change.page_id, image)?;
                record.register_page_data(block, change.data)?;
            }
            Ok(rule.insert(&record)?.end_lsn)
        });
        logged.map_err(|e| Box::new(e) as BoxError)
    }
}

/// Redo of `PAGE_ALLOC` records.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageAllocRedo;

impl PageRedo for PageAllocRedo {
    fn rmgr(&self) -> RmgrId {
        RmgrId::PAGE_ALLOC
    }

    fn name(&self) -> &'static str {
        "PAGE_ALLOC"
    }

    fn redo_block(&self, record: &Record, block: usize, page: &mut Page) -> Result<(), RedoError> {
        let data = record
            .blocks
            .get(block)
            .map(|b| b.data.as_slice())
            .ok_or_else(|| RedoError::new(format!("no block {block}")))?;
        folio_buffer::redo_alloc_block(record.rtype, block, data, page)
            .map_err(|e| RedoError::new(e.to_string()))
    }

    fn type_name(&self, rtype: u8) -> &'static str {
        folio_buffer::alloc_type_name(rtype)
    }

    fn describe(&self, record: &Record) -> String {
        let meta = record.blocks.first().map_or(&[][..], |b| b.data.as_slice());
        let freed: Option<PageId> = record.blocks.get(1).map(|b| b.page_id);
        folio_buffer::describe_alloc(record.rtype, meta, freed)
    }
}
