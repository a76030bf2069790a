//! What catalog operations report, with PostgreSQL's SQLSTATEs.

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Heap(#[from] folio_heap::HeapError),
    #[error(transparent)]
    Txn(#[from] folio_txn::TxnError),
    #[error(transparent)]
    Btree(#[from] folio_btree::BtreeError),
    #[error(transparent)]
    Buffer(#[from] folio_buffer::BufferError),
    #[error(transparent)]
    Row(#[from] folio_row::RowError),
    #[error(
        "null value in column \"{column}\" of relation \"{table}\" violates not-null constraint"
    )]
    NotNull {
        table: String,
        column: String,
        /// The row as PostgreSQL's DETAIL prints it (`1, null, a`).
        row: String,
        /// Its values' texts (`null` for NULL), in the columns' order:
        /// what the SQL layer shows a role that may not read them all.
        values: Vec<String>,
    },
    /// An index key of a type without a btree order (PostgreSQL's 42704).
    #[error("data type {0} has no default operator class for access method \"btree\"")]
    NoOperatorClass(String),
    #[error("column \"{column}\" has unsupported type oid {type_oid}")]
    UnsupportedType { column: String, type_oid: u32 },
    /// A row's key is already in a unique index; `detail` names it as
    /// PostgreSQL's DETAIL does (`Key (k)=(1) already exists.`).
    #[error("duplicate key value violates unique constraint \"{index}\"")]
    Duplicate {
        table: String,
        index: String,
        detail: Option<String>,
    },
    /// A unique index cannot be built: two rows share a key; `detail`
    /// names it as PostgreSQL's DETAIL does (`Key (v)=(a) is duplicated.`).
    #[error("could not create unique index \"{index}\"")]
    Duplicated {
        table: String,
        index: String,
        detail: Option<String>,
    },
    /// (Named bare, as PostgreSQL names it: without its schema.)
    #[error("relation \"{}\" already exists", crate::temp::unqualified(.0))]
    Exists(String),
    #[error("relation \"{0}\" does not exist")]
    NoSuchRelation(String),
    #[error("index \"{0}\" does not exist")]
    NoSuchIndex(String),
    #[error("column \"{column}\" of relation \"{table}\" does not exist")]
    NoSuchColumn { table: String, column: String },
    #[error("column \"{0}\" specified more than once")]
    DuplicateColumn(String),
    #[error("column \"{column}\" of relation \"{table}\" already exists")]
    ColumnExists { table: String, column: String },
    #[error("identifier \"{0}\" is too long (at most 63 bytes)")]
    NameTooLong(String),
    #[error("the catalog is corrupt: {0}")]
    Corrupt(String),
    /// An index expression's or predicate's error, as the SQL layer's
    /// evaluation of it gave it (`index_exprs.rs`).
    #[error("{message}")]
    Evaluation {
        code: &'static str,
        message: String,
        detail: Option<String>,
    },
    /// A comment past `descriptions::MAX_COMMENT_BYTES`.
    #[error("comment is too long (at most {0} bytes)")]
    CommentTooLong(usize),
    /// DDL on the table committed after this relation was read (the
    /// writer opens it again: `currency.rs`).
    #[error("could not serialize access due to concurrent DDL on relation \"{0}\" (open it again)")]
    Stale(String),
    #[error("index \"{index}\" and its table disagree: {detail}")]
    IndexMismatch { index: String, detail: String },
    #[error("multiple primary keys for table \"{0}\" are not allowed")]
    MultiplePrimaryKeys(String),
    /// `ALTER COLUMN ... DROP NOT NULL` of a primary key's column.
    #[error("column \"{0}\" is in a primary key")]
    InPrimaryKey(String),
    /// DROP TABLE of a table a foreign key of another table references.
    #[error("cannot drop table {table} because other objects depend on it")]
    Referenced {
        table: String,
        constraint: String,
        referencing: String,
    },
    /// DROP COLUMN of a column foreign keys reference, without CASCADE:
    /// each key's name and its table's.
    #[error("cannot drop column {column} of table {table} because other objects depend on it")]
    ColumnReferenced {
        table: String,
        column: String,
        dependents: Vec<(String, String)>,
    },
    /// DROP INDEX of a PRIMARY KEY or UNIQUE constraint's index.
    #[error("cannot drop index {index} because constraint {index} on table {table} requires it")]
    ConstraintIndex { index: String, table: String },
    /// DROP INDEX of the unique index a foreign key references through,
    /// or DROP CONSTRAINT of the key that index is (`as_constraint_of`:
    /// its table).
    #[error("cannot drop {} because other objects depend on it", needed(.index, .as_constraint_of))]
    IndexNeeded {
        index: String,
        as_constraint_of: Option<String>,
        constraint: String,
        table: String,
    },
    #[error("constraint \"{name}\" for relation \"{table}\" already exists")]
    ConstraintExists { table: String, name: String },
    #[error("constraint \"{name}\" of relation \"{table}\" does not exist")]
    NoSuchConstraint { table: String, name: String },
    #[error("there is no unique constraint matching given keys for referenced table \"{0}\"")]
    NoMatchingUnique(String),
    #[error("there is no primary key for referenced table \"{0}\"")]
    NoPrimaryKey(String),
    /// A foreign key onto a deferrable PRIMARY KEY or UNIQUE constraint
    /// (the only unique index over its columns), which PostgreSQL refuses.
    #[error("cannot use a deferrable {} for referenced table \"{table}\"", if *.primary { "primary key" } else { "unique constraint" })]
    DeferrableReferenced { primary: bool, table: String },
    #[error("number of referencing and referenced columns for foreign key disagree")]
    KeyArity,
    #[error("foreign key constraint \"{name}\" cannot be implemented")]
    IncompatibleKeys { name: String, detail: String },
    #[error("\"{0}\" is not a sequence")]
    NotASequence(String),
    /// A sequence option PostgreSQL refuses (its message).
    #[error("{0}")]
    InvalidSequence(String),
    #[error("nextval: reached {} value of sequence \"{name}\" ({bound})", if *maximum { "maximum" } else { "minimum" })]
    SequenceLimit {
        name: String,
        maximum: bool,
        bound: i64,
    },
    #[error("setval: value {value} is out of bounds for sequence \"{name}\" ({min}..{max})")]
    SequenceBounds {
        name: String,
        value: i64,
        min: i64,
        max: i64,
    },
    /// CREATE OR REPLACE VIEW or DROP VIEW of a relation that is no view.
    #[error("\"{0}\" is not a view")]
    NotAView(String),
    /// REFRESH MATERIALIZED VIEW of a relation that is none (PostgreSQL's
    /// code for it is 0A000).
    #[error("\"{0}\" is not a materialized view")]
    NotAMatview(String),
    /// `CLUSTER table USING index` with no index of that name on the
    /// table.
    #[error("index \"{index}\" for table \"{table}\" does not exist")]
    NoIndexForTable { index: String, table: String },
    /// `CLUSTER` on a partial index (PostgreSQL's code for it is 0A000).
    #[error("cannot cluster on partial index \"{0}\"")]
    PartialCluster(String),
    /// `CLUSTER table` of a table with no clustered index.
    #[error("there is no previously clustered index for table \"{0}\"")]
    NoClusteredIndex(String),
    /// A permanent table's foreign key to an unlogged table.
    #[error("constraints on permanent tables may reference only permanent tables")]
    PermanentReferencesUnlogged,
    /// `ALTER TABLE ... SET LOGGED | UNLOGGED` that would leave a
    /// permanent table's foreign key to an unlogged one (PostgreSQL's
    /// wording for both directions).
    #[error(
        "could not change table \"{table}\" to {} because it references {} table \"{other}\"",
        if *logged { "logged" } else { "unlogged" },
        if *logged { "unlogged" } else { "logged" }
    )]
    PersistenceReference {
        table: String,
        other: String,
        /// Whether the table was to become logged.
        logged: bool,
    },
    /// A foreign key referencing a materialized view.
    #[error("referenced relation \"{0}\" is not a table")]
    ReferencedNotATable(String),
    /// CREATE OR REPLACE VIEW whose columns drop or rename old ones
    /// (PostgreSQL's message and hint).
    #[error("{message}")]
    ViewChange {
        message: String,
        hint: Option<String>,
    },
    /// CREATE OR REPLACE VIEW that changes an old column's type (oid,
    /// modifier).
    #[error("cannot change data type of view column \"{column}\" from {} to {}", type_name(*.old), type_name(*.new))]
    ViewColumnType {
        column: String,
        old: (u32, i32),
        new: (u32, i32),
    },
    /// DROP of an object others depend on: each dependent as PostgreSQL
    /// names it (`view v`) with the object it depends on (`object`
    /// itself, or a dependent before it: `type d3` depends on `type d2`).
    #[error("cannot drop {object} because other objects depend on it")]
    DependedOn {
        object: String,
        dependents: Vec<(String, String)>,
    },
    /// CREATE TYPE or ALTER TYPE ... RENAME TO a name a type or relation
    /// has (`enums.rs`).
    #[error("type \"{0}\" already exists")]
    TypeExists(String),
    /// CREATE SCHEMA or ALTER SCHEMA ... RENAME TO a name a schema has
    /// (`schemas.rs`).
    #[error("schema \"{0}\" already exists")]
    SchemaExists(String),
    #[error("schema \"{0}\" does not exist")]
    NoSuchSchema(String),
    /// CREATE EXTENSION of one that exists (`extensions.rs`).
    #[error("extension \"{0}\" already exists")]
    ExtensionExists(String),
    #[error("extension \"{0}\" does not exist")]
    NoSuchExtension(String),
    /// A schema name with PostgreSQL's reserved prefix `pg_`.
    #[error("unacceptable schema name \"{0}\"")]
    ReservedSchema(String),
    /// A schema name with a `.`, which catalog names cannot hold.
    #[error("schema names containing \".\" are not supported: \"{0}\"")]
    DottedName(String),
    /// ALTER TABLE changing a column of a table whose row type a stored
    /// column has (`composites.rs`).
    #[error("cannot alter table \"{table}\" because column \"{user}\" uses its row type")]
    RowTypeUsed { table: String, user: String },
    /// Something folio does not do (0A000), named.
    #[error("{0} is not supported")]
    Unsupported(String),
    #[error("type \"{0}\" does not exist")]
    NoSuchType(String),
    /// CREATE FUNCTION of a name and argument types a function has
    /// (`functions.rs`).
    #[error("function \"{0}\" already exists with same argument types")]
    FunctionExists(String),
    /// DROP FUNCTION of a signature no function has.
    #[error("function {0} does not exist")]
    NoSuchFunction(String),
    /// CREATE TRIGGER of a name the table has (`triggers.rs`).
    #[error("trigger \"{0}\" for relation \"{1}\" already exists")]
    TriggerExists(String, String),
    /// CREATE OR REPLACE TRIGGER of a name a clone of a partitioned
    /// table's trigger has (`triggers.rs`).
    #[error("trigger \"{0}\" for relation \"{1}\" is an internal or a child trigger")]
    TriggerIsClone(String, String),
    /// DROP TRIGGER of a name the table has not.
    #[error("trigger \"{0}\" for table \"{1}\" does not exist")]
    NoSuchTrigger(String, String),
    /// CREATE RULE of a name the relation has (`rules.rs`).
    #[error("rule \"{0}\" for relation \"{1}\" already exists")]
    RuleExists(String, String),
    /// DROP RULE of a name the relation has not.
    #[error("rule \"{0}\" for relation \"{1}\" does not exist")]
    NoSuchRule(String, String),
    /// CREATE OR REPLACE FUNCTION changing what cannot change (42P13).
    #[error("{0}")]
    FunctionChange(String),
    /// A label an enum type cannot take or does not have, with
    /// PostgreSQL's SQLSTATE and message.
    #[error("{message}")]
    EnumLabel {
        sqlstate: &'static str,
        message: String,
    },
}

