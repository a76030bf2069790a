//! One simulated file's contents: a durable image plus the ordered log of
//! writes and length changes not yet made durable.
//!
//! Invariant: `current` always equals `durable` with every entry of `log`
//! applied in order ([`Inode::check_invariants`]). Reads see `current`; a
//! crash keeps `durable` plus whatever the seed lets survive from `log`.

use super::SIM_MAX_FILE_BYTES;

/// Identity of a simulated file, independent of its name (renames move the
/// name, not the file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct InodeId(pub(crate) u64);

/// One unsynced change to a file's contents.
#[derive(Clone, Debug)]
pub(crate) enum DataOp {
    Write { offset_bytes: u64, data: Vec<u8> },
    SetLen { len_bytes: u64 },
}

impl DataOp {
    /// Applies the whole change to `image`.
    pub(crate) fn apply(&self, image: &mut Vec<u8>) {
        match self {
            DataOp::Write { offset_bytes, data } => write_image(image, *offset_bytes, data),
            DataOp::SetLen { len_bytes } => image.resize(to_usize(*len_bytes), 0),
        }
    }
}

/// Converts a size or offset already checked against
/// [`SIM_MAX_FILE_BYTES`] to `usize`.
pub(crate) fn to_usize(bytes: u64) -> usize {
    assert!(
        bytes <= SIM_MAX_FILE_BYTES,
        "{bytes} bytes passed the size check unchecked"
    );
    usize::try_from(bytes).expect("SIM_MAX_FILE_BYTES fits in usize")
}

/// Copies `data` into `image` at `offset_bytes`, zero-extending the image if
/// the write ends past it.
pub(crate) fn write_image(image: &mut Vec<u8>, offset_bytes: u64, data: &[u8]) {
    let start = to_usize(offset_bytes);
    let end = start + data.len();
    assert!(
        end as u64 <= SIM_MAX_FILE_BYTES,
        "write end {end} passed the size check unchecked"
    );
    if image.len() < end {
        image.resize(end, 0);
    }
    image[start..end].copy_from_slice(data);
}

/// Fills `buf` from `image` at `offset_bytes`; bytes past the end are zeros.
pub(crate) fn read_image(image: &[u8], buf: &mut [u8], offset_bytes: u64) {
    let available = match usize::try_from(offset_bytes) {
        Ok(start) if start < image.len() => &image[start..],
        _ => &[][..],
    };
    let n = available.len().min(buf.len());
    buf[..n].copy_from_slice(&available[..n]);
    buf[n..].fill(0);
}

/// A simulated file.
#[derive(Debug, Default)]
pub(crate) struct Inode {
    /// What survives any crash.
    pub(crate) durable: Vec<u8>,
    /// What reads see: `durable` with `log` applied.
    pub(crate) current: Vec<u8>,
    /// Changes since the last successful sync, in issue order.
    pub(crate) log: Vec<DataOp>,
    /// Open handles; an unnamed file lives while any remain.
    pub(crate) handles: usize,
}

impl Inode {
    /// A file whose whole contents are durable (the state after a crash).
    pub(crate) fn from_durable(image: Vec<u8>) -> Inode {
        Inode {
            current: image.clone(),
            durable: image,
            log: Vec::new(),
            handles: 0,
        }
    }

    /// Records and applies a change.
    pub(crate) fn push(&mut self, op: DataOp) {
        op.apply(&mut self.current);
        self.log.push(op);
    }

    /// A successful sync: every logged change becomes durable. Costs the
    /// unsynced bytes, not the file size, so frequent syncs stay cheap.
    pub(crate) fn sync(&mut self) {
        for op in self.log.drain(..) {
            op.apply(&mut self.durable);
        }
        assert_eq!(
            self.durable.len(),
            self.current.len(),
            "sync left durable and current apart"
        );
    }

    /// A failed sync: the unsynced changes are dropped, as Linux may drop
    /// dirty pages after a write-back error. Reads see the durable image again.
    pub(crate) fn drop_unsynced(&mut self) {
        self.log.clear();
        self.current.clone_from(&self.durable);
    }

    /// Flips bit `bit_offset` of the durable image (media corruption). Reads
    /// see the flip unless an unsynced change covers that byte. Returns false
    /// if the bit lies past the durable image.
    pub(crate) fn corrupt_durable_bit(&mut self, bit_offset: u64) -> bool {
        let byte = bit_offset / 8;
        let Some(slot) = usize::try_from(byte)
            .ok()
            .and_then(|i| self.durable.get_mut(i))
        else {
            return false;
        };
        *slot ^= 1 << (bit_offset % 8);
        self.current.clone_from(&self.durable);
        for op in &self.log {
            op.apply(&mut self.current);
        }
        true
    }

    /// Checks the invariant that `current` is `durable` plus `log`.
    pub(crate) fn check_invariants(&self) {
        let mut replay = self.durable.clone();
        for op in &self.log {
            op.apply(&mut replay);
        }
        assert!(
            replay == self.current,
            "current image differs from durable image plus log"
        );
    }
}
