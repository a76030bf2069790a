//! The PostgreSQL settings folio takes, checks and shows although they
//! change nothing it computes: the planner's cost constants, memory
//! sizes, JIT, logging, and the compatibility switches at the values
//! folio works in. Tools set them as a matter of course (pg_dump's
//! preamble sets `standard_conforming_strings`, `check_function_bodies`,
//! `xmloption`, `client_min_messages`, `row_security`,
//! `default_tablespace`, `default_table_access_method`; drivers and
//! frameworks set `client_min_messages`; users tune `work_mem`), so a
//! refusal would stop them for nothing.
//!
//! Each is checked as PostgreSQL 15 checks it (its type, range and
//! values, with PostgreSQL's 22023 messages) and shown in PostgreSQL's
//! form (`work_mem = 65536` shows `64MB`). A value PostgreSQL takes but
//! that would change folio's results (`standard_conforming_strings =
//! off`, `array_nulls = off`) is 0A000, as `settings.rs` refuses such values
//! for its own settings; a text naming what folio has not (another
//! access method, tablespace or locale) is 22023, as an unknown one is
//! in PostgreSQL.
//!
//! `client_min_messages` is honoured here: the session drops the
//! notices below it ([`passes`]); `IntervalStyle` and `bytea_output` are
//! read into the session's text style (`Settings::text_style`).
//!
//! This table is the one owner of these settings: `Settings` keeps their
//! values (only those not at the default) and asks [`find`] and
//! [`Tunable::read`]; `settings_list.rs` lists them in `SHOW ALL` and
//! `pg_settings` from [`TUNABLES`].

use crate::error::SqlError;

/// What a setting takes.
#[derive(Debug)]
pub enum Takes {
    Bool,
    /// A Boolean folio takes at this value only (the other is 0A000).
    BoolAt(bool),
    Integer {
        min: i64,
        max: i64,
    },
    Real {
        min: f64,
        max: f64,
    },
    /// A time, a real number of milliseconds: a number (ms) or a number
    /// and one of PostgreSQL's time units (`us`, `ms`, `s`, `min`, `h`,
    /// `d`).
    Milliseconds {
        min: f64,
        max: f64,
    },
    /// A size: a number of `unit_kb` kB units, or a number and one of
    /// PostgreSQL's memory units (`B`, `kB`, `MB`, `GB`, `TB`).
    Memory {
        unit_kb: i64,
        min: i64,
        max: i64,
    },
    /// One of PostgreSQL's values (any case); those outside `folio` are
    /// 0A000.
    Choice {
        values: &'static [&'static str],
        folio: &'static [&'static str],
    },
    /// A text, of which folio takes these (any case) and refuses others
    /// with 0A000.
    Text(&'static [&'static str]),
    /// A comma-separated list of these key words (any case), or `all`
    /// or `none` alone ([`key_words`]), shown as written.
    KeyWords(&'static [&'static str]),
}

/// A setting of this module's, with what `pg_settings` says of it.
#[derive(Debug)]
pub struct Tunable {
    /// As PostgreSQL spells it.
    pub name: &'static str,
    /// Its value as SHOW prints it when not set.
    pub default: &'static str,
    pub takes: Takes,
    pub category: &'static str,
    pub short_desc: &'static str,
    /// `user` or `superuser` (42501 for other roles).
    pub context: &'static str,
}

const TEXT: &str = "Client Connection Defaults / Statement Behavior";
const LOCALE: &str = "Client Connection Defaults / Locale and Formatting";
const COSTS: &str = "Query Tuning / Planner Cost Constants";
const PLANNER: &str = "Query Tuning / Other Planner Options";
const OLD: &str = "Version and Platform Compatibility / Previous PostgreSQL Versions";
const MEMORY: &str = "Resource Usage / Memory";
/// PL/pgSQL's settings (a module's in PostgreSQL).
const CUSTOM: &str = "Customized Options";
const VACUUM_DELAY: &str = "Resource Usage / Cost-Based Vacuum Delay";
const REAL: Takes = Takes::Real {
    min: 0.0,
    max: f64::MAX,
};
/// A JIT threshold: a cost, or -1 for never.
const JIT_COST: Takes = Takes::Real {
    min: -1.0,
    max: f64::MAX,
};
const LOCALES: &[&str] = &["C.UTF-8", "C", "POSIX", "C.utf8", ""];
const LEVELS: &[&str] = &[
    "debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error",
];

