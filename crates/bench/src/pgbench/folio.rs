//! `folio serve` as a child process: the `folio` executable itself
//! (`PgbenchConfig::folio_exe`), on a new database in a temporary
//! directory, on a free loopback port, with the shared settings as its
//! flags. Stopped (SIGTERM: its shutdown checkpoint; SIGKILL if that
//! hangs) and removed when dropped.

use super::engine::{Engine, EngineKind, Recovery};
use super::process::{ServerProcess, free_port};
use super::{Endpoint, Harness, PgbenchError, Settings, parse};
use rustix::process::Signal;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// A running `folio serve`.
#[derive(Debug)]
pub struct FolioServer {
    exe: PathBuf,
    /// Where clients reach it: its port, or its socket in `root`.
    endpoint: Endpoint,
    settings: Settings,
    server: Option<ServerProcess>,
    /// `data/` (created by the first start) and `folio.log`. Declared
    /// last: removed after `Drop::drop` stopped the server.
    root: tempfile::TempDir,
}

impl FolioServer {
    /// `folio serve DIR` on a directory it creates, ready when `select 1`
    /// answers.
    pub fn start(harness: &Harness, settings: &Settings) -> Result<FolioServer, PgbenchError> {
        let root = tempfile::Builder::new()
            .prefix("folio-bench-serve-")
            .tempdir()
            .map_err(PgbenchError::io("creating folio's directory"))?;
        let port = free_port()?;
        let mut server = FolioServer {
            exe: harness.config().folio_exe.clone(),
            endpoint: harness.endpoint(port, root.path()),
            settings: *settings,
            server: None,
            root,
        };
        let started = server.spawn()?;
        server.wait_ready(harness, started)?;
        Ok(server)
    }

    /// The command line: `folio serve DIR --listen 127.0.0.1:PORT
    /// --unix-socket-directories ROOT` and the settings.
    fn command(&self) -> Command {
        let mut command = Command::new(&self.exe);
        command
            .arg("serve")
            .arg(self.root.path().join("data"))
            .arg("--listen")
            .arg(format!("127.0.0.1:{}", self.endpoint.port))
            .arg("--unix-socket-directories")
            .arg(self.root.path())
            .args(self.settings.folio_args());
        command
    }

    fn log(&self) -> PathBuf {
        self.root.path().join("folio.log")
    }

    fn spawn(&mut self) -> Result<Instant, PgbenchError> {
        let started = Instant::now();
        self.server = Some(ServerProcess::spawn(
            &mut self.command(),
            &self.log(),
            "folio serve",
        )?);
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
}

impl Engine for FolioServer {
    fn kind(&self) -> EngineKind {
        EngineKind::Folio
    }

    fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    fn gone(&mut self) -> Option<String> {
        match self.server.as_mut() {
            Some(server) => server.gone(),
            None => Some("folio serve is not running".into()),
        }
    }

    /// `kill -9` of the one process.
    fn kill9(&mut self) -> Result<(), PgbenchError> {
        if let Some(mut server) = self.server.take() {
            server.kill();
        }
        Ok(())
    }

    /// What was replayed is the server's own report on restart (`folio:
    /// recovery replayed N records, B bytes ...`, from the last
    /// checkpoint's redo point to the end).
    fn restart(&mut self, harness: &Harness) -> Result<Recovery, PgbenchError> {
        let logged_before = std::fs::metadata(self.log()).map_or(0, |m| m.len() as usize);
        let started = self.spawn()?;
        let elapsed = self.wait_ready(harness, started)?;
        let server = self.server.as_ref().expect("spawned");
        let log = server.log();
        let since_restart = log.get(logged_before..).unwrap_or_default();
        let (records, wal_bytes) = parse::folio_recovery(since_restart).ok_or_else(|| {
            PgbenchError::Command(format!(
                "folio serve reported no recovery after kill -9; its log ends: {}",
                server.log_tail(3)
            ))
        })?;
        Ok(Recovery {
            recovery_s: elapsed.as_secs_f64(),
            wal_bytes,
            records,
        })
    }
}

impl Drop for FolioServer {
    fn drop(&mut self) {
        if let Some(server) = self.server.as_mut() {
            server.signal(Signal::TERM);
            if !server.wait_exit(Duration::from_secs(30)) {
                server.kill();
            }
        }
    }
}
