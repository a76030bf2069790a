//! The simulated device's state and its operations: admission (operation
//! counting, the crash point, planned faults), then the effect on files and
//! names. One mutex guards a whole `Device`, so operations are atomic and
//! run one at a time, in the order the callers' threads reach the lock.

use super::faults::{Corruption, Fault, PendingFaults};
use super::inode::{DataOp, Inode, InodeId, read_image};
use super::namespace::Namespace;
use super::{OpKind, SIM_MAX_FILE_BYTES, SimConfig};
use crate::{OpenMode, OpenOptions};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustix::io::Errno;
use std::collections::BTreeMap;
use std::io;

/// The error every operation gets once the power is gone.
pub(crate) fn power_lost() -> io::Error {
    io::Error::from(Errno::IO)
}

/// How the device answers an operation before running it.
enum Admission {
    /// Run it, applying the corruption if one was planned.
    Proceed(Option<Corruption>),
    /// A planned EIO or ENOSPC: fail without effect (except the sync rule).
    Injected(io::Error),
    /// Past the crash point, or the directory has crashed: fail without effect.
    PowerLost,
}

/// Everything one simulated directory holds.
#[derive(Debug)]
pub(crate) struct Device {
    /// The single source of every random choice.
    pub(crate) rng: ChaCha8Rng,
    faults: PendingFaults,
    /// Operation index at which the power fails, if set.
    crash_after_ops: Option<u64>,
    /// An operation reached the crash point: everything fails from now on.
    power_lost: bool,
    /// `crash()` was called: this device is gone; its successor holds the data.
    pub(crate) crashed: bool,
    pub(crate) capacity_bytes: Option<u64>,
    /// Operation index at which the disk fills: the capacity becomes what
    /// is stored at that moment (see [`crate::SimDir::set_full_at_op`]).
    full_at_op: Option<u64>,
    /// Operations issued, including failed ones.
    op_count: u64,
    /// Operations issued per kind, indexed by [`OpKind::index`].
    kind_counts: [u64; OpKind::ALL.len()],
    pub(crate) names: Namespace,
    pub(crate) inodes: BTreeMap<InodeId, Inode>,
    pub(crate) next_inode: u64,
}

impl Device {
    pub(crate) fn new(config: &SimConfig) -> Device {
        Device::recovered(
            ChaCha8Rng::seed_from_u64(config.seed),
            PendingFaults::from_plan(&config.plan),
            Namespace::default(),
            BTreeMap::new(),
            0,
            None,
        )
    }

    /// A device holding the given durable state, fresh counters and no crash point.
    pub(crate) fn recovered(
        rng: ChaCha8Rng,
        faults: PendingFaults,
        names: Namespace,
        inodes: BTreeMap<InodeId, Inode>,
        next_inode: u64,
        capacity_bytes: Option<u64>,
    ) -> Device {
        Device {
            rng,
            faults,
            crash_after_ops: None,
            full_at_op: None,
            power_lost: false,
            crashed: false,
            capacity_bytes,
            op_count: 0,
            kind_counts: [0; OpKind::ALL.len()],
            names,
            inodes,
            next_inode,
        }
    }

    // ---- admission -------------------------------------------------------

    /// Counts the operation and decides its fate.
    fn admit(&mut self, kind: OpKind) -> Admission {
        let index = self.op_count;
        self.op_count += 1;
        let nth = self.kind_counts[kind.index()];
        self.kind_counts[kind.index()] += 1;
        if self.crash_after_ops.is_some_and(|n| index >= n) {
            self.power_lost = true;
        }
        if self.full_at_op == Some(index) {
            let stored = self.stored_bytes();
            self.capacity_bytes = Some(self.capacity_bytes.map_or(stored, |c| c.min(stored)));
        }
        if self.crashed || self.power_lost {
            return Admission::PowerLost;
        }
        match self.faults.take(kind, nth) {
            None => Admission::Proceed(None),
            Some(Fault::Eio) => Admission::Injected(io::Error::from(Errno::IO)),
            Some(Fault::Enospc) => Admission::Injected(io::Error::from(Errno::NOSPC)),
            Some(Fault::FlipBit) => Admission::Proceed(Some(Corruption::FlipBit)),
            Some(Fault::Misdirect { delta_bytes }) => {
                Admission::Proceed(Some(Corruption::Misdirect { delta_bytes }))
            }
        }
    }

    /// [`Device::admit`] for operations where every failure is just an error.
    fn admit_plain(&mut self, kind: OpKind) -> io::Result<Option<Corruption>> {
        match self.admit(kind) {
            Admission::Proceed(corruption) => Ok(corruption),
            Admission::Injected(error) => Err(error),
            Admission::PowerLost => Err(power_lost()),
        }
    }