const fn tunable(
    name: &'static str,
    default: &'static str,
    takes: Takes,
    category: &'static str,
    short_desc: &'static str,
) -> Tunable {
    Tunable {
        name,
        default,
        takes,
        category,
        short_desc,
        context: "user",
    }
}

const fn superuser(t: Tunable) -> Tunable {
    Tunable {
        context: "superuser",
        ..t
    }
}

/// The settings, in PostgreSQL's order (by name, case-blind).
pub const TUNABLES: &[Tunable] = &[
    tunable(
        "array_nulls",
        "on",
        Takes::BoolAt(true),
        OLD,
        "Enable input of NULL elements in arrays.",
    ),
    tunable(
        "bytea_output",
        "hex",
        Takes::Choice {
            values: &["escape", "hex"],
            folio: &["escape", "hex"],
        },
        TEXT,
        "Sets the output format for bytea.",
    ),
    tunable(
        "check_function_bodies",
        "on",
        Takes::Bool,
        TEXT,
        "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE.",
    ),
    tunable(
        "client_min_messages",
        "notice",
        Takes::Choice {
            values: LEVELS,
            folio: LEVELS,
        },
        TEXT,
        "Sets the message levels that are sent to the client.",
    ),
    tunable(
        "constraint_exclusion",
        "partition",
        Takes::Choice {
            values: &["partition", "on", "off"],
            folio: &["partition", "on", "off"],
        },
        PLANNER,
        "Enables the planner to use constraints to optimize queries.",
    ),
    tunable(
        "cpu_index_tuple_cost",
        "0.005",
        REAL,
        COSTS,
        "Sets the planner's estimate of the cost of processing each index entry during an index scan.",
    ),
    tunable(
        "cpu_operator_cost",
        "0.0025",
        REAL,
        COSTS,
        "Sets the planner's estimate of the cost of processing each operator or function call.",
    ),
    tunable(
        "cpu_tuple_cost",
        "0.01",
        REAL,
        COSTS,
        "Sets the planner's estimate of the cost of processing each tuple (row).",
    ),
    tunable(
        "cursor_tuple_fraction",
        "0.1",
        Takes::Real { min: 0.0, max: 1.0 },
        PLANNER,
        "Sets the planner's estimate of the fraction of a cursor's rows that will be retrieved.",
    ),
    tunable(
        "default_statistics_target",
        "100",
        Takes::Integer { min: 1, max: 10000 },
        PLANNER,
        "Sets the default statistics target.",
    ),
    tunable(
        "default_table_access_method",
        "heap",
        Takes::Text(&["heap"]),
        TEXT,
        "Sets the default table access method for new tables.",
    ),
    tunable(
        "default_tablespace",
        "",
        Takes::Text(&["", "pg_default"]),
        TEXT,
        "Sets the default tablespace to create tables and indexes in.",
    ),
    // (folio compresses no value: either method stores as it does.)
    tunable(
        "default_toast_compression",
        "pglz",
        Takes::Choice {
            values: &["pglz", "lz4"],
            folio: &["pglz", "lz4"],
        },
        TEXT,
        "Sets the default compression method for compressible values.",
    ),
    tunable(
        "effective_cache_size",
        "4GB",
        Takes::Memory {
            unit_kb: 8,
            min: 1,
            max: i32::MAX as i64,
        },
        COSTS,
        "Sets the planner's assumption about the total size of the data caches.",
    ),
    tunable(
        "effective_io_concurrency",
        "1",
        Takes::Integer { min: 0, max: 1000 },
        "Resource Usage / Asynchronous Behavior",
        "Number of simultaneous requests that can be handled efficiently by the disk subsystem.",
    ),
    tunable(
        "escape_string_warning",
        "on",
        Takes::Bool,
        OLD,
        "Warn about backslash escapes in ordinary string literals.",
    ),
    // (Developer option: folio has no parallel query, so every value
    // plans and runs alike.)
    tunable(
        "force_parallel_mode",
        "off",
        Takes::Choice {
            values: &["off", "on", "regress"],
            folio: &["off", "on", "regress"],
        },
        "Developer Options",
        "Forces use of parallel query facilities.",
    ),
    tunable(
        "from_collapse_limit",
        "8",
        Takes::Integer {
            min: 1,
            max: i32::MAX as i64,
        },
        PLANNER,
        "Sets the FROM-list size beyond which subqueries are not collapsed.",
    ),
    tunable(
        "geqo",
        "on",
        Takes::Bool,
        "Query Tuning / Genetic Query Optimizer",
        "Enables genetic query optimization.",
    ),
    tunable(
        "IntervalStyle",
        "postgres",
        Takes::Choice {
            values: &["postgres", "postgres_verbose", "sql_standard", "iso_8601"],
            folio: &["postgres", "postgres_verbose", "sql_standard", "iso_8601"],
        },
        LOCALE,
        "Sets the display format for interval values.",
    ),
    tunable("jit", "on", Takes::Bool, PLANNER, "Allow JIT compilation."),
    tunable(
        "jit_above_cost",
        "100000",
        JIT_COST,
        COSTS,
        "Perform JIT compilation if query is more expensive.",
    ),
    tunable(
        "jit_inline_above_cost",
        "500000",
        JIT_COST,
        COSTS,
        "Perform JIT inlining if query is more expensive.",
    ),
    tunable(
        "jit_optimize_above_cost",
        "500000",
        JIT_COST,
        COSTS,
        "Optimize JIT-compiled functions if query is more expensive.",
    ),
    tunable(
        "join_collapse_limit",
        "8",
        Takes::Integer {
            min: 1,
            max: i32::MAX as i64,
        },
        PLANNER,
        "Sets the FROM-list size beyond which JOIN constructs are not flattened.",
    ),
    superuser(tunable(
        "lc_messages",
        "C.UTF-8",
        Takes::Text(LOCALES),
        LOCALE,
        "Sets the language in which messages are displayed.",
    )),
    tunable(
        "lc_monetary",
        "C.UTF-8",
        Takes::Text(LOCALES),
        LOCALE,
        "Sets the locale for formatting monetary amounts.",
    ),
    tunable(
        "lc_numeric",
        "C.UTF-8",
        Takes::Text(LOCALES),
        LOCALE,
        "Sets the locale for formatting numbers.",
    ),
    tunable(
        "lc_time",
        "C.UTF-8",
        Takes::Text(LOCALES),
        LOCALE,
        "Sets the locale for formatting date and time values.",
    ),
    superuser(tunable(
        "log_statement",
        "none",
        Takes::Choice {
            values: &["none", "ddl", "mod", "all"],
            folio: &["none", "ddl", "mod", "all"],
        },
        "Reporting and Logging / What to Log",
        "Sets the type of statements logged.",
    )),
    tunable(
        "maintenance_work_mem",
        "64MB",
        Takes::Memory {
            unit_kb: 1,
            min: 1024,
            max: i32::MAX as i64,
        },
        MEMORY,
        "Sets the maximum memory to be used for maintenance operations.",
    ),
    tunable(
        "max_parallel_workers_per_gather",
        "2",
        Takes::Integer { min: 0, max: 1024 },
        "Resource Usage / Asynchronous Behavior",
        "Sets the maximum number of parallel processes per executor node.",
    ),
    tunable(
        "min_parallel_index_scan_size",
        "512kB",
        Takes::Memory {
            unit_kb: 8,
            min: 0,
            max: 715_827_882,
        },
        COSTS,
        "Sets the minimum amount of index data for a parallel scan.",
    ),
    tunable(
        "min_parallel_table_scan_size",
        "8MB",
        Takes::Memory {
            unit_kb: 8,
            min: 0,
            max: 715_827_882,
        },
        COSTS,
        "Sets the minimum amount of table data for a parallel scan.",
    ),
    tunable(
        "parallel_setup_cost",
        "1000",
        REAL,
        COSTS,
        "Sets the planner's estimate of the cost of starting up worker processes for parallel query.",
    ),
    tunable(
        "parallel_tuple_cost",
        "0.1",
        REAL,
        COSTS,
        "Sets the planner's estimate of the cost of passing each tuple (row) from worker to leader backend.",
    ),
    tunable(
        "plpgsql.check_asserts",
        "on",
        Takes::Bool,
        CUSTOM,
        "Perform checks given in ASSERT statements.",
    ),
    tunable(
        "plpgsql.extra_errors",
        "none",
        Takes::KeyWords(crate::plpgsql::extra_checks::CHECKS),
        CUSTOM,
        "List of programming constructs that should produce an error.",
    ),
    tunable(
        "plpgsql.extra_warnings",
        "none",
        Takes::KeyWords(crate::plpgsql::extra_checks::CHECKS),
        CUSTOM,
        "List of programming constructs that should produce a warning.",
    ),
    tunable(
        "plpgsql.print_strict_params",
        "off",
        Takes::Bool,
        CUSTOM,
        "Print information about parameters in the DETAIL part of the error messages generated on INTO ... STRICT failures.",
    ),
    tunable(
        "random_page_cost",
        "4",
        REAL,
        COSTS,
        "Sets the planner's estimate of the cost of a nonsequentially fetched disk page.",
    ),
    tunable(
        "restrict_nonsystem_relation_kind",
        "",
        Takes::KeyWords(&["view", "foreign-table"]),
        TEXT,
        "Prohibits access to non-system relations of specified kinds.",
    ),
    tunable(
        "row_security",
        "on",
        Takes::Bool,
        TEXT,
        "Enable row security.",
    ),
    tunable(
        "seq_page_cost",
        "1",
        REAL,
        COSTS,
        "Sets the planner's estimate of the cost of a sequentially fetched disk page.",
    ),
    tunable(
        "standard_conforming_strings",
        "on",
        Takes::BoolAt(true),
        OLD,
        "Causes '...' strings to treat backslashes literally.",
    ),
    tunable(
        "synchronize_seqscans",
        "on",
        Takes::Bool,
        OLD,
        "Enable synchronized sequential scans.",
    ),
    tunable(
        "temp_buffers",
        "8MB",
        Takes::Memory {
            unit_kb: 8,
            min: 100,
            max: 1_073_741_823,
        },
        MEMORY,
        "Sets the maximum number of temporary buffers used by each session.",
    ),
    superuser(tunable(
        "track_io_timing",
        "off",
        Takes::Bool,
        "Statistics / Cumulative Query and Index Statistics",
        "Collects timing statistics for database I/O activity.",
    )),
    // (folio's VACUUM does not nap: the delay and the cost budget are
    // taken and shown.)
    tunable(
        "vacuum_cost_delay",
        "0",
        Takes::Milliseconds {
            min: 0.0,
            max: 100.0,
        },
        VACUUM_DELAY,
        "Vacuum cost delay in milliseconds.",
    ),
    tunable(
        "vacuum_cost_limit",
        "200",
        Takes::Integer { min: 1, max: 10000 },
        VACUUM_DELAY,
        "Vacuum cost amount available before napping.",
    ),
    tunable(
        "work_mem",
        "4MB",
        Takes::Memory {
            unit_kb: 1,
            min: 64,
            max: i32::MAX as i64,
        },
        MEMORY,
        "Sets the maximum memory to be used for query workspaces.",
    ),
    tunable(
        "xmloption",
        "content",
        Takes::Choice {
            values: &["content", "document"],
            folio: &["content", "document"],
        },
        TEXT,
        "Sets whether XML data in implicit parsing and serialization operations is to be considered as documents or content fragments.",
    ),
];

