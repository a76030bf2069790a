//! Temporary tables (`CREATE TEMP[ORARY] TABLE`): a session's own
//! namespace `pg_temp_N`, searched before the search path's schemas,
//! dropped when the session ends. [`resolve`] is also the one resolver of
//! unqualified names through the search path (`schemas.rs`): both are
//! schemas of one form of catalog name, looked up in one order.
//!
//! A temporary table is an ordinary catalog table named `pg_temp_N.name`
//! (folio-catalog `temp.rs`: the form of the name, and the drop of a
//! namespace's tables, also of every leftover when a database opens). This
//! file owns the session's side:
//!
//! - **Which namespace.** A session claims its number `N` (the lowest free
//!   in the database) at its first `CREATE TEMP TABLE`, and drops whatever
//!   an earlier owner of `N` left, in a transaction of its own; a session
//!   that never creates one has no namespace and pays nothing.
//! - **Which table a name means.** Before a statement of a session with a
//!   namespace is planned, [`resolve`] rewrites each relation name it uses:
//!   a bare `name` for which `pg_temp_N.name` exists (as the statement's
//!   transaction sees the catalog: a rolled-back create is gone) becomes
//!   `pg_temp_N.name`, so the temporary table shadows a permanent one of
//!   the name, as PostgreSQL's search path with `pg_temp` first;
//!   `pg_temp.name` is the own namespace; another session's `pg_temp_M` is
//!   0A000. Names a statement creates (`CREATE TABLE` without TEMP) stay
//!   permanent; an index or a new name of a temporary relation goes into
//!   the namespace. Everything after the rewrite sees plain qualified
//!   names (`names::relation` maps `pg_temp_N.name` to the catalog name).
//! - **ON COMMIT.** `DELETE ROWS` truncates, `DROP` drops, the table
//!   before each commit of the session ([`TempTables::before_commit`]).
//! - **The end.** [`TempTables::end_session`] drops the namespace's tables
//!   when the session ends (`Session`'s drop: a client's disconnect, clean
//!   or not).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::schemas::{self, SearchPath};
use folio_catalog::{temp_name, temp_schema, temp_schema_number};
use folio_db::{Database, Durability, Isolation, Transaction};
use sqlparser::ast::{
    AlterIndexOperation, AlterTableOperation, ColumnOption, CreateTable, FromTable, Ident,
    ObjectName, ObjectNamePart, ObjectType, OnCommit, Query, Statement, TableConstraint,
    TableFactor, TableObject, VisitMut, VisitorMut,
};
use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;

/// What a commit does to a temporary table (`ON COMMIT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AtCommit {
    DeleteRows,
    Drop,
}

/// A session's temporary namespace and what its commits do.
#[derive(Debug, Default)]
pub struct TempTables {
    /// The session's namespace number, once it created a temporary table.
    namespace: Cell<Option<u32>>,
    /// Tables (catalog names) with `ON COMMIT DELETE ROWS` or `DROP`.
    at_commit: RefCell<Vec<(String, AtCommit)>>,
}

impl TempTables {
    /// The session's namespace number, if it has one.
    pub fn namespace(&self) -> Option<u32> {
        self.namespace.get()
    }

    /// The namespace, claimed now if the session has none: the lowest
    /// number no other session of the database holds, emptied of what a
    /// session that held it before may have left (a transaction of its
    /// own, committed only when there was something).
    fn claim(&self, db: &Database) -> Result<u32, SqlError> {
        if let Some(n) = self.namespace.get() {
            return Ok(n);
        }
        let n = db.catalog().claim_temp_namespace();
        if let Err(e) = drop_tables_of(db, n) {
            db.catalog().release_temp_namespace(n);
            return Err(e);
        }
        self.namespace.set(Some(n));
        Ok(n)
    }

