//! Real files: positioned reads and writes through rustix.
//!
//! Every file is opened relative to the directory's own descriptor
//! (`openat`, `renameat`, `unlinkat`), so the directory can be fsynced and a
//! name can never resolve outside it (names are validated first).

use crate::{Dir, File, OpenMode, OpenOptions, validate_name};
use rustix::fd::OwnedFd;
use rustix::fs::{Advice, AtFlags, FallocateFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use std::io;
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Alignment, in bytes, that buffers, offsets and lengths must have on a file
/// opened with [`OpenOptions::direct`]. 4096 covers every common logical
/// block size, so a layout that works on one disk works on all of them.
pub const DIRECT_IO_ALIGN_BYTES: u64 = 4096;

/// The filesystem refused `O_DIRECT` (the kernel answered `EINVAL` to the
/// open). Returned inside an `io::Error` of kind `InvalidInput`; callers that
/// want to fall back to buffered I/O can recognise it with
/// `err.get_ref().and_then(|e| e.downcast_ref::<DirectIoRefused>())`.
/// The file may have been created before the kernel refused the flag.
#[derive(Debug, thiserror::Error)]
#[error("the filesystem refuses O_DIRECT for {path} (EINVAL); open it without `direct`")]
pub struct DirectIoRefused {
    /// The file that could not be opened with `O_DIRECT`.
    pub path: PathBuf,
}

/// A real directory on a filesystem.
#[derive(Debug)]
pub struct FsDir {
    path: PathBuf,
    /// The directory itself, opened read-only: the anchor for every `*at`
    /// call and the descriptor [`Dir::sync_dir`] fsyncs.
    dir_fd: OwnedFd,
}

impl FsDir {
    /// Opens `path`, creating it (and its parents) if missing. A directory
    /// this call creates is made durable by fsyncing its parent (ancestors it
    /// also created are not fsynced).
    pub fn open(path: impl AsRef<Path>) -> io::Result<FsDir> {
        let path = path.as_ref().to_path_buf();
        let existed = path.is_dir();
        std::fs::create_dir_all(&path)?;
        let dir_fd = open_directory(&path)?;
        if !existed {
            let parent = match path.parent() {
                Some(parent) if parent.as_os_str().is_empty() => Some(Path::new(".")),
                other => other,
            };
            if let Some(parent) = parent {
                rustix::fs::fsync(open_directory(parent)?)?;
            }
        }
        Ok(FsDir { path, dir_fd })
    }

    /// Opens the existing directory `path`; `NotFound` if it is missing.
    /// Creates nothing: what opens an existing database must leave a
    /// directory it then refuses exactly as it found it.
    pub fn open_existing(path: impl AsRef<Path>) -> io::Result<FsDir> {
        let path = path.as_ref().to_path_buf();
        let dir_fd = open_directory(&path)?;
        Ok(FsDir { path, dir_fd })
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Dir for FsDir {
    fn open(&self, name: &str, options: OpenOptions) -> io::Result<Arc<dyn File>> {
        validate_name(name)?;
        let mut flags = OFlags::RDWR | OFlags::CLOEXEC;
        match options.mode {
            OpenMode::Existing => {}
            OpenMode::CreateOrOpen => flags |= OFlags::CREATE,
            OpenMode::CreateNew => flags |= OFlags::CREATE | OFlags::EXCL,
        }
        if options.direct {
            flags |= OFlags::DIRECT;
        }
        let mode = Mode::RUSR | Mode::WUSR | Mode::RGRP | Mode::ROTH;
        let fd = rustix::fs::openat(&self.dir_fd, name, flags, mode)
            .map_err(|errno| open_error(errno, options.direct, &self.path.join(name)))?;
        Ok(Arc::new(FsFile {
            fd,
            direct: options.direct,
            path: self.path.join(name),
        }))
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        validate_name(name)?;
        rustix::fs::unlinkat(&self.dir_fd, name, AtFlags::empty())?;
        Ok(())
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        validate_name(from)?;
        validate_name(to)?;
        rustix::fs::renameat(&self.dir_fd, from, &self.dir_fd, to)?;
        Ok(())
    }

    fn exists(&self, name: &str) -> io::Result<bool> {
        validate_name(name)?;
        match rustix::fs::statat(&self.dir_fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(_) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(errno) => Err(errno.into()),
        }
    }

    /// Lists regular files only. Names that are not UTF-8 are skipped: folio
    /// never creates them and cannot open them through this trait.
    fn list(&self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        // Reads through the directory's own descriptor, so the listing is of
        // the directory the other operations act on, whatever the path now
        // resolves to. Bounded by the directory's entries.
        for entry in rustix::fs::Dir::read_from(&self.dir_fd)? {
            let entry = entry?;
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            let is_file = match entry.file_type() {
                FileType::RegularFile => true,
                // Some filesystems do not report types in directory entries.
                FileType::Unknown => {
                    match rustix::fs::statat(&self.dir_fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(stat) => FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile,
                        Err(Errno::NOENT) => false, // removed while listing
                        Err(errno) => return Err(errno.into()),
                    }
                }
                _ => false,
            };
            if is_file {
                names.push(name.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    fn sync_dir(&self) -> io::Result<()> {
        rustix::fs::fsync(&self.dir_fd)?;
        Ok(())
    }

    fn location(&self) -> String {
        self.path.display().to_string()
    }
}

/// Converts a failed `openat`: an `EINVAL` on an `O_DIRECT` open means the
/// filesystem refuses direct I/O, which deserves an error that says so.
fn open_error(errno: Errno, direct: bool, path: &Path) -> io::Error {
    if direct && errno == Errno::INVAL {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            DirectIoRefused {
                path: path.to_path_buf(),
            },
        )
    } else {
        errno.into()
    }
}

/// Opens a directory read-only, for `*at` calls, listing and fsync.
fn open_directory(path: &Path) -> io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    Ok(rustix::fs::open(path, flags, Mode::empty())?)
}

/// One open real file.
#[derive(Debug)]
struct FsFile {
    fd: OwnedFd,
    /// Opened with `O_DIRECT`: every transfer must be aligned.
    direct: bool,
    /// Where it was opened, for messages.
    path: PathBuf,
}

impl FsFile {
    /// With `O_DIRECT` the kernel rejects misaligned transfers with a bare
    /// `EINVAL`; checking first gives the caller an error that says why.
    fn check_direct_alignment(
        &self,
        ptr: *const u8,
        len: usize,
        offset_bytes: u64,
    ) -> io::Result<()> {
        if !self.direct {
            return Ok(());
        }
        let align = DIRECT_IO_ALIGN_BYTES as usize;
        let aligned = (ptr as usize).is_multiple_of(align)
            && len.is_multiple_of(align)
            && offset_bytes.is_multiple_of(DIRECT_IO_ALIGN_BYTES);
        if aligned {
            return Ok(());
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "O_DIRECT transfer not {DIRECT_IO_ALIGN_BYTES}-aligned: buffer {ptr:p}, \
                 length {len}, offset {offset_bytes}"
            ),
        ))
    }
}

impl File for FsFile {
    fn read_at(&self, buf: &mut [u8], offset_bytes: u64) -> io::Result<()> {
        self.check_direct_alignment(buf.as_ptr(), buf.len(), offset_bytes)?;
        let mut done = 0usize;
        // Each pass either advances `done`, stops at end of file, or retries
        // after EINTR, so the loop ends after at most `buf.len()` progress steps.
        while done < buf.len() {
            let position = offset_bytes
                .checked_add(done as u64)
                .ok_or_else(|| io::Error::from(Errno::FBIG))?;
            match rustix::io::pread(&self.fd, &mut buf[done..], position) {
                Ok(0) => break,
                Ok(n) => {
                    assert!(n <= buf.len() - done, "pread returned more than asked");
                    done += n;
                    // A short O_DIRECT read ends at end of file; reading on from
                    // a misaligned position would only earn an EINVAL.
                    if self.direct && !done.is_multiple_of(DIRECT_IO_ALIGN_BYTES as usize) {
                        break;
                    }
                }
                Err(Errno::INTR) => continue,
                Err(errno) => return Err(errno.into()),
            }
        }
        // Past the end of the file: a page never written is a zero page.
        buf[done..].fill(0);
        Ok(())
    }

    fn write_at(&self, buf: &[u8], offset_bytes: u64) -> io::Result<()> {
        self.check_direct_alignment(buf.as_ptr(), buf.len(), offset_bytes)?;
        let mut done = 0usize;
        // Each pass advances `done` or retries after EINTR; a zero-length
        // write is an error, so the loop cannot spin.
        while done < buf.len() {
            let position = offset_bytes
                .checked_add(done as u64)
                .ok_or_else(|| io::Error::from(Errno::FBIG))?;
            match rustix::io::pwrite(&self.fd, &buf[done..], position) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        format!("pwrite wrote nothing at offset {position}"),
                    ));
                }
                Ok(n) => {
                    assert!(n <= buf.len() - done, "pwrite wrote more than asked");
                    done += n;
                }
                Err(Errno::INTR) => continue,
                Err(errno) => return Err(errno.into()),
            }
        }
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        rustix::fs::fdatasync(&self.fd)?;
        Ok(())
    }

    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn set_len(&self, len_bytes: u64) -> io::Result<()> {
        rustix::fs::ftruncate(&self.fd, len_bytes)?;
        Ok(())
    }

    fn allocate(&self, len_bytes: u64) -> io::Result<()> {
        let current_bytes = self.len()?;
        if len_bytes <= current_bytes {
            return Ok(());
        }
        let gap_bytes = len_bytes - current_bytes;
        match rustix::fs::fallocate(&self.fd, FallocateFlags::empty(), current_bytes, gap_bytes) {
            Ok(()) => Ok(()),
            // Filesystems without fallocate: allocate by writing zeros.
            Err(Errno::OPNOTSUPP) => write_zeros(self, current_bytes, len_bytes),
            Err(e) => Err(e.into()),
        }
    }

    fn len(&self) -> io::Result<u64> {
        let stat = rustix::fs::fstat(&self.fd)?;
        u64::try_from(stat.st_size).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("fstat reported negative size {}", stat.st_size),
            )
        })
    }

    fn advise_willneed(&self, offset_bytes: u64, len_bytes: u64) -> io::Result<()> {
        // posix_fadvise reads a zero length as "to the end of the file"; an
        // empty range is a hint about nothing.
        let Some(len) = NonZeroU64::new(len_bytes) else {
            return Ok(());
        };
        rustix::fs::fadvise(&self.fd, offset_bytes, Some(len), Advice::WillNeed)?;
        Ok(())
    }
}

