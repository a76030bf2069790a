//! A single-file HTML report: SVG plots of throughput against threads (or
//! a server benchmark's clients) per configuration, green/red
//! relative-speed-up tables, and the targets.
//! Opens in a browser without a server (no scripts, no external assets).

use crate::{Check, Row};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

const PALETTE: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
];
const WIDTH: f64 = 560.0;
const HEIGHT: f64 = 300.0;
const MARGIN: f64 = 60.0;

/// The measure a row is plotted by, by preference: a throughput
/// (`ops_per_sec`, `records_per_sec`, pgbench's `tps`), else the one value
/// a server benchmark measures at one point (`shared_hit` of an explain,
/// `recovery_s` after a kill -9).
fn plotted(row: &Row) -> Option<(&'static str, f64)> {
    [
        "ops_per_sec",
        "records_per_sec",
        "tps",
        "shared_hit",
        "recovery_s",
    ]
    .into_iter()
    .find_map(|key| row.number(key).map(|value| (key, value)))
}

/// The configuration of a row: its non-numeric values (e.g. `checksums=on`).
/// Numeric values that name a configuration rather than measure one.
const NUMERIC_SETTINGS: [&str; 2] = ["recovery_io_concurrency", "keys"];

/// The values of a row that name its configuration, as `key=value`.
fn settings(row: &Row) -> Vec<(&str, String)> {
    row.values
        .iter()
        .filter_map(|(key, value)| {
            let text = match value {
                Value::Bool(b) => if *b { "on" } else { "off" }.to_string(),
                Value::String(s) => s.clone(),
                Value::Number(n) if NUMERIC_SETTINGS.contains(&key.as_str()) => n.to_string(),
                _ => return None,
            };
            Some((key.as_str(), format!("{key}={text}")))
        })
        .collect()
}

