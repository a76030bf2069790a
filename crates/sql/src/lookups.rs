//! What a statement looks up in the catalog by oid or name while it runs:
//! `x::regclass` both ways, `to_regclass`, `pg_get_indexdef` and
//! `pg_get_constraintdef`. Expressions are evaluated without the
//! transaction (the executor holds it), so a statement that makes such
//! calls ([`needed`], decided from its text once per plan) has them read
//! at the start of each execution ([`Lookups::read`], as the transaction
//! sees the catalog) and evaluates them from there (`Env::lookups`).
//! Statements without them pay nothing.
//!
//! A PRIMARY KEY or UNIQUE constraint is its index in folio, so its
//! `pg_constraint` oid is its index's (PostgreSQL gives it one of its
//! own); CHECK and FOREIGN KEY constraints have their own oids.

use crate::catalog_functions::CatalogFunc;
use crate::error::SqlError;
use crate::names;
use crate::system::{SystemRelation, index_definition};
use folio_catalog::{Catalog, ConstraintKind, Described, IndexDef, RefAction, TableDef};
use folio_db::Transaction;
use sqlparser::ast::{Expr, TableFactor, Visit, Visitor};
use std::collections::HashMap;
use std::ops::ControlFlow;

/// The catalog as one execution's lookups read it.
#[derive(Debug, Default)]
pub struct Lookups {
    /// Every relation's name by oid, and the other way.
    names: HashMap<i64, String>,
    oids: HashMap<String, i64>,
    /// `pg_get_indexdef`'s text (plain, then pretty) and the key
    /// columns' names, by index oid.
    indexes: HashMap<i64, ([String; 2], Vec<String>)>,
    /// `pg_get_constraintdef`'s text, by constraint oid.
    constraints: HashMap<i64, String>,
    /// The tables, by oid, and the catalog to open them in (their sizes
    /// are counted only when asked for).
    tables: HashMap<i64, TableDef>,
    catalog: Option<std::sync::Arc<Catalog>>,
    /// The stored query and column names of each view and materialized
    /// view, by oid (`pg_get_viewdef` prints them: `view_layout/`).
    views: HashMap<i64, (String, Vec<String>)>,
    /// The views, by oid; and what `pg_relation_is_updatable` needs of
    /// each (`updatable_views.rs`), made when first asked for: reading
    /// the lookups parses no view's query.
    view_defs: HashMap<u64, folio_catalog::ViewDef>,
    shapes: std::sync::Mutex<HashMap<u64, crate::updatable_views::Shape>>,
    /// The session's temporary namespace (`temp_tables.rs`), searched
    /// first by a bare name.
    temp: Option<u32>,
    /// The session's search path's schemas (`schemas.rs`): what a bare
    /// name finds after the temporary namespace.
    path: Vec<String>,
    /// The user schemas' names by oid (`schemas.rs`).
    schemas: HashMap<i64, String>,
    /// Comments (`comments.rs`): a relation's by (`'r'`, its oid, 0), a
    /// column's by (`'a'`, its relation's oid, its attnum), a
    /// constraint's by (`'c'`, its oid, 0).
    descriptions: HashMap<(char, i64, i64), String>,
    /// The sequences owned by a column (serial, identity, `OWNED BY`): by
    /// (table oid, column position), the sequence's oid.
    owned_sequences: HashMap<(i64, u16), i64>,
    /// The sequences, by oid: a sequence function's sequence named at run
    /// time (`sequences::Calls`).
    sequences: HashMap<i64, folio_catalog::SequenceDef>,
    /// The partition trees (`pg_partition_tree`, `pg_partition_ancestors`):
    /// each partition's parent, table or index (`partitions/index_tree.rs`),
    /// by oid; and the partitioned tables and their indexes.
    partition_parents: HashMap<i64, i64>,
    partitioned: std::collections::HashSet<i64>,
    /// The database's files (`pg_tablespace_size`), read only when asked
    /// for.
    storage: Option<folio_db::Storage>,
}