    /// Before `txn` commits: the `ON COMMIT DELETE ROWS` tables emptied,
    /// the `ON COMMIT DROP` ones dropped (those that exist: a rolled-back
    /// create left none). Whether it changed anything (the session's
    /// relation cache must forget).
    pub fn before_commit(&self, db: &Database, txn: &mut Transaction) -> Result<bool, SqlError> {
        if self.at_commit.borrow().is_empty() {
            return Ok(false);
        }
        let mut changed = false;
        let mut dropped = Vec::new();
        for (name, action) in self.at_commit.borrow().iter() {
            if !db.catalog().relation_exists(txn, name)? {
                continue;
            }
            changed = true;
            match action {
                AtCommit::DeleteRows => {
                    db.catalog().truncate(txn, name)?;
                }
                AtCommit::Drop => {
                    drop_with_descendants(db, txn, name)?;
                    dropped.push(name.clone());
                }
            }
            txn.next_statement();
        }
        self.at_commit
            .borrow_mut()
            .retain(|(name, _)| !dropped.contains(name));
        Ok(changed)
    }

    /// The session ends: its temporary tables are dropped (in a
    /// transaction of their own; a failure leaves them to the next owner
    /// of the number, or to the next open of the database) and the number
    /// is free again. The session's open transaction must have ended.
    pub fn end_session(&self, db: &Database) {
        let Some(n) = self.namespace.take() else {
            return;
        };
        // (Nothing to tell a client that is gone; see above.)
        let _ = drop_tables_of(db, n);
        db.catalog().release_temp_namespace(n);
    }

    /// `DISCARD TEMP`: as the session's end, and its ON COMMIT actions
    /// forgotten (the tables are gone).
    pub fn discard(&self, db: &Database) {
        self.end_session(db);
        self.at_commit.borrow_mut().clear();
    }

    /// `e` with the session's namespace prefix taken off the names it
    /// quotes: PostgreSQL's messages name a temporary relation bare.
    pub fn unqualify_error(&self, mut e: SqlError) -> SqlError {
        self.unqualify(&mut e.message);
        e
    }

    /// A message (an error's, a notice's) with the session's namespace
    /// prefix taken off the names it quotes.
    pub fn unqualify(&self, message: &mut String) {
        if let Some(n) = self.namespace.get() {
            let prefix = format!("{}.", temp_schema(n));
            if message.contains(&prefix) {
                *message = message.replace(&prefix, "");
            }
        }
    }
}

/// Whether `statement` creates a temporary table (the one statement that
/// needs [`resolve`] in a session without a namespace).
fn creates_temp(statement: &Statement) -> bool {
    match statement {
        Statement::CreateTable(create) => {
            create.temporary || explicit_temp_schema(&create.name).is_some()
        }
        Statement::CreateView {
            temporary, name, ..
        }
        | Statement::CreateSequence {
            temporary, name, ..
        } => *temporary || explicit_temp_schema(name).is_some(),
        _ => false,
    }
}

/// The namespace a name's schema part asks for: `Some(None)` for
/// `pg_temp` (the session's own), `Some(Some(n))` for `pg_temp_N`.
fn explicit_temp_schema(name: &ObjectName) -> Option<Option<u32>> {
    match names::parts(name)?.as_slice() {
        [schema, _] if schema == "pg_temp" => Some(None),
        [schema, _] => temp_schema_number(schema).map(Some),
        _ => None,
    }
}

/// PostgreSQL's rules for the schema a new relation `name` is written
/// in (42P16): a TEMP one (`temporary`) only in a temporary schema, an
/// UNLOGGED one (`unlogged`) not in one.
fn check_schema(name: &ObjectName, temporary: bool, unlogged: bool) -> Result<(), SqlError> {
    let in_temp_schema = explicit_temp_schema(name).is_some();
    if temporary && !in_temp_schema && names::parts(name).is_some_and(|p| p.len() > 1) {
        return Err(SqlError::new(
            "42P16",
            "cannot create temporary relation in non-temporary schema",
        ));
    }
    if in_temp_schema && unlogged {
        return Err(SqlError::new(
            "42P16",
            "only temporary relations may be created in temporary schemas",
        ));
    }
    Ok(())
}

/// `pg_temp_N.name` as an object name.
fn qualified(n: u32, name: &str) -> ObjectName {
    ObjectName(vec![
        ObjectNamePart::Identifier(Ident::new(temp_schema(n))),
        ObjectNamePart::Identifier(Ident::with_quote('"', name)),
    ])
}

/// The bare name of a one-part object name.
fn bare(name: &ObjectName) -> Option<String> {
    match names::parts(name)?.as_slice() {
        [name] => Some(name.clone()),
        _ => None,
    }
}

/// Whether `name` (after [`resolve`]) names a temporary relation.
fn is_temp(name: &ObjectName) -> bool {
    matches!(explicit_temp_schema(name), Some(Some(_)))
}

