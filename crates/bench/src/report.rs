//! Text tables, JSON lines and CSV files for benchmark rows.

use crate::{BenchError, Check, Row};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// The value columns of `rows`, in first-seen order.
fn value_columns(rows: &[Row]) -> Vec<String> {
    let mut columns: Vec<String> = Vec::new();
    for row in rows {
        for key in row.values.keys() {
            if !columns.contains(key) {
                columns.push(key.clone());
            }
        }
    }
    columns
}

fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::Bool(b)) => if *b { "on" } else { "off" }.to_string(),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if n.is_f64() => format_number(x),
            _ => n.to_string(),
        },
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Large numbers without decimals, small ones with four significant digits.
fn format_number(x: f64) -> String {
    if x == 0.0 {
        "0".to_string()
    } else if x.abs() >= 1000.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

fn render_grid(header: &[String], body: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for line in body {
        for (width, text) in widths.iter_mut().zip(line) {
            *width = (*width).max(text.len());
        }
    }
    let mut out = String::new();
    let mut write_line = |cells: &[String]| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(text, width)| format!("{text:>width$}"))
            .collect();
        let _ = writeln!(out, "{}", parts.join("  ").trim_end());
    };
    write_line(header);
    write_line(&widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>());
    for line in body {
        write_line(line);
    }
    out
}

/// What the rows' `threads` column counts (`threads` unless the rows say
/// `clients`).
fn axis(rows: &[Row]) -> &'static str {
    rows.first().map_or("threads", |row| row.axis)
}

/// Text cells longer than this become numbered notes below a table (error
/// messages), so one long cell does not widen every line.
const NOTE_WIDTH: usize = 48;

/// The rows as an aligned text table. A text value longer than
/// `NOTE_WIDTH` shows as `[n]`, with note `n` printed in full below.
pub fn render_table(rows: &[Row]) -> String {
    let columns = value_columns(rows);
    let mut header = vec!["case".to_string(), axis(rows).to_string()];
    header.extend(columns.iter().cloned());
    let mut notes: Vec<String> = Vec::new();
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            let mut line = vec![row.case.clone(), row.threads.to_string()];
            line.extend(columns.iter().map(|c| {
                let text = cell(row.values.get(c));
                if text.len() <= NOTE_WIDTH {
                    return text;
                }
                let index = notes.iter().position(|n| *n == text).unwrap_or_else(|| {
                    notes.push(text);
                    notes.len() - 1
                });
                format!("[{}]", index + 1)
            }));
            line
        })
        .collect();
    let mut table = render_grid(&header, &body);
    for (index, note) in notes.iter().enumerate() {
        let _ = writeln!(table, "[{}] {note}", index + 1);
    }
    table
}

/// Every target next to its measured value with pass/fail.
pub fn render_summary(checks: &[Check]) -> String {
    let header: Vec<String> = ["workload", "target", "bound", "measured", "result"]
        .map(String::from)
        .to_vec();
    let body: Vec<Vec<String>> = checks
        .iter()
        .map(|c| {
            vec![
                c.workload.to_string(),
                c.measure.clone(),
                c.bound.clone(),
                format_number(c.measured),
                if c.pass { "pass" } else { "FAIL" }.to_string(),
            ]
        })
        .collect();
    render_grid(&header, &body)
}

/// The JSON objects of `rows`, each carrying the checks that judge it.
pub fn json_lines(rows: &[Row], checks: &[Check]) -> Vec<Value> {
    rows.iter()
        .enumerate()
        .map(|(index, row)| {
            let judging: Vec<&Check> = checks.iter().filter(|c| c.rows.contains(&index)).collect();
            row.to_json(&judging)
        })
        .collect()
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// Writes `<dir>/<workload>.csv` and `<dir>/<workload>.jsonl` for one
/// workload's rows, and appends its checks to `<dir>/summary.csv`.
pub fn write_results(
    dir: &Path,
    workload: &str,
    rows: &[Row],
    checks: &[Check],
) -> Result<(), BenchError> {
    let io_error = |source| BenchError::Io {
        what: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io_error)?;
    let columns = value_columns(rows);
    let mut csv = format!("workload,case,{}", axis(rows));
    for column in &columns {
        csv.push(',');
        csv.push_str(&csv_field(column));
    }
    csv.push('\n');
    for row in rows {
        let mut fields = vec![
            row.workload.to_string(),
            csv_field(&row.case),
            row.threads.to_string(),
        ];
        fields.extend(columns.iter().map(|c| csv_field(&raw(row.values.get(c)))));
        csv.push_str(&fields.join(","));
        csv.push('\n');
    }
    std::fs::write(dir.join(format!("{workload}.csv")), csv).map_err(io_error)?;
    let mut jsonl = String::new();
    for value in json_lines(rows, checks) {
        jsonl.push_str(&value.to_string());
        jsonl.push('\n');
    }
    std::fs::write(dir.join(format!("{workload}.jsonl")), jsonl).map_err(io_error)?;
    let summary_path = dir.join("summary.csv");
    let mut summary = std::fs::read_to_string(&summary_path)
        .unwrap_or_else(|_| "workload,target,bound,measured,pass\n".to_string());
    for c in checks {
        let _ = writeln!(
            summary,
            "{},{},{},{},{}",
            c.workload,
            csv_field(&c.measure),
            csv_field(&c.bound),
            c.measured,
            c.pass
        );
    }
    std::fs::write(summary_path, summary).map_err(io_error)
}

/// A value as plain text for CSV (numbers unrounded, booleans as true/false).
fn raw(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the JSON object of a row carries workload/case/threads, its
    // values, and the target and pass of the checks that judge it.
    #[test]
    fn json_row_has_target_and_pass() {
        let rows = vec![
            Row::new("buffer", "hot-read", 8).with("ops_per_sec", 10.0),
            Row::new("buffer", "hot-read", 2).with("ops_per_sec", 12.0),
        ];
        let check = Check::at_least("buffer", "ratio".into(), 0.5, 0.95, vec![0]);
        let lines = json_lines(&rows, &[check]);
        assert_eq!(lines[0]["workload"], "buffer");
        assert_eq!(lines[0]["threads"], 8);
        assert_eq!(lines[0]["pass"], false);
        assert_eq!(lines[0]["target"], "ratio >= 0.95");
        assert!(lines[1].get("target").is_none());
    }

    // Proves a long text value (an error message) is a numbered note below
    // the table, said once however many rows carry it, and that rows of a
    // server benchmark name their axis `clients`.
    #[test]
    fn long_text_becomes_a_note() {
        let error = "ERROR:  0A000: CREATE INDEX is not supported yet by folio-sql";
        let rows = vec![
            Row::clients("seed000", "seed000", 2).with("error", error),
            Row::clients("seed000", "seed000", 8).with("error", error),
            Row::clients("seed000", "seed000", 8).with("tps", 10.5),
        ];
        let table = render_table(&rows);
        assert!(table.lines().next().unwrap().contains("clients"));
        assert_eq!(table.matches("[1]").count(), 3, "{table}");
        assert_eq!(table.matches(error).count(), 1);
        assert!(table.ends_with(&format!("[1] {error}\n")));
        let lines = json_lines(&rows, &[]);
        assert_eq!(lines[0]["clients"], 2);
        assert!(lines[0].get("threads").is_none());
    }

    // Proves the table has a header, a rule and one line per row.
    #[test]
    fn table_has_one_line_per_row() {
        let rows = vec![Row::new("buffer", "hot-read", 1).with("checksums", true)];
        let table = render_table(&rows);
        assert_eq!(table.lines().count(), 3);
        assert!(table.contains("hot-read"));
    }
}