/// Whether `node` makes a call that looks the catalog up (then its
/// executions read [`Lookups`]).
pub fn needed<V: Visit>(node: &V) -> bool {
    struct Find;
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            let found = match e {
                Expr::Function(f) => {
                    let name = names::function(&f.name);
                    CatalogFunc::of(&name).is_some_and(CatalogFunc::looks_up)
                        // `regclass('t')`: a cast (`type_calls.rs`).
                        || folio_row::RegKind::of_name(&name).is_some()
                        || PARTITION_FUNCTIONS.contains(&name.as_str())
                        || crate::sequences::finds_at_run_time(f)
                }
                // `current_schema` written as a bare word (scalar.rs
                // `sql_value_function`).
                Expr::Identifier(id) => {
                    id.quote_style.is_none() && id.value.eq_ignore_ascii_case("current_schema")
                }
                // `x::regclass` (a text or a number: both look it up).
                Expr::Cast { data_type, .. } => crate::reg_types::kind_of(data_type).is_some(),
                _ => false,
            };
            if found {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
        // `FROM pg_partition_ancestors(r)`.
        fn pre_visit_table_factor(&mut self, t: &TableFactor) -> ControlFlow<()> {
            match t {
                TableFactor::Table {
                    name,
                    args: Some(_),
                    ..
                }
                | TableFactor::Function { name, .. }
                    if PARTITION_FUNCTIONS.contains(&names::function(name).as_str()) =>
                {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            }
        }
    }
    node.visit(&mut Find).is_break()
}

/// The table functions that read the partition trees
/// ([`Lookups::partition_ancestors`], [`Lookups::partition_tree`]).
const PARTITION_FUNCTIONS: [&str; 2] = ["pg_partition_ancestors", "pg_partition_tree"];

impl Lookups {
    /// The catalog as `txn` sees it.
    pub fn read(catalog: &std::sync::Arc<Catalog>, txn: &Transaction) -> Result<Lookups, SqlError> {
        let mut out = Lookups::read_names(catalog, txn)?;
        out.catalog = Some(catalog.clone());
        Ok(out)
    }

    /// The catalog as `txn` sees it from session `cx`: its storage,
    /// temporary namespace and search path.
    pub fn of_session(
        cx: &crate::context::Ctx<'_>,
        txn: &Transaction,
    ) -> Result<Lookups, SqlError> {
        let path = crate::schemas::SearchPath::of(cx, txn)?;
        Ok(Lookups::read(cx.db.catalog(), txn)?
            .with_storage(cx.db.storage().clone())
            .with_temp_namespace(cx.temp.namespace())
            .with_search_path(path.schemas().to_vec()))
    }

    /// The catalog as `txn` sees it, without the catalog kept to open
    /// tables in (sizes read as none).
    pub fn read_names(catalog: &Catalog, txn: &Transaction) -> Result<Lookups, SqlError> {
        let mut out = Lookups::default();
        for relation in SystemRelation::all() {
            out.name(relation.oid(), relation.name());
        }
        for schema in catalog.schemas(txn)? {
            out.schemas.insert(schema.oid as i64, schema.name);
        }
        for sequence in catalog.sequences(txn)? {
            out.name(sequence.oid as i64, &sequence.name);
            if let Some((table, column)) = sequence.owner {
                (out.owned_sequences).insert((table as i64, column), sequence.oid as i64);
            }
            out.sequences.insert(sequence.oid as i64, sequence);
        }
        for view in catalog.views(txn)? {
            out.name(view.oid as i64, &view.name);
            let columns = view.columns.iter().map(|c| c.name.clone()).collect();
            (out.views).insert(view.oid as i64, (view.query.clone(), columns));
            out.view_defs.insert(view.oid, view);
        }
        let tables = catalog.tables(txn)?;
        for table in &tables {
            out.name(table.oid as i64, &table.name);
            if let Some(matview) = &table.matview {
                let columns = table.columns.iter().map(|c| c.name.clone()).collect();
                (out.views).insert(table.oid as i64, (matview.query.clone(), columns));
            }
            for index in &table.indexes {
                out.name(index.oid as i64, &index.name);
                // (`pg_get_indexdef(oid, n)` of an expression: its text;
                // included columns follow the keys.)
                let mut columns = crate::index_exprs::key_texts(table, index, true);
                columns.extend(
                    (index.include().iter())
                        .map(|&c| names::written(&table.columns[usize::from(c)].name).to_string()),
                );
                out.indexes.insert(
                    index.oid as i64,
                    (
                        [
                            index_definition(table, index, false),
                            index_definition(table, index, true),
                        ],
                        columns,
                    ),
                );
                if index.constraint {
                    out.constraints
                        .insert(index.oid as i64, key_definition(table, index));
                }
            }
            for constraint in &table.constraints {
                if let Some(mut text) = constraint_definition(table, &constraint.kind, &tables) {
                    text.push_str(deferrable_clause(constraint.deferrable));
                    if constraint.no_inherit {
                        text.push_str(" NO INHERIT");
                    }
                    if !constraint.validated {
                        text.push_str(" NOT VALID");
                    }
                    out.constraints.insert(constraint.oid as i64, text);
                }
            }
        }
        for table in &tables {
            if let Some((parent, _)) = table.partition_of() {
                (out.partition_parents).insert(table.oid as i64, parent as i64);
            }
            if table.partition_key().is_some() {
                out.partitioned.insert(table.oid as i64);
                (out.partitioned).extend(table.indexes.iter().map(|i| i.oid as i64));
            }
        }
        for (index, parent) in crate::partitions::index_tree::parents(&tables) {
            (out.partition_parents).insert(index as i64, parent as i64);
        }
        out.tables = tables.into_iter().map(|t| (t.oid as i64, t)).collect();
        for d in catalog.descriptions(txn)? {
            out.descriptions.insert(description_key(&d), d.text);
        }
        Ok(out)
    }

    /// The lookups of a session whose temporary namespace is `temp`.
    pub fn with_temp_namespace(mut self, temp: Option<u32>) -> Lookups {
        self.temp = temp;
        self
    }

    /// The lookups of a database whose files are `storage`.
    pub fn with_storage(mut self, storage: folio_db::Storage) -> Lookups {
        self.storage = Some(storage);
        self
    }

    /// `pg_tablespace_size(oid)`: of `pg_default`, the bytes of the
    /// database's files (every relation is in it; `Storage::files_bytes`);
    /// of `pg_global` 0, as folio keeps no relation apart from the
    /// database; NULL for another oid, or without the files.
    pub fn tablespace_size(&self, oid: i64) -> Result<Option<i64>, SqlError> {
        use crate::system_fixed::{DEFAULT_TABLESPACE, GLOBAL_TABLESPACE};
        Ok(match (oid, &self.storage) {
            (DEFAULT_TABLESPACE, Some(storage)) => {
                let bytes = storage.files_bytes().map_err(|e| {
                    SqlError::new("58030", format!("could not read the database's files: {e}"))
                })?;
                Some(i64::try_from(bytes).unwrap_or(i64::MAX))
            }
            (GLOBAL_TABLESPACE, _) => Some(0),
            _ => None,
        })
    }

    /// The lookups of a session whose search path has `schemas`.
    pub fn with_search_path(mut self, schemas: Vec<String>) -> Lookups {
        self.path = schemas;
        self
    }

    /// A user schema's name by oid.
    pub fn schema_name(&self, oid: i64) -> Option<&str> {
        self.schemas.get(&oid).map(String::as_str)
    }

    /// A user schema's oid by name.
    pub fn schema_oid(&self, name: &str) -> Option<i64> {
        (self.schemas.iter())
            .find(|(_, n)| *n == name)
            .map(|(oid, _)| *oid)
    }

    /// The session's search path's schemas.
    pub fn search_path(&self) -> &[String] {
        &self.path
    }

    /// The session's temporary namespace's name, if it has one.
    pub fn temp_schema(&self) -> Option<String> {
        self.temp.map(folio_catalog::temp_schema)
    }

    /// The catalog name a bare `name` finds: the session's temporary
    /// relation of the name, else the first search path schema's.
    fn bare_finds(&self, name: &str) -> Option<String> {
        let temp = self.temp.map(|n| folio_catalog::temp_name(n, name));
        let path = (self.path.iter()).map(|s| folio_catalog::qualified_name(s, name));
        temp.into_iter()
            .chain(path)
            .find(|stored| self.oids.contains_key(stored))
    }

    /// `pg_relation_is_updatable(oid, include_triggers)` (`columns`:
    /// none) and `pg_column_is_updatable`'s events (`columns`: its one
    /// column), PostgreSQL's bits (`updatable_views::events`).
    pub fn updatable_events(
        &self,
        oid: u64,
        include_triggers: bool,
        columns: Option<&[usize]>,
    ) -> i32 {
        use crate::updatable_views::Updatable;
        let relation = |oid: u64| match self.tables.get(&(oid as i64)) {
            Some(table) if table.matview.is_none() => Updatable::Table,
            Some(_) => Updatable::Neither,
            None => self.shape(oid).map_or(Updatable::Neither, Updatable::View),
        };
        crate::updatable_views::events(&relation, oid, include_triggers, columns)
    }

    /// `pg_column_is_updatable(oid, attnum, include_triggers)`:
    /// PostgreSQL's, the relation takes UPDATE and DELETE for the column
    /// (a system column, `attnum` < 1, neither).
    pub fn column_is_updatable(&self, oid: u64, attnum: i64, include_triggers: bool) -> bool {
        use crate::updatable_views::{DELETE_EVENT, UPDATE_EVENT};
        let wanted = UPDATE_EVENT | DELETE_EVENT;
        match usize::try_from(attnum - 1) {
            Ok(column) => {
                self.updatable_events(oid, include_triggers, Some(&[column])) & wanted == wanted
            }
            Err(_) => false,
        }
    }

    /// The shape of view `oid`, parsed when first asked for.
    fn shape(&self, oid: u64) -> Option<crate::updatable_views::Shape> {
        let def = self.view_defs.get(&oid)?;
        let mut shapes = self.shapes.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(shape) = shapes.get(&oid) {
            return Some(shape.clone());
        }
        let relation_of = |name: &str| {
            let oid = *self.oids.get(name)?;
            if let Some(table) = self.tables.get(&oid) {
                let columns = table.columns.iter().map(|c| c.name.clone()).collect();
                return table.matview.is_none().then_some((oid as u64, columns));
            }
            let view = self.view_defs.get(&(oid as u64))?;
            Some((
                view.oid,
                view.columns.iter().map(|c| c.name.clone()).collect(),
            ))
        };
        let shape = crate::updatable_views::shape(def, &relation_of);
        shapes.insert(oid, shape.clone());
        Some(shape)
    }

    /// `pg_table_is_visible(oid)`: a bare name finds it (another
    /// session's temporary relation, a relation of a schema off the
    /// search path, or one that an earlier schema's relation of the name
    /// shadows, is not). System relations always are.
    pub fn visible(&self, oid: i64) -> bool {
        match self.names.get(&oid) {
            Some(name) if oid >= folio_catalog::FIRST_OID as i64 => {
                self.bare_finds(folio_catalog::unqualified(name)).as_ref() == Some(name)
            }
            _ => true,
        }
    }

    fn name(&mut self, oid: i64, name: &str) {
        self.names.insert(oid, name.to_string());
        self.oids.insert(name.to_string(), oid);
    }

    /// Table `oid`'s definition, if it is a table this statement sees.
    pub fn table(&self, oid: i64) -> Option<&TableDef> {
        self.tables.get(&oid)
    }

    /// The catalog name (`schema.name`, bare in `public`) of relation
    /// `oid`, if there is one.
    pub fn catalog_name(&self, oid: i64) -> Option<String> {
        self.names.get(&oid).cloned()
    }

    /// `oid::regclass` as text: the relation's name (quoted if it needs
    /// it), or the oid itself for none, as PostgreSQL prints them.
    /// (Qualified by its schema when it is not visible, as PostgreSQL's.)
    pub fn relation_name(&self, oid: i64) -> String {
        match self.names.get(&oid) {
            Some(name) if self.visible(oid) => {
                names::written(folio_catalog::unqualified(name)).to_string()
            }
            Some(name) => names::stored_written(name, true),
            None => oid.to_string(),
        }
    }

    /// The oid of relation `text` (`name`, `public.name`,
    /// `pg_catalog.name`, a quoted name, or an oid's digits).
    pub fn relation_oid(&self, text: &str) -> Option<i64> {
        if let Ok(oid) = text.trim().parse::<i64>() {
            return Some(oid);
        }
        let parsed = sqlparser::parser::Parser::new(&sqlparser::dialect::PostgreSqlDialect {})
            .try_with_sql(text)
            .and_then(|mut p| p.parse_object_name(false))
            .ok()?;
        let parts = names::parts(&parsed)?;
        let temp = |n: u32, name: &str| self.oids.get(&folio_catalog::temp_name(n, name)).copied();
        match parts.as_slice() {
            // (A system relation's name is bare and on no path.)
            [name] => match self.bare_finds(name) {
                Some(stored) => self.oids.get(&stored).copied(),
                None => self.system_oid(name),
            },
            [schema, name] if schema == "pg_temp" => temp(self.temp?, name),
            [schema, name] if schema == "pg_catalog" => self.system_oid(name),
            [schema, name] => (self.oids)
                .get(&folio_catalog::qualified_name(schema, name))
                .copied(),
            _ => None,
        }
    }

    /// Sequence `oid`'s definition (`None`: no sequence has it).
    pub fn sequence(&self, oid: i64) -> Option<&folio_catalog::SequenceDef> {
        self.sequences.get(&oid)
    }

    /// `pg_get_serial_sequence(table, column)`: the sequence column
    /// `column` (taken as written: no case folding, as PostgreSQL's) of
    /// relation `table` owns, qualified by its schema; `None` for none.
    /// No such relation is 42P01, no such column 42703.
    pub fn serial_sequence(&self, table: &str, column: &str) -> Result<Option<String>, SqlError> {
        let oid = self
            .relation_oid(table)
            .ok_or_else(|| SqlError::undefined_table(table))?;
        let def = self.tables.get(&oid);
        let Some(position) = def.and_then(|t| t.column(column)) else {
            let name = self
                .names
                .get(&oid)
                .map_or(table, |n| folio_catalog::unqualified(n));
            return Err(SqlError::new(
                "42703",
                format!("column \"{column}\" of relation \"{name}\" does not exist"),
            ));
        };
        Ok((self.owned_sequences.get(&(oid, position as u16)))
            .and_then(|sequence| self.names.get(sequence))
            .map(|name| names::stored_written(name, true)))
    }

    /// A system relation's oid by name.
    fn system_oid(&self, name: &str) -> Option<i64> {
        self.oids
            .get(name)
            .copied()
            .filter(|oid| *oid < folio_catalog::FIRST_OID as i64)
    }

    /// `pg_get_indexdef(oid, column, pretty)`: the definition (column 0)
    /// or the name of key column `column`; `None` for no such index or
    /// column.
    pub fn index_definition(&self, oid: i64, column: i64, pretty: bool) -> Option<String> {
        let (definitions, columns) = self.indexes.get(&oid)?;
        match column {
            0 => Some(definitions[usize::from(pretty)].clone()),
            n => columns.get(usize::try_from(n - 1).ok()?).cloned(),
        }
    }

    /// `pg_table_size`, `pg_relation_size(oid [, fork])`,
    /// `pg_indexes_size`, `pg_total_relation_size` of relation `oid`, in
    /// bytes, counted from its pages (`Catalog::table_pages`,
    /// `index_pages`): a table's heap (folio has no free-space or
    /// visibility-map files, so those forks are 0, and its TOAST table is
    /// shared, so not counted), an index's tree. A view, a sequence
    /// (whose values folio keeps in a shared tree) and a system relation
    /// have none: 0. NULL for an oid that is no relation, as PostgreSQL.
    /// `pg_database_size` of the database (its data file's pages, in
    /// bytes).
    pub fn database_size(&self) -> Result<Option<i64>, SqlError> {
        let Some(catalog) = &self.catalog else {
            return Ok(None);
        };
        let pages = catalog.database_pages()?;
        Ok(Some(pages as i64 * folio_page::PAGE_SIZE as i64))
    }

    pub fn size(
        &self,
        oid: i64,
        what: SizeOf,
        fork: Option<&str>,
    ) -> Result<Option<i64>, SqlError> {
        let main = match fork {
            None | Some("main") => true,
            Some("fsm" | "vm" | "init") => false,
            Some(_) => {
                return Err(SqlError::new("22023", "invalid fork name")
                    .with_hint("Valid fork names are \"main\", \"fsm\", \"vm\", and \"init\"."));
            }
        };
        let Some(catalog) = &self.catalog else {
            return Ok(None);
        };
        let bytes = |pages: u64| pages as i64 * folio_page::PAGE_SIZE as i64;
        let failed = |e: folio_catalog::CatalogError| SqlError::from(e);
        if let Some(def) = self.tables.get(&oid) {
            let heap = || catalog.table_pages(def).map_err(failed);
            let indexes = || -> Result<u64, SqlError> {
                let mut sum = 0;
                for index in &def.indexes {
                    sum += catalog.index_pages(index).map_err(failed)?;
                }
                Ok(sum)
            };
            return Ok(Some(bytes(match (what, main) {
                (_, false) => 0,
                (SizeOf::Fork | SizeOf::Table, true) => heap()?,
                (SizeOf::Indexes, true) => indexes()?,
                (SizeOf::Total, true) => heap()? + indexes()?,
            })));
        }
        let index =
            (self.tables.values()).find_map(|t| t.indexes.iter().find(|i| i.oid as i64 == oid));
        if let Some(index) = index {
            return Ok(Some(bytes(match (what, main) {
                (SizeOf::Indexes, _) | (_, false) => 0,
                _ => catalog.index_pages(index).map_err(failed)?,
            })));
        }
        Ok(self.names.contains_key(&oid).then_some(0))
    }

    /// `obj_description(oid, catalog)`: the comment on relation `oid`
    /// (`pg_class`) or constraint `oid` (`pg_constraint`); without a
    /// catalog, either's (PostgreSQL's deprecated form).
    pub fn description(&self, oid: i64, catalog: Option<&str>) -> Option<String> {
        let kinds: &[char] = match catalog {
            Some("pg_class" | "pg_type") => &['r'],
            Some("pg_constraint") => &['c'],
            Some(_) => &[],
            None => &['r', 'c'],
        };
        kinds
            .iter()
            .find_map(|&k| self.descriptions.get(&(k, oid, 0)).cloned())
            .or_else(|| crate::comments::builtin(oid, catalog).map(str::to_string))
    }

    /// `col_description(table, attnum)`.
    pub fn column_description(&self, table: i64, attnum: i64) -> Option<String> {
        self.descriptions.get(&('a', table, attnum)).cloned()
    }

    /// `pg_get_viewdef(oid)` in `form` (`view_layout/`).
    pub fn view_definition(&self, oid: i64, form: crate::view_layout::Form) -> Option<String> {
        let (query, columns) = self.views.get(&oid)?;
        Some(crate::view_layout::definition(query, columns, self, form))
    }

    /// `pg_get_constraintdef(oid)`.
    pub fn constraint_definition(&self, oid: i64) -> Option<String> {
        self.constraints.get(&oid).cloned()
    }

    /// Whether relation `oid` is in a partition tree: a partitioned table
    /// or index, or a partition of one.
    fn in_partition_tree(&self, oid: i64) -> bool {
        self.partitioned.contains(&oid) || self.partition_parents.contains_key(&oid)
    }

    /// `pg_partition_ancestors(relation)`: a partitioned table or index
    /// or a partition and the partitioned relations above it, itself
    /// first; none for another relation.
    pub fn partition_ancestors(&self, oid: i64) -> Vec<i64> {
        if !self.in_partition_tree(oid) {
            return Vec::new();
        }
        let mut out = vec![oid];
        let mut at = oid;
        while let Some(&parent) = self.partition_parents.get(&at) {
            if out.contains(&parent) {
                break;
            }
            out.push(parent);
            at = parent;
        }
        out
    }

    /// `pg_partition_tree(relation)`: the relation and its partitions
    /// below it, breadth first and each one's partitions in oid order (as
    /// PostgreSQL's): each with its parent, whether it is a leaf (has no
    /// partitions of its own to have) and its depth under `oid`; none
    /// for a relation in no partition tree.
    pub fn partition_tree(&self, oid: i64) -> Vec<PartitionTreeRow> {
        if !self.in_partition_tree(oid) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut queue = std::collections::VecDeque::from([(oid, 0)]);
        while let Some((relation, level)) = queue.pop_front() {
            out.push(PartitionTreeRow {
                relid: relation,
                parent: self.partition_parents.get(&relation).copied(),
                leaf: !self.partitioned.contains(&relation),
                level,
            });
            let mut children: Vec<i64> = (self.partition_parents.iter())
                .filter(|(_, parent)| **parent == relation)
                .map(|(child, _)| *child)
                .filter(|child| !out.iter().any(|r| r.relid == *child))
                .collect();
            children.sort_unstable();
            queue.extend(children.into_iter().map(|c| (c, level + 1)));
        }
        out
    }

    /// `pg_get_partkeydef(oid)`: a partitioned table's key.
    pub fn partition_key(&self, oid: i64) -> Option<String> {
        crate::partitions::constraint_text::key_text(self.tables.get(&oid)?)
    }

    /// `pg_get_partition_constraintdef(oid)`: what a partition's bound
    /// (and its parents', up the tree) implies of its rows.
    pub fn partition_constraint(&self, oid: i64) -> Result<Option<String>, SqlError> {
        use crate::partitions::constraint_text::{Parent, joined};
        let table = |oid: u64| self.tables.get(&(oid as i64));
        let mut conditions = Vec::new();
        let mut child = oid as u64;
        while let Some((parent, _)) = table(child).and_then(TableDef::partition_of) {
            let Some(def) = table(parent) else { break };
            let Some(parent) = Parent::of(def, table)? else {
                break;
            };
            conditions.splice(0..0, parent.conditions(child)?);
            child = parent.oid;
        }
        Ok(joined(&conditions))
    }
}

/// A row of `pg_partition_tree` ([`Lookups::partition_tree`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionTreeRow {
    pub relid: i64,
    pub parent: Option<i64>,
    pub leaf: bool,
    pub level: i32,
}

