//! The control file: where recovery starts (the latest checkpoint's redo
//! point) and what the database is. One 512-byte sector, overwritten in
//! place by every checkpoint (a write of one sector is never torn, as
//! PostgreSQL assumes for `pg_control`), so a checkpoint needs no free space;
//! created once through `control.tmp` and a rename, so it never exists
//! half-written.
//!
//! Layout (little-endian):
//!
//! | offset | size | field            | meaning                                        |
//! |-------:|-----:|------------------|------------------------------------------------|
//! |      0 |    8 | magic            | `b"FOLIOCTL"`                                  |
//! |      8 |    4 | version          | [`CONTROL_VERSION`] (= 1)                      |
//! |     12 |    4 | state            | 1 shut down cleanly, 2 in production           |
//! |     16 |    8 | checkpoint_lsn   | start of the latest checkpoint record          |
//! |     24 |    8 | redo_lsn         | where recovery starts reading the WAL          |
//! |     32 |    8 | wal_system_id    | the WAL's identity (`wal.meta`), ties the two  |
//! |     40 |    8 | checkpoint_count | checkpoints completed since creation           |
//! |     48 |    8 | checkpoint_time  | Unix time of the latest checkpoint, ms         |
//! |     56 |    4 | flags            | bit 0: data checksums on                       |
//! |     60 |    4 | page_size        | 8192                                           |
//! |     64 |    4 | crc              | CRC-32C of bytes `[0, 64)`                     |
//! |     68 |  444 | reserved         | zero                                           |

use folio_io::{Dir, OpenOptions};
use folio_page::{Lsn, PAGE_SIZE};

/// The control file's name.
pub const CONTROL_FILE: &str = "control";
/// The temporary name a new version is written under.
pub const CONTROL_TEMP: &str = "control.tmp";
/// Bytes of the control file.
pub const CONTROL_SIZE: usize = 512;
/// The layout version this code reads and writes.
pub const CONTROL_VERSION: u32 = 1;

const MAGIC: [u8; 8] = *b"FOLIOCTL";
const CRC_AT: usize = 64;
const FLAG_CHECKSUMS: u32 = 1;

const _: () = assert!(CRC_AT + 4 <= CONTROL_SIZE);
const _: () = assert!(CONTROL_SIZE == folio_io::SECTOR_SIZE_BYTES as usize);

/// Whether the database was shut down cleanly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbState {
    /// `close` finished with a checkpoint: nothing after it to replay.
    ShutDown,
    /// Open (or crashed while open): recovery replays from the redo point.
    InProduction,
}

impl DbState {
    fn code(self) -> u32 {
        match self {
            DbState::ShutDown => 1,
            DbState::InProduction => 2,
        }
    }

    fn from_code(code: u32) -> Option<DbState> {
        match code {
            1 => Some(DbState::ShutDown),
            2 => Some(DbState::InProduction),
            _ => None,
        }
    }
}

/// The contents of the control file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlData {
    pub state: DbState,
    pub checkpoint_lsn: Lsn,
    pub redo_lsn: Lsn,
    pub wal_system_id: u64,
    pub checkpoint_count: u64,
    pub checkpoint_time_ms: u64,
    pub checksums: bool,
}

/// The control file cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    #[error("control file missing: {0} is not a folio database directory (no `{CONTROL_FILE}`)")]
    Missing(String),
    #[error("control file damaged: {reason}; the database cannot be opened safely")]
    Damaged { reason: String },
    #[error("control file I/O error while {op}: {source}")]
    Io {
        op: &'static str,
        source: std::io::Error,
    },
}

