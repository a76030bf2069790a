//! `folio bench pgbench` end to end, where PostgreSQL 15 is installed:
//! the built `folio` binary starts `folio serve` (itself) and a temporary
//! PostgreSQL cluster, runs PostgreSQL's pgbench against both, and writes
//! its rows. Where PostgreSQL 15 is missing the test says it is skipped.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const PGBENCH: &str = "/usr/lib/postgresql/15/bin/pgbench";

/// The harness's temporary directories now in the system's temp dir.
fn harness_dirs() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| {
            name.starts_with("folio-bench-serve-") || name.starts_with("folio-bench-postgres-")
        })
        .collect();
    names.sort();
    names
}

// Proves a tiny tpcb run (scale 1, 1 and 2 clients, 1 s) measures both
// engines at both client counts (tps > 0), that each JSON row carries the
// workload, engine, clients, tps and settings, that the CSV, JSON-lines
// and HTML files are written, and that no server directory is left.
#[test]
fn tpcb_tiny_on_folio_and_postgresql() {
    if !Path::new(PGBENCH).exists() {
        eprintln!("skipped: PostgreSQL 15 is not installed ({PGBENCH} is missing)");
        return;
    }
    // The clients through each server's Unix-domain socket (the default),
    // then over TCP.
    tpcb_tiny("unix", &[1, 2]);
    tpcb_tiny("tcp", &[1]);
}

fn tpcb_tiny(transport: &str, clients: &[u64]) {
    let before = harness_dirs();
    let counts: Vec<String> = clients.iter().map(u64::to_string).collect();
    let results = tempfile::tempdir().expect("results dir");
    let output = Command::new(env!("CARGO_BIN_EXE_folio"))
        .args([
            "bench",
            "pgbench",
            "--workloads",
            "tpcb",
            "--scale",
            "1",
            "--clients",
            &counts.join(","),
            "--duration",
            "1s",
            "--transport",
            transport,
            "--json",
            "--results-dir",
        ])
        .arg(results.path())
        .output()
        .expect("running folio bench pgbench");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "folio bench pgbench failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let rows: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON row"))
        .collect();
    assert_eq!(
        rows.len(),
        2 * clients.len(),
        "2 engines x each client count: {stdout}"
    );
    for engine in ["folio", "postgres"] {
        for &clients in clients {
            let row = rows
                .iter()
                .find(|r| r["engine"] == engine && r["clients"] == clients)
                .unwrap_or_else(|| panic!("no row for {engine} at {clients} clients: {stdout}"));
            assert_eq!(row["workload"], "tpcb");
            assert!(row.get("error").is_none(), "{row}");
            assert!(row["tps"].as_f64().unwrap_or(0.0) > 0.0, "{row}");
            assert_eq!(row["checksums"], true);
            assert_eq!(row["scale"], 1);
            assert_eq!(row["shared_buffers"], "128MB");
            assert_eq!(row["transport"], transport);
        }
    }
    for file in ["tpcb.csv", "tpcb.jsonl", "summary.csv", "report.html"] {
        assert!(results.path().join(file).exists(), "{file} not written");
    }
    let html = std::fs::read_to_string(results.path().join("report.html")).unwrap();
    if clients.len() > 1 {
        assert_eq!(html.matches("<polyline").count(), 2, "a line per engine");
    }
    assert_eq!(harness_dirs(), before, "a server directory was left behind");
}
