//! One test per decoder of untrusted bytes, each run for the seeded budget
//! of `folio_fuzz::fuzz` (README "Fuzzing"). Every target proves the same
//! thing of its decoder: any input — raw bytes, or a valid encoding mutated
//! and resealed so it passes the CRC — gives a value or an error, never a
//! panic or an overflow, with no single allocation beyond what the input
//! justifies.

use folio_buffer::{BufferPool, PoolConfig, redo_alloc_block};
use folio_fuzz::{Input, bytes_like, fuzz, within_allocation};
use folio_io::{Dir, OpenOptions, SimConfig, SimDir};
use folio_page::{
    ItemId, LinePointerPage, LinePointerPageMut, Lsn, PAGE_SIZE, Page, PageId, PageType,
    header_lower, header_lsn, header_page_type, header_special, header_upper, init_page,
    is_zero_page, set_checksum, verify_checksum,
};
use folio_recovery::{ControlData, DbState, checkpoint_redo_lsn};
use folio_wal::{
    Block, ReaderOptions, Record, RecordBuilder, RmgrId, WAL_PAGE_SIZE, Wal, WalConfig, WalMeta,
    WalPageHeader, WalReader, decode_record, decode_record_into, seal_header, seal_record,
    segment_file_name,
};
use proptest::prelude::*;
use std::sync::Arc;

/// The bytes as one page (cut or zero-padded to 8 KiB).
fn page_of(bytes: &[u8]) -> Box<Page> {
    let mut page = Box::new([0u8; PAGE_SIZE]);
    let n = bytes.len().min(PAGE_SIZE);
    page[..n].copy_from_slice(&bytes[..n]);
    page
}

/// Reseals a page image: its checksum for page `id`.
fn reseal_page(id: PageId) -> impl Fn(&mut Vec<u8>) {
    move |bytes| {
        if bytes.len() >= PAGE_SIZE {
            let mut page = page_of(bytes);
            set_checksum(&mut page, id);
            bytes[..PAGE_SIZE].copy_from_slice(&page[..]);
        }
    }
}

/// Line-pointer pages: empty, a few items, items dead, redirected and
/// unused, nearly full.
fn line_pointer_samples() -> Vec<Vec<u8>> {
    let mut samples = Vec::new();
    for (items, churn) in [(0usize, false), (12, false), (30, true), (400, false)] {
        let mut page = Box::new([0u8; PAGE_SIZE]);
        init_page(&mut page, PageType::Raw, 16);
        {
            let mut view = LinePointerPageMut::new(&mut page).unwrap();
            for i in 0..items {
                if view.add(&vec![i as u8; 3 + i % 40]).is_err() {
                    break;
                }
            }
            if churn {
                view.set_dead(ItemId(3)).unwrap();
                view.set_redirect(ItemId(5), ItemId(6)).unwrap();
                view.set_unused(ItemId(9)).unwrap();
            }
        }
        set_checksum(&mut page, PageId(7));
        samples.push(page.to_vec());
    }
    samples
}

#[test]
fn page_header_and_items() {
    let samples = line_pointer_samples();
    fuzz(
        "page",
        bytes_like(samples.len(), PAGE_SIZE),
        |input: Input| {
            let page = page_of(&input.bytes(&samples, reseal_page(PageId(7))));
            // Linear in the page: `check_invariants` sorts one entry per line
            // pointer (at most 2042).
            within_allocation(8 * PAGE_SIZE, "page", || {
                let _ = (
                    header_lsn(&page),
                    header_page_type(&page),
                    is_zero_page(&page),
                );
                let _ = (
                    header_lower(&page),
                    header_upper(&page),
                    header_special(&page),
                );
                let _ = verify_checksum(&page, PageId(7));
                if let Ok(view) = LinePointerPage::new(&page) {
                    for id in 0..view.count() as u16 {
                        let _ = (view.state(ItemId(id)), view.get(ItemId(id)));
                        let _ = view.resolve(ItemId(id));
                    }
                    let _ = view.check_invariants();
                    let _ = (view.contiguous_free(), view.free_after_compaction());
                    let _ = (view.max_item_len(), view.special().len());
                }
                let mut copy = page.clone();
                if let Ok(mut view) = LinePointerPageMut::new(&mut copy) {
                    let n = view.as_view().count() as u16;
                    let _ = view.add(b"fuzz");
                    let _ = view.replace(ItemId(n / 2), b"x");
                    let _ = view.replace(ItemId(n / 3), &[7; 300]);
                    let _ = view.set_redirect(ItemId(n / 4), ItemId(n / 5));
                    let _ = view.set_dead(ItemId(0));
                    let _ = view.set_unused(ItemId(n.saturating_sub(1)));
                    let _ = view.compact();
                    let _ = view.as_view().check_invariants();
                }
            })
        },
    );
}

