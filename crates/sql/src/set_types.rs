//! The type of each result column of a set operation (`UNION`,
//! `INTERSECT`, `EXCEPT`) or a `VALUES` list, as PostgreSQL's
//! `select_common_type` resolves it from the column's inputs (the two
//! queries' columns, or the list's rows), in order:
//!
//! - An *untyped* input (a quoted string or NULL written as a SELECT's
//!   column or a VALUES item: PostgreSQL's `unknown`) takes no part in the
//!   choice; it is read as the chosen type (so `select '1' union select 1`
//!   is integer, and `'a'` there is 22P02 at planning, rows or not).
//!   Inputs that are all untyped are `text`.
//! - The first typed input's type is the candidate. A later typed input of
//!   another category (numbers, strings, booleans, dates and times,
//!   intervals, arrays, others) is 42804 `UNION types text and integer
//!   cannot be matched` (`INTERSECT`, `EXCEPT`, `VALUES`), pointing at that
//!   input. Within a category the candidate moves along PostgreSQL's
//!   implicit casts: to the later of int2, int4, int8, numeric, float4,
//!   float8, and of date, timestamp, timestamptz; strings keep the first
//!   (each casts implicitly to the others). Two of one category without a
//!   cast (bytea and uuid, arrays of other elements) are 42846 `UNION
//!   could not convert type uuid to bytea`.
//! - A length or precision stays only if every input has exactly it
//!   (PostgreSQL's `select_common_typmod`): `varchar(5)` with
//!   `varchar(10)` is `varchar`, `numeric(3,1)` with an integer `numeric`.
//!   folio has no `char` without a length: chars of several lengths take
//!   the longest.
//!
//! A set operation's result is typed for the one above it (`select 'a'
//! union select 'b' union select 1` is 42804: the first union is text),
//! and so is a query whose DISTINCT, GROUP BY or ORDER BY compares the
//! untyped values (as text). A VALUES list resolves all its rows at once.

use crate::error::SqlError;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, GroupByExpr, SelectItem, SetExpr, Spanned};
use sqlparser::tokenizer::Location;

/// What one input gives a result column's type.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    pub ty: SqlType,
    /// Written as a quoted string, NULL or a parameter (PostgreSQL's
    /// `unknown`); the string, to be read as the chosen type.
    pub untyped: Option<Option<String>>,
    /// Where the input's expression starts in the statement's text, if it
    /// has one (errors point there).
    pub at: Option<Location>,
}

impl Input {
    /// An input of type `ty` that is not a literal.
    pub fn typed(ty: SqlType, at: Option<Location>) -> Input {
        Input {
            ty,
            untyped: None,
            at,
        }
    }

    /// The input written as expression `expr` (a SELECT's column or a
    /// VALUES item), planned as `ty`.
    pub fn of(expr: &Expr, ty: SqlType) -> Input {
        let mut inner = expr;
        while let Expr::Nested(e) = inner {
            inner = e;
        }
        let start = inner.span().start;
        Input {
            ty,
            untyped: untyped(expr),
            at: (start.line > 0).then_some(start),
        }
    }
}

/// `Some(text)` for a quoted string, `Some(None)` for NULL or a
/// parameter, perhaps in parentheses; `None` for any other expression.
fn untyped(expr: &Expr) -> Option<Option<String>> {
    use sqlparser::ast::Value as Written;
    match expr {
        Expr::Nested(inner) => untyped(inner),
        Expr::Value(v) => match &v.value {
            Written::SingleQuotedString(s) | Written::EscapedStringLiteral(s) => {
                Some(Some(s.clone()))
            }
            // A parameter takes its type from where it is, as PostgreSQL
            // infers it.
            Written::Null | Written::Placeholder(_) => Some(None),
            _ => None,
        },
        _ => None,
    }
}