/// Writes zeros over `[from_bytes, to_bytes)` of `file`, 1 MiB at a time.
fn write_zeros(file: &FsFile, from_bytes: u64, to_bytes: u64) -> io::Result<()> {
    const CHUNK_BYTES: u64 = 1 << 20;
    let zeros = vec![0u8; CHUNK_BYTES as usize];
    let mut at = from_bytes;
    while at < to_bytes {
        let n = (to_bytes - at).min(CHUNK_BYTES);
        file.write_at(&zeros[..n as usize], at)?;
        at += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{DirectIoRefused, open_error};
    use rustix::io::Errno;
    use std::path::Path;

    // Proves EINVAL on an O_DIRECT open becomes DirectIoRefused naming the
    // file, while other errors (and EINVAL without O_DIRECT) keep their errno.
    // Tested here because this kernel's tmpfs accepts O_DIRECT.
    #[test]
    fn einval_on_direct_open_is_reported_as_refusal() {
        let path = Path::new("/db/wal");
        let err = open_error(Errno::INVAL, true, path);
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        let refused = err
            .get_ref()
            .and_then(|e| e.downcast_ref::<DirectIoRefused>());
        assert_eq!(refused.map(|r| r.path.as_path()), Some(path));
        assert!(err.to_string().contains("O_DIRECT") && err.to_string().contains("/db/wal"));

        let plain = open_error(Errno::INVAL, false, path);
        assert_eq!(plain.raw_os_error(), Some(Errno::INVAL.raw_os_error()));
        let other = open_error(Errno::NOENT, true, path);
        assert_eq!(other.kind(), std::io::ErrorKind::NotFound);
    }
}
