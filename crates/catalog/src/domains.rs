//! Domains (`CREATE DOMAIN email AS text CHECK (VALUE ~ '@')`): a
//! `folio.class` row of kind `d` (types and relations share one
//! namespace, as enum types do: `enums.rs`) whose tail holds the base
//! type (oid, typmod), NOT NULL, the DEFAULT's SQL text and each CHECK
//! constraint's oid, name and SQL text (over `VALUE`).
//!
//! A column of a domain has the domain's oid as its type (PostgreSQL's
//! `atttypid`); a table's definition carries the domains of its columns
//! (`TableDef::domains`), so its column types are the base types
//! (`enums::column_type`) and stored values are the base type's. The SQL
//! layer binds and enforces the constraints (folio-sql `domains.rs`;
//! README "Domains").

use crate::catalog::{Catalog, check_name};
use crate::codec::{Reader, Writer};
use crate::defs::{ClassRow, KIND_DOMAIN};
use crate::error::CatalogError;
use folio_heap::Tid;
use folio_page::PageId;
use folio_txn::Transaction;
use std::sync::Arc;

/// A domain as one catalog version defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainType {
    /// Its `pg_type` oid (0 until created).
    pub oid: u32,
    pub name: String,
    /// The base type's oid and typmod: always a built-in type, the one
    /// at the bottom of a domain over a domain (a domain's base never
    /// changes, so it is copied from the parent when made).
    pub base_oid: u32,
    pub base_typmod: i32,
    /// The domain this one is made over (`CREATE DOMAIN d2 AS d1`), 0 if
    /// none: PostgreSQL's `typbasetype`. Its rules hold for this one's
    /// values too (folio-sql `domains::Bound`).
    pub parent: u32,
    /// `NOT NULL` of this level (PostgreSQL's `typnotnull`).
    pub not_null: bool,
    /// `DEFAULT expr`, as SQL text.
    pub default: Option<String>,
    /// Its CHECK constraints in the order made.
    pub checks: Vec<DomainCheck>,
    /// The collation's oid its `COLLATE` clause (or its parent's) gave
    /// it; `None`: its base type's (PostgreSQL's `typcollation`).
    pub collation: Option<u32>,
    /// The oid of its array type (`d[]`, PostgreSQL's `typarray`), given
    /// when it is made; 0 for a domain made before folio gave domains
    /// array types.
    pub array_oid: u32,
}

/// One CHECK constraint of a domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainCheck {
    /// Its `pg_constraint` oid (0 until stored: the catalog gives one).
    pub oid: u32,
    pub name: String,
    /// The expression over `VALUE`, as SQL text.
    pub expr: String,
    /// Whether the stored values were checked against it: false after
    /// `ADD ... NOT VALID` until `VALIDATE CONSTRAINT` (PostgreSQL's
    /// `convalidated`). New values are checked either way.
    pub validated: bool,
}