/// The inputs the result columns of `body`, planned as `types`, give a
/// set operation over it: a SELECT's columns as written (untyped ones
/// typed when DISTINCT or GROUP BY compares them; columns a `*` gives
/// point nowhere), a parenthesized query's likewise (typed under its
/// ORDER BY); any other body's columns are typed and point nowhere.
pub fn inputs(body: &SetExpr, types: &[SqlType]) -> Vec<Input> {
    let plain = || types.iter().map(|&ty| Input::typed(ty, None)).collect();
    match body {
        SetExpr::Select(select) => {
            let compared = select.distinct.is_some()
                || !matches!(&select.group_by, GroupByExpr::Expressions(keys, _) if keys.is_empty());
            let expr = |item: &SelectItem| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    Some(e.clone())
                }
                _ => None,
            };
            // Items before the first `*` and after the last one are
            // columns at known places.
            let items = &select.projection;
            let first_star = items.iter().position(|i| expr(i).is_none());
            let last_star = items.iter().rposition(|i| expr(i).is_none());
            if first_star.is_none() && items.len() != types.len() {
                return plain();
            }
            let after = last_star.map_or(0, |s| items.len() - s - 1);
            let before = first_star.unwrap_or(items.len());
            let mut out: Vec<Input> = plain();
            for (c, input) in out.iter_mut().enumerate() {
                let item = if c < before {
                    items.get(c)
                } else if c + after >= types.len() {
                    items.get(items.len() + c - types.len())
                } else {
                    None
                };
                if let Some(e) = item.and_then(expr) {
                    *input = Input::of(&e, input.ty);
                    if compared {
                        input.untyped = None;
                    }
                }
            }
            out
        }
        SetExpr::Query(q) => {
            let mut out = inputs(&q.body, types);
            if q.order_by.is_some() {
                out.iter_mut().for_each(|i| i.untyped = None);
            }
            out
        }
        _ => plain(),
    }
}

/// The type of one result column of the construct `context` (`UNION`,
/// `INTERSECT`, `EXCEPT`, `VALUES`) from its inputs in order, and the
/// input it was taken from (where the column points, in the construct
/// above); each untyped input is read as that type (its error if it is
/// not one). The errors: the module's.
pub fn common(context: &str, inputs: &[Input]) -> Result<Input, SqlError> {
    let mut best: Option<&Input> = None;
    for input in inputs.iter().filter(|i| i.untyped.is_none()) {
        let Some(chosen) = best else {
            best = Some(input);
            continue;
        };
        let (p, n) = (chosen.ty, input.ty);
        if category(p) != category(n) {
            return Err(SqlError::new(
                "42804",
                format!(
                    "{context} types {} and {} cannot be matched",
                    name(p),
                    name(n)
                ),
            )
            .near(input.at));
        }
        match later(p, n) {
            Some(Later::Second) => best = Some(input),
            Some(Later::First) => {}
            None => {
                return Err(SqlError::new(
                    "42846",
                    format!(
                        "{context} could not convert type {} to {}",
                        name(n),
                        name(p)
                    ),
                )
                .near(input.at));
            }
        }
    }
    let Some(best) = best else {
        return Ok(Input::typed(
            SqlType::Text,
            inputs.first().and_then(|i| i.at),
        ));
    };
    let ty = match inputs
        .iter()
        .all(|i| i.ty == best.ty && i.untyped.is_none())
    {
        true => best.ty,
        false => without_modifier(best.ty, inputs),
    };
    for input in inputs {
        if let Some(Some(text)) = &input.untyped {
            crate::types::cast(Value::Text(text.clone()), ty)?;
        }
    }
    Ok(Input::typed(ty, best.at))
}

/// PostgreSQL's type categories (`pg_type.typcategory`) of folio's types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Category {
    Number,
    String,
    Boolean,
    DateTime,
    Timespan,
    Array,
    /// inet and cidr (PostgreSQL's 'I'; cidr casts to inet implicitly).
    Network,
    /// bit and bit varying (PostgreSQL's category `V`).
    BitString,
    /// bytea and uuid (PostgreSQL's "user-defined" category).
    Other,
}

fn category(ty: SqlType) -> Category {
    match ty {
        SqlType::Int2
        | SqlType::Int4
        | SqlType::Int8
        | SqlType::Numeric(_)
        | SqlType::Float4
        | SqlType::Float8
        | SqlType::Oid => Category::Number,
        SqlType::Text
        | SqlType::Varchar(_)
        | SqlType::Char(_)
        | SqlType::InternalChar
        | SqlType::Name => Category::String,
        SqlType::Bool => Category::Boolean,
        SqlType::Date
        | SqlType::Timestamp(_)
        | SqlType::TimestampTz(_)
        | SqlType::Time(_)
        | SqlType::TimeTz(_) => Category::DateTime,
        SqlType::Interval(_) => Category::Timespan,
        SqlType::Array(_) => Category::Array,
        SqlType::Inet | SqlType::Cidr => Category::Network,
        SqlType::Bit(_) | SqlType::VarBit(_) => Category::BitString,
        SqlType::Record
        | SqlType::Composite(_)
        | SqlType::Json
        | SqlType::Jsonb
        | SqlType::JsonPath
        | SqlType::Enum(_) => Category::Other,
        SqlType::Bytea
        | SqlType::Uuid
        | SqlType::Tid
        | SqlType::Xid
        | SqlType::PgLsn
        | SqlType::Money
        | SqlType::Xid8
        | SqlType::PgSnapshot
        | SqlType::TxidSnapshot
        | SqlType::MacAddr
        | SqlType::MacAddr8
        | SqlType::Refcursor
        | SqlType::Geo(_)
        | SqlType::TsVector
        | SqlType::TsQuery
        | SqlType::Range(_)
        | SqlType::Multirange(_)
        | SqlType::Reg(_) => Category::Other,
    }
}

