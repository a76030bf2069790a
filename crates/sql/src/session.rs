//! A session: statements in order, the transaction block around them.
//!
//! States as PostgreSQL's (README "The session and its transaction
//! block"): idle, in a block, failed block. Outside a block each statement
//! runs in its own transaction, committed when it succeeds. An error
//! inside a block rolls its transaction back at once and leaves the block
//! failed: every statement but `COMMIT`/`END`/`ROLLBACK` is then 25P02
//! (PostgreSQL keeps the failed transaction's locks until `ROLLBACK`;
//! folio releases them at the error).

use crate::access::{self, Relations};
use crate::context::Ctx;
use crate::copy::CopyIn;
use crate::datetime::now;
use crate::error::SqlError;
use crate::output::{Notice, Output, TxStatus};
use crate::parse::{Copy, Parsed, Vacuum};
use crate::position;
use crate::scalar::Env;
use crate::setting_functions::Change;
use crate::settings::Settings;
use crate::shape::ShapeCache;
use crate::shape_plans::Shaped;
use crate::statement::Plan;
use crate::{ddl, explain, indexes, sequences, statement};
use folio_db::{Database, Isolation, Transaction};
use folio_row::{SqlType, Value};
use folio_txn::Interrupt;
use sqlparser::ast::{SetExpr, Statement, TransactionMode};
use std::sync::Arc;

/// The context of a statement of session `$session` (its fields
/// borrowed one by one, so the session's other fields stay free) in a
/// transaction that started at `$now`.
macro_rules! session_cx {
    ($session:ident, $now:expr) => {
        Ctx {
            db: &$session.db,
            settings: &$session.settings,
            relations: &$session.relations,
            temp: &$session.temp,
            sequences: &$session.sequences,
            advisory: &$session.advisory,
            backend: &$session.backend,
            now: std::cell::Cell::new($now),
            nonatomic: Default::default(),
            recursive: Default::default(),
            produced: Default::default(),
            views: Default::default(),
            role: &$session.role,
            needs: Default::default(),
            checked_as: Default::default(),
            deferred: &$session.deferred,
            plpgsql: &$session.plpgsql,
            raised: Default::default(),
            row_security_off: Default::default(),
            row_security_inside: Default::default(),
            row_security_parts: Default::default(),
            partition_trees: Default::default(),
            change_counts: Default::default(),
        }
    };
}

/// An open savepoint as the session keeps it: what a `ROLLBACK TO` it
/// brings back.
struct Savepoint {
    name: String,
    /// The settings when it was made.
    settings: Arc<Settings>,
    /// The settings without the `SET LOCAL`s when it was made.
    without_local: Option<Settings>,
    /// The role and what the block gives back, when it was made.
    roles: crate::block_roles::AtSavepoint,
    /// The deferred checks' mark.
    deferred: crate::deferred::Mark,
    /// Its number (`Session::savepoints_made`).
    number: u64,
    /// The transaction's READ ONLY mode when it was made: a `SET
    /// TRANSACTION READ ONLY` made since lasts until the savepoint ends,
    /// by ROLLBACK TO or RELEASE alike, as PostgreSQL's subtransaction
    /// ends the settings it made.
    read_only: bool,
}

/// One client's session over a database.
pub struct Session {
    db: Arc<Database>,
    block: Block,
    notices: Vec<Notice>,
    /// A COPY waiting for data.
    copy: Option<Copying>,
    /// When the open block began (`CURRENT_TIMESTAMP`), microseconds since
    /// 2000-01-01 UTC.
    block_start: i64,
    /// When the running statement (its client's message) began, from
    /// its start to the session's next idle report: `statement_timestamp()`
    /// (the backend's `query_start`), and `now()` of a transaction that
    /// statement opens, as in PostgreSQL.
    statement_start: std::cell::Cell<Option<i64>>,
    /// Prepared statements by name (`""`: the unnamed one), parsed once,
    /// planned at their first execution.
    /// Boxed: a kept plan's run takes its statement out of the map and
    /// puts it back, moving a pointer rather than the statement.
    prepared: foldhash::HashMap<String, Box<Prepared>>,
    /// PL/pgSQL bodies parsed and their statements planned, per function
    /// (`plpgsql/plan_cache.rs`).
    plpgsql: crate::plpgsql::plan_cache::PlanCache,
    /// `SET` values: a SET in a block takes effect at once and is undone
    /// if the block does not commit, as in PostgreSQL. Shared with the
    /// running statement's `setting_functions::Scope` (changed copy on
    /// write: [`Session::settings_mut`]).
    settings: Arc<Settings>,
    /// What RESET goes back to: the defaults with the startup packet's
    /// settings applied.
    session_defaults: Arc<Settings>,
    /// The settings when the open block began (restored if it does not
    /// commit).
    settings_at_begin: Option<Arc<Settings>>,
    /// The roles the open block gives back at its end (SET ROLE and SET
    /// LOCAL ROLE in it).
    block_roles: crate::block_roles::BlockRoles,
    /// How many times the settings were taken to change
    /// ([`Session::settings_generation`]).
    settings_changes: u64,
    /// The open block is the implicit one of a query message holding
    /// several statements (PostgreSQL's implicit transaction block):
    /// committed at the message's end, rolled back whole by an error,
    /// turned into an ordinary block by a BEGIN among its statements.
    implicit: bool,
    /// The modes a `COMMIT AND CHAIN` gave the open block (`None`: it
    /// began otherwise), which a chain from it after it failed keeps
    /// (`end_and_chain`).
    chained_modes: Option<crate::transaction_modes::Characteristics>,
    /// The open block's DEFERRABLE mode (folio-txn keeps the other two).
    deferrable: bool,
    /// The settings without the open block's `SET LOCAL`s, which end with
    /// it (`None`: it made none).
    without_local: Option<Settings>,
    /// The open savepoints, innermost last, with the settings when each
    /// was made (`ROLLBACK TO` restores them, as PostgreSQL does): as
    /// they were, and without the `SET LOCAL`s.
    savepoints: Vec<Savepoint>,
    /// Savepoints made so far in the session: each savepoint's number
    /// (the last element above) and the mark a protocol portal takes when
    /// bound ([`Session::portal_mark`]).
    savepoints_made: u64,
    /// The lowest number of a savepoint a `ROLLBACK TO` returned to since
    /// the host last asked ([`Session::take_rolled_back`]).
    rolled_back_to: Option<u64>,
    /// The relations the session read (`access.rs`).
    relations: Relations,
    /// The open transaction's deferred constraint checks (`deferred.rs`).
    deferred: crate::deferred::Pending,
    /// The enum types, extensions and SQL functions last read
    /// (`object_scope.rs`).
    objects: Option<std::sync::Arc<folio_catalog::ObjectLists>>,
    /// `currval` and `lastval` (`sequences.rs`).
    sequences: Arc<crate::sequences::SessionSequences>,
    /// Its advisory locks (`advisory.rs`), given back when it ends.
    advisory: crate::advisory::SessionAdvisory,
    /// Its entry among the live sessions (`backend.rs`), removed when it
    /// ends.
    backend: crate::backend::SessionBackend,
    /// Its temporary namespace (`temp_tables.rs`).
    temp: crate::temp_tables::TempTables,
    /// Plans made for prepared statements (a kept plan is not counted).
    plans_made: u64,
    /// Parsed statements kept by their text's shape (`shape.rs`).
    shapes: ShapeCache,
    /// While a text of a kept shape with a generic plan runs: its plans
    /// and the text's literals as parameters (`shape_plans.rs`).
    shaped: Option<Shaped>,
    /// Statements run by a shape's generic plan (not planned from text).
    generic_runs: u64,
    /// An implicit block was just opened for the statements about to run:
    /// the first of them reads with the snapshot its begin took (a second
    /// one, taken microseconds later, cost 5% of a pipelined point query).
    fresh_block: bool,
    /// A statement has run in the open block (SET TRANSACTION must come
    /// before).
    queried: bool,
    /// The cancel flag (a CancelRequest sets it), given to each of the
    /// session's transactions: their waits and long loops read it.
    interrupt: Arc<Interrupt>,
    /// The role it runs as (`current_user`: the session user, or the
    /// one SET ROLE chose).
    role: crate::roles::Role,
    /// The session user (`session_user`): the role it connected as
    /// (`set_user`), or the one SET SESSION AUTHORIZATION chose.
    session_role: crate::roles::Role,
    /// The role it connected as: whether it may SET SESSION
    /// AUTHORIZATION, and the role `DEFAULT` means.
    authenticated: crate::roles::Role,
    /// Whether a SET ROLE chose `role` (the `role` setting shows it,
    /// else `none`).
    role_chosen: bool,
    /// Both names, as each statement's `roles::Scope` holds them.
    scoped_roles: Arc<crate::roles::Scoped>,
    /// Its open cursors (`cursors/`).
    cursors: crate::cursors::Cursors,
    /// Its named prepared statements as `pg_prepared_statements` lists
    /// them (`prepared_listing.rs`).
    listing: crate::prepared_listing::Listing,
}

/// A prepared statement and its plan.
struct Prepared {
    /// Any statement a query message could hold but COPY FROM STDIN
    /// (the extended protocol takes utility statements too: `RESET`,
    /// `VACUUM`, `COMMENT`, ...).
    statement: Parsed,
    /// The text it was prepared from (Parse), where its planning errors
    /// point (`position.rs`); empty for SQL's PREPARE.
    text: String,
    /// Its nodes' token locations are `text`'s (not a kept shape's).
    located: bool,
    parameters: usize,
    /// The types declared for its parameters (`PREPARE p(int)`, Parse's
    /// oids): a Describe reports them, used or not.
    declared: Vec<Option<SqlType>>,
    /// Whether it runs through a kept plan (`statement::plannable`).
    plannable: bool,
    /// Its `pg_prepared_statements` entry (`None`: not listed yet, or
    /// the unnamed statement).
    listed: Option<Arc<crate::prepared_listing::Entry>>,
    /// The plan (queries and row changes), with the calls of PL/pgSQL
    /// functions taken out of the statement before it was planned.
    plan: Option<statement::Kept>,
    /// The result columns of its first plan, made when it was prepared
    /// (`None`: not planned yet; `Some(None)`: no rows): a later plan
    /// must return the same, as PostgreSQL's cached plans must.
    result: Option<Option<Arc<[crate::output::Column]>>>,
}

enum Block {
    Idle,
    Open(Transaction),
    /// The block failed: only ROLLBACK, or ROLLBACK TO a savepoint when
    /// one was open (its transaction is then kept, the failed work undone
    /// by the ROLLBACK TO, as PostgreSQL's subtransactions).
    Failed(Option<Transaction>),
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

/// A COPY FROM waiting for data: its statement spans messages.
struct Copying {
    copy: CopyIn,
    /// Its own transaction when it runs outside a block.
    own: Option<Transaction>,
    /// The session's settings as the COPY's `set_config` calls (its
    /// triggers') have left them so far: what its next piece runs with.
    settings: Arc<Settings>,
    /// Those calls, in order, for the session once the COPY succeeds.
    changes: Vec<Change>,
}

impl Copying {
    /// Leaves a piece's settings scope, keeping its `set_config` calls.
    fn keep(&mut self, scope: crate::setting_functions::Scope) {
        let (changed, changes) = scope.finish_with_settings();
        if let Some(settings) = changed {
            self.settings = Arc::new(*settings);
        }
        self.changes.extend(changes);
    }
}

impl Drop for Session {
    /// The session ends (a client's disconnect, clean or not): its open
    /// transaction rolls back, then its temporary tables are dropped.
    fn drop(&mut self) {
        self.copy = None;
        self.block = Block::Idle;
        self.temp.end_session(&self.db);
    }
}

impl Session {
    /// A session with the next free process id.
    pub fn new(db: Arc<Database>) -> Session {
        Session::with_pid(db, None)
    }

    /// A session registered as process `pid` among the database's live
    /// sessions (one the server reserved for the connection's
    /// BackendKeyData: `Backends::reserve_pid`), or the next free one.
    pub fn with_pid(db: Arc<Database>, pid: Option<u32>) -> Session {
        crate::index_exprs::lend(&db);
        let interrupt = Arc::new(Interrupt::new());
        let advisory = db.txns().advisory().owner(interrupt.clone());
        let backend =
            crate::backend::SessionBackend::register(&db, pid, interrupt.clone(), advisory.id());
        let superuser = crate::roles::SUPERUSER;
        let scoped_roles = Arc::new(crate::roles::Scoped::new(superuser, superuser, false, &db));
        let defaults = Arc::new(Settings::for_database(db.options()));
        Session {
            advisory: crate::advisory::SessionAdvisory::new(advisory),
            backend,
            db,
            block: Block::Idle,
            notices: Vec::new(),
            copy: None,
            block_start: 0,
            statement_start: std::cell::Cell::new(None),
            prepared: foldhash::HashMap::default(),
            plpgsql: Default::default(),
            settings: defaults.clone(),
            session_defaults: defaults,
            settings_at_begin: None,
            block_roles: Default::default(),
            settings_changes: 0,
            implicit: false,
            chained_modes: None,
            deferrable: false,
            without_local: None,
            savepoints: Vec::new(),
            savepoints_made: 0,
            rolled_back_to: None,
            relations: Relations::default(),
            deferred: Default::default(),
            objects: None,
            sequences: Arc::default(),
            temp: Default::default(),
            plans_made: 0,
            shapes: ShapeCache::default(),
            shaped: None,
            generic_runs: 0,
            fresh_block: false,
            queried: false,
            interrupt,
            role: crate::roles::Role::bootstrap(),
            session_role: crate::roles::Role::bootstrap(),
            authenticated: crate::roles::Role::bootstrap(),
            role_chosen: false,
            scoped_roles,
            cursors: Default::default(),
            listing: Default::default(),
        }
    }

    /// Makes the session run as role `name` (a connection's startup
    /// `user`): PostgreSQL's FATAL 28000 when there is no such role or
    /// it may not log in.
    pub fn set_user(&mut self, name: &str) -> Result<(), SqlError> {
        let role = crate::roles::get(&self.db, name)?
            .ok_or_else(|| SqlError::new("28000", format!("role \"{name}\" does not exist")))?;
        if !role.login {
            return Err(SqlError::new(
                "28000",
                format!("role \"{name}\" is not permitted to log in"),
            ));
        }
        self.session_role = role.clone();
        self.authenticated = role.clone();
        self.role = role;
        self.scoped_roles = Arc::new(crate::roles::Scoped::new(name, name, false, &self.db));
        self.role_chosen = false;
        Ok(())
    }

    /// `SET [LOCAL] ROLE name | NONE` (`None`: back to the session user):
    /// a superuser session may take any role, another its own and those
    /// it is a member of, INHERIT or not (`memberships.rs`). In a block, what its end gives
    /// back is kept (`block_roles.rs`); a LOCAL one outside a block is
    /// checked, warned about and not done, as PostgreSQL's. Kept plans are
    /// made again.
    fn set_role(&mut self, name: Option<&str>, local: bool) -> Result<Output, SqlError> {
        let idle = matches!(self.block, Block::Idle);
        let not_done = self.local_outside_block(local);
        let role = match name {
            None => self.session_role.clone(),
            Some(name) => {
                let role = crate::roles::get(&self.db, name)?
                    .ok_or_else(|| crate::roles::undefined(name))?;
                if role.oid != self.session_role.oid
                    && !crate::memberships::Graph::load(&self.db)?.is_member_of(
                        self.session_role.oid,
                        role.oid,
                        true,
                    )
                {
                    return Err(SqlError::new(
                        "42501",
                        format!("permission denied to set role \"{name}\""),
                    ));
                }
                role
            }
        };
        if not_done {
            return Ok(Output::command("SET"));
        }
        let roles = crate::block_roles::Roles {
            session: self.session_role.clone(),
            current: role,
            chosen: name.is_some(),
        };
        self.change_roles(roles, local, idle);
        Ok(Output::command("SET"))
    }

    /// `SET [LOCAL] SESSION AUTHORIZATION name | DEFAULT` (`None`: the
    /// role the session connected as): only a session that connected as
    /// a superuser may take another role (42501, as PostgreSQL's check
    /// hook); the role becomes both the session user and the current
    /// role, ending a SET ROLE. Kept like SET ROLE in a block.
    fn set_session_authorization(
        &mut self,
        name: Option<&str>,
        local: bool,
    ) -> Result<Output, SqlError> {
        let idle = matches!(self.block, Block::Idle);
        let not_done = self.local_outside_block(local);
        let role = match name {
            None => self.authenticated.clone(),
            Some(name) => {
                crate::roles::get(&self.db, name)?.ok_or_else(|| crate::roles::undefined(name))?
            }
        };
        if role.oid != self.authenticated.oid
            && crate::roles::by_oid(&self.db, self.authenticated.oid)?.is_none_or(|a| !a.superuser)
        {
            return Err(SqlError::new(
                "42501",
                format!(
                    "permission denied to set session authorization \"{}\"",
                    role.name
                ),
            ));
        }
        if not_done {
            return Ok(Output::command("SET"));
        }
        let roles = crate::block_roles::Roles {
            session: role.clone(),
            current: role,
            chosen: false,
        };
        self.change_roles(roles, local, idle);
        Ok(Output::command("SET"))
    }

    /// The session user and the current role now.
    fn roles(&self) -> crate::block_roles::Roles {
        crate::block_roles::Roles {
            session: self.session_role.clone(),
            current: self.role.clone(),
            chosen: self.role_chosen,
        }
    }

    /// A SET ROLE or SET SESSION AUTHORIZATION makes `roles` the
    /// session's; in a block (`idle` false) what its end gives back is
    /// kept first.
    fn change_roles(&mut self, roles: crate::block_roles::Roles, local: bool, idle: bool) {
        if !idle {
            self.block_roles.set(&self.roles(), &roles, local);
        }
        self.become_roles(roles);
    }