    /// Queries (`len`, `exists`, `list`) are not counted but still need power.
    fn check_powered(&self) -> io::Result<()> {
        if self.crashed || self.power_lost {
            Err(power_lost())
        } else {
            Ok(())
        }
    }

    pub(crate) fn set_crash_after_ops(&mut self, n: u64) {
        self.crash_after_ops = Some(n);
    }

    pub(crate) fn set_full_at_op(&mut self, n: u64) {
        self.full_at_op = Some(n);
    }

    pub(crate) fn op_count(&self) -> u64 {
        self.op_count
    }

    pub(crate) fn ops_of_kind(&self, kind: OpKind) -> u64 {
        self.kind_counts[kind.index()]
    }

    pub(crate) fn add_fault(&mut self, nth: u64, kind: OpKind, fault: Fault) {
        self.faults.add(nth, kind, fault);
    }

    // ---- space -----------------------------------------------------------

    /// Bytes held by live files: those with a current name or an open handle.
    pub(crate) fn stored_bytes(&self) -> u64 {
        self.inodes
            .iter()
            .filter(|(ino, inode)| inode.handles > 0 || self.names.names_now(**ino))
            .map(|(_, inode)| inode.current.len() as u64)
            .sum()
    }

    /// Fails with ENOSPC if growing by `growth_bytes` would pass the capacity.
    fn reserve(&self, growth_bytes: u64) -> io::Result<()> {
        match self.capacity_bytes {
            Some(capacity) if growth_bytes > 0 && self.stored_bytes() + growth_bytes > capacity => {
                Err(io::Error::from(Errno::NOSPC))
            }
            _ => Ok(()),
        }
    }

    fn inode(&self, ino: InodeId) -> &Inode {
        self.inodes
            .get(&ino)
            .expect("an open handle keeps its file alive")
    }

    fn inode_mut(&mut self, ino: InodeId) -> &mut Inode {
        self.inodes
            .get_mut(&ino)
            .expect("an open handle keeps its file alive")
    }

    /// Drops `ino` once nothing can reach it: no handle and no name in any
    /// state a crash could produce.
    fn collect(&mut self, ino: InodeId) {
        let unreachable = self
            .inodes
            .get(&ino)
            .is_some_and(|inode| inode.handles == 0)
            && !self.names.may_name(ino);
        if unreachable {
            self.inodes.remove(&ino);
        }
    }

    fn collect_all(&mut self) {
        let ids: Vec<InodeId> = self.inodes.keys().copied().collect();
        for ino in ids {
            self.collect(ino);
        }
    }

    // ---- directory operations ---------------------------------------------

    /// Opens `name` (already validated) and registers a handle on it.
    pub(crate) fn open(&mut self, name: &str, options: OpenOptions) -> io::Result<InodeId> {
        self.admit_plain(OpKind::Open)?;
        let ino = match (self.names.lookup(name), options.mode) {
            (Some(_), OpenMode::CreateNew) => return Err(io::Error::from(Errno::EXIST)),
            (Some(ino), _) => ino,
            (None, OpenMode::Existing) => return Err(io::Error::from(Errno::NOENT)),
            (None, OpenMode::CreateOrOpen | OpenMode::CreateNew) => {
                let ino = InodeId(self.next_inode);
                self.next_inode += 1;
                self.inodes.insert(ino, Inode::default());
                self.names.create(name, ino);
                ino
            }
        };
        self.inode_mut(ino).handles += 1;
        Ok(ino)
    }

    /// Forgets one handle (its `SimFile` was dropped).
    pub(crate) fn release(&mut self, ino: InodeId) {
        if let Some(inode) = self.inodes.get_mut(&ino) {
            assert!(inode.handles > 0, "handle released twice");
            inode.handles -= 1;
            self.collect(ino);
        }
    }

    pub(crate) fn remove(&mut self, name: &str) -> io::Result<()> {
        self.admit_plain(OpKind::Remove)?;
        let ino = self
            .names
            .remove(name)
            .ok_or_else(|| io::Error::from(Errno::NOENT))?;
        self.collect(ino);
        Ok(())
    }

    pub(crate) fn rename(&mut self, from: &str, to: &str) -> io::Result<()> {
        self.admit_plain(OpKind::Rename)?;
        let replaced = self
            .names
            .rename(from, to)
            .ok_or_else(|| io::Error::from(Errno::NOENT))?;
        if let Some(ino) = replaced {
            self.collect(ino);
        }
        Ok(())
    }

    pub(crate) fn exists(&self, name: &str) -> io::Result<bool> {
        self.check_powered()?;
        Ok(self.names.lookup(name).is_some())
    }