/// The setting called `name` (lower case), if it is one of these.
pub fn find(name: &str) -> Option<&'static Tunable> {
    TUNABLES.iter().find(|t| t.name.eq_ignore_ascii_case(name))
}

fn invalid(name: &str, value: &str) -> SqlError {
    SqlError::new(
        "22023",
        format!("invalid value for parameter \"{name}\": \"{value}\""),
    )
}

fn outside(name: &str, value: &str, min: &str, max: &str) -> SqlError {
    SqlError::new(
        "22023",
        format!("{value} is outside the valid range for parameter \"{name}\" ({min} .. {max})"),
    )
}

/// PostgreSQL's memory units, in kB (`B` is a fraction of one).
const MEMORY_UNITS: [(&str, f64); 5] = [
    ("B", 1.0 / 1024.0),
    ("kB", 1.0),
    ("MB", 1024.0),
    ("GB", 1024.0 * 1024.0),
    ("TB", 1024.0 * 1024.0 * 1024.0),
];

/// A size of `kb` kB as SHOW prints it: in the largest unit that holds
/// it whole; zero without a unit, as PostgreSQL's.
pub(crate) fn show_memory(kb: i64) -> String {
    if kb == 0 {
        return "0".into();
    }
    let (unit, size) = MEMORY_UNITS[1..]
        .iter()
        .rev()
        .find(|(_, size)| kb % (*size as i64) == 0)
        .expect("kB holds every whole size");
    format!("{}{unit}", kb / (*size as i64))
}

