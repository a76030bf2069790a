//! Privileges on user types: enum and composite types and domains
//! (PostgreSQL's `pg_type.typacl`). A type's owner and ACL are kept as a
//! relation's, under its oid (`privileges.rs`), read as
//! [`ObjectKind::Type`]: under the NULL ACL PUBLIC and the owner may USE
//! it. USAGE is the one privilege a type has. It is asked where a type
//! is built into a definition (PostgreSQL's `aclcheck_error_type`
//! callers): a table's or composite type's column (CREATE TABLE, ALTER
//! TABLE ADD COLUMN | ALTER COLUMN TYPE, CREATE TYPE AS), a domain's
//! base type, a function's or aggregate's argument and result types; an
//! array of a type asks the type's. Not asked: a cast in a query, as in
//! PostgreSQL.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use crate::privileges::{self, Change, ObjectKind, USAGE};
use crate::routine_privileges::RoutineGrant;
use folio_db::Transaction;
use sqlparser::ast::{
    AlterColumnOperation, AlterTableOperation, ArrayElemTypeDef, DataType, Statement,
    UserDefinedTypeRepresentation,
};

/// A user type a name stands for: its oid and whether it is a domain.
struct UserType {
    oid: u32,
    domain: bool,
}

/// The user type named `name` (unqualified: user types live in
/// `public`), as the statement's transaction sees it.
fn user_type(name: &str) -> Option<UserType> {
    if let Some(d) = crate::user_types::domain_named(name) {
        return Some(UserType {
            oid: d.oid,
            domain: true,
        });
    }
    crate::object_scope::with(|lists| {
        let lists = lists?;
        (lists.enums.iter())
            .find(|e| e.name == name)
            .map(|e| e.oid)
            .or_else(|| {
                (lists.composites.iter())
                    .find(|c| c.name == name)
                    .map(|c| c.oid)
            })
            .map(|oid| UserType { oid, domain: false })
    })
}

/// The user type (and its bare name) that type name `ty` builds on: the
/// type itself, or the element type of an array (`t[]`, `_t`).
fn built_on(ty: &DataType) -> Option<(UserType, String)> {
    let mut element = ty;
    while let DataType::Array(
        ArrayElemTypeDef::SquareBracket(inner, _) | ArrayElemTypeDef::AngleBracket(inner),
    ) = element
    {
        element = inner;
    }
    let DataType::Custom(name, _) = element else {
        return None;
    };
    let name = match crate::names::parts(name).as_deref() {
        Some([schema, name]) if schema == "public" => name.clone(),
        Some([name]) => name.clone(),
        _ => return None,
    };
    if let Some(found) = user_type(&name) {
        return Some((found, name));
    }
    let element = name.strip_prefix('_')?;
    user_type(element).map(|found| (found, element.to_string()))
}

/// Whether `name` is a type folio knows that is no user type.
fn built_in(name: &str) -> bool {
    let name = sqlparser::ast::ObjectName::from(vec![sqlparser::ast::Ident::new(name)]);
    crate::types::named_type(&name).is_ok()
}

/// 42501 `permission denied for type t` unless the session's role may
/// USE the user type `ty` builds on (any other type passes).
pub fn check_usage(cx: &Ctx<'_>, ty: &DataType) -> Result<(), SqlError> {
    let Some((found, name)) = built_on(ty) else {
        return Ok(());
    };
    if privileges::allowed(
        cx.db,
        cx.role,
        u64::from(found.oid),
        ObjectKind::Type,
        USAGE,
    )? {
        return Ok(());
    }
    Err(privileges::denied("type", &name))
}

