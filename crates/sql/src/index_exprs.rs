//! Expression and partial indexes in the SQL layer (design: folio-catalog
//! README, "Expression and partial indexes"; this crate's README, "Plans
//! and prepared statements"): what `CREATE INDEX` checks and stores of
//! its expressions and predicate, the evaluator the catalog computes
//! their entries with, and their bound form, which the planner matches.

use crate::aggregate;
use crate::error::SqlError;
use crate::parse;
use crate::scalar::{self, Cmp, Env, Scalar};
use crate::types;
use folio_catalog::{
    CatalogError, DerivedKeys, IndexDef, IndexEvaluator, IndexExprs, KeyExpr, Relation,
    RelationIndex, TableDef,
};
use folio_db::Database;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Visit, Visitor};
use std::ops::ControlFlow;
use std::sync::Arc;

/// Lends the catalog of `db` the SQL layer's evaluator of index
/// expressions and predicates (the first lent stays).
pub fn lend(db: &Database) {
    db.catalog().set_index_evaluator(Arc::new(Evaluator));
}

/// Compiles an index's stored expressions and predicate.
#[derive(Debug)]
struct Evaluator;

impl IndexEvaluator for Evaluator {
    fn compile(
        &self,
        table: &TableDef,
        types: &[SqlType],
        index: &IndexDef,
    ) -> Result<Arc<dyn DerivedKeys>, CatalogError> {
        let compiled = Compiled::of(table, types, index).map_err(into_catalog)?;
        Ok(Arc::new(compiled))
    }
}

/// An SQL error as the catalog passes it on.
fn into_catalog(e: SqlError) -> CatalogError {
    CatalogError::Evaluation {
        code: e.code,
        message: e.message,
        detail: e.detail,
    }
}

/// An index's expressions and predicate, bound over its table's columns.
#[derive(Debug)]
pub struct Compiled {
    /// The expression keys, in key order, with their keys' types.
    pub keys: Vec<(Scalar, SqlType)>,
    /// The predicate's conjuncts (none: every row has an entry).
    pub predicate: Vec<Scalar>,
}

impl Compiled {
    fn of(table: &TableDef, types: &[SqlType], index: &IndexDef) -> Result<Compiled, SqlError> {
        let columns: Vec<(String, SqlType)> = (table.columns.iter())
            .map(|c| c.name.clone())
            .zip(types.iter().copied())
            .collect();
        let columns = &columns[..];
        let keys = (index.exprs.keys.iter())
            .map(|k| Ok((bind_stored(&k.sql, columns)?, k.ty()?)))
            .collect::<Result<Vec<_>, SqlError>>()?;
        let predicate = match &index.exprs.predicate {
            Some(p) => bind_stored(p, columns)?.conjuncts(),
            None => Vec::new(),
        };
        Ok(Compiled { keys, predicate })
    }

    /// The compiled expressions and predicate of `ri`, if it has any.
    pub fn of_index(ri: &RelationIndex) -> Result<Option<&Compiled>, SqlError> {
        Ok(ri
            .derived()?
            .and_then(|d| d.as_any().downcast_ref::<Compiled>()))
    }
}

/// A stored expression bound over the table's `columns`.
fn bind_stored(sql: &str, columns: &[(String, SqlType)]) -> Result<Scalar, SqlError> {
    scalar::bind(&parse::expression(sql)?, columns)
}

impl DerivedKeys for Compiled {
    fn expressions(&self, values: &[Value]) -> Result<Vec<Value>, CatalogError> {
        let env = Env::at(0);
        (self.keys.iter())
            .map(
                |(key, ty)| match key.eval(values, &env).map_err(into_catalog)? {
                    Value::Null => Ok(Value::Null),
                    v => types::coerce(v, *ty).map_err(into_catalog),
                },
            )
            .collect()
    }

