//! The catalog: tables, columns and indexes, stored as rows of the
//! database's own heap tables and changed by transactions like any row.
//!
//! - **Visibility.** A table created in a transaction is a `folio.class`
//!   row that transaction inserted: other transactions see it once it
//!   commits (by their snapshots), nobody after a rollback. Dropping is
//!   deleting the rows, with the same rules.
//! - **Names are unique** through a unique index on `folio.class`'s name,
//!   correct under MVCC (folio-heap): a second `CREATE TABLE` of a name
//!   waits for a running creator and fails with 42P07 if it commits.
//! - **DDL on one table is serialised by a lock, not by luck**: DDL locks
//!   the table's `folio.class` row (`Table::lock`, `FOR UPDATE`), so a
//!   second DDL waits for the first transaction to end, then sees its
//!   outcome (a dropped table is gone: 42P01).
//! - **Storage.** A table's page list and an index's tree are created
//!   when the DDL runs and named by their root in the catalog row. After a
//!   `DROP` commits, their pages go back to the free list once every
//!   transaction that began before has ended (`reclaim.rs`); if a
//!   creating transaction rolls back, its pages are not given back yet.
//! - **Oids** come from a counter in a logged tree, outside transactions
//!   (as PostgreSQL's OID counter): a rolled-back DDL leaves a gap.
//!
//! Catalog writes run inside a savepoint of the caller's transaction, so
//! a failed DDL statement leaves no half-written rows behind.

use crate::autovacuum::{Activity, TableActivity};
use crate::class_writes::ClassTable;
use crate::currency::DdlMarks;
use crate::defs::{
    AttributeRow, ClassRow, ColumnDef, Deferrable, IndexDef, KIND_INDEX, KIND_SEQUENCE, KIND_TABLE,
    KIND_VIEW, KeyOrder, Nulls, TableDef,
};
use crate::error::CatalogError;
use crate::index_exprs::{IndexEvaluator, IndexExprs};
use crate::layout::Layout;
use crate::per_table::PerTable;
use crate::persistence::Persistence;
use crate::statistics::StatsSlot;
use crate::toast::{TOAST_OID, Toast};
use folio_btree::{MultiTree, Tree};
use folio_buffer::BufferPool;
use folio_heap::{HeapError, Index, Table, Tid, VacuumStats, Write};
use folio_txn::{LockMode, Transaction, TxnManager};
use folio_wal::Wal;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

/// What an index enforces (`Catalog::build_index`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IndexKind {
    Plain,
    /// Unique, NULLs distinct or not.
    Unique(Nulls),
    /// Unique, made by a UNIQUE constraint (which may be deferrable).
    UniqueConstraint(Deferrable, Nulls),
    /// Unique, and the table's primary key (which may be deferrable).
    Primary(Deferrable),
}

impl IndexKind {
    /// What index `def` enforces.
    pub(crate) fn of(def: &IndexDef) -> IndexKind {
        match (def.primary, def.constraint, def.unique) {
            (true, _, _) => IndexKind::Primary(def.deferrable),
            (false, true, _) => IndexKind::UniqueConstraint(def.deferrable, def.nulls),
            (false, false, true) => IndexKind::Unique(def.nulls),
            (false, false, false) => IndexKind::Plain,
        }
    }
}

/// Key columns in PostgreSQL's default order (ASC NULLS LAST).
fn ascending<'c>(columns: &[&'c str]) -> Vec<(&'c str, KeyOrder)> {
    columns.iter().map(|c| (*c, KeyOrder::default())).collect()
}

/// The keys of an index being built: its key positions (a column's, or
/// [`IndexDef::EXPRESSION`]), their orders, and its expressions and
/// predicate.
pub(crate) struct IndexKeys {
    pub positions: Vec<u16>,
    pub order: Vec<KeyOrder>,
    pub exprs: IndexExprs,
}

impl IndexKeys {
    /// The keys of an existing index (to build it again).
    pub(crate) fn of(index: &IndexDef) -> IndexKeys {
        IndexKeys {
            positions: index.columns.clone(),
            order: index.order.clone(),
            exprs: index.exprs.clone(),
        }
    }
}

/// Key positions that are all columns, by name.
fn named<'c>(columns: &[(&'c str, KeyOrder)]) -> Vec<(Option<&'c str>, KeyOrder)> {
    columns.iter().map(|&(c, o)| (Some(c), o)).collect()
}

/// The first oid handed out (PostgreSQL's `FirstNormalObjectId`).
pub const FIRST_OID: u64 = 16384;

/// The oid under which autovacuum counts the catalog's own changes (below
/// [`FIRST_OID`], so no relation has it; the toast table's is 0).
pub(crate) const CATALOG_OID: u64 = 1;
/// Longest name, in bytes (PostgreSQL's `NAMEDATALEN - 1`).
pub const MAX_NAME_LEN: usize = 63;
const SAVEPOINT: &str = "folio.catalog";

/// The trees the catalog's own tables live in (the database keeps them in
/// its root map).
#[derive(Debug)]
pub struct CatalogTrees {
    pub classes: Tree,
    pub class_names: MultiTree,
    pub attributes: Tree,
    pub attribute_tables: MultiTree,
    pub oids: Tree,
    pub toast: Tree,
    pub toast_values: MultiTree,
    pub constraints: Tree,
    pub constraint_tables: MultiTree,
    /// `folio.dropped`: dropped relations whose pages are not back yet
    /// (`reclaim.rs`).
    pub dropped: Tree,
    /// `folio.description` and its index by relation oid
    /// (`descriptions.rs`).
    pub descriptions: Tree,
    pub description_relations: MultiTree,
    /// Unlogged sequences' values: a tree of the unlogged pool (in its
    /// own root map, [`UNLOGGED_SEQUENCES_TREE`]), new with its file.
    pub unlogged_sequences: Tree,
}

/// The unlogged pool's root-map name of
/// [`CatalogTrees::unlogged_sequences`].
pub const UNLOGGED_SEQUENCES_TREE: &str = "folio.unlogged_sequence";

/// The root-map names of [`CatalogTrees`], in field order.
pub const CATALOG_TREE_NAMES: [&str; 12] = [
    "folio.class",
    "folio.class_name",
    "folio.attribute",
    "folio.attribute_table",
    "folio.oid",
    "folio.toast",
    "folio.toast_value",
    "folio.constraint",
    "folio.constraint_table",
    "folio.dropped",
    "folio.description",
    "folio.description_relation",
];

/// The catalog of one database.
#[derive(Debug)]
pub struct Catalog {
    pub(crate) pool: Arc<BufferPool>,
    pub(crate) wal: Arc<Wal>,
    /// The pool of unlogged relations (`persistence.rs`).
    pub(crate) unlogged_pool: Arc<BufferPool>,
    /// `folio.class`, its writes noted (`class_writes.rs`).
    pub(crate) classes: ClassTable,
    pub(crate) class_names: Index,
    /// `folio.attribute`, its writes noted as class writes are: a
    /// table's columns are its row type (`object_lists.rs`).
    pub(crate) attributes: ClassTable,
    pub(crate) attribute_tables: Index,
    /// `folio.constraint` (`constraints.rs`), indexed by the constrained
    /// table's oid and, for a foreign key, also by the referenced one's.
    pub(crate) constraints: Table,
    pub(crate) constraint_tables: Index,
    /// `folio.description` (`descriptions.rs`), indexed by relation oid.
    pub(crate) descriptions: Table,
    pub(crate) description_relations: Index,
    oids: Arc<Oids>,
    activity: Activity,
    statistics: PerTable<StatsSlot>,
    /// The data directory, where autovacuum's counts and ANALYZE's
    /// statistics are kept (`activity_file.rs`, `statistics_file.rs`);
    /// unset, they live in memory only.
    files: std::sync::OnceLock<Arc<dyn folio_io::Dir>>,
    /// The SQL layer's compiler of index expressions and predicates
    /// (`index_exprs.rs`).
    index_evaluator: std::sync::OnceLock<Arc<dyn IndexEvaluator>>,
    /// DDL marks by table oid (`currency.rs`).
    pub(crate) ddl_marks: DdlMarks,
    /// Whether the database has user schemas: 0 unknown, 1 none, 2 some
    /// (`schemas.rs`: `has_schemas`).
    pub(crate) schemas_seen: std::sync::atomic::AtomicU8,
    /// Open heaps by the root of their storage (`open_table`).
    tables: Mutex<std::collections::HashMap<folio_page::PageId, Arc<Table>>>,
    /// All-visible words and pages with room kept across a clean restart,
    /// by the root of the table's storage, until `open_table` opens the table
    /// (`table_maps_file.rs`).
    saved_maps: Mutex<crate::table_maps_file::SavedMaps>,
    pub(crate) toast: Arc<Toast>,
    /// Sequence values, outside transactions (`sequences.rs`).
    pub(crate) sequence_values: crate::sequences::Values,
    /// The list of dropped relations (`reclaim.rs`).
    pub(crate) dropped: Tree,
    /// Held for reading by whoever uses a relation's storage without a
    /// transaction that began before its drop could commit (a vacuum), for
    /// writing by a reclaim, which frees dropped relations' pages.
    pub(crate) storage_guard: RwLock<()>,
    /// Bytes of entries an index build sorts in memory to build bottom-up
    /// (`Relation::build_index`; PostgreSQL's `maintenance_work_mem`).
    build_memory: std::sync::atomic::AtomicUsize,
    /// The temporary namespaces sessions hold (`temp.rs`).
    pub(crate) temp_namespaces: Mutex<std::collections::BTreeSet<u32>>,
}

