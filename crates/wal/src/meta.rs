//! `wal.meta`: the WAL's identity, fixed at creation, and its open count.
//! Created atomically (write a temporary file, fsync, rename, fsync the
//! directory), then overwritten in place: 44 bytes in one sector, which a
//! write never tears, so an open needs no free space to bump the generation.
//!
//! | offset | size | field          | meaning                                  |
//! |-------:|-----:|----------------|------------------------------------------|
//! | 0      | 8    | magic          | `FOLIOWAL`                               |
//! | 8      | 4    | version        | [`META_VERSION`]                         |
//! | 12     | 4    | page size      | 8192                                     |
//! | 16     | 8    | segment size   | bytes per segment file                   |
//! | 24     | 8    | system id      | random; every page header repeats it     |
//! | 32     | 4    | timeline       | 1                                        |
//! | 36     | 4    | generation     | incremented by every open                |
//! | 40     | 4    | crc            | CRC-32C of bytes `[0, 40)`               |

use crate::error::WalError;
use crate::record::{get_u32, get_u64};
use crate::wal_page::{TIMELINE, WAL_PAGE_SIZE};
use folio_io::{Dir, OpenOptions};

pub const META_FILE: &str = "wal.meta";
const META_TMP: &str = "wal.meta.tmp";
const META_MAGIC: &[u8; 8] = b"FOLIOWAL";
pub const META_VERSION: u32 = 1;
const META_SIZE: usize = 44;

/// The WAL's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalMeta {
    pub segment_size_bytes: u64,
    pub system_id: u64,
    pub timeline: u32,
    pub generation: u32,
}

impl WalMeta {
    /// A fresh identity with a random system id.
    pub fn new(segment_size_bytes: u64) -> WalMeta {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        h.write_u32(std::process::id());
        WalMeta {
            segment_size_bytes,
            system_id: h.finish() | 1,
            timeline: TIMELINE,
            generation: 0,
        }
    }

    fn encode(&self) -> [u8; META_SIZE] {
        let mut b = [0u8; META_SIZE];
        b[0..8].copy_from_slice(META_MAGIC);
        b[8..12].copy_from_slice(&META_VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&(WAL_PAGE_SIZE as u32).to_le_bytes());
        b[16..24].copy_from_slice(&self.segment_size_bytes.to_le_bytes());
        b[24..32].copy_from_slice(&self.system_id.to_le_bytes());
        b[32..36].copy_from_slice(&self.timeline.to_le_bytes());
        b[36..40].copy_from_slice(&self.generation.to_le_bytes());
        let crc = crc32c::crc32c(&b[..40]);
        b[40..44].copy_from_slice(&crc.to_le_bytes());
        b
    }

    fn decode(b: &[u8]) -> Result<WalMeta, WalError> {
        let bad = |s: &str| WalError::BadMeta(s.to_string());
        if b.len() < META_SIZE {
            return Err(bad("file too short"));
        }
        if &b[0..8] != META_MAGIC {
            return Err(bad("bad magic: not a folio WAL"));
        }
        if get_u32(b, 40) != crc32c::crc32c(&b[..40]) {
            return Err(bad("checksum mismatch"));
        }
        if get_u32(b, 8) != META_VERSION {
            return Err(bad("unsupported version"));
        }
        if get_u32(b, 12) as usize != WAL_PAGE_SIZE {
            return Err(bad("unsupported WAL page size"));
        }
        let segment_size_bytes = get_u64(b, 16);
        if !segment_size_bytes.is_multiple_of(WAL_PAGE_SIZE as u64)
            || segment_size_bytes < 2 * WAL_PAGE_SIZE as u64
        {
            return Err(bad("invalid segment size"));
        }
        Ok(WalMeta {
            segment_size_bytes,
            system_id: get_u64(b, 24),
            timeline: get_u32(b, 32),
            generation: get_u32(b, 36),
        })
    }

