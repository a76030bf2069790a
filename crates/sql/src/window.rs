//! Window functions (PostgreSQL's WindowAgg): `f(...) OVER (PARTITION BY
//! ... ORDER BY ... frame)` in the select list and ORDER BY, over the rows
//! a query has before its select list: the source's rows, or the
//! aggregate rows of a grouped query (so `sum(sum(x)) OVER ()` works).
//!
//! **Binding.** [`WindowBinder`] wraps the columns the select list is
//! bound over. A call with OVER becomes a column past the row's end: at
//! bind time a position from [`WINDOW_BASE`] on (a grouped query's row
//! grows while its aggregates are found), moved to `width + k` by
//! [`Windows::place`] once the row's width is known. Its arguments,
//! PARTITION BY and ORDER BY are bound over the wrapped columns. Calls
//! whose PARTITION BY and ORDER BY are the same share one window (one
//! sort), as PostgreSQL's window clauses do.
//!
//! **Running.** [`Windows::run`] sorts the row numbers by each window's
//! partition and order keys (a stable sort: ties keep the input order),
//! walks its partitions and their peer groups (rows equal in the ORDER BY
//! keys), and appends each call's value to its row. Rows come out in the
//! last window's order, as PostgreSQL's WindowAgg hands them on; a query's
//! ORDER BY is done after the windows (`query.rs`).
//!
//! **Frames** (`window_frame.rs`): `ROWS`, `RANGE` and `GROUPS` frames
//! with every bound PostgreSQL has, and `EXCLUDE`. Each call's frame
//! offsets are evaluated once per run ([`Frame::extent`]); per partition,
//! its peer groups ([`Peers`]) are found once and shared by its calls.

use crate::aggregate::{self, Accumulator, Call};
use crate::error::SqlError;
use crate::names;
use crate::plan::SortKey;
use crate::scalar::{self, Columns, Env, Scalar};
use crate::window_frame::{self, Exclude, Extent, Frame, OrderKeys, Peers, Place, Seek};
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments, NamedWindowDefinition,
    NamedWindowExpr, WindowSpec, WindowType,
};
use std::cell::RefCell;

/// Where window calls' columns are numbered from while binding (far past
/// any row's width).
pub const WINDOW_BASE: usize = 1 << 40;

/// A window function that is not an aggregate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
}

/// The window functions by name.
const NAMES: [(&str, Kind); 11] = [
    ("row_number", Kind::RowNumber),
    ("rank", Kind::Rank),
    ("dense_rank", Kind::DenseRank),
    ("percent_rank", Kind::PercentRank),
    ("cume_dist", Kind::CumeDist),
    ("ntile", Kind::Ntile),
    ("lag", Kind::Lag),
    ("lead", Kind::Lead),
    ("first_value", Kind::FirstValue),
    ("last_value", Kind::LastValue),
    ("nth_value", Kind::NthValue),
];

impl Kind {
    fn of(name: &str) -> Option<Kind> {
        names::lookup(&NAMES, name)
    }

    /// Its SQL name.
    pub fn name(self) -> &'static str {
        names::name_in(&NAMES, &self).expect("every kind is named")
    }

    /// Whether `count` arguments are accepted.
    fn takes(self, count: usize) -> bool {
        match self {
            Kind::RowNumber | Kind::Rank | Kind::DenseRank | Kind::PercentRank | Kind::CumeDist => {
                count == 0
            }
            Kind::Ntile | Kind::FirstValue | Kind::LastValue => count == 1,
            Kind::NthValue => count == 2,
            Kind::Lag | Kind::Lead => (1..=3).contains(&count),
        }
    }
}

/// What a window call computes.
#[derive(Debug, Clone, PartialEq)]
pub enum WindowFunc {
    Window(Kind),
    /// An aggregate over the frame.
    Aggregate(Box<Call>),
}

/// A window: the partition and order its calls share.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub partition: Vec<Scalar>,
    /// Each key with its direction: `(expr, descending, nulls_first)`.
    pub order: Vec<(Scalar, bool, bool)>,
}

impl Window {
    /// How many sort keys it has (partition and order).
    pub fn keys(&self) -> usize {
        self.partition.len() + self.order.len()
    }

