//! The database tools end to end: the built `folio` binary run on databases
//! created with folio-db.

use folio_db::{Database, Options};
use folio_page::{Lsn, PAGE_SIZE, PageId};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

/// Tests here run one at a time. A child process spawned by one test
/// shares the parent's open files between fork and exec, including a
/// database's `LOCK` file another test just closed; its flock then outlives
/// the close for that moment and the other test's reopen sees the database
/// as in use.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

const WAL_SEGMENT_BYTES: u64 = 256 << 10;

fn options() -> Options {
    Options {
        pool_size_bytes: 1 << 20,
        max_database_bytes: 64 << 20,
        wal_segment_size_bytes: WAL_SEGMENT_BYTES,
        min_wal_size_bytes: WAL_SEGMENT_BYTES,
        background_io: false,
        ..Options::default()
    }
}

/// Runs `folio ARGS`; returns (exit code, stdout, stderr). Fails the test
/// on a panic in the tool.
fn folio(args: &[&str], dir: &Path) -> (i32, String, String) {
    let output: Output = Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(args)
        .arg(dir)
        .output()
        .expect("running folio");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !stderr.contains("panicked"),
        "folio {args:?} panicked: {stderr}"
    );
    let code = output.status.code().expect("exit code");
    (code, stdout, stderr)
}

/// A closed database with a unique tree `t` of `keys` keys, committed every
/// 20 inserts (each commit an fsync, so the WAL is durable in steps).
/// Returns the tree's root page.
fn closed_db(dir: &Path, keys: u32) -> PageId {
    let db = Database::create(dir, options()).unwrap();
    let tree = db.create_tree("t").unwrap();
    for i in 0..keys {
        tree.insert(format!("key{i:06}").as_bytes(), &[b'v'; 60])
            .unwrap();
        if i % 20 == 19 {
            db.commit().unwrap();
        }
    }
    db.commit().unwrap();
    let root = db.roots().lookup("t").unwrap().expect("tree t").root;
    db.close().unwrap();
    root
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn flip_bit(path: &Path, offset: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[offset as usize] ^= 0x04;
    std::fs::write(path, bytes).unwrap();
}

fn parse_lsn(text: &str) -> Lsn {
    let (hi, lo) = text.split_once('/').unwrap();
    Lsn((u64::from_str_radix(hi, 16).unwrap() << 32) | u64::from_str_radix(lo, 16).unwrap())
}

// Proves waldump lists every record of a small database with resource
// manager and type names from the registry, --limit and --from (both LSN
// notations) select records, and the --stats sums (records, bytes, FPI
// bytes, per resource manager and per type) match the listing.
#[test]
fn waldump_lists_records_and_stats_match() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    closed_db(&dir, 300);

    let (code, text, stderr) = folio(&["waldump"], &dir);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("end of WAL at"), "{stderr}");
    assert!(text.contains("rmgr: btree"), "{text}");
    assert!(text.contains("type: COMMIT"), "{text}");
    assert!(text.contains("type: CHECKPOINT"), "{text}");
    assert!(text.contains("FPI"), "{text}");

    let (code, out, stderr) = folio(&["waldump", "--json"], &dir);
    assert_eq!(code, 0, "{stderr}");
    let records = json_lines(&out);
    assert_eq!(records.len(), text.lines().count());
    assert!(records.len() > 30, "{} records", records.len());
    let total_len: u64 = records.iter().map(|r| r["len"].as_u64().unwrap()).sum();
    let fpi_len: u64 = records.iter().map(|r| r["fpi_len"].as_u64().unwrap()).sum();
    assert!(fpi_len > 0 && fpi_len.is_multiple_of(PAGE_SIZE as u64));
    let lsns: Vec<Lsn> = records
        .iter()
        .map(|r| parse_lsn(r["lsn"].as_str().unwrap()))
        .collect();
    assert!(lsns.windows(2).all(|w| w[0] < w[1]), "LSNs ascend");
    for pair in records.windows(2) {
        assert_eq!(pair[1]["prev"], pair[0]["lsn"], "back-links chain");
    }

    let (code, out, stderr) = folio(&["waldump", "--stats", "--json"], &dir);
    assert_eq!(code, 0, "{stderr}");
    let stats: Value = serde_json::from_str(out.trim()).unwrap();
    let total = &stats["total"];
    assert_eq!(total["records"].as_u64(), Some(records.len() as u64));
    assert_eq!(total["combined_bytes"].as_u64(), Some(total_len));
    assert_eq!(total["fpi_bytes"].as_u64(), Some(fpi_len));
    for group in ["rmgrs", "types"] {
        let rows = stats[group].as_array().unwrap();
        for field in ["records", "record_bytes", "fpi_bytes", "combined_bytes"] {
            let sum: u64 = rows.iter().map(|r| r[field].as_u64().unwrap()).sum();
            assert_eq!(Some(sum), total[field].as_u64(), "{group} {field}");
        }
    }
    let btree_records = records.iter().filter(|r| r["rmgr"] == "btree").count() as u64;
    let btree_row = stats["rmgrs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "btree")
        .unwrap();
    assert_eq!(btree_row["records"].as_u64(), Some(btree_records));
    let (code, table, _) = folio(&["waldump", "--stats"], &dir);
    assert_eq!(code, 0);
    assert!(
        table.contains("btree/") && table.contains("Total"),
        "{table}"
    );

    let (code, out, _) = folio(&["waldump", "--json", "--limit", "5"], &dir);
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out), records[..5]);
    let from = records[7]["lsn"].as_str().unwrap();
    let (code, out, _) = folio(&["waldump", "--json", "--from", from], &dir);
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out), records[7..]);
    let decimal = parse_lsn(from).0.to_string();
    let (code, out, _) = folio(
        &["waldump", "--json", "--limit", "2", "--from", &decimal],
        &dir,
    );
    assert_eq!(code, 0);
    assert_eq!(json_lines(&out), records[7..9]);
}