    pub(crate) fn list(&self) -> io::Result<Vec<String>> {
        self.check_powered()?;
        Ok(self.names.names())
    }

    pub(crate) fn sync_dir(&mut self) -> io::Result<()> {
        match self.admit(OpKind::SyncDir) {
            Admission::PowerLost => Err(power_lost()),
            Admission::Injected(error) => {
                self.names.drop_unsynced();
                self.collect_all();
                Err(error)
            }
            Admission::Proceed(_) => {
                self.names.sync();
                self.collect_all();
                Ok(())
            }
        }
    }

    // ---- file operations --------------------------------------------------

    pub(crate) fn read(
        &mut self,
        ino: InodeId,
        buf: &mut [u8],
        offset_bytes: u64,
    ) -> io::Result<()> {
        let corruption = self.admit_plain(OpKind::Read)?;
        let offset_bytes = shifted(offset_bytes, corruption);
        read_image(&self.inode(ino).current, buf, offset_bytes);
        if corruption == Some(Corruption::FlipBit) {
            flip_random_bit(&mut self.rng, buf);
        }
        Ok(())
    }

    pub(crate) fn write(&mut self, ino: InodeId, buf: &[u8], offset_bytes: u64) -> io::Result<()> {
        let corruption = self.admit_plain(OpKind::Write)?;
        let offset_bytes = shifted(offset_bytes, corruption);
        let mut data = buf.to_vec();
        if corruption == Some(Corruption::FlipBit) {
            flip_random_bit(&mut self.rng, &mut data);
        }
        if data.is_empty() {
            return Ok(());
        }
        let end_bytes = checked_end(offset_bytes, data.len() as u64)?;
        let len_bytes = self.inode(ino).current.len() as u64;
        self.reserve(end_bytes.saturating_sub(len_bytes))?;
        self.inode_mut(ino)
            .push(DataOp::Write { offset_bytes, data });
        Ok(())
    }

    pub(crate) fn set_len(&mut self, ino: InodeId, len_bytes: u64) -> io::Result<()> {
        self.admit_plain(OpKind::SetLen)?;
        checked_end(len_bytes, 0)?;
        let current_bytes = self.inode(ino).current.len() as u64;
        self.reserve(len_bytes.saturating_sub(current_bytes))?;
        self.inode_mut(ino).push(DataOp::SetLen { len_bytes });
        Ok(())
    }

    pub(crate) fn len(&self, ino: InodeId) -> io::Result<u64> {
        self.check_powered()?;
        Ok(self.inode(ino).current.len() as u64)
    }

    pub(crate) fn sync(&mut self, ino: InodeId) -> io::Result<()> {
        match self.admit(OpKind::Sync) {
            Admission::PowerLost => Err(power_lost()),
            Admission::Injected(error) => {
                self.inode_mut(ino).drop_unsynced();
                Err(error)
            }
            Admission::Proceed(_) => {
                self.inode_mut(ino).sync();
                Ok(())
            }
        }
    }

    /// Checks every structural invariant of the device.
    pub(crate) fn check_invariants(&self) {
        self.names.check_invariants();
        for (ino, inode) in &self.inodes {
            assert!(ino.0 < self.next_inode, "inode {ino:?} from the future");
            inode.check_invariants();
        }
        for name in self.names.names() {
            let ino = self.names.lookup(&name).expect("listed name resolves");
            assert!(
                self.inodes.contains_key(&ino),
                "name {name:?} points at a dropped file"
            );
        }
    }
}

/// Applies a misdirection to an offset (clamped to the `u64` range).
fn shifted(offset_bytes: u64, corruption: Option<Corruption>) -> u64 {
    match corruption {
        Some(Corruption::Misdirect { delta_bytes }) => {
            offset_bytes.saturating_add_signed(delta_bytes)
        }
        _ => offset_bytes,
    }
}

/// `offset + len`, or EFBIG if the result would pass [`SIM_MAX_FILE_BYTES`].
fn checked_end(offset_bytes: u64, len_bytes: u64) -> io::Result<u64> {
    match offset_bytes.checked_add(len_bytes) {
        Some(end) if end <= SIM_MAX_FILE_BYTES => Ok(end),
        _ => Err(io::Error::from(Errno::FBIG)),
    }
}

/// Flips one bit of `data`, chosen by `rng`; nothing to flip in an empty buffer.
fn flip_random_bit(rng: &mut ChaCha8Rng, data: &mut [u8]) {
    if data.is_empty() {
        return;
    }
    let bit = rng.gen_range(0..data.len() * 8);
    data[bit / 8] ^= 1 << (bit % 8);
}