    /// Its rows' sort: the partition keys (ascending, NULLs last), then
    /// its ORDER BY, each as the expression and its direction.
    pub fn sort(&self) -> Vec<(&Scalar, bool, bool)> {
        self.partition
            .iter()
            .map(|e| (e, false, false))
            .chain(self.order.iter().map(|(e, d, n)| (e, *d, *n)))
            .collect()
    }
}

/// One window call.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowCall {
    pub func: WindowFunc,
    /// Over the input row (an aggregate's are in its [`Call`]).
    pub args: Vec<Scalar>,
    /// Its window in [`Windows::windows`].
    pub window: usize,
    pub frame: Frame,
    pub ty: SqlType,
}

/// A query's windows and window calls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Windows {
    pub windows: Vec<Window>,
    pub calls: Vec<WindowCall>,
}

/// Whether an expression calls a window function outside subqueries.
pub fn contains_window(expr: &Expr) -> bool {
    aggregate::contains_call(expr, |f| f.over.is_some())
}

/// PostgreSQL's 42P20 for a misplaced window call or a bad frame.
fn windowing_error(message: impl Into<String>) -> SqlError {
    SqlError::new("42P20", message)
}

/// Whether `name` is a window function's (not an aggregate's).
pub fn is_window_name(name: &str) -> bool {
    Kind::of(name).is_some()
}

/// PostgreSQL's error for a call of the window function `name` (see
/// [`is_window_name`]) with `args` and no OVER: 42809 when a form takes
/// them, else as [`crate::ordered_set::without_within_group`] says
/// (`rank(1)` is the hypothetical-set aggregate's).
pub fn without_over<C: Columns + ?Sized>(name: &str, args: &[FunctionArg], source: &C) -> SqlError {
    match Kind::of(name).is_some_and(|kind| kind.takes(args.len())) {
        true => SqlError::new(
            "42809",
            format!("window function {name} requires an OVER clause"),
        ),
        false => crate::ordered_set::without_within_group(name, args, source),
    }
}

/// The error for a window call where none is allowed (WHERE, GROUP BY,
/// function arguments outside a select list).
pub fn not_allowed() -> SqlError {
    windowing_error("window functions are not allowed here")
}

/// Binds a select list's window calls over the columns `inner` (see the
/// module's "Binding").
pub struct WindowBinder<'a, C: Columns + ?Sized> {
    inner: &'a C,
    named: &'a [NamedWindowDefinition],
    windows: RefCell<Windows>,
}

/// A `WINDOW` clause's definitions checked as PostgreSQL checks them
/// whether or not a call uses them: a name defined twice is 42P20.
pub fn check_definitions(named: &[NamedWindowDefinition]) -> Result<(), SqlError> {
    for (i, d) in named.iter().enumerate() {
        let name = names::ident(&d.0);
        if named[..i].iter().any(|e| names::ident(&e.0) == name) {
            return Err(windowing_error(format!(
                "window \"{name}\" is already defined"
            )));
        }
    }
    Ok(())
}

impl<'a, C: Columns + ?Sized> WindowBinder<'a, C> {
    /// A binder over `inner`, with the query's `WINDOW name AS (...)`
    /// definitions.
    pub fn new(inner: &'a C, named: &'a [NamedWindowDefinition]) -> Self {
        WindowBinder {
            inner,
            named,
            windows: RefCell::new(Windows::default()),
        }
    }

    /// The windows found, in the order they run: those with more sort
    /// keys first (PostgreSQL's order, so that a later window whose keys
    /// are a prefix of an earlier one's needs no sort of its own).
    pub fn finish(self) -> Windows {
        let Windows { windows, mut calls } = self.windows.into_inner();
        let mut order: Vec<usize> = (0..windows.len()).collect();
        order.sort_by_key(|&w| std::cmp::Reverse(windows[w].keys()));
        for call in &mut calls {
            call.window = order
                .iter()
                .position(|&w| w == call.window)
                .expect("a window");
        }
        let mut windows: Vec<Option<Window>> = windows.into_iter().map(Some).collect();
        Windows {
            windows: order
                .iter()
                .map(|&w| windows[w].take().expect("once"))
                .collect(),
            calls,
        }
    }

