//! `SHOW ALL` and the `pg_settings` view: every built-in setting folio
//! has (a few dozen of PostgreSQL's ~350), with PostgreSQL 15's names,
//! categories, descriptions, contexts, types and ranges, and the
//! session's values.
//!
//! The values all come from [`Settings::show`], the one owner of what a
//! setting is: `setting` is what SHOW gives now (a time in milliseconds,
//! the unit `pg_settings` reports it in, as PostgreSQL's), `reset_val`
//! what it gives for the session's defaults (what RESET goes back to),
//! `boot_val` for folio's built-in defaults. Custom (dotted) settings are
//! in neither, as PostgreSQL's placeholders are not; folio's own
//! `folio.statement_memory_limit` is, as an extension's setting is.
//!
//! `source` is read from the values, since folio does not keep where a
//! value came from: `override` for the transaction's level and access
//! mode when they are the defaults', `session` when the value is not the session default,
//! `client` when the session default is not the built-in one (the
//! startup packet set it), else `default`. PostgreSQL says `session`
//! also after a SET to the value it had.

use crate::error::SqlError;
use crate::server_settings::SERVER;
use crate::settings::{OpenTransaction, Settings};
use crate::tunables::{TUNABLES, Tunable};
use folio_row::{SqlType, Value};

/// What a setting is beyond its value, as `pg_settings` describes it.
#[derive(Debug)]
struct About {
    /// As PostgreSQL spells it (`DateStyle`, `TimeZone`); SHOW and SET
    /// take it in any case.
    name: &'static str,
    unit: Option<&'static str>,
    category: &'static str,
    short_desc: &'static str,
    extra_desc: Option<&'static str>,
    /// Who may change it: `user` (any session), `superuser` (a
    /// superuser's session), `internal` (nobody), `postmaster` (the
    /// server's start).
    context: &'static str,
    kind: Kind,
}

/// A setting's type (`vartype`) and the values it takes.
#[derive(Debug)]
enum Kind {
    Bool,
    Integer { min: i64, max: i64 },
    String,
    Enum(&'static [&'static str]),
}

impl Kind {
    fn vartype(&self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::Integer { .. } => "integer",
            Kind::String => "string",
            Kind::Enum(_) => "enum",
        }
    }
}

