//! Results: one [`Measurement`] per engine, case and thread count; printed
//! as a table (rows = case and threads, columns = engines, each peer also as
//! a ratio to folio) or as JSON lines, and written to CSV and JSON lines.

use anyhow::{Context, Result};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;

/// The engine every ratio is relative to.
pub const BASELINE: &str = "folio";

/// One measured (or unavailable) figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    pub engine: &'static str,
    pub case: &'static str,
    pub threads: usize,
    /// Operations per second (entries per second for scans, keys per second
    /// for the bulk load); `None` when the engine cannot run the case.
    pub ops_per_sec: Option<f64>,
    /// Why the figure is missing.
    pub note: Option<&'static str>,
}

impl Measurement {
    pub fn measured(
        engine: &'static str,
        case: &'static str,
        threads: usize,
        ops_per_sec: f64,
    ) -> Measurement {
        Measurement {
            engine,
            case,
            threads,
            ops_per_sec: Some(ops_per_sec),
            note: None,
        }
    }

    pub fn unavailable(
        engine: &'static str,
        case: &'static str,
        threads: usize,
        why: &'static str,
    ) -> Measurement {
        Measurement {
            engine,
            case,
            threads,
            ops_per_sec: None,
            note: Some(why),
        }
    }
}

/// The measurements with each one's ratio to folio's figure for the same
/// case and thread count (`None` if either is missing).
#[derive(Debug)]
pub struct Report {
    pub keys: u64,
    pub rows: Vec<(Measurement, Option<f64>)>,
}

impl Report {
    pub fn new(keys: u64, measurements: Vec<Measurement>) -> Report {
        let baseline = |m: &Measurement| {
            measurements
                .iter()
                .find(|b| b.engine == BASELINE && b.case == m.case && b.threads == m.threads)
                .and_then(|b| b.ops_per_sec)
        };
        let rows = measurements
            .iter()
            .map(|m| {
                let ratio = match (m.ops_per_sec, baseline(m)) {
                    (Some(value), Some(base)) if base > 0.0 => Some(value / base),
                    _ => None,
                };
                (m.clone(), ratio)
            })
            .collect();
        Report { keys, rows }
    }

