//! A temporary PostgreSQL 15 cluster: `initdb` into a new temporary
//! directory, the postmaster on a free loopback port with the shared
//! settings, stopped and removed when dropped.
//!
//! PostgreSQL refuses to run as root. When the harness is root, `initdb`
//! and `postgres` run as the unprivileged `postgres` user (created by the
//! Debian package) by setting the child's uid and gid, so the postmaster
//! is the harness's own child and its pid is known without a wrapper
//! (`runuser`, `su`) in between; the temporary directory is handed to that
//! user.
//!
//! The postmaster puts each child in a process group of its own
//! (`InitPostmasterChild` calls `setsid`), so a signal to the postmaster's
//! group does not reach them. `kill -9` of the server (seed 001) therefore
//! stops the postmaster (SIGSTOP: it forks nothing more), SIGKILLs each of
//! its children by pid, then the postmaster, and waits until all are gone.

use super::engine::{Engine, EngineKind, Recovery};
use super::process::{self, ServerProcess, children_of, free_port, signal_pid, wait_all_gone};
use super::{Endpoint, Harness, PgbenchError, Settings, parse};
use rustix::process::Signal;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where Debian's `postgresql-15` package puts the binaries.
pub const BIN_DIR: &str = "/usr/lib/postgresql/15/bin";

/// The programs the harness runs.
const TOOLS: [&str; 6] = [
    "initdb",
    "postgres",
    "pgbench",
    "psql",
    "pg_controldata",
    "pg_waldump",
];

/// PostgreSQL 15's programs, and the user the servers run as.
#[derive(Debug, Clone)]
pub struct PgBinaries {
    dir: PathBuf,
    /// uid and gid of `postgres` when the harness runs as root.
    owner: Option<(u32, u32)>,
}

impl PgBinaries {
    /// Finds PostgreSQL 15 in [`BIN_DIR`]; installs it with apt-get when
    /// it is missing and the harness is root (saying so on stderr).
    pub fn find_or_install() -> Result<PgBinaries, PgbenchError> {
        let dir = PathBuf::from(BIN_DIR);
        let missing = || -> Vec<&str> {
            TOOLS
                .into_iter()
                .filter(|tool| !dir.join(tool).exists())
                .collect()
        };
        let root = rustix::process::geteuid().is_root();
        if !missing().is_empty() {
            if !root {
                return Err(PgbenchError::NoPostgres(format!(
                    "{BIN_DIR} lacks {}; install it with `apt-get install postgresql-15` (as root)",
                    missing().join(", ")
                )));
            }
            eprintln!(
                "folio bench pgbench: PostgreSQL 15 is not installed in {BIN_DIR}; \
                 installing it: apt-get install -y postgresql-15"
            );
            install()?;
            if !missing().is_empty() {
                return Err(PgbenchError::NoPostgres(format!(
                    "after apt-get install postgresql-15, {BIN_DIR} still lacks {}",
                    missing().join(", ")
                )));
            }
        }
        let owner = if root { Some(postgres_user()?) } else { None };
        Ok(PgBinaries { dir, owner })
    }

    /// The path of one of PostgreSQL's programs.
    pub fn tool(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// A command for a server-side program, run as the cluster's owner.
    fn as_owner(&self, tool: &str) -> Command {
        let mut command = Command::new(self.tool(tool));
        if let Some((uid, gid)) = self.owner {
            command.uid(uid).gid(gid);
        }
        command
    }
}

/// `apt-get install -y postgresql-15`, after an `apt-get update` if the
/// first try fails (a machine whose package lists were never fetched).
/// apt's output goes to stderr, away from the tables on stdout.
fn install() -> Result<(), PgbenchError> {
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdin(Stdio::null())
            .stdout(std::io::stderr())
            .status()
            .map(|status| status.success())
            .map_err(PgbenchError::io("running apt-get"))
    };
    if apt(&["install", "-y", "postgresql-15"])? {
        return Ok(());
    }
    if apt(&["update"])? && apt(&["install", "-y", "postgresql-15"])? {
        return Ok(());
    }
    Err(PgbenchError::NoPostgres(
        "apt-get install -y postgresql-15 failed (its output is above)".into(),
    ))
}

/// The uid and gid of the `postgres` user.
fn postgres_user() -> Result<(u32, u32), PgbenchError> {
    let id = |flag: &str| -> Result<u32, PgbenchError> {
        let output = Command::new("id")
            .args([flag, "postgres"])
            .output()
            .map_err(PgbenchError::io("running id postgres"))?;
        String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .map_err(|_| {
                PgbenchError::NoPostgres(
                    "there is no `postgres` user to run PostgreSQL as (the harness is root)".into(),
                )
            })
    };
    Ok((id("-u")?, id("-g")?))
}

/// A running temporary cluster. Dropping it stops the postmaster
/// (immediate shutdown, then SIGKILL of every process if that hangs) and
/// removes its directory.
#[derive(Debug)]
pub struct PgCluster {
    bin: PgBinaries,
    /// Where clients reach it: its port, or its socket in `root`.
    endpoint: Endpoint,
    settings: Settings,
    server: Option<ServerProcess>,
    /// `data/` (the cluster), `postgres.log`, the socket. Declared last:
    /// removed after `Drop::drop` stopped the server.
    root: tempfile::TempDir,
}

