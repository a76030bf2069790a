//! The Database API: create/open/close on real directories and on the
//! simulated device, durability of commits, recovery on open, the lock
//! file, damaged control files, async commit.

mod common;

use common::*;
use folio_db::{Database, DbError, Options, Storage};
use folio_io::{SimConfig, SimDir};
use std::sync::Arc;

#[test]
fn create_commit_close_reopen_on_a_real_directory() {
    // Proves the round trip on a real filesystem: trees created, filled and
    // committed are there after close + open, every tree verifies, and the
    // clean shutdown leaves nothing to replay but the shutdown checkpoint.
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let ops = ops(1, 300);
    let mut expected = State::default();
    ops.iter().for_each(|op| expected.apply(op));
    {
        let db = Database::create(&path, small_options()).unwrap();
        let trees = create_trees(&db).unwrap();
        let (done, _, err) = run(&db, &trees, &ops);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(done, ops.len());
        drop(trees);
        db.close().unwrap();
    }
    let db = Database::open(&path, small_options()).unwrap();
    let stats = db.recovery_stats().unwrap();
    assert!(stats.records <= 2, "only the shutdown checkpoint: {stats}");
    assert_eq!(read_state(&open_trees(&db)), expected);
    // The root map, the CSN log's directory, the catalog's twelve trees
    // (`folio.dropped` and the two of `folio.description` included), the
    // two trees, and the toast heap's pages.
    assert_eq!(db.verify().unwrap().len(), 17);
    assert!(matches!(
        Database::create(&path, small_options()),
        Err(DbError::Locked { .. }) | Err(DbError::AlreadyExists { .. })
    ));
}

#[test]
fn the_files_bytes_are_the_directory_files_sizes() {
    // Proves `Storage::files_bytes` sums every file of the data directory
    // and of the WAL's subdirectory, as the filesystem reports them, and
    // that counting them leaves the lock held.
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::create(tmp.path(), small_options()).unwrap();
    let trees = create_trees(&db).unwrap();
    let (_, _, err) = run(&db, &trees, &ops(2, 50));
    assert!(err.is_none(), "{err:?}");
    let counted = db.storage().files_bytes().unwrap();
    let mut on_disk = 0;
    for dir in [tmp.path().to_path_buf(), tmp.path().join(folio_db::WAL_DIR)] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let meta = entry.unwrap().metadata().unwrap();
            if meta.is_file() {
                on_disk += meta.len();
            }
        }
    }
    assert_eq!(counted, on_disk);
    assert!(counted > 0);
    let err = Database::open(tmp.path(), small_options()).unwrap_err();
    assert!(matches!(err, DbError::Locked { .. }), "{err}");
    drop(trees);
    db.close().unwrap();
}

#[test]
fn a_second_open_of_the_same_directory_is_refused() {
    // Proves the lock file: while one handle has the database open, another
    // open (here from the same process, a separate open file description)
    // fails with Locked and a message naming the lock; after the first
    // handle closes, opening works.
    let tmp = tempfile::tempdir().unwrap();
    let db = Database::create(tmp.path(), small_options()).unwrap();
    let err = Database::open(tmp.path(), small_options()).unwrap_err();
    assert!(matches!(err, DbError::Locked { .. }), "{err}");
    assert!(err.to_string().contains("in use by another process"));
    db.close().unwrap();
    Database::open(tmp.path(), small_options()).unwrap();
}

#[test]
fn wrong_or_damaged_directories_are_clear_errors() {
    // Proves opening a directory without a database, or with a damaged
    // control file, fails with a message saying so, never a panic.
    let tmp = tempfile::tempdir().unwrap();
    let err = Database::open(tmp.path(), small_options()).unwrap_err();
    assert!(err.to_string().contains("not a folio database"), "{err}");
    let dir = SimDir::new(SimConfig::seeded(3));
    Database::create_in(Storage::single(dir.clone()), small_options())
        .unwrap()
        .close()
        .unwrap();
    dir.corrupt_bit(folio_recovery::CONTROL_FILE, 8 * 30)
        .unwrap();
    let err = Database::open_in(Storage::single(dir.clone()), small_options()).unwrap_err();
    assert!(err.to_string().contains("control file damaged"), "{err}");
}

#[test]
fn committed_work_survives_a_crash_and_uncommitted_may_not() {
    // Proves on the simulated device: after a power loss, every operation
    // before the last acknowledged commit is present, the state is a prefix
    // of the operations, trees verify, and recovery ran with its statistics;
    // and the WAL was read once: the open continued it where replay found
    // its end, having read no record itself.
    let dir = SimDir::new(SimConfig::seeded(21));
    let ops = ops(21, 400);
    let db = Database::create_in(Storage::single(dir.clone()), small_options()).unwrap();
    let trees = create_trees(&db).unwrap();
    let cut = ops.len() - 7;
    let (done, acked, err) = run(&db, &trees, &ops[..cut]);
    assert!(err.is_none());
    let after = dir.crash();
    drop((trees, db));
    let db = Database::open_in(Storage::single(after), small_options()).unwrap();
    let stats = db.recovery_stats().unwrap().clone();
    assert!(stats.records > 0 && stats.fpis_applied > 0, "{stats}");
    let info = db.wal().open_info();
    assert_eq!(info.end_lsn, stats.end_lsn);
    assert_eq!(info.records_scanned, stats.records, "replay's records only");
    let found = read_state(&open_trees(&db));
    assert!(matching_prefix(&ops, acked, done, &found).is_some());
    db.verify().unwrap();
    db.check_invariants().unwrap();
}

#[test]
fn async_commit_returns_at_once_and_is_durable_after_the_interval() {
    // Proves synchronous_commit = off: commit does not wait for an fsync,
    // and the background flusher makes it durable within its interval.
    let dir = SimDir::new(SimConfig::seeded(4));
    let options = Options {
        synchronous_commit: false,
        async_flush_interval_ms: 5,
        ..small_options()
    };
    let db = Database::create_in(Storage::single(dir.clone()), options.clone()).unwrap();
    let tree = db.create_tree("t").unwrap();
    tree.insert(b"k", b"v").unwrap();
    let end = db.commit().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while db.wal().synced_lsn() < end {
        assert!(std::time::Instant::now() < deadline, "never flushed");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let after = dir.crash();
    drop((tree, db));
    let db = Database::open_in(Storage::single(after), options).unwrap();
    let tree = db.open_tree("t").unwrap().unwrap();
    assert_eq!(tree.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    let _ = Arc::strong_count(db.pool());
}