    /// The window `over` names or spells out, PostgreSQL's rules for
    /// one built on a named window applied, and its frame's exclusion.
    fn spec(&self, over: &WindowType) -> Result<(WindowSpec, Exclude), SqlError> {
        let named = |name: &sqlparser::ast::Ident| -> Result<(WindowSpec, Exclude), SqlError> {
            let wanted = names::ident(name);
            match self
                .named
                .iter()
                .find(|d| names::ident(&d.0) == wanted)
                .map(|d| &d.1)
            {
                Some(NamedWindowExpr::WindowSpec(spec)) => {
                    let mut spec = spec.clone();
                    let exclude = window_frame::take_exclusion(&mut spec);
                    Ok((spec, exclude))
                }
                Some(NamedWindowExpr::NamedWindow(other)) => {
                    Err(SqlError::unsupported(format!("WINDOW {wanted} AS {other}")))
                }
                None => Err(SqlError::new(
                    "42704",
                    format!("window \"{wanted}\" does not exist"),
                )),
            }
        };
        let mut spec = match over {
            WindowType::NamedWindow(name) => return named(name),
            WindowType::WindowSpec(spec) => spec.clone(),
        };
        let exclude = window_frame::take_exclusion(&mut spec);
        let Some(base_name) = &spec.window_name else {
            return Ok((spec, exclude));
        };
        // The base's exclusion needs a frame, which it may not have.
        let (base, _) = named(base_name)?;
        let wanted = names::ident(base_name);
        if !spec.partition_by.is_empty() {
            return Err(windowing_error(format!(
                "cannot override PARTITION BY clause of window \"{wanted}\""
            )));
        }
        if !spec.order_by.is_empty() && !base.order_by.is_empty() {
            return Err(windowing_error(format!(
                "cannot override ORDER BY clause of window \"{wanted}\""
            )));
        }
        if base.window_frame.is_some() {
            return Err(windowing_error(format!(
                "cannot copy window \"{wanted}\" because it has a frame clause"
            ))
            .with_hint("Omit the parentheses in this OVER clause."));
        }
        let spec = WindowSpec {
            window_name: None,
            partition_by: base.partition_by,
            order_by: match spec.order_by.is_empty() {
                true => base.order_by,
                false => spec.order_by,
            },
            window_frame: spec.window_frame,
        };
        Ok((spec, exclude))
    }

