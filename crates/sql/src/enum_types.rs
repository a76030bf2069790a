//! `CREATE TYPE name AS ENUM (...)`, `DROP TYPE` and `ALTER TYPE` of an
//! enum type (folio-catalog `enums.rs` keeps them; README "Enum types").

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

/// `CREATE TYPE name AS ENUM ('a', ...)`; a composite type is 0A000.
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &ObjectName,
    representation: &UserDefinedTypeRepresentation,
) -> Result<Output, SqlError> {
    let UserDefinedTypeRepresentation::Enum { labels } = representation else {
        return Err(SqlError::unsupported("composite types"));
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
        let Some(def) = catalog.enum_type(txn, &name)? else {
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
            drop_columns_of_type(cx, txn, notices, def.oid)?;
        }
        catalog.drop_enum(txn, &name)?;
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
