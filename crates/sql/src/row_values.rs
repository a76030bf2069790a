//! Row values (design: the README's "Row values"): `ROW(a, b)` and
//! `(a, b)` constructors, a whole-row reference (`t`, the name of a FROM
//! item used as a value), `(r).field`, `r IS [NOT] NULL`, row
//! comparisons and `IN` lists of rows. A row value is folio-row's
//! `Value::Record` of type `SqlType::Record` (PostgreSQL's anonymous
//! `record`, oid 2249), built by [`RowFunc::Construct`] or
//! [`RowFunc::WholeRow`] from the columns it reads, so a whole-row
//! reference reads its table's columns through the usual projection.
//!
//! Comparisons follow PostgreSQL's two rules. Two row constructors
//! compare field by field with SQL's NULL logic (`=` is the AND of the
//! fields' `=`, `<>` the OR of their `<>`, an ordering decided by the
//! first pair that is not equal, NULL if a pair before it is NULL).
//! Anything else that is a row (a whole-row reference on either side)
//! compares as PostgreSQL's `record_eq`/`record_cmp`: the records' order
//! (folio-row's `Value::sql_cmp`: field by field, two NULLs equal, a NULL
//! after any value), so `t = t` is true for a row with NULLs in it.

use crate::error::SqlError;
use crate::functions::Func;
use crate::names;
use crate::scalar::{self, Cmp, Columns, Scalar};
use crate::types;
use folio_row::{CompositeType, SqlType, Value};
use sqlparser::ast::{AccessExpr, Expr, FunctionArg, FunctionArgExpr};

/// What builds, tests or compares row values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFunc {
    /// `ROW(a, b)`, `(a, b)`: the record of its arguments.
    Construct,
    /// A whole-row reference: the record of its FROM item's columns (the
    /// same value as `Construct`; compared as a record, not field by
    /// field), of its table's row type when the item is a table, view or
    /// materialized view (README "Composite types", "Tables' row
    /// types"), else an anonymous record.
    WholeRow(Option<&'static CompositeType>),
    /// `r IS NULL` (`false`) / `r IS NOT NULL` (`true`) of a record:
    /// every field NULL / every field non-NULL (a NULL record is NULL).
    IsNull(bool),
    /// An ordering of two row constructors of `n` fields each, over the
    /// left fields then the right ones.
    Compare(Cmp),
    /// `(v).f` of a value of a composite type: its field at this place
    /// (`composite_values::field`; NULL of a NULL value).
    Field(u16),
    /// A composite value (of `of` fields) with its field `at` replaced,
    /// over the value then the field's new value
    /// (`field_assignment.rs`: `SET c.f = x`).
    SetField { at: u16, of: u16 },
}

