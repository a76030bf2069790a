//! Session settings: `SET`, `SHOW`, `RESET` with PostgreSQL's names and
//! values for those folio honours. An unknown name is 42704; a value folio
//! cannot honour (another date style or encoding) is 0A000, never
//! silently ignored. `TimeZone` is any zone folio-row's `TimeZone::setting`
//! reads (the bundled IANA database), its value the one owner of "the
//! session's zone": statements read it from their scope
//! (`setting_functions::time_zone`), the server from `Session::time_zone`.
//!
//! A dotted name (`app.user_id`) is a custom setting, PostgreSQL's
//! "placeholder": any text, set by whoever names it. Once a session has
//! named one (SET, RESET, `set_config`), it exists for the rest of the
//! session, as an empty text after the SET that made it is undone or
//! reset ([`Settings::restore`]); one never named is 42704.
//!
//! [`Settings::show`] is the one owner of what a setting's value is now:
//! `SHOW`, `current_setting` and `set_config`'s result all ask it.

use crate::error::SqlError;
use crate::server_settings::ServerValues;
use folio_db::Isolation;
use folio_row::{DateOrder, DateOutput, DateStyle, TimeZone};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// The server settings of folio-db's default options (a session's before
/// [`Settings::for_database`]).
fn default_server() -> &'static Arc<ServerValues> {
    static DEFAULT: OnceLock<Arc<ServerValues>> = OnceLock::new();
    DEFAULT.get_or_init(|| Arc::new(ServerValues::of(&folio_db::Options::default())))
}

/// The server version clients see: PostgreSQL 15's, whose behaviour folio
/// follows, then folio's own (psql 15 then raises no version warning).
pub const SERVER_VERSION: &str = concat!("15.0 (folio ", env!("CARGO_PKG_VERSION"), ")");

/// PostgreSQL's planner switches (`enable_*`), all on by default. Those
/// naming a plan node folio never builds (bitmap scans, merge joins,
/// parallel plans, ...) are accepted and change nothing, as they would
/// change nothing in PostgreSQL for a plan without such a node.
pub(crate) const PLANNER_SWITCHES: [&str; 20] = [
    "enable_async_append",
    "enable_bitmapscan",
    "enable_gathermerge",
    "enable_hashagg",
    "enable_hashjoin",
    "enable_incremental_sort",
    "enable_indexonlyscan",
    "enable_indexscan",
    "enable_material",
    "enable_memoize",
    "enable_mergejoin",
    "enable_nestloop",
    "enable_parallel_append",
    "enable_parallel_hash",
    "enable_partition_pruning",
    "enable_partitionwise_aggregate",
    "enable_partitionwise_join",
    "enable_seqscan",
    "enable_sort",
    "enable_tidscan",
];

/// The planner switches off by default, as PostgreSQL's.
const OFF_BY_DEFAULT: [&str; 2] = [
    "enable_partitionwise_aggregate",
    "enable_partitionwise_join",
];

/// `plan_cache_mode`'s values.
const PLAN_CACHE_MODES: [&str; 3] = ["auto", "force_generic_plan", "force_custom_plan"];

/// The settings that only report how the server was built
/// (PostgreSQL's "internal" ones): SET and RESET are 55P02.
const PRESET: [&str; 5] = [
    "integer_datetimes",
    "max_identifier_length",
    "server_encoding",
    "server_version",
    "server_version_num",
];

/// 55P02 for a SET or RESET of a setting no session changes.
fn cannot_change(name: &str) -> SqlError {
    let restart = crate::server_settings::find(name).is_some_and(|s| s.context == "postmaster");
    let message = match name {
        _ if restart || name == "max_connections" => {
            format!("parameter \"{name}\" cannot be changed without restarting the server")
        }
        _ => format!("parameter \"{name}\" cannot be changed"),
    };
    SqlError::new("55P02", message)
}