    /// Makes `roles` the session user and current role; kept plans are
    /// made again.
    fn become_roles(&mut self, roles: crate::block_roles::Roles) {
        self.session_role = roles.session;
        self.role_chosen = roles.chosen;
        self.become_role(roles.current);
    }

    /// Makes `role` the session's current role; kept plans are made again.
    fn become_role(&mut self, role: crate::roles::Role) {
        self.scoped_roles = Arc::new(crate::roles::Scoped::new(
            &role.name,
            &self.session_role.name,
            self.role_chosen,
            &self.db,
        ));
        self.role = role;
        self.relations.ddl();
    }

    /// The session's cancel flag: setting it cancels the running
    /// statement (57014); the server clears it before the next.
    pub fn interrupt(&self) -> Arc<Interrupt> {
        self.interrupt.clone()
    }

    /// The session's entry among the live sessions (its process id, what
    /// `pg_stat_activity` shows, its notifications).
    pub fn backend(&self) -> &Arc<folio_txn::Backend> {
        self.backend.backend()
    }

    /// A new transaction that reads the session's cancel flag.
    fn begin_txn(&self, isolation: Isolation) -> Result<Transaction, SqlError> {
        crate::transaction_control::begin(
            &self.db,
            &self.backend,
            &self.advisory,
            &self.settings,
            self.interrupt.clone(),
            isolation,
        )
    }

    /// Whether a CALL or DO run now, as a statement of its own, may end
    /// its transaction: outside any block (a message's implicit block
    /// included), as PostgreSQL's top level outside a transaction block.
    fn nonatomic(&self) -> bool {
        matches!(self.block, Block::Idle)
    }

    /// The database the session runs on.
    pub fn database(&self) -> &Arc<Database> {
        &self.db
    }

    /// The transaction status (the protocol's ReadyForQuery byte).
    pub fn status(&self) -> TxStatus {
        match self.block {
            Block::Idle => TxStatus::Idle,
            Block::Open(_) => TxStatus::InBlock,
            Block::Failed(_) => TxStatus::Failed,
        }
    }

    /// Notices and warnings raised since the last call (PostgreSQL's
    /// NoticeResponse: `table "x" does not exist, skipping`, ...).
    pub fn take_notices(&mut self) -> Vec<Notice> {
        let mut notices = std::mem::take(&mut self.notices);
        notices.extend(self.advisory.take_warnings());
        notices.extend(self.backend.take_warnings());
        notices.retain(|notice| self.settings.sends(notice.severity));
        for notice in &mut notices {
            self.temp.unqualify(&mut notice.message);
        }
        notices
    }

    /// Runs the statements of a simple-query message in order, stopping
    /// at the first error (as PostgreSQL does): the outputs of those that
    /// ran, and the error if one failed.
    pub fn simple_query(&mut self, sql: &str) -> (Vec<Output>, Option<SqlError>) {
        if self.copy.is_some() {
            let e = SqlError::new("08P01", "a query arrived while COPY data was expected");
            return (Vec::new(), Some(self.copy_fail_with(e)));
        }
        let (statements, mut lent) = match self.shapes.take(sql) {
            Ok(taken) => taken,
            Err(e) => {
                self.fail();
                return (Vec::new(), Some(e));
            }
        };
        self.shaped = lent.as_mut().and_then(crate::shape::Lent::take_generic);
        self.report_start(sql);
        let (outputs, error) = self.run_statements(&statements, sql);
        self.report_idle();
        if let (Some(lent), Some((generic, ..))) = (lent.as_mut(), self.shaped.take()) {
            lent.restore_generic(generic);
        }
        let shaped = lent.is_some();
        if let Some(lent) = lent {
            self.shapes.give_back(lent, statements);
        }
        // The failing statement is the one after those that ran (a kept
        // shape's statement has the shape's token locations).
        let error = error.map(|mut e| {
            if shaped {
                e.location = None;
            }
            position::locate(e, sql, outputs.len())
        });
        (outputs, error)
    }

    /// Runs the statements of one query message ([`Session::simple_query`]).
    fn run_statements(
        &mut self,
        statements: &[Parsed],
        sql: &str,
    ) -> (Vec<Output>, Option<SqlError>) {
        let mut outputs = Vec::new();
        let count = statements.len();
        // Several statements outside a block run in one implicit block.
        let implicit = count > 1 && matches!(self.block, Block::Idle);
        for (i, statement) in statements.iter().enumerate() {
            // (A message opening with BEGIN opens an ordinary block.)
            let begins = matches!(statement, Parsed::Sql(s) | Parsed::TransactionModes { statement: s, .. }
                if matches!(**s, Statement::StartTransaction { .. }));
            if implicit
                && !begins
                && matches!(self.block, Block::Idle)
                && let Err(e) = self.begin_implicit()
            {
                return (outputs, Some(e));
            }
            let limits = self.statement_limits();
            let result = self.run_parsed(statement, i + 1 == count, sql);
            let result = result.map_err(|e| self.why_canceled(e));
            drop(limits);
            match result {
                Ok(mut output) => {
                    // Its rows are written in the zone in force now, not
                    // after the message's later statements.
                    if let Output::Rows { style, .. } = &mut output {
                        *style = Some(self.text_style());
                    }
                    outputs.push(output)
                }
                Err(e) => {
                    self.fail();
                    return (outputs, Some(e));
                }
            }
        }
        // A COPY FROM STDIN ending the message ends the block when its
        // data is done.
        if self.implicit
            && self.copy.is_none()
            && let Err(e) = self.end_implicit()
        {
            return (outputs, Some(e));
        }
        (outputs, None)
    }

    /// Runs one parsed statement (`last`: the last of its message; a COPY
    /// FROM STDIN must be) of the message `sql`.
    fn run_parsed(
        &mut self,
        statement: &Parsed,
        last: bool,
        sql: &str,
    ) -> Result<Output, SqlError> {
        if let Some(command) = outside_blocks_only(statement) {
            self.refuse_in_block(command)?;
        }
        match statement {
            Parsed::DropIndexConcurrently(drop) => {
                if let Statement::Drop { names, .. } = &**drop
                    && let [name] = &names[..]
                {
                    self.in_transaction(|cx, txn, _| {
                        let name = crate::names::relation(name)?;
                        let name = crate::temp_tables::resolve_name(cx, txn, &name)?;
                        crate::indexes::refuse_partitioned_concurrently(
                            cx.db,
                            txn,
                            None,
                            Some(&name),
                        )
                    })?;
                }
                self.execute(drop)
            }
            Parsed::Declare(declare) => self.declare(declare, sql),
            Parsed::Fetch(fetch) => {
                if let Block::Failed(_) = self.block {
                    return Err(SqlError::in_failed_block());
                }
                self.cursors
                    .fetch(&fetch.name, fetch.direction, fetch.moving)
            }
            Parsed::Close(name) => {
                if let Block::Failed(_) = self.block {
                    return Err(SqlError::in_failed_block());
                }
                self.cursors.close(name.as_deref())?;
                Ok(Output::command(match name {
                    Some(_) => "CLOSE CURSOR",
                    None => "CLOSE CURSOR ALL",
                }))
            }
            Parsed::Sql(statement) => self.execute(statement),
            Parsed::TransactionModes {
                statement,
                deferrable,
            } => self.with_deferrable(statement, *deferrable),
            Parsed::Vacuum(vacuum) => self.vacuum(vacuum),
            Parsed::Copy(copy) if copy.to_stdout => self.copy_out(copy),
            Parsed::Copy(_) if !last => Err(SqlError::unsupported(
                "COPY FROM STDIN followed by other statements in one query",
            )),
            Parsed::Copy(copy) => self.start_copy(copy),
            Parsed::Reset(name) => self.reset(name),
            Parsed::SetSessionAuthorization { role, local } => {
                self.set_session_authorization(role.as_deref(), *local)
            }
            Parsed::Checkpoint => self.checkpoint(),
            Parsed::PrepareTransaction(gid) => self.prepare_transaction(gid),
            Parsed::FinishPrepared { gid, commit } => self.finish_prepared(gid, *commit),
            Parsed::SetConstraints(set) => self.set_constraints(set),
            Parsed::AlterSequence(alter) => self.alter_sequence(alter),
            Parsed::Cluster(cluster) => self.cluster(cluster),
            Parsed::Reindex(reindex) => {
                let in_block = matches!(self.block, Block::Open(_));
                self.utility(|cx, txn, _| crate::reindex::reindex(cx, txn, reindex, in_block))
            }
            Parsed::Lock(lock) => self.lock_tables(lock),
            Parsed::CreateAsExecute {
                create,
                execute,
                data,
            } => self.create_as_execute(create, execute, *data),
            Parsed::CreateSchema { create, elements } => self.create_schema(create, elements, sql),
            other @ (Parsed::DropExpression(_)
            | Parsed::AlterIdentity(_)
            | Parsed::Comment(_)
            | Parsed::ClusterOn(_)
            | Parsed::AlterRowSecurity(_)
            | Parsed::RoleGrant(_)
            | Parsed::RoutineGrant(_)
            | Parsed::RevokeGrantOption(_)
            | Parsed::AlterConstraint(_)
            | Parsed::Inherit(_)
            | Parsed::SetLogged(_)
            | Parsed::CreateUnloggedSequence(_)
            | Parsed::CreateMatview { .. }
            | Parsed::Refresh(_)
            | Parsed::AlterView { .. }
            | Parsed::AlterViewOptions(_)
            | Parsed::CreateDomain(_)
            | Parsed::CreateProcedure { .. }
            | Parsed::CreateAggregate(_)
            | Parsed::DropAggregate(_)
            | Parsed::AlterDomain(_)
            | Parsed::CreateTrigger { .. }
            | Parsed::CreateRule(_)
            | Parsed::RuleNamed(_)
            | Parsed::RenameTrigger(_)
            | Parsed::CreatePartitioned { .. }
            | Parsed::CreateLike { .. }
            | Parsed::AttachPartition { .. }) => {
                self.utility(|cx, txn, notices| run_utility(cx, txn, notices, other))
            }
            Parsed::Do(_) => {
                let nonatomic = self.nonatomic();
                self.utility(|cx, txn, notices| {
                    cx.nonatomic.set(nonatomic);
                    run_utility(cx, txn, notices, statement)
                })
            }
        }
    }

    /// Before prepared statement `name` runs (the extended protocol's
    /// Execute, or a Describe of a portal, which runs it): outside a block,
    /// opens the implicit block of the pipeline, so everything up to the
    /// next Sync is one transaction, as in PostgreSQL (an error rolls back
    /// what ran before it in the pipeline; [`Session::end_pipeline`]
    /// commits at Sync). Transaction control (`BEGIN`, `COMMIT`, ...) and
    /// an unknown statement open nothing; a later `BEGIN` turns the block
    /// into an ordinary one, as in a multi-statement query.
    pub fn begin_pipeline(&mut self, name: &str) -> Result<(), SqlError> {
        match self.prepared.get(name) {
            Some(prepared) if self.pipeline_opens(prepared) => self.begin_implicit(),
            _ => Ok(()),
        }
    }

    /// Whether `prepared`, about to run, opens the pipeline's implicit
    /// block ([`Session::begin_pipeline`]).
    fn pipeline_opens(&self, prepared: &Prepared) -> bool {
        matches!(self.block, Block::Idle)
            && self.copy.is_none()
            && opens_pipeline(&prepared.statement)
    }

    /// An error the protocol found outside a statement's run (Parse,
    /// Bind, Describe, an unknown portal): the block fails as a
    /// statement's error fails it, since PostgreSQL aborts the transaction
    /// on any error; a pipeline's implicit block rolls back.
    pub fn fail_block(&mut self) {
        self.fail();
    }

    /// A setting from the connection's startup packet (a parameter such
    /// as `application_name`, or `-c name=value` in its `options`), applied
    /// as `SET` applies it: a bad value is the error PostgreSQL gives
    /// (the connection then ends). A name folio does not model is
    /// ignored, where PostgreSQL knows it or refuses it: drivers send
    /// settings folio has no use for (`geqo`, `lock_timeout`, ...). So is
    /// a `DateStyle` or `search_path` folio does not work in, but not a
    /// `client_encoding` other than UTF-8, which would garble text. A
    /// `TimeZone` (JDBC sends the JVM's) is the session's, as any SET.
    pub fn set_at_startup(&mut self, name: &str, value: &str) -> Result<(), SqlError> {
        let name = name.to_ascii_lowercase();
        match self.settings_mut().set(&name, value) {
            Err(e) if e.code == "42704" => Ok(()),
            Err(e) if e.code == "0A000" && name != "client_encoding" => Ok(()),
            Err(e) => Err(e),
            // RESET comes back to it, as PostgreSQL's session default.
            Ok(()) => {
                self.session_defaults = self.settings.clone();
                Ok(())
            }
        }
    }

    /// The server's limit on sessions, which `SHOW max_connections` and
    /// `pg_settings` report (the server sets it when a session starts).
    pub fn set_max_connections(&mut self, max: u32) {
        self.settings_mut().set_max_connections(max);
        Arc::make_mut(&mut self.session_defaults).set_max_connections(max);
    }

    /// The server's `folio.statement_memory_limit` in kB (0 or -1: none),
    /// which the session starts with and RESET goes back to (the server
    /// sets it when a session starts).
    pub fn set_statement_memory_limit_kb(&mut self, kb: i64) {
        self.settings_mut().set_statement_memory_limit_kb(kb);
        Arc::make_mut(&mut self.session_defaults).set_statement_memory_limit_kb(kb);
    }

    /// `SHOW name` of the session's settings.
    pub fn show_setting(&self, name: &str) -> Result<String, SqlError> {
        self.settings.show(name, None)
    }

    /// The session's `TimeZone`, for the server writing timestamptz
    /// values as text after a statement (a statement itself reads it
    /// from its scope, `setting_functions::time_zone`).
    pub fn time_zone(&self) -> &folio_row::TimeZone {
        self.settings.time_zone()
    }

    /// The session's text style (`TimeZone`, `IntervalStyle`,
    /// `extra_float_digits`), for the server writing values as text
    /// after a statement.
    pub fn text_style(&self) -> folio_row::TextStyle {
        self.settings.text_style()
    }

    /// The session's settings, to change (copied first if the last
    /// statement's scope or a block's start still holds them).
    fn settings_mut(&mut self) -> &mut Settings {
        self.settings_changes += 1;
        Arc::make_mut(&mut self.settings)
    }

    /// A number that stays the same while no setting changed (it may
    /// move without a change): a client of the session tests it before
    /// reading settings to report (the server's ParameterStatus).
    pub fn settings_generation(&self) -> u64 {
        self.settings_changes
    }

    /// Sync: commits the pipeline's implicit block, if one is open (an
    /// error in it already rolled it back).
    pub fn end_pipeline(&mut self) -> Result<(), SqlError> {
        let ended = if self.implicit && self.copy.is_none() {
            self.end_implicit()
        } else {
            Ok(())
        };
        self.report_idle();
        ended
    }

    /// Opens the implicit block of a multi-statement message.
    fn begin_implicit(&mut self) -> Result<(), SqlError> {
        self.block = Block::Open(self.begin_txn(self.settings.default_isolation())?);
        self.block_start = self.statement_clock();
        self.settings_at_begin = Some(self.settings.clone());
        self.deferrable = self.settings.default_deferrable();
        self.implicit = true;
        self.fresh_block = true;
        Ok(())
    }

    /// Commits the implicit block at its message's end.
    fn end_implicit(&mut self) -> Result<(), SqlError> {
        if let Err(e) = self.run_deferred() {
            self.fail();
            return Err(e);
        }
        self.implicit = false;
        self.relations.end_transaction();
        if let Block::Open(txn) = std::mem::replace(&mut self.block, Block::Idle) {
            let committed = self.commit_txn(txn);
            self.end_block(committed.is_ok());
            committed?;
        }
        Ok(())
    }

    /// Parses `sql` (one statement, with `$1`, `$2`, ... parameters) and
    /// keeps it as prepared statement `name` (`""`: the unnamed one,
    /// replaced by the next); its number of parameters. A query or row
    /// change is planned now (`plan_prepared`), in the block's
    /// transaction or one of its own.
    pub fn prepare(&mut self, name: &str, sql: &str) -> Result<usize, SqlError> {
        self.prepare_text(name, sql, &[], false)
    }

    /// The extended protocol's Parse: [`Session::prepare`], but outside a
    /// block a query or row change opens the pipeline's implicit block
    /// and is planned in it, as PostgreSQL's Parse starts the pipeline's
    /// transaction (the Sync that ends the pipeline commits it:
    /// [`Session::end_pipeline`]).
    pub fn parse(&mut self, name: &str, sql: &str) -> Result<usize, SqlError> {
        self.prepare_text(name, sql, &[], true)
    }

    /// [`Session::parse`] with the Parse message's parameter types:
    /// `types[n - 1]` the oid of `$n`'s (0: none given, inferred).
    pub fn parse_typed(&mut self, name: &str, sql: &str, types: &[u32]) -> Result<usize, SqlError> {
        let types: Vec<(u32, i32)> = types.iter().map(|&oid| (oid, -1)).collect();
        self.prepare_text(name, sql, &types, true)
    }

    /// [`Session::prepare`] with parameters of the given `types`
    /// ([`crate::params::declare`]), opening the pipeline's block if
    /// `pipeline`.
    fn prepare_text(
        &mut self,
        name: &str,
        sql: &str,
        types: &[(u32, i32)],
        pipeline: bool,
    ) -> Result<usize, SqlError> {
        let (mut statements, shaped) = self.shapes.statements(sql)?;
        let statement = match (statements.pop(), statements.is_empty()) {
            (None, _) => return Err(SqlError::unsupported("an empty prepared statement")),
            (Some(Parsed::Copy(copy)), true) if !copy.to_stdout => {
                return Err(SqlError::unsupported(
                    "COPY FROM STDIN in the extended protocol",
                ));
            }
            (Some(statement), true) => statement,
            (Some(_), false) => {
                return Err(SqlError::syntax(
                    "cannot insert multiple commands into a prepared statement",
                ));
            }
        };
        let statement = match statement {
            Parsed::Sql(mut statement) if !types.is_empty() => {
                crate::params::declare(&mut statement, types);
                Parsed::Sql(statement)
            }
            other => other,
        };
        let parameters = self.keep_prepared(name, statement, sql, !shaped, types)?;
        self.plan_prepared(name, pipeline)?;
        self.list_prepared(name, sql.to_string(), false);
        Ok(parameters)
    }

