//! Aggregates: `count(*)`, `count(x)`, `sum`, `avg`, `min`, `max`, with
//! `GROUP BY` expressions and `HAVING`. The select list, HAVING and ORDER
//! BY of a grouped query are bound over the *aggregate row* — the group
//! key values, then each aggregate's result — so a column outside the
//! group key and outside an aggregate is PostgreSQL's 42803. Result types
//! as PostgreSQL's: count int8; sum of int2/int4 int8, of int8 and numeric
//! numeric; avg numeric (PostgreSQL's division scale); min/max the
//! argument's type; `array_agg` an array of it (NULLs kept: the one
//! aggregate that takes them, [`Kind::takes_nulls`]); `var_samp`
//! (`variance`), `var_pop`, `stddev_samp` (`stddev`), `stddev_pop`
//! numeric over integers and numerics (exact sums, PostgreSQL's division
//! scale, the root at the same scale) and float8 over floats (PostgreSQL's
//! Youngs-Cramer sums), NULL for a sample of one.
//!
//! A scan's rows reach the states without a `Value` made for each: a
//! call's argument that is a column is borrowed from the row
//! ([`argument`]), and counts, sums and averages of integers (an exact
//! `i128`, as PostgreSQL's `int8`/`int128` transition states) and
//! integer extremes take it in place ([`State::add_plain`]); any other
//! value goes through the generic [`accumulate`], which turns an integer
//! sum back into a `Value` first, so results are the same either way.
//! The ordered-set aggregates (`percentile_cont`, `percentile_disc`,
//! `mode`) are `ordered_set.rs`'s and the two-argument statistical ones
//! (`corr`, `covar_*`, `regr_*`) `regression.rs`'s; they run here.
//!
//! A call may carry its own `ORDER BY` (`string_agg(x, ',' ORDER BY y
//! DESC)`): its rows wait in their group, their keys beside them, and are
//! taken sorted when the group is finished; with DISTINCT the keys must be
//! arguments (42P10). `FILTER (WHERE ...)` picks the rows a call takes
//! (boolean, 42804; no aggregate inside, 42803). Window aggregates take
//! neither an ORDER BY (0A000, as PostgreSQL) nor a FILTER.

use crate::error::SqlError;
use crate::expr;
use crate::functions;
use crate::hypothetical::Hypothetical;
use crate::names;
use crate::ordered_set::OrderedSet;
use crate::plan::SortKey;
use crate::regression::Regr;
use crate::scalar::{self, Columns, Env, Scalar, compare};
use crate::types;
use folio_row::{Numeric, SqlType, Value};
use sqlparser::ast::{
    BinaryOperator, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArgumentClause,
    FunctionArguments,
};
use std::borrow::Cow;
use std::cell::RefCell;
use std::cmp::Ordering;
use std::ops::ControlFlow;

/// An aggregate function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    /// `string_agg(text, delimiter)`.
    StringAgg,
    BoolAnd,
    BoolOr,
    /// `array_agg(x)`: NULLs included.
    ArrayAgg,
    /// `var_samp` / `variance`, `var_pop`, `stddev_samp` / `stddev`,
    /// `stddev_pop`.
    Spread {
        sample: bool,
        root: bool,
    },
    /// `json_agg(x)` / `jsonb_agg(x)`: NULLs included, as JSON nulls;
    /// `rows`: `x` is a row made json by the binder (json_agg puts each
    /// after the first on a line of its own, as for arrays).
    JsonAgg {
        jsonb: bool,
        rows: bool,
    },
    /// `json_object_agg(key, value)` / `jsonb_object_agg`: the value is
    /// the call's second argument (`Call::delimiter`'s place).
    JsonObjectAgg {
        jsonb: bool,
    },
    /// `GROUPING(key, ...)`: not an aggregate but the grouping set's
    /// mark, bound beside them (`Grouping::marks`; `grouping_sets.rs`).
    Grouping,
    /// `percentile_cont`, `percentile_disc`, `mode` (`ordered_set.rs`):
    /// the WITHIN GROUP's value is the argument, its order the call's
    /// ORDER BY, the fraction `Call::direct`.
    OrderedSet(OrderedSet),
    /// `rank`, `dense_rank`, `percent_rank`, `cume_dist` with WITHIN
    /// GROUP (`hypothetical.rs`): the WITHIN GROUP's keys are the call's
    /// ORDER BY, the hypothetical row `Call::direct`.
    Hypothetical(Hypothetical),
    /// `corr`, `covar_*`, `regr_*` of `(Y, X)` (`regression.rs`): X is
    /// the call's second argument (`Call::delimiter`'s place).
    Regression(Regr),
    /// `range_agg(x)` (`intersect` false) / `range_intersect_agg(x)` of
    /// ranges or multiranges (`multirange_functions::aggregate`).
    RangeAgg {
        intersect: bool,
    },
    /// A `CREATE AGGREGATE` one (`user_aggregates.rs`): its functions are
    /// the call's `Call::user`; a second argument is in
    /// `Call::delimiter`'s place.
    User,
}

