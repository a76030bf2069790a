//! `folio serve [DIR]`: the PostgreSQL wire protocol on a database
//! directory, created on first start; server settings with PostgreSQL's
//! names (`--shared-buffers 128MB`, `--synchronous-commit off`, ...).

use crate::bench::parse_on_off;
use anyhow::Context;
use clap::Args;
use folio_db::{Database, Options};
use folio_server::{Auth, Execution, Server, ServerConfig, default_unix_socket_directory};
use folio_wal::Recycle;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The database directory (created with a new database if absent).
    #[arg(default_value = "folio-data")]
    dir: PathBuf,
    /// Address to listen on (loopback only by default).
    #[arg(long, default_value = "127.0.0.1:5432")]
    listen: SocketAddr,
    /// Directories for the Unix-domain socket `.s.PGSQL.PORT` (PORT from
    /// --listen), comma-separated, as PostgreSQL's
    /// unix_socket_directories; "" for none. Default: /var/run/postgresql
    /// (where psql looks when given no host) if it exists and is
    /// writable, else /tmp.
    #[arg(long)]
    unix_socket_directories: Option<String>,
    /// Most clients served at once; more get PostgreSQL's 53300.
    #[arg(long, default_value_t = 100)]
    max_connections: usize,
    /// `folio.statement_memory_limit` of every session until it sets its
    /// own: a statement that grows past it fails with 53200 (out of
    /// memory), e.g. 4GB; 0 or -1 for none. Default: half of the memory
    /// this process may have (the machine's, or its cgroup's limit).
    #[arg(long, value_name = "SIZE", value_parser = parse_statement_memory_limit, allow_hyphen_values = true)]
    statement_memory_limit: Option<i64>,
    /// Where sessions run: `pool` (one worker thread per core polling
    /// every connection, the first few connections on threads of their
    /// own) or `thread` (a thread per connection, blocking I/O).
    #[arg(long, default_value = "pool", value_parser = parse_execution)]
    execution: Execution,
    /// How clients authenticate: `trust` (any existing role, the
    /// default on loopback) or `scram-sha-256` (the role's password, set
    /// with `ALTER ROLE postgres PASSWORD '...'`).
    #[arg(long, default_value = "trust", value_parser = parse_auth)]
    auth: Auth,
    #[command(flatten)]
    settings: ServerSettings,
    #[command(flatten)]
    creation: CreationSettings,
}

/// Settings fixed when a database is created (`initdb`'s), shared by
/// `folio init` and `folio serve` (which creates DIR on first start).
/// Checksums are on by default, as in PostgreSQL 18's `initdb`, whose
/// flags these are.
#[derive(Debug, Args)]
pub struct CreationSettings {
    /// Data checksums on (folio's default).
    #[arg(long, conflicts_with = "no_data_checksums")]
    data_checksums: bool,
    /// Data checksums off. Fixed when the database is created.
    #[arg(long)]
    no_data_checksums: bool,
}

impl CreationSettings {
    /// Whether either flag was given.
    fn given(&self) -> bool {
        self.data_checksums || self.no_data_checksums
    }

    pub fn apply(&self, options: &mut Options) {
        if self.data_checksums {
            options.checksums = true;
        }
        if self.no_data_checksums {
            options.checksums = false;
        }
    }
}

/// Server settings with PostgreSQL's names and units; each left out keeps
/// `folio_db::Options::default()`.
#[derive(Debug, Args)]
pub struct ServerSettings {
    /// `shared_buffers`: memory for cached pages, e.g. 128MB (kB, MB, GB
    /// are 1024-based as in PostgreSQL; a plain number is bytes).
    #[arg(long, value_parser = parse_pg_size)]
    shared_buffers: Option<u64>,
    /// `synchronous_commit`: on (a commit returns once its record is
    /// durable) or off (it returns at once; the WAL is flushed in the
    /// background).
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    synchronous_commit: Option<bool>,
    /// `max_wal_size`: WAL since the last checkpoint past which one is
    /// requested (a checkpoint starts at half of it, as folio's default).
    #[arg(long, value_parser = parse_pg_size)]
    max_wal_size: Option<u64>,
    /// `min_wal_size`: WAL kept for recycling.
    #[arg(long, value_parser = parse_pg_size)]
    min_wal_size: Option<u64>,
    /// `checkpoint_timeout`, e.g. 5min or 300s (a plain number is seconds).
    #[arg(long, value_parser = parse_pg_duration)]
    checkpoint_timeout: Option<Duration>,
    /// `wal_recycle`: on, off or auto (measure both and pick the cheaper).
    #[arg(long, value_name = "on|off|auto", value_parser = parse_recycle)]
    wal_recycle: Option<Recycle>,
    /// `wal_init_zero`: zero-fill new WAL segments.
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    wal_init_zero: Option<bool>,
    /// `max_prepared_transactions`: how many transactions may be prepared
    /// for two-phase commit at once (`PREPARE TRANSACTION`); 0, the
    /// default as in PostgreSQL, disables it.
    #[arg(long)]
    max_prepared_transactions: Option<usize>,
    /// The largest the data file may grow (folio has no PostgreSQL name
    /// for it): the buffer pool reserves this much address space at start,
    /// 64GB by default. Lower it where virtual memory is limited
    /// (`ulimit -v`, valgrind).
    #[arg(long, value_parser = parse_pg_size)]
    max_database_size: Option<u64>,
}

