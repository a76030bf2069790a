//! Sequences in SQL: `CREATE SEQUENCE`, `DROP SEQUENCE`, `ALTER SEQUENCE`,
//! `serial` and identity columns' sequences, and the functions
//! `nextval`, `currval`, `setval`, `lastval` (storage and the crash
//! argument: folio-catalog `sequences.rs`).
//!
//! A function names its sequence by a string literal (PostgreSQL's
//! `regclass` constant, also written `'s'::regclass`): the names a statement (and the defaults of the
//! table it writes) use are collected when it is planned
//! ([`names_in`]) and resolved in the catalog with the transaction each
//! time the plan runs ([`Calls::resolve`]), so a kept plan never uses a
//! dropped or altered sequence. A name computed at run time (a text
//! expression: `nextval('s'::text)`, `nextval(name_column)`) is found
//! through the statement's catalog lookups (`lookups.rs`, which then
//! read every sequence: [`finds_at_run_time`]), by the rule a
//! `::regclass` of the text follows. `currval` and `lastval` are the
//! session's ([`SessionSequences`]); `lastval` of a sequence dropped
//! since is 55000, as in PostgreSQL.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::functions::Func;
use crate::lookups::Lookups;
use crate::names;
use crate::output::{Notice, Output};
use crate::types;
use folio_catalog::{
    Catalog, INT2_OID, INT4_OID, INT8_OID, Persistence, SequenceDef, SequenceRequest,
};
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{DataType, Expr, ObjectName, SequenceOptions, Visit, Visitor};
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};

/// What `currval` and `lastval` read: the session's last value of each
/// sequence, by oid, and the last sequence `nextval` used.
#[derive(Debug, Default)]
pub struct SessionSequences(Mutex<Memory>);

#[derive(Debug, Default)]
struct Memory {
    current: HashMap<u64, i64>,
    /// The sequence nextval last used (lastval reads its current value,
    /// so a later setval of it shows, as in PostgreSQL).
    last: Option<u64>,
}

impl SessionSequences {
    fn note(&self, oid: u64, value: i64, last: bool) {
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        m.current.insert(oid, value);
        if last {
            m.last = Some(oid);
        }
    }

    fn current(&self, oid: u64) -> Option<i64> {
        let m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        m.current.get(&oid).copied()
    }

    /// The sequence nextval last used and its value then.
    fn last(&self) -> Option<(u64, i64)> {
        let m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        m.last
            .and_then(|oid| m.current.get(&oid).map(|value| (oid, *value)))
    }
}

/// The sequences one execution of a statement uses, resolved, and where
/// their calls go.
#[derive(Debug)]
pub struct Calls {
    catalog: Arc<Catalog>,
    /// READ ONLY: nextval and setval are refused (25006).
    read_only: bool,
    session: Arc<SessionSequences>,
    defs: Vec<(String, SequenceDef)>,
}

impl Calls {
    /// The sequences named `names`, as `txn` sees them (42P01 missing,
    /// 42809 not a sequence).
    pub fn resolve(cx: &Ctx<'_>, txn: &Transaction, names: &[String]) -> Result<Calls, SqlError> {
        let catalog = cx.db.catalog();
        let defs = names
            .iter()
            .map(|name| {
                // (A bare name through the session's search path.)
                let stored = crate::temp_tables::resolve_name(cx, txn, name)?;
                let def = catalog
                    .sequence(txn, &stored)?
                    .ok_or_else(|| SqlError::undefined_table(name))?;
                Ok((name.clone(), def))
            })
            .collect::<Result<_, SqlError>>()?;
        Ok(Calls {
            catalog: catalog.clone(),
            read_only: txn.is_read_only(),
            session: cx.sequences.clone(),
            defs,
        })
    }