/// `ON COMMIT DROP` of `name`: its inheritance descendants go with it
/// (deepest first), as PostgreSQL's dependency drop takes the whole set.
fn drop_with_descendants(db: &Database, txn: &mut Transaction, name: &str) -> Result<(), SqlError> {
    let Some(def) = db.catalog().table(txn, name)? else {
        return Ok(());
    };
    for (_, child) in &def.children {
        drop_with_descendants(db, txn, child)?;
    }
    db.catalog().drop_table(txn, name)?;
    Ok(())
}

/// Drops the tables of temporary namespace `n` in a transaction of their
/// own (committed only if there were some).
fn drop_tables_of(db: &Database, n: u32) -> Result<(), SqlError> {
    let mut txn = db.begin(Isolation::ReadCommitted, Durability::Sync)?;
    match db.catalog().drop_temp_tables(&mut txn, Some(n))? {
        0 => txn.rollback()?,
        _ => {
            txn.commit()?;
        }
    }
    Ok(())
}

/// Whether `statement` creates a relation or a type (its name is placed
/// in a schema: [`Resolver::place`]).
fn creates(statement: &Statement) -> bool {
    matches!(
        statement,
        Statement::CreateTable(_)
            | Statement::CreateView { .. }
            | Statement::CreateSequence { .. }
            | Statement::CreateIndex(_)
            | Statement::CreateType { .. }
    )
}

/// `statement` with the relation names resolved (module doc, and
/// `schemas.rs`): those that mean the session's temporary relations
/// qualified by its namespace, those that mean a relation of another
/// schema of the search path than `public` qualified by it, and the
/// names it creates placed in their schemas (each such schema locked
/// `FOR SHARE` in `txn`); `None` when nothing changes, at the cost of a
/// flag read for a session without temporary tables whose path is
/// `public`'s alone.
pub fn resolve(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    statement: &Statement,
) -> Result<Option<Statement>, SqlError> {
    let path = SearchPath::of(cx, txn)?;
    if cx.temp.namespace().is_none()
        && !creates_temp(statement)
        && path.is_public_only()
        && !creates(statement)
    {
        return Ok(None);
    }
    let mut statement = statement.clone();
    let mut resolver = Resolver::new(cx, txn, path);
    match &mut statement {
        Statement::CreateTable(create) => resolver.create_table(create)?,
        Statement::CreateView {
            name,
            temporary,
            materialized: false,
            ..
        }
        | Statement::CreateSequence {
            name, temporary, ..
        } if *temporary || explicit_temp_schema(name).is_some() => {
            resolver.temp_relation(name)?;
            *temporary = false;
        }
        Statement::CreateView { name, .. } | Statement::CreateSequence { name, .. } => {
            resolver.place(name)?
        }
        Statement::CreateType { name, .. } => {
            resolver.place(name)?;
            if matches!(names::parts(name).as_deref(), Some([s, _]) if s != schemas::PUBLIC) {
                return Err(SqlError::unsupported(
                    "CREATE TYPE in a schema other than public",
                ));
            }
        }
        Statement::CreateIndex(create) => {
            resolver.existing(&mut create.table_name)?;
            if let Some(index) = &mut create.name {
                in_schema_of(&create.table_name, index);
            }
        }
        Statement::Drop {
            object_type:
                ObjectType::Table
                | ObjectType::Index
                | ObjectType::Sequence
                | ObjectType::View
                | ObjectType::MaterializedView,
            names,
            ..
        } => {
            for name in names {
                resolver.existing(name)?;
            }
        }
        Statement::AlterTable {
            name, operations, ..
        } => {
            resolver.existing(name)?;
            let temp = is_temp(name);
            for operation in operations {
                // (RENAME TO's new name is placed by
                // `set_schema::renamed_in_place`.)
                if let AlterTableOperation::AddConstraint { constraint, .. } = operation {
                    resolver.references(constraint_target(constraint), temp)?
                }
            }
        }
        Statement::AlterIndex {
            name,
            operation: AlterIndexOperation::RenameIndex { .. },
        } => resolver.existing(name)?,
        _ => {}
    }
    // Every other relation the statement reads or changes (a created
    // table's own name is `create_table`'s alone).
    let created = match &mut statement {
        Statement::CreateTable(create) => {
            Some(std::mem::replace(&mut create.name, ObjectName(Vec::new())))
        }
        _ => None,
    };
    let _ = statement.visit(&mut resolver);
    if let (Some(name), Statement::CreateTable(create)) = (created, &mut statement) {
        create.name = name;
    }
    if let Some(e) = resolver.error {
        return Err(e);
    }
    let lock = resolver.lock;
    for schema in lock {
        cx.db.catalog().lock_schema(txn, &schema, true)?;
    }
    Ok(Some(statement))
}

