//! The listener: a thread per connection (PostgreSQL's process per
//! connection), at most `max_connections` served at once.

use crate::connection;
use folio_db::Database;
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::thread::JoinHandle;

/// Server settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// PostgreSQL's default: 100.
    pub max_connections: usize,
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 5432)),
            max_connections: 100,
        }
    }
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Listens on `config.listen` and serves `db` until [`Server::stop`].
    pub fn start(db: Arc<Database>, config: &ServerConfig) -> io::Result<Server> {
        let listener = TcpListener::bind(config.listen)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let max = config.max_connections;
        let flag = stop.clone();
        let accept = std::thread::Builder::new()
            .name("folio-accept".into())
            .spawn(move || accept_loop(listener, db, max, &flag))?;
        Ok(Server {
            addr,
            stop,
            accept: Some(accept),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting connections (those open finish on their own).
    pub fn stop(mut self) {
        self.stop_accepting();
    }

    fn stop_accepting(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop, which then sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop_accepting();
    }
}

fn accept_loop(listener: TcpListener, db: Arc<Database>, max: usize, stop: &AtomicBool) {
    let active = Arc::new(AtomicUsize::new(0));
    let next_pid = AtomicU32::new(1);
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let admit = active.fetch_add(1, Ordering::SeqCst) < max;
        let (db, slots) = (db.clone(), active.clone());
        let pid = next_pid.fetch_add(1, Ordering::Relaxed);
        let spawned = std::thread::Builder::new()
            .name(format!("folio-conn-{pid}"))
            .spawn(move || {
                if let Err(e) = connection::serve(stream, db, admit, pid) {
                    eprintln!("folio: connection {pid}: {e}");
                }
                slots.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}
