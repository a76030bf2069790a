//! Automatically updatable views (README "Views"): the one owner of
//! "is this view updatable, and how do its columns map onto its base
//! relation", and of rewriting an INSERT, UPDATE or DELETE that names
//! such a view into the same statement on the relation under it.
//!
//! A view is updatable when its query is PostgreSQL's simple view: one
//! table or view in FROM, no WITH, DISTINCT, GROUP BY, HAVING, LIMIT /
//! OFFSET, set operation, aggregate, window or set-returning call at the
//! top level ([`Level::of`]; otherwise 55000 with PostgreSQL's DETAIL and
//! HINT). Its select items that are plain columns of the base relation
//! are updatable; the others are read-only.
//!
//! The rewrite works on the statement's syntax tree, one view at a time,
//! down to a table (or to a view with an INSTEAD OF trigger of the
//! event, which `instead_of.rs` then runs, or with rules of the event,
//! which `rules.rs` then applies):
//!
//! - the target becomes `base AS q`, where `q` is the name the view's
//!   columns were qualified with (the statement's alias, else the view's
//!   name), so the statement's other names keep their meaning;
//! - every reference to a view column (`c` outside subqueries, `q.c`
//!   anywhere, `excluded.c` in ON CONFLICT) becomes the view's
//!   expression for it over `q.<base column>`; RETURNING's `*` and `q.*`
//!   become the view's columns by name;
//! - INSERT's columns (without a list: the first view columns, as many
//!   as the source gives), SET's and ON CONFLICT's targets become base
//!   columns (a read-only one is 0A000);
//! - UPDATE's and DELETE's WHERE gets the view's condition ANDed in.
//!
//! `WITH CHECK OPTION` conditions are carried through the same rewrite
//! and end as conditions over the table's columns that every new row
//! must meet ([`Rewritten::apply`], checked by `Constraints`).
//!
//! An unqualified name inside a subquery of the statement is the view's
//! column when no FROM item between it and the statement has one of that
//! name: `outer_names.rs` writes those as `q.c` first.

use crate::context::Ctx;
use crate::dml::Change;
use crate::error::SqlError;
use crate::names;
use crate::outer_names::ColumnsOf;
use crate::subquery_depth::{InSubqueries, Nested};
use crate::triggers::Event;
use crate::views::Used;
use folio_catalog::{CheckOption, View, ViewDef};
use folio_db::Transaction;
use sqlparser::ast::{
    AssignmentTarget, BinaryOperator, ConflictTarget, Expr, FromTable, Ident, ObjectName,
    ObjectNamePart, OnConflictAction, OnInsert, SelectItem, SetExpr, Statement, TableAlias,
    TableFactor, TableObject, TableWithJoins, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;
use std::sync::Arc;

/// Most views one rewrite goes through.
const MAX_LEVELS: usize = 100;

/// The columns of one view a statement touches, by position
/// (PostgreSQL's `selectedCols`, `insertedCols`, `updatedCols` of the
/// view's range table entry): its need of each privilege on the view is
/// for these columns.
#[derive(Debug, Clone, Default)]
struct Touched {
    /// Read: referenced in SET values, WHERE, RETURNING, ON CONFLICT.
    read: std::collections::BTreeSet<usize>,
    /// Given a value by an INSERT.
    inserted: std::collections::BTreeSet<usize>,
    /// Assigned by SET (UPDATE's, ON CONFLICT DO UPDATE's).
    updated: std::collections::BTreeSet<usize>,
    /// The view's columns' names.
    names: Vec<String>,
    /// The columns of the relation under it the view's definition reads
    /// (select list and WHERE), by name: PostgreSQL asks SELECT of them
    /// all there when the statement reads the view.
    definition: Vec<String>,
}

/// A statement on a view, rewritten onto the relation under it.
pub struct Rewritten {
    /// The statement on the base relation.
    pub statement: Statement,
    /// The views passed, outermost first: oid, bare name, and whether it
    /// is `security_invoker` (the session's role needs the statement's
    /// privileges on the outermost, each view's owner on the relation
    /// under it, as a view read in FROM), and the view's columns the
    /// statement touched there (column privileges may grant its needs).
    views: Vec<(u64, String, bool, Touched)>,
    /// The check options' conditions over the table's columns, each with
    /// the view that owns it, in the order they are judged.
    checks: Vec<(String, Expr)>,
    /// The name the statement qualifies the target's columns with.
    qualifier: String,
    /// The relation the statement reached, as the catalog names it.
    base: String,
}

/// [`ColumnsOf`] through the session's relations.
fn session_columns<'a>(
    cx: &'a Ctx<'_>,
    txn: &'a Transaction,
) -> impl Fn(&str) -> Result<Option<Vec<String>>, SqlError> + 'a {
    move |name: &str| match crate::access::relation(cx, txn, name) {
        Ok(relation) if relation.def.matview.is_none() => Ok(Some(
            (relation.def.columns.iter())
                .map(|c| c.name.clone())
                .collect(),
        )),
        Ok(_) => Ok(None),
        Err(e) => match cx.db.catalog().view(txn, name)? {
            Some(v) if !v.def.materialized => {
                Ok(Some(v.def.columns.iter().map(|c| c.name.clone()).collect()))
            }
            Some(_) => Ok(None),
            // (A sequence read in FROM: no relation a change goes to.)
            None if cx.db.catalog().sequence(txn, name)?.is_some() => Ok(None),
            None => Err(e),
        },
    }
}

