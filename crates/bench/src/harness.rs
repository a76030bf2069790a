//! Runs a closure on N threads for a fixed time and counts operations.

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Operations done and the time they took.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    pub ops: u64,
    pub elapsed: Duration,
}

impl Measured {
    pub fn ops_per_sec(&self) -> f64 {
        self.ops as f64 / self.elapsed.as_secs_f64()
    }
}

/// A flag the body polls to know when to stop.
#[derive(Debug)]
pub struct StopFlag(AtomicBool);

impl StopFlag {
    /// True once the measurement time is over. A plain load: polling writes
    /// no shared memory.
    #[inline]
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Runs `body(thread_index, stop)` on `threads` threads, all started together,
/// for `duration`; each body returns how many operations it completed.
pub fn run_for<F>(threads: usize, duration: Duration, body: F) -> Measured
where
    F: Fn(usize, &StopFlag) -> u64 + Sync,
{
    assert!(threads > 0, "at least one thread");
    let stop = StopFlag(AtomicBool::new(false));
    let barrier = Barrier::new(threads + 1);
    thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|index| {
                let (body, stop, barrier) = (&body, &stop, &barrier);
                thread::Builder::new()
                    .stack_size(256 << 10)
                    .spawn_scoped(scope, move || {
                        barrier.wait();
                        body(index, stop)
                    })
                    .expect("spawn benchmark thread")
            })
            .collect();
        // The clock starts before the barrier opens: once it opens, the
        // workers may run while this thread waits to be scheduled again
        // (with hundreds of threads on 2 cores, for a long time), and a
        // clock read after that would credit their work to too short a time.
        let start = Instant::now();
        barrier.wait();
        thread::sleep(duration);
        stop.0.store(true, Ordering::Relaxed);
        let ops = handles
            .into_iter()
            .map(|h| h.join().expect("benchmark thread panicked"))
            .sum();
        Measured {
            ops,
            elapsed: start.elapsed(),
        }
    })
}

/// The median of `values` (which must not be empty).
pub fn median(mut values: Vec<f64>) -> f64 {
    assert!(!values.is_empty());
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
