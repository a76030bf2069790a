//! The settings both servers run with, and how each server is told them:
//! PostgreSQL by `initdb` flags and `postgres -c name=value`, folio by
//! `folio serve` flags of the same names.

use crate::Row;

/// Server settings shared by folio and PostgreSQL in one measurement.
/// The WAL settings and `checkpoint_timeout` are PostgreSQL 15's
/// defaults, spelled out so both servers get the same ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// `shared_buffers` (folio: the buffer pool).
    pub shared_buffers_bytes: u64,
    /// Data checksums, fixed at creation (`initdb -k`, `folio serve
    /// --data-checksums`).
    pub checksums: bool,
    /// `synchronous_commit`: on means durable commits on both.
    pub synchronous_commit: bool,
    pub max_connections: usize,
    pub max_wal_size_bytes: u64,
    pub min_wal_size_bytes: u64,
    pub checkpoint_timeout_s: u64,
    /// `wal_recycle` (folio's default is `auto`; PostgreSQL's `on`).
    pub wal_recycle: bool,
    pub wal_init_zero: bool,
}

const MB: u64 = 1 << 20;

impl Settings {
    /// Durable commits, PostgreSQL's default WAL sizes and checkpoint
    /// interval, room for 256 pgbench clients.
    pub fn new(shared_buffers_bytes: u64, checksums: bool) -> Settings {
        Settings {
            shared_buffers_bytes,
            checksums,
            synchronous_commit: true,
            max_connections: 300,
            max_wal_size_bytes: 1024 * MB,
            min_wal_size_bytes: 80 * MB,
            checkpoint_timeout_s: 300,
            wal_recycle: true,
            wal_init_zero: true,
        }
    }

    /// `initdb` flags beyond the data directory.
    pub fn initdb_args(&self) -> Vec<String> {
        let mut args: Vec<String> = ["-A", "trust", "-U", "postgres", "-E", "UTF8"]
            .map(String::from)
            .to_vec();
        args.push("--locale=C".into());
        // The cluster is temporary: initdb need not fsync what it writes.
        args.push("--no-sync".into());
        if self.checksums {
            args.push("--data-checksums".into());
        }
        args
    }

    /// `postgres` flags beyond the data directory, port and socket
    /// directory: one `-c name=value` per setting.
    pub fn postgres_args(&self) -> Vec<String> {
        let settings = [
            ("listen_addresses", "127.0.0.1".to_string()),
            ("shared_buffers", pg_size(self.shared_buffers_bytes)),
            ("synchronous_commit", on_off(self.synchronous_commit).into()),
            ("max_connections", self.max_connections.to_string()),
            ("max_wal_size", pg_size(self.max_wal_size_bytes)),
            ("min_wal_size", pg_size(self.min_wal_size_bytes)),
            (
                "checkpoint_timeout",
                format!("{}s", self.checkpoint_timeout_s),
            ),
            ("wal_recycle", on_off(self.wal_recycle).into()),
            ("wal_init_zero", on_off(self.wal_init_zero).into()),
        ];
        settings
            .into_iter()
            .flat_map(|(name, value)| ["-c".to_string(), format!("{name}={value}")])
            .collect()
    }

    /// `folio serve` flags beyond the directory and `--listen`.
    pub fn folio_args(&self) -> Vec<String> {
        let mut args = vec![
            "--shared-buffers".to_string(),
            pg_size(self.shared_buffers_bytes),
            "--synchronous-commit".into(),
            on_off(self.synchronous_commit).into(),
            "--max-connections".into(),
            self.max_connections.to_string(),
            "--max-wal-size".into(),
            pg_size(self.max_wal_size_bytes),
            "--min-wal-size".into(),
            pg_size(self.min_wal_size_bytes),
            "--checkpoint-timeout".into(),
            format!("{}s", self.checkpoint_timeout_s),
            "--wal-recycle".into(),
            on_off(self.wal_recycle).into(),
            "--wal-init-zero".into(),
            on_off(self.wal_init_zero).into(),
        ];
        args.push(if self.checksums {
            "--data-checksums".into()
        } else {
            "--no-data-checksums".into()
        });
        args
    }

    /// The settings a JSON row carries.
    pub fn describe(&self, row: Row) -> Row {
        row.with("checksums", self.checksums)
            .with("shared_buffers", pg_size(self.shared_buffers_bytes))
    }
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// A size as PostgreSQL writes it: whole MB (1024-based), else kB.
pub fn pg_size(bytes: u64) -> String {
    if bytes.is_multiple_of(MB) {
        format!("{}MB", bytes / MB)
    } else {
        format!("{}kB", bytes.div_ceil(1024))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves both servers are told the same settings, each in its own
    // spelling, and the sizes read back as PostgreSQL writes them.
    #[test]
    fn both_command_lines_carry_the_same_settings() {
        let settings = Settings::new(128 * MB, true);
        let pg = settings.postgres_args().join(" ");
        assert_eq!(
            pg,
            "-c listen_addresses=127.0.0.1 -c shared_buffers=128MB -c synchronous_commit=on \
             -c max_connections=300 -c max_wal_size=1024MB -c min_wal_size=80MB \
             -c checkpoint_timeout=300s -c wal_recycle=on -c wal_init_zero=on"
        );
        let folio = settings.folio_args().join(" ");
        assert_eq!(
            folio,
            "--shared-buffers 128MB --synchronous-commit on --max-connections 300 \
             --max-wal-size 1024MB --min-wal-size 80MB --checkpoint-timeout 300s \
             --wal-recycle on --wal-init-zero on --data-checksums"
        );
        assert!(settings.initdb_args().contains(&"--data-checksums".into()));
        let off = Settings::new(16 * MB, false);
        assert!(!off.initdb_args().contains(&"--data-checksums".into()));
        assert!(off.folio_args().contains(&"--no-data-checksums".into()));
        assert_eq!(pg_size(1536 << 10), "1536kB");
    }
}
