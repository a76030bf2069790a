//! How much memory the statement a thread runs has taken, so that a
//! runaway statement fails (PostgreSQL's 53200 `out of memory`) before
//! the operating system's OOM killer takes the whole server down
//! (README).
//!
//! [`Counting`] wraps the process's allocator and keeps, per thread, the
//! bytes the thread allocated minus those it freed ([`counting`]); a
//! statement's [`Limit`] ([`limit`]) records where that count may go up
//! to, and [`over`] says whether it went past. [`machine_bytes`] is the
//! memory this process may have, from which the default limit is drawn.
//!
//! This crate depends on nothing of folio's, so the SQL layer can ask it
//! and the `folio` binary (and the test binaries that need it) can
//! install [`Counting`] as their `#[global_allocator]`.

mod counting;
mod limit;
mod machine;

pub use counting::{Counting, net_bytes};
pub use limit::{Limit, limit, over};
pub use machine::machine_bytes;
