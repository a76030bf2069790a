//! The FROM clause: its tables (with aliases) and `generate_series`,
//! joined by `[INNER] JOIN ... ON`, `LEFT [OUTER] JOIN ... ON`, `CROSS
//! JOIN` and commas, left to right; the scope that column names resolve
//! in; where each condition is evaluated; and the rows it produces.
//!
//! A query's row is every FROM item's columns side by side, in order, so
//! the row of a join node (its left input's columns, then its right
//! table's) is a prefix of the query's row, and one binding serves every
//! node. Conditions go as low as they may:
//!
//! - a WHERE conjunct on one table goes into that table's scan (its
//!   access path may use it), unless the table is the nullable side of a
//!   LEFT JOIN, where it filters the join's output instead;
//! - a WHERE conjunct on several tables goes to the lowest join that has
//!   them all: into its condition for an inner join, else onto its output;
//! - an ON conjunct on the join's right table alone goes into that
//!   table's scan; `left expression = right expression` becomes a hash
//!   key; the rest is the join's condition.
//!
//! A join with hash keys is a hash join (the right input hashed, the left
//! probing it); without, a nested loop.

use crate::access;
use crate::aggregate::KeyMap;
use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::plan::{self, Request, ScanPlan};
use crate::recursive::{Reference, WorkTable};
use crate::scalar::{self, Cmp, Columns, Env, Scalar};
use crate::scan::{self, ScanCounts};
use crate::system::SystemRelation;
use crate::table_functions::FunctionScan;
use folio_catalog::{Catalog, Relation};
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, Ident, JoinConstraint, JoinOperator, TableFactor,
    TableWithJoins,
};
use std::borrow::Cow;
use std::sync::Arc;

mod using;

/// One FROM item's columns in the query's row.
#[derive(Debug, Clone)]
pub struct ScopeTable {
    /// The name its columns are qualified with (the alias, else the
    /// table's name).
    pub qualifier: String,
    pub names: Vec<String>,
    pub types: Vec<SqlType>,
    /// Its first column's position in the query's row.
    pub offset: usize,
    /// How many of `names` are a table's system columns, last
    /// (`system_columns.rs`): not in `*` nor in a whole-row reference.
    pub system: usize,
    /// The columns declared with a domain (index in `names`, the domain's
    /// name): a table's, for `pg_typeof` (`Columns::domain_at`).
    pub domains: Vec<(usize, String)>,
    /// The columns with a collation other than their type's (index in
    /// `names`, the collation's oid): a table's (`Columns::collation_at`).
    pub collations: Vec<(usize, u32)>,
    /// A table's, view's or materialized view's row type: a whole-row
    /// reference's type (`Columns::whole_row_type`); `None` for other
    /// items (an anonymous record).
    pub row_type: Option<&'static folio_row::CompositeType>,
    /// A table's or materialized view's columns the query reads, recorded
    /// as the binder resolves them, for column privileges
    /// (`privileges::note_columns`); `None` for other items.
    pub uses: Option<crate::privileges::ColumnUses>,
}

impl ScopeTable {
    /// A table's columns under `qualifier`, from position `offset`, and
    /// its system columns after them if `system`.
    pub fn of_relation(
        qualifier: String,
        relation: &Relation,
        offset: usize,
        system: bool,
    ) -> ScopeTable {
        let mut names: Vec<String> = relation
            .def
            .columns
            .iter()
            .map(|c| c.name.clone())
            .collect();
        let mut types = relation.types.clone();
        let system = match system {
            true => crate::system_columns::COLUMNS.len(),
            false => 0,
        };
        for (name, ty) in &crate::system_columns::COLUMNS[..system] {
            names.push(name.to_string());
            types.push(*ty);
        }
        let domains = (relation.def.columns.iter().enumerate())
            .filter_map(|(n, c)| {
                Some((n, crate::domains::column_domain(&relation.def, c.type_oid)?))
            })
            .collect();
        let collations = (relation.def.columns.iter().enumerate())
            .filter_map(|(n, c)| Some((n, c.collation?)))
            .collect();
        // The type's fields are the visible columns (a stale type, from
        // lists older than the relation, is not used).
        let row_type = crate::user_types::row_type_of(relation.def.oid)
            .filter(|t| t.fields.len() == relation.def.columns.len());
        ScopeTable {
            qualifier,
            names,
            types,
            offset,
            system,
            domains,
            collations,
            row_type,
            uses: None,
        }
    }

    /// The positions of its columns `*` and a whole-row reference show.
    pub fn visible(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.names.len() - self.system
    }

    /// Records that the query reads its column `n` (of `names`: the
    /// table's columns, then its system columns).
    fn record(&self, n: usize) {
        if let Some(uses) = &self.uses {
            uses.record(n);
        }
    }
}

/// The columns names resolve to.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub tables: Vec<ScopeTable>,
    /// The columns a `USING` (or `NATURAL`) join merged: an unqualified
    /// name resolves to the kept column (the left one, the right one for a
    /// RIGHT JOIN) and never to the other, which `*` leaves out.
    merged: Vec<(String, usize)>,
    hidden: Vec<usize>,
    /// The FROM items (indexes into `tables`) on the side of an outer
    /// join that may be NULL-extended: a whole-row reference to one is
    /// 0A000 (`whole_row`), as its NULL row would read as `(,)`.
    nullable: Vec<usize>,
    /// What `*` stands for once a join merged columns (PostgreSQL's order:
    /// the merged columns, then the left side's others, then the right
    /// side's); `None`: every column in order.
    star_order: Option<Vec<usize>>,
}

impl Scope {
    /// A scope of the given FROM items, no columns merged.
    pub fn of(tables: Vec<ScopeTable>) -> Scope {
        Scope {
            tables,
            ..Scope::default()
        }
    }

    /// Adds the next FROM item.
    fn push(&mut self, table: ScopeTable) {
        if let Some(order) = &mut self.star_order {
            order.extend(table.visible());
        }
        self.tables.push(table);
    }

    /// Makes `*` stand for FROM item `table`'s columns first, then the
    /// others as before (an UPDATE ... FROM's or DELETE ... USING's
    /// RETURNING: the target's columns, then the other items').
    pub fn star_first(&mut self, table: usize) {
        let t = &self.tables[table];
        let span = t.offset..t.offset + t.names.len();
        let (mut first, rest): (Vec<usize>, Vec<usize>) =
            self.star().into_iter().partition(|c| span.contains(c));
        first.extend(rest);
        self.star_order = Some(first);
    }

    /// Leaves FROM item `table`'s columns out of `*`.
    fn hide_from_star(&mut self, table: usize) {
        let t = &self.tables[table];
        let span = t.offset..t.offset + t.names.len();
        let kept = self
            .star()
            .into_iter()
            .filter(|c| !span.contains(c))
            .collect();
        self.star_order = Some(kept);
    }

    /// The columns `*` stands for, in order.
    pub fn star(&self) -> Vec<usize> {
        match &self.star_order {
            Some(order) => order.clone(),
            None => self.tables.iter().flat_map(ScopeTable::visible).collect(),
        }
    }

    /// Records that the query reads the column at `position` of its row
    /// (for column privileges: [`ScopeTable::record`]).
    pub fn record(&self, position: usize) {
        if let Some(t) = self.tables.get(self.table_of(position))
            && let Some(n) = position.checked_sub(t.offset)
            && n < t.names.len()
        {
            t.record(n);
        }
    }

    /// Columns in the query's row.
    pub fn width(&self) -> usize {
        self.tables.last().map_or(0, |t| t.offset + t.names.len())
    }

    /// The FROM item a column of the query's row belongs to.
    fn table_of(&self, column: usize) -> usize {
        self.tables
            .iter()
            .rposition(|t| t.offset <= column)
            .unwrap_or(0)
    }

    /// The FROM items an expression reads.
    fn tables_read(&self, s: &Scalar) -> Vec<usize> {
        let mut columns = Vec::new();
        s.columns(&mut columns);
        let mut tables: Vec<usize> = columns.into_iter().map(|c| self.table_of(c)).collect();
        tables.sort_unstable();
        tables.dedup();
        tables
    }

    /// Every column's display name: qualified when there are several
    /// FROM items (EXPLAIN prints `a.x` then, as PostgreSQL does).
    pub fn display_names(&self) -> Vec<String> {
        let qualify = self.tables.len() > 1;
        self.tables
            .iter()
            .flat_map(|t| {
                t.names.iter().map(move |n| {
                    if qualify {
                        format!("{}.{n}", t.qualifier)
                    } else {
                        n.clone()
                    }
                })
            })
            .collect()
    }

    /// Every column's type.
    pub fn types(&self) -> Vec<SqlType> {
        self.tables
            .iter()
            .flat_map(|t| t.types.iter().copied())
            .collect()
    }

    /// Whether the column at `position` is one a `USING` / `NATURAL`
    /// join merged (an unqualified name reads it).
    pub fn is_merged(&self, position: usize) -> bool {
        self.merged.iter().any(|&(_, c)| c == position)
    }

    /// Every column's plain name.
    pub fn names(&self) -> Vec<String> {
        self.tables
            .iter()
            .flat_map(|t| t.names.iter().cloned())
            .collect()
    }
}

impl Columns for Scope {
    fn resolve(&self, name: &str) -> Result<(usize, SqlType), SqlError> {
        if let Some(&(_, c)) = self.merged.iter().find(|(n, _)| n == name) {
            self.record(c);
            return Ok((c, self.type_at(c)));
        }
        let mut found = None;
        for t in &self.tables {
            if let Some(c) = t.names.iter().position(|n| n == name) {
                if self.hidden.contains(&(t.offset + c)) {
                    continue;
                }
                if found.is_some() {
                    return Err(SqlError::new(
                        "42702",
                        format!("column reference \"{name}\" is ambiguous"),
                    ));
                }
                found = Some((t.offset + c, t.types[c]));
            }
        }
        let (c, ty) = found.ok_or_else(|| SqlError::undefined_column(name))?;
        self.record(c);
        Ok((c, ty))
    }

    fn type_at(&self, position: usize) -> SqlType {
        let t = &self.tables[self.table_of(position)];
        t.types[position - t.offset]
    }

    fn qualifier_of(&self, position: usize) -> Option<String> {
        Some(self.tables[self.table_of(position)].qualifier.clone())
    }

    fn column_name(&self, position: usize) -> Option<String> {
        let t = &self.tables[self.table_of(position)];
        t.names.get(position - t.offset).cloned()
    }

    fn collation_at(&self, position: usize) -> Option<u32> {
        let t = self.tables.get(self.table_of(position))?;
        let n = position.checked_sub(t.offset)?;
        t.collations.iter().find(|(c, _)| *c == n).map(|(_, c)| *c)
    }

    fn domain_at(&self, position: usize) -> Option<String> {
        let t = self.tables.get(self.table_of(position))?;
        let n = position.checked_sub(t.offset)?;
        t.domains
            .iter()
            .find(|(c, _)| *c == n)
            .map(|(_, d)| d.clone())
    }