/// folio's settings, in PostgreSQL's order (by name, case-blind).
const SETTINGS: &[About] = &[
    About {
        name: "application_name",
        unit: None,
        category: "Reporting and Logging / What to Log",
        short_desc: "Sets the application name to be reported in statistics and logs.",
        extra_desc: None,
        context: "user",
        kind: Kind::String,
    },
    About {
        name: "client_encoding",
        unit: None,
        category: "Client Connection Defaults / Locale and Formatting",
        short_desc: "Sets the client's character set encoding.",
        extra_desc: None,
        context: "user",
        kind: Kind::String,
    },
    About {
        name: "DateStyle",
        unit: None,
        category: "Client Connection Defaults / Locale and Formatting",
        short_desc: "Sets the display format for date and time values.",
        extra_desc: Some("Also controls interpretation of ambiguous date inputs."),
        context: "user",
        kind: Kind::String,
    },
    About {
        name: "default_text_search_config",
        unit: None,
        category: "Client Connection Defaults / Locale and Formatting",
        short_desc: "Sets default text search configuration.",
        extra_desc: None,
        context: "user",
        kind: Kind::String,
    },
    About {
        name: "default_transaction_deferrable",
        unit: None,
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the default deferrable status of new transactions.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "default_transaction_isolation",
        unit: None,
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the transaction isolation level of each new transaction.",
        extra_desc: None,
        context: "user",
        kind: Kind::Enum(&[
            "serializable",
            "repeatable read",
            "read committed",
            "read uncommitted",
        ]),
    },
    About {
        name: "default_transaction_read_only",
        unit: None,
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the default read-only status of new transactions.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_async_append",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of async append plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_bitmapscan",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of bitmap-scan plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_gathermerge",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of gather merge plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_hashagg",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of hashed aggregation plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_hashjoin",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of hash join plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_incremental_sort",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of incremental sort steps.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_indexonlyscan",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of index-only-scan plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_indexscan",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of index-scan plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_material",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of materialization.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_memoize",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of memoization.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_mergejoin",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of merge join plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_nestloop",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of nested-loop join plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_parallel_append",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of parallel append plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_parallel_hash",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of parallel hash plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_partition_pruning",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables plan-time and execution-time partition pruning.",
        extra_desc: Some(
            "Allows the query planner and executor to compare partition bounds to conditions in the query to determine which partitions must be scanned.",
        ),
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_partitionwise_aggregate",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables partitionwise aggregation and grouping.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_partitionwise_join",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables partitionwise join.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_seqscan",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of sequential-scan plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_sort",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of explicit sort steps.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "enable_tidscan",
        unit: None,
        category: "Query Tuning / Planner Method Configuration",
        short_desc: "Enables the planner's use of TID scan plans.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "extra_float_digits",
        unit: None,
        category: "Client Connection Defaults / Locale and Formatting",
        short_desc: "Sets the number of digits displayed for floating-point values.",
        extra_desc: Some(
            "This affects real, double precision, and geometric data types. A zero or negative parameter value is added to the standard number of digits (FLT_DIG or DBL_DIG as appropriate). Any value greater than zero selects precise output mode.",
        ),
        context: "user",
        kind: Kind::Integer { min: -15, max: 3 },
    },
    About {
        name: crate::statement_memory::NAME,
        unit: Some("kB"),
        category: "Resource Usage / Memory",
        short_desc: "Sets the most memory a statement may take before it fails.",
        extra_desc: Some("A value of 0 or -1 turns off the limit."),
        context: "user",
        kind: Kind::Integer {
            min: -1,
            max: 2147483647,
        },
    },
    About {
        name: "idle_in_transaction_session_timeout",
        unit: Some("ms"),
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the maximum allowed idle time between queries, when in a transaction.",
        extra_desc: Some("A value of 0 turns off the timeout."),
        context: "user",
        kind: Kind::Integer {
            min: 0,
            max: 2147483647,
        },
    },
    About {
        name: "integer_datetimes",
        unit: None,
        category: "Preset Options",
        short_desc: "Shows whether datetimes are integer based.",
        extra_desc: None,
        context: "internal",
        kind: Kind::Bool,
    },
    About {
        name: "lock_timeout",
        unit: Some("ms"),
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the maximum allowed duration of any wait for a lock.",
        extra_desc: Some("A value of 0 turns off the timeout."),
        context: "user",
        kind: Kind::Integer {
            min: 0,
            max: 2147483647,
        },
    },
    About {
        name: "max_connections",
        unit: None,
        category: "Connections and Authentication / Connection Settings",
        short_desc: "Sets the maximum number of concurrent connections.",
        extra_desc: None,
        context: "postmaster",
        kind: Kind::Integer {
            min: 1,
            max: 262143,
        },
    },
    About {
        name: "max_identifier_length",
        unit: None,
        category: "Preset Options",
        short_desc: "Shows the maximum identifier length.",
        extra_desc: None,
        context: "internal",
        kind: Kind::Integer { min: 63, max: 63 },
    },
    About {
        name: "plan_cache_mode",
        unit: None,
        category: "Query Tuning / Other Planner Options",
        short_desc: "Controls the planner's selection of custom or generic plan.",
        extra_desc: Some(
            "Prepared statements can have custom and generic plans, and the planner will attempt to choose which is better.  This can be set to override the default behavior.",
        ),
        context: "user",
        kind: Kind::Enum(&["auto", "force_generic_plan", "force_custom_plan"]),
    },
    About {
        name: "search_path",
        unit: None,
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the schema search order for names that are not schema-qualified.",
        extra_desc: None,
        context: "user",
        kind: Kind::String,
    },
    About {
        name: "server_encoding",
        unit: None,
        category: "Preset Options",
        short_desc: "Shows the server (database) character set encoding.",
        extra_desc: None,
        context: "internal",
        kind: Kind::String,
    },
    About {
        name: "server_version",
        unit: None,
        category: "Preset Options",
        short_desc: "Shows the server version.",
        extra_desc: None,
        context: "internal",
        kind: Kind::String,
    },
    About {
        name: "server_version_num",
        unit: None,
        category: "Preset Options",
        short_desc: "Shows the server version as an integer.",
        extra_desc: None,
        context: "internal",
        kind: Kind::Integer {
            min: 150000,
            max: 150000,
        },
    },
    About {
        name: "session_replication_role",
        unit: None,
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the session's behavior for triggers and rewrite rules.",
        extra_desc: None,
        context: "superuser",
        kind: Kind::Enum(&["origin", "replica", "local"]),
    },
    About {
        name: "statement_timeout",
        unit: Some("ms"),
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the maximum allowed duration of any statement.",
        extra_desc: Some("A value of 0 turns off the timeout."),
        context: "user",
        kind: Kind::Integer {
            min: 0,
            max: 2147483647,
        },
    },
    About {
        name: "synchronous_commit",
        unit: None,
        category: "Write-Ahead Log / Settings",
        short_desc: "Sets the current transaction's synchronization level.",
        extra_desc: None,
        context: "user",
        kind: Kind::Enum(&["local", "remote_write", "remote_apply", "on", "off"]),
    },
    About {
        name: "TimeZone",
        unit: None,
        category: "Client Connection Defaults / Locale and Formatting",
        short_desc: "Sets the time zone for displaying and interpreting time stamps.",
        extra_desc: None,
        context: "user",
        kind: Kind::String,
    },
    About {
        name: "transaction_deferrable",
        unit: None,
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Whether to defer a read-only serializable transaction until it can be executed with no possible serialization failures.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
    About {
        name: "transaction_isolation",
        unit: None,
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the current transaction's isolation level.",
        extra_desc: None,
        context: "user",
        kind: Kind::Enum(&[
            "serializable",
            "repeatable read",
            "read committed",
            "read uncommitted",
        ]),
    },
    About {
        name: "transaction_read_only",
        unit: None,
        category: "Client Connection Defaults / Statement Behavior",
        short_desc: "Sets the current transaction's read-only status.",
        extra_desc: None,
        context: "user",
        kind: Kind::Bool,
    },
];

/// `pg_settings`' columns, in PostgreSQL 15's order.
pub const COLUMNS: &[(&str, SqlType)] = &[
    ("name", SqlType::Text),
    ("setting", SqlType::Text),
    ("unit", SqlType::Text),
    ("category", SqlType::Text),
    ("short_desc", SqlType::Text),
    ("extra_desc", SqlType::Text),
    ("context", SqlType::Text),
    ("vartype", SqlType::Text),
    ("source", SqlType::Text),
    ("min_val", SqlType::Text),
    ("max_val", SqlType::Text),
    ("enumvals", SqlType::Array(&SqlType::Text)),
    ("boot_val", SqlType::Text),
    ("reset_val", SqlType::Text),
    ("sourcefile", SqlType::Text),
    ("sourceline", SqlType::Int4),
    ("pending_restart", SqlType::Bool),
];

/// Setting `name` (any case) as PostgreSQL spells it (`TimeZone`), if
/// listed: the column `SHOW name` returns.
pub fn spelled(name: &str) -> Option<&'static str> {
    SETTINGS
        .iter()
        .find(|about| about.name.eq_ignore_ascii_case(name))
        .map(|about| about.name)
        .or_else(|| crate::tunables::find(name).map(|t| t.name))
}