    fn includes(&self, values: &[Value]) -> Result<bool, CatalogError> {
        let env = Env::at(0);
        for conjunct in &self.predicate {
            if !conjunct.accepts(values, &env).map_err(into_catalog)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Where an expression of `CREATE INDEX` is: a key, or the predicate
/// (PostgreSQL's messages name it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Key,
    Predicate,
}

impl Part {
    fn singular(self) -> &'static str {
        match self {
            Part::Key => "index expression",
            Part::Predicate => "index predicate",
        }
    }
}

/// The expressions and predicate of a `CREATE INDEX` over `relation`,
/// checked as PostgreSQL checks them, as the catalog keeps them.
pub fn prepare(
    relation: &Relation,
    expressions: &[&Expr],
    predicate: Option<&Expr>,
) -> Result<IndexExprs, SqlError> {
    let mut reads = Vec::new();
    let mut keys = Vec::with_capacity(expressions.len());
    for &e in expressions {
        let bound = checked(relation, e, Part::Key)?;
        bound.columns(&mut reads);
        let ty = bound.ty_in(relation);
        // An anonymous record has no comparison an index could keep.
        if ty == SqlType::Record {
            return Err(SqlError::new(
                "42P16",
                format!("column \"{}\" has pseudo-type record", label(e)),
            ));
        }
        // (The catalog keeps a key's type by oid, which names no enum's
        // labels.)
        if matches!(ty, SqlType::Enum(_) | SqlType::Array(SqlType::Enum(_))) {
            return Err(SqlError::unsupported(format!(
                "an index expression of an enum type ({e})"
            )));
        }
        keys.push(KeyExpr {
            sql: e.to_string(),
            type_oid: ty.oid(),
            typmod: ty.typmod(),
        });
    }
    let predicate = match predicate {
        Some(p) => {
            let bound = checked(relation, p, Part::Predicate)?;
            crate::scalar::require_bool(&bound, relation, "WHERE", p)?;
            bound.columns(&mut reads);
            Some(p.to_string())
        }
        None => None,
    };
    reads.sort_unstable();
    reads.dedup();
    Ok(IndexExprs {
        keys,
        predicate,
        reads: reads.into_iter().map(|c| c as u16).collect(),
        include: Vec::new(),
    })
}

/// `e` bound over `relation`, refused as PostgreSQL refuses it in an
/// index: what [`refuse_in`] refuses, and calls or casts that are not
/// immutable (42P17).
fn checked(relation: &Relation, e: &Expr, part: Part) -> Result<Scalar, SqlError> {
    refuse_in(e, part)?;
    let bound = scalar::bind(e, relation)?;
    // An index's writes cannot run a function called through the
    // statement's transaction (`plpgsql/row_calls.rs`); an immutable one,
    // which PostgreSQL takes, is refused as a missing feature.
    if let Some(call) = immutable_row_call(&bound) {
        return Err(SqlError::unsupported(format!(
            "a call of the user-defined function {}() in {}",
            crate::sql_functions::names_of(&call.def.name),
            part.singular()
        )));
    }
    if !crate::immutable::immutable(&bound, &relation.types) {
        return Err(SqlError::new(
            "42P17",
            format!("functions in {} must be marked IMMUTABLE", part.singular()),
        ));
    }
    Ok(bound)
}

/// A call of an immutable user-defined function within `e` that runs
/// through the statement's transaction, if any.
fn immutable_row_call(e: &Scalar) -> Option<&crate::plpgsql::row_calls::RowCall> {
    match e {
        Scalar::Call(call) if call.def.volatility == b'i' => Some(call),
        _ => e.children().into_iter().find_map(immutable_row_call),
    }
}

/// [`refuse_in`] of an ON CONFLICT inference element (`predicate`: its
/// WHERE clause), which PostgreSQL reads as an index's.
pub fn refuse_in_inference(e: &Expr, predicate: bool) -> Result<(), SqlError> {
    refuse_in(
        e,
        if predicate {
            Part::Predicate
        } else {
            Part::Key
        },
    )
}

/// PostgreSQL's errors for what no index expression or predicate may
/// hold: aggregates (42803), window functions (42P20), set-returning
/// calls and subqueries (0A000).
fn refuse_in(e: &Expr, part: Part) -> Result<(), SqlError> {
    let plural = match part {
        Part::Key => "index expressions",
        Part::Predicate => "index predicates",
    };
    if aggregate::contains_aggregate(e) {
        return Err(SqlError::new(
            "42803",
            format!("aggregate functions are not allowed in {plural}"),
        ));
    }
    if aggregate::contains_call(e, |f| f.over.is_some()) {
        return Err(SqlError::new(
            "42P20",
            format!("window functions are not allowed in {plural}"),
        ));
    }
    crate::project_set::refuse(e, plural)?;
    if has_subquery(e) {
        return Err(SqlError::new(
            "0A000",
            format!("cannot use subquery in {}", part.singular()),
        ));
    }
    Ok(())
}

/// Whether `e` holds a subquery.
fn has_subquery(e: &Expr) -> bool {
    struct Find;
    impl Visitor for Find {
        type Break = ();
        fn pre_visit_query(&mut self, _: &sqlparser::ast::Query) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
    }
    e.visit(&mut Find).is_break()
}

/// PostgreSQL's name part for an index key (`FigureColname`): a column's
/// name, a function's, a cast's operand's, else `expr`.
pub fn label(e: &Expr) -> String {
    match e {
        Expr::Identifier(id) => crate::names::ident(id),
        Expr::CompoundIdentifier(ids) => ids.last().map_or("expr".into(), crate::names::ident),
        Expr::Nested(inner) | Expr::Cast { expr: inner, .. } => label(inner),
        Expr::Function(f) => crate::names::function(&f.name),
        _ => "expr".into(),
    }
}

/// Whether the conjuncts `filter` of a WHERE clause imply every
/// conjunct of a partial index's `predicate` (so every row the query
/// wants has an entry): each is one of them (up to the forms below), an
/// `e IS NOT NULL` that a comparison of `e` (or of a call on `e` that
/// is NULL for a NULL argument) implies, or a comparison of an
/// expression with a constant that one of the same expression with a
/// constant implies (`a > 5` from `a > 10` or `a = 7`, as PostgreSQL's
/// btree rules prove it). PostgreSQL proves more; a predicate folio
/// cannot prove leaves the index unused (ON CONFLICT: not inferred),
/// never a row unfound.
pub fn implied(predicate: &[Scalar], filter: &[Scalar]) -> bool {
    let filter: Vec<Scalar> = filter.iter().map(normal).collect();
    predicate.iter().all(|p| {
        let p = normal(p);
        filter.contains(&p)
            || matches!(&p, Scalar::IsNull(e, true) if filter.iter().any(|f| rejects_null(f, e)))
            || filter.iter().any(|f| bounds(f, &p))
    })
}

/// Whether comparison `f` (`e op c`, normal form) implies comparison `p`
/// of the same `e` with another constant.
fn bounds(f: &Scalar, p: &Scalar) -> bool {
    let (Scalar::Compare(fop, fe, fc), Scalar::Compare(pop, pe, pc)) = (f, p) else {
        return false;
    };
    let (Scalar::Const(fc), Scalar::Const(pc)) = (&**fc, &**pc) else {
        return false;
    };
    if fe != pe {
        return false;
    }
    // How the filter's constant stands to the predicate's.
    let Ok(Some(order)) = scalar::compare(fc, pc) else {
        return false;
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    match (pop, fop) {
        (Cmp::Gt, Cmp::Gt) | (Cmp::Ge, Cmp::Gt | Cmp::Ge | Cmp::Eq) => order != Less,
        (Cmp::Gt, Cmp::Ge | Cmp::Eq) => order == Greater,
        (Cmp::Lt, Cmp::Lt) | (Cmp::Le, Cmp::Lt | Cmp::Le | Cmp::Eq) => order != Greater,
        (Cmp::Lt, Cmp::Le | Cmp::Eq) => order == Less,
        (Cmp::Eq, Cmp::Eq) => order == Equal,
        (Cmp::Ne, Cmp::Eq) => order != Equal,
        (Cmp::Ne, Cmp::Lt) => order != Greater,
        (Cmp::Ne, Cmp::Gt) => order != Less,
        (Cmp::Ne, Cmp::Le) => order == Less,
        (Cmp::Ne, Cmp::Ge) => order == Greater,
        _ => false,
    }
}

/// The positions of the conjuncts of `filter` that a partial index's
/// `predicate` guarantees for every row it holds (one of its conjuncts,
/// up to the forms [`implied`] takes).
pub fn guaranteed(predicate: &[Scalar], filter: &[Scalar]) -> Vec<usize> {
    let predicate: Vec<Scalar> = predicate.iter().map(normal).collect();
    (filter.iter().enumerate())
        .filter(|(_, f)| predicate.contains(&normal(f)))
        .map(|(i, _)| i)
        .collect()
}

/// A condition in one form of those that mean the same: `x = false`
/// and `false = x` are `NOT x`, `x = true` is `x`, and a constant
/// compared with an expression is on the right.
fn normal(s: &Scalar) -> Scalar {
    match s {
        Scalar::Compare(Cmp::Eq, a, b) | Scalar::Compare(Cmp::Eq, b, a)
            if matches!(**b, Scalar::Const(Value::Bool(_))) && !matches!(**a, Scalar::Const(_)) =>
        {
            match **b {
                Scalar::Const(Value::Bool(false)) => Scalar::Not(a.clone()),
                _ => (**a).clone(),
            }
        }
        Scalar::Compare(cmp, a, b)
            if matches!(**a, Scalar::Const(_)) && !matches!(**b, Scalar::Const(_)) =>
        {
            Scalar::Compare(cmp.flipped(), b.clone(), a.clone())
        }
        other => other.clone(),
    }
}

/// Whether condition `f` is never true when `e` is NULL: it compares
/// `e`, or a call of a function that is NULL for a NULL argument on it.
fn rejects_null(f: &Scalar, e: &Scalar) -> bool {
    let on = |x: &Scalar| {
        x == e || matches!(x, Scalar::Func(func, args) if !func.accepts_null() && args.contains(e))
    };
    match f {
        Scalar::Compare(_, a, b) => on(a) || on(b),
        Scalar::InList { expr, .. } | Scalar::Like { expr, .. } => on(expr),
        _ => false,
    }
}

/// Whether `text` is one pair of parentheses around all of it.
fn wrapped(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) else {
        return false;
    };
    let mut depth = 0i32;
    for c in inner.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// A key expression (stored `sql`) as `pg_get_indexdef` prints it: a
/// function call as it is, anything else in parentheses; the default
/// form (not `pretty`) parenthesizes operators too (`((a + b))`).
pub fn key_text(sql: &str, pretty: bool) -> String {
    let call = matches!(parse::expression(sql), Ok(Expr::Function(_)));
    let text = match pretty {
        true => sql.to_string(),
        false => crate::deparse::parenthesized(sql),
    };
    match call {
        true => text,
        false => format!("({text})"),
    }
}

/// A predicate (stored `sql`) as `pg_get_indexdef` prints it after
/// `WHERE`: as written when `pretty`, else in parentheses with its
/// operators parenthesized (`(done = false)`).
pub fn predicate_text(sql: &str, pretty: bool) -> String {
    if pretty {
        return sql.to_string();
    }
    let text = crate::deparse::parenthesized(sql);
    match wrapped(&text) {
        true => text,
        false => format!("({text})"),
    }
}

/// The columns of `index` (of `table`) as `pg_attribute` lists an
/// index's: a key column's name and type, an expression's name part
/// ([`label`]: `lower`, `expr`) and its key's type; then the included
/// columns.
pub fn index_columns(table: &TableDef, index: &IndexDef) -> Vec<folio_catalog::ColumnDef> {
    let mut expressions = index.exprs.keys.iter();
    (index.columns.iter())
        .chain(index.include())
        .map(|&c| match c {
            IndexDef::EXPRESSION => {
                let key = expressions.next();
                folio_catalog::ColumnDef {
                    local: true,
                    collation: None,
                    name: key
                        .and_then(|k| parse::expression(&k.sql).ok())
                        .map_or("expr".into(), |e| label(&e)),
                    type_oid: key.map_or(25, |k| k.type_oid),
                    typmod: key.map_or(-1, |k| k.typmod),
                    not_null: false,
                }
            }
            c => table.columns[usize::from(c)].clone(),
        })
        .collect()
}

/// The key texts of `index` (of `table`), in key order: a column's
/// name, or an expression as [`key_text`] prints it.
pub fn key_texts(table: &TableDef, index: &IndexDef, pretty: bool) -> Vec<String> {
    let mut expressions = index.exprs.keys.iter();
    (index.columns.iter())
        .map(|&c| match c {
            IndexDef::EXPRESSION => expressions
                .next()
                .map_or("?".into(), |k| key_text(&k.sql, pretty)),
            c => crate::names::written(&table.columns[usize::from(c)].name).to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves keys and predicates print as PostgreSQL's pg_get_indexdef
    // prints them, in both forms.
    #[test]
    fn definitions_print_as_postgresql() {
        assert_eq!(key_text("lower(name)", false), "lower(name)");
        assert_eq!(key_text("a + b", false), "((a + b))");
        assert_eq!(key_text("a + b", true), "(a + b)");
        assert_eq!(predicate_text("done = false", false), "(done = false)");
        assert_eq!(predicate_text("NOT done", false), "(NOT done)");
        assert_eq!(predicate_text("NOT done", true), "NOT done");
        assert!(!wrapped("(a) AND (b)"));
        assert!(wrapped("((a) AND (b))"));
    }

    // Proves index names take PostgreSQL's parts for expressions.
    #[test]
    fn labels_follow_figure_colname() {
        let label_of = |sql: &str| label(&parse::expression(sql).unwrap());
        assert_eq!(label_of("lower(name)"), "lower");
        assert_eq!(label_of("a + b"), "expr");
        assert_eq!(label_of("name::varchar(10)"), "name");
        assert_eq!(label_of("(1)"), "expr");
    }
}