/// A session's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `on`, `off`, `local`, `remote_write`, `remote_apply`: only `off`
    /// commits asynchronously (folio has no standbys yet).
    synchronous_commit: String,
    application_name: String,
    extra_float_digits: i32,
    /// `default_transaction_isolation`, in PostgreSQL's spelling.
    default_isolation: &'static str,
    /// `default_transaction_read_only`.
    default_read_only: bool,
    /// `default_transaction_deferrable`.
    default_deferrable: bool,
    /// The planner switches turned off.
    disabled: Vec<&'static str>,
    /// `statement_timeout` in milliseconds (0: none).
    statement_timeout_ms: u32,
    /// `folio.statement_memory_limit` in kB (0 or -1: none;
    /// `statement_memory.rs`).
    statement_memory_limit_kb: i64,
    /// `search_path`: its schema names as set (`$user` kept), resolved
    /// at plan time (`schemas.rs`).
    search_path: Vec<String>,
    /// The custom settings the session named, by lower-case name.
    custom: BTreeMap<String, String>,
    /// `TimeZone`: how timestamptz values are shown and read.
    time_zone: TimeZone,
    /// `DateStyle`: how dates are written and ambiguous ones read.
    date_style: DateStyle,
    /// `default_text_search_config`: the configuration of the text search
    /// functions called without one (`ts_parse.rs`).
    text_search_config: String,
    /// The server's limit on sessions (`folio serve --max-connections`;
    /// [`Settings::set_max_connections`]), which no SET changes.
    max_connections: u32,
    /// `session_replication_role`: `origin`, `replica` or `local`.
    replication_role: &'static str,
    /// `plan_cache_mode`: `auto`, `force_generic_plan` or
    /// `force_custom_plan`, accepted and shown; folio's prepared
    /// statements always keep one plan made for every execution (a
    /// generic plan), whose partitions are pruned when each execution
    /// starts (README "Partitioned tables").
    plan_cache_mode: &'static str,
    /// The settings of `tunables.rs` not at their defaults, by name as
    /// PostgreSQL spells it, as SHOW prints them.
    tuned: BTreeMap<&'static str, String>,
    /// The database's server settings (`server_settings.rs`).
    server: Arc<ServerValues>,
}

/// The open transaction's level and modes, which `SHOW
/// transaction_isolation`, `transaction_read_only` and
/// `transaction_deferrable` report (without one, the defaults for the
/// next).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenTransaction {
    pub isolation: Isolation,
    pub read_only: bool,
    pub deferrable: bool,
}

impl OpenTransaction {
    /// What `txn` reports (its deferrable mode is the session's to know).
    pub fn of(txn: &folio_db::Transaction, deferrable: bool) -> OpenTransaction {
        OpenTransaction {
            isolation: txn.isolation(),
            read_only: txn.is_read_only(),
            deferrable,
        }
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            synchronous_commit: "on".into(),
            application_name: String::new(),
            extra_float_digits: 1,
            default_isolation: "read committed",
            default_read_only: false,
            default_deferrable: false,
            disabled: OFF_BY_DEFAULT.to_vec(),
            statement_timeout_ms: 0,
            statement_memory_limit_kb: crate::statement_memory::default_kb(),
            search_path: vec!["$user".into(), crate::schemas::PUBLIC.into()],
            custom: BTreeMap::new(),
            time_zone: TimeZone::UTC,
            date_style: DateStyle::ISO_MDY,
            text_search_config: "pg_catalog.english".into(),
            max_connections: 100,
            replication_role: "origin",
            plan_cache_mode: "auto",
            tuned: BTreeMap::new(),
            server: default_server().clone(),
        }
    }
}

/// The isolation levels' names, as `SHOW` spells them.
const LEVELS: [&str; 4] = [
    "serializable",
    "repeatable read",
    "read committed",
    "read uncommitted",
];

/// The level a name of [`LEVELS`] stands for (READ UNCOMMITTED is READ
/// COMMITTED, as in PostgreSQL).
pub fn isolation_named(name: &str) -> Option<Isolation> {
    Some(match name {
        "serializable" => Isolation::Serializable,
        "repeatable read" => Isolation::RepeatableRead,
        "read committed" | "read uncommitted" => Isolation::ReadCommitted,
        _ => return None,
    })
}

/// How `SHOW transaction_isolation` spells `isolation`.
pub fn isolation_name(isolation: Isolation) -> &'static str {
    match isolation {
        Isolation::Serializable => "serializable",
        Isolation::RepeatableRead => "repeatable read",
        Isolation::ReadCommitted => "read committed",
    }
}

/// 42704 for a name that is no setting's.
pub fn unknown(name: &str) -> SqlError {
    SqlError::new(
        "42704",
        format!("unrecognized configuration parameter \"{name}\""),
    )
}