/// Which of a relation's sizes a size function gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeOf {
    /// `pg_relation_size(oid [, fork])`: one fork (`main` by default).
    Fork,
    /// `pg_table_size`: every fork, without indexes.
    Table,
    /// `pg_indexes_size`: a table's indexes.
    Indexes,
    /// `pg_total_relation_size`: the table with its indexes.
    Total,
}

/// The key of comment `d` in [`Lookups`]: what PostgreSQL's
/// `pg_description` keys it by (its object's kind, oid and column
/// number).
pub fn description_key(d: &folio_catalog::Description) -> (char, i64, i64) {
    match d.on {
        Described::Relation => ('r', d.relation as i64, 0),
        Described::Column(slot) => ('a', d.relation as i64, i64::from(slot) + 1),
        Described::Constraint(oid) => ('c', oid as i64, 0),
    }
}

/// `PRIMARY KEY (a, b)` or `UNIQUE [NULLS NOT DISTINCT] (a) [INCLUDE
/// (b)]`.
fn key_definition(table: &TableDef, index: &IndexDef) -> String {
    let columns: Vec<String> = index
        .columns
        .iter()
        .map(|&c| names::written(&table.columns[usize::from(c)].name).to_string())
        .collect();
    let kind = match index.primary {
        true => "PRIMARY KEY",
        false => &format!("UNIQUE{}", crate::indexes::nulls_clause(index.nulls)),
    };
    format!(
        "{kind} ({}){}{}",
        columns.join(", "),
        crate::system::include_clause(table, index),
        deferrable_clause(index.deferrable)
    )
}

