//! `folio bench pgbench`: the seeds' commands, typed with PostgreSQL 15's
//! own `pgbench` and `psql`, against `folio serve` and against a temporary
//! PostgreSQL 15 cluster on the same machine, side by side (issue 17 §6).
//!
//! Both servers get the same settings ([`Settings`]: `shared_buffers`,
//! data checksums, `synchronous_commit`, the WAL sizes, `max_connections`)
//! and receive the same commands: nothing sent to folio is rewritten. Each
//! throughput point is measured on one engine and then on the other, the
//! engine that goes first alternating from one client count to the next,
//! so a slow spell of the shared machine does not land on one engine's
//! curve only.
//!
//! When a command fails on an engine (folio does not support a statement
//! yet, a server exits), the rows of that engine carry the client's
//! message in an `error` field instead of a measurement and the run goes
//! on; only an interrupt (Ctrl-C) or a harness that cannot start at all
//! (no PostgreSQL 15) ends it.
//!
//! Every server this module starts lives in its own temporary directory
//! and is owned by a guard (`folio::FolioServer`,
//! `postgres::PgCluster`) whose `Drop` stops it by pid and removes the
//! directory, on every path out, errors and interrupts included.
//!
//! Layout: `settings.rs` (the shared settings on each command line),
//! `process.rs` (child processes: servers, clients, timeouts),
//! `postgres.rs` and `folio.rs` (the two servers behind [`Engine`]),
//! `client.rs` (pgbench and psql command lines and runs), `parse.rs`
//! (what their output says), `workloads/` (one file per kind of workload).

mod client;
mod engine;
mod folio;
mod parse;
mod postgres;
mod process;
mod settings;
mod workloads;

pub use client::Endpoint;
pub use engine::{Engine, EngineKind, Recovery};
pub use settings::Settings;
pub use workloads::{PgWorkload, workload, workloads};

use crate::Progress;
use postgres::PgBinaries;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Why `folio bench pgbench` could not go on. A command that fails on one
/// engine is not one of these: it is recorded in that engine's rows.
#[derive(Debug, thiserror::Error)]
pub enum PgbenchError {
    /// Ctrl-C (or SIGTERM): every server started so far is stopped and its
    /// directory removed as the error unwinds.
    #[error("interrupted")]
    Interrupted,
    #[error("PostgreSQL 15 is not available: {0}")]
    NoPostgres(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    /// A server did not come up; the tail of its log says why.
    #[error("{server} did not start: {reason}\n--- last lines of its log ---\n{log_tail}")]
    Start {
        server: &'static str,
        reason: String,
        log_tail: String,
    },
    /// A client command (pgbench, psql, pg_waldump, ...) failed: its
    /// message, e.g. `ERROR:  0A000: ...` from the server.
    #[error("{0}")]
    Command(String),
    #[error("unknown pgbench workload {0:?}; known: seed000, select-only, tpcb, seed004, seed001")]
    UnknownWorkload(String),
}

impl PgbenchError {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> PgbenchError {
        let what = what.into();
        move |source| PgbenchError::Io { what, source }
    }
}

/// How pgbench and psql reach both servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    /// The server's Unix-domain socket (`-h` its socket directory): how
    /// the seeds' commands connect, giving no host.
    #[default]
    Unix,
    /// TCP on loopback (`-h 127.0.0.1`).
    Tcp,
}

impl Transport {
    /// Its name on the command line and in rows.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Unix => "unix",
            Transport::Tcp => "tcp",
        }
    }
}

/// Settings of a `folio bench pgbench` run; `None` means each workload's
/// own default (full or `--quick`).
#[derive(Debug, Clone)]
pub struct PgbenchConfig {
    /// The small but real version of each workload (a few minutes).
    pub quick: bool,
    /// Client counts for every throughput workload.
    pub clients: Option<Vec<usize>>,
    /// Measurement time per point (whole seconds; pgbench's `-T`).
    pub duration: Option<Duration>,
    /// pgbench scale of `select-only` and `tpcb`.
    pub scale: Option<u32>,
    /// The `folio` executable to run as `folio serve`.
    pub folio_exe: PathBuf,
    /// How the clients reach both servers.
    pub transport: Transport,
    /// Set by the caller's SIGINT/SIGTERM handler; checked while waiting.
    pub interrupted: Arc<AtomicBool>,
}

impl PgbenchConfig {
    pub fn new(folio_exe: PathBuf) -> PgbenchConfig {
        PgbenchConfig {
            quick: false,
            clients: None,
            duration: None,
            scale: None,
            folio_exe,
            transport: Transport::Unix,
            interrupted: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The client counts: configured, or `quick`/`full` by mode.
    pub(crate) fn clients_or(&self, quick: &[usize], full: &[usize]) -> Vec<usize> {
        self.clients
            .clone()
            .unwrap_or_else(|| if self.quick { quick } else { full }.to_vec())
    }

    /// pgbench's `-T` in seconds: configured (rounded up), or by mode.
    pub(crate) fn duration_s(&self, quick_s: u64, full_s: u64) -> u64 {
        match self.duration {
            Some(d) => d.as_secs() + u64::from(d.subsec_nanos() > 0),
            None if self.quick => quick_s,
            None => full_s,
        }
        .max(1)
    }
}

/// What every workload runs with: PostgreSQL's binaries, the folio
/// executable, the interrupt flag and a scratch directory for pgbench
/// scripts. Made once per run ([`Harness::new`] installs PostgreSQL 15 if
/// it is missing and the run is root's).
#[derive(Debug)]
pub struct Harness {
    config: PgbenchConfig,
    postgres: PgBinaries,
    scratch: tempfile::TempDir,
}

impl Harness {
    pub fn new(config: PgbenchConfig) -> Result<Harness, PgbenchError> {
        let postgres = PgBinaries::find_or_install()?;
        let scratch = tempfile::Builder::new()
            .prefix("folio-bench-pgbench-")
            .tempdir()
            .map_err(PgbenchError::io("creating a scratch directory"))?;
        Ok(Harness {
            config,
            postgres,
            scratch,
        })
    }

    pub fn config(&self) -> &PgbenchConfig {
        &self.config
    }

    /// Where clients reach a server listening on `port` and in
    /// `socket_dir`, by the configured transport.
    pub(crate) fn endpoint(&self, port: u16, socket_dir: &Path) -> Endpoint {
        let host = match self.config.transport {
            Transport::Unix => socket_dir.display().to_string(),
            Transport::Tcp => "127.0.0.1".into(),
        };
        Endpoint { host, port }
    }

    /// Runs one workload: its rows (a failed engine's carry `error`) and
    /// the targets judged over them.
    pub fn run(
        &self,
        workload: &dyn PgWorkload,
        progress: &dyn Progress,
    ) -> Result<(Vec<crate::Row>, Vec<crate::Check>), PgbenchError> {
        let transport = self.config.transport.name();
        let rows: Vec<crate::Row> = (workload.run(self, progress)?.into_iter())
            .map(|row| row.with("transport", transport))
            .collect();
        let checks = workload.checks(&rows);
        Ok((rows, checks))
    }

    pub(crate) fn postgres(&self) -> &PgBinaries {
        &self.postgres
    }

    pub(crate) fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    /// `Err(Interrupted)` once SIGINT or SIGTERM arrived.
    pub(crate) fn check_interrupt(&self) -> Result<(), PgbenchError> {
        if self.config.interrupted.load(Ordering::Relaxed) {
            Err(PgbenchError::Interrupted)
        } else {
            Ok(())
        }
    }
}
