//! A text parameter holding a NUL byte is refused as PostgreSQL 15
//! refuses it: 22021 `invalid byte sequence for encoding "UTF8": 0x00`
//! (its `text_recv` checks the bytes), and so is one that is not UTF-8,
//! naming the bad bytes; a bytea parameter may hold NULs.

mod common;

use common::Raw;
use tokio_postgres::types::Type;

// Proves a binary text parameter with a NUL, or with bad UTF-8, is 22021
// with PostgreSQL's message, the connection goes on, and a bytea
// parameter keeps its NUL.
#[tokio::test(flavor = "current_thread")]
async fn a_text_parameter_holding_nul_is_refused() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    let statement = client.prepare("select $1::text").await.unwrap();
    assert_eq!(statement.params(), &[Type::TEXT]);
    for (sent, bytes) in [(&b"a\0b"[..], "0x00"), (b"a\xc3(", "0xc3 0x28")] {
        let e = client
            .query_one(&statement, &[&Raw(sent.to_vec())])
            .await
            .unwrap_err();
        let e = e.as_db_error().expect("a server error");
        assert_eq!(e.code().code(), "22021");
        assert_eq!(
            e.message(),
            format!("invalid byte sequence for encoding \"UTF8\": {bytes}")
        );
    }
    let row = client
        .query_one("select length($1::bytea)", &[&b"a\0b".to_vec()])
        .await
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), 3);
}
