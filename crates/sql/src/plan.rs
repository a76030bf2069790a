//! The access path of one table (the one owner of that choice): which
//! index, which key ranges in which order, index-only or not, or a
//! sequential scan; what is left to filter and to sort.
//!
//! A WHERE clause is split into its conjuncts. `column op constant`
//! (`=`, `<`, `<=`, `>`, `>=`, `BETWEEN`) and `column IN (constants)`
//! whose constants are exact values of the column's type are *index
//! conditions*; the rest is a filter. An index is usable through its
//! leading columns: equality or IN on a prefix of them, then a range on
//! the next one. The key ranges are the prefixes' encodings (every IN
//! value of every column: the cross product), each visited in index
//! order (reverse for a backward scan), as PostgreSQL probes an IN list.
//! An index's expression key (`lower(name)`) is matched as a column
//! ([`Keyed`]); a partial index is a candidate only when the WHERE clause
//! implies its predicate (`index_exprs::implied`).
//! A plan holds the conditions' value expressions (constants, or
//! parameters typed by their column); the key ranges are computed from
//! them when the plan runs ([`Access::key_ranges`]), so a prepared
//! statement's plan serves every execution.
//!
//! The index is chosen by rules: a unique index matched by equality on
//! all its columns first (a point lookup), then the index matching the
//! most leading columns (a range counts half a column), then one that
//! yields the ORDER BY without a sort; else a sequential scan, or, with
//! `enable_seqscan = off`, the smallest index scanned whole. An index scan
//! becomes index-only when every column the query reads is a key column.
//! Once ANALYZE has gathered the table's statistics, the chosen index
//! scan must also cost less than a sequential scan (`cost.rs`: a
//! condition matching most of the table reads it whole instead), unless
//! it is a point lookup or yields the ORDER BY.

use crate::cost;
use crate::error::SqlError;
use crate::index_exprs::{self, Compiled};
use crate::scalar::{Cmp, Env, Scalar, compare};
use crate::settings::Settings;
use crate::types;
use folio_btree::{Direction, prefix_successor};
use folio_catalog::{IndexDef, Relation};
use folio_row::{SqlType, Value, encode_key};
use std::cmp::Ordering;
use std::ops::Bound;

/// Most key ranges an IN list may expand to; past it the conditions are
/// a filter.
const MAX_PROBES: usize = 10_000;

/// One `ORDER BY` key over a table column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortKey {
    pub column: usize,
    pub descending: bool,
    pub nulls_first: bool,
}

impl SortKey {
    /// The key on `column` an ORDER BY item's options ask for: ascending
    /// unless `DESC`, NULLs last when ascending and first when descending
    /// unless `NULLS FIRST/LAST` says (PostgreSQL's defaults).
    pub fn of(column: usize, options: &sqlparser::ast::OrderByOptions) -> SortKey {
        let descending = options.asc == Some(false);
        SortKey {
            column,
            descending,
            nulls_first: options.nulls_first.unwrap_or(descending),
        }
    }
}

/// Encoded key bounds: rows whose key lies within `[lower, upper)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    pub lower: Bound<Vec<u8>>,
    pub upper: Bound<Vec<u8>>,
    /// The range holds the entries of one whole key (every key column
    /// equal to a value), which `lower` includes: an index-only scan of it
    /// is a lookup (`Relation::index_only_get`).
    pub whole_key: bool,
}

impl KeyRange {
    /// The entries of one whole key (encoded): every key column equal to
    /// a value.
    pub fn whole(key: Vec<u8>) -> KeyRange {
        KeyRange {
            upper: after(&key),
            lower: Bound::Included(key),
            whole_key: true,
        }
    }

    pub fn bounds(&self) -> (Bound<&[u8]>, Bound<&[u8]>) {
        (
            self.lower.as_ref().map(Vec::as_slice),
            self.upper.as_ref().map(Vec::as_slice),
        )
    }
}