impl Kind {
    /// Its SQL name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::CountStar | Kind::Count => "count",
            Kind::Sum => "sum",
            Kind::Avg => "avg",
            Kind::Min => "min",
            Kind::Max => "max",
            Kind::StringAgg => "string_agg",
            Kind::BoolAnd => "bool_and",
            Kind::RangeAgg { intersect: false } => "range_agg",
            Kind::RangeAgg { intersect: true } => "range_intersect_agg",
            Kind::BoolOr => "bool_or",
            Kind::ArrayAgg => "array_agg",
            Kind::JsonAgg { jsonb: false, .. } => "json_agg",
            Kind::JsonAgg { jsonb: true, .. } => "jsonb_agg",
            Kind::JsonObjectAgg { jsonb: false } => "json_object_agg",
            Kind::JsonObjectAgg { jsonb: true } => "jsonb_object_agg",
            Kind::Grouping => "GROUPING",
            Kind::OrderedSet(which) => which.name(),
            Kind::Hypothetical(which) => which.name(),
            Kind::Regression(which) => which.name(),
            Kind::User => "aggregate",
            Kind::Spread { sample, root } => match (sample, root) {
                (true, false) => "var_samp",
                (false, false) => "var_pop",
                (true, true) => "stddev_samp",
                (false, true) => "stddev_pop",
            },
        }
    }

    /// Whether a NULL argument counts: `array_agg`'s and the json
    /// aggregates' do (every other aggregate skips NULLs; a NULL key of
    /// `json_object_agg` is its error). The one owner of that rule.
    fn takes_nulls(self) -> bool {
        // (A user-defined one's transition function's strictness decides:
        // `user_aggregates.rs`.)
        matches!(
            self,
            Kind::ArrayAgg | Kind::JsonAgg { .. } | Kind::JsonObjectAgg { .. } | Kind::User
        )
    }

    /// Whether the call takes two arguments (the second in
    /// `Call::delimiter`).
    fn takes_two(self) -> bool {
        matches!(
            self,
            Kind::StringAgg | Kind::JsonObjectAgg { .. } | Kind::Regression(_)
        )
    }

    /// How many arguments its plain form takes (an ordered-set
    /// aggregate's: its direct ones and the ordered one).
    pub fn argument_count(self) -> usize {
        match self {
            Kind::Grouping => 0,
            Kind::OrderedSet(OrderedSet::Mode) => 1,
            Kind::OrderedSet(_) => 2,
            kind if kind.takes_two() => 2,
            _ => 1,
        }
    }

    fn of(name: &str) -> Option<Kind> {
        Some(match name {
            "count" => Kind::Count,
            "sum" => Kind::Sum,
            "avg" => Kind::Avg,
            "min" => Kind::Min,
            "max" => Kind::Max,
            "string_agg" => Kind::StringAgg,
            "bool_and" | "every" => Kind::BoolAnd,
            "range_agg" => Kind::RangeAgg { intersect: false },
            "range_intersect_agg" => Kind::RangeAgg { intersect: true },
            "bool_or" => Kind::BoolOr,
            "array_agg" => Kind::ArrayAgg,
            "json_agg" => Kind::JsonAgg {
                jsonb: false,
                rows: false,
            },
            "jsonb_agg" => Kind::JsonAgg {
                jsonb: true,
                rows: false,
            },
            "json_object_agg" => Kind::JsonObjectAgg { jsonb: false },
            "jsonb_object_agg" => Kind::JsonObjectAgg { jsonb: true },
            "var_samp" | "variance" => Kind::Spread {
                sample: true,
                root: false,
            },
            "var_pop" => Kind::Spread {
                sample: false,
                root: false,
            },
            "stddev_samp" | "stddev" => Kind::Spread {
                sample: true,
                root: true,
            },
            "stddev_pop" => Kind::Spread {
                sample: false,
                root: true,
            },
            _ => {
                return OrderedSet::of(name)
                    .map(Kind::OrderedSet)
                    .or_else(|| Regr::of(name).map(Kind::Regression));
            }
        })
    }

    /// PostgreSQL's result type for an argument of type `arg`.
    fn result_type(self, arg: SqlType) -> SqlType {
        match self {
            Kind::CountStar | Kind::Count => SqlType::Int8,
            Kind::Grouping => SqlType::Int4,
            Kind::Sum => match arg {
                SqlType::Int2 | SqlType::Int4 => SqlType::Int8,
                SqlType::Interval(_) => SqlType::Interval(None),
                // A real's sum is a real (PostgreSQL's float4pl); its
                // average a double precision.
                SqlType::Float4 => SqlType::Float4,
                SqlType::Float8 => SqlType::Float8,
                // PostgreSQL's cash_pl (`money_functions.rs`).
                SqlType::Money => SqlType::Money,
                _ => SqlType::Numeric(None),
            },
            Kind::Avg | Kind::Spread { .. } => match arg {
                SqlType::Float4 | SqlType::Float8 => SqlType::Float8,
                SqlType::Interval(_) => SqlType::Interval(None),
                _ => SqlType::Numeric(None),
            },
            // (A user-defined one's is its binding's: `user_aggregates.rs`.)
            Kind::Min | Kind::Max | Kind::OrderedSet(_) | Kind::User => arg,
            Kind::StringAgg if arg == SqlType::Bytea => SqlType::Bytea,
            Kind::StringAgg => SqlType::Text,
            Kind::BoolAnd | Kind::BoolOr => SqlType::Bool,
            Kind::RangeAgg { intersect } => {
                crate::multirange_functions::aggregate_type(intersect, arg).unwrap_or(arg)
            }
            Kind::Regression(which) => which.ty(),
            Kind::Hypothetical(which) => which.ty(),
            // (`bind_call` refuses an argument without an array type.)
            // Of arrays: one more dimension, the same type.
            Kind::ArrayAgg if arg.element().is_some() => arg,
            Kind::ArrayAgg => arg.array_of().unwrap_or(SqlType::Text),
            Kind::JsonAgg { jsonb: true, .. } | Kind::JsonObjectAgg { jsonb: true } => {
                SqlType::Jsonb
            }
            Kind::JsonAgg { jsonb: false, .. } | Kind::JsonObjectAgg { jsonb: false } => {
                SqlType::Json
            }
        }
    }
}

/// One aggregate call of the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub kind: Kind,
    /// Bound over the source row (`None` for `count(*)`).
    pub arg: Option<Scalar>,
    /// `string_agg`'s delimiter (`json_object_agg`'s value), over the
    /// source row.
    pub delimiter: Option<Scalar>,
    /// `agg(DISTINCT x)`: each distinct value once.
    pub distinct: bool,
    pub ty: SqlType,
    /// `agg(x ORDER BY ...)`: the order the values are taken in, each key
    /// over the source row (its `SortKey` column is its place among them).
    pub order: Vec<(Scalar, SortKey)>,
    /// `agg(x) FILTER (WHERE ...)`: the rows taken, over the source row.
    pub filter: Option<Scalar>,
    /// An ordered-set aggregate's direct arguments (its fraction; a
    /// hypothetical-set one's row), over the aggregate row's group keys:
    /// evaluated once per group.
    pub direct: Vec<Scalar>,
    /// A user-defined aggregate's bound functions (`Kind::User`).
    pub user: Option<std::sync::Arc<crate::user_aggregates::Bound>>,
}

impl Call {
    /// The source row's columns the call reads (its argument's, its
    /// delimiter's, its ORDER BY's and its FILTER's).
    pub fn columns(&self, out: &mut Vec<usize>) {
        let order = self.order.iter().map(|(key, _)| key);
        for s in (self.arg.iter().chain(&self.delimiter))
            .chain(order)
            .chain(&self.filter)
        {
            s.columns(out);
        }
    }
}

/// The grouping of a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Grouping {
    /// Group key expressions over the source row.
    pub keys: Vec<Scalar>,
    pub calls: Vec<Call>,
    /// Over the aggregate row.
    pub having: Option<Scalar>,
    /// The grouping sets, each the ascending positions of the keys it
    /// groups by (`grouping_sets.rs`); a plain GROUP BY has one, of
    /// every key. An aggregate row's keys outside its set are NULL.
    pub sets: Vec<Vec<usize>>,
    /// Per call, a `GROUPING(...)`'s arguments as key positions (empty
    /// for an aggregate).
    pub marks: Vec<Vec<usize>>,
}

impl Grouping {
    /// Whether the query groups by sets (ROLLUP, CUBE, GROUPING SETS,
    /// `()` beside keys) rather than by all its keys once.
    pub fn has_sets(&self) -> bool {
        !matches!(self.sets.as_slice(), [one] if one.len() == self.keys.len())
    }
}

/// Binds expressions over the aggregate row of a query: aggregate calls
/// become their result's position, group key expressions theirs.
pub struct Binder<'a, C: Columns + ?Sized> {
    source: &'a C,
    keys: Vec<Expr>,
    key_types: Vec<SqlType>,
    calls: RefCell<Vec<Call>>,
    /// `Grouping::marks`, so far.
    marks: RefCell<Vec<Vec<usize>>>,
    /// How many calls of the query's subqueries it computes
    /// (`outer_aggregates.rs`): the first calls, bound by [`Self::lift`].
    lifted: usize,
}

impl<'a, C: Columns + ?Sized> Binder<'a, C> {
    /// A binder for GROUP BY `keys` over `source`.
    pub fn new(source: &'a C, keys: &[Expr]) -> Result<Self, SqlError> {
        let key_types = keys
            .iter()
            .map(|k| Ok(scalar::bind(k, source)?.ty_in(source)))
            .collect::<Result<_, SqlError>>()?;
        Ok(Binder {
            source,
            keys: keys.to_vec(),
            key_types,
            calls: RefCell::new(Vec::new()),
            marks: RefCell::new(Vec::new()),
            lifted: 0,
        })
    }

    /// Binds `calls`, the aggregate calls taken out of the query's
    /// subqueries (`outer_aggregates::lift`), before any other: call `J`
    /// is the aggregate row's column `keys + J`, which its marker
    /// `$agg:J:OID` binds to.
    pub fn lift(&mut self, calls: &[Expr]) -> Result<(), SqlError> {
        for (j, call) in calls.iter().enumerate() {
            let at = self.keys.len() + j;
            if scalar::bind(call, &*self)? != Scalar::Column(at) {
                return Err(SqlError::new("XX000", "a lifted aggregate is not a call"));
            }
        }
        self.lifted = calls.len();
        Ok(())
    }

    /// The grouping, once every expression is bound, by `sets` of the
    /// keys (`grouping_sets::Expanded::sets`).
    pub fn finish(
        self,
        having: Option<Scalar>,
        sets: Vec<Vec<usize>>,
    ) -> Result<Grouping, SqlError> {
        let keys = self
            .keys
            .iter()
            .map(|k| scalar::bind(k, self.source))
            .collect::<Result<_, _>>()?;
        let calls = self.calls.into_inner();
        let mut marks = self.marks.into_inner();
        marks.resize(calls.len(), Vec::new());
        Ok(Grouping {
            keys,
            having,
            sets,
            marks,
            calls,
        })
    }

