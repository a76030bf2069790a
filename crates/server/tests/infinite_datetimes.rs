//! `infinity` and `-infinity` of date, timestamp and timestamptz in the
//! binary wire format: PostgreSQL 15 sends them as the type's extreme
//! integer (date `i32::MIN` / `i32::MAX`, timestamps `i64::MIN` /
//! `i64::MAX`), and so does folio, both ways.

use tokio_postgres::types::Type;

mod common;

use common::Raw;

// Proves binary parameters holding the extremes are read as the
// infinities (their text, `isfinite`, comparison with the literal), and
// binary results of the infinities are the extremes' big-endian bytes,
// through a table with an index on each column.
#[tokio::test(flavor = "current_thread")]
async fn infinities_round_trip_in_binary() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create table inf_w (id int, d date, ts timestamp, tz timestamptz);
             create index on inf_w (d); create index on inf_w (ts); create index on inf_w (tz)",
        )
        .await
        .unwrap();
    let insert = client
        .prepare_typed(
            "insert into inf_w values ($1, $2, $3, $4)",
            &[Type::INT4, Type::DATE, Type::TIMESTAMP, Type::TIMESTAMPTZ],
        )
        .await
        .unwrap();
    let rows: [(i32, i32, i64); 3] = [(1, i32::MAX, i64::MAX), (2, i32::MIN, i64::MIN), (3, 0, 0)];
    for (id, days, micros) in rows {
        let d = Raw(days.to_be_bytes().to_vec());
        let t = Raw(micros.to_be_bytes().to_vec());
        client.execute(&insert, &[&id, &d, &t, &t]).await.unwrap();
    }
    let text = client
        .query(
            "select d::text, ts::text, tz::text, isfinite(d) from inf_w order by d",
            &[],
        )
        .await
        .unwrap();
    let text: Vec<(String, String, String, bool)> = text
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    let row = |d: &str, t: &str, tz: &str, finite| (d.into(), t.into(), tz.into(), finite);
    assert_eq!(
        text,
        vec![
            row("-infinity", "-infinity", "-infinity", false),
            row(
                "2000-01-01",
                "2000-01-01 00:00:00",
                "2000-01-01 00:00:00+00",
                true
            ),
            row("infinity", "infinity", "infinity", false),
        ]
    );
    // Binary results (a prepared statement's rows come back binary).
    let select = client
        .prepare("select d, ts, tz from inf_w where d = 'infinity' or ts = '-infinity' order by ts")
        .await
        .unwrap();
    let got: Vec<(Raw, Raw, Raw)> = client
        .query(&select, &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let bytes: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> =
        got.into_iter().map(|(d, t, z)| (d.0, t.0, z.0)).collect();
    assert_eq!(
        bytes,
        vec![
            (
                i32::MIN.to_be_bytes().to_vec(),
                i64::MIN.to_be_bytes().to_vec(),
                i64::MIN.to_be_bytes().to_vec()
            ),
            (
                i32::MAX.to_be_bytes().to_vec(),
                i64::MAX.to_be_bytes().to_vec(),
                i64::MAX.to_be_bytes().to_vec()
            ),
        ]
    );
}