/// How the rows are found.
#[derive(Debug, Clone, PartialEq)]
pub enum Access {
    Seq,
    Index {
        index: usize,
        /// Per leading key column with an equality or IN: its values.
        probes: Vec<Vec<Scalar>>,
        /// Range conditions on the next key column.
        range: Vec<(Cmp, Scalar)>,
        direction: Direction,
        /// Every column read is a key column: the heap is read only where
        /// the visibility map does not say all-visible.
        only: bool,
        /// A unique index with one value for each of its columns: one
        /// leaf probed, no scan.
        point: bool,
    },
}

/// The key ranges of an index access, computed when it runs.
pub enum Keys {
    /// A point lookup's key values.
    Point(Vec<Value>),
    /// One whole key of an index that is not unique, encoded: its entries
    /// ([`KeyRange::whole`]), which an index-only scan looks up.
    Key(Vec<u8>),
    /// Ranges in the order to visit them.
    Ranges(Vec<KeyRange>),
}

impl Access {
    /// The keys an index access visits, from its conditions' values:
    /// each column's values in index order without repeats (NULLs match
    /// nothing), every combination, then the range of the next column.
    pub fn key_ranges(&self, relation: &Relation, env: &Env<'_>) -> Result<Keys, SqlError> {
        let Access::Index {
            index,
            probes,
            range,
            direction,
            point,
            ..
        } = self
        else {
            return Ok(Keys::Ranges(Vec::new()));
        };
        let ri = &relation.indexes[*index];
        let mut combinations = if probes.iter().all(|items| items.len() == 1) {
            // An equality on each column, the common case (a cached point
            // query's plan runs this on every execution): one combination,
            // built without the sets; on every key column, one key.
            let mut values = Vec::with_capacity(probes.len());
            for (items, kc) in probes.iter().zip(&ri.key_columns) {
                match fitted(items[0].eval(&[], env)?, kc.ty)? {
                    Value::Null => return Ok(Keys::Ranges(Vec::new())),
                    v => values.push(v),
                }
            }
            match (*point, probes.len() == ri.key_columns.len()) {
                (true, _) => return Ok(Keys::Point(values)),
                (false, true) => return Ok(Keys::Key(encode_key(&values, &ri.key_columns)?)),
                (false, false) => vec![values],
            }
        } else {
            cross_product(&value_sets(probes, &ri.key_columns, env)?)
        };
        if *point {
            // One combination exactly when every column has one value.
            return Ok(match (combinations.pop(), combinations.is_empty()) {
                (Some(key), true) => Keys::Point(key),
                _ => Keys::Ranges(Vec::new()),
            });
        }
        let next = ri.key_columns.get(probes.len()).copied();
        let mut conditions = Vec::with_capacity(range.len());
        for (cmp, item) in range {
            let Some(kc) = next else { break };
            match fitted(item.eval(&[], env)?, kc.ty)? {
                // A comparison with NULL is never true.
                Value::Null => return Ok(Keys::Ranges(Vec::new())),
                v => conditions.push((*cmp, v)),
            }
        }
        let mut ranges = Vec::with_capacity(combinations.len());
        for prefix in combinations {
            let p = encode_key(&prefix, &ri.key_columns[..probes.len()])?;
            ranges.push(key_range(p, &conditions, next)?);
        }
        // Ranges in index order; a backward scan visits them in reverse.
        ranges.sort_by(|a, b| lower_bytes(a).cmp(lower_bytes(b)));
        if *direction == Direction::Backward {
            ranges.reverse();
        }
        Ok(Keys::Ranges(ranges))
    }
}

/// A condition's value as the key column's type (exact by the planner's
/// choice: constants were checked, parameters are typed by the column).
fn fitted(value: Value, ty: folio_row::SqlType) -> Result<Value, SqlError> {
    match value {
        Value::Null => Ok(Value::Null),
        v => types::coerce(v, ty),
    }
}

