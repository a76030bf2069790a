//! A user-defined type read and written through `tokio-postgres`'s typed
//! API: on a type oid it does not know, the driver looks the type up in
//! `pg_type` (joined to `pg_range` and `pg_namespace`) and then its labels
//! in `pg_enum`, binding the oid as an `oid` parameter and reading
//! `typtype` as `"char"` and `typelem`, `typbasetype`, `typrelid` as
//! `oid` — which folio's catalog columns must be.

mod common;

use std::error::Error;
use tokio_postgres::types::{FromSql, IsNull, Kind, ToSql, Type, to_sql_checked};

/// A Rust type for `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mood {
    Sad,
    Ok,
    Happy,
}

impl Mood {
    fn label(self) -> &'static str {
        match self {
            Mood::Sad => "sad",
            Mood::Ok => "ok",
            Mood::Happy => "happy",
        }
    }
}

/// Whether `ty` is the enum type `mood` with exactly our labels, as the
/// driver learned it from the catalog.
fn is_mood(ty: &Type) -> bool {
    ty.name() == "mood"
        && ty.schema() == "public"
        && matches!(ty.kind(), Kind::Enum(labels) if labels == &["sad", "ok", "happy"])
}

impl<'a> FromSql<'a> for Mood {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Mood, Box<dyn Error + Sync + Send>> {
        match raw {
            b"sad" => Ok(Mood::Sad),
            b"ok" => Ok(Mood::Ok),
            b"happy" => Ok(Mood::Happy),
            other => Err(format!("not a mood: {:?}", String::from_utf8_lossy(other)).into()),
        }
    }

    fn accepts(ty: &Type) -> bool {
        is_mood(ty)
    }
}

impl ToSql for Mood {
    fn to_sql(
        &self,
        _: &Type,
        out: &mut tokio_postgres::types::private::BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(self.label().as_bytes());
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        is_mood(ty)
    }

    to_sql_checked!();
}

// Proves tokio-postgres reads and binds an enum column of folio's: the
// driver's pg_type and pg_enum lookups (with an `oid` parameter and
// `oid`/`"char"` results) succeed, a row's enum value decodes into a Rust
// enum, an enum parameter is sent in binary and compared in the declared
// order, and an `oid` parameter finds a catalog row.
#[tokio::test(flavor = "current_thread")]
async fn tokio_postgres_reads_and_binds_an_enum_type() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create type mood as enum ('sad', 'ok', 'happy'); \
             create table person (id int primary key, name text, feeling mood); \
             insert into person values (1, 'moe', 'happy'), (2, 'larry', 'sad'), \
             (3, 'curly', 'ok'), (4, 'shemp', null)",
        )
        .await
        .unwrap();

    let rows = client
        .query("select name, feeling from person order by id", &[])
        .await
        .unwrap();
    let read: Vec<(String, Option<Mood>)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(
        read,
        [
            ("moe".to_string(), Some(Mood::Happy)),
            ("larry".to_string(), Some(Mood::Sad)),
            ("curly".to_string(), Some(Mood::Ok)),
            ("shemp".to_string(), None),
        ]
    );
    assert!(is_mood(rows[0].columns()[1].type_()));

    // An enum parameter: inferred as the column's type, sent as its label.
    let at_least = client
        .prepare("select name from person where feeling >= $1 order by feeling")
        .await
        .unwrap();
    assert!(is_mood(&at_least.params()[0]));
    let names: Vec<String> = client
        .query(&at_least, &[&Mood::Ok])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(names, ["curly", "moe"]);
    let n = client
        .execute(
            "insert into person values ($1, $2, $3)",
            &[&5i32, &"joe", &Mood::Sad],
        )
        .await
        .unwrap();
    assert_eq!(n, 1);
    let row = client
        .query_one("select feeling from person where id = 5", &[])
        .await
        .unwrap();
    assert_eq!(row.get::<_, Mood>(0), Mood::Sad);

    // An `oid` parameter and `oid` results, as the driver's own lookup.
    let mood_oid: u32 = client
        .query_one("select oid from pg_type where typname = 'mood'", &[])
        .await
        .unwrap()
        .get(0);
    let lookup = client
        .prepare("select typname, typtype, typarray, typnamespace from pg_type where oid = $1")
        .await
        .unwrap();
    assert_eq!(lookup.params(), &[Type::OID]);
    let row = client.query_one(&lookup, &[&mood_oid]).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "mood");
    assert_eq!(row.get::<_, i8>(1), b'e' as i8);
    let array_oid: u32 = row.get(2);
    assert_eq!(row.get::<_, u32>(3), 2200);
    let row = client.query_one(&lookup, &[&26u32]).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "oid");
    assert_eq!(row.get::<_, u32>(2), 1028);

    // An array of the enum: the driver looks up `_mood` (typelem).
    let row = client
        .query_one("select array['sad', 'happy']::mood[]", &[])
        .await
        .unwrap();
    assert_eq!(row.columns()[0].type_().oid(), array_oid);
    assert_eq!(row.get::<_, Vec<Mood>>(0), [Mood::Sad, Mood::Happy]);
}

// Proves a domain's column and a cast to a domain are described by the
// base type's oid, as PostgreSQL's RowDescription does (a driver then
// reads them as integers), while `pg_typeof` names the domain.
#[tokio::test(flavor = "current_thread")]
async fn a_domain_is_described_as_its_base_type() {
    let (_dir, server) = common::pool_server(1);
    let client = common::connect_tcp(&server).await;
    client
        .batch_execute(
            "create domain posint as int check (value > 0); \
             create domain small as posint check (value < 10); \
             create table dt (a posint, b small); \
             insert into dt values (5, 6)",
        )
        .await
        .unwrap();
    let statement = client
        .prepare("select a, b, 1::posint, pg_typeof(a), pg_typeof(b) from dt")
        .await
        .unwrap();
    let types: Vec<&Type> = statement.columns().iter().map(|c| c.type_()).collect();
    assert_eq!(types[..3], [&Type::INT4, &Type::INT4, &Type::INT4]);
    let row = client.query_one(&statement, &[]).await.unwrap();
    assert_eq!(row.get::<_, i32>(0), 5);
    assert_eq!(row.get::<_, i32>(1), 6);
    let typeof_a: String = client
        .query_one("select pg_typeof(a)::text from dt", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(typeof_a, "posint");
}
