//! The listener: an accept thread whose own (single-threaded) tokio
//! runtime accepts connections and runs their startups, so a
//! CancelRequest is always served; then each connection goes to a thread
//! of its own (`Execution::Thread`, and the first few of
//! `Execution::Pool`) or to the pool's workers (`pool.rs`). At most
//! `max_connections` are served at once. And the table of cancel keys.

use crate::pool::{self, Pool};
use crate::stream::Accepted;
use crate::unix_socket::{self, SocketFile};
use crate::wire;
use folio_db::Database;
use folio_txn::Interrupt;
use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::net::{TcpListener, UnixListener};

/// Server settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// Directories of the Unix-domain sockets served besides TCP, each
    /// `DIR/.s.PGSQL.PORT` with the TCP port (PostgreSQL's
    /// `unix_socket_directories`); none by default here, and `folio
    /// serve`'s default is [`default_unix_socket_directory`].
    pub unix_socket_directories: Vec<PathBuf>,
    /// PostgreSQL's default: 100.
    pub max_connections: usize,
    pub execution: Execution,
    pub auth: Auth,
    /// `folio.statement_memory_limit` of every session until it sets
    /// its own, in kB (0 or -1: none; `None`: folio-sql's default, half
    /// the machine's memory).
    pub statement_memory_limit_kb: Option<i64>,
}

/// How clients prove who they are (pg_hba.conf's method, for every
/// connection).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Auth {
    /// Any existing role is accepted (the default, on loopback).
    #[default]
    Trust,
    /// The role's password, by SCRAM-SHA-256 (`scram.rs`); set with
    /// `ALTER ROLE postgres PASSWORD '...'`.
    ScramSha256,
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 5432)),
            unix_socket_directories: Vec::new(),
            max_connections: 100,
            execution: Execution::default(),
            auth: Auth::default(),
            statement_memory_limit_kb: None,
        }
    }
}

/// Where `folio serve` puts its Unix-domain socket unless told: where
/// this machine's libpq looks when given no host (Debian's
/// `/var/run/postgresql`), if that directory exists and this process may
/// create files in it, else PostgreSQL's own default, `/tmp`.
pub fn default_unix_socket_directory() -> PathBuf {
    let debian = Path::new("/var/run/postgresql");
    let writable = rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK;
    if debian.is_dir() && rustix::fs::access(debian, writable).is_ok() {
        debian.into()
    } else {
        PathBuf::from("/tmp")
    }
}

/// Where a connection's session runs after its startup (README "Shape",
/// with the measurements that chose the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Execution {
    /// On a thread of the connection's own, which also does its I/O with
    /// blocking calls (PostgreSQL's process per connection).
    Thread,
    /// On `workers` threads (0: one per core) sharing one epoll instance
    /// (`pool.rs`); a wait that may outlast a batch first hands its
    /// thread's place to another. The first `own_threads` connections
    /// open at a time (`None`: [`OWN_THREADS_PER_WORKER`] per worker) get
    /// threads of their own instead, which serve a few clients faster,
    /// while the workers serve no connection (`Pool::crowded`).
    Pool {
        workers: usize,
        own_threads: Option<usize>,
    },
}

impl Default for Execution {
    fn default() -> Execution {
        Execution::Pool {
            workers: 0,
            own_threads: None,
        }
    }
}

/// Connections on threads of their own, per worker, by default: up to 8
/// per core, a thread per connection served seed 000's probe faster than
/// the workers (2 cores, alternating 4 s runs over the Unix socket: 4
/// clients 116-146k tps against 101-107k, 8: 130-136k against 104k, 16:
/// 107-134k against 91k; select-only at 8 clients 49-51k against
/// 47-49k); at 24 clients and beyond the workers serve every connection
/// and the two ways are alike, and at 128 the workers win (README
/// "Shape").
pub const OWN_THREADS_PER_WORKER: usize = 8;

