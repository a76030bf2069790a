//! `pg_cast`: the casts between folio's types that PostgreSQL 15 lists
//! in its `pg_cast`, with its oids, contexts and methods.
//!
//! folio performs each of them (`tests/slt/psql_meta.slt` casts a value
//! along every row). They are not how folio decides a cast (its
//! coercions are `types.rs`'s), and folio's casts are not functions of
//! `pg_proc`: `castfunc` is 0, so `\dC`'s Function column is empty where
//! PostgreSQL names the cast's function. As in PostgreSQL, the
//! conversions through text (`x::text`, `'1'::integer`) are not rows.

use crate::catalog_functions::oid_value;
use folio_row::{SqlType, Value};

/// `pg_cast`'s columns.
pub const COLUMNS: &[(&str, SqlType)] = &[
    ("oid", SqlType::Oid),
    ("castsource", SqlType::Oid),
    ("casttarget", SqlType::Oid),
    ("castfunc", SqlType::Oid),
    ("castcontext", SqlType::InternalChar),
    ("castmethod", SqlType::InternalChar),
];

/// `(oid, source type, target type, context, method)`. Context: `i`
/// implicit, `a` on assignment, `e` explicit only. Method: `f` by a
/// function (in PostgreSQL), `b` binary coercible.
const CASTS: &[(i64, i64, i64, char, char)] = &[
    (10000, 20, 21, 'a', 'f'),
    (10001, 20, 23, 'a', 'f'),
    (10002, 20, 700, 'i', 'f'),
    (10003, 20, 701, 'i', 'f'),
    (10004, 20, 1700, 'i', 'f'),
    (10005, 21, 20, 'i', 'f'),
    (10006, 21, 23, 'i', 'f'),
    (10007, 21, 700, 'i', 'f'),
    (10008, 21, 701, 'i', 'f'),
    (10009, 21, 1700, 'i', 'f'),
    (10010, 23, 20, 'i', 'f'),
    (10011, 23, 21, 'a', 'f'),
    (10012, 23, 700, 'i', 'f'),
    (10013, 23, 701, 'i', 'f'),
    (10014, 23, 1700, 'i', 'f'),
    (10015, 700, 20, 'a', 'f'),
    (10016, 700, 21, 'a', 'f'),
    (10017, 700, 23, 'a', 'f'),
    (10018, 700, 701, 'i', 'f'),
    (10019, 700, 1700, 'a', 'f'),
    (10020, 701, 20, 'a', 'f'),
    (10021, 701, 21, 'a', 'f'),
    (10022, 701, 23, 'a', 'f'),
    (10023, 701, 700, 'a', 'f'),
    (10024, 701, 1700, 'a', 'f'),
    (10025, 1700, 20, 'a', 'f'),
    (10026, 1700, 21, 'a', 'f'),
    (10027, 1700, 23, 'a', 'f'),
    (10028, 1700, 700, 'i', 'f'),
    (10029, 1700, 701, 'i', 'f'),
    (10034, 23, 16, 'e', 'f'),
    (10035, 16, 23, 'e', 'f'),
    (10125, 25, 1042, 'i', 'b'),
    (10126, 25, 1043, 'i', 'b'),
    (10127, 1042, 25, 'i', 'f'),
    (10128, 1042, 1043, 'i', 'f'),
    (10129, 1043, 25, 'i', 'b'),
    (10130, 1043, 1042, 'i', 'b'),
    (10152, 1082, 1114, 'i', 'f'),
    (10153, 1082, 1184, 'i', 'f'),
    (10154, 1083, 1186, 'i', 'f'),
    (10155, 1083, 1266, 'i', 'f'),
    (10156, 1114, 1082, 'a', 'f'),
    (10157, 1114, 1083, 'a', 'f'),
    (10158, 1114, 1184, 'i', 'f'),
    (10159, 1184, 1082, 'a', 'f'),
    (10160, 1184, 1083, 'a', 'f'),
    (10161, 1184, 1114, 'a', 'f'),
    (10162, 1184, 1266, 'a', 'f'),
    (10163, 1186, 1083, 'a', 'f'),
    (10164, 1266, 1083, 'a', 'f'),
    (10191, 16, 25, 'a', 'f'),
    (10196, 16, 1043, 'a', 'f'),
    (10201, 16, 1042, 'a', 'f'),
    (10204, 1042, 1042, 'i', 'f'),
    (10205, 1043, 1043, 'i', 'f'),
    (10206, 1083, 1083, 'i', 'f'),
    (10207, 1114, 1114, 'i', 'f'),
    (10208, 1184, 1184, 'i', 'f'),
    (10209, 1186, 1186, 'i', 'f'),
    (10210, 1266, 1266, 'i', 'f'),
    (10213, 1700, 1700, 'i', 'f'),
    // json and jsonb (`json_functions::cast`).
    (10214, 114, 3802, 'a', 'f'),
    (10215, 3802, 114, 'a', 'f'),
    (10216, 3802, 16, 'e', 'f'),
    (10217, 3802, 1700, 'e', 'f'),
    (10218, 3802, 21, 'e', 'f'),
    (10219, 3802, 23, 'e', 'f'),
    (10220, 3802, 20, 'e', 'f'),
    (10221, 3802, 700, 'e', 'f'),
    (10222, 3802, 701, 'e', 'f'),
];

/// `pg_cast`'s rows.
pub fn rows() -> Vec<Vec<Value>> {
    CASTS
        .iter()
        .map(|&(oid, source, target, context, method)| {
            vec![
                oid_value(oid),
                oid_value(source),
                oid_value(target),
                oid_value(0),
                Value::Text(context.to_string()),
                Value::Text(method.to_string()),
            ]
        })
        .collect()
}
