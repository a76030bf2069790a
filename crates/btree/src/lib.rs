//! folio's B+tree (see README.md in this crate for the protocol and the
//! invariants): Lehman-Yao high keys and right links plus left links,
//! descents with optimistic lock coupling that write no shared memory,
//! scans that copy a leaf into a batch and step to either sibling without
//! touching the page they left, and a `verify()` of every structural
//! invariant.
//!
//! A tree opened with a WAL logs every change as one record (README "WAL
//! logging"); [`BtreeRedo`] replays those records page by page.
//!
//! One file per concern: `node.rs` (layout and search), `node_mut.rs`
//! (node-local changes), `tree.rs` (handle, descent, lookup), `insert.rs`,
//! `split.rs`, `delete.rs`, `scan.rs`, `verify.rs`, `multi.rs` (non-unique
//! trees), `root_map.rs` (named trees: the map of roots), `counters.rs`; logging: `apply.rs`
//! (page changes shared by do and redo), `logging.rs` (the do path's
//! protocol), `wal_records.rs` (record layouts), `redo.rs` (`BtreeRedo`).

mod apply;
mod build;
mod counters;
mod delete;
mod error;
mod insert;
mod kill;
mod logging;
mod multi;
mod node;
mod node_mut;
mod page_buffer;
mod pages;
mod redo;
mod root_map;
mod scan;
mod split;
mod tree;
mod verify;
mod wal_records;

pub use build::{BuildStats, Builder};
pub use counters::AccessCounters;
pub use error::BtreeError;
pub use kill::LeafStamp;
pub use multi::{
    KeyForm, MAX_MULTI_KEY_LEN, MAX_PREFIX_FREE_KEY_LEN, MultiBuilder, MultiEntry, MultiScan,
    MultiTree,
};
pub use node::{MAX_ENTRY_LEN, MAX_KEY_LEN};
pub use redo::BtreeRedo;
pub use root_map::{ROOT_MAP_META_SLOT, RootEntry, RootMap, TreeKind};
pub use scan::{Direction, Entry, Scan, prefix_successor};
pub use tree::Tree;
pub use verify::VerifyReport;
