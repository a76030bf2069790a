//! `CREATE TABLE c (columns) INHERITS (p1 [, p2 ...])` as PostgreSQL 15's
//! `MergeAttributes`: the parents' columns first (each parent's in its
//! order, a name met again merged into the first), then the child's own
//! (one naming an inherited column merged into it); the parents' NOT NULL,
//! defaults and CHECK constraints come along, their indexes and keys do
//! not. The statement is rewritten into a plain CREATE TABLE of the merged
//! columns and constraints, then each parent is recorded
//! (`Partition::Inherits`, `seqno` its place in the list).

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use folio_catalog::{ConstraintKind, TableDef};
use folio_db::Transaction;
use sqlparser::ast::{ColumnOption, ColumnOptionDef, CreateTable, Statement, TableConstraint};

/// A column of the merged list: where it came from and what it carries.
struct Merged {
    name: String,
    type_oid: u32,
    typmod: i32,
    not_null: bool,
    /// The inherited default's text; `Conflict` when two parents give
    /// different ones (an error unless the child gives its own).
    default: Default,
    /// The child's own definition, when it names the column.
    own: Option<sqlparser::ast::ColumnDef>,
}

#[derive(PartialEq)]
enum Default {
    None,
    Inherited(String),
    Conflict,
}

/// The parents named by `INHERITS (...)`, read: 42P01 for one that does
/// not exist, 42809 for a partitioned table, a partition or a view,
/// 42P07 for one named twice.
pub fn parents(
    cx: &Ctx<'_>,
    txn: &Transaction,
    names_written: &[sqlparser::ast::ObjectName],
    temp: bool,
) -> Result<Vec<TableDef>, SqlError> {
    let mut parents: Vec<TableDef> = Vec::with_capacity(names_written.len());
    for written in names_written {
        let name = names::relation(written)?;
        let Some(def) = cx.db.catalog().table(txn, &name)? else {
            return Err(SqlError::undefined_table(folio_catalog::unqualified(&name)));
        };
        let shown = folio_catalog::unqualified(&def.name).to_string();
        if def.partition_key().is_some() {
            return Err(SqlError::new(
                "42809",
                format!("cannot inherit from partitioned table \"{shown}\""),
            ));
        }
        if def.partition_of().is_some() {
            return Err(SqlError::new(
                "42809",
                format!("cannot inherit from partition \"{shown}\""),
            ));
        }
        if def.matview.is_some() {
            return Err(SqlError::new(
                "42809",
                format!("inherited relation \"{shown}\" is not a table or foreign table"),
            ));
        }
        if folio_catalog::split_temp_name(&def.name).is_some() && !temp {
            return Err(SqlError::new(
                "42809",
                format!("cannot inherit from temporary relation \"{shown}\""),
            ));
        }
        if parents.iter().any(|p| p.oid == def.oid) {
            return Err(SqlError::new(
                "42P07",
                format!("relation \"{shown}\" would be inherited from more than once"),
            ));
        }
        parents.push(def);
    }
    Ok(parents)
}

fn type_text(type_oid: u32, typmod: i32) -> String {
    crate::catalog_functions::format_type(i64::from(type_oid), Some(typmod))
}

/// The stored type (oid, typmod) of an own column, if it names a plain
/// type (a serial's is its integer's).
fn own_type(column: &sqlparser::ast::ColumnDef) -> Option<(u32, i32)> {
    let ty = crate::types::stored_column_type(&column.data_type).ok()?;
    Some((crate::domains::type_oid(&column.data_type, ty), ty.typmod()))
}