    fn call(&self, f: &Function, over: &WindowType) -> Result<Scalar, SqlError> {
        let name = names::function(&f.name);
        if crate::ordered_set::OrderedSet::of(&name).is_some() && f.within_group.is_empty() {
            let args = match &f.args {
                FunctionArguments::List(list) => list.args.as_slice(),
                _ => &[],
            };
            return Err(crate::ordered_set::without_within_group(
                &name, args, self.inner,
            ));
        }
        if crate::ordered_set::OrderedSet::of(&name).is_some()
            || crate::hypothetical::of_call(f).is_some()
        {
            return Err(crate::ordered_set::over_refused(&name));
        }
        if !f.within_group.is_empty() || f.null_treatment.is_some() {
            return Err(SqlError::unsupported(format!(
                "WITHIN GROUP or IGNORE NULLS in the window call {name}"
            )));
        }
        if let Some(filter) = &f.filter {
            if Kind::of(&name).is_some() {
                return Err(SqlError::new(
                    "0A000",
                    "FILTER is not implemented for non-aggregate window functions",
                ));
            }
            // Before the arguments are bound: an aggregate here would
            // otherwise make the query a grouped one.
            if aggregate::contains_aggregate(filter) {
                return Err(SqlError::new(
                    "42803",
                    "aggregate functions are not allowed in FILTER",
                ));
            }
        }
        let FunctionArguments::List(list) = &f.args else {
            return Err(SqlError::unsupported(format!("{f}")));
        };
        let exprs: Vec<&Expr> = list
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect();
        if exprs.iter().any(|e| contains_window(e)) {
            return Err(windowing_error("window function calls cannot be nested"));
        }
        let (func, args, ty) = match Kind::of(&name) {
            Some(kind) => {
                if list.duplicate_treatment.is_some()
                    || !list.clauses.is_empty()
                    || exprs.len() != list.args.len()
                    || !kind.takes(exprs.len())
                {
                    return Err(crate::ordered_set::without_within_group(
                        &name, &list.args, self.inner,
                    ));
                }
                let args = exprs
                    .iter()
                    .map(|e| scalar::bind(e, self.inner))
                    .collect::<Result<Vec<_>, _>>()?;
                let ty = self.result_type(kind, &args);
                (WindowFunc::Window(kind), args, ty)
            }
            None if aggregate::is_aggregate_name(&name) => {
                if list.duplicate_treatment == Some(sqlparser::ast::DuplicateTreatment::Distinct) {
                    return Err(SqlError::new(
                        "0A000",
                        "DISTINCT is not implemented for window functions",
                    ));
                }
                let mut call = aggregate::bind_call(f, self.inner)?;
                if let Some(filter) = &f.filter {
                    self.filter(&mut call, filter)?;
                }
                let ty = call.ty;
                (WindowFunc::Aggregate(Box::new(call)), Vec::new(), ty)
            }
            None if !crate::functions::exists(&name) => {
                return Err(crate::aggregate::no_such_call(
                    &name, &list.args, self.inner,
                ));
            }
            None => {
                return Err(SqlError::new(
                    "42809",
                    format!(
                        "OVER specified, but {name} is not a window function nor an aggregate function"
                    ),
                ));
            }
        };
        let (spec, exclude) = self.spec(over)?;
        let window = Window {
            partition: spec
                .partition_by
                .iter()
                .map(|e| scalar::bind(e, self.inner))
                .collect::<Result<_, _>>()?,
            order: spec
                .order_by
                .iter()
                .map(|o| {
                    let key = crate::plan::SortKey::of(0, &o.options);
                    Ok((
                        scalar::bind(&o.expr, self.inner)?,
                        key.descending,
                        key.nulls_first,
                    ))
                })
                .collect::<Result<_, SqlError>>()?,
        };
        let order: Vec<SqlType> = window
            .order
            .iter()
            .map(|(e, ..)| e.ty_in(self.inner))
            .collect();
        let frame = Frame::bind(spec.window_frame.as_ref(), exclude, &order, self.inner)?;
        let mut windows = self.windows.borrow_mut();
        let window = match windows.windows.iter().position(|w| *w == window) {
            Some(i) => i,
            None => {
                windows.windows.push(window);
                windows.windows.len() - 1
            }
        };
        windows.calls.push(WindowCall {
            func,
            args,
            window,
            frame,
            ty,
        });
        Ok(Scalar::Column(WINDOW_BASE + windows.calls.len() - 1))
    }

    /// A window aggregate's `FILTER (WHERE cond)`: the rows of its frame
    /// it takes (a boolean over the input row, no window call inside).
    fn filter(&self, call: &mut Call, cond: &Expr) -> Result<(), SqlError> {
        if contains_window(cond) {
            return Err(windowing_error(
                "window functions are not allowed in FILTER",
            ));
        }
        let bound = scalar::bind(cond, self.inner)?;
        scalar::require_bool(&bound, self.inner, "FILTER", cond)?;
        crate::user_aggregates::filtered(call, bound, self.inner);
        Ok(())
    }

    /// A window function's result type (PostgreSQL's: bigint ranks,
    /// double precision fractions, integer ntile, the value's type
    /// otherwise, widened to a lag/lead default's numeric type).
    fn result_type(&self, kind: Kind, args: &[Scalar]) -> SqlType {
        match kind {
            Kind::RowNumber | Kind::Rank | Kind::DenseRank => SqlType::Int8,
            Kind::PercentRank | Kind::CumeDist => SqlType::Float8,
            Kind::Ntile => SqlType::Int4,
            Kind::Lag | Kind::Lead => {
                let value = args[0].ty_in(self.inner);
                match args.get(2).map(|d| d.ty_in(self.inner)) {
                    Some(default) if default != value && value != SqlType::Text => {
                        scalar::wider(value, default)
                    }
                    _ => value,
                }
            }
            Kind::FirstValue | Kind::LastValue | Kind::NthValue => args[0].ty_in(self.inner),
        }
    }
}

