//! View column defaults (README "Views"): `ALTER VIEW v ALTER [COLUMN] c
//! SET DEFAULT expr | DROP DEFAULT` (also written as ALTER TABLE of the
//! view), kept in the view's class row (folio-catalog `views.rs`), and the
//! one owner of "what value does a view column take when a row change
//! through the view leaves it out or names `DEFAULT`". PostgreSQL 15's
//! rewriter rule, applied at each view a statement passes:
//!
//! - INSERT: a view column the statement leaves out, or gives `DEFAULT`,
//!   takes the view's default when it has one; otherwise it stays left out
//!   (or `DEFAULT`), so the view below, and at last the base column's
//!   default, decides ([`fill_insert`]);
//! - `UPDATE ... SET c = DEFAULT`: the view's default, else NULL
//!   ([`of_assignment`]);
//! - through a view's INSTEAD OF triggers the NEW row's column takes the
//!   view's default, else NULL (`instead`).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::scalar::Env;
use folio_catalog::ViewDef;
use folio_db::Transaction;
use sqlparser::ast::{Expr, Insert, SetExpr};

/// `ALTER VIEW name ALTER [COLUMN] column SET DEFAULT value` (`Some`)
/// or `DROP DEFAULT` (`None`): the expression checked as a table
/// column's is (no column references, a value of the column's type) and
/// stored with the view.
pub fn alter(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    name: &str,
    column: &str,
    value: Option<&Expr>,
) -> Result<(), SqlError> {
    let catalog = cx.db.catalog();
    let view = catalog
        .view(txn, name)?
        .ok_or_else(|| SqlError::undefined_table(name))?;
    let expr = match value {
        Some(value) => {
            let Some(c) = view.def.columns.iter().find(|c| c.name == column) else {
                return Err(SqlError::new(
                    "42703",
                    format!(
                        "column \"{column}\" of relation \"{}\" does not exist",
                        folio_catalog::unqualified(name)
                    ),
                ));
            };
            let ty = crate::user_types::of_oid(c.type_oid, c.typmod)
                .ok_or_else(|| SqlError::unsupported(format!("the type of column \"{column}\"")))?;
            Some(crate::ddl::default_text(
                (cx, txn),
                value,
                (column, ty),
                &Env::at(cx.now()),
            )?)
        }
        None => None,
    };
    catalog.set_view_default(txn, name, column, expr)?;
    Ok(())
}

/// The default of view column `column` parsed, if it has one.
fn default_of(def: &ViewDef, column: usize) -> Result<Option<Expr>, SqlError> {
    def.default_of(column)
        .map(crate::parse::expression)
        .transpose()
}

/// NULL, what a view column without a default takes where no default
/// below applies.
fn null() -> Expr {
    Expr::Value(sqlparser::ast::Value::Null.into())
}

/// The value of `SET c = DEFAULT` for view column `column` of `def` (the
/// view's default, else NULL); `None` when `value` is not `DEFAULT`.
pub fn of_assignment(def: &ViewDef, column: usize, value: &Expr) -> Result<Option<Expr>, SqlError> {
    if !crate::dml::is_default(value) {
        return Ok(None);
    }
    Ok(Some(default_of(def, column)?.unwrap_or_else(null)))
}

/// How many columns the source of `insert` gives (a VALUES list's
/// widest row; a query's columns, planned; none for `DEFAULT VALUES`):
/// an INSERT without a column list names that many first columns.
pub fn source_width(cx: &Ctx<'_>, txn: &Transaction, insert: &Insert) -> Result<usize, SqlError> {
    Ok(match insert.source.as_deref() {
        None => 0,
        Some(source) => match source.body.as_ref() {
            SetExpr::Values(values) => values.rows.iter().map(Vec::len).max().unwrap_or(0),
            _ => crate::query::plan_query(cx, txn, source)?.columns.len(),
        },
    })
}

/// Gives `insert`, an INSERT into view `def` naming view columns
/// `listed` (in order, as its source gives them), the view's defaults:
/// each `DEFAULT` in its VALUES for a column with a default becomes that
/// expression (with `instead`, the view's INSTEAD OF triggers take the
/// rows, so one without becomes NULL), and each column it leaves out
/// that has a default is added to `listed` and to the source with it (a
/// query source becomes `SELECT s.*, defaults FROM (query) s`).
pub fn fill_insert(
    def: &ViewDef,
    insert: &mut Insert,
    listed: &mut Vec<String>,
    instead: bool,
) -> Result<(), SqlError> {
    let at: Vec<Option<usize>> = (listed.iter())
        .map(|name| def.columns.iter().position(|c| &c.name == name))
        .collect();
    let mut added = Vec::new();
    for (i, c) in def.columns.iter().enumerate() {
        if !listed.contains(&c.name)
            && let Some(e) = default_of(def, i)?
        {
            added.push((c.name.clone(), e));
        }
    }
    if let Some(source) = insert.source.as_deref_mut()
        && let SetExpr::Values(values) = source.body.as_mut()
    {
        for row in &mut values.rows {
            for (value, column) in row.iter_mut().zip(&at) {
                if !crate::dml::is_default(value) {
                    continue;
                }
                match column.map(|c| default_of(def, c)).transpose()?.flatten() {
                    Some(e) => *value = e,
                    None if instead => *value = null(),
                    None => {}
                }
            }
            row.extend(added.iter().map(|(_, e)| e.clone()));
        }
    } else if !added.is_empty() {
        let defaults: Vec<String> = added.iter().map(|(_, e)| e.to_string()).collect();
        let text = match insert.source.as_deref() {
            None => format!("VALUES ({})", defaults.join(", ")),
            Some(source) => format!(
                "SELECT \"*source*\".*, {} FROM ({source}) AS \"*source*\"",
                defaults.join(", ")
            ),
        };
        insert.source = Some(crate::views::parse_text(&def.name, &text)?);
    }
    listed.extend(added.into_iter().map(|(name, _)| name));
    Ok(())
}