/// `CREATE TABLE name (...) INHERITS (...)`.
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    create: &CreateTable,
) -> Result<Output, SqlError> {
    let name = names::relation(&create.name)?;
    let temp = folio_catalog::split_temp_name(&name).is_some();
    let parents = parents(
        cx,
        txn,
        create.inherits.as_deref().unwrap_or_default(),
        temp,
    )?;
    let mut merged: Vec<Merged> = Vec::new();
    for parent in &parents {
        for (n, c) in parent.columns.iter().enumerate() {
            let default = match parent.default_of(n) {
                Some(d) => Default::Inherited(d.to_string()),
                None => Default::None,
            };
            let Some(have) = merged.iter_mut().find(|m| m.name == c.name) else {
                merged.push(Merged {
                    name: c.name.clone(),
                    type_oid: c.type_oid,
                    typmod: c.typmod,
                    not_null: c.not_null,
                    default,
                    own: None,
                });
                continue;
            };
            notices.push(Notice::info(format!(
                "merging multiple inherited definitions of column \"{}\"",
                c.name
            )));
            if (have.type_oid, have.typmod) != (c.type_oid, c.typmod) {
                return Err(SqlError::new(
                    "42804",
                    format!("inherited column \"{}\" has a type conflict", c.name),
                )
                .with_detail(format!(
                    "{} versus {}",
                    type_text(have.type_oid, have.typmod),
                    type_text(c.type_oid, c.typmod)
                )));
            }
            have.not_null |= c.not_null;
            if default != Default::None && have.default != default {
                have.default = match have.default {
                    Default::None => default,
                    _ => Default::Conflict,
                };
            }
        }
    }
    let inherited = merged.len();
    for (n, column) in create.columns.iter().enumerate() {
        let column_name = names::ident(&column.name);
        let Some(at) = merged.iter().position(|m| m.name == column_name) else {
            merged.push(Merged {
                name: column_name,
                type_oid: 0,
                typmod: -1,
                not_null: false,
                default: Default::None,
                own: Some(column.clone()),
            });
            continue;
        };
        let mut notice = Notice::info(format!(
            "merging column \"{column_name}\" with inherited definition"
        ));
        if at != n {
            notice.message =
                format!("moving and merging column \"{column_name}\" with inherited definition");
            notice.detail =
                Some("User-specified column moved to the position of the inherited column.".into());
        }
        notices.push(notice);
        let have = &mut merged[at];
        if let Some(own) = own_type(column)
            && own != (have.type_oid, have.typmod)
        {
            return Err(SqlError::new(
                "42804",
                format!("column \"{column_name}\" has a type conflict"),
            )
            .with_detail(format!(
                "{} versus {}",
                type_text(have.type_oid, have.typmod),
                type_text(own.0, own.1)
            )));
        }
        have.own = Some(column.clone());
    }
    let _ = inherited;
    // The columns only inherited (not local: `attislocal` false).
    let received: Vec<String> = (merged.iter())
        .filter(|m| m.own.is_none())
        .map(|m| m.name.clone())
        .collect();
    let mut columns = Vec::with_capacity(merged.len());
    for m in merged {
        columns.push(column_of(m)?);
    }
    let mut constraints = create.constraints.clone();
    // The CHECK constraints only inherited (not local).
    let mut received_checks = Vec::new();
    for check in inherited_checks(&parents)? {
        let TableConstraint::Check { name: Some(n), .. } = &check else {
            continue;
        };
        let named = |c: &TableConstraint| matches!(c, TableConstraint::Check { name: Some(m), .. } if names::ident(m) == names::ident(n));
        if constraints
            .iter()
            .any(|c| named(c) && super::syntax::no_inherit(c))
        {
            return Err(SqlError::new(
                "42P17",
                format!(
                    "constraint \"{}\" conflicts with inherited constraint on relation \"{}\"",
                    names::ident(n),
                    folio_catalog::unqualified(&name)
                ),
            ));
        }
        let same = constraints.iter().any(named)
            || (create.columns.iter().flat_map(|c| &c.options)).any(|o| {
                matches!(o.option, ColumnOption::Check(_))
                    && o.name
                        .as_ref()
                        .is_some_and(|m| names::ident(m) == names::ident(n))
            });
        if same {
            notices.push(Notice::info(format!(
                "merging constraint \"{}\" with inherited definition",
                names::ident(n)
            )));
            continue;
        }
        received_checks.push(names::ident(n));
        constraints.push(check);
    }
    let mut plain = create.clone();
    plain.inherits = None;
    plain.columns = columns;
    plain.constraints = constraints;
    let made = crate::ddl::create_table(cx, txn, notices, &plain)?;
    for (n, parent) in parents.iter().enumerate() {
        cx.db
            .catalog()
            .add_inheritance(txn, &name, parent.oid, n as u16 + 1)?;
    }
    for column in &received {
        cx.db
            .catalog()
            .set_column_local(txn, &name, column, false)?;
    }
    for check in &received_checks {
        (cx.db.catalog()).set_constraint_local(txn, &name, check, false)?;
    }
    cx.relations.ddl();
    Ok(made)
}