/// A real as PostgreSQL prints one (`%g`: `4`, `0.005`, `1e+10`).
fn show_real(x: f64) -> String {
    crate::ordered_set::c_g(x)
}

/// A time of `ms` milliseconds as SHOW prints a real time setting: in
/// the largest unit that holds it whole (within PostgreSQL's 1e-8), else
/// in `us` (`40ms`, `80100us`, `0.1us`); zero without a unit.
fn show_real_milliseconds(ms: f64) -> String {
    if ms == 0.0 {
        return "0".into();
    }
    let units = crate::settings::TIME_UNITS.iter().rev();
    let mut shown = (ms, "ms");
    for (unit, size) in units {
        shown = (ms / size, unit);
        if shown.0 > 0.0 && ((shown.0.round() / shown.0) - 1.0).abs() <= 1e-8 {
            break;
        }
    }
    format!("{}{}", show_real(shown.0), shown.1)
}

/// Real time setting `name`'s `value` in milliseconds, as PostgreSQL's
/// `parse_real` reads it: a fraction with a unit rounds to the next
/// smaller unit (`1.5us` stays, `0.0015s` is `1.5ms`).
fn read_real_milliseconds(name: &str, value: &str) -> Result<f64, SqlError> {
    let (number, unit) = number_and_unit(value);
    let x = (number.parse::<f64>().ok())
        .filter(|x| !x.is_nan())
        .ok_or_else(|| invalid(name, value))?;
    if unit.is_empty() {
        return Ok(x);
    }
    let units = &crate::settings::TIME_UNITS;
    let Some(at) = units.iter().position(|(n, _)| *n == unit) else {
        return Err(invalid(name, value).with_hint(
            "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".",
        ));
    };
    let ms = x * units[at].1;
    Ok(match at.checked_sub(1) {
        Some(smaller) => (ms / units[smaller].1).round() * units[smaller].1,
        None => ms,
    })
}

