//! The simulated device: a seeded, deterministic in-memory directory that can
//! crash (dropping, tearing or reordering unsynced writes), flip bits,
//! misdirect writes and fail chosen operations with EIO or ENOSPC.
//!
//! Layout: [`faults`] (the catalogue and plan), [`inode`] (a file's durable
//! image and unsynced log), [`namespace`] (names and the directory log),
//! [`device`] (admission and the operations), [`crash`] (power failure).
//! The model is described in the crate's `README.md`.

mod crash;
mod device;
mod faults;
mod inode;
mod namespace;

pub use faults::{Fault, FaultPlan, OpKind};

use crate::{Dir, File, OpenOptions, validate_name};
use device::Device;
use inode::InodeId;
use std::io;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The unit a crash tears writes at: each aligned 512-byte sector of a file
/// is written all or nothing.
pub const SECTOR_SIZE_BYTES: u64 = 512;

/// Largest simulated file. Writes or `set_len` past it fail with EFBIG
/// instead of trying to allocate the memory.
pub const SIM_MAX_FILE_BYTES: u64 = 1 << 30;

const _: () = assert!(SIM_MAX_FILE_BYTES.is_multiple_of(SECTOR_SIZE_BYTES));
const _: () = assert!(SIM_MAX_FILE_BYTES <= usize::MAX as u64);

/// Configuration of a simulated directory.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Seed for every random choice (crash outcomes, torn boundaries, bit positions).
    pub seed: u64,
    /// Planned faults.
    pub plan: FaultPlan,
}

impl SimConfig {
    /// A configuration with `seed` and no planned faults.
    pub fn seeded(seed: u64) -> SimConfig {
        SimConfig {
            seed,
            plan: FaultPlan::default(),
        }
    }
}

/// A simulated directory.
///
/// Deterministic: the same seed and the same sequence of operations give the
/// same results, the same faults and the same post-crash images. (Threads
/// that race for the device make the sequence itself nondeterministic; crash
/// tests that must replay drive it from one thread.)
pub struct SimDir {
    device: Arc<Mutex<Device>>,
}

impl std::fmt::Debug for SimDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let device = lock(&self.device);
        f.debug_struct("SimDir")
            .field("op_count", &device.op_count())
            .field("files", &device.names.names())
            .field("crashed", &device.crashed)
            .finish()
    }
}

