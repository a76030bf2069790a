//! A full disk for real: the WAL on a small loop-mounted ext4 that a filler
//! file has exhausted. ENOSPC must reach the inserting caller whose record
//! needs a new segment as `WalError::NoSpace` (never a panic, never
//! poisoning, never a later flush), and once space is freed the same WAL
//! continues and every committed record is readable after reopening.
//!
//! Needs root, loop devices and `mkfs.ext4`; without them it prints why and
//! passes. The loop device is attached with `losetup` and the guard always
//! unmounts and detaches it (`umount`, `losetup -d`), also when the test
//! fails.

use folio_io::{Dir, FsDir};
use folio_wal::{
    ReaderOptions, RecordBuilder, Recycle, RmgrId, Wal, WalConfig, WalError, WalReader,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

const IMAGE_BYTES: u64 = 48 << 20;
const SEGMENT_BYTES: u64 = 1 << 20;
const RECORD_DATA_BYTES: usize = 3000;
/// Records committed after space is freed (several more segments).
const RECORDS_AFTER: u64 = 1500;
const RMGR: RmgrId = RmgrId(9);

/// A mounted ext4 image on an explicitly attached loop device.
struct LoopExt4 {
    _root: tempfile::TempDir,
    mount_point: PathBuf,
    device: Option<String>,
    mounted: bool,
}

impl LoopExt4 {
    /// Sets the filesystem up, or returns why this machine cannot.
    fn create() -> Result<LoopExt4, String> {
        if !is_root() {
            return Err("not root".into());
        }
        if !Path::new("/dev/loop-control").exists() {
            return Err("no loop devices".into());
        }
        run(Command::new("mkfs.ext4").arg("-V")).map_err(|e| format!("no mkfs.ext4: {e}"))?;
        let root = tempfile::tempdir().map_err(|e| e.to_string())?;
        let image = root.path().join("ext4.img");
        let mount_point = root.path().join("mnt");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(IMAGE_BYTES))
            .map_err(|e| e.to_string())?;
        std::fs::create_dir(&mount_point).map_err(|e| e.to_string())?;
        run(Command::new("mkfs.ext4")
            .args(["-q", "-F", "-m", "0"])
            .arg(&image))?;
        let mut fs = LoopExt4 {
            _root: root,
            mount_point,
            device: None,
            mounted: false,
        };
        let device = run(Command::new("losetup").args(["-f", "--show"]).arg(&image))?;
        fs.device = Some(device.trim().to_string());
        run(Command::new("mount")
            .arg(device.trim())
            .arg(&fs.mount_point))?;
        fs.mounted = true;
        Ok(fs)
    }
}

impl Drop for LoopExt4 {
    fn drop(&mut self) {
        if self.mounted {
            let unmounted = (0..5).any(|_| {
                let ok = run(Command::new("umount").arg(&self.mount_point)).is_ok();
                if !ok {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
                ok
            });
            if !unmounted {
                let _ = run(Command::new("umount").arg("-l").arg(&self.mount_point));
            }
        }
        if let Some(device) = &self.device {
            let _ = run(Command::new("losetup").args(["-d", device]));
        }
        // The TempDir then removes the image and the (empty) mount point.
    }
}

fn run(command: &mut Command) -> Result<String, String> {
    let out = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{:?}: {e}", command.get_program()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{:?} {}: {}",
            command.get_program(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    })
}

/// The data of record `seq`: its number, then bytes derived from it.
fn data(seq: u64) -> Vec<u8> {
    let mut v = seq.to_le_bytes().to_vec();
    v.extend((0..RECORD_DATA_BYTES).map(|i| (i as u64 ^ seq.wrapping_mul(31)) as u8));
    v
}

/// Inserts record `seq` and commits it durably.
fn insert_commit(wal: &Wal, seq: u64) -> Result<(), WalError> {
    let bytes = data(seq);
    let mut builder = RecordBuilder::new(RMGR, 0);
    builder.register_data(&bytes)?;
    let inserted = wal.insert(&builder)?;
    wal.commit(inserted.end_lsn)
}