impl ServerSettings {
    pub fn apply(&self, options: &mut Options) {
        if let Some(bytes) = self.shared_buffers {
            options.pool_size_bytes = bytes;
        }
        if let Some(on) = self.synchronous_commit {
            options.synchronous_commit = on;
        }
        if let Some(bytes) = self.max_wal_size {
            options.max_wal_size_bytes = bytes;
            options.checkpoint_wal_bytes = bytes / 2;
        }
        if let Some(bytes) = self.min_wal_size {
            options.min_wal_size_bytes = bytes;
        }
        if let Some(interval) = self.checkpoint_timeout {
            options.checkpoint_interval = interval;
        }
        if let Some(recycle) = self.wal_recycle {
            options.wal_recycle = recycle;
        }
        if let Some(on) = self.wal_init_zero {
            options.wal_init_zero = on;
        }
        if let Some(bytes) = self.max_database_size {
            options.max_database_bytes = bytes;
        }
        if let Some(n) = self.max_prepared_transactions {
            options.max_prepared_transactions = n;
        }
    }
}

/// A size as PostgreSQL writes it: `128MB`, `1GB`, `64kB` (1024-based).
pub fn parse_pg_size(text: &str) -> Result<u64, String> {
    let bytes = parse_size::Config::new()
        .with_binary()
        .parse_size(text)
        .map_err(|e| format!("{text:?}: {e}"))?;
    if bytes == 0 {
        return Err(format!("{text:?} must be above zero"));
    }
    Ok(bytes)
}

/// `--statement-memory-limit`, in kB: a size as PostgreSQL writes it
/// ([`parse_pg_size`]), or 0 or -1 for no limit.
fn parse_statement_memory_limit(text: &str) -> Result<i64, String> {
    match text.trim() {
        "0" => Ok(0),
        "-1" => Ok(-1),
        _ => {
            let kb = parse_pg_size(text)?.div_ceil(1024);
            i64::try_from(kb).map_err(|_| format!("{text:?} is too large"))
        }
    }
}

/// A duration as PostgreSQL writes it (`5min`, `30s`, `1h`); a plain
/// number is seconds, PostgreSQL's unit for `checkpoint_timeout`.
fn parse_pg_duration(text: &str) -> Result<Duration, String> {
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    humantime::parse_duration(text).map_err(|e| format!("{text:?}: {e}"))
}

fn parse_recycle(text: &str) -> Result<Recycle, String> {
    match text {
        "on" | "true" => Ok(Recycle::On),
        "off" | "false" => Ok(Recycle::Off),
        "auto" => Ok(Recycle::Auto),
        _ => Err(format!("expected on, off or auto, got {text:?}")),
    }
}

fn parse_auth(s: &str) -> Result<Auth, String> {
    match s {
        "trust" => Ok(Auth::Trust),
        "scram-sha-256" => Ok(Auth::ScramSha256),
        other => Err(format!("{other}: expected trust or scram-sha-256")),
    }
}

fn parse_execution(s: &str) -> Result<Execution, String> {
    match s {
        "thread" => Ok(Execution::Thread),
        "pool" => Ok(Execution::default()),
        other => Err(format!("{other}: expected pool or thread")),
    }
}

