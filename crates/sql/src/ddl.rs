//! `CREATE TABLE` (with its key constraints, defaults, CHECK constraints
//! and foreign keys), `DROP TABLE`, `TRUNCATE` and `ALTER TABLE ... ADD
//! PRIMARY KEY | ADD CONSTRAINT | DROP CONSTRAINT`.

use crate::access;
use crate::alter_type::TypeChange;
use crate::constraints::Constraints;
use crate::context::Ctx;
use crate::error::SqlError;

use crate::indexes;
use crate::names;
use crate::output::{Notice, Output};
use crate::scalar::{self, Env, Scalar};
use crate::sequences;
use crate::trigger_statements::Enabling;
use crate::triggers::{Event, Triggers};
use crate::types;
use folio_catalog::{
    ColumnDef, ConstraintKind, Deferrable, ForeignKeyRequest, INT2_OID, INT4_OID, INT8_OID,
    RefAction, SequenceRequest, TableDef,
};
use folio_db::{Database, Transaction};
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    AlterColumnOperation, AlterTableOperation, ColumnOption, ConstraintCharacteristics,
    CreateTable, DeferrableInitial, DropBehavior, Expr, GeneratedAs, Ident, IndexColumn,
    NullsDistinctOption, ObjectName, ObjectType, ReferentialAction, RenameTableNameKind,
    TableConstraint, TruncateTableTarget,
};
use std::ops::ControlFlow;

/// `CREATE TABLE [IF NOT EXISTS] name (column type [NOT NULL | NULL |
/// PRIMARY KEY | UNIQUE | DEFAULT expr | GENERATED ALWAYS AS (expr) STORED
/// | [CONSTRAINT name] CHECK (expr) |
/// [CONSTRAINT name] REFERENCES t [(col)]], ..., [PRIMARY KEY (columns)],
/// [UNIQUE (columns)], [CONSTRAINT name] CHECK (expr), [CONSTRAINT name]
/// FOREIGN KEY (columns) REFERENCES t [(columns)]) [WITH (fillfactor =
/// 100)]`: the table, its keys' indexes, then its defaults and
/// constraints, in one step of the transaction (a failure fails the
/// statement, as any). Other options are 0A000 (README "Status").
pub fn create_table(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    create: &CreateTable,
) -> Result<Output, SqlError> {
    let db = cx.db;
    let name = names::relation(&create.name)?;
    if create.or_replace || create.temporary || create.external {
        return Err(SqlError::unsupported(
            "CREATE TABLE with OR REPLACE, TEMPORARY or EXTERNAL",
        ));
    }
    if create.like.is_some() || create.clone.is_some() {
        return Err(SqlError::unsupported("CREATE TABLE LIKE or CLONE"));
    }
    if let Some(query) = &create.query {
        return create_table_as(cx, txn, notices, create, &name, query);
    }
    if create.inherits.is_some() {
        return crate::inheritance::create::create(cx, txn, notices, create);
    }
    if create.partition_by.is_some() {
        return Err(SqlError::unsupported("partitioned tables"));
    }
    let storage = crate::storage_options::of_create(&create.table_options)?;
    let mut columns = Vec::with_capacity(create.columns.len());
    let mut additions = Additions::default();
    let mut keys = KeyConstraints::default();
    // Columns whose values a sequence of their own gives (`serial`,
    // identity): name, type, the sequence's request, and for an identity
    // column whether GENERATED ALWAYS.
    let mut owned: Vec<(String, SqlType, SequenceRequest, Option<bool>)> = Vec::new();
    for column in &create.columns {
        crate::system_columns::check_column_name(&names::ident(&column.name))?;
        let serial = serial_type(&column.data_type);
        let ty = match serial {
            Some(ty) => ty,
            None => types::stored_column_type(&column.data_type)?,
        };
        let column_name = names::ident(&column.name);
        let mut not_null = serial.is_some();
        let mut collation = None;
        column_clauses(&name, &column_name, &column.options, serial.is_some())?;
        if let Some((request, identity)) = owned_request(column, ty, serial.is_some())? {
            owned.push((column_name.clone(), ty, request, identity));
        }
        for option in &column.options {
            match option.option {
                ColumnOption::Default(ref expr) => {
                    additions.defaults.push((column_name.clone(), expr.clone()))
                }
                ColumnOption::Generated {
                    generated_as: GeneratedAs::ExpStored,
                    generation_expr: Some(ref expr),
                    ..
                } => additions
                    .generated
                    .push((column_name.clone(), expr.clone())),
                ColumnOption::Check(_) | ColumnOption::ForeignKey { .. } => {
                    additions.push_column_option(option, column)?
                }
                ColumnOption::NotNull => not_null = true,
                ColumnOption::Null => not_null = false,
                ColumnOption::Collation(ref c) => {
                    collation = Some(crate::collations::for_type(c, ty)?)
                }
                // An identity (its sequence: `owned_request`).
                ColumnOption::Generated {
                    generated_as: GeneratedAs::ByDefault | GeneratedAs::Always,
                    generation_expr: None,
                    ..
                } => not_null = true,
                ColumnOption::Unique {
                    is_primary,
                    ref characteristics,
                } => keys.push(
                    &name,
                    is_primary,
                    KeyConstraint::of_column(option, &column_name, characteristics.as_ref())?,
                )?,
                ref other => {
                    return Err(SqlError::unsupported(format!("the column option {other}")));
                }
            }
        }
        columns.push(ColumnDef {
            local: true,
            collation,
            name: column_name,
            type_oid: crate::domains::type_oid(&column.data_type, ty),
            typmod: ty.typmod(),
            not_null,
        });
    }
    for constraint in &create.constraints {
        match key_constraint(constraint) {
            Some((_, Ok(key))) if key.using_index.is_some() => {
                return Err(SqlError::new(
                    "0A000",
                    "cannot use an existing index in CREATE TABLE",
                ));
            }
            Some((primary, key)) => keys.push(&name, primary, key?)?,
            None => additions.push(constraint)?,
        }
    }
    // A primary key's columns are NOT NULL (PostgreSQL sets it).
    for key in keys.primary.iter().flat_map(|k| &k.columns) {
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
            "relation \"{}\" already exists, skipping",
            folio_catalog::unqualified(&name)
        )));
        return Ok(Output::command("CREATE TABLE"));
    }
    let persistence = crate::unlogged::persistence(create);
    let table = (db.catalog()).create_table_with(txn, &name, &columns, persistence)?;
    if !storage.is_empty() {
        db.catalog().set_storage_options(txn, &name, storage)?;
    }
    for (column, ty, request, identity) in owned {
        let default = owned_sequence(db, txn, (&name, &table), &column, ty, request, identity)?;
        additions.defaults.push((column, default));
    }
    keys.create(cx, txn, &name)?;
    additions.add(cx, txn, &name)?;
    Ok(Output::command("CREATE TABLE"))
}

/// The sequence that gives a new column (`column`, of type `ty`;
/// `serial`: of a serial type) its values, if one does: a serial's, or
/// the identity's its `GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY
/// [(options)]` asks for, with whether ALWAYS (`column_clauses` has
/// refused a column with two). CREATE TABLE's and ADD COLUMN's one
/// reading of it.
fn owned_request(
    column: &sqlparser::ast::ColumnDef,
    ty: SqlType,
    serial: bool,
) -> Result<Option<(SequenceRequest, Option<bool>)>, SqlError> {
    if serial {
        return Ok(Some((SequenceRequest::default(), None)));
    }
    for option in &column.options {
        if let ColumnOption::Generated {
            generated_as: ref generated @ (GeneratedAs::ByDefault | GeneratedAs::Always),
            ref sequence_options,
            generation_expr: None,
            ..
        } = option.option
        {
            let (request, always) =
                identity_request(ty, Some(generated), sequence_options.as_deref())?;
            return Ok(Some((request, Some(always))));
        }
    }
    Ok(None)
}

/// The sequence request of an identity column of type `ty`
/// (`GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY [(options)]`; no
/// `generated` is ALWAYS, as PostgreSQL's `ADD GENERATED AS IDENTITY`),
/// and whether ALWAYS. A type other than the three integers is 22023.
fn identity_request(
    ty: SqlType,
    generated: Option<&GeneratedAs>,
    options: Option<&[sqlparser::ast::SequenceOptions]>,
) -> Result<(SequenceRequest, bool), SqlError> {
    if !matches!(ty, SqlType::Int2 | SqlType::Int4 | SqlType::Int8) {
        return Err(SqlError::new(
            "22023",
            "identity column type must be smallint, integer, or bigint",
        ));
    }
    let request = sequences::request(None, options.unwrap_or_default())?;
    Ok((request, generated != Some(&GeneratedAs::ByDefault)))
}

/// Makes the sequence that gives column `column` of `table` (its name
/// and definition) its values: a `serial`'s, or an identity's when
/// `identity` is `Some(always)`. Named as PostgreSQL names it, of the
/// column's type, owned by the column; returns the column's default,
/// its `nextval`. The one owner of that rule (CREATE TABLE, ADD COLUMN,
/// ALTER COLUMN ... ADD GENERATED).
fn owned_sequence(
    db: &Database,
    txn: &mut Transaction,
    (name, table): (&str, &TableDef),
    column: &str,
    ty: SqlType,
    mut request: SequenceRequest,
    identity: Option<bool>,
) -> Result<Expr, SqlError> {
    let sequence = indexes::chosen_name(name, &[column], "seq", |n| {
        Ok(db.catalog().relation_exists(txn, n)?)
    })?;
    request.type_oid = Some(match ty {
        SqlType::Int2 => INT2_OID,
        SqlType::Int4 => INT4_OID,
        _ => INT8_OID,
    });
    let position = access_column(table, column)? as u16;
    db.catalog().create_sequence(
        txn,
        &sequence,
        request.settle(None)?,
        Some((table.oid, position)),
        identity,
        // An unlogged table's sequences are unlogged, as PostgreSQL 15's.
        folio_catalog::Persistence::of(table.root),
    )?;
    // The name as SQL writes it (`s."Mixed_id_seq"`), as PostgreSQL's.
    let quoted = names::stored_written(&sequence, false).replace('\'', "''");
    crate::parse::expression(&format!("nextval('{quoted}')"))
}