/// PostgreSQL's bits of the events `pg_relation_is_updatable` reports
/// (`1 << CmdType`): UPDATE, INSERT, DELETE.
pub const UPDATE_EVENT: i32 = 1 << 2;
pub const INSERT_EVENT: i32 = 1 << 3;
pub const DELETE_EVENT: i32 = 1 << 4;
const ALL_EVENTS: i32 = UPDATE_EVENT | INSERT_EVENT | DELETE_EVENT;

/// What `pg_relation_is_updatable` needs of a view (read once per
/// execution by `Lookups`): its base relation when it is automatically
/// updatable, and per view column the base column (by position) it is
/// when updatable.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    base: Option<u64>,
    columns: Vec<Option<usize>>,
}

/// A relation as [`events`] sees it.
pub enum Updatable {
    Table,
    View(Shape),
    /// No relation, or one never changed (a materialized view, a
    /// sequence, a system relation).
    Neither,
}

/// A relation as [`shape`] asks for it by name: its oid and column
/// names, if it is a table or (not materialized) view.
pub type RelationOf<'a> = dyn Fn(&str) -> Option<(u64, Vec<String>)> + 'a;

/// The [`Shape`] of view `def` (parses its query: `Lookups` asks for it
/// only for a view `pg_relation_is_updatable` names, and the views below
/// it).
pub fn shape(def: &ViewDef, relation_of: &RelationOf<'_>) -> Shape {
    let columns_of = |name: &str| Ok(relation_of(name).map(|(_, columns)| columns));
    let level = match Level::of(&columns_of, def, Event::Delete, "q") {
        Ok(level) => level,
        // (A view whose query no longer reads is no updatable one.)
        Err(_) => return Shape::default(),
    };
    let Some((base, base_columns)) = relation_of(&level.base) else {
        return Shape::default();
    };
    let columns = (level.columns.iter())
        .map(|(_, plain)| {
            let plain = plain.as_ref()?;
            base_columns.iter().position(|c| c == plain)
        })
        .collect();
    Shape {
        base: Some(base),
        columns,
    }
}

/// PostgreSQL's `relation_is_updatable`: the events relation `oid`
/// takes (a table all; a view those its unconditional INSTEAD rules
/// take, those its INSTEAD OF triggers take, with
/// `include_triggers`, and those it takes automatically: all when one of
/// its updatable columns is among `columns` (or any, for `None`), else
/// DELETE, as far as its base relation takes them for the base columns
/// they are). The one owner of `pg_relation_is_updatable` and
/// `pg_column_is_updatable`.
pub fn events(
    relation: &dyn Fn(u64) -> Updatable,
    oid: u64,
    include_triggers: bool,
    columns: Option<&[usize]>,
) -> i32 {
    events_at(relation, oid, include_triggers, columns, 0)
}

fn events_at(
    relation: &dyn Fn(u64) -> Updatable,
    oid: u64,
    include_triggers: bool,
    columns: Option<&[usize]>,
    depth: usize,
) -> i32 {
    let shape = match relation(oid) {
        Updatable::Table => return ALL_EVENTS,
        Updatable::Neither => return 0,
        Updatable::View(shape) => shape,
    };
    let mut events = crate::rules::instead_events(oid);
    if events == ALL_EVENTS {
        return events;
    }
    if include_triggers {
        for (event, bit) in [
            (Event::Insert, INSERT_EVENT),
            (Event::Update, UPDATE_EVENT),
            (Event::Delete, DELETE_EVENT),
        ] {
            if crate::triggers::fires_instead(oid, event) {
                events |= bit;
            }
        }
    }
    let Some(base) = shape
        .base
        .filter(|_| events != ALL_EVENTS && depth < MAX_LEVELS)
    else {
        return events;
    };
    let updatable: Vec<usize> = (shape.columns.iter().enumerate())
        .filter(|(c, _)| columns.is_none_or(|wanted| wanted.contains(c)))
        .filter_map(|(_, base_column)| *base_column)
        .collect();
    let own = match updatable.is_empty() {
        true => DELETE_EVENT,
        false => ALL_EVENTS,
    };
    let wanted = (!updatable.is_empty()).then_some(updatable.as_slice());
    events | own & events_at(relation, base, include_triggers, wanted, depth + 1)
}

/// One view of the rewrite: how its columns map onto its base relation.
struct Level {
    def: ViewDef,
    /// The base relation, as the catalog names it.
    base: String,
    /// Whether the view reads `ONLY` the base relation (not its
    /// inheritance children): the statement then changes it alone.
    only: bool,
    /// Per view column, its expression over `q.<base column>`, and the
    /// base column when it is a plain one (updatable).
    columns: Vec<(Expr, Option<String>)>,
    /// The view's WHERE over `q.<base column>`.
    condition: Option<Expr>,
    /// The view's columns the statement touched, noted by the rewrite.
    touched: std::cell::RefCell<Touched>,
}