/// A type as PostgreSQL names it in messages.
fn type_name((oid, typmod): (u32, i32)) -> String {
    folio_row::SqlType::from_oid(oid, typmod)
        .map(folio_row::SqlType::name)
        .unwrap_or_else(|| format!("type {oid}"))
}

/// What [`CatalogError::IndexNeeded`] could not drop, as PostgreSQL names it.
fn needed(index: &str, as_constraint_of: &Option<String>) -> String {
    match as_constraint_of {
        Some(table) => format!("constraint {index} on table {table}"),
        None => format!("index {index}"),
    }
}

impl CatalogError {
    /// PostgreSQL's DETAIL for the condition, where it gives one.
    pub fn detail(&self) -> Option<String> {
        match self {
            CatalogError::Referenced {
                table,
                constraint,
                referencing,
            } => Some(format!(
                "constraint {constraint} on table {referencing} depends on table {table}"
            )),
            CatalogError::IndexNeeded {
                index,
                constraint,
                table,
                ..
            } => Some(format!(
                "constraint {constraint} on table {table} depends on index {index}"
            )),
            CatalogError::ColumnReferenced {
                table,
                column,
                dependents,
            } => Some(
                (dependents.iter())
                    .map(|(constraint, on)| {
                        format!(
                            "constraint {constraint} on table {on} depends on column {column} of table {table}"
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            CatalogError::IncompatibleKeys { detail, .. } => Some(detail.clone()),
            CatalogError::Duplicate { detail, .. } | CatalogError::Duplicated { detail, .. } => {
                detail.clone()
            }
            CatalogError::NotNull { row, .. } => Some(format!("Failing row contains ({row}).")),
            CatalogError::Evaluation { detail, .. } => detail.clone(),
            CatalogError::Txn(e) | CatalogError::Heap(folio_heap::HeapError::Txn(e)) => e.detail(),
            CatalogError::Row(e) => e.detail(),
            CatalogError::DependedOn { dependents, .. } => Some(
                (dependents.iter())
                    .map(|(d, on)| format!("{d} depends on {on}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            CatalogError::ReservedSchema(_) => {
                Some("The prefix \"pg_\" is reserved for system schemas.".into())
            }
            _ => None,
        }
    }

    /// The table the error is about, where PostgreSQL names it (its
    /// ErrorResponse field `t`).
    pub fn table(&self) -> Option<&str> {
        match self {
            CatalogError::Duplicate { table, .. }
            | CatalogError::Duplicated { table, .. }
            | CatalogError::NotNull { table, .. } => Some(table),
            _ => None,
        }
    }

    /// The failing row's values' texts, in the columns' order, of an
    /// error whose DETAIL prints the row.
    pub fn failing_row(&self) -> Option<&[String]> {
        match self {
            CatalogError::NotNull { values, .. } => Some(values),
            _ => None,
        }
    }

    /// The column the error is about, where PostgreSQL names it (field
    /// `c`): the NOT NULL column a row left NULL.
    pub fn column(&self) -> Option<&str> {
        match self {
            CatalogError::NotNull { column, .. } => Some(column),
            _ => None,
        }
    }

    /// The constraint the error is about, where PostgreSQL names it (field
    /// `n`): the unique index a duplicate key violates.
    pub fn constraint(&self) -> Option<&str> {
        match self {
            CatalogError::Duplicate { index, .. } | CatalogError::Duplicated { index, .. } => {
                Some(index)
            }
            _ => None,
        }
    }

    /// PostgreSQL's HINT for the condition, where it gives one.
    pub fn hint(&self) -> Option<String> {
        match self {
            CatalogError::Referenced { .. }
            | CatalogError::ColumnReferenced { .. }
            | CatalogError::IndexNeeded { .. }
            | CatalogError::DependedOn { .. } => {
                Some("Use DROP ... CASCADE to drop the dependent objects too.".into())
            }
            CatalogError::ViewChange { hint, .. } => hint.clone(),
            CatalogError::ConstraintIndex { index, table } => Some(format!(
                "You can drop constraint {index} on table {table} instead."
            )),
            CatalogError::Txn(e) | CatalogError::Heap(folio_heap::HeapError::Txn(e)) => {
                e.hint().map(str::to_string)
            }
            _ => None,
        }
    }

    /// The transaction manager's error this is, directly or through the
    /// heap.
    pub fn txn(&self) -> Option<&folio_txn::TxnError> {
        match self {
            CatalogError::Txn(e) | CatalogError::Heap(folio_heap::HeapError::Txn(e)) => Some(e),
            _ => None,
        }
    }

    /// PostgreSQL's SQLSTATE for the condition, if it has one.
    pub fn sqlstate(&self) -> Option<&'static str> {
        match self {
            CatalogError::Heap(e) => e.sqlstate(),
            CatalogError::Txn(e) => e.sqlstate(),
            CatalogError::Row(e) => Some(e.sqlstate()),
            CatalogError::NotNull { .. } => Some("23502"),
            CatalogError::Duplicate { .. } | CatalogError::Duplicated { .. } => Some("23505"),
            CatalogError::UnsupportedType { .. } => Some("0A000"),
            CatalogError::NoOperatorClass(_) => Some("42704"),
            CatalogError::Exists(_) => Some("42P07"),
            CatalogError::NoSuchRelation(_) => Some("42P01"),
            CatalogError::NoSuchIndex(_) => Some("42704"),
            CatalogError::NoSuchColumn { .. } => Some("42703"),
            CatalogError::DuplicateColumn(_) | CatalogError::ColumnExists { .. } => Some("42701"),
            CatalogError::NameTooLong(_) => Some("42622"),
            CatalogError::Corrupt(_) => Some("XX001"),
            CatalogError::Evaluation { code, .. } => Some(code),
            CatalogError::CommentTooLong(_) => Some("54000"),
            CatalogError::IndexMismatch { .. } => Some("XX002"),
            CatalogError::Stale(_) => Some("40001"),
            CatalogError::MultiplePrimaryKeys(_) => Some("42P16"),
            CatalogError::InPrimaryKey(_) => Some("42P16"),
            CatalogError::Referenced { .. }
            | CatalogError::ColumnReferenced { .. }
            | CatalogError::IndexNeeded { .. }
            | CatalogError::ConstraintIndex { .. } => Some("2BP01"),
            CatalogError::ConstraintExists { .. } => Some("42710"),
            CatalogError::NoSuchConstraint { .. } => Some("42704"),
            CatalogError::NoMatchingUnique(_) => Some("42830"),
            CatalogError::NoPrimaryKey(_) => Some("42704"),
            CatalogError::KeyArity => Some("42830"),
            CatalogError::DeferrableReferenced { .. } => Some("55000"),
            CatalogError::IncompatibleKeys { .. } => Some("42804"),
            CatalogError::NotASequence(_) => Some("42809"),
            CatalogError::InvalidSequence(_) => Some("22023"),
            CatalogError::SequenceLimit { .. } => Some("2200H"),
            CatalogError::SequenceBounds { .. } => Some("22003"),
            CatalogError::DependedOn { .. } => Some("2BP01"),
            CatalogError::NotAView(_) => Some("42809"),
            CatalogError::NotAMatview(_) => Some("0A000"),
            CatalogError::NoIndexForTable { .. } | CatalogError::NoClusteredIndex(_) => {
                Some("42704")
            }
            CatalogError::PartialCluster(_) => Some("0A000"),
            CatalogError::ReferencedNotATable(_) => Some("42809"),
            CatalogError::PermanentReferencesUnlogged
            | CatalogError::PersistenceReference { .. } => Some("42P16"),
            CatalogError::TypeExists(_) => Some("42710"),
            CatalogError::FunctionExists(_) => Some("42723"),
            CatalogError::NoSuchFunction(_) => Some("42883"),
            CatalogError::FunctionChange(_) => Some("42P13"),
            CatalogError::TriggerExists(..) | CatalogError::TriggerIsClone(..) => Some("42710"),
            CatalogError::NoSuchTrigger(..) => Some("42704"),
            CatalogError::RuleExists(..) => Some("42710"),
            CatalogError::NoSuchRule(..) => Some("42704"),
            CatalogError::SchemaExists(_) => Some("42P06"),
            CatalogError::NoSuchSchema(_) => Some("3F000"),
            CatalogError::ExtensionExists(_) => Some("42710"),
            CatalogError::NoSuchExtension(_) => Some("42704"),
            CatalogError::ReservedSchema(_) => Some("42939"),
            CatalogError::DottedName(_)
            | CatalogError::Unsupported(_)
            | CatalogError::RowTypeUsed { .. } => Some("0A000"),
            CatalogError::NoSuchType(_) => Some("42704"),
            CatalogError::EnumLabel { sqlstate, .. } => Some(sqlstate),
            CatalogError::ViewChange { .. } | CatalogError::ViewColumnType { .. } => Some("42P16"),
            _ => None,
        }
    }
}