    /// Plans prepared statement `name`, if it is a query or row change,
    /// as PostgreSQL analyzes a statement when it is prepared: its result
    /// columns are fixed here (a later plan that would return others is
    /// 0A000 `cached plan must not change result type`, even if it never
    /// ran before the DDL), and an error in it (a missing table) is the
    /// PREPARE's, the statement forgotten. In a failed block: 25P02.
    /// `pipeline`: outside a block, open the pipeline's implicit block for
    /// the plan (Parse).
    fn plan_prepared(&mut self, name: &str, pipeline: bool) -> Result<(), SqlError> {
        if !self.prepared(name)?.plannable {
            return Ok(());
        }
        if let Block::Failed(_) = self.block {
            self.forget_prepared(name);
            return Err(SqlError::in_failed_block());
        }
        if pipeline {
            self.begin_pipeline(name)?;
        }
        // The snapshot of a block opened just now serves the statement's
        // first execution too, as if the plan were made then (a second
        // snapshot cost 5% of a pipelined point query: `fresh_block`).
        let fresh = self.fresh_block;
        let planned = self.with_kept_plan(name, |_, _, _, _, _| Ok(()));
        match planned {
            Ok(()) => self.fresh_block = fresh,
            Err(_) => {
                self.forget_prepared(name);
            }
        }
        planned
    }

    /// Keeps `statement`, prepared from `text` (`located`: parsed from
    /// it), as prepared statement `name` (42P05 if a named one exists);
    /// its number of parameters (its highest `$n`, or the `declared`
    /// types' count if more, as PostgreSQL's).
    fn keep_prepared(
        &mut self,
        name: &str,
        statement: Parsed,
        text: &str,
        located: bool,
        declared: &[(u32, i32)],
    ) -> Result<usize, SqlError> {
        if !name.is_empty() && self.prepared.contains_key(name) {
            return Err(SqlError::new(
                "42P05",
                format!("prepared statement \"{name}\" already exists"),
            ));
        }
        // (Only sqlparser's statements take parameters.)
        let (numbered, plannable) = match &statement {
            Parsed::Sql(statement) => (
                crate::params::numbered(statement),
                statement::plannable(statement),
            ),
            _ => (crate::params::Numbered { named: Vec::new() }, false),
        };
        let parameters = numbered.highest().max(declared.len());
        // A parameter neither named nor declared has no type: 42P18 at
        // once, as PostgreSQL's Parse and PREPARE.
        let typed = |n: usize| declared.get(n - 1).is_some_and(|&(oid, _)| oid != 0);
        if let Some(n) = (1..=parameters).find(|&n| !numbered.names(n) && !typed(n)) {
            return Err(crate::params::indeterminate(n));
        }
        // Oid 0 declares nothing; an oid folio does not know is 42704
        // where the statement uses it (`scalar::bind`).
        let declared = (declared.iter())
            .map(|&(oid, typmod)| {
                (oid != 0)
                    .then(|| crate::user_types::of_oid(oid, typmod))
                    .flatten()
            })
            .collect();
        self.prepared.insert(
            name.to_string(),
            Box::new(Prepared {
                statement,
                text: text.to_string(),
                located,
                parameters,
                declared,
                plannable,
                listed: None,
                plan: None,
                result: None,
            }),
        );
        Ok(parameters)
    }

    /// Prepared statement `name`, or 26000.
    fn prepared(&self, name: &str) -> Result<&Prepared, SqlError> {
        self.prepared.get(name).map(|p| &**p).ok_or_else(|| {
            SqlError::new(
                "26000",
                format!("prepared statement \"{name}\" does not exist"),
            )
        })
    }

    /// The number of parameters of prepared statement `name` (26000 if
    /// there is none).
    pub fn parameter_count(&self, name: &str) -> Result<usize, SqlError> {
        self.prepared(name).map(|p| p.parameters)
    }

    /// The rows a portal of prepared statement `name` returns (Describe of
    /// a portal), when they are known without running it: `None` for a
    /// statement whose rows only its run tells (not a query or row
    /// change: EXPLAIN, EXECUTE, CALL, ...); else `Some` of the columns
    /// its plan gave when made (`None` inside: no rows), which its
    /// Execute checks again; unplanned yet, it is planned now (in the
    /// pipeline's transaction). In a failed block, 25P02 (as
    /// [`Session::describe_prepared`]).
    pub fn portal_columns(
        &mut self,
        name: &str,
    ) -> Result<Option<Option<Arc<[crate::output::Column]>>>, SqlError> {
        let prepared = self.prepared(name)?;
        if !prepared.plannable {
            return Ok(None);
        }
        if matches!(self.block, Block::Failed(_)) {
            return Err(SqlError::in_failed_block());
        }
        // (Shared, not borrowed: a described statement is looked up once.)
        if let Some(result) = &prepared.result {
            return Ok(Some(result.clone()));
        }
        self.begin_pipeline(name)?;
        // (Planning keeps the plan's columns as the result.)
        self.describe_prepared(name)?;
        Ok(Some(self.prepared(name)?.result.clone().flatten()))
    }

    /// What prepared statement `name` takes and returns (Describe of a
    /// statement): its parameters' types, and its result columns (`None`:
    /// no rows). A query or row change reads its kept plan (made when it
    /// was prepared, again after DDL); another statement's parameters are
    /// `text` and it returns no rows.
    pub fn describe_prepared(
        &mut self,
        name: &str,
    ) -> Result<(Vec<SqlType>, Option<Vec<crate::output::Column>>), SqlError> {
        let prepared = self.prepared(name)?;
        let (plannable, mut types) = (prepared.plannable, prepared.declared.clone());
        types.resize(prepared.parameters, None);
        // In a failed block only a statement that returns no rows is
        // described (PostgreSQL's rule: ROLLBACK's Describe must work).
        let failed = matches!(self.block, Block::Failed(_));
        if failed && plannable {
            return Err(SqlError::in_failed_block());
        }
        if !plannable {
            // SHOW returns its row without a plan, FETCH its cursor's
            // (none if it is not open); other statements none.
            let statement = self.prepared(name)?.statement.clone();
            let columns = match &statement {
                Parsed::Fetch(fetch) if !fetch.moving => self.cursors.columns(&fetch.name),
                Parsed::Sql(statement) => match &**statement {
                    Statement::ShowVariable { variable } => match &*show_name(variable) {
                        "all" => Some(show_all_columns()),
                        name => Some(show_columns(name)),
                    },
                    // CALL: its procedure's OUT and INOUT arguments.
                    Statement::Call(call) if !failed => self.in_transaction(|_, _, _| {
                        Ok(crate::procedures::describe(call, &mut types))
                    })?,
                    _ => None,
                },
                _ => None,
            };
            if failed && columns.is_some() {
                return Err(SqlError::in_failed_block());
            }
            let types = types.into_iter().map(|t| t.unwrap_or(SqlType::Text));
            return Ok((types.collect(), columns));
        }
        self.with_kept_plan(name, |plan, _, _, _, _| {
            Ok((plan.param_types(types), plan.columns()))
        })
    }

    /// Forgets prepared statement `name` (Close).
    pub fn close_prepared(&mut self, name: &str) {
        self.forget_prepared(name);
    }

    /// Forgets prepared statement `name`, and its listing; whether there
    /// was one.
    fn forget_prepared(&mut self, name: &str) -> bool {
        self.listing.remove(name);
        self.prepared.remove(name).is_some()
    }

    /// Forgets every prepared statement (DEALLOCATE ALL, DISCARD ALL).
    fn forget_all_prepared(&mut self) {
        self.listing.clear();
        self.prepared.clear();
    }

    /// Lists prepared statement `name`, just prepared from `text` (by
    /// SQL's PREPARE if `from_sql`), in `pg_prepared_statements`, with
    /// its parameters' types as a Describe reports them.
    fn list_prepared(&mut self, name: &str, text: String, from_sql: bool) {
        if name.is_empty() {
            return;
        }
        let Ok((types, _)) = self.describe_prepared(name) else {
            return;
        };
        let entry = Arc::new(crate::prepared_listing::Entry::new(
            text,
            folio_row::calendar::now(),
            types,
            from_sql,
        ));
        self.listing.add(name, entry.clone());
        if let Some(prepared) = self.prepared.get_mut(name) {
            prepared.listed = Some(entry);
        }
    }

    /// Runs prepared statement `name` with its parameters in text format
    /// (`None`: NULL), each taking the type of what it meets as a quoted
    /// literal does (Bind and Execute). An error fails a block as in
    /// [`Session::simple_query`].
    pub fn execute_prepared(
        &mut self,
        name: &str,
        parameters: &[Option<String>],
    ) -> Result<Output, SqlError> {
        self.execute_prepared_in(name, parameters, false)
    }

    /// The extended protocol's run of a portal of prepared statement
    /// `name` (its first Execute, or a Describe of it, which runs it):
    /// [`Session::execute_prepared`], opening the pipeline's implicit
    /// block first outside a block ([`Session::begin_pipeline`]). The
    /// block begins when the statement starts (`now()` is its
    /// `statement_timestamp()`, one clock read for both), as the
    /// transaction of a query message's first statement does in
    /// PostgreSQL.
    pub fn execute_in_pipeline(
        &mut self,
        name: &str,
        parameters: &[Option<String>],
    ) -> Result<Output, SqlError> {
        self.execute_prepared_in(name, parameters, true)
    }

    /// [`Session::execute_prepared`], in the pipeline's implicit block if
    /// `pipeline` ([`Session::execute_in_pipeline`]).
    fn execute_prepared_in(
        &mut self,
        name: &str,
        parameters: &[Option<String>],
        pipeline: bool,
    ) -> Result<Output, SqlError> {
        let result = match self.prepared.remove_entry(name) {
            // A query or row change runs out of the map (its kept plan
            // runs with the session borrowed): looked up once.
            Some((key, mut prepared)) if prepared.plannable => {
                let result = self
                    .start_prepared(&prepared, pipeline)
                    .and_then(|()| self.timed(|s| s.run_kept_prepared(&mut prepared, parameters)));
                self.prepared.insert(key, prepared);
                result
            }
            // Another statement stays in the map while it runs (it may
            // name itself: `DEALLOCATE`).
            Some((key, prepared)) => {
                let started = self.start_prepared(&prepared, pipeline);
                self.prepared.insert(key, prepared);
                started.and_then(|()| self.timed(|s| s.run_prepared(name, parameters)))
            }
            None => self.run_prepared(name, parameters),
        };
        let result = result.map_err(|e| self.why_canceled(e));
        if result.is_err() {
            self.fail();
        }
        result
    }

    /// Prepared statement `prepared` starts ([`Session::report_start`]);
    /// if `pipeline`, outside a block, the pipeline's implicit block opens
    /// at its start.
    fn start_prepared(&mut self, prepared: &Prepared, pipeline: bool) -> Result<(), SqlError> {
        self.report_start(&prepared.text);
        match pipeline && self.pipeline_opens(prepared) {
            true => self.begin_implicit(),
            false => Ok(()),
        }
    }

    /// Runs `f` under the session's statement limits.
    fn timed<T>(&mut self, f: impl FnOnce(&mut Session) -> T) -> T {
        let _limits = self.statement_limits();
        f(self)
    }

    /// A statement starts: its `statement_timeout` is armed, its memory
    /// is measured from here against `folio.statement_memory_limit`, and
    /// the special date/time input `now` reads its transaction's start
    /// (all on this thread, where it runs to its end), until the result
    /// is dropped.
    fn statement_limits(
        &self,
    ) -> (
        Option<crate::statement_timeout::Armed>,
        folio_memory::Limit,
        folio_row::calendar::PinnedTransactionStart,
    ) {
        let armed =
            crate::statement_timeout::arm(&self.interrupt, self.settings.statement_timeout());
        let (bytes, _) = self.settings.statement_memory_limit();
        let started = match self.block {
            Block::Idle => self.statement_clock(),
            _ => self.block_start,
        };
        (
            armed,
            folio_memory::limit(bytes),
            folio_row::calendar::pin_transaction_start(started),
        )
    }

    /// A canceled statement's error says why, as PostgreSQL's: a
    /// CancelRequest, or `statement_timeout`; one that passed its memory
    /// limit names it.
    fn why_canceled(&self, mut e: SqlError) -> SqlError {
        if e.code == "53200" {
            let (_, kb) = self.settings.statement_memory_limit();
            return crate::statement_memory::failed(e, kb);
        }
        if e.code == "57014" {
            let cause = self.interrupt.cause();
            if cause == folio_txn::CancelCause::Terminate {
                e.code = "57P01";
            }
            e.message = cause.message().to_string();
        }
        e
    }

    /// `pg_terminate_backend` ended the session: its host closes it with
    /// FATAL 57P01 ([`folio_txn::CancelCause::Terminate`]'s message).
    pub fn terminated(&self) -> bool {
        self.interrupt.is_terminated()
    }

    /// A statement (a query message's, or an Execute's) starts: what
    /// `pg_stat_activity` shows.
    fn report_start(&self, query: &str) {
        let xact_start = match self.block {
            Block::Idle => None,
            _ => Some(self.block_start),
        };
        let at = now();
        self.statement_start.set(Some(at));
        self.backend.statement_starts(query, xact_start, at);
    }

    /// When the running statement began, or the time now between
    /// statements (a Describe that runs one, a pipeline's first Execute).
    fn statement_clock(&self) -> i64 {
        self.statement_start.get().unwrap_or_else(now)
    }

    /// The session waits for its client: its state as `pg_stat_activity`
    /// shows it.
    pub fn report_idle(&self) {
        use folio_txn::BackendState;
        self.statement_start.set(None);
        let (state, xact_start) = match self.block {
            _ if self.implicit => return,
            Block::Idle => (BackendState::Idle, None),
            Block::Open(_) => (BackendState::IdleInTransaction, Some(self.block_start)),
            Block::Failed(_) => (
                BackendState::IdleInTransactionAborted,
                Some(self.block_start),
            ),
        };
        self.backend
            .idle(state, xact_start, self.settings.application_name());
    }

    /// A query or row change runs its kept plan (made at the first
    /// execution, made again when DDL changed a relation it uses); other
    /// statements run with their parameters bound as literals.
    fn run_prepared(
        &mut self,
        name: &str,
        parameters: &[Option<String>],
    ) -> Result<Output, SqlError> {
        let prepared = self.prepared(name)?;
        if prepared.plannable {
            let (name, mut prepared) = self.take_prepared(name)?;
            let result = self.run_kept_prepared(&mut prepared, parameters);
            self.prepared.insert(name, prepared);
            return result;
        }
        check_parameter_count(prepared, parameters)?;
        if let Some(listed) = &prepared.listed {
            listed.count_run();
        }
        if let Some(command) = outside_blocks_only(&prepared.statement) {
            self.refuse_in_block(command)?;
        }
        match &prepared.statement {
            Parsed::Sql(statement) => {
                let statement = crate::params::bind(statement, parameters)?;
                self.execute(&statement)
            }
            other => {
                let other = other.clone();
                let text = prepared.text.clone();
                self.run_parsed(&other, true, &text)
            }
        }
    }

    /// The arguments of `EXECUTE name(arguments)`, evaluated as Bind's
    /// text (`execute_arguments.rs`); first, 42601 unless there are as
    /// many as the statement takes (a Bind's is 08P01:
    /// `check_parameter_count`).
    fn execute_arguments(
        &mut self,
        name: &str,
        arguments: &[sqlparser::ast::Expr],
    ) -> Result<Vec<Option<String>>, SqlError> {
        let prepared = self.prepared(name)?;
        let wanted = prepared.parameters;
        if arguments.len() != wanted {
            return Err(SqlError::syntax(format!(
                "wrong number of parameters for prepared statement \"{name}\""
            ))
            .with_detail(format!(
                "Expected {wanted} parameters but got {}.",
                arguments.len()
            )));
        }
        let declared = prepared.declared.clone();
        if arguments.is_empty() {
            return Ok(Vec::new());
        }
        self.in_transaction(|cx, _, _| crate::execute_arguments::values(arguments, &declared, cx))
    }

    /// `CREATE TABLE ... AS EXECUTE name(args) [WITH [NO] DATA]`: the
    /// CREATE TABLE AS of prepared query `name`, its parameters bound to
    /// the arguments (42809 if it is not a SELECT, as PostgreSQL's); WITH
    /// NO DATA makes the table and inserts no row (`SELECT 0`).
    fn create_as_execute(
        &mut self,
        create: &Statement,
        execute: &Statement,
        data: bool,
    ) -> Result<Output, SqlError> {
        let Statement::Execute {
            name: Some(name),
            parameters,
            ..
        } = execute
        else {
            return Err(SqlError::syntax("syntax error at or near \"EXECUTE\""));
        };
        let name = crate::names::relation(name)?;
        let query = match &self.prepared(&name)?.statement {
            Parsed::Sql(statement) if matches!(**statement, Statement::Query(_)) => {
                statement.clone()
            }
            _ => {
                return Err(SqlError::new("42809", "prepared statement is not a SELECT"));
            }
        };
        let values = self.execute_arguments(&name, parameters)?;
        let Statement::Query(mut query) = crate::params::bind(&query, &values)? else {
            unreachable!("a bound query is a query");
        };
        if !data {
            let text = format!("SELECT * FROM ({query}) AS created LIMIT 0");
            query = Box::new(crate::parse::query(&text)?);
        }
        let mut create = create.clone();
        let Statement::CreateTable(table) = &mut create else {
            return Err(SqlError::syntax("syntax error at or near \"EXECUTE\""));
        };
        table.query = Some(query);
        self.execute(&create)
    }