/// A merged column as a column definition: the child's own (NOT NULL
/// added when a parent's is, the inherited default when it gives none)
/// or the inherited one written out.
fn column_of(m: Merged) -> Result<sqlparser::ast::ColumnDef, SqlError> {
    let has_default = |c: &sqlparser::ast::ColumnDef| {
        (c.options.iter()).any(|o| matches!(o.option, ColumnOption::Default(_)))
    };
    if let Some(mut own) = m.own {
        if m.not_null
            && !own
                .options
                .iter()
                .any(|o| o.option == ColumnOption::NotNull)
        {
            own.options.push(ColumnOptionDef {
                name: None,
                option: ColumnOption::NotNull,
            });
        }
        if !has_default(&own) {
            match m.default {
                Default::Inherited(d) => own.options.push(ColumnOptionDef {
                    name: None,
                    option: ColumnOption::Default(crate::parse::expression(&d)?),
                }),
                Default::Conflict => return Err(conflicting_defaults(&m.name)),
                Default::None => {}
            }
        }
        return Ok(own);
    }
    let mut text = format!(
        "{} {}",
        names::written(&m.name),
        type_text(m.type_oid, m.typmod)
    );
    if m.not_null {
        text.push_str(" NOT NULL");
    }
    match m.default {
        Default::Inherited(d) => text.push_str(&format!(" DEFAULT {d}")),
        Default::Conflict => return Err(conflicting_defaults(&m.name)),
        Default::None => {}
    }
    let Statement::CreateTable(made) = one_statement(&format!("CREATE TABLE x ({text})"))? else {
        return Err(SqlError::new("XX000", "an inherited column"));
    };
    made.columns
        .into_iter()
        .next()
        .ok_or_else(|| SqlError::new("XX000", "an inherited column"))
}

fn conflicting_defaults(column: &str) -> SqlError {
    SqlError::new(
        "42611",
        format!("column \"{column}\" inherits conflicting default values"),
    )
    .with_hint("To resolve the conflict, specify a default explicitly.")
}

fn one_statement(sql: &str) -> Result<Statement, SqlError> {
    match crate::parse::statements(sql)?.pop() {
        Some(crate::parse::Parsed::Sql(statement)) => Ok(*statement),
        _ => Err(SqlError::new("XX000", format!("not one statement: {sql}"))),
    }
}

/// The parents' inheritable (not `NO INHERIT`) CHECK constraints as
/// table constraints of the child (a name given by two parents is taken once; 42710 when their
/// expressions differ).
fn inherited_checks(parents: &[TableDef]) -> Result<Vec<TableConstraint>, SqlError> {
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut out = Vec::new();
    for parent in parents {
        for c in &parent.constraints {
            let ConstraintKind::Check { expr } = &c.kind else {
                continue;
            };
            if c.no_inherit {
                continue;
            }
            if let Some((_, have)) = seen.iter().find(|(n, _)| *n == c.name) {
                if have != expr {
                    return Err(SqlError::new(
                        "42710",
                        format!(
                            "check constraint name \"{}\" appears multiple times but with different expressions",
                            c.name
                        ),
                    ));
                }
                continue;
            }
            seen.push((c.name.clone(), expr.clone()));
            let sql = format!(
                "CREATE TABLE x (CONSTRAINT {} CHECK ({expr}))",
                names::written(&c.name)
            );
            let Statement::CreateTable(made) = one_statement(&sql)? else {
                return Err(SqlError::new("XX000", "an inherited check constraint"));
            };
            out.extend(made.constraints);
        }
    }
    Ok(out)
}