impl RowFunc {
    /// What EXPLAIN calls it.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            RowFunc::Construct | RowFunc::WholeRow(_) => "ROW",
            RowFunc::IsNull(_)
            | RowFunc::Compare(_)
            | RowFunc::Field(_)
            | RowFunc::SetField { .. } => return None,
        })
    }

    /// Its type over arguments of types `args`.
    pub fn ty(self, args: &[SqlType]) -> SqlType {
        match self {
            RowFunc::WholeRow(Some(def)) => SqlType::Composite(def),
            RowFunc::Construct | RowFunc::WholeRow(None) => SqlType::Record,
            RowFunc::IsNull(_) | RowFunc::Compare(_) => SqlType::Bool,
            RowFunc::Field(n) => match args.first() {
                Some(SqlType::Composite(def)) => def
                    .fields
                    .get(usize::from(n))
                    .map_or(SqlType::Text, |(_, t)| *t),
                _ => SqlType::Text,
            },
            RowFunc::SetField { .. } => args.first().copied().unwrap_or(SqlType::Record),
        }
    }

    /// Its value (none of these is strict: NULL fields are values).
    pub fn eval(self, args: Vec<Value>) -> Result<Value, SqlError> {
        Ok(match self {
            RowFunc::Construct | RowFunc::WholeRow(_) => Value::Record(args),
            RowFunc::IsNull(negated) => Value::Bool(match args.first() {
                Some(Value::Record(fields)) => {
                    fields.iter().all(|f| matches!(f, Value::Null) != negated)
                }
                Some(Value::Null) | None => !negated,
                Some(_) => negated,
            }),
            RowFunc::Compare(cmp) => {
                let (left, right) = args.split_at(args.len() / 2);
                for (x, y) in left.iter().zip(right) {
                    match scalar::compare(x, y)? {
                        None => return Ok(Value::Null),
                        Some(order) if order.is_ne() => return Ok(Value::Bool(cmp.holds(order))),
                        Some(_) => {}
                    }
                }
                Value::Bool(cmp.holds(std::cmp::Ordering::Equal))
            }
            RowFunc::Field(n) => match args.into_iter().next() {
                Some(Value::Record(fields)) => fields
                    .into_iter()
                    .nth(usize::from(n))
                    .ok_or_else(|| SqlError::new("XX000", "a field past a record's end"))?,
                _ => Value::Null,
            },
            RowFunc::SetField { at, of } => {
                let mut args = args.into_iter();
                let (base, value) = (args.next(), args.next());
                let value = value.unwrap_or(Value::Null);
                crate::field_assignment::set_field(base.unwrap_or(Value::Null), at, of, value)?
            }
        })
    }
}

/// EXPLAIN's text of a call over its arguments' texts `a` (a whole-row
/// reference as the constructor of its columns, where PostgreSQL prints
/// `t.*`).
pub fn deparse(f: RowFunc, a: &[String]) -> String {
    match f {
        RowFunc::Construct | RowFunc::WholeRow(_) => format!("ROW({})", a.join(", ")),
        RowFunc::Field(n) => format!("({}).f{}", a.join(", "), n + 1),
        RowFunc::SetField { at, .. } => format!("FieldStore({}, f{})", a.join(", "), at + 1),
        RowFunc::IsNull(false) => format!("({} IS NULL)", a.join(", ")),
        RowFunc::IsNull(true) => format!("({} IS NOT NULL)", a.join(", ")),
        RowFunc::Compare(cmp) => {
            let (l, r) = a.split_at(a.len() / 2);
            format!(
                "(ROW({}) {} ROW({}))",
                l.join(", "),
                cmp.symbol(),
                r.join(", ")
            )
        }
    }
}

/// Binds the row expressions `scalar::bind` leaves to this module: row
/// constructors, `IN` lists of rows and `(r).field`; `None` for any other
/// expression.
pub fn bind(expr: &Expr, columns: &(impl Columns + ?Sized)) -> Option<Result<Scalar, SqlError>> {
    match expr {
        Expr::Tuple(items) => Some(construct(items.iter().map(RowItem::Expr), columns)),
        Expr::Function(f) if row_call(f).is_some() => Some(
            row_call(f)
                .expect("matched above")
                .and_then(|items| construct(items.into_iter(), columns)),
        ),
        Expr::InList {
            expr: left,
            list,
            negated,
        } if is_constructor(left) => Some(in_list(left, list, *negated, columns)),
        Expr::CompoundFieldAccess { root, access_chain } => {
            let fields: Option<Vec<String>> = (access_chain.iter())
                .map(|a| match a {
                    AccessExpr::Dot(Expr::Identifier(field)) => Some(names::ident(field)),
                    _ => None,
                })
                .collect();
            let (first, rest) = fields.as_deref()?.split_first()?;
            // `(v).f1.f2`: each field of the one before.
            Some(field_of(root, first, columns).and_then(|mut s| {
                for f in rest {
                    s = field_of_bound(s, f, columns)?;
                }
                Ok(s)
            }))
        }
        _ => None,
    }
}