    /// The sequence `name` names: one the plan named, else one found
    /// through `lookups` (a name computed at run time).
    fn def<'a>(
        &'a self,
        name: &Value,
        lookups: Option<&'a Lookups>,
    ) -> Result<&'a SequenceDef, SqlError> {
        let Value::Text(text) = name else {
            return Err(SqlError::unsupported(
                "a sequence named by anything but text",
            ));
        };
        let name = sequence_name(text)?;
        if let Some((_, def)) = self.defs.iter().find(|(n, _)| *n == name) {
            return Ok(def);
        }
        let Some(lookups) = lookups else {
            return Err(SqlError::unsupported("a sequence named at run time"));
        };
        let oid = (lookups.relation_oid(text)).ok_or_else(|| SqlError::undefined_table(text))?;
        lookups.sequence(oid).ok_or_else(|| {
            SqlError::new(
                "42809",
                format!("\"{}\" is not a sequence", lookups.relation_name(oid)),
            )
        })
    }

    /// The value of sequence function `f` of `args` (`lookups`: the
    /// statement's, when a call finds its sequence at run time).
    pub fn call(
        &self,
        f: Func,
        args: &[Value],
        lookups: Option<&Lookups>,
    ) -> Result<Value, SqlError> {
        if args.first() == Some(&Value::Null) {
            return Ok(Value::Null);
        }
        if self.read_only && matches!(f, Func::Nextval | Func::Setval) {
            let name = if f == Func::Nextval {
                "nextval"
            } else {
                "setval"
            };
            return Err(SqlError::new(
                "25006",
                format!("cannot execute {name}() in a read-only transaction"),
            ));
        }
        Ok(Value::Int8(match f {
            Func::Nextval => {
                let def = self.def(&args[0], lookups)?;
                let value = self.catalog.next_value(def)?;
                self.session.note(def.oid, value, true);
                value
            }
            Func::Currval => {
                let def = self.def(&args[0], lookups)?;
                self.session.current(def.oid).ok_or_else(|| {
                    SqlError::new(
                        "55000",
                        format!(
                            "currval of sequence \"{}\" is not yet defined in this session",
                            def.name
                        ),
                    )
                })?
            }
            // (lastval's calls read the lookups: its sequence may have
            // been dropped since.)
            Func::Lastval => match self.session.last() {
                Some((oid, value)) if lookups.is_none_or(|l| l.sequence(oid as i64).is_some()) => {
                    value
                }
                _ => {
                    return Err(SqlError::new(
                        "55000",
                        "lastval is not yet defined in this session",
                    ));
                }
            },
            Func::Setval => {
                let def = self.def(&args[0], lookups)?;
                let value = match types::coerce(args[1].clone(), SqlType::Int8)? {
                    Value::Int8(v) => v,
                    _ => return Ok(Value::Null),
                };
                let called = match args.get(2) {
                    None => true,
                    Some(Value::Bool(b)) => *b,
                    Some(Value::Null) => return Ok(Value::Null),
                    Some(other) => {
                        return Err(SqlError::new(
                            "42804",
                            format!("setval's third argument must be boolean, not {other:?}"),
                        ));
                    }
                };
                self.catalog.set_sequence(def, value, called)?;
                if called {
                    self.session.note(def.oid, value, false);
                }
                value
            }
            other => {
                return Err(SqlError::new(
                    "XX000",
                    format!("{other:?} is not a sequence function"),
                ));
            }
        }))
    }
}

/// The sequence a `regclass` text names: unquoted folds to lower case,
/// `"Quoted"` is kept, `public.` is the one schema.
pub fn sequence_name(text: &str) -> Result<String, SqlError> {
    let expr = crate::parse::expression(text)
        .map_err(|_| SqlError::new("42602", format!("invalid name syntax: \"{text}\"")))?;
    let name = match expr {
        Expr::Identifier(id) => ObjectName::from(vec![id]),
        Expr::CompoundIdentifier(ids) => ObjectName::from(ids),
        _ => return Err(SqlError::new("42602", "invalid name syntax")),
    };
    names::relation(&name)
}

/// The sequence a sequence function's first argument names as written:
/// a string literal, or one cast to `regclass` (`nextval('s'::regclass)`,
/// as pg_dump and `\d` write a column's default); `None` for any other
/// argument.
pub fn literal_name(argument: &Expr) -> Option<&str> {
    let regclass = |ty: &DataType| match ty {
        DataType::Regclass => true,
        DataType::Custom(name, modifiers) => {
            modifiers.is_empty() && names::function(name) == "regclass"
        }
        _ => false,
    };
    let literal = match argument {
        Expr::Cast {
            expr, data_type, ..
        } if regclass(data_type) => expr,
        other => other,
    };
    match literal {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::SingleQuotedString(text) => Some(text),
            _ => None,
        },
        _ => None,
    }
}

/// Whether call `f` finds its sequence when it runs, through the
/// statement's catalog lookups (`lookups::needed`): a sequence function
/// whose sequence is not a literal name, and `lastval` (its sequence may
/// be gone).
pub fn finds_at_run_time(f: &sqlparser::ast::Function) -> bool {
    if !is_sequence_function(&f.name) {
        return false;
    }
    first_argument(f).is_none_or(|first| literal_name(first).is_none())
}

