//! The measured workloads, generic over [`KvEngine`]. Every loop checks what
//! it reads: a lookup must return the value written, a scan every key once
//! in order, a commit must be readable afterwards. A wrong answer ends the
//! run with an error naming the engine; a fast wrong engine is never reported.

use crate::data::{self, COMMIT_KEY_BASE, ScanCheck};
use crate::engines::{Durability, KvEngine};
use crate::report::Measurement;
use anyhow::{Result, anyhow, ensure};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

/// What to run and for how long.
#[derive(Debug, Clone)]
pub struct Settings {
    pub keys: u64,
    pub read_threads: Vec<usize>,
    pub commit_threads: Vec<usize>,
    /// Time each thread runs before counting (caches, connections warm up).
    pub warmup: Duration,
    /// Counted time of each read and commit measurement.
    pub duration: Duration,
    /// Full scans repeat until at least this much time has passed.
    pub scan_duration: Duration,
    /// Seed of the key choices (thread `t` uses `seed + t`).
    pub seed: u64,
}

/// Most full scans in one measurement, whatever `scan_duration` says.
const MAX_SCAN_PASSES: u32 = 1_000;

/// Runs every workload on `engine` (which starts empty) and appends one
/// measurement per case and thread count to `out`.
pub fn run_engine<E: KvEngine>(
    engine: &E,
    settings: &Settings,
    out: &mut Vec<Measurement>,
) -> Result<()> {
    let name = engine.name();
    let keys = settings.keys;
    ensure!(keys > 0, "no keys to load");

    let started = Instant::now();
    engine.bulk_load(keys, &mut |done| {
        eprintln!(
            "[{name}] bulk load: {done}/{keys} keys ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
    })?;
    let load_rate = keys as f64 / started.elapsed().as_secs_f64();
    push(out, name, "bulk_load", 1, load_rate);

    for &threads in &settings.read_threads {
        let rate = measure_gets(engine, settings, threads)?;
        push(out, name, "get", threads, rate);
    }

    push(
        out,
        name,
        "scan_forward",
        1,
        measure_scan(engine, settings, true)?,
    );
    push(
        out,
        name,
        "scan_backward",
        1,
        measure_scan(engine, settings, false)?,
    );

    match engine.durability() {
        Durability::Synced(setting) => {
            for (threads, rate) in commit_rounds(engine, settings)? {
                push(out, name, "commit", threads, rate);
                if let Some(last) = out.last_mut() {
                    last.note = Some(setting);
                }
            }
        }
        Durability::Unavailable(why) => {
            for &threads in &settings.commit_threads {
                eprintln!("[{name}] commit {threads} threads: unavailable ({why})");
                out.push(Measurement::unavailable(name, "commit", threads, why));
            }
        }
    }
    Ok(())
}

/// Commit measurements are taken in rounds, every thread count once per
/// round (1, 8, 1, 8, 1, 8 threads), each for `duration / COMMIT_ROUNDS`,
/// and each thread count's median is reported. A sync's latency moves with
/// the host's load (see docs/PEERS.md), so interleaving makes the figures
/// of different thread counts — and their ratio — meet the same conditions.
pub const COMMIT_ROUNDS: u32 = 3;

/// The median commit rate of each thread count in `settings.commit_threads`.
fn commit_rounds<E: KvEngine>(engine: &E, settings: &Settings) -> Result<Vec<(usize, f64)>> {
    let name = engine.name();
    let round = Settings {
        duration: settings.duration / COMMIT_ROUNDS,
        ..settings.clone()
    };
    let mut rates = vec![Vec::new(); settings.commit_threads.len()];
    let mut phase = 0u64;
    for r in 0..COMMIT_ROUNDS {
        for (i, &threads) in settings.commit_threads.iter().enumerate() {
            engine.commit_stats();
            let rate = measure_commits(engine, &round, threads, phase)?;
            phase += 1;
            let stats = engine.commit_stats().map(|s| format!("; {s}"));
            eprintln!(
                "[{name}] commit {threads} thread(s), round {}: {rate:.0} ops/s{}",
                r + 1,
                stats.unwrap_or_default()
            );
            rates[i].push(rate);
        }
    }
    Ok(settings
        .commit_threads
        .iter()
        .zip(rates)
        .map(|(&threads, mut r)| {
            r.sort_by(f64::total_cmp);
            (threads, r[r.len() / 2])
        })
        .collect())
}

fn push(
    out: &mut Vec<Measurement>,
    engine: &'static str,
    case: &'static str,
    threads: usize,
    rate: f64,
) {
    eprintln!("[{engine}] {case} {threads} thread(s): {rate:.0} ops/s");
    out.push(Measurement::measured(engine, case, threads, rate));
}

/// Random point lookups of loaded keys, each checked.
fn measure_gets<E: KvEngine>(engine: &E, settings: &Settings, threads: usize) -> Result<f64> {
    let keys = settings.keys;
    let name = engine.name();
    let timed = timed_loop(
        threads,
        settings,
        64,
        |thread| {
            let rng = ChaCha8Rng::seed_from_u64(settings.seed.wrapping_add(thread as u64));
            Ok((engine.reader()?, rng, Vec::with_capacity(data::VALUE_LEN)))
        },
        |(reader, rng, value), _thread, _op| {
            let index = rng.gen_range(0..keys);
            ensure!(
                engine.get(reader, &data::key(index), value)?,
                "{name}: key {index} not found"
            );
            data::check_value(name, index, value)
        },
    )?;
    Ok(timed.ops_per_sec)
}

/// Full scans in one direction, repeated for `scan_duration`; entries per second.
fn measure_scan<E: KvEngine>(engine: &E, settings: &Settings, forward: bool) -> Result<f64> {
    let started = Instant::now();
    let mut passes = 0u32;
    while passes == 0 || (started.elapsed() < settings.scan_duration && passes < MAX_SCAN_PASSES) {
        let mut check = ScanCheck::new(engine.name(), settings.keys, forward);
        if forward {
            engine.scan_forward(&mut check)?;
        } else {
            engine.scan_backward(&mut check)?;
        }
        check.finish()?;
        passes += 1;
    }
    Ok(f64::from(passes) * settings.keys as f64 / started.elapsed().as_secs_f64())
}

/// Durable one-key inserts of new keys from `threads` threads; afterwards
/// each thread's first and last key is read back and checked.
fn measure_commits<E: KvEngine>(
    engine: &E,
    settings: &Settings,
    threads: usize,
    phase: u64,
) -> Result<f64> {
    // Distinct keys per phase and thread: base + phase * 2^32 + op * threads + thread.
    let base = COMMIT_KEY_BASE + (phase << 32);
    let index = move |thread: usize, op: u64| base + op * threads as u64 + thread as u64;
    let timed = timed_loop(
        threads,
        settings,
        1,
        |_thread| engine.writer(),
        |writer, thread, op| {
            let i = index(thread, op);
            engine.commit_one(writer, &data::key(i), &data::value(i))
        },
    )?;
    let mut reader = engine.reader()?;
    let mut value = Vec::new();
    for (thread, &ops) in timed.total_ops.iter().enumerate() {
        ensure!(
            ops > 0,
            "{}: commit thread {thread} committed nothing",
            engine.name()
        );
        for i in [index(thread, 0), index(thread, ops - 1)] {
            ensure!(
                engine.get(&mut reader, &data::key(i), &mut value)?,
                "{}: committed key {i} lost",
                engine.name()
            );
            data::check_value(engine.name(), i, &value)?;
        }
    }
    Ok(timed.ops_per_sec)
}

#[derive(Debug)]
struct Timed {
    /// Operations completed in the common counted window by all threads,
    /// per second of that window.
    ops_per_sec: f64,
    /// Operations each thread ran, warm-up included.
    total_ops: Vec<u64>,
}

/// Runs `op` on `threads` threads, each with its own state from `make`,
/// started together: `settings.warmup` uncounted, then `settings.duration`
/// counted. The window is common to all threads (it starts when the first
/// thread leaves the barrier), and the rate is the operations completed in
/// it by all threads, divided by its length. The clock is read every
/// `check_every` operations: a thread counts the operations completed after
/// its last reading before the window opens, up to its last reading inside
/// the window. A thread that slept through the window (a busy handler, a
/// descheduled thread) counts nothing rather than a rate of its own.
fn timed_loop<S, Make, Op>(
    threads: usize,
    settings: &Settings,
    check_every: u64,
    make: Make,
    op: Op,
) -> Result<Timed>
where
    Make: Fn(usize) -> Result<S> + Sync,
    Op: Fn(&mut S, usize, u64) -> Result<()> + Sync,
{
    assert!(threads > 0 && check_every > 0);
    assert!(settings.duration > Duration::ZERO);
    let barrier = Barrier::new(threads);
    let started = OnceLock::new();
    let results: Vec<Result<(u64, u64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|thread| {
                let (barrier, started, make, op) = (&barrier, &started, &make, &op);
                scope.spawn(move || {
                    let state = make(thread);
                    barrier.wait();
                    let mut state = state?;
                    let start = *started.get_or_init(Instant::now);
                    let count_from = start + settings.warmup;
                    let end = count_from + settings.duration;
                    // Operations done at the last reading before the window,
                    // and at the last reading inside it.
                    let mut before_window = 0u64;
                    let mut in_window: Option<u64> = None;
                    let mut done = 0u64;
                    loop {
                        op(&mut state, thread, done)?;
                        done += 1;
                        if done.is_multiple_of(check_every) {
                            let now = Instant::now();
                            if now < count_from {
                                before_window = done;
                            } else if now < end {
                                in_window = Some(done);
                            } else {
                                let counted = in_window.map_or(0, |last| last - before_window);
                                return Ok((counted, done));
                            }
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow!("a measuring thread panicked")))
            })
            .collect()
    });
    let mut counted_ops = 0u64;
    let mut total_ops = Vec::with_capacity(threads);
    for result in results {
        let (counted, total) = result?;
        counted_ops += counted;
        total_ops.push(total);
    }
    Ok(Timed {
        ops_per_sec: counted_ops as f64 / settings.duration.as_secs_f64(),
        total_ops,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    /// A `BTreeMap` engine; `corrupt_key` returns a wrong value for that key
    /// from lookups and scans, `drop_commits` acknowledges commits it never stores.
    #[derive(Debug, Default)]
    struct Model {
        map: Mutex<BTreeMap<Vec<u8>, Vec<u8>>>,
        corrupt_key: Option<u64>,
        drop_commits: bool,
        no_durable_commit: bool,
    }

    impl Model {
        fn value_of(&self, key: &[u8], value: &[u8]) -> Vec<u8> {
            let mut value = value.to_vec();
            if data::index_of(key) == self.corrupt_key {
                value[0] ^= 1;
            }
            value
        }

        fn scan(&self, check: &mut ScanCheck, forward: bool) -> Result<()> {
            let map = self.map.lock().unwrap();
            let entries: Vec<_> = if forward {
                map.iter().collect()
            } else {
                map.iter().rev().collect()
            };
            for (k, v) in entries {
                if data::index_of(k).is_some_and(|i| i < COMMIT_KEY_BASE) {
                    check.visit(k, &self.value_of(k, v))?;
                }
            }
            Ok(())
        }
    }

    impl KvEngine for Model {
        type Reader<'a> = ();
        type Writer<'a> = ();

        fn name(&self) -> &'static str {
            "model"
        }

        fn durability(&self) -> Durability {
            if self.no_durable_commit {
                Durability::Unavailable("no durable commit")
            } else {
                Durability::Synced("in memory")
            }
        }

        fn bulk_load(&self, keys: u64, progress: &mut dyn FnMut(u64)) -> Result<()> {
            let mut map = self.map.lock().unwrap();
            for i in 0..keys {
                map.insert(data::key(i).to_vec(), data::value(i).to_vec());
            }
            progress(keys);
            Ok(())
        }

        fn reader(&self) -> Result<()> {
            Ok(())
        }

        fn get(&self, _reader: &mut (), key: &[u8], value: &mut Vec<u8>) -> Result<bool> {
            let map = self.map.lock().unwrap();
            let Some(found) = map.get(key) else {
                return Ok(false);
            };
            *value = self.value_of(key, found);
            Ok(true)
        }

        fn scan_forward(&self, check: &mut ScanCheck) -> Result<()> {
            self.scan(check, true)
        }

        fn scan_backward(&self, check: &mut ScanCheck) -> Result<()> {
            self.scan(check, false)
        }

        fn writer(&self) -> Result<()> {
            Ok(())
        }

        fn commit_one(&self, _writer: &mut (), key: &[u8], value: &[u8]) -> Result<()> {
            ensure!(
                !self.no_durable_commit,
                "commit_one called without a durable commit"
            );
            if !self.drop_commits {
                self.map
                    .lock()
                    .unwrap()
                    .insert(key.to_vec(), value.to_vec());
            }
            Ok(())
        }
    }

    fn tiny(keys: u64) -> Settings {
        Settings {
            keys,
            read_threads: vec![1, 2],
            commit_threads: vec![1, 2],
            warmup: Duration::from_millis(5),
            duration: Duration::from_millis(20),
            scan_duration: Duration::from_millis(5),
            seed: 1,
        }
    }

    #[test]
    fn a_correct_engine_yields_every_row() {
        // Proves run_engine measures every case and thread count, in order,
        // each with a figure, when the engine answers correctly.
        let mut out = Vec::new();
        run_engine(&Model::default(), &tiny(500), &mut out).unwrap();
        let cases: Vec<_> = out.iter().map(|m| (m.case, m.threads)).collect();
        assert_eq!(
            cases,
            [
                ("bulk_load", 1),
                ("get", 1),
                ("get", 2),
                ("scan_forward", 1),
                ("scan_backward", 1),
                ("commit", 1),
                ("commit", 2)
            ]
        );
        // Rates are never negative or missing; on a machine loaded enough to
        // starve a thread for a whole 20 ms window one may be zero, so only
        // the bulk load (timed on its own) must be positive.
        assert!(
            out.iter()
                .all(|m| m.ops_per_sec.is_some_and(|v| v.is_finite() && v >= 0.0))
        );
        assert!(out[0].ops_per_sec.is_some_and(|v| v > 0.0));
    }

    #[test]
    fn a_wrong_value_fails_the_run() {
        // Proves a lookup or scan returning a wrong value ends the run with
        // an error instead of a figure (a few keys, so random reads hit it).
        let engine = Model {
            corrupt_key: Some(3),
            ..Model::default()
        };
        let error = run_engine(&engine, &tiny(8), &mut Vec::new()).unwrap_err();
        assert!(error.to_string().contains("key 3"), "{error}");
    }

    #[test]
    fn a_lost_commit_fails_the_run() {
        // Proves commits are read back: an engine that acknowledges commits
        // without storing them fails instead of reporting a commit rate.
        let engine = Model {
            drop_commits: true,
            ..Model::default()
        };
        let error = run_engine(&engine, &tiny(100), &mut Vec::new()).unwrap_err();
        assert!(error.to_string().contains("lost"), "{error}");
    }

    #[test]
    fn an_engine_without_durable_commits_gets_unavailable_commit_rows() {
        // Proves an engine whose durability is Unavailable is never asked to
        // commit: its commit rows carry no figure and the reason instead.
        let engine = Model {
            no_durable_commit: true,
            ..Model::default()
        };
        let mut out = Vec::new();
        run_engine(&engine, &tiny(100), &mut out).unwrap();
        let commits: Vec<_> = out.iter().filter(|m| m.case == "commit").collect();
        assert_eq!(commits.len(), 2);
        for m in commits {
            assert_eq!(m.ops_per_sec, None);
            assert_eq!(m.note, Some("no durable commit"));
        }
    }

    #[test]
    fn timed_loop_counts_every_thread() {
        // Proves each thread runs, reports its operations, and the rate sums them.
        let timed = timed_loop(3, &tiny(1), 1, |_| Ok(()), |_, _, _| Ok(())).unwrap();
        assert_eq!(timed.total_ops.len(), 3);
        assert!(timed.total_ops.iter().all(|&n| n > 0));
        assert!(timed.ops_per_sec > 0.0);
    }

    #[test]
    fn a_thread_that_sleeps_through_the_window_counts_nothing() {
        // Proves the rate is operations completed inside the common window:
        // threads whose every operation outlasts warm-up and window together
        // (as a SQLite writer asleep in its busy handler may) add nothing,
        // instead of a rate over a private window of their own that would
        // inflate the sum. Deterministic: sleeping only lengthens the op.
        let settings = tiny(1);
        let nap = settings.warmup + settings.duration;
        let timed = timed_loop(
            2,
            &settings,
            1,
            |_| Ok(()),
            |_, _, _| {
                std::thread::sleep(nap);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(timed.total_ops, [1, 1]);
        assert_eq!(timed.ops_per_sec, 0.0);
    }
}