impl ControlData {
    /// Encodes the control file image.
    pub fn encode(&self) -> [u8; CONTROL_SIZE] {
        let mut out = [0u8; CONTROL_SIZE];
        out[0..8].copy_from_slice(&MAGIC);
        out[8..12].copy_from_slice(&CONTROL_VERSION.to_le_bytes());
        out[12..16].copy_from_slice(&self.state.code().to_le_bytes());
        out[16..24].copy_from_slice(&self.checkpoint_lsn.0.to_le_bytes());
        out[24..32].copy_from_slice(&self.redo_lsn.0.to_le_bytes());
        out[32..40].copy_from_slice(&self.wal_system_id.to_le_bytes());
        out[40..48].copy_from_slice(&self.checkpoint_count.to_le_bytes());
        out[48..56].copy_from_slice(&self.checkpoint_time_ms.to_le_bytes());
        let flags = if self.checksums { FLAG_CHECKSUMS } else { 0 };
        out[56..60].copy_from_slice(&flags.to_le_bytes());
        out[60..64].copy_from_slice(&(PAGE_SIZE as u32).to_le_bytes());
        let crc = crc32c::crc32c(&out[..CRC_AT]);
        out[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
        out
    }

    /// Decodes a control file image; every defect is a `Damaged` error.
    pub fn decode(bytes: &[u8]) -> Result<ControlData, ControlError> {
        let damaged = |reason: String| ControlError::Damaged { reason };
        if bytes.len() != CONTROL_SIZE {
            return Err(damaged(format!(
                "{} bytes, expected {CONTROL_SIZE}",
                bytes.len()
            )));
        }
        let u32_at = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let u64_at = |at: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(b)
        };
        if bytes[0..8] != MAGIC {
            return Err(damaged("bad magic".into()));
        }
        let stored = u32_at(CRC_AT);
        let computed = crc32c::crc32c(&bytes[..CRC_AT]);
        if stored != computed {
            return Err(damaged(format!(
                "CRC mismatch (stored {stored:#010x}, computed {computed:#010x})"
            )));
        }
        let version = u32_at(8);
        if version != CONTROL_VERSION {
            return Err(damaged(format!(
                "version {version}, this build reads {CONTROL_VERSION}"
            )));
        }
        let state = DbState::from_code(u32_at(12))
            .ok_or_else(|| damaged(format!("unknown state {}", u32_at(12))))?;
        let flags = u32_at(56);
        if flags & !FLAG_CHECKSUMS != 0 {
            return Err(damaged(format!("unknown flags {flags:#x}")));
        }
        let page_size = u32_at(60);
        if page_size as usize != PAGE_SIZE {
            return Err(damaged(format!(
                "page size {page_size}, this build uses {PAGE_SIZE}"
            )));
        }
        let data = ControlData {
            state,
            checkpoint_lsn: Lsn(u64_at(16)),
            redo_lsn: Lsn(u64_at(24)),
            wal_system_id: u64_at(32),
            checkpoint_count: u64_at(40),
            checkpoint_time_ms: u64_at(48),
            checksums: flags & FLAG_CHECKSUMS != 0,
        };
        if data.redo_lsn > data.checkpoint_lsn {
            return Err(damaged(format!(
                "redo point {} after the checkpoint record {}",
                data.redo_lsn, data.checkpoint_lsn
            )));
        }
        Ok(data)
    }

    /// Reads the control file of `dir`. `Missing` when there is none.
    pub fn load(dir: &dyn Dir) -> Result<ControlData, ControlError> {
        let io = |op| move |source| ControlError::Io { op, source };
        if !dir.exists(CONTROL_FILE).map_err(io("looking for"))? {
            return Err(ControlError::Missing(dir.location()));
        }
        let file = dir
            .open(CONTROL_FILE, OpenOptions::EXISTING)
            .map_err(io("opening"))?;
        let len = file.len().map_err(io("sizing"))?;
        if len != CONTROL_SIZE as u64 {
            return Err(ControlError::Damaged {
                reason: format!("{len} bytes, expected {CONTROL_SIZE}"),
            });
        }
        let mut bytes = [0u8; CONTROL_SIZE];
        file.read_at(&mut bytes, 0).map_err(io("reading"))?;
        ControlData::decode(&bytes)
    }

