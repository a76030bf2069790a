//! The statements on roles and privileges: `CREATE ROLE | USER | GROUP`,
//! `ALTER ROLE`, `DROP ROLE`, `GRANT` and `REVOKE` on tables, and of role
//! membership (`GRANT role TO role`, `ALTER GROUP`), read from
//! sqlparser's statements (membership's from `parse.rs`) into `roles.rs`,
//! `memberships.rs` and `privileges.rs` calls (design: README "Roles and
//! privileges").

use crate::context::Ctx;
use crate::error::SqlError;
use crate::memberships::Graph;
use crate::names;
use crate::output::{Notice, Output};
use crate::privileges::{self, Change};
use crate::roles::{self, Options, Role};
use folio_db::{Database, Transaction};
use sqlparser::ast::{
    Action, AlterRoleOperation, GrantObjects, Grantee, GranteeName, GranteesType, Ident,
    ObjectName, Password, Privileges, RoleOption, Statement,
};

/// The session role may make, change and drop roles (superuser or
/// CREATEROLE), else PostgreSQL's 42501.
fn check_createrole(db: &Database, role: &Role, what: &str) -> Result<(), SqlError> {
    let current = roles::by_oid(db, role.oid)?;
    match current {
        Some(r) if r.superuser || r.createrole => Ok(()),
        _ => Err(SqlError::new(
            "42501",
            format!("permission denied to {what} role"),
        )),
    }
}

/// A `PASSWORD` option's value.
fn password(p: &Password) -> Result<Option<String>, SqlError> {
    match p {
        Password::NullPassword => Ok(None),
        Password::Password(e) => match crate::expr::constant(e)? {
            folio_row::Value::Text(t) => Ok(Some(t)),
            folio_row::Value::Null => Ok(None),
            _ => Err(SqlError::syntax("a password is a string")),
        },
    }
}

fn conflicting() -> SqlError {
    SqlError::new("42601", "conflicting or redundant options")
}

/// Sets `slot` once (PostgreSQL's 42601 for an option named twice).
fn once<T>(slot: &mut Option<T>, value: T) -> Result<(), SqlError> {
    if slot.replace(value).is_some() {
        return Err(conflicting());
    }
    Ok(())
}

/// `CREATE ROLE | USER name [WITH] options`.
pub fn create(
    db: &Database,
    role: &Role,
    notices: &mut Vec<Notice>,
    statement: &Statement,
) -> Result<Output, SqlError> {
    let Statement::CreateRole {
        names,
        if_not_exists: false,
        login,
        inherit,
        bypassrls,
        password: given,
        superuser,
        create_db,
        create_role,
        replication,
        connection_limit,
        valid_until,
        in_role,
        in_group,
        role: members,
        user,
        admin,
        authorization_owner: None,
    } = statement
    else {
        return Err(SqlError::unsupported("this form of CREATE ROLE"));
    };
    if replication == &Some(true) || connection_limit.is_some() || valid_until.is_some() {
        return Err(SqlError::unsupported(
            "CREATE ROLE options other than [NO]LOGIN, [NO]SUPERUSER, [NO]CREATEDB, [NO]CREATEROLE, [NO]BYPASSRLS, [NO]INHERIT, PASSWORD, IN ROLE, ROLE and ADMIN",
        ));
    }
    let [name] = names.as_slice() else {
        return Err(SqlError::syntax("CREATE ROLE names one role"));
    };
    let name = names::relation(name)?;
    check_createrole(db, role, "create")?;
    if superuser == &Some(true) && roles::by_oid(db, role.oid)?.is_none_or(|r| !r.superuser) {
        return Err(SqlError::new(
            "42501",
            "must be superuser to create superusers",
        ));
    }
    let options = Options {
        login: *login,
        superuser: *superuser,
        createdb: *create_db,
        createrole: *create_role,
        bypassrls: *bypassrls,
        inherit: *inherit,
        password: given.as_ref().map(password).transpose()?,
    };
    let created = roles::create(db, &name, &options)?;
    // IN ROLE | IN GROUP, then ADMIN, then ROLE | USER, as PostgreSQL's
    // CreateRole adds them; one refused undoes the CREATE (PostgreSQL's
    // is one transaction).
    let in_roles: Vec<_> = in_role.iter().chain(in_group).collect();
    let admins = specs(admin);
    let members = specs(members.iter().chain(user));
    let joined = (|| {
        let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
        let mut graph = Graph::load(db)?;
        for group in in_roles {
            let grant = RoleGrant {
                grant: true,
                roles: vec![names::ident(group)],
                members: vec![RoleSpec::Name(name.clone())],
                admin: false,
                granted_by: None,
                tag: "CREATE ROLE",
            };
            add_or_drop(db, role, &mut graph, notices, &grant)?;
        }
        for (members, admin) in [(admins, true), (members, false)] {
            if members.is_empty() {
                continue;
            }
            let grant = RoleGrant {
                grant: true,
                roles: vec![name.clone()],
                members,
                admin,
                granted_by: None,
                tag: "CREATE ROLE",
            };
            add_or_drop(db, role, &mut graph, notices, &grant)?;
        }
        graph.store(db)
    })();
    if let Err(e) = joined {
        let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
        roles::remove(db, &created)?;
        return Err(e);
    }
    Ok(Output::command("CREATE ROLE"))
}