    fn whole_row(&self, name: &str) -> Option<Result<Vec<usize>, SqlError>> {
        let n = self.tables.iter().position(|t| t.qualifier == name)?;
        if self.nullable.contains(&n) {
            return Some(Err(SqlError::unsupported(format!(
                "a whole-row reference to \"{name}\", on the nullable side of an outer join"
            ))));
        }
        let t = &self.tables[n];
        t.visible().for_each(|c| self.record(c));
        Some(Ok(t.visible().collect()))
    }

    fn whole_row_type(&self, name: &str) -> Option<&'static folio_row::CompositeType> {
        let t = self.tables.iter().find(|t| t.qualifier == name)?;
        t.row_type
    }

    fn resolve_qualified(&self, qualifier: &str, name: &str) -> Result<(usize, SqlType), SqlError> {
        let t = self
            .tables
            .iter()
            .find(|t| t.qualifier == qualifier)
            .ok_or_else(|| {
                SqlError::new(
                    "42P01",
                    format!("missing FROM-clause entry for table \"{qualifier}\""),
                )
            })?;
        let c = t.names.iter().position(|n| n == name).ok_or_else(|| {
            SqlError::new("42703", format!("column {qualifier}.{name} does not exist"))
        })?;
        t.record(c);
        Ok((t.offset + c, t.types[c]))
    }
}

/// The row locks `SELECT ... FOR UPDATE / FOR SHARE` takes: their
/// strength, their wait policy (`NOWAIT`, `SKIP LOCKED`), and, as
/// PostgreSQL locks the rows in the query's order as its LIMIT asks for
/// them, that order and how many rows are asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct RowLock {
    pub strength: LockStrength,
    pub wait: folio_txn::WaitPolicy,
    /// The ORDER BY over the table's rows that the rows are locked in
    /// (empty: the scan's order).
    pub order: Vec<crate::plan::SortKey>,
    /// LIMIT plus OFFSET when nothing between the lock and the LIMIT
    /// drops rows: locking stops once that many are locked (a count with
    /// a parameter: known when the plan runs, `counts.rs`).
    pub needed: Option<crate::counts::Stop>,
}

/// A row lock's strength. PostgreSQL's `FOR NO KEY UPDATE` and `FOR KEY
/// SHARE` take the stronger one beside them (`parse.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockStrength {
    Update,
    Share,
}

impl LockStrength {
    /// The SQL words after `FOR`.
    pub fn word(self) -> &'static str {
        match self {
            LockStrength::Update => "UPDATE",
            LockStrength::Share => "SHARE",
        }
    }
}

/// A set operation's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetKind {
    Union,
    Intersect,
    Except,
}

impl SetKind {
    /// The SQL word (`UNION`).
    pub fn word(self) -> &'static str {
        match self {
            SetKind::Union => "UNION",
            SetKind::Intersect => "INTERSECT",
            SetKind::Except => "EXCEPT",
        }
    }

    /// The rows of `left op right`, as PostgreSQL counts them (rows
    /// equal when every column is, NULLs equal to NULLs): UNION ALL both
    /// lists; INTERSECT ALL a row min(l, r) times and EXCEPT ALL
    /// max(l - r, 0) times, where it occurs l times on the left and r on
    /// the right; without ALL, each of those rows once. Rows keep the
    /// left input's order.
    fn combine(self, left: Vec<Vec<Value>>, right: Vec<Vec<Value>>, all: bool) -> Vec<Vec<Value>> {
        let rows = match self {
            SetKind::Union => {
                let mut rows = left;
                rows.extend(right);
                rows
            }
            SetKind::Intersect | SetKind::Except => {
                let mut on_right: KeyMap<usize> = KeyMap::default();
                for row in &right {
                    *on_right
                        .entry(crate::aggregate::group_hash(row))
                        .or_default() += 1;
                }
                let intersect = self == SetKind::Intersect;
                left.into_iter()
                    .filter(|row| {
                        let key = crate::aggregate::group_hash(row);
                        match on_right.get_mut(&key) {
                            // Each right row matches one left row (ALL);
                            // without ALL, duplicates go below.
                            Some(n) if *n > 0 => {
                                if all {
                                    *n -= 1;
                                }
                                intersect
                            }
                            _ => !intersect,
                        }
                    })
                    .collect()
            }
        };
        if all {
            rows
        } else {
            crate::query::distinct(rows, None)
        }
    }
}

/// A join's kind: which sides keep their unmatched rows, NULL-extended
/// (LEFT the rows so far, RIGHT the new item's, FULL both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
}

impl JoinKind {
    /// Whether the rows joined so far (the left side) keep their unmatched
    /// rows.
    pub(crate) fn keeps_left(self) -> bool {
        matches!(self, JoinKind::Left | JoinKind::Full)
    }

    /// Whether the new item's rows (the right side) keep their unmatched
    /// rows.
    pub(crate) fn keeps_right(self) -> bool {
        matches!(self, JoinKind::Right | JoinKind::Full)
    }

    /// EXPLAIN's word for it (`Hash Left Join`).
    pub fn explain_word(self) -> &'static str {
        match self {
            JoinKind::Inner => "",
            JoinKind::Left => " Left",
            JoinKind::Right => " Right",
            JoinKind::Full => " Full",
        }
    }
}

/// How a join matches rows.
#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    /// Left key expressions (over the left input's row) equal to right
    /// ones (over the right table's own row).
    Hash {
        left_keys: Vec<Scalar>,
        right_keys: Vec<Scalar>,
    },
    NestedLoop,
}

/// Where rows come from.
pub enum Source {
    /// No FROM: one row of no columns.
    One,
    /// A `pg_catalog` relation (`system.rs`): its rows made from the
    /// catalog at each execution, then its filter.
    System {
        label: String,
        relation: SystemRelation,
        catalog: Arc<Catalog>,
        filter: Vec<Scalar>,
    },
    /// A function in FROM (`table_functions.rs`), then its filter; it
    /// stops after `limit` rows (a LIMIT pushed into it, `query.rs`).
    Function {
        scan: FunctionScan,
        filter: Vec<Scalar>,
        limit: Option<crate::counts::Stop>,
    },
    Table {
        /// `name` or `name alias`, as EXPLAIN prints it.
        label: String,
        relation: Arc<Relation>,
        plan: ScanPlan,
        /// `FOR UPDATE` / `FOR SHARE`: each row found is locked.
        lock: Option<RowLock>,
        /// Each row carries its tuple id after its columns
        /// ([`tid_value`]): the target of an UPDATE ... FROM or DELETE
        /// ... USING, joined to the other items (`dml_join.rs`).
        tid: bool,
    },
    /// A subquery in FROM: its result rows, then its filter. A LATERAL
    /// one that reads the FROM items before it (`outer`: the columns of
    /// the join's left row it reads, as a correlated subquery's) is run
    /// once per left row by its join.
    Derived {
        label: String,
        planned: Box<crate::query::Planned>,
        filter: Vec<Scalar>,
        outer: Vec<crate::subquery::OuterValue>,
    },
    /// A recursive CTE's `base UNION [ALL] step` (`recursive.rs`): the
    /// step run over the work table until it yields no rows.
    Recursive {
        all: bool,
        base: Box<crate::query::Planned>,
        step: Box<crate::query::Planned>,
        table: WorkTable,
        /// The most rows its reader takes (`LIMIT`), if it stops early.
        limit: Option<crate::counts::Stop>,
        /// The rows still needed, for the step, when it may stop early
        /// (`recursive::run`).
        budget: crate::counts::Budget,
    },
    /// A sequence read as a relation (`SELECT * FROM s`): its one row
    /// (`last_value`, `log_cnt`, `is_called`) now, then its filter.
    Sequence {
        label: String,
        def: folio_catalog::SequenceDef,
        catalog: Arc<Catalog>,
        filter: Vec<Scalar>,
    },
    /// A recursive CTE named in its own step: the work table's rows, then
    /// its filter.
    WorkTable {
        label: String,
        table: WorkTable,
        filter: Vec<Scalar>,
    },
    /// A partitioned target of a MERGE, joined as the last item
    /// ([`FromClause::leaves_of_last`]): each leaf partition's scan, in
    /// turn, every row carrying its leaf's oid and tuple id after its
    /// columns ([`leaf_tid_value`]). A leaf whose columns are in another
    /// order than the table's has its rows put in the table's order
    /// (`partitions/column_map.rs`) and then filtered.
    Leaves {
        label: String,
        scans: Vec<(Arc<Relation>, ScanPlan, Option<Reordered>)>,
    },
    /// A partitioned table's partitions (`partitioned_base`) that
    /// parameters prune: the rows of the branches `at_start` leaves when
    /// the execution starts (README "Partitioned tables", run-time
    /// pruning), one after the other.
    Append {
        branches: Vec<crate::query::Planned>,
        at_start: Box<crate::partitions::run_time::AtStart>,
        /// The partitioned table's name in the query (its branches are
        /// `qualifier_1`, `qualifier_2`, ...).
        qualifier: String,
    },
    /// `left UNION | INTERSECT | EXCEPT [ALL] right`: the queries' result
    /// rows combined.
    SetOp {
        op: SetKind,
        all: bool,
        left: Box<crate::query::Planned>,
        right: Box<crate::query::Planned>,
        /// The result's column types, which each input's values are cast
        /// to where its own differ (`set_types.rs`).
        types: Vec<SqlType>,
    },
    Join {
        kind: JoinKind,
        left: Box<Source>,
        right: Box<Source>,
        /// Columns of the right input, and its first column's position in
        /// the query's row.
        right_width: usize,
        right_offset: usize,
        method: Method,
        /// The join's condition (over the node's row).
        condition: Vec<Scalar>,
        /// WHERE conjuncts on the node's output.
        filter: Vec<Scalar>,
    },
}

/// What producing the rows did, for EXPLAIN ANALYZE: per source node
/// (by address), the rows it produced and what its scan did (its last
/// run's, for a node run again per outer row). A list, not a map: a plan
/// has a few nodes, and hashing them was a measurable share of a cached
/// point query's instructions.
#[derive(Debug, Clone, Default)]
pub struct SourceCounts {
    nodes: Vec<(usize, (u64, ScanCounts))>,
}

impl SourceCounts {
    /// Notes what `source`'s latest run produced and scanned.
    fn note(&mut self, source: &Source, counts: (u64, ScanCounts)) {
        let id = Self::id(source);
        match self.nodes.iter_mut().find(|(node, _)| *node == id) {
            Some((_, kept)) => *kept = counts,
            None => self.nodes.push((id, counts)),
        }
    }

    /// The rows the latest runs of all nodes handed on or filtered out:
    /// a measure of a run's work (`hashed_subplan.rs` weighs a per-row
    /// subquery's runs with it).
    pub fn handled(&self) -> u64 {
        (self.nodes.iter())
            .map(|(_, (rows, scan))| rows + scan.removed_by_filter)
            .sum()
    }

    /// What `source`'s latest run produced and scanned, if it ran.
    pub fn of(&self, source: &Source) -> Option<(u64, ScanCounts)> {
        let id = Self::id(source);
        let found = self.nodes.iter().find(|(node, _)| *node == id);
        found.map(|(_, counts)| *counts)
    }