    /// `CREATE SCHEMA s element ...` (`schema_elements.rs`): the schema,
    /// then its elements in their order with `s` first on the search
    /// path, all in one transaction (the implicit block of the statement
    /// outside a block).
    fn create_schema(
        &mut self,
        create: &Statement,
        elements: &[Parsed],
        sql: &str,
    ) -> Result<Output, SqlError> {
        let Statement::CreateSchema { schema_name, .. } = create else {
            unreachable!("parse::create_schema made it")
        };
        let schema = crate::schemas::created_name(schema_name)?;
        let opened = matches!(self.block, Block::Idle);
        if opened {
            self.begin_implicit()?;
        }
        let made = self.execute(create)?;
        let before = self.settings.search_path().to_vec();
        let path = std::iter::once(schema)
            .chain(before.iter().cloned())
            .collect();
        Arc::make_mut(&mut self.settings).set_search_path(path);
        self.path_changed(&before);
        let ran = elements
            .iter()
            .try_for_each(|element| self.run_parsed(element, false, sql).map(drop));
        let during = self.settings.search_path().to_vec();
        Arc::make_mut(&mut self.settings).set_search_path(before);
        self.path_changed(&during);
        ran?;
        if opened {
            self.end_implicit()?;
        }
        Ok(made)
    }

    /// [`Session::run_prepared`] of a query or row change, out of the map:
    /// its kept plan runs with `parameters`.
    fn run_kept_prepared(
        &mut self,
        prepared: &mut Prepared,
        parameters: &[Option<String>],
    ) -> Result<Output, SqlError> {
        check_parameter_count(prepared, parameters)?;
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        if let Some(listed) = &prepared.listed {
            listed.count_run();
        }
        // A declared parameter is read by its type's input now, as
        // PostgreSQL's Bind reads it, whether the statement uses it or not.
        let declared = &prepared.declared;
        let mut values: Vec<Value> = (parameters.iter().enumerate())
            .map(|(i, p)| match (p, declared.get(i).copied().flatten()) {
                (None, _) => Ok(Value::Null),
                (Some(text), Some(ty)) => crate::types::coerce(Value::Text(text.clone()), ty),
                (Some(text), None) => Ok(Value::Text(text.clone())),
            })
            .collect::<Result<_, SqlError>>()?;
        let result = self.run_kept(prepared, |plan, calls, txn, cx, notices| {
            calls.run(cx, txn, notices, &mut values)?;
            let env = Env {
                params: &values,
                ..Env::at(cx.now())
            };
            plan.run(cx, txn, &env)
        });
        result.map_err(|e| match &prepared.statement {
            Parsed::Sql(statement) => name_read_only_write(e, statement),
            _ => e,
        })
    }

    /// `EXPLAIN [ANALYZE] EXECUTE name(parameters)`: the kept plan of
    /// prepared query `name` as an execution with `parameters` starts it
    /// (`explain::explain_kept`).
    fn explain_prepared(
        &mut self,
        name: &str,
        parameters: &[Option<String>],
        analyze: bool,
        options: Option<&[sqlparser::ast::UtilityOption]>,
    ) -> Result<Output, SqlError> {
        let prepared = self.prepared(name)?;
        if !prepared.plannable {
            return Err(SqlError::unsupported("EXPLAIN EXECUTE of this statement"));
        }
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        let mut values: Vec<Value> = parameters
            .iter()
            .map(|p| p.clone().map_or(Value::Null, Value::Text))
            .collect();
        self.with_kept_plan(name, |plan, calls, txn, cx, notices| {
            plan.check_privileges(cx)?;
            calls.run(cx, txn, notices, &mut values)?;
            let env = Env {
                params: &values,
                ..Env::of(cx)
            };
            match plan.query() {
                Some(planned) => {
                    crate::explain::explain_kept(cx, txn, analyze, options, planned, &env)
                }
                None => crate::explain_change::explain_kept(
                    cx,
                    txn,
                    notices,
                    (analyze, options),
                    plan,
                    &env,
                ),
            }
        })
    }

    /// Runs `f` with prepared statement `name`'s kept plan (a query or a
    /// row change) and the calls to run before it, in the block's
    /// transaction or one of its own: the plan made when it was prepared,
    /// made again when DDL changed a relation it uses or the session ran
    /// DDL.
    fn with_kept_plan<T>(&mut self, name: &str, f: impl KeptRun<T>) -> Result<T, SqlError> {
        // Out of the map while it runs (the session is borrowed).
        let (name, mut prepared) = self.take_prepared(name)?;
        let result = self.run_kept(&mut prepared, f);
        self.prepared.insert(name, prepared);
        result
    }

    /// Prepared statement `name` taken out of the map (its name as the
    /// map's key, to put it back), or 26000.
    fn take_prepared(&mut self, name: &str) -> Result<(String, Box<Prepared>), SqlError> {
        self.prepared.remove_entry(name).ok_or_else(|| {
            SqlError::new(
                "26000",
                format!("prepared statement \"{name}\" does not exist"),
            )
        })
    }

    /// [`Session::with_kept_plan`] of a prepared statement taken out of
    /// the map.
    fn run_kept<T>(&mut self, prepared: &mut Prepared, f: impl KeptRun<T>) -> Result<T, SqlError> {
        let Parsed::Sql(statement) = &prepared.statement else {
            unreachable!("only a query or row change has a kept plan")
        };
        let mut planned = false;
        let result = self
            .in_transaction(|cx, txn, notices| {
                let kept = match &prepared.plan {
                    Some(kept) => kept.is_current(cx, txn)?,
                    None => false,
                };
                if !kept {
                    prepared.plan = statement::Kept::make(cx, txn, statement, prepared.parameters)
                        .map_err(|mut e| {
                            if !prepared.located {
                                e.location = None;
                            }
                            position::locate(e, &prepared.text, 0)
                        })?;
                    planned = true;
                    // DDL since it was prepared (a dropped column under
                    // `SELECT *`) may change what it returns: refused, as
                    // PostgreSQL refuses it.
                    let columns = prepared
                        .plan
                        .as_ref()
                        .and_then(|kept| kept.plan().columns());
                    match &prepared.result {
                        Some(first) if first.as_deref() != columns.as_deref() => {
                            prepared.plan = None;
                            return Err(SqlError::new(
                                "0A000",
                                "cached plan must not change result type",
                            ));
                        }
                        Some(_) => {}
                        None => prepared.result = Some(columns.map(Arc::from)),
                    }
                }
                let kept = prepared.plan.as_ref().expect("a plannable statement");
                f(kept.plan(), kept.calls(), txn, cx, notices)
            })
            .map_err(|e| name_read_only_write(e, statement));
        self.plans_made += u64::from(planned);
        result
    }

    /// How many plans prepared statements have made: one per statement
    /// while no DDL changes what it uses (`-M prepared` does not plan per
    /// execution).
    pub fn plans_made(&self) -> u64 {
        self.plans_made
    }

    /// How many plans of PL/pgSQL functions' statements the session made
    /// (`plpgsql/plan_cache.rs`): one per statement while nothing
    /// invalidates it, however many calls run it.
    pub fn plpgsql_plans_made(&self) -> u64 {
        self.plpgsql.plans_made()
    }

    /// How many statements ran by a shape's generic plan
    /// (`shape_plans.rs`) instead of being planned from their text.
    pub fn generic_runs(&self) -> u64 {
        self.generic_runs
    }

    /// How many query texts were parsed from a kept shape (`shape.rs`)
    /// instead of in full.
    pub fn parses_saved(&self) -> u64 {
        self.shapes.hits()
    }

    /// Whether a COPY waits for data.
    pub fn copy_pending(&self) -> bool {
        self.copy.is_some()
    }

    /// A piece of COPY data (any size; lines may span pieces). An error
    /// ends the COPY: its rows are undone with its transaction.
    pub fn copy_data(&mut self, data: &[u8]) -> Result<(), SqlError> {
        let Some(copying) = &mut self.copy else {
            return Err(SqlError::new("08P01", "COPY data without a COPY"));
        };
        let (txn, pending) = match (&mut copying.own, &mut self.block) {
            (Some(txn), _) => (txn, None),
            (None, Block::Open(txn)) => (txn, Some(&self.deferred)),
            (None, _) => unreachable!("a COPY outside a block has its own transaction"),
        };
        let cx = session_cx!(self, self.block_start);
        let settings = crate::setting_functions::Scope::enter(
            &copying.settings,
            &self.session_defaults,
            crate::settings::OpenTransaction::of(txn, self.deferrable),
        );
        let copy = &mut copying.copy;
        // Triggers look their functions up in the statement's scope.
        let result = match copy.has_triggers() {
            true => crate::object_scope::enter(&cx, txn, &mut self.objects)
                .and_then(|_objects| copy.data(&cx, txn, pending, data)),
            false => copy.data(&cx, txn, pending, data),
        };
        copying.keep(settings);
        self.notices.extend(cx.raised.take());
        result.map_err(|e| self.copy_fail_with(e))
    }

    /// The end of the COPY data: `COPY n`.
    pub fn copy_done(&mut self) -> Result<Output, SqlError> {
        let Some(Copying {
            copy,
            mut own,
            settings,
            mut changes,
        }) = self.copy.take()
        else {
            return Err(SqlError::new("08P01", "COPY done without a COPY"));
        };
        let (txn, pending) = match (&mut own, &mut self.block) {
            (Some(txn), _) => (txn, None),
            (None, Block::Open(txn)) => (txn, Some(&self.deferred)),
            (None, _) => unreachable!("a COPY outside a block has its own transaction"),
        };
        let cx = session_cx!(self, self.block_start);
        let settings = crate::setting_functions::Scope::enter(
            &settings,
            &self.session_defaults,
            crate::settings::OpenTransaction::of(txn, self.deferrable),
        );
        let result = match copy.has_triggers() {
            true => crate::object_scope::enter(&cx, txn, &mut self.objects)
                .and_then(|_objects| copy.finish(&cx, txn, pending)),
            false => copy.finish(&cx, txn, pending),
        };
        changes.extend(settings.finish());
        self.notices.extend(cx.raised.take());
        let result = match (own, result) {
            (Some(txn), Ok(rows)) => self.commit_txn(txn).map(|_| rows),
            (Some(txn), Err(e)) => {
                let _ = txn.rollback();
                Err(e)
            }
            (None, result) => result,
        };
        // The `set_config` calls of the COPY's triggers count once it
        // succeeded, as a statement's (`in_transaction`).
        let result = result.and_then(|rows| self.apply_changes(changes).map(|_| rows));
        match result {
            Ok(rows) if self.implicit => {
                self.end_implicit()?;
                Ok(Output::command(format!("COPY {rows}")))
            }
            Ok(rows) => Ok(Output::command(format!("COPY {rows}"))),
            Err(e) => {
                self.fail();
                Err(e)
            }
        }
    }

    /// The client gave up the COPY (CopyFail): its rows are undone.
    pub fn copy_fail(&mut self, message: &str) -> SqlError {
        let e = SqlError::new("57014", format!("COPY from stdin failed: {message}"));
        self.copy_fail_with(e)
    }

    /// Ends the COPY with error `e`: its own transaction rolls back, a
    /// block fails.
    fn copy_fail_with(&mut self, e: SqlError) -> SqlError {
        if let Some(Copying { own: Some(txn), .. }) = self.copy.take() {
            let _ = txn.rollback();
        }
        self.fail();
        e
    }

    /// `COPY ... TO STDOUT`: the rows, in the block's transaction or one
    /// of its own.
    fn copy_out(&mut self, copy: &Copy) -> Result<Output, SqlError> {
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        self.in_transaction(|cx, txn, notices| crate::copy::copy_out(cx, txn, notices, copy))
    }

