//! `folio serve`: PostgreSQL's wire protocol (3.0) over folio-sql
//! sessions. Design and status: `README.md`.

mod connection;
mod pool;
mod portal;
mod protocol;
mod scram;
mod server;
mod stream;
mod unix_socket;
mod wire;

pub use connection::SERVER_VERSION;
pub use server::{
    Auth, Execution, OWN_THREADS_PER_WORKER, Server, ServerConfig, default_unix_socket_directory,
};
