//! A client's runaway statement fails with 53200 `out of memory` at the
//! server's `folio.statement_memory_limit` (`ServerConfig`), while
//! another client's statements run on: the limit is each statement's,
//! counted on the thread that runs it. This test binary installs the
//! counting allocator, as the `folio` binary does.

use folio_server::{Execution, ServerConfig};
use std::alloc::System;

mod common;

#[global_allocator]
static COUNTING: folio_memory::Counting<System> = folio_memory::Counting(System);

fn sqlstate(e: &tokio_postgres::Error) -> String {
    e.code().map(|c| c.code().to_string()).unwrap_or_default()
}

// Proves, on a thread per connection and on the pool's workers, that the
// server's limit is the sessions' default, that a statement past it
// fails with 53200 and its DETAIL while a second client's statement
// runs meanwhile and succeeds, and that both sessions then go on.
#[tokio::test(flavor = "current_thread")]
async fn a_runaway_statement_fails_alone() {
    let pool = Execution::Pool {
        workers: 2,
        own_threads: Some(0),
    };
    for execution in [Execution::Thread, pool] {
        let (_dir, server) = common::start(&ServerConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            max_connections: 8,
            execution,
            statement_memory_limit_kb: Some(32 * 1024),
            ..ServerConfig::default()
        });
        let server = server.unwrap();
        let runaway = common::connect_tcp(&server).await;
        let other = common::connect_tcp(&server).await;
        let shown = runaway
            .query_one("show folio.statement_memory_limit", &[])
            .await
            .unwrap();
        assert_eq!(shown.get::<_, String>(0), "32MB");
        let (failed, fine) = tokio::join!(
            runaway.query_one(
                "select array_length(array_agg(i), 1) from generate_series(1, 50000000) i",
                &[]
            ),
            other.query_one(
                "select count(*) from generate_series(1, 50000) a join generate_series(1, 50000) b on a = b",
                &[]
            ),
        );
        let e = failed.unwrap_err();
        assert_eq!(sqlstate(&e), "53200", "{e:?}");
        let db = e.as_db_error().unwrap();
        assert_eq!(db.message(), "out of memory");
        assert_eq!(
            db.detail(),
            Some("The statement's memory grew past folio.statement_memory_limit (32MB).")
        );
        assert_eq!(fine.unwrap().get::<_, i64>(0), 50000);
        for client in [&runaway, &other] {
            let one = client.query_one("select 1", &[]).await.unwrap();
            assert_eq!(one.get::<_, i32>(0), 1);
        }
        drop((runaway, other));
        server.stop();
    }
}