    /// A node's key: its address, stable while the plan is alive.
    fn id(source: &Source) -> usize {
        source as *const Source as usize
    }
}

/// A FROM item before planning.
struct Item<'a> {
    /// How it joins what comes before it (`None`: the first).
    join: Option<(JoinKind, Option<Cow<'a, Expr>>)>,
    /// Its `USING` columns or `NATURAL`, turned into the join's condition
    /// once the scope of the items before it is known.
    using: Using,
}

/// A join's merged columns.
enum Using {
    None,
    Columns(Vec<String>),
    Natural,
}

/// The columns of a sequence read as a relation.
const SEQUENCE_COLUMNS: [(&str, SqlType); 3] = [
    ("last_value", SqlType::Int8),
    ("log_cnt", SqlType::Int8),
    ("is_called", SqlType::Bool),
];

/// A FROM item resolved.
enum Base {
    /// `[LATERAL] (query) alias`.
    Derived {
        label: String,
        planned: Box<crate::query::Planned>,
        outer: Vec<crate::subquery::OuterValue>,
    },
    Table {
        label: String,
        relation: Arc<Relation>,
        sample: Option<crate::tablesample::Sample>,
    },
    System {
        label: String,
        relation: SystemRelation,
    },
    Function(FunctionScan),
    /// A recursive CTE's work table (`recursive.rs`).
    WorkTable {
        label: String,
        table: WorkTable,
    },
    Sequence {
        label: String,
        def: folio_catalog::SequenceDef,
    },
    /// A partitioned change target's leaf partitions, each with the map
    /// from the table's columns to its when their orders differ.
    Leaves {
        label: String,
        leaves: Vec<(
            Arc<Relation>,
            Option<crate::partitions::column_map::ColumnMap>,
        )>,
    },
}

/// A leaf of [`Source::Leaves`] in another column order than its
/// partitioned table: the map, and the filter its rows meet once in the
/// table's order.
#[derive(Debug, Clone)]
pub struct Reordered {
    map: crate::partitions::column_map::ColumnMap,
    filter: Vec<Scalar>,
}

/// A FROM clause whose items are resolved: its scope, for binding the
/// rest of the query, then [`FromClause::plan`].
pub struct FromClause<'a> {
    items: Vec<Item<'a>>,
    bases: Vec<Base>,
    pub scope: Scope,
    /// The conjuncts of the query's WHERE pushed into a lone subquery or
    /// view (`pushdown.rs`): the query need not check them again.
    pub pushed: Vec<Expr>,
    /// The last item, a table, carries its tuple id after its columns
    /// (`Source::Table::tid`).
    pub tid_of_last: bool,
}

/// Resolves a FROM clause's items (tables, aliases, joins). The query's
/// WHERE, `selection`, may be pushed into a lone subquery or view
/// (`pushdown.rs`). Its tables carry their system columns if `system`
/// (`system_columns::mentioned`).
pub fn resolve<'a>(
    cx: &Ctx<'_>,
    txn: &Transaction,
    from: &'a [TableWithJoins],
    outer: Option<crate::pushdown::Outer<'_>>,
    system: bool,
) -> Result<FromClause<'a>, SqlError> {
    let lone = from.len() == 1 && from[0].joins.is_empty();
    let outer = outer.filter(|_| lone);
    let mut items = Vec::new();
    for (n, twj) in from.iter().enumerate() {
        let join = (n > 0).then_some((JoinKind::Inner, None));
        push_items(twj, join, &mut items)?;
    }
    let mut scope = Scope::default();
    let mut bases = Vec::with_capacity(items.len());
    let mut resolved = Vec::with_capacity(items.len());
    let mut pushed = Vec::new();
    for (factor, mut item) in items {
        let (base, table) = base(cx, txn, factor, &scope, outer, &mut pushed, system)?;
        if let Base::Derived { outer, .. } = &base
            && let Some(first) = crate::subquery::columns_of(outer).next()
            && !matches!(item.join, Some((JoinKind::Inner | JoinKind::Left, _)))
        {
            let named = scope.qualifier_of(first).unwrap_or_default();
            return Err(SqlError::new(
                "42P01",
                format!("invalid reference to FROM-clause entry for table \"{named}\""),
            )
            .with_detail(
                "The combining JOIN type must be INNER or LEFT for a LATERAL reference.",
            ));
        }
        if scope.tables.iter().any(|t| t.qualifier == table.qualifier) {
            return Err(SqlError::new(
                "42712",
                format!(
                    "table name \"{}\" specified more than once",
                    table.qualifier
                ),
            ));
        }
        scope.push(table);
        bases.push(base);
        let last = scope.tables.len() - 1;
        // A select list's set-returning calls' item after the FROM's
        // (`project_set.rs`): not the FROM's columns. (Alone, it is the
        // query a LATERAL call is planned as, whose `*` is its columns.)
        if last > 0 && crate::project_set::is_label(&scope.tables[last].qualifier) {
            scope.hide_from_star(last);
        }
        match item.join {
            Some((JoinKind::Left, _)) => scope.nullable.push(last),
            Some((JoinKind::Right, _)) => scope.nullable.extend(0..last),
            Some((JoinKind::Full, _)) => scope.nullable.extend(0..=last),
            _ => {}
        }
        let names = match &item.using {
            Using::None => {
                resolved.push(item);
                continue;
            }
            Using::Columns(names) => names.clone(),
            Using::Natural => scope.natural_names(),
        };
        let Some((kind, on)) = &mut item.join else {
            resolved.push(item);
            continue;
        };
        let kind = *kind;
        let (condition, full) = scope.merge_using(kind, &names)?;
        *on = condition.map(Cow::Owned);
        resolved.push(item);
        // A FULL join's merged columns are an item of their own
        // (`using.rs`).
        if let Some(full) = full {
            let factor = scope.merged_item(&full)?;
            let (merged, table) =
                self::base(cx, txn, &factor, &scope, None, &mut Vec::new(), false)?;
            scope.push(table);
            bases.push(merged);
            scope.merge_full(full);
            resolved.push(Item {
                join: Some((JoinKind::Inner, None)),
                using: Using::None,
            });
        }
    }
    Ok(FromClause {
        items: resolved,
        bases,
        scope,
        pushed,
        tid_of_last: false,
    })
}

/// The items of `twj` (`join`: how its first joins what comes before),
/// in order. A parenthesized join without an alias that comes first in
/// the FROM clause is taken apart into its own items: `(a JOIN b ON p)
/// JOIN c ON q` is `a JOIN b ON p JOIN c ON q`. (After a comma it is not:
/// its USING columns would be looked for in the items before it too.)
fn push_items<'a>(
    twj: &'a TableWithJoins,
    join: Option<(JoinKind, Option<Cow<'a, Expr>>)>,
    items: &mut Vec<(&'a TableFactor, Item<'a>)>,
) -> Result<(), SqlError> {
    match &twj.relation {
        TableFactor::NestedJoin {
            table_with_joins,
            alias: None,
        } if join.is_none() => push_items(table_with_joins, join, items)?,
        relation => items.push((
            relation,
            Item {
                join,
                using: Using::None,
            },
        )),
    }
    for join in &twj.joins {
        let (kind, constraint) = match &join.join_operator {
            JoinOperator::Join(c) | JoinOperator::Inner(c) => (JoinKind::Inner, c),
            JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => (JoinKind::Left, c),
            JoinOperator::Right(c) | JoinOperator::RightOuter(c) => (JoinKind::Right, c),
            JoinOperator::FullOuter(c) => (JoinKind::Full, c),
            JoinOperator::CrossJoin(JoinConstraint::None) => {
                (JoinKind::Inner, &JoinConstraint::None)
            }
            other => {
                return Err(SqlError::unsupported(format!(
                    "the join {} (joins are INNER/LEFT/RIGHT/FULL and CROSS)",
                    join_name(other)
                )));
            }
        };
        let cross = matches!(join.join_operator, JoinOperator::CrossJoin(_));
        let (on, using) = match constraint {
            JoinConstraint::On(e) => (Some(Cow::Borrowed(e)), Using::None),
            JoinConstraint::None if cross => (None, Using::None),
            JoinConstraint::None => {
                return Err(SqlError::syntax("a JOIN needs ON, USING or NATURAL"));
            }
            JoinConstraint::Using(columns) => (
                None,
                Using::Columns(
                    columns
                        .iter()
                        .map(names::relation)
                        .collect::<Result<_, _>>()?,
                ),
            ),
            JoinConstraint::Natural => (None, Using::Natural),
        };
        items.push((
            &join.relation,
            Item {
                join: Some((kind, on)),
                using,
            },
        ));
    }
    Ok(())
}

fn join_name(op: &JoinOperator) -> &'static str {
    match op {
        JoinOperator::Semi(_) | JoinOperator::LeftSemi(_) | JoinOperator::RightSemi(_) => "SEMI",
        JoinOperator::Anti(_) | JoinOperator::LeftAnti(_) | JoinOperator::RightAnti(_) => "ANTI",
        JoinOperator::CrossApply | JoinOperator::OuterApply => "APPLY",
        _ => "of this kind",
    }
}

