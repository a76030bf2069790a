//! The two servers behind one interface: start one fresh, find its port,
//! notice it died, crash it and time its recovery.

use super::process::ServerProcess;
use super::{Endpoint, Harness, PgbenchError, Settings};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    Folio,
    Postgres,
}

impl EngineKind {
    pub const BOTH: [EngineKind; 2] = [EngineKind::Folio, EngineKind::Postgres];

    /// The `engine` value of a row.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Folio => "folio",
            EngineKind::Postgres => "postgres",
        }
    }
}

/// What a restart after `kill -9` took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recovery {
    /// From starting the server again to the first connection that
    /// answered `select 1`.
    pub recovery_s: f64,
    /// WAL replayed from the last checkpoint's redo point: record bytes
    /// (full-page images included), as each engine's own tool counts them.
    pub wal_bytes: u64,
    /// WAL records replayed (not the same unit on both engines).
    pub records: u64,
}

/// A running server in its own temporary directory; dropping it stops the
/// server by pid and removes the directory.
pub trait Engine: std::fmt::Debug {
    fn kind(&self) -> EngineKind;
    /// Where clients reach it.
    fn endpoint(&self) -> &Endpoint;
    /// When the server has exited: how, and the last line of its log.
    fn gone(&mut self) -> Option<String>;
    /// `kill -9` of every process of the server; returns once all are gone.
    fn kill9(&mut self) -> Result<(), PgbenchError>;
    /// After [`Engine::kill9`]: a restart on the same directory, timed to
    /// the first `select 1` answered, with the WAL that recovery replays.
    fn restart(&mut self, harness: &Harness) -> Result<Recovery, PgbenchError>;
}

/// How long a server may take to accept its first connection: a new
/// folio database or a PostgreSQL cluster after initdb start in well
/// under a second; recovery after a crash may replay a lot of WAL.
pub const START_TIMEOUT: Duration = Duration::from_secs(120);

/// Lines of a server's log shown when it fails to start.
pub const LOG_TAIL_LINES: usize = 20;

impl Harness {
    /// Starts a fresh server of `kind` with `settings`.
    pub fn start(
        &self,
        kind: EngineKind,
        settings: &Settings,
    ) -> Result<Box<dyn Engine>, PgbenchError> {
        self.check_interrupt()?;
        Ok(match kind {
            EngineKind::Folio => Box::new(super::folio::FolioServer::start(self, settings)?),
            EngineKind::Postgres => Box::new(super::postgres::PgCluster::start(self, settings)?),
        })
    }

    /// Waits until a connection to `to` answers `select 1` through psql
    /// (a plain connect is tried first: it fails fast while nothing
    /// listens). Returns the time since `started`. Fails if the server
    /// exits or `START_TIMEOUT` passes, with the tail of its log.
    pub(crate) fn wait_ready(
        &self,
        server: &mut ServerProcess,
        to: &Endpoint,
        started: Instant,
    ) -> Result<Duration, PgbenchError> {
        let port = to.port;
        let listens = || {
            if to.host.starts_with('/') {
                let socket = Path::new(&to.host).join(format!(".s.PGSQL.{port}"));
                UnixStream::connect(socket).is_ok()
            } else {
                let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
                TcpStream::connect_timeout(&address, Duration::from_secs(1)).is_ok()
            }
        };
        let mut last_error = String::from("nothing listening yet");
        loop {
            self.check_interrupt()?;
            if let Some(status) = server.exit_status() {
                return Err(PgbenchError::Start {
                    server: server.name(),
                    reason: format!("it exited ({status})"),
                    log_tail: server.log_tail(LOG_TAIL_LINES),
                });
            }
            if listens() {
                match self.psql_within(to, "select 1", Duration::from_secs(10)) {
                    Ok(out) if out.trim() == "1" => return Ok(started.elapsed()),
                    Ok(out) => last_error = format!("select 1 answered {out:?}"),
                    Err(PgbenchError::Interrupted) => return Err(PgbenchError::Interrupted),
                    Err(e) => last_error = e.to_string(),
                }
            }
            if started.elapsed() > START_TIMEOUT {
                return Err(PgbenchError::Start {
                    server: server.name(),
                    reason: format!(
                        "no answer to select 1 on port {port} within {} s (last: {last_error})",
                        START_TIMEOUT.as_secs()
                    ),
                    log_tail: server.log_tail(LOG_TAIL_LINES),
                });
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}