/// Valid records: no blocks, one with data, one with an image, several.
fn record_samples() -> Vec<Vec<u8>> {
    let image = Box::new([0x5au8; PAGE_SIZE]);
    let mut samples = Vec::new();
    let mut plain = RecordBuilder::new(RmgrId(7), 1);
    plain.register_data(b"main data").unwrap();
    samples.push(plain.encode(Lsn(4096)));
    let mut blocks = RecordBuilder::new(RmgrId::BTREE, 2);
    for i in 0..4u64 {
        let block = blocks
            .register_page(PageId(10 + i), (i == 2).then_some(&*image))
            .unwrap();
        blocks.register_page_data(block, b"block data").unwrap();
    }
    blocks.register_data(b"tail").unwrap();
    samples.push(blocks.encode(Lsn(123_456)));
    samples.push(RecordBuilder::new(RmgrId::XACT, 1).encode(Lsn(0)));
    samples
}

#[test]
fn wal_record() {
    let samples = record_samples();
    let reseal = |bytes: &mut Vec<u8>| {
        // A record's length field names its bytes: keep them consistent so
        // the decoder's layout checks (not just the length check) run.
        if let Ok(len) = u32::try_from(bytes.len())
            && len >= 4
        {
            bytes[..4].copy_from_slice(&len.to_le_bytes());
        }
        seal_record(bytes);
    };
    let longest = samples.iter().map(Vec::len).max().unwrap();
    fuzz(
        "wal-record",
        bytes_like(samples.len(), longest),
        |input: Input| {
            let bytes = input.bytes(&samples, reseal);
            let limit = 2 * bytes.len() + 4096;
            within_allocation(limit, "decode_record", || {
                if let Ok(view) = decode_record(&bytes) {
                    let _ = view.to_record(Lsn(0), Lsn(bytes.len() as u64), bytes.len() as u32);
                }
                let mut record = Record::empty();
                let _ = decode_record_into(&bytes, &mut record, Lsn(0), Lsn(1 << 20));
            })
        },
    );
}

#[test]
fn wal_page_header() {
    let mut page = vec![0u8; WAL_PAGE_SIZE];
    WalPageHeader {
        flags: 1,
        page_addr: Lsn(3 * WAL_PAGE_SIZE as u64),
        system_id: 0x1234_5678,
        synced_upto: Lsn(20_000),
        cont_len: 300,
        generation: 4,
        timeline: 1,
    }
    .write_to(&mut page);
    let samples = vec![page[..64].to_vec()];
    let reseal = |bytes: &mut Vec<u8>| {
        if bytes.len() >= folio_wal::WAL_PAGE_HEADER_SIZE {
            seal_header(bytes);
        }
    };
    fuzz("wal-page-header", bytes_like(1, 64), |input: Input| {
        let bytes = input.bytes(&samples, reseal);
        within_allocation(0, "WalPageHeader::parse", || {
            let _ = WalPageHeader::parse(&bytes);
        })
    });
}

/// A simulated directory holding `files`.
fn sim_with(files: &[(&str, &[u8])]) -> Arc<SimDir> {
    let dir = SimDir::new(SimConfig::seeded(1));
    for (name, bytes) in files {
        let file = dir.open(name, OpenOptions::CREATE).unwrap();
        file.write_at(bytes, 0).unwrap();
    }
    dir
}