/// A table's plan.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanPlan {
    pub access: Access,
    /// The conjuncts the index answers exactly (for EXPLAIN).
    pub index_cond: Vec<Scalar>,
    /// The conjuncts every row found is checked against.
    pub filter: Vec<Scalar>,
    /// The ORDER BY still to do after the scan (empty: none, or the scan
    /// yields it).
    pub sort: Vec<SortKey>,
    /// The most rows anyone needs from the scan: a LIMIT (plus OFFSET)
    /// pushed into it when nothing after it filters, sorts, groups or
    /// locks (`query.rs`); the scan stops there.
    pub limit: Option<crate::counts::Stop>,
    /// The columns the query reads, the only ones the scan decodes (the
    /// others are NULL in the rows it yields); `None`: every column (a
    /// locking scan, a row change).
    pub reads: Option<Vec<usize>>,
    /// Each row carries the table's system columns after its own
    /// (`system_columns.rs`).
    pub system: bool,
    /// The rows a TABLESAMPLE keeps (`tablesample.rs`; a sequential
    /// scan).
    pub sample: Option<Box<crate::tablesample::Sample>>,
}

/// A conjunct an index can answer: a column compared with values known
/// when the plan runs.
#[derive(Debug, Clone)]
enum Sarg {
    Cmp(usize, Cmp, Scalar),
    In(usize, Vec<Scalar>),
}

/// What a query asks of its table.
pub struct Request<'a> {
    pub relation: &'a Relation,
    pub filter: Vec<Scalar>,
    pub order: Vec<SortKey>,
    /// The columns read (projection, filter, order); `None`: all.
    pub reads: Option<Vec<usize>>,
    /// The rows carry the system columns (`ScanPlan::system`).
    pub system: bool,
    pub sample: Option<crate::tablesample::Sample>,
    pub settings: &'a Settings,
}

/// Chooses the access path.
pub fn plan(mut request: Request<'_>) -> Result<ScanPlan, SqlError> {
    let relation = request.relation;
    // The system columns are not decoded: the scan appends them.
    let width = relation.types.len();
    if let Some(reads) = &mut request.reads {
        reads.retain(|&c| c < width);
    }
    let keyed = Keyed::of(relation, &request.filter)?;
    let sargs: Vec<Option<Sarg>> = (request.filter.iter()).map(|c| sarg(&keyed, c)).collect();
    let settings = request.settings;
    let index_scans = settings.enabled("enable_indexscan");
    let only_scans = settings.enabled("enable_indexonlyscan");
    let mut best: Option<(Rank, Candidate)> = None;
    for (i, ri) in relation.indexes.iter().enumerate() {
        let Some(key_cols) = &keyed.columns[i] else {
            continue;
        };
        // Every column read is in the key, and its key gives back the
        // value stored (not a numeric's or an interval's); an
        // expression's key gives back no column.
        let covers = request.reads.as_ref().is_some_and(|reads| {
            reads
                .iter()
                .all(|c| ri.def.columns.iter().any(|k| usize::from(*k) == *c))
        }) && ri.key_columns.iter().all(|k| k.ty.key_decodes_exactly())
            && !ri.def.columns.contains(&IndexDef::EXPRESSION);
        let only = covers && only_scans && !request.system;
        if !only && !index_scans {
            continue;
        }
        let Some(candidate) = candidate(relation, i, key_cols, &sargs, &request.order, only)?
        else {
            continue;
        };
        let rank = candidate.rank(ri.def.unique, ri.def.columns.len());
        if best.as_ref().is_none_or(|(r, _)| rank > *r) {
            best = Some((rank, candidate));
        }
    }
    let best = best.filter(|(rank, _)| {
        rank.matched > 0 || rank.ordered || !settings.enabled("enable_seqscan")
    });
    let best = best.filter(|(rank, c)| worth_it(&request, rank, c));
    // (A sample is taken from the table's blocks in order.)
    let best = best.filter(|_| request.sample.is_none());
    Ok(match best {
        Some((_, c)) => ScanPlan {
            index_cond: c.used.iter().map(|&i| request.filter[i].clone()).collect(),
            // (A partial index's rows all meet its predicate: the
            // conjuncts it guarantees are not checked again.)
            filter: request
                .filter
                .iter()
                .enumerate()
                .filter(|(i, _)| !c.used.contains(i) && !keyed.guaranteed[c.index()].contains(i))
                .map(|(_, f)| f.clone())
                .collect(),
            sort: if c.ordered { Vec::new() } else { request.order },
            access: c.access,
            limit: None,
            reads: request.reads,
            system: request.system,
            sample: None,
        },
        None => ScanPlan {
            access: Access::Seq,
            index_cond: Vec::new(),
            filter: request.filter,
            sort: request.order,
            limit: None,
            reads: request.reads,
            system: request.system,
            sample: request.sample.map(Box::new),
        },
    })
}

