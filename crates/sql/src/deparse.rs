//! A stored default as PostgreSQL's `pg_get_expr(adbin, relid, true)`
//! prints it (what psql's `\d` shows): folio keeps a default as the text
//! it was written in, PostgreSQL as an analyzed expression it prints back
//! with its constants labelled by type. So `'x'` on a text column reads
//! `'x'::text`, `'2020-1-2'` on a date column `'2020-01-02'::date`, `-1`
//! reads `'-1'::integer`, `nextval('t_id_seq')` reads
//! `nextval('t_id_seq'::regclass)`, `current_timestamp` reads
//! `CURRENT_TIMESTAMP`, and a quoted literal inside an expression is
//! `text` (`'a'::text || 'b'::text`). Other expressions print as the
//! parser prints them; a text that does not parse is given as it is.

use crate::types;
use folio_row::{SqlType, Value};
use sqlparser::ast::{
    CastKind, DataType, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName,
    UnaryOperator, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;

/// `expr` (a default of a column of type `column`) as PostgreSQL prints
/// it.
pub fn default_text(expr: &str, column: SqlType) -> String {
    let Ok(mut parsed) = crate::parse::expression(expr) else {
        return expr.to_string();
    };
    // PostgreSQL prints the expression, not the parentheses around all of
    // it (`DEFAULT (1)` reads `1`; `parse.rs` puts a default opening with
    // a parenthesis in a pair of its own).
    while let Expr::Nested(inner) = parsed {
        parsed = *inner;
    }
    // A quoted literal alone takes the column's type, without its
    // modifier (PostgreSQL applies lengths and scales when a row is
    // written, not to the stored constant).
    let unmodified = match column {
        SqlType::Char(_) => SqlType::Text,
        SqlType::Varchar(_) => SqlType::Varchar(None),
        SqlType::Numeric(_) => SqlType::Numeric(None),
        other => other,
    };
    if let Expr::Value(v) = &parsed
        && let sqlparser::ast::Value::SingleQuotedString(text) = &v.value
        && let Ok(value) = types::coerce(Value::Text(text.clone()), unmodified)
    {
        return constant(&value, column);
    }
    let mut labelled = parsed;
    let _ = labelled.visit(&mut Label);
    labelled.to_string()
}

/// A stored expression (its pretty form, as [`default_text`] prints it)
/// in PostgreSQL's default form of `pg_get_expr`: every operator
/// expression in parentheses (`(now() + '1 day'::interval)`,
/// `((a + b) * c)`). Text that does not parse is returned as it is.
pub fn parenthesized(text: &str) -> String {
    let Ok(mut parsed) = crate::parse::expression(text) else {
        return text.to_string();
    };
    struct Wrap;
    impl VisitorMut for Wrap {
        type Break = ();
        // The written parentheses go first, then each operator gets one
        // pair.
        fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            while let Expr::Nested(inner) = expr
                && matches!(
                    inner.as_ref(),
                    Expr::BinaryOp { .. }
                        | Expr::IsDistinctFrom(..)
                        | Expr::IsNotDistinctFrom(..)
                        | Expr::Nested(_)
                )
            {
                *expr = (**inner).clone();
            }
            ControlFlow::Continue(())
        }

        fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            match expr {
                Expr::BinaryOp { .. } | Expr::IsDistinctFrom(..) | Expr::IsNotDistinctFrom(..) => {
                    *expr = Expr::Nested(Box::new(expr.clone()))
                }
                // A type the parser knows prints in its own words
                // (`INTERVAL`): PostgreSQL's name again.
                Expr::Cast { data_type, .. } => {
                    let name = match types::column_type(data_type) {
                        Ok(ty) => crate::explain::type_name(ty).into_owned(),
                        Err(_) => data_type.to_string().to_lowercase(),
                    };
                    *data_type =
                        DataType::Custom(ObjectName::from(vec![name.as_str().into()]), Vec::new());
                }
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }
    let _ = parsed.visit(&mut Wrap);
    parsed.to_string()
}

/// A constant of type `ty` as PostgreSQL prints it in a plan or a
/// stored expression (ruleutils' `get_const_expr`): a non-negative
/// integer bare, a numeric bare when it reads back as one (a point or an
/// exponent), booleans as words, NULL, the rest quoted and labelled with
/// the type without its modifier (`'y'::character varying`, `'z'::bpchar`).
pub fn constant(v: &Value, ty: SqlType) -> String {
    match (v, types::text_output(v)) {
        (_, None) => "NULL".into(),
        (Value::Int4(x), Some(t)) if *x >= 0 => t,
        (Value::Bool(b), _) => b.to_string(),
        (Value::Numeric(_), Some(t))
            if t.starts_with(|c: char| c.is_ascii_digit()) && t.contains(['.', 'e', 'E']) =>
        {
            t
        }
        (_, Some(t)) => format!(
            "'{}'::{}",
            t.replace('\'', "''"),
            crate::explain::type_name(ty)
        ),
    }
}

fn cast(expr: Expr, ty: &str) -> Expr {
    Expr::Cast {
        kind: CastKind::DoubleColon,
        expr: Box::new(expr),
        data_type: DataType::Custom(ObjectName::from(vec![ty.into()]), Vec::new()),
        format: None,
    }
}

/// The string a literal holds, before or after [`Label`] cast it to
/// `text`.
fn literal_text(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Value(v) => match &v.value {
            sqlparser::ast::Value::SingleQuotedString(t) => Some(t),
            _ => None,
        },
        Expr::Cast {
            expr,
            data_type: DataType::Custom(name, _),
            ..
        } if name.to_string() == "text" => literal_text(expr),
        _ => None,
    }
}