/// The `DateStyle` that `SET DateStyle = value` leaves, `current` before
/// it: a list of at most one output style (`ISO`, `SQL`, `Postgres`,
/// `German`) and at most one field order (`MDY`/`US`/`NonEuro[pean]`,
/// `DMY`/`Euro[pean]`, `YMD`), a word repeated being no conflict, as
/// PostgreSQL's `check_datestyle` reads it. What the value does not name
/// stays as it was, but `German` without an order sets `DMY`.
fn date_style(value: &str, current: DateStyle) -> Result<DateStyle, SqlError> {
    let (mut output, mut order) = (None, None);
    for word in value.split([',', ' ', '\t']).filter(|w| !w.is_empty()) {
        let conflict = match DateOutput::named(word) {
            Some(this) => output.replace(this).is_some_and(|o| o != this),
            None => {
                let this = match word.to_ascii_lowercase().as_str() {
                    "mdy" | "us" | "noneuro" | "noneuropean" => DateOrder::Mdy,
                    "dmy" | "euro" | "european" => DateOrder::Dmy,
                    "ymd" => DateOrder::Ymd,
                    _ => return Err(invalid("DateStyle", value)),
                };
                order.replace(this).is_some_and(|o| o != this)
            }
        };
        if conflict {
            return Err(invalid("DateStyle", value)
                .with_detail("Conflicting \"datestyle\" specifications."));
        }
    }
    let german_order = (output == Some(DateOutput::German)).then_some(DateOrder::Dmy);
    Ok(DateStyle {
        output: output.unwrap_or(current.output),
        order: order.or(german_order).unwrap_or(current.order),
    })
}

fn invalid(name: &str, value: &str) -> SqlError {
    SqlError::new(
        "22023",
        format!("invalid value for parameter \"{name}\": \"{value}\""),
    )
}

/// Whether `name` (lower case) is a custom setting's: dotted, each part
/// a simple identifier (a letter or `_`, then letters, digits, `_`,
/// `$`); a dotted name that is not is 42602, as PostgreSQL's. `false`
/// for a name without a dot (a built-in one's, or unknown).
pub fn is_custom(name: &str) -> Result<bool, SqlError> {
    if !name.contains('.') {
        return Ok(false);
    }
    let simple = |part: &str| {
        let mut chars = part.chars();
        chars
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_' || !c.is_ascii())
            && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '$') || !c.is_ascii())
    };
    if name.split('.').all(simple) {
        return Ok(true);
    }
    Err(SqlError::new(
        "42602",
        format!("invalid configuration parameter name \"{name}\""),
    )
    .with_detail(
        "Custom parameter names must be two or more simple identifiers separated by dots.",
    ))
}

/// The units of a time setting, in milliseconds.
pub(crate) const TIME_UNITS: [(&str, f64); 6] = [
    ("us", 0.001),
    ("ms", 1.0),
    ("s", 1000.0),
    ("min", 60_000.0),
    ("h", 3_600_000.0),
    ("d", 86_400_000.0),
];

/// A time setting's value in milliseconds, as PostgreSQL reads it: a
/// number (milliseconds) or a number and a unit (`1s`, `1.5 min`),
/// rounded; negative or past `i32::MAX` is 22023.
pub(crate) fn milliseconds(name: &str, value: &str) -> Result<u32, SqlError> {
    let (number, unit) = crate::tunables::number_and_unit(value);
    let factor = match unit {
        "" => Some(1.0),
        u => TIME_UNITS.iter().find(|(n, _)| *n == u).map(|(_, f)| *f),
    };
    let hint =
        "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".";
    let (Ok(x), Some(factor)) = (number.parse::<f64>(), factor) else {
        return Err(invalid(name, value).with_hint(hint));
    };
    let ms = (x * factor).round();
    if !(0.0..=f64::from(i32::MAX)).contains(&ms) {
        return Err(SqlError::new(
            "22023",
            format!(
                "{} ms is outside the valid range for parameter \"{name}\" (0 .. {})",
                ms as i64,
                i32::MAX
            ),
        ));
    }
    Ok(ms as u32)
}