impl<C: Columns + ?Sized> Columns for WindowBinder<'_, C> {
    fn resolve(&self, name: &str) -> Result<(usize, SqlType), SqlError> {
        self.inner.resolve(name)
    }

    fn resolve_qualified(&self, qualifier: &str, name: &str) -> Result<(usize, SqlType), SqlError> {
        self.inner.resolve_qualified(qualifier, name)
    }

    fn qualifier_of(&self, position: usize) -> Option<String> {
        self.inner.qualifier_of(position)
    }

    fn collation_at(&self, position: usize) -> Option<u32> {
        match position < WINDOW_BASE {
            true => self.inner.collation_at(position),
            false => None,
        }
    }

    fn domain_at(&self, position: usize) -> Option<String> {
        match position < WINDOW_BASE {
            true => self.inner.domain_at(position),
            false => None,
        }
    }

    fn whole_row(&self, name: &str) -> Option<Result<Vec<usize>, SqlError>> {
        self.inner.whole_row(name)
    }

    fn whole_row_type(&self, name: &str) -> Option<&'static folio_row::CompositeType> {
        self.inner.whole_row_type(name)
    }

    fn ungrouped_type(&self, expr: &Expr) -> Option<SqlType> {
        self.inner.ungrouped_type(expr)
    }

    fn type_at(&self, position: usize) -> SqlType {
        match position.checked_sub(WINDOW_BASE) {
            Some(k) => self.windows.borrow().calls[k].ty,
            None => self.inner.type_at(position),
        }
    }

    fn intercept(&self, expr: &Expr) -> Option<Result<Scalar, SqlError>> {
        match expr {
            Expr::Function(f) => match &f.over {
                Some(over) => Some(self.call(f, over)),
                None => self.inner.intercept(expr),
            },
            _ => self.inner.intercept(expr),
        }
    }
}

impl<C: Columns + crate::query::ColumnNames + ?Sized> crate::query::ColumnNames
    for WindowBinder<'_, C>
{
    fn names(&self) -> Vec<String> {
        self.inner.names()
    }

    fn star(&self) -> Vec<usize> {
        self.inner.star()
    }

    fn record(&self, position: usize) {
        self.inner.record(position)
    }

    fn qualified_columns(&self, qualifier: &str) -> Result<std::ops::Range<usize>, SqlError> {
        self.inner.qualified_columns(qualifier)
    }
}

impl Windows {
    /// Whether the query has window calls.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Moves the calls' columns from [`WINDOW_BASE`] to just past a row of
    /// `width` columns, in `exprs` bound over the binder.
    pub fn place(exprs: &mut [Scalar], width: usize) {
        let at = |c: usize| match c.checked_sub(WINDOW_BASE) {
            Some(k) => width + k,
            None => c,
        };
        for e in exprs {
            *e = e.map_columns(&at);
        }
    }

    /// Every expression it evaluates over the input row.
    pub fn scalars(&self) -> Vec<&Scalar> {
        let mut out: Vec<&Scalar> = Vec::new();
        for w in &self.windows {
            out.extend(&w.partition);
            out.extend(w.order.iter().map(|(e, ..)| e));
        }
        for c in &self.calls {
            out.extend(&c.args);
            if let WindowFunc::Aggregate(call) = &c.func {
                out.extend(call.arg.iter().chain(&call.delimiter).chain(&call.filter));
            }
        }
        out
    }

