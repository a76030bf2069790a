//! The server's settings, which a session shows but never changes: the
//! database's options (`folio serve`'s flags, folio-db `Options`) under
//! PostgreSQL's names, so `SHOW shared_buffers`, `current_setting` and
//! `pg_settings` report what the server runs with. SET and RESET of one
//! are PostgreSQL's 55P02 (`settings.rs` `cannot_change`): folio reads
//! them when the database opens (PostgreSQL's `postmaster` context), and
//! those fixed when it was made are `internal`.
//!
//! [`SERVER`] is the one owner of these names and their forms;
//! `Settings` keeps the values of its database ([`ServerValues`]) and
//! `settings_list.rs` lists them.

use crate::tunables::show_memory;
use folio_db::{Options, Recycle};

/// A server setting, with what `pg_settings` says of it.
#[derive(Debug)]
pub struct ServerSetting {
    /// As PostgreSQL spells it.
    pub name: &'static str,
    pub category: &'static str,
    pub short_desc: &'static str,
    /// `postmaster` (read at start) or `internal` (fixed at creation).
    pub context: &'static str,
    pub vartype: &'static str,
    pub unit: Option<&'static str>,
    /// The value as SHOW prints it, and as `pg_settings.setting` gives
    /// it (in `unit`).
    value: fn(&Options) -> (String, String),
}

fn on_off(on: bool) -> (String, String) {
    let text = if on { "on" } else { "off" };
    (text.into(), text.into())
}

/// `bytes` in `unit_bytes` units, shown in the largest whole unit.
fn size(bytes: u64, unit_bytes: u64) -> (String, String) {
    (
        show_memory((bytes / 1024) as i64),
        (bytes / unit_bytes).to_string(),
    )
}

fn time(ms: u128, unit_ms: u128) -> (String, String) {
    let shown = crate::settings::show_milliseconds(u32::try_from(ms).unwrap_or(u32::MAX));
    (shown, (ms / unit_ms).to_string())
}

const WAL: &str = "Write-Ahead Log / Settings";
const CHECKPOINTS: &str = "Write-Ahead Log / Checkpoints";
const PRESET: &str = "Preset Options";