impl FromClause<'_> {
    /// Reads the last item, the partitioned table `relation` carrying
    /// tuple ids ([`FromClause::tid_of_last`]), as its leaf partitions,
    /// each row with its leaf's oid and tuple id ([`Source::Leaves`]): a
    /// MERGE's target (`merge.rs`), whose matched rows are changed in
    /// their leaf. No pruning: the join condition decides.
    pub fn leaves_of_last(
        &mut self,
        cx: &Ctx<'_>,
        txn: &Transaction,
        relation: &Arc<Relation>,
    ) -> Result<(), SqlError> {
        let leaves = crate::partitions::foreign_keys::leaves(cx, txn, relation.clone())?;
        let leaves = (leaves.into_iter())
            .map(|leaf| {
                let map =
                    crate::partitions::column_map::ColumnMap::between(&relation.def, &leaf.def);
                (leaf, map)
            })
            .collect();
        let label = (self.scope.tables.last()).map_or_else(String::new, |t| t.qualifier.clone());
        *self.bases.last_mut().expect("a change's target item") = Base::Leaves { label, leaves };
        Ok(())
    }

    /// Plans the rows with the WHERE clause: the source, and what of
    /// `order` (over the query's row) is left to sort. A single table's
    /// scan gets `reads` (the columns the query reads, for index-only
    /// scans) and `order` (its access path may yield it); in a join each
    /// table's scan decodes only its columns among `reads` and those the
    /// join conditions read.
    pub fn plan(
        self,
        cx: &Ctx<'_>,
        selection: Option<&Expr>,
        reads: Option<Vec<usize>>,
        order: Vec<plan::SortKey>,
    ) -> Result<(Source, Vec<plan::SortKey>), SqlError> {
        let FromClause {
            items,
            bases,
            scope,
            tid_of_last,
            ..
        } = self;
        let count = items.len();
        // The last join that NULL-extends each table's columns: a LEFT
        // JOIN its right item, a RIGHT JOIN every item before it, a FULL
        // JOIN both. A WHERE condition on such a table holds only after
        // that join.
        let mut nulled_at: Vec<Option<usize>> = vec![None; count];
        for (n, item) in items.iter().enumerate() {
            let Some((kind, _)) = &item.join else {
                continue;
            };
            if kind.keeps_left() {
                nulled_at[n] = Some(n);
            }
            if kind.keeps_right() {
                nulled_at[..n].iter_mut().for_each(|at| *at = Some(n));
            }
        }
        let inner_at = |n: usize| matches!(items[n].join, Some((JoinKind::Inner, _)));
        // A LATERAL item runs per left row: its join is a nested loop.
        let lateral: Vec<bool> = bases
            .iter()
            .map(|b| matches!(b, Base::Derived { outer, .. } if !outer.is_empty()))
            .collect();
        let mut pushed: Vec<Vec<Scalar>> = vec![Vec::new(); count];
        let mut conditions: Vec<Vec<Scalar>> = vec![Vec::new(); count];
        let mut filters: Vec<Vec<Scalar>> = vec![Vec::new(); count];
        let mut keys: Vec<(Vec<Scalar>, Vec<Scalar>)> = vec![(Vec::new(), Vec::new()); count];
        // The columns of the joined row anyone reads: the query's, its
        // join conditions' and what LATERAL items take from the left.
        let mut reads = reads;
        if let Some(reads) = &mut reads {
            for base in &bases {
                if let Base::Derived { outer, .. } = base {
                    reads.extend(crate::subquery::columns_of(outer));
                }
            }
        }
        for (n, item) in items.iter().enumerate() {
            let Some((_, Some(on))) = &item.join else {
                continue;
            };
            for conjunct in scalar::bind(on, &scope)?.conjuncts() {
                if let Some(reads) = &mut reads {
                    conjunct.columns(reads);
                }
                let read = scope.tables_read(&conjunct);
                if read.iter().any(|&t| t > n) {
                    return Err(SqlError::new(
                        "42P01",
                        "invalid reference to FROM-clause entry in a JOIN's ON clause",
                    ));
                }
                // Into the new item's scan only when its unmatched rows are
                // dropped (a RIGHT or FULL JOIN keeps them).
                if read == [n] && !kind_at(&items, n).keeps_right() {
                    pushed[n].push(rebase(&conjunct, scope.tables[n].offset));
                } else if !lateral[n]
                    && let Some((l, r)) = hash_key(&scope, &conjunct, n)
                {
                    keys[n].0.push(l);
                    keys[n].1.push(r);
                } else {
                    conditions[n].push(conjunct);
                }
            }
        }
        if let Some(selection) = selection {
            for conjunct in scalar::bind(selection, &scope)?.conjuncts() {
                let read = scope.tables_read(&conjunct);
                let lowest = read.last().copied().unwrap_or(0);
                // The first join after which the condition can be judged.
                let level = read
                    .iter()
                    .filter_map(|&t| nulled_at[t])
                    .fold(lowest, usize::max);
                match read.as_slice() {
                    [t] if nulled_at[*t].is_none() => {
                        pushed[*t].push(rebase(&conjunct, scope.tables[*t].offset));
                    }
                    _ if level == lowest && lowest > 0 && inner_at(lowest) => {
                        match hash_key(&scope, &conjunct, lowest).filter(|_| !lateral[lowest]) {
                            Some((l, r)) => {
                                keys[lowest].0.push(l);
                                keys[lowest].1.push(r);
                            }
                            None => conditions[lowest].push(conjunct),
                        }
                    }
                    // A constant condition, or one on the first table.
                    _ if level == 0 => pushed[0].push(conjunct),
                    _ => filters[level].push(conjunct),
                }
            }
        }
        let single = count == 1;
        let mut left_to_sort = order.clone();
        let mut source: Option<Source> = None;
        for (n, base) in bases.into_iter().enumerate() {
            let filter = std::mem::take(&mut pushed[n]);
            let leaf = match base {
                Base::Table {
                    label,
                    relation,
                    sample,
                } => {
                    let (reads, order) = if single {
                        (reads.clone(), order.clone())
                    } else {
                        (own_columns(reads.as_deref(), &scope.tables[n]), Vec::new())
                    };
                    let plan = plan::plan(Request {
                        relation: &relation,
                        filter,
                        order,
                        reads,
                        system: scope.tables[n].system > 0,
                        sample,
                        settings: cx.settings,
                    })?;
                    if single {
                        left_to_sort = plan.sort.clone();
                    }
                    Source::Table {
                        label,
                        relation,
                        plan,
                        lock: None,
                        tid: tid_of_last && n + 1 == count,
                    }
                }
                Base::Derived {
                    label,
                    planned,
                    outer,
                } => Source::Derived {
                    label,
                    planned,
                    filter,
                    outer,
                },
                Base::System { label, relation } => Source::System {
                    label,
                    relation,
                    catalog: cx.db.catalog().clone(),
                    filter,
                },
                Base::Function(scan) => Source::Function {
                    scan,
                    filter,
                    limit: None,
                },
                Base::WorkTable { label, table } => Source::WorkTable {
                    label,
                    table,
                    filter,
                },
                Base::Sequence { label, def } => Source::Sequence {
                    label,
                    def,
                    catalog: cx.db.catalog().clone(),
                    filter,
                },
                Base::Leaves { label, leaves } => Source::Leaves {
                    label,
                    scans: (leaves.into_iter())
                        .map(|(relation, map)| {
                            let reordered = map.map(|map| Reordered {
                                map,
                                filter: filter.clone(),
                            });
                            let plan = plan::plan(Request {
                                relation: &relation,
                                filter: match reordered {
                                    None => filter.clone(),
                                    Some(_) => Vec::new(),
                                },
                                order: Vec::new(),
                                reads: None,
                                system: false,
                                sample: None,
                                settings: cx.settings,
                            })?;
                            Ok((relation, plan, reordered))
                        })
                        .collect::<Result<_, SqlError>>()?,
                },
            };
            source = Some(match source {
                None => leaf,
                Some(left) => {
                    let &(kind, _) = items[n].join.as_ref().expect("a later item joins");
                    let (left_keys, right_keys) = std::mem::take(&mut keys[n]);
                    // PostgreSQL runs a FULL JOIN only as a merge or hash
                    // join: a condition over the tables needs an equality
                    // to hash (a constant one, `ON true`, does not).
                    if kind == JoinKind::Full
                        && left_keys.is_empty()
                        && conditions[n]
                            .iter()
                            .any(|c| !scope.tables_read(c).is_empty())
                    {
                        return Err(SqlError::new(
                            "0A000",
                            "FULL JOIN is only supported with merge-joinable or \
                             hash-joinable join conditions",
                        ));
                    }
                    let method = if left_keys.is_empty() {
                        Method::NestedLoop
                    } else {
                        Method::Hash {
                            left_keys,
                            right_keys,
                        }
                    };
                    Source::Join {
                        kind,
                        left: Box::new(left),
                        right: Box::new(leaf),
                        // (The target's tuple id too, NULL in a row a LEFT
                        // JOIN NULL-extends: a MERGE's, `merge.rs`.)
                        right_width: scope.tables[n].names.len()
                            + usize::from(tid_of_last && n + 1 == count),
                        right_offset: scope.tables[n].offset,
                        method,
                        condition: std::mem::take(&mut conditions[n]),
                        filter: std::mem::take(&mut filters[n]),
                    }
                }
            });
        }
        Ok((source.unwrap_or(Source::One), left_to_sort))
    }
}

/// A leaf partition's row's tuple id as the value a row of
/// [`Source::Leaves`] carries after its columns: the leaf's oid and the
/// tuple id.
pub fn leaf_tid_value(oid: u64, tid: folio_db::Tid) -> Value {
    Value::Record(vec![Value::Int8(oid as i64), tid_value(tid)])
}

/// The leaf oid (`None`: not a leaf's, [`tid_value`]) and tuple id of a
/// target row's [`tid_value`] or [`leaf_tid_value`].
pub fn row_at(value: &Value) -> (Option<u64>, folio_db::Tid) {
    match value {
        Value::Record(parts) => match parts.as_slice() {
            [Value::Int8(oid), tid] => (Some(*oid as u64), tid_of(tid)),
            other => unreachable!("a leaf's tuple id value, not {other:?}"),
        },
        tid => (None, tid_of(tid)),
    }
}

/// A tuple id as the value a row carries after its columns
/// (`Source::Table::tid`).
pub fn tid_value(tid: folio_db::Tid) -> Value {
    Value::Int8(tid.word() as i64)
}

/// The tuple id of a [`tid_value`].
pub fn tid_of(value: &Value) -> folio_db::Tid {
    match value {
        Value::Int8(word) => folio_db::Tid::from_word(*word as u64),
        other => unreachable!("a tuple id value, not {other:?}"),
    }
}