// Proves a corrupt record in the middle of the WAL (durable, followed by
// valid WAL) makes waldump print every record before it and then fail with
// exit code 1 naming its LSN; and that `folio verify` refuses that database
// with a clear error.
#[test]
fn waldump_reports_mid_log_corruption() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    closed_db(&dir, 300);
    let (_, out, _) = folio(&["waldump", "--json"], &dir);
    let records = json_lines(&out);
    // A record early in the log, whose prev field (CRC-covered) lies in the
    // same WAL page.
    let victim = records
        .iter()
        .skip(records.len() / 4)
        .map(|r| parse_lsn(r["lsn"].as_str().unwrap()))
        .find(|lsn| lsn.0 % 8192 + 16 <= 8192)
        .unwrap();
    let segment = dir
        .join("wal")
        .join(folio_wal::segment_file_name(victim.0 / WAL_SEGMENT_BYTES));
    flip_bit(&segment, victim.0 % WAL_SEGMENT_BYTES + 9);

    let (code, out, stderr) = folio(&["waldump", "--json"], &dir);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains(&victim.to_string()), "{stderr}");
    assert!(stderr.contains("corrupt"), "{stderr}");
    let before = json_lines(&out);
    assert!(!before.is_empty());
    assert_eq!(before[..], records[..before.len()]);
    assert_eq!(
        records[before.len()]["lsn"].as_str(),
        Some(victim.to_string().as_str())
    );

    let (code, _, stderr) = folio(&["verify"], &dir);
    assert_eq!(code, 1);
    assert!(stderr.contains(&victim.to_string()), "{stderr}");
}

// Proves `checksums verify` passes on a clean database and, after one bit
// of a page is flipped in the data file, exits 1 naming that page.
#[test]
fn checksums_verify_finds_a_flipped_bit() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let root = closed_db(&dir, 300);
    let (code, out, stderr) = folio(&["checksums", "verify"], &dir);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.contains("no bad pages"), "{out}");

    flip_bit(&dir.join("data"), root.0 * PAGE_SIZE as u64 + 5000);
    let (code, out, stderr) = folio(&["checksums", "verify"], &dir);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("checksum mismatch on {root}")),
        "{out}"
    );
    assert!(stderr.contains("1 page with a bad checksum"), "{stderr}");
}

// Proves disable then enable round-trips: verify refuses while checksums
// are off, passes after enable, and the database opens and verifies.
#[test]
fn checksums_disable_enable_round_trip() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    closed_db(&dir, 300);
    let (code, out, stderr) = folio(&["checksums", "disable"], &dir);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.contains("disabled"));
    let (code, _, stderr) = folio(&["checksums", "verify"], &dir);
    assert_eq!(code, 1);
    assert!(stderr.contains("not enabled"), "{stderr}");
    let (code, _, stderr) = folio(&["checksums", "disable"], &dir);
    assert_eq!(code, 1);
    assert!(stderr.contains("already disabled"), "{stderr}");
    let (code, out, stderr) = folio(&["checksums", "enable"], &dir);
    assert_eq!(code, 0, "{stderr}");
    assert!(out.contains("enabled"));
    let (code, out, stderr) = folio(&["checksums", "verify"], &dir);
    assert_eq!(code, 0, "{out}{stderr}");
    let (code, out, stderr) = folio(&["verify"], &dir);
    assert_eq!(code, 0, "{out}{stderr}");
    let db = Database::open(&dir, options()).unwrap();
    assert!(db.control().checksums && db.pool().checksums());
    db.close().unwrap();
}