/// `--unix-socket-directories`: a comma-separated list ("" for none), or
/// the default directory.
fn unix_socket_directories(given: Option<&str>) -> Vec<PathBuf> {
    match given {
        None => vec![default_unix_socket_directory()],
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .collect(),
    }
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let mut options = Options::default();
    args.settings.apply(&mut options);
    let db = if args.dir.exists() {
        if args.creation.given() {
            eprintln!(
                "folio: --data-checksums/--no-data-checksums ignored: {} exists (checksums are fixed at creation)",
                args.dir.display()
            );
        }
        Database::open(&args.dir, options)
            .with_context(|| format!("opening {}", args.dir.display()))?
    } else {
        args.creation.apply(&mut options);
        eprintln!("folio: creating a database in {}", args.dir.display());
        Database::create(&args.dir, options)
            .with_context(|| format!("creating {}", args.dir.display()))?
    };
    if let Some(stats) = db.recovery_stats() {
        // `folio bench pgbench` reads this line after a kill -9 (seed 001):
        // what recovery replayed, in the units folio's WAL counts.
        eprintln!(
            "folio: recovery replayed {} records, {} bytes of WAL from {} to {} in {:.3} s",
            stats.records,
            stats.bytes,
            stats.start_lsn,
            stats.end_lsn,
            stats.elapsed.as_secs_f64()
        );
    }
    let config = ServerConfig {
        listen: args.listen,
        unix_socket_directories: unix_socket_directories(args.unix_socket_directories.as_deref()),
        max_connections: args.max_connections,
        execution: args.execution,
        auth: args.auth,
        statement_memory_limit_kb: args.statement_memory_limit,
    };
    let db = Arc::new(db);
    let server = Server::start(db.clone(), &config)
        .with_context(|| format!("listening on {}", args.listen))?;
    let mut on = server.addr().to_string();
    for socket in server.unix_sockets() {
        on.push_str(&format!(" and {}", socket.display()));
    }
    eprintln!(
        "folio: serving {} on {on} (PostgreSQL protocol 3.0, user and database \"postgres\")",
        args.dir.display(),
    );
    // Until SIGINT or SIGTERM: then no new connections, a checkpoint (so
    // the next start replays nothing), and exit. Every commit was durable
    // before it was acknowledged; transactions still open are lost, as
    // they would be in PostgreSQL's fast shutdown.
    let mut signals = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
    ])
    .context("installing the signal handlers")?;
    if let Some(signal) = signals.forever().next() {
        eprintln!("folio: signal {signal}: shutting down");
    }
    server.stop();
    db.checkpoint().context("the shutdown checkpoint")?;
    // The tables' all-visible bits and pages with room, for index-only
    // scans and inserts after a restart.
    db.save_maps();
    // Unlogged tables are kept through a clean stop (not through a crash).
    db.seal_unlogged()
        .context("writing out the unlogged tables")?;
    eprintln!("folio: checkpoint done, stopped");
    std::process::exit(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves sizes read as PostgreSQL's (1024-based units, case as written
    // in postgresql.conf) and durations take PostgreSQL's plain seconds.
    #[test]
    fn settings_parse_as_postgresql_writes_them() {
        assert_eq!(parse_pg_size("128MB"), Ok(128 << 20));
        assert_eq!(parse_pg_size("64kB"), Ok(64 << 10));
        assert_eq!(parse_pg_size("1GB"), Ok(1 << 30));
        assert_eq!(parse_pg_size("4096"), Ok(4096));
        assert!(parse_pg_size("0").is_err());
        assert!(parse_pg_size("lots").is_err());
        assert_eq!(parse_pg_duration("300"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_pg_duration("5min"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_pg_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_recycle("auto"), Ok(Recycle::Auto));
        assert!(parse_recycle("sometimes").is_err());
    }

    // Proves each setting lands in the Options field of its name and the
    // ones left out keep the defaults.
    #[test]
    fn settings_map_onto_options() {
        let settings = ServerSettings {
            shared_buffers: Some(128 << 20),
            synchronous_commit: Some(false),
            max_wal_size: Some(1 << 30),
            min_wal_size: None,
            checkpoint_timeout: Some(Duration::from_secs(60)),
            wal_recycle: Some(Recycle::Off),
            wal_init_zero: Some(false),
            max_database_size: Some(4 << 30),
            max_prepared_transactions: Some(10),
        };
        let mut options = Options::default();
        settings.apply(&mut options);
        let defaults = Options::default();
        assert_eq!(options.max_prepared_transactions, 10);
        assert_eq!(defaults.max_prepared_transactions, 0);
        assert_eq!(options.pool_size_bytes, 128 << 20);
        assert!(!options.synchronous_commit);
        assert_eq!(options.max_wal_size_bytes, 1 << 30);
        assert_eq!(options.checkpoint_wal_bytes, 1 << 29);
        assert_eq!(options.min_wal_size_bytes, defaults.min_wal_size_bytes);
        assert_eq!(options.checkpoint_interval, Duration::from_secs(60));
        assert_eq!(options.max_database_bytes, 4 << 30);
        assert_eq!(options.wal_recycle, Recycle::Off);
        assert!(!options.wal_init_zero);
        assert_eq!(options.checksums, defaults.checksums);
    }
}
