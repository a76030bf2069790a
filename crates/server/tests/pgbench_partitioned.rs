//! PostgreSQL 15's pgbench against `folio serve` with a partitioned
//! `pgbench_accounts` and the initialization steps `dtgvpf` (the default
//! `dtgvp` and `f`, which adds the foreign keys to and from it: folio-sql
//! README "Foreign keys of partitioned tables"). Where pgbench is missing
//! the test says it is skipped.

mod common;

use std::path::Path;
use std::process::Command;
use tokio_postgres::SimpleQueryMessage;

const PGBENCH: &str = "/usr/lib/postgresql/15/bin/pgbench";

/// Runs pgbench with `args` against the server at `port`; its output if
/// it succeeded.
fn pgbench(port: u16, args: &[&str]) -> String {
    let output = Command::new(PGBENCH)
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-U", "postgres"])
        .args(args)
        .arg("postgres")
        .output()
        .expect("running pgbench");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "pgbench {args:?} failed:\n{text}");
    text
}

/// The first column of the first row of `sql`'s result.
async fn value(client: &tokio_postgres::Client, sql: &str) -> String {
    let messages = client.simple_query(sql).await.unwrap();
    messages
        .iter()
        .find_map(|m| match m {
            SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no value from {sql}"))
}

// Proves `pgbench -i -I dtgvpf -s 1 --partitions=4` (the foreign keys
// from and to the range- and then hash-partitioned pgbench_accounts
// included) succeeds, that the keys are enforced (a
// history row for a missing account is 23503), and that a short tpcb run
// after it keeps the balances consistent: the accounts', tellers' and
// branches' sums each equal the history's.
#[tokio::test]
async fn pgbench_init_with_partitions_and_foreign_keys() {
    if !Path::new(PGBENCH).exists() {
        eprintln!("skipped: PostgreSQL 15 is not installed ({PGBENCH} is missing)");
        return;
    }
    let (_dir, server) = common::pool_server(4);
    let port = server.addr().port();
    for method in ["range", "hash"] {
        let method = format!("--partition-method={method}");
        pgbench(
            port,
            &[
                "-i",
                "-I",
                "dtgvpf",
                "-s",
                "1",
                "--partitions=4",
                &method,
                "-q",
            ],
        );
        pgbench(port, &["-c", "2", "-j", "2", "-t", "40", "-n"]);
        let client = common::connect_tcp(&server).await;
        let keys = value(
            &client,
            "select count(*) from pg_constraint where contype = 'f' and conrelid::regclass::text like 'pgbench_%'",
        )
        .await;
        assert_eq!(keys, "5", "the foreign keys of step f");
        let history = value(&client, "select sum(delta) from pgbench_history").await;
        for table in ["accounts", "tellers", "branches"] {
            let column = &table[..1];
            let sum = value(
                &client,
                &format!("select sum({column}balance) from pgbench_{table}"),
            )
            .await;
            assert_eq!(sum, history, "pgbench_{table} against the history");
        }
        let missing = client
            .simple_query(
                "insert into pgbench_history (tid, bid, aid, delta) values (1, 1, 100001, 1)",
            )
            .await
            .unwrap_err();
        assert_eq!(
            missing.code().map(|c| c.code()),
            Some("23503"),
            "{missing:?}"
        );
    }
}
