//! folio's heap tables (design: this crate's `README.md`): tuple versions
//! with xmin, xmax and a link to the next version (`tuple.rs`) on
//! line-pointer pages, WAL-logged with redo beside them (`records.rs`),
//! read and written under MVCC (`visibility.rs`, `table.rs`).

mod chain;
mod error;
mod hint;
mod index;
mod prune;
mod records;
mod table;
mod targets;
mod tuple;
mod vacuum;
mod visibility;
mod visibility_map;

pub use error::HeapError;
pub use index::{Index, Rows, ScanPages};
pub use records::{
    DELETE, HeapRedo, INIT_PAGE, INSERT, LOCK, LineChange, PRUNE, PageOp, UPDATE, apply,
};
pub use table::{Lead, Table, Write};
pub use targets::IndexTargets;
pub use tuple::{HEAP_ONLY, HOT_UPDATED, TUPLE_HEADER_SIZE, Tid, TupleHeader, XMAX_LOCK_ONLY};
pub use vacuum::VacuumStats;
pub use visibility::{WriteCheck, check_write, may_write, visible};
pub use visibility_map::VisibilityMap;
