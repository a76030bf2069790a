//! folio's embedded database: a data file, its write-ahead log and control
//! file in one directory, recovered on open, checkpointed in the background,
//! with a root map of WAL-logged B+trees. The design document is this
//! crate's `README.md`.
//!
//! ```no_run
//! use folio_db::{Database, Options};
//! let db = Database::create("/tmp/folio-example", Options::default())?;
//! let accounts = db.create_tree("accounts")?;
//! accounts.insert(b"alice", b"100")?;
//! db.commit()?; // durable from here on
//! db.close()?;
//! # Ok::<(), folio_db::DbError>(())
//! ```

mod adapters;
mod database;
mod error;
mod lock;
pub mod offline;
mod options;

pub use adapters::{PageAllocRedo, WalMetaLogger, WalPageFlusher};
pub use database::{
    CSN_LOG_TREE, DATA_FILE, Database, NamedCheck, Storage, UNLOGGED_CLEAN, UNLOGGED_FILE, WAL_DIR,
    redo_registry,
};
pub use error::DbError;
pub use folio_catalog::{
    Catalog, CatalogError, ColumnDef, ConstraintDef, ConstraintKind, Deferrable, ForeignKeyRequest,
    IndexDef, KeyOrder, LOG_AHEAD, Persistence, RefAction, Refill, SequenceDef, SequenceOptions,
    SequenceRequest, TableDef,
};
pub use folio_heap::{Index, Table, Tid, Write};
pub use folio_recovery::CONTROL_FILE;
pub use folio_txn::{Command, Durability, Isolation, Transaction, Triggered};
pub use folio_wal::Recycle;
pub use lock::LOCK_FILE;
pub use options::{DEFAULT_RECOVERY_THREADS_MAX, Options, default_recovery_threads};
