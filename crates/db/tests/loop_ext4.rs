//! ENOSPC on a real filesystem: the WAL on a small loop-mounted ext4 fills
//! it up. Skipped (with a message saying why) where loop mounts are not
//! available (no mkfs.ext4, no loop devices, not allowed to mount).

use folio_db::{Database, Options, Storage};
use folio_io::FsDir;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

/// A mounted loop filesystem, always unmounted on drop.
struct Mounted {
    mount_point: PathBuf,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg(&self.mount_point)
            .stderr(Stdio::null())
            .status();
    }
}

fn run(program: &str, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Result<(), String> {
    let status = Command::new(program)
        .args(args.iter().map(|a| a.as_ref()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{program} failed: {status}"))
    }
}

fn mount_ext4(dir: &Path, size_mib: u64) -> Result<Mounted, String> {
    let image = dir.join("ext4.img");
    let mount_point = dir.join("mnt");
    std::fs::create_dir_all(&mount_point).map_err(|e| e.to_string())?;
    let file = std::fs::File::create(&image).map_err(|e| e.to_string())?;
    file.set_len(size_mib << 20).map_err(|e| e.to_string())?;
    run("mkfs.ext4", &[&"-q", &"-F", &image])?;
    run("mount", &[&"-o", &"loop", &image, &mount_point])?;
    Ok(Mounted { mount_point })
}

#[test]
fn wal_filling_a_real_ext4_fails_the_operation_and_continues_after_space_returns() {
    // Proves on a real 16 MiB ext4: when WAL segments fill the filesystem,
    // the failing call gets a no-space error, the database is not poisoned,
    // and once space is freed (a ballast file removed) the retried call
    // succeeds and, after reopening, every committed row is there.
    let tmp = tempfile::tempdir().unwrap();
    let mounted = match mount_ext4(tmp.path(), 16) {
        Ok(m) => m,
        Err(reason) => {
            eprintln!("skipped: loop-mounted ext4 unavailable ({reason})");
            return;
        }
    };
    let ballast = mounted.mount_point.join("ballast");
    std::fs::write(&ballast, vec![1u8; 3 << 20]).unwrap();
    let storage = || Storage {
        data: Arc::new(FsDir::open(tmp.path().join("data")).unwrap()),
        wal: Arc::new(FsDir::open(mounted.mount_point.join("wal")).unwrap()),
    };
    let options = Options {
        wal_segment_size_bytes: 1 << 20,
        wal_buffer_pages: 64,
        wal_init_zero: true,
        min_wal_size_bytes: 1 << 20,
        max_wal_size_bytes: 1 << 40,
        checkpoint_interval: Duration::from_secs(3600),
        checkpoint_wal_bytes: 1 << 40,
        background_checkpoints: false,
        ..Options::default()
    };
    let db = Database::create_in(storage(), options.clone()).unwrap();
    let tree = db.create_tree("rows").unwrap();
    db.commit().unwrap();
    let value = [7u8; 500];
    let mut committed = 0u64;
    let mut row = 0u64;
    let mut space_errors = 0;
    // Until the WAL fills the disk, then 100 rows more.
    let mut stop_at = 60_000;
    while row < stop_at {
        let result = tree
            .insert(&row.to_be_bytes(), &value)
            .map_err(folio_db::DbError::from)
            .and_then(|()| {
                if row % 20 == 19 {
                    db.commit().map(drop)
                } else {
                    Ok(())
                }
            });
        match result {
            Ok(()) => {
                if row % 20 == 19 {
                    committed = row + 1;
                }
                row += 1;
            }
            Err(e) => {
                assert!(e.is_no_space(), "row {row}: {e}");
                assert!(!db.is_poisoned());
                space_errors += 1;
                assert!(space_errors == 1, "space came back: {e}");
                stop_at = row + 100;
                std::fs::remove_file(&ballast).unwrap();
                // ext4 reuses freed blocks only once the journal commits.
                run("sync", &[&"-f", &mounted.mount_point]).unwrap();
                // Retry: if the insert itself failed it is retried; if the
                // commit failed the insert is in and only the commit reruns.
                if tree.get(&row.to_be_bytes()).unwrap().is_some() {
                    db.commit().unwrap();
                    committed = row + 1;
                    row += 1;
                }
            }
        }
    }
    assert_eq!(space_errors, 1, "the WAL filled the filesystem");
    db.commit().unwrap();
    let rows = row;
    drop(tree);
    db.close().unwrap();
    let db = Database::open_in(storage(), options).unwrap();
    let tree = db.open_tree("rows").unwrap().unwrap();
    for r in 0..committed.max(rows) {
        assert!(tree.get(&r.to_be_bytes()).unwrap().is_some(), "row {r}");
    }
    db.verify().unwrap();
    drop((tree, db));
    drop(mounted);
}