/// A setting's value split into its number and its unit (`1.5 min`:
/// `1.5`, `min`; the unit empty if none), blanks trimmed: the one
/// reading of how memory and time settings are written.
pub(crate) fn number_and_unit(value: &str) -> (&str, &str) {
    let text = value.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+')))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    (number, unit.trim())
}

/// Size `value` of memory setting `name` (lower case), in `unit_kb` kB
/// units: a number of units, or a number and one of PostgreSQL's memory
/// units (`B`, `kB`, `MB`, `GB`, `TB`), rounded; PostgreSQL's 22023 if
/// it is none or outside `min..=max` units.
pub(crate) fn read_memory(
    name: &str,
    value: &str,
    unit_kb: i64,
    min: i64,
    max: i64,
) -> Result<i64, SqlError> {
    let (number, unit) = number_and_unit(value);
    let factor = match unit {
        "" => Some(unit_kb as f64),
        u => MEMORY_UNITS.iter().find(|(n, _)| *n == u).map(|(_, f)| *f),
    };
    let (Ok(x), Some(factor)) = (number.parse::<f64>(), factor) else {
        return Err(invalid(name, value));
    };
    let units = (x * factor / unit_kb as f64).round();
    if units < min as f64 || units > max as f64 {
        let label = if unit_kb == 8 { "8kB" } else { "kB" };
        return Err(outside(
            name,
            &format!("{} {label}", units as i64),
            &min.to_string(),
            &max.to_string(),
        ));
    }
    Ok(units as i64)
}