/// `statement` (a query or row change: a rule's action) with the relation
/// names it reads or changes resolved as [`resolve`] does; `None` when
/// nothing changes.
pub fn resolve_names(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Option<Statement>, SqlError> {
    let path = SearchPath::of(cx, txn)?;
    if cx.temp.namespace().is_none() && path.is_public_only() {
        return Ok(None);
    }
    let mut statement = statement.clone();
    let mut resolver = Resolver::new(cx, txn, path);
    let _ = statement.visit(&mut resolver);
    match resolver.error {
        Some(e) => Err(e),
        None => Ok(Some(statement)),
    }
}

/// A new bare name of a relation of `relation`'s schema (a rename, an
/// index), placed in that schema.
fn in_schema_of(relation: &ObjectName, name: &mut ObjectName) {
    if let (Some([schema, _]), Some(plain)) = (names::parts(relation).as_deref(), bare(name)) {
        *name = schemas::qualified(schema, &plain);
    }
}

/// The catalog name a statement's table `name` (already a catalog name:
/// COPY's, COMMENT's, REINDEX's) means for the session: its temporary
/// table of the name if it has one, else the first schema of its search
/// path with one (`schemas.rs`).
pub fn resolve_name(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<String, SqlError> {
    if let Some(bare) = name.strip_prefix("pg_temp.")
        && let Some(n) = cx.temp.namespace()
    {
        return Ok(temp_name(n, bare));
    }
    if name.contains('.') {
        return Ok(name.to_string());
    }
    if let Some(n) = cx.temp.namespace() {
        let temp = temp_name(n, name);
        if cx.db.catalog().relation_exists(txn, &temp)? {
            return Ok(temp);
        }
    }
    let path = SearchPath::of(cx, txn)?;
    if !path.is_public_only()
        && let Some(schema) = path.find(cx.db, txn, name)?
    {
        return Ok(folio_catalog::qualified_name(schema, name));
    }
    Ok(name.to_string())
}

/// The catalog name of the existing relation a statement's reference
/// `name` means ([`Resolver::existing`]: the session's temporary relation
/// of the name, else the search path's); a LIKE clause's source.
pub fn existing_name(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &ObjectName,
) -> Result<String, SqlError> {
    let mut name = name.clone();
    let mut resolver = Resolver::new(cx, txn, SearchPath::of(cx, txn)?);
    resolver.existing(&mut name)?;
    names::relation(&name)
}

/// `name` of a relation a statement creates, placed as
/// [`Resolver::place`] places it: unqualified, in the search path's first
/// schema (CREATE MATERIALIZED VIEW's name, which [`resolve`] does not see).
pub fn place_name(cx: &Ctx<'_>, txn: &Transaction, name: &mut ObjectName) -> Result<(), SqlError> {
    Resolver::new(cx, txn, SearchPath::of(cx, txn)?).place(name)
}

/// The catalog name CREATE TABLE `create` gives its table, as
/// [`Resolver::create_table`] places it: in the session's namespace for a
/// temporary one (`None` while the session has none: no such table
/// exists), else in the schema it names or the search path's first.
pub fn created_name(
    cx: &Ctx<'_>,
    txn: &Transaction,
    create: &CreateTable,
) -> Result<Option<String>, SqlError> {
    check_schema(&create.name, create.temporary, create.transient)?;
    if create.temporary || explicit_temp_schema(&create.name).is_some() {
        let Some(n) = cx.temp.namespace() else {
            return Ok(None);
        };
        return match names::parts(&create.name).as_deref() {
            Some([name] | [_, name]) => Ok(Some(temp_name(n, name))),
            _ => Err(SqlError::unsupported(format!("the name {}", create.name))),
        };
    }
    let mut name = create.name.clone();
    let mut resolver = Resolver::new(cx, txn, SearchPath::of(cx, txn)?);
    resolver.place(&mut name)?;
    names::relation(&name).map(Some)
}

/// [`created_name`], the session's temporary namespace claimed first when
/// the table is temporary: a partitioned table or a partition is named
/// before its CREATE runs (`partitions/ddl.rs`).
pub fn claimed_name(
    cx: &Ctx<'_>,
    txn: &Transaction,
    create: &CreateTable,
) -> Result<String, SqlError> {
    if create.temporary || explicit_temp_schema(&create.name).is_some() {
        cx.temp.claim(cx.db)?;
    }
    created_name(cx, txn, create)?
        .ok_or_else(|| SqlError::new("XX000", "a temporary table without a namespace"))
}

/// Whether a foreign key of temporary table `created` (placed:
/// `pg_temp_N.name`) references the table itself, by its bare name or as
/// `pg_temp[_N].name`: PostgreSQL resolves the reference once the table
/// exists, and the session's temporary namespace comes first in the
/// search path. The reference is then written as the placed name.
fn self_reference(target: &mut ObjectName, created: &ObjectName, temp: bool) -> bool {
    let (Some(placed), Some(parts)) = (names::parts(created), names::parts(target)) else {
        return false;
    };
    let [_, name] = placed.as_slice() else {
        return false;
    };
    let itself = match parts.as_slice() {
        [plain] => plain == name,
        [_, plain] => {
            plain == name
                && explicit_temp_schema(target).is_some_and(|n| {
                    n.is_none_or(|n| Some(n) == explicit_temp_schema(created).flatten())
                })
        }
        _ => false,
    };
    if temp && itself {
        *target = created.clone();
    }
    temp && itself
}

/// The table an INSERT, UPDATE, DELETE or MERGE writes, as written.
fn change_target(statement: &mut Statement) -> Option<&mut ObjectName> {
    let written = match statement {
        Statement::Insert(insert) => match &mut insert.table {
            TableObject::TableName(name) => return Some(name),
            _ => return None,
        },
        Statement::Update { table, .. } => &mut table.relation,
        Statement::Delete(delete) => match &mut delete.from {
            FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from) => {
                &mut from.first_mut()?.relation
            }
        },
        Statement::Merge { table, .. } => table,
        _ => return None,
    };
    match written {
        TableFactor::Table { name, .. } => Some(name),
        _ => None,
    }
}

/// The table a foreign key constraint references.
fn constraint_target(constraint: &mut TableConstraint) -> Option<&mut ObjectName> {
    match constraint {
        TableConstraint::ForeignKey { foreign_table, .. } => Some(foreign_table),
        _ => None,
    }
}

struct Resolver<'a, 'c> {
    cx: &'a Ctx<'c>,
    txn: &'a Transaction,
    /// The session's search path (`schemas.rs`).
    path: SearchPath,
    /// The schemas the statement creates something in, to lock `FOR
    /// SHARE` once resolved.
    lock: Vec<String>,
    /// The names of the CTEs in scope (a CTE's name shadows a table's),
    /// innermost last.
    ctes: Vec<String>,
    /// For each query being visited, how many names `ctes` held before
    /// its WITH: its names leave scope when its visit ends.
    scopes: Vec<usize>,
    /// The first error the visit met.
    error: Option<SqlError>,
}

impl<'a, 'c> Resolver<'a, 'c> {
    /// A resolver of a statement's names along `path`.
    fn new(cx: &'a Ctx<'c>, txn: &'a Transaction, path: SearchPath) -> Resolver<'a, 'c> {
        Resolver {
            cx,
            txn,
            path,
            ctes: Vec::new(),
            scopes: Vec::new(),
            error: None,
            lock: Vec::new(),
        }
    }
}

impl Resolver<'_, '_> {
    /// `CREATE [TEMP] TABLE`: a temporary one's name goes into the
    /// session's namespace (claimed now if need be) and its `ON COMMIT` is
    /// noted; a permanent one's name stays as written. The tables its
    /// foreign keys reference resolve, and must be of its kind.
    fn create_table(&mut self, create: &mut CreateTable) -> Result<(), SqlError> {
        check_schema(&create.name, create.temporary, create.transient)?;
        let temp = create.temporary || explicit_temp_schema(&create.name).is_some();
        if temp {
            let n = self.own_namespace(&create.name)?;
            let name = match names::parts(&create.name).as_deref() {
                Some([name] | [_, name]) => name.clone(),
                _ => return Err(SqlError::unsupported(format!("the name {}", create.name))),
            };
            create.name = qualified(n, &name);
            create.temporary = false;
            let stored = temp_name(n, &name);
            let mut at_commit = self.cx.temp.at_commit.borrow_mut();
            at_commit.retain(|(t, _)| *t != stored);
            match create.on_commit.take() {
                None | Some(OnCommit::PreserveRows) => {}
                Some(OnCommit::DeleteRows) => at_commit.push((stored, AtCommit::DeleteRows)),
                Some(OnCommit::Drop) => at_commit.push((stored, AtCommit::Drop)),
            }
        } else if create.on_commit.is_some() {
            return Err(SqlError::new(
                "42P16",
                "ON COMMIT can only be used on temporary tables",
            ));
        } else {
            self.place(&mut create.name)?;
        }
        // `INHERITS (parent, ...)` names existing tables.
        for parent in create.inherits.iter_mut().flatten() {
            self.existing(parent)?;
        }
        for column in &mut create.columns {
            for option in &mut column.options {
                if let ColumnOption::ForeignKey { foreign_table, .. } = &mut option.option
                    && !self_reference(foreign_table, &create.name, temp)
                {
                    self.references(Some(foreign_table), temp)?;
                }
            }
        }
        for constraint in &mut create.constraints {
            if let Some(target) = constraint_target(constraint)
                && !self_reference(target, &create.name, temp)
            {
                self.references(Some(target), temp)?;
            }
        }
        Ok(())
    }

    /// `CREATE [OR REPLACE] TEMP VIEW` and `CREATE TEMP SEQUENCE`: the name
    /// goes into the session's namespace (claimed now if need be), as a
    /// temporary table's; the session's end drops it (folio-catalog
    /// `drop_temp_tables`).
    fn temp_relation(&mut self, name: &mut ObjectName) -> Result<(), SqlError> {
        check_schema(name, true, false)?;
        let n = self.own_namespace(name)?;
        let bare = match names::parts(name).as_deref() {
            Some([bare] | [_, bare]) => bare.clone(),
            _ => return Err(SqlError::unsupported(format!("the name {name}"))),
        };
        *name = qualified(n, &bare);
        Ok(())
    }

    /// The session's namespace (claimed now if need be) for a temporary
    /// relation `name` creates; 0A000 when `name` names another session's.
    fn own_namespace(&mut self, name: &ObjectName) -> Result<u32, SqlError> {
        let n = self.cx.temp.claim(self.cx.db)?;
        if explicit_temp_schema(name).is_some_and(|m| m.is_some_and(|m| m != n)) {
            return Err(SqlError::new(
                "0A000",
                "cannot create relations in temporary schemas of other sessions",
            ));
        }
        Ok(n)
    }

    /// A foreign key of a (`temp`) table references `target`: resolved,
    /// and refused when only one of the two is temporary (PostgreSQL's
    /// 42P16).
    fn references(&mut self, target: Option<&mut ObjectName>, temp: bool) -> Result<(), SqlError> {
        let Some(target) = target else {
            return Ok(());
        };
        self.existing(target)?;
        match (temp, is_temp(target)) {
            (false, true) => Err(SqlError::new(
                "42P16",
                "constraints on permanent tables may reference only permanent tables",
            )),
            (true, false) => Err(SqlError::new(
                "42P16",
                "constraints on temporary tables may reference only temporary tables",
            )),
            _ => Ok(()),
        }
    }

    /// The name of a relation a statement creates (not a temporary one):
    /// a qualified one's schema must exist (3F000), a bare one goes into
    /// the search path's creation schema; the schema is locked once the
    /// statement is resolved.
    fn place(&mut self, name: &mut ObjectName) -> Result<(), SqlError> {
        match names::parts(name).as_deref() {
            Some([plain]) => {
                let schema = self.path.creation()?.to_string();
                if schema != schemas::PUBLIC {
                    *name = schemas::qualified(&schema, plain);
                    self.lock.push(schema);
                }
            }
            Some([schema, _])
                if schema == schemas::PUBLIC
                    || schema == "pg_temp"
                    || matches!(schema.as_str(), "pg_catalog" | "information_schema")
                    || temp_schema_number(schema).is_some() => {}
            Some([schema, _]) => {
                if self.cx.db.catalog().schema(self.txn, schema)?.is_none() {
                    return Err(SqlError::new(
                        "3F000",
                        format!("schema \"{schema}\" does not exist"),
                    ));
                }
                self.lock.push(schema.clone());
            }
            _ => {}
        }
        Ok(())
    }

    /// An unqualified name of an existing relation not the session's
    /// temporary one: qualified by the first schema of the search path
    /// that has it, when that is not `public` (left bare when none has
    /// it: a system relation's name, or downstream's 42P01). A relation of
    /// `public` when `public` is not in the path is not found.
    fn in_search_path(&mut self, name: &mut ObjectName, plain: &str) -> Result<(), SqlError> {
        if self.path.is_public_only() {
            return Ok(());
        }
        let db = self.cx.db;
        match self.path.find(db, self.txn, plain)? {
            Some(schema) if schema == schemas::PUBLIC => {}
            Some(schema) => *name = schemas::qualified(schema, plain),
            None => {
                let hidden = !self.path.schemas().iter().any(|s| s == schemas::PUBLIC)
                    && db.catalog().relation_exists(self.txn, plain)?;
                if let (true, Some(first)) = (hidden, self.path.schemas().first()) {
                    *name = schemas::qualified(first, plain);
                }
            }
        }
        Ok(())
    }

    /// An existing relation's name: the session's temporary relation of
    /// the name if there is one (module doc), else the search path's.
    fn existing(&mut self, name: &mut ObjectName) -> Result<(), SqlError> {
        // A name written after ONLY stays so marked (`inheritance/syntax.rs`).
        let only = crate::inheritance::syntax::only(name);
        self.existing_unmarked(name)?;
        if only {
            crate::inheritance::syntax::mark_only(name);
        }
        Ok(())
    }

    fn existing_unmarked(&mut self, name: &mut ObjectName) -> Result<(), SqlError> {
        match explicit_temp_schema(name) {
            Some(asked) => {
                let Some(n) = self.cx.temp.namespace() else {
                    return Ok(());
                };
                if asked.is_some_and(|m| m != n) {
                    return Err(SqlError::new(
                        "0A000",
                        "cannot access temporary tables of other sessions",
                    ));
                }
                if let Some([_, plain]) = names::parts(name).as_deref() {
                    *name = qualified(n, plain);
                }
            }
            None => {
                let Some(plain) = bare(name) else {
                    return Ok(());
                };
                if self.ctes.contains(&plain) {
                    return Ok(());
                }
                if let Some(n) = self.cx.temp.namespace() {
                    let stored = temp_name(n, &plain);
                    if self.cx.db.catalog().relation_exists(self.txn, &stored)? {
                        *name = qualified(n, &plain);
                        return Ok(());
                    }
                }
                self.in_search_path(name, &plain)?;
            }
        }
        Ok(())
    }
}

impl VisitorMut for Resolver<'_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        self.scopes.push(self.ctes.len());
        if let Some(with) = &query.with {
            self.ctes
                .extend(with.cte_tables.iter().map(|c| names::ident(&c.alias.name)));
        }
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        if let Some(depth) = self.scopes.pop() {
            self.ctes.truncate(depth);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_statement(&mut self, statement: &mut Statement) -> ControlFlow<()> {
        // The table a row change writes is never a CTE, whatever the
        // WITH around it names (PostgreSQL's rule): resolved here past
        // the CTE names in scope, so its visit finds it resolved.
        let Some(target) = change_target(statement) else {
            return ControlFlow::Continue(());
        };
        let ctes = std::mem::take(&mut self.ctes);
        let resolved = self.existing(target);
        self.ctes = ctes;
        match resolved {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.error = Some(e);
                ControlFlow::Break(())
            }
        }
    }

    fn pre_visit_relation(&mut self, relation: &mut ObjectName) -> ControlFlow<()> {
        // A name resolved above is qualified already: left as it is.
        if self.cx.temp.namespace().is_some()
            && explicit_temp_schema(relation) == Some(self.cx.temp.namespace())
        {
            return ControlFlow::Continue(());
        }
        match self.existing(relation) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.error = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}