/// A call's first argument, when it is a plain (unnamed) expression.
fn first_argument(f: &sqlparser::ast::Function) -> Option<&Expr> {
    let sqlparser::ast::FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match list.args.first() {
        Some(sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(
            first,
        ))) => Some(first),
        _ => None,
    }
}

/// Whether `name` is a sequence function's.
fn is_sequence_function(name: &ObjectName) -> bool {
    let name = name.to_string().to_lowercase();
    matches!(name.as_str(), "nextval" | "currval" | "setval" | "lastval")
}

/// The sequence names the calls in `node` give as string literals, each
/// once (unresolved), added to `out`; whether `node` calls a sequence
/// function at all (`lastval()` names none).
pub fn names_in<V: Visit>(node: &V, out: &mut Vec<String>) -> Result<bool, SqlError> {
    struct Find<'a>(&'a mut Vec<String>, Option<SqlError>, bool);
    impl Visitor for Find<'_> {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            let Expr::Function(f) = e else {
                return ControlFlow::Continue(());
            };
            if !is_sequence_function(&f.name) {
                return ControlFlow::Continue(());
            }
            self.2 = true;
            if let Some(text) = first_argument(f).and_then(literal_name) {
                match sequence_name(text) {
                    Ok(name) if !self.0.contains(&name) => self.0.push(name),
                    Ok(_) => {}
                    Err(e) => {
                        self.1 = Some(e);
                        return ControlFlow::Break(());
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut find = Find(out, None, false);
    let _ = node.visit(&mut find);
    match find.1 {
        Some(e) => Err(e),
        None => Ok(find.2),
    }
}

/// The type oid of a sequence of type `ty`: `smallint`, `integer` or
/// `bigint`'s; `None` for another type.
pub fn type_oid(ty: SqlType) -> Option<u32> {
    match ty {
        SqlType::Int2 => Some(INT2_OID),
        SqlType::Int4 => Some(INT4_OID),
        SqlType::Int8 => Some(INT8_OID),
        _ => None,
    }
}

/// The request of `AS type` and sequence options (CREATE SEQUENCE, and
/// an identity column's options).
pub fn request(
    data_type: Option<&DataType>,
    options: &[SequenceOptions],
) -> Result<SequenceRequest, SqlError> {
    let mut out = SequenceRequest::default();
    if let Some(ty) = data_type {
        out.type_oid = Some(type_oid(types::column_type(ty)?).ok_or_else(|| {
            SqlError::new(
                "22023",
                "sequence type must be smallint, integer, or bigint",
            )
        })?);
    }
    for option in options {
        match option {
            SequenceOptions::IncrementBy(e, _) => out.increment = Some(number(e)?),
            SequenceOptions::MinValue(e) => out.min = Some(e.as_ref().map(number).transpose()?),
            SequenceOptions::MaxValue(e) => out.max = Some(e.as_ref().map(number).transpose()?),
            SequenceOptions::StartWith(e, _) => out.start = Some(number(e)?),
            SequenceOptions::Cache(e) => out.cache = Some(number(e)?),
            // sqlparser's `Cycle(true)` is `NO CYCLE`.
            SequenceOptions::Cycle(no) => out.cycle = Some(!no),
        }
    }
    Ok(out)
}

/// A whole number written in an option (`-5` too).
fn number(e: &Expr) -> Result<i64, SqlError> {
    let none: &[(String, SqlType)] = &[];
    let value = crate::scalar::bind(e, none)?.eval(&[], &crate::scalar::Env::at(0))?;
    match types::coerce(value, SqlType::Int8) {
        Ok(Value::Int8(v)) => Ok(v),
        _ => Err(SqlError::new(
            "22023",
            format!("a sequence option must be a whole number, not {e}"),
        )),
    }
}

/// `CREATE [UNLOGGED] SEQUENCE ...` as sqlparser read it (not a
/// temporary one: `temp_tables.rs`), of `persistence`.
pub fn create_statement(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: &sqlparser::ast::Statement,
    persistence: Persistence,
) -> Result<Output, SqlError> {
    let sqlparser::ast::Statement::CreateSequence {
        if_not_exists,
        name,
        data_type,
        sequence_options,
        owned_by,
        ..
    } = statement
    else {
        return Err(SqlError::syntax("syntax error in CREATE SEQUENCE"));
    };
    let parts = (
        *if_not_exists,
        name,
        data_type.as_ref(),
        &sequence_options[..],
        owned_by.as_ref(),
    );
    create(cx, txn, notices, parts, persistence)
}

/// `CREATE [UNLOGGED] SEQUENCE [IF NOT EXISTS] name [AS type] [options]
/// [OWNED BY t.c | NONE]`.
fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    (if_not_exists, name, data_type, options, owned_by): (
        bool,
        &ObjectName,
        Option<&DataType>,
        &[SequenceOptions],
        Option<&ObjectName>,
    ),
    persistence: Persistence,
) -> Result<Output, SqlError> {
    let name = names::relation(name)?;
    let catalog = cx.db.catalog();
    let settled = request(data_type, options)?.settle(None)?;
    if if_not_exists && catalog.relation_exists(txn, &name)? {
        notices.push(Notice::info(format!(
            "relation \"{}\" already exists, skipping",
            folio_catalog::unqualified(&name)
        )));
        return Ok(Output::command("CREATE SEQUENCE"));
    }
    let owner = match owned_by {
        None => None,
        Some(o) => owner(cx, txn, &name, o)?,
    };
    catalog.create_sequence(txn, &name, settled, owner, None, persistence)?;
    Ok(Output::command("CREATE SEQUENCE"))
}

/// The table oid and column position `OWNED BY t.c` names for sequence
/// `sequence` (its catalog name), `None` for `OWNED BY NONE`; PostgreSQL's
/// errors: 42601 for another form, 42P01 / 42703 for no such table or
/// column, 55000 for a table in another schema.
fn owner(
    cx: &Ctx<'_>,
    txn: &Transaction,
    sequence: &str,
    name: &ObjectName,
) -> Result<Option<(u64, u16)>, SqlError> {
    let parts = names::parts(name).unwrap_or_default();
    if let [none] = parts.as_slice()
        && none == "none"
    {
        return Ok(None);
    }
    let (Some(column), 2..=3) = (parts.last(), parts.len()) else {
        return Err(SqlError::syntax("invalid OWNED BY option")
            .with_hint("Specify OWNED BY table.column or OWNED BY NONE."));
    };
    let table = names::relation(&ObjectName(name.0[..name.0.len() - 1].to_vec()))?;
    let table = crate::temp_tables::resolve_name(cx, txn, &table)?;
    let def = (cx.db.catalog().table(txn, &table)?)
        .ok_or_else(|| SqlError::undefined_table(folio_catalog::unqualified(&table)))?;
    let position = def.column(column).ok_or_else(|| {
        SqlError::new(
            "42703",
            format!(
                "column \"{column}\" of relation \"{}\" does not exist",
                folio_catalog::unqualified(&table)
            ),
        )
    })?;
    if folio_catalog::split_schema(&table).0 != folio_catalog::split_schema(sequence).0 {
        return Err(SqlError::new(
            "55000",
            "sequence must be in same schema as table it is linked to",
        ));
    }
    Ok(Some((def.oid, position as u16)))
}

/// `DROP SEQUENCE [IF EXISTS] name, ... [CASCADE]`: a sequence a column
/// default names is refused (2BP01), or with CASCADE the defaults are
/// dropped first, as PostgreSQL's dependencies do
/// ([`default_dependents`]); an identity column's is refused either way.
pub fn drop(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    (if_exists, cascade): (bool, bool),
    names: &[ObjectName],
) -> Result<Output, SqlError> {
    let catalog = cx.db.catalog();
    for name in names {
        let name = names::relation(name)?;
        // (Locked first: a default naming it made meanwhile waits.)
        let def = match catalog.lock_sequence(txn, &name) {
            Err(folio_catalog::CatalogError::NoSuchRelation(_)) if if_exists => {
                notices.push(Notice::info(format!(
                    "sequence \"{name}\" does not exist, skipping"
                )));
                continue;
            }
            Err(folio_catalog::CatalogError::NoSuchRelation(_)) => {
                return Err(SqlError::new(
                    "42P01",
                    format!("sequence \"{name}\" does not exist"),
                ));
            }
            other => other?,
        };
        let dependents = default_dependents(cx, txn, &def)?;
        // Named as PostgreSQL's descriptions of objects name them.
        let path = crate::schemas::SearchPath::of(cx, txn)?;
        let shown = |stored: &str| path.shown(cx.db, txn, stored);
        let sequence = shown(&name)?;
        if let Some(Dependent(table, column, _)) = dependents.iter().find(|d| d.2) {
            let table = shown(table)?;
            return Err(SqlError::new(
                "2BP01",
                format!(
                    "cannot drop sequence {sequence} because column {column} of table {table} requires it"
                ),
            )
            .with_hint(format!(
                "You can drop column {column} of table {table} instead."
            )));
        }
        let objects = (dependents.iter())
            .map(|Dependent(table, column, _)| {
                Ok(format!(
                    "default value for column {column} of table {}",
                    shown(table)?
                ))
            })
            .collect::<Result<Vec<_>, SqlError>>()?;
        if !objects.is_empty() && !cascade {
            let detail = (objects.iter())
                .map(|o| format!("{o} depends on sequence {sequence}"))
                .collect::<Vec<_>>();
            return Err(SqlError::new(
                "2BP01",
                format!("cannot drop sequence {sequence} because other objects depend on it"),
            )
            .with_detail(detail.join("\n"))
            .with_hint("Use DROP ... CASCADE to drop the dependent objects too."));
        }
        for Dependent(table, column, _) in &dependents {
            catalog.set_default(txn, table, column, None)?;
        }
        notices.extend(Notice::cascaded(&objects));
        // Views reading it in FROM (`views::depends_on`).
        let dropping = [("sequence", sequence.clone(), def.oid)];
        crate::views::drop_dependents(cx.db, txn, notices, &dropping, cascade)?;
        catalog.drop_sequence(txn, &name)?;
        if !dependents.is_empty() {
            cx.relations.ddl();
        }
    }
    Ok(Output::command("DROP SEQUENCE"))
}

/// A column default naming a sequence: the table's catalog name, the
/// column's, and whether it is the table's identity column the sequence
/// belongs to.
struct Dependent(String, String, bool);

/// The column defaults that name sequence `def` (a call's literal
/// resolved through the search path, as the call resolves it when it
/// runs), each table's in column order: PostgreSQL's dependencies of a
/// sequence on its defaults. The one owner of that rule.
fn default_dependents(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &SequenceDef,
) -> Result<Vec<Dependent>, SqlError> {
    let mut out = Vec::new();
    for table in cx.db.catalog().tables(txn)? {
        for constraint in &table.constraints {
            let folio_catalog::ConstraintKind::Default { column, expr } = &constraint.kind else {
                continue;
            };
            let mut named = Vec::new();
            // (A default folio cannot read names nothing it can drop.)
            if let Ok(parsed) = crate::parse::expression(expr) {
                let _ = names_in(&parsed, &mut named);
            }
            let mut names = named.iter();
            let names_it = names.any(|n| {
                crate::temp_tables::resolve_name(cx, txn, n).is_ok_and(|stored| stored == def.name)
            });
            if names_it {
                let identity = def.identity && def.owner == Some((table.oid, *column));
                let name = table.columns[usize::from(*column)].name.clone();
                out.push(Dependent(table.name.clone(), name, identity));
            }
        }
    }
    Ok(out)
}

/// `ALTER SEQUENCE [IF EXISTS] name [AS type] [options] [RESTART [[WITH]
/// n]]` (`parse.rs` reads it from tokens).
#[derive(Debug, Clone, PartialEq)]
pub struct Alter {
    pub if_exists: bool,
    pub name: ObjectName,
    pub data_type: Option<DataType>,
    pub options: Vec<SequenceOptions>,
    /// `RESTART` (`Some(None)`: at the start value).
    pub restart: Option<Option<i64>>,
    /// `OWNED BY t.c | NONE`.
    pub owned_by: Option<ObjectName>,
    /// `RENAME TO new` or `SET SCHEMA s` (then nothing else is given).
    pub renaming: Option<Renaming>,
    /// `SET LOGGED | SET UNLOGGED` (then nothing else is given).
    pub persistence: Option<Persistence>,
}

/// `ALTER SEQUENCE s RENAME TO new | SET SCHEMA schema`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Renaming {
    To(String),
    Schema(String),
}

