use std::path::PathBuf;
use std::time::Duration;

/// Settings shared by every workload; `None` means the workload's default.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    /// Small sizes and short measurements (the whole suite well under 3 minutes).
    pub quick: bool,
    /// Thread counts to measure.
    pub threads: Option<Vec<usize>>,
    /// Measurement time per point.
    pub duration: Option<Duration>,
    /// Multiplies the workload's data size.
    pub scale: Option<f64>,
    /// Only measure this checksum setting.
    pub checksums: Option<bool>,
    /// Buffer pool size.
    pub pool_size_bytes: Option<u64>,
    /// Where database files are created.
    pub data_dir: PathBuf,
    /// Only these cases (of workloads that split their work by case).
    pub cases: Option<Vec<String>>,
}

impl BenchConfig {
    /// A configuration for `data_dir` with every knob at its default.
    pub fn new(data_dir: PathBuf) -> BenchConfig {
        BenchConfig {
            quick: false,
            threads: None,
            duration: None,
            scale: None,
            checksums: None,
            pool_size_bytes: None,
            data_dir,
            cases: None,
        }
    }

    /// Whether `case` is to be measured (all are, unless `cases` names some).
    pub fn wants(&self, case: &str) -> bool {
        self.cases
            .as_ref()
            .is_none_or(|cases| cases.iter().any(|c| c == case))
    }

    /// The thread counts to use: the configured ones or `default`.
    pub fn threads_or(&self, default: &[usize]) -> Vec<usize> {
        self.threads.clone().unwrap_or_else(|| default.to_vec())
    }

    /// The checksum settings to measure: the configured one or both.
    pub fn checksum_settings(&self) -> Vec<bool> {
        match self.checksums {
            Some(on) => vec![on],
            None => vec![true, false],
        }
    }

    /// Measurement time per point: configured, or `quick`/`full` by mode.
    pub fn duration_or(&self, quick: Duration, full: Duration) -> Duration {
        self.duration
            .unwrap_or(if self.quick { quick } else { full })
    }

    /// `base` scaled by `--scale`, at least 1.
    pub fn scaled(&self, base: u64) -> u64 {
        let scale = self.scale.unwrap_or(1.0);
        ((base as f64 * scale).round() as u64).max(1)
    }
}

/// Progress reporting for long runs (the CLI draws a bar; tests stay silent).
pub trait Progress: Sync {
    /// A new phase of `total` steps begins.
    fn phase(&self, label: &str, total: u64);
    /// One step of the current phase is done.
    fn step(&self, message: &str);
}

/// A [`Progress`] that prints nothing.
#[derive(Debug, Default)]
pub struct SilentProgress;

impl Progress for SilentProgress {
    fn phase(&self, _label: &str, _total: u64) {}
    fn step(&self, _message: &str) {}
}