    /// `GROUPING(key, ...)`: each argument must be a group key (42803);
    /// its value is the set's, taken when the groups are finished (its
    /// arguments: `Grouping::marks`).
    fn grouping_call(&self, f: &sqlparser::ast::Function) -> Result<Scalar, SqlError> {
        let not_key = || {
            SqlError::new(
                "42803",
                "arguments to GROUPING must be grouping expressions of the associated query level",
            )
        };
        let args = match &f.args {
            FunctionArguments::List(list)
                if list.clauses.is_empty()
                    && list.duplicate_treatment.is_none()
                    && f.filter.is_none()
                    && f.within_group.is_empty() =>
            {
                &list.args
            }
            _ => return Err(SqlError::syntax(format!("syntax error at or near \"{f}\""))),
        };
        if args.is_empty() {
            return Err(SqlError::syntax("syntax error at or near \")\""));
        }
        if args.len() > crate::grouping_sets::MAX_GROUPING_ARGS {
            return Err(SqlError::new(
                "54023",
                "GROUPING must have fewer than 32 arguments",
            ));
        }
        let mut grouped = Vec::with_capacity(args.len());
        for arg in args {
            let FunctionArg::Unnamed(FunctionArgExpr::Expr(mut e)) = arg.clone() else {
                return Err(not_key());
            };
            while let Expr::Nested(inner) = e {
                e = *inner;
            }
            let key = match self.keys.iter().position(|k| *k == e) {
                Some(k) => k,
                // A column named otherwise than its key (`t.a` for `a`).
                None => match scalar::bind(&e, self) {
                    Ok(Scalar::Column(k)) if k < self.keys.len() => k,
                    _ => return Err(not_key()),
                },
            };
            grouped.push(key);
        }
        let mut calls = self.calls.borrow_mut();
        calls.push(Call {
            kind: Kind::Grouping,
            arg: None,
            delimiter: None,
            distinct: false,
            ty: SqlType::Int4,
            order: Vec::new(),
            filter: None,
            direct: Vec::new(),
            user: None,
        });
        let mut marks = self.marks.borrow_mut();
        marks.resize(calls.len(), Vec::new());
        marks[calls.len() - 1] = grouped;
        Ok(Scalar::Column(self.keys.len() + calls.len() - 1))
    }

    fn call(&self, f: &sqlparser::ast::Function) -> Result<Scalar, SqlError> {
        if f.over.is_some() {
            return Err(SqlError::unsupported("OVER"));
        }
        let hypothetical = crate::hypothetical::of_call(f);
        let ordered_set = match Kind::of(&names::function(&f.name)) {
            Some(Kind::OrderedSet(which)) if !f.within_group.is_empty() => Some(which),
            Some(kind) if !f.within_group.is_empty() && hypothetical.is_none() => {
                return Err(crate::ordered_set::within_group_refused(
                    kind,
                    f,
                    self.source,
                ));
            }
            _ => None,
        };
        // The call's own ORDER BY and FILTER, bound here (a window's
        // aggregate takes neither: `bind_call` refuses them).
        let mut plain = f.clone();
        plain.filter = None;
        let mut order = Vec::new();
        if let FunctionArguments::List(list) = &mut plain.args {
            for clause in std::mem::take(&mut list.clauses) {
                match clause {
                    FunctionArgumentClause::OrderBy(items) => order.extend(items),
                    other => list.clauses.push(other),
                }
            }
        }
        if contains_call(&Expr::Function(plain.clone()), is_grouping) {
            return Err(SqlError::new(
                "42803",
                "aggregate function calls cannot be nested",
            ));
        }
        let mut call = match (ordered_set, hypothetical) {
            (Some(which), _) => {
                crate::ordered_set::bind(which, &plain, self, self.keys.len(), self.source)?
            }
            (None, Some(which)) => {
                crate::hypothetical::bind(which, &plain, self, self.keys.len(), self.source)?
            }
            (None, None) => bind_call(&plain, self.source)?,
        };
        if call.distinct
            && let FunctionArguments::List(list) = &plain.args
            && order.iter().any(|o| {
                !list.args.iter().any(
                    |a| matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) if *e == o.expr),
                )
            })
        {
            return Err(SqlError::new(
                "42P10",
                "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list",
            ));
        }
        let within_group = ordered_set.is_some() || hypothetical.is_some();
        if within_group && !order.is_empty() {
            return Err(SqlError::syntax("syntax error at or near \"WITHIN\""));
        }
        if !within_group {
            call.order = (order.iter().enumerate())
                .map(|(i, o)| {
                    Ok((
                        scalar::bind(&o.expr, self.source)?,
                        SortKey::of(i, &o.options),
                    ))
                })
                .collect::<Result<_, SqlError>>()?;
        }
        if let Some(filter) = &f.filter {
            if contains_aggregate(filter) {
                return Err(SqlError::new(
                    "42803",
                    "aggregate functions are not allowed in FILTER",
                ));
            }
            let bound = scalar::bind(filter, self.source)?;
            scalar::require_bool(&bound, self.source, "FILTER", filter)?;
            call.filter = Some(bound);
        }
        let mut calls = self.calls.borrow_mut();
        calls.push(call);
        Ok(Scalar::Column(self.keys.len() + calls.len() - 1))
    }
}

