//! Row-level security (design: README "Row-level security"): a table's
//! RLS switches and its policies, kept in `folio.authid` (`roles.rs`)
//! beside its ACL and changed outside transactions as ACLs are; and the
//! one decision of which rows a statement's role sees and may write
//! ([`using`], [`checks`]).
//!
//! | key | value |
//! |---|---|
//! | `\0s` + relation oid (8, BE) | 1 byte: bit 0 ENABLE, bit 1 FORCE ROW LEVEL SECURITY |
//! | `\0p` + relation oid (8, BE) | its policies: u16 count, then each: oid (4), name, permissive (1), command (1: `*` `r` `a` `w` `d`), u16 role count and role oids (4 each; none: PUBLIC), USING and WITH CHECK texts (u32 length, `u32::MAX` for none) |
//!
//! Names and texts are a u16 length and UTF-8 bytes; texts a u32 length.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::roles::{self, SUPERUSER_OID};
use folio_db::Database;
use folio_row::Value;
use sqlparser::ast::{BinaryOperator, Expr, Ident, SetExpr, TableAlias, TableFactor};

const FLAGS_KEY: &[u8] = b"\0s";
const POLICIES_KEY: &[u8] = b"\0p";
const ENABLED: u8 = 1;
const FORCED: u8 = 2;
const NONE: u32 = u32::MAX;
/// The next policy oid (u32, LE); the first is [`FIRST_POLICY_OID`].
const NEXT_OID_KEY: &[u8] = b"\0q";
const FIRST_POLICY_OID: u32 = 90000;

/// What a statement does to a table's rows, as policies name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Select,
    Insert,
    Update,
    Delete,
}

impl Command {
    /// `pg_policy.polcmd`'s letter.
    fn letter(self) -> u8 {
        match self {
            Command::Select => b'r',
            Command::Insert => b'a',
            Command::Update => b'w',
            Command::Delete => b'd',
        }
    }
}

/// One policy of a table (`pg_policy`'s row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub oid: u32,
    pub name: String,
    pub permissive: bool,
    /// `*` (ALL), `r` (SELECT), `a` (INSERT), `w` (UPDATE), `d` (DELETE).
    pub command: u8,
    /// The roles it applies to; empty: PUBLIC.
    pub roles: Vec<u32>,
    pub using: Option<String>,
    pub check: Option<String>,
}

impl Policy {
    /// Whether it applies to `command` run by a role holding the
    /// privileges of `roles` (itself and, through membership, others:
    /// PostgreSQL's `has_privs_of_role` on each role of the `TO` list).
    fn applies(&self, command: Command, roles: &[u32]) -> bool {
        (self.command == b'*' || self.command == command.letter())
            && (self.roles.is_empty() || self.roles.iter().any(|r| roles.contains(r)))
    }
}

/// A table's switches and policies.
#[derive(Debug, Clone, Default)]
pub struct TableSecurity {
    pub enabled: bool,
    pub forced: bool,
    pub policies: Vec<Policy>,
}

use crate::privileges::{btree, relation_key as key};

fn corrupt(relation: u64) -> SqlError {
    SqlError::new(
        "XX001",
        format!("the stored policies of relation {relation} are corrupt"),
    )
}

fn put_text(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        None => out.extend_from_slice(&NONE.to_le_bytes()),
        Some(t) => {
            out.extend_from_slice(&(t.len() as u32).to_le_bytes());
            out.extend_from_slice(t.as_bytes());
        }
    }
}

fn encode(policies: &[Policy]) -> Vec<u8> {
    let mut out = (policies.len() as u16).to_le_bytes().to_vec();
    for p in policies {
        out.extend_from_slice(&p.oid.to_le_bytes());
        out.extend_from_slice(&(p.name.len() as u16).to_le_bytes());
        out.extend_from_slice(p.name.as_bytes());
        out.push(u8::from(p.permissive));
        out.push(p.command);
        out.extend_from_slice(&(p.roles.len() as u16).to_le_bytes());
        for r in &p.roles {
            out.extend_from_slice(&r.to_le_bytes());
        }
        put_text(&mut out, p.using.as_deref());
        put_text(&mut out, p.check.as_deref());
    }
    out
}

