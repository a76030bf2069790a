//! Damaged files are named, never read as a smaller database (DESIGN §5):
//! a data file shorter than its meta page says, a WAL segment shorter than
//! the segment size, a missing WAL directory. Each refusal says what is
//! wrong, which file, and what to do, and changes nothing on disk (every
//! refused open here goes through `refused_open`, which compares the whole
//! directory before and after). The override accepts a lost WAL tail and
//! reports what it discarded.

mod common;

use common::*;
use folio_db::{Database, DbError, Options};
use folio_wal::RmgrId;
use std::path::Path;

/// 64 KiB segments and a pool big enough that replay evicts nothing.
fn options() -> Options {
    Options {
        pool_size_bytes: 8 << 20,
        ..small_options()
    }
}

/// A database at `path` with `keys` committed rows (one commit per 10),
/// closed cleanly or left as a crash would (dropped without `close`, so
/// the reopen replays). Returns the number of commits.
fn make(path: &Path, keys: u64, clean: bool) -> u64 {
    let db = Database::create(path, options()).unwrap();
    let tree = db.create_tree("rows").unwrap();
    db.commit().unwrap();
    let mut commits = 1;
    for k in 0..keys {
        tree.upsert(&k.to_be_bytes(), &[k as u8; 300]).unwrap();
        if k % 10 == 9 {
            db.commit().unwrap();
            commits += 1;
        }
    }
    db.commit().unwrap();
    drop(tree);
    if clean {
        db.close().unwrap();
    } else {
        drop(db); // no shutdown checkpoint: the next open replays
    }
    commits + 1
}

/// The WAL segment holding records two segments before the newest: later
/// segments hold records the override can count.
fn segment_before_the_last_two(path: &Path) -> std::path::PathBuf {
    let mut segments: Vec<_> = std::fs::read_dir(path.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("wal-0")
        })
        .collect();
    segments.sort();
    segments[segments.len() - 3].clone()
}

fn set_len(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

// Proves a data file cut short — to half its length, to one page, by one
// page — is refused at open with the file's path and both lengths, before
// recovery writes anything.
#[test]
fn a_truncated_data_file_is_refused_with_both_lengths() {
    for (clean, cut) in [(true, 2u64), (true, 0), (false, 1)] {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("db");
        make(&path, 3000, clean);
        let data = path.join("data");
        let len = std::fs::metadata(&data).unwrap().len();
        let cut_len = match cut {
            2 => len / 2,
            0 => 8192,
            _ => len - 8192,
        };
        // The file is reserved ahead of its pages; cut into the pages.
        let pages_len = {
            let db = Database::open(&path, options()).unwrap();
            let pages = db.pool().page_count().unwrap() * 8192;
            db.close().unwrap();
            pages
        };
        let cut_len = cut_len.min(pages_len - 8192);
        set_len(&data, cut_len);
        let err = refused_open(&path, options());
        let message = err.to_string();
        assert!(message.contains(&data.display().to_string()), "{message}");
        assert!(
            message.contains(&format!("{cut_len} bytes long")),
            "{message}"
        );
        assert!(message.contains("restore"), "{message}");
    }
}

// Proves a WAL segment cut to any shorter length, zero included, is refused
// at open with its name and both lengths and the override to use, and
// changes nothing; the override opens, reports the bytes missing and the
// records (and commits) it found after the damage, and the database then
// opens normally with every commit before the damage.
#[test]
fn a_truncated_wal_segment_is_refused_and_the_override_reports_the_loss() {
    for cut in [0u64, 8192 + 100] {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("db");
        make(&path, 2000, false);
        let victim_path = segment_before_the_last_two(&path);
        let victim = victim_path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        set_len(&victim_path, cut);
        let err = refused_open(&path, options());
        let message = err.to_string();
        assert!(
            matches!(err, DbError::Wal(folio_wal::WalError::ShortSegment { .. })),
            "{message}"
        );
        assert!(message.contains(victim.as_str()), "{message}");
        assert!(message.contains(&format!("{cut} bytes long")), "{message}");
        assert!(message.contains("--truncate-at-corruption"), "{message}");

        let lenient = Options {
            truncate_at_corruption: true,
            ..options()
        };
        let db = Database::open(&path, lenient).unwrap();
        let discarded = db
            .recovery_stats()
            .unwrap()
            .discarded
            .clone()
            .expect("the override reports what it discarded");
        assert_eq!(discarded.short_segments, vec![(victim.clone(), cut)]);
        assert_eq!(discarded.missing_bytes, (64 << 10) - cut);
        assert!(discarded.records > 0, "{discarded:?}");
        let commits = discarded.records_of(RmgrId::XACT, folio_recovery::XACT_COMMIT);
        assert!(commits > 0, "{discarded:?}");
        let tree = db.open_tree("rows").unwrap().unwrap();
        let kept = (0..2000u64)
            .take_while(|k| tree.get(&k.to_be_bytes()).unwrap().is_some())
            .count();
        assert!(kept > 0 && kept < 2000, "{kept} rows kept");
        drop(tree);
        db.close().unwrap();
        let db = Database::open(&path, options()).expect("a normal open after the override");
        db.verify().unwrap();
        db.check_invariants().unwrap();
    }
}

// Proves a database whose `wal/` directory is missing is refused with a
// message naming it, and the open creates nothing (it used to create an
// empty `wal/` and then refuse).
#[test]
fn a_missing_wal_directory_is_refused_and_nothing_is_created() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    make(&path, 10, true);
    std::fs::rename(path.join("wal"), tmp.path().join("elsewhere")).unwrap();
    let err = refused_open(&path, options());
    let message = err.to_string();
    assert!(
        message.contains("wal") && message.contains("missing"),
        "{message}"
    );
    assert!(!path.join("wal").exists());
}

// Proves mid-log WAL corruption is refused at open without writing
// anything, and the message names the LSN and the override.
#[test]
fn mid_log_corruption_is_refused_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    make(&path, 2000, false);
    let victim = &segment_before_the_last_two(&path);
    let mut bytes = std::fs::read(victim).unwrap();
    bytes[3 * 8192 + 200] ^= 0x10;
    std::fs::write(victim, bytes).unwrap();
    let err = refused_open(&path, options());
    let message = err.to_string();
    assert!(message.contains("corrupt WAL record at"), "{message}");
    assert!(message.contains("truncate_at_corruption"), "{message}");
}

// Proves user-facing messages carry no Rust `Debug` output and say each
// thing once: creating where a database exists names the directory; an
// empty `wal.meta` says so once.
#[test]
fn messages_name_the_place_once_without_debug_output() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    make(&path, 10, true);
    let err = Database::create(&path, options()).unwrap_err();
    let message = err.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(
        !message.contains("FsDir") && !message.contains("dir_fd"),
        "{message}"
    );
    std::fs::write(path.join("wal").join("wal.meta"), b"").unwrap();
    let err = refused_open(&path, options());
    let message = err.to_string();
    assert_eq!(message.matches("too short").count(), 1, "{message}");
    assert!(message.contains("wal.meta"), "{message}");
}
