//! The rule system for INSERT, UPDATE and DELETE (README "Rules"):
//! [`plan`] rewrites a row change of a relation with rules of its event
//! into the statements PostgreSQL's rewriter makes of it
//! (`rewriteHandler.c` `RewriteQuery` / `fireRules`), each planned as any
//! statement (so an action's own target's rules fire in turn), and
//! [`Fired::run`] runs them in order and reports the command status
//! PostgreSQL reports.
//!
//! NEW and OLD are the columns of one derived table, the *rule source*
//! `"*rule*"`: for an INSERT the source rows with every column's value
//! (a column left out takes its default), for an UPDATE `SELECT
//! old values, new values FROM target [, FROM items] WHERE ...`, for a
//! DELETE the old values alike; its columns are named `old.c` and
//! `new.c`, which no unquoted name in an action can reach. An action's
//! `new.c` / `old.c` become `"*rule*"."new.c"`, and the source is joined
//! into the action (a FROM item of its query, UPDATE ... FROM, DELETE
//! ... USING) with the rule's condition ANDed to its WHERE, so the
//! action runs once over the rows the original statement would change,
//! as PostgreSQL joins the original's range table into it.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::Output;
use crate::scalar::Env;
use crate::statement::Plan;
use folio_catalog::{RULE_DELETE, RULE_INSERT, RULE_UPDATE, RuleDef};
use folio_db::Transaction;
use sqlparser::ast::{
    AssignmentTarget, BinaryOperator, Expr, FromTable, Ident, Insert, Query, SelectItem, SetExpr,
    Statement, TableFactor, TableObject, TableWithJoins, UpdateTableFromKind,
};
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::Arc;

/// The rule source's name in the statements a rule makes.
const SOURCE: &str = "*rule*";

/// The rules in scope (the statement's object lists).
pub fn in_scope() -> Arc<Vec<RuleDef>> {
    crate::object_scope::with(|lists| lists.map(|l| l.rules.clone()).unwrap_or_default())
}

/// Whether any rule is in scope: the one test a row change makes.
pub fn any() -> bool {
    crate::object_scope::with(|lists| lists.is_some_and(|l| !l.rules.is_empty()))
}

/// The events relation `relation` has an unconditional INSTEAD rule of,
/// as PostgreSQL's `relation_is_updatable` bits (`1 << CmdType`, which
/// `ev_type` is): such a rule takes the event over whatever the relation
/// is.
pub fn instead_events(relation: u64) -> i32 {
    (in_scope().iter())
        .filter(|r| r.relation == relation && r.instead && r.condition.is_none())
        .fold(0, |events, r| events | 1 << (r.event - b'0'))
}

/// Whether relation `relation` has a rule of any event (MERGE is refused
/// on such a relation, as PostgreSQL's).
pub fn any_on(relation: u64) -> bool {
    (in_scope().iter()).any(|r| r.relation == relation)
}

/// Whether relation `relation` has a rule of `event` (then the rules
/// rewrite a change of it, not the updatable view's rewrite).
pub fn any_of(relation: u64, event: crate::triggers::Event) -> bool {
    let event = match event {
        crate::triggers::Event::Insert => RULE_INSERT,
        crate::triggers::Event::Update => RULE_UPDATE,
        crate::triggers::Event::Delete => RULE_DELETE,
        crate::triggers::Event::Truncate => return false,
    };
    (in_scope().iter()).any(|r| r.relation == relation && r.event == event)
}

thread_local! {
    /// The relations and events whose rules are being applied (an
    /// action planned while its rule's relation is here of the same
    /// event recurses: PostgreSQL's 42P17).
    static FIRING: RefCell<Vec<(u64, u8)>> = const { RefCell::new(Vec::new()) };
    /// The original statement's relation and event while the original
    /// is planned after its rules were applied: not applied again.
    static APPLIED: RefCell<Option<(u64, u8)>> = const { RefCell::new(None) };
}

/// What a planned part is to the statement's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The original statement (with its INSTEAD rules' conditions
    /// negated): its status is the statement's.
    Original,
    /// An action of an INSTEAD rule of the original's command: the last
    /// one's status is the statement's when the original does not run.
    Instead,
    /// Another action.
    Other,
}

/// A row change rewritten by rules: the parts in the order they run.
pub struct Fired {
    parts: Vec<(Plan, Role)>,
    /// The status when no part gives it (`INSERT 0 0`, ...).
    none: String,
}

/// The rows a statement's rules see: its target, event, and the pieces
/// NEW and OLD are made of.
struct Target {
    oid: u64,
    stored: String,
    view: Option<folio_catalog::ViewDef>,
    event: u8,
    /// Name, type (as SQL), default (as SQL) of each column.
    columns: Vec<(String, String, Option<String>)>,
}

