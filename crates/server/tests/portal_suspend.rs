//! An Execute's row limit through tokio-postgres's portals (what JDBC's
//! `setFetchSize` does inside a transaction): `query_portal(&portal, n)`
//! returns up to `n` rows, and the next call goes on where it stopped;
//! the portal is gone once its transaction ends. (The messages and tags
//! themselves, compared with PostgreSQL 15: `tests/protocol.rs`.)

mod common;

// Proves 10 rows fetched 3 at a time come as 3, 3, 3, 1, then none, in
// order; two portals of one transaction go on independently; and a
// portal of a committed transaction is gone (34000).
#[tokio::test(flavor = "current_thread")]
async fn a_portal_is_fetched_in_parts() {
    let (_dir, server) = common::pool_server(1);
    let mut client = common::connect_tcp(&server).await;
    client
        .batch_execute("create table ten (k int); insert into ten select generate_series(1, 10)")
        .await
        .unwrap();
    let txn = client.transaction().await.unwrap();
    let statement = txn
        .prepare("select k from ten where k > $1 order by k")
        .await
        .unwrap();
    let portal = txn.bind(&statement, &[&0i32]).await.unwrap();
    let other = txn.bind(&statement, &[&7i32]).await.unwrap();
    let mut sizes = Vec::new();
    let mut keys = Vec::new();
    loop {
        let rows = txn.query_portal(&portal, 3).await.unwrap();
        sizes.push(rows.len());
        keys.extend(rows.iter().map(|r| r.get::<_, i32>(0)));
        if rows.is_empty() {
            break;
        }
        // The other portal, once between: its own place.
        if sizes.len() == 1 {
            let rows = txn.query_portal(&other, 2).await.unwrap();
            let got: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
            assert_eq!(got, [8, 9]);
        }
    }
    assert_eq!(sizes, [3, 3, 3, 1, 0]);
    assert_eq!(keys, (1..=10).collect::<Vec<i32>>());
    let rows = txn.query_portal(&other, 2).await.unwrap();
    assert_eq!(rows.len(), 1);
    txn.commit().await.unwrap();

    // After the transaction: the portal is gone.
    let txn = client.transaction().await.unwrap();
    let e = txn.query_portal(&portal, 3).await.unwrap_err();
    assert_eq!(e.code().map(|c| c.code()), Some("34000"), "{e}");
}
