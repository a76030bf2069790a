//! The session's plan cache of PL/pgSQL bodies (README "PL/pgSQL",
//! "Plan cache"): each function's body parsed once, and each of its
//! queries and row changes bound and planned once, as PostgreSQL's SPI
//! prepares a function's statements once per session.
//!
//! - **Bodies** are kept by function oid and the call's argument types
//!   (a polymorphic function's resolved ones, as PostgreSQL keys its
//!   compiled functions: one body and plans per resolution) with the
//!   definition they were parsed from: a call of another definition
//!   (CREATE OR REPLACE since) parses the new body and forgets every plan
//!   of the old one. Each
//!   kept body has a [`Stamp`], new at each reset, that a running call
//!   holds: a plan made by a call of an old body is not put back.
//! - **Statements** are kept by their number in the body ([`Sql::id`]):
//!   the statement with the variables it names replaced by typed
//!   parameters (`exec.rs`), the names and their types, and its plan.
//!   A later run looks the names up again; if each is still a variable
//!   of the same type (a record's field may change type with the row
//!   assigned to it) the kept statement is run with the new values,
//!   else it is bound and planned again.
//! - **When a plan is made again** is decided by [`Kept::is_current`],
//!   the prepared statements' rule (`statement.rs`): DDL of the session
//!   or a `search_path` change, DDL of any session on a relation or view
//!   it uses, a function it expands or calls replaced.
//! - **Recursion.** A statement's entry is taken out of the cache while
//!   it runs (the run may call the same function); a nested run of the
//!   same statement finds none and makes its own. The one put back last
//!   stays.
//! - EXECUTE's statements, utility statements and DO blocks are not
//!   kept (parsed or planned at each run), nor any statement of a body
//!   run while a trigger's transition tables (or a data-modifying CTE)
//!   are in scope by name ([`usable`]).
//!
//! [`Sql::id`]: super::parse::Sql::id

use super::parse::Block;
use crate::error::SqlError;
use crate::statement::Kept;
use folio_catalog::FunctionDef;
use folio_row::SqlType;
use sqlparser::ast::Statement;
use std::cell::{Cell, RefCell};
use std::sync::Arc;

/// Bodies kept at most: past it the cache is emptied (a session that
/// calls more functions parses and plans again).
const MAX_BODIES: usize = 1024;

/// Whether a body run in `cx` may use kept plans: not while relations
/// of the running statement are in scope by name (a trigger's transition
/// tables, data-modifying CTEs: `cx.produced`), whose rows a plan binds
/// and which are others at each firing.
pub fn usable(cx: &crate::context::Ctx<'_>) -> bool {
    cx.produced.borrow().is_empty()
}

/// Which kept body a running call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    key: Key,
    made: u64,
}

/// What a body is kept by: the function's oid and a hash of its
/// argument types (a polymorphic call's resolved ones; the definition
/// kept beside it is compared in full, so a collision parses again).
type Key = (u64, u64);

fn key_of(def: &FunctionDef) -> Key {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut hasher = foldhash::fast::FixedState::with_seed(0).build_hasher();
    for a in &def.args {
        (a.1, a.2).hash(&mut hasher);
    }
    (def.oid, hasher.finish())
}

/// The session's kept bodies and plans.
#[derive(Default)]
pub struct PlanCache {
    bodies: RefCell<foldhash::HashMap<Key, Body>>,
    /// The last stamp given.
    stamps: Cell<u64>,
    /// How many statements' plans were made (kept ones are not counted
    /// again): one per statement while nothing invalidates it.
    plans_made: Cell<u64>,
}

struct Body {
    def: FunctionDef,
    block: Arc<Block>,
    made: u64,
    /// By [`Sql::id`](super::parse::Sql::id); `None`: not kept yet, or
    /// taken out by a run.
    statements: Vec<Option<Box<KeptSql>>>,
}

/// A statement of a body, bound and planned.
pub struct KeptSql {
    /// The statement with its variables replaced by `$1`, `$2`, ...
    pub bound: Statement,
    /// The name of the variable (or record field) each parameter is.
    pub names: Vec<Vec<String>>,
    /// Each parameter's type when it was bound.
    pub types: Vec<SqlType>,
    /// Its plan (`None`: not made yet, or it failed).
    pub plan: Option<Kept>,
}

/// `def`'s body as a block: PL/pgSQL's parsed, a SQL procedure's
/// statements (`parse::sql_body`).
pub fn parse_body(def: &FunctionDef) -> Result<Block, SqlError> {
    if def.plpgsql {
        return super::parse::parse(&def.body);
    }
    super::parse::sql_body(&def.body, &super::output_names(def))
}

impl PlanCache {
    /// `def`'s body parsed, and the stamp of its kept plans (a new one if
    /// the kept body is another definition's).
    pub fn body(&self, def: &FunctionDef) -> Result<(Arc<Block>, Stamp), SqlError> {
        let key = key_of(def);
        if let Some(body) = self.bodies.borrow().get(&key)
            && body.def == *def
        {
            let stamp = Stamp {
                key,
                made: body.made,
            };
            return Ok((body.block.clone(), stamp));
        }
        let block = Arc::new(parse_body(def)?);
        let made = self.stamps.get() + 1;
        self.stamps.set(made);
        let mut bodies = self.bodies.borrow_mut();
        if bodies.len() >= MAX_BODIES {
            bodies.clear();
        }
        bodies.insert(
            key,
            Body {
                def: def.clone(),
                block: block.clone(),
                made,
                statements: Vec::new(),
            },
        );
        Ok((block, Stamp { key, made }))
    }

    /// Statement `id` of the body `stamp` names, taken out while it runs.
    pub fn take(&self, stamp: Stamp, id: usize) -> Option<Box<KeptSql>> {
        let mut bodies = self.bodies.borrow_mut();
        let body = bodies
            .get_mut(&stamp.key)
            .filter(|b| b.made == stamp.made)?;
        body.statements.get_mut(id)?.take()
    }

    /// Puts statement `id` back after its run (dropped if the body was
    /// replaced meanwhile).
    pub fn put(&self, stamp: Stamp, id: usize, kept: Box<KeptSql>) {
        let mut bodies = self.bodies.borrow_mut();
        let Some(body) = bodies.get_mut(&stamp.key).filter(|b| b.made == stamp.made) else {
            return;
        };
        if body.statements.len() <= id {
            body.statements.resize_with(id + 1, || None);
        }
        body.statements[id] = Some(kept);
    }

    /// Counts a statement's plan made.
    pub fn planned(&self) {
        self.plans_made.set(self.plans_made.get() + 1);
    }

    /// How many statements' plans were made.
    pub fn plans_made(&self) -> u64 {
        self.plans_made.get()
    }

    /// Forgets every body and plan (DISCARD PLANS / ALL).
    pub fn clear(&self) {
        self.bodies.borrow_mut().clear();
    }
}
