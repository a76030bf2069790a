//! The OID alias types (`regclass`, `regtype`, `regproc`,
//! `regprocedure`, `regoper`, `regoperator`, `regnamespace`, `regrole`,
//! `regconfig`, `regdictionary`, `regcollation`; README "OID alias
//! types"): the one owner of the names their values read and print.
//!
//! A value (`Value::Reg`, folio-row's `reg.rs`) is an oid with the name
//! it prints as, resolved here when the value is made: by a cast
//! (`x::regclass`, `regclass(x)`: [`value_of`]) of a text, a number, an
//! oid, or a value of the same type, or by a `to_reg*` call
//! ([`to_reg`], NULL where the cast fails for want of the object). Text
//! input is PostgreSQL's: all digits is the oid itself, `-` is 0, else a
//! name (per kind below) looked up in the catalog; a name's schema must
//! exist (3F000). Output is the object's name (as PostgreSQL's `*out`
//! functions print it: quoted where needed, a relation qualified when
//! not visible on the search path), the oid's digits when no object has
//! it, `-` for 0 (`0` for the operator types).

use crate::catalog_functions::{role_name, type_name, type_oid};
use crate::error::SqlError;
use crate::lookups::Lookups;
use folio_row::{RegKind, RegValue, SqlType, Value};

/// The OID alias type a written type denotes (`regclass`,
/// `pg_catalog.regtype`).
pub fn kind_of(ty: &sqlparser::ast::DataType) -> Option<RegKind> {
    match ty {
        sqlparser::ast::DataType::Regclass => Some(RegKind::Class),
        sqlparser::ast::DataType::Custom(name, m) if m.is_empty() => {
            RegKind::of_name(&crate::names::builtin(name)?)
        }
        _ => None,
    }
}

/// `arg::kind` (`kind(arg)`): the value of the object `arg` names (a
/// text), or of oid `arg` (a number, an oid, a value of this type).
pub fn value_of(kind: RegKind, arg: &Value, lookups: Option<&Lookups>) -> Result<Value, SqlError> {
    let oid = match arg {
        Value::Text(text) => oid_of(kind, text, lookups)?,
        Value::Reg(r) if r.kind == kind => r.oid,
        Value::Reg(r) => {
            return Err(crate::types::no_cast_from(
                SqlType::Reg(r.kind),
                SqlType::Reg(kind),
            ));
        }
        other => match other.clone().fit(SqlType::Oid)? {
            Value::Oid(oid) => oid,
            _ => {
                return Err(crate::types::no_cast_from(
                    crate::scalar::value_type(other),
                    SqlType::Reg(kind),
                ));
            }
        },
    };
    Ok(reg_value(kind, oid, lookups))
}

/// `to_regclass(text)` and kin: [`value_of`] the text, NULL where no
/// object has the name (or its schema does not exist, or several
/// functions or operators have it); bad syntax is still an error.
pub fn to_reg(kind: RegKind, text: &str, lookups: Option<&Lookups>) -> Result<Value, SqlError> {
    match oid_of(kind, text, lookups) {
        Ok(oid) => Ok(reg_value(kind, oid, lookups)),
        Err(e) if matches!(e.code, "42P01" | "42704" | "42883" | "42725" | "3F000") => {
            Ok(Value::Null)
        }
        Err(e) => Err(e),
    }
}

/// The value of oid `oid`, named as PostgreSQL's output function names
/// it.
pub fn reg_value(kind: RegKind, oid: u32, lookups: Option<&Lookups>) -> Value {
    let name = match (oid, kind) {
        (0, _) => None,
        (_, RegKind::Class) => lookups.map(|l| l.relation_name(i64::from(oid))),
        (_, RegKind::Type) => Some(type_name(i64::from(oid), -1)).filter(|n| n != "???"),
        (_, RegKind::Proc) => Some(crate::system_proc::regproc_name(i64::from(oid))),
        (_, RegKind::Procedure) => Some(crate::system_proc::regprocedure_name(i64::from(oid))),
        (_, RegKind::Oper) => {
            crate::system_operator::operator_name(i64::from(oid)).map(str::to_string)
        }
        (_, RegKind::Operator) => Some(crate::system_operator::regoperator_name(i64::from(oid))),
        (_, RegKind::Namespace) => namespace_name(oid, lookups),
        (_, RegKind::Role) => Some(role_name(i64::from(oid))).filter(|n| !n.starts_with("unknown")),
        (_, RegKind::Config) => named(&CONFIGS, oid),
        (_, RegKind::Dictionary) => named(&DICTIONARIES, oid),
        (_, RegKind::Collation) => crate::collations::name_of(oid).map(quoted),
    };
    let unnamed = RegValue::unnamed(kind, oid);
    Value::Reg(Box::new(match name {
        Some(name) => RegValue { name, ..unnamed },
        None => unnamed,
    }))
}