/// `statement` rewritten by the rules of its target, planned; `None`
/// when the target has no rule of its event.
pub fn plan(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Option<Fired>, SqlError> {
    // (Taken first, so that no statement planned inside sees it.)
    let part = crate::modifying_cte::take_part();
    let Some(target) = target(cx, txn, statement)? else {
        return Ok(None);
    };
    if APPLIED.with(|a| *a.borrow() == Some((target.oid, target.event))) {
        APPLIED.with(|a| *a.borrow_mut() = None);
        return Ok(None);
    }
    let rules: Vec<RuleDef> = (in_scope().iter())
        .filter(|r| r.relation == target.oid && r.event == target.event)
        .cloned()
        .collect();
    check_on_conflict(statement, &target, &rules)?;
    if rules.is_empty() {
        return Ok(None);
    }
    let bare = folio_catalog::unqualified(&target.stored).to_string();
    if FIRING.with(|f| f.borrow().contains(&(target.oid, target.event))) {
        return Err(SqlError::new(
            "42P17",
            format!("infinite recursion detected in rules for relation \"{bare}\""),
        ));
    }
    if part == Some(crate::modifying_cte::Part::InWith) {
        check_in_with(&rules)?;
    }
    if part == Some(crate::modifying_cte::Part::Main) {
        check_insert_select(&rules)?;
    }
    let statements = rewrite(cx, txn, statement, &target, &rules)?;
    if part == Some(crate::modifying_cte::Part::Main) && statements.len() > 1 {
        return Err(SqlError::new(
            "0A000",
            "WITH cannot be used in a query that is rewritten by rules into multiple queries",
        ));
    }
    FIRING.with(|f| f.borrow_mut().push((target.oid, target.event)));
    let planned = (|| {
        let mut parts = Vec::new();
        for (statement, role) in statements {
            if role == Role::Original {
                APPLIED.with(|a| *a.borrow_mut() = Some((target.oid, target.event)));
            }
            let plan = crate::statement::plan_part(cx, txn, &statement);
            APPLIED.with(|a| *a.borrow_mut() = None);
            parts.push((plan?, role));
        }
        Ok::<_, SqlError>(parts)
    })();
    FIRING.with(|f| f.borrow_mut().pop());
    let none = match target.event {
        RULE_INSERT => "INSERT 0 0",
        RULE_UPDATE => "UPDATE 0",
        _ => "DELETE 0",
    };
    Ok(Some(Fired {
        parts: planned?,
        none: none.to_string(),
    }))
}

/// A data-modifying CTE's statement must come out of its `rules` as one
/// statement, which takes the CTE's place (PostgreSQL's rewriter; README
/// "WITH queries"): the original alone (no rule makes a statement), or
/// the one action of an unconditional DO INSTEAD rule. 0A000 otherwise,
/// naming the kind of rule, as PostgreSQL does.
fn check_in_with(rules: &[RuleDef]) -> Result<(), SqlError> {
    let original = !rules.iter().any(|r| r.instead && r.condition.is_none());
    let actions: usize = rules.iter().map(|r| r.actions.len()).sum();
    let refuse = |kind: &str| {
        Err(SqlError::new(
            "0A000",
            format!("{kind} rules are not supported for data-modifying statements in WITH"),
        ))
    };
    match usize::from(original) + actions {
        0 => return refuse("DO INSTEAD NOTHING"),
        1 => return Ok(()),
        _ => {}
    }
    for rule in rules.iter().filter(|r| !r.actions.is_empty()) {
        match (rule.instead, &rule.condition) {
            (true, Some(_)) => return refuse("conditional DO INSTEAD"),
            (false, _) => return refuse("DO ALSO"),
            (true, None) => {}
        }
    }
    refuse("multi-statement DO INSTEAD")
}

/// The main statement of one with data-modifying CTEs may not fire a rule
/// whose action is `INSERT ... SELECT` (0A000, PostgreSQL's; an
/// `INSERT ... VALUES` action is allowed).
fn check_insert_select(rules: &[RuleDef]) -> Result<(), SqlError> {
    for text in rules.iter().flat_map(|r| r.actions.iter()) {
        if let Statement::Insert(insert) = crate::rule_statements::action(text)?
            && (insert.source.as_ref()).is_some_and(|q| !matches!(*q.body, SetExpr::Values(_)))
        {
            return Err(SqlError::new(
                "0A000",
                "INSERT...SELECT rule actions are not supported for queries having data-modifying statements in WITH",
            ));
        }
    }
    Ok(())
}

/// CREATE RULE's check that the actions of `rule` on `relation` bind:
/// they are rewritten from a stand-in statement of the rule's event and
/// planned, and an unknown column (42703: PostgreSQL analyzes actions at
/// CREATE RULE, where an unqualified name is not NEW's or OLD's) is the
/// CREATE's error. Other planning errors are left to the statements that
/// fire the rule, as before.
pub fn check_binding(
    cx: &Ctx<'_>,
    txn: &Transaction,
    relation: &sqlparser::ast::ObjectName,
    rule: &RuleDef,
) -> Result<(), SqlError> {
    let stored = crate::temp_tables::resolve_name(cx, txn, &names::relation(relation)?)?;
    let Some(target) = named(cx, txn, stored, rule.event)? else {
        return Ok(());
    };
    let text = match (rule.event, target.columns.first()) {
        (RULE_INSERT, _) => format!("INSERT INTO {relation} DEFAULT VALUES"),
        (RULE_UPDATE, Some((column, ..))) => {
            let column = quoted(column);
            format!("UPDATE {relation} SET {column} = {column}")
        }
        (RULE_UPDATE, None) => return Ok(()),
        _ => format!("DELETE FROM {relation}"),
    };
    let Ok(Some(crate::parse::Parsed::Sql(stand_in))) =
        crate::parse::statements(&text).map(|mut p| p.pop())
    else {
        return Ok(());
    };
    let unknown_column = |e: SqlError| match e.code == "42703" {
        true => Err(e),
        false => Ok(()),
    };
    let statements = match rewrite(cx, txn, &stand_in, &target, std::slice::from_ref(rule)) {
        Ok(statements) => statements,
        Err(e) => return unknown_column(e),
    };
    for (statement, role) in statements {
        if role == Role::Original {
            continue;
        }
        if let Err(e) = crate::statement::plan_part(cx, txn, &statement) {
            unknown_column(e)?;
        }
    }
    Ok(())
}

/// PostgreSQL's refusal of INSERT ... ON CONFLICT on a relation whose
/// INSERT rules make statements or that has an UPDATE rule (0A000); a
/// view changed by its automatic rewrite (no unconditional INSTEAD rule)
/// is exempt.
fn check_on_conflict(
    statement: &Statement,
    target: &Target,
    rules: &[RuleDef],
) -> Result<(), SqlError> {
    let Statement::Insert(Insert { on: Some(_), .. }) = statement else {
        return Ok(());
    };
    let unqualified_instead = rules.iter().any(|r| r.instead && r.condition.is_none());
    if target.view.is_some() && !unqualified_instead {
        return Ok(());
    }
    let makes_statements = rules.iter().any(|r| !r.actions.is_empty());
    let has_update =
        (in_scope().iter()).any(|r| r.relation == target.oid && r.event == RULE_UPDATE);
    if makes_statements || has_update {
        return Err(SqlError::new(
            "0A000",
            "INSERT with ON CONFLICT clause cannot be used with table that has INSERT or UPDATE rules",
        ));
    }
    Ok(())
}

/// The target of `statement` if it is a row change of a relation with
/// rules (of any event).
fn target(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Option<Target>, SqlError> {
    let (name, event) = match statement {
        Statement::Insert(insert) => match &insert.table {
            TableObject::TableName(name) => (name, RULE_INSERT),
            _ => return Ok(None),
        },
        Statement::Update { table, .. } => match &table.relation {
            TableFactor::Table { name, .. } if table.joins.is_empty() => (name, RULE_UPDATE),
            _ => return Ok(None),
        },
        Statement::Delete(delete) => match &delete.from {
            FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from) => match &from[..] {
                [
                    TableWithJoins {
                        relation: TableFactor::Table { name, .. },
                        joins,
                    },
                ] if joins.is_empty() => (name, RULE_DELETE),
                _ => return Ok(None),
            },
        },
        _ => return Ok(None),
    };
    let stored = crate::temp_tables::resolve_name(cx, txn, &names::relation(name)?)?;
    let rules = in_scope();
    let target = named(cx, txn, stored, event)?;
    Ok(target.filter(|t| rules.iter().any(|r| r.relation == t.oid)))
}

/// The rule target relation `stored` is (a table or a view, not a
/// materialized one), whether or not it has rules.
fn named(
    cx: &Ctx<'_>,
    txn: &Transaction,
    stored: String,
    event: u8,
) -> Result<Option<Target>, SqlError> {
    if let Some(view) = cx.db.catalog().view(txn, &stored)? {
        let view = view.def;
        if view.materialized {
            return Ok(None);
        }
        let columns = target_columns(&view.columns, |i| view.default_of(i));
        return Ok(Some(Target {
            oid: view.oid,
            stored,
            view: Some(view),
            event,
            columns,
        }));
    }
    let Ok(relation) = crate::access::relation(cx, txn, &stored) else {
        return Ok(None);
    };
    let def = &relation.def;
    let columns = target_columns(&def.columns, |i| def.default_of(i));
    Ok(Some(Target {
        oid: def.oid,
        stored,
        view: None,
        event,
        columns,
    }))
}

/// A rule target's columns as (name, type as SQL, default expression), from
/// a view's or a table's definition alike.
fn target_columns<'a>(
    columns: &[folio_catalog::ColumnDef],
    default_of: impl Fn(usize) -> Option<&'a str>,
) -> Vec<(String, String, Option<String>)> {
    (columns.iter().enumerate())
        .map(|(i, c)| {
            let type_sql = crate::catalog_functions::format_type(c.type_oid as i64, Some(c.typmod));
            (c.name.clone(), type_sql, default_of(i).map(str::to_string))
        })
        .collect()
}