/// An aggregate call's function and arguments, bound over `source` (the
/// call's OVER, FILTER and ORDER BY are the caller's). 42883 for arguments
/// it does not take; 0A000 for an ORDER BY left inside the call.
pub fn bind_call<C: Columns + ?Sized>(
    f: &sqlparser::ast::Function,
    source: &C,
) -> Result<Call, SqlError> {
    let name = names::function(&f.name);
    let Some(kind) = kind_of(&name) else {
        return Err(SqlError::unsupported(format!("the function {name}")));
    };
    if kind == Kind::User {
        return crate::user_aggregates::bind_call(f, source);
    }
    let FunctionArguments::List(list) = &f.args else {
        return Err(SqlError::unsupported(format!("{f}")));
    };
    // (A grouped query's ORDER BY is taken off by `Binder::call`: one
    // left here is a window aggregate's.)
    if let Some(clause) = list.clauses.first() {
        return Err(match clause {
            FunctionArgumentClause::OrderBy(_) => SqlError::new(
                "0A000",
                "aggregate ORDER BY is not implemented for window functions",
            ),
            _ => SqlError::unsupported(format!("{f} ({clause} inside an aggregate)")),
        });
    }
    if let Kind::OrderedSet(_) = kind {
        // Its forms all take a WITHIN GROUP.
        return Err(crate::ordered_set::without_within_group(
            &name, &list.args, source,
        ));
    }
    let distinct = matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
    let mut delimiter = None;
    let (kind, arg) = match (kind, list.args.as_slice()) {
        (Kind::Count, [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)]) if !distinct => {
            (Kind::CountStar, None)
        }
        // PostgreSQL's message for the parameterless form written without
        // its star.
        (Kind::Count, []) => {
            return Err(SqlError::new(
                "42809",
                "count(*) must be used to call a parameterless aggregate function",
            ));
        }
        (
            kind,
            [
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)),
                FunctionArg::Unnamed(FunctionArgExpr::Expr(d)),
            ],
        ) if kind.takes_two() => {
            delimiter = Some(scalar::bind(d, source)?);
            (kind, Some(scalar::bind(e, source)?))
        }
        (kind, [FunctionArg::Unnamed(FunctionArgExpr::Expr(e))]) if !kind.takes_two() => {
            // An aggregate's argument reads the source row.
            (kind, Some(scalar::bind(e, source)?))
        }
        _ => return Err(no_such_call(&name, &list.args, source)),
    };
    // json_agg of rows whose field names the binder knows: of their
    // json (`json_build::bind_record`), each a line.
    let (kind, arg) = match (kind, arg) {
        (Kind::JsonAgg { jsonb, .. }, Some(a)) => {
            let to = crate::json_build::BuildFunc::To { jsonb };
            match crate::json_build::bind_record(to, std::slice::from_ref(&a), source)? {
                Some(json) => (Kind::JsonAgg { jsonb, rows: true }, Some(json)),
                None => (kind, Some(a)),
            }
        }
        (kind, arg) => (kind, arg),
    };
    let arg_type = arg.as_ref().map_or(SqlType::Int8, |a| a.ty_in(source));
    let spread = matches!(kind, Kind::Spread { .. });
    // A quoted literal fits each of sum's, avg's and the spreads' numeric
    // forms, none better.
    if matches!(kind, Kind::Sum | Kind::Avg | Kind::Spread { .. })
        && matches!(arg, Some(Scalar::Const(Value::Text(_))))
    {
        return Err(functions::not_unique(format!(
            "function {name}(unknown) is not unique"
        )));
    }
    if matches!(kind, Kind::Sum | Kind::Avg | Kind::Spread { .. })
        && !arg_type.is_number()
        && (!matches!(arg_type, SqlType::Interval(_)) || spread)
        && !(kind == Kind::Sum && arg_type == SqlType::Money)
    {
        return Err(functions::no_match(format!(
            "function {name}({}) does not exist",
            arg_type.name()
        )));
    }
    if matches!(kind, Kind::JsonAgg { .. } | Kind::JsonObjectAgg { .. })
        && (arg_type == SqlType::Record
            || delimiter
                .as_ref()
                .is_some_and(|d| d.ty_in(source) == SqlType::Record))
    {
        return Err(SqlError::unsupported(format!(
            "{name} of a row value (folio's row values carry no field names)"
        )));
    }
    // A row value is counted, nothing else (PostgreSQL's record has no
    // aggregate but count; array_agg of rows is not built here).
    if arg_type == SqlType::Record && !matches!(kind, Kind::Count | Kind::CountStar) {
        return Err(functions::no_match(format!(
            "function {name}(record) does not exist"
        )));
    }
    // Nor has a composite type (a table's whole row) a min or max, nor
    // a bit string, a range or a multirange.
    if matches!(
        arg_type,
        SqlType::Composite(_)
            | SqlType::Bit(_)
            | SqlType::VarBit(_)
            | SqlType::Range(_)
            | SqlType::Multirange(_)
    ) && matches!(kind, Kind::Min | Kind::Max)
    {
        return Err(functions::no_match(format!(
            "function {name}({}) does not exist",
            crate::set_types::name(arg_type)
        )));
    }
    if kind == Kind::ArrayAgg && arg_type.array_of().is_none() && arg_type.element().is_none() {
        return Err(SqlError::unsupported(format!(
            "array_agg of type {}",
            arg_type.name()
        )));
    }
    if let Kind::Regression(_) = kind {
        // Of double precisions only: numbers are cast, quoted literals read.
        let fits = |s: &Option<Scalar>| match s {
            Some(Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_)) | None => true,
            Some(s) => s.ty_in(source).is_number(),
        };
        if !fits(&arg) || !fits(&delimiter) {
            return Err(no_such_call(&name, &list.args, source));
        }
    }
    if let Kind::RangeAgg { intersect } = kind
        && crate::multirange_functions::aggregate_type(intersect, arg_type).is_none()
    {
        return Err(functions::no_match(format!(
            "function {name}({}) does not exist",
            arg_type.name()
        )));
    }
    if matches!(kind, Kind::BoolAnd | Kind::BoolOr) && arg_type != SqlType::Bool {
        return Err(functions::no_match(format!(
            "function {name}({}) does not exist",
            arg_type.name()
        )));
    }
    Ok(Call {
        kind,
        arg,
        delimiter,
        distinct,
        ty: kind.result_type(arg_type),
        order: Vec::new(),
        filter: None,
        direct: Vec::new(),
        user: None,
    })
}

/// PostgreSQL's 42883 for an aggregate or window function called with
/// arguments it has no form for, naming their types (a `*` is none), with
/// its hint. An argument that does not bind is that error instead:
/// PostgreSQL binds the arguments before it looks for the function.
pub(crate) fn no_such_call<C: Columns + ?Sized>(
    name: &str,
    args: &[FunctionArg],
    source: &C,
) -> SqlError {
    let mut bound = Vec::new();
    for arg in args {
        match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => match scalar::bind(e, source) {
                Ok(b) => bound.push(b),
                Err(e) => return e,
            },
            FunctionArg::Unnamed(FunctionArgExpr::Wildcard) => {}
            other => return SqlError::unsupported(format!("the argument {other}")),
        }
    }
    functions::no_match(format!(
        "function {name}({}) does not exist",
        scalar::argument_types(&bound, source)
    ))
}

impl<C: Columns + ?Sized> Binder<'_, C> {
    /// The group key that is the source's column at `position` (named
    /// `name`), as the aggregate row's column: a column outside an
    /// aggregate is allowed only as a group key, however either names it
    /// (`id` or `t.id`). Else 42803, naming the column with its table as
    /// PostgreSQL does.
    fn grouped_column(&self, position: usize, name: &str) -> Result<(usize, SqlType), SqlError> {
        let is_column = |key: &Expr| {
            match key {
                Expr::Identifier(id) => self.source.resolve(&names::ident(id)),
                Expr::CompoundIdentifier(parts) if parts.len() == 2 => self
                    .source
                    .resolve_qualified(&names::ident(&parts[0]), &names::ident(&parts[1])),
                _ => return false,
            }
            .is_ok_and(|(p, _)| p == position)
        };
        if let Some(i) = self.keys.iter().position(is_column) {
            return Ok((i, self.key_types[i]));
        }
        let column = match self.source.qualifier_of(position) {
            Some(table) => format!("{table}.{name}"),
            None => name.to_string(),
        };
        Err(SqlError::new(
            "42803",
            format!(
                "column \"{column}\" must appear in the GROUP BY clause or be used in an aggregate function"
            ),
        ))
    }
}

impl<C: Columns + ?Sized> Columns for Binder<'_, C> {
    fn resolve(&self, name: &str) -> Result<(usize, SqlType), SqlError> {
        let (position, _) = self.source.resolve(name)?;
        self.grouped_column(position, name)
    }

    fn resolve_qualified(&self, qualifier: &str, name: &str) -> Result<(usize, SqlType), SqlError> {
        let (position, _) = self.source.resolve_qualified(qualifier, name)?;
        self.grouped_column(position, name)
    }

    /// A whole row not grouped by itself (`GROUP BY t` is a key,
    /// matched before this) is PostgreSQL's 42803.
    fn whole_row(&self, name: &str) -> Option<Result<Vec<usize>, SqlError>> {
        if let Err(e) = self.source.whole_row(name)? {
            return Some(Err(e));
        }
        Some(Err(SqlError::new(
            "42803",
            format!(
                "column \"{name}.*\" must appear in the GROUP BY clause or be used in an aggregate function"
            ),
        )))
    }

    fn whole_row_type(&self, name: &str) -> Option<&'static folio_row::CompositeType> {
        self.source.whole_row_type(name)
    }

    fn ungrouped_type(&self, expr: &Expr) -> Option<SqlType> {
        let bound = scalar::bind(expr, self.source).ok()?;
        Some(bound.ty_in(self.source))
    }

    fn type_at(&self, position: usize) -> SqlType {
        match position.checked_sub(self.keys.len()) {
            None => self.key_types[position],
            Some(i) => self.calls.borrow()[i].ty,
        }
    }

    fn intercept(&self, expr: &Expr) -> Option<Result<Scalar, SqlError>> {
        if let Some(i) = self.keys.iter().position(|k| k == expr) {
            return Some(Ok(Scalar::Column(i)));
        }
        if let Some((j, _)) = crate::outer_aggregates::marker_number(expr)
            && j < self.lifted
        {
            return Some(Ok(Scalar::Column(self.keys.len() + j)));
        }
        match expr {
            Expr::Function(f) if is_aggregate(f) => Some(self.call(f)),
            Expr::Function(f) if is_grouping(f) => Some(self.grouping_call(f)),
            _ => None,
        }
    }
}

