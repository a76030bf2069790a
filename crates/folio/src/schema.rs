//! A table's definition for [`crate::Transaction::create_table`]: its
//! columns, its primary key and its secondary indexes.

use crate::error::{Error, Result};
use folio_catalog::ColumnDef;
use folio_row::SqlType;

/// The columns, primary key and indexes of a new table.
///
/// ```
/// use folio::{Schema, Type};
/// let accounts = Schema::new("accounts")
///     .column("id", Type::Int8)
///     .column_not_null("owner", Type::Text)
///     .column("balance", Type::Int8)
///     .primary_key(&["id"])
///     .index("accounts_owner", &["owner"]);
/// ```
#[derive(Debug, Clone)]
pub struct Schema {
    pub(crate) name: String,
    pub(crate) columns: Vec<ColumnDef>,
    pub(crate) primary_key: Vec<String>,
    pub(crate) indexes: Vec<IndexSpec>,
}

/// A secondary index of a [`Schema`].
#[derive(Debug, Clone)]
pub(crate) struct IndexSpec {
    pub(crate) name: String,
    pub(crate) columns: Vec<String>,
    pub(crate) unique: bool,
}

/// The name of a table's primary-key index (PostgreSQL's naming): the
/// unique index that is the table's primary key.
pub(crate) fn primary_key_name(table: &str) -> String {
    format!("{table}_pkey")
}

impl Schema {
    /// A table named `name` (at most 63 bytes).
    pub fn new(name: &str) -> Schema {
        Schema {
            name: name.to_string(),
            columns: Vec::new(),
            primary_key: Vec::new(),
            indexes: Vec::new(),
        }
    }

    /// A column that may hold NULL (primary-key columns never do).
    pub fn column(self, name: &str, ty: SqlType) -> Schema {
        self.add_column(name, ty, false)
    }

    /// A `NOT NULL` column.
    pub fn column_not_null(self, name: &str, ty: SqlType) -> Schema {
        self.add_column(name, ty, true)
    }

    fn add_column(mut self, name: &str, ty: SqlType, not_null: bool) -> Schema {
        self.columns.push(ColumnDef {
            local: true,
            collation: None,
            name: name.to_string(),
            type_oid: ty.oid(),
            typmod: ty.typmod(),
            not_null,
        });
        self
    }

    /// The primary key's columns, in key order (required).
    pub fn primary_key(mut self, columns: &[&str]) -> Schema {
        self.primary_key = columns.iter().map(|c| c.to_string()).collect();
        self
    }

    /// A secondary index on `columns`.
    pub fn index(self, name: &str, columns: &[&str]) -> Schema {
        self.add_index(name, columns, false)
    }

    /// A unique secondary index on `columns`.
    pub fn unique_index(self, name: &str, columns: &[&str]) -> Schema {
        self.add_index(name, columns, true)
    }

    fn add_index(mut self, name: &str, columns: &[&str], unique: bool) -> Schema {
        self.indexes.push(IndexSpec {
            name: name.to_string(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            unique,
        });
        self
    }

    /// The columns as the catalog stores them: primary-key columns are
    /// NOT NULL. Errors: no primary key, or one naming a missing column
    /// (42P16 and 42703, as PostgreSQL).
    pub(crate) fn catalog_columns(&self) -> Result<Vec<ColumnDef>> {
        if self.primary_key.is_empty() {
            return Err(Error::invalid(
                "42P16",
                format!("table \"{}\" needs a primary key", self.name),
            ));
        }
        for key in &self.primary_key {
            if !self.columns.iter().any(|c| &c.name == key) {
                return Err(Error::UndefinedColumn(format!(
                    "column \"{key}\" named in key does not exist"
                )));
            }
        }
        Ok(self
            .columns
            .iter()
            .map(|c| ColumnDef {
                not_null: c.not_null || self.primary_key.contains(&c.name),
                ..c.clone()
            })
            .collect())
    }
}