/// `CREATE TABLE [IF NOT EXISTS] name [(column, ...)] AS query`: the
/// query run, then a table of its columns (named as its result columns,
/// or as listed) holding its rows, as PostgreSQL's (tag `SELECT n`). A
/// column list names the first columns; more names than columns is
/// 42601. `WITH [NO] DATA` is not parsed (42601).
fn create_table_as(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    create: &CreateTable,
    name: &str,
    query: &sqlparser::ast::Query,
) -> Result<Output, SqlError> {
    if !create.constraints.is_empty()
        || create
            .columns
            .iter()
            .any(|c| !c.options.is_empty() || c.data_type != sqlparser::ast::DataType::Unspecified)
    {
        return Err(SqlError::syntax(
            "CREATE TABLE AS takes column names only".to_string(),
        ));
    }
    let storage = crate::storage_options::of_create(&create.table_options)?;
    if create.if_not_exists && cx.db.catalog().relation_exists(txn, name)? {
        notices.push(Notice::info(format!(
            "relation \"{}\" already exists, skipping",
            folio_catalog::unqualified(name)
        )));
        return Ok(Output::command("CREATE TABLE AS"));
    }
    let select = sqlparser::ast::Statement::Query(Box::new(query.clone()));
    let plan = crate::statement::plan(cx, txn, &select)?.expect("a query is planned");
    let planned = plan.result_query().expect("a query returns rows");
    let names: Vec<String> = create
        .columns
        .iter()
        .map(|c| names::ident(&c.name))
        .collect();
    let columns = query_columns(planned, &names)?;
    for column in &columns {
        crate::system_columns::check_column_name(&column.name)?;
    }
    // The query runs first, as PostgreSQL's does before it makes the
    // table: the catalog it reads (`pg_class`, ...) has no new table yet.
    let rows = match plan.run(cx, txn, &Env::at(cx.now()))? {
        Output::Rows { rows, .. } => rows,
        _ => unreachable!("a planned query outputs rows"),
    };
    let persistence = crate::unlogged::persistence(create);
    (cx.db.catalog()).create_table_with(txn, name, &columns, persistence)?;
    if !storage.is_empty() {
        cx.db.catalog().set_storage_options(txn, name, storage)?;
    }
    // The rows, as COPY writes them (TOAST, statistics); the new table
    // has no constraint, default or trigger to apply.
    let count = rows.len();
    let relation = crate::access::relation(cx, txn, name)?;
    let constraints = crate::constraints::Constraints::bind(cx, txn, &relation)?;
    constraints.start_statement();
    constraints.insert_many(txn, &relation, rows, &Env::at(cx.now()))?;
    constraints.end_statement(None, txn, &relation)?;
    Ok(Output::command(format!("SELECT {count}")))
}

/// The columns of a table made from a query's result (CREATE TABLE AS,
/// CREATE MATERIALIZED VIEW): named as its result columns or, first,
/// as `names` lists (more names than columns is 42601); a `record`
/// column is 42P16, an array one 0A000. The one owner of those rules.
pub(crate) fn query_columns(
    planned: &crate::query::Planned,
    names: &[String],
) -> Result<Vec<ColumnDef>, SqlError> {
    if names.len() > planned.columns.len() {
        return Err(SqlError::syntax("too many column names were specified"));
    }
    let mut columns = Vec::with_capacity(planned.columns.len());
    for (i, (column, ty)) in planned.columns.iter().zip(&planned.types).enumerate() {
        let name = names.get(i).cloned().unwrap_or_else(|| column.name.clone());
        if *ty == SqlType::Record {
            return Err(SqlError::new(
                "42P16",
                format!("column \"{name}\" has pseudo-type record"),
            ));
        }
        types::storable(*ty)?;
        columns.push(ColumnDef {
            local: true,
            collation: None,
            name,
            type_oid: ty.oid(),
            typmod: ty.typmod(),
            not_null: false,
        });
    }
    Ok(columns)
}

/// `INSERT INTO table query`: how a table made from a query gets its
/// rows (INSERT's path: TOAST, statistics, sequences).
pub(crate) fn insert_query(
    table: &ObjectName,
    query: &sqlparser::ast::Query,
) -> sqlparser::ast::Statement {
    sqlparser::ast::Statement::Insert(sqlparser::ast::Insert {
        or: None,
        ignore: false,
        into: true,
        table: sqlparser::ast::TableObject::TableName(table.clone()),
        table_alias: None,
        columns: Vec::new(),
        overwrite: false,
        source: Some(Box::new(query.clone())),
        assignments: Vec::new(),
        partitioned: None,
        after_columns: Vec::new(),
        has_table_keyword: false,
        on: None,
        returning: None,
        replace_into: false,
        priority: None,
        insert_alias: None,
        settings: None,
        format_clause: None,
    })
}

/// The defaults and constraints a CREATE TABLE or ALTER TABLE adds, in
/// the order given.
#[derive(Default)]
struct Additions {
    /// Column name, expression.
    defaults: Vec<(String, Expr)>,
    /// Column name, generation expression (`GENERATED ALWAYS AS (expr)
    /// STORED`).
    generated: Vec<(String, Expr)>,
    /// Name (none: PostgreSQL's), expression, `NO INHERIT`.
    checks: Vec<(Option<String>, Expr, bool)>,
    keys: Vec<KeySpec>,
    /// `ALTER TABLE ... ADD ... NOT VALID`: the CHECKs and foreign keys
    /// are marked not validated, and the rows already there not checked.
    not_valid: bool,
}

/// A `FOREIGN KEY` / `REFERENCES` clause.
struct KeySpec {
    name: Option<String>,
    columns: Vec<String>,
    table: String,
    /// Empty: the referenced table's primary key.
    ref_columns: Vec<String>,
    on_delete: RefAction,
    on_update: RefAction,
    deferrable: Deferrable,
    /// `MATCH FULL` (`references_syntax.rs`).
    match_full: bool,
    /// `ON DELETE SET NULL / SET DEFAULT (columns)` (empty: all).
    set_columns: Vec<String>,
}

impl KeySpec {
    fn new(
        name: Option<String>,
        columns: &[Ident],
        table: &ObjectName,
        ref_columns: &[Ident],
        (on_delete, on_update): (Option<ReferentialAction>, Option<ReferentialAction>),
        characteristics: Option<&ConstraintCharacteristics>,
    ) -> Result<KeySpec, SqlError> {
        let deferrable = deferrable(characteristics)?;
        let (ref_columns, options) = crate::references_syntax::Options::take(ref_columns);
        Ok(KeySpec {
            name,
            columns: columns.iter().map(names::ident).collect(),
            table: names::relation(table)?,
            ref_columns: ref_columns.iter().map(names::ident).collect(),
            on_delete: action(on_delete),
            on_update: action(on_update),
            deferrable,
            match_full: options.match_full,
            // (A column named twice is set once, as PostgreSQL's.)
            set_columns: options.set_columns.iter().map(names::ident).fold(
                Vec::new(),
                |mut set, c| {
                    if !set.contains(&c) {
                        set.push(c);
                    }
                    set
                },
            ),
        })
    }

    /// 0A000 when the key names a system column on either side
    /// (`tableoid`, `ctid`, ...: no table column has such a name), as
    /// PostgreSQL's.
    fn check_system_columns(&self) -> Result<(), SqlError> {
        let named = self.columns.iter().chain(&self.ref_columns);
        match named
            .into_iter()
            .any(|c| crate::system_columns::reserved(c))
        {
            true => Err(SqlError::new(
                "0A000",
                "system columns cannot be used in foreign keys",
            )),
            false => Ok(()),
        }
    }

    /// PostgreSQL's checks of the `ON DELETE SET ... (columns)` list
    /// against table `def`: each a column of the key (42P10), of the
    /// table at all (42703).
    fn check_set_columns(&self, def: &TableDef) -> Result<(), SqlError> {
        for column in &self.set_columns {
            if self.columns.contains(column) {
                continue;
            }
            return Err(match def.column(column) {
                Some(_) => SqlError::new(
                    "42P10",
                    format!(
                        "column \"{column}\" referenced in ON DELETE SET action must be part of foreign key"
                    ),
                ),
                None => SqlError::new(
                    "42703",
                    format!(
                        "column \"{column}\" referenced in foreign key constraint does not exist"
                    ),
                ),
            });
        }
        Ok(())
    }
}

/// A referential action as written (none: NO ACTION).
fn action(action: Option<ReferentialAction>) -> RefAction {
    match action {
        None | Some(ReferentialAction::NoAction) => RefAction::NoAction,
        Some(ReferentialAction::Restrict) => RefAction::Restrict,
        Some(ReferentialAction::Cascade) => RefAction::Cascade,
        Some(ReferentialAction::SetNull) => RefAction::SetNull,
        Some(ReferentialAction::SetDefault) => RefAction::SetDefault,
    }
}

/// A foreign key's `[NOT] DEFERRABLE [INITIALLY DEFERRED | INITIALLY
/// IMMEDIATE]` (`INITIALLY DEFERRED` alone implies DEFERRABLE, as in
/// PostgreSQL; with NOT DEFERRABLE it is PostgreSQL's 42601). `NOT
/// ENFORCED` is 0A000.
fn deferrable(characteristics: Option<&ConstraintCharacteristics>) -> Result<Deferrable, SqlError> {
    let Some(c) = characteristics else {
        return Ok(Deferrable::No);
    };
    if c.enforced == Some(false) {
        return Err(SqlError::unsupported(format!(
            "the constraint characteristics {c}"
        )));
    }
    match (c.deferrable, c.initially) {
        (Some(false), Some(DeferrableInitial::Deferred)) => Err(SqlError::syntax(
            "constraint declared INITIALLY DEFERRED must be DEFERRABLE",
        )),
        (_, Some(DeferrableInitial::Deferred)) => Ok(Deferrable::InitiallyDeferred),
        (Some(true), _) => Ok(Deferrable::InitiallyImmediate),
        _ => Ok(Deferrable::No),
    }
}

