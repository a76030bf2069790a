//! Bound scalar expressions: an AST expression with its column names
//! resolved to positions in the row it reads and its quoted literals
//! typed by what they meet, evaluated row by row without looking names
//! up. The one owner of SQL comparison (three-valued, with PostgreSQL's
//! promotion of integers, numerics and floats) and of boolean logic.

use crate::array_functions::{self, ArrayFunc, CatOf};
use crate::catalog_functions::CatalogFunc;
use crate::error::SqlError;
use crate::expr;
use crate::functions::{self, Func, StrFunc};
use crate::names;
use crate::operand_types;
use crate::regex_functions::RegexFunc;
use crate::types;
use folio_row::{Numeric, SqlType, Value};
use sqlparser::ast::{
    AccessExpr, BinaryOperator, CeilFloorKind, DateTimeField, Expr, FunctionArguments,
    UnaryOperator,
};
use std::borrow::Cow;
use std::cmp::Ordering;

/// The columns an expression may name: the row it reads.
pub trait Columns {
    /// The position and type of column `name`, or 42703.
    fn resolve(&self, name: &str) -> Result<(usize, SqlType), SqlError>;
    /// The type of the column at `position`.
    fn type_at(&self, position: usize) -> SqlType;
    /// The position and type of column `name` of the table called
    /// `qualifier` (`t.c`); by default the one table there is.
    fn resolve_qualified(&self, qualifier: &str, name: &str) -> Result<(usize, SqlType), SqlError> {
        let _ = qualifier;
        self.resolve(name)
    }
    /// The name of the table (or its alias) the column at `position`
    /// comes from, as errors qualify a column (`"t.c"`); by default none.
    fn qualifier_of(&self, position: usize) -> Option<String> {
        let _ = position;
        None
    }
    /// A binding of `expr` that replaces the usual one (an aggregate call
    /// or a GROUP BY expression: `aggregate.rs`), if any.
    fn intercept(&self, _expr: &Expr) -> Option<Result<Scalar, SqlError>> {
        None
    }
    /// The positions of the columns of the FROM item called `name`, for
    /// a whole-row reference (`row_values.rs`); by default there is none.
    fn whole_row(&self, name: &str) -> Option<Result<Vec<usize>, SqlError>> {
        let _ = name;
        None
    }
    /// The row type of the FROM item called `name` when it is a table,
    /// view or materialized view (a whole-row reference's type); by
    /// default none (an anonymous record).
    fn whole_row_type(&self, _name: &str) -> Option<&'static folio_row::CompositeType> {
        None
    }
    /// The plain name of the column at `position`, for the fields of a
    /// whole-row reference as json (`json_build.rs`); by default unknown.
    fn column_name(&self, position: usize) -> Option<String> {
        let _ = position;
        None
    }
    /// A grouped query's binder (`aggregate.rs`): the type of `expr` over
    /// the rows before grouping, when it does not bind over the aggregate
    /// row, so an unknown function's 42883 can name it
    /// ([`unknown_function`]); by default none.
    fn ungrouped_type(&self, expr: &Expr) -> Option<SqlType> {
        let _ = expr;
        None
    }
    /// The collation a `COLLATE` clause gave the column at `position`
    /// (`collations.rs`); by default none (its type's).
    fn collation_at(&self, position: usize) -> Option<u32> {
        let _ = position;
        None
    }
    /// The name of the domain the column at `position` is declared with
    /// (its type is the domain's base type), for `pg_typeof`; by default
    /// none.
    fn domain_at(&self, position: usize) -> Option<String> {
        let _ = position;
        None
    }
}

/// A row known by its types alone (names do not resolve in it).
impl Columns for [SqlType] {
    fn resolve(&self, name: &str) -> Result<(usize, SqlType), SqlError> {
        Err(SqlError::undefined_column(name))
    }

    fn type_at(&self, position: usize) -> SqlType {
        self[position]
    }
}

impl Columns for [(String, SqlType)] {
    fn resolve(&self, name: &str) -> Result<(usize, SqlType), SqlError> {
        self.iter()
            .position(|(n, _)| n == name)
            .map(|i| (i, self[i].1))
            .ok_or_else(|| SqlError::undefined_column(name))
    }

    fn type_at(&self, position: usize) -> SqlType {
        self[position].1
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    fn of(op: &BinaryOperator) -> Option<Cmp> {
        Some(match op {
            BinaryOperator::Eq => Cmp::Eq,
            BinaryOperator::NotEq => Cmp::Ne,
            BinaryOperator::Lt => Cmp::Lt,
            BinaryOperator::LtEq => Cmp::Le,
            BinaryOperator::Gt => Cmp::Gt,
            BinaryOperator::GtEq => Cmp::Ge,
            _ => return None,
        })
    }

    /// The operator with its sides swapped (`a < b` is `b > a`).
    pub fn flipped(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            same => same,
        }
    }

    pub fn holds(self, order: Ordering) -> bool {
        match self {
            Cmp::Eq => order.is_eq(),
            Cmp::Ne => order.is_ne(),
            Cmp::Lt => order.is_lt(),
            Cmp::Le => order.is_le(),
            Cmp::Gt => order.is_gt(),
            Cmp::Ge => order.is_ge(),
        }
    }

    /// PostgreSQL's spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "=",
            Cmp::Ne => "<>",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }
}

/// What an expression is evaluated with besides the row: the
/// transaction's start, the statement's parameters, its subqueries'
/// results and, inside a correlated subquery, the outer row's values.
#[derive(Debug, Clone, Copy)]
pub struct Env<'a> {
    /// Microseconds since 2000-01-01 UTC (`CURRENT_TIMESTAMP`).
    pub now: i64,
    /// `$1`, `$2`, ...: text-format values (an unknown-typed literal, as
    /// PostgreSQL's untyped parameters) or NULL.
    pub params: &'a [Value],
    /// The result rows of the query's uncorrelated subqueries, run once
    /// per execution before its rows.
    pub subqueries: &'a [Vec<Vec<Value>>],
    /// Runs the query's correlated subqueries for a row (`query.rs`);
    /// `None` where they may not be evaluated (inside a scan).
    pub correlated: Option<&'a dyn Correlated>,
    /// In a correlated subquery: the outer row's values it reads
    /// ([`Scalar::Outer`]).
    pub outer: &'a [Value],
    /// The sequences the statement's `nextval`, `currval` and `setval`
    /// name, resolved for this execution (`sequences.rs`).
    pub sequences: Option<&'a crate::sequences::Calls>,
    /// The catalog as its lookups by oid or name read it for this
    /// execution (`lookups.rs`), when the statement makes any.
    pub lookups: Option<&'a crate::lookups::Lookups>,
    /// The session's advisory locks (`advisory.rs`), where a statement
    /// may call their functions.
    pub advisory: Option<&'a crate::advisory::SessionAdvisory>,
    /// The session's entry among the live sessions (`backend.rs`), where
    /// a statement may call the functions about sessions.
    pub backend: Option<&'a crate::backend::SessionBackend>,
    /// The statement's context, where it may call PL/pgSQL functions per
    /// row (`plpgsql/row_calls.rs`): set while any exists, so a statement
    /// that cannot call one never lends its transaction.
    pub cx: Option<&'a crate::context::Ctx<'a>>,
}

/// Runs a correlated subquery for one outer row.
pub trait Correlated: std::fmt::Debug {
    /// Subquery `n`'s rows for the outer `row`, or `None` if subquery `n`
    /// is not correlated.
    fn rows(&self, n: usize, row: &[Value]) -> Option<Result<Vec<Vec<Value>>, SqlError>>;

    /// The value of a call of a PL/pgSQL function with `args`, run with
    /// the transaction the holder lends (`plpgsql/row_calls.rs`).
    fn call(
        &self,
        call: &crate::plpgsql::row_calls::RowCall,
        args: Vec<Value>,
    ) -> Result<Value, SqlError>;
}

impl Env<'_> {
    /// An environment without parameters.
    pub fn at(now: i64) -> Env<'static> {
        Env {
            now,
            params: &[],
            subqueries: &[],
            correlated: None,
            outer: &[],
            sequences: None,
            lookups: None,
            advisory: None,
            backend: None,
            cx: None,
        }
    }

    /// The environment of a statement run in `cx` (without parameters),
    /// which may call PL/pgSQL functions per row.
    pub fn of<'c>(cx: &'c crate::context::Ctx<'c>) -> Env<'c> {
        Env {
            cx: crate::plpgsql::row_calls::cx_of(cx),
            ..Env::at(cx.now())
        }
    }

    /// Subquery `n`'s rows (for `row`, if it is correlated).
    fn subquery(&self, n: usize, row: &[Value]) -> Result<Cow<'_, [Vec<Value>]>, SqlError> {
        if let Some(rows) = self.correlated.and_then(|c| c.rows(n, row)) {
            return rows.map(Cow::Owned);
        }
        self.subqueries
            .get(n)
            .map(|rows| Cow::Borrowed(rows.as_slice()))
            .ok_or_else(|| SqlError::new("XX000", format!("subquery {n} was not run")))
    }
}

/// The marker a subquery is replaced by before binding (`query.rs`):
/// `$subquery:N`, `$exists:N`, `$in:N`. Not a token a client can write.
pub const SUBQUERY_MARK: &str = "$subquery:";
pub const EXISTS_MARK: &str = "$exists:";
pub const IN_MARK: &str = "$in:";
/// `$array:N:OID`: `ARRAY(SELECT ...)`, of array type OID.
pub const ARRAY_MARK: &str = "$array:";
/// `$outer:K:OID`: the outer query's value `K` in a correlated subquery.
pub const OUTER_MARK: &str = "$outer:";
/// `$agg:J:OID`: an aggregate call of the query holding a subquery, taken
/// out of it (`outer_aggregates.rs`), until the subquery reads it as an
/// outer value.
pub const AGG_MARK: &str = "$agg:";

/// A bound expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    Column(usize),
    Const(Value),
    /// `$n` (0-based here).
    Param(usize),
    /// A value taken as type `ty` (a parameter meeting a column takes the
    /// column's type, as PostgreSQL infers it).
    Typed(Box<Scalar>, SqlType),
    /// `CURRENT_TIMESTAMP`, `now()`: the transaction's start.
    Now,
    Negate(Box<Scalar>),
    Arith(BinaryOperator, Box<Scalar>, Box<Scalar>),
    Compare(Cmp, Box<Scalar>, Box<Scalar>),
    And(Box<Scalar>, Box<Scalar>),
    Or(Box<Scalar>, Box<Scalar>),
    Not(Box<Scalar>),
    IsNull(Box<Scalar>, bool),
    InList {
        expr: Box<Scalar>,
        list: Vec<Scalar>,
        negated: bool,
    },
    /// `CASE [operand] WHEN ... THEN ... [ELSE ...] END` (an operand
    /// compares equal to each WHEN value).
    Case {
        operand: Option<Box<Scalar>>,
        branches: Vec<(Scalar, Scalar)>,
        otherwise: Option<Box<Scalar>>,
    },
    /// `CAST(e AS type)`, `e::type`: an explicit cast
    /// (`types::explicit_cast`: to `varchar(n)` it cuts the text).
    Cast(Box<Scalar>, SqlType),
    /// `e::domain`: `e` (already cast to the base type) meeting the
    /// domain's rules (`domains.rs`).
    Domain(Box<Scalar>, std::sync::Arc<crate::domains::Bound>),
    /// `e [NOT] [I]LIKE pattern`, or with `regex` a POSIX regular
    /// expression match (`~`, `~*`, `!~`, `!~*`).
    Like {
        expr: Box<Scalar>,
        pattern: Box<Scalar>,
        negated: bool,
        insensitive: bool,
        regex: bool,
    },
    Func(Func, Vec<Scalar>),
    /// `(SELECT ...)`: its one value (NULL for no row), of its column's
    /// type.
    Subquery(usize, SqlType),
    /// `ARRAY(SELECT ...)`: its rows' one value each, as an array of
    /// type `ty`.
    ArraySubquery(usize, SqlType),
    /// In a correlated subquery, the outer row's value `K` (`Env::outer`).
    Outer(usize, SqlType),
    /// `EXISTS (SELECT ...)`.
    Exists(usize),
    /// `e [NOT] IN (SELECT ...)`.
    InSubquery {
        expr: Box<Scalar>,
        index: usize,
        negated: bool,
    },
    /// A call of a PL/pgSQL function, run per row it is evaluated for
    /// (`plpgsql/row_calls.rs`).
    Call(Box<crate::plpgsql::row_calls::RowCall>),
}

/// Binds `expr` over `columns`, its constant subexpressions folded
/// (`fold.rs`).
pub fn bind(expr: &Expr, columns: &(impl Columns + ?Sized)) -> Result<Scalar, SqlError> {
    let outermost = crate::fold::outermost();
    crate::fold::enter();
    let bound = bind_node(expr, columns).map(|e| crate::fold::node(e, columns));
    crate::fold::leave(bound.as_ref().ok());
    let bound = bound?;
    // The whole expression's explicit collations, derived once it binds
    // (PostgreSQL's assign_collations after transformExpr).
    if outermost {
        crate::collations::explicit(expr)?;
    }
    Ok(bound)
}