/// Locks the device. A poisoned lock only follows a failed assertion inside
/// the simulator, which already fails the test; carrying on lets handles drop
/// cleanly during the unwind instead of aborting.
fn lock(device: &Mutex<Device>) -> MutexGuard<'_, Device> {
    device.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SimDir {
    /// A new, empty simulated directory. Panics if the plan is malformed (a
    /// data corruption planned for a non-data operation, or two faults for one
    /// operation): the plan is test code, not input.
    pub fn new(config: SimConfig) -> Arc<SimDir> {
        Arc::new(SimDir {
            device: Arc::new(Mutex::new(Device::new(&config))),
        })
    }

    /// Simulates power loss. Returns the directory as it comes back: synced
    /// data and names intact, each unsynced write lost, applied or torn at
    /// 512-byte sectors, a prefix of the unsynced directory operations kept,
    /// all chosen by the seed stream (which the new directory continues).
    ///
    /// `self` is left crashed: it and every file opened through it fail all
    /// later operations with EIO, as a dead machine would. The successor keeps
    /// the capacity limit but has no planned faults, no crash point and fresh
    /// operation counters. Panics if called twice on the same directory.
    pub fn crash(&self) -> Arc<SimDir> {
        let successor = lock(&self.device).crash();
        Arc::new(SimDir {
            device: Arc::new(Mutex::new(successor)),
        })
    }

    /// Simulates the death of the process (`kill -9`, an abort), not of the
    /// machine. Returns the directory as the next process finds it: every
    /// name and byte as the dead process left them, unsynced changes still
    /// unsynced (a later [`SimDir::crash`] of the successor can lose them),
    /// files that only the dead process held open gone. With a crash point
    /// set, the process died at that operation. `self` is left crashed, as
    /// with `crash`. Panics if called twice on the same directory.
    pub fn kill(&self) -> Arc<SimDir> {
        let successor = lock(&self.device).kill();
        Arc::new(SimDir {
            device: Arc::new(Mutex::new(successor)),
        })
    }

    /// Sets the crash point: operation number `n` (counting every counted
    /// operation from 0, see [`SimDir::op_count`]) and all later ones fail
    /// with EIO and have no effect, as if the power failed just before it.
    /// Uncounted queries (`len`, `exists`, `list`) fail too once an operation
    /// has hit the crash point. Call [`SimDir::crash`] to see what survived.
    pub fn set_crash_after_ops(&self, n: u64) {
        lock(&self.device).set_crash_after_ops(n);
    }

    /// How many operations have been issued, failed ones included. Counted
    /// operations are those of [`OpKind`]: reads, writes, syncs, `set_len`,
    /// opens, removes, renames and `sync_dir`. A workload run with
    /// `set_crash_after_ops(n)` ran to completion iff `op_count() <= n`.
    pub fn op_count(&self) -> u64 {
        lock(&self.device).op_count()
    }

    /// How many operations of `kind` have been issued (the next one is
    /// number `ops_of_kind(kind)` in a [`FaultPlan`]).
    pub fn ops_of_kind(&self, kind: OpKind) -> u64 {
        lock(&self.device).ops_of_kind(kind)
    }

    /// Plans `fault` for the `nth` operation of `kind`, as a [`FaultPlan`]
    /// entry would. Panics on a malformed fault, like [`SimDir::new`].
    pub fn add_fault(&self, nth: u64, kind: OpKind, fault: Fault) {
        lock(&self.device).add_fault(nth, kind, fault);
    }

    /// Limits the bytes stored in live files (those with a name or an open
    /// handle). A write or `set_len` that would grow the total past the limit
    /// fails with ENOSPC and has no effect; shrinking is always allowed.
    /// `None` removes the limit. Lowering it below the current total makes
    /// only growth fail.
    pub fn set_capacity_bytes(&self, capacity_bytes: Option<u64>) {
        lock(&self.device).capacity_bytes = capacity_bytes;
    }

    /// Fills the disk at operation number `n` (counted as for
    /// [`SimDir::set_crash_after_ops`]): just before it runs, the capacity
    /// limit becomes the bytes stored then (or stays lower), so that
    /// operation and every later one that needs new space fail with ENOSPC,
    /// while overwrites, shrinking and renames still work — a full disk, as
    /// a filesystem that overwrites in place has one. The successor of a
    /// `crash` or `kill` keeps the limit.
    pub fn set_full_at_op(&self, n: u64) {
        lock(&self.device).set_full_at_op(n);
    }

    /// Bytes currently stored in live files (what the capacity limit counts).
    pub fn stored_bytes(&self) -> u64 {
        lock(&self.device).stored_bytes()
    }

    /// Flips bit `bit_offset` (bit `k % 8` of byte `k / 8`) of the durable
    /// image of the file now named `name`, as media corruption would. Reads
    /// see the flip unless an unsynced write covers that byte. Not counted as
    /// an operation. `NotFound` if there is no such file, `InvalidInput` if
    /// the bit lies past the durable image.
    pub fn corrupt_bit(&self, name: &str, bit_offset: u64) -> io::Result<()> {
        validate_name(name)?;
        let mut device = lock(&self.device);
        let ino = inspected(&device, name)?;
        let inode = device.inodes.get_mut(&ino).expect("a named file exists");
        if inode.corrupt_durable_bit(bit_offset) {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("bit {bit_offset} lies past the durable image of {name:?}"),
            ))
        }
    }

    /// The durable image of the file now named `name`: its contents after a
    /// crash, if its name survives. Not counted as an operation.
    pub fn read_durable(&self, name: &str) -> io::Result<Vec<u8>> {
        validate_name(name)?;
        let device = lock(&self.device);
        let ino = inspected(&device, name)?;
        Ok(device.inodes[&ino].durable.clone())
    }

    /// Checks every invariant of the simulated device; panics on a breach.
    pub fn check_invariants(&self) {
        lock(&self.device).check_invariants();
    }
}