    /// Makes this the control file, durably. An existing control file is
    /// overwritten in place (one sector, then fsync), so a checkpoint never
    /// needs free space: a rename-based replacement would need a new file.
    /// A sector write is never torn (the device contract folio assumes, as
    /// PostgreSQL does for `pg_control`), so a crash leaves the old or the
    /// new contents. The first store creates the file through
    /// [`CONTROL_TEMP`] (write, fsync, rename, fsync the directory), so a
    /// control file never exists half-written.
    pub fn store(&self, dir: &dyn Dir) -> Result<(), ControlError> {
        let io = |op| move |source| ControlError::Io { op, source };
        if dir.exists(CONTROL_FILE).map_err(io("looking for"))? {
            let file = dir
                .open(CONTROL_FILE, OpenOptions::EXISTING)
                .map_err(io("opening"))?;
            file.write_at(&self.encode(), 0).map_err(io("writing"))?;
            return file.sync().map_err(io("syncing"));
        }
        if dir.exists(CONTROL_TEMP).map_err(io("looking for"))? {
            dir.remove(CONTROL_TEMP)
                .map_err(io("removing the old temporary"))?;
        }
        let file = dir
            .open(CONTROL_TEMP, OpenOptions::CREATE_NEW)
            .map_err(io("creating"))?;
        file.write_at(&self.encode(), 0).map_err(io("writing"))?;
        file.sync().map_err(io("syncing"))?;
        drop(file);
        dir.rename(CONTROL_TEMP, CONTROL_FILE)
            .map_err(io("renaming"))?;
        dir.sync_dir().map_err(io("syncing the directory"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use folio_io::{SimConfig, SimDir};

    fn sample() -> ControlData {
        ControlData {
            state: DbState::InProduction,
            checkpoint_lsn: Lsn(9000),
            redo_lsn: Lsn(8000),
            wal_system_id: 77,
            checkpoint_count: 3,
            checkpoint_time_ms: 123,
            checksums: true,
        }
    }

    // Proves the encoding round-trips and that every single-bit flip of
    // the image is detected as damage (never a panic, never wrong data).
    #[test]
    fn round_trip_and_every_bit_flip_is_detected() {
        let data = sample();
        let image = data.encode();
        assert_eq!(ControlData::decode(&image).unwrap(), data);
        for bit in 0..CONTROL_SIZE * 8 {
            let mut bad = image;
            bad[bit / 8] ^= 1 << (bit % 8);
            if bit / 8 >= CRC_AT + 4 {
                continue; // reserved bytes are not covered (and not read)
            }
            assert!(ControlData::decode(&bad).is_err(), "bit {bit}");
        }
        assert!(ControlData::decode(&image[..100]).is_err());
    }

    // Proves the atomic replacement: after a crash at any operation of a
    // store (in place, one sector), the control file is the old or the new
    // version, never damaged; and on a full disk a store still succeeds.
    #[test]
    fn store_is_atomic_across_crashes() {
        let old = sample();
        let mut new = sample();
        new.checkpoint_lsn = Lsn(20_000);
        new.redo_lsn = Lsn(19_000);
        for crash_at in 0..12 {
            for seed in 0..4 {
                let dir = SimDir::new(SimConfig::seeded(seed));
                old.store(dir.as_ref()).unwrap();
                dir.set_crash_after_ops(dir.op_count() + crash_at);
                let completed = new.store(dir.as_ref()).is_ok();
                let after = dir.crash();
                let found = ControlData::load(after.as_ref()).unwrap();
                assert!(found == old || found == new, "crash at {crash_at}");
                if completed {
                    assert_eq!(found, new, "a completed store is durable");
                }
            }
        }
        let full = SimDir::new(SimConfig::seeded(9));
        old.store(full.as_ref()).unwrap();
        full.set_full_at_op(full.op_count());
        new.store(full.as_ref())
            .expect("a checkpoint's store needs no space");
        assert_eq!(ControlData::load(full.as_ref()).unwrap(), new);
        let empty = SimDir::new(SimConfig::seeded(1));
        assert!(matches!(
            ControlData::load(empty.as_ref()),
            Err(ControlError::Missing(_))
        ));
    }
}