/// [`bind`] before folding.
fn bind_node(expr: &Expr, columns: &(impl Columns + ?Sized)) -> Result<Scalar, SqlError> {
    if let Some(bound) = columns.intercept(expr) {
        return bound;
    }
    if let Some(bound) = crate::row_values::bind(expr, columns) {
        return bound;
    }
    let boxed = |e: &Expr| bind(e, columns).map(Box::new);
    let node = expr;
    Ok(match expr {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Placeholder(p) if p.starts_with(SUBQUERY_MARK) => {
                let (n, ty) = typed_mark(&p[SUBQUERY_MARK.len()..])?;
                Scalar::Subquery(n, ty)
            }
            sqlparser::ast::Value::Placeholder(p) if p.starts_with(ARRAY_MARK) => {
                let (n, ty) = typed_mark(&p[ARRAY_MARK.len()..])?;
                Scalar::ArraySubquery(n, ty)
            }
            sqlparser::ast::Value::Placeholder(p) if p.starts_with(OUTER_MARK) => {
                let (k, ty) = typed_mark(&p[OUTER_MARK.len()..])?;
                Scalar::Outer(k, ty)
            }
            // Left where a subquery's outer values are not looked for.
            sqlparser::ast::Value::Placeholder(p) if p.starts_with(AGG_MARK) => {
                return Err(SqlError::unsupported(
                    "an outer query's aggregate in this clause of a subquery",
                ));
            }
            sqlparser::ast::Value::Placeholder(p) if p.starts_with(EXISTS_MARK) => {
                Scalar::Exists(mark_number(p, EXISTS_MARK)?)
            }
            sqlparser::ast::Value::Placeholder(p) => match crate::params::parameter(p) {
                Some((n @ 1.., None)) => Scalar::Param(n - 1),
                // A declared parameter is a value of its type.
                Some((n @ 1.., Some((oid, typmod)))) => {
                    let ty = crate::user_types::of_oid(oid, typmod).ok_or_else(|| {
                        SqlError::new("42704", format!("type with OID {oid} does not exist"))
                    })?;
                    Scalar::Typed(Box::new(Scalar::Param(n - 1)), ty)
                }
                // `$0`, or past any Bind's count: PostgreSQL's 42P02.
                _ if p.len() > 1 && p[1..].bytes().all(|b| b.is_ascii_digit()) => {
                    return Err(SqlError::new("42P02", format!("there is no parameter {p}")));
                }
                _ => return Err(SqlError::syntax(format!("syntax error at or near \"{p}\""))),
            },
            other => Scalar::Const(types::literal(other)?),
        },
        Expr::Nested(inner) => bind(inner, columns)?,
        // Every collation orders as folio does (`collations.rs`): the
        // clause names one, on a value of a type that takes one.
        Expr::Collate { expr, collation } => {
            let inner = bind(expr, columns)?;
            crate::collations::for_type(collation, inner.ty_in(columns))?;
            inner
        }
        // `current_schema`, `current_role`: reserved words the parser
        // leaves as names (a column can't be called so unquoted).
        Expr::Identifier(id)
            if id.quote_style.is_none()
                && let Some(value) = sql_value_function(&id.value) =>
        {
            value
        }
        Expr::Identifier(id) => match columns.resolve(&names::ident(id)) {
            Ok((c, _)) => Scalar::Column(c),
            Err(e) => crate::row_values::whole_row(&names::ident(id), columns).unwrap_or(Err(e))?,
        },
        Expr::CompoundIdentifier(parts) if parts.len() == 2 => Scalar::Column(
            columns
                .resolve_qualified(&names::ident(&parts[0]), &names::ident(&parts[1]))?
                .0,
        ),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr: operand,
        } => match signed_number(expr) {
            // `-2147483648` is one constant, typed by its signed value (an
            // integer), as PostgreSQL's grammar folds the minus into it.
            Some(text) => Scalar::Const(types::number(&text)?),
            None => match bind(operand, columns)? {
                Scalar::Const(v) => Scalar::Const(types::negate(v)?),
                other => Scalar::Negate(Box::new(other)),
            },
        },
        Expr::UnaryOp {
            op: UnaryOperator::Plus,
            expr,
        } => bind(expr, columns)?,
        Expr::UnaryOp { op, expr: operand } if crate::geometry_functions::is_prefix(op) => {
            crate::geometry_functions::bind_prefix(op, bind(operand, columns)?, columns)?
        }
        // `!! q`: a tsquery's negation (PostgreSQL 15 has no other `!!`).
        Expr::UnaryOp {
            op: op @ UnaryOperator::PGPrefixFactorial,
            expr: operand,
        } => {
            let operand = bind(operand, columns)?;
            match crate::ts_functions::bind_prefix(op, &operand, columns) {
                Some(bound) => bound?,
                None => {
                    return Err(crate::functions::no_operator(format!(
                        "operator does not exist: !! {}",
                        crate::set_types::name(operand.ty_in(columns))
                    )));
                }
            }
        }
        Expr::UnaryOp { op, expr: operand } if crate::math_operators::is_prefix(op) => {
            let operand = bind(operand, columns)?;
            match crate::network_functions::bind_prefix(op, &operand, columns) {
                Some(call) => call,
                None => match crate::bit_functions::bind_prefix(op, &operand, columns) {
                    Some(bits) => bits,
                    None => crate::math_operators::bind_prefix(op, operand, columns)?,
                },
            }
        }
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => {
            let bound = bind(expr, columns)?;
            require_bool(&bound, columns, "NOT", expr)?;
            Scalar::Not(Box::new(bound))
        }
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Overlaps,
            right,
        } => bind(&crate::overlaps::call(left, right)?, columns)?,
        Expr::BinaryOp { left, op, right } => {
            let (a, b) = (bind(left, columns)?, bind(right, columns)?);
            if let Some(bound) = crate::geometry_functions::bind_operator(op, &a, &b, columns) {
                return bound;
            }
            if let Some(bound) = crate::network_functions::bind_operator(op, &a, &b, columns) {
                return bound;
            }
            if let Some(bound) = crate::ts_functions::bind_operator(op, &a, &b, columns) {
                return bound;
            }
            let (a, b) = crate::network_functions::relabeled(a, b, columns)?;
            let op = qualified_operator(op)?;
            let op = op.as_ref();
            if let Some(bound) = crate::multirange_functions::bind_operator(op, &a, &b, columns) {
                return bound;
            }
            if let Some(bound) = crate::range_functions::bind_operator(op, &a, &b, columns) {
                return bound;
            }
            if let Some(bound) = crate::jsonpath_functions::bind_operator(op, &a, &b, columns) {
                return bound;
            }
            if let Some(bound) = crate::json_functions::bind_operator(op, &a, &b, columns) {
                return bound;
            }
            if let Some(bound) = crate::array_functions::bind_operator(op, &a, &b, columns) {
                return bound;
            }
            if let Some(bound) = crate::bit_functions::bind_operator(op, &a, &b, columns) {
                return bound;
            }
            if crate::math_operators::is_bitwise(op) {
                return crate::math_operators::bind_bitwise(op, a, b, columns);
            }
            match op {
                BinaryOperator::And | BinaryOperator::Or => {
                    let clause = if *op == BinaryOperator::And {
                        "AND"
                    } else {
                        "OR"
                    };
                    require_bool(&a, columns, clause, left)?;
                    require_bool(&b, columns, clause, right)?;
                    match op {
                        BinaryOperator::And => Scalar::And(Box::new(a), Box::new(b)),
                        _ => Scalar::Or(Box::new(a), Box::new(b)),
                    }
                }
                // `array || array`, `array || element`, `element || array`.
                BinaryOperator::StringConcat
                    if a.ty_in(columns).element().is_some()
                        || b.ty_in(columns).element().is_some() =>
                {
                    let array = [a.ty_in(columns), b.ty_in(columns)]
                        .into_iter()
                        .find(|t| t.element().is_some())
                        .expect("one side is an array");
                    let (a, b) = (fit_unknown(a, array)?, fit_unknown(b, array)?);
                    // Which of PostgreSQL's three operators: an untyped
                    // NULL is an array (`array[1] || NULL` is `{1}`), a
                    // typed one an element when its type says so
                    // (`NULL::int[] || 1` is `{1}`, `|| NULL::int` appends).
                    let is_array = |s: &Scalar| {
                        matches!(s, Scalar::Const(Value::Null))
                            || s.ty_in(columns).element().is_some()
                    };
                    let of = match (is_array(&a), is_array(&b)) {
                        (true, false) => CatOf::Append,
                        (false, true) => CatOf::Prepend,
                        _ => CatOf::Arrays,
                    };
                    Scalar::Func(Func::Array(ArrayFunc::Cat(of)), vec![a, b])
                }
                BinaryOperator::StringConcat => {
                    // A quoted literal beside a bytea is a bytea (`bytea ||
                    // bytea`, PostgreSQL's choice for `unknown`).
                    let bytea = |s: &Scalar| s.ty_in(columns) == SqlType::Bytea;
                    let (a, b) = match (a, b) {
                        (Scalar::Const(Value::Text(t)), b) if bytea(&b) => (
                            Scalar::Const(types::coerce(Value::Text(t), SqlType::Bytea)?),
                            b,
                        ),
                        (a, Scalar::Const(Value::Text(t))) if bytea(&a) => (
                            a,
                            Scalar::Const(types::coerce(Value::Text(t), SqlType::Bytea)?),
                        ),
                        pair => pair,
                    };
                    Scalar::Arith(
                        op.clone(),
                        Box::new(char_as_text(a, columns)),
                        Box::new(char_as_text(b, columns)),
                    )
                }
                BinaryOperator::Plus
                | BinaryOperator::Minus
                | BinaryOperator::Multiply
                | BinaryOperator::Divide
                | BinaryOperator::Modulo => Scalar::Arith(op.clone(), Box::new(a), Box::new(b)),
                BinaryOperator::PGExp => Scalar::Func(Func::Power, vec![a, b]),
                BinaryOperator::PGRegexMatch
                | BinaryOperator::PGRegexIMatch
                | BinaryOperator::PGRegexNotMatch
                | BinaryOperator::PGRegexNotIMatch => Scalar::Like {
                    expr: Box::new(a),
                    pattern: Box::new(b),
                    negated: matches!(
                        op,
                        BinaryOperator::PGRegexNotMatch | BinaryOperator::PGRegexNotIMatch
                    ),
                    insensitive: matches!(
                        op,
                        BinaryOperator::PGRegexIMatch | BinaryOperator::PGRegexNotIMatch
                    ),
                    regex: true,
                },
                op => match Cmp::of(op) {
                    Some(cmp) => match crate::row_values::compare(cmp, &a, &b, columns)? {
                        Some(rows) => rows,
                        None => comparison(cmp, a, b, columns)?,
                    },
                    None => return Err(SqlError::unsupported(format!("the operator {op}"))),
                },
            }
        }
        Expr::IsDistinctFrom(a, b) => bind(&crate::distinct_from::as_case(a, b, true), columns)?,
        Expr::IsNotDistinctFrom(a, b) => {
            bind(&crate::distinct_from::as_case(a, b, false), columns)?
        }
        Expr::IsNull(e) => crate::row_values::is_null(bind(e, columns)?, false, columns),
        Expr::IsNotNull(e) => crate::row_values::is_null(bind(e, columns)?, true, columns),
        Expr::InList {
            expr,
            list,
            negated,
        } if matches!(list.as_slice(), [Expr::Value(v)]
            if matches!(&v.value, sqlparser::ast::Value::Placeholder(p) if p.starts_with(IN_MARK))) =>
        {
            let [Expr::Value(v)] = list.as_slice() else {
                unreachable!("matched above")
            };
            let sqlparser::ast::Value::Placeholder(p) = &v.value else {
                unreachable!("matched above")
            };
            Scalar::InSubquery {
                expr: boxed(expr)?,
                index: mark_number(p, IN_MARK)?,
                negated: *negated,
            }
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let expr = bind(expr, columns)?;
            let pairs = list
                .iter()
                .map(|e| {
                    let (a, item) = typed_pair(expr.clone(), bind(e, columns)?, columns)?;
                    // Rows (a whole row, a composite value) are judged by
                    // the row comparison's rules (`row_values::compare`).
                    if crate::row_values::compare(Cmp::Eq, &a, &item, columns)?.is_none() {
                        operand_types::compared("=", &a, &item, columns)?;
                    }
                    Ok(char_sides(a, item, columns))
                })
                .collect::<Result<Vec<_>, SqlError>>()?;
            // `char(n)` sides compared as `=` compares them, when every
            // item reads the tested value alike.
            let alike = pairs.windows(2).all(|w| w[0].0 == w[1].0);
            let tested = match (alike, pairs.first()) {
                (true, Some((a, _))) => a.clone(),
                _ => expr,
            };
            let list = match alike {
                true => pairs.into_iter().map(|(_, item)| item).collect(),
                false => list
                    .iter()
                    .map(|e| Ok(typed_pair(tested.clone(), bind(e, columns)?, columns)?.1))
                    .collect::<Result<Vec<_>, SqlError>>()?,
            };
            Scalar::InList {
                expr: Box::new(tested),
                list,
                negated: *negated,
            }
        }
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => {
            // `a BETWEEN x AND y` is `a >= x AND a <= y`; `a NOT BETWEEN x
            // AND y` is `a < x OR a > y` (PostgreSQL's, which EXPLAIN shows).
            let a = bind(expr, columns)?;
            let (a1, low) = typed_pair(a.clone(), bind(low, columns)?, columns)?;
            let (a2, high) = typed_pair(a, bind(high, columns)?, columns)?;
            type Join = fn(Box<Scalar>, Box<Scalar>) -> Scalar;
            let ((above, above_op), (below, below_op), join): (_, _, Join) = match *negated {
                false => ((Cmp::Ge, ">="), (Cmp::Le, "<="), Scalar::And),
                true => ((Cmp::Lt, "<"), (Cmp::Gt, ">"), Scalar::Or),
            };
            operand_types::compared(above_op, &a1, &low, columns)?;
            operand_types::compared(below_op, &a2, &high, columns)?;
            let (a1, low) = char_sides(a1, low, columns);
            let (a2, high) = char_sides(a2, high, columns);
            join(
                Box::new(Scalar::Compare(above, Box::new(a1), Box::new(low))),
                Box::new(Scalar::Compare(below, Box::new(a2), Box::new(high))),
            )
        }
        Expr::Function(f)
            if f.name.to_string().eq_ignore_ascii_case("current_timestamp")
                && matches!(f.args, FunctionArguments::None) =>
        {
            Scalar::Now
        }
        Expr::Function(f)
            if ["now", "transaction_timestamp"]
                .iter()
                .any(|n| f.name.to_string().eq_ignore_ascii_case(n))
                && matches!(&f.args, FunctionArguments::List(l) if l.args.is_empty()) =>
        {
            Scalar::Now
        }
        // `localtime(p)`, `current_time(p)`, `localtimestamp(p)`,
        // `current_timestamp(p)`: the time or timestamp (with its zone)
        // kept to `p` digits of its seconds' fraction (a constant from 0
        // to 6; more is 6, as PostgreSQL's after its warning).
        Expr::Function(f)
            if [
                "localtime",
                "current_time",
                "localtimestamp",
                "current_timestamp",
            ]
            .iter()
            .any(|n| f.name.to_string().eq_ignore_ascii_case(n))
                && matches!(&f.args, FunctionArguments::List(l) if l.args.len() == 1) =>
        {
            let FunctionArguments::List(list) = &f.args else {
                unreachable!("matched above")
            };
            let precision = match &list.args[0] {
                sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(
                    Expr::Value(v),
                )) => match &v.value {
                    sqlparser::ast::Value::Number(n, _) => n.parse::<u8>().ok(),
                    _ => None,
                },
                _ => None,
            }
            .ok_or_else(|| {
                SqlError::syntax(format!("syntax error at or near \"{}\"", list.args[0]))
            })?;
            let precision = Some(precision.min(6));
            let ty = match f.name.to_string().to_ascii_lowercase().as_str() {
                "localtime" => SqlType::Time(precision),
                "current_time" => SqlType::TimeTz(precision),
                "localtimestamp" => SqlType::Timestamp(precision),
                _ => SqlType::TimestampTz(precision),
            };
            Scalar::Cast(Box::new(Scalar::Now), ty)
        }
        Expr::Function(f) if matches!(f.args, FunctionArguments::None) => {
            match sql_value_function(&f.name.to_string()) {
                Some(value) => value,
                None => function(f, columns)?,
            }
        }
        Expr::Function(f) => function(f, columns)?,
        Expr::Extract { field, expr, .. } => Scalar::Func(
            Func::Extract,
            vec![
                Scalar::Const(Value::Text(field.to_string().to_ascii_lowercase())),
                bind(expr, columns)?,
            ],
        ),
        Expr::AtTimeZone {
            timestamp,
            time_zone,
        } => {
            let (ts, zone) = (bind(timestamp, columns)?, bind(time_zone, columns)?);
            crate::time_zones::bind(ts, zone, true, columns)?
        }
        Expr::Interval(interval) => Scalar::Const(types::interval_literal(interval)?),
        Expr::TypedString(typed) => {
            let ty = types::column_type(&typed.data_type)?;
            let text = match &typed.value.value {
                sqlparser::ast::Value::SingleQuotedString(t)
                | sqlparser::ast::Value::EscapedStringLiteral(t) => t.clone(),
                other => return Err(SqlError::unsupported(format!("the literal {other}"))),
            };
            let value = types::cast(Value::Text(text), ty)?;
            match ty {
                // A constant's type is its value's, and a padded text is
                // no `character`: the cast keeps `char(20) 'x' || y` a
                // `character` operand, whose blanks `||` drops.
                SqlType::Char(_) => Scalar::Cast(Box::new(Scalar::Const(value)), ty),
                _ => Scalar::Const(value),
            }
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let operand = operand
                .as_deref()
                .map(|o| bind(o, columns))
                .transpose()?
                .map(Box::new);
            let branches: Vec<(Scalar, Scalar)> = conditions
                .iter()
                .map(|w| Ok((bind(&w.condition, columns)?, bind(&w.result, columns)?)))
                .collect::<Result<_, SqlError>>()?;
            let otherwise = else_result
                .as_deref()
                .map(|e| bind(e, columns))
                .transpose()?
                .map(Box::new);
            if let Some(subject) = &operand {
                for (when, _) in &branches {
                    operand_types::compared("=", subject, when, columns)?;
                }
            }
            let results = otherwise.as_deref().into_iter();
            operand_types::arms(
                "CASE",
                results.chain(branches.iter().map(|(_, t)| t)),
                columns,
            )?;
            let mut branches = branches;
            let mut otherwise = otherwise;
            operand_types::unify_numbers(
                "CASE",
                (otherwise.as_deref_mut().into_iter()).chain(branches.iter_mut().map(|(_, t)| t)),
                columns,
            );
            Scalar::Case {
                operand,
                branches,
                otherwise,
            }
        }
        Expr::Cast {
            expr,
            data_type,
            format: None,
            ..
        } if let Some(kind) = crate::reg_types::kind_of(data_type) => {
            // (Of a name or an oid: `reg_types.rs` reads either.)
            let value = bind(expr, columns)?;
            Scalar::Func(Func::Catalog(CatalogFunc::Reg(kind)), vec![value])
        }
        Expr::Cast {
            expr,
            data_type,
            format: None,
            ..
        } => {
            let ty = types::column_type(data_type)?;
            // `ARRAY[]::type[]`: an empty array takes its type from the cast.
            if let Expr::Array(a) = expr.as_ref()
                && a.elem.is_empty()
                && ty.element().is_some()
            {
                let empty = Scalar::Const(Value::array(Vec::new()));
                return Ok(Scalar::Cast(Box::new(empty), ty));
            }
            // `ARRAY[a, b]::type[]`: each element cast to the element type
            // (PostgreSQL's: `ARRAY[1, 'NaN']::float8[]` is no integer).
            if let Expr::Array(a) = expr.as_ref()
                && let Some(element) = ty.element()
                && !a.elem.iter().any(|e| matches!(e, Expr::Array(_)))
                && crate::domains::of_type(data_type).is_none()
                && crate::domains::of_array_type(data_type).is_none()
            {
                let items = (a.elem.iter())
                    .map(|e| {
                        Ok(match bind(e, columns)? {
                            Scalar::Const(v) => Scalar::Const(types::explicit_cast(v, element)?),
                            s if s.ty_in(columns) == element => s,
                            s => Scalar::Cast(Box::new(s), element),
                        })
                    })
                    .collect::<Result<Vec<_>, SqlError>>()?;
                return Ok(Scalar::Cast(
                    Box::new(Scalar::Func(Func::Array(ArrayFunc::Construct), items)),
                    ty,
                ));
            }
            let domain = match crate::domains::of_type(data_type) {
                Some(d) => Some(crate::domains::Bound::bind(
                    &d,
                    ty,
                    &crate::user_types::domains(),
                )?),
                // A cast to a domain's array type judges each element.
                None => crate::domains::rules_of_type(data_type)?,
            };
            let cast = match bind(expr, columns)? {
                // A quoted literal cast is a typed literal (`'1'::int`); an
                // array's keeps its cast, whose type an empty one has not,
                // and so does a NULL's (`null::int` is an integer: a set
                // operation's column type reads it), and a string's cast to
                // a string type (a bare text constant is an `unknown`
                // literal; `'a'::varchar` is a character varying).
                Scalar::Const(v) => match (types::explicit_cast(v, ty)?, ty) {
                    (array, SqlType::Array(_)) => Scalar::Cast(Box::new(Scalar::Const(array)), ty),
                    (Value::Null, _) if ty != SqlType::Text => {
                        Scalar::Cast(Box::new(Scalar::Const(Value::Null)), ty)
                    }
                    (
                        value @ Value::Text(_),
                        SqlType::Text
                        | SqlType::Varchar(_)
                        | SqlType::Char(_)
                        | SqlType::Refcursor
                        | SqlType::InternalChar
                        | SqlType::Name,
                    ) => Scalar::Cast(Box::new(Scalar::Const(value)), ty),
                    // A record says nothing of its composite type.
                    (value, SqlType::Composite(_)) => {
                        Scalar::Cast(Box::new(Scalar::Const(value)), ty)
                    }
                    // Nor a value of its precision (`1::numeric(5,2)` is a
                    // numeric(5,2): a view's or CREATE TABLE AS's column).
                    (value, _) if ty.unmodified() != ty => {
                        Scalar::Cast(Box::new(Scalar::Const(value)), ty)
                    }
                    (value, _) => Scalar::Const(value),
                },
                other if matches!(ty, SqlType::Text | SqlType::Varchar(_)) => {
                    Scalar::Cast(Box::new(char_as_text(other, columns)), ty)
                }
                other => {
                    if let SqlType::Composite(def) = ty {
                        crate::composite_values::check_row(&other, def, columns, true)?;
                    }
                    let from = other.ty_in(columns);
                    types::check_cast_path(from, ty)?;
                    match (from, ty) {
                        (SqlType::InternalChar, SqlType::Int4) => {
                            Scalar::Func(Func::InternalCharToInt4, vec![other])
                        }
                        _ => Scalar::Cast(Box::new(other), ty),
                    }
                }
            };
            match domain {
                Some(d) => Scalar::Domain(Box::new(cast), d),
                None => cast,
            }
        }
        Expr::Like {
            negated,
            any,
            expr,
            pattern,
            escape_char: None,
        }
        | Expr::ILike {
            negated,
            any,
            expr,
            pattern,
            escape_char: None,
        } if let Some((array, all)) = crate::array_functions::quantified_pattern(*any, pattern) => {
            let insensitive = matches!(node, Expr::ILike { .. });
            let mut array = bind(array, columns)?;
            if is_unknown(&array) {
                array = fit_unknown(array, SqlType::Array(&SqlType::Text))?;
            }
            Scalar::Func(
                Func::Array(ArrayFunc::Like {
                    negated: *negated,
                    insensitive,
                    all,
                    regex: false,
                }),
                vec![bind(expr, columns)?, array],
            )
        }
        Expr::Like {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => like(
            boxed(expr)?,
            escaped(boxed(pattern)?, escape_char)?,
            *negated,
            false,
        ),
        Expr::ILike {
            negated,
            any: false,
            expr,
            pattern,
            escape_char,
        } => like(
            boxed(expr)?,
            escaped(boxed(pattern)?, escape_char)?,
            *negated,
            true,
        ),
        // PostgreSQL's rewrite: `x ~ similar_to_escape(pattern [, escape])`.
        Expr::SimilarTo {
            negated,
            expr,
            pattern,
            escape_char,
        } => {
            let mut args = vec![bind(pattern, columns)?];
            if let Some(escape) = escape_char {
                args.push(escape_value(escape)?);
            }
            Scalar::Like {
                expr: boxed(expr)?,
                pattern: Box::new(Scalar::Func(Func::Regex(RegexFunc::SimilarToEscape), args)),
                negated: *negated,
                insensitive: false,
                regex: true,
            }
        }
        Expr::Floor {
            expr: x,
            field: CeilFloorKind::DateTimeField(DateTimeField::NoDateTime),
        } => Scalar::Func(Func::Floor, vec![bind(x, columns)?]),
        Expr::Ceil {
            expr: x,
            field: CeilFloorKind::DateTimeField(DateTimeField::NoDateTime),
        } => Scalar::Func(Func::Ceil, vec![bind(x, columns)?]),
        Expr::Position { expr, r#in } => {
            let args = vec![bind(r#in, columns)?, bind(expr, columns)?];
            let strpos = Func::Str(StrFunc::Strpos);
            match crate::bit_functions::bind_call(strpos, &args, columns) {
                Some(bits) => bits?,
                None => Scalar::Func(strpos, args),
            }
        }
        Expr::Trim {
            expr: trimmed,
            trim_where,
            trim_what,
            trim_characters,
        } => {
            use sqlparser::ast::TrimWhereField;
            if trim_characters.is_some() {
                return Err(SqlError::unsupported(format!("{expr}")));
            }
            let func = match trim_where {
                Some(TrimWhereField::Leading) => Func::Str(StrFunc::Ltrim),
                Some(TrimWhereField::Trailing) => Func::Str(StrFunc::Rtrim),
                Some(TrimWhereField::Both) | None => Func::Str(StrFunc::Btrim),
            };
            let mut args = vec![bind(trimmed, columns)?];
            if let Some(what) = trim_what {
                args.push(bind(what, columns)?);
            }
            Scalar::Func(func, args)
        }
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            shorthand,
            ..
        } => {
            let mut args = vec![char_as_text(bind(expr, columns)?, columns)];
            args.push(match substring_from {
                Some(f) => bind(f, columns)?,
                None => Scalar::Const(Value::Int4(1)),
            });
            if let Some(n) = substring_for {
                args.push(bind(n, columns)?);
            }
            // `substr` has no bit string form (`substring` has).
            match crate::bit_functions::bind_call(Func::Substr, &args, columns) {
                Some(_) if *shorthand => return Err(no_such_function("substr", &args, columns)),
                Some(bits) => bits?,
                None => Scalar::Func(Func::Substr, args),
            }
        }
        Expr::Overlay {
            expr,
            overlay_what,
            overlay_from,
            overlay_for,
        } => {
            let mut args = vec![
                bind(expr, columns)?,
                bind(overlay_what, columns)?,
                bind(overlay_from, columns)?,
            ];
            if let Some(n) = overlay_for {
                args.push(bind(n, columns)?);
            }
            if let Some(bits) = crate::bit_functions::bind_call(Func::Overlay, &args, columns) {
                return bits;
            }
            let types: Vec<Option<SqlType>> = (args.iter())
                .map(|a| match a {
                    Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
                    typed => Some(typed.ty_in(columns)),
                })
                .collect();
            if !crate::overlay::fits(&types) {
                return Err(no_such_function("pg_catalog.overlay", &args, columns));
            }
            let args = args.into_iter().map(|a| char_as_text(a, columns)).collect();
            Scalar::Func(Func::Overlay, args)
        }
        // `x IS [NOT] TRUE | FALSE` is never NULL: `x IS [NOT] DISTINCT
        // FROM true | false`; `IS [NOT] UNKNOWN` is `IS [NOT] NULL`.
        Expr::IsTrue(e) | Expr::IsNotTrue(e) | Expr::IsFalse(e) | Expr::IsNotFalse(e) => {
            let truth = matches!(expr, Expr::IsTrue(_) | Expr::IsNotTrue(_));
            let negated = matches!(expr, Expr::IsNotTrue(_) | Expr::IsNotFalse(_));
            let clause = match (negated, truth) {
                (false, true) => "IS TRUE",
                (true, true) => "IS NOT TRUE",
                (false, false) => "IS FALSE",
                (true, false) => "IS NOT FALSE",
            };
            require_bool(&bind(e, columns)?, columns, clause, e)?;
            let constant = Expr::Value(sqlparser::ast::Value::Boolean(truth).into());
            bind(
                &crate::distinct_from::as_case(e, &constant, negated),
                columns,
            )?
        }
        Expr::IsUnknown(e) | Expr::IsNotUnknown(e) => {
            let negated = matches!(expr, Expr::IsNotUnknown(_));
            let bound = bind(e, columns)?;
            let clause = if negated {
                "IS NOT UNKNOWN"
            } else {
                "IS UNKNOWN"
            };
            require_bool(&bound, columns, clause, e)?;
            crate::row_values::is_null(bound, negated, columns)
        }
        Expr::Array(array) => {
            if array.elem.is_empty() {
                return Err(SqlError::new(
                    "42P18",
                    "cannot determine type of empty array",
                ));
            }
            let args = array
                .elem
                .iter()
                .map(|e| bind(e, columns))
                .collect::<Result<Vec<_>, _>>()?;
            let types: Vec<SqlType> = args.iter().map(|a| a.ty_in(columns)).collect();
            let element = array_functions::element_type(&types);
            let nested = element.element().is_some();
            if element.array_of().is_none() && !nested {
                return Err(SqlError::unsupported(format!(
                    "arrays of type {}",
                    element.name()
                )));
            }
            let args = args
                .into_iter()
                .zip(types)
                .map(|(a, t)| match a {
                    a if t == element => Ok(a),
                    Scalar::Const(v) => types::cast(v, element).map(Scalar::Const),
                    other => Ok(Scalar::Cast(Box::new(other), element)),
                })
                .collect::<Result<Vec<_>, SqlError>>()?;
            // All constants: one array constant, of its type (as
            // PostgreSQL folds it).
            let constants: Option<Vec<Value>> = args
                .iter()
                .map(|a| match a {
                    Scalar::Const(v) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            match constants {
                Some(values) if nested => Scalar::Cast(
                    Box::new(Scalar::Const(array_functions::nest(values)?)),
                    element,
                ),
                Some(values) => Scalar::Cast(
                    Box::new(Scalar::Const(Value::array(values))),
                    element.array_of().expect("checked above"),
                ),
                None if nested => Scalar::Func(Func::Array(ArrayFunc::Nest), args),
                None => Scalar::Func(Func::Array(ArrayFunc::Construct), args),
            }
        }
        // Subscripts and fields, in turn (`d1[1].r`: a field of an
        // element); a chain of fields alone is `row_values::bind`'s.
        Expr::CompoundFieldAccess { root, access_chain } => {
            let mut value = bind(root, columns)?;
            let mut rest = &access_chain[..];
            while !rest.is_empty() {
                let subscripts: Vec<_> = (rest.iter())
                    .map_while(|a| match a {
                        AccessExpr::Subscript(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                if !subscripts.is_empty() {
                    rest = &rest[subscripts.len()..];
                    if let Some(bound) =
                        crate::geometry_functions::bind_subscript(&value, &subscripts, columns)
                    {
                        value = bound?;
                        continue;
                    }
                    value = crate::array_subscripts::bind_subscripts(value, &subscripts, columns)?;
                    continue;
                }
                let AccessExpr::Dot(Expr::Identifier(field)) = &rest[0] else {
                    return Err(SqlError::unsupported(format!("the expression {expr}")));
                };
                value = crate::row_values::field_of_bound(value, &names::ident(field), columns)?;
                rest = &rest[1..];
            }
            value
        }
        Expr::AnyOp {
            left,
            compare_op,
            right,
            ..
        } => bind_any_or_all(left, compare_op, right, false, columns)?,
        Expr::AllOp {
            left,
            compare_op,
            right,
        } => bind_any_or_all(left, compare_op, right, true, columns)?,
        other => return Err(SqlError::unsupported(format!("the expression {other}"))),
    })
}

/// An operand PostgreSQL types as `unknown` fitted to `ty`: a quoted
/// literal read by `ty`'s input syntax (without `ty`'s length or
/// precision, as PostgreSQL's: `c = 'toolong'` of a `char(1)` column
/// is false, not 22001), a `$n` parameter typed `ty`. Any other operand
/// is returned as it is (its type is its own).
pub fn fit_unknown(s: Scalar, ty: SqlType) -> Result<Scalar, SqlError> {
    Ok(match s {
        Scalar::Const(v @ Value::Text(_)) => Scalar::Const(types::cast(v, ty.unmodified())?),
        p @ Scalar::Param(_) => Scalar::Typed(Box::new(p), ty),
        other => other,
    })
}

/// Whether `s` is a quoted literal or a `$n` parameter: an operand whose
/// type comes from where it stands (`fit_unknown`).
pub fn is_unknown(s: &Scalar) -> bool {
    matches!(s, Scalar::Const(Value::Text(_)) | Scalar::Param(_))
}

/// `left op ANY (right)` / `ALL (right)` over an array: a quoted literal
/// on either side takes its type from the other (`x = ANY ('{1,2}')`,
/// `'d' = ANY (kinds)`), as PostgreSQL's `unknown` literals do.
fn bind_any_or_all(
    left: &Expr,
    op: &BinaryOperator,
    right: &Expr,
    all: bool,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let (mut l, mut r) = (bind(left, columns)?, bind(right, columns)?);
    if let Some(like) = pattern_operator(op, all) {
        if is_unknown(&r) {
            r = fit_unknown(r, SqlType::Array(&SqlType::Text))?;
        }
        return Ok(Scalar::Func(Func::Array(like), vec![l, r]));
    }
    let cmp = Cmp::of(op)
        .ok_or_else(|| SqlError::unsupported(format!("the operator {op} with ANY or ALL")))?;
    // `x = ANY ('{1,2}')`, `x = ANY ($1)`: an array of x's type (of text
    // when x has no array type).
    if is_unknown(&r) {
        match (&r, l.ty_in(columns).array_of()) {
            (_, Some(array)) => r = fit_unknown(r, array)?,
            (Scalar::Const(_), None) => r = fit_unknown(r, SqlType::Array(&SqlType::Text))?,
            _ => {}
        }
    }
    let Some(element) = r.ty_in(columns).element() else {
        return Err(SqlError::new(
            "42809",
            "op ANY/ALL (array) requires array on right side",
        ));
    };
    operand_types::compared_with_elements(&op.to_string(), &l, element, columns)?;
    l = fit_unknown(l, element)?;
    Ok(Scalar::Func(
        Func::Array(ArrayFunc::Compare { cmp, all }),
        vec![l, r],
    ))
}

/// `~`, `~*`, `!~`, `!~*` and `~~`, `~~*`, `!~~`, `!~~*` (LIKE) before
/// ANY or ALL: each element a pattern.
fn pattern_operator(op: &BinaryOperator, all: bool) -> Option<ArrayFunc> {
    use BinaryOperator as B;
    let (regex, negated, insensitive) = match op {
        B::PGRegexMatch => (true, false, false),
        B::PGRegexIMatch => (true, false, true),
        B::PGRegexNotMatch => (true, true, false),
        B::PGRegexNotIMatch => (true, true, true),
        B::PGLikeMatch => (false, false, false),
        B::PGILikeMatch => (false, false, true),
        B::PGNotLikeMatch => (false, true, false),
        B::PGNotILikeMatch => (false, true, true),
        _ => return None,
    };
    Some(ArrayFunc::Like {
        negated,
        insensitive,
        all,
        regex,
    })
}

/// The text a value matches a pattern as.
fn text_of(v: &Value) -> String {
    types::text_output(v).unwrap_or_default()
}

/// `OPERATOR(pg_catalog.op)` (psql writes operators so) as the plain
/// operator; any other operator as it is.
fn qualified_operator(op: &BinaryOperator) -> Result<Cow<'_, BinaryOperator>, SqlError> {
    let BinaryOperator::PGCustomBinaryOperator(parts) = op else {
        return Ok(Cow::Borrowed(op));
    };
    let symbol = match parts.as_slice() {
        [schema, symbol] if schema.eq_ignore_ascii_case("pg_catalog") => symbol,
        [symbol] => symbol,
        _ => return Err(SqlError::unsupported(format!("the operator {op}"))),
    };
    Ok(Cow::Owned(match symbol.as_str() {
        "=" => BinaryOperator::Eq,
        "<>" | "!=" => BinaryOperator::NotEq,
        "<" => BinaryOperator::Lt,
        "<=" => BinaryOperator::LtEq,
        ">" => BinaryOperator::Gt,
        ">=" => BinaryOperator::GtEq,
        "+" => BinaryOperator::Plus,
        "-" => BinaryOperator::Minus,
        "*" => BinaryOperator::Multiply,
        "/" => BinaryOperator::Divide,
        "%" => BinaryOperator::Modulo,
        "||" => BinaryOperator::StringConcat,
        "~" => BinaryOperator::PGRegexMatch,
        "~*" => BinaryOperator::PGRegexIMatch,
        "!~" => BinaryOperator::PGRegexNotMatch,
        "!~*" => BinaryOperator::PGRegexNotIMatch,
        _ => return Err(SqlError::unsupported(format!("the operator {op}"))),
    }))
}

/// A LIKE pattern with its ESCAPE character, as PostgreSQL binds it:
/// `like_escape(pattern, escape)`, the pattern written with a backslash.
fn escaped(
    pattern: Box<Scalar>,
    escape: &Option<sqlparser::ast::Value>,
) -> Result<Box<Scalar>, SqlError> {
    Ok(match escape {
        None => pattern,
        Some(e) => Box::new(Scalar::Func(
            Func::Regex(RegexFunc::LikeEscape),
            vec![*pattern, escape_value(e)?],
        )),
    })
}

/// An ESCAPE clause's value: a string or NULL.
fn escape_value(escape: &sqlparser::ast::Value) -> Result<Scalar, SqlError> {
    use sqlparser::ast::Value as Literal;
    match escape {
        Literal::SingleQuotedString(s) | Literal::EscapedStringLiteral(s) => {
            Ok(Scalar::Const(Value::Text(s.clone())))
        }
        Literal::Null => Ok(Scalar::Const(Value::Null)),
        other => Err(SqlError::unsupported(format!("the ESCAPE value {other}"))),
    }
}

fn like(expr: Box<Scalar>, pattern: Box<Scalar>, negated: bool, insensitive: bool) -> Scalar {
    Scalar::Like {
        expr,
        pattern,
        negated,
        insensitive,
        regex: false,
    }
}

/// `x [NOT] IN (items)`: `x = ANY (items)`, or `x <> ALL (items)`. The
/// one owner for IN lists and IN subqueries.
fn in_set(
    x: &Value,
    items: impl Iterator<Item = Result<Value, SqlError>>,
    negated: bool,
) -> Result<Value, SqlError> {
    let cmp = if negated { Cmp::Ne } else { Cmp::Eq };
    any_or_all(x, items, cmp, negated)
}

/// `x cmp ANY (items)`: true if any comparison holds, else NULL if any
/// was NULL, else false; `ALL`: false if any fails, else NULL if any was
/// NULL, else true (an empty set: false for ANY, true for ALL). The one
/// owner of this rule, for IN lists, IN subqueries and arrays.
pub fn any_or_all(
    x: &Value,
    items: impl Iterator<Item = Result<Value, SqlError>>,
    cmp: Cmp,
    all: bool,
) -> Result<Value, SqlError> {
    let mut unknown = false;
    for item in items {
        match compare(x, &item?)? {
            Some(order) if cmp.holds(order) != all => return Ok(Value::Bool(!all)),
            Some(_) => {}
            None => unknown = true,
        }
    }
    Ok(if unknown {
        Value::Null
    } else {
        Value::Bool(all)
    })
}

/// `N:OID` of a typed marker: the number and the type.
fn typed_mark(rest: &str) -> Result<(usize, SqlType), SqlError> {
    let (n, oid) = rest.split_once(':').unwrap_or((rest, "25"));
    let ty = oid
        .parse()
        .ok()
        .and_then(|oid| crate::user_types::of_oid(oid, -1))
        .unwrap_or(SqlType::Text);
    Ok((mark_number(n, "")?, ty))
}

fn mark_number(p: &str, mark: &str) -> Result<usize, SqlError> {
    p[mark.len()..]
        .parse()
        .map_err(|_| SqlError::syntax(format!("syntax error at or near \"{p}\"")))
}

/// A call of a scalar function (`functions.rs`); aggregates are bound by
/// `aggregate.rs` and are 42803 anywhere else.
fn function<C: Columns + ?Sized>(
    f: &sqlparser::ast::Function,
    columns: &C,
) -> Result<Scalar, SqlError> {
    if let Some(call) = crate::plpgsql::row_calls::bind(f, columns)? {
        return Ok(call);
    }
    if let Some(call) = crate::array_assignment::bind(f, columns)? {
        return Ok(call);
    }
    let name = names::function(&f.name);
    if !functions::exists(&name) {
        let type_of = |e: &Expr| -> Result<Option<SqlType>, SqlError> {
            Ok(match bind(e, columns)? {
                Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
                bound => Some(bound.ty_in(columns)),
            })
        };
        if let Some(expr) = crate::type_calls::expand(&name, f, type_of) {
            // A type with no cast from the argument's is no such
            // function (PostgreSQL's `date(1)`), not a failed cast.
            return bind(&expr?, columns).map_err(|e| match e.code {
                "42846" => unknown_function(&name, f, columns),
                _ => e,
            });
        }
        return Err(unknown_function(&name, f, columns));
    }
    // A `_populate_record` call of a composite type's base row is a
    // value of that type (`json_records.rs`); a `_recordset` one returns
    // rows.
    if let Some(r) = crate::json_records::RecordFunc::of(&name).filter(|r| r.populate) {
        return crate::json_records::bind_scalar(r, f, columns);
    }
    if f.over.is_some() {
        return Err(crate::window::not_allowed());
    }
    if crate::aggregate::is_aggregate(f) {
        return Err(SqlError::new(
            "42803",
            format!("aggregate functions are not allowed here ({name})"),
        ));
    }
    if crate::aggregate::is_grouping(f) {
        return Err(SqlError::new(
            "42803",
            "grouping operations are not allowed here",
        ));
    }
    let FunctionArguments::List(list) = &f.args else {
        return Err(SqlError::unsupported(format!("{f}")));
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
        return Err(SqlError::unsupported(format!("{f}")));
    }
    if let Some(call) = crate::variadic::bind(
        &name,
        &list.args,
        columns,
        |e| bind(e, columns),
        |args| no_such_function(&name, args, columns),
    )? {
        return Ok(call);
    }
    let special =
        crate::interval_functions::IntervalFunc::bind(&name, &list.args, |e| bind(e, columns))
            .or_else(|| {
                crate::jsonpath_functions::arguments(&name, &list.args)
                    .or_else(|| crate::json_edits::arguments(&name, &list.args))
                    .or_else(|| crate::parse_ident::arguments(&name, &list.args))
                    .map(|exprs| exprs?.iter().map(|e| bind(e, columns)).collect())
            });
    let args = match special {
        Some(args) => args?,
        None => list
            .args
            .iter()
            .map(|a| match a {
                sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(e)) => {
                    bind(e, columns)
                }
                other => Err(SqlError::unsupported(format!("the argument {other}"))),
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    // `pg_typeof(x)`: the argument's type, known when binding (`unknown`
    // for a quoted literal, as in PostgreSQL).
    if name == "pg_typeof"
        && let [arg] = args.as_slice()
    {
        // A domain's value is of the domain (its operators are the base
        // type's: only the name reported differs).
        let type_name = match arg {
            Scalar::Const(Value::Text(_)) | Scalar::Param(_) => "unknown".to_string(),
            domain if let Some(name) = crate::domains::value_domain(domain, columns) => name,
            // The type's name without its modifier (`format_type_be`).
            typed => crate::set_types::name(typed.ty_in(columns)),
        };
        return Ok(Scalar::Const(Value::Text(type_name)));
    }
    // `pg_collation_for(x)` (`COLLATION FOR (x)`): the argument's
    // collation, derived when binding.
    if name == "pg_collation_for"
        && let (
            [arg],
            [
                sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(
                    written,
                )),
            ],
        ) = (args.as_slice(), list.args.as_slice())
    {
        return crate::collations::collation_for(written, arg, columns);
    }
    // `pg_column_size(x)`: a column's value is sized as a table keeps it
    // (`column_size.rs`).
    if name == "pg_column_size"
        && let [arg] = args.as_slice()
    {
        let stored = matches!(arg, Scalar::Column(_));
        return Ok(Scalar::Func(Func::ColumnSize(stored), args));
    }
    if let Some(call) = crate::enum_functions::bind(&name, &args, columns)? {
        return Ok(call);
    }
    // The families that bind calls of their own names, in the order they
    // are asked; each gives the arguments back for a name not its own.
    type Family<C> = fn(&str, Vec<Scalar>, &C) -> Result<Result<Scalar, Vec<Scalar>>, SqlError>;
    let families: [Family<C>; 5] = [
        crate::multirange_functions::bind_call,
        crate::range_functions::bind_call,
        crate::network_functions::bind_call,
        crate::geometry_functions::bind_call,
        crate::ts_functions::bind_call,
    ];
    let mut args = args;
    for family in families {
        args = match family(&name, args, columns)? {
            Ok(call) => return Ok(call),
            Err(args) => args,
        };
    }
    // `timezone(zone, ts)`: as `ts AT TIME ZONE zone`.
    let args = match (name.as_str(), <[Scalar; 2]>::try_from(args)) {
        ("timezone", Ok([zone, ts])) => return crate::time_zones::bind(ts, zone, false, columns),
        (_, Ok(two)) => Vec::from(two),
        (_, Err(args)) => args,
    };
    let args = match crate::array_functions::bind_change(&name, args, columns)? {
        Ok(call) => return Ok(call),
        Err(args) => args,
    };
    let func = match Func::of(&name) {
        // An extension's function exists while the extension does.
        Some(Func::Crypto(f))
            if f.extension()
                .is_some_and(|e| !crate::extensions::installed(e)) =>
        {
            return Err(no_such_function(&name, &args, columns));
        }
        Some(func) if func.takes(args.len()) => func,
        None if crate::json_records::RecordFunc::of(&name).is_some() => {
            return Err(SqlError::new(
                "0A000",
                format!("could not determine row type for result of {name}"),
            )
            .with_hint("Provide a non-null record argument, or call the function in the FROM clause using a column definition list."));
        }
        None if crate::table_functions::is_table_function(&f.name) => {
            let name = crate::plpgsql::set_returning::shown_name(f).unwrap_or(name);
            return Err(SqlError::unsupported(format!(
                "{name}() here (a set-returning function runs in FROM or in a select list)"
            )));
        }
        None if crate::window::is_window_name(&name) => {
            return Err(crate::window::without_over(&name, &list.args, columns));
        }
        _ => return Err(no_such_function(&written(&f.name), &args, columns)),
    };
    if let Some(bits) = crate::bit_functions::bind_call(func, &args, columns) {
        return bits;
    }
    let known = |a: &Scalar| match a {
        Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
        typed => Some(typed.ty_in(columns)),
    };
    match func.forms(&args.iter().map(known).collect::<Vec<_>>()) {
        functions::Forms::One => {}
        functions::Forms::None => {
            return Err(no_such_function(&written(&f.name), &args, columns));
        }
        functions::Forms::Several => {
            return Err(functions::not_unique(format!(
                "function {name}({}) is not unique",
                argument_types(&args, columns)
            )));
        }
    }
    if let Func::Json(crate::json_functions::JsonFunc::Build(f)) = func
        && let Some(call) = crate::json_build::bind_record(f, &args, columns)?
    {
        return Ok(call);
    }
    let args = match func {
        Func::Json(f) => f.bind_args(&name, args, columns)?,
        _ => args,
    };
    // A `char(n)` argument of a text function is its text without the
    // trailing blanks (PostgreSQL casts it to `text`; `length` of a
    // `character` counts without them too). `octet_length` of one counts
    // every byte, and `concat` and the type-keeping functions take it as
    // it is.
    let args = match func {
        Func::Lower
        | Func::Upper
        | Func::Length
        | Func::Substr
        | Func::Overlay
        | Func::Str(
            StrFunc::Repeat
            | StrFunc::Replace
            | StrFunc::Left
            | StrFunc::Right
            | StrFunc::Lpad
            | StrFunc::Rpad
            | StrFunc::Btrim
            | StrFunc::Ltrim
            | StrFunc::Rtrim
            | StrFunc::Strpos
            | StrFunc::Reverse
            | StrFunc::SplitPart
            | StrFunc::Initcap
            | StrFunc::Md5
            | StrFunc::Translate
            | StrFunc::Ascii
            | StrFunc::StartsWith
            | StrFunc::Textcat,
        ) => args.into_iter().map(|a| char_as_text(a, columns)).collect(),
        _ => args,
    };
    let mut args = args;
    match (func, args.as_slice()) {
        (Func::Coalesce | Func::Greatest | Func::Least, _) => {
            operand_types::arms(&name.to_uppercase(), &args, columns)?;
            operand_types::unify_numbers(&name.to_uppercase(), &mut args, columns);
            // A quoted literal or `$n` among them takes their type
            // (`coalesce(doc -> 'tags', '[]')` is a jsonb).
            let types: Vec<SqlType> = args.iter().map(|a| a.ty_in(columns)).collect();
            let ty = func.ty(&types);
            if ty != SqlType::Text {
                args = (args.into_iter())
                    .map(|a| fit_unknown(a, ty))
                    .collect::<Result<_, _>>()?;
            }
        }
        (Func::Nullif, [a, b]) => operand_types::compared("=", a, b, columns)?,
        _ => {}
    }
    if func.is_sequence()
        && let Some(first) = args.first_mut()
        && !matches!(first, Scalar::Const(Value::Text(_)))
    {
        // `'s'::regclass` names its sequence as the literal does.
        let written = match list.args.first() {
            Some(sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(
                e,
            ))) => crate::sequences::literal_name(e),
            _ => None,
        };
        match written {
            Some(written) => *first = Scalar::Const(Value::Text(written.to_string())),
            // A name computed at run time: a text (`sequences.rs`).
            None if matches!(
                first.ty_in(columns),
                SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_)
            ) => {}
            None => {
                return Err(SqlError::unsupported(format!(
                    "{name} of a sequence named by a value that is not text"
                )));
            }
        }
    }
    Ok(Scalar::Func(func, args))
}

/// A function's name as a message shows it: qualified when the call was
/// (`pg_catalog.overlaps`), as PostgreSQL's `NameListToString`.
fn written(name: &sqlparser::ast::ObjectName) -> String {
    names::parts(name).map_or_else(|| names::function(name), |parts| parts.join("."))
}

/// PostgreSQL's 42883 for a call no function matches: the name with the
/// arguments' types (`unknown` for a quoted literal, NULL or a parameter, whose
/// type the call would decide), and its hint.
fn no_such_function(name: &str, args: &[Scalar], columns: &(impl Columns + ?Sized)) -> SqlError {
    functions::no_match(format!(
        "function {name}({}) does not exist",
        argument_types(args, columns)
    ))
}

/// PostgreSQL's 42883 for a call of a function folio has by no name
/// (`functions::exists`), wherever it is: its arguments (and WITHIN
/// GROUP's) are bound for their types, and one that reads a column
/// outside GROUP BY takes its type before grouping, since PostgreSQL looks
/// the function up before it checks the grouping (`select foo(x) from t
/// group by y` names `foo(integer)`). An argument that does not bind is
/// its own error.
pub(crate) fn unknown_function(
    name: &str,
    f: &sqlparser::ast::Function,
    columns: &(impl Columns + ?Sized),
) -> SqlError {
    if crate::field_stars::is_mark(name) {
        return crate::field_stars::not_here();
    }
    let mut exprs = Vec::new();
    if let FunctionArguments::List(list) = &f.args {
        for arg in &list.args {
            match arg {
                sqlparser::ast::FunctionArg::Unnamed(sqlparser::ast::FunctionArgExpr::Expr(e)) => {
                    exprs.push(e)
                }
                sqlparser::ast::FunctionArg::Unnamed(_) => {}
                other => return SqlError::unsupported(format!("the argument {other}")),
            }
        }
    }
    exprs.extend(f.within_group.iter().map(|o| &o.expr));
    let mut types = Vec::with_capacity(exprs.len());
    for e in exprs {
        let ty = match bind(e, columns) {
            Ok(Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_)) => {
                "unknown".to_string()
            }
            Ok(bound) => bound.ty_in(columns).name(),
            Err(err) if err.code == "42803" => match columns.ungrouped_type(e) {
                Some(ty) => ty.name(),
                None => return err,
            },
            Err(err) => return err,
        };
        types.push(ty);
    }
    if crate::procedures::named(name) {
        return crate::procedures::called_as_function(format!("{name}({})", types.join(", ")));
    }
    functions::no_match(format!(
        "function {name}({}) does not exist",
        types.join(", ")
    ))
}

/// The types of a call's arguments as PostgreSQL's errors list them.
pub(crate) fn argument_types(args: &[Scalar], columns: &(impl Columns + ?Sized)) -> String {
    let types: Vec<String> = args
        .iter()
        .map(|a| match a {
            Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => "unknown".to_string(),
            typed => typed.ty_in(columns).name(),
        })
        .collect();
    types.join(", ")
}

/// The text of a number literal under signs and parentheses with its
/// minus signs applied (`-(-5)` is `5`, `- 2147483648` is `-2147483648`),
/// or `None` if `e` is not one.
fn signed_number(e: &Expr) -> Option<String> {
    match e {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::Number(text, _) => Some(text.clone()),
            _ => None,
        },
        Expr::Nested(inner)
        | Expr::UnaryOp {
            op: UnaryOperator::Plus,
            expr: inner,
        } => signed_number(inner),
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr: inner,
        } => signed_number(inner).map(|text| match text.strip_prefix('-') {
            Some(positive) => positive.to_string(),
            None => format!("-{text}"),
        }),
        _ => None,
    }
}