/// Whether a call is to an aggregate function as an aggregate (with OVER
/// it is a window function's: `window.rs`).
pub fn is_aggregate(f: &sqlparser::ast::Function) -> bool {
    f.over.is_none()
        && (is_aggregate_name(&names::function(&f.name))
            || crate::hypothetical::of_call(f).is_some())
}

/// Whether a call is to `GROUPING(...)`, which only a grouped query has.
pub fn is_grouping(f: &sqlparser::ast::Function) -> bool {
    f.over.is_none() && names::function(&f.name) == "grouping"
}

/// Whether `name` is an aggregate function's.
pub fn is_aggregate_name(name: &str) -> bool {
    kind_of(name).is_some()
}

/// The aggregate a call of `name` names: a built-in one first (PostgreSQL
/// finds pg_catalog's first), else a `CREATE AGGREGATE` one in scope. The
/// one rule of which aggregate a call names.
fn kind_of(name: &str) -> Option<Kind> {
    Kind::of(name).or_else(|| crate::user_aggregates::is_named(name).then_some(Kind::User))
}

/// Whether an expression calls an aggregate anywhere.
pub fn contains_aggregate(expr: &Expr) -> bool {
    contains_call(expr, is_aggregate)
}

/// Whether an expression makes a call `wanted` accepts outside its
/// subqueries (whose calls are theirs): an aggregate's, a window
/// function's (`window.rs`).
pub fn contains_call(expr: &Expr, wanted: fn(&sqlparser::ast::Function) -> bool) -> bool {
    struct Find(usize, fn(&sqlparser::ast::Function) -> bool);
    impl sqlparser::ast::Visitor for Find {
        type Break = ();
        fn pre_visit_query(&mut self, _: &sqlparser::ast::Query) -> ControlFlow<()> {
            self.0 += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &sqlparser::ast::Query) -> ControlFlow<()> {
            self.0 -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Function(f) if self.0 == 0 && (self.1)(f) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        }
    }
    sqlparser::ast::Visit::visit(expr, &mut Find(0, wanted)).is_break()
}

/// An aggregate's running state.
#[derive(Debug, Clone)]
enum State {
    Count(i64),
    /// Sum (and count, for avg) of the non-null values.
    Sum(Option<Value>, i64),
    /// [`State::Sum`] of integers (int2, int4, int8), exact in an `i128`
    /// without a `Value` made per row, as PostgreSQL's `int8` and
    /// `int128` transition states: the first integer turns an empty sum
    /// into one ([`State::add_plain`]); a value of another type, or a sum
    /// past `i128`, turns it back ([`State::widen`]).
    Ints {
        sum: i128,
        n: i64,
    },
    Extreme(Option<Value>),
    Text(Option<String>),
    /// `string_agg` of byteas: the bytes so far.
    Bytes(Option<Vec<u8>>),
    Bool(Option<bool>),
    Array(Option<Vec<Value>>),
    /// `json_object_agg`'s keys and values so far.
    Pairs(Option<Vec<(Value, Value)>>),
    /// The count, sum and sum of squares of a variance's values.
    Spread(Moments),
    /// A regression's sums (`regression.rs`).
    Regression(crate::regression::Sums),
    /// A user-defined aggregate's transition value (`user_aggregates.rs`).
    User(crate::user_aggregates::UserState),
}

/// A variance's running values, as PostgreSQL keeps them: exact for
/// integers and numerics (`numeric_accum`); for floats N, Sx and Sxx by
/// the Youngs-Cramer update (`float8_accum`).
#[derive(Debug, Clone)]
enum Moments {
    None,
    Exact {
        n: i64,
        sum: Numeric,
        squares: Numeric,
    },
    Float {
        n: f64,
        sx: f64,
        sxx: f64,
    },
}

impl State {
    /// Takes a row's value `value` (not NULL) where that needs no `Value`
    /// made or dropped: a count, an integer sum or average, an integer
    /// extreme once there is one. Answers whether it did; otherwise
    /// [`accumulate`] takes it. The sum of int2 or int4 (an int8) fails
    /// as `+` of int8s does, at the row where it leaves int8's range.
    fn add_plain(&mut self, call: &Call, value: &Value) -> Result<bool, SqlError> {
        match self {
            State::Count(n) => *n += 1,
            State::Ints { sum, n } => {
                let Some(x) = integer(value) else {
                    return Ok(false);
                };
                let Some(total) = sum.checked_add(i128::from(x)) else {
                    return Ok(false);
                };
                if matches!(call.ty, SqlType::Int8) && i64::try_from(total).is_err() {
                    return Err(SqlError::new("22003", "bigint out of range"));
                }
                (*sum, *n) = (total, *n + 1);
            }
            State::Sum(None, _) => {
                let Some(x) = integer(value) else {
                    return Ok(false);
                };
                *self = State::Ints {
                    sum: x.into(),
                    n: 1,
                };
            }
            State::Extreme(Some(best)) => {
                let min = call.kind == Kind::Min;
                match (value, best) {
                    (Value::Int2(x), Value::Int2(b)) => keep_extreme(min, *x, b),
                    (Value::Int4(x), Value::Int4(b)) => keep_extreme(min, *x, b),
                    (Value::Int8(x), Value::Int8(b)) => keep_extreme(min, *x, b),
                    _ => return Ok(false),
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// An integer sum as the generic [`State::Sum`] (before a value
    /// [`State::add_plain`] does not take): its running total as the
    /// call's sum type (int8, or numeric).
    fn widen(&mut self, call: &Call) -> Result<(), SqlError> {
        if let State::Ints { sum, n } = *self {
            *self = State::Sum(Some(int_sum(call, sum)?), n);
        }
        Ok(())
    }

    /// The state of `call` before any value.
    fn of(call: &Call) -> State {
        match &call.user {
            Some(user) => State::User(user.start()),
            None => State::new(call.kind),
        }
    }

    /// The state before any value.
    fn new(kind: Kind) -> State {
        match kind {
            // (GROUPING takes no values: its result is its set's.)
            Kind::CountStar | Kind::Count | Kind::Grouping => State::Count(0),
            Kind::Sum | Kind::Avg => State::Sum(None, 0),
            Kind::Min | Kind::Max => State::Extreme(None),
            Kind::StringAgg => State::Text(None),
            Kind::BoolAnd | Kind::BoolOr => State::Bool(None),
            Kind::ArrayAgg
            | Kind::JsonAgg { .. }
            | Kind::OrderedSet(_)
            | Kind::Hypothetical(_)
            | Kind::RangeAgg { .. } => State::Array(None),
            Kind::JsonObjectAgg { .. } => State::Pairs(None),
            Kind::Spread { .. } => State::Spread(Moments::None),
            Kind::Regression(_) => State::Regression(Default::default()),
            // (Made by `State::of`, which has the call's functions.)
            Kind::User => State::Count(0),
        }
    }
}

/// One call's running aggregate over values added one at a time (a
/// window frame's: `window.rs`; DISTINCT is not for windows).
#[derive(Debug, Clone)]
pub struct Accumulator<'c> {
    call: &'c Call,
    state: State,
}

impl<'c> Accumulator<'c> {
    pub fn new(call: &'c Call) -> Self {
        Accumulator {
            call,
            state: State::of(call),
        }
    }

    /// Adds a row's argument value (`count(*)`: any non-NULL value) and
    /// delimiter; a NULL value is skipped, as aggregates but `array_agg`
    /// skip it.
    pub fn add(&mut self, value: Value, delimiter: Value) -> Result<(), SqlError> {
        if matches!(value, Value::Null) && !self.call.kind.takes_nulls() {
            return Ok(());
        }
        if self.state.add_plain(self.call, &value)? {
            return Ok(());
        }
        accumulate(self.call, &mut self.state, value, delimiter)
    }

    /// The aggregate of the values added so far.
    pub fn value(&self) -> Result<Value, SqlError> {
        result(self.call, self.state.clone())
    }
}

impl Grouping {
    /// The aggregate rows of `rows`: one per group (one in all for no
    /// GROUP BY, even over no rows), group key values then results,
    /// filtered by HAVING. Groups come set by set, in first-seen order
    /// within each.
    pub fn run(&self, rows: &[Vec<Value>], env: &Env<'_>) -> Result<Vec<Vec<Value>>, SqlError> {
        let mut groups = self.start();
        for row in rows {
            groups.add(row, env)?;
        }
        groups.finish(env)
    }

    /// Groups to be fed a row at a time ([`Groups::add`]), so the rows
    /// need not be held: [`Grouping::run`] over a stream. Each empty set
    /// (`()`, or no GROUP BY) has its one group from the start: it gives
    /// a row even over no rows, as PostgreSQL's does.
    pub fn start(&self) -> Groups<'_> {
        let wholes = self.sets.iter().filter(|set| set.is_empty()).count();
        let mut groups = Groups {
            grouping: self,
            groups: Vec::with_capacity(wholes),
            index: KeyMap::default(),
            whole: Vec::with_capacity(self.sets.len()),
        };
        for (s, set) in self.sets.iter().enumerate() {
            let whole = set.is_empty().then(|| {
                let key = (self.keys.iter()).map(|_| Value::Null).collect();
                let fresh = groups.fresh(s, key);
                groups.groups.push(fresh);
                groups.groups.len() - 1
            });
            groups.whole.push(whole);
        }
        groups
    }
}

/// The groups of a [`Grouping`] so far, in first-seen order.
pub struct Groups<'g> {
    grouping: &'g Grouping,
    groups: Vec<Group>,
    /// Each group's place in `groups` by its key's bytes (and, with
    /// several sets, its set's number after them).
    index: KeyMap<usize>,
    /// Per set, its one group when it groups by no key.
    whole: Vec<Option<usize>>,
}

/// One group: its set, its key values (NULL outside its set), and per
/// call its state, the values a DISTINCT call has taken, and the rows an
/// ordered call has yet to take (its ORDER BY keys, then its value and
/// delimiter). `seen` is empty when no call is DISTINCT and `pending`
/// when none has an ORDER BY: a plain `count(*)` group allocates only its
/// states.
struct Group {
    set: usize,
    key: Vec<Value>,
    states: Vec<State>,
    seen: Vec<KeySet>,
    pending: Vec<Vec<Vec<Value>>>,
}

impl Groups<'_> {
    fn fresh(&self, set: usize, key: Vec<Value>) -> Group {
        let calls = &self.grouping.calls;
        let distinct = calls.iter().any(|c| c.distinct);
        let ordered = calls.iter().any(|c| !c.order.is_empty());
        Group {
            set,
            key,
            states: calls.iter().map(State::of).collect(),
            seen: match distinct {
                true => vec![Default::default(); calls.len()],
                false => Vec::new(),
            },
            pending: match ordered {
                true => vec![Vec::new(); calls.len()],
                false => Vec::new(),
            },
        }
    }

