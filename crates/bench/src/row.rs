use serde_json::{Map, Value};

/// One measured point: a workload's case at a thread count, with named values
/// (`ops_per_sec`, `state_rmw_per_op`, `checksums`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub workload: &'static str,
    pub case: String,
    /// The concurrency of the point: threads, or the clients of a server
    /// benchmark (`axis` says which).
    pub threads: usize,
    /// What `threads` counts, the name it has in tables, JSON and plots:
    /// `threads` in-process, `clients` for `folio bench pgbench`.
    pub axis: &'static str,
    pub values: Map<String, Value>,
}

impl Row {
    pub fn new(workload: &'static str, case: &str, threads: usize) -> Row {
        Row {
            workload,
            case: case.to_string(),
            threads,
            axis: "threads",
            values: Map::new(),
        }
    }

    /// A point measured with `clients` client connections to a server.
    pub fn clients(workload: &'static str, case: &str, clients: usize) -> Row {
        Row {
            axis: "clients",
            ..Row::new(workload, case, clients)
        }
    }

    /// Adds a named value.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Row {
        self.values.insert(key.to_string(), value.into());
        self
    }

    /// A numeric value, if present.
    pub fn number(&self, key: &str) -> Option<f64> {
        self.values.get(key).and_then(Value::as_f64)
    }

    /// A boolean value, if present.
    pub fn flag(&self, key: &str) -> Option<bool> {
        self.values.get(key).and_then(Value::as_bool)
    }

    /// A text value (e.g. `distribution`).
    pub fn text(&self, key: &str) -> Option<&str> {
        self.values.get(key).and_then(Value::as_str)
    }

    /// The row as one JSON object, with the checks that judge it.
    pub fn to_json(&self, checks: &[&Check]) -> Value {
        let mut object = Map::new();
        object.insert("workload".into(), self.workload.into());
        object.insert("case".into(), self.case.clone().into());
        object.insert(self.axis.into(), self.threads.into());
        object.extend(self.values.clone());
        if !checks.is_empty() {
            let targets: Vec<String> = checks
                .iter()
                .map(|c| format!("{} {}", c.measure, c.bound))
                .collect();
            object.insert("target".into(), targets.join("; ").into());
            object.insert("pass".into(), checks.iter().all(|c| c.pass).into());
        }
        Value::Object(object)
    }
}

/// A DESIGN.md §4 target judged against measured rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub workload: &'static str,
    /// What is measured, e.g. "hot-read checksums on/off, 8 threads".
    pub measure: String,
    /// The bound, e.g. ">= 0.99".
    pub bound: String,
    pub measured: f64,
    pub pass: bool,
    /// Indices (into the workload's rows) of the rows this check judges.
    pub rows: Vec<usize>,
}

impl Check {
    /// A check that `measured >= minimum`.
    pub fn at_least(
        workload: &'static str,
        measure: String,
        measured: f64,
        minimum: f64,
        rows: Vec<usize>,
    ) -> Check {
        Check {
            workload,
            measure,
            bound: format!(">= {minimum}"),
            measured,
            pass: measured >= minimum,
            rows,
        }
    }

    /// A check that `measured` equals `expected` exactly (counts, e.g.
    /// buffer hits of a scan and of its mirror image).
    pub fn equal(
        workload: &'static str,
        measure: String,
        measured: f64,
        expected: f64,
        rows: Vec<usize>,
    ) -> Check {
        Check {
            workload,
            measure,
            bound: format!("= {expected}"),
            measured,
            pass: measured == expected,
            rows,
        }
    }

    /// A check that `measured <= maximum`.
    pub fn at_most(
        workload: &'static str,
        measure: String,
        measured: f64,
        maximum: f64,
        rows: Vec<usize>,
    ) -> Check {
        Check {
            workload,
            measure,
            bound: format!("<= {maximum}"),
            measured,
            pass: measured <= maximum,
            rows,
        }
    }
}
