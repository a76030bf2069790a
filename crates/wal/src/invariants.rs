//! `Wal::check_invariants`: the positions and the segment set agree. Call
//! it when no other thread uses the WAL (tests do, after workloads, crashes
//! and recoveries); with inserts or flushes running it may report a
//! transient state.
//!
//! 1. `synced_upto <= written_upto <= reserved end` (LSNs): nothing is
//!    durable that was not written, nothing written that was not reserved.
//! 2. `synced_upto` and `written_upto` are record ends: 8-byte aligned,
//!    never inside a page header.
//! 3. No insertion is in progress: every slot is idle.
//! 4. Every page holding reserved bytes is initialized in the ring, and the
//!    unwritten bytes fit in the ring.
//! 5. The redo point is not beyond the reserved end.
//! 6. Every reserved byte lies in a segment file that exists (the disk
//!    wall, README "Disk space is claimed by the insert that needs it"),
//!    so writing what is reserved never needs a new segment.
//! 7. With a hard limit, the segment files on disk fit in it.

use crate::insert::IDLE;
use crate::record::RECORD_ALIGN;
use crate::segment::Tier;
use crate::wal_page::{WAL_PAGE_HEADER_SIZE, WAL_PAGE_PAYLOAD, WAL_PAGE_SIZE};
use crate::{Wal, lock};
use std::sync::atomic::Ordering;

impl Wal {
    /// Checks the invariants of the module comment; returns the first
    /// violation, described.
    pub fn check_invariants(&self) -> Result<(), String> {
        let s = &self.shared;
        let synced = s.synced_upto.load(Ordering::Acquire);
        let written = s.written_upto.load(Ordering::Acquire);
        let reserved = s.reserved_end().0;
        if !(synced <= written && written <= reserved) {
            return Err(format!(
                "positions out of order: synced {synced}, written {written}, reserved end {reserved}"
            ));
        }
        for (name, lsn) in [("synced", synced), ("written", written)] {
            let in_page = lsn % WAL_PAGE_SIZE as u64;
            if !lsn.is_multiple_of(RECORD_ALIGN as u64)
                || (in_page != 0 && in_page < WAL_PAGE_HEADER_SIZE as u64)
            {
                return Err(format!("{name} position {lsn} is not a record end"));
            }
        }
        if let Some(busy) = s
            .slots
            .iter()
            .position(|slot| slot.inserting_at.load(Ordering::Acquire) != IDLE)
        {
            return Err(format!("insertion slot {busy} is busy while quiescent"));
        }
        // Pages holding reserved bytes: those below the one the next
        // reservation starts in, and that one if it holds any.
        let reserved_pages = lock(&s.reserve)
            .cur_bytepos
            .div_ceil(WAL_PAGE_PAYLOAD as u64);
        let initialized = s.initialized_upto.load(Ordering::Acquire);
        if reserved_pages > initialized {
            return Err(format!(
                "reserved bytes on {reserved_pages} pages but ring pages initialized only below page {initialized}"
            ));
        }
        if reserved - written > s.ring.size_bytes() {
            return Err(format!(
                "{} unwritten bytes exceed the ring's {}",
                reserved - written,
                s.ring.size_bytes()
            ));
        }
        let redo = s.redo_lsn.load(Ordering::Acquire);
        if redo > reserved {
            return Err(format!(
                "redo point {redo} beyond the reserved end {reserved}"
            ));
        }
        let room = s.segments.space_lsn(Tier::Privileged);
        if reserved_pages > 0 && reserved > room {
            return Err(format!(
                "reserved WAL up to {reserved}, but segment files exist only up to {room}"
            ));
        }
        let on_disk = s.segments.disk_bytes();
        if on_disk > s.segments.hard_limit_bytes() {
            return Err(format!(
                "{on_disk} bytes of segment files exceed the hard limit of {}",
                s.segments.hard_limit_bytes()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{RecordBuilder, RmgrId, Wal, WalConfig};
    use folio_io::{SimConfig, SimDir};
    use std::sync::atomic::Ordering;

    fn small() -> WalConfig {
        WalConfig {
            segment_size_bytes: 8 * 8192,
            buffer_pages: 16,
            min_wal_size_bytes: 0,
            ..WalConfig::default()
        }
    }

    fn insert(wal: &Wal, n: usize) {
        for i in 0..n {
            let mut record = RecordBuilder::new(RmgrId(7), 0);
            let data = vec![i as u8; 100 + i % 700];
            record.register_data(&data).unwrap();
            wal.insert(&record).unwrap();
        }
    }

    // Proves the invariants hold through a WAL's life — created, written
    // across segments, flushed, segments retired, reopened — and that each
    // check fires on the state it guards against.
    #[test]
    fn invariants_hold_and_each_check_fires() {
        let dir = SimDir::new(SimConfig::seeded(1));
        let wal = Wal::open(dir.clone(), small()).unwrap();
        wal.check_invariants().unwrap();
        insert(&wal, 300);
        wal.check_invariants().unwrap();
        wal.flush_all().unwrap();
        wal.check_invariants().unwrap();
        let redo = wal.begin_checkpoint();
        wal.release_before(redo);
        wal.remove_old_segments().unwrap();
        wal.check_invariants().unwrap();
        drop(wal);
        let wal = Wal::open(dir, small()).unwrap();
        wal.check_invariants().unwrap();

        let s = &wal.shared;
        let synced = s.synced_upto.load(Ordering::Relaxed);
        s.synced_upto.store(synced + 4096, Ordering::Relaxed);
        assert!(wal.check_invariants().unwrap_err().contains("out of order"));
        s.synced_upto.store(synced + 4, Ordering::Relaxed);
        let err = wal.check_invariants().unwrap_err();
        assert!(
            err.contains("out of order") || err.contains("record end"),
            "{err}"
        );
        s.synced_upto.store(synced, Ordering::Relaxed);
        s.slots[3].inserting_at.store(synced, Ordering::Relaxed);
        assert!(wal.check_invariants().unwrap_err().contains("slot 3"));
        s.slots[3]
            .inserting_at
            .store(crate::insert::IDLE, Ordering::Relaxed);
        s.redo_lsn.store(u64::MAX / 2, Ordering::Relaxed);
        assert!(wal.check_invariants().unwrap_err().contains("redo point"));
        s.redo_lsn.store(0, Ordering::Relaxed);
        wal.check_invariants().unwrap();
    }
}
