//! `folio serve`: PostgreSQL's wire protocol (3.0) over folio-sql
//! sessions. Design and status: `README.md`.

mod connection;
mod protocol;
// Wired into the startup once the event-loop connection lands (README "Status").
#[allow(dead_code)]
mod scram;
mod server;

pub use connection::SERVER_VERSION;
pub use server::{Server, ServerConfig};
