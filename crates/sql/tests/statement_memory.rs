//! A statement that grows past `folio.statement_memory_limit` fails with
//! PostgreSQL's 53200 `out of memory`, and its session carries on: before,
//! nothing bounded a statement's memory, and a runaway one grew until
//! the OOM killer ended the whole server. This test binary installs the
//! counting allocator, as the `folio` binary does.

use folio_sql::Session;
use std::alloc::System;

mod common;
use common::{fails, ok, rows};

#[global_allocator]
static COUNTING: folio_memory::Counting<System> = folio_memory::Counting(System);

/// The statements that grow without bound, each a different path: an
/// aggregate's array and text, a sort's rows, a hash join's table, a
/// cross join's rows, a recursive CTE's.
const RUNAWAYS: [&str; 6] = [
    "select array_length(array_agg(i), 1) from generate_series(1, 50000000) i",
    "select length(string_agg(i::text, ',')) from generate_series(1, 50000000) i",
    "select count(*) from (select i from generate_series(1, 50000000) i order by i desc) s",
    "select count(*) from generate_series(1, 20000000) a join generate_series(1, 20000000) b on a = b",
    "select count(*) from (select * from generate_series(1, 100000) a, generate_series(1, 1000) b) s",
    "with recursive r(n) as (select 1 union all select n + 1 from r where n < 50000000) \
     select count(*) from r",
];

// Proves each runaway statement fails with 53200 at a 32MB limit, with
// the DETAIL naming the setting, that the memory it took is freed, that
// the session then runs statements under the limit, that in a block the
// failure aborts the transaction as any error does, and that RESET goes
// back to the default.
#[test]
fn a_statement_past_its_limit_fails_with_53200_and_the_session_goes_on() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    let default = rows(&mut s, "show folio.statement_memory_limit");
    ok(&mut s, "set folio.statement_memory_limit = '32MB'");
    assert_eq!(rows(&mut s, "show folio.statement_memory_limit"), ["32MB"]);
    assert_eq!(
        rows(
            &mut s,
            "select setting, unit, source from pg_settings where name = 'folio.statement_memory_limit'"
        ),
        ["32768 kB session"]
    );
    for sql in RUNAWAYS {
        let before = folio_memory::net_bytes();
        let e = fails(&mut s, sql);
        assert_eq!(e.code, "53200", "{sql}: {e:?}");
        assert_eq!(e.message, "out of memory");
        assert_eq!(
            e.detail.as_deref(),
            Some("The statement's memory grew past folio.statement_memory_limit (32MB).")
        );
        // (The session keeps a little: the statement's text, its shape.)
        let kept = folio_memory::net_bytes() - before;
        assert!(kept < 4 << 20, "{sql}: {kept} bytes kept");
        assert_eq!(rows(&mut s, "select 1"), ["1"]);
    }
    assert_eq!(
        rows(
            &mut s,
            "select array_length(array_agg(i), 1) from generate_series(1, 100000) i"
        ),
        ["100000"]
    );
    ok(&mut s, "begin");
    assert_eq!(fails(&mut s, RUNAWAYS[0]).code, "53200");
    assert_eq!(fails(&mut s, "select 1").code, "25P02");
    ok(&mut s, "rollback");
    // 0 and -1 are no limit, as SET takes and SHOW prints them.
    ok(&mut s, "set folio.statement_memory_limit = 0");
    assert_eq!(rows(&mut s, "show folio.statement_memory_limit"), ["0"]);
    ok(&mut s, "set folio.statement_memory_limit = -1");
    assert_eq!(rows(&mut s, "show folio.statement_memory_limit"), ["-1"]);
    assert_eq!(
        fails(&mut s, "set folio.statement_memory_limit = -2").code,
        "22023"
    );
    ok(&mut s, "reset folio.statement_memory_limit");
    assert_eq!(rows(&mut s, "show folio.statement_memory_limit"), default);
    assert_ne!(
        default,
        ["-1"],
        "a default limit where the machine's memory is known"
    );
}

// Proves the server's default (`folio serve --statement-memory-limit`)
// is what a session starts with and RESET goes back to.
#[test]
fn the_servers_default_is_the_sessions() {
    let (_dir, _, db) = common::fresh();
    let mut s = Session::new(db);
    s.set_statement_memory_limit_kb(16 * 1024);
    assert_eq!(rows(&mut s, "show folio.statement_memory_limit"), ["16MB"]);
    assert_eq!(fails(&mut s, RUNAWAYS[0]).code, "53200");
    ok(&mut s, "set folio.statement_memory_limit = '1GB'");
    ok(&mut s, "reset folio.statement_memory_limit");
    assert_eq!(rows(&mut s, "show folio.statement_memory_limit"), ["16MB"]);
}
