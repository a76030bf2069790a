//! The interpreter: runs a parsed [`Block`] in the statement's
//! transaction (README "PL/pgSQL").
//!
//! - **Variables** live in one stack, innermost last; a block's are
//!   popped when it ends. Each has a type (a record takes the shape of
//!   the row assigned to it) and a value.
//! - **SQL with variables.** A query or row change has each name of a
//!   variable in scope (`x`, `r.f`, `label.x`, `$n` of a function's
//!   argument) replaced by `CAST($k AS type)` and the values passed as
//!   the statement's parameters, never as text, so quoting and types
//!   behave as PostgreSQL's. A name that is both a column and a variable
//!   means the variable (PostgreSQL's default is an ambiguity error).
//!   Utility statements (DDL) take no variables, as in PostgreSQL: use
//!   EXECUTE.
//! - **Exceptions.** A block with handlers runs in a savepoint of the
//!   transaction (PostgreSQL's subtransaction); an error a handler takes
//!   rolls the savepoint back (with the deferred checks queued since
//!   and the session's relation cache) and runs the handler, with
//!   `SQLSTATE` and `SQLERRM` set.

#[path = "cursor_statements.rs"]
mod cursor_statements;

use super::conditions;
use super::conversion;
use super::extra_checks;
use super::parse::{Block, Condition, CursorDecl, DeclType, Into, LoopKind, Raise, Sql, Stmt};
use super::plan_cache::{KeptSql, Stamp};
use super::set_returning::ResultRows;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Column, Notice, Output};
use crate::parse::Parsed;
use crate::transaction_control::{self, Ending};
use folio_catalog::ObjectLists;
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    AccessExpr, BinaryOperator, CastKind, DataType, Expr, Ident, Set, Statement, Subscript,
    TransactionMode, Value as AstValue, ValueWithSpan, VisitMut, VisitorMut, visit_expressions_mut,
};
use std::ops::ControlFlow;
use std::sync::Arc;

/// `TG_ARGV[i]` counts from 0 (PostgreSQL's), folio's arrays from 1:
/// each subscript of it is moved up by one before the name is bound.
struct ArgvFromZero;

impl VisitorMut for ArgvFromZero {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::CompoundFieldAccess { root, access_chain } = expr
            && let Expr::Identifier(id) = root.as_ref()
            && ident(id) == "tg_argv"
            && let [AccessExpr::Subscript(Subscript::Index { index })] = access_chain.as_mut_slice()
        {
            let from_zero = std::mem::replace(index, Expr::value(AstValue::Null));
            *index = Expr::BinaryOp {
                left: Box::new(Expr::Nested(Box::new(from_zero))),
                op: BinaryOperator::Plus,
                right: Box::new(Expr::value(AstValue::Number("1".into(), false))),
            };
        }
        ControlFlow::Continue(())
    }
}

/// Loops may run this many iterations in one body's run before
/// PostgreSQL's users would have hit a statement timeout; a bound so a
/// body cannot spin forever without a cancel check (each iteration
/// checks the session's cancel flag through its statements).
const MAX_ITERATIONS: u64 = 1 << 40;

/// A variable.
#[derive(Debug, Clone)]
struct Var {
    name: String,
    /// The label of the block that declared it (a function's name for
    /// its arguments).
    label: Option<String>,
    kind: Kind,
    value: Value,
    constant: bool,
    not_null: bool,
    /// A bound cursor's declaration (its variable is a `refcursor`).
    bound: Option<Arc<CursorDecl>>,
    /// The rules of its domain, for a variable of a domain type: every
    /// value it takes must meet them (its first NULL too).
    domain: Option<Arc<crate::domains::Bound>>,
}

#[derive(Debug, Clone)]
enum Kind {
    Scalar(SqlType),
    /// Its fields' names and types once assigned (the value is a
    /// `Value::Record` of them).
    Record(Option<Vec<(String, SqlType)>>),
    /// A `%ROWTYPE` (or table-typed) variable: a record of a table's
    /// columns, its shape fixed (a row assigned to it is cast field by
    /// field); it starts as a row of NULLs.
    Row(Vec<(String, SqlType)>),
    /// Another name of the variable at this index.
    Alias(usize),
}

impl Kind {
    /// The fields of a variable of this kind, by which `v.f` reads and
    /// sets them: a record's once assigned (`Some(None)` before), a
    /// row's, a composite type's (`DECLARE v t` of `CREATE TYPE t AS
    /// (...)`); `None` for a variable of another type.
    fn fields(&self) -> Option<Option<&[(String, SqlType)]>> {
        match self {
            Kind::Record(shape) => Some(shape.as_deref()),
            Kind::Row(shape) => Some(Some(shape)),
            Kind::Scalar(SqlType::Composite(c)) => Some(Some(&c.fields)),
            Kind::Scalar(_) | Kind::Alias(_) => None,
        }
    }
}