impl Tunable {
    /// `value` as SHOW would print it once set, or PostgreSQL's error.
    pub fn read(&self, value: &str) -> Result<String, SqlError> {
        // Messages name it as SET does, in lower case.
        let lower = self.name.to_ascii_lowercase();
        let name = lower.as_str();
        let text = value.trim();
        match &self.takes {
            Takes::Bool | Takes::BoolAt(_) => match crate::types::parse_bool(text) {
                Some(on) if matches!(self.takes, Takes::BoolAt(at) if at != on) => {
                    Err(SqlError::unsupported(format!("{name} = {text}")))
                }
                Some(true) => Ok("on".into()),
                Some(false) => Ok("off".into()),
                None => Err(SqlError::new(
                    "22023",
                    format!("parameter \"{name}\" requires a Boolean value"),
                )),
            },
            Takes::Integer { min, max } => {
                let x = text
                    .parse::<f64>()
                    .map_err(|_| invalid(name, value))?
                    .round();
                if x < *min as f64 || x > *max as f64 {
                    return Err(outside(
                        name,
                        &x.to_string(),
                        &min.to_string(),
                        &max.to_string(),
                    ));
                }
                Ok((x as i64).to_string())
            }
            Takes::Real { min, max } => {
                // (PostgreSQL's `parse_real` takes no NaN.)
                let x = (text.parse::<f64>().ok())
                    .filter(|x| !x.is_nan())
                    .ok_or_else(|| invalid(name, value))?;
                if !(*min..=*max).contains(&x) {
                    return Err(outside(name, text, &show_real(*min), "1.79769e+308"));
                }
                Ok(show_real(x))
            }
            Takes::Milliseconds { min, max } => {
                let ms = read_real_milliseconds(name, value)?;
                if !(*min..=*max).contains(&ms) {
                    return Err(outside(
                        name,
                        &format!("{} ms", show_real(ms)),
                        &show_real(*min),
                        &show_real(*max),
                    ));
                }
                Ok(show_real_milliseconds(ms))
            }
            Takes::Memory { unit_kb, min, max } => {
                let units = read_memory(name, value, *unit_kb, *min, *max)?;
                Ok(show_memory(units * unit_kb))
            }
            Takes::Choice { values, folio } => {
                let lower = text.to_ascii_lowercase();
                let lower = match lower.as_str() {
                    "true" | "yes" | "1" => "on".to_string(),
                    "false" | "no" | "0" => "off".to_string(),
                    _ => lower,
                };
                let Some(found) = values.iter().find(|v| **v == lower) else {
                    return Err(invalid(name, value)
                        .with_hint(format!("Available values: {}.", values.join(", "))));
                };
                if !folio.contains(found) {
                    return Err(SqlError::unsupported(format!("{name} = {found}")));
                }
                Ok(found.to_string())
            }
            // (What folio does not take does not exist here: no other
            // access method, tablespace or locale.)
            Takes::Text(taken) => match taken.iter().find(|t| t.eq_ignore_ascii_case(text)) {
                Some(_) => Ok(text.to_string()),
                None => Err(invalid(name, value)),
            },
            Takes::KeyWords(taken) => {
                let refuse = |detail: String| invalid(name, value).with_detail(detail);
                for word in key_words(value).map_err(refuse)?.unwrap_or_default() {
                    if ["all", "none"]
                        .iter()
                        .any(|w| w.eq_ignore_ascii_case(&word))
                    {
                        return Err(refuse(format!(
                            "Key word \"{word}\" cannot be combined with other key words."
                        )));
                    }
                    if !taken.iter().any(|t| t.eq_ignore_ascii_case(&word)) {
                        return Err(refuse(format!("Unrecognized key word: \"{word}\".")));
                    }
                }
                Ok(value.to_string())
            }
        }
    }