    /// Adds a source row to its group in each set; 53200 once the
    /// statement is past its memory limit (`array_agg`, `string_agg` and
    /// the groups grow here, maybe over rows held in memory, which no
    /// scan checks any more).
    pub fn add(&mut self, row: &[Value], env: &Env<'_>) -> Result<(), SqlError> {
        folio_txn::check_memory()?;
        let grouping = self.grouping;
        // No GROUP BY: the one group, without a key made.
        if let ([_], Some(&Some(g))) = (grouping.sets.as_slice(), self.whole.first())
            && grouping.keys.is_empty()
        {
            return self.take(g, row, env);
        }
        let key: Vec<Value> = (grouping.keys.iter())
            .map(|k| k.eval(row, env))
            .collect::<Result<_, _>>()?;
        if !grouping.has_sets() {
            let g = match self.whole[0] {
                Some(g) => g,
                None => self.group_of(0, key),
            };
            return self.take(g, row, env);
        }
        for (s, set) in grouping.sets.iter().enumerate() {
            let g = match self.whole[s] {
                Some(g) => g,
                None => {
                    let mut own = vec![Value::Null; key.len()];
                    for &k in set {
                        own[k] = key[k].clone();
                    }
                    self.group_of(s, own)
                }
            };
            self.take(g, row, env)?;
        }
        Ok(())
    }

    /// The group of `key` in set `set`, made if new.
    fn group_of(&mut self, set: usize, key: Vec<Value>) -> usize {
        let mut hashed = group_hash(&key);
        if self.grouping.sets.len() > 1 {
            hashed.extend_from_slice(&set.to_le_bytes());
        }
        if let Some(&g) = self.index.get(&hashed) {
            return g;
        }
        let fresh = self.fresh(set, key);
        self.groups.push(fresh);
        self.index.insert(hashed, self.groups.len() - 1);
        self.groups.len() - 1
    }

    /// Feeds a source row to group `g`'s calls.
    fn take(&mut self, g: usize, row: &[Value], env: &Env<'_>) -> Result<(), SqlError> {
        let grouping = self.grouping;
        let group = &mut self.groups[g];
        for (c, call) in grouping.calls.iter().enumerate() {
            if call.kind == Kind::Grouping {
                continue;
            }
            if let Some(filter) = &call.filter
                && !filter.accepts(row, env)?
            {
                continue;
            }
            let value = argument(call, row, env)?;
            if matches!(*value, Value::Null) && !call.kind.takes_nulls() {
                continue;
            }
            if call.distinct && !group.seen[c].insert(group_hash(std::slice::from_ref(&*value))) {
                continue;
            }
            if call.order.is_empty() && group.states[c].add_plain(call, &value)? {
                continue;
            }
            let value = value.into_owned();
            let delimiter = match &call.delimiter {
                Some(d) => d.eval(row, env)?,
                None => Value::Null,
            };
            if call.order.is_empty() {
                accumulate(call, &mut group.states[c], value, delimiter)?;
                continue;
            }
            let mut taken = (call.order.iter())
                .map(|(key, _)| key.eval(row, env))
                .collect::<Result<Vec<_>, _>>()?;
            taken.extend([value, delimiter]);
            group.pending[c].push(taken);
        }
        Ok(())
    }

    /// The aggregate rows: each group's key values then its results,
    /// filtered by HAVING, set by set (the sets' order, each one's groups
    /// in first-seen order). An ordered call takes its values now, sorted.
    pub fn finish(mut self, env: &Env<'_>) -> Result<Vec<Vec<Value>>, SqlError> {
        let grouping = self.grouping;
        self.groups.sort_by_key(|g| g.set);
        let mut out = Vec::with_capacity(self.groups.len());
        for group in self.groups {
            let Group {
                set,
                key: mut row,
                states,
                mut pending,
                ..
            } = group;
            if row.is_empty() {
                // (No key: a new vector, not a grown one.)
                row = Vec::with_capacity(grouping.calls.len());
            } else {
                row.reserve_exact(grouping.calls.len());
            }
            let set = &grouping.sets[set];
            for (c, (call, mut state)) in grouping.calls.iter().zip(states).enumerate() {
                if call.kind == Kind::Grouping {
                    let mark = crate::grouping_sets::grouping_value(&grouping.marks[c], set);
                    row.push(Value::Int4(mark));
                    continue;
                }
                if !call.order.is_empty() {
                    let mut pending = std::mem::take(&mut pending[c]);
                    let keys: Vec<SortKey> = call.order.iter().map(|(_, k)| *k).collect();
                    crate::query::sort(&mut pending, &keys)?;
                    if let Kind::Hypothetical(which) = call.kind {
                        // Its row reads the group's keys, in `row` so far.
                        let hypothetical = (call.direct.iter())
                            .map(|d| d.eval(&row, env))
                            .collect::<Result<Vec<_>, _>>()?;
                        let value =
                            crate::hypothetical::result(which, &hypothetical, &pending, &keys)?;
                        row.push(value);
                        continue;
                    }
                    for mut taken in pending {
                        let delimiter = taken.pop().expect("a delimiter");
                        let value = taken.pop().expect("a value");
                        accumulate(call, &mut state, value, delimiter)?;
                    }
                }
                if let (Kind::OrderedSet(which), State::Array(values)) = (call.kind, &state) {
                    // The fraction reads the group's keys, in `row` so far.
                    let direct = match call.direct.first() {
                        Some(d) => d.eval(&row, env)?,
                        None => Value::Null,
                    };
                    let values = values.as_deref().unwrap_or_default();
                    row.push(crate::ordered_set::result(which, direct, values, call.ty)?);
                    continue;
                }
                row.push(result(call, state)?);
            }
            if let Some(having) = &grouping.having
                && !having.accepts(&row, env)?
            {
                continue;
            }
            out.push(row);
        }
        Ok(out)
    }
}