/// A time setting as `SHOW` prints it: in the largest unit that holds it
/// whole (`1s`, `1min`, `1500ms`), 0 as `0`.
pub(crate) fn show_milliseconds(ms: u32) -> String {
    if ms == 0 {
        return "0".into();
    }
    let (unit, size) = TIME_UNITS[1..]
        .iter()
        .rev()
        .find(|(_, size)| f64::from(ms) % size == 0.0)
        .expect("every whole millisecond count is whole in ms");
    format!("{}{unit}", f64::from(ms) / size)
}

impl Settings {
    /// The defaults of a session of the database opened with `options`.
    pub fn for_database(options: &folio_db::Options) -> Settings {
        Settings {
            server: Arc::new(ServerValues::of(options)),
            ..Settings::default()
        }
    }

    /// Server setting `name`'s value as SHOW prints it and as
    /// `pg_settings.setting` gives it, if it is one.
    pub fn server_setting(&self, name: &str) -> Option<(&str, &str)> {
        crate::server_settings::find(name).map(|s| self.server.get(s))
    }

    /// `application_name` (what `pg_stat_activity` shows).
    pub fn application_name(&self) -> &str {
        &self.application_name
    }

    /// Whether commits wait for the WAL flush (`synchronous_commit`).
    pub fn synchronous(&self) -> bool {
        self.synchronous_commit != "off"
    }

    /// The isolation level of a transaction that names none
    /// (`default_transaction_isolation`).
    pub fn default_isolation(&self) -> Isolation {
        isolation_named(self.default_isolation).expect("a valid setting")
    }

    /// Whether a transaction that names no access mode is READ ONLY
    /// (`default_transaction_read_only`).
    pub fn default_read_only(&self) -> bool {
        self.default_read_only
    }

    /// Whether a transaction that names no DEFERRABLE mode is DEFERRABLE
    /// (`default_transaction_deferrable`).
    pub fn default_deferrable(&self) -> bool {
        self.default_deferrable
    }

    /// How long a statement may run (`statement_timeout`; `None`: no
    /// limit).
    pub fn statement_timeout(&self) -> Option<std::time::Duration> {
        (self.statement_timeout_ms > 0)
            .then(|| std::time::Duration::from_millis(self.statement_timeout_ms.into()))
    }

    /// How much memory a statement may take, in bytes
    /// (`folio.statement_memory_limit`; `None`: no limit), and the
    /// setting in kB, which its error names.
    pub fn statement_memory_limit(&self) -> (Option<u64>, i64) {
        let kb = self.statement_memory_limit_kb;
        (crate::statement_memory::bytes(kb), kb)
    }

    /// The server's `folio.statement_memory_limit`, in kB (`folio serve
    /// --statement-memory-limit`): what a session starts with and RESET
    /// goes back to.
    pub fn set_statement_memory_limit_kb(&mut self, kb: i64) {
        self.statement_memory_limit_kb = kb;
    }

    /// `TimeZone`: the zone timestamptz values are shown and read in.
    pub fn time_zone(&self) -> &TimeZone {
        &self.time_zone
    }

    /// How values are written as text: `TimeZone`, `IntervalStyle` and
    /// `bytea_output` (tunables, `tunables.rs`), `extra_float_digits`.
    pub fn text_style(&self) -> folio_row::TextStyle {
        let interval = (self.tuned.get("IntervalStyle"))
            .and_then(|v| folio_row::IntervalStyle::named(v))
            .unwrap_or_default();
        folio_row::TextStyle {
            zone: self.time_zone.clone(),
            dates: self.date_style,
            interval,
            extra_float_digits: self.extra_float_digits,
            bytea_escape: self
                .tuned
                .get("bytea_output")
                .is_some_and(|v| v == "escape"),
        }
    }

    /// `DateStyle`'s field order: how dates such as `1/8/1999` are read.
    pub fn date_order(&self) -> DateOrder {
        self.date_style.order
    }

    /// `default_text_search_config`.
    pub fn text_search_config(&self) -> &str {
        &self.text_search_config
    }

    /// The server's limit on sessions, which `SHOW max_connections`
    /// reports (set when a session starts, never by SET).
    pub fn set_max_connections(&mut self, max: u32) {
        self.max_connections = max;
    }

    /// Whether the session replays changes (`session_replication_role =
    /// replica`): then `REPLICA` and `ALWAYS` triggers fire, not `ORIGIN`
    /// ones, and foreign keys are not checked (PostgreSQL's RI triggers
    /// are `ORIGIN` ones).
    pub fn replica(&self) -> bool {
        self.replication_role == "replica"
    }