#[test]
fn wal_meta() {
    let dir = SimDir::new(SimConfig::seeded(1));
    WalMeta::new(1 << 20).store(dir.as_ref()).unwrap();
    let samples = vec![dir.read_durable("wal.meta").unwrap()];
    let reseal = |bytes: &mut Vec<u8>| {
        if bytes.len() >= 44 {
            let crc = crc32c::crc32c(&bytes[..40]);
            bytes[40..44].copy_from_slice(&crc.to_le_bytes());
        }
    };
    fuzz("wal-meta", bytes_like(1, 44), |input: Input| {
        let dir = sim_with(&[("wal.meta", &input.bytes(&samples, reseal))]);
        within_allocation(4096, "WalMeta::load", || {
            let _ = WalMeta::load(dir.as_ref());
        })
    });
}

#[test]
fn control_file() {
    let control = ControlData {
        state: DbState::InProduction,
        checkpoint_lsn: Lsn(90_000),
        redo_lsn: Lsn(80_000),
        wal_system_id: 77,
        checkpoint_count: 3,
        checkpoint_time_ms: 1_700_000_000_000,
        checksums: true,
    };
    let samples = vec![control.encode().to_vec()];
    let reseal = |bytes: &mut Vec<u8>| {
        if bytes.len() >= 68 {
            let crc = crc32c::crc32c(&bytes[..64]);
            bytes[64..68].copy_from_slice(&crc.to_le_bytes());
        }
    };
    fuzz("control", bytes_like(1, 512), |input: Input| {
        let bytes = input.bytes(&samples, reseal);
        let dir = sim_with(&[("control", &bytes)]);
        within_allocation(4096, "ControlData", || {
            let _ = ControlData::decode(&bytes);
            let _ = ControlData::load(dir.as_ref());
        })
    });
}

/// Decoded records of any shape: what redo functions and record
/// descriptions receive.
fn any_record() -> impl Strategy<Value = (Record, usize, Vec<u8>)> {
    let block = (
        any::<u64>(),
        prop::collection::vec(any::<u8>(), 0..64),
        any::<bool>(),
    );
    (
        prop_oneof![Just(0u8), Just(1), Just(2), Just(3), any::<u8>()],
        prop_oneof![Just(1u8), Just(2), Just(3), Just(4), Just(5), any::<u8>()],
        prop::collection::vec(block, 0..5),
        prop::collection::vec(any::<u8>(), 0..48),
        0usize..6,
        prop::collection::vec(any::<u8>(), 0..PAGE_SIZE),
    )
        .prop_map(|(rmgr, rtype, blocks, data, which, page)| {
            let mut record = Record::empty();
            record.rmgr = RmgrId(rmgr);
            record.rtype = rtype;
            record.data = data;
            record.blocks = blocks
                .into_iter()
                .map(|(page_id, data, image)| Block {
                    page_id: PageId(page_id % 64),
                    image: image.then(|| Box::new([0u8; PAGE_SIZE])),
                    data,
                })
                .collect();
            (record, which, page)
        })
}

#[test]
fn checkpoint_records_and_every_redo() {
    let registry = folio_db::redo_registry();
    fuzz("redo", any_record(), |(record, block, page_bytes)| {
        let mut page = page_of(&page_bytes);
        within_allocation(4 * PAGE_SIZE, "redo", || {
            let _ = checkpoint_redo_lsn(&record);
            if let Some(redo) = registry.get(record.rmgr) {
                let _ = redo.describe(&record);
                let _ = redo.type_name(record.rtype);
                let _ = redo.redo_block(&record, block, &mut page);
            }
            let meta = record.blocks.first().map_or(&[][..], |b| b.data.as_slice());
            let _ = redo_alloc_block(record.rtype, block, meta, &mut page);
        })
    });
}