/// PostgreSQL's text search configurations and dictionaries folio has
/// (`ts_config.rs`, `ts_dictionaries.rs`), with PostgreSQL 15's oids.
const CONFIGS: [(u32, &str); 2] = [(3748, "simple"), (13164, "english")];
const DICTIONARIES: [(u32, &str); 2] = [(3765, "simple"), (13163, "english_stem")];

fn named(table: &[(u32, &str)], oid: u32) -> Option<String> {
    table.iter().find(|e| e.0 == oid).map(|e| e.1.to_string())
}

/// `name` as an identifier prints (`"POSIX"`, `english`).
fn quoted(name: &str) -> String {
    crate::names::written(name).to_string()
}

/// The schemas every database has, by name.
const SCHEMAS: [(u32, &str); 3] = [(11, "pg_catalog"), (99, "pg_toast"), (2200, "public")];

fn namespace_name(oid: u32, lookups: Option<&Lookups>) -> Option<String> {
    if let Some(s) = SCHEMAS.iter().find(|s| s.0 == oid) {
        return Some(s.1.into());
    }
    let oid = i64::from(oid);
    if oid > crate::system::TEMP_NAMESPACE_BASE {
        return Some(format!(
            "pg_temp_{}",
            oid - crate::system::TEMP_NAMESPACE_BASE
        ));
    }
    lookups.and_then(|l| l.schema_name(oid)).map(quoted)
}

/// The oid of schema `name`, if it exists.
fn namespace_oid(name: &str, lookups: Option<&Lookups>) -> Option<u32> {
    if let Some(s) = SCHEMAS.iter().find(|s| s.1 == name) {
        return Some(s.0);
    }
    if name == "pg_temp" || name == "information_schema" {
        return Some(0);
    }
    (lookups?.schema_oid(name)).and_then(|oid| u32::try_from(oid).ok())
}

/// 3F000 unless schema `name` exists.
fn schema_exists(name: &str, lookups: Option<&Lookups>) -> Result<(), SqlError> {
    match namespace_oid(name, lookups) {
        Some(_) => Ok(()),
        None => Err(SqlError::new(
            "3F000",
            format!("schema \"{name}\" does not exist"),
        )),
    }
}

