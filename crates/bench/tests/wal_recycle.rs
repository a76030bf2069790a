//! The `wal` and `recycle` workloads: rows carry the fields their tables and
//! checks need, and the checks judge the DESIGN.md §4 targets correctly.

use folio_bench::{BenchConfig, Row, SilentProgress};
use std::time::Duration;

// Proves `bench wal` measures sync and async commit at every thread count
// with commits per fsync, that a synchronous commit is never shared by less
// than one commit per fsync, and that the 8/1 thread check is produced.
#[test]
fn wal_workload_rows_and_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = BenchConfig::new(dir.path().to_path_buf());
    config.quick = true;
    config.threads = Some(vec![1, 8]);
    config.duration = Some(Duration::from_millis(100));
    let workload = folio_bench::workload("wal").expect("wal workload");
    let rows = workload.run(&config, &SilentProgress).expect("run");
    assert_eq!(rows.len(), 4, "2 thread counts x sync/async");
    for row in &rows {
        assert_eq!(row.case, "commit");
        assert!(row.number("ops_per_sec").unwrap_or(0.0) > 0.0, "{row:?}");
        let mode = row.values["commit_mode"].as_str().expect("commit_mode");
        assert!(mode == "sync" || mode == "async");
        if mode == "sync" {
            assert!(
                row.number("commits_per_fsync").unwrap_or(0.0) >= 1.0,
                "{row:?}"
            );
        }
    }
    let checks = workload.checks(&rows);
    assert_eq!(checks.len(), 1);
    assert!(checks[0].measure.contains("8 threads / 1 thread"));
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("list").count(),
        0,
        "WAL dirs removed"
    );
}

fn recycle_row(fs: &str, mode: &str, ops_per_sec: f64) -> Row {
    Row::new("recycle", "wal-heavy", 4)
        .with("filesystem", fs)
        .with("wal_recycle", mode)
        .with("ops_per_sec", ops_per_sec)
}

// Proves the recycle check compares auto with the better of on and off on
// the same filesystem (passing at >= 0.95, failing below), and that a
// skipped filesystem (no rows) gets no check rather than a made-up one.
#[test]
fn recycle_check_compares_auto_with_the_better_setting() {
    let rows = vec![
        recycle_row("ext4", "on", 100.0),
        recycle_row("ext4", "off", 80.0),
        recycle_row("ext4", "auto", 96.0),
        recycle_row("btrfs", "on", 50.0),
        recycle_row("btrfs", "off", 100.0),
        recycle_row("btrfs", "auto", 90.0),
    ];
    let workload = folio_bench::workload("recycle").expect("recycle workload");
    let checks = workload.checks(&rows);
    assert_eq!(checks.len(), 2, "one per measured filesystem (xfs skipped)");
    let ext4 = checks
        .iter()
        .find(|c| c.measure.contains("ext4"))
        .expect("ext4 check");
    assert!(ext4.pass && (ext4.measured - 0.96).abs() < 1e-9);
    assert_eq!(ext4.rows, vec![2, 0, 1]);
    let btrfs = checks
        .iter()
        .find(|c| c.measure.contains("btrfs"))
        .expect("btrfs check");
    assert!(!btrfs.pass && (btrfs.measured - 0.9).abs() < 1e-9);
}
