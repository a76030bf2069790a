//! `folio.statement_memory_limit`: how much memory a statement may take
//! before it fails with PostgreSQL's 53200 `out of memory`, so a runaway
//! one (a huge `generate_series`, a cross join, an `array_agg` of
//! millions) fails alone instead of growing until the operating system's
//! OOM killer ends the whole server (README "Statement memory").
//!
//! A size in kB like `work_mem` (`64MB`, `4GB`); 0 or -1 is no limit.
//! The built-in default is half the memory this process may have
//! (folio-memory `machine_bytes`: the machine's, or its cgroup's limit);
//! `folio serve --statement-memory-limit` sets the server's, which RESET
//! goes back to. The session holds each statement to it
//! (`Session::statement_limits`, folio-memory `limit`); the loops that
//! check for a cancel fail the statement past it (folio-txn
//! `Interrupt::check`), and [`failed`] says which setting it passed.

use crate::error::SqlError;

/// The setting's name, in the `folio.` namespace of folio's own.
pub const NAME: &str = "folio.statement_memory_limit";

/// The largest limit, in kB: PostgreSQL's for memory settings.
const MAX_KB: i64 = i32::MAX as i64;

/// The built-in default, in kB: half of what this process may have,
/// in whole MB (-1, no limit, where that is unknown).
pub fn default_kb() -> i64 {
    match folio_memory::machine_bytes() {
        Some(bytes) => ((bytes / 2) >> 20).saturating_mul(1024).min(MAX_KB as u64) as i64,
        None => -1,
    }
}

/// `value` of a SET, in kB, or PostgreSQL's 22023.
pub fn read(value: &str) -> Result<i64, SqlError> {
    crate::tunables::read_memory(NAME, value, 1, -1, MAX_KB)
}

/// A limit of `kb` as SHOW prints it (`64MB`; `0`, `-1`).
pub fn show(kb: i64) -> String {
    match kb {
        ..=0 => kb.to_string(),
        _ => crate::tunables::show_memory(kb),
    }
}

/// A limit of `kb` in bytes (`None`: no limit).
pub fn bytes(kb: i64) -> Option<u64> {
    u64::try_from(kb)
        .ok()
        .filter(|&kb| kb > 0)
        .map(|kb| kb * 1024)
}

/// 53200 as PostgreSQL's (`out of memory`), its DETAIL naming the limit
/// of `kb` the statement passed, where PostgreSQL's names the request
/// and the memory context that failed.
pub fn failed(mut e: SqlError, kb: i64) -> SqlError {
    e.message = "out of memory".into();
    e.detail = Some(format!(
        "The statement's memory grew past {NAME} ({}).",
        show(kb)
    ));
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Proves the units and the no-limit values as SET takes and SHOW
    /// prints them.
    #[test]
    fn sizes() {
        assert_eq!(read("64MB").unwrap(), 65536);
        assert_eq!(show(65536), "64MB");
        assert_eq!(read("1024").unwrap(), 1024);
        assert_eq!(show(read("-1").unwrap()), "-1");
        assert_eq!(bytes(0), None);
        assert_eq!(bytes(-1), None);
        assert_eq!(bytes(2), Some(2048));
        assert_eq!(read("-2").unwrap_err().code, "22023");
        assert_eq!(read("lots").unwrap_err().code, "22023");
        assert!(default_kb() > 0);
    }
}