/// Runs `ALTER SEQUENCE`: the new options and RESTART (as `setval(s, n,
/// false)` would, but undone by a rollback), transactionally as
/// PostgreSQL's.
pub fn alter(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    alter: &Alter,
) -> Result<Output, SqlError> {
    let name = names::relation(&alter.name)?;
    let catalog = cx.db.catalog();
    if alter.if_exists && catalog.sequence(txn, &name)?.is_none() {
        notices.push(Notice::info(format!(
            "relation \"{name}\" does not exist, skipping"
        )));
        return Ok(Output::command("ALTER SEQUENCE"));
    }
    if let Some(renaming) = &alter.renaming {
        rename(cx, txn, &name, renaming)?;
        return Ok(Output::command("ALTER SEQUENCE"));
    }
    if let Some(persistence) = alter.persistence {
        let def =
            (catalog.sequence(txn, &name)?).ok_or_else(|| SqlError::undefined_table(&name))?;
        crate::privileges::check_owner(cx, def.oid, &name, "sequence")?;
        if catalog.set_sequence_persistence(txn, &name, persistence)? {
            cx.relations.ddl();
        }
        return Ok(Output::command("ALTER SEQUENCE"));
    }
    change(cx, txn, &name, alter)?;
    Ok(Output::command("ALTER SEQUENCE"))
}