/// The kind of the join that adds item `n` (Inner for the first item).
fn kind_at(items: &[Item<'_>], n: usize) -> JoinKind {
    items[n]
        .join
        .as_ref()
        .map_or(JoinKind::Inner, |(kind, _)| *kind)
}

/// Of the joined row's columns read (`None`: all), those of `table`, in
/// its own row's positions.
fn own_columns(reads: Option<&[usize]>, table: &ScopeTable) -> Option<Vec<usize>> {
    let span = table.offset..table.offset + table.names.len();
    reads.map(|reads| {
        reads
            .iter()
            .filter(|c| span.contains(c))
            .map(|c| c - table.offset)
            .collect()
    })
}

/// An expression over the query's row moved to its table's own row.
fn rebase(s: &Scalar, offset: usize) -> Scalar {
    s.map_columns(&|c| c - offset)
}

/// `left = right` where one side reads only tables before `n` and the
/// other only table `n`, of types a hash can compare (one type, or both
/// integers): the left key (over the query's row) and the right key (over
/// table `n`'s row).
fn hash_key(scope: &Scope, conjunct: &Scalar, n: usize) -> Option<(Scalar, Scalar)> {
    let Scalar::Compare(Cmp::Eq, a, b) = conjunct else {
        return None;
    };
    let (ta, tb) = (scope.tables_read(a), scope.tables_read(b));
    let left_only = |t: &[usize]| !t.is_empty() && t.iter().all(|&x| x < n);
    let (l, r) = if left_only(&ta) && tb == [n] {
        (a, b)
    } else if left_only(&tb) && ta == [n] {
        (b, a)
    } else {
        return None;
    };
    let types = scope.types();
    if !hash_comparable(l.ty(&types), r.ty(&types)) {
        return None;
    }
    Some((l.as_ref().clone(), rebase(r, scope.tables[n].offset)))
}

/// Whether values of types `l` and `r` that `=` finds equal have equal
/// [`hash_of`] keys, and only those: one type, or two integers (widened
/// to bigint), or text and varchar; never `char(n)` (its `=` ignores
/// trailing blanks). The one owner of which keys a hash may compare,
/// for a hash join and a hashed subquery (`hashed_subplan.rs`).
pub(crate) fn hash_comparable(l: SqlType, r: SqlType) -> bool {
    let family = |ty: SqlType| match ty {
        SqlType::Int2 | SqlType::Int4 | SqlType::Int8 => SqlType::Int8,
        SqlType::Varchar(_) => SqlType::Text,
        other => other,
    };
    family(l) == family(r) && !matches!(l, SqlType::Char(_))
}

/// `LATERAL f(args) [AS a]` as the subquery `LATERAL (SELECT * FROM
/// f(args) [WITH ORDINALITY] AS a) AS a`, whose arguments may read the
/// items before it.
fn lateral_function(
    name: &sqlparser::ast::ObjectName,
    args: &[FunctionArg],
    alias: Option<&sqlparser::ast::TableAlias>,
    ordinality: bool,
) -> Result<TableFactor, SqlError> {
    let inner_alias = alias
        .cloned()
        .unwrap_or_else(|| sqlparser::ast::TableAlias {
            name: Ident::new(names::function(name)),
            columns: Vec::new(),
        });
    let mut select = sqlparser::parser::Parser::new(&sqlparser::dialect::PostgreSqlDialect {})
        .try_with_sql("SELECT * FROM t")
        .and_then(|mut p| p.parse_query())
        .map_err(|e| SqlError::new("XX000", e.to_string()))?;
    if let sqlparser::ast::SetExpr::Select(s) = select.body.as_mut()
        && let TableFactor::Table {
            name: n,
            args: a,
            alias: al,
            with_ordinality,
            ..
        } = &mut s.from[0].relation
    {
        *n = name.clone();
        *a = Some(sqlparser::ast::TableFunctionArgs {
            args: args.to_vec(),
            settings: None,
        });
        *al = Some(inner_alias.clone());
        *with_ordinality = ordinality;
    }
    Ok(TableFactor::Derived {
        lateral: true,
        subquery: select,
        alias: Some(sqlparser::ast::TableAlias {
            name: inner_alias.name,
            columns: Vec::new(),
        }),
    })
}

/// Whether a FROM function's arguments name a column: PostgreSQL makes
/// such an item LATERAL by itself (`FROM t, unnest(t.tags)`), so they may
/// read the items before it.
fn reads_columns(args: &[FunctionArg]) -> bool {
    use sqlparser::ast::{Visit, Visitor};
    struct Named;
    impl Visitor for Named {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> std::ops::ControlFlow<()> {
            match e {
                Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
                    std::ops::ControlFlow::Break(())
                }
                _ => std::ops::ControlFlow::Continue(()),
            }
        }
    }
    args.iter().any(|a| a.visit(&mut Named).is_break())
}

/// A FROM item resolved, and its columns.
fn base(
    cx: &Ctx<'_>,
    txn: &Transaction,
    factor: &TableFactor,
    before: &Scope,
    outer: Option<crate::pushdown::Outer<'_>>,
    pushed: &mut Vec<Expr>,
    system: bool,
) -> Result<(Base, ScopeTable), SqlError> {
    let offset = before.width();
    // `LATERAL f(args) [AS a]`: the subquery `LATERAL (SELECT * FROM
    // f(args) AS a) AS a`, whose arguments may read the items before it.
    if let TableFactor::Function {
        lateral: true,
        name,
        args,
        alias,
    } = factor
    {
        let derived = lateral_function(name, args, alias.as_ref(), false)?;
        return base(cx, txn, &derived, before, None, &mut Vec::new(), false);
    }
    // `(a JOIN b ...) AS j`: the subquery `(SELECT * FROM a JOIN b ...)
    // AS j`, whose columns are the join's and which hides the names
    // inside it. (One without an alias is taken apart where it can be:
    // `push_items`.)
    if let TableFactor::NestedJoin {
        table_with_joins,
        alias: Some(alias),
    } = factor
    {
        let mut subquery =
            sqlparser::parser::Parser::new(&sqlparser::dialect::PostgreSqlDialect {})
                .try_with_sql("SELECT * FROM t")
                .and_then(|mut p| p.parse_query())
                .map_err(|e| SqlError::new("XX000", e.to_string()))?;
        if let sqlparser::ast::SetExpr::Select(s) = subquery.body.as_mut() {
            s.from = vec![(**table_with_joins).clone()];
        }
        let derived = TableFactor::Derived {
            lateral: false,
            subquery,
            alias: Some(alias.clone()),
        };
        return base(cx, txn, &derived, before, outer, pushed, system);
    }
    if let TableFactor::Derived {
        lateral,
        subquery,
        alias,
    } = factor
    {
        let Some(alias) = alias else {
            return Err(SqlError::syntax("subquery in FROM must have an alias"));
        };
        // The query's WHERE, where it may go, filters the subquery's rows.
        let with_pushed = outer
            .filter(|_| !lateral)
            .and_then(|o| crate::pushdown::into_subquery(subquery, alias, o))
            .map(|(query, taken)| {
                *pushed = taken;
                query
            });
        let subquery = with_pushed.as_ref().unwrap_or(subquery);
        // A LATERAL subquery may read the items before it.
        let (planned, outer) = match lateral {
            false => (crate::query::plan_query(cx, txn, subquery)?, Vec::new()),
            true => {
                let sub = crate::subquery::plan_subquery(cx, txn, subquery, before)?;
                (sub.plan, sub.outer)
            }
        };
        let qualifier = names::ident(&alias.name);
        let mut names: Vec<String> = planned.columns.iter().map(|c| c.name.clone()).collect();
        // (A CTE inlined here is checked so too; PostgreSQL's message
        // for it says `WITH query "x"`.)
        rename_columns(&format!("table \"{qualifier}\""), alias, &mut names)?;
        let table = ScopeTable {
            system: 0,
            domains: Vec::new(),
            collations: Vec::new(),
            row_type: None,
            uses: None,
            qualifier: qualifier.clone(),
            names,
            types: planned.types.clone(),
            offset,
        };
        return Ok((
            Base::Derived {
                label: qualifier,
                planned: Box::new(planned),
                outer,
            },
            table,
        ));
    }
    // A relation's (or a view's) row type, which a function's argument
    // may name.
    let row_type = |name: &sqlparser::ast::ObjectName| {
        let name = names::relation(name)?;
        match crate::access::relation(cx, txn, &name) {
            Ok(relation) => crate::access::row_type(&relation.def.columns),
            Err(e) => match cx.db.catalog().view(txn, &name)? {
                Some(view) => crate::access::row_type(&view.def.columns),
                None => Err(e),
            },
        }
    };
    // `unnest(array)` (the parser's own FROM item).
    if let TableFactor::UNNEST {
        alias,
        array_exprs,
        with_offset: false,
        with_ordinality,
        ..
    } = factor
    {
        let args: Vec<FunctionArg> = array_exprs
            .iter()
            .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e.clone())))
            .collect();
        let name = sqlparser::ast::ObjectName::from(vec![Ident::new("unnest")]);
        if before.width() > 0 && reads_columns(&args) {
            let derived = lateral_function(&name, &args, alias.as_ref(), *with_ordinality)?;
            return base(cx, txn, &derived, before, None, &mut Vec::new(), false);
        }
        let scan = FunctionScan::bind(&name, &args, *with_ordinality, &row_type)?;
        return function_base(scan, alias.as_ref(), None, offset);
    }
    let TableFactor::Table {
        name,
        alias,
        args,
        with_ordinality,
        sample,
        ..
    } = factor
    else {
        return Err(SqlError::unsupported(format!("the FROM item {factor}")));
    };
    let alias_name = alias.as_ref().map(|a| names::ident(&a.name));
    // A TABLESAMPLE is bound on a table (or materialized view) only.
    let sample = sample.as_ref();
    let not_sampled = || match sample {
        Some(_) => Err(crate::tablesample::not_a_table()),
        None => Ok(()),
    };
    if let Some(args) = args {
        if before.width() > 0 && reads_columns(&args.args) {
            let derived = lateral_function(name, &args.args, alias.as_ref(), *with_ordinality)?;
            return base(cx, txn, &derived, before, None, &mut Vec::new(), false);
        }
        let scan = FunctionScan::bind(name, &args.args, *with_ordinality, &row_type)?;
        let call = sqlparser::ast::Spanned::span(name).start;
        return function_base(scan, alias.as_ref(), Some(call), offset);
    }
    // `t AS a(x, y)`: the item as `t AS a`, its first columns renamed.
    if let Some(a) = alias.as_ref().filter(|a| !a.columns.is_empty()) {
        let mut bare = factor.clone();
        if let TableFactor::Table {
            alias: Some(bare_alias),
            ..
        } = &mut bare
        {
            bare_alias.columns.clear();
        }
        let (base, mut table) = base(cx, txn, &bare, before, outer, pushed, system)?;
        let what = format!("table \"{}\"", names::ident(&a.name));
        rename_columns(&what, a, &mut table.names)?;
        return Ok((base, table));
    }
    if let Some(system) = SystemRelation::lookup(name)? {
        not_sampled()?;
        let label = match &alias_name {
            Some(a) => format!("{} {a}", system.name()),
            None => system.name().to_string(),
        };
        let (columns, hidden) = crate::system_columns::system_relation_columns(system);
        let table = ScopeTable {
            system: hidden,
            domains: Vec::new(),
            collations: Vec::new(),
            row_type: None,
            uses: None,
            qualifier: alias_name.unwrap_or_else(|| system.name().to_string()),
            names: columns.iter().map(|(n, _)| n.to_string()).collect(),
            types: columns.iter().map(|(_, t)| *t).collect(),
            offset,
        };
        return Ok((
            Base::System {
                label,
                relation: system,
            },
            table,
        ));
    }
    // (A name is looked for among data-modifying and recursive CTEs only
    // while one is in scope: a plain statement pays no lookup.)
    if let [sqlparser::ast::ObjectNamePart::Identifier(id)] = name.0.as_slice()
        && !cx.produced.borrow().is_empty()
        && let Some((label, table, scope)) =
            crate::modifying_cte::reference(cx, &names::ident(id), alias.as_ref(), offset)?
    {
        not_sampled()?;
        return Ok((Base::WorkTable { label, table }, scope));
    }
    if let [sqlparser::ast::ObjectNamePart::Identifier(id)] = name.0.as_slice()
        && !cx.recursive.borrow().is_empty()
        && let Some((reference, table)) =
            crate::recursive::reference(cx, txn, &names::ident(id), alias.as_ref(), offset)?
    {
        not_sampled()?;
        let base = match reference {
            Reference::WorkTable { label, table } => Base::WorkTable { label, table },
            Reference::Union { label, planned } => Base::Derived {
                label,
                planned,
                outer: Vec::new(),
            },
        };
        return Ok((base, table));
    }
    if let [sqlparser::ast::ObjectNamePart::Identifier(id)] = name.0.as_slice()
        && id.value == crate::tablesample::SAMPLED_CTE
    {
        not_sampled()?;
    }
    let table_name = names::relation(name)?;
    let found = access::relation(cx, txn, &table_name);
    // A view (looked for only when no table has the name).
    if found.is_err()
        && let Some((factor, view)) = crate::views::factor(cx, txn, &table_name, alias.as_ref())?
    {
        not_sampled()?;
        let select = crate::privileges::SELECT;
        let count = view.def.columns.len();
        let uses =
            crate::privileges::note_view_columns(cx, (view.def.oid, count), &table_name, select);
        // What the view reads is checked with its owner's privileges, or
        // with the session role's when it is `security_invoker` (also
        // under a view that is not: PostgreSQL 15 leaves such a view's
        // relations to the current user).
        let checker = cx.checked_as.get();
        cx.checked_as.set(match view.def.flag("security_invoker") {
            true => None,
            false => Some(view.def.oid),
        });
        let barrier = view.def.flag("security_barrier");
        let outer = outer.map(|o| crate::pushdown::Outer {
            barrier: o.barrier || barrier,
            ..o
        });
        let expanded = base(cx, txn, &factor, before, outer, pushed, false);
        cx.checked_as.set(checker);
        let (base, mut table) = expanded?;
        // (Its query's types may go on with an ORDER BY's hidden keys,
        // which are no columns of it.)
        let shown = table.names.len().min(table.types.len());
        crate::views::check_shape(&view.def, &table.types[..shown])?;
        // A whole-row reference to a view is of its row type.
        table.row_type = crate::user_types::row_type_of(view.def.oid)
            .filter(|t| t.fields.len() == table.types.len());
        table.uses = Some(uses);
        return Ok((base, table));
    }
    let relation = match found {
        Ok(relation) => relation,
        // A sequence (looked for only when no table has the name).
        Err(e) => match cx.db.catalog().sequence(txn, &table_name) {
            Ok(Some(def)) => {
                not_sampled()?;
                let table = ScopeTable {
                    system: 0,
                    domains: Vec::new(),
                    collations: Vec::new(),
                    row_type: None,
                    uses: None,
                    qualifier: (alias_name.clone())
                        .unwrap_or_else(|| folio_catalog::unqualified(&table_name).to_string()),
                    names: SEQUENCE_COLUMNS
                        .iter()
                        .map(|(n, _)| n.to_string())
                        .collect(),
                    types: SEQUENCE_COLUMNS.iter().map(|(_, t)| *t).collect(),
                    offset,
                };
                let label = match &alias_name {
                    Some(a) => format!("{table_name} {a}"),
                    None => table_name,
                };
                return Ok((Base::Sequence { label, def }, table));
            }
            _ => return Err(e),
        },
    };
    // Row-level security: the table's scan is the subquery `(SELECT *
    // FROM t WHERE <policies' condition>)`, a barrier the query's own
    // conditions that call functions do not cross (README "Row-level
    // security").
    if let Some(condition) = crate::row_security::using(
        cx,
        relation.def.oid,
        &relation.def.name,
        crate::row_security::Command::Select,
    )? {
        let qualifier = alias_name
            .clone()
            .unwrap_or_else(|| folio_catalog::unqualified(&table_name).to_string());
        let derived = crate::row_security::scan_factor(factor, &qualifier, condition)?;
        let outer = outer.map(|o| crate::pushdown::Outer { barrier: true, ..o });
        cx.row_security_inside.borrow_mut().push(relation.def.oid);
        let secured = base(cx, txn, &derived, before, outer, pushed, false);
        cx.row_security_inside.borrow_mut().pop();
        let (base, mut table) = secured?;
        table.row_type = crate::user_types::row_type_of(relation.def.oid)
            .filter(|t| t.fields.len() == table.types.len());
        return Ok((base, table));
    }
    let partitioned = relation.def.partition_key().is_some();
    let inherited = !relation.def.children.is_empty() && !crate::inheritance::syntax::only(name);
    if partitioned || inherited {
        let uses = crate::privileges::note_columns(
            cx,
            &relation.def,
            &table_name,
            "table",
            crate::privileges::SELECT,
        );
        let qualifier =
            alias_name.unwrap_or_else(|| folio_catalog::unqualified(&table_name).to_string());
        // PostgreSQL checks the privileges of the table named alone, not
        // its partitions' or inheritance children's: what planning their
        // scans noted on them is dropped.
        let noted = cx.needs.borrow().len();
        // Its parts take no policies of their own: the table's, if any,
        // are around it (above).
        let planned =
            crate::row_security::as_parts_of(cx, txn, &relation.def, || match partitioned {
                true => {
                    let within = (before, outer, pushed, sample);
                    partitioned_base(cx, txn, &relation, qualifier, within, system)
                }
                false => {
                    let scans = crate::inheritance::tree::scans(cx, txn, &relation.def)?;
                    let scans: Vec<String> = scans
                        .iter()
                        .map(|n| format!("ONLY {}", written_relation(n)))
                        .collect();
                    let (read, within) = ((qualifier.as_str(), system), (outer, pushed, sample));
                    let branches = branch_queries(&relation, read, within, &scans)?;
                    union_all_base(cx, txn, branches, &relation, qualifier, offset, system)
                }
            });
        let (base, mut table) = planned?;
        // (The table itself among them: its branch reads it `ONLY`.)
        let descendants = crate::inheritance::tree::scans(cx, txn, &relation.def)?;
        let descendants: Vec<u64> = (descendants.iter())
            .filter_map(|n| cx.db.catalog().relation_oid(txn, n).ok().flatten())
            .map(|(oid, _)| oid)
            .collect();
        let mut needs = cx.needs.borrow_mut();
        let mut at = 0;
        needs.retain(|n| {
            at += 1;
            at <= noted || !descendants.contains(&n.relation)
        });
        table.uses = Some(uses);
        return Ok((base, table));
    }
    let kind = match relation.def.matview {
        Some(_) => "materialized view",
        None => "table",
    };
    let uses = crate::privileges::note_columns(
        cx,
        &relation.def,
        &table_name,
        kind,
        crate::privileges::SELECT,
    );
    // A temporary table is shown, and qualifies its columns, by its bare
    // name (`temp_tables.rs`).
    let table_name = folio_catalog::unqualified(&table_name).to_string();
    // (An alias that is the table's name is not shown, as PostgreSQL.)
    let label = match &alias_name {
        Some(a) if *a != table_name => format!("{table_name} {a}"),
        _ => table_name.clone(),
    };
    let qualifier = alias_name.unwrap_or(table_name);
    let mut table = ScopeTable::of_relation(qualifier, &relation, offset, system);
    table.uses = Some(uses);
    let sample = sample.map(crate::tablesample::Sample::bind).transpose()?;
    let base = Base::Table {
        label,
        relation,
        sample,
    };
    Ok((base, table))
}