/// `e` as text if it is a `char(n)` (its trailing blanks dropped,
/// [`Func::CharToText`]), else `e`.
fn char_as_text(e: Scalar, columns: &(impl Columns + ?Sized)) -> Scalar {
    match e.ty_in(columns) {
        SqlType::Char(_) => Scalar::Func(Func::CharToText, vec![e]),
        _ => e,
    }
}

/// A comparison's sides when one is a `char(n)`: PostgreSQL compares
/// `character` values without their trailing blanks. A quoted literal
/// or a `varchar` meeting one is read as a `character` too, its blanks
/// dropped (PostgreSQL resolves `bpchar = varchar` to `bpchar = bpchar`,
/// the candidate with one side an exact match, through the implicit cast
/// varchar -> bpchar); a `text` is compared as text, its blanks kept
/// (`bpchar = text` resolves to `text = text`: text is the preferred
/// string type, and the `char(n)` side alone drops its blanks). Two
/// `char` of one length, or a `char` column and a constant already
/// padded to it (`typed_pair`), are padded alike and compare as they
/// are (so an index on the column still serves).
fn char_sides(a: Scalar, b: Scalar, columns: &(impl Columns + ?Sized)) -> (Scalar, Scalar) {
    let (ta, tb) = (a.ty_in(columns), b.ty_in(columns));
    let padded_alike = ta == tb
        || matches!(
            (&a, &b),
            (Scalar::Column(_), Scalar::Const(_)) | (Scalar::Const(_), Scalar::Column(_))
        );
    if !matches!(ta, SqlType::Char(_)) && !matches!(tb, SqlType::Char(_)) || padded_alike {
        return (a, b);
    }
    let side = |e: Scalar, ty: SqlType| match e {
        Scalar::Const(Value::Text(mut t)) => {
            t.truncate(t.trim_end_matches(' ').len());
            Scalar::Const(Value::Text(t))
        }
        e if matches!(ty, SqlType::Varchar(_)) => Scalar::Func(Func::CharToText, vec![e]),
        e => char_as_text(e, columns),
    };
    (side(a, ta), side(b, tb))
}

