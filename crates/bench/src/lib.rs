//! folio's benchmark workloads. Each workload reproduces a seed's workload
//! (see `docs/BENCHMARKS.md`), measures it, and states the DESIGN.md §4
//! targets it answers. Figures that depend on the machine are judged as
//! ratios measured side by side in the same run.

mod btree;
mod buffer;
mod config;
mod error;
mod harness;
mod html;
mod loopfs;
pub mod pgbench;
mod pool_file;
mod recovery;
mod recycle;
mod report;
mod row;
mod select;
mod targets;
pub mod txn;
mod wal;

pub use config::{BenchConfig, Progress, SilentProgress};
pub use error::BenchError;
pub use html::render_html;
pub use report::{json_lines, render_summary, render_table, write_results};
pub use row::{Check, Row};

/// A benchmark workload: `folio bench NAME`.
pub trait Workload: Sync {
    /// The name on the command line.
    fn name(&self) -> &'static str;
    /// One line saying what it measures and which seed it reproduces.
    fn about(&self) -> &'static str;
    /// Runs the workload and returns one row per measured point.
    fn run(&self, config: &BenchConfig, progress: &dyn Progress) -> Result<Vec<Row>, BenchError>;
    /// The DESIGN.md §4 targets this workload answers, judged over its rows.
    fn checks(&self, rows: &[Row]) -> Vec<Check>;
}

/// Every workload, in the order the suite runs them.
pub fn workloads() -> Vec<&'static dyn Workload> {
    vec![
        &buffer::BufferWorkload,
        &btree::BtreeWorkload,
        &select::SelectOnlyWorkload,
        &wal::WalWorkload,
        &recycle::RecycleWorkload,
        &recovery::RecoveryWorkload,
        &txn::TxnWorkload,
    ]
}

/// Finds a workload by name.
pub fn workload(name: &str) -> Option<&'static dyn Workload> {
    workloads().into_iter().find(|w| w.name() == name)
}