/// PostgreSQL's checks of a rule's references: an ON INSERT rule has no
/// OLD, an ON DELETE rule no NEW (42P17).
pub fn check_references(expr: &Expr, event: u8) -> Result<(), SqlError> {
    let mut found = Ok(());
    let _ = sqlparser::ast::visit_expressions(expr, |e| {
        if let Some((which, _)) = reference(e) {
            found = refused(which, event);
        }
        match found {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    });
    found
}

fn refused(which: &str, event: u8) -> Result<(), SqlError> {
    match (which, event) {
        ("old", RULE_INSERT) => Err(SqlError::new("42P17", "ON INSERT rule cannot use OLD")),
        ("new", RULE_DELETE) => Err(SqlError::new("42P17", "ON DELETE rule cannot use NEW")),
        _ => Ok(()),
    }
}

/// PostgreSQL's checks of a rule's action at CREATE RULE.
pub fn check_action(
    action: &Statement,
    event: u8,
    instead: bool,
    conditional: bool,
    actions: usize,
) -> Result<(), SqlError> {
    let mut found = Ok(());
    let _ = sqlparser::ast::visit_expressions(action, |e| {
        if let Some((which, _)) = reference(e) {
            found = refused(which, event);
        }
        match found {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    });
    found?;
    check_with_items(action)?;
    if returning_of(action).is_some() {
        if !instead {
            return Err(SqlError::new(
                "0A000",
                "RETURNING lists are not supported in non-INSTEAD rules",
            ));
        }
        if conditional {
            return Err(SqlError::new(
                "0A000",
                "RETURNING lists are not supported in conditional rules",
            ));
        }
        if actions > 1 {
            return Err(SqlError::new(
                "0A000",
                "RETURNING lists are not supported in rules with multiple actions",
            ));
        }
    }
    Ok(())
}

/// An action's own WITH queries may not name OLD or NEW (`old.c`,
/// `old.*`; 0A000, OLD's refusal first, as PostgreSQL's): its WITH is
/// not joined to the rule source.
fn check_with_items(action: &Statement) -> Result<(), SqlError> {
    let Statement::Query(query) = action else {
        return Ok(());
    };
    let Some(with) = &query.with else {
        return Ok(());
    };
    let text = (with.cte_tables.iter())
        .map(|c| c.query.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let tokens = crate::parse::plain_tokens(&text)?;
    let names = |which: &str| {
        tokens.windows(2).any(|w| {
            matches!(&w[0].token, sqlparser::tokenizer::Token::Word(word)
                if word.quote_style.is_none() && word.value.eq_ignore_ascii_case(which))
                && w[1].token == sqlparser::tokenizer::Token::Period
        })
    };
    for which in ["OLD", "NEW"] {
        if names(which) {
            return Err(SqlError::new(
                "0A000",
                format!("cannot refer to {which} within WITH query"),
            ));
        }
    }
    Ok(())
}

/// `new.c` or `old.c`: which (lower case) and the column.
fn reference(e: &Expr) -> Option<(&'static str, String)> {
    let Expr::CompoundIdentifier(parts) = e else {
        return None;
    };
    let [q, c] = &parts[..] else {
        return None;
    };
    if q.quote_style.is_some() {
        return None;
    }
    match q.value.to_ascii_lowercase().as_str() {
        "new" => Some(("new", names::ident(c))),
        "old" => Some(("old", names::ident(c))),
        _ => None,
    }
}

/// The row change `statement` is, looking through a WITH around it
/// (`WITH t AS (...) INSERT ...` is a query whose body is the change).
fn change_of(statement: &Statement) -> &Statement {
    match statement {
        Statement::Query(q) => match q.body.as_ref() {
            SetExpr::Insert(inner) | SetExpr::Update(inner) | SetExpr::Delete(inner) => inner,
            _ => statement,
        },
        _ => statement,
    }
}

/// [`change_of`], to change.
fn change_of_mut(statement: &mut Statement) -> &mut Statement {
    let through = matches!(statement, Statement::Query(q)
        if matches!(q.body.as_ref(), SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_)));
    if !through {
        return statement;
    }
    let Statement::Query(q) = statement else {
        unreachable!("checked above")
    };
    match q.body.as_mut() {
        SetExpr::Insert(inner) | SetExpr::Update(inner) | SetExpr::Delete(inner) => inner,
        _ => unreachable!("checked above"),
    }
}

fn returning_of(statement: &Statement) -> Option<&Vec<SelectItem>> {
    match change_of(statement) {
        Statement::Insert(i) => i.returning.as_ref(),
        Statement::Update { returning, .. } => returning.as_ref(),
        Statement::Delete(d) => d.returning.as_ref(),
        _ => None,
    }
}

fn returning_mut(statement: &mut Statement) -> Option<&mut Option<Vec<SelectItem>>> {
    match change_of_mut(statement) {
        Statement::Insert(i) => Some(&mut i.returning),
        Statement::Update { returning, .. } => Some(returning),
        Statement::Delete(d) => Some(&mut d.returning),
        _ => None,
    }
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn parse_query(text: &str) -> Result<Query, SqlError> {
    match crate::rule_statements::action(text)? {
        Statement::Query(q) => Ok(*q),
        _ => Err(SqlError::syntax(format!("syntax error in \"{text}\""))),
    }
}

fn parse_expr(text: &str) -> Result<Expr, SqlError> {
    crate::rule_statements::condition(text)
}

fn and(a: Option<Expr>, b: Expr) -> Expr {
    match a {
        None => b,
        Some(a) => Expr::BinaryOp {
            left: Box::new(Expr::Nested(Box::new(a))),
            op: BinaryOperator::And,
            right: Box::new(Expr::Nested(Box::new(b))),
        },
    }
}

/// The original statement's pieces NEW and OLD are made of.
struct Source {
    /// The rule source's query text (`SELECT ... AS "old.c", ... AS
    /// "new.c"`).
    query: String,
    /// The original's own expression of each NEW column (an UPDATE's
    /// SET value or the target's column), and of each OLD one, as SQL:
    /// what a negated condition on the original reads.
    new_in_original: Vec<String>,
    old_in_original: Vec<String>,
    /// The original joins more than its target (FROM / USING items or a
    /// WHERE), or is an INSERT: an action reading no NEW / OLD is joined
    /// to the source all the same.
    always_joined: bool,
    /// An INSERT's columns as listed (or the first ones its source
    /// fills).
    listed: Vec<String>,
}

fn source(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
    target: &Target,
) -> Result<Source, SqlError> {
    let cast = |value: &str, type_sql: &str| format!("CAST(({value}) AS {type_sql})");
    let default_or_null = |i: usize| {
        let (_, type_sql, default) = &target.columns[i];
        cast(default.as_deref().unwrap_or("NULL"), type_sql)
    };
    match statement {
        Statement::Insert(insert) => {
            let mut filled = insert.clone();
            let mut listed: Vec<String> = match insert.columns.is_empty() {
                true => {
                    let given = crate::view_defaults::source_width(cx, txn, insert)?;
                    (target.columns.iter().take(given))
                        .map(|c| c.0.clone())
                        .collect()
                }
                false => insert.columns.iter().map(names::ident).collect(),
            };
            let original_listed = listed.clone();
            if let Some(view) = &target.view {
                crate::view_defaults::fill_insert(view, &mut filled, &mut listed, true)?;
            }
            let position = |name: &str| {
                (target.columns.iter())
                    .position(|c| c.0 == name)
                    .ok_or_else(|| {
                        SqlError::new(
                            "42703",
                            format!(
                                "column \"{name}\" of relation \"{}\" does not exist",
                                folio_catalog::unqualified(&target.stored)
                            ),
                        )
                    })
            };
            let at: Vec<usize> = listed
                .iter()
                .map(|c| position(c))
                .collect::<Result<_, _>>()?;
            let items = |from_source: &dyn Fn(usize) -> String| {
                (0..target.columns.len())
                    .map(|i| {
                        let value = match at.iter().position(|&p| p == i) {
                            Some(k) => cast(&from_source(k), &target.columns[i].1),
                            None => default_or_null(i),
                        };
                        format!(
                            "{value} AS {}",
                            quoted(&format!("new.{}", target.columns[i].0))
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let query = match filled.source.as_deref() {
                None => format!("SELECT {}", items(&|_| "NULL".into())),
                Some(source) => {
                    let mut source = source.clone();
                    if let SetExpr::Values(values) = source.body.as_mut() {
                        for row in &mut values.rows {
                            for (k, e) in row.iter_mut().enumerate() {
                                if crate::dml::is_default(e) {
                                    let i = at.get(k).copied().unwrap_or(usize::MAX);
                                    *e = match target.columns.get(i).and_then(|c| c.2.as_deref()) {
                                        Some(default) => parse_expr(default)?,
                                        None => parse_expr("NULL")?,
                                    };
                                }
                            }
                        }
                    }
                    let aliases: Vec<String> = (0..at.len()).map(|k| format!("x{k}")).collect();
                    format!(
                        "SELECT {} FROM ({source}) AS s({})",
                        items(&|k| format!("s.x{k}")),
                        aliases.join(", ")
                    )
                }
            };
            Ok(Source {
                query,
                new_in_original: Vec::new(),
                old_in_original: Vec::new(),
                always_joined: true,
                listed: original_listed,
            })
        }
        Statement::Update {
            table,
            assignments,
            from,
            selection,
            ..
        } => {
            let qualifier = qualifier(table)?;
            let mut new: Vec<String> = (target.columns.iter())
                .map(|c| format!("{qualifier}.{}", quoted(&c.0)))
                .collect();
            for assignment in assignments {
                let AssignmentTarget::ColumnName(name) = &assignment.target else {
                    return Err(SqlError::unsupported(
                        "a row assignment in a statement rules rewrite",
                    ));
                };
                let column = (name.0.last().and_then(|p| p.as_ident()))
                    .map(names::ident)
                    .unwrap_or_default();
                let i = (target.columns.iter())
                    .position(|c| c.0 == column)
                    .ok_or_else(|| {
                        SqlError::new(
                            "42703",
                            format!(
                                "column \"{column}\" of relation \"{}\" does not exist",
                                folio_catalog::unqualified(&target.stored)
                            ),
                        )
                    })?;
                new[i] = match crate::dml::is_default(&assignment.value) {
                    true => default_or_null(i),
                    false => cast(&assignment.value.to_string(), &target.columns[i].1),
                };
            }
            let old: Vec<String> = (target.columns.iter())
                .map(|c| format!("{qualifier}.{}", quoted(&c.0)))
                .collect();
            let mut items: Vec<String> = (old.iter().zip(&target.columns))
                .map(|(e, c)| format!("{e} AS {}", quoted(&format!("old.{}", c.0))))
                .collect();
            items.extend(
                (new.iter().zip(&target.columns))
                    .map(|(e, c)| format!("{e} AS {}", quoted(&format!("new.{}", c.0)))),
            );
            let others: Vec<&TableWithJoins> = match from {
                Some(UpdateTableFromKind::AfterSet(items))
                | Some(UpdateTableFromKind::BeforeSet(items)) => items.iter().collect(),
                None => Vec::new(),
            };
            let query = select_over(&items, table, &others, selection.as_ref());
            Ok(Source {
                query,
                new_in_original: new,
                old_in_original: old,
                always_joined: !others.is_empty() || selection.is_some(),
                listed: Vec::new(),
            })
        }
        Statement::Delete(delete) => {
            let (FromTable::WithFromKeyword(from) | FromTable::WithoutKeyword(from)) = &delete.from;
            let table = &from[0];
            let qualifier = qualifier(table)?;
            let old: Vec<String> = (target.columns.iter())
                .map(|c| format!("{qualifier}.{}", quoted(&c.0)))
                .collect();
            let items: Vec<String> = (old.iter().zip(&target.columns))
                .map(|(e, c)| format!("{e} AS {}", quoted(&format!("old.{}", c.0))))
                .collect();
            let others: Vec<&TableWithJoins> = delete.using.iter().flatten().collect();
            let query = select_over(&items, table, &others, delete.selection.as_ref());
            Ok(Source {
                query,
                new_in_original: Vec::new(),
                old_in_original: old,
                always_joined: !others.is_empty() || delete.selection.is_some(),
                listed: Vec::new(),
            })
        }
        _ => unreachable!("rules of another statement"),
    }
}

/// The name a row change's target's columns are qualified with (its
/// alias, else its name's last part: a temporary or schema-qualified
/// table's columns are qualified by its bare name).
fn qualifier(table: &TableWithJoins) -> Result<String, SqlError> {
    match &table.relation {
        TableFactor::Table { name, alias, .. } => Ok(match alias {
            Some(alias) => alias.name.to_string(),
            None => match name.0.last().and_then(|p| p.as_ident()) {
                Some(last) => last.to_string(),
                None => name.to_string(),
            },
        }),
        _ => Err(SqlError::unsupported("this target of a row change")),
    }
}

fn select_over(
    items: &[String],
    table: &TableWithJoins,
    others: &[&TableWithJoins],
    selection: Option<&Expr>,
) -> String {
    let mut text = format!("SELECT {} FROM {table}", items.join(", "));
    for other in others {
        text.push_str(&format!(", {other}"));
    }
    if let Some(selection) = selection {
        text.push_str(&format!(" WHERE {selection}"));
    }
    text
}

/// `e` with NEW and OLD references written by `write` (`which`,
/// column index); 42703 for a column the target has not. Returns
/// whether any was found.
fn map_references(
    e: &mut impl sqlparser::ast::VisitMut,
    target: &Target,
    write: &dyn Fn(&str, usize) -> Result<Expr, SqlError>,
) -> Result<bool, SqlError> {
    let mut found = false;
    let mut error = None;
    let _ = sqlparser::ast::visit_expressions_mut(e, |e| {
        if let Some((which, column)) = reference(e) {
            found = true;
            match (target.columns.iter()).position(|c| c.0 == column) {
                Some(i) => match write(which, i) {
                    Ok(written) => *e = written,
                    Err(err) => error = Some(err),
                },
                None => {
                    error = Some(SqlError::new(
                        "42703",
                        format!("column {which}.{column} does not exist"),
                    ))
                }
            }
        }
        match error {
            None => ControlFlow::Continue(()),
            Some(_) => ControlFlow::Break(()),
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(found),
    }
}

/// A reference to the rule source's column.
fn source_column(which: &str, target: &Target, i: usize) -> Expr {
    Expr::CompoundIdentifier(vec![
        Ident::with_quote('"', SOURCE),
        Ident::with_quote('"', format!("{which}.{}", target.columns[i].0)),
    ])
}

/// The statements `statement` becomes under `rules` (its target's rules
/// of its event, in name order), each with its role, in run order.
fn rewrite(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
    target: &Target,
    rules: &[RuleDef],
) -> Result<Vec<(Statement, Role)>, SqlError> {
    let source = source(cx, txn, statement, target)?;
    let source_item = {
        let q = parse_query(&format!(
            "SELECT 1 FROM ({}) AS {}",
            source.query,
            quoted(SOURCE)
        ))?;
        match *q.body {
            SetExpr::Select(select) => select.from.into_iter().next().expect("one FROM item"),
            _ => unreachable!("a SELECT"),
        }
    };
    let in_source = |which: &str, i: usize| Ok(source_column(which, target, i));
    let original_returning = returning_of(statement).cloned();
    let mut actions = Vec::new();
    let mut negated = Vec::new();
    let mut instead = false;
    let mut returned = false;
    for rule in rules {
        let condition = match &rule.condition {
            Some(text) => {
                let mut expr = parse_expr(text)?;
                map_references(&mut expr, target, &in_source)?;
                Some(expr)
            }
            None => None,
        };
        let conditional = condition.is_some();
        match (rule.instead, &rule.condition) {
            (true, Some(text)) => negated.push(text.clone()),
            (true, None) => instead = true,
            _ => {}
        }
        for text in &rule.actions {
            let mut action = crate::rule_statements::action(text)?;
            if let Some(resolved) = crate::temp_tables::resolve_names(cx, txn, &action)? {
                action = resolved;
            }
            expand_wildcards(&mut action, target);
            if let Statement::Insert(insert) = change_of_mut(&mut action) {
                fill_defaults(cx, txn, insert)?;
            }
            let refers = map_references(&mut action, target, &in_source)?;
            let joined = refers || conditional || source.always_joined;
            let role = match (rule.instead, same_command(&action, target.event)) {
                (true, true) => Role::Instead,
                _ => Role::Other,
            };
            // RETURNING: an unconditional INSTEAD rule's gives the
            // original's (PostgreSQL drops it when the original has none).
            let action_copy = change_of(&action).clone();
            if let Some(returning) = returning_mut(&mut action)
                && let Some(items) = returning.take()
                && let Some(wanted) = &original_returning
            {
                *returning = Some(returning_through(
                    cx,
                    txn,
                    wanted,
                    &items,
                    &action_copy,
                    statement,
                    target,
                )?);
                returned = true;
            }
            if joined {
                join(&mut action, &source_item, condition.clone())?;
            }
            actions.push((action, role));
        }
    }
    if original_returning.is_some() && instead && !returned {
        let (command, event) = match target.event {
            RULE_INSERT => ("INSERT", "INSERT"),
            RULE_UPDATE => ("UPDATE", "UPDATE"),
            _ => ("DELETE", "DELETE"),
        };
        return Err(SqlError::new(
            "0A000",
            format!(
                "cannot perform {command} RETURNING on relation \"{}\"",
                folio_catalog::unqualified(&target.stored)
            ),
        )
        .with_hint(format!(
            "You need an unconditional ON {event} DO INSTEAD rule with a RETURNING clause."
        )));
    }
    let mut out = Vec::new();
    let original = match instead {
        true => None,
        false => Some(original_with(
            statement,
            target,
            &source,
            &source_item,
            &negated,
        )?),
    };
    if let (Some(view), false) = (&target.view, negated.is_empty())
        && original.is_some()
    {
        let event = match target.event {
            RULE_INSERT => crate::triggers::Event::Insert,
            RULE_UPDATE => crate::triggers::Event::Update,
            _ => crate::triggers::Event::Delete,
        };
        if !crate::triggers::fires_instead(view.oid, event) {
            let (verb, command) = match target.event {
                RULE_INSERT => ("insert into", "INSERT"),
                RULE_UPDATE => ("update", "UPDATE"),
                _ => ("delete from", "DELETE"),
            };
            let doing = match target.event {
                RULE_INSERT => "inserting into",
                RULE_UPDATE => "updating",
                _ => "deleting from",
            };
            return Err(SqlError::new(
                "55000",
                format!("cannot {verb} view \"{}\"", folio_catalog::unqualified(&target.stored)),
            )
            .with_detail("Views with conditional DO INSTEAD rules are not automatically updatable.")
            .with_hint(format!(
                "To enable {doing} the view, provide an INSTEAD OF {command} trigger or an unconditional ON {command} DO INSTEAD rule."
            )));
        }
    }
    match (original, target.event) {
        (Some(original), RULE_INSERT) => {
            out.push((original, Role::Original));
            out.extend(actions);
        }
        (Some(original), _) => {
            out.extend(actions);
            out.push((original, Role::Original));
        }
        (None, _) => out.extend(actions),
    }
    Ok(out)
}

/// `new.*` and `old.*` in an action's VALUES rows and select lists
/// written out as the target's columns.
fn expand_wildcards(action: &mut Statement, target: &Target) {
    let which_of = |name: &sqlparser::ast::ObjectName| match &name.0[..] {
        [part] => part
            .as_ident()
            .filter(|id| id.quote_style.is_none())
            .map(|id| id.value.to_ascii_lowercase())
            .filter(|w| w == "new" || w == "old"),
        _ => None,
    };
    let column = |which: &str, c: &str| {
        Expr::CompoundIdentifier(vec![Ident::new(which), Ident::with_quote('"', c)])
    };
    let query = match change_of_mut(action) {
        Statement::Insert(insert) => insert.source.as_deref_mut(),
        Statement::Query(q) => Some(q.as_mut()),
        _ => None,
    };
    let Some(query) = query else {
        return;
    };
    match query.body.as_mut() {
        SetExpr::Values(values) => {
            for row in &mut values.rows {
                let mut out = Vec::new();
                for e in row.drain(..) {
                    match &e {
                        Expr::QualifiedWildcard(name, _) if let Some(which) = which_of(name) => {
                            out.extend(target.columns.iter().map(|c| column(&which, &c.0)))
                        }
                        _ => out.push(e),
                    }
                }
                *row = out;
            }
        }
        SetExpr::Select(select) => {
            let mut out = Vec::new();
            for item in select.projection.drain(..) {
                match &item {
                    SelectItem::QualifiedWildcard(
                        sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(name),
                        _,
                    ) if let Some(which) = which_of(name) => {
                        out.extend(target.columns.iter().map(|c| SelectItem::ExprWithAlias {
                            expr: column(&which, &c.0),
                            alias: Ident::with_quote('"', c.0.clone()),
                        }))
                    }
                    _ => out.push(item),
                }
            }
            select.projection = out;
        }
        _ => {}
    }
}

/// An INSERT action's `DEFAULT`s in its VALUES rows written as its
/// target columns' defaults (NULL for none): the rows become a query
/// when joined with the rule source, where DEFAULT means nothing.
fn fill_defaults(cx: &Ctx<'_>, txn: &Transaction, insert: &mut Insert) -> Result<(), SqlError> {
    let Some(SetExpr::Values(values)) = insert.source.as_deref_mut().map(|q| q.body.as_mut())
    else {
        return Ok(());
    };
    if !(values.rows.iter().flatten()).any(crate::dml::is_default) {
        return Ok(());
    }
    let TableObject::TableName(name) = &insert.table else {
        return Ok(());
    };
    let stored = crate::temp_tables::resolve_name(cx, txn, &names::relation(name)?)?;
    let defaults: Vec<(String, Option<String>)> = match cx.db.catalog().view(txn, &stored)? {
        Some(view) => (view.def.columns.iter().enumerate())
            .map(|(i, c)| (c.name.clone(), view.def.default_of(i).map(str::to_string)))
            .collect(),
        None => {
            let relation = crate::access::relation(cx, txn, &stored)?;
            (relation.def.columns.iter().enumerate())
                .map(|(i, c)| {
                    (
                        c.name.clone(),
                        relation.def.default_of(i).map(str::to_string),
                    )
                })
                .collect()
        }
    };
    let listed: Vec<usize> = match insert.columns.is_empty() {
        true => (0..defaults.len()).collect(),
        false => (insert.columns.iter())
            .filter_map(|c| defaults.iter().position(|d| d.0 == names::ident(c)))
            .collect(),
    };
    for row in &mut values.rows {
        for (k, e) in row.iter_mut().enumerate() {
            if crate::dml::is_default(e) {
                let default = listed.get(k).and_then(|&i| defaults[i].1.as_deref());
                *e = parse_expr(default.unwrap_or("NULL"))?;
            }
        }
    }
    Ok(())
}

/// Whether `action` is a command of `event`'s kind.
fn same_command(action: &Statement, event: u8) -> bool {
    matches!(
        (change_of(action), event),
        (Statement::Insert(_), RULE_INSERT)
            | (Statement::Update { .. }, RULE_UPDATE)
            | (Statement::Delete(_), RULE_DELETE)
    )
}

/// `action` joined with the rule source `item`, `condition` ANDed to its
/// WHERE.
fn join(
    action: &mut Statement,
    item: &TableWithJoins,
    condition: Option<Expr>,
) -> Result<(), SqlError> {
    let add = |selection: &mut Option<Expr>| {
        if let Some(c) = condition.clone() {
            *selection = Some(and(selection.take(), c));
        }
    };
    match change_of_mut(action) {
        Statement::Insert(Insert { source, .. }) => match source.as_deref_mut() {
            None => {}
            Some(query) => join_query(query, item, condition.clone())?,
        },
        Statement::Update {
            from, selection, ..
        } => {
            match from {
                Some(UpdateTableFromKind::AfterSet(items))
                | Some(UpdateTableFromKind::BeforeSet(items)) => {
                    crate::rule_lateral::join_first(items, item)
                }
                None => *from = Some(UpdateTableFromKind::AfterSet(vec![item.clone()])),
            }
            add(selection);
        }
        Statement::Delete(delete) => {
            crate::rule_lateral::join_first(delete.using.get_or_insert_with(Vec::new), item);
            add(&mut delete.selection);
        }
        Statement::Query(query) => join_query(query, item, condition.clone())?,
        _ => {}
    }
    Ok(())
}

/// A query of an action joined with the rule source: a VALUES list
/// becomes `SELECT v.* FROM source, LATERAL (SELECT row UNION ALL ...)
/// AS v(column1, ...) [WHERE c]` (so each source row gives all the list's
/// rows in turn, as PostgreSQL's rewriter joins its VALUES range table
/// entry after the source; a LATERAL VALUES list reading an outer column
/// folio refuses, `subquery::correlated`), a SELECT takes the source as
/// a FROM item.
fn join_query(
    query: &mut Query,
    item: &TableWithJoins,
    condition: Option<Expr>,
) -> Result<(), SqlError> {
    match query.body.as_mut() {
        SetExpr::Values(values) => {
            let rows: Vec<String> = (values.rows.iter())
                .map(|row| {
                    let row: Vec<String> = row.iter().map(|e| e.to_string()).collect();
                    format!("SELECT {}", row.join(", "))
                })
                .collect();
            let width = values.rows.first().map_or(0, Vec::len);
            let names: Vec<String> = (1..=width).map(|i| format!("column{i}")).collect();
            let mut text = format!(
                "SELECT \"*values*\".* FROM {item}, LATERAL ({}) AS \"*values*\"({})",
                rows.join(" UNION ALL "),
                names.join(", ")
            );
            if let Some(c) = &condition {
                text.push_str(&format!(" WHERE {c}"));
            }
            *query.body = *parse_query(&text)?.body;
            Ok(())
        }
        SetExpr::Select(select) => {
            crate::rule_lateral::star_of_written_items(select);
            crate::rule_lateral::join_first(&mut select.from, item);
            if let Some(c) = condition {
                select.selection = Some(and(select.selection.take(), c));
            }
            Ok(())
        }
        _ => Err(SqlError::new(
            "0A000",
            "conditional UNION/INTERSECT/EXCEPT statements are not implemented",
        )),
    }
}

/// The original statement's RETURNING `wanted` over an INSTEAD action's
/// RETURNING `items` (one per target column, in order): each reference
/// to a target column becomes the action's item for it.
fn returning_through(
    cx: &Ctx<'_>,
    txn: &Transaction,
    wanted: &[SelectItem],
    items: &[SelectItem],
    action: &Statement,
    statement: &Statement,
    target: &Target,
) -> Result<Vec<SelectItem>, SqlError> {
    let values = returning_values(cx, txn, items, action)?;
    check_returning_count(values.len(), target.columns.len())?;
    // The name the statement qualifies its target's columns with: its
    // alias, else the relation's last name.
    let named = |name: &sqlparser::ast::ObjectName, alias: Option<&Ident>| match alias {
        Some(alias) => Some(names::ident(alias)),
        None => names::parts(name).and_then(|p| p.last().cloned()),
    };
    let target_of = |t: &TableWithJoins| match &t.relation {
        TableFactor::Table { name, alias, .. } => named(name, alias.as_ref().map(|a| &a.name)),
        _ => None,
    };
    let qualifier = match statement {
        Statement::Update { table, .. } => target_of(table),
        Statement::Delete(d) => match &d.from {
            FromTable::WithFromKeyword(f) | FromTable::WithoutKeyword(f) => target_of(&f[0]),
        },
        Statement::Insert(i) => match &i.table {
            TableObject::TableName(n) => named(n, i.table_alias.as_ref()),
            _ => None,
        },
        _ => None,
    };
    let column_of = |e: &Expr| -> Option<usize> {
        let name = match e {
            Expr::Identifier(id) => names::ident(id),
            Expr::CompoundIdentifier(parts) if parts.len() == 2 => {
                if Some(names::ident(&parts[0])) != qualifier {
                    return None;
                }
                names::ident(&parts[1])
            }
            _ => return None,
        };
        target.columns.iter().position(|c| c.0 == name)
    };
    let mut out = Vec::new();
    for item in wanted {
        match item {
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                for (i, c) in target.columns.iter().enumerate() {
                    out.push(SelectItem::ExprWithAlias {
                        expr: values[i].clone(),
                        alias: Ident::with_quote('"', c.0.clone()),
                    });
                }
            }
            SelectItem::UnnamedExpr(e) if column_of(e).is_some() => {
                let i = column_of(e).expect("checked");
                out.push(SelectItem::ExprWithAlias {
                    expr: values[i].clone(),
                    alias: Ident::with_quote('"', target.columns[i].0.clone()),
                });
            }
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                let mut e = e.clone();
                let _ = sqlparser::ast::visit_expressions_mut(&mut e, |x| {
                    if let Some(i) = column_of(x) {
                        *x = Expr::Nested(Box::new(values[i].clone()));
                    }
                    ControlFlow::<()>::Continue(())
                });
                out.push(match item {
                    SelectItem::ExprWithAlias { alias, .. } => SelectItem::ExprWithAlias {
                        expr: e,
                        alias: alias.clone(),
                    },
                    _ => SelectItem::UnnamedExpr(e),
                });
            }
        }
    }
    Ok(out)
}

/// An action's RETURNING items, each `*` as its target's columns.
fn returning_values(
    cx: &Ctx<'_>,
    txn: &Transaction,
    items: &[SelectItem],
    action: &Statement,
) -> Result<Vec<Expr>, SqlError> {
    let mut values: Vec<Expr> = Vec::new();
    for item in items {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                values.push(e.clone())
            }
            _ => values.extend(action_columns(cx, txn, action)?),
        }
    }
    Ok(values)
}

/// PostgreSQL's 42P17 for a rule action's RETURNING list of `entries`
/// for a relation of `columns` columns.
fn check_returning_count(entries: usize, columns: usize) -> Result<(), SqlError> {
    let message = match entries.cmp(&columns) {
        std::cmp::Ordering::Equal => return Ok(()),
        std::cmp::Ordering::Greater => "RETURNING list has too many entries",
        std::cmp::Ordering::Less => "RETURNING list has too few entries",
    };
    Err(SqlError::new("42P17", message))
}

/// At CREATE RULE: the action's RETURNING list (if any) has an entry a
/// column of the rule's relation, of `columns` columns.
pub fn check_returning(
    cx: &Ctx<'_>,
    txn: &Transaction,
    action: &Statement,
    columns: usize,
) -> Result<(), SqlError> {
    let Some(items) = returning_of(action) else {
        return Ok(());
    };
    let resolved = crate::temp_tables::resolve_names(cx, txn, action)?;
    let action = resolved.as_ref().unwrap_or(action);
    check_returning_count(returning_values(cx, txn, items, action)?.len(), columns)
}

/// The columns of an action's target, as references qualified as the
/// action qualifies them (what its `RETURNING *` stands for).
fn action_columns(
    cx: &Ctx<'_>,
    txn: &Transaction,
    action: &Statement,
) -> Result<Vec<Expr>, SqlError> {
    let (name, qualifier) = match action {
        Statement::Insert(i) => match &i.table {
            TableObject::TableName(n) => (n.clone(), None),
            _ => return Err(SqlError::unsupported("RETURNING * of this rule action")),
        },
        Statement::Update { table, .. } => match &table.relation {
            TableFactor::Table { name, alias, .. } => {
                (name.clone(), alias.as_ref().map(|a| a.name.clone()))
            }
            _ => return Err(SqlError::unsupported("RETURNING * of this rule action")),
        },
        Statement::Delete(d) => match &d.from {
            FromTable::WithFromKeyword(f) | FromTable::WithoutKeyword(f) => match &f[0].relation {
                TableFactor::Table { name, alias, .. } => {
                    (name.clone(), alias.as_ref().map(|a| a.name.clone()))
                }
                _ => return Err(SqlError::unsupported("RETURNING * of this rule action")),
            },
        },
        _ => return Err(SqlError::unsupported("RETURNING * of this rule action")),
    };
    let qualifier = qualifier.unwrap_or_else(|| {
        name.0
            .last()
            .and_then(|p| p.as_ident())
            .cloned()
            .unwrap_or_else(|| Ident::new(""))
    });
    let stored = crate::temp_tables::resolve_name(cx, txn, &names::relation(&name)?)?;
    let columns: Vec<String> = match cx.db.catalog().view(txn, &stored)? {
        Some(view) => view.def.columns.iter().map(|c| c.name.clone()).collect(),
        None => (crate::access::relation(cx, txn, &stored)?
            .def
            .columns
            .iter())
        .map(|c| c.name.clone())
        .collect(),
    };
    Ok((columns.into_iter())
        .map(|c| Expr::CompoundIdentifier(vec![qualifier.clone(), Ident::with_quote('"', c)]))
        .collect())
}

/// The original statement as it runs after qualified INSTEAD rules:
/// their conditions (`negated`, as written) negated and ANDed in.
fn original_with(
    statement: &Statement,
    target: &Target,
    source: &Source,
    source_item: &TableWithJoins,
    negated: &[String],
) -> Result<Statement, SqlError> {
    if negated.is_empty() {
        return Ok(statement.clone());
    }
    let mut statement = statement.clone();
    let not_true = |text: &str, write: &dyn Fn(&str, usize) -> Result<Expr, SqlError>| {
        let mut expr = parse_expr(text)?;
        map_references(&mut expr, target, write)?;
        Ok::<_, SqlError>(Expr::IsNotTrue(Box::new(Expr::Nested(Box::new(expr)))))
    };
    match &mut statement {
        Statement::Insert(insert) => {
            // INSERT ... SELECT the source's rows that meet no condition.
            let in_source = |which: &str, i: usize| Ok(source_column(which, target, i));
            let mut selection = None;
            for text in negated {
                selection = Some(and(selection, not_true(text, &in_source)?));
            }
            let items: Vec<String> = (source.listed.iter())
                .map(|c| format!("{}.{}", quoted(SOURCE), quoted(&format!("new.{c}"))))
                .collect();
            let text = format!(
                "SELECT {} FROM {source_item} WHERE {}",
                match items.is_empty() {
                    true => "".to_string(),
                    false => items.join(", "),
                },
                selection.expect("a condition")
            );
            insert.columns = (source.listed.iter())
                .map(|c| Ident::with_quote('"', c.clone()))
                .collect();
            insert.source = Some(Box::new(parse_query(&text)?));
        }
        Statement::Update { selection, .. } => {
            let write = |which: &str, i: usize| {
                parse_expr(match which {
                    "new" => &source.new_in_original[i],
                    _ => &source.old_in_original[i],
                })
            };
            for text in negated {
                *selection = Some(and(selection.take(), not_true(text, &write)?));
            }
        }
        Statement::Delete(delete) => {
            let write = |_: &str, i: usize| parse_expr(&source.old_in_original[i]);
            for text in negated {
                delete.selection = Some(and(delete.selection.take(), not_true(text, &write)?));
            }
        }
        _ => {}
    }
    Ok(statement)
}

impl Fired {
    /// The original statement's part, if it runs (no unconditional
    /// INSTEAD rule dropped it).
    pub fn original_mut(&mut self) -> Option<&mut Plan> {
        (self.parts.iter_mut())
            .find(|(_, role)| *role == Role::Original)
            .map(|(plan, _)| plan)
    }

    /// Runs the parts in order: the status is the original's if it ran,
    /// else the last INSTEAD action's of the original's command, else
    /// the command's with no rows (PostgreSQL's "Rules and Command
    /// Status").
    pub fn run(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        env: &Env<'_>,
    ) -> Result<Output, SqlError> {
        let chosen = self.chosen();
        let mut out = None;
        let mut selected = None;
        for (i, (plan, role)) in self.parts.iter().enumerate() {
            let output = plan.run(cx, txn, env)?;
            if Some(i) == chosen {
                out = Some(output);
            } else if *role == Role::Other && matches!(output, Output::Rows { .. }) {
                selected = Some(output);
            }
        }
        let out = out.unwrap_or_else(|| Output::command(self.none.clone()));
        // A SELECT action's rows reach the client under the statement's
        // tag, as PostgreSQL sends them (the last such action's).
        Ok(match (out, selected) {
            (
                Output::Command { tag },
                Some(Output::Rows {
                    columns,
                    rows,
                    style,
                    ..
                }),
            ) => Output::Rows {
                columns,
                rows,
                tag,
                style,
            },
            (out, _) => out,
        })
    }

    /// The last SELECT action's part (its rows are the statement's
    /// when the chosen part returns none).
    fn selecting(&self) -> Option<usize> {
        (self.parts.iter())
            .rposition(|(plan, role)| *role == Role::Other && plan.columns().is_some())
    }

    /// The part whose status is the statement's.
    fn chosen(&self) -> Option<usize> {
        (self.parts.iter().position(|(_, r)| *r == Role::Original))
            .or_else(|| self.parts.iter().rposition(|(_, r)| *r == Role::Instead))
    }

    pub fn plans(&self) -> impl Iterator<Item = &Plan> {
        self.parts.iter().map(|(p, _)| p)
    }

    /// The RETURNING rows' names and types when the rules left one
    /// statement (a data-modifying CTE's: `check_in_with`), its.
    pub(crate) fn returning_shape(&self) -> Option<(Vec<String>, Vec<folio_row::SqlType>)> {
        match self.parts.as_slice() {
            [(plan, _)] => plan.returning_shape(),
            _ => None,
        }
    }

    /// The result columns (the chosen part's).
    pub fn columns(&self) -> Option<Vec<crate::output::Column>> {
        (self.chosen().and_then(|i| self.parts[i].0.columns()))
            .or_else(|| self.selecting().and_then(|i| self.parts[i].0.columns()))
    }
}
