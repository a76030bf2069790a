/// A benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("I/O error in {what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error("buffer manager: {0}")]
    Buffer(#[from] folio_buffer::BufferError),
    #[error("WAL: {0}")]
    Wal(#[from] folio_wal::WalError),
    #[error("database: {0}")]
    Db(#[from] folio_db::DbError),
    /// The SQLite run beside folio's (`folio bench txn`, `tpcb-sqlite`).
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// What a workload checks of its own results was wrong.
    #[error("benchmark check failed: {0}")]
    Failed(String),
    #[error("invalid benchmark configuration: {0}")]
    Config(String),
}