    /// A DDL statement parsed by folio (`parse.rs`), run as any, in the
    /// block's transaction or one of its own.
    fn utility(
        &mut self,
        run: impl FnOnce(&Ctx<'_>, &mut Transaction, &mut Vec<Notice>) -> Result<Output, SqlError>,
    ) -> Result<Output, SqlError> {
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        self.relations.ddl();
        self.in_transaction(run)
    }

    fn alter_sequence(&mut self, alter: &sequences::Alter) -> Result<Output, SqlError> {
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        self.relations.ddl();
        self.in_transaction(|cx, txn, notices| sequences::alter(cx, txn, notices, alter))
    }

    fn start_copy(&mut self, copy: &Copy) -> Result<Output, SqlError> {
        let own = match &self.block {
            Block::Failed(_) => return Err(SqlError::in_failed_block()),
            Block::Open(_) => None,
            Block::Idle => Some(self.begin_txn(self.settings.default_isolation())?),
        };
        let mut own = own;
        let txn = match (&mut own, &mut self.block) {
            (Some(txn), _) | (None, Block::Open(txn)) => txn,
            (None, _) => unreachable!("checked above"),
        };
        let cx = session_cx!(self, self.block_start);
        let settings = crate::setting_functions::Scope::enter(
            &self.settings,
            &self.session_defaults,
            crate::settings::OpenTransaction::of(txn, self.deferrable),
        );
        let started = crate::object_scope::enter(&cx, txn, &mut self.objects)
            .and_then(|_objects| CopyIn::start(&cx, txn, copy));
        let (changed, changes) = settings.finish_with_settings();
        self.notices.extend(cx.raised.take());
        let copy_in = match started {
            Ok(copy_in) => copy_in,
            Err(e) => {
                if let Some(txn) = own {
                    let _ = txn.rollback();
                }
                return Err(e);
            }
        };
        let columns = copy_in.width();
        let settings = changed.map_or_else(|| self.settings.clone(), |s| Arc::new(*s));
        self.copy = Some(Copying {
            copy: copy_in,
            own,
            settings,
            changes,
        });
        Ok(Output::CopyIn { columns })
    }

    /// Refuses a command PostgreSQL runs outside a transaction block only
    /// ([`outside_blocks_only`]): 25001 in a block (an implicit one
    /// too), 25P02 in a failed one.
    fn refuse_in_block(&self, command: &str) -> Result<(), SqlError> {
        match self.block {
            Block::Failed(_) => Err(SqlError::in_failed_block()),
            Block::Open(_) => Err(SqlError::inside_block(command)),
            Block::Idle => Ok(()),
        }
    }

    /// `VACUUM` (outside a block, as PostgreSQL) and `ANALYZE` (the
    /// planner's statistics: folio-catalog `statistics.rs`).
    fn vacuum(&mut self, vacuum: &Vacuum) -> Result<Output, SqlError> {
        // (VACUUM in a block is refused before: `outside_blocks_only`.)
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        let tag = if vacuum.vacuum { "VACUUM" } else { "ANALYZE" };
        if vacuum.full {
            return self.vacuum_full(vacuum).map(|()| Output::command(tag));
        }
        // ANALYZE runs in the statement's (or block's) transaction, as
        // PostgreSQL's may; VACUUM after it, outside any.
        let relations = self.in_transaction(|cx, txn, _| {
            let db = cx.db;
            let names = if vacuum.tables.is_empty() {
                db.catalog()
                    .tables(txn)?
                    .into_iter()
                    .map(|t| t.name)
                    .collect()
            } else {
                vacuum.tables.clone()
            };
            let mut relations = Vec::new();
            for name in &names {
                // (A bare name may be a temporary table's or another
                // search-path schema's.)
                let name = crate::temp_tables::resolve_name(cx, txn, name)?;
                let relation = access::relation(cx, txn, &name)?;
                if vacuum.analyze {
                    db.catalog().analyze(&relation, txn)?;
                }
                relations.push(relation);
            }
            Ok(relations)
        })?;
        if vacuum.vacuum {
            for relation in &relations {
                folio_catalog::vacuum(self.db.catalog(), relation, self.db.txns())?;
            }
            if vacuum.tables.is_empty() {
                folio_catalog::vacuum_catalog(self.db.catalog(), self.db.txns())?;
            }
        }
        Ok(Output::command(tag))
    }

    /// `VACUUM FULL`: each table (none named: every one) given new
    /// storage in a transaction of its own, as PostgreSQL's, then
    /// analyzed if asked; the old storages' pages come back at once when
    /// no older snapshot can read them.
    fn vacuum_full(&mut self, vacuum: &Vacuum) -> Result<(), SqlError> {
        let names = match vacuum.tables.is_empty() {
            true => self.in_transaction(|cx, txn, _| {
                Ok((cx.db.catalog().tables(txn)?.into_iter())
                    .map(|t| t.name)
                    .collect::<Vec<_>>())
            })?,
            false => vacuum.tables.clone(),
        };
        for name in &names {
            self.relations.ddl();
            self.in_transaction(|cx, txn, notices| {
                crate::cluster::vacuum_full(cx, txn, notices, name)
            })?;
            if vacuum.analyze {
                self.in_transaction(|cx, txn, _| {
                    let name = crate::temp_tables::resolve_name(cx, txn, name)?;
                    let relation = access::relation(cx, txn, &name)?;
                    cx.db.catalog().analyze(&relation, txn)?;
                    Ok(())
                })?;
            }
        }
        self.db.catalog().reclaim(self.db.txns())?;
        Ok(())
    }

    /// `CLUSTER`: one table in the statement's transaction (allowed in a
    /// block, as PostgreSQL's), or, without a table, every table with a
    /// clustered index, each in a transaction of its own (25001 in a
    /// block).
    fn cluster(&mut self, cluster: &crate::parse::Cluster) -> Result<Output, SqlError> {
        // (Without a table, refused in a block before:
        // `outside_blocks_only`.)
        let Some(table) = &cluster.table else {
            let names =
                self.in_transaction(|cx, txn, _| crate::cluster::clustered_tables(cx, txn))?;
            for name in &names {
                self.relations.ddl();
                self.in_transaction(|cx, txn, _| crate::cluster::cluster(cx, txn, name, None))?;
            }
            self.db.catalog().reclaim(self.db.txns())?;
            return Ok(Output::command("CLUSTER"));
        };
        self.utility(|cx, txn, _| crate::cluster::cluster(cx, txn, table, cluster.index.as_deref()))
    }

    /// `CHECKPOINT`: every dirty page written, the redo point moved (as
    /// PostgreSQL's, allowed inside a block).
    fn checkpoint(&mut self) -> Result<Output, SqlError> {
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        self.db.checkpoint()?;
        Ok(Output::command("CHECKPOINT"))
    }

    /// `DECLARE name CURSOR ... FOR query` of the message `sql`: the
    /// query runs now, in the block's transaction and snapshot (or, WITH
    /// HOLD outside a block, in one of its own), and the cursor holds its
    /// rows (README "Cursors"). PostgreSQL's order of errors: the
    /// declaration's own, then 25P01 outside a block without HOLD, then
    /// the query's, then 42P03 for a name taken.
    fn declare(
        &mut self,
        declare: &crate::cursors::parse::Declare,
        sql: &str,
    ) -> Result<Output, SqlError> {
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        let options = declare.check()?;
        let in_block = matches!(self.block, Block::Open(_));
        if !in_block && !options.hold {
            return Err(SqlError::outside_block("25P01", "DECLARE CURSOR"));
        }
        let locked = !declare.query.locks.is_empty();
        let (columns, rows, row_ids) = self.in_transaction(|cx, txn, notices| {
            // A simple scan of a table runs with its rows' ids
            // (`WHERE CURRENT OF`: `cursors/current_of.rs`).
            let with_ids = crate::cursors::current_of::with_row_ids(cx, txn, &declare.query)?;
            let query = match &with_ids {
                Some((query, _)) => Statement::Query(Box::new(query.clone())),
                None => Statement::Query(declare.query.clone()),
            };
            let Output::Rows {
                mut columns,
                mut rows,
                ..
            } = run(cx, txn, notices, &query)?
            else {
                unreachable!("a query returns rows")
            };
            let row_ids = match &with_ids {
                Some((_, items)) => crate::cursors::current_of::take_row_ids(
                    &mut rows,
                    &mut columns,
                    items,
                    locked,
                )?,
                None => crate::cursors::current_of::RowIds {
                    locked,
                    ..Default::default()
                },
            };
            Ok((columns, rows, row_ids))
        })?;
        let declared = crate::cursors::Declared {
            name: declare.name.clone(),
            columns,
            rows,
            options,
            statement: sql.to_string(),
            created_us: now(),
            row_ids,
        };
        let depth = in_block.then_some(self.savepoints.len());
        self.cursors.open(declared, depth)?;
        Ok(Output::command("DECLARE CURSOR"))
    }

    /// `DISCARD ALL | PLANS | SEQUENCES | TEMP[ORARY]`: the session's
    /// kept plans (made again at their next run), `currval` / `lastval`,
    /// temporary tables; ALL also its prepared statements, settings and
    /// session advisory locks, and only outside a block (25001, as PostgreSQL's). TEMP inside a
    /// block is 0A000 here (folio drops temporary tables in a transaction
    /// of their own).
    fn discard(&mut self, what: sqlparser::ast::DiscardObject) -> Result<Output, SqlError> {
        use sqlparser::ast::DiscardObject;
        // (ALL in a block is refused before: `outside_blocks_only`.)
        let in_block = !matches!(self.block, Block::Idle) || self.implicit;
        if matches!(what, DiscardObject::TEMP) && in_block {
            return Err(SqlError::unsupported(
                "DISCARD TEMP inside a transaction block",
            ));
        }
        // DISCARD ALL is PostgreSQL's list: SET SESSION AUTHORIZATION
        // DEFAULT, RESET ALL, DEALLOCATE ALL, CLOSE ALL, UNLISTEN *,
        // pg_advisory_unlock_all(), DISCARD PLANS, TEMP and SEQUENCES.
        if matches!(what, DiscardObject::ALL) {
            self.set_session_authorization(None, false)?;
            self.in_transaction(|cx, _, _| {
                cx.backend.listen(None, false);
                Ok(Output::command("UNLISTEN"))
            })?;
            self.forget_all_prepared();
            let _ = self.cursors.close(None);
            self.plpgsql.clear();
            let defaults = self.session_defaults.clone();
            self.settings_mut().restore(&defaults);
            self.advisory.owner().unlock_all();
        }
        if matches!(what, DiscardObject::PLANS) {
            for prepared in self.prepared.values_mut() {
                prepared.plan = None;
            }
            self.plpgsql.clear();
        }
        if matches!(what, DiscardObject::ALL | DiscardObject::SEQUENCES) {
            self.sequences = Arc::default();
        }
        if matches!(what, DiscardObject::ALL | DiscardObject::TEMP) {
            self.temp.discard(&self.db);
        }
        Ok(Output::command(format!("DISCARD {what}")))
    }

    /// `RESET name` (`all`), as a session SET of the default.
    fn reset(&mut self, name: &str) -> Result<Output, SqlError> {
        if name == "role" {
            self.set_role(None, false)?;
            return Ok(Output::command("RESET"));
        }
        if name == "session_authorization" {
            self.set_session_authorization(None, false)?;
            return Ok(Output::command("RESET"));
        }
        self.may_change(name)?;
        let path = self.settings.search_path().to_vec();
        let defaults = self.session_defaults.clone();
        self.settings_mut().reset(name, &defaults)?;
        self.path_changed(&path);
        if let Some(without_local) = &mut self.without_local {
            without_local.reset(name, &self.session_defaults)?;
        }
        Ok(Output::command("RESET"))
    }

    /// The block ended: its SETs stay if it committed, else the settings
    /// it began with come back.
    fn end_block(&mut self, committed: bool) {
        self.cursors.end_transaction(committed);
        self.savepoints.clear();
        self.deferred.clear();
        let without_local = self.without_local.take();
        if let Some(roles) = self.block_roles.end(committed)
            && !roles.same(&self.roles())
        {
            self.become_roles(roles);
        }
        let before = self.settings_at_begin.take().filter(|_| !committed);
        if before.is_none() && without_local.is_none() {
            return;
        }
        let path = self.settings.search_path().to_vec();
        if let Some(before) = before {
            self.settings_mut().restore(&before);
        } else if let Some(settings) = without_local {
            self.settings_mut().restore(&settings);
        }
        self.path_changed(&path);
    }

    /// After a change of settings: if `search_path` is no longer `before`,
    /// names mean other relations, so the session's relations and kept
    /// plans are made again (names resolve at plan time: `schemas.rs`).
    fn path_changed(&self, before: &[String]) {
        if self.settings.search_path() != before {
            self.relations.ddl();
        }
    }

    /// An error: a block fails (its transaction rolls back now).
    fn fail(&mut self) {
        self.relations.end_transaction();
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Open(txn) => {
                // The error reported is the statement's; a failed rollback
                // leaves the xid to the abort-by-rule of folio-txn.
                if self.implicit {
                    // An implicit block ends with its message.
                    let _ = txn.rollback();
                    self.implicit = false;
                    self.end_block(false);
                } else {
                    // With a savepoint open the transaction waits for
                    // ROLLBACK TO; else it is rolled back now.
                    self.block = if txn.has_savepoints() {
                        // The failed savepoint's own SET TRANSACTION ends
                        // with it (what a chain from here keeps).
                        let mut txn = txn;
                        if let Some(innermost) = self.savepoints.last() {
                            txn.set_read_only(innermost.read_only);
                        }
                        Block::Failed(Some(txn))
                    } else {
                        let _ = txn.rollback();
                        Block::Failed(None)
                    };
                }
            }
            failed @ Block::Failed(_) => self.block = failed,
            Block::Idle => {}
        }
    }

    fn execute(&mut self, statement: &Statement) -> Result<Output, SqlError> {
        self.execute_statement(statement)
            .map_err(|e| name_read_only_write(e, statement))
    }

    fn execute_statement(&mut self, statement: &Statement) -> Result<Output, SqlError> {
        // A failed block takes only COMMIT and ROLLBACK (PostgreSQL's
        // `IsTransactionExitStmt`): BEGIN too is 25P02.
        match statement {
            Statement::Commit { chain: false, .. } => self.commit(),
            Statement::Rollback {
                chain: false,
                savepoint: None,
            } => self.rollback(),
            Statement::Commit { chain: true, .. } => self.end_and_chain(true),
            Statement::Rollback {
                chain: true,
                savepoint: None,
            } => self.end_and_chain(false),
            Statement::Rollback {
                chain: false,
                savepoint: Some(name),
            } => self.rollback_to(&crate::names::ident(name)),
            _ if matches!(self.block, Block::Failed(_)) => Err(SqlError::in_failed_block()),
            Statement::Savepoint { name } => self.savepoint(&crate::names::ident(name)),
            Statement::ReleaseSavepoint { name } => self.release(&crate::names::ident(name)),
            Statement::StartTransaction { modes, begin, .. } => self.begin(modes, None, *begin),
            Statement::Prepare {
                name,
                statement,
                data_types,
            } => {
                // The SQL PREPARE and the protocol's Parse share one
                // namespace, as in PostgreSQL.
                let name = crate::names::ident(name);
                if !statement::plannable(statement) {
                    return Err(SqlError::syntax(format!(
                        "syntax error at or near \"{}\"",
                        first_words(&statement.to_string())
                    )));
                }
                let types = (data_types.iter())
                    .map(|t| crate::types::column_type(t).map(|t| (t.oid(), t.typmod())))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut statement = statement.clone();
                crate::params::declare(&mut statement, &types);
                self.keep_prepared(&name, Parsed::Sql(statement), "", false, &types)?;
                self.plan_prepared(&name, false)?;
                // Listed with the query message's text, as PostgreSQL's.
                let text = self.backend.backend().activity().query;
                self.list_prepared(&name, text, true);
                Ok(Output::command("PREPARE"))
            }
            Statement::Execute {
                name: Some(name),
                parameters,
                immediate: false,
                into,
                using,
                output: false,
                default: false,
                ..
            } if into.is_empty() && using.is_empty() => {
                let name = crate::names::relation(name)?;
                let values = self.execute_arguments(&name, parameters)?;
                self.run_prepared(&name, &values)
            }
            Statement::Explain {
                analyze,
                statement: inner,
                options,
                query_plan: false,
                estimate: false,
                format: None,
                ..
            } if matches!(**inner, Statement::Execute { .. }) => {
                let Statement::Execute {
                    name: Some(name),
                    parameters,
                    ..
                } = &**inner
                else {
                    return Err(SqlError::unsupported("EXPLAIN of this EXECUTE"));
                };
                let name = crate::names::relation(name)?;
                let values = self.execute_arguments(&name, parameters)?;
                self.explain_prepared(&name, &values, *analyze, options.as_deref())
            }
            Statement::Deallocate { name, .. } => {
                if name.quote_style.is_none() && name.value.eq_ignore_ascii_case("all") {
                    self.forget_all_prepared();
                    return Ok(Output::command("DEALLOCATE ALL"));
                }
                let name = crate::names::ident(name);
                if !self.forget_prepared(&name) {
                    return Err(SqlError::new(
                        "26000",
                        format!("prepared statement \"{name}\" does not exist"),
                    ));
                }
                Ok(Output::command("DEALLOCATE"))
            }
            Statement::LISTEN { channel } => {
                let channel = crate::names::ident(channel);
                self.in_transaction(|cx, _, _| {
                    cx.backend.listen(Some(&channel), true);
                    Ok(Output::command("LISTEN"))
                })
            }
            Statement::UNLISTEN { channel } => {
                let channel = crate::names::ident(channel);
                let channel = (channel != "*").then_some(channel);
                self.in_transaction(|cx, _, _| {
                    cx.backend.listen(channel.as_deref(), false);
                    Ok(Output::command("UNLISTEN"))
                })
            }
            Statement::NOTIFY { channel, payload } => {
                let channel = crate::names::ident(channel);
                let payload = payload.clone().unwrap_or_default();
                self.in_transaction(|cx, _, _| {
                    cx.backend.notify(&channel, &payload)?;
                    Ok(Output::command("NOTIFY"))
                })
            }
            Statement::Set(set) => self.set(set),
            Statement::Discard { object_type } => self.discard(*object_type),
            Statement::AlterRole { name, operation } => {
                crate::role_statements::alter(&self.db, &self.role, name, operation)
            }
            Statement::CreateRole { .. } => self.in_transaction(|cx, _, notices| {
                crate::role_statements::create(cx.db, cx.role, notices, statement)
            }),
            Statement::ShowVariable { variable } => {
                let name = show_name(variable);
                // The open transaction's level and access mode; outside
                // a block, the defaults.
                let open = match &self.block {
                    Block::Open(txn) => {
                        Some(crate::settings::OpenTransaction::of(txn, self.deferrable))
                    }
                    _ => None,
                };
                if name == "all" {
                    return Ok(Output::Rows {
                        columns: show_all_columns(),
                        rows: crate::settings_list::show_all(&self.settings, open)?,
                        tag: "SHOW".into(),
                        style: None,
                    });
                }
                let value = if name == "session_authorization" {
                    self.session_role.name.clone()
                } else if name == "role" {
                    match self.role_chosen {
                        true => self.role.name.clone(),
                        false => "none".to_string(),
                    }
                } else {
                    self.settings.show(&name, open)?
                };
                Ok(Output::Rows {
                    columns: show_columns(&name),
                    rows: vec![vec![folio_row::Value::Text(value)]],
                    tag: "SHOW".into(),
                    style: None,
                })
            }
            Statement::Call(_) => {
                let nonatomic = self.nonatomic();
                self.in_transaction(|cx, txn, notices| {
                    cx.nonatomic.set(nonatomic);
                    run(cx, txn, notices, statement)
                })
            }
            statement => match self.shaped.take() {
                Some(shaped) => self.run_shaped(shaped, statement),
                None => self.in_transaction(|cx, txn, notices| run(cx, txn, notices, statement)),
            },
        }
    }

    /// `statement`, a text of a kept shape, by the shape's generic plan
    /// with the text's literals as its parameters (`shape_plans.rs`), or
    /// planned from the text when the shape has none for their types.
    fn run_shaped(
        &mut self,
        (mut generic, mut values, types): Shaped,
        statement: &Statement,
    ) -> Result<Output, SqlError> {
        let settings = self.settings_generation();
        let mut generic_run = false;
        let result = self.in_transaction(|cx, txn, notices| {
            let Some(kept) = generic.plan(cx, txn, &types, settings)? else {
                return run(cx, txn, notices, statement);
            };
            generic_run = true;
            kept.calls().run(cx, txn, notices, &mut values)?;
            let env = Env {
                params: &values,
                ..Env::at(cx.now())
            };
            let output = kept.plan().run(cx, txn, &env);
            notices.extend(cx.raised.take());
            output
        });
        self.generic_runs += u64::from(generic_run);
        self.shaped = Some((generic, Vec::new(), Vec::new()));
        result
    }

    /// `SET [SESSION] name {= | TO} value`; `SET TRANSACTION` and `SET
    /// SESSION CHARACTERISTICS AS TRANSACTION` with an isolation level.
    fn set(&mut self, set: &sqlparser::ast::Set) -> Result<Output, SqlError> {
        use sqlparser::ast::{ContextModifier, Expr, Set};
        if let Set::SetRole {
            context_modifier:
                context_modifier @ (None | Some(ContextModifier::Session | ContextModifier::Local)),
            role_name,
        } = set
        {
            let name = role_name.as_ref().map(crate::names::ident);
            let local = matches!(context_modifier, Some(ContextModifier::Local));
            return self.set_role(name.as_deref(), local);
        }
        if let Set::SetTransaction {
            modes,
            snapshot: None,
            session,
        } = set
        {
            return self.set_transaction(modes, None, *session);
        }
        if let Set::SetTimeZone { local, value } = set {
            return match set_time_zone_value(value)? {
                None if *local => Err(SqlError::unsupported("SET LOCAL TIME ZONE DEFAULT")),
                None => self.reset("timezone").map(|_| Output::command("SET")),
                Some(zone) => {
                    self.set_setting("timezone", &zone, *local)?;
                    Ok(Output::command("SET"))
                }
            };
        }
        let Set::SingleAssignment {
            scope: scope @ (None | Some(ContextModifier::Session | ContextModifier::Local)),
            hivevar: false,
            variable,
            values,
        } = set
        else {
            return Err(SqlError::unsupported(format!("{set}")));
        };
        let local = matches!(scope, Some(ContextModifier::Local));
        // Names are case-blind, quoted or not (`SET "App.X"` is `app.x`).
        let name = (variable.0.iter())
            .map(|part| match part.as_ident() {
                Some(ident) => ident.value.to_lowercase(),
                None => part.to_string(),
            })
            .collect::<Vec<_>>()
            .join(".");
        // `SET name TO DEFAULT`: RESET.
        if let [Expr::Identifier(id)] = values.as_slice()
            && id.quote_style.is_none()
            && id.value.eq_ignore_ascii_case("default")
        {
            if local {
                return Err(SqlError::unsupported("SET LOCAL ... TO DEFAULT"));
            }
            return self.reset(&name).map(|_| Output::command("SET"));
        }
        let value = match values.as_slice() {
            // A word is a name: lower case unless quoted.
            [Expr::Identifier(id)] if id.quote_style.is_none() => id.value.to_lowercase(),
            [Expr::Identifier(id)] => id.value.clone(),
            [Expr::Value(v)] => match &v.value {
                sqlparser::ast::Value::SingleQuotedString(s)
                | sqlparser::ast::Value::EscapedStringLiteral(s) => s.clone(),
                // An integer as PostgreSQL reads it (`01` is 1); another
                // number as written.
                sqlparser::ast::Value::Number(n, _) => match n.parse::<i64>() {
                    Ok(i) => i.to_string(),
                    Err(_) => n.clone(),
                },
                sqlparser::ast::Value::Boolean(b) => b.to_string(),
                other => return Err(SqlError::unsupported(format!("the value {other}"))),
            },
            // A custom setting takes one value, as PostgreSQL's.
            [_, _, ..] if crate::settings::is_custom(&name)? => {
                return Err(SqlError::new(
                    "22023",
                    format!("SET {name} takes only one argument"),
                ));
            }
            // `SET DateStyle = ISO, MDY`: a list, as written.
            list => list
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        };
        if name == "session_authorization" {
            return self.set_session_authorization(Some(&value), local);
        }
        // `SET role = r` is `SET ROLE r`; `none` is the session's role.
        if name == "role" {
            let role = Some(value.as_str()).filter(|v| *v != "none");
            return self.set_role(role, local);
        }
        self.set_setting(&name, &value, local)?;
        Ok(Output::command("SET"))
    }