/// Reads the encoded policies; `None` if the bytes are not a list.
fn decode(mut bytes: &[u8]) -> Option<Vec<Policy>> {
    fn take<'b>(bytes: &mut &'b [u8], n: usize) -> Option<&'b [u8]> {
        let (head, rest) = (bytes.get(..n)?, bytes.get(n..)?);
        *bytes = rest;
        Some(head)
    }
    fn u16_of(bytes: &mut &[u8]) -> Option<u16> {
        Some(u16::from_le_bytes(take(bytes, 2)?.try_into().ok()?))
    }
    fn u32_of(bytes: &mut &[u8]) -> Option<u32> {
        Some(u32::from_le_bytes(take(bytes, 4)?.try_into().ok()?))
    }
    fn text(bytes: &mut &[u8]) -> Option<Option<String>> {
        match u32_of(bytes)? {
            NONE => Some(None),
            n => Some(Some(
                String::from_utf8(take(bytes, n as usize)?.to_vec()).ok()?,
            )),
        }
    }
    let count = u16_of(&mut bytes)?;
    let mut out = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        let oid = u32_of(&mut bytes)?;
        let len = u16_of(&mut bytes)?;
        let name = String::from_utf8(take(&mut bytes, usize::from(len))?.to_vec()).ok()?;
        let flags = take(&mut bytes, 2)?;
        let roles = (0..u16_of(&mut bytes)?)
            .map(|_| u32_of(&mut bytes))
            .collect::<Option<Vec<_>>>()?;
        out.push(Policy {
            oid,
            name,
            permissive: flags[0] != 0,
            command: flags[1],
            roles,
            using: text(&mut bytes)?,
            check: text(&mut bytes)?,
        });
    }
    bytes.is_empty().then_some(out)
}

/// Relation `relation`'s switches and policies (none stored: RLS off, no
/// policies).
pub fn read(db: &Database, relation: u64) -> Result<TableSecurity, SqlError> {
    let Some(tree) = db.open_tree(roles::AUTHID_TREE)? else {
        return Ok(TableSecurity::default());
    };
    let flags = tree
        .get(&key(FLAGS_KEY, relation))
        .map_err(btree)?
        .and_then(|b| b.first().copied())
        .unwrap_or(0);
    let policies = match tree.get(&key(POLICIES_KEY, relation)).map_err(btree)? {
        None => Vec::new(),
        Some(bytes) => decode(&bytes).ok_or_else(|| corrupt(relation))?,
    };
    Ok(TableSecurity {
        enabled: flags & ENABLED != 0,
        forced: flags & FORCED != 0,
        policies,
    })
}

/// Stores relation `relation`'s switches and policies (at once, durable:
/// as an ACL change).
pub fn write(db: &Database, relation: u64, security: &TableSecurity) -> Result<(), SqlError> {
    let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    let tree = roles::tree_for_writing(db)?;
    let flags = (u8::from(security.enabled) * ENABLED) | (u8::from(security.forced) * FORCED);
    tree.upsert(&key(FLAGS_KEY, relation), &[flags])
        .map_err(btree)?;
    tree.upsert(&key(POLICIES_KEY, relation), &encode(&security.policies))
        .map_err(btree)?;
    db.commit()?;
    Ok(())
}