    /// Reads `wal.meta`; `Ok(None)` when it does not exist.
    pub fn load(dir: &dyn Dir) -> Result<Option<WalMeta>, WalError> {
        let io = |op, e| WalError::io(op, META_FILE, e);
        if !dir.exists(META_FILE).map_err(|e| io("checking", e))? {
            return Ok(None);
        }
        let file = dir
            .open(META_FILE, OpenOptions::EXISTING)
            .map_err(|e| io("opening", e))?;
        let mut b = [0u8; META_SIZE];
        let len = file.len().map_err(|e| io("sizing", e))?;
        if len < META_SIZE as u64 {
            return Err(WalError::BadMeta("file too short".into()));
        }
        file.read_at(&mut b, 0).map_err(|e| io("reading", e))?;
        WalMeta::decode(&b).map(Some)
    }

    /// Makes this `wal.meta`, durably. An existing file is overwritten in
    /// place (its 44 bytes lie in one sector, which a write never tears)
    /// and fsynced, so the open that bumps the generation needs no free
    /// space; the first store creates the file through `wal.meta.tmp` and a
    /// rename, so it never exists half-written.
    pub fn store(&self, dir: &dyn Dir) -> Result<(), WalError> {
        if dir
            .exists(META_FILE)
            .map_err(|e| WalError::io("checking", META_FILE, e))?
        {
            let io = |op, e| WalError::io(op, META_FILE, e);
            let file = dir
                .open(META_FILE, OpenOptions::EXISTING)
                .map_err(|e| io("opening", e))?;
            file.write_at(&self.encode(), 0)
                .map_err(|e| io("writing", e))?;
            return file.sync().map_err(|e| io("syncing", e));
        }
        let io = |op, e| WalError::io(op, META_TMP, e);
        let file = dir
            .open(META_TMP, OpenOptions::CREATE)
            .map_err(|e| io("creating", e))?;
        file.set_len(0).map_err(|e| io("truncating", e))?;
        file.write_at(&self.encode(), 0)
            .map_err(|e| io("writing", e))?;
        file.sync().map_err(|e| io("syncing", e))?;
        dir.rename(META_TMP, META_FILE)
            .map_err(|e| io("renaming", e))?;
        dir.sync_dir()
            .map_err(|e| WalError::io("syncing directory for", META_FILE, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the meta encoding round-trips and rejects a flipped byte.
    #[test]
    fn meta_round_trip() {
        let m = WalMeta {
            generation: 3,
            ..WalMeta::new(1 << 20)
        };
        let b = m.encode();
        assert_eq!(WalMeta::decode(&b).unwrap(), m);
        for i in 0..META_SIZE {
            let mut bad = b;
            bad[i] ^= 1;
            assert!(WalMeta::decode(&bad).is_err(), "byte {i}");
        }
    }

    // Proves a later store overwrites in place: it succeeds on a full disk,
    // and a crash at any of its operations leaves the old or the new meta.
    #[test]
    fn store_in_place_needs_no_space_and_survives_crashes() {
        use folio_io::{SimConfig, SimDir};
        let old = WalMeta::new(1 << 20);
        let new = WalMeta {
            generation: 9,
            ..old
        };
        for crash_at in 0..6 {
            for seed in 0..3 {
                let dir = SimDir::new(SimConfig::seeded(seed));
                old.store(dir.as_ref()).unwrap();
                dir.set_full_at_op(dir.op_count());
                dir.set_crash_after_ops(dir.op_count() + crash_at);
                let completed = new.store(dir.as_ref()).is_ok();
                let after = dir.crash();
                let found = WalMeta::load(after.as_ref()).unwrap().unwrap();
                assert!(found == old || found == new, "crash at {crash_at}");
                if completed {
                    assert_eq!(found, new, "a completed store is durable");
                }
                if crash_at == 5 {
                    assert!(completed, "a store on a full disk completes");
                }
            }
        }
    }
}