/// `statement` rewritten onto the base relation, if it is an INSERT,
/// UPDATE or DELETE of a view that has no INSTEAD OF trigger of its
/// event (a view that is not updatable: PostgreSQL's 55000).
pub fn rewrite(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Option<Rewritten>, SqlError> {
    let Some((name, event)) = target_of(statement)? else {
        return Ok(None);
    };
    let Some(view) = view_target(cx, txn, &name, event)? else {
        return Ok(None);
    };
    crate::views::check_restricted(cx, &view.def.name)?;
    let bare = folio_catalog::unqualified(&view.def.name).to_string();
    let qualifier = qualifier_of(statement).unwrap_or_else(|| bare.clone());
    let mut out = Rewritten {
        statement: statement.clone(),
        views: Vec::new(),
        checks: Vec::new(),
        qualifier: qualifier.clone(),
        base: String::new(),
    };
    let columns: Vec<String> = (view.def.columns.iter()).map(|c| c.name.clone()).collect();
    qualify_outer(
        &mut out.statement,
        &session_columns(cx, txn),
        &columns,
        &qualifier,
    )?;
    let mut cascaded = false;
    let mut next = Some(view);
    for depth in 0.. {
        let Some(view) = next.take() else {
            break;
        };
        if depth >= MAX_LEVELS {
            return Err(SqlError::new(
                "42P17",
                format!(
                    "infinite recursion detected in rules for relation \"{}\"",
                    view.def.name
                ),
            ));
        }
        let level = Level::of(&session_columns(cx, txn), &view.def, event, &qualifier)?;
        let used = Statement::Query(crate::views::parse_query(&view.def)?);
        let view = Arc::new(view);
        cx.views.borrow_mut().push(Used {
            view: view.clone(),
            query: used,
        });
        for (_, check) in &mut out.checks {
            level.substitute(check, &qualifier, false);
        }
        let option = view.def.check_option;
        if (cascaded || option != CheckOption::None)
            && let Some(condition) = &level.condition
        {
            out.checks.insert(0, (level.bare(), condition.clone()));
        }
        cascaded |= option == CheckOption::Cascaded;
        // (The check options are substituted first: what the view's
        // conditions read is no column the statement touched.)
        level.touched.take();
        level.rewrite(cx, txn, &mut out.statement, &qualifier, depth == 0)?;
        out.views.push((
            view.def.oid,
            level.bare(),
            view.def.flag("security_invoker"),
            Touched {
                names: (view.def.columns.iter()).map(|c| c.name.clone()).collect(),
                definition: level.definition(&qualifier),
                ..level.touched.take()
            },
        ));
        out.base = level.base.clone();
        // (A view below with rules of the event: its rules rewrite the
        // statement on it in turn, as PostgreSQL's rewriter recurses.)
        next = view_target(cx, txn, &level.base, event)?
            .filter(|below| !crate::rules::any_of(below.def.oid, event));
    }
    Ok(Some(out))
}

/// Qualifies the correlated references to the view's `columns` in the
/// subqueries of `statement`'s expressions that see the target (SET,
/// WHERE, RETURNING, ON CONFLICT's; not an INSERT's source or another
/// FROM item, which do not): `outer_names.rs`.
fn qualify_outer(
    statement: &mut Statement,
    columns_of: &ColumnsOf<'_>,
    columns: &[String],
    qualifier: &str,
) -> Result<(), SqlError> {
    let mut exprs: Vec<&mut Expr> = Vec::new();
    fn returning_of<'s>(items: Option<&'s mut Vec<SelectItem>>, exprs: &mut Vec<&'s mut Expr>) {
        for item in items.into_iter().flatten() {
            match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    exprs.push(e)
                }
                _ => {}
            }
        }
    }
    match statement {
        Statement::Insert(insert) => {
            if let Some(OnInsert::OnConflict(on)) = &mut insert.on
                && let OnConflictAction::DoUpdate(update) = &mut on.action
            {
                exprs.extend(update.assignments.iter_mut().map(|a| &mut a.value));
                exprs.extend(update.selection.as_mut());
            }
            returning_of(insert.returning.as_mut(), &mut exprs);
        }
        Statement::Update {
            assignments,
            selection,
            returning,
            ..
        } => {
            exprs.extend(assignments.iter_mut().map(|a| &mut a.value));
            exprs.extend(selection.as_mut());
            returning_of(returning.as_mut(), &mut exprs);
        }
        Statement::Delete(delete) => {
            exprs.extend(delete.selection.as_mut());
            returning_of(delete.returning.as_mut(), &mut exprs);
        }
        _ => {}
    }
    for e in exprs {
        crate::outer_names::qualify(e, columns_of, columns, qualifier)?;
    }
    Ok(())
}

/// The relation an INSERT, UPDATE or DELETE names, and its event.
fn target_of(statement: &Statement) -> Result<Option<(String, Event)>, SqlError> {
    Ok(match statement {
        Statement::Insert(insert) => match &insert.table {
            TableObject::TableName(name) => Some((names::relation(name)?, Event::Insert)),
            _ => None,
        },
        Statement::Update { table, .. } => table_name(table)?.map(|n| (n, Event::Update)),
        Statement::Delete(delete) => match &delete.from {
            FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from) => match &from[..] {
                [one] => table_name(one)?.map(|n| (n, Event::Delete)),
                _ => None,
            },
        },
        _ => None,
    })
}