/// Writes a file until the filesystem is full; returns its size.
fn fill(path: &Path) -> u64 {
    let mut file = std::fs::File::create(path).expect("create filler");
    let chunk = vec![0xf1u8; 256 << 10];
    let mut written = 0u64;
    loop {
        match file.write(&chunk) {
            Ok(0) => break,
            Ok(n) => written += n as u64,
            Err(e) if e.raw_os_error() == Some(28) => break,
            Err(e) => panic!("filler write failed: {e}"),
        }
    }
    // Data that did not fit may surface at sync; the file is removed later.
    let _ = file.sync_all();
    written
}

// Proves that on a real full ext4 the insert that needs a new segment fails
// with NoSpace (not a panic, not poisoning, not a later flush), that after a
// filler file is deleted the same WAL commits the failed record and many
// more, and that after reopening every record
// whose commit returned Ok is read back intact and in order.
#[test]
fn enospc_on_loop_ext4_then_continue_after_space_is_freed() {
    let fs = match LoopExt4::create() {
        Ok(fs) => fs,
        Err(why) => {
            eprintln!("skipping loop-mounted ENOSPC test: {why}");
            return;
        }
    };
    let wal_path = fs.mount_point.join("wal");
    let dir: Arc<dyn Dir> = Arc::new(FsDir::open(&wal_path).unwrap());
    let config = WalConfig {
        segment_size_bytes: SEGMENT_BYTES,
        buffer_pages: 64,
        recycle: Recycle::Off,
        min_wal_size_bytes: 0,
        init_zero: true,
        ..WalConfig::default()
    };
    let wal = Wal::open(dir.clone(), config.clone()).unwrap();
    // Segment 0 exists (and segment 1 is prepared ahead once it is entered).
    insert_commit(&wal, 0).unwrap();
    let filler = fs.mount_point.join("filler");
    let filled = fill(&filler);
    assert!(filled > 16 << 20, "filler took only {filled} bytes");

    // Commit until the disk is full: the existing segments take records,
    // then creating the next one fails.
    let mut seq = 1u64;
    let error = loop {
        match insert_commit(&wal, seq) {
            Ok(()) => seq += 1,
            Err(e) => break e,
        }
        assert!(seq < 10_000, "never ran out of space");
    };
    assert!(error.is_no_space(), "expected NoSpace, got {error:?}");
    assert!(!wal.is_poisoned(), "ENOSPC must not poison the WAL");
    let failed_seq = seq;
    // The insert that needed a new segment failed; everything inserted
    // before it lies in segments that exist, so flushing needs no space.
    wal.flush_all().unwrap();
    // Still full: the retry fails the same way, nothing else breaks.
    let retry = insert_commit(&wal, failed_seq).unwrap_err();
    assert!(retry.is_no_space(), "{retry:?}");

    // Free the space; the failed record is inserted again and commits.
    std::fs::remove_file(&filler).unwrap();
    for next in failed_seq..failed_seq + 1 + RECORDS_AFTER {
        insert_commit(&wal, next).unwrap();
    }
    let last = failed_seq + RECORDS_AFTER;
    let stats = wal.stats();
    assert!(stats.segments_created >= 3, "{stats:?}");
    drop(wal);

    // Reopen (finds the end) and read everything back.
    let wal = Wal::open(dir.clone(), config).unwrap();
    assert!(!wal.open_info().created);
    drop(wal);
    let reader = WalReader::open(dir, ReaderOptions::default()).unwrap();
    let mut expected = 0u64;
    for record in reader {
        let record = record.unwrap();
        assert_eq!(record.rmgr, RMGR);
        assert_eq!(record.data, data(expected), "record {expected}");
        expected += 1;
    }
    assert_eq!(expected, last + 1, "every committed record is read back");
    drop(fs);
}