/// The default of [`Catalog::set_index_build_memory`]: 256 MiB.
pub const DEFAULT_INDEX_BUILD_MEMORY: usize = 256 << 20;

/// The `folio.attribute` row of `column` among a table's `attributes`
/// (42703 if it has none; a dropped column is none).
pub(crate) fn attribute_named(
    attributes: Vec<(Tid, AttributeRow)>,
    table_name: &str,
    column: &str,
) -> Result<(Tid, AttributeRow), CatalogError> {
    attributes
        .into_iter()
        .find(|(_, row)| !row.dropped && row.column.name == column)
        .ok_or_else(|| CatalogError::NoSuchColumn {
            table: table_name.to_string(),
            column: column.to_string(),
        })
}

pub(crate) fn corrupt(reason: String) -> CatalogError {
    CatalogError::Corrupt(reason)
}

pub(crate) fn check_name(name: &str) -> Result<(), CatalogError> {
    // A schema's prefix (a temporary namespace's too) is no part of the
    // name.
    if crate::temp::unqualified(name).len() > MAX_NAME_LEN {
        return Err(CatalogError::NameTooLong(name.to_string()));
    }
    Ok(())
}

impl Catalog {
    /// The catalog over `trees` in `pool`, logging to `wal`; unlogged
    /// relations live in `unlogged_pool` (`persistence.rs`).
    pub fn open(
        pool: Arc<BufferPool>,
        wal: Arc<Wal>,
        unlogged_pool: Arc<BufferPool>,
        trees: CatalogTrees,
    ) -> Catalog {
        let oids = Arc::new(Oids {
            tree: trees.oids.clone(),
            lock: Mutex::new(()),
        });
        Catalog {
            classes: ClassTable::new(Table::open(pool.clone(), wal.clone(), trees.classes)),
            class_names: Index::open("folio_class_name_index", trees.class_names, true),
            attributes: ClassTable::new(Table::open(pool.clone(), wal.clone(), trees.attributes)),
            attribute_tables: Index::open(
                "folio_attribute_table_index",
                trees.attribute_tables,
                false,
            ),
            constraints: Table::open(pool.clone(), wal.clone(), trees.constraints),
            constraint_tables: Index::open(
                "folio_constraint_table_index",
                trees.constraint_tables,
                false,
            ),
            descriptions: Table::open(pool.clone(), wal.clone(), trees.descriptions),
            description_relations: Index::open(
                "folio_description_relation_index",
                trees.description_relations,
                false,
            ),
            activity: Activity::default(),
            statistics: PerTable::default(),
            files: std::sync::OnceLock::new(),
            index_evaluator: std::sync::OnceLock::new(),
            ddl_marks: DdlMarks::default(),
            schemas_seen: std::sync::atomic::AtomicU8::new(0),
            tables: Mutex::new(std::collections::HashMap::new()),
            saved_maps: Mutex::default(),
            toast: Arc::new(Toast {
                table: Table::open(pool.clone(), wal.clone(), trees.toast),
                index: Index::open("folio_toast_value_index", trees.toast_values, false),
                ids: oids.clone(),
            }),
            oids,
            // Sequence values share the logged tree of the oid counter
            // (keys `s` + oid; the counter's is `next`).
            sequence_values: crate::sequences::Values::new(
                trees.oids.clone(),
                wal.clone(),
                trees.unlogged_sequences,
            ),
            dropped: trees.dropped,
            storage_guard: RwLock::new(()),
            build_memory: DEFAULT_INDEX_BUILD_MEMORY.into(),
            temp_namespaces: Mutex::default(),
            pool,
            wal,
            unlogged_pool,
        }
    }

    /// The ids of the catalog's own tables and indexes (folio-txn
    /// `TxnManager::set_system_relations`: SERIALIZABLE takes no SIREAD
    /// locks on them, as PostgreSQL on its system catalogs).
    pub fn system_relation_ids(&self) -> Vec<u64> {
        vec![
            self.classes.id(),
            self.class_names.id(),
            self.attributes.id(),
            self.attribute_tables.id(),
            self.constraints.id(),
            self.constraint_tables.id(),
            self.descriptions.id(),
            self.description_relations.id(),
            self.toast.table.id(),
            self.toast.index.id(),
        ]
    }

    /// Sets how many bytes of entries an index build may sort in memory
    /// to build the index bottom-up; a build needing more inserts one
    /// entry per row (default [`DEFAULT_INDEX_BUILD_MEMORY`]).
    pub fn set_index_build_memory(&self, bytes: usize) {
        self.build_memory
            .store(bytes, std::sync::atomic::Ordering::Relaxed);
    }