    /// Engines in the order they ran.
    fn engines(&self) -> Vec<&'static str> {
        let mut engines = Vec::new();
        for (m, _) in &self.rows {
            if !engines.contains(&m.engine) {
                engines.push(m.engine);
            }
        }
        engines
    }

    /// (case, threads) in the order first measured.
    fn cases(&self) -> Vec<(&'static str, usize)> {
        let mut cases = Vec::new();
        for (m, _) in &self.rows {
            if !cases.contains(&(m.case, m.threads)) {
                cases.push((m.case, m.threads));
            }
        }
        cases
    }

    /// One JSON object per measurement.
    pub fn json_lines(&self) -> Vec<Value> {
        self.rows
            .iter()
            .map(|(m, ratio)| {
                let mut object = json!({
                    "workload": "peers",
                    "case": m.case,
                    "threads": m.threads,
                    "engine": m.engine,
                    "keys": self.keys,
                    "ops_per_sec": m.ops_per_sec,
                    "ratio_to_folio": ratio,
                });
                if let Some(note) = m.note {
                    object["note"] = note.into();
                }
                object
            })
            .collect()
    }

    /// CSV with a header line.
    pub fn csv(&self) -> String {
        let mut out =
            String::from("workload,case,threads,engine,keys,ops_per_sec,ratio_to_folio,note\n");
        for (m, ratio) in &self.rows {
            let value = m.ops_per_sec.map(|v| format!("{v:.1}")).unwrap_or_default();
            let ratio = ratio.map(|r| format!("{r:.4}")).unwrap_or_default();
            let note = m
                .note
                .map(|n| format!("\"{}\"", n.replace('"', "\"\"")))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "peers,{},{},{},{},{value},{ratio},{note}",
                m.case, m.threads, m.engine, self.keys
            );
        }
        out
    }

    /// The table: one row per case and thread count, one column per engine;
    /// a peer's cell is its figure and its ratio to folio's.
    pub fn table(&self) -> String {
        let engines = self.engines();
        let mut lines: Vec<Vec<String>> = Vec::new();
        let mut header = vec!["case".to_string(), "threads".to_string()];
        header.extend(engines.iter().map(|e| e.to_string()));
        lines.push(header);
        let mut notes: Vec<String> = Vec::new();
        let mut settings: Vec<String> = Vec::new();
        for (case, threads) in self.cases() {
            let mut line = vec![case.to_string(), threads.to_string()];
            for engine in &engines {
                let cell = self
                    .rows
                    .iter()
                    .find(|(m, _)| m.engine == *engine && m.case == case && m.threads == threads);
                line.push(match cell {
                    None => "-".to_string(),
                    Some((m, ratio)) => match (m.ops_per_sec, ratio) {
                        (None, _) => {
                            let note =
                                format!("{}: {}", m.engine, m.note.unwrap_or("not measured"));
                            if !notes.contains(&note) {
                                notes.push(note);
                            }
                            "n/a".to_string()
                        }
                        (Some(v), ratio) => {
                            if let Some(setting) = m.note {
                                let note = format!("{} {}: {}", m.engine, m.case, setting);
                                if !settings.contains(&note) {
                                    settings.push(note);
                                }
                            }
                            match ratio {
                                Some(r) if m.engine != BASELINE => {
                                    format!("{} ({r:.2}x)", human(v))
                                }
                                _ => human(v),
                            }
                        }
                    },
                });
            }
            lines.push(line);
        }
        let columns = lines[0].len();
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                lines
                    .iter()
                    .map(|l| l[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for (i, line) in lines.iter().enumerate() {
            let cells: Vec<String> = line
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    if c == 0 {
                        format!("{cell:<w$}", w = widths[c])
                    } else {
                        format!("{cell:>w$}", w = widths[c])
                    }
                })
                .collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
            if i == 0 {
                let rule: Vec<String> = widths
                    .iter()
                    .enumerate()
                    .map(|(c, w)| {
                        if c == 0 {
                            format!(":{}", "-".repeat(w + 1))
                        } else {
                            format!("{}:", "-".repeat(w + 1))
                        }
                    })
                    .collect();
                let _ = writeln!(out, "|{}|", rule.join("|"));
            }
        }
        let _ = writeln!(
            out,
            "\n{} keys; operations per second (scans: entries/s, bulk_load: keys/s); (x) = peer / folio, above 1 = peer faster.",
            self.keys
        );
        for note in notes {
            let _ = writeln!(out, "n/a = {note}");
        }
        if let Some(line) = self.scaling("commit") {
            let _ = writeln!(out, "{line}");
        }
        for setting in settings {
            let _ = writeln!(out, "{setting}");
        }
        out
    }

    /// Each engine's figure for `case` at its most threads divided by its
    /// figure at its fewest (group commit scaling for `commit`), as one line
    /// such as `commit 8/1 threads: folio 5.10x, redb 1.20x`; `None` if no
    /// engine has two figures for the case.
    pub fn scaling(&self, case: &str) -> Option<String> {
        let mut parts = Vec::new();
        let mut threads_seen = None;
        for engine in self.engines() {
            let mut figures: Vec<(usize, f64)> = self
                .rows
                .iter()
                .filter(|(m, _)| m.engine == engine && m.case == case)
                .filter_map(|(m, _)| m.ops_per_sec.map(|v| (m.threads, v)))
                .collect();
            figures.sort_by_key(|&(threads, _)| threads);
            let (Some(&(few, low)), Some(&(many, high))) = (figures.first(), figures.last()) else {
                continue;
            };
            if many > few && low > 0.0 {
                parts.push(format!("{engine} {:.2}x", high / low));
                threads_seen.get_or_insert((many, few));
            }
        }
        let (many, few) = threads_seen?;
        Some(format!("{case} {many}/{few} threads: {}", parts.join(", ")))
    }

    /// Writes `peers.csv` and `peers.jsonl` into `dir`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let csv = dir.join("peers.csv");
        std::fs::write(&csv, self.csv()).with_context(|| format!("writing {}", csv.display()))?;
        let mut jsonl = String::new();
        for line in self.json_lines() {
            let _ = writeln!(jsonl, "{line}");
        }
        let path = dir.join("peers.jsonl");
        std::fs::write(&path, jsonl).with_context(|| format!("writing {}", path.display()))?;
        Ok(())
    }
}

