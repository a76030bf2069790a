//! `pg_has_role([user,] role, privilege)`: whether `user` (by default
//! the current role) has `privilege` on `role`, as PostgreSQL 15 decides
//! it from role membership (`memberships.rs`): `MEMBER` asks whether
//! `user` is a member of `role` however reached (what SET ROLE needs),
//! `USAGE` whether it holds `role`'s privileges (membership through
//! roles that INHERIT), `MEMBER WITH ADMIN OPTION` (and PostgreSQL's
//! other spellings of it) whether it may grant `role`. A role is a member
//! of itself but never its own admin; a superuser has all.
//!
//! `privilege` is a comma-separated list, any of which may hold; each is
//! matched whatever its case, blanks around it ignored (22023 for
//! another word, named as written). A role given by name must exist
//! (42704); one given by oid need not (it is no superuser and no other
//! role). PostgreSQL's predefined roles (`pg_monitor`, ...) do not exist
//! in folio.

use crate::error::SqlError;
use crate::roles;

/// What a privilege asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Member,
    Usage,
    Admin,
}

const PRIVILEGES: [(&str, Asked); 6] = [
    ("MEMBER", Asked::Member),
    ("USAGE", Asked::Usage),
    ("MEMBER WITH ADMIN OPTION", Asked::Admin),
    ("MEMBER WITH GRANT OPTION", Asked::Admin),
    ("USAGE WITH ADMIN OPTION", Asked::Admin),
    ("USAGE WITH GRANT OPTION", Asked::Admin),
];

/// A role argument: a name or an oid.
#[derive(Debug, Clone)]
pub enum RoleArg {
    Name(String),
    Oid(i64),
}

/// The privileges of a list (PostgreSQL's `convert_any_priv_string`).
fn asked(list: &str) -> Result<Vec<Asked>, SqlError> {
    list.split(',')
        .map(|chunk| {
            let chunk = chunk.trim_matches(|c: char| c.is_ascii_whitespace());
            PRIVILEGES
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(chunk))
                .map(|(_, asked)| *asked)
                .ok_or_else(|| {
                    SqlError::new("22023", format!("unrecognized privilege type: \"{chunk}\""))
                })
        })
        .collect()
}

/// A role's oid (one given by oid need not exist: it is then no member
/// of anything).
fn resolve(db: &folio_db::Database, role: &RoleArg) -> Result<i64, SqlError> {
    Ok(match role {
        RoleArg::Name(name) => i64::from(
            roles::get(db, name)?
                .ok_or_else(|| roles::undefined(name))?
                .oid,
        ),
        RoleArg::Oid(oid) => *oid,
    })
}

/// `pg_has_role(user, role, privileges)`; `user` `None`: the current
/// role.
pub fn has_role(user: Option<RoleArg>, role: RoleArg, privileges: &str) -> Result<bool, SqlError> {
    let user = user.unwrap_or_else(|| RoleArg::Name(roles::current_name()));
    let Some(db) = roles::scoped_database() else {
        return Ok(true);
    };
    let user = resolve(&db, &user)?;
    let role = resolve(&db, &role)?;
    let asked = asked(privileges)?;
    // (An oid out of range names no role: it is nobody's member.)
    let (Ok(user), Ok(role)) = (u32::try_from(user), u32::try_from(role)) else {
        return Ok(user == role && asked.iter().any(|a| *a != Asked::Admin));
    };
    let graph = crate::memberships::Graph::load(&db)?;
    Ok(asked.iter().any(|asked| match asked {
        Asked::Member => user == role || graph.is_member_of(user, role, true),
        Asked::Usage => user == role || graph.has_privileges_of(user, role),
        Asked::Admin => graph.is_admin_of(user, role),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    // PostgreSQL's privilege words, and its error for another.
    #[test]
    fn reads_privilege_lists() {
        assert_eq!(
            asked(" usage , Member with ADMIN option").unwrap(),
            vec![Asked::Usage, Asked::Admin]
        );
        let e = asked("member  with admin option").unwrap_err();
        assert_eq!(
            e.message,
            "unrecognized privilege type: \"member  with admin option\""
        );
    }
}