    /// The bytes an index build may sort in memory
    /// ([`Catalog::set_index_build_memory`]).
    pub(crate) fn index_build_memory(&self) -> usize {
        self.build_memory.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Lends the catalog the compiler of index expressions and predicates
    /// (the SQL layer's; the first one set stays).
    pub fn set_index_evaluator(&self, evaluator: Arc<dyn IndexEvaluator>) {
        let _ = self.index_evaluator.set(evaluator);
    }

    /// The compiler of index expressions and predicates, once lent.
    pub(crate) fn index_evaluator(&self) -> Option<Arc<dyn IndexEvaluator>> {
        self.index_evaluator.get().cloned()
    }

    /// `CREATE TABLE name (columns)`.
    pub fn create_table(
        &self,
        txn: &mut Transaction,
        name: &str,
        columns: &[ColumnDef],
    ) -> Result<TableDef, CatalogError> {
        self.create_heap_relation(txn, name, columns, None, Persistence::Permanent)
    }

    /// `CREATE [UNLOGGED] TABLE name (columns)` (`persistence.rs`).
    pub fn create_table_with(
        &self,
        txn: &mut Transaction,
        name: &str,
        columns: &[ColumnDef],
        persistence: Persistence,
    ) -> Result<TableDef, CatalogError> {
        self.create_heap_relation(txn, name, columns, None, persistence)
    }

    /// A relation with a heap: a table, or with `matview` a materialized
    /// view (`matviews.rs`), its class row of kind `m` holding the view's
    /// body and state.
    pub(crate) fn create_heap_relation(
        &self,
        txn: &mut Transaction,
        name: &str,
        columns: &[ColumnDef],
        matview: Option<crate::defs::Matview>,
        persistence: Persistence,
    ) -> Result<TableDef, CatalogError> {
        // Pages of relations dropped earlier come back first, so this
        // table's allocations can reuse them.
        self.reclaim(txn.manager())?;
        check_name(name)?;
        for (i, c) in columns.iter().enumerate() {
            check_name(&c.name)?;
            if columns[..i].iter().any(|d| d.name == c.name) {
                return Err(CatalogError::DuplicateColumn(c.name.clone()));
            }
        }
        if self.class(txn, name)?.is_some() {
            return Err(CatalogError::Exists(name.to_string()));
        }
        let (enums, domains, composites) = self.lock_types_of(txn, columns)?;
        let oid = self.next_oid()?;
        let root = self.create_pages(persistence)?;
        let class = match &matview {
            None => ClassRow::new(oid, name, KIND_TABLE, root),
            Some(m) => crate::matviews::class_row(oid, name, root, m),
        };
        self.in_savepoint(txn, |txn| {
            // Its pages come back if this rolls back (`reclaim.rs`).
            self.note_created(txn, oid, KIND_TABLE, class.root)?;
            self.insert_class(txn, &class)?;
            self.insert_columns(txn, oid, columns)
        })?;
        Ok(TableDef {
            oid,
            name: name.to_string(),
            columns: columns.to_vec(),
            layout: Layout::dense(columns.len()),
            root,
            indexes: Vec::new(),
            constraints: Vec::new(),
            referenced_by: Vec::new(),
            partitions: Vec::new(),
            children: Vec::new(),
            enums,
            domains,
            composites,
            matview,
            storage: Default::default(),
        })
    }

    /// `CREATE [UNIQUE] INDEX index_name ON table_name (columns)`: the
    /// catalog entry, the tree, and an entry for every row the creating
    /// transaction sees (a unique index refuses duplicates there: 23505),
    /// under the table's DDL lock. DML of other transactions on the table
    /// takes no table lock yet, so a concurrent writer's row may miss the
    /// new index: the caller must not run the two together (README).
    pub fn create_index(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        index_name: &str,
        columns: &[&str],
        unique: bool,
    ) -> Result<IndexDef, CatalogError> {
        self.create_index_ordered(txn, table_name, index_name, &ascending(columns), unique)
    }

    /// `ALTER TABLE table_name ADD [CONSTRAINT index_name] UNIQUE [NULLS
    /// [NOT] DISTINCT] (columns) [INCLUDE (include)] [DEFERRABLE ...]`:
    /// the unique index the constraint is, marked as one
    /// ([`IndexDef::constraint`]: DROP CONSTRAINT drops it, DROP INDEX
    /// does not).
    pub fn add_unique_constraint(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        index_name: &str,
        (columns, include): (&[&str], &[&str]),
        deferrable: Deferrable,
        nulls: Nulls,
    ) -> Result<IndexDef, CatalogError> {
        self.build_ascending(
            txn,
            table_name,
            index_name,
            (columns, include),
            IndexKind::UniqueConstraint(deferrable, nulls),
        )
    }

    /// The unique index `index_name` that is `table_name`'s primary key
    /// ([`IndexDef::primary`]), its columns as they are: what
    /// [`Catalog::add_primary_key`] builds after making them NOT NULL.
    pub fn create_primary_index(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        index_name: &str,
        columns: &[&str],
        include: &[&str],
        deferrable: Deferrable,
    ) -> Result<IndexDef, CatalogError> {
        self.build_ascending(
            txn,
            table_name,
            index_name,
            (columns, include),
            IndexKind::Primary(deferrable),
        )
    }

    /// An index of `kind` over `columns`, each ascending (a constraint's),
    /// with the `include`d columns.
    fn build_ascending(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        index_name: &str,
        (columns, include): (&[&str], &[&str]),
        kind: IndexKind,
    ) -> Result<IndexDef, CatalogError> {
        let columns = ascending(columns);
        self.build_index(
            txn,
            table_name,
            index_name,
            (&named(&columns), include),
            IndexExprs::default(),
            kind,
        )
    }

    /// [`Catalog::create_index`] with each column's order (`DESC`, `NULLS
    /// FIRST`).
    pub fn create_index_ordered(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        index_name: &str,
        columns: &[(&str, KeyOrder)],
        unique: bool,
    ) -> Result<IndexDef, CatalogError> {
        self.create_index_derived(
            txn,
            table_name,
            index_name,
            (&named(columns), &[]),
            IndexExprs::default(),
            unique.then_some(Nulls::Distinct),
        )
    }

    /// [`Catalog::create_index_ordered`] of an expression or partial
    /// index: each key position is a column (named) or the next of
    /// `exprs`' expressions (`None`), and `exprs` holds its predicate
    /// (README, "Expression and partial indexes"). Its entries are
    /// computed by the evaluator the SQL layer lent
    /// ([`Catalog::set_index_evaluator`]). The columns named second are
    /// its included ones (`INCLUDE`: [`IndexExprs::include`]). `unique`:
    /// how a unique index compares NULLs (`None`: not unique).
    pub fn create_index_derived(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        index_name: &str,
        keys: (&[(Option<&str>, KeyOrder)], &[&str]),
        exprs: IndexExprs,
        unique: Option<Nulls>,
    ) -> Result<IndexDef, CatalogError> {
        let kind = match unique {
            Some(nulls) => IndexKind::Unique(nulls),
            None => IndexKind::Plain,
        };
        self.build_index(txn, table_name, index_name, keys, exprs, kind)
    }

    /// Creates and fills an index of `kind` (`create_index_derived`,
    /// `create_primary_index`, `add_unique_constraint`).
    fn build_index(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        index_name: &str,
        (columns, include): (&[(Option<&str>, KeyOrder)], &[&str]),
        mut exprs: IndexExprs,
        kind: IndexKind,
    ) -> Result<IndexDef, CatalogError> {
        self.reclaim(txn.manager())?;
        check_name(index_name)?;
        // An index lives in its table's schema.
        let index_name = &crate::schemas::in_schema_of(table_name, index_name);
        let table = self.lock_table(txn, table_name)?;
        // Writers of the table wait, and are waited for (`SHARE`).
        self.lock_for_ddl(txn, table.oid, LockMode::Share)?;
        let order: Vec<KeyOrder> = columns.iter().map(|(_, o)| *o).collect();
        let positions =
            columns
                .iter()
                .map(|(c, _)| match c {
                    None => Ok(IndexDef::EXPRESSION),
                    Some(c) => table.column(c).map(|p| p as u16).ok_or_else(|| {
                        CatalogError::NoSuchColumn {
                            table: table_name.to_string(),
                            column: c.to_string(),
                        }
                    }),
                })
                .collect::<Result<Vec<u16>, _>>()?;
        exprs.include = (include.iter())
            .map(|c| {
                table
                    .column(c)
                    .map(|p| p as u16)
                    .ok_or_else(|| CatalogError::NoSuchColumn {
                        table: table_name.to_string(),
                        column: c.to_string(),
                    })
            })
            .collect::<Result<Vec<u16>, _>>()?;
        let expression_keys = positions.iter().filter(|&&p| p == IndexDef::EXPRESSION);
        if expression_keys.count() != exprs.keys.len() {
            return Err(CatalogError::Corrupt(format!(
                "index \"{index_name}\": its key positions and expressions disagree"
            )));
        }
        if self.class(txn, index_name)?.is_some() {
            return Err(CatalogError::Exists(index_name.to_string()));
        }
        // A key constraint's name is also one of the table's constraint
        // names (PostgreSQL's index_create, after the relation name).
        let bare = crate::temp::unqualified(index_name);
        if matches!(
            kind,
            IndexKind::Primary(_) | IndexKind::UniqueConstraint(..)
        ) && table.constraints.iter().any(|c| c.name == bare)
        {
            return Err(CatalogError::ConstraintExists {
                table: crate::temp::unqualified(table_name).to_string(),
                name: bare.to_string(),
            });
        }
        let keys = IndexKeys {
            positions,
            order,
            exprs,
        };
        self.build_index_over(txn, &table, index_name, keys, kind)
    }

    /// Creates index `index_name` of `kind` over the `keys` of `table`
    /// (locked, the name free) and fills it from
    /// every row a snapshot taken now sees: [`Catalog::build_index`], and
    /// a column type change's rebuild of an index (`alter_type.rs`).
    pub(crate) fn build_index_over(
        &self,
        txn: &mut Transaction,
        table: &TableDef,
        index_name: &str,
        keys: IndexKeys,
        kind: IndexKind,
    ) -> Result<IndexDef, CatalogError> {
        let IndexKeys {
            positions,
            order,
            exprs,
        } = keys;
        let unique = kind != IndexKind::Plain;
        let (primary, constraint, deferrable, nulls) = match kind {
            IndexKind::Primary(deferrable) => (true, true, deferrable, Nulls::Distinct),
            IndexKind::UniqueConstraint(deferrable, nulls) => (false, true, deferrable, nulls),
            IndexKind::Unique(nulls) => (false, false, Deferrable::No, nulls),
            IndexKind::Plain => (false, false, Deferrable::No, Nulls::Distinct),
        };
        // json has no btree order in PostgreSQL; jsonb has one, which
        // folio's keys do not encode. Arrays of other types have keys.
        let column_types = (positions.iter())
            .filter(|&&p| p != IndexDef::EXPRESSION)
            .map(|&p| table.columns[usize::from(p)].type_oid);
        for type_oid in column_types.chain(exprs.keys.iter().map(|k| k.type_oid)) {
            match type_oid {
                114 => return Err(CatalogError::NoOperatorClass("json".into())),
                // An array's key is its elements' (folio-row `key.rs`),
                // which json and jsonb elements have not.
                array
                    if folio_row::SqlType::from_oid(array, -1).is_some_and(|t| {
                        matches!(
                            t.element(),
                            Some(folio_row::SqlType::Json | folio_row::SqlType::Jsonb)
                        )
                    }) =>
                {
                    return Err(CatalogError::Row(folio_row::RowError::Unsupported(
                        "an index of an array of json or jsonb is not supported".into(),
                    )));
                }
                3802 => {
                    return Err(CatalogError::Row(folio_row::RowError::Unsupported(
                        "an index of a jsonb column is not supported".into(),
                    )));
                }
                _ => {}
            }
        }
        let oid = self.next_oid()?;
        // folio-row's keys are prefix-free: stored as they are. An index
        // has its table's persistence.
        let (_, root) = self.create_index_tree(Persistence::of(table.root))?;
        let class = ClassRow {
            oid,
            name: index_name.to_string(),
            kind: KIND_INDEX,
            root,
            table_oid: table.oid,
            unique,
            prefix_free: true,
            primary,
            constraint,
            clustered: false,
            deferrable,
            nulls,
            columns: positions.clone(),
            order: order.clone(),
            sequence: None,
            always: false,
            identity: false,
            generation: 0,
            view: None,
            populated: false,
            exprs: exprs.clone(),
            enum_body: None,
            domain: None,
            composite: None,
            function: None,
            trigger: None,
            storage: Default::default(),
            rule: None,
        };
        let def = IndexDef {
            oid,
            name: index_name.to_string(),
            table_oid: table.oid,
            columns: positions,
            order,
            unique,
            prefix_free: true,
            primary,
            constraint,
            clustered: false,
            root,
            exprs,
            deferrable,
            nulls,
        };
        // Built from a snapshot taken now, with writers locked out: every
        // committed row gets its entry, whatever the transaction's
        // snapshot (REPEATABLE READ's may be older than the last writer).
        txn.with_latest_snapshot(|txn| {
            self.in_savepoint(txn, |txn| {
                self.note_created(txn, oid, KIND_INDEX, class.root)?;
                self.insert_class(txn, &class)?;
                let mut relation = self.open_relation(TableDef {
                    indexes: vec![def.clone()],
                    ..table.clone()
                })?;
                relation.indexes.truncate(1);
                let memory = self.index_build_memory();
                relation.build_index(txn, 0, memory)
            })
        })?;
        Ok(def)
    }

    /// `DROP TABLE name` (and its indexes, defaults and constraints), under
    /// the table's DDL lock. A table another table's foreign key references
    /// is 2BP01 (drop that constraint first: `drop_constraint`).
    pub fn drop_table(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        if let Some(fk) = table
            .referenced_by
            .iter()
            .find(|c| c.table_oid != table.oid)
        {
            return Err(CatalogError::Referenced {
                table: name.to_string(),
                constraint: fk.name.clone(),
                referencing: fk.table.clone(),
            });
        }
        // Its row type (`composites.rs`) may be no other column's type.
        let shown = crate::temp::unqualified(name);
        self.check_type_unused(
            txn,
            table.oid as u32,
            &format!("table {shown}"),
            &format!("type {shown}"),
        )?;
        // The tables its foreign keys reference lose a referencing key,
        // its parent a partition: their writers must read them again.
        for parent in table.constraints.iter().filter_map(|c| c.indexed_under()) {
            if parent != table.oid {
                self.lock_for_ddl(txn, parent, LockMode::Share)?;
            }
        }
        self.in_savepoint(txn, |txn| {
            for (tid, _) in self.attribute_rows(txn, table.oid)? {
                self.attributes.delete(txn, tid)?;
            }
            for (tid, c) in self.constraint_rows(txn, table.oid)? {
                if c.table_oid == table.oid {
                    self.constraints.delete(txn, tid)?;
                }
            }
            for (tid, class) in self.class_rows(txn)? {
                if class.oid == table.oid
                    || ((class.kind == KIND_INDEX || class.kind == KIND_SEQUENCE)
                        && class.table_oid == table.oid)
                {
                    self.classes.delete(txn, tid)?;
                    if class.kind == KIND_SEQUENCE {
                        self.drop_descriptions(txn, class.oid, |_| true)?;
                    }
                }
            }
            // Its out-of-line values go as its rows would (every committed
            // one: writers are locked out), for vacuum to free
            // (`toast.rs`).
            let chunks = txn.with_latest_snapshot(|txn| self.toast.delete_table(txn, table.oid))?;
            self.activity(TOAST_OID)
                .dead
                .fetch_add(chunks, std::sync::atomic::Ordering::Relaxed);
            // Their pages come back once this commits and every
            // transaction that began before has ended (`reclaim.rs`).
            self.note_dropped(txn, table.oid, KIND_TABLE, table.root)?;
            for index in &table.indexes {
                self.note_dropped(txn, index.oid, KIND_INDEX, index.root)?;
            }
            Ok(())
        })
    }

    /// `DROP INDEX name`, under the DDL lock of its table and `ACCESS
    /// EXCLUSIVE` on it (readers and writers of the table wait, as
    /// PostgreSQL's). 42704 when no index has that name (a table of that
    /// name is not an index); 2BP01 for the index of a PRIMARY KEY or
    /// UNIQUE constraint, which DROP CONSTRAINT drops.
    pub fn drop_index(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        self.remove_index(txn, name, false)
    }

    /// Drops index `name` ([`Catalog::drop_index`]); `as_constraint`:
    /// dropping the PRIMARY KEY or UNIQUE constraint it is
    /// (`drop_constraint`).
    pub(crate) fn remove_index(
        &self,
        txn: &mut Transaction,
        name: &str,
        as_constraint: bool,
    ) -> Result<(), CatalogError> {
        let missing = || CatalogError::NoSuchIndex(name.to_string());
        let (_, index) = self
            .class(txn, name)?
            .filter(|(_, c)| c.kind == KIND_INDEX)
            .ok_or_else(missing)?;
        let table_name = self
            .class_rows(txn)?
            .into_iter()
            .find(|(_, c)| c.oid == index.table_oid)
            .map(|(_, c)| c.name)
            .ok_or_else(missing)?;
        let table = self.lock_table(txn, &table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        // Locked: the index may have gone meanwhile.
        self.class(txn, name)?
            .filter(|(_, c)| c.kind == KIND_INDEX && c.oid == index.oid)
            .ok_or_else(missing)?;
        if !as_constraint
            && let Some(def) = table.indexes.iter().find(|i| i.oid == index.oid)
            && def.constraint
        {
            return Err(CatalogError::ConstraintIndex {
                index: name.to_string(),
                table: table_name,
            });
        }
        // A foreign key that references the table through this index, and
        // no other unique index over its columns, needs it.
        for key in &table.referenced_by {
            if let crate::defs::ConstraintKind::ForeignKey(fk) = &key.kind
                && (table.indexes.iter().find(|i| i.oid == index.oid))
                    .ok_or_else(missing)?
                    .serves_key(&fk.ref_columns)
                && !(table.indexes.iter())
                    .any(|i| i.oid != index.oid && i.serves_key(&fk.ref_columns))
            {
                return Err(CatalogError::IndexNeeded {
                    index: name.to_string(),
                    as_constraint_of: None,
                    constraint: key.name.clone(),
                    table: key.table.clone(),
                });
            }
        }
        self.in_savepoint(txn, |txn| {
            self.delete_index_class(txn, name, index.oid, index.root)
        })
    }

    /// Deletes index `name`'s (oid `oid`, tree at `root`) row of
    /// `folio.class` and notes the drop, so its pages come back once it
    /// commits (`reclaim.rs`): the one way an index goes, for DROP INDEX,
    /// REINDEX and a column type change. Inside the caller's savepoint.
    pub(crate) fn delete_index_class(
        &self,
        txn: &mut Transaction,
        name: &str,
        oid: u64,
        root: folio_page::PageId,
    ) -> Result<(), CatalogError> {
        let (tid, _) = self
            .class(txn, name)?
            .filter(|(_, c)| c.kind == KIND_INDEX && c.oid == oid)
            .ok_or_else(|| CatalogError::NoSuchIndex(name.to_string()))?;
        self.classes.delete(txn, tid)?;
        self.note_dropped(txn, oid, KIND_INDEX, root)
    }

    /// `TRUNCATE name`: the table given new empty storage and empty
    /// indexes (`rewrite.rs`), under `ACCESS EXCLUSIVE` (other
    /// transactions' writes of the table wait until `txn` ends), as
    /// PostgreSQL gives it new empty files: the old pages come back whole
    /// once no snapshot can read them, without a vacuum. Unlike
    /// PostgreSQL's, folio's TRUNCATE stays MVCC-safe: a transaction whose
    /// snapshot predates the commit sees the old class row and keeps
    /// reading the old storage, rows included, until it ends.
    pub fn truncate(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        self.rewrite_table(txn, name, crate::rewrite::Refill::Empty)?;
        Ok(())
    }

    /// `ALTER TABLE name ADD [CONSTRAINT constraint] PRIMARY KEY
    /// (columns) [DEFERRABLE ...]`: a unique index named as the constraint, or `name_pkey`
    /// (PostgreSQL's name), marked the table's primary key, its columns
    /// made NOT NULL ([`Catalog::set_not_null`]; the caller checks the
    /// rows). 42P16 if the table has one already.
    pub fn add_primary_key(
        &self,
        txn: &mut Transaction,
        name: &str,
        constraint: Option<&str>,
        (columns, include): (&[&str], &[&str]),
        deferrable: Deferrable,
    ) -> Result<IndexDef, CatalogError> {
        let table = self.lock_table(txn, name)?;
        if table.primary_key().is_some() {
            return Err(CatalogError::MultiplePrimaryKeys(name.to_string()));
        }
        for column in columns {
            self.set_not_null(txn, name, column, true)?;
        }
        let index_name = match constraint {
            Some(constraint) => constraint.to_string(),
            None => format!("{name}_pkey"),
        };
        self.create_primary_index(txn, name, &index_name, columns, include, deferrable)
    }

    /// `ALTER TABLE table_name ADD COLUMN column`: a `folio.attribute` row
    /// after the table's last, under its `ACCESS EXCLUSIVE` lock (and DDL
    /// mark). Rows written before it hold fewer columns and read the new
    /// one as NULL (folio-row); a caller that wants a value there (a
    /// DEFAULT) writes it into every row. 42701 if the name is taken.
    pub fn add_column(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        column: &ColumnDef,
    ) -> Result<(), CatalogError> {
        check_name(&column.name)?;
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        self.alter_row_type(txn, table_name, table.oid, true)?;
        let attributes = self.attribute_rows(txn, table.oid)?;
        if attributes.iter().any(|(_, a)| a.column.name == column.name) {
            return Err(CatalogError::ColumnExists {
                table: table_name.to_string(),
                column: column.name.clone(),
            });
        }
        // The next slot: one past every column's, dropped ones' too.
        let row = AttributeRow {
            table_oid: table.oid,
            number: attributes.len() as u16,
            column: column.clone(),
            dropped: false,
        };
        self.in_savepoint(txn, |txn| {
            let tid = self.attributes.insert(txn, &row.encode())?;
            self.attribute_tables
                .insert(txn, &self.attributes, &table.oid.to_be_bytes(), tid)?;
            Ok(())
        })
    }

    /// `ALTER TABLE table_name ALTER COLUMN column SET NOT NULL` (`true`)
    /// or `DROP NOT NULL`: the column's `folio.attribute` row updated under
    /// the table's `ACCESS EXCLUSIVE` lock (and its DDL mark, so writers
    /// read the column again). Whether it changed. The caller checks
    /// that no row holds a NULL there (after this, so no row can arrive
    /// between the check and the change). A primary key's column keeps
    /// NOT NULL (42P16).
    pub fn set_not_null(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        column: &str,
        not_null: bool,
    ) -> Result<bool, CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let (tid, mut row) =
            attribute_named(self.attribute_rows(txn, table.oid)?, table_name, column)?;
        if row.column.not_null == not_null {
            return Ok(false);
        }
        // (Key columns are positions; the row's number is its slot.)
        let position = table.column(column).map(|p| p as u16);
        if !not_null
            && table
                .primary_key()
                .is_some_and(|i| position.is_some_and(|p| i.columns.contains(&p)))
        {
            return Err(CatalogError::InPrimaryKey(column.to_string()));
        }
        row.column.not_null = not_null;
        self.update_attribute(txn, tid, &row, table_name)?;
        Ok(true)
    }

    /// Marks column `column` of table `table_name` declared by the table
    /// (`local`) or only inherited (PostgreSQL's `attislocal`; folio-sql
    /// README "Table inheritance"): its `folio.attribute` row updated
    /// under the table's DDL lock. 42703 if there is no such column.
    pub fn set_column_local(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        column: &str,
        local: bool,
    ) -> Result<(), CatalogError> {
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let (tid, mut row) =
            attribute_named(self.attribute_rows(txn, table.oid)?, table_name, column)?;
        if row.column.local == local {
            return Ok(());
        }
        row.column.local = local;
        self.update_attribute(txn, tid, &row, table_name)
    }

    /// `ALTER TABLE table_name RENAME [COLUMN] old TO new`: the column's
    /// `folio.attribute` row renamed under the table's `ACCESS EXCLUSIVE`
    /// lock, and each CHECK constraint's text passed through `rewrite`
    /// (the SQL layer's renaming of the column in the expression; the
    /// catalog does not parse SQL), saved where it changed. Indexes and
    /// foreign keys name columns by position and are unchanged. 42703 if
    /// `old` is missing, 42701 if `new` is taken.
    pub fn rename_column(
        &self,
        txn: &mut Transaction,
        table_name: &str,
        old: &str,
        new: &str,
        rewrite: &dyn Fn(&str) -> String,
    ) -> Result<(), CatalogError> {
        check_name(new)?;
        let table = self.lock_table(txn, table_name)?;
        self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        let attributes = self.attribute_rows(txn, table.oid)?;
        if attributes.iter().any(|(_, a)| a.column.name == new) {
            return Err(CatalogError::ColumnExists {
                table: table_name.to_string(),
                column: new.to_string(),
            });
        }
        let (tid, mut row) = attribute_named(attributes, table_name, old)?;
        row.column.name = new.to_string();
        self.update_attribute(txn, tid, &row, table_name)?;
        for (tid, mut def) in self.constraint_rows(txn, table.oid)? {
            // The expressions that name columns: CHECK and generated.
            let (crate::ConstraintKind::Check { expr }
            | crate::ConstraintKind::Generated { expr, .. }) = &mut def.kind
            else {
                continue;
            };
            let rewritten = rewrite(expr);
            if def.table_oid != table.oid || rewritten == *expr {
                continue;
            }
            *expr = rewritten;
            self.update_constraint(txn, tid, &def)?;
        }
        // The expressions and predicates of its indexes name it too.
        for (tid, mut class) in self.class_rows(txn)? {
            if class.kind != KIND_INDEX || class.table_oid != table.oid || class.exprs.is_empty() {
                continue;
            }
            let before = class.exprs.clone();
            for key in &mut class.exprs.keys {
                key.sql = rewrite(&key.sql);
            }
            class.exprs.predicate = class.exprs.predicate.as_deref().map(rewrite);
            if class.exprs != before {
                self.update_class(txn, tid, &class)?;
            }
        }
        Ok(())
    }

    /// Replaces the locked `folio.attribute` row at `tid` by `row`, its
    /// index entry renewed when the new version left the page.
    pub(crate) fn update_attribute(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        row: &AttributeRow,
        table_name: &str,
    ) -> Result<(), CatalogError> {
        self.in_savepoint(txn, |txn| {
            match self.attributes.update(txn, tid, &row.encode(), false)? {
                Write::Hot(_) | Write::Done(None) => Ok(()),
                Write::Done(Some(new_tid)) => Ok(self.attribute_tables.insert(
                    txn,
                    &self.attributes,
                    &row.table_oid.to_be_bytes(),
                    new_tid,
                )?),
                other => Err(corrupt(format!(
                    "column \"{}\" of \"{table_name}\": its locked catalog row could not be updated ({other:?})",
                    row.column.name
                ))),
            }
        })
    }

    /// `ALTER TABLE old RENAME TO new` and `ALTER INDEX old RENAME TO
    /// new`, under the DDL lock of the table (the index's table). The
    /// relation keeps its oid, storage, columns and indexes; a name taken
    /// by another relation is 42P07 (after waiting for a running creator).
    pub fn rename(&self, txn: &mut Transaction, old: &str, new: &str) -> Result<(), CatalogError> {
        check_name(new)?;
        let missing = || CatalogError::NoSuchRelation(old.to_string());
        let (_, class) = self.class(txn, old)?.ok_or_else(missing)?;
        if class.has_heap() {
            let table = self.lock_table(txn, old)?;
            self.lock_for_ddl(txn, table.oid, LockMode::AccessExclusive)?;
        } else if class.kind == KIND_SEQUENCE {
            self.lock_sequence(txn, old)?;
        } else if class.kind == KIND_VIEW {
            let (tid, _) = self.class(txn, old)?.ok_or_else(missing)?;
            self.lock_view(txn, tid, old)?;
        } else if class.kind == crate::defs::KIND_ENUM || class.kind == crate::defs::KIND_COMPOSITE
        {
            return Err(missing());
        } else {
            let table = self
                .class_rows(txn)?
                .into_iter()
                .find(|(_, c)| c.has_heap() && c.oid == class.table_oid)
                .map(|(_, c)| c.name)
                .ok_or_else(|| corrupt(format!("index \"{old}\" has no table")))?;
            self.lock_table(txn, &table)?;
        }
        // Read again under the lock: the row this transaction renames is
        // the newest one.
        let (tid, class) = self.class(txn, old)?.ok_or_else(missing)?;
        if self.class(txn, new)?.is_some() {
            return Err(CatalogError::Exists(new.to_string()));
        }
        let renamed = ClassRow {
            name: new.to_string(),
            ..class
        };
        self.in_savepoint(txn, |txn| {
            match self.classes.update(txn, tid, &renamed.encode(), true)? {
                Write::Done(Some(new_tid)) => {
                    match self
                        .class_names
                        .insert(txn, &self.classes, new.as_bytes(), new_tid)
                    {
                        Err(HeapError::UniqueViolation { .. }) => {
                            Err(CatalogError::Exists(new.to_string()))
                        }
                        other => Ok(other?),
                    }
                }
                other => Err(corrupt(format!(
                    "renaming \"{old}\": its locked catalog row could not be updated ({other:?})"
                ))),
            }
        })
    }

    /// Whether `txn` sees a table or index named `name`.
    pub fn relation_exists(&self, txn: &Transaction, name: &str) -> Result<bool, CatalogError> {
        Ok((self.class(txn, name)?).is_some_and(|(_, c)| {
            c.kind != crate::defs::KIND_ENUM
                && c.kind != crate::defs::KIND_SCHEMA
                && c.kind != crate::defs::KIND_EXTENSION
                && c.kind != crate::defs::KIND_FUNCTION
                && c.kind != crate::defs::KIND_TRIGGER
                && c.kind != crate::defs::KIND_RULE
        }))
    }

    /// The table (or materialized view: [`TableDef::matview`]) `name` as
    /// `txn` sees it.
    pub fn table(&self, txn: &Transaction, name: &str) -> Result<Option<TableDef>, CatalogError> {
        match self.class(txn, name)? {
            Some((_, class)) if class.has_heap() => {
                Ok(Some(self.table_def(txn, class, &self.class_rows(txn)?)?))
            }
            _ => Ok(None),
        }
    }

    /// Takes the DDL lock of table `name` (its catalog row, `FOR UPDATE`):
    /// other DDL on it waits until `txn` ends. Returns the table as it is
    /// once locked (42P01 if it does not exist, or was dropped meanwhile).
    pub fn lock_table(&self, txn: &mut Transaction, name: &str) -> Result<TableDef, CatalogError> {
        let missing = || CatalogError::NoSuchRelation(name.to_string());
        let (tid, _) = self
            .class(txn, name)?
            .filter(|(_, c)| c.has_heap())
            .ok_or_else(missing)?;
        self.lock_class_row(txn, tid, missing)?;
        self.table(txn, name)?.ok_or_else(missing)
    }

    /// Locks the `folio.class` row at `tid` (FOR UPDATE), following it to
    /// its newest version; `missing` when it was deleted meanwhile. The
    /// transaction's next statement then sees the row as locked.
    pub(crate) fn lock_class_row(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        missing: impl Fn() -> CatalogError,
    ) -> Result<(), CatalogError> {
        self.lock_class_row_as(txn, tid, missing, false)
    }

    /// The class row named `name` found at `tid`, locked FOR UPDATE
    /// (other DDL on it waits until `txn` ends) and read again under the
    /// lock: its newest tid and row, or `missing()` if it went meanwhile.
    pub(crate) fn relock_class(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        name: &str,
        missing: impl Fn() -> CatalogError,
    ) -> Result<(Tid, ClassRow), CatalogError> {
        self.lock_class_row(txn, tid, &missing)?;
        self.class(txn, name)?.ok_or_else(missing)
    }

    /// Writes `row` again at `tid` under the name `new`, with its name's
    /// index entry (a name another transaction took meanwhile: 42P07); the
    /// one way a class row is renamed.
    pub(crate) fn rename_class_row(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        row: ClassRow,
        new: &str,
    ) -> Result<(), CatalogError> {
        let renamed = ClassRow {
            name: new.to_string(),
            ..row
        };
        self.in_savepoint(txn, |txn| {
            match self.classes.update(txn, tid, &renamed.encode(), true)? {
                folio_heap::Write::Done(Some(new_tid)) => {
                    match self
                        .class_names
                        .insert(txn, &self.classes, new.as_bytes(), new_tid)
                    {
                        Err(folio_heap::HeapError::UniqueViolation { .. }) => {
                            Err(CatalogError::Exists(new.to_string()))
                        }
                        other => Ok(other?),
                    }
                }
                other => Err(corrupt(format!(
                    "renaming to \"{new}\": a catalog row could not be updated ({other:?})"
                ))),
            }
        })
    }

    /// Deletes the class row at `tid` (a function, trigger, type, schema
    /// or extension whose drop has no other rows to remove).
    pub(crate) fn delete_class_row(
        &self,
        txn: &mut Transaction,
        tid: Tid,
    ) -> Result<(), CatalogError> {
        self.in_savepoint(txn, |txn| {
            self.classes.delete(txn, tid)?;
            Ok(())
        })
    }

    /// [`Catalog::lock_class_row`], `FOR SHARE` if `shared` (DDL that
    /// changes the relation waits; other share lockers do not).
    pub(crate) fn lock_class_row_as(
        &self,
        txn: &mut Transaction,
        mut tid: Tid,
        missing: impl Fn() -> CatalogError,
        shared: bool,
    ) -> Result<(), CatalogError> {
        loop {
            let write = match shared {
                true => self.classes.lock_shared(txn, tid)?,
                false => self.classes.lock(txn, tid)?,
            };
            match write {
                Write::Done(_) | Write::Hot(_) => break,
                Write::Gone => return Err(missing()),
                Write::Moved(next) => match self.classes.newest(txn, next)? {
                    Some((newest, _)) => tid = newest,
                    None => return Err(missing()),
                },
            }
        }
        txn.next_statement();
        Ok(())
    }

    /// The table lock of DDL that changes table `oid` (`SHARE` for
    /// `CREATE INDEX`, `ACCESS EXCLUSIVE` for drop and rename), and its
    /// DDL mark (`currency.rs`), so writers that opened the table before
    /// learn that it changed.
    pub(crate) fn lock_for_ddl(
        &self,
        txn: &mut Transaction,
        oid: u64,
        mode: LockMode,
    ) -> Result<(), CatalogError> {
        txn.lock_table(oid, mode)?;
        let me = txn.existing_xid().expect("a lock gives an xid");
        self.ddl_marks.of(oid).note(txn.manager(), me)
    }

    /// Vacuums the catalog's own tables (`folio.class`, `folio.attribute`,
    /// `folio.constraint`) and their indexes, as vacuum does a table's:
    /// DDL leaves dead catalog versions (a drop deletes its rows, an ALTER
    /// updates them, a rolled-back CREATE leaves its inserts), and every
    /// catalog read scans `folio.class`, so without this a database that
    /// creates and drops tables reads ever more pages per statement
    /// planned. The stats summed over the three.
    pub(crate) fn vacuum_catalog(&self, txns: &TxnManager) -> Result<VacuumStats, HeapError> {
        let mut total = VacuumStats::default();
        for (table, index) in [
            (&*self.classes, &self.class_names),
            (&self.attributes, &self.attribute_tables),
            (&self.constraints, &self.constraint_tables),
            (&self.descriptions, &self.description_relations),
        ] {
            let stats = table.vacuum(txns, &[index])?;
            total.pages += stats.pages;
            total.pruned_pages += stats.pruned_pages;
            total.dead_line_pointers += stats.dead_line_pointers;
            total.index_entries_removed += stats.index_entries_removed;
            total.freed_line_pointers += stats.freed_line_pointers;
            total.versions += stats.versions;
            total.recently_dead += stats.recently_dead;
            total.all_visible_pages += stats.all_visible_pages;
        }
        Ok(total)
    }

    /// The heap of out-of-line values (for checks).
    pub fn toast_table(&self) -> &Table {
        &self.toast.table
    }

    /// What writers have told autovacuum about table `oid`.
    pub fn activity(&self, oid: u64) -> Arc<TableActivity> {
        self.activity.of(oid)
    }

    /// What writers have told autovacuum, for every table told of.
    pub(crate) fn activities(&self) -> Vec<(u64, Arc<TableActivity>)> {
        self.activity.entries()
    }

    /// Keeps autovacuum's counts, ANALYZE's statistics and, at a stop,
    /// the tables' all-visible bits in `dir` from now on, and loads those
    /// kept there before (`activity_file.rs`, `statistics_file.rs`,
    /// `table_maps_file.rs`; a file that does not read loads nothing).
    /// `wal_end` is where the WAL recovered at this open ends: the bits
    /// load only if they were saved there (none after a new database's
    /// creation: `None`). Once, before any table is opened; later calls
    /// change nothing.
    pub fn keep_hints_in(
        &self,
        dir: Arc<dyn folio_io::Dir>,
        wal_end: Option<folio_page::Lsn>,
    ) -> std::io::Result<()> {
        let mut first = false;
        let dir = self.files.get_or_init(|| {
            first = true;
            dir
        });
        if !first {
            return Ok(());
        }
        // Each file loads whether or not another could be read.
        let activity = crate::activity_file::load_activity(self, dir.as_ref());
        let statistics = crate::statistics_file::load_statistics(self, dir.as_ref());
        let visibility = match wal_end {
            Some(end) => crate::table_maps_file::load_maps(dir.as_ref(), end)
                .map(|words| *self.lock_saved_maps() = words),
            None => Ok(()),
        };
        activity.and(statistics).map(|_| ()).and(visibility)
    }

    /// At a stop, after the last checkpoint: keeps every open table's
    /// all-visible bits in the data directory for the next open
    /// (`table_maps_file.rs`); `false` when nothing was kept (no data
    /// directory given, or a change ran meanwhile).
    pub fn save_maps(&self) -> std::io::Result<bool> {
        match self.files.get() {
            Some(dir) => crate::table_maps_file::save_maps(self, dir.as_ref()),
            None => Ok(false),
        }
    }

    /// Writes autovacuum's counts to the data directory, if one was given
    /// ([`Catalog::keep_hints_in`]).
    pub(crate) fn save_activity(&self) -> std::io::Result<()> {
        match self.files.get() {
            Some(dir) => crate::activity_file::save_activity(self, dir.as_ref()),
            None => Ok(()),
        }
    }

    /// `ANALYZE relation`: gathers its statistics as `txn` sees its rows
    /// (`statistics.rs`) for the planner, and keeps every table's in the
    /// data directory if one was given ([`Catalog::keep_hints_in`]); the
    /// cumulative statistics take its row count and time (folio-txn
    /// `stat_store.rs`).
    pub fn analyze(
        &self,
        relation: &crate::Relation,
        txn: &Transaction,
    ) -> Result<Arc<crate::TableStats>, CatalogError> {
        // (Counts of transactions that ended before it go first: what it
        // found replaces them.)
        txn.manager().backends().publish_stats();
        let stats = crate::statistics::analyze(relation, txn)?;
        // Its live rows as counted (a table up to the sample's size is
        // read whole) for `pg_stat_user_tables`.
        let now = folio_row::calendar::now();
        let live = stats.rows.round() as u64;
        (txn.manager().stats()).report_analyze(relation.def.oid, live, now);
        // A hint: a file that cannot be written (a full disk) leaves them
        // in memory, as before the file, and fails nothing.
        if let Some(dir) = self.files.get() {
            let _ = crate::statistics_file::save_statistics(self, dir.as_ref());
        }
        Ok(stats)
    }

    /// Forgets table `oid`'s statistics, here and in the data directory:
    /// they are kept by column position, which a dropped column shifts
    /// (the next ANALYZE gathers them again).
    pub(crate) fn forget_statistics(&self, oid: u64) {
        self.statistics.forget(oid);
        if let Some(dir) = self.files.get() {
            // A hint, as in `analyze`.
            let _ = crate::statistics_file::save_statistics(self, dir.as_ref());
        }
    }

    /// Every table's statistics held now.
    pub(crate) fn all_statistics(&self) -> Vec<(u64, Arc<crate::TableStats>)> {
        self.statistics
            .entries()
            .into_iter()
            .filter_map(|(oid, slot)| slot.get().map(|stats| (oid, stats)))
            .collect()
    }

    /// The statistics slot of table `oid` (in memory: `statistics.rs`).
    pub(crate) fn statistics_slot(&self, oid: u64) -> Arc<StatsSlot> {
        self.statistics.of(oid)
    }

    /// The heap of a table: one shared handle per storage, so every user
    /// inserts into the same target page and sees the pages vacuum freed.
    /// Handles are kept by root, not oid: after a rewrite (`rewrite.rs`)
    /// a table has two storages until the old one is freed, the old one
    /// read by older snapshots, the new one by newer.
    pub fn open_table(&self, def: &TableDef) -> Result<Arc<Table>, CatalogError> {
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(table) = tables.get(&def.root) {
            table.set_fill_reserve(def.storage.fill_reserve());
            return Ok(table.clone());
        }
        let pages = self.open_pages(def.root)?;
        let pool = self.pool_of(def.root).clone();
        let table = Arc::new(Table::open_with(pool, self.wal_of(def.root), pages));
        table.set_fill_reserve(def.storage.fill_reserve());
        let saved = self.lock_saved_maps().remove(&def.root.0);
        if let Some(saved) = saved {
            table.visibility_map().load(&saved.words);
            table.offer_free_pages(&saved.free);
        }
        tables.insert(def.root, table.clone());
        Ok(table)
    }

    fn lock_saved_maps(&self) -> MutexGuard<'_, crate::table_maps_file::SavedMaps> {
        self.saved_maps.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every open table's all-visible words and pages with room, by the
    /// root of its storage.
    pub(crate) fn open_tables_maps(&self) -> Vec<(u64, crate::table_maps_file::SavedTable)> {
        let tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        let mut maps: Vec<_> = (tables.iter())
            .map(|(root, table)| {
                let saved = crate::table_maps_file::SavedTable {
                    words: table.visibility_map().words(),
                    free: table.free_pages(),
                };
                (root.0, saved)
            })
            .filter(|(_, saved)| !saved.words.is_empty() || !saved.free.is_empty())
            .collect();
        maps.sort_unstable_by_key(|(oid, _)| *oid);
        maps
    }

    /// Forgets what is kept in memory for the storage at `root` of
    /// relation `oid`, which went back to the free list (`reclaim.rs`):
    /// its heap handle and maps, and the relation's counts and statistics
    /// (a rewrite's old storage is recorded under a number of its own, no
    /// relation's oid, so the table keeps them). Its DDL mark stays: a
    /// relation read before the drop must still learn that it changed.
    pub(crate) fn forget_table(&self, oid: u64, root: folio_page::PageId) {
        self.tables
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&root);
        self.lock_saved_maps().remove(&root.0);
        self.activity.forget(oid);
        self.statistics.forget(oid);
    }