    /// Whether the session's role may change setting `name`.
    fn may_change(&self, name: &str) -> Result<(), SqlError> {
        crate::settings_list::may_change(name, || Ok(self.role.superuser))
    }

    /// Whether a `SET LOCAL` (`local`) is outside a transaction block,
    /// where PostgreSQL warns and does nothing after checking it; the
    /// warning is given here.
    fn local_outside_block(&mut self, local: bool) -> bool {
        let outside = local && matches!(self.block, Block::Idle);
        if outside {
            self.notices.push(Notice::outside_block("SET LOCAL"));
        }
        outside
    }

    /// `SET [LOCAL] name = value`: a LOCAL one lasts until the block ends
    /// (outside one, PostgreSQL's warning and nothing done); a session
    /// one also outlives the block's LOCALs if the block commits.
    fn set_setting(&mut self, name: &str, value: &str, local: bool) -> Result<(), SqlError> {
        self.may_change(name)?;
        if self.local_outside_block(local) {
            // The value is still checked, as PostgreSQL's.
            Settings::clone(&self.settings).set(name, value)?;
            return self.settings_mut().name_custom(name);
        }
        if local && self.without_local.is_none() {
            self.without_local = Some(Settings::clone(&self.settings));
        }
        let path = self.settings.search_path().to_vec();
        self.settings_mut().set(name, value)?;
        self.path_changed(&path);
        if let (false, Some(without_local)) = (local, &mut self.without_local) {
            without_local.set(name, value)?;
        }
        Ok(())
    }

    /// `SET TRANSACTION ISOLATION LEVEL ... | READ ONLY | READ WRITE |
    /// [NOT] DEFERRABLE` (`deferrable`: taken out by `parse.rs`): the open
    /// block's level, before its first query (25001 after), its access
    /// mode (READ WRITE also before the first query, and not in a
    /// savepoint of a read-only block) and its DEFERRABLE mode (before
    /// the first query, not in a savepoint); outside a block, PostgreSQL's
    /// warning and nothing done. With `session`, the defaults of later
    /// transactions (`default_transaction_isolation`,
    /// `default_transaction_read_only`, `default_transaction_deferrable`).
    fn set_transaction(
        &mut self,
        modes: &[TransactionMode],
        deferrable: Option<bool>,
        session: bool,
    ) -> Result<Output, SqlError> {
        let crate::transaction_modes::Modes {
            isolation,
            read_only,
            deferrable,
        } = crate::transaction_modes::read(modes, deferrable)?;
        if session {
            if let Some(isolation) = isolation {
                let name = crate::settings::isolation_name(isolation);
                self.settings_mut()
                    .set("default_transaction_isolation", name)?;
            }
            let on_off = |on: bool| if on { "on" } else { "off" };
            if let Some(read_only) = read_only {
                self.settings_mut()
                    .set("default_transaction_read_only", on_off(read_only))?;
            }
            if let Some(deferrable) = deferrable {
                self.settings_mut()
                    .set("default_transaction_deferrable", on_off(deferrable))?;
            }
            return Ok(Output::command("SET"));
        }
        // PostgreSQL's checks, in its order: a subtransaction first, then
        // a query already run.
        let in_savepoint = !self.savepoints.is_empty();
        if let (Some(read_only), Block::Open(txn)) = (read_only, &mut self.block) {
            if !read_only && txn.is_read_only() {
                if in_savepoint {
                    return Err(SqlError::new(
                        "25001",
                        "cannot set transaction read-write mode inside a read-only transaction",
                    ));
                }
                if self.queried {
                    return Err(SqlError::new(
                        "25001",
                        "transaction read-write mode must be set before any query",
                    ));
                }
            }
            txn.set_read_only(read_only);
        }
        if let (Some(deferrable), Block::Open(_)) = (deferrable, &self.block) {
            if in_savepoint {
                return Err(SqlError::new(
                    "25001",
                    "SET TRANSACTION [NOT] DEFERRABLE cannot be called within a subtransaction",
                ));
            }
            if self.queried {
                return Err(SqlError::new(
                    "25001",
                    "SET TRANSACTION [NOT] DEFERRABLE must be called before any query",
                ));
            }
            self.deferrable = deferrable;
        }
        let Some(isolation) = isolation else {
            if matches!(self.block, Block::Idle) {
                self.notices.push(Notice::outside_block("SET TRANSACTION"));
            }
            return Ok(Output::command("SET"));
        };
        let restart = match &self.block {
            Block::Open(txn) if txn.isolation() == isolation => false,
            Block::Open(_) if self.queried || self.implicit => return Err(too_late_for_isolation()),
            Block::Open(_) => true,
            Block::Failed(_) => return Err(SqlError::in_failed_block()),
            Block::Idle => {
                self.notices.push(Notice::outside_block("SET TRANSACTION"));
                false
            }
        };
        if restart {
            // Nothing has read or written yet: the block starts again at
            // the level asked for, in the access mode it had.
            let mut fresh = self.begin_txn(isolation)?;
            if let Block::Open(old) = &self.block {
                fresh.set_read_only(old.is_read_only());
            }
            if let Block::Open(old) = std::mem::replace(&mut self.block, Block::Open(fresh)) {
                old.rollback()?;
            }
        }
        Ok(Output::command("SET"))
    }

    /// Each statement of a READ COMMITTED block reads a new snapshot.
    fn in_transaction<T>(
        &mut self,
        f: impl FnOnce(&Ctx<'_>, &mut Transaction, &mut Vec<Notice>) -> Result<T, SqlError>,
    ) -> Result<T, SqlError> {
        if let Block::Open(txn) = &mut self.block {
            self.queried = true;
            if !std::mem::take(&mut self.fresh_block) {
                txn.next_statement();
            }
            let cx = session_cx!(self, self.block_start);
            let _objects = crate::object_scope::enter(&cx, txn, &mut self.objects)?;
            let _role = crate::roles::Scope::enter(&self.scoped_roles);
            let _cursors = crate::cursors::Scope::enter(&self.cursors, self.savepoints.len());
            let _listing = crate::prepared_listing::Scope::enter(&self.listing);
            let settings = crate::setting_functions::Scope::enter(
                &self.settings,
                &self.session_defaults,
                crate::settings::OpenTransaction::of(txn, self.deferrable),
            );
            let result = f(&cx, txn, &mut self.notices);
            self.notices.extend(cx.raised.take());
            let changes = settings.finish();
            let output = result.map_err(|e| self.temp.unqualify_error(e))?;
            self.apply_changes(changes)?;
            return Ok(output);
        }
        let mut txn = self.begin_txn(self.settings.default_isolation())?;
        let cx = session_cx!(self, self.statement_clock());
        let objects = crate::object_scope::enter(&cx, &txn, &mut self.objects);
        let mut changes = Vec::new();
        let result = match objects.and_then(|_objects| {
            let _role = crate::roles::Scope::enter(&self.scoped_roles);
            let _cursors = crate::cursors::Scope::enter(&self.cursors, 0);
            let _listing = crate::prepared_listing::Scope::enter(&self.listing);
            let settings = crate::setting_functions::Scope::enter(
                &self.settings,
                &self.session_defaults,
                crate::settings::OpenTransaction::of(&txn, self.settings.default_deferrable()),
            );
            let result = f(&cx, &mut txn, &mut self.notices).and_then(|output| {
                // The statement is its transaction: its deferred checks
                // run as it ends.
                crate::deferred::at_commit(&cx, &mut txn)?;
                Ok(output)
            });
            changes = settings.finish();
            self.notices.extend(cx.raised.take());
            result
        }) {
            Ok(output) => self.commit_txn(txn).map(|_| output),
            Err(e) => {
                let _ = txn.rollback();
                Err(e)
            }
        };
        self.deferred.clear();
        self.relations.end_transaction();
        // The cursors PL/pgSQL opened in the statement's transaction end
        // with it (a WITH HOLD DECLARE's cursor is opened after).
        self.cursors.end_transaction(result.is_ok());
        let output = result.map_err(|e| self.temp.unqualify_error(e))?;
        self.apply_changes(changes)?;
        Ok(output)
    }

    /// A statement's `set_config` calls (`setting_functions.rs`), once it
    /// succeeded: each a `SET [LOCAL]` (no value: `RESET`), in order. A
    /// LOCAL one outside a block lasted as long as its statement's
    /// transaction, already over.
    fn apply_changes(&mut self, changes: Vec<Change>) -> Result<(), SqlError> {
        for Change { name, value, local } in changes {
            match value {
                _ if local && matches!(self.block, Block::Idle) => {
                    self.settings_mut().name_custom(&name)?;
                }
                Some(value) => self.set_setting(&name, &value, local)?,
                None if local => {
                    self.may_change(&name)?;
                    if self.without_local.is_none() {
                        self.without_local = Some(Settings::clone(&self.settings));
                    }
                    let path = self.settings.search_path().to_vec();
                    let defaults = self.session_defaults.clone();
                    self.settings_mut().reset(&name, &defaults)?;
                    self.path_changed(&path);
                }
                None => {
                    self.reset(&name)?;
                }
            }
        }
        Ok(())
    }

    /// `BEGIN` (`begin`; else `START TRANSACTION`, its tag) with `modes`
    /// and the `deferrable` mode `parse.rs` took out.
    fn begin(
        &mut self,
        modes: &[TransactionMode],
        deferrable: Option<bool>,
        begin: bool,
    ) -> Result<Output, SqlError> {
        let modes = crate::transaction_modes::read(modes, deferrable)?;
        let named = modes.isolation;
        match &self.block {
            Block::Idle => {
                let isolation = named.unwrap_or(self.settings.default_isolation());
                self.open_block(isolation, modes.read_only, modes.deferrable)?;
            }
            // BEGIN among a message's statements: its implicit block
            // becomes an ordinary one, what ran before included.
            Block::Open(txn) if self.implicit => {
                if named.is_some_and(|level| level != txn.isolation()) {
                    return Err(too_late_for_isolation());
                }
                self.implicit = false;
            }
            // (A failed block refuses BEGIN before it gets here: `execute`.)
            Block::Open(_) | Block::Failed(_) => self.notices.push(Notice::warning(
                "25001",
                "there is already a transaction in progress",
            )),
        }
        Ok(Output::command(if begin {
            "BEGIN"
        } else {
            "START TRANSACTION"
        }))
    }

    /// A transaction statement whose modes named `[NOT] DEFERRABLE`
    /// (`Parsed::TransactionModes`).
    fn with_deferrable(
        &mut self,
        statement: &Statement,
        deferrable: bool,
    ) -> Result<Output, SqlError> {
        use sqlparser::ast::Set;
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        match statement {
            Statement::StartTransaction { modes, begin, .. } => {
                self.begin(modes, Some(deferrable), *begin)
            }
            Statement::Set(Set::SetTransaction {
                modes,
                snapshot: None,
                session,
            }) => self.set_transaction(modes, Some(deferrable), *session),
            other => Err(SqlError::unsupported(format!("{other}"))),
        }
    }

    /// Opens a block at `isolation` (read-only if `read_only` says so,
    /// else as `default_transaction_read_only`; DEFERRABLE likewise).
    fn open_block(
        &mut self,
        isolation: Isolation,
        read_only: Option<bool>,
        deferrable: Option<bool>,
    ) -> Result<(), SqlError> {
        let mut txn = self.begin_txn(isolation)?;
        if let Some(read_only) = read_only {
            txn.set_read_only(read_only);
        }
        self.deferrable = deferrable.unwrap_or(self.settings.default_deferrable());
        self.block = Block::Open(txn);
        self.block_start = self.statement_clock();
        self.settings_at_begin = Some(self.settings.clone());
        self.queried = false;
        self.chained_modes = None;
        Ok(())
    }

    /// `COMMIT AND CHAIN` (`commit`) / `ROLLBACK AND CHAIN`: ends the block
    /// as COMMIT / ROLLBACK do, then opens a new one with its isolation
    /// level, read-only and DEFERRABLE modes (PostgreSQL 15's). A block
    /// that failed in a savepoint still has its transaction, whose modes
    /// are those from before the failed savepoint (`fail`), as
    /// PostgreSQL's subtransaction abort undoes only its own SETs. A block
    /// that failed outside one has lost the modes BEGIN or SET
    /// TRANSACTION gave it, as PostgreSQL's (they are settings its abort
    /// rolls back): the new block has those a chain gave the failed one,
    /// else the defaults. Outside a block (an implicit one included)
    /// 25P01; a commit that fails chains nothing.
    fn end_and_chain(&mut self, commit: bool) -> Result<Output, SqlError> {
        let modes = match &self.block {
            Block::Open(txn) | Block::Failed(Some(txn)) if !self.implicit => {
                Some(crate::transaction_modes::Characteristics {
                    isolation: txn.isolation(),
                    read_only: txn.is_read_only(),
                    deferrable: self.deferrable,
                })
            }
            Block::Failed(_) => self.chained_modes,
            _ => {
                return Err(SqlError::outside_block(
                    "25P01",
                    if commit {
                        "COMMIT AND CHAIN"
                    } else {
                        "ROLLBACK AND CHAIN"
                    },
                ));
            }
        };
        let output = match commit {
            true => self.commit()?,
            false => self.rollback()?,
        };
        match modes {
            Some(chained) => {
                self.open_block(
                    chained.isolation,
                    Some(chained.read_only),
                    Some(chained.deferrable),
                )?;
                self.chained_modes = modes;
            }
            None => self.open_block(self.settings.default_isolation(), None, None)?,
        }
        Ok(output)
    }

    /// `SAVEPOINT name` (in a block only: 25P01 elsewhere, as
    /// PostgreSQL's).
    fn savepoint(&mut self, name: &str) -> Result<Output, SqlError> {
        let roles = self.block_roles.at_savepoint(|| self.roles());
        match &mut self.block {
            Block::Open(txn) if !self.implicit => {
                txn.savepoint(name)?;
                self.savepoints_made += 1;
                self.savepoints.push(Savepoint {
                    name: name.to_string(),
                    settings: self.settings.clone(),
                    without_local: self.without_local.clone(),
                    roles,
                    deferred: self.deferred.mark(),
                    number: self.savepoints_made,
                    read_only: txn.is_read_only(),
                });
                Ok(Output::command("SAVEPOINT"))
            }
            _ => Err(SqlError::outside_block("25P01", "SAVEPOINT")),
        }
    }

    /// `ROLLBACK TO [SAVEPOINT] name`: the work since it undone, its
    /// settings back, the block open again even after an error.
    fn rollback_to(&mut self, name: &str) -> Result<Output, SqlError> {
        self.relations.end_transaction();
        let txn = match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Open(txn) if !self.implicit => txn,
            Block::Failed(Some(txn)) => txn,
            other => {
                let failed = matches!(other, Block::Failed(_));
                self.block = other;
                // A block that failed with no savepoint open has none to
                // go back to (PostgreSQL's 3B001).
                return Err(if failed {
                    folio_txn::TxnError::NoSavepoint(name.to_string()).into()
                } else {
                    SqlError::outside_block("25P01", "ROLLBACK TO SAVEPOINT")
                });
            }
        };
        let mut txn = txn;
        let result = txn.rollback_to(name);
        let known = result.is_ok();
        self.block = if known {
            Block::Open(txn)
        } else if txn.has_savepoints() && matches!(self.block, Block::Idle) {
            // An unknown name in an open block fails the block as any
            // error; the savepoints stay usable.
            Block::Failed(Some(txn))
        } else {
            let _ = txn.rollback();
            Block::Failed(None)
        };
        result?;
        if let Some(at) = self.savepoints.iter().rposition(|s| s.name == name) {
            if let Block::Open(txn) = &mut self.block {
                txn.set_read_only(self.savepoints[at].read_only);
            }
            let path = self.settings.search_path().to_vec();
            let earlier = self.savepoints[at].settings.clone();
            self.settings_mut().restore(&earlier);
            self.path_changed(&path);
            self.without_local = self.savepoints[at].without_local.clone();
            self.deferred.rollback_to(&self.savepoints[at].deferred);
            let roles = self.block_roles.rollback_to(&self.savepoints[at].roles);
            if let Some(roles) = roles.filter(|r| !r.same(&self.roles())) {
                self.become_roles(roles);
            }
            self.savepoints.truncate(at + 1);
            self.cursors.rollback_to(at + 1);
            let number = self.savepoints[at].number;
            self.rolled_back_to = Some(self.rolled_back_to.map_or(number, |n| n.min(number)));
        }
        Ok(Output::command("ROLLBACK"))
    }

    /// The mark of a protocol portal bound now: the number of the last
    /// savepoint made. A `ROLLBACK TO` a savepoint numbered at or below
    /// it drops the portal ([`Session::take_rolled_back`]).
    pub fn portal_mark(&self) -> u64 {
        self.savepoints_made
    }

    /// The lowest number of a savepoint rolled back to since the last
    /// call, if any: the host drops the protocol portals whose
    /// [`Session::portal_mark`] is at or above it, as PostgreSQL drops
    /// the portals made in a subtransaction it rolls back (SQL cursors
    /// follow the same rule in `cursors/`).
    pub fn take_rolled_back(&mut self) -> Option<u64> {
        self.rolled_back_to.take()
    }