impl DomainType {
    pub(crate) fn encode(&self, w: &mut Writer) {
        let not_valid = self.checks.iter().any(|c| !c.validated);
        w.u32(self.base_oid)
            .i32(self.base_typmod)
            .u8(self.not_null as u8
                | (self.default.is_some() as u8) << 1
                | ((self.parent != 0) as u8) << 2
                | (not_valid as u8) << 3
                | (self.collation.is_some() as u8) << 4
                | ((self.array_oid != 0) as u8) << 5);
        if let Some(default) = &self.default {
            w.str(default);
        }
        if self.parent != 0 {
            w.u32(self.parent);
        }
        w.u32(self.checks.len() as u32);
        for c in &self.checks {
            w.u32(c.oid).str(&c.name).str(&c.expr);
        }
        // Each check's validity, only when one is NOT VALID (rows written
        // before it existed read as all valid).
        if not_valid {
            for c in &self.checks {
                w.u8(c.validated as u8);
            }
        }
        // The collation last, only when it has one (rows written before
        // domain collations existed have none).
        if let Some(collation) = self.collation {
            w.u32(collation);
        }
        // The array type's oid after it (rows written before domains had
        // array types have none).
        if self.array_oid != 0 {
            w.u32(self.array_oid);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<DomainType, String> {
        let (base_oid, base_typmod, flags) = (r.u32()?, r.i32()?, r.u8()?);
        if flags > 63 {
            return Err(format!("domain flags {flags:#04x}"));
        }
        let default = match flags & 2 != 0 {
            true => Some(r.str()?),
            false => None,
        };
        let parent = match flags & 4 != 0 {
            true => r.u32()?,
            false => 0,
        };
        let n = r.u32()?;
        let mut checks = (0..n)
            .map(|_| {
                Ok(DomainCheck {
                    oid: r.u32()?,
                    name: r.str()?,
                    expr: r.str()?,
                    validated: true,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        if flags & 8 != 0 {
            for c in &mut checks {
                c.validated = r.u8()? != 0;
            }
        }
        let collation = match flags & 16 != 0 {
            true => Some(r.u32()?),
            false => None,
        };
        let array_oid = match flags & 32 != 0 {
            true => r.u32()?,
            false => 0,
        };
        Ok(DomainType {
            oid: 0,
            name: String::new(),
            base_oid,
            base_typmod,
            parent,
            not_null: flags & 1 != 0,
            default,
            checks,
            collation,
            array_oid,
        })
    }
}

/// The domain a class row of kind `d` defines.
fn domain_type(class: &ClassRow) -> Option<Arc<DomainType>> {
    let body = class.domain.as_ref()?;
    Some(Arc::new(DomainType {
        oid: class.oid as u32,
        name: class.name.clone(),
        ..body.clone()
    }))
}

/// The domains among class rows `classes`, by name.
pub(crate) fn domains_among(classes: &[(Tid, ClassRow)]) -> Vec<Arc<DomainType>> {
    let mut out: Vec<Arc<DomainType>> = (classes.iter())
        .filter(|(_, c)| c.kind == KIND_DOMAIN)
        .filter_map(|(_, c)| domain_type(c))
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The domains among `classes` that columns of type `oids` use, and the
/// domains those are made over (a value of one meets the rules of each).
pub(crate) fn domains_of(
    classes: &[(Tid, ClassRow)],
    oids: impl Iterator<Item = u32> + Clone,
) -> Vec<Arc<DomainType>> {
    let all = domains_among(classes);
    let mut out: Vec<Arc<DomainType>> = (all.iter())
        .filter(|d| {
            oids.clone()
                .any(|o| o == d.oid || (o == d.array_oid && o != 0))
        })
        .cloned()
        .collect();
    // Each pass adds the parents not yet in; a chain is as long as the
    // domains, so the loop ends.
    for _ in 0..all.len() {
        let parents: Vec<Arc<DomainType>> = (all.iter())
            .filter(|p| out.iter().any(|d| d.parent == p.oid))
            .filter(|p| !out.iter().any(|d| d.oid == p.oid))
            .cloned()
            .collect();
        if parents.is_empty() {
            break;
        }
        out.extend(parents);
    }
    out
}

/// What depends on a domain, as PostgreSQL lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dependent {
    /// A domain made over it (name, oid).
    Domain(String, u32),
    /// A column (table, column) of it.
    Column(String, String),
    /// A function or procedure with a parameter or result of it: its
    /// catalog name, its signature ([`crate::FunctionDef::signature`])
    /// and how messages show it (`f(d,integer)`, as PostgreSQL's object
    /// descriptions).
    Routine {
        name: String,
        signature: String,
        shown: String,
    },
}

impl Dependent {
    /// PostgreSQL's name of the object (`type d2`, `column a of table t`).
    pub fn describe(&self) -> String {
        match self {
            Dependent::Domain(name, _) => format!("type {name}"),
            Dependent::Column(table, column) => format!("column {column} of table {table}"),
            // (PostgreSQL 15 describes a procedure as a function too.)
            Dependent::Routine { shown, .. } => format!("function {shown}"),
        }
    }
}

/// Appends what depends on domain `(oid, name)` to `out` (see
/// `Catalog::domain_dependents`); `depth` bounds the recursion (a chain
/// of domains is no longer than their count).
fn visit(
    (domains, tables, routines): (
        &[Arc<DomainType>],
        &[crate::TableDef],
        &[crate::FunctionDef],
    ),
    (oid, name): (u32, &str),
    depth: usize,
    out: &mut Vec<(Dependent, String)>,
) {
    // (What depends on it, its own oid or its array type's.)
    let mut children: Vec<(u64, Dependent, u32)> = (domains.iter())
        .filter(|d| d.parent == oid)
        .map(|d| {
            (
                u64::from(d.oid),
                Dependent::Domain(d.name.clone(), d.oid),
                oid,
            )
        })
        .collect();
    let array_oid = (domains.iter())
        .find(|d| d.oid == oid)
        .map_or(0, |d| d.array_oid);
    let of_it = |type_oid: u32| type_oid == oid || (type_oid == array_oid && array_oid != 0);
    for t in tables {
        for c in &t.columns {
            if of_it(c.type_oid) {
                let column = Dependent::Column(t.name.clone(), c.name.clone());
                children.push((t.oid, column, c.type_oid));
            }
        }
    }
    for r in routines {
        let types = r.args.iter().map(|a| a.1).chain([r.result.0]);
        if let Some(on) = types.clone().find(|t| of_it(*t)) {
            let shown: Vec<String> = (r.inputs())
                .map(|i| type_text(r.args[i].1, domains))
                .collect();
            let routine = Dependent::Routine {
                name: r.name.clone(),
                signature: r.signature(),
                shown: format!(
                    "{}({})",
                    crate::schemas::split_schema(&r.name).1,
                    shown.join(",")
                ),
            };
            children.push((r.oid, routine, on));
        }
    }
    // PostgreSQL's order: what depends on its array type first, each
    // part by oid.
    children.sort_by_key(|(child, _, on)| (*on == oid, *child));
    for (_, child, on) in children {
        let inner = match &child {
            Dependent::Domain(n, o) if depth > 0 => Some((*o, n.clone())),
            _ => None,
        };
        let on = match on == oid {
            true => format!("type {name}"),
            false => format!("type {name}[]"),
        };
        out.push((child, on));
        if let Some((o, n)) = inner {
            visit((domains, tables, routines), (o, &n), depth - 1, out);
        }
    }
}

/// A type's name in a routine's description: a domain's (or its array
/// type's, `d[]`) or a built-in type's; its oid otherwise.
fn type_text(oid: u32, domains: &[Arc<DomainType>]) -> String {
    (domains.iter())
        .find_map(|d| match oid {
            _ if oid == d.oid => Some(d.name.clone()),
            _ if oid == d.array_oid && oid != 0 => Some(format!("{}[]", d.name)),
            _ => None,
        })
        .or_else(|| folio_row::SqlType::from_oid(oid, -1).map(|t| t.name()))
        .unwrap_or_else(|| oid.to_string())
}

impl Catalog {
    /// The domain `name` as `txn` sees it (`None`: no such domain).
    pub fn domain_type(
        &self,
        txn: &Transaction,
        name: &str,
    ) -> Result<Option<Arc<DomainType>>, CatalogError> {
        Ok(match self.class(txn, name)? {
            Some((_, class)) if class.kind == KIND_DOMAIN => domain_type(&class),
            _ => None,
        })
    }

    /// Gives each check of `def` without an oid one.
    fn number_checks(&self, def: &mut DomainType) -> Result<(), CatalogError> {
        for c in &mut def.checks {
            if c.oid == 0 {
                c.oid = self.next_oid()? as u32;
            }
        }
        Ok(())
    }

    /// `CREATE DOMAIN`: 42710 if a type or relation has the name.
    pub fn create_domain(
        &self,
        txn: &mut Transaction,
        def: &DomainType,
    ) -> Result<Arc<DomainType>, CatalogError> {
        check_name(&def.name)?;
        if self.class(txn, &def.name)?.is_some() {
            return Err(CatalogError::TypeExists(def.name.clone()));
        }
        if def.parent != 0 {
            self.share_lock_domain(txn, def.parent)?;
        }
        let oid = self.next_oid()?;
        let mut body = def.clone();
        body.array_oid = self.next_oid()? as u32;
        self.number_checks(&mut body)?;
        let class = ClassRow {
            domain: Some(body),
            ..ClassRow::new(oid, &def.name, KIND_DOMAIN, PageId(0))
        };
        self.in_savepoint(txn, |txn| self.insert_class(txn, &class))
            .map_err(|e| match e {
                CatalogError::Exists(n) => CatalogError::TypeExists(n),
                other => other,
            })?;
        domain_type(&class).ok_or_else(|| CatalogError::NoSuchType(def.name.clone()))
    }

    /// Share-locks domain `oid`'s class row, as CREATE TABLE does its
    /// columns' domains: a DROP or ALTER of it waits until `txn` ends
    /// (and then sees what `txn` made over it); a domain dropped since
    /// `txn`'s snapshot is 42704.
    fn share_lock_domain(&self, txn: &mut Transaction, oid: u32) -> Result<(), CatalogError> {
        let classes = self.class_rows(txn)?;
        let (tid, class) = (classes.iter())
            .find(|(_, c)| c.kind == KIND_DOMAIN && c.oid == u64::from(oid))
            .ok_or_else(|| CatalogError::NoSuchType(oid.to_string()))?;
        let missing = || CatalogError::NoSuchType(class.name.clone());
        self.lock_class_row_as(txn, *tid, missing, true)
    }

    /// Locks the domain's class row (DDL on it waits until `txn` ends)
    /// and reads it again.
    pub fn lock_domain(
        &self,
        txn: &mut Transaction,
        name: &str,
    ) -> Result<Arc<DomainType>, CatalogError> {
        let missing = || CatalogError::NoSuchType(name.to_string());
        let (tid, class) = self.class(txn, name)?.ok_or_else(missing)?;
        if class.kind != KIND_DOMAIN {
            return Err(missing());
        }
        let (_, class) = self.relock_class(txn, tid, name, missing)?;
        domain_type(&class).ok_or_else(missing)
    }

    /// Everything that depends on domain `oid` (named `name`), each with
    /// the object it depends on, in PostgreSQL's order: depth first, the
    /// objects depending on one in the order made (oid; a column by its
    /// table's oid), each domain followed by its own dependents. One
    /// owner of "what a DROP DOMAIN reaches".
    pub fn domain_dependents(
        &self,
        txn: &mut Transaction,
        oid: u32,
        name: &str,
    ) -> Result<Vec<(Dependent, String)>, CatalogError> {
        let classes = self.class_rows(txn)?;
        let domains = domains_among(&classes);
        let routines = crate::functions::functions_among(&classes);
        let tables = txn.with_latest_snapshot(|txn| self.tables(txn))?;
        let mut out = Vec::new();
        let objects = (&domains[..], &tables[..], &routines[..]);
        visit(objects, (oid, name), domains.len(), &mut out);
        Ok(out)
    }

    /// The domains made directly over type `oid` (an enum or composite
    /// type, or an array type), by name: what DROP TYPE of it reaches.
    pub fn domains_over(
        &self,
        txn: &Transaction,
        oid: u32,
    ) -> Result<Vec<Arc<DomainType>>, CatalogError> {
        let mut out = domains_among(&self.class_rows(txn)?);
        out.retain(|d| d.parent == 0 && d.base_oid == oid);
        Ok(out)
    }

    /// The columns whose values hold a value of type `oid` inside a
    /// composite value: of a composite type with a field of it, of that
    /// type's array type, or of a domain over either; or inside an array:
    /// of the array type of domain `oid` or of a domain made over it.
    /// PostgreSQL does not look inside those when a domain's rules change
    /// (0A000).
    pub fn columns_holding(
        &self,
        txn: &mut Transaction,
        oid: u32,
    ) -> Result<Vec<(String, String)>, CatalogError> {
        let classes = txn.with_latest_snapshot(|txn| self.class_rows(txn))?;
        let mut types: Vec<u32> = (classes.iter())
            .filter_map(|(_, c)| c.composite.as_ref().map(|b| (c, b)))
            .filter(|(_, b)| b.fields.iter().any(|(_, o, _)| *o == oid))
            .flat_map(|(c, b)| [c.oid as u32, b.array_oid])
            .collect();
        let domains = domains_among(&classes);
        let over: Vec<u32> = (domains.iter())
            .filter(|d| types.contains(&d.base_oid))
            .map(|d| d.oid)
            .collect();
        types.extend(over);
        // The array types of domain `oid` and of the domains made over it
        // (a chain is no longer than the domains).
        let mut chain = vec![oid];
        for _ in 0..domains.len() {
            let more: Vec<u32> = (domains.iter())
                .filter(|d| chain.contains(&d.parent) && !chain.contains(&d.oid))
                .map(|d| d.oid)
                .collect();
            if more.is_empty() {
                break;
            }
            chain.extend(more);
        }
        types.extend(
            (domains.iter())
                .filter(|d| chain.contains(&d.oid) && d.array_oid != 0)
                .map(|d| d.array_oid),
        );
        let mut out = Vec::new();
        for t in types {
            out.extend(self.columns_of_type(txn, t)?);
        }
        Ok(out)
    }

    /// `ALTER DOMAIN name RENAME TO new` (also `ALTER TYPE`): 42710 if
    /// a type or relation has the new name. The tables with columns of
    /// it read their definitions again (`replace_domain`).
    pub fn rename_domain(
        &self,
        txn: &mut Transaction,
        name: &str,
        new: &str,
    ) -> Result<(), CatalogError> {
        check_name(new)?;
        let def = self.lock_domain(txn, name)?;
        if self.class(txn, new)?.is_some() {
            return Err(CatalogError::TypeExists(new.to_string()));
        }
        let missing = || CatalogError::NoSuchType(name.to_string());
        let (tid, class) = self.class(txn, name)?.ok_or_else(missing)?;
        self.rename_class_row(txn, tid, class, new)?;
        let renamed = DomainType {
            name: new.to_string(),
            ..(*def).clone()
        };
        self.replace_domain(txn, &renamed)?;
        Ok(())
    }

    /// `DROP DOMAIN name`: 2BP01 while a column has the type or a domain
    /// is made over it (the SQL layer drops those first under CASCADE).
    pub fn drop_domain(&self, txn: &mut Transaction, name: &str) -> Result<(), CatalogError> {
        let def = self.lock_domain(txn, name)?;
        let dependents = self.domain_dependents(txn, def.oid, name)?;
        if !dependents.is_empty() {
            return Err(CatalogError::DependedOn {
                object: format!("type {name}"),
                dependents: (dependents.iter())
                    .map(|(d, on)| (d.describe(), on.clone()))
                    .collect(),
            });
        }
        self.drop_type_row(txn, name, def.oid)
    }

    /// `ALTER DOMAIN`: writes `new` (checks without an oid get one) as
    /// domain `new.name`'s definition, and notes DDL on every table with
    /// a column of it, so relations and plans bound with the old
    /// constraints are bound again.
    pub fn replace_domain(
        &self,
        txn: &mut Transaction,
        new: &DomainType,
    ) -> Result<Arc<DomainType>, CatalogError> {
        let old = self.lock_domain(txn, &new.name)?;
        // A domain made over this one holds its rules too.
        let mut oids = vec![old.oid];
        for (d, _) in self.domain_dependents(txn, old.oid, &old.name)? {
            if let Dependent::Domain(_, oid) = d {
                oids.push(oid);
            }
        }
        let missing = || CatalogError::NoSuchType(new.name.clone());
        let (tid, class) = self.class(txn, &new.name)?.ok_or_else(missing)?;
        let mut body = new.clone();
        self.number_checks(&mut body)?;
        let row = ClassRow {
            domain: Some(body),
            ..class
        };
        self.in_savepoint(txn, |txn| self.update_class(txn, tid, &row))?;
        let me = txn.existing_xid().expect("an update gives an xid");
        for t in txn.with_latest_snapshot(|txn| self.tables(txn))? {
            if t.columns.iter().any(|c| oids.contains(&c.type_oid)) {
                self.ddl_marks.of(t.oid).note(txn.manager(), me)?;
            }
        }
        domain_type(&row).ok_or_else(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a domain's body reads back as written, with and without a
    // default and checks, a NOT VALID check among them.
    #[test]
    fn body_round_trips() {
        for def in [
            DomainType {
                oid: 0,
                name: String::new(),
                base_oid: 25,
                base_typmod: -1,
                parent: 17001,
                not_null: true,
                default: Some("'x'".into()),
                checks: vec![
                    DomainCheck {
                        oid: 17000,
                        name: "email_check".into(),
                        expr: "VALUE ~ '@'".into(),
                        validated: true,
                    },
                    DomainCheck {
                        oid: 17002,
                        name: "later".into(),
                        expr: "VALUE <> ''".into(),
                        validated: false,
                    },
                ],
                collation: Some(951),
                array_oid: 17003,
            },
            DomainType {
                oid: 0,
                name: String::new(),
                base_oid: 23,
                base_typmod: -1,
                parent: 0,
                not_null: false,
                default: None,
                checks: Vec::new(),
                collation: None,
                array_oid: 0,
            },
        ] {
            let mut w = Writer::default();
            def.encode(&mut w);
            let mut r = Reader(&w.0);
            assert_eq!(DomainType::decode(&mut r).unwrap(), def);
            assert!(r.0.is_empty());
        }
    }
}
