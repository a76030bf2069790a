//! folio's catalog (design: this crate's `README.md`): tables, columns and
//! indexes stored as rows of the database's own heap tables (`defs.rs`,
//! `codec.rs`) and changed transactionally (`catalog.rs`).

mod activity_file;
mod alter_type;
mod amcheck;
mod autovacuum;
mod catalog;
mod class_writes;
mod codec;
mod composites;
mod constraints;
mod currency;
mod defs;
mod descriptions;
mod domains;
mod drop_column;
mod enums;
mod error;
mod extensions;
mod functions;
mod hint_file;
mod index_exprs;
mod layout;
mod matviews;
mod object_lists;
mod per_table;
mod persistence;
mod reclaim;
mod reindex;
mod relation;
mod relation_members;
mod rewrite;
mod rules;
mod schemas;
mod sequences;
mod sizes;
mod statistics;
mod statistics_file;
mod storage_options;
mod table_maps_file;
mod temp;
mod toast;
mod triggers;
mod views;

pub use activity_file::ACTIVITY_FILE;
pub use alter_type::NewType;
pub use amcheck::IndexCheck;
pub use autovacuum::{
    Autovacuum, AutovacuumConfig, PassStats, TableActivity, autovacuum_pass, vacuum, vacuum_catalog,
};
pub use catalog::{
    CATALOG_TREE_NAMES, Catalog, CatalogTrees, DEFAULT_INDEX_BUILD_MEMORY, FIRST_OID, MAX_NAME_LEN,
    UNLOGGED_SEQUENCES_TREE,
};
pub use constraints::ForeignKeyRequest;
pub use defs::{
    ColumnDef, ConstraintDef, ConstraintKind, Deferrable, ForeignKey, IndexDef, KeyOrder, Matview,
    Nulls, Partition, RefAction, TableDef,
};
pub use descriptions::{Described, Description, MAX_COMMENT_BYTES};
pub use domains::{Dependent, DomainCheck, DomainType};
pub use enums::LabelPlace;
pub use error::CatalogError;
pub use extensions::ExtensionDef;
pub use functions::FunctionDef;
pub use index_exprs::{DerivedKeys, IndexEvaluator, IndexExprs, KeyExpr};
pub use layout::{DroppedColumn, Layout, dropped_name};
pub use object_lists::ObjectLists;
pub use persistence::{Persistence, UNLOGGED_ROOT};
pub use reclaim::ReclaimStats;
pub use relation::{Reads, Relation, RelationIndex, RowAt, UniqueRecheck};
pub use rewrite::Refill;
pub use rules::{RULE_DELETE, RULE_INSERT, RULE_UPDATE, RuleDef};
pub use schemas::{
    PG_CATALOG_OID, PUBLIC, PUBLIC_OID, SchemaDef, SchemaMember, qualified_name, split_schema,
};
pub use sequences::{
    INT2_OID, INT4_OID, INT8_OID, LOG_AHEAD, SequenceDef, SequenceOptions, SequenceRequest,
};
pub use statistics::{ColumnStats, DEFAULT_RANGE_SELECTIVITY, SAMPLE_ROWS, TableStats};
pub use statistics_file::STATISTICS_FILE;
pub use storage_options::StorageOptions;
pub use table_maps_file::TABLE_MAPS_FILE;
pub use temp::{split_temp_name, temp_name, temp_schema, temp_schema_number, unqualified};
pub use toast::{CHUNK_BYTES, TOAST_THRESHOLD};
pub use triggers::{
    TRIGGER_BEFORE, TRIGGER_DELETE, TRIGGER_INSERT, TRIGGER_INSTEAD, TRIGGER_ROW, TRIGGER_TRUNCATE,
    TRIGGER_UPDATE, TriggerDef, TriggerEnabled,
};
pub use views::{CheckOption, NewView, View, ViewDef, ViewDefault};