/// Sets `pg_class` rows' `relrowsecurity` (column `at`) and
/// `relforcerowsecurity` (the next) from the stored switches (the
/// running statement's database: `roles::Scope`).
pub fn class_rows(rows: &mut [Vec<Value>], at: usize) -> Result<(), SqlError> {
    let Some(db) = roles::scoped_database() else {
        return Ok(());
    };
    let Some(tree) = db.open_tree(roles::AUTHID_TREE)? else {
        return Ok(());
    };
    let mut flags = std::collections::HashMap::new();
    for entry in tree.scan_prefix(FLAGS_KEY, folio_btree::Direction::Forward) {
        let (k, v) = entry.map_err(btree)?;
        let oid = u64::from_be_bytes(k[FLAGS_KEY.len()..].try_into().map_err(|_| corrupt(0))?);
        flags.insert(oid, v.first().copied().unwrap_or(0));
    }
    if flags.is_empty() {
        return Ok(());
    }
    for row in rows {
        let Some(Value::Oid(oid)) = row.first() else {
            continue;
        };
        if let Some(f) = flags.get(&u64::from(*oid)) {
            row[at] = Value::Bool(f & ENABLED != 0);
            row[at + 1] = Value::Bool(f & FORCED != 0);
        }
    }
    Ok(())
}

/// `pg_policy`'s rows (`view` false) or `pg_policies`' (true) of the
/// policies of `tables` (oid to catalog name: the relations the
/// transaction sees), by table and then policy name.
pub fn catalog_rows(
    tables: &std::collections::HashMap<u64, String>,
    view: bool,
    out: &mut Vec<Vec<Value>>,
) -> Result<(), SqlError> {
    let Some(db) = roles::scoped_database() else {
        return Ok(());
    };
    let text = |t: &str| Value::Text(t.to_string());
    let expr = |t: &Option<String>| t.as_ref().map_or(Value::Null, |t| text(&format!("({t})")));
    let mut all = all(&db)?;
    all.retain(|(oid, _)| tables.contains_key(oid));
    all.sort_by(|a, b| tables[&a.0].cmp(&tables[&b.0]));
    for (relation, mut policies) in all {
        policies.sort_by(|a, b| a.name.cmp(&b.name));
        let name = &tables[&relation];
        let (schema, table) = folio_catalog::split_schema(name);
        for p in policies {
            let command = match p.command {
                b'r' => "SELECT",
                b'a' => "INSERT",
                b'w' => "UPDATE",
                b'd' => "DELETE",
                _ => "ALL",
            };
            out.push(match view {
                false => vec![
                    Value::Oid(p.oid),
                    text(&p.name),
                    Value::Oid(relation as u32),
                    text(&(p.command as char).to_string()),
                    Value::Bool(p.permissive),
                    Value::array(match p.roles.is_empty() {
                        true => vec![Value::Oid(0)],
                        false => p.roles.iter().map(|r| Value::Oid(*r)).collect(),
                    }),
                    expr(&p.using),
                    expr(&p.check),
                ],
                true => vec![
                    text(schema),
                    text(table),
                    text(&p.name),
                    text(if p.permissive {
                        "PERMISSIVE"
                    } else {
                        "RESTRICTIVE"
                    }),
                    Value::array(match p.roles.is_empty() {
                        true => vec![text("public")],
                        false => (p.roles.iter())
                            .map(|r| {
                                Ok(text(
                                    &roles::by_oid(&db, *r)?
                                        .map_or_else(|| r.to_string(), |r| r.name),
                                ))
                            })
                            .collect::<Result<_, SqlError>>()?,
                    }),
                    text(command),
                    expr(&p.using),
                    expr(&p.check),
                ],
            });
        }
    }
    Ok(())
}

/// A new policy's oid, stored at once.
pub fn next_oid(db: &Database) -> Result<u32, SqlError> {
    let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    let tree = roles::tree_for_writing(db)?;
    let oid = match tree.get(NEXT_OID_KEY).map_err(btree)? {
        Some(bytes) => u32::from_le_bytes(bytes.try_into().map_err(|_| corrupt(0))?),
        None => FIRST_POLICY_OID,
    };
    tree.upsert(NEXT_OID_KEY, &(oid + 1).to_le_bytes())
        .map_err(btree)?;
    Ok(oid)
}