/// Where a partitioned table stands in its FROM clause: the items
/// before it, the query around it, the conditions taken from that
/// query, and the item's TABLESAMPLE.
type Within<'a, 'b> = (
    &'a Scope,
    Option<crate::pushdown::Outer<'a>>,
    &'b mut Vec<Expr>,
    Option<&'a sqlparser::ast::TableSampleKind>,
);

/// A partitioned table in FROM (README "Partitioned tables"): the
/// partitions the WHERE's key conditions leave (`partitions/tree.rs`
/// `Tree::prune`), one scanned under the table's name, several as the
/// UNION ALL of their scans (PostgreSQL's Append), each taking the
/// WHERE's conditions it may; a TABLESAMPLE samples each.
fn partitioned_base(
    cx: &Ctx<'_>,
    txn: &Transaction,
    relation: &Arc<Relation>,
    qualifier: String,
    (before, outer, pushed, sample): Within<'_, '_>,
    system: bool,
) -> Result<(Base, ScopeTable), SqlError> {
    let offset = before.width();
    let bound = || sample.map(crate::tablesample::Sample::bind).transpose();
    let tree = crate::partitions::Tree::of(cx, txn, &relation.def)?
        .ok_or_else(|| SqlError::new("XX000", "a partitioned table without its key"))?;
    let conjuncts = (outer.as_ref())
        .and_then(|o| o.selection)
        .map(crate::pushdown::conjuncts)
        .unwrap_or_default();
    let conditions = tree.conditions(&conjuncts, &qualifier, &scalar::Env::at(cx.now()));
    let keep = tree.prune(&conditions);
    let at_start = crate::partitions::run_time::AtStart::of(&tree, conditions, &keep);
    // One partition left is read as itself, unless its columns are in
    // another order (a branch then selects them by name) or it is
    // partitioned itself (its own heap is empty: a branch reads its
    // partitions).
    let single = match keep.as_slice() {
        [one] if tree.parts[*one].map.is_none() => {
            let child = access::relation(cx, txn, &tree.parts[*one].name)?;
            child.def.partition_key().is_none().then_some((*one, child))
        }
        _ => None,
    };
    if let Some((one, child)) = single {
        let one = &one;
        let label = format!(
            "{} {qualifier}",
            folio_catalog::unqualified(&tree.parts[*one].name)
        );
        let table = ScopeTable::of_relation(qualifier, &child, offset, system);
        return Ok((
            Base::Table {
                label,
                relation: child,
                sample: bound()?,
            },
            table,
        ));
    }
    if keep.is_empty() {
        // No partition can hold a row: the table's own (empty) heap.
        let label = format!(
            "{} {qualifier}",
            folio_catalog::unqualified(&relation.def.name)
        );
        let table = ScopeTable::of_relation(qualifier, relation, offset, system);
        return Ok((
            Base::Table {
                label,
                relation: relation.clone(),
                sample: bound()?,
            },
            table,
        ));
    }
    let scans: Vec<String> = (keep.iter())
        .map(|&at| written_relation(&tree.parts[at].name))
        .collect();
    let branches = branch_queries(
        relation,
        (&qualifier, system),
        (outer, pushed, sample),
        &scans,
    )?;
    if let Some(at_start) = at_start {
        return partitions_at_start(
            cx, txn, relation, qualifier, offset, system, branches, at_start,
        );
    }
    union_all_base(cx, txn, branches, relation, qualifier, offset, system)
}

/// A relation's name as SQL text (each part quoted where needed).
fn written_relation(name: &str) -> String {
    (name.split('.'))
        .map(|p| names::written(p).to_string())
        .collect::<Vec<_>>()
        .join(".")
}

