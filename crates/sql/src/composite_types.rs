//! `CREATE TYPE name AS (field type, ...)`: a named composite type
//! (folio-catalog `composites.rs` keeps it; README "Composite types").
//! `DROP TYPE` of one is `enum_types::drop`, the one owner of DROP TYPE.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::Output;
use crate::types;
use folio_txn::Transaction;
use sqlparser::ast::{ObjectName, UserDefinedTypeCompositeAttributeDef};

/// `CREATE TYPE name AS (field type, ...)`: each field's type as a
/// column's (a domain's field keeps the domain's oid, as PostgreSQL's
/// `atttypid`).
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &ObjectName,
    attributes: &[UserDefinedTypeCompositeAttributeDef],
) -> Result<Output, SqlError> {
    let name = names::relation(name)?;
    let mut fields = Vec::with_capacity(attributes.len());
    for a in attributes {
        if a.collation.is_some() {
            return Err(SqlError::unsupported("COLLATE of a composite type's field"));
        }
        let ty = types::stored_column_type(&a.data_type)?;
        fields.push((
            names::ident(&a.name),
            crate::domains::type_oid(&a.data_type, ty),
            ty.typmod(),
        ));
    }
    cx.db.catalog().create_composite(txn, &name, &fields)?;
    Ok(Output::command("CREATE TYPE"))
}