    /// `RELEASE [SAVEPOINT] name`.
    fn release(&mut self, name: &str) -> Result<Output, SqlError> {
        match &mut self.block {
            Block::Open(txn) if !self.implicit => {
                txn.release(name)?;
                if let Some(at) = self.savepoints.iter().rposition(|s| s.name == name) {
                    txn.set_read_only(self.savepoints[at].read_only);
                    self.savepoints.truncate(at);
                    self.cursors.release(at);
                }
                Ok(Output::command("RELEASE"))
            }
            _ => Err(SqlError::outside_block("25P01", "RELEASE SAVEPOINT")),
        }
    }

    /// An open block's deferred constraint checks, run before its commit.
    fn run_deferred(&mut self) -> Result<(), SqlError> {
        if self.deferred.is_empty() || !matches!(self.block, Block::Open(_)) {
            return Ok(());
        }
        self.in_transaction(|cx, txn, _| crate::deferred::at_commit(cx, txn))
    }

    /// `SET CONSTRAINTS`: in the open block, or (with PostgreSQL's
    /// warning) as a transaction of its own.
    /// `LOCK`: in a transaction block only (PostgreSQL's 25001), where
    /// its locks last until the block ends.
    fn lock_tables(&mut self, lock: &crate::lock_table::Lock) -> Result<Output, SqlError> {
        match self.block {
            Block::Failed(_) => Err(SqlError::in_failed_block()),
            Block::Idle => Err(SqlError::outside_block("25001", "LOCK TABLE")),
            Block::Open(_) => {
                self.in_transaction(|cx, txn, _| crate::lock_table::lock(cx, txn, lock))
            }
        }
    }

    fn set_constraints(
        &mut self,
        set: &crate::deferred::SetConstraints,
    ) -> Result<Output, SqlError> {
        if let Block::Failed(_) = self.block {
            return Err(SqlError::in_failed_block());
        }
        let in_block = matches!(self.block, Block::Open(_));
        self.in_transaction(|cx, txn, notices| {
            crate::deferred::set_constraints(cx, txn, notices, set, in_block)
        })
    }

    /// Commits `txn`, after what the session's temporary tables' `ON
    /// COMMIT` asks (`temp_tables.rs`); an error there rolls it back.
    fn commit_txn(&self, txn: Transaction) -> Result<(), SqlError> {
        crate::transaction_control::commit(
            &self.db,
            &self.temp,
            &self.relations,
            &self.backend,
            txn,
        )
    }

    fn commit(&mut self) -> Result<Output, SqlError> {
        // The deferred checks fail the commit: the transaction rolls back
        // and the block ends (PostgreSQL's COMMIT error).
        if let Err(e) = self.run_deferred() {
            self.fail();
            if let Block::Failed(Some(txn)) = std::mem::replace(&mut self.block, Block::Idle) {
                let _ = txn.rollback();
            }
            self.implicit = false;
            self.end_block(false);
            return Err(e);
        }
        if std::mem::take(&mut self.implicit) {
            // PostgreSQL commits an implicit block, with its warning.
            self.notices.push(no_transaction());
        }
        self.relations.end_transaction();
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Open(txn) => {
                let committed = self.commit_txn(txn);
                self.end_block(committed.is_ok());
                committed?;
                Ok(Output::command("COMMIT"))
            }
            // PostgreSQL: COMMIT of a failed block rolls it back.
            Block::Failed(kept) => {
                if let Some(txn) = kept {
                    let _ = txn.rollback();
                }
                self.end_block(false);
                Ok(Output::command("ROLLBACK"))
            }
            Block::Idle => {
                self.notices.push(no_transaction());
                Ok(Output::command("COMMIT"))
            }
        }
    }

    /// `PREPARE TRANSACTION 'gid'` (`prepared_xacts.rs`): the block's
    /// transaction leaves the session, prepared, as a COMMIT would end it
    /// (deferred checks first; its SETs stay). Outside a block, PostgreSQL's
    /// warning and nothing prepared; a failed block rolls back. Either way
    /// the tag is ROLLBACK then.
    fn prepare_transaction(&mut self, gid: &str) -> Result<Output, SqlError> {
        match self.block {
            Block::Idle => {
                self.notices.push(no_transaction());
                return Ok(Output::command("ROLLBACK"));
            }
            _ if self.implicit => {
                self.notices.push(no_transaction());
                return Ok(Output::command("ROLLBACK"));
            }
            Block::Failed(_) => return self.commit(),
            Block::Open(_) => {}
        }
        if let Err(e) = self.run_deferred() {
            self.fail();
            if let Block::Failed(Some(txn)) = std::mem::replace(&mut self.block, Block::Idle) {
                let _ = txn.rollback();
            }
            self.end_block(false);
            return Err(e);
        }
        self.relations.end_transaction();
        let Block::Open(txn) = std::mem::replace(&mut self.block, Block::Idle) else {
            unreachable!("matched above");
        };
        let prepared = self.prepare_txn(txn, gid);
        self.end_block(prepared.is_ok());
        prepared?;
        Ok(Output::command("PREPARE TRANSACTION"))
    }

    /// Prepares `txn` as `gid`, unless it did what cannot outlive the
    /// session (then it rolls back, with PostgreSQL's 0A000).
    fn prepare_txn(&self, mut txn: Transaction, gid: &str) -> Result<(), SqlError> {
        if self.backend.has_pending() {
            return Err(crate::prepared_xacts::cannot_prepare(
                "has executed LISTEN, UNLISTEN, or NOTIFY",
            ));
        }
        if self.touched_temp(&mut txn)? {
            return Err(crate::prepared_xacts::cannot_prepare(
                "has operated on temporary objects",
            ));
        }
        txn.prepare(gid, &self.role.name, "postgres")?;
        Ok(())
    }

    /// Whether `txn` wrote or locked one of the session's temporary
    /// tables (every write and DDL takes a table lock; a read of one,
    /// which PostgreSQL also refuses to prepare, is not seen).
    fn touched_temp(&self, txn: &mut Transaction) -> Result<bool, SqlError> {
        if self.temp.namespace().is_none() || txn.table_locks().is_empty() {
            return Ok(false);
        }
        let locked: Vec<u64> = txn.table_locks().iter().map(|&(oid, _)| oid).collect();
        let tables = self.db.catalog().tables(txn)?;
        Ok((tables.iter())
            .any(|t| locked.contains(&t.oid) && folio_catalog::split_temp_name(&t.name).is_some()))
    }

    /// `COMMIT PREPARED 'gid'` (`commit`) or `ROLLBACK PREPARED 'gid'`:
    /// never inside a transaction block (25001).
    fn finish_prepared(&mut self, gid: &str, commit: bool) -> Result<Output, SqlError> {
        match self.block {
            Block::Failed(_) => return Err(SqlError::in_failed_block()),
            Block::Open(_) => return Err(crate::prepared_xacts::inside_block(commit)),
            Block::Idle => {}
        }
        self.db.txns().finish_prepared(gid, commit)?;
        // (It may have changed the catalog: DDL it prepared.)
        self.relations.ddl();
        Ok(Output::command(match commit {
            true => "COMMIT PREPARED",
            false => "ROLLBACK PREPARED",
        }))
    }

    fn rollback(&mut self) -> Result<Output, SqlError> {
        if std::mem::take(&mut self.implicit) {
            self.notices.push(no_transaction());
        }
        self.relations.end_transaction();
        self.end_block(false);
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Open(txn) => txn.rollback()?,
            Block::Failed(kept) => {
                if let Some(txn) = kept {
                    txn.rollback()?;
                }
            }
            Block::Idle => self.notices.push(no_transaction()),
        }
        Ok(Output::command("ROLLBACK"))
    }
}

/// PostgreSQL's warning for COMMIT or ROLLBACK outside a block.
fn no_transaction() -> Notice {
    Notice::warning("25P01", "there is no transaction in progress")
}

/// One statement inside a transaction that started at `now`.
pub(crate) fn run(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: &Statement,
) -> Result<Output, SqlError> {
    run_with_params(cx, txn, notices, statement, &[])
}

/// [`run`] of a statement with parameters `params` (`$1`, ... typed
/// values: a PL/pgSQL body's variables, `plpgsql/exec.rs`). The calls of
/// PL/pgSQL functions a query or row change makes are run first
/// (`plpgsql/calls.rs`).
pub(crate) fn run_with_params(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    statement: &Statement,
    params: &[Value],
) -> Result<Output, SqlError> {
    if let Statement::Call(call) = statement {
        return crate::procedures::call(cx, txn, notices, call, params);
    }
    let written = statement;
    let resolved = crate::temp_tables::resolve(cx, txn, statement)?;
    let statement = resolved.as_ref().unwrap_or(statement);
    if statement::plannable(statement) {
        let evaluated = crate::plpgsql::calls::evaluate(cx, txn, notices, statement, params)?;
        let (statement, params) = match &evaluated {
            Some((s, p)) => (s, p.as_slice()),
            None => (statement, params),
        };
        if let Some(plan) = statement::plan(cx, txn, statement)? {
            let env = Env {
                params,
                ..Env::at(cx.now())
            };
            let output = plan.run(cx, txn, &env);
            // The notices of the functions and triggers it ran, before
            // those of what runs after it (a body's next statement).
            notices.extend(cx.raised.take());
            return output;
        }
    }
    let db = cx.db;
    crate::privileges::check_utility(cx, txn, statement)?;
    refuse_with_checks_waiting(cx, statement)?;
    if matches!(
        statement,
        Statement::CreateTable(_)
            | Statement::CreateIndex(_)
            | Statement::Drop { .. }
            | Statement::AlterTable { .. }
            | Statement::AlterIndex { .. }
            | Statement::CreateSequence { .. }
            | Statement::CreateView { .. }
            | Statement::CreateType { .. }
            | Statement::AlterType(_)
            | Statement::DropDomain(_)
            | Statement::Truncate { .. }
            | Statement::CreateSchema { .. }
            | Statement::AlterSchema(_)
    ) {
        cx.relations.ddl();
    }
    match statement {
        Statement::CreatePolicy { .. }
        | Statement::AlterPolicy { .. }
        | Statement::DropPolicy { .. } => {
            crate::policy_statements::run(cx, txn, notices, statement)
        }
        Statement::CreateSequence {
            temporary: false, ..
        } => sequences::create_statement(
            cx,
            txn,
            notices,
            statement,
            folio_catalog::Persistence::Permanent,
        ),
        Statement::Drop {
            object_type: sqlparser::ast::ObjectType::Sequence,
            if_exists,
            names,
            cascade,
            ..
        } => sequences::drop(cx, txn, notices, (*if_exists, *cascade), names),
        Statement::Drop {
            object_type: sqlparser::ast::ObjectType::Role | sqlparser::ast::ObjectType::User,
            if_exists,
            names,
            cascade: false,
            ..
        } => crate::role_statements::drop(cx, txn, notices, *if_exists, names),
        Statement::Grant { .. } | Statement::Revoke { .. } => {
            crate::role_statements::grant_or_revoke(cx, txn, notices, statement, false)
        }
        Statement::CreateTable(create) => {
            let name = crate::names::relation(&create.name)?;
            let before = crate::privileges::oid_of(cx, txn, &name)?;
            let made = ddl::create_table(cx, txn, notices, create)?;
            crate::privileges::own_new(cx, txn, &name, before)?;
            Ok(made)
        }
        Statement::CreateSchema {
            schema_name,
            if_not_exists,
            with: None,
            options: None,
            default_collate_spec: None,
            clone: None,
        } => crate::schemas::create(db, txn, notices, schema_name, *if_not_exists),
        Statement::Drop {
            object_type: sqlparser::ast::ObjectType::Schema,
            if_exists,
            names,
            cascade,
            ..
        } => crate::schemas::drop(cx, txn, notices, *if_exists, names, *cascade),
        Statement::AlterSchema(sqlparser::ast::AlterSchema {
            name,
            if_exists: false,
            operations,
        }) if matches!(
            operations.as_slice(),
            [sqlparser::ast::AlterSchemaOperation::Rename { .. }]
        ) =>
        {
            let [sqlparser::ast::AlterSchemaOperation::Rename { name: new }] =
                operations.as_slice()
            else {
                unreachable!("matched above")
            };
            crate::schemas::rename(cx, txn, name, new)
        }
        Statement::CreateType {
            name,
            representation,
        } => {
            let made = crate::enum_types::create(cx, txn, name, representation)?;
            crate::type_privileges::own_new(cx, txn, &crate::names::relation(name)?)?;
            Ok(made)
        }
        Statement::CreateExtension {
            name,
            if_not_exists,
            cascade: _,
            schema,
            version,
        } => crate::extensions::create(
            db,
            txn,
            notices,
            name,
            *if_not_exists,
            schema.as_ref(),
            version.as_ref(),
        ),
        Statement::DropExtension {
            names, if_exists, ..
        } => crate::extensions::drop(db, txn, notices, names, *if_exists),
        Statement::CreateFunction(create) => crate::sql_functions::create(cx, txn, create, false),
        Statement::DropTrigger(drop) => crate::trigger_statements::drop(cx, txn, notices, drop),
        Statement::DropFunction {
            if_exists,
            func_desc,
            drop_behavior,
        } => crate::sql_functions::drop(
            cx,
            txn,
            notices,
            (*if_exists, false),
            func_desc,
            *drop_behavior == Some(sqlparser::ast::DropBehavior::Cascade),
        ),
        Statement::DropProcedure {
            if_exists,
            proc_desc,
            drop_behavior,
        } => crate::sql_functions::drop(
            cx,
            txn,
            notices,
            (*if_exists, true),
            proc_desc,
            *drop_behavior == Some(sqlparser::ast::DropBehavior::Cascade),
        ),
        Statement::Drop {
            object_type: sqlparser::ast::ObjectType::Type,
            if_exists,
            names,
            cascade,
            ..
        } => crate::enum_types::drop(cx, txn, notices, *if_exists, names, *cascade),
        Statement::AlterType(alter) => {
            crate::enum_types::alter(cx, txn, notices, &alter.name, &alter.operation)
        }
        Statement::DropDomain(drop) => {
            crate::type_privileges::check_owner(cx, txn, &crate::names::relation(&drop.name)?)?;
            crate::domains::drop(
                cx,
                txn,
                notices,
                drop.if_exists,
                &drop.name,
                drop.drop_behavior == Some(sqlparser::ast::DropBehavior::Cascade),
            )
        }
        Statement::CreateView { name, .. } => {
            let name = crate::names::relation(name)?;
            let before = crate::privileges::oid_of(cx, txn, &name)?;
            let qualified =
                matches!(written, Statement::CreateView { name, .. } if name.0.len() > 1);
            let (made, name) = crate::views::create(cx, txn, notices, statement, qualified)?;
            crate::privileges::own_new(cx, txn, &name, before)?;
            Ok(made)
        }
        Statement::Drop {
            object_type: sqlparser::ast::ObjectType::View,
            if_exists,
            names,
            cascade,
            ..
        } => crate::views::drop(db, txn, notices, *if_exists, names, *cascade),
        Statement::CreateIndex(create) => {
            if let Some(def) = db
                .catalog()
                .table(txn, &crate::names::relation(&create.table_name)?)?
            {
                crate::triggers::refuse_in_use(&def, "CREATE INDEX")?;
            }
            let made = indexes::create_index(db, txn, notices, create)?;
            crate::partitions::ddl::after_key_or_index(cx, txn, notices, statement)?;
            Ok(made)
        }
        Statement::Drop {
            object_type,
            if_exists,
            names,
            cascade,
            ..
        } => {
            // A partitioned table's partitions go first.
            let expanded = match object_type {
                sqlparser::ast::ObjectType::Table => {
                    crate::partitions::ddl::with_partitions(cx, txn, names)?
                }
                _ => None,
            };
            let names = expanded.as_deref().unwrap_or(names);
            // An inheritance parent's descendants depend on it.
            let expanded = match object_type {
                sqlparser::ast::ObjectType::Table => {
                    crate::inheritance::alter::with_children(cx, txn, notices, names, *cascade)?
                }
                _ => None,
            };
            let names = expanded.as_deref().unwrap_or(names);
            ddl::drop(db, txn, notices, *object_type, *if_exists, names, *cascade)
        }
        Statement::Truncate {
            table_names,
            partitions: None,
            identity,
            cascade,
            on_cluster: None,
            ..
        } => ddl::truncate(
            cx,
            txn,
            notices,
            table_names,
            *cascade == Some(sqlparser::ast::CascadeOption::Cascade),
            *identity == Some(sqlparser::ast::TruncateIdentityOption::Restart),
        ),
        Statement::AlterTable {
            name,
            if_exists,
            only,
            operations,
            location: None,
            on_cluster: None,
            ..
        } => {
            if *if_exists && !relation_named(cx, txn, name)? {
                notices.push(Notice::info(format!(
                    "relation \"{}\" does not exist, skipping",
                    crate::names::relation(name)?
                )));
                return Ok(Output::command("ALTER TABLE"));
            }
            if let Some(def) = cx.db.catalog().table(txn, &crate::names::relation(name)?)? {
                crate::triggers::refuse_in_use(&def, "ALTER TABLE")?;
            }
            crate::partitions::ddl::check_foreign_key_adds(cx, txn, name, *only, operations)?;
            let merged =
                crate::inheritance::alter::check(cx, txn, notices, name, *only, operations)?;
            let operations = merged.as_deref().unwrap_or(operations);
            if operations.is_empty() {
                return Ok(Output::command("ALTER TABLE"));
            }
            crate::partitions::ddl::check_alter(cx, txn, name, *only, operations)?;
            let keys_below = crate::partitions::columns::keys_below(cx, txn, name, operations)?;
            let done = ddl::alter_table(cx, txn, notices, name, operations, *only)?;
            for (table, key) in &keys_below {
                cx.db.catalog().drop_constraint(txn, table, key)?;
            }
            crate::partitions::columns::recurse(cx, txn, name, operations)?;
            if let Some(def) = cx.db.catalog().table(txn, &crate::names::relation(name)?)? {
                crate::partitions::inherited_alter::recurse(cx, txn, &def, *only, operations)?;
            }
            crate::partitions::ddl::after_key_or_index(cx, txn, notices, statement)?;
            crate::inheritance::alter::recurse(cx, txn, notices, name, *only, operations)?;
            Ok(done)
        }
        Statement::AlterIndex {
            name,
            operation: sqlparser::ast::AlterIndexOperation::RenameIndex { index_name },
        } => ddl::rename_index(cx, txn, name, index_name),
        Statement::Explain {
            analyze,
            statement,
            options,
            query_plan: false,
            estimate: false,
            format: None,
            ..
        } => explain::explain(cx, txn, notices, *analyze, options.as_deref(), statement),
        other => Err(SqlError::unsupported(format!(
            "the statement \"{}\"",
            first_words(&other.to_string())
        ))),
    }
}

