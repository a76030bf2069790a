//! The record format: builder/decoder round trips and a decoder that never
//! panics on arbitrary or damaged bytes.

use folio_page::{Lsn, PAGE_SIZE, PageId};
use folio_wal::{DecodeError, Record, RecordBuilder, RmgrId, decode_record, decode_record_into};
use proptest::prelude::*;

// Proves a record with pages, images, per-page data and main data decodes to
// exactly what was registered, back-link included.
#[test]
fn builder_decode_round_trip() {
    let img = [0xABu8; PAGE_SIZE];
    let mut b = RecordBuilder::new(RmgrId(3), 0x42);
    let b0 = b.register_page(PageId(10), Some(&img)).unwrap();
    let b1 = b.register_page(PageId(11), None).unwrap();
    b.register_page_data(b1, b"leaf").unwrap();
    b.register_page_data(b0, b"x").unwrap();
    b.register_page_data(b1, b"-tuple").unwrap();
    b.register_data(b"main").unwrap();
    b.register_data(b"-data").unwrap();
    let bytes = b.encode(Lsn(0x1234));
    assert_eq!(bytes.len(), b.total_len());
    let r = decode_record(&bytes).unwrap();
    assert_eq!(r.prev_lsn, Lsn(0x1234));
    assert_eq!((r.rmgr, r.rtype), (RmgrId(3), 0x42));
    assert_eq!(r.blocks.len(), 2);
    assert_eq!(r.blocks[0].page_id, PageId(10));
    assert_eq!(r.blocks[0].image.map(|p| p[..] == img[..]), Some(true));
    assert_eq!(r.blocks[0].data, b"x");
    assert_eq!(r.blocks[1].page_id, PageId(11));
    assert!(r.blocks[1].image.is_none());
    assert_eq!(r.blocks[1].data, b"leaf-tuple");
    assert_eq!(r.data, b"main-data");
}

// Proves the decoder catches every single-bit flip of a record (CRC), and
// a truncated record (length).
#[test]
fn every_bit_flip_is_detected() {
    let mut b = RecordBuilder::new(RmgrId(1), 2);
    let blk = b.register_page(PageId(5), None).unwrap();
    b.register_page_data(blk, b"abc").unwrap();
    b.register_data(b"hello world").unwrap();
    let bytes = b.encode(Lsn(8));
    for bit in 0..bytes.len() * 8 {
        let mut bad = bytes.clone();
        bad[bit / 8] ^= 1 << (bit % 8);
        assert!(decode_record(&bad).is_err(), "bit {bit} undetected");
    }
    assert!(matches!(
        decode_record(&bytes[..bytes.len() - 1]),
        Err(DecodeError::LengthMismatch { .. })
    ));
}

// Proves the builder enforces the block limit and rejects unknown blocks.
#[test]
fn builder_limits() {
    let mut b = RecordBuilder::new(RmgrId(1), 0);
    for i in 0..folio_wal::MAX_BLOCKS {
        b.register_page(PageId(i as u64), None).unwrap();
    }
    assert!(b.register_page(PageId(99), None).is_err());
    let mut b = RecordBuilder::new(RmgrId(1), 0);
    assert!(b.register_page_data(folio_wal::BlockId(0), b"x").is_err());
}

proptest! {
    // Proves arbitrary bytes never make the decoder panic.
    #[test]
    fn decoder_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = decode_record(&bytes);
    }

    // Proves structurally plausible but damaged records (valid length and
    // CRC recomputed over garbage layout fields) never make it panic either.
    #[test]
    fn decoder_never_panics_on_bad_layout(
        nblocks in 0u8..40, fields in proptest::collection::vec(any::<u8>(), 0..600), main_len in any::<u32>()
    ) {
        let total = 24 + fields.len();
        let mut bytes = vec![0u8; total];
        bytes[0..4].copy_from_slice(&(total as u32).to_le_bytes());
        bytes[18] = nblocks;
        bytes[20..24].copy_from_slice(&main_len.to_le_bytes());
        bytes[24..].copy_from_slice(&fields);
        let body = crc32c::crc32c(&bytes[24..]);
        let crc = crc32c::crc32c_append(crc32c::crc32c_append(body, &bytes[..4]), &bytes[8..24]);
        bytes[4..8].copy_from_slice(&crc.to_le_bytes());
        let _ = decode_record(&bytes);
    }

    // Proves round trips for random shapes.
    #[test]
    fn random_records_round_trip(
        blocks in proptest::collection::vec((any::<u64>(), any::<bool>(), proptest::collection::vec(any::<u8>(), 0..64)), 0..4),
        main in proptest::collection::vec(any::<u8>(), 0..256),
        prev in any::<u64>(),
    ) {
        let img = [7u8; PAGE_SIZE];
        let mut b = RecordBuilder::new(RmgrId(9), 1);
        for (pid, with_img, data) in &blocks {
            let id = b.register_page(PageId(*pid), with_img.then_some(&img)).unwrap();
            b.register_page_data(id, data).unwrap();
        }
        b.register_data(&main).unwrap();
        let bytes = b.encode(Lsn(prev));
        let r = decode_record(&bytes).unwrap();
        prop_assert_eq!(r.prev_lsn, Lsn(prev));
        prop_assert_eq!(r.data, &main[..]);
        prop_assert_eq!(r.blocks.len(), blocks.len());
        for (got, (pid, with_img, data)) in r.blocks.iter().zip(&blocks) {
            prop_assert_eq!(got.page_id, PageId(*pid));
            prop_assert_eq!(got.image.is_some(), *with_img);
            prop_assert_eq!(got.data, &data[..]);
        }
    }

    // Proves decoding into a reused record (replay recycles records) gives
    // exactly the owned copy of a fresh decode, whatever shapes the record
    // held before: more or fewer blocks, images appearing and disappearing.
    #[test]
    fn decoding_into_a_reused_record_matches_a_fresh_decode(
        shapes in proptest::collection::vec(
            (
                proptest::collection::vec((any::<u64>(), any::<bool>(), proptest::collection::vec(any::<u8>(), 0..48)), 0..5),
                proptest::collection::vec(any::<u8>(), 0..64),
            ),
            1..6,
        ),
    ) {
        let mut reused = Record::empty();
        for (i, (blocks, main)) in shapes.iter().enumerate() {
            let img = [i as u8; PAGE_SIZE];
            let mut b = RecordBuilder::new(RmgrId(2), i as u8);
            for (pid, with_img, data) in blocks {
                let id = b.register_page(PageId(*pid), with_img.then_some(&img)).unwrap();
                b.register_page_data(id, data).unwrap();
            }
            b.register_data(main).unwrap();
            let bytes = b.encode(Lsn(i as u64));
            let (lsn, end) = (Lsn(64 * i as u64), Lsn(64 * i as u64 + 8));
            decode_record_into(&bytes, &mut reused, lsn, end).unwrap();
            let fresh = decode_record(&bytes).unwrap().to_record(lsn, end, bytes.len() as u32);
            prop_assert_eq!(&reused, &fresh);
        }
    }
}