/// What `pg_get_constraintdef` adds after a constraint of mode
/// `deferrable`.
fn deferrable_clause(deferrable: folio_catalog::Deferrable) -> &'static str {
    match deferrable {
        folio_catalog::Deferrable::No => "",
        folio_catalog::Deferrable::InitiallyImmediate => " DEFERRABLE",
        folio_catalog::Deferrable::InitiallyDeferred => " DEFERRABLE INITIALLY DEFERRED",
    }
}

/// A CHECK's or a foreign key's text as `pg_get_constraintdef(oid, true)`
/// gives it (a CHECK's expression as it was written).
fn constraint_definition(
    table: &TableDef,
    kind: &ConstraintKind,
    tables: &[TableDef],
) -> Option<String> {
    let column = |t: &TableDef, c: &u16| {
        t.columns
            .get(usize::from(*c))
            .map_or_else(String::new, |c| names::written(&c.name).to_string())
    };
    match kind {
        ConstraintKind::Default { .. }
        | ConstraintKind::Generated { .. }
        | ConstraintKind::Partition(_) => None,
        ConstraintKind::Check { expr } => Some(format!("CHECK ({expr})")),
        ConstraintKind::ForeignKey(fk) => {
            let columns: Vec<String> = fk.columns.iter().map(|c| column(table, c)).collect();
            let referenced = tables.iter().find(|t| t.oid == fk.ref_table_oid)?;
            let ref_columns: Vec<String> = fk
                .ref_columns
                .iter()
                .map(|c| column(referenced, c))
                .collect();
            let mut text = format!(
                "FOREIGN KEY ({}) REFERENCES {}({})",
                columns.join(", "),
                names::written(&referenced.name),
                ref_columns.join(", ")
            );
            // PostgreSQL's order: MATCH, ON UPDATE, ON DELETE with its
            // column list.
            if fk.match_full {
                text.push_str(" MATCH FULL");
            }
            for (word, action) in [("UPDATE", fk.on_update), ("DELETE", fk.on_delete)] {
                if action != RefAction::NoAction {
                    text.push_str(&format!(" ON {word} {}", action.words()));
                }
            }
            if !fk.set_columns.is_empty() {
                let set: Vec<String> = fk.set_columns.iter().map(|c| column(table, c)).collect();
                text.push_str(&format!(" ({})", set.join(", ")));
            }
            Some(text)
        }
    }
}

/// The relations a view's query names, as `view_layout/` prints them:
/// bare when the search path finds them.
impl crate::view_layout::Relations for Lookups {
    fn relation(
        &self,
        name: &sqlparser::ast::ObjectName,
    ) -> Option<crate::view_layout::RelationInfo> {
        let oid = self.relation_oid(&name.to_string())?;
        let columns = match (self.tables.get(&oid), self.view_defs.get(&(oid as u64))) {
            (Some(table), _) => &table.columns,
            (None, Some(view)) => &view.columns,
            (None, None) => return None,
        };
        let columns = (columns.iter())
            .map(|c| {
                (
                    c.name.clone(),
                    crate::user_types::of_oid(c.type_oid, c.typmod),
                )
            })
            .collect();
        Some(crate::view_layout::RelationInfo {
            printed: self.relation_name(oid),
            columns,
        })
    }
}