/// Every tool invocation, for the refusal tests.
const TOOLS: [&[&str]; 5] = [
    &["waldump"],
    &["checksums", "verify"],
    &["checksums", "enable"],
    &["checksums", "disable"],
    &["verify"],
];

// Proves every tool refuses a database another process has open (the lock
// is held) with a clear message and exit code 1.
#[test]
fn tools_refuse_a_locked_database() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    closed_db(&dir, 10);
    let db = Database::open(&dir, options()).unwrap();
    for tool in TOOLS {
        let stderr = refused(tool, &dir);
        assert!(
            stderr.contains("in use by another process"),
            "{tool:?}: {stderr}"
        );
    }
    db.close().unwrap();
}

// Proves every tool refuses a path that is not a folio database — missing,
// a plain file, an empty directory — with a clear message and exit code 1,
// and creates nothing there.
#[test]
fn tools_refuse_a_path_that_is_not_a_database() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let file = tmp.path().join("file");
    std::fs::write(&file, b"hello").unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let cases: [(&PathBuf, &str); 3] = [
        (&missing, "no such directory"),
        (&file, "is not a directory"),
        (&empty, "is not a folio database directory"),
    ];
    for tool in TOOLS {
        for (path, message) in cases {
            let (code, _, stderr) = folio(tool, path);
            assert_eq!(code, 1, "{tool:?} {path:?}");
            assert!(stderr.contains(message), "{tool:?} {path:?}: {stderr}");
        }
    }
    assert!(!missing.exists());
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
}

// Proves every tool refuses a database whose control file is damaged (one
// flipped bit) with the control file's error and exit code 1, and that the
// offline checksum tools and `folio verify` refuse a damaged meta page; no
// refusal changes anything on disk.
#[test]
fn tools_refuse_damaged_files() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    closed_db(&dir, 10);
    let control = std::fs::read(dir.join("control")).unwrap();
    flip_bit(&dir.join("control"), 17);
    for tool in TOOLS {
        let stderr = refused(tool, &dir);
        assert!(
            stderr.contains("control file damaged"),
            "{tool:?}: {stderr}"
        );
    }
    std::fs::write(dir.join("control"), control).unwrap();
    flip_bit(&dir.join("data"), PAGE_SIZE as u64 - 128);
    for tool in &TOOLS[1..4] {
        let stderr = refused(tool, &dir);
        assert!(stderr.contains("meta page"), "{tool:?}: {stderr}");
    }
    let stderr = refused(&["verify"], &dir);
    assert!(stderr.contains("page 0"), "{stderr}");
}

// Proves `folio verify` passes on a good database with a per-tree report,
// and fails (exit 1, naming the page) after a tree page is corrupted.
#[test]
fn verify_passes_then_fails_on_a_corrupt_tree_page() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let root = closed_db(&dir, 300);
    let (code, out, stderr) = folio(&["verify"], &dir);
    assert_eq!(code, 0, "{out}{stderr}");
    assert!(out.contains("crash recovery"), "{out}");
    let row = out
        .lines()
        .find(|l| l.starts_with("t "))
        .expect("a row for tree t");
    let fields: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(fields[4], "300", "{row}");
    assert_eq!(fields[5], "ok", "{row}");
    assert!(out.contains("buffer pool and WAL invariants: ok"), "{out}");

    flip_bit(&dir.join("data"), root.0 * PAGE_SIZE as u64 + 3000);
    let (code, out, stderr) = folio(&["verify"], &dir);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAILED") && out.contains(&root.to_string()),
        "{out}"
    );
    assert!(stderr.contains("failed verification"), "{stderr}");
}

/// Every file under `root` with its contents.
fn tree_image(root: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Runs a tool that must refuse: exit 1, nothing on disk changed, the
/// message said once. Returns stderr.
fn refused(args: &[&str], dir: &Path) -> String {
    let before = tree_image(dir);
    let (code, _, stderr) = folio(args, dir);
    assert_eq!(code, 1, "{args:?}: {stderr}");
    assert!(
        tree_image(dir) == before,
        "{args:?} changed the database: {stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{args:?}: one line: {stderr}");
    eprintln!("folio {args:?}: {stderr}");
    stderr
}

fn set_len(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

// Proves a data file cut shorter than its meta page's count is named with
// both lengths by `folio checksums verify` and `folio verify`, which exit 1
// and change nothing.
#[test]
fn tools_refuse_a_truncated_data_file() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    closed_db(&dir, 3000);
    let data = dir.join("data");
    set_len(&data, 4 * PAGE_SIZE as u64);
    for tool in [&["checksums", "verify"][..], &["verify"]] {
        let stderr = refused(tool, &dir);
        assert!(stderr.contains("data file"), "{tool:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{} bytes long", 4 * PAGE_SIZE)),
            "{tool:?}: {stderr}"
        );
    }
}

