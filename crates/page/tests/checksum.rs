//! The page checksum: definition, detection of bit flips and misdirected
//! writes, and the never-written-page rule.

mod common;

use common::{SplitMix64, full_page};
use folio_page::{
    CHECKSUM_OFFSET, ChecksumError, Lsn, PAGE_SIZE, PageId, PageType, header_checksum, init_page,
    is_zero_page, page_checksum, set_checksum, set_header_lsn, verify_checksum,
};

const ID: PageId = PageId(42);

fn checksummed_full_page() -> folio_page::Page {
    let mut page = full_page(0xF0110);
    set_header_lsn(&mut page, Lsn(0x1_0000_0ABC));
    set_checksum(&mut page, ID);
    page
}

// Proves the checksum is exactly crc32c(id as 8 LE bytes ++ page with the
// checksum field zeroed), whatever the stored field holds: the on-disk
// definition in checksum.rs, computed here the slow, obvious way.
#[test]
fn checksum_matches_its_definition() {
    let mut page = checksummed_full_page();
    page[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&[1, 2, 3, 4]);
    let mut message = ID.0.to_le_bytes().to_vec();
    let mut zeroed = page;
    zeroed[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].fill(0);
    message.extend_from_slice(&zeroed);
    assert_eq!(page_checksum(&page, ID), crc32c::crc32c(&message));
}

// Proves the checksum of a fixed page does not change between versions of
// this code (pages already on disk must keep verifying) and is the standard
// CRC-32C: the constant was computed by an independent bitwise CRC-32C
// (reflected polynomial 0x82F63B78) over 7u64 LE ++ the empty Raw page.
#[test]
fn checksum_known_answer() {
    let mut page = [0u8; PAGE_SIZE];
    init_page(&mut page, PageType::Raw, 0);
    assert_eq!(page_checksum(&page, PageId(7)), KNOWN_RAW_PAGE_7);
}
const KNOWN_RAW_PAGE_7: u32 = 0xCC29_EF28;

// Proves set_checksum stores a value verify_checksum accepts, little-endian
// in the header, and that a later change to the page (here the LSN) fails.
#[test]
fn set_then_verify_round_trips_and_later_changes_fail() {
    let mut page = checksummed_full_page();
    assert_eq!(verify_checksum(&page, ID), Ok(()));
    assert_eq!(header_checksum(&page), page_checksum(&page, ID));
    set_header_lsn(&mut page, Lsn(0x1_0000_0ABD));
    let err = verify_checksum(&page, ID).unwrap_err();
    assert_eq!(err.page_id, ID);
    assert_eq!(err.stored, header_checksum(&page));
    assert_eq!(err.computed, page_checksum(&page, ID));
}

// Proves every one of the 65,536 single-bit flips of a full, checksummed page
// is detected, including flips inside the stored checksum field.
#[test]
fn every_single_bit_flip_is_detected() {
    let mut page = checksummed_full_page();
    assert!(
        page.iter().filter(|&&b| b != 0).count() > PAGE_SIZE / 2,
        "page is really full"
    );
    for bit in 0..PAGE_SIZE * 8 {
        page[bit / 8] ^= 1 << (bit % 8);
        assert!(
            verify_checksum(&page, ID).is_err(),
            "flip of bit {bit} undetected"
        );
        page[bit / 8] ^= 1 << (bit % 8);
    }
    assert_eq!(verify_checksum(&page, ID), Ok(()));
}

// Proves random (seeded) two- and three-bit flips are detected: CRC-32C has
// Hamming distance 4 at this message length, so none may slip through.
#[test]
fn random_double_and_triple_bit_flips_are_detected() {
    let mut page = checksummed_full_page();
    let mut rng = SplitMix64(0xB17_F11B);
    for round in 0..6_000 {
        let flips = 2 + round % 2;
        let mut bits = Vec::with_capacity(flips);
        while bits.len() < flips {
            let bit = rng.below(PAGE_SIZE * 8);
            if !bits.contains(&bit) {
                bits.push(bit);
            }
        }
        for &bit in &bits {
            page[bit / 8] ^= 1 << (bit % 8);
        }
        assert!(
            verify_checksum(&page, ID).is_err(),
            "flips {bits:?} undetected"
        );
        for &bit in &bits {
            page[bit / 8] ^= 1 << (bit % 8);
        }
    }
}

// Proves a page written to the wrong place fails verification there: the
// page id seeds the CRC. For ids that share their high 32 bits the checksums
// of one page are provably all distinct (the seed difference is a non-zero
// polynomial of degree < 32, never a multiple of the CRC polynomial); this
// checks 4,096 of them, plus ids that differ only in the high half.
#[test]
fn page_verified_under_another_id_fails() {
    let page = checksummed_full_page();
    for other in [0, 41, 43, 42 + (1 << 32), 42 | (1 << 63), u64::MAX] {
        let err = verify_checksum(&page, PageId(other)).unwrap_err();
        assert_eq!(
            err,
            ChecksumError {
                page_id: PageId(other),
                stored: header_checksum(&page),
                computed: page_checksum(&page, PageId(other)),
            }
        );
    }
    let mut seen: Vec<u32> = (0..4096)
        .map(|id| page_checksum(&page, PageId(id)))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 4096, "two page ids gave the same checksum");
}

// Proves the never-written rule: an all-zero page verifies under any id even
// though its stored checksum (0) is not its CRC, and one set bit ends that.
#[test]
fn zero_page_verifies_and_one_set_bit_does_not() {
    let mut page = [0u8; PAGE_SIZE];
    assert!(is_zero_page(&page));
    for id in [0, 1, 42, u64::MAX] {
        assert_ne!(page_checksum(&page, PageId(id)), 0);
        assert_eq!(verify_checksum(&page, PageId(id)), Ok(()));
    }
    page[PAGE_SIZE - 1] = 0x01;
    assert!(verify_checksum(&page, ID).is_err());
}

// Proves a stored checksum of 0 is an ordinary value: a page whose CRC
// happens to be 0 is not special, and a non-zero page storing 0 fails.
#[test]
fn stored_zero_checksum_is_not_special() {
    let mut page = checksummed_full_page();
    page[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].fill(0);
    assert_ne!(page_checksum(&page, ID), 0);
    assert!(verify_checksum(&page, ID).is_err());
}
