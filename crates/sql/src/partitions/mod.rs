//! Partitioned tables (README "Partitioned tables"): PostgreSQL 15's
//! declarative partitioning by RANGE, LIST or HASH of columns.
//!
//! - `syntax.rs`: `PARTITION BY ...`, `PARTITION OF parent FOR VALUES
//!   ...` and the bounds, read from a CREATE TABLE's tokens (sqlparser
//!   reads neither) and from the stored bound text.
//! - `bounds.rs`: a bound evaluated over the key's types; whether a row's
//!   key lies in it (the one owner of "does this row belong here", used by
//!   routing and by the partition constraint), overlap, PostgreSQL's text.
//! - `column_map.rs`: a partition whose columns are in another order
//!   than its parent's: rows and positions converted by name.
//! - `hash.rs`: PostgreSQL's hash partitioning hash.
//! - `constraint_text.rs`: PostgreSQL's text of a partition key and of a
//!   partition's implied constraint (`pg_get_partkeydef`,
//!   `pg_get_partition_constraintdef`).
//! - `tree.rs`: a partitioned table's partitions, bound: routing a row,
//!   pruning partitions by WHERE conditions.
//! - `run_time.rs`: run-time pruning, the partitions an execution's
//!   parameters leave, picked when it starts.
//! - `index_tree.rs`: which index of a partition is the partition of its
//!   parent table's index (`pg_inherits`, `pg_partition_tree`).
//! - `columns.rs`: ADD / DROP COLUMN of a partitioned table, reaching
//!   every partition; DROP CONSTRAINT of its foreign key.
//! - `inherited_alter.rs`: SET / DROP DEFAULT, SET / DROP NOT NULL, ADD
//!   and DROP of a CHECK of a partitioned table, reaching every
//!   partition; what a partition may not drop of its parent's.
//! - `ddl.rs`: CREATE TABLE ... PARTITION BY / PARTITION OF, ATTACH and
//!   DETACH PARTITION.
//! - `foreign_keys.rs`: foreign keys to and from partitioned tables: a
//!   key looked up through the partition it routes to, a partition's
//!   ancestors' keys, a partitioned referencing table's leaves.
//! - `merged_keys.rs`: a partition's own foreign key merged with its
//!   parent's equal one (not droppable alone, goes with it).
//! - `leaf_triggers.rs`: the row triggers a row inserted through a
//!   partitioned table fires, its leaf partition's.
//! - `trigger_clones.rs`: a partitioned table's row triggers cloned to
//!   its partitions, kept in step by CREATE / DROP / ENABLE TRIGGER,
//!   PARTITION OF, ATTACH and DETACH.

pub mod bounds;
pub mod column_map;
pub mod columns;
pub mod constraint_text;
pub mod ddl;
pub mod foreign_keys;
pub mod hash;
pub mod index_tree;
pub mod inherited_alter;
pub mod leaf_triggers;
pub mod merged_keys;
pub mod run_time;
pub mod syntax;
pub mod tree;
pub mod trigger_clones;

/// PostgreSQL's `partstrat` codes.
pub const RANGE: u8 = b'r';
pub const LIST: u8 = b'l';
pub const HASH: u8 = b'h';

pub use syntax::{BoundSpec, TableSpec};
pub use tree::Tree;
