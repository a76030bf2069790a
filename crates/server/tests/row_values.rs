//! Row values over the wire as a driver sees them: a whole-row reference
//! and `ROW(...)` described as `record` (oid 2249) and sent in
//! PostgreSQL's binary `record_send` form, decoded here by hand.

mod common;

use common::connect_tcp as connect;
use tokio_postgres::types::{FromSql, Type};

/// A record's fields in binary: (type oid, bytes or NULL).
#[derive(Debug, PartialEq)]
struct Record(Vec<(u32, Option<Vec<u8>>)>);

impl<'a> FromSql<'a> for Record {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let word = |at: usize| -> Result<[u8; 4], Box<dyn std::error::Error + Sync + Send>> {
            Ok(raw.get(at..at + 4).ok_or("short record")?.try_into()?)
        };
        let count = i32::from_be_bytes(word(0)?);
        let mut at = 4;
        let mut fields = Vec::new();
        for _ in 0..count {
            let oid = u32::from_be_bytes(word(at)?);
            let len = i32::from_be_bytes(word(at + 4)?);
            at += 8;
            let bytes = if len < 0 {
                None
            } else {
                let end = at + len as usize;
                let b = raw.get(at..end).ok_or("short field")?.to_vec();
                at = end;
                Some(b)
            };
            fields.push((oid, bytes));
        }
        if at != raw.len() {
            return Err("bytes after the record's fields".into());
        }
        Ok(Record(fields))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::RECORD || matches!(ty.kind(), tokio_postgres::types::Kind::Composite(_))
    }
}

// Proves a whole row (of the table's row type, as PostgreSQL describes
// it) and a ROW constructor (`record`) arrive in record_send's binary
// layout: the field count, then per field its oid,
// length (-1 for NULL) and binary value.
#[tokio::test(flavor = "current_thread")]
async fn records_are_sent_in_binary_as_record_send() {
    let (_dir, server) = common::pool_server(1);
    let client = connect(&server).await;
    client
        .batch_execute(
            "create table rv (a int, b text); insert into rv values (7, 'x y'), (8, null)",
        )
        .await
        .unwrap();
    let statement = client
        .prepare("select rv, row(1::int8, true) from rv order by a")
        .await
        .unwrap();
    assert_eq!(statement.columns()[0].type_().name(), "rv");
    assert!(matches!(
        statement.columns()[0].type_().kind(),
        tokio_postgres::types::Kind::Composite(_)
    ));
    assert_eq!(statement.columns()[1].type_(), &Type::RECORD);
    let rows = client.query(&statement, &[]).await.unwrap();
    let first: Record = rows[0].get(0);
    assert_eq!(
        first,
        Record(vec![
            (23, Some(7i32.to_be_bytes().to_vec())),
            (25, Some(b"x y".to_vec())),
        ])
    );
    let second: Record = rows[1].get(0);
    assert_eq!(
        second,
        Record(vec![(23, Some(8i32.to_be_bytes().to_vec())), (25, None)])
    );
    let constructed: Record = rows[0].get(1);
    assert_eq!(
        constructed,
        Record(vec![
            (20, Some(1i64.to_be_bytes().to_vec())),
            (16, Some(vec![1])),
        ])
    );
    server.stop();
}
