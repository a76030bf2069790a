//! Test support for logged trees: a database (pool + WAL in one directory)
//! with the pool's WAL hooks installed, and a tiny replay driver that
//! mimics the recovery driver's contract (FPI restore, page-LSN check,
//! `redo_block`, stamp the LSN).
#![allow(dead_code)]

use folio_btree::BtreeRedo;
use folio_buffer::{BufferPool, MetaLogger, MetaPageChange, PoolConfig, WalFlusher};
use folio_io::{Dir, FsDir, OpenOptions};
use folio_page::{CHECKSUM_OFFSET, Lsn, PAGE_SIZE, Page, PageId, header_lsn, set_header_lsn};
use folio_wal::{PageRedo, ReaderOptions, Record, Recycle, RmgrId, Wal, WalConfig, WalError};
use std::error::Error;
use std::sync::Arc;

type BoxError = Box<dyn Error + Send + Sync>;

/// The buffer's WAL rule through the WAL.
#[derive(Debug)]
pub struct Flusher(pub Arc<Wal>);

impl WalFlusher for Flusher {
    fn flush_to(&self, lsn: Lsn) -> Result<(), BoxError> {
        self.0.flush_to(lsn).map_err(|e| Box::new(e) as BoxError)
    }
}

/// The pool's allocation records through the WAL (what the database layer
/// installs; repeated here so this crate's tests need no higher crate).
#[derive(Debug)]
pub struct Logger(pub Arc<Wal>);

impl MetaLogger for Logger {
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

pub fn wal_config() -> WalConfig {
    WalConfig {
        segment_size_bytes: 1 << 20,
        buffer_pages: 64,
        recycle: Recycle::Off,
        init_zero: false,
        min_wal_size_bytes: 4 << 20,
        max_wal_size_bytes: 1 << 30,
        ..WalConfig::default()
    }
}

pub fn pool_config(pool_pages: u64) -> PoolConfig {
    PoolConfig {
        pool_size_bytes: pool_pages * PAGE_SIZE as u64,
        max_database_bytes: 1 << 30,
        checksums: true,
        eviction_batch_pages: 8,
        huge_pages: true,
    }
}

/// A pool over `name` in `dir` (created when `create`) with no hooks.
pub fn bare_pool(dir: &Arc<dyn Dir>, name: &str, pool_pages: u64, create: bool) -> Arc<BufferPool> {
    let options = if create {
        OpenOptions::CREATE_NEW
    } else {
        OpenOptions::EXISTING
    };
    let file = dir.open(name, options).unwrap();
    if create {
        BufferPool::create(file, pool_config(pool_pages)).unwrap()
    } else {
        BufferPool::open(file, pool_config(pool_pages)).unwrap()
    }
}

/// A logged database in a temporary directory: data file `db`, WAL beside it.
pub struct Db {
    pub tmp: tempfile::TempDir,
    pub dir: Arc<dyn Dir>,
    pub pool: Arc<BufferPool>,
    pub wal: Arc<Wal>,
}

impl Db {
    pub fn create(pool_pages: u64) -> Db {
        let tmp = tempfile::tempdir().unwrap();
        let dir: Arc<dyn Dir> = Arc::new(FsDir::open(tmp.path()).unwrap());
        let pool = bare_pool(&dir, "db", pool_pages, true);
        let wal = Arc::new(Wal::open(dir.clone(), wal_config()).unwrap());
        pool.set_wal_flusher(Arc::new(Flusher(wal.clone())));
        pool.set_meta_logger(Some(Arc::new(Logger(wal.clone()))));
        Db {
            tmp,
            dir,
            pool,
            wal,
        }
    }

    /// Every record in the WAL, after making it durable.
    pub fn records(&self) -> Vec<Record> {
        self.wal.flush_all().unwrap();
        let mut reader = self.wal.reader(ReaderOptions::default()).unwrap();
        let mut out = Vec::new();
        while let Some(record) = reader.next_record().unwrap() {
            out.push(record);
        }
        out
    }
}

/// What a replay did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Replayed {
    pub images: u64,
    pub redone: u64,
    /// Blocks skipped by the page-LSN check.
    pub skipped: u64,
}

/// Replays `records` onto `pool` as the recovery driver does: restore a
/// block's full-page image; otherwise apply it only if the page's LSN is
/// older than the record's end; stamp the record's end LSN.
pub fn replay(pool: &BufferPool, records: &[Record]) -> Replayed {
    let mut done = Replayed::default();
    for record in records {
        for (i, block) in record.blocks.iter().enumerate() {
            let mut page = pool.exclusive(block.page_id).unwrap();
            if let Some(image) = &block.image {
                page.copy_from_slice(&image[..]);
                done.images += 1;
            } else if header_lsn(&page) < record.end_lsn {
                match record.rmgr {
                    RmgrId::BTREE => {
                        BtreeRedo
                            .redo_block(record, i, &mut page)
                            .unwrap_or_else(|e| {
                                panic!("{e} in {} at {:?}", BtreeRedo.describe(record), record.lsn)
                            })
                    }
                    RmgrId::PAGE_ALLOC => {
                        folio_buffer::redo_alloc_block(record.rtype, i, &block.data, &mut page)
                            .unwrap()
                    }
                    other => panic!("unexpected resource manager {other:?}"),
                }
                done.redone += 1;
            } else {
                done.skipped += 1;
                continue;
            }
            set_header_lsn(&mut page, record.end_lsn);
        }
    }
    done
}

/// A copy of page `id` with the checksum field zeroed (frames carry
/// whatever checksum they were last read with; checksums are set on write).
pub fn page_image(pool: &BufferPool, id: PageId) -> Box<Page> {
    let guard = pool.shared(id).unwrap();
    let mut page = Box::new(*guard);
    page[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].fill(0);
    page
}

/// Asserts that pages `0..page_count` of both pools are byte-identical
/// (checksum field aside).
pub fn assert_same_pages(original: &BufferPool, replayed: &BufferPool) {
    let count = original.page_count().unwrap();
    assert_eq!(replayed.page_count().unwrap(), count, "page count");
    for id in 0..count {
        let (a, b) = (
            page_image(original, PageId(id)),
            page_image(replayed, PageId(id)),
        );
        if a != b {
            let first = (0..PAGE_SIZE).find(|&i| a[i] != b[i]).unwrap();
            panic!("page {id} differs after replay, first at byte {first}");
        }
    }
}
