//! `folio serve`: PostgreSQL's wire protocol (3.0) over folio-sql
//! sessions. Design and status: `README.md`.

mod connection;
mod pool;
mod protocol;
mod scram;
mod server;
mod wire;

pub use connection::SERVER_VERSION;
pub use server::{Auth, Execution, Server, ServerConfig};