/// One query per scan in `scans` (FROM items as SQL text, each read as
/// `relation`'s columns by name, `qualifier_1`, `qualifier_2`, ...), each
/// given the WHERE's conjuncts it may take: the branches of a
/// partitioned table's or an inheritance parent's Append.
fn branch_queries(
    relation: &Arc<Relation>,
    (qualifier, system): (&str, bool),
    (outer, pushed, sample): (
        Option<crate::pushdown::Outer<'_>>,
        &mut Vec<Expr>,
        Option<&sqlparser::ast::TableSampleKind>,
    ),
    scans: &[String],
) -> Result<Vec<sqlparser::ast::Query>, SqlError> {
    let mut items: Vec<String> = (relation.def.columns.iter())
        .map(|c| names::written(&c.name).to_string())
        .collect();
    if system {
        items.extend(
            crate::system_columns::COLUMNS
                .iter()
                .map(|(n, _)| n.to_string()),
        );
    }
    let alias = sqlparser::ast::TableAlias {
        name: Ident::new(qualifier),
        columns: Vec::new(),
    };
    let mut branches: Vec<sqlparser::ast::Query> = Vec::new();
    for (n, scan) in scans.iter().enumerate() {
        let sql = format!(
            "SELECT {} FROM {} AS {}",
            items.join(", "),
            scan,
            names::written(&format!("{qualifier}_{}", n + 1))
        );
        let Some(crate::parse::Parsed::Sql(statement)) = crate::parse::statements(&sql)?.pop()
        else {
            return Err(SqlError::new("XX000", "a partition's scan"));
        };
        let sqlparser::ast::Statement::Query(mut query) = *statement else {
            return Err(SqlError::new("XX000", "a partition's scan"));
        };
        if let sqlparser::ast::SetExpr::Select(select) = query.body.as_mut()
            && let TableFactor::Table { sample: s, .. } = &mut select.from[0].relation
        {
            *s = sample.cloned();
        }
        let query = match outer.and_then(|o| {
            crate::pushdown::into_subquery(
                &query,
                &alias,
                crate::pushdown::Outer { order: None, ..o },
            )
        }) {
            Some((with_where, taken)) => {
                *pushed = taken;
                with_where
            }
            None => *query,
        };
        branches.push(query);
    }
    Ok(branches)
}

/// `branches` read as the UNION ALL of their rows, named as `relation`.
fn union_all_base(
    cx: &Ctx<'_>,
    txn: &Transaction,
    mut branches: Vec<sqlparser::ast::Query>,
    relation: &Arc<Relation>,
    qualifier: String,
    offset: usize,
    system: bool,
) -> Result<(Base, ScopeTable), SqlError> {
    let mut body = branches.remove(0).body;
    for branch in branches {
        body = Box::new(sqlparser::ast::SetExpr::SetOperation {
            op: sqlparser::ast::SetOperator::Union,
            set_quantifier: sqlparser::ast::SetQuantifier::All,
            left: body,
            right: branch.body,
        });
    }
    let query = crate::query::bare_query(*body);
    let planned = crate::query::plan_query(cx, txn, &query)?;
    Ok(partitions_base(
        planned, relation, qualifier, offset, system,
    ))
}

/// A partitioned table read as its partitions' `planned` query, named
/// as the table. (An empty label: EXPLAIN shows the Append alone, as
/// PostgreSQL's.)
fn partitions_base(
    planned: crate::query::Planned,
    relation: &Arc<Relation>,
    qualifier: String,
    offset: usize,
    system: bool,
) -> (Base, ScopeTable) {
    let mut table = ScopeTable::of_relation(qualifier, relation, offset, system);
    table.types = planned.types.clone();
    let base = Base::Derived {
        label: String::new(),
        planned: Box::new(planned),
        outer: Vec::new(),
    };
    (base, table)
}

/// [`partitioned_base`]'s partitions when parameters prune them too: the
/// branches planned one by one under a [`Source::Append`], which picks
/// those run when an execution starts.
#[allow(clippy::too_many_arguments)]
fn partitions_at_start(
    cx: &Ctx<'_>,
    txn: &Transaction,
    relation: &Arc<Relation>,
    qualifier: String,
    offset: usize,
    system: bool,
    branches: Vec<sqlparser::ast::Query>,
    at_start: crate::partitions::run_time::AtStart,
) -> Result<(Base, ScopeTable), SqlError> {
    let branches = (branches.iter())
        .map(|q| crate::query::plan_query(cx, txn, q))
        .collect::<Result<Vec<_>, _>>()?;
    let names = branches[0].columns.iter().map(|c| c.name.clone()).collect();
    let types = branches[0].types.clone();
    let planned = crate::query::over_source(
        Source::Append {
            branches,
            at_start: Box::new(at_start),
            qualifier: qualifier.clone(),
        },
        "*SELECT*",
        names,
        types,
    );
    Ok(partitions_base(
        planned, relation, qualifier, offset, system,
    ))
}

impl Source {
    /// Calls `f` on each source it reads rows from directly (itself, or
    /// the inputs of a join, set operation or append), and on those of
    /// each derived table's query (its source and subqueries), in order.
    pub fn each_leaf<'a>(&'a self, f: &mut dyn FnMut(&'a Source)) {
        match self {
            Source::Join { left, right, .. } => {
                left.each_leaf(f);
                right.each_leaf(f);
            }
            Source::SetOp { left, right, .. }
            | Source::Recursive {
                base: left,
                step: right,
                ..
            } => {
                left.each_leaf(f);
                right.each_leaf(f);
            }
            Source::Derived { planned, .. } => planned.each_leaf(f),
            Source::Append { branches, .. } => branches.iter().for_each(|b| b.each_leaf(f)),
            leaf => f(leaf),
        }
    }

    /// The relations it reads.
    pub fn relations(&self) -> Vec<&Arc<Relation>> {
        let mut out = Vec::new();
        self.each_leaf(&mut |leaf| match leaf {
            Source::Table { relation, .. } => out.push(relation),
            Source::Leaves { scans, .. } => out.extend(scans.iter().map(|(r, _, _)| r)),
            _ => {}
        });
        out
    }

    /// Notes the types its parameters take.
    pub fn param_types(&self, types: &mut [Option<SqlType>]) {
        match self {
            Source::One => {}
            Source::Function { scan, filter, .. } => {
                for arg in &scan.args {
                    arg.param_types(&[], types);
                }
                let own = scan.types();
                filter.iter().for_each(|s| s.param_types(&own, types));
            }
            Source::System {
                relation, filter, ..
            } => {
                let own: Vec<SqlType> = (crate::system_columns::system_relation_columns(*relation)
                    .0)
                    .iter()
                    .map(|(_, t)| *t)
                    .collect();
                filter.iter().for_each(|s| s.param_types(&own, types));
            }
            Source::Table { relation, plan, .. } => {
                for s in plan.index_cond.iter().chain(&plan.filter) {
                    s.param_types(&relation.types, types);
                }
            }
            Source::Derived { planned, .. } => planned.param_types(types),
            Source::Append { branches, .. } => branches.iter().for_each(|b| b.param_types(types)),
            Source::Leaves { scans, .. } => {
                for (relation, plan, reordered) in scans {
                    for s in plan.index_cond.iter().chain(&plan.filter) {
                        s.param_types(&relation.types, types);
                    }
                    if let Some(r) = reordered {
                        let own = r.map.in_parent_order(&relation.types);
                        r.filter.iter().for_each(|s| s.param_types(&own, types));
                    }
                }
            }
            Source::SetOp { left, right, .. }
            | Source::Recursive {
                base: left,
                step: right,
                ..
            } => {
                left.param_types(types);
                right.param_types(types);
            }
            Source::WorkTable { filter, .. } => {
                filter.iter().for_each(|s| s.param_types(&[], types));
            }
            Source::Sequence { filter, .. } => {
                let own: Vec<SqlType> = SEQUENCE_COLUMNS.iter().map(|(_, t)| *t).collect();
                filter.iter().for_each(|s| s.param_types(&own, types));
            }
            Source::Join {
                left,
                right,
                condition,
                filter,
                ..
            } => {
                left.param_types(types);
                right.param_types(types);
                // (Join conditions read the query's row; its types are not
                // at hand here, so only typed parameters are noted.)
                for s in condition.iter().chain(filter) {
                    s.param_types(&[], types);
                }
            }
        }
    }

    /// Its rows (the query's row prefix it covers).
    pub fn rows(
        &self,
        txn: &mut Transaction,
        env: &Env<'_>,
        counts: &mut SourceCounts,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let mut scanned = ScanCounts::default();
        let rows = self.produce(txn, env, counts, &mut scanned)?;
        counts.note(self, (rows.len() as u64, scanned));
        Ok(rows)
    }

    /// Its rows handed to `sink` one at a time: a table's scan hands each
    /// on as it reads it, so nothing is held (other sources produce their
    /// rows first). Counted as [`Source::rows`] counts them; returns how
    /// many there were.
    pub fn visit(
        &self,
        txn: &mut Transaction,
        env: &Env<'_>,
        counts: &mut SourceCounts,
        mut sink: impl FnMut(&[Value]) -> Result<(), SqlError>,
    ) -> Result<u64, SqlError> {
        let mut scanned = ScanCounts::default();
        let mut rows = 0u64;
        let mut counted = |row: &[Value]| {
            rows += 1;
            sink(row)
        };
        match self {
            Source::Table {
                relation,
                plan,
                lock: None,
                tid: false,
                ..
            } => scanned = scan::run_into(txn, relation, plan, env, |_, row| counted(row))?,
            Source::Join { right, .. } if !right.lateral() => {
                self.join_into(txn, env, counts, &mut counted)?
            }
            _ => {
                for row in self.produce(txn, env, counts, &mut scanned)? {
                    counted(&row)?;
                }
            }
        }
        counts.note(self, (rows, scanned));
        Ok(rows)
    }

