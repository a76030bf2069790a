//! folio's transaction manager (design: this crate's `README.md`).
//!
//! Transaction ids and commit sequence numbers (`ids.rs`), a transaction's
//! fate as one word (`fate.rs`), the final fates a thread resolved
//! lately (`fate_cache.rs`), the commit clock with one-load snapshots
//! (`clock.rs`, model-checked in `loom_model.rs`), the CSN log in pages
//! (`log_page.rs`, `csn_log.rs`, `directory.rs`) with its WAL records and
//! redo (`records.rs`), the manager (`manager.rs`), the table of running
//! writers and their waits (`live.rs`), the transaction (`transaction.rs`)
//! advisory locks (`advisory.rs`), and the cumulative statistics of
//! tables and indexes (`stat_counts.rs`, `stat_store.rs`).

mod advisory;
mod backends;
mod clock;
mod csn_log;
mod directory;
mod error;
mod fate;
mod fate_cache;
mod ids;
mod interrupt;
mod live;
mod log_page;
#[cfg(all(test, feature = "loom"))]
mod loom_model;
mod manager;
mod prepared;
mod records;
mod relation_locks;
mod serializable;
mod share_groups;
mod slots;
mod stat_counts;
mod stat_store;
mod sync;
mod transaction;

pub use advisory::{
    AdvisoryKey, AdvisoryLockRow, AdvisoryLocks, AdvisoryMode, AdvisoryOwner, AdvisoryScope,
};
pub use backends::{
    Activity, Backend, BackendState, Backends, MAX_QUEUED, Notification, Registered,
};
pub use clock::{CommitClock, CsnTicket, Snapshot};
pub use csn_log::{CsnLog, Limits};
pub use directory::MAX_LOG_PAGES;
pub use error::TxnError;
pub use fate::{Fate, XidFate};
pub use ids::{Csn, Xid};
pub use interrupt::{Cause as CancelCause, Interrupt, WaitEvent, check_memory};
pub use live::{Ended, WaitPolicy};
pub use log_page::XIDS_PER_PAGE;
pub use manager::{Outcome, RESERVE_STEP, TxnConfig, TxnManager};
pub use prepared::PreparedInfo;
pub use records::{ABORT, COMMIT, FateChange, INIT_PAGE, SUBXACT, TxnRedo};
pub use relation_locks::LockMode;
pub use serializable::{PROMOTE_AT, Reason as SerializationReason, Target as PredicateTarget};
pub use share_groups::SWEEP_AT as SHARE_GROUP_SWEEP_AT;
pub use slots::MAX_SNAPSHOTS;
pub use stat_counts::{PUBLISH_INTERVAL, SessionStats};
pub use stat_store::{DatabaseCounts, StatEntry, StatStore};
pub use transaction::{Command, Durability, Isolation, Transaction, Triggered};
