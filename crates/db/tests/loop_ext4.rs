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
        background_io: false,
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
    db.check_invariants().unwrap();
    drop((tree, db));
    drop(mounted);
}

#[test]
fn a_database_filling_a_real_ext4_closes_reopens_in_place_and_continues() {
    // Proves on a real 48 MiB ext4 holding the whole database directory
    // (data file, control file, WAL): writes that need space get no-space
    // errors, nothing is poisoned, `close` succeeds on the full disk, the
    // database reopens in place on the still-full disk (recovery and its
    // checkpoint need no space), and after a ballast file is removed it
    // continues; every row whose commit returned is there at the end.
    let tmp = tempfile::tempdir().unwrap();
    let mounted = match mount_ext4(tmp.path(), 48) {
        Ok(m) => m,
        Err(reason) => {
            eprintln!("skipped: loop-mounted ext4 unavailable ({reason})");
            return;
        }
    };
    let ballast = mounted.mount_point.join("ballast");
    std::fs::write(&ballast, vec![1u8; 8 << 20]).unwrap();
    let path = mounted.mount_point.join("db");
    let options = Options {
        pool_size_bytes: 4 << 20,
        wal_segment_size_bytes: 1 << 20,
        min_wal_size_bytes: 2 << 20,
        max_wal_size_bytes: 1 << 40,
        checkpoint_interval: Duration::from_secs(3600),
        checkpoint_wal_bytes: 8 << 20,
        background_io: false,
        ..Options::default()
    };
    let db = Database::create(&path, options.clone()).unwrap();
    let tree = db.create_tree("rows").unwrap();
    db.commit().unwrap();
    let value = [7u8; 500];
    // Insert rows in batches of 20 with a commit each; returns the rows
    // committed and the first error.
    let write = |db: &Database, tree: &folio_btree::Tree, from: u64, upto: u64| {
        let mut committed = from;
        for row in from..upto {
            let result = tree
                .upsert(&row.to_be_bytes(), &value)
                .map(drop)
                .map_err(folio_db::DbError::from)
                .and_then(|()| {
                    if row % 20 == 19 {
                        db.commit().map(drop)
                    } else {
                        Ok(())
                    }
                });
            match result {
                Ok(()) if row % 20 == 19 => committed = row + 1,
                Ok(()) => {}
                Err(e) => return (committed, Some(e)),
            }
        }
        (committed, None)
    };
    let (committed, error) = write(&db, &tree, 0, 1_000_000);
    let error = error.expect("the disk filled");
    assert!(error.is_no_space(), "{error}");
    assert!(!db.is_poisoned());
    eprintln!("full after {committed} rows: {error}");
    // More attempts on the full disk fail the same way, and only them.
    for _ in 0..3 {
        let (_, again) = write(&db, &tree, committed, committed + 2_000);
        if let Some(e) = again {
            assert!(e.is_no_space(), "{e}");
        }
    }
    drop(tree);
    db.close().expect("close needs no free space");
    let db = Database::open(&path, options.clone()).expect("reopening in place needs no space");
    let tree = db.open_tree("rows").unwrap().unwrap();
    for r in 0..committed {
        assert!(tree.get(&r.to_be_bytes()).unwrap().is_some(), "row {r}");
    }
    std::fs::remove_file(&ballast).unwrap();
    // ext4 reuses freed blocks only once the journal commits.
    run("sync", &[&"-f", &mounted.mount_point]).unwrap();
    let (more, error) = write(&db, &tree, committed, committed + 4_000);
    assert!(error.is_none(), "{error:?}");
    drop(tree);
    db.close().unwrap();
    let db = Database::open(&path, options).unwrap();
    let tree = db.open_tree("rows").unwrap().unwrap();
    for r in 0..more {
        assert!(tree.get(&r.to_be_bytes()).unwrap().is_some(), "row {r}");
    }
    db.verify().unwrap();
    db.check_invariants().unwrap();
    drop((tree, db));
    drop(mounted);
}
