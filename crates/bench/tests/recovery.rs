//! The `recovery` workload at a tiny size: every row is present with the
//! fields its table and checks need, and the outcomes that do not depend on
//! timing hold (the same WAL replayed everywhere, prefetch only when asked).

use folio_bench::{BenchConfig, SilentProgress};

// Proves `bench recovery` replays the seed-001 WAL cached at 1 and 2 apply
// threads (and the tpcb WAL on 1) and cold with prefetch 0/10/128 plus a
// cached reference, that every seed-001 row replays the same records and
// accounts for every block, that prefetch 0 issues none, and that the
// cached checks are produced.
#[test]
fn recovery_workload_rows_and_checks() {
    // A test must not drop the machine's page cache.
    skip_drop_caches();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut config = BenchConfig::new(dir.path().to_path_buf());
    config.quick = true;
    // Data several times the 1 MiB floor of the cold pool (at 0.03 the
    // data, 860 KB once ascending loads filled B+tree nodes, fit in it).
    config.scale = Some(0.06);
    let workload = folio_bench::workload("recovery").expect("recovery workload");
    let rows = workload.run(&config, &SilentProgress).expect("run");
    let cached: Vec<_> = rows.iter().filter(|r| r.case == "replay-cached").collect();
    let cold: Vec<_> = rows.iter().filter(|r| r.case == "replay-cold").collect();
    assert_eq!(cached.len(), 2, "1 and 2 apply threads");
    assert_eq!(cold.len(), 4, "reference + prefetch 0, 10, 128");
    let tpcb: Vec<_> = rows
        .iter()
        .filter(|r| r.case == "replay-tpcb-cached")
        .collect();
    assert_eq!(tpcb.len(), 1, "the tpcb WAL replayed on 1 thread");
    assert!(tpcb[0].number("records").unwrap_or(0.0) > 0.0);
    let records = rows[0].number("records").expect("records");
    assert!(records >= 30.0 * 300.0, "{records} records");
    for row in rows.iter().filter(|r| r.case != "replay-tpcb-cached") {
        assert_eq!(row.number("records"), Some(records), "same WAL: {row:?}");
        assert!(row.number("records_per_sec").unwrap_or(0.0) > 0.0);
        assert!(row.number("mb_per_sec").unwrap_or(0.0) > 0.0);
        assert!(row.values.contains_key("recovery_io_concurrency"));
        let blocks =
            row.number("blocks_applied").unwrap_or(0.0) + row.number("fpis_applied").unwrap_or(0.0);
        assert!(blocks >= records * 0.9, "{row:?}");
    }
    for row in &cold {
        assert_eq!(
            row.flag("caches_dropped"),
            Some(false),
            "skipped by the env"
        );
        if row.number("recovery_io_concurrency") == Some(0.0) {
            assert_eq!(row.number("prefetches_issued"), Some(0.0), "{row:?}");
        }
        assert!(row.values.contains_key("io_bound"));
        assert!(row.values.contains_key("read_mb"));
    }
    let reference = cold.iter().filter(|r| r.flag("reference") == Some(true));
    assert_eq!(reference.count(), 1);
    let small_pool = cold
        .iter()
        .find(|r| r.flag("reference") == Some(false))
        .expect("cold row");
    assert!(
        small_pool.number("pool_misses") > cold[0].number("pool_misses"),
        "the cold pool is smaller than the data: {small_pool:?}"
    );
    let checks = workload.checks(&rows);
    for measure in [
        "1 thread",
        "2 apply threads / 1",
        "cached rate of the same WAL",
    ] {
        assert!(
            checks.iter().any(|c| c.measure.contains(measure)),
            "{measure}: {checks:?}"
        );
    }
}

fn skip_drop_caches() {
    // SAFETY: this test binary runs one test, which calls this before it
    // starts any thread, so no other thread reads the environment meanwhile.
    unsafe { std::env::set_var("FOLIO_BENCH_DROP_CACHES", "0") };
}
