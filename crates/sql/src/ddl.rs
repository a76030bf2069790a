//! `CREATE TABLE` (with its key constraints), `DROP TABLE`, `TRUNCATE`
//! and `ALTER TABLE ... ADD PRIMARY KEY`.

use crate::error::SqlError;
use crate::indexes;
use crate::names;
use crate::output::{Notice, Output};
use crate::types;
use folio_catalog::ColumnDef;
use folio_db::{Database, Transaction};
use sqlparser::ast::{
    AlterTableOperation, ColumnOption, CreateTable, CreateTableOptions, Expr, IndexColumn,
    ObjectName, ObjectType, SqlOption, TableConstraint, TruncateTableTarget, Value as AstValue,
};

/// `CREATE TABLE [IF NOT EXISTS] name (column type [NOT NULL | NULL |
/// PRIMARY KEY | UNIQUE], ..., [PRIMARY KEY (columns)], [UNIQUE
/// (columns)]) [WITH (fillfactor = 100)]`: the table and its constraints'
/// indexes, in one savepoint-free step of the transaction (a failure
/// fails the statement, as any). Other constraints, defaults and options
/// are 0A000 for now (README "Status").
pub fn create_table(
    db: &Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    create: &CreateTable,
) -> Result<Output, SqlError> {
    let name = names::relation(&create.name)?;
    if create.or_replace || create.temporary || create.external {
        return Err(SqlError::unsupported(
            "CREATE TABLE with OR REPLACE, TEMPORARY or EXTERNAL",
        ));
    }
    if create.query.is_some() || create.like.is_some() || create.clone.is_some() {
        return Err(SqlError::unsupported("CREATE TABLE AS, LIKE or CLONE"));
    }
    if create.partition_by.is_some() || create.inherits.is_some() {
        return Err(SqlError::unsupported("partitioned or inherited tables"));
    }
    check_options(&create.table_options)?;
    let mut columns = Vec::with_capacity(create.columns.len());
    let mut primary: Option<Vec<String>> = None;
    let mut uniques: Vec<Vec<String>> = Vec::new();
    let mut set_primary = |keys: Vec<String>| match primary.replace(keys) {
        Some(_) => Err(SqlError::new(
            "42P16",
            format!("multiple primary keys for table \"{name}\" are not allowed"),
        )),
        None => Ok(()),
    };
    for column in &create.columns {
        let ty = types::column_type(&column.data_type)?;
        let column_name = names::ident(&column.name);
        let mut not_null = false;
        for option in &column.options {
            match option.option {
                ColumnOption::NotNull => not_null = true,
                ColumnOption::Null => not_null = false,
                ColumnOption::Unique {
                    is_primary: true,
                    characteristics: None,
                } => set_primary(vec![column_name.clone()])?,
                ColumnOption::Unique {
                    is_primary: false,
                    characteristics: None,
                } => uniques.push(vec![column_name.clone()]),
                ref other => {
                    return Err(SqlError::unsupported(format!("the column option {other}")));
                }
            }
        }
        columns.push(ColumnDef {
            name: column_name,
            type_oid: ty.oid(),
            typmod: ty.typmod(),
            not_null,
        });
    }
    for constraint in &create.constraints {
        if let Some(columns) = plain_primary_key(constraint) {
            set_primary(key_columns(columns)?)?;
            continue;
        }
        match constraint {
            TableConstraint::Unique {
                name: None,
                index_name: None,
                index_type: None,
                columns,
                index_options,
                characteristics: None,
                ..
            } if index_options.is_empty() => uniques.push(key_columns(columns)?),
            other => return Err(SqlError::unsupported(format!("the constraint {other}"))),
        }
    }
    // A primary key's columns are NOT NULL (PostgreSQL sets it).
    for key in primary.iter().flatten() {
        match columns.iter_mut().find(|c| c.name == *key) {
            Some(column) => column.not_null = true,
            None => {
                return Err(SqlError::new(
                    "42703",
                    format!("column \"{key}\" named in key does not exist"),
                ));
            }
        }
    }
    if create.if_not_exists && db.catalog().relation_exists(txn, &name)? {
        notices.push(Notice::info(format!(
            "relation \"{name}\" already exists, skipping"
        )));
        return Ok(Output::command("CREATE TABLE"));
    }
    db.catalog().create_table(txn, &name, &columns)?;
    if let Some(keys) = primary {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        db.catalog().add_primary_key(txn, &name, &keys)?;
    }
    for keys in uniques {
        indexes::add_unique(db, txn, &name, &keys)?;
    }
    Ok(Output::command("CREATE TABLE"))
}

