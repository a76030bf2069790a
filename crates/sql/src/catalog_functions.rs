//! The functions psql and drivers call about the catalog:
//! `pg_get_userbyid`, `pg_table_is_visible`, `pg_type_is_visible`,
//! `pg_encoding_to_char`, `format_type`, `pg_get_expr`, and
//! `obj_description`/`col_description`/`shobj_description` (NULL: folio
//! keeps no comments). They read only their arguments: folio has one
//! role (`postgres`, oid 10), one encoding (UTF8) and two schemas, both
//! on the search path, so every relation is visible.

use crate::error::SqlError;
use folio_row::{SqlType, Value};

/// The superuser's oid (PostgreSQL's `BOOTSTRAP_SUPERUSERID`).
pub const SUPERUSER_OID: i64 = 10;
/// The role that owns `public` in PostgreSQL 15.
pub const DATABASE_OWNER_OID: i64 = 6171;
/// PostgreSQL's number for UTF8 (`pg_database.encoding`).
pub const UTF8: i32 = 6;

/// A catalog function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogFunc {
    GetUserById,
    TableIsVisible,
    TypeIsVisible,
    EncodingToChar,
    FormatType,
    GetExpr,
    Description,
}

impl CatalogFunc {
    /// The function called `name`, if it is one of these.
    pub fn of(name: &str) -> Option<CatalogFunc> {
        Some(match name {
            "pg_get_userbyid" => CatalogFunc::GetUserById,
            "pg_table_is_visible" => CatalogFunc::TableIsVisible,
            "pg_type_is_visible" => CatalogFunc::TypeIsVisible,
            "pg_encoding_to_char" => CatalogFunc::EncodingToChar,
            "format_type" => CatalogFunc::FormatType,
            "pg_get_expr" => CatalogFunc::GetExpr,
            "obj_description" | "col_description" | "shobj_description" => CatalogFunc::Description,
            _ => return None,
        })
    }

    /// Whether `count` arguments are accepted.
    pub fn takes(self, count: usize) -> bool {
        match self {
            CatalogFunc::GetUserById
            | CatalogFunc::TableIsVisible
            | CatalogFunc::TypeIsVisible
            | CatalogFunc::EncodingToChar => count == 1,
            CatalogFunc::FormatType => count == 2,
            CatalogFunc::GetExpr => (2..=3).contains(&count),
            CatalogFunc::Description => (1..=2).contains(&count),
        }
    }

    /// Its result type.
    pub fn ty(self) -> SqlType {
        match self {
            CatalogFunc::TableIsVisible | CatalogFunc::TypeIsVisible => SqlType::Bool,
            _ => SqlType::Text,
        }
    }

    /// Its value for `args` (none of them NULL: these are strict).
    pub fn eval(self, args: &[Value]) -> Result<Value, SqlError> {
        Ok(match self {
            CatalogFunc::GetUserById => Value::Text(role_name(number(&args[0])?)),
            CatalogFunc::TableIsVisible | CatalogFunc::TypeIsVisible => Value::Bool(true),
            CatalogFunc::EncodingToChar => Value::Text(
                match number(&args[0])? {
                    0 => "SQL_ASCII",
                    n if n == i64::from(UTF8) => "UTF8",
                    _ => "",
                }
                .into(),
            ),
            CatalogFunc::FormatType => {
                let (oid, typmod) = (number(&args[0])?, number(&args[1])?);
                Value::Text(type_name(oid, typmod as i32))
            }
            CatalogFunc::GetExpr => args[0].clone(),
            CatalogFunc::Description => Value::Null,
        })
    }
}

/// A role's name by oid, as `pg_get_userbyid` gives it.
pub fn role_name(oid: i64) -> String {
    match oid {
        SUPERUSER_OID => crate::roles::SUPERUSER.into(),
        DATABASE_OWNER_OID => "pg_database_owner".into(),
        other => format!("unknown (OID={other})"),
    }
}

/// `format_type(oid, typmod)`: a type's name with its modifier.
pub fn type_name(oid: i64, typmod: i32) -> String {
    let known = u32::try_from(oid)
        .ok()
        .and_then(|oid| SqlType::from_oid(oid, typmod));
    match (known, oid) {
        (Some(ty), _) => ty.name(),
        (None, 18) => "\"char\"".into(),
        (None, 19) => "name".into(),
        (None, 26) => "oid".into(),
        _ => "???".into(),
    }
}

/// An integer argument (an oid, a modifier, an encoding); a quoted
/// literal is read as one.
fn number(v: &Value) -> Result<i64, SqlError> {
    match v {
        Value::Int2(x) => Ok(i64::from(*x)),
        Value::Int4(x) => Ok(i64::from(*x)),
        Value::Int8(x) => Ok(*x),
        Value::Text(t) => t.trim().parse().map_err(|_| {
            SqlError::new(
                "22P02",
                format!("invalid input syntax for type oid: \"{t}\""),
            )
        }),
        other => Err(SqlError::new(
            "42883",
            format!("an oid argument, not {}", other.type_name()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_postgresql_prints_them() {
        assert_eq!(type_name(23, -1), "integer");
        assert_eq!(type_name(1043, 14), "character varying(10)");
        assert_eq!(type_name(1700, ((10 << 16) | 2) + 4), "numeric(10,2)");
        assert_eq!(type_name(26, -1), "oid");
        assert_eq!(role_name(10), "postgres");
        assert_eq!(role_name(6171), "pg_database_owner");
        let enc = CatalogFunc::EncodingToChar.eval(&[Value::Int4(6)]).unwrap();
        assert_eq!(enc, Value::Text("UTF8".into()));
    }
}