/// Whether the index access chosen by rank costs less than reading the
/// whole table, by the table's statistics (`cost.rs`). Without
/// statistics, with `enable_seqscan = off`, for a point lookup, or when
/// the index yields the ORDER BY asked for (a LIMIT may stop it early;
/// folio's plans do not know the LIMIT), the index is kept.
fn worth_it(request: &Request<'_>, rank: &Rank, c: &Candidate) -> bool {
    // (A point lookup, the common plan, asks for no statistics.)
    if rank.point
        || !request.settings.enabled("enable_seqscan")
        || (c.ordered && !request.order.is_empty())
    {
        return true;
    }
    let Some(stats) = request.relation.statistics() else {
        return true;
    };
    let Access::Index { index, .. } = &c.access else {
        return true;
    };
    let selectivity: f64 = c
        .used
        .iter()
        .map(|&i| cost::selectivity(&stats, &request.filter[i]))
        .product();
    let leading = request.relation.indexes[*index]
        .def
        .columns
        .first()
        .map_or(0, |&k| usize::from(k));
    let correlation = cost::correlation(&stats, leading);
    let quals = request.filter.len();
    cost::index_scan(&stats, selectivity, correlation, quals, c.only)
        < cost::seq_scan(&stats, quals)
}

/// How good an index's use is (compared field by field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Rank {
    point: bool,
    /// Twice the leading columns matched by equality or IN, plus one for
    /// a range on the next.
    matched: usize,
    ordered: bool,
    only: bool,
    /// Fewer key columns first (a smaller index).
    narrow: std::cmp::Reverse<usize>,
}

struct Candidate {
    access: Access,
    used: Vec<usize>,
    equal: usize,
    range: bool,
    ordered: bool,
    only: bool,
    single_probes: bool,
}

impl Candidate {
    /// The index it uses.
    fn index(&self) -> usize {
        match self.access {
            Access::Index { index, .. } => index,
            Access::Seq => unreachable!("a candidate scans an index"),
        }
    }

    fn rank(&self, unique: bool, columns: usize) -> Rank {
        Rank {
            point: unique && self.equal == columns && self.single_probes,
            matched: 2 * self.equal + usize::from(self.range),
            ordered: self.ordered,
            only: self.only,
            narrow: std::cmp::Reverse(columns),
        }
    }
}