impl PgCluster {
    /// `initdb` with the settings' checksums, then the postmaster, ready
    /// when `select 1` answers.
    pub fn start(harness: &Harness, settings: &Settings) -> Result<PgCluster, PgbenchError> {
        let bin = harness.postgres().clone();
        let root = tempfile::Builder::new()
            .prefix("folio-bench-postgres-")
            .tempdir()
            .map_err(PgbenchError::io("creating the cluster's directory"))?;
        if let Some((uid, gid)) = bin.owner {
            std::os::unix::fs::chown(root.path(), Some(uid), Some(gid)).map_err(
                PgbenchError::io(format!("handing {} to postgres", root.path().display())),
            )?;
        }
        let port = free_port()?;
        let mut cluster = PgCluster {
            bin,
            endpoint: harness.endpoint(port, root.path()),
            settings: *settings,
            server: None,
            root,
        };
        cluster.initdb(harness)?;
        let started = cluster.spawn()?;
        cluster.wait_ready(harness, started)?;
        Ok(cluster)
    }

    fn data(&self) -> PathBuf {
        self.root.path().join("data")
    }

    fn initdb(&self, harness: &Harness) -> Result<(), PgbenchError> {
        let mut command = self.bin.as_owner("initdb");
        command
            .arg("-D")
            .arg(self.data())
            .args(self.settings.initdb_args());
        let done = process::run(
            &mut command,
            Duration::from_secs(120),
            &harness.config().interrupted,
        )?;
        if done.status.success() {
            return Ok(());
        }
        Err(PgbenchError::Start {
            server: "initdb",
            reason: format!("it failed ({})", done.status),
            log_tail: format!("{}{}", done.stdout, done.stderr),
        })
    }

    /// Starts the postmaster; returns when it was started.
    fn spawn(&mut self) -> Result<Instant, PgbenchError> {
        let mut command = self.bin.as_owner("postgres");
        command
            .arg("-D")
            .arg(self.data())
            .arg("-p")
            .arg(self.endpoint.port.to_string())
            .arg("-k")
            .arg(self.root.path())
            .args(self.settings.postgres_args());
        let log = self.root.path().join("postgres.log");
        let started = Instant::now();
        self.server = Some(ServerProcess::spawn(&mut command, &log, "postgres")?);
        Ok(started)
    }

    fn wait_ready(
        &mut self,
        harness: &Harness,
        started: Instant,
    ) -> Result<Duration, PgbenchError> {
        let server = self.server.as_mut().expect("spawned");
        harness.wait_ready(server, &self.endpoint, started)
    }

    /// SIGKILL to the postmaster and every child, each by pid (see the
    /// module comment), and waits until none is left.
    fn kill_all(&mut self) -> Result<(), PgbenchError> {
        let Some(mut server) = self.server.take() else {
            return Ok(());
        };
        let postmaster = server.pid();
        signal_pid(postmaster, Signal::STOP);
        let children = children_of(postmaster);
        for &child in &children {
            signal_pid(child, Signal::KILL);
        }
        server.kill();
        if wait_all_gone(&children, Duration::from_secs(10)) {
            Ok(())
        } else {
            Err(PgbenchError::Command(format!(
                "PostgreSQL's processes {children:?} outlived SIGKILL for 10 s"
            )))
        }
    }

    /// What recovery will replay: from the last checkpoint's redo point
    /// (`pg_controldata`) to the end of the WAL, as `pg_waldump --stats`
    /// counts it (records; bytes of records and full-page images).
    fn wal_to_replay(&self, harness: &Harness) -> Result<(u64, u64), PgbenchError> {
        let interrupted = &harness.config().interrupted;
        let timeout = Duration::from_secs(300);
        let mut controldata = Command::new(self.bin.tool("pg_controldata"));
        controldata.arg(self.data());
        let done = process::run(&mut controldata, timeout, interrupted)?;
        let redo = parse::controldata_redo(&done.stdout).ok_or_else(|| {
            PgbenchError::Command(format!(
                "pg_controldata printed no REDO location: {}",
                parse::client_error(&done.stderr)
            ))
        })?;
        let mut waldump = Command::new(self.bin.tool("pg_waldump"));
        waldump
            .arg("--stats")
            .arg("-p")
            .arg(self.data().join("pg_wal"))
            .arg("-s")
            .arg(&redo);
        // pg_waldump reads to the end of the valid WAL and then reports
        // the torn record it stopped at; its totals are what it read.
        let done = process::run(&mut waldump, timeout, interrupted)?;
        parse::waldump_total(&done.stdout).ok_or_else(|| {
            PgbenchError::Command(format!(
                "pg_waldump --stats -s {redo} printed no totals: {}",
                parse::client_error(&done.stderr)
            ))
        })
    }
}

impl Engine for PgCluster {
    fn kind(&self) -> EngineKind {
        EngineKind::Postgres
    }

    fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn gone(&mut self) -> Option<String> {
        match self.server.as_mut() {
            Some(server) => server.gone(),
            None => Some("postgres is not running".into()),
        }
    }

    fn kill9(&mut self) -> Result<(), PgbenchError> {
        self.kill_all()
    }

    fn restart(&mut self, harness: &Harness) -> Result<Recovery, PgbenchError> {
        let (records, wal_bytes) = self.wal_to_replay(harness)?;
        let started = self.spawn()?;
        let elapsed = self.wait_ready(harness, started)?;
        Ok(Recovery {
            recovery_s: elapsed.as_secs_f64(),
            wal_bytes,
            records,
        })
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let Some(server) = self.server.as_mut() else {
            return;
        };
        // Immediate shutdown: the postmaster SIGQUITs its children, waits
        // for them and exits; nothing needs to be written, the directory
        // goes next.
        let children = children_of(server.pid());
        server.signal(Signal::QUIT);
        if server.wait_exit(Duration::from_secs(15))
            && wait_all_gone(&children, Duration::from_secs(5))
        {
            return;
        }
        let _ = self.kill_all();
        for child in children {
            signal_pid(child, Signal::KILL);
        }
    }
}
