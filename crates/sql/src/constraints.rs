//! A table's defaults, CHECK constraints and foreign keys, bound for the
//! statements that write it, and the one owner of checking a row change
//! against them: [`Constraints::insert`], [`Constraints::update`] and
//! [`Constraints::delete`] are what INSERT, UPDATE, DELETE, COPY and ON
//! CONFLICT DO UPDATE call instead of the relation's own writes.
//!
//! - **Order, as PostgreSQL's**: values fitted to the columns and NOT NULL
//!   (folio-catalog `Relation::prepare`), then CHECK (23514; a NULL result
//!   passes), then the write (unique indexes, 23505); the foreign keys
//!   (23503: the row's references, and the keys that referenced the row's
//!   old values) when the statement's row changes are done
//!   ([`Constraints::end_statement`], PostgreSQL's after-row triggers), so
//!   rows that reference each other may come in any order in one
//!   statement; a `DEFERRABLE` key's checks the transaction defers wait
//!   for its COMMIT instead (`deferred.rs`). COPY checks each row as it
//!   is inserted.
//! - **A deferrable PRIMARY KEY or UNIQUE constraint** takes a possible
//!   duplicate into its index (folio-catalog `Relation::insert_many_deferring`);
//!   the key is checked again when the statement ends, or at COMMIT when
//!   the transaction defers it (README "Deferred constraints").
//! - **A reference is checked and kept** (insert, or update changing the
//!   key columns; a key with a NULL column is not checked, MATCH SIMPLE):
//!   the referenced row is found through the parent's unique index and
//!   share-locked (`FOR SHARE`, folio's weakest row lock; PostgreSQL takes
//!   `FOR KEY SHARE`). Under READ COMMITTED it is looked for with a new
//!   snapshot, so a parent committed after the statement began counts;
//!   under REPEATABLE READ with the transaction's (a parent changed since
//!   is 40001 from the lock, as PostgreSQL's). The lock follows the row's
//!   update links to its newest version, which must still carry the key
//!   (`Reference::lock_newest`). The lock is the proof: a
//!   concurrent delete of the parent either came first (the lock waits for
//!   its transaction; committed, the row is gone: 23503; rolled back, the
//!   lock holds) or comes after (it waits for our transaction, then finds
//!   our committed row referencing it: 23503 for the deleter).
//! - **Referential actions** (README "Referential actions"): `ON DELETE
//!   CASCADE` deletes the referencing rows as the parent row goes
//!   ([`Constraints::cascade`]); every other action (`ON UPDATE CASCADE`,
//!   `SET NULL`, `SET DEFAULT`, with PostgreSQL 15's `ON DELETE SET ...
//!   (columns)`) changes them when the statement's rows are done, in the
//!   order of the changes (`Constraints::act`), each through the
//!   referencing table's own [`Constraints::update`], so its CHECKs, NOT
//!   NULLs, keys and actions apply. Actions are never deferred.
//!   `MATCH FULL` makes a key with some but not all columns NULL 23503
//!   (`Reference::mixed`).
//! - **A referenced key may not go** (delete, or update changing the
//!   referenced columns; NO ACTION and RESTRICT alike, when the
//!   statement ends, unless NO ACTION's is deferred; NO ACTION's passes
//!   when the table holds the key again by then, RESTRICT's not):
//!   after the parent row is written (and the statement's other rows),
//!   the referencing table is searched
//!   for the old key (through an index on exactly the key's columns if
//!   there is one, else a scan) with a new snapshot, under either level.
//!   Our write holds the parent row, so a child inserted since must wait
//!   for our lock and then fails; a child inserted before holds its share
//!   lock, so our write waited for it and the search sees it committed.

use crate::access;
use crate::context::Ctx;
use crate::deferred::{Pending, Queued};
use crate::error::SqlError;
use crate::overriding::Overriding;
use crate::parse;
use crate::partitions::column_map::{self, ColumnMap};
use crate::partitions::foreign_keys::{self, KeyIndex};
use crate::scalar::{self, Cmp, Env, Scalar};
use crate::scan;
use crate::types;
use folio_catalog::{ConstraintKind, Deferrable, RefAction, Relation, RowAt, UniqueRecheck};
use folio_db::{Isolation, Tid, Transaction, Write};
use folio_row::{SqlType, Value};
use std::cell::RefCell;
use std::sync::Arc;

/// Whether the running statement checks the foreign keys of table
/// `table`'s rows and runs the actions of those that reference it: not
/// in a session replaying changes (`session_replication_role =
/// replica`), nor while the table's triggers are disabled with `ALTER
/// TABLE ... DISABLE TRIGGER ALL`, as PostgreSQL's RI triggers (origin
/// ones, on each side's table) do not fire then.
fn foreign_keys_enforced(table: u64) -> bool {
    !crate::setting_functions::replica() && !crate::triggers::foreign_keys_disabled(table)
}

/// A table's constraints, bound for one plan.
#[derive(Default)]
pub struct Constraints {
    /// Per column, its DEFAULT (none: NULL). Empty when no column has one.
    defaults: Vec<Option<Scalar>>,
    /// The sequences the defaults name (`nextval('t_id_seq')`).
    sequences: Vec<String>,
    /// Whether a default looks the catalog up when it runs (a sequence
    /// named at run time: `lookups.rs`).
    defaults_look_up: bool,
    /// The identity columns, each with whether it is `GENERATED ALWAYS`
    /// (an INSERT may not give it a value without `OVERRIDING SYSTEM
    /// VALUE`, an UPDATE may set it only to DEFAULT: 428C9).
    identity: Vec<(usize, bool)>,
    /// The generated columns and their expressions over the row
    /// (`generated.rs`), computed for every row written.
    generated: Vec<(usize, Scalar)>,
    checks: Vec<Check>,
    /// The check options of the views the statement changes the table
    /// through (`updatable_views.rs`): each view's name and its
    /// condition over the table's columns, in the order judged.
    view_checks: Vec<(String, Scalar)>,
    /// The row-level security checks of the statement's new rows
    /// (`row_security::checks`), those of the rows it inserts and those
    /// of the rows it updates (an INSERT ... ON CONFLICT DO UPDATE has
    /// both): the table's name, the restrictive policy's name (none: the
    /// permissive policies'), the condition.
    policy_checks: [Vec<PolicyCheck>; 2],
    /// The columns of a domain type and the domain's rules, bound
    /// (`domains.rs`); empty for a table with none.
    domains: Vec<(usize, Arc<crate::domains::Bound>)>,
    /// The table's oid.
    table: u64,
    /// A partition's ancestors, its parent first: their foreign keys and
    /// the keys referencing them are bound here too
    /// (`partitions/foreign_keys.rs`).
    ancestors: Vec<Arc<Relation>>,
    /// This table's foreign keys.
    references: Vec<Reference>,
    /// Other tables' foreign keys (or its own) that reference this table.
    referenced_by: Vec<Referencing>,
    /// The partitioned tables whose leaves `referenced_by` keys with an
    /// action change rows of ([`Cascade::Routed`]): each table and its
    /// constraints, every partition's moving the rows an update takes out
    /// of it.
    routed: Vec<Routed>,
    /// The foreign key checks of the running statement's row changes,
    /// made when it ends ([`Constraints::end_statement`]).
    deferred: RefCell<Vec<Deferred>>,
    /// The deferrable key constraints' indexes (oid, mode): the table's
    /// writes leave their possible duplicates for later.
    deferrable_keys: Vec<(u64, Deferrable)>,
    /// The keys of the running statement's rows that such an index took
    /// over a possible duplicate, checked when it ends.
    rechecks: RefCell<Vec<UniqueRecheck>>,
    /// A partitioned table's rows go to its partitions; a partition's
    /// rows must lie in its bound (`partitions/`).
    partition: Partitioning,
    /// A partition changed through its partitioned table (an UPDATE of
    /// the parent): a row whose new key leaves the partition's bound is
    /// deleted here and kept in `moved`, for the parent to insert once
    /// every partition's change is done (PostgreSQL 15's row movement),
    /// instead of the partition constraint's 23514.
    pub(crate) moves: bool,
    moved: RefCell<Vec<Vec<Value>>>,
    /// The checks and actions of rows moved out of this partition whose
    /// referencing keys act ON UPDATE, while the rows are not in their new
    /// partition yet: an action's referencing rows take (or check) the
    /// key the moved row holds, so they wait for it, as PostgreSQL 15's
    /// triggers fire for the partitioned table once the row has moved.
    /// The next [`Constraints::end_statement`] after `moved` is taken
    /// runs them.
    after_move: RefCell<Vec<Deferred>>,
}

/// A row-level security check of new rows: the table's name, the
/// restrictive policy's name (none: the permissive policies'), the
/// condition.
pub type PolicyCheck = (String, Option<String>, Scalar);

/// Which new rows a row-level security check judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Inserted = 0,
    Updated = 1,
}

/// What partitioning asks of a table's rows.
#[derive(Default)]
enum Partitioning {
    #[default]
    None,
    /// A partitioned table: each partition's relation and constraints,
    /// and its ancestors' trees when it is a partition too (as
    /// `Bounded`'s).
    Routes {
        tree: Box<crate::partitions::Tree>,
        parts: Vec<(Arc<Relation>, Constraints)>,
        ancestors: Vec<Ancestor>,
    },
    /// A leaf partition: its ancestors' trees (parent first) and its
    /// place on the way down in each: a row written into it must lie in
    /// every one of those partitions.
    Bounded { ancestors: Vec<Ancestor> },
}

/// A leaf partition a row goes to ([`Constraints::leaf`]): its relation,
/// its constraints, and the map from the routing table's columns to its.
pub type Leaf<'a> = (&'a Arc<Relation>, &'a Constraints, Option<ColumnMap>);

/// Where an action changes a referencing table's rows
/// ([`Constraints::action_target`]).
struct ActionTarget<'a> {
    /// The constraints the rows are deleted or updated under.
    leaf: &'a Constraints,
    /// A [`Cascade::Routed`] key's partitioned table and its constraints
    /// (whose defaults SET DEFAULT takes, as PostgreSQL's action updates
    /// that table, and which the rows an update moved out of their
    /// partition go into), with the map from its columns to the leaf's.
    whole: Option<(&'a Routed, Option<ColumnMap>)>,
}

/// A partitioned referencing table and its constraints, bound for the
/// actions on its leaves' rows ([`Cascade::Routed`]).
type Routed = (Arc<Relation>, Constraints);

/// An ancestor's tree, the place on the way down in it, and the map
/// from its columns to the partition's (`partitions/column_map.rs`).
type Ancestor = (crate::partitions::Tree, usize, Option<ColumnMap>);