/// Whether the role may change setting `name` (lower case): one of
/// PostgreSQL's `superuser` context is 42501 unless `superuser` (asked
/// only then) says the role is one. SET, RESET and `set_config` ask it.
pub fn may_change(
    name: &str,
    superuser: impl FnOnce() -> Result<bool, SqlError>,
) -> Result<(), SqlError> {
    let only = (SETTINGS.iter()).any(|about| about.context == "superuser" && about.name == name)
        || crate::tunables::find(name).is_some_and(|t| t.context == "superuser");
    match only && !superuser()? {
        true => Err(SqlError::new(
            "42501",
            format!("permission denied to set parameter \"{name}\""),
        )),
        false => Ok(()),
    }
}

/// The settings PostgreSQL 15 flags `GUC_EXPLAIN` (EXPLAIN (SETTINGS)
/// reports them), of those folio has or may list, by lower-case name,
/// besides the planner switches (`settings::PLANNER_SWITCHES`), which
/// all are.
const EXPLAIN: &[&str] = &[
    "constraint_exclusion",
    "cpu_index_tuple_cost",
    "cpu_operator_cost",
    "cpu_tuple_cost",
    "cursor_tuple_fraction",
    "effective_cache_size",
    "effective_io_concurrency",
    "force_parallel_mode",
    "from_collapse_limit",
    "geqo",
    "geqo_effort",
    "geqo_generations",
    "geqo_pool_size",
    "geqo_seed",
    "geqo_selection_bias",
    "geqo_threshold",
    "hash_mem_multiplier",
    "jit",
    "jit_above_cost",
    "jit_inline_above_cost",
    "jit_optimize_above_cost",
    "join_collapse_limit",
    "maintenance_io_concurrency",
    "max_parallel_workers",
    "max_parallel_workers_per_gather",
    "min_parallel_index_scan_size",
    "min_parallel_table_scan_size",
    "parallel_leader_participation",
    "parallel_setup_cost",
    "parallel_tuple_cost",
    "plan_cache_mode",
    "random_page_cost",
    "recursive_worktable_factor",
    "search_path",
    "seq_page_cost",
    "temp_buffers",
    "work_mem",
];