    /// Appends each call's value to each row, and leaves the rows in the
    /// last window's order.
    pub fn run(&self, rows: &mut Vec<Vec<Value>>, env: &Env<'_>) -> Result<(), SqlError> {
        let mut values = vec![vec![Value::Null; self.calls.len()]; rows.len()];
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let extents = self
            .calls
            .iter()
            .map(|c| c.frame.extent(env))
            .collect::<Result<Vec<Extent>, SqlError>>()?;
        for (w, window) in self.windows.iter().enumerate() {
            let mut keyed = sorted(window, rows, &order, env)?;
            let (split, width) = (window.partition.len(), window.keys());
            order = keyed.iter().map(|k| row_number(&k[width])).collect();
            // Per position, its peer group's number (a new one at each
            // change of partition or ORDER BY values), and where each
            // partition starts.
            let mut groups = Vec::with_capacity(keyed.len());
            let mut starts = Vec::new();
            for (p, key) in keyed.iter().enumerate() {
                let new_partition = p == 0 || !same(&keyed[p - 1][..split], &key[..split])?;
                if new_partition {
                    starts.push(p);
                }
                let new_group =
                    new_partition || !same(&keyed[p - 1][split..width], &key[split..width])?;
                groups.push(groups.last().map_or(0, |g| g + usize::from(new_group)));
            }
            // The first ORDER BY value of each position, for RANGE offset
            // frames: the sort's, not evaluated again.
            let ranged = self
                .calls
                .iter()
                .any(|c| c.window == w && c.frame.has_range_offset());
            let order_keys: Vec<Value> = match ranged {
                true => keyed
                    .iter_mut()
                    .map(|k| std::mem::replace(&mut k[split], Value::Null))
                    .collect(),
                false => Vec::new(),
            };
            drop(keyed);
            starts.push(order.len());
            for bounds in starts.windows(2) {
                let (start, end) = (bounds[0], bounds[1]);
                let peers = Peers::new(&groups[start..end]);
                let partition = Partition {
                    window,
                    order: &order[start..end],
                    places: peers.places(),
                    peers,
                    order_keys: order_keys.get(start..end).unwrap_or(&[]),
                    rows,
                    env,
                };
                for (c, call) in self.calls.iter().enumerate() {
                    if call.window == w {
                        let called = partition.values(call, &extents[c])?;
                        for (p, value) in called.into_iter().enumerate() {
                            values[order[start + p]][c] = value;
                        }
                    }
                }
            }
        }
        let mut taken: Vec<Option<Vec<Value>>> = std::mem::take(rows)
            .into_iter()
            .zip(values)
            .map(|(mut row, v)| {
                row.extend(v);
                Some(row)
            })
            .collect();
        *rows = order
            .iter()
            .map(|&i| taken[i].take().expect("each row once"))
            .collect();
        Ok(())
    }
}

/// The rows' sort keys in the window's order (partition keys, then its
/// ORDER BY; ties in the order `before`, the previous window's), each
/// followed by its row number.
fn sorted(
    window: &Window,
    rows: &[Vec<Value>],
    before: &[usize],
    env: &Env<'_>,
) -> Result<Vec<Vec<Value>>, SqlError> {
    let sort = window.sort();
    let mut keyed: Vec<Vec<Value>> = before
        .iter()
        .map(|&i| {
            let mut key = Vec::with_capacity(sort.len() + 1);
            for (e, ..) in &sort {
                key.push(e.eval(&rows[i], env)?);
            }
            key.push(Value::Int8(i as i64));
            Ok(key)
        })
        .collect::<Result<_, SqlError>>()?;
    let keys: Vec<SortKey> = sort
        .iter()
        .enumerate()
        .map(|(column, (_, descending, nulls_first))| SortKey {
            column,
            descending: *descending,
            nulls_first: *nulls_first,
        })
        .collect();
    crate::query::sort(&mut keyed, &keys)?;
    Ok(keyed)
}

/// The row number [`sorted`] put after a key.
fn row_number(v: &Value) -> usize {
    match v {
        Value::Int8(i) => *i as usize,
        _ => unreachable!("the row number is an int8"),
    }
}

/// Whether two keys are equal as a partition or peer group takes them
/// (NULLs equal; 1.5 and 1.50 equal).
fn same(a: &[Value], b: &[Value]) -> Result<bool, SqlError> {
    for (x, y) in a.iter().zip(b) {
        let equal = match (x, y) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            _ => scalar::compare(x, y)? == Some(std::cmp::Ordering::Equal),
        };
        if !equal {
            return Ok(false);
        }
    }
    Ok(true)
}

/// One partition's rows in the window's order.
struct Partition<'a, 'e> {
    window: &'a Window,
    /// Row numbers.
    order: &'a [usize],
    peers: Peers,
    /// Its rows' places, in order.
    places: Vec<Place>,
    /// Per row, its first ORDER BY value, when a call's frame has a
    /// `RANGE` offset (empty otherwise).
    order_keys: &'a [Value],
    rows: &'a [Vec<Value>],
    env: &'a Env<'e>,
}

impl Partition<'_, '_> {
    fn eval(&self, e: &Scalar, position: usize) -> Result<Value, SqlError> {
        e.eval(&self.rows[self.order[position]], self.env)
    }

    /// Each row's frame under `extent` as positions `[start, end)`, before
    /// exclusion.
    fn frames(&self, extent: &Extent) -> Result<Vec<(usize, usize)>, SqlError> {
        let (descending, nulls_first) = self
            .window
            .order
            .first()
            .map_or((false, false), |(_, d, n)| (*d, *n));
        let keys = OrderKeys {
            values: self.order_keys,
            descending,
            nulls_first,
        };
        extent.frames(&self.places, &self.peers, &keys)
    }

