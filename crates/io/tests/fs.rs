//! FsDir-specific behaviour: directory creation, listing, O_DIRECT handling
//! and persistence through a real filesystem.

use folio_io::{DIRECT_IO_ALIGN_BYTES, Dir, DirectIoRefused, FsDir, OpenMode, OpenOptions};
use std::io::ErrorKind;
use std::path::Path;

const DIRECT_CREATE: OpenOptions = OpenOptions {
    mode: OpenMode::CreateOrOpen,
    direct: true,
};

/// A zeroed buffer of `len` bytes starting on a DIRECT_IO_ALIGN_BYTES boundary
/// (returned as the backing vector and the start index).
fn aligned_buffer(len: usize) -> (Vec<u8>, usize) {
    let align = DIRECT_IO_ALIGN_BYTES as usize;
    let backing = vec![0u8; len + align];
    let start = backing.as_ptr().align_offset(align);
    (backing, start)
}

/// Opens `name` with O_DIRECT, or `None` if this filesystem refuses it.
fn open_direct(dir: &FsDir, name: &str) -> Option<std::sync::Arc<dyn folio_io::File>> {
    match dir.open(name, DIRECT_CREATE) {
        Ok(file) => Some(file),
        Err(err) => {
            assert!(
                refused_direct(&err),
                "unexpected error opening O_DIRECT: {err}"
            );
            eprintln!("skipping: {err}");
            None
        }
    }
}

fn refused_direct(err: &std::io::Error) -> bool {
    err.kind() == ErrorKind::InvalidInput
        && err
            .get_ref()
            .is_some_and(|inner| inner.downcast_ref::<DirectIoRefused>().is_some())
}

// Proves FsDir::open creates missing parents and reports its path.
#[test]
fn open_creates_missing_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("a/b/c");
    let dir = FsDir::open(&path).unwrap();
    assert!(path.is_dir());
    assert_eq!(dir.path(), path);
    FsDir::open(&path).expect("opening an existing directory works too");
}

// Proves list names regular files only (not subdirectories), sorted.
#[test]
fn list_skips_non_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDir::open(tmp.path()).unwrap();
    std::fs::create_dir(tmp.path().join("subdir")).unwrap();
    dir.open("z", OpenOptions::CREATE).unwrap();
    dir.open("m", OpenOptions::CREATE).unwrap();
    assert_eq!(dir.list().unwrap(), ["m", "z"]);
    assert!(dir.exists("subdir").unwrap(), "exists sees any entry");
}

// Proves data written through one FsDir is read back by a fresh FsDir on the
// same path (it really reached the filesystem).
#[test]
fn data_persists_across_instances() {
    let tmp = tempfile::tempdir().unwrap();
    {
        let dir = FsDir::open(tmp.path()).unwrap();
        let file = dir.open("p", OpenOptions::CREATE_NEW).unwrap();
        file.write_at(b"durable", 4096).unwrap();
        file.sync().unwrap();
        dir.rename("p", "q").unwrap();
        dir.sync_dir().unwrap();
    }
    let dir = FsDir::open(tmp.path()).unwrap();
    let file = dir.open("q", OpenOptions::EXISTING).unwrap();
    assert_eq!(file.len().unwrap(), 4096 + 7);
    let mut buf = [0u8; 7];
    file.read_at(&mut buf, 4096).unwrap();
    assert_eq!(&buf, b"durable");
    assert_eq!(
        std::fs::read(tmp.path().join("q")).unwrap()[4096..],
        *b"durable"
    );
}

// Proves O_DIRECT round trips aligned transfers, zero-fills a read that runs
// past a misaligned end of file, and rejects misaligned transfers with a clear
// InvalidInput instead of a bare EINVAL.
#[test]
fn direct_io_aligned_round_trip_and_misalignment_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDir::open(tmp.path()).unwrap();
    let Some(file) = open_direct(&dir, "direct") else {
        return;
    };
    let (mut backing, start) = aligned_buffer(8192);
    let buf = &mut backing[start..start + 8192];
    buf.iter_mut()
        .enumerate()
        .for_each(|(i, b)| *b = (i % 251) as u8);
    let written = buf.to_vec();
    file.write_at(buf, 4096).unwrap();
    file.sync().unwrap();
    buf.fill(0);
    file.read_at(buf, 4096).unwrap();
    assert_eq!(buf, &written[..]);

    // Shrink to a length that is not a multiple of the alignment: the direct
    // read comes back short at end of file and the rest must be zeros.
    file.set_len(4096 + 5000).unwrap();
    file.read_at(buf, 4096).unwrap();
    assert_eq!(buf[..5000], written[..5000]);
    assert!(buf[5000..].iter().all(|&b| b == 0));

    let misaligned = [
        file.read_at(&mut backing[start + 1..start + 4097], 0),
        file.write_at(&backing[start..start + 100], 0),
        file.write_at(&backing[start..start + 4096], 512),
    ];
    for result in misaligned {
        let err = result.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(err.to_string().contains("aligned"), "unclear error: {err}");
    }
}

// Proves a filesystem that refuses O_DIRECT yields DirectIoRefused naming the
// file (tmpfs before Linux 6.6); on kernels where tmpfs accepts O_DIRECT the
// open simply succeeds.
#[test]
fn direct_io_refusal_is_reported_clearly() {
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        eprintln!("skipping: no /dev/shm");
        return;
    }
    let tmp = tempfile::tempdir_in(shm).unwrap();
    let dir = FsDir::open(tmp.path()).unwrap();
    match dir.open("d", DIRECT_CREATE) {
        Ok(_) => eprintln!("tmpfs accepts O_DIRECT on this kernel"),
        Err(err) => {
            assert!(refused_direct(&err), "unexpected error: {err}");
            assert!(err.to_string().contains("O_DIRECT"), "unclear error: {err}");
            assert!(
                err.to_string()
                    .contains(&tmp.path().join("d").display().to_string())
            );
        }
    }
}

// Proves FsDir::open_existing refuses a missing directory and creates
// nothing, and opens an existing one.
#[test]
fn open_existing_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("missing");
    let err = FsDir::open_existing(&path).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(!path.exists());
    let dir = FsDir::open_existing(tmp.path()).unwrap();
    assert_eq!(dir.path(), tmp.path());
}

// Proves allocate extends a real file with its blocks allocated (the
// filesystem counts them, unlike a sparse set_len), keeps the contents,
// and leaves a longer file alone.
#[test]
fn allocate_extends_with_real_blocks() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDir::open(tmp.path()).unwrap();
    let file = dir.open("f", OpenOptions::CREATE).unwrap();
    file.write_at(b"kept", 0).unwrap();
    file.allocate(1 << 20).unwrap();
    assert_eq!(file.len().unwrap(), 1 << 20);
    let blocks_bytes = std::fs::metadata(tmp.path().join("f")).unwrap().blocks() * 512;
    assert!(
        blocks_bytes >= 1 << 20,
        "only {blocks_bytes} bytes allocated"
    );
    file.allocate(4096).unwrap();
    assert_eq!(file.len().unwrap(), 1 << 20, "allocate never shrinks");
    let mut buf = [0u8; 4];
    file.read_at(&mut buf, 0).unwrap();
    assert_eq!(&buf, b"kept");
}