/// The oid `text` names as a value of `kind` (PostgreSQL's `reg*in`).
fn oid_of(kind: RegKind, text: &str, lookups: Option<&Lookups>) -> Result<u32, SqlError> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(folio_row::oid::parse(text)?);
    }
    if text == "-" && !matches!(kind, RegKind::Oper | RegKind::Operator) {
        return Ok(0);
    }
    let to_u32 = |oid: i64| u32::try_from(oid).unwrap_or(0);
    Ok(match kind {
        RegKind::Class => relation_oid(text, lookups)?,
        RegKind::Type => {
            if text.trim().is_empty() {
                return Err(SqlError::new(
                    "42601",
                    format!("invalid type name \"{text}\""),
                ));
            }
            if let Ok([schema, _]) = name_list(text).as_deref() {
                schema_exists(schema, lookups)?;
            }
            to_u32(type_oid(text).ok_or_else(|| {
                SqlError::new("42704", format!("type \"{}\" does not exist", text.trim()))
            })?)
        }
        RegKind::Proc => {
            qualified(text, lookups)?;
            to_u32(crate::system_proc::regproc_oid(text)?)
        }
        RegKind::Procedure => {
            if let Some((name, _)) = text.split_once('(') {
                qualified(name, lookups)?;
            }
            to_u32(crate::system_proc::regprocedure_oid(text)?)
        }
        RegKind::Oper => {
            let name = qualified(text, lookups)?;
            match crate::system_operator::operators_named(&name).as_slice() {
                [oid] => to_u32(*oid),
                [] => {
                    return Err(SqlError::new(
                        "42883",
                        format!("operator does not exist: {text}"),
                    ));
                }
                _ => {
                    return Err(SqlError::new(
                        "42725",
                        format!("more than one operator named {text}"),
                    ));
                }
            }
        }
        // (PostgreSQL's `regoperatorin` reads a missing schema as no
        // such operator.)
        RegKind::Operator => to_u32(crate::system_operator::regoperator_oid(text)?),
        RegKind::Namespace => {
            let name = single(text)?;
            namespace_oid(&name, lookups).ok_or_else(|| {
                SqlError::new("3F000", format!("schema \"{name}\" does not exist"))
            })?
        }
        RegKind::Role => {
            let name = single(text)?;
            match crate::roles::scoped_roles()?
                .into_iter()
                .find(|r| r.name == name)
            {
                Some(role) => role.oid,
                None => {
                    return Err(SqlError::new(
                        "42704",
                        format!("role \"{name}\" does not exist"),
                    ));
                }
            }
        }
        RegKind::Config => in_table(&CONFIGS, text, lookups, "text search configuration")?,
        RegKind::Dictionary => in_table(&DICTIONARIES, text, lookups, "text search dictionary")?,
        RegKind::Collation => {
            let name = qualified(text, lookups)?;
            match crate::collations::ALL.iter().find(|c| c.1 == name) {
                Some(c) => c.0,
                None => {
                    return Err(SqlError::new(
                        "42704",
                        format!("collation \"{name}\" for encoding \"UTF8\" does not exist"),
                    ));
                }
            }
        }
    })
}

/// A relation's oid by its name (`name`, `schema.name`,
/// `database.schema.name`), as `regclassin` finds it.
fn relation_oid(text: &str, lookups: Option<&Lookups>) -> Result<u32, SqlError> {
    let parts = name_list(text)?;
    let (schema, name) = match parts.as_slice() {
        [name] => (None, name),
        [schema, name] => (Some(schema), name),
        [database, schema, name] if database == crate::system::DATABASE_NAME => {
            (Some(schema), name)
        }
        [_, _, _] => {
            return Err(SqlError::new(
                "0A000",
                format!("cross-database references are not implemented: \"{text}\""),
            ));
        }
        _ => {
            return Err(SqlError::new(
                "42601",
                format!("improper relation name (too many dotted names): {text}"),
            ));
        }
    };
    if let Some(schema) = schema {
        schema_exists(schema, lookups)?;
    }
    let written = match schema {
        Some(schema) => format!("{}.{}", quoted_always(schema), quoted_always(name)),
        None => quoted_always(name),
    };
    let missing = || {
        let shown = match schema {
            Some(schema) => format!("{schema}.{name}"),
            None => name.clone(),
        };
        SqlError::new("42P01", format!("relation \"{shown}\" does not exist"))
    };
    let lookups = lookups.ok_or_else(missing)?;
    (lookups.relation_oid(&written))
        .and_then(|oid| u32::try_from(oid).ok())
        .ok_or_else(missing)
}