    /// The call's value at each of its rows, in order, its frame's
    /// offsets evaluated in `extent`.
    fn values(&self, call: &WindowCall, extent: &Extent) -> Result<Vec<Value>, SqlError> {
        let n = self.places.len();
        let kind = match &call.func {
            WindowFunc::Aggregate(aggregate) => return self.aggregates(aggregate, extent),
            WindowFunc::Window(kind) => *kind,
        };
        let frames = match kind {
            Kind::FirstValue | Kind::LastValue | Kind::NthValue => self.frames(extent)?,
            _ => Vec::new(),
        };
        let mut out = Vec::with_capacity(n);
        let mut dense = 0i64;
        // ntile's bucket count: read at the partition's first row, as
        // PostgreSQL reads it (`None`: NULL).
        let buckets = match kind {
            Kind::Ntile => match self.eval(&call.args[0], 0)? {
                Value::Null => None,
                v => match types_int(&v) {
                    Some(buckets) if buckets > 0 => Some(buckets),
                    _ => {
                        return Err(SqlError::new(
                            "22014",
                            "argument of ntile must be greater than zero",
                        ));
                    }
                },
            },
            _ => None,
        };
        for p in &self.places {
            out.push(match kind {
                Kind::RowNumber => Value::Int8(p.row as i64 + 1),
                Kind::Rank => Value::Int8(p.peer_start as i64 + 1),
                Kind::DenseRank => {
                    if p.row == p.peer_start {
                        dense += 1;
                    }
                    Value::Int8(dense)
                }
                Kind::PercentRank => Value::Float8(match n {
                    1 => 0.0,
                    _ => p.peer_start as f64 / (n - 1) as f64,
                }),
                Kind::CumeDist => Value::Float8(p.peer_end as f64 / n as f64),
                Kind::Ntile => buckets.map_or(Value::Null, |b| Value::Int4(ntile(p.row, n, b))),
                Kind::Lag | Kind::Lead => self.offset_value(call, kind, p.row, n)?,
                Kind::FirstValue | Kind::LastValue | Kind::NthValue => {
                    let seek = match kind {
                        Kind::FirstValue => Some(Seek::Head(0)),
                        Kind::LastValue => Some(Seek::Tail),
                        _ => match self.eval(&call.args[1], p.row)? {
                            Value::Null => None,
                            v => match types_int(&v) {
                                Some(k) if k > 0 => {
                                    Some(Seek::Head(usize::try_from(k - 1).unwrap_or(usize::MAX)))
                                }
                                _ => {
                                    return Err(SqlError::new(
                                        "22016",
                                        "argument of nth_value must be greater than zero",
                                    ));
                                }
                            },
                        },
                    };
                    match seek.and_then(|seek| extent.exclude.seek(frames[p.row], p, seek)) {
                        Some(a) => self.typed(self.eval(&call.args[0], a)?, call.ty)?,
                        None => Value::Null,
                    }
                }
            });
        }
        Ok(out)
    }

    /// `lag`/`lead`: the value `offset` rows before/after, else the
    /// default (NULL); a NULL offset gives NULL.
    fn offset_value(
        &self,
        call: &WindowCall,
        kind: Kind,
        row: usize,
        n: usize,
    ) -> Result<Value, SqlError> {
        let offset = match call.args.get(1) {
            None => 1,
            Some(e) => match self.eval(e, row)? {
                Value::Null => return Ok(Value::Null),
                v => types_int(&v).ok_or_else(|| {
                    SqlError::new("22023", "the offset of lag or lead must be an integer")
                })?,
            },
        };
        let offset = if kind == Kind::Lag { -offset } else { offset };
        let target = (row as i64)
            .checked_add(offset)
            .filter(|t| (0..n as i64).contains(t));
        let value = match (target, call.args.get(2)) {
            (Some(t), _) => self.eval(&call.args[0], t as usize)?,
            (None, Some(default)) => self.eval(default, row)?,
            (None, None) => Value::Null,
        };
        self.typed(value, call.ty)
    }

    /// A value as the call's result type (a lag default widened).
    fn typed(&self, value: Value, ty: SqlType) -> Result<Value, SqlError> {
        if value == Value::Null || scalar::value_type(&value) == ty {
            return Ok(value);
        }
        crate::types::cast(value, ty)
    }