/// `a cmp b` of two values (not rows): a quoted literal or parameter
/// typed by the column it meets, the operand types checked
/// (`operand_types.rs`), `char(n)` sides as [`char_sides`] says.
pub(crate) fn comparison(
    cmp: Cmp,
    a: Scalar,
    b: Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let (a, b) = typed_pair(a, b, columns)?;
    operand_types::compared(cmp.symbol(), &a, &b, columns)?;
    let (a, b) = char_sides(a, b, columns);
    Ok(Scalar::Compare(cmp, Box::new(a), Box::new(b)))
}

/// A quoted literal meeting a column takes the column's type without its
/// length or precision (PostgreSQL's `unknown` literals: `c = 'toolong'`
/// of a `char(1)` column is false, not 22001), at bind time.
fn typed_pair(
    a: Scalar,
    b: Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<(Scalar, Scalar), SqlError> {
    let typed = |literal: String, column: usize| {
        let ty = match columns.type_at(column) {
            // Padded as the column's values are (`char_sides`), to the
            // literal's length when that is longer.
            SqlType::Char(n) if n > 0 => {
                let length = literal.trim_end_matches(' ').chars().count();
                SqlType::Char(n.max(u32::try_from(length).unwrap_or(u32::MAX)))
            }
            ty => ty.unmodified(),
        };
        types::coerce(Value::Text(literal), ty).map(Scalar::Const)
    };
    let param = |p: Scalar, column: usize| Scalar::Typed(Box::new(p), columns.type_at(column));
    let composite = |e: &Scalar| matches!(e.ty_in(columns), SqlType::Composite(_));
    Ok(match (a, b) {
        (Scalar::Column(c), Scalar::Const(Value::Text(t))) => (Scalar::Column(c), typed(t, c)?),
        (Scalar::Const(Value::Text(t)), Scalar::Column(c)) => (typed(t, c)?, Scalar::Column(c)),
        (Scalar::Column(c), p @ Scalar::Param(_)) => (Scalar::Column(c), param(p, c)),
        (p @ Scalar::Param(_), Scalar::Column(c)) => (param(p, c), Scalar::Column(c)),
        // A literal meeting a composite value (a table's whole row, a
        // field of one): the record's input of its type.
        (a, Scalar::Const(Value::Text(t))) if composite(&a) => {
            let ty = a.ty_in(columns);
            (a, Scalar::Const(types::coerce(Value::Text(t), ty)?))
        }
        (Scalar::Const(Value::Text(t)), b) if composite(&b) => {
            let ty = b.ty_in(columns);
            (Scalar::Const(types::coerce(Value::Text(t), ty)?), b)
        }
        pair => pair,
    })
}

impl Scalar {
    /// The type of a parameter's value as the expression gives it: a
    /// `$n` typed where it stands (`Typed`) or cast (`CAST($n AS t)`, as
    /// PL/pgSQL passes its variables). Such an operand is a value fixed
    /// for one execution, which an index condition may compare with.
    pub fn parameter_type(&self) -> Option<SqlType> {
        self.typed_param().map(|(_, t)| t)
    }

    /// The parameter it is and the type it has where it stands: a `$n`
    /// typed by what it meets or declared (`Typed`), or cast in place
    /// (`$n::t`, `CAST($n AS t)`). The one owner of that rule (README
    /// "Parameter types"): Describe's inference and the planner's index
    /// conditions read it.
    pub fn typed_param(&self) -> Option<(usize, SqlType)> {
        match self {
            Scalar::Typed(inner, t) | Scalar::Cast(inner, t) => match inner.as_ref() {
                Scalar::Param(n) => Some((*n, *t)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Where the planner reads a constant: a string constant cast to a
    /// string type (`'x'::text`, kept a cast for its type) is its
    /// constant; anything else is itself.
    pub fn through_string_cast(&self) -> &Scalar {
        match self {
            Scalar::Cast(inner, SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_))
                if matches!(inner.as_ref(), Scalar::Const(_)) =>
            {
                inner
            }
            other => other,
        }
    }

    /// Its value for `row` in a transaction that started at `now`.
    pub fn eval(&self, row: &[Value], env: &Env<'_>) -> Result<Value, SqlError> {
        Ok(match self {
            Scalar::Column(c) => row[*c].clone(),
            Scalar::Const(v) => v.clone(),
            Scalar::Param(n) => env.params.get(*n).cloned().ok_or_else(|| {
                SqlError::new("42P02", format!("there is no parameter ${}", n + 1))
            })?,
            Scalar::Typed(e, ty) => types::coerce(e.eval(row, env)?, *ty)?,
            Scalar::Now => Value::TimestampTz(env.now),
            Scalar::Negate(e) => types::negate(e.eval(row, env)?)?,
            Scalar::Arith(op, a, b) => expr::arithmetic(op, a.eval(row, env)?, b.eval(row, env)?)?,
            // Booleans as `truth.rs` decides them.
            Scalar::Compare(..)
            | Scalar::And(..)
            | Scalar::Or(..)
            | Scalar::Not(_)
            | Scalar::IsNull(..) => match self.truth_in(row, env)? {
                Some(b) => Value::Bool(b),
                None => Value::Null,
            },
            Scalar::Case {
                operand,
                branches,
                otherwise,
            } => {
                let subject = match operand {
                    Some(o) => Some(o.eval(row, env)?),
                    None => None,
                };
                for (when, then) in branches {
                    let hit = match &subject {
                        Some(v) => compare(v, &when.eval(row, env)?)? == Some(Ordering::Equal),
                        None => truth(&when.eval(row, env)?)? == Some(true),
                    };
                    if hit {
                        return then.eval(row, env);
                    }
                }
                match otherwise {
                    Some(e) => e.eval(row, env)?,
                    None => Value::Null,
                }
            }
            Scalar::Cast(e, ty) => types::explicit_cast(e.eval(row, env)?, *ty)?,
            Scalar::Domain(e, domain) => {
                let value = e.eval(row, env)?;
                domain.enforce(&value, env)?;
                value
            }
            Scalar::Like {
                expr,
                pattern,
                negated,
                insensitive,
                regex,
            } => match (expr.eval(row, env)?, pattern.eval(row, env)?) {
                (Value::Null, _) | (_, Value::Null) => Value::Null,
                (v, p) => {
                    // bytea LIKE bytea matches byte by byte: each byte
                    // read as the character of its value.
                    let (v, p) = match (&v, &p, regex) {
                        (Value::Bytea(v), Value::Bytea(p), false) => (
                            v.iter().copied().map(char::from).collect(),
                            p.iter().copied().map(char::from).collect(),
                        ),
                        _ => (text_of(&v), text_of(&p)),
                    };
                    let hit = match regex {
                        true => crate::regex_match::matches(&v, &p, *insensitive)?,
                        false => functions::like(&v, &p, *insensitive),
                    };
                    Value::Bool(hit != *negated)
                }
            },
            // Lazy: no argument after the first that is not NULL.
            Scalar::Func(Func::Coalesce, args) => {
                functions::coalesce(args.iter().map(|a| a.eval(row, env)))?
            }
            Scalar::Func(f, args) if f.is_sequence() => {
                let values = args
                    .iter()
                    .map(|a| a.eval(row, env))
                    .collect::<Result<Vec<_>, _>>()?;
                match env.sequences {
                    Some(calls) => calls.call(*f, &values, env.lookups)?,
                    None => f.eval(values, env.lookups)?,
                }
            }
            Scalar::Func(Func::Advisory(f), args) if let Some(advisory) = env.advisory => {
                let values = args
                    .iter()
                    .map(|a| a.eval(row, env))
                    .collect::<Result<Vec<_>, _>>()?;
                advisory.call(*f, &values)?
            }
            Scalar::Func(Func::Xact(f), args) if let Some(backend) = env.backend => {
                let values = args
                    .iter()
                    .map(|a| a.eval(row, env))
                    .collect::<Result<Vec<_>, _>>()?;
                if values.contains(&Value::Null) {
                    return Ok(Value::Null);
                }
                f.call(backend, &values)?
            }
            Scalar::Func(Func::Net(f), _)
                if f.of_connection()
                    && let Some(backend) = env.backend =>
            {
                f.connection(backend)
            }
            Scalar::Func(Func::Wal(f), _)
                if !f.immutable()
                    && let Some(backend) = env.backend =>
            {
                f.position(backend.database())
            }
            Scalar::Func(Func::Backend(f), args) if let Some(backend) = env.backend => {
                let values = args
                    .iter()
                    .map(|a| a.eval(row, env))
                    .collect::<Result<Vec<_>, _>>()?;
                f.call(backend, &values)?
            }
            Scalar::Func(f, args) => f.eval(
                args.iter()
                    .map(|a| a.eval(row, env))
                    .collect::<Result<_, _>>()?,
                env.lookups,
            )?,
            Scalar::Call(call) => call.eval(row, env)?,
            Scalar::Outer(k, _) => {
                env.outer.get(*k).cloned().ok_or_else(|| {
                    SqlError::new("XX000", format!("outer value {k} was not given"))
                })?
            }
            Scalar::Subquery(n, _) => match env.subquery(*n, row)?.as_ref() {
                [] => Value::Null,
                [row] => row.first().cloned().unwrap_or(Value::Null),
                _ => {
                    return Err(SqlError::new(
                        "21000",
                        "more than one row returned by a subquery used as an expression",
                    ));
                }
            },
            Scalar::ArraySubquery(n, _) => {
                let items: Vec<Value> = (env.subquery(*n, row)?.iter())
                    .map(|r| r.first().cloned().unwrap_or(Value::Null))
                    .collect();
                match items.iter().any(|v| matches!(v, Value::Array(_))) {
                    true => crate::aggregate::agg_arrays(items)?,
                    false => Value::array(items),
                }
            }
            Scalar::Exists(n) => Value::Bool(!env.subquery(*n, row)?.is_empty()),
            Scalar::InSubquery {
                expr,
                index,
                negated,
            } => {
                let x = expr.eval(row, env)?;
                let rows = env.subquery(*index, row)?;
                let items = rows
                    .iter()
                    .map(|r| Ok(r.first().cloned().unwrap_or(Value::Null)));
                in_set(&x, items, *negated)?
            }
            Scalar::InList {
                expr,
                list,
                negated,
            } => {
                let x = expr.eval(row, env)?;
                in_set(&x, list.iter().map(|item| item.eval(row, env)), *negated)?
            }
        })
    }

    /// Whether `row` satisfies it (a WHERE clause: NULL is not true).
    pub fn accepts(&self, row: &[Value], env: &Env<'_>) -> Result<bool, SqlError> {
        Ok(self.truth_in(row, env)? == Some(true))
    }

    /// The type of its values over `columns`.
    pub fn ty_in(&self, columns: &(impl Columns + ?Sized)) -> SqlType {
        match self {
            Scalar::Column(c) => columns.type_at(*c),
            Scalar::Const(v) => value_type(v),
            Scalar::Param(_) => SqlType::Text,
            Scalar::Typed(_, ty) => *ty,
            Scalar::Now => SqlType::TimestampTz(None),
            Scalar::Negate(e) | Scalar::Domain(e, _) => e.ty_in(columns),
            Scalar::Arith(BinaryOperator::StringConcat, a, b)
                if a.ty_in(columns) == SqlType::Bytea && b.ty_in(columns) == SqlType::Bytea =>
            {
                SqlType::Bytea
            }
            Scalar::Arith(BinaryOperator::StringConcat, ..) => SqlType::Text,
            Scalar::Arith(op, a, b) => {
                let (x, y) = (a.ty_in(columns), b.ty_in(columns));
                // An untyped literal takes the other side's type.
                let literal = |t: SqlType, other: SqlType| match t {
                    SqlType::Text => crate::date_arith::literal_type(op, other),
                    _ => t,
                };
                let (x, y) = (literal(x, y), literal(y, x));
                crate::date_arith::result_type(op, x, y)
                    .or_else(|| crate::wal_functions::result_type(op, x, y))
                    .or_else(|| crate::money_functions::result_type(op, x, y))
                    .or_else(|| crate::math_operators::result_type(op, x, y))
                    .unwrap_or_else(|| wider(x, y))
            }
            Scalar::Cast(_, ty)
            | Scalar::Subquery(_, ty)
            | Scalar::ArraySubquery(_, ty)
            | Scalar::Outer(_, ty) => *ty,
            Scalar::Call(call) => call.ty,
            Scalar::Case {
                branches,
                otherwise,
                ..
            } => branches
                .iter()
                .map(|(_, t)| t.ty_in(columns))
                .chain(otherwise.iter().map(|e| e.ty_in(columns)))
                .find(|t| *t != SqlType::Text)
                .unwrap_or(SqlType::Text),
            Scalar::Func(f, args) => {
                let types: Vec<SqlType> = args.iter().map(|a| a.ty_in(columns)).collect();
                f.ty(&types)
            }
            _ => SqlType::Bool,
        }
    }

    /// The type of its values over a row of `types`.
    pub fn ty(&self, types: &[SqlType]) -> SqlType {
        self.ty_in(types)
    }

    /// The same expression with every column position `c` read as
    /// `f(c)` (an expression over a join's row moved to one table's).
    pub fn map_columns(&self, f: &impl Fn(usize) -> usize) -> Scalar {
        let m = |e: &Scalar| Box::new(e.map_columns(f));
        match self {
            Scalar::Column(c) => Scalar::Column(f(*c)),
            Scalar::Const(_) | Scalar::Now | Scalar::Param(_) => self.clone(),
            Scalar::Typed(e, ty) => Scalar::Typed(m(e), *ty),
            Scalar::Negate(e) => Scalar::Negate(m(e)),
            Scalar::Not(e) => Scalar::Not(m(e)),
            Scalar::IsNull(e, n) => Scalar::IsNull(m(e), *n),
            Scalar::Arith(op, a, b) => Scalar::Arith(op.clone(), m(a), m(b)),
            Scalar::Compare(cmp, a, b) => Scalar::Compare(*cmp, m(a), m(b)),
            Scalar::And(a, b) => Scalar::And(m(a), m(b)),
            Scalar::Or(a, b) => Scalar::Or(m(a), m(b)),
            Scalar::InList {
                expr,
                list,
                negated,
            } => Scalar::InList {
                expr: m(expr),
                list: list.iter().map(|i| i.map_columns(f)).collect(),
                negated: *negated,
            },
            Scalar::Case {
                operand,
                branches,
                otherwise,
            } => Scalar::Case {
                operand: operand.as_deref().map(m),
                branches: branches
                    .iter()
                    .map(|(w, t)| (w.map_columns(f), t.map_columns(f)))
                    .collect(),
                otherwise: otherwise.as_deref().map(m),
            },
            Scalar::Cast(e, ty) => Scalar::Cast(m(e), *ty),
            Scalar::Domain(e, d) => Scalar::Domain(m(e), d.clone()),
            Scalar::Like {
                expr,
                pattern,
                negated,
                insensitive,
                regex,
            } => Scalar::Like {
                expr: m(expr),
                pattern: m(pattern),
                negated: *negated,
                insensitive: *insensitive,
                regex: *regex,
            },
            Scalar::Func(func, args) => {
                Scalar::Func(*func, args.iter().map(|a| a.map_columns(f)).collect())
            }
            Scalar::Subquery(..)
            | Scalar::ArraySubquery(..)
            | Scalar::Exists(_)
            | Scalar::Outer(..) => self.clone(),
            Scalar::Call(call) => Scalar::Call(Box::new(call.map_args(|a| a.map_columns(f)))),
            Scalar::InSubquery {
                expr,
                index,
                negated,
            } => Scalar::InSubquery {
                expr: m(expr),
                index: *index,
                negated: *negated,
            },
        }
    }

    /// Records the types its parameters take (`types[n]` for `$n + 1`):
    /// a parameter typed by the column it meets, or meeting a typed value
    /// in arithmetic or a comparison (PostgreSQL's inference for unknown
    /// parameters). `column_types`: the row it reads.
    pub fn param_types(&self, column_types: &[SqlType], types: &mut [Option<SqlType>]) {
        let mut note = |n: usize, ty: SqlType| {
            if let Some(slot) = types.get_mut(n)
                && slot.is_none()
            {
                *slot = Some(ty);
            }
        };
        if let Some((n, ty)) = self.typed_param() {
            note(n, ty);
        }
        match self {
            Scalar::Typed(inner, _) => inner.param_types(column_types, types),
            Scalar::Arith(_, a, b) | Scalar::Compare(_, a, b) => {
                for (p, other) in [(a, b), (b, a)] {
                    if let Scalar::Param(n) = p.as_ref()
                        && !matches!(other.as_ref(), Scalar::Param(_))
                    {
                        let ty = other.ty(column_types);
                        if ty != SqlType::Text || matches!(other.as_ref(), Scalar::Column(_)) {
                            note(*n, ty);
                        }
                    }
                }
                a.param_types(column_types, types);
                b.param_types(column_types, types);
            }
            Scalar::Negate(e)
            | Scalar::Not(e)
            | Scalar::IsNull(e, _)
            | Scalar::Cast(e, _)
            | Scalar::Domain(e, _) => {
                e.param_types(column_types, types);
            }
            Scalar::And(a, b) | Scalar::Or(a, b) => {
                a.param_types(column_types, types);
                b.param_types(column_types, types);
            }
            Scalar::InList { expr, list, .. } => {
                expr.param_types(column_types, types);
                list.iter().for_each(|i| i.param_types(column_types, types));
            }
            Scalar::Case {
                operand,
                branches,
                otherwise,
            } => {
                for e in operand.iter().chain(otherwise.iter()) {
                    e.param_types(column_types, types);
                }
                for (w, t) in branches {
                    w.param_types(column_types, types);
                    t.param_types(column_types, types);
                }
            }
            Scalar::Like { expr, pattern, .. } => {
                expr.param_types(column_types, types);
                pattern.param_types(column_types, types);
            }
            Scalar::Func(_, args) => args.iter().for_each(|a| a.param_types(column_types, types)),
            Scalar::Call(call) => {
                (call.args.iter()).for_each(|a| a.param_types(column_types, types))
            }
            Scalar::InSubquery { expr, .. } => expr.param_types(column_types, types),
            Scalar::Column(_)
            | Scalar::Const(_)
            | Scalar::Param(_)
            | Scalar::Now
            | Scalar::Subquery(..)
            | Scalar::ArraySubquery(..)
            | Scalar::Outer(..)
            | Scalar::Exists(_) => {}
        }
    }

    /// The expressions it is made of, one level down (a subquery's are
    /// its own: none here).
    pub fn children(&self) -> Vec<&Scalar> {
        match self {
            Scalar::Column(_)
            | Scalar::Const(_)
            | Scalar::Now
            | Scalar::Param(_)
            | Scalar::Subquery(..)
            | Scalar::ArraySubquery(..)
            | Scalar::Exists(_)
            | Scalar::Outer(..) => Vec::new(),
            Scalar::Negate(e)
            | Scalar::Not(e)
            | Scalar::IsNull(e, _)
            | Scalar::Typed(e, _)
            | Scalar::Cast(e, _)
            | Scalar::Domain(e, _) => vec![e],
            Scalar::Arith(_, a, b)
            | Scalar::Compare(_, a, b)
            | Scalar::And(a, b)
            | Scalar::Or(a, b) => vec![a, b],
            Scalar::InList { expr, list, .. } => std::iter::once(&**expr).chain(list).collect(),
            Scalar::Case {
                operand,
                branches,
                otherwise,
            } => (operand.iter().map(|e| &**e))
                .chain(branches.iter().flat_map(|(w, t)| [w, t]))
                .chain(otherwise.iter().map(|e| &**e))
                .collect(),
            Scalar::Like { expr, pattern, .. } => vec![expr, pattern],
            Scalar::Func(_, args) => args.iter().collect(),
            Scalar::Call(call) => call.args.iter().collect(),
            Scalar::InSubquery { expr, .. } => vec![expr],
        }
    }

    /// Adds the columns it reads to `out`.
    pub fn columns(&self, out: &mut Vec<usize>) {
        match self {
            Scalar::Column(c) => out.push(*c),
            Scalar::Const(_) | Scalar::Now | Scalar::Param(_) => {}
            Scalar::Negate(e) | Scalar::Not(e) | Scalar::IsNull(e, _) | Scalar::Typed(e, _) => {
                e.columns(out)
            }
            Scalar::Arith(_, a, b)
            | Scalar::Compare(_, a, b)
            | Scalar::And(a, b)
            | Scalar::Or(a, b) => {
                a.columns(out);
                b.columns(out);
            }
            Scalar::InList { expr, list, .. } => {
                expr.columns(out);
                for item in list {
                    item.columns(out);
                }
            }
            Scalar::Case {
                operand,
                branches,
                otherwise,
            } => {
                for e in operand.iter().chain(otherwise.iter()) {
                    e.columns(out);
                }
                for (w, t) in branches {
                    w.columns(out);
                    t.columns(out);
                }
            }
            Scalar::Cast(e, _) | Scalar::Domain(e, _) => e.columns(out),
            Scalar::Like { expr, pattern, .. } => {
                expr.columns(out);
                pattern.columns(out);
            }
            Scalar::Func(_, args) => args.iter().for_each(|a| a.columns(out)),
            Scalar::Call(call) => call.args.iter().for_each(|a| a.columns(out)),
            Scalar::Subquery(..)
            | Scalar::ArraySubquery(..)
            | Scalar::Exists(_)
            | Scalar::Outer(..) => {}
            Scalar::InSubquery { expr, .. } => expr.columns(out),
        }
    }

    /// The conjuncts of a condition (`a AND b AND c`: a, b, c), in the
    /// order a plan node tests them (`qual_order.rs`).
    pub fn conjuncts(self) -> Vec<Scalar> {
        let mut out = Vec::new();
        self.conjuncts_into(&mut out);
        crate::qual_order::cheapest_first(&mut out);
        out
    }

    fn conjuncts_into(self, out: &mut Vec<Scalar>) {
        match self {
            Scalar::And(a, b) => {
                a.conjuncts_into(out);
                b.conjuncts_into(out);
            }
            other => out.push(other),
        }
    }
}

/// The type of a value (an untyped quoted literal or NULL is `text`, as
/// PostgreSQL resolves `unknown` in a select list).
pub fn value_type(value: &Value) -> SqlType {
    match value {
        Value::Int2(_) => SqlType::Int2,
        Value::Int4(_) => SqlType::Int4,
        Value::Int8(_) => SqlType::Int8,
        Value::Float4(_) => SqlType::Float4,
        Value::Float8(_) => SqlType::Float8,
        Value::Numeric(_) => SqlType::Numeric(None),
        Value::Bytea(_) => SqlType::Bytea,
        Value::Bool(_) => SqlType::Bool,
        Value::Date(_) => SqlType::Date,
        Value::Timestamp(_) => SqlType::Timestamp(None),
        Value::TimestampTz(_) => SqlType::TimestampTz(None),
        Value::Time(_) => SqlType::Time(None),
        Value::TimeTz(_) => SqlType::TimeTz(None),
        Value::Uuid(_) => SqlType::Uuid,
        Value::Interval(_) => SqlType::Interval(None),
        Value::Text(_) | Value::Null => SqlType::Text,
        // Its first element's type (text for an array of NULLs or none).
        Value::Array(items) => items
            .iter()
            .find(|v| **v != Value::Null)
            .map_or(SqlType::Text, value_type)
            .array_of()
            .unwrap_or(SqlType::Array(&SqlType::Text)),
        Value::Record(_) => SqlType::Record,
        Value::Json(_) => SqlType::Json,
        Value::Jsonb(_) => SqlType::Jsonb,
        Value::JsonPath(_) => SqlType::JsonPath,
        Value::Enum(e) => SqlType::Enum(e.ty),
        Value::Oid(_) => SqlType::Oid,
        Value::Tid(..) => SqlType::Tid,
        Value::Xid(_) => SqlType::Xid,
        Value::PgLsn(_) => SqlType::PgLsn,
        Value::Money(_) => SqlType::Money,
        Value::Xid8(_) => SqlType::Xid8,
        Value::Snapshot(s) if s.legacy => SqlType::TxidSnapshot,
        Value::Snapshot(_) => SqlType::PgSnapshot,
        Value::Inet(_) => SqlType::Inet,
        Value::Cidr(_) => SqlType::Cidr,
        Value::MacAddr(_) => SqlType::MacAddr,
        Value::MacAddr8(_) => SqlType::MacAddr8,
        Value::Range(r) => SqlType::Range(r.kind),
        Value::Multirange(m) => SqlType::Multirange(m.kind),
        // A `B'...'` literal's type, and a result's of unknown length.
        Value::Bit(_) => SqlType::Bit(None),
        Value::Geo(g) => SqlType::Geo(g.kind()),
        Value::TsVector(_) => SqlType::TsVector,
        Value::TsQuery(_) => SqlType::TsQuery,
        Value::Reg(r) => SqlType::Reg(r.kind),
    }
}

/// The type of `a op b` for arithmetic: the wider integer, else numeric.
pub fn wider(a: SqlType, b: SqlType) -> SqlType {
    let rank = |t: SqlType| match t {
        SqlType::Int2 => Some(1),
        SqlType::Int4 => Some(2),
        SqlType::Int8 => Some(3),
        _ => None,
    };
    let float = |t: SqlType| matches!(t, SqlType::Float4 | SqlType::Float8);
    if a == SqlType::Float4 && b == SqlType::Float4 {
        return SqlType::Float4;
    }
    if float(a) || float(b) {
        return SqlType::Float8;
    }
    match (rank(a), rank(b)) {
        (Some(x), Some(y)) => [SqlType::Int2, SqlType::Int4, SqlType::Int8][x.max(y) - 1],
        (Some(_), None) if b == SqlType::Text => a,
        (None, Some(_)) if a == SqlType::Text => b,
        _ => SqlType::Numeric(None),
    }
}

/// The SQL words that call a function without parentheses
/// (PostgreSQL's `SQLValueFunction`s that folio has), by name.
fn sql_value_function(name: &str) -> Option<Scalar> {
    Some(match name.to_ascii_lowercase().as_str() {
        "current_date" => Scalar::Cast(Box::new(Scalar::Now), SqlType::Date),
        "localtimestamp" => Scalar::Cast(Box::new(Scalar::Now), SqlType::Timestamp(None)),
        "localtime" => Scalar::Cast(Box::new(Scalar::Now), SqlType::Time(None)),
        "current_time" => Scalar::Cast(Box::new(Scalar::Now), SqlType::TimeTz(None)),
        "current_user" | "user" | "current_role" => {
            Scalar::Const(Value::Text(crate::roles::current_name()))
        }
        "session_user" => Scalar::Const(Value::Text(crate::roles::session_name())),
        "current_catalog" => Scalar::Const(Value::Text("postgres".into())),
        "current_schema" => Scalar::Func(
            Func::Catalog(crate::catalog_functions::CatalogFunc::CurrentSchema),
            Vec::new(),
        ),
        _ => return None,
    })
}

/// 42804 unless `bound`, the argument `at` of `clause` (`WHERE`, `IS
/// TRUE`, ...) bound, is a boolean: of type boolean, NULL, a parameter,
/// or a quoted literal that reads as one (22P02 if it does not), as
/// PostgreSQL coerces an unknown-typed argument. The error points at
/// `at`, as PostgreSQL's.
pub fn require_bool(
    bound: &Scalar,
    columns: &(impl Columns + ?Sized),
    clause: &str,
    at: &Expr,
) -> Result<(), SqlError> {
    match bound {
        Scalar::Const(Value::Null) | Scalar::Param(_) => return Ok(()),
        Scalar::Const(Value::Text(t)) => {
            return types::coerce(Value::Text(t.clone()), SqlType::Bool).map(drop);
        }
        _ => {}
    }
    let ty = bound.ty_in(columns);
    if ty == SqlType::Bool {
        return Ok(());
    }
    Err(SqlError::new(
        "42804",
        format!(
            "argument of {clause} must be type boolean, not type {}",
            crate::explain::type_name(ty)
        ),
    )
    .near(Some(sqlparser::ast::Spanned::span(at).start)))
}

/// A boolean's truth (NULL: unknown); 42804 for a value that is not one.
pub(crate) fn truth(value: &Value) -> Result<Option<bool>, SqlError> {
    match value {
        Value::Bool(b) => Ok(Some(*b)),
        Value::Null => Ok(None),
        Value::Text(t) => types::coerce(Value::Text(t.clone()), SqlType::Bool).map(|v| match v {
            Value::Bool(b) => Some(b),
            _ => None,
        }),
        other => Err(SqlError::new(
            "42804",
            format!(
                "argument of WHERE must be type boolean, not type {}",
                other.type_name()
            ),
        )),
    }
}

/// PostgreSQL's order of two values, `None` when either is NULL:
/// integers of any width compare as integers, an integer meeting a
/// numeric as numerics, a float meeting a number as floats, a quoted
/// literal takes the other side's type. Other pairs: 42883.
#[inline]
pub fn compare(a: &Value, b: &Value) -> Result<Option<Ordering>, SqlError> {
    if matches!(a, Value::Null) || matches!(b, Value::Null) {
        return Ok(None);
    }
    if let Some(order) = a.sql_cmp(b) {
        return Ok(Some(order));
    }
    compare_across(a, b)
}

/// [`compare`] of two values, neither NULL, that `sql_cmp` does not
/// order (values of two types, say).
fn compare_across(a: &Value, b: &Value) -> Result<Option<Ordering>, SqlError> {
    // An oid meets an integer as an oid (PostgreSQL's implicit casts to
    // oid: `-1` is 4294967295, a bigint past 32 bits is 22003).
    match (a, b) {
        // A quoted literal meets an OID alias type's value as its name
        // (PostgreSQL reads the literal as a name to look up; the name
        // the value prints as is what that finds).
        (Value::Reg(r), Value::Text(t)) => return Ok(Some(r.name.as_str().cmp(t.as_str()))),
        (Value::Text(t), Value::Reg(r)) => return Ok(Some(t.as_str().cmp(r.name.as_str()))),
        // An OID alias type's value meets an oid or an integer as its oid
        // (PostgreSQL's implicit cast to oid).
        (Value::Reg(r), other) | (other, Value::Reg(r)) if !matches!(other, Value::Reg(_)) => {
            let oid = Value::Oid(r.oid);
            return match a {
                Value::Reg(_) => compare(&oid, b),
                _ => compare(a, &oid),
            };
        }
        (Value::Oid(_), Value::Int2(_) | Value::Int4(_) | Value::Int8(_)) => {
            return compare(a, &b.clone().fit(SqlType::Oid)?);
        }
        (Value::Int2(_) | Value::Int4(_) | Value::Int8(_), Value::Oid(_)) => {
            return compare(&a.clone().fit(SqlType::Oid)?, b);
        }
        // An xid meets an int4 as PostgreSQL's `xideqint4`: the int4's
        // 32 bits as an xid (`xid_functions::compares` allows `=`, `<>`).
        (Value::Xid(x), Value::Int4(i)) | (Value::Int4(i), Value::Xid(x)) => {
            return Ok(Some(x.cmp(&u64::from(*i as u32))));
        }
        _ => {}
    }
    let int = |v: &Value| match v {
        Value::Int2(x) => Some(i64::from(*x)),
        Value::Int4(x) => Some(i64::from(*x)),
        Value::Int8(x) => Some(*x),
        _ => None,
    };
    // A date meets a timestamp as its midnight.
    let instant = crate::date_arith::instant;
    if let (Some(x), Some(y)) = (instant(a), instant(b)) {
        return Ok(Some(x.cmp(&y)));
    }
    let numeric = |v: &Value| match v {
        Value::Numeric(n) => Some(n.clone()),
        other => int(other).map(Numeric::from_i64),
    };
    let float = |v: &Value| match v {
        Value::Float4(x) => Some(f64::from(*x)),
        Value::Float8(x) => Some(*x),
        Value::Numeric(_) => match types::coerce(v.clone(), SqlType::Float8) {
            Ok(Value::Float8(x)) => Some(x),
            _ => None,
        },
        other => int(other).map(|x| x as f64),
    };
    if let (Some(x), Some(y)) = (int(a), int(b)) {
        return Ok(Some(x.cmp(&y)));
    }
    if let (Some(x), Some(y)) = (numeric(a), numeric(b)) {
        return Ok(Some(x.cmp(&y)));
    }
    if let (Some(x), Some(y)) = (float(a), float(b)) {
        return Ok(Value::Float8(x).sql_cmp(&Value::Float8(y)));
    }
    match (a, b) {
        (Value::Text(t), other) | (other, Value::Text(t)) => {
            let typed = types::coerce(Value::Text(t.clone()), value_type(other))?;
            let order = compare(&typed, other)?;
            // Swapped back if the literal was on the right.
            Ok(if matches!(a, Value::Text(_)) {
                order
            } else {
                order.map(Ordering::reverse)
            })
        }
        _ => Err(functions::no_operator(format!(
            "operator does not exist: {} = {}",
            a.type_name(),
            b.type_name()
        ))),
    }
}
