//! Scratch filesystems on loop devices, for workloads whose result depends
//! on the filesystem (seed 003: WAL recycling on ext4, xfs and btrfs).
//!
//! [`LoopMount::create`] makes a sparse image file (`truncate`), formats it
//! (`mkfs.*`, installing the tools with `apt-get` when they are missing) and
//! mounts it with `mount -o loop` (the loop device is released by the
//! unmount). The returned guard ALWAYS unmounts and removes the image when
//! dropped, also when the benchmark fails or panics. Anything that prevents
//! a real mount (not root, no loop devices, no mkfs) is a [`Skip`] with a
//! reason the caller prints: no numbers are ever made up for a filesystem
//! that could not be measured.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A filesystem the benchmark can create on a loop device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsKind {
    Ext4,
    Xfs,
    Btrfs,
}

impl FsKind {
    /// Every filesystem, in the order the benchmark measures them.
    pub const ALL: [FsKind; 3] = [FsKind::Ext4, FsKind::Xfs, FsKind::Btrfs];

    pub fn name(self) -> &'static str {
        match self {
            FsKind::Ext4 => "ext4",
            FsKind::Xfs => "xfs",
            FsKind::Btrfs => "btrfs",
        }
    }

    fn mkfs_program(self) -> &'static str {
        match self {
            FsKind::Ext4 => "mkfs.ext4",
            FsKind::Xfs => "mkfs.xfs",
            FsKind::Btrfs => "mkfs.btrfs",
        }
    }

    /// Quiet, and overwrite whatever the image holds.
    fn mkfs_flags(self) -> &'static [&'static str] {
        match self {
            FsKind::Ext4 => &["-q", "-F"],
            FsKind::Xfs | FsKind::Btrfs => &["-q", "-f"],
        }
    }

    /// The Debian/Ubuntu package that provides the mkfs program.
    fn package(self) -> &'static str {
        match self {
            FsKind::Ext4 => "e2fsprogs",
            FsKind::Xfs => "xfsprogs",
            FsKind::Btrfs => "btrfs-progs",
        }
    }

    /// Smallest image `mkfs` accepts comfortably (xfs needs 300 MiB).
    pub fn min_image_bytes(self) -> u64 {
        match self {
            FsKind::Ext4 => 32 << 20,
            FsKind::Xfs => 320 << 20,
            FsKind::Btrfs => 128 << 20,
        }
    }
}

impl fmt::Display for FsKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a filesystem cannot be measured on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip(pub String);

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A mounted loop filesystem. Dropping it unmounts and deletes everything.
#[derive(Debug)]
pub struct LoopMount {
    fs: FsKind,
    /// Directory holding the image and the mount point (created by us).
    root: PathBuf,
    image: PathBuf,
    mount_point: PathBuf,
    mounted: bool,
}

impl LoopMount {
    /// Creates a `size_bytes` sparse image of `fs` under `parent` and mounts
    /// it. On any failure everything created so far is removed again.
    pub fn create(parent: &Path, fs: FsKind, size_bytes: u64) -> Result<LoopMount, Skip> {
        if !is_root() {
            return Err(Skip(
                "loop mounts need root (run as root to measure it)".into(),
            ));
        }
        if !Path::new("/dev/loop-control").exists() && !Path::new("/dev/loop0").exists() {
            return Err(Skip(
                "no loop devices (/dev/loop-control is missing)".into(),
            ));
        }
        ensure_mkfs(fs)?;
        let root = parent.join(format!("loopfs-{}-{}", fs.name(), std::process::id()));
        std::fs::create_dir_all(&root)
            .map_err(|e| Skip(format!("creating {}: {e}", root.display())))?;
        // From here on the guard cleans up whatever exists.
        let mut mount = LoopMount {
            fs,
            image: root.join(format!("{}.img", fs.name())),
            mount_point: root.join("mnt"),
            root,
            mounted: false,
        };
        let size = size_bytes.max(fs.min_image_bytes());
        std::fs::File::create(&mount.image)
            .and_then(|file| file.set_len(size))
            .map_err(|e| Skip(format!("creating image {}: {e}", mount.image.display())))?;
        std::fs::create_dir_all(&mount.mount_point)
            .map_err(|e| Skip(format!("creating {}: {e}", mount.mount_point.display())))?;
        let mut mkfs = Command::new(fs.mkfs_program());
        mkfs.args(fs.mkfs_flags()).arg(&mount.image);
        run_quietly(&mut mkfs).map_err(|e| Skip(format!("{} failed: {e}", fs.mkfs_program())))?;
        let mut mount_cmd = Command::new("mount");
        mount_cmd
            .args(["-o", "loop"])
            .arg(&mount.image)
            .arg(&mount.mount_point);
        run_quietly(&mut mount_cmd).map_err(|e| Skip(format!("mount -o loop failed: {e}")))?;
        mount.mounted = true;
        Ok(mount)
    }