/// What every connection's task shares.
pub(crate) struct Shared {
    pub(crate) db: Arc<Database>,
    pub(crate) auth: Auth,
    /// `ServerConfig::max_connections`, which sessions report.
    pub(crate) max_connections: usize,
    /// `ServerConfig::statement_memory_limit_kb`, sessions' default.
    pub(crate) statement_memory_limit_kb: Option<i64>,
    /// Each open session's process id, secret key and cancel flag.
    cancels: Mutex<HashMap<u32, (u32, Arc<Interrupt>)>>,
}

impl Shared {
    /// Registers session `pid`'s cancel flag under a new secret key.
    pub(crate) fn cancel_key(&self, pid: u32, interrupt: Arc<Interrupt>) -> u32 {
        let key = rand::random::<u32>();
        self.lock_cancels().insert(pid, (key, interrupt));
        key
    }

    /// A CancelRequest: sets the flag of session `pid` if `key` is its
    /// key, else does nothing (as PostgreSQL, silently).
    pub(crate) fn cancel(&self, pid: u32, key: u32) {
        let target = self
            .lock_cancels()
            .get(&pid)
            .filter(|(k, _)| *k == key)
            .map(|(_, interrupt)| interrupt.clone());
        if let Some(interrupt) = target {
            interrupt.cancel();
        }
    }

    pub(crate) fn forget_cancel_key(&self, pid: u32) {
        self.lock_cancels().remove(&pid);
    }

    fn lock_cancels(&self) -> std::sync::MutexGuard<'_, HashMap<u32, (u32, Arc<Interrupt>)>> {
        self.cancels.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    /// Ends the accept loop.
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    accept: Option<std::thread::JoinHandle<()>>,
    /// The workers of `Execution::Pool`.
    pool: Option<Arc<Pool>>,
    /// Removed once no longer accepted on.
    socket_files: Vec<SocketFile>,
}