fn table_name(table: &TableWithJoins) -> Result<Option<String>, SqlError> {
    match &table.relation {
        TableFactor::Table {
            name, args: None, ..
        } if table.joins.is_empty() => names::relation(name).map(Some),
        _ => Ok(None),
    }
}

/// The name the statement qualifies its target's columns with, if it
/// gives the target an alias.
fn qualifier_of(statement: &Statement) -> Option<String> {
    let alias = |t: &TableWithJoins| match &t.relation {
        TableFactor::Table { alias, .. } => alias.as_ref().map(|a| names::ident(&a.name)),
        _ => None,
    };
    match statement {
        Statement::Insert(insert) => insert.table_alias.as_ref().map(names::ident),
        Statement::Update { table, .. } => alias(table),
        Statement::Delete(delete) => match &delete.from {
            FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from) => {
                from.first().and_then(alias)
            }
        },
        _ => None,
    }
}

/// The view `name` names, if it is one (not materialized) that a row
/// change of `event` is rewritten through: one without an INSTEAD OF
/// trigger of the event. A table answers from the session's relations
/// (no catalog read on the common path).
fn view_target(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &str,
    event: Event,
) -> Result<Option<View>, SqlError> {
    if crate::access::relation(cx, txn, name).is_ok() {
        return Ok(None);
    }
    let name = crate::temp_tables::resolve_name(cx, txn, name)?;
    let Some(view) = cx.db.catalog().view(txn, &name)? else {
        return Ok(None);
    };
    if view.def.materialized || crate::triggers::fires_instead(view.def.oid, event) {
        return Ok(None);
    }
    Ok(Some(view))
}

/// 0A000 unless view `def` (made `WITH CHECK OPTION`) is updatable:
/// PostgreSQL's rule for CREATE VIEW, its reason as the HINT.
pub fn check_option_allowed(
    cx: &Ctx<'_>,
    txn: &Transaction,
    def: &ViewDef,
) -> Result<(), SqlError> {
    match Level::of(&session_columns(cx, txn), def, Event::Insert, "q") {
        Ok(_) => Ok(()),
        Err(e) if e.code == "55000" => Err(SqlError::new(
            "0A000",
            "WITH CHECK OPTION is supported only on automatically updatable views",
        )
        .with_hint(e.detail.unwrap_or_default())),
        Err(e) => Err(e),
    }
}

const NOT_SINGLE: &str =
    "Views that do not select from a single table or view are not automatically updatable.";
const DETAILS: [&str; 12] = [
    "Views containing DISTINCT are not automatically updatable.",
    "Views containing GROUP BY are not automatically updatable.",
    "Views containing HAVING are not automatically updatable.",
    "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable.",
    "Views containing WITH are not automatically updatable.",
    "Views containing LIMIT or OFFSET are not automatically updatable.",
    "Views that return aggregate functions are not automatically updatable.",
    "Views that return window functions are not automatically updatable.",
    "Views that return set-returning functions are not automatically updatable.",
    NOT_SINGLE,
    "Views that have no updatable columns are not automatically updatable.",
    "Views containing TABLESAMPLE are not automatically updatable.",
];

/// PostgreSQL's 55000 for a change of view `name` that is not updatable.
fn not_updatable(name: &str, event: Event, detail: &'static str) -> SqlError {
    let (verb, gerund, word) = match event {
        Event::Insert => ("insert into", "inserting into", "INSERT"),
        Event::Update => ("update", "updating", "UPDATE"),
        _ => ("delete from", "deleting from", "DELETE"),
    };
    SqlError::new("55000", format!("cannot {verb} view \"{name}\""))
        .with_detail(detail)
        .with_hint(format!(
            "To enable {gerund} the view, provide an INSTEAD OF {word} trigger or an unconditional ON {word} DO INSTEAD rule."
        ))
}

/// PostgreSQL's 0A000 for a read-only column given a value.
fn read_only_column(column: &str, view: &str, update: bool) -> SqlError {
    let verb = if update { "update" } else { "insert into" };
    SqlError::new(
        "0A000",
        format!("cannot {verb} column \"{column}\" of view \"{view}\""),
    )
    .with_detail("View columns that are not columns of their base relation are not updatable.")
}

fn qualified(qualifier: &str, column: &str) -> Expr {
    Expr::CompoundIdentifier(vec![
        Ident::with_quote('"', qualifier),
        Ident::with_quote('"', column),
    ])
}

