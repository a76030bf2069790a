//! Runs a closure on N threads for a fixed time and counts operations.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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
///
/// The start is a flag the workers poll with `yield_now`, not a
/// `std::sync::Barrier`: releasing a barrier wakes every waiter through one
/// mutex, and with hundreds of threads on 2 cores the hand-offs convoy for
/// seconds while the released workers already run. Yielding workers let the
/// coordinator run, so the clock starts when the flag is raised.
pub fn run_for<F>(threads: usize, duration: Duration, body: F) -> Measured
where
    F: Fn(usize, &StopFlag) -> u64 + Sync,
{
    assert!(threads > 0, "at least one thread");
    let stop = StopFlag(AtomicBool::new(false));
    let ready = AtomicUsize::new(0);
    let go = AtomicBool::new(false);
    thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|index| {
                let (body, stop, ready, go) = (&body, &stop, &ready, &go);
                thread::Builder::new()
                    .stack_size(256 << 10)
                    .spawn_scoped(scope, move || {
                        ready.fetch_add(1, Ordering::AcqRel);
                        while !go.load(Ordering::Acquire) {
                            thread::yield_now();
                        }
                        body(index, stop)
                    })
                    .expect("spawn benchmark thread")
            })
            .collect();
        while ready.load(Ordering::Acquire) < threads {
            thread::yield_now();
        }
        let start = Instant::now();
        go.store(true, Ordering::Release);
        thread::sleep(duration);
        stop.0.store(true, Ordering::Relaxed);
        // The window ends when the flag is raised, not when the last worker
        // has exited: with hundreds of threads on 2 cores, reaching every
        // worker so it can see the flag takes a scheduling round, during
        // which nothing is measured. Work finished after the flag is at most
        // the one operation each worker had under way (counted; at most
        // `threads` operations).
        let elapsed = start.elapsed();
        let ops = handles
            .into_iter()
            .map(|h| h.join().expect("benchmark thread panicked"))
            .sum();
        Measured { ops, elapsed }
    })
}

/// The order in which to measure `count` configurations in repetition
/// `repeat`: forward in even repetitions, backward in odd ones, so no
/// configuration is always measured first (right after the previous point's
/// threads) or last.
pub fn alternating(count: usize, repeat: usize) -> Vec<usize> {
    if repeat.is_multiple_of(2) {
        (0..count).collect()
    } else {
        (0..count).rev().collect()
    }
}

/// The median of `values` (which must not be empty).
pub fn median(mut values: Vec<f64>) -> f64 {
    assert!(!values.is_empty());
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The sample whose rate is the median of the samples' rates (`samples`
/// must not be empty).
pub fn median_sample<T>(samples: &[T], rate: impl Fn(&T) -> f64) -> &T {
    let middle = median(samples.iter().map(&rate).collect());
    samples
        .iter()
        .find(|s| rate(s) == middle)
        .expect("the median is one of the samples")
}

/// [`paired_median_ratio`] of two settings' samples, pair by pair.
pub fn paired_ratio_of<T>(a: &[T], b: &[T], rate: impl Fn(&T) -> f64) -> f64 {
    let rates = |samples: &[T]| -> Vec<f64> { samples.iter().map(&rate).collect() };
    paired_median_ratio(&rates(a), &rates(b))
}

/// Rounds of a thread-count sweep (oversubscription): each round measures
/// every thread count once, and each row is the median round.
pub const SWEEP_ROUNDS: usize = 3;

/// Repetitions of an A/B comparison (checksums on/off): each repetition
/// measures both, back to back, in alternating order. Even, so that each
/// setting goes first equally often: with 5, one setting went first three
/// times, and whatever being first costs (it follows the previous point's
/// threads) showed as a bias of a few tenths of a percent.
pub const PAIRED_REPEATS: usize = 6;

/// The median over repetitions of `a[i] / b[i]`, where `a[i]` and `b[i]`
/// were measured back to back (for an even count, the mean of the two
/// middle ratios): drift in the machine's speed between repetitions
/// cancels within each pair, which a ratio of two medians does not achieve
/// (measured: on/off at one thread count moved from 0.97 to 1.05 within
/// one run that way, on code paths that do not differ).
pub fn paired_median_ratio(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    assert!(!a.is_empty());
    let mut ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
    ratios.sort_by(f64::total_cmp);
    let n = ratios.len();
    if n % 2 == 1 {
        ratios[n / 2]
    } else {
        (ratios[n / 2 - 1] + ratios[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::paired_median_ratio;

    #[test]
    fn paired_ratio_is_the_median_of_the_pairs() {
        // The pairs' ratios are 1.0, 0.5, 2.0, 1.1 and 0.9: their median
        // is 1.0.
        let a = [10.0, 5.0, 40.0, 11.0, 9.0];
        let b = [10.0, 10.0, 20.0, 10.0, 10.0];
        assert_eq!(paired_median_ratio(&a, &b), 1.0);
        assert_eq!(paired_median_ratio(&[3.0], &[2.0]), 1.5);
        // An even count averages the two middle ratios (1.0 and 2.0 here).
        assert_eq!(
            paired_median_ratio(&[1.0, 2.0, 3.0, 8.0], &[2.0, 2.0, 1.5, 2.0]),
            1.5
        );
    }
}