/// Every stored table's policies, by relation oid (`pg_policy`; the
/// caller skips relations its transaction does not see).
pub fn all(db: &Database) -> Result<Vec<(u64, Vec<Policy>)>, SqlError> {
    let Some(tree) = db.open_tree(roles::AUTHID_TREE)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in tree.scan_prefix(POLICIES_KEY, folio_btree::Direction::Forward) {
        let (k, v) = entry.map_err(btree)?;
        let oid = u64::from_be_bytes(k[POLICIES_KEY.len()..].try_into().map_err(|_| corrupt(0))?);
        out.push((oid, decode(&v).ok_or_else(|| corrupt(oid))?));
    }
    Ok(out)
}

/// Plans `plan` with the descendants of `parent` (an inheritance parent
/// or partitioned table a statement names) as its parts: their scans and
/// changes take `parent`'s policies, not their own, as PostgreSQL applies
/// those of the table the query names alone (a part named itself takes
/// its own).
pub fn as_parts_of<T>(
    cx: &Ctx<'_>,
    txn: &folio_db::Transaction,
    parent: &folio_catalog::TableDef,
    plan: impl FnOnce() -> Result<T, SqlError>,
) -> Result<T, SqlError> {
    let mut parts = Vec::new();
    let mut level: Vec<(u64, String)> = (parent.partitions.iter())
        .chain(&parent.children)
        .cloned()
        .collect();
    while let Some((oid, name)) = level.pop() {
        if oid == parent.oid || parts.contains(&oid) {
            continue;
        }
        parts.push(oid);
        if let Some(def) = cx.db.catalog().table(txn, &name)? {
            level.extend(def.partitions.iter().chain(&def.children).cloned());
        }
    }
    let entry = (parent.oid, parent.name.clone(), parts);
    cx.row_security_parts.borrow_mut().push(entry);
    let planned = plan();
    cx.row_security_parts.borrow_mut().pop();
    planned
}

/// The table whose policies apply to a scan or change of relation
/// `relation` (named `name`): the parent it is planned as a part of
/// ([`as_parts_of`]), else itself.
fn named_table(cx: &Ctx<'_>, relation: u64, name: &str) -> (u64, String) {
    let parts = cx.row_security_parts.borrow();
    match parts.iter().rev().find(|(_, _, p)| p.contains(&relation)) {
        Some((parent, parent_name, _)) => (*parent, parent_name.clone()),
        None => (relation, name.to_string()),
    }
}

/// The policies that apply to the statement's role for `command` on
/// relation `relation` (or on the parent it is planned as a part of:
/// [`named_table`], whose name comes with them), or `None` when
/// row-level security does not apply: it is off for the table, or the
/// role is a superuser, or owns the table and it is not FORCEd. The role
/// is the view owner's inside a view that is not `security_invoker`
/// (`Ctx::checked_as`), as privileges are checked. With `row_security`
/// off, a table it would apply to is PostgreSQL's 42501.
fn applying(
    cx: &Ctx<'_>,
    relation: u64,
    name: &str,
    command: Command,
) -> Result<Option<(String, Vec<Policy>)>, SqlError> {
    // (The bootstrap superuser outside views reads nothing: a plain
    // statement pays two comparisons.)
    let checked_as = cx.checked_as.get();
    if (cx.role.oid == SUPERUSER_OID && checked_as.is_none()) || cx.row_security_off.get() {
        return Ok(None);
    }
    let (named, name) = named_table(cx, relation, name);
    if (cx.row_security_inside.borrow())
        .iter()
        .any(|&r| r == relation || r == named)
    {
        return Ok(None);
    }
    let relation = named;
    let security = read(cx.db, relation)?;
    if !security.enabled {
        return Ok(None);
    }
    let role = match checked_as {
        Some(view) => crate::privileges::acl(cx.db, view)?.owner,
        None => cx.role.oid,
    };
    if role == SUPERUSER_OID
        || roles::by_oid(cx.db, role)?.is_some_and(|r| r.superuser || r.bypassrls)
    {
        return Ok(None);
    }
    let roles = crate::memberships::privileges_of(cx.db, role)?;
    if !security.forced && roles.contains(&crate::privileges::acl(cx.db, relation)?.owner) {
        return Ok(None);
    }
    if !cx.settings.is_on("row_security") {
        return Err(SqlError::new(
            "42501",
            format!(
                "query would be affected by row-level security policy for table \"{}\"",
                folio_catalog::unqualified(&name)
            ),
        ));
    }
    let policies = (security.policies.into_iter())
        .filter(|p| p.applies(command, &roles))
        .collect();
    Ok(Some((name, policies)))
}