/// `GUC_NO_RESET_ALL`: RESET ALL leaves them.
const NO_RESET_ALL: &[&str] = &[
    "is_superuser",
    "role",
    "session_authorization",
    "transaction_deferrable",
    "transaction_isolation",
    "transaction_read_only",
];

/// `GUC_NO_SHOW_ALL`: hidden from SHOW ALL and `pg_settings`.
const NO_SHOW_ALL: &[&str] = &[
    "default_with_oids",
    "is_superuser",
    "role",
    "session_authorization",
];

/// `GUC_NOT_IN_SAMPLE`, of those folio has or may list.
const NOT_IN_SAMPLE: &[&str] = &[
    "application_name",
    "block_size",
    "data_checksums",
    "default_with_oids",
    "force_parallel_mode",
    "integer_datetimes",
    "is_superuser",
    "lc_collate",
    "lc_ctype",
    "max_function_args",
    "max_identifier_length",
    "max_index_keys",
    "role",
    "segment_size",
    "server_encoding",
    "server_version",
    "server_version_num",
    "session_authorization",
    "transaction_deferrable",
    "transaction_isolation",
    "transaction_read_only",
    "wal_block_size",
    "wal_segment_size",
];

/// `GUC_RUNTIME_COMPUTED`: known once the server has started.
const RUNTIME_COMPUTED: &[&str] = &["data_checksums", "wal_segment_size"];

/// `pg_settings_get_flags(name)`: the flags of setting `name` (lower
/// case, a setting the session has) in PostgreSQL's order; a custom
/// placeholder's are `NO_SHOW_ALL` and `NOT_IN_SAMPLE`, as PostgreSQL's.
pub fn flags(name: &str, custom: bool) -> Vec<&'static str> {
    let lists: [(&'static str, &[&str]); 5] = [
        ("EXPLAIN", EXPLAIN),
        ("NO_RESET_ALL", NO_RESET_ALL),
        ("NO_SHOW_ALL", NO_SHOW_ALL),
        ("NOT_IN_SAMPLE", NOT_IN_SAMPLE),
        ("RUNTIME_COMPUTED", RUNTIME_COMPUTED),
    ];
    if custom {
        return vec!["NO_SHOW_ALL", "NOT_IN_SAMPLE"];
    }
    (lists.into_iter())
        .filter(|(flag, names)| {
            names.contains(&name)
                || (*flag == "EXPLAIN" && crate::settings::PLANNER_SWITCHES.contains(&name))
        })
        .map(|(flag, _)| flag)
        .collect()
}

/// `SHOW ALL`'s columns.
pub const SHOW_ALL_COLUMNS: [&str; 3] = ["name", "setting", "description"];

/// `SHOW ALL`: each setting's name, value as SHOW prints it, and short
/// description.
pub fn show_all(
    settings: &Settings,
    open: Option<OpenTransaction>,
) -> Result<Vec<Vec<Value>>, SqlError> {
    described()
        .iter()
        .map(|about| {
            let value = settings.show(&about.name.to_ascii_lowercase(), open)?;
            Ok(vec![
                text(about.name),
                Value::Text(value),
                text(about.short_desc),
            ])
        })
        .collect()
}

