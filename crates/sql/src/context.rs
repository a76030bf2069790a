//! What every statement runs with: the database, the session's settings
//! and relation cache, and the transaction's start time.

use crate::access::Relations;
use crate::settings::Settings;
use folio_db::Database;

/// A statement's context.
pub struct Ctx<'a> {
    pub db: &'a Database,
    pub settings: &'a Settings,
    pub relations: &'a Relations,
    /// The session's temporary namespace (`temp_tables.rs`).
    pub temp: &'a crate::temp_tables::TempTables,
    /// `currval` and `lastval`'s memory (`sequences.rs`).
    pub sequences: &'a std::sync::Arc<crate::sequences::SessionSequences>,
    /// The session's advisory locks (`advisory.rs`).
    pub advisory: &'a crate::advisory::SessionAdvisory,
    /// The session's entry among the live sessions (`backend.rs`).
    pub backend: &'a crate::backend::SessionBackend,
    /// Microseconds since 2000-01-01 UTC at the transaction's start
    /// (`CURRENT_TIMESTAMP`; a procedure's COMMIT moves it:
    /// [`Ctx::now`]).
    pub now: std::cell::Cell<i64>,
    /// The CALL or DO about to run may end its transaction (README
    /// "Transaction control in procedures"): set by the session for one
    /// run as a statement of its own outside a block, or by a non-atomic
    /// PL/pgSQL body for the CALL or DO it runs; taken by the CALL or DO
    /// as it starts, so nothing it runs inherits it unasked.
    pub nonatomic: std::cell::Cell<bool>,
    /// The recursive CTEs in scope while a query is planned
    /// (`recursive.rs`), innermost last.
    pub recursive: std::cell::RefCell<Vec<std::rc::Rc<crate::recursive::Cte>>>,
    /// The data-modifying CTEs in scope while the parts of a statement
    /// after them are planned (`modifying_cte.rs`).
    pub produced: std::cell::RefCell<Vec<std::rc::Rc<crate::modifying_cte::Produced>>>,
    /// The views the statement being planned expanded (`views.rs`).
    pub views: std::cell::RefCell<Vec<crate::views::Used>>,
    /// The session's role (`current_user`; `privileges.rs`).
    pub role: &'a crate::roles::Role,
    /// The privileges the statement being planned needs, checked when
    /// its plan runs (`privileges::note`).
    pub needs: std::cell::RefCell<Vec<crate::privileges::Need>>,
    /// The view whose owner's privileges the relations being planned
    /// are checked with (the innermost view expanded, when it is not
    /// `security_invoker`; `None`: the session's role's).
    pub checked_as: std::cell::Cell<Option<u64>>,
    /// The transaction's deferred constraint checks (`deferred.rs`).
    pub deferred: &'a crate::deferred::Pending,
    /// The session's kept PL/pgSQL bodies and plans
    /// (`plpgsql/plan_cache.rs`).
    pub plpgsql: &'a crate::plpgsql::plan_cache::PlanCache,
    /// The notices triggers raised while the statement ran (a row change
    /// has no list of its own to add to), given to the client after it.
    pub raised: std::cell::RefCell<Vec<crate::output::Notice>>,
    /// No row-level security applies while set (a policy's expression
    /// planned to be checked: `policy_statements.rs`).
    pub row_security_off: std::cell::Cell<bool>,
    /// The tables whose policies' condition is being planned around
    /// their scan (`from.rs`): their own scan inside takes none again.
    pub row_security_inside: std::cell::RefCell<Vec<u64>>,
    /// The parents (oid, name) whose descendants (the oids after them)
    /// are being planned as the parent's parts: a part's scan or change
    /// takes the parent's policies, as PostgreSQL applies the named
    /// table's alone (`row_security::as_parts_of`).
    pub row_security_parts: std::cell::RefCell<Vec<(u64, String, Vec<u64>)>>,
    /// The partitioned tables' trees the statement built
    /// (`partitions/tree.rs` `Tree::of`), each with the partition list
    /// it was built from: planning an UPDATE of a partitioned table binds
    /// each partition's constraints, each of which needs its parent's
    /// tree, and reading every partition's bound again for each was most
    /// of the planning.
    pub partition_trees: std::cell::RefCell<Vec<crate::partitions::tree::Built>>,
    /// While EXPLAIN ANALYZE runs a row change: what the change found,
    /// noted by its own path (`explain_change.rs`); `None` otherwise.
    pub change_counts: std::cell::RefCell<Option<crate::explain_change::ChangeCounts>>,
}

impl Ctx<'_> {
    /// Microseconds since 2000-01-01 UTC at the running transaction's
    /// start (`CURRENT_TIMESTAMP`).
    pub fn now(&self) -> i64 {
        self.now.get()
    }
}

impl std::fmt::Debug for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ctx")
    }
}