/// A foreign key check waiting for the end of the statement.
enum Deferred {
    /// The references of a new row, at `tid` (replacing `old`, if an
    /// update).
    References {
        tid: Tid,
        new: Vec<Value>,
        old: Option<Vec<Value>>,
    },
    /// The keys an old row held (replaced by `new`, if an update;
    /// `moved`: by a row in another partition, an UPDATE through the
    /// partitioned table).
    Removed {
        old: Vec<Value>,
        new: Option<Vec<Value>>,
        moved: bool,
        /// The statement's `CURRENT_TIMESTAMP`, for the defaults and
        /// checks of rows a referential action changes.
        now: i64,
    },
}

struct Check {
    name: String,
    expr: Scalar,
    /// False while it is `NOT VALID` (rows before it unchecked): new
    /// rows meet it, [`Constraints::validate_checks`] skips it.
    validated: bool,
}

/// A foreign key of this table.
struct Reference {
    name: String,
    /// The constraint's oid (what the transaction's queue names).
    oid: u64,
    deferrable: Deferrable,
    /// As [`Check::validated`].
    validated: bool,
    /// Its columns here, in key order.
    columns: Vec<usize>,
    /// The referenced table (partitioned or not).
    parent: Arc<Relation>,
    /// The referenced columns there, in key order.
    ref_columns: Vec<usize>,
    /// Where a key is found: the parent's unique index over them, or the
    /// index of the partition the key routes to.
    lookup: KeyIndex,
    /// `MATCH FULL`: a key with some columns NULL and others not is
    /// 23503 (MATCH SIMPLE: not checked).
    match_full: bool,
}

/// A foreign key of another table (`child`) that references this one
/// (one per leaf partition of a partitioned referencing table).
struct Referencing {
    name: String,
    /// As [`Reference::oid`].
    oid: u64,
    deferrable: Deferrable,
    on_delete: RefAction,
    on_update: RefAction,
    /// The table the key was made on (what messages name): `child`, or
    /// the partitioned table `child` is a leaf of.
    table: Arc<Relation>,
    /// The oid of the table the key references: the one bound, or the
    /// ancestor of it the key was made on (DETACH checks the keys of the
    /// detached table's ancestors only).
    referenced: u64,
    /// A table with the referencing rows.
    child: Arc<Relation>,
    /// Its columns in the child, in key order.
    columns: Vec<usize>,
    /// The referenced columns here, in key order.
    ref_columns: Vec<usize>,
    /// A child index over exactly `columns`, in order, if there is one.
    index: Option<usize>,
    /// The key columns `ON DELETE SET NULL / SET DEFAULT` sets (all of
    /// `columns` unless the key names some).
    set_columns: Vec<usize>,
    /// A key with an action (CASCADE, SET NULL, SET DEFAULT, on either
    /// side): the constraints the referencing rows are deleted or
    /// updated under.
    cascade: Option<Cascade>,
    /// A key of a partitioned table bound for one of its partitions:
    /// where the key is looked up in the whole table (a row moved to
    /// another partition still holds it).
    whole: Option<KeyIndex>,
}

/// The constraints the rows a referential action deletes or updates are
/// changed under (`ON DELETE CASCADE`, and each `ON UPDATE` or `SET`
/// action).
enum Cascade {
    /// The key references its own table.
    Itself,
    Other(Box<Constraints>),
    /// A leaf of a partitioned referencing table (not this table's own
    /// tree): its rows are changed under the whole table's constraints
    /// (`Constraints::routed`, by index), so a row an action updates out
    /// of its partition is deleted there and inserted through the table
    /// into the one it now belongs in, as a user's UPDATE of the table
    /// moves it (PostgreSQL 15's cross-partition update).
    Routed(usize),
    /// The table is reached again through other tables' cascades (or
    /// deeper than `CASCADE_DEPTH_MAX`): 0A000 if a row would cascade.
    Cycle,
}

/// Most tables one delete cascades through.
const CASCADE_DEPTH_MAX: usize = 16;

impl Constraints {
    /// The constraints of `relation`, bound (stored expressions parsed and
    /// bound, the tables of foreign keys opened through the session).
    pub fn bind(
        cx: &Ctx<'_>,
        txn: &Transaction,
        relation: &Relation,
    ) -> Result<Constraints, SqlError> {
        crate::fold::unnoted(|| Constraints::bind_in(cx, txn, relation, &[]))
    }

    /// [`Constraints::bind`] for a table reached through `ON DELETE
    /// CASCADE` from the tables `cascading` (a cycle of cascades through
    /// other tables is 0A000).
    fn bind_in(
        cx: &Ctx<'_>,
        txn: &Transaction,
        relation: &Relation,
        cascading: &[u64],
    ) -> Result<Constraints, SqlError> {
        let def = &relation.def;
        let partitioned = def.partition_key().is_some();
        let mut out = Constraints {
            table: def.oid,
            deferrable_keys: (def.indexes.iter())
                .filter(|i| i.deferrable.is_deferrable())
                .map(|i| (i.oid, i.deferrable))
                .collect(),
            ..Constraints::default()
        };
        let none: &[(String, SqlType)] = &[];
        // A domain's DEFAULT serves its columns that have none of their
        // own, as PostgreSQL's.
        let mut domain_defaults = Vec::new();
        for (position, column) in def.columns.iter().enumerate() {
            // A column of a domain's array type: each element meets the
            // domain's rules.
            if let Some(domain) = (def.domains.iter())
                .find(|d| d.array_oid == column.type_oid && column.type_oid != 0)
                && let Some(element) = def.column_type(position).and_then(|t| t.element())
            {
                out.domains.push((
                    position,
                    crate::domains::Bound::bind_elements(domain, element, &def.domains)?,
                ));
                continue;
            }
            let Some(domain) = def.domains.iter().find(|d| d.oid == column.type_oid) else {
                continue;
            };
            let base = def.column_type(position).ok_or_else(|| {
                SqlError::new(
                    "XX000",
                    format!("domain {} has an unknown base type", domain.name),
                )
            })?;
            out.domains.push((
                position,
                crate::domains::Bound::bind(domain, base, &def.domains)?,
            ));
            if let Some(expr) = &domain.default
                && def.default_of(position).is_none()
            {
                domain_defaults.push(folio_catalog::ConstraintDef {
                    local: true,
                    no_inherit: false,
                    oid: 0,
                    name: String::new(),
                    table_oid: def.oid,
                    table: def.name.clone(),
                    kind: ConstraintKind::Default {
                        column: position as u16,
                        expr: expr.clone(),
                    },
                    validated: true,
                    deferrable: Deferrable::No,
                });
            }
        }
        for c in def.constraints.iter().chain(&domain_defaults) {
            match &c.kind {
                ConstraintKind::Default { column, expr } => {
                    if out.defaults.is_empty() {
                        out.defaults = vec![None; def.columns.len()];
                    }
                    // (Its calls of SQL functions expanded, as a
                    // statement's are.)
                    let mut parsed = parse::expression(expr)?;
                    crate::sql_functions::expand_expr(cx, txn, &mut parsed)?;
                    let mut named = Vec::new();
                    crate::sequences::names_in(&parsed, &mut named)?;
                    out.defaults_look_up |= crate::lookups::needed(&parsed);
                    for name in named {
                        if let Some(seq) = cx.db.catalog().sequence(txn, &name)?
                            && seq.identity
                            && seq.owner == Some((def.oid, *column))
                        {
                            out.identity.push((usize::from(*column), seq.always));
                        }
                        if !out.sequences.contains(&name) {
                            out.sequences.push(name);
                        }
                    }
                    // Its value meets the column by assignment, as
                    // PostgreSQL coerces a default (an integer default of
                    // a column changed to text: `alter_type.rs`).
                    let mut bound = scalar::bind(&parsed, none)?;
                    let (from, to) = (bound.ty_in(none), relation.types[usize::from(*column)]);
                    if from.oid() != to.oid() && types::assignment_cast(from, to) {
                        // Cast to the type without a length: the length is
                        // the row's to check (an explicit cast would cut
                        // what an assignment refuses).
                        let unlimited = match to {
                            SqlType::Varchar(_) | SqlType::Char(_) => SqlType::Varchar(None),
                            other => other,
                        };
                        bound = Scalar::Cast(Box::new(bound), unlimited);
                    }
                    out.defaults[usize::from(*column)] = Some(bound);
                }
                ConstraintKind::Generated { column, expr } => {
                    let column = usize::from(*column);
                    let all = crate::generated::columns_of(relation);
                    let bound =
                        crate::generated::bind(&parse::expression(expr)?, relation, column, &all)?;
                    out.generated.push((column, bound));
                }
                ConstraintKind::Check { expr } => out.checks.push(Check {
                    name: c.name.clone(),
                    expr: scalar::bind(&parse::expression(expr)?, relation)?,
                    validated: c.validated,
                }),
                ConstraintKind::Partition(_) => {}
                // A partitioned table's rows, and so its keys' checks,
                // are its partitions'.
                ConstraintKind::ForeignKey(_) if partitioned => {}
                ConstraintKind::ForeignKey(fk) => {
                    out.references.push(Reference::bind(cx, txn, c, fk, None)?);
                }
            }
        }
        if def.partition_parent().is_some() {
            out.ancestors = foreign_keys::ancestors(cx, txn, def)?;
        }
        if !partitioned {
            for ancestor in &out.ancestors {
                let map = ColumnMap::between(&ancestor.def, def);
                for c in &ancestor.def.constraints {
                    if let ConstraintKind::ForeignKey(fk) = &c.kind {
                        let bound = Reference::bind(cx, txn, c, fk, map.as_ref())?;
                        out.references.push(bound);
                    }
                }
            }
            let ancestors = out.ancestors.clone();
            let own = def.referenced_by.iter().map(|c| (c, None));
            let inherited = (ancestors.iter())
                .flat_map(|a| a.def.referenced_by.iter().map(move |c| (c, Some(a))));
            for (c, ancestor) in own.chain(inherited).collect::<Vec<_>>() {
                out.bind_referencing(cx, txn, def, c, ancestor, cascading)?;
            }
        }
        // CHECK constraints are judged in name order, as PostgreSQL's
        // (the first failing one is the one reported).
        out.checks.sort_by(|a, b| a.name.cmp(&b.name));
        if let Some(tree) = crate::partitions::Tree::of(cx, txn, def)? {
            let mut parts = Vec::with_capacity(tree.parts.len());
            for part in &tree.parts {
                let relation = access::relation(cx, txn, &part.name)?;
                let constraints = Constraints::bind_in(cx, txn, &relation, cascading)?;
                parts.push((relation, constraints));
            }
            out.partition = Partitioning::Routes {
                tree: Box::new(tree),
                parts,
                ancestors: crate::partitions::ddl::ancestor_trees(cx, txn, def)?,
            };
        } else {
            let ancestors = crate::partitions::ddl::ancestor_trees(cx, txn, def)?;
            if !ancestors.is_empty() {
                out.partition = Partitioning::Bounded { ancestors };
            }
        }
        Ok(out)
    }