/// Parses a stored policy expression.
pub fn parse(text: &str) -> Result<Expr, SqlError> {
    let dialect = crate::dialect::Folio;
    sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| SqlError::syntax(e.to_string()))
}

fn and(left: Expr, right: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(left),
        op: BinaryOperator::And,
        right: Box::new(right),
    }
}

fn or(left: Expr, right: Expr) -> Expr {
    Expr::BinaryOp {
        left: Box::new(left),
        op: BinaryOperator::Or,
        right: Box::new(right),
    }
}

fn nested(e: Expr) -> Expr {
    Expr::Nested(Box::new(e))
}

fn false_expr() -> Expr {
    Expr::Value(sqlparser::ast::Value::Boolean(false).into())
}

/// The condition the rows `command` reads of relation `relation`
/// (named `name`) must meet, or `None` when row-level security does not
/// apply: its permissive policies' USING ORed (none: no row), its
/// restrictive ones' ANDed to that. The one rule of which rows a role
/// sees: FROM items (`from.rs`) and UPDATE / DELETE targets (`dml.rs`)
/// ask it.
pub fn using(
    cx: &Ctx<'_>,
    relation: u64,
    name: &str,
    command: Command,
) -> Result<Option<Expr>, SqlError> {
    let Some((_, policies)) = applying(cx, relation, name, command)? else {
        return Ok(None);
    };
    let (permissive, restrictive) = combine(&policies, |p| p.using.as_ref())?;
    let mut condition = permissive;
    for (_, e) in restrictive {
        condition = and(condition, e);
    }
    Ok(Some(condition))
}

/// The policies' conditions (`pick` gives a policy's, `None`: it has
/// none): the permissive ones ORed (none: `false`, no row), and each
/// restrictive one with its policy's name.
fn combine<'p>(
    policies: &'p [Policy],
    pick: impl Fn(&'p Policy) -> Option<&'p String>,
) -> Result<(Expr, Vec<(String, Expr)>), SqlError> {
    let mut permissive: Option<Expr> = None;
    let mut restrictive = Vec::new();
    for p in policies {
        let Some(text) = pick(p) else { continue };
        let e = nested(parse(text)?);
        if p.permissive {
            permissive = Some(match permissive {
                None => e,
                Some(before) => or(before, e),
            });
        } else {
            restrictive.push((p.name.clone(), e));
        }
    }
    Ok((permissive.map_or_else(false_expr, nested), restrictive))
}

/// What the new rows `command` (INSERT or UPDATE) writes to relation
/// `relation` must meet: the permissive policies' WITH CHECK (their
/// USING when they have none) ORed (none: no row may be written), then
/// each restrictive one's with its name; each with the name of the table
/// whose policies they are (a part's parent: [`as_parts_of`]); empty when
/// row-level security does not apply. 42501 `new row violates row-level
/// security policy ...` for a row that does not meet one
/// (`constraints.rs`).
pub fn checks(
    cx: &Ctx<'_>,
    relation: u64,
    name: &str,
    command: Command,
) -> Result<Vec<(String, Option<String>, Expr)>, SqlError> {
    judged(cx, relation, name, command, true)
}