/// The use of index `i`: its key ranges, the conjuncts they answer,
/// whether it yields the order.
fn candidate(
    relation: &Relation,
    i: usize,
    key_cols: &[usize],
    sargs: &[Option<Sarg>],
    order: &[SortKey],
    only: bool,
) -> Result<Option<Candidate>, SqlError> {
    let ri = &relation.indexes[i];
    let mut used = Vec::new();
    // Equality or IN on leading columns.
    let mut probes: Vec<Vec<Scalar>> = Vec::new();
    let mut combinations = 1usize;
    for &col in key_cols {
        let found = sargs.iter().enumerate().find_map(|(n, s)| match s {
            Some(Sarg::Cmp(c, Cmp::Eq, v)) if *c == col => Some((n, vec![v.clone()])),
            Some(Sarg::In(c, vs)) if *c == col => Some((n, vs.clone())),
            _ => None,
        });
        let Some((n, values)) = found else { break };
        combinations = combinations.saturating_mul(values.len());
        if combinations > MAX_PROBES {
            break;
        }
        used.push(n);
        probes.push(values);
    }
    let equal = probes.len();
    // A range on the next column.
    let mut range: Vec<(Cmp, Scalar)> = Vec::new();
    if let Some(&col) = key_cols.get(equal) {
        for (n, s) in sargs.iter().enumerate() {
            if let Some(Sarg::Cmp(c, cmp, v)) = s
                && *c == col
                && *cmp != Cmp::Eq
                && *cmp != Cmp::Ne
            {
                used.push(n);
                range.push((*cmp, v.clone()));
            }
        }
    }
    let single_probes = probes.iter().all(|s| s.len() == 1);
    let (ordered, direction) = yields_order(relation, i, &probes, order);
    let point = ri.def.unique && equal == key_cols.len() && single_probes;
    Ok(Some(Candidate {
        access: Access::Index {
            index: i,
            probes,
            range: range.clone(),
            direction,
            only,
            point,
        },
        used,
        equal,
        range: !range.is_empty(),
        ordered,
        only,
        single_probes,
    }))
}

fn lower_bytes(range: &KeyRange) -> &[u8] {
    match &range.lower {
        Bound::Included(b) | Bound::Excluded(b) => b,
        Bound::Unbounded => &[],
    }
}

/// Each probed column's values, in index order without repeats; NULLs
/// match nothing and are left out.
fn value_sets(
    probes: &[Vec<Scalar>],
    key_columns: &[folio_row::KeyColumn],
    env: &Env<'_>,
) -> Result<Vec<Vec<Value>>, SqlError> {
    let mut sets = Vec::with_capacity(probes.len());
    for (items, kc) in probes.iter().zip(key_columns) {
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            let v = fitted(item.eval(&[], env)?, kc.ty)?;
            if v != Value::Null {
                values.push(v);
            }
        }
        values.sort_by(|a, b| {
            let order = compare(a, b).ok().flatten().unwrap_or(Ordering::Equal);
            if kc.descending {
                order.reverse()
            } else {
                order
            }
        });
        values.dedup_by(|a, b| compare(a, b).ok().flatten() == Some(Ordering::Equal));
        sets.push(values);
    }
    Ok(sets)
}

/// Every combination of one value per set, in index order.
fn cross_product(sets: &[Vec<Value>]) -> Vec<Vec<Value>> {
    let mut out = vec![Vec::new()];
    for set in sets {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                set.iter().map(move |v| {
                    let mut next = prefix.clone();
                    next.push(v.clone());
                    next
                })
            })
            .collect();
    }
    out
}

/// The keys starting with prefix `p` whose next column satisfies the
/// range conditions (none: every key starting with `p`).
fn key_range(
    p: Vec<u8>,
    conditions: &[(Cmp, Value)],
    next: Option<folio_row::KeyColumn>,
) -> Result<KeyRange, SqlError> {
    let (Some(kc), false) = (next, conditions.is_empty()) else {
        if next.is_none() && !p.is_empty() {
            return Ok(KeyRange::whole(p));
        }
        let upper = after(&p);
        let lower = if p.is_empty() {
            Bound::Unbounded
        } else {
            Bound::Included(p)
        };
        return Ok(KeyRange {
            lower,
            upper,
            whole_key: false,
        });
    };
    let p = p.as_slice();
    // Non-null values of the next column lie in [p + 0x01, p + 0x02)
    // (folio-row's null marker), whatever NULLS FIRST/LAST says.
    let mut lower = [p, &[0x01]].concat();
    let mut upper = Bound::Excluded([p, &[0x02]].concat());
    for (cmp, v) in conditions {
        let e = encode_key(std::slice::from_ref(v), std::slice::from_ref(&kc))?;
        let e = [p, &e].concat();
        // In key order (a descending column inverts the comparison).
        let cmp = if kc.descending { cmp.flipped() } else { *cmp };
        let (lo, hi) = match cmp {
            Cmp::Gt => (after_included(&e), None),
            Cmp::Ge => (Some(e.clone()), None),
            Cmp::Lt => (None, Some(Bound::Excluded(e.clone()))),
            Cmp::Le => (None, Some(after(&e))),
            Cmp::Eq | Cmp::Ne => unreachable!("ranges only"),
        };
        if let Some(lo) = lo
            && lo > lower
        {
            lower = lo;
        }
        if let Some(hi) = hi
            && tighter(&hi, &upper)
        {
            upper = hi;
        }
    }
    Ok(KeyRange {
        lower: Bound::Included(lower),
        upper,
        whole_key: false,
    })
}

