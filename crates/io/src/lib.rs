//! folio's I/O layer: every byte that reaches a disk goes through [`Dir`] and
//! [`File`]. Two implementations: [`FsDir`] (real files, pread/pwrite) and
//! [`SimDir`] (a seeded simulated device that can crash, tear, reorder,
//! flip bits, misdirect writes and fail chosen operations).
//!
//! Errors are `std::io::Error`; simulated faults use the real errno values
//! (`EIO`, `ENOSPC`) so callers handle both devices the same way: an
//! out-of-space error has `raw_os_error() == Some(ENOSPC)` and kind
//! [`io::ErrorKind::StorageFull`] on both.
//!
//! The contract both devices honour (durability, zero-fill, error semantics)
//! is written out in this crate's `README.md`.

use std::io;
use std::sync::Arc;

pub mod blocking;
mod fs;
mod mailbox;
mod sim;

pub use fs::{DIRECT_IO_ALIGN_BYTES, DirectIoRefused, FsDir};
pub use mailbox::Mailbox;
pub use sim::{
    Fault, FaultPlan, OpKind, SECTOR_SIZE_BYTES, SIM_MAX_FILE_BYTES, SIM_OP_COST_NS, SimConfig,
    SimDir,
};

/// How [`Dir::open`] treats a missing or existing file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenMode {
    /// Open an existing file; `NotFound` if it does not exist.
    Existing,
    /// Create the file if missing, open it if present.
    CreateOrOpen,
    /// Create a new file; `AlreadyExists` if it exists.
    CreateNew,
}

/// Options for [`Dir::open`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenOptions {
    pub mode: OpenMode,
    /// Bypass the OS page cache (O_DIRECT) where the device supports it.
    /// Buffers and offsets must then be 4096-aligned. Ignored by [`SimDir`].
    pub direct: bool,
}

impl OpenOptions {
    pub const EXISTING: OpenOptions = OpenOptions {
        mode: OpenMode::Existing,
        direct: false,
    };
    pub const CREATE: OpenOptions = OpenOptions {
        mode: OpenMode::CreateOrOpen,
        direct: false,
    };
    pub const CREATE_NEW: OpenOptions = OpenOptions {
        mode: OpenMode::CreateNew,
        direct: false,
    };
}

/// One open file. All methods take `&self` and are safe to call from many
/// threads at once (positioned I/O, no shared cursor).
pub trait File: Send + Sync + std::fmt::Debug {
    /// Reads exactly `buf.len()` bytes at `offset_bytes`. Bytes past the end
    /// of the file read as zeros (a page never written is a zero page).
    fn read_at(&self, buf: &mut [u8], offset_bytes: u64) -> io::Result<()>;
    /// Writes all of `buf` at `offset_bytes`, extending the file if needed.
    /// Not durable until [`File::sync`] returns `Ok`.
    fn write_at(&self, buf: &[u8], offset_bytes: u64) -> io::Result<()>;
    /// Makes every completed write durable (fdatasync). After an error the
    /// state of earlier writes is unknown: callers must never retry and
    /// assume success (see DESIGN.md §5).
    fn sync(&self) -> io::Result<()>;
    /// Truncates or extends the file to `len_bytes` (extension reads as zeros).
    fn set_len(&self, len_bytes: u64) -> io::Result<()>;
    /// Extends the file to at least `len_bytes` with its blocks allocated
    /// (`fallocate`), so writes below `len_bytes` never need new space on a
    /// filesystem that overwrites in place (ext4, xfs; not a copy-on-write
    /// one such as btrfs, where an overwrite allocates too). A file already
    /// that long is left as it is. Fails with ENOSPC, and no effect worth
    /// relying on, when the space is not there. Not durable until
    /// [`File::sync`]. The default extends with [`File::set_len`], which is
    /// what the simulated device does: there, growth is what its capacity
    /// limit counts.
    fn allocate(&self, len_bytes: u64) -> io::Result<()> {
        if len_bytes > self.len()? {
            self.set_len(len_bytes)?;
        }
        Ok(())
    }
    /// Current length in bytes.
    fn len(&self) -> io::Result<u64>;
    /// True when the file has no bytes.
    fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }
    /// Where this file is, for messages a user reads: its path on a real
    /// filesystem. Never `Debug` output.
    fn location(&self) -> String {
        "a file".to_string()
    }
    /// Hint that `[offset_bytes, offset_bytes + len_bytes)` will be read soon
    /// (posix_fadvise WILLNEED). A hint only: the default does nothing.
    fn advise_willneed(&self, offset_bytes: u64, len_bytes: u64) -> io::Result<()> {
        let _ = (offset_bytes, len_bytes);
        Ok(())
    }
}

/// A directory of files: the unit a database lives in.
pub trait Dir: Send + Sync + std::fmt::Debug {
    /// Opens (or creates) the file `name` in this directory. Names are plain
    /// file names, never paths.
    fn open(&self, name: &str, options: OpenOptions) -> io::Result<Arc<dyn File>>;
    /// Removes `name`. Durable only after [`Dir::sync_dir`].
    fn remove(&self, name: &str) -> io::Result<()>;
    /// Atomically renames `from` to `to`, replacing `to`. Durable only after
    /// [`Dir::sync_dir`].
    fn rename(&self, from: &str, to: &str) -> io::Result<()>;
    /// True if `name` exists.
    fn exists(&self, name: &str) -> io::Result<bool>;
    /// The names of the files in this directory, sorted.
    fn list(&self) -> io::Result<Vec<String>>;
    /// Makes creations, renames and removals in this directory durable.
    fn sync_dir(&self) -> io::Result<()>;
    /// Where this directory is, for messages a user reads: its path on a
    /// real filesystem. Never `Debug` output.
    fn location(&self) -> String {
        "a directory".to_string()
    }
    /// Nanoseconds on a clock for measuring what operations on this
    /// directory and its files cost: the WAL's `wal_recycle = auto` model
    /// compares recycling a segment with creating one by it. Real,
    /// monotonic time by default ([`monotonic_ns`]). The simulated device
    /// counts its operations instead, so that a choice made by measured
    /// cost is the same in every run of a seed.
    fn cost_clock_ns(&self) -> u64 {
        monotonic_ns()
    }
}

/// Nanoseconds since the first call in this process, on the monotonic clock.
pub fn monotonic_ns() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = *START.get_or_init(std::time::Instant::now);
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Checks that `name` is a plain file name: not empty, not `.` or `..`, and
/// free of `/` and NUL. Both devices reject anything else with
/// `InvalidInput` before touching storage, so a name can never escape the
/// directory.
pub(crate) fn validate_name(name: &str) -> io::Result<()> {
    let bad = name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']);
    if bad {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("invalid file name {name:?}: must be a plain name without '/' or NUL"),
        ));
    }
    Ok(())
}
