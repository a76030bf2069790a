//! `CREATE POLICY`, `ALTER POLICY`, `DROP POLICY` and `ALTER TABLE t
//! ENABLE | DISABLE | [NO] FORCE ROW LEVEL SECURITY` (design: README
//! "Row-level security"): each checks the table and that the role owns
//! it, then stores the table's switches and policies
//! (`row_security::write`), at once as an ACL change.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::output::{Notice, Output};
use crate::row_security::{self, Policy};
use folio_db::Transaction;
use sqlparser::ast::{
    AlterPolicyOperation, CreatePolicyCommand, CreatePolicyType, Expr, Owner, Statement,
};

/// What `ALTER TABLE t ... ROW LEVEL SECURITY` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowSecurityAction {
    Enable,
    Disable,
    Force,
    NoForce,
}

/// `ALTER TABLE [IF EXISTS] [ONLY] table <action> ROW LEVEL SECURITY`.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterRowSecurity {
    pub table: String,
    pub if_exists: bool,
    pub action: RowSecurityAction,
}

/// The catalog name of a policy statement's table: resolved through the
/// search path here, as the statement walk in `temp_tables::resolve` does
/// not reach DROP POLICY's name.
fn table_name_of(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &sqlparser::ast::ObjectName,
) -> Result<String, SqlError> {
    crate::temp_tables::resolve_name(cx, txn, &crate::names::relation(name)?)
}

/// The table `name` names, which the role must own: its oid and name.
fn owned_table(cx: &Ctx<'_>, txn: &Transaction, name: &str) -> Result<(u64, String), SqlError> {
    let relation = crate::access::relation(cx, txn, name)?;
    let name = relation.def.name.clone();
    crate::privileges::check_owner(cx, relation.def.oid, &name, "table")?;
    Ok((relation.def.oid, name))
}

/// Runs `ALTER TABLE t ... ROW LEVEL SECURITY`.
pub fn alter_table(
    cx: &Ctx<'_>,
    txn: &Transaction,
    notices: &mut Vec<Notice>,
    alter: &AlterRowSecurity,
) -> Result<Output, SqlError> {
    // (Read by `parse.rs`, the name has not been through the search
    // path yet.)
    let table = crate::temp_tables::resolve_name(cx, txn, &alter.table)?;
    let found = crate::access::relation(cx, txn, &table);
    if found.is_err() && alter.if_exists {
        notices.push(Notice::info(format!(
            "relation \"{}\" does not exist, skipping",
            folio_catalog::unqualified(&alter.table)
        )));
        return Ok(Output::command("ALTER TABLE"));
    }
    let (oid, _) = owned_table(cx, txn, &table)?;
    let mut security = row_security::read(cx.db, oid)?;
    match alter.action {
        RowSecurityAction::Enable => security.enabled = true,
        RowSecurityAction::Disable => security.enabled = false,
        RowSecurityAction::Force => security.forced = true,
        RowSecurityAction::NoForce => security.forced = false,
    }
    row_security::write(cx.db, oid, &security)?;
    cx.relations.ddl();
    Ok(Output::command("ALTER TABLE"))
}

/// The role oids a `TO` list names (PUBLIC: none).
fn role_oids(cx: &Ctx<'_>, to: Option<&[Owner]>) -> Result<Vec<u32>, SqlError> {
    let mut out = Vec::new();
    for owner in to.unwrap_or_default() {
        let name = match owner {
            Owner::Ident(id) => crate::names::ident(id),
            Owner::CurrentRole | Owner::CurrentUser => cx.role.name.clone(),
            Owner::SessionUser => crate::roles::session_name(),
        };
        if name == "public" {
            return Ok(Vec::new());
        }
        let role =
            crate::roles::get(cx.db, &name)?.ok_or_else(|| crate::roles::undefined(&name))?;
        if !out.contains(&role.oid) {
            out.push(role.oid);
        }
    }
    Ok(out)
}

fn undefined(policy: &str, table: &str) -> SqlError {
    SqlError::new(
        "42704",
        format!(
            "policy \"{policy}\" for table \"{}\" does not exist",
            folio_catalog::unqualified(table)
        ),
    )
}

fn duplicate(policy: &str, table: &str) -> SqlError {
    SqlError::new(
        "42710",
        format!(
            "policy \"{policy}\" for table \"{}\" already exists",
            folio_catalog::unqualified(table)
        ),
    )
}

/// A policy expression's stored text; its columns must be the table's
/// (planned as `SELECT FROM table WHERE expr`, as the superuser so the
/// table's own policies do not apply).
fn expression_text(
    cx: &Ctx<'_>,
    txn: &Transaction,
    table: &str,
    e: Option<&Expr>,
) -> Result<Option<String>, SqlError> {
    let Some(e) = e else { return Ok(None) };
    let text = e.to_string();
    let mut parsed = crate::views::parse_text(table, "SELECT 1 FROM t WHERE true")?;
    if let sqlparser::ast::SetExpr::Select(select) = parsed.body.as_mut() {
        select.selection = Some(e.clone());
        if let sqlparser::ast::TableFactor::Table { name, .. } = &mut select.from[0].relation {
            *name = sqlparser::ast::ObjectName::from(
                table
                    .split('.')
                    .map(|part| sqlparser::ast::Ident::with_quote('"', part))
                    .collect::<Vec<_>>(),
            );
        }
    }
    let checker = cx.checked_as.replace(None);
    let skip = cx.row_security_off.replace(true);
    let planned = crate::query::plan_query(cx, txn, &parsed);
    cx.checked_as.set(checker);
    cx.row_security_off.set(skip);
    planned?;
    Ok(Some(text))
}