    /// `pg_settings`' `vartype`, `unit`, `min_val`, `max_val` and
    /// `enumvals` for this setting.
    pub fn kind(
        &self,
    ) -> (
        &'static str,
        Option<&'static str>,
        Option<String>,
        Option<String>,
    ) {
        match &self.takes {
            Takes::Bool | Takes::BoolAt(_) => ("bool", None, None, None),
            Takes::Integer { min, max } => (
                "integer",
                None,
                Some(min.to_string()),
                Some(max.to_string()),
            ),
            Takes::Real { min, max } => (
                "real",
                None,
                Some(show_real(*min)),
                Some(if *max == f64::MAX {
                    "1.79769e+308".into()
                } else {
                    show_real(*max)
                }),
            ),
            Takes::Milliseconds { min, max } => (
                "real",
                Some("ms"),
                Some(show_real(*min)),
                Some(show_real(*max)),
            ),
            Takes::Memory { unit_kb, min, max } => (
                "integer",
                Some(if *unit_kb == 8 { "8kB" } else { "kB" }),
                Some(min.to_string()),
                Some(max.to_string()),
            ),
            Takes::Choice { .. } => ("enum", None, None, None),
            Takes::Text(_) | Takes::KeyWords(_) => ("string", None, None, None),
        }
    }

    /// The values of an enum (`pg_settings.enumvals`).
    pub fn values(&self) -> Option<&'static [&'static str]> {
        match &self.takes {
            Takes::Choice { values, .. } => Some(values),
            _ => None,
        }
    }

    /// `shown` (as SHOW prints it) as `pg_settings.setting` gives it: a
    /// size in the setting's units.
    pub fn setting(&self, shown: &str) -> String {
        match &self.takes {
            Takes::Memory { unit_kb, .. } => match self.read(shown) {
                Ok(_) => {
                    let kb = MEMORY_UNITS
                        .iter()
                        .rev()
                        .find_map(|(unit, size)| {
                            let number = shown.strip_suffix(unit)?;
                            Some(number.parse::<f64>().ok()? * size)
                        })
                        .unwrap_or(0.0);
                    ((kb / *unit_kb as f64).round() as i64).to_string()
                }
                Err(_) => shown.to_string(),
            },
            Takes::Milliseconds { .. } => match read_real_milliseconds(self.name, shown) {
                Ok(ms) => show_real(ms),
                Err(_) => shown.to_string(),
            },
            _ => shown.to_string(),
        }
    }
}

