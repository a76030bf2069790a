//! folio's recovery: the control file, checkpoints, and the recovery driver
//! that replays the WAL from the latest checkpoint's redo point with
//! prefetch and parallel apply. The design document is this crate's
//! `README.md`.
//!
//! Files by concept: `control.rs` (control file), `checkpoint.rs`
//! (checkpointer), `driver.rs` (replay, apply, partitioning), `batch.rs`
//! (records packed for an apply thread), `lookahead.rs`
//! (decode ahead, prefetch), `helper.rs` (readahead advice and the
//! background writer, on a second thread), `placement.rs` (which CPU each
//! of recovery's threads runs on),
//! `registry.rs` (redo by resource manager),
//! `xact.rs` (the commit and checkpoint records and their no-op redo),
//! `error.rs`.
//!
//! This crate does not depend on the structures above the buffer manager,
//! and does not join the pool to the WAL: their redo and the pool's logging
//! hooks are registered and installed by the database layer (folio-db).

mod batch;
mod checkpoint;
mod control;
mod driver;
mod error;
mod helper;
mod lookahead;
mod placement;
mod registry;
mod xact;

pub use checkpoint::{CheckpointConfig, CheckpointKind, CheckpointStats, Checkpointer};
pub use control::{
    CONTROL_FILE, CONTROL_SIZE, CONTROL_TEMP, CONTROL_VERSION, ControlData, ControlError, DbState,
};
pub use driver::{RecoveryOptions, RecoveryStats, recover};
pub use error::RecoveryError;
pub use registry::RedoRegistry;
pub use xact::{
    XACT_CHECKPOINT, XACT_COMMIT, XactRedo, checkpoint_redo_lsn, insert_checkpoint, insert_commit,
};