/// A map keyed by grouping bytes ([`group_hash`], folio-row's
/// `hash_key`): GROUP BY's groups, hash joins' tables, DISTINCT's seen
/// values. Their hasher is foldhash's (the keys are the executor's own
/// bytes, hashed once per row: SipHash's cost is not needed there).
pub type KeyMap<V> = foldhash::HashMap<Vec<u8>, V>;

/// The set kind of [`KeyMap`].
pub type KeySet = foldhash::HashSet<Vec<u8>>;

/// Group key values as bytes that are equal exactly when the values are
/// (numerics normalised: 1.5 and 1.50 are one group, as in PostgreSQL;
/// intervals by their span: `1 mon` and `30 days` are one; -0 and 0 one):
/// folio-row's `hash_key`.
pub fn group_hash(key: &[Value]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 * key.len());
    folio_row::hash_key(key, &mut out);
    out
}

/// A call's argument for a source row (`count(*)`'s: true): a column
/// borrowed from the row, anything else evaluated.
fn argument<'r>(call: &Call, row: &'r [Value], env: &Env<'_>) -> Result<Cow<'r, Value>, SqlError> {
    const ANY: &Value = &Value::Bool(true);
    Ok(match &call.arg {
        Some(Scalar::Column(c)) => Cow::Borrowed(&row[*c]),
        Some(arg) => Cow::Owned(arg.eval(row, env)?),
        None => Cow::Borrowed(ANY),
    })
}

/// `x` as the extreme so far if it passes `best` (the least for `min`,
/// else the greatest; of two equal integers either is the other).
fn keep_extreme<T: Ord + Copy>(min: bool, x: T, best: &mut T) {
    if (min && x < *best) || (!min && x > *best) {
        *best = x;
    }
}

/// An int2, int4 or int8's value.
fn integer(value: &Value) -> Option<i64> {
    match *value {
        Value::Int2(x) => Some(x.into()),
        Value::Int4(x) => Some(x.into()),
        Value::Int8(x) => Some(x),
        _ => None,
    }
}

/// An integer sum ([`State::Ints`]) as the call's sum type: int8 for a
/// sum of int2 or int4 (kept in its range as it was made), numeric
/// otherwise (a sum of int8, an average).
fn int_sum(call: &Call, sum: i128) -> Result<Value, SqlError> {
    Ok(match call.ty {
        SqlType::Int8 => Value::Int8(i64::try_from(sum).expect("kept in int8's range")),
        _ => Value::Numeric(Numeric::new(sum, 0)?),
    })
}

fn accumulate(
    call: &Call,
    state: &mut State,
    value: Value,
    delimiter: Value,
) -> Result<(), SqlError> {
    state.widen(call)?;
    match state {
        State::User(user) => {
            let bound = call.user.as_deref().expect("a user aggregate's functions");
            bound.add(user, value, delimiter)?;
        }
        State::Spread(moments) => moments.add(value)?,
        State::Regression(sums) => sums.add(value, delimiter)?,
        State::Array(items) => items.get_or_insert_with(Vec::new).push(value),
        State::Pairs(pairs) => {
            crate::json_build::object_key(&value, None, false)?;
            pairs.get_or_insert_with(Vec::new).push((value, delimiter));
        }
        // `string_agg(bytea, bytea)`: the first bytea makes it one (its
        // delimiter a bytea, or a quoted literal read as one).
        State::Text(None) if matches!(value, Value::Bytea(_)) => {
            let Value::Bytea(bytes) = value else {
                unreachable!("matched above")
            };
            *state = State::Bytes(Some(bytes));
        }
        State::Bytes(bytes) => {
            let Value::Bytea(value) = value else {
                return Err(SqlError::new(
                    "42804",
                    "string_agg of bytea and another type",
                ));
            };
            let all = bytes.get_or_insert_with(Vec::new);
            if let Value::Bytea(d) = types::coerce(delimiter, SqlType::Bytea)? {
                all.extend_from_slice(&d);
            }
            all.extend_from_slice(&value);
        }
        State::Text(text) => {
            let value = types::text_output(&value).unwrap_or_default();
            match text {
                None => *text = Some(value),
                Some(t) => {
                    // The delimiter before each value but the first (a
                    // NULL delimiter: none).
                    t.push_str(&types::text_output(&delimiter).unwrap_or_default());
                    t.push_str(&value);
                }
            }
        }
        State::Bool(b) => {
            let v = matches!(value, Value::Bool(true));
            *b = Some(match (call.kind, *b) {
                (_, None) => v,
                (Kind::BoolAnd, Some(x)) => x && v,
                (_, Some(x)) => x || v,
            });
        }
        State::Count(n) => *n += 1,
        State::Ints { .. } => unreachable!("widened above"),
        State::Sum(sum, n) => {
            // Integers are summed as int8 (sum of int4: int8) or numeric.
            let value = match (call.ty, value) {
                (SqlType::Int8, Value::Int2(x)) => Value::Int8(x.into()),
                (SqlType::Float8, Value::Float4(x)) => Value::Float8(x.into()),
                (SqlType::Int8, Value::Int4(x)) => Value::Int8(x.into()),
                (SqlType::Numeric(_), Value::Int2(x)) => {
                    Value::Numeric(Numeric::from_i64(x.into()))
                }
                (SqlType::Numeric(_), Value::Int4(x)) => {
                    Value::Numeric(Numeric::from_i64(x.into()))
                }
                (SqlType::Numeric(_), Value::Int8(x)) => Value::Numeric(Numeric::from_i64(x)),
                (_, v) => v,
            };
            *sum = Some(match sum.take() {
                None => value,
                Some(s) => expr::arithmetic(&BinaryOperator::Plus, s, value)?,
            });
            *n += 1;
        }
        State::Extreme(best) => {
            let replace = match best {
                None => true,
                Some(b) => {
                    let order = compare(&value, b)?.unwrap_or(Ordering::Equal);
                    // A value equal to the best so far replaces it, as
                    // PostgreSQL's `*_larger`/`*_smaller` keep the later
                    // of two equal values (`30 days` and `1 mon`).
                    if call.kind == Kind::Min {
                        order.is_le()
                    } else {
                        order.is_ge()
                    }
                }
            };
            if replace {
                *best = Some(value);
            }
        }
    }
    Ok(())
}

