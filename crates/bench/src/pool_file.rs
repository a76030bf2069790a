//! A fresh database file with its buffer pool, for the workloads that
//! measure the storage kernel directly.

use crate::{BenchConfig, BenchError};
use folio_buffer::{BufferPool, PoolConfig};
use folio_io::{Dir, FsDir, OpenOptions};
use std::sync::Arc;

/// Creates `file_name` in the data directory (replacing a leftover from an
/// earlier run) and a pool over it of `pool_size_bytes`.
pub fn fresh_pool(
    config: &BenchConfig,
    file_name: &str,
    pool_size_bytes: u64,
    checksums: bool,
) -> Result<Arc<BufferPool>, BenchError> {
    let io_error = |source| BenchError::Io {
        what: file_name.to_string(),
        source,
    };
    let dir = FsDir::open(&config.data_dir).map_err(io_error)?;
    if dir.exists(file_name).map_err(io_error)? {
        dir.remove(file_name).map_err(io_error)?;
    }
    let file = dir
        .open(file_name, OpenOptions::CREATE_NEW)
        .map_err(io_error)?;
    let pool_config = PoolConfig {
        pool_size_bytes,
        max_database_bytes: 64 << 30,
        checksums,
        ..PoolConfig::default()
    };
    Ok(BufferPool::create(file, pool_config)?)
}