/// The roles of a CREATE ROLE list as [`RoleSpec`]s.
fn specs<'a>(names: impl IntoIterator<Item = &'a sqlparser::ast::Ident>) -> Vec<RoleSpec> {
    names
        .into_iter()
        .map(|n| RoleSpec::Name(names::ident(n)))
        .collect()
}

/// A role as a role statement names it (PostgreSQL's `RoleSpec`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoleSpec {
    Name(String),
    /// `CURRENT_ROLE` or `CURRENT_USER`.
    CurrentRole,
    SessionUser,
    /// `PUBLIC`, which is no role here (42704).
    Public,
}

/// `GRANT role, ... TO member, ... [WITH ADMIN OPTION] [GRANTED BY
/// grantor]`, `REVOKE [ADMIN OPTION FOR] role, ... FROM member, ...`
/// and `ALTER GROUP role ADD | DROP USER member, ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleGrant {
    pub grant: bool,
    pub roles: Vec<String>,
    pub members: Vec<RoleSpec>,
    /// WITH ADMIN OPTION; for a REVOKE, ADMIN OPTION FOR (only the
    /// option goes).
    pub admin: bool,
    /// A REVOKE's is read and not used (PostgreSQL 15 does not look it
    /// up).
    pub granted_by: Option<RoleSpec>,
    /// The command tag.
    pub tag: &'static str,
}

/// The role `spec` names, as the session's role `role` reads it (42704
/// for one that is not there, and for PUBLIC).
fn resolve(db: &Database, role: &Role, spec: &RoleSpec) -> Result<Role, SqlError> {
    let name = match spec {
        RoleSpec::Name(name) => name.clone(),
        RoleSpec::CurrentRole => role.name.clone(),
        RoleSpec::SessionUser => roles::session_name(),
        RoleSpec::Public => "public".to_string(),
    };
    roles::get(db, &name)?.ok_or_else(|| roles::undefined(&name))
}

/// Runs a [`RoleGrant`]: durable when it returns, all of it or nothing.
pub fn grant_roles(
    cx: &Ctx<'_>,
    notices: &mut Vec<Notice>,
    grant: &RoleGrant,
) -> Result<Output, SqlError> {
    let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
    let mut graph = Graph::load(cx.db)?;
    add_or_drop(cx.db, cx.role, &mut graph, notices, grant)?;
    graph.store(cx.db)?;
    Ok(Output::command(grant.tag))
}