fn result(call: &Call, state: State) -> Result<Value, SqlError> {
    Ok(match state {
        State::Count(n) => Value::Int8(n),
        State::Sum(None, _)
        | State::Extreme(None)
        | State::Text(None)
        | State::Bytes(None)
        | State::Bool(None)
        | State::Array(None)
        | State::Pairs(None) => Value::Null,
        State::Regression(sums) => match call.kind {
            Kind::Regression(which) => sums.result(which),
            _ => unreachable!("a regression's state"),
        },
        State::Spread(moments) => match call.kind {
            Kind::Spread { sample, root } => moments.result(sample, root)?,
            _ => unreachable!("a variance's state"),
        },
        State::Array(Some(items)) => match call.kind {
            Kind::JsonAgg { jsonb, rows } => crate::json_build::agg(jsonb, rows, &items)?,
            Kind::RangeAgg { intersect } => {
                crate::multirange_functions::aggregate(intersect, items)?
            }
            _ if items.iter().any(|v| matches!(v, Value::Array(_))) => agg_arrays(items)?,
            _ => Value::array(items),
        },
        State::Pairs(Some(pairs)) => match call.kind {
            Kind::JsonObjectAgg { jsonb } => crate::json_build::object_agg(jsonb, &pairs)?,
            _ => unreachable!("json_object_agg's state"),
        },
        State::User(user) => {
            let bound = call.user.as_deref().expect("a user aggregate's functions");
            bound.result(&user)?
        }
        State::Text(Some(t)) => Value::Text(t),
        State::Bytes(Some(b)) => Value::Bytea(b),
        State::Bool(Some(b)) => Value::Bool(b),
        State::Extreme(Some(v)) => v,
        State::Ints { sum, n } if call.kind == Kind::Avg => avg(int_sum(call, sum)?, n)?,
        State::Ints { sum, .. } => int_sum(call, sum)?,
        State::Sum(Some(sum), n) if call.kind == Kind::Avg => avg(sum, n)?,
        State::Sum(Some(sum), _) => sum,
    })
}

impl Moments {
    fn add(&mut self, value: Value) -> Result<(), SqlError> {
        if let Value::Float4(_) | Value::Float8(_) = value {
            let x = match value {
                Value::Float4(x) => f64::from(x),
                Value::Float8(x) => x,
                _ => unreachable!("a float"),
            };
            let (n, sx, sxx) = match *self {
                Moments::Float { n, sx, sxx } => (n, sx, sxx),
                _ => (0.0, 0.0, 0.0),
            };
            let before = sx;
            let (n, sx) = (n + 1.0, sx + x);
            // As PostgreSQL's float8_accum: an Inf or NaN first value, or
            // a sum grown infinite, leaves no variance (NaN), not zero; an
            // infinite sum of finite values is an overflow.
            let sxx = if n > 1.0 {
                let t = x * n - sx;
                let sxx = sxx + t * t / (n * (n - 1.0));
                if sx.is_infinite() || sxx.is_infinite() {
                    if !before.is_infinite() && !x.is_infinite() {
                        return Err(SqlError::new("22003", "value out of range: overflow"));
                    }
                    f64::NAN
                } else {
                    sxx
                }
            } else if x.is_finite() {
                0.0
            } else {
                f64::NAN
            };
            *self = Moments::Float { n, sx, sxx };
            return Ok(());
        }
        let x = match value {
            Value::Int2(x) => Numeric::from_i64(x.into()),
            Value::Int4(x) => Numeric::from_i64(x.into()),
            Value::Int8(x) => Numeric::from_i64(x),
            Value::Numeric(x) => x,
            other => {
                return Err(SqlError::unsupported(format!(
                    "a variance of {}",
                    other.type_name()
                )));
            }
        };
        let square = x.checked_mul(&x)?;
        *self = match std::mem::replace(self, Moments::None) {
            Moments::Exact { n, sum, squares } => Moments::Exact {
                n: n + 1,
                sum: sum.checked_add(&x)?,
                squares: squares.checked_add(&square)?,
            },
            _ => Moments::Exact {
                n: 1,
                sum: x,
                squares: square,
            },
        };
        Ok(())
    }

    /// The variance (`root`: the standard deviation), of a sample or of
    /// the population; NULL over no values, or one for a sample.
    /// Numerics as PostgreSQL's `numeric_stddev_internal`: (N·Σx² -
    /// (Σx)²) / (N·(N-1)) (or N·N) at the division's scale, the root at
    /// the same scale; 0 when the numerator is not positive.
    fn result(&self, sample: bool, root: bool) -> Result<Value, SqlError> {
        let least = if sample { 2 } else { 1 };
        Ok(match *self {
            Moments::None => Value::Null,
            Moments::Float { n, sxx, .. } => {
                if n < f64::from(least) {
                    return Ok(Value::Null);
                }
                let variance = sxx / if sample { n - 1.0 } else { n };
                Value::Float8(if root { variance.sqrt() } else { variance })
            }
            Moments::Exact {
                n,
                ref sum,
                ref squares,
            } => {
                if n < i64::from(least) {
                    return Ok(Value::Null);
                }
                let count = Numeric::from_i64(n);
                let numerator = count
                    .checked_mul(squares)?
                    .checked_sub(&sum.checked_mul(sum)?)?;
                if !numerator.is_finite() {
                    return Ok(Value::Numeric(numerator));
                }
                if numerator.signum() <= Some(0) {
                    return Ok(Value::Numeric(Numeric::from_i64(0)));
                }
                let denominator =
                    count.checked_mul(&Numeric::from_i64(if sample { n - 1 } else { n }))?;
                let scale = crate::numeric_functions::div_scale(&numerator, &denominator);
                let variance = numerator
                    .checked_div(&denominator, scale, folio_row::Rounding::HalfAwayFromZero)?
                    .expect("a positive divisor");
                Value::Numeric(if root {
                    variance.sqrt(scale)?
                } else {
                    variance
                })
            }
        })
    }
}

/// `sum / n` as PostgreSQL's numeric division (its scale:
/// `numeric_functions::div_scale`).
fn avg(sum: Value, n: i64) -> Result<Value, SqlError> {
    let sum = match sum {
        Value::Numeric(x) => x,
        Value::Int8(x) => Numeric::from_i64(x),
        Value::Float8(x) => return Ok(Value::Float8(x / n as f64)),
        Value::Interval(i) => return Ok(Value::Interval(i.divided_by(n as f64)?)),
        other => {
            return Err(SqlError::unsupported(format!(
                "avg of {}",
                other.type_name()
            )));
        }
    };
    Ok(Value::Numeric(crate::numeric_functions::div(
        &sum,
        &Numeric::from_i64(n),
    )?))
}

/// `array_agg` of arrays: [`crate::array_functions::stack`]ed, with
/// PostgreSQL's errors for a NULL (22004), an empty array or arrays of
/// other dimensions (2202E).
pub(crate) fn agg_arrays(items: Vec<Value>) -> Result<Value, SqlError> {
    let mut arrays = Vec::with_capacity(items.len());
    for item in items {
        match item {
            // An empty one first (PostgreSQL's order of its checks);
            // after others it is of other dimensions.
            Value::Array(a) if a.is_empty() && arrays.is_empty() => {
                return Err(SqlError::new("2202E", "cannot accumulate empty arrays"));
            }
            Value::Array(a) => arrays.push(a),
            _ => return Err(SqlError::new("22004", "cannot accumulate null arrays")),
        }
    }
    crate::array_functions::stack(arrays)?.ok_or_else(|| {
        SqlError::new(
            "2202E",
            "cannot accumulate arrays of different dimensionality",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avg_takes_postgresql_division_scale() {
        // select avg(x) from (values (1), (2)) v(x): 1.5000000000000000
        let a = avg(Value::Int8(3), 2).unwrap();
        assert_eq!(crate::types::text_output(&a).unwrap(), "1.5000000000000000");
        // avg of 1.50 and 2.25: 1.8750000000000000
        let s = Numeric::parse("3.75").unwrap();
        let a = avg(Value::Numeric(s), 2).unwrap();
        assert_eq!(crate::types::text_output(&a).unwrap(), "1.8750000000000000");
        // avg over 100000 values summing to 5000050000: 50000.500000000000
        let a = avg(Value::Int8(5_000_050_000), 100_000).unwrap();
        assert_eq!(crate::types::text_output(&a).unwrap(), "50000.500000000000");
    }
}