/// Sequence `name` (a catalog name) given `alter`'s type, options,
/// RESTART and OWNED BY (not its name or renaming): the one place ALTER SEQUENCE's
/// changes are applied, for ALTER SEQUENCE and for an identity column's
/// sequence (`alter_identity.rs`).
pub fn change(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &str,
    alter: &Alter,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let request = request(alter.data_type.as_ref(), &alter.options)?;
    if request != SequenceRequest::default() {
        catalog.alter_sequence(txn, name, &request, alter.restart.is_some())?;
    } else if catalog.sequence(txn, name)?.is_none() {
        return Err(SqlError::undefined_table(name));
    }
    if let Some(at) = alter.restart {
        catalog.restart_sequence(txn, name, at)?;
    }
    if let Some(owned_by) = &alter.owned_by {
        change_owner(cx, txn, name, owned_by)?;
    }
    Ok(())
}

/// `ALTER SEQUENCE name OWNED BY t.c | NONE`: dropped with that table
/// from now on, or with none; an identity column's sequence stays its
/// own (0A000, as PostgreSQL's).
fn change_owner(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &str,
    owned_by: &ObjectName,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let def = catalog.lock_sequence(txn, name)?;
    if let (true, Some((table, _))) = (def.identity, def.owner) {
        let table = (catalog.tables(txn)?.into_iter())
            .find(|t| t.oid == table)
            .map_or_else(|| table.to_string(), |t| t.name);
        return Err(
            SqlError::new("0A000", "cannot change ownership of identity sequence").with_detail(
                format!(
                    "Sequence \"{}\" is linked to table \"{}\".",
                    folio_catalog::unqualified(name),
                    folio_catalog::unqualified(&table)
                ),
            ),
        );
    }
    let owner = owner(cx, txn, name, owned_by)?;
    catalog.set_sequence_owner(txn, name, owner)?;
    cx.relations.ddl();
    Ok(())
}

