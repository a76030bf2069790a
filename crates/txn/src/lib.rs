//! folio's transaction manager (design: this crate's `README.md`).
//!
//! Built so far: transaction ids and commit sequence numbers (`ids.rs`), a
//! transaction's fate as one atomic word (`fate.rs`), and the commit clock
//! with one-number snapshots (`clock.rs`), model-checked with loom
//! (`loom_model.rs`). Not yet: the persistent CSN log, waits, savepoints.

mod clock;
mod fate;
mod ids;
#[cfg(all(test, feature = "loom"))]
mod loom_model;
mod sync;

pub use clock::{CommitClock, Snapshot};
pub use fate::{Fate, XidFate};
pub use ids::{Csn, Xid};