impl Server {
    /// Listens on `config.listen` and serves `db` until [`Server::stop`].
    pub fn start(db: Arc<Database>, config: &ServerConfig) -> io::Result<Server> {
        let pool = match config.execution {
            Execution::Pool {
                workers,
                own_threads,
            } => {
                folio_io::blocking::set_hook(pool::block_in_place);
                let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
                let workers = if workers == 0 { cores } else { workers };
                Some(Arc::new(Pool::start(
                    workers,
                    own_threads.unwrap_or(OWN_THREADS_PER_WORKER * workers),
                )?))
            }
            Execution::Thread => None,
        };
        let accept_runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .build()?;
        let listener = std::net::TcpListener::bind(config.listen)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let mut socket_files = Vec::new();
        let mut local = Vec::new();
        for dir in &config.unix_socket_directories {
            let (listener, file) = unix_socket::bind(dir, addr.port())?;
            local.push(listener);
            socket_files.push(file);
        }
        let (listener, local) = {
            let _entered = accept_runtime.enter();
            let local: io::Result<Vec<UnixListener>> =
                local.into_iter().map(UnixListener::from_std).collect();
            (TcpListener::from_std(listener)?, local?)
        };
        let shared = Arc::new(Shared {
            db,
            auth: config.auth,
            max_connections: config.max_connections,
            statement_memory_limit_kb: config.statement_memory_limit_kb,
            cancels: Mutex::new(HashMap::new()),
        });
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let admission = Arc::new(Admission {
            shared,
            max: config.max_connections,
            pool: pool.clone(),
            active: Arc::new(AtomicUsize::new(0)),
        });
        let accept = std::thread::Builder::new()
            .name("folio-accept".into())
            .spawn(move || {
                accept_runtime.block_on(async move {
                    for listener in local {
                        let admission = admission.clone();
                        tokio::spawn(async move {
                            let next = || async { listener.accept().await.map(|(s, _)| s) };
                            admission.accept_from(next).await
                        });
                    }
                    let next = || async { listener.accept().await.map(|(s, _)| s) };
                    tokio::select! {
                        _ = stopped => {}
                        _ = admission.accept_from(next) => {}
                    }
                });
            })?;
        Ok(Server {
            addr,
            stop: Some(stop),
            accept: Some(accept),
            pool,
            socket_files,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The Unix-domain sockets it listens on.
    pub fn unix_sockets(&self) -> Vec<PathBuf> {
        self.socket_files.iter().map(|f| f.path().into()).collect()
    }

    /// Stops accepting connections. Those open on their own threads go on
    /// until the process exits; those on the pool's workers are closed (a
    /// statement running goes on to its end; an idle session is dropped,
    /// its open transaction rolled back).
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        self.socket_files.clear();
        if let Some(pool) = self.pool.take() {
            pool.stop();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// What the accept loops of every listener share: connections are
/// counted against `max` across all of them, and numbered by the
/// database's live sessions (`Backends::reserve_pid`: the pid of the
/// BackendKeyData is the session's `pg_backend_pid()`).
struct Admission {
    shared: Arc<Shared>,
    max: usize,
    pool: Option<Arc<Pool>>,
    active: Arc<AtomicUsize>,
}

impl Admission {
    /// Accepts connections from `next` (a listener's accept) and runs
    /// their startups as tasks of the accept thread's runtime; a started
    /// connection goes to its own thread or to the workers.
    async fn accept_from<S: Accepted, F: Future<Output = io::Result<S>>>(
        &self,
        next: impl Fn() -> F,
    ) {
        loop {
            let Ok(stream) = next().await else {
                // Out of descriptors, say: let others run before trying again.
                tokio::task::yield_now().await;
                continue;
            };
            self.start(stream);
        }
    }

    fn start(&self, stream: impl Accepted) {
        let admit = self.active.fetch_add(1, Ordering::SeqCst) < self.max;
        let slot = Slot {
            active: self.active.clone(),
            shared: self.shared.clone(),
            pid: self.shared.db.txns().backends().reserve_pid(),
        };
        let pool = self.pool.clone();
        tokio::spawn(async move {
            let started = wire::startup(stream, &slot.shared, admit, slot.pid).await;
            let started = match started {
                Ok(Some(started)) => started,
                other => return wire::report(slot.pid, other.map(|_| ())),
            };
            let Some(pool) = pool else {
                return on_thread(started, slot, None);
            };
            match pool.own_thread() {
                Some(place) => on_thread(started, slot, Some((pool, place))),
                None => {
                    let (stream, inbox, conn) = started.into_parts();
                    pool.add(stream, inbox, conn, slot);
                }
            }
        });
    }
}

/// Serves a started connection on a thread of its own. One holding a
/// `place` among the pool's moves to the pool's workers between requests
/// once the pool serves other connections too (`Pool::crowded`), so that
/// every connection is served alike.
fn on_thread(started: wire::Started, slot: Slot, place: Option<(Arc<Pool>, pool::OwnThread)>) {
    let spawned = std::thread::Builder::new()
        .name(format!("folio-conn-{}", slot.pid))
        .stack_size(folio_sql::SESSION_STACK)
        .spawn(move || {
            let pool = place.as_ref().map(|(pool, _)| pool.clone());
            let stay = || pool.as_ref().is_none_or(|pool| !pool.crowded());
            match wire::on_thread(started, &stay) {
                Ok(Some(moving)) => {
                    drop(place);
                    if let Some(pool) = pool {
                        let (stream, inbox, conn) = moving.into_parts();
                        pool.add(stream, inbox, conn, slot);
                    }
                }
                ended => wire::report(slot.pid, ended.map(|_| ())),
            }
        });
    if let Err(e) = spawned {
        eprintln!("folio: no thread for a connection: {e}");
    }
}

/// A connection's place among `max_connections`, and its cancel key's:
/// both freed when it ends.
pub(crate) struct Slot {
    active: Arc<AtomicUsize>,
    shared: Arc<Shared>,
    pid: u32,
}

impl Slot {
    /// The connection's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.shared.forget_cancel_key(self.pid);
        self.active.fetch_sub(1, Ordering::SeqCst);
    }
}