/// A whole-row reference to the FROM item called `name`, if there is
/// one (a column of that name is looked for first: `scalar::bind`).
pub fn whole_row(
    name: &str,
    columns: &(impl Columns + ?Sized),
) -> Option<Result<Scalar, SqlError>> {
    let positions = columns.whole_row(name)?;
    let row_type = columns.whole_row_type(name);
    Some(positions.map(|positions| {
        Scalar::Func(
            Func::Row(RowFunc::WholeRow(row_type)),
            positions.into_iter().map(Scalar::Column).collect(),
        )
    }))
}

/// `e IS [NOT] NULL`: of a record, [`RowFunc::IsNull`]; else the plain
/// test.
pub fn is_null(e: Scalar, negated: bool, columns: &(impl Columns + ?Sized)) -> Scalar {
    if matches!(e.ty_in(columns), SqlType::Record | SqlType::Composite(_)) {
        return Scalar::Func(Func::Row(RowFunc::IsNull(negated)), vec![e]);
    }
    Scalar::IsNull(Box::new(e), negated)
}

/// `a cmp b` when either side is a row (a record or a value of a
/// composite type): `None` when neither is.
pub fn compare(
    cmp: Cmp,
    a: &Scalar,
    b: &Scalar,
    columns: &(impl Columns + ?Sized),
) -> Result<Option<Scalar>, SqlError> {
    let (ra, rb) = (row_of(a), row_of(b));
    let (ta, tb) = (a.ty_in(columns), b.ty_in(columns));
    let is_row = |t: SqlType| matches!(t, SqlType::Record | SqlType::Composite(_));
    match (ra, rb) {
        (None, None) if !is_row(ta) && !is_row(tb) => return Ok(None),
        (Some((RowFunc::Construct, left)), Some((RowFunc::Construct, right))) => {
            if left.len() != right.len() {
                return Err(SqlError::new(
                    "42601",
                    "unequal number of entries in row expressions",
                ));
            }
            if left.is_empty() {
                return Err(SqlError::new("0A000", "cannot compare rows of zero length"));
            }
            return fields_compared(cmp, left, right, columns).map(Some);
        }
        _ if is_row(ta) && is_row(tb) => {}
        _ => {
            let name = |s: &Scalar, t: SqlType| match s {
                Scalar::Const(Value::Text(_)) | Scalar::Param(_) => "unknown".to_string(),
                _ => t.name(),
            };
            return Err(crate::functions::no_operator(format!(
                "operator does not exist: {} {} {}",
                name(a, ta),
                cmp.symbol(),
                name(b, tb)
            )));
        }
    }
    // PostgreSQL's record comparison finds each column's operator by its
    // two types, which must be one (an unknown literal is not); a record
    // of unknown fields (a subquery's) is judged by its values.
    if let (Some(left), Some(right)) = (field_types(a, ta, columns), field_types(b, tb, columns)) {
        if left.len() != right.len() {
            return Err(SqlError::new(
                "42804",
                "cannot compare record types with different numbers of columns",
            ));
        }
        for (n, (tx, ty)) in left.iter().zip(&right).enumerate() {
            if tx.map(SqlType::oid) != ty.map(SqlType::oid) || tx.is_none() {
                let name = |t: &Option<SqlType>| t.map_or("unknown".to_string(), types_name);
                return Err(SqlError::new(
                    "42804",
                    format!(
                        "cannot compare dissimilar column types {} and {} at record column {}",
                        name(tx),
                        name(ty),
                        n + 1
                    ),
                ));
            }
        }
    }
    Ok(Some(Scalar::Compare(
        cmp,
        Box::new(a.clone()),
        Box::new(b.clone()),
    )))
}

/// The field types of row `s` of type `ty`, when they are known: a
/// composite type's, or a row constructor's or whole row's fields' (an
/// unknown literal's as `None`).
fn field_types(
    s: &Scalar,
    ty: SqlType,
    columns: &(impl Columns + ?Sized),
) -> Option<Vec<Option<SqlType>>> {
    if let SqlType::Composite(def) = ty {
        return Some(def.fields.iter().map(|(_, t)| Some(*t)).collect());
    }
    let (_, fields) = row_of(s)?;
    Some(
        (fields.iter())
            .map(|f| match f {
                Scalar::Const(Value::Text(_)) | Scalar::Param(_) => None,
                f => Some(f.ty_in(columns)),
            })
            .collect(),
    )
}

