//! The glue between the buffer manager and the WAL, which do not know each
//! other: the WAL rule (`WalFlusher`), logging of allocation changes
//! (`MetaLogger`) and their redo (`PageRedo` for `PAGE_ALLOC`), and the
//! transaction-control records (commit, checkpoint) with their no-op redo.

use folio_buffer::{MetaLogger, MetaPageChange, WalFlusher};
use folio_page::{Lsn, Page, PageId};
use folio_wal::{Inserted, PageRedo, Record, RecordBuilder, RedoError, RmgrId, Wal, WalError};
use std::sync::Arc;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// `XACT` record type: a commit (no blocks, no data). What makes the changes
/// before it durable once flushed.
pub const XACT_COMMIT: u8 = 1;
/// `XACT` record type: a checkpoint (no blocks; data: the redo LSN, u64).
pub const XACT_CHECKPOINT: u8 = 2;

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
/// attaching a full-page image to each page the WAL asks one for.
#[derive(Debug, Clone)]
pub struct WalMetaLogger(pub Arc<Wal>);

impl MetaLogger for WalMetaLogger {
    fn log(&self, rtype: u8, pages: &[MetaPageChange<'_>]) -> Result<Lsn, BoxError> {
        loop {
            let redo = self.0.redo_lsn();
            let mut record = RecordBuilder::new(RmgrId::PAGE_ALLOC, rtype);
            record.set_redo_lsn_seen(redo);
            for change in pages {
                let image = (change.old_lsn <= redo).then_some(change.page);
                let block = record.register_page(change.page_id, image)?;
                record.register_page_data(block, change.data)?;
            }
            match self.0.insert(&record) {
                Ok(inserted) => return Ok(inserted.end_lsn),
                // A checkpoint started meanwhile: decide the images again.
                Err(WalError::RedoPointMoved) => continue,
                Err(e) => return Err(Box::new(e)),
            }
        }
    }
}

/// Redo of `PAGE_ALLOC` records (the functions live beside the free list in
/// folio-buffer).
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

/// Transaction control (`XACT`): commit and checkpoint records register no
/// pages, so there is nothing to redo.
#[derive(Debug, Clone, Copy, Default)]
pub struct XactRedo;

impl PageRedo for XactRedo {
    fn rmgr(&self) -> RmgrId {
        RmgrId::XACT
    }

    fn name(&self) -> &'static str {
        "XACT"
    }

    fn redo_block(&self, record: &Record, block: usize, _page: &mut Page) -> Result<(), RedoError> {
        Err(RedoError::new(format!(
            "XACT record type {} registers no pages (block {block})",
            record.rtype
        )))
    }

    fn type_name(&self, rtype: u8) -> &'static str {
        match rtype {
            XACT_COMMIT => "COMMIT",
            XACT_CHECKPOINT => "CHECKPOINT",
            _ => "UNKNOWN",
        }
    }

    fn describe(&self, record: &Record) -> String {
        match (record.rtype, checkpoint_redo_lsn(record)) {
            (XACT_CHECKPOINT, Some(redo)) => format!("CHECKPOINT redo {redo}"),
            (rtype, _) => self.type_name(rtype).to_string(),
        }
    }
}

/// Inserts a commit record (not yet durable: pass its end to `Wal::commit`).
/// Callers hold no page latch here, so this is where a hard WAL limit
/// throttles writers (`Wal::throttle`): it waits for a checkpoint to free
/// space while the WAL reaches into the limit's headroom.
pub fn insert_commit(wal: &Wal) -> Result<Inserted, WalError> {
    wal.throttle()?;
    wal.insert(&RecordBuilder::new(RmgrId::XACT, XACT_COMMIT))
}

/// Inserts a checkpoint record naming `redo`. It is privileged: it may use
/// the hard WAL limit's checkpoint reserve, which ordinary records leave
/// free, so the checkpoint that frees space completes even while writers
/// are throttled.
pub fn insert_checkpoint(wal: &Wal, redo: Lsn) -> Result<Inserted, WalError> {
    let bytes = redo.0.to_le_bytes();
    let mut record = RecordBuilder::new(RmgrId::XACT, XACT_CHECKPOINT);
    record.register_data(&bytes)?;
    wal.insert_privileged(&record)
}

/// The redo LSN a checkpoint record names, if it is one.
pub fn checkpoint_redo_lsn(record: &Record) -> Option<Lsn> {
    if record.rmgr != RmgrId::XACT || record.rtype != XACT_CHECKPOINT {
        return None;
    }
    let bytes: [u8; 8] = record.data.as_slice().try_into().ok()?;
    Some(Lsn(u64::from_le_bytes(bytes)))
}
