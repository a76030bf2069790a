//! PostgreSQL 15's `pgbench` and `psql`, run against either server the same
//! way: `-h HOST -p PORT -U postgres`, database `postgres`, where HOST is
//! the server's socket directory (a Unix-domain socket, as the seeds'
//! commands connect, giving no host) or `127.0.0.1` (`--transport tcp`).

use super::process::{self, Finished};
use super::{Harness, PgbenchError, parse};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Where clients connect to a server: libpq's host (a socket directory,
/// or an address) and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
}

/// The connection arguments every client gets.
fn connection(to: &Endpoint) -> Vec<String> {
    vec![
        "-h".into(),
        to.host.clone(),
        "-p".into(),
        to.port.to_string(),
        "-U".into(),
        "postgres".into(),
    ]
}

/// The transaction script of a pgbench run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Script {
    /// The default TPC-B-like script.
    TpcbLike,
    /// `-S`.
    SelectOnly,
    /// `-f FILE`.
    File(PathBuf),
}

/// How long a pgbench run lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    /// `-T SECONDS`.
    Seconds(u64),
    /// `-t N` transactions per client.
    TransactionsPerClient(u64),
}

/// One pgbench run's command line (besides the connection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgbenchRun {
    pub script: Script,
    pub clients: usize,
    /// `-j`: pgbench's threads.
    pub jobs: usize,
    pub length: Length,
    /// `-M`: `simple` (pgbench's default) when `None`.
    pub mode: Option<&'static str>,
    /// `-n`: no vacuum of pgbench's tables before the run (custom scripts
    /// on other tables need it).
    pub no_vacuum: bool,
    /// `-D NAME=VALUE`: initial values of script variables.
    pub defines: Vec<(String, String)>,
}

impl PgbenchRun {
    pub fn args(&self, to: &Endpoint) -> Vec<String> {
        let mut args = connection(to);
        match &self.script {
            Script::TpcbLike => {}
            Script::SelectOnly => args.push("-S".into()),
            Script::File(path) => {
                args.push("-f".into());
                args.push(path.display().to_string());
            }
        }
        if self.no_vacuum {
            args.push("-n".into());
        }
        if let Some(mode) = self.mode {
            args.push("-M".into());
            args.push(mode.into());
        }
        args.extend([
            "-c".to_string(),
            self.clients.to_string(),
            "-j".into(),
            self.jobs.to_string(),
        ]);
        match self.length {
            Length::Seconds(s) => args.extend(["-T".to_string(), s.to_string()]),
            Length::TransactionsPerClient(n) => args.extend(["-t".to_string(), n.to_string()]),
        }
        for (name, value) in &self.defines {
            args.push("-D".into());
            args.push(format!("{name}={value}"));
        }
        args.push("postgres".into());
        args
    }

    /// Long enough for the run, its connections and pgbench's vacuum.
    fn timeout(&self) -> Duration {
        match self.length {
            Length::Seconds(s) => Duration::from_secs(3 * s + 120),
            Length::TransactionsPerClient(_) => Duration::from_secs(1800),
        }
    }
}

/// `pgbench -i -s SCALE` (every default step: drop, create, generate
/// client-side, vacuum, primary keys).
pub fn init_args(to: &Endpoint, scale: u32) -> Vec<String> {
    let mut args = connection(to);
    args.extend(["-i".to_string(), "-s".into(), scale.to_string()]);
    args.push("postgres".into());
    args
}

/// psql running one statement: no psqlrc, unaligned tuples only, stop on
/// the first error, errors with their SQLSTATE.
pub fn psql_args(to: &Endpoint, sql: &str) -> Vec<String> {
    let mut args = vec![
        "-X".to_string(),
        "-A".into(),
        "-t".into(),
        "-q".into(),
        "-v".into(),
        "ON_ERROR_STOP=1".into(),
        "-v".into(),
        "VERBOSITY=verbose".into(),
    ];
    args.extend(connection(to));
    args.extend(["-d".to_string(), "postgres".into(), "-c".into(), sql.into()]);
    args
}

/// What a completed pgbench run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub tps: f64,
    pub transactions: u64,
}

impl Harness {
    fn client(
        &self,
        tool: &str,
        args: &[String],
        timeout: Duration,
    ) -> Result<Finished, PgbenchError> {
        let mut command = Command::new(self.postgres().tool(tool));
        command.args(args);
        process::run(&mut command, timeout, &self.config().interrupted)
    }