/// The words of a `Takes::KeyWords` setting's `value`: `None` when it
/// is `all` or `none` (any case, nothing around it); else each item of
/// the comma-separated list, trimmed (a double-quoted one as written, an
/// other lower case), none for an empty text; PostgreSQL's DETAIL when an
/// item is empty.
pub fn key_words(value: &str) -> Result<Option<Vec<String>>, String> {
    if ["all", "none"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(value))
    {
        return Ok(None);
    }
    if value.trim().is_empty() {
        return Ok(Some(Vec::new()));
    }
    (value.split(','))
        .map(|item| {
            let item = item.trim();
            match item.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
                Some(quoted) if !quoted.is_empty() => Ok(quoted.to_string()),
                None if !item.is_empty() => Ok(item.to_ascii_lowercase()),
                _ => Err("List syntax is invalid.".to_string()),
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Whether a notice of `severity` (`NOTICE`, `WARNING`, `DEBUG`, ...)
/// reaches a client whose `client_min_messages` is `level` (PostgreSQL's
/// order: debug5 .. debug1, log, notice, warning, error; INFO always
/// does).
pub fn passes(severity: &str, level: &str) -> bool {
    let rank = |name: &str| {
        let name = match name.to_ascii_lowercase().as_str() {
            "debug" => "debug1".to_string(),
            other => other.to_string(),
        };
        LEVELS.iter().position(|l| *l == name)
    };
    match (rank(severity), rank(level)) {
        (Some(s), Some(l)) => s >= l,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves values are read and shown as PostgreSQL 15 does.
    #[test]
    fn values_read_as_postgresql_reads_them() {
        let work_mem = find("work_mem").unwrap();
        assert_eq!(work_mem.read("65536").unwrap(), "64MB");
        assert_eq!(work_mem.read("64MB").unwrap(), "64MB");
        assert_eq!(work_mem.read("1GB").unwrap(), "1GB");
        assert_eq!(work_mem.read("100kB").unwrap(), "100kB");
        assert_eq!(work_mem.setting("64MB"), "65536");
        let e = work_mem.read("10").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                "22023",
                "10 kB is outside the valid range for parameter \"work_mem\" (64 .. 2147483647)"
            )
        );
        assert_eq!(work_mem.read("lots").unwrap_err().code, "22023");
        let cache = find("effective_cache_size").unwrap();
        assert_eq!(cache.read("524288").unwrap(), "4GB");
        assert_eq!(cache.setting("4GB"), "524288");
        assert_eq!(
            find("random_page_cost").unwrap().read("1.1").unwrap(),
            "1.1"
        );
        assert_eq!(find("jit").unwrap().read("false").unwrap(), "off");
        assert_eq!(
            find("client_min_messages")
                .unwrap()
                .read("WARNING")
                .unwrap(),
            "warning"
        );
        assert_eq!(
            find("intervalstyle").unwrap().read("ISO_8601").unwrap(),
            "iso_8601"
        );
        assert_eq!(
            find("intervalstyle")
                .unwrap()
                .read("nope")
                .unwrap_err()
                .code,
            "22023"
        );
        assert_eq!(
            find("standard_conforming_strings")
                .unwrap()
                .read("on")
                .unwrap(),
            "on"
        );
        assert_eq!(
            find("standard_conforming_strings")
                .unwrap()
                .read("off")
                .unwrap_err()
                .code,
            "0A000"
        );
        assert_eq!(find("default_tablespace").unwrap().read("").unwrap(), "");
        let delay = find("vacuum_cost_delay").unwrap();
        assert_eq!(delay.read("40").unwrap(), "40ms");
        assert_eq!(delay.read("80.1").unwrap(), "80100us");
        assert_eq!(delay.read("900us").unwrap(), "900us");
        assert_eq!(delay.read("0.05 s").unwrap(), "50ms");
        assert_eq!(delay.read("1.23456789").unwrap(), "1234.57us");
        assert_eq!(delay.setting("80100us"), "80.1");
        let e = delay.read("10s").unwrap_err();
        assert_eq!(
            e.message,
            "10000 ms is outside the valid range for parameter \"vacuum_cost_delay\" (0 .. 100)"
        );
        assert!(delay.read("x").unwrap_err().hint.is_none());
        assert_eq!(
            find("seq_page_cost")
                .unwrap()
                .read("NaN")
                .unwrap_err()
                .message,
            "invalid value for parameter \"seq_page_cost\": \"NaN\""
        );
        assert!(delay.read("5 kB").unwrap_err().hint.is_some());
        let names: Vec<String> = TUNABLES
            .iter()
            .map(|t| t.name.to_ascii_lowercase())
            .collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
        for t in TUNABLES {
            assert_eq!(t.read(t.default).unwrap(), t.default, "{}", t.name);
        }
    }

    #[test]
    fn notices_below_the_level_are_dropped() {
        assert!(passes("NOTICE", "notice"));
        assert!(!passes("NOTICE", "warning"));
        assert!(passes("WARNING", "warning"));
        assert!(!passes("DEBUG", "notice"));
        assert!(passes("INFO", "error"));
    }
}