/// The USAGE checks of a statement that builds types into a definition
/// (the module's comment), in the order it names them.
pub fn check_statement(cx: &Ctx<'_>, statement: &Statement) -> Result<(), SqlError> {
    match statement {
        Statement::CreateTable(create) => {
            for column in &create.columns {
                check_usage(cx, &column.data_type)?;
            }
        }
        Statement::AlterTable { operations, .. } => {
            for operation in operations {
                match operation {
                    AlterTableOperation::AddColumn { column_def, .. } => {
                        check_usage(cx, &column_def.data_type)?;
                    }
                    AlterTableOperation::AlterColumn {
                        op: AlterColumnOperation::SetDataType { data_type, .. },
                        ..
                    } => check_usage(cx, data_type)?,
                    _ => {}
                }
            }
        }
        Statement::CreateFunction(create) => {
            for arg in create.args.iter().flatten() {
                check_usage(cx, &arg.data_type)?;
            }
            if let Some(ty) = &create.return_type {
                check_usage(cx, ty)?;
            }
        }
        Statement::CreateType {
            representation: UserDefinedTypeRepresentation::Composite { attributes },
            ..
        } => {
            for attribute in attributes {
                check_usage(cx, &attribute.data_type)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The oid of the user type of catalog name `name` `txn` sees.
fn oid_of(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<Option<u32>, SqlError> {
    let catalog = cx.db.catalog();
    Ok(match catalog.domain_type(txn, name)? {
        Some(d) => Some(d.oid),
        None => match catalog.enum_type(txn, name)? {
            Some(e) => Some(e.oid),
            None => catalog.composite_type(txn, name)?.map(|c| c.oid),
        },
    })
}

/// A type made by the session's role is its own (a superuser's needs no
/// entry: `postgres` owns what has none). `name` is the type's catalog
/// name.
pub fn own_new(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<(), SqlError> {
    match oid_of(cx, txn, name)? {
        Some(oid) => privileges::set_owner(cx.db, u64::from(oid), cx.role),
        None => Ok(()),
    }
}

/// 42501 `must be owner of type t` unless the session's role owns the
/// type of catalog name `name`, if there is one (DROP TYPE | DOMAIN of
/// the types named; PostgreSQL says "type" for a domain too).
pub fn check_owner(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<(), SqlError> {
    match oid_of(cx, txn, name)? {
        Some(oid) => privileges::check_owner(cx, u64::from(oid), name, "type"),
        None => Ok(()),
    }
}

/// `GRANT | REVOKE [GRANT OPTION FOR] { USAGE | ALL [PRIVILEGES] } ON
/// { TYPE | DOMAIN } name, ...`, read as a [`RoutineGrant`] of kind
/// `type` or `domain`: applied by `privileges::apply`, the grant-option
/// rules of a relation's.
pub fn grant_or_revoke(
    cx: &Ctx<'_>,
    notices: &mut Vec<Notice>,
    grant: &RoutineGrant,
    names: &[String],
) -> Result<Output, SqlError> {
    for word in &grant.privileges {
        if word != "USAGE" {
            return Err(SqlError::new(
                "0LP01",
                format!("invalid privilege type {word} for type"),
            ));
        }
    }
    let mut targets = Vec::new();
    for name in names {
        let bare = folio_catalog::unqualified(name);
        let found = match user_type(bare) {
            Some(found) => found,
            None if bare.len() > 1
                && bare.starts_with('_')
                && (user_type(&bare[1..]).is_some() || built_in(&bare[1..])) =>
            {
                return Err(
                    SqlError::new("0LP01", "cannot set privileges of array types")
                        .with_hint("Set the privileges of the element type instead."),
                );
            }
            None if built_in(bare) => {
                return Err(SqlError::unsupported("privileges on built-in types"));
            }
            None => {
                return Err(SqlError::new(
                    "42704",
                    format!("type \"{name}\" does not exist"),
                ));
            }
        };
        if grant.kind == "domain" && !found.domain {
            return Err(SqlError::new(
                "42809",
                format!("\"{bare}\" is not a domain"),
            ));
        }
        targets.push((found.oid, bare.to_string()));
    }
    let grantees = (grant.grantees.iter())
        .map(|spec| crate::role_statements::grantee_oid(cx.db, cx.role, spec))
        .collect::<Result<Vec<_>, _>>()?;
    let change = Change {
        grant: grant.grant,
        privileges: USAGE,
        grantees: &grantees,
        grant_option: grant.grant_option,
        cascade: grant.cascade,
    };
    for (oid, name) in targets {
        if !privileges::apply(cx, u64::from(oid), None, &name, "type", &change)? {
            notices.push(crate::role_statements::unchanged(grant.grant, &name));
        }
    }
    Ok(Output::command(match grant.grant {
        true => "GRANT",
        false => "REVOKE",
    }))
}
