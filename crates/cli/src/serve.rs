//! `folio serve [DIR]`: the PostgreSQL wire protocol on a database
//! directory, created on first start.

use anyhow::Context;
use clap::Args;
use folio_db::{Database, Options};
use folio_server::{Server, ServerConfig};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The database directory (created with a new database if absent).
    #[arg(default_value = "folio-data")]
    dir: PathBuf,
    /// Address to listen on (loopback only by default).
    #[arg(long, default_value = "127.0.0.1:5432")]
    listen: SocketAddr,
    /// Most clients served at once; more get PostgreSQL's 53300.
    #[arg(long, default_value_t = 100)]
    max_connections: usize,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let db = if args.dir.exists() {
        Database::open(&args.dir, Options::default())
            .with_context(|| format!("opening {}", args.dir.display()))?
    } else {
        eprintln!("folio: creating a database in {}", args.dir.display());
        Database::create(&args.dir, Options::default())
            .with_context(|| format!("creating {}", args.dir.display()))?
    };
    let config = ServerConfig {
        listen: args.listen,
        max_connections: args.max_connections,
    };
    let db = Arc::new(db);
    let server = Server::start(db.clone(), &config)
        .with_context(|| format!("listening on {}", args.listen))?;
    eprintln!(
        "folio: serving {} on {} (PostgreSQL protocol 3.0, user and database \"postgres\")",
        args.dir.display(),
        server.addr()
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
    eprintln!("folio: checkpoint done, stopped");
    std::process::exit(0);
}