impl Level {
    /// How view `def` maps onto its base relation, its column
    /// expressions qualified by `qualifier`; 55000 if it is not
    /// updatable.
    fn of(
        columns_of: &ColumnsOf<'_>,
        def: &ViewDef,
        event: Event,
        qualifier: &str,
    ) -> Result<Level, SqlError> {
        let bare = folio_catalog::unqualified(&def.name);
        let refuse = |i: usize| Err(not_updatable(bare, event, DETAILS[i]));
        let query = crate::views::parse_query(def)?;
        let select = match query.body.as_ref() {
            SetExpr::Select(select) => select,
            SetExpr::SetOperation { .. } => return refuse(3),
            _ => return refuse(9),
        };
        if select.distinct.is_some() {
            return refuse(0);
        }
        let grouped = match &select.group_by {
            sqlparser::ast::GroupByExpr::All(_) => true,
            sqlparser::ast::GroupByExpr::Expressions(e, _) => !e.is_empty(),
        };
        if grouped {
            return refuse(1);
        }
        if select.having.is_some() {
            return refuse(2);
        }
        if query.with.is_some() {
            return refuse(4);
        }
        if query.limit_clause.is_some() || query.fetch.is_some() {
            return refuse(5);
        }
        let items: Vec<&Expr> = (select.projection.iter())
            .filter_map(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
                _ => None,
            })
            .collect();
        let calls = |wanted: fn(&sqlparser::ast::Function) -> bool| {
            items
                .iter()
                .any(|e| crate::aggregate::contains_call(e, wanted))
        };
        if calls(crate::aggregate::is_aggregate) {
            return refuse(6);
        }
        if calls(|f| f.over.is_some()) {
            return refuse(7);
        }
        if calls(|f| crate::table_functions::is_table_function(&f.name)) {
            return refuse(8);
        }
        let [from] = select.from.as_slice() else {
            return refuse(9);
        };
        let TableFactor::Table {
            name,
            alias,
            args: None,
            sample,
            ..
        } = &from.relation
        else {
            return refuse(9);
        };
        if !from.joins.is_empty() || items.len() != select.projection.len() {
            return refuse(9);
        }
        let base = names::relation(name)?;
        let Some(base_columns) = columns_of(&base)? else {
            return refuse(9);
        };
        if sample.is_some() {
            return refuse(11);
        }
        // The names the view's query qualifies its base's columns with.
        let mut prefixes = vec![vec![folio_catalog::unqualified(&base).to_string()]];
        if let Some(alias) = alias {
            prefixes = vec![vec![names::ident(&alias.name)]];
        } else if let Some(parts) = names::parts(name) {
            prefixes.push(parts);
        }
        let mut normal = Nested::new(Normalize {
            qualifier,
            prefixes: &prefixes,
            columns: &base_columns,
        });
        let mut columns = Vec::with_capacity(items.len());
        for item in items {
            let mut e = item.clone();
            let _ = e.visit(&mut normal);
            let plain = match &e {
                Expr::CompoundIdentifier(parts) if parts.len() == 2 => Some(parts[1].value.clone()),
                _ => None,
            };
            columns.push((e, plain));
        }
        if event != Event::Delete && columns.iter().all(|(_, plain)| plain.is_none()) {
            return refuse(10);
        }
        let condition = select.selection.clone().map(|mut e| {
            let _ = e.visit(&mut normal);
            e
        });
        Ok(Level {
            def: def.clone(),
            base,
            only: crate::inheritance::syntax::only(name),
            columns,
            condition,
            touched: Default::default(),
        })
    }

    fn bare(&self) -> String {
        folio_catalog::unqualified(&self.def.name).to_string()
    }

    /// The base columns its select list and WHERE read (each once).
    fn definition(&self, qualifier: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let exprs = (self.columns.iter().map(|(e, _)| e)).chain(self.condition.as_ref());
        for e in exprs {
            let _ = sqlparser::ast::visit_expressions(e, |e| {
                if let Expr::CompoundIdentifier(parts) = e
                    && let [q, c] = parts.as_slice()
                    && names::ident(q) == qualifier
                    && !out.contains(&names::ident(c))
                {
                    out.push(names::ident(c));
                }
                ControlFlow::<()>::Continue(())
            });
        }
        out
    }

    /// The position of view column `name`.
    fn column(&self, name: &str) -> Option<usize> {
        self.def.columns.iter().position(|c| c.name == name)
    }

    /// The base column a statement gives view column `name` a value in,
    /// or 42703 / 0A000.
    fn target(&self, name: &str, update: bool) -> Result<String, SqlError> {
        let at = self.column(name).ok_or_else(|| {
            SqlError::new(
                "42703",
                format!(
                    "column \"{name}\" of relation \"{}\" does not exist",
                    self.bare()
                ),
            )
        })?;
        (self.columns[at].1.clone()).ok_or_else(|| read_only_column(name, &self.bare(), update))
    }

    /// Replaces the view's column references in `e` (unqualified ones
    /// too when `unqualified`) by their expressions over `qualifier`.
    fn substitute(&self, e: &mut Expr, qualifier: &str, unqualified: bool) {
        let _ = e.visit(&mut Nested::new(Substitute {
            level: self,
            qualifier,
            unqualified,
        }));
    }

    /// Rewrites `statement` (on this view, its columns qualified by
    /// `qualifier`) onto the base relation; `first`: the statement as the
    /// user wrote it (unqualified names may be the view's columns).
    fn rewrite(
        &self,
        cx: &Ctx<'_>,
        txn: &Transaction,
        statement: &mut Statement,
        qualifier: &str,
        first: bool,
    ) -> Result<(), SqlError> {
        let base_name = match self.only {
            true => crate::inheritance::syntax::only_name(&self.base),
            false => crate::inheritance::syntax::plain_name(&self.base),
        };
        let alias = TableAlias {
            name: Ident::with_quote('"', qualifier),
            columns: Vec::new(),
        };
        let on_target = |table: &mut TableWithJoins| {
            if let TableFactor::Table { name, alias: a, .. } = &mut table.relation {
                *name = base_name.clone();
                *a = Some(alias.clone());
            }
        };
        match statement {
            Statement::Insert(insert) => {
                let mut listed: Vec<String> = match insert.columns.is_empty() {
                    false => insert.columns.iter().map(names::ident).collect(),
                    true => {
                        let given = crate::view_defaults::source_width(cx, txn, insert)?;
                        (self.def.columns.iter().take(given))
                            .map(|c| c.name.clone())
                            .collect()
                    }
                };
                crate::view_defaults::fill_insert(&self.def, insert, &mut listed, false)?;
                (self.touched.borrow_mut().inserted)
                    .extend(listed.iter().filter_map(|c| self.column(c)));
                insert.columns = (listed.iter())
                    .map(|c| self.target(c, false).map(|c| Ident::with_quote('"', c)))
                    .collect::<Result<_, _>>()?;
                // Two view columns of one base column (a list naming one
                // column twice is the INSERT's own 42701, later).
                let distinct = |names: Vec<String>| {
                    let mut seen = std::collections::HashSet::new();
                    names.into_iter().find(|n| !seen.insert(n.clone()))
                };
                if distinct(listed.clone()).is_none()
                    && let Some(twice) = distinct(insert.columns.iter().map(names::ident).collect())
                {
                    return Err(SqlError::new(
                        "42601",
                        format!("multiple assignments to same column \"{twice}\""),
                    ));
                }
                insert.table = TableObject::TableName(base_name.clone());
                insert.table_alias = Some(alias.name.clone());
                if let Some(OnInsert::OnConflict(on)) = &mut insert.on {
                    if let Some(ConflictTarget::Columns(columns)) = &mut on.conflict_target {
                        for c in columns.iter_mut() {
                            let name = names::ident(c);
                            (self.touched.borrow_mut().read).extend(self.column(&name));
                            *c = Ident::with_quote('"', self.target(&name, true)?);
                        }
                    }
                    if let OnConflictAction::DoUpdate(update) = &mut on.action {
                        for a in &mut update.assignments {
                            self.assign(a, qualifier, first)?;
                        }
                        if let Some(e) = &mut update.selection {
                            self.substitute(e, qualifier, first);
                        }
                    }
                }
                self.returning(insert.returning.as_mut(), qualifier, first, &[]);
            }
            Statement::Update {
                table,
                assignments,
                selection,
                returning,
                from,
                ..
            } => {
                on_target(table);
                for a in assignments.iter_mut() {
                    self.assign(a, qualifier, first)?;
                }
                self.restrict(selection, qualifier, first);
                let others = match from {
                    Some(sqlparser::ast::UpdateTableFromKind::AfterSet(items)) => items.as_slice(),
                    _ => &[],
                };
                self.returning(returning.as_mut(), qualifier, first, others);
            }
            Statement::Delete(delete) => {
                let (FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)) =
                    &mut delete.from;
                from.iter_mut().take(1).for_each(on_target);
                self.restrict(&mut delete.selection, qualifier, first);
                let others = delete.using.as_deref().unwrap_or_default();
                self.returning(delete.returning.as_mut(), qualifier, first, others);
            }
            _ => {}
        }
        Ok(())
    }

    /// `SET c = e` of a view column: of its base column, `e` substituted.
    fn assign(
        &self,
        a: &mut sqlparser::ast::Assignment,
        qualifier: &str,
        first: bool,
    ) -> Result<(), SqlError> {
        let AssignmentTarget::ColumnName(column) = &mut a.target else {
            return Err(SqlError::unsupported("UPDATE of a column tuple"));
        };
        let name = names::relation(column)?;
        let name = folio_catalog::unqualified(&name);
        *column = ObjectName(vec![ObjectNamePart::Identifier(Ident::with_quote(
            '"',
            self.target(name, true)?,
        ))]);
        // DEFAULT: the view column's default, else NULL
        // (`view_defaults.rs`).
        let at = self.column(name).expect("a target is a view column");
        self.touched.borrow_mut().updated.insert(at);
        match crate::view_defaults::of_assignment(&self.def, at, &a.value)? {
            Some(value) => a.value = value,
            None => self.substitute(&mut a.value, qualifier, first),
        }
        Ok(())
    }

    /// WHERE, its references substituted and the view's condition ANDed
    /// in.
    fn restrict(&self, selection: &mut Option<Expr>, qualifier: &str, first: bool) {
        if let Some(e) = selection.as_mut() {
            self.substitute(e, qualifier, first);
        }
        let Some(condition) = &self.condition else {
            return;
        };
        let condition = Expr::Nested(Box::new(condition.clone()));
        *selection = Some(match selection.take() {
            None => condition,
            Some(e) => Expr::BinaryOp {
                left: Box::new(condition),
                op: BinaryOperator::And,
                right: Box::new(Expr::Nested(Box::new(e))),
            },
        });
    }

    /// RETURNING over the view's columns: `*` and `q.*` written out, a
    /// plain reference named as the view's column.
    fn returning(
        &self,
        items: Option<&mut Vec<SelectItem>>,
        qualifier: &str,
        first: bool,
        others: &[TableWithJoins],
    ) {
        let Some(items) = items else {
            return;
        };
        let all = || {
            (self.touched.borrow_mut().read).extend(0..self.columns.len());
            (self.def.columns.iter().zip(&self.columns)).map(|(c, (e, _))| {
                SelectItem::ExprWithAlias {
                    expr: e.clone(),
                    alias: Ident::with_quote('"', c.name.clone()),
                }
            })
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items.drain(..) {
            match item {
                // `*` is every FROM item's columns, the view's first.
                SelectItem::Wildcard(options) => {
                    out.extend(all());
                    for name in item_names(others) {
                        out.push(SelectItem::QualifiedWildcard(
                            sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(
                                ObjectName(vec![ObjectNamePart::Identifier(name)]),
                            ),
                            options.clone(),
                        ));
                    }
                }
                SelectItem::QualifiedWildcard(
                    sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(name),
                    _,
                ) if names::relation(&name)
                    .is_ok_and(|n| folio_catalog::unqualified(&n) == qualifier) =>
                {
                    out.extend(all())
                }
                SelectItem::UnnamedExpr(mut e) => {
                    let named = match &e {
                        Expr::Identifier(id) if first => Some(id.clone()),
                        Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                            Some(parts[1].clone())
                        }
                        _ => None,
                    };
                    self.substitute(&mut e, qualifier, first);
                    out.push(match named {
                        Some(alias) => SelectItem::ExprWithAlias { expr: e, alias },
                        None => SelectItem::UnnamedExpr(e),
                    });
                }
                SelectItem::ExprWithAlias { mut expr, alias } => {
                    self.substitute(&mut expr, qualifier, first);
                    out.push(SelectItem::ExprWithAlias { expr, alias });
                }
                other => out.push(other),
            }
        }
        *items = out;
    }
}

