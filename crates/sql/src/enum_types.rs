//! `CREATE TYPE name AS ENUM (...)`, `DROP TYPE` (of an enum or a
//! composite type) and `ALTER TYPE` of an enum type (folio-catalog
//! `enums.rs` keeps them; README "Enum types"; a composite type's CREATE
//! is `composite_types.rs`).

use crate::context::Ctx;
use crate::drop_column::drop_columns_of_type;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use folio_catalog::LabelPlace;
use folio_txn::Transaction;
use sqlparser::ast::{
    AlterTypeAddValuePosition, AlterTypeOperation, ObjectName, UserDefinedTypeRepresentation,
};

/// `CREATE TYPE name AS ENUM ('a', ...)`, or a composite type's
/// (`composite_types.rs`).
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &ObjectName,
    representation: &UserDefinedTypeRepresentation,
) -> Result<Output, SqlError> {
    let labels = match representation {
        UserDefinedTypeRepresentation::Enum { labels } => labels,
        UserDefinedTypeRepresentation::Composite { attributes } => {
            return crate::composite_types::create(cx, txn, name, attributes);
        }
    };
    let name = names::relation(name)?;
    let labels: Vec<String> = labels.iter().map(|l| l.value.clone()).collect();
    cx.db.catalog().create_enum(txn, &name, &labels)?;
    Ok(Output::command("CREATE TYPE"))
}

/// `DROP TYPE [IF EXISTS] name, ... [CASCADE]`: under CASCADE the
/// columns of the type go first, with PostgreSQL's NOTICE.
pub fn drop(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    if_exists: bool,
    names: &[ObjectName],
    cascade: bool,
) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    for name in names {
        let name = names::relation(name)?;
        crate::type_privileges::check_owner(cx, txn, &name)?;
        // DROP TYPE of a domain is DROP DOMAIN (PostgreSQL's too).
        if catalog.domain_type(txn, &name)?.is_some() {
            let object = ObjectName::from(vec![sqlparser::ast::Ident::new(name.clone())]);
            crate::domains::drop(cx, txn, notices, false, &object, cascade)?;
            continue;
        }
        // A composite type's array type is stored too (an enum's is not).
        let oids = match catalog.enum_type(txn, &name)? {
            Some(def) => Some([def.oid, 0]),
            None => (catalog.composite_type(txn, &name)?).map(|def| [def.oid, def.array_oid]),
        };
        let Some(oids) = oids else {
            if if_exists {
                notices.push(Notice::info(format!(
                    "type \"{name}\" does not exist, skipping"
                )));
                continue;
            }
            return Err(SqlError::new(
                "42704",
                format!("type \"{name}\" does not exist"),
            ));
        };
        if cascade {
            for oid in oids.into_iter().filter(|o| *o != 0) {
                // The domains made over it, with their columns and the
                // domains made over them, then its own columns.
                for d in catalog.domains_over(txn, oid)? {
                    notices.extend(Notice::cascaded(&[format!("type {}", d.name)]));
                    let object = ObjectName::from(vec![sqlparser::ast::Ident::new(d.name.clone())]);
                    crate::domains::drop(cx, txn, notices, false, &object, true)?;
                }
                drop_columns_of_type(cx, txn, notices, oid)?;
            }
        }
        match catalog.enum_type(txn, &name)? {
            Some(_) => catalog.drop_enum(txn, &name)?,
            None => catalog.drop_composite(txn, &name)?,
        }
    }
    Ok(Output::command("DROP TYPE"))
}

/// `ALTER TYPE name ADD VALUE ... | RENAME VALUE ... | RENAME TO ...`.
pub fn alter(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    name: &ObjectName,
    operation: &AlterTypeOperation,
) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    let name = names::relation(name)?;
    // `ALTER TYPE d RENAME TO n` of a domain is ALTER DOMAIN's.
    if let AlterTypeOperation::Rename(r) = operation
        && catalog.domain_type(txn, &name)?.is_some()
    {
        cx.relations.ddl();
        catalog.rename_domain(txn, &name, &names::ident(&r.new_name))?;
        return Ok(Output::command("ALTER TYPE"));
    }
    if catalog.enum_type(txn, &name)?.is_none() {
        return Err(SqlError::new(
            "42704",
            format!("type \"{name}\" does not exist"),
        ));
    }
    match operation {
        AlterTypeOperation::AddValue(add) => {
            let place = match &add.position {
                None => LabelPlace::Last,
                Some(AlterTypeAddValuePosition::Before(l)) => LabelPlace::Before(&l.value),
                Some(AlterTypeAddValuePosition::After(l)) => LabelPlace::After(&l.value),
            };
            let label = &add.value.value;
            if !catalog.add_enum_label(txn, &name, label, place, add.if_not_exists)? {
                notices.push(Notice::info(format!(
                    "enum label \"{label}\" already exists, skipping"
                )));
            }
        }
        AlterTypeOperation::RenameValue(r) => {
            catalog.rename_enum_label(txn, &name, &r.from.value, &r.to.value)?
        }
        AlterTypeOperation::Rename(r) => {
            catalog.rename_enum(txn, &name, &names::ident(&r.new_name))?
        }
    }
    Ok(Output::command("ALTER TYPE"))
}