/// Storage options: `fillfactor = 100` is what folio's heap does (pages
/// are filled); other values and other options are not supported yet.
fn check_options(options: &CreateTableOptions) -> Result<(), SqlError> {
    let list = match options {
        CreateTableOptions::None => return Ok(()),
        CreateTableOptions::With(list) => list,
        other => return Err(SqlError::unsupported(format!("the table options {other}"))),
    };
    for option in list {
        let fill_100 = matches!(option, SqlOption::KeyValue { key, value: Expr::Value(v) }
            if names::ident(key) == "fillfactor"
                && matches!(&v.value, AstValue::Number(n, _) if n == "100"));
        if !fill_100 {
            return Err(SqlError::unsupported(format!(
                "the storage option {option}"
            )));
        }
    }
    Ok(())
}

/// `DROP TABLE [IF EXISTS] name, ... [CASCADE]` (CASCADE drops nothing
/// more: no object depends on a table yet).
pub fn drop(
    db: &Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    object_type: ObjectType,
    if_exists: bool,
    names: &[ObjectName],
    _cascade: bool,
) -> Result<Output, SqlError> {
    match object_type {
        ObjectType::Table => {}
        ObjectType::Index => return indexes::drop_indexes(db, txn, notices, if_exists, names),
        other => return Err(SqlError::unsupported(format!("DROP {other}"))),
    }
    for name in names {
        let name = names::relation(name)?;
        if db.catalog().table(txn, &name)?.is_none() {
            if if_exists {
                notices.push(Notice::info(format!(
                    "table \"{name}\" does not exist, skipping"
                )));
                continue;
            }
            return Err(SqlError::new(
                "42P01",
                format!("table \"{name}\" does not exist"),
            ));
        }
        db.catalog().drop_table(txn, &name)?;
    }
    Ok(Output::command("DROP TABLE"))
}

/// `TRUNCATE [TABLE] name, ...` (folio-catalog `Catalog::truncate`: the
/// rows deleted under `ACCESS EXCLUSIVE`).
pub fn truncate(
    db: &Database,
    txn: &mut Transaction,
    tables: &[TruncateTableTarget],
) -> Result<Output, SqlError> {
    for target in tables {
        let name = names::relation(&target.name)?;
        db.catalog().truncate(txn, &name)?;
    }
    Ok(Output::command("TRUNCATE TABLE"))
}

/// `ALTER TABLE name ADD PRIMARY KEY (columns)`, the one change of a table
/// supported so far (folio-catalog `Catalog::add_primary_key`).
pub fn alter_table(
    db: &Database,
    txn: &mut Transaction,
    name: &ObjectName,
    operations: &[AlterTableOperation],
) -> Result<Output, SqlError> {
    let name = names::relation(name)?;
    for operation in operations {
        match operation {
            AlterTableOperation::AddConstraint {
                constraint,
                not_valid: false,
            } if plain_primary_key(constraint).is_some() => {
                let columns = plain_primary_key(constraint).expect("matched");
                let columns = key_columns(columns)?;
                let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
                db.catalog().add_primary_key(txn, &name, &columns)?;
            }
            other => return Err(SqlError::unsupported(format!("ALTER TABLE ... {other}"))),
        }
    }
    Ok(Output::command("ALTER TABLE"))
}

/// The columns of `PRIMARY KEY (columns)` without a name, index type or
/// options, if the constraint is one.
fn plain_primary_key(constraint: &TableConstraint) -> Option<&[IndexColumn]> {
    match constraint {
        TableConstraint::PrimaryKey {
            name: None,
            index_name: None,
            index_type: None,
            columns,
            index_options,
            characteristics: None,
        } if index_options.is_empty() => Some(columns),
        _ => None,
    }
}

/// The columns of a key constraint, by name, in ascending order.
fn key_columns(columns: &[IndexColumn]) -> Result<Vec<String>, SqlError> {
    columns
        .iter()
        .map(|column| {
            let plain =
                column.column.options.asc.is_none() && column.column.options.nulls_first.is_none();
            match indexes::ordered_column(column)? {
                (name, _) if plain => Ok(name),
                _ => Err(SqlError::unsupported(format!("the key column {column}"))),
            }
        })
        .collect()
}