/// A cast of a quoted literal (or an interval literal) as the constant
/// it is; `None` for other expressions or text the type refuses.
fn typed_literal(expr: &Expr) -> Option<Expr> {
    let (value, ty) = match expr {
        Expr::Interval(interval) => {
            let mut plain = interval.clone();
            *plain.value = Expr::Value(
                sqlparser::ast::Value::SingleQuotedString(literal_text(&interval.value)?.into())
                    .into(),
            );
            (
                types::interval_literal(&plain).ok()?,
                SqlType::Interval(None),
            )
        }
        Expr::Cast {
            expr, data_type, ..
        } => {
            let ty = types::column_type(data_type).ok()?;
            let text = literal_text(expr)?;
            (types::cast(Value::Text(text.into()), ty).ok()?, ty)
        }
        _ => return None,
    };
    let text = constant(&value, ty);
    let label = format!("::{}", crate::explain::type_name(ty));
    Some(match text.strip_suffix(&label) {
        Some(quoted) => cast(
            Expr::Value(
                sqlparser::ast::Value::SingleQuotedString(
                    quoted[1..quoted.len() - 1].replace("''", "'"),
                )
                .into(),
            ),
            crate::explain::type_name(ty).as_ref(),
        ),
        None => crate::parse::expression(&text).ok()?,
    })
}

/// Labels an expression's constants as PostgreSQL prints them.
struct Label;

impl VisitorMut for Label {
    type Break = ();

    // After the children: a node made here is not visited again.
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        match expr {
            Expr::Value(v) if matches!(v.value, sqlparser::ast::Value::SingleQuotedString(_)) => {
                *expr = cast(expr.clone(), "text");
            }
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr: inner,
            } => {
                if let Expr::Value(v) = inner.as_ref()
                    && let sqlparser::ast::Value::Number(n, _) = &v.value
                {
                    let ty = match types::literal(&v.value) {
                        Ok(Value::Int4(_)) => "integer",
                        Ok(Value::Int8(_)) => "bigint",
                        _ => "numeric",
                    };
                    let text = sqlparser::ast::Value::SingleQuotedString(format!("-{n}"));
                    *expr = cast(Expr::Value(text.into()), ty);
                }
            }
            // A typed literal is a constant of its type, printed as
            // PostgreSQL prints one (`interval '90' minute` reads
            // `'01:30:00'::interval`, `'1 day'::interval` stays).
            Expr::Interval(_) | Expr::Cast { .. } => {
                if let Some(constant) = typed_literal(expr) {
                    *expr = constant;
                }
            }
            Expr::Function(f) => {
                let name = crate::names::function(&f.name);
                if matches!(f.args, FunctionArguments::None) {
                    f.name = ObjectName::from(vec![name.to_uppercase().as_str().into()]);
                } else if name == "nextval"
                    && let FunctionArguments::List(list) = &mut f.args
                    && let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Cast {
                        data_type,
                        ..
                    }))) = list.args.first_mut()
                {
                    *data_type =
                        DataType::Custom(ObjectName::from(vec!["regclass".into()]), Vec::new());
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the default form of pg_get_expr parenthesizes each operator
    // (PostgreSQL 15's output for the same defaults).
    #[test]
    fn the_default_form_parenthesizes_operators() {
        for (pretty, plain) in [
            ("now() + '1 day'::interval", "(now() + '1 day'::interval)"),
            ("(a + b) * c", "((a + b) * c)"),
            ("'a'::text || 'b'::text", "('a'::text || 'b'::text)"),
            ("nextval('s'::regclass)", "nextval('s'::regclass)"),
            ("'x'::text", "'x'::text"),
        ] {
            assert_eq!(parenthesized(pretty), plain, "{pretty}");
        }
    }

    #[test]
    fn defaults_read_as_postgresql_prints_them() {
        let cases = [
            ("5", SqlType::Int4, "5"),
            ("-1", SqlType::Int4, "'-1'::integer"),
            ("0", SqlType::Int8, "0"),
            ("1.5", SqlType::Numeric(Some((10, 2))), "1.5"),
            ("-2.5", SqlType::Numeric(None), "'-2.5'::numeric"),
            ("'x'", SqlType::Text, "'x'::text"),
            ("'y'", SqlType::Varchar(Some(10)), "'y'::character varying"),
            ("'z'", SqlType::Char(3), "'z'::bpchar"),
            ("'1.5'", SqlType::Numeric(Some((10, 2))), "1.5"),
            ("true", SqlType::Bool, "true"),
            ("'2020-1-2'", SqlType::Date, "'2020-01-02'::date"),
            ("'7'", SqlType::Int4, "7"),
            ("now()", SqlType::Timestamp(None), "now()"),
            (
                "current_timestamp",
                SqlType::TimestampTz(None),
                "CURRENT_TIMESTAMP",
            ),
            ("1 + 2", SqlType::Int4, "1 + 2"),
            ("((1 + 2) * 3)", SqlType::Int4, "(1 + 2) * 3"),
            ("(1)", SqlType::Int4, "1"),
            ("('x')", SqlType::Text, "'x'::text"),
            ("'a' || 'b'", SqlType::Text, "'a'::text || 'b'::text"),
            (
                "nextval('t_id_seq')",
                SqlType::Int4,
                "nextval('t_id_seq'::regclass)",
            ),
        ];
        for (written, ty, printed) in cases {
            assert_eq!(default_text(written, ty), printed, "{written}");
        }
    }
}