/// A type's name as PostgreSQL's record errors print it (`integer`,
/// `text`, without a length).
fn types_name(t: SqlType) -> String {
    crate::explain::type_name(t).into_owned()
}

/// Two row constructors' fields compared pair by pair, each pair bound
/// as a plain comparison (its literals typed by the other side).
fn fields_compared(
    cmp: Cmp,
    left: &[Scalar],
    right: &[Scalar],
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let mut pairs = Vec::with_capacity(left.len());
    for (x, y) in left.iter().zip(right) {
        pairs.push(scalar::comparison(cmp, x.clone(), y.clone(), columns)?);
    }
    let join = |pairs: Vec<Scalar>, and: bool| {
        pairs
            .into_iter()
            .reduce(|acc, p| match and {
                true => Scalar::And(Box::new(acc), Box::new(p)),
                false => Scalar::Or(Box::new(acc), Box::new(p)),
            })
            .unwrap_or(Scalar::Const(Value::Bool(and)))
    };
    Ok(match cmp {
        Cmp::Eq => join(pairs, true),
        Cmp::Ne => join(pairs, false),
        _ => {
            let mut args: Vec<Scalar> = Vec::with_capacity(pairs.len() * 2);
            let mut rights = Vec::with_capacity(pairs.len());
            for p in pairs {
                match p {
                    Scalar::Compare(_, x, y) => {
                        args.push(*x);
                        rights.push(*y);
                    }
                    other => {
                        return Err(SqlError::new(
                            "XX000",
                            format!("a row comparison's pair bound as {other:?}"),
                        ));
                    }
                }
            }
            args.extend(rights);
            Scalar::Func(Func::Row(RowFunc::Compare(cmp)), args)
        }
    })
}

/// `row IN (row, ...)`: the OR of the rows' `=` (NOT IN: the AND of their
/// `<>`), as PostgreSQL expands it.
fn in_list(
    left: &Expr,
    list: &[Expr],
    negated: bool,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let x = scalar::bind(left, columns)?;
    let cmp = if negated { Cmp::Ne } else { Cmp::Eq };
    let mut out: Option<Scalar> = None;
    for item in list {
        let y = scalar::bind(item, columns)?;
        let one = match compare(cmp, &x, &y, columns)? {
            Some(s) => s,
            None => unreachable!("the left side is a row"),
        };
        out = Some(match out {
            None => one,
            Some(acc) if negated => Scalar::And(Box::new(acc), Box::new(one)),
            Some(acc) => Scalar::Or(Box::new(acc), Box::new(one)),
        });
    }
    out.ok_or_else(|| SqlError::syntax("syntax error at or near \")\""))
}

/// `(root).field`: a column of a whole-row reference, or a field of a row
/// constructor (`f1`, `f2`, ... as PostgreSQL names them).
fn field_of(
    root: &Expr,
    field: &str,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let mut root = root;
    while let Expr::Nested(inner) = root {
        root = inner;
    }
    if let Expr::Identifier(id) = root {
        let name = names::ident(id);
        if columns.resolve(&name).is_err() && columns.whole_row(&name).is_some() {
            return Ok(Scalar::Column(columns.resolve_qualified(&name, field)?.0));
        }
    }
    field_of_bound(scalar::bind(root, columns)?, field, columns)
}

/// 42703 for a field a record (of fields known only by position or by a
/// function's output parameters) does not have.
pub(crate) fn no_record_field(field: &str) -> SqlError {
    SqlError::new(
        "42703",
        format!("could not identify column \"{field}\" in record data type"),
    )
}