/// The upper bound of the keys starting with `bytes`.
fn after(bytes: &[u8]) -> Bound<Vec<u8>> {
    match prefix_successor(bytes) {
        Some(s) => Bound::Excluded(s),
        None => Bound::Unbounded,
    }
}

/// The smallest key greater than every key starting with `e`.
fn after_included(e: &[u8]) -> Option<Vec<u8>> {
    Some(prefix_successor(e).unwrap_or_else(|| vec![0xFF; e.len() + 1]))
}

fn tighter(a: &Bound<Vec<u8>>, b: &Bound<Vec<u8>>) -> bool {
    match (a, b) {
        (Bound::Excluded(x), Bound::Excluded(y)) => x < y,
        (Bound::Excluded(_), Bound::Unbounded) => true,
        _ => false,
    }
}

/// Whether scanning index `i` (probing `sets` in index order) yields
/// `order`, and in which direction.
fn yields_order(
    relation: &Relation,
    i: usize,
    sets: &[Vec<Scalar>],
    order: &[SortKey],
) -> (bool, Direction) {
    if order.is_empty() {
        return (false, Direction::Forward);
    }
    let ri = &relation.indexes[i];
    let mut position = 0;
    let mut backward = None;
    for key in order {
        // Columns fixed to one value do not change the order.
        while position < ri.def.columns.len()
            && usize::from(ri.def.columns[position]) != key.column
            && sets.get(position).is_some_and(|s| s.len() == 1)
        {
            position += 1;
        }
        if position == ri.def.columns.len() || usize::from(ri.def.columns[position]) != key.column {
            return (false, Direction::Forward);
        }
        let kc = ri.key_columns[position];
        let flip = key.descending != kc.descending;
        if key.nulls_first != (kc.nulls_first != flip) || *backward.get_or_insert(flip) != flip {
            return (false, Direction::Forward);
        }
        position += 1;
    }
    let direction = if backward == Some(true) {
        Direction::Backward
    } else {
        Direction::Forward
    };
    (true, direction)
}