    /// The root of the mounted filesystem.
    pub fn path(&self) -> &Path {
        &self.mount_point
    }

    pub fn fs(&self) -> FsKind {
        self.fs
    }
}

impl Drop for LoopMount {
    fn drop(&mut self) {
        if self.mounted {
            self.mounted = !unmount(&self.mount_point);
            if self.mounted {
                eprintln!(
                    "warning: could not unmount {}; the image {} is left in place",
                    self.mount_point.display(),
                    self.image.display()
                );
                return;
            }
        }
        // Never remove recursively: if anything is still mounted here, a
        // recursive removal would reach into it.
        let _ = std::fs::remove_file(&self.image);
        let _ = std::fs::remove_dir(&self.mount_point);
        let _ = std::fs::remove_dir(&self.root);
    }
}

/// Unmounts `mount_point`, retrying briefly while it is busy, then lazily.
/// Returns whether it is unmounted.
fn unmount(mount_point: &Path) -> bool {
    const ATTEMPTS: usize = 5;
    for _ in 0..ATTEMPTS {
        if run_quietly(Command::new("umount").arg(mount_point)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    run_quietly(Command::new("umount").arg("-l").arg(mount_point)).is_ok()
}

/// Makes sure `fs`'s mkfs exists, installing its package with apt-get when
/// it does not (the only place the benchmark installs anything).
fn ensure_mkfs(fs: FsKind) -> Result<(), Skip> {
    if find_program(fs.mkfs_program()).is_some() {
        return Ok(());
    }
    eprintln!(
        "{} is missing: installing {} with `apt-get install -y {}` ...",
        fs.mkfs_program(),
        fs.package(),
        fs.package()
    );
    let installed = run_quietly(Command::new("apt-get").args(["install", "-y", fs.package()]));
    match (installed, find_program(fs.mkfs_program())) {
        (Ok(()), Some(_)) => Ok(()),
        (Ok(()), None) => Err(Skip(format!(
            "{} installed but {} is still not found",
            fs.package(),
            fs.mkfs_program()
        ))),
        (Err(e), _) => Err(Skip(format!(
            "{} is missing and installing {} failed: {e}",
            fs.mkfs_program(),
            fs.package()
        ))),
    }
}

/// Looks `program` up in `PATH` and the sbin directories (mkfs lives there
/// and a non-login root shell may not have them in `PATH`).
fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/local/sbin", "/usr/sbin", "/sbin"].map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// Runs a command with its output captured; a non-zero exit is an error
/// carrying the last line of its standard error.
fn run_quietly(command: &mut Command) -> Result<(), String> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", command.get_program()))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    Err(format!("{} ({})", output.status, last.trim()))
}

/// Whether the effective user is root (from `/proc/self/status`).
fn is_root() -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0")
}

/// Writes dirty data back and drops the OS page cache, so files written
/// before are read from the device again (best effort: needs root).
pub fn drop_caches() -> bool {
    let _ = run_quietly(&mut Command::new("sync"));
    std::fs::write("/proc/sys/vm/drop_caches", "3").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the guard mounts a real filesystem and that dropping it
    // unmounts and removes the image and its directories (when this machine
    // can loop-mount at all; otherwise the skip reason is non-empty).
    #[test]
    fn loop_mount_is_cleaned_up_on_drop() {
        let parent = tempfile::tempdir().expect("tempdir");
        let mount = match LoopMount::create(parent.path(), FsKind::Ext4, 64 << 20) {
            Ok(mount) => mount,
            Err(skip) => {
                assert!(!skip.0.is_empty());
                eprintln!("skipping: {skip}");
                return;
            }
        };
        let mount_point = mount.path().to_path_buf();
        std::fs::write(mount_point.join("file"), b"data").expect("write on the mount");
        let mounts = std::fs::read_to_string("/proc/mounts").expect("mounts");
        assert!(mounts.contains(mount_point.to_str().expect("utf-8 path")));
        drop(mount);
        let mounts = std::fs::read_to_string("/proc/mounts").expect("mounts");
        assert!(!mounts.contains(mount_point.to_str().expect("utf-8 path")));
        let left: Vec<_> = std::fs::read_dir(parent.path()).expect("list").collect();
        assert!(left.is_empty(), "left behind: {left:?}");
    }
}