/// The names FROM items are known by (a table's, else its alias).
fn item_names(items: &[TableWithJoins]) -> Vec<Ident> {
    let factors = items
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
    factors
        .filter_map(|f| match f {
            TableFactor::Table { alias: Some(a), .. }
            | TableFactor::Derived { alias: Some(a), .. }
            | TableFactor::Function { alias: Some(a), .. } => Some(a.name.clone()),
            TableFactor::Table { name, .. } => match name.0.last() {
                Some(ObjectNamePart::Identifier(id)) => Some(id.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Writes a view query's references to its base's columns as
/// `qualifier.column`.
struct Normalize<'a> {
    qualifier: &'a str,
    /// The names the query qualifies base columns with.
    prefixes: &'a [Vec<String>],
    columns: &'a [String],
}

impl InSubqueries for Normalize<'_> {
    fn expr(&mut self, e: &mut Expr, depth: usize) {
        let column = match e {
            Expr::Identifier(id) if depth == 0 => names::ident(id),
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                let (last, prefix) = parts.split_last().expect("two parts");
                let prefix: Vec<String> = prefix.iter().map(names::ident).collect();
                if !self.prefixes.contains(&prefix) {
                    return;
                }
                names::ident(last)
            }
            _ => return,
        };
        if self.columns.contains(&column) {
            *e = qualified(self.qualifier, &column);
        }
    }
}

/// Replaces a statement's references to a view's columns by their
/// expressions (`excluded.c` by the expression over `excluded`).
struct Substitute<'a> {
    level: &'a Level,
    qualifier: &'a str,
    unqualified: bool,
}

impl InSubqueries for Substitute<'_> {
    fn expr(&mut self, e: &mut Expr, depth: usize) {
        let (column, over) = match e {
            Expr::Identifier(id)
                if self.unqualified
                    && depth == 0
                    && !(id.quote_style.is_none() && id.value.eq_ignore_ascii_case("default")) =>
            {
                (names::ident(id), self.qualifier.to_string())
            }
            Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                let prefix = names::ident(&parts[0]);
                if prefix != self.qualifier && prefix != "excluded" {
                    return;
                }
                (names::ident(&parts[1]), prefix)
            }
            _ => return,
        };
        let Some(at) = self.level.column(&column) else {
            return;
        };
        self.level.touched.borrow_mut().read.insert(at);
        let mut mapped = self.level.columns[at].0.clone();
        if over != self.qualifier {
            let _ = mapped.visit(&mut Requalify {
                from: self.qualifier,
                to: &over,
            });
        }
        *e = match mapped {
            plain @ Expr::CompoundIdentifier(_) => plain,
            other => Expr::Nested(Box::new(other)),
        };
    }
}

