//! The `Dir`/`File` contract, checked identically on both devices: every
//! check below is generated once for `FsDir` (a temporary directory) and once
//! for `SimDir`, so callers can rely on the two behaving alike.

use folio_io::{Dir, FsDir, OpenOptions, SimConfig, SimDir};
use std::io::ErrorKind;
use std::sync::Arc;

/// A directory of each kind; the `TempDir` guard keeps the real one alive.
fn fs_dir() -> (Option<tempfile::TempDir>, Arc<dyn Dir>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = FsDir::open(tmp.path().join("db")).expect("open FsDir");
    (Some(tmp), Arc::new(dir))
}

fn sim_dir() -> (Option<tempfile::TempDir>, Arc<dyn Dir>) {
    (None, SimDir::new(SimConfig::seeded(7)))
}

macro_rules! on_both_devices {
    ($($name:ident),* $(,)?) => {
        mod fs_device {
            $( #[test] fn $name() { let (_guard, dir) = super::fs_dir(); super::$name(&*dir); } )*
        }
        mod sim_device {
            $( #[test] fn $name() { let (_guard, dir) = super::sim_dir(); super::$name(&*dir); } )*
        }
    };
}

on_both_devices!(
    round_trip_at_offsets,
    reads_past_end_are_zeros,
    set_len_truncates_and_zero_extends,
    open_modes,
    rename_remove_exists_list,
    handle_survives_rename_and_remove,
    bad_names_are_rejected,
    concurrent_disjoint_writes,
    sync_and_hints_succeed,
);

// Proves written bytes read back unchanged at arbitrary, unaligned offsets,
// and that the length follows the furthest write.
fn round_trip_at_offsets(dir: &dyn Dir) {
    let file = dir.open("data", OpenOptions::CREATE).unwrap();
    assert!(file.is_empty().unwrap());
    let a: Vec<u8> = (0..8192u32).map(|i| (i * 7 + 3) as u8).collect();
    file.write_at(&a, 0).unwrap();
    file.write_at(b"hello", 8190).unwrap();
    assert_eq!(file.len().unwrap(), 8195);
    let mut back = vec![0u8; 8190];
    file.read_at(&mut back, 0).unwrap();
    assert_eq!(back, a[..8190]);
    let mut tail = [0u8; 5];
    file.read_at(&mut tail, 8190).unwrap();
    assert_eq!(&tail, b"hello");
}

// Proves a read wholly or partly past the end of the file returns zeros for
// the missing bytes (a page never written is a zero page).
fn reads_past_end_are_zeros(dir: &dyn Dir) {
    let file = dir.open("short", OpenOptions::CREATE).unwrap();
    file.write_at(&[0xAB; 100], 0).unwrap();
    let mut buf = [0xFFu8; 300];
    file.read_at(&mut buf, 50).unwrap();
    assert!(buf[..50].iter().all(|&b| b == 0xAB));
    assert!(buf[50..].iter().all(|&b| b == 0));
    let mut far = [0xFFu8; 64];
    file.read_at(&mut far, 1 << 40).unwrap();
    assert_eq!(far, [0u8; 64]);
    assert_eq!(file.len().unwrap(), 100, "reads never change the length");
}

// Proves set_len shrinks (dropping bytes) and extends (with zeros).
fn set_len_truncates_and_zero_extends(dir: &dyn Dir) {
    let file = dir.open("sized", OpenOptions::CREATE).unwrap();
    file.write_at(&[1u8; 1000], 0).unwrap();
    file.set_len(10).unwrap();
    assert_eq!(file.len().unwrap(), 10);
    file.set_len(4096).unwrap();
    assert_eq!(file.len().unwrap(), 4096);
    let mut buf = [0xFFu8; 4096];
    file.read_at(&mut buf, 0).unwrap();
    assert!(buf[..10].iter().all(|&b| b == 1));
    assert!(
        buf[10..].iter().all(|&b| b == 0),
        "truncated bytes must not come back"
    );
}

// Proves Existing/CreateOrOpen/CreateNew follow their documented rules and
// reopening keeps the contents.
fn open_modes(dir: &dyn Dir) {
    let err = dir.open("missing", OpenOptions::EXISTING).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    let file = dir.open("f", OpenOptions::CREATE_NEW).unwrap();
    file.write_at(b"kept", 0).unwrap();
    let err = dir.open("f", OpenOptions::CREATE_NEW).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AlreadyExists);
    for options in [OpenOptions::CREATE, OpenOptions::EXISTING] {
        let again = dir.open("f", options).unwrap();
        let mut buf = [0u8; 4];
        again.read_at(&mut buf, 0).unwrap();
        assert_eq!(&buf, b"kept");
    }
}

// Proves rename replaces its target, remove unlinks, and exists/list agree
// (list sorted); missing names give NotFound.
fn rename_remove_exists_list(dir: &dyn Dir) {
    for name in ["c", "a", "b"] {
        let file = dir.open(name, OpenOptions::CREATE).unwrap();
        file.write_at(name.as_bytes(), 0).unwrap();
    }
    assert_eq!(dir.list().unwrap(), ["a", "b", "c"]);
    dir.rename("a", "c").unwrap();
    assert_eq!(dir.list().unwrap(), ["b", "c"]);
    let mut buf = [0u8; 1];
    dir.open("c", OpenOptions::EXISTING)
        .unwrap()
        .read_at(&mut buf, 0)
        .unwrap();
    assert_eq!(&buf, b"a", "rename must replace the target with the source");
    dir.rename("c", "c").unwrap();
    assert!(dir.exists("c").unwrap());
    dir.remove("b").unwrap();
    assert!(!dir.exists("b").unwrap());
    assert_eq!(dir.list().unwrap(), ["c"]);
    assert_eq!(dir.remove("b").unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(
        dir.rename("b", "d").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    dir.sync_dir().unwrap();
}

// Proves an open handle follows its file across a rename and keeps working
// after the name is removed (POSIX semantics).
fn handle_survives_rename_and_remove(dir: &dyn Dir) {
    let file = dir.open("old", OpenOptions::CREATE).unwrap();
    dir.rename("old", "new").unwrap();
    file.write_at(b"moved", 0).unwrap();
    let mut buf = [0u8; 5];
    dir.open("new", OpenOptions::EXISTING)
        .unwrap()
        .read_at(&mut buf, 0)
        .unwrap();
    assert_eq!(&buf, b"moved");
    dir.remove("new").unwrap();
    file.write_at(b"ghost", 0).unwrap();
    file.read_at(&mut buf, 0).unwrap();
    assert_eq!(&buf, b"ghost");
    assert!(dir.list().unwrap().is_empty());
}

// Proves names that are empty, "." or "..", or contain '/' or NUL are
// refused with InvalidInput by every operation that takes a name.
fn bad_names_are_rejected(dir: &dyn Dir) {
    for bad in ["", ".", "..", "a/b", "/etc", "x\0y", "../escape"] {
        let invalid = |r: std::io::Result<()>| {
            assert_eq!(
                r.unwrap_err().kind(),
                ErrorKind::InvalidInput,
                "name {bad:?} accepted"
            );
        };
        invalid(dir.open(bad, OpenOptions::CREATE).map(drop));
        invalid(dir.remove(bad));
        invalid(dir.rename(bad, "ok"));
        invalid(dir.rename("ok", bad));
        invalid(dir.exists(bad).map(drop));
    }
    assert!(
        dir.list().unwrap().is_empty(),
        "no bad name may create anything"
    );
}

// Proves positioned I/O from several threads on one handle does not
// interfere: each thread's range reads back as it wrote it.
fn concurrent_disjoint_writes(dir: &dyn Dir) {
    let file = dir.open("shared", OpenOptions::CREATE).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4u8 {
            let file = &file;
            scope.spawn(move || {
                for i in 0..16u64 {
                    let offset = (i * 4 + u64::from(t)) * 512;
                    file.write_at(&[t + 1; 512], offset).unwrap();
                }
            });
        }
    });
    let mut buf = vec![0u8; 64 * 512];
    file.read_at(&mut buf, 0).unwrap();
    for (sector, chunk) in buf.chunks(512).enumerate() {
        let expected = (sector % 4) as u8 + 1;
        assert!(
            chunk.iter().all(|&b| b == expected),
            "sector {sector} mixed"
        );
    }
}

// Proves sync, sync_dir and the read-ahead hint succeed on a healthy device,
// including a zero-length hint.
fn sync_and_hints_succeed(dir: &dyn Dir) {
    let file = dir.open("s", OpenOptions::CREATE).unwrap();
    file.write_at(&[9u8; 8192], 0).unwrap();
    file.sync().unwrap();
    dir.sync_dir().unwrap();
    file.advise_willneed(0, 8192).unwrap();
    file.advise_willneed(4096, 0).unwrap();
}