/// `ALTER SEQUENCE name RENAME TO | SET SCHEMA` (`set_schema.rs` makes
/// what names it follow): PostgreSQL's 42809 for another kind of
/// relation, 42P01 for none, 42501 for a role that does not own it.
fn rename(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &str,
    renaming: &Renaming,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let Some(def) = catalog.sequence(txn, name)? else {
        return Err(match catalog.relation_oid(txn, name)? {
            Some(_) => SqlError::new(
                "42809",
                format!("\"{}\" is not a sequence", folio_catalog::unqualified(name)),
            ),
            None => SqlError::undefined_table(name),
        });
    };
    crate::privileges::check_owner(cx, def.oid, name, "sequence")?;
    let (schema, bare) = folio_catalog::split_schema(name);
    let (new, moved_to) = match renaming {
        Renaming::To(new) => (folio_catalog::qualified_name(schema, new), None),
        Renaming::Schema(to) => {
            // (It moves with its table: `set_schema::move_table`.)
            if def.owner.is_some() {
                return Err(SqlError::new(
                    "0A000",
                    "cannot move an owned sequence into another schema",
                ));
            }
            crate::set_schema::check_target(cx, txn, name, to)?;
            (folio_catalog::qualified_name(to, bare), Some(to.as_str()))
        }
    };
    if new != name {
        crate::set_schema::rename_sequence(cx, txn, name, def.oid, &new, moved_to)?;
    }
    Ok(())
}