impl Additions {
    /// Takes a column's `CHECK (...)` or `REFERENCES ...` option (CREATE
    /// TABLE's and ADD COLUMN's); another option is a caller's error.
    fn push_column_option(
        &mut self,
        option: &sqlparser::ast::ColumnOptionDef,
        column: &sqlparser::ast::ColumnDef,
    ) -> Result<(), SqlError> {
        let constraint_name = option.name.as_ref().map(names::ident);
        match option.option {
            ColumnOption::Check(ref expr) => {
                self.checks.push((constraint_name, expr.clone(), false))
            }
            ColumnOption::ForeignKey {
                ref foreign_table,
                ref referred_columns,
                on_delete,
                on_update,
                ref characteristics,
            } => self.keys.push(KeySpec::new(
                constraint_name,
                std::slice::from_ref(&column.name),
                foreign_table,
                referred_columns,
                (on_delete, on_update),
                characteristics.as_ref(),
            )?),
            ref other => {
                return Err(SqlError::unsupported(format!("the column option {other}")));
            }
        }
        Ok(())
    }

    /// Takes a table constraint other than a plain PRIMARY KEY or UNIQUE.
    fn push(&mut self, constraint: &TableConstraint) -> Result<(), SqlError> {
        match constraint {
            TableConstraint::Check {
                name,
                expr,
                enforced: None | Some(false),
            } => self.checks.push((
                name.as_ref().map(names::ident),
                (**expr).clone(),
                crate::inheritance::syntax::no_inherit(constraint),
            )),
            TableConstraint::ForeignKey {
                name,
                index_name: None,
                columns,
                foreign_table,
                referred_columns,
                on_delete,
                on_update,
                characteristics,
            } => self.keys.push(KeySpec::new(
                name.as_ref().map(names::ident),
                columns,
                foreign_table,
                referred_columns,
                (*on_delete, *on_update),
                characteristics.as_ref(),
            )?),
            other => return Err(SqlError::unsupported(format!("the constraint {other}"))),
        }
        Ok(())
    }

    /// Adds them to table `table` (which exists, with its keys), then
    /// checks the rows already there against the new CHECK constraints and
    /// foreign keys (23514, 23503).
    fn add(self, cx: &Ctx<'_>, txn: &mut Transaction, table: &str) -> Result<(), SqlError> {
        if self.defaults.is_empty()
            && self.generated.is_empty()
            && self.checks.is_empty()
            && self.keys.is_empty()
        {
            return Ok(());
        }
        let catalog = cx.db.catalog();
        let def = catalog
            .table(txn, table)?
            .ok_or_else(|| SqlError::undefined_table(table))?;
        let mut taken: Vec<String> = def.constraints.iter().map(|c| c.name.clone()).collect();
        let env = Env::at(cx.now());
        for (column, expr) in &self.defaults {
            let position = access_column(&def, column)?;
            let kind = ConstraintKind::Default {
                column: position as u16,
                expr: default_text(
                    (cx, txn),
                    expr,
                    (column, column_type(&def, position)?),
                    &env,
                )?,
            };
            catalog.add_constraint(txn, table, "", kind)?;
        }
        if !self.generated.is_empty() {
            // Every generated column is known before any expression is
            // checked: none may read another.
            let relation = catalog.open_relation(def.clone())?;
            let mut all = crate::generated::columns_of(&relation);
            for (column, _) in &self.generated {
                all.push(access_column(&def, column)?);
            }
            for (column, expr) in &self.generated {
                let position = access_column(&def, column)?;
                crate::generated::bind(expr, &relation, position, &all)?;
                let kind = ConstraintKind::Generated {
                    column: position as u16,
                    expr: crate::generated::stored_text(expr),
                };
                catalog.add_constraint(txn, table, "", kind)?;
            }
        }
        if !self.checks.is_empty() {
            let relation = catalog.open_relation(def.clone())?;
            for (name, expr, no_inherit) in &self.checks {
                if *no_inherit && def.partition_key().is_some() {
                    return Err(SqlError::new(
                        "42P16",
                        format!(
                            "cannot add NO INHERIT constraint to partitioned table \"{}\"",
                            folio_catalog::unqualified(table)
                        ),
                    ));
                }
                crate::project_set::refuse(expr, "check constraints")?;
                let bound = scalar::bind(expr, &relation)?;
                scalar::require_bool(&bound, &relation, "CHECK", expr)?;
                let name = match name {
                    Some(name) => name.clone(),
                    None => {
                        let columns = columns_in(expr, &def);
                        let column: Vec<&str> = match columns.as_slice() {
                            [one] => vec![one.as_str()],
                            _ => Vec::new(),
                        };
                        indexes::chosen_name(
                            folio_catalog::unqualified(table),
                            &column,
                            "check",
                            |n| Ok(taken.iter().any(|t| t == n)),
                        )?
                    }
                };
                let kind = ConstraintKind::Check {
                    expr: expr.to_string(),
                };
                catalog.add_constraint(txn, table, &name, kind)?;
                if self.not_valid {
                    catalog.set_constraint_validated(txn, table, &name, false)?;
                }
                if *no_inherit {
                    catalog.set_constraint_no_inherit(txn, table, &name, true)?;
                }
                taken.push(name);
            }
        }
        for key in &self.keys {
            let name = match &key.name {
                Some(name) => name.clone(),
                None => {
                    let columns: Vec<&str> = key.columns.iter().map(String::as_str).collect();
                    indexes::chosen_name(
                        folio_catalog::unqualified(table),
                        &columns,
                        "fkey",
                        |n| Ok(taken.iter().any(|t| t == n)),
                    )?
                }
            };
            key.check_system_columns()?;
            if !key.set_columns.is_empty()
                && let Some(def) = catalog.table(txn, table)?
            {
                key.check_set_columns(&def)?;
            }
            let request = ForeignKeyRequest {
                name: &name,
                columns: &key.columns,
                ref_table: &key.table,
                ref_columns: (!key.ref_columns.is_empty()).then_some(&key.ref_columns[..]),
                on_delete: key.on_delete,
                on_update: key.on_update,
                deferrable: key.deferrable,
                match_full: key.match_full,
                set_columns: &key.set_columns,
            };
            catalog.add_foreign_key(txn, table, &request)?;
            if self.not_valid {
                catalog.set_constraint_validated(txn, table, &name, false)?;
            }
            taken.push(name);
        }
        // Read from here on, the relations include what was added.
        cx.relations.ddl();
        // A partition's own key equal to a new one of its partitioned
        // table merges with it.
        if !self.keys.is_empty() {
            for (_, part) in &def.partitions {
                crate::partitions::merged_keys::merge(cx, txn, part)?;
            }
        }
        let relation = access::relation(cx, txn, table)?;
        let constraints = Constraints::bind(cx, txn, &relation)?;
        constraints.validate_checks(txn, &relation, &Env::at(cx.now()))?;
        constraints.validate_references(txn, &relation)
    }
}

/// PostgreSQL's 42601 for clauses of one column that exclude each other:
/// a generation expression with a DEFAULT, an identity or another one; an
/// identity with a DEFAULT (a `serial` type is one).
fn column_clauses(
    table: &str,
    column: &str,
    options: &[sqlparser::ast::ColumnOptionDef],
    serial: bool,
) -> Result<(), SqlError> {
    nullability(table, column, options, serial)?;
    let count = |f: &dyn Fn(&ColumnOption) -> bool| options.iter().filter(|o| f(&o.option)).count();
    let generated = count(&|o| {
        matches!(
            o,
            ColumnOption::Generated {
                generation_expr: Some(_),
                ..
            }
        )
    });
    let identity = count(&|o| {
        matches!(
            o,
            ColumnOption::Generated {
                generation_expr: None,
                ..
            }
        )
    });
    let default = count(&|o| matches!(o, ColumnOption::Default(_))) + usize::from(serial);
    let conflict = match (generated, identity, default) {
        (0, 1.., 1..) => "both default and identity specified",
        (0, _, _) => return Ok(()),
        (2.., _, _) => "multiple generation clauses specified",
        (_, 1.., _) => "both identity and generation expression specified",
        (_, _, 1..) => "both default and generation expression specified",
        _ => return Ok(()),
    };
    Err(SqlError::syntax(format!(
        "{conflict} for column \"{column}\" of table \"{}\"",
        folio_catalog::unqualified(table)
    )))
}

/// 42601 if a column's clauses say both NULL and NOT NULL, in
/// PostgreSQL's reading: in the order written, NULL after NOT NULL or an
/// identity, or NOT NULL or an identity after NULL; a serial's NOT NULL
/// comes last. NOT NULL twice, NULL twice and a PRIMARY KEY after NULL
/// are accepted, as there.
fn nullability(
    table: &str,
    column: &str,
    options: &[sqlparser::ast::ColumnOptionDef],
    serial: bool,
) -> Result<(), SqlError> {
    let says = options.iter().filter_map(|o| match o.option {
        ColumnOption::Null => Some(false),
        ColumnOption::NotNull
        | ColumnOption::Generated {
            generation_expr: None,
            ..
        } => Some(true),
        _ => None,
    });
    let mut said = None;
    for not_null in says.chain(serial.then_some(true)) {
        if said.is_some_and(|s| s != not_null) {
            return Err(SqlError::syntax(format!(
                "conflicting NULL/NOT NULL declarations for column \"{column}\" of table \"{}\"",
                folio_catalog::unqualified(table)
            )));
        }
        said = Some(not_null);
    }
    Ok(())
}

/// 55006 when dropping foreign key `constraint` of table `name` while
/// checks of the transaction wait on a table the key joins (each leaf
/// of a partitioned `name`, then the referenced table), as PostgreSQL
/// refuses it: the deferred checks would have no key left to run.
fn refuse_foreign_key_drop_while_waiting(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &str,
    constraint: &str,
) -> Result<(), SqlError> {
    if cx.deferred.is_empty() {
        return Ok(());
    }
    let Some(def) = cx.db.catalog().table(txn, name)? else {
        return Ok(());
    };
    let Some(ConstraintKind::ForeignKey(fk)) = (def.constraints.iter())
        .find(|c| c.name == constraint)
        .map(|c| &c.kind)
    else {
        return Ok(());
    };
    let relation = access::relation(cx, txn, name)?;
    for leaf in crate::partitions::foreign_keys::leaves(cx, txn, relation)? {
        crate::deferred::refuse_if_waiting(cx, &leaf.def.name, "ALTER TABLE")?;
    }
    crate::deferred::refuse_if_waiting(cx, &fk.ref_table, "ALTER TABLE")
}