/// Resolves `name` for the inspection helpers, which work even past the crash
/// point (they look at the medium, not through the dead machine) but not on a
/// directory that has been crashed (its data moved to the successor).
fn inspected(device: &Device, name: &str) -> io::Result<InodeId> {
    if device.crashed {
        return Err(io::Error::other(
            "this SimDir has crashed; inspect the directory crash() returned",
        ));
    }
    device.names.lookup(name).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!("no simulated file named {name:?}"),
        )
    })
}

impl Dir for SimDir {
    fn open(&self, name: &str, options: OpenOptions) -> io::Result<Arc<dyn File>> {
        validate_name(name)?;
        let ino = lock(&self.device).open(name, options)?;
        Ok(Arc::new(SimFile {
            device: Arc::clone(&self.device),
            ino,
            name: name.to_string(),
        }))
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        validate_name(name)?;
        lock(&self.device).remove(name)
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        validate_name(from)?;
        validate_name(to)?;
        lock(&self.device).rename(from, to)
    }

    fn exists(&self, name: &str) -> io::Result<bool> {
        validate_name(name)?;
        lock(&self.device).exists(name)
    }

    fn list(&self) -> io::Result<Vec<String>> {
        lock(&self.device).list()
    }

    /// Makes every earlier create, remove and rename durable. If it fails
    /// (planned EIO/ENOSPC), the unsynced directory operations are forgotten:
    /// names revert to their durable state.
    fn sync_dir(&self) -> io::Result<()> {
        lock(&self.device).sync_dir()
    }

    fn location(&self) -> String {
        "a simulated directory".to_string()
    }

    /// Simulated time: `SIM_OP_COST_NS` for every operation the device has
    /// admitted (of this directory or any of its files), so that costs
    /// measured on it depend only on the operations made.
    fn cost_clock_ns(&self) -> u64 {
        lock(&self.device).op_count() * SIM_OP_COST_NS
    }
}

/// What one operation of the simulated device costs on its clock
/// ([`Dir::cost_clock_ns`]).
pub const SIM_OP_COST_NS: u64 = 1_000;

/// An open simulated file: a handle on one file of a [`SimDir`], following it
/// across renames and keeping it alive after removal, as POSIX does.
struct SimFile {
    device: Arc<Mutex<Device>>,
    ino: InodeId,
    /// The name it was opened by, for messages.
    name: String,
}

impl std::fmt::Debug for SimFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimFile")
            .field("ino", &self.ino.0)
            .finish_non_exhaustive()
    }
}

impl Drop for SimFile {
    fn drop(&mut self) {
        lock(&self.device).release(self.ino);
    }
}

impl File for SimFile {
    fn read_at(&self, buf: &mut [u8], offset_bytes: u64) -> io::Result<()> {
        lock(&self.device).read(self.ino, buf, offset_bytes)
    }

    fn write_at(&self, buf: &[u8], offset_bytes: u64) -> io::Result<()> {
        lock(&self.device).write(self.ino, buf, offset_bytes)
    }

    /// Makes this file's writes durable. If it fails (planned EIO/ENOSPC),
    /// the file's unsynced writes are dropped, as Linux may drop dirty pages
    /// after a write-back error: reads see the durable image again. Callers
    /// must not retry the sync and assume their writes are safe.
    fn sync(&self) -> io::Result<()> {
        lock(&self.device).sync(self.ino)
    }

    fn set_len(&self, len_bytes: u64) -> io::Result<()> {
        lock(&self.device).set_len(self.ino, len_bytes)
    }

    fn len(&self) -> io::Result<u64> {
        lock(&self.device).len(self.ino)
    }

    fn location(&self) -> String {
        format!("simulated file {}", self.name)
    }
}