/// A row's configuration label: its settings that differ between the
/// rows of its case (`varying`; a server benchmark's rows all carry the
/// same `shared_buffers`, which would only lengthen the legend), or all
/// of them when none differ.
fn configuration(row: &Row, varying: &BTreeSet<&str>) -> String {
    let all = settings(row);
    let differing: Vec<&String> = all
        .iter()
        .filter(|(key, _)| varying.contains(key))
        .map(|(_, part)| part)
        .collect();
    let parts: Vec<&String> = if differing.is_empty() {
        all.iter().map(|(_, part)| part).collect()
    } else {
        differing
    };
    if parts.is_empty() {
        "default".to_string()
    } else {
        parts
            .iter()
            .map(|part| part.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Series of (threads, value) per configuration for one case.
type Series = BTreeMap<String, Vec<(usize, f64)>>;

/// One case's plot: its measure, what its x axis counts (`Row::axis`),
/// and a series per configuration.
struct Plot {
    measure: &'static str,
    axis: &'static str,
    series: Series,
}

fn group(rows: &[Row]) -> BTreeMap<(String, String), Plot> {
    let case_of = |row: &Row| (row.workload.to_string(), row.case.clone());
    let plotted_rows: Vec<(&Row, &'static str, f64)> = rows
        .iter()
        .filter_map(|row| plotted(row).map(|(measure, value)| (row, measure, value)))
        .collect();
    // Per case, each setting's distinct values: those with more than one
    // tell the case's configurations apart.
    let mut values: BTreeMap<(String, String), BTreeMap<&str, BTreeSet<String>>> = BTreeMap::new();
    for &(row, _, _) in &plotted_rows {
        let case = values.entry(case_of(row)).or_default();
        for (key, part) in settings(row) {
            case.entry(key).or_default().insert(part);
        }
    }
    let mut cases: BTreeMap<(String, String), Plot> = BTreeMap::new();
    for (row, measure, value) in plotted_rows {
        let key = case_of(row);
        let varying: BTreeSet<&str> = values[&key]
            .iter()
            .filter(|(_, distinct)| distinct.len() > 1)
            .map(|(setting, _)| *setting)
            .collect();
        let plot = cases.entry(key).or_insert(Plot {
            measure,
            axis: row.axis,
            series: Series::new(),
        });
        plot.series
            .entry(configuration(row, &varying))
            .or_default()
            .push((row.threads, value));
    }
    cases
}

/// One horizontal bar per configuration, for cases measured at a single
/// thread count (recovery with and without prefetch, recycle policy per
/// filesystem, scans per size), where a line over threads would be a dot.
fn svg_bars(title: &str, measure: &str, series: &Series) -> String {
    const BAR_HEIGHT: f64 = 18.0;
    const LABEL_WIDTH: f64 = 560.0;
    const BARS_WIDTH: f64 = 1000.0;
    let bars: Vec<(&String, f64)> = series
        .iter()
        .filter_map(|(name, points)| points.first().map(|p| (name, p.1)))
        .collect();
    let max_value = bars.iter().map(|b| b.1).fold(0.0, f64::max).max(1.0) * 1.1;
    let height = 40.0 + BAR_HEIGHT * 1.4 * bars.len() as f64 + 20.0;
    let bar_room = BARS_WIDTH - LABEL_WIDTH - 70.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{BARS_WIDTH}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = write!(
        svg,
        r#"<text x="{}" y="18" text-anchor="middle" font-size="13">{} ({})</text>"#,
        BARS_WIDTH / 2.0,
        escape(title),
        escape(measure)
    );
    for (index, (name, value)) in bars.iter().enumerate() {
        let y = 34.0 + BAR_HEIGHT * 1.4 * index as f64;
        let length = value / max_value * bar_room;
        let color = PALETTE[index % PALETTE.len()];
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            LABEL_WIDTH - 6.0,
            y + BAR_HEIGHT * 0.7,
            escape(name)
        );
        let _ = write!(
            svg,
            r#"<rect x="{LABEL_WIDTH}" y="{y}" width="{length:.1}" height="{BAR_HEIGHT}" fill="{color}"/>"#
        );
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{}">{}</text>"#,
            LABEL_WIDTH + length + 4.0,
            y + BAR_HEIGHT * 0.7,
            human(*value)
        );
    }
    svg.push_str("</svg>");
    svg
}

fn svg_plot(title: &str, measure: &str, axis: &str, series: &Series) -> String {
    let points = || series.values().flatten();
    let max_threads = points().map(|p| p.0).max().unwrap_or(1).max(2) as f64;
    let max_value = points().map(|p| p.1).fold(0.0, f64::max).max(1.0) * 1.1;
    let x = |threads: usize| {
        MARGIN + (threads as f64).log2() / max_threads.log2() * (WIDTH - 2.0 * MARGIN)
    };
    let y = |value: f64| HEIGHT - MARGIN + -(value / max_value) * (HEIGHT - 2.0 * MARGIN);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="11">"#
    );
    let _ = write!(
        svg,
        r#"<text x="{}" y="18" text-anchor="middle" font-size="13">{}</text>"#,
        WIDTH / 2.0,
        escape(title)
    );
    let (left, right, bottom, top) = (MARGIN, WIDTH - MARGIN, HEIGHT - MARGIN, MARGIN);
    let _ = write!(
        svg,
        r#"<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="black"/>"#
    );
    let _ = write!(
        svg,
        r#"<line x1="{left}" y1="{bottom}" x2="{left}" y2="{top}" stroke="black"/>"#
    );
    for tick in 0..=4 {
        let value = max_value * f64::from(tick) / 4.0;
        let ty = y(value);
        let _ = write!(
            svg,
            r##"<line x1="{left}" y1="{ty}" x2="{right}" y2="{ty}" stroke="#ddd"/>"##
        );
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            left - 4.0,
            ty + 4.0,
            human(value)
        );
    }
    let mut thread_ticks: Vec<usize> = points().map(|p| p.0).collect();
    thread_ticks.sort_unstable();
    thread_ticks.dedup();
    for threads in thread_ticks {
        let tx = x(threads);
        let _ = write!(
            svg,
            r#"<text x="{tx}" y="{}" text-anchor="middle">{threads}</text>"#,
            bottom + 14.0
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        WIDTH / 2.0,
        bottom + 30.0,
        escape(axis)
    );
    let _ = write!(
        svg,
        r#"<text x="14" y="{}" transform="rotate(-90 14 {})" text-anchor="middle">{}</text>"#,
        HEIGHT / 2.0,
        HEIGHT / 2.0,
        escape(measure)
    );
    for (index, (name, points)) in series.iter().enumerate() {
        let color = PALETTE[index % PALETTE.len()];
        let mut sorted = points.clone();
        sorted.sort_by_key(|p| p.0);
        let path: Vec<String> = sorted
            .iter()
            .map(|&(t, v)| format!("{:.1},{:.1}", x(t), y(v)))
            .collect();
        let _ = write!(
            svg,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
        for &(t, v) in &sorted {
            let _ = write!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"/>"#,
                x(t),
                y(v)
            );
        }
        let ly = top + 14.0 * index as f64;
        let _ = write!(
            svg,
            r#"<rect x="{}" y="{}" width="10" height="10" fill="{color}"/>"#,
            right - 150.0,
            ly - 9.0
        );
        let _ = write!(
            svg,
            r#"<text x="{}" y="{ly}">{}</text>"#,
            right - 136.0,
            escape(name)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A value with a k/M suffix.
fn human(value: f64) -> String {
    if value >= 1e6 {
        format!("{:.1}M", value / 1e6)
    } else if value >= 1e3 {
        format!("{:.0}k", value / 1e3)
    } else {
        format!("{value:.0}")
    }
}

/// Ratios of each configuration to the first, per thread count, coloured
/// green (faster) or red (slower) with intensity by distance from 1.
fn speedup_table(axis: &str, series: &Series) -> String {
    let mut configs = series.keys();
    let Some(base_name) = configs.next() else {
        return String::new();
    };
    let base: BTreeMap<usize, f64> = series[base_name].iter().copied().collect();
    let others: Vec<&String> = configs.collect();
    let mut html = format!(
        "<table><tr><th>{}</th><th>{}</th>",
        escape(axis),
        escape(base_name)
    );
    for name in &others {
        let _ = write!(html, "<th>{} / {}</th>", escape(name), escape(base_name));
    }
    html.push_str("</tr>");
    for (&threads, &base_value) in &base {
        let _ = write!(html, "<tr><td>{threads}</td><td>{}</td>", human(base_value));
        for name in &others {
            let value = series[*name].iter().find(|p| p.0 == threads).map(|p| p.1);
            match value {
                Some(value) if base_value > 0.0 => {
                    let ratio = value / base_value;
                    let _ = write!(
                        html,
                        r#"<td style="background:{}">{ratio:.3}</td>"#,
                        ratio_color(ratio)
                    );
                }
                _ => html.push_str("<td></td>"),
            }
        }
        html.push_str("</tr>");
    }
    html.push_str("</table>");
    html
}

fn ratio_color(ratio: f64) -> String {
    let strength = ((ratio - 1.0).abs() * 4.0).min(1.0);
    let fade = (255.0 - 120.0 * strength) as u8;
    if ratio >= 1.0 {
        format!("rgb({fade},255,{fade})")
    } else {
        format!("rgb(255,{fade},{fade})")
    }
}

/// The whole report as one HTML document.
pub fn render_html(rows: &[Row], checks: &[Check]) -> String {
    let mut html = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>folio benchmark report</title>\
         <style>body{font-family:sans-serif;margin:2em;max-width:1200px}\
         table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}\
         .pass{background:#c8f7c5}.fail{background:#f7c5c5}.case{display:inline-block;vertical-align:top;margin-right:2em}</style>\
         </head><body><h1>folio benchmark report</h1>",
    );
    let passed = checks.iter().filter(|c| c.pass).count();
    let _ = write!(
        html,
        "<h2>Targets (DESIGN.md §4): {passed} of {} met</h2>",
        checks.len()
    );
    html.push_str("<table><tr><th>workload</th><th>target</th><th>bound</th><th>measured</th><th>result</th></tr>");
    for c in checks {
        let class = if c.pass { "pass" } else { "fail" };
        let _ = write!(
            html,
            r#"<tr class="{class}"><td>{}</td><td style="text-align:left">{}</td><td>{}</td><td>{:.4}</td><td>{}</td></tr>"#,
            c.workload,
            escape(&c.measure),
            escape(&c.bound),
            c.measured,
            if c.pass { "pass" } else { "FAIL" }
        );
    }
    html.push_str("</table>");
    for ((workload, case), plot) in group(rows) {
        let Plot {
            measure,
            axis,
            series,
        } = plot;
        let title = if workload == case {
            workload.clone()
        } else {
            format!("{workload} / {case}")
        };
        let _ = write!(html, "<div class=\"case\"><h3>{}</h3>", escape(&title));
        let mut thread_counts: Vec<usize> = series.values().flatten().map(|p| p.0).collect();
        thread_counts.sort_unstable();
        thread_counts.dedup();
        if thread_counts.len() == 1 {
            html.push_str(&svg_bars(&title, measure, &series));
        } else {
            html.push_str(&svg_plot(&title, measure, axis, &series));
        }
        html.push_str(&speedup_table(axis, &series));
        html.push_str("</div>");
    }
    html.push_str("</body></html>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the report holds one plot per case, a series per configuration,
    // and coloured ratio cells.
    #[test]
    fn report_has_plots_and_ratios() {
        let rows: Vec<Row> = [
            (1, true, 10.0),
            (2, true, 20.0),
            (1, false, 11.0),
            (2, false, 19.0),
        ]
        .into_iter()
        .map(|(t, c, v)| {
            Row::new("buffer", "hot-read", t)
                .with("checksums", c)
                .with("ops_per_sec", v)
        })
        .collect();
        let html = render_html(&rows, &[]);
        assert_eq!(html.matches("<svg").count(), 1);
        assert_eq!(html.matches("<polyline").count(), 2);
        assert!(html.contains("checksums=on / checksums=off"));
        assert!(html.contains("rgb(255,"), "a slower ratio is red");
    }

    // Proves pgbench rows are plotted by tps against clients with a line per
    // engine, and rows that failed (an error, no tps) are left out.
    #[test]
    fn pgbench_rows_plot_tps_per_engine() {
        let mut rows: Vec<Row> = [(2, "folio", 30.0), (8, "folio", 60.0)]
            .into_iter()
            .chain([(2, "postgres", 20.0), (8, "postgres", 30.0)])
            .map(|(clients, engine, tps)| {
                Row::clients("tpcb", "tpcb", clients)
                    .with("engine", engine)
                    .with("tps", tps)
            })
            .collect();
        rows.push(
            Row::clients("tpcb", "tpcb", 32)
                .with("engine", "folio")
                .with("error", "ERROR:  boom"),
        );
        let html = render_html(&rows, &[]);
        assert_eq!(html.matches("<polyline").count(), 2);
        assert!(html.contains(">clients</text>"));
        assert!(html.contains("<th>clients</th>"));
        assert!(
            html.contains("engine=postgres / engine=folio"),
            "a setting all rows share is left out of the labels"
        );
        assert!(!html.contains("boom"));
    }

    // Proves a case measured at one thread count is drawn as one bar per
    // configuration, with numeric settings such as the prefetch depth naming
    // the configurations.
    #[test]
    fn single_thread_cases_are_bars_per_configuration() {
        let rows: Vec<Row> = [0, 10, 128]
            .into_iter()
            .map(|depth| {
                Row::new("recovery", "replay-cold", 1)
                    .with("recovery_io_concurrency", depth)
                    .with("records_per_sec", 1000.0 + f64::from(depth))
            })
            .collect();
        let html = render_html(&rows, &[]);
        assert_eq!(html.matches("<svg").count(), 1);
        assert_eq!(html.matches("<rect").count(), 3);
        assert!(html.contains("recovery_io_concurrency=128"));
        assert_eq!(html.matches("<polyline").count(), 0);
    }
}