    /// Binds foreign key `c` of another table (or this one) that
    /// references this table, or its ancestor `ancestor`: one
    /// [`Referencing`] per table holding referencing rows (the leaves of a
    /// partitioned one).
    fn bind_referencing(
        &mut self,
        cx: &Ctx<'_>,
        txn: &Transaction,
        def: &folio_catalog::TableDef,
        c: &folio_catalog::ConstraintDef,
        ancestor: Option<&Arc<Relation>>,
        cascading: &[u64],
    ) -> Result<(), SqlError> {
        let ConstraintKind::ForeignKey(fk) = &c.kind else {
            return Ok(());
        };
        let table = access::relation(cx, txn, &c.table)?;
        let acts = fk.on_delete.acts() || fk.on_update.acts();
        // A partitioned referencing table, bound once for all its leaves
        // (`Cascade::Routed`); its own tree and one reached again keep
        // the per-leaf binding below.
        let own_tree =
            table.def.oid == def.oid || (self.ancestors.iter()).any(|a| a.def.oid == table.def.oid);
        let routed = match acts
            && table.def.partition_key().is_some()
            && !own_tree
            && !cascading.contains(&table.def.oid)
            && cascading.len() < CASCADE_DEPTH_MAX
        {
            false => None,
            true => {
                let mut path = cascading.to_vec();
                path.extend([def.oid, table.def.oid]);
                let mut whole = Constraints::bind_in(cx, txn, &table, &path)?;
                whole.move_rows_in_leaves();
                self.routed.push((table.clone(), whole));
                Some(self.routed.len() - 1)
            }
        };
        let in_table: Vec<usize> = fk.columns.iter().map(|&c| usize::from(c)).collect();
        let whole_columns: Vec<usize> = fk.ref_columns.iter().map(|&c| usize::from(c)).collect();
        // (The referenced columns as this table's when the key is an
        // ancestor's, the referencing ones as each leaf's: their columns
        // may be in another order, `column_map.rs`.)
        let ref_columns: Vec<usize> = match ancestor {
            Some(a) => {
                column_map::positions_in(ColumnMap::between(&a.def, def).as_ref(), &whole_columns)
            }
            None => whole_columns.clone(),
        };
        for child in foreign_keys::leaves(cx, txn, table.clone())? {
            let leaf_map = ColumnMap::between(&table.def, &child.def);
            let columns = column_map::positions_in(leaf_map.as_ref(), &in_table);
            let index = child.indexes.iter().position(|i| {
                i.def.is_plain()
                    && i.def.columns.len() == columns.len()
                    && i.def
                        .columns
                        .iter()
                        .zip(&columns)
                        .all(|(&a, &b)| usize::from(a) == b)
            });
            let leaf = child.def.oid;
            let cascade = match acts {
                false => None,
                true if let Some(n) = routed => Some(Cascade::Routed(n)),
                true if leaf == def.oid => Some(Cascade::Itself),
                true if cascading.contains(&leaf) || cascading.len() >= CASCADE_DEPTH_MAX => {
                    Some(Cascade::Cycle)
                }
                true => {
                    let mut path = cascading.to_vec();
                    path.push(def.oid);
                    let bound = Constraints::bind_in(cx, txn, &child, &path)?;
                    Some(Cascade::Other(Box::new(bound)))
                }
            };
            let whole = match ancestor {
                Some(ancestor) => KeyIndex::of(cx, txn, ancestor, &whole_columns)?,
                None => None,
            };
            self.referenced_by.push(Referencing {
                name: c.name.clone(),
                oid: c.oid,
                deferrable: c.deferrable,
                on_delete: fk.on_delete,
                on_update: fk.on_update,
                table: table.clone(),
                referenced: ancestor.map_or(def.oid, |a| a.def.oid),
                child,
                columns: columns.clone(),
                ref_columns: ref_columns.clone(),
                set_columns: match fk.set_columns.is_empty() {
                    true => columns.clone(),
                    false => {
                        let set: Vec<usize> = fk.set_columns.iter().map(|&c| c.into()).collect();
                        column_map::positions_in(leaf_map.as_ref(), &set)
                    }
                },
                index,
                cascade,
                whole,
            });
        }
        Ok(())
    }

    /// The rows an UPDATE through the partitioned table moved out of this
    /// partition ([`Constraints::moves`]), taken; for a partitioned
    /// table, those moved out of each of its partitions.
    pub fn take_moved(&self) -> Vec<Vec<Value>> {
        let mut out = std::mem::take(&mut *self.moved.borrow_mut());
        if let Partitioning::Routes { tree, parts, .. } = &self.partition {
            for (part, (_, c)) in tree.parts.iter().zip(parts) {
                let moved = c.take_moved().into_iter();
                out.extend(moved.map(|row| column_map::up(part.map.as_ref(), row)));
            }
        }
        out
    }

    /// Keeps `row` (in this partitioned partition's column order), which
    /// an UPDATE through an ancestor moved out of one of its partitions
    /// and out of its own bound, for the ancestor to route from the table
    /// the statement names ([`Constraints::take_moved`]).
    pub(crate) fn pass_up(&self, row: Vec<Value>) {
        self.moved.borrow_mut().push(row);
    }

    /// Makes each partition of this partitioned table (at every level)
    /// keep the rows an update moves out of it ([`Constraints::moves`]):
    /// a MERGE's, whose matched rows are updated in their leaf.
    pub fn move_rows_in_leaves(&mut self) {
        if let Partitioning::Routes { parts, .. } = &mut self.partition {
            for (_, constraints) in parts {
                constraints.moves = true;
                constraints.move_rows_in_leaves();
            }
        }
    }