/// `(record).field` of the bound `record`.
pub(crate) fn field_of_bound(
    record: Scalar,
    field: &str,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    if let SqlType::Composite(def) = record.ty_in(columns) {
        return crate::composite_values::field(record, def, field);
    }
    match record {
        Scalar::Func(Func::Row(RowFunc::Construct), mut args) => {
            let n = field
                .strip_prefix('f')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=args.len()).contains(n))
                .ok_or_else(|| no_record_field(field))?;
            Ok(args.swap_remove(n - 1))
        }
        // A PL/pgSQL function's row of its output parameters.
        Scalar::Call(call) if call.def.columns.len() > 1 && !call.def.columns_of_table => {
            let n = (call.def.columns.iter())
                .position(|(name, _, _)| name == field)
                .ok_or_else(|| no_record_field(field))?;
            let (_, oid, typmod) = call.def.columns[n];
            let ty = crate::plpgsql::row_calls::type_of(oid, typmod)?;
            Ok(Scalar::Typed(
                Box::new(Scalar::Func(
                    Func::Row(RowFunc::Field(n as u16)),
                    vec![Scalar::Call(call)],
                )),
                ty,
            ))
        }
        other if other.ty_in(columns) == SqlType::Record => Err(SqlError::unsupported(
            "a field of a record that is not a row constructor or a whole-row reference",
        )),
        other => Err(SqlError::new(
            "42809",
            format!(
                "column notation .{field} applied to type {}, which is not a composite type",
                types_name(other.ty_in(columns))
            ),
        )),
    }
}

/// A row's kind and fields, if it is a constructor or a whole-row
/// reference.
fn row_of(s: &Scalar) -> Option<(RowFunc, &[Scalar])> {
    match s {
        Scalar::Func(Func::Row(kind @ (RowFunc::Construct | RowFunc::WholeRow(_))), args) => {
            Some((*kind, args.as_slice()))
        }
        _ => None,
    }
}

/// Whether `e` is written as a row constructor.
fn is_constructor(e: &Expr) -> bool {
    match e {
        Expr::Nested(inner) => is_constructor(inner),
        Expr::Tuple(_) => true,
        Expr::Function(f) => row_call(f).is_some(),
        _ => false,
    }
}

/// `ROW(args)`'s arguments, if `f` is that call.
fn row_call(f: &sqlparser::ast::Function) -> Option<Result<Vec<RowItem<'_>>, SqlError>> {
    if !(f.name.0.len() == 1 && names::function(&f.name) == "row") {
        return None;
    }
    Some(match &f.args {
        sqlparser::ast::FunctionArguments::List(list) => list
            .args
            .iter()
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Ok(RowItem::Expr(e)),
                FunctionArg::Unnamed(FunctionArgExpr::QualifiedWildcard(name))
                    if name.0.len() == 1 =>
                {
                    Ok(RowItem::AllOf(name))
                }
                other => Err(SqlError::unsupported(format!(
                    "the argument {other} of ROW"
                ))),
            })
            .collect(),
        sqlparser::ast::FunctionArguments::None => Ok(Vec::new()),
        other => Err(SqlError::unsupported(format!("ROW{other}"))),
    })
}

/// One argument of a row constructor: an expression, or `t.*`, which
/// stands for each column of the FROM item `t` in turn (PostgreSQL
/// expands it: `ROW(t.*)` is `ROW(t.a, t.b)`).
enum RowItem<'e> {
    Expr(&'e Expr),
    AllOf(&'e sqlparser::ast::ObjectName),
}

/// The record of `items`: a quoted literal in it is text, as PostgreSQL
/// resolves an `unknown` field when the row is output.
fn construct<'e>(
    items: impl Iterator<Item = RowItem<'e>>,
    columns: &(impl Columns + ?Sized),
) -> Result<Scalar, SqlError> {
    let mut args = Vec::new();
    for item in items {
        match item {
            RowItem::Expr(e) => args.push(scalar::bind(e, columns)?),
            RowItem::AllOf(name) => {
                let source =
                    (names::parts(name).and_then(|p| p.into_iter().next())).unwrap_or_default();
                match whole_row(&source, columns) {
                    Some(row) => match row? {
                        Scalar::Func(_, fields) => args.extend(fields),
                        other => args.push(other),
                    },
                    None => {
                        return Err(SqlError::new(
                            "42P01",
                            format!("missing FROM-clause entry for table \"{source}\""),
                        ));
                    }
                }
            }
        }
    }
    Ok(Scalar::Func(Func::Row(RowFunc::Construct), args))
}