/// The conjunct as an index condition, if it is one: a key operand (a
/// column, or an index's expression: [`Keyed::operand`]) compared with a
/// constant that is an exact value of the operand's type, with a
/// parameter of its type (typed by the operand when bound, or cast to it:
/// [`Scalar::parameter_type`]), or with an outer value of its type.
fn sarg(keyed: &Keyed, conjunct: &Scalar) -> Option<Sarg> {
    let value = |c: usize, v: &Scalar| -> Option<Scalar> {
        let ty = keyed.types[c];
        match v.through_string_cast() {
            Scalar::Const(Value::Null) => None,
            Scalar::Const(v) => {
                let fitted = types::coerce(v.clone(), ty).ok()?;
                (compare(&fitted, v).ok()? == Some(Ordering::Equal))
                    .then_some(Scalar::Const(fitted))
            }
            v if v.parameter_type() == Some(ty) => Some(v.clone()),
            // A correlated subquery's outer value of the column's type.
            Scalar::Outer(_, t) if *t == ty => Some(v.clone()),
            _ => None,
        }
    };
    match conjunct {
        Scalar::Compare(cmp, a, b) if *cmp != Cmp::Ne => {
            match (keyed.operand(a), keyed.operand(b)) {
                (Some(c), _) => Some(Sarg::Cmp(c, *cmp, value(c, b)?)),
                (None, Some(c)) => Some(Sarg::Cmp(c, cmp.flipped(), value(c, a)?)),
                (None, None) => None,
            }
        }
        Scalar::InList {
            expr,
            list,
            negated: false,
        } => {
            let c = keyed.operand(expr)?;
            // NULLs in the list match nothing.
            let values = list
                .iter()
                .filter(|item| **item != Scalar::Const(Value::Null))
                .map(|item| value(c, item))
                .collect::<Option<Vec<_>>>()?;
            Some(Sarg::In(c, values))
        }
        _ => None,
    }
}

/// The indexes of a table as a plan may use them: each one's key
/// columns, where an expression key is a column past the table's (the
/// `n`th distinct expression of any index is column `width + n`, of the
/// key's type), so an index condition on `lower(name)` is matched as one
/// on a column; a partial index only when the WHERE clause implies its
/// predicate (design: `index_exprs.rs`).
struct Keyed {
    /// Per index: its key columns, or `None` if the plan may not use it.
    columns: Vec<Option<Vec<usize>>>,
    /// The types of the table's columns, then of the expressions'.
    types: Vec<SqlType>,
    /// The expressions standing for columns past the table's.
    expressions: Vec<Scalar>,
    /// Per index: the conjuncts of the WHERE clause its predicate
    /// guarantees (none without one).
    guaranteed: Vec<Vec<usize>>,
}

impl Keyed {
    fn of(relation: &Relation, filter: &[Scalar]) -> Result<Keyed, SqlError> {
        let width = relation.types.len();
        let mut keyed = Keyed {
            columns: Vec::with_capacity(relation.indexes.len()),
            types: relation.types.clone(),
            expressions: Vec::new(),
            guaranteed: Vec::with_capacity(relation.indexes.len()),
        };
        for ri in &relation.indexes {
            let Some(compiled) = Compiled::of_index(ri)? else {
                keyed.columns.push(Some(
                    ri.def.columns.iter().map(|&c| usize::from(c)).collect(),
                ));
                keyed.guaranteed.push(Vec::new());
                continue;
            };
            if !index_exprs::implied(&compiled.predicate, filter) {
                keyed.columns.push(None);
                keyed.guaranteed.push(Vec::new());
                continue;
            }
            let mut expressions = compiled.keys.iter();
            let mut columns = Vec::with_capacity(ri.def.columns.len());
            for &c in &ri.def.columns {
                let column = match (c == IndexDef::EXPRESSION)
                    .then(|| expressions.next())
                    .flatten()
                {
                    Some((e, ty)) => match keyed.expressions.iter().position(|x| x == e) {
                        Some(n) => width + n,
                        None => {
                            keyed.expressions.push(e.clone());
                            keyed.types.push(*ty);
                            width + keyed.expressions.len() - 1
                        }
                    },
                    None => usize::from(c),
                };
                columns.push(column);
            }
            keyed.columns.push(Some(columns));
            keyed
                .guaranteed
                .push(index_exprs::guaranteed(&compiled.predicate, filter));
        }
        Ok(keyed)
    }

    /// The column an operand is to the plan: a table column's, or the
    /// one standing for an index's expression equal to it.
    fn operand(&self, operand: &Scalar) -> Option<usize> {
        match operand {
            Scalar::Column(c) if *c < self.types.len() - self.expressions.len() => Some(*c),
            other => {
                let n = self.expressions.iter().position(|e| e == other)?;
                Some(self.types.len() - self.expressions.len() + n)
            }
        }
    }
}
