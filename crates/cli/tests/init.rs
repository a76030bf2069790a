//! `folio init` end to end: the built binary creates databases as initdb
//! does, with the checksum setting asked for, and refuses to overwrite.

use folio_db::offline::StoppedDatabase;
use std::path::Path;
use std::process::Command;

/// Runs `folio init ARGS DIR`: (exit code, stderr).
fn init(args: &[&str], dir: &Path) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_folio"))
        .arg("init")
        .args(args)
        .arg(dir)
        .output()
        .expect("running folio init");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (output.status.code().expect("exit code"), stderr)
}

// Proves `folio init` makes a cleanly shut down database with checksums
// on by default and off with --no-data-checksums, accepts an empty
// directory, and refuses a non-empty one and both flags at once.
#[test]
fn init_creates_and_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let on = tmp.path().join("on");
    assert_eq!(init(&[], &on).0, 0);
    let stopped = StoppedDatabase::open(&on).unwrap();
    assert!(stopped.control().checksums);
    stopped.require_clean_shutdown().unwrap();
    drop(stopped);

    let off = tmp.path().join("off");
    std::fs::create_dir(&off).unwrap();
    assert_eq!(
        init(&["--no-data-checksums"], &off).0,
        0,
        "an empty directory is fine"
    );
    assert!(!StoppedDatabase::open(&off).unwrap().control().checksums);

    let (code, stderr) = init(&[], &on);
    assert_eq!(code, 1);
    assert!(stderr.contains("is not empty"), "{stderr}");

    let both = tmp.path().join("both");
    let (code, _) = init(&["--data-checksums", "--no-data-checksums"], &both);
    assert_eq!(code, 2, "clap refuses conflicting flags");
    assert!(!both.exists());
}
