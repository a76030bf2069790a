//! The sqllogictest files of `tests/slt` run against PostgreSQL 15, so
//! their expected results stay PostgreSQL's: a temporary cluster
//! (`initdb`, `pg_ctl`; as the `postgres` user when run as root), one
//! database per file, `tokio-postgres`'s simple-query protocol. Skipped,
//! with a message, where PostgreSQL 15 is not installed. Lines marked
//! `onlyif folio` (folio refuses what PostgreSQL has) are skipped here.

mod common;

use sqllogictest::{DBOutput, DefaultColumnType};
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = "/usr/lib/postgresql/15/bin";

/// A temporary PostgreSQL 15 cluster, stopped and removed on drop.
struct Cluster {
    dir: tempfile::TempDir,
    port: u16,
}

/// Runs a PostgreSQL tool, as `postgres` when this process is root.
fn pg_tool(args: &[&str]) -> std::io::Result<std::process::Output> {
    let tool = format!("{BIN}/{}", args[0]);
    if rustix::process::getuid().is_root() {
        let line = std::iter::once(tool.as_str())
            .chain(args[1..].iter().copied())
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(" ");
        Command::new("su").args(["postgres", "-c", &line]).output()
    } else {
        Command::new(tool).args(&args[1..]).output()
    }
}

impl Cluster {
    fn start() -> Option<Cluster> {
        if !Path::new(BIN).join("initdb").exists() {
            eprintln!(
                "PostgreSQL 15 not installed: the PostgreSQL side of the sqllogictest files is skipped"
            );
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        if rustix::process::getuid().is_root() {
            let chown = Command::new("chown")
                .args(["-R", "postgres", dir.path().to_str().unwrap()])
                .status();
            if !chown.is_ok_and(|s| s.success()) {
                eprintln!("cannot give the cluster directory to postgres: skipped");
                return None;
            }
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let data = dir.path().join("data");
        let data = data.to_str().unwrap();
        // A machine that cannot run PostgreSQL here (no `postgres` user,
        // no `su`) skips this side, saying why; the folio side still runs.
        let init = pg_tool(&["initdb", "-D", data, "-A", "trust", "-U", "postgres"]).ok()?;
        if !init.status.success() {
            eprintln!(
                "initdb failed, the PostgreSQL side is skipped: {}",
                String::from_utf8_lossy(&init.stderr)
            );
            return None;
        }
        // (Prepared transactions enabled as folio's slt runner enables
        // them: `two_phase_commit.slt`.)
        let options = format!(
            "-p {port} -c listen_addresses=127.0.0.1 -c max_prepared_transactions=10 -k {}",
            dir.path().display()
        );
        let log = dir.path().join("log");
        let start = pg_tool(&[
            "pg_ctl",
            "-D",
            data,
            "-o",
            &options,
            "-l",
            log.to_str().unwrap(),
            "-w",
            "start",
        ])
        .ok()?;
        let cluster = Cluster { dir, port };
        if !start.status.success() {
            eprintln!(
                "pg_ctl start failed, the PostgreSQL side is skipped: {}",
                String::from_utf8_lossy(&start.stderr)
            );
            return None;
        }
        Some(cluster)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data();
        let _ = pg_tool(&[
            "pg_ctl",
            "-D",
            data.to_str().unwrap(),
            "-m",
            "immediate",
            "-w",
            "stop",
        ]);
    }
}

/// One connection, driven synchronously.
struct Postgres {
    runtime: tokio::runtime::Runtime,
    client: tokio_postgres::Client,
}

#[derive(Debug)]
struct PgError(String);

impl std::fmt::Display for PgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PgError {}

impl Postgres {
    fn connect(port: u16, database: &str) -> Postgres {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let config = format!("host=127.0.0.1 port={port} user=postgres dbname={database}");
        let client = runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(&config, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(async move {
                let _ = connection.await;
            });
            client
        });
        Postgres { runtime, client }
    }
}

impl sqllogictest::DB for Postgres {
    type Error = PgError;
    type ColumnType = DefaultColumnType;

    fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, PgError> {
        let messages = self
            .runtime
            .block_on(self.client.simple_query(sql))
            .map_err(|e| {
                PgError(match e.as_db_error() {
                    Some(db) => db.message().to_string(),
                    None => e.to_string(),
                })
            })?;
        let mut rows = Vec::new();
        let mut width = None;
        let mut count = 0;
        for m in messages {
            match m {
                tokio_postgres::SimpleQueryMessage::RowDescription(columns) => {
                    width = Some(columns.len());
                }
                tokio_postgres::SimpleQueryMessage::Row(row) => {
                    width = Some(row.len());
                    rows.push(
                        (0..row.len())
                            .map(|i| match row.get(i) {
                                None => "NULL".to_string(),
                                Some("") => "(empty)".to_string(),
                                Some(t) => t.to_string(),
                            })
                            .collect(),
                    );
                }
                tokio_postgres::SimpleQueryMessage::CommandComplete(n) => count = n,
                _ => {}
            }
        }
        Ok(match width {
            Some(w) => DBOutput::Rows {
                types: vec![DefaultColumnType::Any; w],
                rows,
            },
            None => DBOutput::StatementComplete(count),
        })
    }

    fn engine_name(&self) -> &str {
        "postgres"
    }
}

// Proves the expected results of every sqllogictest file under tests/slt
// are PostgreSQL 15's own (the files folio's test runs).
#[test]
fn sqllogictest_files_on_postgresql() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let files = common::slt_files();
    let mut admin = Postgres::connect(cluster.port, "postgres");
    for (n, file) in files.iter().enumerate() {
        let database = format!("slt_{n}");
        sqllogictest::DB::run(&mut admin, &format!("create database {database}")).unwrap();
        let port = cluster.port;
        let mut runner = sqllogictest::Runner::new(move || {
            let db = Postgres::connect(port, &database);
            async move { Ok(db) }
        });
        runner.add_label("postgres");
        if let Err(e) = runner.run_file(file) {
            panic!("{} on PostgreSQL 15: {}", file.display(), e.display(true));
        }
    }
}