/// The position of column `name` of `def`, or 42703.
fn access_column(def: &TableDef, name: &str) -> Result<usize, SqlError> {
    def.column(name).ok_or_else(|| {
        SqlError::new(
            "42703",
            format!(
                "column \"{name}\" of relation \"{}\" does not exist",
                def.name
            ),
        )
    })
}

/// A DEFAULT expression of a column of type `ty` as stored: it names no
/// column (0A000, as PostgreSQL) and its value is one of the column's
/// type without its length or precision (an error now, as PostgreSQL's
/// reading of a literal at CREATE). Whether it fits the column's length,
/// precision or range (22001, 22003: `varchar(2) default 'abc'`), and an
/// error its evaluation raises (a division by zero), are the first
/// insert's that uses it, as in PostgreSQL, which coerces to the modifier
/// and evaluates per insert.
pub(crate) fn default_text(
    (cx, txn): (&Ctx<'_>, &Transaction),
    expr: &Expr,
    (column, ty): (&str, SqlType),
    env: &Env<'_>,
) -> Result<String, SqlError> {
    if !column_free(expr) {
        return Err(SqlError::new(
            "0A000",
            "cannot use column reference in DEFAULT expression",
        ));
    }
    crate::project_set::refuse(expr, "DEFAULT expressions")?;
    // A call of a PL/pgSQL function is run for each row that takes the
    // default (`plpgsql/row_calls.rs`), not now.
    if crate::plpgsql::calls::first_call(expr).is_some() {
        return Ok(expr.to_string());
    }
    let none: &[(String, SqlType)] = &[];
    // Bound with its calls of SQL functions expanded (the text kept is
    // the calls, as written).
    let mut expanded = expr.clone();
    crate::sql_functions::expand_expr(cx, txn, &mut expanded)?;
    let bound = scalar::bind(&expanded, none)?;
    let from = crate::assignment::known_type(&bound, none);
    crate::assignment::check_as(from, (column, ty), Some(expr), "default expression")?;
    // A default that calls a sequence function is not run now (it would
    // use a value); its sequences must exist.
    let mut named = Vec::new();
    match !sequences::names_in(&expanded, &mut named)? {
        true => {
            // A quoted literal is read as the column's type now; another
            // value out of its range (`int2 default 100000`) is the
            // insert's error.
            let literal = matches!(bound, Scalar::Const(Value::Text(_)));
            if let Ok(value) = bound.eval(&[], env) {
                match types::assign(value, unconstrained(ty)) {
                    Err(e) if e.code == "22003" && !literal => {}
                    fitted => {
                        fitted?;
                    }
                }
            }
        }
        false => {
            sequences::Calls::resolve(cx, txn, &named)?;
        }
    }
    Ok(expr.to_string())
}

/// `ty` without its length or precision (a `char(n)` as text).
fn unconstrained(ty: SqlType) -> SqlType {
    match ty {
        SqlType::Varchar(_) | SqlType::Char(_) => SqlType::Text,
        SqlType::Numeric(_) => SqlType::Numeric(None),
        other => other,
    }
}

/// The integer type of a `smallserial`, `serial` or `bigserial` column.
fn serial_type(ty: &sqlparser::ast::DataType) -> Option<SqlType> {
    let sqlparser::ast::DataType::Custom(name, modifiers) = ty else {
        return None;
    };
    if !modifiers.is_empty() {
        return None;
    }
    match name.to_string().to_lowercase().as_str() {
        "smallserial" | "serial2" => Some(SqlType::Int2),
        "serial" | "serial4" => Some(SqlType::Int4),
        "bigserial" | "serial8" => Some(SqlType::Int8),
        _ => None,
    }
}

/// The type of column `position` of `def`.
fn column_type(def: &TableDef, position: usize) -> Result<SqlType, SqlError> {
    let column = &def.columns[position];
    def.column_type(position)
        .ok_or_else(|| SqlError::unsupported(format!("the type of column \"{}\"", column.name)))
}

/// Whether `expr` names no column (a DEFAULT may not).
fn column_free(expr: &Expr) -> bool {
    sqlparser::ast::visit_expressions(expr, |e| match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_continue()
}

/// The distinct columns of `def` that `expr` names, in order of first use
/// (PostgreSQL names a CHECK after its column when it uses just one).
fn columns_in(expr: &Expr, def: &TableDef) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let _ = sqlparser::ast::visit_expressions(expr, |e| {
        let name = match e {
            Expr::Identifier(id) => Some(names::ident(id)),
            Expr::CompoundIdentifier(parts) => parts.last().map(names::ident),
            _ => None,
        };
        if let Some(name) = name
            && def.column(&name).is_some()
            && !out.contains(&name)
        {
            out.push(name);
        }
        ControlFlow::<()>::Continue(())
    });
    out
}

/// `DROP TABLE [IF EXISTS] name, ... [CASCADE]`. A foreign key of another
/// table that references a dropped one is dropped with it when that table
/// goes too or with CASCADE (PostgreSQL's `drop cascades to constraint`
/// notice), else the drop is 2BP01 (folio-catalog `drop_table`).
pub fn drop(
    db: &Database,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    object_type: ObjectType,
    if_exists: bool,
    names: &[ObjectName],
    cascade: bool,
) -> Result<Output, SqlError> {
    let (matviews, kind) = match object_type {
        ObjectType::Table => (false, "table"),
        ObjectType::MaterializedView => (true, "materialized view"),
        ObjectType::Index => return indexes::drop_indexes(db, txn, notices, if_exists, names),
        other => return Err(SqlError::unsupported(format!("DROP {other}"))),
    };
    let mut tables = Vec::with_capacity(names.len());
    for name in names {
        let name = names::relation(name)?;
        match db.catalog().table(txn, &name)? {
            Some(def) if def.matview.is_some() == matviews => tables.push(def),
            Some(_) => return Err(crate::views::wrong_kind(db, txn, &name, kind)?),
            None if db.catalog().relation_exists(txn, &name)? => {
                return Err(crate::views::wrong_kind(db, txn, &name, kind)?);
            }
            None if if_exists => notices.push(Notice::info(format!(
                "{kind} \"{name}\" does not exist, skipping"
            ))),
            None => {
                return Err(SqlError::new(
                    "42P01",
                    format!("{kind} \"{name}\" does not exist"),
                ));
            }
        }
    }
    for def in &tables {
        drop_partition_referenced(db, txn, def, &tables, cascade)?;
        let keys: Vec<_> = def
            .referenced_by
            .iter()
            .filter(|c| c.table_oid != def.oid)
            .collect();
        let staying: Vec<String> = keys
            .iter()
            .filter(|key| !tables.iter().any(|t| t.oid == key.table_oid))
            .map(|key| format!("constraint {} on table {}", key.name, key.table))
            .collect();
        if !staying.is_empty() && !cascade {
            // PostgreSQL's DETAIL: one line per dependent object.
            let detail = staying
                .iter()
                .map(|object| format!("{object} depends on table {}", def.name))
                .collect::<Vec<_>>()
                .join("\n");
            return Err(SqlError::new(
                "2BP01",
                format!(
                    "cannot drop table {} because other objects depend on it",
                    def.name
                ),
            )
            .with_detail(detail)
            .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
        }
        notices.extend(Notice::cascaded(&staying));
        for key in keys {
            db.catalog().drop_constraint(txn, &key.table, &key.name)?;
        }
    }
    let dropping: Vec<(&str, String, u64)> = tables
        .iter()
        .map(|t| (kind, t.name.clone(), t.oid))
        .collect();
    crate::views::drop_dependents(db, txn, notices, &dropping, cascade)?;
    for def in &tables {
        db.catalog().drop_table(txn, &def.name)?;
    }
    Ok(Output::command(format!("DROP {}", kind.to_uppercase())))
}

/// 2BP01 for DROP TABLE of partition `def` whose rows a foreign key
/// references through an ancestor, unless the ancestor or the referencing
/// table is dropped too (the ancestor's own check then speaks). PostgreSQL
/// drops its per-partition copy of the key with CASCADE; folio has none
/// (README "Foreign keys of partitioned tables"): 0A000 then.
fn drop_partition_referenced(
    db: &Database,
    txn: &Transaction,
    def: &folio_catalog::TableDef,
    tables: &[folio_catalog::TableDef],
    cascade: bool,
) -> Result<(), SqlError> {
    let dropped = |oid: u64| tables.iter().any(|t| t.oid == oid);
    if def
        .partition_of()
        .is_some_and(|(parent, _)| dropped(parent))
    {
        return Ok(());
    }
    let inherited = crate::partitions::foreign_keys::inherited_referenced_by(db, txn, def)?;
    let Some((_, key)) = inherited.iter().find(|(_, key)| !dropped(key.table_oid)) else {
        return Ok(());
    };
    if cascade {
        return Err(SqlError::unsupported(format!(
            "DROP TABLE ... CASCADE of partition \"{}\" of a table foreign key \"{}\" references",
            def.name, key.name
        )));
    }
    Err(SqlError::new(
        "2BP01",
        format!(
            "cannot drop table {} because other objects depend on it",
            def.name
        ),
    )
    .with_detail(format!(
        "constraint {} on table {} depends on table {}",
        key.name, key.table, def.name
    ))
    .with_hint("Use DROP ... CASCADE to drop the dependent objects too."))
}

/// PostgreSQL's 42809 for TRUNCATE of a view or materialized view.
fn not_a_table(name: &str) -> SqlError {
    SqlError::new(
        "42809",
        format!("\"{}\" is not a table", folio_catalog::unqualified(name)),
    )
}

/// `TRUNCATE [TABLE] t, ... [CONTINUE IDENTITY] [CASCADE | RESTRICT]`:
/// every table emptied in the statement's transaction. A table another
/// table's foreign key references is refused (0A000) unless that table is
/// truncated too: named, or with CASCADE, added as PostgreSQL adds them
/// (round after round, the tables referencing those already in, each
/// round in creation order, each with a NOTICE). `RESTART IDENTITY`
/// restarts the sequences the tables' columns own (serial, identity, `OWNED
/// BY`), transactionally as PostgreSQL does (folio-catalog
/// `restart_sequence`).
pub fn truncate(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    tables: &[TruncateTableTarget],
    cascade: bool,
    restart_identity: bool,
) -> Result<Output, SqlError> {
    let db = cx.db;
    let mut names: Vec<String> = Vec::with_capacity(tables.len());
    let mut defs: Vec<TableDef> = Vec::with_capacity(tables.len());
    for target in tables {
        let name = &names::relation(&target.name)?;
        let def = match db.catalog().table(txn, name)? {
            Some(def) => def,
            None if db.catalog().view(txn, name)?.is_some() => {
                return Err(not_a_table(name));
            }
            None => return Err(SqlError::undefined_table(name)),
        };
        if def.matview.is_some() {
            return Err(not_a_table(name));
        }
        // A partitioned table holds no rows of its own: ONLY would empty
        // nothing (PostgreSQL's 42809, partitions or none).
        if target.only && def.partition_key().is_some() {
            return Err(SqlError::new("42809", "cannot truncate only a partitioned table")
                .with_hint(
                    "Do not specify the ONLY keyword, or use TRUNCATE ONLY on the partitions directly.",
                ));
        }
        let partitions = partitions_of(db, txn, &def)?;
        for def in std::iter::once(def).chain(partitions) {
            if !names.contains(&def.name) {
                names.push(def.name.clone());
                defs.push(def);
            }
        }
    }
    let mut round_start = 0;
    while cascade && round_start < defs.len() {
        let mut added: Vec<TableDef> = Vec::new();
        for def in &defs[round_start..] {
            let inherited = crate::partitions::foreign_keys::inherited_referenced_by(db, txn, def)?;
            for key in def
                .referenced_by
                .iter()
                .chain(inherited.iter().map(|(_, k)| k))
            {
                if names.contains(&key.table) || added.iter().any(|a| a.name == key.table) {
                    continue;
                }
                if let Some(referencing) = db.catalog().table(txn, &key.table)? {
                    added.push(referencing);
                }
            }
        }
        added.sort_by_key(|def| def.oid);
        round_start = defs.len();
        for def in added {
            // A partitioned table comes with its partitions, each named.
            let partitions = partitions_of(db, txn, &def)?;
            for def in std::iter::once(def).chain(partitions) {
                if names.contains(&def.name) {
                    continue;
                }
                notices.push(Notice::info(format!(
                    "truncate cascades to table \"{}\"",
                    folio_catalog::unqualified(&def.name)
                )));
                names.push(def.name.clone());
                defs.push(def);
            }
        }
    }
    for def in &defs {
        // A partition's rows are its ancestors' too: a key referencing
        // one of them (not truncated itself) holds it (PostgreSQL names the
        // partition).
        let inherited = crate::partitions::foreign_keys::inherited_referenced_by(db, txn, def)?;
        let inherited = (inherited.iter())
            .take_while(|(ancestor, _)| !names.contains(ancestor))
            .map(|(_, key)| key);
        let mut keys = def.referenced_by.iter().chain(inherited);
        if let Some(key) = keys.find(|c| !names.contains(&c.table)) {
            return Err(SqlError::new(
                "0A000",
                "cannot truncate a table referenced in a foreign key constraint",
            )
            .with_detail(format!(
                "Table \"{}\" references \"{}\".",
                key.table, def.name
            ))
            .with_hint(format!(
                "Truncate table \"{}\" at the same time, or use TRUNCATE ... CASCADE.",
                key.table
            )));
        }
    }
    // The tables' TRUNCATE triggers: BEFORE for each before any is
    // emptied, AFTER for each once all are.
    let mut triggers = Vec::new();
    for i in trigger_order(&defs) {
        let (def, name) = (&defs[i], &names[i]);
        if crate::triggers::fires_any(def.oid, Event::Truncate) {
            let relation = access::relation(cx, txn, name)?;
            triggers.extend(Triggers::of_statement(&relation, Event::Truncate, &[])?);
        }
    }
    for t in &triggers {
        t.start_statement(cx, txn)?;
    }
    for name in &names {
        db.catalog().truncate(txn, name)?;
    }
    if restart_identity {
        let owned = db.catalog().sequences(txn)?.into_iter().filter(|s| {
            s.owner
                .is_some_and(|(table, _)| defs.iter().any(|d| d.oid == table))
        });
        for sequence in owned {
            db.catalog().restart_sequence(txn, &sequence.name, None)?;
        }
    }
    // The tables have new, empty storage: what a BEFORE trigger's query
    // read of them is forgotten, so an AFTER trigger's sees them empty.
    cx.relations.ddl();
    for t in &triggers {
        t.end_statement(cx, txn)?;
    }
    Ok(Output::command("TRUNCATE TABLE"))
}

/// The partitions of `def`, and theirs, breadth first (as PostgreSQL
/// lists a partitioned table's descendants): what a TRUNCATE of `def`
/// without ONLY empties with it.
fn partitions_of(
    db: &Database,
    txn: &Transaction,
    def: &TableDef,
) -> Result<Vec<TableDef>, SqlError> {
    let mut out: Vec<TableDef> = Vec::new();
    let mut next = def.partitions.clone();
    while !next.is_empty() {
        let mut deeper = Vec::new();
        for (_, name) in next {
            if let Some(partition) = db.catalog().table(txn, &name)? {
                deeper.extend(partition.partitions.iter().cloned());
                out.push(partition);
            }
        }
        next = deeper;
    }
    Ok(out)
}

/// The order TRUNCATE fires the TRUNCATE triggers of `defs` (a
/// partitioned table's partitions listed before it) in:
/// PostgreSQL's, each table before its partitions, breadth first, the
/// tables otherwise as listed.
fn trigger_order(defs: &[TableDef]) -> Vec<usize> {
    let child = |oid: u64| (defs.iter()).any(|d| d.partitions.iter().any(|(o, _)| *o == oid));
    let mut order = Vec::with_capacity(defs.len());
    for root in (0..defs.len()).filter(|&i| !child(defs[i].oid)) {
        let mut queue = std::collections::VecDeque::from([root]);
        while let Some(i) = queue.pop_front() {
            if order.contains(&i) {
                continue;
            }
            order.push(i);
            for (oid, _) in &defs[i].partitions {
                queue.extend(defs.iter().position(|d| d.oid == *oid));
            }
        }
    }
    order
}

/// `ALTER TABLE name ADD PRIMARY KEY (columns) | ADD [CONSTRAINT name]
/// CHECK (expr) | ADD [CONSTRAINT name] FOREIGN KEY (columns) REFERENCES t
/// [(columns)] | DROP CONSTRAINT [IF EXISTS] name | DROP [COLUMN] [IF
/// EXISTS] c [RESTRICT | CASCADE] | ALTER [COLUMN] c SET
/// DEFAULT expr | ALTER [COLUMN] c DROP DEFAULT | ALTER [COLUMN] c SET NOT
/// NULL | ALTER [COLUMN] c DROP NOT NULL`, in order; or `ALTER TABLE name
/// RENAME TO new` or `RENAME [COLUMN] old TO new` alone.
pub fn alter_table(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    name: &ObjectName,
    operations: &[AlterTableOperation],
    only: bool,
) -> Result<Output, SqlError> {
    let db = cx.db;
    let mut name = names::relation(name)?;
    // Views that read the relation are checked after the change.
    // (`Some(kind)`: a view or a materialized view, as PostgreSQL's
    // DETAIL names them.)
    let (viewed, is_view) = match db.catalog().table(txn, &name)? {
        Some(def) => (Some(def.oid), def.matview.map(|_| "materialized views")),
        None => match db.catalog().view(txn, &name)? {
            Some(view) => (Some(view.def.oid), Some("views")),
            None => (None, None),
        },
    };
    // A view takes only the rename, a materialized view renames of
    // itself and its columns (PostgreSQL's 42809 for the rest).
    if let Some(kind) = is_view
        && let Some(op) = operations.iter().find(|op| match op {
            AlterTableOperation::RenameTable { .. } | AlterTableOperation::RenameColumn { .. } => {
                false
            }
            // A view's column defaults (`view_defaults.rs`).
            AlterTableOperation::AlterColumn {
                op: AlterColumnOperation::SetDefault { .. } | AlterColumnOperation::DropDefault,
                ..
            } => kind != "views",
            _ => true,
        })
    {
        let action = match op {
            AlterTableOperation::AddColumn { .. } => "ADD COLUMN",
            AlterTableOperation::DropColumn { .. } => "DROP COLUMN",
            AlterTableOperation::AddConstraint { .. } => "ADD CONSTRAINT",
            AlterTableOperation::DropConstraint { .. } => "DROP CONSTRAINT",
            AlterTableOperation::AlterColumn { .. } => "ALTER COLUMN",
            _ => "this",
        };
        let action = match Enabling::of(op) {
            Some(enabling) => enabling.action(),
            None => action.to_string(),
        };
        return Err(SqlError::new(
            "42809",
            format!("ALTER action {action} cannot be performed on relation \"{name}\""),
        )
        .with_detail(format!("This operation is not supported for {kind}.")));
    }
    let mut rest = operations;
    while let Some((operation, after)) = rest.split_first() {
        rest = after;
        // A run of type changes is one rewrite (`alter_type.rs`).
        let changes: Vec<TypeChange<'_>> = std::iter::once(operation)
            .chain(after)
            .map_while(type_change)
            .collect();
        if !changes.is_empty() {
            rest = &rest[changes.len() - 1..];
            crate::alter_type::alter_column_types(cx, txn, &name, &changes)?;
            continue;
        }
        match operation {
            AlterTableOperation::AddColumn {
                if_not_exists,
                column_def,
                column_position: None,
                ..
            } => add_column(cx, txn, notices, &name, column_def, *if_not_exists)?,
            // `ALTER TABLE name RENAME [COLUMN] old TO new` (a form of
            // its own): CHECK constraints are rewritten to the new name.
            AlterTableOperation::RenameColumn {
                old_column_name,
                new_column_name,
            } if operations.len() == 1 => {
                let (old, new) = (names::ident(old_column_name), names::ident(new_column_name));
                crate::system_columns::check_column_name(&new)?;
                let renamed = if is_view == Some("views") {
                    db.catalog().rename_view_column(txn, &name, &old, &new)
                } else {
                    let rewrite = |text: &str| rename_column_in(text, &old, &new);
                    db.catalog().rename_column(txn, &name, &old, &new, &rewrite)
                };
                // (PostgreSQL's renameatt names no relation.)
                match renamed {
                    Err(folio_catalog::CatalogError::NoSuchColumn { .. }) => {
                        return Err(SqlError::new(
                            "42703",
                            format!("column \"{old}\" does not exist"),
                        ));
                    }
                    other => other?,
                }
                if let Some(oid) = viewed {
                    let renamed = crate::view_renames::Renamed::Column {
                        relation: &name,
                        old: &old,
                        new: &new,
                    };
                    crate::view_renames::follow(cx, txn, oid, renamed)?;
                }
            }
            // `ALTER TABLE name RENAME CONSTRAINT old TO new` (a form of
            // its own).
            AlterTableOperation::RenameConstraint { old_name, new_name }
                if operations.len() == 1 =>
            {
                let (old, new) = (names::ident(old_name), names::ident(new_name));
                match db.catalog().rename_constraint(txn, &name, &old, &new) {
                    Err(folio_catalog::CatalogError::NoSuchConstraint { .. }) => {
                        return Err(SqlError::new(
                            "42704",
                            format!(
                                "constraint \"{old}\" for table \"{}\" does not exist",
                                folio_catalog::unqualified(&name)
                            ),
                        ));
                    }
                    other => other?,
                }
            }
            // `ALTER TABLE name RENAME TO new` (a form of its own).
            AlterTableOperation::RenameTable {
                table_name: RenameTableNameKind::To(new),
            } if operations.len() == 1 => {
                let new = crate::set_schema::renamed_in_place(&name, new)?;
                crate::set_schema::rename_into(cx, txn, &name, &new, None)?;
                if let Some(oid) = viewed {
                    let renamed = crate::view_renames::Renamed::Relation {
                        old: &name,
                        new: &new,
                    };
                    crate::view_renames::follow(cx, txn, oid, renamed)?;
                }
                name = new;
            }
            AlterTableOperation::AddConstraint {
                constraint,
                not_valid: false,
            } if key_constraint(constraint).is_some() => {
                let (primary, key) = key_constraint(constraint).expect("matched");
                key?.add(cx, txn, notices, &name, primary)?;
            }
            AlterTableOperation::AddConstraint {
                constraint,
                not_valid,
            } if key_constraint(constraint).is_none() => {
                let mut additions = Additions {
                    not_valid: *not_valid,
                    ..Additions::default()
                };
                additions.push(constraint)?;
                additions.add(cx, txn, &name)?;
            }
            AlterTableOperation::AddConstraint {
                constraint,
                not_valid: true,
            } => {
                let kind = match key_constraint(constraint) {
                    Some((true, ..)) => "PRIMARY KEY",
                    _ => "UNIQUE",
                };
                return Err(SqlError::new(
                    "0A000",
                    format!("{kind} constraints cannot be marked NOT VALID"),
                ));
            }
            AlterTableOperation::ValidateConstraint { name: constraint } => {
                let constraint = names::ident(constraint);
                crate::constraints::validate_constraint(cx, txn, &name, &constraint)?;
            }
            AlterTableOperation::DropColumn {
                column_names,
                if_exists,
                drop_behavior,
                ..
            } => {
                let [column] = &column_names[..] else {
                    return Err(SqlError::syntax("DROP COLUMN takes one column"));
                };
                let cascade = *drop_behavior == Some(DropBehavior::Cascade);
                crate::drop_column::drop_column(
                    cx, txn, notices, &name, column, *if_exists, cascade,
                )?;
            }
            AlterTableOperation::DropConstraint {
                if_exists,
                name: constraint,
                drop_behavior: _,
            } => {
                let constraint = names::ident(constraint);
                refuse_foreign_key_drop_while_waiting(cx, txn, &name, &constraint)?;
                // A partitioned table's key takes the partitions' own
                // keys merged with it along.
                let merged = match db.catalog().table(txn, &name)? {
                    Some(def) if !def.partitions.is_empty() => {
                        crate::partitions::merged_keys::standing_for(cx, txn, &def, &constraint)?
                    }
                    _ => Vec::new(),
                };
                match db.catalog().drop_constraint(txn, &name, &constraint) {
                    Err(folio_catalog::CatalogError::NoSuchConstraint { .. }) if *if_exists => {
                        notices.push(Notice::info(format!(
                            "constraint \"{constraint}\" of relation \"{name}\" does not exist, skipping"
                        )));
                    }
                    other => other?,
                }
                for (table, key) in merged {
                    db.catalog().drop_constraint(txn, &table, &key)?;
                }
            }
            AlterTableOperation::AlterColumn { column_name, op } if is_view.is_some() => {
                let value = match op {
                    AlterColumnOperation::SetDefault { value } => Some(value),
                    _ => None,
                };
                crate::view_defaults::alter(cx, txn, &name, &names::ident(column_name), value)?;
            }
            AlterTableOperation::AlterColumn {
                column_name,
                op: AlterColumnOperation::SetNotNull,
            } => set_not_null(cx, txn, &name, &names::ident(column_name))?,
            AlterTableOperation::AlterColumn {
                column_name,
                op:
                    AlterColumnOperation::AddGenerated {
                        generated_as,
                        sequence_options,
                    },
            } => add_identity(
                cx,
                txn,
                (&name, &names::ident(column_name)),
                generated_as.as_ref(),
                sequence_options.as_deref(),
            )?,
            AlterTableOperation::AlterColumn {
                column_name,
                op: AlterColumnOperation::DropNotNull,
            } => {
                db.catalog()
                    .set_not_null(txn, &name, &names::ident(column_name), false)?;
            }
            AlterTableOperation::AlterColumn { column_name, op } => {
                let column = names::ident(column_name);
                if let Some(def) = db.catalog().table(txn, &name)?
                    && def
                        .column(&column)
                        .and_then(|c| def.generated_of(c))
                        .is_some()
                    && matches!(
                        op,
                        AlterColumnOperation::SetDefault { .. } | AlterColumnOperation::DropDefault
                    )
                {
                    let mut e = SqlError::syntax(format!(
                        "column \"{column}\" of relation \"{name}\" is a generated column"
                    ));
                    if matches!(op, AlterColumnOperation::DropDefault) {
                        e.hint = Some(
                            "Use ALTER TABLE ... ALTER COLUMN ... DROP EXPRESSION instead.".into(),
                        );
                    }
                    return Err(e);
                }
                let expr = match op {
                    AlterColumnOperation::SetDefault { value } => {
                        let def = db
                            .catalog()
                            .table(txn, &name)?
                            .ok_or_else(|| SqlError::undefined_table(&name))?;
                        let ty = column_type(&def, access_column(&def, &column)?)?;
                        Some(default_text(
                            (cx, txn),
                            value,
                            (&column, ty),
                            &Env::at(cx.now()),
                        )?)
                    }
                    AlterColumnOperation::DropDefault => None,
                    other => {
                        return Err(SqlError::unsupported(format!(
                            "ALTER TABLE ... ALTER COLUMN {other}"
                        )));
                    }
                };
                db.catalog().set_default(txn, &name, &column, expr)?;
            }
            other => match Enabling::of(other) {
                Some(enabling) => enabling.run(cx, txn, &name, only)?,
                None => return Err(SqlError::unsupported(format!("ALTER TABLE ... {other}"))),
            },
        }
    }
    cx.relations.ddl();
    if let Some(oid) = viewed {
        let what = operations
            .iter()
            .find_map(|op| match op {
                AlterTableOperation::DropColumn { column_names, .. } => column_names
                    .first()
                    .map(|c| crate::views::Alteration::DropColumn(&c.value)),
                _ => type_change(op).map(|c| crate::views::Alteration::ColumnType(&c.column.value)),
            })
            .unwrap_or(crate::views::Alteration::Other);
        crate::views::check_after_alter(cx, txn, &name, oid, what)?;
    }
    Ok(Output::command("ALTER TABLE"))
}

/// `ALTER [COLUMN] column [SET DATA] TYPE ty [USING expr]`, if that is
/// what `operation` is.
fn type_change(operation: &AlterTableOperation) -> Option<TypeChange<'_>> {
    match operation {
        AlterTableOperation::AlterColumn {
            column_name,
            op:
                AlterColumnOperation::SetDataType {
                    data_type, using, ..
                },
        } => Some(TypeChange {
            column: column_name,
            data_type,
            using: using.as_ref(),
        }),
        _ => None,
    }
}

/// A stored CHECK expression with its references to column `old` (plain
/// or qualified) naming `new` instead; the text as it was if it does not
/// parse (stored expressions always do).
fn rename_column_in(text: &str, old: &str, new: &str) -> String {
    let Ok(mut expr) = crate::parse::expression(text) else {
        return text.to_string();
    };
    let _ = sqlparser::ast::visit_expressions_mut(&mut expr, |e| {
        let last = match e {
            Expr::Identifier(id) => Some(id),
            Expr::CompoundIdentifier(parts) => parts.last_mut(),
            _ => None,
        };
        if let Some(id) = last
            && names::ident(id) == old
        {
            *id = names::written(new);
        }
        ControlFlow::<()>::Continue(())
    });
    expr.to_string()
}

/// `ALTER COLUMN column SET NOT NULL` of table `name`: the catalog's
/// change (which locks the table first), then every row checked under
/// the latest snapshot (23502 if one holds a NULL there, which rolls the
/// change back with the statement).
pub(crate) fn set_not_null(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &str,
    column: &str,
) -> Result<(), SqlError> {
    if !cx.db.catalog().set_not_null(txn, name, column, true)? {
        return Ok(());
    }
    cx.relations.ddl();
    let relation = access::relation(cx, txn, name)?;
    let position = access_column(&relation.def, column)?;
    let rows = txn.with_latest_snapshot(|txn| relation.scan(txn))?;
    if rows.iter().any(|(_, row)| row[position] == Value::Null) {
        return Err(SqlError::new(
            "23502",
            format!("column \"{column}\" of relation \"{name}\" contains null values"),
        ));
    }
    Ok(())
}

/// `ALTER TABLE name ADD [COLUMN] [IF NOT EXISTS] column type [DEFAULT
/// expr] [NOT NULL | NULL] [CHECK (...)] [REFERENCES ...] [PRIMARY KEY |
/// UNIQUE]`: the column is
/// added to the catalog (rows written before read it as NULL), then, with
/// a DEFAULT, every row gets the default's value (evaluated per row, as
/// PostgreSQL's rewrite does for a volatile default), then NOT NULL, the
/// column's key (its unique index built), CHECK and REFERENCES are
/// checked against the rows. All under the table's
/// ACCESS EXCLUSIVE lock, in the statement's transaction.
fn add_column(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    table: &str,
    column: &sqlparser::ast::ColumnDef,
    if_not_exists: bool,
) -> Result<(), SqlError> {
    let db = cx.db;
    let column_name = names::ident(&column.name);
    crate::system_columns::check_column_name(&column_name)?;
    let serial = serial_type(&column.data_type);
    let ty = match serial {
        Some(ty) => ty,
        None => types::stored_column_type(&column.data_type)?,
    };
    let mut not_null = serial.is_some();
    let mut additions = Additions::default();
    let mut default = None;
    let mut collation = None;
    let mut generated = None;
    let mut keys = Vec::new();
    column_clauses(table, &column_name, &column.options, serial.is_some())?;
    // A serial's or an identity's sequence, made once the column is.
    let owned = owned_request(column, ty, serial.is_some())?;
    for option in &column.options {
        match option.option {
            ColumnOption::Default(ref expr) => default = Some(expr.clone()),
            // An identity (its sequence: `owned` above).
            ColumnOption::Generated {
                generated_as: GeneratedAs::ByDefault | GeneratedAs::Always,
                generation_expr: None,
                ..
            } => not_null = true,
            ColumnOption::Generated {
                generated_as: GeneratedAs::ExpStored,
                generation_expr: Some(ref expr),
                ..
            } => generated = Some(expr.clone()),
            ColumnOption::NotNull => not_null = true,
            ColumnOption::Null => not_null = false,
            ColumnOption::Collation(ref c) => collation = Some(crate::collations::for_type(c, ty)?),
            ColumnOption::Check(_) | ColumnOption::ForeignKey { .. } => {
                additions.push_column_option(option, column)?
            }
            // The column's own key, added once the column has its values.
            ColumnOption::Unique {
                is_primary,
                ref characteristics,
            } => keys.push((
                is_primary,
                KeyConstraint::of_column(option, &column_name, characteristics.as_ref())?,
            )),
            ref other => {
                return Err(SqlError::unsupported(format!(
                    "the column option {other} in ADD COLUMN"
                )));
            }
        }
    }
    // A second primary key fails before any row is looked at, as
    // PostgreSQL's index definition comes before its rewrite.
    if keys.iter().any(|(primary, _)| *primary)
        && let Some(def) = db.catalog().table(txn, table)?
        && def.primary_key().is_some()
    {
        return Err(SqlError::new(
            "42P16",
            format!(
                "multiple primary keys for table \"{}\" are not allowed",
                folio_catalog::unqualified(table)
            ),
        ));
    }
    let def = ColumnDef {
        local: true,
        collation,
        name: column_name.clone(),
        type_oid: crate::domains::type_oid(&column.data_type, ty),
        typmod: ty.typmod(),
        not_null: false,
    };
    // A value other than NULL in every row would change the stored values
    // of the table's row type too: PostgreSQL refuses that (0A000).
    let null = |e: &Expr| matches!(e, Expr::Value(v) if v.value == sqlparser::ast::Value::Null);
    // A column of a domain: each row takes the domain's DEFAULT when the
    // column has none, and every row's value must meet the domain's
    // rules (PostgreSQL's rewrite checks them: 23502 / 23514).
    let domain = crate::domains::of_type(&column.data_type);
    let domain_fills = default.is_none() && domain.as_ref().is_some_and(|d| d.default.is_some());
    if !default.as_ref().is_none_or(null) || generated.is_some() || owned.is_some() || domain_fills
    {
        db.catalog().check_row_type_unused(txn, table)?;
    }
    match db.catalog().add_column(txn, table, &def) {
        Err(e @ folio_catalog::CatalogError::ColumnExists { .. }) if if_not_exists => {
            notices.push(Notice::info(format!("{e}, skipping")));
            return Ok(());
        }
        other => other?,
    }
    if let Some((request, identity)) = owned {
        let def =
            (db.catalog().table(txn, table)?).ok_or_else(|| SqlError::undefined_table(table))?;
        let made = owned_sequence(db, txn, (table, &def), &column_name, ty, request, identity)?;
        default = Some(made);
    }
    let rewrite = default.is_some() || generated.is_some() || domain_fills;
    if rewrite || domain.is_some() {
        // The sequences a default's calls name (a serial's, an
        // identity's, a written `nextval`): each row takes its next value.
        let mut named = Vec::new();
        if let Some(expr) = &default {
            sequences::names_in(expr, &mut named)?;
        }
        let mut filling = Additions::default();
        match (default, generated) {
            (Some(expr), _) => filling.defaults.push((column_name.clone(), expr)),
            (None, Some(expr)) => filling.generated.push((column_name.clone(), expr)),
            (None, None) => {}
        }
        let generating = !filling.generated.is_empty();
        filling.add(cx, txn, table)?;
        cx.relations.ddl();
        let relation = access::relation(cx, txn, table)?;
        let position = access_column(&relation.def, &column_name)?;
        let constraints = Constraints::bind(cx, txn, &relation)?;
        let calls = match named.is_empty() {
            true => None,
            false => Some(sequences::Calls::resolve(cx, txn, &named)?),
        };
        // (A default may call a PL/pgSQL function per row: `Env::of`.)
        let env = Env {
            sequences: calls.as_ref(),
            ..Env::of(cx)
        };
        // The value each row gets: the default's, or the generation
        // expression's over the row.
        let fill = match generating {
            true => constraints.generated_of(position),
            false => constraints.default_of(position)?,
        };
        // Every row committed before the lock, written under the latest
        // snapshot (no other writer runs meanwhile).
        txn.with_latest_snapshot(|txn| -> Result<(), SqlError> {
            for (tid, old) in relation.scan(txn)? {
                txn.check_interrupt()?;
                let mut values = old.clone();
                values[position] = crate::plpgsql::row_calls::lend(txn, &env, |env| {
                    let value = types::assign(fill.eval(&old, env)?, relation.types[position])?;
                    constraints.fit_domain(position, value, env)
                })?;
                if !rewrite {
                    // Every row holds NULL: one judged is all judged.
                    break;
                }
                match relation.update(txn, tid, &old, values)? {
                    folio_db::Write::Done(_) | folio_db::Write::Hot(_) => {}
                    other => {
                        return Err(SqlError::new(
                            "XX000",
                            format!(
                                "a row of \"{table}\" changed under ACCESS EXCLUSIVE ({other:?})"
                            ),
                        ));
                    }
                }
            }
            Ok(())
        })?;
    }
    if not_null {
        set_not_null(cx, txn, table, &column_name)?;
    }
    for (primary, key) in keys {
        key.add(cx, txn, notices, table, primary)?;
    }
    additions.add(cx, txn, table)
}

/// `ALTER TABLE t ALTER [COLUMN] c ADD GENERATED {ALWAYS | BY DEFAULT}
/// AS IDENTITY [(options)]`: the column's values come from a new identity
/// sequence from now on (the rows keep theirs). As PostgreSQL's, the
/// column must be NOT NULL, not an identity already and without a
/// default (55000), of an integer type (22023).
fn add_identity(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    (table, column): (&str, &str),
    generated: Option<&GeneratedAs>,
    options: Option<&[sqlparser::ast::SequenceOptions]>,
) -> Result<(), SqlError> {
    let db = cx.db;
    let def = (db.catalog().table(txn, table)?).ok_or_else(|| SqlError::undefined_table(table))?;
    let n = access_column(&def, column)?;
    let ty = column_type(&def, n)?;
    let (request, always) = identity_request(ty, generated, options)?;
    let refused = |what: &str| {
        let table = folio_catalog::unqualified(table);
        SqlError::new(
            "55000",
            format!("column \"{column}\" of relation \"{table}\" {what}"),
        )
    };
    if !def.columns[n].not_null {
        return Err(refused(
            "must be declared NOT NULL before identity can be added",
        ));
    }
    let sequences = db.catalog().sequences(txn)?;
    if crate::system::identity(&sequences, &def, n).is_some() {
        return Err(refused("is already an identity column"));
    }
    if def.default_of(n).is_some() {
        return Err(refused("already has a default value"));
    }
    let default = owned_sequence(db, txn, (table, &def), column, ty, request, Some(always))?;
    let text = default_text((cx, &*txn), &default, (column, ty), &Env::at(cx.now()))?;
    db.catalog().set_default(txn, table, column, Some(text))?;
    Ok(())
}

/// `ALTER TABLE t ALTER [COLUMN] c DROP EXPRESSION [IF EXISTS]`: the
/// column keeps its values and becomes an ordinary one. A column that is
/// not generated is 42601 (a notice with IF EXISTS), as PostgreSQL's.
pub fn drop_expression(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    drop: &crate::parse::DropExpression,
) -> Result<Output, SqlError> {
    let table = &crate::temp_tables::resolve_name(cx, txn, &drop.table)?;
    let column = &drop.column;
    let def = (cx.db.catalog().table(txn, table)?)
        .ok_or_else(|| SqlError::undefined_table(&drop.table))?;
    access_column(&def, column)?;
    if !cx.db.catalog().drop_expression(txn, table, column)? {
        let message =
            format!("column \"{column}\" of relation \"{table}\" is not a stored generated column");
        if !drop.if_exists {
            return Err(SqlError::new("55000", message));
        }
        notices.push(Notice::info(format!("{message}, skipping")));
    }
    cx.relations.ddl();
    Ok(Output::command("ALTER TABLE"))
}

/// `ALTER TABLE t ALTER CONSTRAINT name [NOT] DEFERRABLE [INITIALLY
/// ...]`: a foreign key's deferrability (folio-catalog
/// `alter_foreign_key_deferrable`); another kind of constraint is 42809,
/// as PostgreSQL 15 allows it for foreign keys only.
pub fn alter_constraint(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    alter: &crate::parse::AlterConstraint,
) -> Result<Output, SqlError> {
    let done = Output::command("ALTER TABLE");
    let table = &crate::temp_tables::resolve_name(cx, txn, &alter.table)?;
    if cx.db.catalog().table(txn, table)?.is_none() {
        if alter.if_exists {
            notices.push(Notice::info(format!(
                "relation \"{}\" does not exist, skipping",
                folio_catalog::unqualified(&alter.table)
            )));
            return Ok(done);
        }
        return Err(SqlError::undefined_table(&alter.table));
    }
    let catalog = cx.db.catalog();
    let def = catalog
        .table(txn, table)?
        .ok_or_else(|| SqlError::undefined_table(&alter.table))?;
    // A key a partition has of its parent changes only with it
    // (PostgreSQL names the key at the top of the tree); a partitioned
    // table's changes the partitions' own keys merged with it.
    if let Some((top, top_table)) =
        crate::partitions::merged_keys::inherited(cx, txn, &def, &alter.name)?
    {
        return Err(SqlError::new(
            "XX000",
            format!(
                "cannot alter constraint \"{}\" on relation \"{}\"",
                alter.name,
                folio_catalog::unqualified(table)
            ),
        )
        .with_detail(format!(
            "Constraint \"{}\" is derived from constraint \"{top}\" of relation \"{}\".",
            alter.name,
            folio_catalog::unqualified(&top_table)
        ))
        .with_hint("You may alter the constraint it derives from, instead."));
    }
    let merged = match def.partitions.is_empty() {
        true => Vec::new(),
        false => crate::partitions::merged_keys::standing_for(cx, txn, &def, &alter.name)?,
    };
    for (part, key) in &merged {
        catalog.alter_foreign_key_deferrable(txn, part, key, alter.deferrable)?;
    }
    if !catalog.alter_foreign_key_deferrable(txn, table, &alter.name, alter.deferrable)? {
        return Err(SqlError::new(
            "42809",
            format!(
                "constraint \"{}\" of relation \"{}\" is not a foreign key constraint",
                alter.name,
                folio_catalog::unqualified(table)
            ),
        ));
    }
    cx.relations.ddl();
    Ok(done)
}

/// `ALTER INDEX name RENAME TO new`: the index keeps its table, storage
/// and definition (folio-catalog `rename`, under its table's DDL lock).
pub fn rename_index(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &ObjectName,
    new: &ObjectName,
) -> Result<Output, SqlError> {
    let name = names::relation(name)?;
    let new = crate::set_schema::renamed_in_place(&name, new)?;
    crate::set_schema::rename_into(cx, txn, &name, &new, None)?;
    Ok(Output::command("ALTER INDEX"))
}

/// A `[CONSTRAINT name] PRIMARY KEY (columns)` or `[CONSTRAINT name]
/// UNIQUE (columns)` table constraint, `[NOT] DEFERRABLE [INITIALLY
/// ...]` or not, UNIQUE `NULLS [NOT] DISTINCT` or not, with nothing more
/// (no index name, type or options): whether it is the primary key, and
/// the key (its columns' or characteristics' error).
fn key_constraint(constraint: &TableConstraint) -> Option<(bool, Result<KeyConstraint, SqlError>)> {
    let key = |name: &Option<Ident>,
               columns: &[IndexColumn],
               characteristics: &Option<_>,
               nulls: folio_catalog::Nulls| {
        // `INCLUDE (...)` and `USING INDEX i` (`key_include_syntax.rs`).
        let spec = crate::key_include_syntax::KeySpec::take(columns);
        Ok(KeyConstraint {
            name: name.as_ref().map(names::ident),
            columns: key_columns(spec.key)?,
            include: (spec.include.iter())
                .map(|c| Ok(indexes::ordered_column(c)?.0))
                .collect::<Result<_, SqlError>>()?,
            using_index: (spec.using_index)
                .map(|c| Ok::<_, SqlError>(indexes::ordered_column(c)?.0))
                .transpose()?,
            deferrable: deferrable(characteristics.as_ref())?,
            nulls,
        })
    };
    match constraint {
        TableConstraint::PrimaryKey {
            name,
            index_name: None,
            index_type: None,
            columns,
            index_options,
            characteristics,
        } if index_options.is_empty() => {
            let nulls = folio_catalog::Nulls::Distinct;
            Some((true, key(name, columns, characteristics, nulls)))
        }
        TableConstraint::Unique {
            name,
            index_name: None,
            index_type: None,
            columns,
            index_options,
            characteristics,
            nulls_distinct,
            ..
        } if index_options.is_empty() => {
            let nulls = indexes::nulls(match nulls_distinct {
                NullsDistinctOption::None => None,
                NullsDistinctOption::Distinct => Some(true),
                NullsDistinctOption::NotDistinct => Some(false),
            });
            Some((false, key(name, columns, characteristics, nulls)))
        }
        _ => None,
    }
}

/// One PRIMARY KEY or UNIQUE constraint: its unique index.
#[derive(Debug)]
struct KeyConstraint {
    /// The constraint's name, which its index takes (else PostgreSQL's
    /// `table_pkey`, `table_col_key`).
    name: Option<String>,
    columns: Vec<String>,
    /// Its index's included columns (`INCLUDE (...)`).
    include: Vec<String>,
    /// `USING INDEX i`: the existing index that becomes the constraint
    /// (`key_from_index.rs`; no columns then).
    using_index: Option<String>,
    /// `DEFERRABLE [INITIALLY DEFERRED]` (design: README "Deferred
    /// constraints").
    deferrable: Deferrable,
    /// A UNIQUE constraint's `NULLS [NOT] DISTINCT`.
    nulls: folio_catalog::Nulls,
}

impl KeyConstraint {
    /// A column's own `PRIMARY KEY` / `UNIQUE` (`option`) on `column`.
    fn of_column(
        option: &sqlparser::ast::ColumnOptionDef,
        column: &str,
        characteristics: Option<&ConstraintCharacteristics>,
    ) -> Result<KeyConstraint, SqlError> {
        // (`UNIQUE NULLS NOT DISTINCT` rides in the name.)
        let written = option.name.as_ref().map(names::ident);
        let (name, nulls) = crate::key_include_syntax::column_nulls(written);
        Ok(KeyConstraint {
            name,
            columns: vec![column.to_string()],
            include: Vec::new(),
            using_index: None,
            deferrable: deferrable(characteristics)?,
            nulls,
        })
    }

    /// Adds it to `table` as its primary key or a UNIQUE constraint: its
    /// unique index, after (for a primary key) its columns become NOT
    /// NULL, as PostgreSQL's do, so a NULL fails before the index is
    /// built.
    fn add(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        notices: &mut Vec<Notice>,
        table: &str,
        primary: bool,
    ) -> Result<(), SqlError> {
        if let Some(index) = &self.using_index {
            let constraint = crate::key_from_index::Constraint {
                primary,
                name: self.name.as_deref(),
                deferrable: self.deferrable,
            };
            return crate::key_from_index::add(cx, txn, notices, table, index, constraint);
        }
        if !primary {
            return indexes::add_unique(
                cx.db,
                txn,
                table,
                self.name.as_deref(),
                (&self.columns, &self.include),
                (self.deferrable, self.nulls),
            );
        }
        for column in &self.columns {
            set_not_null(cx, txn, table, column)?;
        }
        let columns: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        let include: Vec<&str> = self.include.iter().map(String::as_str).collect();
        cx.db.catalog().add_primary_key(
            txn,
            table,
            self.name.as_deref(),
            (&columns, &include),
            self.deferrable,
        )?;
        Ok(())
    }
}

/// The PRIMARY KEY and UNIQUE constraints of a CREATE TABLE, reduced as
/// PostgreSQL reduces them (its `transformIndexConstraints`): the primary
/// key first, then the UNIQUE constraints in the order written; one over
/// the same columns in the same order (and as deferrable) as a constraint before it makes no
/// index of its own, and gives that one its name if it had none.
#[derive(Debug, Default)]
struct KeyConstraints {
    primary: Option<KeyConstraint>,
    uniques: Vec<KeyConstraint>,
}

impl KeyConstraints {
    /// Takes a key constraint of table `table`; a second primary key is
    /// 42P16.
    fn push(&mut self, table: &str, primary: bool, key: KeyConstraint) -> Result<(), SqlError> {
        if !primary {
            self.uniques.push(key);
            return Ok(());
        }
        match self.primary.replace(key) {
            Some(_) => Err(SqlError::new(
                "42P16",
                format!("multiple primary keys for table \"{table}\" are not allowed"),
            )),
            None => Ok(()),
        }
    }

    /// The constraints that make indexes, the primary key first (the
    /// flag), after the reduction above.
    fn reduced(self) -> Vec<(bool, KeyConstraint)> {
        let mut kept: Vec<(bool, KeyConstraint)> = Vec::new();
        let all = self.primary.map(|k| (true, k)).into_iter();
        for (primary, key) in all.chain(self.uniques.into_iter().map(|k| (false, k))) {
            let same = |k: &KeyConstraint| {
                k.columns == key.columns
                    && k.include == key.include
                    && k.deferrable == key.deferrable
            };
            match kept.iter_mut().find(|(_, k)| same(k)) {
                Some((_, prior)) => {
                    if prior.name.is_none() {
                        prior.name = key.name;
                    }
                }
                None => kept.push((primary, key)),
            }
        }
        kept
    }

    /// Builds their indexes on `table`, which exists with the columns.
    fn create(self, cx: &Ctx<'_>, txn: &mut Transaction, table: &str) -> Result<(), SqlError> {
        for (primary, key) in self.reduced() {
            key.add(cx, txn, &mut Vec::new(), table, primary)?;
        }
        Ok(())
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