/// [`checks`] made of the USING of `command`'s policies alone, as
/// PostgreSQL's checks that raise an error where a scan would drop the
/// row: SELECT's on the new rows of a statement that reads the table
/// (RETURNING, ON CONFLICT DO UPDATE), UPDATE's on the row ON CONFLICT DO
/// UPDATE meets.
pub fn using_checks(
    cx: &Ctx<'_>,
    relation: u64,
    name: &str,
    command: Command,
) -> Result<Vec<(String, Option<String>, Expr)>, SqlError> {
    judged(cx, relation, name, command, false)
}

/// [`checks`] (`with_check`: a policy's WITH CHECK, else its USING) or
/// [`using_checks`].
fn judged(
    cx: &Ctx<'_>,
    relation: u64,
    name: &str,
    command: Command,
    with_check: bool,
) -> Result<Vec<(String, Option<String>, Expr)>, SqlError> {
    let Some((table, policies)) = applying(cx, relation, name, command)? else {
        return Ok(Vec::new());
    };
    let (permissive, restrictive) = combine(&policies, |p| match with_check {
        true => p.check.as_ref().or(p.using.as_ref()),
        false => p.using.as_ref(),
    })?;
    let named = restrictive.into_iter().map(|(name, e)| (Some(name), e));
    Ok((std::iter::once((None, permissive)).chain(named))
        .map(|(policy, e)| (table.clone(), policy, e))
        .collect())
}

/// The FROM item a scan of `factor` (a table) under policies'
/// `condition` becomes: `(SELECT * FROM factor AS qualifier WHERE
/// condition) AS qualifier`.
pub fn scan_factor(
    factor: &TableFactor,
    qualifier: &str,
    condition: Expr,
) -> Result<TableFactor, SqlError> {
    let alias = TableAlias {
        name: Ident::with_quote('"', qualifier),
        columns: Vec::new(),
    };
    let mut inner = factor.clone();
    if let TableFactor::Table { alias: a, .. } = &mut inner {
        *a = Some(alias.clone());
    }
    let mut subquery = crate::views::parse_text(qualifier, "SELECT * FROM t WHERE true")?;
    if let SetExpr::Select(select) = subquery.body.as_mut() {
        select.selection = Some(condition);
        select.from[0].relation = inner;
    }
    Ok(TableFactor::Derived {
        lateral: false,
        subquery,
        alias: Some(alias),
    })
}

/// An UPDATE's or DELETE's WHERE with the condition its target's
/// policies put on the rows it changes ANDed before it (PostgreSQL
/// judges the policies first): the USING of `command`'s policies and,
/// when the statement reads the table (`reads`: a WHERE or RETURNING),
/// of SELECT's, as PostgreSQL's. The policies' columns are qualified by
/// the target's `qualifier` (its alias, else its name), as a FROM (USING)
/// item may have columns of the same names.
pub fn restrict(
    cx: &Ctx<'_>,
    relation: &folio_catalog::Relation,
    qualifier: &str,
    command: Command,
    reads: bool,
    selection: Option<Expr>,
) -> Result<Option<Expr>, SqlError> {
    let (oid, name) = (relation.def.oid, relation.def.name.as_str());
    let Some(mut condition) = using(cx, oid, name, command)? else {
        return Ok(selection);
    };
    if reads && let Some(select) = using(cx, oid, name, Command::Select)? {
        condition = and(nested(condition), nested(select));
    }
    qualified(&mut condition, relation, qualifier);
    Ok(Some(match selection {
        None => condition,
        Some(s) => and(nested(condition), nested(s)),
    }))
}

/// Qualifies the names of a table's `columns` in a policy's condition
/// by `qualifier`, outside its subqueries (whose unqualified names are
/// their own tables' first).
struct Qualify<'a> {
    columns: &'a [&'a str],
    qualifier: &'a str,
    /// How many queries deep the walk is.
    depth: usize,
}