    /// An index's tree.
    pub fn open_index(&self, def: &IndexDef) -> Result<Index, CatalogError> {
        Ok(Index::open(&def.name, self.index_tree(def)?, def.unique))
    }

    /// Every table and materialized view `txn` sees, by name.
    pub fn tables(&self, txn: &Transaction) -> Result<Vec<TableDef>, CatalogError> {
        // The class rows read once for all (each definition needs them).
        let classes = self.class_rows(txn)?;
        let mut out = Vec::new();
        for (_, class) in &classes {
            if class.has_heap() {
                out.push(self.table_def(txn, class.clone(), &classes)?);
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The definition of the table `class`, with `classes` every class row
    /// `txn` sees (its indexes, and the tables its constraints name).
    fn table_def(
        &self,
        txn: &Transaction,
        class: ClassRow,
        classes: &[(Tid, ClassRow)],
    ) -> Result<TableDef, CatalogError> {
        let attributes: Vec<AttributeRow> = self
            .attribute_rows(txn, class.oid)?
            .into_iter()
            .map(|(_, row)| row)
            .collect();
        let (columns, layout) = Layout::of(attributes);
        let crate::constraints::ConstraintsOf {
            own: constraints,
            referencing: referenced_by,
            partitions,
            children,
        } = self.constraints_of(txn, class.oid, classes)?;
        let mut indexes: Vec<IndexDef> = classes
            .iter()
            .filter(|(_, c)| c.kind == KIND_INDEX && c.table_oid == class.oid)
            .map(|(_, c)| IndexDef {
                oid: c.oid,
                name: c.name.clone(),
                table_oid: c.table_oid,
                columns: c.columns.clone(),
                order: c.order.clone(),
                unique: c.unique,
                prefix_free: c.prefix_free,
                primary: c.primary,
                constraint: c.constraint,
                clustered: c.clustered,
                root: c.root,
                exprs: c.exprs.clone(),
                deferrable: c.deferrable,
                nulls: c.nulls,
            })
            .collect();
        // Made before indexes recorded it (ClassRow::primary), a primary
        // key is the unique index named `table_pkey`.
        if !indexes.iter().any(|i| i.primary) {
            let legacy = format!("{}_pkey", class.name);
            if let Some(index) = indexes.iter_mut().find(|i| i.unique && i.name == legacy) {
                index.primary = true;
            }
        }
        let column_oids =
            (columns.iter().map(|c| c.type_oid)).chain(layout.dropped().iter().map(|d| d.type_oid));
        let domains = crate::domains::domains_of(classes, column_oids.clone());
        // The types of the columns and those their domains are made over.
        let type_oids = column_oids.chain(domains.iter().map(|d| d.base_oid));
        let enums = Catalog::enums_of(classes, type_oids.clone());
        let relation_columns = self.relation_columns_of(txn, classes, type_oids.clone())?;
        let composites = crate::composites::composites_of(classes, &relation_columns, type_oids);
        let matview = crate::matviews::matview_of(&class);
        let storage = class.storage.clone();
        Ok(TableDef {
            oid: class.oid,
            name: class.name,
            columns,
            layout,
            root: class.root,
            indexes,
            constraints,
            referenced_by,
            partitions,
            children,
            enums,
            domains,
            composites,
            matview,
            storage,
        })
    }

    /// The `folio.class` row named `name` that `txn` sees.
    pub(crate) fn class(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<(Tid, ClassRow)>, CatalogError> {
        let found = self.class_names.get(txn, &self.classes, name.as_bytes())?;
        match found.into_iter().next() {
            Some((tid, bytes)) => Ok(Some((tid, ClassRow::decode(&bytes).map_err(corrupt)?))),
            None => Ok(None),
        }
    }

    /// Every `folio.class` row `txn` sees (the catalog is small; an index
    /// on the table oid comes when it is not).
    pub(crate) fn class_rows(
        &self,
        txn: &Transaction,
    ) -> Result<Vec<(Tid, ClassRow)>, CatalogError> {
        self.classes
            .scan(txn)?
            .into_iter()
            .map(|(tid, bytes)| Ok((tid, ClassRow::decode(&bytes).map_err(corrupt)?)))
            .collect()
    }

    pub(crate) fn attribute_rows(
        &self,
        txn: &Transaction,
        table_oid: u64,
    ) -> Result<Vec<(Tid, AttributeRow)>, CatalogError> {
        self.attribute_tables
            .get(txn, &self.attributes, &table_oid.to_be_bytes())?
            .into_iter()
            .map(|(tid, bytes)| Ok((tid, AttributeRow::decode(&bytes).map_err(corrupt)?)))
            .collect()
    }

    /// Inserts a `folio.class` row; a name another transaction took
    /// meanwhile is 42P07 (after waiting for it, if it was running).
    pub(crate) fn insert_class(
        &self,
        txn: &mut Transaction,
        class: &ClassRow,
    ) -> Result<(), CatalogError> {
        let tid = self.classes.insert(txn, &class.encode())?;
        match self
            .class_names
            .insert(txn, &self.classes, class.name.as_bytes(), tid)
        {
            Err(HeapError::UniqueViolation { .. }) => Err(CatalogError::Exists(class.name.clone())),
            other => Ok(other?),
        }
    }

    /// Replaces the locked `folio.class` row at `tid` by `row`, of the same
    /// name, its name's index entry renewed when the new version left the
    /// page.
    pub(crate) fn update_class(
        &self,
        txn: &mut Transaction,
        tid: Tid,
        row: &ClassRow,
    ) -> Result<(), CatalogError> {
        self.in_savepoint(txn, |txn| {
            match self.classes.update(txn, tid, &row.encode(), false)? {
                Write::Hot(_) | Write::Done(None) => Ok(()),
                Write::Done(Some(new_tid)) => {
                    Ok(self
                        .class_names
                        .insert(txn, &self.classes, row.name.as_bytes(), new_tid)?)
                }
                other => Err(corrupt(format!(
                    "\"{}\": its locked catalog row could not be updated ({other:?})",
                    row.name
                ))),
            }
        })
    }

    /// Runs `f` in a savepoint of `txn`: rolled back to if `f` fails, so
    /// a failed DDL leaves no rows behind.
    pub(crate) fn in_savepoint(
        &self,
        txn: &mut Transaction,
        f: impl FnOnce(&mut Transaction) -> Result<(), CatalogError>,
    ) -> Result<(), CatalogError> {
        txn.savepoint(SAVEPOINT)?;
        match f(txn) {
            Ok(()) => {
                txn.release(SAVEPOINT)?;
                // One catalog change (autovacuum's measure of the catalog's
                // dead versions: each leaves a few once it commits or not).
                self.activity(CATALOG_OID)
                    .dead
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(())
            }
            Err(e) => {
                txn.rollback_to(SAVEPOINT)?;
                txn.release(SAVEPOINT)?;
                Err(e)
            }
        }
    }

    /// Inserts the `folio.attribute` rows of relation `oid`'s `columns`,
    /// numbered by position.
    pub(crate) fn insert_columns(
        &self,
        txn: &mut Transaction,
        oid: u64,
        columns: &[ColumnDef],
    ) -> Result<(), CatalogError> {
        for (number, column) in columns.iter().enumerate() {
            let row = AttributeRow {
                table_oid: oid,
                number: number as u16,
                column: column.clone(),
                dropped: false,
            };
            let tid = self.attributes.insert(txn, &row.encode())?;
            self.attribute_tables
                .insert(txn, &self.attributes, &oid.to_be_bytes(), tid)?;
        }
        Ok(())
    }

    /// The next oid (a logged counter, outside transactions).
    pub(crate) fn next_oid(&self) -> Result<u64, CatalogError> {
        self.oids.next()
    }
}

/// The oid counter: a logged tree entry, advanced outside transactions.
#[derive(Debug)]
pub(crate) struct Oids {
    tree: Tree,
    lock: Mutex<()>,
}

impl Oids {
    /// The next oid.
    pub(crate) fn next(&self) -> Result<u64, CatalogError> {
        let _one = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let next = match self.tree.get(b"next")? {
            Some(v) => u64::from_le_bytes(
                v.as_slice()
                    .try_into()
                    .map_err(|_| corrupt("the oid counter is not 8 bytes".into()))?,
            ),
            None => FIRST_OID,
        };
        self.tree.upsert(b"next", &(next + 1).to_le_bytes())?;
        Ok(next)
    }
}