/// `name` quoted, so that reading it back gives `name` whatever it is.
fn quoted_always(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The name of a one- or two-part name (`name`, `schema.name`) whose
/// schema, if given, must exist.
fn qualified(text: &str, lookups: Option<&Lookups>) -> Result<String, SqlError> {
    match name_list(text)?.as_slice() {
        [name] => Ok(name.clone()),
        [schema, name] => {
            schema_exists(schema, lookups)?;
            Ok(name.clone())
        }
        _ => Err(SqlError::new(
            "42601",
            format!("improper qualified name (too many dotted names): {text}"),
        )),
    }
}

/// The one name of a name without a schema (a role's, a schema's).
fn single(text: &str) -> Result<String, SqlError> {
    match name_list(text)?.as_slice() {
        [name] => Ok(name.clone()),
        _ => Err(invalid_name()),
    }
}

/// The oid of the object of `table` that `text` names (a schema given
/// must exist; every such object is in `pg_catalog`).
fn in_table(
    table: &[(u32, &str)],
    text: &str,
    lookups: Option<&Lookups>,
    what: &str,
) -> Result<u32, SqlError> {
    let parts = name_list(text)?;
    let name = qualified(text, lookups)?;
    let in_catalog = parts.len() == 1 || parts[0] == "pg_catalog";
    match table.iter().find(|e| e.1 == name && in_catalog) {
        Some(e) => Ok(e.0),
        None => Err(SqlError::new(
            "42704",
            format!("{what} \"{}\" does not exist", parts.join(".")),
        )),
    }
}

fn invalid_name() -> SqlError {
    SqlError::new("42602", "invalid name syntax")
}

/// The names of a dotted name written as text, as PostgreSQL's
/// `stringToQualifiedNameList` reads them: blanks around each, an
/// unquoted one folded to lower case, a quoted one kept (`""` a quote);
/// anything else (an empty name, blanks inside one) is 42602.
pub fn name_list(text: &str) -> Result<Vec<String>, SqlError> {
    let mut names = Vec::new();
    let mut chars = text.chars().peekable();
    let skip_blanks = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
    };
    loop {
        skip_blanks(&mut chars);
        let mut name = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            name = crate::names::quoted_rest(&mut chars).ok_or_else(invalid_name)?;
            if name.is_empty() {
                return Err(invalid_name());
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == '.' || c.is_whitespace() {
                    break;
                }
                name.push(c.to_ascii_lowercase());
                chars.next();
            }
            if name.is_empty() {
                return Err(invalid_name());
            }
        }
        names.push(name);
        skip_blanks(&mut chars);
        match chars.next() {
            None => return Ok(names),
            Some('.') => {}
            Some(_) => return Err(invalid_name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves names read as PostgreSQL's stringToQualifiedNameList reads
    // them.
    #[test]
    fn name_lists_read_as_postgresql() {
        assert_eq!(name_list("pg_catalog.||/").unwrap(), ["pg_catalog", "||/"]);
        assert_eq!(
            name_list(" Foo . \"Bar\"\"x\" ").unwrap(),
            ["foo", "Bar\"x"]
        );
        for bad in ["", "a b", "a..b", "\"\"", "a.", "\"a"] {
            assert_eq!(name_list(bad).unwrap_err().code, "42602", "{bad}");
        }
    }

    // Proves the kinds without the catalog read and print their names.
    #[test]
    fn values_read_and_print_names() {
        let text = |kind, t: &str| match value_of(kind, &Value::Text(t.into()), None).unwrap() {
            Value::Reg(r) => (r.oid, r.name),
            other => panic!("{other:?}"),
        };
        assert_eq!(text(RegKind::Type, "int4"), (23, "integer".into()));
        assert_eq!(
            text(RegKind::Collation, "\"POSIX\""),
            (951, "\"POSIX\"".into())
        );
        assert_eq!(
            text(RegKind::Namespace, "pg_catalog"),
            (11, "pg_catalog".into())
        );
        assert_eq!(text(RegKind::Config, "english"), (13164, "english".into()));
        assert_eq!(text(RegKind::Class, "-"), (0, "-".into()));
        assert_eq!(text(RegKind::Oper, "0"), (0, "0".into()));
        let err = |kind, t: &str| value_of(kind, &Value::Text(t.into()), None).unwrap_err();
        assert_eq!(err(RegKind::Type, "ng.int4").code, "3F000");
        assert_eq!(err(RegKind::Role, "foo.bar").code, "42602");
        assert_eq!(to_reg(RegKind::Type, "int3", None).unwrap(), Value::Null);
        assert_eq!(
            to_reg(RegKind::Role, "a.b", None).unwrap_err().code,
            "42602"
        );
    }
}