/// PostgreSQL's binary form of a record (`record_send`) of type
/// `type_oid`: the number of fields, then per field its type's oid, its
/// length (-1 for NULL) and its binary form. The oid is the field's type's
/// when `type_oid` is a composite type in scope, else the value's own
/// type's (a NULL field's is `text`, and a `varchar` or `char(n)` field's
/// is `text`, where PostgreSQL sends the column's).
pub fn record_binary(fields: &[Value], type_oid: u32) -> Result<Vec<u8>, SqlError> {
    let declared = match crate::user_types::of_oid(type_oid, -1) {
        Some(SqlType::Composite(def)) if def.fields.len() == fields.len() => Some(def),
        _ => None,
    };
    let mut out = (fields.len() as i32).to_be_bytes().to_vec();
    for (n, field) in fields.iter().enumerate() {
        let oid = match declared {
            Some(def) => def.fields[n].1.oid(),
            None => scalar::value_type(field).oid(),
        };
        out.extend_from_slice(&oid.to_be_bytes());
        match types::binary_output(field, oid)? {
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
            Some(bytes) => {
                out.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
                out.extend_from_slice(&bytes);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the row tests and orderings of PostgreSQL 15: IS NULL is
    // true when every field is NULL, IS NOT NULL when none is; an
    // ordering is decided by the first unequal pair, NULL if a NULL pair
    // comes before it (`(1,2) < (1,null)` NULL, `(1,2) < (2,null)` true).
    #[test]
    fn row_tests_and_orderings_are_postgresql_s() {
        let rec = |v: Vec<Value>| vec![Value::Record(v)];
        let (i, n) = (Value::Int4, Value::Null);
        let is_null = RowFunc::IsNull(false);
        let not_null = RowFunc::IsNull(true);
        assert_eq!(
            is_null.eval(rec(vec![n.clone(), n.clone()])),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            is_null.eval(rec(vec![i(1), n.clone()])),
            Ok(Value::Bool(false))
        );
        assert_eq!(
            not_null.eval(rec(vec![i(1), n.clone()])),
            Ok(Value::Bool(false))
        );
        assert_eq!(not_null.eval(rec(vec![i(1), i(2)])), Ok(Value::Bool(true)));
        assert_eq!(is_null.eval(vec![Value::Null]), Ok(Value::Bool(true)));
        assert_eq!(not_null.eval(vec![Value::Null]), Ok(Value::Bool(false)));
        let lt = RowFunc::Compare(Cmp::Lt);
        assert_eq!(lt.eval(vec![i(1), i(2), i(1), n.clone()]), Ok(Value::Null));
        assert_eq!(
            lt.eval(vec![i(1), i(2), i(2), n.clone()]),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            lt.eval(vec![i(1), i(2), i(1), i(2)]),
            Ok(Value::Bool(false))
        );
        let le = RowFunc::Compare(Cmp::Le);
        assert_eq!(le.eval(vec![i(1), i(2), i(1), i(2)]), Ok(Value::Bool(true)));
    }

    // Proves record_send's layout: count, then oid, length and bytes per
    // field (-1 for NULL).
    #[test]
    fn record_binary_is_record_send_s_layout() {
        let bytes = record_binary(&[Value::Int4(7), Value::Null], 2249).unwrap();
        let mut want = 2i32.to_be_bytes().to_vec();
        want.extend_from_slice(&23u32.to_be_bytes());
        want.extend_from_slice(&4i32.to_be_bytes());
        want.extend_from_slice(&7i32.to_be_bytes());
        want.extend_from_slice(&25u32.to_be_bytes());
        want.extend_from_slice(&(-1i32).to_be_bytes());
        assert_eq!(bytes, want);
    }
}
