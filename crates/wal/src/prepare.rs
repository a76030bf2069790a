//! The segment preparer (`WalConfig::prepare_in_background`): a thread
//! that creates the segment after the one the writer has just entered.
//!
//! Creating a segment (a temporary file zero-filled or allocated, fsynced,
//! renamed, the directory fsynced) took ~30 ms for 16 MiB on the machine
//! of the benchmarks. Inline, the writer that enters segment `s` paid it
//! for `s + 1` (`segment.rs`), and the writer is often the thread that
//! inserts: a COPY of `pgbench -i -s 10` spent 0.55 s of its ~3 s there
//! (strace). With the preparer, entering `s` only asks for `s + 1`; the
//! writer goes on writing `s` while the thread creates `s + 1` under the
//! segment manager's mutex, exactly as the writer did.
//!
//! Nothing depends on the preparer being on time. A writer entering a
//! segment that does not exist yet creates it itself (or waits on the
//! mutex for the preparer's creation to finish, then finds it there); an
//! inserter whose reservation passes the last segment makes room as
//! before (`Segments::make_room`). A failed preparation is forgotten: the
//! write that needs the segment reports the error, as with inline
//! preparation.
//!
//! Lock order: the mailbox's mutex (folio-io `Mailbox`) is never held
//! while the segment manager's is taken (the thread takes a request,
//! releases it, then creates), and `enter` holds the manager's mutex while
//! it posts. Off (the default of `WalConfig`), segments are prepared
//! inline, so a test on the simulated device performs its I/O in one
//! thread, in an order its seed fixes.

use crate::Shared;
use crate::error::WalError;
use folio_io::Mailbox;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;

/// Requests from the writer to the preparer: the newest segment wanted.
pub(crate) type AheadRequests = Mailbox<u64>;

/// The preparer thread; stopped and joined on drop.
#[derive(Debug)]
pub(crate) struct Preparer {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Preparer {
    /// Starts the thread; the WAL's segment manager must have been opened
    /// with requests (`Segments::ahead`).
    pub fn spawn(shared: Arc<Shared>) -> Result<Preparer, WalError> {
        let worker = shared.clone();
        let thread = std::thread::Builder::new()
            .name("folio-wal-prepare".into())
            .spawn(move || {
                let Some(requests) = worker.segments.ahead() else {
                    return;
                };
                while let Some(segno) = requests.take() {
                    if !worker.poisoned.load(Ordering::SeqCst) {
                        worker.segments.prepare(segno);
                    }
                }
            })
            .map_err(|e| WalError::io("spawning", "WAL segment preparer thread", e))?;
        Ok(Preparer {
            shared,
            thread: Some(thread),
        })
    }
}

impl Drop for Preparer {
    fn drop(&mut self) {
        if let Some(requests) = self.shared.segments.ahead() {
            requests.close();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