/// Writes `from.c` as `to.c`.
struct Requalify<'a> {
    from: &'a str,
    to: &'a str,
}

impl VisitorMut for Requalify<'_> {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Expr::CompoundIdentifier(parts) = e
            && parts.len() == 2
            && names::ident(&parts[0]) == self.from
        {
            parts[0] = Ident::with_quote('"', self.to);
        }
        ControlFlow::Continue(())
    }
}

/// Drops the qualifier of `q.c`: a condition over the table's own
/// columns.
struct Unqualify<'a>(&'a str);

impl VisitorMut for Unqualify<'_> {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Expr::CompoundIdentifier(parts) = e
            && parts.len() == 2
            && names::ident(&parts[0]) == self.0
        {
            *e = Expr::Identifier(parts[1].clone());
        }
        ControlFlow::Continue(())
    }
}

/// The check options of `rewritten` on each part of a partitioned
/// table's change, bound over the partition's columns (by name: a
/// partition's columns are its table's, maybe in another order); rows
/// moved to another partition are judged as the partitioned table's.
fn add_to_parts(rewritten: &Rewritten, change: &mut Change) -> Result<(), SqlError> {
    for part in change.parts_mut() {
        let checks = rewritten.checks(part.target().as_ref())?;
        part.constraints_mut().add_view_checks(checks);
        add_to_parts(rewritten, part)?;
    }
    Ok(())
}

