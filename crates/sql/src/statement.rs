//! Statements that are planned once and run per execution (queries and
//! row changes), the unit a prepared statement keeps: [`plan`], then
//! [`Plan::run`] with the execution's parameters while [`Plan::is_current`]
//! (no DDL changed a relation it uses).

use crate::context::Ctx;
use crate::dml::{self, Change};
use crate::error::SqlError;
use crate::lookups::Lookups;
use crate::modifying_cte::Changes;
use crate::output::Output;
use crate::query::{self, Planned};
use crate::scalar::Env;
use crate::sequences;
use folio_catalog::Relation;
use folio_db::Transaction;
use sqlparser::ast::{Statement, UpdateTableFromKind};
use std::sync::Arc;

/// A planned statement and the sequences it names.
pub struct Plan {
    what: Kind,
    /// The sequences its calls (and the defaults of the table it writes)
    /// name, resolved at each run (`sequences.rs`); `None` when it calls
    /// no sequence function.
    sequences: Option<Vec<String>>,
    /// It looks the catalog up by oid or name (`lookups.rs`): each run
    /// reads what those lookups see first.
    lookups: bool,
    /// It calls `txid_current()`: each run gives the transaction its xid
    /// first (`xact_id.rs`).
    assigns_xid: bool,
    /// The views it expanded: it is made again when one changes.
    views: Vec<Arc<folio_catalog::View>>,
    /// The privileges it needs, checked at each run (`privileges.rs`).
    needs: Vec<crate::privileges::Need>,
    /// The SQL functions it expanded: it is made again when one changes
    /// (`sql_functions.rs`).
    functions: Vec<folio_catalog::FunctionDef>,
    /// Its relations' statistics versions when it was made, summed
    /// ([`statistics_mark`]): an ANALYZE since makes it again.
    statistics: u64,
    /// The relations it reads and changes ([`Plan::relations`]) as made,
    /// which each run of it checks are current without listing them
    /// again; empty for data-modifying CTEs, whose parts' plans check
    /// theirs.
    relations: Vec<Arc<Relation>>,
    /// The error a constant subexpression raised when folded
    /// (`fold.rs`): each run raises it first, as PostgreSQL's planning
    /// does.
    folded: Option<SqlError>,
}

/// A query or a row change.
enum Kind {
    Query(Box<Planned>),
    Change(Box<Change>),
    /// Data-modifying CTEs, then the rest (`modifying_cte.rs`).
    Changes(Box<Changes>),
    /// A row change of a view, run by its INSTEAD OF triggers
    /// (`instead_of.rs`).
    Instead(Box<crate::instead_of::Instead>),
    /// A row change rewritten by its target's rules (`rules.rs`).
    Rules(Box<crate::rules::Fired>),
}

/// Whether `statement` is planned (a query or a row change): the one
/// owner of that rule for prepared statements too.
pub fn plannable(statement: &Statement) -> bool {
    matches!(
        statement,
        Statement::Query(_)
            | Statement::Insert(_)
            | Statement::Update { .. }
            | Statement::Delete(_)
            | Statement::Merge { .. }
    )
}