    fn produce(
        &self,
        txn: &mut Transaction,
        env: &Env<'_>,
        counts: &mut SourceCounts,
        scanned: &mut ScanCounts,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        Ok(match self {
            Source::One => vec![Vec::new()],
            Source::Function {
                scan,
                filter,
                limit,
            } => {
                let limit = crate::counts::Stop::rows(limit.as_ref(), env)?;
                scan.rows(txn, env, limit, |row| scan::accepts(filter, row, env))?
            }
            Source::System {
                relation,
                catalog,
                filter,
                ..
            } => {
                let mut rows = relation.rows(catalog, txn)?;
                crate::system_columns::append_system_relation(*relation, &mut rows);
                kept(rows, filter, env)?
            }
            Source::Derived {
                planned, filter, ..
            } => kept(crate::query::run(txn, planned, env)?.0, filter, env)?,
            Source::Append {
                branches, at_start, ..
            } => {
                let mut rows = Vec::new();
                for n in at_start.branches(env) {
                    rows.extend(crate::query::run(txn, &branches[n], env)?.0);
                }
                rows
            }
            Source::Leaves { scans, .. } => {
                let mut rows = Vec::new();
                for (relation, plan, reordered) in scans {
                    let (found, _) = scan::run(txn, relation, plan, env)?;
                    for (tid, row) in found {
                        let tid = tid.expect("a plan reading every column has tuple ids");
                        let mut row = match reordered {
                            None => row,
                            Some(r) => {
                                let row = crate::partitions::column_map::up(Some(&r.map), row);
                                if !scan::accepts(&r.filter, &row, env)? {
                                    continue;
                                }
                                row
                            }
                        };
                        row.push(leaf_tid_value(relation.def.oid, tid));
                        rows.push(row);
                    }
                }
                rows
            }
            Source::Recursive {
                all,
                base,
                step,
                table,
                limit,
                budget,
            } => {
                let limit = crate::counts::Stop::rows(limit.as_ref(), env)?;
                crate::recursive::run(txn, env, (*all, limit, budget), (base, step), table)?
            }
            Source::WorkTable { table, filter, .. } => kept(table.rows(), filter, env)?,
            Source::Sequence {
                def,
                catalog,
                filter,
                ..
            } => {
                let (last, covered, called) = catalog.sequence_state(def)?;
                let row = vec![
                    Value::Int8(last),
                    Value::Int8(i64::from(covered)),
                    Value::Bool(called),
                ];
                kept(vec![row], filter, env)?
            }
            Source::SetOp {
                op,
                all,
                left,
                right,
                types,
            } => {
                let mut conformed = |input: &crate::query::Planned| -> Result<_, SqlError> {
                    let mut rows = crate::query::run(txn, input, env)?.0;
                    let casts: Vec<(usize, SqlType, SqlType)> = (input.types.iter().zip(types))
                        .enumerate()
                        .filter(|(_, (own, common))| own != common)
                        .map(|(i, (own, common))| (i, *own, *common))
                        .collect();
                    if !casts.is_empty() {
                        for row in &mut rows {
                            for &(i, own, ty) in &casts {
                                let mut value = std::mem::replace(&mut row[i], Value::Null);
                                // A `char(n)` becoming text or varchar
                                // drops its padding, as its cast does.
                                if matches!(own, SqlType::Char(_))
                                    && matches!(ty, SqlType::Text | SqlType::Varchar(_))
                                {
                                    value = crate::types::char_to_text(value);
                                }
                                row[i] = crate::types::cast(value, ty)?;
                            }
                        }
                    }
                    Ok(rows)
                };
                op.combine(conformed(left)?, conformed(right)?, *all)
            }
            Source::Table {
                relation,
                plan,
                lock,
                tid,
                ..
            } => {
                let (found, scan_counts) = scan::run(txn, relation, plan, env)?;
                *scanned = scan_counts;
                match lock {
                    None if *tid => found
                        .into_iter()
                        .map(|(tid, mut row)| {
                            let tid = tid.expect("a plan reading every column has tuple ids");
                            row.push(tid_value(tid));
                            row
                        })
                        .collect(),
                    None => found.into_iter().map(|(_, row)| row).collect(),
                    Some(lock) => scan::lock_rows(txn, relation, plan, lock, found, env)?,
                }
            }
            Source::Join {
                kind,
                left,
                right,
                right_width,
                condition,
                filter,
                ..
            } if right.lateral() => {
                let left_rows = left.rows(txn, env, counts)?;
                let Source::Derived { outer, .. } = right.as_ref() else {
                    unreachable!("only a derived table is LATERAL")
                };
                lateral_join(
                    (txn, env, counts),
                    (&left_rows, right, outer),
                    kind.keeps_left(),
                    *right_width,
                    condition,
                    filter,
                )?
            }
            Source::Join { .. } => {
                let mut out = Vec::new();
                self.join_into(txn, env, counts, &mut |row| {
                    out.push(row.to_vec());
                    Ok(())
                })?;
                out
            }
        })
    }
}

impl Source {
    /// A LATERAL subquery, run once per left row of its join.
    fn lateral(&self) -> bool {
        matches!(self, Source::Derived { outer, .. } if !outer.is_empty())
    }

    /// A join's rows handed to `sink` one at a time, in one row reused:
    /// the right side is read first and held (hashed by its keys, or
    /// looped over), then the left side streams past it
    /// ([`Source::visit`]: a table's rows are never held).
    fn join_into(
        &self,
        txn: &mut Transaction,
        env: &Env<'_>,
        counts: &mut SourceCounts,
        sink: &mut dyn FnMut(&[Value]) -> Result<(), SqlError>,
    ) -> Result<(), SqlError> {
        let Source::Join {
            kind,
            left,
            right,
            right_width,
            right_offset,
            method,
            condition,
            filter,
        } = self
        else {
            unreachable!("join_into runs joins")
        };
        let right_rows = right.rows(txn, env, counts)?;
        let table = match method {
            Method::Hash { right_keys, .. } => {
                let mut table: KeyMap<Vec<usize>> = KeyMap::default();
                for (i, r) in right_rows.iter().enumerate() {
                    crate::interrupt::every(txn, i as u64 + 1)?;
                    if let Some(k) = hash_of(right_keys, r, env)? {
                        table.entry(k).or_default().push(i);
                    }
                }
                Some(table)
            }
            Method::NestedLoop => None,
        };
        // Which right rows met a left row (RIGHT and FULL emit the others
        // NULL-extended at the end).
        let mut right_matched = vec![false; right_rows.len()];
        let mut row: Vec<Value> = Vec::new();
        let mut emit = |row: &[Value]| match scan::accepts(filter, row, env)? {
            true => sink(row),
            false => Ok(()),
        };
        let interrupt = txn.interrupt();
        left.visit(txn, env, counts, |l| {
            if let Some(interrupt) = &interrupt {
                interrupt.check()?;
            }
            let candidates: Box<dyn Iterator<Item = usize>> = match (method, &table) {
                (Method::Hash { left_keys, .. }, Some(table)) => {
                    match hash_of(left_keys, l, env)?.and_then(|k| table.get(&k)) {
                        Some(found) => Box::new(found.iter().copied()),
                        None => Box::new(std::iter::empty()),
                    }
                }
                _ => Box::new(0..right_rows.len()),
            };
            let mut matched = false;
            for i in candidates {
                row.clear();
                row.extend_from_slice(l);
                row.extend_from_slice(&right_rows[i]);
                if scan::accepts(condition, &row, env)? {
                    matched = true;
                    right_matched[i] = true;
                    emit(&row)?;
                }
            }
            if !matched && kind.keeps_left() {
                row.clear();
                row.extend_from_slice(l);
                row.resize(l.len() + right_width, Value::Null);
                emit(&row)?;
            }
            Ok(())
        })?;
        if kind.keeps_right() {
            for (r, _) in right_rows.iter().zip(&right_matched).filter(|(_, m)| !**m) {
                row.clear();
                row.resize(*right_offset, Value::Null);
                row.extend_from_slice(r);
                emit(&row)?;
            }
        }
        Ok(())
    }
}

/// A join whose right item is a LATERAL subquery: the subquery runs once
/// per left row, reading its `outer` columns (a nested loop; `left`: a
/// LEFT JOIN keeps a left row no right row met, NULL-extended).
fn lateral_join(
    (txn, env, counts): (&mut Transaction, &Env<'_>, &mut SourceCounts),
    (left_rows, right, outer): (&[Vec<Value>], &Source, &[crate::subquery::OuterValue]),
    left: bool,
    right_width: usize,
    condition: &[Scalar],
    filter: &[Scalar],
) -> Result<Vec<Vec<Value>>, SqlError> {
    let mut out = Vec::new();
    for l in left_rows {
        txn.check_interrupt()?;
        let values = crate::subquery::outer_values(outer, l, env);
        let per_row = Env {
            outer: &values,
            ..*env
        };
        let mut matched = false;
        let mut rows: Vec<Vec<Value>> = Vec::new();
        for r in right.rows(txn, &per_row, counts)? {
            let row: Vec<Value> = l.iter().chain(&r).cloned().collect();
            if scan::accepts(condition, &row, env)? {
                matched = true;
                rows.push(row);
            }
        }
        if !matched && left {
            rows.push(
                l.iter()
                    .cloned()
                    .chain(vec![Value::Null; right_width])
                    .collect(),
            );
        }
        for row in rows {
            if scan::accepts(filter, &row, env)? {
                out.push(row);
            }
        }
    }
    Ok(out)
}

/// A function in FROM and its columns: named after the function and
/// `ordinality`, or by its alias (`f(...) AS a` names the value column
/// `a`; `AS a(x, n)` names them all).
fn function_base(
    scan: FunctionScan,
    alias: Option<&sqlparser::ast::TableAlias>,
    call: Option<sqlparser::tokenizer::Location>,
    offset: usize,
) -> Result<(Base, ScopeTable), SqlError> {
    let scan = scan.define(alias, call)?;
    // A select list's calls (`project_set.rs`) give their columns as one
    // record each.
    let scan = match alias.is_some_and(|a| crate::project_set::is_label(&a.name.value)) {
        true => scan.packed(),
        false => scan,
    };
    let types = scan.types();
    let mut names = scan.column_names();
    match alias {
        Some(a) if a.columns.is_empty() && scan.named_by_alias() => {
            names[0] = names::ident(&a.name)
        }
        Some(a) if a.columns.is_empty() => {}
        Some(a) => rename_columns(
            &format!("table \"{}\"", names::ident(&a.name)),
            a,
            &mut names,
        )?,
        None => {}
    }
    let table = ScopeTable {
        system: 0,
        domains: Vec::new(),
        collations: Vec::new(),
        row_type: None,
        uses: None,
        qualifier: alias.map_or_else(|| scan.name(), |a| names::ident(&a.name)),
        names,
        types,
        offset,
    };
    Ok((Base::Function(scan), table))
}

/// An alias's column list (`AS a(x, y)`) over a FROM item's column
/// names: the first names replaced, the rest kept; more names than
/// columns is PostgreSQL's 42P10, `what` naming the item (`table "a"`,
/// `WITH query "w"`).
pub(crate) fn rename_columns(
    what: &str,
    alias: &sqlparser::ast::TableAlias,
    names: &mut [String],
) -> Result<(), SqlError> {
    if alias.columns.len() > names.len() {
        return Err(SqlError::new(
            "42P10",
            format!(
                "{what} has {} columns available but {} columns specified",
                names.len(),
                alias.columns.len()
            ),
        ));
    }
    for (name, renamed) in names.iter_mut().zip(&alias.columns) {
        *name = names::ident(&renamed.name);
    }
    Ok(())
}

/// The rows `filter` accepts.
fn kept(
    rows: Vec<Vec<Value>>,
    filter: &[Scalar],
    env: &Env<'_>,
) -> Result<Vec<Vec<Value>>, SqlError> {
    if filter.is_empty() {
        return Ok(rows);
    }
    let mut kept = Vec::with_capacity(rows.len());
    for row in rows {
        if scan::accepts(filter, &row, env)? {
            kept.push(row);
        }
    }
    Ok(kept)
}

/// A row's hash key: the key values, integers widened and numerics
/// normalised so equal values hash equal; `None` if one is NULL (NULL
/// equals nothing).
pub(crate) fn hash_of(
    keys: &[Scalar],
    row: &[Value],
    env: &Env<'_>,
) -> Result<Option<Vec<u8>>, SqlError> {
    let mut out = Vec::with_capacity(16 * keys.len());
    for k in keys {
        // Integers of any width meet as bigints ([`hash_key`] pairs only
        // keys of one type or two integers); the bytes are the grouping
        // rule's, so 0 meets -0 and '1 mon' meets '30 days'.
        let v = match k.eval(row, env)? {
            Value::Null => return Ok(None),
            Value::Int2(x) => Value::Int8(x.into()),
            Value::Int4(x) => Value::Int8(x.into()),
            v => v,
        };
        folio_row::hash_key(std::slice::from_ref(&v), &mut out);
    }
    Ok(Some(out))
}