/// What gave the rows an INTO takes.
enum Rows<'s> {
    /// A SQL statement of the body.
    Statement(&'s Sql),
    /// EXECUTE, with its USING values.
    Execute(&'s [Value]),
    /// FETCH.
    Fetch,
}

/// How a statement ended.
enum Flow {
    Next,
    Exit(Option<String>),
    Continue(Option<String>),
    Return(Value),
}

/// A running body.
pub struct Runner<'a, 'c> {
    cx: &'a Ctx<'c>,
    txn: &'a mut Transaction,
    notices: &'a mut Vec<Notice>,
    vars: Vec<Var>,
    /// `GET DIAGNOSTICS ... ROW_COUNT`.
    row_count: u64,
    /// The errors being handled, innermost last (`RAISE;`).
    handling: Vec<SqlError>,
    /// The object lists the statements see (refreshed per statement, so
    /// a type created by one is seen by the next), first the calling
    /// statement's.
    kept: Option<Arc<ObjectLists>>,
    savepoints: u64,
    /// A set-returning function's rows so far (`set_returning.rs`).
    set: Option<ResultRows>,
    /// The body is a STABLE or IMMUTABLE function's: its statements may
    /// not change rows (`refuse_change`).
    read_only: bool,
    /// The body is a function's kept by the session's plan cache: its
    /// queries and row changes run kept plans (`plan_cache.rs`).
    cached: Option<Stamp>,
    /// The body is a non-atomic call's (a procedure's or DO block's run
    /// outside a block): it may COMMIT and ROLLBACK, and passes that on
    /// to the CALL and DO statements it runs (`transaction_control.rs`).
    nonatomic: bool,
    /// How many FOR loops over a row change's RETURNING rows are running
    /// (a COMMIT or ROLLBACK in one is 55000).
    writing_loops: usize,
    /// No statement has run since the body's COMMIT or ROLLBACK: SET
    /// TRANSACTION may still choose the isolation level.
    fresh: bool,
    /// The body's `#print_strict_params on | off`, if it has one.
    print_strict_params: Option<bool>,
}

/// A statement with its variables bound: each name of a variable
/// replaced by a typed parameter.
struct Bound {
    statement: Statement,
    params: Vec<Value>,
    /// The variable (or record field) each parameter is.
    names: Vec<Vec<String>>,
    types: Vec<SqlType>,
    /// Bound with values as they are now, so the statement is not kept:
    /// a record variable named whole (its fields are parameters; a
    /// later shape may differ), a cursor variable's value written for
    /// its name in `WHERE CURRENT OF`.
    per_run: bool,
}

impl<'a, 'c> Runner<'a, 'c> {
    pub fn new(
        cx: &'a Ctx<'c>,
        txn: &'a mut Transaction,
        notices: &'a mut Vec<Notice>,
    ) -> Runner<'a, 'c> {
        let mut runner = Runner {
            cx,
            txn,
            notices,
            vars: Vec::new(),
            row_count: 0,
            handling: Vec::new(),
            kept: crate::object_scope::current(),
            savepoints: 0,
            set: None,
            read_only: false,
            cached: None,
            nonatomic: false,
            writing_loops: 0,
            fresh: false,
            print_strict_params: None,
        };
        runner.declare("found", None, SqlType::Bool, Value::Bool(false));
        runner
    }

    /// Runs the body as a STABLE or IMMUTABLE function's, whose
    /// statements may not change rows (PostgreSQL's read-only SPI).
    pub fn read_only(&mut self) {
        self.read_only = true;
    }

    /// Runs the body as a non-atomic call's: it may end its transaction.
    pub fn nonatomic(&mut self) {
        self.nonatomic = true;
    }

    /// COMMIT or ROLLBACK in the body: the running transaction ends and
    /// the next begins in its place (`transaction_control.rs`).
    fn end_transaction(&mut self, ending: Ending) -> Result<(), SqlError> {
        transaction_control::check_may_end(self.nonatomic, self.txn, ending)?;
        if self.writing_loops > 0 {
            return Err(SqlError::new(
                "55000",
                "cannot perform transaction commands inside a cursor loop that is not read-only",
            ));
        }
        transaction_control::restart(self.cx, self.txn, ending)?;
        // The next statement reads the object lists afresh.
        self.kept = None;
        self.fresh = true;
        Ok(())
    }

    /// `SET TRANSACTION` in the body: a new isolation level only before
    /// the transaction's first statement (25001 after, as in PostgreSQL,
    /// where a DO or CALL's own transaction has always read), the access
    /// mode at any time.
    fn set_transaction(&mut self, modes: &[TransactionMode]) -> Result<Output, SqlError> {
        let modes = crate::transaction_modes::read(modes, None)?;
        if let Some(isolation) = modes.isolation
            && isolation != self.txn.isolation()
        {
            if !self.fresh {
                return Err(SqlError::new(
                    "25001",
                    "SET TRANSACTION ISOLATION LEVEL must be called before any query",
                ));
            }
            transaction_control::begin_again(self.cx, self.txn, isolation)?;
        }
        if let Some(read_only) = modes.read_only {
            self.txn.set_read_only(read_only);
            transaction_control::began(self.cx, self.txn);
        }
        Ok(Output::command("SET"))
    }

    /// Runs the body as the function's whose kept body `stamp` names: its
    /// queries and row changes run the session's kept plans.
    pub fn cached(&mut self, stamp: Stamp) {
        self.cached = Some(stamp);
    }

    /// Declares a function's argument (or any variable) of a scalar type.
    pub fn declare(&mut self, name: &str, label: Option<&str>, ty: SqlType, value: Value) {
        self.vars.push(Var {
            name: name.to_string(),
            label: label.map(str::to_string),
            kind: Kind::Scalar(ty),
            value,
            constant: false,
            not_null: false,
            bound: None,
            domain: None,
        });
    }

    /// Declares a record variable of fields `shape` holding `value` (a
    /// `Value::Record` of them, or NULL): a trigger's `NEW` and `OLD`.
    pub fn declare_record(&mut self, name: &str, shape: Vec<(String, SqlType)>, value: Value) {
        self.vars.push(Var {
            name: name.to_string(),
            label: None,
            kind: Kind::Record(Some(shape)),
            value,
            constant: false,
            not_null: false,
            bound: None,
            domain: None,
        });
    }

    /// Declares `name` another name of the variable declared last (a
    /// named argument's `$n`).
    /// The value of variable `name` (the innermost of that name).
    pub fn value(&self, name: &str) -> Option<Value> {
        let at = self.var_index(&[name.to_string()])?;
        Some(self.resolved(at).value.clone())
    }

    pub fn alias_last(&mut self, name: &str) {
        self.alias_of(self.vars.len() - 1, name);
    }

    /// Declares `alias` as another name of variable `target`.
    fn alias_of(&mut self, target: usize, alias: &str) {
        let label = self.vars[target].label.clone();
        self.vars.push(Var {
            name: alias.to_string(),
            label,
            kind: Kind::Alias(target),
            value: Value::Null,
            constant: false,
            not_null: false,
            bound: None,
            domain: None,
        });
    }

    /// Makes the body a set-returning function's, collecting `rows`: its
    /// OUT variables (`RETURNS TABLE`'s columns) are declared, labelled
    /// `label`.
    pub fn collect_rows(&mut self, rows: ResultRows, label: &str) -> Result<(), SqlError> {
        let outputs = rows.out_variables();
        self.declare_outputs(&outputs, label);
        self.set = Some(rows);
        Ok(())
    }

    /// Declares a function's output variables (OUT parameters, `RETURNS
    /// TABLE`'s columns), NULL, labelled `label`; an INOUT one is its
    /// argument's variable, already declared.
    pub fn declare_outputs(&mut self, outputs: &[(String, SqlType)], label: &str) {
        for (name, ty) in outputs {
            if self.var_index(std::slice::from_ref(name)).is_none() {
                self.declare(name, Some(label), *ty, Value::Null);
            }
        }
    }

    /// Declares `alias` as another name of variable `name`, if declared.
    pub fn alias_named(&mut self, name: &str, alias: &str) {
        if let Some(target) = self.var_index(&[name.to_string()]) {
            self.alias_of(target, alias);
        }
    }

    /// The value of variable `name` (NULL when there is none).
    pub fn value_of(&self, name: &str) -> Value {
        match self.var_index(&[name.to_string()]) {
            Some(at) => self.resolved(at).value.clone(),
            None => Value::Null,
        }
    }

    /// The rows a set-returning function's body collected.
    pub fn take_rows(&mut self) -> Option<ResultRows> {
        self.set.take()
    }

    /// The collected rows, or the error of RETURN NEXT / QUERY (`what`)
    /// outside a set-returning function.
    fn rows_mut(&mut self, what: &str) -> Result<&mut ResultRows, SqlError> {
        self.set.as_mut().ok_or_else(|| {
            SqlError::new(
                "42804",
                format!("cannot use {what} in a non-SETOF function"),
            )
        })
    }

    /// Runs `block` (a DO's or a function's body): what RETURN gave, if
    /// it ran.
    pub fn run(&mut self, block: &Block) -> Result<Option<Value>, SqlError> {
        self.print_strict_params = block.print_strict_params;
        match self.block(block)? {
            Flow::Return(v) => Ok(Some(v)),
            Flow::Next => Ok(None),
            Flow::Exit(_) | Flow::Continue(_) => Err(SqlError::syntax(
                "EXIT cannot be used outside a loop, unless it has a label",
            )),
        }
    }

    fn block(&mut self, block: &Block) -> Result<Flow, SqlError> {
        crate::stack::check()?;
        let depth = self.vars.len();
        // The declarations run before the block's savepoint: an error in
        // one reaches the enclosing block's handlers, not this block's,
        // as in PostgreSQL.
        let flow = self.declarations(block).and_then(|()| {
            if block.handlers.is_empty() {
                self.stmts(&block.body)
            } else {
                self.guarded(block)
            }
        });
        self.vars.truncate(depth);
        match flow? {
            Flow::Exit(Some(l)) if block.label.as_deref() == Some(l.as_str()) => Ok(Flow::Next),
            other => Ok(other),
        }
    }

    /// Declares `block`'s variables, in order, each with its default.
    fn declarations(&mut self, block: &Block) -> Result<(), SqlError> {
        for decl in &block.decls {
            let mut bound = None;
            let domain = match &decl.ty {
                DeclType::Type(ty) => crate::domains::rules_of_type(ty)?,
                _ => None,
            };
            let (kind, value) = match &decl.ty {
                // PostgreSQL 15's bound cursor variable holds its own name.
                DeclType::Cursor(cursor) => {
                    bound = Some(cursor.clone());
                    let name = Value::Text(decl.name.clone());
                    (Kind::Scalar(SqlType::Refcursor), name)
                }
                DeclType::Record => (Kind::Record(None), Value::Null),
                DeclType::Type(ty) => match self.sql_type(ty) {
                    Ok(ty) if !crate::user_types::is_relation_type(ty) => {
                        (Kind::Scalar(ty), Value::Null)
                    }
                    Ok(_) => match ty {
                        DataType::Custom(name, _) => {
                            let table = crate::names::relation(name)?;
                            empty_row(self.row_shape(&table)?)
                        }
                        _ => return Err(SqlError::new("XX000", "a row type not named")),
                    },
                    // A table's name is its row type.
                    Err(e) => match ty {
                        DataType::Custom(name, modifiers) if modifiers.is_empty() => {
                            let table = crate::names::relation(name)?;
                            empty_row(self.row_shape(&table).map_err(|_| e)?)
                        }
                        _ => return Err(e),
                    },
                },
                DeclType::TypeOf(name) => (Kind::Scalar(self.type_of(name)?), Value::Null),
                DeclType::RowType(name) => {
                    let parts: Vec<Ident> = (name.iter())
                        .map(|p| Ident::with_quote('"', p.as_str()))
                        .collect();
                    let table = crate::names::relation(&sqlparser::ast::ObjectName::from(parts))?;
                    empty_row(self.row_shape(&table)?)
                }
                DeclType::Alias(target) => {
                    let at = self.alias_target(target)?;
                    (Kind::Alias(at), Value::Null)
                }
            };
            // The default is evaluated before the variable is declared: it
            // cannot read itself (PostgreSQL's 42703 for `x int := x + 1`;
            // an outer block's `x` is read).
            let initial = match &decl.default {
                Some(default) => Some(self.eval(default)?),
                None => None,
            };
            self.vars.push(Var {
                name: decl.name.clone(),
                label: block.label.clone(),
                kind,
                value,
                constant: false,
                not_null: decl.not_null,
                bound,
                domain,
            });
            let at = self.vars.len() - 1;
            match initial {
                Some((value, ty)) => self.assign_at(at, value, ty)?,
                None if decl.not_null => {
                    return Err(null_to_not_null(&decl.name));
                }
                None => self.meets_domain(at)?,
            }
            self.vars[at].constant = decl.constant;
        }
        Ok(())
    }

    /// The statements of a block with handlers, in a savepoint. A handler
    /// sees the block's variables as the statements left them (their
    /// values are not rolled back, as in PostgreSQL), with `SQLSTATE` and
    /// `SQLERRM` of its own.
    fn guarded(&mut self, block: &Block) -> Result<Flow, SqlError> {
        self.savepoints += 1;
        let name = format!("$plpgsql:{}", self.savepoints);
        self.txn.savepoint(&name)?;
        let mark = self.cx.deferred.mark();
        let cursors_mark = crate::cursors::current().map(|s| s.cursors.opened());
        let depth = self.vars.len();
        let error = match self.stmts(&block.body) {
            Ok(flow) => {
                self.txn.release(&name)?;
                return Ok(flow);
            }
            Err(e) => e,
        };
        let Some(handler) = (block.handlers.iter()).find(|h| {
            h.conditions
                .iter()
                .any(|c| conditions::catches(c, error.code))
        }) else {
            return Err(error);
        };
        self.txn.rollback_to(&name)?;
        self.txn.release(&name)?;
        self.cx.deferred.rollback_to(&mark);
        if let (Some(scope), Some(mark)) = (crate::cursors::current(), cursors_mark) {
            scope.cursors.close_opened_since(mark);
        }
        self.cx.relations.ddl();
        self.kept = None;
        // Nested blocks' variables are gone already; the block's own stay.
        self.vars.truncate(depth);
        self.declare(
            "sqlstate",
            None,
            SqlType::Text,
            Value::Text(error.code.to_string()),
        );
        self.declare(
            "sqlerrm",
            None,
            SqlType::Text,
            Value::Text(error.message.clone()),
        );
        self.handling.push(error);
        let flow = self.stmts(&handler.body);
        self.handling.pop();
        flow
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> Result<Flow, SqlError> {
        for stmt in stmts {
            match self.stmt(stmt)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn stmt(&mut self, stmt: &Stmt) -> Result<Flow, SqlError> {
        match stmt {
            Stmt::Null => {}
            Stmt::Block(b) => return self.block(b),
            Stmt::Assign { target, value } => {
                let (value, ty) = self.eval(value)?;
                self.assign(target, value, ty)?;
            }
            Stmt::If {
                branches,
                otherwise,
            } => {
                for (cond, body) in branches {
                    if self.condition(cond)? {
                        return self.stmts(body);
                    }
                }
                if let Some(body) = otherwise {
                    return self.stmts(body);
                }
            }
            Stmt::Case {
                operand,
                branches,
                otherwise,
            } => {
                let operand = match operand {
                    Some(o) => Some(self.eval(o)?.0),
                    None => None,
                };
                for (when, body) in branches {
                    let hit = match &operand {
                        None => self.condition(when)?,
                        Some(v) => {
                            let row = self.row(when)?;
                            let mut hit = false;
                            for candidate in row {
                                if crate::scalar::compare(v, &candidate)?.is_some_and(|o| o.is_eq())
                                {
                                    hit = true;
                                }
                            }
                            hit
                        }
                    };
                    if hit {
                        return self.stmts(body);
                    }
                }
                match otherwise {
                    Some(body) => return self.stmts(body),
                    None => {
                        return Err(SqlError::new("20000", "case not found")
                            .with_hint("CASE statement is missing ELSE part."));
                    }
                }
            }
            Stmt::Loop { label, kind, body } => return self.looped(label, kind, body),
            Stmt::Exit {
                continue_,
                label,
                when,
            } => {
                if let Some(when) = when
                    && !self.condition(when)?
                {
                    return Ok(Flow::Next);
                }
                return Ok(match continue_ {
                    true => Flow::Continue(label.clone()),
                    false => Flow::Exit(label.clone()),
                });
            }
            Stmt::Return(value) => {
                let value = match value {
                    // A record returned whole (a trigger's `RETURN NEW`).
                    Some(v) if let Some(record) = self.record_named(&v.text) => record,
                    Some(v) => self.eval(v)?.0,
                    None => Value::Null,
                };
                return Ok(Flow::Return(value));
            }
            Stmt::ReturnNext(value) => {
                self.rows_mut("RETURN NEXT")?;
                match value {
                    Some(v) => {
                        let (value, variable) = match self.record_named(&v.text) {
                            Some(record) => (record, self.record_types(&v.text)),
                            None => (self.eval(v)?.0, None),
                        };
                        self.rows_mut("RETURN NEXT")?
                            .push_value(value, variable.as_deref())?;
                    }
                    None => {
                        let names = (self.set.as_ref())
                            .map(|s| s.out_variables())
                            .unwrap_or_default();
                        let row = (names.iter())
                            .map(
                                |(name, _)| match self.var_index(std::slice::from_ref(name)) {
                                    Some(at) => self.resolved(at).value.clone(),
                                    None => Value::Null,
                                },
                            )
                            .collect();
                        self.rows_mut("RETURN NEXT")?.push(row)?;
                    }
                }
            }
            Stmt::ReturnQuery(query) => {
                self.rows_mut("RETURN QUERY")?;
                let output = self.run_sql(query)?;
                self.row_count = row_count(&output);
                self.rows_mut("RETURN QUERY")?.push_query(output)?;
                let found = self.row_count > 0;
                self.set_found(found);
            }
            Stmt::ReturnQueryExecute { command, using } => {
                self.rows_mut("RETURN QUERY")?;
                let output = self.execute(command, using)?;
                self.row_count = row_count(&output);
                self.rows_mut("RETURN QUERY")?.push_query(output)?;
                let found = self.row_count > 0;
                self.set_found(found);
            }
            Stmt::Perform(query) => {
                let output = self.run_sql(query)?;
                let n = row_count(&output);
                self.row_count = n;
                self.set_found(n > 0);
            }
            Stmt::Sql { sql, into } => {
                let output = self.run_sql(sql)?;
                let n = row_count(&output);
                self.row_count = n;
                match into {
                    Some(into) => {
                        let dml = !matches!(
                            crate::plpgsql::parse::sql_statement(sql),
                            Some(Statement::Query(_))
                        );
                        let found = self.into(into, output, dml, Rows::Statement(sql))?;
                        self.set_found(found);
                    }
                    None => {
                        if let Some(Statement::Call(call)) =
                            crate::plpgsql::parse::sql_statement(sql)
                        {
                            self.call_outputs(call, output)?;
                            return Ok(Flow::Next);
                        }
                        if matches!(
                            crate::plpgsql::parse::sql_statement(sql),
                            Some(Statement::Query(_))
                        ) {
                            return Err(SqlError::new(
                                "42601",
                                "query has no destination for result data",
                            )
                            .with_hint(
                                "If you want to discard the results of a SELECT, use PERFORM instead.",
                            ));
                        }
                        if matches!(
                            crate::plpgsql::parse::sql_statement(sql),
                            Some(
                                Statement::Insert(_)
                                    | Statement::Update { .. }
                                    | Statement::Delete(_)
                                    | Statement::Merge { .. }
                            )
                        ) {
                            self.set_found(n > 0);
                        }
                    }
                }
            }
            Stmt::Execute {
                command,
                into,
                using,
            } => {
                let (output, _, values) = self.execute_text(command, using)?;
                self.row_count = row_count(&output);
                if let Some(into) = into {
                    self.into(into, output, false, Rows::Execute(&values))?;
                }
            }
            Stmt::Raise(raise) => self.raise(raise)?,
            Stmt::Open { cursor, source } => self.open_cursor(cursor, source)?,
            Stmt::Fetch { cursor, step, into } => self.fetch_cursor(cursor, step, into.as_ref())?,
            Stmt::Close(cursor) => self.close_cursor(cursor)?,
            Stmt::EndTransaction(ending) => self.end_transaction(*ending)?,
            Stmt::Assert { condition, message } if self.checks_asserts() => {
                if !self.condition(condition)? {
                    let message = match message {
                        Some(m) => match self.eval(m)?.0 {
                            Value::Null => None,
                            v => crate::types::text_output(&v),
                        },
                        None => None,
                    };
                    return Err(SqlError::new(
                        "P0004",
                        message.unwrap_or_else(|| "assertion failed".into()),
                    ));
                }
            }
            // `plpgsql.check_asserts = off`: not even evaluated.
            Stmt::Assert { .. } => {}
            Stmt::GetStackedDiagnostics(items) => {
                let Some(error) = self.handling.last().cloned() else {
                    return Err(SqlError::new(
                        "0Z002",
                        "GET STACKED DIAGNOSTICS cannot be used outside an exception handler",
                    ));
                };
                for (var, item) in items {
                    let text = stacked_item(&error, item);
                    self.assign(std::slice::from_ref(var), Value::Text(text), SqlType::Text)?;
                }
            }
            Stmt::GetDiagnostics(items) => {
                for (var, _) in items {
                    let n = i64::try_from(self.row_count).unwrap_or(i64::MAX);
                    self.assign(std::slice::from_ref(var), Value::Int8(n), SqlType::Int8)?;
                }
            }
        }
        Ok(Flow::Next)
    }

    fn looped(
        &mut self,
        label: &Option<String>,
        kind: &LoopKind,
        body: &[Stmt],
    ) -> Result<Flow, SqlError> {
        // What one iteration's flow means for the loop: go on (None) or
        // end it with a flow.
        let ends = |flow: Flow| -> Option<Flow> {
            match flow {
                Flow::Next => None,
                Flow::Continue(None) => None,
                Flow::Continue(Some(l)) if label.as_deref() == Some(l.as_str()) => None,
                Flow::Exit(None) => Some(Flow::Next),
                Flow::Exit(Some(l)) if label.as_deref() == Some(l.as_str()) => Some(Flow::Next),
                other => Some(other),
            }
        };
        let depth = self.vars.len();
        let mut iterations = 0u64;
        let result = (|| -> Result<Flow, SqlError> {
            match kind {
                LoopKind::Plain => loop {
                    iterations = count(self.txn, iterations)?;
                    if let Some(f) = ends(self.stmts(body)?) {
                        return Ok(f);
                    }
                },
                LoopKind::While(cond) => loop {
                    iterations = count(self.txn, iterations)?;
                    if !self.condition(cond)? {
                        return Ok(Flow::Next);
                    }
                    if let Some(f) = ends(self.stmts(body)?) {
                        return Ok(f);
                    }
                },
                LoopKind::Range {
                    var,
                    reverse,
                    from,
                    to,
                    by,
                } => {
                    let bound = |v: (Value, SqlType), what: &str| -> Result<i64, SqlError> {
                        match conversion::convert(v.0, Some(v.1), SqlType::Int4)? {
                            Value::Int4(n) => Ok(i64::from(n)),
                            _ => Err(SqlError::new(
                                "22004",
                                format!("{what} of FOR loop cannot be null"),
                            )),
                        }
                    };
                    let from = bound(self.eval(from)?, "lower bound")?;
                    let to = bound(self.eval(to)?, "upper bound")?;
                    let step = match by {
                        Some(by) => bound(self.eval(by)?, "BY value")?,
                        None => 1,
                    };
                    if step <= 0 {
                        return Err(SqlError::new(
                            "22023",
                            "BY value of FOR loop must be greater than zero",
                        ));
                    }
                    self.declare(var, label.as_deref(), SqlType::Int4, Value::Null);
                    let at = self.vars.len() - 1;
                    let mut i = from;
                    let mut found = false;
                    while if *reverse { i >= to } else { i <= to } {
                        iterations = count(self.txn, iterations)?;
                        found = true;
                        self.vars[at].value = Value::Int4(i as i32);
                        if let Some(f) = ends(self.stmts(body)?) {
                            self.set_found(true);
                            return Ok(f);
                        }
                        i = if *reverse { i - step } else { i + step };
                    }
                    self.set_found(found);
                    Ok(Flow::Next)
                }
                LoopKind::ForEach { var, slice, array } => {
                    let (value, ty) = self.eval(array)?;
                    let items = match value {
                        Value::Null => {
                            return Err(SqlError::new(
                                "22004",
                                "FOREACH expression must not be null",
                            ));
                        }
                        Value::Array(array) => array,
                        _ => {
                            return Err(SqlError::new(
                                "42804",
                                format!(
                                    "FOREACH expression must yield an array, not type {}",
                                    ty.name()
                                ),
                            ));
                        }
                    };
                    let (items, item_type) = self.foreach_items(var, *slice, items, ty)?;
                    let mut found = false;
                    for item in items {
                        iterations = count(self.txn, iterations)?;
                        found = true;
                        self.assign(var, item, item_type)?;
                        if let Some(f) = ends(self.stmts(body)?) {
                            self.set_found(true);
                            return Ok(f);
                        }
                    }
                    self.set_found(found);
                    Ok(Flow::Next)
                }
                LoopKind::Query { var, query } => {
                    let writes = usize::from(matches!(
                        crate::plpgsql::parse::sql_statement(query),
                        Some(
                            Statement::Insert(_)
                                | Statement::Update { .. }
                                | Statement::Delete(_)
                                | Statement::Merge { .. }
                        )
                    ));
                    let output = self.run_sql(query)?;
                    skip_unnamed_portal();
                    self.writing_loops += writes;
                    let flow = self.rows_loop(var, output, body, &ends);
                    self.writing_loops -= writes;
                    flow
                }
                LoopKind::Execute {
                    var,
                    command,
                    using,
                } => {
                    let output = self.execute(command, using)?;
                    skip_unnamed_portal();
                    self.rows_loop(var, output, body, &ends)
                }
                LoopKind::Cursor { var, cursor, args } => {
                    self.cursor_loop(var, cursor, args, label, body, &ends)
                }
            }
        })();
        self.vars.truncate(depth);
        result
    }

    /// FOREACH's items of `array` (of type `ty`) and their type: its
    /// elements in row-major order for no SLICE, else its slices of the
    /// last `slice` dimensions (each keeping their lower bounds), as
    /// PostgreSQL's array iterator. The slice is checked against the
    /// array's dimensions first (2202E), then the loop variable's type:
    /// an array for a slice, no array without one (42804).
    fn foreach_items(
        &self,
        var: &[String],
        slice: u32,
        array: folio_row::Array,
        ty: SqlType,
    ) -> Result<(Vec<Value>, SqlType), SqlError> {
        let ndims = array.ndims();
        let slice = slice as usize;
        if slice > ndims {
            return Err(SqlError::new(
                "2202E",
                format!("slice dimension ({slice}) is out of the valid range 0..{ndims}"),
            ));
        }
        // A record's field or a record variable is no array: only a
        // scalar variable's type says.
        let var_is_array = match self.var_index(var).map(|at| &self.resolved(at).kind) {
            Some(Kind::Scalar(t)) => t.element().is_some(),
            _ => false,
        };
        if slice > 0 && !var_is_array {
            return Err(SqlError::new(
                "42804",
                "FOREACH ... SLICE loop variable must be of an array type",
            ));
        }
        if slice == 0 && var_is_array {
            return Err(SqlError::new(
                "42804",
                "FOREACH loop variable must not be of an array type",
            ));
        }
        if slice == 0 {
            return Ok((array.into_items(), ty.element().unwrap_or(SqlType::Text)));
        }
        let (dims, items) = array.into_parts();
        let slice_dims = &dims[ndims - slice..];
        let per_slice = slice_dims.iter().map(|d| d.len as usize).product::<usize>();
        let slices = items
            .chunks(per_slice.max(1))
            .map(|chunk| {
                Ok(Value::Array(folio_row::Array::new(
                    slice_dims.to_vec(),
                    chunk.to_vec(),
                )?))
            })
            .collect::<Result<Vec<_>, SqlError>>()?;
        Ok((slices, ty))
    }

    /// `FOR var IN query LOOP`: the rows are read first, then the body
    /// runs per row (PostgreSQL reads them through a cursor; the rows
    /// are the same).
    fn rows_loop(
        &mut self,
        var: &str,
        output: Output,
        body: &[Stmt],
        ends: &dyn Fn(Flow) -> Option<Flow>,
    ) -> Result<Flow, SqlError> {
        let Output::Rows { columns, rows, .. } = output else {
            return Err(SqlError::new(
                "42601",
                "cannot iterate over a statement that returns no rows",
            ));
        };
        let mut rows = rows.into_iter();
        self.rows_loop_from(var, &columns, &mut || Ok(rows.next()), body, ends)
    }

    /// [`Runner::rows_loop`] over the rows `next` gives one at a time
    /// (a cursor's, read as the loop goes), of `columns`.
    fn rows_loop_from(
        &mut self,
        var: &str,
        columns: &[Column],
        next: &mut dyn FnMut() -> Result<Option<Vec<Value>>, SqlError>,
        body: &[Stmt],
        ends: &dyn Fn(Flow) -> Option<Flow>,
    ) -> Result<Flow, SqlError> {
        let shape = shape_of(columns);
        let at = self.var_index(&[var.to_string()]).ok_or_else(|| {
            SqlError::new(
                "42601",
                format!("loop variable of loop over rows must be a record variable or list of scalar variables (\"{var}\" is not declared)"),
            )
        })?;
        let mut n = 0;
        while let Some(row) = next()? {
            n += 1;
            let width = row.len();
            if let Some(row) = self.take_row(at, row, &shape, width)? {
                self.multi_assignment(width, 1)?;
                let value = row.into_iter().next().unwrap_or(Value::Null);
                let ty = shape.first().map(|s| s.1).unwrap_or(SqlType::Text);
                self.assign_at(at, value, ty)?;
            }
            if let Some(f) = ends(self.stmts(body)?) {
                self.set_found(true);
                return Ok(f);
            }
        }
        self.set_found(n > 0);
        Ok(Flow::Next)
    }

    /// Stores a statement's result rows `output` into `into`'s targets;
    /// whether a row came. `dml`: a row change's RETURNING (more than one
    /// row is an error even without STRICT). `source`: what gave the rows
    /// (the parameters a STRICT error names under `print_strict_params`).
    fn into(
        &mut self,
        into: &Into,
        output: Output,
        dml: bool,
        source: Rows<'_>,
    ) -> Result<bool, SqlError> {
        let Output::Rows { columns, rows, .. } = output else {
            return Err(SqlError::new(
                "42601",
                "INTO used with a command that cannot return data",
            ));
        };
        if rows.len() > 1 {
            let level = match (into.strict || dml, &source) {
                (true, _) => Some(extra_checks::Level::Error),
                // (EXECUTE and FETCH are not checked.)
                (false, Rows::Statement(_)) => {
                    extra_checks::level(self.cx, extra_checks::Check::TooManyRows)
                }
                (false, _) => None,
            };
            if let Some(level) = level {
                let mut error = extra_checks::too_many_rows();
                if let Rows::Execute(_) = source {
                    error.hint = None;
                }
                let error = self.with_strict_params(error, &source);
                extra_checks::report(level, error, self.notices)?;
            }
        }
        if into.strict && rows.is_empty() {
            let error = SqlError::new("P0002", "query returned no rows");
            return Err(self.with_strict_params(error, &source));
        }
        let found = !rows.is_empty();
        let shape = shape_of(&columns);
        // No row is no source to count fields of (PostgreSQL's).
        let width = match found {
            true => shape.len(),
            false => usize::MAX,
        };
        let row = rows
            .into_iter()
            .next()
            .unwrap_or_else(|| vec![Value::Null; shape.len()]);
        let row = match into.targets.as_slice() {
            [target] if let Some(at) = self.var_index(target) => {
                match self.take_row(at, row, &shape, width)? {
                    Some(row) => row,
                    None => return Ok(found),
                }
            }
            _ => row,
        };
        self.multi_assignment(width, into.targets.len())?;
        let mut values = row.into_iter().zip(shape.iter().map(|s| s.1));
        for target in &into.targets {
            let (value, ty) = values.next().unwrap_or((Value::Null, SqlType::Text));
            self.assign(target, value, ty)?;
        }
        Ok(found)
    }

    /// Puts `row` (of columns `shape`; `width`: its field count,
    /// `usize::MAX` for no row) into the variable at `at` when that one
    /// variable takes a whole row, as INTO and a FOR loop over rows do: a
    /// record takes the row's shape; a row variable, and one of a
    /// composite type, its fields (even from one column of that type, as
    /// in PostgreSQL, where that is an error). Else the row back, for a
    /// scalar target.
    fn take_row(
        &mut self,
        at: usize,
        row: Vec<Value>,
        shape: &[(String, SqlType)],
        width: usize,
    ) -> Result<Option<Vec<Value>>, SqlError> {
        match &self.resolved(at).kind {
            Kind::Record(_) => {
                let at = self.resolved_index(at);
                self.vars[at].kind = Kind::Record(Some(shape.to_vec()));
                self.vars[at].value = Value::Record(row);
            }
            // (Each field converted before the field counts are compared,
            // as in PostgreSQL.)
            Kind::Row(fields) => {
                let fields = fields.clone();
                let value = Value::Record(fit_row(row, &fields)?);
                self.multi_assignment(width, fields.len())?;
                let at = self.resolved_index(at);
                self.vars[at].value = value;
            }
            &Kind::Scalar(ty @ SqlType::Composite(c)) => {
                let value = Value::Record(fit_row(row, &c.fields)?);
                self.multi_assignment(width, c.fields.len())?;
                self.assign_at(at, value, ty)?;
            }
            _ => return Ok(Some(row)),
        }
        Ok(None)
    }

    /// Whether ASSERT tests its condition (`plpgsql.check_asserts`).
    fn checks_asserts(&self) -> bool {
        self.cx.settings.is_on("plpgsql.check_asserts")
    }

    /// `strict_multi_assignment` (`extra_checks.rs`) of a row of `source`
    /// fields put into `target` ones (`usize::MAX`: no row).
    fn multi_assignment(&mut self, source: usize, target: usize) -> Result<(), SqlError> {
        if source == target || source == usize::MAX {
            return Ok(());
        }
        match extra_checks::level(self.cx, extra_checks::Check::StrictMultiAssignment) {
            Some(level) => {
                extra_checks::report(level, extra_checks::fields_differ(level), self.notices)
            }
            None => Ok(()),
        }
    }

    /// `error` of an `INTO STRICT` (or a too-many-rows check) of
    /// statement `sql`, with PostgreSQL's DETAIL naming the values of the
    /// variables it reads when `print_strict_params` is on (the body's
    /// `#print_strict_params`, else the setting): each once, in the order
    /// they were declared, quoted as literals.
    fn with_strict_params(&self, error: SqlError, source: &Rows<'_>) -> SqlError {
        let on = (self.print_strict_params)
            .unwrap_or_else(|| self.cx.settings.is_on("plpgsql.print_strict_params"));
        if !on {
            return error;
        }
        let named: Vec<(String, Value)> = match source {
            Rows::Statement(sql) => {
                let Parsed::Sql(statement) = &*sql.parsed else {
                    return error;
                };
                let Ok(bound) = self.bind(statement) else {
                    return error;
                };
                let mut named: Vec<(usize, String, Value)> = (bound.names.into_iter())
                    .zip(bound.params)
                    .map(|(name, value)| {
                        let at = self.var_index(&name).unwrap_or(usize::MAX);
                        (at, name.join("."), value)
                    })
                    .collect();
                named.sort_by_key(|(at, ..)| *at);
                named.dedup_by(|a, b| a.1 == b.1);
                named.into_iter().map(|(_, n, v)| (n, v)).collect()
            }
            Rows::Execute(values) => (values.iter().enumerate())
                .map(|(i, v)| (format!("${}", i + 1), v.clone()))
                .collect(),
            Rows::Fetch => Vec::new(),
        };
        if named.is_empty() {
            return error;
        }
        let shown: Vec<String> = (named.into_iter())
            .map(|(name, value)| match crate::types::text_output(&value) {
                Some(text) => format!("{name} = '{}'", text.replace('\'', "''")),
                None => format!("{name} = NULL"),
            })
            .collect();
        error.with_detail(format!("parameters: {}", shown.join(", ")))
    }

    fn raise(&mut self, raise: &Raise) -> Result<(), SqlError> {
        if raise.format.is_none() && raise.condition.is_none() && raise.options.is_empty() {
            return match self.handling.last() {
                Some(e) => Err(e.clone()),
                None => Err(SqlError::new(
                    "0Z002",
                    "RAISE without parameters cannot be used outside an exception handler",
                )),
            };
        }
        let mut message = match &raise.format {
            Some(format) => {
                let mut args = Vec::new();
                for a in &raise.args {
                    let v = self.eval(a)?.0;
                    args.push(crate::types::text_output(&v).unwrap_or_else(|| "<NULL>".into()));
                }
                Some(format_message(format, &args))
            }
            None => None,
        };
        let mut code = match &raise.condition {
            Some(Condition::Code(c)) => Some(c.clone()),
            Some(Condition::Name(n)) => {
                Some(conditions::code_of(n).map_or_else(String::new, str::to_string))
            }
            None => None,
        };
        let (mut detail, mut hint) = (None, None);
        for (option, value) in &raise.options {
            let v = self.eval(value)?.0;
            let text = crate::types::text_output(&v)
                .ok_or_else(|| SqlError::new("22004", "RAISE statement option cannot be null"))?;
            // Each of the four is given once: by the format or the
            // condition, or by one option (PostgreSQL's 42601).
            let given = match option.as_str() {
                "message" => &mut message,
                "detail" => &mut detail,
                "hint" => &mut hint,
                _ => &mut code,
            };
            if given.is_some() {
                return Err(SqlError::syntax(format!(
                    "RAISE option already specified: {}",
                    option.to_uppercase()
                )));
            }
            match option.as_str() {
                "message" => message = Some(text),
                "detail" => detail = Some(text),
                "hint" => hint = Some(text),
                _ => {
                    code = Some(match conditions::code_of(&text) {
                        Some(c) => c.to_string(),
                        None => super::parse::sqlstate(&text).map_err(|_| {
                            SqlError::new(
                                "42704",
                                format!("unrecognized exception condition \"{text}\""),
                            )
                        })?,
                    })
                }
            }
        }
        // A condition's name is the message none was given.
        if let (None, Some(Condition::Name(n))) = (&message, &raise.condition) {
            message = Some(n.clone());
        }
        // (A condition name without a code, which CREATE checked, is none.)
        let code = code.filter(|c| !c.is_empty());
        let level = raise.level.as_str();
        if level == "exception" {
            let code = code.unwrap_or_else(|| "P0001".into());
            let message = message.unwrap_or_else(|| code.clone());
            let mut e = SqlError::new(conditions::static_code(&code), message);
            e.detail = detail;
            e.hint = hint;
            return Err(e);
        }
        // DEBUG and LOG go to the server's log only under PostgreSQL's
        // default client_min_messages.
        let severity = match level {
            "info" => "INFO",
            "notice" => "NOTICE",
            "warning" => "WARNING",
            _ => return Ok(()),
        };
        let default = if level == "warning" { "01000" } else { "00000" };
        self.notices.push(Notice {
            severity,
            code: conditions::static_code(code.as_deref().unwrap_or(default)),
            message: message.unwrap_or_default(),
            detail,
            hint,
        });
        Ok(())
    }

    /// `EXECUTE command [USING ...]`: the command's text parsed now, its
    /// `$n` the USING values.
    fn execute(&mut self, command: &Sql, using: &[Sql]) -> Result<Output, SqlError> {
        self.execute_text(command, using).map(|(output, ..)| output)
    }

    /// [`Runner::execute`], with the command's text (what a cursor opened
    /// FOR EXECUTE shows in `pg_cursors`) and its USING values.
    fn execute_text(
        &mut self,
        command: &Sql,
        using: &[Sql],
    ) -> Result<(Output, String, Vec<Value>), SqlError> {
        let text = match self.eval(command)?.0 {
            Value::Null => {
                return Err(SqlError::new(
                    "22004",
                    "query string argument of EXECUTE is null",
                ));
            }
            v => crate::types::text_output(&v).unwrap_or_default(),
        };
        let mut values = Vec::new();
        for u in using {
            values.push(self.eval(u)?);
        }
        let mut parsed = crate::parse::statements(&text)?;
        if parsed.len() != 1 {
            return Err(SqlError::new(
                "42601",
                "EXECUTE of more than one statement is not supported",
            ));
        }
        let parsed = parsed.pop().expect("one");
        let Parsed::Sql(statement) = parsed else {
            return Ok((self.run_parsed(&parsed, &[])?, text, Vec::new()));
        };
        if transaction_control::is_transaction_command(&statement) {
            return Err(SqlError::new(
                "0A000",
                "EXECUTE of transaction commands is not implemented",
            ));
        }
        if !crate::statement::plannable(&statement) {
            return Ok((
                self.run_parsed(&Parsed::Sql(statement), &[])?,
                text,
                Vec::new(),
            ));
        }
        // `$n` is the n-th USING value, typed.
        let mut bound = *statement;
        let mut error = None;
        let _ = visit_expressions_mut(&mut bound, |expr| {
            if let Expr::Value(ValueWithSpan {
                value: AstValue::Placeholder(p),
                ..
            }) = expr
                && let Some(n) = p.strip_prefix('$').and_then(|n| n.parse::<usize>().ok())
            {
                match values.get(n.wrapping_sub(1)) {
                    Some((_, ty)) => match cast_param(n, *ty) {
                        Ok(e) => *expr = e,
                        Err(e) => error = Some(e),
                    },
                    None => {
                        error = Some(SqlError::new(
                            "42P02",
                            format!("there is no parameter ${n}"),
                        ))
                    }
                }
            }
            ControlFlow::<()>::Continue(())
        });
        if let Some(e) = error {
            return Err(e);
        }
        let params: Vec<Value> = values.into_iter().map(|(v, _)| v).collect();
        let output = self.run_parsed(&Parsed::Sql(Box::new(bound)), &params)?;
        Ok((output, text, params))
    }

    /// Runs a SQL piece of the body with the variables it names bound.
    fn run_sql(&mut self, sql: &Sql) -> Result<Output, SqlError> {
        let ran = self.run_sql_unnamed(sql);
        match &*sql.parsed {
            Parsed::Sql(statement) => {
                ran.map_err(|e| crate::session::name_read_only_write(e, statement))
            }
            _ => ran,
        }
    }

    fn run_sql_unnamed(&mut self, sql: &Sql) -> Result<Output, SqlError> {
        match &*sql.parsed {
            Parsed::Sql(statement) if crate::statement::plannable(statement) => {
                if let Some(stamp) = self.cached {
                    return self.run_kept(stamp, sql, statement);
                }
                let bound = self.bind(statement)?;
                self.run_parsed(&Parsed::Sql(Box::new(bound.statement)), &bound.params)
            }
            // A CALL's arguments take variables as a query's expressions
            // do. A CALL or DO written in the body is as atomic as the
            // body (one run by EXECUTE is atomic, as in PostgreSQL).
            Parsed::Sql(statement) if matches!(**statement, Statement::Call(_)) => {
                let bound = self.bind(statement)?;
                self.cx.nonatomic.set(self.nonatomic);
                self.run_parsed(&Parsed::Sql(Box::new(bound.statement)), &bound.params)
            }
            other => {
                self.cx
                    .nonatomic
                    .set(self.nonatomic && matches!(other, Parsed::Do(_)));
                self.run_parsed(other, &[])
            }
        }
    }

    /// Runs query or row change `sql` (`statement`) of a cached body with
    /// its kept plan: bound and planned at its first run, planned again
    /// when the plan is no longer current (`statement::Kept::is_current`),
    /// bound again when a variable it names changed type.
    fn run_kept(
        &mut self,
        stamp: Stamp,
        sql: &Sql,
        statement: &Statement,
    ) -> Result<Output, SqlError> {
        let taken = self.cx.plpgsql.take(stamp, sql.id);
        let (mut kept, mut params, keep) =
            match taken.and_then(|k| self.values_for(&k).map(|p| (k, p))) {
                Some((kept, params)) => (kept, params, true),
                None => {
                    let bound = self.bind(statement)?;
                    let kept = Box::new(KeptSql {
                        bound: bound.statement,
                        names: bound.names,
                        types: bound.types,
                        plan: None,
                    });
                    (kept, bound.params, !bound.per_run)
                }
            };
        let output = self.run_kept_plan(statement, &mut kept, &mut params);
        if keep {
            self.cx.plpgsql.put(stamp, sql.id, kept);
        }
        output
    }

    fn run_kept_plan(
        &mut self,
        statement: &Statement,
        kept: &mut KeptSql,
        params: &mut Vec<Value>,
    ) -> Result<Output, SqlError> {
        self.fresh = false;
        self.txn.next_statement();
        let _objects = crate::object_scope::enter(self.cx, self.txn, &mut self.kept)?;
        if self.read_only {
            refuse_change(statement)?;
        }
        let current = match &kept.plan {
            Some(plan) => plan.is_current(self.cx, self.txn)?,
            None => false,
        };
        if !current {
            kept.plan = None;
            kept.plan = crate::statement::Kept::make(self.cx, self.txn, &kept.bound, params.len())?;
            self.cx.plpgsql.planned();
        }
        let Some(plan) = &kept.plan else {
            // A statement folio runs without a plan.
            return crate::session::run_with_params(
                self.cx,
                self.txn,
                self.notices,
                &kept.bound,
                params,
            );
        };
        plan.calls().run(self.cx, self.txn, self.notices, params)?;
        let env = crate::scalar::Env {
            params,
            ..crate::scalar::Env::at(self.cx.now())
        };
        let output = plan.plan().run(self.cx, self.txn, &env);
        // The notices of the functions and triggers it ran, before those
        // of the body's next statement.
        self.notices.extend(self.cx.raised.take());
        output
    }

    /// The values of the variables `kept` names, if each is still a
    /// variable of the type it had when `kept` was bound.
    fn values_for(&self, kept: &KeptSql) -> Option<Vec<Value>> {
        let mut values = Vec::with_capacity(kept.names.len());
        for (name, ty) in kept.names.iter().zip(&kept.types) {
            match self.lookup(name)? {
                Ok((value, now)) if now == *ty => values.push(value),
                _ => return None,
            }
        }
        Some(values)
    }

    fn run_parsed(&mut self, parsed: &Parsed, params: &[Value]) -> Result<Output, SqlError> {
        if let Parsed::Sql(statement) = parsed
            && let Statement::Set(Set::SetTransaction {
                modes,
                snapshot: None,
                session: false,
            }) = &**statement
        {
            return self.set_transaction(modes);
        }
        self.fresh = false;
        self.txn.next_statement();
        let _objects = crate::object_scope::enter(self.cx, self.txn, &mut self.kept)?;
        if let Some(command) = crate::session::outside_blocks_only(parsed) {
            return Err(SqlError::new(
                "25001",
                format!("{command} cannot be executed from a function"),
            ));
        }
        match parsed {
            Parsed::Sql(statement) => {
                if transaction_control::is_transaction_command(statement) {
                    return Err(SqlError::new(
                        "0A000",
                        "unsupported transaction command in PL/pgSQL",
                    ));
                }
                if self.read_only {
                    refuse_change(statement)?;
                }
                crate::session::run_with_params(self.cx, self.txn, self.notices, statement, params)
            }
            other => crate::session::run_utility(self.cx, self.txn, self.notices, other),
        }
    }

    /// `statement` with each variable it names replaced by a typed
    /// parameter, the parameters' values and what each is.
    fn bind(&self, statement: &Statement) -> Result<Bound, SqlError> {
        let mut bound = statement.clone();
        if self.var_index(&["tg_argv".to_string()]).is_some() {
            let _ = bound.visit(&mut ArgvFromZero);
        }
        // (A composite-typed variable's, an argument's too, as a row's.)
        super::record_stars::expand(&mut bound, |name| {
            let var = self.resolved(self.var_index(name)?);
            let shape = var.kind.fields()?.unwrap_or(&[]);
            Some(shape.iter().map(|(field, _)| field.clone()).collect())
        });
        let mut per_run = super::record_json::rewrite(&mut bound, |name| {
            let (shape, values) = self.whole_record(name)?;
            values?;
            Some(shape.iter().map(|(field, _)| field.clone()).collect())
        });
        let mut params: Vec<Value> = Vec::new();
        let mut names = Vec::new();
        let mut types = Vec::new();
        let mut error = None;
        // What each parameter reads (`Runner::datum`); none for a whole
        // record's fields, which are never shared.
        let mut datums: Vec<Option<(usize, Option<String>)>> = Vec::new();
        let _ = visit_expressions_mut(&mut bound, |expr| {
            let name: Option<Vec<String>> = match expr {
                Expr::Identifier(id) => Some(vec![ident(id)]),
                Expr::CompoundIdentifier(ids) => Some(ids.iter().map(ident).collect()),
                Expr::Value(ValueWithSpan {
                    value: AstValue::Placeholder(p),
                    ..
                }) => Some(vec![p.clone()]),
                _ => None,
            };
            // `WHERE CURRENT OF c`, `c` a cursor variable: the cursor its
            // value names (PostgreSQL passes it as a parameter).
            if let Some(cursor) = crate::cursors::current_of::cursor_named(expr)
                && let Some(at) = self.var_index(&[cursor])
                && let var = self.resolved(at)
                && matches!(var.kind, Kind::Scalar(SqlType::Refcursor))
            {
                per_run = true;
                match crate::types::text_output(&var.value) {
                    Some(portal) => *expr = crate::cursors::current_of::marked(&portal),
                    None => {
                        error = Some(SqlError::new(
                            "42704",
                            format!("no value found for parameter {}", params.len() + 1),
                        ))
                    }
                }
                return ControlFlow::<()>::Continue(());
            }
            // A record or row variable named whole: the row of its fields
            // (`CASE WHEN true THEN ROW($1::t1, ...) END`), each field a
            // parameter; a NULL one, a NULL of such a row (`CASE WHEN
            // false THEN ROW(NULL::t1, ...) END`: no `record` type is
            // written). The CASE keeps it a record value, not a row
            // constructor: `r = q` compares records as PostgreSQL's
            // `record_eq` does (NULL fields equal, README "Row values").
            if let Some(name) = &name
                && let Some((shape, values)) = self.whole_record(name)
            {
                per_run = true;
                match (|| {
                    let mut written = Vec::new();
                    for (i, (field, ty)) in shape.iter().enumerate() {
                        let Some(values) = values else {
                            written.push(format!("NULL::{}", data_type(*ty)?));
                            continue;
                        };
                        params.push(values.get(i).cloned().unwrap_or(Value::Null));
                        names.push(vec![name.join("."), field.clone()]);
                        types.push(*ty);
                        datums.push(None);
                        written.push(cast_param(params.len(), *ty)?.to_string());
                    }
                    let row = format!("ROW({})", written.join(", "));
                    let known = values.is_some();
                    crate::parse::expression(&format!("(CASE WHEN {known} THEN {row} END)"))
                })() {
                    Ok(e) => *expr = e,
                    Err(e) => error = Some(e),
                }
                return ControlFlow::<()>::Continue(());
            }
            if let Some(name) = name
                && let Some(found) = self.lookup(&name)
            {
                // Two names of one variable (`p1` and `$1`) are one
                // parameter, as PostgreSQL's: `GROUP BY x / p1` then
                // groups by what `x / $1` in the select list reads.
                let datum = self.datum(&name);
                match found.and_then(|(value, ty)| {
                    if let Some(at) = datums.iter().position(|d| *d == datum) {
                        return cast_param(at + 1, ty);
                    }
                    params.push(value);
                    names.push(name);
                    types.push(ty);
                    datums.push(datum);
                    cast_param(params.len(), ty)
                }) {
                    Ok(e) => *expr = e,
                    Err(e) => error = Some(e),
                }
            }
            ControlFlow::<()>::Continue(())
        });
        match error {
            Some(e) => Err(e),
            None => Ok(Bound {
                statement: bound,
                params,
                names,
                types,
                per_run,
            }),
        }
    }

    /// The value and type a name in SQL stands for, if it names a
    /// variable or a record's field.
    fn lookup(&self, name: &[String]) -> Option<Result<(Value, SqlType), SqlError>> {
        if let Some(at) = self.var_index(name) {
            let var = self.resolved(at);
            return match &var.kind {
                Kind::Scalar(ty) => Some(Ok((var.value.clone(), *ty))),
                // A record named whole is not a parameter.
                _ => None,
            };
        }
        // `r.f`, `label.r.f`.
        let (field, record) = name.split_last()?;
        let at = self.var_index(record)?;
        let var = self.resolved(at);
        let Some(shape) = var.kind.fields()? else {
            return Some(Err(not_assigned(&var.name)));
        };
        let Some(i) = shape.iter().position(|(n, _)| n == field) else {
            return Some(Err(SqlError::new(
                "42703",
                format!("record \"{}\" has no field \"{field}\"", var.name),
            )));
        };
        let value = match &var.value {
            Value::Record(values) => values.get(i).cloned().unwrap_or(Value::Null),
            _ => Value::Null,
        };
        Some(Ok((value, shape[i].1)))
    }

    /// What the scalar `name` ([`Runner::lookup`]'s) reads: its
    /// variable (through aliases) and the field of it, so two names of
    /// one value compare equal. `None` for a name of no variable.
    fn datum(&self, name: &[String]) -> Option<(usize, Option<String>)> {
        if let Some(at) = self.var_index(name) {
            return Some((self.resolved_index(at), None));
        }
        let (field, record) = name.split_last()?;
        let at = self.var_index(record)?;
        Some((self.resolved_index(at), Some(field.clone())))
    }

    /// The fields of the record or row variable `name` names, if it
    /// names one, and its values (`None` when it is NULL: a record not
    /// yet assigned, a trigger's OLD on INSERT).
    #[allow(clippy::type_complexity)]
    fn whole_record(&self, name: &[String]) -> Option<(&[(String, SqlType)], Option<&[Value]>)> {
        let var = self.resolved(self.var_index(name)?);
        let shape: &[(String, SqlType)] = match &var.kind {
            Kind::Record(Some(shape)) | Kind::Row(shape) => shape,
            Kind::Record(None) => &[],
            Kind::Scalar(_) | Kind::Alias(_) => return None,
        };
        match &var.value {
            Value::Record(values) => Some((shape, Some(values))),
            _ => Some((shape, None)),
        }
    }

    /// The value of the record variable `text` names alone, if it does.
    fn record_named(&self, text: &str) -> Option<Value> {
        let text = text.trim();
        let word = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
        let name = match word {
            Some(quoted) => quoted.to_string(),
            None if text.chars().all(|c| c.is_alphanumeric() || c == '_') => text.to_lowercase(),
            None => return None,
        };
        let var = self.resolved(self.var_index(&[name])?);
        matches!(var.kind, Kind::Record(_) | Kind::Row(_)).then(|| var.value.clone())
    }

    /// The field types of the record variable `text` names, if it names
    /// one with a shape (a row's, or a record's once assigned).
    fn record_types(&self, text: &str) -> Option<Vec<SqlType>> {
        let text = text.trim();
        let name = match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            Some(quoted) => quoted.to_string(),
            None => text.to_lowercase(),
        };
        match &self.resolved(self.var_index(&[name])?).kind {
            Kind::Record(Some(fields)) | Kind::Row(fields) => {
                Some(fields.iter().map(|(_, t)| *t).collect())
            }
            _ => None,
        }
    }

    /// The innermost variable named `name` (`x` or `label.x`).
    fn var_index(&self, name: &[String]) -> Option<usize> {
        match name {
            [n] => self.vars.iter().rposition(|v| v.name == *n),
            [label, n] => (self.vars.iter())
                .rposition(|v| v.name == *n && v.label.as_deref() == Some(label.as_str())),
            _ => None,
        }
    }

    /// The variable at `at`, through aliases.
    fn resolved(&self, at: usize) -> &Var {
        &self.vars[self.resolved_index(at)]
    }

    /// The index of [`Runner::resolved`]'s variable.
    fn resolved_index(&self, mut at: usize) -> usize {
        while let Kind::Alias(target) = self.vars[at].kind {
            at = target;
        }
        at
    }

    fn alias_target(&self, target: &str) -> Result<usize, SqlError> {
        self.var_index(&[target.to_string()])
            .ok_or_else(|| SqlError::new("42704", format!("variable \"{target}\" does not exist")))
    }

    /// Puts the OUT and INOUT results of CALL `call` (`output`, its row)
    /// into the variables its arguments name, as PostgreSQL's PL/pgSQL
    /// does; an argument in such a place that is no variable is 42601.
    fn call_outputs(
        &mut self,
        call: &sqlparser::ast::Function,
        output: Output,
    ) -> Result<(), SqlError> {
        let Output::Rows {
            columns, mut rows, ..
        } = output
        else {
            return Ok(());
        };
        let Some(row) = rows.pop() else {
            return Ok(());
        };
        let sources = {
            let _objects = crate::object_scope::enter(self.cx, self.txn, &mut self.kept)?;
            crate::procedures::output_arguments(call)?
        };
        for ((column, value), source) in columns.iter().zip(row).zip(sources) {
            let Some(expr) = source else {
                continue;
            };
            let target: Vec<String> = match expr {
                Expr::Identifier(id) => vec![ident(&id)],
                Expr::CompoundIdentifier(ids) => ids.iter().map(ident).collect(),
                _ => Vec::new(),
            };
            if target.is_empty() || self.var_index(&target).is_none() && target.len() == 1 {
                return Err(SqlError::new(
                    "42601",
                    format!(
                        "procedure parameter \"{}\" is an output parameter but corresponding argument is not writable",
                        column.name
                    ),
                ));
            }
            let ty = crate::user_types::of_oid(column.type_oid, -1).unwrap_or(SqlType::Text);
            self.assign(&target, value, ty)?;
        }
        Ok(())
    }

    /// Assigns to a variable or a record's field.
    fn assign(&mut self, target: &[String], value: Value, ty: SqlType) -> Result<(), SqlError> {
        if let Some(at) = self.var_index(target) {
            return self.assign_at(at, value, ty);
        }
        if let Some((field, record)) = target.split_last()
            && let Some(mut at) = self.var_index(record)
        {
            while let Kind::Alias(t) = self.vars[at].kind {
                at = t;
            }
            let var = &mut self.vars[at];
            if let Kind::Record(None) = &var.kind {
                return Err(not_assigned(&var.name));
            }
            if let Some(Some(shape)) = var.kind.fields()
                && let Some(i) = shape.iter().position(|(n, _)| n == field)
            {
                // A row variable set to NULL has its fields again.
                if !matches!(var.value, Value::Record(_)) {
                    var.value = Value::Record(vec![Value::Null; shape.len()]);
                }
                if let Value::Record(values) = &mut var.value {
                    values[i] = match value {
                        Value::Null => Value::Null,
                        v => conversion::convert(v, None, shape[i].1)?,
                    };
                }
                return Ok(());
            }
            return Err(SqlError::new(
                "42703",
                format!("record \"{}\" has no field \"{field}\"", var.name),
            ));
        }
        Err(SqlError::new(
            "42601",
            format!("\"{}\" is not a known variable", target.join(".")),
        ))
    }

    fn assign_at(&mut self, mut at: usize, value: Value, ty: SqlType) -> Result<(), SqlError> {
        while let Kind::Alias(t) = self.vars[at].kind {
            at = t;
        }
        let var = &mut self.vars[at];
        if var.constant {
            return Err(SqlError::new(
                "22005",
                format!("variable \"{}\" is declared CONSTANT", var.name),
            ));
        }
        if var.not_null && value == Value::Null {
            return Err(null_to_not_null(&var.name));
        }
        match &var.kind {
            Kind::Scalar(want) => {
                var.value = conversion::convert(value, Some(ty), *want)?;
                return self.meets_domain(at);
            }
            Kind::Record(_) => match value {
                Value::Null => var.value = Value::Null,
                // A row takes its type's fields, or (an anonymous one)
                // PostgreSQL's `f1`, `f2`, ... of its values' types.
                Value::Record(fields) => {
                    let shape = match ty {
                        SqlType::Composite(c) => c.fields.clone(),
                        _ => (fields.iter().enumerate())
                            .map(|(i, v)| (format!("f{}", i + 1), crate::scalar::value_type(v)))
                            .collect(),
                    };
                    var.kind = Kind::Record(Some(shape));
                    var.value = Value::Record(fields);
                }
                _ => {
                    return Err(SqlError::new(
                        "42804",
                        "cannot assign non-composite value to a record variable",
                    ));
                }
            },
            Kind::Row(shape) => {
                var.value = match value {
                    Value::Null => Value::Record(vec![Value::Null; shape.len()]),
                    Value::Record(fields) => Value::Record(fit_row(fields, shape)?),
                    _ => {
                        return Err(SqlError::new(
                            "42804",
                            "cannot assign non-composite value to a row variable",
                        ));
                    }
                }
            }
            Kind::Alias(_) => unreachable!("resolved above"),
        }
        Ok(())
    }

    /// 23502 / 23514 unless the value of variable `at` meets the rules
    /// of its domain (a variable of no domain meets none).
    fn meets_domain(&self, at: usize) -> Result<(), SqlError> {
        let var = &self.vars[at];
        match &var.domain {
            Some(rules) => rules.enforce(&var.value, &crate::scalar::Env::at(self.cx.now())),
            None => Ok(()),
        }
    }

    /// Gives the variable declared last (a routine's argument, or the
    /// variable it is another name of) the rules
    /// of domain `rules`: its value must meet them now and after each
    /// assignment.
    pub fn keep_domain_last(&mut self, rules: Arc<crate::domains::Bound>) -> Result<(), SqlError> {
        let mut at = self.vars.len() - 1;
        while let Kind::Alias(t) = self.vars[at].kind {
            at = t;
        }
        self.vars[at].domain = Some(rules);
        self.meets_domain(at)
    }

    fn set_found(&mut self, found: bool) {
        if let Some(var) = self.vars.iter_mut().find(|v| v.name == "found") {
            var.value = Value::Bool(found);
        }
    }

    /// An expression's value and type.
    fn eval(&mut self, sql: &Sql) -> Result<(Value, SqlType), SqlError> {
        let output = self.run_sql(sql)?;
        let Output::Rows { columns, rows, .. } = output else {
            return Err(SqlError::new("42601", "expression returned no rows"));
        };
        if columns.len() != 1 {
            return Err(SqlError::new(
                "42601",
                format!(
                    "query \"SELECT {}\" returned {} columns",
                    sql.text,
                    columns.len()
                ),
            ));
        }
        if rows.len() > 1 {
            return Err(SqlError::new(
                "21000",
                format!("query \"SELECT {}\" returned more than one row", sql.text),
            ));
        }
        let ty = shape_of(&columns)[0].1;
        let value = rows.into_iter().next().and_then(|r| r.into_iter().next());
        Ok((value.unwrap_or(Value::Null), ty))
    }

    /// A row of values (a simple CASE's WHEN list).
    fn row(&mut self, sql: &Sql) -> Result<Vec<Value>, SqlError> {
        match self.run_sql(sql)? {
            Output::Rows { rows, .. } => Ok(rows.into_iter().next().unwrap_or_default()),
            _ => Ok(Vec::new()),
        }
    }

    /// A condition: true, or false for false and NULL.
    pub fn condition(&mut self, sql: &Sql) -> Result<bool, SqlError> {
        match self.eval(sql)?.0 {
            Value::Bool(b) => Ok(b),
            Value::Null => Ok(false),
            other => match conversion::convert(other, None, SqlType::Bool)? {
                Value::Bool(b) => Ok(b),
                _ => Ok(false),
            },
        }
    }

    /// The columns of table `name` (`%ROWTYPE`), or 42P01.
    fn row_shape(&mut self, name: &str) -> Result<Vec<(String, SqlType)>, SqlError> {
        let _objects = crate::object_scope::enter(self.cx, self.txn, &mut None)?;
        let relation = crate::access::relation(self.cx, self.txn, name)?;
        crate::access::row_type(&relation.def.columns)
    }

    fn sql_type(&self, ty: &DataType) -> Result<SqlType, SqlError> {
        let _objects = crate::object_scope::enter(self.cx, self.txn, &mut None)?;
        crate::types::column_type(ty)
    }

    /// `name%TYPE`: a variable's type or a column's.
    fn type_of(&mut self, name: &[String]) -> Result<SqlType, SqlError> {
        if let Some(at) = self.var_index(name)
            && let Kind::Scalar(ty) = self.resolved(at).kind
        {
            return Ok(ty);
        }
        let (column, table) = name
            .split_last()
            .filter(|(_, t)| !t.is_empty())
            .ok_or_else(|| {
                SqlError::new(
                    "42704",
                    format!("variable \"{}\" does not exist", name.join(".")),
                )
            })?;
        let text = format!(
            "SELECT \"{}\" FROM {} LIMIT 0",
            column.replace('"', "\"\""),
            (table.iter())
                .map(|p| format!("\"{}\"", p.replace('"', "\"\"")))
                .collect::<Vec<_>>()
                .join(".")
        );
        let mut parsed = crate::parse::statements(&text)?;
        match self.run_parsed(&parsed.pop().expect("one"), &[])? {
            Output::Rows { columns, .. } => Ok(shape_of(&columns)[0].1),
            _ => Err(SqlError::new("42704", "type not found")),
        }
    }
}

/// A FOR over a query's rows takes an unnamed portal's number, as
/// PostgreSQL's (`Cursors::skip_unnamed`).
fn skip_unnamed_portal() {
    if let Some(scope) = crate::cursors::current() {
        scope.cursors.skip_unnamed();
    }
}

fn count(txn: &Transaction, iterations: u64) -> Result<u64, SqlError> {
    // A loop is where a function spends its time: a cancel or
    // `statement_timeout` ends it here (57014), as in PostgreSQL.
    crate::interrupt::every(txn, iterations)?;
    if iterations >= MAX_ITERATIONS {
        return Err(SqlError::new(
            "54000",
            "PL/pgSQL loop ran too many iterations",
        ));
    }
    Ok(iterations + 1)
}

/// An item of `GET STACKED DIAGNOSTICS` about `error`: PostgreSQL's,
/// except `PG_EXCEPTION_CONTEXT`, which folio does not track (empty), and
/// `PG_DATATYPE_NAME` and `SCHEMA_NAME` (empty).
fn stacked_item(error: &SqlError, item: &str) -> String {
    let subject = error.subject.as_deref();
    match item {
        "returned_sqlstate" => error.code.to_string(),
        "message_text" => error.message.clone(),
        "pg_exception_detail" => error.detail.clone().unwrap_or_default(),
        "pg_exception_hint" => error.hint.clone().unwrap_or_default(),
        "table_name" => subject.map(|s| s.table.clone()).unwrap_or_default(),
        "column_name" => subject.and_then(|s| s.column.clone()).unwrap_or_default(),
        "constraint_name" => subject
            .and_then(|s| s.constraint.clone())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// A row variable of `shape`, all NULL.
fn empty_row(shape: Vec<(String, SqlType)>) -> (Kind, Value) {
    let value = Value::Record(vec![Value::Null; shape.len()]);
    (Kind::Row(shape), value)
}

/// `fields` as a row of `shape`: each cast to its column's type, missing
/// ones NULL (PostgreSQL's assignment of a row of another width).
fn fit_row(fields: Vec<Value>, shape: &[(String, SqlType)]) -> Result<Vec<Value>, SqlError> {
    let mut fields = fields.into_iter();
    (shape.iter())
        .map(|(_, ty)| match fields.next() {
            None | Some(Value::Null) => Ok(Value::Null),
            Some(v) => conversion::convert(v, None, *ty),
        })
        .collect()
}

fn not_assigned(name: &str) -> SqlError {
    SqlError::new("55000", format!("record \"{name}\" is not assigned yet"))
        .with_detail("The tuple structure of a not-yet-assigned record is indeterminate.")
}

fn null_to_not_null(name: &str) -> SqlError {
    SqlError::new(
        "22004",
        format!("null value cannot be assigned to variable \"{name}\" declared NOT NULL"),
    )
}

/// A name as written in SQL (unquoted lower case).
fn ident(id: &Ident) -> String {
    crate::names::ident(id)
}

/// The columns of a result as a record's shape.
fn shape_of(columns: &[crate::output::Column]) -> Vec<(String, SqlType)> {
    (columns.iter())
        .map(|c| {
            let ty = crate::user_types::of_oid(c.type_oid, -1).unwrap_or(SqlType::Text);
            (c.name.clone(), ty)
        })
        .collect()
}

/// `CAST($n AS ty)`.
pub fn cast_param(n: usize, ty: SqlType) -> Result<Expr, SqlError> {
    Ok(Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(Expr::Value(AstValue::Placeholder(format!("${n}")).into())),
        data_type: data_type(ty)?,
        format: None,
    })
}

/// The SQL type name of `ty`, parsed.
pub fn data_type(ty: SqlType) -> Result<DataType, SqlError> {
    let name = crate::catalog_functions::format_type(i64::from(ty.oid()), Some(ty.typmod()));
    let mut parser = sqlparser::parser::Parser::new(&sqlparser::dialect::PostgreSqlDialect {})
        .try_with_sql(&name)
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    parser
        .parse_data_type()
        .map_err(|e| SqlError::new("XX000", format!("type name {name:?}: {e}")))
}

/// The rows a statement's output counts (`ROW_COUNT`).
fn row_count(output: &Output) -> u64 {
    match output {
        Output::Rows { rows, .. } => rows.len() as u64,
        other => (other.tag().rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
    }
}

/// RAISE's message: each `%` the next argument, `%%` a percent sign.
pub fn format_message(format: &str, args: &[String]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            if chars.peek() == Some(&'%') {
                chars.next();
                out.push('%');
            } else if let Some(a) = args.next() {
                out.push_str(a);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// PostgreSQL's 0A000 for a statement that changes rows in a STABLE or
/// IMMUTABLE function's body (a call it makes of a VOLATILE function may).
fn refuse_change(statement: &Statement) -> Result<(), SqlError> {
    let command = match statement {
        Statement::Insert(_) => "INSERT",
        Statement::Update { .. } => "UPDATE",
        Statement::Delete(_) => "DELETE",
        Statement::Merge { .. } => "MERGE",
        _ => return Ok(()),
    };
    Err(SqlError::new(
        "0A000",
        format!("{command} is not allowed in a non-volatile function"),
    ))
}
