//! Parameter types a Parse message gives (tokio-postgres's
//! `prepare_typed`): each `$n` is a value of its declared type wherever
//! it stands, a VALUES list included, as PostgreSQL's; a parameter with
//! no type is inferred from where it stands, so in a VALUES list alone it
//! is text (PostgreSQL's error for comparing it with an integer). And a
//! portal bound after a savepoint is dropped by ROLLBACK TO it.

use tokio_postgres::types::Type;

mod common;

// Proves a declared int4 parameter makes `(VALUES ($1))` an integer
// column (the UPDATE joins on it; before, 42883 integer = text), reports
// its type in the statement's description, and reads as `integer`; the
// same statement untyped is PostgreSQL's 42883.
#[tokio::test(flavor = "current_thread")]
async fn declared_parameter_types_hold_in_values() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create table tp (k int primary key, v int); insert into tp values (1, 10), (2, 20)",
        )
        .await
        .unwrap();
    let sql = "update tp set v = v + 1 from (values ($1)) s(k) where tp.k = s.k";
    let update = client.prepare_typed(sql, &[Type::INT4]).await.unwrap();
    assert_eq!(update.params(), &[Type::INT4]);
    assert_eq!(client.execute(&update, &[&1i32]).await.unwrap(), 1);
    let row = client
        .query_one("select v from tp where k = 1", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), 11);

    let e = client.prepare(sql).await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("42883"), "{e}");

    let typed = client
        .prepare_typed("select $1, pg_typeof($1)::text", &[Type::INT8])
        .await
        .unwrap();
    let row = client.query_one(&typed, &[&7i64]).await.unwrap();
    assert_eq!(row.get::<_, i64>(0), 7);
    assert_eq!(row.get::<_, String>(1), "bigint");
}

// Proves ROLLBACK TO a savepoint drops the portals bound since it
// (34000), as PostgreSQL drops an aborted subtransaction's portals, and
// keeps one bound before it.
#[tokio::test(flavor = "current_thread")]
async fn rollback_to_drops_portals_bound_since() {
    let (_dir, server) = common::pool_server(1);
    let mut client = common::connect_tcp(&server).await;
    let txn = client.transaction().await.unwrap();
    let statement = txn.prepare("select generate_series(1, $1)").await.unwrap();
    let before = txn.bind(&statement, &[&3i32]).await.unwrap();
    txn.batch_execute("savepoint a").await.unwrap();
    let after = txn.bind(&statement, &[&3i32]).await.unwrap();
    txn.batch_execute("rollback to a").await.unwrap();
    let e = txn.query_portal(&after, 1).await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("34000"), "{e}");
    txn.batch_execute("rollback to a").await.unwrap();
    let rows = txn.query_portal(&before, 5).await.unwrap();
    assert_eq!(rows.len(), 3);
    txn.commit().await.unwrap();
}