/// Which of two types of one category the candidate moves to.
#[derive(Debug, PartialEq, Eq)]
enum Later {
    First,
    Second,
}

/// The candidate `p` meeting `n` of its category: the later along the
/// implicit casts, the first of strings; `None` when neither casts to
/// the other.
fn later(p: SqlType, n: SqlType) -> Option<Later> {
    let rank = |t: SqlType| match t {
        SqlType::Int2 | SqlType::Date => 0,
        SqlType::Int4 | SqlType::Timestamp(_) => 1,
        SqlType::Int8 | SqlType::TimestampTz(_) => 2,
        SqlType::Numeric(_) => 3,
        SqlType::Float4 => 4,
        SqlType::Float8 => 5,
        // Every integer casts to oid implicitly.
        SqlType::Oid => 6,
        // bit casts to varbit implicitly, PostgreSQL's preferred one.
        SqlType::VarBit(_) => 1,
        _ => 0,
    };
    match category(p) {
        Category::BitString if rank(n) > rank(p) => Some(Later::Second),
        Category::BitString => Some(Later::First),
        Category::Number | Category::DateTime if rank(n) > rank(p) => Some(Later::Second),
        Category::Network if n == SqlType::Inet => Some(Later::Second),
        Category::Network => Some(Later::First),
        Category::Number | Category::DateTime | Category::String => Some(Later::First),
        _ if p.oid() == n.oid() => Some(Later::First),
        _ => None,
    }
}

/// Whether a value of type `from` goes to an argument of type oid `to`
/// implicitly, as a call's argument must (PostgreSQL's implicit casts
/// among the number, date and time, and string types; a type to itself;
/// a domain takes what its base type takes).
pub fn implicit_cast(from: SqlType, to: u32) -> bool {
    let to = crate::domains::base_oid(to);
    if from.oid() == to {
        return true;
    }
    let Some(to) = crate::user_types::of_oid(to, -1) else {
        return false;
    };
    category(from) == category(to) && later(from, to) == Some(Later::Second)
        || category(from) == Category::String && category(to) == Category::String
}

/// `ty` without its length or precision, when the inputs do not all have
/// it (a char the longest length among them: folio has no char without
/// one).
fn without_modifier(ty: SqlType, inputs: &[Input]) -> SqlType {
    match ty {
        SqlType::Numeric(_) => SqlType::Numeric(None),
        SqlType::Varchar(_) => SqlType::Varchar(None),
        SqlType::Time(_) => SqlType::Time(None),
        SqlType::TimeTz(_) => SqlType::TimeTz(None),
        SqlType::Timestamp(_) => SqlType::Timestamp(None),
        SqlType::TimestampTz(_) => SqlType::TimestampTz(None),
        SqlType::Interval(_) => SqlType::Interval(None),
        SqlType::Bit(_) => SqlType::Bit(None),
        SqlType::VarBit(_) => SqlType::VarBit(None),
        SqlType::Char(n) => SqlType::Char(
            (inputs.iter())
                .filter_map(|i| match (i.ty, &i.untyped) {
                    (SqlType::Char(m), None) => Some(m),
                    _ => None,
                })
                .fold(n, u32::max),
        ),
        other => other,
    }
}

