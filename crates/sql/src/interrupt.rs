//! Where a long statement looks at its session's cancel flag (folio-txn's
//! `Interrupt`, set by a CancelRequest): every `CHECK_EVERY_ROWS` rows of
//! generate_series and COPY FROM and of a PL/pgSQL loop's iterations, once
//! per outer row of a join, between
//! the phases of a query (before its sort and its aggregation), and once
//! a page in a heap scan (folio-heap). A check is a relaxed atomic load.
//!
//! The same checks fail a statement that grew past its memory limit
//! (`folio.statement_memory_limit`, folio-txn `Interrupt::check`): the
//! loops that may run long are those that may grow. [`every`] looks at
//! the memory on every row (a thread-local load and compare,
//! folio-memory `over`), since a thousand rows may be large ones.

use crate::error::SqlError;
use folio_db::Transaction;

/// Rows between two looks at the flag.
pub(crate) const CHECK_EVERY_ROWS: u64 = 1024;

/// 57014 if the flag is set and `row` is a multiple of
/// [`CHECK_EVERY_ROWS`]; 53200 once the statement is past its memory
/// limit.
pub(crate) fn every(txn: &Transaction, row: u64) -> Result<(), SqlError> {
    if row.is_multiple_of(CHECK_EVERY_ROWS) || folio_memory::over() {
        txn.check_interrupt()?;
    }
    Ok(())
}