/// Segment files of a real WAL (four 8 KiB pages each), with records of
/// many sizes, some spanning pages and segments.
fn wal_files() -> (Vec<u8>, Vec<Vec<u8>>) {
    let dir = SimDir::new(SimConfig::seeded(2));
    let config = WalConfig {
        segment_size_bytes: 4 * WAL_PAGE_SIZE as u64,
        buffer_pages: 8,
        min_wal_size_bytes: 0,
        ..WalConfig::default()
    };
    let wal = Wal::open(dir.clone(), config).unwrap();
    for i in 0..60usize {
        let data = vec![i as u8; (i * 997) % 3000 + 1];
        let mut record = RecordBuilder::new(RmgrId(7), (i % 3) as u8);
        record.register_data(&data).unwrap();
        wal.insert(&record).unwrap();
    }
    wal.flush_all().unwrap();
    drop(wal);
    let meta = dir.read_durable("wal.meta").unwrap();
    let segments = (0..)
        .map(segment_file_name)
        .map_while(|name| dir.read_durable(&name).ok())
        .collect();
    (meta, segments)
}

#[test]
fn wal_segments_read_to_the_end() {
    let (meta, segments) = wal_files();
    assert!(segments.len() >= 3, "{} segments", segments.len());
    let reseal = |bytes: &mut Vec<u8>| {
        for page in bytes.chunks_mut(WAL_PAGE_SIZE) {
            if page.len() >= folio_wal::WAL_PAGE_HEADER_SIZE {
                seal_header(page);
            }
        }
    };
    let strategy = (
        bytes_like(segments.len(), segments[0].len()),
        0..segments.len(),
        any::<bool>(),
    );
    fuzz("wal-segments", strategy, |(input, victim, truncate)| {
        let mut files: Vec<(String, Vec<u8>)> = segments
            .iter()
            .enumerate()
            .map(|(i, bytes)| (segment_file_name(i as u64), bytes.clone()))
            .collect();
        files[victim].1 = input.bytes(&segments, reseal);
        let total: usize = files.iter().map(|(_, b)| b.len()).sum();
        let mut named: Vec<(&str, &[u8])> = vec![("wal.meta", &meta)];
        named.extend(files.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
        let dir: Arc<dyn Dir> = sim_with(&named);
        // The reader's 256 KiB chunk, or the WAL's own bytes.
        let limit = 2 * total.max(256 << 10) + 8192;
        within_allocation(limit, "WalReader", || {
            let options = ReaderOptions {
                truncate_at_corruption: truncate,
            };
            if let Ok(mut reader) = WalReader::open(dir.clone(), options) {
                // Bounded: each record advances the position.
                while let Ok(Some(_)) = reader.next_record() {}
                let _ = reader.discarded();
            }
        })
    });
}

#[test]
fn meta_page() {
    let dir = SimDir::new(SimConfig::seeded(3));
    let config = PoolConfig {
        pool_size_bytes: 16 * PAGE_SIZE as u64,
        max_database_bytes: 1 << 20,
        huge_pages: false,
        ..PoolConfig::default()
    };
    {
        let pool = BufferPool::create(
            dir.open("data", OpenOptions::CREATE).unwrap(),
            config.clone(),
        )
        .unwrap();
        for _ in 0..3 {
            let page = pool.allocate().unwrap();
            pool.free(page).unwrap();
        }
        pool.flush_all().unwrap();
    }
    let data = dir.read_durable("data").unwrap();
    let samples = vec![data[..PAGE_SIZE].to_vec()];
    fuzz("meta-page", bytes_like(1, PAGE_SIZE), |input: Input| {
        let page0 = page_of(&input.bytes(&samples, reseal_page(PageId(0))));
        let mut image = data.clone();
        image[..PAGE_SIZE].copy_from_slice(&page0[..]);
        let dir = sim_with(&[("data", &image)]);
        let _ = folio_db::offline::read_meta(&page0);
        let file = dir.open("data", OpenOptions::EXISTING).unwrap();
        // The pool's own allocations follow its configuration, not the
        // input: only panics are checked here.
        if let Ok(pool) = BufferPool::open(file, config.clone()) {
            let _ = (pool.page_count(), pool.free_page_count(), pool.meta_root(0));
            let _ = pool.verify_meta();
            // Walks the free list: corrupt links must be errors.
            for _ in 0..4 {
                let _ = pool.allocate();
            }
            pool.abandon();
        }
        Ok(())
    });
}