    /// An aggregate over each row's frame, its offsets evaluated in
    /// `extent` (see `window_frame.rs`'s "Cost").
    fn aggregates(&self, aggregate: &Call, extent: &Extent) -> Result<Vec<Value>, SqlError> {
        // Each row's argument and delimiter, once; none for a row its
        // FILTER does not take.
        let inputs: Vec<Option<(Value, Value)>> = (0..self.places.len())
            .map(|p| {
                if let Some(filter) = &aggregate.filter
                    && !filter.accepts(&self.rows[self.order[p]], self.env)?
                {
                    return Ok(None);
                }
                let value = match &aggregate.arg {
                    Some(arg) => self.eval(arg, p)?,
                    None => Value::Bool(true),
                };
                let delimiter = match &aggregate.delimiter {
                    Some(d) => self.eval(d, p)?,
                    None => Value::Null,
                };
                Ok(Some((value, delimiter)))
            })
            .collect::<Result<_, SqlError>>()?;
        if let Some(moving) = aggregate.user.as_deref().and_then(|u| u.moving())
            && extent.head_moves()
        {
            // A user-defined aggregate's moving mode (`user_aggregates.rs`).
            let frames = self.frames(extent)?;
            let rows: Vec<_> = (self.places.iter())
                .map(|p| (frames[p.row], extent.exclude.segments(frames[p.row], p)))
                .collect();
            return crate::user_aggregates::moving_window(moving, &inputs, &rows);
        }
        let mut out = Vec::with_capacity(self.places.len());
        let mut running = Accumulator::new(aggregate);
        let mut added = 0;
        let grows = extent.grows();
        let mut last: Option<([(usize, usize); 3], Value)> = None;
        let frames = self.frames(extent)?;
        for p in &self.places {
            // The frame's rows, without those it excludes.
            let segments = extent.exclude.segments(frames[p.row], p);
            if let Some((previous, value)) = &last
                && *previous == segments
            {
                out.push(value.clone());
                continue;
            }
            let value = if grows {
                // The frame only grows: add the rows it gained.
                let (_, end) = segments[0];
                while added < end {
                    if let Some((v, d)) = inputs[added].clone() {
                        running.add(v, d)?;
                    }
                    added += 1;
                }
                running.value()?
            } else {
                let mut fresh = Accumulator::new(aggregate);
                for (start, end) in segments {
                    for (v, d) in inputs[start..end].iter().flatten() {
                        fresh.add(v.clone(), d.clone())?;
                    }
                }
                fresh.value()?
            };
            last = Some((segments, value.clone()));
            out.push(value);
        }
        Ok(out)
    }
}

/// An integer argument's value.
fn types_int(v: &Value) -> Option<i64> {
    match v {
        Value::Int2(x) => Some(i64::from(*x)),
        Value::Int4(x) => Some(i64::from(*x)),
        Value::Int8(x) => Some(*x),
        _ => None,
    }
}

/// The bucket (1-based) of the row at `row` of `n` rows in `buckets`
/// buckets, as PostgreSQL's ntile: the first `n % buckets` buckets hold
/// one row more.
fn ntile(row: usize, n: usize, buckets: i64) -> i32 {
    let buckets = usize::try_from(buckets).unwrap_or(usize::MAX).min(n.max(1));
    let (size, extra) = (n / buckets, n % buckets);
    let big = extra * (size + 1);
    let bucket = if row < big {
        row / (size + 1)
    } else {
        extra + (row - big) / size.max(1)
    };
    i32::try_from(bucket + 1).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ntile_spreads_the_remainder_over_the_first_buckets() {
        // 7 rows in 3 buckets: 3, 2, 2 (PostgreSQL's).
        let got: Vec<i32> = (0..7).map(|r| ntile(r, 7, 3)).collect();
        assert_eq!(got, [1, 1, 1, 2, 2, 3, 3]);
        // More buckets than rows: one row each.
        let got: Vec<i32> = (0..3).map(|r| ntile(r, 3, 10)).collect();
        assert_eq!(got, [1, 2, 3]);
        let got: Vec<i32> = (0..4).map(|r| ntile(r, 4, 2)).collect();
        assert_eq!(got, [1, 1, 2, 2]);
    }
}