/// A type's name without its modifier, as PostgreSQL's `format_type_be`
/// names it in these errors (and `pg_typeof`).
pub fn name(ty: SqlType) -> String {
    match ty {
        SqlType::Numeric(_) => "numeric".into(),
        SqlType::Varchar(_) => "character varying".into(),
        SqlType::Char(_) => "character".into(),
        SqlType::Time(_)
        | SqlType::TimeTz(_)
        | SqlType::Timestamp(_)
        | SqlType::TimestampTz(_)
        | SqlType::Interval(_)
        | SqlType::Bit(_)
        | SqlType::VarBit(_) => without_modifier(ty, &[]).name(),
        SqlType::Array(element) => format!("{}[]", name(*element)),
        other => other.name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(ty: SqlType) -> Input {
        Input::typed(ty, None)
    }

    fn literal(text: &str) -> Input {
        Input {
            ty: SqlType::Text,
            untyped: Some(Some(text.into())),
            at: None,
        }
    }

    fn resolved(inputs: &[Input]) -> Result<SqlType, SqlError> {
        common("UNION", inputs).map(|i| i.ty)
    }

    // Proves PostgreSQL's choices (each checked with PostgreSQL 15's
    // pg_typeof over a UNION or VALUES): literals take the typed inputs'
    // type, categories never mix, the implicit-cast order within one, and
    // modifiers kept only when all inputs share them.
    #[test]
    fn common_types_as_postgresql_resolves_them() {
        use SqlType::*;
        let cases: [(&[Input], SqlType); 10] = [
            (&[literal("1"), typed(Int4)], Int4),
            (&[literal("a"), literal("b")], Text),
            (&[typed(Int4), typed(Float4)], Float4),
            (&[typed(Float8), typed(Int4)], Float8),
            (&[typed(Int4), typed(Numeric(Some((10, 2))))], Numeric(None)),
            (&[typed(Varchar(Some(5))), typed(Text)], Varchar(None)),
            (&[typed(Text), typed(Varchar(Some(5)))], Text),
            (
                &[typed(Varchar(Some(5))), typed(Varchar(Some(5)))],
                Varchar(Some(5)),
            ),
            (
                &[
                    typed(Date),
                    typed(TimestampTz(None)),
                    typed(Timestamp(None)),
                ],
                TimestampTz(None),
            ),
            (&[typed(Numeric(Some((3, 1)))), literal("2")], Numeric(None)),
        ];
        for (inputs, ty) in cases {
            assert_eq!(resolved(inputs), Ok(ty), "{inputs:?}");
        }
    }

    // Proves the errors: another category is 42804 naming the candidate
    // first, two types of one category without a cast 42846, a literal
    // that is not the chosen type its input error.
    #[test]
    fn inputs_that_cannot_be_matched() {
        use SqlType::*;
        let e = common("INTERSECT", &[literal("x"), typed(Text), typed(Int4)]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                "42804",
                "INTERSECT types text and integer cannot be matched"
            )
        );
        let e = resolved(&[typed(Varchar(Some(3))), typed(Bool)]).unwrap_err();
        assert_eq!(
            e.message,
            "UNION types character varying and boolean cannot be matched"
        );
        let e = resolved(&[typed(Bytea), typed(Uuid)]).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            ("42846", "UNION could not convert type uuid to bytea")
        );
        assert_eq!(
            resolved(&[typed(Int4), literal("a")]).unwrap_err().code,
            "22P02"
        );
    }

    // Proves which written columns are untyped, through `*` and under
    // DISTINCT.
    #[test]
    fn untyped_columns_as_written() {
        let body = |sql: &str| match crate::parse::statements(sql).unwrap().pop() {
            Some(crate::parse::Parsed::Sql(s)) => match *s {
                sqlparser::ast::Statement::Query(q) => *q.body,
                _ => unreachable!(),
            },
            _ => unreachable!(),
        };
        let untyped = |sql: &str, width: usize| -> Vec<bool> {
            inputs(&body(sql), &vec![SqlType::Text; width])
                .iter()
                .map(|i| i.untyped.is_some())
                .collect()
        };
        assert_eq!(
            untyped("select 'a', ('b'), null, 'c'::text, 1", 5),
            [true, true, true, false, false]
        );
        assert_eq!(
            untyped("select 'a', *, 'b' from t", 4),
            [true, false, false, true]
        );
        assert_eq!(untyped("select distinct 'a', 'b'", 2), [false, false]);
        assert_eq!(untyped("select 'a' group by 1", 1), [false]);
        let at = inputs(
            &body("select 1,\n  'x'::text"),
            &[SqlType::Int4, SqlType::Text],
        );
        assert_eq!(at[1].at, Some(Location::new(2, 3)));
    }
}