    /// Runs one statement with psql; its output (tuples only) or the
    /// server's error.
    pub fn psql(&self, to: &Endpoint, sql: &str) -> Result<String, PgbenchError> {
        self.psql_within(to, sql, Duration::from_secs(600))
    }

    /// [`Harness::psql`], killed after `timeout`.
    pub fn psql_within(
        &self,
        to: &Endpoint,
        sql: &str,
        timeout: Duration,
    ) -> Result<String, PgbenchError> {
        let done = self.client("psql", &psql_args(to, sql), timeout)?;
        if done.status.success() {
            Ok(done.stdout)
        } else {
            Err(PgbenchError::Command(parse::client_error(&done.stderr)))
        }
    }

    /// `pgbench -i -s SCALE`.
    pub fn pgbench_init(&self, to: &Endpoint, scale: u32) -> Result<(), PgbenchError> {
        let timeout = Duration::from_secs(120 + 30 * u64::from(scale));
        let done = self.client("pgbench", &init_args(to, scale), timeout)?;
        if done.status.success() {
            Ok(())
        } else {
            Err(PgbenchError::Command(format!(
                "pgbench -i -s {scale}: {}",
                parse::client_error(&done.stderr)
            )))
        }
    }

    /// One pgbench run. A run in which any client failed is an error
    /// (pgbench exits 2 and its tps covers the survivors only).
    pub fn pgbench(&self, to: &Endpoint, run: &PgbenchRun) -> Result<Measured, PgbenchError> {
        let done = self.client("pgbench", &run.args(to), run.timeout())?;
        if !done.status.success() {
            return Err(PgbenchError::Command(parse::client_error(&done.stderr)));
        }
        match (parse::tps(&done.stdout), parse::transactions(&done.stdout)) {
            (Some(tps), Some(transactions)) => Ok(Measured { tps, transactions }),
            _ => Err(PgbenchError::Command(format!(
                "pgbench printed no tps line: {}",
                done.stdout.trim()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(port: u16) -> Endpoint {
        Endpoint {
            host: "127.0.0.1".into(),
            port,
        }
    }

    fn local(port: u16) -> Endpoint {
        Endpoint {
            host: "/tmp/folio-bench-x".into(),
            port,
        }
    }

    // Proves the pgbench command lines are the seeds' commands: seed 000's
    // prepared custom script with a thread per client, select-only, the
    // transaction-count run with a variable, and the initialisation.
    #[test]
    fn pgbench_command_lines() {
        let seed000 = PgbenchRun {
            script: Script::File("/tmp/x/select.sql".into()),
            clients: 128,
            jobs: 128,
            length: Length::Seconds(10),
            mode: Some("prepared"),
            no_vacuum: true,
            defines: Vec::new(),
        };
        assert_eq!(
            seed000.args(&tcp(5433)).join(" "),
            "-h 127.0.0.1 -p 5433 -U postgres -f /tmp/x/select.sql -n -M prepared -c 128 -j 128 -T 10 postgres"
        );
        let select_only = PgbenchRun {
            script: Script::SelectOnly,
            clients: 8,
            jobs: 2,
            length: Length::Seconds(3),
            mode: None,
            no_vacuum: false,
            defines: Vec::new(),
        };
        assert_eq!(
            select_only.args(&local(1)).join(" "),
            "-h /tmp/folio-bench-x -p 1 -U postgres -S -c 8 -j 2 -T 3 postgres"
        );
        let inserts = PgbenchRun {
            script: Script::File("ins.sql".into()),
            clients: 4,
            jobs: 2,
            length: Length::TransactionsPerClient(250),
            mode: None,
            no_vacuum: true,
            defines: vec![("n".into(), "0".into())],
        };
        assert_eq!(
            inserts.args(&tcp(2)).join(" "),
            "-h 127.0.0.1 -p 2 -U postgres -f ins.sql -n -c 4 -j 2 -t 250 -D n=0 postgres"
        );
        assert_eq!(
            init_args(&tcp(7), 100).join(" "),
            "-h 127.0.0.1 -p 7 -U postgres -i -s 100 postgres"
        );
        let psql = psql_args(&tcp(7), "select 1");
        assert_eq!(psql.last().map(String::as_str), Some("select 1"));
        assert!(psql.contains(&"ON_ERROR_STOP=1".to_string()));
    }
}