    /// The leaf partition of this partitioned table with oid `oid`, its
    /// constraints and column map (a MERGE's matched row's).
    pub fn leaf_by_oid(&self, oid: u64) -> Option<Leaf<'_>> {
        let Partitioning::Routes { tree, parts, .. } = &self.partition else {
            return None;
        };
        for (part, (relation, constraints)) in tree.parts.iter().zip(parts) {
            if relation.def.oid == oid {
                return Some((relation, constraints, part.map.clone()));
            }
            if let Some((leaf, c, inner)) = constraints.leaf_by_oid(oid) {
                return Some((leaf, c, ColumnMap::then(part.map.as_ref(), inner.as_ref())));
            }
        }
        None
    }

    /// Whether `values`, a row this partition's UPDATE through its
    /// partitioned table wrote, moves to another partition
    /// ([`Constraints::moves`]).
    pub(crate) fn moves_out(&self, values: &[Value]) -> Result<bool, SqlError> {
        Ok(self.moves && self.leaves_partition(values)?)
    }

    /// Whether `values` lie in this table's partition bound (true for a
    /// table that is no partition).
    pub(crate) fn stays(&self, values: &[Value]) -> Result<bool, SqlError> {
        Ok(!self.leaves_partition(values)?)
    }

    /// The leaf partitions of this partitioned table (none if it is not
    /// one).
    pub(crate) fn leaves(&self) -> Vec<(&Arc<Relation>, &Constraints)> {
        let Partitioning::Routes { parts, .. } = &self.partition else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (relation, constraints) in parts {
            match constraints.partition {
                Partitioning::Routes { .. } => out.extend(constraints.leaves()),
                _ => out.push((relation, constraints)),
            }
        }
        out
    }

    /// Whether `values` (a row of this partition) lie outside its bound
    /// or an ancestor's.
    fn leaves_partition(&self, values: &[Value]) -> Result<bool, SqlError> {
        let (Partitioning::Bounded { ancestors } | Partitioning::Routes { ancestors, .. }) =
            &self.partition
        else {
            return Ok(false);
        };
        for (tree, at, map) in ancestors {
            let key = match map {
                None => tree.key.values(values)?,
                Some(_) => tree
                    .key
                    .values(&column_map::up(map.as_ref(), values.to_vec()))?,
            };
            if tree.route(&key)? != Some(*at) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The leaf partition a row of this partitioned table goes to and its
    /// constraints, routed level by level by [`crate::partitions::Tree::route`]
    /// (23514 where none takes it), with the map from this table's
    /// columns to the leaf's when their orders differ; `None` for a table
    /// that is not partitioned. (ON CONFLICT and MERGE look for a row's
    /// key where the row would be inserted; an INSERT's row fires its
    /// leaf's triggers.)
    pub fn leaf(&self, values: &[Value]) -> Result<Option<Leaf<'_>>, SqlError> {
        let Partitioning::Routes { tree, parts, .. } = &self.partition else {
            return Ok(None);
        };
        let key = tree.key.values(values)?;
        let Some(n) = tree.route(&key)? else {
            return Err(tree.no_partition(&key));
        };
        let (relation, constraints) = &parts[n];
        let Some(map) = &tree.parts[n].map else {
            return Ok(Some(constraints.leaf(values)?.unwrap_or((
                relation,
                constraints,
                None,
            ))));
        };
        let below = column_map::down(Some(map), values.to_vec());
        Ok(Some(match constraints.leaf(&below)? {
            Some((leaf, c, inner)) => (leaf, c, ColumnMap::then(Some(map), inner.as_ref())),
            None => (relation, constraints, Some(map.clone())),
        }))
    }

    /// Whether the row `new` of leaf partition `leaf` (reached from this
    /// table, partitioned or the leaf itself) would lie in another
    /// partition, or in none: an ON CONFLICT DO UPDATE may not move it
    /// (PostgreSQL's 0A000).
    pub fn moves_row(&self, leaf: &Relation, new: &[Value]) -> Result<bool, SqlError> {
        // Outside this table's own bound (when it is a partition too).
        if self.leaves_partition(new)? {
            return Ok(true);
        }
        match self.leaf(new) {
            Ok(Some((to, _, _))) => Ok(to.def.oid != leaf.def.oid),
            Ok(None) => Ok(false),
            Err(e) if e.code == "23514" => Ok(true),
            Err(e) => Err(e),
        }
    }

    /// Inserts `rows` of a partitioned table into its partitions, each
    /// where [`crate::partitions::Tree::route`] sends it (23514 where
    /// none takes it). `entered`: the partitioned table the statement
    /// writes, whose own partition constraint (when it is a partition
    /// too) each row must meet first, as PostgreSQL's; `None` for a
    /// level below it, which its parent's routing already chose.
    fn route_rows(
        &self,
        txn: &mut Transaction,
        entered: Option<&Relation>,
        rows: Vec<Vec<Value>>,
        env: &Env<'_>,
    ) -> Result<Vec<Tid>, SqlError> {
        let Partitioning::Routes { tree, parts, .. } = &self.partition else {
            unreachable!("a partitioned table's");
        };
        // The check options of views over the partitioned table judge
        // each row as the statement gave it, after its partition's
        // constraints (PostgreSQL's order: the view's last).
        let viewed = match self.view_checks.is_empty() {
            true => Vec::new(),
            false => rows.clone(),
        };
        let mut groups: Vec<Vec<Vec<Value>>> = vec![Vec::new(); parts.len()];
        for row in rows {
            if let Some(relation) = entered
                && self.leaves_partition(&row)?
            {
                return Err(partition_violation(relation, &row)?);
            }
            let key = tree.key.values(&row)?;
            let Some(n) = tree.route(&key)? else {
                return Err(tree.no_partition(&key));
            };
            // The named table's policies judge the row (its partitions'
            // own take no part: `row_security.rs`).
            self.judge_policies(Written::Inserted, &row, env)?;
            groups[n].push(column_map::down(tree.parts[n].map.as_ref(), row));
        }
        let mut tids = Vec::new();
        for ((relation, constraints), rows) in parts.iter().zip(groups) {
            if rows.is_empty() {
                continue;
            }
            tids.extend(match constraints.partition {
                Partitioning::Routes { .. } => constraints.route_rows(txn, None, rows, env)?,
                _ => constraints.insert_many(txn, relation, rows, env)?,
            });
        }
        for row in &viewed {
            self.judge_view_checks(row, env)?;
        }
        Ok(tids)
    }

    /// Adds the check options of the views a statement writes through:
    /// each new row must make every condition true (a NULL fails, as
    /// PostgreSQL's), else 44000 naming the view.
    pub fn add_view_checks(&mut self, checks: Vec<(String, Scalar)>) {
        self.view_checks.extend(checks);
    }

    /// Adds the row-level security checks of the statement's new rows:
    /// each must make every condition true, else 42501
    /// (`row_security::violation`), before any CHECK constraint is
    /// judged, as PostgreSQL's.
    pub fn add_policy_checks(&mut self, written: Written, checks: Vec<PolicyCheck>) {
        self.policy_checks[written as usize].extend(checks);
    }

    /// The sequences the defaults name.
    pub fn sequences(&self) -> &[String] {
        &self.sequences
    }

    /// Whether a default looks the catalog up when it runs.
    pub fn defaults_look_up(&self) -> bool {
        self.defaults_look_up
    }

    /// Whether column `column` is an identity column.
    pub fn is_identity(&self, column: usize) -> bool {
        self.identity.iter().any(|&(c, _)| c == column)
    }

    /// 428C9 if column `column` is `GENERATED ALWAYS AS IDENTITY` or
    /// generated: a statement gives it a value (`update`: an UPDATE sets
    /// it) other than DEFAULT. An INSERT's `OVERRIDING SYSTEM VALUE`
    /// (`overriding`) lets the identity column take it (`overriding.rs`).
    pub fn check_given(
        &self,
        relation: &Relation,
        column: usize,
        update: bool,
        overriding: Option<Overriding>,
    ) -> Result<(), SqlError> {
        let name = &relation.def.columns[column].name;
        if self.generated.iter().any(|(c, _)| *c == column) {
            return Err(crate::generated::given(name, update));
        }
        if !self.identity.contains(&(column, true)) || overriding == Some(Overriding::System) {
            return Ok(());
        }
        let mut e = SqlError::new(
            "428C9",
            match update {
                false => format!("cannot insert a non-DEFAULT value into column \"{name}\""),
                true => format!("column \"{name}\" can only be updated to DEFAULT"),
            },
        );
        e.detail = Some(format!(
            "Column \"{name}\" is an identity column defined as GENERATED ALWAYS."
        ));
        if !update {
            e.hint = Some("Use OVERRIDING SYSTEM VALUE to override.".into());
        }
        Err(e)
    }

    /// The relations the constraints read (for a plan's currency).
    pub fn relations(&self) -> Vec<&Arc<Relation>> {
        let mut out: Vec<&Arc<Relation>> = self.ancestors.iter().collect();
        for r in &self.references {
            out.push(&r.parent);
            if matches!(r.lookup, KeyIndex::Routed { .. }) {
                r.lookup.relations(&mut out);
            }
        }
        if let Partitioning::Routes { parts, .. } = &self.partition {
            for (relation, constraints) in parts {
                out.push(relation);
                out.extend(constraints.relations());
            }
        }
        for r in &self.referenced_by {
            out.push(&r.child);
            if r.table.def.oid != r.child.def.oid {
                out.push(&r.table);
            }
            if let Some(Cascade::Other(more)) = &r.cascade {
                out.extend(more.relations());
            }
        }
        out
    }

    /// `value` stored into column `column`: fitted to and judged by its
    /// domain's rules if it has a domain (`domains::Bound::fit`), else
    /// as it is.
    pub fn fit_domain(
        &self,
        column: usize,
        value: Value,
        env: &Env<'_>,
    ) -> Result<Value, SqlError> {
        match self.domains.iter().find(|(c, _)| *c == column) {
            Some((_, domain)) => domain.fit(value, env),
            None => Ok(value),
        }
    }

    /// What column `column` takes when a row leaves it out or names
    /// `DEFAULT`: its default expression, else NULL.
    pub fn default_of(&self, column: usize) -> Result<Scalar, SqlError> {
        Ok(match self.defaults.get(column) {
            Some(Some(expr)) => expr.clone(),
            _ => Scalar::Const(Value::Null),
        })
    }

    /// The generation expression of column `column` over the row (NULL
    /// for a column that is not generated).
    pub fn generated_of(&self, column: usize) -> Scalar {
        (self.generated.iter())
            .find(|(c, _)| *c == column)
            .map_or(Scalar::Const(Value::Null), |(_, expr)| expr.clone())
    }

    /// Computes the generated columns of the row `values` of `relation`
    /// (what every write does before its checks; RETURNING calls it
    /// first to show the values written).
    pub fn generate(
        &self,
        relation: &Relation,
        values: &mut [Value],
        env: &Env<'_>,
    ) -> Result<(), SqlError> {
        for (column, expr) in &self.generated {
            values[*column] = types::assign(expr.eval(values, env)?, relation.types[*column])?;
        }
        Ok(())
    }

    /// A new row of `relation` with every column at its default; the
    /// columns in `given` are left NULL (the caller fills them).
    pub fn default_row(
        &self,
        relation: &Relation,
        given: &[usize],
        env: &Env<'_>,
    ) -> Result<Vec<Value>, SqlError> {
        let mut row = vec![Value::Null; relation.types.len()];
        for (c, default) in self.defaults.iter().enumerate() {
            if let Some(expr) = default
                && !given.contains(&c)
            {
                row[c] = types::assign(expr.eval(&[], env)?, relation.types[c])?;
            }
        }
        Ok(row)
    }

    /// Inserts `values` into `relation`, checked.
    pub fn insert(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        values: Vec<Value>,
        env: &Env<'_>,
    ) -> Result<Tid, SqlError> {
        let tids = self.insert_many(txn, relation, vec![values], env)?;
        Ok(tids[0])
    }

    /// Inserts `rows`, each checked, their versions put on the heap
    /// together (folio-catalog `Relation::insert_many`).
    pub fn insert_many(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        rows: Vec<Vec<Value>>,
        env: &Env<'_>,
    ) -> Result<Vec<Tid>, SqlError> {
        if let Partitioning::Routes { .. } = &self.partition {
            return self.route_rows(txn, Some(relation), rows, env);
        }
        // A CHECK may call a PL/pgSQL function (`plpgsql/row_calls.rs`).
        let rows = crate::plpgsql::row_calls::lend(txn, env, |env| {
            (rows.into_iter())
                .map(|values| self.check(relation, values, env, Written::Inserted))
                .collect::<Result<Vec<_>, _>>()
        })?;
        if self.references.is_empty() {
            return self.insert_rows(txn, relation, rows);
        }
        let tids = self.insert_rows(txn, relation, rows.clone())?;
        for (new, &tid) in rows.into_iter().zip(&tids) {
            self.defer(Deferred::References {
                tid,
                new,
                old: None,
            });
        }
        Ok(tids)
    }

    /// The relation's insert of `rows`, a deferrable key's rechecks kept
    /// for the statement's end.
    fn insert_rows(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        rows: Vec<Vec<Value>>,
    ) -> Result<Vec<Tid>, SqlError> {
        if self.deferrable_keys.is_empty() {
            return Ok(relation.insert_many(txn, rows)?);
        }
        let mut rechecks = self.rechecks.borrow_mut();
        Ok(relation.insert_many_deferring(txn, rows, &mut rechecks)?)
    }

    /// The relation's update, as [`Constraints::insert_rows`].
    fn update_row(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        tid: Tid,
        old: &[Value],
        new: Vec<Value>,
    ) -> Result<Write, SqlError> {
        if self.deferrable_keys.is_empty() {
            return Ok(relation.update(txn, tid, old, new)?);
        }
        let mut rechecks = self.rechecks.borrow_mut();
        Ok(relation.update_deferring(txn, tid, old, new, &mut rechecks)?)
    }

    /// Replaces the version at `tid` (values `old`) by `new`, checked.
    pub fn update(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        tid: Tid,
        old: &[Value],
        new: Vec<Value>,
        env: &Env<'_>,
    ) -> Result<Write, SqlError> {
        if self.moves {
            let mut moved = new.clone();
            self.generate(relation, &mut moved, env)?;
            if self.leaves_partition(&moved)? {
                // The row-level security checks judge the row before it
                // moves (PostgreSQL: as it is inserted into its new
                // partition, whose BEFORE triggers have run then).
                self.judge_policies(Written::Updated, &moved, env)?;
                // The keys referencing the row see an update of the
                // partitioned table, as PostgreSQL 15's: no cascade, a
                // check only if the key changed.
                let write = relation.delete(txn, tid)?;
                if matches!(write, Write::Done(_)) {
                    if !self.referenced_by.is_empty() {
                        self.defer(Deferred::Removed {
                            old: old.to_vec(),
                            new: Some(moved),
                            moved: true,
                            now: env.now,
                        });
                    }
                    self.moved.borrow_mut().push(new);
                }
                return Ok(write);
            }
        }
        let new = crate::plpgsql::row_calls::lend(txn, env, |env| {
            self.check(relation, new, env, Written::Updated)
        })?;
        if self.references.is_empty() && self.referenced_by.is_empty() {
            return self.update_row(txn, relation, tid, old, new);
        }
        let write = self.update_row(txn, relation, tid, old, new.clone())?;
        let new_tid = match write {
            Write::Done(Some(at)) | Write::Hot(at) => Some(at),
            Write::Done(None) => Some(tid),
            Write::Gone | Write::Moved(_) => None,
        };
        if let Some(tid) = new_tid {
            let changed = |columns: &[usize]| columns.iter().any(|&c| old[c] != new[c]);
            if self.references.iter().any(|r| changed(&r.columns)) {
                self.defer(Deferred::References {
                    tid,
                    new: new.clone(),
                    old: Some(old.to_vec()),
                });
            }
            let key_changed =
                |columns: &[usize]| columns.iter().any(|&c| !same_image(&old[c], &new[c]));
            if self
                .referenced_by
                .iter()
                .any(|r| key_changed(&r.ref_columns))
            {
                self.defer(Deferred::Removed {
                    old: old.to_vec(),
                    new: Some(new),
                    moved: false,
                    now: env.now,
                });
            }
        }
        Ok(write)
    }

    /// Deletes the version at `tid` (values `old`), checked; the rows an
    /// `ON DELETE CASCADE` key makes go are deleted too.
    pub fn delete(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        tid: Tid,
        old: &[Value],
        env: &Env<'_>,
    ) -> Result<Write, SqlError> {
        let write = relation.delete(txn, tid)?;
        if matches!(write, Write::Done(_)) {
            self.cascade(txn, old, env)?;
            if !self.referenced_by.is_empty() {
                self.defer(Deferred::Removed {
                    old: old.to_vec(),
                    new: None,
                    moved: false,
                    now: env.now,
                });
            }
        }
        Ok(write)
    }

    /// Queues a foreign key check or action (none while
    /// [`foreign_keys_enforced`] says no).
    fn defer(&self, check: Deferred) {
        if foreign_keys_enforced(self.table) {
            self.deferred.borrow_mut().push(check);
        }
    }

    /// A statement starts: checks left by one that failed are forgotten
    /// (a kept plan runs again).
    pub fn start_statement(&self) {
        self.deferred.borrow_mut().clear();
        self.rechecks.borrow_mut().clear();
        if let Partitioning::Routes { parts, .. } = &self.partition {
            parts.iter().for_each(|(_, c)| c.start_statement());
        }
        self.moved.borrow_mut().clear();
        self.after_move.borrow_mut().clear();
        for r in &self.referenced_by {
            if let Some(Cascade::Other(more)) = &r.cascade {
                more.start_statement();
            }
        }
        self.routed.iter().for_each(|(_, c)| c.start_statement());
    }

    /// The statement's row changes are done: their foreign keys are
    /// checked now, in the order of the changes (PostgreSQL checks them
    /// when the statement ends too, so rows that reference each other may
    /// come in any order within one statement), then those of the rows
    /// cascades deleted.
    ///
    /// A check of a `DEFERRABLE` key that the transaction defers
    /// (`INITIALLY DEFERRED`, `SET CONSTRAINTS`) goes to the transaction's
    /// queue `pending` instead (`deferred.rs`), run at COMMIT; RESTRICT's
    /// is never deferred, and no action (CASCADE) is. Without a queue
    /// (COPY's rows) every check runs now.
    ///
    /// First, the keys a deferrable PRIMARY KEY or UNIQUE constraint's
    /// index took over a possible duplicate are checked again (23505), or
    /// queued likewise when the transaction defers that constraint.
    pub fn end_statement(
        &self,
        pending: Option<&Pending>,
        txn: &mut Transaction,
        relation: &Relation,
    ) -> Result<(), SqlError> {
        if let Partitioning::Routes { parts, .. } = &self.partition {
            for (relation, constraints) in parts {
                constraints.end_statement(pending, txn, relation)?;
            }
        }
        let defers =
            |oid: u64, deferrable: Deferrable| pending.filter(|p| p.defers(oid, deferrable));
        if self.moved.borrow().is_empty() {
            let waiting = std::mem::take(&mut *self.after_move.borrow_mut());
            self.deferred.borrow_mut().extend(waiting);
        }
        let rechecks = std::mem::take(&mut *self.rechecks.borrow_mut());
        for recheck in rechecks {
            let mode = (self.deferrable_keys.iter()).find(|(oid, _)| *oid == recheck.index);
            match mode.and_then(|&(oid, deferrable)| defers(oid, deferrable)) {
                Some(pending) => {
                    pending.push(&relation.def.name, recheck.index, Queued::Unique(recheck))
                }
                None => relation.recheck_unique(txn, &recheck)?,
            }
        }
        // A referential action on this table's own rows (a
        // self-referencing key) queues their checks and actions here
        // again: run until none is left.
        for _ in 0..LINKS_FOLLOWED_MAX {
            let deferred = std::mem::take(&mut *self.deferred.borrow_mut());
            if deferred.is_empty() {
                break;
            }
            self.end_changes(pending, txn, relation, deferred)?;
        }
        for r in &self.referenced_by {
            if let Some(Cascade::Other(more)) = &r.cascade {
                more.end_statement(pending, txn, &r.child)?;
            }
        }
        for (relation, whole) in &self.routed {
            whole.end_statement(pending, txn, relation)?;
        }
        Ok(())
    }

    /// The constraints the rows of `referencing`'s child are deleted or
    /// updated under by an action, with the partitioned table (and its
    /// constraints) the rows an update moved out of their partition go
    /// into afterwards ([`Constraints::moved_in`]); `None` through a
    /// cycle of tables.
    fn action_target<'a>(
        &'a self,
        referencing: &'a Referencing,
    ) -> Result<Option<ActionTarget<'a>>, SqlError> {
        Ok(match &referencing.cascade {
            Some(Cascade::Itself) => Some(ActionTarget {
                leaf: self,
                whole: None,
            }),
            Some(Cascade::Other(c)) => Some(ActionTarget {
                leaf: c,
                whole: None,
            }),
            Some(Cascade::Routed(n)) => {
                let whole = &self.routed[*n];
                let oid = referencing.child.def.oid;
                let Some((_, leaf, map)) = whole.1.leaf_by_oid(oid) else {
                    return Err(SqlError::new(
                        "XX000",
                        format!(
                            "partition \"{}\" of foreign key \"{}\" not found",
                            referencing.child.def.name, referencing.name
                        ),
                    ));
                };
                Some(ActionTarget {
                    leaf,
                    whole: Some((whole, map)),
                })
            }
            Some(Cascade::Cycle) | None => None,
        })
    }

    /// The rows an action's updates moved out of their partitions of the
    /// partitioned table `whole` go into it, each routed to the partition
    /// it belongs in now (its checks and keys apply there).
    fn moved_in(
        txn: &mut Transaction,
        target: &ActionTarget<'_>,
        env: &Env<'_>,
    ) -> Result<(), SqlError> {
        let Some(((relation, constraints), _)) = &target.whole else {
            return Ok(());
        };
        let moved = constraints.take_moved();
        if !moved.is_empty() {
            constraints.insert_many(txn, relation, moved, env)?;
        }
        Ok(())
    }

    /// The foreign key checks and actions queued by the row changes
    /// `deferred` of `relation`, in order ([`Constraints::end_statement`]).
    fn end_changes(
        &self,
        pending: Option<&Pending>,
        txn: &mut Transaction,
        relation: &Relation,
        deferred: Vec<Deferred>,
    ) -> Result<(), SqlError> {
        let defers =
            |oid: u64, deferrable: Deferrable| pending.filter(|p| p.defers(oid, deferrable));
        for check in deferred {
            match check {
                Deferred::References { tid, new, old } => {
                    for reference in &self.references {
                        if let Some(old) = &old
                            && reference.columns.iter().all(|&c| old[c] == new[c])
                        {
                            continue;
                        }
                        if let Some(pending) = defers(reference.oid, reference.deferrable) {
                            if reference.key_of(&new)?.is_some() || reference.mixed(&new) {
                                pending.push(
                                    &relation.def.name,
                                    reference.oid,
                                    Queued::References { tid },
                                );
                            }
                            continue;
                        }
                        reference.exists(txn, relation, &new)?;
                    }
                }
                Deferred::Removed {
                    old,
                    new,
                    moved,
                    now,
                } => {
                    // (A moved row not in its new partition yet: its keys'
                    // ON UPDATE actions wait for it.)
                    if moved
                        && !self.moved.borrow().is_empty()
                        && let Some(new) = &new
                        && self.referenced_by.iter().any(|r| {
                            r.on_update.acts()
                                && !(r.ref_columns.iter()).all(|&c| same_image(&old[c], &new[c]))
                        })
                    {
                        self.after_move.borrow_mut().push(Deferred::Removed {
                            old,
                            new: Some(new.clone()),
                            moved,
                            now,
                        });
                        continue;
                    }
                    for (n, referencing) in self.referenced_by.iter().enumerate() {
                        if let Some(new) = &new
                            && (referencing.ref_columns.iter())
                                .all(|&c| same_image(&old[c], &new[c]))
                        {
                            continue;
                        }
                        let action = match new {
                            Some(_) => referencing.on_update,
                            None => referencing.on_delete,
                        };
                        // ON DELETE CASCADE deleted the rows as the
                        // parent's went (`cascade`); the other actions
                        // change them now, as PostgreSQL's after-row
                        // triggers do when the statement ends.
                        if action.acts() && !(action == RefAction::Cascade && new.is_none()) {
                            let new = new.as_deref();
                            self.act(txn, referencing, &old, new, action, now)?;
                            // ON UPDATE CASCADE leaves no check: the rows
                            // took the new key, which may equal the old
                            // one (`-0` to `0`), as PostgreSQL's.
                            if new.is_some() && action == RefAction::Cascade {
                                continue;
                            }
                        }
                        if action == RefAction::NoAction
                            && let Some(pending) = defers(referencing.oid, referencing.deferrable)
                        {
                            // One queued check per key: its leaves are
                            // searched together (`check_queued`).
                            let first = n == 0 || self.referenced_by[n - 1].oid != referencing.oid;
                            if first && referencing.key_of(&old)?.is_some() {
                                pending.push(
                                    &relation.def.name,
                                    referencing.oid,
                                    Queued::Removed { old: old.clone() },
                                );
                            }
                            continue;
                        }
                        // NO ACTION lets a key go when the table holds it
                        // again (`update t set k = k + 1`); RESTRICT not.
                        // SET DEFAULT is checked as NO ACTION (a default
                        // equal to the removed key leaves it referenced).
                        if matches!(action, RefAction::NoAction | RefAction::SetDefault)
                            && key_held_again(txn, relation, &referencing.ref_columns, &old)?
                        {
                            continue;
                        }
                        referencing.unreferenced(txn, relation, &old, moved)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Performs `action` of key `referencing` (of another table or this
    /// one) for the referenced key values `old` that a delete (`new`
    /// None) or an update to `new` removed: each referencing row is
    /// deleted (CASCADE on delete), or updated to the new key (CASCADE on
    /// update), to NULL (SET NULL) or to its columns' defaults (SET
    /// DEFAULT), through its own table's constraints, so their CHECKs,
    /// NOT NULLs, foreign keys and actions apply. Rows are found with a
    /// new snapshot, each re-checked as READ COMMITTED's update is. (A
    /// row an UPDATE moved to another partition is in it by now:
    /// `after_move`.)
    fn act(
        &self,
        txn: &mut Transaction,
        referencing: &Referencing,
        old: &[Value],
        new: Option<&[Value]>,
        action: RefAction,
        now: i64,
    ) -> Result<(), SqlError> {
        let Some(key) = referencing.key_of(old)? else {
            return Ok(());
        };
        let child = &referencing.child;
        let rows = txn.with_latest_snapshot(|txn| referencing.rows_with(txn, &key))?;
        if rows.is_empty() {
            return Ok(());
        }
        let Some(target) = self.action_target(referencing)? else {
            return Err(SqlError::unsupported(format!(
                "ON {} {} through a cycle of tables (\"{}\")",
                if new.is_some() { "UPDATE" } else { "DELETE" },
                action.words(),
                referencing.name
            )));
        };
        let constraints = target.leaf;
        let env = Env::at(now);
        let same_key = referencing.same_key(&key);
        for (tid, row) in rows {
            scan::write_newest(txn, child, &same_key, tid, row, &env, |txn, tid, row| {
                let Some(new) = new else {
                    if action == RefAction::Cascade {
                        return Ok((constraints.delete(txn, child, tid, row, &env)?, ()));
                    }
                    let columns = &referencing.set_columns;
                    let changed = referencing.set(&target, row, action, columns, &env)?;
                    referencing.stays(constraints, &changed)?;
                    return Ok((constraints.update(txn, child, tid, row, changed, &env)?, ()));
                };
                let changed = match action {
                    RefAction::Cascade => referencing.cascaded(row, new)?,
                    // An update's SET NULL / SET DEFAULT sets every key
                    // column (a column list is ON DELETE's only).
                    _ => {
                        let columns = &referencing.columns;
                        referencing.set(&target, row, action, columns, &env)?
                    }
                };
                referencing.stays(constraints, &changed)?;
                Ok((constraints.update(txn, child, tid, row, changed, &env)?, ()))
            })?;
        }
        Constraints::moved_in(txn, &target, &env)
    }

    /// Runs a check the transaction queued for constraint `constraint`
    /// of `relation` (the table whose row change made it), at COMMIT or
    /// `SET CONSTRAINTS ... IMMEDIATE`. A constraint dropped since has
    /// nothing to check; a row the transaction changed again since is
    /// checked as it is now (its newest version: PostgreSQL checks an
    /// update of a row inserted by the same transaction whatever it
    /// changed), one it deleted not at all; a removed key that the table
    /// holds again is referenced by nothing missing (PostgreSQL's NO
    /// ACTION lets a key go and come back).
    pub fn check_queued(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        constraint: u64,
        check: &Queued,
    ) -> Result<(), SqlError> {
        match check {
            Queued::Unique(recheck) => Ok(relation.recheck_unique(txn, recheck)?),
            Queued::References { tid } => {
                let Some(reference) = self.references.iter().find(|r| r.oid == constraint) else {
                    return Ok(());
                };
                match newest_of_mine(txn, relation, *tid)? {
                    Some(row) => reference.exists(txn, relation, &row),
                    None => Ok(()),
                }
            }
            Queued::Removed { old } => {
                let mut keys = (self.referenced_by.iter()).filter(|r| r.oid == constraint);
                let Some(first) = keys.next() else {
                    return Ok(());
                };
                if key_held_again(txn, relation, &first.ref_columns, old)? {
                    return Ok(());
                }
                first.unreferenced(txn, relation, old, false)?;
                keys.try_for_each(|r| r.unreferenced(txn, relation, old, false))
            }
        }
    }

    /// Deletes the rows that reference `old` through `ON DELETE CASCADE`
    /// keys (each under its table's constraints, so cascades go on), with
    /// a new snapshot and READ COMMITTED's re-check of rows changed since.
    fn cascade(&self, txn: &mut Transaction, old: &[Value], env: &Env<'_>) -> Result<(), SqlError> {
        if self.referenced_by.is_empty() || !foreign_keys_enforced(self.table) {
            return Ok(());
        }
        for referencing in &self.referenced_by {
            if referencing.on_delete != RefAction::Cascade {
                continue;
            }
            let Some(key) = referencing.key_of(old)? else {
                continue;
            };
            let child = &referencing.child;
            let rows = txn.with_latest_snapshot(|txn| referencing.rows_with(txn, &key))?;
            let same_key = referencing.same_key(&key);
            let constraints = match self.action_target(referencing)? {
                Some(target) => target.leaf,
                None if rows.is_empty() => continue,
                None => {
                    return Err(SqlError::unsupported(format!(
                        "ON DELETE CASCADE through a cycle of tables (\"{}\")",
                        referencing.name
                    )));
                }
            };
            for (tid, row) in rows {
                scan::write_newest(txn, child, &same_key, tid, row, env, |txn, tid, row| {
                    Ok((constraints.delete(txn, child, tid, row, env)?, ()))
                })?;
            }
        }
        Ok(())
    }

    /// The row with its generated columns computed (PostgreSQL computes
    /// them before it checks the row), fitted to its columns (NOT NULL
    /// checked) and checked against every CHECK constraint: 23514 for one
    /// that is false.
    fn check(
        &self,
        relation: &Relation,
        mut values: Vec<Value>,
        env: &Env<'_>,
        written: Written,
    ) -> Result<Vec<Value>, SqlError> {
        self.generate(relation, &mut values, env)?;
        if self.leaves_partition(&values)? {
            return Err(partition_violation(relation, &values)?);
        }
        if self.checks.is_empty()
            && self.domains.is_empty()
            && self.view_checks.is_empty()
            && self.policy_checks[written as usize].is_empty()
        {
            return Ok(values);
        }
        let mut values = relation.prepare(values)?;
        self.judge_policies(written, &values, env)?;
        for (column, domain) in &self.domains {
            let value = std::mem::replace(&mut values[*column], Value::Null);
            values[*column] = domain.fit(value, env)?;
        }
        for check in &self.checks {
            if check.expr.eval(&values, env)? == Value::Bool(false) {
                return Err(SqlError::new(
                    "23514",
                    format!(
                        "new row for relation \"{}\" violates check constraint \"{}\"",
                        relation.def.name, check.name
                    ),
                )
                .with_detail(format!("Failing row contains ({}).", row_text(&values)?))
                .with_constraint(&relation.def.name, &check.name)
                .with_failing_row(value_texts(&values)));
            }
        }
        self.judge_view_checks(&values, env)?;
        Ok(values)
    }

    /// The check options of the views the statement writes through
    /// ([`Constraints::add_view_checks`]) on `values`: 44000 naming the
    /// first view whose condition is not true.
    pub(crate) fn judge_view_checks(
        &self,
        values: &[Value],
        env: &Env<'_>,
    ) -> Result<(), SqlError> {
        for (view, condition) in &self.view_checks {
            if condition.eval(values, env)? != Value::Bool(true) {
                return Err(SqlError::new(
                    "44000",
                    format!("new row violates check option for view \"{view}\""),
                )
                .with_detail(format!("Failing row contains ({}).", row_text(values)?)));
            }
        }
        Ok(())
    }

    /// The row-level security checks of the statement's new rows
    /// ([`Constraints::add_policy_checks`]) of `written` rows on `values`.
    pub fn judge_policies(
        &self,
        written: Written,
        values: &[Value],
        env: &Env<'_>,
    ) -> Result<(), SqlError> {
        for (table, policy, condition) in &self.policy_checks[written as usize] {
            if condition.eval(values, env)? != Value::Bool(true) {
                return Err(crate::row_security::violation(table, policy.as_deref()));
            }
        }
        Ok(())
    }

    /// Every CHECK constraint holds for every row of `relation` (adding
    /// one to a table with rows): 23514 naming it otherwise.
    pub fn validate_checks(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        env: &Env<'_>,
    ) -> Result<(), SqlError> {
        if !self.checks.iter().any(|c| c.validated) {
            return Ok(());
        }
        let rows = txn.with_latest_snapshot(|txn| relation.scan(txn))?;
        for (_, row) in rows {
            for check in self.checks.iter().filter(|c| c.validated) {
                if check.expr.eval(&row, env)? == Value::Bool(false) {
                    return Err(SqlError::new(
                        "23514",
                        format!(
                            "check constraint \"{}\" of relation \"{}\" is violated by some row",
                            check.name, relation.def.name
                        ),
                    )
                    .with_constraint(&relation.def.name, &check.name));
                }
            }
        }
        Ok(())
    }

    /// Every row of `relation` references an existing row (adding a
    /// foreign key to a table with rows; the referenced table is
    /// `SHARE`-locked by the DDL, so its rows need no row locks).
    pub fn validate_references(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
    ) -> Result<(), SqlError> {
        if let Partitioning::Routes { parts, .. } = &self.partition {
            for (relation, constraints) in parts {
                constraints.validate_references(txn, relation)?;
            }
        }
        if !self.references.iter().any(|r| r.validated) {
            return Ok(());
        }
        txn.with_latest_snapshot(|txn| {
            let rows = relation.scan(txn)?;
            for reference in self.references.iter().filter(|r| r.validated) {
                let mut last_found: Option<Vec<Value>> = None;
                for (_, row) in &rows {
                    let Some(key) = reference.key_of(row)? else {
                        if reference.mixed(row) {
                            return Err(reference.mixed_nulls(relation));
                        }
                        continue;
                    };
                    if last_found.as_ref() == Some(&key) {
                        continue;
                    }
                    if !reference.lookup.holds(txn, &key)? {
                        return Err(reference.missing(relation, row)?);
                    }
                    last_found = Some(key);
                }
            }
            Ok(())
        })
    }
}

impl Constraints {
    /// DETACH PARTITION of this partition (`relation`): its rows (its
    /// leaves', when it is partitioned) leave its ancestors, so none may
    /// be referenced through an ancestor's key (23503, PostgreSQL's
    /// `removing partition` message).
    pub fn check_detach(&self, txn: &mut Transaction, relation: &Relation) -> Result<(), SqlError> {
        if !foreign_keys_enforced(self.table) {
            return Ok(());
        }
        // The keys referencing the tables the partition leaves; those
        // referencing it, or a partition between it and a leaf, stay.
        let above: Vec<u64> = self.ancestors.iter().map(|a| a.def.oid).collect();
        // (A partitioned partition's rows are its leaves'.)
        let holders: Vec<(&Relation, &Constraints)> = match self.partition {
            Partitioning::Routes { .. } => (self.leaves().into_iter())
                .map(|(leaf, c)| (&**leaf, c))
                .collect(),
            _ => vec![(relation, self)],
        };
        for (leaf, constraints) in holders {
            let inherited: Vec<&Referencing> = (constraints.referenced_by.iter())
                .filter(|r| r.inherited() && above.contains(&r.referenced))
                .collect();
            if inherited.is_empty() {
                continue;
            }
            txn.with_latest_snapshot(|txn| {
                for (_, row) in leaf.scan(txn)? {
                    for r in &inherited {
                        let Some(key) = r.key_of(&row)? else {
                            continue;
                        };
                        if !r.rows_with(txn, &key)?.is_empty() {
                            let message = format!(
                                "removing partition \"{}\" violates foreign key constraint \"{}\"",
                                bare(&relation.def.name),
                                r.name
                            );
                            return Err(r.still_referenced(leaf, &row, message)?);
                        }
                    }
                }
                Ok(())
            })?;
        }
        Ok(())
    }
}

impl Referencing {
    /// Whether the key is one of an ancestor of the partition it is
    /// bound for.
    fn inherited(&self) -> bool {
        self.whole.is_some()
    }

    /// No row of the child references the key values of `old` (of
    /// `relation`, this key's parent), which a delete or an update of the
    /// parent removed: 23503 (naming the partitioned table when the row
    /// was `moved` to another of its partitions).
    fn unreferenced(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        old: &[Value],
        moved: bool,
    ) -> Result<(), SqlError> {
        let Some(key) = self.key_of(old)? else {
            return Ok(());
        };
        // The newest committed rows, under either isolation level: a
        // referencing row committed after a REPEATABLE READ snapshot
        // still holds the key (PostgreSQL's crosscheck makes that
        // 40001; here it is 23503). After a cascade, none is left
        // unless one was added meanwhile.
        let found = txn.with_latest_snapshot(|txn| self.rows_with(txn, &key))?;
        if found.is_empty() {
            return Ok(());
        }
        // A key of a partitioned table whose row moved to another of its
        // partitions is still there (PostgreSQL 15 checks a
        // cross-partition UPDATE as an update of the partitioned table).
        if let Some(whole) = &self.whole {
            let ref_key: Vec<Value> = self.ref_columns.iter().map(|&c| old[c].clone()).collect();
            if txn.with_latest_snapshot(|txn| whole.holds(txn, &ref_key))? {
                return Ok(());
            }
        }
        // A moved row's change is the partitioned table's.
        let changed = match (&self.whole, moved) {
            (Some(KeyIndex::Routed { tree, .. }), true) => &tree.name,
            _ => &relation.def.name,
        };
        let message = format!(
            "update or delete on table \"{}\" violates foreign key constraint \"{}\" on table \"{}\"",
            bare(changed),
            self.name,
            bare(&self.table.def.name)
        );
        Err(self.still_referenced(relation, old, message)?)
    }

    /// 23503 `message` for key values `old` of `relation` that rows of
    /// the child still reference.
    fn still_referenced(
        &self,
        relation: &Relation,
        old: &[Value],
        message: String,
    ) -> Result<SqlError, SqlError> {
        let names = column_names(relation, &self.ref_columns);
        let values: Vec<Value> = self.ref_columns.iter().map(|&c| old[c].clone()).collect();
        Ok(SqlError::new("23503", message)
            .with_detail(format!(
                "Key ({names})=({}) is still referenced from table \"{}\".",
                row_text(&values)?,
                bare(&self.table.def.name)
            ))
            .with_constraint(&self.table.def.name, &self.name))
    }

    /// The conditions a child row holds key `key` by (a row changed
    /// since it was found is changed only if it still does).
    fn same_key(&self, key: &[Value]) -> Vec<Scalar> {
        (self.columns.iter().zip(key))
            .map(|(&c, v)| {
                Scalar::Compare(
                    Cmp::Eq,
                    Box::new(Scalar::Column(c)),
                    Box::new(Scalar::Const(v.clone())),
                )
            })
            .collect()
    }

    /// The child row `row` with `columns` (key columns) set to NULL (SET
    /// NULL) or their defaults (SET DEFAULT): those of the partitioned
    /// table a `Cascade::Routed` key was made on, else the child's.
    fn set(
        &self,
        target: &ActionTarget<'_>,
        row: &[Value],
        action: RefAction,
        columns: &[usize],
        env: &Env<'_>,
    ) -> Result<Vec<Value>, SqlError> {
        let mut changed = row.to_vec();
        for &c in columns {
            changed[c] = match action {
                RefAction::SetDefault => {
                    let default = match &target.whole {
                        Some(((_, whole), map)) => {
                            let at = map.as_ref().map_or(c, |m| m.parent_position(c));
                            whole.default_of(at)?
                        }
                        None => target.leaf.default_of(c)?,
                    };
                    let value = default.eval(&[], env)?;
                    types::assign(value, self.child.types[c])?
                }
                _ => Value::Null,
            };
        }
        Ok(changed)
    }

    /// 0A000 when the row `changed` an action made of a partition of the
    /// referencing table (under its `constraints`) would belong in
    /// another partition and the constraints do not move it: the
    /// partitioned table's own tree, whose keys referencing itself are
    /// bound per leaf (`Cascade::Itself`, `Cascade::Other`); a
    /// [`Cascade::Routed`] leaf's moves it (`Constraints::moves`).
    fn stays(&self, constraints: &Constraints, changed: &[Value]) -> Result<(), SqlError> {
        match constraints.moves || constraints.stays(changed)? {
            true => Ok(()),
            false => Err(SqlError::new(
                "0A000",
                format!(
                    "foreign key \"{}\" cannot move a row of partition \"{}\" to another partition",
                    self.name,
                    bare(&self.child.def.name)
                ),
            )),
        }
    }

    /// The child row `row` with its key taken from the parent's new row
    /// `new` (ON UPDATE CASCADE).
    fn cascaded(&self, row: &[Value], new: &[Value]) -> Result<Vec<Value>, SqlError> {
        let mut changed = row.to_vec();
        for (&c, &r) in self.columns.iter().zip(&self.ref_columns) {
            changed[c] = match &new[r] {
                Value::Null => Value::Null,
                v => types::coerce(v.clone(), self.child.types[c])?,
            };
        }
        Ok(changed)
    }

    /// The child's key for the referenced values in `row` (None when one
    /// is NULL: nothing references it).
    fn key_of(&self, row: &[Value]) -> Result<Option<Vec<Value>>, SqlError> {
        key_as(row, &self.ref_columns, &self.child.types, &self.columns)
    }

    /// The child rows `txn` sees whose key is `key` (through the child's
    /// index on exactly the key's columns, else a scan).
    fn rows_with(&self, txn: &Transaction, key: &[Value]) -> Result<Vec<RowAt>, SqlError> {
        Ok(match self.index {
            Some(index) => self.child.lookup(txn, index, key)?,
            None => self
                .child
                .scan(txn)?
                .into_iter()
                .filter(|(_, row)| self.columns.iter().zip(key).all(|(&c, v)| row[c] == *v))
                .collect(),
        })
    }
}

/// Most update links a referenced row's lock follows before giving up
/// (each is a committed update of the row since it was found).
const LINKS_FOLLOWED_MAX: usize = 10_000;

impl Reference {
    /// Foreign key `c` (`fk`) of this table or of an ancestor (`map`: the
    /// ancestor's columns to this table's), bound: its referenced table
    /// opened and the lookup of its keys.
    fn bind(
        cx: &Ctx<'_>,
        txn: &Transaction,
        c: &folio_catalog::ConstraintDef,
        fk: &folio_catalog::ForeignKey,
        map: Option<&ColumnMap>,
    ) -> Result<Reference, SqlError> {
        let parent = access::relation(cx, txn, &fk.ref_table)?;
        let ref_columns: Vec<usize> = fk.ref_columns.iter().map(|&c| usize::from(c)).collect();
        let lookup = KeyIndex::of(cx, txn, &parent, &ref_columns)?.ok_or_else(|| {
            SqlError::new(
                "42830",
                format!(
                    "there is no unique constraint matching given keys for referenced table \"{}\"",
                    parent.def.name
                ),
            )
        })?;
        Ok(Reference {
            name: c.name.clone(),
            oid: c.oid,
            deferrable: c.deferrable,
            validated: c.validated,
            columns: (column_map::positions_in(map, &fk.columns).into_iter())
                .map(usize::from)
                .collect(),
            parent,
            ref_columns,
            lookup,
            match_full: fk.match_full,
        })
    }

    /// The row `new` of `relation` finds the row its key references and
    /// share-locks it; 23503 if there is none (a key with a NULL column
    /// references nothing).
    fn exists(
        &self,
        txn: &mut Transaction,
        relation: &Relation,
        new: &[Value],
    ) -> Result<(), SqlError> {
        let Some(key) = self.key_of(new)? else {
            return match self.mixed(new) {
                true => Err(self.mixed_nulls(relation)),
                false => Ok(()),
            };
        };
        let Some((parent, index, probe)) = self.lookup.find(&key)? else {
            return Err(self.missing(relation, new)?);
        };
        let found = in_statement_view(txn, |txn| parent.lookup(txn, index, &probe))?;
        for (tid, _) in found {
            if self.lock_newest(txn, (parent, index), tid, &probe)? {
                return Ok(());
            }
        }
        Err(self.missing(relation, new)?)
    }

    /// Share-locks the newest version of the referenced row found at
    /// `tid`, if it still carries the index key `probe` (of `index` of
    /// `parent`): whether it does. A version updated
    /// by a transaction that committed since is followed (READ COMMITTED;
    /// REPEATABLE READ gets 40001 from the heap), and so is one this
    /// transaction updated itself: its new version is the row (a new
    /// snapshot may not yet show the commit of the updater that this
    /// transaction's own update waited for, so the lookup can return the
    /// version before it).
    fn lock_newest(
        &self,
        txn: &mut Transaction,
        (parent, index): (&Relation, usize),
        mut tid: Tid,
        probe: &[Value],
    ) -> Result<bool, SqlError> {
        let table = &parent.table;
        let heap = folio_catalog::CatalogError::from;
        for _ in 0..LINKS_FOLLOWED_MAX {
            match table.lock_shared(txn, tid).map_err(heap)? {
                Write::Done(_) | Write::Hot(_) => {
                    let Some(bytes) = table.fetch_any(tid).map_err(heap)? else {
                        return Ok(false);
                    };
                    // (Its key read through the index it was found in:
                    // a partition's columns may be in another order.)
                    let row = parent.decode(txn, &bytes)?;
                    let columns = &parent.indexes[index].def.columns;
                    return Ok((columns.iter().zip(probe)).all(|(&c, v)| row[usize::from(c)] == *v));
                }
                Write::Moved(next) => tid = next,
                Write::Gone => match table.header(tid).map_err(heap)? {
                    Some(h) if h.deleter().is_some_and(|d| txn.is_mine(d)) => match h.next {
                        Some(next) => tid = next,
                        None => return Ok(false),
                    },
                    _ => return Ok(false),
                },
            }
        }
        Err(SqlError::new(
            "40001",
            format!(
                "could not serialize access: the row referenced by \"{}\" kept changing",
                self.name
            ),
        ))
    }

    /// The key of `row` (None when a column is NULL: not checked).
    fn key_of(&self, row: &[Value]) -> Result<Option<Vec<Value>>, SqlError> {
        key_as(row, &self.columns, &self.parent.types, &self.ref_columns)
    }

    /// Whether `row`'s key breaks `MATCH FULL`: some of its columns NULL,
    /// not all.
    fn mixed(&self, row: &[Value]) -> bool {
        let nulls = (self.columns.iter())
            .filter(|&&c| row[c] == Value::Null)
            .count();
        self.match_full && nulls > 0 && nulls < self.columns.len()
    }

    /// PostgreSQL's 23503 for a row of `relation` whose key [`mixed`](Self::mixed)
    /// NULL and non-NULL columns.
    fn mixed_nulls(&self, relation: &Relation) -> SqlError {
        SqlError::new(
            "23503",
            format!(
                "insert or update on table \"{}\" violates foreign key constraint \"{}\"",
                bare(&relation.def.name),
                self.name
            ),
        )
        .with_detail("MATCH FULL does not allow mixing of null and nonnull key values.")
        .with_constraint(&relation.def.name, &self.name)
    }

    /// 23503 for `row` of `relation`, whose key is not in the parent.
    fn missing(&self, relation: &Relation, row: &[Value]) -> Result<SqlError, SqlError> {
        let names = column_names(relation, &self.columns);
        let values: Vec<Value> = self.columns.iter().map(|&c| row[c].clone()).collect();
        Ok(SqlError::new(
            "23503",
            format!(
                "insert or update on table \"{}\" violates foreign key constraint \"{}\"",
                bare(&relation.def.name),
                self.name
            ),
        )
        .with_detail(format!(
            "Key ({names})=({}) is not present in table \"{}\".",
            row_text(&values)?,
            bare(&self.parent.def.name)
        ))
        .with_constraint(&relation.def.name, &self.name))
    }
}

/// The unique index of `relation` over exactly `columns` (any order), and
/// for each of its columns the position in `columns` that fills it.
pub(crate) fn unique_index_over(
    relation: &Relation,
    columns: &[usize],
) -> Option<(usize, Vec<usize>)> {
    relation.indexes.iter().enumerate().find_map(|(i, ri)| {
        if !ri.def.unique || !ri.def.is_plain() || ri.def.columns.len() != columns.len() {
            return None;
        }
        let order = ri
            .def
            .columns
            .iter()
            .map(|&c| columns.iter().position(|&k| k == usize::from(c)))
            .collect::<Option<Vec<usize>>>()?;
        Some((i, order))
    })
}

/// The values of the newest version of the row whose version at `tid`
/// this transaction wrote, following the updates it made since; `None`
/// if it deleted the row.
fn newest_of_mine(
    txn: &Transaction,
    relation: &Relation,
    mut tid: Tid,
) -> Result<Option<Vec<Value>>, SqlError> {
    let table = &relation.table;
    let heap = folio_catalog::CatalogError::from;
    for _ in 0..LINKS_FOLLOWED_MAX {
        let Some(header) = table.header(tid).map_err(heap)? else {
            return Ok(None);
        };
        match header.deleter() {
            Some(deleter) if txn.is_mine(deleter) => match header.next {
                Some(next) => tid = next,
                None => return Ok(None),
            },
            _ => {
                let Some(bytes) = table.fetch_any(tid).map_err(heap)? else {
                    return Ok(None);
                };
                return Ok(Some(relation.decode(txn, &bytes)?));
            }
        }
    }
    Err(SqlError::new(
        "54000",
        "a row changed too many times within its transaction to check its foreign keys",
    ))
}

/// Whether `relation` holds a row whose `columns` are those of `old`
/// again (a removed key put back: nothing references a missing row), as
/// the newest snapshot sees it.
fn key_held_again(
    txn: &mut Transaction,
    relation: &Relation,
    columns: &[usize],
    old: &[Value],
) -> Result<bool, SqlError> {
    let Some((index, order)) = unique_index_over(relation, columns) else {
        return Ok(false);
    };
    let probe: Vec<Value> = order.iter().map(|&k| old[columns[k]].clone()).collect();
    let found = txn.with_latest_snapshot(|txn| relation.lookup(txn, index, &probe))?;
    Ok(!found.is_empty())
}

/// Whether a referenced column's value `new` is `old` as stored, not
/// merely equal: PostgreSQL's rule for whether an update changed a
/// referenced key (`-0` to `0` in a `float8` key, `1.0` to `1.00` in a
/// numeric one change it, and its actions run).
fn same_image(old: &Value, new: &Value) -> bool {
    match (old, new) {
        (Value::Float4(a), Value::Float4(b)) => a.to_bits() == b.to_bits(),
        (Value::Float8(a), Value::Float8(b)) => a.to_bits() == b.to_bits(),
        (Value::Numeric(_), Value::Numeric(_)) => {
            old == new && types::text_output(old) == types::text_output(new)
        }
        _ => old == new,
    }
}

/// Runs `f` with the snapshot a constraint check reads with: a new one
/// under READ COMMITTED (rows committed since the statement began count),
/// the transaction's under REPEATABLE READ; either way with every write
/// of the transaction seen, even inside a statement whose parts read as
/// of its start (`modifying_cte.rs`: PostgreSQL checks a key after the
/// statement, with a later command id).
fn in_statement_view<T>(txn: &mut Transaction, f: impl FnOnce(&mut Transaction) -> T) -> T {
    txn.as_of_command(None, |txn| {
        if txn.isolation() == Isolation::ReadCommitted {
            txn.with_latest_snapshot(f)
        } else {
            f(txn)
        }
    })
}

/// 23514: row `values` of partition `relation` lies outside its bound.
fn partition_violation(relation: &Relation, values: &[Value]) -> Result<SqlError, SqlError> {
    Ok(SqlError::new(
        "23514",
        format!(
            "new row for relation \"{}\" violates partition constraint",
            folio_catalog::unqualified(&relation.def.name)
        ),
    )
    .with_detail(format!("Failing row contains ({}).", row_text(values)?)))
}

fn column_names(relation: &Relation, columns: &[usize]) -> String {
    columns
        .iter()
        .map(|&c| relation.def.columns[c].name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Values as PostgreSQL's DETAIL lines print them (`null` for NULL).
pub(crate) fn row_text(values: &[Value]) -> Result<String, SqlError> {
    Ok(value_texts(values).join(", "))
}

/// `values`' texts as a failing row's DETAIL prints them.
fn value_texts(values: &[Value]) -> Vec<String> {
    (values.iter())
        .map(|v| types::text_output(v).unwrap_or_else(|| "null".into()))
        .collect()
}

/// `row`'s values at columns `from`, each as the type of the matching
/// column of `to` in `column_types`: a foreign key's key looked up on the
/// other side (`None` when one is NULL: the key references nothing).
fn key_as(
    row: &[Value],
    from: &[usize],
    column_types: &[folio_row::SqlType],
    to: &[usize],
) -> Result<Option<Vec<Value>>, SqlError> {
    if from.iter().any(|&c| row[c] == Value::Null) {
        return Ok(None);
    }
    from.iter()
        .zip(to)
        .map(|(&f, &t)| types::coerce(row[f].clone(), column_types[t]))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// `ALTER TABLE table VALIDATE CONSTRAINT name`: the rows already there
/// checked against CHECK or foreign key `name` added `NOT VALID` (23514,
/// 23503, as when it is added), then it is marked validated
/// (`pg_constraint.convalidated`). Nothing to do for one that is valid;
/// 42704 for no such constraint, 42809 for a key constraint.
pub fn validate_constraint(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    table: &str,
    name: &str,
) -> Result<(), SqlError> {
    let relation = access::relation(cx, txn, table)?;
    let unqualified = folio_catalog::unqualified(table);
    let Some(def) =
        (relation.def.constraints.iter()).find(|c| !c.name.is_empty() && c.name == name)
    else {
        let key = (relation.def.indexes.iter())
            .any(|i| i.constraint && folio_catalog::unqualified(&i.name) == name);
        return Err(match key {
            true => SqlError::new(
                "42809",
                format!(
                    "constraint \"{name}\" of relation \"{unqualified}\" is not a foreign key or check constraint"
                ),
            ),
            false => SqlError::new(
                "42704",
                format!("constraint \"{name}\" of relation \"{unqualified}\" does not exist"),
            ),
        });
    };
    if def.validated {
        return Ok(());
    }
    let mut constraints = Constraints::bind(cx, txn, &relation)?;
    constraints.checks.retain(|c| c.name == name);
    constraints.references.retain(|r| r.name == name);
    constraints
        .checks
        .iter_mut()
        .for_each(|c| c.validated = true);
    constraints
        .references
        .iter_mut()
        .for_each(|r| r.validated = true);
    constraints.validate_checks(txn, &relation, &Env::at(cx.now()))?;
    constraints.validate_references(txn, &relation)?;
    cx.db
        .catalog()
        .set_constraint_validated(txn, table, name, true)?;
    cx.relations.ddl();
    Ok(())
}

/// A table's name as PostgreSQL's foreign key messages give it: without
/// its schema.
fn bare(name: &str) -> &str {
    folio_catalog::unqualified(name)
}
