//! Runs every workload at a tiny size and checks the outcomes that do not
//! depend on timing: every expected row is present with its fields, the
//! hot cached read path performs no atomic read-modify-write on page state
//! words, and every row's JSON carries workload, case and threads.

use folio_bench::{BenchConfig, SilentProgress};
use std::time::Duration;

fn tiny_config(dir: &std::path::Path) -> BenchConfig {
    let mut config = BenchConfig::new(dir.to_path_buf());
    config.quick = true;
    config.threads = Some(vec![1, 3]);
    config.duration = Some(Duration::from_millis(30));
    config.scale = Some(0.5);
    config.pool_size_bytes = Some(2 << 20);
    config
}

// Proves the buffer workload measures both cases at every thread count and
// both checksum settings, and that cached optimistic reads do zero RMW.
#[test]
fn buffer_workload_rows_and_zero_rmw() {
    let dir = tempfile::tempdir().expect("tempdir");
    let workload = folio_bench::workload("buffer").expect("buffer workload");
    let rows = workload
        .run(&tiny_config(dir.path()), &SilentProgress)
        .expect("run");
    let hot: Vec<_> = rows.iter().filter(|r| r.case == "hot-read").collect();
    assert_eq!(hot.len(), 4, "2 thread counts x checksums on/off");
    for row in &hot {
        assert_eq!(row.number("state_rmw_per_op"), Some(0.0), "{row:?}");
        assert!(row.number("ops_per_sec").unwrap_or(0.0) > 0.0);
    }
    let evict: Vec<_> = rows.iter().filter(|r| r.case == "evict-read").collect();
    assert_eq!(evict.len(), 2);
    assert!(
        evict
            .iter()
            .all(|r| r.number("misses_per_op").unwrap_or(0.0) > 0.0)
    );
    let checks = workload.checks(&rows);
    assert!(checks.iter().any(|c| c.measure.contains("on/off")));
    for line in folio_bench::json_lines(&rows, &checks) {
        assert!(line["workload"].is_string() && line["case"].is_string());
        assert!(line["threads"].is_u64());
    }
}

// Proves the transaction workload runs every case on a tiny schema: tpcb
// at every thread count on folio and on SQLite, each keeping pgbench's
// balance invariant under concurrency (the run fails otherwise); select-only and the seed-000
// index probe with zero RMW on shared words; the bare-tree lookup beside
// select-only; bloat with its page counts; composite-key lookups beside
// BTreeMap in both distributions; and a check for each target.
#[test]
fn txn_workload_runs_every_case() {
    let dir = tempfile::tempdir().expect("tempdir");
    let workload = folio_bench::workload("txn").expect("txn workload");
    let mut config = tiny_config(dir.path());
    config.scale = Some(0.02);
    config.pool_size_bytes = Some(16 << 20);
    let rows = workload.run(&config, &SilentProgress).expect("run");
    let of = |case: &str| rows.iter().filter(|r| r.case == case).collect::<Vec<_>>();
    let tpcb = of("tpcb");
    assert_eq!(tpcb.len(), 2);
    assert!(
        tpcb.iter()
            .all(|r| r.number("ops_per_sec").unwrap_or(0.0) > 0.0)
    );
    let sqlite = of("tpcb-sqlite");
    assert_eq!(sqlite.len(), 2, "SQLite beside folio at every thread count");
    assert!(
        sqlite
            .iter()
            .all(|r| r.number("ops_per_sec").unwrap_or(0.0) > 0.0)
    );
    for case in ["select-only", "index-probe"] {
        let reads = of(case);
        assert_eq!(reads.len(), if case == "index-probe" { 4 } else { 2 });
        for row in reads {
            assert_eq!(row.number("shared_rmw_per_op"), Some(0.0), "{row:?}");
            assert!(row.number("ops_per_sec").unwrap_or(0.0) > 0.0);
        }
    }
    assert_eq!(of("select-only-bare-tree").len(), 1);
    let bloat = of("bloat");
    assert_eq!(bloat.len(), 1);
    assert!(bloat[0].number("heap_pages_before").unwrap_or(0.0) > 0.0);
    assert!(bloat[0].number("heap_growth").unwrap_or(0.0) >= 1.0);
    for case in ["lookup-composite", "lookup-composite-btreemap"] {
        let found = of(case);
        assert_eq!(found.len(), 2, "{case}");
        assert!(found.iter().any(|r| r.text("distribution") == Some("zipf")));
    }
    let checks = workload.checks(&rows);
    // (tpcb's targets are judged at scale 10 only.)
    for measure in [
        "select-only / bare tree",
        "index-probe checksums on/off",
        "bloat",
        "lookup-composite folio / BTreeMap, zipf",
    ] {
        assert!(
            checks.iter().any(|c| c.measure.contains(measure)),
            "no check of {measure}"
        );
    }
}
