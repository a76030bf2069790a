//! Helpers shared by the integration tests.

#![allow(dead_code)] // Each test binary uses a different subset.

use folio_page::{LINE_POINTER_SIZE, LinePointerPageMut, LpError, Page, PageType, init_page};

/// SplitMix64: a tiny deterministic generator, so every test replays exactly.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform-enough value in `0..bound` (bound > 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }

    pub fn fill(&mut self, bytes: &mut [u8]) {
        for b in bytes {
            *b = self.next_u64() as u8;
        }
    }
}

/// A `Raw` page with a 16-byte special area, filled with random items until
/// the next one does no longer fit: the "full page" of the checksum tests.
pub fn full_page(seed: u64) -> Page {
    let mut rng = SplitMix64(seed);
    let mut page = [0u8; folio_page::PAGE_SIZE];
    init_page(&mut page, PageType::Raw, 16);
    let mut items = LinePointerPageMut::new(&mut page).expect("fresh page is valid");
    rng.fill(items.special_mut());
    loop {
        let mut item = vec![0u8; 1 + rng.below(200)];
        rng.fill(&mut item);
        match items.add(&item) {
            Ok(_) => {}
            Err(LpError::NoSpace { .. }) => break,
            Err(e) => panic!("unexpected {e}"),
        }
    }
    // Use up the last few bytes with an item that exactly fits.
    let rest = items.as_view().free_after_compaction().expect("valid");
    if rest > LINE_POINTER_SIZE {
        let item = vec![0x5A; rest - LINE_POINTER_SIZE];
        items.add(&item).expect("exact fit");
    }
    page
}