/// `pg_settings`' rows for the running statement's session: `settings`
/// now, `defaults` what RESET goes back to, `open` its transaction.
pub fn rows(
    settings: &Settings,
    defaults: &Settings,
    open: OpenTransaction,
) -> Result<Vec<Vec<Value>>, SqlError> {
    let boot = Settings::default();
    described()
        .into_iter()
        .map(|about| {
            let name = about.name.to_ascii_lowercase();
            let value = |of: &Settings, open| -> Result<String, SqlError> {
                let shown = of.show(&name, open)?;
                if let Some((_, in_unit)) = of.server_setting(&name) {
                    return Ok(in_unit.to_string());
                }
                match (about.tunable, about.unit) {
                    (Some(tunable), _) => Ok(tunable.setting(&shown)),
                    (None, Some("kB")) => Ok(crate::statement_memory::read(&shown)?.to_string()),
                    // (Every other unit-carrying setting of folio's is a
                    // time.)
                    (None, Some(_)) => {
                        Ok(crate::settings::milliseconds(&name, &shown)?.to_string())
                    }
                    (None, None) => Ok(shown),
                }
            };
            let setting = value(settings, Some(open))?;
            let reset = value(defaults, None)?;
            let booted = value(&boot, None)?;
            let source = if name.starts_with("transaction_") {
                // (The transaction's own, else the default's.)
                if setting != reset {
                    "session"
                } else {
                    "override"
                }
            } else if value(settings, None)? != reset {
                "session"
            } else if reset != booted {
                "client"
            } else {
                "default"
            };
            let optional = |v: Option<String>| v.map_or(Value::Null, Value::Text);
            let enumvals = about.enumvals.map_or(Value::Null, |values| {
                Value::Array(values.iter().map(|v| text(v)).collect())
            });
            Ok(vec![
                text(about.name),
                Value::Text(setting),
                about.unit.map_or(Value::Null, text),
                text(about.category),
                text(about.short_desc),
                about.extra_desc.map_or(Value::Null, text),
                text(about.context),
                text(about.vartype),
                text(source),
                optional(about.min),
                optional(about.max),
                enumvals,
                Value::Text(booted),
                Value::Text(reset),
                Value::Null,
                Value::Null,
                Value::Bool(false),
            ])
        })
        .collect()
}

/// A setting as `SHOW ALL` and `pg_settings` describe it: one of
/// [`SETTINGS`] or of `tunables.rs`.
struct Described {
    name: &'static str,
    unit: Option<&'static str>,
    category: &'static str,
    short_desc: &'static str,
    extra_desc: Option<&'static str>,
    context: &'static str,
    vartype: &'static str,
    min: Option<String>,
    max: Option<String>,
    enumvals: Option<&'static [&'static str]>,
    /// Its tunable, whose `setting` column is `Tunable::setting`'s.
    tunable: Option<&'static Tunable>,
}

/// Every setting, in PostgreSQL's order (by name, case-blind).
fn described() -> Vec<Described> {
    let listed = SETTINGS.iter().map(|about| Described {
        name: about.name,
        unit: about.unit,
        category: about.category,
        short_desc: about.short_desc,
        extra_desc: about.extra_desc,
        context: about.context,
        vartype: about.kind.vartype(),
        min: match about.kind {
            Kind::Integer { min, .. } => Some(min.to_string()),
            _ => None,
        },
        max: match about.kind {
            Kind::Integer { max, .. } => Some(max.to_string()),
            _ => None,
        },
        enumvals: match about.kind {
            Kind::Enum(values) => Some(values),
            _ => None,
        },
        tunable: None,
    });
    let tuned = TUNABLES.iter().map(|t| {
        let (vartype, unit, min, max) = t.kind();
        Described {
            name: t.name,
            unit,
            category: t.category,
            short_desc: t.short_desc,
            extra_desc: None,
            context: t.context,
            vartype,
            min,
            max,
            enumvals: t.values(),
            tunable: Some(t),
        }
    });
    let server = SERVER.iter().map(|s| Described {
        name: s.name,
        unit: s.unit,
        category: s.category,
        short_desc: s.short_desc,
        extra_desc: None,
        context: s.context,
        vartype: s.vartype,
        min: None,
        max: None,
        enumvals: None,
        tunable: None,
    });
    let mut all: Vec<Described> = listed.chain(tuned).chain(server).collect();
    all.sort_by_key(|d| d.name.to_ascii_lowercase());
    all
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves every listed setting is one `Settings::show` knows, listed
    // once, in PostgreSQL's order (by name, case-blind).
    #[test]
    fn every_listed_setting_shows() {
        let settings = Settings::default();
        for about in described() {
            let name = about.name.to_ascii_lowercase();
            assert!(settings.show(&name, None).is_ok(), "{name}");
        }
        let names: Vec<String> = SETTINGS
            .iter()
            .map(|a| a.name.to_ascii_lowercase())
            .collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
    }
}