/// Whether `txn` sees a relation (table, view, sequence, index, ...)
/// named `name`: ALTER TABLE IF EXISTS's test.
fn relation_named(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &sqlparser::ast::ObjectName,
) -> Result<bool, SqlError> {
    let text = crate::temp_tables::resolve_name(cx, txn, &crate::names::relation(name)?)?;
    Ok(cx.db.catalog().relation_exists(txn, &text)?)
}

/// A DDL statement parsed by folio (`parse.rs`) that runs with the
/// statement's context alone, and `DO`; 0A000 for the others (those the
/// session runs itself: VACUUM, COPY, RESET, ...), where a PL/pgSQL body
/// runs one.
pub(crate) fn run_utility(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    parsed: &Parsed,
) -> Result<Output, SqlError> {
    match parsed {
        Parsed::Sql(statement) | Parsed::DropIndexConcurrently(statement) => {
            run(cx, txn, notices, statement)
        }
        Parsed::DropExpression(drop) => crate::ddl::drop_expression(cx, txn, notices, drop),
        Parsed::AlterIdentity(alter) => crate::alter_identity::run(cx, txn, notices, alter),
        Parsed::Comment(comment) => crate::comments::comment(cx, txn, notices, comment),
        Parsed::Reindex(reindex) => crate::reindex::reindex(cx, txn, reindex, true),
        Parsed::Lock(lock) => crate::lock_table::lock(cx, txn, lock),
        Parsed::ClusterOn(on) => crate::cluster::cluster_on(cx, txn, notices, on),
        Parsed::AlterRowSecurity(alter) => {
            crate::policy_statements::alter_table(cx, txn, notices, alter)
        }
        Parsed::RoleGrant(grant) => crate::role_statements::grant_roles(cx, notices, grant),
        Parsed::RoutineGrant(grant) => {
            crate::routine_privileges::grant_or_revoke(cx, txn, notices, grant)
        }
        Parsed::RevokeGrantOption(revoke) => {
            crate::role_statements::grant_or_revoke(cx, txn, notices, revoke, true)
        }
        Parsed::AlterConstraint(alter) => crate::ddl::alter_constraint(cx, txn, notices, alter),
        Parsed::SetLogged(set) => crate::set_logged::run(cx, txn, notices, set),
        Parsed::CreateUnloggedSequence(create) => {
            crate::privileges::check_utility(cx, txn, create)?;
            sequences::create_statement(
                cx,
                txn,
                notices,
                create,
                folio_catalog::Persistence::Unlogged,
            )
        }
        Parsed::Inherit(alter) => {
            crate::inheritance::alter::inherit(cx, txn, alter)?;
            Ok(Output::command("ALTER TABLE"))
        }
        Parsed::CreateMatview { create, data } => {
            let mut create = create.clone();
            if let Statement::CreateView { name, .. } = &mut *create {
                crate::temp_tables::place_name(cx, txn, name)?;
            }
            let create = &create;
            crate::privileges::check_utility(cx, txn, create)?;
            let Statement::CreateView { name, .. } = &**create else {
                return crate::matviews::create(cx, txn, notices, create, *data);
            };
            let name = crate::names::relation(name)?;
            let before = crate::privileges::oid_of(cx, txn, &name)?;
            let made = crate::matviews::create(cx, txn, notices, create, *data)?;
            crate::privileges::own_new(cx, txn, &name, before)?;
            Ok(made)
        }
        Parsed::Refresh(refresh) => crate::matviews::refresh(cx, txn, refresh),
        Parsed::AlterView {
            alter,
            materialized,
        } => crate::matviews::alter(cx, txn, notices, alter, *materialized),
        Parsed::AlterViewOptions(alter) => crate::view_options::run(cx, txn, notices, alter),
        Parsed::Do(block) => crate::plpgsql::do_block(cx, txn, notices, block),
        Parsed::CreateDomain(create) => {
            crate::privileges::check_create_in_schema(cx, txn, &create.name, false)?;
            crate::type_privileges::check_usage(cx, &create.data_type)?;
            let made = crate::domains::create(cx, txn, create)?;
            crate::type_privileges::own_new(cx, txn, &crate::names::relation(&create.name)?)?;
            Ok(made)
        }
        Parsed::CreateProcedure { create, atomic } => {
            crate::privileges::check_utility(cx, txn, create)?;
            crate::procedures::create(cx, txn, create, atomic.as_deref())
        }
        Parsed::CreateAggregate(create) => {
            crate::privileges::check_create_in_schema(cx, txn, &create.name, false)?;
            for ty in create.args.iter().flatten() {
                crate::type_privileges::check_usage(cx, ty)?;
            }
            crate::user_aggregates::create(cx, txn, notices, create)
        }
        Parsed::DropAggregate(drop) => crate::user_aggregates::drop(cx, txn, notices, drop),
        Parsed::AlterDomain(alter) => crate::domains::alter(cx, txn, notices, alter),
        Parsed::CreateTrigger { create, args } => {
            crate::trigger_statements::create(cx, txn, create, args)
        }
        Parsed::CreateRule(create) => crate::rule_statements::create(cx, txn, create),
        Parsed::RuleNamed(named) => crate::rule_statements::drop_or_rename(cx, txn, notices, named),
        Parsed::RenameTrigger(rename) => crate::trigger_statements::rename(cx, txn, rename),
        Parsed::CreatePartitioned { create, spec } => {
            crate::partitions::ddl::create(cx, txn, notices, create, spec)
        }
        Parsed::CreateLike { create, likes } => {
            crate::create_like::create(cx, txn, notices, create, likes)
        }
        Parsed::AttachPartition {
            parent,
            child,
            bound,
        } => crate::partitions::ddl::attach_or_detach(
            cx,
            txn,
            notices,
            parent,
            child,
            bound.as_deref(),
        ),
        Parsed::Vacuum(_)
        | Parsed::Copy(_)
        | Parsed::Reset(_)
        | Parsed::SetSessionAuthorization { .. }
        | Parsed::Checkpoint
        | Parsed::PrepareTransaction(_)
        | Parsed::FinishPrepared { .. }
        | Parsed::SetConstraints(_)
        | Parsed::AlterSequence(_)
        | Parsed::Declare(_)
        | Parsed::Fetch(_)
        | Parsed::Close(_)
        | Parsed::Cluster(_)
        | Parsed::CreateAsExecute { .. }
        | Parsed::CreateSchema { .. }
        | Parsed::TransactionModes { .. } => Err(SqlError::unsupported(
            "this statement in a PL/pgSQL body (VACUUM, COPY, RESET, CHECKPOINT, SET CONSTRAINTS, ALTER SEQUENCE, CLUSTER, CREATE TABLE AS EXECUTE or CREATE SCHEMA with elements)",
        )),
    }
}

/// 55006 for DDL on a table whose row changes left deferred checks
/// waiting (`deferred.rs`).
fn refuse_with_checks_waiting(cx: &Ctx<'_>, statement: &Statement) -> Result<(), SqlError> {
    if cx.deferred.is_empty() {
        return Ok(());
    }
    let (names, command): (Vec<&sqlparser::ast::ObjectName>, &str) = match statement {
        Statement::AlterTable { name, .. } => (vec![name], "ALTER TABLE"),
        Statement::Drop {
            object_type: sqlparser::ast::ObjectType::Table,
            names,
            ..
        } => (names.iter().collect(), "DROP TABLE"),
        Statement::Truncate {
            table_names,
            cascade,
            ..
        } => {
            if *cascade == Some(sqlparser::ast::CascadeOption::Cascade) {
                crate::deferred::refuse_cascading_truncate(cx)?;
            }
            (table_names.iter().map(|t| &t.name).collect(), "TRUNCATE")
        }
        _ => return Ok(()),
    };
    for name in names {
        crate::deferred::refuse_if_waiting(cx, &crate::names::relation(name)?, command)?;
    }
    Ok(())
}

/// The first words of a statement, for an error message.
fn first_words(sql: &str) -> String {
    sql.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

/// The setting `SHOW variable` names, lower case (`transaction isolation
/// level` in words).
/// What `SHOW` and `current_setting` report of `txn`.
fn show_name(variable: &[sqlparser::ast::Ident]) -> String {
    let name = (variable.iter())
        .map(|i| i.value.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    // PostgreSQL's grammar reads `SHOW TIME ZONE` as `SHOW timezone`.
    match name.as_str() {
        "time zone" => "timezone".to_string(),
        _ => name,
    }
}

/// The protocol's 08P01 when a run of `prepared` does not bring as many
/// parameters as it takes.
fn check_parameter_count(
    prepared: &Prepared,
    parameters: &[Option<String>],
) -> Result<(), SqlError> {
    let wanted = prepared.parameters;
    if parameters.len() == wanted {
        return Ok(());
    }
    Err(SqlError::new(
        "08P01",
        format!(
            "bind message supplies {} parameters, but prepared statement requires {wanted}",
            parameters.len()
        ),
    ))
}

/// The command `statement` is, if PostgreSQL runs it outside a
/// transaction block only (its `PreventInTransactionBlock`): the one
/// list of them, checked before each runs ([`Session::refuse_in_block`]).
pub(crate) fn outside_blocks_only(statement: &Parsed) -> Option<&'static str> {
    use sqlparser::ast::DiscardObject;
    match statement {
        Parsed::Vacuum(vacuum) if vacuum.vacuum => Some("VACUUM"),
        Parsed::Cluster(cluster) if cluster.table.is_none() => Some("CLUSTER"),
        Parsed::Reindex(reindex) if reindex.concurrently => Some("REINDEX CONCURRENTLY"),
        Parsed::Reindex(reindex) if reindex.kind == crate::parse::ReindexKind::Schema => {
            Some("REINDEX SCHEMA")
        }
        Parsed::DropIndexConcurrently(_) => Some("DROP INDEX CONCURRENTLY"),
        Parsed::Sql(statement) => match &**statement {
            Statement::CreateIndex(create) if create.concurrently => {
                Some("CREATE INDEX CONCURRENTLY")
            }
            Statement::Discard {
                object_type: DiscardObject::ALL,
            } => Some("DISCARD ALL"),
            _ => None,
        },
        _ => None,
    }
}

/// Whether prepared statement `statement`, run outside a block, opens
/// the pipeline's implicit block: not transaction control, nor what
/// refuses to run in a block ([`outside_blocks_only`]), which PostgreSQL
/// runs alone when it comes first in a pipeline.
fn opens_pipeline(statement: &Parsed) -> bool {
    if outside_blocks_only(statement).is_some() {
        return false;
    }
    match statement {
        Parsed::Sql(statement) => !matches!(
            **statement,
            Statement::StartTransaction { .. }
                | Statement::Commit { .. }
                | Statement::Rollback { .. }
                | Statement::Savepoint { .. }
                | Statement::ReleaseSavepoint { .. }
        ),
        // A cursor outside a block is a held one (PostgreSQL's extended
        // protocol has no implicit block to declare one in).
        Parsed::Declare(_) | Parsed::Fetch(_) | Parsed::Close(_) => false,
        // Transaction control.
        Parsed::TransactionModes { .. } => false,
        _ => true,
    }
}

/// `SHOW ALL`'s text columns.
fn show_all_columns() -> Vec<crate::output::Column> {
    (crate::settings_list::SHOW_ALL_COLUMNS.iter())
        .map(|name| crate::output::Column {
            name: name.to_string(),
            type_oid: folio_row::SqlType::Text.oid(),
        })
        .collect()
}

/// The one text column `SHOW name` returns, named as PostgreSQL names it.
fn show_columns(name: &str) -> Vec<crate::output::Column> {
    let name = match name {
        "transaction isolation level" => "transaction_isolation",
        other => crate::settings_list::spelled(other).unwrap_or(other),
    };
    vec![crate::output::Column {
        name: name.to_string(),
        type_oid: folio_row::SqlType::Text.oid(),
    }]
}

/// A write refused in a READ ONLY transaction (folio-txn's 25006), named
/// by its command as PostgreSQL names it.
/// Only the generic messages are renamed: one a statement inside a
/// function or procedure already named stays (PostgreSQL names the
/// innermost command).
pub(crate) fn name_read_only_write(mut e: SqlError, statement: &Statement) -> SqlError {
    let generic = e.message.contains("a write in") || e.message.contains("a row change in");
    if e.code != "25006" || !generic {
        return e;
    }
    let command = match statement {
        Statement::Insert(_) => "INSERT".to_string(),
        Statement::Update { .. } => "UPDATE".to_string(),
        Statement::Delete(_) => "DELETE".to_string(),
        Statement::Merge { .. } => "MERGE".to_string(),
        Statement::Query(q) => match q.body.as_ref() {
            // WITH ... INSERT | UPDATE | DELETE.
            SetExpr::Insert(_) => "INSERT".to_string(),
            SetExpr::Update(_) => "UPDATE".to_string(),
            SetExpr::Delete(_) => "DELETE".to_string(),
            // A SELECT whose data-modifying CTE wrote is PostgreSQL's
            // `SELECT`; one that locks rows names its lock.
            _ => match q.locks.first().map(|l| l.lock_type) {
                None => "SELECT".to_string(),
                Some(sqlparser::ast::LockType::Share) => "SELECT FOR SHARE".to_string(),
                Some(sqlparser::ast::LockType::Update) => "SELECT FOR UPDATE".to_string(),
            },
        },
        Statement::Copy { .. } => "COPY FROM".to_string(),
        Statement::Truncate { .. } => "TRUNCATE TABLE".to_string(),
        // The prepared statement's run named its command, as did the
        // statement a procedure ran.
        Statement::Execute { .. } | Statement::Call(_) => return e,
        other => {
            // CREATE TABLE, DROP INDEX, ALTER TABLE, ...: the leading
            // keywords, as PostgreSQL's command tags read.
            let text = other.to_string().to_uppercase();
            let words: Vec<&str> = text.split_whitespace().take(3).collect();
            let keep = match words.as_slice() {
                [_, "UNIQUE", _] => 3,
                [w, ..] if *w == "ANALYZE" || *w == "VACUUM" => 1,
                _ => 2,
            };
            words[..keep.min(words.len())].join(" ")
        }
    };
    e.message = format!("cannot execute {command} in a read-only transaction");
    e
}

/// 25001: the level changed after the block's first query.
fn too_late_for_isolation() -> SqlError {
    SqlError::new(
        "25001",
        "SET TRANSACTION ISOLATION LEVEL must be called before any query",
    )
}

/// The value of `SET TIME ZONE value` as `SET TimeZone` reads it: a
/// string, a word, a number of hours, or an interval (its hours, as
/// PostgreSQL's `INTERVAL '+05:30' HOUR TO MINUTE`); `None` for `LOCAL`
/// and `DEFAULT`, which reset it.
fn set_time_zone_value(value: &sqlparser::ast::Expr) -> Result<Option<String>, SqlError> {
    use sqlparser::ast::{Expr, UnaryOperator, Value as V};
    let bad = || SqlError::unsupported(format!("SET TIME ZONE {value}"));
    Ok(Some(match value {
        Expr::Identifier(id)
            if id.quote_style.is_none()
                && (id.value.eq_ignore_ascii_case("local")
                    || id.value.eq_ignore_ascii_case("default")) =>
        {
            return Ok(None);
        }
        Expr::Identifier(id) if id.quote_style.is_none() => id.value.to_lowercase(),
        Expr::Identifier(id) => id.value.clone(),
        Expr::Value(v) => match &v.value {
            V::SingleQuotedString(s) | V::EscapedStringLiteral(s) => s.clone(),
            V::Number(n, _) => n.clone(),
            _ => return Err(bad()),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(v) if matches!(v.value, V::Number(..)) => format!("-{}", v.value),
            _ => return Err(bad()),
        },
        Expr::Interval(interval) => {
            let Expr::Value(v) = interval.value.as_ref() else {
                return Err(bad());
            };
            let V::SingleQuotedString(text) = &v.value else {
                return Err(bad());
            };
            let i = folio_row::parse_interval(text, folio_row::Unit::Second)?;
            if i.months != 0 || i.days != 0 {
                return Err(SqlError::new(
                    "22023",
                    "invalid interval value for time zone: day not allowed",
                ));
            }
            format!("{}", i.micros as f64 / 3_600_000_000.0)
        }
        _ => return Err(bad()),
    }))
}

/// What runs with a prepared statement's kept plan: the plan, the calls
/// to run before it, the transaction, the context and the notices
/// ([`Session::with_kept_plan`], [`Session::run_kept`]).
trait KeptRun<T>:
    FnOnce(
    &Plan,
    &crate::plpgsql::calls::Calls,
    &mut Transaction,
    &Ctx<'_>,
    &mut Vec<Notice>,
) -> Result<T, SqlError>
{
}

impl<T, F> KeptRun<T> for F where
    F: FnOnce(
        &Plan,
        &crate::plpgsql::calls::Calls,
        &mut Transaction,
        &Ctx<'_>,
        &mut Vec<Notice>,
    ) -> Result<T, SqlError>
{
}