/// The server settings, in PostgreSQL's order (by name, case-blind).
pub const SERVER: &[ServerSetting] = &[
    ServerSetting {
        name: "autovacuum",
        category: "Autovacuum",
        short_desc: "Starts the autovacuum subprocess.",
        context: "postmaster",
        vartype: "bool",
        unit: None,
        value: |o| on_off(o.autovacuum),
    },
    ServerSetting {
        name: "block_size",
        category: PRESET,
        short_desc: "Shows the size of a disk block.",
        context: "internal",
        vartype: "integer",
        unit: None,
        value: |_| ("8192".into(), "8192".into()),
    },
    ServerSetting {
        name: "checkpoint_timeout",
        category: CHECKPOINTS,
        short_desc: "Sets the maximum time between automatic WAL checkpoints.",
        context: "postmaster",
        vartype: "integer",
        unit: Some("s"),
        value: |o| time(o.checkpoint_interval.as_millis(), 1000),
    },
    ServerSetting {
        name: "data_checksums",
        category: PRESET,
        short_desc: "Shows whether data checksums are turned on for this cluster.",
        context: "internal",
        vartype: "bool",
        unit: None,
        value: |o| on_off(o.checksums),
    },
    ServerSetting {
        name: "deadlock_timeout",
        category: "Lock Management",
        short_desc: "Sets the time to wait on a lock before checking for deadlock.",
        context: "postmaster",
        vartype: "integer",
        unit: Some("ms"),
        value: |o| time(o.deadlock_timeout.as_millis(), 1),
    },
    ServerSetting {
        name: "max_prepared_transactions",
        category: "Resource Usage / Memory",
        short_desc: "Sets the maximum number of simultaneously prepared transactions.",
        context: "postmaster",
        vartype: "integer",
        unit: None,
        value: |o| {
            let n = o.max_prepared_transactions.to_string();
            (n.clone(), n)
        },
    },
    ServerSetting {
        name: "max_wal_size",
        category: CHECKPOINTS,
        short_desc: "Sets the WAL size that triggers a checkpoint.",
        context: "postmaster",
        vartype: "integer",
        unit: Some("MB"),
        value: |o| size(o.max_wal_size_bytes, 1 << 20),
    },
    ServerSetting {
        name: "min_wal_size",
        category: CHECKPOINTS,
        short_desc: "Sets the minimum size to shrink the WAL to.",
        context: "postmaster",
        vartype: "integer",
        unit: Some("MB"),
        value: |o| size(o.min_wal_size_bytes, 1 << 20),
    },
    ServerSetting {
        name: "recovery_prefetch",
        category: "Write-Ahead Log / Recovery",
        short_desc: "Prefetch referenced blocks during recovery.",
        context: "postmaster",
        vartype: "enum",
        unit: None,
        value: |o| on_off(o.recovery_io_concurrency > 0),
    },
    ServerSetting {
        name: "shared_buffers",
        category: "Resource Usage / Memory",
        short_desc: "Sets the number of shared memory buffers used by the server.",
        context: "postmaster",
        vartype: "integer",
        unit: Some("8kB"),
        value: |o| size(o.pool_size_bytes, 8192),
    },
    ServerSetting {
        name: "wal_buffers",
        category: WAL,
        short_desc: "Sets the number of disk-page buffers in shared memory for WAL.",
        context: "postmaster",
        vartype: "integer",
        unit: Some("8kB"),
        value: |o| size(o.wal_buffer_pages as u64 * 8192, 8192),
    },
    ServerSetting {
        name: "wal_init_zero",
        category: WAL,
        short_desc: "Writes zeroes to new WAL files before first use.",
        context: "postmaster",
        vartype: "bool",
        unit: None,
        value: |o| on_off(o.wal_init_zero),
    },
    // folio's third value, `auto`, measures both and picks the cheaper
    // (folio-wal `policy.rs`).
    ServerSetting {
        name: "wal_recycle",
        category: WAL,
        short_desc: "Recycles WAL files by renaming them.",
        context: "postmaster",
        vartype: "enum",
        unit: None,
        value: |o| match o.wal_recycle {
            Recycle::On => on_off(true),
            Recycle::Off => on_off(false),
            Recycle::Auto => ("auto".into(), "auto".into()),
        },
    },
    ServerSetting {
        name: "wal_segment_size",
        category: PRESET,
        short_desc: "Shows the size of write ahead log segments.",
        context: "internal",
        vartype: "integer",
        unit: Some("B"),
        value: |o| size(o.wal_segment_size_bytes, 1),
    },
];

/// The setting called `name` (lower case), if it is the server's.
pub fn find(name: &str) -> Option<&'static ServerSetting> {
    SERVER.iter().find(|s| s.name == name)
}

/// One database's server settings as SHOW prints them and as
/// `pg_settings.setting` gives them, in [`SERVER`]'s order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerValues(Vec<(String, String)>);

impl ServerValues {
    pub fn of(options: &Options) -> ServerValues {
        ServerValues(SERVER.iter().map(|s| (s.value)(options)).collect())
    }

    /// The values of `setting` (one of [`SERVER`]): shown, and in its unit.
    pub fn get(&self, setting: &ServerSetting) -> (&str, &str) {
        let at = (SERVER.iter())
            .position(|s| s.name == setting.name)
            .expect("one of SERVER");
        let (shown, raw) = &self.0[at];
        (shown, raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the defaults read as PostgreSQL prints such values.
    #[test]
    fn options_show_in_postgresql_form() {
        let options = Options {
            pool_size_bytes: 128 << 20,
            checkpoint_interval: std::time::Duration::from_secs(300),
            ..Options::default()
        };
        let values = ServerValues::of(&options);
        assert_eq!(
            values.get(find("shared_buffers").unwrap()),
            ("128MB", "16384")
        );
        assert_eq!(
            values.get(find("checkpoint_timeout").unwrap()),
            ("5min", "300")
        );
        let names: Vec<&str> = SERVER.iter().map(|s| s.name).collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
    }
}