impl sqlparser::ast::VisitorMut for Qualify<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _: &mut sqlparser::ast::Query) -> std::ops::ControlFlow<()> {
        self.depth += 1;
        std::ops::ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut sqlparser::ast::Query) -> std::ops::ControlFlow<()> {
        self.depth -= 1;
        std::ops::ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &mut Expr) -> std::ops::ControlFlow<()> {
        if self.depth == 0
            && let Expr::Identifier(id) = e
            && self.columns.contains(&crate::names::ident(id).as_str())
        {
            *e = Expr::CompoundIdentifier(vec![Ident::with_quote('"', self.qualifier), id.clone()]);
        }
        std::ops::ControlFlow::Continue(())
    }
}

/// [`checks`] bound over the table's columns (their subqueries taken out
/// by the caller, as its statement's), for `Constraints` to judge.
pub fn bind_checks(
    relation: &folio_catalog::Relation,
    checks: Vec<(String, Option<String>, Expr)>,
) -> Result<Vec<(String, Option<String>, crate::scalar::Scalar)>, SqlError> {
    checks
        .into_iter()
        .map(|(table, policy, e)| Ok((table, policy, crate::scalar::bind(&e, relation)?)))
        .collect()
}

/// PostgreSQL's 42501 for a new row a check refuses.
pub fn violation(table: &str, policy: Option<&str>) -> SqlError {
    let table = folio_catalog::unqualified(table);
    SqlError::new(
        "42501",
        match policy {
            None => format!("new row violates row-level security policy for table \"{table}\""),
            Some(p) => {
                format!("new row violates row-level security policy \"{p}\" for table \"{table}\"")
            }
        },
    )
}

/// PostgreSQL's 42501 for the target row a MERGE's UPDATE or DELETE
/// action would change that its policies' USING refuses.
pub fn merge_violation(table: &str, policy: Option<&str>) -> SqlError {
    let table = folio_catalog::unqualified(table);
    let policy = policy.map(|p| format!(" \"{p}\"")).unwrap_or_default();
    SqlError::new(
        "42501",
        format!(
            "target row violates row-level security policy{policy} (USING expression) for table \"{table}\""
        ),
    )
}

/// `condition` (a table's policies', over its bare column names) with
/// those names qualified by `qualifier`, outside its subqueries: to be
/// read among other FROM items' columns.
pub fn qualified(condition: &mut Expr, relation: &folio_catalog::Relation, qualifier: &str) {
    let columns: Vec<&str> = (relation.def.columns.iter())
        .map(|c| c.name.as_str())
        .collect();
    let mut qualify = Qualify {
        columns: &columns,
        qualifier,
        depth: 0,
    };
    let _ = sqlparser::ast::VisitMut::visit(condition, &mut qualify);
}

/// PostgreSQL's 42501 for the existing row ON CONFLICT DO UPDATE meets
/// that its UPDATE (or SELECT) policies' USING refuses.
pub fn conflict_violation(table: &str, policy: Option<&str>) -> SqlError {
    let table = folio_catalog::unqualified(table);
    let policy = policy.map(|p| format!(" \"{p}\"")).unwrap_or_default();
    SqlError::new(
        "42501",
        format!(
            "new row violates row-level security policy{policy} (USING expression) for table \"{table}\""
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Policies read back as written.
    #[test]
    fn policies_round_trip() {
        let policies = vec![
            Policy {
                oid: 16500,
                name: "p1".into(),
                permissive: true,
                command: b'*',
                roles: vec![],
                using: Some("a > 0".into()),
                check: None,
            },
            Policy {
                oid: 16501,
                name: "p2".into(),
                permissive: false,
                command: b'w',
                roles: vec![16384, 16385],
                using: None,
                check: Some("b = current_user".into()),
            },
        ];
        assert_eq!(decode(&encode(&policies)), Some(policies));
        assert_eq!(decode(&[1, 0, 9]), None);
    }
}