impl Rewritten {
    /// The check options' conditions, each with its view, bound over
    /// `columns`: those of the relation the statement reached.
    pub fn checks(
        &self,
        columns: &(impl crate::scalar::Columns + ?Sized),
    ) -> Result<Vec<(String, crate::scalar::Scalar)>, SqlError> {
        (self.checks.iter())
            .map(|(view, condition)| {
                let mut e = condition.clone();
                let _ = e.visit(&mut Unqualify(&self.qualifier));
                Ok((view.clone(), crate::scalar::bind(&e, columns)?))
            })
            .collect()
    }

    /// Adds the check options to `change`, the statement's original part
    /// that rules of the relation it reached left (an INSTEAD rule's
    /// actions take none, as PostgreSQL's: its product queries carry no
    /// check option). 0A000 when the part changes another relation (its
    /// rules went on through a view).
    pub fn apply_under_rules(&self, change: &mut Change) -> Result<(), SqlError> {
        if self.checks.is_empty() {
            return Ok(());
        }
        if change.target().def.name != self.base {
            return Err(SqlError::unsupported(format!(
                "WITH CHECK OPTION of view \"{}\" over a view with rules",
                self.checks[0].0
            )));
        }
        let checks = self.checks(change.target().as_ref())?;
        change.constraints_mut().add_view_checks(checks);
        Ok(())
    }

    /// Completes the plan of the rewritten statement: its check options
    /// bound over the table for its constraints to judge, and the
    /// privilege it needs on the table asked of the view instead (a view
    /// changes its base with its own rights, as it reads it).
    pub fn apply(&self, cx: &Ctx<'_>, change: &mut Change) -> Result<(), SqlError> {
        let relation = change.target().clone();
        let checks = self.checks(relation.as_ref())?;
        change.constraints_mut().add_view_checks(checks);
        add_to_parts(self, change)?;
        // The session's role needs on the outermost view what the
        // statement needs on the table; each view's owner needs it on the
        // relation under it (unless the view is `security_invoker`: then
        // the session's role, as PostgreSQL 15's rewriter leaves it).
        // A need the table's column privileges may grant is, on a view,
        // for the view's columns the statement touched there.
        let mut needs = cx.needs.borrow_mut();
        let on_table: Vec<_> = (needs.iter())
            .filter(|n| n.relation == relation.def.oid && n.as_owner_of.is_none())
            .map(|n| (n.privilege, n.columns.clone()))
            .collect();
        // When the statement reads the view, SELECT is asked on each
        // relation under a view of every column its definition reads.
        let reads = self.views.first().is_some_and(|v| !v.3.read.is_empty());
        let mut checker = None;
        let mut on_views = Vec::new();
        let mut above: Option<&Touched> = None;
        for (oid, name, invoker, touched) in &self.views {
            for (privilege, columns) in &on_table {
                let mut set = match *privilege {
                    crate::privileges::SELECT => touched.read.clone(),
                    crate::privileges::INSERT => touched.inserted.clone(),
                    crate::privileges::UPDATE => touched.updated.clone(),
                    _ => Default::default(),
                };
                if let Some(above) =
                    above.filter(|_| reads && *privilege == crate::privileges::SELECT)
                {
                    let at = |c: &String| touched.names.iter().position(|n| n == c);
                    set.extend(above.definition.iter().filter_map(at));
                }
                let width = touched.names.len();
                let columns = (columns.as_ref()).map(|c| c.on_view(width, &set));
                on_views.push(crate::privileges::Need {
                    relation: *oid,
                    name: name.clone(),
                    kind: "view",
                    privilege: *privilege,
                    as_owner_of: checker,
                    columns,
                });
            }
            checker = (!invoker).then_some(*oid);
            above = Some(touched);
        }
        for need in needs.iter_mut() {
            if need.relation == relation.def.oid && need.as_owner_of.is_none() {
                need.as_owner_of = checker;
                if let (Some(above), Some(uses)) = (above, &need.columns)
                    && reads
                    && need.privilege == crate::privileges::SELECT
                {
                    let at = |c: &String| relation.def.column(c);
                    above
                        .definition
                        .iter()
                        .filter_map(at)
                        .for_each(|p| uses.record(p));
                }
            }
        }
        // (The views first, as PostgreSQL checks them.)
        needs.splice(0..0, on_views);
        Ok(())
    }
}