/// Refuses the expressions a command may not have (PostgreSQL's 42601).
fn check_command(command: u8, using: bool, check: bool) -> Result<(), SqlError> {
    if command == b'a' && using {
        return Err(SqlError::syntax(
            "only WITH CHECK expression allowed for INSERT",
        ));
    }
    if matches!(command, b'r' | b'd') && check {
        return Err(SqlError::syntax(
            "WITH CHECK cannot be applied to SELECT or DELETE",
        ));
    }
    Ok(())
}

/// Runs CREATE POLICY, ALTER POLICY or DROP POLICY.
pub fn run(
    cx: &Ctx<'_>,
    txn: &Transaction,
    notices: &mut Vec<Notice>,
    statement: &Statement,
) -> Result<Output, SqlError> {
    match statement {
        Statement::CreatePolicy {
            name,
            table_name,
            policy_type,
            command,
            to,
            using,
            with_check,
        } => {
            let table = table_name_of(cx, txn, table_name)?;
            let (oid, table) = owned_table(cx, txn, &table)?;
            let name = crate::names::ident(name);
            let command = match command {
                None | Some(CreatePolicyCommand::All) => b'*',
                Some(CreatePolicyCommand::Select) => b'r',
                Some(CreatePolicyCommand::Insert) => b'a',
                Some(CreatePolicyCommand::Update) => b'w',
                Some(CreatePolicyCommand::Delete) => b'd',
            };
            check_command(command, using.is_some(), with_check.is_some())?;
            let mut security = row_security::read(cx.db, oid)?;
            if security.policies.iter().any(|p| p.name == name) {
                return Err(duplicate(&name, &table));
            }
            let policy = Policy {
                oid: row_security::next_oid(cx.db)?,
                name,
                permissive: !matches!(policy_type, Some(CreatePolicyType::Restrictive)),
                command,
                roles: role_oids(cx, to.as_deref())?,
                using: expression_text(cx, txn, &table, using.as_ref())?,
                check: expression_text(cx, txn, &table, with_check.as_ref())?,
            };
            security.policies.push(policy);
            row_security::write(cx.db, oid, &security)?;
            cx.relations.ddl();
            Ok(Output::command("CREATE POLICY"))
        }
        Statement::AlterPolicy {
            name,
            table_name,
            operation,
        } => {
            let table = table_name_of(cx, txn, table_name)?;
            let (oid, table) = owned_table(cx, txn, &table)?;
            let name = crate::names::ident(name);
            let mut security = row_security::read(cx.db, oid)?;
            let at = (security.policies.iter())
                .position(|p| p.name == name)
                .ok_or_else(|| undefined(&name, &table))?;
            match operation {
                AlterPolicyOperation::Rename { new_name } => {
                    let new_name = crate::names::ident(new_name);
                    if security.policies.iter().any(|p| p.name == new_name) {
                        return Err(duplicate(&new_name, &table));
                    }
                    security.policies[at].name = new_name;
                }
                AlterPolicyOperation::Apply {
                    to,
                    using,
                    with_check,
                } => {
                    let command = security.policies[at].command;
                    check_command(command, using.is_some(), with_check.is_some())?;
                    if let Some(to) = to {
                        security.policies[at].roles = role_oids(cx, Some(to))?;
                    }
                    if using.is_some() {
                        security.policies[at].using =
                            expression_text(cx, txn, &table, using.as_ref())?;
                    }
                    if with_check.is_some() {
                        security.policies[at].check =
                            expression_text(cx, txn, &table, with_check.as_ref())?;
                    }
                }
            }
            row_security::write(cx.db, oid, &security)?;
            cx.relations.ddl();
            Ok(Output::command("ALTER POLICY"))
        }
        Statement::DropPolicy {
            if_exists,
            name,
            table_name,
            ..
        } => {
            let table = table_name_of(cx, txn, table_name)?;
            let name = crate::names::ident(name);
            let found = crate::access::relation(cx, txn, &table);
            if found.is_err() && *if_exists {
                notices.push(Notice::info(format!(
                    "relation \"{}\" does not exist, skipping",
                    folio_catalog::unqualified(&table)
                )));
                return Ok(Output::command("DROP POLICY"));
            }
            let (oid, table) = owned_table(cx, txn, &table)?;
            let mut security = row_security::read(cx.db, oid)?;
            let Some(at) = security.policies.iter().position(|p| p.name == name) else {
                if *if_exists {
                    notices.push(Notice::info(format!(
                        "policy \"{name}\" for relation \"{}\" does not exist, skipping",
                        folio_catalog::unqualified(&table)
                    )));
                    return Ok(Output::command("DROP POLICY"));
                }
                return Err(undefined(&name, &table));
            };
            security.policies.remove(at);
            row_security::write(cx.db, oid, &security)?;
            cx.relations.ddl();
            Ok(Output::command("DROP POLICY"))
        }
        _ => Err(SqlError::unsupported(format!("{statement}"))),
    }
}