/// PostgreSQL's `AddRoleMems` / `DelRoleMems` on `graph` for each role
/// of `grant`, run by the session's role `role`: a superuser role takes
/// a superuser (42501 `must be superuser to alter superusers`), another
/// CREATEROLE or the admin option on it (42501 `must have admin option
/// on role "r"`); only a superuser names another grantor; a loop is
/// 0LP01; a membership there already (without ADMIN OPTION asked) is a
/// NOTICE, one to revoke that is not there a WARNING.
fn add_or_drop(
    db: &Database,
    role: &Role,
    graph: &mut Graph,
    notices: &mut Vec<Notice>,
    grant: &RoleGrant,
) -> Result<(), SqlError> {
    let me = roles::by_oid(db, role.oid)?.unwrap_or_else(|| role.clone());
    let members = (grant.members.iter())
        .map(|m| resolve(db, &me, m))
        .collect::<Result<Vec<_>, _>>()?;
    let grantor = match &grant.granted_by {
        Some(spec) if grant.grant => resolve(db, &me, spec)?.oid,
        _ => me.oid,
    };
    for name in &grant.roles {
        let target = roles::get(db, name)?.ok_or_else(|| roles::undefined(name))?;
        if target.superuser {
            if !me.superuser {
                return Err(SqlError::new(
                    "42501",
                    "must be superuser to alter superusers",
                ));
            }
        } else if !(me.superuser || me.createrole || graph.is_admin_of(grantor, target.oid)) {
            return Err(SqlError::new(
                "42501",
                format!("must have admin option on role \"{name}\""),
            ));
        }
        if grantor != me.oid && !me.superuser {
            return Err(SqlError::new("42501", "must be superuser to set grantor"));
        }
        for member in &members {
            if grant.grant {
                if !graph.grant(&target, member, grantor, grant.admin)? {
                    notices.push(Notice::info(format!(
                        "role \"{}\" is already a member of role \"{name}\"",
                        member.name
                    )));
                }
            } else if !graph.revoke(target.oid, member.oid, grant.admin) {
                notices.push(Notice::warning(
                    "01000",
                    &format!(
                        "role \"{}\" is not a member of role \"{name}\"",
                        member.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `ALTER ROLE name [WITH] options | RENAME TO new`.
pub fn alter(
    db: &Database,
    role: &Role,
    name: &sqlparser::ast::Ident,
    operation: &AlterRoleOperation,
) -> Result<Output, SqlError> {
    let name = names::ident(name);
    match operation {
        AlterRoleOperation::RenameRole { role_name } => {
            check_createrole(db, role, "rename")?;
            roles::rename(db, &name, &names::ident(role_name), role.oid)?;
            Ok(Output::command("ALTER ROLE"))
        }
        AlterRoleOperation::WithOptions { options } => {
            let mut o = Options::default();
            for option in options {
                match option {
                    RoleOption::Login(b) => once(&mut o.login, *b)?,
                    RoleOption::SuperUser(b) => once(&mut o.superuser, *b)?,
                    RoleOption::CreateDB(b) => once(&mut o.createdb, *b)?,
                    RoleOption::CreateRole(b) => once(&mut o.createrole, *b)?,
                    RoleOption::BypassRLS(b) => once(&mut o.bypassrls, *b)?,
                    RoleOption::Inherit(b) => once(&mut o.inherit, *b)?,
                    RoleOption::Password(p) => once(&mut o.password, password(p)?)?,
                    other => {
                        return Err(SqlError::unsupported(format!("ALTER ROLE ... {other}")));
                    }
                }
            }
            // A role may change its own password; anything else takes
            // CREATEROLE (and superuser for a superuser's attributes).
            let own_password = name == role.name
                && o.login.is_none()
                && o.superuser.is_none()
                && o.createdb.is_none()
                && o.createrole.is_none()
                && o.bypassrls.is_none()
                && o.inherit.is_none();
            if !own_password {
                check_createrole(db, role, "alter")?;
                let target = roles::get(db, &name)?.ok_or_else(|| roles::undefined(&name))?;
                let me = roles::by_oid(db, role.oid)?;
                if (target.superuser || o.superuser.is_some()) && me.is_none_or(|r| !r.superuser) {
                    return Err(SqlError::new(
                        "42501",
                        "must be superuser to alter superuser roles or change superuser attribute",
                    ));
                }
            }
            roles::alter(db, &name, &o)?;
            Ok(Output::command("ALTER ROLE"))
        }
        _ => Err(SqlError::unsupported(format!("ALTER ROLE {operation}"))),
    }
}

/// `DROP ROLE | USER [IF EXISTS] name, ...`: 2BP01 while a relation is
/// owned by or grants to one (PostgreSQL's DETAIL lines).
pub fn drop(
    cx: &Ctx<'_>,
    txn: &Transaction,
    notices: &mut Vec<Notice>,
    if_exists: bool,
    names: &[ObjectName],
) -> Result<Output, SqlError> {
    check_createrole(cx.db, cx.role, "drop")?;
    for name in names {
        let name = names::relation(name)?;
        let _ddl = roles::ROLE_DDL.lock().unwrap_or_else(|e| e.into_inner());
        let Some(target) = roles::get(cx.db, &name)? else {
            if if_exists {
                notices.push(Notice::info(format!(
                    "role \"{name}\" does not exist, skipping"
                )));
                continue;
            }
            return Err(roles::undefined(&name));
        };
        if target.is_builtin() {
            return Err(SqlError::new(
                "2BP01",
                format!("cannot drop role {name} because it is required by the database system"),
            ));
        }
        if target.oid == cx.role.oid {
            return Err(SqlError::new("55006", "current user cannot be dropped"));
        }
        if target.superuser && roles::by_oid(cx.db, cx.role.oid)?.is_none_or(|r| !r.superuser) {
            return Err(SqlError::new(
                "42501",
                "must be superuser to drop superusers",
            ));
        }
        let dependents = privileges::dependents(cx.db, txn, target.oid)?;
        if !dependents.is_empty() {
            return Err(SqlError::new(
                "2BP01",
                format!("role \"{name}\" cannot be dropped because some objects depend on it"),
            )
            .with_detail(dependents.join("\n")));
        }
        let mut graph = Graph::load(cx.db)?;
        graph.forget(target.oid);
        graph.store(cx.db)?;
        roles::remove(cx.db, &target)?;
    }
    Ok(Output::command("DROP ROLE"))
}

/// The privileges a GRANT or REVOKE names on columns: each bit and its
/// column names.
type ColumnGrants = Vec<(privileges::Bits, Vec<String>)>;

/// The privilege bits a GRANT or REVOKE names on the relations, and
/// those it names on columns.
fn privilege_bits(privileges: &Privileges) -> Result<(privileges::Bits, ColumnGrants), SqlError> {
    let Privileges::Actions(actions) = privileges else {
        return Ok((privileges::ALL, Vec::new()));
    };
    let mut bits = 0;
    let mut on_columns = Vec::new();
    for action in actions {
        let (bit, columns) = match action {
            Action::Select { columns } => (privileges::SELECT, columns),
            Action::Insert { columns } => (privileges::INSERT, columns),
            Action::Update { columns } => (privileges::UPDATE, columns),
            Action::References { columns } => (privileges::REFERENCES, columns),
            Action::Delete => (privileges::DELETE, &None),
            Action::Truncate => (privileges::TRUNCATE, &None),
            Action::Trigger => (privileges::TRIGGER, &None),
            other => {
                return Err(SqlError::new(
                    "0LP01",
                    format!("invalid privilege type {other} for table"),
                ));
            }
        };
        match columns {
            Some(columns) => on_columns.push((bit, columns.iter().map(names::ident).collect())),
            None => bits |= bit,
        }
    }
    Ok((bits, on_columns))
}

/// The number of column `column` of relation `name` (a user column's
/// slot, a system column's [`privileges::SYSTEM_COLUMN_BASE`] + its
/// index; a view's column its position, as a view's columns never
/// move: `privileges::ColumnUses::of_view`), 42703 when it has none.
fn column_number(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &str,
    column: &str,
) -> Result<u16, SqlError> {
    let missing = || {
        SqlError::new(
            "42703",
            format!(
                "column \"{column}\" of relation \"{}\" does not exist",
                folio_catalog::unqualified(name)
            ),
        )
    };
    let Some(def) = cx.db.catalog().table(txn, name)? else {
        let view = cx.db.catalog().view(txn, name)?.ok_or_else(missing)?;
        let at = (view.def.columns.iter()).position(|c| c.name == column);
        return at.map(|at| at as u16).ok_or_else(missing);
    };
    let system = (crate::system_columns::COLUMNS.iter()).position(|(n, _)| *n == column);
    match (def.column(column), system) {
        (Some(at), _) => Ok(def.layout.slot(at)),
        (None, Some(at)) => Ok(privileges::SYSTEM_COLUMN_BASE + at as u16),
        (None, None) => Err(missing()),
    }
}

/// The grantees' oids ([`privileges::PUBLIC`] for PUBLIC), 42704 for a
/// role that is not there.
fn grantee_oids(db: &Database, grantees: &[Grantee]) -> Result<Vec<u32>, SqlError> {
    grantees
        .iter()
        .map(|g| match (&g.grantee_type, &g.name) {
            (GranteesType::Public, _) => Ok(privileges::PUBLIC),
            (
                GranteesType::None | GranteesType::Role | GranteesType::User | GranteesType::Group,
                Some(GranteeName::ObjectName(name)),
            ) => {
                let name = names::relation(name)?;
                if name == "public" {
                    return Ok(privileges::PUBLIC);
                }
                Ok(roles::get(db, &name)?
                    .ok_or_else(|| roles::undefined(&name))?
                    .oid)
            }
            _ => Err(SqlError::unsupported(format!("the grantee {g}"))),
        })
        .collect()
}

/// The relations a GRANT or REVOKE is on: oid, name, kind word.
fn objects(
    cx: &Ctx<'_>,
    txn: &Transaction,
    objects: Option<&GrantObjects>,
) -> Result<Vec<(u64, String, &'static str)>, SqlError> {
    let db = cx.db;
    match objects {
        Some(GrantObjects::Tables(names)) => {
            let relations = privileges::relations(db, txn)?;
            names
                .iter()
                .map(|name| {
                    let name = names::relation(name)?;
                    let resolved = crate::temp_tables::resolve_name(cx, txn, &name)?;
                    let oid = (db.catalog().relation_oid(txn, &resolved)?).map(|(oid, _)| oid);
                    match oid.and_then(|oid| relations.get(&oid).map(|(_, k)| (oid, *k))) {
                        Some((_, "sequence")) => {
                            Err(SqlError::unsupported("privileges on sequences"))
                        }
                        Some((oid, kind)) => Ok((oid, resolved, kind)),
                        None => Err(SqlError::undefined_table(&name)),
                    }
                })
                .collect()
        }
        Some(GrantObjects::AllTablesInSchema { schemas }) => {
            for schema in schemas {
                let schema = names::relation(schema)?;
                if schema != "public" {
                    return Err(SqlError::new(
                        "3F000",
                        format!("schema \"{schema}\" does not exist"),
                    ));
                }
            }
            let mut out: Vec<_> = privileges::relations(db, txn)?
                .into_iter()
                .filter(|(_, (name, kind))| *kind != "sequence" && !name.contains('.'))
                .map(|(oid, (name, kind))| (oid, name, kind))
                .collect();
            out.sort();
            Ok(out)
        }
        _ => Err(SqlError::unsupported(
            "GRANT and REVOKE on objects other than tables",
        )),
    }
}

/// `GRANT privileges ON [TABLE] name, ... | ALL TABLES IN SCHEMA public
/// TO role | PUBLIC, ... [WITH GRANT OPTION]` and `REVOKE ... FROM`.
///
/// `grant_option_for`: the REVOKE was `REVOKE GRANT OPTION FOR ...`
/// (`parse.rs` takes the words out; sqlparser reads none).
pub fn grant_or_revoke(
    cx: &Ctx<'_>,
    txn: &Transaction,
    notices: &mut Vec<Notice>,
    statement: &Statement,
    grant_option_for: bool,
) -> Result<Output, SqlError> {
    let (grant, privileges, on, grantees, grant_option, granted_by, cascade) = match statement {
        Statement::Grant {
            privileges,
            objects,
            grantees,
            with_grant_option,
            as_grantor: None,
            granted_by,
            current_grants: None,
        } => (
            true,
            privileges,
            objects,
            grantees,
            *with_grant_option,
            granted_by,
            false,
        ),
        Statement::Revoke {
            privileges,
            objects,
            grantees,
            granted_by,
            cascade,
        } => (
            false,
            privileges,
            objects,
            grantees,
            grant_option_for,
            granted_by,
            matches!(cascade, Some(sqlparser::ast::CascadeOption::Cascade)),
        ),
        _ => return Err(SqlError::unsupported("this form of GRANT or REVOKE")),
    };
    if let Some(grantor) = granted_by {
        check_grantor(cx, grantor)?;
    }
    let change = |privileges, grantees| Change {
        grant,
        privileges,
        grantees,
        grant_option,
        cascade,
    };
    if let Some(GrantObjects::Schemas(schemas)) = on {
        let oids = grantee_oids(cx.db, grantees)?;
        let change = change(privileges::CREATE, &oids);
        return schema(cx, txn, privileges, schemas, &change);
    }
    let (bits, on_columns) = privilege_bits(privileges)?;
    let oids = grantee_oids(cx.db, grantees)?;
    let change = |privileges| change(privileges, &oids);
    for (oid, name, kind) in objects(cx, txn, on.as_ref())? {
        let mut done = true;
        if bits != 0 || on_columns.is_empty() {
            done = privileges::apply(cx, oid, None, &name, kind, &change(bits))?;
        }
        for (bit, columns) in &on_columns {
            for column in columns {
                let number = column_number(cx, txn, &name, column)?;
                done &= privileges::apply(cx, oid, Some(number), &name, kind, &change(*bit))?;
            }
        }
        if !done {
            notices.push(unchanged(grant, folio_catalog::unqualified(&name)));
        }
    }
    Ok(Output::command(if grant { "GRANT" } else { "REVOKE" }))
}

/// PostgreSQL's warning of a GRANT (`grant`) or REVOKE by a holder
/// without the grant option: nothing changed on object `name`.
pub fn unchanged(grant: bool, name: &str) -> Notice {
    match grant {
        true => Notice::warning(
            "01007",
            &format!("no privileges were granted for \"{name}\""),
        ),
        false => Notice::warning(
            "01006",
            &format!("no privileges could be revoked for \"{name}\""),
        ),
    }
}

/// The grantee `spec` names, by oid ([`privileges::PUBLIC`] for
/// PUBLIC), as the session's role `role` reads it (42704 for a role that
/// is not there).
pub fn grantee_oid(db: &Database, role: &Role, spec: &RoleSpec) -> Result<u32, SqlError> {
    match spec {
        RoleSpec::Public => Ok(privileges::PUBLIC),
        other => Ok(resolve(db, role, other)?.oid),
    }
}

/// A GRANT's or REVOKE's `GRANTED BY role`: PostgreSQL 15 takes the
/// current role alone (0A000 for another, 42704 for no such role).
fn check_grantor(cx: &Ctx<'_>, grantor: &Ident) -> Result<(), SqlError> {
    let spec = match (
        grantor.quote_style,
        grantor.value.to_ascii_lowercase().as_str(),
    ) {
        (None, "current_user" | "current_role") => RoleSpec::CurrentRole,
        (None, "session_user") => RoleSpec::SessionUser,
        _ => RoleSpec::Name(names::ident(grantor)),
    };
    if resolve(cx.db, cx.role, &spec)?.oid != cx.role.oid {
        return Err(SqlError::new("0A000", "grantor must be current user"));
    }
    Ok(())
}

/// `GRANT | REVOKE { CREATE | USAGE | ALL } ON SCHEMA s`: CREATE is
/// kept (as a relation's privilege, under the schema's oid: 2200 for
/// public); USAGE, which folio does not check, changes nothing.
/// `change` is the change of CREATE.
fn schema(
    cx: &Ctx<'_>,
    txn: &Transaction,
    privileges: &Privileges,
    schemas: &[ObjectName],
    change: &Change<'_>,
) -> Result<Output, SqlError> {
    let grant = change.grant;
    let mut oids_of_schemas = Vec::new();
    for schema in schemas {
        let schema = names::relation(schema)?;
        let oid = match schema.as_str() {
            "public" => privileges::PUBLIC_SCHEMA,
            _ => match cx.db.catalog().schema(txn, &schema)? {
                Some(def) => def.oid,
                None => {
                    return Err(SqlError::new(
                        "3F000",
                        format!("schema \"{schema}\" does not exist"),
                    ));
                }
            },
        };
        oids_of_schemas.push((oid, schema));
    }
    let create = match privileges {
        Privileges::All { .. } => true,
        Privileges::Actions(actions) => {
            let mut create = false;
            for action in actions {
                match action {
                    Action::Create { obj_type: None } => create = true,
                    Action::Usage => {}
                    other => {
                        return Err(SqlError::new(
                            "0LP01",
                            format!("invalid privilege type {other} for schema"),
                        ));
                    }
                }
            }
            create
        }
    };
    if create {
        for (oid, name) in &oids_of_schemas {
            privileges::apply(cx, *oid, None, name, "schema", change)?;
        }
        // (A holder without the grant option is warned by PostgreSQL;
        // only superusers hold CREATE on public with it here.)
    }
    Ok(Output::command(if grant { "GRANT" } else { "REVOKE" }))
}