/// 1234567.0 -> "1.23M".
pub fn human(value: f64) -> String {
    match value {
        v if v >= 1e9 => format!("{:.2}G", v / 1e9),
        v if v >= 1e6 => format!("{:.2}M", v / 1e6),
        v if v >= 1e3 => format!("{:.1}k", v / 1e3),
        v => format!("{v:.0}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Report {
        Report::new(
            10,
            vec![
                Measurement::measured("folio", "get", 1, 2_000_000.0),
                Measurement::measured("redb", "get", 1, 1_000_000.0),
                Measurement::unavailable("folio", "commit", 1, "no WAL"),
                Measurement {
                    note: Some("fsync"),
                    ..Measurement::measured("redb", "commit", 1, 500.0)
                },
            ],
        )
    }

    #[test]
    fn ratios_are_relative_to_folio_and_absent_without_it() {
        // Proves a peer's ratio is its figure over folio's for the same case,
        // and that no ratio is invented where folio's figure is unavailable.
        let report = sample();
        let ratio = |engine: &str, case: &str| {
            report
                .rows
                .iter()
                .find(|(m, _)| m.engine == engine && m.case == case)
                .and_then(|(_, r)| *r)
        };
        assert_eq!(ratio("redb", "get"), Some(0.5));
        assert_eq!(ratio("folio", "get"), Some(1.0));
        assert_eq!(ratio("redb", "commit"), None);
        assert_eq!(ratio("folio", "commit"), None);
    }

    #[test]
    fn outputs_carry_every_row_and_mark_unavailable_ones() {
        // Proves the JSON lines, CSV and table each show every measurement,
        // with the unavailable one as null / empty / "n/a" plus its reason,
        // and the table names each peer's commit durability setting.
        let report = sample();
        let lines = report.json_lines();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["workload"], "peers");
        assert_eq!(lines[1]["ratio_to_folio"], 0.5);
        assert!(lines[2]["ops_per_sec"].is_null());
        assert_eq!(lines[2]["note"], "no WAL");
        let csv = report.csv();
        assert_eq!(csv.lines().count(), 5);
        assert!(csv.contains("peers,commit,1,folio,10,,,\"no WAL\""));
        let table = report.table();
        assert!(table.contains("1.00M (0.50x)"));
        assert!(table.contains("n/a"));
        assert!(table.contains("n/a = folio: no WAL"));
        assert!(table.contains("redb commit: fsync"));
    }

    #[test]
    fn commit_rows_get_ratios_scaling_and_settings_once_folio_commits() {
        // Proves that with folio's commit measured, peers' commit rows get a
        // ratio, every engine's commit setting is still named, and the
        // scaling line gives each engine's most-threads / fewest-threads rate.
        let commit = |engine, threads, rate, note| Measurement {
            note: Some(note),
            ..Measurement::measured(engine, "commit", threads, rate)
        };
        let report = Report::new(
            10,
            vec![
                commit("folio", 1, 1_000.0, "group commit"),
                commit("folio", 8, 5_000.0, "group commit"),
                commit("redb", 1, 2_000.0, "fsync"),
                commit("redb", 8, 2_400.0, "fsync"),
            ],
        );
        let ratios: Vec<_> = report.rows.iter().map(|(_, r)| *r).collect();
        assert_eq!(ratios, [Some(1.0), Some(1.0), Some(2.0), Some(0.48)]);
        assert_eq!(
            report.scaling("commit").as_deref(),
            Some("commit 8/1 threads: folio 5.00x, redb 1.20x")
        );
        assert_eq!(report.scaling("get"), None);
        let table = report.table();
        assert!(table.contains("2.0k (2.00x)"), "{table}");
        assert!(table.contains("folio commit: group commit"), "{table}");
        assert!(table.contains("redb commit: fsync"), "{table}");
        assert!(
            table.contains("commit 8/1 threads: folio 5.00x, redb 1.20x"),
            "{table}"
        );
    }

    #[test]
    fn human_numbers() {
        // Proves the table's number format at each magnitude.
        assert_eq!(human(950.0), "950");
        assert_eq!(human(12_345.0), "12.3k");
        assert_eq!(human(1_234_567.0), "1.23M");
        assert_eq!(human(2.5e9), "2.50G");
    }
}