// Proves a WAL segment cut short (to zero bytes, the case) is
// refused by `folio verify` and `folio waldump` with the segment's name and
// the override to use; `folio verify --truncate-at-corruption` accepts the
// loss, says how many records and commits it discarded, and leaves a
// database that verifies without the flag.
#[test]
fn a_truncated_wal_segment_is_refused_until_the_loss_is_accepted() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    // Not closed cleanly: the WAL since the last checkpoint is needed.
    let db = Database::create(&dir, options()).unwrap();
    let tree = db.create_tree("t").unwrap();
    for i in 0..6000u32 {
        tree.insert(format!("key{i:06}").as_bytes(), &[b'v'; 60])
            .unwrap();
        if i % 20 == 19 {
            db.commit().unwrap();
        }
    }
    db.commit().unwrap();
    drop(tree);
    drop(db);
    let mut segments: Vec<PathBuf> = std::fs::read_dir(dir.join("wal"))
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
    let victim = segments[segments.len() - 3].clone();
    let name = victim.file_name().unwrap().to_str().unwrap().to_string();
    set_len(&victim, 0);
    for tool in [&["verify"][..], &["waldump"]] {
        let stderr = refused(tool, &dir);
        assert!(stderr.contains(&name), "{tool:?}: {stderr}");
        assert!(stderr.contains("0 bytes long"), "{tool:?}: {stderr}");
        assert!(
            stderr.contains("--truncate-at-corruption"),
            "{tool:?}: {stderr}"
        );
    }
    let (code, stdout, stderr) = folio(&["verify", "--truncate-at-corruption"], &dir);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("segment {name} was truncated to 0 bytes")),
        "{stdout}"
    );
    let commits = stdout
        .split(" of them commits")
        .next()
        .and_then(|s| s.rsplit(", ").next())
        .and_then(|s| s.parse::<u64>().ok())
        .expect("a commit count");
    assert!(commits > 0, "{stdout}");
    let (code, stdout, stderr) = folio(&["verify"], &dir);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

// Proves `folio waldump --from` past the end of the WAL fails (exit 1) and
// says where the WAL ends, instead of printing nothing and succeeding.
#[test]
fn waldump_past_the_end_says_where_the_wal_ends() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    closed_db(&dir, 10);
    let stderr = refused(&["waldump", "--from", "FF/00000000"], &dir);
    assert!(
        stderr.contains("no record at FF/00000000: the WAL ends at "),
        "{stderr}"
    );
}

// Proves an empty `wal.meta` is reported once, naming the file, by every
// tool, and nothing on disk changes.
#[test]
fn an_empty_wal_meta_is_reported_once() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    closed_db(&dir, 10);
    std::fs::write(dir.join("wal").join("wal.meta"), b"").unwrap();
    for tool in TOOLS {
        let stderr = refused(tool, &dir);
        assert!(stderr.contains("wal.meta"), "{tool:?}: {stderr}");
        assert_eq!(stderr.matches("too short").count(), 1, "{tool:?}: {stderr}");
    }
}

// Proves `folio verify` passes on a database with a dropped table whose
// pages are not back yet, and reports the data file's pages, the free list
// and the dropped relations waiting.
#[test]
fn verify_reports_free_pages_and_waiting_drops() {
    let _serial = serial();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let db = Database::create(
        &dir,
        Options {
            autovacuum: false,
            ..options()
        },
    )
    .unwrap();
    let column = folio_db::ColumnDef {
        local: true,
        collation: None,
        name: "id".into(),
        type_oid: 23,
        typmod: -1,
        not_null: true,
    };
    let cat = db.catalog();
    let mut t = db
        .begin(
            folio_db::Isolation::ReadCommitted,
            folio_db::Durability::Sync,
        )
        .unwrap();
    cat.create_table(&mut t, "gone", std::slice::from_ref(&column))
        .unwrap();
    t.commit().unwrap();
    let mut t = db
        .begin(
            folio_db::Isolation::ReadCommitted,
            folio_db::Durability::Sync,
        )
        .unwrap();
    cat.drop_table(&mut t, "gone").unwrap();
    t.commit().unwrap();
    db.close().unwrap();
    let (code, out, stderr) = folio(&["verify"], &dir);
    assert_eq!(code, 0, "{out}{stderr}");
    let space = out
        .lines()
        .find(|l| l.starts_with("space: "))
        .unwrap_or_else(|| panic!("no space line: {out}"));
    assert!(
        space.contains("on the free list") && space.contains("dropped relations waiting"),
        "{space}"
    );
}
