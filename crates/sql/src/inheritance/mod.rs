//! Table inheritance (README "Table inheritance"): PostgreSQL's
//! `CREATE TABLE c (...) INHERITS (p, ...)`, where a child holds its
//! parents' columns and constraints and a parent read (or updated, or
//! deleted from) without `ONLY` reaches every descendant's rows too.
//!
//! - `create.rs`: CREATE TABLE ... INHERITS: the merged column list,
//!   the inherited CHECK constraints, the catalog rows.
//! - `syntax.rs`: `ONLY name` and `name *` in FROM, UPDATE and DELETE
//!   (sqlparser reads neither).
//! - `tree.rs`: a table's descendants, as reading and DML recurse into
//!   them.
//! - `counts.rs`: where a child's column or CHECK came from (local,
//!   inherited from how many parents) and what becomes of it when a
//!   parent loses it.
//! - `alter.rs`: ALTER TABLE's recursion into children, `INHERIT` /
//!   `NO INHERIT`, DROP's dependency of a child on its parent.

pub mod alter;
pub mod counts;
pub mod create;
pub mod syntax;
pub mod tree;