    /// Whether a notice of `severity` reaches the client
    /// (`client_min_messages`).
    pub fn sends(&self, severity: &str) -> bool {
        match self.tuned.get("client_min_messages") {
            Some(level) => crate::tunables::passes(severity, level),
            None => crate::tunables::passes(severity, "notice"),
        }
    }

    /// Whether planner switch `name` (`enable_seqscan`, ...) is on.
    pub fn enabled(&self, name: &str) -> bool {
        debug_assert!(PLANNER_SWITCHES.contains(&name), "{name}");
        !self.disabled.contains(&name)
    }

    /// Whether Boolean tunable `name` (`tunables.rs`: `row_security`,
    /// `plpgsql.check_asserts`, ...) is on: set, or by default.
    pub fn is_on(&self, name: &str) -> bool {
        let tunable = crate::tunables::find(name).expect("a tunable");
        debug_assert!(matches!(
            tunable.takes,
            crate::tunables::Takes::Bool | crate::tunables::Takes::BoolAt(_)
        ));
        // (A Boolean is stored as SHOW prints it: `Tunable::read`.)
        self.tuned
            .get(tunable.name)
            .map_or(tunable.default, String::as_str)
            == "on"
    }

    /// `SET name = value` (`name` lower case, `value` as written).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SqlError> {
        let lower = value.trim().to_ascii_lowercase();
        if let Some(switch) = PLANNER_SWITCHES.iter().find(|s| **s == name) {
            let on = crate::types::parse_bool(value).ok_or_else(|| {
                SqlError::new(
                    "22023",
                    format!("parameter \"{name}\" requires a Boolean value"),
                )
            })?;
            self.disabled.retain(|s| s != switch);
            if !on {
                self.disabled.push(switch);
            }
            return Ok(());
        }
        if let Some(tunable) = crate::tunables::find(name) {
            let shown = tunable.read(value)?;
            if shown == tunable.default {
                self.tuned.remove(tunable.name);
            } else {
                self.tuned.insert(tunable.name, shown);
            }
            return Ok(());
        }
        match name {
            "synchronous_commit" => {
                self.synchronous_commit = match lower.as_str() {
                    "on" | "true" | "yes" | "1" => "on",
                    "off" | "false" | "no" | "0" => "off",
                    "local" | "remote_write" | "remote_apply" => &lower,
                    _ => return Err(invalid(name, value)),
                }
                .to_string();
            }
            "application_name" => self.application_name = value.to_string(),
            "plan_cache_mode" => {
                self.plan_cache_mode = PLAN_CACHE_MODES
                    .into_iter()
                    .find(|m| *m == lower)
                    .ok_or_else(|| invalid(name, value))?;
            }
            "session_replication_role" => {
                self.replication_role = ["origin", "replica", "local"]
                    .into_iter()
                    .find(|r| *r == lower)
                    .ok_or_else(|| invalid(name, value))?;
            }
            "default_transaction_read_only" | "default_transaction_deferrable" => {
                let on = crate::types::parse_bool(value).ok_or_else(|| {
                    SqlError::new(
                        "22023",
                        format!("parameter \"{name}\" requires a Boolean value"),
                    )
                })?;
                if name == "default_transaction_read_only" {
                    self.default_read_only = on;
                } else {
                    self.default_deferrable = on;
                }
            }
            "default_transaction_isolation" => {
                self.default_isolation = LEVELS
                    .iter()
                    .find(|l| **l == lower)
                    .ok_or_else(|| invalid(name, value))?;
            }
            "extra_float_digits" => {
                self.extra_float_digits = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|d| (-15..=3).contains(d))
                    .ok_or_else(|| invalid(name, value))?;
            }
            "statement_timeout" => self.statement_timeout_ms = milliseconds(name, value)?,
            crate::statement_memory::NAME => {
                self.statement_memory_limit_kb = crate::statement_memory::read(value)?;
            }
            // PostgreSQL 15 keeps the name for old dumps (hidden from SHOW
            // ALL and `pg_settings`): only `off` is taken.
            "default_with_oids" => match crate::types::parse_bool(value) {
                Some(false) => {}
                Some(true) => {
                    return Err(SqlError::new(
                        "0A000",
                        "tables declared WITH OIDS are not supported",
                    ));
                }
                None => {
                    return Err(SqlError::new(
                        "22023",
                        format!("parameter \"{name}\" requires a Boolean value"),
                    ));
                }
            },
            // Waits without a limit are all folio has for these (the
            // server's `lock_timeout` option is the database's): 0, their
            // default, is what it does; any other value is refused.
            "lock_timeout" | "idle_in_transaction_session_timeout" => {
                if milliseconds(name, value)? != 0 {
                    return Err(SqlError::unsupported(format!("{name} = {value}")));
                }
            }
            // Only the values folio works in are accepted.
            "client_encoding" if matches!(lower.as_str(), "utf8" | "utf-8" | "unicode") => {}
            "datestyle" => self.date_style = date_style(value, self.date_style)?,
            "default_text_search_config" => {
                self.text_search_config = crate::ts_config::config_setting(value)?;
            }
            "timezone" => {
                self.time_zone =
                    TimeZone::setting(value).ok_or_else(|| invalid("TimeZone", value))?;
            }
            "search_path" => self.search_path = crate::schemas::parse_search_path(value)?,
            "client_encoding" => {
                return Err(SqlError::unsupported(format!("{name} = {value}")));
            }
            "max_connections" => return Err(cannot_change(name)),
            _ if PRESET.contains(&name) || crate::server_settings::find(name).is_some() => {
                return Err(cannot_change(name));
            }
            _ if is_custom(name)? => {
                self.custom.insert(name.to_string(), value.to_string());
            }
            _ => return Err(unknown(name)),
        }
        Ok(())
    }

    /// Sets `search_path` to `schemas` for a while (CREATE SCHEMA's
    /// elements run with the new schema first: `Session::create_schema`).
    pub fn set_search_path(&mut self, schemas: Vec<String>) {
        self.search_path = schemas;
    }

    /// `search_path`'s schema names, as set.
    pub fn search_path(&self) -> &[String] {
        &self.search_path
    }

    /// Names custom setting `name` (empty until set) if it is one: what a
    /// `SET LOCAL` outside a block leaves, whose value ends at once.
    pub fn name_custom(&mut self, name: &str) -> Result<(), SqlError> {
        if is_custom(name)? {
            self.custom.entry(name.to_string()).or_default();
        }
        Ok(())
    }

    /// Back to `earlier` (a block or savepoint undone, the block's `SET
    /// LOCAL`s ended, RESET ALL): every setting as it was, but a custom
    /// one named since stays named, empty if `earlier` had none
    /// (PostgreSQL's placeholders are not undone).
    pub fn restore(&mut self, earlier: &Settings) {
        let named = std::mem::take(&mut self.custom);
        *self = earlier.clone();
        for name in named.into_keys() {
            self.custom.entry(name).or_default();
        }
    }

    /// `RESET name`; `RESET ALL` is `name = "all"`: back to `default`,
    /// the session's values before any SET (PostgreSQL's "session
    /// default": the server's, or the connection's startup packet's).
    pub fn reset(&mut self, name: &str, default: &Settings) -> Result<(), SqlError> {
        match name {
            "all" => self.restore(default),
            _ if let Some(tunable) = crate::tunables::find(name) => {
                match default.tuned.get(tunable.name) {
                    Some(value) => self.tuned.insert(tunable.name, value.clone()),
                    None => self.tuned.remove(tunable.name),
                };
            }
            _ if PLANNER_SWITCHES.contains(&name) => {
                self.disabled.retain(|s| *s != name);
                self.disabled
                    .extend(default.disabled.iter().filter(|s| **s == name));
            }
            "synchronous_commit" => self.synchronous_commit = default.synchronous_commit.clone(),
            "application_name" => self.application_name = default.application_name.clone(),
            "session_replication_role" => self.replication_role = default.replication_role,
            "plan_cache_mode" => self.plan_cache_mode = default.plan_cache_mode,
            "default_transaction_isolation" => self.default_isolation = default.default_isolation,
            "default_transaction_read_only" => self.default_read_only = default.default_read_only,
            "default_transaction_deferrable" => {
                self.default_deferrable = default.default_deferrable;
            }
            "extra_float_digits" => self.extra_float_digits = default.extra_float_digits,
            "statement_timeout" => self.statement_timeout_ms = default.statement_timeout_ms,
            crate::statement_memory::NAME => {
                self.statement_memory_limit_kb = default.statement_memory_limit_kb;
            }
            "lock_timeout" | "idle_in_transaction_session_timeout" | "default_with_oids" => {}
            "search_path" => self.search_path = default.search_path.clone(),
            "timezone" => self.time_zone = default.time_zone.clone(),
            "client_encoding" => {}
            "datestyle" => self.date_style = default.date_style,
            "default_text_search_config" => {
                self.text_search_config = default.text_search_config.clone();
            }
            "max_connections" => return Err(cannot_change(name)),
            _ if PRESET.contains(&name) || crate::server_settings::find(name).is_some() => {
                return Err(cannot_change(name));
            }
            _ if is_custom(name)? => {
                let value = default.custom.get(name).cloned().unwrap_or_default();
                self.custom.insert(name.to_string(), value);
            }
            _ => return Err(unknown(name)),
        }
        Ok(())
    }

    /// `SHOW name` (lower case): the value as PostgreSQL prints it; the
    /// transaction's level and access mode are `open`'s, if given, else
    /// the defaults.
    pub fn show(&self, name: &str, open: Option<OpenTransaction>) -> Result<String, SqlError> {
        let on_off = |on: bool| (if on { "on" } else { "off" }).to_string();
        Ok(match name {
            "transaction_read_only" => on_off(open.map_or(self.default_read_only, |t| t.read_only)),
            "transaction_deferrable" => {
                on_off(open.map_or(self.default_deferrable, |t| t.deferrable))
            }
            "default_transaction_deferrable" => on_off(self.default_deferrable),
            "transaction_isolation" | "transaction isolation level" => {
                let level = open.map_or(self.default_isolation(), |t| t.isolation);
                isolation_name(level).into()
            }
            _ if PLANNER_SWITCHES.contains(&name) => {
                if self.enabled(name) { "on" } else { "off" }.into()
            }
            "synchronous_commit" => self.synchronous_commit.clone(),
            // (The session keeps it with the roles: `block_roles.rs`.)
            "role" => crate::roles::role_setting(),
            "application_name" => self.application_name.clone(),
            "session_replication_role" => self.replication_role.into(),
            "plan_cache_mode" => self.plan_cache_mode.into(),
            "default_transaction_isolation" => self.default_isolation.into(),
            "default_transaction_read_only" => {
                (if self.default_read_only { "on" } else { "off" }).into()
            }
            "extra_float_digits" => self.extra_float_digits.to_string(),
            "statement_timeout" => show_milliseconds(self.statement_timeout_ms),
            crate::statement_memory::NAME => {
                crate::statement_memory::show(self.statement_memory_limit_kb)
            }
            "lock_timeout" | "idle_in_transaction_session_timeout" => "0".into(),
            "default_with_oids" => "off".into(),
            "client_encoding" | "server_encoding" => "UTF8".into(),
            "datestyle" => self.date_style.show(),
            "default_text_search_config" => self.text_search_config.clone(),
            "timezone" => self.time_zone.name().into(),
            "search_path" => crate::schemas::show_search_path(&self.search_path),
            "server_version" => SERVER_VERSION.into(),
            "server_version_num" => "150000".into(),
            "integer_datetimes" => "on".into(),
            "max_identifier_length" => "63".into(),
            "max_connections" => self.max_connections.to_string(),
            _ if let Some((shown, _)) = self.server_setting(name) => shown.to_string(),
            _ if let Some(tunable) = crate::tunables::find(name) => (self.tuned.get(tunable.name))
                .map_or(tunable.default, String::as_str)
                .to_string(),
            _ => match self.custom.get(name) {
                Some(value) => value.clone(),
                None => return Err(unknown(name)),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves SET/SHOW/RESET as PostgreSQL 15 answers them for the
    // settings folio honours, and the refusals.
    #[test]
    fn set_show_reset() {
        let mut s = Settings::default();
        assert!(s.synchronous());
        s.set("synchronous_commit", "OFF").unwrap();
        assert_eq!(s.show("synchronous_commit", None).unwrap(), "off");
        assert!(!s.synchronous());
        s.set("synchronous_commit", "local").unwrap();
        assert!(s.synchronous());
        assert_eq!(
            s.set("synchronous_commit", "maybe").unwrap_err().code,
            "22023"
        );
        s.reset("synchronous_commit", &Settings::default()).unwrap();
        assert_eq!(s.show("synchronous_commit", None).unwrap(), "on");
        s.set("application_name", "pgbench").unwrap();
        s.set("timezone", "europe/paris").unwrap();
        assert_eq!(s.show("timezone", None).unwrap(), "Europe/Paris");
        let e = s.set("timezone", "PST").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("22023", "invalid value for parameter \"TimeZone\": \"PST\"")
        );
        s.reset("timezone", &Settings::default()).unwrap();
        assert_eq!(s.show("timezone", None).unwrap(), "UTC");
        assert_eq!(s.set("nosuch", "1").unwrap_err().code, "42704");
        assert_eq!(s.show("nosuch", None).unwrap_err().code, "42704");
        s.set("default_with_oids", "f").unwrap();
        assert_eq!(s.show("default_with_oids", None).unwrap(), "off");
        assert_eq!(s.set("default_with_oids", "t").unwrap_err().code, "0A000");
        s.set("default_transaction_isolation", "SERIALIZABLE")
            .unwrap();
        assert_eq!(
            s.show("default_transaction_isolation", None).unwrap(),
            "serializable"
        );
        assert_eq!(s.default_isolation(), Isolation::Serializable);
        assert_eq!(
            s.set("default_transaction_isolation", "snapshot")
                .unwrap_err()
                .code,
            "22023"
        );
        s.set("enable_seqscan", "off").unwrap();
        assert!(!s.enabled("enable_seqscan"));
        assert_eq!(s.show("enable_seqscan", None).unwrap(), "off");
        assert_eq!(s.set("enable_sort", "maybe").unwrap_err().code, "22023");
        s.reset("all", &Settings::default()).unwrap();
        assert_eq!(s, Settings::default());
        assert!(s.enabled("enable_seqscan"));
        // Back to the session's own defaults (its startup settings).
        let mut startup = Settings::default();
        startup.set("synchronous_commit", "off").unwrap();
        startup.set("enable_seqscan", "off").unwrap();
        let mut s = startup.clone();
        s.set("synchronous_commit", "on").unwrap();
        s.set("enable_seqscan", "on").unwrap();
        s.reset("synchronous_commit", &startup).unwrap();
        s.reset("enable_seqscan", &startup).unwrap();
        assert_eq!(s, startup);
        s.set("application_name", "x").unwrap();
        s.reset("all", &startup).unwrap();
        assert_eq!(s, startup);
        assert!(
            s.show("server_version", None)
                .unwrap()
                .starts_with("15.0 (folio ")
        );
    }

    // Proves custom settings as PostgreSQL 15 keeps them: any text under
    // a dotted name, 42704 until named, 42602 for a name that is not
    // simple identifiers, and named for good once named (an undone SET
    // or a RESET leaves an empty text).
    #[test]
    fn custom_settings() {
        let mut s = Settings::default();
        assert_eq!(s.show("app.x", None).unwrap_err().code, "42704");
        assert_eq!(s.set("app.x y", "1").unwrap_err().code, "42602");
        assert_eq!(s.set("app..x", "1").unwrap_err().code, "42602");
        assert_eq!(s.set("appx", "1").unwrap_err().code, "42704");
        let before = s.clone();
        s.set("app.x", "Hello World").unwrap();
        s.set("a.b.c_$1", "2").unwrap();
        assert_eq!(s.show("app.x", None).unwrap(), "Hello World");
        s.restore(&before);
        assert_eq!(s.show("app.x", None).unwrap(), "");
        assert_eq!(s.show("a.b.c_$1", None).unwrap(), "");
        let mut startup = Settings::default();
        startup.set("app.y", "boot").unwrap();
        s.set("app.y", "now").unwrap();
        s.reset("app.y", &startup).unwrap();
        assert_eq!(s.show("app.y", None).unwrap(), "boot");
        s.reset("app.z", &startup).unwrap();
        assert_eq!(s.show("app.z", None).unwrap(), "");
        s.reset("all", &Settings::default()).unwrap();
        assert_eq!(s.show("app.y", None).unwrap(), "");
    }
}
