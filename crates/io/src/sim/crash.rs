//! What a power failure does to the simulated device, and what the death
//! of the process using it does (`kill`: nothing to the data).
//!
//! Every unsynced change gets an outcome drawn from the device's seeded RNG,
//! independently of the others:
//!
//! - a write is **lost**, **applied whole**, or **torn**: each of its
//!   512-byte sector pieces (the write's bytes within one aligned sector of
//!   the file) is applied or not, at random;
//! - a length change is lost or applied.
//!
//! Surviving changes are applied to the durable image in issue order. Because
//! outcomes are independent, a later write can survive while an earlier one
//! is lost: the device reorders. Unsynced directory operations survive as a
//! seeded prefix of their log. Files no surviving name reaches are gone.
//! Draws happen in a fixed order (directory first, then files by identity,
//! each file's log in order), so one seed always yields one outcome.

use super::SECTOR_SIZE_BYTES;
use super::device::Device;
use super::faults::PendingFaults;
use super::inode::{DataOp, Inode, write_image};
use super::namespace::Namespace;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// The fate of one unsynced write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WriteOutcome {
    Lost,
    Whole,
    Torn,
}

impl Device {
    /// Cuts the power: returns the device as it comes back, and leaves this
    /// one crashed (every later operation fails with EIO). The successor keeps
    /// the capacity limit and continues this device's random stream; it has
    /// no planned faults, no crash point and fresh operation counters.
    pub(crate) fn crash(&mut self) -> Device {
        assert!(
            !self.crashed,
            "crash() called twice on one SimDir; crash its successor instead"
        );
        self.crashed = true;
        let mut rng = self.rng.clone();
        let names = self.names.crash_survivor(&mut rng);
        let mut inodes = BTreeMap::new();
        for (ino, inode) in &self.inodes {
            let image = crash_image(inode, &mut rng);
            if names.values().any(|named| named == ino) {
                inodes.insert(*ino, Inode::from_durable(image));
            }
        }
        // The crashed device keeps no data: its handles can only fail now.
        self.inodes.clear();
        self.names = Namespace::default();
        let successor = Device::recovered(
            rng,
            PendingFaults::default(),
            Namespace::from_durable(names),
            inodes,
            self.next_inode,
            self.capacity_bytes,
        );
        successor.check_invariants();
        successor
    }
}

impl Device {
    /// Kills the process using the device, not the machine: returns the
    /// device as the next process finds it, and leaves this one crashed (its
    /// handles fail with EIO). Every name and byte is exactly as the dead
    /// process left it, and what was unsynced is still unsynced: the
    /// operating system still holds it, and a later power failure of the
    /// successor can still lose it. Files that only the dead process held
    /// open are gone. The successor continues the random stream; it has no
    /// planned faults, no crash point and fresh operation counters.
    pub(crate) fn kill(&mut self) -> Device {
        assert!(
            !self.crashed,
            "kill() or crash() called twice on one SimDir; use its successor"
        );
        self.crashed = true;
        let names = std::mem::take(&mut self.names);
        let mut inodes = std::mem::take(&mut self.inodes);
        inodes.retain(|ino, _| names.may_name(*ino));
        for inode in inodes.values_mut() {
            inode.handles = 0;
        }
        let successor = Device::recovered(
            self.rng.clone(),
            PendingFaults::default(),
            names,
            inodes,
            self.next_inode,
            self.capacity_bytes,
        );
        successor.check_invariants();
        successor
    }
}

/// The file's durable image plus the changes the seed lets survive.
fn crash_image(inode: &Inode, rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut image = inode.durable.clone();
    for op in &inode.log {
        match op {
            DataOp::SetLen { .. } => {
                if rng.gen_bool(0.5) {
                    op.apply(&mut image);
                }
            }
            DataOp::Write { offset_bytes, data } => {
                let outcome = match rng.gen_range(0..3) {
                    0 => WriteOutcome::Lost,
                    1 => WriteOutcome::Whole,
                    _ => WriteOutcome::Torn,
                };
                match outcome {
                    WriteOutcome::Lost => {}
                    WriteOutcome::Whole => op.apply(&mut image),
                    WriteOutcome::Torn => {
                        for (start, end) in sector_pieces(*offset_bytes, data.len()) {
                            if rng.gen_bool(0.5) {
                                write_image(
                                    &mut image,
                                    offset_bytes + start as u64,
                                    &data[start..end],
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    image
}

/// Splits a write of `len` bytes at `offset_bytes` at the file's 512-byte
/// sector boundaries; yields `(start, end)` ranges into the write's data.
fn sector_pieces(offset_bytes: u64, len: usize) -> impl Iterator<Item = (usize, usize)> {
    let mut start = 0usize;
    std::iter::from_fn(move || {
        if start >= len {
            return None;
        }
        let position = offset_bytes + start as u64;
        let to_boundary = SECTOR_SIZE_BYTES - position % SECTOR_SIZE_BYTES;
        let end = len.min(start + to_boundary as usize);
        let piece = (start, end);
        start = end;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::sector_pieces;

    // Proves pieces tile the write exactly and break only at absolute
    // multiples of 512 bytes, for aligned and unaligned writes.
    #[test]
    fn sector_pieces_break_at_absolute_sector_boundaries() {
        let pieces: Vec<_> = sector_pieces(0, 1024).collect();
        assert_eq!(pieces, vec![(0, 512), (512, 1024)]);
        let pieces: Vec<_> = sector_pieces(500, 600).collect();
        assert_eq!(pieces, vec![(0, 12), (12, 524), (524, 600)]);
        let pieces: Vec<_> = sector_pieces(512, 1).collect();
        assert_eq!(pieces, vec![(0, 1)]);
        assert_eq!(sector_pieces(7, 0).count(), 0);
    }
}