/// The plan of `statement`, if it is a query or a row change (`None`:
/// another statement, run directly).
pub fn plan(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Option<Plan>, SqlError> {
    if !plannable(statement) {
        return Ok(None);
    }
    crate::sql_functions::clear_used();
    let outer = crate::fold::begin();
    let planned = crate::sql_functions::expand_statement(cx, txn, statement)
        .and_then(|expanded| plan_expanded(cx, txn, expanded.as_ref().unwrap_or(statement)));
    let folded = crate::fold::end(outer);
    let mut plan = planned?;
    if let Some(plan) = &mut plan {
        plan.functions = crate::sql_functions::take_used();
        plan.folded = folded;
    }
    Ok(plan)
}

/// [`plan`] of a statement whose SQL functions' calls are expanded.
fn plan_expanded(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Option<Plan>, SqlError> {
    // `SET (a, b) = ...`: planned as one item per column.
    if let Some(expanded) = crate::row_assignments::expand(statement)? {
        return plan_expanded(cx, txn, &expanded);
    }
    if let Statement::Query(q) = statement
        && crate::modifying_cte::has_any(q)
    {
        let changes = crate::modifying_cte::plan(cx, txn, q)?;
        let assigns_xid = crate::xact_id::assigns(statement);
        return Ok(Some(Plan::of_parts(
            cx,
            Kind::Changes(Box::new(changes)),
            assigns_xid,
        )));
    }
    if let Statement::Query(q) = statement
        && let Some((change, recursive)) = crate::cte::inline_change(q)?
    {
        // Its recursive CTEs are in scope while it is planned.
        let depth = cx.recursive.borrow().len();
        (cx.recursive.borrow_mut()).extend(recursive.into_iter().map(std::rc::Rc::new));
        let planned = plan_expanded(cx, txn, &change);
        cx.recursive.borrow_mut().truncate(depth);
        return planned;
    }
    cx.views.borrow_mut().clear();
    crate::cursors::current_of::refuse_view(cx, txn, statement)?;
    // Rules first, then INSTEAD OF triggers, then an updatable view's
    // rewrite, as PostgreSQL's rewriter orders them.
    if crate::rules::any()
        && let Some(fired) = crate::rules::plan(cx, txn, statement)?
    {
        return Ok(Some(Plan::of_parts(
            cx,
            Kind::Rules(Box::new(fired)),
            false,
        )));
    }
    if crate::instead_of::any()
        && let Some(instead) = crate::instead_of::plan(cx, txn, statement)?
    {
        return finish(cx, statement, Kind::Instead(Box::new(instead))).map(Some);
    }
    // A change of an updatable view is planned as the change of its
    // base table it stands for (down to a view with INSTEAD OF triggers,
    // if one is in the way).
    let rewritten = match statement {
        Statement::Insert(_) | Statement::Update { .. } | Statement::Delete(_) => {
            crate::updatable_views::rewrite(cx, txn, statement)?
        }
        _ => None,
    };
    let statement = rewritten.as_ref().map_or(statement, |r| &r.statement);
    // (Down to a relation with rules of the event: they rewrite it in
    // turn.)
    if let Some(rewritten) = &rewritten
        && crate::rules::any()
        && let Some(mut fired) = crate::rules::plan(cx, txn, statement)?
    {
        if let Some(change) = fired.original_mut().and_then(Plan::change_mut) {
            rewritten.apply_under_rules(change)?;
        }
        return Ok(Some(Plan::of_parts(
            cx,
            Kind::Rules(Box::new(fired)),
            false,
        )));
    }
    if let Some(rewritten) = &rewritten
        && crate::instead_of::any()
        && let Some(mut instead) = crate::instead_of::plan(cx, txn, statement)?
    {
        // (The check options of the views above judge the rows the
        // triggers return; the trigger view's own take no part.)
        instead.add_view_checks(rewritten.checks(instead.columns().as_slice())?);
        return finish(cx, statement, Kind::Instead(Box::new(instead))).map(Some);
    }
    let mut what = match statement {
        Statement::Query(q) => Kind::Query(Box::new(query::plan_query(cx, txn, q)?)),
        Statement::Insert(insert) => Kind::Change(Box::new(dml::plan_insert(cx, txn, insert)?)),
        Statement::Update {
            table,
            assignments,
            from,
            selection,
            returning,
            or: None,
            limit: None,
        } => Kind::Change(Box::new(dml::plan_update(
            cx,
            txn,
            table,
            assignments,
            match from {
                None => None,
                Some(UpdateTableFromKind::AfterSet(items)) => Some(items),
                Some(UpdateTableFromKind::BeforeSet(_)) => {
                    return Err(SqlError::syntax("syntax error at or near \"FROM\""));
                }
            },
            selection.as_ref(),
            returning.as_deref(),
        )?)),
        Statement::Delete(delete) => Kind::Change(Box::new(dml::plan_delete(cx, txn, delete)?)),
        Statement::Merge { .. } => Kind::Change(Box::new(crate::merge::plan(cx, txn, statement)?)),
        _ => return Ok(None),
    };
    if let (Some(rewritten), Kind::Change(change)) = (&rewritten, &mut what) {
        rewritten.apply(cx, change)?;
    }
    finish(cx, statement, what).map(Some)
}

/// The plan of one statement a rule rewrite made (`rules.rs`): planned
/// as any, its SQL functions' calls expanded.
pub(crate) fn plan_part(
    cx: &Ctx<'_>,
    txn: &Transaction,
    statement: &Statement,
) -> Result<Plan, SqlError> {
    let expanded = crate::sql_functions::expand_statement(cx, txn, statement)?;
    plan_expanded(cx, txn, expanded.as_ref().unwrap_or(statement))?
        .ok_or_else(|| SqlError::unsupported("this statement in a rule action"))
}

/// The plan of `insert` (an `INSERT INTO name query`) into `relation`,
/// whatever its kind: how a materialized view is filled (`matviews.rs`;
/// a row change may not name one).
pub fn plan_fill(
    cx: &Ctx<'_>,
    txn: &Transaction,
    insert: &Statement,
    name: &str,
    relation: Arc<Relation>,
) -> Result<Plan, SqlError> {
    cx.views.borrow_mut().clear();
    let expanded = crate::sql_functions::expand_statement(cx, txn, insert)?;
    let insert = expanded.as_ref().unwrap_or(insert);
    let Statement::Insert(i) = insert else {
        unreachable!("plan_fill of another statement");
    };
    let what = Kind::Change(Box::new(dml::plan_insert_into(cx, txn, i, name, relation)?));
    finish(cx, insert, what)
}

/// The plan of `statement` planned as `what`: the sequences and catalog
/// lookups it and the views it expanded need.
fn finish(cx: &Ctx<'_>, statement: &Statement, what: Kind) -> Result<Plan, SqlError> {
    let mut names = Vec::new();
    let mut calls = sequences::names_in(statement, &mut names)?;
    let mut lookups = crate::lookups::needed(statement);
    if let Kind::Change(change) = &what {
        if change.defaults_look_up() {
            calls = true;
            lookups = true;
        }
        for name in change.default_sequences() {
            calls = true;
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    // A view's query counts as the statement's.
    let used = std::mem::take(&mut *cx.views.borrow_mut());
    let mut assigns_xid = crate::xact_id::assigns(statement);
    for u in &used {
        calls |= sequences::names_in(&u.query, &mut names)?;
        lookups |= crate::lookups::needed(&u.query);
        assigns_xid |= crate::xact_id::assigns(&u.query);
    }
    let mut plan = Plan {
        what,
        sequences: calls.then_some(names),
        lookups,
        assigns_xid,
        views: used.into_iter().map(|u| u.view).collect(),
        needs: std::mem::take(&mut *cx.needs.borrow_mut()),
        functions: Vec::new(),
        statistics: 0,
        relations: Vec::new(),
        folded: None,
    };
    plan.relations = plan.relations().into_iter().cloned().collect();
    plan.statistics = statistics_mark(&plan.relations);
    Ok(plan)
}

/// The sum of `relations`' statistics versions: it moves whenever one of
/// them is analyzed (versions only grow), which is when PostgreSQL's plan
/// cache would drop a plan that uses it. A plan records it after it was
/// made, so an ANALYZE that lands while it is being made can leave it with
/// the older statistics until the next one: a worse plan, never a wrong
/// result.
fn statistics_mark(relations: &[Arc<Relation>]) -> u64 {
    relations
        .iter()
        .map(|r| r.statistics_version())
        .fold(0, u64::wrapping_add)
}

/// A plan kept to run again: a prepared statement's, a PL/pgSQL body
/// statement's (`plpgsql/plan_cache.rs`). [`Kept::is_current`] is the
/// one rule of when it may (README "Plans and prepared statements").
pub struct Kept {
    plan: Plan,
    /// The calls of PL/pgSQL functions taken out of the statement before
    /// it was planned, run before the plan at each run
    /// (`plpgsql/calls.rs`).
    calls: crate::plpgsql::calls::Calls,
    /// The session's relation cache generation when it was made.
    made: u64,
}

impl Kept {
    /// The plan of `statement` (a query or row change with `params`
    /// parameters) to keep: its temporary tables resolved, its folded
    /// PL/pgSQL calls taken out, planned; `None` for another statement.
    pub fn make(
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        statement: &Statement,
        params: usize,
    ) -> Result<Option<Kept>, SqlError> {
        let made = cx.relations.generation();
        let resolved = crate::temp_tables::resolve(cx, txn, statement)?;
        let statement = resolved.as_ref().unwrap_or(statement);
        let (taken, calls) = match crate::plpgsql::calls::take_out(statement, params)? {
            Some((taken, calls)) => (Some(taken), calls),
            None => (None, Default::default()),
        };
        let statement = taken.as_ref().unwrap_or(statement);
        Ok(plan(cx, txn, statement)?.map(|plan| Kept { plan, calls, made }))
    }

    /// Whether it may run again: the session ran no DDL and changed no
    /// `search_path` since it was made (`Relations::generation`), no DDL
    /// (of any session) changed a relation or view it uses, and no
    /// function it expanded or calls was replaced or dropped.
    pub fn is_current(&self, cx: &Ctx<'_>, txn: &Transaction) -> Result<bool, SqlError> {
        Ok(self.made == cx.relations.generation()
            && self.calls.is_current()
            && self.plan.is_current(txn)?)
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    pub fn calls(&self) -> &crate::plpgsql::calls::Calls {
        &self.calls
    }
}

impl Plan {
    /// The row change it is, if it is one of one relation.
    pub(crate) fn change_mut(&mut self) -> Option<&mut Change> {
        match &mut self.what {
            Kind::Change(change) => Some(change),
            _ => None,
        }
    }

    /// A plan made of statements planned each on its own (a WITH's
    /// data-modifying parts, a rule's parts): nothing of its own to
    /// check or count; what planning them needed is taken from `cx`.
    fn of_parts(cx: &Ctx<'_>, what: Kind, assigns_xid: bool) -> Plan {
        Plan {
            what,
            sequences: None,
            lookups: false,
            assigns_xid,
            views: Vec::new(),
            needs: std::mem::take(&mut *cx.needs.borrow_mut()),
            functions: Vec::new(),
            statistics: 0,
            relations: Vec::new(),
            folded: None,
        }
    }

    /// The planned query, if it is a plain query (no data-modifying CTE).
    pub fn query(&self) -> Option<&Planned> {
        match &self.what {
            Kind::Query(planned) => Some(planned),
            _ => None,
        }
    }

    /// The query whose rows it returns, also the last part of a query
    /// with data-modifying CTEs.
    pub(crate) fn result_query(&self) -> Option<&Planned> {
        match &self.what {
            Kind::Changes(changes) => changes.then.result_query(),
            _ => self.query(),
        }
    }

    /// The error folding raised while it was planned (`fold.rs`).
    pub fn folded(&self) -> Option<&SqlError> {
        self.folded.as_ref()
    }

    /// Whether the session's role may run the plan: checked at each run
    /// (and each EXPLAIN of a kept plan), so a kept plan checks the role
    /// as it is now (a superuser without reading anything).
    pub fn check_privileges(&self, cx: &Ctx<'_>) -> Result<(), SqlError> {
        crate::privileges::check_all(cx, &self.needs)?;
        (self.functions.iter()).try_for_each(|f| crate::routine_privileges::check_execute(cx, f))
    }

    /// A READ ONLY transaction may not run a plan that changes a relation
    /// other than a temporary table: 25006 before it runs, whether it
    /// would change a row or not, as PostgreSQL's executor checks as it
    /// starts (so a prepared UPDATE refuses at EXECUTE, not at PREPARE).
    /// The relations it changes are those it needs INSERT, UPDATE or
    /// DELETE on; the session names the command in the message
    /// (`session.rs` `name_read_only_write`). (A write that gets past
    /// this, a temporary table's, still needs an xid, which folio-txn
    /// refuses a READ ONLY transaction.)
    fn check_read_only(&self) -> Result<(), SqlError> {
        use crate::privileges::{DELETE, INSERT, UPDATE};
        let temporary = |oid: u64| {
            (self.relations.iter())
                .any(|r| r.def.oid == oid && folio_catalog::split_temp_name(&r.def.name).is_some())
        };
        let refused = (self.needs.iter()).any(|need| {
            need.privilege & (INSERT | UPDATE | DELETE) != 0
                && need.kind != "sequence"
                && !temporary(need.relation)
        });
        match refused {
            true => Err(SqlError::new(
                "25006",
                "cannot execute a row change in a read-only transaction",
            )),
            false => Ok(()),
        }
    }

    /// Runs the plan (its sequences resolved for this run).
    pub fn run(
        &self,
        cx: &Ctx<'_>,
        txn: &mut Transaction,
        env: &Env<'_>,
    ) -> Result<Output, SqlError> {
        if let Some(error) = &self.folded {
            return Err(error.clone());
        }
        self.check_privileges(cx)?;
        if txn.is_read_only() {
            self.check_read_only()?;
        }
        if self.assigns_xid {
            txn.top_xid().map_err(|e| match e {
                folio_txn::TxnError::ReadOnly => crate::xact_id::read_only(),
                e => e.into(),
            })?;
        }
        cx.backend.set_statement_snapshot(txn.snapshot().0);
        let with_advisory = Env {
            advisory: Some(cx.advisory),
            backend: Some(cx.backend),
            // Calls of PL/pgSQL functions may run (`plpgsql/row_calls.rs`).
            cx: crate::plpgsql::row_calls::cx_of(cx),
            ..*env
        };
        let env = &with_advisory;
        let calls;
        let with_sequences;
        let env = match &self.sequences {
            None => env,
            Some(names) => {
                calls = sequences::Calls::resolve(cx, txn, names)?;
                with_sequences = Env {
                    sequences: Some(&calls),
                    ..*env
                };
                &with_sequences
            }
        };
        let lookups;
        let with_lookups;
        let env = match self.lookups {
            false => env,
            true => {
                lookups = Lookups::of_session(cx, txn)?;
                with_lookups = Env {
                    lookups: Some(&lookups),
                    ..*env
                };
                &with_lookups
            }
        };
        let out = match &self.what {
            Kind::Query(planned) => planned.output(txn, env),
            Kind::Change(change) => change.run(cx, txn, env),
            Kind::Instead(instead) => instead.run(cx, txn, env),
            Kind::Rules(fired) => fired.run(cx, txn, env),
            Kind::Changes(changes) => changes.run(cx, txn, env),
        };
        out.map_err(|e| crate::failing_row::redact(cx, txn, &self.needs, e))
    }

    /// Whether every relation it uses is still current for `txn`.
    pub fn is_current(&self, txn: &Transaction) -> Result<bool, SqlError> {
        if !crate::sql_functions::is_current(&self.functions) {
            return Ok(false);
        }
        // Its parts' own plans check their relations and views.
        if let Kind::Changes(changes) = &self.what {
            for plan in changes.plans() {
                if !plan.is_current(txn)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        if let Kind::Rules(fired) = &self.what {
            for plan in fired.plans() {
                if !plan.is_current(txn)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        for relation in &self.relations {
            if !relation.is_current(txn)? {
                return Ok(false);
            }
        }
        if statistics_mark(&self.relations) != self.statistics {
            return Ok(false);
        }
        for view in &self.views {
            if !view.is_current(txn)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

impl Plan {
    /// The types of its parameters: `declared[n]` for `$n + 1` where one
    /// was declared, else as PostgreSQL infers them from what each meets
    /// (a cast, a column, a typed value, an insert's target column);
    /// `text` where nothing tells (PostgreSQL: `unknown`, sent as text).
    /// README "Parameter types".
    pub fn param_types(
        &self,
        declared: Vec<Option<folio_row::SqlType>>,
    ) -> Vec<folio_row::SqlType> {
        let mut types = declared;
        self.infer_params(&mut types);
        types
            .into_iter()
            .map(|t| t.unwrap_or(folio_row::SqlType::Text))
            .collect()
    }

    fn infer_params(&self, types: &mut [Option<folio_row::SqlType>]) {
        match &self.what {
            Kind::Query(planned) => planned.param_types(types),
            Kind::Change(change) => change.param_types(types),
            Kind::Instead(instead) => instead.param_types(types),
            Kind::Rules(fired) => {
                for plan in fired.plans() {
                    plan.infer_params(types);
                }
            }
            Kind::Changes(changes) => {
                for plan in changes.plans() {
                    plan.infer_params(types);
                }
            }
        }
    }

    /// The result columns it returns (`None`: it returns no rows).
    pub fn columns(&self) -> Option<Vec<crate::output::Column>> {
        match &self.what {
            Kind::Query(planned) => Some(planned.columns.clone()),
            Kind::Change(change) => change.returning_columns(),
            Kind::Instead(instead) => instead.returning_columns(),
            Kind::Rules(fired) => fired.columns(),
            Kind::Changes(changes) => changes.then.columns(),
        }
    }

    /// The relations it reads and changes, those of its parts included.
    pub(crate) fn relations(&self) -> Vec<&Arc<Relation>> {
        match &self.what {
            Kind::Query(planned) => planned.relations(),
            Kind::Change(change) => change.relations(),
            Kind::Instead(instead) => instead.relations(),
            Kind::Rules(fired) => fired.plans().flat_map(|p| p.relations()).collect(),
            Kind::Changes(changes) => changes.plans().flat_map(|p| p.relations()).collect(),
        }
    }

    /// The row change it is, if it is one (not a view's INSTEAD OF
    /// triggers' nor data-modifying CTEs').
    pub(crate) fn change(&self) -> Option<&Change> {
        match &self.what {
            Kind::Change(change) => Some(change),
            _ => None,
        }
    }

    /// The names and types of the rows a row change's RETURNING gives.
    pub(crate) fn returning_shape(&self) -> Option<(Vec<String>, Vec<folio_row::SqlType>)> {
        match &self.what {
            Kind::Change(change) => change.returning_shape(),
            Kind::Instead(instead) => instead.returning_shape(),
            Kind::Rules(fired) => fired.returning_shape(),
            _ => None,
        }
    }
}
